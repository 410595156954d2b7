//! `uninit` by definedness, in the style of memcheck: a read of memory never written does not
//! report by itself (compilers load speculatively: LDS keys past a tile's valid items, a carry
//! value before testing whether there is one, and discard them). It marks the registers the
//! value lands in undefined, per lane; every instruction carries undefinedness from its
//! sources to its destinations; only when an undefined value decides something observable is
//! the read reported:
//! - a branch (SCC, VCCZ), a jump target, or which lanes run (a write of EXEC);
//! - a memory address;
//! - a store (or atomic) to global memory, where the host sees it.
//!
//! An undefined value stored to LDS makes those bytes unwritten again, so a later load of them
//! is undefined in turn (with the origin of the first load); an undefined value stored to
//! private memory leaves the bytes as they were.
//!
//! Precision: one bit per lane per register (a partly written element is defined, as before);
//! the bitwise AND/OR of lane masks follow memcheck's rules (a defined 0 in an AND, or a
//! defined 1 in an OR, decides the bit), `v_cndmask` and `s_cselect` take the selected
//! operand's definedness; any other operation's result is undefined when one of its sources
//! is. Where the flow is not modelled (cross-lane DPP and permutes, matrix instructions,
//! images, VGPR index mode), results are defined: a missed finding, never a false one.
//!
//! The state is per wave ([`Regs`]); with nothing undefined in a wave (`dirty` false), an
//! instruction costs one test.

use super::group::{pc_key, pc_text, GroupCheck};
use super::report::Kind;
use super::shadow::Alloc;
use crate::decode::{flag, Fmt, Inst, Kind as MemKind, Sub, NULL, VGPR};
use crate::exec::MODE_GPR_IDX_EN;
use crate::ops::Op;
use crate::wave::{reg_index, Wave, LANES, VREGS};
use hsaemu_isa::op_flags;
use std::collections::HashMap;
use std::sync::Arc;

/// An origin: index + 1 into [`Origins`] (0: none known).
pub(crate) type OriginId = u32;

/// Scalar codes of EXEC and VCC.
const EXEC: usize = 126;
const VCC: usize = 106;
/// FLAT/GLOBAL/SCRATCH `saddr` `off`.
const SADDR_OFF: u16 = 0x7f;

/// Which uninitialised read produced an undefined value.
pub(crate) enum Read {
    Lds {
        addr: u64,
        size: u8,
    },
    Private {
        p: u64,
        size: u8,
    },
    Global {
        addr: u64,
        size: u8,
        alloc: Arc<Alloc>,
    },
}

pub(crate) struct Origin {
    pc: u64,
    wave: u32,
    lane: u8,
    read: Read,
}

/// The uninitialised reads of a work-group's launch, one per (PC, wave, lane).
#[derive(Default)]
pub(crate) struct Origins {
    list: Vec<Origin>,
    index: HashMap<(u64, u32, u8), OriginId>,
}

/// At most this many origins per launch; later reads share the last one's description.
const MAX_ORIGINS: usize = 1 << 16;

impl Origins {
    pub(crate) fn clear(&mut self) {
        self.list.clear();
        self.index.clear();
    }

    pub(crate) fn add(&mut self, pc: u64, wave: u32, lane: u8, read: Read) -> OriginId {
        if let Some(&id) = self.index.get(&(pc, wave, lane)) {
            return id;
        }
        if self.list.len() >= MAX_ORIGINS {
            return self.list.len() as OriginId;
        }
        self.list.push(Origin {
            pc,
            wave,
            lane,
            read,
        });
        let id = self.list.len() as OriginId;
        self.index.insert((pc, wave, lane), id);
        id
    }
}

/// A wave's register definedness: undefined lanes per vector register, undefined bits per
/// scalar register, and each undefined register's origin.
pub(crate) struct Regs {
    v: Vec<u64>,
    vo: Vec<OriginId>,
    s: [u32; 128],
    so: [OriginId; 128],
    scc: bool,
    scco: OriginId,
    /// Something may be undefined (cleared when a sweep finds nothing).
    pub(crate) dirty: bool,
    /// Instructions since the last sweep.
    age: u32,
}

impl Default for Regs {
    fn default() -> Regs {
        Regs {
            v: Vec::new(),
            vo: Vec::new(),
            s: [0; 128],
            so: [0; 128],
            scc: false,
            scco: 0,
            dirty: false,
            age: 0,
        }
    }
}

impl Regs {
    /// Everything defined (a work-group launch).
    pub(crate) fn reset(&mut self) {
        if self.dirty || !self.v.is_empty() {
            self.v.clear();
            self.vo.clear();
            self.s = [0; 128];
            self.so = [0; 128];
        }
        self.scc = false;
        self.dirty = false;
        self.age = 0;
    }

    fn grow(&mut self) {
        if self.v.is_empty() {
            self.v = vec![0; VREGS];
            self.vo = vec![0; VREGS];
        }
    }

    /// Whether nothing is undefined any more (checked now and then while dirty).
    fn clean(&self) -> bool {
        !self.scc && self.s.iter().all(|&x| x == 0) && self.v.iter().all(|&x| x == 0)
    }

    /// Lanes `lanes` of vector register `code` get undefinedness `u` (a lane mask).
    fn set_v(&mut self, code: u16, lanes: u64, u: u64, o: OriginId) {
        if self.v.is_empty() {
            if u & lanes == 0 {
                return;
            }
            self.grow();
        }
        let r = reg_index(code);
        let kept = self.v[r] & !lanes;
        self.v[r] = kept | u & lanes;
        if u & lanes != 0 {
            // The lanes still undefined from before keep their origin.
            if kept == 0 {
                self.vo[r] = o;
            }
            self.dirty = true;
        }
    }

    /// Undefined lanes of vector register `code` (0 for a scalar or constant operand).
    fn get_v(&self, code: u16) -> (u64, OriginId) {
        if code < VGPR || self.v.is_empty() {
            return (0, 0);
        }
        let r = reg_index(code);
        (self.v[r], self.vo[r])
    }

    /// Scalar register `code` gets undefined bits `u`.
    fn set_s(&mut self, code: u16, u: u32, o: OriginId) {
        let c = code as usize;
        if c >= 128 || c == NULL as usize {
            return;
        }
        self.s[c] = u;
        if u != 0 {
            self.so[c] = o;
            self.dirty = true;
        }
    }

    fn get_s(&self, code: u16) -> (u32, OriginId) {
        match code as usize {
            c @ 0..=127 => (self.s[c], self.so[c]),
            _ => (0, 0),
        }
    }

    /// A lane-mask operand's undefined bits (one SGPR in wave32).
    fn get_mask(&self, code: u16, w: &Wave) -> (u64, OriginId) {
        let (lo, o) = self.get_s(code);
        let (hi, o2) = if w.wave32 || code >= 127 {
            (0, 0)
        } else {
            self.get_s(code + 1)
        };
        (
            (u64::from(lo) | u64::from(hi) << 32) & w.lane_mask,
            if lo != 0 { o } else { o2 },
        )
    }

    fn set_mask(&mut self, code: u16, u: u64, o: OriginId, w: &Wave) {
        self.set_s(code, u as u32, o);
        if !w.wave32 && code < 127 {
            self.set_s(code + 1, (u >> 32) as u32, o);
        }
    }

    /// A source operand of `n` dwords as per-lane undefinedness: a vector register's lanes,
    /// or every lane when a scalar source has an undefined bit.
    fn lanes_of(&self, code: u16, n: u8) -> (u64, OriginId) {
        let mut u = 0;
        let mut o = 0;
        for k in 0..u16::from(n.max(1)) {
            let (x, xo) = if code >= VGPR {
                self.get_v(code + k)
            } else if code < 128 && code + k < 128 {
                let (s, so) = self.get_s(code + k);
                (if s != 0 { u64::MAX } else { 0 }, so)
            } else {
                (0, 0)
            };
            if x != 0 && o == 0 {
                o = xo;
            }
            u |= x;
        }
        (u, o)
    }

    /// A scalar source of `n` dwords as undefined bits (low 64).
    fn bits_of(&self, code: u16, n: u8) -> (u64, OriginId) {
        if code >= 128 {
            return (0, 0);
        }
        let (lo, o) = self.get_s(code);
        let (hi, o2) = if n >= 2 && code < 127 {
            self.get_s(code + 1)
        } else {
            (0, 0)
        };
        let mut u = u64::from(lo) | u64::from(hi) << 32;
        for k in 2..u16::from(n) {
            if self.get_s(code + k).0 != 0 {
                u = u64::MAX;
            }
        }
        (u, if lo != 0 { o } else { o2 })
    }

    /// Scalar destination of `n` dwords gets undefined bits `u` (low 64; all of any further
    /// dword when anything is undefined).
    fn set_bits(&mut self, code: u16, n: u8, u: u64, o: OriginId) {
        self.set_s(code, u as u32, o);
        if n >= 2 {
            self.set_s(code + 1, (u >> 32) as u32, o);
        }
        for k in 2..u16::from(n) {
            self.set_s(code + k, if u != 0 { u32::MAX } else { 0 }, o);
        }
    }
}

/// What an undefined value was used for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Use {
    Branch,
    Jump,
    Exec,
    Address,
    Store,
}

impl Use {
    fn text(self) -> &'static str {
        match self {
            Use::Branch => "decides a branch",
            Use::Jump => "is a jump target",
            Use::Exec => "decides which lanes run (EXEC)",
            Use::Address => "is a memory address",
            Use::Store => "is stored to global memory",
        }
    }
}

/// Reports the read behind origin `o` as `uninit`, used by wave `w` at its PC (the line names
/// the load's own wave and lane).
pub(crate) fn report_use(g: &GroupCheck, w: &Wave, o: OriginId, what: Use) {
    let Some(origin) = o
        .checked_sub(1)
        .and_then(|k| g.origins.list.get(k as usize))
    else {
        return;
    };
    let d = &g.d;
    let key = (Kind::Uninit, d.kernel.clone(), pc_key(d, origin.pc), 0);
    d.checker.findings.add(key, || {
        let read = match &origin.read {
            Read::Lds { addr, size } => format!(
                "reads {size} bytes at LDS offset {addr:#x}, never written (group segment of {} bytes)",
                d.lds_size
            ),
            Read::Private { p, size } => format!(
                "reads {size} bytes at private offset {p:#x}, never written by this wave (private segment of {} bytes per lane)",
                d.private_per_lane
            ),
            Read::Global { addr, size, alloc } => format!(
                "reads {size} bytes at {addr:#x}, never written since allocation: {}",
                alloc.describe()
            ),
        };
        format!(
            "in kernel {} at {}: work-group ({},{},{}) wave {} lane {} {read}; the value {} at {} (wave {})",
            d.kernel,
            pc_text(d, origin.pc),
            g.wg[0],
            g.wg[1],
            g.wg[2],
            origin.wave,
            origin.lane,
            what.text(),
            pc_text(d, w.pc),
            w.id,
        )
    });
}

/// The data registers of a store or atomic, as the running instruction found them (flush
/// reads them per element after the instruction, which may overwrite them).
#[derive(Default)]
pub(crate) struct Pending {
    /// Undefined lanes and origin of each data register, in element order.
    pub(crate) data: Vec<(u64, OriginId)>,
}

impl Pending {
    /// Whether the element written from data registers `k..k+n` by `lane` is undefined, and
    /// its origin.
    pub(crate) fn element(&self, k: usize, n: usize, lane: usize) -> Option<OriginId> {
        self.data
            .get(k..(k + n).min(self.data.len()))?
            .iter()
            .find(|(u, _)| u >> lane & 1 != 0)
            .map(|&(_, o)| o)
    }
}

/// Runs before instruction `i` of wave `w` (only while something in the wave is undefined):
/// reports uses of undefined values and carries definedness to the destinations. Out of
/// line: [`GroupCheck::step`], which tests whether it is needed before every instruction, is
/// then a load and a compare in the interpreter's loop (inlined, this function made that test
/// save and restore registers and set up a large frame each time).
#[inline(never)]
pub(crate) fn before(g: &mut GroupCheck, w: &Wave, i: &Inst) {
    let wi = w.id as usize;
    if wi >= g.regs.len() {
        return;
    }
    {
        let r = &mut g.regs[wi];
        r.age += 1;
        if r.age >= 256 {
            r.age = 0;
            if r.clean() {
                r.dirty = false;
                return;
            }
        }
    }
    match i.fmt {
        Fmt::Sop1 | Fmt::Sop2 | Fmt::Sopk | Fmt::Sopc => salu(g, w, i, wi),
        Fmt::Sopp => sopp(g, w, i, wi),
        Fmt::Vop1 | Fmt::Vop2 | Fmt::Vopc | Fmt::Vop3 | Fmt::Vop3p => valu(g, w, i, wi),
        Fmt::Vopd => {
            // Both halves read before either writes.
            let (x, y) = i.vopd_halves();
            let r = &g.regs[wi];
            let (ex, ey) = (valu_effect(r, w, &x), valu_effect(r, w, &y));
            apply(g, w, wi, ex);
            apply(g, w, wi, ey);
        }
        Fmt::Ds | Fmt::Flat | Fmt::Global | Fmt::Scratch | Fmt::Mubuf | Fmt::Smem | Fmt::Mimg => {
            memory(g, w, i, wi)
        }
        Fmt::Unimplemented | Fmt::Invalid => {}
    }
}

/// Reports `what` when lanes `u` (of the active ones) of a value are undefined.
fn use_lanes(g: &GroupCheck, w: &Wave, u: u64, o: OriginId, what: Use) {
    let u = u & w.exec() & w.lane_mask;
    if u != 0 {
        report_use(g, w, o, what);
    }
}

/// SOPP: conditional branches on SCC or VCC.
fn sopp(g: &mut GroupCheck, w: &Wave, i: &Inst, wi: usize) {
    let r = &g.regs[wi];
    match i.op {
        Op::S_CBRANCH_SCC0 | Op::S_CBRANCH_SCC1 if r.scc => report_use(g, w, r.scco, Use::Branch),
        Op::S_CBRANCH_VCCZ | Op::S_CBRANCH_VCCNZ => {
            let (u, o) = r.get_mask(VCC as u16, w);
            // A defined 1 decides "not zero" whatever the rest holds.
            if u != 0 && w.vcc() & !u == 0 {
                report_use(g, w, o, Use::Branch);
            }
        }
        _ => {}
    }
}

/// SALU ops that leave SCC alone.
fn keeps_scc(op: Op) -> bool {
    matches!(
        op,
        Op::S_MOV_B32
            | Op::S_MOV_B64
            | Op::S_CMOV_B32
            | Op::S_CMOV_B64
            | Op::S_MOVK_I32
            | Op::S_CMOVK_I32
            | Op::S_CSELECT_B32
            | Op::S_CSELECT_B64
            | Op::S_MUL_I32
            | Op::S_GETPC_B64
            | Op::S_SETPC_B64
            | Op::S_SWAPPC_B64
            | Op::S_SEXT_I32_I8
            | Op::S_SEXT_I32_I16
            | Op::S_BREV_B32
            | Op::S_BREV_B64
            | Op::S_BFM_B32
            | Op::S_BFM_B64
            | Op::S_GETREG_B32
            | Op::S_SETREG_B32
            | Op::S_SETREG_IMM32_B32
            | Op::S_CALL_B64
    )
}

/// Memcheck's AND: a defined 0 on either side decides the bit.
fn and_u(a: u64, ua: u64, b: u64, ub: u64) -> u64 {
    (ua & ub) | (ua & b & !ub) | (ub & a & !ua)
}

/// Memcheck's OR: a defined 1 on either side decides the bit.
fn or_u(a: u64, ua: u64, b: u64, ub: u64) -> u64 {
    (ua & ub) | (ua & !b & !ub) | (ub & !a & !ua)
}

fn salu(g: &mut GroupCheck, w: &Wave, i: &Inst, wi: usize) {
    let info = i.opcode.info();
    let r = &g.regs[wi];
    let (n0, n1) = (info.src_dwords[0], info.src_dwords[1]);
    let nd = info.dst_dwords;
    let wide = n0 >= 2;
    let mask = if wide { u64::MAX } else { u64::from(u32::MAX) };
    let val = |code: u16, n: u8| -> u64 {
        if n >= 2 {
            w.sread64(code, i.lit, crate::wave::Ty::I64)
        } else {
            u64::from(w.sread(code, i.lit, crate::wave::Ty::B32))
        }
    };
    let (u0, o0) = r.bits_of(i.src[0], n0);
    let (u1, o1) = r.bits_of(i.src[1], n1);
    let o = if u0 != 0 { o0 } else { o1 };
    let (u0, u1) = (u0 & mask, u1 & mask);
    let (a, b) = (val(i.src[0], n0) & mask, val(i.src[1], n1) & mask);
    let exec = w.exec();
    let (ue, oe) = r.get_mask(EXEC as u16, w);
    // (dst undefined bits, SCC undefined, EXEC's new undefined bits when written)
    let mut exec_u: Option<u64> = None;
    let (dst_u, scc_u): (Option<u64>, bool) = match i.op {
        Op::S_MOV_B32 | Op::S_MOV_B64 => (Some(u0), r.scc),
        Op::S_MOVK_I32 | Op::S_GETPC_B64 | Op::S_GETREG_B32 | Op::S_CALL_B64 => (Some(0), r.scc),
        Op::S_CMOV_B32 | Op::S_CMOV_B64 | Op::S_CMOVK_I32 => {
            let (old, _) = r.bits_of(i.dst, nd);
            let u = if r.scc {
                old | u0 | mask
            } else if w.scc {
                u0
            } else {
                old
            };
            (Some(u), r.scc)
        }
        Op::S_CSELECT_B32 | Op::S_CSELECT_B64 => {
            let u = if r.scc {
                mask
            } else if w.scc {
                u0
            } else {
                u1
            };
            (Some(u), r.scc)
        }
        Op::S_SETPC_B64 | Op::S_SWAPPC_B64 => {
            if u0 != 0 {
                report_use(g, w, o0, Use::Jump);
            }
            (
                if i.op == Op::S_SWAPPC_B64 {
                    Some(0)
                } else {
                    None
                },
                g.regs[wi].scc,
            )
        }
        Op::S_AND_B32 | Op::S_AND_B64 => bitwise(and_u(a, u0, b, u1), a & b),
        Op::S_ANDN2_B32 | Op::S_ANDN2_B64 => bitwise(and_u(a, u0, !b & mask, u1), a & !b),
        Op::S_OR_B32 | Op::S_OR_B64 => bitwise(or_u(a, u0, b, u1), a | b),
        Op::S_ORN2_B32 | Op::S_ORN2_B64 => bitwise(or_u(a, u0, !b & mask, u1), a | !b),
        Op::S_AND_SAVEEXEC_B64 | Op::S_AND_SAVEEXEC_B32 => {
            let u = and_u(a, u0, exec & mask, ue & mask);
            exec_u = Some(u);
            (Some(ue & mask), bitwise(u, a & exec).1)
        }
        Op::S_OR_SAVEEXEC_B64 | Op::S_OR_SAVEEXEC_B32 => {
            let u = or_u(a, u0, exec & mask, ue & mask);
            exec_u = Some(u);
            (Some(ue & mask), bitwise(u, a | exec).1)
        }
        Op::S_ANDN2_SAVEEXEC_B64 | Op::S_ANDN2_SAVEEXEC_B32 => {
            let u = and_u(a, u0, !exec & mask, ue & mask);
            exec_u = Some(u);
            (Some(ue & mask), bitwise(u, a & !exec).1)
        }
        _ => {
            let any = u0 | u1 != 0 || (i.fmt == Fmt::Sopk && r.bits_of(i.dst, 1).0 != 0);
            let dst = if i.fmt == Fmt::Sopc {
                None
            } else {
                Some(if any { u64::MAX } else { 0 })
            };
            let scc = if keeps_scc(i.op) { r.scc } else { any };
            (dst, scc)
        }
    };
    let o = if o == 0 { oe } else { o };
    let r = &mut g.regs[wi];
    if let Some(u) = dst_u {
        if i.dst as usize == EXEC || i.dst as usize == EXEC + 1 {
            exec_u = Some(u);
        } else {
            r.set_bits(i.dst, nd.max(1), u, o);
        }
    }
    if !keeps_scc(i.op) || scc_u != r.scc {
        r.scc = scc_u;
        if scc_u {
            r.scco = o;
            r.dirty = true;
        }
    }
    if let Some(u) = exec_u {
        let u = u & w.lane_mask;
        r.set_mask(EXEC as u16, 0, 0, w);
        if u != 0 {
            report_use(g, w, o, Use::Exec);
        }
    }
}

/// A bitwise result's undefined bits and whether its SCC (result != 0) is undefined: a
/// defined 1 bit decides it.
fn bitwise(u: u64, v: u64) -> (Option<u64>, bool) {
    (Some(u), u != 0 && v & !u == 0)
}

/// What a VALU instruction does to the shadow: vector destinations, scalar destinations, and
/// EXEC (reported, not kept).
#[derive(Default)]
struct Effect {
    /// (register code, dwords, lanes written, undefined lanes, origin)
    vdst: Option<(u16, u8, u64, u64, OriginId)>,
    /// `v_swap`'s second destination.
    vdst2: Option<(u16, u8, u64, u64, OriginId)>,
    /// (register code, dwords, undefined bits, origin, lane mask)
    sdst: Vec<(u16, u8, u64, OriginId, bool)>,
    exec: Option<(u64, OriginId)>,
}

/// Writes an effect's destinations; a write of undefined EXEC bits is reported (EXEC itself
/// stays defined, so one cause is reported once).
fn apply(g: &mut GroupCheck, w: &Wave, wi: usize, e: Effect) {
    let r = &mut g.regs[wi];
    for (code, n, lanes, u, o) in e.vdst.into_iter().chain(e.vdst2) {
        for k in 0..u16::from(n.max(1)) {
            r.set_v(code + k, lanes, u, o);
        }
    }
    for &(code, n, u, o, _) in &e.sdst {
        r.set_bits(code, n, u, o);
    }
    if let Some((u, o)) = e.exec {
        r.s[EXEC] = 0;
        r.s[EXEC + 1] = 0;
        if u != 0 {
            report_use(g, w, o, Use::Exec);
        }
    }
}

fn valu(g: &mut GroupCheck, w: &Wave, i: &Inst, wi: usize) {
    let e = valu_effect(&g.regs[wi], w, i);
    apply(g, w, wi, e);
}

/// Carries definedness through a VALU instruction (computed before it runs).
fn valu_effect(r: &Regs, w: &Wave, i: &Inst) -> Effect {
    let info = i.opcode.info();
    let lanes = w.exec() & w.lane_mask;
    let nd = info.dst_dwords;
    let mut e = Effect::default();
    let dst_vec = i.dst >= VGPR;
    // Not modelled: results defined.
    let opaque = w.mode & MODE_GPR_IDX_EN != 0
        || matches!(
            i.op,
            Op::V_MOVRELD_B32 | Op::V_MOVRELS_B32 | Op::V_MOVRELSD_B32
        )
        || is_mai(i);
    if opaque {
        if dst_vec {
            e.vdst = Some((i.dst, nd, lanes, 0, 0));
        }
        return e;
    }
    match i.op {
        Op::V_READLANE_B32 | Op::V_READFIRSTLANE_B32 => {
            let lane = if i.op == Op::V_READFIRSTLANE_B32 {
                (lanes.trailing_zeros() as usize).min(LANES - 1)
            } else {
                (w.sread(i.src[1], i.lit, crate::wave::Ty::B32) as usize) % w.size().max(1)
            };
            let (u, o) = r.get_v(i.src[0]);
            let (us, os) = if i.op == Op::V_READLANE_B32 {
                r.bits_of(i.src[1], 1)
            } else {
                (0, 0)
            };
            let und = u >> lane & 1 != 0 || us != 0;
            e.sdst.push((
                i.dst,
                1,
                if und { u64::MAX } else { 0 },
                if u >> lane & 1 != 0 { o } else { os },
                false,
            ));
            return e;
        }
        Op::V_WRITELANE_B32 => {
            let lane = (w.sread(i.src[1], i.lit, crate::wave::Ty::B32) as usize) % w.size().max(1);
            let (u0, o0) = r.lanes_of(i.src[0], 1);
            let (u1, _) = r.bits_of(i.src[1], 1);
            let bit = 1u64 << lane;
            let u = if u0 != 0 || u1 != 0 { bit } else { 0 };
            e.vdst = Some((i.dst, 1, bit, u, o0));
            return e;
        }
        _ => {}
    }
    let mut u = 0u64;
    let mut o = 0;
    let mut src = [(0u64, 0 as OriginId); 3];
    for k in 0..3 {
        let code = i.src[k];
        if code == NULL {
            continue;
        }
        src[k] = if k == 2 && info.flags & op_flags::MASK_SRC2 != 0 {
            r.get_mask(code, w)
        } else if k == 0 && matches!(i.sub, Sub::Dpp | Sub::Dpp8) {
            // Lanes read other lanes: not modelled.
            (0, 0)
        } else {
            r.lanes_of(code, info.src_dwords[k])
        };
    }
    if matches!(i.op, Op::V_CNDMASK_B32 | Op::V_CNDMASK_B16) {
        let m = w.sread64(i.src[2], 0, crate::wave::Ty::I64) & w.lane_mask;
        let (uc, oc) = src[2];
        u = uc | (m & src[1].0) | (!m & src[0].0);
        o = [oc, src[1].1, src[0].1]
            .into_iter()
            .zip([uc, m & src[1].0, !m & src[0].0])
            .find(|&(_, x)| x & lanes != 0)
            .map_or(0, |(o, _)| o);
    } else {
        for (x, xo) in src {
            if x & lanes != 0 && o == 0 {
                o = xo;
            }
            u |= x;
        }
    }
    if reads_dst(i.opcode) && dst_vec {
        // An accumulator: `v_mac`, `v_fmac`, `v_dot*c` add to their destination.
        let (x, xo) = r.lanes_of(i.dst, nd);
        if x & lanes != 0 && o == 0 {
            o = xo;
        }
        u |= x;
    }
    u &= lanes;
    let cmpx = i.op == Op::V_CMP && (i.imm >> 9) & 1 != 0;
    if info.flags & op_flags::MASK_DST != 0 || i.op == Op::V_CMP {
        // A compare writes every lane of its mask (inactive ones 0, defined).
        if i.dst != NULL && (i.dst as usize) < 128 && !(cmpx && i.dst as usize == EXEC) {
            e.sdst.push((i.dst, 2, u, o, true));
        }
        if cmpx {
            e.exec = Some((u, o));
        }
    } else if dst_vec {
        e.vdst = Some((i.dst, nd, lanes, u, o));
        if i.op == Op::V_SWAP_B32 {
            // Both registers move: src0 gets dst's old definedness.
            let (ud, od) = r.get_v(i.dst);
            e.vdst = Some((i.dst, 1, lanes, src[0].0 & lanes, src[0].1));
            e.vdst2 = Some((i.src[0], 1, lanes, ud & lanes, od));
        }
    } else if (i.dst as usize) < 128 && i.dst != NULL {
        if i.dst as usize == EXEC || i.dst as usize == EXEC + 1 {
            e.exec = Some((u, o));
        } else {
            e.sdst.push((
                i.dst,
                nd.max(1),
                if u != 0 { u64::MAX } else { 0 },
                o,
                false,
            ));
        }
    }
    if info.flags & op_flags::MASK_SDST != 0 && i.sdst != NULL && (i.sdst as usize) < 128 {
        // A carry-out: the active lanes' bits are written.
        let (old, _) = r.get_mask(i.sdst, w);
        e.sdst.push((i.sdst, 2, old & !lanes | u, o, true));
    }
    // Mask destinations are one SGPR in wave32.
    for s in &mut e.sdst {
        if s.4 && w.wave32 {
            s.1 = 1;
        }
    }
    e
}

/// Whether a VALU opcode reads its destination (the accumulators: `mac` in the name, or the
/// `v_dot*c` forms).
fn reads_dst(op: hsaemu_isa::Opcode) -> bool {
    static TABLE: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let all = hsaemu_isa::Opcode::all();
        let mut t = vec![false; all.iter().map(|&o| o as usize + 1).max().unwrap_or(0)];
        for &o in all {
            let m = o.mnemonic();
            t[o as usize] = m.starts_with("v_")
                && (m.contains("mac") || m.starts_with("v_dot") && m.contains("c_"));
        }
        t
    });
    t.get(op as usize).copied().unwrap_or(false)
}

fn is_mai(i: &Inst) -> bool {
    i.opcode.semantics().mai
}

/// A memory instruction: its address operands must be defined; a load's destinations become
/// defined (flush marks the lanes whose memory was never written); a store's data is kept for
/// flush, which reports it stored to global memory or carries it into LDS.
fn memory(g: &mut GroupCheck, w: &Wave, i: &Inst, wi: usize) {
    let info = i.opcode.info();
    let r = &g.regs[wi];
    let m = i.mem;
    let mut addr: [(u16, u8); 4] = [(NULL, 0); 4];
    match i.fmt {
        Fmt::Ds if m.kind != MemKind::Other => addr[0] = (i.src[0], 1),
        Fmt::Flat => addr[0] = (i.src[0], 2),
        Fmt::Global => {
            if i.src[2] == SADDR_OFF || i.src[2] >= 128 {
                addr[0] = (i.src[0], 2);
            } else {
                addr[0] = (i.src[0], 1);
                addr[1] = (i.src[2], 2);
            }
        }
        Fmt::Scratch => {
            addr[0] = (i.src[0], 1);
            if i.src[2] != SADDR_OFF && i.src[2] < 128 {
                addr[1] = (i.src[2], 1);
            }
        }
        Fmt::Mubuf => {
            let n = u8::from(i.has(flag::OFFEN)) + u8::from(i.has(flag::IDXEN));
            if n > 0 {
                addr[0] = (i.src[0], n);
            }
            addr[1] = (i.src[2], 4);
            addr[2] = ((i.ext & 0xffff) as u16, 1);
        }
        Fmt::Smem => {
            addr[0] = (i.src[0], 2);
            if i.src[1] < 128 {
                addr[1] = (i.src[1], 1);
            }
        }
        _ => {}
    }
    for (code, n) in addr {
        if n == 0 || code == NULL {
            continue;
        }
        let (u, o) = r.lanes_of(code, n);
        use_lanes(g, w, u, o, Use::Address);
    }
    let r = &g.regs[wi];
    // Data registers of stores and atomics, in element order.
    g.pending.data.clear();
    if matches!(m.kind, MemKind::Store | MemKind::Atomic) && i.fmt != Fmt::Smem {
        let data = [(i.src[1], info.src_dwords[1])].into_iter().chain(
            (m.two || i.fmt == Fmt::Ds && m.kind == MemKind::Atomic)
                .then_some((i.src[2], info.src_dwords[2])),
        );
        let mut pending = std::mem::take(&mut g.pending.data);
        for (code, n) in data {
            if code < VGPR {
                continue;
            }
            for k in 0..u16::from(n) {
                pending.push(r.get_v(code + k));
            }
        }
        g.pending.data = pending;
    }
    // Destinations are written defined (flush marks what came from unwritten memory).
    let lanes = w.exec() & w.lane_mask;
    let loads = m.kind == MemKind::Load || m.kind == MemKind::Atomic && m.rtn || i.fmt == Fmt::Mimg;
    let writes_dst = loads
        || info.flags & op_flags::LOAD != 0
        || info.dst_dwords > 0 && m.kind == MemKind::Other;
    if writes_dst && !i.has(flag::LDS) {
        let n = info.dst_dwords.max(1) + u8::from(i.has(flag::TFE));
        let r = &mut g.regs[wi];
        if i.dst >= VGPR {
            for k in 0..u16::from(n) {
                r.set_v(i.dst + k, lanes, 0, 0);
            }
        } else if i.fmt == Fmt::Smem && (i.dst as usize) < 128 {
            r.set_bits(i.dst, n, 0, 0);
        }
    }
}

/// Flush: lane `lane`'s load element at destination register offset `k` (`n` registers) came
/// from memory never written: those registers' lanes become undefined.
pub(crate) fn loaded_undefined(
    g: &mut GroupCheck,
    w: &Wave,
    i: &Inst,
    k: u16,
    n: u16,
    lane: u8,
    o: OriginId,
) {
    let wi = w.id as usize;
    let Some(r) = g.regs.get_mut(wi) else { return };
    let bit = 1u64 << lane;
    for j in 0..n {
        r.set_v(i.dst + k + j, bit, bit, o);
    }
}

/// Whether loads of instruction `i` land in registers definedness can follow.
pub(crate) fn tracks_load(i: &Inst) -> bool {
    i.dst >= VGPR && !i.has(flag::LDS) && i.fmt != Fmt::Mimg && i.fmt != Fmt::Smem
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::group::{flush, DispatchCheck, Space};
    use crate::check::{Checker, Checks};
    use crate::gpu::{Functions, Program};
    use hsaemu_isa::Gen;

    fn inst(bytes: &[u8]) -> Inst {
        let words: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        crate::decode::decode(Gen::Gfx90a, &words)
    }

    fn group() -> (&'static Checker, GroupCheck) {
        let checker: &'static Checker = Box::leak(Box::new(Checker::new(Checks {
            uninit: true,
            ..Checks::default()
        })));
        let d = Arc::new(DispatchCheck {
            checker,
            seq: checker.next_dispatch(),
            kernel: "k".into(),
            blit: false,
            entry: 0,
            functions: Arc::new(Functions::default()),
            program: Arc::new(Program::new(Gen::Gfx90a, 0, Vec::new())),
            wg_count: [1, 1, 1],
            waves_per_wg: 1,
            lds_size: 256,
            private_per_lane: 0,
            slot_size: 0,
        });
        let mut g = GroupCheck::new(d);
        g.launch(0, [0, 0, 0], 1);
        (checker, g)
    }

    /// A wave whose v1 lanes 0–3 hold a value loaded (at pc 0x40) from LDS never written.
    fn wave_with_undefined_v1(g: &mut GroupCheck) -> Wave {
        let mut w = Wave::new();
        w.set_exec(u64::MAX);
        w.pc = 0x40;
        let load = inst(&[0x00, 0x80, 0x50, 0xdc, 0x04, 0x00, 0x7f, 0x01]); // global_load_dword v1, v[4:5], off
        let o = g.origins.add(
            0x40,
            0,
            0,
            Read::Lds {
                addr: 0x10,
                size: 4,
            },
        );
        for lane in 0..4 {
            loaded_undefined(g, &w, &load, 0, 1, lane, o);
        }
        w.pc = 0x100;
        w
    }

    fn run(g: &mut GroupCheck, w: &mut Wave, bytes: &[u8]) {
        g.step(w, &inst(bytes));
        w.pc += bytes.len() as u64;
    }

    #[test]
    fn memcheck_and_or_rules() {
        // A defined 0 decides an AND, a defined 1 an OR; undefined meets undefined.
        assert_eq!(and_u(0b00, 0b01, 0b10, 0b00), 0b00);
        assert_eq!(and_u(0b00, 0b01, 0b11, 0b00), 0b01);
        assert_eq!(or_u(0b00, 0b01, 0b01, 0b00), 0b00);
        assert_eq!(or_u(0b00, 0b01, 0b00, 0b00), 0b01);
        assert_eq!(and_u(0, 0b1, 0, 0b1), 0b1);
    }

    #[test]
    fn a_discarded_undefined_value_is_not_reported_and_a_used_one_is_at_its_load() {
        let (checker, mut g) = group();
        let mut w = wave_with_undefined_v1(&mut g);
        // v_cndmask_b32 v2, v1, v0, vcc with VCC all ones selects v0: defined.
        w.s[106] = u32::MAX;
        w.s[107] = u32::MAX;
        run(&mut g, &mut w, &[0x01, 0x01, 0x04, 0x00]);
        assert_eq!(g.regs[0].get_v(VGPR + 2).0, 0);
        // v_add_u32 v3, v1, v0: lanes 0–3 undefined.
        run(&mut g, &mut w, &[0x01, 0x01, 0x06, 0x68]);
        assert_eq!(g.regs[0].get_v(VGPR + 3).0, 0b1111);
        // v_cmp_gt_i32 vcc, v1, v0 then s_and_b64 vcc, vcc, 0: the AND with a defined 0
        // decides every bit, so the branch is defined.
        run(&mut g, &mut w, &[0x01, 0x01, 0x88, 0x7d]);
        assert_eq!(g.regs[0].get_mask(106, &w).0, 0b1111);
        run(&mut g, &mut w, &[0x6a, 0x80, 0xea, 0x86]);
        w.s[106] = 0;
        w.s[107] = 0;
        run(&mut g, &mut w, &[0x02, 0x00, 0x87, 0xbf]);
        // A DPP move reads other lanes: not followed (defined).
        run(
            &mut g,
            &mut w,
            &[0xfa, 0x02, 0x04, 0x7e, 0x01, 0x11, 0x01, 0xff],
        );
        assert_eq!(g.regs[0].get_v(VGPR + 2).0, 0);
        assert_eq!(checker.report(), Vec::<String>::new());

        // The compare again, and now VCCNZ depends on the undefined bits.
        run(&mut g, &mut w, &[0x01, 0x01, 0x88, 0x7d]);
        run(&mut g, &mut w, &[0x02, 0x00, 0x87, 0xbf]);
        let found = checker.report();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("hsaemu: check: uninit in kernel k at pc 0x40: work-group (0,0,0) wave 0 lane 0 reads 4 bytes at LDS offset 0x10")
                && found[0].contains("the value decides a branch at pc 0x120"),
            "{found:?}"
        );
    }

    #[test]
    fn an_undefined_value_stored_to_global_memory_is_reported_and_exec_from_it_too() {
        let (checker, mut g) = group();
        let mut w = wave_with_undefined_v1(&mut g);
        // global_store_dword v[4:5], v1, off: lane 2's data is undefined.
        let store = inst(&[0x00, 0x80, 0x70, 0xdc, 0x04, 0x01, 0x7f, 0x00]);
        g.step(&w, &store);
        g.begin(&w, &store);
        g.note(Space::Global, 0x1000, 4, 9, true);
        flush(&w, &store, &mut g);
        assert_eq!(checker.report(), Vec::<String>::new(), "lane 9 is defined");
        g.step(&w, &store);
        g.begin(&w, &store);
        g.note(Space::Global, 0x1008, 4, 2, true);
        flush(&w, &store, &mut g);
        let found = checker.report();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("the value is stored to global memory at pc 0x100"),
            "{found:?}"
        );

        // v_cmp_gt_i32_e64 s[4:5], v1, v0; s_and_saveexec_b64 s[6:7], s[4:5]: EXEC from it.
        run(
            &mut g,
            &mut w,
            &[0x04, 0x00, 0xc4, 0xd0, 0x01, 0x01, 0x02, 0x00],
        );
        w.s[4] = 0b1111;
        run(&mut g, &mut w, &[0x04, 0x20, 0x86, 0xbe]);
        let found = checker.report();
        assert_eq!(found.len(), 1, "one load, one finding: {found:?}");
        assert!(found[0].ends_with("(2 times)"), "{found:?}");
        assert_eq!(g.regs[0].get_mask(126, &w).0, 0, "EXEC stays defined");
    }
}
