//! Pair regions: a work-group's two wave32s (A, B) run by one call of a region compiled as
//! wave64, A's lanes 0–31 and B's 32–63 (docs/architecture-emu.md, "Pair regions").
//!
//! The scalar work is done once where both waves hold the same value. Which SGPRs may
//! differ between the two is found here, at compile time, by a forward analysis from the
//! entry, where the dispatcher guarantees every SGPR but VCC_LO and EXEC_LO equal (and SCC):
//! a *mask* SGPR is one a compare, a carry-out or a scalar instruction reading a mask wrote.
//! A scalar instruction reading a mask (or SCC after one) is generated once per wave, each
//! on its own scalar file (`side`); the others once, storing to both files. A vector
//! instruction reads a mask only as a lane mask (low half A's, high half B's); anything
//! else reading one (a vector operand, a memory address, `v_readlane`, `v_mbcnt`) and any
//! DS access leaves the region uncompiled for pairs.

use super::super::{Lower, SAluOp, VAluOp};
use super::lower_mem::{smem_load, touched};
use crate::decode::{flag, Fmt, Inst};
use crate::ops::Op;
use std::collections::{HashMap, HashSet};

/// The SGPRs (bit `c` for code `c` < 128) that may differ between the waves, and SCC.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
struct Taint {
    sgprs: u128,
    scc: bool,
}

fn bit(c: u16) -> u128 {
    if c < 128 {
        1u128 << c
    } else {
        0
    }
}

/// VCC_LO and EXEC_LO: per wave at every entry.
const ALWAYS: u128 = 1u128 << 106 | 1u128 << 126;

/// What the lowering does differently for pairs: the scalar instructions generated once per
/// wave, and the conditional branches whose condition is tested per wave (where the waves
/// disagree the region leaves before the branch).
#[derive(Default)]
pub(in crate::jit) struct PairPlan {
    pub(in crate::jit) side: HashSet<usize>,
    pub(in crate::jit) split_branch: HashSet<usize>,
    /// The SGPRs the waves must hold equal to enter (`equal_at_entry`).
    pub(in crate::jit) equal: Vec<u8>,
}

/// The successors of instruction `k` of `region` inside it.
fn successors(region: &[(u64, Inst, Lower)], at: &HashMap<u64, usize>, k: usize) -> Vec<usize> {
    let (pc, i, l) = &region[k];
    let next = pc + u64::from(i.size);
    let mut succ = Vec::new();
    match l {
        Lower::Branch(c) => {
            succ.push(super::super::branch_target(*pc, i));
            if *c != 0 {
                succ.push(next);
            }
        }
        Lower::Barrier => {}
        _ => succ.push(next),
    }
    succ.into_iter()
        .filter_map(|p| at.get(&p).copied())
        .collect()
}

/// The SGPRs `i` (lowered as `l`) may read as values (a superset; not the lane masks a
/// vector instruction reads), and those it surely writes.
fn reads_writes(i: &Inst, l: Lower) -> (u128, u128) {
    let pair = |c: u16| bit(c) | bit(c.wrapping_add(1));
    let srcs = |n: usize| i.src[..n].iter().fold(0, |m, &c| m | pair(c));
    match l {
        Lower::VAlu(_) | Lower::VCmp => (valu_reads(i, l), 0),
        Lower::SAlu(op) => {
            let n = salu_sources(op);
            let cmpk = if matches!(op, SAluOp::Cmpk(..)) {
                bit(i.dst)
            } else {
                0
            };
            (srcs(n) | cmpk, bit(i.dst))
        }
        Lower::Mem if i.fmt == Fmt::Smem => match smem_load(i) {
            Some((n, buffer)) => {
                let base = (0..if buffer { 4 } else { 2 }).fold(0, |m, w| m | bit(i.src[0] + w));
                let soffset = u16::try_from(i.ext).map_or(0, bit);
                let dst = (0..n as u16).fold(0, |m, d| m | bit(i.dst + d));
                (base | soffset | bit(124), dst & !(base | soffset))
            }
            None => (u128::MAX, 0),
        },
        Lower::Mem => {
            let base = if i.src[2] < 0x7f { pair(i.src[2]) } else { 0 };
            (base | bit(124), 0)
        }
        Lower::Step if i.op == Op::S_WAITCNT_VSCNT => (bit(i.dst), 0),
        _ => (0, 0),
    }
}

/// The SGPRs read before they are written on some path from one of `heads` (the region's
/// entries): the two waves must hold them equal to run it as a pair.
fn live_at(region: &[(u64, Inst, Lower)], at: &HashMap<u64, usize>, heads: &[usize]) -> u128 {
    let rw: Vec<(u128, u128)> = region.iter().map(|(_, i, l)| reads_writes(i, *l)).collect();
    let succ: Vec<Vec<usize>> = (0..region.len())
        .map(|k| successors(region, at, k))
        .collect();
    let mut live = vec![0u128; region.len()];
    loop {
        let mut changed = false;
        for k in (0..region.len()).rev() {
            let out = succ[k].iter().fold(0, |m, &s| m | live[s]);
            let new = rw[k].0 | (out & !rw[k].1);
            if new != live[k] {
                live[k] = new;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    heads.iter().fold(0, |m, &h| m | live[h])
}

/// The plan for `region` (instructions by address) entered at `heads` (region indices:
/// its basic blocks' starts), or why it cannot run as a pair.
pub(in crate::jit) fn plan(
    region: &[(u64, Inst, Lower)],
    heads: &[usize],
) -> Result<PairPlan, String> {
    let at: HashMap<u64, usize> = region
        .iter()
        .enumerate()
        .map(|(k, (pc, _, _))| (*pc, k))
        .collect();
    // A barrier tail (`after_barrier`) would count in the waves' next turns (`Wave::ahead`),
    // one each: the pair's exit does not write it.
    let tail = region.iter().any(|(pc, i, l)| {
        *l == Lower::Barrier
            && at
                .get(&(pc + u64::from(i.size)))
                .is_some_and(|&k| super::super::after_barrier(&region[k].1, region[k].2))
    });
    if tail {
        return Err("a barrier tail".into());
    }
    let equal = live_at(region, &at, heads) & !ALWAYS;
    let mut state: Vec<Option<Taint>> = vec![None; region.len()];
    // At an entry every SGPR but those compared may differ.
    let init = Taint {
        sgprs: ALWAYS | !equal,
        scc: false,
    };
    let mut work: Vec<usize> = heads.to_vec();
    for &h in heads {
        state[h] = Some(init);
    }
    let mut plan = PairPlan {
        equal: (0..128u8).filter(|&c| equal >> c & 1 != 0).collect(),
        ..PairPlan::default()
    };
    while let Some(k) = work.pop() {
        let t = state[k].expect("visited");
        let (_, i, l) = &region[k];
        let (out, side) = transfer(i, *l, t)?;
        if side {
            plan.side.insert(k);
        }
        if let Lower::Branch(c) = l {
            if (3..=6).contains(c) || (matches!(c, 1 | 2) && t.scc) {
                plan.split_branch.insert(k);
            }
        }
        for j in successors(region, &at, k) {
            let new = match state[j] {
                Some(old) => Taint {
                    sgprs: old.sgprs | out.sgprs | ALWAYS,
                    scc: old.scc | out.scc,
                },
                None => Taint {
                    sgprs: out.sgprs | ALWAYS,
                    scc: out.scc,
                },
            };
            if state[j] != Some(new) {
                state[j] = Some(new);
                work.push(j);
            }
        }
    }
    Ok(plan)
}

/// The taint after `i` (lowered as `l`) from `t` before it, and whether it is generated once
/// per wave; an error where a mask would be read as a value.
fn transfer(i: &Inst, l: Lower, t: Taint) -> Result<(Taint, bool), String> {
    let tainted = |c: u16| t.sgprs & (bit(c) | bit(c.wrapping_add(1))) != 0;
    let mut out = t;
    let why = || format!("`{}` reads a per-wave SGPR as a value", i.describe());
    match l {
        Lower::Nop | Lower::Barrier | Lower::Branch(_) => {}
        Lower::ReadFirstLane | Lower::ReadLane => {
            return Err(format!("`{}` reads one wave's lane", i.describe()))
        }
        Lower::VAlu(VAluOp::Mbcnt(_)) => {
            return Err(format!("`{}` numbers lanes per wave", i.describe()))
        }
        Lower::VAlu(_) | Lower::VCmp => {
            if valu_reads(i, l) & t.sgprs != 0 {
                return Err(why());
            }
            let writes_mask =
                matches!(op_of(l), Some(VAluOp::Carry(_) | VAluOp::Mad64(_))) || l == Lower::VCmp;
            if writes_mask {
                out.sgprs |= bit(i.sdst);
            }
        }
        Lower::SAlu(op) => {
            let n = salu_sources(op);
            let reads_scc = matches!(
                op,
                SAluOp::Cselect | SAluOp::Cselect64 | SAluOp::AddcU32 | SAluOp::SubbU32
            );
            let reads_exec = matches!(op, SAluOp::Saveexec(_) | SAluOp::Saveexec32(_));
            let side = reads_exec
                || (reads_scc && t.scc)
                || i.src[..n].iter().any(|&c| tainted(c))
                || (matches!(op, SAluOp::Cmpk(..)) && tainted(i.dst));
            if side {
                out.sgprs |= bit(i.dst) | if op.wide() { bit(i.dst + 1) } else { 0 };
                out.scc = true;
            } else {
                out.sgprs &= !bit(i.dst);
                if matches!(op, SAluOp::Cmp(..) | SAluOp::Cmpk(..) | SAluOp::Cmp64(_)) {
                    out.scc = false;
                }
            }
            return Ok((out, side));
        }
        Lower::Mem | Lower::Step => {
            if i.fmt == Fmt::Ds {
                return Err(format!("`{}`: DS in a pair region", i.describe()));
            }
            if let (Fmt::Smem, Some((n, buffer))) = (i.fmt, smem_load(i)) {
                let base = i.src[0];
                let words = if buffer { 4 } else { 2 };
                let soffset = !i.has(flag::IMM) || i.has(flag::SOE);
                if (0..words).any(|w| t.sgprs & bit(base + w) != 0)
                    || (soffset && t.sgprs & u16::try_from(i.ext).map_or(0, bit) != 0)
                {
                    return Err(why());
                }
                for d in 0..n as u16 {
                    out.sgprs &= !bit(i.dst + d);
                }
            } else if l == Lower::Step {
                if i.op == Op::S_WAITCNT_VSCNT && t.sgprs & bit(i.dst) != 0 {
                    return Err(why());
                }
            } else if matches!(i.fmt, Fmt::Global | Fmt::Flat) {
                // The SGPR base pair (0x7f: none), M0; EXEC is a lane mask.
                let base = i.src[2] < 0x7f && tainted(i.src[2]);
                if base || t.sgprs & bit(124) != 0 {
                    return Err(why());
                }
            } else {
                let per_wave = |c: usize| c < 126 && t.sgprs & bit(c as u16) != 0;
                if touched(i, false).sgprs.into_iter().any(per_wave) {
                    return Err(why());
                }
            }
        }
    }
    Ok((out, false))
}

/// The SGPRs a vector instruction reads as values (its scalar sources; a pair for the
/// 64-bit ones), not the lane masks (`v_cndmask`'s, a carry-in).
fn valu_reads(i: &Inst, l: Lower) -> u128 {
    let (n, wide): (usize, &dyn Fn(usize) -> bool) = match l {
        Lower::VAlu(op) => (
            op.sources(),
            match op {
                VAluOp::Mad64(_) => &|k| k == 2,
                VAluOp::Shift64(_) => &|k| k == 1,
                VAluOp::PkF32(_) | VAluOp::F64(_) => &|_| true,
                _ => &|_| false,
            },
        ),
        _ => (2, &|_| matches!(i.imm >> 5 & 15, 5 | 8)),
    };
    (0..n).fold(0, |m, k| {
        let c = i.src[k];
        m | bit(c) | if wide(k) { bit(c.wrapping_add(1)) } else { 0 }
    })
}

/// How many of a scalar ALU instruction's `src` operands it reads.
fn salu_sources(op: SAluOp) -> usize {
    match op {
        SAluOp::Movk | SAluOp::GetPc => 0,
        SAluOp::Mov
        | SAluOp::Mov64
        | SAluOp::Not(_)
        | SAluOp::Brev
        | SAluOp::Ff1
        | SAluOp::Saveexec(_)
        | SAluOp::Saveexec32(_) => 1,
        _ => 2,
    }
}

fn op_of(l: Lower) -> Option<VAluOp> {
    match l {
        Lower::VAlu(op) => Some(op),
        _ => None,
    }
}
