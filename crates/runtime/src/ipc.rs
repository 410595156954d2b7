//! Sharing memory between processes on one host (`hsa_amd_ipc_memory_*`, IPC signals).
//!
//! ROCm shares GPU buffers through the kernel driver; hsaemu's device memory is host memory,
//! so it shares it the way host memory is shared: through a `memfd`. Exporting an allocation
//! copies its bytes into a fresh memfd and maps the memfd over the allocation in place
//! (`MAP_FIXED`, same address, same contents), so the exporter keeps its pointer. The 32-byte
//! handle names the exporter's process, the memfd's descriptor there and a random token that
//! is part of the memfd's name; an importer opens `/proc/<pid>/fd/<fd>`, checks the token
//! (descriptor numbers are reused) and maps the file. Importers need the same user as the
//! exporter, as they would need access to the same GPU device files under ROCm.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use crate::error::{HsaError, Result};
use crate::pages::{Pages, PAGE_SIZE};

/// Marks a handle made by hsaemu (`"HSAE"`).
const MAGIC: u32 = u32::from_le_bytes(*b"HSAE");

/// The contents of an `hsa_amd_ipc_memory_t` / `hsa_amd_ipc_signal_t` (8 × `uint32_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpcHandle {
    /// The exporting process.
    pub pid: u32,
    /// The memfd's descriptor in the exporting process.
    pub fd: u32,
    /// A random number, part of the memfd's name.
    pub token: u64,
    /// Bytes shared (whole pages).
    pub len: u64,
}

impl IpcHandle {
    /// The handle as the C structure's eight words.
    pub fn to_words(self) -> [u32; 8] {
        [
            MAGIC,
            self.pid,
            self.fd,
            self.token as u32,
            (self.token >> 32) as u32,
            self.len as u32,
            (self.len >> 32) as u32,
            0,
        ]
    }

    /// Reads a handle; `InvalidArgument` if it was not made by hsaemu.
    pub fn from_words(w: [u32; 8]) -> Result<IpcHandle> {
        if w[0] != MAGIC || w[7] != 0 {
            return Err(HsaError::InvalidArgument);
        }
        Ok(IpcHandle {
            pid: w[1],
            fd: w[2],
            token: u64::from(w[3]) | u64::from(w[4]) << 32,
            len: u64::from(w[5]) | u64::from(w[6]) << 32,
        })
    }
}

/// An exported range: the memfd behind it stays open while the export lives.
#[derive(Debug)]
pub struct Export {
    fd: OwnedFd,
    token: u64,
    len: u64,
}

impl Export {
    /// The handle other processes attach with.
    pub fn handle(&self) -> IpcHandle {
        IpcHandle {
            // SAFETY: getpid has no preconditions.
            pid: unsafe { libc::getpid() } as u32,
            fd: self.fd.as_raw_fd() as u32,
            token: self.token,
            len: self.len,
        }
    }
}

fn memfd_name(token: u64) -> String {
    format!("hsaemu-ipc-{token:016x}")
}

fn random_token() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(crate::signal::timestamp_ns());
    h.finish()
}

/// A new memfd of `len` bytes (zeroed).
fn new_memfd(len: u64) -> Result<(OwnedFd, u64)> {
    let token = random_token();
    let name = CString::new(memfd_name(token)).map_err(|_| HsaError::OutOfResources)?;
    // SAFETY: `name` is a valid C string; the flags are constants.
    let raw = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
    if raw < 0 {
        return Err(HsaError::OutOfResources);
    }
    // SAFETY: `raw` is a descriptor we just opened and own.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let size = libc::off_t::try_from(len).map_err(|_| HsaError::OutOfResources)?;
    // SAFETY: `fd` is a valid memfd.
    if unsafe { libc::ftruncate(fd.as_raw_fd(), size) } != 0 {
        return Err(HsaError::OutOfResources);
    }
    Ok((fd, token))
}

/// Maps `len` bytes of `fd` shared, at `fixed` (replacing what is there) or anywhere.
fn map_shared(fd: &OwnedFd, len: usize, fixed: Option<u64>) -> Result<u64> {
    let (hint, flags) = match fixed {
        Some(a) => (a as *mut libc::c_void, libc::MAP_SHARED | libc::MAP_FIXED),
        None => (std::ptr::null_mut(), libc::MAP_SHARED),
    };
    // SAFETY: a shared mapping of our own file; with MAP_FIXED the caller owns the range being
    // replaced (see `export_in_place`).
    let p = unsafe {
        libc::mmap(
            hint,
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            flags,
            fd.as_raw_fd(),
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(HsaError::OutOfResources);
    }
    Ok(p as u64)
}

/// Exports the whole pages `[base, base+len)`, which the caller owns as one mapping (a pool
/// allocation): their contents move into a memfd mapped at the same address.
///
/// # Safety
/// `[base, base+len)` must be a page-aligned mapping owned by the caller. Writes to it by other
/// threads while this runs may be lost.
pub unsafe fn export_in_place(base: u64, len: u64) -> Result<Export> {
    let (fd, token) = new_memfd(len)?;
    let n = usize::try_from(len).map_err(|_| HsaError::OutOfResources)?;
    // SAFETY: the caller owns `n` readable bytes at `base`; `fd` is a file of `n` bytes.
    let written = unsafe { libc::pwrite(fd.as_raw_fd(), base as *const libc::c_void, n, 0) };
    if written != n as isize {
        return Err(HsaError::OutOfResources);
    }
    map_shared(&fd, n, Some(base))?;
    Ok(Export { fd, token, len })
}

/// New shared pages of `len` bytes (zeroed) and their export (for IPC signals).
pub fn new_shared(len: usize) -> Result<(Pages, Export)> {
    let len = len.max(1).next_multiple_of(PAGE_SIZE);
    let (fd, token) = new_memfd(len as u64)?;
    let addr = map_shared(&fd, len, None)?;
    // SAFETY: `addr` is a fresh mapping of `len` bytes that nothing else owns.
    let pages = unsafe { Pages::from_mapping(addr, len) };
    Ok((
        pages,
        Export {
            fd,
            token,
            len: len as u64,
        },
    ))
}

/// Maps the memory another process (or this one) exported. `len` 0 maps all of it; a larger
/// `len` than was shared is `InvalidArgument`, as is a handle whose memory is gone.
pub fn attach(h: IpcHandle, len: u64) -> Result<Pages> {
    if len > h.len {
        return Err(HsaError::InvalidArgument);
    }
    let path = format!("/proc/{}/fd/{}", h.pid, h.fd);
    let target = std::fs::read_link(&path).map_err(|_| HsaError::InvalidArgument)?;
    if !target.to_string_lossy().contains(&memfd_name(h.token)) {
        return Err(HsaError::InvalidArgument);
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|_| HsaError::InvalidArgument)?;
    let fd = OwnedFd::from(file);
    let n = usize::try_from(h.len).map_err(|_| HsaError::OutOfResources)?;
    let addr = map_shared(&fd, n, None)?;
    // SAFETY: `addr` is a fresh mapping of `n` bytes that nothing else owns; the mapping keeps
    // the file alive after `fd` closes.
    Ok(unsafe { Pages::from_mapping(addr, n) })
}
