//! DS (LDS) loads, stores and 32-bit integer atomics compiled inline, in the full-EXEC
//! variant of a region (the atomics: `Gen::inline_ds_atomic`); in the general variant the
//! loads and stores go lane by lane over the set EXEC bits (`Gen::inline_ds_partial`), the
//! atomics stay calls of the interpreter's fast path (`lower_mem.rs`).
//!
//! The same instructions as the interpreter's `vmem::ds_dwords` fast path (`b32`, `b64`,
//! `b96`, `b128`, `read2`/`write2` and their `st64` forms, not d16), with the same effect:
//! - **Range.** The highest lane address plus the furthest element end must be within the
//!   work-group's LDS (`CallCtx::lds_len`), checked once (a vector `umax` over the row, then
//!   across the four lanes). Otherwise the region exits before the instruction, as when the
//!   fast path declines, and the interpreter runs it (its fault, or `HSAEMU_LDS_OOB`'s
//!   dropping). No alignment rule applies there: an address in range is read or written at
//!   any byte, little-endian, as the interpreter's byte slices do; the host accesses are
//!   plain (unaligned) loads and stores, as the interpreter's are (LDS is private to the
//!   work-group, whose waves interleave only between scheduler turns).
//! - **Shapes.** Per 4-lane group, the lanes' addresses are *contiguous* (lane j at the
//!   group's first address + j × the lane's bytes) or *uniform* (all equal); when every group
//!   of the row is contiguous each group is one or two 16-byte accesses (two lanes' `b64`
//!   elements de-interleaved by shuffles), when every group is uniform one dword each
//!   (splat, or lane 3's for a store); any other layout of one or two dwords a lane (a
//!   struct's stride, a padded tile's column, lanes reversed) goes lane by lane in a loop
//!   over the lanes, as under a partial EXEC (`ds_lanes`: one loop, not a lane's code
//!   unrolled, which made a matmul region's compile 3–6× longer), and a wider one calls
//!   the interpreter's fast path.
//! - **Order.** Stores go element by element, dword by dword, lanes in ascending order, as
//!   `ds_dwords` does, so where lanes overlap the same lane's value is left: a uniform group
//!   stores its lane 3; contiguous groups may overlap other groups but a later group is a
//!   higher lane; a `b64` store takes the contiguous path only when the whole row is
//!   contiguous (no overlap at all), since the interpreter writes every lane's first dword
//!   before any second one.
//! - `lane_ops` counts the wave's lanes, as the interpreter does under a full EXEC.
//! - **In runs** (`lower.rs`'s `group_major`). A load of one or two dwords per lane whose
//!   address row the region never writes is compiled for the shape the requesting wave's
//!   row had (`predict_ds_shapes`, with the lane-affine facts) and joins a run of lane-wise
//!   instructions: shape and range are tested before the run (`ds_run_checks`; a wrong
//!   shape is a lane-fact miss, and either leaves before the run), each group pass loads
//!   its groups, and a row only `v_fmac_f32`s read is loaded where one reads it
//!   (`ds_lazy`; loaded at the DS instruction and kept, matmul's 32 rows per group were
//!   spilled). Matmul's sixteen `ds_read2_b32`s then cost per group two address loads
//!   and, per row, one LDS load and its store into the `Wave`. A lazy row no instruction
//!   reads after the run before a DS load writes it again (`live.rs`) is not stored
//!   (matmul's loop rows, which the next iteration's loads overwrite).

use super::super::{mf, DsRow, Gen};
use crate::decode::{Atom, Fmt, Inst, Kind, VGPR};
use crate::jit::{CallCtx, Lower};
use crate::ops::Op;
use crate::wave::{reg_index, Wave};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, BlockArg, ConstantData, Endianness, InstBuilder, MemFlags, Value,
};
use std::collections::HashMap;

/// One element of a DS access: byte offset from the lane's address, the first VGPR code of
/// its data (a store's source, a load's destination) and its dwords per lane.
#[derive(Clone, Copy)]
struct Elem {
    off: u32,
    reg: u16,
    dwords: u32,
}

/// The elements of `i` as `ds_dwords` computes them, or None when it is not one of its
/// instructions.
fn elements(i: &Inst) -> Option<Vec<Elem>> {
    let m = i.mem;
    let ok = i.fmt == Fmt::Ds
        && i.op == Op::Mem
        && matches!(m.kind, Kind::Load | Kind::Store)
        && matches!(m.bytes, 4 | 8)
        && m.d16 == 0
        && i.src[0] >= VGPR;
    if !ok {
        return None;
    }
    let dw = u32::from(m.bytes) / 4;
    let store = m.kind == Kind::Store;
    let first = if store { i.src[1] } else { i.dst };
    if m.two {
        let scale = u32::from(m.bytes) * if m.st64 { 64 } else { 1 };
        let second = if store { i.src[2] } else { i.dst + dw as u16 };
        Some(vec![
            Elem {
                off: (i.imm as u32 & 0xff) * scale,
                reg: first,
                dwords: dw,
            },
            Elem {
                off: u32::from(i.offset1) * scale,
                reg: second,
                dwords: dw,
            },
        ])
    } else {
        let off16 = (i.imm as u32 & 0xff) | u32::from(i.offset1) << 8;
        Some(vec![Elem {
            off: off16,
            reg: first,
            dwords: dw * u32::from(m.count),
        }])
    }
}

/// LDS accesses: in range (checked before), no alignment promised.
fn lds_flags() -> MemFlags {
    MemFlags::new().with_notrap()
}

/// How the lanes' addresses are laid out (see the module docs); any other layout is a call.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Contiguous,
    Uniform,
}

/// A DS load a run's group pass may take (`Gen::group_major`): its address row and
/// dwords per lane, when the region was compiled with a shape predicted for that row
/// (`predict_ds_shapes`), and the rows it writes.
pub(in crate::jit) fn run_ds_load(
    i: &Inst,
    pred: &HashMap<(usize, u32), bool>,
) -> Option<super::super::RunDsLoad> {
    let elems = elements(i)?;
    if i.mem.kind != Kind::Load {
        return None;
    }
    let d = elems[0].dwords;
    let arow = reg_index(i.src[0]);
    // Two dwords per lane at most contiguous (`ds_access`'s forms).
    if d > 2 || !pred.contains_key(&(arow, d)) {
        return None;
    }
    let rows = elems
        .iter()
        .flat_map(|e| (0..e.dwords).map(move |k| reg_index(e.reg + k as u16)))
        .collect();
    Some((arow, d, rows))
}

/// The rows DS load `i` writes (None for anything but `ds_dwords`'s loads).
pub(in crate::jit) fn ds_load_rows(i: &Inst) -> Option<Vec<usize>> {
    let elems = elements(i)?;
    (i.mem.kind == Kind::Load).then(|| {
        elems
            .iter()
            .flat_map(|e| (0..e.dwords).map(move |k| reg_index(e.reg + k as u16)))
            .collect()
    })
}

/// The shapes of the DS load address rows of `insts` (a region about to be compiled) as
/// `rows` (the requesting wave's VGPRs, `lanes` of them, under a full EXEC) hold them:
/// (row, dwords per lane) → every group uniform (true) or every group contiguous (false).
/// Only rows no instruction of the region writes (as far as its destination field says),
/// so the wave's values are those the loads will see; a group pass lowers those loads
/// for the predicted shape alone, tested before it (`Gen::ds_run_checks`).
pub(in crate::jit) fn predict_ds_shapes(
    insts: &[(u64, Inst, Lower)],
    rows: &[crate::wave::Row],
    lanes: usize,
) -> HashMap<(usize, u32), bool> {
    let mut written = std::collections::HashSet::new();
    for (_, i, l) in insts {
        if i.dst >= VGPR && i.dst < VGPR + 256 {
            // A memory instruction's data rows, two for anything else (a 64-bit result;
            // a wider one unseen here only makes a miss, which the test before the run
            // catches).
            let m = i.mem;
            let n = match l {
                Lower::Mem if m.two => 2 * usize::from(m.bytes) / 4,
                Lower::Mem => (usize::from(m.bytes) * usize::from(m.count.max(1)) / 4).max(1),
                _ => 2,
            };
            let d = reg_index(i.dst);
            written.extend(d..d + n);
        }
    }
    let mut out = HashMap::new();
    for (_, i, _) in insts {
        let Some(elems) = elements(i) else {
            continue;
        };
        let d = elems[0].dwords;
        let arow = reg_index(i.src[0]);
        if i.mem.kind != Kind::Load || d > 2 || written.contains(&arow) {
            continue;
        }
        let Some(r) = rows.get(arow) else {
            continue;
        };
        let groups = || r[..lanes].chunks_exact(4);
        let uniform = groups().all(|g| g.iter().all(|&x| x == g[0]));
        let contiguous =
            groups().all(|g| (0..4u32).all(|j| g[j as usize] == g[0].wrapping_add(4 * d * j)));
        if uniform || contiguous {
            out.insert((arow, d), uniform);
        }
    }
    out
}

impl Gen<'_> {
    /// Lowers DS load or store `i` at `pc` inline when the region is in its full-EXEC
    /// variant and `i` is one of `ds_dwords`'s instructions; returns false, having emitted
    /// nothing, otherwise (the caller then calls the interpreter's fast path).
    pub(super) fn inline_ds(&mut self, pc: u64, i: &Inst) -> bool {
        if !self.full {
            return self.inline_ds_partial(pc, i);
        }
        if i.fmt == Fmt::Ds && i.mem.kind == Kind::Atomic {
            return self.inline_ds_atomic(pc, i);
        }
        let Some(elems) = elements(i) else {
            return false;
        };
        let store = i.mem.kind == Kind::Store;
        let d = elems[0].dwords;
        let arow = reg_index(i.src[0]);
        // `b64` stores need the whole row contiguous; other contiguous accesses each group,
        // of one or two dwords per lane.
        let whole_row = store && d == 2;
        let key = (arow, d, whole_row);
        let (top, contiguous, uniform) = self.ds_row_known(key);
        let end = elems
            .iter()
            .map(|e| u64::from(e.off) + 4 * u64::from(e.dwords))
            .max()
            .unwrap_or(0);
        // The blocks below are sealed as soon as their predecessors are known, so a
        // register first used after them needs no block parameter (left unsealed to the
        // end, every block collected one per register, then removed one by one: a matmul
        // region compiled 3× longer).
        let base = self.lds_exit_past(top, end, pc);
        let merge = self.b.create_block();
        let (pb, pl) = (self.b.create_block(), self.b.create_block());
        let mut paths = vec![(pl, None), (pb, Some(Shape::Uniform))];
        if let Some(c) = contiguous {
            let pa = self.b.create_block();
            let not_a = self.b.create_block();
            self.b.ins().brif(c, pa, &[], not_a, &[]);
            self.enter(not_a);
            self.b.seal_block(not_a);
            paths.push((pa, Some(Shape::Contiguous)));
        }
        self.b.ins().brif(uniform, pb, &[], pl, &[]);
        for (blk, shape) in paths {
            self.enter(blk);
            self.b.seal_block(blk);
            match shape {
                Some(shape) => {
                    self.ds_access(&elems, store, shape, arow, base);
                    self.count_lanes();
                }
                // Any other shape of one or two dwords a lane (a stride of a struct's
                // size, a padded tile's column): lane by lane, as under a partial EXEC;
                // wider ones the interpreter's fast path (in range: it accepts).
                None if d <= 2 => self.ds_lanes(&elems, store, arow, base),
                None => self.call_path(pc, i, Lower::Mem),
            }
            self.b.ins().jump(merge, &[]);
        }
        self.enter(merge);
        self.b.seal_block(merge);
        true
    }

    /// DS load or store `i` at `pc` under any EXEC (the general variant), as the
    /// interpreter's fast path does it then: the highest *active* lane address plus the
    /// furthest element end checked against the LDS (inactive lanes' addresses are masked
    /// to 0; out of range, the region exits before `i`), then a loop over the set EXEC
    /// bits in ascending order moving dwords between the LDS and the lanes' rows in the
    /// `Wave`. A reduction's last tree steps have a few lanes on: the call of the fast path
    /// cost ~490 host instructions whatever their number. A load takes each lane's
    /// elements in one pass (a lane's address is read before its rows are written, as the
    /// interpreter reads every address first); a store goes element by element, dword by
    /// dword, each a pass over the lanes, as `ds_dwords` does, so overlapping lanes leave
    /// the same value. Returns false, having emitted nothing, for anything else.
    fn inline_ds_partial(&mut self, pc: u64, i: &Inst) -> bool {
        let Some(elems) = elements(i) else {
            return false;
        };
        let store = i.mem.kind == Kind::Store;
        let arow = reg_index(i.src[0]);
        let end = elems
            .iter()
            .map(|e| u64::from(e.off) + 4 * u64::from(e.dwords))
            .max()
            .unwrap_or(0);
        let mut tops = Vec::new();
        for g in 0..self.groups {
            let x = self.vgroup(arow, g);
            let m = self.exec_mask(g);
            tops.push(self.b.ins().band(x, m));
        }
        let top = self.reduce_lanes(&tops, |g, x, y| g.b.ins().umax(x, y));
        let base = self.lds_exit_past(top, end, pc);
        self.ds_lanes(&elems, store, arow, base);
        true
    }

    /// DS access `elems` (a store when `store`) through address row `arow`, its range
    /// checked (`base`: the LDS), as a loop over the set EXEC bits in ascending order moving
    /// dwords between the LDS and the lanes' rows in the `Wave`; counts the lanes.
    fn ds_lanes(&mut self, elems: &[Elem], store: bool, arow: usize, base: Value) {
        let rows: Vec<usize> = elems
            .iter()
            .flat_map(|e| (0..e.dwords).map(move |k| reg_index(e.reg + k as u16)))
            .collect();
        // The loop reads and writes lanes in the `Wave`: rows written on lane-affine facts
        // are stored there first.
        self.row_to_wave(arow);
        for &r in &rows {
            self.row_to_wave(r);
        }
        self.count_lanes();
        let exec = self.exec64();
        let lanes = self.wave_lanes() as i64;
        let exec = self.b.ins().band_imm(exec, lanes);
        if store {
            for e in elems {
                for k in 0..e.dwords {
                    let at = Self::row_offset(reg_index(e.reg + k as u16), 0);
                    let off = (e.off + 4 * k) as i32;
                    self.ds_lane_loop(exec, |g, lane| {
                        let p = g.lds_lane_ptr(arow, lane, base);
                        let x = g.b.ins().load(types::I32, mf(), lane, at);
                        g.b.ins().store(lds_flags(), x, p, off);
                    });
                }
            }
        } else {
            self.ds_lane_loop(exec, |g, lane| {
                let p = g.lds_lane_ptr(arow, lane, base);
                for e in elems {
                    for k in 0..e.dwords {
                        let at = Self::row_offset(reg_index(e.reg + k as u16), 0);
                        let off = (e.off + 4 * k) as i32;
                        let x = g.b.ins().load(types::I32, lds_flags(), p, off);
                        g.b.ins().store(mf(), x, lane, at);
                    }
                }
            });
            for r in rows {
                self.forget_row(r);
            }
        }
    }

    /// Emits `body(lane)` for each set bit of `mask` (an `i64`), in ascending order, as a
    /// loop; `lane` is the `Wave`'s VGPR pointer advanced to that lane (a row's lane at
    /// `row_offset(row, 0)` from it). The code after it goes on in a new block; the SGPR
    /// values stay valid (the loop writes none, and the block before dominates it).
    fn ds_lane_loop(&mut self, mask: Value, mut body: impl FnMut(&mut Self, Value)) {
        let scache = self.scache.clone();
        let (head, blk, after) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(head, types::I64);
        self.b.ins().jump(head, &[BlockArg::Value(mask)]);
        self.enter(head);
        let m = self.b.block_params(head)[0];
        self.b.ins().brif(m, blk, &[], after, &[]);
        self.enter(blk);
        self.b.seal_block(blk);
        let j = self.b.ins().ctz(m);
        let rest = self.b.ins().iadd_imm(m, -1);
        let rest = self.b.ins().band(m, rest);
        let ptr = self.b.func.dfg.value_type(self.ctx);
        let at = self.b.ins().ishl_imm(j, 2);
        let at = if ptr == types::I64 {
            at
        } else {
            self.b.ins().ireduce(ptr, at)
        };
        let lane = self.b.ins().iadd(self.v, at);
        body(self, lane);
        self.b.ins().jump(head, &[BlockArg::Value(rest)]);
        self.b.seal_block(head);
        self.enter(after);
        self.b.seal_block(after);
        self.scache = scache;
    }

    /// Lane `lane`'s (see `ds_lane_loop`) address in row `arow` as a host pointer into the
    /// LDS at `base`.
    fn lds_lane_ptr(&mut self, arow: usize, lane: Value, base: Value) -> Value {
        let ptr = self.b.func.dfg.value_type(self.ctx);
        let a = self
            .b
            .ins()
            .load(types::I32, mf(), lane, Self::row_offset(arow, 0));
        let a = self.b.ins().uextend(ptr, a);
        self.b.ins().iadd(base, a)
    }

    /// [`Self::ds_row_shapes`] of `key` (row, dwords, whole row), kept for the basic block
    /// (`Gen::ds_rows`).
    fn ds_row_known(&mut self, key: (usize, u32, bool)) -> DsRow {
        if let Some(&known) = self.ds_rows.get(&key) {
            return known;
        }
        let known = self.ds_row_shapes(key.0, key.1, key.2);
        self.ds_rows.insert(key, known);
        known
    }

    /// What a DS access needs to know of address row `arow` (`d` dwords per lane, the
    /// whole row contiguous or each group): its highest lane address, whether every group
    /// is contiguous (None for `d` > 2) and whether every group is uniform. One pass over
    /// the row's groups, each used there alone, so a wave64 row's 16 are never all live
    /// (holding them for the range, then extracting each group's first lane to a scalar
    /// and splatting it back for the shapes, spilled most of them: about a third of gfx90a
    /// matmul's region time); the shapes compare each group with its lane 0 broadcast (a
    /// shuffle). [`Self::ds_row_known`] keeps the answer for the basic block: matmul's
    /// sixteen `ds_read2_b32` use two address rows.
    fn ds_row_shapes(&mut self, arow: usize, d: u32, whole_row: bool) -> DsRow {
        // A tile fact's row (`tiles.rs`): from its corners.
        if let Some(known) = self.tile_ds_shapes(arow, d, whole_row) {
            return known;
        }
        let step = 4 * d;
        let steps = self.vconst([0, step, 2 * step, 3 * step]);
        let mut top = None;
        let mut contiguous = None;
        let mut uniform = None;
        let mut h0 = None;
        for g in 0..self.groups {
            let x = self.vgroup(arow, g);
            top = Some(match top {
                Some(acc) => self.b.ins().umax(acc, x),
                None => x,
            });
            let h = self.shuffle32(x, x, [0, 0, 0, 0]);
            let h0 = *h0.get_or_insert(h);
            let u = self.b.ins().icmp(IntCC::Equal, x, h);
            uniform = Some(match uniform {
                Some(acc) => self.b.ins().band(acc, u),
                None => u,
            });
            if d > 2 {
                continue;
            }
            let c = if whole_row {
                let at = (4 * g as u32) * step;
                let s = self.vconst([at, at + step, at + 2 * step, at + 3 * step]);
                let rel = self.b.ins().isub(x, s);
                self.b.ins().icmp(IntCC::Equal, rel, h0)
            } else {
                let rel = self.b.ins().isub(x, steps);
                self.b.ins().icmp(IntCC::Equal, rel, h)
            };
            contiguous = Some(match contiguous {
                Some(acc) => self.b.ins().band(acc, c),
                None => c,
            });
        }
        let top = self.reduce_lanes(&[top.expect("a row has groups")], |g, x, y| {
            g.b.ins().umax(x, y)
        });
        let contiguous = contiguous.map(|c| self.b.ins().vall_true(c));
        let uniform = self.b.ins().vall_true(uniform.expect("a row has groups"));
        (top, contiguous, uniform)
    }

    /// A 32-bit DS atomic of `ds_atomic32`'s (an integer operation or a swap, with or without
    /// return) under a full EXEC: the range checked once as for loads and stores (the highest
    /// lane address + offset + 4 within the LDS, else the region exits before it), then lane
    /// by lane in ascending order a load, the operation and a store (so lanes on the same
    /// dword see each other's results, as in the interpreter), the old values gathered into
    /// the destination. Returns false, having emitted nothing, for anything else.
    fn inline_ds_atomic(&mut self, pc: u64, i: &Inst) -> bool {
        let m = i.mem;
        let vgpr = |c: u16| (VGPR..VGPR + 256).contains(&c);
        let supported = matches!(
            m.atom,
            Atom::Add
                | Atom::Sub
                | Atom::And
                | Atom::Or
                | Atom::Xor
                | Atom::UMin
                | Atom::UMax
                | Atom::SMin
                | Atom::SMax
                | Atom::Swap
        );
        if !supported
            || i.fmt != Fmt::Ds
            || m.bytes != 4
            || m.two
            || i.op != Op::Mem
            || !vgpr(i.src[0])
            || !vgpr(i.src[1])
            || (m.rtn && !vgpr(i.dst))
        {
            return false;
        }
        let off = (i.imm as u32 & 0xff) | u32::from(i.offset1) << 8;
        let a: Vec<Value> = (0..self.groups)
            .map(|g| self.vgroup(reg_index(i.src[0]), g))
            .collect();
        let d: Vec<Value> = (0..self.groups)
            .map(|g| self.vgroup(reg_index(i.src[1]), g))
            .collect();
        let top = self.reduce_lanes(&a, |g, x, y| g.b.ins().umax(x, y));
        let base = self.lds_exit_past(top, u64::from(off) + 4, pc);
        let ptr = self.b.func.dfg.value_type(self.ctx);
        let mut olds = Vec::new();
        for g in 0..self.groups {
            let mut row = self.b.ins().iconst(types::I32, 0);
            row = self.b.ins().splat(types::I32X4, row);
            for j in 0..4u8 {
                let at = self.b.ins().extractlane(a[g], j);
                let at = self.b.ins().uextend(ptr, at);
                let p = self.b.ins().iadd(base, at);
                let old = self.b.ins().load(types::I32, lds_flags(), p, off as i32);
                let x = self.b.ins().extractlane(d[g], j);
                let ins = self.b.ins();
                let new = match m.atom {
                    Atom::Add => ins.iadd(old, x),
                    Atom::Sub => ins.isub(old, x),
                    Atom::And => ins.band(old, x),
                    Atom::Or => ins.bor(old, x),
                    Atom::Xor => ins.bxor(old, x),
                    Atom::UMin => ins.umin(old, x),
                    Atom::UMax => ins.umax(old, x),
                    Atom::SMin => ins.smin(old, x),
                    Atom::SMax => ins.smax(old, x),
                    _ => x, // Swap
                };
                self.b.ins().store(lds_flags(), new, p, off as i32);
                if m.rtn {
                    row = self.b.ins().insertlane(row, old, j);
                }
            }
            olds.push(row);
        }
        if m.rtn {
            let dst = reg_index(i.dst);
            for (g, x) in olds.into_iter().enumerate() {
                self.set_vgroup(dst, g, x);
            }
        }
        self.count_lanes();
        true
    }

    /// The accesses of one shape (the range was checked). Loads go group by group, each
    /// group's elements read before its rows are defined (its address is taken first, so
    /// a destination that is the address row is no matter; nothing else reads VGPRs), so
    /// only one group's values are live (collecting a wave64 row's 32 values of a
    /// `ds_read2` before defining them spilled half of them). Stores go element by
    /// element as `ds_dwords` does (see the module docs).
    fn ds_access(&mut self, elems: &[Elem], store: bool, shape: Shape, arow: usize, base: Value) {
        if store {
            for e in elems {
                // A contiguous group stores its whole element at once, a uniform one dword by
                // dword.
                let parts = if shape == Shape::Uniform { e.dwords } else { 1 };
                for k in 0..parts {
                    for g in 0..self.groups {
                        let p = self.group_ptr(arow, g, base);
                        self.ds_store_group(e, shape, k, g, p);
                    }
                }
            }
            return;
        }
        for g in 0..self.groups {
            let p = self.group_ptr(arow, g, base);
            for (row, x) in self.ds_load_group(elems, shape, p) {
                self.set_vgroup(row, g, x);
            }
        }
    }

    /// One group's loaded rows of a load of shape `shape` whose group address is `p`.
    fn ds_load_group(&mut self, elems: &[Elem], shape: Shape, p: Value) -> Vec<(usize, Value)> {
        let mut loaded: Vec<(usize, Value)> = Vec::new();
        for e in elems {
            let row = |k: u32| reg_index(e.reg + k as u16);
            let off = e.off as i32;
            match shape {
                Shape::Contiguous if e.dwords == 1 => {
                    let x = self.b.ins().load(types::I32X4, lds_flags(), p, off);
                    loaded.push((row(0), x));
                }
                Shape::Contiguous => {
                    // Two dwords per lane: lanes 4g, 4g+1 in `x`, 4g+2, 4g+3 in `y`.
                    let x = self.b.ins().load(types::I32X4, lds_flags(), p, off);
                    let y = self.b.ins().load(types::I32X4, lds_flags(), p, off + 16);
                    let r0 = self.shuffle32(x, y, [0, 2, 4, 6]);
                    let r1 = self.shuffle32(x, y, [1, 3, 5, 7]);
                    loaded.push((row(0), r0));
                    loaded.push((row(1), r1));
                }
                Shape::Uniform => {
                    for k in 0..e.dwords {
                        let off = (e.off + 4 * k) as i32;
                        let x = self.lds_splat(p, off);
                        loaded.push((row(k), x));
                    }
                }
            }
        }
        loaded
    }

    /// Before a run's group passes that hold DS loads `loads` (`run_ds_load`'s, the first
    /// instruction of the run at `pc`): each address row's shape tested against the
    /// prediction and its highest lane address plus the furthest element end against the
    /// LDS, as `inline_ds` does per instruction (the rows are not written before them in the
    /// run, and nothing in it writes the LDS). A wrong shape notes a lane-fact miss
    /// (`CallCtx::affine_missed`: at its limit the region is compiled again without facts
    /// and predictions); either leaves the region before the run, whose instructions the
    /// interpreter then runs (and faults as it always does). Returns the LDS pointer.
    pub(in crate::jit) fn ds_run_checks(&mut self, pc: u64, loads: &[&Inst]) -> Value {
        let mut ends: Vec<(usize, u32, u64)> = Vec::new();
        for i in loads {
            let elems = elements(i).expect("a run's DS load");
            let (d, arow) = (elems[0].dwords, reg_index(i.src[0]));
            let end = elems
                .iter()
                .map(|e| u64::from(e.off) + 4 * u64::from(e.dwords))
                .max()
                .unwrap_or(0);
            match ends.iter_mut().find(|x| (x.0, x.1) == (arow, d)) {
                Some(x) => x.2 = x.2.max(end),
                None => ends.push((arow, d, end)),
            }
        }
        let len = self.lds_len();
        let mut miss = None;
        let mut out = None;
        for (arow, d, end) in ends {
            let key = (arow, d, false);
            let uniform_pred = self.ds_pred[&(arow, d)];
            let kept =
                arow < 64 && self.clobbers >> arow & 1 == 0 && !self.ds_rows.contains_key(&key);
            let (top, ok) = if kept {
                self.ds_kept_shape(arow, d, uniform_pred)
            } else {
                let (top, contiguous, uniform) = self.ds_row_known(key);
                let ok = if uniform_pred {
                    uniform
                } else {
                    contiguous.expect("asked for two dwords or fewer")
                };
                (top, ok)
            };
            let bad = self.b.ins().icmp_imm(IntCC::Equal, ok, 0);
            miss = Some(match miss {
                Some(m) => self.b.ins().bor(m, bad),
                None => bad,
            });
            let top = self.b.ins().uextend(types::I64, top);
            let top = self.b.ins().iadd_imm(top, end as i64);
            let past = self.b.ins().icmp(IntCC::UnsignedGreaterThan, top, len);
            out = Some(match out {
                Some(o) => self.b.ins().bor(o, past),
                None => past,
            });
        }
        let (miss, out) = (miss.expect("a load"), out.expect("a load"));
        // `affine_missed |= miss` (a flag a fact test before may have set).
        let at = std::mem::offset_of!(CallCtx, affine_missed) as i32;
        let old = self.b.ins().load(types::I32, mf(), self.ctx, at);
        let m = self.b.ins().uextend(types::I32, miss);
        let new = self.b.ins().bor(old, m);
        self.b.ins().store(mf(), new, self.ctx, at);
        let leave = self.b.ins().bor(miss, out);
        self.exit_if(leave, pc);
        self.lds_base()
    }

    /// The highest lane address of run DS address row `arow` (one the region never writes)
    /// and whether its groups have the predicted shape (`uniform`, else contiguous for `d`
    /// dwords), as `i32` and `i8`: from `Wave::ds_tops` while `Wave::ds_marks` holds the
    /// row's bit and the entry is for this shape (nothing wrote the row since a check found
    /// it so; see `Wave::tile_marks` for who clears the bit), else from the lanes
    /// (`ds_row_shapes`), the entry then written (shape 0 when not in it) and the bit set.
    fn ds_kept_shape(&mut self, arow: usize, d: u32, uniform: bool) -> (Value, Value) {
        let tag = 1 + 2 * i64::from(d) + i64::from(uniform);
        let (wave, w) = self.wave_ptr();
        let marks_at = w + std::mem::offset_of!(Wave, ds_marks) as i32;
        let entry_at = w + (std::mem::offset_of!(Wave, ds_tops) + 8 * arow) as i32;
        let marks = self.b.ins().load(types::I64, mf(), wave, marks_at);
        let entry = self.b.ins().load(types::I64, mf(), wave, entry_at);
        let bit = self.b.ins().band_imm(marks, 1i64 << arow);
        let marked = self.b.ins().icmp_imm(IntCC::NotEqual, bit, 0);
        let shape = self.b.ins().ushr_imm(entry, 32);
        let same = self.b.ins().icmp_imm(IntCC::Equal, shape, tag);
        let hit = self.b.ins().band(marked, same);
        let top = self.b.ins().ireduce(types::I32, entry);
        let one = self.b.ins().iconst(types::I8, 1);
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(join, types::I32);
        self.b.append_block_param(join, types::I8);
        // The SGPR values stay valid after the join (this block dominates it).
        let scache = self.scache.clone();
        let args = [BlockArg::Value(top), BlockArg::Value(one)];
        self.b.ins().brif(hit, join, &args, slow, &[]);
        self.b.seal_block(slow);
        self.enter(slow);
        let (top, contiguous, all_uniform) = self.ds_row_shapes(arow, d, false);
        let ok = if uniform {
            all_uniform
        } else {
            contiguous.expect("asked for two dwords or fewer")
        };
        let t = self.b.ins().uextend(types::I64, top);
        let e = self.b.ins().bor_imm(t, tag << 32);
        let e = self.b.ins().select(ok, e, t);
        self.b.ins().store(mf(), e, wave, entry_at);
        let marks = self.b.ins().bor_imm(marks, 1i64 << arow);
        self.b.ins().store(mf(), marks, wave, marks_at);
        let args = [BlockArg::Value(top), BlockArg::Value(ok)];
        self.b.ins().jump(join, &args);
        self.b.seal_block(join);
        self.enter(join);
        self.scache = scache;
        let p = self.b.block_params(join);
        (p[0], p[1])
    }

    /// Group `g` of run DS load `i` (checked by `ds_run_checks`, LDS at `base`) in its
    /// predicted shape. Its rows are stored at once, not at the pass's end: a `v_fmac_f32`
    /// chain's recomputation reads its multiplicands back from the `Wave` (kept as values,
    /// 32 per group would be spilled).
    pub(in crate::jit) fn ds_run_load(&mut self, i: &Inst, pos: usize, g: usize, base: Value) {
        let elems = elements(i).expect("a run's DS load");
        let (d, arow) = (elems[0].dwords, reg_index(i.src[0]));
        let shape = if self.ds_pred[&(arow, d)] {
            Shape::Uniform
        } else {
            Shape::Contiguous
        };
        let p = match self.ds_ptrs.get(&arow) {
            Some(&p) => p,
            None => {
                let p = self.group_ptr(arow, g, base);
                self.ds_ptrs.insert(arow, p);
                p
            }
        };
        let uniform = shape == Shape::Uniform;
        // A group this load writes is no longer an earlier load's unstored one (the NaN
        // recomputation of a later chain would load that one again).
        for e in &elems {
            for k in 0..e.dwords {
                let r = reg_index(e.reg + k as u16);
                self.ds_unstored.remove(&(r, g));
                self.ds_overwritten.remove(&(r, g));
            }
        }
        let mut eager = Vec::new();
        for e in &elems {
            // One dword per lane, or a uniform group's dwords one by one: each row may wait
            // for its reader (`lazy_rows`).
            let lazy = (0..e.dwords).all(|k| {
                let r = reg_index(e.reg + k as u16);
                (uniform || e.dwords == 1) && self.lazy_rows.contains(&(pos, r))
            });
            if !lazy {
                eager.push(*e);
                continue;
            }
            for k in 0..e.dwords {
                let r = reg_index(e.reg + k as u16);
                self.ds_lazy
                    .insert((r, g), (p, (e.off + 4 * k) as i32, uniform));
                if self.ds_reloaded.contains(&(pos, r)) {
                    self.ds_overwritten.insert((r, g));
                }
                self.vcache.remove(&(r, g));
                self.unstored.retain(|&u| u != (r, g));
                self.forget_ds_row(r);
                self.aff.remove(&r);
                self.tiles.remove(&r);
            }
        }
        if !eager.is_empty() {
            for (row, x) in self.ds_load_group(&eager, shape, p) {
                self.set_vgroup_now(row, g, x);
            }
        }
    }

    /// Loads lazy DS row group (`r`, `g`) (`Gen::ds_lazy`) from the group address and
    /// offset `at`, stores it into the `Wave` and keeps it for the pass.
    pub(in crate::jit) fn ds_lazy_load(
        &mut self,
        r: usize,
        g: usize,
        at: (Value, i32, bool),
    ) -> Value {
        let x = self.ds_lds_group(at);
        // A row no instruction reads after the run before a DS load writes it again
        // (`live.rs`) stays out of the `Wave` (matmul's 32 rows per group: two of the six
        // instructions per group and `v_fmac_f32`), and so does one a later DS load of the
        // pass writes again, also without liveness (the `Wave` holds that load's value at
        // the pass's end, or where that one is dead after the run an older one). Not
        // before a call (`ds_lazy_flush` takes `run_live` and clears `ds_overwritten`):
        // the `Wave` is current there.
        let dead_after = self
            .run_live
            .is_some_and(|live| !super::super::live::has(&live, r));
        if dead_after || self.ds_overwritten.contains(&(r, g)) {
            self.ds_unstored.insert((r, g), at);
        } else {
            self.b.ins().store(mf(), x, self.v, Self::row_offset(r, g));
        }
        self.vcache.insert((r, g), x);
        x
    }

    /// A lazy DS group's dwords from the LDS (group address, byte offset, uniform).
    pub(in crate::jit) fn ds_lds_group(&mut self, at: (Value, i32, bool)) -> Value {
        let (p, off, uniform) = at;
        if uniform {
            self.lds_splat(p, off)
        } else {
            self.b.ins().load(types::I32X4, lds_flags(), p, off)
        }
    }

    /// At a pass's end, [`Self::ds_lazy_flush`] but for the rows dead after the run
    /// (`live.rs`): nothing reads them, in the pass or after it. The groups loaded and
    /// not stored are all such: those a later load of the pass overwrote left
    /// `ds_unstored` at that load.
    pub(in crate::jit) fn ds_lazy_flush_at_end(&mut self) {
        if let Some(live) = self.run_live {
            self.ds_lazy
                .retain(|&(r, _), _| super::super::live::has(&live, r));
        }
        self.ds_unstored.clear();
        self.ds_overwritten.clear();
        self.ds_lazy_flush();
    }

    /// Loads the lazy DS rows no instruction read (at a pass's end, before a call); one
    /// the pass wrote since is left to its store (`store_unstored`).
    pub(in crate::jit) fn ds_lazy_flush(&mut self) {
        // Before a call every row goes into the `Wave` (at the pass's end the dead ones
        // were dropped first), with those loaded and not stored so far.
        let live = self.run_live.take();
        self.ds_overwritten.clear();
        let mut left: Vec<_> = self.ds_lazy.drain().collect();
        left.sort_by_key(|&(k, _)| k);
        for ((r, g), at) in left {
            if !self.unstored.contains(&(r, g)) {
                self.ds_lazy_load(r, g, at);
            }
        }
        let mut unstored: Vec<_> = self.ds_unstored.drain().collect();
        unstored.sort_by_key(|&(k, _)| k);
        for ((r, g), at) in unstored {
            if !self.unstored.contains(&(r, g)) {
                let x = match self.vcache.get(&(r, g)) {
                    Some(&x) => x,
                    None => self.ds_lds_group(at),
                };
                self.b.ins().store(mf(), x, self.v, Self::row_offset(r, g));
            }
        }
        self.run_live = live;
    }

    /// Group `g`'s first lane address (lane 4g of row `arow`) as a host pointer into the
    /// LDS at `base`. Outside a run's group pass the `Wave` holds every row, so a group not
    /// in a register is read as that one dword (a vector load, a lane extract and a zero
    /// extension were three of the seven instructions of each group of a `ds_read2`).
    fn group_ptr(&mut self, arow: usize, g: usize, base: Value) -> Value {
        let ptr = self.b.func.dfg.value_type(self.ctx);
        let h = match self.vcache.get(&(arow, g)) {
            Some(&x) => self.b.ins().extractlane(x, 0),
            // A row written on lane-affine facts may not be in the `Wave` yet (`affine.rs`).
            None => match self.pending_lane(arow, 4 * g) {
                Some(x) => x,
                None => {
                    debug_assert!(!self.unstored.contains(&(arow, g)), "a row group unstored");
                    // Loaded zero-extended: a `load` then `uextend` was two `movl`s
                    // (gfx1030 matmul's two address rows, in each group of each call).
                    let at = Self::row_offset(arow, g);
                    if ptr == types::I64 {
                        let h = self.b.ins().uload32(mf(), self.v, at);
                        return self.b.ins().iadd(base, h);
                    }
                    self.b.ins().load(types::I32, mf(), self.v, at)
                }
            },
        };
        let h = self.b.ins().uextend(ptr, h);
        self.b.ins().iadd(base, h)
    }

    /// Stores group `g` of element `e` at `p` (its first lane's address): a contiguous
    /// group's whole element (`k` is 0), or a uniform group's dword `k` (lane 3's).
    fn ds_store_group(&mut self, e: &Elem, shape: Shape, k: u32, g: usize, p: Value) {
        let row = |k: u32| reg_index(e.reg + k as u16);
        let off = e.off as i32;
        match shape {
            Shape::Contiguous if e.dwords == 1 => {
                let x = self.vgroup(row(0), g);
                self.b.ins().store(lds_flags(), x, p, off);
            }
            Shape::Contiguous => {
                // Two dwords per lane: lanes 4g, 4g+1 in `x`, 4g+2, 4g+3 in `y`.
                let r0 = self.vgroup(row(0), g);
                let r1 = self.vgroup(row(1), g);
                let x = self.shuffle32(r0, r1, [0, 4, 1, 5]);
                let y = self.shuffle32(r0, r1, [2, 6, 3, 7]);
                self.b.ins().store(lds_flags(), x, p, off);
                self.b.ins().store(lds_flags(), y, p, off + 16);
            }
            Shape::Uniform => {
                let x = self.vgroup(row(k), g);
                let x = self.b.ins().extractlane(x, 3);
                self.b.ins().store(lds_flags(), x, p, off + 4 * k as i32);
            }
        }
    }

    /// The work-group's LDS size (`CallCtx::lds_len`, i64).
    fn lds_len(&mut self) -> Value {
        self.b.ins().load(
            types::I64,
            MemFlags::trusted(),
            self.ctx,
            std::mem::offset_of!(CallCtx, lds_len) as i32,
        )
    }

    /// The work-group's LDS (`CallCtx::lds`, a host pointer).
    fn lds_base(&mut self) -> Value {
        let ptr = self.b.func.dfg.value_type(self.ctx);
        self.b.ins().load(
            ptr,
            MemFlags::trusted(),
            self.ctx,
            std::mem::offset_of!(CallCtx, lds) as i32,
        )
    }

    /// Leaves the region before `i` at `pc` when `top` (i32: the highest lane address)
    /// plus `end` is past the LDS; returns the LDS pointer for the code after.
    fn lds_exit_past(&mut self, top: Value, end: u64, pc: u64) -> Value {
        let top = self.b.ins().uextend(types::I64, top);
        let top = self.b.ins().iadd_imm(top, end as i64);
        let len = self.lds_len();
        let out = self.b.ins().icmp(IntCC::UnsignedGreaterThan, top, len);
        // (`exit_if` seals the block after it.)
        self.exit_if(out, pc);
        self.lds_base()
    }

    /// The LDS dword at `p + off` in four lanes: loaded as an `f32` (the bits unchanged),
    /// so x86 broadcasts it from memory (`vbroadcastss`; as an `i32` it went through a
    /// general register: three instructions).
    fn lds_splat(&mut self, p: Value, off: i32) -> Value {
        let x = self.b.ins().load(types::F32, lds_flags(), p, off);
        let x = self.b.ins().splat(types::F32X4, x);
        self.b.ins().bitcast(
            types::I32X4,
            MemFlags::new().with_endianness(Endianness::Little),
            x,
        )
    }

    /// Lanes `lanes` of the eight `i32` lanes of `x` then `y`.
    pub(in crate::jit) fn shuffle32(&mut self, x: Value, y: Value, lanes: [u8; 4]) -> Value {
        let bytes: Vec<u8> = lanes
            .iter()
            .flat_map(|&l| (0..4).map(move |b| 4 * l + b))
            .collect();
        let mask = self.b.func.dfg.immediates.push(ConstantData::from(bytes));
        let bx = self.b.ins().bitcast(
            types::I8X16,
            MemFlags::new().with_endianness(Endianness::Little),
            x,
        );
        let by = self.b.ins().bitcast(
            types::I8X16,
            MemFlags::new().with_endianness(Endianness::Little),
            y,
        );
        let r = self.b.ins().shuffle(bx, by, mask);
        self.b.ins().bitcast(
            types::I32X4,
            MemFlags::new().with_endianness(Endianness::Little),
            r,
        )
    }
}
