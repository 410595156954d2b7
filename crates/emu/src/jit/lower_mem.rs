//! Memory instructions (and the waits) in compiled regions. GLOBAL/FLAT dword accesses, SMEM
//! loads and the waits are generated inline where they can be (`inline_mem.rs`), with the
//! call below as their fallback. Otherwise a memory instruction compiles to one call of
//! [`mem_call`], which runs the interpreter's one-range fast path for it
//! (`vmem::jit_fast`): the active lanes' lowest and highest address checked once against one
//! mapped region (LDS offsets against the work-group's LDS), then the same host accesses the
//! interpreter makes (so the same single-copy atomicity and ordering). The `s_waitcnt` family
//! compiles to a call of the interpreter's `step` ([`step_call`]), which keeps its StoreLoad
//! fence.
//!
//! The region holds SGPRs in Cranelift variables (VGPR rows are stored as written, except
//! the rows written on lane-affine facts, which stay pending until something reads them in
//! the `Wave`: a call stores every pending row), so around a call:
//! - **before**, the registers the instruction may read or write ([`touched`]: its address,
//!   data and destination registers, EXEC, M0) are stored from their variables into the
//!   `Wave` (a destination too: the lanes a load leaves alone must be current there), and
//!   `lane_ops`;
//! - **after**, the ones it may write ([`written`]: a load's destination) and `lane_ops` are
//!   loaded back into their variables.
//!
//! When the fast path declines — an unmapped or read-only address, lanes straddling regions,
//! an aperture address, an LDS offset out of range — it has changed nothing, and the region
//! exits before the instruction (`exit_if`): every written register is stored back, the PC is
//! the instruction's, the count is the instructions before it, and the interpreter executes
//! (and reports) it.

use super::{Gen, Lower};
use crate::decode::{Fmt, Inst, Kind, VGPR};
use crate::exec::{self, Flow};
use crate::jit::CallCtx;
use crate::wave::reg_index;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Signature};

#[path = "inline_lds.rs"]
mod inline_lds;
pub(in crate::jit) use inline_lds::{ds_load_rows, predict_ds_shapes, run_ds_load};
#[path = "inline_mem.rs"]
mod inline_mem;
pub(super) use inline_mem::{kept_loads, smem_groups, SmemShare};

/// Runs memory instruction `i` on its fast path for the region's wave: 1 when done, 0 when
/// the region must exit before it.
///
/// # Safety
/// `ctx` is the live `CallCtx` of the running region (`Block::run`), whose wave no one else
/// touches during the call, and `i` points into the region's instructions.
unsafe extern "C" fn mem_call(ctx: *mut CallCtx, i: *const Inst) -> u32 {
    // SAFETY: as the function's contract says; `Block::run` made every pointer of `ctx`
    // from live exclusive borrows that outlast the region's run.
    let (w, env, journal, i) = unsafe {
        (*ctx).calls += 1;
        (
            &mut *(*ctx).wave,
            &mut *(*ctx).env,
            (*ctx).journal.as_mut(),
            &*i,
        )
    };
    u32::from(exec::jit_fast::run(w, i, env, journal))
}

/// Runs `i` (a wait) in the interpreter; always 1 (`compilable` admits only instructions
/// that continue).
///
/// # Safety
/// As [`mem_call`].
unsafe extern "C" fn step_call(ctx: *mut CallCtx, i: *const Inst) -> u32 {
    // SAFETY: as for `mem_call`.
    let (w, env, i) = unsafe {
        (*ctx).calls += 1;
        (&mut *(*ctx).wave, &mut *(*ctx).env, &*i)
    };
    u32::from(matches!(exec::step::<false>(w, i, env), Ok(Flow::Next)))
}

/// The registers a memory instruction `jit_fast::admits` may read or write: (SGPR codes,
/// VGPR rows). EXEC and M0; for an SMEM load its destination, base (pair or buffer
/// descriptor) and SGPR offset; for other SMEM instructions, generous: the SGPRs from each
/// scalar operand code up to 16 on; for GLOBAL the SGPR base pair; from each vector
/// operand its rows (one for an LDS address or a GLOBAL offset from an SGPR base, else two
/// for an address; the data's dwords for data and destinations). With a `full` EXEC a
/// load's destination rows are left out: it writes every lane of them, so what the `Wave`
/// held there does not matter.
pub(super) fn touched(i: &Inst, full: bool) -> Regs {
    let m = i.mem;
    let mut data = if m.two {
        2 * usize::from(m.bytes) / 4
    } else {
        (usize::from(m.bytes) * usize::from(m.count) / 4).max(1)
    };
    // A GLOBAL/FLAT compare-swap's data is the new value then the compare value, one
    // register tuple (DS names them apart).
    if m.kind == Kind::Atomic && i.fmt != Fmt::Ds {
        data *= 2;
    }
    let mut sgprs = vec![124, 126, 127];
    let mut rows = Vec::new();
    let ext = if i.fmt == Fmt::Smem && i.ext < 128 {
        Some(i.ext as u16)
    } else {
        None
    };
    let smem = i.fmt == Fmt::Smem;
    if let Some((n, buffer)) = smem.then(|| smem_load(i)).flatten() {
        // A plain load: its destination, base and offset exactly (the generous rule below
        // put up to 48 SGPRs in the region's set, each loaded at its entry).
        let (d, b) = (usize::from(i.dst), usize::from(i.src[0]));
        sgprs.extend(d..d + n);
        sgprs.extend(b..b + if buffer { 4 } else { 2 });
        sgprs.extend(ext.map(usize::from));
        sgprs.retain(|&c| c < 128);
        sgprs.sort_unstable();
        sgprs.dedup();
        return Regs {
            sgprs,
            rows: Vec::new(),
        };
    }
    let one_row_address = i.fmt == Fmt::Ds || (i.fmt == Fmt::Global && i.src[2] != 0x7f);
    for (k, code) in [i.dst, i.src[0], i.src[1], i.src[2]]
        .into_iter()
        .chain(ext)
        .enumerate()
    {
        if code < 128 {
            if smem {
                sgprs.extend(usize::from(code)..(usize::from(code) + 16).min(128));
            } else if k == 3 && i.fmt == Fmt::Global {
                sgprs.extend([usize::from(code), usize::from(code + 1) % 128]);
            }
        } else if code >= VGPR {
            let n = match k {
                0 if full && m.kind == Kind::Load => 0,
                1 if one_row_address => 1,
                1 => 2,
                _ => data,
            };
            rows.extend((0..n).map(|d| reg_index(code + d as u16)));
        }
    }
    sgprs.sort_unstable();
    sgprs.dedup();
    rows.sort_unstable();
    rows.dedup();
    Regs { sgprs, rows }
}

/// The VGPR rows memory instruction `i` may read or write under any EXEC (`touched`), for
/// the liveness walk (`live.rs`).
pub(super) fn touched_rows(i: &Inst) -> Vec<usize> {
    touched(i, false).rows
}

/// An SMEM load's dwords and whether it is a buffer load (`exec::smem`'s loads), or `None`
/// for another SMEM instruction.
pub(super) fn smem_load(i: &Inst) -> Option<(usize, bool)> {
    use crate::ops::Op;
    Some(match i.op {
        Op::S_LOAD_DWORD => (1, false),
        Op::S_LOAD_DWORDX2 => (2, false),
        Op::S_LOAD_DWORDX4 => (4, false),
        Op::S_LOAD_DWORDX8 => (8, false),
        Op::S_LOAD_DWORDX16 => (16, false),
        Op::S_BUFFER_LOAD_DWORD => (1, true),
        Op::S_BUFFER_LOAD_DWORDX2 => (2, true),
        Op::S_BUFFER_LOAD_DWORDX4 => (4, true),
        Op::S_BUFFER_LOAD_DWORDX8 => (8, true),
        Op::S_BUFFER_LOAD_DWORDX16 => (16, true),
        _ => return None,
    })
}

/// Which of [`touched`] the instruction may write: an SMEM load's SGPRs, a vector load's
/// or returning atomic's destination rows; a store writes no register.
fn written(i: &Inst, t: &Regs) -> Regs {
    let d = usize::from(i.dst);
    if i.fmt == Fmt::Smem {
        let sgprs = t
            .sgprs
            .iter()
            .copied()
            .filter(|&c| (d..d + 16).contains(&c));
        return Regs {
            sgprs: sgprs.collect(),
            rows: Vec::new(),
        };
    }
    let m = i.mem;
    let returns = match m.kind {
        Kind::Load => true,
        // DS atomics say so in their opcode (`_rtn_`), GLOBAL/FLAT ones with GLC.
        Kind::Atomic if i.fmt == Fmt::Ds => m.rtn,
        Kind::Atomic => i.has(crate::decode::flag::GLC),
        _ => false,
    };
    if !returns || i.dst < VGPR {
        return Regs::default();
    }
    let n = if m.kind == Kind::Atomic {
        usize::from(m.bytes) / 4
    } else if m.two {
        2 * usize::from(m.bytes) / 4
    } else {
        (usize::from(m.bytes) * usize::from(m.count) / 4).max(1)
    };
    Regs {
        sgprs: Vec::new(),
        rows: (0..n).map(|k| reg_index(i.dst + k as u16)).collect(),
    }
}

/// SGPR codes and VGPR rows.
#[derive(Default)]
pub(super) struct Regs {
    pub(super) sgprs: Vec<usize>,
    rows: Vec<usize>,
}

impl Gen<'_> {
    /// A call of [`mem_call`] or [`step_call`] for `i` at `pc`, with the registers it may
    /// touch stored before and loaded after; when the call answers 0, the region exits
    /// before `i`.
    pub(super) fn call_interpreter(&mut self, pc: u64, i: &Inst, l: Lower) {
        // DS, GLOBAL/FLAT/SMEM accesses and waits inline, with this call as their fallback.
        let inline = (l == Lower::Mem && self.inline_ds(pc, i)) || self.inline_mem(pc, i, l);
        if !inline {
            self.call_path(pc, i, l);
        }
    }

    /// The call of [`mem_call`] or [`step_call`] (see [`Gen::call_interpreter`]).
    fn call_path(&mut self, pc: u64, i: &Inst, l: Lower) {
        // The interpreter may store (and set `Wave::stored`).
        self.stored_clear = false;
        if self.pair {
            // A call runs one wave: a pair leaves before the instruction instead, both
            // waves at it, and the interpreter runs it for each (not inside a run's group
            // pass, which never exits).
            if self.grp.is_some() {
                self.pair_fail = Some(format!("`{}` is a call inside a run", i.describe()));
                return;
            }
            let always = self.b.ins().iconst(types::I8, 1);
            self.exit_if(always, pc);
            return;
        }
        let touched = if l == Lower::Mem {
            touched(i, self.full)
        } else {
            Regs::default()
        };
        self.regs_to_wave();
        let ptr = self.b.func.dfg.value_type(self.ctx);
        // The region's own convention: the host's C one (`BlockFn`).
        let mut sig = Signature::new(self.b.func.signature.call_conv);
        sig.params.push(AbiParam::new(ptr));
        sig.params.push(AbiParam::new(ptr));
        sig.returns.push(AbiParam::new(types::I32));
        let sig = self.b.import_signature(sig);
        let f: unsafe extern "C" fn(*mut CallCtx, *const Inst) -> u32 =
            if l == Lower::Mem { mem_call } else { step_call };
        let f = self.b.ins().iconst(ptr, f as usize as i64);
        let ip = self
            .b
            .ins()
            .iconst(ptr, std::ptr::from_ref(i) as usize as i64);
        let call = self.b.ins().call_indirect(sig, f, &[self.ctx, ip]);
        let ok = self.b.inst_results(call)[0];
        if l == Lower::Mem {
            let declined = self.b.ins().icmp_imm(IntCC::Equal, ok, 0);
            self.exit_if(declined, pc);
            let w = written(i, &touched);
            self.regs_from_wave(&w.sgprs, &w.rows);
        }
    }

    /// Stores the pending rows, the pending SGPRs and `lane_ops` into the `Wave`.
    fn regs_to_wave(&mut self) {
        // The rows are current in the `Wave` but those written on lane-affine facts and not
        // yet stored (`affine.rs`): all of them are stored, `rows` or not (a slow path's
        // call, worth no bookkeeping of which rows it reads).
        self.store_facts_for_exit();
        self.store_sgprs();
        debug_assert_eq!(self.lanes_due, 0, "lane-ops left waiting before a call");
        let lane_ops = self.b.use_var(self.lane_ops);
        self.b
            .ins()
            .store(super::mf(), lane_ops, self.s, super::super::LANE_OPS_AT);
    }

    /// Forgets the block's values of `sgprs` and `rows` and loads `lane_ops` from the
    /// `Wave` (what a call left there).
    fn regs_from_wave(&mut self, sgprs: &[usize], rows: &[usize]) {
        if !sgprs.is_empty() {
            self.cfacts.clear();
        }
        for &code in sgprs {
            self.forget_sgpr(code);
        }
        for &row in rows {
            self.forget_row(row);
        }
        let lane_ops =
            self.b
                .ins()
                .load(types::I64, super::mf(), self.s, super::super::LANE_OPS_AT);
        self.b.def_var(self.lane_ops, lane_ops);
        // A load may have written EXEC's SGPRs' neighbours, never EXEC: the cached lane
        // selects stay valid, but the block changed (`exit_if`), which cleared them.
    }
}
