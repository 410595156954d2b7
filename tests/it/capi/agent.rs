//! The agent queries ROCclr makes of the images extension, called in this process (formerly
//! hsaemu-capi's unit tests of src/agent.rs; docs/notes/ci-time.md, "Round 38").

use std::ffi::c_void;

use hsaemu_capi::agent::*;
use hsaemu_capi::HSA_STATUS_SUCCESS;

use super::{HsaInit, INVALID_ARGUMENT};

/// Agent handles from `hsa_iterate_agents`, as (handle, is GPU).
fn agents() -> Vec<(u64, bool)> {
    unsafe extern "C" fn collect(agent: u64, data: *mut c_void) -> u32 {
        // SAFETY: `data` is the `Vec` passed below, alive for the iteration.
        unsafe { (*data.cast::<Vec<u64>>()).push(agent) };
        HSA_STATUS_SUCCESS
    }
    let mut handles: Vec<u64> = Vec::new();
    // SAFETY: `collect` matches the callback type and `handles` outlives the call.
    let status =
        unsafe { hsaemu_hsa_iterate_agents(Some(collect), (&raw mut handles).cast::<c_void>()) };
    assert_eq!(status, HSA_STATUS_SUCCESS);
    handles
        .into_iter()
        .map(|h| {
            let mut device = u32::MAX;
            // SAFETY: HSA_AGENT_INFO_DEVICE (17) is a u32.
            let s = unsafe { hsaemu_hsa_agent_get_info(h, 17, (&raw mut device).cast()) };
            assert_eq!(s, HSA_STATUS_SUCCESS);
            (h, device == 1)
        })
        .collect()
}

/// What ROCclr reads to decide `imageSupport_` and the pitch of hipMallocPitch/hipMalloc3D:
/// the GPU agent's HSA_EXTENSION_IMAGES bit, then each image limit as `uint32_t`s.
#[test]
fn gpu_agent_reports_the_images_extension_and_its_limits() {
    let _hsa = HsaInit::new();
    let all = agents();
    assert!(all.iter().any(|(_, gpu)| *gpu), "no GPU agent");
    for (agent, gpu) in all {
        let mut mask = [0u8; 128];
        // SAFETY: HSA_AGENT_INFO_EXTENSIONS (20) is a 128-byte mask.
        let s = unsafe { hsaemu_hsa_agent_get_info(agent, 20, mask.as_mut_ptr().cast()) };
        assert_eq!(s, HSA_STATUS_SUCCESS);
        assert_eq!(mask[0] & (1 << EXTENSION_IMAGES) != 0, gpu);
        // One spare u32 after each value shows the writes are u32-sized, as ROCclr reads.
        let read = |attribute: u32| {
            let mut v = [u32::MAX; 4];
            // SAFETY: `v` has room for the largest image attribute (3 values).
            let s = unsafe { hsaemu_hsa_agent_get_info(agent, attribute, v.as_mut_ptr().cast()) };
            (s, v)
        };
        if !gpu {
            assert_eq!(read(0x3003).0, INVALID_ARGUMENT);
            continue;
        }
        assert_eq!(
            read(0x3003),
            (HSA_STATUS_SUCCESS, [16384, 16384, u32::MAX, u32::MAX])
        );
        assert_eq!(read(0x3008).1[0], 8192);
        assert_eq!(
            read(0x3007),
            (HSA_STATUS_SUCCESS, [16384, 16384, 8192, u32::MAX])
        );
        // ROCclr's imageSupport_ is MAX_IMAGE_RORW_HANDLES > 0.
        assert_eq!(
            read(0x300A),
            (HSA_STATUS_SUCCESS, [64, u32::MAX, u32::MAX, u32::MAX])
        );
        let (s, align) = read(0x300C);
        assert_eq!(s, HSA_STATUS_SUCCESS);
        assert!(align[0].is_power_of_two() && align[0] == 256);
        // The spec's minimums for every limit.
        let minimum = [
            16384, 16384, 65536, 16384, 16384, 16384, 16384, 2048, 2048, 128, 64, 16,
        ];
        for (attribute, min) in (0x3000u32..).zip(minimum) {
            let (s, v) = read(attribute);
            assert_eq!(s, HSA_STATUS_SUCCESS, "attribute {attribute:#x}");
            assert!(v[0] >= min, "attribute {attribute:#x} = {}", v[0]);
        }
        assert_eq!(read(0x300D).0, INVALID_ARGUMENT);
    }
}
