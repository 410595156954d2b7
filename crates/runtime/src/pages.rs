//! Whole pages of host memory from `mmap`, for everything the runtime hands to kernels (pool
//! allocations, signals, queue rings and `amd_queue_t`s). Keeping them out of the C heap means
//! an application's locked or registered heap ranges — ROCclr locks page-rounded ranges around
//! its buffers — never overlap runtime objects in the emulator's memory map.

use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::error::{HsaError, Result};

/// The host page size.
pub const PAGE_SIZE: usize = 4096;

/// Zeroed, page-aligned memory, unmapped on drop.
#[derive(Debug)]
pub struct Pages {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain memory owned by this value; sharing its address is the point
// (kernels and application threads access it with their own synchronisation).
unsafe impl Send for Pages {}
// SAFETY: see `Send`; `Pages` itself exposes only the address and length.
unsafe impl Sync for Pages {}

impl Pages {
    /// Maps `len` bytes (rounded up to whole pages), zeroed.
    pub fn new(len: usize) -> Result<Pages> {
        let len = len
            .max(1)
            .checked_next_multiple_of(PAGE_SIZE)
            .ok_or(HsaError::OutOfResources)?;
        // SAFETY: an anonymous private mapping with no address hint touches no existing memory.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(HsaError::OutOfResources);
        }
        let ptr = NonNull::new(p as *mut u8).ok_or(HsaError::OutOfResources)?;
        Ok(Pages { ptr, len })
    }
    /// Takes ownership of an existing mapping (unmapped on drop).
    ///
    /// # Safety
    /// `[addr, addr+len)` must be a page-aligned mapping that nothing else owns or unmaps.
    pub unsafe fn from_mapping(addr: u64, len: usize) -> Pages {
        Pages {
            // SAFETY: a mapping is never at address 0 (guaranteed by the caller's mapping).
            ptr: unsafe { NonNull::new_unchecked(addr as *mut u8) },
            len,
        }
    }
    /// The first byte.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
    /// The address of the first byte.
    pub fn addr(&self) -> u64 {
        self.ptr.as_ptr() as u64
    }
    /// The mapped length (whole pages).
    pub fn len(&self) -> usize {
        self.len
    }
    /// Always false: at least one page is mapped.
    pub fn is_empty(&self) -> bool {
        false
    }
}

impl Drop for Pages {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` describe the mapping made in `new`, unmapped exactly once here.
        unsafe { libc::munmap(self.ptr.as_ptr() as *mut libc::c_void, self.len) };
    }
}

/// Address space of freed allocations kept reserved (inaccessible, no memory behind it) so
/// that new allocations do not reuse it at once and a late access by a kernel is reported as
/// a use after free. The oldest reservations are released beyond this much.
const TOMBSTONE_BYTES: usize = 64 << 30;

/// Freed pages on their way out. Dropping it (when no dispatch can reach the range any more)
/// replaces the memory by an inaccessible reservation of the same addresses, released later
/// (first in, first out, beyond [`TOMBSTONE_BYTES`]).
#[derive(Debug)]
pub struct Tombstone(Option<Pages>);

impl From<Pages> for Tombstone {
    fn from(p: Pages) -> Self {
        Tombstone(Some(p))
    }
}

impl Drop for Tombstone {
    fn drop(&mut self) {
        let Some(p) = self.0.take() else { return };
        // SAFETY: `p` owns this mapping; replacing it in place (MAP_FIXED) with an
        // inaccessible one releases its memory and keeps the addresses ours. No Rust reference
        // into it exists (kernels reach it only through checked accesses, and it has left the
        // memory map before this runs).
        let r = unsafe {
            libc::mmap(
                p.as_ptr() as *mut libc::c_void,
                p.len(),
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if r == libc::MAP_FAILED {
            return; // `p` unmaps it
        }
        static RESERVED: std::sync::Mutex<(std::collections::VecDeque<Pages>, usize)> =
            std::sync::Mutex::new((std::collections::VecDeque::new(), 0));
        let released = {
            let mut g = RESERVED.lock().unwrap_or_else(|e| e.into_inner());
            g.1 += p.len();
            g.0.push_back(p);
            let mut out = Vec::new();
            while g.1 > TOMBSTONE_BYTES {
                match g.0.pop_front() {
                    Some(old) => {
                        g.1 -= old.len();
                        out.push(old);
                    }
                    None => break,
                }
            }
            out
        };
        drop(released); // unmapped outside the lock
    }
}

/// A `T` living at the start of its own pages.
#[derive(Debug)]
pub struct PageBox<T> {
    pages: Pages,
    _t: PhantomData<T>,
}

impl<T> PageBox<T> {
    /// Moves `value` into fresh pages.
    pub fn new(value: T) -> Result<PageBox<T>> {
        Ok(Self::in_pages(Pages::new(std::mem::size_of::<T>())?, value))
    }
    /// A `T` that already lives at the start of `pages` (memory shared with another process).
    ///
    /// # Safety
    /// `pages` must be large enough for a `T` and hold a valid `T` at its start.
    pub unsafe fn from_pages(pages: Pages) -> PageBox<T> {
        PageBox {
            pages,
            _t: PhantomData,
        }
    }
    /// Moves `value` into the start of `pages`.
    pub fn in_pages(pages: Pages, value: T) -> PageBox<T> {
        const { assert!(std::mem::align_of::<T>() <= PAGE_SIZE) };
        assert!(pages.len() >= std::mem::size_of::<T>());
        // SAFETY: the mapping is large enough (checked) and page-aligned; we own it.
        unsafe { std::ptr::write(pages.as_ptr() as *mut T, value) };
        PageBox {
            pages,
            _t: PhantomData,
        }
    }
    /// The address of the value.
    pub fn addr(&self) -> u64 {
        self.pages.addr()
    }
    /// The bytes mapped for it.
    pub fn mapped_len(&self) -> usize {
        self.pages.len()
    }
}

impl<T> std::ops::Deref for PageBox<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: `new` wrote a valid `T` at the start of the pages, which live as long as
        // `self`; only shared references are handed out.
        unsafe { &*(self.pages.as_ptr() as *const T) }
    }
}

impl<T> Drop for PageBox<T> {
    fn drop(&mut self) {
        // SAFETY: the `T` written in `new` is dropped exactly once, before the pages go.
        unsafe { std::ptr::drop_in_place(self.pages.as_ptr() as *mut T) };
    }
}

// SAFETY: a `PageBox<T>` owns its `T` like a `Box<T>`.
unsafe impl<T: Send> Send for PageBox<T> {}
// SAFETY: as for `Box<T>`: shared access only yields `&T`.
unsafe impl<T: Sync> Sync for PageBox<T> {}
