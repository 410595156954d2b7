//! MIMG (image) instructions: the emulator's `Inst` built from isa's operands. The operation
//! (kind, atomic op, address modifiers) is parsed from the mnemonic once, into `Inst::ext`
//! (see `exec/mimg.rs`); `imm` holds DMASK and `offset1` the modifier bits.

use super::{Fmt, Gen, Inst, AGPR, VGPR};
use crate::exec::mimg;
use hsaemu_isa::{Ext, Operand};

fn code(o: Operand) -> u16 {
    match o {
        Operand::Vgpr(n) => VGPR + n,
        Operand::Agpr(n) => AGPR + n,
        Operand::Sgpr(n) => n,
        _ => 0,
    }
}

/// The emulator's instruction for a decoded MIMG word pair.
pub(crate) fn from_isa(
    gen: Gen,
    isa: &hsaemu_isa::Inst,
    name: &'static str,
    w: u32,
    w1: u32,
) -> Inst {
    let mut i = Inst::new(name, Fmt::Mimg, w);
    i.gen = gen;
    i.size = isa.size;
    i.word1 = w1;
    i.dst = code(isa.dst);
    i.src = [code(isa.src[0]), code(isa.src[1]), code(isa.src[2])];
    i.sdst = code(isa.sdst);
    // An atomic's VDATA is both its data and (with GLC) where the old value goes.
    if name.starts_with("image_atomic") {
        i.src[1] = i.dst;
    }
    if let Ext::Mimg { dmask } = isa.ext {
        i.imm = i32::from(dmask);
    }
    i.offset1 = mimg::modifiers(isa.flags);
    i.ext = mimg::describe(name).unwrap_or(0);
    i
}
