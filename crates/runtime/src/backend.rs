//! The one seam between the runtime and the emulated GPU (`hsaemu-emu`): the map of memory
//! ranges kernels may touch, code-object loading and kernel dispatch. Everything the runtime
//! needs from the emulator goes through this file.

use std::sync::Arc;

use hsaemu_codeobject::CodeObject;
use hsaemu_emu::validate::{self, Rejected, Rejection};
pub use hsaemu_emu::MemoryKind;
use hsaemu_emu::{Access, EmuError, FaultKind, Gpu, GpuConfig, MemoryMap};

use crate::agent::Isa;
use crate::error::HsaError;

pub use hsaemu_emu::validate::DispatchPacket;
pub use hsaemu_emu::{Control, LoadedCodeObject};

/// ROCr 5.2's status for each class of rejected packet (`AqlQueue`'s queue error handler).
pub fn rejection_status(r: Rejection) -> HsaError {
    match r {
        Rejection::Dimensions => HsaError::IncompatibleArguments,
        Rejection::WorkgroupSize => HsaError::InvalidArgument,
        Rejection::GroupSegment => HsaError::InvalidAllocation,
        Rejection::PrivateSegment => HsaError::OutOfResources,
        Rejection::KernelObject => HsaError::InvalidCodeObject,
        Rejection::PacketFormat => HsaError::InvalidPacketFormat,
    }
}

/// Checks the header bits every packet shares (fence scopes).
pub fn check_header(header: u16) -> Result<(), (HsaError, String)> {
    validate::header(header).map_err(rejected)
}

/// Checks a kernel dispatch packet's fields and gives the dispatch they describe.
pub fn check_dispatch_packet(
    p: &DispatchPacket,
) -> Result<hsaemu_emu::Dispatch, (HsaError, String)> {
    validate::dispatch_packet(p).map_err(rejected)
}

fn rejected(r: Rejected) -> (HsaError, String) {
    (rejection_status(r.reason), r.message)
}

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
    /// Removes the range at `base` from the map at once; `owner` (which frees the memory when
    /// dropped) is kept until every dispatch that may still access it has ended. `by` names
    /// the freeing call in use-after-free reports.
    pub fn retire(&self, base: u64, owner: Box<dyn Send>, by: &'static str) {
        let _ = self.0.retire(base, owner, by);
    }
    /// Makes `[base, base+len)` accessible for loads, stores and atomics. A range overlapping
    /// one already registered is left as it is (the earlier registration keeps covering it),
    /// and said on stderr: kernels would fault on the part not covered.
    pub fn register(&self, base: u64, len: u64) {
        self.register_kind(base, len, MemoryKind::Coarse);
    }
    /// [`register`](Self::register) for memory of a given kind (fine-grained host memory
    /// changes what some atomics do: docs/memory-kinds.md).
    pub fn register_kind(&self, base: u64, len: u64, kind: MemoryKind) {
        if let Err(e) = self.0.register_kind(base, len, Access::ReadWrite, kind) {
            eprintln!("hsaemu: cannot make memory visible to kernels: {e}");
        }
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
/// description (one struct from packet to scheduler, not a copy per layer), checked by
/// [`check_dispatch_packet`].
pub type KernelDispatch = hsaemu_emu::Dispatch;

/// A kernel that stopped abnormally: the queue status to report and a description.
#[derive(Debug, Clone)]
pub struct KernelFault {
    pub status: HsaError,
    /// Whether the dispatch was rejected before it ran (a launch error).
    pub at_launch: bool,
    /// For memory faults: the address and whether it was a write.
    pub address: Option<(u64, bool)>,
    /// Whether the dispatch was stopped on request (inactivate, destroy, shut-down).
    pub requested_stop: bool,
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

    /// Loads a code object (parsed once, by the runtime) into device-visible memory;
    /// `make_room(base, len)` gets the image's pages just before they are registered. A code
    /// object the loader refuses is said on stderr under `HSAEMU_TRACE` (any value); a failure
    /// to place a valid one always is.
    pub fn load_code_object(
        &self,
        code: &CodeObject,
        make_room: impl FnOnce(u64, u64),
    ) -> Result<LoadedCodeObject, HsaError> {
        let e = match self.gpu().and_then(|gpu| gpu.load_with(code, make_room)) {
            Ok(image) => return Ok(image),
            Err(e) => e,
        };
        let status = match e {
            EmuError::CodeObject(_) => {
                if std::env::var_os("HSAEMU_TRACE").is_some() {
                    eprintln!("hsaemu: {e}");
                }
                return Err(HsaError::InvalidCodeObject);
            }
            EmuError::UnsupportedProcessor(_) => HsaError::Error,
            EmuError::Overlap { .. }
            | EmuError::InvalidRange { .. }
            | EmuError::NotRegistered(_) => HsaError::OutOfResources,
        };
        eprintln!("hsaemu: cannot load a code object: {e}");
        Err(status)
    }

    /// Runs one kernel to completion, or until `control` stops it.
    pub fn dispatch(&self, d: &KernelDispatch, control: Arc<Control>) -> Result<(), KernelFault> {
        let gpu = self.gpu().map_err(|e| KernelFault {
            status: HsaError::Error,
            at_launch: true,
            address: None,
            requested_stop: false,
            message: format!("the emulated GPU is unavailable: {e}"),
        })?;
        gpu.dispatch_with(d, control).map(|_| ()).map_err(|f| {
            // The program may not survive the fault: what `--check` found so far goes out now.
            hsaemu_emu::check::report::print_findings();
            let (status, at_launch) = match &f.kind {
                FaultKind::MemoryViolation { .. }
                | FaultKind::LdsOutOfRange { .. }
                | FaultKind::ScratchOutOfRange { .. }
                | FaultKind::PcOutOfRange => (HsaError::MemoryApertureViolation, false),
                FaultKind::IllegalInstruction { .. } | FaultKind::Unimplemented { .. } => {
                    (HsaError::IllegalInstruction, false)
                }
                FaultKind::Trap { .. } => (HsaError::Exception, false),
                FaultKind::InvalidDispatch { class, .. } => (rejection_status(*class), true),
                // A stop by the watchdog is a queue error ROCr has no code for; a requested
                // stop is reported but not passed to the callback (see queue.rs).
                FaultKind::Stopped { .. } => (HsaError::Error, false),
                FaultKind::TierMismatch { .. } => (HsaError::Error, false),
            };
            let address = match &f.kind {
                FaultKind::MemoryViolation { address, write, .. } => Some((*address, *write)),
                _ => None,
            };
            KernelFault {
                status,
                at_launch,
                address,
                requested_stop: matches!(
                    f.kind,
                    FaultKind::Stopped {
                        cause: hsaemu_emu::StopCause::Requested,
                        ..
                    }
                ),
                message: f.to_string(),
            }
        })
    }
}
