//! Translates a block of decoded instructions to native code with Cranelift. Each vector
//! instruction becomes straight-line code over the wave's lanes in groups of four (`i32x4` /
//! `f32x4`), 8 groups for a wave32 wave and 16 for wave64, each result blended into the
//! destination under EXEC; each scalar instruction becomes scalar code on the SGPR file. The
//! registers stay in the `Wave` (every operand is loaded and stored), so the block needs no
//! register allocation across instructions and leaves the wave exactly as the interpreter
//! would.

use super::{BlockFn, Lower, SAluOp, VAluOp};
use crate::decode::{Inst, VGPR};
use crate::wave::{inline_float, reg_index, Ty, LANES};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, ConstantData, InstBuilder, MemFlags, UserFuncName, Value,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};

#[path = "lower_mem.rs"]
mod lower_mem;

/// One code generator (lives on the compiler thread; its code is never freed, so a published
/// block stays valid for the process).
pub(super) struct Compiler {
    module: JITModule,
    fctx: FunctionBuilderContext,
    count: u64,
}

impl Compiler {
    pub(super) fn new() -> Result<Compiler, String> {
        let mut flags = settings::builder();
        for (k, v) in [
            ("opt_level", "none"),
            ("use_colocated_libcalls", "false"),
            ("is_pic", "false"),
        ] {
            flags.set(k, v).map_err(|e| e.to_string())?;
        }
        let isa = cranelift_native::builder()
            .map_err(str::to_string)?
            .finish(settings::Flags::new(flags))
            .map_err(|e| e.to_string())?;
        let module = JITModule::new(JITBuilder::with_isa(
            isa,
            cranelift_module::default_libcall_names(),
        ));
        Ok(Compiler {
            module,
            fctx: FunctionBuilderContext::new(),
            count: 0,
        })
    }

    /// Compiles `insts` (each with its lowering) for a wave of 32 or 64 lanes.
    pub(super) fn compile(
        &mut self,
        insts: &[(Inst, Lower)],
        wave32: bool,
    ) -> Result<BlockFn, String> {
        let ptr = self.module.target_config().pointer_type();
        let mut ctx = self.module.make_context();
        for _ in 0..5 {
            ctx.func.signature.params.push(AbiParam::new(ptr));
        }
        // How many instructions ran (`BlockFn`).
        ctx.func.signature.returns.push(AbiParam::new(types::I32));
        self.count += 1;
        let name = format!("block{}", self.count);
        ctx.func.name = UserFuncName::user(0, self.count as u32);
        let id = self
            .module
            .declare_function(&name, Linkage::Local, &ctx.func.signature)
            .map_err(|e| e.to_string())?;
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut self.fctx);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            b.seal_block(entry);
            let p = b.block_params(entry).to_vec();
            let mut g = Gen {
                b,
                s: p[0],
                v: p[1],
                scc: p[2],
                lane_ops: p[3],
                ctx: p[4],
                index: 0,
                groups: if wave32 { 8 } else { 16 },
                wave32,
            };
            for (k, (i, l)) in insts.iter().enumerate() {
                g.index = k as u32;
                g.inst(i, *l)?;
            }
            let n = g.b.ins().iconst(types::I32, insts.len() as i64);
            g.b.ins().return_(&[n]);
            g.b.finalize();
        }
        self.module
            .define_function(id, &mut ctx)
            .map_err(|e| format!("{e:?}"))?;
        self.module.clear_context(&mut ctx);
        self.module
            .finalize_definitions()
            .map_err(|e| e.to_string())?;
        let code = self.module.get_finalized_function(id);
        // SAFETY: `code` is the finalized function just defined with the signature of
        // `BlockFn` (five pointer arguments, an i32 result, the platform's C calling convention,
        // which is Cranelift's default for the host ISA).
        Ok(unsafe { std::mem::transmute::<*const u8, BlockFn>(code) })
    }
}

/// Memory flags for the wave's registers: never trapping (the pointers come from a live
/// `Wave`), alignment not promised (rows are 4-byte aligned).
fn mf() -> MemFlags {
    MemFlags::new().with_notrap()
}

/// A source operand as the compiled code reads it.
#[derive(Clone, Copy)]
enum Src {
    /// A VGPR row (its index in the vector file).
    Row(usize),
    /// The same 32 bits in every lane (an SGPR read once, or a constant).
    Uniform(Value),
}

struct Gen<'a> {
    b: FunctionBuilder<'a>,
    s: Value,
    v: Value,
    scc: Value,
    lane_ops: Value,
    /// The `CallCtx` pointer (calls into the interpreter, `lower_mem`).
    ctx: Value,
    /// The index in the block of the instruction being translated.
    index: u32,
    groups: usize,
    wave32: bool,
}

impl Gen<'_> {
    fn sload(&mut self, code: usize) -> Value {
        self.b
            .ins()
            .load(types::I32, mf(), self.s, (4 * code) as i32)
    }

    fn sstore(&mut self, code: usize, x: Value) {
        self.b.ins().store(mf(), x, self.s, (4 * code) as i32);
    }

    fn sload64(&mut self, code: usize) -> Value {
        self.b
            .ins()
            .load(types::I64, mf(), self.s, (4 * code) as i32)
    }

    /// A scalar source as 32 bits (the interpreter's `Wave::sread` for the codes
    /// `compilable` admits).
    fn scalar(&mut self, code: u16, lit: u32, ty: Ty) -> Value {
        let k = match code {
            0..=127 => return self.sload(code as usize),
            128..=192 => u32::from(code - 128),
            193..=208 => (-(i32::from(code) - 192)) as u32,
            240..=248 => inline_float(code, ty) as u32,
            _ => lit,
        };
        self.b.ins().iconst(types::I32, i64::from(k as i32))
    }

    fn src(&mut self, i: &Inst, k: usize) -> Src {
        let code = i.src[k];
        if code >= VGPR {
            Src::Row(reg_index(code))
        } else {
            Src::Uniform(self.scalar(code, i.lit, i.tys[k]))
        }
    }

    fn row_offset(row: usize, g: usize) -> i32 {
        (4 * (row * LANES + 4 * g)) as i32
    }

    /// Lanes 4g..4g+3 of a source as `i32x4`.
    fn lanes(&mut self, s: Src, g: usize) -> Value {
        match s {
            Src::Row(r) => self
                .b
                .ins()
                .load(types::I32X4, mf(), self.v, Self::row_offset(r, g)),
            Src::Uniform(x) => self.b.ins().splat(types::I32X4, x),
        }
    }

    /// Source `k`'s lanes with its abs/neg float modifiers (abs first, as the interpreter's
    /// `float_mods`).
    fn lanes_mod(&mut self, i: &Inst, k: usize, s: Src, g: usize) -> Value {
        let mut x = self.lanes(s, g);
        if i.abs >> k & 1 != 0 {
            let m = self.vconst([0x7fff_ffff; 4]);
            x = self.b.ins().band(x, m);
        }
        if i.neg >> k & 1 != 0 {
            let m = self.vconst([0x8000_0000; 4]);
            x = self.b.ins().bxor(x, m);
        }
        x
    }

    fn vconst(&mut self, lanes: [u32; 4]) -> Value {
        let bytes: Vec<u8> = lanes.iter().flat_map(|x| x.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(types::I32X4, c)
    }

    /// An all-ones/all-zeros `i32x4` from bits 4g..4g+3 of a 64-bit lane mask held as its two
    /// 32-bit halves.
    fn lane_mask(&mut self, halves: [Value; 2], g: usize) -> Value {
        let sh = (4 * g) % 32;
        let bits = self.vconst([1 << sh, 2 << sh, 4 << sh, 8 << sh]);
        let word = self.b.ins().splat(types::I32X4, halves[g / 8]);
        let sel = self.b.ins().band(word, bits);
        let zero = self.vconst([0; 4]);
        self.b.ins().icmp(IntCC::NotEqual, sel, zero)
    }

    fn exec_halves(&mut self) -> [Value; 2] {
        [self.sload(126), self.sload(127)]
    }

    /// Counts the active lanes into `lane_ops` (the interpreter's per-VALU statistic).
    fn count_lanes(&mut self) {
        let exec = self.sload64(126);
        let n = self.b.ins().popcnt(exec);
        let old = self.b.ins().load(types::I64, mf(), self.lane_ops, 0);
        let new = self.b.ins().iadd(old, n);
        self.b.ins().store(mf(), new, self.lane_ops, 0);
    }

    /// Writes `f(g)` (an `i32x4` per group) to VGPR row `dst` under EXEC.
    fn write_rows(&mut self, dst: usize, mut f: impl FnMut(&mut Self, usize) -> Value) {
        let exec = self.exec_halves();
        // All results first: a destination may also be a source.
        let vals: Vec<Value> = (0..self.groups).map(|g| f(self, g)).collect();
        for (g, val) in vals.into_iter().enumerate() {
            let m = self.lane_mask(exec, g);
            let old = self
                .b
                .ins()
                .load(types::I32X4, mf(), self.v, Self::row_offset(dst, g));
            let x = self.b.ins().bitselect(m, val, old);
            self.b
                .ins()
                .store(mf(), x, self.v, Self::row_offset(dst, g));
        }
    }

    fn f32x4(&mut self, x: Value) -> Value {
        self.b.ins().bitcast(types::F32X4, MemFlags::new(), x)
    }

    fn i32x4(&mut self, x: Value) -> Value {
        self.b.ins().bitcast(types::I32X4, MemFlags::new(), x)
    }

    /// `fma(x, y, z)` on f32 lanes; a NaN operand gives the first NaN of (x, y, z), quieted,
    /// as the interpreter's host FMA does (Cranelift's choice of FMA form, i.e. which operand
    /// the instruction overwrites, would pick another).
    fn fma(&mut self, x: Value, y: Value, z: Value) -> Value {
        let (fx, fy, fz) = (self.f32x4(x), self.f32x4(y), self.f32x4(z));
        let r = self.b.ins().fma(fx, fy, fz);
        let mut out = self.i32x4(r);
        let quiet = self.vconst([0x0040_0000; 4]);
        for (v, fv) in [(z, fz), (y, fy), (x, fx)] {
            let nan = self.b.ins().fcmp(FloatCC::Unordered, fv, fv);
            let q = self.b.ins().bor(v, quiet);
            out = self.b.ins().bitselect(nan, q, out);
        }
        out
    }

    /// A per-lane shift (Cranelift's vector shifts take one amount for all lanes): a uniform
    /// amount shifts the vector, a per-lane one goes lane by lane.
    fn shift(&mut self, kind: IntShift, x: Value, amount: Src, g: usize) -> Value {
        match amount {
            Src::Uniform(a) => self.shift_op(kind, x, a),
            Src::Row(_) => {
                let av = self.lanes(amount, g);
                let mut out = x;
                for l in 0..4u8 {
                    let xl = self.b.ins().extractlane(x, l);
                    let al = self.b.ins().extractlane(av, l);
                    let r = self.shift_op(kind, xl, al);
                    out = self.b.ins().insertlane(out, r, l);
                }
                out
            }
        }
    }

    fn shift_op(&mut self, kind: IntShift, x: Value, a: Value) -> Value {
        // Cranelift masks the amount to the lane width, as the ISA's `S[4:0]` does.
        match kind {
            IntShift::Shl => self.b.ins().ishl(x, a),
            IntShift::Lshr => self.b.ins().ushr(x, a),
            IntShift::Ashr => self.b.ins().sshr(x, a),
        }
    }

    fn inst(&mut self, i: &Inst, l: Lower) -> Result<(), String> {
        match l {
            Lower::Nop => Ok(()),
            Lower::VAlu(op) => {
                self.count_lanes();
                self.valu(i, op)
            }
            Lower::VCmp => {
                self.count_lanes();
                self.vcmp(i)
            }
            Lower::ReadFirstLane => {
                self.count_lanes();
                self.readfirstlane(i);
                Ok(())
            }
            Lower::SAlu(op) => {
                self.salu(i, op);
                Ok(())
            }
            Lower::Mem | Lower::Step => {
                self.call_interpreter(i, l);
                Ok(())
            }
        }
    }

    fn valu(&mut self, i: &Inst, op: VAluOp) -> Result<(), String> {
        if let VAluOp::Carry(kind) = op {
            self.carry(i, kind);
            return Ok(());
        }
        let dst = reg_index(i.dst);
        let a = self.src(i, 0);
        let nsrc = op.sources();
        let b = if nsrc >= 2 {
            Some(self.src(i, 1))
        } else {
            None
        };
        let c = if nsrc == 3 {
            Some(self.src(i, 2))
        } else {
            None
        };
        // v_cndmask's select mask: an SGPR pair (VCC for the VOP2 form), 64 bits wide in
        // wave32 too, as the interpreter reads it.
        let sel = if op == VAluOp::Cndmask {
            let code = i.src[2] as usize;
            Some([self.sload(code), self.sload(code + 1)])
        } else {
            None
        };
        let bb = b.unwrap_or(a);
        self.write_rows(dst, |s, g| {
            let x = s.lanes_mod(i, 0, a, g);
            let y = if nsrc >= 2 {
                s.lanes_mod(i, 1, bb, g)
            } else {
                x
            };
            match op {
                VAluOp::Mov => x,
                VAluOp::Add => s.b.ins().iadd(x, y),
                VAluOp::Sub => s.b.ins().isub(x, y),
                VAluOp::SubRev => s.b.ins().isub(y, x),
                VAluOp::MulLo => s.b.ins().imul(x, y),
                VAluOp::And => s.b.ins().band(x, y),
                VAluOp::Or => s.b.ins().bor(x, y),
                VAluOp::Xor => s.b.ins().bxor(x, y),
                VAluOp::LshlRev => s.shift(IntShift::Shl, y, a, g),
                VAluOp::LshrRev => s.shift(IntShift::Lshr, y, a, g),
                VAluOp::AshrRev => s.shift(IntShift::Ashr, y, a, g),
                VAluOp::LshlAdd => {
                    let sh = s.shift(IntShift::Shl, x, bb, g);
                    let z = c.map(|c| s.lanes(c, g)).unwrap_or(sh);
                    s.b.ins().iadd(sh, z)
                }
                VAluOp::Cndmask => {
                    let m = s.lane_mask(sel.unwrap_or([x, x]), g);
                    s.b.ins().bitselect(m, y, x)
                }
                VAluOp::FAdd | VAluOp::FSub | VAluOp::FSubRev | VAluOp::FMul => {
                    let (fx, fy) = (s.f32x4(x), s.f32x4(y));
                    let r = match op {
                        VAluOp::FAdd => s.b.ins().fadd(fx, fy),
                        VAluOp::FSub => s.b.ins().fsub(fx, fy),
                        VAluOp::FSubRev => s.b.ins().fsub(fy, fx),
                        _ => s.b.ins().fmul(fx, fy),
                    };
                    s.i32x4(r)
                }
                VAluOp::Carry(_) => x,
                VAluOp::Fma | VAluOp::Fmac => {
                    let z = match c {
                        Some(c) => s.lanes_mod(i, 2, c, g),
                        None => s.lanes(Src::Row(dst), g),
                    };
                    s.fma(x, y, z)
                }
                VAluOp::FmaK(mk) => {
                    let k = s.b.ins().iconst(types::I32, i64::from(i.lit as i32));
                    let k = s.b.ins().splat(types::I32X4, k);
                    if mk {
                        s.fma(x, k, y)
                    } else {
                        s.fma(x, y, k)
                    }
                }
                VAluOp::Not => s.b.ins().bnot(x),
                VAluOp::MinI32 => s.b.ins().smin(x, y),
                VAluOp::MaxI32 => s.b.ins().smax(x, y),
                VAluOp::MinU32 => s.b.ins().umin(x, y),
                VAluOp::MaxU32 => s.b.ins().umax(x, y),
                VAluOp::MulU24 => {
                    let m = s.vconst([0xff_ffff; 4]);
                    let (p, q) = (s.b.ins().band(x, m), s.b.ins().band(y, m));
                    s.b.ins().imul(p, q)
                }
                VAluOp::MulI24 => {
                    let p = s.b.ins().ishl_imm(x, 8);
                    let p = s.b.ins().sshr_imm(p, 8);
                    let q = s.b.ins().ishl_imm(y, 8);
                    let q = s.b.ins().sshr_imm(q, 8);
                    s.b.ins().imul(p, q)
                }
                _ => {
                    // The three-source integer operations.
                    let z = c.map(|c| s.lanes(c, g)).unwrap_or(x);
                    match op {
                        VAluOp::Add3 => {
                            let t = s.b.ins().iadd(x, y);
                            s.b.ins().iadd(t, z)
                        }
                        VAluOp::Or3 => {
                            let t = s.b.ins().bor(x, y);
                            s.b.ins().bor(t, z)
                        }
                        VAluOp::AndOr => {
                            let t = s.b.ins().band(x, y);
                            s.b.ins().bor(t, z)
                        }
                        VAluOp::Xad => {
                            let t = s.b.ins().bxor(x, y);
                            s.b.ins().iadd(t, z)
                        }
                        VAluOp::LshlOr => {
                            let t = s.shift(IntShift::Shl, x, bb, g);
                            s.b.ins().bor(t, z)
                        }
                        VAluOp::AddLshl => {
                            let t = s.b.ins().iadd(x, y);
                            s.shift(IntShift::Shl, t, c.unwrap_or(bb), g)
                        }
                        // v_bfi_b32: (S0 & S1) | (!S0 & S2).
                        _ => s.b.ins().bitselect(x, y, z),
                    }
                }
            }
        });
        Ok(())
    }

    /// The carry adds and subtracts: the result row under EXEC, and the carry-out merged into
    /// the SGPR pair under EXEC (the interpreter's `merge_mask`: in wave32 the second SGPR
    /// keeps its value, as EXEC has no high bits).
    fn carry(&mut self, i: &Inst, kind: u8) {
        let dst = reg_index(i.dst);
        let (a, b) = (self.src(i, 0), self.src(i, 1));
        let cin = if kind >= 3 {
            let code = i.src[2] as usize;
            Some([self.sload(code), self.sload(code + 1)])
        } else {
            None
        };
        let mut co = self.b.ins().iconst(types::I64, 0);
        let mut rows = Vec::new();
        for g in 0..self.groups {
            let (x, y) = (self.lanes(a, g), self.lanes(b, g));
            let (p, q) = if matches!(kind, 2 | 5) {
                (y, x)
            } else {
                (x, y)
            };
            let (r, c) = match kind {
                0 | 3 => {
                    let r = self.b.ins().iadd(p, q);
                    (r, self.b.ins().icmp(IntCC::UnsignedLessThan, r, p))
                }
                _ => {
                    let r = self.b.ins().isub(p, q);
                    (r, self.b.ins().icmp(IntCC::UnsignedGreaterThan, q, p))
                }
            };
            let (r, c) = match cin {
                None => (r, c),
                Some(m) => {
                    let ci = self.lane_mask(m, g);
                    let ci = self.b.ins().ushr_imm(ci, 31);
                    if kind == 3 {
                        let r2 = self.b.ins().iadd(r, ci);
                        let c2 = self.b.ins().icmp(IntCC::UnsignedLessThan, r2, ci);
                        (r2, self.b.ins().bor(c, c2))
                    } else {
                        let r2 = self.b.ins().isub(r, ci);
                        let c2 = self.b.ins().icmp(IntCC::UnsignedLessThan, r, ci);
                        (r2, self.b.ins().bor(c, c2))
                    }
                }
            };
            rows.push(r);
            let hb = self.b.ins().vhigh_bits(types::I64, c);
            let hb = if g == 0 {
                hb
            } else {
                self.b.ins().ishl_imm(hb, (4 * g) as i64)
            };
            co = self.b.ins().bor(co, hb);
        }
        self.write_rows(dst, |_, g| rows[g]);
        let exec = self.sload64(126);
        let d = i.sdst as usize;
        if d < 127 {
            let old = self.sload64(d);
            let keep = self.b.ins().band_not(old, exec);
            let new = self.b.ins().band(co, exec);
            let x = self.b.ins().bor(keep, new);
            self.b.ins().store(mf(), x, self.s, (4 * d) as i32);
        }
    }

    /// `v_cmp_*` (not `v_cmpx`): the lanes' flags under EXEC to VCC or an SGPR pair (one SGPR
    /// in wave32).
    fn vcmp(&mut self, i: &Inst) -> Result<(), String> {
        let cond = i.imm & 31;
        let ty = i.imm >> 5 & 15;
        let (a, b) = (self.src(i, 0), self.src(i, 1));
        let mut bits = self.b.ins().iconst(types::I64, 0);
        for g in 0..self.groups {
            let (x, y) = (self.lanes_mod(i, 0, a, g), self.lanes_mod(i, 1, b, g));
            let m = match ty {
                1 => {
                    let (fx, fy) = (self.f32x4(x), self.f32x4(y));
                    let m = self.b.ins().fcmp(float_cc(cond)?, fx, fy);
                    self.i32x4(m)
                }
                _ => self.b.ins().icmp(int_cc(cond, ty == 4)?, x, y),
            };
            let hb = self.b.ins().vhigh_bits(types::I64, m);
            let hb = if g == 0 {
                hb
            } else {
                self.b.ins().ishl_imm(hb, (4 * g) as i64)
            };
            bits = self.b.ins().bor(bits, hb);
        }
        let exec = self.sload64(126);
        let mask = self.b.ins().band(bits, exec);
        let d = i.sdst as usize;
        if self.wave32 {
            let lo = self.b.ins().ireduce(types::I32, mask);
            self.sstore(d, lo);
        } else {
            self.b.ins().store(mf(), mask, self.s, (4 * d) as i32);
        }
        Ok(())
    }

    /// `v_readfirstlane_b32`: the first active lane (lane 0 when none is).
    fn readfirstlane(&mut self, i: &Inst) {
        let x = match self.src(i, 0) {
            Src::Uniform(x) => x,
            Src::Row(r) => {
                let exec = self.sload64(126);
                let tz = self.b.ins().ctz(exec);
                let zero = self.b.ins().iconst(types::I64, 0);
                let lane = self.b.ins().select(exec, tz, zero);
                let off = self.b.ins().ishl_imm(lane, 2);
                let base = self.b.ins().iadd_imm(self.v, (4 * r * LANES) as i64);
                let addr = self.b.ins().iadd(base, off);
                self.b.ins().load(types::I32, mf(), addr, 0)
            }
        };
        self.sstore(i.dst as usize, x);
    }

    /// A 64-bit scalar source (the interpreter's `Wave::sread64` for the codes `compilable`
    /// admits).
    fn scalar64(&mut self, code: u16, lit: u32, ty: Ty) -> Value {
        let k = match code {
            0..=126 => return self.sload64(code as usize),
            128..=192 => u64::from(code - 128),
            193..=208 => (-(i64::from(code) - 192)) as u64,
            240..=248 => inline_float(code, ty),
            _ if ty == Ty::F64 => u64::from(lit) << 32,
            _ => u64::from(lit),
        };
        self.b.ins().iconst(types::I64, k as i64)
    }

    fn store64(&mut self, code: u16, x: Value) {
        if code < 127 {
            self.b.ins().store(mf(), x, self.s, 4 * i32::from(code));
        }
    }

    fn store_scc(&mut self, c: Value) {
        self.b.ins().store(mf(), c, self.scc, 0);
    }

    /// The 64-bit scalar operations and the carry forms of the 32-bit ones.
    fn salu64(&mut self, i: &Inst, op: SAluOp) {
        let [t0, t1, _] = i.tys;
        match op {
            SAluOp::AddcU32 | SAluOp::SubbU32 => {
                let a = self.scalar(i.src[0], i.lit, t0);
                let b = self.scalar(i.src[1], i.lit, t1);
                let (a, b) = (
                    self.b.ins().uextend(types::I64, a),
                    self.b.ins().uextend(types::I64, b),
                );
                let c = self.b.ins().load(types::I8, mf(), self.scc, 0);
                let c = self.b.ins().uextend(types::I64, c);
                let (r, carry) = if op == SAluOp::AddcU32 {
                    let s = self.b.ins().iadd(a, b);
                    let r = self.b.ins().iadd(s, c);
                    let hi = self.b.ins().ushr_imm(r, 32);
                    (r, self.b.ins().icmp_imm(IntCC::NotEqual, hi, 0))
                } else {
                    let s = self.b.ins().isub(a, b);
                    let r = self.b.ins().isub(s, c);
                    let bc = self.b.ins().iadd(b, c);
                    (r, self.b.ins().icmp(IntCC::UnsignedGreaterThan, bc, a))
                };
                let r = self.b.ins().ireduce(types::I32, r);
                if i.dst < 128 {
                    self.sstore(i.dst as usize, r);
                }
                self.store_scc(carry);
            }
            SAluOp::Mov64 => {
                let a = self.scalar64(i.src[0], i.lit, t0);
                self.store64(i.dst, a);
            }
            SAluOp::Saveexec(f) => {
                let old = self.sload64(126);
                let s = self.scalar64(i.src[0], i.lit, t0);
                let new = self.logic(f, s, old);
                self.store64(i.dst, old);
                self.b.ins().store(mf(), new, self.s, 4 * 126);
                let nz = self.b.ins().icmp_imm(IntCC::NotEqual, new, 0);
                self.store_scc(nz);
            }
            SAluOp::Logic64(f) => {
                let a = self.scalar64(i.src[0], i.lit, t0);
                let b = self.scalar64(i.src[1], i.lit, t1);
                let r = self.logic(f, a, b);
                self.store64(i.dst, r);
                let nz = self.b.ins().icmp_imm(IntCC::NotEqual, r, 0);
                self.store_scc(nz);
            }
            SAluOp::Saveexec32(f) => {
                let s = self.scalar(i.src[0], i.lit, Ty::B32);
                let old = self.sload(126);
                let new = self.logic(f, s, old);
                if i.dst < 128 {
                    self.sstore(i.dst as usize, old);
                }
                self.sstore(126, new);
                let nz = self.b.ins().icmp_imm(IntCC::NotEqual, new, 0);
                self.store_scc(nz);
            }
            SAluOp::Cselect64 => {
                let a = self.scalar64(i.src[0], i.lit, t0);
                let b = self.scalar64(i.src[1], i.lit, t1);
                let scc = self.b.ins().load(types::I8, mf(), self.scc, 0);
                let r = self.b.ins().select(scc, a, b);
                self.store64(i.dst, r);
            }
            _ => {}
        }
    }

    /// `and`, `or`, `xor`, `andn2` (`a & !b`).
    fn logic(&mut self, f: u8, a: Value, b: Value) -> Value {
        match f {
            0 => self.b.ins().band(a, b),
            1 => self.b.ins().bor(a, b),
            2 => self.b.ins().bxor(a, b),
            _ => self.b.ins().band_not(a, b),
        }
    }

    fn salu(&mut self, i: &Inst, op: SAluOp) {
        if op.wide() {
            self.salu64(i, op);
            return;
        }
        let [t0, t1, _] = i.tys;
        let a = if op == SAluOp::Movk {
            self.b.ins().iconst(types::I32, i64::from(i.imm))
        } else {
            self.scalar(i.src[0], i.lit, t0)
        };
        let b = match op {
            SAluOp::Mov | SAluOp::Movk => a,
            _ => self.scalar(i.src[1], i.lit, t1),
        };
        let nz = |g: &mut Self, r: Value| g.b.ins().icmp_imm(IntCC::NotEqual, r, 0);
        let (r, scc): (Option<Value>, Option<Value>) = match op {
            SAluOp::Mov | SAluOp::Movk => (Some(a), None),
            SAluOp::AddU32 | SAluOp::SubU32 | SAluOp::AddI32 | SAluOp::SubI32 => {
                let ins = self.b.ins();
                let (r, c) = match op {
                    SAluOp::AddU32 => ins.uadd_overflow(a, b),
                    SAluOp::SubU32 => ins.usub_overflow(a, b),
                    SAluOp::AddI32 => ins.sadd_overflow(a, b),
                    _ => ins.ssub_overflow(a, b),
                };
                (Some(r), Some(c))
            }
            SAluOp::MulI32 => (Some(self.b.ins().imul(a, b)), None),
            SAluOp::And | SAluOp::Or | SAluOp::Xor | SAluOp::AndN2 => {
                let f = match op {
                    SAluOp::And => 0,
                    SAluOp::Or => 1,
                    SAluOp::Xor => 2,
                    _ => 3,
                };
                let r = self.logic(f, a, b);
                (Some(r), Some(nz(self, r)))
            }
            SAluOp::Lshl | SAluOp::Lshr | SAluOp::Ashr => {
                let r = match op {
                    SAluOp::Lshl => self.b.ins().ishl(a, b),
                    SAluOp::Lshr => self.b.ins().ushr(a, b),
                    _ => self.b.ins().sshr(a, b),
                };
                (Some(r), Some(nz(self, r)))
            }
            SAluOp::MinI32 | SAluOp::MinU32 | SAluOp::MaxI32 | SAluOp::MaxU32 => {
                let cc = match op {
                    SAluOp::MinI32 => IntCC::SignedLessThan,
                    SAluOp::MinU32 => IntCC::UnsignedLessThan,
                    SAluOp::MaxI32 => IntCC::SignedGreaterThan,
                    _ => IntCC::UnsignedGreaterThan,
                };
                let c = self.b.ins().icmp(cc, a, b);
                (Some(self.b.ins().select(c, a, b)), Some(c))
            }
            SAluOp::Cselect => {
                let scc = self.b.ins().load(types::I8, mf(), self.scc, 0);
                (Some(self.b.ins().select(scc, a, b)), None)
            }
            SAluOp::Cmp(cond, signed) => {
                let cc = int_cc(i32::from(cond), signed).unwrap_or(IntCC::Equal);
                (None, Some(self.b.ins().icmp(cc, a, b)))
            }
            // The wide forms, done by `salu64`.
            _ => (None, None),
        };
        if let Some(r) = r {
            if i.dst < 128 {
                self.sstore(i.dst as usize, r);
            }
        }
        if let Some(c) = scc {
            self.b.ins().store(mf(), c, self.scc, 0);
        }
    }
}

#[derive(Clone, Copy)]
enum IntShift {
    Shl,
    Lshr,
    Ashr,
}

/// The compare conditions (isa's `CmpCond` order) for integers.
fn int_cc(cond: i32, signed: bool) -> Result<IntCC, String> {
    use IntCC::*;
    Ok(match (cond, signed) {
        (1, true) => SignedLessThan,
        (1, false) => UnsignedLessThan,
        (2, _) => Equal,
        (3, true) => SignedLessThanOrEqual,
        (3, false) => UnsignedLessThanOrEqual,
        (4, true) => SignedGreaterThan,
        (4, false) => UnsignedGreaterThan,
        (5, _) => NotEqual,
        (6, true) => SignedGreaterThanOrEqual,
        (6, false) => UnsignedGreaterThanOrEqual,
        _ => return Err(format!("integer compare condition {cond}")),
    })
}

/// The compare conditions for floats: the `n` forms are the unordered complements.
fn float_cc(cond: i32) -> Result<FloatCC, String> {
    use FloatCC::*;
    Ok(match cond {
        1 => LessThan,
        2 => Equal,
        3 => LessThanOrEqual,
        4 => GreaterThan,
        5 => OrderedNotEqual,
        6 => GreaterThanOrEqual,
        7 => Ordered,
        8 => Unordered,
        9 => UnorderedOrLessThan,
        10 => UnorderedOrEqual,
        11 => UnorderedOrLessThanOrEqual,
        12 => UnorderedOrGreaterThan,
        13 => NotEqual,
        14 => UnorderedOrGreaterThanOrEqual,
        _ => return Err(format!("float compare condition {cond}")),
    })
}

/// Which compares `lower` admits: 32-bit integer and f32 types, every condition but the
/// constant ones (F, T/TRU) and the class test.
pub(super) fn compare_supported(imm: i32) -> bool {
    let (cond, ty, x) = (imm & 31, imm >> 5 & 15, imm >> 9 & 1 != 0);
    !x && match ty {
        1 => (1..=14).contains(&cond),
        4 | 7 => (1..=6).contains(&cond),
        _ => false,
    }
}
