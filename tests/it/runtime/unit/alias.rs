//! crates/runtime/src/alias.rs's unit tests.

use hsaemu_runtime::internals::{create, parse_maps, plan, still_valid, Maps, Plan, Vma};
use hsaemu_runtime::pages::PAGE_SIZE;

fn vma(start: u64, end: u64, perms: &str, inode: u64, path: &str) -> Vma {
    Vma {
        start,
        end,
        perms: perms.into(),
        inode,
        path: path.into(),
    }
}

#[test]
fn only_private_anonymous_memory_away_from_stacks_is_moved() {
    let maps = parse_maps(
        "1000-3000 rw-p 00000000 00:00 0          [heap]\n\
         3000-4000 ---p 00000000 00:00 0\n\
         4000-8000 rw-p 00000000 00:00 0\n\
         8000-9000 r--p 00000000 08:01 42         /usr/lib/libfoo.so\n\
         9000-a000 rw-s 00000000 00:01 77         /memfd:hsaemu-locked (deleted)\n\
         a000-b000 rw-p 00000000 00:00 0          [stack]\n",
    );
    assert_eq!(maps[0], vma(0x1000, 0x3000, "rw-p", 0, "[heap]"));
    assert_eq!(maps[4].path, "/memfd:hsaemu-locked (deleted)");
    let probe = 0xa800;
    assert_eq!(plan(&maps, 0x1000, 0x2000, probe), Plan::Move);
    assert_eq!(
        plan(&maps, 0x4000, 0x5000, probe),
        Plan::Refuse,
        "above a guard page"
    );
    assert_eq!(
        plan(&maps, 0x8000, 0x9000, probe),
        Plan::Refuse,
        "a private file mapping"
    );
    assert_eq!(plan(&maps, 0x9000, 0xa000, probe), Plan::Remap);
    assert_eq!(
        plan(&maps, 0xa000, 0xb000, probe),
        Plan::Refuse,
        "the stack"
    );
    assert_eq!(
        plan(&maps, 0x2000, 0x4000, probe),
        Plan::Refuse,
        "spans a guard page"
    );
    assert_eq!(plan(&maps, 0xc000, 0xd000, probe), Plan::Refuse, "unmapped");
    assert_eq!(
        plan(&maps, 0x1000, 0x2000, 0x1800),
        Plan::Refuse,
        "the caller's stack"
    );
}

#[test]
fn a_shared_mapping_is_aliased_without_moving() {
    // A shared memory object mapped MAP_SHARED, as HIP's inter-process events map theirs.
    // SAFETY: a new anonymous file, owned by this test.
    let fd = unsafe { libc::memfd_create(c"hsaemu-test-shm".as_ptr(), libc::MFD_CLOEXEC) };
    assert!(fd >= 0);
    let len = 2 * PAGE_SIZE;
    // SAFETY: sizing the test's own file, then mapping it shared.
    let p = unsafe {
        assert_eq!(libc::ftruncate(fd, len as libc::off_t), 0);
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED);
    let base = p as u64;
    let maps = Maps::read();
    let v = maps.0.iter().find(|v| v.start == base).expect("mapped");
    assert_eq!(v.perms, "rw-s");
    let a = create(base + 20, 128).expect("a shared mapping is aliased");
    assert_eq!((a.host, a.len), (base, PAGE_SIZE as u64));
    assert_ne!(a.alias, a.host);
    assert!(still_valid(&a, &Maps::read()));
    // SAFETY: both map the same page of the memfd.
    unsafe {
        *(a.alias as *mut u32).add(5) = 0x1234_5678;
        assert_eq!(*(p as *const u32).add(5), 0x1234_5678);
        *(p as *mut u32).add(6) = 0xfeed;
        assert_eq!(*(a.alias as *const u32).add(6), 0xfeed);
    }
    drop(a);
    // SAFETY: unmapping and closing the test's own mapping and file.
    unsafe {
        libc::munmap(p, len);
        libc::close(fd);
    }
}

#[test]
fn an_alias_maps_the_same_pages_and_survives_a_second_alias() {
    // A private anonymous mapping of 3 pages, like a large malloc chunk, above a read-only
    // page of its own. Without that page the kernel may place it right above a `---p`
    // mapping (in this multi-threaded binary, a malloc arena's reserve: arenas leave a hole
    // above theirs) or right above a thread stack, merged with it; `plan` then takes it for a
    // thread stack and refuses (seen once in a cold run of the suite).
    let len = 3 * PAGE_SIZE;
    // SAFETY: a fresh private anonymous mapping of the read-only page and the 3 pages.
    let below = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            PAGE_SIZE + len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(below, libc::MAP_FAILED);
    // SAFETY: the first page of the mapping just made.
    assert_eq!(
        unsafe { libc::mprotect(below, PAGE_SIZE, libc::PROT_READ) },
        0
    );
    // SAFETY: the 3 pages above it lie inside the same mapping.
    let p = unsafe { below.byte_add(PAGE_SIZE) };
    let base = p as u64;
    // SAFETY: `p` is writable for `len` bytes.
    let host = unsafe { std::slice::from_raw_parts_mut(p as *mut u32, len / 4) };
    for (i, w) in host.iter_mut().enumerate() {
        *w = i as u32 * 7;
    }
    let a = create(base + 100, 5000).expect("heap-like memory is aliased");
    assert_eq!((a.host, a.len), (base, 2 * PAGE_SIZE as u64));
    assert_ne!(a.alias, a.host);
    assert!(still_valid(&a, &Maps::read()));
    // SAFETY: the alias maps `a.len` bytes.
    let alias = unsafe { std::slice::from_raw_parts_mut(a.alias as *mut u32, a.len as usize / 4) };
    assert!(
        alias.iter().enumerate().all(|(i, &w)| w == i as u32 * 7),
        "contents kept"
    );
    alias[10] = 0xdead;
    assert_eq!(
        host[10], 0xdead,
        "a store through the alias is seen at the host address"
    );
    host[11] = 0xbeef;
    assert_eq!(alias[11], 0xbeef);
    assert_eq!(
        host[2 * PAGE_SIZE / 4],
        (2 * PAGE_SIZE / 4) as u32 * 7,
        "third page untouched"
    );
    drop(a);
    // The host range stays on the memfd; aliasing it again remaps without copying.
    let b = create(base, 8).expect("a moved range is aliased again");
    assert_eq!(b.len, PAGE_SIZE as u64);
    // SAFETY: the alias maps one page.
    assert_eq!(unsafe { *(b.alias as *const u32).add(10) }, 0xdead);
    drop(b);
    // SAFETY: unmapping the test's own mapping.
    unsafe { libc::munmap(below, PAGE_SIZE + len) };
}
