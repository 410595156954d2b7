//! Raw accesses to host memory at addresses a kernel computed. This is the only module of the
//! emulator that dereferences such addresses. Every function requires that the caller has
//! checked `[addr, addr+size)` against the [`MemoryMap`](super::MemoryMap) (the runtime promises
//! that registered ranges stay allocated while kernels may touch them).
//!
//! Accesses are host atomics, as the memory model requires (amdgpu-execution.md §2.5): naturally
//! aligned loads use Acquire, stores Release, read-modify-writes SeqCst. Misaligned accesses
//! (legal on the hardware for global memory) fall back to unaligned volatile byte copies.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};

/// Loads `N` bytes (1, 2, 4 or 8) from a checked address, zero-extended into a u64.
#[inline]
pub(crate) fn load(addr: u64, size: u32) -> u64 {
    let aligned = addr.is_multiple_of(u64::from(size));
    // SAFETY: the caller checked [addr, addr+size) lies in a registered, live host range; the
    // atomic types have the alignment we just tested, and atomics make concurrent access by
    // other lanes, waves and the host well-defined.
    unsafe {
        match (size, aligned) {
            (1, _) => u64::from((*(addr as *const AtomicU8)).load(Ordering::Acquire)),
            (2, true) => u64::from((*(addr as *const AtomicU16)).load(Ordering::Acquire)),
            (4, true) => u64::from((*(addr as *const AtomicU32)).load(Ordering::Acquire)),
            (8, true) => load64(addr),
            _ => {
                let mut v = 0u64;
                for i in 0..u64::from(size.min(8)) {
                    let b = std::ptr::read_volatile((addr + i) as *const u8);
                    v |= u64::from(b) << (8 * i);
                }
                v
            }
        }
    }
}

/// Loads N consecutive u32s at a checked `addr` (a coalesced wave load: the caller checked all
/// of `[addr, addr + 4 * N)`).
#[inline]
pub(crate) fn load32_run<const N: usize>(addr: u64, out: &mut [u32; N]) {
    if !addr.is_multiple_of(4) {
        for (l, o) in out.iter_mut().enumerate() {
            *o = load32(addr + 4 * l as u64);
        }
        return;
    }
    let p = addr as *const AtomicU32;
    for (l, o) in out.iter_mut().enumerate() {
        // SAFETY: the caller checked [addr, addr + 4 * N) lies in a registered, live host range,
        // and addr is 4-aligned, so element l is a valid AtomicU32 inside it.
        *o = unsafe { (*p.add(l)).load(Ordering::Acquire) };
    }
}

/// Stores N u32s at the consecutive addresses from a checked, writable `addr` (a coalesced wave
/// store: the caller checked all of `[addr, addr + 4 * N)`).
#[inline]
pub(crate) fn store32_run<const N: usize>(addr: u64, vals: &[u32; N]) {
    if !addr.is_multiple_of(4) || cfg!(feature = "slow-host-stores") {
        for (l, &v) in vals.iter().enumerate() {
            store32(addr + 4 * l as u64, v);
        }
        return;
    }
    let p = addr as *const AtomicU32;
    for (l, &v) in vals.iter().enumerate() {
        // SAFETY: the caller checked [addr, addr + 4 * N) lies in a registered, live, writable
        // host range, and addr is 4-aligned, so element l is a valid AtomicU32 inside it.
        unsafe { (*p.add(l)).store(v, Ordering::Release) };
    }
}

/// Loads a u32 from a checked address (the hot path of dword loads).
#[inline(always)]
pub(crate) fn load32(addr: u64) -> u32 {
    if addr.is_multiple_of(4) {
        // SAFETY: the caller checked [addr, addr+4) is registered and live; it is aligned.
        unsafe { (*(addr as *const AtomicU32)).load(Ordering::Acquire) }
    } else {
        load(addr, 4) as u32
    }
}

/// Stores a u32 at a checked, writable address.
#[inline(always)]
pub(crate) fn store32(addr: u64, v: u32) {
    #[cfg(feature = "slow-host-stores")]
    if slow_store(addr, 4, u64::from(v)) {
        return;
    }
    if addr.is_multiple_of(4) {
        // SAFETY: the caller checked [addr, addr+4) is registered, live and writable; aligned.
        unsafe { (*(addr as *const AtomicU32)).store(v, Ordering::Release) }
    } else {
        store(addr, 4, u64::from(v));
    }
}

/// Loads the 8-byte-aligned u64 at a checked address with one host access: a naturally aligned
/// 64-bit access is single-copy atomic on the hardware, and programs rely on it (docs/litmus.md,
/// "Single-copy atomicity").
#[inline(always)]
pub(crate) fn load64(addr: u64) -> u64 {
    if cfg!(feature = "split-64bit-accesses") {
        return split_load64(addr);
    }
    // SAFETY: the caller checked [addr, addr+8) is registered and live, and it is 8-aligned.
    unsafe { (*(addr as *const AtomicU64)).load(Ordering::Acquire) }
}

/// Stores a u64 at a checked, writable, 8-byte-aligned address with one host access (see
/// [`load64`]).
#[inline(always)]
pub(crate) fn store64(addr: u64, v: u64) {
    if cfg!(feature = "split-64bit-accesses") {
        return split_store64(addr, v);
    }
    #[cfg(feature = "slow-host-stores")]
    if slow_store(addr, 8, v) {
        return;
    }
    // SAFETY: the caller checked [addr, addr+8) is registered, live and writable; aligned.
    unsafe { (*(addr as *const AtomicU64)).store(v, Ordering::Release) }
}

/// Spin-loop hints between the two halves of a split 64-bit access.
const SPLIT_WINDOW: u32 = 64;

/// Test only (feature `split-64bit-accesses`, docs/litmus.md): an aligned 64-bit load done as
/// two 32-bit loads, low half first, with a short pause between them (it widens the window in
/// which another host thread's store lands between the halves, as on a slower or busier host).
/// The 64-bit litmus tests must then see torn values.
#[cold]
fn split_load64(addr: u64) -> u64 {
    let lo = load32(addr);
    (0..SPLIT_WINDOW).for_each(|_| std::hint::spin_loop());
    u64::from(lo) | u64::from(load32(addr + 4)) << 32
}

/// Test only: [`split_load64`] for stores.
#[cold]
fn split_store64(addr: u64, v: u64) {
    store32(addr, v as u32);
    (0..SPLIT_WINDOW).for_each(|_| std::hint::spin_loop());
    store32(addr + 4, (v >> 32) as u32);
}

/// Stores the low `size` bytes (1, 2, 4 or 8) of `value` at a checked, writable address.
#[inline]
pub(crate) fn store(addr: u64, size: u32, value: u64) {
    #[cfg(feature = "slow-host-stores")]
    if slow_store(addr, size, value) {
        return;
    }
    let aligned = addr.is_multiple_of(u64::from(size));
    // SAFETY: as in `load`; the caller also checked the range is writable.
    unsafe {
        match (size, aligned) {
            (1, _) => (*(addr as *const AtomicU8)).store(value as u8, Ordering::Release),
            (2, true) => (*(addr as *const AtomicU16)).store(value as u16, Ordering::Release),
            (4, true) => (*(addr as *const AtomicU32)).store(value as u32, Ordering::Release),
            (8, true) => store64(addr, value),
            _ => {
                for i in 0..u64::from(size.min(8)) {
                    std::ptr::write_volatile((addr + i) as *mut u8, (value >> (8 * i)) as u8);
                }
            }
        }
    }
}

/// Test only (feature `slow-host-stores`, docs/litmus.md): an aligned 4- or 8-byte store
/// made non-temporal, so that it becomes visible to other host threads late (it waits in a
/// write-combining buffer until a fence or a locked instruction), like a store on a host whose
/// store buffer drains slowly. This lets the store-buffering litmus test show what the
/// StoreLoad fence (R5) prevents on a host that drains stores faster than the emulator gets
/// from a store to the next load. Returns false for the other stores, done as usual.
#[cfg(feature = "slow-host-stores")]
#[inline(always)]
fn slow_store(addr: u64, size: u32, value: u64) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_stream_si32, _mm_stream_si64};
        if !addr.is_multiple_of(u64::from(size)) {
            return false;
        }
        match size {
            // SAFETY: the caller checked [addr, addr+size) is registered, live and writable,
            // and it is aligned; SSE2 is part of x86-64.
            4 => unsafe { _mm_stream_si32(addr as *mut i32, value as i32) },
            // SAFETY: as above.
            8 => unsafe { _mm_stream_si64(addr as *mut i64, value as i64) },
            _ => return false,
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (addr, size, value);
        compile_error!("the `slow-host-stores` test feature needs an x86-64 host");
    }
}

/// Atomically replaces the 4-byte-aligned u32 at a checked, writable address with
/// `f(old)` (a CAS loop) and returns the old value. Not inlined: inlined into
/// `vmem::Mem::atomic` (with `atom_apply`'s match in the loop) it cost the bench histogram's
/// global atomics 5.5 M host instructions more per dispatch, ~1.2 % (callgrind, stop 44).
#[inline(never)]
pub(crate) fn rmw32(addr: u64, mut f: impl FnMut(u32) -> u32) -> u32 {
    // SAFETY: the caller checked the range is registered, writable and 4-byte aligned.
    let a = unsafe { &*(addr as *const AtomicU32) };
    let mut old = a.load(Ordering::Relaxed);
    loop {
        match a.compare_exchange_weak(old, f(old), Ordering::SeqCst, Ordering::Relaxed) {
            Ok(v) => return v,
            Err(v) => old = v,
        }
    }
}

/// 64-bit version of [`rmw32`] (8-byte aligned).
#[inline]
pub(crate) fn rmw64(addr: u64, mut f: impl FnMut(u64) -> u64) -> u64 {
    // SAFETY: the caller checked the range is registered, writable and 8-byte aligned.
    let a = unsafe { &*(addr as *const AtomicU64) };
    let mut old = a.load(Ordering::Relaxed);
    loop {
        match a.compare_exchange_weak(old, f(old), Ordering::SeqCst, Ordering::Relaxed) {
            Ok(v) => return v,
            Err(v) => old = v,
        }
    }
}

/// A sequentially consistent host fence (the StoreLoad fence of `s_waitcnt vmcnt(0)`).
#[inline]
#[cfg_attr(feature = "no-storeload-fence", allow(dead_code))]
pub(crate) fn fence() {
    std::sync::atomic::fence(Ordering::SeqCst);
}

/// A copy of `len` bytes at `addr` (a capture's snapshot of a registered range, which the
/// caller keeps alive: a dispatch is about to use it or has just used it).
pub(crate) fn read_bytes(addr: u64, len: u64) -> Vec<u8> {
    let mut out = vec![0u8; len as usize];
    // SAFETY: the caller guarantees [addr, addr+len) is live host memory; bytes are plain data
    // and no kernel of this dispatch runs yet (or any more).
    unsafe { std::ptr::copy_nonoverlapping(addr as *const u8, out.as_mut_ptr(), out.len()) };
    out
}

/// Copies `bytes` to `addr` (a replay filling its [`FixedMapping`] before any kernel runs).
pub(crate) fn write_bytes(addr: u64, bytes: &[u8]) {
    // SAFETY: the caller guarantees [addr, addr+len) lies in a mapping it owns, which no
    // kernel uses yet.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), addr as *mut u8, bytes.len()) };
}

/// Copies `len` bytes from `src` to `dst` (a native blit: the caller checked both ranges,
/// `dst` writable, and that they do not overlap).
pub(crate) fn copy(dst: u64, src: u64, len: u64) {
    // SAFETY: the caller checked [src, src+len) and [dst, dst+len) lie in registered, live
    // host ranges (kept mapped until the dispatch ends) and do not overlap. A host thread or
    // another dispatch touching the same bytes meanwhile races as it would with the kernel's
    // own stores (and as with the runtime's asynchronous copies, which copy the same way).
    unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, len as usize) };
}

/// Fills `len` bytes at `dst` with `pattern` repeated (its last repetition cut short). The
/// caller checked `[dst, dst+len)` is writable and that `pattern` is not taken from it.
pub(crate) fn fill(dst: u64, len: u64, pattern: &[u8]) {
    let Some(&first) = pattern.first() else {
        return;
    };
    if pattern.iter().all(|&b| b == first) {
        // SAFETY: as in `copy`: [dst, dst+len) is checked, live and writable.
        unsafe { std::ptr::write_bytes(dst as *mut u8, first, len as usize) };
        return;
    }
    // A block of whole patterns, copied over and over.
    let reps = (64 * 1024 / pattern.len()).max(1);
    let block = pattern.repeat(reps);
    let mut at = 0u64;
    while at < len {
        let n = (len - at).min(block.len() as u64);
        // SAFETY: as in `copy`: [dst + at, dst + at + n) lies inside the checked range, and
        // `block` is our own buffer.
        unsafe { std::ptr::copy_nonoverlapping(block.as_ptr(), (dst + at) as *mut u8, n as usize) };
        at += n;
    }
}

/// Anonymous read-write memory mapped at given addresses (a replay recreating a captured
/// process's ranges where they were). Unmapped on drop.
pub(crate) struct FixedMapping {
    /// Page-aligned (start, length) of each mapping.
    maps: Vec<(u64, u64)>,
}

impl FixedMapping {
    /// Maps the pages covering every `(base, len)`, refusing to replace anything mapped.
    pub(crate) fn new(ranges: impl Iterator<Item = (u64, u64)>) -> Result<FixedMapping, String> {
        const PAGE: u64 = 4096;
        let mut pages: Vec<(u64, u64)> = ranges
            .map(|(b, l)| (b & !(PAGE - 1), (b + l).div_ceil(PAGE) * PAGE))
            .collect();
        pages.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (s, e) in pages {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        let mut out = FixedMapping { maps: Vec::new() };
        for (s, e) in merged {
            let len = (e - s) as usize;
            // SAFETY: MAP_FIXED_NOREPLACE never replaces an existing mapping; the result is
            // checked and owned by `out`, which unmaps it.
            let p = unsafe {
                libc::mmap(
                    s as *mut libc::c_void,
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
                    -1,
                    0,
                )
            };
            if p == libc::MAP_FAILED || p as u64 != s {
                if p != libc::MAP_FAILED {
                    // SAFETY: the mapping just made (at another address), unused.
                    unsafe { libc::munmap(p, len) };
                }
                return Err(format!(
                    "cannot map the captured range {s:#x}..{e:#x} at its address ({}); \
                     this process already uses it: run the replay again",
                    std::io::Error::last_os_error()
                ));
            }
            out.maps.push((s, e - s));
        }
        Ok(out)
    }
}

impl Drop for FixedMapping {
    fn drop(&mut self) {
        for &(s, l) in &self.maps {
            // SAFETY: each mapping was made by `new` and is unmapped once.
            unsafe { libc::munmap(s as *mut libc::c_void, l as usize) };
        }
    }
}

/// A zero-initialised, page-aligned block of host memory that kernels address through raw
/// pointers (loaded code objects, scratch backing, LDS is separate). Freed on drop.
pub(crate) struct HostBuffer {
    /// The allocation (`layout`), which `base` lies in.
    ptr: *mut u8,
    layout: std::alloc::Layout,
    base: u64,
    len: u64,
}

// SAFETY: the buffer is plain bytes; all concurrent access goes through the atomics above.
unsafe impl Send for HostBuffer {}
// SAFETY: as above.
unsafe impl Sync for HostBuffer {}

impl HostBuffer {
    /// Allocates `len` zero bytes whose first byte is 4096-aligned; the buffer owns the whole
    /// pages they lie in (no other allocation shares one). `None` when the host cannot give
    /// them: a code object's image or a dispatch's scratch sized by its input must fail with
    /// an error, not abort the process as a failed `vec!` does.
    pub(crate) fn new(len: u64) -> Option<HostBuffer> {
        let total = usize::try_from(len.checked_next_multiple_of(4096)?.checked_add(4096)?).ok()?;
        // Byte-aligned, so the system allocator's zeroed path is `calloc`, whose large blocks
        // are fresh zero pages (not a memset that would touch every page up front).
        let layout = std::alloc::Layout::array::<u8>(total).ok()?;
        // SAFETY: `layout` has a non-zero size (at least 4096).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return None;
        }
        let base = (ptr as u64 + 4095) & !4095;
        Some(HostBuffer {
            ptr,
            layout,
            base,
            len,
        })
    }

    /// Address of the first (aligned) byte.
    pub(crate) fn base(&self) -> u64 {
        self.base
    }

    /// Length of the whole pages from [`base`](Self::base) that the buffer owns.
    pub(crate) fn pages_len(&self) -> u64 {
        self.len.next_multiple_of(4096)
    }

    /// Copies `bytes` to `offset` (used while loading, before any kernel sees the buffer).
    pub(crate) fn write(&self, offset: u64, bytes: &[u8]) -> bool {
        if offset
            .checked_add(bytes.len() as u64)
            .is_none_or(|end| end > self.len)
        {
            return false;
        }
        // SAFETY: the range [base+offset, +len) is inside the allocation (checked above) and no
        // kernel runs on this buffer yet.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                (self.base + offset) as *mut u8,
                bytes.len(),
            );
        }
        true
    }

    /// Reads `N` bytes at `offset` (bounds-checked).
    pub(crate) fn read<const N: usize>(&self, offset: u64) -> Option<[u8; N]> {
        if offset.checked_add(N as u64)? > self.len {
            return None;
        }
        let mut out = [0u8; N];
        for (i, b) in out.iter_mut().enumerate() {
            *b = load(self.base + offset + i as u64, 1) as u8;
        }
        Some(out)
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `alloc_zeroed(layout)` in `new` and is freed exactly once here.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) };
    }
}

#[cfg(test)]
mod tests {
    use super::HostBuffer;

    #[test]
    fn a_buffer_is_zero_page_aligned_and_bounds_checked() {
        let b = HostBuffer::new(10_000).expect("10 kB");
        assert_eq!(b.base() % 4096, 0);
        assert_eq!(b.pages_len(), 12_288);
        assert_eq!(b.read::<8>(9_992), Some([0; 8]));
        assert_eq!(b.read::<8>(9_993), None);
        assert!(b.write(9_996, &[1, 2, 3, 4]));
        assert!(!b.write(9_997, &[1, 2, 3, 4]));
        assert_eq!(b.read::<4>(9_996), Some([1, 2, 3, 4]));
    }

    /// What a corrupt code object's image size or a dispatch's scratch can ask for: more than
    /// the host has (here the whole 47-bit user address space, which no host can map) is
    /// `None`, which the loader and the dispatcher report as errors; it must not abort.
    #[test]
    fn a_buffer_the_host_cannot_give_is_none() {
        assert!(HostBuffer::new(1 << 47).is_none());
        assert!(HostBuffer::new(u64::MAX - 100).is_none());
    }
}
