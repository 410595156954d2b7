//! crates/runtime/src/image.rs's unit tests.

use hsaemu_emu::image::{data_format as df, num_format as nf, Format, Layout};
use hsaemu_runtime::error::HsaError;
use hsaemu_runtime::image::capability::READ_ONLY as RO;
use hsaemu_runtime::image::*;
use hsaemu_runtime::internals::{
    image_words, layout_of, property, sampler_words, supported, swizzle, Geometry,
};
use hsaemu_runtime::Runtime;

/// A runtime whose one GPU agent is `target`.
fn runtime_on(target: &str) -> Runtime {
    let config = hsaemu_runtime::agent::Config {
        target: hsaemu_runtime::agent::Isa::parse(target, true).expect("isa"),
        gpus: 1,
        compute_units: 1,
        cu_masks: Default::default(),
        cu_mask_skip_init: false,
        visible: None,
    };
    hsaemu_runtime::internals::runtime(config).expect("runtime")
}

const RGBA8: ImageFormat = ImageFormat {
    channel_type: 2,
    channel_order: 8,
};

/// A 100×8 RGBA8 image of `geometry` (array size `array_size`).
fn rgba8_100x8(geometry: u32, array_size: usize) -> ImageDescriptor {
    ImageDescriptor {
        geometry,
        width: 100,
        height: 8,
        depth: 0,
        array_size,
        format: RGBA8,
    }
}

#[test]
fn gfx1030_images_use_gfx10_words_and_pitch_rules() {
    let rt = runtime_on("gfx1030");
    let gpu = rt.gpu_agents().next().expect("a GPU agent");
    assert_eq!(layout_of(gpu), Some(Layout::Gfx10));
    let (rgba8, desc) = (RGBA8, rgba8_100x8);
    // The default row (100 × 4 bytes → 512) is the only one a 2D array takes; a 2D image
    // takes any aligned pitch up to 16384 elements.
    let info = |d: &ImageDescriptor, row| data_info(gpu, d, DataLayout::Linear, row, 0);
    let array = desc(geometry::D2A, 3);
    assert_eq!(info(&array, 512).map(|i| i.size), Ok(512 * 8 * 3));
    assert_eq!(info(&array, 1024), Err(HsaError::ExtImagePitchUnsupported));
    let flat = desc(geometry::D2, 0);
    assert_eq!(info(&flat, 1024).map(|i| i.size), Ok(1024 * 8));
    assert_eq!(
        info(&flat, 65536 + 256),
        Err(HsaError::ExtImagePitchUnsupported)
    );
    // A 1DB image's V#: FORMAT 56 (8_8_8_8_UNORM) in word 3 bits 18:12, RESOURCE_LEVEL.
    let p = supported(gpu, geometry::D1B, rgba8).expect("supported");
    let g = Geometry {
        element: 4,
        row_pitch: 400,
        slice_pitch: 400,
        rows: 1,
        slices: 1,
    };
    let w = image_words(Layout::Gfx10, &desc(geometry::D1B, 0), p.format, &g, 0x1000);
    assert_eq!((w[3] >> 12 & 0x7f, w[3] >> 24 & 1, w[2]), (56, 1, 400));
}

#[test]
fn gfx1201_images_use_gfx12_words() {
    let rt = runtime_on("gfx1201");
    let gpu = rt.gpu_agents().next().expect("a GPU agent");
    assert_eq!(layout_of(gpu), Some(Layout::Gfx12));
    let (rgba8, desc) = (RGBA8, rgba8_100x8);
    let info = |d: &ImageDescriptor, row| data_info(gpu, d, DataLayout::Linear, row, 0);
    // As on GFX10.3, a 2D array takes only the default row; a 2D image's pitch − 1 fits
    // DEPTH with PITCH_MSB (16 bits).
    let array = desc(geometry::D2A, 3);
    assert_eq!(info(&array, 1024), Err(HsaError::ExtImagePitchUnsupported));
    let flat = desc(geometry::D2, 0);
    assert_eq!(info(&flat, 65536 * 4).map(|i| i.size), Ok(65536 * 4 * 8));
    let g = Geometry {
        element: 4,
        row_pitch: 65536 * 4,
        slice_pitch: 65536 * 4 * 8,
        rows: 8,
        slices: 1,
    };
    let p = supported(gpu, geometry::D2, rgba8).expect("supported");
    // ROCr's resource_gfx12.h: FORMAT 42 (8_8_8_8_UNORM) at word 1 24:17, WIDTH − 1 = 99
    // as 3 (31:30) and 24 (word 2 13:0), HEIGHT − 1 at 29:14, TYPE 2D (9) at 31:28,
    // pitch − 1 = 65535 as DEPTH 0x3fff and PITCH_MSB 3.
    let w = image_words(Layout::Gfx12, &flat, p.format, &g, 0x1_2345_6700);
    assert_eq!((w[0], w[1] & 0xff), (0x123_4567, 0));
    assert_eq!((w[1] >> 17 & 0xff, w[1] >> 30, w[2] & 0x3fff), (42, 3, 24));
    assert_eq!(
        (w[2] >> 14, w[3] >> 28, w[4] & 0x3fff, w[4] >> 14 & 3),
        (7, 9, 0x3fff, 3)
    );
    // A 1DB image's V#: GFX11's FORMAT 42 in word 3 bits 17:12, no RESOURCE_LEVEL.
    let p = supported(gpu, geometry::D1B, rgba8).expect("supported");
    let g = Geometry {
        row_pitch: 400,
        slice_pitch: 400,
        rows: 1,
        ..g
    };
    let w = image_words(Layout::Gfx12, &desc(geometry::D1B, 0), p.format, &g, 0x1000);
    assert_eq!((w[3] >> 12 & 0x3f, w[3] >> 24 & 1, w[2]), (42, 0, 400));
}

#[test]
fn gfx1100_images_use_gfx11_words() {
    let rt = runtime_on("gfx1100");
    let gpu = rt.gpu_agents().next().expect("a GPU agent");
    assert_eq!(layout_of(gpu), Some(Layout::Gfx11));
    let (rgba8, d) = (RGBA8, rgba8_100x8(geometry::D2, 0));
    // GFX10.3's 14-bit pitch field.
    let info = |row| data_info(gpu, &d, DataLayout::Linear, row, 0);
    assert_eq!(info(1024).map(|i| i.size), Ok(1024 * 8));
    assert_eq!(info(65536 * 4), Err(HsaError::ExtImagePitchUnsupported));
    // ROCr's resource_gfx11.h: FORMAT 42 (8_8_8_8_UNORM) at word 1 27:20, no
    // RESOURCE_LEVEL; the V# of a 1DB image has the same number at word 3 17:12.
    let p = supported(gpu, geometry::D2, rgba8).expect("supported");
    let g = Geometry {
        element: 4,
        row_pitch: 512,
        slice_pitch: 512 * 8,
        rows: 8,
        slices: 1,
    };
    let w = image_words(Layout::Gfx11, &d, p.format, &g, 0x1000);
    assert_eq!((w[1] >> 20 & 0xff, w[2] >> 31, w[4]), (42, 0, 127));
    let b = ImageDescriptor {
        geometry: geometry::D1B,
        ..d
    };
    let w = image_words(Layout::Gfx11, &b, p.format, &g, 0x1000);
    assert_eq!(w[3] >> 12 & 0x3f, 42);
}

#[test]
fn size_limits_are_rocrs() {
    let rt = runtime_on("gfx90a");
    let gpu = rt.gpu_agents().next().expect("a GPU agent");
    let r32 = ImageFormat {
        channel_type: 8,  // SIGNED_INT32
        channel_order: 3, // R
    };
    let d = |geometry, width, height, depth, array_size| ImageDescriptor {
        geometry,
        width,
        height,
        depth,
        array_size,
        format: r32,
    };
    let info = |d: ImageDescriptor| data_info(gpu, &d, DataLayout::Opaque, 0, 0).map(|_| ());
    // HIP's Unit_hipMemcpy3D_Basic: a 10240 x 10 x 10 3D array (ROCr: 16384 x 16384 x 8192).
    assert_eq!(info(d(geometry::D3, 10240, 10, 10, 0)), Ok(()));
    assert_eq!(info(d(geometry::D3, 16, 16, 8192, 0)), Ok(()));
    assert!(info(d(geometry::D3, 16384 + 1, 1, 1, 0)).is_err());
    assert!(info(d(geometry::D3, 1, 1, 8193, 0)).is_err());
    assert_eq!(info(d(geometry::D2A, 16, 16, 0, 8192)), Ok(()));
    assert!(info(d(geometry::D2A, 16, 16, 0, 8193)).is_err());
}

#[test]
fn format_table_matches_rocr() {
    // RGBA × every type: 12 supported (no UNORM_INT24 or packed types).
    let rgba = (0..16).filter(|&t| property(8, t).is_some()).count();
    assert_eq!(rgba, 12);
    assert_eq!(property(9, 3), None); // BGRA UNORM_INT16
    assert_eq!(property(14, 2).map(|p| p.cap), Some(RO)); // SRGBA UNORM_INT8
    assert_eq!(property(16, 8), None); // INTENSITY SIGNED_INT8
    assert_eq!(
        property(6, 6).map(|p| p.format),
        Some(Format {
            data: df::F5_6_5,
            num: nf::UNORM
        })
    );
    assert_eq!(property(2, 2), None); // RX
    assert_eq!(property(19, 3), None); // DEPTH_STENCIL
}

#[test]
fn channel_orders_select_as_opencl_specifies() {
    // OpenCL's conversion rules: missing channels read 0, alpha 1; INTENSITY replicates
    // into all four, LUMINANCE into RGB; BGRA/ARGB/ABGR reorder memory components.
    use hsaemu_emu::image::sel::*;
    let want: [(u32, [u8; 4]); 10] = [
        (0, [ZERO, ZERO, ZERO, X]),
        (1, [X, ZERO, ZERO, ONE]),
        (3, [X, Y, ZERO, ONE]),
        (5, [X, ZERO, ZERO, Y]),
        (8, [X, Y, Z, W]),
        (9, [Z, Y, X, W]),
        (10, [Y, Z, W, X]),
        (11, [Y, X, W, Z]),
        (16, [X, X, X, X]),
        (17, [X, X, X, ONE]),
    ];
    for (order, sel) in want {
        assert_eq!(swizzle(order), sel, "order {order}");
    }
}

#[test]
fn sampler_words_follow_rocr() {
    let d = SamplerDescriptor {
        coordinate_mode: 0,
        filter_mode: 1,
        address_mode: 2,
    };
    // GFX12 (ROCr's `ImageManagerGfx12::PopulateSamplerSrd`): MAX_LOD 4095 at 25:13.
    let w = sampler_words(Layout::Gfx12, &d).expect("valid");
    assert_eq!(w[1], 4095 << 13);
    let w = sampler_words(
        Layout::Gfx9,
        &SamplerDescriptor {
            coordinate_mode: 0,
            filter_mode: 1,
            address_mode: 2,
        },
    )
    .expect("valid");
    assert_eq!(
        w,
        [
            0x8000 | 6 | 6 << 3 | 6 << 6,
            4095 << 12,
            1 << 20 | 1 << 22,
            0
        ]
    );
    assert_eq!(
        sampler_words(
            Layout::Gfx9,
            &SamplerDescriptor {
                coordinate_mode: 2,
                filter_mode: 0,
                address_mode: 1
            }
        ),
        Err(HsaError::InvalidArgument)
    );
}
