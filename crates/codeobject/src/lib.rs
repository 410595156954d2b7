//! hsaemu-codeobject: reads AMDGPU code objects (V2–V6) and the containers they come in.
//!
//! Pure parsing, no `unsafe`, no panics on any input: every check has its own [`Error`]
//! variant naming what is wrong and where (file offset, field, metadata key path), and
//! allocations are bounded by the input size.
//!
//! # Public API
//!
//! - [`CodeObject::parse`]`(&[u8])` — ELF64 header checks (EM_AMDGPU, OS/ABI AMDHSA, ABI
//!   versions V2–V6), e_flags per version, PT_LOAD segments ([`CodeObject::load_segments`],
//!   [`CodeObject::load_size`]), sections, `.dynsym` symbols ([`CodeObject::symbols`], with
//!   [`SymbolKind::KernelDescriptor`] for V3+ `*.kd` and [`SymbolKind::Kernel`] for V2),
//!   dynamic relocations ([`CodeObject::dynamic_relocations`], [`RelocKind`]), notes, and
//!   metadata ([`CodeObject::kernels`] → [`Kernel`] / [`KernelArg`] / [`ValueKind`]).
//!   [`CodeObject::version`] is the real version (2 for V2 even where e_flags looks like V3),
//!   [`CodeObject::target`] the [`TargetId`]. [`CodeObject::kernel_descriptor`] gives a
//!   [`KernelDescriptor`] for V3+ descriptors and for V2 `amd_kernel_code_t` alike.
//! - [`KernelDescriptor::parse`] (64 bytes) with accessors named after the spec's fields
//!   (`granulated_workitem_vgpr_count()`, `user_sgpr_count()`, `accum_offset()`,
//!   `enable_sgpr_kernarg_segment_ptr()`, ...) and derived `vgpr_count`/`sgpr_count`/
//!   `wavefront_size` for a [`ProcessorInfo`]. Bit positions live in [`descriptor::rsrc1`],
//!   [`descriptor::rsrc2`], [`descriptor::rsrc3`], [`descriptor::kcp`].
//! - [`AmdKernelCode::parse`] (256 bytes, V2) and [`AmdKernelCode::to_descriptor`].
//! - [`TargetId::parse`] (`gfx90a:xnack-`, `gfx906+xnack`, `amdgcn-amd-amdhsa--gfx90a:...`),
//!   [`TargetId::canonical`], [`TargetId::isa_name`], [`is_compatible`]; the processor table
//!   [`processor_info`] / [`processor_by_mach`] ([`ProcessorInfo`]: MACH, [`Generation`],
//!   ISA version, features, flat scratch kind, LDS size).
//! - [`unbundle`] / [`unbundle_all`] for `__CLANG_OFFLOAD_BUNDLE__` and `CCOB` bundles
//!   ([`BundleEntry`]), and [`find_code_objects`] for any input form (code object, bundle,
//!   host ELF with `.hip_fatbin`), giving [`FoundCodeObject`]s.
//! - [`report::inspect`] — the `hsaemu inspect` report (JSON and text) of any input.

pub mod amd_kernel_code;
pub mod bundle;
pub mod code_object;
pub mod descriptor;
pub mod elf_consts;
pub mod error;
pub mod metadata;
pub mod processor;
pub mod report;
pub mod target_id;

pub use amd_kernel_code::{AmdKernelCode, AMD_KERNEL_CODE_SIZE};
pub use bundle::{
    find_code_objects, hip_fatbin, parse_entry_id, unbundle, unbundle_all, BundleEntry,
    FoundCodeObject, OffloadKind,
};
pub use code_object::{
    target_from_e_flags, Binding, CodeObject, LoadSegment, MetadataRaw, Note, RelocKind,
    Relocation, Section, Symbol, SymbolKind, V2Notes,
};
pub use descriptor::{KernelDescriptor, KERNEL_DESCRIPTOR_SIZE};
pub use error::{Error, Result};
pub use metadata::{
    Access, AddressSpace, Kernel, KernelArg, KernelKind, Metadata, PrintfInfo, Value, ValueKind,
};
pub use processor::{
    processor_by_isa_version, processor_by_mach, processor_info, FlatScratch, Generation,
    ProcessorInfo, PROCESSORS,
};
pub use target_id::{is_compatible, Feature, TargetId};
