//! Memory instructions (and the waits) in compiled blocks. A memory instruction compiles to
//! one call of [`mem_call`], which runs the interpreter's one-range fast path for it
//! (`vmem::jit_fast`): the active lanes' lowest and highest address checked once against one
//! mapped region (LDS offsets against the work-group's LDS), then the same host accesses the
//! interpreter makes (so the same single-copy atomicity and ordering). When that path
//! declines — an unmapped or read-only address, lanes straddling regions, an aperture
//! address, an LDS offset out of range — it has changed nothing, and the block returns the
//! number of instructions before this one: the wave's registers, SCC and `lane_ops` are
//! exactly those after the preceding instructions, and the run loop sets the PC and lets
//! the interpreter execute (and report) this instruction. The `s_waitcnt` family compiles
//! to a call of the interpreter's `step` ([`step_call`]), which keeps its StoreLoad fence.
//!
//! The registers stay in the `Wave` across the call (the block loads and stores them per
//! operation), so the called code sees and leaves the wave as the interpreter would.

use super::{Gen, Lower};
use crate::decode::Inst;
use crate::exec::{self, Flow};
use crate::jit::CallCtx;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Signature};

/// Runs memory instruction `i` on its fast path for the block's wave: 1 when done, 0 when the
/// block must end before it.
///
/// # Safety
/// `ctx` is the live `CallCtx` of the running block (`Block::run`), whose wave no one else
/// touches during the call, and `i` points into the block's instructions.
unsafe extern "C" fn mem_call(ctx: *mut CallCtx, i: *const Inst) -> u32 {
    // SAFETY: as the function's contract says; `Block::run` made every pointer of `ctx`
    // from live exclusive borrows that outlast the block's run.
    let (w, env, journal, i) = unsafe {
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
    let (w, env, i) = unsafe { (&mut *(*ctx).wave, &mut *(*ctx).env, &*i) };
    u32::from(matches!(exec::step::<false>(w, i, env), Ok(Flow::Next)))
}

impl Gen<'_> {
    /// A call of [`mem_call`] or [`step_call`] for `i`; when it answers 0, the block returns
    /// the number of instructions before `i`.
    pub(super) fn call_interpreter(&mut self, i: &Inst, l: Lower) {
        let ptr = self.b.func.dfg.value_type(self.ctx);
        // The block's own convention: the host's C one (`BlockFn`).
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
        let (exit, next) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(ok, next, &[], exit, &[]);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        let before = self.b.ins().iconst(types::I32, i64::from(self.index));
        self.b.ins().return_(&[before]);
        self.b.switch_to_block(next);
        self.b.seal_block(next);
    }
}
