//! Loads a code object into fresh host memory: copies the PT_LOAD segments, applies the dynamic
//! relocations, registers the block as code in the [`MemoryMap`] and lists its symbols and
//! kernels. The ELF is read through the `object` crate; kernel descriptors and V2
//! `amd_kernel_code_t`s through `descriptor.rs` (hsaemu-codeobject's parsers).
//!
//! Kernels are found the way ROCr finds them: a `NAME.kd` object is a code object V3+ kernel
//! descriptor, an `STT_AMDGPU_HSA_KERNEL` symbol `NAME` is a V2 `amd_kernel_code_t` followed
//! by the kernel's code. Each [`LoadedKernel`] records which, so that a dispatch reads its
//! kernel object in the right format.

use crate::decode::Gen;
use crate::descriptor::{self, KernelObjectFormat};
use crate::error::EmuError;
use crate::memory::host::HostBuffer;
use crate::memory::{Access, MemoryMap};
use object::elf;
use object::read::elf::{ElfFile64, FileHeader, ProgramHeader, Rela, SectionHeader, Sym};
use object::Endianness;
use std::sync::Arc;

/// What a symbol is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolKind {
    /// Code (STT_FUNC).
    Function,
    /// Data (STT_OBJECT), including kernel descriptors.
    Object,
    /// A code object V2 kernel (STT_AMDGPU_HSA_KERNEL): its `amd_kernel_code_t`, then its code.
    Kernel,
    /// Anything else.
    Other,
}

/// A symbol of a loaded code object, at its loaded address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedSymbol {
    /// Symbol name.
    pub name: String,
    /// Host address.
    pub address: u64,
    /// Size in bytes.
    pub size: u64,
    /// Kind.
    pub kind: SymbolKind,
}

/// A kernel of a loaded code object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedKernel {
    /// Kernel name (the descriptor symbol without `.kd`; the V2 kernel symbol).
    pub name: String,
    /// Host address of the kernel object: the 64-byte kernel descriptor (V3+) or the 256-byte
    /// `amd_kernel_code_t` (V2).
    pub kernel_object: u64,
    /// Which of the two the kernel object is.
    pub format: KernelObjectFormat,
    /// Kernarg segment size from the descriptor.
    pub kernarg_segment_size: u32,
    /// Static group segment (LDS) size.
    pub group_segment_size: u32,
    /// Static private segment size per work-item.
    pub private_segment_size: u32,
    /// Host address of the kernel's first instruction.
    pub entry: u64,
}

/// A code object loaded into host memory. Unregisters and frees the memory on drop.
pub struct LoadedCodeObject {
    /// Host address of the object's virtual address 0.
    pub base: u64,
    /// Bytes of loaded image.
    pub size: u64,
    /// Dynamic symbols at their loaded addresses.
    pub symbols: Vec<LoadedSymbol>,
    /// Kernels (one per `NAME.kd` symbol).
    pub kernels: Vec<LoadedKernel>,
    /// Every function (STT_FUNC in `.symtab` or `.dynsym`, local ones included), for
    /// disassembly, coverage and fault reports.
    pub functions: Vec<LoadedSymbol>,
    memory: Arc<MemoryMap>,
    _buffer: HostBuffer,
}

impl std::fmt::Debug for LoadedCodeObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedCodeObject")
            .field("base", &format_args!("{:#x}", self.base))
            .field("size", &self.size)
            .field("symbols", &self.symbols)
            .field("kernels", &self.kernels)
            .finish()
    }
}

impl LoadedCodeObject {
    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&LoadedKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

impl Drop for LoadedCodeObject {
    fn drop(&mut self) {
        // Registered by `load`; a failure here would mean someone else unregistered it.
        let _ = self.memory.unregister(self.base);
    }
}

/// `STT_AMDGPU_HSA_KERNEL` (STT_LOOS): a code object V2 kernel symbol.
const STT_AMDGPU_HSA_KERNEL: u8 = 10;

const R_AMDGPU_ABS32_LO: u32 = 1;
const R_AMDGPU_ABS32_HI: u32 = 2;
const R_AMDGPU_ABS64: u32 = 3;
const R_AMDGPU_ABS32: u32 = 6;
const R_AMDGPU_RELATIVE64: u32 = 13;

fn err(msg: impl Into<String>) -> EmuError {
    EmuError::CodeObject(msg.into())
}

/// Loads `bytes` (an AMDGPU ELF code object) into fresh host memory registered in `memory`.
/// `gen` is the GPU's generation (for the checks of V2 register counts).
pub fn load(bytes: &[u8], memory: &Arc<MemoryMap>, gen: Gen) -> Result<LoadedCodeObject, EmuError> {
    let file = ElfFile64::<Endianness>::parse(bytes).map_err(|e| err(format!("not ELF64: {e}")))?;
    let header = file.elf_header();
    let endian = file.endian();
    if header.e_machine(endian) != elf::EM_AMDGPU {
        return Err(err(format!(
            "e_machine is {}, not EM_AMDGPU (224)",
            header.e_machine(endian)
        )));
    }
    let phdrs = header
        .program_headers(endian, bytes)
        .map_err(|e| err(format!("bad program headers: {e}")))?;
    let mut size = 0u64;
    for ph in phdrs.iter().filter(|p| p.p_type(endian) == elf::PT_LOAD) {
        let end = ph
            .p_vaddr(endian)
            .checked_add(ph.p_memsz(endian))
            .ok_or_else(|| err("PT_LOAD segment wraps around"))?;
        size = size.max(end);
    }
    if size == 0 || size > 1 << 32 {
        return Err(err(format!(
            "loaded image size {size:#x} is empty or too large"
        )));
    }
    let buffer = HostBuffer::new(size).ok_or_else(|| err("cannot allocate the image"))?;
    let base = buffer.base();
    for (i, ph) in phdrs.iter().enumerate() {
        if ph.p_type(endian) != elf::PT_LOAD {
            continue;
        }
        let data = ph
            .data(endian, bytes)
            .map_err(|_| err(format!("program header {i}: file range outside the file")))?;
        if ph.p_filesz(endian) > ph.p_memsz(endian) || !buffer.write(ph.p_vaddr(endian), data) {
            return Err(err(format!("program header {i}: bad sizes")));
        }
    }
    // Dynamic symbols.
    let section_table = header
        .sections(endian, bytes)
        .map_err(|e| err(format!("bad section headers: {e}")))?;
    let dynsyms = section_table
        .symbols(endian, bytes, elf::SHT_DYNSYM)
        .map_err(|e| err(format!("bad .dynsym: {e}")))?;
    let mut symbols = Vec::new();
    for sym in dynsyms.iter().skip(1) {
        let name = sym
            .name(endian, dynsyms.strings())
            .map_err(|e| err(format!("bad symbol name: {e}")))?;
        let kind = match sym.st_type() {
            elf::STT_FUNC => SymbolKind::Function,
            elf::STT_OBJECT => SymbolKind::Object,
            STT_AMDGPU_HSA_KERNEL => SymbolKind::Kernel,
            _ => SymbolKind::Other,
        };
        if sym.st_shndx(endian) == elf::SHN_UNDEF {
            continue;
        }
        symbols.push(LoadedSymbol {
            name: String::from_utf8_lossy(name).into_owned(),
            address: base.wrapping_add(sym.st_value(endian)),
            size: sym.st_size(endian),
            kind,
        });
    }
    // Every function, from the static symbol table when present.
    let mut functions: Vec<LoadedSymbol> = symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Function)
        .cloned()
        .collect();
    if let Ok(symtab) = section_table.symbols(endian, bytes, elf::SHT_SYMTAB) {
        for sym in symtab.iter().skip(1) {
            if sym.st_type() != elf::STT_FUNC || sym.st_shndx(endian) == elf::SHN_UNDEF {
                continue;
            }
            let address = base.wrapping_add(sym.st_value(endian));
            if functions.iter().any(|f| f.address == address) {
                continue;
            }
            let name = sym.name(endian, symtab.strings()).unwrap_or(b"?");
            functions.push(LoadedSymbol {
                name: String::from_utf8_lossy(name).into_owned(),
                address,
                size: sym.st_size(endian),
                kind: SymbolKind::Function,
            });
        }
    }

    // Dynamic relocations (SHT_RELA sections linked to .dynsym).
    for (index, section) in section_table.iter().enumerate() {
        if section.sh_type(endian) != elf::SHT_RELA {
            continue;
        }
        let relas = section
            .data_as_array::<elf::Rela64<Endianness>, _>(endian, bytes)
            .map_err(|e| err(format!("section {index}: bad relocations: {e}")))?;
        for r in relas {
            let offset = r.r_offset(endian);
            let addend = r.r_addend(endian);
            let sym_index = r.r_sym(endian, false) as usize;
            let sym_value = if sym_index == 0 {
                0
            } else {
                let s = dynsyms
                    .symbol(object::SymbolIndex(sym_index))
                    .map_err(|_| {
                        err(format!("relocation at {offset:#x}: bad symbol {sym_index}"))
                    })?;
                if s.st_shndx(endian) == elf::SHN_UNDEF {
                    let name = s.name(endian, dynsyms.strings()).unwrap_or(b"?");
                    return Err(err(format!(
                        "relocation at {offset:#x} refers to the undefined symbol `{}` (external symbols are not supported)",
                        String::from_utf8_lossy(name)
                    )));
                }
                base.wrapping_add(s.st_value(endian))
            };
            let value = match r.r_type(endian, false) {
                R_AMDGPU_RELATIVE64 => base.wrapping_add(addend as u64),
                R_AMDGPU_ABS64 => sym_value.wrapping_add(addend as u64),
                R_AMDGPU_ABS32 | R_AMDGPU_ABS32_LO => {
                    sym_value.wrapping_add(addend as u64) & 0xffff_ffff
                }
                R_AMDGPU_ABS32_HI => sym_value.wrapping_add(addend as u64) >> 32,
                t => {
                    return Err(err(format!(
                        "relocation at {offset:#x}: unsupported type {t}"
                    )))
                }
            };
            let width = match r.r_type(endian, false) {
                R_AMDGPU_RELATIVE64 | R_AMDGPU_ABS64 => 8,
                _ => 4,
            };
            if !buffer.write(offset, &value.to_le_bytes()[..width]) {
                return Err(err(format!("relocation at {offset:#x} outside the image")));
            }
        }
    }
    let mut kernels = Vec::new();
    for s in &symbols {
        let (name, format) = match (s.kind, s.name.strip_suffix(".kd")) {
            (SymbolKind::Kernel, _) => (s.name.as_str(), KernelObjectFormat::AmdKernelCode),
            (SymbolKind::Object, Some(name)) => (name, KernelObjectFormat::Descriptor),
            _ => continue,
        };
        let off = s.address - base;
        let raw = match format {
            KernelObjectFormat::Descriptor => buffer.read::<64>(off).map(Vec::from),
            KernelObjectFormat::AmdKernelCode => buffer.read::<256>(off).map(Vec::from),
        }
        .ok_or_else(|| err(format!("kernel object `{}` outside the image", s.name)))?;
        let kd = descriptor::parse(format, &raw, gen)
            .map_err(|e| err(format!("kernel `{name}`: {e}")))?;
        let entry = s
            .address
            .wrapping_add(kd.kernel_code_entry_byte_offset as u64);
        if format == KernelObjectFormat::AmdKernelCode {
            // A V2 kernel symbol covers the amd_kernel_code_t and the code after it.
            if entry < s.address || entry >= s.address.saturating_add(s.size) {
                let offset = kd.kernel_code_entry_byte_offset;
                let sign = if offset < 0 { "-" } else { "" };
                return Err(err(format!(
                    "kernel `{name}`: amd_kernel_code_t field kernel_code_entry_byte_offset at offset 0x10: {sign}{:#x} points outside the kernel's {} bytes",
                    offset.unsigned_abs(),
                    s.size
                )));
            }
            // The code is a function for disassembly, coverage and fault reports.
            if !functions.iter().any(|f| f.address == entry) {
                functions.push(LoadedSymbol {
                    name: name.to_string(),
                    address: entry,
                    size: s.address + s.size - entry,
                    kind: SymbolKind::Function,
                });
            }
        }
        kernels.push(LoadedKernel {
            name: name.to_string(),
            kernel_object: s.address,
            format,
            kernarg_segment_size: kd.kernarg_size,
            group_segment_size: kd.group_segment_fixed_size,
            private_segment_size: kd.private_segment_fixed_size,
            entry,
        });
    }
    functions.sort_by_key(|f| f.address);
    memory.register(base, buffer.len(), Access::Code)?;
    Ok(LoadedCodeObject {
        base,
        size,
        symbols,
        kernels,
        functions,
        memory: memory.clone(),
        _buffer: buffer,
    })
}
