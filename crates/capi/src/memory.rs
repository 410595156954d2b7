//! Memory: regions and pools allocation, copies, fills, locking, registration and pointer
//! information.

use std::ffi::c_void;

use hsaemu_runtime::memory::{copy_memory, fill_u32, PointerType};
use hsaemu_runtime::{HsaError, MemoryOrder, Signal, SignalOp};

use crate::util::{non_null, put, runtime, status, tri, HSA_STATUS_SUCCESS, INVALID_ARGUMENT};

/// `hsa_memory_allocate`.
///
/// # Safety
/// `ptr` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_memory_allocate(
    region: u64,
    size: usize,
    ptr: *mut *mut c_void,
) -> u32 {
    let rt = runtime!(region, size, ptr);
    non_null!(ptr);
    if rt.pool(region).is_err() {
        return crate::util::trace_error!(HsaError::InvalidRegion.status());
    }
    let p = tri!(rt.allocate(region, size as u64));
    // SAFETY: non-null, writable by contract.
    unsafe { *ptr = p as *mut c_void };
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_memory_pool_allocate`.
///
/// # Safety
/// `ptr` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_memory_pool_allocate(
    pool: u64,
    size: usize,
    _flags: u32,
    ptr: *mut *mut c_void,
) -> u32 {
    let rt = runtime!(pool, size, _flags, ptr);
    non_null!(ptr);
    let p = tri!(rt.allocate(pool, size as u64));
    // SAFETY: non-null, writable by contract.
    unsafe { *ptr = p as *mut c_void };
    HSA_STATUS_SUCCESS
}

/// `hsa_memory_free`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_memory_free(ptr: *mut c_void) -> u32 {
    let rt = runtime!(ptr);
    status(rt.memory().free(ptr as u64))
}

/// `hsa_amd_memory_pool_free`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_memory_pool_free(ptr: *mut c_void) -> u32 {
    let rt = runtime!(ptr);
    status(rt.memory().free(ptr as u64))
}

/// `hsa_memory_copy`.
///
/// # Safety
/// `src` readable and `dst` writable for `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_memory_copy(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
) -> u32 {
    let _rt = runtime!(dst, src, size);
    non_null!(dst, src);
    // SAFETY: the application guarantees both ranges.
    unsafe { copy_memory(dst as *mut u8, src as *const u8, size) };
    HSA_STATUS_SUCCESS
}

/// `hsa_memory_register`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_memory_register(ptr: *mut c_void, size: usize) -> u32 {
    let rt = runtime!(ptr, size);
    non_null!(ptr);
    if size == 0 {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    status(rt.memory().register(ptr as u64, size as u64))
}

/// `hsa_memory_deregister`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_memory_deregister(ptr: *mut c_void, _size: usize) -> u32 {
    let rt = runtime!(ptr, _size);
    status(rt.memory().deregister(ptr as u64))
}

/// `hsa_memory_assign_agent`: ownership is meaningless when all memory is host memory.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_memory_assign_agent(
    ptr: *mut c_void,
    agent: u64,
    _access: u32,
) -> u32 {
    let rt = runtime!(ptr, agent, _access);
    non_null!(ptr);
    tri!(rt.agent(agent));
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_agents_allow_access`: every agent can already access every allocation.
///
/// # Safety
/// `agents` must hold `num_agents` handles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_agents_allow_access(
    num_agents: u32,
    agents: *const u64,
    _flags: *const u32,
    ptr: *const c_void,
) -> u32 {
    let rt = runtime!(num_agents, agents, _flags, ptr);
    non_null!(agents, ptr);
    if num_agents == 0 {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: `agents` holds `num_agents` handles by contract.
    let list = unsafe { std::slice::from_raw_parts(agents, num_agents as usize) };
    for &a in list {
        tri!(rt.agent(a));
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_memory_lock`.
///
/// # Safety
/// `agent_ptr` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_memory_lock(
    host_ptr: *mut c_void,
    size: usize,
    _agents: *const u64,
    _num_agent: i32,
    agent_ptr: *mut *mut c_void,
) -> u32 {
    let rt = runtime!(host_ptr, size, _agents, _num_agent, agent_ptr);
    non_null!(host_ptr, agent_ptr);
    let p = tri!(rt.memory().lock(host_ptr as u64, size as u64, 0));
    // SAFETY: non-null, writable by contract.
    unsafe { *agent_ptr = p as *mut c_void };
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_memory_lock_to_pool`.
///
/// # Safety
/// `agent_ptr` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_memory_lock_to_pool(
    host_ptr: *mut c_void,
    size: usize,
    _agents: *const u64,
    _num_agent: i32,
    pool: u64,
    _flags: u32,
    agent_ptr: *mut *mut c_void,
) -> u32 {
    let rt = runtime!(host_ptr, size, _agents, _num_agent, pool, _flags, agent_ptr);
    non_null!(host_ptr, agent_ptr);
    let (owner, _) = tri!(rt.pool(pool));
    let p = tri!(rt
        .memory()
        .lock(host_ptr as u64, size as u64, owner.handle()));
    // SAFETY: non-null, writable by contract.
    unsafe { *agent_ptr = p as *mut c_void };
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_memory_unlock`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_memory_unlock(host_ptr: *mut c_void) -> u32 {
    let rt = runtime!(host_ptr);
    // Unlocking memory that is not locked is harmless in ROCm too.
    let _ = rt.memory().unlock(host_ptr as u64);
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_memory_fill`: `count` 32-bit words.
///
/// # Safety
/// `ptr` must be writable for `count * 4` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_memory_fill(
    ptr: *mut c_void,
    value: u32,
    count: usize,
) -> u32 {
    let _rt = runtime!(ptr, value, count);
    non_null!(ptr);
    if !(ptr as usize).is_multiple_of(4) {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: the application guarantees the range; alignment checked above.
    unsafe { fill_u32(ptr as *mut u32, value, count) };
    HSA_STATUS_SUCCESS
}

fn signals(
    rt: &hsaemu_runtime::Runtime,
    num: u32,
    deps: *const u64,
) -> Result<Vec<Signal>, HsaError> {
    if num == 0 {
        return Ok(Vec::new());
    }
    if deps.is_null() {
        return Err(HsaError::InvalidArgument);
    }
    // SAFETY: `deps` holds `num` handles by contract.
    let list = unsafe { std::slice::from_raw_parts(deps, num as usize) };
    list.iter().map(|&h| rt.signal(h)).collect()
}

/// `hsa_amd_memory_async_copy`.
///
/// # Safety
/// The ranges must stay valid until the completion signal is decremented; `dep_signals` must
/// hold `num_dep_signals` handles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_memory_async_copy(
    dst: *mut c_void,
    dst_agent: u64,
    src: *const c_void,
    src_agent: u64,
    size: usize,
    num_dep_signals: u32,
    dep_signals: *const u64,
    completion_signal: u64,
) -> u32 {
    let rt = runtime!(
        dst,
        dst_agent,
        src,
        src_agent,
        size,
        num_dep_signals,
        dep_signals,
        completion_signal
    );
    non_null!(dst, src);
    tri!(rt.agent(dst_agent));
    tri!(rt.agent(src_agent));
    let deps = tri!(signals(&rt, num_dep_signals, dep_signals));
    let completion = tri!(rt.signal(completion_signal));
    // SAFETY: the application keeps both ranges valid until completion.
    status(unsafe { rt.async_copy(dst as u64, src as u64, size, deps, completion) })
}

/// `hsa_pitched_ptr_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PitchedPtr {
    pub base: *mut c_void,
    pub pitch: usize,
    pub slice: usize,
}

/// `hsa_dim3_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

const _: () = {
    assert!(std::mem::size_of::<PitchedPtr>() == 24);
    assert!(std::mem::size_of::<Dim3>() == 12);
};

/// `hsa_amd_memory_async_copy_rect`: waits for the dependencies on the calling thread, then
/// copies `range.x` bytes × `range.y` rows × `range.z` slices.
///
/// # Safety
/// All pointers must be valid as the API describes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_memory_async_copy_rect(
    dst: *const PitchedPtr,
    dst_offset: *const Dim3,
    src: *const PitchedPtr,
    src_offset: *const Dim3,
    range: *const Dim3,
    copy_agent: u64,
    _dir: u32,
    num_dep_signals: u32,
    dep_signals: *const u64,
    completion_signal: u64,
) -> u32 {
    let rt = runtime!(
        dst,
        dst_offset,
        src,
        src_offset,
        range,
        copy_agent,
        _dir,
        num_dep_signals,
        dep_signals,
        completion_signal
    );
    non_null!(dst, dst_offset, src, src_offset, range);
    tri!(rt.agent(copy_agent));
    let deps = tri!(signals(&rt, num_dep_signals, dep_signals));
    let completion = tri!(rt.signal(completion_signal));
    // SAFETY: all five are non-null and readable by contract.
    let (d, doff, s, soff, r) = unsafe { (*dst, *dst_offset, *src, *src_offset, *range) };
    for dep in &deps {
        let v = dep.wait(
            hsaemu_runtime::SignalCondition::Lt,
            1,
            None,
            hsaemu_runtime::WaitState::Blocked,
            hsaemu_runtime::MemoryOrder::Acquire,
        );
        if v < 0 {
            completion.store(-1, hsaemu_runtime::MemoryOrder::Release);
            return HSA_STATUS_SUCCESS;
        }
    }
    for z in 0..r.z as usize {
        for y in 0..r.y as usize {
            let so =
                (soff.z as usize + z) * s.slice + (soff.y as usize + y) * s.pitch + soff.x as usize;
            let dof =
                (doff.z as usize + z) * d.slice + (doff.y as usize + y) * d.pitch + doff.x as usize;
            // SAFETY: the application guarantees that the pitched ranges are valid.
            unsafe {
                copy_memory(
                    (d.base as *mut u8).add(dof),
                    (s.base as *const u8).add(so),
                    r.x as usize,
                )
            };
        }
    }
    completion.rmw(
        hsaemu_runtime::SignalOp::Subtract,
        1,
        hsaemu_runtime::MemoryOrder::Release,
    );
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_pointer_info_t` (56 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PointerInfoC {
    pub size: u32,
    pub type_: u32,
    pub agent_base_address: *mut c_void,
    pub host_base_address: *mut c_void,
    pub size_in_bytes: usize,
    pub user_data: *mut c_void,
    pub agent_owner: u64,
    pub global_flags: u32,
}

const _: () = assert!(std::mem::size_of::<PointerInfoC>() == 56);

/// `hsa_amd_pointer_info`.
///
/// # Safety
/// `info` must point to a struct whose `size` field is set; `alloc`, `num_agents_accessible`
/// and `accessible` follow the API contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_pointer_info(
    ptr: *const c_void,
    info: *mut PointerInfoC,
    alloc: Option<unsafe extern "C" fn(usize) -> *mut c_void>,
    num_agents_accessible: *mut u32,
    accessible: *mut *mut u64,
) -> u32 {
    let rt = runtime!(ptr, info, alloc);
    non_null!(info);
    let pi = rt.memory().pointer_info(ptr as u64);
    let type_ = match pi.kind {
        PointerType::Unknown => 0,
        PointerType::Hsa => 1,
        PointerType::Locked | PointerType::Registered => 2,
        PointerType::Ipc => 4,
    };
    // SAFETY: `info` is non-null and its `size` field says how much the caller provides.
    unsafe {
        let have = (*info).size as usize;
        let full = PointerInfoC {
            size: std::mem::size_of::<PointerInfoC>().min(have) as u32,
            type_,
            agent_base_address: pi.base as *mut c_void,
            host_base_address: pi.base as *mut c_void,
            size_in_bytes: pi.size as usize,
            user_data: pi.user_data as *mut c_void,
            agent_owner: pi.owner,
            global_flags: pi.pool.as_ref().map_or(0, |p| {
                let f = p.properties().flags;
                u32::from(f.kernarg)
                    | (u32::from(f.fine_grained) << 1)
                    | (u32::from(f.coarse_grained) << 2)
            }),
        };
        let n = std::mem::size_of::<PointerInfoC>().min(have);
        std::ptr::copy_nonoverlapping(
            &full as *const PointerInfoC as *const u8,
            info as *mut u8,
            n,
        );
    }
    if !num_agents_accessible.is_null() && !accessible.is_null() {
        let agents: Vec<u64> = if pi.kind == PointerType::Unknown {
            Vec::new()
        } else {
            rt.agents().iter().map(|a| a.handle()).collect()
        };
        let Some(alloc) = alloc else {
            return crate::util::trace_error!(INVALID_ARGUMENT);
        };
        // SAFETY: the application's allocator; we write exactly `agents.len()` handles.
        unsafe {
            let buf = alloc(agents.len() * 8) as *mut u64;
            if buf.is_null() && !agents.is_empty() {
                return crate::util::trace_error!(HsaError::OutOfResources.status());
            }
            if !buf.is_null() {
                std::ptr::copy_nonoverlapping(agents.as_ptr(), buf, agents.len());
            }
            *accessible = buf;
            *num_agents_accessible = agents.len() as u32;
        }
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_pointer_info_set_userdata`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_pointer_info_set_userdata(
    ptr: *const c_void,
    userdata: *mut c_void,
) -> u32 {
    let rt = runtime!(ptr, userdata);
    status(rt.memory().set_user_data(ptr as u64, userdata as u64))
}

/// `hsa_amd_memory_pool_can_migrate`: migration is not supported.
///
/// # Safety
/// `result` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_memory_pool_can_migrate(
    src_pool: u64,
    dst_pool: u64,
    result: *mut bool,
) -> u32 {
    let rt = runtime!(src_pool, dst_pool, result);
    tri!(rt.pool(src_pool));
    tri!(rt.pool(dst_pool));
    non_null!(result);
    // SAFETY: non-null, writable by contract.
    unsafe { *result = false };
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_coherency_get_type`: host memory is always coherent.
///
/// # Safety
/// `type_` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_coherency_get_type(agent: u64, type_: *mut u32) -> u32 {
    let rt = runtime!(agent, type_);
    tri!(rt.agent(agent));
    non_null!(type_);
    // SAFETY: non-null, writable by contract.
    unsafe { put(type_ as *mut c_void, 0u32) }; // HSA_AMD_COHERENCY_TYPE_COHERENT
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_coherency_set_type`: accepted; memory stays coherent.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_coherency_set_type(agent: u64, type_: u32) -> u32 {
    let rt = runtime!(agent, type_);
    tri!(rt.agent(agent));
    if type_ > 1 {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_memory_migrate`: ROCr 5.2 answers `OUT_OF_RESOURCES` (not implemented there). In
/// hsaemu every pool is host memory that every agent reaches, so moving an allocation to
/// another pool changes nothing: the call validates its arguments as ROCr does (null pointer
/// or non-zero flags, then the pool), checks that `ptr` lies in a pool allocation, and
/// succeeds.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_memory_migrate(ptr: *const c_void, pool: u64, flags: u32) -> u32 {
    let rt = runtime!(ptr, pool, flags);
    if ptr.is_null() || flags != 0 {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    let (_, p) = tri!(rt.pool(pool));
    if p.properties().segment != hsaemu_runtime::memory::Segment::Global {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    if rt.memory().pointer_info(ptr as u64).kind != PointerType::Hsa {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_deallocation_callback_t`.
type DeallocationCallback = unsafe extern "C" fn(ptr: *mut c_void, user_data: *mut c_void);

/// `hsa_amd_register_deallocation_callback`: `callback(ptr, user_data)` runs when the pool
/// allocation containing `ptr` is freed (before its memory is unmapped).
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_register_deallocation_callback(
    ptr: *mut c_void,
    callback: Option<DeallocationCallback>,
    user_data: *mut c_void,
) -> u32 {
    let rt = runtime!(ptr, callback, user_data);
    non_null!(ptr);
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let (p, data) = (ptr as u64, user_data as u64);
    status(
        rt.memory()
            .register_dealloc_notifier(hsaemu_runtime::memory::DeallocNotifier {
                ptr: p,
                key: cb as usize as u64,
                // SAFETY: the application's callback, called with the arguments it registered.
                call: Box::new(move || unsafe { cb(p as *mut c_void, data as *mut c_void) }),
            }),
    )
}

/// `hsa_amd_deregister_deallocation_callback`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_deregister_deallocation_callback(
    ptr: *mut c_void,
    callback: Option<DeallocationCallback>,
) -> u32 {
    let rt = runtime!(ptr, callback);
    non_null!(ptr);
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    status(
        rt.memory()
            .deregister_dealloc_notifier(ptr as u64, cb as usize as u64),
    )
}

/// `hsa_amd_ipc_memory_create`: shares a pool allocation with other processes (see
/// `hsaemu_runtime::ipc`).
///
/// # Safety
/// `handle` must be writable (32 bytes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_ipc_memory_create(
    ptr: *mut c_void,
    len: usize,
    handle: *mut [u32; 8],
) -> u32 {
    let rt = runtime!(ptr, len, handle);
    non_null!(ptr, handle);
    let h = tri!(rt.memory().ipc_export(ptr as u64, len as u64));
    // SAFETY: non-null, writable by contract.
    unsafe { handle.write_unaligned(h.to_words()) };
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_ipc_memory_attach`.
///
/// # Safety
/// `handle` readable (32 bytes), `agents` holds `num_agents` handles, `mapped_ptr` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_ipc_memory_attach(
    handle: *const [u32; 8],
    len: usize,
    num_agents: u32,
    agents: *const u64,
    mapped_ptr: *mut *mut c_void,
) -> u32 {
    let rt = runtime!(handle, len, num_agents, agents, mapped_ptr);
    non_null!(mapped_ptr);
    if num_agents != 0 {
        non_null!(agents);
        // SAFETY: `agents` holds `num_agents` handles by contract.
        let list = unsafe { std::slice::from_raw_parts(agents, num_agents as usize) };
        for &a in list {
            tri!(rt.agent(a));
        }
    }
    non_null!(handle);
    // SAFETY: non-null, readable by contract.
    let h = tri!(hsaemu_runtime::ipc::IpcHandle::from_words(unsafe {
        handle.read_unaligned()
    }));
    let p = tri!(rt.memory().ipc_attach(h, len as u64));
    // SAFETY: non-null, writable by contract.
    unsafe { *mapped_ptr = p as *mut c_void };
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_ipc_memory_detach`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_amd_ipc_memory_detach(mapped_ptr: *mut c_void) -> u32 {
    let rt = runtime!(mapped_ptr);
    non_null!(mapped_ptr);
    status(rt.memory().ipc_detach(mapped_ptr as u64))
}

/// `hsa_amd_svm_attribute_pair_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SvmAttributePair {
    pub attribute: u64,
    pub value: u64,
}

/// Whether `handle` is a live agent, and a CPU one (for the SVM checks).
fn agent_kind(rt: &hsaemu_runtime::Runtime, handle: u64) -> Option<bool> {
    rt.agent(handle)
        .ok()
        .map(|a| a.device_type() == hsaemu_runtime::DeviceType::Cpu)
}

/// The attribute list as `(attribute, value)` pairs (`None` for a null list of non-zero
/// length or an attribute beyond 32 bits).
///
/// # Safety
/// `list` holds `count` pairs when non-null.
unsafe fn svm_pairs(list: *const SvmAttributePair, count: usize) -> Option<Vec<(u32, u64)>> {
    if count == 0 {
        return Some(Vec::new());
    }
    if list.is_null() {
        return None;
    }
    // SAFETY: by contract.
    let pairs = unsafe { std::slice::from_raw_parts(list, count) };
    pairs
        .iter()
        .map(|p| Some((u32::try_from(p.attribute).ok()?, p.value)))
        .collect()
}

/// `hsa_amd_svm_attributes_set` (see `hsaemu_runtime::svm`).
///
/// # Safety
/// `list` holds `count` pairs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_svm_attributes_set(
    ptr: *mut c_void,
    size: usize,
    list: *mut SvmAttributePair,
    count: usize,
) -> u32 {
    let rt = runtime!(ptr, size, list, count);
    // SAFETY: by contract.
    let Some(pairs) = (unsafe { svm_pairs(list, count) }) else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let kind = |a: u64| agent_kind(&rt, a);
    let r = rt
        .memory()
        .svm()
        .set(ptr as u64, size as u64, &pairs, &kind);
    status(r)
}

/// `hsa_amd_svm_attributes_get`.
///
/// # Safety
/// `list` holds `count` writable pairs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_svm_attributes_get(
    ptr: *mut c_void,
    size: usize,
    list: *mut SvmAttributePair,
    count: usize,
) -> u32 {
    let rt = runtime!(ptr, size, list, count);
    // SAFETY: by contract.
    let Some(mut pairs) = (unsafe { svm_pairs(list, count) }) else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let kind = |a: u64| agent_kind(&rt, a);
    let cpu = rt
        .agents()
        .iter()
        .find(|a| a.device_type() == hsaemu_runtime::DeviceType::Cpu)
        .map_or(0, |a| a.handle());
    tri!(rt
        .memory()
        .svm()
        .get(ptr as u64, size as u64, &mut pairs, &kind, cpu));
    // SAFETY: `list` holds `count` writable pairs (non-null when count > 0, checked above).
    let out = unsafe { std::slice::from_raw_parts_mut(list, count) };
    for (o, (a, v)) in out.iter_mut().zip(pairs) {
        o.attribute = u64::from(a);
        o.value = v;
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_svm_prefetch_async`: once the dependencies are satisfied, records the range's
/// prefetch location and decrements `completion_signal` (the data is already where every
/// agent reaches it).
///
/// # Safety
/// `deps` holds `num_deps` handles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_svm_prefetch_async(
    ptr: *mut c_void,
    size: usize,
    agent: u64,
    num_deps: u32,
    deps: *const u64,
    completion_signal: u64,
) -> u32 {
    let rt = runtime!(ptr, size, agent, num_deps, deps, completion_signal);
    let is_cpu = match agent_kind(&rt, agent) {
        Some(c) => c,
        None => return crate::util::trace_error!(HsaError::InvalidAgent.status()),
    };
    let deps = if num_deps == 0 {
        Vec::new()
    } else {
        non_null!(deps);
        // SAFETY: `deps` holds `num_deps` handles by contract.
        let list = unsafe { std::slice::from_raw_parts(deps, num_deps as usize) };
        tri!(list
            .iter()
            .map(|&d| rt.signal(d))
            .collect::<Result<Vec<_>, _>>())
    };
    let completion = if completion_signal == 0 {
        None
    } else {
        Some(tri!(rt.signal(completion_signal)))
    };
    tri!(hsaemu_runtime::svm::SvmMap::check_range(
        ptr as u64,
        size as u64
    ));
    let (p, n, dest) = (ptr as u64, size as u64, if is_cpu { 0 } else { agent });
    let run = move || {
        if let Ok(rt) = hsaemu_runtime::current() {
            // The range was checked; it can only have been unmapped since, which a prefetch
            // of host memory survives.
            let _ = rt.memory().svm().prefetched(p, n, dest);
        }
        if let Some(c) = &completion {
            c.rmw(SignalOp::Subtract, 1, MemoryOrder::Relaxed);
        }
    };
    let ready = move || deps.iter().all(|d| d.load(MemoryOrder::Acquire) == 0);
    if ready() {
        run();
        return HSA_STATUS_SUCCESS;
    }
    status(hsaemu_runtime::signal::when(ready, run))
}
