//! Memory: the pools (and the regions, which are the same objects seen through the older API),
//! allocation, locking and registration of host memory, pointer information and copies. Every
//! range the runtime hands out or accepts is made visible to kernels in exactly one place,
//! [`MemoryManager::expose`], which feeds the emulated GPU's memory map.

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::backend::{DeviceMemoryMap, MemoryKind};
use crate::error::{HsaError, Result};
use crate::pages::Pages;

/// The segment of a pool (`hsa_amd_segment_t` / `hsa_region_segment_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment {
    Global,
    ReadOnly,
    Private,
    Group,
    /// Only used by regions: `HSA_REGION_SEGMENT_KERNARG` has no pool equivalent.
    Kernarg,
}

/// Global-segment flags of a pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GlobalFlags {
    pub kernarg: bool,
    pub fine_grained: bool,
    pub coarse_grained: bool,
}

/// Who may access a pool's allocations (`hsa_amd_memory_pool_access_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolAccess {
    NeverAllowed,
    AllowedByDefault,
    DisallowedByDefault,
}

/// Static description of a pool.
#[derive(Debug, Clone)]
pub struct PoolProperties {
    pub segment: Segment,
    pub flags: GlobalFlags,
    pub size: u64,
    pub alloc_allowed: bool,
    pub granule: u64,
    pub alignment: u64,
    pub accessible_by_all: bool,
    pub alloc_max_size: u64,
    /// The owning agent's node number.
    pub owner_node: u32,
    /// Whether it is a GPU ("device local") pool.
    pub device_local: bool,
}

impl PoolProperties {
    /// The kind of memory the pool's allocations are, for the emulator.
    pub fn memory_kind(&self) -> MemoryKind {
        match (self.flags.fine_grained, self.device_local) {
            (false, _) => MemoryKind::Coarse,
            (true, false) => MemoryKind::FineHost,
            (true, true) => MemoryKind::FineDevice,
        }
    }
}

/// A memory pool (`hsa_amd_memory_pool_t`, also `hsa_region_t`).
#[derive(Clone, Debug)]
pub struct MemoryPool(Arc<PoolProperties>);

impl MemoryPool {
    pub(crate) fn new(p: PoolProperties) -> Self {
        MemoryPool(Arc::new(p))
    }
    /// The handle: the address of the description.
    pub fn handle(&self) -> u64 {
        Arc::as_ptr(&self.0) as u64
    }
    /// The pool's properties.
    pub fn properties(&self) -> &PoolProperties {
        &self.0
    }
    /// How agents of `device_local`-ness see this pool: every agent may access every pool in
    /// hsaemu (device pointers are host pointers), by default.
    pub fn access_from(&self, _agent_is_gpu: bool) -> PoolAccess {
        if self.0.segment == Segment::Group {
            PoolAccess::NeverAllowed
        } else {
            PoolAccess::AllowedByDefault
        }
    }
}

impl PartialEq for MemoryPool {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.0, &o.0)
    }
}

/// What kind of memory a pointer lies in (`hsa_amd_pointer_type_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointerType {
    Unknown,
    /// Allocated from a pool.
    Hsa,
    /// Host memory locked with `hsa_amd_memory_lock*`.
    Locked,
    /// Registered with `hsa_memory_register`.
    Registered,
    /// Another process's memory, attached with `hsa_amd_ipc_memory_attach`.
    Ipc,
}

/// A deallocation callback (`hsa_amd_register_deallocation_callback`): `key` identifies the
/// C callback for deregistration, `call` runs it with its user data.
pub struct DeallocNotifier {
    /// The address it was registered for (inside the allocation).
    pub ptr: u64,
    /// The callback's identity (its address).
    pub key: u64,
    /// Calls the callback.
    pub call: Box<dyn Fn() + Send + Sync>,
}

impl std::fmt::Debug for DeallocNotifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeallocNotifier(0x{:x}, 0x{:x})", self.ptr, self.key)
    }
}

/// What the runtime knows about an address (`hsa_amd_pointer_info`).
#[derive(Debug, Clone)]
pub struct PointerInfo {
    pub kind: PointerType,
    pub base: u64,
    pub size: u64,
    pub user_data: u64,
    /// The owning agent's handle (0 if unknown).
    pub owner: u64,
    pub pool: Option<MemoryPool>,
}

#[derive(Debug)]
struct Allocation {
    size: u64,
    kind: PointerType,
    /// The pages of a pool allocation (none for locked or registered host memory).
    pages: Option<Pages>,
    pool: Option<MemoryPool>,
    owner: u64,
    user_data: u64,
    /// The memfd behind an allocation shared with `hsa_amd_ipc_memory_create`.
    export: Option<crate::ipc::Export>,
    /// Deallocation callbacks, run when a pool allocation is freed.
    notifiers: Vec<DeallocNotifier>,
    /// The locks and registrations in force on a locked or registered range (empty for any
    /// other).
    pins: Vec<Pin>,
}

/// One range locked (`hsa_amd_memory_lock*`) or registered (`hsa_memory_register`) and not yet
/// unlocked or deregistered. As in ROCt, which ROCr's lock and unlock call (libhsakmt's
/// `registration_count` and `mapping_count` per user-pointer range), the same range locked
/// again is counted, and each unlock takes one count away: HIP 5.2 can unlock an interprocess
/// event's old registration after a new event locked the same, reused, address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pin {
    ptr: u64,
    size: u64,
    kind: PointerType,
    count: u32,
}

impl Pin {
    fn end(&self) -> u64 {
        self.ptr.saturating_add(self.size)
    }
}

/// Adds one lock or registration of `[ptr, ptr+size)` to `pins`.
fn add_pin(pins: &mut Vec<Pin>, ptr: u64, size: u64, kind: PointerType) {
    match pins
        .iter_mut()
        .find(|p| (p.ptr, p.size, p.kind) == (ptr, size, kind))
    {
        Some(p) => p.count = p.count.saturating_add(1),
        None => pins.push(Pin {
            ptr,
            size,
            kind,
            count: 1,
        }),
    }
}

impl Allocation {
    /// A locked or registered range of `size` bytes holding `pins`.
    fn pinned(size: u64, owner: u64, pins: Vec<Pin>) -> Allocation {
        Allocation {
            size,
            kind: pinned_kind(&pins),
            pages: None,
            pool: None,
            owner,
            user_data: 0,
            export: None,
            notifiers: Vec::new(),
            pins,
        }
    }
}

/// The kind of a range holding `pins`: locked while any lock is in force on it.
fn pinned_kind(pins: &[Pin]) -> PointerType {
    if pins.iter().any(|p| p.kind == PointerType::Locked) {
        PointerType::Locked
    } else {
        PointerType::Registered
    }
}

/// `pins` grouped into disjoint ranges (overlapping pins share one), by address.
fn pinned_ranges(mut pins: Vec<Pin>) -> Vec<(u64, u64, Vec<Pin>)> {
    pins.sort_by_key(|p| p.ptr);
    let mut out: Vec<(u64, u64, Vec<Pin>)> = Vec::new();
    for p in pins {
        match out.last_mut() {
            Some((_, top, group)) if p.ptr < *top => {
                *top = (*top).max(p.end());
                group.push(p);
            }
            _ => out.push((p.ptr, p.end(), vec![p])),
        }
    }
    out
}

/// All memory known to the runtime.
#[derive(Debug)]
pub struct MemoryManager {
    allocs: Mutex<BTreeMap<u64, Allocation>>,
    device_map: DeviceMemoryMap,
    /// Agent addresses of locked host memory (see [`crate::alias`]).
    aliases: Mutex<Vec<crate::alias::Alias>>,
    /// SVM attributes of page ranges.
    svm: Mutex<crate::svm::SvmMap>,
}

impl MemoryManager {
    pub(crate) fn new(device_map: DeviceMemoryMap) -> Self {
        MemoryManager {
            allocs: Mutex::new(BTreeMap::new()),
            device_map,
            aliases: Mutex::new(Vec::new()),
            svm: Mutex::default(),
        }
    }

    /// The SVM attributes of host memory.
    pub fn svm(&self) -> parking_lot::MutexGuard<'_, crate::svm::SvmMap> {
        self.svm.lock()
    }

    /// The map of ranges kernels may touch.
    pub fn device_map(&self) -> &DeviceMemoryMap {
        &self.device_map
    }

    /// Makes `[base, base+len)` visible to kernels as coarse-grained memory.
    pub(crate) fn expose(&self, base: u64, len: u64) {
        self.expose_kind(base, len, MemoryKind::Coarse);
    }

    /// Makes `[base, base+len)` of memory `kind` visible to kernels (the one place that does so).
    pub(crate) fn expose_kind(&self, base: u64, len: u64, kind: MemoryKind) {
        if trace_memory() {
            eprintln!(
                "hsaemu: expose 0x{base:x}..0x{:x} ({kind:?})",
                base.saturating_add(len)
            );
        }
        self.device_map.register_kind(base, len, kind);
    }

    /// Makes memory just obtained from the host allocator visible to kernels. Locked or
    /// registered ranges that overlap it are stale (their memory was freed without being
    /// unlocked, which ROCclr does by design), so they are dropped first.
    pub(crate) fn expose_fresh(&self, base: u64, len: u64, kind: MemoryKind) {
        self.drop_stale(base, len);
        self.expose_kind(base, len, kind);
    }

    /// Forgets the locked or registered ranges overlapping `[base, base+len)`, whole pages
    /// just obtained from the host allocator: those ranges' memory was freed without being
    /// unlocked, so they are stale.
    pub(crate) fn drop_stale(&self, base: u64, len: u64) {
        let end = base.saturating_add(len);
        let stale: Vec<u64> = {
            let mut allocs = self.allocs.lock();
            let keys: Vec<u64> = allocs
                .range(..end)
                .filter(|(&b, a)| {
                    b.saturating_add(a.size) > base
                        && matches!(a.kind, PointerType::Locked | PointerType::Registered)
                })
                .map(|(&b, _)| b)
                .collect();
            for k in &keys {
                allocs.remove(k);
            }
            keys
        };
        for b in stale {
            self.hide(b);
        }
    }

    /// Hides a range made visible by [`expose`](Self::expose) at once, keeping `owner` (which
    /// frees the memory when dropped) until no running dispatch can reach it any more.
    pub(crate) fn retire(&self, base: u64, owner: Box<dyn Send>, by: &'static str) {
        if trace_memory() {
            eprintln!("hsaemu: retire 0x{base:x} ({by})");
        }
        self.device_map.retire(base, owner, by);
    }

    /// Keeps every pool allocation mapped for the rest of the process (the last
    /// `hsa_shut_down`: HIP frees from static destructors afterwards, and host code may still
    /// read results). The runtime forgets them; their pages are never unmapped.
    pub(crate) fn keep_allocations(&self) {
        let mut allocs = self.allocs.lock();
        for (_, a) in std::mem::take(&mut *allocs) {
            if let Some(p) = a.pages {
                std::mem::forget(p);
            }
        }
    }

    /// Hides a range made visible by [`expose`](Self::expose).
    pub(crate) fn hide(&self, base: u64) {
        if trace_memory() {
            eprintln!("hsaemu: hide 0x{base:x}");
        }
        self.device_map.unregister(base);
    }

    /// Allocates `size` bytes (zeroed) from `pool` owned by agent `owner`.
    pub fn allocate(&self, pool: &MemoryPool, owner: u64, size: u64) -> Result<u64> {
        let p = pool.properties();
        if size == 0 {
            return Err(HsaError::InvalidArgument);
        }
        if !p.alloc_allowed {
            return Err(HsaError::InvalidAllocation);
        }
        if size > p.alloc_max_size {
            return Err(HsaError::InvalidAllocation);
        }
        let rounded = size.div_ceil(p.granule) * p.granule;
        let pages = Pages::new(usize::try_from(rounded).map_err(|_| HsaError::OutOfResources)?)?;
        let base = pages.addr();
        // Before the allocation enters the table: a stale locked range at the same base (host
        // memory freed while locked, whose addresses the new mapping reuses) is found and
        // dropped only while it is still there, and a stale range left in the map would keep
        // the new one out of it.
        self.expose_fresh(base, rounded, p.memory_kind());
        self.allocs.lock().insert(
            base,
            Allocation {
                size: rounded,
                kind: PointerType::Hsa,
                pages: Some(pages),
                pool: Some(pool.clone()),
                owner,
                user_data: 0,
                export: None,
                notifiers: Vec::new(),
                pins: Vec::new(),
            },
        );
        if let Some(c) = crate::check::active() {
            // Device memory the host cannot write unseen: uninitialised until written.
            let device = p.device_local && !p.flags.fine_grained;
            c.allocated(base, size, rounded, device, "hsa_amd_memory_pool_allocate");
        }
        Ok(base)
    }

    /// Frees an allocation made by [`allocate`](Self::allocate). Null is accepted quietly.
    pub fn free(&self, ptr: u64) -> Result<()> {
        if ptr == 0 {
            return Ok(());
        }
        let mut allocs = self.allocs.lock();
        match allocs.get(&ptr) {
            Some(a) if a.kind == PointerType::Hsa => {}
            _ => return Err(HsaError::InvalidAllocation),
        }
        let a = allocs.remove(&ptr).ok_or(HsaError::InvalidAllocation)?;
        drop(allocs);
        if let Some(c) = crate::check::active() {
            c.freed(ptr, "hsa_amd_memory_pool_free");
        }
        // As in ROCr, deallocation callbacks run once the allocation has left the runtime's
        // table (so a callback cannot free it twice), with the lock released (so callbacks may
        // manage memory) and the pages still mapped.
        for n in &a.notifiers {
            (n.call)();
        }
        // Kernels still running may hold it: it leaves the map now, its pages go when they
        // have ended, and its addresses stay reserved for a while after (`Tombstone`), so a
        // late access is reported as a use after free rather than landing in new memory.
        match a.pages {
            Some(p) => self.retire(
                ptr,
                Box::new(crate::pages::Tombstone::from(p)),
                "hsa_memory_free",
            ),
            None => self.hide(ptr),
        }
        Ok(())
    }

    /// Registers a deallocation callback for the pool allocation containing `n.ptr`
    /// (`InvalidAllocation` for any other address, as in ROCr).
    pub fn register_dealloc_notifier(&self, n: DeallocNotifier) -> Result<()> {
        let mut allocs = self.allocs.lock();
        match allocs.range_mut(..=n.ptr).next_back() {
            Some((&b, a)) if n.ptr < b + a.size && a.kind == PointerType::Hsa => {
                a.notifiers.push(n);
                Ok(())
            }
            _ => Err(HsaError::InvalidAllocation),
        }
    }

    /// Removes every callback `key` registered for `ptr` (`InvalidArgument` if none was).
    pub fn deregister_dealloc_notifier(&self, ptr: u64, key: u64) -> Result<()> {
        let mut allocs = self.allocs.lock();
        let Some((&b, a)) = allocs.range_mut(..=ptr).next_back() else {
            return Err(HsaError::InvalidArgument);
        };
        if ptr >= b + a.size {
            return Err(HsaError::InvalidArgument);
        }
        let before = a.notifiers.len();
        a.notifiers.retain(|n| !(n.ptr == ptr && n.key == key));
        if a.notifiers.len() == before {
            return Err(HsaError::InvalidArgument);
        }
        Ok(())
    }

    /// Shares the pool allocation at `ptr` with other processes (`hsa_amd_ipc_memory_create`):
    /// `ptr` must be its start and `len` its size (either the size asked for, within the last
    /// page, or the rounded size), else `InvalidArgument`, as in ROCr. Sharing again returns
    /// the same handle.
    pub fn ipc_export(&self, ptr: u64, len: u64) -> Result<crate::ipc::IpcHandle> {
        let mut allocs = self.allocs.lock();
        let a = match allocs.get_mut(&ptr) {
            Some(a) if a.kind == PointerType::Hsa => a,
            _ => return Err(HsaError::InvalidArgument),
        };
        if len == 0 || len.next_multiple_of(crate::pages::PAGE_SIZE as u64) != a.size {
            return Err(HsaError::InvalidArgument);
        }
        if a.export.is_none() {
            // SAFETY: the allocation's pages are one mapping owned by `a` (we hold the lock, so
            // it is not freed meanwhile).
            a.export = Some(unsafe { crate::ipc::export_in_place(ptr, a.size) }?);
        }
        a.export.as_ref().map(|e| e.handle()).ok_or(HsaError::Error)
    }

    /// Maps memory another process shared (`hsa_amd_ipc_memory_attach`), visible to kernels.
    pub fn ipc_attach(&self, h: crate::ipc::IpcHandle, len: u64) -> Result<u64> {
        let pages = crate::ipc::attach(h, len)?;
        let (base, size) = (pages.addr(), pages.len() as u64);
        // Another process's allocation, of unknown pool: taken as device memory
        // (coarse-grained). Exposed before it enters the table, as in `allocate`.
        self.expose_fresh(base, size, MemoryKind::Coarse);
        self.allocs.lock().insert(
            base,
            Allocation {
                size,
                kind: PointerType::Ipc,
                pages: Some(pages),
                pool: None,
                owner: 0,
                user_data: 0,
                export: None,
                notifiers: Vec::new(),
                pins: Vec::new(),
            },
        );
        Ok(base)
    }

    /// Unmaps memory attached with [`ipc_attach`](Self::ipc_attach) (`InvalidArgument` for any
    /// other pointer).
    pub fn ipc_detach(&self, ptr: u64) -> Result<()> {
        let mut allocs = self.allocs.lock();
        match allocs.get(&ptr) {
            Some(a) if a.kind == PointerType::Ipc => {}
            _ => return Err(HsaError::InvalidArgument),
        }
        let a = allocs.remove(&ptr);
        drop(allocs);
        self.hide(ptr);
        drop(a);
        Ok(())
    }

    /// Locks (pins) host memory for agents: returns the agent address. As on a discrete GPU
    /// (and as HIP 5.2's `hipHostUnregister` requires), that is a second mapping of the same
    /// pages at another address when the memory can be aliased ([`crate::alias`]); otherwise
    /// it is the host address. Locking a locked range again returns the same agent address and
    /// needs one more [`unlock`](Self::unlock) (ROCt counts locks per range).
    pub fn lock(&self, ptr: u64, size: u64, owner: u64) -> Result<u64> {
        self.register_kind(ptr, size, owner, PointerType::Locked)?;
        if self.pointer_info(ptr).kind != PointerType::Locked {
            // Runtime-allocated memory: the agent address is the address.
            return Ok(ptr);
        }
        Ok(self.agent_address(ptr, size).unwrap_or(ptr))
    }

    /// The alias of locked `[ptr, ptr+size)`, made on first use; `None` when the memory cannot
    /// be aliased or only part of it lies in an existing alias.
    fn agent_address(&self, ptr: u64, size: u64) -> Option<u64> {
        let end = ptr.checked_add(size)?;
        let mut aliases = self.aliases.lock();
        if !aliases.is_empty() {
            let maps = crate::alias::Maps::read();
            let (live, stale): (Vec<_>, Vec<_>) = aliases
                .drain(..)
                .partition(|a| crate::alias::still_valid(a, &maps));
            *aliases = live;
            for a in stale {
                // A running kernel may still use the alias: unmapped when it has ended.
                self.retire(a.alias, Box::new(a), "a stale alias");
            }
        }
        if let Some(a) = aliases
            .iter()
            .find(|a| a.host <= ptr && end <= a.host + a.len)
        {
            return Some(a.alias + (ptr - a.host));
        }
        if aliases.iter().any(|a| a.host < end && ptr < a.host + a.len) {
            return None;
        }
        let a = crate::alias::create(ptr, size)?;
        // The alias is a fresh mapping: a locked range still overlapping it lost its pages to an
        // unmap before its unlock (ROCclr's interprocess events do that), so it is stale.
        self.expose_fresh(a.alias, a.len, MemoryKind::Coarse);
        let agent = a.alias + (ptr - a.host);
        aliases.push(a);
        Some(agent)
    }

    /// Unlocks memory locked with [`lock`](Self::lock); the agent address goes away with the
    /// last locked range on its pages.
    pub fn unlock(&self, ptr: u64) -> Result<()> {
        let result = self.unregister_kind(ptr, PointerType::Locked);
        let mut aliases = self.aliases.lock();
        let allocs = self.allocs.lock();
        let still_locked = |a: &crate::alias::Alias| {
            allocs
                .range(..a.host + a.len)
                .any(|(&b, al)| al.kind == PointerType::Locked && b + al.size > a.host)
        };
        let (keep, drop_now): (Vec<_>, Vec<_>) = aliases
            .drain(..)
            .partition(|a| !(a.host <= ptr && ptr < a.host + a.len) || still_locked(a));
        drop(allocs);
        *aliases = keep;
        for a in drop_now {
            // As `free`: out of the map now, unmapped when no running dispatch can reach it.
            self.retire(a.alias, Box::new(a), "hsa_amd_memory_unlock");
        }
        result
    }

    /// Registers host memory (`hsa_memory_register`). Registering memory the runtime allocated
    /// is a no-op; host memory registered again needs one more deregistration.
    pub fn register(&self, ptr: u64, size: u64) -> Result<()> {
        self.register_kind(ptr, size, 0, PointerType::Registered)
    }

    /// Deregisters host memory; unknown ranges are ignored.
    pub fn deregister(&self, ptr: u64) -> Result<()> {
        let _ = self.unregister_kind(ptr, PointerType::Registered);
        Ok(())
    }

    fn register_kind(&self, ptr: u64, size: u64, owner: u64, kind: PointerType) -> Result<()> {
        let end = ptr.checked_add(size).ok_or(HsaError::InvalidArgument)?;
        if ptr == 0 || size == 0 {
            return Err(HsaError::InvalidArgument);
        }
        let mut allocs = self.allocs.lock();
        let overlapping: Vec<(u64, u64, PointerType)> = allocs
            .range(..end)
            .filter(|(&b, a)| b.saturating_add(a.size) > ptr)
            .map(|(&b, a)| (b, b.saturating_add(a.size), a.kind))
            .collect();
        if let Some(&(b, _, _)) = overlapping.iter().find(|&&(b, e, _)| b <= ptr && end <= e) {
            // Already inside a known range, which stays as it is. Host memory counts one more
            // lock or registration; memory the runtime allocated needs none.
            if let Some(a) = allocs.get_mut(&b) {
                if matches!(a.kind, PointerType::Locked | PointerType::Registered) {
                    add_pin(&mut a.pins, ptr, size, kind);
                    a.kind = pinned_kind(&a.pins);
                }
            }
            return Ok(());
        }
        if overlapping.iter().any(|&(_, _, k)| k == PointerType::Hsa) {
            // Host memory straddling a pool allocation cannot be host memory the application
            // owns; the pool allocation stays visible as it is.
            return Ok(());
        }
        // Merge with the locked or registered ranges it overlaps (ROCclr locks page-rounded
        // ranges, so neighbouring buffers share pages), keeping their locks.
        let base = overlapping.iter().map(|o| o.0).fold(ptr, u64::min);
        let top = overlapping.iter().map(|o| o.1).fold(end, u64::max);
        let mut pins = Vec::new();
        for (b, _, _) in &overlapping {
            if let Some(a) = allocs.remove(b) {
                pins.extend(a.pins);
            }
        }
        add_pin(&mut pins, ptr, size, kind);
        allocs.insert(base, Allocation::pinned(top - base, owner, pins));
        // The map changes under the table's lock, so that an unlock on another thread (HIP
        // unlocks from its callback threads) cannot hide this range after it was exposed.
        for (b, _, _) in &overlapping {
            self.hide(*b);
        }
        self.expose(base, top - base);
        Ok(())
    }

    /// Takes one lock or registration of `kind` made at `ptr` away (the latest, if ranges of
    /// several sizes were locked there); the range stays visible while others remain on it.
    fn unregister_kind(&self, ptr: u64, kind: PointerType) -> Result<()> {
        let mut allocs = self.allocs.lock();
        let Some((&base, a)) = allocs.range_mut(..=ptr).next_back() else {
            return Err(HsaError::InvalidArgument);
        };
        let i = a
            .pins
            .iter()
            .rposition(|p| p.ptr == ptr && p.kind == kind)
            .ok_or(HsaError::InvalidArgument)?;
        a.pins[i].count -= 1;
        if a.pins[i].count > 0 {
            return Ok(());
        }
        a.pins.remove(i);
        let (size, owner) = (a.size, a.owner);
        let parts = pinned_ranges(std::mem::take(&mut a.pins));
        if let [(b, t, _)] = parts.as_slice() {
            if (*b, *t) == (base, base + size) {
                // The remaining locks cover the whole range: it stays visible as it is.
                a.pins = parts.into_iter().flat_map(|p| p.2).collect();
                a.kind = pinned_kind(&a.pins);
                return Ok(());
            }
        }
        allocs.remove(&base);
        self.hide(base);
        for (b, t, pins) in parts {
            allocs.insert(b, Allocation::pinned(t - b, owner, pins));
            self.expose(b, t - b);
        }
        Ok(())
    }

    /// What the runtime knows about `ptr`.
    pub fn pointer_info(&self, ptr: u64) -> PointerInfo {
        let allocs = self.allocs.lock();
        match allocs.range(..=ptr).next_back() {
            Some((&b, a)) if ptr < b + a.size => PointerInfo {
                kind: a.kind,
                base: b,
                size: a.size,
                user_data: a.user_data,
                owner: a.owner,
                pool: a.pool.clone(),
            },
            _ => PointerInfo {
                kind: PointerType::Unknown,
                base: 0,
                size: 0,
                user_data: 0,
                owner: 0,
                pool: None,
            },
        }
    }

    /// Sets the user data of the allocation starting at `ptr`.
    pub fn set_user_data(&self, ptr: u64, data: u64) -> Result<()> {
        let mut allocs = self.allocs.lock();
        let a = allocs.get_mut(&ptr).ok_or(HsaError::InvalidArgument)?;
        a.user_data = data;
        Ok(())
    }

    /// Whether `[ptr, ptr+len)` lies inside one known allocation or range.
    pub fn contains(&self, ptr: u64, len: u64) -> bool {
        let allocs = self.allocs.lock();
        matches!(allocs.range(..=ptr).next_back(), Some((&b, a)) if ptr.saturating_add(len) <= b + a.size)
    }
}

/// Whether `HSAEMU_TRACE` includes `mem`: log every range made visible to kernels or hidden.
fn trace_memory() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var("HSAEMU_TRACE").is_ok_and(|v| v.split(',').any(|t| t == "mem"))
    })
}

/// Copies `len` bytes.
///
/// # Safety
/// `src` must be readable and `dst` writable for `len` bytes (they may overlap).
pub unsafe fn copy_memory(dst: *mut u8, src: *const u8, len: usize) {
    if let Some(c) = crate::check::active() {
        c.host_wrote(dst as u64, len as u64);
    }
    // SAFETY: the caller guarantees both ranges.
    unsafe { std::ptr::copy(src, dst, len) };
}

/// Fills `count` 32-bit words at `ptr` with `value`.
///
/// # Safety
/// `ptr` must be writable for `count * 4` bytes and 4-byte aligned.
pub unsafe fn fill_u32(ptr: *mut u32, value: u32, count: usize) {
    if let Some(c) = crate::check::active() {
        c.host_wrote(ptr as u64, 4 * count as u64);
    }
    // SAFETY: the caller guarantees the range; `slice_from_raw_parts_mut` covers it exactly.
    let words = unsafe { std::slice::from_raw_parts_mut(ptr, count) };
    words.fill(value);
}

/// Physical memory of the host, in bytes.
pub(crate) fn host_memory_size() -> u64 {
    // SAFETY: `sysinfo` fills the zero-initialised struct we pass.
    let mut si: libc::sysinfo = unsafe { std::mem::zeroed() };
    // SAFETY: `si` is a valid, writable `sysinfo` struct.
    if unsafe { libc::sysinfo(&mut si) } == 0 {
        (si.totalram as u64).saturating_mul(u64::from(si.mem_unit))
    } else {
        16 << 30
    }
}
