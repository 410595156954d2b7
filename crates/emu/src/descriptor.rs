//! The kernel object a dispatch names: a code object V3+ kernel descriptor (64 bytes, the
//! `NAME.kd` symbol) or a code object V2 `amd_kernel_code_t` (256 bytes, the
//! `STT_AMDGPU_HSA_KERNEL` symbol). Both are parsed by hsaemu-codeobject (one parser per
//! structure in the workspace, checked against ROCm's headers) into one [`KernelDescriptor`],
//! from which `dispatch.rs` builds the initial wave state; nothing after this module knows
//! which format a kernel came from.
//!
//! The two formats cannot be told apart reliably from their bytes: the fields the command
//! processor reads (entry offset at 16, RSRC1/2 at 48/52, the low property bits at 56) sit at
//! the same offsets by design, and a descriptor's `group_segment_fixed_size` (offset 0) can
//! hold the `1` that `amd_kernel_code_version_major` holds. ROCr does not guess either: its
//! loader knows the code object version and takes the symbol kind (`.kd` object or
//! `STT_AMDGPU_HSA_KERNEL`) to decide (code-object-abi.md §3.6). So the emulator's loader
//! records the format of every kernel it loads ([`KernelObjectFormat`]) and the dispatch looks
//! it up by kernel object address.

use crate::decode::Gen;
pub use hsaemu_codeobject::KernelDescriptor;
use hsaemu_codeobject::{AmdKernelCode, AMD_KERNEL_CODE_SIZE};

/// What a kernel object points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KernelObjectFormat {
    /// Code object V3+: a 64-byte kernel descriptor. Also assumed for kernel objects the GPU
    /// did not load itself.
    #[default]
    Descriptor,
    /// Code object V2: a 256-byte `amd_kernel_code_t`, followed by the code.
    AmdKernelCode,
}

impl KernelObjectFormat {
    /// Bytes to read at the kernel object.
    pub fn size(self) -> usize {
        match self {
            KernelObjectFormat::Descriptor => hsaemu_codeobject::descriptor::KERNEL_DESCRIPTOR_SIZE,
            KernelObjectFormat::AmdKernelCode => AMD_KERNEL_CODE_SIZE,
        }
    }
}

/// `AMD_KERNEL_CODE_VERSION_MAJOR`, the only `amd_kernel_code_t` layout there is.
const AMD_KERNEL_CODE_VERSION_MAJOR: u32 = 1;
/// Most SGPRs a wave may ask for on GFX8/9: the 102 addressable ones plus VCC, FLAT_SCRATCH
/// and XNACK_MASK, which `wavefront_sgpr_count` includes.
const MAX_WAVEFRONT_SGPRS: u16 = 108;

/// Parses the bytes at a kernel object of the given format into the descriptor the initial
/// wave state is built from. `bytes` holds at least `format.size()` bytes. Errors name the
/// field and why it is unusable.
pub fn parse(
    format: KernelObjectFormat,
    bytes: &[u8],
    gen: Gen,
) -> Result<KernelDescriptor, String> {
    match format {
        KernelObjectFormat::Descriptor => KernelDescriptor::parse(bytes).map_err(|e| e.to_string()),
        KernelObjectFormat::AmdKernelCode => {
            let akc = AmdKernelCode::parse(bytes).map_err(|e| e.to_string())?;
            check_amd_kernel_code(&akc, gen)?;
            Ok(akc.to_descriptor())
        }
    }
}

/// What the emulator needs to hold for an `amd_kernel_code_t` beyond what its parser checks
/// (machine kind, wavefront size).
pub fn check_amd_kernel_code(akc: &AmdKernelCode, gen: Gen) -> Result<(), String> {
    use hsaemu_codeobject::amd_kernel_code::offsets as o;
    let bad = |field: &str, offset: usize, why: String| {
        Err(format!(
            "amd_kernel_code_t field {field} at offset {offset:#x}: {why}"
        ))
    };
    if akc.amd_kernel_code_version_major != AMD_KERNEL_CODE_VERSION_MAJOR {
        return bad(
            "amd_kernel_code_version_major",
            o::AMD_KERNEL_CODE_VERSION_MAJOR,
            format!(
                "{} is not AMD_KERNEL_CODE_VERSION_MAJOR ({AMD_KERNEL_CODE_VERSION_MAJOR})",
                akc.amd_kernel_code_version_major
            ),
        );
    }
    if akc.wavefront_sgpr_count > MAX_WAVEFRONT_SGPRS {
        return bad(
            "wavefront_sgpr_count",
            o::WAVEFRONT_SGPR_COUNT,
            format!(
                "{} SGPRs exceed the {MAX_WAVEFRONT_SGPRS} a wave can have",
                akc.wavefront_sgpr_count
            ),
        );
    }
    // gfx90a's unified file holds 512 (VGPRs and AGPRs); V2 cannot target it, but the bound
    // is the hardware's.
    let max_vgprs = if gen.unified_agprs() { 512 } else { 256 };
    if akc.workitem_vgpr_count > max_vgprs {
        return bad(
            "workitem_vgpr_count",
            o::WORKITEM_VGPR_COUNT,
            format!(
                "{} VGPRs exceed the {max_vgprs} a work-item can have",
                akc.workitem_vgpr_count
            ),
        );
    }
    // The grid work-group count SGPRs (V2 properties bits 7-9) were never implemented by the
    // command processor ("should always be 0") and LLVM never sets them.
    if akc.kernel_code_properties & 0x380 != 0 {
        return bad(
            "kernel_code_properties",
            o::KERNEL_CODE_PROPERTIES,
            format!(
                "{:#x} enables the grid work-group count SGPRs (bits 7-9), which neither the hardware nor the emulator implements",
                akc.kernel_code_properties
            ),
        );
    }
    let entry = akc.kernel_code_entry_byte_offset;
    if (0..AMD_KERNEL_CODE_SIZE as i64).contains(&entry) {
        return bad(
            "kernel_code_entry_byte_offset",
            o::KERNEL_CODE_ENTRY_BYTE_OFFSET,
            format!("{entry:#x} points into the amd_kernel_code_t itself"),
        );
    }
    Ok(())
}

/// The initial MODE register from RSRC1: FLOAT_MODE (round and denorm fields, bits 7:0),
/// DX10_CLAMP (bit 8), IEEE (bit 9) and FP16_OVFL (bit 23).
pub fn initial_mode(kd: &KernelDescriptor) -> u32 {
    let r = kd.compute_pgm_rsrc1;
    let float = r >> 12 & 0xff; // round32, round16_64, denorm32, denorm16_64
    let dx10 = r >> 21 & 1;
    let ieee = r >> 23 & 1;
    let fp16_ovfl = r >> 26 & 1; // GFX9+ (reserved, 0, before)
    float | dx10 << 8 | ieee << 9 | fp16_ovfl << 23
}
