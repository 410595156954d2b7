//! Reliability (issue 17) and queue errors (issue 15): the C program tests/c/reliability.c
//! run case by case against our library, with its stderr (the runtime's reports) checked too.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use crate::capi::{cl_kernel, compile_c};

fn kernels() -> String {
    cl_kernel("cl/reliability.cl", "gfx90a", 5)
}

/// The test program, compiled once: tests run in parallel, and rewriting a running executable
/// fails.
fn exe() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| compile_c("reliability"))
}

/// Runs one case; returns (stdout, stderr) after checking it passed.
fn run_case(args: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let out = Command::new(exe())
        .args(args)
        .env("LD_LIBRARY_PATH", crate::support::library_dir())
        .env_remove("HSAEMU_TARGET")
        .env_remove("HSAEMU_TIMEOUT")
        .envs(env.iter().copied())
        .output()
        .expect("run reliability");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success() && stdout.contains("PASS"),
        "reliability {args:?} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    (stdout, stderr)
}

#[test]
fn every_malformed_packet_gets_rocrs_status_and_leaves_its_signal() {
    let (out, err) = run_case(&[&kernels(), "errors"], &[]);
    assert_eq!(out.matches("rejected: ").count(), 19, "{out}");
    for status in [
        "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS",
        "HSA_STATUS_ERROR_INVALID_ARGUMENT",
        "HSA_STATUS_ERROR_INVALID_ALLOCATION",
        "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
        "HSA_STATUS_ERROR_INVALID_CODE_OBJECT",
        "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT",
        "HSA_STATUS_ERROR_INVALID_SIGNAL",
    ] {
        assert!(
            err.contains(status),
            "{status} missing from the reports:\n{err}"
        );
    }
    assert!(
        err.contains("work-group size 2048 in dimension x exceeds"),
        "{err}"
    );
    assert!(
        err.contains("has 2048 work-items; the maximum is 1024"),
        "{err}"
    );
    assert!(err.contains("fence scope 3"), "{err}");
}

#[test]
fn inactivate_destroy_and_shut_down_stop_a_spinning_kernel() {
    let (_, err) = run_case(&[&kernels(), "stop"], &[]);
    assert!(
        err.contains("dispatch stopped on request in kernel `spin`"),
        "{err}"
    );
    assert!(
        err.contains("dispatch stopped on request in kernel `spin_barrier`"),
        "{err}"
    );
}

#[test]
fn watchdog_names_the_spinning_waves_pc_and_polled_address() {
    let (out, err) = run_case(&[&kernels(), "watchdog"], &[("HSAEMU_TIMEOUT", "1")]);
    let flag = out
        .lines()
        .find_map(|l| l.strip_prefix("flag at "))
        .expect("flag address");
    assert!(
        err.contains("dispatch stopped by the watchdog after 1 s in kernel `spin`"),
        "{err}"
    );
    assert!(err.contains("4 live wave(s)"), "{err}");
    assert!(err.contains("(spin+0x"), "{err}");
    assert!(
        err.contains(&format!("last loaded from {flag}")),
        "{flag}: {err}"
    );
    // `hsaemu exec --timeout 1` sets the same watchdog.
    let out = Command::new(crate::support::hsaemu())
        .args(["exec", "--timeout", "1", "--"])
        .arg(exe())
        .args([&kernels(), "watchdog"])
        .env(
            "HSAEMU_LIBRARY",
            crate::support::library_dir().join("libhsa-runtime64.so.1"),
        )
        .env_remove("HSAEMU_TIMEOUT")
        .output()
        .expect("hsaemu exec");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("stopped by the watchdog after 1 s"), "{err}");
}

#[test]
fn free_while_running_never_crashes() {
    let (out, err) = run_case(&[&kernels(), "free", "40"], &[]);
    assert!(out.contains("40 runs"), "{out}");
    assert!(err.contains("freed by hsa_memory_free"), "{err}");
}

#[test]
fn use_after_free_is_reported_as_such() {
    let (out, err) = run_case(&[&kernels(), "uaf"], &[]);
    let buf = out
        .lines()
        .find_map(|l| l.strip_prefix("use after free reported at "))
        .expect("buffer address");
    assert!(
        err.contains(&format!(
            "in an allocation of 4096 bytes at {buf} freed by hsa_memory_free"
        )),
        "{err}"
    );
}

#[test]
fn callee_pcs_are_symbolised() {
    let (_, err) = run_case(&[&kernels(), "callee"], &[]);
    assert!(err.contains("(callee_store+0x"), "{err}");
    assert!(err.contains(", called from call_fault+0x"), "{err}");
    assert!(!err.contains("pc 0xfffff"), "{err}");
}

#[test]
fn pool_memory_is_valid_after_shut_down() {
    run_case(&[&kernels(), "keep"], &[]);
}

#[test]
fn a_destroyed_executable_lets_its_running_kernel_finish() {
    let (out, _) = run_case(&[&kernels(), "unload"], &[]);
    assert!(out.contains("ran to its end"), "{out}");
    assert!(out.contains("was rejected"), "{out}");
}

#[test]
fn a_packet_published_before_destroy_reaches_the_callback() {
    let (out, _) = run_case(&[&kernels(), "pending"], &[]);
    assert!(out.contains("20 packets"), "{out}");
}
