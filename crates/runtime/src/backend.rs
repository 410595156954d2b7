//! The one seam between the runtime and the emulated GPU (`hsaemu-emu`): the map of memory
//! ranges kernels may touch, code-object loading and kernel dispatch. Everything the runtime
//! needs from the emulator goes through this file.

use std::sync::Arc;

use hsaemu_codeobject::CodeObject;
pub use hsaemu_emu::MemoryKind;
use hsaemu_emu::{Access, EmuError, FaultKind, Gpu, GpuConfig, MemoryMap};

use crate::agent::Isa;
use crate::error::HsaError;

pub use hsaemu_emu::LoadedCodeObject;

/// High dwords of the LDS and private apertures, which kernels read from `amd_queue_t`
/// (`group_segment_aperture_base_hi`, `private_segment_aperture_base_hi`) to form flat
/// addresses.
pub const APERTURES_HI: (u32, u32) = (
    hsaemu_emu::memory::SHARED_APERTURE_HI,
    hsaemu_emu::memory::PRIVATE_APERTURE_HI,
);

/// Ranges of host memory that kernels may access (shared by every emulated GPU).
#[derive(Debug, Clone)]
pub struct DeviceMemoryMap(Arc<MemoryMap>);

impl Default for DeviceMemoryMap {
    fn default() -> Self {
        DeviceMemoryMap(MemoryMap::new())
    }
}

impl DeviceMemoryMap {
    /// Makes `[base, base+len)` accessible for loads, stores and atomics. A range overlapping
    /// one already registered is left as it is (the earlier registration keeps covering it).
    pub fn register(&self, base: u64, len: u64) {
        self.register_kind(base, len, MemoryKind::Coarse);
    }
    /// [`register`](Self::register) for memory of a given kind (fine-grained host memory
    /// changes what some atomics do: docs/memory-kinds.md).
    pub fn register_kind(&self, base: u64, len: u64, kind: MemoryKind) {
        let _ = self.0.register_kind(base, len, Access::ReadWrite, kind);
    }
    /// Removes the range starting at `base` (unknown ranges are ignored).
    pub fn unregister(&self, base: u64) {
        let _ = self.0.unregister(base);
    }
    /// Whether `[addr, addr+len)` lies in one registered range.
    pub fn contains(&self, addr: u64, len: u64) -> bool {
        self.0.contains(addr, len)
    }
    /// The emulator's map.
    pub fn emu_map(&self) -> &Arc<MemoryMap> {
        &self.0
    }
}

/// One kernel launch, as the packet processor hands it to the GPU: the emulator's own
/// description (one struct from packet to scheduler, not a copy per layer).
pub type KernelDispatch = hsaemu_emu::Dispatch;

/// A kernel that stopped abnormally: the queue status to report and a description.
#[derive(Debug, Clone)]
pub struct KernelFault {
    pub status: HsaError,
    /// Whether the dispatch was rejected before it ran (a launch error).
    pub at_launch: bool,
    /// For memory faults: the address and whether it was a write.
    pub address: Option<(u64, bool)>,
    pub message: String,
}

/// The emulated GPU behind one agent.
#[derive(Debug)]
pub struct GpuBackend {
    gpu: Result<Gpu, EmuError>,
    memory: DeviceMemoryMap,
}

impl GpuBackend {
    /// `clock_mhz` is the clock the agent reports (`s_memtime` ticks at it).
    pub(crate) fn new(
        isa: &Isa,
        memory: DeviceMemoryMap,
        compute_units: u32,
        clock_mhz: u32,
    ) -> Self {
        let cfg = GpuConfig {
            processor: isa.target.processor.to_string(),
            xnack: isa.xnack == Some(true),
            threads: 0,
            compute_units,
            lds_size: isa.target.lds_size,
            clock_mhz,
        };
        let gpu = Gpu::new(cfg, memory.emu_map().clone());
        GpuBackend { gpu, memory }
    }

    /// The memory map this GPU checks accesses against.
    pub fn memory(&self) -> &DeviceMemoryMap {
        &self.memory
    }

    fn gpu(&self) -> Result<&Gpu, EmuError> {
        self.gpu.as_ref().map_err(Clone::clone)
    }

    /// Loads a code object (parsed once, by the runtime) into device-visible memory.
    pub fn load_code_object(&self, code: &CodeObject) -> Result<LoadedCodeObject, EmuError> {
        self.gpu()?.load(code)
    }

    /// Runs one kernel to completion.
    pub fn dispatch(&self, d: &KernelDispatch) -> Result<(), KernelFault> {
        let gpu = self.gpu().map_err(|e| KernelFault {
            status: HsaError::Error,
            at_launch: true,
            address: None,
            message: format!("the emulated GPU is unavailable: {e}"),
        })?;
        gpu.dispatch(d).map(|_| ()).map_err(|f| {
            let (status, at_launch) = match &f.kind {
                FaultKind::MemoryViolation { .. }
                | FaultKind::LdsOutOfRange { .. }
                | FaultKind::ScratchOutOfRange { .. }
                | FaultKind::PcOutOfRange => (HsaError::MemoryApertureViolation, false),
                FaultKind::IllegalInstruction { .. } | FaultKind::Unimplemented { .. } => {
                    (HsaError::IllegalInstruction, false)
                }
                FaultKind::Trap { .. } => (HsaError::Exception, false),
                FaultKind::InvalidDispatch { .. } => (HsaError::InvalidPacketFormat, true),
            };
            let address = match &f.kind {
                FaultKind::MemoryViolation { address, write, .. } => Some((*address, *write)),
                _ => None,
            };
            KernelFault {
                status,
                at_launch,
                address,
                message: f.to_string(),
            }
        })
    }
}
