//! Vector f16 arithmetic and 16-bit integer operations.

// `!(a < b)` and friends are the IEEE unordered compares (true on NaN), on purpose.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::valu::*;
use super::{Flow, R};
use crate::decode::flag;
use crate::ops::Op;
use crate::wave::{Row, Ty, Wave, LANES};

#[inline(never)]
#[allow(unused_macros)]
pub(super) fn valu_f16(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch, mode: u32) -> Option<R> {
    let i = c.i;
    let exec = c.exec;
    let _ = (exec, mode);
    valu_prelude!($ w, c, sc, i);

    match i.op {
        // f16
        Op::V_ADD_F16 => vf16!(map2!(s0!(), s1!(), |x, y| src0_nan16(
            x,
            y,
            hb(h(x) + h(y))
        ))),
        Op::V_SUB_F16 => vf16!(map2!(s0!(), s1!(), |x, y| hb(h(x) - h(y)))),
        Op::V_SUBREV_F16 => vf16!(map2!(s0!(), s1!(), |x, y| hb(h(y) - h(x)))),
        Op::V_MUL_F16 => vf16!(map2!(s0!(), s1!(), |x, y| src0_nan16(
            x,
            y,
            hb(h(x) * h(y))
        ))),
        Op::V_MIN_F16 => {
            let ieee = mode & MODE_IEEE != 0;
            vf16!(map2!(s0!(), s1!(), |x, y| minmax16(x, y, false, ieee)))
        }
        Op::V_MAX_F16 => {
            let ieee = mode & MODE_IEEE != 0;
            vf16!(map2!(s0!(), s1!(), |x, y| minmax16(x, y, true, ieee)))
        }
        Op::V_FMA_F16 | Op::V_FMA_LEGACY_F16 => vf16!(map3!(s0!(), s1!(), s2!(), |x, y, z| {
            first_nan16(hb(h(x).mul_add(h(y), h(z))), &[x, y, z])
        })),
        Op::V_MAD_F16 | Op::V_MAD_LEGACY_F16 => {
            vf16!(map3!(s0!(), s1!(), s2!(), |x, y, z| mad_ftz16(x, y, z)))
        }
        Op::V_FMAC_F16 => {
            // The accumulator is the third source (flushed with it when MODE says so).
            let mut acc = w.vsrc(i.dst, 0, Ty::B32);
            if c.daz & 4 != 0 {
                flush_row(&mut acc, Ty::B16);
            }
            vf16!(map3!(s0!(), s1!(), acc, |x, y, z| first_nan16(
                hb(h(x).mul_add(h(y), h(z))),
                &[x, y, z]
            )))
        }
        Op::V_MAC_F16 => {
            let acc = w.vsrc(i.dst, 0, Ty::B32);
            vf16!(map3!(s0!(), s1!(), acc, |x, y, z| mad_ftz16(x, y, z)))
        }
        Op::V_MADMK_F16 => {
            let k = [i.lit; LANES];
            vf16!(map3!(s0!(), k, s1!(), |x, y, z| mad_ftz16(x, y, z)))
        }
        Op::V_MADAK_F16 => {
            let k = [i.lit; LANES];
            vf16!(map3!(s0!(), s1!(), k, |x, y, z| mad_ftz16(x, y, z)))
        }
        Op::V_RCP_F16 => vf16!(map1!(s0!(), |x| hb(1.0 / h(x)))),
        Op::V_SQRT_F16 => vf16!(map1!(s0!(), |x| hb(h(x).sqrt()))),
        Op::V_RSQ_F16 => vf16!(map1!(s0!(), |x| hb(1.0 / h(x).sqrt()))),
        Op::V_EXP_F16 => vf16!(map1!(s0!(), |x| hb(h(x).exp2()))),
        Op::V_LOG_F16 => vf16!(map1!(s0!(), |x| hb(h(x).log2()))),
        Op::V_SIN_F16 => vf16!(map1!(s0!(), |x| hb((h(x) * std::f64::consts::TAU).sin()))),
        Op::V_COS_F16 => vf16!(map1!(s0!(), |x| hb((h(x) * std::f64::consts::TAU).cos()))),
        Op::V_FLOOR_F16 => vf16!(map1!(s0!(), |x| hb(h(x).floor()))),
        Op::V_CEIL_F16 => vf16!(map1!(s0!(), |x| hb(h(x).ceil()))),
        Op::V_TRUNC_F16 => vf16!(map1!(s0!(), |x| hb(h(x).trunc()))),
        Op::V_RNDNE_F16 => vf16!(map1!(s0!(), |x| hb(h(x).round_ties_even()))),
        Op::V_FRACT_F16 => vf16!(map1!(s0!(), |x| hb(fract64(h(x)).min(0.999_511_718_75)))),
        Op::V_LDEXP_F16 => vf16!(map2!(s0!(), s1!(), |x, y| hb(ldexp64(h(x), y as i32)))),
        // GFX11: 16-bit moves and bitwise ops (true16 halves through op_sel), and the fused
        // max-then-min / min-then-max of three values.
        Op::V_MOV_B16 => v32!(map1!(s0!(), |x| x & 0xffff)),
        Op::V_NOT_B16 => v32!(map1!(s0!(), |x| !x & 0xffff)),
        Op::V_AND_B16 => v32!(map2!(s0!(), s1!(), |x, y| x & y & 0xffff)),
        Op::V_OR_B16 => v32!(map2!(s0!(), s1!(), |x, y| (x | y) & 0xffff)),
        Op::V_XOR_B16 => v32!(map2!(s0!(), s1!(), |x, y| (x ^ y) & 0xffff)),
        Op::V_CNDMASK_B16 => {
            let a = s0!();
            let b = s1!();
            let m = w.sread64(i.src[2], 0, Ty::I64);
            let r = crate::wave::select_lanes(m, a, b);
            v32!(r.map(|x| x & 0xffff))
        }
        Op::V_MAXMIN_F16 => {
            let ieee = mode & MODE_IEEE != 0;
            vf16!(map3!(s0!(), s1!(), s2!(), |x, y, z| minmax16(
                minmax16(x, y, true, ieee),
                z,
                false,
                ieee
            )))
        }
        Op::V_MINMAX_F16 => {
            let ieee = mode & MODE_IEEE != 0;
            vf16!(map3!(s0!(), s1!(), s2!(), |x, y, z| minmax16(
                minmax16(x, y, false, ieee),
                z,
                true,
                ieee
            )))
        }
        Op::V_MAX3_F16 => {
            let ieee = mode & MODE_IEEE != 0;
            vf16!(map3!(s0!(), s1!(), s2!(), |x, y, z| minmax16(
                minmax16(x, y, true, ieee),
                z,
                true,
                ieee
            )))
        }
        Op::V_MIN3_F16 => {
            let ieee = mode & MODE_IEEE != 0;
            vf16!(map3!(s0!(), s1!(), s2!(), |x, y, z| minmax16(
                minmax16(x, y, false, ieee),
                z,
                false,
                ieee
            )))
        }
        Op::V_MED3_F16 => vf16!(map3!(s0!(), s1!(), s2!(), |x, y, z| hb(f64::from(fmed3(
            h(x) as f32,
            h(y) as f32,
            h(z) as f32
        ))))),
        Op::V_DIV_FIXUP_F16 | Op::V_DIV_FIXUP_LEGACY_F16 => {
            vf16!(map3!(s0!(), s1!(), s2!(), |q, den, num| {
                let (df, nf) = (h(den), h(num));
                let sign = (den ^ num) & 0x8000;
                if nf.is_nan() {
                    num | 0x200
                } else if df.is_nan() {
                    den | 0x200
                } else if (df == 0.0 && nf == 0.0) || (df.is_infinite() && nf.is_infinite()) {
                    0x7e00
                } else if df == 0.0 || nf.is_infinite() {
                    sign | 0x7c00
                } else if df.is_infinite() || nf == 0.0 {
                    sign
                } else {
                    sign | (q & 0x7fff)
                }
            }))
        }
        Op::V_PACK_B32_F16 => v32!(map2!(s0!(), s1!(), |x, y| (x & 0xffff) | (y & 0xffff) << 16)),
        Op::V_ADD_U16 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_add(y) & 0xffff)),
        Op::V_ADD_I16 => v32!(map2!(s0!(), s1!(), |x, y| {
            let v = (x as i16).wrapping_add(y as i16);
            (if i.has(flag::CLAMP) {
                (x as i16).saturating_add(y as i16)
            } else {
                v
            }) as u16 as u32
        })),
        Op::V_SUB_I16 => v32!(map2!(s0!(), s1!(), |x, y| {
            let v = (x as i16).wrapping_sub(y as i16);
            (if i.has(flag::CLAMP) {
                (x as i16).saturating_sub(y as i16)
            } else {
                v
            }) as u16 as u32
        })),
        Op::V_SUB_U16 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_sub(y) & 0xffff)),
        Op::V_SUBREV_U16 => v32!(map2!(s0!(), s1!(), |x, y| y.wrapping_sub(x) & 0xffff)),
        Op::V_MUL_LO_U16 => v32!(map2!(s0!(), s1!(), |x, y| x.wrapping_mul(y) & 0xffff)),
        Op::V_LSHLREV_B16 => v32!(map2!(s0!(), s1!(), |x, y| (y << (x & 15)) & 0xffff)),
        Op::V_LSHRREV_B16 => v32!(map2!(s0!(), s1!(), |x, y| (y & 0xffff) >> (x & 15))),
        Op::V_ASHRREV_I16 => {
            v32!(map2!(s0!(), s1!(), |x, y| ((y as i16) >> (x & 15)) as u16 as u32))
        }
        Op::V_MAX_U16 => v32!(map2!(s0!(), s1!(), |x, y| (x & 0xffff).max(y & 0xffff))),
        Op::V_MIN_U16 => v32!(map2!(s0!(), s1!(), |x, y| (x & 0xffff).min(y & 0xffff))),
        Op::V_MAX_I16 => v32!(map2!(s0!(), s1!(), |x, y| (x as i16).max(y as i16) as u16 as u32)),
        Op::V_MIN_I16 => v32!(map2!(s0!(), s1!(), |x, y| (x as i16).min(y as i16) as u16 as u32)),
        Op::V_MAD_U16 => v32!(map3!(s0!(), s1!(), s2!(), |x, y, z| (x
            .wrapping_mul(y)
            .wrapping_add(z))
            & 0xffff)),
        _ => return None,
    }
    Some(Ok(Flow::Next))
}
