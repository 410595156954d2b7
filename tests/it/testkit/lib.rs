//! The compile steps against the drivers' own runs (crates/testkit/src/lib.rs's tests).

use hsaemu_testkit::internals::{
    driver_code_object, link_args, linker_of, run_strings, source_path, LINK_NEUTRAL,
};
use hsaemu_testkit::*;
use std::path::Path;
use std::process::Command;

/// The driver's link command for `program args… source -o OUT`, as `clang -###` prints it:
/// the linker's path and its arguments.
fn drivers_link(program: &str, args: &[String], source: &Path) -> Vec<String> {
    let mut full: Vec<String> = vec!["-###".into()];
    full.extend(args.iter().cloned());
    full.push(source.display().to_string());
    full.extend(["-o".into(), "OUT.hsaco".into()]);
    let out = Command::new(tool(program))
        .args(&full)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    let last = text.lines().last().unwrap_or_default();
    // Each argument is printed in double quotes.
    last.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The code objects made in steps (object, then `ld.lld`; code generation from a shared
/// optimised module) are byte for byte what one driver run makes, for each way
/// [`compile_cl`] and [`compile_asm`] take: clang-15 V2-V4 from the V4 module (`math.cl`
/// calls the device libraries, whose ABI library differs between V4 and V5), clang-15 V5
/// and clang-22 V5 from its probe, clang-22 V6, assembly.
#[test]
fn stepwise_code_objects_are_the_drivers() {
    let dir = std::env::temp_dir().join(format!("hsaemu-testkit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a temporary directory");
    const FLAT_SCRATCH: &[&str] = &[
        "-Xclang",
        "-target-feature",
        "-Xclang",
        "+enable-flat-scratch",
    ];
    const W64: &[&str] = &["-mwavefrontsize64"];
    let cases: [(&str, &str, u32, &[&str]); 11] = [
        ("cl/math.cl", "gfx906", 2, &[]),
        ("cl/math.cl", "gfx90a:xnack-", 3, &[]),
        ("cl/math.cl", "gfx1030", 4, &[]),
        ("cl/math.cl", "gfx1030", 5, &[]),
        ("cl/control.cl", "gfx1100", 5, &[]),
        ("cl/control.cl", "gfx942", 6, &[]),
        ("asm/scale_kd.s", "gfx90a:xnack-", 4, &[]),
        // Extra options: the driver's link takes the wave size on clang-22.
        ("cl/control.cl", "gfx1100", 5, W64),
        (
            "cl/emu_wmma.cl",
            "gfx1100",
            5,
            &["-mwavefrontsize64", "-DWAVE64"],
        ),
        ("cl/math.cl", "gfx1030", 5, FLAT_SCRATCH),
        ("cl/math.cl", "gfx90a", 5, &["-cl-denorms-are-zero"]),
    ];
    for (rel, target, cov, extra) in cases {
        let cached = if rel.ends_with(".s") {
            compile_asm(rel, target, cov)
        } else {
            compile_cl_with(rel, target, cov, extra)
        };
        // The driver's own run, with the arguments the cache key was made of.
        let out = dir.join("driver.hsaco");
        driver_code_object(rel, target, cov, extra, &out);
        let ours = std::fs::read(&cached).expect("read the cached code object");
        let drivers = std::fs::read(&out).expect("read the driver's code object");
        assert!(
            ours == drivers,
            "{rel} {target} V{cov} {extra:?}: {} differs from the driver's",
            cached.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A HIP build from the precompiled `hip_runtime.h` (host and device side, a target ID
/// with a feature) is byte for byte hipcc's without it.
#[test]
fn hip_builds_from_the_pch_are_hipccs() {
    let targets = ["gfx90a:xnack-"];
    let cached = compile_hip_exe("hip/vector_add.hip", &targets);
    let dir = std::env::temp_dir().join(format!("hsaemu-testkit-hip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a temporary directory");
    let out = dir.join("vector_add.exe");
    let args: Vec<String> = [
        "-O2".to_string(),
        format!("--offload-arch={}", targets[0]),
        source_path("hip/vector_add.hip").display().to_string(),
        "-o".into(),
        out.display().to_string(),
    ]
    .into();
    run_strings(&tool("hipcc"), &args);
    let same = std::fs::read(&cached).expect("read the cached build")
        == std::fs::read(&out).expect("read hipcc's build");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(same, "{} differs from hipcc's own build", cached.display());
}

/// A cached tool output is the tool's own, for each set of arguments and each input.
#[test]
fn cached_tool_outputs_are_the_tools() {
    let a = compile_asm("asm/scale_kd.s", "gfx90a:xnack-", 4);
    let b = compile_cl("cl/control.cl", "gfx90a:xnack-", 4);
    for input in [&a, &b] {
        for args in [&["-d", "--mcpu=gfx90a"][..], &["--section-headers"][..]] {
            let path = input.display().to_string();
            let mut direct: Vec<&str> = args.to_vec();
            direct.push(&path);
            let tool_path = tool("llvm-objdump-15");
            for _ in 0..2 {
                assert!(
                    cached_tool_output("llvm-objdump-15", args, input)
                        == run_tool(&tool_path, &direct),
                    "{path} {args:?}"
                );
            }
        }
    }
}

/// [`link_args`] and [`linker_of`] are what clang's driver runs, for each compiler and the
/// kinds of target the corpus has; when a new compiler links differently this fails, and
/// the cached code objects would no longer be the driver's.
#[test]
fn link_step_is_the_drivers() {
    let cl = source_path("cl/control.cl");
    let asm = source_path("asm/scale_kd.s");
    // Every option the tests pass to `compile_cl_with`, on both compilers.
    let mut all: Vec<&str> = LINK_NEUTRAL.to_vec();
    all.extend(["-mwavefrontsize64", "-DWAVE64"]);
    // Compiler, target, source, options, extra options.
    type Case<'a> = (&'a str, &'a str, &'a Path, &'a [&'a str], &'a [&'a str]);
    let cases: [Case; 8] = [
        ("clang-15", "gfx90a:xnack+", &cl, &["-x", "cl", "-O2"], &[]),
        ("clang-15", "gfx90a:xnack-", &asm, &["-x", "assembler"], &[]),
        (
            "clang-22",
            "gfx1100",
            &cl,
            &["-x", "cl", "-O2", "-nogpulib"],
            &[],
        ),
        (
            "clang-22",
            "gfx942",
            &cl,
            &["-x", "cl", "-O2", "-nogpulib"],
            &[],
        ),
        ("clang-15", "gfx1030", &cl, &["-x", "cl", "-O2"], &all),
        (
            "clang-15",
            "gfx90a",
            &cl,
            &["-x", "cl", "-O2"],
            LINK_NEUTRAL,
        ),
        (
            "clang-22",
            "gfx1201",
            &cl,
            &["-x", "cl", "-O2", "-nogpulib"],
            &all,
        ),
        (
            "clang-22",
            "gfx1100",
            &cl,
            &["-x", "cl", "-O2", "-nogpulib"],
            LINK_NEUTRAL,
        ),
    ];
    for (program, target, source, opts, extra) in cases {
        let mut args: Vec<String> = opts.iter().chain(extra).map(|s| s.to_string()).collect();
        args.extend([
            "-target".into(),
            "amdgcn-amd-amdhsa".into(),
            format!("-mcpu={target}"),
        ]);
        let driver = drivers_link(program, &args, source);
        let obj = driver
            .iter()
            .find(|a| a.ends_with(".o"))
            .unwrap_or_else(|| panic!("{program} {target}: no object in {driver:?}"));
        let ours = link_args(program, target, extra, obj, "OUT.hsaco")
            .unwrap_or_else(|| panic!("{program} {target}: no link arguments"));
        let mut expected = vec![linker_of(program).display().to_string()];
        expected.extend(ours);
        assert_eq!(driver, expected, "{program} {target}");
    }
}
