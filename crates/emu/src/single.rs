//! Running machine code on one wave from a given register state, outside any dispatch: the
//! per-instruction tests (`tests/inst.rs`) and tools set up SGPRs, VGPRs, EXEC and MODE, run a
//! few instruction words, and read the registers back.
//!
//! [`run_words`] maps no memory (a global/flat access faults), gives 64 KiB of zero LDS and no
//! scratch; [`run_words_mem`] runs with the caller's LDS and one global buffer of the caller's
//! (device pointers are host pointers: the buffer's address is its host address). SOPP
//! branches inside the words are followed and `s_endpgm` stops early.

use crate::decode::{decode, Gen};
use crate::error::FaultKind;
use crate::exec::{step, Env, Flow, Scratch};
use crate::memory::{Access, MemoryMap, RegionCache};
use crate::wave::{Wave, LANES, VREGS};

/// The architectural state of one wave, as [`run_words`] reads and writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveRegs {
    /// The scalar file by operand code: s0–s101 (0–101), FLAT_SCRATCH (102/103), XNACK_MASK
    /// (104/105), VCC (106/107), TTMPs, M0 (124), EXEC (126/127).
    pub s: [u32; 128],
    /// SCC.
    pub scc: bool,
    /// 256 VGPRs then 256 AGPRs, 64 lanes each (a wave32 wave uses lanes 0–31).
    pub v: Vec<[u32; LANES]>,
    /// The MODE register (FP_ROUND 3:0, FP_DENORM 7:4, DX10_CLAMP 8, IEEE 9, FP16_OVFL 23).
    pub mode: u32,
}

impl WaveRegs {
    /// SGPR code of VCC_LO.
    pub const VCC: usize = 106;
    /// SGPR code of M0.
    pub const M0: usize = 124;
    /// SGPR code of EXEC_LO.
    pub const EXEC: usize = 126;
    /// MODE with round to nearest even, denormals kept, DX10_CLAMP and IEEE set (what clang
    /// gives a compute kernel that keeps denormals).
    pub const DEFAULT_MODE: u32 = 0x3f0;

    /// Zero registers, every lane of `gen`'s wave size active, [`WaveRegs::DEFAULT_MODE`].
    pub fn new(gen: Gen) -> WaveRegs {
        let mut r = WaveRegs {
            s: [0; 128],
            scc: false,
            v: vec![[0; LANES]; VREGS],
            mode: WaveRegs::DEFAULT_MODE,
        };
        r.set_exec(if gen.wave_size() == 32 {
            0xffff_ffff
        } else {
            u64::MAX
        });
        r
    }

    /// EXEC as a lane mask.
    pub fn exec(&self) -> u64 {
        u64::from(self.s[Self::EXEC]) | u64::from(self.s[Self::EXEC + 1]) << 32
    }

    /// Sets EXEC.
    pub fn set_exec(&mut self, m: u64) {
        self.s[Self::EXEC] = m as u32;
        self.s[Self::EXEC + 1] = (m >> 32) as u32;
    }
}

/// Runs `words` (machine code starting at offset 0) on one wave of `gen` from `regs`, until
/// the PC leaves the words or `s_endpgm`, and leaves the final state in `regs`. Returns the
/// number of instructions executed, or the fault (an invalid word, an unimplemented or
/// not-for-compute instruction, a memory access).
pub fn run_words(gen: Gen, words: &[u32], regs: &mut WaveRegs) -> Result<u64, FaultKind> {
    run(
        gen,
        words,
        regs,
        &mut vec![0u8; 65536],
        None,
        0,
        Access::ReadWrite,
    )
}

/// [`run_words`] with `lds` as the work-group's LDS and `global` registered (read-write) at
/// its host address for the run, so memory instructions can be checked against the bytes
/// they leave there.
pub fn run_words_mem(
    gen: Gen,
    words: &[u32],
    regs: &mut WaveRegs,
    lds: &mut [u8],
    global: &mut [u8],
) -> Result<u64, FaultKind> {
    run(gen, words, regs, lds, Some(global), 0, Access::ReadWrite)
}

/// [`run_words_mem`] with `global` registered read-only (stores to it fault).
pub fn run_words_mem_read_only(
    gen: Gen,
    words: &[u32],
    regs: &mut WaveRegs,
    global: &mut [u8],
) -> Result<u64, FaultKind> {
    run(gen, words, regs, &mut [], Some(global), 0, Access::Read)
}

/// [`run_words_mem`] with `private_per_lane` bytes of private memory per lane, whose wave
/// slot is the start of `global` (byte `p` of lane `l` at
/// `(p / 4) * 4 * lanes + 4 * l + p % 4`, the swizzle of the scratch V#), so scratch
/// instructions can be checked against the bytes they leave there.
pub fn run_words_scratch(
    gen: Gen,
    words: &[u32],
    regs: &mut WaveRegs,
    lds: &mut [u8],
    global: &mut [u8],
    private_per_lane: u32,
) -> Result<u64, FaultKind> {
    run(
        gen,
        words,
        regs,
        lds,
        Some(global),
        private_per_lane,
        Access::ReadWrite,
    )
}

fn run(
    gen: Gen,
    words: &[u32],
    regs: &mut WaveRegs,
    lds: &mut [u8],
    mut global: Option<&mut [u8]>,
    private_per_lane: u32,
    access: Access,
) -> Result<u64, FaultKind> {
    let mut w = Wave::new();
    w.set_wave32(gen.wave_size() == 32);
    w.s = regs.s;
    w.scc = regs.scc;
    for (row, r) in w.v.iter_mut().zip(&regs.v) {
        *row = *r;
    }
    w.mode = regs.mode;
    let insts: Vec<_> = (0..words.len()).map(|k| decode(gen, &words[k..])).collect();
    let mem = MemoryMap::new();
    if let Some(g) = global.as_deref_mut() {
        w.scratch_base = g.as_ptr() as u64;
        // The buffer stays borrowed (and so alive) for the whole run. A fresh map refuses only
        // an empty range, and then every access to it faults, as it should.
        let _ = mem.register(g.as_mut_ptr() as u64, g.len() as u64, access);
    }
    let mut cache = RegionCache::default();
    let mut scratch = Scratch::new();
    let gws = crate::gws::Gws::default();
    let mut env = Env {
        gen,
        mem: &mem,
        cache: &mut cache,
        lds,
        private_per_lane,
        scratch: &mut scratch,
        clock_mhz: crate::GpuConfig::default().clock_mhz,
        gws: &gws,
        deterministic: false,
        check: None,
        // One wave: the work-group barrier's only member.
        barrier: crate::exec::BarrierState {
            signalled: 0,
            members: 1,
        },
    };
    let end = 4 * words.len() as u64;
    let mut count = 0u64;
    // The compiling tier, unless `HSAEMU_JIT=0`: every block start compiles at once and each
    // compiled run is checked against the interpreter (`HSAEMU_JIT=verify`'s check), so every
    // per-instruction test line also tests the compiled form of what it runs. (Dispatches
    // compile only hot blocks, unless `HSAEMU_JIT` is `sync` or `verify`.)
    let jit = crate::jit::in_single_runs();
    let fetch = |a: u64| (a < end && a.is_multiple_of(4)).then(|| insts[(a / 4) as usize]);
    let mut blocks = std::collections::HashMap::new();
    let mut at_start = true;
    let mut declined = false;
    while w.pc < end && count < 1 << 20 {
        if jit && at_start {
            let pc = w.pc;
            let block = *blocks
                .entry(pc)
                .or_insert_with(|| crate::jit::compile_now(&fetch, pc, &w));
            if let Some(b) = block.filter(|b| b.runs(&w)) {
                let budget = ((1 << 20) - count) as u32;
                // The buffer is copied and compared by the check (no journal: stores run
                // inline as in dispatches).
                let g = global.as_deref_mut();
                // A barrier (`parked`) waits for no one: one wave alone.
                let (n, _parked) = crate::jit::run_checked(b, &mut w, budget, &fetch, &mut env, g)
                    .map_err(|detail| FaultKind::TierMismatch { detail })?;
                if n > 0 {
                    count += u64::from(n);
                    w.instructions += u64::from(n);
                    continue;
                }
                // A memory access the region declined (or a first basic block over the
                // budget): the interpreter runs it, and the next instruction starts a block.
                declined = true;
            }
        }
        let inst = &insts[(w.pc / 4) as usize];
        let flow = step::<false>(&mut w, inst, &mut env).map_err(|f| f.kind)?;
        at_start =
            declined || !matches!(flow, Flow::Next) || crate::jit::compilable(inst).is_none();
        declined = false;
        count += 1;
        // What SHADER_CYCLES and the deterministic clocks count.
        w.instructions += 1;
        match flow {
            Flow::Jump(t) => w.pc = t,
            // One wave alone: a global wave sync barrier would wait for no one else.
            Flow::End | Flow::Retry => break,
            Flow::Next | Flow::Barrier | Flow::Yield => w.pc += u64::from(inst.size),
        }
    }
    regs.s = w.s;
    regs.scc = w.scc;
    regs.mode = w.mode;
    for (r, row) in regs.v.iter_mut().zip(w.v.iter()) {
        *r = *row;
    }
    Ok(count)
}
