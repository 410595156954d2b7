//! Vector memory: LDS (DS), FLAT/GLOBAL/SCRATCH and MUBUF. Every lane's address is checked:
//! global addresses against the memory map, LDS offsets against the work-group's allocation,
//! private offsets against the lane's private segment; the first bad lane faults the dispatch.
//! Private memory is swizzled per dword exactly like the hardware scratch V#
//! (code-object-abi.md §5.3), so MUBUF, SCRATCH and FLAT-in-the-private-aperture agree.

use super::{unimplemented, Env, Flow, LaneFault, R};
use crate::check::group::Space;
use crate::decode::{flag, Atom, Fmt, Inst, Kind, MemDesc, VGPR};
use crate::error::FaultKind;
use crate::memory::{host, PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};
use crate::ops::Op;
use crate::wave::{Ty, Wave, LANES};
use half::f16;
use hsaemu_isa::Opcode;

mod global_tr;
pub(crate) mod jit_fast;
mod lds_dma;
mod lds_tr;

pub(crate) fn mem_fault(address: u64, write: bool, size: u32, lane: usize) -> LaneFault {
    LaneFault::new(
        FaultKind::MemoryViolation {
            address,
            write,
            size,
        },
        Some(lane as u32),
    )
}

/// Applies an atomic operation of `bytes` width. Inlined: the DS and global atomic lane loops
/// call it per lane; out of line it cost a call per lane (histogram +14 % host instructions).
#[inline(always)]
pub(crate) fn atom_apply(op: Atom, old: u64, src: u64, cmp: u64, bytes: u8) -> u64 {
    let wide = bytes == 8;
    let mask = if wide { u64::MAX } else { 0xffff_ffff };
    let sx = |v: u64| {
        if wide {
            v as i64
        } else {
            i64::from(v as u32 as i32)
        }
    };
    let fl = |v: u64| {
        if wide {
            f64::from_bits(v)
        } else {
            f64::from(f32::from_bits(v as u32))
        }
    };
    let tf = |v: f64| {
        if wide {
            v.to_bits()
        } else {
            u64::from((v as f32).to_bits())
        }
    };
    let r = match op {
        Atom::Swap => src,
        Atom::CmpSwap => {
            if old == cmp {
                src
            } else {
                old
            }
        }
        Atom::Add => old.wrapping_add(src),
        Atom::CSub => old.saturating_sub(src),
        Atom::CondSub => old.checked_sub(src).unwrap_or(old),
        Atom::Sub => old.wrapping_sub(src),
        Atom::Rsub => src.wrapping_sub(old),
        Atom::SMin => {
            if sx(src) < sx(old) {
                src
            } else {
                old
            }
        }
        Atom::SMax => {
            if sx(src) > sx(old) {
                src
            } else {
                old
            }
        }
        Atom::UMin => old.min(src),
        Atom::UMax => old.max(src),
        Atom::And => old & src,
        Atom::Or => old | src,
        Atom::Xor => old ^ src,
        Atom::Inc => {
            if old >= src {
                0
            } else {
                old + 1
            }
        }
        Atom::Dec => {
            if old == 0 || old > src {
                src
            } else {
                old - 1
            }
        }
        Atom::FAdd => tf(fl(old) + fl(src)),
        Atom::FMin => tf(fl(old).min(fl(src))),
        Atom::FMax => tf(fl(old).max(fl(src))),
        // The ISA's operand order: the data is S0 (it wins a tie of two NaNs, quieted).
        Atom::FMinNum | Atom::FMaxNum if wide => {
            super::valu::ieee2019_64(src, old, op == Atom::FMaxNum, true)
        }
        Atom::FMinNum | Atom::FMaxNum => u64::from(super::valu::ieee2019_32(
            src as u32,
            old as u32,
            op == Atom::FMaxNum,
            true,
        )),
        Atom::PkAddF16 => {
            let lo = f16::from_f32(
                f16::from_bits(old as u16).to_f32() + f16::from_bits(src as u16).to_f32(),
            );
            let hi = f16::from_f32(
                f16::from_bits((old >> 16) as u16).to_f32()
                    + f16::from_bits((src >> 16) as u16).to_f32(),
            );
            u64::from(lo.to_bits()) | u64::from(hi.to_bits()) << 16
        }
        // Each half is summed in f64 (exact for two bf16 values' 8-bit mantissas to well
        // past 2·8+2 bits, so the one rounding to bf16 is correct) and rounded to nearest even.
        Atom::PkAddBf16 => {
            let half = |v: u64, s: u32| {
                let bf = |x: u64| f64::from(f32::from_bits(((x >> s) as u32 & 0xffff) << 16));
                u64::from(super::cdna3::f64_to_bf16_rne(bf(old) + bf(v))) << s
            };
            half(src, 0) | half(src, 16)
        }
        Atom::MskOr => (old & !cmp) | src,
        // Equal as floats: −0 matches +0 and NaN matches nothing.
        Atom::FCmpSwap => {
            if fl(old) == fl(cmp) {
                src
            } else {
                old
            }
        }
    };
    r & mask
}

/// Whether an atomic reads a compare value besides its data (the second data operand).
fn compares(a: Atom) -> bool {
    matches!(a, Atom::CmpSwap | Atom::FCmpSwap)
}

/// Where a lane's access goes.
#[derive(Clone, Copy)]
enum Place {
    Global(u64),
    Lds(u64),
    Private(u64),
}

/// `HSAEMU_LDS_OOB=hardware`: an out-of-range LDS access reads 0 and drops its write, as the
/// hardware does, instead of faulting (for programs that rely on it, such as rocrtst's
/// GroupMemoryAllocationTest, whose `__local` kernarg is an uninitialised value). The first
/// dropped access is reported on stderr. Only the fault path reads this.
fn lds_out_of_range_dropped(f: &LaneFault) -> bool {
    static HARDWARE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    static REPORTED: std::sync::Once = std::sync::Once::new();
    let hardware = *HARDWARE.get_or_init(|| {
        std::env::var("HSAEMU_LDS_OOB").is_ok_and(|v| v.trim().eq_ignore_ascii_case("hardware"))
    });
    if hardware {
        REPORTED.call_once(|| {
            if let FaultKind::LdsOutOfRange {
                offset, lds_size, ..
            } = f.kind
            {
                eprintln!(
                    "hsaemu: LDS access at offset {offset:#x} beyond the work-group's \
                     {lds_size} bytes dropped, as the hardware does (HSAEMU_LDS_OOB=hardware; \
                     later ones are dropped silently)"
                );
            }
        });
    }
    hardware
}

/// `C`: checking is on (`--check`): every lane's access is noted for the checkers first.
struct Mem<'e, 'a, const C: bool> {
    env: &'e mut Env<'a>,
    scratch_base: u64,
    /// Lanes per wave: each lane owns every `lanes`-th dword of the wave's scratch slot.
    lanes: u64,
}

impl<const C: bool> Mem<'_, '_, C> {
    fn new<'e, 'a>(w: &Wave, env: &'e mut Env<'a>) -> Mem<'e, 'a, C> {
        Mem {
            scratch_base: w.scratch_base,
            lanes: w.size() as u64,
            env,
        }
    }

    /// The host address of byte `p` of `lane`'s private memory: the swizzle of
    /// code-object-abi.md §5.3 with 4-byte elements and an index stride of the wave size.
    fn private_host(&self, p: u64, lane: usize) -> u64 {
        self.scratch_base + (p / 4) * 4 * self.lanes + lane as u64 * 4 + p % 4
    }

    fn check_private(&self, p: u64, size: u32, lane: usize) -> Result<(), LaneFault> {
        if p + u64::from(size) > u64::from(self.env.private_per_lane) {
            return Err(LaneFault::new(
                FaultKind::ScratchOutOfRange {
                    offset: p,
                    size,
                    private_size: self.env.private_per_lane,
                },
                Some(lane as u32),
            ));
        }
        Ok(())
    }

    fn check_lds(&self, off: u64, size: u32, lane: usize) -> Result<usize, LaneFault> {
        if off + u64::from(size) > self.env.lds.len() as u64 {
            return Err(LaneFault::new(
                FaultKind::LdsOutOfRange {
                    offset: off,
                    size,
                    lds_size: self.env.lds.len() as u32,
                },
                Some(lane as u32),
            ));
        }
        Ok(off as usize)
    }

    /// Notes a lane's access for the checkers (checked instantiation only).
    #[inline(always)]
    fn note(&mut self, place: Place, size: u32, lane: usize, write: bool) {
        if C {
            if let Some(g) = self.env.check.as_deref_mut() {
                let (space, addr) = match place {
                    Place::Global(a) => (Space::Global, a),
                    Place::Lds(o) => (Space::Lds, o),
                    Place::Private(p) => (Space::Private, p),
                };
                g.note(space, addr, size, lane, write);
            }
        }
    }

    /// Reads `size` (1, 2, 4, 8) bytes.
    fn read(&mut self, place: Place, size: u32, lane: usize) -> Result<u64, LaneFault> {
        self.note(place, size, lane, false);
        self.read_raw(place, size, lane)
    }

    fn write(&mut self, place: Place, size: u32, v: u64, lane: usize) -> Result<(), LaneFault> {
        self.note(place, size, lane, true);
        self.write_raw(place, size, v, lane)
    }

    fn read_raw(&mut self, place: Place, size: u32, lane: usize) -> Result<u64, LaneFault> {
        match place {
            Place::Global(a) => {
                if !self
                    .env
                    .cache
                    .check(self.env.mem, a, u64::from(size), false)
                {
                    return Err(mem_fault(a, false, size, lane));
                }
                Ok(host::load(a, size))
            }
            Place::Lds(off) => {
                let o = match self.check_lds(off, size, lane) {
                    Err(f) if lds_out_of_range_dropped(&f) => return Ok(0),
                    r => r?,
                };
                let mut v = 0u64;
                for k in 0..size as usize {
                    v |= u64::from(self.env.lds[o + k]) << (8 * k);
                }
                Ok(v)
            }
            Place::Private(p) => {
                self.check_private(p, size, lane)?;
                let mut v = 0u64;
                if p % 4 == 0 && size == 4 {
                    let a = self.private_host(p, lane);
                    if !self.env.cache.check(self.env.mem, a, 4, false) {
                        return Err(mem_fault(a, false, 4, lane));
                    }
                    return Ok(host::load(a, 4));
                }
                for k in 0..u64::from(size) {
                    let a = self.private_host(p + k, lane);
                    if !self.env.cache.check(self.env.mem, a, 1, false) {
                        return Err(mem_fault(a, false, 1, lane));
                    }
                    v |= host::load(a, 1) << (8 * k);
                }
                Ok(v)
            }
        }
    }

    fn write_raw(&mut self, place: Place, size: u32, v: u64, lane: usize) -> Result<(), LaneFault> {
        match place {
            Place::Global(a) => {
                if !self.env.cache.check(self.env.mem, a, u64::from(size), true) {
                    return Err(mem_fault(a, true, size, lane));
                }
                host::store(a, size, v);
                Ok(())
            }
            Place::Lds(off) => {
                let o = match self.check_lds(off, size, lane) {
                    Err(f) if lds_out_of_range_dropped(&f) => return Ok(()),
                    r => r?,
                };
                for k in 0..size as usize {
                    self.env.lds[o + k] = (v >> (8 * k)) as u8;
                }
                Ok(())
            }
            Place::Private(p) => {
                self.check_private(p, size, lane)?;
                if p % 4 == 0 && size == 4 {
                    let a = self.private_host(p, lane);
                    if !self.env.cache.check(self.env.mem, a, 4, true) {
                        return Err(mem_fault(a, true, 4, lane));
                    }
                    host::store(a, 4, v);
                    return Ok(());
                }
                for k in 0..u64::from(size) {
                    let a = self.private_host(p + k, lane);
                    if !self.env.cache.check(self.env.mem, a, 1, true) {
                        return Err(mem_fault(a, true, 1, lane));
                    }
                    host::store(a, 1, v >> (8 * k));
                }
                Ok(())
            }
        }
    }

    fn atomic(
        &mut self,
        place: Place,
        m: &MemDesc,
        src: u64,
        cmp: u64,
        lane: usize,
    ) -> Result<u64, LaneFault> {
        let size = u32::from(m.bytes);
        self.note(place, size, lane, true);
        match place {
            Place::Global(a) => {
                if a % u64::from(size) != 0
                    || !self.env.cache.check(self.env.mem, a, u64::from(size), true)
                {
                    return Err(mem_fault(a, true, size, lane));
                }
                let env = &mut *self.env;
                if super::fine_grained::drops_float_atomic(env.gen, m.atom, env.cache, env.mem, a) {
                    // Hook for `--check`: report "float atomic dropped by the hardware on
                    // fine-grained host memory" (kernel, lane, address) here.
                    return Ok(0);
                }
                Ok(if size == 8 {
                    host::rmw64(a, |old| atom_apply(m.atom, old, src, cmp, 8))
                } else {
                    u64::from(host::rmw32(a, |old| {
                        atom_apply(m.atom, u64::from(old), src, cmp, 4) as u32
                    }))
                })
            }
            _ => {
                let old = self.read_raw(place, size, lane)?;
                self.write_raw(
                    place,
                    size,
                    atom_apply(m.atom, old, src, cmp, m.bytes),
                    lane,
                )?;
                Ok(old)
            }
        }
    }
}

/// Writes a loaded element into the destination register(s), honouring d16 halves.
fn put_loaded(w: &mut Wave, dst: u16, m: &MemDesc, lane: usize, k: u16, v: u64) {
    let ext = |v: u64| -> u32 {
        match (m.bytes, m.sext) {
            (1, true) => v as u8 as i8 as i32 as u32,
            (2, true) => v as u16 as i16 as i32 as u32,
            _ => v as u32,
        }
    };
    match m.d16 {
        1 => {
            let old = w.lane(dst, lane);
            w.set_lane(dst, lane, (old & 0xffff_0000) | (ext(v) & 0xffff));
        }
        2 => {
            let old = w.lane(dst, lane);
            w.set_lane(dst, lane, (old & 0xffff) | ext(v) << 16);
        }
        _ => {
            if m.bytes == 8 {
                w.set_lane(dst + 2 * k, lane, v as u32);
                w.set_lane(dst + 2 * k + 1, lane, (v >> 32) as u32);
            } else {
                w.set_lane(dst + k, lane, ext(v));
            }
        }
    }
}

/// The value a store writes for element `k`.
fn store_value(w: &Wave, data: u16, m: &MemDesc, lane: usize, k: u16) -> u64 {
    if m.bytes == 8 {
        u64::from(w.lane(data + 2 * k, lane)) | u64::from(w.lane(data + 2 * k + 1, lane)) << 32
    } else {
        let v = w.lane(data + k, lane);
        u64::from(if m.d16 == 2 { v >> 16 } else { v })
    }
}

/// Runs a load/store/atomic over the active lanes at the given places (element k of lane l
/// at `place(l, k)`).
fn access<const C: bool>(
    w: &mut Wave,
    i: &Inst,
    env: &mut Env,
    places: &[Place; LANES],
    rtn: bool,
    elem_place: impl Fn(Place, u64) -> Place,
) -> R {
    let m = i.mem;
    let exec = w.exec();
    let mut mem = Mem::<C>::new(w, env);
    let data = i.src[1];
    let dst = i.dst;
    match m.kind {
        Kind::Load => {
            for l in 0..LANES {
                if exec >> l & 1 == 0 {
                    continue;
                }
                if let Some(a) = single_copy_pair(&m, places[l]) {
                    let v = mem.read(a, 8, l)?;
                    w.set_lane(dst, l, v as u32);
                    w.set_lane(dst + 1, l, (v >> 32) as u32);
                    continue;
                }
                for k in 0..u16::from(m.count) {
                    let p = elem_place(places[l], u64::from(k) * u64::from(m.bytes));
                    let v = mem.read(p, u32::from(m.bytes), l)?;
                    put_loaded(w, dst, &m, l, k, v);
                }
            }
        }
        Kind::Store => {
            for l in 0..LANES {
                if exec >> l & 1 == 0 {
                    continue;
                }
                if let Some(a) = single_copy_pair(&m, places[l]) {
                    let v = u64::from(w.lane(data, l)) | u64::from(w.lane(data + 1, l)) << 32;
                    mem.write(a, 8, v, l)?;
                    continue;
                }
                for k in 0..u16::from(m.count) {
                    let p = elem_place(places[l], u64::from(k) * u64::from(m.bytes));
                    let v = store_value(w, data, &m, l, k);
                    mem.write(p, u32::from(m.bytes), v, l)?;
                }
            }
            w.stored = true;
        }
        Kind::Atomic => {
            let wide = m.bytes == 8;
            for l in 0..LANES {
                if exec >> l & 1 == 0 {
                    continue;
                }
                let rd = |w: &Wave, r: u16| -> u64 {
                    if wide {
                        u64::from(w.lane(r, l)) | u64::from(w.lane(r + 1, l)) << 32
                    } else {
                        u64::from(w.lane(r, l))
                    }
                };
                let (src, cmp) = if compares(m.atom) {
                    (rd(w, data), rd(w, data + if wide { 2 } else { 1 }))
                } else {
                    (rd(w, data), 0)
                };
                let old = mem.atomic(places[l], &m, src, cmp, l)?;
                if rtn {
                    w.set_lane(dst, l, old as u32);
                    if wide {
                        w.set_lane(dst + 1, l, (old >> 32) as u32);
                    }
                }
            }
            w.stored = true;
        }
        Kind::Other => return Err(unimplemented(i)),
    }
    Ok(Flow::Next)
}

/// The place of a `dwordx2` load or store that must be one 64-bit access: global memory at an
/// 8-byte-aligned address (single-copy atomic, docs/litmus.md). LDS needs no such care (a
/// work-group's waves run on one host thread, so every LDS instruction is indivisible) and
/// private memory is swizzled per dword and seen by its own lane only.
fn single_copy_pair(m: &MemDesc, p: Place) -> Option<Place> {
    match p {
        Place::Global(a) if m.count == 2 && m.bytes == 4 && m.d16 == 0 && a.is_multiple_of(8) => {
            Some(p)
        }
        _ => None,
    }
}

fn advance(p: Place, by: u64) -> Place {
    match p {
        Place::Global(a) => Place::Global(a.wrapping_add(by)),
        Place::Lds(o) => Place::Lds(o + by),
        Place::Private(o) => Place::Private(o + by),
    }
}

/// Fast path for dword loads/stores whose active lanes all fall in one registered range:
/// one range check for the whole instruction, then plain per-lane accesses. Returns `None`
/// when the slow path (which finds the faulting lane) must run.
fn global_dwords(w: &mut Wave, i: &Inst, env: &mut Env, addrs: &[u64; LANES]) -> Option<R> {
    let m = i.mem;
    if m.d16 != 0 || !matches!(m.kind, Kind::Load | Kind::Store) {
        return None;
    }
    if m.bytes != 4 {
        return global_narrow(w, i, env, addrs);
    }
    let exec = w.exec();
    if exec == 0 {
        return Some(Ok(Flow::Next));
    }
    let (lo, hi) = active_range(addrs, exec);
    let span = hi.checked_sub(lo)?.checked_add(4 * u64::from(m.count))?;
    let store = m.kind == Kind::Store;
    if !env.cache.check(env.mem, lo, span, store) {
        return None;
    }
    if m.count == 2 {
        qwords(w, i, addrs, exec, store);
        return Some(Ok(Flow::Next));
    }
    // Lanes 0..N all active (a full wave64 or wave32 wave): no per-lane mask tests.
    if exec == u64::MAX {
        dwords_full(w, i, addrs, lo, store);
        return Some(Ok(Flow::Next));
    }
    if exec == 0xffff_ffff {
        dwords_full(w, i, low32(addrs), lo, store);
        return Some(Ok(Flow::Next));
    }
    for k in 0..u16::from(m.count) {
        let off = 4 * u64::from(k);
        if store {
            let row = &w.v[crate::wave::reg_index(i.src[1] + k)];
            for l in active(exec) {
                host::store32(addrs[l] + off, row[l]);
            }
        } else {
            let row = &mut w.v[crate::wave::reg_index(i.dst + k)];
            for l in active(exec) {
                row[l] = host::load32(addrs[l] + off);
            }
        }
    }
    if store {
        w.stored = true;
    }
    Some(Ok(Flow::Next))
}

/// [`global_dwords`] for `dwordx2` (the range is checked): a lane whose address is 8-byte
/// aligned makes one 64-bit host access, single-copy atomic as on the hardware (a 64-bit atomic
/// load or store compiles to exactly these instructions); a lane at a 4-byte-aligned address
/// makes two 32-bit ones, as the hardware may (docs/litmus.md, "Single-copy atomicity").
fn qwords(w: &mut Wave, i: &Inst, addrs: &[u64; LANES], exec: u64, store: bool) {
    let first = if store { i.src[1] } else { i.dst };
    let (r0, r1) = (
        crate::wave::reg_index(first),
        crate::wave::reg_index(first + 1),
    );
    // The OR of the active addresses: all 8-byte aligned when its low 3 bits are clear.
    let mut or = 0u64;
    for l in active(exec) {
        or |= addrs[l];
    }
    let aligned = or.is_multiple_of(8);
    // Lanes 0..N all active and aligned (a full wave64 or wave32 wave): branch-free loops.
    if aligned && exec == u64::MAX {
        return qwords_full(w, r0, r1, addrs, store);
    }
    if aligned && exec == 0xffff_ffff {
        return qwords_full(w, r0, r1, low32(addrs), store);
    }
    for l in active(exec) {
        let a = addrs[l];
        if store {
            let v = u64::from(w.v[r0][l]) | u64::from(w.v[r1][l]) << 32;
            if a.is_multiple_of(8) {
                host::store64(a, v);
            } else {
                host::store32(a, v as u32);
                host::store32(a + 4, (v >> 32) as u32);
            }
        } else {
            let v = if a.is_multiple_of(8) {
                host::load64(a)
            } else {
                u64::from(host::load32(a)) | u64::from(host::load32(a + 4)) << 32
            };
            w.v[r0][l] = v as u32;
            w.v[r1][l] = (v >> 32) as u32;
        }
    }
    if store {
        w.stored = true;
    }
}

/// [`qwords`] for lanes 0..N, all active, at 8-byte-aligned addresses: one 64-bit host access
/// per lane, the register pair (rows `r0`, `r1`) packed or unpacked in separate loops.
#[inline(always)]
fn qwords_full<const N: usize>(w: &mut Wave, r0: usize, r1: usize, addrs: &[u64; N], store: bool) {
    let mut v = [0u64; N];
    if store {
        let (lo, hi): (&[u32; N], &[u32; N]) = (lanes(&w.v[r0]), lanes(&w.v[r1]));
        for l in 0..N {
            v[l] = u64::from(lo[l]) | u64::from(hi[l]) << 32;
        }
        for l in 0..N {
            host::store64(addrs[l], v[l]);
        }
        w.stored = true;
    } else {
        for l in 0..N {
            v[l] = host::load64(addrs[l]);
        }
        let lo: &mut [u32; N] = lanes_mut(&mut w.v[r0]);
        for l in 0..N {
            lo[l] = v[l] as u32;
        }
        let hi: &mut [u32; N] = lanes_mut(&mut w.v[r1]);
        for l in 0..N {
            hi[l] = (v[l] >> 32) as u32;
        }
    }
}

/// [`global_dwords`] for lanes 0..N, all active (the range is checked).
#[inline(always)]
fn dwords_full<const N: usize>(w: &mut Wave, i: &Inst, addrs: &[u64; N], lo: u64, store: bool) {
    let m = i.mem;
    // A full wave of single dwords at consecutive addresses: one run of N host loads/stores.
    if m.count == 1 && consecutive_dwords(addrs) {
        if store {
            host::store32_run::<N>(lo, lanes(&w.v[crate::wave::reg_index(i.src[1])]));
            w.stored = true;
        } else {
            host::load32_run::<N>(lo, lanes_mut(&mut w.v[crate::wave::reg_index(i.dst)]));
        }
        return;
    }
    for k in 0..u16::from(m.count) {
        let off = 4 * u64::from(k);
        if store {
            let row: &[u32; N] = lanes(&w.v[crate::wave::reg_index(i.src[1] + k)]);
            for l in 0..N {
                host::store32(addrs[l] + off, row[l]);
            }
        } else {
            let row: &mut [u32; N] = lanes_mut(&mut w.v[crate::wave::reg_index(i.dst + k)]);
            for l in 0..N {
                row[l] = host::load32(addrs[l] + off);
            }
        }
    }
    if store {
        w.stored = true;
    }
}

/// The first N lanes of a lane array (N = 64 or 32; const, so the check folds away).
#[inline(always)]
fn lanes<T, const N: usize>(a: &[T; LANES]) -> &[T; N] {
    a.first_chunk().expect("N lanes of 64")
}

/// [`lanes`], mutable.
#[inline(always)]
fn lanes_mut<T, const N: usize>(a: &mut [T; LANES]) -> &mut [T; N] {
    a.first_chunk_mut().expect("N lanes of 64")
}

/// Lanes 0–31 of a lane array (a full wave32 wave, or the low half of a wave64 one).
#[inline(always)]
fn low32<T>(a: &[T; LANES]) -> &[T; 32] {
    lanes(a)
}

/// Whether lane `l` addresses `addrs[0] + 4·l` for every lane, without wrapping (one XOR-or
/// reduction, which vectorizes).
#[inline]
fn consecutive_dwords<const N: usize>(addrs: &[u64; N]) -> bool {
    let mut not_consecutive = 0u64;
    for (l, &a) in addrs.iter().enumerate() {
        not_consecutive |= a ^ addrs[0].wrapping_add(4 * l as u64);
    }
    not_consecutive == 0 && addrs[0] <= addrs[N - 1]
}

/// The lowest and highest address of the active lanes (`exec` non-zero); no per-lane mask
/// test for a full wave (all 64 lanes, or lanes 0–31: a full wave32 wave).
#[inline]
fn active_range(addrs: &[u64; LANES], exec: u64) -> (u64, u64) {
    if exec == u64::MAX {
        return full_range(addrs);
    }
    if exec == 0xffff_ffff {
        return full_range(low32(addrs));
    }
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for l in active(exec) {
        lo = lo.min(addrs[l]);
        hi = hi.max(addrs[l]);
    }
    (lo, hi)
}

/// The lanes set in `exec`, lowest first: a walk over its set bits, so a partial EXEC of a
/// few lanes (litmus tests, divergent code) costs those lanes, not 64 tests.
#[inline(always)]
fn active(exec: u64) -> impl Iterator<Item = usize> {
    let mut m = exec;
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

/// [`active_range`] of lanes 0..N, all active.
#[inline(always)]
fn full_range<const N: usize>(addrs: &[u64; N]) -> (u64, u64) {
    // Coalesced accesses (lane l at a0 + 4·l): no compares.
    if consecutive_dwords(addrs) {
        return (addrs[0], addrs[N - 1]);
    }
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for &a in addrs {
        lo = lo.min(a);
        hi = hi.max(a);
    }
    (lo, hi)
}

/// Fast path for byte and short loads/stores (see [`global_dwords`]).
fn global_narrow(w: &mut Wave, i: &Inst, env: &mut Env, addrs: &[u64; LANES]) -> Option<R> {
    let m = i.mem;
    if m.bytes > 2 || m.count != 1 {
        return None;
    }
    let exec = w.exec();
    if exec == 0 {
        return Some(Ok(Flow::Next));
    }
    let (lo, hi) = active_range(addrs, exec);
    let size = u32::from(m.bytes);
    let span = hi.checked_sub(lo)?.checked_add(u64::from(size))?;
    let store = m.kind == Kind::Store;
    if !env.cache.check(env.mem, lo, span, store) {
        return None;
    }
    if store {
        let row = w.v[crate::wave::reg_index(i.src[1])];
        for l in 0..LANES {
            if exec >> l & 1 != 0 {
                host::store(addrs[l], size, u64::from(row[l]));
            }
        }
        w.stored = true;
    } else {
        let row = &mut w.v[crate::wave::reg_index(i.dst)];
        for l in 0..LANES {
            if exec >> l & 1 != 0 {
                let v = host::load(addrs[l], size);
                row[l] = match (size, m.sext) {
                    (1, true) => v as u8 as i8 as i32 as u32,
                    (2, true) => v as u16 as i16 as i32 as u32,
                    _ => v as u32,
                };
            }
        }
    }
    Some(Ok(Flow::Next))
}

/// FLAT, GLOBAL and SCRATCH instructions.
pub(crate) fn flat<const C: bool>(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    // GFX12 cache write-back/invalidate (`global_inv`, `global_wb`, `global_wbinv`): memory is
    // coherent here, as for the MUBUF cache operations.
    if matches!(i.op, Op::GLOBAL_INV | Op::GLOBAL_WB | Op::GLOBAL_WBINV) {
        if C {
            if let Some(g) = env.check.as_deref_mut() {
                g.fence(w.id as usize);
            }
        }
        return Ok(Flow::Next);
    }
    if matches!(
        i.op,
        Op::GLOBAL_LOAD_BLOCK
            | Op::GLOBAL_STORE_BLOCK
            | Op::SCRATCH_LOAD_BLOCK
            | Op::SCRATCH_STORE_BLOCK
    ) {
        return block::<C>(w, i, env);
    }
    let exec = w.exec();
    w.lane_ops += u64::from(exec.count_ones());
    if matches!(
        i.op,
        Op::GLOBAL_LOAD_DWORD_ADDTID | Op::GLOBAL_STORE_DWORD_ADDTID
    ) {
        return global_addtid::<C>(w, i, env);
    }
    let off = i64::from(i.imm);
    let dma = lds_dma::shape(i.op);
    let tr = global_tr::shape(i.op);
    // The per-lane places (1 KB) are only built when the one-region fast path does not apply.
    let places = match i.fmt {
        Fmt::Global => {
            let addrs = global_addrs(w, i);
            if dma.is_none() && tr.is_none() {
                if let Some(r) = global_fast::<C>(w, i, env, &addrs) {
                    return r;
                }
            }
            addrs.map(Place::Global)
        }
        Fmt::Scratch => {
            let mut places = [Place::Global(0); LANES];
            if i.has(flag::SVE) && i.src[2] != 0x7f {
                // gfx940: `sve` with `saddr` adds both (the VGPR and the SGPR offsets).
                let v = w.vsrc(i.src[0], 0, Ty::B32);
                let s = w.sread(i.src[2], 0, Ty::B32).wrapping_add(off as u32);
                for l in 0..LANES {
                    places[l] = Place::Private(u64::from(v[l].wrapping_add(s)));
                }
            } else if i.src[2] == 0x7f {
                let v = w.vsrc(i.src[0], 0, Ty::B32);
                for l in 0..LANES {
                    places[l] = Place::Private(u64::from(v[l].wrapping_add(off as u32)));
                }
            } else {
                let s = w.sread(i.src[2], 0, Ty::B32);
                for p in places.iter_mut() {
                    *p = Place::Private(u64::from(s.wrapping_add(off as u32)));
                }
            }
            places
        }
        _ => {
            let (addrs, all_global) = flat_addrs(w, i);
            if all_global {
                if let Some(r) = global_fast::<C>(w, i, env, &addrs) {
                    return r;
                }
            }
            addrs.map(|addr| {
                let hi = (addr >> 32) as u32;
                if hi == SHARED_APERTURE_HI {
                    Place::Lds(addr & 0xffff_ffff)
                } else if hi == PRIVATE_APERTURE_HI {
                    Place::Private(addr & 0xffff_ffff)
                } else {
                    Place::Global(addr)
                }
            })
        }
    };
    if let Some(shape) = dma {
        return lds_dma::load::<C>(w, i, env, &places, shape);
    }
    if let Some(shape) = tr {
        return global_tr::load::<C>(w, i, env, &places, shape);
    }
    let rtn = i.has(flag::GLC);
    access::<C>(w, i, env, &places, rtn, advance)
}

/// The lanes' addresses of a GLOBAL instruction (VGPR pair, or SGPR base + VGPR offset, plus
/// the instruction offset).
#[inline(always)]
fn global_addrs(w: &Wave, i: &Inst) -> [u64; LANES] {
    let off = i64::from(i.imm);
    let mut addrs = [0u64; LANES];
    if i.src[0] < VGPR {
        // Not a vector register (never produced by the compiler): the general path.
        if i.src[2] == 0x7f {
            let a = w.vsrc64(i.src[0], 0, Ty::I64);
            for l in 0..LANES {
                addrs[l] = a[l].wrapping_add(off as u64);
            }
        } else {
            let base = w.sread64(i.src[2], 0, Ty::I64);
            let v = w.vsrc(i.src[0], 0, Ty::B32);
            for l in 0..LANES {
                addrs[l] = base.wrapping_add(u64::from(v[l])).wrapping_add(off as u64);
            }
        }
    } else if i.src[2] == 0x7f {
        // Rows read in place (no 64-bit copy of the address pair).
        let r = crate::wave::reg_index(i.src[0]);
        let lo = &w.v[r];
        let hi = &w.v[(r + 1) % crate::wave::VREGS];
        for l in 0..LANES {
            addrs[l] = (u64::from(lo[l]) | u64::from(hi[l]) << 32).wrapping_add(off as u64);
        }
    } else {
        let base = w.sread64(i.src[2], 0, Ty::I64).wrapping_add(off as u64);
        let v = &w.v[crate::wave::reg_index(i.src[0])];
        for l in 0..LANES {
            addrs[l] = base.wrapping_add(u64::from(v[l]));
        }
    }
    addrs
}

/// The lanes' addresses of a FLAT instruction, and whether none is in the LDS or private
/// aperture (every lane, active or not, as the fast path has always tested).
#[inline(always)]
fn flat_addrs(w: &Wave, i: &Inst) -> ([u64; LANES], bool) {
    let off = i64::from(i.imm);
    let a = w.vsrc64(i.src[0], 0, Ty::I64);
    let mut addrs = [0u64; LANES];
    let mut all_global = true;
    for l in 0..LANES {
        addrs[l] = a[l].wrapping_add(off as u64);
        let hi = (addrs[l] >> 32) as u32;
        all_global &= hi != SHARED_APERTURE_HI && hi != PRIVATE_APERTURE_HI;
    }
    (addrs, all_global)
}

/// [`global_dwords`], the one-range fast path; checked, its accesses are then noted for the
/// checkers in one go (per wave, not per lane). A store that releases the wave's clock takes
/// the per-lane path instead: its notes must come before the stores.
#[inline(always)]
fn global_fast<const C: bool>(
    w: &mut Wave,
    i: &Inst,
    env: &mut Env,
    addrs: &[u64; LANES],
) -> Option<R> {
    if C && env.check.as_deref().is_some_and(|g| g.releases()) {
        return None;
    }
    let exec = w.exec();
    let r = global_dwords(w, i, env, addrs)?;
    if C {
        if let Some(g) = env.check.as_deref_mut() {
            let size = u32::from(i.mem.bytes) * u32::from(i.mem.count);
            g.note_wave(addrs, exec, size, i.mem.kind == Kind::Store);
        }
    }
    Some(r)
}

/// GFX12 block loads and stores (`global_load_block`, `scratch_store_block`, …): for each set
/// bit n of M0[31:0], VGPR vdata+n moves to or from the lane's dword at its address +
/// IOFFSET + 4·n (the offset advances for skipped registers too; RDNA4 ISA §11.5). Each
/// dword is an ordinary GLOBAL/SCRATCH dword access. A register past v255 is not loaded; a
/// store reads v0 in its place (§11.5.1).
#[cold]
fn block<const C: bool>(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    let load = matches!(i.op, Op::GLOBAL_LOAD_BLOCK | Op::SCRATCH_LOAD_BLOCK);
    let mask = w.m0();
    let mut j = *i;
    j.op = Op::Mem;
    j.mem = MemDesc {
        kind: if load { Kind::Load } else { Kind::Store },
        bytes: 4,
        count: 1,
        ..MemDesc::default()
    };
    let first = if load { i.dst } else { i.src[1] };
    for n in 0..32u16 {
        if mask >> n & 1 == 0 {
            continue;
        }
        let reg = match first - VGPR + n {
            r if r < 256 => VGPR + r,
            _ if load => continue,
            _ => VGPR,
        };
        j.imm = i.imm.wrapping_add(4 * i32::from(n));
        if load {
            j.dst = reg;
        } else {
            j.src[1] = reg;
        }
        flat::<C>(w, &j, env)?;
    }
    Ok(Flow::Next)
}

/// GFX10 `global_{load,store}_dword_addtid`: lane l accesses the dword at
/// SADDR + offset + 4 * l (no address VGPR; RDNA ISA).
fn global_addtid<const C: bool>(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    let exec = w.exec();
    let base = w
        .sread64(i.src[2], 0, Ty::I64)
        .wrapping_add(i.imm as i64 as u64);
    let load = i.op == Op::GLOBAL_LOAD_DWORD_ADDTID;
    let mut mem = Mem::<C>::new(w, env);
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let p = Place::Global(base.wrapping_add(4 * l as u64));
        if load {
            let v = mem.read(p, 4, l)?;
            w.set_lane(i.dst, l, v as u32);
        } else {
            mem.write(p, 4, u64::from(w.lane(i.src[1], l)), l)?;
        }
    }
    if !load {
        w.stored = true;
    }
    Ok(Flow::Next)
}

/// Whether a MUBUF instruction is a cache write-back or invalidate (`buffer_wbinvl1*`,
/// `buffer_wbl2`, `buffer_invl2`, `buffer_inv`, GFX10 `buffer_gl0_inv`/`buffer_gl1_inv`).
pub(crate) fn is_cache_op(i: &Inst) -> bool {
    matches!(
        i.op,
        Op::BUFFER_WBINVL1
            | Op::BUFFER_WBINVL1_VOL
            | Op::BUFFER_WBL2
            | Op::BUFFER_INVL2
            | Op::BUFFER_INV
            | Op::BUFFER_GL0_INV
            | Op::BUFFER_GL1_INV
    )
}

/// The place of a `buffer_*_dwordx2` whose two dwords are in range and adjacent at an
/// 8-byte-aligned address: one 64-bit access (see [`single_copy_pair`]). A swizzled buffer with
/// 4-byte elements (scratch) puts them apart, and then each dword is its own access.
fn buffer_pair(m: &MemDesc, lo: Option<u64>, hi: Option<u64>) -> Option<Place> {
    match (lo, hi) {
        (Some(a), Some(b)) if b == a.wrapping_add(4) => single_copy_pair(m, Place::Global(a)),
        _ => None,
    }
}

/// MUBUF (buffer) instructions, including the swizzled scratch descriptor.
pub(crate) fn mubuf<const C: bool>(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    // Cache write-back/invalidate: memory is coherent here (amdgpu-execution.md §2.5, R6).
    // They are what fences compile to, which the race checker orders by.
    if is_cache_op(i) {
        if C {
            if let Some(g) = env.check.as_deref_mut() {
                g.fence(w.id as usize);
            }
        }
        return Ok(Flow::Next);
    }
    let exec = w.exec();
    w.lane_ops += u64::from(exec.count_ones());
    let r = i.src[2];
    let v0 = w.sread(r, 0, Ty::B32);
    let v1 = w.sread(r + 1, 0, Ty::B32);
    let v2 = w.sread(r + 2, 0, Ty::B32);
    let v3 = w.sread(r + 3, 0, Ty::B32);
    let base = u64::from(v0) | u64::from(v1 & 0xffff) << 32;
    let stride = u64::from(v1 >> 16 & 0x3fff);
    let swizzle = v1 >> 31 != 0;
    let num_records = u64::from(v2);
    let add_tid = v3 >> 23 & 1 != 0;
    let gfx10 = i.gen.is_rdna();
    // GFX10 has no ELEMENT_SIZE field (4-byte elements) and selects the range check with
    // OOB_SELECT (bits 29:28); GFX8/9 check the index when there is a stride, else the offset.
    let es = if gfx10 {
        4
    } else {
        [2u64, 4, 8, 16][(v3 >> 19 & 3) as usize]
    };
    let is = [8u64, 16, 32, 64][(v3 >> 21 & 3) as usize];
    let oob_select = if gfx10 {
        v3 >> 28 & 3
    } else if stride == 0 {
        3
    } else {
        1
    };
    let soffset = u64::from(w.sread(i.ext as u16, 0, Ty::B32));
    let idxen = i.has(flag::IDXEN);
    let offen = i.has(flag::OFFEN);
    let va = w.vsrc(i.src[0], 0, Ty::B32);
    let vb = w.vsrc(i.src[0] + 1, 0, Ty::B32);
    let m = i.mem;
    let rtn = i.has(flag::GLC);
    let mut mem = Mem::<C>::new(w, env);
    let data = i.src[1];
    let dst = i.dst;
    let dma = (i.has(flag::LDS) && m.kind == Kind::Load).then(|| lds_dma::of_desc(&m));
    let dma_base = lds_dma::base(w, i);
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let index = (if idxen { u64::from(va[l]) } else { 0 }) + if add_tid { l as u64 } else { 0 };
        let voff = if offen {
            u64::from(if idxen { vb[l] } else { va[l] })
        } else {
            0
        };
        let offset0 = voff + i.imm as u64;
        let addr_of = |offset: u64| -> Option<u64> {
            if swizzle {
                Some(
                    base + soffset
                        + ((index / is) * stride + (offset / es) * es) * is
                        + (index % is) * es
                        + offset % es,
                )
            } else {
                let in_range = match oob_select {
                    0 => index < num_records && offset < stride,
                    1 => index < num_records,
                    2 => true,
                    _ => index * stride + offset < num_records,
                };
                in_range.then(|| base + soffset + index * stride + offset)
            }
        };
        match m.kind {
            Kind::Load if dma.is_some() => {
                let Some(shape) = dma else { continue };
                for k in 0..shape.dwords() {
                    let o = offset0 + u64::from(k) * u64::from(shape.bytes());
                    let v = match addr_of(o) {
                        Some(a) => mem.read(Place::Global(a), u32::from(shape.bytes()), l)?,
                        None => 0,
                    };
                    lds_dma::put(&mut mem, dma_base, shape, l, k, v)?;
                }
            }
            Kind::Load => {
                if let Some(a) = buffer_pair(&m, addr_of(offset0), addr_of(offset0 + 4)) {
                    let v = mem.read(a, 8, l)?;
                    w.set_lane(dst, l, v as u32);
                    w.set_lane(dst + 1, l, (v >> 32) as u32);
                    continue;
                }
                for k in 0..u16::from(m.count) {
                    let o = offset0 + u64::from(k) * u64::from(m.bytes);
                    let v = match addr_of(o) {
                        Some(a) => mem.read(Place::Global(a), u32::from(m.bytes), l)?,
                        None => 0,
                    };
                    put_loaded(w, dst, &m, l, k, v);
                }
            }
            Kind::Store => {
                w.stored = true;
                if let Some(a) = buffer_pair(&m, addr_of(offset0), addr_of(offset0 + 4)) {
                    let v = u64::from(w.lane(data, l)) | u64::from(w.lane(data + 1, l)) << 32;
                    mem.write(a, 8, v, l)?;
                    continue;
                }
                for k in 0..u16::from(m.count) {
                    let o = offset0 + u64::from(k) * u64::from(m.bytes);
                    if let Some(a) = addr_of(o) {
                        let v = store_value(w, data, &m, l, k);
                        mem.write(Place::Global(a), u32::from(m.bytes), v, l)?;
                    }
                }
            }
            Kind::Atomic => {
                let wide = m.bytes == 8;
                let rd = |w: &Wave, r: u16| -> u64 {
                    if wide {
                        u64::from(w.lane(r, l)) | u64::from(w.lane(r + 1, l)) << 32
                    } else {
                        u64::from(w.lane(r, l))
                    }
                };
                let src = rd(w, data);
                let cmp = if compares(m.atom) {
                    rd(w, data + if wide { 2 } else { 1 })
                } else {
                    0
                };
                if let Some(a) = addr_of(offset0) {
                    let old = mem.atomic(Place::Global(a), &m, src, cmp, l)?;
                    if rtn {
                        w.set_lane(dst, l, old as u32);
                        if wide {
                            w.set_lane(dst + 1, l, (old >> 32) as u32);
                        }
                    }
                }
                w.stored = true;
            }
            Kind::Other => return Err(unimplemented(i)),
        }
    }
    Ok(Flow::Next)
}

/// Whether a scalar atomic addresses through a buffer descriptor (`s_buffer_atomic_*`: the
/// base is the V#'s 48-bit address) rather than a 64-bit address pair (`s_atomic_*`).
fn scalar_buffer(o: Opcode) -> bool {
    use Opcode as O;
    matches!(
        o,
        O::S_BUFFER_ATOMIC_ADD
            | O::S_BUFFER_ATOMIC_ADD_X2
            | O::S_BUFFER_ATOMIC_AND
            | O::S_BUFFER_ATOMIC_AND_X2
            | O::S_BUFFER_ATOMIC_CMPSWAP
            | O::S_BUFFER_ATOMIC_CMPSWAP_X2
            | O::S_BUFFER_ATOMIC_DEC
            | O::S_BUFFER_ATOMIC_DEC_X2
            | O::S_BUFFER_ATOMIC_INC
            | O::S_BUFFER_ATOMIC_INC_X2
            | O::S_BUFFER_ATOMIC_OR
            | O::S_BUFFER_ATOMIC_OR_X2
            | O::S_BUFFER_ATOMIC_SMAX
            | O::S_BUFFER_ATOMIC_SMAX_X2
            | O::S_BUFFER_ATOMIC_SMIN
            | O::S_BUFFER_ATOMIC_SMIN_X2
            | O::S_BUFFER_ATOMIC_SUB
            | O::S_BUFFER_ATOMIC_SUB_X2
            | O::S_BUFFER_ATOMIC_SWAP
            | O::S_BUFFER_ATOMIC_SWAP_X2
            | O::S_BUFFER_ATOMIC_UMAX
            | O::S_BUFFER_ATOMIC_UMAX_X2
            | O::S_BUFFER_ATOMIC_UMIN
            | O::S_BUFFER_ATOMIC_UMIN_X2
            | O::S_BUFFER_ATOMIC_XOR
            | O::S_BUFFER_ATOMIC_XOR_X2
    )
}

/// Scalar memory accesses executed from their descriptor (GFX9): the atomics `s_atomic_*` and
/// `s_buffer_atomic_*` (SDATA holds the data, then the compare value of a cmpswap; with `glc`
/// it receives the old value), and `s_scratch_load/store_dword*`, whose SGPR offset is a
/// per-lane offset into the wave's swizzled scratch and so is scaled by 64 (Vega ISA, scalar
/// memory: `ADDR = SBASE + inst_offset + (SOFFSET & ~3) * 64`). The address ignores its two
/// low bits, like every scalar access.
pub(crate) fn scalar<const C: bool>(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    let m = i.mem;
    let base = w.sread64(i.src[0], 0, Ty::I64);
    let base = if scalar_buffer(i.opcode) {
        base & 0xffff_ffff_ffff
    } else {
        base
    };
    let soffset = if i.has(flag::SOE) {
        u64::from(w.sread(i.ext as u16, 0, Ty::B32))
    } else {
        0
    };
    // Scratch: SOFFSET is a per-lane byte offset; its dword lies 64 dwords apart per dword.
    let soffset = if m.kind == Kind::Atomic {
        soffset
    } else {
        (soffset & !3) * 64
    };
    let addr = base.wrapping_add(i.imm as i64 as u64).wrapping_add(soffset) & !3;
    let mut mem = Mem::<C>::new(w, env);
    match m.kind {
        Kind::Load | Kind::Store => {
            for k in 0..u16::from(m.count) {
                let p = Place::Global(addr + 4 * u64::from(k));
                if m.kind == Kind::Load {
                    let v = mem
                        .read(p, 4, 0)
                        .map_err(|f| LaneFault { lane: None, ..f })?;
                    w.swrite(i.dst + k, v as u32);
                } else {
                    let v = u64::from(w.sread(i.dst + k, 0, Ty::B32));
                    mem.write(p, 4, v, 0)
                        .map_err(|f| LaneFault { lane: None, ..f })?;
                }
            }
        }
        Kind::Atomic => {
            let wide = m.bytes == 8;
            let rd = |w: &Wave, r: u16| {
                if wide {
                    w.sread64(r, 0, Ty::I64)
                } else {
                    u64::from(w.sread(r, 0, Ty::B32))
                }
            };
            let step = if wide { 2 } else { 1 };
            let cmp = if compares(m.atom) {
                rd(w, i.dst + step)
            } else {
                0
            };
            let old = mem
                .atomic(Place::Global(addr), &m, rd(w, i.dst), cmp, 0)
                .map_err(|f| LaneFault { lane: None, ..f })?;
            if i.has(flag::GLC) {
                if wide {
                    w.swrite64(i.dst, old);
                } else {
                    w.swrite(i.dst, old as u32);
                }
            }
        }
        Kind::Other => return Err(unimplemented(i)),
    }
    Ok(Flow::Next)
}

/// Fast path for dword-sized DS loads/stores (`b32`, `b64`, `b96`, `b128`, `read2`/`write2`)
/// whose active lanes are all in range: one bounds check, then row-wise copies. Returns
/// `None` when the slow path must run (it reports the faulting lane). One instance per
/// instance of [`ds`] (`C`, checking): shared by both, it was left out of line with its row
/// gathers (matmul +1.5 % host instructions).
fn ds_dwords<const C: bool>(
    w: &mut Wave,
    i: &Inst,
    lds: &mut [u8],
    addr: &[u32; LANES],
    off16: u32,
) -> Option<R> {
    let m = i.mem;
    if !matches!(m.kind, Kind::Load | Kind::Store) || !(m.bytes == 4 || m.bytes == 8) || m.d16 != 0
    {
        return None;
    }
    let exec = w.exec();
    let dw = u32::from(m.bytes) / 4;
    // (byte offset from the lane address, first register, dwords) per element.
    let mut elems = [(0u32, 0u16, 0u32); 4];
    let elements = if m.two {
        let scale = u32::from(m.bytes) * if m.st64 { 64 } else { 1 };
        let data2 = if m.kind == Kind::Store {
            i.src[2]
        } else {
            i.dst + dw as u16
        };
        let first = if m.kind == Kind::Store {
            i.src[1]
        } else {
            i.dst
        };
        elems[0] = ((i.imm as u32 & 0xff) * scale, first, dw);
        elems[1] = (u32::from(i.offset1) * scale, data2, dw);
        2
    } else {
        let first = if m.kind == Kind::Store {
            i.src[1]
        } else {
            i.dst
        };
        elems[0] = (off16, first, dw * u32::from(m.count));
        1
    };
    let len = lds.len() as u64;
    // The OR of the active addresses bounds their maximum and reduces without a compare per
    // lane; the exact maximum is only needed when that bound is out of range.
    let mut max_addr = 0u32;
    // All 64 lanes, or lanes 0–31 (a full wave32 wave), active: no per-lane mask tests.
    let (full, low) = (exec == u64::MAX, exec == 0xffff_ffff);
    if full {
        for &a in addr {
            max_addr |= a;
        }
    } else if low {
        for &a in low32(addr) {
            max_addr |= a;
        }
    } else {
        for l in 0..LANES {
            let m = ((exec >> l) & 1).wrapping_neg() as u32;
            max_addr |= addr[l] & m;
        }
    }
    let end = elems[..elements]
        .iter()
        .map(|&(o, _, d)| u64::from(o) + 4 * u64::from(d))
        .max()
        .unwrap_or(0);
    if u64::from(max_addr) + end > len {
        max_addr = 0;
        for l in 0..LANES {
            let m = ((exec >> l) & 1).wrapping_neg() as u32;
            max_addr = max_addr.max(addr[l] & m);
        }
        if u64::from(max_addr) + end > len {
            return None;
        }
    }
    for &(o, reg, d) in &elems[..elements] {
        for k in 0..d {
            let r = crate::wave::reg_index(reg + k as u16);
            let row = &mut w.v[r];
            // Lanes 0..N active and in range (checked above): branch-free lane loops.
            if full {
                lds_full::<LANES>(lds, addr, o + 4 * k, row, m.kind == Kind::Load);
                continue;
            }
            if low {
                lds_full::<32>(
                    lds,
                    low32(addr),
                    o + 4 * k,
                    lanes_mut(row),
                    m.kind == Kind::Load,
                );
                continue;
            }
            // The set EXEC bits only: a reduction's last tree steps have a few lanes on.
            let mut lanes = exec;
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                let at = (addr[l] + o + 4 * k) as usize;
                let Some(cell) = lds.get_mut(at..at + 4) else {
                    continue; // unreachable: checked above
                };
                if m.kind == Kind::Load {
                    let mut b = [0u8; 4];
                    b.copy_from_slice(cell);
                    row[l] = u32::from_le_bytes(b);
                } else {
                    cell.copy_from_slice(&row[l].to_le_bytes());
                }
            }
        }
    }
    Some(Ok(Flow::Next))
}

/// Loads or stores the dword at `addr[l] + o` of LDS for lanes 0..N, all active and in range.
#[inline(always)]
fn lds_full<const N: usize>(
    lds: &mut [u8],
    addr: &[u32; N],
    o: u32,
    row: &mut [u32; N],
    load: bool,
) {
    if load {
        lds_gather(lds, addr, o, row);
    } else {
        for l in 0..N {
            let at = addr[l].wrapping_add(o) as usize;
            if let Some(cell) = lds.get_mut(at..at + 4) {
                cell.copy_from_slice(&row[l].to_le_bytes());
            }
        }
    }
}

/// Reads the dword at `addr[l] + o` of LDS into every lane of `row` (the caller checked the
/// range; N is a multiple of 16). Each 16-lane row whose addresses are
/// consecutive dwords is copied as one slice, and one whose addresses are all equal is a
/// broadcast: the shapes of coalesced and uniform LDS reads, which then cost a few vector moves
/// instead of 16 scalar loads.
fn lds_gather<const N: usize>(lds: &[u8], addr: &[u32; N], o: u32, row: &mut [u32; N]) {
    let read = |at: u32| {
        let at = at as usize;
        lds.get(at..at + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    for (lanes, out) in addr.chunks_exact(16).zip(row.chunks_exact_mut(16)) {
        // XOR-or reductions (they vectorize); adding `o` to every lane changes neither shape.
        let (mut not_consecutive, mut not_uniform) = (0u32, 0u32);
        for k in 0..16 {
            not_consecutive |= lanes[k] ^ lanes[0].wrapping_add(4 * k as u32);
            not_uniform |= lanes[k] ^ lanes[0];
        }
        let a0 = lanes[0].wrapping_add(o);
        let at = a0 as usize;
        if not_consecutive == 0 {
            if let Some(src) = lds.get(at..at + 64) {
                for k in 0..16 {
                    let b = &src[4 * k..4 * k + 4];
                    out[k] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
                continue;
            }
        } else if not_uniform == 0 {
            out.fill(read(a0));
            continue;
        }
        for (d, &a) in out.iter_mut().zip(lanes) {
            *d = read(a.wrapping_add(o));
        }
    }
}

/// Fast path for 32-bit DS atomics whose active lanes are all in range.
fn ds_atomic32(
    w: &mut Wave,
    i: &Inst,
    lds: &mut [u8],
    addr: &[u32; LANES],
    off16: u32,
) -> Option<R> {
    let m = i.mem;
    if m.kind != Kind::Atomic || m.bytes != 4 {
        return None;
    }
    let exec = w.exec();
    // The active lanes' highest element end (in 64 bits: an address + offset past 4 GiB is
    // out of range here, and the general path wraps it as the hardware does).
    let mut end = 0u64;
    let mut lanes = exec;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        end = end.max(u64::from(addr[l]) + u64::from(off16) + 4);
    }
    if end > lds.len() as u64 {
        return None;
    }
    let (src_reg, cmp_reg) = match m.atom {
        Atom::CmpSwap | Atom::FCmpSwap | Atom::MskOr => (i.src[2], Some(i.src[1])),
        _ => (i.src[1], None),
    };
    let src = &w.v[crate::wave::reg_index(src_reg)];
    let cmp = cmp_reg.map(|r| &w.v[crate::wave::reg_index(r)]);
    let mut old_row = [0u32; LANES];
    // Lane by lane in ascending order (active lanes only; a wave32 wave's high half never
    // is), `ds_add_u32` (histograms) without the general operation's dispatch.
    let add = m.atom == Atom::Add;
    let mut lanes = exec;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let at = (addr[l] + off16) as usize;
        let Some(cell) = lds.get_mut(at..at + 4) else {
            continue; // unreachable: checked above
        };
        let mut b = [0u8; 4];
        b.copy_from_slice(cell);
        let old = u32::from_le_bytes(b);
        let new = if add {
            old.wrapping_add(src[l])
        } else {
            let c = cmp.map_or(0, |c| u64::from(c[l]));
            atom_apply(m.atom, u64::from(old), u64::from(src[l]), c, 4) as u32
        };
        cell.copy_from_slice(&new.to_le_bytes());
        old_row[l] = old;
    }
    if m.rtn {
        w.vwrite(i.dst, &old_row, exec);
    }
    Some(Ok(Flow::Next))
}

fn gws_flow(g: crate::gws::Go) -> Flow {
    match g {
        crate::gws::Go::Next => Flow::Next,
        crate::gws::Go::Retry => Flow::Retry,
    }
}

/// The `ds_*_src2_*` forms: the operation and the element size. Each combines two LDS
/// locations of the lane, `A` and `B`, into `A` (Vega ISA, DS_ADD_SRC2_U32):
/// `A = ADDR; B = A + 4 * (offset[15] ? {A[31], A[31:17]} : {offset[14], offset[14:0]})`, the
/// bracketed value a signed 16-bit dword count; with offset[15] set, A is ADDR[16:0]. The
/// 64-bit forms use 8-byte-aligned A and B.
fn src2_op(op: Op) -> Option<(Atom, u8)> {
    Some(match op {
        Op::DS_ADD_SRC2_U32 => (Atom::Add, 4),
        Op::DS_SUB_SRC2_U32 => (Atom::Sub, 4),
        Op::DS_RSUB_SRC2_U32 => (Atom::Rsub, 4),
        Op::DS_INC_SRC2_U32 => (Atom::Inc, 4),
        Op::DS_DEC_SRC2_U32 => (Atom::Dec, 4),
        Op::DS_MIN_SRC2_I32 => (Atom::SMin, 4),
        Op::DS_MAX_SRC2_I32 => (Atom::SMax, 4),
        Op::DS_MIN_SRC2_U32 => (Atom::UMin, 4),
        Op::DS_MAX_SRC2_U32 => (Atom::UMax, 4),
        Op::DS_AND_SRC2_B32 => (Atom::And, 4),
        Op::DS_OR_SRC2_B32 => (Atom::Or, 4),
        Op::DS_XOR_SRC2_B32 => (Atom::Xor, 4),
        Op::DS_WRITE_SRC2_B32 => (Atom::Swap, 4),
        Op::DS_MIN_SRC2_F32 => (Atom::FMin, 4),
        Op::DS_MAX_SRC2_F32 => (Atom::FMax, 4),
        Op::DS_ADD_SRC2_F32 => (Atom::FAdd, 4),
        Op::DS_ADD_SRC2_U64 => (Atom::Add, 8),
        Op::DS_SUB_SRC2_U64 => (Atom::Sub, 8),
        Op::DS_RSUB_SRC2_U64 => (Atom::Rsub, 8),
        Op::DS_INC_SRC2_U64 => (Atom::Inc, 8),
        Op::DS_DEC_SRC2_U64 => (Atom::Dec, 8),
        Op::DS_MIN_SRC2_I64 => (Atom::SMin, 8),
        Op::DS_MAX_SRC2_I64 => (Atom::SMax, 8),
        Op::DS_MIN_SRC2_U64 => (Atom::UMin, 8),
        Op::DS_MAX_SRC2_U64 => (Atom::UMax, 8),
        Op::DS_AND_SRC2_B64 => (Atom::And, 8),
        Op::DS_OR_SRC2_B64 => (Atom::Or, 8),
        Op::DS_XOR_SRC2_B64 => (Atom::Xor, 8),
        Op::DS_WRITE_SRC2_B64 => (Atom::Swap, 8),
        Op::DS_MIN_SRC2_F64 => (Atom::FMin, 8),
        Op::DS_MAX_SRC2_F64 => (Atom::FMax, 8),
        _ => return None,
    })
}

/// The two LDS addresses of a src2 form for a lane address (see [`src2_op`]).
fn src2_addresses(addr: u32, off16: u32, bytes: u8) -> (u32, u32) {
    let (a, delta) = if off16 & 0x8000 != 0 {
        (
            addr & 0x1_ffff,
            (addr >> 17 | (addr >> 16 & 0x8000)) as u16 as i16,
        )
    } else {
        (addr, (off16 & 0x7fff | (off16 << 1 & 0x8000)) as u16 as i16)
    };
    let b = a.wrapping_add((i32::from(delta) * 4) as u32);
    if bytes == 8 {
        (a & !7, b & !7)
    } else {
        (a, b)
    }
}

fn ds_src2<const C: bool>(
    w: &mut Wave,
    i: &Inst,
    env: &mut Env,
    addr: &[u32; LANES],
    off16: u32,
) -> R {
    let Some((atom, bytes)) = src2_op(i.op) else {
        return Err(unimplemented(i));
    };
    let exec = w.exec();
    let m = MemDesc {
        kind: Kind::Atomic,
        bytes,
        count: 1,
        atom,
        ..MemDesc::default()
    };
    let mut mem = Mem::<C>::new(w, env);
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let (a, b) = src2_addresses(addr[l], off16, bytes);
        let src = mem.read(Place::Lds(u64::from(b)), u32::from(bytes), l)?;
        mem.atomic(Place::Lds(u64::from(a)), &m, src, 0, l)?;
    }
    Ok(Flow::Next)
}

/// `ds_append`/`ds_consume`: the dword at M0[15:0] + offset counts up (append) or down
/// (consume) by the number of active lanes; every active lane receives the value before.
fn ds_append<const C: bool>(w: &mut Wave, i: &Inst, env: &mut Env, off16: u32) -> R {
    let exec = w.exec();
    if exec == 0 {
        return Ok(Flow::Next);
    }
    let p = Place::Lds(u64::from((w.m0() & 0xffff) + off16));
    let n = u64::from(exec.count_ones());
    let first = exec.trailing_zeros() as usize;
    let mut mem = Mem::<C>::new(w, env);
    let old = mem.read(p, 4, first)?;
    let new = if i.op == Op::DS_APPEND {
        old.wrapping_add(n)
    } else {
        old.wrapping_sub(n)
    };
    mem.write(p, 4, new & 0xffff_ffff, first)?;
    w.vwrite(i.dst, &[old as u32; LANES], exec);
    Ok(Flow::Next)
}

/// `ds_read_addtid_b32`/`ds_write_addtid_b32`: lane l accesses the dword at
/// M0[15:0] + offset + 4 * l (no address VGPR).
fn ds_addtid<const C: bool>(w: &mut Wave, i: &Inst, env: &mut Env, off16: u32) -> R {
    let exec = w.exec();
    let base = (w.m0() & 0xffff) + off16;
    let load = i.op == Op::DS_READ_ADDTID_B32;
    let mut mem = Mem::<C>::new(w, env);
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let p = Place::Lds(u64::from(base + 4 * l as u32));
        if load {
            let v = mem.read(p, 4, l)?;
            w.set_lane(i.dst, l, v as u32);
        } else {
            mem.write(p, 4, u64::from(w.lane(i.src[1], l)), l)?;
        }
    }
    Ok(Flow::Next)
}

/// `ds_wrxchg2[st64]_rtn_b32/b64`: two exchanges, at ADDR + offset0 and ADDR + offset1 (in
/// elements, times 64 for st64), with data0 and data1; the old values land in consecutive
/// destination registers.
fn ds_wrxchg2<const C: bool>(w: &mut Wave, i: &Inst, env: &mut Env, addr: &[u32; LANES]) -> R {
    let exec = w.exec();
    let wide = matches!(i.op, Op::DS_WRXCHG2_RTN_B64 | Op::DS_WRXCHG2ST64_RTN_B64);
    let bytes: u32 = if wide { 8 } else { 4 };
    let st64 = matches!(
        i.op,
        Op::DS_WRXCHG2ST64_RTN_B32 | Op::DS_WRXCHG2ST64_RTN_B64
    );
    let scale = bytes * if st64 { 64 } else { 1 };
    let regs = bytes as u16 / 4;
    let mut mem = Mem::<C>::new(w, env);
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        for (k, (o, data)) in [
            (i.imm as u32 & 0xff, i.src[1]),
            (u32::from(i.offset1), i.src[2]),
        ]
        .into_iter()
        .enumerate()
        {
            let p = Place::Lds(u64::from(addr[l].wrapping_add(o * scale)));
            let mut v = u64::from(w.lane(data, l));
            if wide {
                v |= u64::from(w.lane(data + 1, l)) << 32;
            }
            let old = mem.read(p, bytes, l)?;
            mem.write(p, bytes, v, l)?;
            let d = i.dst + k as u16 * regs;
            w.set_lane(d, l, old as u32);
            if wide {
                w.set_lane(d + 1, l, (old >> 32) as u32);
            }
        }
    }
    Ok(Flow::Next)
}

/// `ds_condxchg32_rtn_b64` (Vega ISA): for each dword k of the 64-bit data at ADDR + offset,
/// the old dword is returned and, when bit 31 of data dword k is set, replaced by data dword k
/// with bit 31 cleared.
fn ds_condxchg32<const C: bool>(
    w: &mut Wave,
    i: &Inst,
    env: &mut Env,
    addr: &[u32; LANES],
    off16: u32,
) -> R {
    let exec = w.exec();
    let mut mem = Mem::<C>::new(w, env);
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        for k in 0..2u16 {
            let p = Place::Lds(u64::from(addr[l].wrapping_add(off16 + 4 * u32::from(k))));
            let d = w.lane(i.src[1] + k, l);
            let old = mem.read(p, 4, l)?;
            if d >> 31 != 0 {
                mem.write(p, 4, u64::from(d & 0x7fff_ffff), l)?;
            }
            w.set_lane(i.dst + k, l, old as u32);
        }
    }
    Ok(Flow::Next)
}

/// `ds_wrap_rtn_b32`: `old >= data0 ? old - data0 : old + data1`, returning the old value
/// (a ring-buffer index that wraps).
fn ds_wrap<const C: bool>(
    w: &mut Wave,
    i: &Inst,
    env: &mut Env,
    addr: &[u32; LANES],
    off16: u32,
) -> R {
    let exec = w.exec();
    let mut mem = Mem::<C>::new(w, env);
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let p = Place::Lds(u64::from(addr[l].wrapping_add(off16)));
        let (d0, d1) = (w.lane(i.src[1], l), w.lane(i.src[2], l));
        let old = mem.read(p, 4, l)? as u32;
        let new = if old >= d0 {
            old - d0
        } else {
            old.wrapping_add(d1)
        };
        mem.write(p, 4, u64::from(new), l)?;
        w.set_lane(i.dst, l, old);
    }
    Ok(Flow::Next)
}

/// Notes the LDS accesses [`ds_dwords`] made: per active lane its element(s), in order.
fn note_ds(
    g: &mut crate::check::group::GroupCheck,
    i: &Inst,
    addr: &[u32; LANES],
    off16: u32,
    exec: u64,
) {
    let m = i.mem;
    let write = m.kind == Kind::Store;
    let mut lanes = exec;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        if m.two {
            let scale = u32::from(m.bytes) * if m.st64 { 64 } else { 1 };
            for o in [i.imm as u32 & 0xff, u32::from(i.offset1)] {
                let a = u64::from(addr[l].wrapping_add(o * scale));
                g.note_lds(a, u32::from(m.bytes), l, write);
            }
        } else {
            let a = u64::from(addr[l].wrapping_add(off16));
            g.note_lds(a, u32::from(m.bytes) * u32::from(m.count), l, write);
        }
    }
}

/// DS (LDS) instructions, including the cross-lane ds_swizzle/ds_permute/ds_bpermute.
pub(crate) fn ds<const C: bool>(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    let exec = w.exec();
    w.lane_ops += u64::from(exec.count_ones());
    let addr = w.vsrc(i.src[0], 0, Ty::B32);
    let off16 = (i.imm as u32 & 0xff) | u32::from(i.offset1) << 8;
    match i.op {
        Op::DS_NOP => return Ok(Flow::Next),
        // Global wave sync: the data operand sits in the ADDR field; the first active lane's.
        Op::DS_GWS_INIT | Op::DS_GWS_BARRIER if exec != 0 => {
            let data = addr[exec.trailing_zeros() as usize];
            if i.op == Op::DS_GWS_INIT {
                return Ok(gws_flow(env.gws.init(w, off16, data)));
            }
            // The race checker orders every wave through the global barrier: it hears of the
            // wave's arrival before the barrier can open on it.
            let wi = w.id as usize;
            let check = if C { env.check.as_deref_mut() } else { None };
            let go = match check {
                Some(g) => env.gws.barrier(w, off16, data, |e| g.gws_barrier(wi, e)),
                None => env.gws.barrier(w, off16, data, |_| {}),
            };
            return Ok(gws_flow(go));
        }
        Op::DS_GWS_INIT | Op::DS_GWS_BARRIER => return Ok(Flow::Next),
        Op::DS_APPEND | Op::DS_CONSUME => return ds_append::<C>(w, i, env, off16),
        Op::DS_READ_ADDTID_B32 | Op::DS_WRITE_ADDTID_B32 => {
            return ds_addtid::<C>(w, i, env, off16)
        }
        Op::DS_WRXCHG2_RTN_B32
        | Op::DS_WRXCHG2_RTN_B64
        | Op::DS_WRXCHG2ST64_RTN_B32
        | Op::DS_WRXCHG2ST64_RTN_B64 => return ds_wrxchg2::<C>(w, i, env, &addr),
        Op::DS_CONDXCHG32_RTN_B64 => return ds_condxchg32::<C>(w, i, env, &addr, off16),
        Op::DS_WRAP_RTN_B32 => return ds_wrap::<C>(w, i, env, &addr, off16),
        Op::DS_READ_B64_TR_B4
        | Op::DS_READ_B64_TR_B8
        | Op::DS_READ_B64_TR_B16
        | Op::DS_READ_B96_TR_B6 => return lds_tr::read::<C>(w, i, env, &addr, off16),
        Op::DS_GWS_SEMA_V
        | Op::DS_GWS_SEMA_BR
        | Op::DS_GWS_SEMA_P
        | Op::DS_GWS_SEMA_RELEASE_ALL => {
            if exec == 0 {
                return Ok(Flow::Next);
            }
            // `ds_gws_sema_br`'s count sits in the ADDR field, like `ds_gws_init`'s data.
            let data = if i.src[0] >= VGPR {
                addr[exec.trailing_zeros() as usize]
            } else {
                0
            };
            return Ok(gws_flow(env.gws.semaphore(w, i.op, off16, data)));
        }
        Op::DS_SWIZZLE_B32 => {
            // The data operand sits in the ADDR field.
            let src = addr;
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let s = if off16 & 0x8000 != 0 {
                    (l & !3) | (off16 >> (2 * (l & 3)) & 3) as usize
                } else {
                    let and = (off16 & 0x1f) as usize;
                    let or = (off16 >> 5 & 0x1f) as usize;
                    let xor = (off16 >> 10 & 0x1f) as usize;
                    (l & !31) | ((((l & 31) & and) | or) ^ xor)
                };
                r[l] = if exec >> s & 1 != 0 { src[s] } else { 0 };
            }
            w.vwrite(i.dst, &r, exec);
            return Ok(Flow::Next);
        }
        Op::DS_PERMUTE_B32 | Op::DS_BPERMUTE_B32 | Op::DS_BPERMUTE_FI_B32 => {
            let src = w.vsrc(i.src[1], 0, Ty::B32);
            let mut r = [0u32; LANES];
            // The lane index wraps at the wave size.
            let size = w.size() as u32;
            if i.op != Op::DS_PERMUTE_B32 {
                // GFX12 `_fi` (fetch inactive): an inactive source lane is read too.
                let readable = if i.op == Op::DS_BPERMUTE_FI_B32 {
                    u64::MAX
                } else {
                    exec
                };
                for l in 0..LANES {
                    let s = (addr[l].wrapping_add(off16) / 4 % size) as usize;
                    r[l] = if readable >> s & 1 != 0 { src[s] } else { 0 };
                }
            } else {
                for l in 0..LANES {
                    if exec >> l & 1 != 0 {
                        let t = (addr[l].wrapping_add(off16) / 4 % size) as usize;
                        r[t] = src[l];
                    }
                }
            }
            w.vwrite(i.dst, &r, exec);
            return Ok(Flow::Next);
        }
        _ => {}
    }
    if !C {
        if let Some(r) = ds_dwords::<C>(w, i, env.lds, &addr, off16) {
            return r;
        }
        if let Some(r) = ds_atomic32(w, i, env.lds, &addr, off16) {
            return r;
        }
    } else {
        // Checked: the same fast path, its lanes' accesses noted afterwards in one go (LDS
        // accesses release nothing, so the notes need not come first).
        let exec = w.exec();
        if let Some(r) = ds_dwords::<C>(w, i, env.lds, &addr, off16) {
            if let Some(g) = env.check.as_deref_mut() {
                note_ds(g, i, &addr, off16, exec);
            }
            return r;
        }
    }
    let m = i.mem;
    let mut mem = Mem::<C>::new(w, env);
    let size = u32::from(m.bytes);
    match m.kind {
        Kind::Load | Kind::Store if m.two => {
            let scale = u64::from(m.bytes) * if m.st64 { 64 } else { 1 };
            for l in 0..LANES {
                if exec >> l & 1 == 0 {
                    continue;
                }
                for (k, o) in [i.imm as u64 & 0xff, u64::from(i.offset1)]
                    .into_iter()
                    .enumerate()
                {
                    // LDS addresses wrap at 32 bits (the compiler relies on it).
                    let p = Place::Lds(u64::from(addr[l].wrapping_add((o * scale) as u32)));
                    let k = k as u16;
                    if m.kind == Kind::Load {
                        let v = mem.read(p, size, l)?;
                        put_loaded(w, i.dst, &m, l, k, v);
                    } else {
                        let src = if k == 0 { i.src[1] } else { i.src[2] };
                        let v = store_value(w, src, &m, l, 0);
                        mem.write(p, size, v, l)?;
                    }
                }
            }
        }
        Kind::Load | Kind::Store => {
            for l in 0..LANES {
                if exec >> l & 1 == 0 {
                    continue;
                }
                for k in 0..u16::from(m.count) {
                    let a = addr[l]
                        .wrapping_add(off16)
                        .wrapping_add(u32::from(k) * u32::from(m.bytes));
                    let p = Place::Lds(u64::from(a));
                    if m.kind == Kind::Load {
                        let v = mem.read(p, size, l)?;
                        put_loaded(w, i.dst, &m, l, k, v);
                    } else {
                        let v = store_value(w, i.src[1], &m, l, k);
                        mem.write(p, size, v, l)?;
                    }
                }
            }
        }
        Kind::Atomic => {
            let wide = m.bytes == 8;
            for l in 0..LANES {
                if exec >> l & 1 == 0 {
                    continue;
                }
                let rd = |w: &Wave, r: u16| -> u64 {
                    if wide {
                        u64::from(w.lane(r, l)) | u64::from(w.lane(r + 1, l)) << 32
                    } else {
                        u64::from(w.lane(r, l))
                    }
                };
                // DS compare-store: data0 is the compare value, data1 the new value.
                let (src, cmp) = match m.atom {
                    Atom::CmpSwap | Atom::FCmpSwap | Atom::MskOr => {
                        (rd(w, i.src[2]), rd(w, i.src[1]))
                    }
                    _ => (rd(w, i.src[1]), 0),
                };
                let p = Place::Lds(u64::from(addr[l].wrapping_add(off16)));
                let old = mem.atomic(p, &m, src, cmp, l)?;
                if m.rtn {
                    w.set_lane(i.dst, l, old as u32);
                    if wide {
                        w.set_lane(i.dst + 1, l, (old >> 32) as u32);
                    }
                }
            }
        }
        // The src2 forms have no descriptor; out of the way of the described accesses.
        Kind::Other => return ds_src2::<C>(w, i, env, &addr, off16),
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LDS whose dword at byte offset 4·k holds k.
    fn lds() -> Vec<u8> {
        (0..1024u32).flat_map(|k| k.to_le_bytes()).collect()
    }

    #[test]
    fn lds_gather_matches_per_lane_reads_for_every_row_shape() {
        let lds = lds();
        let shapes: [fn(usize) -> u32; 4] = [
            |l| 4 * l as u32,                               // consecutive
            |l| 64 * (l / 16) as u32,                       // uniform per 16 lanes
            |l| (4 * ((l * 7) % 64)) as u32,                // scattered
            |l| if l % 16 == 3 { 8 } else { 4 * l as u32 }, // one lane breaks the run
        ];
        for shape in shapes {
            let addr: [u32; LANES] = std::array::from_fn(shape);
            for o in [0u32, 4, 0x100] {
                let mut row = [0u32; LANES];
                lds_gather(&lds, &addr, o, &mut row);
                for l in 0..LANES {
                    assert_eq!(row[l], (addr[l] + o) / 4, "lane {l} offset {o}");
                }
            }
        }
        // Consecutive rows ending exactly at the end of LDS.
        let addr: [u32; LANES] = std::array::from_fn(|l| 4 * (l as u32 % 16) + 4000);
        let mut row = [0u32; LANES];
        lds_gather(&lds, &addr, 32, &mut row);
        assert_eq!(row[0], 1008);
        assert_eq!(row[15], 1023);
        // The first 32 lanes only (a full wave32 wave): the rest of the row is left alone.
        let mut row = [7u32; LANES];
        lds_gather(&lds, low32(&addr), 0, lanes_mut::<u32, 32>(&mut row));
        assert_eq!((row[31], row[32], row[63]), (1015, 7, 7));
    }

    #[test]
    fn active_range_covers_exactly_the_active_lanes() {
        let consecutive: [u64; LANES] = std::array::from_fn(|l| 0x1000 + 4 * l as u64);
        assert_eq!(active_range(&consecutive, u64::MAX), (0x1000, 0x10fc));
        let reversed: [u64; LANES] = std::array::from_fn(|l| 0x2000 - 4 * l as u64);
        assert_eq!(active_range(&reversed, u64::MAX), (0x2000 - 252, 0x2000));
        let wrapping: [u64; LANES] =
            std::array::from_fn(|l| (u64::MAX - 7).wrapping_add(4 * l as u64));
        assert_eq!(active_range(&wrapping, u64::MAX), (0, u64::MAX - 3));
        assert_eq!(active_range(&consecutive, 0b110), (0x1004, 0x1008));
        // The low 32 lanes (a full wave32 wave): lanes 32–63 do not count.
        let mut low: [u64; LANES] = consecutive;
        low[40] = 0;
        assert_eq!(active_range(&low, 0xffff_ffff), (0x1000, 0x107c));
        assert_eq!(active_range(&low, 0x7fff_ffff), (0x1000, 0x1078));
    }
}
