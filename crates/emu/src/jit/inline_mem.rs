//! Memory instructions generated inline in a compiled region, with the call of
//! `lower_mem.rs` as their fallback.
//!
//! - **The windows.** The worker's region cache holds `jit::WINDOWS` mapped ranges
//!   (`RegionCache::windows`: base, end, writable, the memory map's generation), one per
//!   memory instruction by its address (`slot_of`; `Gen::slot` probes past the windows its
//!   region's other memory instructions took), so a kernel streaming through several
//!   buffers keeps one window per access and they outlast a region's run. An inline access
//!   computes the whole range the instruction touches, checks that the map's generation is
//!   unchanged and that the range lies in its window (writable for a store); when it does
//!   not, [`refresh`] asks the region cache (`RegionCache::check`, the interpreter's own
//!   check) and takes its answer as the new window. When that fails too, or the addresses
//!   do not have the shape handled here, the instruction is the call of `lower_mem.rs`
//!   (which runs the interpreter's fast path or exits the region before it, so faults keep
//!   the interpreter's reports). Compiled code touches only memory a check covered.
//! - **SMEM** `s_load_dword*`/`s_buffer_load_dword*` (1–16 dwords): the address as
//!   `exec::smem` computes it, one check, then dword loads into the SGPR variables.
//! - **GLOBAL/FLAT** dword loads and stores (×1–4), every lane's address `B + V` (a 64-bit
//!   base and a 32-bit lane part): the `off` and FLAT forms take the high halves, which must
//!   all be equal, into `B`; the SGPR-base form has `B = SGPR pair + offset`. Three shapes,
//!   tried in order:
//!   1. a single-dword access whose lanes are all consecutive (`V = V0 + 4·lane`, no 32-bit
//!      wrap, the high halves all lane 0's): `[B + V0, + 4·lanes)` checked, then one 16-byte
//!      move per four lanes. Tested in one pass over the rows (each group XOR what lane 0
//!      implies, ORed); the general test reads the rows again (held across, they spilled);
//!   2. otherwise the lanes' lowest and highest address (vector min/max, then across the
//!      vector) bound one range check; a single-dword access whose lane groups are each a
//!      run of four consecutive dwords (a row of 16 work-items, say) then moves each group
//!      with one 16-byte access at its first lane's address, and a load of 3 or 4 dwords
//!      through such lanes (a stencil's, each lane's dwords overlapping the next lane's)
//!      loads its component `k` so, 4k bytes further; a load of 4 dwords whose lane groups
//!      are each a run of four consecutive 16-byte elements (a `float4` per work-item)
//!      loads each group's 64 bytes in four 16-byte loads and transposes them into the rows;
//!   3. else each lane makes its own accesses, in a loop over the lanes through stack
//!      copies of the rows (dwordx2 as one 8-byte access, as the interpreter's `qwords`).
//!
//!   Byte and short loads into a whole VGPR (`global_load_{u,s}{byte,short}`, FLAT too;
//!   `vmem::global_narrow`) take the general range check, each lane's 1 or 2 bytes zero-
//!   or sign-extended to 32 bits; when every lane group is a run of four consecutive
//!   elements (work-items reading a byte array in order, as the histogram does) one 4- or
//!   8-byte load per group widened by vector instructions, else the lane loop; shorts must
//!   be 2-byte aligned, else the call. The d16 forms and sub-dword stores are calls.
//!
//!   FLAT addresses must lie below the LDS and private apertures. Addresses must be dword
//!   aligned (8-byte for dwordx2), else the call. Aligned 4- and 8-byte x86-64 moves and
//!   4-byte-aligned 16-byte moves keep the interpreter's per-dword (per-qword for dwordx2)
//!   single-copy atomicity and TSO order. Every lane's address (active or not) must be in
//!   the checked range. Loads under a partial EXEC read every lane and blend under EXEC;
//!   stores move whole lane groups only under a full EXEC (known in the full-EXEC variant,
//!   tested at run time in the other), else the lane loop skips the inactive lanes; no
//!   store runs inline with the verify journal (tested at run time). A store sets
//!   `Wave::stored` as the interpreter's does; `lane_ops` counts the active lanes; a load
//!   sets the region cache's `last_load` (the watchdog's report) to its lowest address.
//! - **Waits.** `s_waitcnt` is decided at compile time: only a `vmcnt(0)` wait on GFX9
//!   (and `s_waitcnt_vscnt` with a count of 0 on GFX10) tests `Wave::stored` and fences
//!   when it is set, as `exec::sopp` does; any other wait is no code at all.

use super::super::{mf, Gen};
use crate::decode::{flag, Fmt, Inst, Kind, VGPR};
use crate::jit::{CallCtx, Lower, Window, WINDOWS};
use crate::memory::{PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};
use crate::ops::Op;
use crate::wave::{inline_int, reg_index, Ty, Wave, VREGS};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, Block, BlockArg, Endianness, InstBuilder, MemFlags, Signature, StackSlotData,
    StackSlotKind, Value,
};
use std::collections::HashMap;
use std::mem::offset_of;

/// Checks `[addr, addr + len)` with the region cache (a store when `write` is 1) and, when
/// it is accessible, makes the region holding it window `slot`: 1 when the compiled code may
/// now access it inline, else 0 (the call path then runs the instruction).
///
/// # Safety
/// `ctx` is the live `CallCtx` of the running region (`Block::run`), `slot` < `WINDOWS`.
unsafe extern "C" fn refresh(ctx: *mut CallCtx, slot: u32, addr: u64, len: u64, write: u32) -> u32 {
    // SAFETY: as the function's contract says; `Block::run` made `env` from a live exclusive
    // borrow that outlasts the region's run, and the region's code is stopped.
    let env = unsafe { &mut *(*ctx).env };
    let write = write != 0;
    if !env.cache.check(env.mem, addr, len, write) {
        return 0;
    }
    // The check may answer from a range it does not cache (a system range holding
    // registered ones): then the call path runs the instruction.
    let Some((r, generation)) = env.cache.front().filter(|(r, _)| r.covers(addr, len)) else {
        return 0;
    };
    let writable = r.access != crate::memory::Access::Read;
    env.cache.windows[slot as usize % WINDOWS] = Window {
        base: r.base,
        end: r.base + r.len,
        writable: u64::from(writable),
        generation,
    };
    u32::from(!write || writable)
}

/// Whether accesses are generated inline: unless `HSAEMU_JIT_INLINE=0` (which keeps every
/// one a call, for measuring the difference).
fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("HSAEMU_JIT_INLINE").map_or(true, |v| v.trim() != "0"))
}

/// The window a memory instruction at `pc` prefers.
fn slot_of(pc: u64) -> usize {
    (pc / 8) as usize % WINDOWS
}

/// The window for a memory instruction at `pc`: the first one from its preferred one that
/// is not `taken`, or its preferred one when all are.
fn free_slot(pc: u64, taken: impl Fn(usize) -> bool) -> usize {
    let first = slot_of(pc);
    (0..WINDOWS)
        .map(|k| (first + k) % WINDOWS)
        .find(|&s| !taken(s))
        .unwrap_or(first)
}

/// An SMEM load's part in a group of loads from one SGPR base pair in one basic block (the
/// kernel argument loads at a kernel's start): the first checks the group's whole range once,
/// the others skip their own check when that one held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::jit) enum SmemShare {
    /// The group's first load; the group's bytes are `[lo, hi)` from the base pair's
    /// dword-aligned address.
    Leader { lo: i64, hi: i64 },
    /// A later load of the group whose first load is at this address.
    Follower(u64),
}

/// An SMEM load whose address is a base pair plus a constant (`s_load_dword*` with an
/// immediate offset, no SGPR offset): (base pair code, offset, dwords), as `mem_smem`
/// computes its address.
fn smem_shareable(i: &Inst, l: Lower) -> Option<(u16, i64, i64)> {
    let (n, buffer) = super::smem_load(i).filter(|_| l == Lower::Mem)?;
    let soffset = !i.has(flag::IMM) || i.has(flag::SOE);
    // A base pair below VCC: every instruction that writes one names it as `dst` or `sdst`.
    let ok = !buffer && !soffset && i.src[0] <= 104 && usize::from(i.dst) + n <= 126;
    ok.then(|| (i.src[0], i64::from(i.imm) & !3, 4 * n as i64))
}

/// The SMEM loads that share a range check (`SmemShare`), by address: the loads from one
/// base pair until an instruction may write that pair (a load into it ends its group after
/// itself), in a basic block (`bbs`: each one's region indices, the basic blocks in address
/// order) and on into the next one when that is no branch's target (only the first one's
/// end reaches it, past a conditional branch or an EXEC write). Anything but ALU
/// instructions, waits, conditional branches and these loads ends every group.
pub(in crate::jit) fn smem_groups<'a>(
    region: &[(u64, Inst, Lower)],
    bbs: impl Iterator<Item = &'a [usize]>,
) -> HashMap<u64, SmemShare> {
    let targets: std::collections::HashSet<u64> = region
        .iter()
        .filter(|(_, _, l)| matches!(l, Lower::Branch(_)))
        .map(|(pc, i, _)| crate::jit::branch_target(*pc, i))
        .collect();
    let mut out = HashMap::new();
    // Open groups by base pair: (first load's address, lo, hi).
    let mut open: HashMap<u16, (u64, i64, i64)> = HashMap::new();
    let mut next = None;
    for insts in bbs {
        for (n, &k) in insts.iter().enumerate() {
            let (pc, i, l) = &region[k];
            if next != Some(*pc) || n == 0 && targets.contains(pc) {
                open.clear();
            }
            next = Some(pc + u64::from(i.size));
            let writes: Vec<u16> = if let Some((base, off, len)) = smem_shareable(i, *l) {
                match open.get_mut(&base) {
                    Some(g) => {
                        (g.1, g.2) = (g.1.min(off), g.2.max(off + len));
                        out.insert(*pc, SmemShare::Follower(g.0));
                        out.insert(g.0, SmemShare::Leader { lo: g.1, hi: g.2 });
                    }
                    None => {
                        open.insert(base, (*pc, off, off + len));
                    }
                }
                (i.dst..i.dst + (len / 4) as u16).collect()
            } else {
                match l {
                    // A 32-bit scalar result writes one SGPR (`s_mov_b32 s3, 0` beside
                    // s[4:5] leaves the pair alone).
                    Lower::SAlu(op) if !op.wide() => vec![i.dst],
                    Lower::SAlu(_) => vec![i.dst, i.dst + 1],
                    Lower::VAlu(_)
                    | Lower::VCmp
                    | Lower::ReadFirstLane
                    | Lower::ReadLane
                    | Lower::Nop
                    | Lower::Step => [i.dst, i.dst + 1, i.sdst, i.sdst + 1].to_vec(),
                    Lower::Branch(c) if *c != 0 => Vec::new(),
                    _ => {
                        open.clear();
                        Vec::new()
                    }
                }
            };
            open.retain(|&b, _| !writes.contains(&b) && !writes.contains(&(b + 1)));
        }
    }
    out
}

/// GLOBAL/FLAT dword loads of one VGPR whose row a later instruction of their basic block
/// (`bbs`: each one's region indices) reads with nothing between that may call or leave for
/// the interpreter (only ALU instructions and waits): their groups reach the code after them
/// as values, parameters of the access's join, where they were stored into the `Wave` and
/// loaded again. Only then: a value held across a call is spilled, and the spill costs what
/// the reload saves. (Byte and short loads too cost gfx90a's histogram about 1 % in the
/// bench, within its noise; left out.)
pub(in crate::jit) fn kept_loads<'a>(
    region: &[(u64, Inst, Lower)],
    bbs: impl Iterator<Item = &'a [usize]>,
) -> std::collections::HashSet<u64> {
    let mut out = std::collections::HashSet::new();
    for insts in bbs {
        for (n, &k) in insts.iter().enumerate() {
            let (pc, i, l) = &region[k];
            let load = *l == Lower::Mem
                && matches!(i.fmt, Fmt::Global | Fmt::Flat)
                && i.mem.kind == Kind::Load
                && i.mem.count == 1
                && i.mem.bytes == 4
                && (VGPR..VGPR + 256).contains(&i.dst);
            if !load {
                continue;
            }
            let row = reg_index(i.dst);
            for &j in &insts[n + 1..] {
                let (_, u, ul) = &region[j];
                // A 64-bit source may start one row below.
                let reads = u
                    .src
                    .iter()
                    .any(|&c| c >= VGPR && (reg_index(c) == row || reg_index(c) + 1 == row));
                let alu = matches!(
                    ul,
                    Lower::VAlu(_) | Lower::VCmp | Lower::SAlu(_) | Lower::Nop
                );
                let wait =
                    *ul == Lower::Step && matches!(u.op, Op::S_WAITCNT | Op::S_WAITCNT_VSCNT);
                if reads && alu {
                    out.insert(*pc);
                }
                if reads || !(alu || wait) || alu && u.dst >= VGPR && reg_index(u.dst) == row {
                    break;
                }
            }
        }
    }
    out
}

/// A field of window `slot`, as an offset from `CallCtx::windows`.
const fn win(slot: usize, field: usize) -> i32 {
    (slot * std::mem::size_of::<Window>() + field) as i32
}

/// A field of `CallCtx`, as an offset from its pointer.
macro_rules! ctx_field {
    ($f:ident) => {
        offset_of!(CallCtx, $f) as i32
    };
}

/// Memory flags of inline accesses: after their range check they cannot trap.
fn data() -> MemFlags {
    MemFlags::new().with_notrap()
}

/// How a GLOBAL/FLAT instruction's lanes address memory: lane `l` at `B + V[l]`.
struct Lanes {
    /// `B`, 64 bits.
    base: Value,
    /// `V` per lane group (`i32x4`).
    v: Vec<Value>,
    /// All lanes' high halves equal (the forms with a 64-bit VGPR address), an `i8`.
    ok: Value,
}

impl Gen<'_> {
    /// The window of the memory instruction at `pc`: its preferred one unless another
    /// memory instruction of this region has it, then the next free one (instructions of
    /// one region that shared a window would refresh it in turn on every run).
    fn slot(&mut self, pc: u64) -> usize {
        if let Some(&s) = self.slots.get(&pc) {
            return s;
        }
        let s = free_slot(pc, |s| self.slots.values().any(|&t| t == s));
        self.slots.insert(pc, s);
        s
    }

    /// Generates `i` (lowered as `l`) inline, the call of `lower_mem.rs` as its fallback;
    /// false (nothing generated) when it has no inline form here.
    pub(super) fn inline_mem(&mut self, pc: u64, i: &Inst, l: Lower) -> bool {
        if !enabled() {
            return false;
        }
        match (l, i.fmt) {
            (Lower::Step, _) => self.mem_wait(i),
            (Lower::Mem, Fmt::Smem) => self.mem_smem(pc, i),
            // Atomics are calls (`lower_mem.rs`).
            (Lower::Mem, Fmt::Global | Fmt::Flat) if i.mem.kind != Kind::Atomic => {
                self.mem_vmem(pc, i)
            }
            _ => false,
        }
    }

    fn mem_ptr_ty(&self) -> types::Type {
        self.b.func.dfg.value_type(self.ctx)
    }

    /// Whether wait `i` is generated as no code at all (`mem_wait`): a run's group pass
    /// goes on across it (`lower.rs`'s `group_major`).
    pub(crate) fn wait_is_no_code(i: &Inst) -> bool {
        let k = i.imm as u32;
        let vmcnt = (k & 0xf) | (k >> 14 & 3) << 4;
        // GFX10 counts stores in vscnt, so no `s_waitcnt` fences there.
        enabled() && i.op == Op::S_WAITCNT && (vmcnt != 0 || i.gen.is_rdna())
    }

    /// Whether wait `i` is generated inline (`mem_wait`, no call): it reads no row, so a
    /// run's group pass goes on across it with its rows unstored (`lower.rs`'s
    /// `group_major`; gfx1030 matmul's `s_waitcnt_vscnt`s around its second barrier stored
    /// group 0's 18 dead DS rows, 12 L1 write misses per call).
    pub(crate) fn wait_is_inline(i: &Inst) -> bool {
        enabled() && (i.op == Op::S_WAITCNT || i.op == Op::S_WAITCNT_VSCNT && i.dst <= 208)
    }

    /// The waits: `exec::sopp`'s `S_WAITCNT` and `rdna`'s `S_WAITCNT_VSCNT`.
    fn mem_wait(&mut self, i: &Inst) -> bool {
        let konst = inline_int(i.dst);
        let count = match i.op {
            Op::S_WAITCNT => {
                if Self::wait_is_no_code(i) {
                    return true;
                }
                None
            }
            // A constant operand (`null` in compiler output): the count is known here, so
            // only `Wave::stored` is tested (or nothing: a count other than 0 never fences).
            Op::S_WAITCNT_VSCNT if konst.is_some() => {
                let k = konst.unwrap_or_default() as u32;
                if k.wrapping_add(i.imm as u32) & 0x3f != 0 {
                    return true;
                }
                None
            }
            Op::S_WAITCNT_VSCNT if i.dst <= 208 => {
                let s = self.scalar(i.dst, 0, Ty::B32);
                let c = self.b.ins().iadd_imm(s, i64::from(i.imm));
                let c = self.b.ins().band_imm(c, 0x3f);
                Some(c)
            }
            _ => return false,
        };
        if self.stored_clear {
            // Nothing to fence: an earlier wait of this basic block cleared `stored` and
            // nothing stored since (gfx1030 matmul's DS/FMA region tested it three times a call).
            return true;
        }
        let (wave, w) = self.wave_ptr();
        let stored_at = w + offset_of!(Wave, stored) as i32;
        let stored = self.b.ins().load(types::I8, mf(), wave, stored_at);
        let mut fence = self.b.ins().icmp_imm(IntCC::NotEqual, stored, 0);
        if let Some(c) = count {
            let zero = self.b.ins().icmp_imm(IntCC::Equal, c, 0);
            fence = self.b.ins().band(fence, zero);
        }
        let was = self.on_line();
        let (fence_blk, done) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(fence, fence_blk, &[], done, &[]);
        // The block before dominates both, so the values kept of it stay usable (a run's
        // group pass keeps its rows across the wait: `wait_is_inline`).
        self.b.switch_to_block(fence_blk);
        // R5, the StoreLoad point (amdgpu-execution.md §0.1); the `no-storeload-fence` test
        // feature leaves it out, as the interpreter does.
        if !cfg!(feature = "no-storeload-fence") {
            self.b.ins().fence();
        }
        let zero = self.b.ins().iconst(types::I8, 0);
        self.b.ins().store(mf(), zero, wave, stored_at);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.rejoin(was);
        // Without a count, `stored` is false on both ways here.
        self.stored_clear = count.is_none();
        true
    }

    /// Whether `[lo, lo + len)` lies in window `slot` (writable for a store), as an `i8`.
    fn window_check(&mut self, slot: usize, lo: Value, len: Value, store: bool) -> Value {
        let ctx = self.ctx;
        let ptr = self.mem_ptr_ty();
        let wins = self.b.ins().load(ptr, mf(), ctx, ctx_field!(windows));
        let ld = |g: &mut Self, ty, off| g.b.ins().load(ty, mf(), wins, off);
        let base = ld(self, types::I64, win(slot, offset_of!(Window, base)));
        let end = ld(self, types::I64, win(slot, offset_of!(Window, end)));
        let gen = ld(self, types::I64, win(slot, offset_of!(Window, generation)));
        let map_gen = self
            .b
            .ins()
            .load(ptr, mf(), ctx, ctx_field!(map_generation));
        let now = self.b.ins().load(types::I64, mf(), map_gen, 0);
        let mut ok = self.b.ins().icmp(IntCC::Equal, gen, now);
        for c in [
            self.b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, lo, base),
            self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, lo, end),
        ] {
            ok = self.b.ins().band(ok, c);
        }
        let room = self.b.ins().isub(end, lo);
        let fits = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, room, len);
        ok = self.b.ins().band(ok, fits);
        if store {
            let w = ld(self, types::I64, win(slot, offset_of!(Window, writable)));
            let w = self.b.ins().icmp_imm(IntCC::NotEqual, w, 0);
            ok = self.b.ins().band(ok, w);
            // `HSAEMU_JIT=verify`'s journal: its stores go through the call, which notes
            // what they overwrite.
            let j = self.b.ins().load(ptr, mf(), ctx, ctx_field!(journal));
            let none = self.b.ins().icmp_imm(IntCC::Equal, j, 0);
            ok = self.b.ins().band(ok, none);
        }
        ok
    }

    /// Branches to `fast` when `shape` (the addresses have a form handled inline) holds and
    /// `[lo, lo + len)` is in window `slot`, or is after a [`refresh`]; to `slow` otherwise.
    #[allow(clippy::too_many_arguments)]
    fn window_guard(
        &mut self,
        slot: usize,
        shape: Value,
        lo: Value,
        len: Value,
        store: bool,
        fast: Block,
        slow: Block,
    ) {
        let inside = self.window_check(slot, lo, len, store);
        let hit = self.b.ins().band(shape, inside);
        let miss = self.b.create_block();
        self.b.ins().brif(hit, fast, &[], miss, &[]);
        self.enter(miss);
        let again = self.b.create_block();
        self.b.ins().brif(shape, again, &[], slow, &[]);
        self.enter(again);
        let ptr = self.mem_ptr_ty();
        let mut sig = Signature::new(self.b.func.signature.call_conv);
        for t in [ptr, types::I32, types::I64, types::I64, types::I32] {
            sig.params.push(AbiParam::new(t));
        }
        sig.returns.push(AbiParam::new(types::I32));
        let sig = self.b.import_signature(sig);
        let f: unsafe extern "C" fn(*mut CallCtx, u32, u64, u64, u32) -> u32 = refresh;
        let f = self.b.ins().iconst(ptr, f as usize as i64);
        let k = self.b.ins().iconst(types::I32, slot as i64);
        let w = self.b.ins().iconst(types::I32, i64::from(store));
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.ctx, k, lo, len, w]);
        let ok = self.b.inst_results(call)[0];
        self.b.ins().brif(ok, fast, &[], slow, &[]);
    }

    /// Sets the region cache's `last_load` to `addr`, as the interpreter's check of a load.
    fn note_last_load(&mut self, addr: Value) {
        let ptr = self.mem_ptr_ty();
        let p = self
            .b
            .ins()
            .load(ptr, mf(), self.ctx, ctx_field!(last_load));
        self.b.ins().store(mf(), addr, p, 0);
    }

    /// The call path for `i` in a new block `slow`, continuing at `done`.
    fn mem_slow_path(&mut self, slow: Block, done: Block, pc: u64, i: &Inst) {
        self.enter(slow);
        self.call_path(pc, i, Lower::Mem);
        let args = self.done_args();
        self.b.ins().jump(done, &args);
    }

    /// `s_load_dword*` and `s_buffer_load_dword*` (`exec::smem`).
    fn mem_smem(&mut self, pc: u64, i: &Inst) -> bool {
        let Some((n, buffer)) = super::smem_load(i) else {
            return false;
        };
        let soffset = !i.has(flag::IMM) || i.has(flag::SOE);
        let soffset_ok = i.ext <= 208;
        // The base an SGPR pair, the destination below EXEC (a region's EXEC stays its own).
        if i.src[0] >= 126 || usize::from(i.dst) + n > 126 || (soffset && !soffset_ok) {
            return false;
        }
        let mut addr = self.sgpr64(usize::from(i.src[0]));
        if buffer {
            addr = self.b.ins().band_imm(addr, 0xffff_ffff_ffff);
        }
        addr = self.b.ins().band_imm(addr, !3);
        let aligned = addr;
        if i.has(flag::IMM) {
            addr = self.b.ins().iadd_imm(addr, i64::from(i.imm) & !3);
        }
        if soffset {
            let s = self.scalar(i.ext as u16, 0, Ty::B32);
            let s = self.b.ins().band_imm(s, !3);
            let s = self.b.ins().uextend(types::I64, s);
            addr = self.b.ins().iadd(addr, s);
        }
        let (fast, slow, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        // The loaded SGPRs reach `done` as its parameters, so the code after the load keeps
        // them in registers (read again from the `Wave`, each waited for its store there:
        // the start of every wave's address arithmetic), and the SGPR values from before
        // the load stay valid there (this block dominates it; the load writes only its
        // destination).
        let dst = usize::from(i.dst);
        let outs: Vec<Value> = (0..n)
            .map(|_| self.b.append_block_param(done, types::I32))
            .collect();
        let mut kept = self.scache.clone();
        kept.retain(|&c, _| !(dst..dst + n).contains(&c));
        let was = self.on_line();
        let len = self.b.ins().iconst(types::I64, 4 * n as i64);
        let yes = self.b.ins().iconst(types::I8, 1);
        let slot = self.slot(pc);
        match self.smem_share.get(&pc).copied() {
            Some(SmemShare::Leader { lo, hi }) => {
                // The group's whole range: when it is in the window, the group's later loads
                // need no check of their own (nothing between writes the base pair).
                // One variable for both variants: whichever way a path came from this load
                // to a later one of its group, its value there is this load's answer.
                let ok = match self.smem_ok.get(&pc) {
                    Some(&v) => v,
                    None => {
                        let v = self.b.declare_var(types::I8);
                        self.smem_ok.insert(pc, v);
                        v
                    }
                };
                let start = self.b.ins().iadd_imm(aligned, lo);
                let whole = self.b.ins().iconst(types::I64, hi - lo);
                let inside = self.window_check(slot, start, whole, false);
                let (shared, own) = (self.b.create_block(), self.b.create_block());
                self.b.ins().brif(inside, shared, &[], own, &[]);
                self.enter(shared);
                let one = self.b.ins().iconst(types::I8, 1);
                self.b.def_var(ok, one);
                self.b.ins().jump(fast, &[]);
                self.enter(own);
                let zero = self.b.ins().iconst(types::I8, 0);
                self.b.def_var(ok, zero);
                self.window_guard(slot, yes, addr, len, false, fast, slow);
            }
            Some(SmemShare::Follower(first)) if self.smem_ok.contains_key(&first) => {
                let ok = self.b.use_var(self.smem_ok[&first]);
                let own = self.b.create_block();
                self.b.ins().brif(ok, fast, &[], own, &[]);
                self.enter(own);
                self.window_guard(slot, yes, addr, len, false, fast, slow);
            }
            _ => self.window_guard(slot, yes, addr, len, false, fast, slow),
        }
        self.enter(fast);
        self.note_last_load(addr);
        let vals: Vec<Value> = (0..n)
            .map(|k| {
                self.b
                    .ins()
                    .load(types::I32, data().with_aligned(), addr, 4 * k as i32)
            })
            .collect();
        // Set at `done` (`set_sgpr`): pending there, on the line.
        let args: Vec<BlockArg> = vals.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(done, &args);
        // The call path, its results read from the `Wave`.
        self.enter(slow);
        self.call_path(pc, i, Lower::Mem);
        let args: Vec<BlockArg> = (0..n)
            .map(|k| BlockArg::Value(self.sgpr(dst + k)))
            .collect();
        self.b.ins().jump(done, &args);
        self.enter(done);
        self.rejoin(was);
        self.scache = kept;
        // The call path stored its results; pending, they are stored again (the same).
        for (k, x) in outs.into_iter().enumerate() {
            self.set_sgpr(dst + k, x);
        }
        true
    }

    /// A GLOBAL/FLAT access's base plus its offset: the SGPR pair of `saddr`, or `hi` (lane
    /// 0's high address half, the same in every lane) shifted into place.
    fn vmem_base(&mut self, i: &Inst, hi: Option<Value>) -> Value {
        let base = match hi {
            None => self.sgpr64(usize::from(i.src[2])),
            Some(h0) => {
                let h = self.b.ins().uextend(types::I64, h0);
                self.b.ins().ishl_imm(h, 32)
            }
        };
        self.b.ins().iadd_imm(base, i64::from(i.imm))
    }

    /// The lanes' addresses of a GLOBAL/FLAT instruction as `B + V` (`vmem::global_addrs`,
    /// `flat_addrs`), or `None` for a form left to the call.
    fn vmem_lanes(&mut self, i: &Inst) -> Option<Lanes> {
        let off = i64::from(i.imm);
        let row = reg_index(i.src[0]);
        // The low rows after the high rows' test: loaded before it, all of them were live
        // across it and spilled to the stack.
        let lows =
            |g: &mut Self| -> Vec<Value> { (0..g.groups).map(|k| g.vgroup(row, k)).collect() };
        if i.fmt == Fmt::Global && i.src[2] != 0x7f {
            if i.src[2] >= 126 {
                return None;
            }
            let base = self.sgpr64(usize::from(i.src[2]));
            let base = self.b.ins().iadd_imm(base, off);
            let ok = self.b.ins().iconst(types::I8, 1);
            let v = lows(self);
            return Some(Lanes { base, v, ok });
        }
        // A 64-bit address in a VGPR pair (the high row wraps as the interpreter's).
        let hi_row = (row + 1) % VREGS;
        let h: Vec<Value> = (0..self.groups).map(|g| self.vgroup(hi_row, g)).collect();
        let h0 = self.b.ins().extractlane(h[0], 0);
        let h0s = self.shuffle32(h[0], h[0], [0, 0, 0, 0]);
        let mut same = None;
        for &x in &h {
            let e = self.b.ins().icmp(IntCC::Equal, x, h0s);
            same = Some(match same {
                None => e,
                Some(s) => self.b.ins().band(s, e),
            });
        }
        let ok = self.b.ins().vall_true(same.expect("a lane group"));
        let base = self.b.ins().uextend(types::I64, h0);
        let base = self.b.ins().ishl_imm(base, 32);
        let base = self.b.ins().iadd_imm(base, off);
        let v = lows(self);
        Some(Lanes { base, v, ok })
    }

    /// A horizontal reduction of `xs` (`i32x4` each) by `op` (a lane-wise vector operation).
    /// The last four lanes are folded in the vector (lanes 2–3 onto 0–1, then lane 1 onto
    /// 0: two `pshufd`s and two operations) and lane 0 taken: extracting each lane and
    /// folding them as scalars cost ten instructions for `umin`/`umax` (a compare and a
    /// `cmov` each), five now, and every checked access reduces two or three.
    pub(super) fn reduce_lanes(
        &mut self,
        xs: &[Value],
        op: fn(&mut Self, Value, Value) -> Value,
    ) -> Value {
        let mut acc = xs[0];
        for &x in &xs[1..] {
            acc = op(self, acc, x);
        }
        let high = self.shuffle32(acc, acc, [2, 3, 2, 3]);
        acc = op(self, acc, high);
        let one = self.shuffle32(acc, acc, [1, 1, 1, 1]);
        acc = op(self, acc, one);
        self.b.ins().extractlane(acc, 0)
    }

    /// GLOBAL/FLAT dword loads and stores and byte/short loads (`vmem::global_dwords`,
    /// `global_narrow`).
    fn mem_vmem(&mut self, pc: u64, i: &Inst) -> bool {
        let m = i.mem;
        let store = m.kind == Kind::Store;
        let count = usize::from(m.count);
        let data_first = if store { i.src[1] } else { i.dst };
        // A byte or short load into a whole VGPR (the d16 halves are calls).
        let narrow = (m.bytes == 1 || m.bytes == 2) && count == 1 && !store && m.d16 == 0;
        let dwords = m.bytes == 4 && (1..=4).contains(&count);
        if !(narrow || dwords) || !(VGPR..VGPR + 256).contains(&data_first) {
            return false;
        }
        let size = i64::from(m.bytes) * count as i64;
        // An SGPR base beyond the SGPR pairs: the call.
        if i.fmt == Fmt::Global && i.src[2] != 0x7f && i.src[2] >= 126 {
            return false;
        }
        // A store by lane groups writes every lane: only when EXEC is full (at run time in
        // the general variant); its lane loop skips inactive lanes.
        let masked = (store && !self.full).then(|| self.exec64());
        let full = masked.map(|exec| {
            let all = self.wave_lanes() as i64;
            self.b.ins().icmp_imm(IntCC::Equal, exec, all)
        });
        let rows: Vec<usize> = (0..count)
            .map(|k| reg_index(data_first + k as u16))
            .collect();
        let was = self.on_line();
        let (fast, slow, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        // A row read soon after (`kept_loads`): its groups reach `done` as values.
        self.kept_row = (!store && count == 1 && self.kept.contains(&pc)).then_some(rows[0]);
        if self.kept_row.is_some() {
            for _ in 0..self.groups {
                self.b.append_block_param(done, types::I32X4);
            }
        }
        if count == 1 && dwords {
            let slot = self.slot(pc);
            self.tile_fact_access(slot, i, full, rows[0], store, done);
            self.consecutive(slot, i, full, rows[0], store, done);
            self.tile_rows(slot, i, full, rows[0], store, done);
        }
        // Read again from the `Wave` in the block the consecutive test left for (kept
        // from before it, the rows were live across it and spilled on every run).
        let lanes = self.vmem_lanes(i).expect("an SGPR pair base");
        // The lanes' lowest and highest address and their alignment (every lane's, active
        // or not: a load reads them all and blends under EXEC).
        let umin = |g: &mut Self, a, b| g.b.ins().umin(a, b);
        let umax = |g: &mut Self, a, b| g.b.ins().umax(a, b);
        let or = |g: &mut Self, a, b| g.b.ins().bor(a, b);
        let vmin = self.reduce_lanes(&lanes.v, umin);
        let vmax = self.reduce_lanes(&lanes.v, umax);
        let vor = self.reduce_lanes(&lanes.v, or);
        let align = if narrow {
            size - 1
        } else if count == 2 {
            7
        } else {
            3
        };
        let vor = self.b.ins().uextend(types::I64, vor);
        let low = self.b.ins().bor(vor, lanes.base);
        let low = self.b.ins().band_imm(low, align);
        let aligned = self.b.ins().icmp_imm(IntCC::Equal, low, 0);
        let vmin = self.b.ins().uextend(types::I64, vmin);
        let vmax = self.b.ins().uextend(types::I64, vmax);
        let amin = self.b.ins().iadd(lanes.base, vmin);
        let amax = self.b.ins().iadd(lanes.base, vmax);
        // Lanes on both sides of the top of the address space: the call.
        let ordered = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, amin, amax);
        let shape = self.b.ins().band(aligned, ordered);
        let mut shape = self.b.ins().band(shape, lanes.ok);
        if i.fmt == Fmt::Flat {
            let global = self.below_apertures(amax, size);
            shape = self.b.ins().band(shape, global);
        }
        let span = self.b.ins().isub(amax, amin);
        let len = self.b.ins().iadd_imm(span, size);
        let slot = self.slot(pc);
        self.window_guard(slot, shape, amin, len, store, fast, slow);
        self.enter(fast);
        if !store {
            self.note_last_load(amin);
        }
        // The address rows read again from the `Wave` (held across the guard, every group
        // was spilled to the stack and reloaded).
        let arow = reg_index(i.src[0]);
        let v = (0..self.groups).map(|g| self.vgroup(arow, g)).collect();
        let lanes = Lanes { v, ..lanes };
        // A load of 3 or 4 dwords (not 2: qword accesses, 8-byte aligned) through the same
        // lanes: component `k` of the group is the 16 bytes 4k further (a stencil's loads,
        // each lane's dwords overlapping the next lane's: rocm-examples' convolution).
        if dwords && (count == 1 || (!store && count > 2)) {
            // Lanes 4g..4g+3 at consecutive dwords (a run of 4, 16, 32 or 64 lanes): one
            // 16-byte access per group.
            let quads = self.b.create_block();
            let each = self.b.create_block();
            let q = self.quad_runs(&lanes.v, 4);
            let no_wrap = self
                .b
                .ins()
                .icmp_imm(IntCC::UnsignedLessThan, span, 0xffff_0000);
            let mut q = self.b.ins().band(q, no_wrap);
            if let Some(f) = full {
                q = self.b.ins().band(q, f);
            }
            self.b.ins().brif(q, quads, &[], each, &[]);
            self.enter(quads);
            let addrs: Vec<Value> = (0..self.groups)
                .map(|g| {
                    let v = self.b.ins().extractlane(lanes.v[g], 0);
                    let v = self.b.ins().uextend(types::I64, v);
                    self.b.ins().iadd(lanes.base, v)
                })
                .collect();
            self.group_moves(&addrs, rows[0], store);
            for (k, &row) in rows.iter().enumerate().skip(1) {
                let at: Vec<Value> = addrs
                    .iter()
                    .map(|&a| self.b.ins().iadd_imm(a, 4 * k as i64))
                    .collect();
                self.group_moves(&at, row, false);
            }
            self.vmem_finish(store, done);
            self.enter(each);
            if !store && count == 4 {
                // Lanes 4g..4g+3 at consecutive 16-byte elements (a `float4` per
                // work-item): the group's 64 bytes as four 16-byte loads, lane k's dwords in
                // load k, transposed into the four rows.
                let (wide, rest) = (self.b.create_block(), self.b.create_block());
                // (`no_wrap`, made before the branch to `each`, holds here too.)
                let q = self.quad_runs(&lanes.v, 16);
                let q = self.b.ins().band(q, no_wrap);
                self.b.ins().brif(q, wide, &[], rest, &[]);
                self.enter(wide);
                let mut cols: [Vec<Value>; 4] = Default::default();
                for g in 0..self.groups {
                    let v = self.b.ins().extractlane(lanes.v[g], 0);
                    let v = self.b.ins().uextend(types::I64, v);
                    let a = self.b.ins().iadd(lanes.base, v);
                    let m: Vec<Value> = (0..4)
                        .map(|k| self.b.ins().load(types::I32X4, data(), a, 16 * k))
                        .collect();
                    let t0 = self.shuffle32(m[0], m[1], [0, 4, 1, 5]);
                    let t1 = self.shuffle32(m[2], m[3], [0, 4, 1, 5]);
                    let t2 = self.shuffle32(m[0], m[1], [2, 6, 3, 7]);
                    let t3 = self.shuffle32(m[2], m[3], [2, 6, 3, 7]);
                    cols[0].push(self.shuffle32(t0, t1, [0, 1, 4, 5]));
                    cols[1].push(self.shuffle32(t0, t1, [2, 3, 6, 7]));
                    cols[2].push(self.shuffle32(t2, t3, [0, 1, 4, 5]));
                    cols[3].push(self.shuffle32(t2, t3, [2, 3, 6, 7]));
                }
                for (&row, col) in rows.iter().zip(cols) {
                    self.write_vals(row, col);
                }
                self.vmem_finish(false, done);
                self.enter(rest);
            }
        }
        if narrow {
            // Lanes 4g..4g+3 at consecutive elements (work-items reading a byte or short
            // array in order): one 4- or 8-byte load per group, widened lane by lane.
            let (runs, each) = (self.b.create_block(), self.b.create_block());
            let q = self.quad_runs(&lanes.v, u32::from(m.bytes));
            let no_wrap = self
                .b
                .ins()
                .icmp_imm(IntCC::UnsignedLessThan, span, 0xffff_0000);
            let q = self.b.ins().band(q, no_wrap);
            self.b.ins().brif(q, runs, &[], each, &[]);
            self.enter(runs);
            let vals: Vec<Value> = (0..self.groups)
                .map(|g| {
                    let v = self.b.ins().extractlane(lanes.v[g], 0);
                    let v = self.b.ins().uextend(types::I64, v);
                    let a = self.b.ins().iadd(lanes.base, v);
                    self.narrow_group(a, m.bytes, m.sext)
                })
                .collect();
            self.write_vals(rows[0], vals);
            self.vmem_finish(false, done);
            self.enter(each);
        }
        let elem = narrow.then_some((m.bytes, m.sext));
        if !store {
            self.one_address(span, amin, &rows, elem, done);
        }
        self.lane_loop(&lanes, &rows, store, masked, elem);
        self.vmem_finish(store, done);
        self.mem_slow_path(slow, done, pc, i);
        self.enter(done);
        self.rejoin(was);
        if let Some(row) = self.kept_row.take() {
            let vals = self.b.block_params(done).to_vec();
            for (g, x) in vals.into_iter().enumerate() {
                self.vcache.insert((row, g), x);
            }
        }
        true
    }

    /// The arguments of a jump to a GLOBAL/FLAT access's join: the kept row's groups
    /// (`kept_row`) as this path leaves them, the values it wrote, else the `Wave`'s (a
    /// call wrote them there; a pending row's fact is no longer the row).
    fn done_args(&mut self) -> Vec<BlockArg> {
        let Some(row) = self.kept_row else {
            return Vec::new();
        };
        (0..self.groups)
            .map(|g| {
                let x = match self.vcache.get(&(row, g)) {
                    Some(&x) => x,
                    None => {
                        let (v, at) = self.group_at(row, g);
                        self.b.ins().load(types::I32X4, mf(), v, at)
                    }
                };
                BlockArg::Value(x)
            })
            .collect()
    }

    /// The whole wave at consecutive dwords (`V = V0 + 4·lane`, no 32-bit wrap, and for a
    /// 64-bit VGPR address every high half equal to lane 0's): the range `[B + V0, B + V0 +
    /// 4·lanes)` checked alone, then one 16-byte access per lane group; anything else
    /// continues in a new current block (the general test). One pass over the rows: each
    /// group's difference from what lane 0 implies (low halves XOR `V0 + 4·lane`, high
    /// halves XOR lane 0's) ORed together, and no bit set. `full`: a store's EXEC is full.
    fn consecutive(
        &mut self,
        slot: usize,
        i: &Inst,
        full: Option<Value>,
        row: usize,
        store: bool,
        done: Block,
    ) {
        let n = 4 * self.groups;
        let addr_row = reg_index(i.src[0]);
        let sgpr_base = i.fmt == Fmt::Global && i.src[2] != 0x7f;
        // A store's data groups the block holds (computed just before, as vector add's sum)
        // are stored from there: the test below branches to the access without a call, so
        // they stay in registers, where loading them again cost a load each.
        let held: Vec<(usize, Value)> = if store {
            (0..self.groups)
                .filter_map(|g| self.vcache.get(&(row, g)).map(|&x| (g, x)))
                .collect()
        } else {
            Vec::new()
        };
        // Address rows known to be `V0 + 4·lane` with one high half (lane-affine facts,
        // `affine.rs`) need no test of their lanes.
        let hi_fact = match self.fact((addr_row + 1) % VREGS) {
            _ if sgpr_base => Some(None),
            Some((h0, 0)) => Some(Some(h0)),
            _ => None,
        };
        let other = self.b.create_block();
        let (runs, v0, hi) = match (self.fact(addr_row), hi_fact) {
            (Some((v0, 4)), Some(h0)) => {
                let yes = self.b.ins().iconst(types::I8, 1);
                (yes, v0, h0.map(|h0| ((addr_row + 1) % VREGS, h0)))
            }
            _ => {
                // The last lane first: rows of fewer lanes than the wave (matmul's 16-wide
                // tiles on wave32) fail here and skip the pass over every group.
                let test = self.b.create_block();
                let x0 = self.vgroup(addr_row, 0);
                let v0 = self.b.ins().extractlane(x0, 0);
                let xl = self.vgroup(addr_row, self.groups - 1);
                let vl = self.b.ins().extractlane(xl, 3);
                let want = self.b.ins().iadd_imm(v0, 4 * (n as i64 - 1));
                let may = self.b.ins().icmp(IntCC::Equal, vl, want);
                self.b.ins().brif(may, test, &[], other, &[]);
                self.enter(test);
                self.consecutive_rows(addr_row, sgpr_base)
            }
        };
        // A fact's row the basic block tested not to wrap (`affine.rs`'s carry tests) needs
        // no test here.
        let unwrapped = self.fact(addr_row) == Some((v0, 4)) && self.unwrapped.contains(&(v0, 4));
        let base = self.vmem_base(i, hi.map(|(_, h0)| h0));
        let v0_64 = self.b.ins().uextend(types::I64, v0);
        let a0 = self.b.ins().iadd(base, v0_64);
        let low = self.b.ins().band_imm(a0, 3);
        let aligned = self.b.ins().icmp_imm(IntCC::Equal, low, 0);
        let mut shape = self.b.ins().band(runs, aligned);
        if !unwrapped {
            let no_wrap = self.b.ins().icmp_imm(
                IntCC::UnsignedLessThanOrEqual,
                v0,
                i64::from(u32::MAX - 4 * (n as u32 - 1)),
            );
            shape = self.b.ins().band(shape, no_wrap);
        }
        if let Some(f) = full {
            shape = self.b.ins().band(shape, f);
        }
        if i.fmt == Fmt::Flat {
            let below = self.below_apertures(a0, 4 * n as i64);
            shape = self.b.ins().band(shape, below);
        }
        let fast = self.b.create_block();
        // A miss goes on to the general test, whose refresh covers the same range.
        let len = self.b.ins().iconst(types::I64, 4 * n as i64);
        let inside = self.window_check(slot, a0, len, store);
        let hit = self.b.ins().band(shape, inside);
        self.b.ins().brif(hit, fast, &[], other, &[]);
        self.enter(fast);
        if !store {
            self.note_last_load(a0);
        }
        // The block that held them dominates this one.
        self.vcache
            .extend(held.into_iter().map(|(g, x)| ((row, g), x)));
        let addrs: Vec<Value> = (0..self.groups)
            .map(|g| self.b.ins().iadd_imm(a0, 16 * g as i64))
            .collect();
        self.group_moves(&addrs, row, store);
        self.vmem_finish(store, done);
        self.enter(other);
    }

    /// Rows of 16 lanes at consecutive dwords, as a 16-wide work-group's tile loads (matmul's
    /// four matrix rows per wave64, two per wave32): lane `l` at `V_r + 4·(l mod 16)` for its
    /// row `r = l / 16`, and for a 64-bit VGPR address every high half lane 0's. Tested as
    /// `consecutive` does (each group XOR what its row's lane 0 implies, ORed), after a
    /// look at lane 15 that sends anything else on at once; then the range from the lowest
    /// row's start to the highest row's end checked once and one 16-byte access per group.
    /// Anything else continues in a new current block (the general test). Each row's lanes
    /// lie in `[V_r, V_r + 64)` (no 32-bit wrap), so every lane's address is in the range.
    fn tile_rows(
        &mut self,
        slot: usize,
        i: &Inst,
        full: Option<Value>,
        row: usize,
        store: bool,
        done: Block,
    ) {
        /// Groups of four lanes per row of 16.
        const PER_ROW: usize = 4;
        let n_rows = self.groups / PER_ROW;
        let addr_row = reg_index(i.src[0]);
        // A lane-affine row (`affine.rs`) is in rows of 16 only as the whole wave is, which
        // `consecutive` tested; the code here would cost such regions for nothing (gfx90a's
        // reduction lost 4 % with it).
        if self.fact(addr_row).is_some() || self.tile(addr_row).is_some() {
            return;
        }
        let sgpr_base = i.fmt == Fmt::Global && i.src[2] != 0x7f;
        let (test, other) = (self.b.create_block(), self.b.create_block());
        let x0 = self.vgroup(addr_row, 0);
        let v0 = self.b.ins().extractlane(x0, 0);
        let x3 = self.vgroup(addr_row, PER_ROW - 1);
        let v15 = self.b.ins().extractlane(x3, 3);
        let want15 = self.b.ins().iadd_imm(v0, 60);
        let may = self.b.ins().icmp(IntCC::Equal, v15, want15);
        self.b.ins().brif(may, test, &[], other, &[]);
        self.enter(test);
        let hi = (!sgpr_base).then(|| {
            let h = self.vgroup((addr_row + 1) % VREGS, 0);
            let h0 = self.b.ins().extractlane(h, 0);
            (h0, self.shuffle32(h, h, [0, 0, 0, 0]))
        });
        let iota = self.vconst([0, 4, 8, 12]);
        let step = self.vconst([16; 4]);
        let mut starts = Vec::new();
        let mut diff = None;
        for r in 0..n_rows {
            let first = self.vgroup(addr_row, r * PER_ROW);
            starts.push(self.b.ins().extractlane(first, 0));
            let s = self.shuffle32(first, first, [0, 0, 0, 0]);
            let mut want = self.b.ins().iadd(s, iota);
            for k in 0..PER_ROW {
                let g = r * PER_ROW + k;
                let x = self.vgroup(addr_row, g);
                let mut d = self.b.ins().bxor(x, want);
                if let Some((_, h0s)) = hi {
                    let h = self.vgroup((addr_row + 1) % VREGS, g);
                    let e = self.b.ins().bxor(h, h0s);
                    d = self.b.ins().bor(d, e);
                }
                diff = Some(match diff {
                    None => d,
                    Some(a) => self.b.ins().bor(a, d),
                });
                if k + 1 < PER_ROW {
                    want = self.b.ins().iadd(want, step);
                }
            }
        }
        let differ = self.b.ins().vany_true(diff.expect("a lane group"));
        let mut shape = self.b.ins().icmp_imm(IntCC::Equal, differ, 0);
        let (mut lo, mut top, mut any) = (starts[0], starts[0], starts[0]);
        for &s in &starts[1..] {
            lo = self.b.ins().umin(lo, s);
            top = self.b.ins().umax(top, s);
            any = self.b.ins().bor(any, s);
        }
        let no_wrap = self.b.ins().icmp_imm(
            IntCC::UnsignedLessThanOrEqual,
            top,
            i64::from(u32::MAX - 60),
        );
        shape = self.b.ins().band(shape, no_wrap);
        let base = self.vmem_base(i, hi.map(|(h0, _)| h0));
        // Every row's start aligned: their OR's low bits and the base's.
        let any = self.b.ins().uextend(types::I64, any);
        let low = self.b.ins().bor(any, base);
        let low = self.b.ins().band_imm(low, 3);
        let aligned = self.b.ins().icmp_imm(IntCC::Equal, low, 0);
        shape = self.b.ins().band(shape, aligned);
        let lo = self.b.ins().uextend(types::I64, lo);
        let top = self.b.ins().uextend(types::I64, top);
        // Rows on both sides of the top of the address space: the general test.
        let (hit, amin) = self.rows_in_window(slot, i, (base, lo, top), shape, full, store);
        let fast = self.b.create_block();
        self.b.ins().brif(hit, fast, &[], other, &[]);
        self.enter(fast);
        let starts: Vec<Value> = starts
            .iter()
            .map(|&s| {
                let s = self.b.ins().uextend(types::I64, s);
                self.b.ins().iadd(base, s)
            })
            .collect();
        self.row_moves(amin, &starts, (row, store), done, other);
    }

    /// A dword access whose address row is a tile fact (`tiles.rs`) with `sx = 4` (rows of
    /// 16 consecutive dwords) and, for a 64-bit VGPR address, a uniform high half: no test
    /// of its lanes; the first and last row's starts (`base`, `base + sy·(rows - 1)`,
    /// signed `sy`) give the range, checked once (both within [0, 2^32 - 64], so no lane
    /// wraps and every lane lies between the lowest start and the highest plus 64 bytes),
    /// then one 16-byte access per group at its row's start plus 16·(g mod 4). Anything
    /// else continues in a new current block (the tests below).
    fn tile_fact_access(
        &mut self,
        slot: usize,
        i: &Inst,
        full: Option<Value>,
        row: usize,
        store: bool,
        done: Block,
    ) {
        const PER_ROW: usize = 4;
        let addr_row = reg_index(i.src[0]);
        let Some(t) = self.tile(addr_row).filter(|t| !t.uniform) else {
            return;
        };
        let sgpr_base = i.fmt == Fmt::Global && i.src[2] != 0x7f;
        let hi = if sgpr_base {
            None
        } else {
            match self.tile((addr_row + 1) % VREGS) {
                Some(h) if h.uniform => Some(h.base),
                _ => return,
            }
        };
        let n_rows = (self.groups / PER_ROW) as i64;
        let mut shape = self.b.ins().icmp_imm(IntCC::Equal, t.sx, 4);
        let (b0, sy, lo, top) = match t.corners {
            // Exact corners, every lane in [0, 2^32): the rows' starts are corners 0 and 2
            // and their ends (`sx` = 4) at most the largest corner, so no row wraps. The
            // step between rows is `sy` as signed but on wave32, where it is the whole
            // distance between the corners (which `sy` as signed may not reach).
            Some(c) => {
                let sy = if n_rows == 2 {
                    self.b.ins().isub(c[2], c[0])
                } else {
                    self.b.ins().sextend(types::I64, t.sy)
                };
                let lo = self.b.ins().smin(c[0], c[2]);
                let top = self.b.ins().smax(c[0], c[2]);
                (c[0], sy, lo, top)
            }
            None => {
                let b0 = self.b.ins().uextend(types::I64, t.base);
                let sy = self.b.ins().sextend(types::I64, t.sy);
                let dy = self.last_row_step(sy, n_rows);
                let last = self.b.ins().iadd(b0, dy);
                let lo = self.b.ins().smin(b0, last);
                let top = self.b.ins().smax(b0, last);
                let pos = self
                    .b
                    .ins()
                    .icmp_imm(IntCC::SignedGreaterThanOrEqual, lo, 0);
                let no_wrap = self.b.ins().icmp_imm(
                    IntCC::SignedLessThanOrEqual,
                    top,
                    i64::from(u32::MAX - 60),
                );
                shape = self.b.ins().band(shape, pos);
                shape = self.b.ins().band(shape, no_wrap);
                (b0, sy, lo, top)
            }
        };
        let base = self.vmem_base(i, hi);
        // Every row's start aligned: the base's, lane 0's and `sy`'s low bits.
        let low = self.b.ins().bor(base, b0);
        let low = self.b.ins().bor(low, sy);
        let low = self.b.ins().band_imm(low, 3);
        let aligned = self.b.ins().icmp_imm(IntCC::Equal, low, 0);
        shape = self.b.ins().band(shape, aligned);
        // Rows on both sides of the top of the address space: the tests below.
        let (hit, amin) = self.rows_in_window(slot, i, (base, lo, top), shape, full, store);
        let (fast, other) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(hit, fast, &[], other, &[]);
        self.enter(fast);
        let mut starts = vec![self.b.ins().iadd(base, b0)];
        for _ in 1..n_rows {
            let last = starts[starts.len() - 1];
            starts.push(self.b.ins().iadd(last, sy));
        }
        self.row_moves(amin, &starts, (row, store), done, other);
    }

    /// `consecutive`'s one pass over the address rows: whether every lane is `V0 + 4·lane`
    /// (each group XOR what lane 0 implies, the high halves XOR lane 0's, ORed), `V0`, and
    /// the high row with lane 0's high half (none for an SGPR base).
    fn consecutive_rows(
        &mut self,
        addr_row: usize,
        sgpr_base: bool,
    ) -> (Value, Value, Option<(usize, Value)>) {
        let x0 = self.vgroup(addr_row, 0);
        let v0 = self.b.ins().extractlane(x0, 0);
        let hi = (!sgpr_base).then(|| {
            let hi_row = (addr_row + 1) % VREGS;
            let h = self.vgroup(hi_row, 0);
            let h0 = self.b.ins().extractlane(h, 0);
            (hi_row, h0, self.shuffle32(h, h, [0, 0, 0, 0]))
        });
        let v0s = self.shuffle32(x0, x0, [0, 0, 0, 0]);
        let iota = self.vconst([0, 4, 8, 12]);
        let mut want = self.b.ins().iadd(v0s, iota);
        let step = self.vconst([16; 4]);
        let mut diff = None;
        for g in 0..self.groups {
            let x = self.vgroup(addr_row, g);
            let mut d = self.b.ins().bxor(x, want);
            if let Some((hi_row, _, h0s)) = hi {
                let h = self.vgroup(hi_row, g);
                let e = self.b.ins().bxor(h, h0s);
                d = self.b.ins().bor(d, e);
            }
            diff = Some(match diff {
                None => d,
                Some(a) => self.b.ins().bor(a, d),
            });
            if g + 1 < self.groups {
                want = self.b.ins().iadd(want, step);
            }
        }
        let differ = self.b.ins().vany_true(diff.expect("a lane group"));
        let runs = self.b.ins().icmp_imm(IntCC::Equal, differ, 0);
        (runs, v0, hi.map(|(r, h0, _)| (r, h0)))
    }

    /// Lane group `g` of VGPR row `row` to or from the 16 bytes at `addrs[g]` (checked), a
    /// load's groups written under EXEC.
    fn group_moves(&mut self, addrs: &[Value], row: usize, store: bool) {
        let mut vals = Vec::new();
        for (g, &a) in addrs.iter().enumerate() {
            if store {
                let x = self.vgroup(row, g);
                self.b.ins().store(data(), x, a, 0);
            } else {
                vals.push(self.b.ins().load(types::I32X4, data(), a, 0));
            }
        }
        if !store {
            self.write_vals(row, vals);
        }
    }

    /// Whether every lane group of `v` is a run of consecutive elements of `size` bytes
    /// (`V0, V0 + size, V0 + 2·size, V0 + 3·size` modulo 2^32), as an `i8`. (A run that
    /// wraps at 2^32 has lanes within 3·size of 0 and of 2^32, which the caller's span test
    /// excludes.)
    fn quad_runs(&mut self, v: &[Value], size: u32) -> Value {
        let step = self.vconst([0, size, 2 * size, 3 * size]);
        let mut all = None;
        for &x in v {
            // Lane 0 broadcast by a shuffle (`pshufd`: one instruction; an extract and a
            // splat are three).
            let x0 = self.shuffle32(x, x, [0, 0, 0, 0]);
            let want = self.b.ins().iadd(x0, step);
            let run = self.b.ins().icmp(IntCC::Equal, x, want);
            all = Some(match all {
                None => run,
                Some(a) => self.b.ins().band(a, run),
            });
        }
        self.b.ins().vall_true(all.expect("a lane group"))
    }

    /// Four lanes' bytes (`size` 1) or shorts (2) from `a` (checked), zero- or sign-extended
    /// (`sext`) to 32 bits as `vmem::put_loaded` does: one 4- or 8-byte load, widened.
    /// Each element is read once, in one access, as the interpreter's per-lane loads read
    /// it (a short, 2-byte aligned, never straddles a cache line).
    fn narrow_group(&mut self, a: Value, size: u8, sext: bool) -> Value {
        let (word, vector, elems) = if size == 1 {
            (types::I32, types::I32X4, types::I8X16)
        } else {
            (types::I64, types::I64X2, types::I16X8)
        };
        let x = self.b.ins().load(word, data(), a, 0);
        let x = self.b.ins().scalar_to_vector(vector, x);
        let le = MemFlags::new().with_endianness(Endianness::Little);
        let mut x = self.b.ins().bitcast(elems, le, x);
        for _ in 0..(3 - size) {
            x = if sext {
                self.b.ins().swiden_low(x)
            } else {
                self.b.ins().uwiden_low(x)
            };
        }
        x
    }

    /// A load whose lanes all address one place (`span` 0 from the checked lowest address
    /// `amin`; the reduction's `global_load_ushort v4, v1, s[0:1]` of the dispatch packet's
    /// work-group size, v1 = 0): read once, as the lane loop reads each lane's (one 8-byte
    /// access for two dwords), its value written to every lane under EXEC; anything else
    /// continues in a new current block (the lane loop). Lanes read in one access see
    /// one value, as some order of the lane loop's reads also would.
    fn one_address(
        &mut self,
        span: Value,
        amin: Value,
        rows: &[usize],
        narrow: Option<(u8, bool)>,
        done: Block,
    ) {
        let (one, each) = (self.b.create_block(), self.b.create_block());
        let same = self.b.ins().icmp_imm(IntCC::Equal, span, 0);
        self.b.ins().brif(same, one, &[], each, &[]);
        self.enter(one);
        let f = data().with_aligned();
        let words: Vec<Value> = match (narrow, rows.len()) {
            (Some((bytes, sext)), _) => {
                let ty = if bytes == 1 { types::I8 } else { types::I16 };
                let x = self.b.ins().load(ty, f, amin, 0);
                vec![if sext {
                    self.b.ins().sextend(types::I32, x)
                } else {
                    self.b.ins().uextend(types::I32, x)
                }]
            }
            (None, 2) => {
                let x = self.b.ins().load(types::I64, f, amin, 0);
                let hi = self.b.ins().ushr_imm(x, 32);
                vec![
                    self.b.ins().ireduce(types::I32, x),
                    self.b.ins().ireduce(types::I32, hi),
                ]
            }
            (None, n) => (0..n)
                .map(|k| self.b.ins().load(types::I32, f, amin, 4 * k as i32))
                .collect(),
        };
        for (&row, x) in rows.iter().zip(words) {
            let v = self.b.ins().splat(types::I32X4, x);
            self.write_vals(row, vec![v; self.groups]);
        }
        self.vmem_finish(false, done);
        self.enter(each);
    }

    /// Each lane's own accesses, in a loop over the lanes through stack copies of `V` and
    /// of the data rows (`rows`; a load's results are written under EXEC after it); with
    /// `exec`, only its lanes access memory. With `narrow` (bytes, signed), a load of one
    /// byte or short per lane, extended to 32 bits as `vmem::put_loaded` does.
    fn lane_loop(
        &mut self,
        lanes: &Lanes,
        rows: &[usize],
        store: bool,
        exec: Option<Value>,
        narrow: Option<(u8, bool)>,
    ) {
        let n = 4 * self.groups;
        let ptr = self.mem_ptr_ty();
        let row_bytes = 4 * n as u32;
        let slot = |g: &mut Self| {
            g.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                row_bytes,
                4,
            ))
        };
        let vs = slot(self);
        let ds: Vec<_> = rows.iter().map(|_| slot(self)).collect();
        for (g, &x) in lanes.v.iter().enumerate() {
            self.b.ins().stack_store(x, vs, 16 * g as i32);
        }
        if store {
            for (k, &row) in rows.iter().enumerate() {
                for g in 0..self.groups {
                    let x = self.vgroup(row, g);
                    self.b.ins().stack_store(x, ds[k], 16 * g as i32);
                }
            }
        }
        let vp = self.b.ins().stack_addr(ptr, vs, 0);
        let dp: Vec<Value> = ds
            .iter()
            .map(|&d| self.b.ins().stack_addr(ptr, d, 0))
            .collect();
        let (body, after) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(body, ptr);
        let zero = self.b.ins().iconst(ptr, 0);
        self.b.ins().jump(body, &[BlockArg::Value(zero)]);
        self.enter(body);
        // `off` = 4 · lane.
        let off = self.b.block_params(body)[0];
        let cont = self.b.create_block();
        if let Some(exec) = exec {
            let lane = self.b.ins().ushr_imm(off, 2);
            let bit = self.b.ins().ushr(exec, lane);
            let bit = self.b.ins().band_imm(bit, 1);
            let act = self.b.create_block();
            self.b.ins().brif(bit, act, &[], cont, &[]);
            self.enter(act);
        }
        let f = data().with_aligned();
        let at = |g: &mut Self, p: Value| g.b.ins().iadd(p, off);
        let vl = at(self, vp);
        let v = self.b.ins().load(types::I32, mf(), vl, 0);
        let v = self.b.ins().uextend(types::I64, v);
        let a = self.b.ins().iadd(lanes.base, v);
        let dl: Vec<Value> = dp.iter().map(|&p| at(self, p)).collect();
        if let Some((bytes, sext)) = narrow {
            let ty = if bytes == 1 { types::I8 } else { types::I16 };
            let x = self.b.ins().load(ty, f, a, 0);
            let x = if sext {
                self.b.ins().sextend(types::I32, x)
            } else {
                self.b.ins().uextend(types::I32, x)
            };
            self.b.ins().store(mf(), x, dl[0], 0);
        } else if rows.len() == 2 {
            // One 8-byte access (the addresses are 8-byte aligned), as `vmem::qwords`.
            if store {
                let lo = self.b.ins().load(types::I32, mf(), dl[0], 0);
                let hi = self.b.ins().load(types::I32, mf(), dl[1], 0);
                let lo = self.b.ins().uextend(types::I64, lo);
                let hi = self.b.ins().uextend(types::I64, hi);
                let hi = self.b.ins().ishl_imm(hi, 32);
                let x = self.b.ins().bor(lo, hi);
                self.b.ins().store(f, x, a, 0);
            } else {
                let x = self.b.ins().load(types::I64, f, a, 0);
                let lo = self.b.ins().ireduce(types::I32, x);
                let hi = self.b.ins().ushr_imm(x, 32);
                let hi = self.b.ins().ireduce(types::I32, hi);
                self.b.ins().store(mf(), lo, dl[0], 0);
                self.b.ins().store(mf(), hi, dl[1], 0);
            }
        } else {
            for (k, &d) in dl.iter().enumerate() {
                if store {
                    let x = self.b.ins().load(types::I32, mf(), d, 0);
                    self.b.ins().store(f, x, a, 4 * k as i32);
                } else {
                    let x = self.b.ins().load(types::I32, f, a, 4 * k as i32);
                    self.b.ins().store(mf(), x, d, 0);
                }
            }
        }
        self.b.ins().jump(cont, &[]);
        self.enter(cont);
        let next = self.b.ins().iadd_imm(off, 4);
        let more = self
            .b
            .ins()
            .icmp_imm(IntCC::UnsignedLessThan, next, i64::from(row_bytes));
        self.b
            .ins()
            .brif(more, body, &[BlockArg::Value(next)], after, &[]);
        self.enter(after);
        if !store {
            for (k, &row) in rows.iter().enumerate() {
                let vals: Vec<Value> = (0..self.groups)
                    .map(|g| self.b.ins().stack_load(types::I32X4, ds[k], 16 * g as i32))
                    .collect();
                self.write_vals(row, vals);
            }
        }
    }

    /// Whether `[a, a + len)` (`a` the highest lane's address, so every lane's) is below
    /// the LDS and private apertures, where FLAT addresses are global (`flat_addrs`).
    fn below_apertures(&mut self, a: Value, len: i64) -> Value {
        let top = u64::from(SHARED_APERTURE_HI.min(PRIVATE_APERTURE_HI)) << 32;
        self.b
            .ins()
            .icmp_imm(IntCC::UnsignedLessThanOrEqual, a, top as i64 - len)
    }

    /// The end of an inline GLOBAL/FLAT access: `Wave::stored` after a store, the active
    /// lanes counted, on to `done`.
    /// `shape` and the range test of the row-wise paths (`tile_rows`, `tile_fact_access`):
    /// the rows from `base + lo` to `base + top` (64 bytes each; `i64`s) not wrapping past
    /// the top of the address space, a store's EXEC full (`full`), a FLAT access below the
    /// apertures, and the whole span inside the slot's window; and the lowest address.
    fn rows_in_window(
        &mut self,
        slot: usize,
        i: &Inst,
        (base, lo, top): (Value, Value, Value),
        mut shape: Value,
        full: Option<Value>,
        store: bool,
    ) -> (Value, Value) {
        let amin = self.b.ins().iadd(base, lo);
        let atop = self.b.ins().iadd(base, top);
        let ordered = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, amin, atop);
        shape = self.b.ins().band(shape, ordered);
        if let Some(f) = full {
            shape = self.b.ins().band(shape, f);
        }
        if i.fmt == Fmt::Flat {
            let below = self.below_apertures(atop, 64);
            shape = self.b.ins().band(shape, below);
        }
        let span = self.b.ins().isub(atop, amin);
        let len = self.b.ins().iadd_imm(span, 64);
        let inside = self.window_check(slot, amin, len, store);
        (self.b.ins().band(shape, inside), amin)
    }

    /// The fast path's end for accesses in rows of 16 lanes (`tile_rows`,
    /// `tile_fact_access`): a load's lowest address noted, one 16-byte move per group at its
    /// row's start (`starts`, addresses) plus 16·(g mod 4), then `done`; the other path
    /// continues in `other`.
    fn row_moves(
        &mut self,
        amin: Value,
        starts: &[Value],
        (row, store): (usize, bool),
        done: Block,
        other: Block,
    ) {
        /// Groups of four lanes per row of 16.
        const PER_ROW: i64 = 4;
        if !store {
            self.note_last_load(amin);
        }
        let mut addrs = Vec::new();
        for &a in starts {
            for k in 0..PER_ROW {
                addrs.push(self.b.ins().iadd_imm(a, 16 * k));
            }
        }
        self.group_moves(&addrs, row, store);
        self.vmem_finish(store, done);
        self.enter(other);
    }

    fn vmem_finish(&mut self, store: bool, done: Block) {
        if store {
            self.stored_clear = false;
            let (wave, w) = self.wave_ptr();
            let one = self.b.ins().iconst(types::I8, 1);
            let at = w + offset_of!(Wave, stored) as i32;
            self.b.ins().store(mf(), one, wave, at);
        }
        self.count_lanes();
        let args = self.done_args();
        self.b.ins().jump(done, &args);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regions_memory_instructions_get_windows_of_their_own() {
        // gfx90a's vector add: the kernarg load at 0x1e00 and the second buffer's load at
        // 0x1e84 both prefer window 0; sharing it, each wave refreshed it twice.
        let mut taken = Vec::new();
        for pc in [
            0x1e00, 0x1e08, 0x1e10, 0x1e48, 0x1e50, 0x1e7c, 0x1e84, 0x1ea0,
        ] {
            let s = free_slot(pc, |s| taken.contains(&s));
            assert!(!taken.contains(&s), "{pc:#x} shares window {s}");
            taken.push(s);
        }
        // Each its preferred one, `(pc / 8) % 32`.
        assert_eq!(taken, [0, 1, 2, 9, 10, 15, 16, 20]);
        // When every window is taken, an instruction keeps its preferred one.
        assert_eq!(free_slot(0x1ea8, |_| true), slot_of(0x1ea8));
        // rocm-examples' convolution: 18 memory instructions from 0x1b00 to 0x1d44, 3
        // of them preferring windows others took; each gets one of its own.
        let mut taken = Vec::new();
        for pc in [
            0x1b00, 0x1b08, 0x1b10, 0x1b80, 0x1bbc, 0x1bc4, 0x1be0, 0x1be8, 0x1c00, 0x1c08, 0x1c20,
            0x1c28, 0x1c40, 0x1c48, 0x1c94, 0x1c9c, 0x1ca4, 0x1d44,
        ] {
            let s = free_slot(pc, |s| taken.contains(&s));
            assert!(!taken.contains(&s), "{pc:#x} shares window {s}");
            taken.push(s);
        }
    }
}
