//! Agents, ISAs, wavefronts, caches, regions and memory-pool attributes.

use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::AtomicU32;
use std::sync::Arc;

use hsaemu_runtime::memory::{PoolAccess, Segment};
use hsaemu_runtime::{DeviceType, HsaError, MemoryPool, Runtime};

use crate::util::{
    iterate, non_null, put, put_fixed_str, put_str, runtime, tri, HSA_STATUS_SUCCESS,
    INVALID_ARGUMENT,
};

/// Callback taking a handle and user data.
pub type HandleCallback = Option<unsafe extern "C" fn(u64, *mut c_void) -> u32>;

/// `hsa_iterate_agents`.
///
/// # Safety
/// `callback` must be a valid function pointer or null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_iterate_agents(
    callback: HandleCallback,
    data: *mut c_void,
) -> u32 {
    let rt = runtime!(callback, data);
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    // SAFETY: the application's callback, called as the API specifies.
    iterate(rt.agents(), |a| unsafe { cb(a.handle(), data) })
}

static HDP_REGISTERS: [AtomicU32; 2] = [AtomicU32::new(0), AtomicU32::new(0)];

/// `hsa_agent_get_info` (core and AMD attributes).
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_agent_get_info(
    agent: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!(agent, attribute, value);
    let agent = tri!(rt.agent(agent));
    non_null!(value);
    let p = agent.properties();
    let gpu = p.device_type == DeviceType::Gpu;
    // SAFETY (every write below): `value` is non-null and sized for the attribute by contract.
    unsafe {
        match attribute {
            0 => put_fixed_str(value, &p.name, 64),
            1 => put_fixed_str(value, &p.vendor_name, 64),
            2 => put(value, if p.kernel_dispatch { 1u32 } else { 0 }),
            3 => put(value, 1u32), // HSA_MACHINE_MODEL_LARGE
            4 => put(value, 0u32), // HSA_PROFILE_BASE
            5 => put(value, 2u32), // HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR
            23 => put(value, 2u32),
            24 => put(value, gpu),
            6 => put(value, p.wavefront_size),
            7 => put(value, p.workgroup_max_dim),
            8 => put(value, p.workgroup_max_size),
            9 => put(value, p.grid_max_dim),
            10 => put(value, p.grid_max_size),
            11 => put(value, p.fbarrier_max_size),
            12 => put(value, p.queues_max),
            13 => put(value, p.queue_min_size),
            14 => put(value, p.queue_max_size),
            15 => put(value, 0u32), // HSA_QUEUE_TYPE_MULTI
            16 => put(value, p.node),
            17 => put(value, if gpu { 1u32 } else { 0 }),
            18 => put(value, p.cache_sizes),
            19 => match agent
                .isa()
                .and_then(|i| rt.isas().iter().find(|x| ***x == *i))
            {
                Some(isa) => put(value, Runtime::isa_handle(isa)),
                None => put(value, 0u64),
            },
            20 => {
                // HSA_AGENT_INFO_EXTENSIONS: a GPU agent has HSA_EXTENSION_IMAGES (bit 1), so
                // HIP can size pitched allocations; see `image_limit` and docs/hip.md.
                let mut mask = [0u8; 128];
                if gpu {
                    mask[0] |= 1 << EXTENSION_IMAGES;
                }
                put(value, mask)
            }
            0x3000..=0x300C if gpu => put_image_limit(value, attribute),
            21 => put(value, 1u16),
            22 => put(value, 1u16),
            0xA000 => put(value, p.chip_id),
            0xA001 => put(value, p.cacheline_size),
            0xA002 => put(value, p.compute_units),
            0xA003 => put(value, p.max_clock_mhz),
            0xA004 => put(value, p.node),
            0xA005 => put(value, p.watch_points),
            0xA006 => put(value, p.bdfid),
            0xA007 => put(value, p.memory_width),
            0xA008 => put(value, p.memory_max_mhz),
            0xA009 => put_fixed_str(value, &p.product_name, 64),
            0xA00A => put(value, p.max_waves_per_cu),
            0xA00B => put(value, p.simds_per_cu),
            0xA00C => put(value, p.shader_engines),
            0xA00D => put(value, p.shader_arrays_per_se),
            0xA00E => put(
                value,
                [HDP_REGISTERS[0].as_ptr(), HDP_REGISTERS[1].as_ptr()],
            ),
            0xA00F => put(value, 0u32),
            0xA010 => put(value, p.cooperative_queues),
            0xA011 => put_str(value, &p.uuid),
            0xA012 => put(value, 0u32),
            0xA013 => put(value, false),
            0xA014 => put(value, p.compute_units),
            _ => return INVALID_ARGUMENT,
        }
    }
    HSA_STATUS_SUCCESS
}

/// `HSA_EXTENSION_IMAGES`.
pub const EXTENSION_IMAGES: u16 = 1;

/// The image limits a GPU agent reports for the `HSA_EXT_AGENT_INFO_*` attribute `attribute`
/// (0x3000..=0x300C), one `u32` per dimension. hsa_ext_image.h calls these `size_t`, but ROCm's
/// runtime writes `uint32_t` values and ROCclr reads them into `uint32_t` arrays, so `u32` is the
/// ABI. The sizes are ROCr's for GFX9 and GFX10 (`ImageLutKv`'s table: 3D 16384 x 16384 x 8192,
/// 8192 array layers), except 1DB, which stays at the spec's minimum; the pitch alignment is
/// 256 bytes, as ROCclr assumes. HIP's `hipMalloc3DArray` checks against these (HIP's
/// `Unit_hipMemcpy3D_Basic` makes a 10240-wide 3D array).
pub(crate) fn image_limit(attribute: u32) -> Option<&'static [u32]> {
    Some(match attribute {
        0x3000 => &[16384],                 // IMAGE_1D_MAX_ELEMENTS
        0x3001 => &[16384],                 // IMAGE_1DA_MAX_ELEMENTS
        0x3002 => &[65536],                 // IMAGE_1DB_MAX_ELEMENTS
        0x3003..=0x3006 => &[16384, 16384], // IMAGE_2D/2DA/2DDEPTH/2DADEPTH_MAX_ELEMENTS
        0x3007 => &[16384, 16384, 8192],    // IMAGE_3D_MAX_ELEMENTS
        0x3008 => &[8192],                  // IMAGE_ARRAY_MAX_LAYERS
        0x3009 => &[128],                   // MAX_IMAGE_RD_HANDLES
        0x300A => &[64],                    // MAX_IMAGE_RORW_HANDLES
        0x300B => &[16],                    // MAX_SAMPLER_HANDLERS
        0x300C => &[256],                   // IMAGE_LINEAR_ROW_PITCH_ALIGNMENT
        _ => return None,
    })
}

/// Writes `image_limit(attribute)` to `value`.
///
/// # Safety
/// `value` must be valid for writing the attribute's `u32` values.
pub(crate) unsafe fn put_image_limit(value: *mut c_void, attribute: u32) {
    if let Some(limit) = image_limit(attribute) {
        // SAFETY: sized for the attribute's values by the caller's contract.
        unsafe {
            std::ptr::copy_nonoverlapping(
                limit.as_ptr().cast::<u8>(),
                value.cast::<u8>(),
                std::mem::size_of_val(limit),
            )
        };
    }
}

/// `hsa_agent_iterate_isas`.
///
/// # Safety
/// `callback` must be a valid function pointer or null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_agent_iterate_isas(
    agent: u64,
    callback: HandleCallback,
    data: *mut c_void,
) -> u32 {
    let rt = runtime!(agent, callback, data);
    let agent = tri!(rt.agent(agent));
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let isas = agent
        .isa()
        .and_then(|i| rt.isas().iter().find(|x| ***x == *i));
    // SAFETY: the application's callback, called as the API specifies.
    iterate(isas, |isa| unsafe { cb(Runtime::isa_handle(isa), data) })
}

/// `hsa_isa_from_name`.
///
/// # Safety
/// `name` must be a NUL-terminated string, `isa` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_isa_from_name(name: *const c_char, isa: *mut u64) -> u32 {
    let rt = runtime!(name, isa);
    non_null!(name, isa);
    // SAFETY: a NUL-terminated string by contract.
    let name = unsafe { CStr::from_ptr(name) };
    let Ok(name) = name.to_str() else {
        return crate::util::trace_error!(HsaError::InvalidIsaName.status());
    };
    let found = tri!(rt.isa_from_name(name));
    // SAFETY: non-null, writable by contract.
    unsafe { *isa = Runtime::isa_handle(found) };
    HSA_STATUS_SUCCESS
}

fn isa_info(
    rt: &Runtime,
    isa: &Arc<hsaemu_runtime::Isa>,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let wave = isa.target.wavefront_size();
    // SAFETY (every write): `value` is non-null and sized for the attribute by contract.
    unsafe {
        match attribute {
            0 => put(value, isa.name.len() as u32),
            1 => put_str(value, &isa.name),
            2 => put(value, 1u32),
            3 => put(value, wave),
            4 => put(value, 40u32),
            5 => put(value, [false, true]),
            6 => put(value, [true, false]),
            7 => put(value, [false, false, true]),
            8 => put(value, [false, false, true]),
            9 => put(value, true),
            12 => put(value, [1024u16; 3]),
            13 => put(value, 1024u32),
            14 => put(value, [u32::MAX; 3]),
            16 => put(value, u64::MAX), // as ROCr: UINT64_MAX
            17 => put(value, 32u32),
            _ => return INVALID_ARGUMENT,
        }
    }
    let _ = rt;
    HSA_STATUS_SUCCESS
}

/// `hsa_isa_get_info_alt`.
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_isa_get_info_alt(
    isa: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!(isa, attribute, value);
    let isa = tri!(rt.isa(isa)).clone();
    non_null!(value);
    isa_info(&rt, &isa, attribute, value)
}

/// `hsa_isa_get_info` (deprecated; `index` must be 0 for call-convention attributes).
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_isa_get_info(
    isa: u64,
    attribute: u32,
    index: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!(isa, attribute, index, value);
    let isa = tri!(rt.isa(isa)).clone();
    non_null!(value);
    if index != 0 {
        return crate::util::trace_error!(HsaError::InvalidIndex.status());
    }
    isa_info(&rt, &isa, attribute, value)
}

/// `hsa_isa_compatible` (deprecated): equal ISAs are compatible.
///
/// # Safety
/// `result` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_isa_compatible(
    code_isa: u64,
    agent_isa: u64,
    result: *mut bool,
) -> u32 {
    let rt = runtime!(code_isa, agent_isa, result);
    let code = tri!(rt.isa(code_isa)).clone();
    let agent = tri!(rt.isa(agent_isa)).clone();
    non_null!(result);
    // SAFETY: non-null, writable by contract.
    unsafe { *result = agent.accepts(&code) };
    HSA_STATUS_SUCCESS
}

/// `hsa_isa_iterate_wavefronts`: one wavefront size per ISA; its handle is the ISA's | 1.
///
/// # Safety
/// `callback` must be a valid function pointer or null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_isa_iterate_wavefronts(
    isa: u64,
    callback: HandleCallback,
    data: *mut c_void,
) -> u32 {
    let rt = runtime!(isa, callback, data);
    tri!(rt.isa(isa));
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    // SAFETY: the application's callback.
    unsafe { cb(isa | 1, data) }
}

/// `hsa_wavefront_get_info`.
///
/// # Safety
/// `value` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_wavefront_get_info(
    wavefront: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!(wavefront, attribute, value);
    let Ok(isa) = rt.isa(wavefront & !1) else {
        return crate::util::trace_error!(HsaError::InvalidWavefront.status());
    };
    if wavefront & 1 == 0 {
        return crate::util::trace_error!(HsaError::InvalidWavefront.status());
    }
    non_null!(value);
    match attribute {
        // SAFETY: non-null, sized for a u32 by contract.
        0 => unsafe { put(value, isa.target.wavefront_size()) },
        _ => return INVALID_ARGUMENT,
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_isa_get_exception_policies`: no exception policies.
///
/// # Safety
/// `mask` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_isa_get_exception_policies(
    isa: u64,
    _profile: u32,
    mask: *mut u16,
) -> u32 {
    let rt = runtime!(isa, _profile, mask);
    tri!(rt.isa(isa));
    non_null!(mask);
    // SAFETY: non-null, writable by contract.
    unsafe { *mask = 0 };
    HSA_STATUS_SUCCESS
}

/// `hsa_agent_get_exception_policies`: no exception policies.
///
/// # Safety
/// `mask` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_agent_get_exception_policies(
    agent: u64,
    _profile: u32,
    mask: *mut u16,
) -> u32 {
    let rt = runtime!(agent, _profile, mask);
    tri!(rt.agent(agent));
    non_null!(mask);
    // SAFETY: non-null, writable by contract.
    unsafe { *mask = 0 };
    HSA_STATUS_SUCCESS
}

/// `hsa_isa_get_round_method`: round to nearest even.
///
/// # Safety
/// `round_method` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_isa_get_round_method(
    isa: u64,
    _fp_type: u32,
    _flush_mode: u32,
    round_method: *mut u32,
) -> u32 {
    let rt = runtime!(isa, _fp_type, _flush_mode, round_method);
    tri!(rt.isa(isa));
    non_null!(round_method);
    // SAFETY: non-null, writable by contract.
    unsafe { *round_method = 1 }; // HSA_ROUND_METHOD_SINGLE
    HSA_STATUS_SUCCESS
}

// ---- caches: the handle is the agent handle plus the level (1..4) ----

/// `hsa_agent_iterate_caches`.
///
/// # Safety
/// `callback` must be a valid function pointer or null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_agent_iterate_caches(
    agent: u64,
    callback: HandleCallback,
    data: *mut c_void,
) -> u32 {
    let rt = runtime!(agent, callback, data);
    let a = tri!(rt.agent(agent));
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    let levels: Vec<u64> = (0..4u64)
        .filter(|&l| a.properties().cache_sizes[l as usize] != 0)
        .map(|l| l + 1)
        .collect();
    // SAFETY: the application's callback.
    iterate(levels, |l| unsafe { cb(agent + l, data) })
}

/// `hsa_cache_get_info`.
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_cache_get_info(
    cache: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!(cache, attribute, value);
    let level = cache & 7;
    let Ok(agent) = rt.agent(cache & !7) else {
        return crate::util::trace_error!(HsaError::InvalidCache.status());
    };
    if !(1..=4).contains(&level) || agent.properties().cache_sizes[level as usize - 1] == 0 {
        return crate::util::trace_error!(HsaError::InvalidCache.status());
    }
    non_null!(value);
    let name = format!("L{level}");
    // SAFETY: non-null, sized for the attribute by contract.
    unsafe {
        match attribute {
            0 => put(value, name.len() as u32),
            1 => put_str(value, &name),
            2 => put(value, level as u8),
            3 => put(value, agent.properties().cache_sizes[level as usize - 1]),
            _ => return INVALID_ARGUMENT,
        }
    }
    HSA_STATUS_SUCCESS
}

// ---- regions (the same objects as pools) ----

fn regions_of(rt: &Runtime, agent: &hsaemu_runtime::Agent) -> Vec<MemoryPool> {
    let mut v: Vec<MemoryPool> = agent.pools().to_vec();
    if agent.device_type() == DeviceType::Gpu {
        // GPU agents also see the system regions (the kernarg region in particular).
        if let Some(cpu) = rt
            .agents()
            .iter()
            .find(|a| a.device_type() == DeviceType::Cpu)
        {
            v.extend(cpu.pools().iter().cloned());
        }
    }
    v
}

/// `hsa_agent_iterate_regions`.
///
/// # Safety
/// `callback` must be a valid function pointer or null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_agent_iterate_regions(
    agent: u64,
    callback: HandleCallback,
    data: *mut c_void,
) -> u32 {
    let rt = runtime!(agent, callback, data);
    let a = tri!(rt.agent(agent));
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    // SAFETY: the application's callback.
    iterate(regions_of(&rt, a), |p| unsafe { cb(p.handle(), data) })
}

fn global_flags(p: &MemoryPool) -> u32 {
    let f = p.properties().flags;
    u32::from(f.kernarg) | (u32::from(f.fine_grained) << 1) | (u32::from(f.coarse_grained) << 2)
}

fn segment_code(s: Segment) -> u32 {
    match s {
        Segment::Global => 0,
        Segment::ReadOnly => 1,
        Segment::Private => 2,
        Segment::Group => 3,
        Segment::Kernarg => 4,
    }
}

/// `hsa_region_get_info`.
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_region_get_info(
    region: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!(region, attribute, value);
    let Ok((_, pool)) = rt.pool(region) else {
        return crate::util::trace_error!(HsaError::InvalidRegion.status());
    };
    non_null!(value);
    let p = pool.properties();
    // SAFETY: non-null, sized for the attribute by contract.
    unsafe {
        match attribute {
            0 => put(value, segment_code(p.segment)),
            1 => put(value, global_flags(pool)),
            2 => put(value, p.size as usize),
            4 => put(value, p.alloc_max_size as usize),
            8 => put(value, 0u32),
            5 => put(value, p.alloc_allowed),
            6 => put(value, p.granule as usize),
            7 => put(value, p.alignment as usize),
            0xA000 => put(value, true),
            0xA001 => put(value, 0usize),
            0xA002 => put(value, 0u32),
            0xA003 => put(value, 0u32),
            _ => return INVALID_ARGUMENT,
        }
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_agent_iterate_memory_pools`.
///
/// # Safety
/// `callback` must be a valid function pointer or null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_agent_iterate_memory_pools(
    agent: u64,
    callback: HandleCallback,
    data: *mut c_void,
) -> u32 {
    let rt = runtime!(agent, callback, data);
    let a = tri!(rt.agent(agent));
    let Some(cb) = callback else {
        return crate::util::trace_error!(INVALID_ARGUMENT);
    };
    // SAFETY: the application's callback.
    iterate(a.pools(), |p| unsafe { cb(p.handle(), data) })
}

/// `hsa_amd_memory_pool_get_info`.
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_memory_pool_get_info(
    pool: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!(pool, attribute, value);
    let (_, pool) = tri!(rt.pool(pool));
    non_null!(value);
    let p = pool.properties();
    // SAFETY: non-null, sized for the attribute by contract.
    unsafe {
        match attribute {
            0 => put(value, segment_code(p.segment)),
            1 => put(value, global_flags(pool)),
            2 => put(value, p.size as usize),
            5 => put(value, p.alloc_allowed),
            6 => put(value, p.granule as usize),
            7 => put(value, p.alignment as usize),
            15 => put(value, p.accessible_by_all),
            16 => put(value, p.alloc_max_size as usize),
            _ => return INVALID_ARGUMENT,
        }
    }
    HSA_STATUS_SUCCESS
}

/// `hsa_amd_agent_memory_pool_get_info`.
///
/// # Safety
/// `value` must be valid for writing the attribute's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_agent_memory_pool_get_info(
    agent: u64,
    pool: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!(agent, pool, attribute, value);
    let a = tri!(rt.agent(agent));
    let (_, pool) = tri!(rt.pool(pool));
    non_null!(value);
    // SAFETY: non-null, sized for the attribute by contract.
    unsafe {
        match attribute {
            0 => put(
                value,
                match pool.access_from(a.device_type() == DeviceType::Gpu) {
                    PoolAccess::NeverAllowed => 0u32,
                    PoolAccess::AllowedByDefault => 1,
                    PoolAccess::DisallowedByDefault => 2,
                },
            ),
            1 => put(value, 0u32),
            2 => {} // no links: zero entries to write
            _ => return INVALID_ARGUMENT,
        }
    }
    HSA_STATUS_SUCCESS
}
