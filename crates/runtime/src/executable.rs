//! Code object readers and executables: loading AMDGPU code objects (V2–V5) onto a GPU agent
//! after a target-ID compatibility check, freezing, and the symbols (kernels with their
//! descriptor address and segment sizes, and global variables) that applications look up by
//! name or by iteration.

use std::collections::HashMap;
use std::sync::Arc;

use hsaemu_codeobject::target_id::Feature;
use hsaemu_codeobject::{is_compatible, CodeObject, SymbolKind, TargetId};
use parking_lot::Mutex;

use crate::agent::Agent;
use crate::backend::LoadedCodeObject;
use crate::error::{HsaError, Result};
use crate::memory::MemoryManager;

/// The bytes of one code object (`hsa_code_object_reader_t`).
#[derive(Debug, Clone)]
pub struct CodeObjectReader(Arc<Vec<u8>>);

impl CodeObjectReader {
    /// A reader over a copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Result<CodeObjectReader> {
        if bytes.is_empty() {
            return Err(HsaError::InvalidCodeObject);
        }
        Ok(CodeObjectReader(Arc::new(bytes.to_vec())))
    }
    /// A reader over `size` bytes (all when `None`) of the open file `fd`, from `offset`.
    /// The caller's descriptor is left open and its position untouched.
    pub fn from_fd(fd: i32, offset: u64, size: Option<u64>) -> Result<CodeObjectReader> {
        use std::io::{Read, Seek};
        use std::os::fd::FromRawFd;
        if fd < 0 {
            return Err(HsaError::InvalidFile);
        }
        // SAFETY: `dup` only creates a new descriptor (or fails with -1).
        let own = unsafe { libc::dup(fd) };
        if own < 0 {
            return Err(HsaError::InvalidFile);
        }
        // SAFETY: `own` is a fresh descriptor owned by this `File` alone.
        let mut file = unsafe { std::fs::File::from_raw_fd(own) };
        // The duplicate shares the file position; like ROCm, reading moves it.
        file.seek(std::io::SeekFrom::Start(offset))
            .map_err(|_| HsaError::InvalidFile)?;
        let mut bytes = Vec::new();
        match size {
            Some(n) => {
                bytes.resize(
                    usize::try_from(n).map_err(|_| HsaError::InvalidArgument)?,
                    0,
                );
                file.read_exact(&mut bytes)
                    .map_err(|_| HsaError::InvalidFile)?;
            }
            None => {
                file.read_to_end(&mut bytes)
                    .map_err(|_| HsaError::InvalidFile)?;
            }
        }
        Self::from_bytes(&bytes)
    }
    /// The handle.
    pub fn handle(&self) -> u64 {
        Arc::as_ptr(&self.0) as u64
    }
    /// The code object's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// What an executable symbol is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolType {
    Kernel,
    Variable,
}

/// A symbol of a loaded code object (`hsa_executable_symbol_t`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutableSymbol {
    /// `foo.kd` for V3+ kernels, `foo` for V2 kernels and variables.
    pub name: String,
    pub kind: SymbolType,
    /// The agent the symbol was loaded for.
    pub agent: u64,
    /// Kernel: the kernel descriptor (or `amd_kernel_code_t`) address; variable: its address.
    pub address: u64,
    /// Variable size in bytes.
    pub size: u64,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_alignment: u32,
    pub group_segment_size: u32,
    pub private_segment_size: u32,
    pub dynamic_callstack: bool,
}

/// The kernel attributes a symbol answers (`HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_*`).
pub(crate) struct KernelAttributes {
    pub(crate) kernarg_segment_size: u32,
    pub(crate) kernarg_segment_alignment: u32,
    pub(crate) group_segment_size: u32,
    pub(crate) private_segment_size: u32,
    pub(crate) dynamic_callstack: bool,
}

/// One code object loaded into an executable.
#[derive(Debug)]
pub struct LoadedObject {
    pub agent: u64,
    pub image: LoadedCodeObject,
    /// The code object's own bytes (for the loader extension's URI and storage queries).
    pub code: CodeObjectReader,
}

#[derive(Debug, Default)]
struct State {
    frozen: bool,
    objects: Vec<LoadedObject>,
    symbols: Vec<Arc<ExecutableSymbol>>,
    defined_variables: HashMap<(String, u64), u64>,
}

/// An executable (`hsa_executable_t`).
#[derive(Debug, Clone)]
pub struct Executable(Arc<Mutex<State>>);

impl Default for Executable {
    fn default() -> Self {
        Self::new()
    }
}

impl Executable {
    /// An empty, unfrozen executable.
    pub fn new() -> Executable {
        Executable(Arc::new(Mutex::new(State::default())))
    }
    /// The handle.
    pub fn handle(&self) -> u64 {
        Arc::as_ptr(&self.0) as u64
    }
    /// Whether `freeze` was called.
    pub fn is_frozen(&self) -> bool {
        self.0.lock().frozen
    }
    /// Freezes it; loading is refused afterwards.
    pub fn freeze(&self) -> Result<()> {
        let mut s = self.0.lock();
        if s.frozen {
            return Err(HsaError::FrozenExecutable);
        }
        s.frozen = true;
        Ok(())
    }

    /// Defines an external variable for `agent` (0: program-wide) before loading.
    pub fn define_variable(&self, agent: u64, name: &str, address: u64) -> Result<()> {
        let mut s = self.0.lock();
        if s.frozen {
            return Err(HsaError::FrozenExecutable);
        }
        let key = (name.to_string(), agent);
        if s.defined_variables.contains_key(&key) {
            return Err(HsaError::VariableAlreadyDefined);
        }
        s.defined_variables.insert(key, address);
        Ok(())
    }

    /// Loads `code` onto `agent`: checks the target ID against the agent's ISA, places the
    /// image in device-visible memory and records its kernels and variables.
    /// `memory` is the runtime's: locked ranges left over from memory freed while locked are
    /// dropped where the image lands.
    pub fn load(
        &self,
        memory: &MemoryManager,
        agent: &Agent,
        code: &CodeObjectReader,
    ) -> Result<()> {
        if self.0.lock().frozen {
            return Err(HsaError::FrozenExecutable);
        }
        let isa = agent.isa().ok_or(HsaError::InvalidAgent)?;
        let backend = agent.backend().ok_or(HsaError::InvalidAgent)?;
        let co = CodeObject::parse(code.bytes()).map_err(|_| HsaError::InvalidCodeObject)?;
        let agent_target = TargetId::parse(&isa.name).map_err(|_| HsaError::InvalidIsa)?;
        if co.target().processor_info().is_none() {
            return Err(HsaError::InvalidIsa);
        }
        // V2 objects name only the processor (their ISA note has no features), and V3 e_flags
        // cannot tell "on" from "any" (LLVM sets the feature bit for both): for both, only the
        // processor has to match, as in ROCm's loader.
        let code_target = if co.version() <= 3 {
            TargetId::new(co.target().processor(), Feature::Any, Feature::Any)
        } else {
            co.target().clone()
        };
        if !is_compatible(&code_target, &agent_target) {
            return Err(HsaError::IncompatibleArguments);
        }
        let image = backend.load_code_object(&co, |base, len| memory.drop_stale(base, len))?;
        let address_of = |name: &str| {
            image
                .symbols
                .iter()
                .find(|s| s.name == name)
                .map(|s| s.address)
        };
        let mut symbols = Vec::new();
        for sym in co.symbols().iter().filter(|s| s.defined) {
            let Some(address) = address_of(&sym.name) else {
                continue;
            };
            match sym.kind {
                SymbolKind::KernelDescriptor | SymbolKind::Kernel => {
                    if let Some(t) = crate::trace::timeline() {
                        t.kernel_loaded(address, &sym.name);
                    }
                    let emu = image.kernels.iter().find(|k| k.kernel_object == address);
                    let attributes = kernel_attributes(
                        &co,
                        sym,
                        emu.map(|k| {
                            (
                                k.kernarg_segment_size,
                                k.group_segment_size,
                                k.private_segment_size,
                            )
                        }),
                    )?;
                    symbols.push(Arc::new(ExecutableSymbol {
                        name: sym.name.clone(),
                        kind: SymbolType::Kernel,
                        agent: agent.handle(),
                        address,
                        size: sym.size,
                        kernarg_segment_size: attributes.kernarg_segment_size,
                        kernarg_segment_alignment: attributes.kernarg_segment_alignment,
                        group_segment_size: attributes.group_segment_size,
                        private_segment_size: attributes.private_segment_size,
                        dynamic_callstack: attributes.dynamic_callstack,
                    }));
                }
                SymbolKind::Object => symbols.push(Arc::new(ExecutableSymbol {
                    name: sym.name.clone(),
                    kind: SymbolType::Variable,
                    agent: agent.handle(),
                    address,
                    size: sym.size,
                    kernarg_segment_size: 0,
                    kernarg_segment_alignment: 0,
                    group_segment_size: 0,
                    private_segment_size: 0,
                    dynamic_callstack: false,
                })),
                _ => {}
            }
        }
        let mut s = self.0.lock();
        if s.frozen {
            return Err(HsaError::FrozenExecutable);
        }
        s.symbols.extend(symbols);
        s.objects.push(LoadedObject {
            agent: agent.handle(),
            image,
            code: code.clone(),
        });
        Ok(())
    }

    /// Every symbol, in load order.
    pub fn symbols(&self) -> Vec<Arc<ExecutableSymbol>> {
        self.0.lock().symbols.clone()
    }

    /// The symbol with this handle, if it is this executable's (looked up in place: a library
    /// program asks for each of its thousands of kernels).
    pub fn symbol_by_handle(&self, handle: u64) -> Option<Arc<ExecutableSymbol>> {
        self.0
            .lock()
            .symbols
            .iter()
            .find(|s| symbol_handle(s) == handle)
            .cloned()
    }

    /// The symbol named `name` loaded for `agent` (any agent when `None`).
    pub fn symbol_by_name(&self, name: &str, agent: Option<u64>) -> Result<Arc<ExecutableSymbol>> {
        self.0
            .lock()
            .symbols
            .iter()
            .find(|s| s.name == name && agent.is_none_or(|a| a == s.agent))
            .cloned()
            .ok_or(HsaError::InvalidSymbolName)
    }

    /// `(agent, base, size)` of each loaded code object.
    pub fn loaded_objects(&self) -> Vec<(u64, u64, u64)> {
        self.0
            .lock()
            .objects
            .iter()
            .map(|o| (o.agent, o.image.base, o.image.size))
            .collect()
    }

    /// The code object (its bytes) loaded at `base`, if any.
    pub fn code_object_at(&self, base: u64) -> Option<CodeObjectReader> {
        self.0
            .lock()
            .objects
            .iter()
            .find(|o| o.image.base == base)
            .map(|o| o.code.clone())
    }

    /// Whether `address` lies in one of its loaded images.
    pub fn contains_address(&self, address: u64) -> bool {
        self.0
            .lock()
            .objects
            .iter()
            .any(|o| address >= o.image.base && address < o.image.base + o.image.size)
    }
}

/// A kernel's attributes: V2 ones, like ROCr, from the `amd_kernel_code_t`; V3+ ones from the
/// metadata, or from the emulator's view of the loaded descriptor when given as
/// `(kernarg, group, private)` sizes.
pub(crate) fn kernel_attributes(
    co: &CodeObject,
    sym: &hsaemu_codeobject::code_object::Symbol,
    emu: Option<(u32, u32, u32)>,
) -> Result<KernelAttributes> {
    if sym.kind == SymbolKind::Kernel {
        let akc = co
            .amd_kernel_code(&sym.name)
            .map_err(|_| HsaError::InvalidCodeObject)?;
        return Ok(KernelAttributes {
            kernarg_segment_size: u32::try_from(akc.kernarg_segment_byte_size)
                .map_err(|_| HsaError::InvalidCodeObject)?,
            kernarg_segment_alignment: u32::try_from(akc.kernarg_segment_align_bytes())
                .map_err(|_| HsaError::InvalidCodeObject)?,
            group_segment_size: akc.workgroup_group_segment_byte_size,
            private_segment_size: akc.workitem_private_segment_byte_size,
            dynamic_callstack: akc.is_dynamic_callstack(),
        });
    }
    let meta = co
        .kernels()
        .iter()
        .find(|k| k.symbol == sym.name || k.name == sym.name);
    Ok(KernelAttributes {
        kernarg_segment_size: meta
            .map(|m| m.kernarg_segment_size)
            .or(emu.map(|k| k.0))
            .unwrap_or(0),
        // ROCr hard-codes 16 for V3+.
        kernarg_segment_alignment: meta.map_or(16, |m| m.kernarg_segment_align.max(16)),
        group_segment_size: emu
            .map(|k| k.1)
            .or(meta.map(|m| m.group_segment_fixed_size))
            .unwrap_or(0),
        private_segment_size: emu
            .map(|k| k.2)
            .or(meta.map(|m| m.private_segment_fixed_size))
            .unwrap_or(0),
        dynamic_callstack: meta.and_then(|m| m.uses_dynamic_stack).unwrap_or(false),
    })
}

/// The handle of a symbol.
pub fn symbol_handle(s: &Arc<ExecutableSymbol>) -> u64 {
    Arc::as_ptr(s) as u64
}
