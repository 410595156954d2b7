//! crates/runtime/src/layout.rs's unit tests.

use hsaemu_runtime::layout::*;

#[test]
fn dispatch_packet_reads_fields_at_their_offsets() {
    let mut b = [0u8; PACKET_SIZE];
    b[0..2].copy_from_slice(&0x1502u16.to_le_bytes());
    b[2..4].copy_from_slice(&3u16.to_le_bytes());
    b[12..16].copy_from_slice(&77u32.to_le_bytes());
    b[32..40].copy_from_slice(&0xdead_beefu64.to_le_bytes());
    b[56..64].copy_from_slice(&0x1234u64.to_le_bytes());
    let p = KernelDispatchPacket::from_bytes(&b);
    assert_eq!(p.header, 0x1502);
    assert_eq!(p.setup, 3);
    assert_eq!(p.grid_size_x, 77);
    assert_eq!(p.kernel_object, 0xdead_beef);
    assert_eq!(p.completion_signal, 0x1234);
    let bar = BarrierPacket::from_bytes(&b);
    assert_eq!(bar.dep_signal[3], 0xdead_beef);
    assert_eq!(p.to_bytes(), b);
    assert_eq!(bar.to_bytes(), b);
}
