//! Test support for hsaemu: builds the test corpus with the real compilers.
//!
//! Every kernel a test runs or inspects is compiled here from the sources in
//! `tests/kernels/` by Debian's `clang-15` or `hipcc` (`clang-22` for gfx942/gfx950, see
//! [`clang22_device_lib_args`]); there are no hand-written stand-ins for compiler output. Outputs are cached under `target/kernels/`,
//! keyed by a hash of the source text and the full command line, so a second
//! test run compiles nothing. A code object is what that command line gives clang's driver,
//! byte for byte, but made in cheaper steps: the object, then `ld.lld` run directly; and code
//! object versions whose optimised module is the same share it (see [`compile_cl_with`]); the
//! corpus generates code from those modules in batches, one `clang -cc1` process for many code
//! objects ([`codegen_in_batches`]).
//!
//! A missing tool is a loud failure (a panic naming the tool and the set-up
//! command), never a silently skipped test.

mod generic_shim;

use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Condvar, Mutex};

/// Where Debian's `rocm-device-libs` puts the device library bitcode.
pub const DEVICE_LIB_PATH: &str = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";

/// Debian's prebuilt rocRAND: a host library whose `.hip_fatbin` carries bundles for gfx803…gfx1030.
pub const ROCRAND_LIBRARY: &str = "/usr/lib/x86_64-linux-gnu/librocrand.so.1";

/// Debian's prebuilt rocSPARSE (librocsparse0, 1.3 GB): its `.hip_fatbin` holds 111 bundles,
/// each with code objects for gfx803, gfx900, gfx906, gfx908, gfx90a (xnack±) and gfx1030.
pub const ROCSPARSE_LIBRARY: &str = "/usr/lib/x86_64-linux-gnu/librocsparse.so.0";

/// Targets of the corpus, as target IDs (processor plus features).
pub const TARGETS: &[&str] = &[
    "gfx803",
    "gfx900",
    "gfx906",
    "gfx908",
    "gfx90a:xnack+",
    "gfx90a:xnack-",
    "gfx940",
    "gfx1030",
    "gfx942",
    "gfx950",
    "gfx1100",
    "gfx1151",
    "gfx1201",
];

/// Processors only LLVM 22 knows (CDNA3 gfx942, CDNA4 gfx950; RDNA3 gfx1100–gfx1103, RDNA3.5
/// gfx1150–gfx1153, RDNA4 gfx1200/gfx1201): their kernels are compiled by `clang-22` with
/// [`clang22_device_lib_args`] and disassembled by `llvm-objdump-22`.
pub const CLANG22_TARGETS: &[&str] = &[
    "gfx942",
    "gfx950",
    "gfx9-4-generic",
    "gfx1100",
    "gfx1101",
    "gfx1102",
    "gfx1103",
    "gfx1150",
    "gfx1151",
    "gfx1152",
    "gfx1153",
    "gfx11-generic",
    "gfx1200",
    "gfx1201",
    "gfx12-generic",
];

/// Whether `target` is compiled by clang-22 rather than clang-15.
pub fn is_clang22_target(target: &str) -> bool {
    CLANG22_TARGETS.contains(&processor(target))
}

/// The `llvm-objdump` that is the oracle for `processor`: version 22 for the processors only it
/// knows, 15 for the others (whose tables were generated from it).
pub fn objdump_for(processor: &str) -> &'static str {
    if is_clang22_target(processor) {
        "llvm-objdump-22"
    } else {
        "llvm-objdump-15"
    }
}

/// The device-library options for clang-22. ROCm 5.2's libraries have no bitcode for gfx942 or
/// gfx950 (`--rocm-device-lib-path` refuses them, and code object V6 wants a newer ABI library),
/// so the driver's own linking is off (`-nogpulib`) and the libraries are linked by hand:
/// `oclc_isa_version_940` stands in for every gfx94x/gfx95x and `oclc_isa_version_1030` for
/// GFX11/12, `oclc_abi_version_500` for V5 and V6. The 5.2 libraries compare the ISA version only
/// with 8000/9000/9006/9008/9010 and the ABI version only with 500, so the stand-ins behave
/// exactly like the real ones would (clang-22 gives byte-identical gfx90a objects either way).
/// `dir` holds the bitcode ([`DEVICE_LIB_PATH`] for the tests; `hsaemu bench` takes it as an
/// option); `wave64` selects the wave-size library for GFX10+ built with `-mwavefrontsize64`
/// (GFX9 is always wave64). This is the one copy of the recipe: the tests' kernels and
/// `hsaemu bench` are both built with it.
pub fn clang22_device_lib_args(dir: &str, target: &str, wave64: bool) -> Vec<String> {
    let p = processor(target);
    let gfx9 = p.starts_with("gfx9");
    let libs = [
        "opencl",
        "ocml",
        "ockl",
        "oclc_unsafe_math_off",
        "oclc_finite_only_off",
        "oclc_correctly_rounded_sqrt_off",
        "oclc_daz_opt_off",
        if gfx9 || wave64 {
            "oclc_wavefrontsize64_on"
        } else {
            "oclc_wavefrontsize64_off"
        },
        if gfx9 {
            "oclc_isa_version_940"
        } else {
            "oclc_isa_version_1030"
        },
        "oclc_abi_version_500",
    ];
    let mut args = vec!["-nogpulib".to_string()];
    for l in libs {
        args.extend([
            "-Xclang".into(),
            "-mlink-builtin-bitcode".into(),
            "-Xclang".into(),
            format!("{dir}/{l}.bc"),
        ]);
    }
    args
}

/// The second half of the clang-22 recipe: `bc` is the kernel compiled to bitcode with `args`
/// (which hold [`clang22_device_lib_args`]) plus `-c -emit-llvm`; when it leaves library calls
/// undefined because clang-22 mangles their generic pointers differently from the 5.2
/// libraries, a shim bridging them (`generic_shim`) is linked first. Panics, naming the tool,
/// when an LLVM 22 tool is missing or fails.
pub fn link_generic_shim(args: &mut Vec<String>, bc: &Path) {
    link_shim(args, generic_shim::shim_for(bc));
}

/// Puts `shim` (if any) first among the bitcode libraries in `args`.
fn link_shim(args: &mut Vec<String>, shim: Option<PathBuf>) {
    if let Some(shim) = shim {
        let at = args
            .iter()
            .position(|a| a == "-nogpulib")
            .map_or(0, |k| k + 1);
        let link = ["-Xclang", "-mlink-builtin-bitcode", "-Xclang"];
        let mut with: Vec<String> = link.iter().map(|s| s.to_string()).collect();
        with.push(shim.display().to_string());
        args.splice(at..at, with);
    }
}

/// [`generic_shim::shim_for`] for a bitcode probe in the kernel cache, remembered in a `.shim`
/// file beside it (the shim's file name, empty for none): the probe's name is a hash of what
/// made it, so the answer never changes, and a warm corpus walk then runs no LLVM tool (it ran
/// llvm-nm-22 and llvm-cxxfilt-22 on each of ~300 probes: 6.6 CPU s a walk, now 0.03).
fn remembered_shim_for(bc: &Path) -> Option<PathBuf> {
    let memo = bc.with_extension("shim");
    if let Ok(name) = std::fs::read_to_string(&memo) {
        if name.is_empty() {
            return None;
        }
        let shim = cache_dir().join(name);
        if shim.is_file() {
            return Some(shim);
        }
    }
    let shim = generic_shim::shim_for(bc);
    let name = shim
        .as_ref()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = temp_beside(&memo, "shim");
    std::fs::write(&tmp, name)
        .and_then(|()| std::fs::rename(&tmp, &memo))
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", memo.display()));
    shim
}

/// OpenCL sources clang-22 cannot build for its targets: none at present (`emu_mode.cl` was
/// one until its `s_setreg` operands were made uniform). Library calls whose generic-pointer
/// mangling differs between clang-22 and the 5.2 libraries are bridged by `generic_shim`.
pub const CLANG22_UNLINKABLE: &[&str] = &[];

/// The processor part of a target ID (`gfx90a:xnack-` → `gfx90a`).
pub fn processor(target: &str) -> &str {
    target.split(':').next().unwrap_or(target)
}

/// Code object versions the corpus builds for `target`: clang-15 refuses V2 for gfx90a, gfx940
/// and gfx10+; clang-22's new processors are built as V5 and V6 (its default).
pub fn code_object_versions(target: &str) -> &'static [u32] {
    if is_clang22_target(target) {
        return &[5, 6];
    }
    match processor(target) {
        "gfx803" | "gfx900" | "gfx906" => &[2, 3, 4, 5],
        _ => &[3, 4, 5],
    }
}

/// A code object version whose objects repeat another version's machine code: `(duplicate,
/// sibling)`. clang-15's V3 and V4 of one source and target share one optimised module and,
/// but for three sources, have the same `.text`; their metadata differ only in
/// `amdhsa.version` and `amdhsa.target`, and the ELF header in `EI_ABIVERSION` and `e_flags`'s
/// feature encoding. clang-22's V6 of a non-generic processor is its V5 but for
/// `EI_ABIVERSION` (docs/notes/ci-time.md, "Round 14"). `None`: every version differs.
pub fn duplicate_version(target: &str) -> Option<(u32, u32)> {
    let versions = code_object_versions(target);
    if is_clang22_target(target) {
        Some((6, 5))
    } else if versions.contains(&3) && versions.contains(&4) {
        Some((3, 4))
    } else {
        None
    }
}

/// The sources the default corpus builds in a [`duplicate_version`] too (every source is built
/// in every other version). Chosen so that per target the kept duplicates show every metadata
/// key and enumerated value (`.value_kind`, `.address_space`, `.access`, …) the sibling
/// version's objects of all sources have (the corpus test `inspect_agrees_with_llvm_readelf_
/// on_the_whole_corpus` asserts it), plus the sources whose V3 code differs from V4 (they
/// enable the queue pointer: `emu_faults`, `images`, `runtime_kernels`), plus what other tests
/// compile in a duplicate version (`co_globals`, `scale_kd`, `vector_add` V3, `emu_cdna3` V6),
/// which would otherwise be compiled by those tests on a cold cache.
pub const DUPLICATE_VERSION_SOURCES: &[&str] = &[
    "asm/endpgm_memo.s",
    "asm/scale_kd.s",
    "cl/co_globals.cl",
    "cl/emu_atomics.cl",
    "cl/emu_cdna3.cl",
    "cl/emu_faults.cl",
    "cl/emu_mimg12.cl",
    "cl/emu_wave.cl",
    "cl/group_dynamic.cl",
    "cl/images.cl",
    "cl/lookback_scan.cl",
    "cl/runtime_kernels.cl",
    "cl/vector_add.cl",
];

/// Whether `HSAEMU_FULL_CORPUS=1` asks for the whole corpus: every source in every code object
/// version, duplicates included (see [`corpus_has`]).
pub fn full_corpus() -> bool {
    std::env::var_os("HSAEMU_FULL_CORPUS").is_some_and(|v| v == "1")
}

/// Whether the corpus holds source `rel` for `target` in code object version `version`: every
/// supported source in every version of [`code_object_versions`], except that a
/// [`duplicate_version`] is built only for [`DUPLICATE_VERSION_SOURCES`] unless `full`.
pub fn corpus_has(rel: &str, target: &str, version: u32, full: bool) -> bool {
    if !code_object_versions(target).contains(&version) || !source_supports(rel, target) {
        return false;
    }
    full || duplicate_version(target).is_none_or(|(dup, _)| dup != version)
        || DUPLICATE_VERSION_SOURCES.contains(&rel)
}

/// The workspace root (the directory holding the top `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| here.to_path_buf())
}

/// `tests/kernels/` in the workspace.
pub fn kernels_dir() -> PathBuf {
    workspace_root().join("tests").join("kernels")
}

/// The cache directory for compiled kernels: `$CARGO_TARGET_DIR/kernels` or `target/kernels`.
pub fn cache_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let dir = target.join("kernels");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("cannot create kernel cache {}: {e}", dir.display());
    }
    dir
}

/// The path of a tool where [`tool`] looks for it, or `None` when it is missing.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    [
        "/usr/bin",
        "/usr/lib/llvm-15/bin",
        "/usr/lib/llvm-22/bin",
        "/usr/local/bin",
    ]
    .into_iter()
    .map(|dir| Path::new(dir).join(name))
    .find(|p| p.is_file())
}

/// The LLVM 22 tools [`link_generic_shim`] runs (besides clang-22 itself), for callers that
/// must report a missing one as an error rather than a panic (`hsaemu bench`).
pub const GENERIC_SHIM_TOOLS: [&str; 4] =
    ["llvm-nm-22", "llvm-dis-22", "llvm-cxxfilt-22", "llvm-as-22"];

/// The path of a required tool; panics with the set-up command when it is missing.
pub fn tool(name: &str) -> PathBuf {
    if let Some(p) = find_tool(name) {
        return p;
    }
    panic!(
        "required tool `{name}` is missing: run `scripts/setup.sh` (installs clang-15, lld-15, llvm-15, clang-22, lld-22, llvm-22, hipcc, rocm-device-libs, libhsa-runtime-dev, librocrand1, librocrand-dev, librocsparse-dev)"
    );
}

/// Runs `program args…`, returning stdout; panics with stderr on failure.
pub fn run_tool(program: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    if !out.status.success() {
        panic!(
            "{} {} failed ({}):\n{}",
            program.display(),
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out.stdout
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            ':' => '_',
            '+' => 'p',
            '-' => 'm',
            c if c.is_ascii_alphanumeric() || c == '_' || c == '.' => c,
            _ => '_',
        })
        .collect()
}

/// Creates `out` with `make` unless it exists, one build per output at a time within this
/// process: a thread wanting an output another thread is building waits for it, while builds
/// of other outputs go on in parallel (on a cold cache every core compiles). `make` must
/// create `out` whole or not at all (write a [`temp_beside`] file, then rename it); when it
/// panics, the waiting threads try again themselves.
pub fn build_once(out: &Path, make: impl FnOnce()) {
    static BUILDING: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
    static BUILT: Condvar = Condvar::new();
    /// Takes the output off the list when the build ends, even by a panic.
    struct Claim<'a>(&'a Path);
    impl Drop for Claim<'_> {
        fn drop(&mut self) {
            let mut building = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
            building.remove(self.0);
            BUILT.notify_all();
        }
    }
    if out.is_file() {
        return;
    }
    let mut building = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    while building.contains(out) {
        building = BUILT.wait(building).unwrap_or_else(|e| e.into_inner());
    }
    if out.is_file() {
        return;
    }
    building.insert(out.to_path_buf());
    drop(building);
    let _claim = Claim(out);
    make();
}

/// A temporary name beside `out`, unique across processes and across the threads of one test
/// process (parallel corpus walkers may build the same cache entry at once), renamed into place
/// when complete. It ends in `.ext`, for tools that look at the extension or name the file in
/// their messages.
pub fn temp_beside(out: &Path, ext: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    out.with_extension(format!("tmp{}-{n}.{ext}", std::process::id()))
}

/// The cache path of what `program args… source` makes: `{stem}-{hash}.{ext}`, the hash taken
/// over the program's name, the arguments and the source text.
fn cache_path(program: &str, source: &Path, args: &[String], stem: &str, ext: &str) -> PathBuf {
    let text = std::fs::read(source)
        .unwrap_or_else(|e| panic!("cannot read kernel source {}: {e}", source.display()));
    let mut h = Sha256::new();
    h.update(program.as_bytes());
    for a in args {
        h.update(a.as_bytes());
        h.update([0]);
    }
    h.update(&text);
    let digest = h.finalize();
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    cache_dir().join(format!("{stem}-{hex}.{ext}"))
}

/// Runs `program args…`, panicking with its message on failure.
fn run_strings(program: &Path, args: &[String]) {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    run_tool(program, &refs);
}

/// Compiles with `program`, caching by (source text, arguments). `args` must not name the
/// output; `-o OUTPUT` is appended. Returns the cached output path.
fn cached_compile(program: &str, source: &Path, args: &[String], stem: &str, ext: &str) -> PathBuf {
    cached_compile_with(program, source, args, stem, ext, Vec::new)
}

/// [`cached_compile`], the command given `unkeyed()`'s options after `args` when it runs:
/// options that do not change the output (a precompiled header's), so not in the key.
fn cached_compile_with(
    program: &str,
    source: &Path,
    args: &[String],
    stem: &str,
    ext: &str,
    unkeyed: impl FnOnce() -> Vec<String>,
) -> PathBuf {
    let out = cache_path(program, source, args, stem, ext);
    build_once(&out, || {
        let tmp = temp_beside(&out, ext);
        let mut full: Vec<String> = args.to_vec();
        full.extend(unkeyed());
        full.push(source.display().to_string());
        full.push("-o".into());
        full.push(tmp.display().to_string());
        run_strings(&tool(program), &full);
        std::fs::rename(&tmp, &out)
            .unwrap_or_else(|e| panic!("cannot move {} into the cache: {e}", tmp.display()));
    });
    out
}

/// The standard output of `program args… input`, cached under the kernel cache by the
/// program's name, the arguments, `input`'s path (tools such as llvm-objdump print it) and its
/// bytes: an oracle run over a cached code object (llvm-objdump's listing) is made once, not on
/// every test run. Panics with the tool's message on failure.
pub fn cached_tool_output(program: &str, args: &[&str], input: &Path) -> Vec<u8> {
    let mut key: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    key.push(input.display().to_string());
    let out = cache_path(program, input, &key, program, "out");
    build_once(&out, || {
        let text = run_tool(
            &tool(program),
            &key.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        let tmp = temp_beside(&out, "out");
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, &out))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
    });
    std::fs::read(&out).unwrap_or_else(|e| panic!("cannot read {}: {e}", out.display()))
}

/// The `ld.lld` arguments clang's driver uses to link `obj` into the code object `out` for
/// `target`, or `None` where this crate does not know them (then the driver links). The
/// driver runs `ld.lld` beside itself; run by us it costs ~0.02 CPU-s less per code object
/// (the driver's spawn copies a process that has the device libraries loaded). The test
/// `link_step_is_the_drivers` (tests/it/testkit/lib.rs) compares these with `clang -###`.
/// `extra` are the compile's options past the usual ones: only those in [`LINK_NEUTRAL`], `-D`
/// and `-mwavefrontsize64` are known.
fn link_args(
    program: &str,
    target: &str,
    extra: &[&str],
    obj: &str,
    out: &str,
) -> Option<Vec<String>> {
    let wave64 = extra.contains(&"-mwavefrontsize64");
    if !extra
        .iter()
        .all(|e| *e == "-mwavefrontsize64" || is_define(e) || LINK_NEUTRAL.contains(e))
    {
        return None;
    }
    let (obj, out) = (obj.to_string(), out.to_string());
    match program {
        "clang-15" => Some(vec![obj, "-shared".into(), "-o".into(), out]),
        "clang-22" if !target.contains(':') => {
            let mut a = vec![
                "--no-undefined".into(),
                "-shared".into(),
                format!("-plugin-opt=mcpu={target}"),
                obj,
            ];
            if wave64 {
                a.push("-plugin-opt=-mattr=+wavefrontsize64".into());
            }
            a.extend(["-o".into(), out]);
            Some(a)
        }
        _ => None,
    }
}

/// Compile options the tests pass that leave the driver's link command as it is without them
/// (`link_step_is_the_drivers`): the mode tests' floating-point flags and flat scratch.
const LINK_NEUTRAL: &[&str] = &[
    "-cl-denorms-are-zero",
    "-cl-fp32-correctly-rounded-divide-sqrt",
    "-fdenormal-fp-math=ieee",
    "-Xclang",
    "-target-feature",
    "+enable-flat-scratch",
];

/// A preprocessor definition (`-DNAME`, `-DNAME=VALUE`): the front end's alone, so it changes
/// neither the driver's link nor code generation from a module the front end made with it.
fn is_define(option: &str) -> bool {
    option.len() > 2 && option.starts_with("-D")
}

/// The `ld.lld` beside `program` (the one its driver runs).
fn linker_of(program: &str) -> PathBuf {
    let clang = tool(program);
    let real = std::fs::canonicalize(&clang)
        .unwrap_or_else(|e| panic!("cannot resolve {}: {e}", clang.display()));
    real.with_file_name("ld.lld")
}

/// An optimised module in the cache, made when first asked for.
type LazyBitcode<'a> = Box<dyn Fn() -> PathBuf + 'a>;

/// The code object `program args… source -o OUT` makes for `target`, cached under that
/// command's key ([`cache_path`]), but made in two steps: an object (`-c`), then `ld.lld` run
/// directly with the driver's arguments ([`link_args`]). With `from_bitcode` = `(bc, codegen)`
/// the object is instead code generation alone (`-Xclang -disable-llvm-passes`) from `bc()`
/// (called only when the code object is not cached yet), an
/// optimised module the same front end and optimiser made (`-c -emit-llvm`): the caller
/// vouches that it is the module `args` would have optimised in memory. Either way the code
/// object is byte for byte the driver's (docs/notes/ci-time.md, "Round 13").
fn cached_code_object(
    program: &str,
    target: &str,
    source: &Path,
    args: &[String],
    stem: &str,
    extra: &[&str],
    from_bitcode: Option<(LazyBitcode<'_>, Vec<String>)>,
) -> PathBuf {
    let out = cache_path(program, source, args, stem, "hsaco");
    if link_args(program, target, extra, "", "").is_none() {
        return cached_compile(program, source, args, stem, "hsaco");
    }
    build_once(&out, || {
        let obj = temp_beside(&out, "o");
        let tmp = temp_beside(&out, "hsaco");
        let mut compile: Vec<String> = match from_bitcode {
            Some((bc, codegen)) => {
                let mut c = codegen;
                c.extend(["-Xclang".into(), "-disable-llvm-passes".into()]);
                c.push(bc().display().to_string());
                c
            }
            None => {
                let mut c = args.to_vec();
                c.push(source.display().to_string());
                c
            }
        };
        compile.extend(["-c".into(), "-o".into(), obj.display().to_string()]);
        run_strings(&tool(program), &compile);
        let (o, t) = (obj.display().to_string(), tmp.display().to_string());
        let link = link_args(program, target, extra, &o, &t).unwrap_or_default();
        run_strings(&linker_of(program), &link);
        // The object is a by-product; a leftover one (a failed link) is only litter.
        let _ = std::fs::remove_file(&obj);
        std::fs::rename(&tmp, &out)
            .unwrap_or_else(|e| panic!("cannot move {} into the cache: {e}", tmp.display()));
    });
    out
}

/// The code-generation-only command for an optimised module: target, processor, level and
/// code object version, as the driver gives them to its `-cc1` (the device libraries are
/// already in the module: `-nogpulib`).
fn codegen_args(target: &str, cov: u32) -> Vec<String> {
    vec![
        "-target".into(),
        "amdgcn-amd-amdhsa".into(),
        format!("-mcpu={target}"),
        "-O2".into(),
        "-nogpulib".into(),
        format!("-mcode-object-version={cov}"),
    ]
}

/// A code object still to be made by code generation alone from an optimised module.
struct Codegen {
    program: &'static str,
    target: String,
    codegen: Vec<String>,
    bc: PathBuf,
    out: PathBuf,
}

/// Makes the OpenCL C code objects of `jobs` (source, target, version) that are code
/// generation alone from an optimised module (`cached_code_object`'s `from_bitcode`) with one
/// `clang -cc1` process per batch of the same compiler and code generation options, instead of
/// one per code object: the process's start (loading and relocating libLLVM) is most of such a
/// compile's cost (docs/notes/ci-time.md, "Round 46"). The driver runs several inputs as one
/// `-cc1` process each, so the batch runs the `-cc1` command the driver prints (`-###`) for
/// one input with all of them. A batch that fails is left to the single compiles (which name
/// their source); so is every other code object. [`corpus_of`] runs it first.
pub fn codegen_in_batches(jobs: &[(String, String, u32)]) {
    let pending: Vec<Option<Codegen>> = parallel_map(jobs, |(src, target, cov)| {
        if !src.ends_with(".cl") {
            return None;
        }
        let plan = cl_plan(src, target, *cov, &[]);
        let out = cache_path(plan.compiler, &plan.source, &plan.args, &plan.stem, "hsaco");
        let (bc, codegen) = plan.from_bitcode?;
        if out.is_file() || link_args(plan.compiler, target, &[], "", "").is_none() {
            return None;
        }
        Some(Codegen {
            program: plan.compiler,
            target: target.clone(),
            codegen,
            bc: bc(),
            out,
        })
    });
    let mut groups: Vec<Vec<Codegen>> = Vec::new();
    for c in pending.into_iter().flatten() {
        match groups
            .iter_mut()
            .find(|g| g[0].program == c.program && g[0].codegen == c.codegen)
        {
            Some(g) => g.push(c),
            None => groups.push(vec![c]),
        }
    }
    // Batches of at most 32 keep both cores busy to the end.
    let batches: Vec<&[Codegen]> = groups.iter().flat_map(|g| g.chunks(32)).collect();
    parallel_map(&batches, |batch| codegen_batch(batch));
}

/// One `-cc1` process for `batch` (same program and options), then `ld.lld` for each object.
/// Returns whether the compile ran; a failure leaves the outputs to the single compiles.
fn codegen_batch(batch: &[Codegen]) -> bool {
    let first = &batch[0];
    let dir = temp_beside(&cache_dir().join("codegen-batch"), "d");
    if std::fs::create_dir_all(&dir).is_err() {
        return false;
    }
    // Inputs named by their place in the batch: clang names each object after its input
    // (`3.bc` → `3.o`), and several batches may read one module (clang-15's V2-V4).
    let inputs: Vec<PathBuf> = (0..batch.len())
        .map(|i| dir.join(format!("{i}.bc")))
        .collect();
    let linked = batch.iter().zip(&inputs).all(|(c, input)| {
        std::fs::hard_link(&c.bc, input).is_ok() || std::fs::copy(&c.bc, input).is_ok()
    });
    let ran = linked
        && cc1_command(first, &inputs[0]).is_some_and(|(clang, mut cc1)| {
            cc1.extend(inputs.iter().map(|p| p.display().to_string()));
            Command::new(clang)
                .args(&cc1)
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if ran {
        let linker = linker_of(first.program);
        for (c, input) in batch.iter().zip(&inputs) {
            let obj = input.with_extension("o");
            let tmp = temp_beside(&c.out, "hsaco");
            let (o, t) = (obj.display().to_string(), tmp.display().to_string());
            let link = link_args(c.program, &c.target, &[], &o, &t).unwrap_or_default();
            let made = Command::new(&linker)
                .args(&link)
                .output()
                .is_ok_and(|o| o.status.success());
            if !made || std::fs::rename(&tmp, &c.out).is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    ran
}

/// The `-cc1` command (program, arguments) the driver runs for `c`'s code generation from
/// `input`, without its `-o` and input: `None` unless `-###` shows exactly one job ending in
/// `input` with an `-o`.
fn cc1_command(c: &Codegen, input: &Path) -> Option<(String, Vec<String>)> {
    let mut args = c.codegen.clone();
    args.extend(["-Xclang".into(), "-disable-llvm-passes".into()]);
    args.push(input.display().to_string());
    args.extend(["-c".into(), "-o".into(), "OUT.o".into()]);
    let out = Command::new(tool(c.program))
        .arg("-###")
        .args(&args)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    // Each job is a line of arguments in double quotes.
    let jobs: Vec<&str> = text.lines().filter(|l| l.starts_with(" \"")).collect();
    let [job] = jobs[..] else { return None };
    if !out.status.success() || job.contains('\\') {
        return None;
    }
    let mut words: Vec<String> = job
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    let o = words.iter().position(|w| w == "-o")?;
    if words.get(1).map(String::as_str) != Some("-cc1")
        || words.get(o + 1).map(String::as_str) != Some("OUT.o")
        || words.last() != Some(&input.display().to_string())
    {
        return None;
    }
    words.pop();
    words.drain(o..o + 2);
    let program = words.remove(0);
    Some((program, words))
}

fn source_path(rel: &str) -> PathBuf {
    let p = kernels_dir().join(rel);
    assert!(p.is_file(), "kernel source {} does not exist", p.display());
    p
}

fn stem_of(rel: &str) -> String {
    Path::new(rel)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kernel".into())
}

/// Compiles an OpenCL C source (`rel` is relative to `tests/kernels/`) into a code object for
/// `target` with code object version `cov`, linking the device libraries (clang-15 through
/// `--rocm-device-lib-path`; for [`CLANG22_TARGETS`], clang-22 with [`clang22_device_lib_args`]).
pub fn compile_cl(rel: &str, target: &str, cov: u32) -> PathBuf {
    compile_cl_with(rel, target, cov, &[])
}

/// [`compile_cl`] with extra clang options (e.g. `-cl-denorms-are-zero`); they take part in
/// the cache key like every other argument.
pub fn compile_cl_with(rel: &str, target: &str, cov: u32, extra: &[&str]) -> PathBuf {
    let plan = cl_plan(rel, target, cov, extra);
    cached_code_object(
        plan.compiler,
        target,
        &plan.source,
        &plan.args,
        &plan.stem,
        extra,
        plan.from_bitcode,
    )
}

/// How [`compile_cl_with`] makes a code object: the driver command its cache key is made of
/// (compiler, source, arguments, stem) and, when it is code generation alone, the optimised
/// module and the code generation options.
struct ClPlan<'a> {
    compiler: &'static str,
    source: PathBuf,
    args: Vec<String>,
    stem: String,
    from_bitcode: Option<(LazyBitcode<'a>, Vec<String>)>,
}

/// [`compile_cl_with`]'s plan for one code object (a clang-22 target's probe is made here).
fn cl_plan<'a>(rel: &str, target: &'a str, cov: u32, extra: &[&str]) -> ClPlan<'a> {
    let mut args: Vec<String> = vec![
        "-x".into(),
        "cl".into(),
        "-cl-std=CL2.0".into(),
        "-target".into(),
        "amdgcn-amd-amdhsa".into(),
        format!("-mcpu={target}"),
        "-O2".into(),
        format!("-mcode-object-version={cov}"),
    ];
    let clang22 = is_clang22_target(target);
    if clang22 {
        // GFX11/GFX12 in wave64: the device libraries' wave-size switch follows.
        let wave64 = extra.contains(&"-mwavefrontsize64");
        args.extend(clang22_device_lib_args(DEVICE_LIB_PATH, target, wave64));
    } else {
        args.push(format!("--rocm-device-lib-path={DEVICE_LIB_PATH}"));
    }
    args.extend(extra.iter().map(|a| a.to_string()));
    // Options that change the code (not just the cache key) show in the name.
    let mut variant = String::new();
    if extra.contains(&"-mwavefrontsize64") {
        variant.push_str("-w64");
    }
    if extra.contains(&"+enable-flat-scratch") {
        variant.push_str("-fs");
    }
    let stem_for = |cov: u32| format!("{}-{}{variant}-v{cov}", stem_of(rel), sanitize(target));
    let stem = stem_for(cov);
    let source = source_path(rel);
    let mut from_bitcode: Option<(LazyBitcode<'_>, Vec<String>)> = None;
    if clang22 {
        // A first pass to bitcode shows which library calls clang-22 mangles differently from
        // the 5.2 libraries; the shim (linked first) bridges them. The code object version does
        // not change which functions a kernel calls, so V5's probe serves V6 too (one clang run
        // fewer for each of ~150 V6 outputs; docs/notes/ci-time.md, "Round 5").
        let mut probe: Vec<String> = args
            .iter()
            .map(|a| match a.strip_prefix("-mcode-object-version=") {
                Some(_) => "-mcode-object-version=5".to_string(),
                None => a.clone(),
            })
            .collect();
        probe.extend(["-c".into(), "-emit-llvm".into()]);
        let bc = cached_compile("clang-22", &source, &probe, &stem_for(5), "bc");
        let shim = remembered_shim_for(&bc);
        // Without a shim, V5's command is the probe's without `-c -emit-llvm`: the probe is
        // its optimised module, and only code generation is left (wave64 included: the
        // module's functions carry it as a target feature; a `-D` is the probe's too). V6 is
        // left to the driver: generated from V5's module with its version flag set to 600, a
        // gfx942 object's instructions were scheduled differently from the driver's V6
        // (docs/notes/ci-time.md, "Stop 32, coordinator").
        let probe_suffices = extra
            .iter()
            .all(|e| *e == "-mwavefrontsize64" || is_define(e));
        if shim.is_none() && cov == 5 && probe_suffices {
            from_bitcode = Some((Box::new(move || bc.clone()), codegen_args(target, cov)));
        }
        link_shim(&mut args, shim);
    } else if cov < 5 && extra.is_empty() {
        // clang-15's front end and optimiser see the code object version only through the
        // ABI library it links (`oclc_abi_version_400` for V2, V3 and V4; no predefined macro
        // differs), so V2-V4 share one optimised module and differ only in code generation.
        let opt: Vec<String> = args
            .iter()
            .map(|a| match a.strip_prefix("-mcode-object-version=") {
                Some(_) => "-mcode-object-version=4".to_string(),
                None => a.clone(),
            })
            .chain(["-c".into(), "-emit-llvm".into()])
            .collect();
        let source = source.clone();
        let stem4 = stem_for(4);
        let bc = move || cached_compile("clang-15", &source, &opt, &stem4, "bc");
        from_bitcode = Some((Box::new(bc), codegen_args(target, cov)));
    }
    let compiler = if clang22 { "clang-22" } else { "clang-15" };
    ClPlan {
        compiler,
        source,
        args,
        stem,
        from_bitcode,
    }
}

/// Assembles and links an assembly source (`rel` under `tests/kernels/`) into a code object.
pub fn compile_asm(rel: &str, target: &str, cov: u32) -> PathBuf {
    let args: Vec<String> = vec![
        "-x".into(),
        "assembler".into(),
        "-target".into(),
        "amdgcn-amd-amdhsa".into(),
        format!("-mcpu={target}"),
        format!("-mcode-object-version={cov}"),
    ];
    let stem = format!("{}-{}-v{cov}", stem_of(rel), sanitize(target));
    cached_code_object(
        "clang-15",
        target,
        &source_path(rel),
        &args,
        &stem,
        &[],
        None,
    )
}

/// Compiles the device side of a HIP source into an offload bundle (`hipcc --genco`) holding one
/// code object per target in `targets`.
pub fn compile_hip_bundle(rel: &str, targets: &[&str]) -> PathBuf {
    let mut args: Vec<String> = vec!["--genco".into(), "-O2".into()];
    args.extend(targets.iter().map(|t| format!("--offload-arch={t}")));
    let tag: Vec<String> = targets.iter().map(|t| sanitize(t)).collect();
    let stem = format!("{}-{}", stem_of(rel), tag.join("+"));
    cached_hip_compile(rel, &args, targets, false, &stem, "hipfb")
}

/// Compiles a HIP source into a host executable with a fat binary for `targets`.
pub fn compile_hip_exe(rel: &str, targets: &[&str]) -> PathBuf {
    let mut args: Vec<String> = vec!["-O2".into()];
    args.extend(targets.iter().map(|t| format!("--offload-arch={t}")));
    let tag: Vec<String> = targets.iter().map(|t| sanitize(t)).collect();
    let stem = format!("{}-{}", stem_of(rel), tag.join("+"));
    cached_hip_compile(rel, &args, targets, true, &stem, "exe")
}

/// [`cached_compile`] of `hipcc args… source`, each clang job (the host's when `host`, one per
/// target) started from a precompiled `hip/hip_runtime.h` ([`hip_runtime_pch`]), the first
/// include of every source in `tests/kernels/hip` (parsing it is most of a job). The output is
/// byte for byte what `hipcc args… source` makes, so the cache key is that command's
/// (docs/notes/ci-time.md, "Round 34").
fn cached_hip_compile(
    rel: &str,
    args: &[String],
    targets: &[&str],
    host: bool,
    stem: &str,
    ext: &str,
) -> PathBuf {
    let pch_args = || {
        let sides = host
            .then_some("host")
            .into_iter()
            .chain(targets.iter().copied());
        sides
            .flat_map(|side| {
                let header = hip_runtime_pch(side);
                [
                    format!("-Xarch_{side}"),
                    format!("--include={}", header.display()),
                ]
            })
            .collect()
    };
    cached_compile_with("hipcc", &source_path(rel), args, stem, ext, pch_args)
}

/// A header `hsaemu_hip.h` holding `#include <hip/hip_runtime.h>`, precompiled beside it for one
/// side of a hipcc build (`host`, or a target ID) with the corpus's `-O2`: given as `--include`,
/// clang's driver uses the `.pch` instead, and the source's own include of `hip_runtime.h`
/// then does nothing (its include guard). Its directory is keyed by the side, the cache's
/// absolute path (a PCH names the header it was made from) and hipcc's and `hip_runtime.h`'s
/// modification times (clang rejects a PCH whose headers changed: a ROCm upgrade makes new
/// ones). Returns the header's path.
fn hip_runtime_pch(side: &str) -> PathBuf {
    let mtime = |p: &str| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .map(|t| format!("{t:?}"))
            .unwrap_or_default()
    };
    let cache = cache_dir();
    let key = format!(
        "hsaemu-corpus-pch v1\n{side}\n{}\n{}\n{}\n",
        cache.display(),
        mtime("/usr/bin/hipcc"),
        mtime("/usr/include/hip/hip_runtime.h")
    );
    let hash: String = Sha256::digest(key.as_bytes())[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let dir = cache
        .join("hip-pch")
        .join(format!("{}-{hash}", sanitize(side)));
    let header = dir.join("hsaemu_hip.h");
    let pch = dir.join("hsaemu_hip.h.pch");
    build_once(&pch, || {
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        if !header.is_file() {
            // Linked, not renamed, into place: another process's PCH may already name this
            // header, and a replaced one (a new modification time) would invalidate it.
            let tmp = temp_beside(&header, "h");
            std::fs::write(&tmp, "#include <hip/hip_runtime.h>\n")
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", tmp.display()));
            match std::fs::hard_link(&tmp, &header) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => panic!("cannot write {}: {e}", header.display()),
            }
            let _ = std::fs::remove_file(&tmp);
        }
        // hipcc asks rocm_agent_enumerator for a GPU when given no --offload-arch; the host
        // side's PCH does not depend on which.
        let only = match side {
            "host" => [
                "--cuda-host-only".to_string(),
                "--offload-arch=gfx90a".into(),
            ],
            t => [
                "--cuda-device-only".to_string(),
                format!("--offload-arch={t}"),
            ],
        };
        let tmp = temp_beside(&pch, "pch");
        let mut args: Vec<String> = vec!["-O2".into(), "-x".into(), "hip".into()];
        args.extend(only);
        args.extend(["-S".into(), "-Xclang".into(), "-emit-pch".into()]);
        args.push(header.display().to_string());
        args.extend(["-o".into(), tmp.display().to_string()]);
        run_strings(&tool("hipcc"), &args);
        std::fs::rename(&tmp, &pch)
            .unwrap_or_else(|e| panic!("cannot move {} into the cache: {e}", tmp.display()));
    });
    header
}

/// The sources with extension `ext` in `tests/kernels/<dir>/`, relative to `tests/kernels/`, sorted.
pub fn sources(dir: &str, ext: &str) -> Vec<String> {
    let d = kernels_dir().join(dir);
    let mut v: Vec<String> = std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", d.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .filter_map(|p| {
            p.file_name()
                .map(|n| format!("{dir}/{}", n.to_string_lossy()))
        })
        .collect();
    v.sort();
    v
}

/// What a corpus file is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CorpusKind {
    /// A single code object for one target and code object version.
    CodeObject { target: String, version: u32 },
    /// An offload bundle (`hipcc --genco`).
    Bundle,
    /// A host executable or library whose `.hip_fatbin` holds bundles.
    HostBinary,
}

/// One file of the test corpus.
#[derive(Clone, Debug)]
pub struct CorpusEntry {
    pub path: PathBuf,
    pub kind: CorpusKind,
    /// The source it was compiled from, relative to `tests/kernels/` (empty for rocRAND).
    pub source: String,
}

/// Targets of the HIP part of the corpus (hipcc 5.2 accepts these).
pub const HIP_TARGETS: &[&str] = &[
    "gfx803",
    "gfx900",
    "gfx906",
    "gfx908",
    "gfx90a:xnack-",
    "gfx90a:xnack+",
    "gfx1030",
];

/// `f` over `items` on one thread per core, results in the order of `items` (the corpus's
/// compiles; the corpus walkers' batches of LLVM tool runs).
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every corpus item was compiled"))
        .collect()
}

/// The corpus: every OpenCL C and assembly source for every target and code object version
/// (a [`duplicate_version`] only for [`DUPLICATE_VERSION_SOURCES`], unless
/// `HSAEMU_FULL_CORPUS=1`: [`corpus_has`]), HIP bundles and host executables, and Debian's
/// prebuilt rocRAND library. Compiles what is not cached yet, in parallel.
pub fn corpus() -> Vec<CorpusEntry> {
    corpus_of(full_corpus())
}

/// [`corpus`], the whole of it when `full`.
pub fn corpus_of(full: bool) -> Vec<CorpusEntry> {
    let mut jobs: Vec<(String, String, u32)> = Vec::new();
    for src in sources("cl", "cl").into_iter().chain(sources("asm", "s")) {
        for t in TARGETS {
            for &v in code_object_versions(t) {
                if corpus_has(&src, t, v, full) {
                    jobs.push((src.clone(), t.to_string(), v));
                }
            }
        }
    }
    let hip: Vec<String> = sources("hip", "hip");
    codegen_in_batches(&jobs);
    let mut out: Vec<CorpusEntry> = parallel_map(&jobs, |(src, t, v)| {
        let path = if src.ends_with(".s") {
            compile_asm(src, t, *v)
        } else {
            compile_cl(src, t, *v)
        };
        CorpusEntry {
            path,
            kind: CorpusKind::CodeObject {
                target: t.clone(),
                version: *v,
            },
            source: src.clone(),
        }
    });
    // A HIP source with a `main` becomes a host executable with a fat binary; a device-only
    // source (kernels loaded through the module API or by the emulator's tests) a bundle.
    let hip_entries: Vec<CorpusEntry> = parallel_map(&hip, |src| {
        if has_main(src) {
            CorpusEntry {
                path: compile_hip_exe(src, HIP_TARGETS),
                kind: CorpusKind::HostBinary,
                source: src.clone(),
            }
        } else {
            CorpusEntry {
                path: compile_hip_bundle(src, HIP_TARGETS),
                kind: CorpusKind::Bundle,
                source: src.clone(),
            }
        }
    });
    out.extend(hip_entries);
    if let Some(first) = hip.iter().find(|s| has_main(s)) {
        out.push(CorpusEntry {
            path: compile_hip_bundle(first, HIP_TARGETS),
            kind: CorpusKind::Bundle,
            source: first.clone(),
        });
    }
    out.push(CorpusEntry {
        path: rocrand_library(),
        kind: CorpusKind::HostBinary,
        source: String::new(),
    });
    out
}

/// Whether a HIP source defines `main` (a host program) rather than only kernels.
fn has_main(rel: &str) -> bool {
    std::fs::read_to_string(kernels_dir().join(rel))
        .map(|t| t.contains("int main("))
        .unwrap_or(false)
}

/// Whether the corpus compiles source `rel` for `target`. A source may name the processors it
/// is written for in a first-line comment `// targets: gfx900 gfx906 …`. Without one, assembly
/// (target-specific) is for all GFX9 processors, and OpenCL C is for every target except that
/// a kernel calling matrix-core builtins (`__builtin_amdgcn_mfma…`) only compiles for the
/// processors that have MFMA (gfx908, gfx90a, gfx940).
pub fn source_supports(rel: &str, target: &str) -> bool {
    let text = std::fs::read_to_string(kernels_dir().join(rel)).unwrap_or_default();
    let proc_ = processor(target);
    if is_clang22_target(target) && CLANG22_UNLINKABLE.contains(&rel) {
        return false;
    }
    match text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("// targets:"))
    {
        Some(list) => list.split_whitespace().any(|t| t == proc_ || t == target),
        None if rel.ends_with(".s") => proc_.starts_with("gfx9") && !is_clang22_target(target),
        None if text.contains("__builtin_amdgcn_mfma") => {
            matches!(proc_, "gfx908" | "gfx90a" | "gfx940")
        }
        None => true,
    }
}

/// Debian's prebuilt rocSPARSE library; panics with the set-up command when it is missing.
pub fn rocsparse_library() -> PathBuf {
    let p = PathBuf::from(ROCSPARSE_LIBRARY);
    assert!(
        p.is_file(),
        "{ROCSPARSE_LIBRARY} is missing: run `scripts/setup.sh` (installs librocsparse-dev)"
    );
    p
}

/// Debian's prebuilt rocRAND library; panics with the set-up command when it is missing.
pub fn rocrand_library() -> PathBuf {
    let p = PathBuf::from(ROCRAND_LIBRARY);
    assert!(
        p.is_file(),
        "{ROCRAND_LIBRARY} is missing: run `scripts/setup.sh` (installs librocrand1)"
    );
    p
}

/// The crate's interior, for its own tests (tests/it/testkit/, in the integration binary: no
/// unit-test harness of its own, docs/notes/ci-time.md "Round 42"). Not part of the API.
#[doc(hidden)]
pub mod internals {
    use std::path::{Path, PathBuf};

    pub use crate::generic_shim::{parse_define, Def};

    /// Compile options that leave the driver's link command as it is.
    pub const LINK_NEUTRAL: &[&str] = super::LINK_NEUTRAL;

    /// The `ld.lld` arguments the crate links with, as [`super::link_args`].
    pub fn link_args(
        program: &str,
        target: &str,
        extra: &[&str],
        obj: &str,
        out: &str,
    ) -> Option<Vec<String>> {
        super::link_args(program, target, extra, obj, out)
    }

    /// The `ld.lld` beside `program`.
    pub fn linker_of(program: &str) -> PathBuf {
        super::linker_of(program)
    }

    /// A kernel source's path (asserted to exist).
    pub fn source_path(rel: &str) -> PathBuf {
        super::source_path(rel)
    }

    /// Runs `program args…`, panicking with its message on failure.
    pub fn run_strings(program: &Path, args: &[String]) {
        super::run_strings(program, args)
    }

    /// The code object one compiler driver run makes of `rel` (`tests/kernels/`) for `target`,
    /// version `cov` and options `extra`, written to `out`: what the stepwise and batched
    /// compiles must equal byte for byte. The arguments are the cache key's.
    pub fn driver_code_object(rel: &str, target: &str, cov: u32, extra: &[&str], out: &Path) {
        let (program, mut args) = if rel.ends_with(".s") {
            let args = vec![
                "-x".to_string(),
                "assembler".into(),
                "-target".into(),
                "amdgcn-amd-amdhsa".into(),
                format!("-mcpu={target}"),
                format!("-mcode-object-version={cov}"),
            ];
            ("clang-15", args)
        } else {
            let mut args: Vec<String> =
                ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
            args.extend([
                format!("-mcpu={target}"),
                "-O2".into(),
                format!("-mcode-object-version={cov}"),
            ]);
            let program = if super::is_clang22_target(target) {
                let wave64 = extra.contains(&"-mwavefrontsize64");
                args.extend(super::clang22_device_lib_args(
                    super::DEVICE_LIB_PATH,
                    target,
                    wave64,
                ));
                "clang-22"
            } else {
                args.push(format!("--rocm-device-lib-path={}", super::DEVICE_LIB_PATH));
                "clang-15"
            };
            args.extend(extra.iter().map(|e| e.to_string()));
            (program, args)
        };
        args.extend([
            super::source_path(rel).display().to_string(),
            "-o".into(),
            out.display().to_string(),
        ]);
        super::run_strings(&super::tool(program), &args);
    }
}
