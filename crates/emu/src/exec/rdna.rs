//! GFX10.3 (RDNA2) semantics that GFX8/GFX9 do not have: the 32-bit EXEC forms of wave32
//! (`s_*_saveexec_b32`, `s_*_wrexec_b32`), the split wait counters (`s_waitcnt_vscnt` is
//! where the StoreLoad fence goes, amdgpu-execution.md §2.3), `s_denorm_mode` /
//! `s_round_mode`, the GFX10 hardware registers (FLAT_SCR_LO/HI, HW_ID1/HW_ID2), DPP8 and
//! the lane permutes `v_permlane16_b32` / `v_permlanex16_b32`, and the VALU opcodes new in
//! GFX10. Opcodes GFX10 only renamed (`v_add_nc_u32`, `v_add_co_ci_u32`, …) map to the
//! GFX9 operations in the decoder (`decode/gfx10.rs`).
//!
//! Wave32 runs in lanes 0–31 of the 64-lane rows with EXEC_HI = 0 (`Wave::wave32`), so the
//! vector semantics shared with GFX9 apply unchanged; lane masks are written one SGPR wide by
//! `Wave::write_mask` / `Wave::merge_mask`, and VCC is read through `Wave::vcc`.

use super::valu::{fma_f32_rows, put, put_f16, put_f32, Ctx, Scratch};
use super::wmma::bf16_of;
use super::{Flow, LaneFault, R};
use crate::decode::Inst;
use crate::error::FaultKind;
use crate::ops::Op;
use crate::wave::{reg_index, Row, Ty, Wave, LANES};

/// GFX10 scalar ALU operations (SOP1, SOPK); `None` for an operation that is not one.
// Out of line: inlined, it would grow the prologue of the GFX9 hot paths that fall back
// to it.
#[cold]
#[inline(never)]
pub(super) fn salu(w: &mut Wave, i: &Inst) -> Option<R> {
    let s = w.sread(i.src[0], i.lit, Ty::B32);
    // EXEC_LO is scalar register 126; in wave32 EXEC_HI stays 0.
    let exec = w.s[126];
    let saveexec = |w: &mut Wave, new: u32| {
        w.swrite(i.dst, exec);
        w.s[126] = new;
        w.scc = new != 0;
    };
    let wrexec = |w: &mut Wave, new: u32| {
        w.s[126] = new;
        w.swrite(i.dst, new);
        w.scc = new != 0;
    };
    match i.op {
        Op::S_AND_SAVEEXEC_B32 => saveexec(w, s & exec),
        Op::S_OR_SAVEEXEC_B32 => saveexec(w, s | exec),
        Op::S_XOR_SAVEEXEC_B32 => saveexec(w, s ^ exec),
        Op::S_ANDN2_SAVEEXEC_B32 => saveexec(w, s & !exec),
        Op::S_ORN2_SAVEEXEC_B32 => saveexec(w, s | !exec),
        Op::S_NAND_SAVEEXEC_B32 => saveexec(w, !(s & exec)),
        Op::S_NOR_SAVEEXEC_B32 => saveexec(w, !(s | exec)),
        Op::S_XNOR_SAVEEXEC_B32 => saveexec(w, !(s ^ exec)),
        Op::S_ANDN1_SAVEEXEC_B32 => saveexec(w, !s & exec),
        Op::S_ORN1_SAVEEXEC_B32 => saveexec(w, !s | exec),
        Op::S_ANDN1_WREXEC_B32 => wrexec(w, !s & exec),
        Op::S_ANDN2_WREXEC_B32 => wrexec(w, s & !exec),
        // SOPK waits: the count is simm16 plus the SGPR operand (`null` in compiler output).
        Op::S_WAITCNT_VSCNT => {
            let count = w.sread(i.dst, 0, Ty::B32).wrapping_add(i.imm as u32) & 0x3f;
            // GFX10 counts stores in vscnt, not vmcnt: waiting for all of them is the
            // StoreLoad point of a seq_cst sequence (R5, as `s_waitcnt vmcnt(0)` on GFX9).
            if count == 0 && w.stored {
                #[cfg(not(feature = "no-storeload-fence"))]
                crate::memory::host::fence();
                w.stored = false;
            }
        }
        Op::S_WAITCNT_VMCNT | Op::S_WAITCNT_EXPCNT | Op::S_WAITCNT_LGKMCNT => {}
        // GFX12: sleep for S0[6:0]·64 clocks; like `s_sleep`, the wave yields to the others
        // (spin-wait loops sleep between polls).
        Op::S_SLEEP_VAR => return Some(Ok(Flow::Yield)),
        // GFX12 split barrier: `s_barrier_signal -1` signals the work-group barrier and
        // `s_barrier_wait -1` waits for it. The wave waits here, at the signal: every wave has
        // signalled before any passes, and what a wave runs between its signal and its wait
        // then runs after every signal, an order the hardware may also produce. Named barriers
        // (other ids) are not implemented.
        Op::S_BARRIER_SIGNAL if s == u32::MAX => return Some(Ok(Flow::Barrier)),
        // Not RDNA4 instructions: LLVM's GFX12 tables hold the named-barrier operations
        // (`s_barrier_init`/`s_barrier_join`, SOP1 81/82), but the RDNA4 ISA's opcode tables
        // do not; and `s_alloc_vgpr` is illegal unless dynamic VGPR mode is on (DVGPR_EN),
        // which a compute dispatch through HSA never enables. Illegal instructions.
        Op::S_BARRIER_INIT | Op::S_BARRIER_JOIN | Op::S_ALLOC_VGPR => {
            return Some(Err(LaneFault::new(
                FaultKind::IllegalInstruction { word: i.word },
                None,
            )))
        }
        // GFX11.5's scalar float operations.
        _ => return super::salu_float::salu(w, i),
    }
    Some(Ok(Flow::Next))
}

/// GFX10 program-control operations (SOPP); `None` for an operation that is not one.
// Out of line: inlined, it would grow the prologue of the GFX9 hot paths that fall back
// to it.
#[cold]
#[inline(never)]
pub(super) fn sopp(w: &mut Wave, i: &Inst) -> Option<R> {
    let k = i.imm as u32;
    match i.op {
        // Scheduling and prefetch hints (GFX11's `s_delay_alu`, `s_clause` and
        // `s_set_inst_prefetch_distance` and GFX12's `s_wait_alu` and load/LDS/scalar counter
        // waits are no-ops in `exec::sopp`, out of this cold path).
        Op::S_INST_PREFETCH | Op::S_WAITCNT_DEPCTR | Op::S_TTRACEDATA_IMM => {}
        // GFX12: the work-group barrier was waited for at `s_barrier_signal -1`.
        Op::S_BARRIER_WAIT if k as u16 as i16 == -1 => {}
        // Not in the RDNA4 ISA's SOPP table (a named-barrier operation of LLVM's GFX12
        // tables): an illegal instruction, as `s_barrier_init` above.
        Op::S_BARRIER_LEAVE => {
            return Some(Err(LaneFault::new(
                FaultKind::IllegalInstruction { word: i.word },
                None,
            )))
        }
        // GFX12 split counters. Memory operations complete in order, so only a wait for
        // every store (storecnt 0) does something: the StoreLoad point of a seq_cst
        // sequence, as `s_waitcnt_vscnt null, 0` on GFX10/GFX11.
        Op::S_WAIT_EXPCNT | Op::S_WAIT_SAMPLECNT | Op::S_WAIT_BVHCNT => {}
        Op::S_WAIT_STORECNT | Op::S_WAIT_STORECNT_DSCNT => {
            // s_wait_storecnt: the count in 5:0; s_wait_storecnt_dscnt: storecnt in 13:8.
            let count = if i.op == Op::S_WAIT_STORECNT {
                k & 0x3f
            } else {
                (k >> 8) & 0x3f
            };
            if count == 0 && w.stored {
                #[cfg(not(feature = "no-storeload-fence"))]
                crate::memory::host::fence();
                w.stored = false;
            }
        }
        // MODE.FP_ROUND (3:0) and MODE.FP_DENORM (7:4), from the next instruction on.
        Op::S_ROUND_MODE => w.mode = (w.mode & !0xf) | (k & 0xf),
        Op::S_DENORM_MODE => w.mode = (w.mode & !0xf0) | (k & 0xf) << 4,
        // Padding after the last instruction of a program: executing it is an illegal
        // instruction on the hardware too.
        Op::S_CODE_END => {
            return Some(Err(LaneFault::new(
                FaultKind::IllegalInstruction { word: i.word },
                None,
            )))
        }
        _ => return None,
    }
    Some(Ok(Flow::Next))
}

/// GFX12 `s_barrier_signal_isfirst` and `s_get_barrier_state sdst` for the work-group barrier
/// (id −1), by the RDNA4 ISA's pseudo-code: isfirst sets SCC when no wave has signalled the
/// barrier yet in this phase, then signals it (the wave waits there, as at
/// `s_barrier_signal -1`); id 0 is a no-op that clears SCC. get_barrier_state returns
/// `{signalCnt[22:16], memberCnt[10:4], valid[0]}`. Other ids (named and trap barriers) fault
/// as unimplemented.
pub(super) fn barrier_state(w: &mut Wave, i: &Inst, b: super::BarrierState) -> R {
    let id = w.sread(i.src[0], i.lit, Ty::B32) as i32;
    match (i.op, id) {
        (Op::S_BARRIER_SIGNAL_ISFIRST, -1) => {
            w.scc = b.signalled == 0;
            Ok(Flow::Barrier)
        }
        (Op::S_BARRIER_SIGNAL_ISFIRST, 0) => {
            w.scc = false;
            Ok(Flow::Next)
        }
        (Op::S_GET_BARRIER_STATE, -1) => {
            w.swrite(
                i.dst,
                (b.signalled & 0x7f) << 16 | (b.members & 0x7f) << 4 | 1,
            );
            Ok(Flow::Next)
        }
        _ => Err(LaneFault::new(
            FaultKind::Unimplemented {
                mnemonic: format!("{} {id} (named or trap barrier)", i.name()),
            },
            None,
        )),
    }
}

/// GFX11 `s_sendmsg_rtn_b32`/`_b64 sdst, sendmsg(ID)` (the ID, SSRC0's field, in `imm`). GET_REALTIME returns the 100 MHz realtime counter (what `s_memrealtime` read before
/// GFX11; the instruction count under `deterministic`); GET_TBA/GET_TMA 0 (no trap handler
/// is installed); GET_DOORBELL and GET_DDID 0 (one queue, and no dispatch ID is modelled).
/// Other IDs (SAVE_WAVE: context save) fault as unimplemented, naming the ID.
pub(super) fn sendmsg_rtn(w: &mut Wave, i: &Inst, env: &super::Env) -> R {
    let v = match i.imm {
        131 if env.deterministic => super::clock::deterministic(w.instructions),
        131 => super::clock::memrealtime(),
        128 | 129 | 130 | 133 => 0,
        id => {
            return Err(LaneFault::new(
                FaultKind::Unimplemented {
                    mnemonic: format!("{} sendmsg({id})", i.name()),
                },
                None,
            ))
        }
    };
    if i.op == Op::S_SENDMSG_RTN_B64 {
        w.swrite64(i.dst, v);
    } else {
        w.swrite(i.dst, v as u32);
    }
    Ok(Flow::Next)
}

/// `s_getreg_b32` of a GFX10 hardware register, or `None` for the IDs GFX10 shares with GFX9
/// (MODE, STATUS, TRAPSTS, SH_MEM_BASES: `exec::getreg`). GFX9's HW_ID (4) is not a GFX10
/// register (its fields moved to HW_ID1/HW_ID2), but ROCm 5.2's `__smid` still reads it on
/// gfx1030 with the GFX9 fields (CU_ID 11:8, SE_ID 14:13); the emulator answers it like GFX9
/// so that work-groups on different host threads see different compute units there too.
pub(super) fn getreg(w: &Wave, id: u32) -> Option<u32> {
    Some(match id {
        20 => w.flat_scratch as u32,
        21 => (w.flat_scratch >> 32) as u32,
        // HW_ID1: WAVE_ID [4:0], SIMD_ID [9:8] from the host worker, WGP_ID [13:10], SA_ID
        // [16], SE_ID [20:18] from the work-group's emulated compute unit.
        23 => {
            w.id & 0x1f
                | (w.simd & 3) << 8
                | (w.cu & 0xf) << 10
                | (w.cu >> 4 & 1) << 16
                | (w.cu >> 5 & 7) << 18
        }
        // HW_ID2 (queue, pipe, ME, state, work-group slot, VM ID): one queue, VMID 0.
        24 => 0,
        // SHADER_CYCLES (GFX10.3): a 20-bit free-running counter; the wave's instruction count
        // stands in for clocks.
        29 => (w.instructions & 0xf_ffff) as u32,
        _ => return None,
    })
}

/// `s_setreg_b32` of a GFX10-only hardware register (`mask` selects the field, `v` is already
/// shifted into place); `false` for the IDs GFX10 shares with GFX9.
pub(super) fn setreg(w: &mut Wave, id: u32, mask: u32, v: u32) -> bool {
    let (shift, keep) = match id {
        // The kernel prologue writes FLAT_SCRATCH (init + wave offset) here; accesses to
        // private memory use the wave's scratch slot directly (`Wave::scratch_base`).
        20 => (0, 0xffff_ffff_0000_0000),
        21 => (32, 0x0000_0000_ffff_ffff),
        _ => return false,
    };
    let old = (w.flat_scratch >> shift) as u32;
    let new = (old & !mask) | (v & mask);
    w.flat_scratch = (w.flat_scratch & keep) | u64::from(new) << shift;
    true
}

/// GFX10 vector ALU operations (the last part of `valu::valu_body`'s table, see
/// `ops::valu_part`).
#[inline(never)]
pub(super) fn valu_rdna(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, _mode: u32) -> Option<R> {
    let i = c.i;
    match i.op {
        Op::V_PERMLANE16_B32
        | Op::V_PERMLANEX16_B32
        | Op::V_PERMLANE16_VAR_B32
        | Op::V_PERMLANEX16_VAR_B32 => permlane(w, c),
        // GFX12 (exec/gfx12.rs).
        Op::V_MINIMUM_F32
        | Op::V_MAXIMUM_F32
        | Op::V_MINIMUM_F16
        | Op::V_MAXIMUM_F16
        | Op::V_MINIMUM_F64
        | Op::V_MAXIMUM_F64
        | Op::V_MINIMUM3_F16
        | Op::V_MAXIMUM3_F16
        | Op::V_MINIMUMMAXIMUM_F32
        | Op::V_MAXIMUMMINIMUM_F32
        | Op::V_MINIMUMMAXIMUM_F16
        | Op::V_MAXIMUMMINIMUM_F16 => super::gfx12::minimum_maximum(w, c, sc),
        Op::V_S_EXP_F32
        | Op::V_S_LOG_F32
        | Op::V_S_RCP_F32
        | Op::V_S_RSQ_F32
        | Op::V_S_SQRT_F32
        | Op::V_S_EXP_F16
        | Op::V_S_LOG_F16
        | Op::V_S_RCP_F16
        | Op::V_S_RSQ_F16
        | Op::V_S_SQRT_F16 => super::gfx12::scalar_transcendental(w, c, sc),
        // GFX11: lane l of a wave64 reads lane l ^ 32 (inactive lanes too); nothing in wave32.
        Op::V_PERMLANE64_B32 => {
            if !w.wave32 {
                let src = w.v[reg_index(i.src[0])];
                for l in 0..LANES {
                    sc.r[l] = src[l ^ 32];
                }
                let r = sc.r;
                w.vwrite(i.dst, &r, c.exec);
            }
        }
        // GFX11 true16: swaps the VGPR halves named by op_sel (bit 3 the destination's,
        // bit 0 the source's); the two may be halves of one register.
        Op::V_SWAP_B16 => {
            let sel = super::valu::vop3_opsel(i);
            let (dhi, shi) = (sel & 8 != 0, sel & 1 != 0);
            let half = |x: u32, hi: bool| if hi { x >> 16 } else { x & 0xffff };
            let set = |x: u32, v: u32, hi: bool| {
                if hi {
                    x & 0xffff | v << 16
                } else {
                    x & 0xffff_0000 | v
                }
            };
            let d = w.v[reg_index(i.dst)];
            let s = w.v[reg_index(i.src[0])];
            for l in 0..LANES {
                sc.r[l] = set(d[l], half(s[l], shi), dhi);
            }
            let r = sc.r;
            w.vwrite(i.dst, &r, c.exec);
            let now = w.v[reg_index(i.src[0])];
            for l in 0..LANES {
                sc.r[l] = set(now[l], half(d[l], dhi), shi);
            }
            let r = sc.r;
            w.vwrite(i.src[0], &r, c.exec);
        }
        // GFX11: D.f16 = S0.lo·S1.lo + S0.hi·S1.hi + S2.f16 (f16 or bf16 halves), rounded
        // once to nearest even; op_sel[2] reads S2's high half, op_sel[3] writes D's high
        // half (the other half is kept).
        Op::V_DOT2_F16_F16 | Op::V_DOT2_BF16_BF16 => {
            let bf = i.op == Op::V_DOT2_BF16_BF16;
            let val = |x: u32| -> f64 {
                let x = x & 0xffff;
                if bf {
                    f64::from(f32::from_bits(x << 16))
                } else {
                    half::f16::from_bits(x as u16).to_f64()
                }
            };
            let a = w.vsrc(i.src[0], i.lit, Ty::B32);
            let b = w.vsrc(i.src[1], i.lit, Ty::B32);
            let cc = w.vsrc(i.src[2], i.lit, Ty::B32);
            let old = w.v[reg_index(i.dst)];
            let sel = super::valu::vop3_opsel(i);
            for l in 0..LANES {
                let z = if sel & 4 != 0 { cc[l] >> 16 } else { cc[l] };
                let s = val(a[l]) * val(b[l]) + val(a[l] >> 16) * val(b[l] >> 16) + val(z);
                let h = if bf {
                    bf16_of(s)
                } else {
                    half::f16::from_f64(s).to_bits()
                };
                sc.r[l] = if sel & 8 != 0 {
                    old[l] & 0xffff | u32::from(h) << 16
                } else {
                    old[l] & 0xffff_0000 | u32::from(h)
                };
            }
            let r = sc.r;
            w.vwrite(i.dst, &r, c.exec);
        }
        // GFX11 (a VOPD half only): D.f32 += S0.bf16[0]·S1.bf16[0] + S0.bf16[1]·S1.bf16[1],
        // products exact, one rounding.
        Op::V_DOT2ACC_F32_BF16 => {
            let a = *c.s_into(w, 0, &mut sc.a);
            let b = *c.s_into(w, 1, &mut sc.b);
            let d = w.v[reg_index(i.dst)];
            let bf = |x: u32| f64::from(f32::from_bits(x << 16));
            for l in 0..LANES {
                let s = bf(a[l] & 0xffff) * bf(b[l] & 0xffff)
                    + bf(a[l] >> 16) * bf(b[l] >> 16)
                    + f64::from(f32::from_bits(d[l]));
                sc.r[l] = (s as f32).to_bits();
            }
            let r = sc.r;
            w.vwrite(i.dst, &r, c.exec);
        }
        // GFX11's defined illegal instruction (the all-zero word): an illegal-instruction
        // exception.
        Op::V_ILLEGAL => {
            return Some(Err(LaneFault::new(
                FaultKind::IllegalInstruction { word: i.word },
                None,
            )))
        }
        // GFX11: two f32 to a packed pair of 16-bit integers (S0 low, S1 high), each
        // truncated toward zero and saturated; NaN gives 0.
        Op::V_CVT_PK_I16_F32 | Op::V_CVT_PK_U16_F32 => {
            let a = *c.s_into(w, 0, &mut sc.a);
            let b = *c.s_into(w, 1, &mut sc.b);
            let signed = i.op == Op::V_CVT_PK_I16_F32;
            let cvt = |x: u32| -> u32 {
                let v = f32::from_bits(x);
                if signed {
                    // `as` truncates, saturates and maps NaN to 0.
                    u32::from(v as i16 as u16)
                } else {
                    u32::from(v as u16)
                }
            };
            for l in 0..LANES {
                sc.r[l] = cvt(a[l]) | cvt(b[l]) << 16;
            }
            let r = sc.r;
            put(w, c, &r);
        }
        Op::V_XOR3_B32 => {
            let (a, b, d) = sources3(w, c, sc);
            for l in 0..LANES {
                sc.r[l] = a[l] ^ b[l] ^ d[l];
            }
            put(w, c, &sc.r);
        }
        Op::V_FMAMK_F32 | Op::V_FMAAK_F32 => {
            let k = [i.lit; LANES];
            let a = *c.s_into(w, 0, &mut sc.a);
            let b = *c.s_into(w, 1, &mut sc.b);
            let (y, z) = if i.op == Op::V_FMAMK_F32 {
                (&k, &b)
            } else {
                (&b, &k)
            };
            fma_f32_rows(&a, y, z, &mut sc.r);
            let r = sc.r;
            put_f32(w, c, &r, &mut sc.o);
        }
        Op::V_FMAMK_F16 | Op::V_FMAAK_F16 => {
            let k = [i.lit & 0xffff; LANES];
            let a = *c.s_into(w, 0, &mut sc.a);
            let b = *c.s_into(w, 1, &mut sc.b);
            let (y, z) = if i.op == Op::V_FMAMK_F16 {
                (&k, &b)
            } else {
                (&b, &k)
            };
            let h = |x: u32| half::f16::from_bits(x as u16).to_f64();
            for l in 0..LANES {
                // One rounding: the f64 fma of three halves is exact before it.
                sc.r[l] =
                    u32::from(half::f16::from_f64(h(a[l]).mul_add(h(y[l]), h(z[l]))).to_bits());
            }
            let r = sc.r;
            put_f16(w, c, &r, &mut sc.o);
        }
        _ => return None,
    }
    Some(Ok(Flow::Next))
}

/// Sources 0–2 as rows (copies; the GFX10 three-operand integer ops are rare enough).
fn sources3(w: &Wave, c: &mut Ctx, sc: &mut Scratch) -> (Row, Row, Row) {
    let a = *c.s_into(w, 0, &mut sc.a);
    let b = *c.s_into(w, 1, &mut sc.b);
    let d = *c.s_into(w, 2, &mut sc.c);
    (a, b, d)
}

/// `v_permlane16_b32` / `v_permlanex16_b32 vdst, vsrc, s_lo, s_hi`: lane `i` of each row of
/// 16 reads lane `sel[i]` (4 bits of the 64-bit select `{s_hi, s_lo}`) of its own row
/// (permlane16) or of the other row of its 32-lane half (permlanex16). GFX12's `_var` forms
/// (`v_permlane16_var_b32 vdst, vsrc, vsel`) take lane `i`'s select from bits 3:0 of its own
/// `vsel`. `op_sel` bit 0 is `fi` (read inactive lanes too) and bit 1 `bound_ctrl` (an
/// inactive source gives 0 instead of leaving the lane unwritten).
fn permlane(w: &mut Wave, c: &Ctx) {
    let i = c.i;
    let src = w.v[reg_index(i.src[0])];
    let var = matches!(i.op, Op::V_PERMLANE16_VAR_B32 | Op::V_PERMLANEX16_VAR_B32);
    let (sel, vsel) = if var {
        (0, w.v[reg_index(i.src[1])])
    } else {
        let sel = u64::from(w.sread(i.src[1], i.lit, Ty::B32))
            | u64::from(w.sread(i.src[2], i.lit, Ty::B32)) << 32;
        (sel, [0; LANES])
    };
    let (fi, bound_zero) = (i.opsel & 1 != 0, i.opsel & 2 != 0);
    let cross = matches!(i.op, Op::V_PERMLANEX16_B32 | Op::V_PERMLANEX16_VAR_B32);
    let mut out = [0u32; LANES];
    let mut wmask = 0u64;
    for l in 0..LANES {
        let row = if cross { (l ^ 16) & !15 } else { l & !15 };
        let lane_sel = if var {
            u64::from(vsel[l])
        } else {
            sel >> (4 * (l & 15))
        };
        let s = row + (lane_sel & 15) as usize;
        if fi || c.exec >> s & 1 != 0 {
            out[l] = src[s];
            wmask |= 1 << l;
        } else if bound_zero {
            wmask |= 1 << l;
        }
    }
    w.vwrite(i.dst, &out, wmask & c.exec);
}
