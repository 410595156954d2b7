//! Loads a code object into fresh host memory: copies the PT_LOAD segments, applies the dynamic
//! relocations, registers the block as code in the [`MemoryMap`] and lists its symbols and
//! kernels. The ELF is hsaemu-codeobject's parsed [`CodeObject`] (the runtime parses it once
//! and hands it over); kernel descriptors and V2
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
use hsaemu_codeobject::{CodeObject, RelocKind, SymbolKind as CoSymbolKind};
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
    /// Its native form, when it is one of ROCclr's blit kernels (`blit.rs`).
    pub(crate) blit: Option<crate::blit::Blit>,
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

fn err(msg: impl Into<String>) -> EmuError {
    EmuError::CodeObject(msg.into())
}

/// Parses `bytes` with hsaemu-codeobject and loads the result (see [`load`]).
pub fn load_bytes(
    bytes: &[u8],
    memory: &Arc<MemoryMap>,
    gen: Gen,
) -> Result<LoadedCodeObject, EmuError> {
    let co = CodeObject::parse(bytes).map_err(|e| err(e.to_string()))?;
    load(&co, memory, gen, |_, _| {})
}

/// Loads a parsed code object into fresh host memory registered in `memory`. `gen` is the
/// GPU's generation (for the checks of V2 register counts). `make_room(base, len)` is called
/// just before the image's whole pages are registered: no live host memory shares them, so
/// the caller can drop registrations there left over from memory freed behind its back.
pub fn load(
    co: &CodeObject,
    memory: &Arc<MemoryMap>,
    gen: Gen,
    make_room: impl FnOnce(u64, u64),
) -> Result<LoadedCodeObject, EmuError> {
    let size = co.load_size();
    if size == 0 || size > 1 << 32 {
        return Err(err(format!(
            "loaded image size {size:#x} is empty or too large"
        )));
    }
    let buffer = HostBuffer::new(size).ok_or_else(|| err("cannot allocate the image"))?;
    let base = buffer.base();
    for (i, seg) in co.load_segments().iter().enumerate() {
        if seg.data.len() as u64 > seg.memsz || !buffer.write(seg.vaddr, seg.data) {
            return Err(err(format!("PT_LOAD segment {i}: bad sizes")));
        }
    }
    // Dynamic symbols.
    let symbols: Vec<LoadedSymbol> = co
        .symbols()
        .iter()
        .filter(|s| s.defined)
        .map(|s| LoadedSymbol {
            name: s.name.clone(),
            address: base.wrapping_add(s.value),
            size: s.size,
            kind: match s.kind {
                CoSymbolKind::Function => SymbolKind::Function,
                CoSymbolKind::Object | CoSymbolKind::KernelDescriptor => SymbolKind::Object,
                CoSymbolKind::Kernel => SymbolKind::Kernel,
                CoSymbolKind::Other(_) => SymbolKind::Other,
            },
        })
        .collect();
    // Every function, from the static symbol table when present.
    let mut functions: Vec<LoadedSymbol> = symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Function)
        .cloned()
        .collect();
    for sym in co.static_functions() {
        let address = base.wrapping_add(sym.value);
        if !functions.iter().any(|f| f.address == address) {
            functions.push(LoadedSymbol {
                name: sym.name.clone(),
                address,
                size: sym.size,
                kind: SymbolKind::Function,
            });
        }
    }
    // Dynamic relocations.
    for r in co.dynamic_relocations() {
        let offset = r.offset;
        let sym_value = match &r.symbol {
            None => 0,
            Some(name) => match co.symbol(name) {
                Some(s) if s.defined => base.wrapping_add(s.value),
                _ => {
                    return Err(err(format!(
                        "relocation at {offset:#x} refers to the undefined symbol `{name}` (external symbols are not supported)"
                    )))
                }
            },
        };
        let addend = r.addend as u64;
        let (value, width) = match r.kind {
            RelocKind::Relative64 => (base.wrapping_add(addend), 8),
            RelocKind::Abs64 => (sym_value.wrapping_add(addend), 8),
            RelocKind::Abs32 | RelocKind::Abs32Lo => {
                (sym_value.wrapping_add(addend) & 0xffff_ffff, 4)
            }
            RelocKind::Abs32Hi => (sym_value.wrapping_add(addend) >> 32, 4),
            RelocKind::None => continue,
            t => {
                return Err(err(format!(
                    "relocation at {offset:#x}: unsupported type {}",
                    t.name()
                )))
            }
        };
        if !buffer.write(offset, &value.to_le_bytes()[..width]) {
            return Err(err(format!("relocation at {offset:#x} outside the image")));
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
            blit: co
                .kernels()
                .iter()
                .find(|k| k.name == name)
                .and_then(|meta| crate::blit::recognise(name, meta)),
        });
    }
    functions.sort_by_key(|f| f.address);
    make_room(base, buffer.pages_len());
    memory.register(base, buffer.pages_len(), Access::Code)?;
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
