//! Signals: creation, every value operation in every memory order (the deprecated
//! `_acquire`/`_release`/`_acq_rel` names are linked to the `sc*` functions), waits, and the
//! AMD extensions (`hsa_amd_signal_create`, value pointer, async handler, wait-any).

use std::ffi::c_void;
use std::time::Duration;

use hsaemu_runtime::{HsaError, MemoryOrder, Signal, SignalCondition, SignalOp, WaitState};

use crate::util::{non_null, runtime, status, tri, HSA_STATUS_SUCCESS, INVALID_ARGUMENT};

/// The live signal for a handle, for the operations that cannot report errors.
fn lookup(handle: u64) -> Option<Signal> {
    hsaemu_runtime::current().ok()?.signal(handle).ok()
}

/// Creates a signal for `hsa_signal_create` and `hsa_amd_signal_create` (named like the first
/// export so that `HSAEMU_TRACE=api` and the timeline name the call).
///
/// # Safety
/// `consumers` points to `num_consumers` agent handles when that count is non-zero, and
/// `signal`, when not null, is writable (null pointers are rejected with the spec's status).
unsafe fn hsa_signal_create(
    initial: i64,
    num_consumers: u32,
    consumers: *const u64,
    signal: *mut u64,
    ipc: bool,
) -> u32 {
    let rt = runtime!(initial, num_consumers, consumers, signal, ipc);
    non_null!(signal);
    if num_consumers > 0 {
        non_null!(consumers);
        // SAFETY: `consumers` holds `num_consumers` handles by contract.
        let list = unsafe { std::slice::from_raw_parts(consumers, num_consumers as usize) };
        for (i, &a) in list.iter().enumerate() {
            tri!(rt.agent(a));
            if list[..i].contains(&a) {
                return crate::util::trace_error!(INVALID_ARGUMENT);
            }
        }
    }
    let s = if ipc {
        tri!(rt.add_signal(tri!(Signal::new_ipc(initial))))
    } else {
        tri!(rt.create_signal(initial))
    };
    // SAFETY: non-null, writable by contract.
    unsafe { *signal = s.handle() };
    HSA_STATUS_SUCCESS
}

/// `hsa_signal_create`.
///
/// # Safety
/// `consumers` must hold `num_consumers` handles; `signal` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_signal_create(
    initial: i64,
    num_consumers: u32,
    consumers: *const u64,
    signal: *mut u64,
) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { hsa_signal_create(initial, num_consumers, consumers, signal, false) }
}

/// `HSA_AMD_SIGNAL_IPC`.
const AMD_SIGNAL_IPC: u64 = 2;

/// `hsa_amd_signal_create` (`HSA_AMD_SIGNAL_IPC`: the signal lives in shared memory).
///
/// # Safety
/// As `hsa_signal_create`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_signal_create(
    initial: i64,
    num_consumers: u32,
    consumers: *const u64,
    attributes: u64,
    signal: *mut u64,
) -> u32 {
    // SAFETY: forwarded contract.
    unsafe {
        hsa_signal_create(
            initial,
            num_consumers,
            consumers,
            signal,
            attributes & AMD_SIGNAL_IPC != 0,
        )
    }
}

/// `hsa_amd_ipc_signal_create`: the handle of a signal created with `HSA_AMD_SIGNAL_IPC`
/// (`INVALID_ARGUMENT` for any other signal, as ROCr).
///
/// # Safety
/// `handle` must be writable (32 bytes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_ipc_signal_create(
    signal: u64,
    handle: *mut [u32; 8],
) -> u32 {
    let rt = runtime!(signal, handle);
    non_null!(handle);
    let s = tri!(rt.signal(signal));
    let h = tri!(s.ipc_handle());
    // SAFETY: non-null, writable by contract.
    unsafe { handle.write_unaligned(h.to_words()) };
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_ipc_signal_attach`: maps another process's IPC signal.
///
/// # Safety
/// `handle` must be readable (32 bytes) and `signal` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_ipc_signal_attach(
    handle: *const [u32; 8],
    signal: *mut u64,
) -> u32 {
    let rt = runtime!(handle, signal);
    non_null!(handle, signal);
    // SAFETY: non-null, readable by contract.
    let h = tri!(hsaemu_runtime::ipc::IpcHandle::from_words(unsafe {
        handle.read_unaligned()
    }));
    let s = tri!(rt.add_signal(tri!(Signal::attach_ipc(h))));
    // SAFETY: non-null, writable by contract.
    unsafe { *signal = s.handle() };
    HSA_STATUS_SUCCESS
}

/// `hsa_signal_destroy`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_signal_destroy(signal: u64) -> u32 {
    let rt = runtime!(signal);
    status(rt.destroy_signal(signal))
}

/// `hsa_amd_signal_value_pointer`.
///
/// # Safety
/// `value_ptr` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_signal_value_pointer(
    signal: u64,
    value_ptr: *mut *mut i64,
) -> u32 {
    let rt = runtime!(signal, value_ptr);
    let s = tri!(rt.signal(signal));
    non_null!(value_ptr);
    // SAFETY: non-null, writable by contract.
    unsafe { *value_ptr = s.value_address() as *mut i64 };
    HSA_STATUS_SUCCESS
}

macro_rules! loads {
    ($($name:ident => $order:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (without the `hsaemu_` prefix).")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(signal: u64) -> i64 {
            lookup(signal).map_or(0, |s| s.load(MemoryOrder::$order))
        }
    )*};
}
loads! {
    hsaemu_hsa_signal_load_relaxed => Relaxed;
    hsaemu_hsa_signal_load_scacquire => Acquire;
}

macro_rules! stores {
    ($($name:ident => $method:ident, $order:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (without the `hsaemu_` prefix).")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(signal: u64, value: i64) {
            if let Some(s) = lookup(signal) {
                s.$method(value, MemoryOrder::$order);
            }
        }
    )*};
}
stores! {
    hsaemu_hsa_signal_store_relaxed => store, Relaxed;
    hsaemu_hsa_signal_store_screlease => store, Release;
    hsaemu_hsa_signal_silent_store_relaxed => silent_store, Relaxed;
    hsaemu_hsa_signal_silent_store_screlease => silent_store, Release;
}

macro_rules! exchanges {
    ($($name:ident => $order:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (without the `hsaemu_` prefix).")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(signal: u64, value: i64) -> i64 {
            lookup(signal).map_or(0, |s| s.exchange(value, MemoryOrder::$order))
        }
    )*};
}
exchanges! {
    hsaemu_hsa_signal_exchange_relaxed => Relaxed;
    hsaemu_hsa_signal_exchange_scacquire => Acquire;
    hsaemu_hsa_signal_exchange_screlease => Release;
    hsaemu_hsa_signal_exchange_scacq_screl => AcqRel;
}

macro_rules! cases {
    ($($name:ident => $order:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (without the `hsaemu_` prefix).")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(signal: u64, expected: i64, value: i64) -> i64 {
            lookup(signal).map_or(0, |s| s.cas(expected, value, MemoryOrder::$order))
        }
    )*};
}
cases! {
    hsaemu_hsa_signal_cas_relaxed => Relaxed;
    hsaemu_hsa_signal_cas_scacquire => Acquire;
    hsaemu_hsa_signal_cas_screlease => Release;
    hsaemu_hsa_signal_cas_scacq_screl => AcqRel;
}

macro_rules! rmws {
    ($($name:ident => $op:ident, $order:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (without the `hsaemu_` prefix).")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(signal: u64, value: i64) {
            if let Some(s) = lookup(signal) {
                s.rmw(SignalOp::$op, value, MemoryOrder::$order);
            }
        }
    )*};
}
rmws! {
    hsaemu_hsa_signal_add_relaxed => Add, Relaxed;
    hsaemu_hsa_signal_add_scacquire => Add, Acquire;
    hsaemu_hsa_signal_add_screlease => Add, Release;
    hsaemu_hsa_signal_add_scacq_screl => Add, AcqRel;
    hsaemu_hsa_signal_subtract_relaxed => Subtract, Relaxed;
    hsaemu_hsa_signal_subtract_scacquire => Subtract, Acquire;
    hsaemu_hsa_signal_subtract_screlease => Subtract, Release;
    hsaemu_hsa_signal_subtract_scacq_screl => Subtract, AcqRel;
    hsaemu_hsa_signal_and_relaxed => And, Relaxed;
    hsaemu_hsa_signal_and_scacquire => And, Acquire;
    hsaemu_hsa_signal_and_screlease => And, Release;
    hsaemu_hsa_signal_and_scacq_screl => And, AcqRel;
    hsaemu_hsa_signal_or_relaxed => Or, Relaxed;
    hsaemu_hsa_signal_or_scacquire => Or, Acquire;
    hsaemu_hsa_signal_or_screlease => Or, Release;
    hsaemu_hsa_signal_or_scacq_screl => Or, AcqRel;
    hsaemu_hsa_signal_xor_relaxed => Xor, Relaxed;
    hsaemu_hsa_signal_xor_scacquire => Xor, Acquire;
    hsaemu_hsa_signal_xor_screlease => Xor, Release;
    hsaemu_hsa_signal_xor_scacq_screl => Xor, AcqRel;
}

/// Timeout hints are in timestamp ticks, which are nanoseconds; `u64::MAX` means none.
fn timeout(ticks: u64) -> Option<Duration> {
    (ticks != u64::MAX).then(|| Duration::from_nanos(ticks))
}

fn wait_state(v: u32) -> WaitState {
    if v == 1 {
        WaitState::Active
    } else {
        WaitState::Blocked
    }
}

fn wait(
    signal: u64,
    condition: u32,
    compare: i64,
    timeout_hint: u64,
    state: u32,
    order: MemoryOrder,
) -> i64 {
    let Some(s) = lookup(signal) else { return 0 };
    let Some(cond) = SignalCondition::from_raw(condition) else {
        return s.load(order);
    };
    s.wait(
        cond,
        compare,
        timeout(timeout_hint),
        wait_state(state),
        order,
    )
}

/// `hsa_signal_wait_scacquire`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_signal_wait_scacquire(
    signal: u64,
    condition: u32,
    compare: i64,
    timeout_hint: u64,
    state: u32,
) -> i64 {
    wait(
        signal,
        condition,
        compare,
        timeout_hint,
        state,
        MemoryOrder::Acquire,
    )
}

/// `hsa_signal_wait_relaxed`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_signal_wait_relaxed(
    signal: u64,
    condition: u32,
    compare: i64,
    timeout_hint: u64,
    state: u32,
) -> i64 {
    wait(
        signal,
        condition,
        compare,
        timeout_hint,
        state,
        MemoryOrder::Relaxed,
    )
}

/// `hsa_amd_signal_wait_any`: returns the index of a satisfied signal, or `u32::MAX` on
/// timeout or bad arguments.
///
/// # Safety
/// The three arrays must hold `count` elements; `value` must be null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_signal_wait_any(
    count: u32,
    signals: *const u64,
    conds: *const u32,
    values: *const i64,
    timeout_hint: u64,
    wait_hint: u32,
    value: *mut i64,
) -> u32 {
    let Ok(rt) = hsaemu_runtime::current() else {
        return u32::MAX;
    };
    if count == 0 || signals.is_null() || conds.is_null() || values.is_null() {
        return u32::MAX;
    }
    let n = count as usize;
    // SAFETY: each array holds `count` elements by contract.
    let (hs, cs, vs) = unsafe {
        (
            std::slice::from_raw_parts(signals, n),
            std::slice::from_raw_parts(conds, n),
            std::slice::from_raw_parts(values, n),
        )
    };
    let Ok(sigs) = hs
        .iter()
        .map(|&h| rt.signal(h))
        .collect::<Result<Vec<_>, _>>()
    else {
        return u32::MAX;
    };
    let Some(conds) = cs
        .iter()
        .map(|&c| SignalCondition::from_raw(c))
        .collect::<Option<Vec<_>>>()
    else {
        return u32::MAX;
    };
    drop(rt);
    match hsaemu_runtime::signal::wait_any(
        &sigs,
        &conds,
        vs,
        timeout(timeout_hint),
        wait_state(wait_hint),
        MemoryOrder::Relaxed,
    ) {
        Some((i, v)) => {
            if !value.is_null() {
                // SAFETY: non-null, writable by contract.
                unsafe { *value = v };
            }
            i as u32
        }
        None => u32::MAX,
    }
}

/// The C handler of `hsa_amd_signal_async_handler`.
pub type AsyncHandlerFn = Option<unsafe extern "C" fn(i64, *mut c_void) -> bool>;

/// `hsa_amd_signal_async_handler`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_signal_async_handler(
    signal: u64,
    cond: u32,
    value: i64,
    handler: AsyncHandlerFn,
    arg: *mut c_void,
) -> u32 {
    let rt = runtime!(signal, cond, value, handler, arg);
    let s = tri!(rt.signal(signal));
    let Some(handler) = handler else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let Some(cond) = SignalCondition::from_raw(cond) else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let arg = arg as usize;
    // SAFETY: the application's handler, called with its own argument as the API specifies.
    let f = Box::new(move |v: i64| unsafe { handler(v, arg as *mut c_void) });
    status(rt.async_handler(s, cond, value, f))
}

/// `hsa_amd_async_function`: runs `callback(arg)` on a runtime thread.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_async_function(
    callback: Option<unsafe extern "C" fn(*mut c_void)>,
    arg: *mut c_void,
) -> u32 {
    let _rt = runtime!(callback, arg);
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let arg = arg as usize;
    // SAFETY: the application's callback with its own argument.
    let spawned = std::thread::Builder::new()
        .name("hsaemu-async-fn".into())
        .spawn(move || unsafe { cb(arg as *mut c_void) });
    match spawned {
        Ok(_) => HSA_STATUS_SUCCESS,
        Err(_) => HsaError::OutOfResources.status(),
    }
}

/// `hsa_signal_group_create` (the consumers list is checked, then ignored).
///
/// # Safety
/// `signals` must hold `num_signals` handles, `consumers` `num_consumers`; `group` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_signal_group_create(
    num_signals: u32,
    signals: *const u64,
    num_consumers: u32,
    consumers: *const u64,
    group: *mut u64,
) -> u32 {
    let rt = runtime!(num_signals, signals, num_consumers, consumers, group);
    non_null!(group);
    if num_signals == 0 || signals.is_null() || (num_consumers > 0 && consumers.is_null()) {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: `signals` holds `num_signals` handles by contract.
    let list = unsafe { std::slice::from_raw_parts(signals, num_signals as usize) };
    let g = tri!(rt.create_signal_group(list));
    // SAFETY: non-null, writable by contract.
    unsafe { *group = g };
    HSA_STATUS_SUCCESS
}

/// `hsa_signal_group_destroy`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_signal_group_destroy(group: u64) -> u32 {
    let rt = runtime!(group);
    status(rt.destroy_signal_group(group))
}

/// The wait of `hsa_signal_group_wait_any_*` with the given memory order.
///
/// # Safety
/// `conditions` and `compare_values` hold one entry per signal of the group; `signal` and
/// `value`, when not null, are writable (null pointers are rejected with the spec's status).
unsafe fn group_wait_any(
    group: u64,
    conditions: *const u32,
    compare_values: *const i64,
    state: u32,
    signal: *mut u64,
    value: *mut i64,
    order: MemoryOrder,
) -> u32 {
    let rt = runtime!(
        group,
        conditions,
        compare_values,
        state,
        signal,
        value,
        order
    );
    let g = tri!(rt.signal_group(group));
    non_null!(conditions, compare_values, signal, value);
    let n = g.len();
    // SAFETY: both arrays hold one entry per signal of the group, by contract.
    let (cs, vs) = unsafe {
        (
            std::slice::from_raw_parts(conditions, n),
            std::slice::from_raw_parts(compare_values, n),
        )
    };
    let Some(conds) = cs
        .iter()
        .map(|&c| SignalCondition::from_raw(c))
        .collect::<Option<Vec<_>>>()
    else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    drop(rt);
    match hsaemu_runtime::signal::wait_any(&g, &conds, vs, None, wait_state(state), order) {
        Some((i, v)) => {
            // SAFETY: non-null, writable by contract.
            unsafe {
                *signal = g[i].handle();
                *value = v;
            }
            HSA_STATUS_SUCCESS
        }
        None => crate::HSA_STATUS_ERROR,
    }
}

/// `hsa_signal_group_wait_any_scacquire`.
///
/// # Safety
/// The arrays hold one entry per signal of the group; `signal` and `value` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_signal_group_wait_any_scacquire(
    group: u64,
    conditions: *const u32,
    compare_values: *const i64,
    state: u32,
    signal: *mut u64,
    value: *mut i64,
) -> u32 {
    // SAFETY: forwarded contract.
    unsafe {
        group_wait_any(
            group,
            conditions,
            compare_values,
            state,
            signal,
            value,
            MemoryOrder::Acquire,
        )
    }
}

/// `hsa_signal_group_wait_any_relaxed`.
///
/// # Safety
/// As `hsa_signal_group_wait_any_scacquire`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_signal_group_wait_any_relaxed(
    group: u64,
    conditions: *const u32,
    compare_values: *const i64,
    state: u32,
    signal: *mut u64,
    value: *mut i64,
) -> u32 {
    // SAFETY: forwarded contract.
    unsafe {
        group_wait_any(
            group,
            conditions,
            compare_values,
            state,
            signal,
            value,
            MemoryOrder::Relaxed,
        )
    }
}

/// `hsa_amd_profiling_set_profiler_enabled`: dispatch times are always recorded.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_profiling_set_profiler_enabled(
    queue: *const c_void,
    _enable: i32,
) -> u32 {
    let rt = runtime!(queue, _enable);
    tri!(rt.queue(queue as u64));
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_profiling_async_copy_enable`: copy times are always recorded.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_profiling_async_copy_enable(_enable: bool) -> u32 {
    let _rt = runtime!(_enable);
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_profiling_dispatch_time_t` / `hsa_amd_profiling_async_copy_time_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ProfilingTime {
    pub start: u64,
    pub end: u64,
}

/// `hsa_amd_profiling_get_dispatch_time`: the times the packet processor recorded in the
/// completion signal.
///
/// # Safety
/// `time` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_profiling_get_dispatch_time(
    agent: u64,
    signal: u64,
    time: *mut ProfilingTime,
) -> u32 {
    let rt = runtime!(agent, signal, time);
    tri!(rt.agent(agent));
    let s = tri!(rt.signal(signal));
    non_null!(time);
    let (start, end) = s.times();
    // SAFETY: non-null, writable by contract.
    unsafe { *time = ProfilingTime { start, end } };
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_profiling_get_async_copy_time`.
///
/// # Safety
/// `time` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_profiling_get_async_copy_time(
    signal: u64,
    time: *mut ProfilingTime,
) -> u32 {
    let rt = runtime!(signal, time);
    let s = tri!(rt.signal(signal));
    non_null!(time);
    let (start, end) = s.times();
    // SAFETY: non-null, writable by contract.
    unsafe { *time = ProfilingTime { start, end } };
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_profiling_convert_tick_to_system_domain`: agent ticks are system ticks.
///
/// # Safety
/// `system_tick` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_profiling_convert_tick_to_system_domain(
    agent: u64,
    agent_tick: u64,
    system_tick: *mut u64,
) -> u32 {
    let rt = runtime!(agent, agent_tick, system_tick);
    tri!(rt.agent(agent));
    non_null!(system_tick);
    // SAFETY: non-null, writable by contract.
    unsafe { *system_tick = agent_tick };
    HSA_STATUS_SUCCESS
}
