//! Compares of a row against a uniform value, on the row's kept shape.
//!
//! The reduction's tree step tests `lid < s` as `v_cmp(x)_gt_u64 s[4:5], v[0:1]` after each
//! barrier: v0 is the work-item ID (`base + lane`), v1 zero, both written before the loop,
//! and the compare went lane by lane on every call (a sixth of gfx90a's loop region). When
//! row `r` (and `r + 1`, the high half) carries a tile mark (`Wave::tile_marks`: the row is
//! in the 16-lane tile shape and nothing wrote it since) and its lanes 0, 1 and 16 say the
//! steps are 1 and 16 (the high half's 0), the row is `base + lane` in every lane; with its
//! last lane below 2^32 the lanes where the compare holds are a prefix or a suffix, counted
//! on scalars as `affine.rs`'s compares on facts are. Otherwise the rows are tested (each
//! group against `base + lane`, the high half against its lane 0), marked when they pass,
//! and the lanes compared as before when they do not. The region's entry leaves such rows'
//! marks alone; each write of one clears its mark (`cmp_rows`, `clear_cmp_marks`).

use super::{mf, tiles, Gen, Lower, Src, LANES};
use crate::decode::{Inst, VGPR};
use crate::wave::reg_index;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, Value};

/// Rows 0–63 (bit `r`) a compare of `region` may take on their marks (`Gen::row_cmp_row`'s
/// instructions) that no write of the region may reach again: none before it in address
/// order, and none after it followed by a branch back to it or before it (the reduction's
/// rows are written only in the kernel's tail, after the loop). A row the region writes
/// first (vector add's global ID) or in the compare's loop (mandelbrot's count) would only
/// pay a failing test and the clears at its writes. Soundness does not depend on this
/// choice: each write of such a row clears its mark, the entry every other row's.
pub(super) fn cmp_rows(region: &[(u64, Inst, Lower)]) -> u64 {
    // Each backward branch as (its address, its target).
    let back: Vec<(u64, u64)> = region
        .iter()
        .filter(|(_, _, l)| matches!(l, Lower::Branch(_)))
        .map(|(pc, i, _)| (*pc, crate::jit::branch_target(*pc, i)))
        .filter(|&(pc, t)| t <= pc)
        .collect();
    let mut m = 0u64;
    for (pc, i, l) in region {
        let Some((row, _, rows)) = row_operand(i).filter(|_| *l == Lower::VCmp) else {
            continue;
        };
        let again = region.iter().any(|(w, wi, wl)| {
            written_mask(wi, *wl) & rows != 0
                && (w < pc || back.iter().any(|&(b, t)| b >= *w && t <= *pc))
        });
        if row + 1 < 64 && !again {
            m |= rows;
        }
    }
    m
}

/// For a `v_cmp(x)` taken here (an unsigned `lt`/`le`/`gt`/`ge` of 32 or 64 bits, without
/// abs or neg, of one row and one non-row operand): the row (the low half for 64 bits),
/// whether it is the left operand, and its rows as a mask (bits `row`, and `row + 1` for 64
/// bits; none past 63).
fn row_operand(i: &Inst) -> Option<(usize, bool, u64)> {
    let (cond, ty) = (i.imm & 31, i.imm >> 5 & 15);
    if !matches!(ty, 7 | 8) || !matches!(cond, 1 | 3 | 4 | 6) || (i.abs | i.neg) != 0 {
        return None;
    }
    let (row, left) = match (i.src[0] >= VGPR, i.src[1] >= VGPR) {
        (true, false) => (reg_index(i.src[0]), true),
        (false, true) => (reg_index(i.src[1]), false),
        _ => return None,
    };
    let rows = if ty == 8 { 0b11u64 } else { 1 };
    Some((row, left, rows.checked_shl(row as u32).unwrap_or(0)))
}

/// The rows 0–63 instruction `i` (lowered as `l`) may write, as a mask (`tiles.rs`' plan).
fn written_mask(i: &Inst, l: Lower) -> u64 {
    tiles::written_by(i, l)
        .into_iter()
        .filter(|&r| r < 64)
        .fold(0, |m, r| m | 1 << r)
}

impl Gen<'_> {
    /// The row of `v_cmp(x)` `i` this lowering takes (its low half for 64 bits) and whether
    /// it is the left operand: an unsigned `lt`/`le`/`gt`/`ge` of 32 or 64 bits, outside a
    /// run and a pair region, of a row 0–63 the region never writes and a non-row operand.
    pub(super) fn row_cmp_row(&self, i: &Inst) -> Option<(usize, bool)> {
        if self.grp.is_some() || self.pair {
            return None;
        }
        let (row, left, rows) = row_operand(i)?;
        let unmarked = self.clobbers & !self.cmp_rows;
        (row + 1 < 64 && unmarked & rows == 0).then_some((row, left))
    }

    /// Clears the marks of the rows of `cmp_rows` that instructions `ks` of `region` write,
    /// before they run (the entry leaves those marks alone).
    pub(super) fn clear_cmp_marks(&mut self, region: &[(u64, Inst, Lower)], ks: &[usize]) {
        let rows = ks
            .iter()
            .fold(0, |m, &k| m | written_mask(&region[k].1, region[k].2))
            & self.cmp_rows;
        if rows == 0 {
            return;
        }
        let (wave, w) = self.wave_ptr();
        let at = w + std::mem::offset_of!(crate::wave::Wave, tile_marks) as i32;
        let marks = self.b.ins().load(types::I64, mf(), wave, at);
        let marks = self.b.ins().band_imm(marks, !rows as i64);
        self.b.ins().store(mf(), marks, wave, at);
    }

    /// `v_cmp(x)` `i` on row `row` (`row_cmp_row`): the prefix or suffix of the lanes when
    /// the row is kept as `base + lane`, else the rows tested (and marked), else the lanes.
    pub(super) fn row_cmp(&mut self, i: &Inst, row: usize, left: bool) -> Result<(), String> {
        let wide = i.imm >> 5 & 15 == 8;
        let k = usize::from(left);
        // The uniform operand, in this block (its SGPRs cached before the paths part).
        let s = if wide {
            match self.src64_halves(i, k) {
                (Src::Uniform(lo), Src::Uniform(hi)) => self.pair64_of(lo, hi),
                _ => return self.vcmp(i),
            }
        } else {
            match self.src(i, k) {
                Src::Uniform(x) => self.b.ins().uextend(types::I64, x),
                Src::Row(_) => return self.vcmp(i),
            }
        };
        let lanes = 4 * self.groups as i64;
        let at = |r: usize, l: usize| (4 * (r * LANES + l)) as i32;
        let (wave, w) = self.wave_ptr();
        let marks_at = w + std::mem::offset_of!(crate::wave::Wave, tile_marks) as i32;
        let marks = self.b.ins().load(types::I64, mf(), wave, marks_at);
        let need = if wide { 0b11i64 << row } else { 1i64 << row };
        // Lanes 0, 1 and 16: steps 1 and 16, the last lane below 2^32 (and the high half
        // one value).
        let load =
            |g: &mut Self, r: usize, l: usize| g.b.ins().load(types::I32, mf(), g.v, at(r, l));
        let l0 = load(self, row, 0);
        let l1 = load(self, row, 1);
        let l16 = load(self, row, 16);
        let d1 = self.b.ins().isub(l1, l0);
        let d16 = self.b.ins().isub(l16, l0);
        let ok1 = self.b.ins().icmp_imm(IntCC::Equal, d1, 1);
        let ok16 = self.b.ins().icmp_imm(IntCC::Equal, d16, 16);
        let last_ok = i64::from(u32::MAX) - (lanes - 1);
        let l0_64 = self.b.ins().uextend(types::I64, l0);
        let no_wrap = self
            .b
            .ins()
            .icmp_imm(IntCC::UnsignedLessThanOrEqual, l0_64, last_ok);
        let mut shape = self.b.ins().band(ok1, ok16);
        shape = self.b.ins().band(shape, no_wrap);
        // The high half's lane 0, for the shape test and the rows' test below.
        let h0 = wide.then(|| load(self, row + 1, 0));
        let base = if let Some(h0) = h0 {
            let h1 = load(self, row + 1, 1);
            let h16 = load(self, row + 1, 16);
            let e1 = self.b.ins().icmp(IntCC::Equal, h1, h0);
            let e16 = self.b.ins().icmp(IntCC::Equal, h16, h0);
            let e = self.b.ins().band(e1, e16);
            shape = self.b.ins().band(shape, e);
            let h = self.b.ins().uextend(types::I64, h0);
            let h = self.b.ins().ishl_imm(h, 32);
            self.b.ins().bor(h, l0_64)
        } else {
            l0_64
        };
        let has = self.b.ins().band_imm(marks, need);
        let marked = self.b.ins().icmp_imm(IntCC::Equal, has, need);
        let kept = self.b.ins().band(marked, shape);
        // The caches of this block stay valid in every path and after the join (it
        // dominates them); what the lane-wise path adds to them does not.
        let saved = (
            self.scache.clone(),
            self.scache_b.clone(),
            self.vcache.clone(),
            self.splats.clone(),
            self.consts.clone(),
            self.pairs.clone(),
        );
        let was = self.on_line();
        let fast = self.b.create_block();
        let test = self.b.create_block();
        let mark = self.b.create_block();
        let slow = self.b.create_block();
        let join = self.b.create_block();
        let bits = self.b.append_block_param(join, types::I64);
        self.b.ins().brif(kept, fast, &[], test, &[]);
        self.b.seal_block(test);

        // Not marked (or not in that shape): every group against `base + lane` (the high
        // half against its lane 0), one pass, no cache.
        self.b.switch_to_block(test);
        let mut acc = None;
        let lo = self.b.ins().splat(types::I32X4, l0);
        let hi = h0.map(|h0| self.b.ins().splat(types::I32X4, h0));
        for g in 0..self.groups {
            let step = self.vconst(std::array::from_fn(|l| (4 * g + l) as u32));
            let want = self.b.ins().iadd(lo, step);
            let x = self
                .b
                .ins()
                .load(types::I32X4, mf(), self.v, at(row, 4 * g));
            let mut d = self.b.ins().bxor(x, want);
            if let Some(hi) = hi {
                let y = self
                    .b
                    .ins()
                    .load(types::I32X4, mf(), self.v, at(row + 1, 4 * g));
                let e = self.b.ins().bxor(y, hi);
                d = self.b.ins().bor(d, e);
            }
            acc = Some(match acc {
                Some(a) => self.b.ins().bor(a, d),
                None => d,
            });
        }
        let acc = acc.expect("a group");
        let any = self.b.ins().vany_true(acc);
        let same = self.b.ins().icmp_imm(IntCC::Equal, any, 0);
        let pass = self.b.ins().band(same, no_wrap);
        self.b.ins().brif(pass, mark, &[], slow, &[]);
        self.b.seal_block(mark);
        self.b.seal_block(slow);
        self.b.switch_to_block(mark);
        let marked = self.b.ins().bor_imm(marks, need);
        self.b.ins().store(mf(), marked, wave, marks_at);
        self.b.ins().jump(fast, &[]);
        self.b.seal_block(fast);

        // Kept: `row cond S` holds in a prefix (`<`, `<=`) or a suffix of the lanes.
        self.b.switch_to_block(fast);
        let cond = match (i.imm & 31, left) {
            (c, true) => c,
            (1, false) => 4,
            (3, false) => 6,
            (4, false) => 1,
            (_, false) => 3,
        };
        let n_all = self.b.ins().iconst(types::I64, lanes);
        let zero = self.b.ins().iconst(types::I64, 0);
        // Lanes with `base + lane < t`: 0 when `t <= base`, else `t - base`, at most all.
        let below = |g: &mut Self, t: Value| -> Value {
            let above = g.b.ins().icmp(IntCC::UnsignedGreaterThan, t, base);
            let d = g.b.ins().isub(t, base);
            let d = g.b.ins().umin(d, n_all);
            g.b.ins().select(above, d, zero)
        };
        let n = if matches!(cond, 3 | 4) {
            // `<= S` is `< S + 1`, every lane when S is the largest value.
            let max = if wide { -1 } else { i64::from(u32::MAX) };
            let at_max = self.b.ins().icmp_imm(IntCC::Equal, s, max);
            let s1 = self.b.ins().iadd_imm(s, 1);
            let n = below(self, s1);
            self.b.ins().select(at_max, n_all, n)
        } else {
            below(self, s)
        };
        let m = self.lane_count_flags(i, n, matches!(cond, 1 | 3));
        self.b.ins().jump(join, &[BlockArg::Value(m)]);

        // Not that shape: the lanes.
        self.b.switch_to_block(slow);
        let flags = self.vcmp_bits(i)?.expect("outside a run: the bits");
        self.b.ins().jump(join, &[BlockArg::Value(flags)]);
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.rejoin(was);
        (
            self.scache,
            self.scache_b,
            self.vcache,
            self.splats,
            self.consts,
            self.pairs,
        ) = saved;
        self.masks.clear();
        self.active = None;
        self.vcmp_finish(i, bits);
        Ok(())
    }

    /// Two 32-bit halves as one 64-bit value (not cached: `join64`'s cache is per block).
    fn pair64_of(&mut self, lo: Value, hi: Value) -> Value {
        let lo = self.b.ins().uextend(types::I64, lo);
        let hi = self.b.ins().uextend(types::I64, hi);
        let hi = self.b.ins().ishl_imm(hi, 32);
        self.b.ins().bor(lo, hi)
    }
}
