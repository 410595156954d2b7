//! Hidden kernel arguments (amdgpu-code-object.md §9). The caller of a dispatch fills the
//! kernarg segment; these helpers write the hidden part for the two layouts clang-15 uses:
//! code objects V2–V4 (56 bytes: global offsets, then placeholders) and V5 (256 bytes: block
//! counts, group sizes, remainders, global offsets, grid dims, …).

/// The V5 implicit-argument block (256 bytes) for a grid of `grid` work-items in work-groups
/// of `wg` work-items. The block starts right after the explicit arguments, 8-byte aligned.
/// `hidden_queue_ptr` (+200) is left 0: the caller knows the queue.
pub fn hidden_v5(grid: [u32; 3], wg: [u16; 3]) -> [u8; 256] {
    let mut b = [0u8; 256];
    let dims = if grid[2] > 1 {
        3
    } else if grid[1] > 1 {
        2
    } else {
        1
    };
    for d in 0..3 {
        let g = grid[d].max(1);
        let w = u32::from(wg[d].max(1));
        let count = g / w; // full work-groups only
        let rem = g % w;
        b[d * 4..d * 4 + 4].copy_from_slice(&count.to_le_bytes()); // hidden_block_count_*
        b[12 + d * 2..14 + d * 2].copy_from_slice(&(w as u16).to_le_bytes()); // hidden_group_size_*
        b[18 + d * 2..20 + d * 2].copy_from_slice(&(rem as u16).to_le_bytes()); // hidden_remainder_*
    }
    // hidden_global_offset_x/y/z at 40..64 stay 0.
    b[64..66].copy_from_slice(&(dims as u16).to_le_bytes()); // hidden_grid_dims
                                                             // hidden_private_base / hidden_shared_base (read by GFX8 code for generic pointers).
    b[192..196].copy_from_slice(&crate::memory::PRIVATE_APERTURE_HI.to_le_bytes());
    b[196..200].copy_from_slice(&crate::memory::SHARED_APERTURE_HI.to_le_bytes());
    b
}

/// The pre-V5 hidden block (56 bytes, code objects V2–V4): hidden_global_offset_x/y/z (i64
/// each), then zeroed placeholders for printf buffer, hostcall buffer, default queue,
/// completion action and multigrid sync.
pub fn hidden_v4() -> [u8; 56] {
    [0u8; 56]
}

/// Builds a complete kernarg segment: `explicit` bytes, padded to 8, then the hidden block of
/// code object version `cov` (2, 3 and 4 share the 56-byte block, V6 uses V5's 256 bytes; other
/// versions get none).
pub fn build(explicit: &[u8], cov: u32, grid: [u32; 3], wg: [u16; 3]) -> Vec<u8> {
    let mut v = explicit.to_vec();
    v.resize(explicit.len().div_ceil(8) * 8, 0);
    match cov {
        5 | 6 => v.extend_from_slice(&hidden_v5(grid, wg)),
        2..=4 => v.extend_from_slice(&hidden_v4()),
        _ => {}
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v5_layout() {
        let b = hidden_v5([1000, 3, 1], [256, 1, 1]);
        assert_eq!(u32::from_le_bytes([b[0], b[1], b[2], b[3]]), 3);
        assert_eq!(u32::from_le_bytes([b[4], b[5], b[6], b[7]]), 3);
        assert_eq!(u16::from_le_bytes([b[12], b[13]]), 256);
        assert_eq!(u16::from_le_bytes([b[18], b[19]]), 1000 % 256);
        assert_eq!(u16::from_le_bytes([b[64], b[65]]), 2);
        assert_eq!(build(&[1, 2, 3], 5, [1, 1, 1], [1, 1, 1]).len(), 8 + 256);
    }
}
