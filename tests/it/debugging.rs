//! The debugging features of issue 16 other than `--check` (docs/debugging.md), on the HIP
//! programs of `tests/hip/`: `hsaemu exec --deterministic` (bit-identical float atomics across
//! runs and host thread counts), `--trace-wave` (a per-instruction trace of one wave) and
//! `--capture` with `hsaemu run --replay` (a faulting dispatch and a selected one, replayed
//! alone).

use crate::hip::{built_program, hsaemu_exec};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh scratch directory for one test under target/.
fn scratch(name: &str) -> PathBuf {
    let dir = hsaemu_testkit::workspace_root()
        .join("target")
        .join("debugging-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Runs `hsaemu exec [flags] -- program` on gfx90a with `threads` host threads.
fn exec(program: &Path, flags: &[&str], threads: u32, dir: &Path) -> Output {
    let mut cmd = Command::new(crate::support::hsaemu());
    cmd.arg("exec").args(flags).arg("--").arg(program);
    // The same library as every other test (hsaemu_exec's environment).
    let env = hsaemu_exec(program);
    for (k, v) in env.get_envs() {
        if let Some(v) = v {
            cmd.env(k, v);
        }
    }
    let out = cmd
        .current_dir(dir)
        .env("HSAEMU_TARGET", "gfx90a")
        .env("HSAEMU_THREADS", threads.to_string())
        .env_remove("HSAEMU_TRACE")
        .env_remove("HSAEMU_DETERMINISTIC")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {flags:?} failed ({}):\n{}\n{}",
        program.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The sums' bit patterns float_atomic_order printed.
fn sums(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("sum")).collect();
    assert_eq!(lines.len(), 4, "{text}");
    lines.join("\n")
}

/// 65536 float and double atomicAdds of mixed magnitudes: under `--deterministic`, three runs
/// with one host thread and three with two give the same bits.
#[test]
fn float_atomics_are_bit_identical_under_deterministic() {
    let exe = built_program("float_atomic_order");
    let dir = scratch("deterministic");
    let mut seen = Vec::new();
    for threads in [1, 2] {
        for _ in 0..3 {
            seen.push(sums(&exec(&exe, &["--deterministic"], threads, &dir)));
        }
    }
    assert!(
        seen.iter().all(|s| *s == seen[0]),
        "different results under --deterministic:\n{}",
        seen.join("\n--\n")
    );
}

/// `--trace-wave=accumulate:1:2`: only wave 2 of work-group 1 is traced, from the kernel's
/// first instruction to `s_endpgm`, with EXEC, the global IDs it computes (256 + 128 + lane)
/// and the memory its atomics wrote.
#[test]
fn trace_wave_records_one_waves_instructions() {
    let exe = built_program("float_atomic_order");
    let dir = scratch("trace");
    let file = dir.join("wave.txt");
    let f = file.to_str().expect("utf-8 path");
    exec(
        &exe,
        &["--trace-wave=accumulate:1:2", "--trace-wave-file", f],
        2,
        &dir,
    );
    let text = std::fs::read_to_string(&file).expect("the trace file");
    let mut lines = text.lines();
    let header = lines.next().expect("a header");
    assert!(
        header.starts_with("# dispatch of _Z10accumulatePfPd: grid [65536, 1, 1]")
            && header.ends_with("tracing wave 2 of work-group #1"),
        "{header}"
    );
    let insts: Vec<&str> = text.lines().filter(|l| l.starts_with("wg(")).collect();
    assert!(insts.len() > 50, "{} instructions traced", insts.len());
    assert!(
        insts.iter().all(|l| l.starts_with("wg(1,0,0) w2 pc 0x")),
        "other waves traced: {:?}",
        insts.iter().find(|l| !l.starts_with("wg(1,0,0) w2 "))
    );
    assert!(insts[0].contains("exec 0xffffffffffffffff"), "{}", insts[0]);
    assert!(
        insts.last().is_some_and(|l| l.ends_with("s_endpgm")),
        "{:?}",
        insts.last()
    );
    // The global ID of lane k is 0x180 + k (lane 0 and 1 shown, unchanged lanes omitted).
    assert!(
        text.contains(" = [0]0x180 [1]0x181 [2]0x182"),
        "no register holds the global IDs"
    );
    // The atomics' results, read back from memory, per lane.
    let mems: Vec<&str> = text.lines().filter(|l| l.contains("mem[0x")).collect();
    assert!(
        mems.iter().any(|l| l.ends_with("(lane 0, atomic)"))
            && mems.iter().any(|l| l.ends_with("(lane 63, atomic)")),
        "{mems:?}"
    );
}

/// Replays a record with `hsaemu run --replay` and returns (success, stdout).
fn replay(record: &Path) -> (bool, String) {
    let out = Command::new(crate::support::hsaemu())
        .arg("run")
        .arg("--replay")
        .arg(record)
        .output()
        .expect("run hsaemu run --replay");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// The records in a capture directory.
fn records(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("capture dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

/// `--capture=DIR` records only the faulting dispatch of fault_bad_pointer (a store through a
/// wild pointer); its replay, in a fresh process, reproduces the same fault.
#[test]
fn a_captured_fault_replays_to_the_same_fault() {
    let exe = built_program("fault_bad_pointer");
    let dir = scratch("capture-fault");
    let cap = dir.join("cap");
    exec(&exe, &["--capture", cap.to_str().expect("utf-8")], 2, &dir);
    let recs = records(&cap);
    assert_eq!(recs.len(), 1, "{recs:?}");
    assert!(
        recs[0]
            .to_string_lossy()
            .ends_with("dispatch-0000-_Z10wild_storePii"),
        "{recs:?}"
    );
    let manifest = std::fs::read_to_string(recs[0].join("capture.txt")).expect("manifest");
    assert!(manifest.starts_with("hsaemu-capture 1\n"), "{manifest}");
    assert!(manifest.contains("\nfault MemoryViolation"), "{manifest}");
    // The capture directory itself names its only record.
    let (ok, text) = replay(&cap);
    assert!(ok, "{text}");
    assert!(
        text.contains("reproduced the recorded fault: memory fault in kernel `_Z10wild_storePii`")
            && text.contains("0x7f0dead00000"),
        "{text}"
    );
}

/// `--capture-kernel=accumulate` records that dispatch although it does not fault, with a
/// digest of its results; the replay's results match, and a record whose digest is changed
/// is reported as different (exit status 1).
#[test]
fn a_selected_dispatch_replays_to_the_same_results() {
    let exe = built_program("float_atomic_order");
    let dir = scratch("capture-kernel");
    let cap = dir.join("cap");
    let c = cap.to_str().expect("utf-8");
    exec(
        &exe,
        &["--capture", c, "--capture-kernel=accumulate"],
        2,
        &dir,
    );
    let recs = records(&cap);
    assert_eq!(recs.len(), 1, "{recs:?}");
    let (ok, text) = replay(&recs[0]);
    assert!(ok, "{text}");
    assert!(
        text.contains("completed; results match the recording"),
        "{text}"
    );
    // Corrupt every digest: the replay must notice.
    let path = recs[0].join("capture.txt");
    let manifest = std::fs::read_to_string(&path).expect("manifest");
    let bad: String = manifest
        .lines()
        .map(|l| match l.strip_prefix("digest ") {
            Some(rest) => {
                let (base, _) = rest.split_once(' ').expect("digest line");
                format!("digest {base} 0123456789abcdef\n")
            }
            None => format!("{l}\n"),
        })
        .collect();
    assert_ne!(bad, manifest, "no digest lines");
    std::fs::write(&path, bad).expect("write manifest");
    let (ok, text) = replay(&recs[0]);
    assert!(
        !ok && text.contains("results DIFFER from the recording"),
        "{text}"
    );
}

/// Private memory in a trace: noinline_calls' kernel calls functions that save registers to
/// their stack frames (`buffer_store_dword … s[0:3], s33`); the trace lists the private dwords
/// each store changed, per lane.
#[test]
fn trace_wave_lists_private_memory_stores() {
    let exe = built_program("noinline_calls");
    let dir = scratch("trace-private");
    let file = dir.join("wave.txt");
    let f = file.to_str().expect("utf-8 path");
    exec(
        &exe,
        &["--trace-wave=_Z6kernelPiS_i:0:0", "--trace-wave-file", f],
        2,
        &dir,
    );
    let text = std::fs::read_to_string(&file).expect("the trace file");
    let lines: Vec<&str> = text.lines().collect();
    let after_store = lines.windows(2).any(|w| {
        w[0].contains("buffer_store_dword")
            && w[1].starts_with("    private[0x")
            && w[1].ends_with("(lane 0)")
    });
    assert!(after_store, "no private store listed after a buffer_store");
}
