//! gfx950's LDS transpose loads, `ds_read_b64_tr_b{4,8,16}` and `ds_read_b96_tr_b6`: every
//! lane reads 64 (96) bits at its address, holding `E` elements of `b` bits (`E` = 16, 8, 4
//! for b4, b8, b16; 16 for b6), element `e` at bits `b·e`. Within each block of 16 lanes the
//! loaded elements form a matrix whose rows are `16 / E` consecutive lanes' loads, and the
//! result is its transpose: lane `j` of the block receives, as its element `e`, element
//! `j mod E` of the block's lane `(16 / E)·e + ⌊j / E⌋`. So for b16 (4 elements) lane j gets
//! element j mod 4 of lanes j/4, 4 + j/4, 8 + j/4, 12 + j/4; for b8 lanes 0–7 read the even
//! lanes and 8–15 the odd ones ("two interleaved 8×8 byte transposes"); b4 and b6 are 16×16
//! transposes. The CDNA4 ISA guide (§11.4, "MFMA transpose load from LDS") describes the
//! matrix shape; the lane map is the one rocRoller's `TransposeLoadsTest` checks on gfx950
//! hardware, re-derived and written into this crate's tests.
//!
//! The ISA requires EXEC to be all ones. With lanes off, only active lanes read LDS and
//! receive a result; an inactive lane's elements read as zero (a choice: the hardware result
//! is undefined). The 128-bit alignment b6 asks for is not checked.

use super::{Mem, Place};
use crate::decode::Inst;
use crate::exec::{Env, Flow, LaneFault, R};
use crate::ops::Op;
use crate::wave::{Wave, LANES};

/// Element bits and dwords loaded per lane.
fn shape(op: Op) -> (u32, u32) {
    match op {
        Op::DS_READ_B64_TR_B4 => (4, 2),
        Op::DS_READ_B64_TR_B8 => (8, 2),
        Op::DS_READ_B96_TR_B6 => (6, 3),
        _ => (16, 2),
    }
}

/// Executes a transpose load at `addr + off16` per lane.
pub(super) fn read<const C: bool>(
    w: &mut Wave,
    i: &Inst,
    env: &mut Env,
    addr: &[u32; LANES],
    off16: u32,
) -> R {
    let (bits, dwords) = shape(i.op);
    let elems = 32 * dwords / bits;
    let exec = w.exec();
    let raw = gather::<C>(w, env, dwords, |l, k| {
        Place::Lds(u64::from(addr[l].wrapping_add(off16).wrapping_add(4 * k)))
    })?;
    let out = transpose(&raw, bits, elems, 16);
    write_rows(w, i.dst, dwords, &out, exec);
    Ok(Flow::Next)
}

/// Reads `dwords` dwords per active lane, dword `k` of lane `l` at `place(l, k)`, each an
/// ordinary checked read; inactive lanes read nothing (zero).
pub(super) fn gather<const C: bool>(
    w: &Wave,
    env: &mut Env,
    dwords: u32,
    place: impl Fn(usize, u32) -> Place,
) -> Result<[u128; LANES], LaneFault> {
    let exec = w.exec();
    let mut raw = [0u128; LANES];
    let mut mem = Mem::<C>::new(w, env);
    for (l, r) in raw.iter_mut().enumerate() {
        if exec >> l & 1 == 0 {
            continue;
        }
        for k in 0..dwords {
            *r |= u128::from(mem.read(place(l, k), 4, l)?) << (32 * k);
        }
    }
    Ok(raw)
}

/// The lane shuffle every transpose load shares: within each block of `block` lanes the
/// loaded `elems`-element rows (element `e` at bits `bits·e` of a lane's value) form a matrix
/// of `block / elems` consecutive lanes per row, and lane `j` of the block receives, as its
/// element `e`, element `j mod elems` of the block's lane `(block / elems)·e + ⌊j / elems⌋`.
/// gfx950's LDS forms use 16-lane blocks; GFX12's global forms 8-lane blocks of 8 elements
/// (one plain 8×8 transpose per block).
pub(super) fn transpose(raw: &[u128; LANES], bits: u32, elems: u32, block: usize) -> [u128; LANES] {
    let mask = (1u128 << bits) - 1;
    let per_row = block / elems as usize;
    let mut out = [0u128; LANES];
    for (l, o) in out.iter_mut().enumerate() {
        let (first, j) = (l - l % block, (l % block) as u32);
        for e in 0..elems {
            let src = first + per_row * e as usize + (j / elems) as usize;
            let v = raw[src] >> (bits * (j % elems)) & mask;
            *o |= v << (bits * e);
        }
    }
    out
}

/// Writes `dwords` registers from `dst` with the active lanes' transposed values.
pub(super) fn write_rows(w: &mut Wave, dst: u16, dwords: u32, out: &[u128; LANES], exec: u64) {
    for k in 0..dwords {
        let mut row = [0u32; LANES];
        for (x, o) in row.iter_mut().zip(out) {
            *x = (o >> (32 * k)) as u32;
        }
        w.vwrite(dst + k as u16, &row, exec);
    }
}
