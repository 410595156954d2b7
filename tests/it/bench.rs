//! `hsaemu bench --quick`: the five throughput kernels run on the emulator and natively under
//! PoCL, both results are checked against the CPU, and a ratio line is printed for each.
//! (What is asserted here is correctness and the report's shape, never a time.)

use crate::support::hsaemu;
use std::process::Command;

/// The throughput benchmarks, by the kernel name their report line starts with.
const KERNELS: [&str; 5] = [
    "vector_add",
    "matmul_tiled",
    "reduce_sum",
    "histogram",
    "mandelbrot",
];

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
    for name in KERNELS {
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

/// `hsaemu bench --quick --threads 1 --no-pocl --processor PROCESSOR [--only ONLY]`: its report,
/// after checking that it succeeded, that no result check failed and that each kernel in
/// `names` has a result line.
fn quick_bench_on(processor: &str, only: Option<&str>, names: &[&str]) -> String {
    let mut args = vec![
        "bench",
        "--quick",
        "--threads",
        "1",
        "--processor",
        processor,
        "--no-pocl",
    ];
    args.extend(only.map(|o| ["--only", o]).into_iter().flatten());
    let out = Command::new(hsaemu())
        .args(&args)
        .output()
        .expect("run hsaemu bench");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "hsaemu bench failed:\n{text}\n{err}");
    assert!(text.contains(&format!("on {processor}")), "{text}");
    assert!(!text.contains("MISMATCH"), "a result check failed:\n{text}");
    for name in names {
        assert!(
            text.lines()
                .any(|l| l.starts_with(name) && l.contains("lane-ops/s")),
            "no `{name}` result in:\n{text}"
        );
    }
    text
}

/// The same kernels compiled for gfx1030 (wave32 by default) on the emulated RDNA2 GPU, their
/// results checked against the CPU.
#[test]
fn bench_quick_runs_on_gfx1030() {
    quick_bench_on("gfx1030", None, &KERNELS);
}

/// RDNA3 (gfx1100) and RDNA4 (gfx1201) in wave32, their kernels built by clang-22 with
/// testkit's hand-linked device libraries (and the generic-pointer shim the dispatch
/// benchmark's `runtime_kernels.cl` needs); RDNA3.5 (gfx1151) with the matmul only.
#[test]
fn bench_quick_runs_on_rdna3_and_rdna4() {
    for p in ["gfx1100", "gfx1201"] {
        let text = quick_bench_on(p, None, &KERNELS);
        assert!(text.contains("dispatch empty, 1 WG"), "{text}");
    }
    quick_bench_on("gfx1151", Some("matmul"), &["matmul_tiled"]);
}
