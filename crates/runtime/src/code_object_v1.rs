//! The deprecated code-object API of HSA 1.0 (`hsa_code_object_*`, `hsa_code_symbol_get_info`,
//! `hsa_executable_load_code_object`): a code object is a runtime-owned copy of an ELF image,
//! its handle the address of that copy (as in ROCr, whose `hsa_code_object_deserialize` copies
//! the bytes into system memory). Symbols and attributes come from the same parser the
//! executables use, and loading goes through [`Executable::load`](crate::Executable::load).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use hsaemu_codeobject::{CodeObject, SymbolKind};
use parking_lot::Mutex;

use crate::error::{HsaError, Result};
use crate::executable::{CodeObjectReader, SymbolType};

/// A symbol of a code object (`hsa_code_symbol_t`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeSymbol {
    /// As executables name it: `foo.kd` for V3+ kernels.
    pub name: String,
    pub kind: SymbolType,
    pub size: u64,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_alignment: u32,
    pub group_segment_size: u32,
    pub private_segment_size: u32,
    pub dynamic_callstack: bool,
    /// Variables: in a writable section.
    pub writable: bool,
    /// Variables: the section's alignment.
    pub alignment: u32,
}

/// A deserialized code object.
#[derive(Debug)]
pub struct CodeObjectV1 {
    reader: CodeObjectReader,
    /// The parsed symbols, or `None` when the bytes are not a code object (ROCr accepts any
    /// bytes in `deserialize` and refuses them in the queries).
    symbols: Option<Vec<Arc<CodeSymbol>>>,
    /// `"major.minor"` of the code object version.
    pub version: Option<String>,
    /// The target's ISA name (`amdgcn-amd-amdhsa--gfx906`, processor only for V2 and V3).
    pub isa_name: Option<String>,
}

impl CodeObjectV1 {
    /// The handle: the address of the runtime's copy of the bytes.
    pub fn handle(&self) -> u64 {
        self.reader.bytes().as_ptr() as u64
    }
    /// The bytes, as a reader for [`Executable::load`](crate::Executable::load).
    pub fn reader(&self) -> &CodeObjectReader {
        &self.reader
    }
    /// The symbols (`InvalidCodeObject` if the bytes did not parse).
    pub fn symbols(&self) -> Result<&[Arc<CodeSymbol>]> {
        self.symbols.as_deref().ok_or(HsaError::InvalidCodeObject)
    }
    /// The symbol named `name` (`module:name` when a module is given, as ROCr mangles it).
    pub fn symbol(&self, module: Option<&str>, name: &str) -> Result<Arc<CodeSymbol>> {
        let full = match module {
            Some(m) if !m.is_empty() => format!("{m}:{name}"),
            _ => name.to_string(),
        };
        self.symbols()?
            .iter()
            .find(|s| s.name == full)
            .cloned()
            .ok_or(HsaError::InvalidSymbolName)
    }
}

fn parse(bytes: &[u8]) -> Option<(Vec<Arc<CodeSymbol>>, String, String)> {
    let co = CodeObject::parse(bytes).ok()?;
    let mut out = Vec::new();
    for sym in co.symbols().iter().filter(|s| s.defined) {
        let section = co.sections().get(usize::from(sym.section_index));
        let mut s = CodeSymbol {
            name: sym.name.clone(),
            kind: SymbolType::Variable,
            size: sym.size,
            kernarg_segment_size: 0,
            kernarg_segment_alignment: 0,
            group_segment_size: 0,
            private_segment_size: 0,
            dynamic_callstack: false,
            writable: section.is_some_and(|s| s.flags & 1 != 0), // SHF_WRITE
            alignment: 0,
        };
        match sym.kind {
            SymbolKind::KernelDescriptor | SymbolKind::Kernel => {
                let a = crate::executable::kernel_attributes(&co, sym, None).ok()?;
                s.kind = SymbolType::Kernel;
                s.kernarg_segment_size = a.kernarg_segment_size;
                s.kernarg_segment_alignment = a.kernarg_segment_alignment;
                s.group_segment_size = a.group_segment_size;
                s.private_segment_size = a.private_segment_size;
                s.dynamic_callstack = a.dynamic_callstack;
            }
            SymbolKind::Object => s.alignment = 8,
            _ => continue,
        }
        out.push(Arc::new(s));
    }
    let v = co.version();
    let version = match co.v2_notes().and_then(|n| n.code_object_version) {
        Some((major, minor)) => format!("{major}.{minor}"),
        None => format!("{v}.0"),
    };
    let isa = if v <= 3 {
        format!("amdgcn-amd-amdhsa--{}", co.target().processor())
    } else {
        format!("amdgcn-amd-amdhsa--{}", co.target())
    };
    Some((out, version, isa))
}

fn table() -> &'static Mutex<HashMap<u64, Arc<CodeObjectV1>>> {
    static T: OnceLock<Mutex<HashMap<u64, Arc<CodeObjectV1>>>> = OnceLock::new();
    T.get_or_init(Mutex::default)
}

/// `hsa_code_object_deserialize`: copies `bytes` (which need not be a valid code object, as in
/// ROCr: the queries refuse it later). Returns the handle.
pub fn deserialize(bytes: &[u8]) -> Result<u64> {
    if bytes.is_empty() {
        return Err(HsaError::InvalidArgument);
    }
    let reader = CodeObjectReader::from_bytes(bytes)?;
    let parsed = parse(reader.bytes());
    let (symbols, version, isa_name) = match parsed {
        Some((s, v, i)) => (Some(s), Some(v), Some(i)),
        None => (None, None, None),
    };
    let co = Arc::new(CodeObjectV1 {
        reader,
        symbols,
        version,
        isa_name,
    });
    let h = co.handle();
    table().lock().insert(h, co);
    Ok(h)
}

/// The code object with this handle (`InvalidCodeObject` if none).
pub fn get(handle: u64) -> Result<Arc<CodeObjectV1>> {
    table()
        .lock()
        .get(&handle)
        .cloned()
        .ok_or(HsaError::InvalidCodeObject)
}

/// `hsa_code_object_destroy`.
pub fn destroy(handle: u64) -> Result<()> {
    table()
        .lock()
        .remove(&handle)
        .map(|_| ())
        .ok_or(HsaError::InvalidCodeObject)
}

/// The handle of a code symbol.
pub fn symbol_handle(s: &Arc<CodeSymbol>) -> u64 {
    Arc::as_ptr(s) as u64
}

/// The code symbol with this handle (`InvalidCodeSymbol` if none).
pub fn symbol(handle: u64) -> Result<Arc<CodeSymbol>> {
    table()
        .lock()
        .values()
        .filter_map(|c| c.symbols.as_ref())
        .flatten()
        .find(|s| symbol_handle(s) == handle)
        .cloned()
        .ok_or(HsaError::InvalidCodeSymbol)
}
