//! Native blits: ROCclr's buffer fill and copy kernels (`hipMemset`, `hipMemcpyDtoD`, …) run
//! as host copies instead of being interpreted lane by lane.
//!
//! HIP 5.2 compiles its blit kernels with comgr when it creates its first queue: one-line
//! OpenCL wrappers (`__amd_rocclr_fillBufferAligned`, `__amd_rocclr_copyBuffer`,
//! `__amd_rocclr_copyBufferAligned`, …) around the device library's `__amd_fillBufferAligned`,
//! `__amd_copyBuffer` and `__amd_copyBufferAligned` (ROCm-Device-Libs
//! `opencl/src/misc/amdblit.cl`; the semantics below follow the 5.2.3 `opencl.bc` Debian
//! ships). Interpreted, they move about 0.2 GB/s.
//!
//! A kernel is recognised when it is loaded, by its name *and* its metadata: the explicit
//! arguments must have exactly the offsets, sizes and kinds of the expected signature, and
//! the kernel must use no LDS and no scratch. The dispatch then computes what the whole grid
//! would write (the ids `get_global_id(0)` takes, each work-item's guard and edge handling)
//! and performs it with one checked host copy. Whenever anything is not as expected (a
//! 2D/3D grid, `--check`, wave tracing, an argument range that wraps, a range outside one
//! registered region or without the needed permission, source and destination that overlap,
//! `HSAEMU_JIT=0`) the dispatch is interpreted instead, so a bad pointer faults with the
//! interpreter's exact report (kernel, PC, lane, address) and overlapping ranges get the
//! interpreter's order.

use crate::gpu::{Dispatch, DispatchStats, Gpu};
use crate::memory::{host, RegionCache};
use hsaemu_codeobject::metadata::{Kernel, ValueKind};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Bytes each host thread copies at a time when a blit is split over the GPU's threads.
const CHUNK: u64 = 4 << 20;

/// The blit kernels with a native form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlitKind {
    /// `fillBufferAligned(uchar*, ushort*, uint*, ulong*, constant uchar* pattern,
    /// uint patternSize, ulong offset, ulong size)`.
    FillAligned,
    /// `copyBuffer(uchar* src, uchar* dst, ulong srcOrigin, ulong dstOrigin, ulong size,
    /// uint remain)`.
    Copy,
    /// `copyBufferAligned(uint* src, uint* dst, ulong srcOrigin, ulong dstOrigin, ulong size,
    /// uint alignment)`.
    CopyAligned,
}

/// A recognised blit kernel: its kind and where its hidden global offset lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Blit {
    pub(crate) kind: BlitKind,
    /// Kernarg offset of `hidden_global_offset_x` (what `get_global_id(0)` adds), if the
    /// kernel has one.
    global_offset: Option<u32>,
    /// Bytes of kernarg segment the native path reads.
    kernarg_len: u32,
}

/// An explicit argument: pointer (global buffer) or value, with its size.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arg {
    Ptr,
    Val(u32),
}

const FILL_ALIGNED: &[Arg] = &[
    Arg::Ptr,
    Arg::Ptr,
    Arg::Ptr,
    Arg::Ptr,
    Arg::Ptr,
    Arg::Val(4),
    Arg::Val(8),
    Arg::Val(8),
];
const COPY: &[Arg] = &[
    Arg::Ptr,
    Arg::Ptr,
    Arg::Val(8),
    Arg::Val(8),
    Arg::Val(8),
    Arg::Val(4),
];

/// The native form of kernel `name` described by `meta`, if it is one of ROCclr's blit
/// kernels with the expected argument layout.
pub(crate) fn recognise(name: &str, meta: &Kernel) -> Option<Blit> {
    let (kind, layout) = match name {
        "__amd_rocclr_fillBufferAligned" => (BlitKind::FillAligned, FILL_ALIGNED),
        "__amd_rocclr_copyBuffer" => (BlitKind::Copy, COPY),
        "__amd_rocclr_copyBufferAligned" => (BlitKind::CopyAligned, COPY),
        _ => return None,
    };
    if meta.group_segment_fixed_size != 0 || meta.private_segment_fixed_size != 0 {
        return None;
    }
    let explicit: Vec<_> = meta
        .args
        .iter()
        .filter(|a| !a.value_kind.is_hidden())
        .collect();
    if explicit.len() != layout.len() {
        return None;
    }
    // C layout: each argument at the next multiple of its size.
    let mut offset = 0u32;
    for (a, want) in explicit.iter().zip(layout) {
        let (size, kind_ok) = match want {
            Arg::Ptr => (8, a.value_kind == ValueKind::GlobalBuffer),
            Arg::Val(n) => (*n, a.value_kind == ValueKind::ByValue),
        };
        offset = offset.next_multiple_of(size);
        if !kind_ok || a.size != size || a.offset != offset {
            return None;
        }
        offset += size;
    }
    let global_offset = meta
        .args
        .iter()
        .find(|a| a.value_kind == ValueKind::HiddenGlobalOffsetX && a.size == 8)
        .map(|a| a.offset);
    let kernarg_len = global_offset.map_or(offset, |g| offset.max(g + 8));
    Some(Blit {
        kind,
        global_offset,
        kernarg_len,
    })
}

/// Whether native blits are on: unless `HSAEMU_JIT=0` (read once).
pub(crate) fn enabled_by_env() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("HSAEMU_JIT").map_or(true, |v| v.trim() != "0"))
}

/// One host copy the whole grid amounts to.
enum Plan {
    /// Nothing: no work-item passes the guard (or the pattern is empty).
    Nothing,
    /// `len` bytes from `src` to `dst`.
    Copy { src: u64, dst: u64, len: u64 },
    /// `len` bytes at `dst`: the `pattern_len` bytes at `pattern` repeated.
    Fill {
        pattern: u64,
        pattern_len: u64,
        dst: u64,
        len: u64,
    },
}

/// Runs dispatch `d` of blit kernel `b` (its grid has `workgroups` work-groups of
/// `waves_per_wg` waves) natively, or returns `None` when it must be
/// interpreted (see the module comment). Nothing has been written when it returns `None`
/// (unless a host copy panicked, an emulator bug: interpreting then writes everything again).
pub(crate) fn run(
    gpu: &Gpu,
    d: &Dispatch,
    b: &Blit,
    (workgroups, waves_per_wg): (u64, u32),
) -> Option<DispatchStats> {
    if cfg!(any(
        feature = "slow-host-stores",
        feature = "split-64bit-accesses"
    )) || crate::check::active().is_some()
        || std::env::var_os("HSAEMU_TRACE_WAVE").is_some()
        || d.grid_size[1] != 1
        || d.grid_size[2] != 1
    {
        return None;
    }
    let start = Instant::now();
    let mem = &*gpu.mem;
    let mut cache = RegionCache::default();
    let ka = d.kernarg_address;
    if !cache.check(mem, ka, u64::from(b.kernarg_len), false) {
        return None;
    }
    let u64_at = |off: u32| host::load(ka + u64::from(off), 8);
    let u32_at = |off: u32| host::load(ka + u64::from(off), 4);
    let global_offset = b.global_offset.map_or(0, u64_at);
    // get_global_id(0) takes global_offset + x for x in 0..grid_x.
    let first = global_offset;
    let end = global_offset.checked_add(u64::from(d.grid_size[0]))?;
    let plan = match b.kind {
        BlitKind::FillAligned => fill_aligned(first, end, &u64_at, &u32_at)?,
        BlitKind::Copy => copy(first, end, &u64_at, &u32_at)?,
        BlitKind::CopyAligned => copy_aligned(first, end, &u64_at, &u32_at)?,
    };
    let threads = match plan {
        Plan::Nothing => 1,
        Plan::Copy { src, dst, len } => {
            if !cache.check(mem, src, len, false)
                || !cache.check(mem, dst, len, true)
                || overlap(src, dst, len, len)
            {
                return None;
            }
            // (A call that panicked left its part unwritten: interpreting writes it all.)
            in_parallel(gpu, len, CHUNK, move |at, n| {
                host::copy(dst + at, src + at, n)
            })?
        }
        Plan::Fill {
            pattern,
            pattern_len,
            dst,
            len,
        } => {
            if !cache.check(mem, pattern, pattern_len, false)
                || !cache.check(mem, dst, len, true)
                || overlap(pattern, dst, pattern_len, len)
            {
                return None;
            }
            let pattern = Arc::new(host::read_bytes(pattern, pattern_len));
            // Chunks of whole patterns, so each starts with the pattern's first byte.
            let chunk = CHUNK.div_ceil(pattern_len) * pattern_len;
            in_parallel(gpu, len, chunk, move |at, n| {
                host::fill(dst + at, n, &pattern)
            })?
        }
    };
    Some(DispatchStats {
        workgroups,
        waves: workgroups * u64::from(waves_per_wg),
        wave_instructions: 0,
        lane_ops: 0,
        threads,
        elapsed: start.elapsed(),
    })
}

/// Calls `part(at, n)` over `[0, len)` in pieces of `chunk` bytes, on this thread and the
/// GPU's pool threads. Returns the threads that took part, or `None` when a call panicked.
fn in_parallel(
    gpu: &Gpu,
    len: u64,
    chunk: u64,
    part: impl Fn(u64, u64) + Send + Sync + 'static,
) -> Option<usize> {
    let helpers = (len / chunk).min(gpu.threads as u64).saturating_sub(1) as usize;
    // A fixed schedule (`--deterministic`, captures) keeps a dispatch on its caller's thread.
    if helpers == 0 || gpu.deterministic() || crate::capture::enabled() {
        part(0, len);
        return Some(1);
    }
    let next = Arc::new(AtomicU64::new(0));
    let threads = Arc::new(AtomicUsize::new(0));
    let (n, t) = (next.clone(), threads.clone());
    let ok = gpu.pool().run(
        helpers,
        Arc::new(move |_| {
            t.fetch_add(1, Ordering::Relaxed);
            loop {
                let at = n.fetch_add(chunk, Ordering::Relaxed);
                if at >= len {
                    break;
                }
                part(at, chunk.min(len - at));
            }
        }),
    );
    ok.then(|| threads.load(Ordering::Relaxed))
}

/// Whether `[a, a+alen)` and `[b, b+blen)` share a byte.
fn overlap(a: u64, b: u64, alen: u64, blen: u64) -> bool {
    alen > 0 && blen > 0 && a < b.saturating_add(blen) && b < a.saturating_add(alen)
}

/// The ids in `[first, end)` that pass `id < size`.
fn guarded(first: u64, end: u64, size: u64) -> Option<(u64, u64)> {
    let end = end.min(size);
    (first < end).then_some((first, end))
}

/// `base + scale * index` without wrapping.
fn at(base: u64, scale: u64, index: u64) -> Option<u64> {
    base.checked_add(scale.checked_mul(index)?)
}

/// `fillBufferAligned`: work-item `id < size` stores `patternSize` elements of the first
/// non-null buffer among (ulong, uint, ushort, uchar) at element `offset + id * patternSize`,
/// element `i` being the pattern's element `i`. Together: the pattern repeated over the
/// elements `offset + first * patternSize ..` for every passing id.
fn fill_aligned(
    first: u64,
    end: u64,
    u64_at: &impl Fn(u32) -> u64,
    u32_at: &impl Fn(u32) -> u64,
) -> Option<Plan> {
    let (buf_u8, buf_u16, buf_u32, buf_u64) = (u64_at(0), u64_at(8), u64_at(16), u64_at(24));
    let (pattern, pattern_size, offset, size) = (u64_at(32), u32_at(40), u64_at(48), u64_at(56));
    let Some((lo, hi)) = guarded(first, end, size) else {
        return Some(Plan::Nothing);
    };
    if pattern_size == 0 {
        return Some(Plan::Nothing);
    }
    let (buf, width) = if buf_u64 != 0 {
        (buf_u64, 8)
    } else if buf_u32 != 0 {
        (buf_u32, 4)
    } else if buf_u16 != 0 {
        (buf_u16, 2)
    } else {
        (buf_u8, 1)
    };
    let first_element = offset.checked_add(lo.checked_mul(pattern_size)?)?;
    let elements = (hi - lo).checked_mul(pattern_size)?;
    let dst = at(buf, width, first_element)?;
    let len = elements.checked_mul(width)?;
    dst.checked_add(len)?;
    Some(Plan::Fill {
        pattern,
        pattern_len: pattern_size * width,
        dst,
        len,
    })
}

/// `copyBuffer` over `src + srcOrigin` and `dst + dstOrigin`: with `remain == 8` work-item
/// `id` copies byte `id`; otherwise ids below `size - 1` copy the dword at byte `4 * id` and
/// id `size - 1` copies `remain` bytes from byte `4 * id`. Together: one contiguous range.
fn copy(
    first: u64,
    end: u64,
    u64_at: &impl Fn(u32) -> u64,
    u32_at: &impl Fn(u32) -> u64,
) -> Option<Plan> {
    let src = u64_at(0).wrapping_add(u64_at(16));
    let dst = u64_at(8).wrapping_add(u64_at(24));
    let (size, remain) = (u64_at(32), u32_at(40));
    let Some((lo, hi)) = guarded(first, end, size) else {
        return Some(Plan::Nothing);
    };
    let (from, to) = if remain == 8 {
        (lo, hi)
    } else if hi < size {
        // The last work-item (the tail) is not in the grid.
        (lo.checked_mul(4)?, hi.checked_mul(4)?)
    } else {
        (
            (lo.checked_mul(4)?),
            (size - 1).checked_mul(4)?.checked_add(remain)?,
        )
    };
    let len = to.saturating_sub(from);
    if len == 0 {
        return Some(Plan::Nothing);
    }
    let (src, dst) = (src.checked_add(from)?, dst.checked_add(from)?);
    src.checked_add(len)?;
    dst.checked_add(len)?;
    Some(Plan::Copy { src, dst, len })
}

/// `copyBufferAligned`: work-item `id` copies element `id + srcOrigin` of `src` to element
/// `id + dstOrigin` of `dst`, elements of 16 bytes when `alignment == 16` and 4 otherwise.
fn copy_aligned(
    first: u64,
    end: u64,
    u64_at: &impl Fn(u32) -> u64,
    u32_at: &impl Fn(u32) -> u64,
) -> Option<Plan> {
    let (src, dst, src_origin, dst_origin) = (u64_at(0), u64_at(8), u64_at(16), u64_at(24));
    let (size, alignment) = (u64_at(32), u32_at(40));
    let Some((lo, hi)) = guarded(first, end, size) else {
        return Some(Plan::Nothing);
    };
    let width = if alignment == 16 { 16 } else { 4 };
    let src = at(src, width, src_origin.checked_add(lo)?)?;
    let dst = at(dst, width, dst_origin.checked_add(lo)?)?;
    let len = (hi - lo).checked_mul(width)?;
    src.checked_add(len)?;
    dst.checked_add(len)?;
    Some(Plan::Copy { src, dst, len })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaemu_codeobject::metadata::KernelArg;

    fn arg(offset: u32, size: u32, value_kind: ValueKind) -> KernelArg {
        KernelArg {
            offset,
            size,
            value_kind,
            ..KernelArg::default()
        }
    }

    /// `copyBuffer`'s metadata as clang emits it (code object V4: hidden arguments after the
    /// explicit ones).
    fn copy_buffer() -> Kernel {
        let mut args = vec![
            arg(0, 8, ValueKind::GlobalBuffer),
            arg(8, 8, ValueKind::GlobalBuffer),
            arg(16, 8, ValueKind::ByValue),
            arg(24, 8, ValueKind::ByValue),
            arg(32, 8, ValueKind::ByValue),
            arg(40, 4, ValueKind::ByValue),
        ];
        args.push(arg(48, 8, ValueKind::HiddenGlobalOffsetX));
        args.push(arg(56, 8, ValueKind::HiddenGlobalOffsetY));
        Kernel {
            name: "__amd_rocclr_copyBuffer".into(),
            args,
            ..Kernel::default()
        }
    }

    #[test]
    fn the_expected_layout_is_recognised() {
        let b = recognise("__amd_rocclr_copyBuffer", &copy_buffer()).expect("recognised");
        assert_eq!(b.kind, BlitKind::Copy);
        assert_eq!(b.global_offset, Some(48));
        assert_eq!(b.kernarg_len, 56);
        let b = recognise("__amd_rocclr_copyBufferAligned", &copy_buffer()).expect("recognised");
        assert_eq!(b.kind, BlitKind::CopyAligned);
    }

    #[test]
    fn another_name_or_layout_is_interpreted() {
        assert_eq!(recognise("not_a_blit_copyBuffer", &copy_buffer()), None);
        // The same layout is not fillBufferAligned's.
        assert_eq!(
            recognise("__amd_rocclr_fillBufferAligned", &copy_buffer()),
            None
        );
        let mut k = copy_buffer();
        k.args[5].size = 8;
        assert_eq!(recognise("__amd_rocclr_copyBuffer", &k), None);
        let mut k = copy_buffer();
        k.args[2].value_kind = ValueKind::GlobalBuffer;
        assert_eq!(recognise("__amd_rocclr_copyBuffer", &k), None);
        let mut k = copy_buffer();
        k.args[4].offset = 40;
        assert_eq!(recognise("__amd_rocclr_copyBuffer", &k), None);
        let mut k = copy_buffer();
        k.args.remove(5);
        assert_eq!(recognise("__amd_rocclr_copyBuffer", &k), None);
        let mut k = copy_buffer();
        k.group_segment_fixed_size = 16;
        assert_eq!(recognise("__amd_rocclr_copyBuffer", &k), None);
    }

    #[test]
    fn plans_cover_what_the_work_items_write() {
        // copyBuffer, remain 3: ids 0..9 copy dwords, id 9 the last 3 bytes.
        let ka = [0x1000u64, 0x9000, 5, 7, 10, 3];
        let u64_at = |o: u32| ka[o as usize / 8];
        let u32_at = |o: u32| ka[o as usize / 8];
        match copy(0, 64, &u64_at, &u32_at) {
            Some(Plan::Copy { src, dst, len }) => {
                assert_eq!((src, dst, len), (0x1005, 0x9007, 39));
            }
            _ => panic!("a copy"),
        }
        // The grid stops before the tail: dwords only.
        match copy(2, 6, &u64_at, &u32_at) {
            Some(Plan::Copy { src, dst, len }) => {
                assert_eq!((src, dst, len), (0x1005 + 8, 0x9007 + 8, 16));
            }
            _ => panic!("a copy"),
        }
        // Every id past the guard.
        assert!(matches!(
            copy(10, 64, &u64_at, &u32_at),
            Some(Plan::Nothing)
        ));
        // fillBufferAligned into the uint buffer: 2-element pattern, offset 3, size 5.
        let ka = [0u64, 0, 0x4000, 0, 0x8000, 2, 3, 5];
        let u64_at = |o: u32| ka[o as usize / 8];
        let u32_at = |o: u32| ka[o as usize / 8];
        match fill_aligned(1, 64, &u64_at, &u32_at) {
            Some(Plan::Fill {
                pattern,
                pattern_len,
                dst,
                len,
            }) => {
                assert_eq!((pattern, pattern_len), (0x8000, 8));
                assert_eq!((dst, len), (0x4000 + 4 * (3 + 2), 4 * 2 * 4));
            }
            _ => panic!("a fill"),
        }
        // An index that wraps is left to the interpreter.
        let ka = [0u64, 0, 0x4000, 0, 0x8000, 2, u64::MAX - 1, 5];
        let u64_at = |o: u32| ka[o as usize / 8];
        assert!(fill_aligned(1, 64, &u64_at, &u32_at).is_none());
    }
}
