//! Grid execution: validates a dispatch, builds the initial wave state from the kernel
//! descriptor (code-object-abi.md §2), and runs the work-groups on the calling thread plus the
//! GPU's persistent pool of host threads (`pool.rs`). Each thread keeps up to [`RESIDENT`]
//! work-groups resident and time-slices among them, and interleaves the waves of a work-group
//! cooperatively (switching at barriers, sleeps, wave end and a quantum), so cross-work-group
//! spinning makes progress and LDS needs no locking. A one-work-group dispatch runs entirely
//! on the caller's thread. Each thread keeps its work-group storage (waves, LDS, the VALU
//! scratch rows) between dispatches, so launching a work-group allocates nothing.

use crate::decode::{Gen, VGPR};
use crate::descriptor::{self, KernelDescriptor, KernelObjectFormat};
use crate::error::{Fault, FaultContext, FaultKind, LiveWave};
use crate::exec::{self, Env, Flow, Scratch};
use crate::gpu::{watchdog_seconds, Control, Dispatch, DispatchStats, Functions, Gpu, Program};
use crate::memory::host::{self, HostBuffer};
use crate::memory::{Access, MemoryMap, RegionCache};
use crate::ops::Op;
use crate::validate::{self, Rejected, Rejection};
use crate::wave::{Wave, WaveState};
use hsaemu_codeobject::AMD_KERNEL_CODE_SIZE;
use parking_lot::Mutex;
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Most scratch memory one dispatch may allocate.
const MAX_SCRATCH: u64 = 16 << 30;
/// Work-groups each host thread keeps resident and time-slices among.
const RESIDENT: usize = 4;
/// Wave-instructions a wave runs before the scheduler switches to the next wave.
const QUANTUM: u32 = 4096;
/// Wave-instructions a region call may run past the end of a wave's turn, outside
/// `--deterministic`: the longest basic block, so that a block which does not fit the rest of
/// the turn runs compiled (the turn ends after it) rather than leaving that rest, and the
/// rest of the block in the next turn, to the interpreter (rocRAND's XORWOW set-up, a
/// 225-instruction loop body, ran a sixth of its iterations interpreted so).
const OVERRUN: u32 = crate::jit::MAX_BLOCK as u32;
/// Wave-instructions a work-group runs before the thread switches to the next work-group.
const WG_SLICE: u64 = 1 << 16;

/// Everything the workers share for one dispatch.
struct Ctx {
    gen: Gen,
    mem: Arc<MemoryMap>,
    d: Dispatch,
    kd: KernelDescriptor,
    kernel: Option<String>,
    program: Arc<Program>,
    entry: u64,
    packet: u64,
    queue: u64,
    wg_count: [u32; 3],
    total_wgs: u64,
    waves_per_wg: u32,
    lds_size: u32,
    private_per_lane: u32,
    clock_mhz: u32,
    scratch_base: u64,
    scratch_size: u64,
    slot_size: u64,
    /// Work-groups each host thread may keep resident (`residency::resident_limit`).
    resident: usize,
    /// The GPU's compute units (for `residency::cu_of`).
    cus: u32,
    gws: Arc<crate::gws::Gws>,
    /// A fixed schedule: clocks count instructions instead of host time.
    deterministic: bool,
    /// The instructions a region call may run from a turn's start ([`region_budget`]).
    turn_budget: u32,
    /// `HSAEMU_TRACE_WAVE`'s tracer, when it selects this dispatch's kernel.
    trace: Option<crate::wavetrace::Tracer>,
    next: AtomicU64,
    /// Host workers of the dispatch: with one, `next` is claimed without a locked instruction.
    workers: usize,
    stop: AtomicBool,
    fault: Mutex<Option<Fault>>,
    /// The caller's stop request and watchdog deadline.
    control: Arc<Control>,
    /// Waves live when the dispatch was stopped from outside.
    live: Mutex<Vec<LiveWave>>,
    /// Function symbols of the loaded code, for fault reports.
    functions: Arc<Functions>,
    /// Totals over finished work-groups: work-groups, wave-instructions, lane-ops, and the
    /// workers (host threads) that ran at least one work-group.
    totals: [AtomicU64; 4],
    /// `--check` is on: what the checkers share for this dispatch.
    check: Option<Arc<crate::check::group::DispatchCheck>>,
    /// Every wave's initial user SGPRs and where its other SGPRs go (`WaveInit`),
    /// and MODE, computed once.
    init: WaveInit,
    mode: u32,
    /// Work-groups may be streamed (`stream_pairs`): where `slice` runs a fresh
    /// work-group's first round with its pairs (`fresh_pairs`), through a prepared call or
    /// (`verify`) checked ones (`Checked`).
    streams: bool,
}

/// What the waves of a dispatch start with, worked out once from the descriptor (the
/// set-up of each wave then writes where these say instead of testing its enable bits).
struct WaveInit {
    /// The user SGPRs (`user_sgprs`); the rest of the scalar file starts zero.
    user_sgprs: [u32; USER_SGPRS],
    /// The SGPRs of the work-group ID's enabled X, Y and Z, in that order, after the user
    /// SGPRs (GFX12: none; its IDs are in TTMP9 and TTMP7).
    wg_id: [Option<usize>; 3],
    /// The SGPR of the work-group info (first wave, wave count), when enabled.
    wg_info: Option<usize>,
    /// The SGPR of the wave's private segment offset, when enabled.
    private_offset: Option<usize>,
    /// Work-item ID dimensions past X in VGPRs (`enable_vgpr_workitem_id`).
    id_dims: u32,
    /// The work-item IDs are packed into v0 (gfx90a, CDNA3, GFX11).
    id_packed: bool,
}

/// User SGPRs the dispatch sets up (s0–s15).
const USER_SGPRS: usize = 16;

/// What a host thread keeps between dispatches: its work-groups' storage (their waves'
/// register files and LDS), by slot, and the VALU scratch rows.
struct Local {
    groups: Vec<Wg>,
    scratch: Box<Scratch>,
}

thread_local! {
    static LOCAL: Cell<Option<Box<Local>>> = const { Cell::new(None) };
}

/// A resident work-group.
struct Wg {
    id: [u32; 3],
    waves: Vec<Wave>,
    /// Per wave: the last global address it loaded from (0: none yet).
    last_load: Vec<u64>,
    lds: Vec<u8>,
    slot: usize,
    executed: u64,
    /// Whether `--trace-wave` selects this work-group.
    traced: bool,
    /// Check state (`--check` only).
    check: Option<Box<crate::check::group::GroupCheck>>,
}

impl Gpu {
    /// Runs one kernel dispatch to completion (blocking the caller), with the watchdog of
    /// `HSAEMU_TIMEOUT`. (Defined here, beside the scheduler, so that `gpu` does not depend on
    /// `dispatch`.)
    pub fn dispatch(&self, d: &Dispatch) -> Result<DispatchStats, Fault> {
        // Without a watchdog nothing can stop it: one shared control, no allocation.
        static UNSTOPPABLE: OnceLock<Arc<Control>> = OnceLock::new();
        let control = match watchdog_seconds() {
            None => UNSTOPPABLE
                .get_or_init(|| Arc::new(Control::with_timeout(None)))
                .clone(),
            Some(_) => Arc::new(Control::new()),
        };
        run(self, d, control)
    }

    /// Runs one kernel dispatch that `control` can stop: it then ends with a
    /// [`FaultKind::Stopped`](crate::FaultKind::Stopped) fault listing every live wave.
    pub fn dispatch_with(
        &self,
        d: &Dispatch,
        control: Arc<Control>,
    ) -> Result<DispatchStats, Fault> {
        run(self, d, control)
    }
}

/// Runs a dispatch to completion, or until `control` stops it.
pub(crate) fn run(gpu: &Gpu, d: &Dispatch, control: Arc<Control>) -> Result<DispatchStats, Fault> {
    // Deterministic mode (docs/debugging.md): one dispatch at a time in the process, all of
    // its work-groups on this one thread, so the schedule (work-group order, wave
    // interleaving by instruction counts, the order of atomics) is fixed by the program alone.
    // Captured dispatches run so too, so that their replay reproduces them.
    static SERIAL: Mutex<()> = Mutex::new(());
    let deterministic = gpu.deterministic() || crate::capture::enabled();
    let _serial = deterministic.then(|| SERIAL.lock());
    let capture = crate::capture::enabled()
        .then(|| {
            let (name, format) = gpu.kernel_info(d.kernel_object).unzip();
            let format = format.unwrap_or(KernelObjectFormat::Descriptor);
            crate::capture::Pending::begin(gpu, d, name.as_deref(), format)
        })
        .flatten();
    let result = run_dispatch(gpu, d, control, deterministic);
    if let Some(c) = capture {
        c.finish(gpu, &result);
    }
    result
}

/// [`run`] once it is known whether the schedule is deterministic.
fn run_dispatch(
    gpu: &Gpu,
    d: &Dispatch,
    control: Arc<Control>,
    deterministic: bool,
) -> Result<DispatchStats, Fault> {
    let start = Instant::now();
    // Memory retired while this dispatch runs stays mapped until it ends.
    let _epoch = gpu.mem.begin_dispatch();
    let geometry = validate::geometry(d, gpu.cfg.lds_size).map_err(Fault::rejected)?;
    // The loader recorded each kernel's format; a kernel object the GPU did not load (or whose
    // memory is no longer loaded code) is taken as a V3+ descriptor.
    let region = gpu.mem.region_of(d.kernel_object);
    let (kernel, format) = match gpu.kernel_info(d.kernel_object) {
        Some((name, format)) if region.is_some_and(|r| r.access == Access::Code) => {
            (Some(name), format)
        }
        _ => (None, KernelObjectFormat::Descriptor),
    };
    let size = format.size();
    if !region.is_some_and(|r| r.covers(d.kernel_object, size as u64)) {
        return Err(Fault::invalid_dispatch(format!(
            "kernel object {:#x} is not inside registered memory",
            d.kernel_object
        )));
    }
    let mut bytes = [0u8; AMD_KERNEL_CODE_SIZE];
    let raw = &mut bytes[..size];
    for (i, b) in raw.iter_mut().enumerate() {
        *b = host::load(d.kernel_object + i as u64, 1) as u8;
    }
    let kd = descriptor::parse(format, raw, gpu.gen).map_err(|e| {
        Fault::invalid_dispatch(format!("kernel object {:#x}: {e}", d.kernel_object))
    })?;
    let entry = d
        .kernel_object
        .wrapping_add(kd.kernel_code_entry_byte_offset as u64);
    if entry.wrapping_sub(d.kernel_object) < format.size() as u64 {
        return Err(Fault::invalid_dispatch(format!(
            "kernel entry {entry:#x} (kernel object {:#x} + {:#x}) lies inside the kernel object itself",
            d.kernel_object, kd.kernel_code_entry_byte_offset
        )));
    }
    // GFX10 runs wave32 and wave64 kernels (ENABLE_WAVEFRONT_SIZE32); GFX8/GFX9 only wave64.
    let wave32 = kd.enable_wavefront_size32();
    if wave32 && !gpu.gen.is_rdna() {
        return Err(Fault::invalid_dispatch(
            "the kernel is compiled for wave32, which this GPU does not support",
        ));
    }
    let gen = gpu.gen.with_wave64(!wave32);
    // GFX10 wave64 shared VGPRs (COMPUTE_PGM_RSRC3.SHARED_VGPR_COUNT, which LLVM leaves 0) are
    // not modelled.
    if gen.is_rdna() && kd.shared_vgpr_count() != 0 {
        return Err(Fault::invalid_dispatch(format!(
            "COMPUTE_PGM_RSRC3.SHARED_VGPR_COUNT is {}: shared VGPRs are not supported",
            kd.shared_vgpr_count()
        )));
    }
    let program = gpu.program_for(entry, gen).ok_or_else(|| {
        Fault::invalid_dispatch(format!(
            "kernel entry {entry:#x} (kernel object {:#x} + {:#x}) is not inside loaded code",
            d.kernel_object, kd.kernel_code_entry_byte_offset
        ))
    })?;
    let lds_size = d.group_segment_size.max(kd.group_segment_fixed_size);
    if lds_size > gpu.cfg.lds_size {
        return Err(Fault::rejected(Rejected::new(
            Rejection::GroupSegment,
            format!(
                "group segment of {lds_size} bytes (the kernel's fixed size {} and the packet's {}) exceeds the {} bytes of LDS",
                kd.group_segment_fixed_size, d.group_segment_size, gpu.cfg.lds_size
            ),
        )));
    }
    let validate::Geometry {
        wg_items,
        wg_count,
        total_wgs,
        ..
    } = geometry;
    let waves_per_wg = wg_items.div_ceil(gen.wave_size());
    let workers = if deterministic {
        1
    } else {
        (gpu.threads as u64).min(total_wgs).max(1) as usize
    };
    let resident = crate::residency::resident_limit(
        d.cooperative,
        RESIDENT,
        total_wgs,
        waves_per_wg,
        &d.compute_units,
        gpu.cfg.compute_units,
    )?;
    // ROCclr's fill and copy kernels become one checked host copy when they can (blit.rs).
    if let Some(stats) = gpu
        .native_blit(d.kernel_object)
        .and_then(|b| crate::blit::run(gpu, d, &b, (total_wgs, waves_per_wg)))
    {
        return Ok(stats);
    }
    // Scratch: one slot per (worker, resident work-group, wave); a cooperative dispatch has one
    // per (work-group, wave). Sized in u64.
    let slots = if d.cooperative {
        total_wgs
    } else {
        (workers * RESIDENT) as u64
    } * u64::from(waves_per_wg);
    let (private_per_lane, slot_size) = validate::scratch(
        d.private_segment_size.max(kd.private_segment_fixed_size),
        gen.wave_size(),
        slots,
        MAX_SCRATCH,
    )
    .map_err(Fault::rejected)?;
    // Below MAX_SCRATCH / 64, so it fits.
    let private_per_lane = private_per_lane as u32;
    let scratch_size = slot_size * slots;

    // The dispatch packet and queue descriptor the kernel may read, when the caller gives none.
    let mut own = OwnPage::new(&gpu.mem);
    let packet = if d.dispatch_packet_address != 0 {
        d.dispatch_packet_address
    } else {
        let mut p = [0u8; 64];
        p[2..4].copy_from_slice(
            &(d.grid_size.iter().filter(|&&g| g > 1).count().max(1) as u16).to_le_bytes(),
        );
        for i in 0..3 {
            p[4 + 2 * i..6 + 2 * i].copy_from_slice(&d.workgroup_size[i].to_le_bytes());
            p[12 + 4 * i..16 + 4 * i].copy_from_slice(&d.grid_size[i].to_le_bytes());
        }
        p[24..28].copy_from_slice(&d.private_segment_size.to_le_bytes());
        p[28..32].copy_from_slice(&d.group_segment_size.to_le_bytes());
        p[32..40].copy_from_slice(&d.kernel_object.to_le_bytes());
        p[40..48].copy_from_slice(&d.kernarg_address.to_le_bytes());
        own.publish(0, 64, &p)?
    };
    // A minimal amd_queue_t: GFX8 code reads the aperture bases at +0x40
    // (group_segment_aperture_base_hi) and +0x44 (private_segment_aperture_base_hi); the rest
    // of the page is zero.
    let queue = if d.queue_address != 0 {
        d.queue_address
    } else {
        let mut q = [0u8; 0x48];
        q[0x40..0x44].copy_from_slice(&crate::memory::SHARED_APERTURE_HI.to_le_bytes());
        q[0x44..0x48].copy_from_slice(&crate::memory::PRIVATE_APERTURE_HI.to_le_bytes());
        own.publish(OwnPage::QUEUE, 256, &q)?
    };

    let mut scratch = None;
    let mut scratch_base = 0;
    if scratch_size > 0 {
        let Some(buf) = HostBuffer::new(scratch_size) else {
            return Err(out_of_memory("scratch memory"));
        };
        if let Err(e) = gpu
            .mem
            .register(buf.base(), scratch_size, Access::ReadWrite)
        {
            return Err(Fault::invalid_dispatch(e.to_string()));
        }
        scratch_base = buf.base();
        scratch = Some(buf);
    }

    let trace =
        crate::wavetrace::Tracer::for_dispatch(kernel.as_deref(), d.grid_size, d.workgroup_size);
    let check = crate::check::active().map(|checker| {
        let kernel_name = kernel.clone().unwrap_or_else(|| format!("{entry:#x}"));
        Arc::new(crate::check::group::DispatchCheck {
            checker,
            seq: checker.next_dispatch(),
            blit: kernel_name.starts_with("__amd_rocclr_"),
            kernel: kernel_name,
            entry,
            functions: gpu.functions(),
            program: program.clone(),
            wg_count,
            waves_per_wg,
            lds_size,
            private_per_lane,
            slot_size,
        })
    });
    let mut ctx = Ctx {
        check,
        init: WaveInit {
            user_sgprs: [0; USER_SGPRS],
            wg_id: [None; 3],
            wg_info: None,
            private_offset: None,
            id_dims: 0,
            id_packed: false,
        },
        mode: descriptor::initial_mode(&kd),
        gen,
        mem: gpu.mem.clone(),
        d: d.clone(),
        kd,
        kernel,
        program,
        entry,
        packet,
        queue,
        wg_count,
        total_wgs,
        waves_per_wg,
        lds_size,
        private_per_lane,
        clock_mhz: gpu.cfg.clock_mhz,
        scratch_base,
        scratch_size,
        slot_size,
        resident,
        cus: gpu.cfg.compute_units,
        gws: gpu.gws.clone(),
        deterministic,
        turn_budget: region_budget(deterministic),
        trace,
        next: AtomicU64::new(0),
        workers,
        stop: AtomicBool::new(false),
        fault: Mutex::new(None),
        totals: Default::default(),
        control,
        live: Mutex::new(Vec::new()),
        functions: gpu.functions(),
        streams: false,
    };
    ctx.init = wave_init(&ctx);
    ctx.streams = gen.wave_size() == 32
        && lds_size == 0
        && !deterministic
        && !gen.is_gfx12()
        && ctx.check.is_none()
        // `verify` too: its pair calls checked, and its relaunched waves (`Checked`).
        && crate::jit::mode() != crate::jit::Mode::Off
        && crate::jit::pairs_on()
        && crate::jit::streams_on();
    let ctx = Arc::new(ctx);
    let mut stats = DispatchStats::default();
    // Worker 0 runs here; workers 1.. are offered to the GPU's pool. A worker that panicked
    // (an emulator bug) must not pass for a finished dispatch.
    let completed = if workers == 1 {
        catch_unwind(AssertUnwindSafe(|| worker(&ctx, 0))).is_ok()
    } else {
        let c = ctx.clone();
        gpu.pool()
            .run(workers - 1, Arc::new(move |index| worker(&c, index)))
    };
    let panicked = !completed;
    if let Some(b) = &scratch {
        let _ = gpu.mem.unregister(b.base());
    }
    drop(scratch);
    drop(own);
    if let Some(f) = ctx.fault.lock().take() {
        return Err(f);
    }
    if let Some(cause) = ctx.control.cause() {
        let mut waves = std::mem::take(&mut *ctx.live.lock());
        waves.sort_by_key(|w| {
            (
                w.workgroup_id[2],
                w.workgroup_id[1],
                w.workgroup_id[0],
                w.wave,
            )
        });
        return Err(Fault {
            kind: FaultKind::Stopped {
                cause,
                waves: waves.into_boxed_slice(),
            },
            kernel: ctx.kernel.clone(),
            ..Fault::invalid_dispatch("")
        });
    }
    if panicked {
        let mut f = Fault::invalid_dispatch(
            "internal emulator error: a worker thread panicked (the dispatch did not complete)",
        );
        f.kernel = ctx.kernel.clone();
        return Err(f);
    }
    stats.workgroups = ctx.totals[0].load(Ordering::Relaxed);
    stats.wave_instructions = ctx.totals[1].load(Ordering::Relaxed);
    stats.lane_ops = ctx.totals[2].load(Ordering::Relaxed);
    stats.threads = ctx.totals[3].load(Ordering::Relaxed) as usize;
    stats.waves = stats.workgroups * u64::from(waves_per_wg);
    stats.elapsed = start.elapsed();
    Ok(stats)
}

/// One page for the dispatch packet (at 0) and the queue descriptor (at [`OwnPage::QUEUE`])
/// of a dispatch whose caller gives neither. Each part is registered read-only while the
/// dispatch runs and unregistered when this is dropped; the page itself is kept per host
/// thread between dispatches, so an empty dispatch allocates (and zeroes) nothing.
struct OwnPage<'m> {
    mem: &'m MemoryMap,
    buf: Option<HostBuffer>,
    /// Registered parts (base addresses; 0: none).
    parts: [u64; 2],
}

thread_local! {
    static SPARE_PAGE: Cell<Option<HostBuffer>> = const { Cell::new(None) };
}

impl<'m> OwnPage<'m> {
    /// Offset of the queue descriptor in the page.
    const QUEUE: u64 = 1024;

    fn new(mem: &'m MemoryMap) -> OwnPage<'m> {
        OwnPage {
            mem,
            buf: None,
            parts: [0; 2],
        }
    }

    /// Writes `bytes` at `offset` and registers `len` bytes there read-only; returns the
    /// address. Bytes of the part past `bytes` are zero (every publisher writes the same
    /// prefix length each time, so the page never holds another dispatch's data there).
    fn publish(&mut self, offset: u64, len: u64, bytes: &[u8]) -> Result<u64, Fault> {
        if self.buf.is_none() {
            let page = SPARE_PAGE
                .with(Cell::take)
                .or_else(|| HostBuffer::new(4096));
            self.buf = Some(page.ok_or_else(|| out_of_memory("the dispatch packet"))?);
        }
        let buf = self.buf.as_ref().expect("allocated just above");
        buf.write(offset, bytes);
        let a = buf.base() + offset;
        self.mem
            .register(a, len, Access::Read)
            .map_err(|e| Fault::invalid_dispatch(e.to_string()))?;
        self.parts[usize::from(offset != 0)] = a;
        Ok(a)
    }
}

impl Drop for OwnPage<'_> {
    fn drop(&mut self) {
        for a in self.parts {
            if a != 0 {
                let _ = self.mem.unregister(a);
            }
        }
        if let Some(b) = self.buf.take() {
            SPARE_PAGE.with(|s| s.set(Some(b)));
        }
    }
}

/// One host worker (index `index` of the dispatch): runs work-groups with this thread's kept
/// storage and adds its counts to the dispatch's totals.
fn worker(ctx: &Ctx, index: usize) {
    let mut local = LOCAL.with(Cell::take).unwrap_or_else(|| {
        Box::new(Local {
            groups: Vec::new(),
            scratch: Scratch::new(),
        })
    });
    let mut pairs = WorkerPairs::default();
    let (wgs, insts, lanes) = run_worker(ctx, index, &mut local, &mut pairs);
    let [chained, chained_insts, chained_lanes] = pairs.chained;
    let (wgs, insts, lanes) = (wgs + chained, insts + chained_insts, lanes + chained_lanes);
    if pairs.runs > 0 {
        crate::jit::PAIR_RUNS.fetch_add(pairs.runs, Ordering::Relaxed);
    }
    if pairs.streamed > 0 {
        crate::jit::STREAMED_GROUPS.fetch_add(pairs.streamed, Ordering::Relaxed);
    }
    if pairs.interpreted > 0 {
        crate::jit::INTERPRETED.fetch_add(pairs.interpreted, Ordering::Relaxed);
    }
    // Keep at most RESIDENT work-groups' storage.
    local.groups.truncate(RESIDENT);
    LOCAL.with(|l| l.set(Some(local)));
    ctx.totals[0].fetch_add(wgs, Ordering::Relaxed);
    ctx.totals[1].fetch_add(insts, Ordering::Relaxed);
    ctx.totals[2].fetch_add(lanes, Ordering::Relaxed);
    ctx.totals[3].fetch_add(u64::from(wgs > 0), Ordering::Relaxed);
}

/// Keeps up to `ctx.resident` work-groups and round-robins among them.
fn run_worker(
    ctx: &Ctx,
    index: usize,
    local: &mut Local,
    pairs: &mut WorkerPairs,
) -> (u64, u64, u64) {
    // The resident work-groups' slots, in round order: each one's `Wg` is `groups[slot]`,
    // which stays in place (moving a `Wg` from spare to resident and back cost ~70 host
    // instructions per work-group).
    let mut resident: Vec<usize> = Vec::with_capacity(ctx.resident);
    let mut free_slots: Vec<usize> = (0..ctx.resident).rev().collect();
    let mut free = ctx.resident;
    let (mut wgs, mut insts, mut lanes) = (0u64, 0u64, 0u64);
    let mut cache = RegionCache::default();
    let Local { groups, scratch } = local;
    loop {
        // One new work-group per round (a round gives each resident work-group a slice), so
        // the first work-groups of a dispatch spread over the threads that join it instead of
        // all landing on the first thread to claim (R7: work-groups run concurrently on
        // different host threads). A thread fills its RESIDENT slots only while its
        // work-groups outlast their slices, e.g. when they spin on one another.
        if free > 0 {
            let n = pairs.claimed.take().unwrap_or_else(|| claim(ctx));
            if n < ctx.total_wgs {
                let slot = free_slots[free - 1];
                free -= 1;
                while groups.len() <= slot {
                    groups.push(Wg {
                        id: [0; 3],
                        waves: Vec::new(),
                        last_load: Vec::new(),
                        lds: Vec::new(),
                        slot: groups.len(),
                        executed: 0,
                        traced: false,
                        check: None,
                    });
                }
                resident.push(slot);
                // Launched in place: a `Wg` moved through the stack after its set-up cost a
                // store-forwarding stall per work-group (a 16-byte load of two 8-byte stores).
                let wg = &mut groups[slot];
                wg.slot = if ctx.d.cooperative {
                    n as usize
                } else {
                    index * RESIDENT + slot
                };
                // The ID rows the worker's fresh pair block takes from lane 0 (`ids_filled`).
                let lazy = pairs.fresh.map_or(0, |f| f.pair.lazy_ids);
                if ctx.streams && pairs.fresh.is_some() {
                    // Taken by its first slice (`slice`), before any other is launched.
                    pairs.launched = launch::<true>(ctx, wg, n, index, lazy).map(|l| (slot, l));
                } else {
                    launch::<false>(ctx, wg, n, index, lazy);
                }
                wg.slot = slot;
            }
        }
        if resident.is_empty() {
            break;
        }
        let mut i = 0;
        while i < resident.len() {
            // Preemption point: a fault elsewhere, a stop request or the watchdog is seen
            // here, between slices (at most WG_SLICE wave-instructions apart, and at every
            // barrier or sleep switch), so the per-instruction loop pays nothing for it.
            if ctx.stop.load(Ordering::Relaxed) || ctx.control.should_stop() {
                if ctx.control.cause().is_some() {
                    report_live(ctx, resident.iter().map(|&slot| &groups[slot]));
                }
                ctx.stop.store(true, Ordering::Relaxed);
                return (wgs, insts, lanes);
            }
            let slot = resident[i];
            pairs.alone = resident.len() == 1;
            match run_slice(ctx, &mut groups[slot], &mut cache, scratch, pairs) {
                Ok(false) => i += 1,
                Ok(true) => {
                    // Finished: every wave ended (a pair call ends B's turn with A's).
                    let wg = &groups[slot];
                    debug_assert!(wg.waves.iter().all(|w| w.state == WaveState::Done));
                    resident.swap_remove(i);
                    wgs += 1;
                    for w in &wg.waves {
                        insts += w.instructions;
                        lanes += w.lane_ops;
                    }
                    free_slots[free] = slot;
                    free += 1;
                }
                Err(f) => {
                    let mut slot = ctx.fault.lock();
                    if slot.is_none() {
                        *slot = Some(f);
                    }
                    ctx.stop.store(true, Ordering::Relaxed);
                    return (wgs, insts, lanes);
                }
            }
        }
    }
    (wgs, insts, lanes)
}

/// Claims the next work-group's number. The only worker of a dispatch claims with a plain
/// load and store: a `lock xadd` also waits for the store buffer to drain (the last wave's
/// row stores), which was 4 % of a gfx1030 vector add.
fn claim(ctx: &Ctx) -> u64 {
    if ctx.workers == 1 {
        let n = ctx.next.load(Ordering::Relaxed);
        ctx.next.store(n + 1, Ordering::Relaxed);
        n
    } else {
        ctx.next.fetch_add(1, Ordering::Relaxed)
    }
}

/// Work-group `n`'s ID (X fastest).
#[inline(always)]
fn wg_id(ctx: &Ctx, n: u64) -> [u32; 3] {
    let [cx, cy, _] = ctx.wg_count.map(u64::from);
    // In the first row of X (every work-group of a 1-D grid) without the three divisions.
    if n < cx {
        [n as u32, 0, 0]
    } else {
        [
            (n % cx) as u32,
            (n / cx % cy) as u32,
            (n / (cx * cy)) as u32,
        ]
    }
}

/// The SGPRs work-group `id`'s IDs go in and their values, into `ids`; how many.
#[inline(always)]
fn id_sgprs(ctx: &Ctx, id: [u32; 3], ids: &mut [(usize, u32); 3]) -> usize {
    let mut n = 0;
    if ctx.gen.is_gfx12() {
        // GFX12 architected SGPRs: the work-group IDs are in TTMP9 (x) and TTMP7 (y in
        // 15:0, z in 31:16), not after the user SGPRs (LLVM's `architected-sgprs`).
        ids[0] = (TTMP0 + 9, id[0]);
        ids[1] = (TTMP0 + 7, (id[1] & 0xffff) | id[2] << 16);
        n = 2;
    } else {
        for (at, v) in ctx.init.wg_id.iter().zip(id) {
            if let Some(r) = *at {
                ids[n] = (r, v);
                n += 1;
            }
        }
    }
    n
}

/// Sets up work-group `n`'s waves (initial register state, their compute unit) and LDS;
/// `worker` is the index of the host worker that runs it. `lazy`: the ID rows
/// (`Wave::id_rows` bits) the worker's fresh pair block takes from their lane 0, which
/// then alone is written where every wave of the work-group is vouched for and will pair
/// (`slice` and `fresh_pairs` write the rest, `ids_filled`, for any wave that does not).
/// `STREAM`: the dispatch's work-groups may be streamed (`Ctx::streams`, `stream_pairs`) and
/// the worker has a fresh pair block (`FreshPair`), one whose waves pair as a whole then
/// launched streamed (waves 0 and 1 alone): returns how, for its first slice.
fn launch<const STREAM: bool>(
    ctx: &Ctx,
    wg: &mut Wg,
    n: u64,
    worker: usize,
    lazy: u8,
) -> Option<WgLaunch> {
    let id = wg_id(ctx, n);
    wg.id = id;
    wg.executed = 0;
    wg.traced = ctx.trace.as_ref().is_some_and(|t| t.selects_wg(n, id));
    let wgsz = ctx.d.workgroup_size.map(u32::from);
    // Actual size of this (possibly partial) work-group.
    let actual = [0, 1, 2].map(|i| wgsz[i].min(ctx.d.grid_size[i] - id[i] * wgsz[i]));
    let items = actual[0] * actual[1] * actual[2];
    let lanes = ctx.gen.wave_size();
    let nwaves = items.div_ceil(lanes) as usize;
    // Lane 0 alone of the ID rows the pair block takes from there where every wave lies in
    // X's first row (full, its rows vouched for: `ids_in_one_row`, Y and Z 0) and `slice`'s
    // pair variant runs the work-group (its first round fills the rows of the waves its
    // fresh pairs do not take): `Wave::id_rows`, those rows also as lazy
    // (`ID_ROWS_LAZY_SHIFT`).
    let vouched = if ctx.init.id_packed {
        crate::wave::ID_ROW0_LANE
    } else {
        crate::wave::ID_ROW0_LANE | crate::wave::ID_ROW1_UNIFORM
    };
    // v0 always among them (v1 alone: not worth a case).
    let lazy = if lazy & crate::wave::ID_ROW0_LANE != 0
        && lazy & !vouched == 0
        && lanes == 32
        && actual[0] == items
        && items % 32 == 0
        && ctx.init.id_dims < 2
        && ctx.lds_size == 0
        && ctx.check.is_none()
        && !wg.traced
    {
        vouched | lazy << crate::wave::ID_ROWS_LAZY_SHIFT
    } else {
        0
    };
    while wg.waves.len() < nwaves {
        wg.waves.push(Wave::colored(wg.waves.len()));
    }
    wg.last_load.clear();
    wg.last_load.resize(wg.waves.len(), 0);
    wg.lds.clear();
    wg.lds.resize(ctx.lds_size as usize, 0);
    match &ctx.check {
        Some(d) => {
            if !wg.check.as_ref().is_some_and(|g| g.is_for(d)) {
                wg.check = Some(Box::new(crate::check::group::GroupCheck::new(d.clone())));
            }
            if let Some(g) = &mut wg.check {
                g.launch(n, id, nwaves);
            }
        }
        None => wg.check = None,
    }
    let cu = crate::residency::cu_of(&ctx.d.compute_units, ctx.cus, n);
    let mut ids = [(0usize, 0u32); 3];
    let nids = id_sgprs(ctx, id, &mut ids);
    // v1 (Y, 0) is vouched for but not taken from lane 0: written whole.
    let v1_whole = lazy != 0 && (lazy >> crate::wave::ID_ROWS_LAZY_SHIFT) & vouched != vouched;
    let one = WaveSetUp {
        cu,
        worker: worker as u32,
        slot: wg.slot,
        lazy,
        actual,
        items,
        lanes,
        nwaves: nwaves as u32,
    };
    // Streamed (`stream_pairs`): waves 0 and 1 alone, the others launched into them pair by
    // pair; every wave full and pairing with the next (whole pairs), more than one pair, and
    // `slice`'s pair variant to run it (not traced).
    let streamed =
        STREAM && items == 64 * (nwaves as u32 / 2) && nwaves > 2 && lanes == 32 && !wg.traced;
    let launched = if streamed { 2 } else { nwaves };
    for (wi, w) in wg.waves.iter_mut().enumerate() {
        if wi >= launched {
            // A wave kept from a larger work-group (idle, counted as nothing), or one a
            // streamed launch sets up later (counted as nothing until then).
            if w.state != WaveState::Done || w.instructions | w.lane_ops != 0 {
                w.state = WaveState::Done;
                w.instructions = 0;
                w.lane_ops = 0;
            }
            // Its rows are an earlier work-group's (and may have been written since).
            w.id_rows = 0;
            continue;
        }
        set_up_wave(ctx, w, wi, &ids[..nids], &one);
    }
    if v1_whole && !streamed {
        // Out of the loop, which a test per wave made slower.
        let v = crate::wave::reg_index(VGPR) + 1;
        for w in &mut wg.waves[..nwaves] {
            w.v[v][..32].fill(0);
        }
    }
    streamed.then_some(WgLaunch {
        ids,
        nids,
        v1_whole,
        wave: one,
    })
}

/// What [`launch`] worked out for a work-group, kept while a streamed launch sets up its waves
/// pair by pair.
#[derive(Clone, Copy)]
struct WgLaunch {
    /// The work-group ID SGPRs and their values (the first `nids`: `id_sgprs`).
    ids: [(usize, u32); 3],
    nids: usize,
    /// v1 is vouched for but not lazy: written whole.
    v1_whole: bool,
    wave: WaveSetUp,
}

/// What [`set_up_wave`] reads of its work-group besides the ID SGPRs.
#[derive(Clone, Copy)]
struct WaveSetUp {
    cu: u32,
    worker: u32,
    /// The scratch slot's index (`Wg::slot` while it is launched).
    slot: usize,
    /// The ID rows taken from lane 0 (`Wave::id_rows`), 0: all written.
    lazy: u8,
    /// Work-items, and per dimension, of this (possibly partial) work-group; lanes of a
    /// wave and its waves.
    actual: [u32; 3],
    items: u32,
    lanes: u32,
    nwaves: u32,
}

/// Sets up wave `wi` of the work-group [`launch`] worked out as `l` in `w`: its initial
/// register state (SGPRs, EXEC, the ID rows) and fields.
#[inline(always)]
fn set_up_wave(ctx: &Ctx, w: &mut Wave, wi: usize, ids: &[(usize, u32)], l: &WaveSetUp) {
    let init = &ctx.init;
    let lanes = l.lanes;
    let first = wi as u32 * lanes;
    let live = (l.items - first).min(lanes);
    // The low `live` bits (1 to 64): one shift, no test of 64.
    let exec = u64::MAX >> (64 - live);
    w.start(&init.user_sgprs, lanes == 32, exec);
    for &(r, v) in ids {
        w.s[r] = v;
        w.sgpr_dirty |= 1 << (r / 4);
    }
    w.id = wi as u32;
    w.cu = l.cu;
    w.simd = l.worker % 4;
    w.pc = ctx.entry;
    w.mode = ctx.mode;
    let slot_index = (l.slot as u64) * u64::from(ctx.waves_per_wg) + wi as u64;
    let wave_offset = slot_index * ctx.slot_size;
    w.scratch_base = ctx.scratch_base + wave_offset;
    if let Some(r) = init.wg_info {
        w.s[r] = (u32::from(wi == 0) << 31) | l.nwaves;
        w.sgpr_dirty |= 1 << (r / 4);
    }
    if let Some(r) = init.private_offset {
        w.s[r] = wave_offset as u32;
        w.sgpr_dirty |= 1 << (r / 4);
    }
    if l.lazy != 0 {
        lazy_id_rows(w, first, l.lazy);
    } else {
        workitem_ids(ctx, w, first, l.actual, lanes);
    }
}

/// The ID rows of a wave whose first work-item is `first`, where the fresh pair block takes
/// rows `lazy` (`Wave::id_rows`, `launch`) from lane 0.
#[inline(always)]
fn lazy_id_rows(w: &mut Wave, first: u32, lazy: u8) {
    // v0's lane 0 the first work-item (Y and Z 0, packed or not), v1's Y (0): lanes 0–3,
    // one 16-byte store each (lane 0 alone as a 4-byte store made the dispatch slower, by
    // a guess a 16-byte load of the group failing store forwarding).
    let v = crate::wave::reg_index(VGPR);
    w.v[v][..4].copy_from_slice(&[first, first + 1, first + 2, first + 3]);
    // Usually zero already: tested, stored only when not (as `Wave::start`'s fields).
    if w.v[v + 1][..4] != [0; 4] {
        w.v[v + 1][..4].fill(0);
    }
    w.id_rows = lazy;
}

/// What every wave of the dispatch starts with (`WaveInit`): its user SGPRs, then the
/// SGPRs the descriptor enables after them (code-object-abi.md §2), in this order.
fn wave_init(ctx: &Ctx) -> WaveInit {
    let kd = &ctx.kd;
    let mut r = kd.user_sgpr_count() as usize;
    let mut next = |on: bool| {
        on.then(|| {
            r += 1;
            r - 1
        })
    };
    let wg_id = if ctx.gen.is_gfx12() {
        [None; 3]
    } else {
        [
            next(kd.enable_sgpr_workgroup_id_x()),
            next(kd.enable_sgpr_workgroup_id_y()),
            next(kd.enable_sgpr_workgroup_id_z()),
        ]
    };
    let wg_info = next(kd.enable_sgpr_workgroup_info());
    let private_offset = next(kd.enable_private_segment());
    WaveInit {
        user_sgprs: user_sgprs(ctx),
        wg_id,
        wg_info,
        private_offset,
        id_dims: kd.enable_vgpr_workitem_id(),
        id_packed: ctx.gen.unified_agprs() || ctx.gen.is_gfx11(),
    }
}

/// The user SGPRs every wave of the dispatch starts with (code-object-abi.md §2), the same
/// for all of them: computed once per dispatch. Past [`USER_SGPRS`] none is written.
fn user_sgprs(ctx: &Ctx) -> [u32; USER_SGPRS] {
    let kd = &ctx.kd;
    let mut s = [0u32; USER_SGPRS];
    let mut r = 0usize;
    let mut put = |v: u32| {
        if r < USER_SGPRS {
            s[r] = v;
        }
        r += 1;
    };
    if kd.enable_sgpr_private_segment_buffer() {
        put(ctx.scratch_base as u32);
        put(((ctx.scratch_base >> 32) as u32 & 0xffff) | 1 << 31);
        put(ctx.scratch_size.min(u64::from(u32::MAX)) as u32);
        put(scratch_rsrc_word3(ctx.gen));
    }
    if kd.enable_sgpr_dispatch_ptr() {
        put(ctx.packet as u32);
        put((ctx.packet >> 32) as u32);
    }
    if kd.enable_sgpr_queue_ptr() {
        put(ctx.queue as u32);
        put((ctx.queue >> 32) as u32);
    }
    if kd.enable_sgpr_kernarg_segment_ptr() {
        put(ctx.d.kernarg_address as u32);
        put((ctx.d.kernarg_address >> 32) as u32);
    }
    if kd.enable_sgpr_dispatch_id() {
        put(ctx.d.dispatch_id as u32);
        put((ctx.d.dispatch_id >> 32) as u32);
    }
    if kd.enable_sgpr_flat_scratch_init() {
        put(ctx.scratch_base as u32);
        if ctx.gen == Gen::Gfx8 {
            put(ctx.private_per_lane);
        } else {
            put((ctx.scratch_base >> 32) as u32);
        }
    }
    if kd.enable_sgpr_private_segment_size() {
        put(ctx.private_per_lane);
    }
    s
}

/// Writes the work-item IDs of the wave whose first work-item is `first` (of a work-group of
/// `actual` items) into its VGPRs: the wave's lanes only (lanes 32–63 of a wave32 wave are
/// never read), straight into the rows.
#[inline(always)]
fn workitem_ids(ctx: &Ctx, w: &mut Wave, first: u32, actual: [u32; 3], lanes: u32) {
    let dims = ctx.init.id_dims;
    // gfx90a, CDNA3 and GFX11 pack the work-item IDs into v0 (10 bits each).
    let packed = ctx.init.id_packed;
    let n = lanes as usize;
    // The packed v0: X, and Y and Z where the kernel reads them.
    let pack = |x: u32, y: u32, z: u32| {
        let mut v0 = x & 0x3ff;
        if dims > 0 {
            v0 |= (y & 0x3ff) << 10;
        }
        if dims > 1 {
            v0 |= (z & 0x3ff) << 20;
        }
        v0
    };
    if actual[0] >= first + lanes {
        // The whole wave lies in one row of X (every 1-D work-group): y and z are fixed.
        // (Divided only when read: two divisions were a tenth of a wave's set-up.)
        let cy = if dims > 0 {
            first / actual[0] % actual[1]
        } else {
            0
        };
        let cz = if dims > 1 {
            first / (actual[0] * actual[1])
        } else {
            0
        };
        // Y and Z are the same for every lane: packed once (X < 1024 = the largest
        // work-group, so X alone fills its field).
        let yz = if packed { pack(0, cy, cz) } else { 0 };
        // The wave's lanes as a fixed count: the fills then test nothing between their
        // groups of lanes (16 host instructions per wave32).
        if n == 32 {
            ids_in_one_row::<32>(w, first, yz, [cy, cz], packed, dims);
        } else {
            ids_in_one_row::<{ crate::wave::LANES }>(w, first, yz, [cy, cz], packed, dims);
        }
        return;
    }
    ids_in_rows(w, first, actual, n, packed, dims);
}

/// [`workitem_ids`] for a wave of `n` lanes not in the work-group's first row of X: in
/// another one alone (a 32-wide work-group's wave32s), as the first row's, not vouched
/// for; else each row's
/// run of lanes filled as one, Y and Z fixed in it (a 32x32 work-group's wave64 is two
/// runs; lane by lane this was ~30 host instructions a lane, a tenth of rocm-examples'
/// convolution). Not inlined: the one-row fills of 1-D work-groups stay as they were.
#[inline(never)]
fn ids_in_rows(w: &mut Wave, first: u32, actual: [u32; 3], n: usize, packed: bool, dims: u32) {
    let v = crate::wave::reg_index(VGPR);
    let (mut cx, mut cy, mut cz) = (
        first % actual[0],
        first / actual[0] % actual[1],
        first / (actual[0] * actual[1]),
    );
    // X < 1024: the fields do not carry into each other.
    let yz = |cy: u32, cz: u32| {
        (if dims > 0 { (cy & 0x3ff) << 10 } else { 0 })
            | (if dims > 1 { (cz & 0x3ff) << 20 } else { 0 })
    };
    if cx as usize + n <= actual[0] as usize {
        // In one row after all, not the first (a 32-wide work-group's wave32s): filled as
        // the first row's, but vouched for by nothing (`id_rows`), since a vouched v0 is
        // the wave's first work-item's flat index plus the lane, which a pair's B takes
        // as A's continued (`jit/affine.rs`' `fresh_waves_take_their_id_rows_from_the_
        // dispatch` fails otherwise).
        let yz = if packed { yz(cy, cz) } else { 0 };
        if n == 32 {
            ids_in_one_row::<32>(w, cx, yz, [cy, cz], packed, dims);
        } else {
            ids_in_one_row::<{ crate::wave::LANES }>(w, cx, yz, [cy, cz], packed, dims);
        }
        w.id_rows = 0;
        return;
    }
    let mut l = 0;
    while l < n {
        let run = ((actual[0] - cx) as usize).min(n - l);
        let lanes = l..l + run;
        if packed {
            let yz = yz(cy, cz);
            for (x, id) in w.v[v][lanes].iter_mut().zip(cx..) {
                *x = yz | id;
            }
        } else {
            for (x, id) in w.v[v][lanes.clone()].iter_mut().zip(cx..) {
                *x = id;
            }
            if dims > 0 {
                w.v[v + 1][lanes.clone()].fill(cy);
            }
            if dims > 1 {
                w.v[v + 2][lanes].fill(cz);
            }
        }
        l += run;
        cx = 0;
        cy += 1;
        if cy == actual[1] {
            cy = 0;
            cz += 1;
        }
    }
}

/// [`workitem_ids`] for a wave of `N` lanes lying in one row of X, lane 0's X `x0` (the
/// work-group's Y and Z `yz`, packed, or `cy` and `cz`).
#[inline(always)]
fn ids_in_one_row<const N: usize>(
    w: &mut Wave,
    x0: u32,
    yz: u32,
    [cy, cz]: [u32; 2],
    packed: bool,
    dims: u32,
) {
    let v = crate::wave::reg_index(VGPR);
    // v0 is `x0 + lane` (X < 1024: the packed fields do not carry into each other);
    // the compiling tier skips testing what is set here (`Wave::id_rows`).
    w.id_rows = crate::wave::ID_ROW0_LANE;
    if packed {
        for (x, id) in w.v[v][..N].iter_mut().zip(x0..) {
            *x = yz | id;
        }
    } else {
        for (l, x) in w.v[v][..N].iter_mut().enumerate() {
            *x = x0 + l as u32;
        }
        // v1 is Y, or undefined when the kernel does not enable it (cy is then 0):
        // filled either way, so the tier's test of it is skipped too (vector add's
        // `v_mad_u64_u32` reads v[0:1] on GFX10).
        w.v[v + 1][..N].fill(cy);
        w.id_rows |= crate::wave::ID_ROW1_UNIFORM;
        if dims > 1 {
            w.v[v + 2][..N].fill(cz);
        }
    }
}

/// Writes the ID rows `launch` left in lanes 0–3 alone into all 32 lanes (v0 lane 0 plus the
/// lane, v1 lane 0's value): before anything but the fresh pair block reads them.
#[cold]
fn ids_filled(w: &mut Wave) {
    let lazy = w.id_rows >> crate::wave::ID_ROWS_LAZY_SHIFT;
    let v = crate::wave::reg_index(VGPR);
    if lazy & crate::wave::ID_ROW0_LANE != 0 {
        let base = w.v[v][0];
        for (l, x) in w.v[v][..32].iter_mut().enumerate() {
            *x = base + l as u32;
        }
    }
    if lazy & crate::wave::ID_ROW1_UNIFORM != 0 {
        let y = w.v[v + 1][0];
        w.v[v + 1][..32].fill(y);
    }
    w.id_rows &= (1 << crate::wave::ID_ROWS_LAZY_SHIFT) - 1;
}

/// Word 3 of the Private Segment Buffer V# (code-object-abi.md §5.3): DST_SEL XYZW, 32-bit
/// data, 4-byte swizzle elements, index stride = the wave size, ADD_TID_ENABLE. GFX10 has no
/// ELEMENT_SIZE field (elements are 4 bytes) and a unified FORMAT; CP fills INDEX_STRIDE from
/// the wave size, RESOURCE_LEVEL is 1 and OOB_SELECT 2 (no range check).
fn scratch_rsrc_word3(gen: Gen) -> u32 {
    const DST_SEL_XYZW: u32 = 4 | 5 << 3 | 6 << 6 | 7 << 9;
    const ADD_TID_ENABLE: u32 = 1 << 23;
    if gen.is_rdna() {
        const BUF_FMT_32_UINT: u32 = 20;
        let index_stride = if gen.wave_size() == 32 { 2 } else { 3 };
        DST_SEL_XYZW
            | BUF_FMT_32_UINT << 12
            | index_stride << 21
            | ADD_TID_ENABLE
            | 1 << 24
            | 2 << 28
    } else {
        // NUM_FORMAT UINT, DATA_FORMAT 32, ELEMENT_SIZE 4 bytes, INDEX_STRIDE 64.
        DST_SEL_XYZW | 4 << 12 | 4 << 15 | 1 << 19 | 3 << 21 | ADD_TID_ENABLE
    }
}

/// The scalar register number of `ttmp0` (the emulator's register file numbering).
const TTMP0: usize = 108;

/// Runs a work-group for up to one slice. Returns whether it finished. The interpreter variant
/// (checkers on or off, a wave trace or none, pair calls or none) is chosen here, once per
/// slice, so the scheduler loop and the per-instruction loop of a plain dispatch test none.
fn run_slice(
    ctx: &Ctx,
    wg: &mut Wg,
    cache: &mut RegionCache,
    scratch: &mut Scratch,
    pairs: &mut WorkerPairs,
) -> Result<bool, Fault> {
    let traced = wg.traced && ctx.trace.is_some();
    // Wave64s never pair: their rounds have no pair bookkeeping. Nor do kernels with LDS:
    // pair regions hold no DS access, and such kernels' rounds (a barrier's, every wave
    // after a region ends at one) would pay the look-ahead for no pair: gfx1030's LDS
    // reduction took 18 % more host instructions with it (docs/architecture-emu.md,
    // "Pairs only without LDS").
    let may_pair = ctx.gen.wave_size() == 32 && ctx.lds_size == 0;
    match (wg.check.is_some(), traced, may_pair) {
        (false, false, true) => slice::<false, false, true>(ctx, wg, cache, scratch, pairs),
        (false, false, false) => slice::<false, false, false>(ctx, wg, cache, scratch, pairs),
        (true, false, _) => slice::<true, false, false>(ctx, wg, cache, scratch, pairs),
        (false, true, _) => slice::<false, true, false>(ctx, wg, cache, scratch, pairs),
        (true, true, _) => slice::<true, true, false>(ctx, wg, cache, scratch, pairs),
    }
}

/// [`run_slice`] for one variant: `CHECK`, the checkers of `--check` see every memory access
/// and barrier; `TRACE`, the waves `--trace-wave` selects run under a recorder; `PAIRS`, the
/// waves are wave32s, of which two may run in one region call (`enter_pair`).
fn slice<const CHECK: bool, const TRACE: bool, const PAIRS: bool>(
    ctx: &Ctx,
    wg: &mut Wg,
    cache: &mut RegionCache,
    scratch: &mut Scratch,
    pairs: &mut WorkerPairs,
) -> Result<bool, Fault> {
    let Wg {
        id: wg_id,
        waves,
        last_load,
        lds,
        executed,
        check,
        slot,
        ..
    } = wg;
    let mut id = *wg_id;
    // Launched streamed: its first slice.
    let mut streamed = match PAIRS && *executed == 0 {
        true => take_streamed(pairs, *slot),
        false => None,
    };
    let mut env = Env {
        gen: ctx.gen,
        mem: &ctx.mem,
        cache,
        lds: lds.as_mut_slice(),
        private_per_lane: ctx.private_per_lane,
        scratch,
        clock_mhz: ctx.clock_mhz,
        gws: &ctx.gws,
        deterministic: ctx.deterministic,
        check: if CHECK { check.as_deref_mut() } else { None },
        barrier: crate::exec::BarrierState::default(),
    };
    let budget_end = *executed + WG_SLICE;
    // The compiling tier, chosen once per slice like the variant: off under `--check` (its
    // checkers see only interpreted accesses) and for traced waves (which see every
    // instruction), so the plain interpreter's loop has no test of it.
    let mode = crate::jit::mode();
    let mut tier = match ctx.program.jit_slots() {
        Some(slots) if !CHECK && mode != crate::jit::Mode::Off => Some(Tier {
            slots,
            verify: mode == crate::jit::Mode::Verify,
            last: None,
            endpgm: None,
            worker: pairs,
            // Pairs change the waves' interleaving, which `--deterministic` keeps as the
            // interpreter's; traced waves and GFX12's barrier counts see each wave alone.
            pairs: (PAIRS
                && !ctx.deterministic
                && !TRACE
                && !ctx.gen.is_gfx12()
                && crate::jit::pairs_on())
            .then_some(0),
        }),
        _ => None,
    };
    let gfx12 = ctx.gen.is_gfx12();
    // One region call context for the slice's entries outside `verify` (whose runs take a
    // journal each): its pointers are `env`'s, which stays in place for the slice.
    let mut prepared = match &tier {
        Some(t) if !t.verify => Some(crate::jit::CallCtx::new(&mut env, None)),
        _ => None,
    };
    // A work-group that has run nothing: its first round may begin with `fresh_pairs`.
    let mut fresh = PAIRS && *executed == 0;
    // The region cache's `last_load` is 0 at each turn's start: cleared here and where a
    // turn's is kept (`last_load[wi]`), so a turn that loads nothing costs no store.
    env.cache.last_load = 0;
    loop {
        let mut progressed = false;
        // A round's waves share their block lookups only: a block published meanwhile (a
        // recompiled region) is taken up by the next round.
        if let Some(t) = &mut tier {
            t.last = None;
        }
        // Waves still running and waiting at the barrier after this round.
        let (mut running, mut waiting) = (0usize, 0usize);
        // The round's first waves, when fresh pairs took them (their iterations' work done).
        let mut first = 0;
        let fresh_round = std::mem::take(&mut fresh);
        if let (true, Some(t)) = (fresh_round, &mut tier) {
            if !CHECK && !TRACE && t.pairs.is_some() {
                let round = Round {
                    waves: &mut *waves,
                    last_load: &mut *last_load,
                    executed: &mut *executed,
                    running: 0,
                    waiting: 0,
                    progressed: false,
                };
                let l = streamed.take();
                let r = match &mut prepared {
                    Some(call) => first_pairs(ctx, wg_id, round, &mut env, t, call, l),
                    // `verify`: each pair call checked against the interpreter (`Checked`).
                    None => first_pairs(ctx, wg_id, round, &mut env, t, &mut Checked::new(), l),
                };
                // A streamed work-group may have gone on with the next work-groups.
                id = *wg_id;
                (first, running, waiting, progressed) = r?;
                // `Round::finish` keeps the last loads without clearing.
                env.cache.last_load = 0;
            }
        }
        if PAIRS && fresh_round {
            if let Some(l) = streamed.take() {
                // Streamed, but the round did not begin with its pairs: every wave launched.
                launch_rest(ctx, waves, 2, &l);
            }
            // The waves no fresh pair took: their ID rows whole (`launch` may have written
            // lanes 0–3 alone for the pair block).
            for w in &mut waves[first..] {
                if w.id_rows >> crate::wave::ID_ROWS_LAZY_SHIFT != 0 {
                    ids_filled(w);
                }
            }
        }
        // The barrier as each wave of this round sees it (GFX12's `s_barrier_signal_isfirst`
        // and `s_get_barrier_state` read it; other generations skip the counting): only the
        // running wave changes state, so the counts follow it.
        if gfx12 {
            env.barrier = barrier_state(waves);
        }
        // The turn of the wave after a pair call ran both (`enter_pair`) and did not end
        // it: where it resumes.
        let mut paired: Option<Resume> = None;
        let mut round = waves.iter_mut().enumerate().peekable();
        if first > 0 {
            round.nth(first - 1);
        }
        while let Some((wi, w)) = round.next() {
            let pair_turn = paired.take();
            if w.state != WaveState::Running {
                waiting += usize::from(w.state == WaveState::Barrier);
                continue;
            }
            let before = w.instructions;
            match ctx.trace.as_ref() {
                Some(t) if TRACE && t.selects_wave(wi as u32) => {
                    let base = ctx
                        .functions
                        .code_offset(ctx.entry)
                        .map_or(0, |o| ctx.entry - o);
                    let mut rec =
                        crate::wavetrace::WaveRecorder::new(t, &ctx.mem, id, wi as u32, base);
                    rec.slot_size = ctx.slot_size;
                    run_wave::<CHECK, _>(ctx, id, w, &mut env, &mut rec, None, Resume::START)?;
                }
                _ => {
                    let resume = match (tier.as_mut(), prepared.as_mut(), pair_turn) {
                        // Its first part ran with the wave before it.
                        (_, _, Some(r)) => Some(r),
                        (Some(t), call, None) => {
                            let next = match PAIRS && w.wave32 && t.pairs.is_some() {
                                true => round.peek_mut().map(|(_, b)| &mut **b),
                                false => None,
                            };
                            let pair = match (call, next) {
                                (Some(call), Some(b)) => enter_pair(ctx, w, b, t, call),
                                (None, Some(b)) => match verify_pair(ctx, w, b, t, &mut env) {
                                    Ok(r) => r,
                                    Err(detail) => {
                                        let kind = FaultKind::TierMismatch { detail };
                                        return Err(fault(ctx, id, w, w.pc, None, kind, None));
                                    }
                                },
                                _ => None,
                            };
                            match pair {
                                Some((ra, rb, n)) => {
                                    // B's instructions of the pair call count here (its
                                    // own turn's count starts after them).
                                    *executed += u64::from(n);
                                    progressed = true;
                                    match rb {
                                        Some(r) => paired = Some(r),
                                        // B's turn ended with A's, B in A's state
                                        // (at a barrier or done), which A's counts
                                        // below stand for: its iteration is skipped.
                                        None => {
                                            round.next();
                                        }
                                    }
                                    ra
                                }
                                None => match prepared.as_mut() {
                                    Some(call) => match enter_turn(ctx, w, t, call) {
                                        Entered::Goes(r) => Some(r),
                                        // The region ended the turn: the round's counts
                                        // from `enter`'s answer, the wave not read again.
                                        Entered::Over { n, parked } => {
                                            *executed += u64::from(n);
                                            progressed = true;
                                            if env.cache.last_load != 0 {
                                                last_load[wi] = env.cache.last_load;
                                                env.cache.last_load = 0;
                                            }
                                            if parked {
                                                waiting += 1;
                                                env.barrier.signalled += u32::from(gfx12);
                                            } else {
                                                env.barrier.members -= u32::from(gfx12);
                                            }
                                            continue;
                                        }
                                    },
                                    None => Some(Resume::START),
                                },
                            }
                        }
                        _ => Some(Resume::START),
                    };
                    if let Some(resume) = resume {
                        run_wave::<CHECK, _>(ctx, id, w, &mut env, &mut (), tier.as_mut(), resume)?;
                    }
                }
            }
            if env.cache.last_load != 0 {
                last_load[wi] = env.cache.last_load;
                env.cache.last_load = 0;
            }
            match w.state {
                WaveState::Running => running += 1,
                WaveState::Barrier => {
                    waiting += 1;
                    env.barrier.signalled += u32::from(gfx12);
                }
                WaveState::Done => env.barrier.members -= u32::from(gfx12),
            }
            let after = w.instructions;
            progressed |= after > before;
            *executed += after - before;
        }
        // Barrier release: every wave that has not ended is waiting.
        if waiting > 0 && running == 0 {
            for w in waves.iter_mut().filter(|w| w.state == WaveState::Barrier) {
                w.state = WaveState::Running;
            }
            if CHECK {
                if let Some(g) = env.check.as_deref_mut() {
                    g.barrier();
                }
            }
            // The slice ends here too: a loop around a barrier must not keep the thread (and
            // its preemption point) forever.
            if *executed >= budget_end {
                return Ok(false);
            }
            continue;
        }
        if running == 0 && waiting == 0 {
            return Ok(true);
        }
        if *executed >= budget_end || !progressed {
            return Ok(false);
        }
    }
}

/// The barrier as the first wave of a round sees it (GFX12's, `slice`). Not inlined: its
/// vectorised counts' constants were kept live across the round and loaded again after
/// every region call, for every generation.
#[inline(never)]
fn barrier_state(waves: &[Wave]) -> crate::exec::BarrierState {
    crate::exec::BarrierState {
        signalled: waves
            .iter()
            .filter(|w| w.state == WaveState::Barrier)
            .count() as u32,
        members: waves.iter().filter(|w| w.state != WaveState::Done).count() as u32,
    }
}

/// The compiling tier as a slice runs it: the program's slots, whether to verify each
/// region run, and the block the round's last wave entered and where. The waves of a
/// work-group resume at the same PC after a barrier (and start at the same entry), so the
/// next one takes that block without the lookup.
struct Tier<'a> {
    slots: &'a Arc<crate::jit::Slots>,
    verify: bool,
    last: Option<(u64, &'static crate::jit::Block)>,
    /// The PC of an `s_endpgm` a region stopped at: the waves of a work-group end at the
    /// same one, so the next takes it without the program lookup (its two dependent loads
    /// after the region's store of the PC were a tenth of the slice's time).
    endpgm: Option<u64>,
    /// With pair calls of two wave32s (`enter_pair`): how many this slice made.
    pairs: Option<u64>,
    /// The worker's pair state for this dispatch.
    worker: &'a mut WorkerPairs,
}

/// A worker's pair state for one dispatch: its [`FreshPair`], found by its first fresh pair
/// to enter a pair block, and the pair calls its slices made, added to `jit::PAIR_RUNS` once
/// when it ends (a locked add per slice, i.e. per work-group of vector add, also waited for
/// the store buffer to drain, as `claim`'s did).
#[derive(Default)]
struct WorkerPairs {
    fresh: Option<FreshPair>,
    runs: u64,
    /// The worker runs one work-group (its only resident one): `stream_pairs` may chain.
    alone: bool,
    /// A work-group `chain` claimed and left for `run_worker` to launch.
    claimed: Option<u64>,
    /// Work-groups, wave-instructions and lane-ops of those `stream_pairs` ran to the end
    /// and chained from, counted as `run_worker` counts its own.
    chained: [u64; 3],
    /// Work-groups whose pairs all ran streamed (`jit::STREAMED_GROUPS`).
    streamed: u64,
    /// Wave-instructions the interpreter ran in the tier's dispatch (`jit::INTERPRETED`).
    interpreted: u64,
    /// The work-group in this slot launched streamed (`launch`), and how, until its first
    /// slice takes it (`take_streamed`).
    launched: Option<(usize, WgLaunch)>,
}

/// The launch of the work-group in `slot` when it was launched streamed and its first slice
/// has not taken it yet (`WorkerPairs::launched`).
#[inline(always)]
fn take_streamed(pairs: &mut WorkerPairs, slot: usize) -> Option<WgLaunch> {
    match pairs.launched {
        Some((s, _)) if s == slot => pairs.launched.take().map(|(_, l)| l),
        _ => None,
    }
}

/// The pair block that a *fresh* pair (two waves of a work-group that have run nothing yet)
/// enters at the kernel's entry, found by the dispatch's first fresh pair to enter one: the
/// next fresh pairs skip [`pairable`], `Block::runs` and [`equal_sgprs`]. They would pass
/// them: a fresh wave is at the entry with SCC clear, the dispatch's MODE and wave size,
/// the dispatch's user SGPRs, its work-group's IDs and zeros but for EXEC and the SGPRs
/// the set-up writes per wave ([`compares_per_wave`]: such a pair block is not kept).
/// Kept per worker and dispatch, and taken only while `block` is still the one published
/// at `pc` (a recompiled region's pair block is asked for again).
#[derive(Clone, Copy)]
struct FreshPair {
    pc: u64,
    block: &'static crate::jit::Block,
    pair: &'static crate::jit::Block,
}

/// Whether pair block `equal` (its `pair_equal`) compares an SGPR that two fresh waves of
/// one work-group may hold different values in: the work-group info (its first-wave bit),
/// the private segment offset, EXEC_LO and VCC_LO (never compared: `jit/pair.rs`; the high
/// halves are zero in every fresh wave32).
fn compares_per_wave(equal: &[u8], init: &WaveInit) -> bool {
    equal.iter().any(|&c| {
        let c = usize::from(c);
        init.wg_info == Some(c) || init.private_offset == Some(c) || matches!(c, 106 | 126)
    })
}

impl Drop for Tier<'_> {
    fn drop(&mut self) {
        if let Some(n) = self.pairs {
            self.worker.runs += n;
        }
    }
}

impl Tier<'_> {
    /// Whether the instruction at `pc` is `s_endpgm`.
    #[inline(always)]
    fn is_endpgm(&mut self, program: &Program, pc: u64) -> bool {
        if self.endpgm == Some(pc) {
            return true;
        }
        let end = program.at(pc).is_some_and(|i| i.op == Op::S_ENDPGM);
        if end {
            self.endpgm = Some(pc);
        }
        end
    }
}

/// Where [`run_wave`] takes up a wave's turn: the instructions of the turn already run, whether
/// the PC is a block start, and whether the region there declined its first instruction.
#[derive(Clone, Copy)]
struct Resume {
    turn: u32,
    at_start: bool,
    declined: bool,
}

impl Resume {
    /// A turn from its start.
    const START: Resume = Resume {
        turn: 0,
        at_start: true,
        declined: false,
    };
}

/// Starts a wave's turn in the compiled block at its PC through the slice's prepared `call`:
/// what [`run_wave`]'s first pass does, without a context per entry, and without the lookup
/// when the round's previous wave entered the same block there (every wave of a round after
/// a barrier's release, or at a work-group's start, but the first). Returns where `run_wave`
/// takes the turn up (`None`: the turn is over, the wave parked at a barrier or ended at
/// `s_endpgm`).
#[inline(always)]
fn enter(ctx: &Ctx, w: &mut Wave, t: &mut Tier, call: &mut crate::jit::CallCtx) -> Option<Resume> {
    match enter_turn(ctx, w, t, call) {
        Entered::Goes(r) => Some(r),
        Entered::Over { .. } => None,
    }
}

/// What [`enter_turn`] did with a wave's turn.
enum Entered {
    /// The region ended the turn: `n` instructions counted (the region's, and `s_endpgm`'s
    /// when the wave ended), the wave parked at a barrier (`parked`) or done.
    Over { n: u32, parked: bool },
    /// Where [`run_wave`] takes the turn up.
    Goes(Resume),
}

/// [`enter`], with the instructions and the state of a turn the region ended, so `slice`'s
/// round counts them without reading the wave again.
#[inline(always)]
fn enter_turn(ctx: &Ctx, w: &mut Wave, t: &mut Tier, call: &mut crate::jit::CallCtx) -> Entered {
    let b = match t.last {
        Some((at, b)) if at == w.pc => b,
        // The round's first wave: a block published at its PC (else `run_wave` counts the
        // start towards compiling it).
        _ => match t.slots.block(ctx.program.index(w.pc)) {
            Some(b) => {
                t.last = Some((w.pc, b));
                b
            }
            None => return Entered::Goes(Resume::START),
        },
    };
    if !b.runs(w) {
        return Entered::Goes(Resume::START);
    }
    // The turn began with the last one's barrier tail (`Wave::ahead`).
    let ahead = std::mem::take(&mut w.ahead);
    // SAFETY: `slice` made `call` from its `Env`, which stays in place with the same LDS and
    // region cache for the slice and is not borrowed while a wave runs here.
    match unsafe { b.call(call, w, ctx.turn_budget - ahead) } {
        // Declined: the interpreter runs this instruction, as part of the turn's first.
        (0, _) => Entered::Goes(Resume {
            turn: ahead,
            at_start: false,
            declined: true,
        }),
        (n, parked) => {
            w.instructions += u64::from(n);
            // The SGPRs its instructions may have written (its calls into the interpreter
            // run only those instructions).
            w.sgpr_dirty |= b.sgpr_groups;
            if region_ended_turn(&ctx.program, t, w, parked, n + ahead) {
                // `s_endpgm` counted when the wave ended.
                let n = n + u32::from(!parked);
                return Entered::Over { n, parked };
            }
            Entered::Goes(Resume {
                turn: n + ahead,
                at_start: true,
                declined: false,
            })
        }
    }
}

/// Where a pair call's waves A and B take their turns up (as [`enter`]'s answer), and the
/// instructions each executed in it.
type PairResume = (Option<Resume>, Option<Resume>, u32);

/// Whether waves `a` and `b` (the next of a work-group) may start a pair call
/// (`jit::Block::call_pair`) from their turns' start: both wave32 and running at the same
/// PC with the same SCC, neither after a barrier tail (`Wave::ahead`: a pair call's turn
/// counts from 0).
#[inline(always)]
fn pairable(a: &Wave, b: &Wave) -> bool {
    a.wave32
        && b.wave32
        && b.state == WaveState::Running
        && a.pc == b.pc
        && a.scc == b.scc
        && a.ahead | b.ahead == 0
}

/// Whether `a` and `b` hold the same values in the SGPRs `equal` (a pair block's
/// `pair_equal`: those it reads as values before writing them; the others, VCC_LO and
/// EXEC_LO among them, may differ).
#[inline(always)]
fn equal_sgprs(a: &Wave, b: &Wave, equal: &[u8]) -> bool {
    equal
        .iter()
        .all(|&c| a.s[usize::from(c) & 127] == b.s[usize::from(c) & 127])
}

/// Starts the turns of waves `a` and `b` (the next one) in one call of the pair variant of
/// the block at their PC, when they are [`pairable`] and it has one (compiled here on
/// first use). Returns where each one's turn goes on (as [`enter`]) and the instructions
/// each executed; `None` when nothing ran (each then enters alone).
#[inline(always)]
fn enter_pair(
    ctx: &Ctx,
    a: &mut Wave,
    b: &mut Wave,
    t: &mut Tier,
    call: &mut crate::jit::CallCtx,
) -> Option<PairResume> {
    let p = pair_block(ctx, a, b, t)?;
    // SAFETY: as `enter`'s; `a` and `b` are two waves of the slice's work-group.
    let (n, parked) = match unsafe { p.call_pair(call, a, b, QUANTUM) } {
        (0, _) => return None,
        r => r,
    };
    Some(pair_ran(ctx, a, b, t, p, (n, parked)))
}

/// [`enter_pair`] in `verify` mode (`jit::run_pair_checked`): the pair's run checked
/// against the interpreter's, or the difference.
fn verify_pair(
    ctx: &Ctx,
    a: &mut Wave,
    b: &mut Wave,
    t: &mut Tier,
    env: &mut Env,
) -> Result<Option<PairResume>, String> {
    let Some(p) = pair_block(ctx, a, b, t) else {
        return Ok(None);
    };
    let program = &*ctx.program;
    let fetch = |x: u64| program.at(x).copied();
    let (n, parked) = match crate::jit::run_pair_checked(p, a, b, QUANTUM, &fetch, env)? {
        (0, _) => return Ok(None),
        r => r,
    };
    Ok(Some(pair_ran(ctx, a, b, t, p, (n, parked))))
}

/// The pair variant of the block at the PC of waves `a` and `b` when they may run as a
/// pair there ([`pairable`]; compiled here on first use).
#[inline(always)]
fn pair_block(ctx: &Ctx, a: &Wave, b: &Wave, t: &mut Tier) -> Option<&'static crate::jit::Block> {
    t.pairs?;
    // Neither has run an instruction (`FreshPair`; `a` is running).
    let fresh = a.instructions == 0 && b.instructions == 0 && b.state == WaveState::Running;
    if !fresh && !pairable(a, b) {
        return None;
    }
    let blk = match t.last {
        Some((at, blk)) if at == a.pc => blk,
        _ => {
            let blk = t.slots.block(ctx.program.index(a.pc))?;
            t.last = Some((a.pc, blk));
            blk
        }
    };
    if fresh {
        match t.worker.fresh {
            Some(f) if f.pc == a.pc && std::ptr::eq(f.block, blk) => {
                debug_assert!(pairable(a, b) && blk.runs(a) && blk.runs(b));
                return Some(f.pair);
            }
            _ if !pairable(a, b) => return None,
            _ => {}
        }
    }
    if !blk.runs(a) || !blk.runs(b) {
        return None;
    }
    let p = blk
        .pair_block()
        .filter(|p| equal_sgprs(a, b, &p.pair_equal))?;
    if fresh && !compares_per_wave(&p.pair_equal, &ctx.init) {
        t.worker.fresh = Some(FreshPair {
            pc: a.pc,
            block: blk,
            pair: p,
        });
    }
    Some(p)
}

/// After pair block `p` ran `n` instructions of both waves' turns: each wave's count and
/// written SGPR groups, and where its turn goes on (as [`enter`]).
#[inline(always)]
fn pair_ran(
    ctx: &Ctx,
    a: &mut Wave,
    b: &mut Wave,
    t: &mut Tier,
    p: &'static crate::jit::Block,
    (n, parked): (u32, bool),
) -> PairResume {
    if pair_ended(ctx, a, b, t, p, (n, parked)) {
        return (None, None, n);
    }
    let r = Some(Resume {
        turn: n,
        at_start: true,
        declined: false,
    });
    (r, r, n)
}

/// [`pair_ran`]'s counts, and whether the pair call ended both turns (B then in A's state).
#[inline(always)]
fn pair_ended(
    ctx: &Ctx,
    a: &mut Wave,
    b: &mut Wave,
    t: &mut Tier,
    p: &'static crate::jit::Block,
    (n, parked): (u32, bool),
) -> bool {
    if let Some(k) = t.pairs.as_mut() {
        *k += 1;
    }

    for w in [&mut *a, &mut *b] {
        w.instructions += u64::from(n);
        w.sgpr_dirty |= p.sgpr_groups;
    }
    // The pair region leaves both waves at one PC (its exit stores it into both) with
    // one `parked`: A's end of turn is B's, decided once.
    debug_assert_eq!(a.pc, b.pc);
    if region_ended_turn(&ctx.program, t, a, parked, n) {
        b.state = a.state;
        // The `s_endpgm` that `region_ended_turn` counted for A.
        b.instructions += u64::from(a.state == WaveState::Done);
        return true;
    }
    false
}

/// What `fresh_pairs` does for the round: its waves, their last loads and the work-group's
/// count of instructions, and the round's counts so far.
struct Round<'a> {
    waves: &'a mut [Wave],
    last_load: &'a mut [u64],
    executed: &'a mut u64,
    running: usize,
    waiting: usize,
    progressed: bool,
}

impl Round<'_> {
    /// The end of wave `wi`'s iteration in the round, as `slice`'s: its turn from `resume`
    /// (`None`: over), its last load, state and instructions since `before`.
    #[inline(always)]
    fn finish(
        &mut self,
        ctx: &Ctx,
        id: [u32; 3],
        wi: usize,
        (before, resume): (u64, Option<Resume>),
        env: &mut Env,
        t: &mut Tier,
    ) -> Result<(), Fault> {
        let w = &mut self.waves[wi];
        if let Some(resume) = resume {
            run_wave::<false, _>(ctx, id, w, env, &mut (), Some(t), resume)?;
        }
        if env.cache.last_load != 0 {
            self.last_load[wi] = env.cache.last_load;
        }
        match w.state {
            WaveState::Running => self.running += 1,
            WaveState::Barrier => self.waiting += 1,
            WaveState::Done => {}
        }
        self.progressed |= w.instructions > before;
        *self.executed += w.instructions - before;
        Ok(())
    }
}

/// The start of a fresh work-group's first round (`slice`'s, with pairs): waves 0 and 1, 2
/// and 3, … while both of a pair are fresh (at the kernel's entry, nothing run) and the
/// worker's [`FreshPair`] is the block there, each pair in one call of its pair block, and
/// what the round's iterations would do for them after it, in their order, without the
/// round's look-ahead and tests per wave (vector add: every work-group's pairs end their
/// waves here). Returns the waves done (the round goes on with the next), the round's
/// running and waiting waves and whether it progressed.
#[inline(never)]
fn fresh_pairs<C: PairCall>(
    ctx: &Ctx,
    id: [u32; 3],
    round: Round,
    env: &mut Env,
    t: &mut Tier,
    call: &mut C,
) -> Result<(usize, usize, usize, bool), Fault> {
    match fresh_pair(ctx, t) {
        Some(f) => fresh_pairs_from(ctx, id, round, env, t, call, f, 0, None),
        None => Ok((0, round.running, round.waiting, round.progressed)),
    }
}

/// The worker's [`FreshPair`] while its block is the one at the entry, as `pair_block`
/// finds it: looked up once for a round's pairs (a round's waves share their block
/// lookups, `slice`).
#[inline(always)]
fn fresh_pair(ctx: &Ctx, t: &mut Tier) -> Option<FreshPair> {
    let (f, blk) = t.worker.fresh.and_then(|f| match t.last {
        Some((at, blk)) if at == f.pc => Some((f, blk)),
        _ => Some((f, t.slots.block(ctx.program.index(f.pc))?)),
    })?;
    if !std::ptr::eq(f.block, blk) {
        return None;
    }
    t.last = Some((f.pc, blk));
    Some(f)
}

/// [`fresh_pairs`] from wave `wi` on with the worker's fresh pair `f`; `ran`: what the call
/// of its pair block on waves `wi` and `wi + 1` gave, when it was made already
/// (`stream_pairs`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn fresh_pairs_from<C: PairCall>(
    ctx: &Ctx,
    id: [u32; 3],
    mut round: Round,
    env: &mut Env,
    t: &mut Tier,
    call: &mut C,
    f: FreshPair,
    mut wi: usize,
    mut ran: Option<(u32, bool)>,
) -> Result<(usize, usize, usize, bool), Fault> {
    let p = f.pair;
    while let [a, b, ..] = &mut round.waves[wi..] {
        let (n, parked) = match ran.take() {
            Some(r) => r,
            None => {
                let fresh = a.state == WaveState::Running
                    && b.state == WaveState::Running
                    && a.instructions | b.instructions == 0
                    && a.pc == f.pc;
                if !fresh {
                    // The round's iterations go on from `a` (nothing done for it yet).
                    break;
                }
                debug_assert!(pairable(a, b));
                env.cache.last_load = 0;
                // SAFETY: as `enter`'s; `a` and `b` are two waves of the slice's work-group.
                match unsafe { call.pair(ctx, p, a, b, env) } {
                    Ok(r) => r,
                    Err(detail) => return Err(mismatch(ctx, id, a, detail)),
                }
            }
        };
        // Fresh: A had run nothing.
        let before = 0;
        if n == 0 {
            // Nothing ran: A enters alone, B's iteration is the round's (which fills B's
            // rows, `slice`).
            if a.id_rows >> crate::wave::ID_ROWS_LAZY_SHIFT != 0 {
                ids_filled(a);
            }
            let resume = call.enter(ctx, a, t);
            round.finish(ctx, id, wi, (before, resume), env, t)?;
            wi += 1;
            break;
        }
        // B's instructions of the pair call count here, as in the round.
        *round.executed += u64::from(n);
        if pair_ended(ctx, a, b, t, p, (n, parked)) {
            // Both turns ended: A's iteration's end (B's is skipped, as the round's).
            round.finish(ctx, id, wi, (before, None), env, t)?;
        } else {
            // The turns go on: A's, then B's.
            let r = Some(Resume {
                turn: n,
                at_start: true,
                declined: false,
            });
            round.finish(ctx, id, wi, (before, r), env, t)?;
            env.cache.last_load = 0;
            let before_b = round.waves[wi + 1].instructions;
            round.finish(ctx, id, wi + 1, (before_b, r), env, t)?;
        }
        wi += 2;
    }
    Ok((wi, round.running, round.waiting, round.progressed))
}

/// A fresh work-group's first round with its pairs through `call`: streamed when it was
/// launched so (`l`, `stream_pairs`), else `fresh_pairs`. `id`: the work-group's ID, which a
/// streamed one's chaining moves on.
#[inline(always)]
fn first_pairs<C: PairCall>(
    ctx: &Ctx,
    id: &mut [u32; 3],
    round: Round,
    env: &mut Env,
    t: &mut Tier,
    call: &mut C,
    l: Option<WgLaunch>,
) -> Result<(usize, usize, usize, bool), Fault> {
    match l {
        Some(l) => stream_pairs(ctx, id, round, env, t, call, &l),
        None => fresh_pairs(ctx, *id, round, env, t, call),
    }
}

/// How `fresh_pairs` and `stream_pairs` call a pair block and start a wave's turn: through
/// the slice's prepared context ([`crate::jit::CallCtx`]), or in `verify` mode each run
/// checked against the interpreter ([`Checked`]). A type parameter, so the prepared path
/// tests nothing for `verify`.
trait PairCall {
    /// Runs pair block `p` on waves `a` and `b` from their turns' start
    /// (`Block::call_pair`'s answer), or how its run differs from the interpreter's.
    ///
    /// # Safety
    /// As `Block::call_pair`'s: `a` and `b` are two waves of the slice's work-group, and the
    /// slice made its prepared context from `env`, which stays in place for the slice.
    unsafe fn pair(
        &mut self,
        ctx: &Ctx,
        p: &'static crate::jit::Block,
        a: &mut Wave,
        b: &mut Wave,
        env: &mut Env,
    ) -> Result<(u32, bool), String>;

    /// Starts wave `w`'s turn alone: where `run_wave` takes it up (as [`enter`]).
    fn enter(&mut self, ctx: &Ctx, w: &mut Wave, t: &mut Tier) -> Option<Resume>;

    /// Checks waves `wi` and `wi + 1` of work-group `id` as `relaunch` set them up (`l`).
    fn relaunched(
        &mut self,
        ctx: &Ctx,
        id: [u32; 3],
        waves: [&Wave; 2],
        wi: usize,
        l: &WgLaunch,
    ) -> Result<(), String>;
}

impl PairCall for crate::jit::CallCtx {
    #[inline(always)]
    unsafe fn pair(
        &mut self,
        _: &Ctx,
        p: &'static crate::jit::Block,
        a: &mut Wave,
        b: &mut Wave,
        _: &mut Env,
    ) -> Result<(u32, bool), String> {
        // SAFETY: the caller's (this context is the slice's, made from its `Env`).
        Ok(unsafe { p.call_pair(self, a, b, QUANTUM) })
    }

    #[inline(always)]
    fn enter(&mut self, ctx: &Ctx, w: &mut Wave, t: &mut Tier) -> Option<Resume> {
        enter(ctx, w, t, self)
    }

    #[inline(always)]
    fn relaunched(
        &mut self,
        _: &Ctx,
        _: [u32; 3],
        _: [&Wave; 2],
        _: usize,
        _: &WgLaunch,
    ) -> Result<(), String> {
        Ok(())
    }
}

/// [`PairCall`] in `verify` mode: each pair call checked against the interpreter
/// (`jit::run_pair_checked`, as `verify_pair`), a wave alone left to `run_wave` (which checks
/// every region it runs), and every relaunched wave against a fresh launch of it
/// ([`check_relaunch`]), which the checked runs cannot see: they start both runs from the
/// relaunched state, right or wrong.
struct Checked {
    /// The fresh launch a relaunched wave is compared with (allocated at the first).
    fresh: Option<Box<Wave>>,
}

impl Checked {
    fn new() -> Checked {
        Checked { fresh: None }
    }
}

impl PairCall for Checked {
    unsafe fn pair(
        &mut self,
        ctx: &Ctx,
        p: &'static crate::jit::Block,
        a: &mut Wave,
        b: &mut Wave,
        env: &mut Env,
    ) -> Result<(u32, bool), String> {
        let program = &*ctx.program;
        let fetch = |x: u64| program.at(x).copied();
        crate::jit::run_pair_checked(p, a, b, QUANTUM, &fetch, env)
    }

    fn enter(&mut self, _: &Ctx, _: &mut Wave, _: &mut Tier) -> Option<Resume> {
        Some(Resume::START)
    }

    fn relaunched(
        &mut self,
        ctx: &Ctx,
        id: [u32; 3],
        waves: [&Wave; 2],
        wi: usize,
        l: &WgLaunch,
    ) -> Result<(), String> {
        let fresh = self.fresh.get_or_insert_with(|| Box::new(Wave::new()));
        for (k, w) in waves.into_iter().enumerate() {
            check_relaunch(ctx, id, w, wi + k, l, fresh)?;
        }
        Ok(())
    }
}

/// Whether `w`, set up by `relaunch` as wave `wi` of work-group `id` (launched as `l`), is
/// what `launch` gives that wave: its set-up again in `fresh` by [`set_up_wave`], from the
/// work-group's ID (its ID SGPRs and compute unit worked out anew, not taken from `l`, which
/// `chain` rewrote) and a scalar file of zeros. Compared: every SGPR, the fields `Wave::start`
/// sets and the lanes of v0–v2 the set-up writes (its other lanes and rows are undefined at
/// a wave's start); and every SGPR group holding something must be in `sgpr_dirty` (which
/// `Wave::start` zeroes alone). Else the difference.
#[cold]
fn check_relaunch(
    ctx: &Ctx,
    id: [u32; 3],
    w: &Wave,
    wi: usize,
    l: &WgLaunch,
    fresh: &mut Wave,
) -> Result<(), String> {
    let [cx, cy, _] = ctx.wg_count.map(u64::from);
    let n = u64::from(id[0]) + cx * (u64::from(id[1]) + cy * u64::from(id[2]));
    let mut ids = [(0usize, 0u32); 3];
    let nids = id_sgprs(ctx, id, &mut ids);
    let set_up = WaveSetUp {
        cu: crate::residency::cu_of(&ctx.d.compute_units, ctx.cus, n),
        ..l.wave
    };
    // The ID rows as relaunched: the set-up writes the lanes it defines over them.
    let v = crate::wave::reg_index(VGPR);
    for r in v..v + 3 {
        fresh.v[r] = w.v[r];
    }
    fresh.s = [0; 128];
    fresh.sgpr_dirty = 0;
    set_up_wave(ctx, fresh, wi, &ids[..nids], &set_up);
    if l.v1_whole {
        fresh.v[v + 1][..32].fill(0);
    }
    let mut diffs = Vec::new();
    for (c, (x, y)) in w.s.iter().zip(&fresh.s).enumerate() {
        if x != y {
            diffs.push(format!("s[{c}]: relaunched {x:#x}, launched {y:#x}"));
        }
        if *x != 0 && w.sgpr_dirty >> (c / 4) & 1 == 0 {
            diffs.push(format!(
                "s[{c}] ({x:#x}) not in sgpr_dirty {:#x}",
                w.sgpr_dirty
            ));
        }
    }
    for r in 0..3 {
        for lane in 0..32 {
            let (x, y) = (w.v[v + r][lane], fresh.v[v + r][lane]);
            if x != y {
                diffs.push(format!("v{r}[{lane}]: relaunched {x:#x}, launched {y:#x}"));
            }
        }
    }
    // Not `ahead_size` or `ds_tops`: read only while `ahead` or `ds_marks` say so.
    let fields = |w: &Wave| {
        [
            ("pc", w.pc),
            ("mode", u64::from(w.mode)),
            ("scc", u64::from(w.scc)),
            ("state", w.state as u64),
            ("id", u64::from(w.id)),
            ("cu", u64::from(w.cu)),
            ("simd", u64::from(w.simd)),
            ("scratch_base", w.scratch_base),
            ("instructions", w.instructions),
            ("lane_ops", w.lane_ops),
            ("wave32", u64::from(w.wave32)),
            ("lane_mask", w.lane_mask),
            ("id_rows", u64::from(w.id_rows)),
            ("trapsts", u64::from(w.trapsts)),
            ("sleep", u64::from(w.sleep)),
            ("ahead", u64::from(w.ahead)),
            ("flat_scratch", w.flat_scratch),
            ("stored", u64::from(w.stored)),
            ("gws_wait", u64::from(w.gws_wait.is_some())),
            ("tile_marks", w.tile_marks),
            ("ds_marks", w.ds_marks),
        ]
    };
    for ((name, x), (_, y)) in fields(w).into_iter().zip(fields(fresh)) {
        if x != y {
            diffs.push(format!("{name}: relaunched {x:#x}, launched {y:#x}"));
        }
    }
    if diffs.is_empty() {
        return Ok(());
    }
    diffs.truncate(8);
    Err(format!(
        "wave {wi} of streamed work-group {id:?} as `relaunch` set it up differs from its \
         launch: {}",
        diffs.join("; ")
    ))
}

/// The fault a difference from the interpreter (`verify`) is reported as, at wave `w`.
#[cold]
fn mismatch(ctx: &Ctx, id: [u32; 3], w: &Wave, detail: String) -> Fault {
    let kind = FaultKind::TierMismatch { detail };
    fault(ctx, id, w, w.pc, None, kind, None)
}

/// A streamed work-group's first round (`launch`'s `streamed`, launched as `l`): its pairs
/// run one after the other in waves 0 and 1, each pair set up in them once the one before
/// ended both its waves at `s_endpgm` in its pair call (vector add: every pair), so a
/// work-group's set-up writes two waves' state instead of all of them, and its pairs skip
/// the round's bookkeeping. While the worker runs no other work-group, the next work-group
/// it claims goes on in the same two waves when it is whole (`chain`): what `run_worker`
/// would do next, without its launch and slice. Every other way on puts the pair in its own
/// waves, launches the work-group's remaining waves and goes on as [`fresh_pairs`] (same
/// results, counts and reports as without streaming). Returns as `fresh_pairs`, for the
/// work-group in the slot then, whose ID is `id`.
#[inline(never)]
fn stream_pairs<C: PairCall>(
    ctx: &Ctx,
    id: &mut [u32; 3],
    mut round: Round,
    env: &mut Env,
    t: &mut Tier,
    call: &mut C,
    l: &WgLaunch,
) -> Result<(usize, usize, usize, bool), Fault> {
    let nwaves = l.wave.nwaves as usize;
    let Some(f) = fresh_pair(ctx, t).filter(|f| f.pc == ctx.entry) else {
        launch_rest(ctx, round.waves, 2, l);
        return fresh_pairs(ctx, *id, round, env, t, call);
    };
    let p = f.pair;
    // Every later wave's set-up.
    let r = Relaunch::new(&round.waves[1], p);
    let mut l = *l;
    // The instructions and lane-ops of the work-group's pairs before the one in waves 0, 1.
    let (mut instructions, mut lane_ops) = (0u64, 0u64);
    let mut wi = 0;
    loop {
        let [a, b, ..] = &mut *round.waves else {
            unreachable!("a streamed work-group has more than two waves");
        };
        env.cache.last_load = 0;
        // SAFETY: as `enter`'s; `a` and `b` are two waves of the slice's work-group.
        let (n, parked) = match unsafe { call.pair(ctx, p, a, b, env) } {
            Ok(r) => r,
            Err(detail) => return Err(mismatch(ctx, *id, a, detail)),
        };
        if n == 0 || parked || n >= QUANTUM || !t.is_endpgm(&ctx.program, a.pc) {
            // The pair goes on (or did not start): into its own waves, where the rest of
            // the round finds it, the waves after it launched.
            if wi > 0 {
                round.waves.swap(0, wi);
                round.waves.swap(1, wi + 1);
                // Waves 0 and 1 are now two of those not launched (done, counting nothing):
                // the earlier pairs' counts go there.
                round.waves[0].instructions = instructions;
                round.waves[0].lane_ops = lane_ops;
            }
            launch_rest(ctx, round.waves, wi + 2, &l);
            return fresh_pairs_from(ctx, *id, round, env, t, call, f, wi, Some((n, parked)));
        }
        // Both waves ran the call's instructions and the `s_endpgm` (`pair_ended`'s counts,
        // which the last pair's waves get below; the others are set up again).
        if let Some(k) = t.pairs.as_mut() {
            *k += 1;
        }
        let ran = u64::from(n) + 1;
        // As `fresh_pairs` counts them: B's instructions of the pair call, then A's.
        *round.executed += u64::from(n) + ran;
        if env.cache.last_load != 0 {
            round.last_load[0] = env.cache.last_load;
        }
        round.progressed = true;
        instructions += 2 * ran;
        lane_ops += a.lane_ops + b.lane_ops;
        wi += 2;
        if wi == nwaves {
            t.worker.streamed += 1;
            match chain(ctx, t.worker, &mut l) {
                Some(next) => {
                    // The work-group ended: the worker's, as `run_worker` counts them.
                    t.worker.chained[0] += 1;
                    t.worker.chained[1] += instructions;
                    t.worker.chained[2] += lane_ops;
                    (instructions, lane_ops) = (0, 0);
                    *id = next;
                    *round.executed = 0;
                    round.last_load[0] = 0;
                    wi = 0;
                }
                None => {
                    // The last pair's waves as `pair_ended` leaves them (counted above), and
                    // the work-group's counts in wave 0 (the others count nothing).
                    if let Some(k) = t.pairs.as_mut() {
                        *k -= 1;
                    }
                    let ended = pair_ended(ctx, a, b, t, p, (n, parked));
                    debug_assert!(ended && a.state == WaveState::Done && b.instructions == ran);
                    a.instructions = instructions - b.instructions;
                    a.lane_ops = lane_ops - b.lane_ops;
                    return Ok((nwaves, round.running, round.waiting, round.progressed));
                }
            }
        }
        let [a, b, ..] = &mut *round.waves else {
            unreachable!("a streamed work-group has more than two waves");
        };
        relaunch(ctx, a, wi, &l, &r);
        relaunch(ctx, b, wi + 1, &l, &r);
        if let Err(detail) = call.relaunched(ctx, *id, [&*a, &*b], wi, &l) {
            return Err(mismatch(ctx, *id, a, detail));
        }
    }
}

/// The work-group a streamed one that just ended goes on with in its waves
/// ([`stream_pairs`]): the next one the worker claims (its ID; its set-up written into `l`),
/// when the worker runs no other work-group (`WorkerPairs::alone`), the dispatch goes on, and
/// it is whole, as `l`'s was, and a work-group's scratch slot does not depend on it (not
/// cooperative).
/// One claimed that is not whole is left for `run_worker` to launch
/// (`WorkerPairs::claimed`).
#[inline(always)]
fn chain(ctx: &Ctx, pairs: &mut WorkerPairs, l: &mut WgLaunch) -> Option<[u32; 3]> {
    if !pairs.alone
        || ctx.d.cooperative
        || ctx.trace.is_some()
        || ctx.stop.load(Ordering::Relaxed)
        || ctx.control.should_stop()
    {
        return None;
    }
    let n = claim(ctx);
    if n >= ctx.total_wgs {
        return None;
    }
    let id = wg_id(ctx, n);
    let wgsz = ctx.d.workgroup_size.map(u32::from);
    if (0..3).any(|i| wgsz[i] > ctx.d.grid_size[i] - id[i] * wgsz[i]) {
        pairs.claimed = Some(n);
        return None;
    }
    l.nids = id_sgprs(ctx, id, &mut l.ids);
    l.wave.cu = crate::residency::cu_of(&ctx.d.compute_units, ctx.cus, n);
    Some(id)
}

/// A streamed work-group's wave `wi` (`l`) set up in `w`, a wave of a streamed work-group
/// that ran only pair block `p`'s call, which ended it (the interpreter ran nothing), since
/// its own set-up: what [`set_up_wave`] gives. Every wave's set-up writes the same SGPRs
/// but the work-group IDs, the work-group info and the private segment offset, written
/// here, so the scalar file differs from wave 1's as set up (`r`) only in the groups the
/// pair block may write.
#[inline(always)]
fn relaunch(ctx: &Ctx, w: &mut Wave, wi: usize, launch: &WgLaunch, r: &Relaunch) {
    let (init, l) = (&ctx.init, &launch.wave);
    w.restart(&r.s, r.groups, r.dirty);
    for &(reg, v) in &launch.ids[..launch.nids] {
        w.s[reg] = v;
    }
    if let Some(reg) = init.wg_info {
        w.s[reg] = (u32::from(wi == 0) << 31) | l.nwaves;
    }
    let slot_index = (l.slot as u64) * u64::from(ctx.waves_per_wg) + wi as u64;
    let wave_offset = slot_index * ctx.slot_size;
    if let Some(reg) = init.private_offset {
        w.s[reg] = wave_offset as u32;
    }
    w.scratch_base = ctx.scratch_base + wave_offset;
    w.id = wi as u32;
    w.cu = l.cu;
    w.pc = ctx.entry;
    w.mode = ctx.mode;
    let first = wi as u32 * 32;
    if l.lazy != 0 {
        lazy_id_rows(w, first, l.lazy);
        if launch.v1_whole {
            w.v[crate::wave::reg_index(VGPR) + 1][..32].fill(0);
        }
    } else {
        workitem_ids(ctx, w, first, l.actual, 32);
    }
}

/// What [`relaunch`] sets a streamed work-group's waves up from: wave 1's set-up.
struct Relaunch {
    /// The SGPR groups a wave's file may differ in from wave 1's set-up, and those groups
    /// of it.
    groups: u32,
    s: [[u32; 4]; 32],
    /// Its `sgpr_dirty`.
    dirty: u32,
}

impl Relaunch {
    /// From wave 1 of a work-group `w` as set up, for pair block `p`.
    #[inline(always)]
    fn new(w: &Wave, p: &crate::jit::Block) -> Relaunch {
        let groups = p.sgpr_groups;
        let mut s = [[0; 4]; 32];
        let (from, _) = w.s.as_chunks::<4>();
        let mut g = groups;
        while g != 0 {
            let k = g.trailing_zeros() as usize % 32;
            g &= g - 1;
            s[k] = from[k];
        }
        Relaunch {
            groups,
            s,
            dirty: w.sgpr_dirty,
        }
    }
}

/// Launches a streamed work-group's (`launch`'s `streamed`, as `l`) waves from `from` on.
#[cold]
fn launch_rest(ctx: &Ctx, waves: &mut [Wave], from: usize, l: &WgLaunch) {
    let nwaves = l.wave.nwaves as usize;
    for (wi, w) in waves.iter_mut().enumerate().take(nwaves).skip(from) {
        set_up_wave(ctx, w, wi, &l.ids[..l.nids], &l.wave);
        if l.v1_whole {
            w.v[crate::wave::reg_index(VGPR) + 1][..32].fill(0);
        }
    }
}

/// Runs one wave for up to a quantum, until it ends, waits at a barrier or sleeps. `CHECK`:
/// with the checkers of `--check`; `tier`: with the compiling tier (never under `--check` or
/// a wave trace: see `slice`); `obs` sees each instruction (`()`: nothing, compiled away; a
/// wave trace's recorder).
#[inline(always)]
fn run_wave<const CHECK: bool, O: crate::wavetrace::Observer>(
    ctx: &Ctx,
    id: [u32; 3],
    w: &mut Wave,
    env: &mut Env,
    obs: &mut O,
    tier: Option<&mut Tier>,
    resume: Resume,
) -> Result<(), Fault> {
    let program = &*ctx.program;
    // The interpreter (and a region run from here) may write any SGPR.
    w.sgpr_dirty = u32::MAX;
    let mut tier = tier.filter(|_| !CHECK && !O::ACTIVE);
    // Whether the PC is a block start: the turn's first instruction, a branch target, or
    // the instruction after one the tier cannot compile.
    let mut at_start = resume.at_start;
    // Counted in instructions, compiled or not, so a wave's turns (and so the interleaving of
    // waves, which `--deterministic` fixes) are the same with or without the tier.
    let mut turn = resume.turn + std::mem::take(&mut w.ahead);
    // Whether the interpreter is about to run an instruction a compiled region left to it
    // (a memory access its fast path declined; the instruction after it starts a block).
    let mut declined = resume.declined;
    while turn < QUANTUM {
        turn += 1;
        let pc = w.pc;
        // Blocks start only at block starts, so the rest of the instructions pay one test.
        if let (Some(t), true) = (tier.as_deref_mut(), at_start) {
            let fetch = |a: u64| program.at(a).copied();
            let block = match t.last {
                Some((at, b)) if at == pc => Some(b),
                _ => {
                    let k = program.index(pc);
                    // A start at an instruction without a lowering (the `s_endpgm` a region
                    // left at) never compiles: it is not counted.
                    let block = match t.slots.block(k) {
                        Some(b) => Some(b),
                        None if program.at(pc).is_some_and(crate::jit::may_compile) => {
                            // The kernel and offset a profiler names the region by.
                            let place = |a: u64| match ctx.functions.symbolize(a) {
                                Some((f, off)) => format!("{f}+{off:#x}"),
                                None => format!("{a:#x}"),
                            };
                            crate::jit::on_start(t.slots, k, (&fetch, &place), pc, w)
                        }
                        None => None,
                    };
                    if let Some(b) = block {
                        t.last = Some((pc, b));
                    }
                    block
                }
            };
            let verify = t.verify;
            // The region runs for what is left of the turn (this instruction included) and
            // stops before a basic block that does not fit; when none did, the interpreter
            // runs this instruction (and reports its fault, if it is one).
            if let Some(b) = block.filter(|b| b.runs(w)) {
                let budget = ctx.turn_budget - turn + 1;
                match crate::jit::run(b, w, budget, &fetch, env, verify) {
                    Ok((0, _)) => declined = true,
                    Ok((n, parked)) => {
                        w.instructions += u64::from(n);
                        turn += n - 1;
                        if region_ended_turn(program, t, w, parked, turn) {
                            return Ok(());
                        }
                        continue;
                    }
                    Err(detail) => {
                        let kind = FaultKind::TierMismatch { detail };
                        return Err(fault(ctx, id, w, pc, None, kind, None));
                    }
                }
            }
        }
        let Some(inst) = program.at(pc) else {
            return Err(fault(ctx, id, w, pc, None, FaultKind::PcOutOfRange, None));
        };
        w.instructions += 1;
        obs.before(w, inst, env.lds);
        let result = exec::step::<CHECK>(w, inst, env);
        obs.after(w, inst, env.lds, result.is_err());
        if let Some(t) = tier.as_deref_mut() {
            t.worker.interpreted += 1;
            at_start =
                declined || !matches!(result, Ok(Flow::Next)) || !crate::jit::may_compile(inst);
            declined = false;
        }
        match result {
            Ok(Flow::Next) => w.pc = pc + u64::from(inst.size),
            Ok(Flow::Jump(t)) => w.pc = t,
            Ok(Flow::Barrier) => {
                w.pc = pc + u64::from(inst.size);
                w.state = WaveState::Barrier;
                return Ok(());
            }
            Ok(Flow::Yield) => {
                w.pc = pc + u64::from(inst.size);
                return Ok(());
            }
            Ok(Flow::Retry) => {
                w.instructions -= 1;
                return Ok(());
            }
            Ok(Flow::End) => {
                w.state = WaveState::Done;
                return Ok(());
            }
            Err(e) => {
                return Err(fault(ctx, id, w, pc, e.lane, e.kind, Some(inst.describe())));
            }
        }
    }
    Ok(())
}

/// The instructions a region call may run from a turn's start: a turn's exactly under
/// `--deterministic`, which keeps the interpreter's interleaving of waves; else up to
/// [`OVERRUN`] more (another legal interleaving, as pairs give; results of race-free kernels
/// are the same).
fn region_budget(deterministic: bool) -> u32 {
    if deterministic {
        QUANTUM
    } else {
        QUANTUM + OVERRUN
    }
}

/// After a region ran part of a wave's turn (`turn` instructions of it so far): whether
/// the turn ends there, as the interpreter's would. It ended with `s_barrier` (`w.pc`
/// after it; `parked`), as `Flow::Barrier`; or it ran up to `s_endpgm` (which has no
/// lowering) with the turn not over: the wave ends, as the interpreter's next step would
/// end it.
#[inline(always)]
fn region_ended_turn(
    program: &Program,
    t: &mut Tier,
    w: &mut Wave,
    parked: bool,
    turn: u32,
) -> bool {
    if parked {
        w.state = WaveState::Barrier;
        return true;
    }
    if turn < QUANTUM && t.is_endpgm(program, w.pc) {
        w.instructions += 1;
        w.state = WaveState::Done;
        return true;
    }
    false
}

fn fault(
    ctx: &Ctx,
    wg: [u32; 3],
    w: &Wave,
    pc: u64,
    lane: Option<u32>,
    kind: FaultKind,
    instruction: Option<String>,
) -> Fault {
    let detail = match &kind {
        FaultKind::MemoryViolation { address, .. } => ctx
            .mem
            .freed_at(*address)
            .or_else(|| scratch_detail(ctx, w, *address)),
        _ => None,
    };
    Fault {
        kind,
        kernel: ctx.kernel.clone(),
        workgroup_id: wg,
        wave: w.id,
        lane,
        pc: ctx
            .functions
            .code_offset(pc)
            .unwrap_or_else(|| pc.wrapping_sub(ctx.entry)),
        instruction,
        context: Box::new(FaultContext {
            pc_address: pc,
            location: location(ctx, w, pc),
            detail,
        }),
    }
}

/// `function+0x40` for `pc`, with `, called from kernel+0x1a8` when the wave is in a callee
/// and its return address (s[30:31] in the AMDGPU calling convention) lies in known code.
fn location(ctx: &Ctx, w: &Wave, pc: u64) -> Option<String> {
    let (name, _) = ctx.functions.symbolize(pc)?;
    let here = format!("{name}+{:#x}", pc - ctx.functions.start_of(pc)?);
    if ctx.functions.start_of(pc) == ctx.functions.start_of(ctx.entry) {
        return Some(here);
    }
    let ret = u64::from(w.s[30]) | u64::from(w.s[31]) << 32;
    match ctx.functions.symbolize(ret) {
        Some((caller, off)) => Some(format!("{here}, called from {caller}+{off:#x}")),
        None => Some(here),
    }
}

/// For an address near the dispatch's scratch: which wave's private segment, and the offset.
fn scratch_detail(ctx: &Ctx, w: &Wave, address: u64) -> Option<String> {
    const MARGIN: u64 = 64 << 20;
    if ctx.scratch_size == 0
        || address < ctx.scratch_base.saturating_sub(MARGIN)
        || address >= ctx.scratch_base + ctx.scratch_size + MARGIN
    {
        return None;
    }
    let offset = address as i128 - w.scratch_base as i128;
    Some(format!(
        "scratch: offset {}{:#x} from this wave's private segment of {} bytes ({} per lane), outside it",
        if offset < 0 { "-" } else { "" },
        offset.unsigned_abs(),
        ctx.slot_size,
        ctx.private_per_lane
    ))
}

/// Records every live wave of a worker's resident work-groups (a stop from outside).
fn report_live<'a>(ctx: &Ctx, resident: impl Iterator<Item = &'a Wg>) {
    let mut live = ctx.live.lock();
    for wg in resident {
        for (wi, w) in wg.waves.iter().enumerate() {
            if w.state == WaveState::Done {
                continue;
            }
            // A wave the tier parked after a barrier's tail (`Wave::ahead`) is reported at
            // the instruction after the barrier, where the interpreter's waits.
            let pc = match w.ahead {
                0 => w.pc,
                _ => w.pc - u64::from(w.ahead_size),
            };
            live.push(LiveWave {
                workgroup_id: wg.id,
                wave: w.id,
                pc_address: pc,
                location: location(ctx, w, pc),
                instruction: ctx.program.at(pc).map(|i| i.describe()),
                last_load: wg.last_load.get(wi).copied().filter(|&a| a != 0),
                at_barrier: w.state == WaveState::Barrier,
            });
        }
    }
}

/// Allocation failures of the dispatch's own buffers: the status ROCr gives when it cannot
/// get scratch (`OUT_OF_RESOURCES`).
fn out_of_memory(what: &str) -> Fault {
    Fault::rejected(Rejected::new(
        Rejection::PrivateSegment,
        format!("cannot allocate {what}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two wave32s of a work-group at one PC with one scalar file but for their lane masks.
    fn two_waves() -> (Wave, Wave) {
        let one = || {
            let mut w = Wave::new();
            w.set_wave32(true);
            (w.pc, w.state) = (0x100, WaveState::Running);
            for (k, s) in w.s.iter_mut().enumerate() {
                *s = 0x1000 + k as u32;
            }
            w
        };
        let (a, mut b) = (one(), one());
        // Their own VCC_LO and EXEC_LO (lane masks a pair holds per wave).
        (b.s[106], b.s[126]) = (0x5, 0xff);
        (b.v[0][0], b.v[3][31]) = (7, 9);
        (a, b)
    }

    #[test]
    fn waves_pair_only_with_equal_scalar_state() {
        let (a, b) = two_waves();
        let equal = [0u8, 5, 105, 107, 124, 127];
        assert!(pairable(&a, &b), "one PC, one SCC");
        assert!(
            equal_sgprs(&a, &b, &equal),
            "equal but for VCC_LO and EXEC_LO"
        );
        for k in equal {
            let (a, mut b) = two_waves();
            b.s[usize::from(k)] ^= 1;
            assert!(!equal_sgprs(&a, &b, &equal), "s[{k}] differs");
            assert!(equal_sgprs(&a, &b, &[3, 6]), "s[{k}] differs, not compared");
        }
        let (a, mut b) = two_waves();
        b.scc = !a.scc;
        assert!(!pairable(&a, &b), "SCC differs");
        let (a, mut b) = two_waves();
        b.pc += 4;
        assert!(!pairable(&a, &b), "another PC");
        let (a, mut b) = two_waves();
        b.state = WaveState::Barrier;
        assert!(!pairable(&a, &b), "B not running");
        let (mut a, mut b) = two_waves();
        a.set_wave32(false);
        b.set_wave32(false);
        assert!(!pairable(&a, &b), "wave64");
    }
}
