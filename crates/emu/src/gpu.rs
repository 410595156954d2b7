//! The emulated agent: configuration, the decode cache, code-object loading and the dispatch
//! entry point.

use crate::decode::{self, Gen, Inst};
use crate::descriptor::KernelObjectFormat;
use crate::error::EmuError;
use crate::loader::{self, LoadedCodeObject};
use crate::memory::{host, Access, MemoryMap};
use crate::pool::Pool;
use hsaemu_codeobject::CodeObject;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::error::StopCause;

/// Configuration of one emulated GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuConfig {
    /// LLVM processor name, e.g. `"gfx90a"`.
    pub processor: String,
    /// Whether XNACK is enabled (recorded; no effect on execution).
    pub xnack: bool,
    /// Host worker threads; 0 = `HSAEMU_THREADS` or all cores.
    pub threads: usize,
    /// Compute units reported to software (HW_ID, agent info).
    pub compute_units: u32,
    /// LDS bytes per work-group.
    pub lds_size: u32,
    /// Shader clock in MHz: the rate of `s_memtime` (what the agent reports as its maximum
    /// clock frequency, so HIP's `clock64()` / `clockRate` gives time).
    pub clock_mhz: u32,
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig {
            processor: "gfx90a".into(),
            xnack: false,
            threads: 0,
            compute_units: 104,
            lds_size: 65536,
            clock_mhz: 1700,
        }
    }
}

/// One kernel dispatch (the fields of an AQL kernel dispatch packet the emulator needs).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Dispatch {
    /// Host address of the kernel object: a kernel descriptor (V3+) or an `amd_kernel_code_t`
    /// (V2). Which one is known from the code object this GPU loaded it from.
    pub kernel_object: u64,
    /// Host address of the kernarg segment (filled by the caller, hidden arguments included).
    pub kernarg_address: u64,
    /// Grid size in work-items.
    pub grid_size: [u32; 3],
    /// Work-group size in work-items.
    pub workgroup_size: [u16; 3],
    /// Group segment bytes (static + dynamic); at least the descriptor's fixed size is used.
    pub group_segment_size: u32,
    /// Private segment bytes per work-item; at least the descriptor's fixed size is used.
    pub private_segment_size: u32,
    /// Host address of the AQL packet for the dispatch pointer SGPRs (0: the emulator builds
    /// one).
    pub dispatch_packet_address: u64,
    /// Host address of the `amd_queue_t` for the queue pointer SGPRs (0 allowed).
    pub queue_address: u64,
    /// Dispatch ID for the dispatch-ID SGPRs.
    pub dispatch_id: u64,
    /// The compute units the dispatch may use (a queue's CU mask); empty: all of them. Each
    /// work-group runs on one of them, which its waves read from `HW_ID`.
    pub compute_units: Vec<u32>,
    /// Keep every work-group resident at once (a cooperative queue), so work-groups that
    /// wait on one another (grid barriers) cannot deadlock.
    pub cooperative: bool,
}

/// Counters of a completed dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DispatchStats {
    /// Work-groups run.
    pub workgroups: u64,
    /// Waves run.
    pub waves: u64,
    /// Wave-instructions executed.
    pub wave_instructions: u64,
    /// Active-lane operations of vector instructions.
    pub lane_ops: u64,
    /// Host threads that ran at least one work-group (at most `Gpu::threads`; fewer when the
    /// grid is small or pool threads were busy).
    pub threads: usize,
    /// Wall time.
    pub elapsed: Duration,
}

/// How much of a code object's machine code the emulator understands: a linear sweep over
/// every function symbol (like `llvm-objdump -d`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Instructions decoded.
    pub instructions: u64,
    /// Words that did not decode for this generation (the sweep continues after them).
    pub invalid_words: u64,
    /// Every mnemonic seen: (mnemonic, occurrences, whether the emulator has its semantics).
    pub mnemonics: Vec<(String, u64, bool)>,
}

impl Coverage {
    /// The mnemonics without semantics.
    pub fn unimplemented(&self) -> Vec<&str> {
        self.mnemonics
            .iter()
            .filter(|m| !m.2)
            .map(|m| m.0.as_str())
            .collect()
    }
}

/// Code regions up to this many dwords (1 MiB of code) are decoded at every dword when their
/// program is made; larger ones chunk by chunk on first fetch.
const EAGER_DWORDS: usize = 1 << 18;

/// Dwords in one lazily decoded chunk of a large code region (4 KiB of machine code).
const CHUNK_DWORDS: usize = 1024;

/// One decoded chunk: the instruction at every dword offset (past the region's end, padding
/// that `Program::at` never returns).
type Chunk = [Inst; CHUNK_DWORDS];

/// A code region, pre-decoded at every dword offset. Regions up to `EAGER_DWORDS` are decoded
/// whole when the program is made. Larger ones, such as the code objects of prebuilt libraries
/// (rocSPARSE's reach 3.8 MiB, of which a dispatch touches a few KiB; decoding one whole took
/// ~0.2 s and 80 bytes of memory per dword), keep a copy of their words (as the hardware
/// fetches the code it was given at dispatch) and decode each 4 KiB chunk when an instruction
/// in it is first fetched. Fetching from a small region costs what it did before chunking.
pub(crate) struct Program {
    pub base: u64,
    /// A small region's instructions (empty for a large region).
    eager: Box<[Inst]>,
    /// A large region, decoded on demand.
    lazy: Option<Lazy>,
    /// The compiling tier's counters and blocks per dword (made on first use; small regions
    /// only).
    jit: OnceLock<Arc<crate::jit::Slots>>,
}

struct Lazy {
    gen: Gen,
    /// The region's words.
    words: Box<[u32]>,
    /// Each chunk, decoded on first use.
    chunks: Box<[OnceLock<Box<Chunk>>]>,
}

impl Program {
    pub(crate) fn new(gen: Gen, base: u64, words: Vec<u32>) -> Program {
        let n = words.len();
        if n <= EAGER_DWORDS {
            return Program {
                base,
                eager: (0..n)
                    .map(|k| decode::decode(gen, &words[k..(k + decode::MAX_DWORDS).min(n)]))
                    .collect(),
                lazy: None,
                jit: OnceLock::new(),
            };
        }
        Program {
            base,
            eager: Box::new([]),
            lazy: Some(Lazy {
                gen,
                chunks: (0..n.div_ceil(CHUNK_DWORDS))
                    .map(|_| OnceLock::new())
                    .collect(),
                words: words.into_boxed_slice(),
            }),
            jit: OnceLock::new(),
        }
    }

    /// The instruction at absolute address `pc`.
    #[inline]
    pub(crate) fn at(&self, pc: u64) -> Option<&Inst> {
        let off = pc.wrapping_sub(self.base);
        if !off.is_multiple_of(4) {
            return None;
        }
        let k = (off / 4) as usize;
        match self.eager.get(k) {
            Some(inst) => Some(inst),
            None => self.lazy_at(k),
        }
    }

    /// The compiling tier's slots, for a small region (a large one is only interpreted).
    #[inline]
    pub(crate) fn jit_slots(&self) -> Option<&Arc<crate::jit::Slots>> {
        if self.eager.is_empty() {
            return None;
        }
        Some(
            self.jit
                .get_or_init(|| Arc::new(crate::jit::Slots::new(self.eager.len()))),
        )
    }

    /// The dword index of `pc` in a small region.
    #[inline]
    pub(crate) fn index(&self, pc: u64) -> usize {
        (pc.wrapping_sub(self.base) / 4) as usize
    }

    /// Out of the small-region fetch path, so it stays as it was before chunking.
    #[cold]
    #[inline(never)]
    fn lazy_at(&self, k: usize) -> Option<&Inst> {
        self.lazy.as_ref()?.at(k)
    }
}

impl Lazy {
    /// The instruction at dword `k`, decoding its chunk on the first fetch from it (several
    /// workers may race; one decodes, the others wait for it).
    #[inline]
    fn at(&self, k: usize) -> Option<&Inst> {
        if k >= self.words.len() {
            return None;
        }
        let c = k / CHUNK_DWORDS;
        let chunk = self.chunks.get(c)?.get_or_init(|| self.decode_chunk(c));
        Some(&chunk[k % CHUNK_DWORDS])
    }

    /// Decodes chunk `c` at every dword; an instruction may read up to three words past the
    /// chunk (its literal, second dword, or gfx950 scaled MFMA half) but never past the region.
    #[cold]
    fn decode_chunk(&self, c: usize) -> Box<Chunk> {
        let n = self.words.len();
        let start = c * CHUNK_DWORDS;
        let mut insts: Vec<Inst> = (start..(start + CHUNK_DWORDS).min(n))
            .map(|k| decode::decode(self.gen, &self.words[k..(k + decode::MAX_DWORDS).min(n)]))
            .collect();
        insts.resize(CHUNK_DWORDS, decode::decode(self.gen, &[]));
        insts
            .into_boxed_slice()
            .try_into()
            .unwrap_or_else(|_| unreachable!("a chunk holds CHUNK_DWORDS instructions"))
    }
}

/// One emulated agent.
pub struct Gpu {
    pub(crate) cfg: GpuConfig,
    pub(crate) gen: Gen,
    pub(crate) mem: Arc<MemoryMap>,
    pub(crate) threads: usize,
    /// Decoded code regions by (base, length, generation): a GFX10 region is decoded once per
    /// wave size its kernels use.
    programs: Mutex<HashMap<(u64, u64, Gen), Arc<Program>>>,
    /// Persistent worker threads (`threads - 1` of them; the dispatching thread is the other),
    /// made on the first dispatch that can use them.
    pool: OnceLock<Pool>,
    /// The kernels this GPU loaded, by kernel object address: name (for fault reports) and
    /// the kernel object's format (for the dispatch).
    kernels: Mutex<HashMap<u64, (String, KernelObjectFormat)>>,
    /// Global wave sync resources.
    pub(crate) gws: Arc<crate::gws::Gws>,
    /// Every function of the loaded code objects (replaced, not changed, on each load).
    functions: Mutex<Arc<Functions>>,
    /// Run every dispatch in a fixed schedule (`HSAEMU_DETERMINISTIC`, `--deterministic`).
    deterministic: AtomicBool,
    /// The loaded blit kernels with a native form, by kernel object address (`blit.rs`).
    blits: Mutex<HashMap<u64, crate::blit::Blit>>,
    /// Run recognised blit kernels natively (off with `HSAEMU_JIT=0`).
    native: AtomicBool,
}

/// The functions of loaded code, for symbolised fault reports.
#[derive(Debug, Default, Clone)]
pub(crate) struct Functions {
    /// By start address: name, size in bytes, load base of the code object.
    by_start: BTreeMap<u64, (String, u64, u64)>,
}

impl Functions {
    fn containing(&self, pc: u64) -> Option<(u64, &(String, u64, u64))> {
        let (&start, f) = self.by_start.range(..=pc).next_back()?;
        (pc < start.saturating_add(f.1.max(1))).then_some((start, f))
    }
    /// The function holding `pc` and the offset into it.
    pub(crate) fn symbolize(&self, pc: u64) -> Option<(&str, u64)> {
        self.containing(pc).map(|(s, f)| (f.0.as_str(), pc - s))
    }
    /// The start of the function holding `pc`.
    pub(crate) fn start_of(&self, pc: u64) -> Option<u64> {
        self.containing(pc).map(|(s, _)| s)
    }
    /// Every function: (start, size, load base of its code object, name).
    pub(crate) fn list(&self) -> Vec<(u64, u64, u64, String)> {
        self.by_start
            .iter()
            .map(|(&s, f)| (s, f.1, f.2, f.0.clone()))
            .collect()
    }
    /// `pc` as an offset in its code object.
    pub(crate) fn code_offset(&self, pc: u64) -> Option<u64> {
        self.containing(pc).map(|(_, f)| pc - f.2)
    }
}

/// How a dispatch may be stopped from outside: a request (queue inactivated or destroyed,
/// runtime shut down) or the watchdog's deadline (`HSAEMU_TIMEOUT=SECONDS`).
#[derive(Debug)]
pub struct Control {
    requested: AtomicBool,
    timed_out: AtomicBool,
    deadline: Option<(Instant, u32)>,
}

impl Control {
    /// A control with the watchdog limit of `HSAEMU_TIMEOUT` (whole seconds; unset or 0:
    /// none), counted from now.
    pub fn new() -> Control {
        Control::with_timeout(watchdog_seconds())
    }
    /// A control whose watchdog stops the dispatch after `seconds` (None: never).
    pub fn with_timeout(seconds: Option<u32>) -> Control {
        Control {
            requested: AtomicBool::new(false),
            timed_out: AtomicBool::new(false),
            deadline: seconds.map(|s| (Instant::now() + Duration::from_secs(u64::from(s)), s)),
        }
    }
    /// Asks the dispatch to stop at its next preemption point.
    pub fn stop(&self) {
        self.requested.store(true, Ordering::Release);
    }
    /// Whether the dispatch must stop now (checks the deadline).
    pub(crate) fn should_stop(&self) -> bool {
        if self.requested.load(Ordering::Relaxed) || self.timed_out.load(Ordering::Relaxed) {
            return true;
        }
        match self.deadline {
            Some((d, _)) if Instant::now() >= d => {
                self.timed_out.store(true, Ordering::Release);
                true
            }
            _ => false,
        }
    }
    /// Why the dispatch was stopped, if it was.
    pub(crate) fn cause(&self) -> Option<StopCause> {
        if self.timed_out.load(Ordering::Acquire) {
            self.deadline.map(|(_, s)| StopCause::Timeout(s))
        } else if self.requested.load(Ordering::Acquire) {
            Some(StopCause::Requested)
        } else {
            None
        }
    }
}

impl Default for Control {
    fn default() -> Self {
        Control::new()
    }
}

/// `HSAEMU_TIMEOUT` in whole seconds (read once).
pub fn watchdog_seconds() -> Option<u32> {
    static SECONDS: OnceLock<Option<u32>> = OnceLock::new();
    *SECONDS.get_or_init(|| {
        std::env::var("HSAEMU_TIMEOUT")
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
            .filter(|&s| s > 0)
    })
}

/// Whether `HSAEMU_DETERMINISTIC` asks for deterministic dispatches (set and not `0`; read
/// once).
pub fn deterministic_requested() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var("HSAEMU_DETERMINISTIC").is_ok_and(|v| !v.is_empty() && v.trim() != "0")
    })
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("cfg", &self.cfg)
            .field("threads", &self.threads)
            .finish()
    }
}

impl Gpu {
    /// A GPU of the configured processor over the shared memory map.
    pub fn new(cfg: GpuConfig, mem: Arc<MemoryMap>) -> Result<Gpu, EmuError> {
        let gen = Gen::from_processor(&cfg.processor)
            .filter(|&g| decode::emulated(g))
            .ok_or_else(|| EmuError::UnsupportedProcessor(cfg.processor.clone()))?;
        let threads = if cfg.threads > 0 {
            cfg.threads
        } else {
            std::env::var("HSAEMU_THREADS")
                .ok()
                .and_then(|s| s.trim().parse::<usize>().ok())
                .filter(|&n| n > 0)
                .unwrap_or_else(|| {
                    std::thread::available_parallelism()
                        .map(|n| n.get())
                        .unwrap_or(1)
                })
        };
        Ok(Gpu {
            cfg,
            gen,
            mem,
            threads,
            programs: Mutex::new(HashMap::new()),
            pool: OnceLock::new(),
            kernels: Mutex::new(HashMap::new()),
            gws: Arc::default(),
            functions: Mutex::new(Arc::new(Functions::default())),
            deterministic: AtomicBool::new(deterministic_requested()),
            blits: Mutex::new(HashMap::new()),
            native: AtomicBool::new(crate::blit::enabled_by_env()),
        })
    }

    /// Runs every later dispatch in a fixed schedule (see `dispatch.rs`), or not. On by
    /// default when `HSAEMU_DETERMINISTIC` is set.
    pub fn set_deterministic(&self, on: bool) {
        self.deterministic.store(on, Ordering::Relaxed);
    }

    /// Whether dispatches run in a fixed schedule.
    pub fn deterministic(&self) -> bool {
        self.deterministic.load(Ordering::Relaxed)
    }

    /// Runs ROCclr's blit kernels natively (the default unless `HSAEMU_JIT=0`), or
    /// interprets them like any kernel.
    pub fn set_native(&self, on: bool) {
        self.native.store(on, Ordering::Relaxed);
    }

    /// The native form of the kernel at `kernel_object`, if it has one and native blits are on.
    pub(crate) fn native_blit(&self, kernel_object: u64) -> Option<crate::blit::Blit> {
        if !self.native.load(Ordering::Relaxed) {
            return None;
        }
        self.blits.lock().get(&kernel_object).copied()
    }

    /// The shared memory map.
    pub fn memory(&self) -> &Arc<MemoryMap> {
        &self.mem
    }

    /// The configuration.
    pub fn config(&self) -> &GpuConfig {
        &self.cfg
    }

    /// The generation the GPU models (for GFX10.3: [`Gen::Gfx10`]; a wave64 kernel runs as
    /// [`Gen::Gfx10W64`]).
    pub fn generation(&self) -> Gen {
        self.gen
    }

    /// Host worker threads a dispatch uses at most.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Loads a code object into fresh host memory (PT_LOAD segments, dynamic relocations),
    /// registers it and returns its symbols' and kernels' addresses. The memory is unregistered
    /// and freed when the result is dropped.
    pub fn load_code_object(&self, bytes: &[u8]) -> Result<LoadedCodeObject, EmuError> {
        self.register(loader::load_bytes(bytes, &self.mem, self.gen)?)
    }

    /// [`Gpu::load_code_object`] for a code object already parsed by hsaemu-codeobject.
    pub fn load(&self, code: &CodeObject) -> Result<LoadedCodeObject, EmuError> {
        self.load_with(code, |_, _| {})
    }

    /// [`Gpu::load`], calling `make_room(base, len)` with the image's pages just before they
    /// are registered (see [`loader::load`]).
    pub fn load_with(
        &self,
        code: &CodeObject,
        make_room: impl FnOnce(u64, u64),
    ) -> Result<LoadedCodeObject, EmuError> {
        self.register(loader::load(code, &self.mem, self.gen, make_room)?)
    }

    /// Records a loaded code object's kernels (and forgets programs decoded at its address).
    fn register(&self, loaded: LoadedCodeObject) -> Result<LoadedCodeObject, EmuError> {
        self.programs.lock().retain(|k, _| k.0 != loaded.base);
        // Forget the kernels and functions of code no longer loaded (and of what this load
        // replaces), so loading in a loop does not grow these tables.
        let live = |a: u64| {
            (a < loaded.base || a >= loaded.base + loaded.size)
                && self
                    .mem
                    .region_of(a)
                    .is_some_and(|r| r.access == Access::Code)
        };
        let mut kernels = self.kernels.lock();
        kernels.retain(|&a, _| live(a));
        for k in &loaded.kernels {
            kernels.insert(k.kernel_object, (k.name.clone(), k.format));
        }
        drop(kernels);
        let mut blits = self.blits.lock();
        blits.retain(|&a, _| live(a));
        blits.extend((loaded.kernels.iter()).filter_map(|k| Some((k.kernel_object, k.blit?))));
        drop(blits);
        let mut functions = self.functions.lock();
        let mut f = Functions::clone(&functions);
        f.by_start.retain(|&a, _| live(a));
        for sym in &loaded.functions {
            f.by_start
                .insert(sym.address, (sym.name.clone(), sym.size, loaded.base));
        }
        *functions = Arc::new(f);
        drop(functions);
        Ok(loaded)
    }

    /// Takes code already in registered memory as loaded (a replay's captured image): the
    /// kernel at `kernel_object` and the functions (start, size, load base, name).
    pub(crate) fn adopt(
        &self,
        kernel_object: u64,
        name: &str,
        format: KernelObjectFormat,
        functions: Vec<(u64, u64, u64, String)>,
    ) {
        self.kernels
            .lock()
            .insert(kernel_object, (name.to_string(), format));
        let mut f = Functions::default();
        for (start, size, base, name) in functions {
            f.by_start.insert(start, (name, size, base));
        }
        *self.functions.lock() = Arc::new(f);
    }

    /// The functions of the loaded code.
    pub(crate) fn functions(&self) -> Arc<Functions> {
        self.functions.lock().clone()
    }

    /// Decodes every function of a loaded code object and reports which mnemonics the emulator
    /// can execute. GFX10 code is decoded in wave32 unless every kernel of the code object is
    /// a wave64 kernel.
    pub fn coverage(&self, code: &LoadedCodeObject) -> Coverage {
        let wave64 = !code.kernels.is_empty()
            && code.kernels.iter().all(|k| {
                let mut bytes = [0u8; hsaemu_codeobject::AMD_KERNEL_CODE_SIZE];
                let raw = &mut bytes[..k.format.size()];
                for (i, b) in raw.iter_mut().enumerate() {
                    *b = host::load(k.kernel_object + i as u64, 1) as u8;
                }
                crate::descriptor::parse(k.format, raw, self.gen)
                    .is_ok_and(|kd| !kd.enable_wavefront_size32())
            });
        self.coverage_as(code, self.gen.with_wave64(wave64))
    }

    /// [`Gpu::coverage`] decoding for `gen` (e.g. [`Gen::Gfx10W64`]).
    pub fn coverage_as(&self, code: &LoadedCodeObject, gen: Gen) -> Coverage {
        // Counted per opcode (its name, occurrences, and whether every occurrence has
        // semantics), named once at the end: a name string per instruction was a third of a
        // sweep over a library like rocSPARSE (docs/notes/ci-time.md, "Round 23").
        let mut seen: Vec<Option<(&'static str, u64, bool)>> =
            vec![None; hsaemu_isa::Opcode::all().len()];
        let mut cov = Coverage::default();
        for sym in &code.functions {
            let Some(program) = self.program_for(sym.address, gen) else {
                continue;
            };
            let mut pc = sym.address;
            while pc < sym.address + sym.size {
                let Some(inst) = program.at(pc) else { break };
                if inst.fmt == crate::decode::Fmt::Invalid {
                    cov.invalid_words += 1;
                    pc += 4;
                    continue;
                }
                cov.instructions += 1;
                let e = seen[inst.opcode as usize].get_or_insert((inst.name(), 0, true));
                e.1 += 1;
                e.2 &= crate::exec::implemented(inst);
                pc += u64::from(inst.size);
            }
        }
        let mut named: BTreeMap<&str, (u64, bool)> = BTreeMap::new();
        for (name, n, ok) in seen.into_iter().flatten() {
            let e = named.entry(name).or_insert((0, true));
            e.0 += n;
            e.1 &= ok;
        }
        cov.mnemonics = named
            .into_iter()
            .map(|(k, (n, ok))| (k.to_string(), n, ok))
            .collect();
        cov
    }

    /// The GPU's worker pool (made on first use).
    pub(crate) fn pool(&self) -> &Pool {
        self.pool
            .get_or_init(|| Pool::new(self.threads.saturating_sub(1)))
    }

    /// The name and kernel object format of the kernel at `kernel_object`, if this GPU loaded
    /// it.
    pub(crate) fn kernel_info(&self, kernel_object: u64) -> Option<(String, KernelObjectFormat)> {
        self.kernels.lock().get(&kernel_object).cloned()
    }

    /// The decoded program for the code region containing `addr`, decoded for `gen` (the
    /// GPU's generation, or its wave64 form for a GFX10 wave64 kernel).
    pub(crate) fn program_for(&self, addr: u64, gen: Gen) -> Option<Arc<Program>> {
        let region = self.mem.region_of(addr)?;
        let key = (region.base, region.len, gen);
        if let Some(p) = self.programs.lock().get(&key) {
            return Some(p.clone());
        }
        if region.access == Access::Read && region.len > (64 << 20) {
            return None;
        }
        let n = (region.len / 4) as usize;
        let words = (0..n as u64)
            .map(|k| host::load(region.base + 4 * k, 4) as u32)
            .collect();
        let p = Arc::new(Program::new(gen, region.base, words));
        let mut programs = self.programs.lock();
        // Code unloaded since (its range left the map) is forgotten, so a process that loads
        // and unloads code objects in a loop keeps a bounded cache (a running dispatch keeps
        // its own reference).
        programs.retain(|k, _| {
            self.mem
                .region_of(k.0)
                .is_some_and(|r| r.base == k.0 && r.len == k.1)
        });
        programs.insert(key, p.clone());
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Fmt;

    /// `s_nop 0`, and `s_mov_b32 s0, <literal>` (SOP1, src0 = 255: a literal follows).
    const S_NOP: u32 = 0xbf80_0000;
    const S_MOV_LIT: u32 = 0xbe80_00ff;

    /// The fields that say which instruction a pre-decoded entry is.
    fn key(i: &Inst) -> (&'static str, u8, u32, u32, Fmt) {
        (i.name(), i.size, i.word, i.lit, i.fmt)
    }

    /// A region of `n` dwords of `s_nop` with `s_mov_b32 s0, lit` (8 bytes) placed so that
    /// their literal is the first word of the next chunk, and at the last dword (its literal
    /// past the region's end).
    fn words(n: usize, straddle: &[usize]) -> Vec<u32> {
        let mut w = vec![S_NOP; n];
        for &k in straddle {
            w[k] = S_MOV_LIT;
            w[k + 1] = 0x1234_5678 ^ k as u32;
        }
        w[n - 1] = S_MOV_LIT;
        w
    }

    #[test]
    fn small_regions_decode_whole_and_large_ones_by_chunk_with_the_same_result() {
        let base = 0x7000_0000_0000u64;
        for n in [1000, EAGER_DWORDS, EAGER_DWORDS + 3 * CHUNK_DWORDS + 5] {
            let straddle: Vec<usize> = [CHUNK_DWORDS - 1, 2 * CHUNK_DWORDS - 1, n - 7]
                .into_iter()
                .filter(|&k| k + 2 < n)
                .collect();
            let w = words(n, &straddle);
            let p = Program::new(Gen::Gfx90a, base, w.clone());
            assert_eq!(p.lazy.is_some(), n > EAGER_DWORDS, "n = {n}");
            if let Some(lazy) = &p.lazy {
                assert!(
                    lazy.chunks.iter().all(|c| c.get().is_none()),
                    "decoded early"
                );
            }
            let mut probes = vec![0, 1, n - 8, n - 7, n - 6, n - 2, n - 1];
            for c in [1, 2, n / CHUNK_DWORDS] {
                if c > 0 && c * CHUNK_DWORDS < n {
                    probes.extend([c * CHUNK_DWORDS - 1, c * CHUNK_DWORDS]);
                }
            }
            for &k in &probes {
                let want = decode::decode(Gen::Gfx90a, &w[k..(k + decode::MAX_DWORDS).min(n)]);
                let got = p.at(base + 4 * k as u64).expect("inside the region");
                assert_eq!(key(got), key(&want), "n = {n}, dword {k}");
            }
            // A literal in the next chunk is read; one past the region's end is not.
            if n > CHUNK_DWORDS {
                let k = CHUNK_DWORDS - 1;
                let i = p.at(base + 4 * k as u64).expect("inside");
                assert_eq!(
                    (i.name(), i.size, i.lit),
                    ("s_mov_b32", 8, 0x1234_5678 ^ k as u32)
                );
            }
            let last = p.at(base + 4 * (n as u64 - 1)).expect("inside");
            assert_eq!(last.fmt, Fmt::Invalid, "n = {n}: literal past the end");
            assert!(p.at(base + 4 * n as u64).is_none(), "n = {n}: past the end");
            assert!(p.at(base + 4 * (n + CHUNK_DWORDS) as u64).is_none());
            assert!(p.at(base - 4).is_none() && p.at(base + 2).is_none());
            // Only the chunks fetched from were decoded.
            if let Some(lazy) = &p.lazy {
                let fetched: std::collections::BTreeSet<usize> =
                    probes.iter().map(|k| k / CHUNK_DWORDS).collect();
                let decoded: std::collections::BTreeSet<usize> = (0..lazy.chunks.len())
                    .filter(|&c| lazy.chunks[c].get().is_some())
                    .collect();
                assert_eq!(decoded, fetched, "n = {n}");
            }
        }
    }

    /// Workers racing for a chunk's first fetch all see the same decoded chunk.
    #[test]
    fn concurrent_first_fetches_of_a_chunk_agree() {
        let base = 0x7000_0000_0000u64;
        let n = EAGER_DWORDS + CHUNK_DWORDS;
        let k = EAGER_DWORDS - 1; // a straddling s_mov_b32 in the last full chunk
        let p = Program::new(Gen::Gfx90a, base, words(n, &[k]));
        let seen: Vec<usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| p.at(base + 4 * k as u64).map(|i| i as *const Inst as usize)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("thread").expect("inside"))
                .collect()
        });
        assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:x?}");
        let i = p.at(base + 4 * k as u64).expect("inside");
        assert_eq!((i.name(), i.size), ("s_mov_b32", 8));
    }
}
