//! User-mode AQL queues: a ring of 64-byte packets and an `amd_queue_t` in memory shared with
//! the application, a doorbell signal, lock-free index operations in every memory order, and a
//! packet processor thread per queue. The processor follows the rules of hsa-api.md §3.5: it
//! consumes packets strictly in order from the read index once their header leaves INVALID,
//! runs kernel dispatches on the emulated GPU, waits on barrier-AND/OR and AMD BARRIER_VALUE
//! packets, applies fences, decrements completion signals, resets the header to INVALID and
//! advances the read index. Malformed packets and kernel faults put the queue into its error
//! state as ROCr does: a one-line report on stderr, the queue's callback called on the
//! processor thread with ROCr's status for the error, and only then is the queue marked
//! inactive and its `queue_inactive_signal` set to -1, so nothing the failure wakes can run
//! before the callback has returned. The packet's completion signal is left as it was.

use std::sync::atomic::{fence, AtomicBool, AtomicU16, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::agent::Agent;
use crate::backend::{self, Control, DispatchPacket};
use crate::error::{HsaError, Result};
use crate::layout::{
    packet_header, packet_type, AmdBarrierValuePacket, AmdQueue, BarrierPacket, HsaQueue,
    KernelDispatchPacket, AMD_PACKET_TYPE_BARRIER_VALUE, PACKET_SIZE,
};
use crate::pages::{PageBox, Pages};
use crate::signal::{MemoryOrder, Signal, SignalCondition};
use crate::sync;
use crate::SignalTable;

/// `hsa_queue_type_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueType {
    Multi = 0,
    Single = 1,
    Cooperative = 2,
}

impl QueueType {
    /// From the C value.
    pub fn from_raw(v: u32) -> Option<Self> {
        Some(match v {
            0 => Self::Multi,
            1 => Self::Single,
            2 => Self::Cooperative,
            _ => return None,
        })
    }
}

/// `HSA_QUEUE_FEATURE_KERNEL_DISPATCH`.
pub const QUEUE_FEATURE_KERNEL_DISPATCH: u32 = 1;

/// The error callback: receives the status describing what went wrong.
pub type QueueErrorCallback = Arc<dyn Fn(HsaError) + Send + Sync>;

/// An asynchronous system event (`hsa_amd_event_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemEvent {
    /// A kernel accessed memory it may not (`HSA_AMD_GPU_MEMORY_FAULT_EVENT`).
    MemoryFault {
        /// The agent's handle.
        agent: u64,
        /// The faulting address.
        address: u64,
        /// `hsa_amd_memory_fault_reason_t` bits.
        reason: u32,
    },
}

/// A system event handler (`hsa_amd_register_system_event_handler`).
pub type SystemEventHandler = Arc<dyn Fn(&SystemEvent) + Send + Sync>;

/// The registered system event handlers.
#[derive(Default)]
pub struct SystemEventHandlers(Mutex<Vec<SystemEventHandler>>);

impl SystemEventHandlers {
    /// Adds a handler.
    pub fn register(&self, h: SystemEventHandler) {
        self.0.lock().push(h);
    }
    /// Calls every handler with `event` (on the calling thread).
    pub fn raise(&self, event: &SystemEvent) {
        let handlers = self.0.lock().clone();
        for h in handlers {
            h(event);
        }
    }
}

impl std::fmt::Debug for SystemEventHandlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SystemEventHandlers({})", self.0.lock().len())
    }
}

/// Queue states of hsa-api.md §3.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum QueueState {
    Active = 0,
    Inactive = 1,
}

pub(crate) struct QueueShared {
    amd: PageBox<AmdQueue>,
    ring: Pages,
    doorbell: Signal,
    agent: Agent,
    state: AtomicU8,
    stop: AtomicBool,
    callback: Option<QueueErrorCallback>,
    thread: Mutex<Option<JoinHandle<()>>>,
    signals: Arc<SignalTable>,
    events: Arc<SystemEventHandlers>,
    /// A soft queue: no processor thread; the doorbell belongs to the application.
    soft: bool,
    dispatches: AtomicU64,
    cu_mask: crate::cu_mask::CuMask,
    /// One more than the index of the packet the processor took last (0: none yet).
    taken: AtomicU64,
    /// The control of the dispatch running now, so inactivation and destruction can stop it.
    running: Mutex<Option<Arc<Control>>>,
    /// `amd_queue_t.queue_inactive_signal`: set to -1 once an error has been reported.
    inactive_signal: Option<Signal>,
}

/// A queue. Cloning shares it.
#[derive(Clone)]
pub struct Queue(pub(crate) Arc<QueueShared>);

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Queue(0x{:x})", self.address())
    }
}

static NEXT_QUEUE_ID: AtomicU64 = AtomicU64::new(0);

impl Queue {
    pub(crate) fn create(
        agent: &Agent,
        size: u32,
        type_: QueueType,
        callback: Option<QueueErrorCallback>,
        signals: Arc<SignalTable>,
        events: Arc<SystemEventHandlers>,
    ) -> Result<Queue> {
        let p = agent.properties();
        if !p.kernel_dispatch {
            return Err(HsaError::InvalidAgent);
        }
        Self::build(
            agent,
            size,
            type_,
            QUEUE_FEATURE_KERNEL_DISPATCH,
            None,
            callback,
            signals,
            events,
        )
    }

    /// A soft queue (`hsa_soft_queue_create`): ring and `amd_queue_t` with the application's
    /// doorbell signal and no packet processor — the application processes it.
    pub(crate) fn create_soft(
        agent: &Agent,
        size: u32,
        type_: QueueType,
        features: u32,
        doorbell: Signal,
        signals: Arc<SignalTable>,
        events: Arc<SystemEventHandlers>,
    ) -> Result<Queue> {
        if features == 0 || features & !3 != 0 {
            return Err(HsaError::InvalidArgument);
        }
        Self::build(
            agent,
            size,
            type_,
            features,
            Some(doorbell),
            None,
            signals,
            events,
        )
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "internal constructor shared by both queue kinds"
    )]
    fn build(
        agent: &Agent,
        size: u32,
        type_: QueueType,
        features: u32,
        soft_doorbell: Option<Signal>,
        callback: Option<QueueErrorCallback>,
        signals: Arc<SignalTable>,
        events: Arc<SystemEventHandlers>,
    ) -> Result<Queue> {
        let p = agent.properties();
        if !size.is_power_of_two() || size < p.queue_min_size || size > p.queue_max_size {
            return Err(HsaError::InvalidArgument);
        }
        let ring = Pages::new(size as usize * PACKET_SIZE)?;
        for i in 0..size as usize {
            // SAFETY: slot `i` lies inside the ring, which is page-aligned, so the header
            // address is 2-byte aligned.
            let h = unsafe { &*(ring.as_ptr().add(i * PACKET_SIZE) as *const AtomicU16) };
            h.store(u16::from(packet_type::INVALID), Ordering::Relaxed);
        }
        let soft = soft_doorbell.is_some();
        let doorbell = match soft_doorbell {
            Some(d) => d,
            None => Signal::new_doorbell()?,
        };
        let inactive_signal = if soft { None } else { Some(Signal::new(0)?) };
        let amd = PageBox::new(AmdQueue {
            hsa_queue: HsaQueue {
                type_: type_ as u32,
                features,
                base_address: ring.addr(),
                doorbell_signal: doorbell.handle(),
                size,
                reserved1: 0,
                id: NEXT_QUEUE_ID.fetch_add(1, Ordering::Relaxed),
            },
            group_segment_aperture_base_hi: crate::backend::APERTURES_HI.0,
            private_segment_aperture_base_hi: crate::backend::APERTURES_HI.1,
            max_cu_id: p.compute_units.saturating_sub(1),
            max_wave_id: p.max_waves_per_cu.saturating_sub(1),
            queue_properties: 1 << 1, // AMD_QUEUE_PROPERTIES_IS_PTR64
            queue_inactive_signal: inactive_signal.as_ref().map_or(0, Signal::handle),
            ..AmdQueue::default()
        })?;
        let shared = Arc::new(QueueShared {
            amd,
            ring,
            doorbell,
            agent: agent.clone(),
            state: AtomicU8::new(QueueState::Active as u8),
            stop: AtomicBool::new(false),
            callback,
            thread: Mutex::new(None),
            signals,
            events,
            soft,
            dispatches: AtomicU64::new(0),
            cu_mask: Default::default(),
            taken: AtomicU64::new(0),
            running: Mutex::new(None),
            inactive_signal,
        });
        if soft {
            return Ok(Queue(shared));
        }
        let worker = shared.clone();
        let handle = std::thread::Builder::new()
            .name(format!("hsaemu-queue-{}", shared.amd.hsa_queue.id))
            .spawn(move || worker.process())
            .map_err(|_| HsaError::OutOfResources)?;
        *shared.thread.lock() = Some(handle);
        Ok(Queue(shared))
    }

    /// The `hsa_queue_t*` address given to applications.
    pub fn address(&self) -> u64 {
        &self.0.amd.hsa_queue as *const HsaQueue as u64
    }
    /// The `amd_queue_t` in memory.
    pub fn amd_queue(&self) -> &AmdQueue {
        &self.0.amd
    }
    /// The ring buffer's address and size in bytes.
    pub fn ring(&self) -> (u64, u64) {
        (self.0.ring.addr(), self.0.ring.len() as u64)
    }

    /// Bytes mapped for the `amd_queue_t`.
    pub fn amd_queue_mapped_len(&self) -> u64 {
        self.0.amd.mapped_len() as u64
    }
    /// Number of packets in the ring.
    pub fn size(&self) -> u32 {
        self.0.amd.hsa_queue.size
    }
    /// The doorbell signal.
    pub fn doorbell(&self) -> &Signal {
        &self.0.doorbell
    }
    /// `amd_queue_t.queue_inactive_signal` (none for a soft queue).
    pub fn inactive_signal(&self) -> Option<&Signal> {
        self.0.inactive_signal.as_ref()
    }

    /// Whether this is a soft queue (processed by the application).
    pub fn is_soft(&self) -> bool {
        self.0.soft
    }
    /// The CU mask (`hsa_amd_queue_cu_set_mask`).
    pub fn cu_mask(&self) -> &crate::cu_mask::CuMask {
        &self.0.cu_mask
    }
    /// The agent the queue feeds.
    pub fn agent(&self) -> &Agent {
        &self.0.agent
    }
    /// Active or inactive.
    pub fn state(&self) -> QueueState {
        self.0.state()
    }
    /// Number of kernel dispatches completed.
    pub fn dispatch_count(&self) -> u64 {
        self.0.dispatches.load(Ordering::Relaxed)
    }

    /// Submits one packet the way an application does: reserves a slot, waits for room,
    /// writes bytes 4..64, publishes the header and setup with release semantics and rings the
    /// doorbell. Returns the packet ID, or `InvalidQueue` if the queue is or becomes inactive
    /// while waiting for room.
    pub fn submit(&self, packet: &[u8; PACKET_SIZE]) -> Result<u64> {
        let id = self.add_write_index(1, MemoryOrder::AcqRel);
        let size = u64::from(self.size());
        while id.wrapping_sub(self.load_read_index(MemoryOrder::Acquire)) >= size {
            if self.state() != QueueState::Active {
                return Err(HsaError::InvalidQueue);
            }
            std::thread::yield_now();
        }
        let slot = self.0.slot(id);
        // SAFETY: the slot is inside the ring and ours until we publish it: the producer
        // protocol above reserved it and the processor released it (read index passed it).
        unsafe {
            std::ptr::copy_nonoverlapping(packet[4..].as_ptr(), slot.add(4), PACKET_SIZE - 4)
        };
        // SAFETY: the slot is 64-byte aligned, so its first 4 bytes form an aligned u32.
        let first = unsafe { &*(slot as *const std::sync::atomic::AtomicU32) };
        first.store(
            u32::from_le_bytes([packet[0], packet[1], packet[2], packet[3]]),
            Ordering::Release,
        );
        self.doorbell().store(id as i64, MemoryOrder::Release);
        Ok(id)
    }

    /// Stops processing (`hsa_queue_inactivate`), including the dispatch running now, which
    /// stops at its next preemption point and is reported on stderr; idempotent.
    pub fn inactivate(&self) {
        self.0
            .state
            .store(QueueState::Inactive as u8, Ordering::Release);
        self.0.stop_running();
        self.0.doorbell.wake_waiters();
    }

    /// Stops the processor thread, and the dispatch it runs, and waits for it
    /// (`hsa_queue_destroy`, `hsa_shut_down`).
    pub(crate) fn shut_down(&self) {
        self.0.let_processor_take_published_packet();
        self.0.stop.store(true, Ordering::Release);
        self.0.stop_running();
        self.0.doorbell.wake_waiters();
        sync::global().notify();
        let handle = self.0.thread.lock().take();
        if let Some(h) = handle {
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
    }

    pub fn load_read_index(&self, order: MemoryOrder) -> u64 {
        self.0.amd.read_dispatch_id.load(order.load())
    }
    pub fn load_write_index(&self, order: MemoryOrder) -> u64 {
        self.0.amd.write_dispatch_id.load(order.load())
    }
    pub fn store_write_index(&self, value: u64, order: MemoryOrder) {
        self.0.amd.write_dispatch_id.store(value, order.store());
    }
    pub fn store_read_index(&self, value: u64, order: MemoryOrder) {
        self.0.amd.read_dispatch_id.store(value, order.store());
    }
    /// Compare-and-swap of the write index; returns the observed value.
    pub fn cas_write_index(&self, expected: u64, value: u64, order: MemoryOrder) -> u64 {
        let (s, f) = order.cas();
        match self
            .0
            .amd
            .write_dispatch_id
            .compare_exchange(expected, value, s, f)
        {
            Ok(v) | Err(v) => v,
        }
    }
    /// Atomic add to the write index; returns the previous value.
    pub fn add_write_index(&self, value: u64, order: MemoryOrder) -> u64 {
        self.0.amd.write_dispatch_id.fetch_add(value, order.rmw())
    }
}

/// What stopped a packet.
enum PacketError {
    /// Malformed packet or launch failure: the queue enters the error state; RI stays.
    Launch(HsaError, String),
    /// Failure while active (kernel fault): completion signal gets -1, queue errors; a memory
    /// fault also raises a system event.
    Active(HsaError, String, Option<SystemEvent>),
    /// A barrier saw a negative dependency: completion signal gets -1, the queue continues.
    Dependency,
    /// The queue was stopped or inactivated while the packet waited.
    Aborted,
    /// The queue was stopped or inactivated while the packet's dispatch ran: the report.
    Stopped(String),
}

impl QueueShared {
    fn state(&self) -> QueueState {
        if self.state.load(Ordering::Acquire) == QueueState::Active as u8 {
            QueueState::Active
        } else {
            QueueState::Inactive
        }
    }

    fn slot(&self, index: u64) -> *mut u8 {
        let mask = u64::from(self.amd.hsa_queue.size) - 1;
        // SAFETY: `index & mask` < size, so the offset is inside the ring allocation.
        unsafe {
            self.ring
                .as_ptr()
                .add(((index & mask) as usize) * PACKET_SIZE)
        }
    }

    fn header(&self, index: u64) -> &AtomicU16 {
        // SAFETY: the slot is inside the ring, 64-byte aligned, and lives as long as `self`.
        unsafe { &*(self.slot(index) as *const AtomicU16) }
    }

    fn aborted(&self) -> bool {
        self.stop.load(Ordering::Acquire) || self.state() != QueueState::Active
    }

    /// Before a queue is destroyed, lets the processor take a packet that was published but
    /// not yet taken (at most 1 s), so a malformed one still reaches the error callback, as on
    /// a GPU that takes it within microseconds. rocrtst's Queue_Validation tests ring and
    /// destroy at once; on a loaded host a new processor thread was seen to first run 274 ms
    /// later. A packet already taken (a running dispatch, a barrier waiting) is not waited for.
    fn let_processor_take_published_packet(&self) {
        if self.soft || self.thread.lock().is_none() {
            return;
        }
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline && self.state() == QueueState::Active {
            let ri = self.amd.read_dispatch_id.load(Ordering::Acquire);
            let published =
                self.header(ri).load(Ordering::Acquire) & 0xff != u16::from(packet_type::INVALID);
            if !published || self.taken.load(Ordering::Acquire) == ri + 1 {
                return;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn stop_running(&self) {
        if let Some(c) = &*self.running.lock() {
            c.stop();
        }
    }

    /// The packet processor's main loop.
    fn process(self: Arc<Self>) {
        loop {
            if self.stop.load(Ordering::Acquire) {
                return;
            }
            let ri = self.amd.read_dispatch_id.load(Ordering::Acquire);
            let header = self.header(ri);
            let ready = self.doorbell.wait_on_change(
                Some(Instant::now() + Duration::from_millis(100)),
                sync::SPIN_TIME_ACTIVE,
                // Doorbell stores wake the processor at once; the poll only catches packets
                // published without ringing.
                Duration::from_millis(5),
                || {
                    let stop = self.stop.load(Ordering::Acquire);
                    let valid =
                        (header.load(Ordering::Acquire) & 0xff) != u16::from(packet_type::INVALID);
                    (stop || (valid && self.state() == QueueState::Active)).then_some(())
                },
            );
            if ready.is_none() || self.stop.load(Ordering::Acquire) {
                continue;
            }
            self.taken.store(ri + 1, Ordering::Release);
            let mut bytes = [0u8; PACKET_SIZE];
            // SAFETY: the slot holds 64 bytes inside the ring; the producer finished writing
            // the body before publishing the header we acquired above, and nobody writes the
            // slot again until we release it below.
            unsafe {
                std::ptr::copy_nonoverlapping(self.slot(ri), bytes.as_mut_ptr(), PACKET_SIZE)
            };
            let hdr = u16::from_le_bytes([bytes[0], bytes[1]]);
            if (hdr >> packet_header::SCACQUIRE_FENCE_SCOPE) & 3 != 0 {
                fence(Ordering::Acquire);
            }
            let completion = u64::from_le_bytes(bytes[56..64].try_into().unwrap_or([0; 8]));
            let start = crate::signal::timestamp_ns();
            let result = self
                .check_packet(ri, hdr, completion)
                .and_then(|()| self.execute(ri, &bytes));
            if matches!(result, Ok(()) | Err(PacketError::Dependency)) {
                // Only a packet that completes touches its completion signal.
                self.record_times(completion, start);
            }
            if let Some(t) = crate::trace::timeline() {
                self.trace_packet(t, ri, &bytes, start, &result);
            }
            if (hdr >> packet_header::SCRELEASE_FENCE_SCOPE) & 3 != 0 {
                fence(Ordering::Release);
            }
            match result {
                Ok(()) => {
                    self.release_slot(ri);
                    self.complete(completion, None);
                }
                Err(PacketError::Dependency) => {
                    self.release_slot(ri);
                    self.complete(completion, Some(-1));
                }
                Err(PacketError::Aborted) => {}
                Err(PacketError::Stopped(msg)) => {
                    let queue = &self.amd.hsa_queue as *const HsaQueue as u64;
                    eprintln!("hsaemu: queue 0x{queue:x}: {msg}");
                }
                // As in ROCr, the packet stays at the read index and its completion signal
                // keeps its value: the queue is broken, and the callback says why.
                Err(PacketError::Active(status, msg, event)) => {
                    if let Some(e) = event {
                        self.events.raise(&e);
                    }
                    self.fail(status, &msg);
                }
                Err(PacketError::Launch(status, msg)) => self.fail(status, &msg),
            }
        }
    }

    /// Adds the packet just processed to the timeline.
    fn trace_packet(
        &self,
        t: &crate::trace::Timeline,
        index: u64,
        bytes: &[u8; PACKET_SIZE],
        start: u64,
        result: &std::result::Result<(), PacketError>,
    ) {
        let end = crate::signal::timestamp_ns();
        let (kind, kernel) = match bytes[0] {
            packet_type::KERNEL_DISPATCH => {
                let p = KernelDispatchPacket::from_bytes(bytes);
                (
                    "dispatch",
                    Some((
                        p.kernel_object,
                        [p.grid_size_x, p.grid_size_y, p.grid_size_z],
                        [p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z],
                    )),
                )
            }
            packet_type::BARRIER_AND => ("barrier-and", None),
            packet_type::BARRIER_OR => ("barrier-or", None),
            packet_type::VENDOR_SPECIFIC if bytes[2] == AMD_PACKET_TYPE_BARRIER_VALUE => {
                ("barrier-value", None)
            }
            _ => ("packet", None),
        };
        let error = match result {
            Ok(()) => None,
            Err(PacketError::Dependency) => Some("a dependency signal is negative".to_string()),
            Err(PacketError::Aborted) => Some("the queue stopped".to_string()),
            Err(PacketError::Stopped(msg)) => Some(msg.clone()),
            Err(PacketError::Active(_, msg, _)) | Err(PacketError::Launch(_, msg)) => {
                Some(msg.clone())
            }
        };
        let queue = &self.amd.hsa_queue as *const HsaQueue as u64;
        t.packet(queue, index, kind, kernel, start, end, error.as_deref());
    }

    fn release_slot(&self, ri: u64) {
        self.header(ri)
            .store(u16::from(packet_type::INVALID), Ordering::Release);
        self.amd.read_dispatch_id.store(ri + 1, Ordering::Release);
    }

    /// Records the packet's start and end timestamps in its completion signal (what
    /// `hsa_amd_profiling_get_dispatch_time` reads), before the signal is updated.
    fn record_times(&self, completion: u64, start: u64) {
        if completion == 0 {
            return;
        }
        if let Some(sig) = self.signals.get(completion) {
            sig.set_times(start, crate::signal::timestamp_ns());
        }
    }

    fn complete(&self, completion: u64, error_value: Option<i64>) {
        if completion == 0 {
            return;
        }
        if let Some(sig) = self.signals.get(completion) {
            match error_value {
                None => {
                    sig.rmw(crate::signal::SignalOp::Subtract, 1, MemoryOrder::Release);
                }
                Some(v) => sig.store(v, MemoryOrder::Release),
            }
        }
    }

    /// Reports a queue error in ROCr's order: the report, the callback (on this thread, which
    /// processes nothing more meanwhile; it may destroy the queue), then the queue becomes
    /// inactive (producers waiting for room see it) and `queue_inactive_signal` gets -1.
    fn fail(&self, status: HsaError, message: &str) {
        let queue = &self.amd.hsa_queue as *const HsaQueue as u64;
        // The report names what failed and where; the callback only receives a status.
        eprintln!(
            "hsaemu: queue 0x{queue:x} stopped with {}: {message}",
            status.name()
        );
        if let Some(cb) = &self.callback {
            cb(status);
        }
        self.state
            .store(QueueState::Inactive as u8, Ordering::Release);
        if let Some(s) = &self.inactive_signal {
            s.store(-1, MemoryOrder::Release);
        }
    }

    /// The checks every packet gets before it runs: the header's fence scopes, and a
    /// completion signal that is null or live.
    fn check_packet(
        &self,
        index: u64,
        header: u16,
        completion: u64,
    ) -> std::result::Result<(), PacketError> {
        backend::check_header(header)
            .map_err(|(s, m)| PacketError::Launch(s, format!("packet {index}: {m}")))?;
        if completion != 0 && self.signals.get(completion).is_none() {
            return Err(PacketError::Launch(
                HsaError::InvalidSignal,
                format!(
                    "packet {index}: completion signal 0x{completion:x} is not a live signal (never created, or destroyed)"
                ),
            ));
        }
        Ok(())
    }

    fn signal(&self, handle: u64) -> std::result::Result<Signal, PacketError> {
        self.signals.get(handle).ok_or_else(|| {
            PacketError::Launch(
                HsaError::InvalidSignal,
                format!("packet names signal 0x{handle:x}, which is not a live signal"),
            )
        })
    }

    fn execute(
        &self,
        index: u64,
        bytes: &[u8; PACKET_SIZE],
    ) -> std::result::Result<(), PacketError> {
        let type_ = bytes[0];
        match type_ {
            packet_type::KERNEL_DISPATCH => self.dispatch(index, &KernelDispatchPacket::from_bytes(bytes)),
            packet_type::BARRIER_AND | packet_type::BARRIER_OR => {
                let p = BarrierPacket::from_bytes(bytes);
                let deps = p
                    .dep_signal
                    .iter()
                    .filter(|&&h| h != 0)
                    .map(|&h| self.signal(h))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                self.barrier(&deps, type_ == packet_type::BARRIER_AND)
            }
            packet_type::VENDOR_SPECIFIC if bytes[2] == AMD_PACKET_TYPE_BARRIER_VALUE => {
                let p = AmdBarrierValuePacket::from_bytes(bytes);
                let cond = SignalCondition::from_raw(p.cond).ok_or_else(|| {
                    PacketError::Launch(
                        HsaError::InvalidPacketFormat,
                        format!("BARRIER_VALUE packet {index} has condition {}", p.cond),
                    )
                })?;
                let sig = self.signal(p.signal)?;
                self.wait_until(|| cond.holds(sig.load(MemoryOrder::Acquire) & p.mask, p.value))
            }
            packet_type::VENDOR_SPECIFIC => Err(PacketError::Launch(
                HsaError::InvalidPacketFormat,
                format!("packet {index}: unknown AMD vendor packet format {}", bytes[2]),
            )),
            packet_type::AGENT_DISPATCH => Err(PacketError::Launch(
                HsaError::InvalidPacketFormat,
                format!("packet {index}: agent dispatch packets are not supported on a kernel-dispatch queue"),
            )),
            t => Err(PacketError::Launch(
                HsaError::InvalidPacketFormat,
                format!("packet {index}: unknown packet type {t}"),
            )),
        }
    }

    /// Waits until `done()` (or the queue stops), sleeping on the global signal epoch.
    fn wait_until(&self, mut done: impl FnMut() -> bool) -> std::result::Result<(), PacketError> {
        let r = sync::global().wait_until(None, sync::SPIN_TIME_ACTIVE, || {
            if self.aborted() {
                Some(false)
            } else {
                done().then_some(true)
            }
        });
        match r {
            Some(true) => Ok(()),
            _ => Err(PacketError::Aborted),
        }
    }

    fn barrier(&self, deps: &[Signal], and: bool) -> std::result::Result<(), PacketError> {
        if deps.is_empty() {
            // AND with no dependencies is satisfied; an OR with none would never complete,
            // so hsaemu completes it too (documented in docs/status-runtime.md).
            return Ok(());
        }
        let mut seen_zero = vec![false; deps.len()];
        let mut negative = false;
        self.wait_until(|| {
            for (i, d) in deps.iter().enumerate() {
                if seen_zero[i] {
                    continue;
                }
                let v = d.load(MemoryOrder::Acquire);
                if v < 0 {
                    negative = true;
                    return true;
                }
                if v == 0 {
                    seen_zero[i] = true;
                    if !and {
                        return true;
                    }
                }
            }
            seen_zero.iter().all(|&s| s)
        })?;
        if negative {
            Err(PacketError::Dependency)
        } else {
            Ok(())
        }
    }

    fn dispatch(
        &self,
        index: u64,
        p: &KernelDispatchPacket,
    ) -> std::result::Result<(), PacketError> {
        let mut d = backend::check_dispatch_packet(&DispatchPacket {
            setup: p.setup,
            workgroup_size: [p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z],
            grid_size: [p.grid_size_x, p.grid_size_y, p.grid_size_z],
            private_segment_size: p.private_segment_size,
            group_segment_size: p.group_segment_size,
            kernel_object: p.kernel_object,
            kernarg_address: p.kernarg_address,
        })
        .map_err(|(s, m)| PacketError::Launch(s, format!("dispatch packet {index}: {m}")))?;
        let Some(backend) = self.agent.backend() else {
            return Err(PacketError::Launch(
                HsaError::InvalidPacketFormat,
                format!("dispatch packet {index}: the agent cannot execute kernels"),
            ));
        };
        d.dispatch_packet_address = self.slot(index) as u64;
        d.queue_address = &self.amd.hsa_queue as *const HsaQueue as u64;
        d.dispatch_id = index;
        d.compute_units = self.cu_mask.enabled();
        d.cooperative = self.amd.hsa_queue.type_ == QueueType::Cooperative as u32;
        let control = Arc::new(Control::new());
        *self.running.lock() = Some(control.clone());
        // An inactivation between the processor's check and here must still stop it.
        if self.aborted() {
            control.stop();
        }
        let result = backend.dispatch(&d, control);
        *self.running.lock() = None;
        result.map_err(|f| {
            let msg = format!("dispatch packet {index}: {}", f.message);
            if f.requested_stop {
                PacketError::Stopped(msg)
            } else if f.at_launch {
                PacketError::Launch(f.status, msg)
            } else {
                let event = f.address.map(|(address, write)| SystemEvent::MemoryFault {
                    agent: self.agent.handle(),
                    address,
                    // HSA_AMD_MEMORY_FAULT_READ_ONLY for writes, PAGE_NOT_PRESENT otherwise.
                    reason: if write { 2 } else { 1 },
                });
                PacketError::Active(f.status, msg, event)
            }
        })?;
        self.dispatches.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}
