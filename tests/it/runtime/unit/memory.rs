//! crates/runtime/src/memory.rs's unit tests.

use hsaemu_runtime::backend::DeviceMemoryMap;
use hsaemu_runtime::error::HsaError;
use hsaemu_runtime::memory::*;
use hsaemu_runtime::pages::Pages;

fn manager() -> MemoryManager {
    hsaemu_runtime::internals::memory_manager(DeviceMemoryMap::default())
}

#[test]
fn locks_are_counted_and_overlapping_ranges_merged() {
    let m = manager();
    // Shared anonymous pages can always be aliased. (Heap memory usually can too, but not
    // a thread arena that starts right above another arena's PROT_NONE tail, which
    // `alias::plan` takes for a stack guard; a heap buffer made this test flaky.)
    // SAFETY: a fresh anonymous mapping; unmapped at the end of the test.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            3 * 4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED);
    // SAFETY: `p` is the 3-page read-write mapping just made, used only here.
    let buf = unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), 3 * 4096) };
    let base = buf.as_ptr() as u64;
    // The agent address is an alias of the same pages.
    let agent = m.lock(base, 4096, 0).expect("lock");
    assert_ne!(agent, base);
    assert_eq!(m.lock(base, 4096, 0), Ok(agent));
    assert_eq!(m.lock(base + 100, 50, 0), Ok(agent + 100));
    assert!(m.device_map().contains(base, 4096));
    assert!(m.device_map().contains(agent, 4096));
    buf[7] = 42;
    // SAFETY: the alias maps the same pages as `buf[..4096]` while they are locked.
    assert_eq!(unsafe { *((agent + 7) as *const u8) }, 42);
    // Overlapping the first range and extending past it: merged into one range.
    m.lock(base + 2048, 8192, 0).expect("lock");
    assert!(m.device_map().contains(base, 2048 + 8192));
    let info = m.pointer_info(base + 5000);
    assert_eq!(info.kind, PointerType::Locked);
    assert_eq!((info.base, info.size), (base, 2048 + 8192));
    // Each lock needs its unlock (ROCt counts them); the range shrinks to the locks left.
    m.unlock(base).expect("unlock");
    assert!(m.device_map().contains(base, 2048 + 8192), "locked twice");
    m.unlock(base).expect("unlock");
    assert!(!m.device_map().contains(base, 1));
    assert!(m.device_map().contains(base + 100, 50));
    assert!(m.device_map().contains(base + 2048, 8192));
    assert!(
        m.device_map().contains(agent + 100, 50),
        "its alias stays locked"
    );
    assert_eq!(m.pointer_info(base + 99).kind, PointerType::Unknown);
    m.unlock(base + 100).expect("unlock");
    assert!(!m.device_map().contains(base + 100, 1));
    assert!(
        m.device_map().contains(agent, 4096),
        "a lock left on the alias's page"
    );
    assert_eq!(m.pointer_info(base + 3000).kind, PointerType::Locked);
    m.unlock(base + 2048).expect("unlock");
    assert!(!m.device_map().contains(base + 2048, 1));
    assert!(
        !m.device_map().contains(agent, 1),
        "no lock left on the alias's page"
    );
    assert_eq!(m.pointer_info(base + 3000).kind, PointerType::Unknown);
    assert_eq!(m.unlock(base), Err(HsaError::InvalidArgument));
    // SAFETY: the mapping made above; nothing refers to it any more.
    assert_eq!(unsafe { libc::munmap(p, 3 * 4096) }, 0);
}

/// A page of a new memory object mapped shared at `at` (anywhere when null; replacing
/// what is there with `MAP_FIXED`), as HIP maps an interprocess event's shared memory.
fn shared_page(at: *mut libc::c_void, flags: libc::c_int) -> *mut libc::c_void {
    // SAFETY: a new anonymous file, sized and mapped here and then closed (the mapping
    // keeps it); callers give `MAP_FIXED` only over their own mapping.
    unsafe {
        let fd = libc::memfd_create(c"hsaemu-test-event".as_ptr(), libc::MFD_CLOEXEC);
        assert!(fd >= 0);
        assert_eq!(libc::ftruncate(fd, 4096), 0);
        let p = libc::mmap(
            at,
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | flags,
            fd,
            0,
        );
        libc::close(fd);
        assert_ne!(p, libc::MAP_FAILED);
        p
    }
}

/// HIP 5.2's interprocess events (`event_ipc` aborted on a use after free, once in a few
/// dozen runs under load): HIP unlocks an event's shared page when the event's last command
/// is released, on its callback thread, which can come after the program destroyed the
/// event, and created the next one on the same, reused, address and locked it. ROCt counts
/// both locks of the range (`registration_count`, `mapping_count`), so the late unlock
/// leaves the new lock and its agent address alone.
#[test]
fn a_late_unlock_leaves_a_new_lock_of_reused_pages_alone() {
    let m = manager();
    let page = shared_page(std::ptr::null_mut(), 0);
    // The event's signals start at +20, as in HIP's `ihipIpcEventShmem_t`.
    let host = page as u64 + 20;
    m.lock(host, 128, 0)
        .expect("lock the first event's signals");
    // The first event is destroyed before its unlock; the next maps new pages there.
    assert_eq!(shared_page(page, libc::MAP_FIXED), page);
    let agent = m
        .lock(host, 128, 0)
        .expect("lock the second event's signals");
    m.unlock(host).expect("the first event's late unlock");
    assert!(m.device_map().contains(host, 128));
    assert!(
        m.device_map().contains(agent, 128),
        "the late unlock dropped the second lock's agent address"
    );
    // SAFETY: `agent` maps the new page's bytes from +20 while it is locked.
    unsafe {
        *(agent as *mut u32) = 7;
        assert_eq!(
            *(host as *const u32),
            7,
            "the agent address maps the new page"
        );
    }
    m.unlock(host).expect("the second event's unlock");
    assert!(!m.device_map().contains(host, 1));
    assert!(!m.device_map().contains(agent, 1));
    // SAFETY: the test's own mapping; nothing refers to it any more.
    assert_eq!(unsafe { libc::munmap(page, 4096) }, 0);
}

#[test]
fn pool_allocations_are_pages_visible_to_kernels_until_freed() {
    let m = manager();
    let pool = hsaemu_runtime::internals::memory_pool(PoolProperties {
        segment: Segment::Global,
        flags: GlobalFlags {
            kernarg: false,
            fine_grained: true,
            coarse_grained: false,
        },
        size: 1 << 30,
        alloc_allowed: true,
        granule: 4096,
        alignment: 4096,
        accessible_by_all: true,
        alloc_max_size: 1 << 30,
        owner_node: 0,
        device_local: false,
    });
    let p = m.allocate(&pool, 7, 100).expect("allocate");
    assert_eq!(p % 4096, 0);
    assert!(m.device_map().contains(p, 4096));
    let info = m.pointer_info(p + 99);
    assert_eq!(
        (info.kind, info.base, info.size, info.owner),
        (PointerType::Hsa, p, 4096, 7)
    );
    assert_eq!(m.allocate(&pool, 7, 0), Err(HsaError::InvalidArgument));
    assert_eq!(m.free(p + 8), Err(HsaError::InvalidAllocation));
    m.free(p).expect("free");
    assert!(!m.device_map().contains(p, 1));
    assert_eq!(m.free(p), Err(HsaError::InvalidAllocation));
    assert_eq!(m.free(0), Ok(()));
}

/// ROCclr pins a large host buffer in chunks (`hsa_amd_memory_lock_to_pool`) and lets the
/// application free it without unlocking; the next pool allocation may get the same
/// addresses. The whole allocation must then be visible to kernels, including when a stale
/// locked chunk starts at its very base (rocPRIM's reduce-by-key test faulted 32 MB into a
/// 66 MB key buffer: the chunk at the base kept the allocation out of the map).
#[test]
fn a_pool_allocation_over_freed_locked_memory_is_visible_whole() {
    let m = manager();
    let pool = hsaemu_runtime::internals::memory_pool(PoolProperties {
        segment: Segment::Global,
        flags: GlobalFlags {
            kernarg: false,
            fine_grained: false,
            coarse_grained: true,
        },
        size: 1 << 30,
        alloc_allowed: true,
        granule: 4096,
        alignment: 4096,
        accessible_by_all: true,
        alloc_max_size: 1 << 30,
        owner_node: 0,
        device_local: true,
    });
    const CHUNK: u64 = 1 << 20;
    let mut reused = 0;
    // The kernel hands the freed addresses out again in practice; other tests running
    // in parallel may take them first, so a few tries.
    for _ in 0..8 {
        let host = Pages::new(2 * CHUNK as usize).expect("host pages");
        let h = host.addr();
        m.lock(h, CHUNK, 0).expect("lock first chunk");
        m.lock(h + CHUNK, CHUNK, 0).expect("lock second chunk");
        drop(host);
        let p = m.allocate(&pool, 1, 2 * CHUNK - 100).expect("allocate");
        if p == h {
            reused += 1;
            assert!(
                m.device_map().contains(p, 2 * CHUNK),
                "the allocation over freed locked memory is not visible whole"
            );
            assert_eq!(m.pointer_info(p + CHUNK + 5).kind, PointerType::Hsa);
        }
        m.free(p).expect("free");
    }
    assert!(reused > 0, "no allocation reused the freed host addresses");
}
