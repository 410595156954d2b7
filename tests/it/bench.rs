//! `hsaemu bench --quick`: the five throughput kernels run on the emulator, interpreted and with
//! the compiling tier, and natively under PoCL; every result is checked against the CPU, and a
//! row gives both tiers' times and ratios beside PoCL's.
//! (What is asserted here is correctness and the report's shape, never a time.)

use crate::support::hsaemu;
use std::path::Path;
use std::process::Command;

/// The throughput benchmarks, by the kernel name their report line starts with.
const KERNELS: [&str; 5] = [
    "vector_add",
    "matmul_tiled",
    "reduce_sum",
    "histogram",
    "mandelbrot",
];

/// The figures of a report row: its `… ms` wall times and `…x` ratios, in order.
fn row_figures(row: &str) -> (usize, usize) {
    let words: Vec<&str> = row.split_whitespace().collect();
    let times = words
        .windows(2)
        .filter(|w| w[1] == "ms" && w[0].parse::<f64>().is_ok())
        .count();
    let ratios = words
        .iter()
        .filter(|w| {
            w.strip_suffix('x')
                .is_some_and(|n| n.parse::<f64>().is_ok())
        })
        .count();
    (times, ratios)
}

/// `hsaemu bench ARGS…` with `HSAEMU_JIT=jit` (when given): its stdout, after checking that it
/// succeeded and that no result check failed.
fn bench(args: &[&str], jit: Option<&str>) -> String {
    let mut cmd = Command::new(hsaemu());
    cmd.arg("bench").args(args);
    if let Some(j) = jit {
        cmd.env("HSAEMU_JIT", j);
    }
    let out = cmd.output().expect("run hsaemu bench");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "hsaemu bench failed:\n{text}\n{err}");
    assert!(!text.contains("MISMATCH"), "a result check failed:\n{text}");
    text
}

/// Both tiers side by side (each kernel interpreted with `HSAEMU_JIT=0` and with the tier on,
/// `HSAEMU_JIT=1`; `verify` would check every block too, but takes minutes in a debug build),
/// each beside PoCL: per kernel one row with two tiers' wall times and ratios and PoCL's time,
/// then what the tier compiled.
#[test]
fn bench_quick_checks_results_and_compares_both_tiers_with_pocl() {
    let text = bench(&["--quick", "--threads", "1"], Some("1"));
    assert!(
        !text.contains("PoCL comparison unavailable"),
        "PoCL is required (scripts/setup.sh installs pocl-opencl-icd):\n{text}"
    );
    assert!(
        text.contains("interpreter (HSAEMU_JIT=0)")
            && text.contains("compiling tier (HSAEMU_JIT=1)")
            && text.contains("PoCL native"),
        "{text}"
    );
    for name in KERNELS {
        let line = text
            .lines()
            .position(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no `{name}` line in:\n{text}"));
        let row = text.lines().nth(line).unwrap_or_default();
        assert_eq!(
            row_figures(row),
            (3, 2),
            "`{name}`: two tiers and PoCL in:\n{text}"
        );
        let next = text.lines().nth(line + 1).unwrap_or_default();
        assert!(
            next.starts_with("  compiling tier: ")
                && next.contains("blocks")
                && next.contains("first dispatch"),
            "`{name}` does not say what the tier compiled:\n{text}"
        );
    }
    // The child's lowering counters reach the report: vector add's and matmul's address
    // arithmetic is compiled on lane-affine facts (a key misspelt on either side reads 0 and
    // prints no line).
    assert!(
        text.lines()
            .any(|l| l.starts_with("  lowered: ") && l.contains("lane-affine basic blocks")),
        "no kernel says what the lowering did:\n{text}"
    );
    assert!(text.contains("dispatch empty, 1 WG"), "{text}");
}

/// `hsaemu bench --quick` of the cases named `only`, in `tier` alone, one thread, no PoCL,
/// compared with gfx1030 (`extra`: more options), and its two rows of `label`: gfx90a's and
/// gfx1030's (asserted two, gfx90a's with one tier's figures).
fn compare_gfx1030(tier: &str, only: &str, extra: &[&str], label: &str) -> (String, [String; 2]) {
    let mut args = vec!["--quick", "--threads", "1", "--no-pocl", "--tier", tier];
    args.extend(["--only", only, "--compare-processor", "gfx1030"]);
    args.extend(extra);
    let text = bench(&args, None);
    let rows: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with(label))
        .map(String::from)
        .collect();
    let [a, b] = <[String; 2]>::try_from(rows)
        .unwrap_or_else(|_| panic!("a gfx90a row and a gfx1030 row:\n{text}"));
    assert_eq!(row_figures(&a), (1, 0), "{text}");
    (text, [a, b])
}

/// `--tier interp` runs the interpreter alone; `--compare-processor` adds gfx1030's lane-ops
/// per CPU-second relative to gfx90a's.
#[test]
fn bench_runs_one_tier_and_compares_processors() {
    let (text, rows) = compare_gfx1030("interp", "matmul", &[], "matmul_tiled");
    assert!(text.contains("interpreter (HSAEMU_JIT=0)"), "{text}");
    assert!(!text.contains("compiling tier"), "{text}");
    assert!(text.contains("gfx1030 relative to gfx90a"), "{text}");
    assert!(rows[1].contains("x ("), "gfx1030's ratio: {text}");
    assert!(
        rows[1].contains("same job "),
        "gfx1030's CPU for the same grid: {text}"
    );
}

/// `--repeat 2` runs each case's children twice, the processors alternated: the compare table
/// gives the median of the two rounds' ratios and their range; `--repeat 0` is refused.
#[test]
fn bench_repeats_rounds_and_gives_the_ratios_range() {
    let (text, rows) = compare_gfx1030("interp", "matmul", &["--repeat", "2"], "matmul_tiled");
    assert!(text.contains("the median of 2 rounds"), "{text}");
    assert!(rows[1].contains(" over 2 rounds), same job "), "{text}");
    let out = Command::new(hsaemu())
        .args(["bench", "--repeat", "0"])
        .output()
        .expect("run hsaemu bench");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--repeat"), "{err}");
}

/// `--interleave 3` gives the compare table from one child per case and tier that runs both
/// processors, their dispatches interleaved: the median of the 3 pairs' ratios within their
/// range; the main table is still gfx90a's own. Without `--compare-processor` it is refused.
#[test]
fn bench_interleaves_the_processors_dispatches_in_one_child() {
    let (text, rows) = compare_gfx1030("jit", "vector_add", &["--interleave", "3"], "vector_add");
    assert!(
        text.contains("pairs of dispatches interleaved in one process"),
        "{text}"
    );
    // `vector_add 1M   0.71x (0.65–0.80 over 3 pairs, interleaved), same job 0.90x`
    let cell = rows[1]
        .strip_prefix("vector_add 1M")
        .and_then(|c| c.trim().strip_suffix("x"))
        .unwrap_or_else(|| panic!("gfx1030's row: {text}"));
    let figures: Vec<f64> = cell
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(
        cell.contains(" over 3 pairs, interleaved), same job "),
        "{text}"
    );
    let [median, min, max, pairs, job] = figures[..] else {
        panic!("five figures in gfx1030's cell: {text}");
    };
    assert!(0.0 < min && min <= median && median <= max, "{text}");
    assert!(pairs == 3.0 && job > 0.0, "{text}");
    let out = Command::new(hsaemu())
        .args(["bench", "--interleave", "3"])
        .output()
        .expect("run hsaemu bench");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--compare-processor"), "{err}");
}

/// A bad `--tier` is refused by the argument parser, naming the choices.
#[test]
fn bench_refuses_an_unknown_tier() {
    let out = Command::new(hsaemu())
        .args(["bench", "--tier", "fast"])
        .output()
        .expect("run hsaemu bench");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("interp") && err.contains("both"), "{err}");
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
    let text = bench(&args[1..], None);
    assert!(text.contains(&format!("on {processor}")), "{text}");
    for name in names {
        assert!(
            text.lines()
                .any(|l| l.starts_with(name) && row_figures(l) == (2, 0)),
            "no `{name}` result in both tiers in:\n{text}"
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

/// The quick benchmarks' labels (`--child-case`) and their kernels' sources under
/// `tests/kernels/`.
const QUICK_CASES: [(&str, &str); 5] = [
    ("vector_add 1M", "cl/vector_add.cl"),
    ("matmul_tiled 128x128", "cl/matmul.cl"),
    ("reduce_sum 1M", "cl/reduce.cl"),
    ("histogram 1M", "cl/atomics.cl"),
    ("mandelbrot 256x192", "cl/mandelbrot.cl"),
];

/// One tier's run of a quick case on `processor`, the child process `hsaemu bench` starts per
/// tier (`--child-case`), given the code object `code`: its result line, after checking that
/// the child succeeded, that its results matched the CPU's and that it ran in the tier asked for.
fn quick_child(processor: &str, label: &str, code: &Path, jit: bool) -> serde_json::Value {
    let out = Command::new(hsaemu())
        .args([
            "bench",
            "--quick",
            "--threads",
            "1",
            "--processor",
            processor,
        ])
        .args(["--child-case", label, "--child-code"])
        .arg(code)
        .env("HSAEMU_JIT", if jit { "1" } else { "0" })
        .output()
        .expect("run hsaemu bench's child");
    let text = String::from_utf8_lossy(&out.stdout);
    let what = format!(
        "`{label}` on {processor}, HSAEMU_JIT={}:\n{text}\n{}",
        u8::from(jit),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what}");
    let line = text.lines().rev().find(|l| l.starts_with('{'));
    let v: serde_json::Value = line
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no result line: {what}"));
    assert_eq!(v["ok"], true, "a result check failed: {what}");
    assert!(v["elapsed"].as_f64().is_some_and(|e| e > 0.0), "{what}");
    assert_eq!(v["jit"]["enabled"], jit, "{what}");
    if jit {
        assert!(v["jit"]["blocks"].as_u64().is_some_and(|b| b > 0), "{what}");
    }
    v
}

/// RDNA3 (gfx1100) and RDNA4 (gfx1201) in wave32: every quick case in both tiers, each tier's run
/// the child process the bench's report starts, given the kernel testkit's cache holds for the
/// same clang-22 recipe with hand-linked device libraries (the corpus builds these: a cold run
/// compiles nothing more here). The bench's own clang-22 build runs on RDNA3.5 (gfx1151): the
/// matmul through the whole report, and the dispatch benchmark, whose `runtime_kernels.cl` needs
/// the generic-pointer shim, on gfx1201.
#[test]
fn bench_quick_runs_on_rdna3_and_rdna4() {
    for p in ["gfx1100", "gfx1201"] {
        for (label, rel) in QUICK_CASES {
            let code = hsaemu_testkit::compile_cl(rel, p, 5);
            let interp = quick_child(p, label, &code, false);
            let tier = quick_child(p, label, &code, true);
            // Both tiers ran the same grid of the same kernel.
            assert!(interp["lane_ops"].as_u64().is_some_and(|n| n > 0));
            assert_eq!(interp["lane_ops"], tier["lane_ops"], "`{label}` on {p}");
        }
    }
    quick_bench_on("gfx1151", Some("matmul"), &["matmul_tiled"]);
    let text = quick_bench_on("gfx1201", Some("dispatch"), &[]);
    assert!(text.contains("dispatch empty, 1 WG"), "{text}");
}
