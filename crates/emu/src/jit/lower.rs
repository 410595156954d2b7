//! Translates a region of decoded instructions to native code with Cranelift.
//!
//! - **Regions.** `mod.rs` hands over the compilable instructions reachable from a start
//!   (`Region`); here they are cut into basic blocks at branch targets and after branches,
//!   one Cranelift block each. `s_branch` and `s_cbranch_*` become jumps between them; a
//!   branch or fall-through to an address outside the region leaves the function.
//! - **Scalar registers live in the `Wave`.** An SGPR is loaded at a block's first use and
//!   stored as it is written, the value kept for the rest of the block (`scache`), as the
//!   VGPR rows are: the `Wave` is current at every exit and call, so the entry loads no SGPR
//!   and the exit block stores none. In a single-wave region the store waits (`spend`, the
//!   pending SGPRs): each way out, call and basic block's end stores them (not an exit to
//!   an `s_endpgm`). (Held as Cranelift variables across the region, every SGPR
//!   it used was loaded at entry, spilled to the stack by the register allocator and
//!   stored back at the exit: ~70 host instructions a call.) SCC, `lane_ops` and the
//!   executed-instruction count are variables, loaded at entry and stored at the exits.
//! - **Vector registers live in the `Wave`.** A VGPR row is `groups` groups of `i32x4` (8
//!   for a wave32 wave, 16 for wave64; lanes 32–63 of a wave32 wave are neither read nor
//!   written), loaded at a block's first use and stored as it is written, the values kept
//!   for the rest of the block (`vcache`). Held in variables, every row a region touched was
//!   live across it: the register allocator spilled nearly all of them, the entry copied
//!   them to the stack and the exit back, and allocating them was most of the compile time.
//! - **Group-major runs.** A run of lane-wise vector instructions is generated group by
//!   group, every instruction on lanes 0–3, then on lanes 4–7, …, so a value meets its
//!   next use in a register (`lane_run`, `group_major`). Inside a group's pass the rows are
//!   stored at its end (`unstored`), so a row the pass writes twice is stored once; a lane
//!   mask a later instruction of the run overwrites is never assembled (`mask_use`), and
//!   one nothing in the run reads is not forwarded. After the run its rows are read again
//!   from the `Wave`. Nothing in a pass can observe the `Wave` (no exit, no call; a wait
//!   in a run stores the pass's rows first), so every exit still sees every row. A DS load
//!   whose address rows' shape the region was compiled for (`predict_ds_shapes`) joins a
//!   run, its shape and range tested before the run; its rows are loaded from the LDS
//!   where a `v_fmac_f32` reads them (`ds_lazy`) and stored into the `Wave` there. The
//!   NaN tests of a pass's float results wait for one test at the end of a stretch of them
//!   (`nan_seg.rs`), as a chain of `v_fmac_f32`s into one row waits for its end.
//! - **Two variants.** The body is generated twice: once blending each vector result under
//!   EXEC, once for a full EXEC (all lanes of the wave size) without blends and with
//!   constant lane counts; the entry picks one. In the full variant an instruction that
//!   writes EXEC ends the assumption for the rest of its basic block, and a basic block (of
//!   either variant) that wrote EXEC goes on to the next one in the variant EXEC then calls
//!   for (`s_and_saveexec` … `s_or_b64 exec` around an if, with every lane taking it, runs
//!   without blends throughout). Under `HSAEMU_JIT=sync` a region that writes EXEC gets the
//!   general variant alone (compile time); a region that never saw a partial EXEC gets the
//!   full one alone (`Variants::Full`), whose general blocks are exits noting a miss.
//! - **Entries.** The function reads the PC, loads SCC and `lane_ops`, and jumps to the
//!   start or to another basic block (`other_entries`), in the variant EXEC calls for.
//! - **Budget.** The function takes the wave's remaining instructions in its scheduler turn;
//!   each basic block first checks that it fits, else the function returns at its start, so
//!   the interpreter runs the rest of the turn and waves interleave exactly as without the
//!   tier. It returns the number of instructions executed and stores the next PC.
//!
//! ## The helpers every lowering uses (vector ALU here, memory in `lower_mem.rs`)
//!
//! - `sgpr(code)` / `set_sgpr(code, x)`: a 32-bit scalar register by operand code (0–127);
//!   `sgpr64`/`set_sgpr64` a pair; `exec64()` EXEC (a constant in the full-EXEC variant);
//!   `scalar(code, lit, ty)` a scalar source as `Wave::sread` reads it.
//! - `vgroup(row, g)` / `set_vgroup(row, g, x)`: lanes 4g..4g+3 of VGPR row `row`
//!   (`reg_index`), as `i32x4`, without EXEC (in a run's group pass the store waits for the
//!   pass's end); `write_rows(row, f)` writes a whole row under
//!   EXEC (skipping the blend in the full-EXEC variant); `lane_mask(halves, g)` turns a
//!   64-bit mask into an `i32x4` lane select; `exec_mask(g)` EXEC's, cached per block.
//! - `row_to_wave(row)`: makes a row's lanes current in the `Wave` (only a row written on
//!   lane-affine facts may not be: `affine.rs`'s pending rows, whose lanes `vgroup`
//!   computes from the fact), for an access at a lane index known only at run time
//!   (`v_readfirstlane_b32`); `forget_row(row)` drops the block's values of a row a call
//!   wrote in the `Wave`. Calls store every pending row first, and so do exits, except a
//!   basic block's end that leaves only for an `s_endpgm` (`Compiler::compile`'s `ends`).
//! - `exit_if(cond, pc)`: leaves the function *before* the instruction at `pc` (in the
//!   current basic block) when `cond` is true, storing SCC, `lane_ops` (and the pending
//!   rows) and counting
//!   the instructions before it; the code after it continues in a new block. A memory
//!   access whose range check fails uses it, so the interpreter re-runs the instruction
//!   and reports the fault as it always does.
//!
//! Code that hands the `Wave` to Rust in the middle of a region (a call of an interpreter
//! path) must first store the pending rows and `lane_ops` (`regs_to_wave`) and afterwards
//! drop the block's values of every register it writes (`forget_sgpr`, `forget_row`).

use super::{branch_target, BlockFn, CallCtx, Lower, SAluOp, VAluOp, Variants};
use crate::decode::{Inst, VGPR};
use crate::wave::{inline_float, reg_index, Ty, LANES};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, Block, BlockArg, ConstantData, Endianness, InstBuilder, MemFlags,
    UserFuncName, Value,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{ArenaMemoryProvider, JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

#[path = "affine.rs"]
mod affine;
#[path = "div.rs"]
mod div;
#[path = "live.rs"]
mod live;
#[path = "lower_mem.rs"]
mod lower_mem;
#[path = "nan_seg.rs"]
mod nan_seg;
#[path = "pair.rs"]
mod pair;
#[path = "row_cmp.rs"]
mod row_cmp;
#[path = "tiles.rs"]
mod tiles;
pub(super) use live::live_rows;

pub(super) use lower_mem::predict_ds_shapes;
use lower_mem::{kept_loads, smem_groups, SmemShare};
pub(super) use tiles::predict_tiles;

/// One code generator (lives on the compiler thread; its code is never freed, so a published
/// block stays valid for the process).
/// A compiled region: its code, the other addresses it may be entered at (its basic
/// blocks'), the code's size in bytes and its symbol (`super::perf_map`).
pub(super) struct Compiled {
    pub(super) f: BlockFn,
    /// A pair region's SGPRs the two waves must hold equal to enter it (`pair.rs`).
    pub(super) pair_equal: Vec<u8>,
    /// A pair region's ID rows (`Wave::id_rows` bits) its entry takes from their lane 0 on
    /// fresh waves, pending (`affine.rs`' `facts_at_start`): the dispatcher may leave their
    /// other lanes unwritten (`Block::lazy_ids`). 0 for any other region.
    pub(super) lazy_ids: u8,
    pub(super) entries: Vec<u64>,
    pub(super) size: usize,
    pub(super) name: String,
}

/// Address space reserved for one compiler's code (only the pages used are committed):
/// about 100 000 regions of gfx1030 vector add's pair region (73 KB) would fill it.
const ARENA: usize = 8 << 30;

pub(super) struct Compiler {
    module: JITModule,
    fctx: FunctionBuilderContext,
    count: u64,
}

/// A basic block of a region: its instructions (indices into the region) and where control
/// goes after the last one when it is not a branch.
struct Bb {
    pc: u64,
    insts: Vec<usize>,
    /// The address after the last instruction.
    next: u64,
}

/// Cuts `region` (sorted by address) into basic blocks from `start`: leaders are the start,
/// the targets of branches and the instructions after conditional branches and after EXEC
/// writes not followed by a branch.
fn basic_blocks(region: &[(u64, Inst, Lower)], start: u64) -> BTreeMap<u64, Bb> {
    let at: HashMap<u64, usize> = region
        .iter()
        .enumerate()
        .map(|(k, (pc, _, _))| (*pc, k))
        .collect();
    let mut leaders = BTreeSet::from([start]);
    for (k, (pc, i, l)) in region.iter().enumerate() {
        let next = pc + u64::from(i.size);
        if let Lower::Branch(c) = l {
            leaders.insert(branch_target(*pc, i));
            if *c != 0 {
                leaders.insert(next);
            }
        }
        // The code after an EXEC write runs in the variant EXEC then calls for (so a store
        // after `s_or_b32 exec_lo, exec_lo, s4` restored a full EXEC is inline), unless a
        // branch, which ends the basic block anyway, comes next.
        let branch_next = region
            .get(k + 1)
            .is_some_and(|(p, _, l)| *p == next && matches!(l, Lower::Branch(_)));
        if writes_exec(i, *l) && !branch_next {
            leaders.insert(next);
        }
    }
    let mut out = BTreeMap::new();
    for &l in leaders.iter().filter(|l| at.contains_key(l)) {
        let mut bb = Bb {
            pc: l,
            insts: Vec::new(),
            next: l,
        };
        let mut parked = false;
        while let Some(&k) = at.get(&bb.next) {
            if bb.next != l && leaders.contains(&bb.next) {
                break;
            }
            let (pc, i, lw) = &region[k];
            // After `s_barrier` only its tail (`after_barrier`): the wave parks before the
            // rest, at `bb.next`.
            if parked && !super::after_barrier(i, *lw) {
                break;
            }
            bb.insts.push(k);
            bb.next = pc + u64::from(i.size);
            parked |= *lw == Lower::Barrier;
            if matches!(lw, Lower::Branch(_)) {
                break;
            }
        }
        out.insert(l, bb);
    }
    out
}

/// The most instructions a run of `region` can execute from any of its basic blocks `bbs`
/// (each a possible entry), or `None` when a path among them returns to a basic block (a
/// loop: its budget is tested per basic block). The edges are those `variant` generates: a
/// branch's target and, unless it is unconditional, the next basic block; none after
/// `s_barrier`; the next one after any other last instruction.
fn longest_path(region: &[(u64, Inst, Lower)], bbs: &BTreeMap<u64, Bb>) -> Option<u64> {
    let successors = |bb: &Bb| -> Vec<u64> {
        let last = bb.insts.last().map(|&k| &region[k]);
        let next = match last {
            Some((pc, i, Lower::Branch(c))) => {
                let mut v = vec![branch_target(*pc, i)];
                if *c != 0 {
                    v.push(bb.next);
                }
                v
            }
            Some((_, _, Lower::Barrier)) => vec![],
            _ => vec![bb.next],
        };
        next.into_iter().filter(|s| bbs.contains_key(s)).collect()
    };
    // Depth first, each basic block's longest path once; on the stack again: a cycle.
    fn visit(
        pc: u64,
        bbs: &BTreeMap<u64, Bb>,
        succ: &dyn Fn(&Bb) -> Vec<u64>,
        longest: &mut HashMap<u64, Option<u64>>,
    ) -> Option<u64> {
        if let Some(&n) = longest.get(&pc) {
            return n;
        }
        longest.insert(pc, None);
        let bb = &bbs[&pc];
        let mut most = 0;
        for s in succ(bb) {
            most = most.max(visit(s, bbs, succ, longest)?);
        }
        let n = bb.insts.len() as u64 + most;
        longest.insert(pc, Some(n));
        Some(n)
    }
    let mut longest = HashMap::new();
    let mut most = 0;
    for &pc in bbs.keys() {
        most = most.max(visit(pc, bbs, &successors, &mut longest)?);
    }
    Some(most)
}

impl Compiler {
    pub(super) fn new() -> Result<Compiler, String> {
        let mut flags = settings::builder();
        // Cranelift's IR verifier costs a quarter of the compile time; the tier's checks
        // (`HSAEMU_JIT=sync`/`verify`, which the tests run) keep it. Not in every debug
        // build: the tests' HIP programs compiled with it in the background for nothing.
        let checked = matches!(super::mode(), super::Mode::Sync | super::Mode::Verify);
        // Cranelift's optimizer ("speed") took gfx90a vector add's compile from 6.5 to 10.7
        // ms and its run no faster; the generator shares values itself (`konst`, `pairs`).
        for (k, v) in [
            ("opt_level", "none"),
            ("use_colocated_libcalls", "false"),
            ("is_pic", "false"),
            ("enable_verifier", if checked { "true" } else { "false" }),
        ] {
            flags.set(k, v).map_err(|e| e.to_string())?;
        }
        let isa = cranelift_native::builder()
            .map_err(str::to_string)?
            .finish(settings::Flags::new(flags))
            .map_err(|e| e.to_string())?;
        let mut builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
        // Each region's code in one reserved range (`ARENA`), one region after the other, so
        // the pages made executable are neighbours and the kernel keeps them one mapping.
        // Cranelift's default takes each region's pages from the heap and makes them
        // executable there, two mappings more per region: after ~32 000 regions (a process
        // that loads many code objects) the process reached the kernel's limit of 65 530
        // mappings and every later allocation failed. Where the range cannot be reserved
        // (an address-space limit), the default; when it is full, a region stays interpreted.
        if let Ok(arena) = ArenaMemoryProvider::new_with_size(ARENA) {
            builder.memory_provider(Box::new(arena));
        }
        let module = JITModule::new(builder);
        Ok(Compiler {
            module,
            fctx: FunctionBuilderContext::new(),
            count: 0,
        })
    }

    /// Compiles request `r`'s region (its instructions by address, each with its lowering),
    /// entered at `r.start`, for a wave of 32 or 64 lanes. `r.ends`: addresses outside the
    /// region holding an `s_endpgm`, where the rows need not be current in the `Wave` at
    /// the exit (empty where something reads them after the region: `HSAEMU_JIT=verify`,
    /// `run_words`).
    pub(super) fn compile(&mut self, r: &super::Request) -> Result<Compiled, String> {
        let (region, start, wave32, variants, affine) =
            (&r.insts[..], r.start, r.wave32, r.variants, r.affine);
        // A pair region (`pair.rs`): two wave32s as one wave64, without lane facts.
        let pair_plan = if r.pair {
            let heads: Vec<usize> = basic_blocks(region, start)
                .keys()
                .filter_map(|&pc| region.iter().position(|(p, _, _)| *p == pc))
                .collect();
            Some(pair::plan(region, &heads)?)
        } else {
            None
        };
        let pair_equal = pair_plan
            .as_ref()
            .map(|p| p.equal.clone())
            .unwrap_or_default();
        let (ds_pred, ends) = (r.ds_pred.clone(), &r.ends);
        let ptr = self.module.target_config().pointer_type();
        let mut ctx = self.module.make_context();
        for _ in 0..3 {
            ctx.func.signature.params.push(AbiParam::new(ptr));
        }
        // The budget is passed 64 bits wide (`BlockFn`): the caller's 32-bit store of a
        // stack argument read back by an 8-byte load stalled every call (store forwarding).
        ctx.func.signature.params.push(AbiParam::new(types::I64));
        ctx.func.signature.returns.push(AbiParam::new(types::I32));
        self.count += 1;
        // Also the symbol a profiler shows (`super::perf_map`, and Cranelift's own perf map
        // under `perf record`): the region's number, kernel, start and variant.
        let name = format!("region{}:{}", self.count, super::region_label(r));
        ctx.func.name = UserFuncName::user(0, self.count as u32);
        let id = self
            .module
            .declare_function(&name, Linkage::Local, &ctx.func.signature)
            .map_err(|e| e.to_string())?;
        let (entries, lazy_ids);
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut self.fctx);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            let p = b.block_params(entry).to_vec();
            // The registers are loaded in `loads`, generated last, once every register the
            // region touches is known; a wave resuming at another basic block (where the
            // budget stopped a run) enters through `others`.
            let loads = b.create_block();
            let others = b.create_block();
            let budget = b.ins().ireduce(types::I32, p[3]);
            // A region without a cycle runs at most its longest path (`longest_path`): a
            // budget of that many is tested once, in `check` (filled once the facts are
            // planned: not where basic blocks hand rows over pending, whose budget exits
            // store them), and its basic blocks test none. Less declines (nothing ran; the
            // interpreter runs the turn's rest), as a first basic block that does not fit.
            let longest = match pair_plan {
                None => longest_path(region, &basic_blocks(region, start)),
                Some(_) => None,
            };
            let check = longest.map(|n| {
                let (check, go) = (b.create_block(), b.create_block());
                b.ins().jump(check, &[]);
                b.switch_to_block(go);
                (check, go, n)
            });
            // The tile marks of the rows the region may write go first, whatever it runs.
            let clobbers = tiles::clobbers(region);
            // Rows whose writes keep a tile a tile keep their marks under a full EXEC.
            let shape_kept = tiles::shape_kept(region);
            // Rows a compare takes on their marks (`row_cmp.rs`): the region clears those
            // marks where it writes the rows (`clear_cmp_marks`), not at its entry.
            let cmp_rows = match pair_plan {
                Some(_) => 0,
                None => row_cmp::cmp_rows(region) & clobbers & !shape_kept,
            };
            let cleared = clobbers & !cmp_rows;
            if clobbers != 0 {
                // The `Wave` at its offset from the scalar file (`Gen::wave_ptr`).
                let wave = p[0];
                let at = super::from_s(std::mem::offset_of!(crate::wave::Wave, tile_marks));
                let marks = b.ins().load(types::I64, mf(), wave, at);
                let marks = if shape_kept == 0 {
                    b.ins().band_imm(marks, !cleared as i64)
                } else {
                    let exec = b.ins().load(types::I64, mf(), p[0], 4 * 126);
                    let all = if wave32 { 0xffff_ffff } else { -1 };
                    let full = b.ins().icmp_imm(IntCC::Equal, exec, all);
                    let keep = b.ins().iconst(types::I64, !(cleared & !shape_kept) as i64);
                    let drop = b.ins().iconst(types::I64, !cleared as i64);
                    let keep = b.ins().select(full, keep, drop);
                    b.ins().band(marks, keep)
                };
                b.ins().store(mf(), marks, wave, at);
                let at = super::from_s(std::mem::offset_of!(crate::wave::Wave, ds_marks));
                let marks = b.ins().load(types::I64, mf(), wave, at);
                let marks = b.ins().band_imm(marks, !clobbers as i64);
                b.ins().store(mf(), marks, wave, at);
            }
            // B's scalar and vector files (`CallCtx::s_b`, `v_b`), for a pair region.
            let (sb, vb) = if pair_plan.is_some() {
                // B is the wave after A in their work-group's `Vec<Wave>` (the dispatcher's
                // pairs): its file is A's plus one `Wave`, an offset every access to B's
                // SGPRs, SCC and PC folds in (B's own pointer was spilled and reloaded at
                // each, ~20 per pair call). Tested against `s_b`; else nothing runs.
                let at = std::mem::offset_of!(CallCtx, s_b) as i32;
                let given = b.ins().load(ptr, mf(), p[2], at);
                let stride = b
                    .ins()
                    .iconst(ptr, std::mem::size_of::<crate::wave::Wave>() as i64);
                let sb = b.ins().iadd(p[0], stride);
                let next = b.ins().icmp(IntCC::Equal, given, sb);
                let (go, decline) = (b.create_block(), b.create_block());
                b.ins().brif(next, go, &[], decline, &[]);
                b.switch_to_block(decline);
                let zero = b.ins().iconst(types::I32, 0);
                b.ins().return_(&[zero]);
                b.switch_to_block(go);
                let at = std::mem::offset_of!(CallCtx, v_b) as i32;
                (sb, b.ins().load(ptr, mf(), p[2], at))
            } else {
                (p[0], p[1])
            };
            let now = b.ins().load(types::I64, mf(), p[0], super::PC_AT);
            let at_start = b.ins().icmp_imm(IntCC::Equal, now, start as i64);
            b.ins().brif(at_start, loads, &[], others, &[]);
            let exit = b.create_block();
            b.append_block_param(exit, types::I64);
            b.append_block_param(exit, types::I32);
            let scc = b.declare_var(types::I8);
            let scc_b = b.declare_var(types::I8);
            let lane_ops = b.declare_var(types::I64);
            let count = b.declare_var(types::I32);
            let mut g = Gen {
                b,
                s: p[0],
                s_a: p[0],
                v: p[1],
                ctx: p[2],
                budget,
                budget_tested: false,
                groups: if wave32 && pair_plan.is_none() { 8 } else { 16 },
                wave32: wave32 && pair_plan.is_none(),
                pair: pair_plan.is_some(),
                plan: pair_plan.unwrap_or_default(),
                side: false,
                sb,
                vb,
                scache_b: HashMap::new(),
                spend: BTreeMap::new(),
                svars: HashMap::new(),
                line: None,
                scc_b,
                pair_fail: None,
                full: false,
                inst_pc: 0,
                scache: HashMap::new(),
                vcache: HashMap::new(),
                ds_rows: HashMap::new(),
                unstored: Vec::new(),
                ds_pred: if affine { ds_pred } else { HashMap::new() },
                ds_ptrs: HashMap::new(),
                ds_lazy: HashMap::new(),
                lazy_rows: HashSet::new(),
                live: r.live.clone(),
                run_live: None,
                ds_reloaded: HashSet::new(),
                ds_overwritten: HashSet::new(),
                ds_unstored: HashMap::new(),
                scc,
                lane_ops,
                lanes_due: 0,
                stored_clear: false,
                defer_lanes: false,
                count,
                exit,
                masks: HashMap::new(),
                splats: HashMap::new(),
                consts: HashMap::new(),
                pairs: HashMap::new(),
                active: None,
                grp: None,
                fwd: HashMap::new(),
                pending: Vec::new(),
                run_pos: 0,
                run_masks: Vec::new(),
                fmac_chain: None,
                nan_seg: None,
                nan_exact: false,
                exec_writes: 0,
                heads: [HashMap::new(), HashMap::new()],
                bb_count: None,
                start,
                none: None,
                done: 0,
                slots: HashMap::new(),
                smem_share: HashMap::new(),
                smem_ok: HashMap::new(),
                kept: HashSet::new(),
                kept_row: None,
                aff: HashMap::new(),
                cfacts: HashMap::new(),
                carry_due: None,
                unwrapped: HashSet::new(),
                plans: HashMap::new(),
                tiles: HashMap::new(),
                tile_pending: HashMap::new(),
                tile_cache: None,
                tile_plans: HashMap::new(),
                tile_block: false,
                clobbers,
                shape_kept,
                cmp_rows,
                handled: HashSet::new(),
                general: true,
                unstored_facts: Vec::new(),
                written_now: HashSet::new(),
                ends: ends.iter().copied().collect(),
                lazy_ids: 0,
            };
            let bbs = basic_blocks(region, start);
            g.smem_share = smem_groups(region, bbs.values().map(|bb| &bb.insts[..]));
            g.kept = kept_loads(region, bbs.values().map(|bb| &bb.insts[..]));
            if affine {
                let starts = bbs.keys().copied().collect();
                let shapes = affine::predict(region, &starts);
                g.plan_facts(region, &bbs, &shapes);
                // Not in a pair: a tile's marks are per wave (`Wave::tile_marks`).
                if !g.pair {
                    g.plan_tiles(region, &bbs, &starts);
                }
            }
            if let Some((check, go, n)) = check {
                g.budget_tested = g.plans.is_empty();
                g.b.switch_to_block(check);
                if g.budget_tested {
                    let decline = g.b.create_block();
                    let fits =
                        g.b.ins()
                            .icmp_imm(IntCC::UnsignedGreaterThanOrEqual, g.budget, n as i64);
                    g.b.ins().brif(fits, go, &[], decline, &[]);
                    g.b.switch_to_block(decline);
                    let zero = g.b.ins().iconst(types::I32, 0);
                    g.b.ins().return_(&[zero]);
                } else {
                    g.b.ins().jump(go, &[]);
                }
            }
            g.general = variants != Variants::Full;
            // Without the general variant its basic blocks are exits that note the miss.
            let n = if variants == Variants::General { 1 } else { 2 };
            for heads in &mut g.heads[..n] {
                *heads = bbs.keys().map(|&pc| (pc, g.b.create_block())).collect();
            }
            // A basic block that sets EXEC before anything the variants differ in is one
            // block for both (`exec_neutral`): a loop's exit that restores EXEC after it
            // reached 0 is no miss of a full-EXEC-only region.
            if n == 2 {
                for (pc, bb) in &bbs {
                    if *pc != start && exec_neutral(region, bb) {
                        let f = g.heads[1][pc];
                        g.heads[0].insert(*pc, f);
                    }
                }
            }
            if variants != Variants::Full {
                g.variant(region, &bbs, false)?;
            }
            if variants != Variants::General {
                g.variant(region, &bbs, true)?;
            }
            if let Some(why) = g.pair_fail.take() {
                return Err(why);
            }
            g.exit_block();
            let general = if variants == Variants::Full {
                g.misses()
            } else {
                g.heads[0][&start]
            };
            let full = g.heads[1].get(&start).copied();
            g.loads(loads, general, full);
            entries = g.other_entries(others, now);
            lazy_ids = g.lazy_ids;
            g.b.seal_all_blocks();
            g.b.finalize();
        }
        // `HSAEMU_JIT_DISASM` prints each region's machine code (tuning the lowering).
        let disasm = std::env::var_os("HSAEMU_JIT_DISASM").is_some();
        ctx.set_disasm(disasm);
        self.module
            .define_function(id, &mut ctx)
            .map_err(|e| format!("{e:?}"))?;
        if let Some(text) = ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
            eprintln!("hsaemu-jit: {name}:\n{text}");
        }
        // With the text, the bytes too: `objdump -D -b binary -m i386:x86-64
        // --adjust-vma=ADDRESS` of the file maps a profiler's addresses to instructions.
        let bytes = disasm
            .then(|| ctx.compiled_code().map(|c| c.code_buffer().to_vec()))
            .flatten();
        let size = ctx
            .compiled_code()
            .map_or(0, |c| c.code_info().total_size as usize);
        self.module.clear_context(&mut ctx);
        self.module
            .finalize_definitions()
            .map_err(|e| e.to_string())?;
        let code = self.module.get_finalized_function(id);
        if let Some(bytes) = bytes {
            let path = std::env::temp_dir().join(format!("hsaemu-jit-region{}.bin", self.count));
            match std::fs::write(&path, &bytes) {
                Ok(()) => eprintln!(
                    "hsaemu-jit: {name} at {code:p}, {} bytes in {}",
                    bytes.len(),
                    path.display()
                ),
                Err(e) => eprintln!("hsaemu-jit: {name}: {}: {e}", path.display()),
            }
        }
        // SAFETY: `code` is the finalized function just defined with the signature of
        // `BlockFn` (three pointer arguments and a u64, returning a u32, the platform's C
        // calling convention, which is Cranelift's default for the host ISA).
        Ok(Compiled {
            f: unsafe { std::mem::transmute::<*const u8, BlockFn>(code) },
            pair_equal,
            lazy_ids,
            entries,
            size,
            name,
        })
    }
}

/// Memory flags for the wave's registers: never trapping (the pointers come from a live
/// `Wave`), alignment not promised (rows are 4-byte aligned).
fn mf() -> MemFlags {
    MemFlags::new().with_notrap()
}

/// `v_fmac_f32`s of a run's group pass into row `row`, each on the previous one's result,
/// their NaN tests deferred: a NaN operand of any makes the last result a NaN (an FMA with
/// a NaN operand gives a NaN), so one test of the last result says whether the chain must
/// be computed again with each step's NaN rule (`Gen::fma`), from `z0`.
struct FmacChain {
    row: usize,
    g: usize,
    /// The accumulator before the chain (a tested value).
    z0: Value,
    /// Each step's multiplicands (values of other rows, or constants: tested values), as
    /// the recomputation reads them again (kept as values to the chain's end, matmul's 32
    /// per group were spilled).
    steps: Vec<[Again; 2]>,
    /// The last step's untested result (the row's value in `vcache`).
    last: Value,
}

impl FmacChain {
    /// Whether run DS load `i` leaves the chain pending: it neither reads nor writes the
    /// accumulator, and writes no row a step's multiplicand is read again from (the `Wave`
    /// may then hold the load's value at the chain's end). A multiplicand read again from
    /// the LDS stays: a run holds no DS store.
    fn survives_ds_load(&self, i: &Inst) -> bool {
        let Some(written) = lower_mem::ds_load_rows(i) else {
            return false;
        };
        let held = |r: usize| {
            self.steps
                .iter()
                .flatten()
                .any(|a| matches!(a, Again::Wave(w) if *w == r))
        };
        reg_index(i.src[0]) != self.row && written.iter().all(|&r| r != self.row && !held(r))
    }
}

/// Where a chain step's multiplicand is read again for the recomputation, fixed at the
/// step: a DS load later in the chain may write its row (matmul's loop loads most of its
/// rows twice between two `v_fmac_f32`s of one chain).
#[derive(Clone, Copy)]
enum Again {
    /// Kept as a value.
    Value(Value),
    /// The row the `Wave` holds it in.
    Wave(usize),
    /// A lazy DS group not stored into the `Wave` (`ds_unstored`): loaded again from the
    /// LDS.
    Lds((Value, i32, bool)),
}

/// Whether `i` (lowered as `l`) is a `v_fmac_f32` that may join a chain (`FmacChain`):
/// its multiplicands are not its own row, so only its accumulator reads the chain.
fn fmac_chainable(i: &Inst, l: Lower) -> bool {
    l == Lower::VAlu(VAluOp::Fmac) && i.src[0] != i.dst && i.src[1] != i.dst
}

/// A source operand as the compiled code reads it.
#[derive(Clone, Copy)]
enum Src {
    /// A VGPR row (its index in the vector file).
    Row(usize),
    /// The same 32 bits in every lane (an SGPR read once, or a constant).
    Uniform(Value),
}

/// A DS load a run may take (`run_ds_load`): its address row, dwords per lane and the rows
/// it writes.
type RunDsLoad = (usize, u32, Vec<usize>);

/// What the DS instructions of a basic block found of an address row (`inline_lds.rs`'s
/// `ds_row_shapes`): its highest lane address (`i32`), whether every group is contiguous
/// (when asked) and whether every group is uniform (`i8`s).
type DsRow = (Value, Option<Value>, Value);

struct Gen<'a> {
    b: FunctionBuilder<'a>,
    s: Value,
    /// A's scalar file, `s` before any `swap_b` (`wave_ptr`).
    s_a: Value,
    v: Value,
    /// The `CallCtx` pointer (calls into the interpreter, `lower_mem`).
    ctx: Value,
    budget: Value,
    /// The entry tested the budget for the whole region (`longest_path`): no basic block
    /// tests it again.
    budget_tested: bool,
    groups: usize,
    wave32: bool,
    /// A pair region (`pair.rs`): groups 8–15 are wave B's groups 0–7 (`vb`), a lane mask
    /// is A's 32 bits and B's above them, and a uniform SGPR write is stored to both files.
    pair: bool,
    plan: pair::PairPlan,
    /// Generating a scalar instruction for one wave of a pair (`side_inst`): the wave32
    /// lowering on that wave's file (`s`, `scache` and `scc` swapped with B's for B).
    side: bool,
    sb: Value,
    vb: Value,
    scache_b: HashMap<usize, Value>,
    /// Pending SGPRs: those written in the current basic block and not yet stored into the
    /// `Wave` (by code, the variable holding each one's value); single-wave regions only (a
    /// pair region stores both files' SGPRs at once). Stored on every path that leaves or
    /// calls (`store_sgprs`), at the basic block's end unless it leaves for an `s_endpgm`
    /// alone; a later write of the same code replaces the value, so an SGPR written twice
    /// is stored once.
    spend: BTreeMap<usize, Variable>,
    /// The variables of `spend`, by code (one per SGPR, reused).
    svars: HashMap<usize, Variable>,
    /// The Cranelift block in which an SGPR write may become pending (`set_sgpr`): the
    /// basic block's body and the blocks that continue it, each dominating the rest of
    /// the basic block. In any other block (one way of a branch) a write of an SGPR not
    /// pending is stored at once: the other ways would not define its variable.
    line: Option<Block>,
    scc_b: Variable,
    /// Why the pair region cannot be generated after all (`lower_mem.rs`'s `call_path`).
    pair_fail: Option<String>,
    /// Generating the full-EXEC variant.
    full: bool,
    /// The address of the instruction being generated (`inst_at`; `s_getpc_b64` reads it).
    inst_pc: u64,
    /// The SGPRs (by code) the current block has loaded or written: their values. The
    /// `Wave` holds every SGPR but the pending ones (`spend`), so this is only a cache,
    /// cleared as `vcache` is.
    scache: HashMap<usize, Value>,
    /// The VGPR groups (row, group) the current block has loaded or written: their values.
    vcache: HashMap<(usize, usize), Value>,
    /// The basic block's DS address rows already checked (`inline_lds.rs`), by (row, dwords
    /// per lane, whole-row contiguity asked): the highest lane address and whether every
    /// group is contiguous (when asked) and uniform. Valid until the row is written
    /// (`set_vgroup`, `forget_row`) or the basic block ends: its values dominate the rest
    /// of the basic block.
    ds_rows: HashMap<(usize, u32, bool), DsRow>,
    /// In a run's group pass (`group_major`), the groups written but not yet stored, in
    /// write order: stored at the pass's end, so a write the pass overwrites is never stored.
    unstored: Vec<(usize, usize)>,
    /// The DS address rows' predicted shapes (`predict_ds_shapes`), by (row, dwords per
    /// lane): uniform (true) or contiguous in every group. Empty without lane facts.
    ds_pred: HashMap<(usize, u32), bool>,
    /// In a run's group pass, each DS address row's group address (`ds_run_load`).
    ds_ptrs: HashMap<usize, Value>,
    /// In a run's group pass, the groups a DS load defined and that are loaded only where
    /// a `v_fmac_f32` reads them (`lanes`): the group address, the byte offset and whether
    /// the dword is splat (uniform).
    ds_lazy: HashMap<(usize, usize), (Value, i32, bool)>,
    /// The DS loads' rows of the current run that may be lazy: (run position, row).
    lazy_rows: HashSet<(usize, usize)>,
    /// The rows live at each address (`live.rs`; empty: every row everywhere).
    live: super::Live,
    /// The rows live after the current run (None: every row).
    run_live: Option<[u64; 8]>,
    /// The current run's DS load rows a later DS load of the run writes again: (run
    /// position, row) (`live.rs`'s `reloaded_in_run`).
    ds_reloaded: HashSet<(usize, usize)>,
    /// In a run's group pass, the lazy DS groups whose load a later one of the pass
    /// overwrites (from `ds_reloaded`): dead after the run like those `run_live` lacks.
    ds_overwritten: HashSet<(usize, usize)>,
    /// In a run's group pass, the lazy DS groups loaded but not stored into the `Wave`
    /// (dead after the run, `live.rs`, or overwritten later in the pass): where the
    /// chain's recomputation loads them again.
    ds_unstored: HashMap<(usize, usize), (Value, i32, bool)>,
    scc: Variable,
    lane_ops: Variable,
    /// Lane-ops counted at compile time and not yet added to `lane_ops`: the full variant's
    /// instructions on facts add their constant here (one add per stretch, not three host
    /// instructions each on a spilled variable); `flush_lanes` adds it.
    lanes_due: u64,
    /// `Wave::stored` is known false here: a wait of the current basic block cleared it
    /// (`mem_wait`) and no store or call came after; a later wait then needs no test.
    stored_clear: bool,
    /// Lowering an instruction on facts (`affine_inst`): its count may wait in `lanes_due`.
    defer_lanes: bool,
    /// Instructions executed so far.
    count: Variable,
    /// The exit: (next PC, instructions executed).
    exit: Block,
    /// EXEC's lane selects per group, valid in the current block until EXEC is written.
    masks: HashMap<usize, Value>,
    /// Each scalar's `i32x4` splat, made once per block (every group of an instruction, and
    /// later instructions, reuse it).
    splats: HashMap<Value, Value>,
    /// The block's scalar constants and SGPR pairs as 64 bits, made once (a run's groups
    /// each asked for them again; the generator runs Cranelift without its optimizer).
    consts: HashMap<(types::Type, i64), Value>,
    pairs: HashMap<(Value, Value), Value>,
    /// EXEC's population count (`count_lanes`), valid as `masks`.
    active: Option<Value>,
    /// Generating group `g` alone of a run of lane-wise instructions (`group_major`).
    grp: Option<usize>,
    /// In a run, the lane selects (`i32x4`) of the current group for the lane masks the
    /// run's instructions wrote so far, by SGPR code.
    fwd: HashMap<usize, Value>,
    /// In a run, each instruction's lane flags collected over the groups so far (its
    /// SGPR write, done at the run's end).
    pending: Vec<Flags>,
    /// The current instruction's place in the run.
    run_pos: usize,
    /// Per instruction of the run, `mask_use`'s answer.
    run_masks: Vec<(bool, bool)>,
    /// In a run's group pass, the `v_fmac_f32`s accumulating into one row whose NaN test
    /// waits for the chain's end (`fmac_chain_end`).
    fmac_chain: Option<FmacChain>,
    /// In a run's group pass, the open NaN segment (`nan_seg.rs`).
    nan_seg: Option<nan_seg::NanSeg>,
    /// Generating a NaN segment again in its cold block: each NaN test is `first_nan`'s
    /// selects, without a branch.
    nan_exact: bool,
    /// Writes of EXEC generated so far (a basic block that writes EXEC ends in a choice of
    /// variant for the next one).
    exec_writes: u32,
    /// The first Cranelift block of each basic block, by address: the general variant's,
    /// then the full-EXEC variant's.
    heads: [HashMap<u64, Block>; 2],
    /// The instruction count at the start of the current basic block.
    bb_count: Option<Value>,
    /// Instructions of the current basic block lowered so far.
    done: u32,
    /// The region's entry address.
    start: u64,
    /// Where a first basic block that does not fit the budget goes (nothing ran).
    none: Option<Block>,
    /// The window of each inline memory instruction, by address (`inline_mem.rs`).
    slots: HashMap<u64, usize>,
    /// SMEM loads from one base pair in a basic block that share one range check
    /// (`inline_mem.rs`'s `smem_groups`), by address; and each group's flag (an `i8`): its
    /// first load checked the whole group's range.
    smem_share: HashMap<u64, SmemShare>,
    smem_ok: HashMap<u64, Variable>,
    /// GLOBAL/FLAT loads whose row is read soon after (`inline_mem.rs`'s `kept_loads`), by
    /// address; and the row of the one being generated, whose groups its join takes.
    kept: HashSet<u64>,
    kept_row: Option<usize>,
    /// Lane-affine facts (`affine.rs`) of the current basic block: rows holding `base +
    /// stride·lane` (`base` an `i32`), and SGPR pairs holding a carry-out of every lane
    /// or none (`i32` 0 or 1).
    aff: HashMap<usize, (Value, i64)>,
    cfacts: HashMap<usize, Value>,
    /// A carry-out of code on facts not yet in the `Wave`: (SGPR pair code, its mask;
    /// `affine.rs`' `carry_out`).
    carry_due: Option<(u16, Value)>,
    /// Facts' bases (with their strides) whose rows the current basic block has tested not
    /// to wrap across the lanes (`affine.rs`'s carry and shift tests): tested once per
    /// basic block, the test's way on dominates the rest of it.
    unwrapped: HashSet<(Value, i64)>,
    /// Each basic block's use of lane-affine facts (`affine.rs`), with the variables its
    /// predecessors hand them over in: whether they hold, and each tested row's base.
    plans: HashMap<u64, (affine::Plan, Variable, BTreeMap<usize, Variable>)>,
    /// Tile facts (`tiles.rs`) of the current basic block, the basic blocks' plans on them
    /// (such a block has none in `plans`), and whether the current one has one.
    tiles: HashMap<usize, tiles::Tile>,
    /// The tiles of the rows pending on them (`unstored_facts` with stride `tiles::TILE`).
    tile_pending: HashMap<usize, tiles::Tile>,
    /// A pending tile row's groups as made in a Cranelift block (`pending_lanes`).
    tile_cache: Option<tiles::TileCache>,
    tile_plans: HashMap<u64, tiles::TilePlan>,
    tile_block: bool,
    /// Rows 0–63 (bit `r`) an instruction of the region may write: their `Wave::tile_marks`
    /// and `Wave::ds_marks` are cleared at the region's entry, the others' kept (`tiles.rs`'
    /// `tile_test`, `inline_lds.rs`' `ds_run_checks`).
    clobbers: u64,
    /// Rows of `clobbers` whose `Wave::tile_marks` bits the entry keeps under a full EXEC
    /// (`tiles.rs`' `shape_kept`: every write adds a scalar to the row).
    shape_kept: u64,
    /// Rows of `clobbers` whose `Wave::tile_marks` bits the entry keeps and each write of
    /// the row clears (`row_cmp.rs`).
    cmp_rows: u64,
    /// The current basic block's instructions lowered on facts (region indices).
    handled: HashSet<usize>,
    /// Whether the general variant is generated.
    general: bool,
    /// Rows written on facts and not yet stored in the `Wave` (`affine.rs`'s "pending
    /// rows"): each row with its fact (`base`, `stride`), which `vgroup` and the other row
    /// reads of the generator compute its lanes from.
    unstored_facts: Vec<(usize, Value, i64)>,
    /// The groups of pending rows the instruction being generated writes (on any of its
    /// paths): those rows stop being pending once it is done (`settle_written`).
    written_now: HashSet<(usize, usize)>,
    /// Exits to an `s_endpgm` (nothing reads the rows after it): pending rows are not
    /// stored there.
    ends: HashSet<u64>,
    /// A pair region's `Compiled::lazy_ids` (`affine.rs`' `facts_at_start`).
    lazy_ids: u8,
}

impl Gen<'_> {
    /// A's `Wave` (`CallCtx::wave`) as a base and the offset to add to a field's: the
    /// scalar file's pointer, the first argument, which lies in that `Wave` (`Block::call`).
    /// Loading `ctx.wave` instead cost a load more per use, and a reload of the often
    /// spilled `ctx`.
    fn wave_ptr(&self) -> (Value, i32) {
        (self.s_a, super::from_s(0))
    }

    /// SGPR `code` (0–127: the scalar file by operand code, VCC at 106, EXEC at 126):
    /// loaded from the `Wave` at the block's first use.
    fn sgpr(&mut self, code: usize) -> Value {
        if let Some(&x) = self.scache.get(&code) {
            return x;
        }
        let x = match self.spend.get(&code) {
            Some(&var) => self.b.use_var(var),
            None => self
                .b
                .ins()
                .load(types::I32, mf(), self.s, (4 * code) as i32),
        };
        self.scache.insert(code, x);
        x
    }

    /// Sets SGPR `code`: pending (`spend`), stored into the `Wave` on the way to every exit
    /// and call, and kept for the rest of the block.
    fn set_sgpr(&mut self, code: usize, x: Value) {
        if !self.cfacts.is_empty() {
            self.cfacts.retain(|&c, _| c != code && c + 1 != code);
        }
        if code >= 126 {
            self.exec_writes += 1;
            self.masks.clear();
            self.active = None;
        }
        self.put_sgpr(code, x);
        self.scache.insert(code, x);
        if self.pair && !self.side {
            // A uniform value: both waves hold it.
            self.b.ins().store(mf(), x, self.sb, (4 * code) as i32);
            self.scache_b.insert(code, x);
        }
    }

    /// Whether the current Cranelift block is the basic block's `line`.
    fn on_line(&self) -> bool {
        self.line.is_some() && self.line == self.b.current_block()
    }

    /// After a branch's ways joined in the current block (dominated by the block before
    /// the branch): the line goes on here when that block was on it (`was`).
    fn rejoin(&mut self, was: bool) {
        if was {
            self.line = self.b.current_block();
        }
    }

    /// SGPR `code` of the current file set to `x`: pending (`spend`), or in a pair region or
    /// on a way of a branch, when not pending already, stored at once.
    fn put_sgpr(&mut self, code: usize, x: Value) {
        let on_line = self.on_line();
        let var = match self.spend.get(&code) {
            Some(&var) => var,
            // Not in a pair region: there its two files' pending values, live to every exit,
            // were spilled as much as their stores had cost, and the dispatch was no faster
            // (docs/notes/ci-time.md, "Round 51").
            None if on_line && !self.pair => {
                let var = *self
                    .svars
                    .entry(code)
                    .or_insert_with(|| self.b.declare_var(types::I32));
                self.spend.insert(code, var);
                var
            }
            None => {
                self.b.ins().store(mf(), x, self.s, (4 * code) as i32);
                return;
            }
        };
        self.b.def_var(var, x);
    }

    /// Stores the pending SGPRs (`spend`) into the `Wave`, on the current path (they stay
    /// pending: this may be one way of several).
    fn store_sgprs(&mut self) {
        let pend: Vec<(usize, Variable)> = self.spend.iter().map(|(&c, &v)| (c, v)).collect();
        for (code, var) in pend {
            let x = self.b.use_var(var);
            self.b.ins().store(mf(), x, self.s, (4 * code) as i32);
        }
    }

    /// Wave B's SGPR `code` (a pair region, outside `side_inst`).
    fn sgpr_b(&mut self, code: usize) -> Value {
        if let Some(&x) = self.scache_b.get(&code) {
            return x;
        }
        let x = self
            .b
            .ins()
            .load(types::I32, mf(), self.sb, (4 * code) as i32);
        self.scache_b.insert(code, x);
        x
    }

    /// Whether lane masks are pairs (A's low, B's high half) here.
    fn pair_masks(&self) -> bool {
        self.pair && !self.side
    }

    /// The lane mask at `code` as its two 32-bit halves: the SGPR pair, or in a pair region
    /// the SGPR of each wave.
    fn mask_halves(&mut self, code: usize) -> [Value; 2] {
        if self.pair_masks() {
            [self.sgpr(code), self.sgpr_b(code)]
        } else {
            [self.sgpr(code), self.sgpr(code + 1)]
        }
    }

    /// The lane mask at `code` as 64 bits (`mask_halves`).
    fn mask64(&mut self, code: usize) -> Value {
        if !self.pair_masks() {
            return self.sgpr64(code);
        }
        let [lo, hi] = self.mask_halves(code);
        self.join64(lo, hi)
    }

    /// Sets the lane mask at `code` (`mask_halves`): in a pair region A's half to A's SGPR,
    /// B's to B's.
    fn set_mask64(&mut self, code: usize, x: Value) {
        if !self.pair_masks() {
            return self.set_sgpr64(code, x);
        }
        let lo = self.b.ins().ireduce(types::I32, x);
        let hi = self.b.ins().ushr_imm(x, 32);
        let hi = self.b.ins().ireduce(types::I32, hi);
        self.side = true;
        self.set_sgpr(code, lo);
        self.side = false;
        self.b.ins().store(mf(), hi, self.sb, (4 * code) as i32);
        self.scache_b.insert(code, hi);
    }

    /// Exchanges A's scalar file, its block cache and SCC with B's (`side_inst`).
    fn swap_b(&mut self) {
        std::mem::swap(&mut self.s, &mut self.sb);
        std::mem::swap(&mut self.scache, &mut self.scache_b);
        std::mem::swap(&mut self.scc, &mut self.scc_b);
    }

    /// `inst`, or for a scalar instruction of a pair region that reads a per-wave value
    /// (`pair.rs`'s `side`), the wave32 lowering once on B's file and once on A's.
    fn inst_at(&mut self, k: usize, pc: u64, i: &Inst, l: Lower) -> Result<(), String> {
        self.inst_pc = pc;
        if !(self.pair && self.plan.side.contains(&k)) {
            return self.inst(i, l);
        }
        (self.side, self.wave32, self.groups) = (true, true, 8);
        self.swap_b();
        let r = self.inst(i, l);
        self.swap_b();
        let r = r.and_then(|()| self.inst(i, l));
        (self.side, self.wave32, self.groups) = (false, false, 16);
        r
    }

    /// The address of group `g` of row `row`: its wave's file and the offset there.
    fn group_at(&self, row: usize, g: usize) -> (Value, i32) {
        if self.pair && g >= 8 {
            (self.vb, Self::row_offset(row, g - 8))
        } else {
            (self.v, Self::row_offset(row, g))
        }
    }

    /// Drops the block's value of SGPR `code` (a call may have written it in the `Wave`,
    /// after the pending ones were stored there): a pending one takes the `Wave`'s value.
    fn forget_sgpr(&mut self, code: usize) {
        self.scache.remove(&code);
        if let Some(&var) = self.spend.get(&code) {
            let x = self
                .b
                .ins()
                .load(types::I32, mf(), self.s, (4 * code) as i32);
            self.b.def_var(var, x);
        }
    }

    /// The SGPR pair at `code` as 64 bits.
    fn sgpr64(&mut self, code: usize) -> Value {
        let lo = self.sgpr(code);
        let hi = self.sgpr(code + 1);
        self.join64(lo, hi)
    }

    /// Two 32-bit halves as one 64-bit value, made once per pair of values in a block.
    fn join64(&mut self, lo: Value, hi: Value) -> Value {
        if let Some(&x) = self.pairs.get(&(lo, hi)) {
            return x;
        }
        let (l, h) = (lo, hi);
        let lo = self.b.ins().uextend(types::I64, lo);
        let hi = self.b.ins().uextend(types::I64, hi);
        let hi = self.b.ins().ishl_imm(hi, 32);
        let x = self.b.ins().bor(lo, hi);
        self.pairs.insert((l, h), x);
        x
    }

    fn set_sgpr64(&mut self, code: usize, x: Value) {
        let lo = self.b.ins().ireduce(types::I32, x);
        let hi = self.b.ins().ushr_imm(x, 32);
        let hi = self.b.ins().ireduce(types::I32, hi);
        self.set_sgpr(code, lo);
        self.set_sgpr(code + 1, hi);
    }

    /// The wave's lanes as a mask (what a full EXEC holds).
    fn wave_lanes(&self) -> u64 {
        if self.wave32 {
            0xffff_ffff
        } else {
            u64::MAX
        }
    }

    /// EXEC as 64 bits.
    fn exec64(&mut self) -> Value {
        if self.full {
            let m = self.wave_lanes();
            self.b.ins().iconst(types::I64, m as i64)
        } else {
            self.mask64(126)
        }
    }

    fn exec_halves(&mut self) -> [Value; 2] {
        if self.full {
            let lo = self.b.ins().iconst(types::I32, -1);
            let hi = self
                .b
                .ins()
                .iconst(types::I32, if self.wave32 { 0 } else { -1 });
            [lo, hi]
        } else {
            self.mask_halves(126)
        }
    }

    /// Lanes 4g..4g+3 of VGPR row `row`: loaded from the `Wave` at the block's first use,
    /// or computed from its fact while it is pending (`affine.rs`).
    fn vgroup(&mut self, row: usize, g: usize) -> Value {
        if let Some(&x) = self.vcache.get(&(row, g)) {
            return x;
        }
        let x = match self.pending_group(row, g, true) {
            Some(x) => x,
            None => {
                let (v, at) = self.group_at(row, g);
                self.b.ins().load(types::I32X4, mf(), v, at)
            }
        };
        self.vcache.insert((row, g), x);
        x
    }

    /// Lanes 4g..4g+3 of row `row` as the `Wave` holds them (or will: a pending row's from
    /// its fact), not kept: for a block switched to without `enter`.
    fn wave_group(&mut self, row: usize, g: usize) -> Value {
        match self.pending_group(row, g, false) {
            Some(x) => x,
            None => {
                let (v, at) = self.group_at(row, g);
                self.b.ins().load(types::I32X4, mf(), v, at)
            }
        }
    }

    /// Sets lanes 4g..4g+3 of VGPR row `row` (all four, whatever EXEC says): stored into the
    /// `Wave` at once, so it is up to date at every exit and call.
    fn set_vgroup(&mut self, row: usize, g: usize, x: Value) {
        self.note_written(row, g);
        self.nan_seg_written(row, g);
        self.vcache.insert((row, g), x);
        self.forget_ds_row(row);
        self.aff.remove(&row);
        self.tiles.remove(&row);
        if self.grp.is_some() {
            // In a run's group pass: stored at its end (`store_unstored`), once.
            if !self.unstored.contains(&(row, g)) {
                self.unstored.push((row, g));
            }
            return;
        }
        let (v, at) = self.group_at(row, g);
        self.b.ins().store(mf(), x, v, at);
    }

    /// `set_vgroup`, stored into the `Wave` at once in a run's group pass too (a later
    /// store of the pass's for the group dropped).
    fn set_vgroup_now(&mut self, row: usize, g: usize, x: Value) {
        self.nan_seg_written(row, g);
        self.ds_lazy.remove(&(row, g));
        self.vcache.insert((row, g), x);
        self.forget_ds_row(row);
        self.aff.remove(&row);
        self.tiles.remove(&row);
        self.unstored.retain(|&u| u != (row, g));
        let (v, at) = self.group_at(row, g);
        self.b.ins().store(mf(), x, v, at);
    }

    /// Stores the groups a run's group pass wrote (their last values), so the `Wave` is
    /// current again.
    fn store_unstored(&mut self) {
        for (row, g) in std::mem::take(&mut self.unstored) {
            let x = self.vcache[&(row, g)];
            let (v, at) = self.group_at(row, g);
            self.b.ins().store(mf(), x, v, at);
        }
    }

    /// Makes row `row`'s lanes current in the `Wave` for a read there at a lane known only
    /// at run time: a pending row (`affine.rs`) is stored (it stays pending: this may be one
    /// path of several); the others are stored as they are written.
    fn row_to_wave(&mut self, row: usize) {
        if let Some((base, stride)) = self.pending(row) {
            self.store_pending_row(row, base, stride);
        }
    }

    /// Forgets the values of row `row` (a call may have written it in the `Wave`).
    fn forget_row(&mut self, row: usize) {
        for g in 0..self.groups {
            self.note_written(row, g);
        }
        self.vcache.retain(|&(r, _), _| r != row);
        self.aff.remove(&row);
        self.tiles.remove(&row);
        self.forget_ds_row(row);
    }

    /// Drops what the DS instructions found about address row `row` (written).
    fn forget_ds_row(&mut self, row: usize) {
        if !self.ds_rows.is_empty() {
            self.ds_rows.retain(|&(r, _, _), _| r != row);
        }
    }

    fn scc_value(&mut self) -> Value {
        self.b.use_var(self.scc)
    }

    fn store_scc(&mut self, c: Value) {
        self.b.def_var(self.scc, c);
        if self.pair && !self.side {
            self.b.def_var(self.scc_b, c);
        }
    }

    /// Switches to `block` (an empty one): block-local caches start over.
    fn enter(&mut self, block: Block) {
        debug_assert!(self.unstored.is_empty(), "a row group left unstored");
        self.b.switch_to_block(block);
        self.masks.clear();
        self.splats.clear();
        self.consts.clear();
        self.pairs.clear();
        self.active = None;
        self.vcache.clear();
        self.scache.clear();
        self.scache_b.clear();
    }

    /// The constant `k` of type `ty` (made once per block).
    fn konst(&mut self, ty: types::Type, k: i64) -> Value {
        if let Some(&x) = self.consts.get(&(ty, k)) {
            return x;
        }
        let x = self.b.ins().iconst(ty, k);
        self.consts.insert((ty, k), x);
        x
    }

    /// Leaves the function before instruction `pc` of the current basic block when `cond`
    /// (an `i8`) is true; continues in a new block otherwise.
    fn exit_if(&mut self, cond: Value, pc: u64) {
        debug_assert_eq!(self.lanes_due, 0, "lane-ops left waiting at an exit");
        // The SGPR values stay valid after the exit (this block dominates `cont`).
        let scache = self.scache.clone();
        let scache_b = self.scache_b.clone();
        let was = self.on_line();
        let cont = self.leave_if(cond, pc, false);
        self.enter(cont);
        self.rejoin(was);
        self.scache = scache;
        self.scache_b = scache_b;
    }

    /// `exit_if` of a fact's test (`tiles.rs`): the way out counts an affine miss and adds
    /// the lane-ops waiting (`lanes_for_exit`), as `affine_exit_if`.
    pub(super) fn miss_exit_if(&mut self, cond: Value, pc: u64) {
        let was = self.on_line();
        let cont = self.leave_if(cond, pc, true);
        self.enter(cont);
        self.rejoin(was);
    }

    /// Branches to a new block that leaves before `pc` when `cond`, else to the returned
    /// block (sealed, not yet entered). The exit's PC and count are made on the way out:
    /// made before the branch they were a reload of the spilled count and two instructions
    /// more on the path that goes on, at every exit.
    fn leave_if(&mut self, cond: Value, pc: u64, miss: bool) -> Block {
        let (out, cont) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(cond, out, &[], cont, &[]);
        self.b.seal_block(out);
        // Sealed now (its one predecessor is known): a register first used after it then
        // needs no block parameter, which sealing at the end made and removed one by one.
        self.b.seal_block(cont);
        self.enter(out);
        if miss {
            self.note_affine_miss();
        }
        // The pending rows (`affine.rs`) and SGPRs stored on the way out.
        self.store_facts_for_exit();
        self.store_sgprs();
        self.lanes_for_exit();
        let count = self.count_now();
        let pc = self.b.ins().iconst(types::I64, pc as i64);
        let exit = self.exit;
        self.b
            .ins()
            .jump(exit, &[BlockArg::Value(pc), BlockArg::Value(count)]);
        cont
    }

    /// Instructions executed before the current one.
    fn count_now(&mut self) -> Value {
        let base = self.bb_count.expect("inside a basic block");
        self.b.ins().iadd_imm(base, i64::from(self.done))
    }

    /// One variant of the whole region (for a full EXEC or not): a Cranelift block per basic
    /// block, by address (`heads`). A basic block of the full variant runs without EXEC
    /// blends up to an instruction that writes EXEC, and with them after it; a basic block
    /// (of either variant) that wrote EXEC goes on to the next one in the variant EXEC then
    /// calls for, one that did not stays in its variant.
    fn variant(
        &mut self,
        region: &[(u64, Inst, Lower)],
        bbs: &BTreeMap<u64, Bb>,
        full: bool,
    ) -> Result<(), String> {
        let heads = self.heads[usize::from(full)].clone();
        // Whether only the entry reaches the first basic block (no branch or fall-through
        // into it), so it may load registers where it first uses them.
        let start = self.start;
        let entry_only = !bbs.values().any(|bb| bb.next == start)
            && !region
                .iter()
                .any(|(pc, i, l)| matches!(l, Lower::Branch(_)) && branch_target(*pc, i) == start);
        for bb in bbs.values() {
            // A block both variants share is generated with the full one.
            if !full && self.shared(bb.pc) {
                continue;
            }
            self.enter(heads[&bb.pc]);
            let first = entry_only && bb.pc == start;
            // The budget: the whole basic block must fit, else the interpreter runs it.
            let count = self.b.use_var(self.count);
            let after = self.b.ins().iadd_imm(count, bb.insts.len() as i64);
            let body = self.b.create_block();
            if self.budget_tested {
                self.b.ins().jump(body, &[]);
            } else {
                let over = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThan, after, self.budget);
                let pc = self.b.ins().iconst(types::I64, bb.pc as i64);
                if first {
                    // Nothing has run: no register to write back.
                    let none = *self.none.get_or_insert_with(|| self.b.create_block());
                    self.b.ins().brif(over, none, &[], body, &[]);
                } else if full && !self.shared(bb.pc) && self.plans.contains_key(&bb.pc) {
                    // Rows handed over pending (`affine.rs`) are stored on the way out.
                    let out = self.b.create_block();
                    self.b.ins().brif(over, out, &[], body, &[]);
                    self.b.seal_block(out);
                    self.enter(out);
                    self.store_handed_over(bb.pc, pc, count);
                } else {
                    let exit = self.exit;
                    self.b.ins().brif(
                        over,
                        exit,
                        &[BlockArg::Value(pc), BlockArg::Value(count)],
                        body,
                        &[],
                    );
                }
            }
            self.enter(body);
            self.ds_rows.clear();
            self.stored_clear = false;
            self.bb_count = Some(count);
            self.done = 0;
            self.full = full;
            debug_assert!(self.unstored_facts.is_empty(), "a row left unstored");
            debug_assert!(self.carry_due.is_none(), "a carry-out left unstored");
            debug_assert!(self.spend.is_empty(), "an SGPR left unstored");
            self.aff.clear();
            self.cfacts.clear();
            self.unwrapped.clear();
            self.handled.clear();
            // Lane-affine facts (`affine.rs`): in the full variant, where the basic block
            // gains from them, its rows tested at its start.
            let plan = match self.plans.get(&bb.pc) {
                Some(p) if full && !self.shared(bb.pc) => Some(p.0.clone()),
                _ => None,
            };
            if let Some(plan) = plan {
                super::AFFINE_BLOCKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if std::env::var_os("HSAEMU_JIT_DEBUG").is_some() {
                    eprintln!(
                        "hsaemu-jit: basic block {:#x}: rows {:?} tested, {} instructions on lane-affine facts",
                        bb.pc,
                        plan.tested,
                        plan.handled.len()
                    );
                }
                // Without the general variant a lazy first basic block leaves as one that
                // does not fit the budget: nothing ran.
                let general = if first && !self.general {
                    *self.none.get_or_insert_with(|| self.b.create_block())
                } else {
                    self.heads[0][&bb.pc]
                };
                self.facts_at_start(bb.pc, &plan.tested, general, first);
                self.handled = plan.handled;
            }
            self.tiles.clear();
            self.tile_block = false;
            if full && !self.shared(bb.pc) {
                self.tiles_at_start(bb.pc, first);
            }
            // SGPR writes are pending from here on (`spend`).
            self.line = self.b.current_block();
            let writes_before = self.exec_writes;
            let mut branch = None;
            let mut barrier = false;
            let mut at = 0;
            while at < bb.insts.len() {
                // Rows written on facts stay pending (`affine.rs`): what reads them computes
                // their lanes, and calls and exits store them.
                // Not a DS load into a pending row: the group pass's reads of its rows (the
                // `v_fmac_f32` chain's recomputation) would take the fact's lanes.
                let ds_load = |i: &Inst| match self.full {
                    true => lower_mem::run_ds_load(i, &self.ds_pred)
                        .filter(|(_, _, rows)| rows.iter().all(|&r| self.pending(r).is_none())),
                    false => None,
                };
                let (run, valu) = lane_run(
                    region,
                    &bb.insts[at..],
                    self.wave32,
                    &self.handled,
                    &ds_load,
                );
                if valu >= 2 {
                    self.flush_lanes();
                    self.store_carry();
                    self.clear_cmp_marks(region, &bb.insts[at..at + run]);
                    self.group_major(region, &bb.insts[at..at + run])?;
                    // A run may go on across `s_barrier` into its tail (`after_barrier`).
                    barrier |= bb.insts[at..at + run]
                        .iter()
                        .any(|&k| region[k].2 == Lower::Barrier);
                    self.settle_written();
                    self.done += run as u32;
                    at += run;
                    continue;
                }
                let k = bb.insts[at];
                at += 1;
                self.clear_cmp_marks(region, &[k]);
                let (pc, i, l) = &region[k];
                self.carry_before(k, i, *l);
                match l {
                    Lower::Branch(c) => {
                        if self.pair && self.plan.split_branch.contains(&k) {
                            self.split_branch(*pc, *c);
                        }
                        branch = Some((*pc, *i, *c))
                    }
                    Lower::Barrier => barrier = true,
                    Lower::Mem | Lower::Step => {
                        self.flush_lanes();
                        self.call_interpreter(*pc, i, *l)
                    }
                    _ => {
                        // Facts write every lane: only under a full EXEC (nothing but a
                        // branch follows an EXEC write in a basic block, so this holds).
                        // Their counts wait (`lanes_due`) until an instruction not on facts.
                        let on_facts = self.full
                            && self.handled.contains(&k)
                            && affine::aff_op(i, *l).is_some_and(|op| {
                                self.defer_lanes = true;
                                let done = match self.tile_inst(*pc, i, op) {
                                    Some(done) => done,
                                    None => self.affine_inst(*pc, i, op),
                                };
                                self.defer_lanes = false;
                                done
                            });
                        if !on_facts {
                            self.flush_lanes();
                            self.store_carry();
                            self.inst_at(k, *pc, i, *l)?;
                        }
                    }
                }
                self.settle_written();
                if self.exec_writes != writes_before {
                    // EXEC is what the instruction made it from here on.
                    self.full = false;
                }
                self.done += 1;
            }
            // The basic block's branch and its ways on read `lane_ops`.
            self.flush_lanes();
            let wrote_exec = self.exec_writes != writes_before;
            let successors = match branch {
                None if barrier => vec![],
                None => vec![bb.next],
                Some((pc, i, cond)) => {
                    let mut v = vec![branch_target(pc, &i)];
                    if cond != 0 {
                        v.push(bb.next);
                    }
                    v
                }
            };
            // The pending rows (`affine.rs`): each way on stores those it does not take
            // over, those no way on takes here, the others on their edges.
            // Pending tile rows (`tiles.rs`) no way on reads are not stored.
            match successors.is_empty() && barrier {
                true => self.drop_dead_tiles(&[bb.next]),
                false => self.drop_dead_tiles(&successors),
            }
            let edges = self.pending_at_end(&successors, full, &heads);
            // The pending SGPRs: stored here unless every way on leaves for an `s_endpgm`.
            if !self.ends_only(&successors, &heads) {
                self.store_sgprs();
            }
            self.spend.clear();
            self.line = None;
            self.b.def_var(self.count, after);
            // After an EXEC write, a jump to a basic block goes to a block choosing its
            // variant (filled in below, once this block is terminated).
            let mut choices: Vec<(Block, u64)> = Vec::new();
            let mut to = |g: &mut Self, pc: u64| -> (Block, Vec<BlockArg>) {
                match heads.get(&pc) {
                    Some(_) if wrote_exec && !g.heads[1].is_empty() => {
                        let c = g.b.create_block();
                        choices.push((c, pc));
                        (c, vec![])
                    }
                    Some(&h) => (h, vec![]),
                    None => {
                        let p = g.b.ins().iconst(types::I64, pc as i64);
                        (g.exit, vec![BlockArg::Value(p), BlockArg::Value(after)])
                    }
                }
            };
            // The facts the successors test at their starts, handed over.
            for &s in &successors {
                self.hand_over_facts(s);
            }
            // An edge that stores rows goes through a block of its own.
            let mut stores: Vec<(Block, Block, Vec<BlockArg>, usize)> = Vec::new();
            let mut via = |g: &mut Self, k: usize, (blk, args): (Block, Vec<BlockArg>)| {
                if edges[k].stored.is_empty() {
                    return (blk, args);
                }
                let e = g.b.create_block();
                stores.push((e, blk, args, k));
                (e, vec![])
            };
            match branch {
                // `s_barrier` ends the basic block and the region's run: the exit after it,
                // the wave to be parked.
                None if barrier => {
                    let one = self.b.ins().iconst(types::I32, 1);
                    let at = std::mem::offset_of!(super::CallCtx, parked) as i32;
                    self.b.ins().store(MemFlags::trusted(), one, self.ctx, at);
                    // The barrier tail's instructions belong to the wave's next turn
                    // (`Wave::ahead`), which the interpreter would have begun with them.
                    let tail: Vec<usize> = bb
                        .insts
                        .iter()
                        .rev()
                        .take_while(|&&k| region[k].2 != Lower::Barrier)
                        .copied()
                        .collect();
                    if !tail.is_empty() {
                        super::BARRIER_TAILS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let t = self.b.ins().iconst(types::I32, tail.len() as i64);
                        self.b.ins().store(mf(), t, self.s, super::AHEAD_AT);
                        // Its bytes, for a stop's report (`Wave::ahead_size`).
                        let bytes: u32 = tail.iter().map(|&k| u32::from(region[k].1.size)).sum();
                        let t = self.b.ins().iconst(types::I32, i64::from(bytes));
                        self.b.ins().store(mf(), t, self.s, super::AHEAD_SIZE_AT);
                    }
                    let p = self.b.ins().iconst(types::I64, bb.next as i64);
                    let exit = self.exit;
                    self.b
                        .ins()
                        .jump(exit, &[BlockArg::Value(p), BlockArg::Value(after)]);
                }
                None => {
                    let e = to(self, bb.next);
                    let (blk, args) = via(self, 0, e);
                    self.b.ins().jump(blk, &args);
                }
                Some((pc, i, cond)) => {
                    let e = to(self, branch_target(pc, &i));
                    let (t, targs) = via(self, 0, e);
                    if cond == 0 {
                        self.b.ins().jump(t, &targs);
                    } else {
                        let c = self.branch_cond(cond);
                        let e = to(self, bb.next);
                        let (f, fargs) = via(self, 1, e);
                        self.b.ins().brif(c, t, &targs, f, &fargs);
                    }
                }
            }
            for (e, blk, args, k) in stores {
                self.b.seal_block(e);
                self.enter(e);
                for &(row, base, stride) in &edges[k].stored {
                    self.store_pending_row(row, base, stride);
                }
                self.b.ins().jump(blk, &args);
            }
            for (c, pc) in choices {
                self.enter(c);
                let (f, g) = (self.heads[1][&pc], self.heads[0][&pc]);
                // Rows taken over pending are stored on the way to the general variant.
                let taken = edges
                    .iter()
                    .find(|e| e.to == pc)
                    .map(|e| e.taken.clone())
                    .unwrap_or_default();
                if taken.is_empty() || f == g {
                    self.choose_variant(g, Some(f));
                } else {
                    let is_full = self.exec_is_full();
                    let st = self.b.create_block();
                    self.b.ins().brif(is_full, f, &[], st, &[]);
                    self.b.seal_block(st);
                    self.enter(st);
                    for (row, base, stride) in taken {
                        self.store_pending_row(row, base, stride);
                    }
                    self.b.ins().jump(g, &[]);
                }
            }
            self.bb_count = None;
        }
        self.full = false;
        Ok(())
    }

    /// Whether every way on from a basic block's end (to `successors`; `heads` the
    /// variant's) leaves for an `s_endpgm`: nothing reads the registers after it.
    fn ends_only(&self, successors: &[u64], heads: &HashMap<u64, Block>) -> bool {
        !successors.is_empty()
            && successors
                .iter()
                .all(|to| !heads.contains_key(to) && self.ends.contains(to))
    }

    /// Whether the basic block at `pc` is one block for both variants (`exec_neutral`).
    fn shared(&self, pc: u64) -> bool {
        self.heads[1]
            .get(&pc)
            .is_some_and(|f| self.heads[0].get(&pc) == Some(f))
    }

    /// Whether EXEC holds every lane of the wave size (EXEC_HI zero in wave32), read from
    /// its registers.
    fn exec_is_full(&mut self) -> Value {
        let exec = self.mask64(126);
        let all = self.wave_lanes();
        self.b.ins().icmp_imm(IntCC::Equal, exec, all as i64)
    }

    /// Whether a conditional branch is taken (`Lower::Branch`'s numbering), as the
    /// interpreter's `sopp` decides.
    fn branch_cond(&mut self, cond: u8) -> Value {
        if self.pair {
            // Both waves agree here (`split_branch`, or SCC uniform): A's condition.
            return self.wave_cond(cond, false);
        }
        match cond {
            1 | 2 => {
                let scc = self.scc_value();
                let cc = if cond == 1 {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                self.b.ins().icmp_imm(cc, scc, 0)
            }
            3 | 4 => {
                // `Wave::vcc`: VCC_LO alone in wave32.
                let vcc = if self.wave32 {
                    let lo = self.sgpr(106);
                    self.b.ins().uextend(types::I64, lo)
                } else {
                    self.sgpr64(106)
                };
                let cc = if cond == 3 {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                self.b.ins().icmp_imm(cc, vcc, 0)
            }
            _ => {
                let exec = self.exec64();
                let cc = if cond == 5 {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                self.b.ins().icmp_imm(cc, exec, 0)
            }
        }
    }

    /// A conditional branch's condition (`branch_cond`'s numbering) in wave A (or `b`) of a
    /// pair region, as the interpreter's `sopp` decides it for that wave32.
    fn wave_cond(&mut self, cond: u8, b: bool) -> Value {
        let x = match cond {
            1 | 2 => {
                let scc = if b {
                    self.b.use_var(self.scc_b)
                } else {
                    self.scc_value()
                };
                self.b.ins().uextend(types::I32, scc)
            }
            3 | 4 if b => self.sgpr_b(106),
            3 | 4 => self.sgpr(106),
            _ if b => self.sgpr_b(126),
            _ => self.sgpr(126),
        };
        let cc = if cond % 2 == 1 {
            IntCC::Equal
        } else {
            IntCC::NotEqual
        };
        self.b.ins().icmp_imm(cc, x, 0)
    }

    /// Before a conditional branch of a pair region whose condition may differ between the
    /// waves (`pair.rs`'s `split_branch`): leaves before it where they disagree, both waves
    /// at it, for the interpreter to take each its own way.
    fn split_branch(&mut self, pc: u64, cond: u8) {
        let a = self.wave_cond(cond, false);
        let b = self.wave_cond(cond, true);
        let differ = self.b.ins().bxor(a, b);
        self.flush_lanes();
        self.exit_if(differ, pc);
    }

    /// The exit block: stores the next PC, SCC and `lane_ops` (the SGPRs were stored as
    /// written), and returns the instruction count.
    fn exit_block(&mut self) {
        self.enter(self.exit);
        let p = self.b.block_params(self.exit).to_vec();
        self.b.ins().store(mf(), p[0], self.s, super::PC_AT);
        if self.pair {
            self.b.ins().store(mf(), p[0], self.sb, super::PC_AT);
        }
        self.scc_lane_ops_to_wave();
        self.b.ins().return_(&[p[1]]);
        if let Some(none) = self.none {
            self.enter(none);
            let pc = self.b.ins().iconst(types::I64, self.start as i64);
            self.b.ins().store(mf(), pc, self.s, super::PC_AT);
            if self.pair {
                self.b.ins().store(mf(), pc, self.sb, super::PC_AT);
            }
            let zero = self.b.ins().iconst(types::I32, 0);
            self.b.ins().return_(&[zero]);
        }
    }

    /// A region compiled without its general variant: each of that variant's basic blocks
    /// leaves the function before it, noting the miss (`CallCtx::missed`). Returns the
    /// entry's miss, which leaves nothing to store (nothing ran).
    fn misses(&mut self) -> Block {
        let heads: Vec<(u64, Block)> = self.heads[0].iter().map(|(&p, &b)| (p, b)).collect();
        for (pc, blk) in heads {
            if self.shared(pc) {
                continue;
            }
            self.enter(blk);
            self.note_miss();
            let count = self.b.use_var(self.count);
            let pc = self.b.ins().iconst(types::I64, pc as i64);
            let exit = self.exit;
            self.b
                .ins()
                .jump(exit, &[BlockArg::Value(pc), BlockArg::Value(count)]);
        }
        let entry = self.b.create_block();
        self.enter(entry);
        self.note_miss();
        let pc = self.b.ins().iconst(types::I64, self.start as i64);
        self.b.ins().store(mf(), pc, self.s, super::PC_AT);
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.ins().return_(&[zero]);
        entry
    }

    fn note_miss(&mut self) {
        let one = self.b.ins().iconst(types::I32, 1);
        let at = std::mem::offset_of!(CallCtx, missed) as i32;
        self.b.ins().store(mf(), one, self.ctx, at);
    }

    /// Stores SCC and `lane_ops` into the `Wave` (at an exit).
    fn scc_lane_ops_to_wave(&mut self) {
        let scc = self.b.use_var(self.scc);
        self.b.ins().store(mf(), scc, self.s, super::SCC_AT);
        if self.pair {
            let scc = self.b.use_var(self.scc_b);
            self.b.ins().store(mf(), scc, self.sb, super::SCC_AT);
        }
        let lane_ops = self.b.use_var(self.lane_ops);
        self.b
            .ins()
            .store(mf(), lane_ops, self.s, super::LANE_OPS_AT);
    }

    /// The entry's loads of SCC and `lane_ops`, and the choice of variant (by EXEC).
    fn loads(&mut self, block: Block, general: Block, full: Option<Block>) {
        self.enter(block);
        self.load_registers();
        self.choose_variant(general, full);
    }

    /// The entry at any other basic block than the start (`pc`, the `Wave`'s PC, is its
    /// address): SCC and `lane_ops` loaded, then the basic block in the
    /// variant EXEC calls for; at no basic block's address, nothing runs (0). Returns the
    /// addresses entered here.
    fn other_entries(&mut self, block: Block, pc: Value) -> Vec<u64> {
        self.enter(block);
        self.load_registers();
        let mut entries: Vec<u64> = self.heads[0]
            .keys()
            .copied()
            .filter(|&h| h != self.start)
            .collect();
        entries.sort_unstable();
        for &h in &entries {
            let (go, next) = (self.b.create_block(), self.b.create_block());
            let here = self.b.ins().icmp_imm(IntCC::Equal, pc, h as i64);
            self.b.ins().brif(here, go, &[], next, &[]);
            self.enter(go);
            let (general, full) = (self.heads[0][&h], self.heads[1].get(&h).copied());
            self.choose_variant(general, full);
            self.enter(next);
        }
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.ins().return_(&[zero]);
        entries
    }

    /// Loads SCC and `lane_ops` and zeroes the count (the SGPRs are loaded where a block
    /// first reads them).
    fn load_registers(&mut self) {
        let scc = self.b.ins().load(types::I8, mf(), self.s, super::SCC_AT);
        self.b.def_var(self.scc, scc);
        if self.pair {
            // A pair's SCC is each wave's, equal at entry (`pairable`; a fresh wave's is
            // clear): A's value for both, B's not loaded.
            self.b.def_var(self.scc_b, scc);
        }
        let lane_ops = self
            .b
            .ins()
            .load(types::I64, mf(), self.s, super::LANE_OPS_AT);
        self.b.def_var(self.lane_ops, lane_ops);
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.def_var(self.count, zero);
        // No lane-affine facts come in from outside.
        let no = self.b.ins().iconst(types::I8, 0);
        let oks: Vec<Variable> = self.plans.values().map(|p| p.1).collect();
        for ok in oks {
            self.b.def_var(ok, no);
        }
    }

    /// Jumps to `full` when EXEC holds every lane (and there is one), else to `general`.
    fn choose_variant(&mut self, general: Block, full: Option<Block>) {
        match full.filter(|&f| f != general) {
            Some(full) => {
                let is_full = self.exec_is_full();
                self.b.ins().brif(is_full, full, &[], general, &[]);
            }
            None => {
                self.b.ins().jump(general, &[]);
            }
        }
    }

    /// A scalar source as 32 bits (the interpreter's `Wave::sread` for the codes
    /// `compilable` admits).
    fn scalar(&mut self, code: u16, lit: u32, ty: Ty) -> Value {
        let k = match code {
            0..=127 => return self.sgpr(code as usize),
            128..=192 => u32::from(code - 128),
            193..=208 => (-(i32::from(code) - 192)) as u32,
            240..=248 => inline_float(code, ty) as u32,
            _ => lit,
        };
        self.konst(types::I32, i64::from(k as i32))
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
            Src::Row(r) if !self.ds_lazy.is_empty() && !self.vcache.contains_key(&(r, g)) => {
                match self.ds_lazy.remove(&(r, g)) {
                    Some(at) => self.ds_lazy_load(r, g, at),
                    None => self.vgroup(r, g),
                }
            }
            Src::Row(r) => self.vgroup(r, g),
            Src::Uniform(x) => self.splat(x),
        }
    }

    /// `x` (an `i32`) in all four lanes, made once per block.
    fn splat(&mut self, x: Value) -> Value {
        if let Some(&v) = self.splats.get(&x) {
            return v;
        }
        let v = self.b.ins().splat(types::I32X4, x);
        self.splats.insert(x, v);
        v
    }

    /// Source `k`'s lanes with its abs/neg float modifiers (abs first, as the interpreter's
    /// `float_mods`).
    fn lanes_mod(&mut self, i: &Inst, k: usize, s: Src, g: usize) -> Value {
        let x = self.lanes(s, g);
        self.sign_mods(i, k, x)
    }

    /// Source `k`'s abs/neg float modifiers on `x`, whose lanes hold the sign bits (f32
    /// lanes, or the high halves of f64 ones).
    fn sign_mods(&mut self, i: &Inst, k: usize, mut x: Value) -> Value {
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
        let word = self.splat(halves[g / 8]);
        let sel = self.b.ins().band(word, bits);
        // Equal to its bit rather than not zero: one compare, no negation.
        self.b.ins().icmp(IntCC::Equal, sel, bits)
    }

    /// EXEC's lane select for group `g` (computed once per block while EXEC is unchanged).
    fn exec_mask(&mut self, g: usize) -> Value {
        if let Some(&m) = self.masks.get(&g) {
            return m;
        }
        let exec = self.exec_halves();
        let m = self.lane_mask(exec, g);
        self.masks.insert(g, m);
        m
    }

    /// Counts the active lanes into `lane_ops` (the interpreter's per-VALU statistic).
    fn count_lanes(&mut self) {
        // In a run, all were counted at its start (`group_major`).
        if self.grp.is_none() {
            self.count_lanes_times(1);
        }
    }

    /// Counts the active lanes of `k` instructions under the current EXEC into `lane_ops`
    /// (a run's all at once: without Cranelift's optimizer, one add each was an add and
    /// often a spill).
    fn count_lanes_times(&mut self, k: u32) {
        if k == 0 {
            return;
        }
        let n = if self.full {
            let n = self.wave_lanes().count_ones() * k;
            if self.defer_lanes {
                self.lanes_due += u64::from(n);
                return;
            }
            self.b.ins().iconst(types::I64, i64::from(n))
        } else {
            let n = match self.active {
                Some(n) => n,
                None => {
                    let exec = self.exec64();
                    let n = self.b.ins().popcnt(exec);
                    self.active = Some(n);
                    n
                }
            };
            if k == 1 {
                n
            } else {
                self.b.ins().imul_imm(n, i64::from(k))
            }
        };
        let old = self.b.use_var(self.lane_ops);
        let new = self.b.ins().iadd(old, n);
        self.b.def_var(self.lane_ops, new);
    }

    /// Adds the lane-ops waiting in `lanes_due` to `lane_ops` (before anything that reads
    /// it, branches or calls: only code on facts leaves them waiting).
    fn flush_lanes(&mut self) {
        if self.lanes_due != 0 {
            let old = self.b.use_var(self.lane_ops);
            let new = self.b.ins().iadd_imm(old, self.lanes_due as i64);
            self.b.def_var(self.lane_ops, new);
            self.lanes_due = 0;
        }
    }

    /// On an exit path out of code on facts: `lane_ops` with the waiting lane-ops added,
    /// which stay waiting on the path that goes on.
    pub(super) fn lanes_for_exit(&mut self) {
        if self.lanes_due != 0 {
            let old = self.b.use_var(self.lane_ops);
            let new = self.b.ins().iadd_imm(old, self.lanes_due as i64);
            self.b.def_var(self.lane_ops, new);
        }
    }

    /// Writes `f(g)` (an `i32x4` per group) to VGPR row `dst` under EXEC.
    fn write_rows(&mut self, dst: usize, mut f: impl FnMut(&mut Self, usize) -> Value) {
        // All results first: a destination may also be a source.
        let vals: Vec<Value> = self.group_range().map(|g| f(self, g)).collect();
        self.write_vals(dst, vals);
    }

    /// Writes computed groups (an `i32x4` each) to VGPR row `dst` under EXEC.
    fn write_vals(&mut self, dst: usize, vals: Vec<Value>) {
        for (g, val) in self.group_range().zip(vals) {
            let x = if self.full {
                val
            } else {
                let m = self.exec_mask(g);
                let old = self.vgroup(dst, g);
                self.b.ins().bitselect(m, val, old)
            };
            self.set_vgroup(dst, g, x);
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
        let r = self.i32x4(r);
        self.nan_checked(r, &[x, y, z])
    }

    /// `fma(x, y, z)` for a `v_fmac_f32` into row `row` (group `g`) of a run's group pass,
    /// untested, added to the pending chain when `z` is its last result, else starting one
    /// (after ending any other). The result must go to `row` unchanged (a full EXEC).
    /// `rows`: the rows the `Wave` holds `x` and `y` in, if it does.
    fn fmac_chained(
        &mut self,
        row: usize,
        g: usize,
        (x, y): (Value, Value),
        rows: [Option<usize>; 2],
        z: Value,
    ) -> Value {
        let (fx, fy, fz) = (self.f32x4(x), self.f32x4(y), self.f32x4(z));
        let r = self.b.ins().fma(fx, fy, fz);
        let r = self.i32x4(r);
        let again = [(x, rows[0]), (y, rows[1])].map(|(v, row)| match row {
            // A lazy DS group not stored (dead after the run) is loaded again.
            Some(r) => match self.ds_unstored.get(&(r, g)) {
                Some(&at) => Again::Lds(at),
                None => Again::Wave(r),
            },
            None => Again::Value(v),
        });
        match &mut self.fmac_chain {
            Some(c) if c.row == row && c.g == g && c.last == z => {
                c.steps.push(again);
                c.last = r;
            }
            _ => {
                self.fmac_chain_end();
                self.fmac_chain = Some(FmacChain {
                    row,
                    g,
                    z0: z,
                    steps: vec![again],
                    last: r,
                });
            }
        }
        r
    }

    /// Ends the pending `v_fmac_f32` chain, if any: its last result tested for NaNs, and
    /// when a lane has one the chain computed again step by step with `fma`'s NaN rule (a
    /// branch, as `nan_checked`'s, switched to without `enter`); the row's value is then
    /// the tested one. Called before any other instruction of the pass and at its end.
    fn fmac_chain_end(&mut self) {
        let Some(c) = self.fmac_chain.take() else {
            return;
        };
        debug_assert_eq!(self.vcache.get(&(c.row, c.g)), Some(&c.last));
        super::FMAC_CHAINS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let was = self.on_line();
        let (slow, join, out) = self.if_nan(c.last);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let mut z = c.z0;
        for &step in &c.steps {
            let [x, y] = step.map(|a| match a {
                Again::Value(v) => v,
                Again::Wave(r) => self.wave_group(r, c.g),
                Again::Lds(at) => self.ds_lds_group(at),
            });
            z = self.fma(x, y, z);
        }
        self.b.ins().jump(join, &[BlockArg::Value(z)]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.rejoin(was);
        self.vcache.insert((c.row, c.g), out);
    }

    /// `v_mbcnt_lo/hi_u32_b32` on lanes 4g..4g+3: `popcount(S0 & m) + S1`, `m` the lane's
    /// bits below it in the low (high) half of a 64-bit mask; a constant S0 (`-1` for lane
    /// numbers) gives constant counts, another is counted lane by lane.
    fn mbcnt(&mut self, i: &Inst, x: Value, y: Value, g: usize, hi: bool) -> Value {
        let mask = |l: usize| -> u32 {
            match (hi, l) {
                (false, 32..) => u32::MAX,
                (false, _) => ((1u64 << l) - 1) as u32,
                (true, 0..=31) => 0,
                (true, _) => ((1u64 << (l - 32)) - 1) as u32,
            }
        };
        let ms: [u32; 4] = std::array::from_fn(|k| mask(4 * g + k));
        let counts = match const_operand(i, 0) {
            Some(k) => self.vconst(ms.map(|m| (k & m).count_ones())),
            None => {
                let m = self.vconst(ms);
                let t = self.b.ins().band(x, m);
                let mut out = t;
                for l in 0..4u8 {
                    let v = self.b.ins().extractlane(t, l);
                    let c = self.b.ins().popcnt(v);
                    out = self.b.ins().insertlane(out, c, l);
                }
                out
            }
        };
        self.b.ins().iadd(counts, y)
    }

    /// Branches to a new block (`slow`) when a lane of `r` (f32 lanes as `i32x4`) is a NaN,
    /// else to `join` with `r` as its parameter `out`; the caller fills `slow`.
    fn if_nan(&mut self, r: Value) -> (Block, Block, Value) {
        let fr = self.f32x4(r);
        self.if_nan_in(r, fr)
    }

    /// [`Self::if_nan`] with `r`'s lanes as floats `fr` (f32 or f64 lanes).
    fn if_nan_in(&mut self, r: Value, fr: Value) -> (Block, Block, Value) {
        let nan = self.b.ins().fcmp(FloatCC::Unordered, fr, fr);
        let any = self.b.ins().vany_true(nan);
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        let out = self.b.append_block_param(join, types::I32X4);
        self.b
            .ins()
            .brif(any, slow, &[], join, &[BlockArg::Value(r)]);
        (slow, join, out)
    }

    /// `first_nan(r, ops)`, but the operands are looked at only when a lane of `r` is a
    /// NaN (which a NaN operand always makes it): a test and a branch around the selects,
    /// taken only with NaNs about (the selects were 9 of the 14 instructions of each group
    /// of matmul's `v_fmac_f32`). The branch's blocks are switched to without `enter`: no
    /// value is cached in them, and the caches of the block before stay valid after it (it
    /// dominates the join), so a group-major run goes on across it.
    fn nan_checked(&mut self, r: Value, ops: &[Value]) -> Value {
        let fr = self.f32x4(r);
        self.nan_test(r, fr, ops, Self::first_nan)
    }

    /// The NaN rule for `r` (its lanes as floats `fr`) from operands `ops`: `fix` itself in a
    /// NaN segment's cold block, the NaN lanes added to an open segment's mask, else a branch
    /// around `fix` (`nan_checked`).
    fn nan_test(
        &mut self,
        r: Value,
        fr: Value,
        ops: &[Value],
        fix: fn(&mut Self, Value, &[Value]) -> Value,
    ) -> Value {
        if self.nan_exact {
            return fix(self, r, ops);
        }
        if self.nan_seg.is_some() {
            let nan = self.b.ins().fcmp(FloatCC::Unordered, fr, fr);
            self.nan_deferred(nan);
            return r;
        }
        let was = self.on_line();
        let (slow, join, out) = self.if_nan_in(r, fr);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let fixed = fix(self, r, ops);
        self.b.ins().jump(join, &[BlockArg::Value(fixed)]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.rejoin(was);
        out
    }

    /// `v_max_f32` (`max`) or `v_min_f32` of f32 lanes in IEEE mode, as the interpreter's
    /// `minmax32`: a signalling NaN operand (the first) gives itself quieted; else a NaN
    /// operand gives the other operand; else the larger (smaller), −0 below +0.
    fn min_max(&mut self, x: Value, y: Value, max: bool) -> Value {
        let (fx, fy) = (self.f32x4(x), self.f32x4(y));
        let lt = self.b.ins().fcmp(FloatCC::LessThan, fx, fy);
        let eq = self.b.ins().fcmp(FloatCC::Equal, fx, fy);
        let (below, above) = if max { (y, x) } else { (x, y) };
        let ordered = self.b.ins().bitselect(lt, below, above);
        // Equal values differ only in a zero's sign: max takes +0 (the bits AND), min −0.
        let zeros = if max {
            self.b.ins().band(x, y)
        } else {
            self.b.ins().bor(x, y)
        };
        let mut r = self.b.ins().bitselect(eq, zeros, ordered);
        let y_nan = self.b.ins().fcmp(FloatCC::Unordered, fy, fy);
        r = self.b.ins().bitselect(y_nan, x, r);
        let x_nan = self.b.ins().fcmp(FloatCC::Unordered, fx, fx);
        r = self.b.ins().bitselect(x_nan, y, r);
        // A signalling NaN: exponent all ones, the quiet bit clear, a payload.
        let quiet = self.vconst([0x0040_0000; 4]);
        let top = self.vconst([0x7fc0_0000; 4]);
        let exp = self.vconst([0x7f80_0000; 4]);
        let payload = self.vconst([0x003f_ffff; 4]);
        let zero = self.vconst([0; 4]);
        for v in [y, x] {
            let t = self.b.ins().band(v, top);
            let is_exp = self.b.ins().icmp(IntCC::Equal, t, exp);
            let p = self.b.ins().band(v, payload);
            let has = self.b.ins().icmp(IntCC::NotEqual, p, zero);
            let snan = self.b.ins().band(is_exp, has);
            let q = self.b.ins().bor(v, quiet);
            r = self.b.ins().bitselect(snan, q, r);
        }
        r
    }

    /// `r`, or in a lane where an operand of `ops` is a NaN, the first such, quieted.
    fn first_nan(&mut self, r: Value, ops: &[Value]) -> Value {
        let mut out = r;
        let quiet = self.vconst([0x0040_0000; 4]);
        for &v in ops.iter().rev() {
            let fv = self.f32x4(v);
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
            Lower::Nop | Lower::Branch(_) | Lower::Mem | Lower::Step | Lower::Barrier => Ok(()),
            Lower::VAlu(op) => {
                if op == VAluOp::DivFmas {
                    self.div_fmas_guard();
                }
                self.count_lanes();
                self.valu(i, op)
            }
            Lower::VCmp => {
                self.count_lanes();
                match self.row_cmp_row(i) {
                    Some((row, left)) => self.row_cmp(i, row, left),
                    None => self.vcmp(i),
                }
            }
            Lower::ReadFirstLane => {
                self.count_lanes();
                self.readfirstlane(i);
                Ok(())
            }
            Lower::ReadLane => {
                self.count_lanes();
                self.readlane(i);
                Ok(())
            }
            Lower::SAlu(op) => {
                self.salu(i, op);
                Ok(())
            }
        }
    }

    fn valu(&mut self, i: &Inst, op: VAluOp) -> Result<(), String> {
        // The forms on row pairs or with carries have their own lowering.
        match op {
            VAluOp::Carry(kind) => self.carry(i, kind),
            VAluOp::Shift64(kind) => self.shift64(i, kind),
            VAluOp::Mad64(signed) => self.mad64(i, signed),
            VAluOp::PkF32(kind) => self.pk_f32(i, kind),
            VAluOp::F64(kind) => self.f64_op(i, kind),
            VAluOp::DivScale => self.div_scale(i),
            _ => return self.valu_lanes(i, op),
        }
        Ok(())
    }

    /// A lane-by-lane operation on 32-bit rows (`D = f(S0, S1, S2)`).
    fn valu_lanes(&mut self, i: &Inst, op: VAluOp) -> Result<(), String> {
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
        let bb = b.unwrap_or(a);
        // A `v_fmac_f32` whose multiplicands are not its own row may join a chain of them
        // (`fmac_chained`): nothing but the chain then reads its untested result.
        let chainable = fmac_chainable(i, Lower::VAlu(op));
        if !chainable {
            self.fmac_chain_end();
        }
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
                    // The select mask: an SGPR pair (VCC for the VOP2 form), 64 bits wide
                    // in wave32 too, as the interpreter reads it.
                    let m = s.mask_sel(i.src[2] as usize, g);
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
                VAluOp::Fmac if c.is_none() && s.full && s.grp.is_some() && chainable => {
                    let z = s.lanes(Src::Row(dst), g);
                    // A multiplicand the `Wave` holds: a row without modifiers, not
                    // written earlier in the pass.
                    let held = |s: &Self, k: usize, src: Src| match src {
                        Src::Row(r) if (i.abs | i.neg) >> k & 1 == 0 => {
                            (!s.unstored.contains(&(r, g))).then_some(r)
                        }
                        _ => None,
                    };
                    let rows = [held(s, 0, a), held(s, 1, bb)];
                    s.fmac_chained(dst, g, (x, y), rows, z)
                }
                VAluOp::Fma | VAluOp::Fmac => {
                    let z = match c {
                        Some(c) => s.lanes_mod(i, 2, c, g),
                        None => s.lanes(Src::Row(dst), g),
                    };
                    s.fma(x, y, z)
                }
                VAluOp::FmaK(mk) => {
                    let k = s.vconst([i.lit; 4]);
                    if mk {
                        s.fma(x, k, y)
                    } else {
                        s.fma(x, y, k)
                    }
                }
                VAluOp::Not => s.b.ins().bnot(x),
                VAluOp::MulHi(signed) => s.mul_hi(x, y, signed),
                VAluOp::Rcp => {
                    // `1 / x` rounded once, as the interpreter's division; a NaN gives
                    // itself, quieted.
                    let one = s.vconst([0x3f80_0000; 4]);
                    let (fo, fx) = (s.f32x4(one), s.f32x4(x));
                    let r = s.b.ins().fdiv(fo, fx);
                    let r = s.i32x4(r);
                    s.nan_checked(r, &[x])
                }
                VAluOp::FUnary(k) => {
                    let fx = s.f32x4(x);
                    let r = match k {
                        0 => s.b.ins().sqrt(fx),
                        1 => {
                            let root = s.b.ins().sqrt(fx);
                            let one = s.vconst([0x3f80_0000; 4]);
                            let fo = s.f32x4(one);
                            s.b.ins().fdiv(fo, root)
                        }
                        2 => s.b.ins().floor(fx),
                        3 => s.b.ins().ceil(fx),
                        4 => s.b.ins().trunc(fx),
                        _ => s.b.ins().nearest(fx),
                    };
                    let r = s.i32x4(r);
                    if k < 2 {
                        r
                    } else {
                        // A NaN stays as it is, signalling too (the host's `floorf` and kin,
                        // the interpreter's; `roundps` quiets it).
                        let nan = s.b.ins().fcmp(FloatCC::Unordered, fx, fx);
                        s.b.ins().bitselect(nan, x, r)
                    }
                }
                VAluOp::CvtUbyte(n) => {
                    let sh = s.b.ins().iconst(types::I32, i64::from(8 * n));
                    let v = s.b.ins().ushr(x, sh);
                    let m = s.vconst([0xff; 4]);
                    let v = s.b.ins().band(v, m);
                    let r = s.b.ins().fcvt_from_sint(types::F32X4, v);
                    s.i32x4(r)
                }
                VAluOp::MinMax(max) => s.min_max(x, y, max),
                VAluOp::DivFmas => {
                    let z = s.lanes_mod(i, 2, c.unwrap_or(a), g);
                    s.fma(x, y, z)
                }
                VAluOp::DivFixup => {
                    let z = s.lanes_mod(i, 2, c.unwrap_or(a), g);
                    s.div_fixup(x, y, z)
                }
                VAluOp::Mbcnt(hi) => s.mbcnt(i, x, y, g, hi),
                // Rust's `as`, as the interpreter: to nearest even from integers; toward zero,
                // saturating, NaN to 0 from f32.
                VAluOp::Cvt(k) => {
                    let fx = s.f32x4(x);
                    match k {
                        0 => {
                            let r = s.b.ins().fcvt_from_sint(types::F32X4, x);
                            s.i32x4(r)
                        }
                        1 => {
                            let r = s.b.ins().fcvt_from_uint(types::F32X4, x);
                            s.i32x4(r)
                        }
                        2 => s.b.ins().fcvt_to_sint_sat(types::I32X4, fx),
                        _ => s.b.ins().fcvt_to_uint_sat(types::I32X4, fx),
                    }
                }
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
                        VAluOp::Xor3 => {
                            let t = s.b.ins().bxor(x, y);
                            s.b.ins().bxor(t, z)
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
                        VAluOp::Bfe(signed) => s.vbfe(x, bb, c.unwrap_or(bb), signed),
                        // v_bfi_b32: (S0 & S1) | (!S0 & S2).
                        _ => s.b.ins().bitselect(x, y, z),
                    }
                }
            }
        });
        Ok(())
    }

    /// `v_lshlrev_b64`/`v_lshrrev_b64`/`v_ashrrev_i64`: `D = S1 shifted by S0[5:0]`, the
    /// 64-bit values as (low row, high row) pairs, lane by lane (as the interpreter's loop;
    /// Cranelift masks the amount to 63 as `& 63` does).
    fn shift64(&mut self, i: &Inst, kind: u8) {
        let dst = reg_index(i.dst);
        let value = self.src64(i, 1);
        let kind = match kind {
            0 => IntShift::Shl,
            1 => IntShift::Lshr,
            _ => IntShift::Ashr,
        };
        if let Some(k) = const_operand(i, 0) {
            self.shift64_const(dst, kind, k & 63, value);
            return;
        }
        let amount = self.src(i, 0);
        let (mut los, mut his) = (Vec::new(), Vec::new());
        for g in self.group_range() {
            let av = self.lanes(amount, g);
            let pair = self.pair_group(value, g);
            let zero = self.vconst([0; 4]);
            let (mut lo, mut hi) = (zero, zero);
            for l in 0..4u8 {
                let x = self.lane64(pair, l);
                let a = self.b.ins().extractlane(av, l);
                let r = self.shift_op(kind, x, a);
                (lo, hi) = self.insert64(lo, hi, r, l);
            }
            los.push(lo);
            his.push(hi);
        }
        self.write_vals(dst, los);
        self.write_vals(dst + 1, his);
    }

    /// A 64-bit shift by a constant `k` (0–63) on the 32-bit halves, four lanes at a time
    /// (a scalar value is shifted once): for a left shift below 32, `lo << k` and
    /// `hi << k | lo >> (32 - k)`; from 32 up, the low half moves to the high one.
    fn shift64_const(&mut self, dst: usize, kind: IntShift, k: u32, value: Result<usize, Value>) {
        let (mut los, mut his) = (Vec::new(), Vec::new());
        let scalar = value.err().map(|x| {
            let a = self.b.ins().iconst(types::I32, i64::from(k));
            let r = self.shift_op(kind, x, a);
            let lo = self.b.ins().ireduce(types::I32, r);
            let hi = self.b.ins().ushr_imm(r, 32);
            let hi = self.b.ins().ireduce(types::I32, hi);
            (lo, hi)
        });
        let k = i64::from(k);
        for g in self.group_range() {
            let (lo, hi) = match (scalar, value) {
                (Some((lo, hi)), _) => (self.splat(lo), self.splat(hi)),
                (None, Ok(r)) => {
                    let (lo, hi) = (self.vgroup(r, g), self.vgroup(r + 1, g));
                    self.shift64_halves(kind, k, lo, hi)
                }
                (None, Err(_)) => unreachable!("a scalar value is shifted above"),
            };
            los.push(lo);
            his.push(hi);
        }
        self.write_vals(dst, los);
        self.write_vals(dst + 1, his);
    }

    /// `(lo, hi)` (`i32x4` halves of 64-bit lanes) shifted by the constant `k` (0–63).
    fn shift64_halves(&mut self, kind: IntShift, k: i64, lo: Value, hi: Value) -> (Value, Value) {
        if k == 0 {
            return (lo, hi);
        }
        match kind {
            IntShift::Shl if k < 32 => {
                let l = self.b.ins().ishl_imm(lo, k);
                let h = self.b.ins().ishl_imm(hi, k);
                let c = self.b.ins().ushr_imm(lo, 32 - k);
                (l, self.b.ins().bor(h, c))
            }
            IntShift::Shl => {
                let zero = self.vconst([0; 4]);
                (zero, self.b.ins().ishl_imm(lo, k - 32))
            }
            IntShift::Lshr | IntShift::Ashr if k < 32 => {
                let l = self.b.ins().ushr_imm(lo, k);
                let c = self.b.ins().ishl_imm(hi, 32 - k);
                let h = if matches!(kind, IntShift::Ashr) {
                    self.b.ins().sshr_imm(hi, k)
                } else {
                    self.b.ins().ushr_imm(hi, k)
                };
                (self.b.ins().bor(l, c), h)
            }
            IntShift::Lshr => {
                let zero = self.vconst([0; 4]);
                (self.b.ins().ushr_imm(hi, k - 32), zero)
            }
            IntShift::Ashr => (
                self.b.ins().sshr_imm(hi, k - 32),
                self.b.ins().sshr_imm(hi, 31),
            ),
        }
    }

    /// A 64-bit vector source: a VGPR pair (its low row), or a 64-bit scalar.
    fn src64(&mut self, i: &Inst, k: usize) -> Result<usize, Value> {
        if i.src[k] >= VGPR {
            Ok(reg_index(i.src[k]))
        } else {
            Err(self.scalar64(i.src[k], i.lit, i.tys[k]))
        }
    }

    /// Group `g` of a 64-bit source: its (low, high) `i32x4`s, or the scalar.
    fn pair_group(&mut self, src: Result<usize, Value>, g: usize) -> Result<(Value, Value), Value> {
        src.map(|r| (self.vgroup(r, g), self.vgroup(r + 1, g)))
    }

    /// Lane `l` of a 64-bit source group as an `i64`.
    fn lane64(&mut self, pair: Result<(Value, Value), Value>, l: u8) -> Value {
        match pair {
            Ok((rl, rh)) => {
                let xl = self.b.ins().extractlane(rl, l);
                let xh = self.b.ins().extractlane(rh, l);
                let xl = self.b.ins().uextend(types::I64, xl);
                let xh = self.b.ins().uextend(types::I64, xh);
                let xh = self.b.ins().ishl_imm(xh, 32);
                self.b.ins().bor(xl, xh)
            }
            Err(k) => k,
        }
    }

    /// `r` (an `i64`) into lane `l` of the (low, high) `i32x4`s.
    fn insert64(&mut self, lo: Value, hi: Value, r: Value, l: u8) -> (Value, Value) {
        let rl = self.b.ins().ireduce(types::I32, r);
        let rh = self.b.ins().ushr_imm(r, 32);
        let rh = self.b.ins().ireduce(types::I32, rh);
        (
            self.b.ins().insertlane(lo, rl, l),
            self.b.ins().insertlane(hi, rh, l),
        )
    }

    /// `v_mad_u64_u32`/`v_mad_i64_i32`: `D = S0 * S1 + S2` in 64 bits lane by lane (the
    /// product always fits), the lanes whose sum overflowed to the SGPR pair under EXEC (the
    /// interpreter's `merge_mask`, as `carry`).
    fn mad64(&mut self, i: &Inst, signed: bool) {
        let dst = reg_index(i.dst);
        let (a, b) = (self.src(i, 0), self.src(i, 1));
        let c = self.src64(i, 2);
        if let (Src::Uniform(x), Src::Uniform(y), Ok(row)) = (a, b, c) {
            self.mad64_uniform(i, signed, [x, y], row);
            return;
        }
        let mut ov = self.b.ins().iconst(types::I64, 0);
        let (mut los, mut his) = (Vec::new(), Vec::new());
        for g in self.group_range() {
            let (xv, yv) = (self.lanes(a, g), self.lanes(b, g));
            let pair = self.pair_group(c, g);
            let zero = self.vconst([0; 4]);
            let (mut lo, mut hi) = (zero, zero);
            for l in 0..4u8 {
                let x = self.b.ins().extractlane(xv, l);
                let y = self.b.ins().extractlane(yv, l);
                let z = self.lane64(pair, l);
                let (x, y) = (self.extend64(x, signed), self.extend64(y, signed));
                let p = self.b.ins().imul(x, y);
                let r = self.b.ins().iadd(p, z);
                let o = if signed {
                    // Signed overflow: the sum's sign differs from both addends'.
                    let t = self.b.ins().bxor(r, p);
                    let u = self.b.ins().bxor(r, z);
                    let t = self.b.ins().band(t, u);
                    self.b.ins().icmp_imm(IntCC::SignedLessThan, t, 0)
                } else {
                    self.b.ins().icmp(IntCC::UnsignedLessThan, r, z)
                };
                let o = self.b.ins().uextend(types::I64, o);
                let o = self.b.ins().ishl_imm(o, i64::from(4 * g as u8 + l));
                ov = self.b.ins().bor(ov, o);
                (lo, hi) = self.insert64(lo, hi, r, l);
            }
            los.push(lo);
            his.push(hi);
        }
        self.write_vals(dst, los);
        self.write_vals(dst + 1, his);
        if let Some(ov) = self.defer(Flags::from_bits(ov)) {
            self.merge_mask(i.sdst, ov);
        }
    }

    /// Source `k` of a packed f32 instruction as its (low, high) halves: a VGPR pair's rows,
    /// an SGPR pair, or a constant's one 32-bit value in both (the interpreter's `pk32_src`).
    fn pk_src(&mut self, i: &Inst, k: usize) -> (Src, Src) {
        let code = i.src[k];
        if code >= VGPR {
            let r = reg_index(code);
            (Src::Row(r), Src::Row(r + 1))
        } else if code < 128 {
            let c = code as usize;
            (Src::Uniform(self.sgpr(c)), Src::Uniform(self.sgpr(c + 1)))
        } else {
            let x = self.scalar(code, i.lit, Ty::B32);
            (Src::Uniform(x), Src::Uniform(x))
        }
    }

    /// `v_pk_add_f32`/`v_pk_mul_f32`/`v_pk_fma_f32` half by half (each operand the half
    /// op_sel/op_sel_hi picks, negated by neg_lo/neg_hi), `v_pk_mov_b32` choosing each half
    /// by op_sel.
    fn pk_f32(&mut self, i: &Inst, kind: u8) {
        let dst = reg_index(i.dst);
        let n = if kind == 2 { 3 } else { 2 };
        let srcs: Vec<(Src, Src)> = (0..n).map(|k| self.pk_src(i, k)).collect();
        let (mut los, mut his) = (Vec::new(), Vec::new());
        for g in self.group_range() {
            let half = |s: &mut Self, hi: bool| -> Value {
                let pick = |p: (Src, Src), h: bool| if h { p.1 } else { p.0 };
                if kind == 3 {
                    let (k, sel) = if hi {
                        (1, i.opsel & 2)
                    } else {
                        (0, i.opsel & 1)
                    };
                    return s.lanes(pick(srcs[k], sel != 0), g);
                }
                // Half `hi` of source k: the half op_sel (op_sel_hi for the high result)
                // picks, its sign flipped by neg_lo (neg_hi).
                let operand = |s: &mut Self, k: usize| -> Value {
                    let (sel, neg) = if hi {
                        (i.opsel_hi, i.neg_hi)
                    } else {
                        (i.opsel, i.neg)
                    };
                    let x = s.lanes(pick(srcs[k], sel >> k & 1 != 0), g);
                    if neg >> k & 1 != 0 {
                        let m = s.vconst([0x8000_0000; 4]);
                        s.b.ins().bxor(x, m)
                    } else {
                        x
                    }
                };
                let x = operand(s, 0);
                let y = operand(s, 1);
                if kind == 2 {
                    let z = operand(s, 2);
                    return s.fma(x, y, z);
                }
                let (fx, fy) = (s.f32x4(x), s.f32x4(y));
                let r = if kind == 0 {
                    s.b.ins().fadd(fx, fy)
                } else {
                    s.b.ins().fmul(fx, fy)
                };
                let r = s.i32x4(r);
                s.nan_checked(r, &[x, y])
            };
            let lo = half(self, false);
            let hi = half(self, true);
            los.push(lo);
            his.push(hi);
        }
        self.write_vals(dst, los);
        self.write_vals(dst + 1, his);
    }

    /// `v_add_f64` (`kind` 0), `v_mul_f64` (1), `v_fma_f64` (2), `v_fmac_f64` (3: the
    /// destination pair the addend) on row pairs: per group
    /// each source's halves (abs/neg on the high one's sign bit) interleaved into two
    /// `f64x2`s (lanes 0–1, 2–3), the operation, and the results split into halves again. A
    /// NaN result becomes the first NaN operand, quieted, as the interpreter's
    /// `src0_nan64` (two NaNs: source 0's; one: that one, quieted by the host) and
    /// `fma_nans64` make it.
    fn f64_op(&mut self, i: &Inst, kind: u8) {
        let dst = reg_index(i.dst);
        let n = if kind == 2 { 3 } else { 2 };
        let mut srcs: Vec<(Src, Src)> = (0..n).map(|k| self.src64_halves(i, k)).collect();
        if kind == 3 {
            srcs.push((Src::Row(dst), Src::Row(dst + 1)));
        }
        let (mut los, mut his) = (Vec::new(), Vec::new());
        for g in self.group_range() {
            // Each source as two `i32x4`s holding lanes 0–1 and 2–3 as 64-bit values.
            let mut ops: Vec<[Value; 2]> = Vec::new();
            for (k, &(lo, hi)) in srcs.iter().enumerate() {
                let lo = self.lanes(lo, g);
                let hi = self.lanes(hi, g);
                let hi = self.sign_mods(i, k, hi);
                let a = self.shuffle32(lo, hi, [0, 4, 1, 5]);
                let b = self.shuffle32(lo, hi, [2, 6, 3, 7]);
                ops.push([a, b]);
            }
            let mut res = Vec::new();
            for h in 0..2 {
                let f: Vec<Value> = ops.iter().map(|o| self.f64x2(o[h])).collect();
                let r = match kind {
                    0 => self.b.ins().fadd(f[0], f[1]),
                    1 => self.b.ins().fmul(f[0], f[1]),
                    _ => self.b.ins().fma(f[0], f[1], f[2]),
                };
                let r = self.b.ins().bitcast(
                    types::I32X4,
                    MemFlags::new().with_endianness(Endianness::Little),
                    r,
                );
                let operands: Vec<Value> = ops.iter().map(|o| o[h]).collect();
                res.push(self.nan_checked64(r, &operands));
            }
            los.push(self.shuffle32(res[0], res[1], [0, 2, 4, 6]));
            his.push(self.shuffle32(res[0], res[1], [1, 3, 5, 7]));
        }
        self.write_vals(dst, los);
        self.write_vals(dst + 1, his);
    }

    /// The high halves of the four lanes' 64-bit products `x · y` (`v_mul_hi_u32`, or
    /// `_i32` when `signed`): each pair of lanes widened to `i64x2`, multiplied, and the
    /// products' high dwords gathered.
    fn mul_hi(&mut self, x: Value, y: Value, signed: bool) -> Value {
        let widen = |s: &mut Self, v: Value, high: bool| match (signed, high) {
            (false, false) => s.b.ins().uwiden_low(v),
            (false, true) => s.b.ins().uwiden_high(v),
            (true, false) => s.b.ins().swiden_low(v),
            (true, true) => s.b.ins().swiden_high(v),
        };
        let mut products = Vec::new();
        for high in [false, true] {
            let (a, b) = (widen(self, x, high), widen(self, y, high));
            let p = self.b.ins().imul(a, b);
            products.push(self.b.ins().bitcast(
                types::I32X4,
                MemFlags::new().with_endianness(Endianness::Little),
                p,
            ));
        }
        self.shuffle32(products[0], products[1], [1, 3, 5, 7])
    }

    /// An `i32x4` holding two 64-bit lanes as an `f64x2`.
    fn f64x2(&mut self, x: Value) -> Value {
        self.b.ins().bitcast(
            types::F64X2,
            MemFlags::new().with_endianness(Endianness::Little),
            x,
        )
    }

    /// [`Self::nan_checked`] for two f64 lanes (`r` and `ops` as `i32x4`s): where `r` is a
    /// NaN, the first NaN of `ops`, quieted (bit 51).
    fn nan_checked64(&mut self, r: Value, ops: &[Value]) -> Value {
        let fr = self.f64x2(r);
        self.nan_test(r, fr, ops, Self::first_nan64)
    }

    /// `r` (two f64 lanes as an `i32x4`), or in a lane where an operand of `ops` is a NaN,
    /// the first such, quieted (bit 51).
    fn first_nan64(&mut self, r: Value, ops: &[Value]) -> Value {
        let quiet = self.vconst([0, 0x0008_0000, 0, 0x0008_0000]);
        let mut fixed = r;
        for &v in ops.iter().rev() {
            let fv = self.f64x2(v);
            let nan = self.b.ins().fcmp(FloatCC::Unordered, fv, fv);
            let nan = self.b.ins().bitcast(
                types::I32X4,
                MemFlags::new().with_endianness(Endianness::Little),
                nan,
            );
            let q = self.b.ins().bor(v, quiet);
            fixed = self.b.ins().bitselect(nan, q, fixed);
        }
        fixed
    }

    /// A 32-bit value widened to 64 bits, sign- or zero-extended.
    fn extend64(&mut self, v: Value, signed: bool) -> Value {
        if signed {
            self.b.ins().sextend(types::I64, v)
        } else {
            self.b.ins().uextend(types::I64, v)
        }
    }

    /// `v_mad_u64_u32`/`v_mad_i64_i32` with scalar factors (`group id × group size + v[0:1]`):
    /// their product once, then a 64-bit add to the row pair `c` on the 32-bit halves, four
    /// lanes at a time; the overflow lanes are the carry out of the add (unsigned), or those
    /// where the sum's sign differs from both addends' (signed).
    fn mad64_uniform(&mut self, i: &Inst, signed: bool, [x, y]: [Value; 2], c: usize) {
        let dst = reg_index(i.dst);
        let (x, y) = (self.extend64(x, signed), self.extend64(y, signed));
        let p = self.b.ins().imul(x, y);
        let pl = self.b.ins().ireduce(types::I32, p);
        let ph = self.b.ins().ushr_imm(p, 32);
        let ph = self.b.ins().ireduce(types::I32, ph);
        let (pl, ph) = (self.splat(pl), self.splat(ph));
        let kept = self.mask_use().1 && i.sdst < 127;
        let mut ov = Flags::default();
        let (mut los, mut his) = (Vec::new(), Vec::new());
        for g in self.group_range() {
            let (zl, zh) = (self.vgroup(c, g), self.vgroup(c + 1, g));
            let lo = self.b.ins().iadd(pl, zl);
            // No carry out of the low halves: `lo >= pl`; the carry as -1 then.
            let top = self.b.ins().umax(lo, pl);
            let no_carry = self.b.ins().icmp(IntCC::Equal, top, lo);
            let carry = self.b.ins().bnot(no_carry);
            let t = self.b.ins().iadd(ph, zh);
            let hi = self.b.ins().isub(t, carry);
            if kept {
                let flags = if signed {
                    // The sign bit of `(hi ^ ph) & (hi ^ zh)`, as an all-ones lane.
                    let u = self.b.ins().bxor(hi, ph);
                    let v = self.b.ins().bxor(hi, zh);
                    let w = self.b.ins().band(u, v);
                    self.b.ins().sshr_imm(w, 31)
                } else {
                    // A carry out of `ph + zh`, or of adding the low halves' carry to it.
                    let top = self.b.ins().umax(t, ph);
                    let c2 = self.b.ins().icmp(IntCC::NotEqual, top, t);
                    let zero = self.vconst([0; 4]);
                    let wrapped = self.b.ins().icmp(IntCC::Equal, hi, zero);
                    let c3 = self.b.ins().band(carry, wrapped);
                    self.b.ins().bor(c2, c3)
                };
                self.collect_flags(&mut ov, flags, g);
            }
            los.push(lo);
            his.push(hi);
        }
        self.write_vals(dst, los);
        self.write_vals(dst + 1, his);
        if let Some(ov) = self.defer(ov) {
            self.merge_mask(i.sdst, ov);
        }
    }

    /// The carry adds and subtracts: the result row under EXEC, and the carry-out merged into
    /// the SGPR pair under EXEC (the interpreter's `merge_mask`: in wave32 the second SGPR
    /// keeps its value, as EXEC has no high bits).
    fn carry(&mut self, i: &Inst, kind: u8) {
        let dst = reg_index(i.dst);
        let (a, b) = (self.src(i, 0), self.src(i, 1));
        let cin = (kind >= 3).then_some(());
        // The lanes without a carry (borrow) are collected, as `uge` compares (x86-64's
        // unsigned max and an equality: two instructions, where `ult` takes four), and the
        // mask is negated once at the end.
        let mut nc = Flags::default();
        let mut rows = Vec::new();
        let cin = cin.map(|_| i.src[2] as usize);
        for g in self.group_range() {
            let (x, y) = (self.lanes(a, g), self.lanes(b, g));
            let (p, q) = if matches!(kind, 2 | 5) {
                (y, x)
            } else {
                (x, y)
            };
            let uge = |s: &mut Self, x: Value, y: Value| {
                s.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, x, y)
            };
            // No carry out of `p + q`: `r >= p`; no borrow in `p - q`: `p >= q`.
            let (r, n) = match kind {
                0 | 3 => {
                    let r = self.b.ins().iadd(p, q);
                    (r, uge(self, r, p))
                }
                _ => {
                    let r = self.b.ins().isub(p, q);
                    (r, uge(self, p, q))
                }
            };
            let (r, n) = match cin {
                None => (r, n),
                Some(code) => {
                    // The carry-in as a select (-1 where set): `r + ci` is `r - sel`.
                    let sel = self.mask_sel(code, g);
                    let zero = self.vconst([0; 4]);
                    let (r2, n2) = if kind == 3 {
                        let r2 = self.b.ins().isub(r, sel);
                        // A carry out of `r + ci` only where `ci` is set and `r2` wrapped
                        // to 0.
                        let wrapped = self.b.ins().icmp(IntCC::Equal, r2, zero);
                        (r2, self.b.ins().band(sel, wrapped))
                    } else {
                        // A borrow in `r - ci` only where `ci` is set and `r` is 0.
                        let was_zero = self.b.ins().icmp(IntCC::Equal, r, zero);
                        (self.b.ins().iadd(r, sel), self.b.ins().band(sel, was_zero))
                    };
                    (r2, self.b.ins().band_not(n, n2))
                }
            };
            rows.push(r);
            let (read, kept) = self.mask_use();
            if read {
                let c = self.b.ins().bnot(n);
                self.forward(i.sdst as usize, g, c, true);
            }
            if kept {
                self.collect_flags(&mut nc, n, g);
            }
        }
        self.write_vals(dst, rows);
        if let Some(nc) = self.defer(nc) {
            self.carry_finish(i, nc);
        }
    }

    /// In a run, whether the current instruction's lane mask is read later in the run (then
    /// forwarded) and whether it is kept (no later instruction of the run writes the same
    /// SGPR, which would overwrite it under the same EXEC); outside a run, kept.
    fn mask_use(&self) -> (bool, bool) {
        match self.grp {
            Some(_) => self.run_masks[self.run_pos],
            None => (false, true),
        }
    }

    /// Adds group `g`'s lane flags `m` (an all-ones/all-zeros `i32x4`) to `acc`: four
    /// consecutive groups from a multiple of four are packed together (two narrowings and
    /// one byte-mask move: 16 bits, where a mask move, a shift and an or each took twice
    /// the instructions).
    fn collect_flags(&mut self, acc: &mut Flags, m: Value, g: usize) {
        acc.vecs.push((g, m));
        let four = acc.vecs.len() == 4
            && acc.vecs[0].0.is_multiple_of(4)
            && acc
                .vecs
                .iter()
                .enumerate()
                .all(|(k, v)| v.0 == acc.vecs[0].0 + k);
        if four {
            let v: Vec<Value> = acc.vecs.drain(..).map(|v| v.1).collect();
            let lo = self.b.ins().snarrow(v[0], v[1]);
            let hi = self.b.ins().snarrow(v[2], v[3]);
            let bytes = self.b.ins().snarrow(lo, hi);
            let hb = self.b.ins().vhigh_bits(types::I64, bytes);
            self.or_flag_bits(acc, hb, g - 3);
        } else if acc.vecs.len() == 4 {
            self.flush_flags(acc);
        }
    }

    /// `acc`'s groups not yet packed, one at a time.
    fn flush_flags(&mut self, acc: &mut Flags) {
        for (g, m) in std::mem::take(&mut acc.vecs) {
            let hb = self.b.ins().vhigh_bits(types::I64, m);
            self.or_flag_bits(acc, hb, g);
        }
    }

    /// Ors `hb`, lane flags from group `g` on, into `acc`'s bits (at bits 4g and up).
    fn or_flag_bits(&mut self, acc: &mut Flags, hb: Value, g: usize) {
        let hb = if g == 0 {
            hb
        } else {
            self.b.ins().ishl_imm(hb, (4 * g) as i64)
        };
        acc.bits = Some(self.or_bits(acc.bits, hb));
    }

    /// `acc`'s bits, every group in.
    fn flags_bits(&mut self, mut acc: Flags) -> Option<Value> {
        self.flush_flags(&mut acc);
        acc.bits
    }

    /// `acc | x` (`x` alone for the first group's lane flags).
    fn or_bits(&mut self, acc: Option<Value>, x: Value) -> Value {
        match acc {
            Some(a) => self.b.ins().bor(a, x),
            None => x,
        }
    }

    /// A carry's SGPR write from the lanes without a carry (`nc`): the wave's other lanes
    /// (none past lane 31 in wave32) merged under EXEC.
    fn carry_finish(&mut self, i: &Inst, nc: Value) {
        let co = self.b.ins().bnot(nc);
        let co = if self.wave32 {
            self.b.ins().band_imm(co, 0xffff_ffff)
        } else {
            co
        };
        self.merge_mask(i.sdst, co);
    }

    /// In a run, adds `f` (the current group's lane flags) to the instruction's pending
    /// SGPR write and answers `None`; else the bits (the caller writes them now).
    fn defer(&mut self, f: Flags) -> Option<Value> {
        if self.grp.is_none() {
            return self.flags_bits(f);
        }
        let k = self.run_pos;
        let mut acc = std::mem::take(&mut self.pending[k]);
        if let Some(b) = f.bits {
            acc.bits = Some(self.or_bits(acc.bits, b));
        }
        for (g, m) in f.vecs {
            self.collect_flags(&mut acc, m, g);
        }
        self.pending[k] = acc;
        None
    }

    /// Lanes 4g..4g+3 of the lane mask in SGPR pair `code` as an `i32x4` select: forwarded
    /// from a write earlier in the run, else from the registers.
    fn mask_sel(&mut self, code: usize, g: usize) -> Value {
        if let Some(&v) = self.fwd.get(&code) {
            return v;
        }
        let halves = self.mask_halves(code);
        self.lane_mask(halves, g)
    }

    /// In a run, records the lane flags `flags` of group `g` an instruction writes to the
    /// mask at `code` (nothing from 127 up) as that mask's select for the rest of the group:
    /// merged under EXEC into the old one (`merge`: the carries), or the flags under EXEC
    /// (the compares).
    fn forward(&mut self, code: usize, g: usize, flags: Value, merge: bool) {
        if self.grp.is_none() || code >= 127 {
            return;
        }
        let sel = if self.full {
            flags
        } else if merge {
            let e = self.exec_mask(g);
            let old = self.mask_sel(code, g);
            self.b.ins().bitselect(e, flags, old)
        } else {
            let e = self.exec_mask(g);
            self.b.ins().band(flags, e)
        };
        self.fwd.insert(code, sel);
    }

    /// Lowers the instructions `ks` of `region` (a run `lane_run` found) group by group:
    /// every instruction on lanes 0–3, then on lanes 4–7, …, so a value meets its next use
    /// in a register; the lane masks the run writes are forwarded per group (`forward`) and
    /// written to their SGPRs at the end, in order.
    fn group_major(&mut self, region: &[(u64, Inst, Lower)], ks: &[usize]) -> Result<(), String> {
        self.pending = vec![Flags::default(); ks.len()];
        let io: Vec<_> = ks.iter().map(|&k| mask_io(&region[k])).collect();
        self.run_masks = io
            .iter()
            .enumerate()
            .map(|(pos, &(out, _, merges))| match out {
                Some(d) => {
                    let later = &io[pos + 1..];
                    let read = later.iter().any(|&(_, r, _)| r == Some(d));
                    // A compare writes every lane (0 outside EXEC), a carry merges under
                    // EXEC: a write is dead after a later one of the same kind, and in
                    // wave64 after a later compare's (in wave32 a compare writes one SGPR
                    // of the pair a merge writes; a compare's zeros outside EXEC stay
                    // under later merges).
                    let wave64 = !self.wave32;
                    let overwritten = later
                        .iter()
                        .any(|&(w, _, m)| w == Some(d) && (m == merges || (!m && wave64)));
                    (read, !overwritten)
                }
                None => (false, true),
            })
            .collect();
        // The DS loads' shape and range checks, before the run (and its lane count).
        let loads: Vec<&Inst> = ks
            .iter()
            .filter(|&&k| region[k].2 == Lower::Mem)
            .map(|&k| &region[k].1)
            .collect();
        let lds = (!loads.is_empty()).then(|| self.ds_run_checks(region[ks[0]].0, &loads));
        self.lazy_rows = lazy_ds_rows(region, ks);
        self.ds_reloaded = live::reloaded_in_run(region, ks);
        // Lazy rows dead after the run, or loaded again later in it, are never stored
        // (`live.rs`).
        let (pc_last, i_last, _) = &region[*ks.last().expect("a run")];
        self.run_live = self.live.get(&(pc_last + u64::from(i_last.size))).copied();
        let live = self.run_live;
        let dead = self.lazy_rows.iter().filter(|&&(pos, r)| {
            live.is_some_and(|live| !live::has(&live, r)) || self.ds_reloaded.contains(&(pos, r))
        });
        super::DS_DEAD_ROWS.fetch_add(dead.count() as u64, std::sync::atomic::Ordering::Relaxed);
        super::DS_RUN_LOADS.fetch_add(loads.len() as u64, std::sync::atomic::Ordering::Relaxed);
        // Every lane-wise instruction's lanes at once: nothing in a run exits (its waits
        // continue, `step_call`), so no exit sees the count ahead of the instructions.
        let counted = ks.iter().filter(|&&k| counts_lanes(region[k].2)).count() + loads.len();
        self.count_lanes_times(counted as u32);
        for g in 0..self.groups {
            self.grp = Some(g);
            self.fwd.clear();
            self.ds_ptrs.clear();
            for (pos, &k) in ks.iter().enumerate() {
                self.run_pos = pos;
                let (pc, i, l) = &region[k];
                // A wait generated as no code reads nothing (matmul's `s_waitcnt
                // lgkmcnt(n)` between each two of its sixteen `v_fmac_f32`s ended their
                // chain and stored the pass's rows).
                let no_code = matches!(l, Lower::Nop | Lower::Barrier)
                    || *l == Lower::Step && Self::wait_is_no_code(i);
                // The scalar instructions and waits generate code in group 0's pass alone:
                // in the others they end no chain (gfx1030 matmul's `s_waitcnt_vscnt`
                // after its first `v_fmac_f32` cost a NaN test per group).
                let lane_wise = matches!(l, Lower::VAlu(_) | Lower::VCmp | Lower::Mem);
                let emits = !no_code && (lane_wise || g == 0);
                // Only a `v_fmac_f32` into the same row may read a chain's untested value;
                // a DS load between two may leave it pending (`survives_ds_load`: gfx1030
                // matmul's chains of two, each with its NaN test, became one per group).
                let chained = self.fmac_chain.as_ref().is_some_and(|c| match l {
                    Lower::Mem => c.survives_ds_load(i),
                    _ => fmac_chainable(i, *l) && reg_index(i.dst) == c.row,
                });
                // A NaN segment (`nan_seg.rs`) goes on over the deferrable instructions;
                // anything else that generates code ends it.
                let deferrable = nan_seg::deferrable(i, *l);
                if emits && !deferrable {
                    self.nan_seg_end(region)?;
                }
                if !chained && emits {
                    self.fmac_chain_end();
                }
                if emits && deferrable {
                    self.nan_seg_add(pos, k);
                }
                match l {
                    _ if no_code => {}
                    Lower::VAlu(_) | Lower::VCmp => self.inst(i, *l)?,
                    Lower::Mem => self.ds_run_load(i, pos, g, lds.expect("checked")),
                    // The scalar instructions and waits, once (a wait may start a new block
                    // or call the interpreter: the `Wave` current first).
                    Lower::Step if g == 0 => {
                        if !Self::wait_is_inline(i) {
                            self.ds_lazy_flush();
                            self.store_unstored();
                        }
                        self.call_interpreter(*pc, i, *l)
                    }
                    _ if g == 0 => self.inst_at(k, *pc, i, *l)?,
                    _ => {}
                }
            }
            self.nan_seg_end(region)?;
            self.fmac_chain_end();
            self.ds_lazy_flush_at_end();
            self.store_unstored();
        }
        self.run_live = None;
        self.ds_reloaded.clear();
        self.grp = None;
        self.fwd.clear();
        self.ds_ptrs.clear();
        // The rows the run touched are read again from the `Wave` (an L1 load) rather than
        // kept: every group of them live past the run was spilled to the stack (kept,
        // gfx90a's matmul 512 took 6% more CPU time, vector add no less).
        self.vcache.clear();
        let pending = std::mem::take(&mut self.pending);
        for (&k, flags) in ks.iter().zip(pending) {
            let Some(bits) = self.flags_bits(flags) else {
                continue;
            };
            let (_, i, l) = &region[k];
            match l {
                Lower::VCmp => self.vcmp_finish(i, bits),
                Lower::VAlu(VAluOp::Carry(_) | VAluOp::DivScale) => self.carry_finish(i, bits),
                _ => self.merge_mask(i.sdst, bits),
            }
        }
        Ok(())
    }

    /// The groups an instruction's lowering generates: all, or the run's current one.
    fn group_range(&self) -> std::ops::Range<usize> {
        match self.grp {
            Some(g) => g..g + 1,
            None => 0..self.groups,
        }
    }

    /// Merges the lane flags `m` into the SGPR pair `code` under EXEC (`Wave::merge_mask`;
    /// nothing for a code past the SGPR pairs).
    fn merge_mask(&mut self, code: u16, m: Value) {
        let d = code as usize;
        if d < 127 && self.full {
            // EXEC is every lane: the flags replace the mask; in wave32 the second SGPR
            // keeps its value (EXEC has no high bits), so it is neither read nor written.
            if self.wave32 {
                let lo = self.b.ins().ireduce(types::I32, m);
                self.set_sgpr(d, lo);
            } else {
                self.set_mask64(d, m);
            }
        } else if d < 127 {
            let exec = self.exec64();
            let old = self.mask64(d);
            let keep = self.b.ins().band_not(old, exec);
            let new = self.b.ins().band(m, exec);
            let x = self.b.ins().bor(keep, new);
            self.set_mask64(d, x);
        }
    }

    /// `v_cmp_*` and `v_cmpx_*`: the lanes' flags under EXEC to VCC or an SGPR pair (one SGPR
    /// in wave32), and to EXEC for `v_cmpx`.
    fn vcmp(&mut self, i: &Inst) -> Result<(), String> {
        if let Some(bits) = self.vcmp_bits(i)? {
            self.vcmp_finish(i, bits);
        }
        Ok(())
    }

    /// `vcmp`'s lane flags (as compared: negated for `cmp_inverted`), or in a run `None`
    /// (they are written at its end).
    fn vcmp_bits(&mut self, i: &Inst) -> Result<Option<Value>, String> {
        let cond = i.imm & 31;
        let ty = i.imm >> 5 & 15;
        let wide = matches!(ty, 5 | 8);
        // 64-bit types: each source as its (low, high) halves; the others as 32-bit lanes.
        let srcs = if wide {
            Err([self.src64_halves(i, 0), self.src64_halves(i, 1)])
        } else {
            Ok((self.src(i, 0), self.src(i, 1)))
        };
        // An integer condition x86-64 has no one instruction for (`ne`, signed `le`/`ge`,
        // unsigned `lt`/`gt`) is compared as its complement, and the mask negated once.
        let invert = cmp_inverted(i);
        let cond = if invert { 7 - cond } else { cond };
        // Both sources one value in every lane (SGPRs, constants: the reduction's loop test
        // `v_cmp_lt_u64 s0, s[0:1], 4`): every lane compares alike, so one group's compare
        // gives the whole mask, lane 0's flag widened to the wave's lanes.
        let uniform = match srcs {
            Err([a, b]) => [a.0, a.1, b.0, b.1]
                .iter()
                .all(|s| matches!(s, Src::Uniform(_))),
            Ok((a, b)) => matches!((a, b), (Src::Uniform(_), Src::Uniform(_))),
        };
        // Its flag as one scalar compare, where no instruction of a run reads its groups.
        if uniform && !self.mask_use().0 {
            let mut bits = Flags::default();
            if self.mask_use().1 && self.group_range().start == 0 {
                match self.scalar_cmp(i, cond, ty, srcs)? {
                    Some(flag) => bits = Flags::from_bits(self.uniform_bits(flag)),
                    None => return self.vcmp_groups(i, cond, ty, srcs, uniform),
                }
            }
            return Ok(self.defer(bits));
        }
        self.vcmp_groups(i, cond, ty, srcs, uniform)
    }

    /// `vcmp_bits` group by group (a uniform compare's group 0 stands for every group).
    fn vcmp_groups(
        &mut self,
        i: &Inst,
        cond: i32,
        ty: i32,
        srcs: Result<(Src, Src), [(Src, Src); 2]>,
        uniform: bool,
    ) -> Result<Option<Value>, String> {
        let invert = cmp_inverted(i);
        let mut once = None;
        let mut bits = Flags::default();
        for g in self.group_range() {
            let m = match (once, srcs) {
                (Some(m), _) => m,
                (None, Err([a, b])) => {
                    let x = [self.lanes(a.0, g), self.lanes(a.1, g)];
                    let y = [self.lanes(b.0, g), self.lanes(b.1, g)];
                    self.cmp64(cond, ty == 5, x, y)?
                }
                (None, Ok((a, b))) => {
                    let (x, y) = (self.lanes_mod(i, 0, a, g), self.lanes_mod(i, 1, b, g));
                    if cond == CLASS {
                        self.class32(x, y, const_operand(i, 1))
                    } else {
                        self.cmp32(cond, ty, x, y)?
                    }
                }
            };
            if uniform {
                once = Some(m);
            }
            let (read, kept) = self.mask_use();
            if read {
                let flags = if invert { self.b.ins().bnot(m) } else { m };
                self.forward(i.sdst as usize, g, flags, false);
            }
            // A run calls this once per group, group 0 first: the uniform mask goes in then.
            if kept && uniform && g == 0 {
                bits = Flags::from_bits(self.uniform_flags(m));
            } else if kept && !uniform {
                self.collect_flags(&mut bits, m, g);
            }
        }
        Ok(self.defer(bits))
    }

    /// A compare of two uniform sources (`vcmp_bits`'s `srcs`, `cond` as compared) on
    /// scalars: its flag as an `i8`, or `None` for a type it has no scalar form of.
    fn scalar_cmp(
        &mut self,
        i: &Inst,
        cond: i32,
        ty: i32,
        srcs: Result<(Src, Src), [(Src, Src); 2]>,
    ) -> Result<Option<Value>, String> {
        let uni = |s: Src| match s {
            Src::Uniform(x) => Ok(x),
            Src::Row(_) => Err("a row in a uniform compare".to_string()),
        };
        Ok(Some(match srcs {
            Err([a, b]) => {
                // A constant source as one 64-bit constant, an SGPR pair joined.
                let mut wide = |k: usize, (lo, hi): (Src, Src)| -> Result<Value, String> {
                    let c = i.src[k];
                    Ok(match const64(c, i.lit, i.tys[k]).filter(|_| c < VGPR) {
                        Some(x) => self.konst(types::I64, x as i64),
                        None => {
                            let (lo, hi) = (uni(lo)?, uni(hi)?);
                            self.join64(lo, hi)
                        }
                    })
                };
                let (x, y) = (wide(0, a)?, wide(1, b)?);
                self.b.ins().icmp(int_cc(cond, ty == 5)?, x, y)
            }
            // `v_cmp_class` group by group (group 0 stands for all).
            Ok(_) if cond == CLASS => return Ok(None),
            Ok((a, b)) => {
                let (mut x, mut y) = (uni(a)?, uni(b)?);
                match ty {
                    1 => {
                        // The float source modifiers, as `lanes_mod`.
                        for (k, v) in [(0, &mut x), (1, &mut y)] {
                            if i.abs >> k & 1 != 0 {
                                *v = self.b.ins().band_imm(*v, 0x7fff_ffff);
                            }
                            if i.neg >> k & 1 != 0 {
                                *v = self.b.ins().bxor_imm(*v, 0x8000_0000);
                            }
                        }
                        let fx = self.b.ins().bitcast(types::F32, MemFlags::new(), x);
                        let fy = self.b.ins().bitcast(types::F32, MemFlags::new(), y);
                        self.b.ins().fcmp(float_cc(cond)?, fx, fy)
                    }
                    // 16 bits: the low halves moved up keep their order, signed or not.
                    3 | 6 => {
                        let (x, y) = (self.b.ins().ishl_imm(x, 16), self.b.ins().ishl_imm(y, 16));
                        self.b.ins().icmp(int_cc(cond, ty == 3)?, x, y)
                    }
                    4 | 7 => self.b.ins().icmp(int_cc(cond, ty == 4)?, x, y),
                    _ => return Ok(None),
                }
            }
        }))
    }

    /// The lane flags of a uniform compare's flag (an `i8` of 0 or 1): all 64 bits (the
    /// compare's writes take them under EXEC, which has no bits past a wave32's lanes).
    fn uniform_bits(&mut self, flag: Value) -> Value {
        let x = self.b.ins().uextend(types::I64, flag);
        self.b.ins().ineg(x)
    }

    /// The lane flags of every lane of the wave (64 bits, the low 32 in wave32) from a
    /// compare's group `m` whose lanes are all alike.
    fn uniform_flags(&mut self, m: Value) -> Value {
        let x = self.b.ins().extractlane(m, 0);
        if self.wave32 {
            self.b.ins().uextend(types::I64, x)
        } else {
            self.b.ins().sextend(types::I64, x)
        }
    }

    /// A compare's writes from its lane flags `bits` (as compared: negated for
    /// `cmp_inverted`): to its SGPR (pair) and, for `v_cmpx`, EXEC, under EXEC.
    fn vcmp_finish(&mut self, i: &Inst, mut bits: Value) {
        if cmp_inverted(i) {
            bits = self.b.ins().bnot(bits);
            if self.wave32 {
                bits = self.b.ins().band_imm(bits, 0xffff_ffff);
            }
        }
        let exec = self.exec64();
        let mask = self.b.ins().band(bits, exec);
        // `Wave::write_mask` (none for a code from 127 up: GFX10's v_cmpx has no mask
        // destination), then EXEC for `v_cmpx`.
        let d = i.sdst as usize;
        if d < 127 && self.wave32 {
            let lo = self.b.ins().ireduce(types::I32, mask);
            self.set_sgpr(d, lo);
        } else if d < 127 {
            self.set_mask64(d, mask);
        }
        if i.imm >> 9 & 1 != 0 {
            self.set_mask64(126, mask);
        }
    }

    /// `v_cmp_class_f32` on lanes `x` (f32) with class masks `y` (`mask` when a constant):
    /// whether the bit of each lane's class is set in its mask, as the interpreter's
    /// `f32_class` numbers them (0 signalling NaN, 1 quiet NaN, 2 −∞, 3 −normal, 4 −denormal,
    /// 5 −0, 6 +0, 7 +denormal, 8 +normal, 9 +∞).
    fn class32(&mut self, x: Value, y: Value, mask: Option<u32>) -> Value {
        let k = |s: &mut Self, v: u32| s.vconst([v; 4]);
        let (abs_m, inf, quiet_bit, min_normal, zero) = (
            k(self, 0x7fff_ffff),
            k(self, 0x7f80_0000),
            k(self, 0x0040_0000),
            k(self, 0x0080_0000),
            k(self, 0),
        );
        let abs = self.b.ins().band(x, abs_m);
        let neg = self.b.ins().icmp(IntCC::SignedLessThan, x, zero);
        let pos = self.b.ins().bnot(neg);
        let nan = self.b.ins().icmp(IntCC::UnsignedGreaterThan, abs, inf);
        let q = self.b.ins().band(x, quiet_bit);
        let quiet = self.b.ins().icmp(IntCC::NotEqual, q, zero);
        let snan = self.b.ins().band_not(nan, quiet);
        let qnan = self.b.ins().band(nan, quiet);
        let infinite = self.b.ins().icmp(IntCC::Equal, abs, inf);
        let is_zero = self.b.ins().icmp(IntCC::Equal, abs, zero);
        let small = self.b.ins().icmp(IntCC::UnsignedLessThan, abs, min_normal);
        let denorm = self.b.ins().band_not(small, is_zero);
        let not_small = self.b.ins().bnot(small);
        let finite = self.b.ins().icmp(IntCC::UnsignedLessThan, abs, inf);
        let normal = self.b.ins().band(not_small, finite);
        let classes = [
            (snan, None),
            (qnan, None),
            (infinite, Some(neg)),
            (normal, Some(neg)),
            (denorm, Some(neg)),
            (is_zero, Some(neg)),
            (is_zero, Some(pos)),
            (denorm, Some(pos)),
            (normal, Some(pos)),
            (infinite, Some(pos)),
        ];
        let mut out = zero;
        for (c, (is, sign)) in classes.into_iter().enumerate() {
            let test = match mask {
                Some(m) if m >> c & 1 == 0 => continue,
                Some(_) => None,
                None => {
                    let bit = k(self, 1 << c);
                    let b = self.b.ins().band(y, bit);
                    Some(self.b.ins().icmp(IntCC::NotEqual, b, zero))
                }
            };
            let mut flag = match sign {
                Some(s) => self.b.ins().band(is, s),
                None => is,
            };
            if let Some(t) = test {
                flag = self.b.ins().band(flag, t);
            }
            out = self.b.ins().bor(out, flag);
        }
        out
    }

    /// A compare on 32-bit lanes: f32 (type 1), 16-bit (3 signed, 6 unsigned) and 32-bit
    /// integers (4 signed, 7 unsigned; `isa`'s compare type numbering).
    fn cmp32(&mut self, cond: i32, ty: i32, x: Value, y: Value) -> Result<Value, String> {
        Ok(match ty {
            1 => {
                let (fx, fy) = (self.f32x4(x), self.f32x4(y));
                let m = self.b.ins().fcmp(float_cc(cond)?, fx, fy);
                self.i32x4(m)
            }
            // 16 bits: the low halves moved up keep their order, signed or not.
            3 | 6 => {
                let (x, y) = (self.b.ins().ishl_imm(x, 16), self.b.ins().ishl_imm(y, 16));
                self.b.ins().icmp(int_cc(cond, ty == 3)?, x, y)
            }
            _ => self.b.ins().icmp(int_cc(cond, ty == 4)?, x, y),
        })
    }

    /// A 64-bit compare source as its (low, high) 32-bit halves: a VGPR pair's rows, or a
    /// 64-bit scalar split once.
    fn src64_halves(&mut self, i: &Inst, k: usize) -> (Src, Src) {
        let code = i.src[k];
        if code < 126 {
            // An SGPR pair: its registers (the same values, and splats, in every group).
            let c = usize::from(code);
            return (Src::Uniform(self.sgpr(c)), Src::Uniform(self.sgpr(c + 1)));
        }
        if let (false, Some(x)) = (code >= VGPR, const64(code, i.lit, i.tys[k])) {
            let lo = self.konst(types::I32, i64::from(x as u32 as i32));
            let hi = self.konst(types::I32, i64::from((x >> 32) as u32 as i32));
            return (Src::Uniform(lo), Src::Uniform(hi));
        }
        match self.src64(i, k) {
            Ok(r) => (Src::Row(r), Src::Row(r + 1)),
            Err(x) => {
                let lo = self.b.ins().ireduce(types::I32, x);
                let hi = self.b.ins().ushr_imm(x, 32);
                let hi = self.b.ins().ireduce(types::I32, hi);
                (Src::Uniform(lo), Src::Uniform(hi))
            }
        }
    }

    /// A 64-bit integer compare on (low, high) `i32x4` halves: the high halves decide (signed
    /// or not) unless equal, then the low halves (unsigned). Where the high halves differ a
    /// strict order and its non-strict form agree, so each is compared in the form x86-64
    /// has one instruction for (signed strict, unsigned non-strict), and the two picked by
    /// the high halves' equality.
    fn cmp64(
        &mut self,
        cond: i32,
        signed: bool,
        x: [Value; 2],
        y: [Value; 2],
    ) -> Result<Value, String> {
        let ins = |s: &mut Self, cc: IntCC, p: Value, q: Value| s.b.ins().icmp(cc, p, q);
        let heq = ins(self, IntCC::Equal, x[1], y[1]);
        Ok(match cond {
            2 | 5 => {
                let leq = ins(self, IntCC::Equal, x[0], y[0]);
                let eq = self.b.ins().band(heq, leq);
                if cond == 2 {
                    eq
                } else {
                    self.b.ins().bnot(eq)
                }
            }
            1 | 3 | 4 | 6 => {
                let below = cond <= 3;
                let high = match (signed, below) {
                    (true, true) => 1,
                    (true, false) => 4,
                    (false, true) => 3,
                    (false, false) => 6,
                };
                let hc = ins(self, int_cc(high, signed)?, x[1], y[1]);
                let lc = ins(self, int_cc(cond, false)?, x[0], y[0]);
                self.b.ins().bitselect(heq, lc, hc)
            }
            _ => return Err(format!("integer compare condition {cond}")),
        })
    }

    /// `v_readfirstlane_b32`: the first active lane (lane 0 when none is).
    fn readfirstlane(&mut self, i: &Inst) {
        let x = match self.src(i, 0) {
            Src::Uniform(x) => x,
            Src::Row(r) if self.full => {
                let x = self.vgroup(r, 0);
                self.b.ins().extractlane(x, 0)
            }
            Src::Row(r) => {
                // The lane is known only at run time: read it from the `Wave`.
                self.row_to_wave(r);
                let exec = self.exec64();
                let tz = self.b.ins().ctz(exec);
                let zero = self.b.ins().iconst(types::I64, 0);
                let lane = self.b.ins().select(exec, tz, zero);
                let off = self.b.ins().ishl_imm(lane, 2);
                let base = self.b.ins().iadd_imm(self.v, (4 * r * LANES) as i64);
                let addr = self.b.ins().iadd(base, off);
                self.b.ins().load(types::I32, mf(), addr, 0)
            }
        };
        self.set_sgpr(i.dst as usize, x);
    }

    /// `v_readlane_b32`: the lane a scalar operand names, modulo the wave size (a constant
    /// lane read from its group, another from the `Wave`).
    fn readlane(&mut self, i: &Inst) {
        let r = reg_index(i.src[0]);
        let size = if self.wave32 { 32 } else { 64 };
        let x = match const_operand(i, 1) {
            Some(k) => {
                let lane = k as usize & (size - 1);
                let x = self.vgroup(r, lane / 4);
                self.b.ins().extractlane(x, (lane % 4) as u8)
            }
            None => {
                self.row_to_wave(r);
                let k = self.scalar(i.src[1], i.lit, Ty::B32);
                let lane = self.b.ins().band_imm(k, (size - 1) as i64);
                let lane = self.b.ins().uextend(types::I64, lane);
                let off = self.b.ins().ishl_imm(lane, 2);
                let base = self.b.ins().iadd_imm(self.v, (4 * r * LANES) as i64);
                let addr = self.b.ins().iadd(base, off);
                self.b.ins().load(types::I32, mf(), addr, 0)
            }
        };
        self.set_sgpr(i.dst as usize, x);
    }

    /// A 64-bit scalar source (the interpreter's `Wave::sread64` for the codes `compilable`
    /// admits).
    fn scalar64(&mut self, code: u16, lit: u32, ty: Ty) -> Value {
        match const64(code, lit, ty) {
            None => self.sgpr64(code as usize),
            Some(k) => self.konst(types::I64, k as i64),
        }
    }

    fn store64(&mut self, code: u16, x: Value) {
        if code < 127 {
            self.set_sgpr64(code as usize, x);
        }
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
                let c = self.scc_value();
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
                    self.set_sgpr(i.dst as usize, r);
                }
                self.store_scc(carry);
            }
            // An SGPR pair's two registers copied as they are (not joined and split again).
            SAluOp::Mov64 if i.src[0] < 126 && i.dst < 127 => {
                let src = usize::from(i.src[0]);
                let (lo, hi) = (self.sgpr(src), self.sgpr(src + 1));
                self.set_sgpr(i.dst as usize, lo);
                self.set_sgpr(i.dst as usize + 1, hi);
            }
            SAluOp::Mov64 => {
                let a = self.scalar64(i.src[0], i.lit, t0);
                self.store64(i.dst, a);
            }
            SAluOp::Saveexec(f) => {
                let old = self.exec64();
                let s = self.scalar64(i.src[0], i.lit, t0);
                let new = self.logic(f, s, old);
                self.store64(i.dst, old);
                self.set_sgpr64(126, new);
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
                let old = self.sgpr(126);
                let new = self.logic(f, s, old);
                if i.dst < 128 {
                    self.set_sgpr(i.dst as usize, old);
                }
                self.set_sgpr(126, new);
                let nz = self.b.ins().icmp_imm(IntCC::NotEqual, new, 0);
                self.store_scc(nz);
            }
            SAluOp::Cselect64 => {
                let a = self.scalar64(i.src[0], i.lit, t0);
                let b = self.scalar64(i.src[1], i.lit, t1);
                let scc = self.scc_value();
                let r = self.b.ins().select(scc, a, b);
                self.store64(i.dst, r);
            }
            SAluOp::Not(_) | SAluOp::Shift64(_) => {
                let a = self.scalar64(i.src[0], i.lit, t0);
                let r = match op {
                    SAluOp::Shift64(k) => {
                        // Cranelift masks the amount to 63, as `S1[5:0]`.
                        let b = self.scalar(i.src[1], i.lit, t1);
                        match k {
                            0 => self.b.ins().ishl(a, b),
                            1 => self.b.ins().ushr(a, b),
                            _ => self.b.ins().sshr(a, b),
                        }
                    }
                    _ => self.b.ins().bnot(a),
                };
                self.store64(i.dst, r);
                let nz = self.b.ins().icmp_imm(IntCC::NotEqual, r, 0);
                self.store_scc(nz);
            }
            SAluOp::Cmp64(eq) => {
                let a = self.scalar64(i.src[0], i.lit, t0);
                let b = self.scalar64(i.src[1], i.lit, t1);
                let cc = if eq { IntCC::Equal } else { IntCC::NotEqual };
                let c = self.b.ins().icmp(cc, a, b);
                self.store_scc(c);
            }
            SAluOp::AddSub64(sub) => {
                let a = self.scalar64(i.src[0], i.lit, t0);
                let b = self.scalar64(i.src[1], i.lit, t1);
                let r = if sub {
                    self.b.ins().isub(a, b)
                } else {
                    self.b.ins().iadd(a, b)
                };
                self.store64(i.dst, r);
            }
            SAluOp::GetPc => {
                // The ISA's `D = PC + 4` (a SOP1 without literal: the next instruction).
                let r = self.b.ins().iconst(types::I64, (self.inst_pc + 4) as i64);
                self.store64(i.dst, r);
            }
            SAluOp::LshlAdd(n) => {
                let a = self.scalar(i.src[0], i.lit, t0);
                let b = self.scalar(i.src[1], i.lit, t1);
                let a = self.b.ins().uextend(types::I64, a);
                let b = self.b.ins().uextend(types::I64, b);
                let a = self.b.ins().ishl_imm(a, i64::from(n));
                let r = self.b.ins().iadd(a, b);
                let hi = self.b.ins().ushr_imm(r, 32);
                let c = self.b.ins().icmp_imm(IntCC::NotEqual, hi, 0);
                let r = self.b.ins().ireduce(types::I32, r);
                if i.dst < 128 {
                    self.set_sgpr(i.dst as usize, r);
                }
                self.store_scc(c);
            }
            _ => {}
        }
    }

    /// `and`, `or`, `xor`, `andn2` (`a & !b`), `orn2` (`a | !b`), `nand`, `nor`, `xnor`
    /// (0–7).
    fn logic(&mut self, f: u8, a: Value, b: Value) -> Value {
        let ins = self.b.ins();
        match f {
            0 => ins.band(a, b),
            1 => ins.bor(a, b),
            2 => ins.bxor(a, b),
            3 => ins.band_not(a, b),
            4 => ins.bor_not(a, b),
            5 => {
                let t = ins.band(a, b);
                self.b.ins().bnot(t)
            }
            6 => {
                let t = ins.bor(a, b);
                self.b.ins().bnot(t)
            }
            _ => ins.bxor_not(a, b),
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
        } else if let SAluOp::Cmpk(..) = op {
            // The SGPR in the destination field.
            self.sgpr(usize::from(i.dst))
        } else {
            self.scalar(i.src[0], i.lit, t0)
        };
        let b = match op {
            SAluOp::Mov | SAluOp::Movk | SAluOp::Not(_) | SAluOp::Brev | SAluOp::Ff1 => a,
            SAluOp::Cmpk(_, signed) => {
                let k = if signed { i.imm } else { i.imm & 0xffff };
                self.b.ins().iconst(types::I32, i64::from(k))
            }
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
            SAluOp::MulHi(signed) => {
                let ins = self.b.ins();
                (
                    Some(if signed {
                        ins.smulhi(a, b)
                    } else {
                        ins.umulhi(a, b)
                    }),
                    None,
                )
            }
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
            SAluOp::Logic(f) => {
                let r = self.logic(f, a, b);
                (Some(r), Some(nz(self, r)))
            }
            SAluOp::Not(_) => {
                let r = self.b.ins().bnot(a);
                (Some(r), Some(nz(self, r)))
            }
            SAluOp::Brev => (Some(self.b.ins().bitrev(a)), None),
            SAluOp::Ff1 => {
                // Cranelift's ctz of 0 is 32; the ISA's answer is -1.
                let t = self.b.ins().ctz(a);
                let zero = self.b.ins().icmp_imm(IntCC::Equal, a, 0);
                let m1 = self.b.ins().iconst(types::I32, -1);
                (Some(self.b.ins().select(zero, m1, t)), None)
            }
            SAluOp::Cmpk(cond, signed) => {
                let cc = int_cc(i32::from(cond), signed).unwrap_or(IntCC::Equal);
                (None, Some(self.b.ins().icmp(cc, a, b)))
            }
            SAluOp::Bfe(signed) => {
                let r = self.bfe32(a, b, signed);
                (Some(r), Some(nz(self, r)))
            }
            SAluOp::Bfm => {
                // ((1 << S0[4:0]) - 1) << S1[4:0]; Cranelift masks the amounts to 31.
                let one = self.b.ins().iconst(types::I32, 1);
                let m = self.b.ins().ishl(one, a);
                let m = self.b.ins().iadd_imm(m, -1);
                (Some(self.b.ins().ishl(m, b)), None)
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
                let scc = self.scc_value();
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
                self.set_sgpr(i.dst as usize, r);
            }
        }
        if let Some(c) = scc {
            self.store_scc(c);
        }
    }
}

impl Gen<'_> {
    /// `v_bfe_u32`/`v_bfe_i32` on four lanes with a uniform offset (`S1[4:0]`) and width
    /// (`S2[4:0]`; 0 gives 0): `x >> offset`, then its low `width` bits, sign-extended for
    /// the signed form.
    fn vbfe(&mut self, x: Value, off: Src, width: Src, signed: bool) -> Value {
        let (Src::Uniform(off), Src::Uniform(w)) = (off, width) else {
            unreachable!("compilable admits scalar offsets and widths only");
        };
        let off = self.b.ins().band_imm(off, 31);
        let w = self.b.ins().band_imm(w, 31);
        // All ones for a non-zero width, else zero.
        let nz = self.b.ins().icmp_imm(IntCC::NotEqual, w, 0);
        let keep = self.b.ins().uextend(types::I32, nz);
        let keep = self.b.ins().ineg(keep);
        let r = if signed {
            let t = self.b.ins().sshr(x, off);
            let c32 = self.b.ins().iconst(types::I32, 32);
            let sh = self.b.ins().isub(c32, w);
            let t = self.b.ins().ishl(t, sh);
            self.b.ins().sshr(t, sh)
        } else {
            let t = self.b.ins().ushr(x, off);
            let one = self.b.ins().iconst(types::I32, 1);
            let m = self.b.ins().ishl(one, w);
            let m = self.b.ins().iadd_imm(m, -1);
            let m = self.b.ins().splat(types::I32X4, m);
            self.b.ins().band(t, m)
        };
        let keep = self.b.ins().splat(types::I32X4, keep);
        self.b.ins().band(r, keep)
    }

    /// `s_bfe_u32`/`s_bfe_i32`: `S0 >> S1[4:0]`, its low `S1[22:16]` bits (all from a width
    /// of 32 up, none for 0), sign-extended for the signed form.
    fn bfe32(&mut self, a: Value, b: Value, signed: bool) -> Value {
        let off = self.b.ins().band_imm(b, 31);
        let w = self.b.ins().ushr_imm(b, 16);
        let w = self.b.ins().band_imm(w, 0x7f);
        let x = if signed {
            self.b.ins().sshr(a, off)
        } else {
            self.b.ins().ushr(a, off)
        };
        // Widths 1–31 (the shifts below mask the others, which the selects replace).
        let field = if signed {
            let c32 = self.b.ins().iconst(types::I32, 32);
            let sh = self.b.ins().isub(c32, w);
            let t = self.b.ins().ishl(x, sh);
            self.b.ins().sshr(t, sh)
        } else {
            let one = self.b.ins().iconst(types::I32, 1);
            let m = self.b.ins().ishl(one, w);
            let m = self.b.ins().iadd_imm(m, -1);
            self.b.ins().band(x, m)
        };
        let all = self
            .b
            .ins()
            .icmp_imm(IntCC::UnsignedGreaterThanOrEqual, w, 32);
        let r = self.b.ins().select(all, x, field);
        let zero = self.b.ins().iconst(types::I32, 0);
        let none = self.b.ins().icmp_imm(IntCC::Equal, w, 0);
        self.b.ins().select(none, zero, r)
    }
}

/// Whether `i` (lowered as `l`) may write EXEC: a scalar destination, a lane-mask
/// destination or `v_cmpx` reaching EXEC_LO or EXEC_HI, or a saveexec form.
/// Lane flags being collected into a lane mask's bits (`collect_flags`): the bits so far,
/// and the groups' flags (`i32x4`) not packed yet, with their group.
#[derive(Clone, Default)]
struct Flags {
    bits: Option<Value>,
    vecs: Vec<(usize, Value)>,
}

impl Flags {
    /// Lane flags already as bits.
    fn from_bits(bits: Value) -> Flags {
        Flags {
            bits: Some(bits),
            vecs: Vec::new(),
        }
    }
}

/// Whether an instruction counts its active lanes into `lane_ops` (`inst`).
fn counts_lanes(l: Lower) -> bool {
    matches!(
        l,
        Lower::VAlu(_) | Lower::VCmp | Lower::ReadFirstLane | Lower::ReadLane
    )
}

pub(super) fn writes_exec(i: &Inst, l: Lower) -> bool {
    let exec = |c: u16| c == 126 || c == 127;
    match l {
        Lower::SAlu(SAluOp::Saveexec(_) | SAluOp::Saveexec32(_)) => true,
        Lower::SAlu(_) | Lower::ReadFirstLane | Lower::ReadLane => exec(i.dst),
        Lower::VCmp => i.imm >> 9 & 1 != 0 || exec(i.sdst),
        Lower::VAlu(VAluOp::Carry(_) | VAluOp::Mad64(_)) => exec(i.sdst),
        _ => false,
    }
}

/// Whether basic block `bb` runs correctly in its full-EXEC form whatever EXEC holds at its
/// entry: before its first EXEC write, which is a scalar instruction, there are only
/// scalar instructions that read EXEC from its register (not `s_*_saveexec`, which reads it
/// as the variant's constant), no-ops and waits. The variants differ only in vector and
/// memory instructions and in EXEC reads, and the full one's assumption ends at the write.
fn exec_neutral(region: &[(u64, Inst, Lower)], bb: &Bb) -> bool {
    for &k in &bb.insts {
        let (_, i, l) = &region[k];
        match l {
            Lower::SAlu(SAluOp::Saveexec(_) | SAluOp::Saveexec32(_)) => return false,
            Lower::SAlu(_) if writes_exec(i, *l) => return true,
            Lower::SAlu(_) | Lower::Nop | Lower::Step => {}
            _ => return false,
        }
    }
    false
}

/// The lane mask an instruction of a run writes (an SGPR code below 127), the one it reads
/// as a mask (carry-in, `v_cndmask`'s select), and whether its write merges under EXEC (the
/// carries and `v_mad_u64_u32`; a compare's writes every lane).
fn mask_io((_, i, l): &(u64, Inst, Lower)) -> (Option<usize>, Option<usize>, bool) {
    let (out, inp, merges) = match *l {
        Lower::VAlu(VAluOp::Cndmask) => (None, Some(i.src[2]), false),
        Lower::VAlu(VAluOp::Carry(kind)) => (Some(i.sdst), (kind >= 3).then_some(i.src[2]), true),
        Lower::VAlu(VAluOp::Mad64(_)) => (Some(i.sdst), None, true),
        Lower::VCmp if i.imm >> 9 & 1 == 0 => (Some(i.sdst), None, false),
        _ => (None, None, false),
    };
    (
        out.map(usize::from).filter(|&d| d < 127),
        inp.map(usize::from),
        merges,
    )
}

/// Whether compare `i` is generated as its complement (then its mask negated once): an
/// integer condition x86-64 has no one instruction for (`ne`, signed `le`/`ge`, unsigned
/// `lt`/`gt`).
fn cmp_inverted(i: &Inst) -> bool {
    let (cond, ty) = (i.imm & 31, i.imm >> 5 & 15);
    let signed = matches!(ty, 3 | 4);
    let narrow = matches!(ty, 3 | 4 | 6 | 7)
        && (cond == 5 || matches!((cond, signed), (3 | 6, true) | (1 | 4, false)));
    // 64-bit: the low halves compare unsigned (`cmp64`), so `lt`/`gt`/`ne` invert.
    narrow || (matches!(ty, 5 | 8) && matches!(cond, 1 | 4 | 5))
}

/// The rows of the DS loads of run `ks` (by run position) that may be loaded only where
/// they are read (`Gen::ds_lazy`): every instruction of the run reading the loaded value
/// is a chainable `v_fmac_f32` reading it as a multiplicand (through `lanes`); an
/// instruction that might read it otherwise (a source within the three rows before it:
/// a 64-bit operand) keeps it loaded at the DS instruction.
fn lazy_ds_rows(region: &[(u64, Inst, Lower)], ks: &[usize]) -> HashSet<(usize, usize)> {
    let mut out = HashSet::new();
    for (pos, &k) in ks.iter().enumerate() {
        let (_, i, l) = &region[k];
        if *l != Lower::Mem {
            continue;
        }
        let Some(rows) = lower_mem::ds_load_rows(i) else {
            continue;
        };
        for r in rows {
            let row = VGPR + r as u16;
            // A source that may be read as 64 bits or more (the three rows before it too).
            let near = |c: u16| {
                (VGPR..VGPR + 256).contains(&c) && (r..r + 4).contains(&(reg_index(c) + 3))
            };
            let mut ok = true;
            for &k2 in &ks[pos + 1..] {
                let (_, j, l2) = &region[k2];
                ok &= if fmac_chainable(j, *l2) {
                    // Its multiplicands as 32 bits, through `lanes` (its third source
                    // field is not read).
                    true
                } else if *l2 == Lower::Mem {
                    // A run's DS load reads its address row alone.
                    j.src[0] != row
                } else {
                    !j.src.iter().any(|&c| near(c))
                };
                let writes = if *l2 == Lower::Mem {
                    lower_mem::ds_load_rows(j).is_some_and(|w| w.contains(&r))
                } else {
                    j.dst >= VGPR && reg_index(j.dst) == r
                };
                if !ok || writes {
                    break;
                }
            }
            if ok {
                out.insert((pos, r));
            }
        }
    }
    out
}

/// The run `group_major` may generate group by group from the first of the instructions
/// `ks` (indices into `region`, in order): how many instructions it takes, and how many of
/// them are vector ones. Vector ALU operations and compares (not `v_cmpx`, nothing writing
/// EXEC), where group g of every result depends only on group g of the sources, the scalar
/// ones not written earlier in the run (a run's SGPR writes happen at its end) and the
/// lane-mask ones (carry-in, `v_cndmask`'s select) only as a whole pair a carry or compare
/// wrote (forwarded per group). Between them, generated with the first group: scalar ALU
/// operations that read no SGPR the run writes and write none it writes or has read, and
/// the waits (no registers). The only memory a run touches is its DS loads whose address
/// row has a predicted shape (`run_ds_load`), not written earlier in the run: their checks
/// go before it (`ds_run_checks`), and nothing in a run writes the LDS.
fn lane_run(
    region: &[(u64, Inst, Lower)],
    ks: &[usize],
    wave32: bool,
    on_facts: &HashSet<usize>,
    ds_load: &dyn Fn(&Inst) -> Option<RunDsLoad>,
) -> (usize, usize) {
    // The SGPRs written so far, each with the pair whose forwarded select holds it (none
    // for `v_mad_u64_u32`'s overflow), and those the vector instructions read.
    let mut written: HashMap<usize, Option<usize>> = HashMap::new();
    let mut read = BTreeSet::new();
    // The SGPR codes among `codes` (each with the next one: a pair, conservatively).
    let sgprs = |codes: &[u16]| -> Vec<usize> {
        codes
            .iter()
            .map(|&c| usize::from(c))
            .filter(|&c| c < 128)
            .flat_map(|c| [c, c + 1])
            .collect()
    };
    let (mut end, mut valu) = (0, 0);
    // The VGPR rows the run writes (a vector ALU result's one or two rows, `live.rs`): a
    // later DS load's address row among them ends the run (a `v_fmac_f32` into v5 ended
    // gfx1030 matmul's runs at each load from v7 or v8 when four rows counted).
    let mut rows = HashSet::new();
    for (n, &k) in ks.iter().enumerate() {
        // An instruction lowered on lane-affine facts, alone.
        if on_facts.contains(&k) {
            break;
        }
        let (_, i, l) = &region[k];
        // A DS load with a predicted address shape: lane-wise too (its group g reads
        // group g of the address row and the LDS, which nothing in a run writes), its
        // checks before the run, so its address row not written before it in the run.
        if *l == Lower::Mem {
            match ds_load(i) {
                Some((arow, _, dst)) if !rows.contains(&arow) => {
                    rows.extend(dst);
                    (end, valu) = (n + 1, valu + 1);
                    continue;
                }
                _ => break,
            }
        }
        if i.dst >= VGPR && i.dst < VGPR + 256 {
            let d = reg_index(i.dst);
            let w = match *l {
                Lower::VAlu(op) => usize::from(live::valu_rows(op)),
                _ => 4,
            };
            rows.extend(d..d + w);
        }
        let scalar = match *l {
            // `s_barrier` writes nothing: a run goes on into its tail (`after_barrier`).
            Lower::Nop | Lower::Barrier => Some((vec![], vec![])),
            Lower::Step => Some((sgprs(&[i.dst]), vec![])),
            Lower::SAlu(_) if !writes_exec(i, *l) => {
                Some((sgprs(&[i.src[0], i.src[1], i.dst]), sgprs(&[i.dst])))
            }
            _ => None,
        };
        if let Some((reads, writes)) = scalar {
            if reads.iter().any(|c| written.contains_key(c))
                || writes
                    .iter()
                    .any(|c| written.contains_key(c) || read.contains(c))
            {
                break;
            }
            continue;
        }
        let (mask_in, mask_out, forwarded) = match *l {
            Lower::VAlu(VAluOp::Cndmask) => (Some(usize::from(i.src[2])), None, false),
            Lower::VAlu(VAluOp::Carry(kind)) => (
                (kind >= 3).then_some(usize::from(i.src[2])),
                Some(usize::from(i.sdst)),
                true,
            ),
            Lower::VAlu(VAluOp::Mad64(_)) => (None, Some(usize::from(i.sdst)), false),
            Lower::VAlu(VAluOp::DivScale) => (None, Some(usize::from(i.sdst)), true),
            // It may leave the region, which nothing in a run does.
            Lower::VAlu(VAluOp::DivFmas) => break,
            Lower::VAlu(_) => (None, None, false),
            Lower::VCmp if i.imm >> 9 & 1 == 0 => (None, Some(usize::from(i.sdst)), true),
            _ => break,
        };
        if writes_exec(i, *l) {
            break;
        }
        let stale = |c: usize| written.contains_key(&c) || written.contains_key(&(c + 1));
        // The select (source 2) reads a mask the run wrote through its forwarded pair (below);
        // any other source reads the SGPR as a value, which the run writes only at its end
        // (`v_cndmask_b32 v10, s0, s32, s0` after a compare into s0 read s0's old value).
        if (0..3).any(|s| {
            let c = usize::from(i.src[s]);
            c < 128 && !(s == 2 && mask_in == Some(c)) && stale(c)
        }) {
            break;
        }
        if let Some(m) = mask_in {
            if [m, m + 1]
                .iter()
                .any(|c| written.get(c).is_some_and(|&pair| pair != Some(m)))
            {
                break;
            }
        }
        // A pair reaching EXEC is left to the lowering one instruction at a time.
        if mask_out.is_some_and(|d| (125..127).contains(&d)) {
            break;
        }
        read.extend(sgprs(&i.src));
        if let Some(d) = mask_out.filter(|&d| d < 127) {
            let pair = forwarded.then_some(d);
            written.insert(d, pair);
            if !(wave32 && *l == Lower::VCmp) {
                written.insert(d + 1, pair);
            }
        }
        (end, valu) = (n + 1, valu + 1);
    }
    (end, valu)
}

#[derive(Clone, Copy)]
enum IntShift {
    Shl,
    Lshr,
    Ashr,
}

/// Source `k`'s value when it is a constant (an inline integer or the literal), as
/// `Wave::sread` reads it for a 32-bit operand.
fn const_operand(i: &Inst, k: usize) -> Option<u32> {
    match i.src[k] {
        c @ 128..=192 => Some(u32::from(c - 128)),
        c @ 193..=208 => Some((-(i32::from(c) - 192)) as u32),
        c @ 240..=248 => Some(inline_float(c, i.tys[k]) as u32),
        255 => Some(i.lit),
        _ => None,
    }
}

/// A 64-bit scalar source's value when it is a constant (`None` for an SGPR pair, codes
/// 0–126), as `Wave::sread64` reads it.
fn const64(code: u16, lit: u32, ty: Ty) -> Option<u64> {
    Some(match code {
        0..=126 => return None,
        128..=192 => u64::from(code - 128),
        193..=208 => (-(i64::from(code) - 192)) as u64,
        240..=248 => inline_float(code, ty),
        _ if ty == Ty::F64 => u64::from(lit) << 32,
        _ => u64::from(lit),
    })
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

/// Which compares `lower` admits: 16-, 32- and 64-bit integer and f32 types, every condition
/// but the constant ones (F, T/TRU) and the class test; `v_cmp` and `v_cmpx`.
/// `isa`'s compare condition `Class` (`v_cmp_class_*`).
const CLASS: i32 = 16;

pub(super) fn compare_supported(imm: i32) -> bool {
    let (cond, ty) = (imm & 31, imm >> 5 & 15);
    match ty {
        1 => (1..=14).contains(&cond) || cond == CLASS,
        3..=8 => (1..=6).contains(&cond),
        _ => false,
    }
}
