//! A stop's live-wave report names the instruction a wave waiting at a barrier resumes at,
//! with the compiling tier as without it (issue 13: reports do not fork). The tier runs a
//! barrier's tail before parking the wave (`jit::after_barrier`, `Wave::ahead`); the report
//! must still name the instruction after the `s_barrier`, as the interpreter's does.
//! `HSAEMU_JIT` is read once per process, so the test runs copies of this binary:
//! interpreted, `sync` (every block compiled at once) and `verify`.

use hsaemu_emu::{jit, kernarg, Control, Dispatch, FaultKind, StopCause};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// Each setting of the tier in a copy of this binary running `park_pc::child`, which must
/// pass.
#[test]
fn a_parked_waves_report_names_the_instruction_after_its_barrier() {
    if !cfg!(feature = "jit") {
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let children: Vec<_> = ["0", "sync", "verify"]
        .into_iter()
        .map(|mode| {
            let child = std::process::Command::new(&exe)
                .args(["--exact", "park_pc::child", "--ignored", "--nocapture"])
                .env("HSAEMU_JIT", mode)
                .env("PARK_PC_TEST_CHILD", "1")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("run the test binary");
            (mode, child)
        })
        .collect();
    for (mode, child) in children {
        let out = child.wait_with_output().expect("wait for the test binary");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("1 passed"),
            "the copy with HSAEMU_JIT={mode} failed:\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The copy's side: `asm/park_pc.s`, one work-group of two waves, stopped on request once
/// wave 1 has set flag[1] (after wave 0's first turn, in which it reached the barrier).
/// Wave 0 waits at the `s_barrier` at +0xc, so it resumes at +0x10 (`v_mov_b32 v1, 1.0`,
/// the listing's offset); wave 1 polls flag[0] in +0x38..+0x4c.
#[test]
#[ignore = "run by a_parked_waves_report_names_the_instruction_after_its_barrier"]
fn child() {
    use super::common::from_bytes_threads;
    if std::env::var_os("PARK_PC_TEST_CHILD").is_none() {
        return;
    }
    for t in ["gfx90a", "gfx1030"] {
        let path = hsaemu_testkit::compile_asm("asm/park_pc.s", t, 4);
        let bytes = std::fs::read(&path).expect("read the code object");
        let e = from_bytes_threads(&bytes, t, 4, 1);
        let k = e.code.kernel("park_pc").expect("kernel park_pc");
        let lanes: u16 = if t == "gfx1030" { 32 } else { 64 };
        let (grid, wg) = ([2 * u32::from(lanes), 1, 1], [2 * lanes, 1, 1]);
        let flag = e.zeros(8);
        let mut args = kernarg::build(&flag.addr().to_le_bytes(), 4, grid, wg);
        args.resize(args.len().max(k.kernarg_segment_size as usize), 0);
        let args = e.buf_bytes(&args);
        let control = Arc::new(Control::with_timeout(None));
        let stopper = {
            let (control, polling) = (control.clone(), flag.addr() + 4);
            std::thread::spawn(move || {
                // SAFETY: flag[1], 4-byte aligned, lives until the thread is joined; the
                // emulated wave writes it with a plain store, read here atomically.
                let polling = unsafe { &*(polling as *const AtomicU32) };
                let t0 = std::time::Instant::now();
                while polling.load(Ordering::Acquire) == 0 && t0.elapsed().as_secs() < 60 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                control.stop();
            })
        };
        let tails = jit::stats().barrier_tails;
        let d = Dispatch {
            kernel_object: k.kernel_object,
            kernarg_address: args.addr(),
            grid_size: grid,
            workgroup_size: wg,
            ..Dispatch::default()
        };
        let f = e
            .gpu
            .dispatch_with(&d, control)
            .expect_err("only a stop ends the dispatch");
        stopper.join().expect("the stopping thread");
        // Not vacuous: the tier (when on) compiled the tail and parked wave 0 after it.
        if jit::enabled() {
            assert!(
                jit::stats().barrier_tails > tails,
                "{t}: no barrier tail compiled"
            );
        }
        let FaultKind::Stopped { cause, waves } = &f.kind else {
            panic!("{t}: not a stop: {f}");
        };
        assert_eq!(*cause, StopCause::Requested, "{t}");
        assert_eq!(waves.len(), 2, "{t}: {f}");
        let w0 = waves.iter().find(|w| w.wave == 0).expect("wave 0 live");
        assert_eq!(w0.location.as_deref(), Some("park_pc+0x10"), "{t}: {f}");
        let next = w0.instruction.as_deref().unwrap_or_default();
        assert!(next.starts_with("v_mov_b32"), "{t}: {f}");
        assert!(w0.at_barrier, "{t}: {f}");
        let w1 = waves.iter().find(|w| w.wave == 1).expect("wave 1 live");
        let off = w1
            .location
            .as_deref()
            .and_then(|l| l.strip_prefix("park_pc+0x"))
            .and_then(|o| u64::from_str_radix(o, 16).ok());
        assert!(
            off.is_some_and(|o| (0x38..0x4c).contains(&o)) && !w1.at_barrier,
            "{t}: {f}"
        );
        // The report's text names the same place.
        let text = f.to_string();
        assert!(text.contains("(park_pc+0x10): v_mov_b32"), "{t}: {text}");
        assert!(text.contains("waiting at a barrier"), "{t}: {text}");
    }
}
