//! Implementation of the `hsaemu disasm` command: `llvm-objdump -d` for AMDGPU code objects,
//! offload bundles and HIP fat binaries, using hsaemu's own decoder and disassembler.
//!
//! Output follows llvm-objdump-15's layout (a header per code object, one `<addr> <symbol>:`
//! header per function, then `\t<instruction>  // <address>: <words>`), so the two outputs can
//! be compared line by line.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use hsaemu_codeobject::code_object::SymbolKind;
use hsaemu_codeobject::{bundle, CodeObject};
use hsaemu_isa::{listing, Gen, TextSymbol};

#[derive(clap::Args)]
pub struct Args {
    /// A code object (.hsaco/.o), an offload bundle, or a host binary with a .hip_fatbin section.
    pub file: PathBuf,
    /// Only disassemble this kernel or function (symbol name).
    #[arg(long)]
    pub kernel: Option<String>,
    /// GFX10: print lane masks as wave64 code uses them (like llvm-objdump's
    /// `--mattr=+wavefrontsize64`); the default is wave32, as clang compiles for gfx1030.
    #[arg(long)]
    pub wave64: bool,
}

pub fn run(args: Args) -> Result<ExitCode, String> {
    let data = std::fs::read(&args.file).map_err(|e| format!("{}: {e}", args.file.display()))?;
    let found =
        bundle::find_code_objects(&data).map_err(|e| format!("{}: {e}", args.file.display()))?;
    if found.is_empty() {
        return Err(format!(
            "{}: no AMDGPU code objects found",
            args.file.display()
        ));
    }
    let mut out = String::new();
    let mut matched = false;
    for co in &found {
        let name = match &co.bundle_id {
            Some(id) => format!("{}[{id}]", args.file.display()),
            None => args.file.display().to_string(),
        };
        matched |= render(
            &mut out,
            &name,
            &co.data,
            args.kernel.as_deref(),
            args.wave64,
        )?;
    }
    if let Some(k) = &args.kernel {
        if !matched {
            return Err(format!(
                "{}: no kernel or function named `{k}`",
                args.file.display()
            ));
        }
    }
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = stdout.write_all(out.as_bytes());
    Ok(ExitCode::SUCCESS)
}

/// Appends the listing of one code object; returns whether `kernel` (if any) was found in it.
fn render(
    out: &mut String,
    name: &str,
    data: &[u8],
    kernel: Option<&str>,
    wave64: bool,
) -> Result<bool, String> {
    let obj = CodeObject::parse(data).map_err(|e| format!("{name}: {e}"))?;
    let processor = obj.target().processor().to_string();
    let _ = writeln!(out, "\n{name}:\tfile format elf64-amdgpu");
    let Some(gen) = Gen::from_processor(&processor)
        .filter(|g| g.is_supported())
        .map(|g| g.with_wave64(wave64))
    else {
        let _ = writeln!(
            out,
            "; {processor}: no decoding tables for this processor yet"
        );
        return Ok(false);
    };
    let sections = obj.sections();
    let Some((text_index, text)) = sections.iter().enumerate().find(|(_, s)| s.name == ".text")
    else {
        return Ok(false);
    };
    let bytes = usize::try_from(text.offset)
        .ok()
        .zip(usize::try_from(text.size).ok())
        .and_then(|(o, n)| data.get(o..o.checked_add(n)?))
        .ok_or_else(|| {
            format!(
                "{name}: .text (offset {:#x}, size {:#x}) lies outside the file",
                text.offset, text.size
            )
        })?;
    let symbols: Vec<TextSymbol> = obj
        .symbols()
        .iter()
        .filter(|s| s.defined && usize::from(s.section_index) == text_index)
        .filter(|s| {
            matches!(
                s.kind,
                SymbolKind::Function | SymbolKind::Kernel | SymbolKind::Other(0)
            )
        })
        .filter(|s| !s.name.is_empty())
        .map(|s| TextSymbol {
            name: s.name.clone(),
            addr: s.value,
            size: s.size,
        })
        .collect();
    let only = match kernel {
        Some(k) => match symbols.iter().find(|s| s.name == k) {
            Some(s) => Some(s),
            None => return Ok(false),
        },
        None => None,
    };
    let _ = writeln!(out, "\nDisassembly of section .text:");
    out.push_str(&listing(gen, bytes, text.addr, &symbols, only));
    Ok(kernel.is_some())
}
