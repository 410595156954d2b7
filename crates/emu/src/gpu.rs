//! The emulated agent: configuration, the decode cache, code-object loading and the dispatch
//! entry point.

use crate::decode::{self, Gen, Inst};
use crate::descriptor::KernelObjectFormat;
use crate::error::{EmuError, Fault};
use crate::loader::{self, LoadedCodeObject};
use crate::memory::{host, Access, MemoryMap};
use crate::pool::Pool;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

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
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig {
            processor: "gfx90a".into(),
            xnack: false,
            threads: 0,
            compute_units: 104,
            lds_size: 65536,
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

/// A decoded code region: one pre-decoded instruction per dword offset.
pub(crate) struct Program {
    pub base: u64,
    pub insts: Vec<Inst>,
}

impl Program {
    /// The instruction at absolute address `pc`.
    #[inline]
    pub(crate) fn at(&self, pc: u64) -> Option<&Inst> {
        let off = pc.wrapping_sub(self.base);
        if !off.is_multiple_of(4) {
            return None;
        }
        self.insts.get((off / 4) as usize)
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
        })
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
        let loaded = loader::load(bytes, &self.mem, self.gen)?;
        self.programs.lock().retain(|k, _| k.0 != loaded.base);
        let mut kernels = self.kernels.lock();
        kernels.retain(|&a, _| a < loaded.base || a >= loaded.base + loaded.size);
        for k in &loaded.kernels {
            kernels.insert(k.kernel_object, (k.name.clone(), k.format));
        }
        drop(kernels);
        Ok(loaded)
    }

    /// Runs one kernel dispatch to completion (blocking the caller).
    pub fn dispatch(&self, d: &Dispatch) -> Result<DispatchStats, Fault> {
        crate::dispatch::run(self, d)
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
        let mut seen: std::collections::BTreeMap<String, (u64, bool)> = Default::default();
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
                let e = seen
                    .entry(inst.name.to_string())
                    .or_insert((0, crate::exec::implemented(inst)));
                e.0 += 1;
                pc += u64::from(inst.size);
            }
        }
        cov.mnemonics = seen.into_iter().map(|(k, (n, ok))| (k, n, ok)).collect();
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
        let mut words = Vec::with_capacity(n + 3);
        for k in 0..n as u64 {
            words.push(host::load(region.base + 4 * k, 4) as u32);
        }
        words.extend_from_slice(&[0, 0, 0]);
        let mut insts = Vec::with_capacity(n);
        for k in 0..n {
            let end = (k + 3).min(n);
            insts.push(decode::decode(gen, &words[k..end]));
        }
        let p = Arc::new(Program {
            base: region.base,
            insts,
        });
        self.programs.lock().insert(key, p.clone());
        Some(p)
    }
}
