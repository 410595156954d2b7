//! Loads to LDS ("LDS DMA"): gfx940's `global_load_lds_*` and `scratch_load_lds_*` (gfx950 adds
//! `_dwordx3` and `_dwordx4`), and MUBUF loads with the `lds` bit. Each active lane reads its
//! element from memory as the VGPR form would (a byte or short extended to a dword, signed for
//! `sbyte`/`sshort`) and writes it to LDS instead of VGPRs, at
//! `LDS_ADDR = M0 + inst_offset + TID·4` (`TID·16` for the 3- and 4-dword loads), as the
//! CDNA3/CDNA4 ISA guides give it (§9.1.9 "Memory Buffer Load to LDS"; the work-group's LDS
//! base is 0 here). The same `inst_offset` is added to the memory address. An LDS address past
//! the work-group's allocation faults like any LDS access (or is dropped with
//! `HSAEMU_LDS_OOB=hardware`).

use super::{advance, Mem, Place};
use crate::decode::{Inst, MemDesc};
use crate::exec::{Env, Flow, LaneFault, R};
use crate::ops::Op;
use crate::wave::{Wave, LANES};

/// What one lane loads: `dwords` elements of `bytes` bytes each.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    bytes: u8,
    signed: bool,
    dwords: u8,
}

/// The shape of a FLAT-family LDS load (`None` for every other opcode).
pub(super) fn shape(op: Op) -> Option<Shape> {
    let (bytes, signed, dwords) = match op {
        Op::GLOBAL_LOAD_LDS_UBYTE | Op::SCRATCH_LOAD_LDS_UBYTE => (1, false, 1),
        Op::GLOBAL_LOAD_LDS_SBYTE | Op::SCRATCH_LOAD_LDS_SBYTE => (1, true, 1),
        Op::GLOBAL_LOAD_LDS_USHORT | Op::SCRATCH_LOAD_LDS_USHORT => (2, false, 1),
        Op::GLOBAL_LOAD_LDS_SSHORT | Op::SCRATCH_LOAD_LDS_SSHORT => (2, true, 1),
        Op::GLOBAL_LOAD_LDS_DWORD | Op::SCRATCH_LOAD_LDS_DWORD => (4, false, 1),
        Op::GLOBAL_LOAD_LDS_DWORDX3 => (4, false, 3),
        Op::GLOBAL_LOAD_LDS_DWORDX4 => (4, false, 4),
        _ => return None,
    };
    Some(Shape {
        bytes,
        signed,
        dwords,
    })
}

/// The shape of a MUBUF load with the `lds` bit, from its memory descriptor.
pub(super) fn of_desc(m: &MemDesc) -> Shape {
    Shape {
        bytes: m.bytes,
        signed: m.sext,
        dwords: m.count,
    }
}

impl Shape {
    pub(super) fn dwords(self) -> u8 {
        self.dwords
    }

    pub(super) fn bytes(self) -> u8 {
        self.bytes
    }
}

/// Where a wave's LDS loads start: M0 plus the instruction offset.
pub(super) fn base(w: &Wave, i: &Inst) -> u64 {
    u64::from(w.m0().wrapping_add(i.imm as u32))
}

/// Writes element `k` (`v`, as read from memory) of `lane` to LDS.
pub(super) fn put<const C: bool>(
    mem: &mut Mem<'_, '_, C>,
    base: u64,
    s: Shape,
    lane: usize,
    k: u8,
    v: u64,
) -> Result<(), LaneFault> {
    let v = match (s.bytes, s.signed) {
        (1, true) => v as u8 as i8 as i32 as u32,
        (2, true) => v as u16 as i16 as i32 as u32,
        _ => v as u32,
    };
    let stride = if s.dwords > 2 { 16 } else { 4 };
    let at = base + stride * lane as u64 + 4 * u64::from(k);
    mem.write(Place::Lds(at), 4, u64::from(v), lane)
}

/// A FLAT-family LDS load: each active lane's element at `places` (offset included) to LDS.
pub(super) fn load<const C: bool>(
    w: &mut Wave,
    i: &Inst,
    env: &mut Env,
    places: &[Place; LANES],
    s: Shape,
) -> R {
    let exec = w.exec();
    let base = base(w, i);
    let mut mem = Mem::<C>::new(w, env);
    for (l, &p) in places.iter().enumerate() {
        if exec >> l & 1 == 0 {
            continue;
        }
        for k in 0..s.dwords {
            let v = mem.read(advance(p, 4 * u64::from(k)), u32::from(s.bytes), l)?;
            put(&mut mem, base, s, l, k, v)?;
        }
    }
    Ok(Flow::Next)
}
