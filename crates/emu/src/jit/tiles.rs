//! Two-dimensional lane-affine rows ("tiles"): rows known to hold `base + sx·(l mod 16) +
//! sy·(l / 16)` in lane `l`, the work-item IDs of a 16-wide work-group and the addresses
//! made from them (a matmul tile: four rows of 16 on wave64, two on wave32). `affine.rs`'s
//! facts describe a row over the whole wave and miss these on every call.
//!
//! - **Prediction.** The requesting wave's rows (`predict_tiles`, in the compile request's
//!   `ds_pred` under dwords 0): a row an instruction `AffOp` covers reads that is in this
//!   shape and not affine over the whole wave (a tile), or one value in every lane, and a
//!   DS address row in this shape (affine over the wave or not). Only when there is such
//!   a tile; `tile_shapes` carries them through the region in address
//!   order as `affine::predict` does.
//! - **The test.** A basic block of the full-EXEC variant that reads a predicted tile
//!   (`tile_plan`) tests at its start every row it reads in a predicted shape: `base` lane
//!   0, `sx` lane 1 minus lane 0, `sy` lane 16 minus lane 0 (run-time values), each group
//!   XOR what they imply (`tile_want`: from the group before or above it), ORed. A miss
//!   runs the general variant's basic block and counts an
//!   affine miss, as `affine.rs`'s test does (at `MISS_LIMIT` the region is compiled again
//!   without facts, and without tiles). Such a block has no `affine.rs` plan.
//! - **The lowering.** `v_mov`, `v_add`, `v_lshlrev_b32`, `v_lshl_add_u32`, `v_add3_u32`
//!   compute `base`, `sx`, `sy` on scalars; `v_add_co`/`v_addc_co` of a uniform value and
//!   `v_lshlrev_b64` of a pair with a uniform high half do when the row does not wrap and
//!   its four corner lanes (the extremes of a function linear in `l mod 16` and `l / 16`)
//!   carry alike (else the region exits before the instruction, an affine miss). The rows
//!   are written at once (not pending). A GLOBAL dword access through a tile with `sx = 4`
//!   checks its range once from the corners (`inline_mem.rs`'s `tile_fact_access`).
//! - **Invalidation.** As `affine.rs`'s facts: a write of the row by anything else
//!   (`set_vgroup`, `forget_row`) or the basic block's end.

use super::affine::{aff_op, rows_written, writes_sgprs, AffOp};
use super::{Bb, DsRow, Gen, Lower, Src};
use crate::decode::{Fmt, Inst, VGPR};
use crate::wave::reg_index;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, InstBuilder, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Lanes per tile row.
pub(super) const ROW: usize = 16;

/// The stride a row pending on a tile has among `affine.rs`'s pending rows (its fact is in
/// `Gen::tile_pending`).
pub(super) const TILE: i64 = i64::MIN;

/// A row's predicted shape: one value in every lane, or a tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Uniform,
    Tile,
}

/// Predicted shapes of rows.
type Kinds = HashMap<usize, Kind>;

/// What an instruction lowered on tiles reads (rows) and writes (rows with their shapes).
type Moves = (Vec<usize>, Vec<(usize, Kind)>);

/// A pending tile's groups as made in a Cranelift block: (the block, the row, its fact's
/// values) and the groups.
pub(super) type TileCache = ((Block, usize, [Value; 3]), Vec<Value>);

/// A tile fact: lane `l` holds `base + sx·(l mod 16) + sy·(l / 16)` (modulo 2^32; `i32`
/// values). `uniform`: known at compile time to be one value (`sx = sy = 0`). `corners`:
/// the four corner lanes' values (`tile_corners`' order) as `i64`s known exact, each in
/// [0, 2^32), so no lane wraps (a passed `v_lshlrev_b64` or `v_add_co_u32` test leaves
/// them; the next such test and a GLOBAL access then need no range test of their own).
#[derive(Clone, Copy)]
pub(super) struct Tile {
    pub base: Value,
    pub sx: Value,
    pub sy: Value,
    pub uniform: bool,
    pub corners: Option<[Value; 4]>,
}

/// A basic block's use of tiles: the rows tested at its start and the instructions
/// lowered on them (region indices).
#[derive(Clone)]
pub(super) struct TilePlan {
    pub tested: BTreeMap<usize, Kind>,
    pub handled: HashSet<usize>,
}

/// The rows `i` (an `AffOp`) reads: the VGPR sources it uses, with the high half of a
/// 64-bit one.
fn rows_read(i: &Inst, op: AffOp) -> Vec<usize> {
    let fields: &[usize] = match op {
        AffOp::Mov => &[0],
        AffOp::Add | AffOp::AddCo | AffOp::AddC | AffOp::Cmp => &[0, 1],
        AffOp::Shl(_) | AffOp::Shl64(_) => &[1],
        AffOp::LshlAdd(_) => &[0, 2],
        AffOp::Add3 | AffOp::Mad64 => &[0, 1, 2],
    };
    let wide = matches!(op, AffOp::Shl64(_) | AffOp::Mad64 | AffOp::Cmp);
    let mut out = Vec::new();
    for &k in fields {
        if (VGPR..VGPR + 256).contains(&i.src[k]) {
            let r = reg_index(i.src[k]);
            out.push(r);
            if wide {
                out.push(r + 1);
            }
        }
    }
    out
}

/// The tiles and uniform rows among the rows `insts` (a region about to be compiled) reads
/// on facts, as `rows` (the requesting wave's VGPRs, `lanes` of them, under a full EXEC)
/// hold them: row → `true` for a tile (not affine over the whole wave), `false` for one
/// value. Empty when there is no tile (the region then compiles as without this).
pub(in crate::jit) fn predict_tiles(
    insts: &[(u64, Inst, Lower)],
    rows: &[crate::wave::Row],
    lanes: usize,
) -> HashMap<usize, bool> {
    let mut out = HashMap::new();
    let mut two_d = false;
    for (_, i, l) in insts {
        let (read, ds) = match aff_op(i, *l) {
            Some(op) => (rows_read(i, op), false),
            None => (ds_address(i, *l).into_iter().collect(), true),
        };
        for r in read {
            let Some(v) = rows.get(r) else {
                continue;
            };
            match observed(&v[..lanes]) {
                Some(Seen::Uniform) => {
                    out.insert(r, false);
                }
                Some(Seen::Tile) => {
                    out.insert(r, true);
                    two_d = true;
                }
                // A DS address affine over the whole wave (matmul's `4·l`) is a tile too:
                // its range from the corners.
                Some(Seen::Line) if ds => {
                    out.insert(r, true);
                }
                _ => {}
            }
        }
    }
    if !two_d {
        out.clear();
    }
    out
}

/// A row's shape in the requesting wave.
enum Seen {
    Uniform,
    /// A tile not affine over the whole wave.
    Tile,
    /// Affine over the whole wave (`base + s·l`, `s` not 0).
    Line,
}

/// The rows an instruction not lowered on tiles writes, for the plan: `affine.rs`'s
/// (conservative: 8 for a memory access), a memory access's own data rows instead (a row
/// planned wrongly only costs a test or a lowering that finds no fact).
pub(super) fn written_by(i: &Inst, l: Lower) -> Vec<usize> {
    let m = i.mem;
    if l != Lower::Mem || !(VGPR..VGPR + 256).contains(&i.dst) {
        return rows_written(i, l);
    }
    let dwords = usize::from(m.bytes) * usize::from(m.count.max(1)) / 4;
    let n = if m.two { 2 * dwords } else { dwords }.max(1);
    let d = reg_index(i.dst);
    (d..d + n).collect()
}

/// Rows 0–63 (bit `r`) an instruction of `region` may write (`written_by`: a memory
/// access's data rows, a vector ALU result's own rows), whose `Wave::tile_marks` its entry
/// clears. Instructions lowered as a call of the interpreter's `step` clear every mark.
pub(super) fn clobbers(region: &[(u64, Inst, Lower)]) -> u64 {
    let rows = region.iter().flat_map(|(_, i, l)| written_by(i, *l));
    rows.filter(|&r| r < 64).fold(0, |m, r| m | 1 << r)
}

/// Rows 0–63 (bit `r`) of `clobbers` whose every write in `region` adds a scalar to the row
/// itself (`v_add_nc_u32` / `v_add_u32 r, s, r`, no modifiers; gfx1030 matmul's `v3`, gfx90a's
/// `v0`), in a region where nothing may write EXEC. Entered with a full EXEC, such a region
/// moves every lane of the row by the same amount, so a row in the tile shape stays in it
/// and its `Wave::tile_marks` bit may stay set; the entry clears it when EXEC is not full.
/// Such a write lowered as a call of the interpreter clears the mark itself (`exec::step`).
pub(super) fn shape_kept(region: &[(u64, Inst, Lower)]) -> u64 {
    let exec = |c: u16| c == 126 || c == 127;
    if region
        .iter()
        .any(|(_, i, l)| super::writes_exec(i, *l) || exec(i.dst) || exec(i.sdst))
    {
        return 0;
    }
    // A source every lane reads the same value of: an SGPR, an inline or literal constant.
    let scalar = |c: u16| matches!(c, 0..=208 | 240..=248 | 255);
    let self_add = |i: &Inst, l: Lower| {
        l == Lower::VAlu(super::VAluOp::Add)
            && i.op == crate::ops::Op::V_ADD_U32
            && (i.abs | i.neg | i.omod) == 0
            && ((i.src[0] == i.dst && scalar(i.src[1])) || (i.src[1] == i.dst && scalar(i.src[0])))
    };
    let mut kept = clobbers(region);
    for (_, i, l) in region {
        if self_add(i, *l) {
            continue;
        }
        for r in written_by(i, *l).into_iter().filter(|&r| r < 64) {
            kept &= !(1 << r);
        }
    }
    kept
}

/// The address row of a DS access.
fn ds_address(i: &Inst, l: Lower) -> Option<usize> {
    (l == Lower::Mem && i.fmt == Fmt::Ds && (VGPR..VGPR + 256).contains(&i.src[0]))
        .then(|| reg_index(i.src[0]))
}

/// `v`'s shape, if any.
fn observed(v: &[u32]) -> Option<Seen> {
    if v.iter().all(|&x| x == v[0]) {
        return Some(Seen::Uniform);
    }
    if v.len() < 2 * ROW {
        return None;
    }
    let sx = v[1].wrapping_sub(v[0]);
    let sy = v[ROW].wrapping_sub(v[0]);
    let at = |l: usize| {
        v[0].wrapping_add(sx.wrapping_mul((l % ROW) as u32))
            .wrapping_add(sy.wrapping_mul((l / ROW) as u32))
    };
    let whole = sy == sx.wrapping_mul(ROW as u32);
    (0..v.len())
        .all(|l| v[l] == at(l))
        .then_some(if whole { Seen::Line } else { Seen::Tile })
}

/// The shape `op` gives its destination rows from its sources' (`None`: not lowered on
/// tiles), and the rows it reads.
fn transfer(op: AffOp, i: &Inst, kinds: &Kinds, carries: &HashSet<usize>) -> Option<Moves> {
    let kind = |k: usize| -> Option<Kind> {
        let code = i.src[k];
        if code >= VGPR {
            kinds.get(&reg_index(code)).copied()
        } else {
            Some(Kind::Uniform)
        }
    };
    let join = |ks: &[Kind]| {
        if ks.contains(&Kind::Tile) {
            Kind::Tile
        } else {
            Kind::Uniform
        }
    };
    // A compare's or a scalar destination: nothing on tiles (and no VGPR row to index).
    if matches!(op, AffOp::Mad64 | AffOp::Cmp) || i.dst < VGPR {
        return None;
    }
    let dst = reg_index(i.dst);
    let reads = rows_read(i, op);
    let writes = match op {
        AffOp::Mov => vec![(dst, kind(0)?)],
        AffOp::Add => vec![(dst, join(&[kind(0)?, kind(1)?]))],
        AffOp::Shl(_) => vec![(dst, kind(1)?)],
        AffOp::LshlAdd(_) => vec![(dst, join(&[kind(0)?, kind(2)?]))],
        AffOp::Add3 => vec![(dst, join(&[kind(0)?, kind(1)?, kind(2)?]))],
        AffOp::AddCo | AffOp::AddC => {
            let (a, b) = (kind(0)?, kind(1)?);
            if a == Kind::Tile && b == Kind::Tile {
                return None;
            }
            if op == AffOp::AddC && !carries.contains(&usize::from(i.src[2])) {
                return None;
            }
            vec![(dst, join(&[a, b]))]
        }
        AffOp::Shl64(_) => {
            let r = reg_index(i.src[1]);
            let lo = *kinds.get(&r)?;
            if *kinds.get(&(r + 1))? != Kind::Uniform {
                return None;
            }
            vec![(dst, lo), (dst + 1, Kind::Uniform)]
        }
        AffOp::Mad64 | AffOp::Cmp => return None,
    };
    Some((reads, writes))
}

/// One instruction's effect on predicted shapes and carry facts; for one lowered on tiles,
/// the rows it read and wrote.
fn apply(i: &Inst, l: Lower, kinds: &mut Kinds, carries: &mut HashSet<usize>) -> Option<Moves> {
    let t = aff_op(i, l).and_then(|op| Some((op, transfer(op, i, kinds, carries)?)));
    let Some((op, (reads, writes))) = t else {
        for r in written_by(i, l) {
            kinds.remove(&r);
        }
        if writes_sgprs(i, l) {
            carries.clear();
        }
        return None;
    };
    for &(r, k) in &writes {
        kinds.insert(r, k);
    }
    if matches!(op, AffOp::AddCo | AffOp::AddC) {
        let d = usize::from(i.sdst);
        carries.retain(|&c| c + 1 < d || c > d + 1);
        if d < 124 {
            carries.insert(d);
        }
    }
    Some((reads, writes))
}

/// The predicted shapes at each basic block start of `region` (`starts`), walking it in
/// address order from the requesting wave's (`pred`, `predict_tiles`).
pub(super) fn tile_shapes(
    region: &[(u64, Inst, Lower)],
    starts: &HashSet<u64>,
    pred: &HashMap<usize, bool>,
) -> HashMap<u64, Kinds> {
    let kinds: Kinds = pred
        .iter()
        .map(|(&r, &t)| (r, if t { Kind::Tile } else { Kind::Uniform }))
        .collect();
    super::affine::walk_starts(region, starts, kinds, |i, l, k, c| {
        apply(i, l, k, c);
    })
}

/// Instructions on tiles a basic block needs before its test pays (the test costs about
/// three rows' arithmetic per tile).
const MIN_HANDLED: usize = 4;

/// The plan for the basic block `insts` (region indices) starting with `kinds`: only when
/// it reads a tile.
pub(super) fn tile_plan(
    region: &[(u64, Inst, Lower)],
    insts: &[usize],
    kinds: &Kinds,
) -> Option<TilePlan> {
    let mut local = kinds.clone();
    let mut carries = HashSet::new();
    let mut written = HashSet::new();
    let mut plan = TilePlan {
        tested: BTreeMap::new(),
        handled: HashSet::new(),
    };
    for &k in insts {
        let (_, i, l) = &region[k];
        let before = local.clone();
        match apply(i, *l, &mut local, &mut carries) {
            Some((reads, writes)) => {
                for r in reads {
                    if !written.contains(&r) {
                        plan.tested.insert(r, before[&r]);
                    }
                }
                written.extend(writes.iter().map(|w| w.0));
                plan.handled.insert(k);
            }
            None => {
                // A DS access's address row: its range from the corners (`tile_ds_shapes`).
                if let Some(r) = ds_address(i, *l).filter(|r| !written.contains(r)) {
                    if let Some(&k) = before.get(&r) {
                        plan.tested.insert(r, k);
                    }
                }
                written.extend(written_by(i, *l));
            }
        }
    }
    let tiles = plan.tested.values().filter(|&&k| k == Kind::Tile).count();
    (tiles > 0 && plan.handled.len() >= MIN_HANDLED && plan.tested.len() <= 6).then_some(plan)
}

impl Gen<'_> {
    /// Plans the basic blocks that read a predicted tile (`Gen::ds_pred` under dwords 0),
    /// in place of their `affine.rs` plans.
    pub(super) fn plan_tiles(
        &mut self,
        region: &[(u64, Inst, Lower)],
        bbs: &BTreeMap<u64, Bb>,
        starts: &HashSet<u64>,
    ) {
        let pred: HashMap<usize, bool> = self
            .ds_pred
            .iter()
            .filter(|((_, d), _)| *d == 0)
            .map(|(&(r, _), &t)| (r, t))
            .collect();
        if pred.is_empty() {
            return;
        }
        let shapes = tile_shapes(region, starts, &pred);
        for (pc, bb) in bbs {
            let Some(plan) = shapes.get(pc).and_then(|k| tile_plan(region, &bb.insts, k)) else {
                continue;
            };
            self.plans.remove(pc);
            self.tile_plans.insert(*pc, plan);
        }
    }

    /// At the start of the full variant's basic block `pc` planned on tiles: its rows
    /// tested (`tile_test`; a miss goes to the general variant's block). `first`: the
    /// region's first block, only the entry reaching it.
    pub(super) fn tiles_at_start(&mut self, pc: u64, first: bool) {
        let Some(plan) = self.tile_plans.get(&pc).cloned() else {
            return;
        };
        super::super::AFFINE_BLOCKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if std::env::var_os("HSAEMU_JIT_DEBUG").is_some() {
            eprintln!(
                "hsaemu-jit: basic block {pc:#x}: rows {:?} tested as 16-lane tiles, {} instructions on them",
                plan.tested,
                plan.handled.len()
            );
        }
        // As `affine.rs`'s test: without the general variant a lazy first basic block
        // leaves as one that does not fit the budget (nothing ran).
        let general = if first && !self.general {
            *self.none.get_or_insert_with(|| self.b.create_block())
        } else {
            self.heads[0][&pc]
        };
        self.tile_test(&plan.tested, general);
        self.handled = plan.handled;
        self.tile_block = true;
    }

    /// The tile fact of row `row` (a GLOBAL address's, `inline_mem.rs`).
    pub(super) fn tile(&self, row: usize) -> Option<Tile> {
        self.tiles.get(&row).copied()
    }

    /// Tests the plan's rows at the start of a basic block (each group against what lanes 0,
    /// 1 and 16 imply); on a miss counts an affine miss and goes to `general`, else records
    /// the facts.
    ///
    /// Rows the region never writes (`Gen::clobbers`), or writes only by adding a scalar
    /// (`shape_kept`), are tested only when their
    /// `Wave::tile_marks` bit is clear, and marked once tested: a mark holds from the test
    /// until something writes the row, which clears it (`exec::step` for the interpreter,
    /// a region's entry for its own rows (`shape_kept` ones only when EXEC is not full),
    /// `Wave::start`). A marked uniform row still has
    /// its lanes 1 and 16 compared with lane 0 (the mark says tile, not uniform).
    pub(super) fn tile_test(&mut self, tested: &BTreeMap<usize, Kind>, general: Block) {
        let kept: u64 = tested
            .keys()
            .filter(|&&r| r < 64 && (self.clobbers & !self.shape_kept) >> r & 1 == 0)
            .fold(0, |m, &r| m | 1 << r);
        let mut facts = Vec::new();
        let mut diff = None;
        // Marked uniform rows' lanes 1 and 16 XOR lane 0 (scalars), ORed.
        let mut sdiff = None;
        for (&row, &kind) in tested {
            let x0 = self.vgroup(row, 0);
            let base = self.b.ins().extractlane(x0, 0);
            let t = if kind == Kind::Uniform {
                let zero = self.b.ins().iconst(types::I32, 0);
                Tile {
                    base,
                    sx: zero,
                    sy: zero,
                    uniform: true,
                    corners: None,
                }
            } else {
                let x1 = self.b.ins().extractlane(x0, 1);
                let sx = self.b.ins().isub(x1, base);
                let xr = self.vgroup(row, ROW / 4);
                let xr = self.b.ins().extractlane(xr, 0);
                let sy = self.b.ins().isub(xr, base);
                Tile {
                    base,
                    sx,
                    sy,
                    uniform: false,
                    corners: None,
                }
            };
            facts.push((row, t));
            if kept >> row & 1 != 0 {
                if kind == Kind::Uniform {
                    let x0 = self.vgroup(row, 0);
                    let x1 = self.b.ins().extractlane(x0, 1);
                    let xr = self.vgroup(row, ROW / 4);
                    let xr = self.b.ins().extractlane(xr, 0);
                    let d1 = self.b.ins().bxor(x1, base);
                    let dr = self.b.ins().bxor(xr, base);
                    let d = self.b.ins().bor(d1, dr);
                    sdiff = Some(match sdiff {
                        None => d,
                        Some(a) => self.b.ins().bor(a, d),
                    });
                }
                continue;
            }
            diff = Some(self.tile_groups_diff(row, t, diff));
        }
        if diff.is_none() && kept == 0 {
            return;
        }
        let (miss, cont) = (self.b.create_block(), self.b.create_block());
        let differ = diff.map(|d| self.b.ins().vany_true(d));
        if kept == 0 {
            let differ = differ.expect("a tested row");
            self.b.ins().brif(differ, miss, &[], cont, &[]);
        } else {
            let (wave, w) = self.wave_ptr();
            let at = w + std::mem::offset_of!(crate::wave::Wave, tile_marks) as i32;
            let marks = self.b.ins().load(types::I64, super::mf(), wave, at);
            let have = self.b.ins().band_imm(marks, kept as i64);
            let marked = self.b.ins().icmp_imm(IntCC::Equal, have, kept as i64);
            let (fast, slow, mark) = (
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
            );
            self.b.ins().brif(marked, fast, &[], slow, &[]);
            self.b.seal_block(fast);
            self.b.seal_block(slow);
            // Marked: the other rows tested, and marked uniform rows' two lanes.
            self.enter(fast);
            let mut d = differ;
            if let Some(s) = sdiff {
                let s = self.b.ins().icmp_imm(IntCC::NotEqual, s, 0);
                d = Some(match d {
                    None => s,
                    Some(a) => self.b.ins().bor(a, s),
                });
            }
            match d {
                Some(d) => self.b.ins().brif(d, miss, &[], cont, &[]),
                None => self.b.ins().jump(cont, &[]),
            };
            // Not marked: every row tested, the kept ones then marked.
            self.enter(slow);
            let mut all = diff;
            for &(row, t) in &facts {
                if kept >> row & 1 != 0 {
                    all = Some(self.tile_groups_diff(row, t, all));
                }
            }
            let all = self.b.ins().vany_true(all.expect("a kept row"));
            self.b.ins().brif(all, miss, &[], mark, &[]);
            self.b.seal_block(mark);
            self.enter(mark);
            let marks = self.b.ins().bor_imm(marks, kept as i64);
            self.b.ins().store(super::mf(), marks, wave, at);
            self.b.ins().jump(cont, &[]);
        }
        self.b.seal_block(miss);
        self.b.seal_block(cont);
        self.enter(miss);
        self.note_affine_miss();
        self.b.ins().jump(general, &[]);
        self.enter(cont);
        for (row, t) in facts {
            self.tiles.insert(row, t);
        }
    }

    /// `diff` ORed with each group of `row` XOR what tile `t` implies for it.
    fn tile_groups_diff(&mut self, row: usize, t: Tile, mut diff: Option<Value>) -> Value {
        let want = self.tile_want(t);
        let mut seen: Vec<Value> = Vec::new();
        for g in 0..self.groups {
            let x = self.vgroup(row, g);
            let w = want(self, g, &seen);
            seen.push(x);
            let d = self.b.ins().bxor(x, w);
            diff = Some(match diff {
                None => d,
                Some(a) => self.b.ins().bor(a, d),
            });
        }
        diff.expect("a group")
    }

    /// What `tile_test` compares group `g` of a row with, given the row's groups before it
    /// (`seen`): a uniform row's base everywhere; for a tile, group 0 against `base + sx·[0,
    /// 1, 2, 3]`, a group that starts a tile row against the group four before plus `sy`,
    /// any other against the one before plus `4·sx`. By induction every lane `l` then holds
    /// `base + sx·(l mod 16) + sy·(l / 16)`, as with the groups of `tile_groups`, for about
    /// half the set-up (one multiplication, not four).
    #[allow(clippy::type_complexity)]
    fn tile_want(&mut self, t: Tile) -> Box<dyn Fn(&mut Self, usize, &[Value]) -> Value> {
        if t.uniform {
            let s = self.splat(t.base);
            return Box::new(move |_, _, _| s);
        }
        let sxs = self.splat(t.sx);
        let c = self.vconst([0, 1, 2, 3]);
        let m = self.b.ins().imul(sxs, c);
        let bs = self.splat(t.base);
        let first = self.b.ins().iadd(bs, m);
        let sx4 = self.b.ins().ishl_imm(t.sx, 2);
        let step = self.splat(sx4);
        let down = self.splat(t.sy);
        let per_row = ROW / 4;
        Box::new(move |g: &mut Self, k: usize, seen: &[Value]| match k {
            0 => first,
            _ if k.is_multiple_of(per_row) => g.b.ins().iadd(seen[k - per_row], down),
            _ => g.b.ins().iadd(seen[k - 1], step),
        })
    }

    /// The lane groups of tile `t`: group `g` is `splat(base + sy·(g / 4)) + sx·(4·(g mod
    /// 4) + [0, 1, 2, 3])`. `shared`: the splats may be shared in the block (not in a block
    /// switched to without `enter`).
    fn tile_groups(&mut self, t: Tile, shared: bool) -> Vec<Value> {
        let splat = |g: &mut Self, x: Value| {
            if shared {
                g.splat(x)
            } else {
                g.b.ins().splat(types::I32X4, x)
            }
        };
        if t.uniform {
            let s = splat(self, t.base);
            return vec![s; self.groups];
        }
        let sxs = splat(self, t.sx);
        let steps: Vec<Value> = (0..ROW as u32 / 4)
            .map(|k| {
                let c = self.vconst([4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3]);
                self.b.ins().imul(sxs, c)
            })
            .collect();
        let mut out = Vec::new();
        let mut start = t.base;
        for r in 0..self.groups / (ROW / 4) {
            if r > 0 {
                start = self.b.ins().iadd(start, t.sy);
            }
            let s = splat(self, start);
            for step in &steps {
                out.push(self.b.ins().iadd(s, *step));
            }
        }
        out
    }

    /// Writes row `dst` as tile `t` and records the fact. The row is pending as
    /// `affine.rs`'s rows on facts are (`write_affine`): its groups are computed where
    /// something reads them (`pending_lanes`) and stored where the `Wave` must hold them;
    /// at the basic block's end not when no way on reads it (`drop_dead_tiles`).
    fn write_tile(&mut self, dst: usize, t: Tile) {
        if t.uniform {
            // One value: `affine.rs`'s stride 0.
            self.write_affine(dst, t.base, 0);
            self.tiles.insert(dst, t);
            return;
        }
        self.unstored_facts.retain(|&(r, _, _)| r != dst);
        self.vcache.retain(|&(r, _), _| r != dst);
        self.forget_ds_row(dst);
        self.aff.remove(&dst);
        self.unstored_facts.push((dst, t.base, TILE));
        self.tile_pending.insert(dst, t);
        self.tiles.insert(dst, t);
    }

    /// Group `g` of pending row `row` (`bs`: its base's splat, `stride` its fact's): a
    /// tile's from `tile_pending`.
    pub(super) fn pending_lanes(&mut self, row: usize, bs: Value, stride: i64, g: usize) -> Value {
        if stride != TILE {
            return self.lanes_at(bs, stride, g);
        }
        let t = self.tile_pending[&row];
        // The tile's groups are made once per Cranelift block (a row stored whole asks for
        // each in turn; not shared across blocks, which need not dominate each other).
        let at = self.b.current_block().expect("a current block");
        let key = (at, row, [t.base, t.sx, t.sy]);
        let groups = match &self.tile_cache {
            Some((k, gs)) if *k == key => gs.clone(),
            _ => {
                let gs = self.tile_groups(t, false);
                self.tile_cache = Some((key, gs.clone()));
                gs
            }
        };
        groups[g]
    }

    /// Lane `lane` of pending tile row `row`, a scalar.
    pub(super) fn tile_lane(&mut self, row: usize, lane: usize) -> Value {
        let t = self.tile_pending[&row];
        let y = self.b.ins().imul_imm(t.sy, (lane / ROW) as i64);
        let x = self.b.ins().imul_imm(t.sx, (lane % ROW) as i64);
        let v = self.b.ins().iadd(t.base, y);
        self.b.ins().iadd(v, x)
    }

    /// What a DS access needs to know of address row `arow` (`inline_lds.rs`'s
    /// `ds_row_shapes`) from its tile fact, without a look at its lanes: the highest lane
    /// address is the largest corner when no corner wraps (else `u32::MAX`, which fails
    /// the range check: the region leaves before the access); every group contiguous when
    /// `sx` is the step (and the whole row when `sy` is 16 steps); every group uniform when `sx` is 0.
    pub(super) fn tile_ds_shapes(&mut self, arow: usize, d: u32, whole_row: bool) -> Option<DsRow> {
        let t = self.tile(arow)?;
        let (c, no_wrap) = self.tile_corners(t);
        let a = self.b.ins().umax(c[0], c[1]);
        let b = self.b.ins().umax(c[2], c[3]);
        let m = self.b.ins().umax(a, b);
        let m = self.b.ins().ireduce(types::I32, m);
        let top = match no_wrap {
            Some(no_wrap) => {
                let all = self.b.ins().iconst(types::I32, -1);
                self.b.ins().select(no_wrap, m, all)
            }
            None => m,
        };
        // Each group lies in one tile row: uniform when `sx` is 0.
        let uniform = self.b.ins().icmp_imm(IntCC::Equal, t.sx, 0);
        let contiguous = (d <= 2).then(|| {
            let step = i64::from(4 * d);
            let c = self.b.ins().icmp_imm(IntCC::Equal, t.sx, step);
            if whole_row {
                let r = self.b.ins().icmp_imm(IntCC::Equal, t.sy, step * ROW as i64);
                self.b.ins().band(c, r)
            } else {
                c
            }
        });
        Some((top, contiguous, uniform))
    }

    /// At the end of a basic block planned on tiles that leaves for `ways` (addresses): the
    /// pending rows no way on reads before writing them (`live.rs`; none known: all read)
    /// are not stored.
    pub(super) fn drop_dead_tiles(&mut self, ways: &[u64]) {
        if ways.is_empty() || !self.tile_block {
            return;
        }
        // In a basic block planned on tiles every pending row is a tile's (uniform ones
        // with `affine.rs`'s stride 0).
        let dead = |g: &Self, r: usize| {
            ways.iter()
                .all(|w| g.live.get(w).is_some_and(|rows| !super::live::has(rows, r)))
        };
        let keep: Vec<_> = self
            .unstored_facts
            .iter()
            .copied()
            .filter(|&(r, _, _)| !dead(self, r))
            .collect();
        self.unstored_facts = keep;
    }

    /// Source `k` as a tile: a scalar (uniform), or a row's fact.
    fn tile_src(&mut self, i: &Inst, k: usize) -> Option<Tile> {
        match self.src(i, k) {
            Src::Uniform(x) => {
                let zero = self.b.ins().iconst(types::I32, 0);
                Some(Tile {
                    base: x,
                    sx: zero,
                    sy: zero,
                    uniform: true,
                    corners: None,
                })
            }
            Src::Row(r) => self.tile(r),
        }
    }

    fn tile_op(&mut self, a: Tile, b: Tile, f: impl Fn(&mut Self, Value, Value) -> Value) -> Tile {
        Tile {
            base: f(self, a.base, b.base),
            sx: if a.uniform && b.uniform {
                a.sx
            } else {
                f(self, a.sx, b.sx)
            },
            sy: if a.uniform && b.uniform {
                a.sy
            } else {
                f(self, a.sy, b.sy)
            },
            uniform: a.uniform && b.uniform,
            corners: None,
        }
    }

    fn tile_add(&mut self, a: Tile, b: Tile) -> Tile {
        self.tile_op(a, b, |g, x, y| g.b.ins().iadd(x, y))
    }

    fn tile_shl(&mut self, a: Tile, k: u32) -> Tile {
        let sh = |g: &mut Self, x: Value| g.b.ins().ishl_imm(x, i64::from(k));
        Tile {
            base: sh(self, a.base),
            sx: if a.uniform { a.sx } else { sh(self, a.sx) },
            sy: if a.uniform { a.sy } else { sh(self, a.sy) },
            uniform: a.uniform,
            corners: None,
        }
    }

    /// `sy` times `rows - 1` (the last tile row's offset from the first); on wave32 (two
    /// rows) `sy` itself: Cranelift 0.126 emits an `imulq $0x1` for the multiply.
    pub(super) fn last_row_step(&mut self, sy: Value, rows: i64) -> Value {
        if rows == 2 {
            sy
        } else {
            self.b.ins().imul_imm(sy, rows - 1)
        }
    }

    /// Tile `t`'s four corner lanes (0, 15, the last row's first and last) as `i64`s
    /// without the 32-bit wrap (`sx`, `sy` as signed), and whether all are within [0,
    /// 2^32), so every lane's value is its own without a wrap: `None` when the fact's
    /// `corners` say so already (they are returned).
    fn tile_corners(&mut self, t: Tile) -> ([Value; 4], Option<Value>) {
        if let Some(c) = t.corners {
            return (c, None);
        }
        let rows = (self.groups / (ROW / 4)) as i64;
        let b0 = self.b.ins().uextend(types::I64, t.base);
        let sx = self.b.ins().sextend(types::I64, t.sx);
        let sy = self.b.ins().sextend(types::I64, t.sy);
        let dx = self.b.ins().imul_imm(sx, ROW as i64 - 1);
        let dy = self.last_row_step(sy, rows);
        let c1 = self.b.ins().iadd(b0, dx);
        let c2 = self.b.ins().iadd(b0, dy);
        let c3 = self.b.ins().iadd(c1, dy);
        let mut ok = None;
        for c in [c1, c2, c3] {
            let in32 =
                self.b
                    .ins()
                    .icmp_imm(IntCC::UnsignedLessThanOrEqual, c, i64::from(u32::MAX));
            ok = Some(match ok {
                None => in32,
                Some(a) => self.b.ins().band(a, in32),
            });
        }
        ([b0, c1, c2, c3], ok)
    }

    /// `x` (an `i64` in [0, 2^33)) modulo 2^32, as an `i64`.
    fn low32(&mut self, x: Value) -> Value {
        let l = self.b.ins().ireduce(types::I32, x);
        self.b.ins().uextend(types::I64, l)
    }

    /// Lowers `i` on tiles when the current basic block has a tile plan (`None` when it has
    /// not: `affine.rs`'s facts then); `Some(false)`: nothing generated (a fact missing).
    pub(super) fn tile_inst(&mut self, pc: u64, i: &Inst, op: AffOp) -> Option<bool> {
        if !self.tile_block {
            return None;
        }
        let dst = reg_index(i.dst);
        let t = match op {
            AffOp::Mov => {
                let Some(a) = self.tile_src(i, 0) else {
                    return Some(false);
                };
                self.count_lanes();
                self.write_tile(dst, a);
                return Some(true);
            }
            AffOp::Add => {
                let (Some(a), Some(b)) = (self.tile_src(i, 0), self.tile_src(i, 1)) else {
                    return Some(false);
                };
                self.tile_add(a, b)
            }
            AffOp::Shl(k) => {
                let Some(a) = self.tile_src(i, 1) else {
                    return Some(false);
                };
                self.tile_shl(a, k)
            }
            AffOp::LshlAdd(k) => {
                let (Some(a), Some(c)) = (self.tile_src(i, 0), self.tile_src(i, 2)) else {
                    return Some(false);
                };
                let a = self.tile_shl(a, k);
                self.tile_add(a, c)
            }
            AffOp::Add3 => {
                let (Some(a), Some(b), Some(c)) = (
                    self.tile_src(i, 0),
                    self.tile_src(i, 1),
                    self.tile_src(i, 2),
                ) else {
                    return Some(false);
                };
                let ab = self.tile_add(a, b);
                self.tile_add(ab, c)
            }
            AffOp::AddCo | AffOp::AddC => return Some(self.tile_add_co(pc, i, op)),
            AffOp::Shl64(k) => return Some(self.tile_shl64(pc, i, k)),
            AffOp::Mad64 | AffOp::Cmp => return Some(false),
        };
        self.count_lanes();
        self.write_tile(dst, t);
        Some(true)
    }

    /// `v_add_co_u32`/`v_addc_co_u32` of a uniform value and a tile: every lane carries
    /// alike when no corner wraps and all four carry alike (the carry grows with the lane's
    /// value, which is linear in the lane's column and row).
    fn tile_add_co(&mut self, pc: u64, i: &Inst, op: AffOp) -> bool {
        let (Some(a), Some(b)) = (self.tile_src(i, 0), self.tile_src(i, 1)) else {
            return false;
        };
        if !a.uniform && !b.uniform {
            return false;
        }
        let cin = if op == AffOp::AddC {
            match self.cfacts.get(&usize::from(i.src[2])) {
                Some(&c) => Some(c),
                None => return false,
            }
        } else {
            None
        };
        let (x, y) = if a.uniform { (a, b) } else { (b, a) };
        let mut xs = self.b.ins().uextend(types::I64, x.base);
        if let Some(c) = cin {
            let c = self.b.ins().uextend(types::I64, c);
            xs = self.b.ins().iadd(xs, c);
        }
        let (corners, mut ok) = if y.uniform {
            let y0 = self.b.ins().uextend(types::I64, y.base);
            ([y0; 4], None)
        } else {
            self.tile_corners(y)
        };
        let sums = corners.map(|c| self.b.ins().iadd(xs, c));
        let c0 = self.b.ins().ushr_imm(sums[0], 32);
        if !y.uniform {
            for &s in &sums[1..] {
                let cc = self.b.ins().ushr_imm(s, 32);
                let same = self.b.ins().icmp(IntCC::Equal, cc, c0);
                ok = Some(match ok {
                    None => same,
                    Some(a) => self.b.ins().band(a, same),
                });
            }
            let ok = ok.expect("three corners compared");
            let bad = self.b.ins().icmp_imm(IntCC::Equal, ok, 0);
            self.miss_exit_if(bad, pc);
        }
        self.count_lanes();
        let base = self.b.ins().ireduce(types::I32, sums[0]);
        // Past the test every corner was in [0, 2^32) and all carried alike: the sums less
        // the carry are the result's corners, exact.
        let corners = (!y.uniform).then(|| sums.map(|s| self.low32(s)));
        let dst = reg_index(i.dst);
        self.write_tile(dst, Tile { base, corners, ..y });
        // The carry-out: every lane's or none. `c0` is 0 or 1 (each sum is below 2^33), so
        // its negation is the mask (as `affine.rs`' carries: one instruction where a test,
        // a select of two constants and the carry fact's own test were five).
        let co = self.b.ins().ineg(c0);
        self.carry_out(i.sdst, co);
        let d = usize::from(i.sdst);
        if d < 124 {
            let c = self.b.ins().ireduce(types::I32, c0);
            self.cfacts.insert(d, c);
        }
        true
    }

    /// `v_lshlrev_b64` by `k` (1–31) of a tile with a uniform high half: every lane's high
    /// half gets the same bits when no corner wraps and all four have the same top `k` bits.
    /// The second decides the first: corner 0 is in [0, 2^32), so its `ushr` by `32 - k`
    /// is below 2^k, and an `i64` corner outside [0, 2^32) (negative: huge as unsigned)
    /// shifts to 2^k or more; `tile_corners`' own range test is not used.
    fn tile_shl64(&mut self, pc: u64, i: &Inst, k: u32) -> bool {
        let r = reg_index(i.src[1]);
        let (Some(lo), Some(hi)) = (self.tile(r), self.tile(r + 1)) else {
            return false;
        };
        if !hi.uniform {
            return false;
        }
        let k64 = i64::from(k);
        let corners = if lo.uniform {
            let y0 = self.b.ins().uextend(types::I64, lo.base);
            [y0; 4]
        } else {
            self.tile_corners(lo).0
        };
        let t0 = self.b.ins().ushr_imm(corners[0], 32 - k64);
        if !lo.uniform {
            let [s1, s2, s3] = [corners[1], corners[2], corners[3]].map(|c| {
                let t = self.b.ins().ushr_imm(c, 32 - k64);
                self.b.ins().icmp(IntCC::Equal, t, t0)
            });
            let ok = self.b.ins().band(s1, s2);
            let ok = self.b.ins().band(ok, s3);
            let bad = self.b.ins().icmp_imm(IntCC::Equal, ok, 0);
            self.miss_exit_if(bad, pc);
        }
        self.count_lanes();
        let mut nlo = self.tile_shl(lo, k);
        // Past the test every corner was in [0, 2^32) with the same top `k` bits: shifted,
        // modulo 2^32, they are the result's corners, exact.
        if !lo.uniform {
            // (A 32-bit shift: x64 zeroes the upper half, so the `uextend` costs nothing.)
            nlo.corners = Some(corners.map(|c| {
                let c = self.b.ins().ireduce(types::I32, c);
                let s = self.b.ins().ishl_imm(c, k64);
                self.b.ins().uextend(types::I64, s)
            }));
        }
        let h = self.b.ins().ishl_imm(hi.base, k64);
        let top = self.b.ins().ireduce(types::I32, t0);
        let nhi = self.b.ins().bor(h, top);
        let dst = reg_index(i.dst);
        self.write_tile(dst, nlo);
        self.write_tile(dst + 1, Tile { base: nhi, ..hi });
        true
    }
}
