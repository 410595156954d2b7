//! The 64-byte kernel descriptor (code object V3+), read from host memory at dispatch time.
//! A private parser so that the emulator does not wait for hsaemu-codeobject; field names
//! follow AMDGPUUsage / `AMDHSAKernelDescriptor.h` (code-object-abi.md §3.6).

/// The fields of a kernel descriptor the emulator uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelDescriptor {
    /// GROUP_SEGMENT_FIXED_SIZE.
    pub group_segment_fixed_size: u32,
    /// PRIVATE_SEGMENT_FIXED_SIZE.
    pub private_segment_fixed_size: u32,
    /// KERNARG_SIZE.
    pub kernarg_size: u32,
    /// KERNEL_CODE_ENTRY_BYTE_OFFSET (from the descriptor's own address).
    pub kernel_code_entry_byte_offset: i64,
    /// COMPUTE_PGM_RSRC3.
    pub compute_pgm_rsrc3: u32,
    /// COMPUTE_PGM_RSRC1.
    pub compute_pgm_rsrc1: u32,
    /// COMPUTE_PGM_RSRC2.
    pub compute_pgm_rsrc2: u32,
    /// KERNEL_CODE_PROPERTIES.
    pub kernel_code_properties: u16,
}

impl KernelDescriptor {
    /// Parses the 64 bytes of a descriptor.
    pub fn parse(b: &[u8; 64]) -> KernelDescriptor {
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let mut e = [0u8; 8];
        e.copy_from_slice(&b[16..24]);
        KernelDescriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            kernel_code_entry_byte_offset: i64::from_le_bytes(e),
            compute_pgm_rsrc3: u32_at(44),
            compute_pgm_rsrc1: u32_at(48),
            compute_pgm_rsrc2: u32_at(52),
            kernel_code_properties: u16::from_le_bytes([b[56], b[57]]),
        }
    }

    fn prop(&self, bit: u32) -> bool {
        self.kernel_code_properties >> bit & 1 != 0
    }
    fn rsrc2(&self, lo: u32, width: u32) -> u32 {
        self.compute_pgm_rsrc2 >> lo & ((1 << width) - 1)
    }
    /// ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER.
    pub fn enable_sgpr_private_segment_buffer(&self) -> bool {
        self.prop(0)
    }
    /// ENABLE_SGPR_DISPATCH_PTR.
    pub fn enable_sgpr_dispatch_ptr(&self) -> bool {
        self.prop(1)
    }
    /// ENABLE_SGPR_QUEUE_PTR.
    pub fn enable_sgpr_queue_ptr(&self) -> bool {
        self.prop(2)
    }
    /// ENABLE_SGPR_KERNARG_SEGMENT_PTR.
    pub fn enable_sgpr_kernarg_segment_ptr(&self) -> bool {
        self.prop(3)
    }
    /// ENABLE_SGPR_DISPATCH_ID.
    pub fn enable_sgpr_dispatch_id(&self) -> bool {
        self.prop(4)
    }
    /// ENABLE_SGPR_FLAT_SCRATCH_INIT.
    pub fn enable_sgpr_flat_scratch_init(&self) -> bool {
        self.prop(5)
    }
    /// ENABLE_SGPR_PRIVATE_SEGMENT_SIZE.
    pub fn enable_sgpr_private_segment_size(&self) -> bool {
        self.prop(6)
    }
    /// ENABLE_WAVEFRONT_SIZE32.
    pub fn enable_wavefront_size32(&self) -> bool {
        self.prop(10)
    }
    /// ENABLE_PRIVATE_SEGMENT (rsrc2 bit 0).
    pub fn enable_private_segment(&self) -> bool {
        self.rsrc2(0, 1) != 0
    }
    /// USER_SGPR_COUNT (rsrc2 bits 5:1).
    pub fn user_sgpr_count(&self) -> u32 {
        self.rsrc2(1, 5)
    }
    /// ENABLE_SGPR_WORKGROUP_ID_X/Y/Z.
    pub fn enable_sgpr_workgroup_id(&self) -> [bool; 3] {
        [
            self.rsrc2(7, 1) != 0,
            self.rsrc2(8, 1) != 0,
            self.rsrc2(9, 1) != 0,
        ]
    }
    /// ENABLE_SGPR_WORKGROUP_INFO.
    pub fn enable_sgpr_workgroup_info(&self) -> bool {
        self.rsrc2(10, 1) != 0
    }
    /// ENABLE_VGPR_WORKITEM_ID (0 = X, 1 = XY, 2 = XYZ).
    pub fn enable_vgpr_workitem_id(&self) -> u32 {
        self.rsrc2(11, 2)
    }
    /// The initial MODE register from rsrc1 (round, denorm, DX10_CLAMP, IEEE, FP16_OVFL).
    pub fn initial_mode(&self) -> u32 {
        let r = self.compute_pgm_rsrc1;
        let float = r >> 12 & 0xff; // round32, round16_64, denorm32, denorm16_64
        let dx10 = r >> 21 & 1;
        let ieee = r >> 23 & 1;
        let fp16_ovfl = r >> 26 & 1; // GFX9+ (reserved, 0, before)
        float | dx10 << 8 | ieee << 9 | fp16_ovfl << 23
    }
}
