//! The images extension (`hsa_ext_image_*`, `hsa_amd_image_*`) as far as hsaemu has it: a GPU
//! agent reports `HSA_EXTENSION_IMAGES` and its image limits (see `agent::image_limit`) so that
//! HIP sizes pitched allocations (`hipMallocPitch`, `hipMalloc3D`), but the emulator has no
//! texture unit, so no geometry supports any image format. These functions say exactly that, as
//! the extension's spec provides: capability queries answer
//! `HSA_EXT_IMAGE_CAPABILITY_NOT_SUPPORTED` (0), and size queries and image creation return
//! `HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED`. Samplers, copies, clears, import and export
//! stay stubs (capi/src/unimplemented.rs).

use std::ffi::c_void;

use hsaemu_runtime::{DeviceType, HsaError};

use crate::agent::put_image_limit;
use crate::util::{non_null, put, runtime, trace_error, tri, HSA_STATUS_SUCCESS, INVALID_ARGUMENT};

/// `HSA_EXT_IMAGE_GEOMETRY_2DADEPTH`, the last `hsa_ext_image_geometry_t`.
const GEOMETRY_LAST: u32 = 7;
/// `HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR`, the last `hsa_ext_image_data_layout_t`.
const LAYOUT_LAST: u32 = 1;
/// `HSA_ACCESS_PERMISSION_RO` ..= `HSA_ACCESS_PERMISSION_RW`.
const ACCESS_PERMISSIONS: std::ops::RangeInclusive<u32> = 1..=3;

/// The status of a well-formed request for an image: its format is unsupported.
fn format_unsupported() -> u32 {
    HsaError::ExtImageFormatUnsupported.status()
}

/// Checks an `hsa_ext_image_descriptor_t`: non-null, with a valid geometry (its first field).
///
/// # Safety
/// `desc` must be null or point at a readable descriptor.
unsafe fn descriptor_ok(desc: *const c_void) -> bool {
    // SAFETY: non-null checked first; the descriptor starts with its u32 geometry.
    !desc.is_null() && unsafe { desc.cast::<u32>().read_unaligned() } <= GEOMETRY_LAST
}

/// `hsa_ext_image_get_capability`: no format is supported for any geometry (mask 0).
///
/// # Safety
/// `image_format` must be null or readable; `capability_mask` null or writable (u32).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_get_capability(
    agent: u64,
    geometry: u32,
    image_format: *const c_void,
    capability_mask: *mut u32,
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    non_null!(image_format, capability_mask);
    if geometry > GEOMETRY_LAST {
        return trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: non-null and writable by contract.
    unsafe { put(capability_mask.cast(), 0u32) };
    HSA_STATUS_SUCCESS
}

/// `hsa_ext_image_get_capability_with_layout`: no format is supported for any geometry or
/// layout (mask 0).
///
/// # Safety
/// As `hsa_ext_image_get_capability`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_get_capability_with_layout(
    agent: u64,
    geometry: u32,
    image_format: *const c_void,
    image_data_layout: u32,
    capability_mask: *mut u32,
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    non_null!(image_format, capability_mask);
    if geometry > GEOMETRY_LAST || image_data_layout > LAYOUT_LAST {
        return trace_error!(INVALID_ARGUMENT);
    }
    // SAFETY: non-null and writable by contract.
    unsafe { put(capability_mask.cast(), 0u32) };
    HSA_STATUS_SUCCESS
}

/// The status of an image size query or creation: `INVALID_ARGUMENT` for a malformed request
/// (`rest_ok` false: an argument particular to the caller is wrong), else
/// `HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED`.
///
/// # Safety
/// `desc` must be null or point at a readable `hsa_ext_image_descriptor_t`.
unsafe fn refuse_image(desc: *const c_void, access: u32, out: *const c_void, rest_ok: bool) -> u32 {
    // SAFETY: forwarded contract.
    if !rest_ok
        || out.is_null()
        || !unsafe { descriptor_ok(desc) }
        || !ACCESS_PERMISSIONS.contains(&access)
    {
        return INVALID_ARGUMENT;
    }
    format_unsupported()
}

/// `hsa_ext_image_data_get_info`: no format is supported, so no image has a size.
///
/// # Safety
/// `desc` must be null or readable; `image_data_info` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_data_get_info(
    agent: u64,
    desc: *const c_void,
    access_permission: u32,
    image_data_info: *mut c_void,
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    // SAFETY: forwarded contract.
    let status = unsafe { refuse_image(desc, access_permission, image_data_info, true) };
    trace_error!(status)
}

/// `hsa_ext_image_data_get_info_with_layout`: as `hsa_ext_image_data_get_info`.
///
/// # Safety
/// As `hsa_ext_image_data_get_info`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_data_get_info_with_layout(
    agent: u64,
    desc: *const c_void,
    access_permission: u32,
    image_data_layout: u32,
    _image_data_row_pitch: usize,
    _image_data_slice_pitch: usize,
    image_data_info: *mut c_void,
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    // SAFETY: forwarded contract.
    trace_error!(unsafe {
        refuse_image(
            desc,
            access_permission,
            image_data_info,
            image_data_layout <= LAYOUT_LAST,
        )
    })
}

/// `hsa_ext_image_create`: no format is supported, so no image is created.
///
/// # Safety
/// `desc` must be null or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_create(
    agent: u64,
    desc: *const c_void,
    image_data: *const c_void,
    access_permission: u32,
    image: *mut u64,
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    // SAFETY: forwarded contract.
    trace_error!(unsafe {
        refuse_image(desc, access_permission, image.cast(), !image_data.is_null())
    })
}

/// `hsa_ext_image_create_with_layout`: as `hsa_ext_image_create`.
///
/// # Safety
/// As `hsa_ext_image_create`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_ext_image_create_with_layout(
    agent: u64,
    desc: *const c_void,
    image_data: *const c_void,
    access_permission: u32,
    image_data_layout: u32,
    _image_data_row_pitch: usize,
    _image_data_slice_pitch: usize,
    image: *mut u64,
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    // SAFETY: forwarded contract.
    trace_error!(unsafe {
        refuse_image(
            desc,
            access_permission,
            image.cast(),
            !image_data.is_null() && image_data_layout <= LAYOUT_LAST,
        )
    })
}

/// `hsa_amd_image_create`: as `hsa_ext_image_create` (the AMD layout descriptor is not read).
///
/// # Safety
/// As `hsa_ext_image_create`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn hsaemu_hsa_amd_image_create(
    agent: u64,
    image_descriptor: *const c_void,
    image_layout: *const c_void,
    image_data: *const c_void,
    access_permission: u32,
    image: *mut u64,
) -> u32 {
    let rt = runtime!();
    tri!(rt.agent(agent));
    // SAFETY: forwarded contract.
    trace_error!(unsafe {
        refuse_image(
            image_descriptor,
            access_permission,
            image.cast(),
            !image_layout.is_null() && !image_data.is_null(),
        )
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::HSA_STATUS_SUCCESS;

    /// The first GPU agent.
    fn gpu() -> u64 {
        assert_eq!(crate::core::hsaemu_hsa_init(), HSA_STATUS_SUCCESS);
        let rt = hsaemu_runtime::current().expect("initialised");
        rt.agents()
            .iter()
            .find(|a| a.properties().device_type == DeviceType::Gpu)
            .expect("a GPU agent")
            .handle()
    }

    /// `hsa_ext_image_descriptor_t` for a 64×64 image, format UNSIGNED_INT32 / A.
    #[repr(C)]
    struct Descriptor {
        geometry: u32,
        width: usize,
        height: usize,
        depth: usize,
        array_size: usize,
        format: [u32; 2],
    }

    fn descriptor(geometry: u32) -> Descriptor {
        Descriptor {
            geometry,
            width: 64,
            height: 64,
            depth: 0,
            array_size: 0,
            format: [13, 0],
        }
    }

    #[test]
    fn no_format_is_supported_for_any_geometry() {
        let agent = gpu();
        let format = [13u32, 0]; // HSA_EXT_IMAGE_CHANNEL_TYPE_UNSIGNED_INT32, ORDER_A
        for geometry in 0..=GEOMETRY_LAST {
            let mut mask = u32::MAX;
            // SAFETY: valid pointers to a format and a u32.
            let s = unsafe {
                hsaemu_hsa_ext_image_get_capability(
                    agent,
                    geometry,
                    format.as_ptr().cast(),
                    &mut mask,
                )
            };
            assert_eq!((s, mask), (HSA_STATUS_SUCCESS, 0), "geometry {geometry}");
            mask = u32::MAX;
            // SAFETY: as above.
            let s = unsafe {
                hsaemu_hsa_ext_image_get_capability_with_layout(
                    agent,
                    geometry,
                    format.as_ptr().cast(),
                    1,
                    &mut mask,
                )
            };
            assert_eq!((s, mask), (HSA_STATUS_SUCCESS, 0), "geometry {geometry}");
        }
        let mut mask = 0;
        // SAFETY: as above.
        let s = unsafe {
            hsaemu_hsa_ext_image_get_capability(agent, 8, format.as_ptr().cast(), &mut mask)
        };
        assert_eq!(s, INVALID_ARGUMENT);
        // SAFETY: a null format is refused before use.
        let s =
            unsafe { hsaemu_hsa_ext_image_get_capability(agent, 1, std::ptr::null(), &mut mask) };
        assert_eq!(s, INVALID_ARGUMENT);
    }

    #[test]
    fn image_sizes_and_creation_answer_format_unsupported() {
        let agent = gpu();
        let desc = descriptor(1);
        let desc_ptr = (&raw const desc).cast::<c_void>();
        let mut info = [0usize; 2];
        let info_ptr = info.as_mut_ptr().cast::<c_void>();
        let unsupported = HsaError::ExtImageFormatUnsupported.status();
        assert_eq!(unsupported, 0x3000);
        let data = [0u8; 64];
        let mut image = 0u64;
        // SAFETY (each call): valid descriptor, output and data pointers, or null ones the
        // functions refuse before use.
        unsafe {
            assert_eq!(
                hsaemu_hsa_ext_image_data_get_info(agent, desc_ptr, 3, info_ptr),
                unsupported
            );
            assert_eq!(
                hsaemu_hsa_ext_image_data_get_info_with_layout(
                    agent, desc_ptr, 1, 1, 256, 0, info_ptr
                ),
                unsupported
            );
            let data_ptr = data.as_ptr().cast();
            assert_eq!(
                hsaemu_hsa_ext_image_create(agent, desc_ptr, data_ptr, 3, &mut image),
                unsupported
            );
            assert_eq!(
                hsaemu_hsa_ext_image_create_with_layout(
                    agent, desc_ptr, data_ptr, 3, 1, 256, 0, &mut image
                ),
                unsupported
            );
            assert_eq!(
                hsaemu_hsa_amd_image_create(agent, desc_ptr, data_ptr, data_ptr, 3, &mut image),
                unsupported
            );
            assert_eq!(image, 0);
            // Malformed requests: bad access permission, geometry, layout, null pointers.
            assert_eq!(
                hsaemu_hsa_ext_image_data_get_info(agent, desc_ptr, 0, info_ptr),
                INVALID_ARGUMENT
            );
            let bad = descriptor(8);
            let bad_ptr = (&raw const bad).cast::<c_void>();
            assert_eq!(
                hsaemu_hsa_ext_image_data_get_info(agent, bad_ptr, 3, info_ptr),
                INVALID_ARGUMENT
            );
            assert_eq!(
                hsaemu_hsa_ext_image_data_get_info_with_layout(
                    agent, desc_ptr, 1, 2, 256, 0, info_ptr
                ),
                INVALID_ARGUMENT
            );
            assert_eq!(
                hsaemu_hsa_ext_image_data_get_info(agent, std::ptr::null(), 3, info_ptr),
                INVALID_ARGUMENT
            );
            assert_eq!(
                hsaemu_hsa_ext_image_create(agent, desc_ptr, std::ptr::null(), 3, &mut image),
                INVALID_ARGUMENT
            );
        }
    }

    #[test]
    fn max_dim_matches_the_agent_attributes() {
        let agent = gpu();
        for attribute in 0x3000..=0x3008u32 {
            let (mut a, mut b) = ([u32::MAX; 4], [u32::MAX; 4]);
            // SAFETY: room for the largest attribute (3 u32s) in each.
            unsafe {
                assert_eq!(
                    hsaemu_hsa_amd_image_get_info_max_dim(agent, attribute, a.as_mut_ptr().cast()),
                    HSA_STATUS_SUCCESS
                );
                assert_eq!(
                    crate::agent::hsaemu_hsa_agent_get_info(
                        agent,
                        attribute,
                        b.as_mut_ptr().cast()
                    ),
                    HSA_STATUS_SUCCESS
                );
            }
            assert_eq!(a, b, "attribute {attribute:#x}");
            assert_ne!(a[0], u32::MAX);
        }
        let mut v = [0u32; 4];
        // SAFETY: as above.
        let s =
            unsafe { hsaemu_hsa_amd_image_get_info_max_dim(agent, 0x3009, v.as_mut_ptr().cast()) };
        assert_eq!(s, INVALID_ARGUMENT);
    }
}
