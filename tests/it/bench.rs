//! `hsaemu bench --quick`: the four throughput kernels run on the emulator and natively under
//! PoCL, both results are checked against the CPU, and a ratio line is printed for each.
//! (What is asserted here is correctness and the report's shape, never a time.)

use crate::support::hsaemu;
use std::process::Command;

#[test]
fn bench_quick_checks_results_and_compares_with_pocl() {
    let out = Command::new(hsaemu())
        .args(["bench", "--quick", "--threads", "1"])
        .output()
        .expect("run hsaemu bench");
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "hsaemu bench failed:\n{text}\n{err}");
    assert!(!text.contains("MISMATCH"), "a result check failed:\n{text}");
    assert!(
        !text.contains("PoCL comparison unavailable"),
        "PoCL is required (scripts/setup.sh installs pocl-opencl-icd):\n{text}"
    );
    for name in ["vector_add", "matmul_tiled", "reduce_sum", "histogram"] {
        let line = text
            .lines()
            .position(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no `{name}` line in:\n{text}"));
        let next = text.lines().nth(line + 1).unwrap_or_default();
        assert!(
            next.contains("PoCL native") && next.contains("hsaemu / PoCL ="),
            "`{name}` has no PoCL comparison:\n{text}"
        );
    }
    assert!(text.contains("dispatch empty, 1 WG"), "{text}");
}

/// The same kernels compiled for gfx1030 (wave32 by default) on the emulated RDNA2 GPU, their
/// results checked against the CPU.
#[test]
fn bench_quick_runs_on_gfx1030() {
    let out = Command::new(hsaemu())
        .args([
            "bench",
            "--quick",
            "--threads",
            "1",
            "--processor",
            "gfx1030",
            "--no-pocl",
        ])
        .output()
        .expect("run hsaemu bench");
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "hsaemu bench failed:\n{text}\n{err}");
    assert!(text.contains("on gfx1030"), "{text}");
    assert!(!text.contains("MISMATCH"), "a result check failed:\n{text}");
    for name in ["vector_add", "matmul_tiled", "reduce_sum", "histogram"] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(name) && l.contains("lane-ops/s")),
            "no `{name}` result in:\n{text}"
        );
    }
}
