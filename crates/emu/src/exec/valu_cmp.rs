//! Vector compares (VOPC and their VOP3 forms, `v_cmpx` writing EXEC): every condition and
//! type, lane flags packed eight at a time.

// `!(a < b)` and friends are the IEEE unordered compares (true on NaN), on purpose.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::valu::*;
use super::{Flow, R};
use crate::wave::{Wave, LANES};

/// Packs `f(a[l], b[l])` for all lanes into a mask.
#[inline(always)]
fn cmp_rows<T: Copy, F: Fn(T, T) -> bool>(a: &[T; LANES], b: &[T; LANES], f: F) -> u64 {
    let mut flags = [0u8; LANES];
    for l in 0..LANES {
        flags[l] = u8::from(f(a[l], b[l]));
    }
    pack_flags(&flags)
}

/// Dispatches a comparison condition (see `compare_code`) to a monomorphic lane loop.
macro_rules! by_cond {
    ($cond:expr, $a:expr, $b:expr, $conv:expr, float) => {{
        let cv = $conv;
        match $cond {
            0 => 0,
            1 => cmp_rows($a, $b, |x, y| cv(x) < cv(y)),
            2 => cmp_rows($a, $b, |x, y| cv(x) == cv(y)),
            3 => cmp_rows($a, $b, |x, y| cv(x) <= cv(y)),
            4 => cmp_rows($a, $b, |x, y| cv(x) > cv(y)),
            5 => cmp_rows($a, $b, |x, y| cv(x) < cv(y) || cv(x) > cv(y)),
            6 => cmp_rows($a, $b, |x, y| cv(x) >= cv(y)),
            7 => cmp_rows($a, $b, |x, y| !cv(x).is_nan() && !cv(y).is_nan()),
            8 => cmp_rows($a, $b, |x, y| cv(x).is_nan() || cv(y).is_nan()),
            9 => cmp_rows($a, $b, |x, y| !(cv(x) >= cv(y))),
            10 => cmp_rows($a, $b, |x, y| !(cv(x) < cv(y) || cv(x) > cv(y))),
            11 => cmp_rows($a, $b, |x, y| !(cv(x) > cv(y))),
            12 => cmp_rows($a, $b, |x, y| !(cv(x) <= cv(y))),
            13 => cmp_rows($a, $b, |x, y| cv(x) != cv(y)),
            14 => cmp_rows($a, $b, |x, y| !(cv(x) < cv(y))),
            _ => u64::MAX,
        }
    }};
    ($cond:expr, $a:expr, $b:expr, $conv:expr, int) => {{
        let cv = $conv;
        match $cond {
            0 => 0,
            1 => cmp_rows($a, $b, |x, y| cv(x) < cv(y)),
            2 => cmp_rows($a, $b, |x, y| cv(x) == cv(y)),
            3 => cmp_rows($a, $b, |x, y| cv(x) <= cv(y)),
            4 => cmp_rows($a, $b, |x, y| cv(x) > cv(y)),
            5 => cmp_rows($a, $b, |x, y| cv(x) != cv(y)),
            6 => cmp_rows($a, $b, |x, y| cv(x) >= cv(y)),
            _ => u64::MAX,
        }
    }};
}

pub(super) fn compare(w: &mut Wave, c: &mut Ctx, sc: &mut Scratch) -> R {
    let i = c.i;
    let code = i.imm;
    let cond = code & 31;
    let ty = code >> 5 & 15;
    let x = code >> 9 & 1 != 0;
    let bits = match ty {
        2 | 5 | 8 => {
            let a = c.s64(w, 0);
            if cond == 16 {
                let b = c.s(w, 1);
                let mut bits = 0u64;
                for l in 0..LANES {
                    bits |= u64::from(f64_class(a[l]) & b[l] != 0) << l;
                }
                bits
            } else {
                let b = c.s64(w, 1);
                match ty {
                    2 => by_cond!(cond, &a, &b, d, float),
                    5 => by_cond!(cond, &a, &b, |v: u64| v as i64, int),
                    _ => by_cond!(cond, &a, &b, |v: u64| v, int),
                }
            }
        }
        _ => {
            let a = c.s_into(w, 0, &mut sc.a);
            let b = c.s_into(w, 1, &mut sc.b);
            match (ty, cond) {
                (1, 16) => cmp_rows(a, b, |x, y| f32_class(x) & y != 0),
                (0, 16) => cmp_rows(a, b, |x, y| f16_class(x) & y != 0),
                (1, _) => by_cond!(cond, a, b, f, float),
                (0, _) => by_cond!(cond, a, b, h, float),
                (3, _) => by_cond!(cond, a, b, |v: u32| v as i16, int),
                (4, _) => by_cond!(cond, a, b, |v: u32| v as i32, int),
                (6, _) => by_cond!(cond, a, b, |v: u32| v as u16, int),
                _ => by_cond!(cond, a, b, |v: u32| v, int),
            }
        }
    };
    let mask = bits & c.exec;
    w.write_mask(i.sdst, mask);
    if x {
        w.set_exec(mask);
    }
    Ok(Flow::Next)
}
