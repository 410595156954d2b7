//! The memory a kernel may touch. Device pointers are host pointers: the runtime registers the
//! host ranges it hands to kernels in a [`MemoryMap`] shared by every emulated GPU, and every
//! global access a lane makes is checked against it before the host memory is touched (in
//! [`host`], the only module with raw pointer accesses). LDS and private memory are emulator
//! buffers reached through the GFX9 apertures (see [`SHARED_APERTURE_HI`]).

pub mod host;
mod system;

use crate::error::EmuError;
use parking_lot::{Mutex, RwLock};
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// High dword of flat addresses that reach LDS (KFD's value; non-canonical on x86-64).
pub const SHARED_APERTURE_HI: u32 = 0x0001_0000;
/// High dword of flat addresses that reach the lane's private (scratch) memory.
pub const PRIVATE_APERTURE_HI: u32 = 0x0002_0000;
/// Base of the LDS aperture as a 64-bit flat address.
pub const SHARED_APERTURE_BASE: u64 = (SHARED_APERTURE_HI as u64) << 32;
/// Base of the private aperture as a 64-bit flat address.
pub const PRIVATE_APERTURE_BASE: u64 = (PRIVATE_APERTURE_HI as u64) << 32;

/// What kernels may do with a registered range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Loads only.
    Read,
    /// Loads, stores and atomics.
    ReadWrite,
    /// Loaded code object: instruction fetch, loads, and stores (program-scope globals live
    /// in the image, and the hardware does not protect code either).
    Code,
}

/// Which kind of memory a registered range stands for, as far as the hardware treats kinds
/// differently (docs/memory-kinds.md). The runtime says it when it registers a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemoryKind {
    /// Coarse-grained memory (device memory, non-coherent host memory, code, scratch, and
    /// anything registered without a kind): cached by the GPU, coherent at dispatch boundaries.
    #[default]
    Coarse,
    /// Fine-grained (coherent) system memory: a CPU pool with the FINE_GRAINED flag, which a
    /// dGPU reaches uncached over PCIe/XGMI (MTYPE UC). gfx90a drops float atomics to it.
    FineHost,
    /// Fine-grained device memory (a GPU pool with the FINE_GRAINED flag).
    FineDevice,
}

/// One registered range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// First byte.
    pub base: u64,
    /// Length in bytes.
    pub len: u64,
    /// Permitted access.
    pub access: Access,
    /// The kind of memory behind it.
    pub kind: MemoryKind,
}

impl Region {
    /// Whether `[addr, addr+len)` lies inside this region.
    pub fn covers(&self, addr: u64, len: u64) -> bool {
        addr >= self.base
            && addr
                .checked_add(len)
                .is_some_and(|end| end <= self.base + self.len)
    }
}

/// Thread-safe map of the host ranges kernels may touch. All GPUs share one.
#[derive(Debug, Default)]
pub struct MemoryMap {
    regions: RwLock<BTreeMap<u64, Region>>,
    generation: AtomicU64,
    reclaim: Mutex<Reclaim>,
    /// XNACK/HMM: anonymous host mappings outside the registered ranges ([`system`]).
    system: system::SystemMemory,
}

/// Freed ranges remembered for use-after-free reports.
const FREED_REMEMBERED: usize = 4096;

/// Safe reclamation by epochs. A range retired with [`MemoryMap::retire`] leaves the map at
/// once (every later check fails), but its owner (which unmaps it when dropped) is kept until
/// every dispatch that started before the retirement, and so may still hold it in a
/// [`RegionCache`] between a check and the access, has ended.
#[derive(Default)]
struct Reclaim {
    /// Incremented by every retirement.
    epoch: u64,
    /// Running dispatches: (epoch they started in, how many), in increasing epoch order
    /// (epochs only grow, so a new dispatch joins or extends the last entry; no allocation
    /// per dispatch once the vector has grown).
    running: Vec<(u64, usize)>,
    /// Retired owners, oldest first, with the epoch of their retirement.
    quarantine: VecDeque<(u64, Box<dyn Send>)>,
    /// Recently freed ranges by base: length, what freed it and when.
    freed: BTreeMap<u64, Freed>,
    freed_order: VecDeque<u64>,
}

impl std::fmt::Debug for Reclaim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reclaim")
            .field("epoch", &self.epoch)
            .field("running", &self.running)
            .field("quarantined", &self.quarantine.len())
            .finish()
    }
}

#[derive(Debug, Clone, Copy)]
struct Freed {
    len: u64,
    by: &'static str,
    at: Instant,
}

impl Reclaim {
    /// Owners no running dispatch can reach any more.
    fn releasable(&mut self) -> Vec<Box<dyn Send>> {
        let oldest = self.running.first().map(|&(e, _)| e);
        let mut out = Vec::new();
        while let Some((retired, _)) = self.quarantine.front() {
            // A dispatch that started in epoch S saw the ranges retired in epochs > S.
            if oldest.is_some_and(|s| s < *retired) {
                break;
            }
            if let Some((_, owner)) = self.quarantine.pop_front() {
                out.push(owner);
            }
        }
        out
    }
}

/// A running dispatch's hold on the memory it may have seen (see [`MemoryMap::begin_dispatch`]).
#[derive(Debug)]
pub struct DispatchEpoch<'a> {
    map: &'a MemoryMap,
    epoch: u64,
}

impl Drop for DispatchEpoch<'_> {
    fn drop(&mut self) {
        let released = {
            let mut r = self.map.reclaim.lock();
            if let Some(i) = r.running.iter().position(|&(e, _)| e == self.epoch) {
                r.running[i].1 -= 1;
                if r.running[i].1 == 0 {
                    r.running.remove(i);
                }
            }
            if r.quarantine.is_empty() {
                return;
            }
            r.releasable()
        };
        // Unmapped outside the lock.
        drop(released);
    }
}

impl MemoryMap {
    /// The counter every (un)registration bumps ([`RegionCache`] entries are valid for one
    /// value of it); compiled regions compare it before an inline access.
    pub(crate) fn generation(&self) -> &AtomicU64 {
        &self.generation
    }

    /// An empty map.
    pub fn new() -> Arc<MemoryMap> {
        Arc::new(MemoryMap::default())
    }

    /// Registers `[base, base+len)` with the given access, as coarse-grained memory.
    pub fn register(&self, base: u64, len: u64, access: Access) -> Result<(), EmuError> {
        self.register_kind(base, len, access, MemoryKind::Coarse)
    }

    /// Registers `[base, base+len)` with the given access and memory kind.
    pub fn register_kind(
        &self,
        base: u64,
        len: u64,
        access: Access,
        kind: MemoryKind,
    ) -> Result<(), EmuError> {
        let end = base
            .checked_add(len)
            .filter(|_| len > 0)
            .ok_or(EmuError::InvalidRange { base, len })?;
        let mut map = self.regions.write();
        let clash = map
            .range(..end)
            .next_back()
            .map(|(_, r)| *r)
            .filter(|r| r.base + r.len > base);
        if let Some(r) = clash {
            return Err(EmuError::Overlap {
                base,
                len,
                other_base: r.base,
                other_len: r.len,
            });
        }
        map.insert(
            base,
            Region {
                base,
                len,
                access,
                kind,
            },
        );
        self.generation.fetch_add(1, Ordering::Release);
        drop(map);
        let mut r = self.reclaim.lock();
        if !r.freed.is_empty() {
            let stale: Vec<u64> = r
                .freed
                .range(..end)
                .filter(|(&b, f)| b.saturating_add(f.len) > base)
                .map(|(&b, _)| b)
                .collect();
            for b in stale {
                r.freed.remove(&b);
            }
        }
        Ok(())
    }

    /// Removes the range registered at `base`.
    pub fn unregister(&self, base: u64) -> Result<(), EmuError> {
        let removed = self.regions.write().remove(&base);
        self.generation.fetch_add(1, Ordering::Release);
        removed.map(|_| ()).ok_or(EmuError::NotRegistered(base))
    }

    /// Marks the start of a dispatch: ranges retired from now on stay mapped until the
    /// returned guard is dropped (when the dispatch has ended).
    pub fn begin_dispatch(&self) -> DispatchEpoch<'_> {
        if self.system.dispatch_started() {
            // Regions cached from the previous snapshot may have been unmapped since.
            self.generation.fetch_add(1, Ordering::Release);
        }
        let mut r = self.reclaim.lock();
        let epoch = r.epoch;
        match r.running.last_mut() {
            Some((e, n)) if *e == epoch => *n += 1,
            _ => r.running.push((epoch, 1)),
        }
        DispatchEpoch { map: self, epoch }
    }

    /// Removes the range registered at `base` at once, and keeps `owner` (whose drop unmaps
    /// the memory) until every dispatch that might still access it has ended. `by` names what
    /// freed it, for use-after-free reports.
    pub fn retire(
        &self,
        base: u64,
        owner: Box<dyn Send>,
        by: &'static str,
    ) -> Result<(), EmuError> {
        let removed = self.regions.write().remove(&base);
        self.generation.fetch_add(1, Ordering::Release);
        let released = {
            let mut r = self.reclaim.lock();
            r.epoch += 1;
            let epoch = r.epoch;
            r.quarantine.push_back((epoch, owner));
            if let Some(region) = removed {
                r.freed.insert(
                    base,
                    Freed {
                        len: region.len,
                        by,
                        at: Instant::now(),
                    },
                );
                r.freed_order.push_back(base);
                while r.freed_order.len() > FREED_REMEMBERED {
                    if let Some(old) = r.freed_order.pop_front() {
                        if !r.freed_order.contains(&old) {
                            r.freed.remove(&old);
                        }
                    }
                }
            }
            r.releasable()
        };
        drop(released);
        removed.map(|_| ()).ok_or(EmuError::NotRegistered(base))
    }

    /// Retired owners still waiting for dispatches to end.
    pub fn quarantined(&self) -> usize {
        self.reclaim.lock().quarantine.len()
    }

    /// If `addr` lies in a recently freed range that no live range has replaced: a
    /// description ("an allocation of N bytes at B, freed by F 1.234 s before").
    pub fn freed_at(&self, addr: u64) -> Option<String> {
        if self.region_of(addr).is_some() {
            return None;
        }
        let r = self.reclaim.lock();
        let (&base, f) = r.freed.range(..=addr).next_back()?;
        (addr < base.saturating_add(f.len)).then(|| {
            format!(
                "in an allocation of {} bytes at {base:#x} freed by {} {:.3} s before",
                f.len,
                f.by,
                f.at.elapsed().as_secs_f64()
            )
        })
    }

    /// Whether `[addr, addr+len)` lies entirely in one registered range.
    pub fn contains(&self, addr: u64, len: u64) -> bool {
        self.region_of(addr).is_some_and(|r| r.covers(addr, len))
    }

    /// The registered range containing `addr`.
    pub fn region_of(&self, addr: u64) -> Option<Region> {
        let map = self.regions.read();
        map.range(..=addr)
            .next_back()
            .map(|(_, r)| *r)
            .filter(|r| addr < r.base + r.len)
    }

    /// XNACK/HMM on: kernels may also reach anonymous host memory this process has mapped
    /// (`malloc`, `mmap`), checked against `/proc/self/maps` ([`system`]); off (the default):
    /// only registered ranges.
    pub fn set_system_memory(&self, on: bool) {
        self.system.set_enabled(on);
        self.generation.fetch_add(1, Ordering::Release);
    }

    /// Whether kernels may reach system-allocated memory ([`MemoryMap::set_system_memory`]).
    pub fn system_memory(&self) -> bool {
        self.system.enabled()
    }

    /// The anonymous host mapping holding all of `[addr, addr+len)` as a fine-grained region
    /// (SVM's default), when system memory is on.
    fn system_region(&self, addr: u64, len: u64) -> Option<Region> {
        self.system.mapping(addr, len).map(|m| Region {
            base: m.start,
            len: m.end - m.start,
            access: if m.writable {
                Access::ReadWrite
            } else {
                Access::Read
            },
            kind: MemoryKind::FineHost,
        })
    }

    /// Every registered range, by address.
    pub fn regions(&self) -> Vec<Region> {
        self.regions.read().values().copied().collect()
    }

    /// Number of registered ranges.
    pub fn len(&self) -> usize {
        self.regions.read().len()
    }

    /// Whether no range is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A small per-thread cache of the last regions hit (most recent first), so that checking 64
/// lanes, or a kernel that streams through a few buffers, costs no lookup in the shared map.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RegionCache {
    recent: [Option<Region>; 4],
    /// The map's generation the entries were taken from; any (un)registration invalidates them.
    generation: u64,
    /// The last address checked for a load (what a spinning wave polls; watchdog reports).
    pub(crate) last_load: u64,
    /// The compiling tier's windows (`jit::Window`), which its inline accesses check against.
    pub(crate) windows: [crate::jit::Window; crate::jit::WINDOWS],
}

impl RegionCache {
    /// Checks `[addr, addr+len)` for an access (`write` = needs write permission).
    #[inline]
    pub(crate) fn check(&mut self, map: &MemoryMap, addr: u64, len: u64, write: bool) -> bool {
        if !write {
            self.last_load = addr;
        }
        let g = map.generation.load(Ordering::Acquire);
        if g != self.generation {
            self.recent = [None; 4];
            self.generation = g;
        }
        for k in 0..self.recent.len() {
            if let Some(r) = self.recent[k] {
                if r.covers(addr, len) {
                    if k != 0 {
                        self.recent.copy_within(0..k, 1);
                        self.recent[0] = Some(r);
                    }
                    return !write || r.access != Access::Read;
                }
            }
        }
        match map.region_of(addr) {
            Some(r) if r.covers(addr, len) => {
                self.recent.copy_within(0..3, 1);
                self.recent[0] = Some(r);
                !write || r.access != Access::Read
            }
            Some(_) => false,
            None => match map.system_region(addr, len) {
                // A system range may overlap registered ones (it is the whole heap mapping);
                // it is cached like them, so registered ranges inside it must be found first:
                // only cache it when no registered range starts inside it.
                Some(r) => {
                    if map
                        .regions
                        .read()
                        .range(r.base..r.base + r.len)
                        .next()
                        .is_none()
                    {
                        self.recent.copy_within(0..3, 1);
                        self.recent[0] = Some(r);
                    }
                    !write || r.access != Access::Read
                }
                None => false,
            },
        }
    }

    /// The region the last successful [`check`](Self::check) found or moved to the front
    /// (when it was cached), with the map's generation the entries were taken from: the
    /// compiling tier's window for inline accesses (`jit/inline_mem.rs`).
    pub(crate) fn front(&self) -> Option<(Region, u64)> {
        self.recent[0].map(|r| (r, self.generation))
    }

    /// The kind of the memory at `addr` (coarse when unregistered: the access faults anyway).
    pub(crate) fn kind(&mut self, map: &MemoryMap, addr: u64) -> MemoryKind {
        let hit = self.recent.iter().flatten().find(|r| r.covers(addr, 1));
        match hit {
            Some(r) => r.kind,
            None => match map.region_of(addr) {
                Some(r) => r.kind,
                None if map.system.cached(addr).is_some() => MemoryKind::FineHost,
                None => MemoryKind::Coarse,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_contains_and_overlap() {
        let m = MemoryMap::new();
        m.register(0x1000, 0x100, Access::ReadWrite)
            .expect("register");
        assert!(m.contains(0x1000, 0x100));
        assert!(!m.contains(0x10ff, 2));
        assert!(!m.contains(0xfff, 1));
        assert!(matches!(
            m.register(0x10f0, 0x20, Access::Read),
            Err(EmuError::Overlap { .. })
        ));
        m.register(0x1100, 0x10, Access::Read).expect("adjacent");
        assert_eq!(m.len(), 2);
        m.unregister(0x1000).expect("unregister");
        assert!(!m.contains(0x1000, 4));
        assert_eq!(m.unregister(0x1000), Err(EmuError::NotRegistered(0x1000)));
        assert!(matches!(
            m.register(u64::MAX - 1, 4, Access::Read),
            Err(EmuError::InvalidRange { .. })
        ));
    }

    /// Dropped when its memory would be unmapped.
    struct Owner(Arc<std::sync::atomic::AtomicBool>);
    impl Drop for Owner {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[test]
    fn retired_ranges_outlive_the_dispatches_that_could_see_them() {
        let m = MemoryMap::new();
        m.register(0x1000, 0x1000, Access::ReadWrite)
            .expect("register");
        m.register(0x3000, 0x1000, Access::ReadWrite)
            .expect("register");
        let gone = [(); 3].map(|_| Arc::new(std::sync::atomic::AtomicBool::new(false)));
        let running = m.begin_dispatch();
        m.retire(0x1000, Box::new(Owner(gone[0].clone())), "free")
            .expect("retire");
        // Out of the map at once, but not unmapped while the dispatch runs.
        assert!(!m.contains(0x1000, 4));
        assert!(!gone[0].load(Ordering::SeqCst));
        assert_eq!(m.quarantined(), 1);
        // A dispatch that starts after the retirement cannot hold it.
        let later = m.begin_dispatch();
        drop(running);
        assert!(gone[0].load(Ordering::SeqCst));
        m.retire(0x3000, Box::new(Owner(gone[1].clone())), "free")
            .expect("retire");
        assert!(!gone[1].load(Ordering::SeqCst));
        drop(later);
        assert!(gone[1].load(Ordering::SeqCst));
        // With nothing running, retirement frees at once.
        m.register(0x5000, 0x100, Access::ReadWrite)
            .expect("register");
        m.retire(0x5000, Box::new(Owner(gone[2].clone())), "hsa_memory_free")
            .expect("retire");
        assert!(gone[2].load(Ordering::SeqCst));
        assert_eq!(m.quarantined(), 0);
        // Use after free is described, until new memory takes the addresses.
        let d = m.freed_at(0x5010).expect("freed");
        assert!(
            d.starts_with("in an allocation of 256 bytes at 0x5000 freed by hsa_memory_free"),
            "{d}"
        );
        assert!(m.freed_at(0x5100).is_none());
        m.register(0x5000, 0x10, Access::Read).expect("reuse");
        assert!(m.freed_at(0x5010).is_none());
    }

    #[test]
    fn cache_respects_permissions() {
        let m = MemoryMap::new();
        m.register(0x2000, 0x100, Access::Read).expect("register");
        let mut c = RegionCache::default();
        assert!(c.check(&m, 0x2000, 4, false));
        assert!(!c.check(&m, 0x2000, 4, true));
        assert!(!c.check(&m, 0x20fe, 4, false));
    }

    #[test]
    fn system_memory_only_under_xnack_and_only_where_mapped() {
        let m = MemoryMap::new();
        let heap = vec![0u32; 1024];
        let a = heap.as_ptr() as u64;
        let mut c = RegionCache::default();
        assert!(
            !c.check(&m, a, 4, true),
            "off by default: malloc memory faults"
        );
        m.set_system_memory(true);
        assert!(m.system_memory());
        assert!(c.check(&m, a, 4096, true));
        assert_eq!(c.kind(&m, a), MemoryKind::FineHost);
        assert!(
            !c.check(&m, 0x8000, 4, false),
            "below mmap_min_addr: never mapped"
        );
        // A registered range keeps its own kind inside a system mapping.
        m.register(a + 1024, 1024, Access::ReadWrite)
            .expect("register");
        assert!(c.check(&m, a + 1024, 4, true));
        assert_eq!(c.kind(&m, a + 1024), MemoryKind::Coarse);
        assert!(c.check(&m, a, 4, true));
        assert_eq!(c.kind(&m, a + 1024), MemoryKind::Coarse);
        m.set_system_memory(false);
        assert!(!c.check(&m, a, 4, false));
        drop(heap);
    }
}
