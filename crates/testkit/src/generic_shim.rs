//! Bridges clang-22's and ROCm 5.2's manglings of generic-address-space pointers.
//!
//! clang-22 mangles an OpenCL `__generic` pointer parameter as a plain `P`
//! (`atomic_load_explicit(int _Atomic volatile*, …)`), while ROCm 5.2's `opencl.bc` was built by
//! a clang that wrote `PU3AS0` (`… volatile AS0*`). A kernel calling such a function (the
//! `*_explicit` atomics, `fract`, `sincos`, …) therefore ends with an undefined symbol. The
//! shim defines each symbol a kernel leaves undefined as a one-line call of the library
//! definition whose demangled name is the same once ` AS0` is dropped; it is linked before the
//! libraries, so the libraries then supply the callee. The optimizer inlines the call away.

use crate::{cache_dir, run_tool, tool, DEVICE_LIB_PATH};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A library definition: mangled name, return type (with its attributes), parameter types.
pub struct Def {
    pub name: String,
    pub ret: String,
    pub params: Vec<String>,
}

/// The datalayout line and the `PU3AS0` definitions of `opencl.bc`, by demangled name without
/// ` AS0`.
struct Library {
    layout: String,
    defs: HashMap<String, Def>,
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).into_owned()
}

fn demangle(names: &[String]) -> Vec<String> {
    let filt = tool("llvm-cxxfilt-22");
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    text(run_tool(&filt, &refs))
        .lines()
        .map(str::to_string)
        .collect()
}

/// Splits an LLVM parameter list at its top-level commas.
fn split_params(list: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (k, ch) in list.char_indices() {
        match ch {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(list[start..k].trim());
                start = k + 1;
            }
            _ => {}
        }
    }
    if !list[start..].trim().is_empty() {
        out.push(list[start..].trim());
    }
    out
}

/// The type at the start of a parameter (`<4 x float>`, `ptr addrspace(5)`, `i32`).
fn param_type(p: &str) -> String {
    if p.starts_with('<') {
        return p[..=p.find('>').unwrap_or(p.len() - 1)].to_string();
    }
    if let Some(rest) = p.strip_prefix("ptr addrspace(") {
        let close = rest.find(')').unwrap_or(0);
        return format!("ptr addrspace({})", &rest[..close]);
    }
    p.split_whitespace().next().unwrap_or("").to_string()
}

/// Parses `define <linkage/visibility> RET @NAME(PARAMS) …`.
pub fn parse_define(line: &str) -> Option<Def> {
    let at = line.find(" @")?;
    let open = at + line[at..].find('(')?;
    let name = line[at + 2..open].to_string();
    let head = &line["define ".len()..at];
    let ret = head
        .split_whitespace()
        .skip_while(|w| {
            matches!(
                *w,
                "linkonce_odr" | "weak_odr" | "internal" | "protected" | "hidden" | "dso_local"
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    // The parameter list ends at the parenthesis matching `open`.
    let mut depth = 0;
    let mut close = open;
    for (k, ch) in line[open..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = open + k;
                    break;
                }
            }
            _ => {}
        }
    }
    let params = split_params(&line[open + 1..close])
        .into_iter()
        .map(param_type)
        .collect();
    Some(Def { name, ret, params })
}

fn library() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(|| {
        let bc = format!("{DEVICE_LIB_PATH}/opencl.bc");
        let ll = text(run_tool(&tool("llvm-dis-22"), &[&bc, "-o", "-"]));
        let layout = ll
            .lines()
            .find(|l| l.starts_with("target datalayout"))
            .unwrap_or("")
            .to_string();
        let defs: Vec<Def> = ll
            .lines()
            .filter(|l| l.starts_with("define ") && l.contains("PU3AS0"))
            .filter_map(parse_define)
            .collect();
        let names: Vec<String> = defs.iter().map(|d| d.name.clone()).collect();
        let plain = demangle(&names);
        let defs = plain
            .into_iter()
            .zip(defs)
            .map(|(d, def)| (d.replace(" AS0", ""), def))
            .collect();
        Library { layout, defs }
    })
}

/// The shim bitcode for a bitcode module `bc` (compiled with the device libraries linked), or
/// `None` when it leaves no library function undefined.
pub(crate) fn shim_for(bc: &Path) -> Option<PathBuf> {
    let nm = text(run_tool(
        &tool("llvm-nm-22"),
        &[
            "--undefined-only",
            "--format=just-symbols",
            &bc.display().to_string(),
        ],
    ));
    let undefined: Vec<String> = nm
        .lines()
        .filter(|s| s.starts_with("_Z"))
        .map(str::to_string)
        .collect();
    if undefined.is_empty() {
        return None;
    }
    let lib = library();
    let mut ll = format!("{}\ntarget triple = \"amdgcn-amd-amdhsa\"\n", lib.layout);
    for (sym, plain) in undefined.iter().zip(demangle(&undefined)) {
        let Some(def) = lib.defs.get(&plain) else {
            continue; // not a generic-pointer mismatch: the link reports it
        };
        let ty = |k: usize| def.params[k].clone();
        let decl: Vec<String> = (0..def.params.len()).map(ty).collect();
        let args: Vec<String> = (0..def.params.len())
            .map(|k| format!("{} %{k}", ty(k)))
            .collect();
        let call = format!("call {} @{}({})", def.ret, def.name, args.join(", "));
        let ret_ty = def.ret.split_whitespace().last().unwrap_or("void");
        let ret_ty = if def.ret.ends_with('>') {
            &def.ret[def.ret.find('<').unwrap_or(0)..]
        } else {
            ret_ty
        };
        let body = if ret_ty == "void" {
            format!("  {call}\n  ret void")
        } else {
            format!("  %r = {call}\n  ret {ret_ty} %r")
        };
        ll.push_str(&format!(
            "declare {} @{}({})\ndefine linkonce_odr hidden {} @{sym}({}) {{\n{body}\n}}\n",
            def.ret,
            def.name,
            decl.join(", "),
            def.ret,
            args.join(", ")
        ));
    }
    let hex: String = Sha256::digest(ll.as_bytes())[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let out = cache_dir().join(format!("generic-shim-{hex}.bc"));
    if !out.is_file() {
        let src = crate::temp_beside(&out, "ll");
        let tmp = crate::temp_beside(&out, "bc");
        std::fs::write(&src, &ll).unwrap_or_else(|e| panic!("cannot write {}: {e}", src.display()));
        let (s, t) = (src.display().to_string(), tmp.display().to_string());
        run_tool(&tool("llvm-as-22"), &[&s, "-o", &t]);
        let _ = std::fs::remove_file(&src);
        std::fs::rename(&tmp, &out)
            .unwrap_or_else(|e| panic!("cannot move {} into the cache: {e}", tmp.display()));
    }
    Some(out)
}
