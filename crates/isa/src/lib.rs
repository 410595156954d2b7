//! hsaemu-isa: a table-driven decoder for AMDGPU GFX8, GFX9/CDNA and GFX10.3/RDNA2 machine
//! code, and a disassembler whose text is identical to llvm-objdump-15's.
//!
//! [`decode`] turns the words at an offset into an [`Inst`], a small `Copy` value the emulator
//! executes without re-reading the machine code; [`format()`] prints it the way
//! `llvm-objdump -d` does. The per-generation opcode tables are generated from
//! llvm-objdump-15's own output by the scripts in `crates/isa/gen/` (see
//! `docs/architecture-isa.md`).

mod decode;
mod format;
pub mod inst;
pub mod listing;
pub mod opcode;
pub mod semantics;
mod tables;

#[doc(hidden)]
pub use decode::internals;
pub use decode::{decode, decode_all, decode_into};
pub use format::format;
pub use inst::{
    flags, op_flags, DecodeError, DecodeErrorKind, Dpp, Dpp8, Encoding, Ext, FloatConst, Gen, Inst,
    OpInfo, Operand, Sdwa, Vimage, VopMods,
};
pub use listing::{listing, TextSymbol};
pub use opcode::Opcode;
pub use semantics::Semantics;

/// Every opcode the decoding tables of `gen` know: (encoding, opcode number, opcode, the
/// mnemonic LLVM prints for that form). Empty for generations without tables.
pub fn table_entries(gen: Gen) -> Vec<(Encoding, u32, Opcode, &'static str)> {
    tables::all_entries(gen)
}

/// The llvm-objdump text of the instruction at `offset` (or `.long 0x…` for a word that does
/// not decode), with its size in bytes.
pub fn disassemble_one(gen: Gen, bytes: &[u8], offset: usize, pc: u64) -> (String, usize) {
    match decode(gen, bytes, offset) {
        Ok(inst) => (format(&inst, gen, pc), usize::from(inst.size)),
        Err(e) => (format!(".long {:#010x}", e.word), 4),
    }
}
