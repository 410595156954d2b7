//! crates/runtime/src/signal.rs's unit tests.

use hsaemu_runtime::signal::*;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

#[test]
fn value_is_at_offset_8_of_the_handle() {
    let s = Signal::new(42).expect("signal");
    assert_eq!(s.value_address(), s.handle() + 8);
    assert_eq!(s.handle() % 64, 0);
    s.rmw(SignalOp::Subtract, 2, MemoryOrder::Release);
    assert_eq!(s.load(MemoryOrder::Acquire), 40);
    assert_eq!(s.cas(40, 7, MemoryOrder::AcqRel), 40);
    assert_eq!(s.cas(40, 9, MemoryOrder::AcqRel), 7);
    assert_eq!(s.exchange(5, MemoryOrder::Relaxed), 7);
    s.rmw(SignalOp::Or, 0b1010, MemoryOrder::Relaxed);
    s.rmw(SignalOp::And, 0b1100, MemoryOrder::Relaxed);
    s.rmw(SignalOp::Xor, 0b0001, MemoryOrder::Relaxed);
    assert_eq!(s.load(MemoryOrder::Relaxed), 0b1101);
}

#[test]
fn wait_times_out_with_the_current_value_and_wakes_on_store() {
    let s = Signal::new(1).expect("signal");
    let t = Instant::now();
    let v = s.wait(
        SignalCondition::Eq,
        0,
        Some(Duration::from_millis(20)),
        WaitState::Blocked,
        MemoryOrder::Acquire,
    );
    assert_eq!(v, 1);
    assert!(t.elapsed() >= Duration::from_millis(20));
    let s2 = s.clone();
    let h = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(10));
        s2.store(0, MemoryOrder::Release);
    });
    let v = s.wait(
        SignalCondition::Eq,
        0,
        None,
        WaitState::Blocked,
        MemoryOrder::Acquire,
    );
    assert_eq!(v, 0);
    h.join().expect("thread");
}

#[test]
fn wait_sees_a_store_made_behind_the_runtime_s_back() {
    let s = Signal::new(5).expect("signal");
    let addr = s.value_address() as usize;
    let h = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(5));
        // SAFETY: the signal outlives the thread (joined below); the value is an atomic
        // i64 at this address, as a kernel would update it.
        let v = unsafe { &*(addr as *const std::sync::atomic::AtomicI64) };
        v.store(-1, Ordering::Release);
    });
    let v = s.wait(
        SignalCondition::Lt,
        0,
        None,
        WaitState::Blocked,
        MemoryOrder::Acquire,
    );
    assert_eq!(v, -1);
    h.join().expect("thread");
}
