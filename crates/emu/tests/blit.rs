//! Native blits (crates/emu/src/blit.rs): ROCclr's fill and copy kernels, compiled from the
//! same wrappers and device library as HIP's own (tests/kernels/cl/rocclr_blit.cl), give the
//! same bytes and the same faults natively as interpreted. The interpreter is the oracle here
//! only in the sense that both run the compiler's output of the device library's definition;
//! each case also checks the bytes against the definition written out in the test.

use crate::common::*;
use hsaemu_emu::DispatchStats;

const SRC: &str = "cl/rocclr_blit.cl";

/// A kernel argument that is one of the test's buffers (the first or the second copy).
#[derive(Clone, Copy)]
enum A {
    Src,
    Dst,
    Pattern,
    Null,
    U32(u32),
    U64(u64),
}

/// The destination's bytes after a dispatch, from (source, destination, pattern) before it.
type Want = Box<dyn Fn(&[u8], &[u8], &[u8]) -> Vec<u8>>;

struct Case {
    kernel: &'static str,
    args: Vec<A>,
    grid: u32,
    wg: u16,
    /// Bytes of each buffer.
    len: usize,
    /// The destination's bytes after the dispatch, from the kernel's definition.
    want: Want,
}

const DST_LEN: usize = 4096;

fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut r = Rng(seed);
    (0..n).map(|_| r.next_u32() as u8).collect()
}

/// Runs `c` on `e` with native blits on or off, on fresh buffers; returns the destination's
/// bytes and the stats.
fn run(e: &Emu, c: &Case, native: bool) -> (Vec<u8>, DispatchStats) {
    e.gpu.set_native(native);
    let src = e.buf_bytes(&bytes(1, c.len));
    let dst = e.buf_bytes(&bytes(2, c.len));
    let pattern = e.buf_bytes(&bytes(3, 64));
    let args: Vec<Arg> = c
        .args
        .iter()
        .map(|a| match *a {
            A::Src => Arg::Ptr(&src),
            A::Dst => Arg::Ptr(&dst),
            A::Pattern => Arg::Ptr(&pattern),
            A::Null => Arg::Null,
            A::U32(x) => Arg::U32(x),
            A::U64(x) => Arg::U64(x),
        })
        .collect();
    let stats = e.run(c.kernel, &args, [c.grid, 1, 1], [c.wg, 1, 1]);
    e.gpu.set_native(true);
    (dst.bytes(), stats)
}

fn fill(buffer: usize, pattern_size: u32, offset: u64, size: u64, grid: u32) -> Case {
    let mut args = vec![A::Null; 4];
    args[buffer] = A::Dst;
    args.extend([
        A::Pattern,
        A::U32(pattern_size),
        A::U64(offset),
        A::U64(size),
    ]);
    let width = 1usize << buffer;
    Case {
        kernel: "__amd_rocclr_fillBufferAligned",
        args,
        grid,
        wg: 256,
        len: DST_LEN,
        want: Box::new(move |_, dst, pattern| {
            let mut out = dst.to_vec();
            let p = &pattern[..pattern_size as usize * width];
            let ids = size.min(u64::from(grid)) as usize;
            let start = offset as usize * width;
            for (k, b) in out[start..start + ids * p.len()].iter_mut().enumerate() {
                *b = p[k % p.len()];
            }
            out
        }),
    }
}

fn copy(kernel: &'static str, so: u64, d0: u64, size: u64, last: u32, grid: u32) -> Case {
    Case {
        kernel,
        args: vec![
            A::Src,
            A::Dst,
            A::U64(so),
            A::U64(d0),
            A::U64(size),
            A::U32(last),
        ],
        grid,
        wg: 64,
        len: DST_LEN,
        want: Box::new(move |src, dst, _| {
            let mut out = dst.to_vec();
            let ids = size.min(u64::from(grid)) as usize;
            let (so, d0) = (so as usize, d0 as usize);
            let (from, to, scale) = match (kernel, last) {
                ("__amd_rocclr_copyBufferAligned", 16) => (0, 16 * ids, 16),
                ("__amd_rocclr_copyBufferAligned", _) => (0, 4 * ids, 4),
                (_, 8) => (0, ids, 1),
                (_, remain) if ids == size as usize => (0, 4 * (ids - 1) + remain as usize, 1),
                _ => (0, 4 * ids, 1),
            };
            let (so, d0) = (so * scale, d0 * scale);
            out[d0 + from..d0 + to].copy_from_slice(&src[so + from..so + to]);
            out
        }),
    }
}

fn cases() -> Vec<Case> {
    const COPY: &str = "__amd_rocclr_copyBuffer";
    const ALIGNED: &str = "__amd_rocclr_copyBufferAligned";
    vec![
        // hipMemset: one byte, the uchar buffer; a partial last work-group.
        fill(0, 1, 3, 1000, 1000),
        // The grid larger than `size` (the guard) and smaller (only the grid's ids).
        fill(0, 1, 0, 700, 1024),
        fill(0, 1, 9, 3000, 600),
        // Wider elements and longer patterns: ushort × 3, uint × 2, ulong × 2.
        fill(1, 3, 5, 101, 128),
        fill(2, 2, 7, 77, 256),
        fill(3, 2, 1, 50, 64),
        // An empty pattern writes nothing.
        fill(2, 0, 0, 64, 64),
        // copyBuffer: bytes (remain 8), dwords with a 0–3 byte tail, odd origins.
        copy(COPY, 3, 7, 1001, 8, 1024),
        copy(COPY, 5, 1, 250, 3, 256),
        copy(COPY, 0, 0, 100, 0, 128),
        copy(COPY, 2, 6, 300, 1, 300),
        copy(COPY, 1, 2, 200, 2, 150),
        // copyBufferAligned: uint4 and uint elements.
        copy(ALIGNED, 1, 3, 200, 16, 256),
        copy(ALIGNED, 5, 2, 900, 4, 1000),
    ]
}

#[test]
fn native_blits_write_what_the_kernels_write() {
    for t in TARGETS {
        let e = emu(SRC, t);
        for (i, c) in cases().iter().enumerate() {
            let (native, ns) = run(&e, c, true);
            let (interpreted, is) = run(&e, c, false);
            // Which path ran: the native one executes no wave-instructions.
            assert_eq!(ns.wave_instructions, 0, "{t} case {i}: not native");
            assert!(is.wave_instructions > 0, "{t} case {i}: not interpreted");
            assert_eq!(ns.workgroups, is.workgroups, "{t} case {i}");
            assert_eq!(ns.waves, is.waves, "{t} case {i}");
            let want = (c.want)(&bytes(1, c.len), &bytes(2, c.len), &bytes(3, 64));
            assert!(
                interpreted == want,
                "{t} case {i}: interpreted bytes differ"
            );
            assert!(native == want, "{t} case {i}: native bytes differ");
        }
    }
}

/// Blits of several 4 MiB chunks are split over the GPU's threads (a fill's chunks hold
/// whole patterns; here 6-byte ones).
#[test]
fn large_blits_split_over_threads_write_the_same() {
    const LEN: usize = (9 << 20) + 13;
    let e = emu(SRC, "gfx90a");
    let mut big = vec![
        fill(1, 3, 1, (LEN as u64 - 8) / 6, u32::MAX / 2),
        copy(
            "__amd_rocclr_copyBuffer",
            3,
            5,
            (LEN as u64 - 8) / 4,
            3,
            u32::MAX / 2,
        ),
    ];
    for c in &mut big {
        c.len = LEN;
        c.grid = (LEN / 4) as u32;
        c.wg = 256;
        let (native, ns) = run(&e, c, true);
        let (interpreted, is) = run(&e, c, false);
        assert_eq!(ns.wave_instructions, 0, "{}: not native", c.kernel);
        assert!(is.wave_instructions > 0);
        let want = (c.want)(&bytes(1, LEN), &bytes(2, LEN), &bytes(3, 64));
        assert!(
            interpreted == want,
            "{}: interpreted bytes differ",
            c.kernel
        );
        assert!(native == want, "{}: native bytes differ", c.kernel);
    }
}

#[test]
fn other_kernels_are_interpreted() {
    let e = emu(SRC, "gfx90a");
    let mut c = copy("__amd_rocclr_copyBuffer", 3, 7, 1001, 8, 1024);
    c.kernel = "not_a_blit_copyBuffer";
    let (got, stats) = run(&e, &c, true);
    assert!(stats.wave_instructions > 0);
    assert!(got == (c.want)(&bytes(1, DST_LEN), &bytes(2, DST_LEN), &bytes(3, 64)));
}

#[test]
fn bad_ranges_fault_as_interpreted() {
    for t in ["gfx90a", "gfx1030"] {
        let e = emu(SRC, t);
        // Several work-groups fault: a fixed schedule makes the first one the same each time.
        e.gpu.set_deterministic(true);
        let src = e.buf_bytes(&bytes(1, DST_LEN));
        let dst = e.zeros(DST_LEN);
        // A copy running off the end of its destination, one into unregistered memory, and a
        // fill whose pattern is unregistered: each must fault exactly as interpreted (the
        // native path declines them before writing anything).
        let cases: Vec<(&str, Vec<Arg>)> = vec![
            (
                "__amd_rocclr_copyBuffer",
                vec![
                    Arg::Ptr(&src),
                    Arg::Ptr(&dst),
                    Arg::U64(0),
                    Arg::U64(DST_LEN as u64 - 100),
                    Arg::U64(1000),
                    Arg::U32(8),
                ],
            ),
            (
                "__amd_rocclr_copyBufferAligned",
                vec![
                    Arg::Ptr(&src),
                    Arg::U64(0x10),
                    Arg::U64(0),
                    Arg::U64(0),
                    Arg::U64(64),
                    Arg::U32(4),
                ],
            ),
            (
                "__amd_rocclr_fillBufferAligned",
                vec![
                    Arg::Ptr(&dst),
                    Arg::Null,
                    Arg::Null,
                    Arg::Null,
                    Arg::U64(0x2000),
                    Arg::U32(1),
                    Arg::U64(0),
                    Arg::U64(64),
                ],
            ),
        ];
        for (kernel, args) in &cases {
            let mut reports = Vec::new();
            for native in [true, false] {
                e.gpu.set_native(native);
                let f = e
                    .try_run(kernel, args, [1024, 1, 1], [64, 1, 1], 0)
                    .expect_err("must fault");
                reports.push(f.to_string());
            }
            e.gpu.set_native(true);
            assert_eq!(reports[0], reports[1], "{t} {kernel}");
            assert!(reports[0].starts_with("memory fault in kernel `__amd_rocclr_"));
        }
    }
}
