//! Which VGPR rows may still be read at each address of a program, as far as a region's
//! full-EXEC code needs it: a DS load's row that no instruction reads before a DS load
//! writes it again (or the wave ends) need not be stored into the `Wave` (`inline_lds.rs`'s
//! `ds_lazy_load`; matmul's thirty-two `ds_read2_b32` rows per iteration, read only by
//! the loop's `v_fmac_f32`s, overwritten by the next iteration's loads).
//!
//! Sound by construction, for the full-EXEC variant only:
//! - the walk covers every instruction reachable from the region's start; an address whose
//!   instruction the tier cannot compile (it could read anything, or jump anywhere), a
//!   write of EXEC (a later write would then keep the inactive lanes' old values) or a
//!   program larger than [`MAX_WALK`] gives no answer (every row live);
//! - reads are over-approximated: a vector ALU operation's three source fields (and
//!   `v_fmac_f32`'s accumulator), a pair each for its 64-bit forms; a memory access's rows
//!   it may touch (`touched`); any other instruction's VGPR fields two rows each (the
//!   widest compilable operand is a pair);
//! - writes are those that replace whole rows under a full EXEC: a DS load's destination
//!   rows and a vector ALU operation's destination (`compilable` admits no SDWA, DPP,
//!   op_sel or clamp); nothing else kills a row.

use super::lower_mem;
use crate::decode::Inst;
use crate::jit::{branch_target, compilable, Live, Lower, VAluOp};
use crate::ops::Op;
use crate::wave::{reg_index, VGPR};
use std::collections::{HashMap, HashSet};

/// Rows as bits (512 VGPRs and AGPRs).
pub(crate) type Rows = [u64; 8];

/// Most instructions walked.
const MAX_WALK: usize = 2048;

fn set(rows: &mut Rows, r: usize) {
    rows[r / 64] |= 1 << (r % 64);
}

/// Whether row `r` is in `rows`.
pub(crate) fn has(rows: &Rows, r: usize) -> bool {
    rows[r / 64] >> (r % 64) & 1 != 0
}

/// The VGPR rows a vector ALU operation's result fills from its destination: a pair for
/// the 64-bit forms, else one (`compilable` admits no SDWA, DPP, op_sel or clamp).
pub(crate) fn valu_rows(op: VAluOp) -> u16 {
    match op {
        VAluOp::Shift64(_) | VAluOp::Mad64(_) | VAluOp::PkF32(_) | VAluOp::F64(_) => 2,
        _ => 1,
    }
}

/// The DS load rows of a run (`ks`, indices into `region`) that a later DS load of the same
/// run writes again, as (run position, row): their values die in the run's group pass,
/// whatever is live after it (gfx1030's matmul loads fourteen of its rows twice between
/// two barriers). Only DS loads count as the later write: they replace whole rows in the
/// full-EXEC variant, the only one with runs of DS loads.
pub(crate) fn reloaded_in_run(
    region: &[(u64, Inst, Lower)],
    ks: &[usize],
) -> HashSet<(usize, usize)> {
    let mut out = HashSet::new();
    // Each row's latest DS load so far, by run position.
    let mut last: HashMap<usize, usize> = HashMap::new();
    for (pos, &k) in ks.iter().enumerate() {
        let (_, i, l) = &region[k];
        if *l != Lower::Mem {
            continue;
        }
        for r in lower_mem::ds_load_rows(i).into_iter().flatten() {
            if let Some(before) = last.insert(r, pos) {
                out.insert((before, r));
            }
        }
    }
    out
}

/// What instruction `i` (lowered as `l`) may read and surely writes, and where it goes on.
fn transfer(pc: u64, i: &Inst, l: Lower) -> (Rows, Rows, Vec<u64>) {
    let (mut reads, mut writes) = ([0; 8], [0; 8]);
    let vgpr = |c: u16| (VGPR..VGPR + 512).contains(&c);
    let next = pc + u64::from(i.size);
    let succ = match l {
        Lower::Branch(0) => vec![branch_target(pc, i)],
        Lower::Branch(_) => vec![branch_target(pc, i), next],
        _ => vec![next],
    };
    match (l, lower_mem::ds_load_rows(i)) {
        (Lower::Mem, Some(rows)) => {
            if vgpr(i.src[0]) {
                set(&mut reads, reg_index(i.src[0]));
            }
            for r in rows {
                set(&mut writes, r);
            }
        }
        (Lower::Mem, None) => {
            for r in lower_mem::touched_rows(i) {
                set(&mut reads, r);
            }
        }
        (Lower::VAlu(op), _) => {
            // A vector ALU result is whole rows (`compilable` admits no SDWA, DPP, op_sel
            // or clamp): one, or a pair for the 64-bit forms, which read pairs too.
            let w = valu_rows(op);
            let mut srcs = vec![i.src[0], i.src[1], i.src[2]];
            if matches!(op, VAluOp::Fmac | VAluOp::F64(3)) {
                srcs.push(i.dst);
            }
            for c in srcs.into_iter().filter(|&c| vgpr(c)) {
                for k in 0..w {
                    set(&mut reads, reg_index(c + k));
                }
            }
            if vgpr(i.dst) {
                for k in 0..w {
                    set(&mut writes, reg_index(i.dst + k));
                }
            }
        }
        _ => {
            for c in [i.dst, i.sdst, i.src[0], i.src[1], i.src[2]] {
                if vgpr(c) {
                    set(&mut reads, reg_index(c));
                    set(&mut reads, reg_index(c + 1));
                }
            }
        }
    }
    (reads, writes, succ)
}

/// The rows live at each address reachable from `start` in `fetch`'s program (empty when
/// the walk gives no answer, see the module docs).
pub(crate) fn live_rows(fetch: &dyn Fn(u64) -> Option<Inst>, start: u64) -> Live {
    let mut nodes: HashMap<u64, (Rows, Rows, Vec<u64>)> = HashMap::new();
    let mut work = vec![start];
    while let Some(pc) = work.pop() {
        if nodes.contains_key(&pc) {
            continue;
        }
        if nodes.len() >= MAX_WALK {
            return Live::new();
        }
        let Some(i) = fetch(pc) else {
            return Live::new();
        };
        if i.op == Op::S_ENDPGM {
            nodes.insert(pc, ([0; 8], [0; 8], Vec::new()));
            continue;
        }
        let Some(l) = compilable(&i) else {
            return Live::new();
        };
        if super::writes_exec(&i, l) {
            return Live::new();
        }
        let t = transfer(pc, &i, l);
        work.extend(t.2.iter().copied());
        nodes.insert(pc, t);
    }
    // Backward to a fixed point: live in = reads ∪ (live out ∖ writes).
    let mut live: Live = nodes.keys().map(|&pc| (pc, [0; 8])).collect();
    let mut order: Vec<u64> = nodes.keys().copied().collect();
    order.sort_unstable_by(|a, b| b.cmp(a));
    let mut changed = true;
    while changed {
        changed = false;
        for pc in &order {
            let (reads, writes, succ) = &nodes[pc];
            let mut out = [0u64; 8];
            for s in succ {
                for (o, x) in out.iter_mut().zip(live[s]) {
                    *o |= x;
                }
            }
            let mut new = [0u64; 8];
            for k in 0..8 {
                new[k] = reads[k] | (out[k] & !writes[k]);
            }
            if new != live[pc] {
                live.insert(*pc, new);
                changed = true;
            }
        }
    }
    live
}
