//! Decoder and semantics coverage over real compiler output: every instruction of the
//! prebuilt rocRAND kernels (Debian's librocrand1, gfx803/gfx906/gfx90a, and gfx1030 with the
//! gfx1030 corpus) decodes and has semantics. The emulator
//! decodes through `hsaemu-isa`; its mnemonics are checked against llvm-objdump-15's, also for
//! the gfx908/gfx90a matrix-core kernels (which all have semantics).

use crate::common::*;
use hsaemu_emu::{Gpu, GpuConfig, MemoryMap};

fn rocrand_code_object(target: &str) -> Vec<u8> {
    let lib = hsaemu_testkit::rocrand_library();
    let dir = hsaemu_testkit::cache_dir();
    let out = dir.join(format!("rocrand-{}.hsaco", target.replace(':', "_")));
    if !out.is_file() {
        let tool = hsaemu_testkit::tool("clang-offload-bundler-15");
        let fatbin = dir.join("rocrand.hip_fatbin");
        if !fatbin.is_file() {
            let objcopy = hsaemu_testkit::tool("llvm-objcopy-15");
            hsaemu_testkit::run_tool(
                &objcopy,
                &[
                    "--dump-section",
                    &format!(".hip_fatbin={}", fatbin.display()),
                    &lib.display().to_string(),
                    "/dev/null",
                ],
            );
        }
        let tmp = out.with_extension("tmp");
        hsaemu_testkit::run_tool(
            &tool,
            &[
                "--unbundle",
                "--type=o",
                &format!("--input={}", fatbin.display()),
                &format!("--targets=hipv4-amdgcn-amd-amdhsa--{target}"),
                &format!("--output={}", tmp.display()),
            ],
        );
        std::fs::rename(&tmp, &out).expect("rename");
    }
    std::fs::read(&out).expect("read")
}

#[test]
fn rocrand_decodes_and_is_mostly_implemented() {
    for (target, id) in [
        ("gfx90a", "gfx90a:xnack-"),
        ("gfx906", "gfx906:xnack-"),
        ("gfx803", "gfx803"),
    ] {
        let bytes = rocrand_code_object(id);
        let gpu = Gpu::new(
            GpuConfig {
                processor: target.into(),
                ..GpuConfig::default()
            },
            MemoryMap::new(),
        )
        .expect("gpu");
        let code = gpu.load_code_object(&bytes).expect("load rocRAND");
        let cov = gpu.coverage(&code);
        let missing = cov.unimplemented();
        eprintln!(
            "{target}: {} instructions, {} mnemonics, {} invalid words, unimplemented: {missing:?}",
            cov.instructions,
            cov.mnemonics.len(),
            cov.invalid_words
        );
        assert!(cov.instructions > 10_000, "{target}");
        assert_eq!(cov.invalid_words, 0, "{target}");
        assert!(missing.is_empty(), "{target}: {missing:?}");
    }
}

/// Mnemonic counts from llvm-objdump-15 (encoding suffixes stripped, as the emulator names them).
fn objdump_counts(path: &std::path::Path, target: &str) -> std::collections::BTreeMap<String, u64> {
    let mcpu = format!("--mcpu={target}");
    let out = hsaemu_testkit::cached_tool_output("llvm-objdump-15", &["-d", &mcpu], path);
    let text = String::from_utf8_lossy(&out);
    let mut counts = std::collections::BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix('\t') else {
            continue;
        };
        let Some(m) = rest.split_whitespace().next() else {
            continue;
        };
        if !m.starts_with(|c: char| c.is_ascii_lowercase()) || m.starts_with(".long") {
            continue;
        }
        let m = ["_e32", "_e64", "_sdwa", "_dpp"]
            .iter()
            .fold(m.to_string(), |m, s| {
                m.strip_suffix(s).map(str::to_string).unwrap_or(m)
            });
        *counts.entry(m).or_insert(0) += 1;
    }
    counts
}

#[test]
fn decoder_agrees_with_llvm_objdump() {
    for target in ["gfx90a", "gfx908", "gfx906", "gfx900", "gfx803", "gfx1030"] {
        for src in [
            "cl/math.cl",
            "cl/emu_float.cl",
            "cl/emu_wave.cl",
            "cl/emu_lds.cl",
            "cl/emu_control.cl",
            "cl/images.cl",
        ] {
            let path = hsaemu_testkit::compile_cl(src, target, 5);
            let gpu = Gpu::new(
                GpuConfig {
                    processor: target.into(),
                    ..GpuConfig::default()
                },
                MemoryMap::new(),
            )
            .expect("gpu");
            let code = gpu
                .load_code_object(&std::fs::read(&path).expect("read"))
                .expect("load");
            // s_nop (GFX10: s_code_end) padding after the last function is outside every
            // symbol; compare the rest.
            let padding = ["s_nop", "s_code_end"];
            let ours: std::collections::BTreeMap<String, u64> = gpu
                .coverage(&code)
                .mnemonics
                .into_iter()
                .filter(|m| !padding.contains(&m.0.as_str()))
                .map(|(m, n, _)| (m, n))
                .collect();
            let mut theirs = objdump_counts(&path, target);
            theirs.retain(|m, _| !padding.contains(&m.as_str()));
            assert_eq!(ours, theirs, "{target} {src}");
        }
    }
}

/// The matrix-core kernels decode on gfx908 and gfx90a exactly as llvm-objdump-15 reads them
/// (every MFMA shape, AccVGPR moves, AGPR memory operands), and every mnemonic in them has
/// semantics.
#[test]
fn mfma_kernels_decode_like_llvm_objdump_and_are_implemented() {
    for target in ["gfx908", "gfx90a"] {
        let e = emu("cl/emu_mfma.cl", target);
        let cov = e.gpu.coverage(&e.code);
        assert_eq!(cov.invalid_words, 0, "{target}");
        let ours: std::collections::BTreeMap<String, u64> = cov
            .mnemonics
            .iter()
            .filter(|m| m.0 != "s_nop")
            .map(|(m, n, _)| (m.clone(), *n))
            .collect();
        let path = hsaemu_testkit::compile_cl("cl/emu_mfma.cl", target, 5);
        let mut theirs = objdump_counts(&path, target);
        theirs.remove("s_nop");
        assert_eq!(ours, theirs, "{target}");
        let mfma = ours.keys().filter(|m| m.starts_with("v_mfma_")).count();
        assert_eq!(
            mfma,
            if target == "gfx908" { 20 } else { 27 },
            "{target}: {ours:?}"
        );
        for m in ["v_accvgpr_read_b32", "v_accvgpr_write_b32"] {
            assert!(ours.contains_key(m), "{target}: {m}");
        }
        assert!(
            cov.unimplemented().is_empty(),
            "{target}: {:?}",
            cov.unimplemented()
        );
    }
}

/// Every mnemonic of the gfx1030 corpus (every OpenCL C source of `tests/kernels/cl`, the HIP
/// kernels, in wave32 and wave64) and of librocrand's prebuilt gfx1030 bundle has semantics.
#[test]
fn gfx1030_corpus_is_implemented() {
    let gpu = Gpu::new(
        GpuConfig {
            processor: "gfx1030".into(),
            ..GpuConfig::default()
        },
        MemoryMap::new(),
    )
    .expect("gpu");
    let mut missing = std::collections::BTreeMap::<String, Vec<String>>::new();
    let mut total = 0u64;
    let mut check = |what: String, bytes: Vec<u8>| {
        let code = gpu.load_code_object(&bytes).expect("load");
        let cov = gpu.coverage(&code);
        assert_eq!(cov.invalid_words, 0, "{what}");
        total += cov.instructions;
        for m in cov.unimplemented() {
            missing.entry(m.to_string()).or_default().push(what.clone());
        }
    };
    check("rocrand".into(), rocrand_code_object("gfx1030"));
    for src in hsaemu_testkit::sources("cl", "cl") {
        // Sources written for other processors (`// targets:` lines: MFMA, CDNA3) are skipped.
        if !hsaemu_testkit::source_supports(&src, "gfx1030") {
            continue;
        }
        for extra in [&[][..], &["-mwavefrontsize64"][..]] {
            let path = hsaemu_testkit::compile_cl_with(&src, "gfx1030", 5, extra);
            check(
                format!("{src} {extra:?}"),
                std::fs::read(&path).expect("read"),
            );
        }
    }
    eprintln!("gfx1030: {total} instructions");
    assert!(total > 50_000, "{total}");
    assert!(missing.is_empty(), "{missing:#?}");
}
