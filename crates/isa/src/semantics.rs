//! What each opcode does, as data: the semantic attributes LLVM's mnemonics spell (the memory
//! access, the compare condition and type, VOP3b-ness, how each source's constants read) and a
//! canonical semantic key that absorbs per-generation renames. The rows are generated from the
//! opcode list by `gen/gen_semantics.py` (`tables/semantics.rs`); consumers (the emulator) read
//! them once per decoded instruction instead of parsing mnemonics.

use crate::Opcode;

/// The semantic attributes of one opcode, from [`Opcode::semantics`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Semantics {
    /// The opcode whose behaviour this one has: itself, or for a GFX10 rename the GFX9 opcode
    /// (`V_ADD_NC_U32` → `V_ADD_U32`, `V_ADD_CO_CI_U32` → `V_ADDC_CO_U32`); the generator
    /// also maps GFX11's memory spellings (`global_load_b32`, `s_load_b32`) once a GFX11 table
    /// holds them. GFX8's carry-out `v_add_u32` is already `V_ADD_CO_U32` as an [`Opcode`].
    pub key: Opcode,
    /// The memory access of a DS, FLAT/GLOBAL/SCRATCH or MUBUF load, store or atomic; `None`
    /// for other opcodes and for memory opcodes without a plain element access (`ds_swizzle`,
    /// `buffer_load_format_*`, cache maintenance, …).
    pub mem: Option<MemDesc>,
    /// The condition and type of a `v_cmp*`/`v_cmpx*`.
    pub cmp: Option<Compare>,
    /// A VOP3b opcode: its VOP3 word has an SGPR(-pair) `sdst` where others have abs/op_sel.
    pub vop3b: bool,
    /// A matrix-core (MAI) instruction: `v_mfma_*`, `v_smfmac_*`, `v_accvgpr_*`.
    pub mai: bool,
    /// How `src[0..3]`'s inline constants and literals read.
    pub src: [SrcType; 3],
}

/// Operand value type, for constants: which bits an inline float or a literal becomes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SrcType {
    /// 32-bit (inline floats are f32 bits).
    B32,
    /// 16-bit (inline floats are f16 bits).
    B16,
    /// 64-bit integer (inline integers sign-extended, a literal zero-extended).
    B64,
    /// 64-bit float (inline floats are f64 bits, a literal is the high dword).
    F64,
}

/// What a memory opcode does with memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MemKind {
    /// Reads into registers.
    Load,
    /// Writes from registers.
    Store,
    /// Read-modify-write ([`MemDesc::atomic`]).
    Atomic,
}

/// Which half of a register a 16-bit or narrower load/store uses (`_d16`, `_d16_hi`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum D16 {
    /// The whole register (narrow loads zero/sign-extend).
    Full,
    /// The low 16 bits; the high half is kept.
    Lo,
    /// The high 16 bits; the low half is kept.
    Hi,
}

/// Atomic operations (the names of the ISA's `*_atomic_OP` / `ds_OP` mnemonics).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
#[allow(missing_docs)]
pub enum AtomicOp {
    #[default]
    Swap,
    CmpSwap,
    Add,
    Sub,
    Rsub,
    SMin,
    UMin,
    SMax,
    UMax,
    And,
    Or,
    Xor,
    Inc,
    Dec,
    FAdd,
    FMin,
    FMax,
    PkAddF16,
    /// gfx940 `*_pk_add_bf16`: two bf16 adds, each rounded to nearest even.
    PkAddBf16,
    MskOr,
    /// A float compare-and-swap (`*_fcmpswap`, DS `cmpst_f32`/`cmpst_f64`): equality as
    /// floats (−0 equals +0, NaN equals nothing).
    FCmpSwap,
    /// Subtract clamped at 0 (GFX10.3/GFX11 `*_atomic_csub_u32`, GFX12 `*_sub_clamp_u32`):
    /// `old >= data ? old - data : 0`.
    CSub,
    /// GFX12 conditional subtract (`*_cond_sub_u32`): `old >= data ? old - data : old`.
    CondSub,
    /// GFX12 `*_min_num_f32`/`_f64`: IEEE 754-2019 minimumNumber (a NaN operand loses, −0 is
    /// below +0).
    FMinNum,
    /// GFX12 `*_max_num_f32`/`_f64`: IEEE 754-2019 maximumNumber.
    FMaxNum,
}

/// A memory access description.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemDesc {
    /// Load, store or atomic.
    pub kind: MemKind,
    /// Bytes per element (1, 2, 4, 8).
    pub bytes: u8,
    /// Elements (dwords of `dwordxN`, `b96`, `b128`).
    pub count: u8,
    /// Narrow loads sign-extend (`sbyte`, `sshort`, DS `i8`/`i16`).
    pub signed: bool,
    /// Register half of a d16 access.
    pub d16: D16,
    /// The operation of an atomic (`Swap` otherwise).
    pub atomic: AtomicOp,
    /// DS `_rtn`: returns the old value (FLAT/MUBUF atomics return it when `glc` is set).
    pub returns: bool,
    /// DS `read2`/`write2`: two addresses.
    pub two: bool,
    /// DS `read2st64`/`write2st64`: offsets in units of 64 elements.
    pub st64: bool,
}

/// The condition of a vector compare, in the ISA's float order (integer `ne` is `Lg`, `t` is
/// `Tru`); `Class` is `v_cmp_class`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum CmpCond {
    F,
    Lt,
    Eq,
    Le,
    Gt,
    Lg,
    Ge,
    O,
    U,
    Nge,
    Nlg,
    Ngt,
    Nle,
    Neq,
    Nlt,
    Tru,
    Class,
}

/// The operand type of a vector compare.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum CmpType {
    F16,
    F32,
    F64,
    I16,
    I32,
    I64,
    U16,
    U32,
    U64,
}

/// A vector compare.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Compare {
    /// The condition.
    pub cond: CmpCond,
    /// The operand type.
    pub ty: CmpType,
    /// `v_cmpx`: also writes EXEC.
    pub exec: bool,
}
