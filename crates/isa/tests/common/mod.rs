//! Test helpers: find AMDGPU code objects in corpus files (plain ELF, offload bundles, host
//! binaries with `.hip_fatbin`), read their `.text`, and run llvm-objdump-15 (22 for
//! gfx942/gfx950) on them, many at a time.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// One code object found in a corpus file.
pub struct CodeObject {
    pub bytes: Vec<u8>,
    /// Where it came from (file and bundle entry).
    pub origin: String,
}

fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?))
}

const AMDGPU_MACHINE: u16 = 224;
const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";

/// Every AMDGPU code object in a file: the file itself, or the entries of every offload
/// bundle found in it.
pub fn code_objects(path: &Path) -> Vec<CodeObject> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    if is_amdgpu_elf(&data) {
        return vec![CodeObject {
            bytes: data,
            origin: path.display().to_string(),
        }];
    }
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(i) = find(&data[pos..], BUNDLE_MAGIC) {
        let start = pos + i;
        let n = u64_at(&data, start + 24).unwrap_or(0) as usize;
        let mut o = start + 32;
        let mut end = start + 32;
        for _ in 0..n.min(64) {
            let (Some(off), Some(size), Some(idlen)) = (
                u64_at(&data, o),
                u64_at(&data, o + 8),
                u64_at(&data, o + 16),
            ) else {
                break;
            };
            let id = data
                .get(o + 24..o + 24 + idlen as usize)
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default();
            o += 24 + idlen as usize;
            let (off, size) = (off as usize, size as usize);
            if let Some(b) = data.get(start + off..start + off + size) {
                end = end.max(start + off + size);
                if is_amdgpu_elf(b) {
                    out.push(CodeObject {
                        bytes: b.to_vec(),
                        origin: format!("{} [{id}]", path.display()),
                    });
                }
            }
        }
        pos = end.max(start + BUNDLE_MAGIC.len());
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn is_amdgpu_elf(b: &[u8]) -> bool {
    b.len() > 64 && &b[..4] == b"\x7fELF" && b[4] == 2 && u16_at(b, 18) == Some(AMDGPU_MACHINE)
}

/// The processor named by the ELF header's `e_flags` (EF_AMDGPU_MACH).
pub fn processor(elf: &[u8]) -> Option<&'static str> {
    let flags = u32_at(elf, 48)?;
    Some(match flags & 0xff {
        0x28 => "gfx801",
        0x29 => "gfx802",
        0x2a => "gfx803",
        0x2c => "gfx900",
        0x2d => "gfx902",
        0x2e => "gfx904",
        0x2f => "gfx906",
        0x30 => "gfx908",
        0x31 => "gfx909",
        0x32 => "gfx90c",
        0x3f => "gfx90a",
        0x40 => "gfx940",
        0x4b => "gfx941",
        0x4c => "gfx942",
        0x4f => "gfx950",
        0x5f => "gfx9-4-generic",
        0x36 => "gfx1030",
        0x41 => "gfx1100",
        0x46 => "gfx1101",
        0x47 => "gfx1102",
        0x44 => "gfx1103",
        0x43 => "gfx1150",
        0x4a => "gfx1151",
        0x55 => "gfx1152",
        0x58 => "gfx1153",
        0x54 => "gfx11-generic",
        0x48 => "gfx1200",
        0x4e => "gfx1201",
        0x59 => "gfx12-generic",
        _ => return None,
    })
}

/// `.text`: (address, bytes).
pub fn text_section(elf: &[u8]) -> Option<(u64, &[u8])> {
    let shoff = u64_at(elf, 40)? as usize;
    let shentsize = u16_at(elf, 58)? as usize;
    let shnum = u16_at(elf, 60)? as usize;
    let shstrndx = u16_at(elf, 62)? as usize;
    let sh = |i: usize| shoff + i * shentsize;
    let stroff = u64_at(elf, sh(shstrndx) + 24)? as usize;
    for i in 0..shnum {
        let name = u32_at(elf, sh(i))? as usize;
        let n = elf.get(stroff + name..)?;
        let n = &n[..n.iter().position(|&c| c == 0)?];
        if n == b".text" {
            let addr = u64_at(elf, sh(i) + 16)?;
            let off = u64_at(elf, sh(i) + 24)? as usize;
            let size = u64_at(elf, sh(i) + 32)? as usize;
            return Some((addr, elf.get(off..off + size)?));
        }
    }
    None
}

/// One instruction line of llvm-objdump's output.
pub struct ObjdumpLine {
    pub text: String,
    pub addr: u64,
    pub words: Vec<u32>,
}

/// Disassembles code objects of one processor with llvm-objdump, in one process: each starts
/// LLVM afresh (~20 ms of CPU, 5x the disassembly of a small kernel), so the corpus walker
/// hands it a batch at a time. Returns each object's lines, in the order given.
pub fn objdump_many(elfs: &[&[u8]], mcpu: &str) -> Vec<Vec<ObjdumpLine>> {
    let tool = hsaemu_testkit::tool(hsaemu_testkit::objdump_for(mcpu));
    // A file of its own per object, removed after: no directory is left behind.
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let files: Vec<std::path::PathBuf> = elfs
        .iter()
        .map(|elf| {
            let file = std::env::temp_dir().join(format!(
                "hsaemu-isa-{}-{}.o",
                std::process::id(),
                COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ));
            std::fs::write(&file, elf).expect("write temp code object");
            file
        })
        .collect();
    let out = Command::new(&tool)
        .arg("-d")
        .arg(format!("--mcpu={mcpu}"))
        .args(&files)
        .output()
        .expect("run llvm-objdump");
    for f in &files {
        let _ = std::fs::remove_file(f);
    }
    assert!(
        out.status.success(),
        "{} failed: {}",
        tool.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    // Each file's part starts with `<path>:\tfile format elf64-amdgpu`.
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = vec![String::new(); files.len()];
    let mut current = None;
    for line in text.lines() {
        if let Some((path, _)) = line.split_once(":\tfile format ") {
            current = files.iter().position(|f| f.as_os_str() == path);
            assert!(
                current.is_some(),
                "llvm-objdump names an unknown file: {line}"
            );
            continue;
        }
        if let Some(i) = current {
            parts[i].push_str(line);
            parts[i].push('\n');
        }
    }
    parts.iter().map(|p| parse_objdump(p)).collect()
}

/// Parses `\t<text>  // <12 hex addr>: <hex words>[ <label>]` lines.
pub fn parse_objdump(out: &str) -> Vec<ObjdumpLine> {
    let mut v = Vec::new();
    for line in out.lines() {
        let Some(rest) = line.strip_prefix('\t') else {
            continue;
        };
        let Some(idx) = rest.rfind("// ") else {
            continue;
        };
        let text = rest[..idx].trim().to_string();
        let tail = &rest[idx + 3..];
        let Some((addr, words)) = tail.split_once(": ") else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr, 16) else {
            continue;
        };
        let words: Vec<u32> = words
            .split_whitespace()
            .map_while(|w| {
                if w.len() == 8 {
                    u32::from_str_radix(w, 16).ok()
                } else {
                    None
                }
            })
            .collect();
        v.push(ObjdumpLine { text, addr, words });
    }
    v
}

/// Text with runs of whitespace collapsed to one space.
pub fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
