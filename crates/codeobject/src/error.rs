//! The error type of the crate: one variant per check, each naming what is wrong and where.
//!
//! Every parser in this crate returns [`Error`] instead of panicking. The `Display` form is a
//! single line meant to be prefixed with the file name by the caller (`FILE: MESSAGE`).

/// Everything that can be wrong with a code object, a bundle, a target ID or a descriptor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A structure runs past the end of its enclosing data.
    #[error("truncated {what} at offset {offset:#x}: needs {needed} bytes, {available} available")]
    Truncated {
        what: &'static str,
        offset: u64,
        needed: u64,
        available: u64,
    },
    /// The input is none of: AMDGPU ELF, offload bundle, host ELF with `.hip_fatbin`.
    #[error("unrecognised input at offset {offset:#x}: {reason}")]
    UnknownFormat { offset: u64, reason: String },
    /// `e_ident[EI_CLASS]` is not ELFCLASS64.
    #[error("ELF class {found} at offset 0x4 is not ELFCLASS64 (2)")]
    WrongClass { found: u8 },
    /// `e_ident[EI_DATA]` is not little-endian.
    #[error("ELF data encoding {found} at offset 0x5 is not ELFDATA2LSB (1)")]
    WrongEndian { found: u8 },
    /// `e_machine` is not EM_AMDGPU.
    #[error("e_machine {found} at offset 0x12 is not EM_AMDGPU (224)")]
    WrongMachine { found: u16 },
    /// `e_ident[EI_OSABI]` is not ELFOSABI_AMDGPU_HSA.
    #[error("OS/ABI {found} at offset 0x7 is not ELFOSABI_AMDGPU_HSA (64)")]
    WrongOsAbi { found: u8 },
    /// `e_ident[EI_ABIVERSION]` names no code object version V2..V6.
    #[error("ABI version {found} at offset 0x8 is not a code object version V2..V6 (0..4)")]
    UnsupportedAbiVersion { found: u8 },
    /// `e_type` is not ET_DYN/ET_REL/ET_EXEC.
    #[error("e_type {found} at offset 0x10 is not ET_REL, ET_EXEC or ET_DYN")]
    WrongType { found: u16 },
    /// `EF_AMDGPU_MACH` names no known processor.
    #[error("e_flags {e_flags:#x} at offset 0x30: unknown EF_AMDGPU_MACH {mach:#x}")]
    UnknownMach { mach: u32, e_flags: u32 },
    /// A field of `e_flags` has a value the version does not allow.
    #[error("e_flags {e_flags:#x} at offset 0x30: {reason}")]
    BadFlags { e_flags: u32, reason: String },
    /// A structure the `object` crate refused (section table, symbol table, ...).
    #[error("malformed {what} at offset {offset:#x}: {reason}")]
    Elf {
        what: &'static str,
        offset: u64,
        reason: String,
    },
    /// A note record or its descriptor is malformed.
    #[error("malformed note {what} at offset {offset:#x}: {reason}")]
    BadNote {
        what: &'static str,
        offset: u64,
        reason: String,
    },
    /// A note the code object version requires is absent.
    #[error("missing {what} note")]
    MissingNote { what: &'static str },
    /// The metadata (YAML or MessagePack) is malformed; `path` names the key, e.g.
    /// `amdhsa.kernels[2].args[1].offset`.
    #[error("metadata at offset {offset:#x}: {path}: {reason}")]
    Metadata {
        offset: u64,
        path: String,
        reason: String,
    },
    /// A target ID or ISA name is malformed.
    #[error("invalid target ID `{text}`: {reason}")]
    InvalidTargetId { text: String, reason: String },
    /// An offload bundle is malformed.
    #[error("offload bundle at offset {offset:#x}: {reason}")]
    Bundle { offset: u64, reason: String },
    /// A compressed bundle failed to decompress.
    #[error("compressed bundle at offset {offset:#x}: {reason}")]
    Decompress { offset: u64, reason: String },
    /// No symbol of that name.
    #[error("no symbol `{name}`")]
    SymbolNotFound { name: String },
    /// A symbol is not what it must be (wrong kind, out of the loaded image, ...).
    #[error("symbol `{name}`: {reason}")]
    BadSymbol { name: String, reason: String },
    /// A dynamic relocation is malformed or of an unsupported type.
    #[error("relocation at offset {offset:#x}: {reason}")]
    BadRelocation { offset: u64, reason: String },
    /// A kernel descriptor or `amd_kernel_code_t` field is invalid.
    #[error("{what} field {field} at offset {offset:#x}: {reason}")]
    BadField {
        what: &'static str,
        field: &'static str,
        offset: u64,
        reason: String,
    },
}

/// Shorthand for `Result<T, Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Checks that `data[offset..offset + len]` exists and returns it.
pub(crate) fn slice<'a>(
    data: &'a [u8],
    offset: u64,
    len: u64,
    what: &'static str,
) -> Result<&'a [u8]> {
    let available = (data.len() as u64).saturating_sub(offset);
    let end = offset.checked_add(len);
    match end {
        Some(end) if end <= data.len() as u64 => Ok(&data[offset as usize..end as usize]),
        _ => Err(Error::Truncated {
            what,
            offset,
            needed: len,
            available,
        }),
    }
}

/// Little-endian field readers over a slice whose length the caller has checked.
pub(crate) fn le_u16(b: &[u8], at: usize) -> u16 {
    let mut a = [0u8; 2];
    if let Some(s) = b.get(at..at + 2) {
        a.copy_from_slice(s);
    }
    u16::from_le_bytes(a)
}

pub(crate) fn le_u32(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    if let Some(s) = b.get(at..at + 4) {
        a.copy_from_slice(s);
    }
    u32::from_le_bytes(a)
}

pub(crate) fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    if let Some(s) = b.get(at..at + 8) {
        a.copy_from_slice(s);
    }
    u64::from_le_bytes(a)
}
