//! Oracle test: for every code object of the corpus (every target and code object version,
//! every HIP bundle and host executable, and every bundle entry of Debian's librocrand), the
//! `hsaemu inspect --json` report agrees with `llvm-readelf-15 --notes` on kernel names,
//! symbols, segment sizes, register counts, wavefront size and every argument's
//! offset/size/value kind. Bundles are taken apart by the LLVM tools too (`llvm-objcopy-15
//! --dump-section .hip_fatbin`, `clang-offload-bundler-15 --list/--unbundle`), so no part of
//! the oracle path goes through this crate. Clang-15's V3 and clang-22's V6 are in the corpus
//! for `hsaemu_testkit::DUPLICATE_VERSION_SOURCES` only, since their other objects repeat V4's
//! and V5's code and metadata; the tests here check that claim (on a sample, or on every
//! left-out object with `HSAEMU_FULL_CORPUS=1`) and that the kept ones show every metadata form.

use hsaemu_codeobject::{report, CodeObject, ValueKind};
use hsaemu_testkit::{run_tool, tool, CorpusEntry, CorpusKind};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use yaml_rust2::{Yaml, YamlLoader};

/// The corpus: every target and code object version, HIP bundles and executables, rocRAND
/// (duplicate versions for a subset of sources unless `HSAEMU_FULL_CORPUS=1`).
fn corpus() -> Vec<CorpusEntry> {
    hsaemu_testkit::corpus()
}

/// What a metadata document shows the reader: every key path (`amdhsa.kernels[]/.args[]/.size`)
/// and, for the keys whose values are names (`.value_kind`, `.address_space`, …), path and value.
fn metadata_forms(md: &Yaml) -> BTreeSet<String> {
    const NAMED: [&str; 6] = [
        ".value_kind",
        ".address_space",
        ".access",
        ".actual_access",
        ".language",
        ".value_type",
    ];
    fn walk(y: &Yaml, path: &str, out: &mut BTreeSet<String>) {
        match y {
            Yaml::Hash(h) => {
                for (k, v) in h {
                    let key = k
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("{k:?}"));
                    walk(v, &format!("{path}/{key}"), out);
                }
            }
            Yaml::Array(a) => a.iter().for_each(|v| walk(v, &format!("{path}[]"), out)),
            _ => {
                let last = path.rsplit('/').next().unwrap_or("");
                match y.as_str() {
                    Some(v) if NAMED.contains(&last) => out.insert(format!("{path}={v}")),
                    _ => out.insert(path.to_string()),
                };
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(md, "", &mut out);
    out
}

/// [`metadata_forms`] without the keys that name the code object version and target, which
/// differ between versions by definition.
fn forms_but_version(forms: &BTreeSet<String>) -> BTreeSet<String> {
    forms
        .iter()
        .filter(|f| !f.starts_with("/amdhsa.version") && !f.starts_with("/amdhsa.target"))
        .cloned()
        .collect()
}

/// The bytes of section `name` of an ELF file, read here from the section headers (not
/// through this crate).
fn elf_section<'a>(elf: &'a [u8], name: &str) -> Option<&'a [u8]> {
    let u16_at = |o: usize| Some(u16::from_le_bytes(elf.get(o..o + 2)?.try_into().ok()?));
    let u32_at = |o: usize| Some(u32::from_le_bytes(elf.get(o..o + 4)?.try_into().ok()?));
    let u64_at = |o: usize| Some(u64::from_le_bytes(elf.get(o..o + 8)?.try_into().ok()?));
    let shoff = u64_at(0x28)? as usize;
    let (shentsize, shnum, shstrndx) = (
        usize::from(u16_at(0x3a)?),
        usize::from(u16_at(0x3c)?),
        usize::from(u16_at(0x3e)?),
    );
    let header = |i: usize| shoff + i * shentsize;
    let strings = u64_at(header(shstrndx) + 0x18)? as usize;
    (0..shnum).find_map(|i| {
        let n = elf.get(strings + u32_at(header(i))? as usize..)?;
        let n = &n[..n.iter().position(|&c| c == 0)?];
        if n != name.as_bytes() {
            return None;
        }
        let off = u64_at(header(i) + 0x18)? as usize;
        let size = u64_at(header(i) + 0x20)? as usize;
        elf.get(off..off + size)
    })
}

/// Where the default corpus leaves out a duplicate code object version (clang-15's V3 beside
/// V4, clang-22's V6 beside V5, for the sources outside
/// `hsaemu_testkit::DUPLICATE_VERSION_SOURCES`), what the dropped object would add must be
/// nothing: the same `.text` as its sibling's, the same metadata forms but for the version
/// keys. Compares `objects` (source, target, duplicate path, sibling path); returns the
/// differences found.
fn duplicates_repeat_their_siblings(objects: &[(String, String, PathBuf, PathBuf)]) -> Vec<String> {
    let read = |p: &Path| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut differences = Vec::new();
    let batches: Vec<[&Path; 2]> = objects
        .iter()
        .map(|(_, _, d, s)| [d.as_path(), s.as_path()])
        .collect();
    let notes = hsaemu_testkit::parallel_map(&batches, |paths| {
        readelf_notes(readelf_for(paths[0]), paths)
    });
    for ((src, target, dup, sib), notes) in objects.iter().zip(notes) {
        let (d, s) = (read(dup), read(sib));
        let what = format!("{src} {target} ({} vs {})", dup.display(), sib.display());
        let text = elf_section(&d, ".text");
        if text.is_none() || text != elf_section(&s, ".text") {
            differences.push(format!("{what}: .text differs"));
        }
        let forms: Vec<BTreeSet<String>> = [dup, sib]
            .iter()
            .zip(&notes)
            .map(|(p, n)| forms_but_version(&metadata_forms(&readelf_metadata(p, n))))
            .collect();
        if forms[0] != forms[1] {
            let only: Vec<_> = forms[0].symmetric_difference(&forms[1]).collect();
            differences.push(format!("{what}: metadata forms differ: {only:?}"));
        }
    }
    differences
}

/// llvm-readelf-15, or llvm-readelf-22 for the processors only LLVM 22 knows (clang-22's
/// gfx942/gfx950 and GFX11 objects, and the generic targets).
fn readelf_for(path: &Path) -> &'static str {
    let bytes = std::fs::read(path).unwrap_or_default();
    let mach = bytes.get(48).copied().unwrap_or(0);
    let llvm22 = hsaemu_codeobject::processor_by_mach(u32::from(mach))
        .is_some_and(|p| hsaemu_testkit::is_clang22_target(p.name));
    if llvm22 {
        "llvm-readelf-22"
    } else {
        "llvm-readelf-15"
    }
}

/// `llvm-readelf --notes` of code objects that take the same readelf, in one process: each
/// process starts LLVM afresh (~20 ms of CPU, more than printing a code object's notes).
/// Returns each file's part of the output, in the order given.
fn readelf_notes(readelf: &str, paths: &[&Path]) -> Vec<String> {
    let mut args = vec!["--notes".to_string()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_tool(&tool(readelf), &args);
    let text = String::from_utf8_lossy(&out);
    if paths.len() == 1 {
        return vec![text.into_owned()];
    }
    // With several inputs each file's part starts with `File: <path>`.
    let mut parts = vec![String::new(); paths.len()];
    let mut current = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("File: ") {
            current = paths.iter().position(|p| p.as_os_str() == name);
            assert!(current.is_some(), "{readelf} names an unknown file: {line}");
            continue;
        }
        if let Some(i) = current {
            parts[i].push_str(line);
            parts[i].push('\n');
        }
    }
    parts
}

/// The metadata YAML in a code object's `llvm-readelf --notes` output.
fn readelf_metadata(path: &Path, text: &str) -> Yaml {
    let start = text
        .find("Metadata:\n")
        .unwrap_or_else(|| panic!("{}: llvm-readelf printed no metadata note", path.display()));
    let mut yaml = String::new();
    for line in text[start..].lines().skip(1) {
        if line.trim() == "---" {
            yaml.push_str("---\n");
            continue;
        }
        yaml.push_str(line);
        yaml.push('\n');
        if line == "..." {
            break;
        }
    }
    let mut docs = YamlLoader::load_from_str(&yaml)
        .unwrap_or_else(|e| panic!("{}: llvm-readelf YAML: {e}", path.display()));
    assert!(!docs.is_empty(), "{}: empty metadata", path.display());
    docs.swap_remove(0)
}

fn int(y: &Yaml) -> Option<u64> {
    y.as_i64().map(|v| v as u64)
}

/// Compares one code object (file on disk, its metadata as llvm-readelf printed it, and our
/// report entry for it). Returns the number of kernels compared.
fn compare(path: &Path, md: &Yaml, ours: &Value, what: &str) -> usize {
    let data = std::fs::read(path).expect("read code object");
    let co = CodeObject::parse(&data).unwrap_or_else(|e| panic!("{what}: {e}"));
    let v2 = !md["Kernels"].is_badvalue();
    let kernels_yaml = if v2 {
        &md["Kernels"]
    } else {
        &md["amdhsa.kernels"]
    };
    let theirs = kernels_yaml
        .as_vec()
        .unwrap_or_else(|| panic!("{what}: no kernel list"));
    let our_kernels = ours["kernels"].as_array().expect("kernels array");
    assert_eq!(our_kernels.len(), theirs.len(), "{what}: kernel count");
    // Version: V2 from the note, V3+ from amdhsa.version ([1,0] V3, [1,1] V4, [1,2] V5).
    let version = ours["code_object_version"].as_u64().expect("version");
    if v2 {
        assert_eq!(version, 2, "{what}: version");
    } else {
        // Compilers write [1,0] for V3, [1,1] for V4, [1,2] for V5 (hand-written assembly
        // metadata may say anything).
        let minor = int(&md["amdhsa.version"][1]).expect("amdhsa.version");
        if theirs_language(md) != Some("Assembler") {
            assert_eq!(
                version.min(5),
                3 + minor,
                "{what}: version vs amdhsa.version {minor}"
            );
        }
        // V4+: the target decoded from e_flags must be the metadata's target.
        if let Some(t) = md["amdhsa.target"].as_str() {
            assert_eq!(ours["target"].as_str(), Some(t), "{what}: target");
        }
    }
    for (ok, tk) in our_kernels.iter().zip(theirs) {
        let name = ok["name"].as_str().unwrap_or("?");
        let w = format!("{what}: kernel {name}");
        let (k, props, args_key) = if v2 {
            (tk, &tk["CodeProps"], "Args")
        } else {
            (tk, tk, ".args")
        };
        let key = |v2k: &'static str, v3k: &'static str| if v2 { v2k } else { v3k };
        assert_eq!(Some(name), k[key("Name", ".name")].as_str(), "{w}: name");
        assert_eq!(
            ok["symbol"].as_str(),
            k[key("SymbolName", ".symbol")].as_str(),
            "{w}: symbol"
        );
        for (our_key, v2k, v3k) in [
            (
                "kernarg_segment_size",
                "KernargSegmentSize",
                ".kernarg_segment_size",
            ),
            (
                "group_segment_fixed_size",
                "GroupSegmentFixedSize",
                ".group_segment_fixed_size",
            ),
            (
                "private_segment_fixed_size",
                "PrivateSegmentFixedSize",
                ".private_segment_fixed_size",
            ),
            ("sgpr_count", "NumSGPRs", ".sgpr_count"),
            ("vgpr_count", "NumVGPRs", ".vgpr_count"),
            ("wavefront_size", "WavefrontSize", ".wavefront_size"),
            (
                "kernarg_segment_align",
                "KernargSegmentAlign",
                ".kernarg_segment_align",
            ),
            (
                "max_flat_workgroup_size",
                "MaxFlatWorkGroupSize",
                ".max_flat_workgroup_size",
            ),
        ] {
            let theirs = int(&props[key(v2k, v3k)]).unwrap_or(0);
            assert_eq!(ok[our_key].as_u64(), Some(theirs), "{w}: {our_key}");
        }
        if !v2 {
            assert_eq!(
                ok["agpr_count"].as_u64(),
                int(&k[".agpr_count"]),
                "{w}: agpr_count"
            );
        }
        let targs = k[args_key].as_vec().cloned().unwrap_or_default();
        let oargs = ok["args"].as_array().expect("args");
        assert_eq!(oargs.len(), targs.len(), "{w}: argument count");
        let mut v2_offset = 0u64;
        for (i, (oa, ta)) in oargs.iter().zip(&targs).enumerate() {
            let (size, kind, offset) = if v2 {
                let size = int(&ta["Size"]).expect("Size");
                let align = int(&ta["Align"]).expect("Align");
                v2_offset = v2_offset.div_ceil(align) * align;
                let off = v2_offset;
                v2_offset += size;
                let kind = ValueKind::from_v2(ta["ValueKind"].as_str().expect("ValueKind"));
                (size, kind.as_str().to_string(), off)
            } else {
                let kind = ta[".value_kind"].as_str().expect(".value_kind").to_string();
                (
                    int(&ta[".size"]).expect(".size"),
                    kind,
                    int(&ta[".offset"]).expect(".offset"),
                )
            };
            assert_eq!(oa["offset"].as_u64(), Some(offset), "{w}: arg {i} offset");
            assert_eq!(oa["size"].as_u64(), Some(size), "{w}: arg {i} size");
            assert_eq!(
                oa["value_kind"].as_str(),
                Some(kind.as_str()),
                "{w}: arg {i} value_kind"
            );
        }
        // The descriptor agrees with the metadata: sizes, wave size, and allocated registers
        // cover the used ones.
        let d = &ok["descriptor"];
        assert_eq!(
            d["group_segment_fixed_size"], ok["group_segment_fixed_size"],
            "{w}: KD group size"
        );
        assert_eq!(
            d["private_segment_fixed_size"], ok["private_segment_fixed_size"],
            "{w}: KD private size"
        );
        assert_eq!(
            d["wavefront_size"], ok["wavefront_size"],
            "{w}: KD wavefront size"
        );
        let kd_kernarg = d["kernarg_size"].as_u64().expect("kernarg_size");
        assert!(
            kd_kernarg == 0 || kd_kernarg == ok["kernarg_segment_size"].as_u64().unwrap_or(0),
            "{w}: KD kernarg size {kd_kernarg}"
        );
        // With a unified VGPR+AGPR file (gfx90a/94x) LLVM's `.vgpr_count` is already the total
        // (architectural VGPRs rounded up to 4, plus AGPRs), which is what the descriptor
        // allocates; elsewhere AGPRs are a separate file.
        let vgprs = ok["vgpr_count"].as_u64().unwrap_or(0);
        let alloc = d["allocated_vgpr_count"].as_u64().expect("allocated vgprs");
        assert!(
            alloc >= vgprs.max(1),
            "{w}: {alloc} VGPRs allocated for {vgprs} used"
        );
        if let Some(s) = d["allocated_sgpr_count"].as_u64() {
            assert!(
                s >= ok["sgpr_count"].as_u64().unwrap_or(0),
                "{w}: {s} SGPRs allocated for {} used",
                ok["sgpr_count"]
            );
        }
        // V2: amd_kernel_code_t's own register counts are the metadata's.
        if v2 {
            let akc = co
                .amd_kernel_code(ok["symbol"].as_str().unwrap_or(""))
                .unwrap_or_else(|e| panic!("{w}: {e}"));
            assert_eq!(
                u64::from(akc.workitem_vgpr_count),
                ok["vgpr_count"].as_u64().unwrap_or(0),
                "{w}: akc vgprs"
            );
            assert_eq!(
                u64::from(akc.wavefront_sgpr_count),
                ok["sgpr_count"].as_u64().unwrap_or(0),
                "{w}: akc sgprs"
            );
        }
    }
    theirs.len()
}

fn theirs_language(md: &Yaml) -> Option<&str> {
    md["amdhsa.kernels"][0][".language"].as_str()
}

/// Takes a bundle or host binary apart with the LLVM tools; returns (entry ID, code object
/// path) for every amdgcn entry.
fn llvm_unbundle(path: &Path, kind: &CorpusKind, scratch: &Path) -> Vec<(String, PathBuf)> {
    let stem = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bundle = if *kind == CorpusKind::HostBinary {
        let out = scratch.join(format!("{stem}.hip_fatbin"));
        let junk = scratch.join(format!("{stem}.objcopy"));
        run_tool(
            &tool("llvm-objcopy-15"),
            &[
                &format!("--dump-section=.hip_fatbin={}", out.display()),
                &path.display().to_string(),
                &junk.display().to_string(),
            ],
        );
        out
    } else {
        path.to_path_buf()
    };
    let bundler = tool("clang-offload-bundler-15");
    let list = run_tool(
        &bundler,
        &[
            "--list",
            "--type=o",
            &format!("--input={}", bundle.display()),
        ],
    );
    let mut out = Vec::new();
    for id in String::from_utf8_lossy(&list)
        .lines()
        .filter(|l| l.contains("amdgcn"))
    {
        let co = scratch.join(format!("{stem}.{}.co", id.replace([':', '+'], "_")));
        run_tool(
            &bundler,
            &[
                "--unbundle",
                "--type=o",
                &format!("--input={}", bundle.display()),
                &format!("--targets={id}"),
                &format!("--output={}", co.display()),
            ],
        );
        out.push((id.to_string(), co));
    }
    out
}

/// What one corpus file contributed.
#[derive(Default)]
struct Tally {
    objects: usize,
    kernels: usize,
    bundle_entries: usize,
    versions: std::collections::BTreeSet<u32>,
    targets: std::collections::BTreeSet<String>,
    /// Per (target, version) of the plain code objects, their [`metadata_forms`].
    forms: BTreeMap<(String, u32), BTreeSet<String>>,
}

/// Checks one corpus file; `notes` holds llvm-readelf's notes of every plain code object.
fn check_entry(entry: &CorpusEntry, scratch: &Path, notes: &HashMap<PathBuf, String>) -> Tally {
    let mut t = Tally::default();
    let data = std::fs::read(&entry.path).expect("read corpus file");
    let (json, _text) =
        report::inspect(&data).unwrap_or_else(|e| panic!("{}: {e}", entry.path.display()));
    let ours = json["code_objects"]
        .as_array()
        .expect("code_objects")
        .clone();
    match &entry.kind {
        CorpusKind::CodeObject { target, version } => {
            assert_eq!(ours.len(), 1);
            assert_eq!(ours[0]["bundle_id"], Value::Null);
            assert_eq!(
                ours[0]["code_object_version"].as_u64(),
                Some(u64::from(*version)),
                "{}",
                entry.path.display()
            );
            let got = ours[0]["target"].as_str().unwrap_or("");
            assert!(
                got.starts_with(&format!(
                    "amdgcn-amd-amdhsa--{}",
                    hsaemu_testkit::processor(target)
                )),
                "{}: target {got} for {target}",
                entry.path.display()
            );
            let text = notes.get(&entry.path).expect("notes of every code object");
            let md = readelf_metadata(&entry.path, text);
            t.forms
                .entry((target.clone(), *version))
                .or_default()
                .extend(metadata_forms(&md));
            t.kernels += compare(
                &entry.path,
                &md,
                &ours[0],
                &entry.path.display().to_string(),
            );
            t.objects += 1;
            t.versions.insert(*version);
            t.targets.insert(target.clone());
        }
        kind => {
            let llvm = llvm_unbundle(&entry.path, kind, scratch);
            let mut our_ids: Vec<&str> = ours
                .iter()
                .filter_map(|o| o["bundle_id"].as_str())
                .collect();
            let mut their_ids: Vec<&str> = llvm.iter().map(|(id, _)| id.as_str()).collect();
            our_ids.sort_unstable();
            their_ids.sort_unstable();
            assert_eq!(
                our_ids,
                their_ids,
                "{}: bundle entry IDs",
                entry.path.display()
            );
            for (id, co_path) in &llvm {
                let o = ours
                    .iter()
                    .find(|o| o["bundle_id"].as_str() == Some(id))
                    .expect("entry");
                let text = readelf_notes(readelf_for(co_path), &[co_path.as_path()]).remove(0);
                let what = format!("{} [{id}]", entry.path.display());
                let md = readelf_metadata(co_path, &text);
                t.kernels += compare(co_path, &md, o, &what);
                t.objects += 1;
                t.bundle_entries += 1;
            }
        }
    }
    t
}

#[test]
fn inspect_agrees_with_llvm_readelf_on_the_whole_corpus() {
    let scratch = std::env::temp_dir().join(format!("hsaemu-readelf-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let entries = corpus();
    // llvm-readelf's notes of the plain code objects, 32 files of one readelf per process.
    let mut by_tool: BTreeMap<&str, Vec<&Path>> = BTreeMap::new();
    for e in &entries {
        if matches!(e.kind, CorpusKind::CodeObject { .. }) {
            by_tool
                .entry(readelf_for(&e.path))
                .or_default()
                .push(&e.path);
        }
    }
    let batches: Vec<(&str, &[&Path])> = by_tool
        .iter()
        .flat_map(|(t, paths)| paths.chunks(32).map(move |c| (*t, c)))
        .collect();
    let texts =
        hsaemu_testkit::parallel_map(&batches, |&(readelf, paths)| readelf_notes(readelf, paths));
    let notes: HashMap<PathBuf, String> = batches
        .iter()
        .flat_map(|(_, paths)| paths.iter().map(|p| p.to_path_buf()))
        .zip(texts.into_iter().flatten())
        .collect();
    let mut t = Tally::default();
    for e in hsaemu_testkit::parallel_map(&entries, |entry| check_entry(entry, &scratch, &notes)) {
        t.objects += e.objects;
        t.kernels += e.kernels;
        t.bundle_entries += e.bundle_entries;
        t.versions.extend(e.versions);
        t.targets.extend(e.targets);
        for (k, f) in e.forms {
            t.forms.entry(k).or_default().extend(f);
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!(
        "compared {} code objects ({} from bundles), {} kernels; versions {:?}; targets {:?}",
        t.objects, t.bundle_entries, t.kernels, t.versions, t.targets
    );
    assert!(
        t.versions.len() >= 4 && t.targets.len() >= 8,
        "corpus must cover V2..V5 and all targets"
    );
    assert!(
        t.bundle_entries >= 7 + 7,
        "every rocRAND and HIP bundle entry"
    );
    // Every target in every code object version, and where the default corpus builds a
    // duplicate version for some sources only, those show every metadata form the sibling
    // version's objects of all sources show (their metadata are the same but for the version
    // keys: `dropped_duplicate_versions_repeat_their_siblings`).
    for target in hsaemu_testkit::TARGETS {
        for &v in hsaemu_testkit::code_object_versions(target) {
            assert!(
                t.forms.contains_key(&(target.to_string(), v)),
                "no {target} V{v} code object in the corpus"
            );
        }
        let Some((dup, sib)) = hsaemu_testkit::duplicate_version(target) else {
            continue;
        };
        let forms = |v: u32| forms_but_version(&t.forms[&(target.to_string(), v)]);
        let missing: Vec<String> = forms(sib).difference(&forms(dup)).cloned().collect();
        assert!(
            missing.is_empty(),
            "{target}: the V{dup} code objects lack metadata the V{sib} ones have: {missing:?}; \
             add a source that has it to hsaemu_testkit::DUPLICATE_VERSION_SOURCES"
        );
    }
    // HSAEMU_FULL_CORPUS=1: every duplicate the default corpus leaves out adds nothing.
    if hsaemu_testkit::full_corpus() {
        let differences = duplicates_repeat_their_siblings(&left_out_duplicates(&entries));
        assert!(differences.is_empty(), "{differences:#?}");
    }
}

/// The code objects of `entries` in a duplicate version that the default corpus leaves out,
/// each as (source, target, its path, its sibling's path).
fn left_out_duplicates(entries: &[CorpusEntry]) -> Vec<(String, String, PathBuf, PathBuf)> {
    let mut by_key: HashMap<(&str, &str, u32), &Path> = HashMap::new();
    for e in entries {
        if let CorpusKind::CodeObject { target, version } = &e.kind {
            by_key.insert((e.source.as_str(), target.as_str(), *version), &e.path);
        }
    }
    let mut out = Vec::new();
    for (&(src, target, v), path) in &by_key {
        let Some((dup, sib)) = hsaemu_testkit::duplicate_version(target) else {
            continue;
        };
        if v == dup && !hsaemu_testkit::corpus_has(src, target, v, false) {
            let sibling = by_key[&(src, target, sib)];
            out.push((
                src.to_string(),
                target.to_string(),
                path.to_path_buf(),
                sibling.to_path_buf(),
            ));
        }
    }
    out.sort();
    out
}

/// The argument for leaving duplicate versions out of the default corpus, on a sample: for
/// every target with a duplicate version, one source the default corpus builds only in the
/// sibling version (a different source per target, so the sample spans many) is compiled in
/// the duplicate version too, and must have the sibling's `.text` and metadata forms but for
/// the version keys. `HSAEMU_FULL_CORPUS=1` makes the corpus test check every such object.
#[test]
fn dropped_duplicate_versions_repeat_their_siblings() {
    let mut sample = Vec::new();
    for (i, target) in hsaemu_testkit::TARGETS.iter().enumerate() {
        let Some((dup, sib)) = hsaemu_testkit::duplicate_version(target) else {
            continue;
        };
        let left_out: Vec<String> = hsaemu_testkit::sources("cl", "cl")
            .into_iter()
            .filter(|s| {
                hsaemu_testkit::corpus_has(s, target, sib, false)
                    && !hsaemu_testkit::corpus_has(s, target, dup, false)
            })
            .collect();
        assert!(left_out.len() > 10, "{target}: {left_out:?}");
        let src = &left_out[(i * 7) % left_out.len()];
        sample.push((src.clone(), target.to_string(), dup, sib));
    }
    let objects: Vec<(String, String, PathBuf, PathBuf)> =
        hsaemu_testkit::parallel_map(&sample, |(src, target, dup, sib)| {
            (
                src.clone(),
                target.clone(),
                hsaemu_testkit::compile_cl(src, target, *dup),
                hsaemu_testkit::compile_cl(src, target, *sib),
            )
        });
    eprintln!(
        "sample: {:?}",
        objects
            .iter()
            .map(|(s, t, ..)| format!("{s} {t}"))
            .collect::<Vec<_>>()
    );
    let differences = duplicates_repeat_their_siblings(&objects);
    assert!(differences.is_empty(), "{differences:#?}");
}
