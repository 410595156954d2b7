//! AMDGPU ELF constants (from the AMDGPU backend guide and ROCm's `amd_hsa_elf.h`; the
//! `layout` test compares them with that header).

pub const EM_AMDGPU: u16 = 224;
pub const ELFOSABI_NONE: u8 = 0;
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
pub const ELFOSABI_AMDGPU_PAL: u8 = 65;
pub const ELFOSABI_AMDGPU_MESA3D: u8 = 66;

pub const ELFABIVERSION_AMDGPU_HSA_V2: u8 = 0;
pub const ELFABIVERSION_AMDGPU_HSA_V3: u8 = 1;
pub const ELFABIVERSION_AMDGPU_HSA_V4: u8 = 2;
pub const ELFABIVERSION_AMDGPU_HSA_V5: u8 = 3;
pub const ELFABIVERSION_AMDGPU_HSA_V6: u8 = 4;

pub const EF_AMDGPU_MACH: u32 = 0x0ff;
pub const EF_AMDGPU_FEATURE_XNACK_V2: u32 = 0x01;
pub const EF_AMDGPU_FEATURE_TRAP_HANDLER_V2: u32 = 0x02;
pub const EF_AMDGPU_FEATURE_XNACK_V3: u32 = 0x100;
pub const EF_AMDGPU_FEATURE_SRAMECC_V3: u32 = 0x200;
pub const EF_AMDGPU_FEATURE_XNACK_V4: u32 = 0x300;
pub const EF_AMDGPU_FEATURE_XNACK_UNSUPPORTED_V4: u32 = 0x000;
pub const EF_AMDGPU_FEATURE_XNACK_ANY_V4: u32 = 0x100;
pub const EF_AMDGPU_FEATURE_XNACK_OFF_V4: u32 = 0x200;
pub const EF_AMDGPU_FEATURE_XNACK_ON_V4: u32 = 0x300;
pub const EF_AMDGPU_FEATURE_SRAMECC_V4: u32 = 0xc00;
pub const EF_AMDGPU_FEATURE_SRAMECC_UNSUPPORTED_V4: u32 = 0x000;
pub const EF_AMDGPU_FEATURE_SRAMECC_ANY_V4: u32 = 0x400;
pub const EF_AMDGPU_FEATURE_SRAMECC_OFF_V4: u32 = 0x800;
pub const EF_AMDGPU_FEATURE_SRAMECC_ON_V4: u32 = 0xc00;
pub const EF_AMDGPU_GENERIC_VERSION: u32 = 0xff00_0000;
pub const EF_AMDGPU_GENERIC_VERSION_OFFSET: u32 = 24;

/// V2 note types (name "AMD").
pub const NT_AMD_HSA_CODE_OBJECT_VERSION: u32 = 1;
pub const NT_AMD_HSA_HSAIL: u32 = 2;
pub const NT_AMD_HSA_ISA_VERSION: u32 = 3;
pub const NT_AMD_HSA_PRODUCER: u32 = 4;
pub const NT_AMD_HSA_PRODUCER_OPTIONS: u32 = 5;
pub const NT_AMD_HSA_EXTENSION: u32 = 6;
pub const NT_AMD_HSA_METADATA: u32 = 10;
pub const NT_AMD_HSA_ISA_NAME: u32 = 11;
pub const NT_AMD_PAL_METADATA: u32 = 12;
/// V3+ note types (name "AMDGPU").
pub const NT_AMDGPU_METADATA: u32 = 32;
pub const NT_AMDGPU_KFD_CORE_STATE: u32 = 33;

pub const STT_AMDGPU_HSA_KERNEL: u8 = 10;
pub const STT_AMDGPU_HSA_INDIRECT_FUNCTION: u8 = 11;
pub const STT_AMDGPU_HSA_METADATA: u8 = 12;
pub const SHN_AMDGPU_LDS: u16 = 0xff00;

pub const PT_AMDGPU_HSA_LOAD_GLOBAL_PROGRAM: u32 = 0x6000_0000;
pub const PT_AMDGPU_HSA_LOAD_GLOBAL_AGENT: u32 = 0x6000_0001;
pub const PT_AMDGPU_HSA_LOAD_READONLY_AGENT: u32 = 0x6000_0002;
pub const PT_AMDGPU_HSA_LOAD_CODE_AGENT: u32 = 0x6000_0003;

pub const R_AMDGPU_NONE: u32 = 0;
pub const R_AMDGPU_ABS32_LO: u32 = 1;
pub const R_AMDGPU_ABS32_HI: u32 = 2;
pub const R_AMDGPU_ABS64: u32 = 3;
pub const R_AMDGPU_REL32: u32 = 4;
pub const R_AMDGPU_REL64: u32 = 5;
pub const R_AMDGPU_ABS32: u32 = 6;
pub const R_AMDGPU_GOTPCREL: u32 = 7;
pub const R_AMDGPU_GOTPCREL32_LO: u32 = 8;
pub const R_AMDGPU_GOTPCREL32_HI: u32 = 9;
pub const R_AMDGPU_REL32_LO: u32 = 10;
pub const R_AMDGPU_REL32_HI: u32 = 11;
pub const R_AMDGPU_RELATIVE64: u32 = 13;
pub const R_AMDGPU_REL16: u32 = 14;
