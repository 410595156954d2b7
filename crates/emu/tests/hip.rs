//! HIP kernels (tests/kernels/hip/emu_*.hip, hipcc --genco) on the emulator.

#![allow(clippy::needless_range_loop)] // references are indexed like the device buffers

use crate::common::*;

#[test]
fn shfl_reductions() {
    for t in TARGETS {
        let e = emu_hip("hip/emu_wave.hip", t);
        // warpSize is the wave size: 32 on gfx1030 (wave32; HIP 5.2 refuses wave64 on GFX10),
        // 64 elsewhere.
        let ws = wave_size(t);
        let n = 512usize;
        let input: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 1009 - 500).collect();
        let (bi, bo) = (e.buf_i32(&input), e.zeros(4 * 2 * n / ws));
        e.run1(
            "shfl_reduce",
            &[Arg::Ptr(&bi), Arg::Ptr(&bo)],
            n as u32,
            256,
        );
        let o = bo.i32s();
        for w in 0..n / ws {
            let s = &input[w * ws..w * ws + ws];
            assert_eq!(
                o[2 * w],
                s.iter().sum::<i32>(),
                "{t} shfl_down sum wave {w}"
            );
            assert_eq!(
                o[2 * w + 1],
                *s.iter().max().expect("max"),
                "{t} shfl_xor max wave {w}"
            );
        }
    }
}

#[test]
fn ballot_and_shfl() {
    for t in TARGETS {
        let e = emu_hip("hip/emu_wave.hip", t);
        // A wave32 ballot has 32 bits (the upper half of the 64-bit result is 0).
        let ws = wave_size(t);
        let n = 256usize;
        let input: Vec<i32> = (0..n as i32).map(|i| i * 5 + 1).collect();
        let (bi, bm, bc) = (e.buf_i32(&input), e.zeros(8 * n / ws), e.zeros(4 * n / ws));
        e.run1(
            "ballot_count",
            &[Arg::Ptr(&bi), Arg::Ptr(&bm), Arg::Ptr(&bc)],
            n as u32,
            128,
        );
        let (m, c) = (bm.u64s(), bc.i32s());
        for w in 0..n / ws {
            let mut want = 0u64;
            for l in 0..ws {
                if input[w * ws + l] % 3 == 0 {
                    want |= 1 << l;
                }
            }
            assert_eq!(m[w], want, "{t} ballot wave {w}");
            assert_eq!(
                c[w],
                want.count_ones() as i32 + input[w * ws + 5],
                "{t} count wave {w}"
            );
        }
    }
}

#[test]
fn block_scan_shared_memory() {
    for t in TARGETS {
        let e = emu_hip("hip/emu_wave.hip", t);
        let n = 1024usize;
        let input: Vec<i32> = (0..n as i32).map(|i| i % 17 - 8).collect();
        let (bi, bo) = (e.buf_i32(&input), e.zeros(4 * n));
        e.run1("block_scan", &[Arg::Ptr(&bi), Arg::Ptr(&bo)], n as u32, 512);
        let o = bo.i32s();
        for b in 0..2 {
            let mut acc = 0;
            for k in 0..512 {
                acc += input[b * 512 + k];
                assert_eq!(o[b * 512 + k], acc, "{t} scan block {b} item {k}");
            }
        }
    }
}

#[test]
fn private_array_through_call() {
    for t in TARGETS {
        let e = emu_hip("hip/emu_wave.hip", t);
        let n = 300usize;
        let input: Vec<i32> = (0..n as i32).map(|i| i * 3).collect();
        let (bi, bo) = (e.buf_i32(&input), e.zeros(4 * n));
        e.run1(
            "private_call",
            &[Arg::Ptr(&bi), Arg::Ptr(&bo), Arg::I32(n as i32)],
            320,
            64,
        );
        let o = bo.i32s();
        for i in 0..n {
            let v = input[i];
            let cnt = 1 + (v & 15);
            let want: i32 = (0..cnt).map(|k| (v + k) * (v + k)).sum();
            assert_eq!(o[i], want, "{t} private_call {i}");
        }
    }
}
