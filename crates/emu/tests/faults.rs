//! Faults: a kernel that misbehaves ends its dispatch with a clear report, and the process
//! (and the GPU) stay usable.

#![allow(clippy::needless_range_loop)] // references are indexed like the device buffers

use crate::common::*;
use hsaemu_emu::FaultKind;

#[test]
fn out_of_bounds_global_store() {
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let e = emu("cl/emu_faults.cl", t);
        let buf = e.zeros(4 * 64);
        let f = e
            .try_run(
                "oob_store",
                &[Arg::Ptr(&buf), Arg::I32(1 << 28)],
                [64, 1, 1],
                [64, 1, 1],
                0,
            )
            .expect_err("must fault");
        match f.kind {
            FaultKind::MemoryViolation {
                address,
                write,
                size,
            } => {
                assert_eq!(address, buf.addr() + (4u64 << 28), "{t}");
                assert!(write, "{t}");
                assert_eq!(size, 4, "{t}");
            }
            ref k => panic!("{t}: wrong fault {k:?}"),
        }
        assert_eq!(f.lane, Some(17), "{t}");
        assert_eq!(f.workgroup_id, [0, 0, 0], "{t}");
        assert_eq!(f.kernel.as_deref(), Some("oob_store"), "{t}");
        let text = f.to_string();
        assert!(
            text.starts_with("memory fault in kernel `oob_store` at pc 0x"),
            "{t}: {text}"
        );
        assert!(
            text.contains("lane 17 of wave 0 in work-group (0,0,0) wrote 4 bytes"),
            "{t}: {text}"
        );
        // The GPU still works afterwards.
        e.run1("oob_store", &[Arg::Ptr(&buf), Arg::I32(3)], 64, 64);
        assert_eq!(buf.i32s()[3], 1, "{t}");
    }
}

#[test]
fn lds_out_of_range() {
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let e = emu("cl/emu_faults.cl", t);
        let out = e.zeros(4 * 64);
        let f = e
            .try_run(
                "lds_oob",
                &[Arg::Ptr(&out), Arg::I32(100_000)],
                [64, 1, 1],
                [64, 1, 1],
                0,
            )
            .expect_err("must fault");
        assert!(
            matches!(f.kind, FaultKind::LdsOutOfRange { lds_size: 256, .. }),
            "{t}: {f}"
        );
        assert_eq!(f.lane, Some(0), "{t}");
        assert!(
            f.to_string()
                .starts_with("LDS out-of-range access in kernel `lds_oob`"),
            "{t}: {f}"
        );
        e.run1("lds_oob", &[Arg::Ptr(&out), Arg::I32(0)], 64, 64);
        assert_eq!(out.i32s()[9], 9, "{t}");
    }
}

#[test]
fn s_trap_2_aborts() {
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let e = emu("cl/emu_faults.cl", t);
        let mut v = vec![0i32; 256];
        v[200] = -1;
        let buf = e.buf_i32(&v);
        let f = e
            .try_run(
                "trap_on_negative",
                &[Arg::Ptr(&buf)],
                [256, 1, 1],
                [64, 1, 1],
                0,
            )
            .expect_err("must trap");
        assert_eq!(f.kind, FaultKind::Trap { trap_id: 2 }, "{t}");
        assert_eq!(f.workgroup_id, [3, 0, 0], "{t}");
        assert!(f.to_string().contains("s_trap 2 (abort"), "{t}: {f}");
    }
}

#[test]
fn illegal_instruction() {
    use object::{Object, ObjectSection, ObjectSymbol};
    for t in TARGETS.into_iter().chain(TARGETS_RDNA3) {
        let path = hsaemu_testkit::compile_cl("cl/emu_faults.cl", t, 5);
        let mut bytes = std::fs::read(&path).expect("read");
        let file = object::File::parse(&*bytes).expect("parse ELF");
        let text = file.section_by_name(".text").expect(".text");
        let (text_off, _) = text.file_range().expect("file range");
        let sym = file
            .dynamic_symbols()
            .find(|s| s.name() == Ok("trap_on_negative"))
            .expect("symbol");
        let off = (sym.address() - text.address() + text_off) as usize;
        // An invalid word (encoding family 0b111111 does not exist on GFX8/9).
        bytes[off..off + 4].copy_from_slice(&0xffff_ffffu32.to_le_bytes());
        let e = from_bytes(&bytes, t, 5);
        let buf = e.zeros(4 * 64);
        let f = e
            .try_run(
                "trap_on_negative",
                &[Arg::Ptr(&buf)],
                [64, 1, 1],
                [64, 1, 1],
                0,
            )
            .expect_err("must fault");
        assert_eq!(
            f.kind,
            FaultKind::IllegalInstruction { word: 0xffff_ffff },
            "{t}"
        );
        // The PC is an offset in the code object, with the function it lies in.
        assert_eq!(
            f.context.location.as_deref(),
            Some("trap_on_negative+0x0"),
            "{t}"
        );
        assert!(
            f.to_string().starts_with(&format!(
                "illegal instruction in kernel `trap_on_negative` at pc {:#x} (trap_on_negative+0x0)",
                f.pc
            )),
            "{t}: {f}"
        );
    }
}

#[test]
fn invalid_dispatches() {
    let e = emu("cl/emu_faults.cl", "gfx90a");
    let buf = e.zeros(64);
    let f = e
        .try_run(
            "oob_store",
            &[Arg::Ptr(&buf), Arg::I32(0)],
            [64, 1, 1],
            [2048, 1, 1],
            0,
        )
        .expect_err("too big");
    assert!(matches!(f.kind, FaultKind::InvalidDispatch { .. }), "{f}");
    let f = e
        .try_run(
            "oob_store",
            &[Arg::Ptr(&buf), Arg::I32(0)],
            [0, 1, 1],
            [64, 1, 1],
            0,
        )
        .expect_err("empty");
    assert!(f.to_string().contains("at least 1"), "{f}");
    let f = e
        .gpu
        .dispatch(&hsaemu_emu::Dispatch {
            kernel_object: 0x1234,
            grid_size: [1; 3],
            workgroup_size: [1; 3],
            ..Default::default()
        })
        .expect_err("wild kernel object");
    assert!(
        f.to_string().contains("not inside registered memory"),
        "{f}"
    );
}

#[test]
fn bad_code_objects_are_rejected() {
    let mem = hsaemu_emu::MemoryMap::new();
    let gpu = hsaemu_emu::Gpu::new(hsaemu_emu::GpuConfig::default(), mem.clone()).expect("gpu");
    assert!(gpu.load_code_object(b"not an elf").is_err());
    let good =
        std::fs::read(hsaemu_testkit::compile_cl("cl/vector_add.cl", "gfx90a", 5)).expect("read");
    for cut in [16, 64, 200, good.len() / 2] {
        assert!(
            gpu.load_code_object(&good[..cut]).is_err(),
            "truncated at {cut}"
        );
    }
    assert_eq!(mem.len(), 0, "nothing stays registered");
    let unknown = hsaemu_emu::Gpu::new(
        hsaemu_emu::GpuConfig {
            processor: "gfx1010".into(),
            ..Default::default()
        },
        mem,
    );
    assert!(unknown.is_err());
}

/// GFX10 wave64 shared VGPRs (COMPUTE_PGM_RSRC3.SHARED_VGPR_COUNT; LLVM never sets it) are not
/// modelled: such a dispatch is refused, naming the field, instead of running wrongly.
#[test]
fn gfx10_shared_vgprs_are_refused() {
    use object::{Object, ObjectSection, ObjectSymbol};
    let path =
        hsaemu_testkit::compile_cl_with("cl/vector_add.cl", "gfx1030", 5, &["-mwavefrontsize64"]);
    let mut bytes = std::fs::read(&path).expect("read");
    let file = object::File::parse(&*bytes).expect("parse ELF");
    let kd = file
        .dynamic_symbols()
        .find(|s| s.name() == Ok("vector_add.kd"))
        .expect("descriptor symbol");
    let section = file
        .section_by_index(kd.section_index().expect("section"))
        .expect("section");
    let (file_off, _) = section.file_range().expect("file range");
    // COMPUTE_PGM_RSRC3 is at byte 44 of the descriptor; SHARED_VGPR_COUNT is bits 3:0.
    let at = (kd.address() - section.address() + file_off) as usize + 44;
    bytes[at] |= 1;
    let e = from_bytes(&bytes, "gfx1030", 5);
    let (a, c) = (e.zeros(4 * 64), e.zeros(4 * 64));
    let f = e
        .try_run(
            "vector_add",
            &[Arg::Ptr(&a), Arg::Ptr(&a), Arg::Ptr(&c), Arg::U32(64)],
            [64, 1, 1],
            [64, 1, 1],
            0,
        )
        .expect_err("must be refused");
    assert!(matches!(f.kind, FaultKind::InvalidDispatch { .. }), "{f}");
    assert!(f.to_string().contains("SHARED_VGPR_COUNT is 1"), "{f}");
}
