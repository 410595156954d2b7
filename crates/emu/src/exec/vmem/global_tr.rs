//! GFX12's global transpose loads, `global_load_tr_b128` (16-bit elements) and
//! `global_load_tr_b64` (8-bit elements), which feed WMMA operands from memory stored in the
//! other major order. In wave32 every lane reads 8 elements (128 or 64 bits) at its own
//! address, and each block of 8 lanes transposes its 8×8 matrix of elements: lane `j` of the
//! block receives, as its element `e`, element `j` of the block's lane `e` (the 8-lane case of
//! [`lds_tr::transpose`]). The map is the one Triton's gfx1200 lowering encodes (its
//! address and result linear layouts, citing RDNA4 ISA §11.6.2, whose comment describes 8
//! lanes loading an 8×8 block and transposing it), and agrees with a hardware-checked formula for
//! gfx1250's identical `global_load_tr16_b128`; LLVM's AMDGPU dialect and IREE describe both
//! widths as 8-element per-lane transposes. Written out per lane in this crate's tests.
//!
//! Wave64 (a 64-bit or 32-bit result: 4 elements per lane) is legal, but no source we have
//! gives its lane map; it faults as unimplemented rather than guess. Looked in (November 2026):
//! the seeds (002_… has no transpose load), LLVM (PR 77772 adding the instructions, the
//! `_w64` pseudos of `FLATInstructions.td` and clang's `__builtin_amdgcn_global_load_tr_*`
//! tests: register widths only, no lane map), MLIR's `amdgpu.global_transpose_load` (PR
//! 195287) and IREE issue 24454 (wave32 8×8 only), Triton's gfx1200 lowering (wave32 only),
//! and GPUOpen's RDNA4 WMMA guides (wave32). The RDNA4 ISA guide's transpose-load section
//! itself was not among the stored pages.
//!
//! Each dword is an ordinary checked global read (a bad address faults like any global
//! load). Inactive lanes read nothing and keep their registers; an active lane whose block
//! partner is inactive receives zero for that element (a choice: the ISA wants EXEC full).

use super::{lds_tr, Place};
use crate::decode::Inst;
use crate::error::FaultKind;
use crate::exec::{Env, Flow, LaneFault, R};
use crate::ops::Op;
use crate::wave::{Wave, LANES};

/// Element bits and dwords loaded per lane (wave32), or `None` for another opcode.
pub(super) fn shape(op: Op) -> Option<(u32, u32)> {
    match op {
        Op::GLOBAL_LOAD_TR_B128 => Some((16, 4)),
        Op::GLOBAL_LOAD_TR_B64 => Some((8, 2)),
        _ => None,
    }
}

/// Executes a transpose load from the per-lane global `places`.
pub(super) fn load<const C: bool>(
    w: &mut Wave,
    i: &Inst,
    env: &mut Env,
    places: &[Place; LANES],
    (bits, dwords): (u32, u32),
) -> R {
    if w.size() != 32 {
        let mnemonic = format!(
            "{} in wave64 (its lane map is not documented in any source we have)",
            i.name()
        );
        return Err(LaneFault::new(FaultKind::Unimplemented { mnemonic }, None));
    }
    let exec = w.exec();
    let raw = lds_tr::gather::<C>(w, env, dwords, |l, k| {
        super::advance(places[l], 4 * u64::from(k))
    })?;
    let out = lds_tr::transpose(&raw, bits, 32 * dwords / bits, 8);
    lds_tr::write_rows(w, i.dst, dwords, &out, exec);
    Ok(Flow::Next)
}
