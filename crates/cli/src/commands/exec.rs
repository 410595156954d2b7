//! Implementation of the `hsaemu exec` command: runs `PROGRAM [ARGS…]` with hsaemu's
//! `libhsa-runtime64.so.1` first on `LD_LIBRARY_PATH`, so HSA and HIP programs linked against
//! ROCm's runtime run on the emulated GPU. The library is found next to the `hsaemu` binary
//! (as cargo builds it, `libhsa_runtime64.so`), in `deps/` there, or in the workspace's
//! `target/{debug,release}`; `HSAEMU_LIBRARY` names it explicitly. A directory holding it
//! under its soname is made beside it. `--trace FILE` asks the runtime for a Chrome-trace
//! timeline (see `hsaemu_runtime::trace`). That directory also gets `libamd_comgr.so.2`, the
//! comgr cache of crate `hsaemu-comgrshim` (HIP compiles its blit kernels in every process;
//! `HSAEMU_COMGR_CACHE`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Every `HSAEMU_*` variable (the `exec` help lists them; a test checks that the sources use
/// no other).
pub const ENVIRONMENT: &str = "\
Environment (read by the runtime in the program, and by hsaemu):
  HSAEMU_TARGET   GPU processor of the emulated agents: gfx803, gfx900, gfx906, gfx908,
                  gfx90a (default), gfx940, gfx941, gfx942, gfx950, gfx1030, gfx1100–gfx1103,
                  gfx1150–gfx1153, gfx1200 or gfx1201, optionally with :xnack+/- and :sramecc+/-
  HSAEMU_GPUS     number of emulated GPU agents (default 1)
  HSAEMU_CUS      compute units per GPU agent (default 4; emulated, not host threads)
  HSAEMU_THREADS  host threads that run work-groups (default: every core)
  HSAEMU_TRACE    comma-separated: `api` (every HSA call with its arguments and status on
                  stderr), `unimplemented` (calls to unsupported functions), `mem` (every
                  range made visible to kernels or hidden), or a FILE for a Chrome-trace
                  timeline (as --trace FILE)
  HSAEMU_TIMEOUT  watchdog: stop a dispatch running longer than this many seconds and report
                  where every live wave is (off by default; as --timeout)
  HSAEMU_DETERMINISTIC  1: run every dispatch in a fixed schedule, so results are
                  bit-identical across runs and HSAEMU_THREADS values (as --deterministic)
  HSAEMU_TRACE_WAVE  KERNEL[:WG[:WAVE]]: trace every instruction of those waves (as
                  --trace-wave; WG is a work-group index or X,Y,Z, default 0; WAVE default all)
  HSAEMU_TRACE_WAVE_FILE  where the wave trace goes (default hsaemu-wave-trace.txt)
  HSAEMU_CAPTURE  DIR: write a replayable record of each faulting dispatch (as --capture)
  HSAEMU_CAPTURE_KERNEL  also capture every dispatch of this kernel, faulting or not
                  (as --capture-kernel)
  HSAEMU_LDS_OOB  `hardware`: an LDS access beyond the work-group's allocation reads 0 and
                  drops its write, as the GPU does, instead of being a fault (first one noted)
  HSAEMU_LIBRARY  the libhsa-runtime64 to use (default: the one built next to hsaemu)
  HSAEMU_JIT      the compiling tier, which by default (unset or 1) compiles hot regions of
                  wave instructions to native code in the background and runs HIP's
                  memset/copy blit kernels as native host copies; 0: interpret everything;
                  sync: compile every block at its first run; verify: as sync, and check each
                  compiled run against the interpreter (a difference is a fault)
  HSAEMU_JIT_DEBUG  set: print where compiled blocks end, why a block did not compile and
                  which basic blocks use lane-affine facts
  HSAEMU_JIT_INLINE  0: compiled regions call the interpreter for every memory access
                  instead of generating it inline (for measuring the difference)
  HSAEMU_JIT_DISASM  set: print each compiled region's x86-64 code (Cranelift's listing)
  HSAEMU_JIT_PERFMAP  1: list each compiled region in /tmp/perf-<pid>.map (start, size,
                  kernel+offset and variant) for perf and other profilers of JIT code
  HSAEMU_JIT_AFFINE  0: compiled regions do not use lane-affine facts (rows known to hold
                  base + stride·lane, and DS address rows' shapes predicted from the wave,
                  tested at run time) for measuring the difference
  HSAEMU_JIT_PAIR  0: a work-group's two wave32s never run in one region call (pairs are
                  on by default, off under --deterministic) for measuring the difference
  HSAEMU_JIT_STREAM  0: a work-group whose wave32 pairs each end in one call does not run
                  them one after the other in two waves (on by default where pairs are;
                  under HSAEMU_JIT=verify each streamed pair call is checked) for
                  measuring the difference
  HSAEMU_CHECK    comma list of checks (race, uninit, bounds), as --check; findings are
                  printed at exit and the status is then 66
  HSAEMU_COMGR_CACHE  the cache of ROCm comgr's compiles in HIP programs (HIP builds its
                  blit kernels at every start): unset or 1, in $XDG_CACHE_HOME/hsaemu/comgr
                  (else ~/.cache/hsaemu/comgr); 0: off; else the cache directory
  HSAEMU_COMGR_CACHE_LOG  1: print a line per comgr action on stderr (hit, stored, bypass)
  HSAEMU_BIN      scripts/hip-tests.sh only: the hsaemu binary to run the HIP programs with
  HSAEMU_FULL_CORPUS  tests only: 1 makes build-corpus and the kernel corpus tests build and
                  walk every source in every code object version (by default a version that
                  repeats another's code is built for a subset of sources)";

#[derive(clap::Args)]
#[command(after_help = ENVIRONMENT)]
pub struct Args {
    /// Write a Chrome-trace JSON timeline (chrome://tracing, Perfetto) to FILE: every HSA API
    /// call, and per queue every kernel dispatch (with its kernel name), barrier packet and
    /// memory copy. The same as adding FILE to `HSAEMU_TRACE`.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Watchdog: stop any kernel dispatch that runs longer than SECONDS and report where every
    /// live wave was (kernel, PC, instruction, the address it polls). The same as setting
    /// `HSAEMU_TIMEOUT=SECONDS`.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u32).range(1..))]
    pub timeout: Option<u32>,
    /// Run every dispatch in a fixed schedule (one at a time, its work-groups in order on one
    /// host thread), so results are bit-identical across runs and `HSAEMU_THREADS` values,
    /// float atomics included. The same as `HSAEMU_DETERMINISTIC=1`.
    #[arg(long)]
    pub deterministic: bool,
    /// Trace every instruction of the chosen waves (PC, instruction, EXEC, the registers and
    /// memory it wrote) to the --trace-wave-file. WG: a work-group index or X,Y,Z (default
    /// 0); WAVE: a wave of it (default every wave).
    #[arg(long, value_name = "KERNEL[:WG[:WAVE]]")]
    pub trace_wave: Option<String>,
    /// Where --trace-wave writes (default `hsaemu-wave-trace.txt`).
    #[arg(long, value_name = "FILE")]
    pub trace_wave_file: Option<PathBuf>,
    /// Write a replayable record of each faulting dispatch (code, packet, kernel arguments,
    /// memory) under DIR, for `hsaemu run --replay`. Dispatches then run deterministically.
    #[arg(long, value_name = "DIR")]
    pub capture: Option<PathBuf>,
    /// With --capture: record every dispatch of the kernel NAME (exact name or a substring),
    /// faulting or not, with a digest of its results.
    #[arg(long, value_name = "NAME", requires = "capture")]
    pub capture_kernel: Option<String>,
    /// Check the program's kernels: LIST is a comma list of `race` (data races on LDS and
    /// global memory), `uninit` (reads of memory never written) and `bounds` (accesses past an
    /// allocation's end or after free). Findings go to stderr at exit, one line each; the exit
    /// status is then 66. The same as `HSAEMU_CHECK=LIST`, plus the `hipMalloc`/`hipFree`
    /// shim that tells the checker the program's own allocation sizes.
    #[arg(long, value_name = "LIST", value_parser = parse_checks)]
    pub check: Option<String>,
    /// The program to run, then its arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    pub command: Vec<String>,
}

const CARGO_NAME: &str = "libhsa_runtime64.so";
const SONAME: &str = "libhsa-runtime64.so.1";

/// Where the built library is, in search order.
fn candidates() -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Ok(p) = std::env::var("HSAEMU_LIBRARY") {
        v.push(PathBuf::from(p));
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        v.push(dir.join(CARGO_NAME));
        v.push(dir.join("deps").join(CARGO_NAME));
        v.push(dir.join("..").join(CARGO_NAME));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for profile in ["release", "debug"] {
        v.push(root.join("target").join(profile).join(CARGO_NAME));
    }
    v
}

/// A directory holding the library as `libhsa-runtime64.so.1`.
pub fn library_dir() -> Result<PathBuf, String> {
    let lib = candidates()
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| format!("cannot find {CARGO_NAME}: build it with `cargo build -p hsa-runtime64` or set HSAEMU_LIBRARY"))?;
    let lib = lib
        .canonicalize()
        .map_err(|e| format!("{}: {e}", lib.display()))?;
    if lib.file_name().is_some_and(|n| n == SONAME) {
        return lib
            .parent()
            .map(Path::to_path_buf)
            .ok_or_else(|| "library has no directory".to_string());
    }
    let dir = lib
        .parent()
        .ok_or("library has no directory")?
        .join("hsaemu-lib");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let link = dir.join(SONAME);
    let current = std::fs::read_link(&link).ok();
    if current.as_deref() != Some(lib.as_path()) {
        link_over(&lib, &link).map_err(|e| format!("linking {}: {e}", link.display()))?;
    }
    Ok(dir)
}

/// Makes `link` a symbolic link to `target`: a fresh link renamed over the name, so hsaemu
/// processes starting at once (the tests run several) never see the name missing and never
/// fail on another's link.
fn link_over(target: &Path, link: &Path) -> std::io::Result<()> {
    let mut tmp = link.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    let made = std::os::unix::fs::symlink(target, &tmp).and_then(|()| std::fs::rename(&tmp, link));
    if made.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    made
}

/// Where a library built with the runtime (`name`, a cdylib of the workspace) may be:
/// beside the runtime library that `lib_dir` links (the tests' freshly built one), and beside
/// hsaemu; `runtime_first` says which first.
fn built_beside(lib_dir: &Path, name: &str, runtime_first: bool) -> Vec<PathBuf> {
    let mut runtime = Vec::new();
    if let Ok(lib) = lib_dir.join(SONAME).canonicalize() {
        if let Some(d) = lib.parent() {
            runtime = vec![
                d.join(name),
                d.join("deps").join(name),
                d.join("..").join(name),
            ];
        }
    }
    let mut exe = Vec::new();
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        exe = vec![dir.join(name), dir.join("deps").join(name)];
    }
    if runtime_first {
        runtime.extend(exe);
        runtime
    } else {
        exe.extend(runtime);
        exe
    }
}

fn parse_checks(list: &str) -> Result<String, String> {
    hsaemu_emu::check::Checks::parse(list)
        .map(|_| list.to_string())
        .map_err(|e| format!("--check: {e}"))
}

const SHIM: &str = "libhsaemu_check.so";

/// The `--check` shim library, beside hsaemu or the runtime library, or in the workspace.
fn shim(lib_dir: &Path) -> Result<PathBuf, String> {
    let mut v = built_beside(lib_dir, SHIM, false);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for profile in ["release", "debug"] {
        v.push(root.join("target").join(profile).join(SHIM));
    }
    v.into_iter().find(|p| p.is_file()).ok_or_else(|| {
        format!("cannot find {SHIM} (--check): build it with `cargo build -p hsaemu-checkshim`")
    })
}

const COMGR_SHIM: &str = "libhsaemu_comgr.so";
const COMGR_SONAME: &str = "libamd_comgr.so.2";

/// Links the comgr cache library (crate `hsaemu-comgrshim`) into `lib_dir` as
/// `libamd_comgr.so.2`, where HIP's `dlopen` of comgr finds it first; it forwards to ROCm's
/// comgr and caches the compiles (ROCclr's blit kernels) across processes. Only in a
/// directory hsaemu made (`hsaemu-lib`). Without the library built, any old link is removed
/// (HIP then loads ROCm's comgr directly); a failure is not an error: the cache only saves
/// time.
fn install_comgr(lib_dir: &Path) {
    if lib_dir.file_name().is_none_or(|n| n != "hsaemu-lib") {
        return;
    }
    let link = lib_dir.join(COMGR_SONAME);
    let v = built_beside(lib_dir, COMGR_SHIM, true);
    let Some(shim) = v.into_iter().find_map(|p| p.canonicalize().ok()) else {
        let _ = std::fs::remove_file(&link);
        return;
    };
    if std::fs::read_link(&link).ok().as_deref() == Some(shim.as_path()) {
        return;
    }
    let _ = link_over(&shim, &link);
}

pub fn run(args: Args) -> Result<ExitCode, String> {
    let (program, rest) = args.command.split_first().ok_or("no program given")?;
    let target = std::env::var("HSAEMU_TARGET")
        .ok()
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| hsaemu_emu::GpuConfig::default().processor);
    if let Some(note) = program_path(program).and_then(|p| missing_target_note(&p, &target)) {
        eprintln!("hsaemu: {program}: {note}");
    }
    let dir = library_dir()?;
    install_comgr(&dir);
    // `HSAEMU_CHECK=LIST` without --check also gets the shim.
    let check = match args.check.clone() {
        Some(list) => Some(list),
        None => match std::env::var("HSAEMU_CHECK") {
            Ok(list) if !list.trim().is_empty() => Some(parse_checks(&list)?),
            _ => None,
        },
    };
    let preload = match &check {
        Some(_) => Some(shim(&dir)?),
        None => None,
    };
    let mut path = dir.into_os_string();
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|o| !o.is_empty()) {
        path.push(":");
        path.push(old);
    }
    let mut cmd = Command::new(program);
    cmd.args(rest).env("LD_LIBRARY_PATH", path);
    if let Some(file) = &args.trace {
        // Absolute, so that a program changing directory still writes where it was asked.
        let file = std::path::absolute(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let file = file
            .to_str()
            .filter(|f| !f.contains(','))
            .ok_or_else(|| {
                format!(
                    "{}: the trace path must be UTF-8 without commas",
                    file.display()
                )
            })?
            .to_string();
        let spec = match std::env::var("HSAEMU_TRACE") {
            Ok(old) if !old.is_empty() => format!("{old},{file}"),
            _ => file,
        };
        cmd.env("HSAEMU_TRACE", spec);
    }
    if let Some(s) = args.timeout {
        cmd.env("HSAEMU_TIMEOUT", s.to_string());
    }
    debug_env(&args, &mut cmd)?;
    if let (Some(list), Some(shim)) = (&check, preload) {
        let mut pre = shim.into_os_string();
        if let Some(old) = std::env::var_os("LD_PRELOAD").filter(|o| !o.is_empty()) {
            pre.push(":");
            pre.push(old);
        }
        cmd.env("HSAEMU_CHECK", list).env("LD_PRELOAD", pre);
    }
    // Replace this process with the program (as `env` does), so its PID, exit status and
    // death by signal are exactly the program's own and a supervisor's kill reaches it.
    use std::os::unix::process::CommandExt;
    let err = cmd.exec();
    Err(format!("cannot run {program}: {err}"))
}

/// `program` as `exec` finds it: a path when it has a `/`, else the first match on `PATH`.
fn program_path(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// What to tell the user when the program's own device code (its `.hip_fatbin`) holds no
/// code object for the emulated processor `target` (a target ID): HIP then stops with
/// `hipErrorNoBinaryForGpu` and no hint, as a program built by plain `hipcc` does, whose
/// code is gfx803's alone when the host has no GPU. Processors only (a generic one covering
/// the target counts): the features' match is HIP's to judge. `None` for anything else (no
/// such section, an unreadable file, a matching code object).
fn missing_target_note(path: &Path, target: &str) -> Option<String> {
    // A host executable, not a data file of gigabytes named as a program.
    if std::fs::metadata(path).ok()?.len() > 1 << 30 {
        return None;
    }
    let file = std::fs::read(path).ok()?;
    hsaemu_codeobject::hip_fatbin(&file).ok()?;
    let found = hsaemu_codeobject::find_code_objects(&file).ok()?;
    let processors: std::collections::BTreeSet<String> = found
        .iter()
        .filter_map(|c| {
            let (_, _, id) = hsaemu_codeobject::parse_entry_id(c.bundle_id.as_deref()?);
            Some(id?.split(':').next()?.to_string())
        })
        .filter(|p| !p.is_empty())
        .collect();
    let processor = target.split(':').next()?;
    let agent = hsaemu_codeobject::TargetId::parse(processor).ok()?;
    let runs = processors.iter().any(|p| {
        hsaemu_codeobject::TargetId::parse(p)
            .is_ok_and(|c| hsaemu_codeobject::is_compatible(&c, &agent))
    });
    if runs || processors.is_empty() {
        return None;
    }
    let list = processors.iter().cloned().collect::<Vec<_>>().join(", ");
    // One of them the emulator models, to run it as it is.
    let advice = match processors
        .iter()
        .filter(|p| hsaemu_isa::Gen::from_processor(p).is_some())
        .max()
    {
        Some(p) => {
            format!("Run it with HSAEMU_TARGET={p}, or rebuild it with --offload-arch={processor}")
        }
        None => format!("Rebuild it with --offload-arch={processor}"),
    };
    Some(format!(
        "its GPU code is for {list}, none for the emulated {processor}: HIP will stop with \
         hipErrorNoBinaryForGpu. {advice}"
    ))
}

/// The environment of `--deterministic`, `--trace-wave` and `--capture` (docs/debugging.md).
fn debug_env(args: &Args, cmd: &mut Command) -> Result<(), String> {
    // Absolute, so that a program changing directory still writes where it was asked.
    let absolute = |p: &Path| {
        std::path::absolute(p)
            .map_err(|e| format!("{}: {e}", p.display()))
            .map(PathBuf::into_os_string)
    };
    if args.deterministic {
        cmd.env("HSAEMU_DETERMINISTIC", "1");
    }
    if let Some(spec) = &args.trace_wave {
        hsaemu_emu::WaveSelector::parse(spec)?;
        cmd.env("HSAEMU_TRACE_WAVE", spec);
    }
    if let Some(f) = &args.trace_wave_file {
        cmd.env("HSAEMU_TRACE_WAVE_FILE", absolute(f)?);
    }
    if let Some(d) = &args.capture {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        cmd.env("HSAEMU_CAPTURE", absolute(d)?);
    }
    if let Some(k) = &args.capture_kernel {
        cmd.env("HSAEMU_CAPTURE_KERNEL", k);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// Debian's rocRAND (`testkit::ROCRAND_LIBRARY`, its `.hip_fatbin` for gfx803…gfx1030)
    /// as the program: no note for a processor it has code for, nor for one its generic
    /// code would cover; a note naming its processors and the way out for gfx942; none for
    /// a file without device code.
    #[test]
    fn a_program_without_code_for_the_target_gets_a_note() {
        let lib = std::path::Path::new(hsaemu_testkit::ROCRAND_LIBRARY);
        assert!(
            lib.is_file(),
            "{} is missing: scripts/setup.sh installs librocrand1",
            lib.display()
        );
        assert_eq!(super::missing_target_note(lib, "gfx90a"), None);
        assert_eq!(super::missing_target_note(lib, "gfx1030:xnack-"), None);
        let note = super::missing_target_note(lib, "gfx942").expect("a note for gfx942");
        assert!(
            note.contains("gfx803")
                && note.contains("gfx1030")
                && note.contains("none for the emulated gfx942"),
            "{note}"
        );
        assert!(
            note.contains("HSAEMU_TARGET=gfx90a, or rebuild it with --offload-arch=gfx942"),
            "{note}"
        );
        assert!(note.contains("--offload-arch=gfx942"), "{note}");
        let exe = std::env::current_exe().expect("the test binary");
        assert_eq!(super::missing_target_note(&exe, "gfx942"), None);
    }

    /// Every `HSAEMU_*` name in the workspace's sources and scripts is in [`super::ENVIRONMENT`].
    #[test]
    fn exec_help_lists_every_hsaemu_variable() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).expect("read dir").flatten() {
                let p = e.path();
                if p.is_dir() {
                    if p.file_name().is_some_and(|n| n != "target" && n != ".git") {
                        walk(&p, out);
                    }
                } else if p
                    .extension()
                    .is_some_and(|x| x == "rs" || x == "sh" || x == "c")
                {
                    out.push(p);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        for d in ["crates", "scripts", "tests"] {
            walk(&root.join(d), &mut files);
        }
        let mut names = std::collections::BTreeSet::new();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            for (i, _) in text.match_indices("HSAEMU_") {
                let name: String = text[i..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                if name.len() > "HSAEMU_".len() && !name.ends_with('_') {
                    names.insert(name);
                }
            }
        }
        assert!(names.contains("HSAEMU_TARGET"), "{names:?}");
        for n in &names {
            assert!(
                super::ENVIRONMENT.contains(&format!("  {n} ")),
                "{n} is not in `hsaemu exec --help`"
            );
        }
    }
}
