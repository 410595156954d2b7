//! [`CodeObject`]: an AMDGPU ELF code object (V2–V6) read with the `object` crate's ELF
//! structures — header checks, e_flags per version, program headers, sections, dynamic
//! symbols, dynamic relocations, notes and metadata — plus kernel descriptor lookup.

use std::collections::HashMap;

use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, Rela as _, SectionHeader, Sym as _};
use object::LittleEndian as LE;

use crate::amd_kernel_code::{AmdKernelCode, AMD_KERNEL_CODE_SIZE};
use crate::descriptor::{KernelDescriptor, KERNEL_DESCRIPTOR_SIZE};
use crate::elf_consts::*;
use crate::error::{le_u16, le_u32, slice, Error, Result};
use crate::metadata::{self, Kernel, Metadata};
use crate::processor::{processor_by_isa_version, processor_by_mach, ProcessorInfo};
use crate::target_id::{Feature, TargetId};

/// Largest metadata note accepted (real ones are a few hundred KiB at most).
pub const MAX_METADATA_SIZE: usize = 4 << 20;

/// Largest load image accepted (vaddr + memsz of the highest PT_LOAD).
pub const MAX_LOAD_SIZE: u64 = 1 << 32;

/// What a symbol is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// V3+: `<kernel>.kd`, an STT_OBJECT naming a 64-byte kernel descriptor.
    KernelDescriptor,
    /// V2: STT_AMDGPU_HSA_KERNEL, naming an `amd_kernel_code_t`.
    Kernel,
    /// STT_OBJECT (a global variable).
    Object,
    /// STT_FUNC (kernel entry code, device functions).
    Function,
    /// Anything else (STT_NOTYPE, STT_SECTION, ...), with the raw STT value.
    Other(u8),
}

/// Symbol binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binding {
    Local,
    Global,
    Weak,
    Other(u8),
}

/// One ELF symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    /// `st_value`: the virtual address in the load image (ET_DYN), or LDS alignment for
    /// SHN_AMDGPU_LDS symbols.
    pub value: u64,
    pub size: u64,
    pub kind: SymbolKind,
    pub binding: Binding,
    /// `st_other & 3` (3 = PROTECTED).
    pub visibility: u8,
    /// `st_shndx`.
    pub section_index: u16,
    /// Not SHN_UNDEF.
    pub defined: bool,
}

/// One PT_LOAD segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadSegment<'a> {
    pub vaddr: u64,
    pub memsz: u64,
    pub offset: u64,
    /// The `p_filesz` bytes from the file (the rest up to `memsz` is zero-filled).
    pub data: &'a [u8],
    /// `p_flags` (PF_X 1, PF_W 2, PF_R 4).
    pub flags: u32,
    pub align: u64,
}

/// One section header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
}

/// The type of a relocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelocKind {
    None,
    Abs32Lo,
    Abs32Hi,
    Abs64,
    Rel32,
    Rel64,
    Abs32,
    GotPcRel,
    GotPcRel32Lo,
    GotPcRel32Hi,
    Rel32Lo,
    Rel32Hi,
    Relative64,
    Rel16,
    Unknown(u32),
}

impl RelocKind {
    /// From an `R_AMDGPU_*` value.
    pub fn from_raw(r: u32) -> RelocKind {
        match r {
            R_AMDGPU_NONE => RelocKind::None,
            R_AMDGPU_ABS32_LO => RelocKind::Abs32Lo,
            R_AMDGPU_ABS32_HI => RelocKind::Abs32Hi,
            R_AMDGPU_ABS64 => RelocKind::Abs64,
            R_AMDGPU_REL32 => RelocKind::Rel32,
            R_AMDGPU_REL64 => RelocKind::Rel64,
            R_AMDGPU_ABS32 => RelocKind::Abs32,
            R_AMDGPU_GOTPCREL => RelocKind::GotPcRel,
            R_AMDGPU_GOTPCREL32_LO => RelocKind::GotPcRel32Lo,
            R_AMDGPU_GOTPCREL32_HI => RelocKind::GotPcRel32Hi,
            R_AMDGPU_REL32_LO => RelocKind::Rel32Lo,
            R_AMDGPU_REL32_HI => RelocKind::Rel32Hi,
            R_AMDGPU_RELATIVE64 => RelocKind::Relative64,
            R_AMDGPU_REL16 => RelocKind::Rel16,
            other => RelocKind::Unknown(other),
        }
    }

    /// The `R_AMDGPU_*` name.
    pub fn name(self) -> String {
        match self {
            RelocKind::None => "R_AMDGPU_NONE".into(),
            RelocKind::Abs32Lo => "R_AMDGPU_ABS32_LO".into(),
            RelocKind::Abs32Hi => "R_AMDGPU_ABS32_HI".into(),
            RelocKind::Abs64 => "R_AMDGPU_ABS64".into(),
            RelocKind::Rel32 => "R_AMDGPU_REL32".into(),
            RelocKind::Rel64 => "R_AMDGPU_REL64".into(),
            RelocKind::Abs32 => "R_AMDGPU_ABS32".into(),
            RelocKind::GotPcRel => "R_AMDGPU_GOTPCREL".into(),
            RelocKind::GotPcRel32Lo => "R_AMDGPU_GOTPCREL32_LO".into(),
            RelocKind::GotPcRel32Hi => "R_AMDGPU_GOTPCREL32_HI".into(),
            RelocKind::Rel32Lo => "R_AMDGPU_REL32_LO".into(),
            RelocKind::Rel32Hi => "R_AMDGPU_REL32_HI".into(),
            RelocKind::Relative64 => "R_AMDGPU_RELATIVE64".into(),
            RelocKind::Rel16 => "R_AMDGPU_REL16".into(),
            RelocKind::Unknown(r) => format!("R_AMDGPU_<{r}>"),
        }
    }

    /// The types a loader applies at load time (ABS32_LO/HI, ABS32, ABS64, RELATIVE64).
    pub fn is_dynamic(self) -> bool {
        matches!(
            self,
            RelocKind::Abs32Lo
                | RelocKind::Abs32Hi
                | RelocKind::Abs32
                | RelocKind::Abs64
                | RelocKind::Relative64
        )
    }
}

/// One relocation from a dynamic (`.rela.dyn`) relocation section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relocation {
    /// The virtual address of the field to patch.
    pub offset: u64,
    pub kind: RelocKind,
    /// The symbol, when the relocation names one (index ≠ 0).
    pub symbol: Option<String>,
    pub addend: i64,
}

/// One note record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note<'a> {
    /// The name without trailing NULs (`AMD`, `AMDGPU`).
    pub name: &'a [u8],
    pub n_type: u32,
    pub desc: &'a [u8],
    /// File offset of `desc`.
    pub desc_offset: u64,
}

/// The raw metadata note.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetadataRaw<'a> {
    /// V2: YAML text.
    Yaml(&'a str),
    /// V3+: MessagePack.
    MsgPack(&'a [u8]),
    /// No metadata note.
    None,
}

/// What the V2 "AMD" notes say.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct V2Notes {
    /// NT_AMD_HSA_CODE_OBJECT_VERSION (major, minor); LLVM writes 2.1.
    pub code_object_version: Option<(u32, u32)>,
    /// NT_AMD_HSA_ISA_VERSION (major, minor, stepping), vendor and architecture names.
    pub isa_version: Option<(u32, u32, u32)>,
    /// File offset of the NT_AMD_HSA_ISA_VERSION descriptor.
    pub isa_version_offset: u64,
    pub isa_vendor: Option<String>,
    pub isa_architecture: Option<String>,
    /// NT_AMD_HSA_ISA_NAME (not used by loaders; clang-15 may write `gfx907`).
    pub isa_name: Option<String>,
    pub producer: Option<String>,
    /// An NT_AMD_HSA_HSAIL note is present (finalizer output).
    pub hsail: bool,
}

/// A parsed AMDGPU code object. Borrowed from the input bytes.
#[derive(Clone, Debug)]
pub struct CodeObject<'a> {
    data: &'a [u8],
    version: u32,
    abi_version: u8,
    e_type: u16,
    e_flags: u32,
    target: TargetId,
    generic_version: u32,
    v2_notes: Option<V2Notes>,
    metadata: Metadata,
    metadata_raw: MetadataRaw<'a>,
    notes: Vec<Note<'a>>,
    sections: Vec<Section>,
    segments: Vec<LoadSegment<'a>>,
    symbols: Vec<Symbol>,
    /// Defined STT_FUNC symbols of `.symtab` (local functions included), when it exists.
    static_functions: Vec<Symbol>,
    /// Symbol name → index of its first occurrence in `symbols`.
    symbol_index: HashMap<String, usize>,
    relocations: Vec<Relocation>,
}

fn elf_err(what: &'static str, offset: u64) -> impl Fn(object::read::Error) -> Error {
    move |e| Error::Elf {
        what,
        offset,
        reason: e.to_string(),
    }
}

fn offset_in(data: &[u8], part: &[u8]) -> u64 {
    (part.as_ptr() as usize).wrapping_sub(data.as_ptr() as usize) as u64
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Checks `e_ident`, `e_machine`, OS/ABI and ABI version; returns the code object version
/// implied by EI_ABIVERSION (2..=6).
fn check_header(data: &[u8]) -> Result<(u32, u8)> {
    let ident = slice(data, 0, 64, "ELF header")?;
    if &ident[..4] != b"\x7fELF" {
        return Err(Error::UnknownFormat {
            offset: 0,
            reason: "no ELF magic (\\x7fELF)".into(),
        });
    }
    if ident[4] != 2 {
        return Err(Error::WrongClass { found: ident[4] });
    }
    if ident[5] != 1 {
        return Err(Error::WrongEndian { found: ident[5] });
    }
    let machine = le_u16(ident, 18);
    if machine != EM_AMDGPU {
        return Err(Error::WrongMachine { found: machine });
    }
    if ident[7] != ELFOSABI_AMDGPU_HSA {
        return Err(Error::WrongOsAbi { found: ident[7] });
    }
    let abi = ident[8];
    let version = match abi {
        ELFABIVERSION_AMDGPU_HSA_V2 => 2,
        ELFABIVERSION_AMDGPU_HSA_V3 => 3,
        ELFABIVERSION_AMDGPU_HSA_V4 => 4,
        ELFABIVERSION_AMDGPU_HSA_V5 => 5,
        ELFABIVERSION_AMDGPU_HSA_V6 => 6,
        found => return Err(Error::UnsupportedAbiVersion { found }),
    };
    let e_type = le_u16(ident, 16);
    if !matches!(e_type, 1..=3) {
        return Err(Error::WrongType { found: e_type });
    }
    Ok((version, abi))
}

/// Decodes `e_flags` for code object version `version` (3..=6) into a target ID and generic
/// version.
pub fn target_from_e_flags(e_flags: u32, version: u32) -> Result<(TargetId, u32)> {
    let mach = e_flags & EF_AMDGPU_MACH;
    let info = processor_by_mach(mach).ok_or(Error::UnknownMach { mach, e_flags })?;
    let bad = |reason: String| Error::BadFlags { e_flags, reason };
    let (xnack, sramecc) = if version <= 3 {
        let f = |bit: u32, supported: bool| {
            if e_flags & bit != 0 {
                Feature::On
            } else if supported {
                Feature::Off
            } else {
                Feature::Unsupported
            }
        };
        let x = f(EF_AMDGPU_FEATURE_XNACK_V3, info.supports_xnack);
        let s = f(EF_AMDGPU_FEATURE_SRAMECC_V3, info.supports_sramecc);
        if x == Feature::On && !info.supports_xnack {
            return Err(bad(format!(
                "EF_AMDGPU_FEATURE_XNACK_V3 set but {} has no xnack",
                info.name
            )));
        }
        if s == Feature::On && !info.supports_sramecc {
            return Err(bad(format!(
                "EF_AMDGPU_FEATURE_SRAMECC_V3 set but {} has no sramecc",
                info.name
            )));
        }
        (x, s)
    } else {
        let decode = |field: u32, supported: bool, name: &str| -> Result<Feature> {
            let f = match field {
                0 => Feature::Unsupported,
                1 => Feature::Any,
                2 => Feature::Off,
                _ => Feature::On,
            };
            if f != Feature::Unsupported && !supported {
                return Err(bad(format!(
                    "{name} is set but {} has no {name}",
                    info.name
                )));
            }
            // UNSUPPORTED on a processor that has the feature says nothing about its setting:
            // read it as Any (ROCr leaves the feature out of the ISA name, which matches both).
            if f == Feature::Unsupported && supported {
                return Ok(Feature::Any);
            }
            Ok(f)
        };
        (
            decode(
                (e_flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8,
                info.supports_xnack,
                "xnack",
            )?,
            decode(
                (e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10,
                info.supports_sramecc,
                "sramecc",
            )?,
        )
    };
    let generic_version = if version >= 6 {
        (e_flags & EF_AMDGPU_GENERIC_VERSION) >> EF_AMDGPU_GENERIC_VERSION_OFFSET
    } else {
        0
    };
    if info.is_generic() {
        if version < 6 {
            return Err(bad(format!(
                "generic processor {} needs code object V6+, not V{version}",
                info.name
            )));
        }
        if generic_version == 0 {
            return Err(bad(format!(
                "generic processor {} with generic version 0",
                info.name
            )));
        }
    } else if generic_version != 0 {
        return Err(bad(format!(
            "generic version {generic_version} on non-generic processor {}",
            info.name
        )));
    }
    Ok((TargetId::new(info.name, xnack, sramecc), generic_version))
}

fn v2_target(notes: &V2Notes, e_flags: u32) -> Result<TargetId> {
    let Some((maj, min, step)) = notes.isa_version else {
        // No ISA note: fall back on the e_flags MACH (LLVM writes the V3 layout there too).
        return Ok(target_from_e_flags(e_flags, 3)?.0);
    };
    let (info, xnack) = processor_by_isa_version(maj, min, step).ok_or_else(|| Error::BadNote {
        what: "NT_AMD_HSA_ISA_VERSION",
        offset: notes.isa_version_offset + 4,
        reason: format!("unknown ISA version {maj}.{min}.{step}"),
    })?;
    let xnack = if notes.hsail && info.supports_xnack {
        if e_flags & EF_AMDGPU_FEATURE_XNACK_V2 != 0 {
            Feature::On
        } else {
            Feature::Off
        }
    } else {
        match xnack {
            Some(true) => Feature::On,
            Some(false) => Feature::Off,
            None if info.supports_xnack => Feature::Off,
            None => Feature::Unsupported,
        }
    };
    let sramecc = if info.supports_sramecc {
        Feature::Off
    } else {
        Feature::Unsupported
    };
    Ok(TargetId::new(info.name, xnack, sramecc))
}

fn read_v2_notes(notes: &[Note<'_>]) -> Result<V2Notes> {
    let mut v = V2Notes::default();
    let mut version_note_offset = 0;
    for n in notes.iter().filter(|n| n.name == b"AMD") {
        let short = |needed: usize| Error::BadNote {
            what: "AMD",
            offset: n.desc_offset,
            reason: format!(
                "type {} descriptor has {} bytes, needs {needed}",
                n.n_type,
                n.desc.len()
            ),
        };
        match n.n_type {
            NT_AMD_HSA_CODE_OBJECT_VERSION => {
                if n.desc.len() < 8 {
                    return Err(short(8));
                }
                v.code_object_version = Some((le_u32(n.desc, 0), le_u32(n.desc, 4)));
                version_note_offset = n.desc_offset;
            }
            NT_AMD_HSA_HSAIL => v.hsail = true,
            NT_AMD_HSA_ISA_VERSION => {
                if n.desc.len() < 16 {
                    return Err(short(16));
                }
                let vendor_len = usize::from(le_u16(n.desc, 0));
                let arch_len = usize::from(le_u16(n.desc, 2));
                v.isa_version = Some((le_u32(n.desc, 4), le_u32(n.desc, 8), le_u32(n.desc, 12)));
                v.isa_version_offset = n.desc_offset;
                let names = &n.desc[16..];
                let trim = |b: &[u8]| lossy(b.split(|&c| c == 0).next().unwrap_or(&[]));
                if let Some(vendor) = names.get(..vendor_len) {
                    v.isa_vendor = Some(trim(vendor));
                    if let Some(arch) = names.get(vendor_len..vendor_len.saturating_add(arch_len)) {
                        v.isa_architecture = Some(trim(arch));
                    }
                }
            }
            NT_AMD_HSA_ISA_NAME => {
                v.isa_name = Some(lossy(n.desc).trim_end_matches('\0').to_string())
            }
            NT_AMD_HSA_PRODUCER => {
                v.producer = Some(lossy(n.desc).trim_end_matches('\0').to_string())
            }
            _ => {}
        }
    }
    if let Some((major, minor)) = v.code_object_version {
        if major > 2 {
            return Err(Error::BadNote {
                what: "NT_AMD_HSA_CODE_OBJECT_VERSION",
                offset: version_note_offset,
                reason: format!("version {major}.{minor} in a V2 (ABI version 0) code object"),
            });
        }
    }
    Ok(v)
}

impl<'a> CodeObject<'a> {
    /// Parses and checks a code object. Never panics; every failure names what and where.
    pub fn parse(data: &'a [u8]) -> Result<CodeObject<'a>> {
        let (version, abi_version) = check_header(data)?;
        let header = elf::FileHeader64::<LE>::parse(data).map_err(elf_err("ELF header", 0))?;
        let endian = header.endian().map_err(elf_err("ELF header", 0))?;
        let e_type = header.e_type(endian);
        let e_flags = header.e_flags(endian);

        // Program headers and PT_LOAD segments.
        let phoff = header.e_phoff.get(endian);
        let phdrs = header
            .program_headers(endian, data)
            .map_err(elf_err("program header table", phoff))?;
        let mut segments = Vec::new();
        for (i, ph) in phdrs.iter().enumerate() {
            let at = phoff.saturating_add(i as u64 * 56);
            if ph.p_type(endian) != elf::PT_LOAD {
                continue;
            }
            let seg_data = ph.data(endian, data).map_err(|()| Error::Elf {
                what: "PT_LOAD segment",
                offset: at,
                reason: format!(
                    "file bytes {:#x}+{:#x} run past the end of the file ({:#x})",
                    ph.p_offset(endian),
                    ph.p_filesz(endian),
                    data.len()
                ),
            })?;
            let (vaddr, memsz) = (ph.p_vaddr(endian), ph.p_memsz(endian));
            if memsz < ph.p_filesz(endian) {
                return Err(Error::Elf {
                    what: "PT_LOAD segment",
                    offset: at,
                    reason: format!("p_memsz {memsz:#x} < p_filesz {:#x}", ph.p_filesz(endian)),
                });
            }
            match vaddr.checked_add(memsz) {
                Some(end) if end <= MAX_LOAD_SIZE => {}
                _ => {
                    return Err(Error::Elf {
                        what: "PT_LOAD segment",
                        offset: at,
                        reason: format!(
                            "p_vaddr {vaddr:#x} + p_memsz {memsz:#x} exceeds the 4 GiB load limit"
                        ),
                    })
                }
            }
            segments.push(LoadSegment {
                vaddr,
                memsz,
                offset: ph.p_offset(endian),
                data: seg_data,
                flags: ph.p_flags(endian),
                align: ph.p_align(endian),
            });
        }

        // Sections.
        let shoff = header.e_shoff.get(endian);
        let table = header
            .sections(endian, data)
            .map_err(elf_err("section header table", shoff))?;
        let mut sections = Vec::with_capacity(table.len().min(data.len() / 64 + 1));
        for sh in table.iter() {
            let name = table
                .section_name(endian, sh)
                .map(lossy)
                .unwrap_or_default();
            sections.push(Section {
                name,
                sh_type: sh.sh_type(endian),
                flags: sh.sh_flags(endian),
                addr: sh.sh_addr(endian),
                offset: sh.sh_offset(endian),
                size: sh.sh_size(endian),
            });
        }

        // Notes: from PT_NOTE segments, or SHT_NOTE sections when there are none.
        let mut notes = Vec::new();
        let mut push_notes =
            |iter: Option<object::read::elf::NoteIterator<'a, elf::FileHeader64<LE>>>,
             at: u64|
             -> Result<()> {
                if let Some(mut it) = iter {
                    while let Some(n) = it.next().map_err(|e| Error::BadNote {
                        what: "record",
                        offset: at,
                        reason: e.to_string(),
                    })? {
                        notes.push(Note {
                            name: n.name(),
                            n_type: n.n_type(endian),
                            desc: n.desc(),
                            desc_offset: offset_in(data, n.desc()),
                        });
                    }
                }
                Ok(())
            };
        let mut had_pt_note = false;
        for ph in phdrs.iter().filter(|ph| ph.p_type(endian) == elf::PT_NOTE) {
            had_pt_note = true;
            let at = ph.p_offset(endian);
            push_notes(
                ph.notes(endian, data).map_err(|e| Error::BadNote {
                    what: "segment",
                    offset: at,
                    reason: e.to_string(),
                })?,
                at,
            )?;
        }
        if !had_pt_note {
            for sh in table
                .iter()
                .filter(|sh| sh.sh_type(endian) == elf::SHT_NOTE)
            {
                let at = sh.sh_offset(endian);
                push_notes(
                    sh.notes(endian, data).map_err(|e| Error::BadNote {
                        what: "section",
                        offset: at,
                        reason: e.to_string(),
                    })?,
                    at,
                )?;
            }
        }

        // Version (V2 from its note), target and metadata.
        let mut v2_notes = None;
        let (target, generic_version) = if version == 2 {
            let v = read_v2_notes(&notes)?;
            let t = v2_target(&v, e_flags)?;
            v2_notes = Some(v);
            (t, 0)
        } else {
            target_from_e_flags(e_flags, version)?
        };
        let (metadata_raw, metadata) = if version == 2 {
            match notes
                .iter()
                .find(|n| n.name == b"AMD" && n.n_type == NT_AMD_HSA_METADATA)
            {
                Some(n) => {
                    check_metadata_size(n)?;
                    let text = std::str::from_utf8(n.desc).map_err(|e| Error::Metadata {
                        offset: n.desc_offset + e.valid_up_to() as u64,
                        path: "(yaml)".into(),
                        reason: "not UTF-8".into(),
                    })?;
                    let text = text.trim_end_matches('\0');
                    let v = metadata::decode_yaml(text, n.desc_offset)?;
                    (
                        MetadataRaw::Yaml(text),
                        metadata::interpret_v2(&v, n.desc_offset)?,
                    )
                }
                None => (MetadataRaw::None, Metadata::default()),
            }
        } else {
            let n = notes
                .iter()
                .find(|n| n.name == b"AMDGPU" && n.n_type == NT_AMDGPU_METADATA)
                .ok_or(Error::MissingNote {
                    what: "NT_AMDGPU_METADATA",
                })?;
            check_metadata_size(n)?;
            let v = metadata::decode_msgpack(n.desc, n.desc_offset)?;
            let md = metadata::interpret_v3(&v, n.desc_offset)?;
            // `amdhsa.target` is required for V4+ by the spec, but the assembler accepts
            // metadata without it and loaders take the target from e_flags: not checked.
            (MetadataRaw::MsgPack(n.desc), md)
        };

        // Symbols: .dynsym, or .symtab when there is no .dynsym.
        let mut symbols = Vec::new();
        let mut symtab_index = None;
        for sh_type in [elf::SHT_DYNSYM, elf::SHT_SYMTAB] {
            let st = table
                .symbols(endian, data, sh_type)
                .map_err(elf_err("symbol table", shoff))?;
            if st.is_empty() {
                continue;
            }
            symtab_index = Some(st.section());
            for sym in st.iter().skip(1) {
                let name = st
                    .symbol_name(endian, sym)
                    .map_err(elf_err("symbol name", shoff))?;
                symbols.push(make_symbol(lossy(name), sym, endian, version));
            }
            break;
        }

        // Every function of the static symbol table (device functions are often local), for
        // disassemblers, coverage and fault reports.
        let mut static_functions = Vec::new();
        let st = table
            .symbols(endian, data, elf::SHT_SYMTAB)
            .map_err(elf_err("symbol table", shoff))?;
        for sym in st.iter().skip(1) {
            let name = st
                .symbol_name(endian, sym)
                .map_err(elf_err("symbol name", shoff))?;
            let s = make_symbol(lossy(name), sym, endian, version);
            if s.kind == SymbolKind::Function && s.defined {
                static_functions.push(s);
            }
        }

        let mut symbol_index = HashMap::with_capacity(symbols.len());
        for (i, s) in symbols.iter().enumerate() {
            symbol_index.entry(s.name.clone()).or_insert(i);
        }

        // Dynamic relocations: SHT_RELA sections that do not patch another section.
        let mut relocations = Vec::new();
        for (idx, sh) in table.enumerate() {
            if sh.sh_type(endian) != elf::SHT_RELA || sh.sh_info(endian) != 0 {
                continue;
            }
            let at = sh.sh_offset(endian);
            let Some((relas, link)) = sh
                .rela(endian, data)
                .map_err(elf_err("relocation section", at))?
            else {
                continue;
            };
            let st = if link.0 == 0 {
                None
            } else {
                Some(
                    table
                        .symbol_table_by_index(endian, data, link)
                        .map_err(elf_err("relocation symbol table", at))?,
                )
            };
            let _ = (idx, symtab_index);
            for (i, r) in relas.iter().enumerate() {
                let r_at = at.saturating_add(i as u64 * 24);
                let sym_index = r.r_sym(endian, false);
                let symbol = if sym_index == 0 {
                    None
                } else {
                    let st = st.as_ref().ok_or(Error::BadRelocation {
                        offset: r_at,
                        reason: "symbol index without a linked symbol table".into(),
                    })?;
                    let sym = st
                        .symbol(object::SymbolIndex(sym_index as usize))
                        .map_err(|e| Error::BadRelocation {
                            offset: r_at,
                            reason: format!("symbol index {sym_index}: {e}"),
                        })?;
                    Some(lossy(st.symbol_name(endian, sym).map_err(|e| {
                        Error::BadRelocation {
                            offset: r_at,
                            reason: e.to_string(),
                        }
                    })?))
                };
                relocations.push(Relocation {
                    offset: r.r_offset(endian),
                    kind: RelocKind::from_raw(r.r_type(endian, false)),
                    symbol,
                    addend: r.r_addend(endian),
                });
            }
        }

        Ok(CodeObject {
            data,
            version,
            abi_version,
            e_type,
            e_flags,
            target,
            generic_version,
            v2_notes,
            metadata,
            metadata_raw,
            notes,
            sections,
            segments,
            symbol_index,
            symbols,
            static_functions,
            relocations,
        })
    }

    /// The input bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The code object version, 2..=6 (V2 is 2 even though LLVM writes V3-style e_flags).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// `e_ident[EI_ABIVERSION]`.
    pub fn abi_version(&self) -> u8 {
        self.abi_version
    }

    /// `e_type` (ET_DYN 3 for loadable objects, ET_REL 1 for compiler output).
    pub fn e_type(&self) -> u16 {
        self.e_type
    }

    pub fn e_flags(&self) -> u32 {
        self.e_flags
    }

    /// The target: V2 from the ISA version note, V3+ from e_flags.
    pub fn target(&self) -> &TargetId {
        &self.target
    }

    /// The processor's table entry (always known: unknown MACH values are rejected).
    pub fn processor(&self) -> Option<&'static ProcessorInfo> {
        self.target.processor_info()
    }

    /// V6 generic version (0 for non-generic processors).
    pub fn generic_version(&self) -> u32 {
        self.generic_version
    }

    /// The V2 "AMD" notes (None for V3+).
    pub fn v2_notes(&self) -> Option<&V2Notes> {
        self.v2_notes.as_ref()
    }

    /// The interpreted metadata.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The metadata note as stored.
    pub fn metadata_raw(&self) -> MetadataRaw<'a> {
        self.metadata_raw
    }

    /// The kernels of the metadata.
    pub fn kernels(&self) -> &[Kernel] {
        &self.metadata.kernels
    }

    /// All note records.
    pub fn notes(&self) -> &[Note<'a>] {
        &self.notes
    }

    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// `.dynsym` symbols (or `.symtab` when there is no `.dynsym`), without the null symbol.
    pub fn symbols(&self) -> &[Symbol] {
        &self.symbols
    }

    /// The symbol named `name` (the first one, if several share it).
    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        self.symbol_index
            .get(name)
            .and_then(|&i| self.symbols.get(i))
    }

    /// The defined functions (STT_FUNC) of `.symtab`, local ones included; empty without a
    /// `.symtab`.
    pub fn static_functions(&self) -> &[Symbol] {
        &self.static_functions
    }

    /// PT_LOAD segments in file order.
    pub fn load_segments(&self) -> &[LoadSegment<'a>] {
        &self.segments
    }

    /// Bytes needed to load the image: max(vaddr + memsz) over PT_LOAD (≤ 4 GiB, checked).
    pub fn load_size(&self) -> u64 {
        self.segments
            .iter()
            .map(|s| s.vaddr + s.memsz)
            .max()
            .unwrap_or(0)
    }

    /// Relocations of the dynamic relocation sections (`.rela.dyn`).
    pub fn dynamic_relocations(&self) -> &[Relocation] {
        &self.relocations
    }

    /// `len` bytes of the load image at virtual address `vaddr`, from the file bytes of the
    /// PT_LOAD that holds them (zero-filled `.bss` tails are not readable this way).
    pub fn read_vaddr(&self, vaddr: u64, len: u64) -> Result<&'a [u8]> {
        for s in &self.segments {
            let file_end = s.vaddr.saturating_add(s.data.len() as u64);
            if vaddr >= s.vaddr && vaddr < file_end {
                return slice(s.data, vaddr - s.vaddr, len, "load image bytes");
            }
        }
        Err(Error::Truncated {
            what: "load image bytes (address not in any PT_LOAD file image)",
            offset: vaddr,
            needed: len,
            available: 0,
        })
    }

    /// The kernel descriptor of a kernel, by symbol name. V3+: the `<name>.kd` symbol (the plain
    /// kernel name is also accepted). V2: the STT_AMDGPU_HSA_KERNEL symbol `<name>` (or the
    /// metadata's `<name>@kd`), whose `amd_kernel_code_t` is converted.
    pub fn kernel_descriptor(&self, symbol_name: &str) -> Result<KernelDescriptor> {
        let (sym, bytes) = self.kernel_object(symbol_name)?;
        match sym.kind {
            SymbolKind::Kernel => Ok(AmdKernelCode::parse(bytes)?.to_descriptor()),
            _ => KernelDescriptor::parse(bytes),
        }
    }

    /// The V2 `amd_kernel_code_t` of a kernel.
    pub fn amd_kernel_code(&self, symbol_name: &str) -> Result<AmdKernelCode> {
        let (sym, bytes) = self.kernel_object(symbol_name)?;
        if sym.kind != SymbolKind::Kernel {
            return Err(Error::BadSymbol {
                name: sym.name.clone(),
                reason: "not an STT_AMDGPU_HSA_KERNEL symbol (V3+ kernels have descriptors)".into(),
            });
        }
        AmdKernelCode::parse(bytes)
    }

    /// The kernel symbol (descriptor or `amd_kernel_code_t`) for `symbol_name`: the symbol of
    /// that name, else (for V2's `<name>@kd` or a plain kernel name) `<name>` or `<name>.kd`.
    pub fn kernel_symbol(&self, symbol_name: &str) -> Result<&Symbol> {
        let base = symbol_name.strip_suffix("@kd").unwrap_or(symbol_name);
        [
            symbol_name.to_string(),
            base.to_string(),
            format!("{base}.kd"),
        ]
        .iter()
        .filter_map(|n| self.symbol(n))
        .find(|s| s.defined && matches!(s.kind, SymbolKind::KernelDescriptor | SymbolKind::Kernel))
        .ok_or_else(|| Error::SymbolNotFound {
            name: symbol_name.to_string(),
        })
    }

    /// Virtual address of a kernel's first instruction: kernel object address + entry offset.
    pub fn kernel_entry(&self, symbol_name: &str) -> Result<u64> {
        let sym = self.kernel_symbol(symbol_name)?;
        let kd = self.kernel_descriptor(symbol_name)?;
        sym.value
            .checked_add_signed(kd.kernel_code_entry_byte_offset)
            .ok_or_else(|| Error::BadSymbol {
                name: sym.name.clone(),
                reason: format!(
                    "entry offset {} overflows the address space",
                    kd.kernel_code_entry_byte_offset
                ),
            })
    }

    fn kernel_object(&self, symbol_name: &str) -> Result<(&Symbol, &'a [u8])> {
        let sym = self.kernel_symbol(symbol_name)?;
        let len = if sym.kind == SymbolKind::Kernel {
            AMD_KERNEL_CODE_SIZE
        } else {
            KERNEL_DESCRIPTOR_SIZE
        } as u64;
        let bytes = self
            .read_vaddr(sym.value, len)
            .map_err(|e| Error::BadSymbol {
                name: sym.name.clone(),
                reason: e.to_string(),
            })?;
        Ok((sym, bytes))
    }
}

fn check_metadata_size(n: &Note<'_>) -> Result<()> {
    if n.desc.len() > MAX_METADATA_SIZE {
        return Err(Error::Metadata {
            offset: n.desc_offset,
            path: "(note)".into(),
            reason: format!(
                "{} bytes exceed the {} MiB limit",
                n.desc.len(),
                MAX_METADATA_SIZE >> 20
            ),
        });
    }
    Ok(())
}

fn make_symbol(name: String, sym: &elf::Sym64<LE>, endian: LE, version: u32) -> Symbol {
    let st_type = sym.st_type();
    let shndx = sym.st_shndx(endian);
    let kind = match st_type {
        STT_AMDGPU_HSA_KERNEL => SymbolKind::Kernel,
        elf::STT_OBJECT if version >= 3 && name.ends_with(".kd") => SymbolKind::KernelDescriptor,
        elf::STT_OBJECT => SymbolKind::Object,
        elf::STT_FUNC => SymbolKind::Function,
        other => SymbolKind::Other(other),
    };
    let binding = match sym.st_bind() {
        elf::STB_LOCAL => Binding::Local,
        elf::STB_GLOBAL => Binding::Global,
        elf::STB_WEAK => Binding::Weak,
        other => Binding::Other(other),
    };
    Symbol {
        name,
        value: sym.st_value(endian),
        size: sym.st_size(endian),
        kind,
        binding,
        visibility: sym.st_other() & 3,
        section_index: shndx,
        defined: shndx != elf::SHN_UNDEF,
    }
}
