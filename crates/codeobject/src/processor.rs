//! The AMDGPU processor table: every amdgcn processor of the code object spec with its
//! `EF_AMDGPU_MACH` value, generation, ISA version, supported target features and the
//! properties a loader and emulator need (wavefront size, flat scratch kind, packed work-item
//! IDs, LDS size).
//!
//! Values follow the processor and MACH tables of the AMDGPU backend guide (both the LLVM 9
//! and LLVM 20 era editions); gfx940/gfx941 are kept because LLVM 15 and ROCm 5 emit them.

/// The GFX generation (instruction-set family) of a processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Generation {
    Gfx6,
    Gfx7,
    Gfx8,
    Gfx9,
    Gfx10,
    Gfx11,
    Gfx12,
}

/// How a kernel reaches scratch through flat addressing (the "FS" column of the spec).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlatScratch {
    /// No flat address space (GFX6).
    None,
    /// Offset flat scratch (GFX7, GFX8).
    Offset,
    /// Absolute flat scratch (GFX9, GFX10).
    Absolute,
    /// Architected flat scratch (gfx94x, gfx950, GFX11, GFX12).
    Architected,
}

/// Everything known about one processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessorInfo {
    /// Primary name, e.g. `gfx90a`.
    pub name: &'static str,
    /// Alternative (marketing) names accepted as input, e.g. `fiji`.
    pub alt_names: &'static [&'static str],
    /// `EF_AMDGPU_MACH` value.
    pub mach: u32,
    pub generation: Generation,
    /// ISA version major.minor.stepping (`AMD:AMDGPU:9:0:10` for gfx90a).
    pub isa_version: (u32, u32, u32),
    /// An APU (integrated) rather than a discrete GPU.
    pub apu: bool,
    pub supports_xnack: bool,
    pub supports_sramecc: bool,
    pub supports_tgsplit: bool,
    /// GFX10+: wave32 native, `wavefrontsize64` selectable per kernel.
    pub supports_wave32: bool,
    pub flat_scratch: FlatScratch,
    /// Work-item IDs packed into v0 (x | y << 10 | z << 20).
    pub packed_work_item_ids: bool,
    /// Kernarg preload into SGPRs supported.
    pub kernarg_preload: bool,
    /// Unified VGPR/AGPR file with `COMPUTE_PGM_RSRC3.ACCUM_OFFSET` (gfx90a, gfx94x, gfx950).
    pub unified_agprs: bool,
    /// Has AGPRs at all (gfx908 and the unified ones).
    pub has_agprs: bool,
    /// LDS bytes available to one work-group.
    pub lds_size: u32,
    /// For generic processors: the processors they cover, and the generic version at which each
    /// was added (all 1 today). Empty for real processors.
    pub generic_covers: &'static [&'static str],
}

impl ProcessorInfo {
    /// The default wavefront size (64 on GFX6–9, 32 on GFX10+).
    pub fn default_wavefront_size(&self) -> u32 {
        if self.supports_wave32 {
            32
        } else {
            64
        }
    }

    /// A generic processor (`gfx9-generic`, ...), valid only in code object V6+.
    pub fn is_generic(&self) -> bool {
        !self.generic_covers.is_empty()
    }
}

const fn p(
    name: &'static str,
    mach: u32,
    generation: Generation,
    isa_version: (u32, u32, u32),
    features: &'static str,
    flat_scratch: FlatScratch,
) -> ProcessorInfo {
    let f = features.as_bytes();
    ProcessorInfo {
        name,
        alt_names: &[],
        mach,
        generation,
        isa_version,
        apu: has(f, b'A'),
        supports_xnack: has(f, b'x'),
        supports_sramecc: has(f, b's'),
        supports_tgsplit: has(f, b't'),
        supports_wave32: matches!(
            generation,
            Generation::Gfx10 | Generation::Gfx11 | Generation::Gfx12
        ),
        flat_scratch,
        packed_work_item_ids: has(f, b'P'),
        kernarg_preload: has(f, b'K'),
        unified_agprs: has(f, b'U'),
        has_agprs: has(f, b'U') || has(f, b'a'),
        lds_size: if has(f, b'L') { 163_840 } else { 65_536 },
        generic_covers: &[],
    }
}

const fn has(f: &[u8], c: u8) -> bool {
    let mut i = 0;
    while i < f.len() {
        if f[i] == c {
            return true;
        }
        i += 1;
    }
    false
}

const fn alt(mut info: ProcessorInfo, alt_names: &'static [&'static str]) -> ProcessorInfo {
    info.alt_names = alt_names;
    info
}

const fn generic(mut info: ProcessorInfo, covers: &'static [&'static str]) -> ProcessorInfo {
    info.generic_covers = covers;
    info
}

use FlatScratch::{Absolute as Abs, Architected as Arch, None as NoFs, Offset as Off};
use Generation::*;

/// Every amdgcn processor. Feature letters: x xnack, s sramecc, t tgsplit, A APU,
/// P packed work-item IDs, K kernarg preload, U unified AGPRs, a AGPRs, L 160 KiB LDS.
pub static PROCESSORS: &[ProcessorInfo] = &[
    alt(p("gfx600", 0x20, Gfx6, (6, 0, 0), "", NoFs), &["tahiti"]),
    alt(
        p("gfx601", 0x21, Gfx6, (6, 0, 1), "", NoFs),
        &["pitcairn", "verde"],
    ),
    alt(
        p("gfx602", 0x3a, Gfx6, (6, 0, 2), "", NoFs),
        &["hainan", "oland"],
    ),
    alt(p("gfx700", 0x22, Gfx7, (7, 0, 0), "A", Off), &["kaveri"]),
    alt(p("gfx701", 0x23, Gfx7, (7, 0, 1), "", Off), &["hawaii"]),
    p("gfx702", 0x24, Gfx7, (7, 0, 2), "", Off),
    alt(
        p("gfx703", 0x25, Gfx7, (7, 0, 3), "A", Off),
        &["kabini", "mullins"],
    ),
    alt(p("gfx704", 0x26, Gfx7, (7, 0, 4), "", Off), &["bonaire"]),
    p("gfx705", 0x3b, Gfx7, (7, 0, 5), "A", Off),
    alt(p("gfx801", 0x28, Gfx8, (8, 0, 1), "Ax", Off), &["carrizo"]),
    alt(
        p("gfx802", 0x29, Gfx8, (8, 0, 2), "", Off),
        &["iceland", "tonga"],
    ),
    alt(
        p("gfx803", 0x2a, Gfx8, (8, 0, 3), "", Off),
        &["fiji", "polaris10", "polaris11"],
    ),
    alt(p("gfx805", 0x3c, Gfx8, (8, 0, 5), "", Off), &["tongapro"]),
    alt(p("gfx810", 0x2b, Gfx8, (8, 1, 0), "Ax", Off), &["stoney"]),
    p("gfx900", 0x2c, Gfx9, (9, 0, 0), "x", Abs),
    p("gfx902", 0x2d, Gfx9, (9, 0, 2), "Ax", Abs),
    p("gfx904", 0x2e, Gfx9, (9, 0, 4), "x", Abs),
    p("gfx906", 0x2f, Gfx9, (9, 0, 6), "xs", Abs),
    p("gfx908", 0x30, Gfx9, (9, 0, 8), "xsa", Abs),
    p("gfx909", 0x31, Gfx9, (9, 0, 9), "Ax", Abs),
    p("gfx90a", 0x3f, Gfx9, (9, 0, 10), "xstPKU", Abs),
    p("gfx90c", 0x32, Gfx9, (9, 0, 12), "Ax", Abs),
    p("gfx940", 0x40, Gfx9, (9, 4, 0), "xstPKU", Arch),
    p("gfx941", 0x4b, Gfx9, (9, 4, 1), "xstPKU", Arch),
    p("gfx942", 0x4c, Gfx9, (9, 4, 2), "xstPKU", Arch),
    p("gfx950", 0x4f, Gfx9, (9, 5, 0), "xstPKUL", Arch),
    p("gfx1010", 0x33, Gfx10, (10, 1, 0), "x", Abs),
    p("gfx1011", 0x34, Gfx10, (10, 1, 1), "x", Abs),
    p("gfx1012", 0x35, Gfx10, (10, 1, 2), "x", Abs),
    p("gfx1013", 0x42, Gfx10, (10, 1, 3), "Ax", Abs),
    p("gfx1030", 0x36, Gfx10, (10, 3, 0), "", Abs),
    p("gfx1031", 0x37, Gfx10, (10, 3, 1), "", Abs),
    p("gfx1032", 0x38, Gfx10, (10, 3, 2), "", Abs),
    p("gfx1033", 0x39, Gfx10, (10, 3, 3), "A", Abs),
    p("gfx1034", 0x3e, Gfx10, (10, 3, 4), "", Abs),
    p("gfx1035", 0x3d, Gfx10, (10, 3, 5), "A", Abs),
    p("gfx1036", 0x45, Gfx10, (10, 3, 6), "A", Abs),
    p("gfx1100", 0x41, Gfx11, (11, 0, 0), "P", Arch),
    p("gfx1101", 0x46, Gfx11, (11, 0, 1), "P", Arch),
    p("gfx1102", 0x47, Gfx11, (11, 0, 2), "P", Arch),
    p("gfx1103", 0x44, Gfx11, (11, 0, 3), "AP", Arch),
    p("gfx1150", 0x43, Gfx11, (11, 5, 0), "AP", Arch),
    p("gfx1151", 0x4a, Gfx11, (11, 5, 1), "AP", Arch),
    p("gfx1152", 0x55, Gfx11, (11, 5, 2), "AP", Arch),
    p("gfx1153", 0x58, Gfx11, (11, 5, 3), "AP", Arch),
    p("gfx1200", 0x48, Gfx12, (12, 0, 0), "P", Arch),
    p("gfx1201", 0x4e, Gfx12, (12, 0, 1), "P", Arch),
    generic(
        p("gfx9-generic", 0x51, Gfx9, (9, 0, 0), "x", Abs),
        &["gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"],
    ),
    generic(
        p("gfx9-4-generic", 0x5f, Gfx9, (9, 4, 0), "xstPKU", Arch),
        &["gfx942", "gfx950"],
    ),
    generic(
        p("gfx10-1-generic", 0x52, Gfx10, (10, 1, 0), "x", Abs),
        &["gfx1010", "gfx1011", "gfx1012", "gfx1013"],
    ),
    generic(
        p("gfx10-3-generic", 0x53, Gfx10, (10, 3, 0), "", Abs),
        &[
            "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
        ],
    ),
    generic(
        p("gfx11-generic", 0x54, Gfx11, (11, 0, 0), "P", Arch),
        &[
            "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153",
        ],
    ),
    generic(
        p("gfx12-generic", 0x59, Gfx12, (12, 0, 0), "P", Arch),
        &["gfx1200", "gfx1201"],
    ),
];

/// The processor named `name` (primary or alternative name), if known.
pub fn processor_info(name: &str) -> Option<&'static ProcessorInfo> {
    PROCESSORS
        .iter()
        .find(|p| p.name == name || p.alt_names.contains(&name))
}

/// The processor whose `EF_AMDGPU_MACH` is `mach`, if known.
pub fn processor_by_mach(mach: u32) -> Option<&'static ProcessorInfo> {
    PROCESSORS.iter().find(|p| p.mach == mach)
}

/// The processor with ISA version `major.minor.stepping` (V2 `NT_AMD_HSA_ISA_VERSION`), with the
/// xnack setting that stepping implies (`AMD:AMDGPU:9:0:1` is gfx900 with xnack on).
pub fn processor_by_isa_version(
    major: u32,
    minor: u32,
    stepping: u32,
) -> Option<(&'static ProcessorInfo, Option<bool>)> {
    // Old ISA versions encode xnack in odd steppings (ROCr ConvertOldTargetNameToNew).
    let (name, xnack): (&str, Option<bool>) = match (major, minor, stepping) {
        (8, 0, 0) | (8, 0, 2) => ("gfx802", None),
        (8, 0, 1) => ("gfx801", Some(true)),
        (8, 0, 3) | (8, 0, 4) => ("gfx803", None),
        (8, 1, 0) => ("gfx810", Some(true)),
        (9, 0, 0) => ("gfx900", Some(false)),
        (9, 0, 1) => ("gfx900", Some(true)),
        (9, 0, 2) => ("gfx902", Some(false)),
        (9, 0, 3) => ("gfx902", Some(true)),
        (9, 0, 4) => ("gfx904", Some(false)),
        (9, 0, 5) => ("gfx904", Some(true)),
        (9, 0, 6) => ("gfx906", Some(false)),
        (9, 0, 7) => ("gfx906", Some(true)),
        (9, 0, 12) => ("gfx90c", Some(false)),
        _ => {
            let info = PROCESSORS
                .iter()
                .find(|p| !p.is_generic() && p.isa_version == (major, minor, stepping))?;
            return Some((info, None));
        }
    };
    processor_info(name).map(|i| (i, xnack))
}
