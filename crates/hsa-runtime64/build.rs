//! Builds the export table of libhsa-runtime64.so.1 (landscape.md §6.2, option A): every name
//! in `rocr_exports.txt` is defined with `--defsym` as an alias of its implementation in
//! hsaemu-capi (`hsaemu_<name>`), of the `sc*` function it is a deprecated alias of, or of its
//! stub (`hsaemu_stub_<name>`, capi/src/unimplemented.rs); a name with none of these fails the
//! build. A version script puts them all in `ROCR_1`. The routing is
//! also written to `$OUT_DIR/exports.tsv` for tests and docs.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let list = manifest.join("rocr_exports.txt");
    let capi_src = manifest.join("../capi/src");
    println!("cargo:rerun-if-changed={}", list.display());
    println!("cargo:rerun-if-changed={}", capi_src.display());

    // Names implemented in hsaemu-capi: every `hsaemu_hsa_*` identifier in its sources; names
    // stubbed: every `hsaemu_stub_*` identifier.
    let mut implemented: BTreeSet<String> = BTreeSet::new();
    let mut stubbed: BTreeSet<String> = BTreeSet::new();
    for entry in std::fs::read_dir(&capi_src).expect("read capi/src") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            println!("cargo:rerun-if-changed={}", path.display());
            let text = std::fs::read_to_string(&path).expect("read capi source");
            for (prefix, set) in [
                ("hsaemu_", &mut implemented),
                ("hsaemu_stub_", &mut stubbed),
            ] {
                for (i, _) in text.match_indices(&format!("{prefix}hsa_")) {
                    let rest = &text[i + prefix.len()..];
                    let end = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    set.insert(rest[..end].to_string());
                }
            }
        }
    }

    let names: Vec<String> = std::fs::read_to_string(&list)
        .expect("read rocr_exports.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();

    let mut script = String::from("ROCR_1 {\n  global:\n");
    let mut table = String::new();
    for name in &names {
        let target = if name == "_amdgpu_r_debug" {
            "hsaemu_amdgpu_r_debug".to_string()
        } else if implemented.contains(name) {
            format!("hsaemu_{name}")
        } else if let Some(sc) = sc_twin(name).filter(|sc| implemented.contains(sc)) {
            format!("hsaemu_{sc}")
        } else if stubbed.contains(name) {
            format!("hsaemu_stub_{name}")
        } else {
            panic!("{name} is exported by ROCm but neither implemented nor stubbed in hsaemu-capi (add it to capi/src/unimplemented.rs)");
        };
        println!("cargo:rustc-cdylib-link-arg=-Wl,--defsym={name}={target}");
        let _ = writeln!(script, "    {name};");
        let _ = writeln!(table, "{name}\t{target}");
    }
    script.push_str("};\n");
    let map = out.join("rocr.map");
    std::fs::write(&map, script).expect("write version script");
    std::fs::write(out.join("exports.tsv"), table).expect("write export table");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        map.display()
    );
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libhsa-runtime64.so.1");
}

/// The `sc*` name a deprecated ROCm alias stands for (`hsa_signal_add_acquire` →
/// `hsa_signal_add_scacquire`).
fn sc_twin(name: &str) -> Option<String> {
    for (old, new) in [
        ("_acq_rel", "_scacq_screl"),
        ("_acquire", "_scacquire"),
        ("_release", "_screlease"),
    ] {
        if let Some(stem) = name.strip_suffix(old) {
            return Some(format!("{stem}{new}"));
        }
    }
    None
}
