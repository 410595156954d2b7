//! Vector integer and bit operations, and moves (`v_mov_b32`, `v_cndmask_b32`, AccVGPR
//! moves, `v_swap_b32`).

// `!(a < b)` and friends are the IEEE unordered compares (true on NaN), on purpose.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::valu::*;
use super::{Flow, R};
use crate::decode::{flag, AGPR, VGPR};
use crate::ops::Op;
use crate::wave::{Row, Ty, Wave, LANES};

#[inline(never)]
#[allow(unused_macros)]
pub(super) fn valu_move(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, mode: u32) -> Option<R> {
    let i = c.i;
    let exec = c.exec;
    let _ = (exec, mode);
    valu_prelude!($ w, c, sc, i);

    match i.op {
        Op::V_MOV_B32 => v32!(*s0!()),
        Op::V_ACCVGPR_MOV_B32 => {
            // gfx90a VOP1: source and destination are AGPRs, which the decoder keeps as
            // `VGPR + n` (the opcode says the file).
            let r = w.vsrc(
                i.src[0] + if i.src[0] >= VGPR { AGPR - VGPR } else { 0 },
                i.lit,
                Ty::B32,
            );
            w.vwrite(AGPR + (i.dst - VGPR), &r, exec);
        }
        Op::V_SWAP_B32 => {
            let a = *s0!();
            let b = w.vsrc(i.dst, 0, Ty::B32);
            w.vwrite(i.dst, &a, exec);
            w.vwrite(i.src[0], &b, exec);
        }
        Op::V_CNDMASK_B32 => {
            let a = s0!();
            let b = s1!();
            // Per-lane select: 64 bits wide in wave32 too (see the carry-in).
            let m = w.sread64(i.src[2], 0, Ty::I64);
            v32!(crate::wave::select_lanes(m, a, b))
        }
        _ => return None,
    }
    Some(Ok(Flow::Next))
}

#[inline(never)]
#[allow(unused_macros)]
pub(super) fn valu_int(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, mode: u32) -> Option<R> {
    let i = c.i;
    let exec = c.exec;
    let _ = (exec, mode);
    valu_prelude!($ w, c, sc, i);

    let clamp = i.has(flag::CLAMP);
    match i.op {
        // integer
        Op::V_ADD_U32 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_add(y))),
        Op::V_SUB_U32 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_sub(y))),
        Op::V_SUBREV_U32 => v32!(map2!(s0!(), s1!(), |x, y| y.wrapping_sub(x))),
        Op::V_ADD_I32 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_add(y))),
        Op::V_SUB_I32 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_sub(y))),
        Op::V_ADD3_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x
            .wrapping_add(y)
            .wrapping_add(z))),
        Op::V_MUL_LO_U32 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_mul(y))),
        Op::V_MUL_HI_U32 => v32!(map2!(
            s0!(),
            s1!(),
            |x, y| ((u64::from(x) * u64::from(y)) >> 32) as u32
        )),
        Op::V_MUL_HI_I32 => v32!(map2!(s0!(), s1!(), |x, y| ((i64::from(x as i32)
            * i64::from(y as i32))
            >> 32) as u32)),
        Op::V_MUL_U32_U24 => v32!(map2!(s0!(), s1!(), |x, y| (x & 0xff_ffff)
            .wrapping_mul(y & 0xff_ffff))),
        Op::V_MUL_HI_U32_U24 => v32!(map2!(s0!(), s1!(), |x, y| ((u64::from(x & 0xff_ffff)
            * u64::from(y & 0xff_ffff))
            >> 32) as u32)),
        Op::V_MUL_I32_I24 => v32!(map2!(s0!(), s1!(), |x, y| (((x << 8) as i32 >> 8)
            .wrapping_mul((y << 8) as i32 >> 8))
            as u32)),
        Op::V_MUL_HI_I32_I24 => v32!(map2!(
            s0!(),
            s1!(),
            |x, y| ((i64::from((x << 8) as i32 >> 8) * i64::from((y << 8) as i32 >> 8)) >> 32)
                as u32
        )),
        Op::V_MAD_U32_U24 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x & 0xff_ffff)
            .wrapping_mul(y & 0xff_ffff)
            .wrapping_add(z))),
        Op::V_MAD_I32_I24 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| {
            (((x << 8) as i32 >> 8).wrapping_mul((y << 8) as i32 >> 8) as u32).wrapping_add(z)
        })),
        Op::V_MAD_U64_U32 | Op::V_MAD_I64_I32 => {
            let (a, b) = (s0!(), s1!());
            let cc = c.s64(w, 2);
            let mut r = [0u64; LANES];
            let mut ov = 0u64;
            crate::wave::for_lanes!(w.wave32, l, {
                let (v, o) = if i.op == Op::V_MAD_U64_U32 {
                    let p = u128::from(a[l]) * u128::from(b[l]) + u128::from(cc[l]);
                    let o = p >> 64 != 0;
                    (if o && clamp { u64::MAX } else { p as u64 }, o)
                } else {
                    let p = i128::from(a[l] as i32) * i128::from(b[l] as i32)
                        + i128::from(cc[l] as i64);
                    let o = p != i128::from(p as i64);
                    let v = if clamp {
                        p.clamp(i64::MIN.into(), i64::MAX.into()) as u64
                    } else {
                        p as u64
                    };
                    (v, o)
                };
                r[l] = v;
                ov |= u64::from(o) << l;
            });
            w.vwrite64(i.dst, &r, c.wmask);
            w.merge_mask(i.sdst, ov, c.wmask);
        }
        Op::V_MIN_I32 => v32!(map2!(s0!(), s1!(), |x, y| (x as i32).min(y as i32) as u32)),
        Op::V_MAX_I32 => v32!(map2!(s0!(), s1!(), |x, y| (x as i32).max(y as i32) as u32)),
        Op::V_MIN_U32 => v32!(map2!(s0!(), s1!(), |x, y| x.min(y))),
        Op::V_MAX_U32 => v32!(map2!(s0!(), s1!(), |x, y| x.max(y))),
        Op::V_MIN3_I32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x as i32)
            .min(y as i32)
            .min(z as i32)
            as u32)),
        Op::V_MAX3_I32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x as i32)
            .max(y as i32)
            .max(z as i32)
            as u32)),
        Op::V_MAXMIN_I32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x as i32)
            .max(y as i32)
            .min(z as i32)
            as u32)),
        Op::V_MINMAX_I32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x as i32)
            .min(y as i32)
            .max(z as i32)
            as u32)),
        Op::V_MAXMIN_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x.max(y).min(z))),
        Op::V_MINMAX_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x.min(y).max(z))),
        // GFX11: 16-bit to 32-bit extensions.
        Op::V_CVT_I32_I16 => v32!(map1!(s0!(), |x| x as i16 as i32 as u32)),
        Op::V_CVT_U32_U16 => v32!(map1!(s0!(), |x| x & 0xffff)),
        Op::V_MIN3_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x.min(y).min(z))),
        Op::V_MAX3_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x.max(y).max(z))),
        Op::V_MED3_I32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| med3(
            x as i32, y as i32, z as i32
        ) as u32)),
        Op::V_MED3_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| med3(x, y, z))),
        Op::V_AND_B32 => v32!(map2!(s0!(), s1!(), |x, y| x & y)),
        Op::V_OR_B32 => v32!(map2!(s0!(), s1!(), |x, y| x | y)),
        Op::V_XOR_B32 => v32!(map2!(s0!(), s1!(), |x, y| x ^ y)),
        Op::V_NOT_B32 => v32!(map1!(s0!(), |x| !x)),
        Op::V_OR3_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x | y | z)),
        Op::V_XAD_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x ^ y).wrapping_add(z))),
        Op::V_AND_OR_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x & y) | z)),
        Op::V_LSHL_OR_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x << (y & 31)) | z)),
        Op::V_LSHL_ADD_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x << (y & 31))
            .wrapping_add(z))),
        Op::V_ADD_LSHL_U32 => {
            v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| x.wrapping_add(y) << (z & 31)))
        }
        Op::V_LSHLREV_B32 => v32!(map2!(s0!(), s1!(), |x, y| y << (x & 31))),
        Op::V_LSHRREV_B32 => v32!(map2!(s0!(), s1!(), |x, y| y >> (x & 31))),
        Op::V_ASHRREV_I32 => v32!(map2!(s0!(), s1!(), |x, y| ((y as i32) >> (x & 31)) as u32)),
        Op::V_LSHLREV_B64 | Op::V_LSHRREV_B64 | Op::V_ASHRREV_I64 => {
            let a = s0!();
            let b = c.s64(w, 1);
            let mut r = [0u64; LANES];
            crate::wave::for_lanes!(w.wave32, l, {
                let s = a[l] & 63;
                r[l] = match i.op {
                    Op::V_LSHLREV_B64 => b[l] << s,
                    Op::V_LSHRREV_B64 => b[l] >> s,
                    _ => ((b[l] as i64) >> s) as u64,
                };
            });
            v64!(r)
        }
        Op::V_BFE_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| super::bfe32(
            x,
            y & 31,
            z & 31
        ))),
        Op::V_BFE_I32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| super::sbfe32(
            x,
            y & 31,
            z & 31
        ))),
        Op::V_BFI_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x & y) | (!x & z))),
        Op::V_BFM_B32 => v32!(map2!(s0!(), s1!(), |x, y| (((1u64 << (x & 31)) - 1)
            as u32)
            << (y & 31))),
        Op::V_ALIGNBIT_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| ((u64::from(x) << 32
            | u64::from(y))
            >> (z & 31))
            as u32)),
        Op::V_ALIGNBYTE_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| ((u64::from(x) << 32
            | u64::from(y))
            >> (8 * (z & 3)))
            as u32)),
        Op::V_BCNT_U32_B32 => v32!(map2!(s0!(), s1!(), |x, y| x.count_ones().wrapping_add(y))),
        Op::V_MBCNT_LO_U32_B32 => {
            let (a, b) = (s0!(), s1!());
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let m = if l >= 32 {
                    u32::MAX
                } else {
                    ((1u64 << l) - 1) as u32
                };
                r[l] = (a[l] & m).count_ones().wrapping_add(b[l]);
            }
            v32!(r)
        }
        Op::V_MBCNT_HI_U32_B32 => {
            let (a, b) = (s0!(), s1!());
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                let m = if l < 32 {
                    0
                } else {
                    ((1u64 << (l - 32)) - 1) as u32
                };
                r[l] = (a[l] & m).count_ones().wrapping_add(b[l]);
            }
            v32!(r)
        }
        Op::V_FFBH_U32 => v32!(map1!(s0!(), |x| if x == 0 {
            u32::MAX
        } else {
            x.leading_zeros()
        })),
        Op::V_FFBL_B32 => v32!(map1!(s0!(), |x| if x == 0 {
            u32::MAX
        } else {
            x.trailing_zeros()
        })),
        // As S_FLBIT_I32: the leading sign bits, the sign bit included; −1 for 0 and −1.
        Op::V_FFBH_I32 => v32!(map1!(s0!(), |x| {
            let y = if (x as i32) < 0 { !x } else { x };
            if y == 0 {
                u32::MAX
            } else {
                y.leading_zeros()
            }
        })),
        Op::V_BFREV_B32 => v32!(map1!(s0!(), |x| x.reverse_bits())),
        Op::V_SAD_U32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| {
            let v = u64::from(x.abs_diff(y)) + u64::from(z);
            if clamp {
                sat_u32(v)
            } else {
                v as u32
            }
        })),
        Op::V_PERM_B32 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| {
            let bytes = u64::from(x) << 32 | u64::from(y);
            let mut out = 0u32;
            for k in 0..4 {
                let sel = z >> (8 * k) & 0xff;
                let b = match sel {
                    0..=7 => (bytes >> (8 * sel) & 0xff) as u32,
                    8 => ((bytes >> 15 & 1) * 0xff) as u32,
                    9 => ((bytes >> 31 & 1) * 0xff) as u32,
                    10 => ((bytes >> 47 & 1) * 0xff) as u32,
                    11 => ((bytes >> 63 & 1) * 0xff) as u32,
                    12 => 0,
                    _ => 0xff,
                };
                out |= b << (8 * k);
            }
            out
        })),
        Op::V_ACCVGPR_READ_B32 | Op::V_ACCVGPR_WRITE_B32 => v32!(*s0!()),

        _ => return None,
    }
    Some(Ok(Flow::Next))
}

/// Integer clamp (VOP3 `clamp`): the result saturates instead of wrapping. Out of the main
/// integer match so that its arms stay guard-free; `valu_body` calls this only when the
/// clamp bit is set.
#[inline(never)]
#[allow(unused_macros)]
pub(super) fn int_clamp(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, mode: u32) -> Option<R> {
    let i = c.i;
    let exec = c.exec;
    let _ = (exec, mode);
    valu_prelude!($ w, c, sc, i);
    match i.op {
        // Integer clamp (VOP3 `clamp`): the result saturates instead of wrapping.
        Op::V_ADD_U32 => v32!(map2!(s0!(), s1!(), |x, y| x.saturating_add(y))),
        Op::V_SUB_U32 => v32!(map2!(s0!(), s1!(), |x, y| x.saturating_sub(y))),
        Op::V_SUBREV_U32 => v32!(map2!(s0!(), s1!(), |x, y| y.saturating_sub(x))),
        Op::V_ADD_I32 => v32!(map2!(
            s0!(),
            s1!(),
            |x, y| (x as i32).saturating_add(y as i32) as u32
        )),
        Op::V_SUB_I32 => v32!(map2!(
            s0!(),
            s1!(),
            |x, y| (x as i32).saturating_sub(y as i32) as u32
        )),
        Op::V_MAD_U32_U24 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| sat_u32(
            u64::from(x & 0xff_ffff) * u64::from(y & 0xff_ffff) + u64::from(z)
        ))),
        Op::V_MAD_I32_I24 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| sat_i32(
            i64::from((x << 8) as i32 >> 8) * i64::from((y << 8) as i32 >> 8) + i64::from(z as i32)
        ))),
        // 16-bit integer clamp saturates at the 16-bit range.
        Op::V_ADD_U16 => v32!(map2!(s0!(), s1!(), |x, y| u32::from(
            (x as u16).saturating_add(y as u16)
        ))),
        Op::V_SUB_U16 => v32!(map2!(s0!(), s1!(), |x, y| u32::from(
            (x as u16).saturating_sub(y as u16)
        ))),
        Op::V_SUBREV_U16 => v32!(map2!(s0!(), s1!(), |x, y| u32::from(
            (y as u16).saturating_sub(x as u16)
        ))),
        Op::V_MAD_U16 => {
            v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (u32::from(x as u16)
                * u32::from(y as u16)
                + u32::from(z as u16))
            .min(0xffff)))
        }
        _ => return None,
    }
    Some(Ok(Flow::Next))
}
