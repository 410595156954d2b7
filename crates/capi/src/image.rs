//! The images extension (`hsa_ext_image_*`, `hsa_ext_sampler_*`, `hsa_amd_image_*`): C glue
//! over `hsaemu_runtime::image`. Argument checks follow ROCm's `hsa_ext_image.cpp`: null
//! pointers, a geometry or access permission out of range, and an explicit layout other than
//! `HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR` are `INVALID_ARGUMENT`; the runtime then answers
//! `HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED` / `_SIZE_UNSUPPORTED` /
//! `_PITCH_UNSUPPORTED` as ROCr does. `image_table()` is the extension's function table.

use std::ffi::c_void;

use hsaemu_runtime::image::{
    self as img, DataLayout, ImageDescriptor, ImageFormat, Region, SamplerDescriptor,
};
use hsaemu_runtime::{DeviceType, HsaError, Runtime};

use crate::agent::put_image_limit;
use crate::util::{non_null, put, runtime, trace_error, tri, HSA_STATUS_SUCCESS, INVALID_ARGUMENT};

/// `HSA_EXT_IMAGE_GEOMETRY_2DADEPTH`, the last `hsa_ext_image_geometry_t`.
const GEOMETRY_LAST: u32 = 7;
/// `HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR`: the only layout the `_with_layout` functions accept.
const LAYOUT_LINEAR: u32 = 1;
/// `HSA_ACCESS_PERMISSION_RO` ..= `HSA_ACCESS_PERMISSION_RW`.
const ACCESS_PERMISSIONS: std::ops::RangeInclusive<u32> = 1..=3;

/// The status of a helper's result, reported under `HSAEMU_TRACE=api` as the enclosing
/// export's when it is an error.
macro_rules! traced {
    ($e:expr) => {
        match $e {
            Ok(()) => HSA_STATUS_SUCCESS,
            Err(e) => trace_error!(HsaError::status(e)),
        }
    };
}

/// Reads a `T` the caller passed by pointer (null checked by the caller).
///
/// # Safety
/// `p` must point at a readable `T`.
unsafe fn get<T: Copy>(p: *const T) -> T {
    // SAFETY: by contract.
    unsafe { p.read_unaligned() }
}

/// An `hsa_ext_image_region_t`: offset and range as `hsa_dim3_t`s.
///
/// # Safety
/// `p` must point at a readable region.
unsafe fn region(p: *const [u32; 6]) -> Region {
    // SAFETY: by contract.
    let r = unsafe { get(p) };
    Region {
        offset: [r[0], r[1], r[2]],
        range: [r[3], r[4], r[5]],
    }
}

/// `hsa_ext_image_get_capability`.
///
/// # Safety
/// `image_format` must be null or readable; `capability_mask` null or writable (u32).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_get_capability(
    agent: u64,
    geometry: u32,
    image_format: *const ImageFormat,
    capability_mask: *mut u32,
) -> u32 {
    let rt = runtime!();
    let a = tri!(rt.agent(agent));
    non_null!(image_format, capability_mask);
    if geometry > GEOMETRY_LAST {
        return trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: non-null, readable/writable by contract.
    unsafe {
        put(
            capability_mask.cast(),
            img::format_capability(a, geometry, get(image_format)),
        )
    };
    HSA_STATUS_SUCCESS
}

/// `hsa_ext_image_get_capability_with_layout`: the same capabilities, for the linear layout
/// only.
///
/// # Safety
/// As `hsa_ext_image_get_capability`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_get_capability_with_layout(
    agent: u64,
    geometry: u32,
    image_format: *const ImageFormat,
    image_data_layout: u32,
    capability_mask: *mut u32,
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    if image_data_layout != LAYOUT_LINEAR {
        return trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: forwarded contract.
    unsafe { hsaemu_hsa_ext_image_get_capability(agent, geometry, image_format, capability_mask) }
}

/// Checks the common arguments of size queries and creation and reads the descriptor.
///
/// # Safety
/// `desc` must be null or readable.
unsafe fn descriptor(
    desc: *const ImageDescriptor,
    access: u32,
) -> Result<ImageDescriptor, HsaError> {
    if desc.is_null() || !ACCESS_PERMISSIONS.contains(&access) {
        return Err(HsaError::InvalidArgument);
    }
    // SAFETY: non-null, readable by contract.
    let d = unsafe { get(desc) };
    if d.geometry > GEOMETRY_LAST {
        return Err(HsaError::InvalidArgument);
    }
    Ok(d)
}

/// `hsa_ext_image_data_get_info`: size and alignment of an image's data (opaque layout).
///
/// # Safety
/// `desc` must be null or readable; `image_data_info` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_data_get_info(
    agent: u64,
    desc: *const ImageDescriptor,
    access_permission: u32,
    image_data_info: *mut [usize; 2],
) -> u32 {
    let rt = runtime!();
    let layout = DataLayout::Opaque;
    // SAFETY: forwarded contract.
    traced!(unsafe {
        data_info(
            &rt,
            agent,
            desc,
            access_permission,
            layout,
            0,
            0,
            image_data_info,
        )
    })
}

/// `hsa_ext_image_data_get_info_with_layout`.
///
/// # Safety
/// As `hsa_ext_image_data_get_info`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_data_get_info_with_layout(
    agent: u64,
    desc: *const ImageDescriptor,
    access_permission: u32,
    image_data_layout: u32,
    image_data_row_pitch: usize,
    image_data_slice_pitch: usize,
    image_data_info: *mut [usize; 2],
) -> u32 {
    let rt = runtime!();
    if image_data_layout != LAYOUT_LINEAR {
        return trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: forwarded contract.
    traced!(unsafe {
        data_info(
            &rt,
            agent,
            desc,
            access_permission,
            DataLayout::Linear,
            image_data_row_pitch,
            image_data_slice_pitch,
            image_data_info,
        )
    })
}

/// # Safety
/// As `hsa_ext_image_data_get_info`.
#[allow(clippy::too_many_arguments)]
unsafe fn data_info(
    rt: &Runtime,
    agent: u64,
    desc: *const ImageDescriptor,
    access: u32,
    layout: DataLayout,
    row_pitch: usize,
    slice_pitch: usize,
    out: *mut [usize; 2],
) -> Result<(), HsaError> {
    let a = rt.agent(agent)?;
    if out.is_null() {
        return Err(HsaError::InvalidArgument);
    }
    // SAFETY: forwarded contract.
    let d = unsafe { descriptor(desc, access) }?;
    let info = img::data_info(a, &d, layout, row_pitch, slice_pitch)?;
    // SAFETY: non-null and writable by contract.
    unsafe { put(out.cast(), [info.size, info.alignment]) };
    Ok(())
}

/// `hsa_ext_image_create`: an image over `image_data` (opaque layout).
///
/// # Safety
/// `desc` must be null or readable, `image` null or writable; `image_data` must stay
/// allocated while the image lives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_create(
    agent: u64,
    desc: *const ImageDescriptor,
    image_data: *const c_void,
    access_permission: u32,
    image: *mut u64,
) -> u32 {
    let rt = runtime!();
    let layout = (DataLayout::Opaque, 0, 0);
    // SAFETY: forwarded contract.
    traced!(unsafe {
        create(
            &rt,
            agent,
            desc,
            image_data,
            access_permission,
            layout,
            image,
        )
    })
}

/// `hsa_ext_image_create_with_layout`.
///
/// # Safety
/// As `hsa_ext_image_create`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_create_with_layout(
    agent: u64,
    desc: *const ImageDescriptor,
    image_data: *const c_void,
    access_permission: u32,
    image_data_layout: u32,
    image_data_row_pitch: usize,
    image_data_slice_pitch: usize,
    image: *mut u64,
) -> u32 {
    let rt = runtime!();
    if image_data_layout != LAYOUT_LINEAR {
        return trace_error!(INVALID_ARGUMENT);
    }
    let layout = (
        DataLayout::Linear,
        image_data_row_pitch,
        image_data_slice_pitch,
    );
    // SAFETY: forwarded contract.
    traced!(unsafe {
        create(
            &rt,
            agent,
            desc,
            image_data,
            access_permission,
            layout,
            image,
        )
    })
}

/// # Safety
/// As `hsa_ext_image_create`.
#[allow(clippy::too_many_arguments)]
unsafe fn create(
    rt: &Runtime,
    agent: u64,
    desc: *const ImageDescriptor,
    data: *const c_void,
    access: u32,
    (layout, row_pitch, slice_pitch): (DataLayout, usize, usize),
    image: *mut u64,
) -> Result<(), HsaError> {
    rt.agent(agent)?;
    if data.is_null() || image.is_null() {
        return Err(HsaError::InvalidArgument);
    }
    // SAFETY: forwarded contract.
    let d = unsafe { descriptor(desc, access) }?;
    let i = rt.create_image(agent, &d, data as u64, layout, row_pitch, slice_pitch)?;
    // SAFETY: non-null and writable by contract.
    unsafe { put(image.cast(), i.handle()) };
    Ok(())
}

/// `hsa_amd_image_create`: an image whose T# comes from `image_layout` (version 1, the
/// agent's PCI ID, T# words 0–7).
///
/// # Safety
/// `image_descriptor` and `image_layout` must be null or readable (the layout for 10 u32s),
/// `image` null or writable; `image_data` must stay allocated while the image lives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_image_create(
    agent: u64,
    image_descriptor: *const ImageDescriptor,
    image_layout: *const [u32; 10],
    image_data: *const c_void,
    access_permission: u32,
    image: *mut u64,
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    non_null!(image_layout, image_data, image);
    // SAFETY: forwarded contract.
    let d = tri!(unsafe { descriptor(image_descriptor, access_permission) });
    // SAFETY: non-null, readable by contract.
    let layout = unsafe { get(image_layout) };
    let i = tri!(rt.create_image_with_amd_layout(agent, &d, &layout, image_data as u64));
    // SAFETY: non-null and writable by contract.
    unsafe { put(image.cast(), i.handle()) };
    HSA_STATUS_SUCCESS
}

/// `hsa_ext_image_destroy`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_ext_image_destroy(agent: u64, image: u64) -> u32 {
    let rt = runtime!();
    traced!(rt.destroy_image(agent, image))
}

/// `hsa_ext_image_copy`.
///
/// # Safety
/// The offsets and range must be null or readable `hsa_dim3_t`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_copy(
    agent: u64,
    src_image: u64,
    src_offset: *const [u32; 3],
    dst_image: u64,
    dst_offset: *const [u32; 3],
    range: *const [u32; 3],
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    non_null!(src_offset, dst_offset, range);
    // SAFETY: non-null, readable by contract.
    let (so, dof, r) = unsafe { (get(src_offset), get(dst_offset), get(range)) };
    traced!(rt.copy_image(agent, src_image, so, dst_image, dof, r))
}

/// `hsa_ext_image_import`: host memory → image region.
///
/// # Safety
/// `src_memory` must be readable for the region at the given pitches, `image_region` null or
/// readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_import(
    agent: u64,
    src_memory: *const c_void,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_image: u64,
    image_region: *const [u32; 6],
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    non_null!(src_memory, image_region);
    // SAFETY: non-null, readable by contract; the source covers the region.
    traced!(unsafe {
        let r = region(image_region);
        rt.import_image(
            agent,
            src_memory.cast(),
            [src_row_pitch, src_slice_pitch],
            dst_image,
            r,
        )
    })
}

/// `hsa_ext_image_export`: image region → host memory.
///
/// # Safety
/// `dst_memory` must be writable for the region at the given pitches, `image_region` null or
/// readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_export(
    agent: u64,
    src_image: u64,
    dst_memory: *mut c_void,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    image_region: *const [u32; 6],
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    non_null!(dst_memory, image_region);
    // SAFETY: non-null, readable by contract; the destination covers the region.
    traced!(unsafe {
        let r = region(image_region);
        rt.export_image(
            agent,
            src_image,
            dst_memory.cast(),
            [dst_row_pitch, dst_slice_pitch],
            r,
        )
    })
}

/// `hsa_ext_image_clear`: `data` is four floats, int32s or uint32s as the format's type.
///
/// # Safety
/// `data` must be null or readable for 16 bytes, `image_region` null or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_clear(
    agent: u64,
    image: u64,
    data: *const c_void,
    image_region: *const [u32; 6],
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    non_null!(data, image_region);
    // SAFETY: non-null, readable by contract.
    let (color, r) = unsafe { (get(data.cast::<[u32; 4]>()), region(image_region)) };
    traced!(rt.clear_image(agent, image, color, r.offset, r.range))
}

/// `hsa_ext_sampler_create`.
///
/// # Safety
/// `sampler_descriptor` must be null or readable, `sampler` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_sampler_create(
    agent: u64,
    sampler_descriptor: *const SamplerDescriptor,
    sampler: *mut u64,
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    non_null!(sampler_descriptor, sampler);
    // SAFETY: non-null, readable by contract.
    let d = unsafe { get(sampler_descriptor) };
    let s = tri!(rt.create_sampler(agent, &d));
    // SAFETY: non-null and writable by contract.
    unsafe { put(sampler.cast(), s.handle()) };
    HSA_STATUS_SUCCESS
}

/// `hsa_ext_sampler_destroy`.
#[unsafe(no_mangle)]
pub extern "C" fn hsaemu_hsa_ext_sampler_destroy(agent: u64, sampler: u64) -> u32 {
    let rt = runtime!();
    traced!(rt.destroy_sampler(agent, sampler))
}

/// The images extension's function table (`hsa_ext_images_1_pfn_t`, 13 entries; version
/// 1.00's `hsa_ext_images_1_00_pfn_t` is its first 10).
pub fn image_table() -> [usize; 13] {
    [
        hsaemu_hsa_ext_image_get_capability as *const () as usize,
        hsaemu_hsa_ext_image_data_get_info as *const () as usize,
        hsaemu_hsa_ext_image_create as *const () as usize,
        hsaemu_hsa_ext_image_destroy as *const () as usize,
        hsaemu_hsa_ext_image_copy as *const () as usize,
        hsaemu_hsa_ext_image_import as *const () as usize,
        hsaemu_hsa_ext_image_export as *const () as usize,
        hsaemu_hsa_ext_image_clear as *const () as usize,
        hsaemu_hsa_ext_sampler_create as *const () as usize,
        hsaemu_hsa_ext_sampler_destroy as *const () as usize,
        hsaemu_hsa_ext_image_get_capability_with_layout as *const () as usize,
        hsaemu_hsa_ext_image_data_get_info_with_layout as *const () as usize,
        hsaemu_hsa_ext_image_create_with_layout as *const () as usize,
    ]
}

/// `hsa_amd_image_get_info_max_dim`: a GPU agent's image size limits
/// (`HSA_EXT_AGENT_INFO_IMAGE_1D_MAX_ELEMENTS` ..= `HSA_EXT_AGENT_INFO_IMAGE_ARRAY_MAX_LAYERS`),
/// the same `uint32_t`s `hsa_agent_get_info` gives.
///
/// # Safety
/// `value` must be null or writable for the attribute's values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_image_get_info_max_dim(
    agent: u64,
    attribute: u32,
    value: *mut c_void,
) -> u32 {
    let rt = runtime!();
    let agent = tri!(rt.agent(agent));
    non_null!(value);
    if agent.properties().device_type != DeviceType::Gpu || !(0x3000..=0x3008).contains(&attribute)
    {
        return trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: writable for the attribute by contract.
    unsafe { put_image_limit(value, attribute) };
    HSA_STATUS_SUCCESS
}
