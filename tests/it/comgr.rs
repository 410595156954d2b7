//! The cache of ROCm comgr's compiles that `hsaemu exec` installs (crate `hsaemu-comgrshim`,
//! linked into its library directory as `libamd_comgr.so.2`): a HIP program's second run is
//! served from the cache with the same results, the key tells apart what changes a result,
//! and `HSAEMU_COMGR_CACHE=0` writes nothing.

// The cache's file format, through the crate (its unit tests, moved here: Round 42 of
// docs/notes/ci-time.md).
mod cache;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh empty directory under the target directory.
fn empty_dir(name: &str) -> PathBuf {
    let dir = hsaemu_testkit::workspace_root()
        .join("target/comgr-tests")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create cache test dir");
    dir
}

/// Runs `cmd` with the cache log on and the comgr environment cleared.
fn run(mut cmd: Command) -> Output {
    cmd.env("HSAEMU_COMGR_CACHE_LOG", "1")
        .env_remove("HSAEMU_TRACE")
        .env_remove("HSAEMU_CHECK")
        .stdin(std::process::Stdio::null());
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("AMD_COMGR_") {
            cmd.env_remove(k);
        }
    }
    let out = cmd.output().expect("run under hsaemu exec");
    assert!(
        out.status.success(),
        "{:?} failed: {}\n{}",
        cmd,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The lines the cache logged with this word (`hit`, `stored`).
fn logged(out: &Output, word: &str) -> usize {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with(&format!("hsaemu: comgr cache: {word} ")))
        .count()
}

fn files(dir: &Path) -> usize {
    walk(dir).len()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            v.extend(walk(&p));
        } else {
            v.push(p);
        }
    }
    v
}

#[test]
fn a_hip_programs_second_run_hits_the_cache_with_the_same_results() {
    let exe = crate::hip::built_program("vector_add");
    let home = empty_dir("xdg");
    let exec = || {
        let mut cmd = crate::hip::hsaemu_exec(&exe);
        cmd.env_remove("HSAEMU_COMGR_CACHE")
            .env("XDG_CACHE_HOME", &home)
            .env("HSAEMU_TARGET", "gfx90a");
        run(cmd)
    };
    let first = exec();
    let stored = logged(&first, "stored");
    assert!(
        stored > 0 && logged(&first, "hit") == 0,
        "an empty cache: every action runs and is stored\n{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let dir = home.join("hsaemu/comgr");
    assert_eq!(
        files(&dir),
        stored,
        "one file per stored action in {}",
        dir.display()
    );
    let second = exec();
    assert!(
        logged(&second, "hit") == stored && logged(&second, "stored") == 0,
        "the second run finds every action\n{}",
        String::from_utf8_lossy(&second.stderr)
    );
    for out in [&first, &second] {
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("PASS vector_add"),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    assert_eq!(first.stdout, second.stdout);
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn the_cache_off_writes_nothing() {
    let exe = crate::hip::built_program("vector_add");
    let home = empty_dir("off");
    let mut cmd = crate::hip::hsaemu_exec(&exe);
    cmd.env("HSAEMU_COMGR_CACHE", "0")
        .env("XDG_CACHE_HOME", &home)
        .env("HSAEMU_TARGET", "gfx90a");
    let out = run(cmd);
    assert!(String::from_utf8_lossy(&out.stdout).contains("PASS vector_add"));
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("hsaemu: comgr cache:"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(walk(&home), Vec::<PathBuf>::new());
    let _ = std::fs::remove_dir_all(&home);
}

/// tests/c/comgr_options.c, built against ROCm's comgr header.
fn options_program() -> PathBuf {
    let src = hsaemu_testkit::workspace_root().join("tests/c/comgr_options.c");
    let out_dir = hsaemu_testkit::workspace_root().join("target/c-tests");
    std::fs::create_dir_all(&out_dir).expect("create target/c-tests");
    let exe = out_dir.join("comgr_options");
    // Renamed into place, as capi.rs's programs.
    let tmp = out_dir.join(format!("comgr_options.tmp{}", std::process::id()));
    let status = Command::new(hsaemu_testkit::tool("gcc"))
        .args(["-O1", "-Wall", "-Werror", "-o"])
        .arg(&tmp)
        .arg(&src)
        .arg("-ldl")
        .status()
        .expect("run gcc");
    assert!(status.success(), "gcc failed on {}", src.display());
    std::fs::rename(&tmp, &exe).expect("move the compiled test program into place");
    exe
}

#[test]
fn actions_differing_in_options_isa_or_source_do_not_share_a_result() {
    let exe = options_program();
    let cache = empty_dir("options");
    let exec = || {
        let mut cmd = Command::new(crate::support::hsaemu());
        cmd.arg("exec").arg("--").arg(&exe).env(
            "HSAEMU_LIBRARY",
            crate::support::library_dir().join("libhsa-runtime64.so.1"),
        );
        cmd.env("HSAEMU_COMGR_CACHE", &cache);
        run(cmd)
    };
    // What the preprocessor makes of each source under its -D and ISA (`__gfx90a__` is
    // defined for gfx90a only).
    let expected = "\
gfx90a -DVALUE=1 source 0: int v = 1; int isa = 90;
gfx90a -DVALUE=2 source 0: int v = 2; int isa = 90;
gfx1030 -DVALUE=2 source 0: int v = 2; int isa = 0;
gfx1030 -DVALUE=2 source 1: int v = 2 + 1; int isa = 0;
";
    let first = exec();
    assert_eq!(String::from_utf8_lossy(&first.stdout), expected);
    assert_eq!(
        logged(&first, "stored"),
        4,
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let second = exec();
    assert_eq!(String::from_utf8_lossy(&second.stdout), expected);
    assert_eq!(
        logged(&second, "hit"),
        4,
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let _ = std::fs::remove_dir_all(&cache);
}
