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

use super::{
    ds_atomic32, ds_dwords, flat_addrs, global_addrs, global_dwords, single_copy_pair, Env, Kind,
    Place,
};
use crate::decode::{Fmt, Inst, VGPR};
use crate::memory::{host, MemoryMap, RegionCache};
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
                note_old(j, env.cache, env.mem, &addrs, exec, i);
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

/// Records what a global store will overwrite (its writable lanes' old bytes), in the units
/// the store writes: a `dwordx2` lane at an 8-byte-aligned address as one 64-bit word, so
/// that [`undo`] puts it back single-copy atomically too (a wave polling the word on another
/// host thread never sees half of the old value beside half of the new one).
fn note_old(
    j: &mut Journal,
    cache: &mut RegionCache,
    map: &MemoryMap,
    addrs: &[u64; LANES],
    exec: u64,
    i: &Inst,
) {
    let m = i.mem;
    for (l, &a) in addrs.iter().enumerate() {
        if exec >> l & 1 == 0 {
            continue;
        }
        let (size, count) = match single_copy_pair(&m, Place::Global(a)) {
            Some(_) => (8, 1),
            None => (u32::from(m.bytes), u64::from(m.count)),
        };
        for k in 0..count {
            let at = a.wrapping_add(k * u64::from(size));
            if cache.check(map, at, u64::from(size), true) {
                j.push((at, size, host::load(at, size)));
            }
        }
    }
}

/// Puts back what [`note_old`] recorded, last store first (each range checked again).
pub(crate) fn undo(j: &Journal, env: &mut Env) {
    put_back(j, env.cache, env.mem);
}

fn put_back(j: &Journal, cache: &mut RegionCache, map: &MemoryMap) {
    for &(a, size, old) in j.iter().rev() {
        if cache.check(map, a, u64::from(size), true) {
            host::store(a, size, old);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{decode, Gen};
    use crate::memory::Access;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// `global_store_dwordx2 v[0:1], v[2:3], off` and `global_store_dwordx4 v[0:1], v[2:5],
    /// off` (llvm-mc-15 -mcpu=gfx90a).
    const STORE_X2: [u32; 2] = [0xdc74_8000, 0x007f_0200];
    const STORE_X4: [u32; 2] = [0xdc7c_8000, 0x007f_0200];

    /// A `dwordx2` store is journalled in the units it stores in: one 64-bit word per lane at
    /// an 8-byte-aligned address (single-copy atomic, so its undo is too), two dwords at a
    /// 4-byte-aligned one; `dwordx4` per dword. `undo` puts every byte back.
    #[test]
    fn a_journal_keeps_a_stores_single_copy_units() {
        let old = |k: u64| (0x1111_1111_0000_0000 * (k + 1)) | k;
        let buf: Vec<AtomicU64> = (0..8).map(|k| AtomicU64::new(old(k))).collect();
        let base = buf.as_ptr() as u64;
        let map = MemoryMap::new();
        map.register(base, 64, Access::ReadWrite).expect("register");
        let mut cache = RegionCache::default();
        let mut addrs = [0u64; LANES];
        // Lane 0 aligned, lane 1 at a 4-byte offset, lane 2 inactive.
        (addrs[0], addrs[1], addrs[2]) = (base, base + 20, base + 40);
        let mut journal = |words: &[u32]| {
            let i = decode(Gen::Gfx90a, words);
            let mut j = Journal::new();
            note_old(&mut j, &mut cache, &map, &addrs, 0b011, &i);
            j
        };
        let (x2, x4) = (journal(&STORE_X2), journal(&STORE_X4));
        assert_eq!(
            x2,
            vec![
                (base, 8, old(0)),
                (base + 20, 4, old(2) >> 32),
                (base + 24, 4, old(3) & 0xffff_ffff),
            ]
        );
        let dwords: Vec<_> = x4.iter().map(|&(a, size, _)| (a - base, size)).collect();
        assert_eq!(
            dwords,
            [
                (0, 4),
                (4, 4),
                (8, 4),
                (12, 4),
                (20, 4),
                (24, 4),
                (28, 4),
                (32, 4)
            ]
        );
        // Overwritten, then put back: every journalled byte as it was, no other.
        buf.iter().for_each(|w| w.store(!0, Ordering::Relaxed));
        put_back(&x4, &mut cache, &map);
        put_back(&x2, &mut cache, &map);
        let now: Vec<u64> = buf.iter().map(|w| w.load(Ordering::Relaxed)).collect();
        let half = 0xffff_ffff_u64;
        assert_eq!(
            now,
            [
                old(0),
                old(1),
                old(2) | half,
                old(3),
                old(4) | half << 32,
                !0,
                !0,
                !0
            ]
        );
    }
}
