//! Formerly hsaemu-codeobject's unit tests of src/descriptor.rs (docs/notes/ci-time.md, "Round 38").

use hsaemu_codeobject::descriptor::*;
use hsaemu_codeobject::processor::processor_info;
use hsaemu_codeobject::Error;

#[test]
fn parses_the_specs_gfx90a_example() {
    // gfx90a V5 saxpy.kd from the spec notes (§10.1).
    let mut b = [0u8; 64];
    b[8] = 0x18;
    b[0x11] = 0x11;
    b[0x2c] = 1;
    b[0x30..0x34].copy_from_slice(&0x00af_0040u32.to_le_bytes());
    b[0x34..0x38].copy_from_slice(&0x8cu32.to_le_bytes());
    b[0x38] = 9;
    let kd = KernelDescriptor::parse(&b).expect("64 bytes parse");
    assert_eq!(kd.kernarg_size, 24);
    assert_eq!(kd.kernel_code_entry_byte_offset, 0x1100);
    assert_eq!(kd.accum_offset(), 1);
    assert_eq!(kd.granulated_workitem_vgpr_count(), 0);
    assert_eq!(kd.granulated_wavefront_sgpr_count(), 1);
    assert_eq!(kd.float_denorm_mode_32(), float_denorm_mode::FLUSH_NONE);
    assert!(kd.enable_dx10_clamp() && kd.enable_ieee_mode());
    assert_eq!(kd.user_sgpr_count(), 6);
    assert!(kd.enable_sgpr_workgroup_id_x() && !kd.enable_sgpr_workgroup_id_y());
    assert!(kd.enable_sgpr_private_segment_buffer() && kd.enable_sgpr_kernarg_segment_ptr());
    assert!(!kd.enable_sgpr_dispatch_ptr());
    assert_eq!(kd.enabled_user_sgpr_count(), 6);
    let gfx90a = processor_info("gfx90a").expect("known");
    assert_eq!(kd.vgpr_count(gfx90a), 8);
    assert_eq!(kd.arch_vgpr_count(gfx90a), Some(8));
    assert_eq!(kd.sgpr_count(gfx90a), Some(16));
    assert_eq!(kd.wavefront_size(gfx90a), 64);
    assert_eq!(KernelDescriptor::parse(&kd.to_bytes()), Ok(kd));
}

#[test]
fn short_input_is_an_error() {
    assert!(matches!(
        KernelDescriptor::parse(&[0u8; 63]),
        Err(Error::Truncated { .. })
    ));
}

#[test]
fn bit_fields_tile_each_register() {
    for all in [rsrc1::ALL, rsrc2::ALL] {
        let mut seen = 0u64;
        for f in all {
            assert_eq!(seen & u64::from(f.mask()), 0, "{} overlaps", f.name);
            seen |= u64::from(f.mask());
        }
        assert_eq!(seen, 0xffff_ffff);
    }
}
