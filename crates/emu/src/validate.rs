//! Launch validation: every field of a packet is checked here, once, before anything runs.
//! Arithmetic is widened to `u64` (a work-group of 2048 × 2048 × 1024 work-items must not wrap
//! to 0 in 32 bits), each dimension is checked against its own limit, and each rejection names
//! its [`Rejection`] class, which the runtime turns into the status ROCr 5.2's packet processor
//! reports for the same command-processor error (`AqlQueue::DynamicQueueEventsHandler`):
//! invalid dimensions → `INCOMPATIBLE_ARGUMENTS`, group memory → `INVALID_ALLOCATION`, null or
//! invalid code → `INVALID_CODE_OBJECT`, work-group too large → `INVALID_ARGUMENT`, invalid
//! format → `INVALID_PACKET_FORMAT`, scratch that cannot be had → `OUT_OF_RESOURCES`.

use crate::gpu::Dispatch;

/// Why a packet was rejected (one class per command-processor error code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    /// Dimensions: setup.dimensions not 1–3, or a zero grid or work-group size.
    Dimensions,
    /// A work-group dimension, or the work-group's work-item count, above the agent's limit.
    WorkgroupSize,
    /// The group segment does not fit in the LDS.
    GroupSegment,
    /// The private segment needs more scratch than can be allocated.
    PrivateSegment,
    /// The kernel object is null, not loaded code, or an invalid descriptor.
    KernelObject,
    /// The packet itself: type, reserved bits, fence scopes, signals.
    PacketFormat,
}

/// A rejected launch: the class and a message naming the field and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The class (decides the queue status).
    pub reason: Rejection,
    /// What was wrong.
    pub message: String,
}

impl Rejected {
    pub(crate) fn new(reason: Rejection, message: impl Into<String>) -> Rejected {
        Rejected {
            reason,
            message: message.into(),
        }
    }
}

/// Work-items per work-group dimension and in total (every generation the emulator models).
pub const WORKGROUP_MAX_DIM: u32 = 1024;
/// Work-items per work-group.
pub const WORKGROUP_MAX_SIZE: u32 = 1024;

/// Bit positions of the AQL packet header (hsa.h `hsa_packet_header_t`).
const ACQUIRE_SHIFT: u32 = 9;
const RELEASE_SHIFT: u32 = 11;
/// `HSA_FENCE_SCOPE_SYSTEM`; scope 3 is not defined.
const FENCE_SCOPE_MAX: u16 = 2;

/// Checks the header bits every packet type shares: both fence scopes must be 0–2.
pub fn header(header: u16) -> Result<(), Rejected> {
    for (name, shift) in [("acquire", ACQUIRE_SHIFT), ("release", RELEASE_SHIFT)] {
        let scope = (header >> shift) & 3;
        if scope > FENCE_SCOPE_MAX {
            return Err(Rejected::new(
                Rejection::PacketFormat,
                format!(
                    "header {header:#06x}: {name} fence scope {scope} is not a fence scope (0-2)"
                ),
            ));
        }
    }
    Ok(())
}

/// The fields of an `hsa_kernel_dispatch_packet_t` the emulator reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DispatchPacket {
    pub setup: u16,
    pub workgroup_size: [u16; 3],
    pub grid_size: [u32; 3],
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub kernel_object: u64,
    pub kernarg_address: u64,
}

/// Checks a kernel dispatch packet's own fields (setup, dimensions, sizes, kernel object) and
/// turns it into a [`Dispatch`], with the sizes of unused dimensions set to 1 as the
/// dimension count says. The kernel object's contents and the scratch it needs are checked
/// when it runs ([`geometry`], and the descriptor checks in `dispatch.rs`).
pub fn dispatch_packet(p: &DispatchPacket) -> Result<Dispatch, Rejected> {
    // ROCr reads only the 2-bit dimensions field, so a count that spills into the reserved bits
    // (rocrtst's `4 << DIMENSIONS`) is an invalid dimension first.
    let dims = usize::from(p.setup & 3);
    if dims == 0 {
        return Err(Rejected::new(
            Rejection::Dimensions,
            "setup.dimensions is 0; must be 1, 2 or 3",
        ));
    }
    let reserved = p.setup & !3;
    if reserved != 0 {
        return Err(Rejected::new(
            Rejection::PacketFormat,
            format!(
                "setup {:#06x} has reserved bits {reserved:#06x} set",
                p.setup
            ),
        ));
    }
    let mut d = Dispatch {
        kernel_object: p.kernel_object,
        kernarg_address: p.kernarg_address,
        grid_size: p.grid_size,
        workgroup_size: p.workgroup_size,
        group_segment_size: p.group_segment_size,
        private_segment_size: p.private_segment_size,
        ..Dispatch::default()
    };
    for i in dims..3 {
        d.grid_size[i] = 1;
        d.workgroup_size[i] = 1;
    }
    if p.kernel_object == 0 {
        return Err(Rejected::new(
            Rejection::KernelObject,
            "kernel_object is null",
        ));
    }
    geometry(&d, u32::MAX)?;
    Ok(d)
}

/// A validated grid: work-group size, work-items per work-group, work-groups per dimension
/// and in total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub wg: [u32; 3],
    pub wg_items: u32,
    pub wg_count: [u32; 3],
    pub total_wgs: u64,
}

/// Checks the sizes of a dispatch against the limits (each dimension on its own, products in
/// `u64`) and the group segment against `lds_size`.
pub(crate) fn geometry(d: &Dispatch, lds_size: u32) -> Result<Geometry, Rejected> {
    let wg = d.workgroup_size.map(u32::from);
    if wg.contains(&0) || d.grid_size.contains(&0) {
        return Err(Rejected::new(
            Rejection::Dimensions,
            format!(
                "grid {:?} and work-group {:?} sizes must be at least 1 in every dimension",
                d.grid_size, d.workgroup_size
            ),
        ));
    }
    for (i, &w) in wg.iter().enumerate() {
        if w > WORKGROUP_MAX_DIM {
            return Err(Rejected::new(
                Rejection::WorkgroupSize,
                format!(
                    "work-group size {w} in dimension {} exceeds the maximum of {WORKGROUP_MAX_DIM}",
                    ["x", "y", "z"][i]
                ),
            ));
        }
    }
    let items = wg.iter().map(|&w| u64::from(w)).product::<u64>();
    if items > u64::from(WORKGROUP_MAX_SIZE) {
        return Err(Rejected::new(
            Rejection::WorkgroupSize,
            format!(
                "work-group {:?} has {items} work-items; the maximum is {WORKGROUP_MAX_SIZE}",
                d.workgroup_size
            ),
        ));
    }
    if d.group_segment_size > lds_size {
        return Err(Rejected::new(
            Rejection::GroupSegment,
            format!(
                "group segment of {} bytes exceeds the {lds_size} bytes of LDS",
                d.group_segment_size
            ),
        ));
    }
    let wg_count = [0, 1, 2].map(|i| d.grid_size[i].div_ceil(wg[i]));
    Ok(Geometry {
        wg,
        wg_items: items as u32,
        wg_count,
        total_wgs: wg_count.iter().map(|&c| u64::from(c)).product(),
    })
}

/// Bytes of scratch per lane (rounded to dwords) and per wave slot (rounded to 1 KiB), in
/// `u64`, or a rejection when `slots` of them exceed `limit` bytes.
pub(crate) fn scratch(
    private_per_lane: u32,
    wave_size: u32,
    slots: u64,
    limit: u64,
) -> Result<(u64, u64), Rejected> {
    let per_lane = u64::from(private_per_lane).div_ceil(4) * 4;
    let slot = (per_lane * u64::from(wave_size)).div_ceil(1024) * 1024;
    let total = slot.saturating_mul(slots);
    if total > limit {
        return Err(Rejected::new(
            Rejection::PrivateSegment,
            format!(
                "private segment of {private_per_lane} bytes per work-item needs {total} bytes of scratch, more than the emulator's limit of {limit}"
            ),
        ));
    }
    Ok((per_lane, slot))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(wg: [u16; 3], grid: [u32; 3]) -> DispatchPacket {
        DispatchPacket {
            setup: 3,
            workgroup_size: wg,
            grid_size: grid,
            kernel_object: 0x1000,
            ..Default::default()
        }
    }

    fn reason(p: &DispatchPacket) -> Option<Rejection> {
        dispatch_packet(p).err().map(|r| r.reason)
    }

    #[test]
    fn products_do_not_wrap() {
        // 2048 * 2048 * 1024 = 2^32 wraps to 0 in 32 bits; 2 * 33284 * 64520 wraps to 64.
        let huge = packet([2048, 2048, 1024], [2048, 2048, 1024]);
        assert_eq!(reason(&huge), Some(Rejection::WorkgroupSize));
        let wraps = packet([2, 33284, 64520], [2, 33284, 64520]);
        assert_eq!(reason(&wraps), Some(Rejection::WorkgroupSize));
        // Each dimension on its own: 1 × 1025 × 1 is too tall even though it is < 1024²
        let tall = packet([1, 1025, 1], [1, 1025, 1]);
        assert_eq!(reason(&tall), Some(Rejection::WorkgroupSize));
        assert_eq!(reason(&packet([1024, 1, 1], [4096, 1, 1])), None);
        assert_eq!(reason(&packet([16, 16, 4], [16, 16, 4])), None);
    }

    #[test]
    fn each_field_has_its_class() {
        let mut p = packet([64, 1, 1], [64, 1, 1]);
        p.setup = 0;
        assert_eq!(reason(&p), Some(Rejection::Dimensions));
        p.setup = 1 | 4;
        assert_eq!(reason(&p), Some(Rejection::PacketFormat));
        // A dimension count of 4 spills into the reserved bits: invalid dimensions, as in ROCr
        // (rocrtst's Queue_Validation_InvalidDimension).
        p.setup = 4;
        assert_eq!(reason(&p), Some(Rejection::Dimensions));
        p.setup = 1;
        p.workgroup_size[0] = 0;
        assert_eq!(reason(&p), Some(Rejection::Dimensions));
        p.workgroup_size[0] = 64;
        // Unused dimensions are ignored (set to 1).
        p.workgroup_size[2] = 0;
        assert_eq!(
            dispatch_packet(&p).map(|d| d.workgroup_size),
            Ok([64, 1, 1])
        );
        p.kernel_object = 0;
        assert_eq!(reason(&p), Some(Rejection::KernelObject));
        let d = Dispatch {
            grid_size: [1; 3],
            workgroup_size: [1; 3],
            group_segment_size: 65537,
            ..Default::default()
        };
        assert_eq!(
            geometry(&d, 65536).map_err(|r| r.reason),
            Err(Rejection::GroupSegment)
        );
        assert!(header(3 << ACQUIRE_SHIFT).is_err());
        assert!(header(3 << RELEASE_SHIFT).is_err());
        assert!(header(2 << ACQUIRE_SHIFT | 2 << RELEASE_SHIFT | 2).is_ok());
    }

    #[test]
    fn private_segment_is_widened() {
        // 0xFFFFFFFF bytes per lane rounds up to 2^32 in u64 instead of wrapping to 0.
        let r = scratch(u32::MAX, 64, 4, 16 << 30);
        assert_eq!(r.map_err(|r| r.reason), Err(Rejection::PrivateSegment));
        assert_eq!(scratch(6, 64, 1, 1 << 20), Ok((8, 1024)));
    }
}
