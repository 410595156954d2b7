//! `hsaemu disasm` end to end: the real binary against `llvm-objdump-15 -d` (22 for gfx942 and
//! gfx950) on compiled kernels
//! of every GFX8/GFX9/GFX10.3 target (the whole listing, line for line, apart from the
//! file-name line), on HIP fat binaries (every bundled code object is listed), and on bad input.

use std::process::{Command, Output};

fn disasm(args: &[&str]) -> Output {
    Command::new(crate::support::hsaemu())
        .arg("disasm")
        .args(args)
        .output()
        .expect("run hsaemu disasm")
}

/// Output lines without the `FILE:\tfile format elf64-amdgpu` line (it names the file).
fn body(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.contains("\tfile format "))
        .map(str::to_string)
        .collect()
}

/// Asserts that our listing equals llvm-objdump's line for line (the first differing line is
/// named), and returns its length.
fn assert_same_listing<S: AsRef<str> + std::fmt::Debug>(
    ours: &[S],
    llvm: &[S],
    what: &str,
) -> usize {
    for (i, (x, y)) in ours.iter().zip(llvm).enumerate() {
        assert_eq!(x.as_ref(), y.as_ref(), "{what}: line {} differs", i + 1);
    }
    assert_eq!(ours.len(), llvm.len(), "{what}: line counts differ");
    ours.len()
}

#[test]
fn disasm_matches_llvm_objdump_line_for_line() {
    for target in [
        "gfx803",
        "gfx900",
        "gfx906",
        "gfx908",
        "gfx90a:xnack-",
        "gfx940",
        "gfx1030",
        "gfx942",
        "gfx950",
        "gfx1100",
        "gfx1151",
        "gfx1200",
        "gfx1201",
    ] {
        // gfx942/gfx950 and GFX11/GFX12 (clang-22) against llvm-objdump-22.
        let processor = hsaemu_testkit::processor(target);
        let objdump = hsaemu_testkit::tool(hsaemu_testkit::objdump_for(processor));
        // gfx1030 also with the kernels that use DPP, SDWA and v_fma_mix (wave32 code);
        // gfx942/gfx950 with their fp8 conversions and (gfx950) v_bitop3.
        let extra: &[&str] = match target {
            "gfx1030" => &["cl/emu_wave.cl", "cl/emu_half.cl", "cl/emu_int.cl"],
            "gfx942" => &["cl/emu_cdna3.cl", "cl/emu_double.cl"],
            // gfx950 also with its f8f6f4 MFMAs, scaled (16-byte pairs) and plain.
            "gfx950" => &["cl/emu_cdna3.cl", "cl/emu_double.cl", "cl/disasm_f8f6f4.cl"],
            // GFX12 also with its VIMAGE/VSAMPLE image loads, stores and samples.
            "gfx1201" => &[
                "cl/emu_wave.cl",
                "cl/emu_half.cl",
                "cl/emu_int.cl",
                "cl/emu_double.cl",
                "cl/images.cl",
            ],
            // GFX11: VOPD, true16 halves, DPP/DPP8, 16-bit and integer code.
            "gfx1100" | "gfx1151" | "gfx1200" => &[
                "cl/emu_wave.cl",
                "cl/emu_half.cl",
                "cl/emu_int.cl",
                "cl/emu_double.cl",
            ],
            _ => &[],
        };
        for &src in ["cl/vector_add.cl", "cl/reduce.cl", "cl/math.cl"]
            .iter()
            .chain(extra)
        {
            // clang-22's code object V6 where the kernel corpus has it (every V6 source there,
            // and every source on a processor outside the corpus), otherwise V5, whose `.text`
            // the V6 object would repeat byte for byte (`hsaemu_testkit::duplicate_version`,
            // checked by codeobject's readelf test): the same instructions listed, from the
            // corpus's cache instead of ~25 compiles of their own (docs/notes/ci-time.md,
            // "Round 23"). clang-15's V4 is in the corpus for every source.
            let cov = if !hsaemu_testkit::is_clang22_target(target) {
                4
            } else if hsaemu_testkit::TARGETS.contains(&target)
                && !hsaemu_testkit::corpus_has(src, target, 6, hsaemu_testkit::full_corpus())
            {
                5
            } else {
                6
            };
            let co = hsaemu_testkit::compile_cl(src, target, cov);
            let path = co.to_str().expect("utf-8 path");
            let ours = disasm(&[path]);
            assert!(
                ours.status.success(),
                "hsaemu disasm {path}: {}",
                String::from_utf8_lossy(&ours.stderr)
            );
            let mcpu = format!("--mcpu={processor}");
            let llvm = Command::new(&objdump)
                .args(["-d", &mcpu, path])
                .output()
                .expect("run llvm-objdump");
            assert!(llvm.status.success());
            let (a, b) = (
                body(&String::from_utf8_lossy(&ours.stdout)),
                body(&String::from_utf8_lossy(&llvm.stdout)),
            );
            assert_same_listing(&a, &b, &format!("{src} for {target}"));
            assert!(
                a.iter().filter(|l| l.starts_with('\t')).count() > 10,
                "{src}: no instructions listed"
            );
        }
    }
}

/// Every code object of librocrand's fat binary (gfx803 … gfx90a and gfx1030), listed by
/// `hsaemu disasm` in one run, against `llvm-objdump-15 -d` on each extracted code object:
/// the same lines, `...` for zero padding included.
#[test]
fn disasm_of_every_bundle_matches_llvm_objdump() {
    let objdump = hsaemu_testkit::tool("llvm-objdump-15");
    let lib = hsaemu_testkit::rocrand_library();
    let out = disasm(&[lib.to_str().expect("utf-8 path")]);
    assert!(out.status.success());
    let ours = String::from_utf8_lossy(&out.stdout).into_owned();
    // Our listing, split at the per-object header lines.
    let mut by_object: Vec<(String, Vec<&str>)> = Vec::new();
    for line in ours.lines() {
        if let Some(name) = line.strip_suffix(":\tfile format elf64-amdgpu") {
            by_object.push((name.to_string(), Vec::new()));
        } else if let Some((_, lines)) = by_object.last_mut() {
            lines.push(line);
        }
    }
    let data = std::fs::read(&lib).expect("read librocrand");
    let found = hsaemu_codeobject::bundle::find_code_objects(&data).expect("bundles");
    assert_eq!(found.len(), by_object.len(), "one listing per code object");
    let dir = std::env::temp_dir().join(format!("hsaemu-disasm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut targets = Vec::new();
    for (co, (name, lines)) in found.iter().zip(&by_object) {
        let obj = hsaemu_codeobject::CodeObject::parse(&co.data).expect("code object");
        let processor = obj.target().processor().to_string();
        let file = dir.join(format!("{processor}.o"));
        std::fs::write(&file, &co.data).expect("write code object");
        let llvm = Command::new(&objdump)
            .arg("-d")
            .arg(format!("--mcpu={processor}"))
            .arg(&file)
            .output()
            .expect("run llvm-objdump-15");
        assert!(llvm.status.success());
        let llvm = String::from_utf8_lossy(&llvm.stdout).into_owned();
        // Both start with a blank line before the header; compare what follows it.
        let theirs: Vec<&str> = llvm
            .lines()
            .skip_while(|l| !l.ends_with("\tfile format elf64-amdgpu"))
            .skip(1)
            .collect();
        // The blank line before the next object's header is not part of this one.
        let trim = |v: &[&str]| v.len() - v.iter().rev().take_while(|l| l.is_empty()).count();
        let (ours, theirs) = (&lines[..trim(lines)], &theirs[..trim(&theirs)]);
        let n = assert_same_listing(ours, theirs, &format!("{name} ({processor})"));
        assert!(n > 1000, "{name}: {n} lines");
        targets.push(processor);
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(targets.iter().any(|t| t == "gfx1030"), "{targets:?}");
}

/// `--wave64` prints gfx1030 code like `llvm-objdump-15 --mattr=+wavefrontsize64` (lane masks
/// as SGPR pairs and `vcc`), line for line, on kernels clang-15 compiled for wave64
/// (`-mwavefrontsize64`); without it, wave32 (`vcc_lo`).
#[test]
fn disasm_wave64_matches_llvm_objdump() {
    let objdump = hsaemu_testkit::tool("llvm-objdump-15");
    let clang = hsaemu_testkit::tool("clang-15");
    let dir = std::env::temp_dir().join(format!("hsaemu-wave64-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for src in ["cl/math.cl", "cl/emu_wave.cl"] {
        let co = dir.join(src.replace(['/', '.'], "_") + ".hsaco");
        let source = hsaemu_testkit::kernels_dir().join(src);
        let lib_path = format!("--rocm-device-lib-path={}", hsaemu_testkit::DEVICE_LIB_PATH);
        hsaemu_testkit::run_tool(
            &clang,
            &[
                "-x",
                "cl",
                "-cl-std=CL2.0",
                "-target",
                "amdgcn-amd-amdhsa",
                "-mcpu=gfx1030",
                "-mwavefrontsize64",
                "-O2",
                "-mcode-object-version=4",
                &lib_path,
                "-o",
                co.to_str().expect("utf-8 path"),
                source.to_str().expect("utf-8 path"),
            ],
        );
        let path = co.to_str().expect("utf-8 path");
        let ours = disasm(&[path, "--wave64"]);
        assert!(ours.status.success());
        let llvm = Command::new(&objdump)
            .args(["-d", "--mcpu=gfx1030", "--mattr=+wavefrontsize64", path])
            .output()
            .expect("run llvm-objdump-15");
        assert!(llvm.status.success());
        let (a, b) = (
            body(&String::from_utf8_lossy(&ours.stdout)),
            body(&String::from_utf8_lossy(&llvm.stdout)),
        );
        assert_same_listing(&a, &b, &format!("{src} (wave64)"));
        assert!(
            a.iter().any(|l| l.contains(", vcc") || l.contains(" s[")),
            "{src}: no wave64 lane masks listed"
        );
        assert!(!a.iter().any(|l| l.contains("vcc_lo")), "{src}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Without --wave64, gfx1030 lists as wave32.
    let co = hsaemu_testkit::compile_cl("cl/math.cl", "gfx1030", 4);
    let wave32 = disasm(&[co.to_str().expect("utf-8 path")]);
    assert!(String::from_utf8_lossy(&wave32.stdout).contains("vcc_lo"));
}

/// `--wave64` prints GFX11 code like `llvm-objdump-22 --mattr=+wavefrontsize64`, line for
/// line, on kernels clang-22 compiled for gfx1100, gfx1151 and (GFX12) gfx1201 with
/// `-mwavefrontsize64`.
#[test]
fn disasm_gfx11_wave64_matches_llvm_objdump() {
    let objdump = hsaemu_testkit::tool("llvm-objdump-22");
    for target in ["gfx1100", "gfx1151", "gfx1201"] {
        // GFX12 also with its VIMAGE/VSAMPLE kernels.
        let images = (target == "gfx1201").then_some("cl/images.cl");
        for src in [
            "cl/math.cl",
            "cl/emu_wave.cl",
            "cl/emu_half.cl",
            "cl/reduce.cl",
        ]
        .into_iter()
        .chain(images)
        {
            let co = hsaemu_testkit::compile_cl_with(src, target, 6, &["-mwavefrontsize64"]);
            let path = co.to_str().expect("utf-8 path");
            let ours = disasm(&[path, "--wave64"]);
            assert!(ours.status.success());
            let mcpu = format!("--mcpu={target}");
            let llvm = Command::new(&objdump)
                .args(["-d", &mcpu, "--mattr=+wavefrontsize64", path])
                .output()
                .expect("run llvm-objdump-22");
            assert!(llvm.status.success());
            let (a, b) = (
                body(&String::from_utf8_lossy(&ours.stdout)),
                body(&String::from_utf8_lossy(&llvm.stdout)),
            );
            assert_same_listing(&a, &b, &format!("{src} for {target} (wave64)"));
            assert!(
                a.iter().any(|l| l.contains(", vcc") || l.contains(" s[")),
                "{src}: no wave64 lane masks listed"
            );
        }
    }
}

#[test]
fn disasm_lists_every_code_object_of_a_fat_binary_and_one_kernel() {
    let lib = hsaemu_testkit::rocrand_library();
    let path = lib.to_str().expect("utf-8 path");
    let out = disasm(&[path]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // gfx803, gfx900, gfx906, gfx908, gfx90a (two) and gfx1030 bundles, all decoded.
    assert!(text.matches("\tfile format elf64-amdgpu").count() >= 7);
    assert!(
        !text.contains("no decoding tables"),
        "every bundle is listed"
    );
    let (mut gfx1030, mut gfx1030_lines) = (false, 0);
    for line in text.lines() {
        if line.ends_with("\tfile format elf64-amdgpu") {
            gfx1030 = line.contains("gfx1030");
        } else if line.starts_with('\t') {
            gfx1030_lines += usize::from(gfx1030);
            // Only the zero padding clang leaves between gfx1030 functions, which llvm-objdump
            // prints as `.long 0x00000000` too (crates/isa/tests/llvm.rs compares every line).
            assert!(
                !line.contains(".long") || gfx1030 && line.starts_with("\t.long 0x00000000 "),
                "undecoded word: {line}"
            );
        }
    }
    assert!(
        gfx1030_lines > 10_000,
        "the gfx1030 bundle is listed ({gfx1030_lines} lines)"
    );
    // One kernel only (the gfx1030 bundle comes first and starts with padding that
    // llvm-objdump labels `<.text>`, like we do).
    let name = text
        .lines()
        .find_map(|l| {
            l.strip_suffix(">:")
                .and_then(|l| l.split_once(" <"))
                .map(|(_, n)| n.to_string())
                .filter(|n| n != ".text")
        })
        .expect("a symbol header");
    let one = disasm(&[path, "--kernel", &name]);
    assert!(one.status.success());
    let one = String::from_utf8_lossy(&one.stdout);
    let headers: Vec<&str> = one.lines().filter(|l| l.ends_with(">:")).collect();
    assert!(
        !headers.is_empty() && headers.iter().all(|h| h.ends_with(&format!("<{name}>:"))),
        "{headers:?}"
    );
}

#[test]
fn disasm_rejects_bad_input_with_a_message() {
    let out = disasm(&["/nonexistent/file.hsaco"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("hsaemu: /nonexistent/file.hsaco: "));
    let co = hsaemu_testkit::compile_cl("cl/vector_add.cl", "gfx90a:xnack-", 4);
    let out = disasm(&[co.to_str().expect("utf-8"), "--kernel", "no_such_kernel"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("no kernel or function named `no_such_kernel`"));
}
