//! `hsaemu exec --check=race,uninit,bounds` (issue 16): every seeded bug of
//! `tests/hip/check_seeded.hip` is found with the right kind and kernel name, on a wave64 and a
//! wave32 target, and the correct twins of the same access patterns (`check_seeded clean`)
//! produce no finding and exit 0. The expected kinds come from the bugs written into the
//! program, not from the emulator. (The manifest's programs run under `--check` in
//! `hip::every_program_runs_under_hsaemu_on_gfx90a`.)

use crate::hip::{build, Kind};
use std::process::{Command, Output};

/// The targets the seeded program is built for: wave64 CDNA2 and wave32 RDNA2.
const TARGETS: [&str; 2] = ["gfx90a", "gfx1030"];
/// Exit status of a program in which `--check` found something (hsaemu_runtime::check).
pub(crate) const FOUND_STATUS: i32 = 66;
/// Every check.
pub(crate) const ALL: &str = "race,uninit,bounds";

/// A finding the manifest expects under `--check` (`@check-finding | program | kind | kernel
/// substring | reason`): a real bug in a ROCm library a program calls, or a known limitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExpectedFinding {
    program: String,
    kind: String,
    kernel: String,
    reason: String,
}

pub(crate) fn parse_check_findings(text: &str) -> Result<Vec<ExpectedFinding>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let Some(rest) = raw.trim().strip_prefix("@check-finding") else {
            continue;
        };
        let f: Vec<&str> = rest.split('|').map(str::trim).collect();
        if f.len() != 5 || !f[0].is_empty() || f[1..].iter().any(|x| x.is_empty()) {
            return Err(format!(
                "line {}: want @check-finding | program | kind | kernel substring | reason",
                i + 1
            ));
        }
        if !["race", "uninit", "bounds"].contains(&f[2]) {
            return Err(format!("line {}: unknown kind {:?}", i + 1, f[2]));
        }
        out.push(ExpectedFinding {
            program: f[1].to_string(),
            kind: f[2].to_string(),
            kernel: f[3].to_string(),
            reason: f[4].to_string(),
        });
    }
    Ok(out)
}

/// Whether a checked run of `program` (its stderr `err`) found exactly what the manifest's
/// `@check-finding` lines expect, and at least one thing; otherwise says why in `why` (and the
/// run must then also exit as the program itself would).
pub(crate) fn expected_findings_only(program: &str, err: &str, why: &mut Vec<String>) -> bool {
    let path = hsaemu_testkit::workspace_root().join("tests/hip/manifest.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let expected: Vec<ExpectedFinding> = parse_check_findings(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_iter()
        .filter(|f| f.program == program)
        .collect();
    let matches = |f: &ExpectedFinding, line: &str| {
        line.starts_with(&format!("hsaemu: check: {} in kernel ", f.kind))
            && line.contains(&f.kernel)
    };
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("hsaemu: check: "))
        .collect();
    let before = why.len();
    for l in &lines {
        if !expected.iter().any(|f| matches(f, l)) {
            why.push(format!("unexpected --check finding: {l}"));
        }
    }
    for f in &expected {
        if !lines.iter().any(|l| matches(f, l)) {
            why.push(format!(
                "--check no longer finds the expected {} in {} ({}): remove its @check-finding line",
                f.kind, f.kernel, f.reason
            ));
        }
    }
    why.len() == before && !lines.is_empty()
}

fn run(target: &str, arg: &str) -> Output {
    let targets: Vec<String> = TARGETS.iter().map(|t| t.to_string()).collect();
    let exe = build(Kind::Exe, "check_seeded", &targets, &[]);
    Command::new(crate::support::hsaemu())
        .args(["exec", "--check=race,uninit,bounds", "--"])
        .arg(&exe)
        .arg(arg)
        .env(
            "HSAEMU_LIBRARY",
            crate::support::library_dir().join("libhsa-runtime64.so.1"),
        )
        .env("HSAEMU_TARGET", target)
        .env_remove("HSAEMU_CHECK")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()))
}

/// The `hsaemu: check: ` lines of a run's stderr.
fn findings(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("hsaemu: check: "))
        .map(String::from)
        .collect()
}

#[test]
fn every_seeded_bug_is_caught_with_its_kind_and_kernel() {
    // (argument = kernel name, the kind of its bug, what the line must also say)
    let bugs: [(&str, &str, &str); 7] = [
        ("lds_race", "race", "at LDS offset"),
        ("global_race", "race", "by hipMalloc"),
        ("uninit_lds", "uninit", "at LDS offset"),
        ("uninit_private", "uninit", "at private offset"),
        ("uninit_global", "uninit", "never written since allocation"),
        ("past_end", "bounds", "0 bytes past its end"),
        ("use_after_free", "bounds", "after it was freed"),
    ];
    let mut problems = Vec::new();
    for target in TARGETS {
        for (bug, kind, detail) in bugs {
            let out = run(target, bug);
            let lines = findings(&out);
            let prefix = format!("hsaemu: check: {kind} in kernel {bug} at pc 0x");
            let hit = lines
                .iter()
                .find(|l| l.starts_with(&prefix) && l.contains(detail));
            match hit {
                None => problems.push(format!(
                    "{target} {bug}: no `{prefix}… {detail}` line; findings: {lines:#?}\nstderr: {}",
                    String::from_utf8_lossy(&out.stderr)
                )),
                Some(l) => {
                    // The line names the instruction and who made the access.
                    if !(l.contains("): work-group (") && l.contains(" wave ") && l.contains(" lane ")) {
                        problems.push(format!("{target} {bug}: line lacks the work-group/wave/lane: {l}"));
                    }
                    if kind == "race" && !l.contains("races with the ") {
                        problems.push(format!("{target} {bug}: race line lacks the other access: {l}"));
                    }
                }
            }
            if out.status.success() {
                problems.push(format!("{target} {bug}: exit status 0 despite the finding"));
            }
            // A use after free also faults (the memory is gone): HIP aborts. Otherwise our status.
            if bug != "use_after_free" && out.status.code() != Some(FOUND_STATUS) {
                problems.push(format!("{target} {bug}: status {}", out.status));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn the_correct_twins_of_the_seeded_bugs_run_clean() {
    for target in TARGETS {
        let out = run(target, "clean");
        let lines = findings(&out);
        assert!(lines.is_empty(), "{target}: false positives: {lines:#?}");
        assert!(
            out.status.success(),
            "{target}: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("PASS check_seeded"));
    }
}

#[test]
fn check_finding_lines_parse_and_malformed_ones_are_refused() {
    let ok =
        parse_check_findings("x | gfx90a | - | PASS x\n@check-finding | x | bounds | k_ | a bug\n")
            .expect("parses");
    assert_eq!(
        ok,
        vec![ExpectedFinding {
            program: "x".into(),
            kind: "bounds".into(),
            kernel: "k_".into(),
            reason: "a bug".into()
        }]
    );
    assert!(parse_check_findings("@check-finding | x | leak | k | r\n").is_err());
    assert!(parse_check_findings("@check-finding | x | race | k\n").is_err());
    let mut why = Vec::new();
    assert!(!expected_findings_only(
        "vector_add",
        "hsaemu: check: race in kernel k at pc 0x0",
        &mut why
    ));
    assert_eq!(why.len(), 1, "{why:?}");
}

#[test]
fn a_malformed_check_list_is_refused_with_the_known_names() {
    let out = Command::new(crate::support::hsaemu())
        .args(["exec", "--check=race,typo", "--", "true"])
        .output()
        .expect("run hsaemu");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown check \"typo\"") && err.contains("race, uninit, bounds"),
        "{err}"
    );
}
