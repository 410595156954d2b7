//! Shared virtual memory attributes (`hsa_amd_svm_attributes_set/get`, `hsa_amd_svm_prefetch_async`).
//!
//! On ROCm the kernel driver keeps these per page range and uses them to place and migrate
//! pages. In hsaemu every byte of host memory is already where both the host and the emulated
//! GPU reach it, so the attributes change no placement: they are recorded per page range,
//! validated as ROCr 5.2 validates them (same statuses, same order) and reported back, and a
//! prefetch records its destination and completes its signal. The defaults are the driver's:
//! fine-grained (coherent), host-accessible, migration granularity 2^9 pages, no preferred
//! location, prefetched to system memory (the CPU agent), and every GPU agent may access the
//! range (the emulated GPU reaches all host memory, as with XNACK on).

use std::collections::BTreeMap;

use crate::error::{HsaError, Result};
use crate::pages::PAGE_SIZE;

/// `hsa_amd_svm_attribute_t` values.
pub mod attrib {
    pub const GLOBAL_FLAG: u32 = 0;
    pub const READ_ONLY: u32 = 1;
    pub const HIVE_LOCAL: u32 = 2;
    pub const MIGRATION_GRANULARITY: u32 = 3;
    pub const PREFERRED_LOCATION: u32 = 4;
    pub const PREFETCH_LOCATION: u32 = 5;
    pub const READ_MOSTLY: u32 = 6;
    pub const AGENT_ACCESSIBLE: u32 = 0x200;
    pub const AGENT_ACCESSIBLE_IN_PLACE: u32 = 0x201;
    pub const AGENT_NO_ACCESS: u32 = 0x202;
    pub const ACCESS_QUERY: u32 = 0x203;
}

/// `hsa_amd_svm_model_t` values.
pub(crate) const FINE_GRAINED: u64 = 0;
pub(crate) const COARSE_GRAINED: u64 = 1;
pub(crate) const INDETERMINATE: u64 = 2;

/// How an agent may access a range (the three `AGENT_*` attributes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Accessible,
    InPlace,
    None,
}

impl Access {
    fn attrib(self) -> u32 {
        match self {
            Access::Accessible => attrib::AGENT_ACCESSIBLE,
            Access::InPlace => attrib::AGENT_ACCESSIBLE_IN_PLACE,
            Access::None => attrib::AGENT_NO_ACCESS,
        }
    }
}

/// The attributes of one page range.
#[derive(Debug, Clone, PartialEq)]
struct Attrs {
    coherent: bool,
    read_only: bool,
    hive_local: bool,
    read_mostly: bool,
    host_access: bool,
    granularity: u64,
    /// Agent handle, 0 for none.
    preferred: u64,
    /// Agent handle of the last prefetch, 0 for system memory (the CPU agent).
    prefetch: u64,
    /// GPU agents whose access was set; the others are `Accessible`.
    access: Vec<(u64, Access)>,
}

impl Default for Attrs {
    fn default() -> Self {
        Attrs {
            coherent: true,
            read_only: false,
            hive_local: false,
            read_mostly: false,
            host_access: true,
            granularity: 9,
            preferred: 0,
            prefetch: 0,
            access: Vec::new(),
        }
    }
}

impl Attrs {
    fn access_of(&self, agent: u64) -> Access {
        self.access
            .iter()
            .find(|(a, _)| *a == agent)
            .map_or(Access::Accessible, |&(_, x)| x)
    }
    fn set_access(&mut self, agent: u64, x: Access) {
        self.access.retain(|(a, _)| *a != agent);
        self.access.push((agent, x));
    }
}

/// What the runtime knows of an agent handle: `None` if invalid, else whether it is a CPU.
pub type AgentKind<'a> = &'a dyn Fn(u64) -> Option<bool>;

/// One validated attribute of a set, applied to each piece of the range.
type Change = Box<dyn Fn(&mut Attrs)>;

/// Page-range attributes: `start → (end, attributes)`, non-overlapping.
#[derive(Debug, Default)]
pub struct SvmMap(BTreeMap<u64, (u64, Attrs)>);

/// The page-aligned span of `[ptr, ptr+size)`; `Error` (the driver's refusal, as ROCr reports
/// it) when it is empty or not mapped memory.
fn span(ptr: u64, size: u64) -> Result<(u64, u64)> {
    let page = PAGE_SIZE as u64;
    let base = ptr / page * page;
    let end = ptr
        .checked_add(size)
        .and_then(|e| e.checked_next_multiple_of(page))
        .ok_or(HsaError::Error)?;
    if base == 0 || end <= base || !mapped(base, end - base) {
        return Err(HsaError::Error);
    }
    Ok((base, end))
}

/// Whether every page of `[base, base+len)` is mapped. Asked a chunk of pages
/// at a time: the range is the caller's, and one byte per page of a wild size (2^60 bytes) was
/// an allocation the process died of instead of the driver's refusal.
fn mapped(base: u64, len: u64) -> bool {
    const CHUNK: u64 = 4096;
    let page = PAGE_SIZE as u64;
    let mut status = [0u8; CHUNK as usize];
    let mut at = base;
    let Some(end) = base.checked_add(len) else {
        return false;
    };
    while at < end {
        let step = (end - at).min(CHUNK * page);
        let Ok(bytes) = usize::try_from(step) else {
            return false;
        };
        // SAFETY: `status` has a byte for each of the at most CHUNK pages asked; mincore only
        // reads the page tables (ENOMEM when a page is not mapped).
        if unsafe { libc::mincore(at as *mut libc::c_void, bytes, status.as_mut_ptr()) } != 0 {
            return false;
        }
        at += step;
    }
    true
}

impl SvmMap {
    fn split_at(&mut self, x: u64) {
        let found = self
            .0
            .range(..x)
            .next_back()
            .filter(|(_, (end, _))| *end > x)
            .map(|(&s, (end, a))| (s, *end, a.clone()));
        if let Some((s, end, a)) = found {
            self.0.insert(s, (x, a.clone()));
            self.0.insert(x, (end, a));
        }
    }

    /// The pieces of `[base, end)` with their attributes (defaults where nothing was set).
    fn pieces(&self, base: u64, end: u64) -> Vec<Attrs> {
        let mut out = Vec::new();
        let mut cur = base;
        let first = self
            .0
            .range(..base)
            .next_back()
            .filter(|(_, (e, _))| *e > base);
        for (&s, (e, a)) in first.into_iter().chain(self.0.range(base..end)) {
            if s > cur {
                out.push(Attrs::default());
            }
            out.push(a.clone());
            cur = cur.max(*e);
        }
        if cur < end {
            out.push(Attrs::default());
        }
        out
    }

    fn update(&mut self, base: u64, end: u64, f: impl Fn(&mut Attrs)) {
        self.split_at(base);
        self.split_at(end);
        let mut cur = base;
        let keys: Vec<(u64, u64)> = self
            .0
            .range(base..end)
            .map(|(&s, (e, _))| (s, *e))
            .collect();
        for (s, e) in keys {
            if s > cur {
                self.0.insert(cur, (s, Attrs::default()));
            }
            cur = e;
        }
        if cur < end {
            self.0.insert(cur, (end, Attrs::default()));
        }
        for (_, (_, a)) in self.0.range_mut(base..end) {
            f(a);
        }
    }

    /// `hsa_amd_svm_attributes_set`: validates every pair, in order, as ROCr does, then applies
    /// them all.
    pub fn set(
        &mut self,
        ptr: u64,
        size: u64,
        pairs: &[(u32, u64)],
        kind: AgentKind,
    ) -> Result<()> {
        let mut seen_attr = 0u32;
        let mut seen_agents: Vec<u64> = Vec::new();
        let mut check = |a: u32| {
            if seen_attr & (1 << a) != 0 {
                return Err(HsaError::IncompatibleArguments);
            }
            seen_attr |= 1 << a;
            Ok(())
        };
        let mut changes: Vec<Change> = Vec::new();
        for &(a, value) in pairs {
            match a {
                attrib::GLOBAL_FLAG => {
                    check(a)?;
                    let coherent = match value {
                        FINE_GRAINED => true,
                        COARSE_GRAINED => false,
                        _ => return Err(HsaError::InvalidArgument),
                    };
                    changes.push(Box::new(move |x| x.coherent = coherent));
                }
                attrib::READ_ONLY => {
                    check(a)?;
                    changes.push(Box::new(move |x| x.read_only = value != 0));
                }
                attrib::HIVE_LOCAL => {
                    check(a)?;
                    changes.push(Box::new(move |x| x.hive_local = value != 0));
                }
                attrib::READ_MOSTLY => {
                    check(a)?;
                    changes.push(Box::new(move |x| x.read_mostly = value != 0));
                }
                attrib::MIGRATION_GRANULARITY => {
                    check(a)?;
                    // As the driver: at most 2^18 pages (1 GiB).
                    let g = value.min(18);
                    changes.push(Box::new(move |x| x.granularity = g));
                }
                attrib::PREFERRED_LOCATION => {
                    check(a)?;
                    // 0 (or an unknown handle) means no preferred location.
                    let agent = if kind(value).is_some() { value } else { 0 };
                    changes.push(Box::new(move |x| x.preferred = agent));
                }
                attrib::AGENT_ACCESSIBLE
                | attrib::AGENT_ACCESSIBLE_IN_PLACE
                | attrib::AGENT_NO_ACCESS => {
                    let is_cpu = kind(value).ok_or(HsaError::InvalidAgent)?;
                    if seen_agents.contains(&value) {
                        return Err(HsaError::IncompatibleArguments);
                    }
                    seen_agents.push(value);
                    let access = match a {
                        attrib::AGENT_ACCESSIBLE => Access::Accessible,
                        attrib::AGENT_ACCESSIBLE_IN_PLACE => Access::InPlace,
                        _ => Access::None,
                    };
                    if is_cpu {
                        // Any CPU that needs access grants it (as ROCr merges host access).
                        let grant = access != Access::None;
                        changes.push(Box::new(move |x| x.host_access = grant));
                    } else {
                        changes.push(Box::new(move |x| x.set_access(value, access)));
                    }
                }
                _ => return Err(HsaError::InvalidArgument),
            }
        }
        let (base, end) = span(ptr, size)?;
        self.update(base, end, |x| {
            for c in &changes {
                c(x);
            }
        });
        Ok(())
    }

    /// `hsa_amd_svm_attributes_get`: fills in each pair's value (and, for `ACCESS_QUERY`, its
    /// attribute) for the range; where pieces of the range differ, the global flag reads
    /// `INDETERMINATE`, booleans read as set only if set everywhere, and locations read 0.
    pub fn get(
        &self,
        ptr: u64,
        size: u64,
        pairs: &mut [(u32, u64)],
        kind: AgentKind,
        cpu: u64,
    ) -> Result<()> {
        for &(a, value) in pairs.iter() {
            match a {
                attrib::GLOBAL_FLAG
                | attrib::READ_ONLY
                | attrib::HIVE_LOCAL
                | attrib::READ_MOSTLY
                | attrib::MIGRATION_GRANULARITY
                | attrib::PREFERRED_LOCATION
                | attrib::PREFETCH_LOCATION => {}
                attrib::ACCESS_QUERY => {
                    kind(value).ok_or(HsaError::InvalidAgent)?;
                }
                _ => return Err(HsaError::InvalidArgument),
            }
        }
        let (base, end) = span(ptr, size)?;
        let pieces = self.pieces(base, end);
        let all = |f: &dyn Fn(&Attrs) -> bool| pieces.iter().all(f);
        let same = |f: &dyn Fn(&Attrs) -> u64| {
            let v = f(&pieces[0]);
            pieces.iter().all(|p| f(p) == v).then_some(v)
        };
        for (a, value) in pairs.iter_mut() {
            *value = match *a {
                attrib::GLOBAL_FLAG => {
                    if all(&|p| p.coherent) {
                        FINE_GRAINED
                    } else if all(&|p| !p.coherent) {
                        COARSE_GRAINED
                    } else {
                        INDETERMINATE
                    }
                }
                attrib::READ_ONLY => u64::from(all(&|p| p.read_only)),
                attrib::HIVE_LOCAL => u64::from(all(&|p| p.hive_local)),
                attrib::READ_MOSTLY => u64::from(all(&|p| p.read_mostly)),
                attrib::MIGRATION_GRANULARITY => same(&|p| p.granularity).unwrap_or(0),
                attrib::PREFERRED_LOCATION => same(&|p| p.preferred).unwrap_or(0),
                attrib::PREFETCH_LOCATION => match same(&|p| p.prefetch) {
                    Some(0) => cpu,
                    Some(agent) => agent,
                    None => 0,
                },
                _ => {
                    // ACCESS_QUERY: the attribute becomes the agent's access; the value stays.
                    let agent = *value;
                    let is_cpu = kind(agent).unwrap_or(false);
                    let access = if is_cpu {
                        if all(&|p| p.host_access) {
                            Access::Accessible
                        } else {
                            Access::None
                        }
                    } else {
                        let first = pieces[0].access_of(agent);
                        if pieces.iter().all(|p| p.access_of(agent) == first) {
                            first
                        } else {
                            Access::None
                        }
                    };
                    *a = access.attrib();
                    agent
                }
            };
        }
        Ok(())
    }

    /// Records that `[ptr, ptr+size)` was prefetched to `agent` (0: system memory).
    pub fn prefetched(&mut self, ptr: u64, size: u64, agent: u64) -> Result<()> {
        let (base, end) = span(ptr, size)?;
        self.update(base, end, |x| x.prefetch = agent);
        Ok(())
    }

    /// Validates a prefetch range (`Error` for an empty or unmapped range).
    pub fn check_range(ptr: u64, size: u64) -> Result<()> {
        span(ptr, size).map(|_| ())
    }
}
