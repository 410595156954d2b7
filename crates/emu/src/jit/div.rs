//! The f32 division steps clang emits for a correctly rounded `a / b` (`v_div_scale_f32`
//! twice, `v_rcp_f32`, FMAs, `v_div_fmas_f32`, `v_div_fixup_f32`), as the interpreter defines
//! them (`exec/valu_f32.rs`): each lane's chain of cases becomes selects, applied from the
//! last case to the first so that the first that holds wins. The scalings by 2^±64 are
//! multiplications by the power of two (one rounding, as the interpreter's `ldexp32`).
//! A lane whose `v_div_fmas_f32` must undo a scaling (VCC set) is rare (quotients near the
//! ends of the exponent range): the region leaves before the instruction and the interpreter
//! runs it.

use super::{Flags, Gen, Src};
use crate::decode::Inst;
use crate::wave::reg_index;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, Value};

impl Gen<'_> {
    /// The biased exponent fields of f32 lanes `x`.
    fn exp_field(&mut self, x: Value) -> Value {
        let e = self.b.ins().ushr_imm(x, 23);
        let m = self.vconst([0xff; 4]);
        self.b.ins().band(e, m)
    }

    /// Lanes of `x` (f32) that are subnormal: not zero, exponent field zero.
    fn subnormal(&mut self, x: Value) -> Value {
        let abs_m = self.vconst([0x7fff_ffff; 4]);
        let abs = self.b.ins().band(x, abs_m);
        let min_normal = self.vconst([0x0080_0000; 4]);
        let zero = self.vconst([0; 4]);
        let small = self.b.ins().icmp(IntCC::UnsignedLessThan, abs, min_normal);
        let is_zero = self.b.ins().icmp(IntCC::Equal, abs, zero);
        self.b.ins().band_not(small, is_zero)
    }

    /// `v_div_scale_f32 D, VCC, S0, S1, S2`: S0 scaled by 2^±64 where the quotient S2 / S1
    /// or the denominator would leave the range the Newton steps work in, and the lanes
    /// whose result `v_div_fmas_f32` must scale back in the scalar destination.
    pub(super) fn div_scale(&mut self, i: &Inst) {
        let dst = reg_index(i.dst);
        let srcs: Vec<Src> = (0..3).map(|k| self.src(i, k)).collect();
        let mut not_flag = Flags::default();
        let mut rows = Vec::new();
        for g in self.group_range() {
            let [a, b, c] = [0, 1, 2].map(|k| self.lanes(srcs[k], g));
            let [fa, fb, fc] = [a, b, c].map(|v| self.f32x4(v));
            let fzero = self.vconst([0; 4]);
            let fzero = self.f32x4(fzero);
            let b_zero = self.b.ins().fcmp(FloatCC::Equal, fb, fzero);
            let c_zero = self.b.ins().fcmp(FloatCC::Equal, fc, fzero);
            let zero_case = self.b.ins().bor(b_zero, c_zero);
            let (eb, ec) = (self.exp_field(b), self.exp_field(c));
            let d = self.b.ins().isub(ec, eb);
            let k96 = self.vconst([96; 4]);
            let far = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, d, k96);
            let b_sub = self.subnormal(b);
            let one = self.vconst([0x3f80_0000; 4]);
            let fone = self.f32x4(one);
            let rcp = self.b.ins().fdiv(fone, fb);
            let rcp = self.i32x4(rcp);
            let rcp_sub = self.subnormal(rcp);
            let q = self.b.ins().fdiv(fc, fb);
            let q = self.i32x4(q);
            let q_sub = self.subnormal(q);
            let both_sub = self.b.ins().band(rcp_sub, q_sub);
            let k23 = self.vconst([23; 4]);
            let c_low = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, ec, k23);
            let up_k = self.vconst([0x5f80_0000; 4]);
            let down_k = self.vconst([0x1f80_0000; 4]);
            let (fup, fdown) = (self.f32x4(up_k), self.f32x4(down_k));
            let up = self.b.ins().fmul(fa, fup);
            let up = self.i32x4(up);
            let down = self.b.ins().fmul(fa, fdown);
            let down = self.i32x4(down);
            let a_is_b = self.b.ins().fcmp(FloatCC::Equal, fa, fb);
            let a_is_c = self.b.ins().fcmp(FloatCC::Equal, fa, fc);
            let nan = self.vconst([0x7fc0_0000; 4]);
            let (yes, no) = (self.vconst([-1i32 as u32; 4]), self.vconst([0; 4]));
            // The interpreter's cases, last first: (condition, result, flag).
            let up_if_b = self.b.ins().bitselect(a_is_b, up, a);
            let down_if_b = self.b.ins().bitselect(a_is_b, down, a);
            let up_if_c = self.b.ins().bitselect(a_is_c, up, a);
            let cases = [
                (c_low, up, no),
                (q_sub, up_if_c, yes),
                (rcp_sub, down, no),
                (both_sub, down_if_b, yes),
                (b_sub, up, no),
                (far, up_if_b, yes),
                (zero_case, nan, no),
            ];
            let (mut out, mut flag) = (a, no);
            for (cond, r, f) in cases {
                out = self.b.ins().bitselect(cond, r, out);
                flag = self.b.ins().bitselect(cond, f, flag);
            }
            rows.push(out);
            let (read, kept) = self.mask_use();
            if read {
                self.forward(i.sdst as usize, g, flag, true);
            }
            if kept {
                let n = self.b.ins().bnot(flag);
                self.collect_flags(&mut not_flag, n, g);
            }
        }
        self.write_vals(dst, rows);
        if let Some(nf) = self.defer(not_flag) {
            self.carry_finish(i, nf);
        }
    }

    /// Before a `v_div_fmas_f32`: leaves the region when a lane of VCC is set under EXEC.
    pub(super) fn div_fmas_guard(&mut self) {
        let vcc = self.mask64(106);
        let exec = self.exec64();
        let live = self.b.ins().band(vcc, exec);
        let live = if self.wave32 {
            self.b.ins().band_imm(live, 0xffff_ffff)
        } else {
            live
        };
        let any = self.b.ins().icmp_imm(IntCC::NotEqual, live, 0);
        self.flush_lanes();
        let pc = self.inst_pc;
        self.exit_if(any, pc);
    }

    /// `v_div_fixup_f32 D, S0 (the quotient), S1 (the denominator), S2 (the numerator)`:
    /// the special cases of the division, else the quotient with the sign of S1 ^ S2.
    pub(super) fn div_fixup(&mut self, q: Value, den: Value, num: Value) -> Value {
        let (fd, fnum) = (self.f32x4(den), self.f32x4(num));
        let sign_m = self.vconst([0x8000_0000; 4]);
        let abs_m = self.vconst([0x7fff_ffff; 4]);
        let inf = self.vconst([0x7f80_0000; 4]);
        let quiet = self.vconst([0x0040_0000; 4]);
        let nan = self.vconst([0x7fc0_0000; 4]);
        let fzero = self.vconst([0; 4]);
        let fzero = self.f32x4(fzero);
        let x = self.b.ins().bxor(den, num);
        let sign = self.b.ins().band(x, sign_m);
        let sign_inf = self.b.ins().bor(sign, inf);
        let mag = self.b.ins().band(q, abs_m);
        let plain = self.b.ins().bor(sign, mag);
        let num_nan = self.b.ins().fcmp(FloatCC::Unordered, fnum, fnum);
        let den_nan = self.b.ins().fcmp(FloatCC::Unordered, fd, fd);
        let num_q = self.b.ins().bor(num, quiet);
        let den_q = self.b.ins().bor(den, quiet);
        let den_zero = self.b.ins().fcmp(FloatCC::Equal, fd, fzero);
        let num_zero = self.b.ins().fcmp(FloatCC::Equal, fnum, fzero);
        let den_abs = self.b.ins().band(den, abs_m);
        let num_abs = self.b.ins().band(num, abs_m);
        let den_inf = self.b.ins().icmp(IntCC::Equal, den_abs, inf);
        let num_inf = self.b.ins().icmp(IntCC::Equal, num_abs, inf);
        let zz = self.b.ins().band(den_zero, num_zero);
        let ii = self.b.ins().band(den_inf, num_inf);
        let invalid = self.b.ins().bor(zz, ii);
        let to_inf = self.b.ins().bor(den_zero, num_inf);
        let to_zero = self.b.ins().bor(den_inf, num_zero);
        let (en, ed, eq) = (self.exp_field(num), self.exp_field(den), self.exp_field(q));
        let d = self.b.ins().isub(en, ed);
        let k = self.vconst([-150i32 as u32; 4]);
        let underflow = self.b.ins().icmp(IntCC::SignedLessThan, d, k);
        let all_ones = self.vconst([255; 4]);
        let overflow = self.b.ins().icmp(IntCC::Equal, eq, all_ones);
        // The interpreter's cases, last first.
        let cases = [
            (overflow, sign_inf),
            (underflow, sign),
            (to_zero, sign),
            (to_inf, sign_inf),
            (invalid, nan),
            (den_nan, den_q),
            (num_nan, num_q),
        ];
        let mut out = plain;
        for (cond, r) in cases {
            out = self.b.ins().bitselect(cond, r, out);
        }
        out
    }
}
