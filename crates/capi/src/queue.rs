//! Queues: creation with an error callback, destruction, inactivation, the read/write index
//! operations in every memory order, and the AMD queue extensions that are accepted as hints.

use std::ffi::c_void;
use std::sync::Arc;

use hsaemu_runtime::{HsaError, MemoryOrder, Queue, QueueType};

use crate::util::{non_null, runtime, status, tri, HSA_STATUS_SUCCESS, INVALID_ARGUMENT};

/// The C queue error callback.
pub type QueueCallback = Option<unsafe extern "C" fn(u32, *mut c_void, *mut c_void)>;

/// `hsa_queue_create`.
///
/// # Safety
/// `queue` must be writable; `callback` null or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_queue_create(
    agent: u64,
    size: u32,
    type_: u32,
    callback: QueueCallback,
    data: *mut c_void,
    _private_segment_size: u32,
    _group_segment_size: u32,
    queue: *mut *mut c_void,
) -> u32 {
    let rt = runtime!(
        agent,
        size,
        type_,
        callback,
        data,
        _private_segment_size,
        _group_segment_size,
        queue
    );
    non_null!(queue);
    let a = tri!(rt.agent(agent)).clone();
    let Some(qt) = QueueType::from_raw(type_) else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    if !size.is_power_of_two() {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    // The callback needs the queue's address, known only after creation.
    let address = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let cb = callback.map(|cb| {
        let address = address.clone();
        let data = data as usize;
        Arc::new(move |e: HsaError| {
            let q = address.load(std::sync::atomic::Ordering::Acquire) as *mut c_void;
            // SAFETY: the application's callback, called with its queue and data.
            unsafe { cb(e.status(), q, data as *mut c_void) }
        }) as hsaemu_runtime::queue::QueueErrorCallback
    });
    let q = tri!(rt.create_queue(&a, size, qt, cb));
    address.store(q.address(), std::sync::atomic::Ordering::Release);
    // SAFETY: non-null, writable by contract.
    unsafe { *queue = q.address() as *mut c_void };
    HSA_STATUS_SUCCESS
}

/// `hsa_queue_destroy`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_queue_destroy(queue: *mut c_void) -> u32 {
    let rt = runtime!(queue);
    non_null!(queue);
    status(rt.destroy_queue(queue as u64))
}

/// `hsa_queue_inactivate`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_queue_inactivate(queue: *mut c_void) -> u32 {
    let rt = runtime!(queue);
    non_null!(queue);
    let q = tri!(rt.queue(queue as u64));
    q.inactivate();
    HSA_STATUS_SUCCESS
}

fn lookup(queue: *const c_void) -> Option<Queue> {
    hsaemu_runtime::current().ok()?.queue(queue as u64).ok()
}

macro_rules! loads {
    ($($name:ident => $method:ident, $order:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (without the `hsaemu_` prefix).")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(queue: *const c_void) -> u64 {
            lookup(queue).map_or(0, |q| q.$method(MemoryOrder::$order))
        }
    )*};
}
loads! {
    hsaemu_hsa_queue_load_read_index_relaxed => load_read_index, Relaxed;
    hsaemu_hsa_queue_load_read_index_scacquire => load_read_index, Acquire;
    hsaemu_hsa_queue_load_write_index_relaxed => load_write_index, Relaxed;
    hsaemu_hsa_queue_load_write_index_scacquire => load_write_index, Acquire;
}

macro_rules! stores {
    ($($name:ident => $method:ident, $order:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (without the `hsaemu_` prefix).")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(queue: *const c_void, value: u64) {
            if let Some(q) = lookup(queue) {
                q.$method(value, MemoryOrder::$order);
            }
        }
    )*};
}
stores! {
    hsaemu_hsa_queue_store_write_index_relaxed => store_write_index, Relaxed;
    hsaemu_hsa_queue_store_write_index_screlease => store_write_index, Release;
    hsaemu_hsa_queue_store_read_index_relaxed => store_read_index, Relaxed;
    hsaemu_hsa_queue_store_read_index_screlease => store_read_index, Release;
}

macro_rules! adds {
    ($($name:ident => $order:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (without the `hsaemu_` prefix).")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(queue: *const c_void, value: u64) -> u64 {
            lookup(queue).map_or(0, |q| q.add_write_index(value, MemoryOrder::$order))
        }
    )*};
}
adds! {
    hsaemu_hsa_queue_add_write_index_relaxed => Relaxed;
    hsaemu_hsa_queue_add_write_index_scacquire => Acquire;
    hsaemu_hsa_queue_add_write_index_screlease => Release;
    hsaemu_hsa_queue_add_write_index_scacq_screl => AcqRel;
}

macro_rules! cases {
    ($($name:ident => $order:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` (without the `hsaemu_` prefix).")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(queue: *const c_void, expected: u64, value: u64) -> u64 {
            lookup(queue).map_or(0, |q| q.cas_write_index(expected, value, MemoryOrder::$order))
        }
    )*};
}
cases! {
    hsaemu_hsa_queue_cas_write_index_relaxed => Relaxed;
    hsaemu_hsa_queue_cas_write_index_scacquire => Acquire;
    hsaemu_hsa_queue_cas_write_index_screlease => Release;
    hsaemu_hsa_queue_cas_write_index_scacq_screl => AcqRel;
}

/// `hsa_amd_queue_cu_set_mask`: the queue's work-groups run only on these (emulated) CUs,
/// within `HSA_CU_MASK` (`HSA_STATUS_CU_MASK_REDUCED` when it disabled a requested CU); no
/// words reset the mask (as in ROCr).
///
/// # Safety
/// `cu_mask` must hold `num_cu_mask_count / 32` words.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_queue_cu_set_mask(
    queue: *const c_void,
    num_cu_mask_count: u32,
    cu_mask: *const u32,
) -> u32 {
    let rt = runtime!(queue, num_cu_mask_count, cu_mask);
    let q = tri!(rt.queue(queue as u64));
    if (num_cu_mask_count != 0 && cu_mask.is_null()) || !num_cu_mask_count.is_multiple_of(32) {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    let words = if num_cu_mask_count == 0 {
        &[][..]
    } else {
        // SAFETY: `num_cu_mask_count / 32` words by contract.
        unsafe { std::slice::from_raw_parts(cu_mask, (num_cu_mask_count / 32) as usize) }
    };
    if q.cu_mask().set(words, q.agent().properties().compute_units) {
        hsaemu_runtime::error::STATUS_CU_MASK_REDUCED
    } else {
        HSA_STATUS_SUCCESS
    }
}

/// `hsa_amd_queue_cu_get_mask`.
///
/// # Safety
/// `cu_mask` must hold `num_cu_mask_count / 32` words.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_queue_cu_get_mask(
    queue: *const c_void,
    num_cu_mask_count: u32,
    cu_mask: *mut u32,
) -> u32 {
    let rt = runtime!(queue, num_cu_mask_count, cu_mask);
    let q = tri!(rt.queue(queue as u64));
    if num_cu_mask_count == 0 || !num_cu_mask_count.is_multiple_of(32) || cu_mask.is_null() {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: `num_cu_mask_count / 32` words by contract.
    let out = unsafe { std::slice::from_raw_parts_mut(cu_mask, (num_cu_mask_count / 32) as usize) };
    q.cu_mask().get(out, q.agent().properties().compute_units);
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_queue_set_priority`: accepted; queues are served independently anyway.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_queue_set_priority(queue: *const c_void, priority: u32) -> u32 {
    let rt = runtime!(queue, priority);
    tri!(rt.queue(queue as u64));
    if priority > 2 {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_soft_queue_create`: a queue the application processes itself, with its own doorbell.
/// The region only names the agent it belongs to (its owner must be a GPU agent).
///
/// # Safety
/// `queue` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_soft_queue_create(
    region: u64,
    size: u32,
    type_: u32,
    features: u32,
    doorbell_signal: u64,
    queue: *mut *mut c_void,
) -> u32 {
    let rt = runtime!(region, size, type_, features, doorbell_signal, queue);
    non_null!(queue);
    let Ok((owner, _)) = rt.pool(region) else {
        return crate::util::trace_error!(HsaError::InvalidRegion.status());
    };
    let owner = owner.clone();
    let Some(qt) = QueueType::from_raw(type_) else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let gpu = if owner.properties().kernel_dispatch {
        owner
    } else {
        match rt.gpu_agents().next() {
            Some(g) => g.clone(),
            None => return HsaError::InvalidAgent.status(),
        }
    };
    let q = tri!(rt.create_soft_queue(&gpu, size, qt, features, doorbell_signal));
    // SAFETY: non-null, writable by contract.
    unsafe { *queue = q.address() as *mut c_void };
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_event_t` for `HSA_AMD_GPU_MEMORY_FAULT_EVENT` (32 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct AmdEvent {
    pub event_type: u32,
    pub agent: u64,
    pub virtual_address: u64,
    pub fault_reason_mask: u32,
}

const _: () = assert!(std::mem::size_of::<AmdEvent>() == 32);

/// The C system event callback.
pub type SystemEventCallback = Option<unsafe extern "C" fn(*const AmdEvent, *mut c_void) -> u32>;

/// `hsa_amd_register_system_event_handler`: memory faults in kernels are delivered as
/// `HSA_AMD_GPU_MEMORY_FAULT_EVENT` before the queue's error callback runs.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_register_system_event_handler(
    callback: SystemEventCallback,
    data: *mut c_void,
) -> u32 {
    let rt = runtime!(callback, data);
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let data = data as usize;
    rt.register_system_event_handler(Arc::new(move |e: &hsaemu_runtime::queue::SystemEvent| {
        let hsaemu_runtime::queue::SystemEvent::MemoryFault {
            agent,
            address,
            reason,
        } = *e;
        let event = AmdEvent {
            event_type: 0,
            agent,
            virtual_address: address,
            fault_reason_mask: reason,
        };
        // SAFETY: the application's callback, with an event that lives for the call.
        unsafe { cb(&event, data as *mut c_void) };
    }));
    HSA_STATUS_SUCCESS
}
