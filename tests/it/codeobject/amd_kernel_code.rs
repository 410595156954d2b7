//! Formerly hsaemu-codeobject's unit tests of src/amd_kernel_code.rs (docs/notes/ci-time.md, "Round 38").

use hsaemu_codeobject::amd_kernel_code::*;
use hsaemu_codeobject::Error;

#[test]
fn converts_to_a_descriptor() {
    let mut b = [0u8; 256];
    b[0] = 1;
    b[4] = 2;
    b[8] = 1;
    b[16] = 0; // entry offset 256
    b[17] = 1;
    b[48..52].copy_from_slice(&0x00ac_0081u32.to_le_bytes());
    b[52..56].copy_from_slice(&0x0000_0090u32.to_le_bytes());
    b[56..60].copy_from_slice(&0x000a_0009u32.to_le_bytes());
    b[64] = 16;
    b[72] = 88;
    b[84] = 10;
    b[86] = 6;
    b[100] = 4;
    b[103] = 6;
    let akc = AmdKernelCode::parse(&b).expect("parses");
    assert_eq!(akc.kernel_code_entry_byte_offset, 256);
    assert_eq!(akc.wavefront_lanes(), 64);
    assert_eq!(akc.kernarg_segment_align_bytes(), 16);
    let kd = akc.to_descriptor();
    assert_eq!(kd.kernel_code_entry_byte_offset, 256);
    assert_eq!(kd.kernarg_size, 88);
    assert_eq!(kd.group_segment_fixed_size, 16);
    assert_eq!(kd.kernel_code_properties, 0x9);
    assert!(kd.enable_sgpr_private_segment_buffer() && kd.enable_sgpr_kernarg_segment_ptr());
    assert!(!kd.enable_wavefront_size32());
    b[103] = 7;
    assert!(matches!(
        AmdKernelCode::parse(&b),
        Err(Error::BadField {
            field: "wavefront_size",
            ..
        })
    ));
    assert!(matches!(
        AmdKernelCode::parse(&b[..255]),
        Err(Error::Truncated { .. })
    ));
}
