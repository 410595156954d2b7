//! System-allocated memory under XNACK/HMM: what kernels may reach outside registered ranges.
//!
//! On a GPU with XNACK on and a kernel driver with HMM (ROCr's `HSA_XNACK=1` on MI200), the GPU
//! shares the process's page tables: a kernel may load and store any page the process has
//! mapped (plain `malloc` and `mmap` memory), and a page that is not mapped is a GPU page fault.
//! hsaemu models that with a snapshot of `/proc/self/maps`: an access outside every registered
//! range is allowed when the snapshot shows it inside an anonymous mapping (heap, stack,
//! `MAP_ANONYMOUS`) with the permission it needs, and refused (a fault on the queue) otherwise.
//! File-backed and special mappings (`[vvar]`, `[vdso]`, shared memory files) are never reached
//! this way: a page of a file past its end raises SIGBUS, which would crash the host.
//!
//! The snapshot is re-read when an access misses it and at the first check of each dispatch
//! (see [`SystemMemory::dispatch_started`]), so it never serves a mapping removed before the
//! dispatch began. What it cannot see is the host unmapping memory while a kernel is using it:
//! registered ranges are protected by the map's epochs, system memory is not (the same program
//! on hardware gets a GPU page fault; here it may crash). docs/status-runtime.md says so.

use parking_lot::RwLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// One anonymous mapping (adjacent mappings with the same permission merged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mapping {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) writable: bool,
}

/// The switch and the snapshot.
#[derive(Debug, Default)]
pub(crate) struct SystemMemory {
    enabled: AtomicBool,
    /// Dispatches started (plus switches): a snapshot read before the current value may
    /// predate an unmap that a starting dispatch must see.
    epoch: AtomicU64,
    /// The mappings, and the epoch read just before they were.
    snapshot: RwLock<(u64, Vec<Mapping>)>,
}

impl SystemMemory {
    pub(crate) fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Release);
        self.epoch.fetch_add(1, Ordering::AcqRel);
    }

    pub(crate) fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }

    /// A dispatch starts: the snapshot must be re-read before it serves this dispatch.
    /// Returns whether a snapshot existed (so cached regions taken from it must be dropped).
    pub(crate) fn dispatch_started(&self) -> bool {
        if !self.enabled() {
            return false;
        }
        self.epoch.fetch_add(1, Ordering::AcqRel);
        !self.snapshot.read().1.is_empty()
    }

    /// The mapping that holds all of `[addr, addr+len)`, re-reading `/proc/self/maps` when the
    /// snapshot is stale or misses. `None` when disabled or not mapped.
    pub(crate) fn mapping(&self, addr: u64, len: u64) -> Option<Mapping> {
        if !self.enabled() {
            return None;
        }
        let end = addr.checked_add(len)?;
        let epoch = self.epoch.load(Ordering::Acquire);
        {
            let snap = self.snapshot.read();
            if snap.0 == epoch {
                if let Some(m) = find(&snap.1, addr, end) {
                    return Some(m);
                }
            }
        }
        // Read after `epoch`: it sees every unmap done before a dispatch counted in it began.
        let fresh = read_self_maps()?;
        let hit = find(&fresh, addr, end);
        let mut snap = self.snapshot.write();
        if snap.0 <= epoch {
            *snap = (epoch, fresh);
        }
        hit
    }

    /// The mapping holding `addr` in the current snapshot, without re-reading it.
    pub(crate) fn cached(&self, addr: u64) -> Option<Mapping> {
        if !self.enabled() {
            return None;
        }
        find(&self.snapshot.read().1, addr, addr.checked_add(1)?)
    }
}

fn find(maps: &[Mapping], addr: u64, end: u64) -> Option<Mapping> {
    let i = maps.partition_point(|m| m.end <= addr);
    maps.get(i)
        .copied()
        .filter(|m| m.start <= addr && end <= m.end)
}

fn read_self_maps() -> Option<Vec<Mapping>> {
    let text = std::fs::read_to_string("/proc/self/maps").ok()?;
    Some(parse_maps(&text))
}

/// The readable anonymous mappings of a `/proc/PID/maps` text, sorted and merged.
pub(crate) fn parse_maps(text: &str) -> Vec<Mapping> {
    let mut out: Vec<Mapping> = Vec::new();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let (Some(range), Some(perms), Some(_off), Some(_dev), Some(inode)) =
            (f.next(), f.next(), f.next(), f.next(), f.next())
        else {
            continue;
        };
        let path = f.collect::<Vec<_>>().join(" ");
        let anonymous = inode == "0"
            && (path.is_empty()
                || path == "[heap]"
                || path == "[stack]"
                || path.starts_with("[anon:")
                || path.starts_with("[stack:"));
        let p = perms.as_bytes();
        if !anonymous || p.first() != Some(&b'r') {
            continue;
        }
        let Some((s, e)) = range.split_once('-') else {
            continue;
        };
        let (Ok(start), Ok(end)) = (u64::from_str_radix(s, 16), u64::from_str_radix(e, 16)) else {
            continue;
        };
        let writable = p.get(1) == Some(&b'w');
        match out.last_mut() {
            Some(last) if last.end == start && last.writable == writable => last.end = end,
            _ if start < end => out.push(Mapping {
                start,
                end,
                writable,
            }),
            _ => {}
        }
    }
    out.sort_by_key(|m| m.start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_readable_anonymous_mappings_count() {
        let text = "\
00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/dbus-daemon
00e03000-00e24000 rw-p 00000000 00:00 0 [heap]
00e24000-00e30000 rw-p 00000000 00:00 0
7f0000000000-7f0000001000 ---p 00000000 00:00 0
7f0000001000-7f0000002000 r--p 00000000 00:00 0
7f0000003000-7f0000004000 rw-s 00000000 00:01 1234 /dev/shm/x
7ffd10000000-7ffd10003000 r--p 00000000 00:00 0 [vvar]
7ffe00000000-7ffe00010000 rw-p 00000000 00:00 0 [stack]
";
        let m = parse_maps(text);
        assert_eq!(
            m,
            vec![
                Mapping {
                    start: 0xe03000,
                    end: 0xe30000,
                    writable: true
                },
                Mapping {
                    start: 0x7f0000001000,
                    end: 0x7f0000002000,
                    writable: false
                },
                Mapping {
                    start: 0x7ffe00000000,
                    end: 0x7ffe00010000,
                    writable: true
                },
            ]
        );
        assert_eq!(
            find(&m, 0xe2fffc, 0xe30000).map(|m| m.start),
            Some(0xe03000)
        );
        assert_eq!(find(&m, 0xe2fffc, 0xe30001), None);
        assert_eq!(find(&m, 0x400000, 0x400004), None);
        assert_eq!(find(&m, 0x7f0000000000, 0x7f0000000004), None);
    }

    #[test]
    fn a_live_malloc_is_found_and_a_freed_mmap_is_not() {
        let s = SystemMemory::default();
        let v = vec![7u64; 1 << 16];
        let a = v.as_ptr() as u64;
        assert_eq!(s.mapping(a, 8), None, "disabled by default");
        s.set_enabled(true);
        let m = s.mapping(a, 8 << 16).expect("heap mapping");
        assert!(m.writable);
        assert!(s.mapping(0x10, 4).is_none(), "page zero is never mapped");
        drop(v);
    }

    #[test]
    fn a_dispatch_never_trusts_a_snapshot_older_than_itself() {
        const LEN: usize = 1 << 16;
        let s = SystemMemory::default();
        s.set_enabled(true);
        // SAFETY: a fresh anonymous mapping, unmapped below and never dereferenced here.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                LEN,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        let a = p as u64;
        assert!(s.mapping(a, 8).is_some_and(|m| m.writable));
        // SAFETY: unmaps exactly the mapping made above.
        assert_eq!(unsafe { libc::munmap(p, LEN) }, 0);
        // Without a new dispatch the cached snapshot still answers (the documented window)...
        assert!(s.cached(a).is_some());
        // ...but a dispatch that starts now re-reads it.
        assert!(s.dispatch_started());
        assert_eq!(s.mapping(a, 8), None);
        // A PROT_NONE reservation is mapped, yet never reachable.
        // SAFETY: as above.
        let q = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                LEN,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(q, libc::MAP_FAILED);
        assert_eq!(s.mapping(q as u64, 8), None);
        // SAFETY: unmaps the reservation made above.
        assert_eq!(unsafe { libc::munmap(q, LEN) }, 0);
    }
}
