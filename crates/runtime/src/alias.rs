//! Agent addresses for locked host memory that differ from the host addresses, as on a
//! discrete GPU. `hsa_amd_memory_lock_to_pool` returns an "agent pointer"; HIP 5.2 keys its
//! memory-object map by both the host pointer and that agent pointer, and `hipHostUnregister`
//! removes both keys, aborting ("Memobj map does not have ptr") when they are the same key.
//!
//! The emulated GPU reads host memory directly, so the agent address must map the *same
//! physical pages* as the host address. For private anonymous memory (the C heap, `mmap`ed
//! chunks) this module moves the whole pages of the range onto a `memfd` (copy, then map the
//! memfd over the range with `MAP_FIXED`) and maps that memfd a second time: the second mapping
//! is the agent address. A range already moved this way is aliased again with
//! `mremap(old_size = 0)`, which copies nothing. Any other writable shared mapping (a POSIX
//! shared-memory object or file mapped `MAP_SHARED`, as HIP's inter-process events use) is
//! aliased the same way, with no copy. Memory of any other kind (stacks, private file
//! mappings, read-only or guard pages) is not aliased, and the caller falls back to agent
//! address = host address.
//!
//! Limits (docs/notes/hip-bringup.md): between the copy and the remap (a few microseconds per
//! page) a store by *another* thread to the same pages would be lost, so ranges next to a
//! thread stack or on the calling thread's stack are refused; after a fork the moved pages are
//! shared with the child.

use std::ffi::CStr;

use crate::pages::PAGE_SIZE;

/// The memfd name; the kernel shows moved ranges in `/proc/self/maps` as
/// `/memfd:hsaemu-locked (deleted)`.
const MEMFD_NAME: &CStr = c"hsaemu-locked";

/// A second mapping of `len` bytes of host pages at `host`, at `alias`.
#[derive(Debug)]
pub struct Alias {
    pub host: u64,
    pub len: u64,
    pub alias: u64,
}

impl Drop for Alias {
    fn drop(&mut self) {
        // SAFETY: `alias` is a mapping this value created and owns; nothing else refers to it
        // once the runtime has dropped the alias (kernels and copies use it only while locked).
        unsafe { libc::munmap(self.alias as *mut libc::c_void, self.len as usize) };
    }
}

/// One line of `/proc/self/maps`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vma {
    pub start: u64,
    pub end: u64,
    pub perms: String,
    pub inode: u64,
    pub path: String,
}

pub fn parse_maps(text: &str) -> Vec<Vma> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (s, e) = f.next()?.split_once('-')?;
            let perms = f.next()?.to_string();
            let _offset = f.next()?;
            let _dev = f.next()?;
            let inode = f.next()?.parse().ok()?;
            let path = f.collect::<Vec<_>>().join(" ");
            Some(Vma {
                start: u64::from_str_radix(s, 16).ok()?,
                end: u64::from_str_radix(e, 16).ok()?,
                perms,
                inode,
                path,
            })
        })
        .collect()
}

/// A writable shared mapping: `mremap(old_size = 0)` maps its pages a second time.
fn is_shared_writable(v: &Vma) -> bool {
    v.perms == "rw-s"
}

fn is_private_anonymous(v: &Vma) -> bool {
    v.perms == "rw-p" && v.inode == 0 && (v.path.is_empty() || v.path == "[heap]")
}

/// How `[start, end)` (whole pages) can be aliased, judging by the process's mappings.
#[derive(Debug, PartialEq, Eq)]
pub enum Plan {
    /// Already shared (one of our memfds, or a shared mapping of the application's):
    /// `mremap` it.
    Remap,
    /// Private anonymous memory not next to a stack: move it onto a memfd.
    Move,
    /// Leave it alone.
    Refuse,
}

pub fn plan(maps: &[Vma], start: u64, end: u64, stack_probe: u64) -> Plan {
    let covering: Vec<(usize, &Vma)> = maps
        .iter()
        .enumerate()
        .filter(|(_, v)| v.end > start && v.start < end)
        .collect();
    let Some(&(first_index, first)) = covering.first() else {
        return Plan::Refuse;
    };
    // Contiguous cover of the whole range.
    if first.start > start || covering.last().is_none_or(|(_, v)| v.end < end) {
        return Plan::Refuse;
    }
    if covering.windows(2).any(|w| w[0].1.end != w[1].1.start) {
        return Plan::Refuse;
    }
    if covering.len() == 1 && is_shared_writable(first) {
        return Plan::Remap;
    }
    if !covering.iter().all(|(_, v)| is_private_anonymous(v)) {
        return Plan::Refuse;
    }
    // The calling thread's stack, and any mapping right above a guard page (how thread stacks
    // are laid out), are never moved.
    if covering
        .iter()
        .any(|(_, v)| v.start <= stack_probe && stack_probe < v.end)
    {
        return Plan::Refuse;
    }
    let below_guard = first_index
        .checked_sub(1)
        .and_then(|i| maps.get(i))
        .is_some_and(|p| p.end == first.start && p.perms == "---p");
    if below_guard {
        return Plan::Refuse;
    }
    Plan::Move
}

/// Makes an alias of the whole pages around `[ptr, ptr+size)`, or `None` when that memory must
/// not be moved (see the module documentation).
pub fn create(ptr: u64, size: u64) -> Option<Alias> {
    let page = PAGE_SIZE as u64;
    let start = ptr / page * page;
    let end = ptr.checked_add(size)?.checked_next_multiple_of(page)?;
    let len = end - start;
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    let probe = 0u8;
    let stack_probe = std::ptr::addr_of!(probe) as u64;
    match plan(&parse_maps(&maps), start, end, stack_probe) {
        Plan::Refuse => None,
        Plan::Remap => {
            // SAFETY: `[start, end)` lies in one writable shared mapping (checked above);
            // `old_size = 0` creates a new mapping of the same pages and leaves the old one.
            let p = unsafe {
                libc::mremap(
                    start as *mut libc::c_void,
                    0,
                    len as usize,
                    libc::MREMAP_MAYMOVE,
                )
            };
            (p != libc::MAP_FAILED).then_some(Alias {
                host: start,
                len,
                alias: p as u64,
            })
        }
        Plan::Move => move_onto_memfd(start, len),
    }
}

fn move_onto_memfd(start: u64, len: u64) -> Option<Alias> {
    let ulen = usize::try_from(len).ok()?;
    // SAFETY: creates a new anonymous file; the name is a valid C string.
    let fd = unsafe { libc::memfd_create(MEMFD_NAME.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    let close = |fd| {
        // SAFETY: `fd` is the memfd this function opened.
        unsafe { libc::close(fd) };
    };
    // SAFETY: sizing the file this function owns.
    if unsafe { libc::ftruncate(fd, len as libc::off_t) } != 0 {
        close(fd);
        return None;
    }
    // SAFETY: a new shared mapping of the memfd at an address the kernel chooses.
    let alias = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            ulen,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    if alias == libc::MAP_FAILED {
        close(fd);
        return None;
    }
    // SAFETY: `[start, start+len)` is readable private memory of this process (checked against
    // /proc/self/maps by the caller) and `alias` is a fresh writable mapping of the same length.
    unsafe { std::ptr::copy_nonoverlapping(start as *const u8, alias as *mut u8, ulen) };
    // SAFETY: replaces the pages of `[start, start+len)` by the memfd, which now holds the same
    // bytes; the range was private anonymous memory, so no file or other mapping is affected.
    let moved = unsafe {
        libc::mmap(
            start as *mut libc::c_void,
            ulen,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_FIXED,
            fd,
            0,
        )
    };
    close(fd);
    if moved == libc::MAP_FAILED {
        // SAFETY: `alias` is the mapping made above.
        unsafe { libc::munmap(alias, ulen) };
        return None;
    }
    Some(Alias {
        host: start,
        len,
        alias: alias as u64,
    })
}

/// A snapshot of the process's mappings.
pub struct Maps(pub Vec<Vma>);

impl Maps {
    /// Reads `/proc/self/maps` (empty when it cannot be read: nothing is then valid).
    pub fn read() -> Maps {
        Maps(
            std::fs::read_to_string("/proc/self/maps")
                .map_or_else(|_| Vec::new(), |t| parse_maps(&t)),
        )
    }
}

/// Whether the host pages of `a` are still the memfd pages `a.alias` maps (false once the
/// application unmapped or replaced them, e.g. `free` of a large `malloc` chunk).
pub fn still_valid(a: &Alias, maps: &Maps) -> bool {
    let maps = &maps.0;
    let find = |addr: u64| {
        maps.iter()
            .find(|v| v.start <= addr && addr < v.end)
            .cloned()
    };
    match (find(a.host), find(a.alias)) {
        (Some(h), Some(al)) => {
            is_shared_writable(&h)
                && is_shared_writable(&al)
                && h.inode == al.inode
                && h.end >= a.host + a.len
        }
        _ => false,
    }
}
