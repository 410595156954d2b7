//! Sleeping and waking: futex wait/wake on 32-bit words, and the process-wide "some signal
//! changed" epoch that multi-signal waiters (wait-any, barrier packets, async handlers) sleep
//! on. Waits are always bounded so that updates made without the runtime (atomics from kernels
//! on a signal's value) are observed by polling.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// How long a sleeping waiter waits before it re-reads the value on its own.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_millis(1);
/// How long a waiter spins before it goes to sleep: short for `HSA_WAIT_STATE_BLOCKED` (it
/// still catches completions that arrive within a context switch or two), longer for ACTIVE.
pub(crate) const SPIN_TIME_BLOCKED: Duration = Duration::from_micros(10);
pub(crate) const SPIN_TIME_ACTIVE: Duration = Duration::from_micros(50);

/// Sleeps while `*word == expected`, at most `timeout`. Spurious returns are allowed.
pub(crate) fn futex_wait(word: &AtomicU32, expected: u32, timeout: Duration) {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs().min(i64::MAX as u64) as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `word` is a valid, aligned 32-bit atomic for the duration of the call and `ts`
    // lives on this stack frame; FUTEX_WAIT only reads both.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            expected,
            &ts as *const libc::timespec,
        );
    }
}

/// Wakes every thread sleeping on `word`.
pub(crate) fn futex_wake_all(word: &AtomicU32) {
    // SAFETY: `word` is a valid, aligned 32-bit atomic; FUTEX_WAKE does not access memory.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            i32::MAX,
        );
    }
}

/// A wake-up word: a sequence number plus a count of sleepers, so that notifying costs no
/// system call when nobody sleeps.
pub(crate) struct WakeWord<'a> {
    pub seq: &'a AtomicU32,
    pub sleepers: &'a AtomicU32,
}

impl WakeWord<'_> {
    /// Publishes a change: bumps the sequence and wakes sleepers.
    pub fn notify(&self) {
        self.seq.fetch_add(1, Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) != 0 {
            futex_wake_all(self.seq);
        }
    }

    /// Waits until `ready()` returns `Some`, `deadline` passes (returns `None`), spinning for
    /// `spin` first (yielding the core between checks) and then sleeping in
    /// [`POLL_INTERVAL`] slices.
    pub fn wait_until<T>(
        &self,
        deadline: Option<Instant>,
        spin: Duration,
        ready: impl FnMut() -> Option<T>,
    ) -> Option<T> {
        self.wait_until_polling(deadline, spin, POLL_INTERVAL, ready)
    }

    /// As [`wait_until`](Self::wait_until), re-reading on its own every `poll`.
    pub fn wait_until_polling<T>(
        &self,
        deadline: Option<Instant>,
        spin: Duration,
        poll: Duration,
        mut ready: impl FnMut() -> Option<T>,
    ) -> Option<T> {
        if let Some(v) = ready() {
            return Some(v);
        }
        if !spin.is_zero() {
            let spin_end = Instant::now() + spin;
            loop {
                for _ in 0..32 {
                    std::hint::spin_loop();
                }
                std::thread::yield_now();
                if let Some(v) = ready() {
                    return Some(v);
                }
                let now = Instant::now();
                if now >= spin_end || deadline.is_some_and(|d| now >= d) {
                    break;
                }
            }
        }
        loop {
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            let seq = self.seq.load(Ordering::SeqCst);
            let result = ready();
            if result.is_none() {
                let mut slice = poll;
                if let Some(d) = deadline {
                    let now = Instant::now();
                    if now >= d {
                        self.sleepers.fetch_sub(1, Ordering::SeqCst);
                        return None;
                    }
                    slice = slice.min(d - now);
                }
                futex_wait(self.seq, seq, slice);
            }
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
            if result.is_some() {
                return result;
            }
            if let Some(v) = ready() {
                return Some(v);
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
        }
    }
}

static GLOBAL_SEQ: AtomicU32 = AtomicU32::new(0);
static GLOBAL_SLEEPERS: AtomicU32 = AtomicU32::new(0);

/// The process-wide wake word, notified on every signal update.
pub(crate) fn global() -> WakeWord<'static> {
    WakeWord {
        seq: &GLOBAL_SEQ,
        sleepers: &GLOBAL_SLEEPERS,
    }
}

/// A deadline `timeout` from now; `None` (wait forever) if it does not fit.
pub(crate) fn deadline_after(timeout: Option<Duration>) -> Option<Instant> {
    timeout.and_then(|t| Instant::now().checked_add(t))
}
