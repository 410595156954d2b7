//! The runtime instance: one per process, reference-counted by `init`/`shut_down`. It owns the
//! agents, the tables that turn handles back into objects (signals, queues), the memory
//! manager and the thread that runs asynchronous signal handlers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};

use crate::agent::{self, Agent, AgentInner, Config, DeviceType, Isa, TARGETS};
use crate::backend::{DeviceMemoryMap, GpuBackend};
use crate::error::{HsaError, Result};
use crate::executable::{CodeObjectReader, Executable, ExecutableSymbol};
use crate::memory::{GlobalFlags, MemoryManager, MemoryPool, PoolProperties, Segment};
use crate::queue::{Queue, QueueErrorCallback, QueueType, SystemEventHandler, SystemEventHandlers};
use crate::signal::{MemoryOrder, Signal, SignalCondition};

/// Live signals by handle.
#[derive(Debug, Default)]
pub struct SignalTable(RwLock<HashMap<u64, Signal>>);

impl SignalTable {
    /// The signal with this handle, if it is live.
    pub fn get(&self, handle: u64) -> Option<Signal> {
        self.0.read().get(&handle).cloned()
    }
    fn insert(&self, s: Signal) {
        self.0.write().insert(s.handle(), s);
    }
    fn remove(&self, handle: u64) -> Option<Signal> {
        self.0.write().remove(&handle)
    }
}

/// A callback of `hsa_amd_signal_async_handler`: receives the observed value and returns
/// whether to stay registered.
pub type AsyncHandler = Box<dyn FnMut(i64) -> bool + Send>;

struct HandlerEntry {
    signal: Signal,
    cond: SignalCondition,
    value: i64,
    handler: AsyncHandler,
}

#[derive(Default)]
struct AsyncHandlers {
    pending: Mutex<Vec<HandlerEntry>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    stop: std::sync::atomic::AtomicBool,
}

/// The HSA runtime.
pub struct Runtime {
    agents: Vec<Agent>,
    isas: Vec<Arc<Isa>>,
    signals: Arc<SignalTable>,
    events: Arc<SystemEventHandlers>,
    queues: RwLock<HashMap<u64, Queue>>,
    memory: MemoryManager,
    handlers: Arc<AsyncHandlers>,
    readers: RwLock<HashMap<u64, CodeObjectReader>>,
    signal_groups: RwLock<HashMap<u64, Arc<Vec<Signal>>>>,
    executables: RwLock<HashMap<u64, Executable>>,
    images: crate::image::Images,
    start: Instant,
    config: Config,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("agents", &self.agents.len())
            .finish()
    }
}

/// The runtime while `REFCOUNT` is positive. Creating it (0 → 1) and tearing it down (1 → 0)
/// happen under this lock; every other `hsa_init` / `hsa_shut_down` is one CAS on `REFCOUNT`,
/// so the 2^31 calls of rocrtst's Max_Reference_Count cost a few ns each.
static GLOBAL: Mutex<Option<Arc<Runtime>>> = Mutex::new(None);
static REFCOUNT: AtomicI32 = AtomicI32::new(0);
static CURRENT: RwLock<Option<Arc<Runtime>>> = RwLock::new(None);

/// A runtime of its own for `config`, beside the process-wide one [`init`] manages: for tests
/// that run the same work on several targets in one process.
pub fn standalone(config: Config) -> Result<Arc<Runtime>> {
    Ok(Arc::new(Runtime::new(config)?))
}

/// Adds a reference when the runtime already exists (count ≥ 1); `None`: take the lock.
fn acquire_fast() -> Option<Result<()>> {
    let mut c = REFCOUNT.load(Ordering::Acquire);
    while c >= 1 {
        if c == i32::MAX {
            return Some(Err(HsaError::RefcountOverflow));
        }
        match REFCOUNT.compare_exchange_weak(c, c + 1, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return Some(Ok(())),
            Err(now) => c = now,
        }
    }
    None
}

/// `hsa_init`: creates the runtime on the first call and counts references.
pub fn acquire() -> Result<()> {
    if let Some(r) = acquire_fast() {
        return r;
    }
    let mut g = GLOBAL.lock();
    // Under the lock the count leaves 0 only here, so it is 0 or another init raised it.
    if let Some(r) = acquire_fast() {
        return r;
    }
    crate::check::start()?;
    let rt = Arc::new(Runtime::new(Config::from_env()?)?);
    *g = Some(rt.clone());
    *CURRENT.write() = Some(rt);
    REFCOUNT.store(1, Ordering::Release);
    Ok(())
}

/// `hsa_init`, returning the runtime.
pub fn init() -> Result<Arc<Runtime>> {
    acquire()?;
    current()
}

/// `hsa_shut_down`: drops a reference; the last one stops every queue and handler thread.
pub fn shut_down() -> Result<()> {
    let mut c = REFCOUNT.load(Ordering::Acquire);
    loop {
        match c {
            ..=0 => return Err(HsaError::NotInitialized),
            1 => break,
            _ => {
                match REFCOUNT.compare_exchange_weak(c, c - 1, Ordering::AcqRel, Ordering::Acquire)
                {
                    Ok(_) => return Ok(()),
                    Err(now) => c = now,
                }
            }
        }
    }
    let mut g = GLOBAL.lock();
    loop {
        // 1 → 0 only under the lock; a concurrent init may have raised it meanwhile.
        match REFCOUNT.load(Ordering::Acquire) {
            ..=0 => return Err(HsaError::NotInitialized),
            1 => {
                if REFCOUNT
                    .compare_exchange(1, 0, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
                {
                    break;
                }
            }
            c => {
                if REFCOUNT
                    .compare_exchange(c, c - 1, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
                {
                    return Ok(());
                }
            }
        }
    }
    *CURRENT.write() = None;
    if let Some(rt) = g.take() {
        rt.tear_down();
    }
    Ok(())
}

/// The current runtime, or `NotInitialized`.
pub fn current() -> Result<Arc<Runtime>> {
    CURRENT.read().clone().ok_or(HsaError::NotInitialized)
}

impl Runtime {
    pub(crate) fn new(config: Config) -> Result<Runtime> {
        let device_map = DeviceMemoryMap::default();
        // XNACK on: the GPU shares the process's page tables (HMM), as ROCr's HSA_XNACK=1.
        device_map
            .emu_map()
            .set_system_memory(config.target.xnack == Some(true));
        let host = crate::memory::host_memory_size();
        let mut agents = Vec::new();
        let cpu_pools = vec![
            MemoryPool::new(PoolProperties {
                segment: Segment::Global,
                flags: GlobalFlags {
                    kernarg: true,
                    fine_grained: true,
                    coarse_grained: false,
                },
                size: host,
                alloc_allowed: true,
                granule: 4096,
                alignment: 4096,
                accessible_by_all: true,
                alloc_max_size: host,
                owner_node: 0,
                device_local: false,
            }),
            MemoryPool::new(PoolProperties {
                segment: Segment::Global,
                flags: GlobalFlags {
                    kernarg: false,
                    fine_grained: false,
                    coarse_grained: true,
                },
                size: host,
                alloc_allowed: true,
                granule: 4096,
                alignment: 4096,
                accessible_by_all: true,
                alloc_max_size: host,
                owner_node: 0,
                device_local: false,
            }),
        ];
        agents.push(Agent(Arc::new(AgentInner {
            props: agent::cpu_properties(),
            isa: None,
            pools: cpu_pools,
            backend: None,
        })));
        for i in config.visible_gpus() {
            let props = agent::gpu_properties(&config.target, i, config.compute_units);
            let vram = (host / 2).min(16 << 30);
            let pools = vec![
                MemoryPool::new(PoolProperties {
                    segment: Segment::Global,
                    flags: GlobalFlags {
                        kernarg: false,
                        fine_grained: false,
                        coarse_grained: true,
                    },
                    size: vram,
                    alloc_allowed: true,
                    granule: 4096,
                    alignment: 4096,
                    accessible_by_all: false,
                    alloc_max_size: vram,
                    owner_node: i + 1,
                    device_local: true,
                }),
                MemoryPool::new(PoolProperties {
                    segment: Segment::Group,
                    flags: GlobalFlags::default(),
                    size: u64::from(props.lds_size),
                    alloc_allowed: false,
                    granule: 0,
                    alignment: 0,
                    accessible_by_all: false,
                    alloc_max_size: 0,
                    owner_node: i + 1,
                    device_local: true,
                }),
            ];
            let backend = GpuBackend::new(
                &config.target,
                device_map.clone(),
                config.compute_units,
                props.max_clock_mhz,
            );
            agents.push(Agent(Arc::new(AgentInner {
                props,
                isa: Some(config.target.clone()),
                pools,
                backend: Some(backend),
            })));
        }
        let mut isas: Vec<Arc<Isa>> = vec![Arc::new(config.target.clone())];
        for t in TARGETS {
            let isa = Isa::parse(t.processor, true)?;
            if !isas.iter().any(|i| **i == isa) {
                isas.push(Arc::new(isa));
            }
        }
        Ok(Runtime {
            agents,
            isas,
            signals: Arc::new(SignalTable::default()),
            events: Arc::new(SystemEventHandlers::default()),
            queues: RwLock::new(HashMap::new()),
            memory: MemoryManager::new(device_map),
            handlers: Arc::new(AsyncHandlers::default()),
            readers: RwLock::new(HashMap::new()),
            signal_groups: RwLock::new(HashMap::new()),
            executables: RwLock::new(HashMap::new()),
            images: Default::default(),
            start: Instant::now(),
            config,
        })
    }

    fn tear_down(&self) {
        let queues: Vec<Queue> = self.queues.write().drain().map(|(_, q)| q).collect();
        for q in queues {
            q.shut_down();
        }
        self.handlers
            .stop
            .store(true, std::sync::atomic::Ordering::Release);
        crate::sync::global().notify();
        if let Some(h) = self.handlers.thread.lock().take() {
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
        // Pool memory is deliberately not freed: HIP frees from static destructors after
        // hsa_shut_down, and host code may still read it. (ROCr unmaps it; hsaemu keeps it.)
        self.memory.keep_allocations();
    }

    /// The configuration read at `init`.
    pub fn config(&self) -> &Config {
        &self.config
    }

    // ---- system ----

    /// Nanoseconds of `CLOCK_MONOTONIC` (`HSA_SYSTEM_INFO_TIMESTAMP`).
    pub fn timestamp(&self) -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        (ts.tv_sec as u64)
            .saturating_mul(1_000_000_000)
            .saturating_add(ts.tv_nsec as u64)
    }

    /// Timestamp ticks per second: 1 GHz, so a tick is a nanosecond (hsa-api.md A34).
    pub fn timestamp_frequency(&self) -> u64 {
        1_000_000_000
    }

    /// Time since `init`.
    pub fn uptime(&self) -> Duration {
        self.start.elapsed()
    }

    // ---- agents ----

    /// Every agent: the CPU first, then the GPUs.
    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    /// The agent with this handle.
    pub fn agent(&self, handle: u64) -> Result<&Agent> {
        self.agents
            .iter()
            .find(|a| a.handle() == handle)
            .ok_or(HsaError::InvalidAgent)
    }

    /// The GPU agents.
    pub fn gpu_agents(&self) -> impl Iterator<Item = &Agent> {
        self.agents
            .iter()
            .filter(|a| a.device_type() == DeviceType::Gpu)
    }

    /// Every known ISA (the agents' first).
    pub fn isas(&self) -> &[Arc<Isa>] {
        &self.isas
    }

    /// The ISA with this handle.
    pub fn isa(&self, handle: u64) -> Result<&Arc<Isa>> {
        self.isas
            .iter()
            .find(|i| Arc::as_ptr(i) as u64 == handle)
            .ok_or(HsaError::InvalidIsa)
    }

    /// The handle of an ISA.
    pub fn isa_handle(isa: &Arc<Isa>) -> u64 {
        Arc::as_ptr(isa) as u64
    }

    /// The ISA named `name` (`hsa_isa_from_name`).
    pub fn isa_from_name(&self, name: &str) -> Result<&Arc<Isa>> {
        let parsed = Isa::parse(name, false)?;
        self.isas
            .iter()
            .find(|i| {
                i.name == parsed.name
                    || (i.target == parsed.target
                        && i.accepts(&parsed)
                        && parsed.name.len() <= i.name.len())
            })
            .ok_or(HsaError::InvalidIsaName)
    }

    /// The live images and samplers (`image.rs`).
    pub(crate) fn images(&self) -> &crate::image::Images {
        &self.images
    }

    // ---- memory ----

    /// The memory manager.
    pub fn memory(&self) -> &MemoryManager {
        &self.memory
    }

    /// The pool with this handle and the agent that owns it.
    pub fn pool(&self, handle: u64) -> Result<(&Agent, &MemoryPool)> {
        self.agents
            .iter()
            .find_map(|a| {
                a.pools()
                    .iter()
                    .find(|p| p.handle() == handle)
                    .map(|p| (a, p))
            })
            .ok_or(HsaError::InvalidMemoryPool)
    }

    /// Allocates from a pool.
    pub fn allocate(&self, pool_handle: u64, size: u64) -> Result<u64> {
        let (agent, pool) = self.pool(pool_handle)?;
        self.memory.allocate(pool, agent.handle(), size)
    }

    /// Copies `len` bytes once every dependency signal is 0, then decrements `completion`
    /// (`hsa_amd_memory_async_copy`). Runs on the caller's thread when nothing is pending, else
    /// on a helper thread.
    ///
    /// # Safety
    /// `src` must stay readable and `dst` writable for `len` bytes until the copy completes.
    pub unsafe fn async_copy(
        &self,
        dst: u64,
        src: u64,
        len: usize,
        deps: Vec<Signal>,
        completion: Signal,
    ) -> Result<()> {
        let ready = |deps: &[Signal]| deps.iter().all(|d| d.load(MemoryOrder::Acquire) <= 0);
        let run = move |deps: &[Signal]| {
            if deps.iter().any(|d| d.load(MemoryOrder::Acquire) < 0) {
                completion.store(-1, MemoryOrder::Release);
                return;
            }
            let start = crate::signal::timestamp_ns();
            // SAFETY: the caller of `async_copy` keeps both ranges valid until completion.
            unsafe { crate::memory::copy_memory(dst as *mut u8, src as *const u8, len) };
            let end = crate::signal::timestamp_ns();
            if let Some(t) = crate::trace::timeline() {
                t.copy(dst, src, len, start, end);
            }
            completion.set_times(start, end);
            completion.rmw(crate::signal::SignalOp::Subtract, 1, MemoryOrder::Release);
        };
        if ready(&deps) {
            run(&deps);
            return Ok(());
        }
        std::thread::Builder::new()
            .name("hsaemu-async-copy".into())
            .spawn(move || {
                crate::signal::wait_any_change_until(|| ready(&deps));
                run(&deps);
            })
            .map(|_| ())
            .map_err(|_| HsaError::OutOfResources)
    }

    // ---- signals ----

    /// Creates a signal (`hsa_signal_create`).
    pub fn create_signal(&self, initial: i64) -> Result<Signal> {
        self.add_signal(Signal::new(initial)?)
    }

    /// Makes a signal made elsewhere (an IPC signal) live: visible to kernels and by handle.
    pub fn add_signal(&self, s: Signal) -> Result<Signal> {
        self.memory.expose(s.handle(), s.mapped_len());
        self.signals.insert(s.clone());
        Ok(s)
    }

    /// The live signal with this handle.
    pub fn signal(&self, handle: u64) -> Result<Signal> {
        if handle == 0 {
            return Err(HsaError::InvalidArgument);
        }
        self.signals.get(handle).ok_or(HsaError::InvalidSignal)
    }

    /// Destroys a signal (`hsa_signal_destroy`); its memory lives while clones do.
    pub fn destroy_signal(&self, handle: u64) -> Result<()> {
        if handle == 0 {
            return Err(HsaError::InvalidArgument);
        }
        match self.signals.remove(handle) {
            Some(s) if s.is_doorbell() => {
                self.signals.insert(s);
                Err(HsaError::InvalidSignal)
            }
            Some(s) => {
                // Kernels still running may update it: its memory stays until they end.
                self.memory
                    .retire(handle, Box::new(s), "hsa_signal_destroy");
                Ok(())
            }
            None => Err(HsaError::InvalidSignal),
        }
    }

    /// Registers an async handler (`hsa_amd_signal_async_handler`): `handler(value)` runs on
    /// the runtime's handler thread each time `signal <cond> value` holds, until it returns
    /// false.
    pub fn async_handler(
        &self,
        signal: Signal,
        cond: SignalCondition,
        value: i64,
        handler: AsyncHandler,
    ) -> Result<()> {
        self.handlers.pending.lock().push(HandlerEntry {
            signal,
            cond,
            value,
            handler,
        });
        let mut t = self.handlers.thread.lock();
        if t.is_none() {
            let h = self.handlers.clone();
            *t = Some(
                std::thread::Builder::new()
                    .name("hsaemu-async-handlers".into())
                    .spawn(move || run_async_handlers(&h))
                    .map_err(|_| HsaError::OutOfResources)?,
            );
        }
        drop(t);
        crate::sync::global().notify();
        Ok(())
    }

    /// Creates a signal group (`hsa_signal_group_create`) over live signals.
    pub fn create_signal_group(&self, handles: &[u64]) -> Result<u64> {
        if handles.is_empty() {
            return Err(HsaError::InvalidArgument);
        }
        let signals = handles
            .iter()
            .map(|&h| self.signal(h))
            .collect::<Result<Vec<_>>>()?;
        let group = Arc::new(signals);
        let handle = Arc::as_ptr(&group) as u64;
        self.signal_groups.write().insert(handle, group);
        Ok(handle)
    }

    /// The signals of a group.
    pub fn signal_group(&self, handle: u64) -> Result<Arc<Vec<Signal>>> {
        self.signal_groups
            .read()
            .get(&handle)
            .cloned()
            .ok_or(HsaError::InvalidSignalGroup)
    }

    /// Destroys a signal group.
    pub fn destroy_signal_group(&self, handle: u64) -> Result<()> {
        self.signal_groups
            .write()
            .remove(&handle)
            .map(|_| ())
            .ok_or(HsaError::InvalidSignalGroup)
    }

    // ---- queues ----

    /// Creates a queue on a GPU agent (`hsa_queue_create`).
    pub fn create_queue(
        &self,
        agent: &Agent,
        size: u32,
        type_: QueueType,
        callback: Option<QueueErrorCallback>,
    ) -> Result<Queue> {
        let q = Queue::create(
            agent,
            size,
            type_,
            callback,
            self.signals.clone(),
            self.events.clone(),
        )?;
        let props = agent.properties();
        if let Some(global) = self.config.cu_masks.get(&props.node.wrapping_sub(1)) {
            q.cu_mask()
                .init_global(global, self.config.cu_mask_skip_init, props.compute_units);
        }
        self.memory
            .expose(q.doorbell().handle(), q.doorbell().mapped_len());
        self.signals.insert(q.doorbell().clone());
        if let Some(s) = q.inactive_signal() {
            self.memory.expose(s.handle(), s.mapped_len());
            self.signals.insert(s.clone());
        }
        Ok(self.register_queue(q))
    }

    /// Creates a soft queue (`hsa_soft_queue_create`) whose packets the application processes;
    /// `doorbell` is an existing signal.
    pub fn create_soft_queue(
        &self,
        agent: &Agent,
        size: u32,
        type_: QueueType,
        features: u32,
        doorbell: u64,
    ) -> Result<Queue> {
        let doorbell = self.signal(doorbell)?;
        let q = Queue::create_soft(
            agent,
            size,
            type_,
            features,
            doorbell,
            self.signals.clone(),
            self.events.clone(),
        )?;
        Ok(self.register_queue(q))
    }

    fn register_queue(&self, q: Queue) -> Queue {
        let (ring, ring_len) = q.ring();
        self.memory.expose(ring, ring_len);
        self.memory.expose(q.address(), q.amd_queue_mapped_len());
        self.queues.write().insert(q.address(), q.clone());
        q
    }

    /// Registers a system event handler (`hsa_amd_register_system_event_handler`); it runs on
    /// a queue's thread when a kernel faults on memory, before the queue's error callback.
    pub fn register_system_event_handler(&self, handler: SystemEventHandler) {
        self.events.register(handler);
    }

    /// The live queue at this address.
    pub fn queue(&self, address: u64) -> Result<Queue> {
        self.queues
            .read()
            .get(&address)
            .cloned()
            .ok_or(HsaError::InvalidQueue)
    }

    /// Destroys a queue (`hsa_queue_destroy`): stops its processor and frees its memory.
    pub fn destroy_queue(&self, address: u64) -> Result<()> {
        let q = self
            .queues
            .write()
            .remove(&address)
            .ok_or(HsaError::InvalidQueue)?;
        q.shut_down();
        let (ring, _) = q.ring();
        self.memory.hide(ring);
        self.memory.hide(q.address());
        if !q.is_soft() {
            self.memory.hide(q.doorbell().handle());
            self.signals.remove(q.doorbell().handle());
        }
        if let Some(s) = q.inactive_signal() {
            self.memory.hide(s.handle());
            self.signals.remove(s.handle());
        }
        Ok(())
    }
}

impl Runtime {
    // ---- code objects and executables ----

    /// Registers a code object reader.
    pub fn add_reader(&self, reader: CodeObjectReader) -> u64 {
        let h = reader.handle();
        self.readers.write().insert(h, reader);
        h
    }
    /// The reader with this handle.
    pub fn reader(&self, handle: u64) -> Result<CodeObjectReader> {
        self.readers
            .read()
            .get(&handle)
            .cloned()
            .ok_or(HsaError::InvalidCodeObjectReader)
    }
    /// Destroys a reader.
    pub fn destroy_reader(&self, handle: u64) -> Result<()> {
        self.readers
            .write()
            .remove(&handle)
            .map(|_| ())
            .ok_or(HsaError::InvalidCodeObjectReader)
    }
    /// Creates an executable.
    pub fn create_executable(&self) -> Executable {
        let e = Executable::new();
        self.executables.write().insert(e.handle(), e.clone());
        e
    }
    /// The executable with this handle.
    pub fn executable(&self, handle: u64) -> Result<Executable> {
        self.executables
            .read()
            .get(&handle)
            .cloned()
            .ok_or(HsaError::InvalidExecutable)
    }
    /// Every live executable.
    pub fn executables(&self) -> Vec<Executable> {
        self.executables.read().values().cloned().collect()
    }
    /// Destroys an executable: its code leaves device memory.
    pub fn destroy_executable(&self, handle: u64) -> Result<()> {
        self.executables
            .write()
            .remove(&handle)
            .map(|_| ())
            .ok_or(HsaError::InvalidExecutable)
    }
    /// The symbol with this handle and its executable.
    pub fn symbol(&self, handle: u64) -> Result<(Executable, Arc<ExecutableSymbol>)> {
        self.executables
            .read()
            .values()
            .find_map(|e| e.symbol_by_handle(handle).map(|s| (e.clone(), s)))
            .ok_or(HsaError::InvalidExecutableSymbol)
    }
}

fn run_async_handlers(h: &AsyncHandlers) {
    use std::sync::atomic::Ordering;
    loop {
        if h.stop.load(Ordering::Acquire) {
            return;
        }
        let mut fired: Vec<(HandlerEntry, i64)> = Vec::new();
        {
            let mut pending = h.pending.lock();
            let mut i = 0;
            while i < pending.len() {
                let e = &pending[i];
                let v = e.signal.load(MemoryOrder::Relaxed);
                if e.cond.holds(v, e.value) {
                    fired.push((pending.swap_remove(i), v));
                } else {
                    i += 1;
                }
            }
        }
        if fired.is_empty() {
            let stop = &h.stop;
            let pending = &h.pending;
            crate::signal::wait_any_change(Duration::from_millis(50), || {
                stop.load(Ordering::Acquire)
                    || pending
                        .lock()
                        .iter()
                        .any(|e| e.cond.holds(e.signal.load(MemoryOrder::Relaxed), e.value))
            });
            continue;
        }
        for (mut e, v) in fired {
            if (e.handler)(v) {
                h.pending.lock().push(e);
            }
        }
    }
}
