//! The compiling tier's way into the interpreter's one-range fast paths (jit/lower_mem.rs):
//! a compiled block runs a GLOBAL/FLAT load or store, a DS dword load or store, a 32-bit DS
//! atomic, a GLOBAL/FLAT atomic or an SMEM load by calling [`run`], which executes the
//! instruction exactly as the interpreter's fast path does (the same code: the lanes' lowest
//! and highest address checked once against one mapped region, LDS against the work-group's
//! allocation, the same host accesses; atomics lane by lane in ascending order) or declines
//! having changed nothing the interpreter would see. The block then ends before the
//! instruction, and the interpreter runs it and reports any fault with its kernel, PC, lane
//! and address.

#![cfg_attr(not(feature = "jit"), allow(dead_code))]

use super::{ds_atomic32, ds_dwords, flat_addrs, global_addrs, global_dwords, Env, Kind};
use crate::decode::{Fmt, Inst, VGPR};
use crate::memory::host;
use crate::ops::Op;
use crate::wave::{Ty, Wave, LANES};

/// Whether [`run`] may execute `i` (what `jit::compilable` admits of the memory
/// instructions): GLOBAL (VGPR address) and FLAT plain loads and stores of 1, 2 or 4-byte
/// elements (dword×1–4; not d16, not the LDS-DMA, transpose, ADDTID or block forms, which
/// have their own `Op`) and their 32- and 64-bit atomics, DS `b32`/`b64`/`b96`/`b128` and
/// `read2`/`write2` loads and stores and 32-bit atomics (with and without return), and SMEM
/// loads of 1 to 16 dwords.
pub(crate) fn admits(i: &Inst) -> bool {
    let m = i.mem;
    match i.fmt {
        Fmt::Global | Fmt::Flat if m.kind == Kind::Atomic => {
            i.op == Op::Mem
                && (i.fmt == Fmt::Flat || i.src[0] >= VGPR)
                && matches!(m.bytes, 4 | 8)
                && m.count == 1
        }
        Fmt::Global | Fmt::Flat => {
            i.op == Op::Mem
                && (i.fmt == Fmt::Flat || i.src[0] >= VGPR)
                && matches!(m.kind, Kind::Load | Kind::Store)
                && m.d16 == 0
                && match m.bytes {
                    4 => (1..=4).contains(&m.count),
                    1 | 2 => m.count == 1,
                    _ => false,
                }
        }
        Fmt::Ds => {
            i.op == Op::Mem
                && m.d16 == 0
                && match m.kind {
                    Kind::Load | Kind::Store => matches!(m.bytes, 4 | 8),
                    // `ds_atomic32`'s instructions (the 64-bit ones take the general path).
                    Kind::Atomic => m.bytes == 4 && !m.two,
                    Kind::Other => false,
                }
        }
        Fmt::Smem => matches!(
            i.op,
            Op::S_LOAD_DWORD
                | Op::S_LOAD_DWORDX2
                | Op::S_LOAD_DWORDX4
                | Op::S_LOAD_DWORDX8
                | Op::S_LOAD_DWORDX16
                | Op::S_BUFFER_LOAD_DWORD
                | Op::S_BUFFER_LOAD_DWORDX2
                | Op::S_BUFFER_LOAD_DWORDX4
                | Op::S_BUFFER_LOAD_DWORDX8
                | Op::S_BUFFER_LOAD_DWORDX16
        ),
        _ => false,
    }
}

/// A global store's old contents, for `HSAEMU_JIT=verify` to put back before the interpreter
/// runs the same block again: (address, bytes, old value), in store order.
pub(crate) type Journal = Vec<(u64, u32, u64)>;

/// Executes `i` (one [`admits`] accepts) on its fast path and returns true, or returns false
/// having changed nothing but the region cache (the interpreter then executes it). With a
/// `journal`, a global store first records the memory it overwrites.
pub(crate) fn run(w: &mut Wave, i: &Inst, env: &mut Env, journal: Option<&mut Journal>) -> bool {
    let exec = w.exec();
    match i.fmt {
        // Not journalled (`jit::collect` leaves them out of `HSAEMU_JIT=verify` regions).
        Fmt::Global | Fmt::Flat if i.mem.kind == Kind::Atomic => {
            return journal.is_none() && atomic(w, i, env);
        }
        Fmt::Global | Fmt::Flat => {
            let Some(addrs) = vmem_addrs(w, i) else {
                return false;
            };
            if let Some(j) = journal.filter(|_| i.mem.kind == Kind::Store) {
                note_old(j, env, &addrs, exec, i);
            }
            // `global_dwords` answers Some(Ok(Next)) or None, never an error.
            if global_dwords(w, i, env, &addrs).is_none() {
                return false;
            }
        }
        Fmt::Ds => {
            let addr = w.vsrc(i.src[0], 0, Ty::B32);
            let off16 = (i.imm as u32 & 0xff) | u32::from(i.offset1) << 8;
            let done = if i.mem.kind == Kind::Atomic {
                ds_atomic32(w, i, env.lds, &addr, off16)
            } else {
                ds_dwords::<false>(w, i, env.lds, &addr, off16)
            };
            if done.is_none() {
                return false;
            }
        }
        // The SMEM load checks its whole range before it writes a register: an error leaves
        // the wave as it was.
        Fmt::Smem => return super::super::step::<false>(w, i, env).is_ok(),
        _ => return false,
    }
    w.lane_ops += u64::from(exec.count_ones());
    true
}

/// A GLOBAL/FLAT atomic: when every active lane's element is naturally aligned inside a
/// writable mapped range (and, for FLAT, no lane is in the LDS or private aperture), the
/// interpreter's own path runs it (lanes in ascending order, each a host read-modify-write,
/// the same return values and fine-grained float rule) and cannot fault; else nothing runs
/// and the region exits before it, so the interpreter reports the fault.
fn atomic(w: &mut Wave, i: &Inst, env: &mut Env) -> bool {
    let exec = w.exec();
    let Some(addrs) = vmem_addrs(w, i) else {
        return false;
    };
    let size = u64::from(i.mem.bytes);
    for (l, &a) in addrs.iter().enumerate() {
        if exec >> l & 1 != 0 && (a % size != 0 || !env.cache.check(env.mem, a, size, true)) {
            return false;
        }
    }
    matches!(
        super::super::step::<false>(w, i, env),
        Ok(super::Flow::Next)
    )
}

/// The lanes' addresses of a GLOBAL or FLAT instruction, or None when a FLAT address is in
/// the LDS or private aperture (the interpreter's general path).
fn vmem_addrs(w: &Wave, i: &Inst) -> Option<[u64; LANES]> {
    if i.fmt == Fmt::Global {
        return Some(global_addrs(w, i));
    }
    match flat_addrs(w, i) {
        (a, true) => Some(a),
        _ => None,
    }
}

/// Records what a global store will overwrite (its writable lanes' old bytes).
fn note_old(j: &mut Journal, env: &mut Env, addrs: &[u64; LANES], exec: u64, i: &Inst) {
    let m = i.mem;
    let size = u32::from(m.bytes);
    for (l, &a) in addrs.iter().enumerate() {
        if exec >> l & 1 == 0 {
            continue;
        }
        for k in 0..u64::from(m.count) {
            let at = a.wrapping_add(k * u64::from(size));
            if env.cache.check(env.mem, at, u64::from(size), true) {
                j.push((at, size, host::load(at, size)));
            }
        }
    }
}

/// Puts back what [`note_old`] recorded, last store first (each range checked again).
pub(crate) fn undo(j: &Journal, env: &mut Env) {
    for &(a, size, old) in j.iter().rev() {
        if env.cache.check(env.mem, a, u64::from(size), true) {
            host::store(a, size, old);
        }
    }
}
