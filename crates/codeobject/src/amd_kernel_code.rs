//! The code object V2 `amd_kernel_code_t` (256 bytes at an `STT_AMDGPU_HSA_KERNEL` symbol),
//! with the field names of ROCm's `amd_hsa_kernel_code.h`, and its conversion to a
//! [`KernelDescriptor`] so that V2 and V3+ kernels are dispatched the same way.

use crate::descriptor::{kcp, BitField, KernelDescriptor};
use crate::error::{le_u16, le_u32, le_u64, Error, Result};

/// Size of `amd_kernel_code_t` in bytes.
pub const AMD_KERNEL_CODE_SIZE: usize = 256;

/// Byte offsets of the `amd_kernel_code_t` fields (checked against the C header by a test).
pub mod offsets {
    pub const AMD_KERNEL_CODE_VERSION_MAJOR: usize = 0;
    pub const AMD_KERNEL_CODE_VERSION_MINOR: usize = 4;
    pub const AMD_MACHINE_KIND: usize = 8;
    pub const AMD_MACHINE_VERSION_MAJOR: usize = 10;
    pub const AMD_MACHINE_VERSION_MINOR: usize = 12;
    pub const AMD_MACHINE_VERSION_STEPPING: usize = 14;
    pub const KERNEL_CODE_ENTRY_BYTE_OFFSET: usize = 16;
    pub const KERNEL_CODE_PREFETCH_BYTE_OFFSET: usize = 24;
    pub const KERNEL_CODE_PREFETCH_BYTE_SIZE: usize = 32;
    pub const MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE: usize = 40;
    pub const COMPUTE_PGM_RSRC1: usize = 48;
    pub const COMPUTE_PGM_RSRC2: usize = 52;
    pub const KERNEL_CODE_PROPERTIES: usize = 56;
    pub const WORKITEM_PRIVATE_SEGMENT_BYTE_SIZE: usize = 60;
    pub const WORKGROUP_GROUP_SEGMENT_BYTE_SIZE: usize = 64;
    pub const GDS_SEGMENT_BYTE_SIZE: usize = 68;
    pub const KERNARG_SEGMENT_BYTE_SIZE: usize = 72;
    pub const WORKGROUP_FBARRIER_COUNT: usize = 80;
    pub const WAVEFRONT_SGPR_COUNT: usize = 84;
    pub const WORKITEM_VGPR_COUNT: usize = 86;
    pub const RESERVED_VGPR_FIRST: usize = 88;
    pub const RESERVED_VGPR_COUNT: usize = 90;
    pub const RESERVED_SGPR_FIRST: usize = 92;
    pub const RESERVED_SGPR_COUNT: usize = 94;
    pub const DEBUG_WAVEFRONT_PRIVATE_SEGMENT_OFFSET_SGPR: usize = 96;
    pub const DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR: usize = 98;
    pub const KERNARG_SEGMENT_ALIGNMENT: usize = 100;
    pub const GROUP_SEGMENT_ALIGNMENT: usize = 101;
    pub const PRIVATE_SEGMENT_ALIGNMENT: usize = 102;
    pub const WAVEFRONT_SIZE: usize = 103;
    pub const CALL_CONVENTION: usize = 104;
    pub const RESERVED1: usize = 108;
    pub const RUNTIME_LOADER_KERNEL_SYMBOL: usize = 120;
    pub const CONTROL_DIRECTIVES: usize = 128;
}

/// The V2-only kernel_code_properties bits (32-bit word) beyond the V3 descriptor's 16 bits.
pub mod kcp_v2 {
    use crate::descriptor::BitField;
    const fn bf(name: &'static str, shift: u32, width: u32) -> BitField {
        BitField { name, shift, width }
    }
    pub const ENABLE_ORDERED_APPEND_GDS: BitField = bf("ENABLE_ORDERED_APPEND_GDS", 16, 1);
    pub const PRIVATE_ELEMENT_SIZE: BitField = bf("PRIVATE_ELEMENT_SIZE", 17, 2);
    pub const IS_PTR64: BitField = bf("IS_PTR64", 19, 1);
    pub const IS_DYNAMIC_CALLSTACK: BitField = bf("IS_DYNAMIC_CALLSTACK", 20, 1);
    pub const IS_DEBUG_ENABLED: BitField = bf("IS_DEBUG_ENABLED", 21, 1);
    pub const IS_XNACK_ENABLED: BitField = bf("IS_XNACK_ENABLED", 22, 1);
}

/// `amd_kernel_code_t` (control directives are kept as raw bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AmdKernelCode {
    pub amd_kernel_code_version_major: u32,
    pub amd_kernel_code_version_minor: u32,
    pub amd_machine_kind: u16,
    pub amd_machine_version_major: u16,
    pub amd_machine_version_minor: u16,
    pub amd_machine_version_stepping: u16,
    pub kernel_code_entry_byte_offset: i64,
    pub kernel_code_prefetch_byte_offset: i64,
    pub kernel_code_prefetch_byte_size: u64,
    pub max_scratch_backing_memory_byte_size: u64,
    pub compute_pgm_rsrc1: u32,
    pub compute_pgm_rsrc2: u32,
    pub kernel_code_properties: u32,
    pub workitem_private_segment_byte_size: u32,
    pub workgroup_group_segment_byte_size: u32,
    pub gds_segment_byte_size: u32,
    pub kernarg_segment_byte_size: u64,
    pub workgroup_fbarrier_count: u32,
    pub wavefront_sgpr_count: u16,
    pub workitem_vgpr_count: u16,
    pub reserved_vgpr_first: u16,
    pub reserved_vgpr_count: u16,
    pub reserved_sgpr_first: u16,
    pub reserved_sgpr_count: u16,
    pub debug_wavefront_private_segment_offset_sgpr: u16,
    pub debug_private_segment_buffer_sgpr: u16,
    /// log2 of the kernarg segment alignment.
    pub kernarg_segment_alignment: u8,
    pub group_segment_alignment: u8,
    pub private_segment_alignment: u8,
    /// log2 of the wavefront size (6 = wave64, 5 = wave32).
    pub wavefront_size: u8,
    pub call_convention: i32,
    pub runtime_loader_kernel_symbol: u64,
    pub control_directives: [u8; 128],
}

impl AmdKernelCode {
    /// Parses the first 256 bytes of `bytes`. Checks `amd_machine_kind` (must be 1, AMDGPU)
    /// and `wavefront_size` (5 or 6), the fields a loader relies on.
    pub fn parse(bytes: &[u8]) -> Result<AmdKernelCode> {
        if bytes.len() < AMD_KERNEL_CODE_SIZE {
            return Err(Error::Truncated {
                what: "amd_kernel_code_t",
                offset: 0,
                needed: AMD_KERNEL_CODE_SIZE as u64,
                available: bytes.len() as u64,
            });
        }
        use offsets as o;
        let mut control_directives = [0u8; 128];
        control_directives.copy_from_slice(&bytes[o::CONTROL_DIRECTIVES..AMD_KERNEL_CODE_SIZE]);
        let akc = AmdKernelCode {
            amd_kernel_code_version_major: le_u32(bytes, o::AMD_KERNEL_CODE_VERSION_MAJOR),
            amd_kernel_code_version_minor: le_u32(bytes, o::AMD_KERNEL_CODE_VERSION_MINOR),
            amd_machine_kind: le_u16(bytes, o::AMD_MACHINE_KIND),
            amd_machine_version_major: le_u16(bytes, o::AMD_MACHINE_VERSION_MAJOR),
            amd_machine_version_minor: le_u16(bytes, o::AMD_MACHINE_VERSION_MINOR),
            amd_machine_version_stepping: le_u16(bytes, o::AMD_MACHINE_VERSION_STEPPING),
            kernel_code_entry_byte_offset: le_u64(bytes, o::KERNEL_CODE_ENTRY_BYTE_OFFSET) as i64,
            kernel_code_prefetch_byte_offset: le_u64(bytes, o::KERNEL_CODE_PREFETCH_BYTE_OFFSET)
                as i64,
            kernel_code_prefetch_byte_size: le_u64(bytes, o::KERNEL_CODE_PREFETCH_BYTE_SIZE),
            max_scratch_backing_memory_byte_size: le_u64(
                bytes,
                o::MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE,
            ),
            compute_pgm_rsrc1: le_u32(bytes, o::COMPUTE_PGM_RSRC1),
            compute_pgm_rsrc2: le_u32(bytes, o::COMPUTE_PGM_RSRC2),
            kernel_code_properties: le_u32(bytes, o::KERNEL_CODE_PROPERTIES),
            workitem_private_segment_byte_size: le_u32(
                bytes,
                o::WORKITEM_PRIVATE_SEGMENT_BYTE_SIZE,
            ),
            workgroup_group_segment_byte_size: le_u32(bytes, o::WORKGROUP_GROUP_SEGMENT_BYTE_SIZE),
            gds_segment_byte_size: le_u32(bytes, o::GDS_SEGMENT_BYTE_SIZE),
            kernarg_segment_byte_size: le_u64(bytes, o::KERNARG_SEGMENT_BYTE_SIZE),
            workgroup_fbarrier_count: le_u32(bytes, o::WORKGROUP_FBARRIER_COUNT),
            wavefront_sgpr_count: le_u16(bytes, o::WAVEFRONT_SGPR_COUNT),
            workitem_vgpr_count: le_u16(bytes, o::WORKITEM_VGPR_COUNT),
            reserved_vgpr_first: le_u16(bytes, o::RESERVED_VGPR_FIRST),
            reserved_vgpr_count: le_u16(bytes, o::RESERVED_VGPR_COUNT),
            reserved_sgpr_first: le_u16(bytes, o::RESERVED_SGPR_FIRST),
            reserved_sgpr_count: le_u16(bytes, o::RESERVED_SGPR_COUNT),
            debug_wavefront_private_segment_offset_sgpr: le_u16(
                bytes,
                o::DEBUG_WAVEFRONT_PRIVATE_SEGMENT_OFFSET_SGPR,
            ),
            debug_private_segment_buffer_sgpr: le_u16(bytes, o::DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR),
            kernarg_segment_alignment: bytes[o::KERNARG_SEGMENT_ALIGNMENT],
            group_segment_alignment: bytes[o::GROUP_SEGMENT_ALIGNMENT],
            private_segment_alignment: bytes[o::PRIVATE_SEGMENT_ALIGNMENT],
            wavefront_size: bytes[o::WAVEFRONT_SIZE],
            call_convention: le_u32(bytes, o::CALL_CONVENTION) as i32,
            runtime_loader_kernel_symbol: le_u64(bytes, o::RUNTIME_LOADER_KERNEL_SYMBOL),
            control_directives,
        };
        if akc.amd_machine_kind != 1 {
            return Err(Error::BadField {
                what: "amd_kernel_code_t",
                field: "amd_machine_kind",
                offset: o::AMD_MACHINE_KIND as u64,
                reason: format!(
                    "{} is not AMD_MACHINE_KIND_AMDGPU (1)",
                    akc.amd_machine_kind
                ),
            });
        }
        if !matches!(akc.wavefront_size, 5 | 6) {
            return Err(Error::BadField {
                what: "amd_kernel_code_t",
                field: "wavefront_size",
                offset: o::WAVEFRONT_SIZE as u64,
                reason: format!(
                    "log2 size {} is neither 5 (wave32) nor 6 (wave64)",
                    akc.wavefront_size
                ),
            });
        }
        Ok(akc)
    }

    fn prop(&self, f: BitField) -> u32 {
        f.get(self.kernel_code_properties)
    }

    /// The wavefront size in lanes (`1 << wavefront_size`).
    pub fn wavefront_lanes(&self) -> u32 {
        1u32 << u32::from(self.wavefront_size.min(6))
    }

    /// Kernarg segment alignment in bytes (`1 << kernarg_segment_alignment`, capped at 2^31).
    pub fn kernarg_segment_align_bytes(&self) -> u64 {
        1u64 << u32::from(self.kernarg_segment_alignment.min(31))
    }

    pub fn is_xnack_enabled(&self) -> bool {
        self.prop(kcp_v2::IS_XNACK_ENABLED) != 0
    }

    pub fn is_dynamic_callstack(&self) -> bool {
        self.prop(kcp_v2::IS_DYNAMIC_CALLSTACK) != 0
    }

    /// The private element size in bytes (2, 4, 8 or 16).
    pub fn private_element_size(&self) -> u32 {
        2 << self.prop(kcp_v2::PRIVATE_ELEMENT_SIZE)
    }

    /// The equivalent kernel descriptor: sizes, entry offset (from the `amd_kernel_code_t`),
    /// rsrc1/rsrc2, the low 16 property bits (including the V2 grid work-group count enables in
    /// bits 7–9), ENABLE_WAVEFRONT_SIZE32 from `wavefront_size == 5`, USES_DYNAMIC_STACK from
    /// `is_dynamic_callstack`. rsrc3 and kernarg preload are 0.
    pub fn to_descriptor(&self) -> KernelDescriptor {
        let mut props = (self.kernel_code_properties & 0x3ff) as u16;
        if self.wavefront_size == 5 {
            props |= kcp::ENABLE_WAVEFRONT_SIZE32.mask() as u16;
        }
        if self.is_dynamic_callstack() {
            props |= kcp::USES_DYNAMIC_STACK.mask() as u16;
        }
        KernelDescriptor {
            group_segment_fixed_size: self.workgroup_group_segment_byte_size,
            private_segment_fixed_size: self.workitem_private_segment_byte_size,
            kernarg_size: u32::try_from(self.kernarg_segment_byte_size).unwrap_or(u32::MAX),
            kernel_code_entry_byte_offset: self.kernel_code_entry_byte_offset,
            compute_pgm_rsrc1: self.compute_pgm_rsrc1,
            compute_pgm_rsrc2: self.compute_pgm_rsrc2,
            compute_pgm_rsrc3: 0,
            kernel_code_properties: props,
            kernarg_preload: 0,
        }
    }
}
