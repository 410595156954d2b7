//! Code object V2 kernels: clang-15 `-mcode-object-version=2` output, whose kernel object is a
//! 256-byte `amd_kernel_code_t` instead of a V3+ kernel descriptor. clang-15 emits V2 only for
//! gfx803, gfx900 and gfx906 ("V2 does not support processor gfx90a"). Each kernel runs on the
//! emulator and is checked against a CPU reference; corrupt `amd_kernel_code_t`s are refused
//! with an error naming the field.

#![allow(clippy::needless_range_loop)] // references are indexed like the device buffers

use crate::common::*;
use hsaemu_emu::{FaultKind, KernelObjectFormat};

/// The processors clang-15 emits code object V2 for (those of [`TARGETS_V2`]).
const V2_TARGETS: [&str; 3] = ["gfx803", "gfx900", "gfx906"];

fn v2(src: &str, target: &str) -> Emu {
    emu_cov(src, target, 2)
}

#[test]
fn kernels_are_found_at_their_amd_kernel_code_t() {
    for t in V2_TARGETS {
        let path = hsaemu_testkit::compile_cl("cl/vector_add.cl", t, 2);
        let bytes = std::fs::read(&path).expect("read");
        let co = hsaemu_codeobject::CodeObject::parse(&bytes).expect("parse");
        let e = v2("cl/vector_add.cl", t);
        for name in ["vector_add", "saxpy"] {
            let k = e.code.kernel(name).expect("kernel listed");
            assert_eq!(k.format, KernelObjectFormat::AmdKernelCode, "{t} {name}");
            let sym = co.symbol(name).expect("symbol");
            assert_eq!(k.kernel_object, e.code.base + sym.value, "{t} {name}");
            let akc = co.amd_kernel_code(name).expect("amd_kernel_code_t");
            assert_eq!(
                k.entry,
                k.kernel_object + akc.kernel_code_entry_byte_offset as u64,
                "{t} {name}"
            );
            assert_eq!(
                u64::from(k.kernarg_segment_size),
                akc.kernarg_segment_byte_size,
                "{t} {name}"
            );
            // The code after the amd_kernel_code_t is a function (disassembly, coverage).
            assert!(
                e.code.functions.iter().any(|f| f.address == k.entry),
                "{t} {name}"
            );
        }
        let cov = e.gpu.coverage(&e.code);
        assert!(cov.instructions > 20, "{t}: {cov:?}");
        assert_eq!(cov.invalid_words, 0, "{t}: the sweep starts at the code");
    }
}

/// The format-independent kernel tests (vector add, saxpy, matmul, reduction, private array,
/// calls: `kernels.rs`, `suite.rs`) run on these V2 builds too ([`TARGETS_V2`]). What is V2's
/// own: the segment sizes the dispatch uses come from the `amd_kernel_code_t`.
#[test]
fn segment_sizes_come_from_the_amd_kernel_code_t() {
    for t in V2_TARGETS {
        let e = v2("cl/matmul.cl", t);
        let k = e.code.kernel("matmul_tiled").expect("kernel");
        assert_eq!(k.format, KernelObjectFormat::AmdKernelCode, "{t}");
        // Static LDS: two 16x16 float tiles.
        assert!(k.group_segment_size >= 2 * 16 * 16 * 4, "{t}: {k:?}");
        let bytes = std::fs::read(hsaemu_testkit::compile_cl("cl/control.cl", t, 2)).expect("read");
        let co = hsaemu_codeobject::CodeObject::parse(&bytes).expect("parse");
        let akc = co
            .amd_kernel_code("private_array")
            .expect("amd_kernel_code_t");
        let e = v2("cl/control.cl", t);
        let k = e.code.kernel("private_array").expect("kernel");
        // A private array of 32 ints indexed at run time.
        assert!(k.private_segment_size >= 32 * 4, "{t}: {k:?}");
        assert_eq!(
            k.private_segment_size, akc.workitem_private_segment_byte_size,
            "{t}"
        );
    }
}

#[test]
fn dispatch_packet_and_partial_work_groups() {
    let pack = |v: [u32; 3]| v[0] | v[1] << 10 | v[2] << 20;
    // gfx90a V5 (hidden arguments instead of the dispatch packet) must agree.
    let runs = V2_TARGETS
        .map(|t| (t, 2))
        .into_iter()
        .chain([("gfx90a", 5)]);
    for (t, cov) in runs {
        let e = emu_cov("cl/geometry.cl", t, cov);
        for (grid, wg) in [
            ([13u32, 7, 5], [4u16, 4, 2]),
            ([100, 1, 1], [64, 1, 1]),
            ([70, 3, 1], [32, 2, 1]),
        ] {
            let items = (grid[0] * grid[1] * grid[2]) as usize;
            let bo = e.zeros(16 * items);
            e.run("geometry", &[Arg::Ptr(&bo)], grid, wg);
            let o = bo.u32s();
            let wg = wg.map(u32::from);
            let groups = [0, 1, 2].map(|d| grid[d].div_ceil(wg[d]));
            for z in 0..grid[2] {
                for y in 0..grid[1] {
                    for x in 0..grid[0] {
                        let g = [x, y, z];
                        let id = [0, 1, 2].map(|d| g[d] / wg[d]);
                        let local = [0, 1, 2].map(|d| wg[d].min(grid[d] - id[d] * wg[d]));
                        let l = [0, 1, 2].map(|d| g[d] % wg[d]);
                        let i = ((z * grid[1] + y) * grid[0] + x) as usize;
                        // ROCm's device library forms the linear local ID from the enqueued
                        // work-group size (the packet's), also in a partial work-group.
                        let want = [
                            pack(local),
                            pack(groups),
                            pack(id),
                            (l[2] * wg[1] + l[1]) * wg[0] + l[0],
                        ];
                        assert_eq!(
                            o[4 * i..4 * i + 4],
                            want,
                            "{t} grid {grid:?} wg {wg:?} item ({x},{y},{z})"
                        );
                    }
                }
            }
        }
    }
}

/// Bytes to write at an offset within an `amd_kernel_code_t`.
type Patch<'a> = (usize, &'a [u8]);

/// A V2 code object with the bytes of one kernel's `amd_kernel_code_t` changed by `patch`.
fn corrupt(target: &str, kernel: &str, patch: &[Patch]) -> Vec<u8> {
    let path = hsaemu_testkit::compile_cl("cl/vector_add.cl", target, 2);
    let mut bytes = std::fs::read(&path).expect("read");
    let co = hsaemu_codeobject::CodeObject::parse(&bytes).expect("parse");
    let sym = co.symbol(kernel).expect("symbol").value;
    let seg = co
        .load_segments()
        .iter()
        .find(|s| sym >= s.vaddr && sym < s.vaddr + s.data.len() as u64)
        .expect("segment holding the kernel");
    let file_off = (seg.offset + (sym - seg.vaddr)) as usize;
    for (off, data) in patch {
        bytes[file_off + off..file_off + off + data.len()].copy_from_slice(data);
    }
    bytes
}

#[test]
fn corrupt_amd_kernel_code_t_is_refused_at_load() {
    let mem = hsaemu_emu::MemoryMap::new();
    let gpu = hsaemu_emu::Gpu::new(
        hsaemu_emu::GpuConfig {
            processor: "gfx906".into(),
            ..Default::default()
        },
        mem.clone(),
    )
    .expect("gpu");
    let cases: [(&[Patch], &str); 6] = [
        (
            &[(16, &0x10_0000i64.to_le_bytes())],
            "kernel `vector_add`: amd_kernel_code_t field kernel_code_entry_byte_offset at offset 0x10: 0x100000 points outside the kernel's",
        ),
        (
            &[(16, &(-4096i64).to_le_bytes())],
            "kernel_code_entry_byte_offset at offset 0x10: -0x1000 points outside",
        ),
        (
            &[(16, &8i64.to_le_bytes())],
            "points into the amd_kernel_code_t itself",
        ),
        (
            &[(84, &5000u16.to_le_bytes())],
            "amd_kernel_code_t field wavefront_sgpr_count at offset 0x54: 5000 SGPRs exceed the 108",
        ),
        (
            &[(86, &0xffffu16.to_le_bytes())],
            "amd_kernel_code_t field workitem_vgpr_count at offset 0x56: 65535 VGPRs exceed the 256",
        ),
        (&[(8, &7u16.to_le_bytes())], "amd_machine_kind at offset 0x8"),
    ];
    for (patch, want) in cases {
        let bytes = corrupt("gfx906", "vector_add", patch);
        let e = gpu
            .load_code_object(&bytes)
            .expect_err("a corrupt amd_kernel_code_t must be refused");
        assert!(e.to_string().contains(want), "{e}\nwanted: {want}");
    }
    assert_eq!(mem.len(), 0, "nothing stays registered");
}

#[test]
fn amd_kernel_code_t_changed_after_loading_is_refused_at_dispatch() {
    // The dispatch reads the kernel object again, so a structure that became corrupt after
    // loading (or a V2 feature the emulator does not implement) is an invalid dispatch.
    let e = v2("cl/vector_add.cl", "gfx906");
    let k = e.code.kernel("vector_add").expect("kernel").clone();
    let buf = e.zeros(4 * 64);
    let args = [Arg::Ptr(&buf), Arg::Ptr(&buf), Arg::Ptr(&buf), Arg::U32(64)];
    let patch = |off: u64, data: &[u8]| {
        // SAFETY: the kernel object lies in the loaded image, owned by `e.code` for the whole
        // test; no dispatch runs while the test writes it.
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.as_ptr(),
                (k.kernel_object + off) as *mut u8,
                data.len(),
            )
        };
    };
    let props = u32::from_le_bytes(
        // SAFETY: as above; 4 bytes inside the amd_kernel_code_t.
        unsafe { std::ptr::read((k.kernel_object + 56) as *const [u8; 4]) },
    );
    for (off, data, want) in [
        (
            56u64,
            (props | 1 << 7).to_le_bytes().to_vec(),
            "grid work-group count SGPRs",
        ),
        (
            0,
            2u32.to_le_bytes().to_vec(),
            "amd_kernel_code_version_major at offset 0x0: 2",
        ),
        (
            16,
            0x7fff_0000i64.to_le_bytes().to_vec(),
            "is not inside loaded code",
        ),
        (103, vec![5], "compiled for wave32"),
    ] {
        let mut saved = vec![0u8; data.len()];
        // SAFETY: as above.
        unsafe {
            std::ptr::copy_nonoverlapping(
                (k.kernel_object + off) as *const u8,
                saved.as_mut_ptr(),
                saved.len(),
            )
        };
        patch(off, &data);
        let f = e
            .try_run("vector_add", &args, [64, 1, 1], [64, 1, 1], 0)
            .expect_err("must be refused");
        assert!(
            matches!(f.kind, FaultKind::InvalidDispatch { .. }) && f.to_string().contains(want),
            "{f}\nwanted: {want}"
        );
        patch(off, &saved);
    }
    // Restored, it runs.
    e.run1("vector_add", &args, 64, 64);
}
