//! The images extension's C functions called in this process (formerly hsaemu-capi's unit
//! tests of src/image.rs: as an integration module they need no second, test-mode compile of
//! the crate; docs/notes/ci-time.md, "Round 38").

use std::ffi::c_void;

use hsaemu_capi::image::*;
use hsaemu_capi::HSA_STATUS_SUCCESS;
use hsaemu_runtime::image::{ImageDescriptor, ImageFormat, SamplerDescriptor};
use hsaemu_runtime::{DeviceType, HsaError};

use super::{HsaInit, INVALID_ARGUMENT};

/// The first GPU agent, with the runtime reference that keeps it.
fn gpu() -> (HsaInit, u64) {
    let hsa = HsaInit::new();
    let rt = hsaemu_runtime::current().expect("initialised");
    let agent = rt
        .agents()
        .iter()
        .find(|a| a.properties().device_type == DeviceType::Gpu)
        .expect("a GPU agent")
        .handle();
    (hsa, agent)
}

fn desc(
    geometry: u32,
    w: usize,
    h: usize,
    channel_type: u32,
    channel_order: u32,
) -> ImageDescriptor {
    ImageDescriptor {
        geometry,
        width: w,
        height: h,
        depth: 0,
        array_size: 0,
        format: ImageFormat {
            channel_type,
            channel_order,
        },
    }
}

fn capability(agent: u64, geometry: u32, channel_type: u32, channel_order: u32) -> u32 {
    let f = ImageFormat {
        channel_type,
        channel_order,
    };
    let mut mask = u32::MAX;
    // SAFETY: valid pointers to a format and a u32.
    let s = unsafe { hsaemu_hsa_ext_image_get_capability(agent, geometry, &f, &mut mask) };
    assert_eq!(s, HSA_STATUS_SUCCESS);
    mask
}

#[test]
fn capabilities_follow_rocr_format_table() {
    let (_hsa, agent) = gpu();
    // RGBA UNORM_INT8: read, write and read-write on every non-depth geometry.
    for g in [0, 1, 2, 3, 4, 5] {
        assert_eq!(capability(agent, g, 2, 8), 7, "geometry {g}");
    }
    // Depth geometries take only DEPTH; SRGBA is read-only; RGB FLOAT does not exist.
    assert_eq!(capability(agent, 6, 2, 8), 0);
    assert_eq!(capability(agent, 6, 15, 18), 3);
    assert_eq!(capability(agent, 1, 2, 14), 1);
    assert_eq!(capability(agent, 1, 15, 6), 0);
    // 565 has no buffer (1DB) form.
    assert_eq!(capability(agent, 1, 6, 6), 7);
    assert_eq!(capability(agent, 5, 6, 6), 0);
    let f = ImageFormat::default();
    let mut mask = 0;
    // SAFETY: valid pointers; the calls are refused before use.
    unsafe {
        assert_eq!(
            hsaemu_hsa_ext_image_get_capability(agent, 8, &f, &mut mask),
            INVALID_ARGUMENT
        );
        assert_eq!(
            hsaemu_hsa_ext_image_get_capability_with_layout(agent, 1, &f, 0, &mut mask),
            INVALID_ARGUMENT
        );
        assert_eq!(
            hsaemu_hsa_ext_image_get_capability(agent, 1, std::ptr::null(), &mut mask),
            INVALID_ARGUMENT
        );
    }
}

#[test]
fn sizes_and_error_paths() {
    let (_hsa, agent) = gpu();
    let mut info = [0usize; 2];
    // 100×30 RGBA8: rows padded to 512 bytes.
    let d = desc(1, 100, 30, 2, 8);
    // SAFETY (each call): valid descriptor and output pointers, or null ones refused.
    unsafe {
        assert_eq!(
            hsaemu_hsa_ext_image_data_get_info(agent, &d, 3, &mut info),
            0
        );
        assert_eq!(info, [512 * 30, 256]);
        assert_eq!(
            hsaemu_hsa_ext_image_data_get_info_with_layout(agent, &d, 3, 1, 1024, 0, &mut info),
            0
        );
        assert_eq!(info, [1024 * 30, 256]);
        let pitch = HsaError::ExtImagePitchUnsupported.status();
        // Too small, not aligned, wrong slice pitch.
        for (row, slice) in [(256, 0), (400, 0), (512, 512 * 29)] {
            assert_eq!(
                hsaemu_hsa_ext_image_data_get_info_with_layout(
                    agent, &d, 3, 1, row, slice, &mut info
                ),
                pitch,
                "row {row} slice {slice}"
            );
        }
        // Wrong layout, bad access permission, null descriptor.
        assert_eq!(
            hsaemu_hsa_ext_image_data_get_info_with_layout(agent, &d, 3, 0, 0, 0, &mut info),
            INVALID_ARGUMENT
        );
        assert_eq!(
            hsaemu_hsa_ext_image_data_get_info(agent, &d, 0, &mut info),
            INVALID_ARGUMENT
        );
        assert_eq!(
            hsaemu_hsa_ext_image_data_get_info(agent, std::ptr::null(), 3, &mut info),
            INVALID_ARGUMENT
        );
        // Unsupported format, too large.
        let bad = desc(1, 16, 16, 15, 6);
        assert_eq!(
            hsaemu_hsa_ext_image_data_get_info(agent, &bad, 3, &mut info),
            HsaError::ExtImageFormatUnsupported.status()
        );
        let big = desc(1, 16385, 1, 2, 8);
        assert_eq!(
            hsaemu_hsa_ext_image_data_get_info(agent, &big, 3, &mut info),
            HsaError::ExtImageSizeUnsupported.status()
        );
    }
}

#[test]
fn create_import_export_clear_copy_and_destroy() {
    let (_hsa, agent) = gpu();
    let d = desc(1, 4, 3, 11, 8); // 4×3 RGBA UNSIGNED_INT8
    let mut data = vec![0u64; 3 * 256 / 8 + 32];
    let base = (data.as_mut_ptr() as usize).next_multiple_of(256);
    let mut other = vec![0u64; 3 * 256 / 8 + 32];
    let base2 = (other.as_mut_ptr() as usize).next_multiple_of(256);
    let (mut a, mut b) = (0u64, 0u64);
    let src: Vec<u8> = (0..48).collect();
    let mut out = [0u8; 48];
    // SAFETY (each call): the image data lies in `data`/`other` (256-aligned, 3 rows of
    // 256 bytes), the host buffers cover the regions.
    unsafe {
        assert_eq!(
            hsaemu_hsa_ext_image_create(agent, &d, base as *const c_void, 3, &mut a),
            0
        );
        assert_eq!(
            hsaemu_hsa_ext_image_create(agent, &d, (base + 4) as *const c_void, 3, &mut b),
            INVALID_ARGUMENT
        );
        // The handle points at the T#, then channel type, order and width.
        let words = std::slice::from_raw_parts(a as *const u32, 11);
        assert_eq!(u64::from(words[0]) << 8, base as u64 & 0xff_ffff_ffff);
        assert_eq!(&words[8..], &[11, 8, 4]);
        assert_eq!(words[2] & 0x3fff, 3);
        let region = [0u32, 0, 0, 4, 3, 1];
        assert_eq!(
            hsaemu_hsa_ext_image_import(agent, src.as_ptr().cast(), 0, 0, a, &region),
            0
        );
        assert_eq!(*((base + 256) as *const u8), 16);
        assert_eq!(
            hsaemu_hsa_ext_image_export(agent, a, out.as_mut_ptr().cast(), 0, 0, &region),
            0
        );
        assert_eq!(out.to_vec(), src);
        // A source pitch smaller than a row is refused; a region past the edge too.
        assert_eq!(
            hsaemu_hsa_ext_image_import(agent, src.as_ptr().cast(), 8, 0, a, &region),
            INVALID_ARGUMENT
        );
        let past = [1u32, 0, 0, 4, 3, 1];
        assert_eq!(
            hsaemu_hsa_ext_image_export(agent, a, out.as_mut_ptr().cast(), 0, 0, &past),
            INVALID_ARGUMENT
        );
        // Clear one texel to (1, 300, 3, 4): UINT8 saturates.
        let color = [1u32, 300, 3, 4];
        let one = [1u32, 1, 0, 1, 1, 1];
        assert_eq!(
            hsaemu_hsa_ext_image_clear(agent, a, color.as_ptr().cast(), &one),
            0
        );
        assert_eq!(*((base + 256 + 4) as *const [u8; 4]), [1, 255, 3, 4]);
        // Copy into a second image.
        assert_eq!(
            hsaemu_hsa_ext_image_create(agent, &d, base2 as *const c_void, 3, &mut b),
            0
        );
        let (o, r) = ([0u32; 3], [4u32, 3, 1]);
        assert_eq!(hsaemu_hsa_ext_image_copy(agent, a, &o, b, &o, &r), 0);
        assert_eq!(*((base2 + 256 + 4) as *const [u8; 4]), [1, 255, 3, 4]);
        assert_eq!(hsaemu_hsa_ext_image_destroy(agent, a), 0);
        assert_eq!(hsaemu_hsa_ext_image_destroy(agent, a), INVALID_ARGUMENT);
        assert_eq!(hsaemu_hsa_ext_image_destroy(agent, b), 0);
    }
    drop((data, other));
}

#[test]
fn the_extension_is_offered_with_its_function_table() {
    let _hsa = gpu();
    use hsaemu_capi::core::*;
    let mut ok = false;
    let mut mask = [0u8; 128];
    let mut table = [0usize; 13];
    let mut old = [0usize; 10];
    // SAFETY: valid outputs of the sizes the calls write.
    unsafe {
        assert_eq!(hsaemu_hsa_system_extension_supported(1, 1, 0, &mut ok), 0);
        assert!(ok);
        assert_eq!(hsaemu_hsa_system_get_info(7, mask.as_mut_ptr().cast()), 0);
        assert_eq!(mask[0] & 2, 2, "HSA_EXTENSION_IMAGES bit");
        assert_eq!(
            hsaemu_hsa_system_get_major_extension_table(
                1,
                1,
                std::mem::size_of_val(&table),
                table.as_mut_ptr().cast()
            ),
            0
        );
        assert_eq!(
            hsaemu_hsa_system_get_extension_table(1, 1, 0, old.as_mut_ptr().cast()),
            0
        );
    }
    assert_eq!(table, image_table());
    assert_eq!(old[..], table[..10]);
    assert_eq!(table[2], hsaemu_hsa_ext_image_create as *const () as usize);
}

#[test]
fn amd_image_create_takes_the_vendor_layout() {
    let (_hsa, agent) = gpu();
    let rt = hsaemu_runtime::current().expect("initialised");
    let chip = rt.agent(agent).expect("agent").properties().chip_id;
    let d = desc(1, 64, 2, 13, 1); // 64×2 R UNSIGNED_INT32
    let mut data = vec![0u64; 2 * 256 / 8 + 64];
    let base = (data.as_mut_ptr() as usize).next_multiple_of(256);
    let (mut a, mut b) = (0u64, 0u64);
    // SAFETY: the image data lies in `data`; the layouts are 10 readable u32s.
    unsafe {
        assert_eq!(
            hsaemu_hsa_ext_image_create(agent, &d, base as *const c_void, 3, &mut a),
            0
        );
        // The vendor layout: version 1, PCI ID, then the T# of the first image.
        let mut layout = [0u32; 10];
        layout[0] = 1;
        layout[1] = 0x1002 << 16 | chip;
        layout[2..].copy_from_slice(std::slice::from_raw_parts(a as *const u32, 8));
        let data_ptr = base as *const c_void;
        assert_eq!(
            hsaemu_hsa_amd_image_create(agent, &d, &layout, data_ptr, 3, &mut b),
            0
        );
        assert_eq!(
            std::slice::from_raw_parts(b as *const u32, 11),
            std::slice::from_raw_parts(a as *const u32, 11)
        );
        assert_eq!(hsaemu_hsa_ext_image_destroy(agent, b), 0);
        let misaligned = (base + 16) as *const c_void;
        assert_eq!(
            hsaemu_hsa_amd_image_create(agent, &d, &layout, misaligned, 3, &mut b),
            HsaError::InvalidAllocation.status()
        );
        let mut wrong = layout;
        wrong[0] = 2;
        assert_eq!(
            hsaemu_hsa_amd_image_create(agent, &d, &wrong, data_ptr, 3, &mut b),
            HsaError::ExtImageFormatUnsupported.status()
        );
        wrong = layout;
        wrong[1] ^= 1;
        assert_eq!(
            hsaemu_hsa_amd_image_create(agent, &d, &wrong, data_ptr, 3, &mut b),
            HsaError::ExtImageFormatUnsupported.status()
        );
        assert_eq!(hsaemu_hsa_ext_image_destroy(agent, a), 0);
    }
    drop(data);
}

#[test]
fn samplers() {
    let (_hsa, agent) = gpu();
    let d = SamplerDescriptor {
        coordinate_mode: 1,
        filter_mode: 1,
        address_mode: 4,
    };
    let mut s = 0u64;
    // SAFETY: valid pointers; the handle points at the S# while the sampler lives.
    unsafe {
        assert_eq!(hsaemu_hsa_ext_sampler_create(agent, &d, &mut s), 0);
        let w = *(s as *const [u32; 4]);
        // MIRROR on x/y/z, normalized, bilinear, MAX_LOD 4095.
        assert_eq!(w, [1 | 1 << 3 | 1 << 6, 4095 << 12, 1 << 20 | 1 << 22, 0]);
        assert_eq!(hsaemu_hsa_ext_sampler_destroy(agent, s), 0);
        assert_eq!(hsaemu_hsa_ext_sampler_destroy(agent, s), INVALID_ARGUMENT);
        let bad = SamplerDescriptor {
            address_mode: 5,
            ..d
        };
        assert_eq!(
            hsaemu_hsa_ext_sampler_create(agent, &bad, &mut s),
            INVALID_ARGUMENT
        );
    }
}

#[test]
fn max_dim_matches_the_agent_attributes() {
    let (_hsa, agent) = gpu();
    for attribute in 0x3000..=0x3008u32 {
        let (mut a, mut b) = ([u32::MAX; 4], [u32::MAX; 4]);
        // SAFETY: room for the largest attribute (3 u32s) in each.
        unsafe {
            assert_eq!(
                hsaemu_hsa_amd_image_get_info_max_dim(agent, attribute, a.as_mut_ptr().cast()),
                HSA_STATUS_SUCCESS
            );
            assert_eq!(
                hsaemu_capi::agent::hsaemu_hsa_agent_get_info(
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
    let s = unsafe { hsaemu_hsa_amd_image_get_info_max_dim(agent, 0x3009, v.as_mut_ptr().cast()) };
    assert_eq!(s, INVALID_ARGUMENT);
}
