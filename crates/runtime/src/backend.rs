//! The one seam between the runtime and the emulated GPU (`hsaemu-emu`): the map of memory
//! ranges kernels may touch, code-object loading and kernel dispatch. Everything the runtime
//! needs from the emulator goes through this file.

use std::sync::Arc;

use hsaemu_emu::{Access, FaultKind, Gpu, GpuConfig, MemoryMap};

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
        let _ = self.0.register(base, len, Access::ReadWrite);
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

/// One kernel launch, as the packet processor hands it to the GPU.
#[derive(Debug, Clone)]
pub struct KernelDispatch {
    pub kernel_object: u64,
    pub kernarg_address: u64,
    pub grid_size: [u32; 3],
    pub workgroup_size: [u16; 3],
    pub group_segment_size: u32,
    pub private_segment_size: u32,
    pub dispatch_packet_address: u64,
    pub queue_address: u64,
    pub dispatch_id: u64,
    /// The CUs the queue's mask enables (empty: every CU).
    pub compute_units: Vec<u32>,
    /// From a cooperative queue: every work-group is kept resident.
    pub cooperative: bool,
}

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
    gpu: Result<Gpu, String>,
    memory: DeviceMemoryMap,
}

impl GpuBackend {
    pub(crate) fn new(isa: &Isa, memory: DeviceMemoryMap, compute_units: u32) -> Self {
        let cfg = GpuConfig {
            processor: isa.target.processor.to_string(),
            xnack: isa.xnack == Some(true),
            threads: 0,
            compute_units,
            lds_size: isa.target.lds_size,
        };
        let gpu = Gpu::new(cfg, memory.emu_map().clone()).map_err(|e| e.to_string());
        GpuBackend { gpu, memory }
    }

    /// The memory map this GPU checks accesses against.
    pub fn memory(&self) -> &DeviceMemoryMap {
        &self.memory
    }

    fn gpu(&self) -> Result<&Gpu, String> {
        self.gpu
            .as_ref()
            .map_err(|e| format!("the emulated GPU is unavailable: {e}"))
    }

    /// Loads a code object into device-visible memory.
    pub fn load_code_object(&self, bytes: &[u8]) -> Result<LoadedCodeObject, String> {
        self.gpu()?
            .load_code_object(bytes)
            .map_err(|e| e.to_string())
    }

    /// Runs one kernel to completion.
    pub fn dispatch(&self, d: &KernelDispatch) -> Result<(), KernelFault> {
        let gpu = self.gpu().map_err(|message| KernelFault {
            status: HsaError::Error,
            at_launch: true,
            address: None,
            message,
        })?;
        let emu = hsaemu_emu::Dispatch {
            kernel_object: d.kernel_object,
            kernarg_address: d.kernarg_address,
            grid_size: d.grid_size,
            workgroup_size: d.workgroup_size,
            group_segment_size: d.group_segment_size,
            private_segment_size: d.private_segment_size,
            dispatch_packet_address: d.dispatch_packet_address,
            queue_address: d.queue_address,
            dispatch_id: d.dispatch_id,
            compute_units: d.compute_units.clone(),
            cooperative: d.cooperative,
        };
        gpu.dispatch(&emu).map(|_| ()).map_err(|f| {
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
