//! NaN tests deferred over a stretch of a run's group pass (a *NaN segment*).
//!
//! A float result that is a NaN must be the first NaN operand, quieted (the interpreter's
//! rule, `Gen::first_nan`); the host's instruction picks by its own operand order. Tested
//! per group and instruction (`nan_checked`: a compare, a branch and a cold block), a
//! fully unrolled chain of 128 `v_pk_fma_f32`s became 64 Cranelift blocks per instruction
//! in wave64: half a second of compile time per 64 instructions, and ten times the run time
//! of the same code without the tests (mixbench's `benchmark_func`, docs/notes/ci-time.md,
//! "Round 66").
//!
//! In a segment the results are not tested one by one: each one's NaN lanes are OR-ed into
//! one mask, and at the segment's end one branch asks whether any lane of any result was a
//! NaN. If none was, no operand was one either (a NaN operand makes these operations'
//! results NaNs), so every result already is the interpreter's. If one was, a cold block
//! generates the segment again from the caches it started with, every result fixed with
//! `first_nan` (no branch), and the groups the segment wrote join from both ways.
//!
//! A segment holds consecutive instructions of one group's pass whose only test is that NaN
//! test (`deferrable`); anything else that generates code there ends it first. Nothing in a
//! pass stores into the `Wave` (`unstored`), so the replay reads the rows as the first
//! generation did. Every cache of values is put back after the replay (`Caches`), so no value
//! of the cold block is used after the join but through its parameters.

use super::{fmac_chainable, tiles, Gen, Lower, VAluOp};
use crate::decode::Inst;
use cranelift_codegen::ir::{types, BlockArg, Endianness, InstBuilder, MemFlags, Value};
use std::collections::{HashMap, HashSet};

/// The generator's caches of values that generating a deferrable instruction may add to or
/// take from.
#[derive(Clone)]
pub(super) struct Caches {
    scache: HashMap<usize, Value>,
    scache_b: HashMap<usize, Value>,
    vcache: HashMap<(usize, usize), Value>,
    masks: HashMap<usize, Value>,
    splats: HashMap<Value, Value>,
    consts: HashMap<(types::Type, i64), Value>,
    pairs: HashMap<(Value, Value), Value>,
    active: Option<Value>,
    unstored: Vec<(usize, usize)>,
    ds_rows: HashMap<(usize, u32, bool), super::DsRow>,
    ds_lazy: HashMap<(usize, usize), (Value, i32, bool)>,
    ds_unstored: HashMap<(usize, usize), (Value, i32, bool)>,
    aff: HashMap<usize, (Value, i64)>,
    cfacts: HashMap<usize, Value>,
    tiles: HashMap<usize, tiles::Tile>,
    tile_cache: Option<tiles::TileCache>,
    written_now: HashSet<(usize, usize)>,
    unstored_facts: Vec<(usize, Value, i64)>,
    fwd: HashMap<usize, Value>,
}

/// An open segment of group `g`'s pass.
pub(super) struct NanSeg {
    /// The OR of every result's NaN lanes so far (`i32x4`, all ones where a NaN).
    any: Option<Value>,
    /// Its instructions: (run position, region index).
    insts: Vec<(usize, usize)>,
    /// The groups (row, group) it wrote, in the order first written.
    written: Vec<(usize, usize)>,
    /// The caches at its start.
    before: Caches,
}

/// Whether `i` (lowered as `l`) may join a segment: a float operation whose lowering
/// branches only in its NaN test. (A `v_fmac_f32` that may join a chain of them has the
/// chain's own deferred test, `fmac_chained`.)
pub(super) fn deferrable(i: &Inst, l: Lower) -> bool {
    match l {
        Lower::VAlu(op) => {
            matches!(
                op,
                VAluOp::Fma
                    | VAluOp::Fmac
                    | VAluOp::FmaK(_)
                    | VAluOp::Rcp
                    | VAluOp::PkF32(0..=2)
                    | VAluOp::F64(_)
            ) && !fmac_chainable(i, l)
        }
        _ => false,
    }
}

impl Gen<'_> {
    fn caches(&self) -> Caches {
        Caches {
            scache: self.scache.clone(),
            scache_b: self.scache_b.clone(),
            vcache: self.vcache.clone(),
            masks: self.masks.clone(),
            splats: self.splats.clone(),
            consts: self.consts.clone(),
            pairs: self.pairs.clone(),
            active: self.active,
            unstored: self.unstored.clone(),
            ds_rows: self.ds_rows.clone(),
            ds_lazy: self.ds_lazy.clone(),
            ds_unstored: self.ds_unstored.clone(),
            aff: self.aff.clone(),
            cfacts: self.cfacts.clone(),
            tiles: self.tiles.clone(),
            tile_cache: self.tile_cache.clone(),
            written_now: self.written_now.clone(),
            unstored_facts: self.unstored_facts.clone(),
            fwd: self.fwd.clone(),
        }
    }

    fn set_caches(&mut self, c: Caches) {
        self.scache = c.scache;
        self.scache_b = c.scache_b;
        self.vcache = c.vcache;
        self.masks = c.masks;
        self.splats = c.splats;
        self.consts = c.consts;
        self.pairs = c.pairs;
        self.active = c.active;
        self.unstored = c.unstored;
        self.ds_rows = c.ds_rows;
        self.ds_lazy = c.ds_lazy;
        self.ds_unstored = c.ds_unstored;
        self.aff = c.aff;
        self.cfacts = c.cfacts;
        self.tiles = c.tiles;
        self.tile_cache = c.tile_cache;
        self.written_now = c.written_now;
        self.unstored_facts = c.unstored_facts;
        self.fwd = c.fwd;
    }

    /// Adds the instruction at run position `pos` (region index `k`) to the open segment,
    /// opening one if none is.
    pub(super) fn nan_seg_add(&mut self, pos: usize, k: usize) {
        if self.nan_seg.is_none() {
            let before = self.caches();
            self.nan_seg = Some(NanSeg {
                any: None,
                insts: Vec::new(),
                written: Vec::new(),
                before,
            });
        }
        if let Some(seg) = &mut self.nan_seg {
            seg.insts.push((pos, k));
        }
    }

    /// Notes that the open segment, if any, wrote group `g` of row `row`.
    pub(super) fn nan_seg_written(&mut self, row: usize, g: usize) {
        if let Some(seg) = &mut self.nan_seg {
            if !seg.written.contains(&(row, g)) {
                seg.written.push((row, g));
            }
        }
    }

    /// Adds `nan` (a result's NaN lanes, any integer vector of 128 bits) to the open
    /// segment's mask: the caller's result stands untested.
    pub(super) fn nan_deferred(&mut self, nan: Value) {
        let little = MemFlags::new().with_endianness(Endianness::Little);
        let nan = self.b.ins().bitcast(types::I32X4, little, nan);
        let any = match self.nan_seg.as_ref().and_then(|s| s.any) {
            Some(a) => self.b.ins().bor(a, nan),
            None => nan,
        };
        if let Some(seg) = &mut self.nan_seg {
            seg.any = Some(any);
        }
    }

    /// Closes the open segment, if any (see the module's text). `region` is the one being
    /// generated (the segment's instructions are its indices).
    pub(super) fn nan_seg_end(&mut self, region: &[(u64, Inst, Lower)]) -> Result<(), String> {
        let Some(seg) = self.nan_seg.take() else {
            return Ok(());
        };
        let Some(any) = seg.any else {
            return Ok(());
        };
        super::super::NAN_SEGMENTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let was = self.on_line();
        let after = self.caches();
        let fast: Vec<BlockArg> = seg
            .written
            .iter()
            .map(|w| BlockArg::Value(after.vcache[w]))
            .collect();
        let any = self.b.ins().vany_true(any);
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        let outs: Vec<Value> = seg
            .written
            .iter()
            .map(|_| self.b.append_block_param(join, types::I32X4))
            .collect();
        self.b.ins().brif(any, slow, &[], join, &fast);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        self.set_caches(seg.before);
        let (run_pos, exact) = (self.run_pos, self.nan_exact);
        self.nan_exact = true;
        let mut replay = Ok(());
        for &(pos, k) in &seg.insts {
            self.run_pos = pos;
            let (_, i, l) = &region[k];
            replay = self.inst(i, *l);
            if replay.is_err() {
                break;
            }
        }
        (self.run_pos, self.nan_exact) = (run_pos, exact);
        let fixed: Vec<BlockArg> = seg
            .written
            .iter()
            .map(|w| BlockArg::Value(self.vcache[w]))
            .collect();
        self.b.ins().jump(join, &fixed);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.rejoin(was);
        self.set_caches(after);
        for (w, out) in seg.written.iter().zip(outs) {
            self.vcache.insert(*w, out);
        }
        replay
    }
}
