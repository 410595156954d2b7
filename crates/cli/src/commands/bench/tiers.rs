//! One benchmark case in one tier, run in a child process: `hsaemu bench --child-case LABEL
//! --child-code FILE` with `HSAEMU_JIT` set for the tier (FILE: the case's code object, compiled
//! once by the parent for both tiers' children). The tier's setting is read once per process
//! and compiled blocks are kept per process, so every run gets a fresh one: the interpreter's
//! run never meets a compiled block. The child dispatches the case several times, as PoCL's runs
//! do: the first dispatch (where the tier interprets while its thread compiles; its CPU time
//! includes the compiler's) is reported apart, and the median of the others is the case's
//! figure. The child prints its result as one JSON line, which the parent reads.

use super::Args;
use hsaemu_emu::DispatchStats;
use serde_json::{json, Value};
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// What `--tier` selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TierChoice {
    /// The interpreter alone (`HSAEMU_JIT=0`).
    Interp,
    /// The compiling tier on.
    Jit,
    /// Both, side by side.
    Both,
}

/// One of the emulator's two tiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    Interp,
    Jit,
}

impl Tier {
    /// The tiers a `--tier` choice runs, in report order.
    pub fn chosen(choice: TierChoice) -> &'static [Tier] {
        match choice {
            TierChoice::Interp => &[Tier::Interp],
            TierChoice::Jit => &[Tier::Jit],
            TierChoice::Both => &[Tier::Interp, Tier::Jit],
        }
    }

    /// The `HSAEMU_JIT` the run gets: `0` for the interpreter; for the tier, the caller's own
    /// setting when it names one of the tier's modes (`1`, `sync`, `verify`), else `1`.
    pub fn env_value(self) -> String {
        match self {
            Tier::Interp => "0".into(),
            Tier::Jit => std::env::var("HSAEMU_JIT")
                .ok()
                .map(|v| v.trim().to_string())
                .filter(|v| ["1", "sync", "verify"].contains(&v.as_str()))
                .unwrap_or_else(|| "1".into()),
        }
    }

    /// The column title of the report.
    pub fn title(self) -> String {
        let name = match self {
            Tier::Interp => "interpreter",
            Tier::Jit => "compiling tier",
        };
        format!("{name} (HSAEMU_JIT={})", self.env_value())
    }
}

/// What the compiling tier did in a run's process.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Compiled {
    /// Whether dispatches used the tier.
    pub enabled: bool,
    pub blocks: u64,
    pub instructions: u64,
    pub compile_ms: f64,
    /// Compiled runs checked against the interpreter (`HSAEMU_JIT=verify`).
    pub verified_runs: u64,
    /// Blocks the generator refused.
    pub refused: u64,
    /// What the lowering did with them (`hsaemu_emu::jit::Stats`' counters).
    pub lowered: Lowered,
}

/// The compiling tier's lowering counters in a run's process: which of its ways of making a
/// kernel fast a kernel met, for tuning it (docs/architecture-emu.md, "The compiling tier").
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Lowered {
    /// Basic blocks compiled on lane-affine facts.
    pub affine_blocks: u64,
    /// Regions compiled for a pair of wave32s, and calls that ran a pair.
    pub pair_blocks: u64,
    pub pair_runs: u64,
    /// Work-groups whose pairs all ran one after the other in two waves.
    pub streamed_groups: u64,
    /// Barrier exits compiled with a tail.
    pub barrier_tails: u64,
    /// `v_fmac_f32` chains of group passes.
    pub fmac_chains: u64,
    /// DS loads taken into a run's group passes.
    pub ds_run_loads: u64,
}

impl Lowered {
    /// The report's line for them (`None` when the tier used none of them).
    pub fn line(&self) -> Option<String> {
        let parts: Vec<String> = [
            (self.affine_blocks, "lane-affine basic blocks"),
            (self.pair_blocks, "wave32 pair regions"),
            (self.pair_runs, "pair calls"),
            (self.streamed_groups, "streamed work-groups"),
            (self.barrier_tails, "barrier tails"),
            (self.fmac_chains, "FMA chains"),
            (self.ds_run_loads, "DS loads in runs"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{what} {n}"))
        .collect();
        (!parts.is_empty()).then(|| format!("  lowered: {}", parts.join(", ")))
    }
}

/// One emulated run, as its child process reported it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Measured {
    /// Dispatch wall time, seconds (the median of the dispatches after the first).
    pub elapsed: f64,
    /// CPU seconds of the process over that dispatch (all its threads).
    pub cpu: Option<f64>,
    /// The first dispatch's wall time and CPU seconds, compiling included.
    pub first_elapsed: f64,
    pub first_cpu: Option<f64>,
    pub lane_ops: u64,
    pub wave_instructions: u64,
    /// Whether the result matched the CPU's.
    pub ok: bool,
    pub compiled: Compiled,
}

impl Measured {
    /// Million lane-ops per CPU-second, when the process used enough CPU time to tell (`/proc`
    /// counts it in 10 ms ticks).
    pub fn lane_ops_per_cpu_second(&self) -> Option<f64> {
        // The process CPU clock is exact to the microsecond (10 ms ticks were once the
        // floor here, which hid the quick gfx1030 matmul's ~8 ms).
        self.cpu
            .filter(|&c| c >= 1e-4)
            .map(|c| self.lane_ops as f64 / c / 1e6)
    }
}

/// The child's side: the result line for its runs, from the median dispatch's statistics and
/// CPU seconds and the first dispatch's.
pub fn result_line(
    stats: &DispatchStats,
    cpu: Option<f64>,
    first: (&DispatchStats, Option<f64>),
    ok: bool,
) -> String {
    let s = hsaemu_emu::jit::stats();
    let mut line = dispatch_json(stats, cpu, ok);
    line["first"] = json!({ "elapsed": first.0.elapsed.as_secs_f64(), "cpu": first.1 });
    line["jit"] = json!({
            "enabled": hsaemu_emu::jit::enabled(),
            "blocks": s.blocks,
            "instructions": s.instructions,
            "compile_ms": s.compile_nanos as f64 / 1e6,
            "runs": s.runs,
            "failed": s.failed,
            "affine_blocks": s.affine_blocks,
            "pair_blocks": s.pair_blocks,
            "pair_runs": s.pair_runs,
            "streamed_groups": s.streamed_groups,
            "interpreted": s.interpreted,
            "barrier_tails": s.barrier_tails,
            "fmac_chains": s.fmac_chains,
            "ds_run_loads": s.ds_run_loads,
    });
    line.to_string()
}

/// The last line of a child's output that is a JSON object (its result line).
fn last_json(stdout: &str) -> Result<Value, String> {
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .ok_or("no result line")?;
    serde_json::from_str(line).map_err(|e| format!("bad result line: {e}"))
}

/// One dispatch's figures as `dispatch_json` writes them (the rest of `Measured` default).
fn dispatch_of(v: &Value) -> Result<Measured, String> {
    let u = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    Ok(Measured {
        elapsed: v
            .get("elapsed")
            .and_then(Value::as_f64)
            .ok_or("a result without `elapsed`")?,
        cpu: v.get("cpu").and_then(Value::as_f64),
        lane_ops: u("lane_ops"),
        wave_instructions: u("wave_instructions"),
        ok: v.get("ok").and_then(Value::as_bool).unwrap_or(false),
        ..Measured::default()
    })
}

/// Reads a child's result line (the last line of its output that is a JSON object).
pub fn parse_result(stdout: &str) -> Result<Measured, String> {
    let v = last_json(stdout)?;
    let u = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let f = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64);
    let jit = v.get("jit").cloned().unwrap_or(Value::Null);
    Ok(Measured {
        first_elapsed: v.get("first").and_then(|v| f(v, "elapsed")).unwrap_or(0.0),
        first_cpu: v.get("first").and_then(|v| f(v, "cpu")),
        compiled: Compiled {
            enabled: jit.get("enabled").and_then(Value::as_bool).unwrap_or(false),
            blocks: u(&jit, "blocks"),
            instructions: u(&jit, "instructions"),
            compile_ms: f(&jit, "compile_ms").unwrap_or(0.0),
            verified_runs: u(&jit, "runs"),
            refused: u(&jit, "failed"),
            lowered: Lowered {
                affine_blocks: u(&jit, "affine_blocks"),
                pair_blocks: u(&jit, "pair_blocks"),
                pair_runs: u(&jit, "pair_runs"),
                streamed_groups: u(&jit, "streamed_groups"),
                barrier_tails: u(&jit, "barrier_tails"),
                fmac_chains: u(&jit, "fmac_chains"),
                ds_run_loads: u(&jit, "ds_run_loads"),
            },
        },
        ..dispatch_of(&v)?
    })
}

/// One dispatch of an interleaved child as its line gives it: wall and CPU seconds, lane-ops
/// and whether its result matched the CPU's.
fn dispatch_json(stats: &DispatchStats, cpu: Option<f64>, ok: bool) -> Value {
    json!({
        "elapsed": stats.elapsed.as_secs_f64(),
        "cpu": cpu,
        "lane_ops": stats.lane_ops,
        "wave_instructions": stats.wave_instructions,
        "ok": ok,
    })
}

/// One dispatch of an interleaved pair: its statistics, CPU seconds and result check.
pub type Sample<'a> = (&'a DispatchStats, Option<f64>, bool);

/// The interleaved child's side: its result line, each pair's dispatch on `--processor` (`p`)
/// and on the compared processor (`q`).
pub fn interleaved_line(pairs: &[(Sample, Sample)]) -> String {
    let pairs: Vec<Value> = pairs
        .iter()
        .map(|&((ps, pc, pok), (qs, qc, qok))| {
            json!({ "p": dispatch_json(ps, pc, pok), "q": dispatch_json(qs, qc, qok) })
        })
        .collect();
    json!({ "pairs": pairs }).to_string()
}

/// Reads an interleaved child's result line: per pair, the run on `--processor` and the run on
/// the compared processor.
pub fn parse_interleaved(stdout: &str) -> Result<Vec<(Measured, Measured)>, String> {
    let v = last_json(stdout)?;
    let pairs = v
        .get("pairs")
        .and_then(Value::as_array)
        .filter(|p| !p.is_empty())
        .ok_or("result line without pairs")?;
    pairs
        .iter()
        .map(|p| Ok((dispatch_of(&p["p"])?, dispatch_of(&p["q"])?)))
        .collect()
}

/// The parent's side of `--interleave`: runs the case `label` in `tier` in one child, on
/// `p` = (processor, code object) and on `q` dispatch by dispatch; each pair's two runs.
pub fn run_interleaved(
    args: &Args,
    p: (&str, &Path),
    q: (&str, &Path),
    label: &str,
    tier: Tier,
) -> Result<Vec<(Measured, Measured)>, String> {
    let pairs = args.interleave.unwrap_or(1).to_string();
    let extra = [
        OsStr::new("--compare-processor"),
        OsStr::new(q.0),
        OsStr::new("--interleave"),
        OsStr::new(&pairs),
        OsStr::new("--child-compare-code"),
        q.1.as_os_str(),
    ];
    let what = format!("{label} on {} interleaved with {}", p.0, q.0);
    let stdout = spawn(args, p.0, label, p.1, tier, &extra, &what)?;
    parse_interleaved(&stdout).map_err(|e| format!("{what}, {}: {e}", tier.title()))
}

/// The parent's side: runs the case `label` on `processor` in `tier`, in a child process with
/// the bench's other options and the case's code object `code`, compiled by the parent.
pub fn run_child(
    args: &Args,
    processor: &str,
    label: &str,
    code: &Path,
    tier: Tier,
) -> Result<Measured, String> {
    let what = format!("{label} on {processor}");
    let stdout = spawn(args, processor, label, code, tier, &[], &what)?;
    parse_result(&stdout).map_err(|e| format!("{what}, {}: {e}", tier.title()))
}

/// Runs a bench child for the case `label` on `processor` in `tier` (`extra`: more of its
/// arguments) and returns its output; `what` names the run in errors.
fn spawn(
    args: &Args,
    processor: &str,
    label: &str,
    code: &Path,
    tier: Tier,
    extra: &[&OsStr],
    what: &str,
) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find hsaemu itself: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.args(["bench", "--processor", processor, "--child-case", label])
        .arg("--child-code")
        .arg(code)
        .args(["--threads", &args.threads.to_string()])
        .args(["--device-libs", &args.device_libs])
        .args(extra)
        .env("HSAEMU_JIT", tier.env_value());
    if args.quick {
        cmd.arg("--quick");
    }
    if let Some(c) = &args.clang {
        cmd.args(["--clang", c]);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start the {} run: {e}", tier.title()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let err = err.trim().trim_start_matches("hsaemu: ");
        return Err(format!(
            "{what}, {}: failed ({})\n{err}",
            tier.title(),
            out.status
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A dispatch's statistics: its lane-ops, wave-instructions and wall milliseconds.
    fn dispatch(lane_ops: u64, wave_instructions: u64, ms: u64) -> DispatchStats {
        DispatchStats {
            lane_ops,
            wave_instructions,
            elapsed: Duration::from_millis(ms),
            ..DispatchStats::default()
        }
    }

    #[test]
    fn a_result_line_reads_back() {
        let stats = dispatch(4_000_000, 70_000, 250);
        let cold = DispatchStats {
            elapsed: Duration::from_millis(400),
            ..stats
        };
        let line = result_line(&stats, Some(0.5), (&cold, Some(0.75)), true);
        let m = parse_result(&format!("noise\n{line}\n")).expect("parses");
        assert_eq!(m.elapsed, 0.25);
        assert_eq!(m.cpu, Some(0.5));
        assert_eq!((m.first_elapsed, m.first_cpu), (0.4, Some(0.75)));
        assert_eq!(
            (m.lane_ops, m.wave_instructions, m.ok),
            (4_000_000, 70_000, true)
        );
        assert_eq!(m.lane_ops_per_cpu_second(), Some(8.0));
        let m = parse_result(&result_line(&stats, None, (&cold, None), false)).expect("parses");
        assert_eq!(
            (m.cpu, m.ok, m.lane_ops_per_cpu_second()),
            (None, false, None)
        );
    }

    /// The lowering counters travel in the result line by name, and the report names only
    /// those that are not 0.
    #[test]
    fn lowering_counters_read_back_and_print_when_not_zero() {
        let line = r#"{"elapsed": 0.1, "ok": true, "jit": {"enabled": true, "blocks": 3,
            "affine_blocks": 2, "pair_blocks": 1, "pair_runs": 4096, "streamed_groups": 512,
            "barrier_tails": 0, "fmac_chains": 5, "ds_run_loads": 7}}"#
            .replace('\n', " ");
        let m = parse_result(&line).expect("parses");
        let l = m.compiled.lowered;
        assert_eq!(
            (l.affine_blocks, l.pair_blocks, l.pair_runs, l.barrier_tails),
            (2, 1, 4096, 0)
        );
        assert_eq!(
            (l.streamed_groups, l.fmac_chains, l.ds_run_loads),
            (512, 5, 7)
        );
        assert_eq!(
            l.line().as_deref(),
            Some(
                "  lowered: lane-affine basic blocks 2, wave32 pair regions 1, pair calls 4096, \
                 streamed work-groups 512, FMA chains 5, DS loads in runs 7"
            )
        );
        assert_eq!(Lowered::default().line(), None);
    }

    /// An interleaved child's line gives back each pair's two dispatches, in order.
    #[test]
    fn an_interleaved_line_reads_back() {
        let fast = dispatch(1000, 10, 40);
        let slow = dispatch(800, 10, 70);
        let line = interleaved_line(&[
            ((&fast, Some(0.04), true), (&slow, Some(0.07), true)),
            ((&slow, None, true), (&fast, Some(0.05), false)),
        ]);
        let pairs = parse_interleaved(&format!("noise\n{line}\n")).expect("parses");
        assert_eq!(pairs.len(), 2);
        let (p, q) = pairs[0];
        assert_eq!(
            (p.elapsed, p.cpu, p.lane_ops, p.ok),
            (0.04, Some(0.04), 1000, true)
        );
        assert_eq!(
            (q.elapsed, q.cpu, q.lane_ops, q.ok),
            (0.07, Some(0.07), 800, true)
        );
        let (p, q) = pairs[1];
        assert_eq!((p.cpu, p.lane_ops, p.wave_instructions), (None, 800, 10));
        assert_eq!((q.cpu, q.lane_ops, q.ok), (Some(0.05), 1000, false));
        assert!(parse_interleaved(r#"{"pairs": []}"#).is_err());
        assert!(parse_interleaved(r#"{"pairs": [{"p": {}, "q": {}}]}"#).is_err());
    }

    #[test]
    fn a_child_without_a_result_line_is_an_error() {
        assert!(parse_result("hello\n").is_err());
        assert!(parse_result("{\"cpu\": 1.0}").is_err());
    }

    #[test]
    fn tier_choices_run_their_tiers_in_order() {
        assert_eq!(Tier::chosen(TierChoice::Both), [Tier::Interp, Tier::Jit]);
        assert_eq!(Tier::chosen(TierChoice::Interp), [Tier::Interp]);
        assert_eq!(Tier::chosen(TierChoice::Jit), [Tier::Jit]);
        assert_eq!(Tier::Interp.env_value(), "0");
        assert_ne!(Tier::Jit.env_value(), "0");
    }
}
