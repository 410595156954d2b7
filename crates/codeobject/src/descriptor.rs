//! The code object V3+ kernel descriptor (64 bytes, at the `<kernel>.kd` symbol) with every
//! field and bit of COMPUTE_PGM_RSRC1/2/3 and kernel_code_properties, and the register counts
//! derived from its granulated fields.
//!
//! Offsets and bit positions are those of the AMDGPU backend guide's kernel descriptor tables
//! (and LLVM's `AMDHSAKernelDescriptor.h`); the `layout` test checks them against that header.

use crate::error::{le_u16, le_u32, le_u64, Error, Result};
use crate::processor::{Generation, ProcessorInfo};

/// Size of a kernel descriptor in bytes.
pub const KERNEL_DESCRIPTOR_SIZE: usize = 64;

/// Byte offsets of the kernel descriptor fields.
pub mod offsets {
    pub const GROUP_SEGMENT_FIXED_SIZE: usize = 0;
    pub const PRIVATE_SEGMENT_FIXED_SIZE: usize = 4;
    pub const KERNARG_SIZE: usize = 8;
    pub const RESERVED0: usize = 12;
    pub const KERNEL_CODE_ENTRY_BYTE_OFFSET: usize = 16;
    pub const RESERVED1: usize = 24;
    pub const COMPUTE_PGM_RSRC3: usize = 44;
    pub const COMPUTE_PGM_RSRC1: usize = 48;
    pub const COMPUTE_PGM_RSRC2: usize = 52;
    pub const KERNEL_CODE_PROPERTIES: usize = 56;
    pub const KERNARG_PRELOAD: usize = 58;
    pub const RESERVED2: usize = 60;
}

/// A bit field of a register word: `(word >> shift) & ((1 << width) - 1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitField {
    pub name: &'static str,
    pub shift: u32,
    pub width: u32,
}

impl BitField {
    /// The mask of the field in place.
    pub const fn mask(self) -> u32 {
        (((1u64 << self.width) - 1) as u32) << self.shift
    }

    /// Extracts the field from `word`.
    pub const fn get(self, word: u32) -> u32 {
        (word & self.mask()) >> self.shift
    }
}

const fn bf(name: &'static str, shift: u32, width: u32) -> BitField {
    BitField { name, shift, width }
}

/// COMPUTE_PGM_RSRC1 fields (GFX6–GFX12; some bits are renamed on GFX12, noted per field).
pub mod rsrc1 {
    use super::{bf, BitField};
    pub const GRANULATED_WORKITEM_VGPR_COUNT: BitField = bf("GRANULATED_WORKITEM_VGPR_COUNT", 0, 6);
    pub const GRANULATED_WAVEFRONT_SGPR_COUNT: BitField =
        bf("GRANULATED_WAVEFRONT_SGPR_COUNT", 6, 4);
    pub const PRIORITY: BitField = bf("PRIORITY", 10, 2);
    pub const FLOAT_ROUND_MODE_32: BitField = bf("FLOAT_ROUND_MODE_32", 12, 2);
    pub const FLOAT_ROUND_MODE_16_64: BitField = bf("FLOAT_ROUND_MODE_16_64", 14, 2);
    pub const FLOAT_DENORM_MODE_32: BitField = bf("FLOAT_DENORM_MODE_32", 16, 2);
    pub const FLOAT_DENORM_MODE_16_64: BitField = bf("FLOAT_DENORM_MODE_16_64", 18, 2);
    pub const PRIV: BitField = bf("PRIV", 20, 1);
    /// ENABLE_DX10_CLAMP on GFX6–11; WG_RR_EN on GFX12.
    pub const ENABLE_DX10_CLAMP: BitField = bf("ENABLE_DX10_CLAMP", 21, 1);
    pub const DEBUG_MODE: BitField = bf("DEBUG_MODE", 22, 1);
    /// ENABLE_IEEE_MODE on GFX6–11; DISABLE_PERF on GFX12.
    pub const ENABLE_IEEE_MODE: BitField = bf("ENABLE_IEEE_MODE", 23, 1);
    pub const BULKY: BitField = bf("BULKY", 24, 1);
    pub const CDBG_USER: BitField = bf("CDBG_USER", 25, 1);
    pub const FP16_OVFL: BitField = bf("FP16_OVFL", 26, 1);
    pub const RESERVED0: BitField = bf("RESERVED0", 27, 2);
    pub const WGP_MODE: BitField = bf("WGP_MODE", 29, 1);
    pub const MEM_ORDERED: BitField = bf("MEM_ORDERED", 30, 1);
    pub const FWD_PROGRESS: BitField = bf("FWD_PROGRESS", 31, 1);
    /// Every field, in bit order.
    pub const ALL: &[BitField] = &[
        GRANULATED_WORKITEM_VGPR_COUNT,
        GRANULATED_WAVEFRONT_SGPR_COUNT,
        PRIORITY,
        FLOAT_ROUND_MODE_32,
        FLOAT_ROUND_MODE_16_64,
        FLOAT_DENORM_MODE_32,
        FLOAT_DENORM_MODE_16_64,
        PRIV,
        ENABLE_DX10_CLAMP,
        DEBUG_MODE,
        ENABLE_IEEE_MODE,
        BULKY,
        CDBG_USER,
        FP16_OVFL,
        RESERVED0,
        WGP_MODE,
        MEM_ORDERED,
        FWD_PROGRESS,
    ];
}

/// COMPUTE_PGM_RSRC2 fields.
pub mod rsrc2 {
    use super::{bf, BitField};
    /// ENABLE_PRIVATE_SEGMENT (SCRATCH_EN); the old name is ENABLE_SGPR_PRIVATE_SEGMENT_WAVEFRONT_OFFSET.
    pub const ENABLE_PRIVATE_SEGMENT: BitField = bf("ENABLE_PRIVATE_SEGMENT", 0, 1);
    pub const USER_SGPR_COUNT: BitField = bf("USER_SGPR_COUNT", 1, 5);
    pub const ENABLE_TRAP_HANDLER: BitField = bf("ENABLE_TRAP_HANDLER", 6, 1);
    pub const ENABLE_SGPR_WORKGROUP_ID_X: BitField = bf("ENABLE_SGPR_WORKGROUP_ID_X", 7, 1);
    pub const ENABLE_SGPR_WORKGROUP_ID_Y: BitField = bf("ENABLE_SGPR_WORKGROUP_ID_Y", 8, 1);
    pub const ENABLE_SGPR_WORKGROUP_ID_Z: BitField = bf("ENABLE_SGPR_WORKGROUP_ID_Z", 9, 1);
    pub const ENABLE_SGPR_WORKGROUP_INFO: BitField = bf("ENABLE_SGPR_WORKGROUP_INFO", 10, 1);
    pub const ENABLE_VGPR_WORKITEM_ID: BitField = bf("ENABLE_VGPR_WORKITEM_ID", 11, 2);
    pub const ENABLE_EXCEPTION_ADDRESS_WATCH: BitField =
        bf("ENABLE_EXCEPTION_ADDRESS_WATCH", 13, 1);
    pub const ENABLE_EXCEPTION_MEMORY: BitField = bf("ENABLE_EXCEPTION_MEMORY", 14, 1);
    pub const GRANULATED_LDS_SIZE: BitField = bf("GRANULATED_LDS_SIZE", 15, 9);
    pub const ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION: BitField =
        bf("ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION", 24, 1);
    pub const ENABLE_EXCEPTION_FP_DENORMAL_SOURCE: BitField =
        bf("ENABLE_EXCEPTION_FP_DENORMAL_SOURCE", 25, 1);
    pub const ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO: BitField =
        bf("ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO", 26, 1);
    pub const ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW: BitField =
        bf("ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW", 27, 1);
    pub const ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW: BitField =
        bf("ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW", 28, 1);
    pub const ENABLE_EXCEPTION_IEEE_754_FP_INEXACT: BitField =
        bf("ENABLE_EXCEPTION_IEEE_754_FP_INEXACT", 29, 1);
    pub const ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO: BitField =
        bf("ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO", 30, 1);
    pub const RESERVED0: BitField = bf("RESERVED0", 31, 1);
    /// Every field, in bit order.
    pub const ALL: &[BitField] = &[
        ENABLE_PRIVATE_SEGMENT,
        USER_SGPR_COUNT,
        ENABLE_TRAP_HANDLER,
        ENABLE_SGPR_WORKGROUP_ID_X,
        ENABLE_SGPR_WORKGROUP_ID_Y,
        ENABLE_SGPR_WORKGROUP_ID_Z,
        ENABLE_SGPR_WORKGROUP_INFO,
        ENABLE_VGPR_WORKITEM_ID,
        ENABLE_EXCEPTION_ADDRESS_WATCH,
        ENABLE_EXCEPTION_MEMORY,
        GRANULATED_LDS_SIZE,
        ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION,
        ENABLE_EXCEPTION_FP_DENORMAL_SOURCE,
        ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO,
        ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW,
        ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW,
        ENABLE_EXCEPTION_IEEE_754_FP_INEXACT,
        ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO,
        RESERVED0,
    ];
}

/// COMPUTE_PGM_RSRC3 fields; the layout depends on the processor.
pub mod rsrc3 {
    use super::{bf, BitField};
    /// gfx90a, gfx94x, gfx950.
    pub const GFX90A_ACCUM_OFFSET: BitField = bf("ACCUM_OFFSET", 0, 6);
    pub const GFX90A_RESERVED0: BitField = bf("RESERVED0", 6, 10);
    pub const GFX90A_TG_SPLIT: BitField = bf("TG_SPLIT", 16, 1);
    pub const GFX90A_RESERVED1: BitField = bf("RESERVED1", 17, 15);
    /// GFX10, GFX11.
    pub const GFX10_SHARED_VGPR_COUNT: BitField = bf("SHARED_VGPR_COUNT", 0, 4);
    pub const GFX10_INST_PREF_SIZE: BitField = bf("INST_PREF_SIZE", 4, 6);
    pub const GFX10_TRAP_ON_START: BitField = bf("TRAP_ON_START", 10, 1);
    pub const GFX10_TRAP_ON_END: BitField = bf("TRAP_ON_END", 11, 1);
    pub const GFX10_RESERVED0: BitField = bf("RESERVED0", 12, 19);
    pub const GFX10_IMAGE_OP: BitField = bf("IMAGE_OP", 31, 1);
    /// GFX12.
    pub const GFX12_INST_PREF_SIZE: BitField = bf("INST_PREF_SIZE", 4, 8);
    pub const GFX12_GLG_EN: BitField = bf("GLG_EN", 13, 1);
    pub const GFX12_IMAGE_OP: BitField = bf("IMAGE_OP", 31, 1);
}

/// kernel_code_properties fields (u16 at byte 56).
pub mod kcp {
    use super::{bf, BitField};
    pub const ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER: BitField =
        bf("ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER", 0, 1);
    pub const ENABLE_SGPR_DISPATCH_PTR: BitField = bf("ENABLE_SGPR_DISPATCH_PTR", 1, 1);
    pub const ENABLE_SGPR_QUEUE_PTR: BitField = bf("ENABLE_SGPR_QUEUE_PTR", 2, 1);
    pub const ENABLE_SGPR_KERNARG_SEGMENT_PTR: BitField =
        bf("ENABLE_SGPR_KERNARG_SEGMENT_PTR", 3, 1);
    pub const ENABLE_SGPR_DISPATCH_ID: BitField = bf("ENABLE_SGPR_DISPATCH_ID", 4, 1);
    pub const ENABLE_SGPR_FLAT_SCRATCH_INIT: BitField = bf("ENABLE_SGPR_FLAT_SCRATCH_INIT", 5, 1);
    pub const ENABLE_SGPR_PRIVATE_SEGMENT_SIZE: BitField =
        bf("ENABLE_SGPR_PRIVATE_SEGMENT_SIZE", 6, 1);
    /// V2 `amd_kernel_code_t` only: grid work-group count X/Y/Z (reserved in the V3+ descriptor).
    pub const ENABLE_SGPR_GRID_WORKGROUP_COUNT_X: BitField =
        bf("ENABLE_SGPR_GRID_WORKGROUP_COUNT_X", 7, 1);
    pub const ENABLE_SGPR_GRID_WORKGROUP_COUNT_Y: BitField =
        bf("ENABLE_SGPR_GRID_WORKGROUP_COUNT_Y", 8, 1);
    pub const ENABLE_SGPR_GRID_WORKGROUP_COUNT_Z: BitField =
        bf("ENABLE_SGPR_GRID_WORKGROUP_COUNT_Z", 9, 1);
    pub const ENABLE_WAVEFRONT_SIZE32: BitField = bf("ENABLE_WAVEFRONT_SIZE32", 10, 1);
    pub const USES_DYNAMIC_STACK: BitField = bf("USES_DYNAMIC_STACK", 11, 1);
    pub const RESERVED1: BitField = bf("RESERVED1", 12, 4);
}

/// kernarg_preload fields (u16 at byte 58).
pub mod kernarg_preload {
    use super::{bf, BitField};
    pub const KERNARG_PRELOAD_SPEC_LENGTH: BitField = bf("KERNARG_PRELOAD_SPEC_LENGTH", 0, 7);
    pub const KERNARG_PRELOAD_SPEC_OFFSET: BitField = bf("KERNARG_PRELOAD_SPEC_OFFSET", 7, 9);
}

/// Float rounding modes (FLOAT_ROUND_MODE_*).
pub mod float_round_mode {
    pub const NEAR_EVEN: u32 = 0;
    pub const PLUS_INFINITY: u32 = 1;
    pub const MINUS_INFINITY: u32 = 2;
    pub const ZERO: u32 = 3;
}

/// Float denorm modes (FLOAT_DENORM_MODE_*).
pub mod float_denorm_mode {
    pub const FLUSH_SRC_DST: u32 = 0;
    pub const FLUSH_DST: u32 = 1;
    pub const FLUSH_SRC: u32 = 2;
    pub const FLUSH_NONE: u32 = 3;
}

/// A kernel descriptor. V2 `amd_kernel_code_t` converts to this type too
/// ([`crate::AmdKernelCode::to_descriptor`]), so the emulator handles both the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct KernelDescriptor {
    /// Static LDS bytes per work-group.
    pub group_segment_fixed_size: u32,
    /// Scratch bytes per work-item (add the dynamic stack if `uses_dynamic_stack`).
    pub private_segment_fixed_size: u32,
    /// Kernarg bytes (0 = unspecified).
    pub kernarg_size: u32,
    /// Signed byte offset from the descriptor (or `amd_kernel_code_t`) to the entry instruction.
    pub kernel_code_entry_byte_offset: i64,
    pub compute_pgm_rsrc1: u32,
    pub compute_pgm_rsrc2: u32,
    pub compute_pgm_rsrc3: u32,
    pub kernel_code_properties: u16,
    pub kernarg_preload: u16,
}

impl KernelDescriptor {
    /// Parses the first 64 bytes of `bytes`. Reserved fields are not checked (newer compilers
    /// assign them meanings); only the length is.
    pub fn parse(bytes: &[u8]) -> Result<KernelDescriptor> {
        if bytes.len() < KERNEL_DESCRIPTOR_SIZE {
            return Err(Error::Truncated {
                what: "kernel descriptor",
                offset: 0,
                needed: KERNEL_DESCRIPTOR_SIZE as u64,
                available: bytes.len() as u64,
            });
        }
        use offsets as o;
        Ok(KernelDescriptor {
            group_segment_fixed_size: le_u32(bytes, o::GROUP_SEGMENT_FIXED_SIZE),
            private_segment_fixed_size: le_u32(bytes, o::PRIVATE_SEGMENT_FIXED_SIZE),
            kernarg_size: le_u32(bytes, o::KERNARG_SIZE),
            kernel_code_entry_byte_offset: le_u64(bytes, o::KERNEL_CODE_ENTRY_BYTE_OFFSET) as i64,
            compute_pgm_rsrc3: le_u32(bytes, o::COMPUTE_PGM_RSRC3),
            compute_pgm_rsrc1: le_u32(bytes, o::COMPUTE_PGM_RSRC1),
            compute_pgm_rsrc2: le_u32(bytes, o::COMPUTE_PGM_RSRC2),
            kernel_code_properties: le_u16(bytes, o::KERNEL_CODE_PROPERTIES),
            kernarg_preload: le_u16(bytes, o::KERNARG_PRELOAD),
        })
    }

    /// The 64-byte encoding (reserved bytes zero).
    pub fn to_bytes(&self) -> [u8; KERNEL_DESCRIPTOR_SIZE] {
        use offsets as o;
        let mut b = [0u8; KERNEL_DESCRIPTOR_SIZE];
        b[o::GROUP_SEGMENT_FIXED_SIZE..][..4]
            .copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        b[o::PRIVATE_SEGMENT_FIXED_SIZE..][..4]
            .copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        b[o::KERNARG_SIZE..][..4].copy_from_slice(&self.kernarg_size.to_le_bytes());
        b[o::KERNEL_CODE_ENTRY_BYTE_OFFSET..][..8]
            .copy_from_slice(&self.kernel_code_entry_byte_offset.to_le_bytes());
        b[o::COMPUTE_PGM_RSRC3..][..4].copy_from_slice(&self.compute_pgm_rsrc3.to_le_bytes());
        b[o::COMPUTE_PGM_RSRC1..][..4].copy_from_slice(&self.compute_pgm_rsrc1.to_le_bytes());
        b[o::COMPUTE_PGM_RSRC2..][..4].copy_from_slice(&self.compute_pgm_rsrc2.to_le_bytes());
        b[o::KERNEL_CODE_PROPERTIES..][..2]
            .copy_from_slice(&self.kernel_code_properties.to_le_bytes());
        b[o::KERNARG_PRELOAD..][..2].copy_from_slice(&self.kernarg_preload.to_le_bytes());
        b
    }

    fn r1(&self, f: BitField) -> u32 {
        f.get(self.compute_pgm_rsrc1)
    }
    fn r2(&self, f: BitField) -> u32 {
        f.get(self.compute_pgm_rsrc2)
    }
    fn p(&self, f: BitField) -> bool {
        f.get(u32::from(self.kernel_code_properties)) != 0
    }

    // ---- COMPUTE_PGM_RSRC1 ----
    pub fn granulated_workitem_vgpr_count(&self) -> u32 {
        self.r1(rsrc1::GRANULATED_WORKITEM_VGPR_COUNT)
    }
    pub fn granulated_wavefront_sgpr_count(&self) -> u32 {
        self.r1(rsrc1::GRANULATED_WAVEFRONT_SGPR_COUNT)
    }
    pub fn priority(&self) -> u32 {
        self.r1(rsrc1::PRIORITY)
    }
    /// See [`float_round_mode`].
    pub fn float_round_mode_32(&self) -> u32 {
        self.r1(rsrc1::FLOAT_ROUND_MODE_32)
    }
    pub fn float_round_mode_16_64(&self) -> u32 {
        self.r1(rsrc1::FLOAT_ROUND_MODE_16_64)
    }
    /// See [`float_denorm_mode`].
    pub fn float_denorm_mode_32(&self) -> u32 {
        self.r1(rsrc1::FLOAT_DENORM_MODE_32)
    }
    pub fn float_denorm_mode_16_64(&self) -> u32 {
        self.r1(rsrc1::FLOAT_DENORM_MODE_16_64)
    }
    pub fn priv_(&self) -> bool {
        self.r1(rsrc1::PRIV) != 0
    }
    /// GFX6–11 (WG_RR_EN on GFX12).
    pub fn enable_dx10_clamp(&self) -> bool {
        self.r1(rsrc1::ENABLE_DX10_CLAMP) != 0
    }
    pub fn debug_mode(&self) -> bool {
        self.r1(rsrc1::DEBUG_MODE) != 0
    }
    /// GFX6–11 (DISABLE_PERF on GFX12).
    pub fn enable_ieee_mode(&self) -> bool {
        self.r1(rsrc1::ENABLE_IEEE_MODE) != 0
    }
    pub fn bulky(&self) -> bool {
        self.r1(rsrc1::BULKY) != 0
    }
    pub fn cdbg_user(&self) -> bool {
        self.r1(rsrc1::CDBG_USER) != 0
    }
    /// GFX9+.
    pub fn fp16_ovfl(&self) -> bool {
        self.r1(rsrc1::FP16_OVFL) != 0
    }
    /// GFX10+ (1 = WGP mode, 0 = CU mode).
    pub fn workgroup_processor_mode(&self) -> bool {
        self.r1(rsrc1::WGP_MODE) != 0
    }
    /// GFX10+.
    pub fn mem_ordered(&self) -> bool {
        self.r1(rsrc1::MEM_ORDERED) != 0
    }
    /// GFX10+.
    pub fn fwd_progress(&self) -> bool {
        self.r1(rsrc1::FWD_PROGRESS) != 0
    }

    // ---- COMPUTE_PGM_RSRC2 ----
    /// SCRATCH_EN: the scratch wave offset SGPR (or architected FLAT_SCRATCH) is set up.
    pub fn enable_private_segment(&self) -> bool {
        self.r2(rsrc2::ENABLE_PRIVATE_SEGMENT) != 0
    }
    /// System SGPRs start at SGPR number `user_sgpr_count()`.
    pub fn user_sgpr_count(&self) -> u32 {
        self.r2(rsrc2::USER_SGPR_COUNT)
    }
    pub fn enable_trap_handler(&self) -> bool {
        self.r2(rsrc2::ENABLE_TRAP_HANDLER) != 0
    }
    pub fn enable_sgpr_workgroup_id_x(&self) -> bool {
        self.r2(rsrc2::ENABLE_SGPR_WORKGROUP_ID_X) != 0
    }
    pub fn enable_sgpr_workgroup_id_y(&self) -> bool {
        self.r2(rsrc2::ENABLE_SGPR_WORKGROUP_ID_Y) != 0
    }
    pub fn enable_sgpr_workgroup_id_z(&self) -> bool {
        self.r2(rsrc2::ENABLE_SGPR_WORKGROUP_ID_Z) != 0
    }
    pub fn enable_sgpr_workgroup_info(&self) -> bool {
        self.r2(rsrc2::ENABLE_SGPR_WORKGROUP_INFO) != 0
    }
    /// 0 = X, 1 = X and Y, 2 = X, Y and Z (3 is undefined and reported as is).
    pub fn enable_vgpr_workitem_id(&self) -> u32 {
        self.r2(rsrc2::ENABLE_VGPR_WORKITEM_ID)
    }
    pub fn enable_exception_address_watch(&self) -> bool {
        self.r2(rsrc2::ENABLE_EXCEPTION_ADDRESS_WATCH) != 0
    }
    pub fn enable_exception_memory(&self) -> bool {
        self.r2(rsrc2::ENABLE_EXCEPTION_MEMORY) != 0
    }
    pub fn granulated_lds_size(&self) -> u32 {
        self.r2(rsrc2::GRANULATED_LDS_SIZE)
    }
    pub fn enable_exception_ieee_754_fp_invalid_operation(&self) -> bool {
        self.r2(rsrc2::ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION) != 0
    }
    pub fn enable_exception_fp_denormal_source(&self) -> bool {
        self.r2(rsrc2::ENABLE_EXCEPTION_FP_DENORMAL_SOURCE) != 0
    }
    pub fn enable_exception_ieee_754_fp_division_by_zero(&self) -> bool {
        self.r2(rsrc2::ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO) != 0
    }
    pub fn enable_exception_ieee_754_fp_overflow(&self) -> bool {
        self.r2(rsrc2::ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW) != 0
    }
    pub fn enable_exception_ieee_754_fp_underflow(&self) -> bool {
        self.r2(rsrc2::ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW) != 0
    }
    pub fn enable_exception_ieee_754_fp_inexact(&self) -> bool {
        self.r2(rsrc2::ENABLE_EXCEPTION_IEEE_754_FP_INEXACT) != 0
    }
    pub fn enable_exception_int_divide_by_zero(&self) -> bool {
        self.r2(rsrc2::ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO) != 0
    }
    /// The seven floating-point/integer exception enables (rsrc2 bits 30:24) as one value, in
    /// the order of the MODE register's EXCP_EN field.
    pub fn exception_enables(&self) -> u32 {
        (self.compute_pgm_rsrc2 >> 24) & 0x7f
    }

    // ---- COMPUTE_PGM_RSRC3 ----
    /// gfx90a/gfx94x/gfx950: first AccVGPR = (accum_offset + 1) * 4.
    pub fn accum_offset(&self) -> u32 {
        rsrc3::GFX90A_ACCUM_OFFSET.get(self.compute_pgm_rsrc3)
    }
    /// gfx90a/gfx94x/gfx950.
    pub fn tg_split(&self) -> bool {
        rsrc3::GFX90A_TG_SPLIT.get(self.compute_pgm_rsrc3) != 0
    }
    /// GFX10/11 (wave64 only).
    pub fn shared_vgpr_count(&self) -> u32 {
        rsrc3::GFX10_SHARED_VGPR_COUNT.get(self.compute_pgm_rsrc3)
    }
    /// GFX11 (6 bits); GFX12 uses 8 bits ([`rsrc3::GFX12_INST_PREF_SIZE`]).
    pub fn inst_pref_size(&self) -> u32 {
        rsrc3::GFX10_INST_PREF_SIZE.get(self.compute_pgm_rsrc3)
    }
    /// GFX11.
    pub fn trap_on_start(&self) -> bool {
        rsrc3::GFX10_TRAP_ON_START.get(self.compute_pgm_rsrc3) != 0
    }
    /// GFX11.
    pub fn trap_on_end(&self) -> bool {
        rsrc3::GFX10_TRAP_ON_END.get(self.compute_pgm_rsrc3) != 0
    }
    /// GFX11+.
    pub fn image_op(&self) -> bool {
        rsrc3::GFX10_IMAGE_OP.get(self.compute_pgm_rsrc3) != 0
    }

    // ---- kernel_code_properties ----
    pub fn enable_sgpr_private_segment_buffer(&self) -> bool {
        self.p(kcp::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER)
    }
    pub fn enable_sgpr_dispatch_ptr(&self) -> bool {
        self.p(kcp::ENABLE_SGPR_DISPATCH_PTR)
    }
    pub fn enable_sgpr_queue_ptr(&self) -> bool {
        self.p(kcp::ENABLE_SGPR_QUEUE_PTR)
    }
    pub fn enable_sgpr_kernarg_segment_ptr(&self) -> bool {
        self.p(kcp::ENABLE_SGPR_KERNARG_SEGMENT_PTR)
    }
    pub fn enable_sgpr_dispatch_id(&self) -> bool {
        self.p(kcp::ENABLE_SGPR_DISPATCH_ID)
    }
    pub fn enable_sgpr_flat_scratch_init(&self) -> bool {
        self.p(kcp::ENABLE_SGPR_FLAT_SCRATCH_INIT)
    }
    pub fn enable_sgpr_private_segment_size(&self) -> bool {
        self.p(kcp::ENABLE_SGPR_PRIVATE_SEGMENT_SIZE)
    }
    /// V2 only (from `amd_kernel_code_t`): one SGPR each after the private segment size.
    pub fn enable_sgpr_grid_workgroup_count_x(&self) -> bool {
        self.p(kcp::ENABLE_SGPR_GRID_WORKGROUP_COUNT_X)
    }
    pub fn enable_sgpr_grid_workgroup_count_y(&self) -> bool {
        self.p(kcp::ENABLE_SGPR_GRID_WORKGROUP_COUNT_Y)
    }
    pub fn enable_sgpr_grid_workgroup_count_z(&self) -> bool {
        self.p(kcp::ENABLE_SGPR_GRID_WORKGROUP_COUNT_Z)
    }
    /// GFX10+: 1 = wave32.
    pub fn enable_wavefront_size32(&self) -> bool {
        self.p(kcp::ENABLE_WAVEFRONT_SIZE32)
    }
    pub fn uses_dynamic_stack(&self) -> bool {
        self.p(kcp::USES_DYNAMIC_STACK)
    }

    // ---- kernarg_preload ----
    /// Dwords of kernarg preloaded into SGPRs (gfx90a/94x).
    pub fn kernarg_preload_spec_length(&self) -> u32 {
        kernarg_preload::KERNARG_PRELOAD_SPEC_LENGTH.get(u32::from(self.kernarg_preload))
    }
    /// Dword offset in the kernarg segment of the first preloaded dword.
    pub fn kernarg_preload_spec_offset(&self) -> u32 {
        kernarg_preload::KERNARG_PRELOAD_SPEC_OFFSET.get(u32::from(self.kernarg_preload))
    }

    // ---- derived ----
    /// The number of user SGPRs the enable bits ask for, in the initial-state order (private
    /// segment buffer 4, dispatch ptr 2, queue ptr 2, kernarg ptr 2, dispatch id 2, flat scratch
    /// init 2, private segment size 1, V2 grid work-group counts 1 each, preloaded kernargs).
    pub fn enabled_user_sgpr_count(&self) -> u32 {
        let pairs = [
            (self.enable_sgpr_private_segment_buffer(), 4),
            (self.enable_sgpr_dispatch_ptr(), 2),
            (self.enable_sgpr_queue_ptr(), 2),
            (self.enable_sgpr_kernarg_segment_ptr(), 2),
            (self.enable_sgpr_dispatch_id(), 2),
            (self.enable_sgpr_flat_scratch_init(), 2),
            (self.enable_sgpr_private_segment_size(), 1),
            (self.enable_sgpr_grid_workgroup_count_x(), 1),
            (self.enable_sgpr_grid_workgroup_count_y(), 1),
            (self.enable_sgpr_grid_workgroup_count_z(), 1),
        ];
        pairs
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| n)
            .sum::<u32>()
            + self.kernarg_preload_spec_length()
    }

    /// The wavefront size: 32 when ENABLE_WAVEFRONT_SIZE32 is set on a processor that supports
    /// wave32 (GFX10+), else 64.
    pub fn wavefront_size(&self, processor: &ProcessorInfo) -> u32 {
        if processor.supports_wave32 && self.enable_wavefront_size32() {
            32
        } else {
            64
        }
    }

    /// VGPRs allocated per work-item, from GRANULATED_WORKITEM_VGPR_COUNT: granule 4 on GFX6–9
    /// and GFX10+ wave64, 8 on gfx90a/94x (unified VGPR+AGPR file) and GFX10+ wave32.
    pub fn vgpr_count(&self, processor: &ProcessorInfo) -> u32 {
        let granule = if processor.unified_agprs || self.wavefront_size(processor) == 32 {
            8
        } else {
            4
        };
        (self.granulated_workitem_vgpr_count() + 1) * granule
    }

    /// Architectural VGPRs on gfx90a/94x: AGPRs start at (ACCUM_OFFSET + 1) * 4; `None` elsewhere.
    pub fn arch_vgpr_count(&self, processor: &ProcessorInfo) -> Option<u32> {
        processor
            .unified_agprs
            .then(|| (self.accum_offset() + 1) * 4)
    }

    /// SGPRs allocated per wave, from GRANULATED_WAVEFRONT_SGPR_COUNT: (n + 1) * 8 on GFX6–8,
    /// (n + 1) * 8 rounded up to 16 on GFX9; `None` on GFX10+ where the field is not used
    /// (128 SGPRs are always allocated).
    pub fn sgpr_count(&self, processor: &ProcessorInfo) -> Option<u32> {
        let raw = (self.granulated_wavefront_sgpr_count() + 1) * 8;
        match processor.generation {
            Generation::Gfx6 | Generation::Gfx7 | Generation::Gfx8 => Some(raw),
            Generation::Gfx9 => Some(raw.div_ceil(16) * 16),
            _ => None,
        }
    }
}
