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
use crate::error::{Fault, FaultKind};
use crate::exec::{self, Env, Flow, Scratch};
use crate::gpu::{Dispatch, DispatchStats, Gpu, Program};
use crate::memory::host::{self, HostBuffer};
use crate::memory::{Access, MemoryMap, RegionCache};
use crate::wave::{Wave, WaveState, LANES};
use hsaemu_codeobject::AMD_KERNEL_CODE_SIZE;
use parking_lot::Mutex;
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Most scratch memory one dispatch may allocate.
const MAX_SCRATCH: u64 = 16 << 30;
/// Work-groups each host thread keeps resident and time-slices among.
const RESIDENT: usize = 4;
/// Wave-instructions a wave runs before the scheduler switches to the next wave.
const QUANTUM: u32 = 4096;
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
    scratch_base: u64,
    scratch_size: u64,
    slot_size: u64,
    next: AtomicU64,
    stop: AtomicBool,
    fault: Mutex<Option<Fault>>,
    /// Totals over finished work-groups: work-groups, wave-instructions, lane-ops, and the
    /// workers (host threads) that ran at least one work-group.
    totals: [AtomicU64; 4],
}

/// What a host thread keeps between dispatches: spare work-groups (their waves' register
/// files and LDS) and the VALU scratch rows.
struct Local {
    spare: Vec<Wg>,
    scratch: Box<Scratch>,
}

thread_local! {
    static LOCAL: Cell<Option<Box<Local>>> = const { Cell::new(None) };
}

/// A resident work-group.
struct Wg {
    id: [u32; 3],
    waves: Vec<Wave>,
    lds: Vec<u8>,
    slot: usize,
    executed: u64,
}

/// Runs a dispatch to completion.
impl Gpu {
    /// Runs one kernel dispatch to completion (blocking the caller). (Defined here, beside
    /// the scheduler, so that `gpu` does not depend on `dispatch`.)
    pub fn dispatch(&self, d: &Dispatch) -> Result<DispatchStats, Fault> {
        run(self, d)
    }
}

pub(crate) fn run(gpu: &Gpu, d: &Dispatch) -> Result<DispatchStats, Fault> {
    let start = Instant::now();
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
    if wave32 && !gpu.gen.is_gfx10() {
        return Err(Fault::invalid_dispatch(
            "the kernel is compiled for wave32, which this GPU does not support",
        ));
    }
    let gen = gpu.gen.with_wave64(!wave32);
    // GFX10 wave64 shared VGPRs (COMPUTE_PGM_RSRC3.SHARED_VGPR_COUNT, which LLVM leaves 0) are
    // not modelled.
    if gen.is_gfx10() && kd.shared_vgpr_count() != 0 {
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
    let wg = d.workgroup_size.map(u32::from);
    if wg.contains(&0) || d.grid_size.contains(&0) {
        return Err(Fault::invalid_dispatch(format!(
            "grid {:?} and work-group {:?} sizes must be non-zero",
            d.grid_size, d.workgroup_size
        )));
    }
    let wg_items = wg[0] * wg[1] * wg[2];
    if wg_items > 1024 {
        return Err(Fault::invalid_dispatch(format!(
            "work-group of {wg_items} work-items exceeds 1024"
        )));
    }
    let lds_size = d.group_segment_size.max(kd.group_segment_fixed_size);
    if lds_size > gpu.cfg.lds_size {
        return Err(Fault::invalid_dispatch(format!(
            "group segment of {lds_size} bytes exceeds the {} bytes of LDS",
            gpu.cfg.lds_size
        )));
    }
    let wg_count = [0, 1, 2].map(|i| d.grid_size[i].div_ceil(wg[i]));
    let total_wgs = wg_count.iter().map(|&c| u64::from(c)).product::<u64>();
    let waves_per_wg = wg_items.div_ceil(gen.wave_size());
    let workers = (gpu.threads as u64).min(total_wgs).max(1) as usize;

    // The dispatch packet the kernel may read through the dispatch pointer.
    let mut own_packet = None;
    let packet = if d.dispatch_packet_address != 0 {
        d.dispatch_packet_address
    } else {
        let buf = HostBuffer::new(64)
            .ok_or_else(|| Fault::invalid_dispatch("cannot allocate the dispatch packet"))?;
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
        buf.write(0, &p);
        gpu.mem
            .register(buf.base(), 64, Access::Read)
            .map_err(|e| Fault::invalid_dispatch(e.to_string()))?;
        let a = buf.base();
        own_packet = Some(buf);
        a
    };

    // A minimal amd_queue_t when the caller has none: GFX8 code reads the aperture bases at
    // +0x40 (group_segment_aperture_base_hi) and +0x44 (private_segment_aperture_base_hi).
    let mut own_queue = None;
    let queue = if d.queue_address != 0 {
        d.queue_address
    } else {
        let buf = HostBuffer::new(256)
            .ok_or_else(|| Fault::invalid_dispatch("cannot allocate the queue descriptor"))?;
        buf.write(0x40, &crate::memory::SHARED_APERTURE_HI.to_le_bytes());
        buf.write(0x44, &crate::memory::PRIVATE_APERTURE_HI.to_le_bytes());
        if let Err(e) = gpu.mem.register(buf.base(), 256, Access::Read) {
            if let Some(b) = &own_packet {
                let _ = gpu.mem.unregister(b.base());
            }
            return Err(Fault::invalid_dispatch(e.to_string()));
        }
        let a = buf.base();
        own_queue = Some(buf);
        a
    };

    // Scratch: one slot per (worker, resident work-group, wave).
    let private_per_lane = d
        .private_segment_size
        .max(kd.private_segment_fixed_size)
        .div_ceil(4)
        * 4;
    let slot_size =
        (u64::from(private_per_lane) * u64::from(gen.wave_size())).div_ceil(1024) * 1024;
    let slots = (workers * RESIDENT) as u64 * u64::from(waves_per_wg);
    let scratch_size = slot_size * slots;
    let mut scratch = None;
    let mut scratch_base = 0;
    if scratch_size > MAX_SCRATCH {
        for b in own_packet.iter().chain(own_queue.iter()) {
            let _ = gpu.mem.unregister(b.base());
        }
        return Err(Fault::invalid_dispatch(format!(
            "private segment of {private_per_lane} bytes per work-item needs {scratch_size} bytes of scratch, more than the emulator's limit of {MAX_SCRATCH}"
        )));
    }
    if scratch_size > 0 {
        let buf = HostBuffer::new(scratch_size)
            .ok_or_else(|| Fault::invalid_dispatch("cannot allocate scratch memory"))?;
        if let Err(e) = gpu
            .mem
            .register(buf.base(), scratch_size, Access::ReadWrite)
        {
            for b in own_packet.iter().chain(own_queue.iter()) {
                let _ = gpu.mem.unregister(b.base());
            }
            return Err(Fault::invalid_dispatch(e.to_string()));
        }
        scratch_base = buf.base();
        scratch = Some(buf);
    }

    let ctx = Arc::new(Ctx {
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
        scratch_base,
        scratch_size,
        slot_size,
        next: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        fault: Mutex::new(None),
        totals: Default::default(),
    });
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
    for b in own_packet.iter().chain(own_queue.iter()) {
        let _ = gpu.mem.unregister(b.base());
    }
    drop(scratch);
    drop(own_packet);
    drop(own_queue);
    if let Some(f) = ctx.fault.lock().take() {
        return Err(f);
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

/// One host worker (index `index` of the dispatch): runs work-groups with this thread's kept
/// storage and adds its counts to the dispatch's totals.
fn worker(ctx: &Ctx, index: usize) {
    let mut local = LOCAL.with(Cell::take).unwrap_or_else(|| {
        Box::new(Local {
            spare: Vec::new(),
            scratch: Scratch::new(),
        })
    });
    let (wgs, insts, lanes) = run_worker(ctx, index, &mut local);
    // Keep at most RESIDENT spare work-groups (a dispatch may have ended with fewer retired).
    local.spare.truncate(RESIDENT);
    LOCAL.with(|l| l.set(Some(local)));
    ctx.totals[0].fetch_add(wgs, Ordering::Relaxed);
    ctx.totals[1].fetch_add(insts, Ordering::Relaxed);
    ctx.totals[2].fetch_add(lanes, Ordering::Relaxed);
    ctx.totals[3].fetch_add(u64::from(wgs > 0), Ordering::Relaxed);
}

/// Keeps up to RESIDENT work-groups and round-robins among them.
fn run_worker(ctx: &Ctx, index: usize, local: &mut Local) -> (u64, u64, u64) {
    let mut resident: Vec<Wg> = Vec::with_capacity(RESIDENT);
    let mut free_slots: [usize; RESIDENT] = [3, 2, 1, 0];
    let mut free = RESIDENT;
    let (mut wgs, mut insts, mut lanes) = (0u64, 0u64, 0u64);
    let mut cache = RegionCache::default();
    let Local { spare, scratch } = local;
    loop {
        // One new work-group per round (a round gives each resident work-group a slice), so
        // the first work-groups of a dispatch spread over the threads that join it instead of
        // all landing on the first thread to claim (R7: work-groups run concurrently on
        // different host threads). A thread fills its RESIDENT slots only while its
        // work-groups outlast their slices, e.g. when they spin on one another.
        if free > 0 {
            let n = ctx.next.fetch_add(1, Ordering::Relaxed);
            if n < ctx.total_wgs {
                let slot = free_slots[free - 1];
                free -= 1;
                let mut wg = spare.pop().unwrap_or_else(|| Wg {
                    id: [0; 3],
                    waves: Vec::new(),
                    lds: Vec::new(),
                    slot,
                    executed: 0,
                });
                wg.slot = index * RESIDENT + slot;
                launch(ctx, &mut wg, n, index);
                wg.slot = slot;
                resident.push(wg);
            }
        }
        if resident.is_empty() {
            break;
        }
        let mut i = 0;
        while i < resident.len() {
            if ctx.stop.load(Ordering::Relaxed) {
                spare.append(&mut resident);
                return (wgs, insts, lanes);
            }
            match run_slice(ctx, &mut resident[i], index, &mut cache, scratch) {
                Ok(false) => i += 1,
                Ok(true) => {
                    let wg = resident.swap_remove(i);
                    wgs += 1;
                    for w in &wg.waves {
                        insts += w.instructions;
                        lanes += w.lane_ops;
                    }
                    free_slots[free] = wg.slot;
                    free += 1;
                    spare.push(wg);
                }
                Err(f) => {
                    let mut slot = ctx.fault.lock();
                    if slot.is_none() {
                        *slot = Some(f);
                    }
                    ctx.stop.store(true, Ordering::Relaxed);
                    spare.append(&mut resident);
                    return (wgs, insts, lanes);
                }
            }
        }
    }
    (wgs, insts, lanes)
}

/// Sets up a work-group's waves (initial register state) and LDS; `worker` is the index of
/// the host worker that runs it (the waves' compute unit).
fn launch(ctx: &Ctx, wg: &mut Wg, n: u64, worker: usize) {
    let [cx, cy, _] = ctx.wg_count.map(u64::from);
    let id = [
        (n % cx) as u32,
        (n / cx % cy) as u32,
        (n / (cx * cy)) as u32,
    ];
    wg.id = id;
    wg.executed = 0;
    let wgsz = ctx.d.workgroup_size.map(u32::from);
    // Actual size of this (possibly partial) work-group.
    let actual = [0, 1, 2].map(|i| wgsz[i].min(ctx.d.grid_size[i] - id[i] * wgsz[i]));
    let items = actual[0] * actual[1] * actual[2];
    let lanes = ctx.gen.wave_size();
    let nwaves = items.div_ceil(lanes) as usize;
    while wg.waves.len() < nwaves {
        wg.waves.push(Wave::new());
    }
    wg.lds.clear();
    wg.lds.resize(ctx.lds_size as usize, 0);
    let kd = &ctx.kd;
    let gfx8 = ctx.gen == Gen::Gfx8;
    for (wi, w) in wg.waves.iter_mut().enumerate() {
        if wi >= nwaves {
            // A wave kept from a larger work-group: idle, and counted as nothing.
            w.state = WaveState::Done;
            w.instructions = 0;
            w.lane_ops = 0;
            continue;
        }
        w.reset();
        w.set_wave32(lanes == 32);
        w.id = wi as u32;
        w.cu = worker as u32;
        w.pc = ctx.entry;
        w.mode = descriptor::initial_mode(kd);
        w.instructions = 0;
        w.lane_ops = 0;
        let first = wi as u32 * lanes;
        let live = (items - first).min(lanes);
        w.set_exec(if live == 64 {
            u64::MAX
        } else {
            (1u64 << live) - 1
        });
        let slot_index = (wg.slot as u64) * u64::from(ctx.waves_per_wg) + wi as u64;
        let wave_offset = slot_index * ctx.slot_size;
        w.scratch_base = ctx.scratch_base + wave_offset;
        let mut r = 0usize;
        let mut put = |w: &mut Wave, v: u32| {
            if r < 16 {
                w.s[r] = v;
            }
            r += 1;
        };
        if kd.enable_sgpr_private_segment_buffer() {
            put(w, ctx.scratch_base as u32);
            put(w, ((ctx.scratch_base >> 32) as u32 & 0xffff) | 1 << 31);
            put(w, ctx.scratch_size.min(u64::from(u32::MAX)) as u32);
            put(w, scratch_rsrc_word3(ctx.gen));
        }
        if kd.enable_sgpr_dispatch_ptr() {
            put(w, ctx.packet as u32);
            put(w, (ctx.packet >> 32) as u32);
        }
        if kd.enable_sgpr_queue_ptr() {
            put(w, ctx.queue as u32);
            put(w, (ctx.queue >> 32) as u32);
        }
        if kd.enable_sgpr_kernarg_segment_ptr() {
            put(w, ctx.d.kernarg_address as u32);
            put(w, (ctx.d.kernarg_address >> 32) as u32);
        }
        if kd.enable_sgpr_dispatch_id() {
            put(w, ctx.d.dispatch_id as u32);
            put(w, (ctx.d.dispatch_id >> 32) as u32);
        }
        if kd.enable_sgpr_flat_scratch_init() {
            if gfx8 {
                put(w, ctx.scratch_base as u32);
                put(w, ctx.private_per_lane);
            } else {
                put(w, ctx.scratch_base as u32);
                put(w, (ctx.scratch_base >> 32) as u32);
            }
        }
        if kd.enable_sgpr_private_segment_size() {
            put(w, ctx.private_per_lane);
        }
        let mut r = kd.user_sgpr_count() as usize;
        let en = [
            kd.enable_sgpr_workgroup_id_x(),
            kd.enable_sgpr_workgroup_id_y(),
            kd.enable_sgpr_workgroup_id_z(),
        ];
        for (d, &on) in en.iter().enumerate() {
            if on {
                w.s[r] = id[d];
                r += 1;
            }
        }
        if kd.enable_sgpr_workgroup_info() {
            w.s[r] = (u32::from(wi == 0) << 31) | nwaves as u32;
            r += 1;
        }
        if kd.enable_private_segment() {
            w.s[r] = wave_offset as u32;
        }
        // Work-item IDs.
        let mut x = [0u32; LANES];
        let mut y = [0u32; LANES];
        let mut z = [0u32; LANES];
        // Walk the IDs incrementally (no per-lane division).
        let (mut cx, mut cy, mut cz) = (
            first % actual[0],
            first / actual[0] % actual[1],
            first / (actual[0] * actual[1]),
        );
        if actual[0] >= first + lanes {
            // The whole wave lies in one row of X (every 1-D work-group): y and z are fixed.
            for l in 0..LANES {
                x[l] = first + l as u32;
            }
            y = [cy; LANES];
            z = [cz; LANES];
        } else {
            for l in 0..lanes as usize {
                x[l] = cx;
                y[l] = cy;
                z[l] = cz;
                cx += 1;
                if cx == actual[0] {
                    cx = 0;
                    cy += 1;
                    if cy == actual[1] {
                        cy = 0;
                        cz += 1;
                    }
                }
            }
        }
        let dims = kd.enable_vgpr_workitem_id();
        if ctx.gen.unified_agprs() {
            let mut v0 = [0u32; LANES];
            for l in 0..LANES {
                v0[l] = x[l] & 0x3ff;
                if dims > 0 {
                    v0[l] |= (y[l] & 0x3ff) << 10;
                }
                if dims > 1 {
                    v0[l] |= (z[l] & 0x3ff) << 20;
                }
            }
            w.vwrite(VGPR, &v0, u64::MAX);
        } else {
            w.vwrite(VGPR, &x, u64::MAX);
            if dims > 0 {
                w.vwrite(VGPR + 1, &y, u64::MAX);
            }
            if dims > 1 {
                w.vwrite(VGPR + 2, &z, u64::MAX);
            }
        }
    }
}

/// Word 3 of the Private Segment Buffer V# (code-object-abi.md §5.3): DST_SEL XYZW, 32-bit
/// data, 4-byte swizzle elements, index stride = the wave size, ADD_TID_ENABLE. GFX10 has no
/// ELEMENT_SIZE field (elements are 4 bytes) and a unified FORMAT; CP fills INDEX_STRIDE from
/// the wave size, RESOURCE_LEVEL is 1 and OOB_SELECT 2 (no range check).
fn scratch_rsrc_word3(gen: Gen) -> u32 {
    const DST_SEL_XYZW: u32 = 4 | 5 << 3 | 6 << 6 | 7 << 9;
    const ADD_TID_ENABLE: u32 = 1 << 23;
    if gen.is_gfx10() {
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

/// Runs a work-group for up to one slice. Returns whether it finished.
fn run_slice(
    ctx: &Ctx,
    wg: &mut Wg,
    worker: usize,
    cache: &mut RegionCache,
    scratch: &mut Scratch,
) -> Result<bool, Fault> {
    let _ = worker;
    let budget_end = wg.executed + WG_SLICE;
    loop {
        let mut any_running = false;
        let mut progressed = false;
        for wi in 0..wg.waves.len() {
            if wg.waves[wi].state != WaveState::Running {
                continue;
            }
            any_running = true;
            let before = wg.waves[wi].instructions;
            run_wave(ctx, wg, wi, cache, scratch)?;
            let after = wg.waves[wi].instructions;
            if after > before {
                progressed = true;
            }
            wg.executed += after - before;
        }
        // Barrier release: every wave that has not ended is waiting.
        let waiting = wg
            .waves
            .iter()
            .filter(|w| w.state == WaveState::Barrier)
            .count();
        let running = wg
            .waves
            .iter()
            .filter(|w| w.state == WaveState::Running)
            .count();
        if waiting > 0 && running == 0 {
            for w in wg
                .waves
                .iter_mut()
                .filter(|w| w.state == WaveState::Barrier)
            {
                w.state = WaveState::Running;
            }
            continue;
        }
        if !any_running && waiting == 0 {
            return Ok(true);
        }
        if wg.executed >= budget_end || !progressed {
            return Ok(false);
        }
    }
}

/// Runs one wave for up to a quantum, until it ends, waits at a barrier or sleeps.
fn run_wave(
    ctx: &Ctx,
    wg: &mut Wg,
    wi: usize,
    cache: &mut RegionCache,
    scratch: &mut Scratch,
) -> Result<(), Fault> {
    let program = &*ctx.program;
    let Wg { waves, lds, id, .. } = wg;
    let w = &mut waves[wi];
    let mut env = Env {
        gen: ctx.gen,
        mem: &ctx.mem,
        cache,
        lds: lds.as_mut_slice(),
        private_per_lane: ctx.private_per_lane,
        scratch,
    };
    for _ in 0..QUANTUM {
        let pc = w.pc;
        let Some(inst) = program.at(pc) else {
            return Err(fault(ctx, *id, w, pc, None, FaultKind::PcOutOfRange, None));
        };
        w.instructions += 1;
        match exec::step(w, inst, &mut env) {
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
            Ok(Flow::End) => {
                w.state = WaveState::Done;
                return Ok(());
            }
            Err(e) => {
                return Err(fault(
                    ctx,
                    *id,
                    w,
                    pc,
                    e.lane,
                    e.kind,
                    Some(inst.describe()),
                ));
            }
        }
    }
    Ok(())
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
    Fault {
        kind,
        kernel: ctx.kernel.clone(),
        workgroup_id: wg,
        wave: w.id,
        lane,
        pc: pc.wrapping_sub(ctx.entry),
        pc_address: pc,
        instruction,
    }
}
