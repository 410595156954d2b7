//! The disassembler against llvm-objdump-15 on the whole test corpus (llvm-objdump-22 for the
//! gfx942/gfx950 objects clang-22 compiles): every instruction of every
//! kernel of every GFX8/GFX9/GFX10.3 target must print the same text (mnemonic and operands);
//! gfx1030 objects are compared in wave32, llvm-objdump's default for `--mcpu=gfx1030`.
//! The corpus holds clang-15's V3 and clang-22's V6 for a subset of sources only (the other
//! objects' `.text` is their V4's and V5's: `hsaemu_testkit::DUPLICATE_VERSION_SOURCES`);
//! `HSAEMU_FULL_CORPUS=1` walks every object.

mod common;
// The crate's unit tests (crates/isa/tests/unit/).
mod unit;

use common::{code_objects, normalize, objdump_many, processor, text_section};
use hsaemu_isa::{disassemble_one, Gen};
use std::collections::BTreeMap;

#[derive(Default)]
struct Stats {
    total: usize,
    matched: usize,
    mismatches: Vec<String>,
}

#[test]
fn corpus_matches_llvm_objdump() {
    // ISA_CORPUS_FILES (paths separated by ':') checks just those files, for debugging.
    let files: Vec<std::path::PathBuf> = match std::env::var("ISA_CORPUS_FILES") {
        Ok(list) => list.split(':').map(std::path::PathBuf::from).collect(),
        Err(_) => hsaemu_testkit::corpus()
            .into_iter()
            .map(|e| e.path)
            .collect(),
    };
    let mut objects = Vec::new();
    for path in &files {
        objects.extend(code_objects(path));
    }
    // Identical code objects (the same kernel in several files) are checked once.
    objects.sort_by(|a, b| a.bytes.cmp(&b.bytes));
    objects.dedup_by(|a, b| a.bytes == b.bytes);
    let mut out_of_scope: BTreeMap<String, usize> = BTreeMap::new();
    // Batches of one processor's objects, one llvm-objdump process each (starting LLVM costs
    // more CPU than disassembling a small kernel).
    let mut by_proc: BTreeMap<&str, Vec<&common::CodeObject>> = BTreeMap::new();
    for co in &objects {
        let proc_ = processor(&co.bytes).unwrap_or("unknown");
        if Gen::from_processor(proc_).is_some_and(|g| g.is_supported()) {
            by_proc.entry(proc_).or_default().push(co);
        } else {
            *out_of_scope.entry(proc_.to_string()).or_default() += 1;
        }
    }
    let batches: Vec<(&str, &[&common::CodeObject])> = by_proc
        .iter()
        .flat_map(|(p, cos)| cos.chunks(32).map(move |c| (*p, c)))
        .collect();
    let per_batch = hsaemu_testkit::parallel_map(&batches, |&(proc_, batch)| {
        let gen = Gen::from_processor(proc_).expect("batched by supported processor");
        let elfs: Vec<&[u8]> = batch.iter().map(|co| co.bytes.as_slice()).collect();
        let mut st = Stats::default();
        for (co, lines) in batch.iter().zip(objdump_many(&elfs, proc_)) {
            let Some((addr, text)) = text_section(&co.bytes) else {
                continue;
            };
            for l in &lines {
                let Some(off) = l.addr.checked_sub(addr) else {
                    continue;
                };
                let (ours, _) = disassemble_one(gen, text, off as usize, l.addr);
                st.total += 1;
                if std::env::var_os("ISA_SAMPLE").is_some() && st.total % 3000 == 1 {
                    eprintln!("sample {proc_}: llvm `{}` ours `{}`", l.text, ours);
                }
                if normalize(&ours) == normalize(&l.text) {
                    st.matched += 1;
                } else if st.mismatches.len() < 400 {
                    let words: Vec<String> = l.words.iter().map(|w| format!("{w:08x}")).collect();
                    st.mismatches.push(format!(
                        "{proc_} {:#x} [{}]\n    llvm: {}\n    ours: {}",
                        l.addr,
                        words.join(" "),
                        l.text,
                        ours
                    ));
                }
            }
        }
        (proc_, st)
    });
    let mut stats: BTreeMap<String, Stats> = BTreeMap::new();
    for (proc_, st) in per_batch {
        let t = stats.entry(proc_.to_string()).or_default();
        t.total += st.total;
        t.matched += st.matched;
        for m in st.mismatches {
            if t.mismatches.len() < 400 {
                t.mismatches.push(m);
            }
        }
    }
    let mut failed = false;
    for (proc_, st) in &stats {
        let rate = 100.0 * st.matched as f64 / st.total.max(1) as f64;
        eprintln!(
            "{proc_}: {}/{} instructions match {} ({rate:.3}%)",
            st.matched,
            st.total,
            hsaemu_testkit::objdump_for(proc_)
        );
        if st.matched != st.total {
            failed = true;
        }
    }
    for (proc_, n) in out_of_scope {
        // Only processors without tables (none in today's corpus) land here.
        eprintln!("{proc_}: {n} code objects out of scope (no tables for this generation yet)");
    }
    if failed {
        for st in stats.values() {
            for m in st.mismatches.iter().take(
                std::env::var("ISA_SHOW")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(20),
            ) {
                eprintln!("{m}");
            }
        }
    }
    assert!(!stats.is_empty(), "the corpus has no code objects");
    assert!(
        !failed,
        "some instructions print differently from llvm-objdump (see above)"
    );
    if std::env::var_os("ISA_CORPUS_FILES").is_none() {
        for target in [
            "gfx803", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx1030", "gfx942",
            "gfx950", "gfx1100", "gfx1151", "gfx1201",
        ] {
            assert!(
                stats.get(target).is_some_and(|s| s.total > 1000),
                "the corpus has no {target} code"
            );
        }
    }
}

/// Decodes every line of `tests/data/roundtrip-<target>.txt` (every opcode of every family, with
/// randomised operands and modifiers, generated with llvm-objdump-15; gfx942 and gfx950 with
/// llvm-objdump-22) and compares the text.
#[test]
fn every_opcode_round_trips() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut failed: Vec<String> = Vec::new();
    let mut covered: BTreeMap<String, std::collections::BTreeSet<(u8, hsaemu_isa::Opcode)>> =
        BTreeMap::new();
    for target in [
        "gfx803",
        "gfx900",
        "gfx906",
        "gfx908",
        "gfx90a",
        "gfx940",
        "gfx1030",
        "gfx1030-wave64",
        "gfx942",
        "gfx950",
        "gfx1100",
        "gfx1100-wave64",
        "gfx1151",
        "gfx1200",
        "gfx1201",
        "gfx1201-wave64",
    ] {
        // `-wave64`: the VALU words disassembled with `--mattr=+wavefrontsize64`.
        let gen = match target.strip_suffix("-wave64") {
            Some(p) => Gen::from_processor(p).map(|g| g.with_wave64(true)),
            None => Gen::from_processor(target),
        }
        .expect("known target");
        let path = dir.join(format!("roundtrip-{target}.txt"));
        let data =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (mut total, mut ok) = (0usize, 0usize);
        let mut shown = 0;
        let mut opcodes = std::collections::BTreeSet::new();
        for line in data.lines().filter(|l| !l.starts_with('#')) {
            let Some((hex, text)) = line.split_once('\t') else {
                continue;
            };
            let bytes: Vec<u8> = hex
                .split_whitespace()
                .flat_map(|w| u32::from_str_radix(w, 16).unwrap_or(0).to_le_bytes())
                .collect();
            total += 1;
            let (ours, size) = disassemble_one(gen, &bytes, 0, 0);
            if normalize(&ours) == normalize(text) && size == bytes.len() {
                ok += 1;
                if let Ok(i) = hsaemu_isa::decode(gen, &bytes, 0) {
                    opcodes.insert((i.encoding as u8, i.opcode));
                    if let hsaemu_isa::Ext::Vopd(y) = i.ext {
                        opcodes.insert((i.encoding as u8, y.opcode));
                    }
                }
            } else {
                if shown
                    < std::env::var("ISA_SHOW")
                        .ok()
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(10)
                {
                    eprintln!(
                        "{target} [{hex}]\n    llvm: {text}\n    ours: {ours} ({size} bytes)"
                    );
                }
                shown += 1;
            }
        }
        eprintln!("{target}: {ok}/{total} round-trip lines match");
        if ok != total {
            failed.push(target.to_string());
        }
        // Both wave sizes decode with the one GFX10 table.
        let table_gen = gen.with_wave64(false);
        covered
            .entry(format!("{table_gen:?}"))
            .or_default()
            .extend(opcodes);
    }
    // Completeness: every row of every generation's tables has at least one matching line
    // (GFX9's table is the union of gfx906 and gfx908).
    for gen in Gen::ALL.into_iter().filter(|g| g.has_own_tables()) {
        let seen = covered
            .get(&format!("{gen:?}"))
            .cloned()
            .unwrap_or_default();
        let rows = hsaemu_isa::table_entries(gen);
        let missing: Vec<String> = rows
            .iter()
            .filter(|(enc, _, op, _)| !seen.contains(&(*enc as u8, *op)))
            .map(|(enc, num, _, name)| format!("{enc:?} {num}: {name}"))
            .collect();
        eprintln!(
            "{gen:?}: {}/{} table rows covered",
            rows.len() - missing.len(),
            rows.len()
        );
        if !missing.is_empty() {
            eprintln!("{gen:?}: rows without a round-trip line: {missing:?}");
            failed.push(format!("{gen:?} coverage"));
        }
    }
    assert!(failed.is_empty(), "round trip mismatches on {failed:?}");
}

/// VOP1 SDWA source modifiers (`sext(…)` on integer sources, `-|…|` on float ones) decode and
/// print as llvm-objdump-15 prints them (the round-trip data has no VOP1 SDWA word with a
/// modifier: LLVM rejects such words when the unused `src1_sel` is set). The first line is
/// what clang-15 emits for rocPRIM's `signed char` block exchange; the texts are
/// llvm-mc-15's for these encodings on gfx803, gfx90a and gfx1030.
#[test]
fn vop1_sdwa_source_modifiers_print_as_llvm_does() {
    let lines: [(&[u8], &str); 3] = [
        (
            &[0xf9, 0x0a, 0x06, 0x7e, 0x01, 0x06, 0x0c, 0x00],
            "v_cvt_f32_i32_sdwa v3, sext(v1) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0",
        ),
        (
            &[0xf9, 0x02, 0x04, 0x7e, 0x00, 0x06, 0x08, 0x00],
            "v_mov_b32_sdwa v2, sext(v0) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0",
        ),
        (
            &[0xf9, 0x16, 0x04, 0x7e, 0x00, 0x06, 0x35, 0x00],
            "v_cvt_f32_f16_sdwa v2, -|v0| dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1",
        ),
    ];
    for target in ["gfx803", "gfx90a", "gfx1030"] {
        let gen = Gen::from_processor(target).expect("known target");
        for (bytes, want) in lines {
            let (ours, size) = disassemble_one(gen, bytes, 0, 0);
            assert_eq!((normalize(&ours), size), (normalize(want), 8), "{target}");
        }
    }
}

/// GFX12 SWMMAC: op_sel[1:0] prints as `index_key` (texts from `llvm-mc-22 --disassemble`,
/// wave32 and `-mattr=+wavefrontsize64`; the round-trip data has no non-zero index_key).
#[test]
fn swmmac_index_key_prints_like_llvm() {
    let wave32: &[([u32; 2], &str)] = &[
        ([0xcc50480a, 0x1ca23d14], "v_swmmac_f32_16x16x32_f16 v[10:17], v[20:23], v[30:37], v40 index_key:1"),
        ([0xcc54c80a, 0x3ca23d14], "v_swmmac_i32_16x16x32_iu8 v[10:17], v[20:21], v[30:33], v40 index_key:1 neg_lo:[1,0,0] clamp"),
        ([0xcc524a0a, 0x1ca23d14], "v_swmmac_f16_16x16x32_f16 v[10:13], v[20:23], v[30:37], v40 index_key:1 neg_hi:[0,1,0]"),
        ([0xcc59480a, 0x1ca23d14], "v_swmmac_f32_16x16x32_bf8_fp8 v[10:17], v[20:21], v[30:33], v40 index_key:1"),
    ];
    let wave64: &[([u32; 2], &str)] = &[
        (
            [0xcc50500a, 0x1ca23d14],
            "v_swmmac_f32_16x16x32_f16 v[10:13], v[20:21], v[30:33], v40 index_key:2",
        ),
        (
            [0xcc54580a, 0x5ca23d14],
            "v_swmmac_i32_16x16x32_iu8 v[10:13], v20, v[30:31], v40 index_key:3 neg_lo:[0,1,0]",
        ),
        (
            [0xcc56480a, 0x1ca23d14],
            "v_swmmac_i32_16x16x64_iu4 v[10:13], v20, v[30:31], v40 index_key:1",
        ),
        (
            [0xcc53480a, 0x1ca23d14],
            "v_swmmac_bf16_16x16x32_bf16 v[10:11], v[20:21], v[30:33], v40 index_key:1",
        ),
    ];
    for (gen, lines) in [(Gen::Gfx12, wave32), (Gen::Gfx12W64, wave64)] {
        for (words, want) in lines {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let (ours, size) = disassemble_one(gen, &bytes, 0, 0);
            assert_eq!((normalize(&ours), size), (normalize(want), 8), "{gen:?}");
        }
    }
}

/// GFX11 MIMG: when the data or address tuple LLVM would widen to runs past v255,
/// llvm-objdump-22 keeps the opcode variant it decoded first (one VGPR each here); the
/// round-trip data always has its registers low. Texts from `llvm-objdump-22 --mcpu=gfx1100`.
#[test]
fn gfx11_mimg_tuples_past_v255_keep_the_first_variant() {
    let lines: [([u32; 2], &str); 3] = [
        (
            [0xf0000f04, 0x00040aff],
            "image_load v10, v255, s[16:23] dmask:0xf dim:SQ_RSRC_IMG_2D",
        ),
        (
            [0xf0000f04, 0x0004fe14],
            "image_load v254, v20, s[16:23] dmask:0xf dim:SQ_RSRC_IMG_2D",
        ),
        (
            [0xf0000f00, 0x0004fe14],
            "image_load v254, v20, s[16:23] dmask:0xf dim:SQ_RSRC_IMG_1D",
        ),
    ];
    for (words, want) in lines {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let (ours, size) = disassemble_one(Gen::Gfx11, &bytes, 0, 0);
        assert_eq!((normalize(&ours), size), (normalize(want), 8));
    }
}
