//! Real compiled kernels (tests/kernels/cl) on the emulator against CPU references.

#![allow(clippy::needless_range_loop)] // references are indexed like the device buffers

use crate::common::*;

#[test]
fn vector_add_all_targets() {
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_V2)
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/vector_add.cl", t);
        // The `-v2` variants load as `amd_kernel_code_t` kernel objects, the rest as descriptors.
        let format = e.code.kernel("vector_add").expect("kernel").format;
        assert_eq!(
            format == hsaemu_emu::KernelObjectFormat::AmdKernelCode,
            code_object_version(t) == 2,
            "{t}: {format:?}"
        );
        let n = 1000u32;
        let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
        let (ba, bb, bc) = (e.buf_f32(&a), e.buf_f32(&b), e.zeros(4 * n as usize));
        let stats = e.run1(
            "vector_add",
            &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bc), Arg::U32(n)],
            n,
            64,
        );
        // 16 work-groups of 64 work-items: 2 waves each in wave32.
        assert_eq!(stats.waves, 16 * 64 / wave_size(t) as u64, "{t}");
        let c = bc.f32s();
        for i in 0..n as usize {
            assert_eq!(c[i], a[i] + b[i], "{t}: element {i}");
        }
    }
}

#[test]
fn saxpy_partial_groups() {
    for t in TARGETS.into_iter().chain(TARGETS_V2).chain(TARGETS_RDNA3) {
        let e = emu("cl/vector_add.cl", t);
        let n = 777u32;
        let x: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
        let y: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
        let (bx, by) = (e.buf_f32(&x), e.buf_f32(&y));
        e.run1(
            "saxpy",
            &[Arg::F32(2.5), Arg::Ptr(&bx), Arg::Ptr(&by), Arg::U32(n)],
            n,
            128,
        );
        let r = by.f32s();
        for i in 0..n as usize {
            let (fused, unfused) = (2.5f32.mul_add(x[i], y[i]), 2.5 * x[i] + y[i]);
            assert!(r[i] == fused || r[i] == unfused, "{t} {i}: {}", r[i]);
        }
    }
}

#[test]
fn matmul_tiled_lds_barriers() {
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_V2)
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/matmul.cl", t);
        let n = 64u32;
        let mut rng = Rng(7);
        let a: Vec<f32> = (0..n * n).map(|_| rng.f32(-1.0, 1.0)).collect();
        let b: Vec<f32> = (0..n * n).map(|_| rng.f32(-1.0, 1.0)).collect();
        let (ba, bb, bc) = (e.buf_f32(&a), e.buf_f32(&b), e.zeros(4 * (n * n) as usize));
        e.run(
            "matmul_tiled",
            &[Arg::Ptr(&ba), Arg::Ptr(&bb), Arg::Ptr(&bc), Arg::U32(n)],
            [n, n, 1],
            [16, 16, 1],
        );
        let c = bc.f32s();
        let n = n as usize;
        for r in 0..n {
            for col in 0..n {
                let mut acc = 0f32;
                for k in 0..n {
                    acc = a[r * n + k].mul_add(b[k * n + col], acc);
                }
                let got = c[r * n + col];
                assert!((got - acc).abs() < 1e-4, "{t} ({r},{col}): {got} vs {acc}");
            }
        }
    }
}

/// Each work-group's sum in `got` is the CPU's sum of its `wg` items of `input` (the last
/// group partial).
fn assert_group_sums(got: &[i32], input: &[i32], wg: u16, what: &str) {
    for (g, items) in input.chunks(usize::from(wg)).enumerate() {
        assert_eq!(got[g], items.iter().sum::<i32>(), "{what}: group {g}");
    }
}

#[test]
fn reduce_sum_dynamic_lds() {
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_V2)
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/reduce.cl", t);
        let n = 1000u32;
        let input: Vec<i32> = (0..n as i32).map(|i| i * 3 - 500).collect();
        for wg in [64u16, 256] {
            let groups = n.div_ceil(u32::from(wg));
            let (bi, bp) = (e.buf_i32(&input), e.zeros(4 * groups as usize));
            let k = e.code.kernel("reduce_sum").expect("kernel");
            e.try_run(
                "reduce_sum",
                &[
                    Arg::Ptr(&bi),
                    Arg::Ptr(&bp),
                    Arg::U32(k.group_segment_size),
                    Arg::U32(n),
                ],
                [groups * u32::from(wg), 1, 1],
                [wg, 1, 1],
                4 * u32::from(wg),
            )
            .unwrap_or_else(|f| panic!("{t}: {f}"));
            assert_group_sums(&bp.i32s(), &input, wg, &format!("{t} wg {wg}"));
        }
    }
}

/// The reduction over many work-groups on one host thread (whose worker claims work-groups
/// without a locked instruction) and on two, wave32 and wave64: every work-group runs once,
/// and its waves, parked at each barrier, resume where they stopped; sums from the CPU.
#[test]
fn reduce_sum_many_groups_one_and_two_threads() {
    for t in ["gfx1030", GFX1030_W64, "gfx90a"] {
        let (processor, extra) = compile_target(t);
        let cov = code_object_version(t);
        let path = hsaemu_testkit::compile_cl_with("cl/reduce.cl", processor, cov, extra);
        let bytes = std::fs::read(path).expect("read compiled kernel");
        // 150 full work-groups and a partial one.
        let n: u32 = 150 * 256 + 77;
        let input: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 1001 - 500).collect();
        // Under `HSAEMU_JIT=verify` every region run in a dispatch is checked (and counted).
        let verify = hsaemu_emu::jit::enabled()
            && std::env::var("HSAEMU_JIT").is_ok_and(|v| v.trim() == "verify");
        for threads in [1, 2] {
            let e = from_bytes_threads(&bytes, processor, cov, threads);
            for wg in [256u16, 64] {
                let checked = hsaemu_emu::jit::stats().runs;
                let groups = n.div_ceil(u32::from(wg));
                let (bi, bp) = (
                    e.buf_i32(&input),
                    e.buf_i32(&vec![i32::MIN; groups as usize]),
                );
                let stats = e
                    .try_run(
                        "reduce_sum",
                        &[
                            Arg::Ptr(&bi),
                            Arg::Ptr(&bp),
                            Arg::U32(
                                e.code
                                    .kernel("reduce_sum")
                                    .expect("kernel")
                                    .group_segment_size,
                            ),
                            Arg::U32(n),
                        ],
                        [groups * u32::from(wg), 1, 1],
                        [wg, 1, 1],
                        4 * u32::from(wg),
                    )
                    .unwrap_or_else(|f| panic!("{t}: {f}"));
                let what = format!("{t}, {threads} threads, work-groups of {wg}");
                assert_eq!(stats.workgroups, u64::from(groups), "{what}");
                if verify {
                    let runs = hsaemu_emu::jit::stats().runs;
                    assert!(runs > checked, "{what}: no region run was verified");
                }
                assert_group_sums(&bp.i32s(), &input, wg, &what);
            }
        }
    }
}

#[test]
fn reduce_sum_u64_atomics() {
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let e = emu("cl/reduce.cl", t);
        let n = 3000u32;
        let input: Vec<u64> = (0..u64::from(n)).map(|i| i * 1_000_003).collect();
        let (bi, bo) = (e.buf_u64(&input), e.zeros(8));
        e.run1(
            "reduce_sum_u64",
            &[Arg::Ptr(&bi), Arg::Ptr(&bo), Arg::U32(n)],
            3072,
            256,
        );
        assert_eq!(bo.u64s()[0], input.iter().sum::<u64>(), "{t}");
    }
}

#[test]
fn histogram_lds_and_global_atomics() {
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/atomics.cl", t);
        let n = 5000u32;
        let mut rng = Rng(3);
        let data: Vec<u8> = (0..n).map(|_| (rng.next_u32() % 251) as u8).collect();
        let (bd, bins) = (e.buf_bytes(&data), e.zeros(256 * 4));
        e.run1(
            "histogram",
            &[Arg::Ptr(&bd), Arg::U32(n), Arg::Ptr(&bins)],
            1024,
            256,
        );
        let mut want = [0u32; 256];
        for d in &data {
            want[*d as usize] += 1;
        }
        assert_eq!(bins.u32s(), want.to_vec(), "{t}");
    }
}

#[test]
fn atomic_ops_every_integer_op() {
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let e = emu("cl/atomics.cl", t);
        let n = 256u32;
        let init = [0i32, 1_000_000, -1, i32::MAX, i32::MIN, -1, 0, -1];
        let (cells, old) = (e.buf_i32(&init), e.zeros(4 * 8 * n as usize));
        e.run1("atomic_ops", &[Arg::Ptr(&cells), Arg::Ptr(&old)], n, 64);
        let c = cells.i32s();
        let sum: i32 = (0..n as i32).sum();
        assert_eq!(c[0], sum, "{t} add");
        assert_eq!(c[1], 1_000_000 - sum, "{t} sub");
        assert!((0..n as i32).contains(&c[2]), "{t} xchg");
        assert_eq!(c[3], 0, "{t} min");
        assert_eq!(c[4], n as i32 - 1, "{t} max");
        assert_eq!(c[5], 0, "{t} and");
        assert_eq!(c[6], -1, "{t} or");
        // cmpxchg chain: cell 7 starts at -1, lane i swaps i-1 -> i; all succeed in some order
        // only if executed in lane order; at least lane 0 succeeds.
        assert!(c[7] >= 0, "{t} cmpxchg");
        let o = old.i32s();
        let mut adds: Vec<i32> = (0..n as usize).map(|i| o[i * 8]).collect();
        adds.sort();
        // Old values of atomic_add are the prefix sums in some order: all distinct.
        adds.dedup();
        // Lane 0 adds 0, so at most two lanes see the same old value.
        assert!(
            adds.len() >= n as usize - 1,
            "{t} add returns distinct old values"
        );
        assert_eq!(adds[0], 0, "{t}");
    }
}

#[test]
fn collatz_divergent_loops() {
    fn steps(mut v: u32) -> i32 {
        let mut s = 0;
        while v != 1 && s < 1000 {
            v = if v & 1 == 1 {
                v.wrapping_mul(3).wrapping_add(1)
            } else {
                v / 2
            };
            s += 1;
        }
        s
    }
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/control.cl", t);
        let n = 512u32;
        let input: Vec<u32> = (0..n).map(|i| i * 7 + 3).collect();
        let (bi, bo) = (e.buf_u32(&input), e.zeros(4 * n as usize));
        e.run1("collatz", &[Arg::Ptr(&bi), Arg::Ptr(&bo)], n, 64);
        let o = bo.i32s();
        for i in 0..n as usize {
            assert_eq!(o[i], steps(input[i] + 1), "{t} {i}");
        }
    }
}

#[test]
fn private_array_scratch() {
    for t in TARGETS_W64
        .into_iter()
        .chain([GFX1030_FLAT_SCRATCH])
        .chain(TARGETS_V2)
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/control.cl", t);
        let n = 200u32;
        let idx: Vec<i32> = (0..n as i32).map(|i| (i * 11) % 37).collect();
        let (bi, bo) = (e.buf_i32(&idx), e.zeros(4 * n as usize));
        e.run1("private_array", &[Arg::Ptr(&bi), Arg::Ptr(&bo)], n, 64);
        let o = bo.i32s();
        for i in 0..n as usize {
            let k = idx[i] & 31;
            assert_eq!(o[i], k * k + i as i32, "{t} {i}");
        }
    }
}

/// Each wave's private segment offset (its scratch slot): a work-group of several waves
/// keeps private tables across a barrier, so the waves' turns interleave between the stores
/// and the loads; each element from its definition (`k² + i`).
#[test]
fn private_tables_across_a_barrier() {
    for t in TARGETS_W64.into_iter().chain([GFX1030_FLAT_SCRATCH]) {
        let e = emu("cl/private_barrier.cl", t);
        let n = 600u32;
        let idx: Vec<i32> = (0..n as i32).map(|i| (i * 13) % 61).collect();
        let (bi, bo) = (e.buf_i32(&idx), e.zeros(4 * n as usize));
        e.run1(
            "private_across_barrier",
            &[Arg::Ptr(&bi), Arg::Ptr(&bo)],
            n,
            256,
        );
        let o = bo.i32s();
        for i in 0..n as usize {
            let k = idx[i] & 63;
            assert_eq!(o[i], k * k + i as i32, "{t} {i}");
        }
    }
}

#[test]
fn grid_3d_partial_groups() {
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let e = emu("cl/control.cl", t);
        // Waves that span rows of X (IDs filled one run of a row at a time), and waves
        // inside one row of a work-group whose rows hold whole waves (Y and Z fixed per
        // wave).
        for ((w, h, d), wg) in [
            ((13u32, 7u32, 5u32), [4u16, 4, 2]),
            ((141, 3, 3), [64, 2, 2]),
        ] {
            let bo = e.zeros(4 * (w * h * d) as usize);
            e.run("grid_3d", &[Arg::Ptr(&bo)], [w, h, d], wg);
            let o = bo.u32s();
            for z in 0..d {
                for y in 0..h {
                    for x in 0..w {
                        let want = (x + 100 * y + 10000 * z) ^ (x / u32::from(wg[0]));
                        let at = ((z * h + y) * w + x) as usize;
                        assert_eq!(o[at], want, "{t} {wg:?} ({x},{y},{z})");
                    }
                }
            }
        }
    }
}

#[test]
fn math_f32_device_libs() {
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let e = emu("cl/math.cl", t);
        let n = 256u32;
        let x: Vec<f32> = (0..n).map(|i| 0.01 + i as f32 * 0.037).collect();
        let (bx, bo) = (e.buf_f32(&x), e.zeros(4 * 8 * n as usize));
        e.run1("math_f32", &[Arg::Ptr(&bx), Arg::Ptr(&bo)], n, 64);
        let o = bo.f32s();
        for i in 0..n as usize {
            let v = x[i];
            let want = [
                v.sqrt(),
                v.exp(),
                (v + 1.0).ln(),
                v.sin(),
                v.cos(),
                v.powf(1.5),
                1.0 / (v + 1.0),
                v.mul_add(v, -1.0),
            ];
            let ulps = [1, 4, 4, 4, 4, 4, 2, 0];
            for k in 0..8 {
                assert!(
                    close(o[i * 8 + k], want[k], ulps[k]),
                    "{t} x={v} fn {k}: {} vs {}",
                    o[i * 8 + k],
                    want[k]
                );
            }
        }
    }
}

#[test]
fn math_f64_device_libs() {
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let e = emu("cl/math.cl", t);
        let n = 128u32;
        let x: Vec<f64> = (0..n).map(|i| 0.5 + f64::from(i) * 0.173).collect();
        let (bx, bo) = (e.buf_f64(&x), e.zeros(8 * 4 * n as usize));
        e.run1("math_f64", &[Arg::Ptr(&bx), Arg::Ptr(&bo)], n, 64);
        let o = bo.f64s();
        for i in 0..n as usize {
            let v = x[i];
            let want = [
                v.sqrt(),
                v.exp(),
                v / (v + 3.0),
                ((v * 1000.0) as i64) as f64,
            ];
            for k in 0..4 {
                let got = o[i * 4 + k];
                let ulp = (got.to_bits() as i64 - want[k].to_bits() as i64).unsigned_abs();
                assert!(ulp <= 2, "{t} x={v} fn {k}: {got} vs {}", want[k]);
            }
        }
    }
}

#[test]
fn math_f16_and_conversions() {
    use half::f16;
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let e = emu("cl/math.cl", t);
        let n = 200u32;
        let x: Vec<f16> = (0..n)
            .map(|i| f16::from_f32(i as f32 * 0.05 - 3.0))
            .collect();
        let xb: Vec<u8> = x.iter().flat_map(|h| h.to_bits().to_le_bytes()).collect();
        let (bx, bo, bw) = (
            e.buf_bytes(&xb),
            e.zeros(2 * n as usize),
            e.zeros(4 * n as usize),
        );
        e.run1(
            "math_f16",
            &[Arg::Ptr(&bx), Arg::Ptr(&bo), Arg::Ptr(&bw)],
            n,
            64,
        );
        let (o, wd) = (bo.u16s(), bw.f32s());
        for i in 0..n as usize {
            let v = x[i].to_f32();
            let sq = f16::from_f32(f16::from_f32(v * v).to_f32() + 1.0);
            let fused = f16::from_f64(f64::from(v) * f64::from(v) + 1.0);
            assert!(
                o[i] == sq.to_bits() || o[i] == fused.to_bits(),
                "{t} {i}: {:#x} vs {:#x}",
                o[i],
                sq.to_bits()
            );
            assert_eq!(wd[i], v, "{t} {i}");
        }

        let n = 300u32;
        let mut rng = Rng(11);
        let x: Vec<f32> = (0..n)
            .map(|i| {
                if i < 10 {
                    [0.0, -0.5, 0.5, 1.5, 2.5, -2.5, 3e9, -3e9, f32::NAN, 7.49][i as usize]
                } else {
                    rng.f32(-1e6, 1e6)
                }
            })
            .collect();
        let bx = e.buf_f32(&x);
        let (bi, bu, bl, bb) = (
            e.zeros(4 * n as usize),
            e.zeros(4 * n as usize),
            e.zeros(8 * n as usize),
            e.zeros(4 * n as usize),
        );
        e.run1(
            "conversions",
            &[
                Arg::Ptr(&bx),
                Arg::Ptr(&bi),
                Arg::Ptr(&bu),
                Arg::Ptr(&bl),
                Arg::Ptr(&bb),
            ],
            n,
            64,
        );
        let (i32s, u32s, i64s, back) = (bi.i32s(), bu.u32s(), bl.u64s(), bb.f32s());
        for i in 0..n as usize {
            let v = x[i];
            let si = if v.is_nan() { 0 } else { v as i32 };
            assert_eq!(i32s[i], si, "{t} sat {v}");
            let ue = if v.is_nan() {
                0
            } else {
                v.round_ties_even() as u32
            };
            assert_eq!(u32s[i], ue, "{t} rte {v}");
            if !v.is_nan() && v.abs() < 9e18 {
                assert_eq!(i64s[i] as i64, v as i64, "{t} long {v}");
            }
            assert_eq!(back[i], si as f32 + ue as f32, "{t} back {v}");
        }
    }
}

/// A VGPR vector indexed by a uniform value: VGPR index mode (`s_set_gpr_idx_on`) on gfx906 and
/// gfx90a, `v_movrels`/`v_movreld` on gfx803 and gfx1030.
#[test]
fn register_vector_dynamic_index() {
    for t in TARGETS_W64
        .into_iter()
        .chain(TARGETS_RDNA3)
        .chain(TARGETS_RDNA3_W64)
    {
        let e = emu("cl/register_index.cl", t);
        let n = 96u32;
        let v: Vec<f32> = (0..32 * n).map(|x| x as f32 * 0.25).collect();
        let bv = e.buf_f32(&v);
        for k in [0x0003_0705, 0x001f_1f1f, 0x0000_0900] {
            let bo = e.zeros(4 * n as usize);
            e.run1(
                "register_index",
                &[Arg::Ptr(&bo), Arg::Ptr(&bv), Arg::U32(k)],
                n,
                64,
            );
            let o = bo.f32s();
            for g in 0..n as usize {
                let mut x = v[32 * g..32 * g + 32].to_vec();
                x[(k & 31) as usize] += 1.0;
                let want = x[(k >> 8 & 31) as usize] + x[(k >> 16 & 31) as usize];
                assert_eq!(o[g], want, "{t} k={k:#x} g={g}");
            }
        }
    }
}

/// GFX12 `s_barrier_signal_isfirst -1` over work-groups of 1–8 waves: exactly one wave per
/// work-group sees SCC set (the first signal of the phase); `s_get_barrier_state -1` read
/// before the signal is valid, counts every wave of the group as a member, and fewer
/// signals than members (RDNA4 ISA pseudo-code).
#[test]
fn gfx12_barrier_isfirst() {
    let e = emu("cl/emu_gfx12.cl", "gfx1201");
    for waves in [1u32, 2, 5, 8] {
        let groups = 3u32;
        let n = (groups * waves) as usize;
        let (bf, bs) = (e.zeros(4 * n), e.zeros(4 * n));
        e.run1(
            "barrier_isfirst",
            &[Arg::Ptr(&bf), Arg::Ptr(&bs)],
            groups * waves * 32,
            (waves * 32) as u16,
        );
        let (first, state) = (bf.u32s(), bs.u32s());
        for g in 0..groups as usize {
            let w = waves as usize;
            let firsts: u32 = first[g * w..(g + 1) * w].iter().sum();
            assert_eq!(firsts, 1, "{waves} waves, group {g}: {first:?}");
            for (k, &st) in state[g * w..(g + 1) * w].iter().enumerate() {
                assert_eq!(st & 1, 1, "valid, wave {k} of {waves}");
                assert_eq!(st >> 4 & 0x7f, waves, "members, wave {k}: {st:#x}");
                assert!(st >> 16 & 0x7f < waves, "signals, wave {k}: {st:#x}");
                assert_eq!(st & !0x7f_07f1, 0, "reserved bits, wave {k}: {st:#x}");
            }
        }
    }
}
