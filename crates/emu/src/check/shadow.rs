//! The allocations the checked program owns and which of their bytes were written: the state
//! behind `bounds` (the program's own sizes, freed or live) and `uninit` (one bit per byte of
//! device memory). The runtime reports its allocations (exact sizes for HSA programs); the
//! `hipMalloc`/`hipFree` shim that `hsaemu exec --check` preloads reports HIP's, whose
//! requests HIP rounds up before they reach the runtime.

use parking_lot::RwLock;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// One allocation.
#[derive(Debug)]
pub(crate) struct Alloc {
    /// Numbered in allocation order, for reports.
    pub id: u32,
    pub base: u64,
    /// The bytes the program asked for.
    pub len: u64,
    /// The bytes that are mapped (rounded up by the allocator); at least `len`.
    pub mapped: u64,
    /// What made it (`hipMalloc`, `hsa_amd_memory_pool_allocate`, …).
    pub by: &'static str,
    /// What freed it, once freed.
    freed: AtomicBool,
    freed_by: RwLock<&'static str>,
    /// One bit per byte of `len`: written since allocation (device memory only).
    init: Option<Box<[AtomicU64]>>,
}

impl Alloc {
    pub(crate) fn is_freed(&self) -> bool {
        self.freed.load(Ordering::Relaxed)
    }

    /// Whether written-ness is tracked (device memory).
    pub(crate) fn tracks_init(&self) -> bool {
        self.init.is_some()
    }

    /// Whether written-ness is tracked and no byte of `[addr, addr+len)` inside the allocation
    /// was ever written.
    pub(crate) fn never_written(&self, addr: u64, len: u64) -> bool {
        let Some(bits) = self.init.as_ref() else {
            return false;
        };
        let mut any = false;
        let mut inside = false;
        self.words(addr, len, |w, m| {
            inside = true;
            any |= bits[w].load(Ordering::Relaxed) & m != 0;
        });
        inside && !any
    }

    /// Marks `[addr, addr+len)` (clipped to the allocation) written.
    pub(crate) fn mark_written(&self, addr: u64, len: u64) {
        let Some(bits) = &self.init else { return };
        self.words(addr, len, |w, m| {
            // Most stores find their bits set already: no locked write then.
            if bits[w].load(Ordering::Relaxed) & m != m {
                bits[w].fetch_or(m, Ordering::Relaxed);
            }
        });
    }

    /// Calls `f(word, mask)` for the words of the written bits of `[addr, addr+len)` clipped
    /// to the allocation's requested bytes.
    #[inline]
    fn words(&self, addr: u64, len: u64, f: impl FnMut(usize, u64)) {
        let start = addr.max(self.base);
        let end = addr.saturating_add(len).min(self.base + self.len);
        let from = start.saturating_sub(self.base);
        let len = end.saturating_sub(self.base).saturating_sub(from);
        words(usize::MAX, from, len, f);
    }

    /// `allocation #3 (256 bytes at 0x…, by hipMalloc)`, with `freed by hipFree` when freed.
    pub(crate) fn describe(&self) -> String {
        let freed = if self.is_freed() {
            format!(", freed by {}", self.freed_by.read())
        } else {
            String::new()
        };
        format!(
            "allocation #{} ({} bytes at {:#x}, by {}{freed})",
            self.id, self.len, self.base, self.by
        )
    }
}

/// Calls `f(word, mask)` for the words of a bit array of `bits_len` words holding bits
/// `[from, from+len)` (bits past the end are ignored).
#[inline]
pub(super) fn words(bits_len: usize, from: u64, len: u64, mut f: impl FnMut(usize, u64)) {
    let end = from + len;
    let mut b = from;
    while b < end {
        let word = (b / 64) as usize;
        if word >= bits_len {
            return;
        }
        let lo = b % 64;
        let n = (end - b).min(64 - lo);
        // n bits from lo (1 <= n <= 64 - lo): shifts below 64, unchecked.
        let mask = (u64::MAX.wrapping_shr(64 - n as u32)).wrapping_shl(lo as u32);
        f(word, mask);
        b += n;
    }
}

/// Every allocation known to the checker, by base address. A program allocation inside a
/// larger runtime one (a sub-allocator) has its own entry, which covers the addresses from its
/// base up to the next entry.
#[derive(Debug, Default)]
pub(crate) struct Memory {
    allocs: RwLock<BTreeMap<u64, Arc<Alloc>>>,
    next_id: AtomicU32,
    /// Counts the changes of `allocs` (under its write lock), so [`Found`] knows when what it
    /// remembers still holds.
    generation: AtomicU64,
}

/// What a work-group's last look-up found (an allocation or none), with the addresses it
/// answers for: a look-up inside them, while the map is unchanged, finds the same without
/// taking the map's lock or touching the allocation's reference count (both shared by every
/// host thread).
#[derive(Debug, Default)]
pub(crate) struct Found {
    generation: u64,
    alloc: Option<Arc<Alloc>>,
    /// The addresses `[start, end)` with that answer (empty at first).
    start: u64,
    end: u64,
}

impl Found {
    /// The allocation found last, if the last look-up found one.
    pub(crate) fn alloc(&self) -> Option<&Arc<Alloc>> {
        self.alloc.as_ref()
    }
}

impl Memory {
    fn make(&self, base: u64, len: u64, mapped: u64, device: bool, by: &'static str) -> Alloc {
        Alloc {
            id: self.next_id.fetch_add(1, Ordering::Relaxed) + 1,
            base,
            len,
            mapped: mapped.max(len),
            by,
            freed: AtomicBool::new(false),
            freed_by: RwLock::new(""),
            init: device.then(|| (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect()),
        }
    }

    pub(crate) fn allocated(
        &self,
        base: u64,
        len: u64,
        mapped: u64,
        device: bool,
        by: &'static str,
    ) {
        let a = Arc::new(self.make(base, len, mapped, device, by));
        let mut map = self.allocs.write();
        // Entries of freed memory this range reuses are stale.
        let end = base.saturating_add(a.mapped);
        let stale: Vec<u64> = map.range(base..end).map(|(&b, _)| b).collect();
        for b in stale {
            map.remove(&b);
        }
        map.insert(base, a);
        self.generation.fetch_add(1, Ordering::Release);
    }

    /// A program allocation: it replaces a runtime entry at the same base (keeping what is
    /// mapped and whether it is device memory), or nests inside the one containing it.
    pub(crate) fn program_allocated(&self, ptr: u64, size: u64, by: &'static str) {
        let mut map = self.allocs.write();
        let container = map
            .range(..=ptr)
            .next_back()
            .map(|(_, a)| a.clone())
            .filter(|a| ptr < a.base + a.mapped);
        let (mapped, device) = match &container {
            Some(c) => (c.base + c.mapped - ptr, c.tracks_init()),
            None => (size, false),
        };
        let end = ptr.saturating_add(size.max(1));
        let stale: Vec<u64> = map
            .range(ptr..end)
            .filter(|(_, a)| a.is_freed() || a.base == ptr)
            .map(|(&b, _)| b)
            .collect();
        for b in stale {
            map.remove(&b);
        }
        // The container's bytes below `ptr` keep its entry; its freed part is not ours.
        map.insert(ptr, Arc::new(self.make(ptr, size, mapped, device, by)));
        self.generation.fetch_add(1, Ordering::Release);
    }

    pub(crate) fn freed(&self, base: u64, by: &'static str) {
        if let Some(a) = self.allocs.read().get(&base) {
            *a.freed_by.write() = by;
            a.freed.store(true, Ordering::Relaxed);
        }
    }

    pub(crate) fn host_wrote(&self, addr: u64, len: u64) {
        let end = addr.saturating_add(len);
        let map = self.allocs.read();
        let first = map.range(..=addr).next_back().map_or(addr, |(&b, _)| b);
        for (_, a) in map.range(first..end) {
            a.mark_written(addr, len);
        }
    }

    /// The allocation whose range (base up to its mapped end) holds `addr`.
    pub(crate) fn lookup(&self, addr: u64) -> Option<Arc<Alloc>> {
        let map = self.allocs.read();
        let (_, a) = map.range(..=addr).next_back()?;
        (addr < a.base + a.mapped).then(|| a.clone())
    }

    /// [`Memory::lookup`], remembered in `found`: whether there is an allocation, then
    /// `found.alloc()`.
    pub(crate) fn find(&self, addr: u64, found: &mut Found) -> bool {
        if found.generation == self.generation.load(Ordering::Acquire)
            && addr >= found.start
            && addr < found.end
        {
            return found.alloc.is_some();
        }
        let map = self.allocs.read();
        let generation = self.generation.load(Ordering::Relaxed);
        // The entry below and the one above: `addr` is in the first's mapped range, or in the
        // gap after it, and the next entry's base ends either.
        let below = map.range(..=addr).next_back().map(|(_, a)| a);
        let above = map
            .range((Bound::Excluded(addr), Bound::Unbounded))
            .next()
            .map_or(u64::MAX, |(&b, _)| b);
        *found = match below {
            Some(a) if addr < a.base + a.mapped => Found {
                generation,
                alloc: Some(a.clone()),
                start: a.base,
                end: above.min(a.base + a.mapped),
            },
            _ => Found {
                generation,
                alloc: None,
                start: below.map_or(0, |a| a.base + a.mapped),
                end: above,
            },
        };
        found.alloc.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_bits_cover_exactly_the_written_bytes() {
        let m = Memory::default();
        m.allocated(0x1000, 100, 4096, true, "test");
        let a = m.lookup(0x1000).expect("allocation");
        assert!(a.never_written(0x1000, 4));
        m.host_wrote(0x1002, 70);
        assert!(!a.never_written(0x1000, 4), "bytes 2 and 3 were written");
        assert!(a.never_written(0x1000, 2));
        assert!(!a.never_written(0x1040, 8));
        assert!(a.never_written(0x1048, 8));
        // Past the requested size nothing is tracked.
        assert!(!a.never_written(0x1064, 4));
    }

    #[test]
    fn a_program_allocation_replaces_the_runtime_size_and_freeing_is_remembered() {
        let m = Memory::default();
        m.allocated(0x2000, 4096, 4096, true, "hsa_amd_memory_pool_allocate");
        m.program_allocated(0x2000, 1000, "hipMalloc");
        let a = m.lookup(0x2000 + 1000).expect("inside the mapped range");
        assert_eq!((a.len, a.mapped, a.by), (1000, 4096, "hipMalloc"));
        m.freed(0x2000, "hipFree");
        assert!(m.lookup(0x2004).expect("remembered").is_freed());
        // New memory at the same place forgets the freed entry.
        m.allocated(0x2000, 64, 4096, true, "hsa_amd_memory_pool_allocate");
        assert!(!m.lookup(0x2004).expect("new").is_freed());
    }

    /// What `find` remembers answers as `lookup` would: not for a program allocation nested
    /// further up in the one it found, nor once the map changed.
    #[test]
    fn a_remembered_allocation_answers_only_where_a_look_up_would_find_it() {
        let m = Memory::default();
        m.allocated(
            0x10000,
            0x4000,
            0x4000,
            true,
            "hsa_amd_memory_pool_allocate",
        );
        m.program_allocated(0x12000, 0x100, "hipMalloc");
        let mut found = Found::default();
        let id = |f: &Found| f.alloc().map(|a| a.id);
        let runtime = m.lookup(0x10000).map(|a| a.id);
        assert!(m.find(0x10010, &mut found));
        assert_eq!(id(&found), runtime);
        assert!(m.find(0x12010, &mut found));
        assert_eq!(id(&found), m.lookup(0x12010).map(|a| a.id));
        assert_ne!(
            id(&found),
            runtime,
            "the nested allocation, not the container"
        );
        assert!(m.find(0x11ff0, &mut found));
        assert_eq!(id(&found), runtime);
        // A program allocation made since, inside what was found: found, not the container.
        m.program_allocated(0x11000, 0x40, "hipMalloc");
        assert!(m.find(0x11010, &mut found));
        assert_eq!(id(&found), m.lookup(0x11010).map(|a| a.id));
        assert_ne!(id(&found), runtime);
        // Outside every allocation: none, as for a look-up, until one is made there.
        assert!(!m.find(0x20000, &mut found));
        assert!(m.lookup(0x20000).is_none());
        assert!(!m.find(0x20010, &mut found));
        m.allocated(0x20000, 0x100, 0x1000, true, "hsa_amd_memory_pool_allocate");
        assert!(m.find(0x20010, &mut found));
        assert!(!m.find(0x21000, &mut found));
        assert!(m.find(0x12010, &mut found));
        assert_eq!(id(&found), m.lookup(0x12010).map(|a| a.id));
    }
}
