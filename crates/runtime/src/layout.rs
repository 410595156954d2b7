//! Byte layouts shared with device code and with C: `amd_signal_t`, `hsa_queue_t`,
//! `amd_queue_t` and the 64-byte AQL packets, exactly as ROCm 5.2's `amd_hsa_signal.h`,
//! `amd_hsa_queue.h`, `hsa.h` and `hsa_ext_amd.h` declare them. Kernels read and write these
//! structures directly (signal values, queue indexes), so the layouts are pinned by const
//! asserts here and checked against the C headers by the integration tests.

use std::mem::{offset_of, size_of};
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64};

/// `amd_signal_kind_t`: a user signal.
pub const AMD_SIGNAL_KIND_USER: i64 = 1;
/// `amd_signal_kind_t`: a doorbell signal.
pub const AMD_SIGNAL_KIND_DOORBELL: i64 = -1;

/// `amd_signal_t` (64 bytes, 64-byte aligned). The `hsa_signal_t` handle is its address; the
/// value lives at offset 8. `reserved3` is used by hsaemu as the host wake-up word: `[0]` is a
/// sequence number bumped on every host-side update, `[1]` counts sleeping waiters.
#[repr(C, align(64))]
#[derive(Debug, Default)]
pub struct AmdSignal {
    pub kind: i64,
    pub value: AtomicI64,
    pub event_mailbox_ptr: u64,
    pub event_id: u32,
    pub reserved1: u32,
    pub start_ts: AtomicU64,
    pub end_ts: AtomicU64,
    pub queue_ptr: u64,
    pub reserved3: [AtomicU32; 2],
}

/// `hsa_queue_t` (40 bytes).
#[repr(C)]
#[derive(Debug, Default)]
pub struct HsaQueue {
    pub type_: u32,
    pub features: u32,
    pub base_address: u64,
    pub doorbell_signal: u64,
    pub size: u32,
    pub reserved1: u32,
    pub id: u64,
}

/// `amd_queue_t` (256 bytes, 64-byte aligned); begins with the `hsa_queue_t` whose address is
/// the queue pointer given to applications. The read and write indexes are
/// `read_dispatch_id` and `write_dispatch_id`.
#[repr(C, align(64))]
#[derive(Debug, Default)]
pub struct AmdQueue {
    pub hsa_queue: HsaQueue,
    pub reserved1: [u32; 4],
    pub write_dispatch_id: AtomicU64,
    pub group_segment_aperture_base_hi: u32,
    pub private_segment_aperture_base_hi: u32,
    pub max_cu_id: u32,
    pub max_wave_id: u32,
    pub max_legacy_doorbell_dispatch_id_plus_1: u64,
    pub legacy_doorbell_lock: u32,
    pub reserved2: [u32; 9],
    pub read_dispatch_id: AtomicU64,
    pub read_dispatch_id_field_base_byte_offset: u32,
    pub compute_tmpring_size: u32,
    pub scratch_resource_descriptor: [u32; 4],
    pub scratch_backing_memory_location: u64,
    pub scratch_backing_memory_byte_size: u64,
    pub scratch_wave64_lane_byte_size: u32,
    pub queue_properties: u32,
    pub reserved3: [u32; 2],
    pub queue_inactive_signal: u64,
    pub reserved4: [u32; 14],
}

/// `hsa_kernel_dispatch_packet_t`.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct KernelDispatchPacket {
    pub header: u16,
    pub setup: u16,
    pub workgroup_size_x: u16,
    pub workgroup_size_y: u16,
    pub workgroup_size_z: u16,
    pub reserved0: u16,
    pub grid_size_x: u32,
    pub grid_size_y: u32,
    pub grid_size_z: u32,
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub kernel_object: u64,
    pub kernarg_address: u64,
    pub reserved2: u64,
    pub completion_signal: u64,
}

/// `hsa_agent_dispatch_packet_t`.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AgentDispatchPacket {
    pub header: u16,
    pub type_: u16,
    pub reserved0: u32,
    pub return_address: u64,
    pub arg: [u64; 4],
    pub reserved2: u64,
    pub completion_signal: u64,
}

/// `hsa_barrier_and_packet_t` and `hsa_barrier_or_packet_t` (same layout).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct BarrierPacket {
    pub header: u16,
    pub reserved0: u16,
    pub reserved1: u32,
    pub dep_signal: [u64; 5],
    pub reserved2: u64,
    pub completion_signal: u64,
}

/// `hsa_amd_barrier_value_packet_t` (AMD vendor packet, `AmdFormat` 2).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AmdBarrierValuePacket {
    pub header: u16,
    pub amd_format: u8,
    pub reserved: u8,
    pub reserved0: u32,
    pub signal: u64,
    pub value: i64,
    pub mask: i64,
    pub cond: u32,
    pub reserved1: u32,
    pub reserved2: u64,
    pub reserved3: u64,
    pub completion_signal: u64,
}

/// The size of every AQL packet.
pub const PACKET_SIZE: usize = 64;

const _: () = {
    assert!(size_of::<AmdSignal>() == 64);
    assert!(offset_of!(AmdSignal, value) == 8);
    assert!(offset_of!(AmdSignal, event_mailbox_ptr) == 16);
    assert!(offset_of!(AmdSignal, event_id) == 24);
    assert!(offset_of!(AmdSignal, start_ts) == 32);
    assert!(offset_of!(AmdSignal, end_ts) == 40);
    assert!(offset_of!(AmdSignal, queue_ptr) == 48);
    assert!(offset_of!(AmdSignal, reserved3) == 56);
    assert!(size_of::<HsaQueue>() == 40);
    assert!(offset_of!(HsaQueue, base_address) == 8);
    assert!(offset_of!(HsaQueue, doorbell_signal) == 16);
    assert!(offset_of!(HsaQueue, size) == 24);
    assert!(offset_of!(HsaQueue, id) == 32);
    assert!(size_of::<AmdQueue>() == 256);
    assert!(offset_of!(AmdQueue, write_dispatch_id) == 56);
    assert!(offset_of!(AmdQueue, max_legacy_doorbell_dispatch_id_plus_1) == 80);
    assert!(offset_of!(AmdQueue, read_dispatch_id) == 128);
    assert!(offset_of!(AmdQueue, scratch_resource_descriptor) == 144);
    assert!(offset_of!(AmdQueue, queue_properties) == 180);
    assert!(offset_of!(AmdQueue, queue_inactive_signal) == 192);
    assert!(size_of::<KernelDispatchPacket>() == PACKET_SIZE);
    assert!(offset_of!(KernelDispatchPacket, grid_size_x) == 12);
    assert!(offset_of!(KernelDispatchPacket, kernel_object) == 32);
    assert!(offset_of!(KernelDispatchPacket, completion_signal) == 56);
    assert!(size_of::<AgentDispatchPacket>() == PACKET_SIZE);
    assert!(size_of::<BarrierPacket>() == PACKET_SIZE);
    assert!(offset_of!(BarrierPacket, dep_signal) == 8);
    assert!(size_of::<AmdBarrierValuePacket>() == PACKET_SIZE);
    assert!(offset_of!(AmdBarrierValuePacket, cond) == 32);
};

/// Packet types (`hsa_packet_type_t`, bits 0..8 of the header).
pub mod packet_type {
    pub const VENDOR_SPECIFIC: u8 = 0;
    pub const INVALID: u8 = 1;
    pub const KERNEL_DISPATCH: u8 = 2;
    pub const BARRIER_AND: u8 = 3;
    pub const AGENT_DISPATCH: u8 = 4;
    pub const BARRIER_OR: u8 = 5;
}

/// Header bit positions (`hsa_packet_header_t`).
pub mod packet_header {
    pub const TYPE: u32 = 0;
    pub const BARRIER: u32 = 8;
    pub const SCACQUIRE_FENCE_SCOPE: u32 = 9;
    pub const SCRELEASE_FENCE_SCOPE: u32 = 11;
}

/// `hsa_amd_packet_type_t`: the AMD vendor packet format of a BARRIER_VALUE packet.
pub const AMD_PACKET_TYPE_BARRIER_VALUE: u8 = 2;

macro_rules! from_bytes {
    ($ty:ident { $($field:ident : $t:ty),* $(,)? }) => {
        impl $ty {
            /// Reads the packet field by field from its 64 little-endian bytes.
            pub fn from_bytes(b: &[u8; PACKET_SIZE]) -> $ty {
                let mut off = 0usize;
                $(let $field = <$t as LeField>::read(b, &mut off);)*
                debug_assert_eq!(off, PACKET_SIZE);
                $ty { $($field),* }
            }

            /// The packet's 64 little-endian bytes.
            pub fn to_bytes(&self) -> [u8; PACKET_SIZE] {
                let mut b = [0u8; PACKET_SIZE];
                let mut off = 0usize;
                $(LeField::write(&self.$field, &mut b, &mut off);)*
                debug_assert_eq!(off, PACKET_SIZE);
                b
            }
        }
    };
}

/// A little-endian field of a packet.
trait LeField: Sized {
    fn read(b: &[u8; PACKET_SIZE], off: &mut usize) -> Self;
    fn write(&self, b: &mut [u8; PACKET_SIZE], off: &mut usize);
}

macro_rules! le_field {
    ($($t:ty),*) => {$(
        impl LeField for $t {
            fn read(b: &[u8; PACKET_SIZE], off: &mut usize) -> Self {
                const N: usize = size_of::<$t>();
                let mut a = [0u8; N];
                a.copy_from_slice(&b[*off..*off + N]);
                *off += N;
                <$t>::from_le_bytes(a)
            }
            fn write(&self, b: &mut [u8; PACKET_SIZE], off: &mut usize) {
                const N: usize = size_of::<$t>();
                b[*off..*off + N].copy_from_slice(&self.to_le_bytes());
                *off += N;
            }
        }
    )*};
}
le_field!(u8, u16, u32, u64, i64);

impl<const K: usize> LeField for [u64; K] {
    fn read(b: &[u8; PACKET_SIZE], off: &mut usize) -> Self {
        let mut out = [0u64; K];
        for v in &mut out {
            *v = u64::read(b, off);
        }
        out
    }
    fn write(&self, b: &mut [u8; PACKET_SIZE], off: &mut usize) {
        for v in self {
            v.write(b, off);
        }
    }
}

from_bytes!(KernelDispatchPacket {
    header: u16,
    setup: u16,
    workgroup_size_x: u16,
    workgroup_size_y: u16,
    workgroup_size_z: u16,
    reserved0: u16,
    grid_size_x: u32,
    grid_size_y: u32,
    grid_size_z: u32,
    private_segment_size: u32,
    group_segment_size: u32,
    kernel_object: u64,
    kernarg_address: u64,
    reserved2: u64,
    completion_signal: u64,
});
from_bytes!(AgentDispatchPacket {
    header: u16,
    type_: u16,
    reserved0: u32,
    return_address: u64,
    arg: [u64; 4],
    reserved2: u64,
    completion_signal: u64,
});
from_bytes!(BarrierPacket {
    header: u16,
    reserved0: u16,
    reserved1: u32,
    dep_signal: [u64; 5],
    reserved2: u64,
    completion_signal: u64,
});
from_bytes!(AmdBarrierValuePacket {
    header: u16,
    amd_format: u8,
    reserved: u8,
    reserved0: u32,
    signal: u64,
    value: i64,
    mask: i64,
    cond: u32,
    reserved1: u32,
    reserved2: u64,
    reserved3: u64,
    completion_signal: u64,
});
