//! Lane-affine values: rows known to hold `base + stride·lane` in every lane of the wave
//! (`stride` a compile-time constant, `base` a scalar; stride 0 is one value in every lane),
//! so the address arithmetic of a kernel like vector add runs on scalars.
//!
//! - **Prediction.** `predict` walks the region in address order from the work-item ID
//!   (row 0 `base + lane`, row 1 one value, as a 1D dispatch packs them) through the
//!   instructions `AffOp` covers and records which rows each basic block starts with in
//!   that shape. It is a guess: nothing is assumed that is not tested.
//! - **The test.** A basic block of the full-EXEC variant whose instructions gain from the
//!   facts (`Gen::affine_plan`) starts by testing the rows it reads in a predicted shape
//!   (each lane against lane 0's value plus `stride·lane`: one XOR and OR per group); when
//!   one differs, it runs as the general variant's basic block instead, and the region
//!   counts an affine miss (at `MISS_LIMIT` it is compiled again without facts).
//! - **The lowering.** An `AffOp` instruction whose sources have facts computes its result's
//!   base as a scalar; the row is *pending* (`write_affine`): its groups, `splat(base) +
//!   constant`, are computed where an instruction not lowered on facts reads them and
//!   stored only where the `Wave` must hold them (a call, an exit other than to
//!   `s_endpgm`, the basic block's end); a carry out of adding a uniform value to a row is the same in every
//!   lane when the row does not wrap across the lanes and the first and last lane carry
//!   alike, tested on scalars (a carry-out is then a fact of its SGPRs: all lanes or
//!   none); a 64-bit left shift moves the same bits into every high half when the first
//!   and last lane's top bits agree. When such a test fails (an address range crossing a
//!   4 GiB line, say), the region exits before the instruction, counting an affine miss,
//!   and the interpreter runs it. A GLOBAL access whose address rows are `base + 4·lane`
//!   (and one high half) needs no shape test (`inline_mem.rs`, `consecutive`).
//! - **Invalidation.** A fact lives until its row (or SGPR) is written by anything else
//!   (`set_vgroup`, `forget_row`, `set_sgpr`) or the basic block ends.

use super::{const_operand, Bb, Gen, Lower, Src, VAluOp};
use crate::decode::{Inst, VGPR};
use crate::jit::CallCtx;
use crate::wave::reg_index;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, InstBuilder, MemFlags, Value};
use cranelift_frontend::Variable;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The largest stride tracked (a row's lanes span at most 64 of them).
const MAX_STRIDE: i64 = 1 << 20;

/// Predicted shapes of rows: row → stride.
pub(super) type Shapes = HashMap<usize, i64>;

/// The instructions lowered on facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AffOp {
    /// `v_mov_b32`.
    Mov,
    /// `v_add_u32` / `v_add_nc_u32` (no carry).
    Add,
    /// `v_lshlrev_b32` by a constant.
    Shl(u32),
    /// `v_lshl_add_u32` by a constant (`S0 << k + S2`).
    LshlAdd(u32),
    /// `v_add3_u32`.
    Add3,
    /// `v_add_co_u32` (carry out).
    AddCo,
    /// `v_addc_co_u32` / `v_add_co_ci_u32` (carry in and out).
    AddC,
    /// `v_lshlrev_b64` by a constant 1–31 of a VGPR pair.
    Shl64(u32),
    /// `v_mad_u64_u32` of two scalars and a VGPR pair (the work-item ID as gfx1030's
    /// kernels make it).
    Mad64,
    /// `v_cmp(x)_{lt,le,gt,ge}_u32/u64` of a row (pair) and a uniform value: a prefix or a
    /// suffix of the lanes.
    Cmp,
}

pub(super) fn aff_op(i: &Inst, l: Lower) -> Option<AffOp> {
    match l {
        Lower::VAlu(VAluOp::Mov) => Some(AffOp::Mov),
        Lower::VAlu(VAluOp::Add) => Some(AffOp::Add),
        Lower::VAlu(VAluOp::LshlRev) => const_operand(i, 0).map(|k| AffOp::Shl(k & 31)),
        Lower::VAlu(VAluOp::LshlAdd) => const_operand(i, 1).map(|k| AffOp::LshlAdd(k & 31)),
        Lower::VAlu(VAluOp::Add3) => Some(AffOp::Add3),
        Lower::VAlu(VAluOp::Carry(0)) => Some(AffOp::AddCo),
        Lower::VAlu(VAluOp::Carry(3)) => Some(AffOp::AddC),
        Lower::VAlu(VAluOp::Mad64(false)) if i.src[2] >= VGPR => Some(AffOp::Mad64),
        Lower::VCmp if matches!(i.imm >> 5 & 15, 7 | 8) && matches!(i.imm & 31, 1 | 3 | 4 | 6) => {
            Some(AffOp::Cmp)
        }
        Lower::VAlu(VAluOp::Shift64(0)) if i.src[1] >= VGPR => const_operand(i, 0)
            .map(|k| k & 63)
            .filter(|k| (1..32).contains(k))
            .map(AffOp::Shl64),
        _ => None,
    }
}

/// What an `AffOp` reads and writes in shapes: the rows it reads (with their strides) and
/// the rows it writes, or `None` when its sources have no shape it handles.
pub(super) struct Transfer {
    pub reads: Vec<(usize, i64)>,
    pub writes: Vec<(usize, i64)>,
    /// The SGPR pair its carry-out goes to (a fact when it is a real pair).
    pub carry_out: Option<usize>,
}

/// Operand `k`'s stride: 0 for a scalar, the row's shape for a VGPR.
fn stride_of(i: &Inst, k: usize, shapes: &Shapes) -> Option<(Option<usize>, i64)> {
    let code = i.src[k];
    if code >= VGPR {
        let r = reg_index(code);
        shapes.get(&r).map(|&s| (Some(r), s))
    } else {
        Some((None, 0))
    }
}

fn carry_pair(i: &Inst) -> Option<usize> {
    let d = usize::from(i.sdst);
    (d < 124).then_some(d)
}

/// The shapes `op` makes from `shapes` (and the carry facts `carries`).
pub(super) fn transfer(
    op: AffOp,
    i: &Inst,
    shapes: &Shapes,
    carries: &HashSet<usize>,
) -> Option<Transfer> {
    // The destination row (a compare's is an SGPR).
    let dst = if i.dst >= VGPR { reg_index(i.dst) } else { 0 };
    // The row operands among `xs` (operand, its stride), with their strides.
    let rows = |xs: &[(Option<usize>, i64)]| {
        xs.iter()
            .filter_map(|&(r, s)| r.map(|r| (r, s)))
            .collect::<Vec<_>>()
    };
    let ok = |s: i64| (0..=MAX_STRIDE).contains(&s);
    let t = match op {
        AffOp::Mov => {
            let (r, s) = stride_of(i, 0, shapes)?;
            Transfer {
                reads: rows(&[(r, s)]),
                writes: vec![(dst, s)],
                carry_out: None,
            }
        }
        AffOp::Add | AffOp::AddCo | AffOp::AddC => {
            let (ra, sa) = stride_of(i, 0, shapes)?;
            let (rb, sb) = stride_of(i, 1, shapes)?;
            // One uniform operand: the carries are then tested on scalars.
            if op != AffOp::Add && sa != 0 && sb != 0 {
                return None;
            }
            if op == AffOp::AddC && !carries.contains(&usize::from(i.src[2])) {
                return None;
            }
            Transfer {
                reads: rows(&[(ra, sa), (rb, sb)]),
                writes: vec![(dst, sa + sb)],
                carry_out: if op == AffOp::Add {
                    None
                } else {
                    carry_pair(i)
                },
            }
        }
        AffOp::LshlAdd(k) => {
            let (ra, sa) = stride_of(i, 0, shapes)?;
            let (rc, sc) = stride_of(i, 2, shapes)?;
            Transfer {
                reads: rows(&[(ra, sa), (rc, sc)]),
                writes: vec![(dst, (sa << k) + sc)],
                carry_out: None,
            }
        }
        AffOp::Add3 => {
            let (ra, sa) = stride_of(i, 0, shapes)?;
            let (rb, sb) = stride_of(i, 1, shapes)?;
            let (rc, sc) = stride_of(i, 2, shapes)?;
            Transfer {
                reads: rows(&[(ra, sa), (rb, sb), (rc, sc)]),
                writes: vec![(dst, sa + sb + sc)],
                carry_out: None,
            }
        }
        AffOp::Shl(k) => {
            let (r, s) = stride_of(i, 1, shapes)?;
            Transfer {
                reads: rows(&[(r, s)]),
                writes: vec![(dst, s << k)],
                carry_out: None,
            }
        }
        AffOp::Cmp => {
            let wide = i.imm >> 5 & 15 == 8;
            let side = |k: usize| -> Option<(Vec<(usize, i64)>, i64)> {
                let code = i.src[k];
                if code < VGPR {
                    return Some((Vec::new(), 0));
                }
                let r = reg_index(code);
                let lo = *shapes.get(&r)?;
                if wide && *shapes.get(&(r + 1))? != 0 {
                    return None;
                }
                let rows = if wide {
                    vec![(r, lo), (r + 1, 0)]
                } else {
                    vec![(r, lo)]
                };
                Some((rows, lo))
            };
            let ((ra, sa), (rb, sb)) = (side(0)?, side(1)?);
            if sa != 0 && sb != 0 {
                return None;
            }
            Transfer {
                reads: ra.into_iter().chain(rb).collect(),
                writes: Vec::new(),
                carry_out: None,
            }
        }
        AffOp::Mad64 => {
            let (_, s0) = stride_of(i, 0, shapes)?;
            let (_, s1) = stride_of(i, 1, shapes)?;
            let r = reg_index(i.src[2]);
            let lo = *shapes.get(&r)?;
            if s0 != 0 || s1 != 0 || *shapes.get(&(r + 1))? != 0 {
                return None;
            }
            Transfer {
                reads: vec![(r, lo), (r + 1, 0)],
                writes: vec![(dst, lo), (dst + 1, 0)],
                carry_out: None,
            }
        }
        AffOp::Shl64(k) => {
            let r = reg_index(i.src[1]);
            let lo = *shapes.get(&r)?;
            if *shapes.get(&(r + 1))? != 0 {
                return None;
            }
            Transfer {
                reads: vec![(r, lo), (r + 1, 0)],
                writes: vec![(dst, lo << k), (dst + 1, 0)],
                carry_out: None,
            }
        }
    };
    t.writes.iter().all(|&(_, s)| ok(s)).then_some(t)
}

/// Rows an instruction that is not lowered on facts may write (conservatively).
pub(super) fn rows_written(i: &Inst, l: Lower) -> Vec<usize> {
    if !(VGPR..VGPR + 512).contains(&i.dst) {
        return Vec::new();
    }
    let d = reg_index(i.dst);
    let n = match l {
        Lower::VAlu(VAluOp::Shift64(_) | VAluOp::Mad64(_) | VAluOp::PkF32(_) | VAluOp::F64(_)) => 2,
        Lower::VAlu(_) => 1,
        // A memory access's data: at most 4 dwords, 8 rows for a pair of 64-bit DS values.
        Lower::Mem => 8,
        _ => 0,
    };
    (d..d + n).collect()
}

/// Whether an instruction not lowered on facts may write SGPRs (which ends every carry
/// fact).
pub(super) fn writes_sgprs(i: &Inst, l: Lower) -> bool {
    match l {
        Lower::Nop | Lower::Branch(_) | Lower::Step => false,
        Lower::VAlu(VAluOp::Carry(_) | VAluOp::Mad64(_) | VAluOp::DivScale) => true,
        Lower::VAlu(_) => false,
        Lower::Mem => i.dst < VGPR,
        _ => true,
    }
}

/// Applies a non-affine instruction's writes to predicted shapes and carry facts.
fn kill(i: &Inst, l: Lower, shapes: &mut Shapes, carries: &mut HashSet<usize>) {
    for r in rows_written(i, l) {
        shapes.remove(&r);
    }
    if writes_sgprs(i, l) {
        carries.clear();
    }
}

/// The predicted shapes at each basic block start of `region` (`starts`), walking it in
/// address order from the work-item ID.
pub(super) fn predict(
    region: &[(u64, Inst, Lower)],
    starts: &HashSet<u64>,
) -> HashMap<u64, Shapes> {
    walk_starts(
        region,
        starts,
        HashMap::from([(0, 1), (1, 0)]),
        |i, l, s, c| {
            apply(i, l, s, c);
        },
    )
}

/// The row facts at each basic block start of `region` (`starts`): `apply` run over it in
/// address order from `rows`, with the carry facts beside them. A gap (an instruction the
/// region leaves to the interpreter) forgets everything. `affine.rs`'s shapes and
/// `tiles.rs`'s kinds.
pub(super) fn walk_starts<V: Clone>(
    region: &[(u64, Inst, Lower)],
    starts: &HashSet<u64>,
    mut rows: HashMap<usize, V>,
    mut apply: impl FnMut(&Inst, Lower, &mut HashMap<usize, V>, &mut HashSet<usize>),
) -> HashMap<u64, HashMap<usize, V>> {
    let mut carries = HashSet::new();
    let mut out = HashMap::new();
    let mut next = region.first().map(|r| r.0);
    for (pc, i, l) in region {
        if Some(*pc) != next {
            rows.clear();
            carries.clear();
        }
        next = Some(pc + u64::from(i.size));
        if starts.contains(pc) {
            out.insert(*pc, rows.clone());
        }
        apply(i, *l, &mut rows, &mut carries);
    }
    out
}

/// One instruction's effect on shapes and carry facts; for an `AffOp` whose sources have
/// shapes, what it read and wrote.
fn apply(
    i: &Inst,
    l: Lower,
    shapes: &mut Shapes,
    carries: &mut HashSet<usize>,
) -> Option<Transfer> {
    let Some(t) = aff_op(i, l).and_then(|op| transfer(op, i, shapes, carries)) else {
        kill(i, l, shapes, carries);
        return None;
    };
    for &(r, s) in &t.writes {
        shapes.insert(r, s);
    }
    if matches!(aff_op(i, l), Some(AffOp::Mad64 | AffOp::Cmp)) {
        // Its overflow or lane mask goes to SGPRs.
        carries.clear();
    }
    if matches!(aff_op(i, l), Some(AffOp::AddCo | AffOp::AddC)) {
        // Its carry-out replaces what the pairs overlapping its SGPRs held.
        let d = usize::from(i.sdst);
        carries.retain(|&c| c + 1 < d || c > d + 1);
        carries.extend(t.carry_out);
    }
    Some(t)
}

/// What a way on from a basic block's end does with its pending rows (`pending_at_end`).
pub(super) struct EdgeRows {
    /// The successor's address.
    pub to: u64,
    /// Stored on this edge alone.
    pub stored: Vec<(usize, Value, i64)>,
    /// Taken over pending by the successor's full variant (stored on the way to its
    /// general variant, when a choice of variant comes between).
    pub taken: Vec<(usize, Value, i64)>,
}

/// A basic block's use of facts: the rows to test at its start (by stride) and the
/// instructions (region indices) lowered on facts.
#[derive(Clone)]
pub(super) struct Plan {
    pub tested: BTreeMap<usize, i64>,
    pub handled: HashSet<usize>,
}

/// Lowerings on facts a basic block needs before testing its rows pays (a test costs about
/// one row's arithmetic).
const MIN_HANDLED: usize = 3;

impl Gen<'_> {
    /// The plan for the basic block `insts` (region indices) starting with `shapes`.
    pub(super) fn affine_plan(
        &self,
        region: &[(u64, Inst, Lower)],
        insts: &[usize],
        shapes: &Shapes,
    ) -> Option<Plan> {
        let mut local = shapes.clone();
        let mut carries = HashSet::new();
        let mut written = HashSet::new();
        let mut plan = Plan {
            tested: BTreeMap::new(),
            handled: HashSet::new(),
        };
        for &k in insts {
            let (_, i, l) = &region[k];
            match apply(i, *l, &mut local, &mut carries) {
                Some(t) => {
                    for (r, s) in t.reads {
                        if !written.contains(&r) {
                            plan.tested.insert(r, s);
                        }
                    }
                    written.extend(t.writes.iter().map(|w| w.0));
                    plan.handled.insert(k);
                }
                None => written.extend(rows_written(i, *l)),
            }
        }
        (plan.handled.len() >= MIN_HANDLED && plan.tested.len() <= 4).then_some(plan)
    }

    /// Plans every basic block from the predicted `shapes` at the basic blocks' starts and
    /// declares the variables their facts are handed over in.
    pub(super) fn plan_facts(
        &mut self,
        region: &[(u64, Inst, Lower)],
        bbs: &BTreeMap<u64, Bb>,
        shapes: &HashMap<u64, Shapes>,
    ) {
        for (pc, bb) in bbs {
            let Some(plan) = shapes
                .get(pc)
                .and_then(|s| self.affine_plan(region, &bb.insts, s))
            else {
                continue;
            };
            let ok = self.b.declare_var(types::I8);
            let bases = plan
                .tested
                .keys()
                .map(|&r| (r, self.b.declare_var(types::I32)))
                .collect();
            self.plans.insert(*pc, (plan, ok, bases));
        }
    }

    /// At the end of a basic block that goes on to `to`: whether the facts `to` tests at its
    /// start hold here (all its rows with those strides), and their bases.
    pub(super) fn hand_over_facts(&mut self, to: u64) {
        let Some((plan, ok, bases)) = self.plans.get(&to) else {
            return;
        };
        let (ok, bases) = (*ok, bases.clone());
        let held: Option<Vec<(Variable, Value)>> = plan
            .tested
            .iter()
            .map(|(r, &s)| match self.aff.get(r) {
                Some(&(base, fs)) if fs == s => Some((bases[r], base)),
                _ => None,
            })
            .collect();
        let yes = self.b.ins().iconst(types::I8, i64::from(held.is_some()));
        self.b.def_var(ok, yes);
        for (var, base) in held.into_iter().flatten() {
            self.b.def_var(var, base);
        }
    }

    /// The facts of the basic block at `pc` at its start: handed over by its predecessor,
    /// else tested (`affine_test`; `general` where a test fails). `entry`: the block is the
    /// region's start and only the entry reaches it; on a wave that has run nothing yet,
    /// the ID rows its dispatch set up (`Wave::id_rows`) are then known without a test.
    pub(super) fn facts_at_start(
        &mut self,
        pc: u64,
        tested: &BTreeMap<usize, i64>,
        general: Block,
        entry: bool,
    ) {
        let (ok, bases) = {
            let p = &self.plans[&pc];
            (p.1, p.2.clone())
        };
        let okv = self.b.use_var(ok);
        let (test, join) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(okv, join, &[], test, &[]);
        self.b.seal_block(test);
        self.enter(test);
        // On a fresh wave whose set-up vouched for every row tested (the ID rows), each
        // base is lane 0's value and the test is skipped. Only when those are all the rows
        // tested: two passes and the extra blocks cost gfx1030's vector add more than they
        // saved.
        let vouchable = |(&r, &s): (&usize, &i64)| (r, s) == (0, 1) || (r, s) == (1, 0);
        // For a pair, both waves' set-ups vouched, so B's lane 0 continues A's lanes
        // (`fresh_ids`; in a work-group 32 wide B lies past X's first row: not vouched).
        let fresh_path = entry && !tested.is_empty() && tested.iter().all(vouchable);
        if fresh_path {
            let (known, unknown) = (self.b.create_block(), self.b.create_block());
            let fresh = self.fresh_ids(tested);
            self.b.ins().brif(fresh, known, &[], unknown, &[]);
            self.b.seal_block(known);
            self.b.seal_block(unknown);
            self.enter(known);
            for &r in tested.keys() {
                let x = self
                    .b
                    .ins()
                    .load(types::I32, super::mf(), self.v, Self::row_offset(r, 0));
                self.b.def_var(bases[&r], x);
            }
            self.b.ins().jump(join, &[]);
            self.enter(unknown);
        }
        self.affine_test(tested, general);
        let facts: Vec<(usize, Value)> = self.aff.iter().map(|(&r, &(b, _))| (r, b)).collect();
        for (r, b) in facts {
            if let Some(&v) = bases.get(&r) {
                self.b.def_var(v, b);
            }
        }
        self.b.ins().jump(join, &[]);
        self.b.seal_block(join);
        self.enter(join);
        self.aff.clear();
        // A pair's fresh waves may hold their ID rows in the first lanes alone (`Wave::id_rows`'
        // `ID_ROWS_LAZY_SHIFT`, only where the pair block says so: `lazy_ids`): the rows are
        // pending here, so every exit, call and read before they are written takes them
        // from the facts. On the tested path the `Wave` holds them already (stored again
        // where needed: equal values).
        let lazy = fresh_path && self.pair;
        if lazy {
            self.lazy_ids = self.need_bits(tested);
        }
        for (&r, &s) in tested {
            let base = self.b.use_var(bases[&r]);
            self.aff.insert(r, (base, s));
            // A predecessor may have handed the row over without storing it (`pending_at_end`;
            // not to the region's first basic block, which only the entry reaches).
            if !entry || lazy {
                self.unstored_facts.push((r, base, s));
            }
        }
    }

    /// The `Wave::id_rows` bits that vouch for the ID rows `ids` (row 0 with stride 1, row 1
    /// with stride 0).
    fn need_bits(&self, ids: &BTreeMap<usize, i64>) -> u8 {
        ids.keys().fold(0u8, |m, &r| {
            m | if r == 0 {
                crate::wave::ID_ROW0_LANE
            } else {
                crate::wave::ID_ROW1_UNIFORM
            }
        })
    }

    /// Whether the wave (a pair's both waves) has run no instruction yet and its set-up
    /// vouched for the ID rows `ids` (`Wave::id_rows`; row 0 with stride 1, row 1 with
    /// stride 0), as an `i8`.
    fn fresh_ids(&mut self, ids: &BTreeMap<usize, i64>) -> Value {
        let need = self.need_bits(ids);
        let (wave, w) = self.wave_ptr();
        let ran_at = std::mem::offset_of!(crate::wave::Wave, instructions);
        let rows_at = std::mem::offset_of!(crate::wave::Wave, id_rows);
        let mut ran = self
            .b
            .ins()
            .load(types::I64, super::mf(), wave, w + ran_at as i32);
        let mut rows = self
            .b
            .ins()
            .load(types::I8, super::mf(), wave, w + rows_at as i32);
        if self.pair {
            // Wave B too (its `Wave` fields at their offsets from its scalar file), tested
            // with A's. B's lane 0 is then each row's lane 32 (`base + 32·stride`) without
            // a test: a vouched row 0 starts at the wave's first work-item, a vouched row 1
            // is 0 (`Wave::id_rows`), and B is the wave after A in their work-group.
            let at = super::super::from_s(ran_at);
            let ran_b = self.b.ins().load(types::I64, super::mf(), self.sb, at);
            ran = self.b.ins().bor(ran, ran_b);
            let at = super::super::from_s(rows_at);
            let rows_b = self.b.ins().load(types::I8, super::mf(), self.sb, at);
            rows = self.b.ins().band(rows, rows_b);
        }
        let rows = self.b.ins().band_imm(rows, i64::from(need));
        let vouched = self.b.ins().icmp_imm(IntCC::Equal, rows, i64::from(need));
        let none_ran = self.b.ins().icmp_imm(IntCC::Equal, ran, 0);
        self.b.ins().band(vouched, none_ran)
    }

    /// Tests the plan's rows at the start of a basic block: each lane equal to lane 0's
    /// value plus `stride·lane`. When one is not, counts an affine miss and goes to
    /// `general` (the general variant's same basic block); else records the facts.
    pub(super) fn affine_test(&mut self, tested: &BTreeMap<usize, i64>, general: Block) {
        let mut facts = Vec::new();
        let mut diff = None;
        for (&row, &stride) in tested {
            let x0 = self.vgroup(row, 0);
            let base = self.b.ins().extractlane(x0, 0);
            let bs = self.splat(base);
            for g in 0..self.groups {
                let x = self.vgroup(row, g);
                let want = self.lanes_at(bs, stride, g);
                let d = self.b.ins().bxor(x, want);
                diff = Some(match diff {
                    None => d,
                    Some(a) => self.b.ins().bor(a, d),
                });
            }
            facts.push((row, base, stride));
        }
        let Some(diff) = diff else {
            return;
        };
        let differ = self.b.ins().vany_true(diff);
        let (miss, cont) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(differ, miss, &[], cont, &[]);
        self.b.seal_block(miss);
        self.b.seal_block(cont);
        self.enter(miss);
        self.note_affine_miss();
        self.b.ins().jump(general, &[]);
        self.enter(cont);
        for (row, base, stride) in facts {
            self.aff.insert(row, (base, stride));
        }
    }

    /// `splat(base) + stride·lane` for lanes 4g..4g+3 (`bs` the splat).
    pub(super) fn lanes_at(&mut self, bs: Value, stride: i64, g: usize) -> Value {
        if stride == 0 {
            return bs;
        }
        let l = |j: usize| ((4 * g + j) as i64 * stride) as u32;
        let c = self.vconst([l(0), l(1), l(2), l(3)]);
        self.b.ins().iadd(bs, c)
    }

    pub(super) fn note_affine_miss(&mut self) {
        let one = self.b.ins().iconst(types::I32, 1);
        let at = std::mem::offset_of!(CallCtx, affine_missed) as i32;
        self.b.ins().store(MemFlags::trusted(), one, self.ctx, at);
    }

    /// Leaves the function before the instruction at `pc` when `cond` holds, counting an
    /// affine miss (`miss_exit_if`: the exit's PC and count made on the way out, not on the
    /// path that goes on).
    pub(super) fn affine_exit_if(&mut self, cond: Value, pc: u64) {
        self.miss_exit_if(cond, pc);
    }

    /// Writes row `dst` as `base + stride·lane` in every lane and records the fact. The row
    /// is *pending*: not stored in the `Wave` until something needs it there (a call, an
    /// exit other than to `s_endpgm`, the basic block's end; `store_facts`,
    /// `store_facts_for_exit`, `row_to_wave`); the generator's reads of it compute its
    /// lanes from the fact (`pending_group`, `pending_lane`).
    pub(super) fn write_affine(&mut self, dst: usize, base: Value, stride: i64) {
        self.unstored_facts.retain(|&(r, _, _)| r != dst);
        self.vcache.retain(|&(r, _), _| r != dst);
        self.forget_ds_row(dst);
        self.unstored_facts.push((dst, base, stride));
        self.aff.insert(dst, (base, stride));
    }

    /// Whether row `row` is pending (written on facts, not yet stored).
    pub(super) fn pending(&self, row: usize) -> Option<(Value, i64)> {
        self.unstored_facts
            .iter()
            .find(|p| p.0 == row)
            .map(|&(_, b, s)| (b, s))
    }

    /// Lanes 4g..4g+3 of row `row` from its fact when it is pending (`vgroup`, and every
    /// other read of a row that the `Wave` may not hold yet). Also where another path of
    /// the instruction being generated wrote the group (a memory access's inline path,
    /// generated before its call path): on the current path, a group the instruction
    /// wrote is read from the block's values (`vcache`; no lowering reads its own result
    /// after a block change). `cached`: the splat may be shared in the block (not in a
    /// block switched to without `enter`).
    pub(super) fn pending_group(&mut self, row: usize, g: usize, cached: bool) -> Option<Value> {
        let (base, stride) = self.pending(row)?;
        let bs = if cached {
            self.splat(base)
        } else {
            self.b.ins().splat(types::I32X4, base)
        };
        Some(self.pending_lanes(row, bs, stride, g))
    }

    /// Lane `lane` of a pending row (as `pending_group`), a scalar.
    pub(super) fn pending_lane(&mut self, row: usize, lane: usize) -> Option<Value> {
        let (base, stride) = self.pending(row)?;
        if stride == super::tiles::TILE {
            return Some(self.tile_lane(row, lane));
        }
        Some(self.b.ins().iadd_imm(base, stride * lane as i64))
    }

    /// Notes that the instruction being generated writes group `g` of row `row`.
    pub(super) fn note_written(&mut self, row: usize, g: usize) {
        if self.pending(row).is_some() {
            self.written_now.insert((row, g));
        }
    }

    /// After an instruction (or a run's group passes): the pending rows it wrote are no
    /// longer pending (each path it continues on left them whole in the `Wave`); groups it
    /// did not write are stored from the fact first.
    pub(super) fn settle_written(&mut self) {
        if self.written_now.is_empty() {
            return;
        }
        let written = std::mem::take(&mut self.written_now);
        let rows: Vec<(usize, Value, i64)> = self
            .unstored_facts
            .iter()
            .copied()
            .filter(|p| (0..self.groups).any(|g| written.contains(&(p.0, g))))
            .collect();
        for (row, base, stride) in rows {
            let bs = self.splat(base);
            for g in (0..self.groups).filter(|&g| !written.contains(&(row, g))) {
                let x = self.pending_lanes(row, bs, stride, g);
                let (v, at) = self.group_at(row, g);
                self.b.ins().store(super::mf(), x, v, at);
            }
            self.unstored_facts.retain(|p| p.0 != row);
        }
    }

    /// Stores the pending rows, so the `Wave` (and the block's row values) are current: at
    /// a basic block's end that does not only leave for an `s_endpgm`.
    pub(super) fn store_facts(&mut self) {
        debug_assert!(self.written_now.is_empty());
        for (row, base, stride) in std::mem::take(&mut self.unstored_facts) {
            let bs = self.splat(base);
            for g in 0..self.groups {
                let x = self.pending_lanes(row, bs, stride, g);
                self.vcache.insert((row, g), x);
                let (v, at) = self.group_at(row, g);
                self.b.ins().store(super::mf(), x, v, at);
            }
        }
    }

    /// On a path that leaves the function or calls into the interpreter: stores every
    /// pending row whole (the path that goes on keeps them pending). On such a path the
    /// instruction being generated has not run, so no group is its own.
    pub(super) fn store_facts_for_exit(&mut self) {
        for (row, base, stride) in self.unstored_facts.clone() {
            self.store_pending_row(row, base, stride);
        }
        if let Some(due) = self.carry_due {
            self.store_mask(due);
        }
    }

    /// The carry-out mask `co` of an instruction on facts (`v_add_co_u32`,
    /// `v_add_co_ci_u32`) to SGPR pair `code`. Under a full EXEC it is held back
    /// (`carry_due`): address arithmetic chains these, each carry read only as the next
    /// one's carry-in (from `cfacts`) and then overwritten, so only the last one needs
    /// storing, and that one only where something else may read it (`carry_before`, an exit
    /// of an instruction on facts, the basic block's end unless it leaves for an
    /// `s_endpgm` alone). Not a pair some instruction reads unnamed (the trap,
    /// FLAT_SCRATCH and XNACK SGPRs, M0): those are stored at once.
    pub(super) fn carry_out(&mut self, code: u16, co: Value) {
        if !self.full || !(code < 100 || code == crate::decode::VCC) {
            self.merge_mask(code, co);
            return;
        }
        if self.carry_due.is_some_and(|(c, _)| c != code) {
            self.store_carry();
        }
        // What the store does to the carry facts (`set_sgpr`): those overlapping end.
        let d = usize::from(code);
        self.cfacts.retain(|&c, _| c + 1 < d || c > d + 1);
        self.carry_due = Some((code, co));
    }

    /// Stores the held-back carry-out (`carry_out`) here and forgets it.
    pub(super) fn store_carry(&mut self) {
        if let Some(due) = self.carry_due.take() {
            self.store_mask(due);
        }
    }

    /// Stores carry-out mask `co` to SGPR pair `code` (`merge_mask`), its carry fact kept.
    fn store_mask(&mut self, (code, co): (u16, Value)) {
        let d = usize::from(code);
        let fact = self.cfacts.get(&d).copied();
        self.merge_mask(code, co);
        if let Some(c) = fact {
            self.cfacts.insert(d, c);
        }
    }

    /// Before instruction `k` (`i`, `l`) of the basic block: stores the held-back carry-out
    /// unless `i` is an instruction on facts naming neither SGPR of its pair (a carry-in
    /// of a `v_add_co_ci_u32` on facts is read from `cfacts`, its carry-out replaces the
    /// held one). Held across GLOBAL loads and waits too (their exits and calls store it)
    /// it cost CPU: fewer host instructions in vector add, more spills in matmul, and the
    /// dispatch no faster in either (docs/notes/ci-time.md, "Round 49").
    pub(super) fn carry_before(&mut self, k: usize, i: &Inst, l: Lower) {
        let Some((code, _)) = self.carry_due else {
            return;
        };
        let op = if self.full && self.handled.contains(&k) {
            aff_op(i, l)
        } else {
            None
        };
        // An operand naming the pair (a 64-bit one may start just below it).
        let near = |c: u16| (code.saturating_sub(1)..=code + 1).contains(&c);
        let carry_in = op == Some(AffOp::AddC) && i.src[2] == code;
        let named = [i.dst, i.src[0], i.src[1]].into_iter().any(near)
            || near(i.src[2]) && !carry_in
            || near(i.sdst) && !matches!(op, Some(AffOp::AddCo | AffOp::AddC));
        if op.is_none() || named {
            self.store_carry();
        }
    }

    /// Stores pending row `row` (fact `base`, `stride`) whole, on the current path only.
    pub(super) fn store_pending_row(&mut self, row: usize, base: Value, stride: i64) {
        let bs = self.b.ins().splat(types::I32X4, base);
        for g in 0..self.groups {
            let x = self.pending_lanes(row, bs, stride, g);
            let (v, at) = self.group_at(row, g);
            self.b.ins().store(super::mf(), x, v, at);
        }
    }

    /// At a basic block's end, what each way on (to `successors`, in order; `heads` the
    /// variant's, the full one's when `full`) does with the pending rows: an exit to an
    /// `s_endpgm` leaves them, a basic block of the full variant planned on facts this one
    /// hands it takes over those it tests (pending at its start: `facts_at_start`), any
    /// other stores them. Rows every way on stores are stored here; the others on their
    /// edges (`stored`), and those taken over on the way to a variant choice's general
    /// arm (`taken`).
    pub(super) fn pending_at_end(
        &mut self,
        successors: &[u64],
        full: bool,
        heads: &HashMap<u64, Block>,
    ) -> Vec<EdgeRows> {
        // The held-back carry-out: not stored where every way on leaves for an `s_endpgm`.
        match self.ends_only(successors, heads) {
            true => self.carry_due = None,
            false => self.store_carry(),
        }
        if successors.is_empty() {
            self.store_facts();
            return Vec::new();
        }
        let pending = self.unstored_facts.clone();
        // Per way on, the rows it takes over (`None`: all).
        let takes: Vec<Option<Vec<usize>>> = successors
            .iter()
            .map(|&to| {
                if !heads.contains_key(&to) {
                    return (!self.ends.contains(&to)).then(Vec::new);
                }
                let Some((plan, _, _)) = self.plans.get(&to).filter(|_| full && !self.shared(to))
                else {
                    return Some(Vec::new());
                };
                let holds = |r: &usize, s: i64| self.aff.get(r).is_some_and(|f| f.1 == s);
                if !plan.tested.iter().all(|(r, &s)| holds(r, s)) {
                    return Some(Vec::new());
                }
                let taken = pending.iter().filter(|&&(r, b, s)| {
                    plan.tested.get(&r) == Some(&s) && self.aff.get(&r) == Some(&(b, s))
                });
                Some(taken.map(|p| p.0).collect())
            })
            .collect();
        let needs = |t: &Option<Vec<usize>>, r: usize| t.as_ref().is_some_and(|t| !t.contains(&r));
        let (common, rest): (Vec<_>, Vec<_>) = pending
            .iter()
            .copied()
            .partition(|p| takes.iter().all(|t| needs(t, p.0)));
        self.unstored_facts = common;
        self.store_facts();
        successors
            .iter()
            .zip(&takes)
            .map(|(&to, t)| EdgeRows {
                to,
                stored: rest.iter().copied().filter(|p| needs(t, p.0)).collect(),
                taken: rest
                    .iter()
                    .copied()
                    .filter(|p| t.as_ref().is_some_and(|t| t.contains(&p.0)))
                    .collect(),
            })
            .collect()
    }

    /// The over-budget exit at the start of the full variant's basic block `at` (planned on
    /// facts; `pc` its address, `count` the instructions run): when its predecessor handed
    /// the facts over, their rows may be pending; stored from the handed-over bases.
    pub(super) fn store_handed_over(&mut self, at: u64, pc: Value, count: Value) {
        let (tested, ok, bases) = {
            let p = &self.plans[&at];
            (p.0.tested.clone(), p.1, p.2.clone())
        };
        let okv = self.b.use_var(ok);
        let st = self.b.create_block();
        let exit = self.exit;
        let args = [
            cranelift_codegen::ir::BlockArg::Value(pc),
            cranelift_codegen::ir::BlockArg::Value(count),
        ];
        self.b.ins().brif(okv, st, &[], exit, &args);
        self.b.seal_block(st);
        self.enter(st);
        for (r, stride) in tested {
            let base = self.b.use_var(bases[&r]);
            self.store_pending_row(r, base, stride);
        }
        self.b.ins().jump(exit, &args);
    }

    /// Source `k` as a fact: a scalar (stride 0), or a row's.
    fn fact_src(&mut self, i: &Inst, k: usize) -> Option<(Value, i64)> {
        match self.src(i, k) {
            Src::Uniform(x) => Some((x, 0)),
            Src::Row(r) => self.aff.get(&r).copied(),
        }
    }

    /// The fact of row `row` (a GLOBAL address's, `inline_mem.rs`).
    pub(super) fn fact(&self, row: usize) -> Option<(Value, i64)> {
        self.aff.get(&row).copied()
    }

    /// Lowers `i` on its sources' facts; false (nothing generated) when a fact is missing.
    pub(super) fn affine_inst(&mut self, pc: u64, i: &Inst, op: AffOp) -> bool {
        // The destination row (a compare's is an SGPR).
        let dst = if i.dst >= VGPR { reg_index(i.dst) } else { 0 };
        let lanes = 4 * self.groups as i64;
        match op {
            AffOp::Mov => {
                let Some((b, s)) = self.fact_src(i, 0) else {
                    return false;
                };
                self.count_lanes();
                self.write_affine(dst, b, s);
            }
            AffOp::Add => {
                let (Some((a, sa)), Some((b, sb))) = (self.fact_src(i, 0), self.fact_src(i, 1))
                else {
                    return false;
                };
                self.count_lanes();
                let base = self.b.ins().iadd(a, b);
                self.write_affine(dst, base, sa + sb);
            }
            AffOp::LshlAdd(k) => {
                let (Some((a, sa)), Some((c, sc))) = (self.fact_src(i, 0), self.fact_src(i, 2))
                else {
                    return false;
                };
                self.count_lanes();
                let t = self.b.ins().ishl_imm(a, i64::from(k));
                let base = self.b.ins().iadd(t, c);
                self.write_affine(dst, base, (sa << k) + sc);
            }
            AffOp::Add3 => {
                let (Some((a, sa)), Some((b, sb)), Some((c, sc))) = (
                    self.fact_src(i, 0),
                    self.fact_src(i, 1),
                    self.fact_src(i, 2),
                ) else {
                    return false;
                };
                self.count_lanes();
                let t = self.b.ins().iadd(a, b);
                let base = self.b.ins().iadd(t, c);
                self.write_affine(dst, base, sa + sb + sc);
            }
            AffOp::Shl(k) => {
                let Some((b, s)) = self.fact_src(i, 1) else {
                    return false;
                };
                self.count_lanes();
                let base = self.b.ins().ishl_imm(b, i64::from(k));
                self.write_affine(dst, base, s << k);
            }
            AffOp::AddCo | AffOp::AddC => {
                let (Some((a, sa)), Some((b, sb))) = (self.fact_src(i, 0), self.fact_src(i, 1))
                else {
                    return false;
                };
                let cin = if op == AffOp::AddC {
                    match self.cfacts.get(&usize::from(i.src[2])) {
                        Some(&c) => Some(c),
                        None => return false,
                    }
                } else {
                    None
                };
                if sa != 0 && sb != 0 {
                    return false;
                }
                // `x` the uniform operand (with the carry-in), `y` the row.
                let ((x, _), (y, s)) = if sa == 0 {
                    ((a, sa), (b, sb))
                } else {
                    ((b, sb), (a, sa))
                };
                let x = self.b.ins().uextend(types::I64, x);
                let x = match cin {
                    Some(c) => {
                        let c = self.b.ins().uextend(types::I64, c);
                        self.b.ins().iadd(x, c)
                    }
                    None => x,
                };
                let y0 = self.b.ins().uextend(types::I64, y);
                let sum = self.b.ins().iadd(x, y0);
                let c0 = self.b.ins().ushr_imm(sum, 32);
                if s != 0 {
                    // Every lane carries alike when the row does not wrap across the lanes
                    // and the first and last lane do: the first and last lane's sums (below
                    // 2^34) agree above bit 31, and the row's last lane is below 2^32 (its
                    // test once per basic block, `unwrapped`). One compare of their OR.
                    let last = self.b.ins().iadd_imm(sum, s * (lanes - 1));
                    let spread = self.b.ins().bxor(sum, last);
                    let spread = self.or_wraps(y, y0, s, spread);
                    let bad = self.b.ins().icmp_imm(
                        IntCC::UnsignedGreaterThan,
                        spread,
                        i64::from(u32::MAX),
                    );
                    self.affine_exit_if(bad, pc);
                }
                self.count_lanes();
                let base = self.b.ins().ireduce(types::I32, sum);
                self.write_affine(dst, base, s);
                if s != 0 {
                    // Every lane's sum carries alike, so its low halves do not wrap either.
                    self.unwrapped.insert((y, s));
                    self.unwrapped.insert((base, s));
                }
                // The carry-out: every lane's or none (under a full EXEC). `c0` is 0 or 1
                // (the sum is below 2^33), so its negation is the mask: all bits or none
                // (wave32's SGPR takes the low half), one instruction where a compare and a
                // select of two constants were five.
                let co = self.b.ins().ineg(c0);
                self.carry_out(i.sdst, co);
                if let Some(d) = carry_pair(i) {
                    let c = self.b.ins().ireduce(types::I32, c0);
                    self.cfacts.insert(d, c);
                }
            }
            AffOp::Mad64 => {
                let (Some((x, 0)), Some((y, 0))) = (self.fact_src(i, 0), self.fact_src(i, 1))
                else {
                    return false;
                };
                let r = reg_index(i.src[2]);
                let (Some((lo, s)), Some((hi, 0))) = (self.fact(r), self.fact(r + 1)) else {
                    return false;
                };
                // Lane l: `x·y + (hi:lo + s·l)`, 64 bits: the low halves carry into the high
                // ones alike when the first and last lane's low halves do not cross a
                // multiple of 2^32 (checked on the sum), and then overflow alike too.
                let x = self.b.ins().uextend(types::I64, x);
                let y = self.b.ins().uextend(types::I64, y);
                let p = self.b.ins().imul(x, y);
                let z = self.pair64(lo, hi);
                let a = self.b.ins().iadd(p, z);
                let o0 = self.b.ins().icmp(IntCC::UnsignedLessThan, a, z);
                let nlo = self.b.ins().ireduce(types::I32, a);
                if s != 0 {
                    // Neither the source's nor the result's low halves wrap across the
                    // lanes: both last lanes (the source's unless tested) below 2^32.
                    let a_lo = self.b.ins().uextend(types::I64, nlo);
                    let last = self.b.ins().iadd_imm(a_lo, s * (lanes - 1));
                    let z0 = self.b.ins().uextend(types::I64, lo);
                    let last = self.or_wraps(lo, z0, s, last);
                    let bad = self.b.ins().icmp_imm(
                        IntCC::UnsignedGreaterThan,
                        last,
                        i64::from(u32::MAX),
                    );
                    self.affine_exit_if(bad, pc);
                    self.unwrapped.insert((lo, s));
                    self.unwrapped.insert((nlo, s));
                }
                self.count_lanes();
                let nhi = self.b.ins().ushr_imm(a, 32);
                let nhi = self.b.ins().ireduce(types::I32, nhi);
                self.write_affine(dst, nlo, s);
                self.write_affine(dst + 1, nhi, 0);
                let lanes_mask = self.wave_lanes() as i64;
                let all = self.b.ins().iconst(types::I64, lanes_mask);
                let zero = self.b.ins().iconst(types::I64, 0);
                let ov = self.b.ins().select(o0, all, zero);
                self.merge_mask(i.sdst, ov);
            }
            AffOp::Cmp => return self.affine_cmp(pc, i),
            AffOp::Shl64(k) => {
                let r = reg_index(i.src[1]);
                let (Some((lo, s)), Some((hi, 0))) = (self.fact(r), self.fact(r + 1)) else {
                    return false;
                };
                let k = i64::from(k);
                if s != 0 {
                    // The same bits move into every high half when the row does not wrap
                    // and its first and last lane's top `k` bits agree: their XOR below
                    // 2^(32 − k) (a last lane past 2^32 differs from the first above bit 31).
                    let y0 = self.b.ins().uextend(types::I64, lo);
                    let yl = self.b.ins().iadd_imm(y0, s * (lanes - 1));
                    let spread = self.b.ins().bxor(y0, yl);
                    let bad = self.b.ins().icmp_imm(
                        IntCC::UnsignedGreaterThan,
                        spread,
                        (1i64 << (32 - k)) - 1,
                    );
                    self.affine_exit_if(bad, pc);
                    self.unwrapped.insert((lo, s));
                }
                self.count_lanes();
                let nlo = self.b.ins().ishl_imm(lo, k);
                let h = self.b.ins().ishl_imm(hi, k);
                let top = self.b.ins().ushr_imm(lo, 32 - k);
                let nhi = self.b.ins().bor(h, top);
                self.write_affine(dst, nlo, s << k);
                self.write_affine(dst + 1, nhi, 0);
                if s != 0 {
                    // The lanes' top `k` bits agree: what is left of them below does not
                    // wrap, shifted neither.
                    self.unwrapped.insert((nlo, s << k));
                }
            }
        }
        true
    }

    /// `bits` ORed with the last lane of the row whose fact is `(y, s)` (`y0` its base as an
    /// `i64`), which is past `u32::MAX` when the row wraps across the lanes; `bits` alone
    /// when the basic block tested that row already (`unwrapped`: the caller exits on the
    /// test before anything after it runs).
    fn or_wraps(&mut self, y: Value, y0: Value, s: i64, bits: Value) -> Value {
        if self.unwrapped.contains(&(y, s)) {
            return bits;
        }
        let lanes = 4 * self.groups as i64;
        let yl = self.b.ins().iadd_imm(y0, s * (lanes - 1));
        self.b.ins().bor(bits, yl)
    }

    /// `hi:lo` as an `i64`.
    fn pair64(&mut self, lo: Value, hi: Value) -> Value {
        let lo = self.b.ins().uextend(types::I64, lo);
        let hi = self.b.ins().uextend(types::I64, hi);
        let hi = self.b.ins().ishl_imm(hi, 32);
        self.b.ins().bor(lo, hi)
    }

    /// Compare operand `k` as (the value of lane 0 as an `i64`, stride), from facts.
    fn cmp_side(&mut self, i: &Inst, k: usize, wide: bool) -> Option<(Value, i64)> {
        let code = i.src[k];
        if code >= VGPR {
            let r = reg_index(code);
            let (lo, s) = self.fact(r)?;
            if !wide {
                return Some((self.b.ins().uextend(types::I64, lo), s));
            }
            let (hi, 0) = self.fact(r + 1)? else {
                return None;
            };
            return Some((self.pair64(lo, hi), s));
        }
        if wide {
            let (lo, hi) = match self.src64_halves(i, k) {
                (Src::Uniform(lo), Src::Uniform(hi)) => (lo, hi),
                _ => return None,
            };
            Some((self.pair64(lo, hi), 0))
        } else {
            match self.src(i, k) {
                Src::Uniform(x) => Some((self.b.ins().uextend(types::I64, x), 0)),
                Src::Row(_) => None,
            }
        }
    }

    /// A compare of a row `V0 + s·lane` (no wrap: checked) and a uniform `S`: the lanes
    /// where it holds are a prefix (`V < S`, `V <= S`) or a suffix (`V > S`, `V >= S`),
    /// counted on scalars.
    fn affine_cmp(&mut self, pc: u64, i: &Inst) -> bool {
        let wide = i.imm >> 5 & 15 == 8;
        let (Some(a), Some(b)) = (self.cmp_side(i, 0, wide), self.cmp_side(i, 1, wide)) else {
            return false;
        };
        if a.1 != 0 && b.1 != 0 {
            return false;
        }
        // `V cond S`, the row on the left.
        let mut cond = i.imm & 31;
        let ((v0, s), (sv, _)) = if a.1 != 0 || b.1 == 0 && i.src[0] >= VGPR {
            (a, b)
        } else {
            cond = match cond {
                1 => 4,
                3 => 6,
                4 => 1,
                _ => 3,
            };
            (b, a)
        };
        let lanes = 4 * self.groups as i64;
        // The row's fact (its low half's), to skip a test the basic block made (`unwrapped`).
        let row = if a.1 != 0 { i.src[0] } else { i.src[1] };
        let tested = row >= VGPR
            && self
                .fact(reg_index(row))
                .is_some_and(|f| f.1 == s && self.unwrapped.contains(&f));
        if s != 0 && !tested {
            // The low halves must not wrap across the lanes (a 32-bit row: the row).
            let lo = self.b.ins().ireduce(types::I32, v0);
            let lo = self.b.ins().uextend(types::I64, lo);
            let last = self.b.ins().iadd_imm(lo, s * (lanes - 1));
            let bad = self
                .b
                .ins()
                .icmp_imm(IntCC::UnsignedGreaterThan, last, i64::from(u32::MAX));
            self.affine_exit_if(bad, pc);
        }
        self.count_lanes();
        // `below(T)`: lanes with `V < T`: 0 when `T <= V0`, else `ceil((T - V0) / s)` at
        // most all (all for a stride 0).
        let below = |g: &mut Self, t: Value| -> Value {
            let n_all = g.b.ins().iconst(types::I64, lanes);
            let zero = g.b.ins().iconst(types::I64, 0);
            let above = g.b.ins().icmp(IntCC::UnsignedGreaterThan, t, v0);
            let n = if s == 0 {
                n_all
            } else {
                let d = g.b.ins().isub(t, v0);
                let far = g.b.ins().icmp_imm(IntCC::UnsignedGreaterThan, d, s * lanes);
                let d = g.b.ins().iadd_imm(d, s - 1);
                // A power-of-two stride as a shift: the code is not optimised
                // (`opt_level=none`), and a 64-bit `div`, even by 1, was 13 % of gfx1030's
                // histogram loop.
                let k = if s == 1 {
                    d
                } else if s > 0 && s.count_ones() == 1 {
                    g.b.ins().ushr_imm(d, i64::from(s.trailing_zeros()))
                } else {
                    g.b.ins().udiv_imm(d, s)
                };
                let k = g.b.ins().umin(k, n_all);
                g.b.ins().select(far, n_all, k)
            };
            g.b.ins().select(above, n, zero)
        };
        // `V <= S` is `V < S + 1`, all lanes when `S` is the largest value.
        // (Generated only for the conditions that use it: nothing removes dead code.)
        let n_le = |g: &mut Self| -> Value {
            let max = if wide { -1 } else { i64::from(u32::MAX) };
            let at_max = g.b.ins().icmp_imm(IntCC::Equal, sv, max);
            let n_all = g.b.ins().iconst(types::I64, lanes);
            let sv1 = g.b.ins().iadd_imm(sv, 1);
            let n = below(g, sv1);
            g.b.ins().select(at_max, n_all, n)
        };
        let (n, prefix) = match cond {
            1 => (below(self, sv), true),
            3 => (n_le(self), true),
            4 => (n_le(self), false),
            _ => (below(self, sv), false),
        };
        let bits = self.lane_count_flags(i, n, prefix);
        self.vcmp_finish(i, bits);
        true
    }
}

impl Gen<'_> {
    /// The flags of compare `i` that holds in the wave's first `n` lanes (0–64) when `prefix`,
    /// in the others when not: as compared, i.e. negated for the inverted conditions, as
    /// `vcmp_finish` takes them.
    pub(super) fn lane_count_flags(&mut self, i: &Inst, n: Value, prefix: bool) -> Value {
        let one = self.b.ins().iconst(types::I64, 1);
        let p = self.b.ins().ishl(one, n);
        let p = self.b.ins().iadd_imm(p, -1);
        let full = self
            .b
            .ins()
            .icmp_imm(IntCC::UnsignedGreaterThanOrEqual, n, 64);
        let ones = self.b.ins().iconst(types::I64, -1);
        let p = self.b.ins().select(full, ones, p);
        let wave_lanes = self.wave_lanes() as i64;
        let wave = self.b.ins().iconst(types::I64, wave_lanes);
        let m = if prefix {
            self.b.ins().band(p, wave)
        } else {
            self.b.ins().band_not(wave, p)
        };
        if super::cmp_inverted(i) {
            let x = self.b.ins().bnot(m);
            self.b.ins().band(x, wave)
        } else {
            m
        }
    }
}
