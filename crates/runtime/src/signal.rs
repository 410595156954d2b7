//! Signals: an `amd_signal_t` in memory (the handle is its address, the value at offset 8, so
//! kernels can update it with plain atomics) plus every value operation, in every memory order,
//! and waits that spin briefly and then sleep on a futex (never burning a core). Waiters also
//! poll, because device code changes values without telling the host.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::Result;
use crate::layout::{AmdSignal, AMD_SIGNAL_KIND_USER};
use crate::pages::PageBox;
use crate::sync::{self, WakeWord};

/// A wait condition (`hsa_signal_condition_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalCondition {
    /// `HSA_SIGNAL_CONDITION_EQ`
    Eq,
    /// `HSA_SIGNAL_CONDITION_NE`
    Ne,
    /// `HSA_SIGNAL_CONDITION_LT`
    Lt,
    /// `HSA_SIGNAL_CONDITION_GTE`
    Gte,
}

impl SignalCondition {
    /// From the `hsa_signal_condition_t` value.
    pub fn from_raw(v: u32) -> Option<Self> {
        Some(match v {
            0 => Self::Eq,
            1 => Self::Ne,
            2 => Self::Lt,
            3 => Self::Gte,
            _ => return None,
        })
    }

    /// Whether `value <cond> compare` holds.
    pub fn holds(self, value: i64, compare: i64) -> bool {
        match self {
            Self::Eq => value == compare,
            Self::Ne => value != compare,
            Self::Lt => value < compare,
            Self::Gte => value >= compare,
        }
    }
}

/// The memory order of a signal or queue-index operation (named as in the `sc*` API).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryOrder {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

impl MemoryOrder {
    /// The Rust ordering for a read-modify-write.
    pub fn rmw(self) -> Ordering {
        match self {
            Self::Relaxed => Ordering::Relaxed,
            Self::Acquire => Ordering::Acquire,
            Self::Release => Ordering::Release,
            Self::AcqRel => Ordering::AcqRel,
        }
    }
    /// The Rust ordering for a load (release orders degrade to relaxed loads).
    pub fn load(self) -> Ordering {
        match self {
            Self::Acquire | Self::AcqRel => Ordering::Acquire,
            _ => Ordering::Relaxed,
        }
    }
    /// The Rust ordering for a store (acquire orders degrade to relaxed stores).
    pub fn store(self) -> Ordering {
        match self {
            Self::Release | Self::AcqRel => Ordering::Release,
            _ => Ordering::Relaxed,
        }
    }
    /// The Rust orderings (success, failure) for a compare-and-swap.
    pub fn cas(self) -> (Ordering, Ordering) {
        (self.rmw(), self.load())
    }
}

/// The wait-state hint (`hsa_wait_state_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitState {
    /// Sleep soon.
    Blocked,
    /// Spin a little before sleeping.
    Active,
}

impl WaitState {
    /// How long a waiter in this state spins before sleeping.
    pub(crate) fn spin_time(self) -> Duration {
        match self {
            WaitState::Blocked => sync::SPIN_TIME_BLOCKED,
            WaitState::Active => sync::SPIN_TIME_ACTIVE,
        }
    }
}

/// Read-modify-write operations on a signal value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalOp {
    Add,
    Subtract,
    And,
    Or,
    Xor,
}

/// A signal. Cloning shares it. The memory stays valid while any clone lives.
#[derive(Clone, Debug)]
pub struct Signal(Arc<SignalInner>);

#[derive(Debug)]
struct SignalInner {
    amd: PageBox<AmdSignal>,
    /// A queue's doorbell.
    doorbell: bool,
    /// Created with `HSA_AMD_SIGNAL_IPC`: its memory is a memfd other processes can attach.
    export: Option<crate::ipc::Export>,
}

impl Signal {
    /// A user signal with `initial` value, in its own page (`OutOfResources` if no memory).
    pub fn new(initial: i64) -> Result<Signal> {
        Self::with_kind(initial, false)
    }

    /// A queue doorbell signal (an ordinary user signal whose stores wake the processor).
    pub(crate) fn new_doorbell() -> Result<Signal> {
        Self::with_kind(0, true)
    }

    fn with_kind(initial: i64, doorbell: bool) -> Result<Signal> {
        let amd = PageBox::new(Self::user_signal())?;
        amd.value.store(initial, Ordering::Release);
        Ok(Signal(Arc::new(SignalInner {
            amd,
            doorbell,
            export: None,
        })))
    }

    fn user_signal() -> AmdSignal {
        AmdSignal {
            kind: AMD_SIGNAL_KIND_USER,
            ..AmdSignal::default()
        }
    }

    /// A user signal other processes can attach (`HSA_AMD_SIGNAL_IPC`): its `amd_signal_t`
    /// lives in shared memory. Waiters in other processes see changes by polling (1 ms slices).
    pub fn new_ipc(initial: i64) -> Result<Signal> {
        let (pages, export) = crate::ipc::new_shared(std::mem::size_of::<AmdSignal>())?;
        let amd = PageBox::in_pages(pages, Self::user_signal());
        amd.value.store(initial, Ordering::Release);
        Ok(Signal(Arc::new(SignalInner {
            amd,
            doorbell: false,
            export: Some(export),
        })))
    }

    /// The handle other processes attach this signal with; `InvalidArgument` unless it was
    /// created with `HSA_AMD_SIGNAL_IPC` (as ROCr).
    pub fn ipc_handle(&self) -> Result<crate::ipc::IpcHandle> {
        self.0
            .export
            .as_ref()
            .map(|e| e.handle())
            .ok_or(crate::error::HsaError::InvalidArgument)
    }

    /// Attaches a signal another process shared (`hsa_amd_ipc_signal_attach`).
    pub fn attach_ipc(h: crate::ipc::IpcHandle) -> Result<Signal> {
        let pages = crate::ipc::attach(h, 0)?;
        if pages.len() < std::mem::size_of::<AmdSignal>() {
            return Err(crate::error::HsaError::InvalidArgument);
        }
        // SAFETY: the pages are large enough (checked) and hold the exporter's `amd_signal_t`,
        // whose fields are all plain integers and atomics (any bit pattern is valid).
        let amd: PageBox<AmdSignal> = unsafe { PageBox::from_pages(pages) };
        if amd.kind != AMD_SIGNAL_KIND_USER {
            return Err(crate::error::HsaError::InvalidArgument);
        }
        Ok(Signal(Arc::new(SignalInner {
            amd,
            doorbell: false,
            export: None,
        })))
    }

    /// Bytes mapped for the signal (what is made visible to kernels).
    pub fn mapped_len(&self) -> u64 {
        self.0.amd.mapped_len() as u64
    }

    /// The `hsa_signal_t` handle: the address of the `amd_signal_t`.
    pub fn handle(&self) -> u64 {
        self.0.amd.addr()
    }

    /// Whether this is a queue doorbell.
    pub fn is_doorbell(&self) -> bool {
        self.0.doorbell
    }

    /// The address of the value (`hsa_amd_signal_value_pointer`).
    pub fn value_address(&self) -> u64 {
        self.0.amd.value.as_ptr() as u64
    }

    /// The `amd_signal_t` in memory.
    pub fn amd_signal(&self) -> &AmdSignal {
        &self.0.amd
    }

    fn wake(&self) -> WakeWord<'_> {
        WakeWord {
            seq: &self.0.amd.reserved3[0],
            sleepers: &self.0.amd.reserved3[1],
        }
    }

    fn notify(&self) {
        self.wake().notify();
        sync::global().notify();
    }

    /// Wakes everyone waiting on this signal without changing its value (they re-check their
    /// own conditions, e.g. a packet processor told to stop).
    pub(crate) fn wake_waiters(&self) {
        self.notify();
    }

    /// Records when the work it completes started and ended (`amd_signal_t` `start_ts` and
    /// `end_ts`, in nanoseconds of `CLOCK_MONOTONIC`).
    pub fn set_times(&self, start: u64, end: u64) {
        self.0.amd.start_ts.store(start, Ordering::Relaxed);
        self.0.amd.end_ts.store(end, Ordering::Relaxed);
    }

    /// The `(start, end)` timestamps recorded by [`set_times`](Self::set_times).
    pub fn times(&self) -> (u64, u64) {
        (
            self.0.amd.start_ts.load(Ordering::Acquire),
            self.0.amd.end_ts.load(Ordering::Acquire),
        )
    }

    /// Atomic load.
    pub fn load(&self, order: MemoryOrder) -> i64 {
        self.0.amd.value.load(order.load())
    }

    /// Atomic store; wakes waiters.
    pub fn store(&self, value: i64, order: MemoryOrder) {
        self.0.amd.value.store(value, order.store());
        self.notify();
    }

    /// Atomic store that wakes nobody (`hsa_signal_silent_store_*`).
    pub fn silent_store(&self, value: i64, order: MemoryOrder) {
        self.0.amd.value.store(value, order.store());
    }

    /// Atomic exchange; returns the previous value.
    pub fn exchange(&self, value: i64, order: MemoryOrder) -> i64 {
        let old = self.0.amd.value.swap(value, order.rmw());
        self.notify();
        old
    }

    /// Compare-and-swap; returns the observed value.
    pub fn cas(&self, expected: i64, value: i64, order: MemoryOrder) -> i64 {
        let (s, f) = order.cas();
        match self.0.amd.value.compare_exchange(expected, value, s, f) {
            Ok(old) => {
                self.notify();
                old
            }
            Err(old) => old,
        }
    }

    /// Atomic read-modify-write; returns the previous value.
    pub fn rmw(&self, op: SignalOp, value: i64, order: MemoryOrder) -> i64 {
        let v = &self.0.amd.value;
        let o = order.rmw();
        let old = match op {
            SignalOp::Add => v.fetch_add(value, o),
            SignalOp::Subtract => v.fetch_sub(value, o),
            SignalOp::And => v.fetch_and(value, o),
            SignalOp::Or => v.fetch_or(value, o),
            SignalOp::Xor => v.fetch_xor(value, o),
        };
        self.notify();
        old
    }

    /// Waits until `value <condition> compare` or the timeout passes (`None`: no timeout).
    /// Returns the last observed value, which need not satisfy the condition.
    pub fn wait(
        &self,
        condition: SignalCondition,
        compare: i64,
        timeout: Option<Duration>,
        state: WaitState,
        order: MemoryOrder,
    ) -> i64 {
        let deadline = sync::deadline_after(timeout);
        let ord = order.load();
        let v = &self.0.amd.value;
        let found = self.wake().wait_until(deadline, state.spin_time(), || {
            let x = v.load(ord);
            condition.holds(x, compare).then_some(x)
        });
        found.unwrap_or_else(|| v.load(ord))
    }
}

impl Signal {
    /// Waits (spinning first if `spin`) until `ready` returns `Some`, the deadline passes, or
    /// this signal is notified and `ready` then holds; used by the packet processor to sleep
    /// on its doorbell.
    pub(crate) fn wait_on_change<T>(
        &self,
        deadline: Option<Instant>,
        spin: Duration,
        poll: Duration,
        ready: impl FnMut() -> Option<T>,
    ) -> Option<T> {
        self.wake().wait_until_polling(deadline, spin, poll, ready)
    }
}

/// Nanoseconds of `CLOCK_MONOTONIC`: the system timestamp (1 tick = 1 ns).
pub fn timestamp_ns() -> u64 {
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

/// Waits until any `signals[i] <conds[i]> values[i]`; returns the index and the value seen, or
/// `None` on timeout (`hsa_amd_signal_wait_any`).
pub fn wait_any(
    signals: &[Signal],
    conds: &[SignalCondition],
    values: &[i64],
    timeout: Option<Duration>,
    state: WaitState,
    order: MemoryOrder,
) -> Option<(usize, i64)> {
    let deadline: Option<Instant> = sync::deadline_after(timeout);
    sync::global().wait_until(deadline, state.spin_time(), || {
        signals
            .iter()
            .zip(conds.iter().zip(values))
            .enumerate()
            .find_map(|(i, (s, (c, v)))| {
                let x = s.load(order);
                c.holds(x, *v).then_some((i, x))
            })
    })
}

/// Runs `then` on a helper thread once `ready` holds (re-checked whenever any signal
/// changes, and at least every millisecond).
pub fn when(
    mut ready: impl FnMut() -> bool + Send + 'static,
    then: impl FnOnce() + Send + 'static,
) -> Result<()> {
    std::thread::Builder::new()
        .name("hsaemu-when".into())
        .spawn(move || {
            wait_any_change_until(&mut ready);
            then();
        })
        .map(|_| ())
        .map_err(|_| crate::error::HsaError::OutOfResources)
}

/// Sleeps until any signal changes or `slice` passes (used by multi-signal pollers).
pub(crate) fn wait_any_change(slice: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + slice;
    let _ = sync::global().wait_until(Some(deadline), Duration::ZERO, || done().then_some(()));
}

/// Sleeps until `done()` holds, re-checking on every signal change and every poll interval.
pub(crate) fn wait_any_change_until(mut done: impl FnMut() -> bool) {
    let _ = sync::global().wait_until(None, Duration::ZERO, || done().then_some(()));
}
