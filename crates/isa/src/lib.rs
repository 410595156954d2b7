//! hsaemu-isa: a table-driven decoder for AMDGPU GFX8 and GFX9/CDNA machine code, and a
//! disassembler whose text is identical to llvm-objdump-15's.
//!
//! [`decode`] turns the words at an offset into an [`Inst`], a small `Copy` value the emulator
//! executes without re-reading the machine code; [`format`] prints it the way
//! `llvm-objdump -d` does. The per-generation opcode tables are generated from
//! llvm-objdump-15's own output by the scripts in `crates/isa/gen/` (see
//! `docs/architecture-isa.md`).

mod decode;
mod format;
pub mod inst;
pub mod listing;
pub mod opcode;
mod tables;

pub use decode::{decode, decode_all};
pub use format::format;
pub use listing::{listing, TextSymbol};
pub use inst::{
    flags, op_flags, DecodeError, DecodeErrorKind, Dpp, Encoding, Ext, FloatConst, Gen, Inst,
    OpInfo, Operand, Sdwa, VopMods,
};
pub use opcode::Opcode;

/// The llvm-objdump text of the instruction at `offset` (or `.long 0x…` for a word that does
/// not decode), with its size in bytes.
pub fn disassemble_one(gen: Gen, bytes: &[u8], offset: usize, pc: u64) -> (String, usize) {
    match decode(gen, bytes, offset) {
        Ok(inst) => (format(&inst, gen, pc), usize::from(inst.size)),
        Err(e) => (format!(".long {:#010x}", e.word), 4),
    }
}
