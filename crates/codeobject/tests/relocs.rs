//! Symbols and dynamic relocations against `llvm-readelf-15 -r --dyn-syms`: OpenCL
//! program-scope globals (`cl/co_globals.cl`, an R_AMDGPU_RELATIVE64) for every target and
//! version, and hand-written assembly (`asm/extern_ref.S`) with a RELATIVE64 and an ABS64
//! against an undefined symbol.

use hsaemu_codeobject::{Binding, CodeObject, RelocKind, SymbolKind};
use hsaemu_testkit::{
    code_object_versions, compile_asm, compile_cl, processor, run_tool, tool, TARGETS,
};
use std::path::Path;

/// (offset, type name, symbol, addend) per relocation line.
fn readelf_relocs(text: &str) -> Vec<(u64, String, Option<String>, i64)> {
    let hex = |s: &str| u64::from_str_radix(s, 16).expect("hex");
    text.lines()
        .filter(|l| l.contains("R_AMDGPU_"))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.as_slice() {
                [off, _info, ty, addend] => (hex(off), ty.to_string(), None, hex(addend) as i64),
                [off, _info, ty, _value, name, sign, addend] => {
                    let a = hex(addend) as i64;
                    (
                        hex(off),
                        ty.to_string(),
                        Some(name.to_string()),
                        if *sign == "-" { -a } else { a },
                    )
                }
                _ => panic!("unexpected relocation line: {l}"),
            }
        })
        .collect()
}

/// (value, size, type, bind, defined, name) per .dynsym line (without the null symbol).
fn readelf_dynsyms(text: &str) -> Vec<(u64, u64, String, String, bool, String)> {
    let start = text
        .find("Symbol table '.dynsym'")
        .expect("a .dynsym table");
    text[start..]
        .lines()
        .skip(2)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let [_, value, size, ty, bind, _vis, ndx, name] = f.as_slice() else {
                return None;
            };
            Some((
                u64::from_str_radix(value, 16).expect("hex"),
                size.parse().expect("size"),
                ty.to_string(),
                bind.to_string(),
                *ndx != "UND",
                name.to_string(),
            ))
        })
        .collect()
}

fn compare(path: &Path) -> usize {
    let out = run_tool(
        &tool("llvm-readelf-15"),
        &["-r", "--dyn-syms", "--wide", &path.display().to_string()],
    );
    let text = String::from_utf8_lossy(&out);
    let data = std::fs::read(path).expect("read");
    let co = CodeObject::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let w = path.display().to_string();
    let ours: Vec<(u64, String, Option<String>, i64)> = co
        .dynamic_relocations()
        .iter()
        .map(|r| (r.offset, r.kind.name(), r.symbol.clone(), r.addend))
        .collect();
    assert_eq!(ours, readelf_relocs(&text), "{w}: relocations");
    let theirs = readelf_dynsyms(&text);
    assert_eq!(co.symbols().len(), theirs.len(), "{w}: symbol count");
    for (s, (value, size, ty, bind, defined, name)) in co.symbols().iter().zip(&theirs) {
        assert_eq!(
            (&s.name, s.value, s.size, s.defined),
            (name, *value, *size, *defined),
            "{w}"
        );
        let ty_ok = match s.kind {
            SymbolKind::KernelDescriptor | SymbolKind::Object => ty == "OBJECT",
            SymbolKind::Function => ty == "FUNC",
            SymbolKind::Kernel => {
                ty.contains("10") || ty.contains("LOOS") || ty.contains("AMDGPU_HSA_KERNEL")
            }
            SymbolKind::Other(0) => ty == "NOTYPE",
            SymbolKind::Other(_) => true,
        };
        assert!(ty_ok, "{w}: {name}: {:?} vs {ty}", s.kind);
        let bind_ok = matches!(
            (s.binding, bind.as_str()),
            (Binding::Global, "GLOBAL") | (Binding::Local, "LOCAL") | (Binding::Weak, "WEAK")
        );
        assert!(bind_ok, "{w}: {name}: {:?} vs {bind}", s.binding);
    }
    co.dynamic_relocations().len()
}

#[test]
fn relocations_and_symbols_match_llvm_readelf() {
    let mut relocs = 0;
    let mut objects = 0;
    for t in TARGETS {
        for &v in code_object_versions(t) {
            if v == 2 && processor(t) == "gfx908" {
                continue; // clang-15 refuses V2 for gfx908
            }
            let path = compile_cl("cl/co_globals.cl", t, v);
            let n = compare(&path);
            assert!(
                n >= 1,
                "{}: the global pointer initialiser needs a relocation",
                path.display()
            );
            relocs += n;
            objects += 1;
        }
    }
    for v in [3, 4, 5] {
        let path = compile_asm("asm/extern_ref.S", "gfx90a:xnack-", v);
        relocs += compare(&path);
        objects += 1;
        let data = std::fs::read(&path).expect("read");
        let co = CodeObject::parse(&data).expect("parses");
        let kinds: Vec<(RelocKind, Option<&str>)> = co
            .dynamic_relocations()
            .iter()
            .map(|r| (r.kind, r.symbol.as_deref()))
            .collect();
        assert_eq!(
            kinds,
            [
                (RelocKind::Relative64, None),
                (RelocKind::Abs64, Some("external_table"))
            ]
        );
        assert!(co.dynamic_relocations().iter().all(|r| r.kind.is_dynamic()));
        let table = co.symbol("local_table").expect("local_table");
        assert_eq!(co.dynamic_relocations()[0].addend as u64, table.value + 8);
        assert!(
            !co.symbol("external_table")
                .expect("undefined symbol")
                .defined
        );
        // The relocated fields lie in a writable PT_LOAD.
        for r in co.dynamic_relocations() {
            let seg = co
                .load_segments()
                .iter()
                .find(|s| s.vaddr <= r.offset && r.offset + 8 <= s.vaddr + s.memsz)
                .expect("segment");
            assert!(
                seg.flags & 2 != 0,
                "relocation at {:#x} outside a writable segment",
                r.offset
            );
        }
    }
    eprintln!("{objects} code objects, {relocs} relocations compared");
}
