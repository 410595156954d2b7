//! Race detection with vector clocks (FastTrack-style epochs). Each wave of a dispatch has a
//! number (`gid`) and a vector clock; each dword of LDS and of global memory remembers its last
//! plain store and last plain load as epochs (wave, that wave's clock) with the PC and the bytes
//! touched. A plain load and a plain store of another wave race when the later one's clock does
//! not cover the earlier (see [`Cell::access`] for why only that pair). Lanes of one wave run in
//! lockstep: same-wave accesses never race.
//!
//! What orders waves (happens-before):
//! - `s_barrier`: every wave of the work-group joins every other's clock;
//! - atomic read-modify-writes: acquire-release on their location (a clock kept per location);
//! - a release fence (the cache write-back/invalidate a fence compiles to), then stores: the
//!   location gets the storing wave's clock;
//! - loads with GLC (atomic and volatile loads at agent/system scope) and returning atomics:
//!   acquire the location's clock and its last storer's epoch.
//! - `ds_gws_barrier` (grid sync): arriving releases to the barrier's generation, under the
//!   barrier's lock; passing acquires it (see `GroupCheck::gws_barrier`).
//!
//! A missing fence between a wave's own accesses is not reported (program order stands in for
//! it): checking stays free of false positives at that cost.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

/// A (wave, clock) pair packed as `gid << 32 | clock`; 0 is "none".
pub(crate) type Epoch = u64;

pub(crate) fn epoch(gid: u32, clock: u32) -> Epoch {
    u64::from(gid) << 32 | u64::from(clock)
}

pub(crate) fn gid_of(e: Epoch) -> u32 {
    (e >> 32) as u32
}

/// A sparse vector clock: (wave, clock) sorted by wave.
#[derive(Debug, Clone, Default)]
pub(crate) struct Vc(Vec<(u32, u32)>);

impl Vc {
    #[inline]
    pub(crate) fn get(&self, gid: u32) -> u32 {
        match self.0.binary_search_by_key(&gid, |&(g, _)| g) {
            Ok(i) => self.0[i].1,
            Err(_) => 0,
        }
    }

    pub(crate) fn set_max(&mut self, gid: u32, clock: u32) {
        match self.0.binary_search_by_key(&gid, |&(g, _)| g) {
            Ok(i) => self.0[i].1 = self.0[i].1.max(clock),
            Err(i) => self.0.insert(i, (gid, clock)),
        }
    }

    pub(crate) fn join(&mut self, other: &Vc) {
        // A few entries (a wave's clock joining a location's, which may hold every wave of the
        // dispatch): each found by binary search, not by a walk through all of this clock.
        if other.0.len() <= 4 {
            for &(g, c) in &other.0 {
                self.set_max(g, c);
            }
            return;
        }
        // Most joins meet waves this clock already has (a location's clock joining the same
        // waves again): raise in place, no allocation.
        if other.0.len() <= self.0.len() {
            let mut i = 0;
            let mut all = true;
            for &(g, c) in &other.0 {
                while i < self.0.len() && self.0[i].0 < g {
                    i += 1;
                }
                match self.0.get_mut(i) {
                    Some(e) if e.0 == g => e.1 = e.1.max(c),
                    _ => {
                        all = false;
                        break;
                    }
                }
            }
            if all {
                return;
            }
        }
        let mut out = Vec::with_capacity(self.0.len() + other.0.len());
        let (mut i, mut j) = (0, 0);
        while i < self.0.len() || j < other.0.len() {
            match (self.0.get(i), other.0.get(j)) {
                (Some(&a), Some(&b)) if a.0 == b.0 => {
                    out.push((a.0, a.1.max(b.1)));
                    i += 1;
                    j += 1;
                }
                (Some(&a), Some(&b)) if a.0 < b.0 => {
                    out.push(a);
                    i += 1;
                }
                (Some(_), Some(&b)) | (None, Some(&b)) => {
                    out.push(b);
                    j += 1;
                }
                (Some(&a), None) => {
                    out.push(a);
                    i += 1;
                }
                (None, None) => break,
            }
        }
        self.0 = out;
    }

    /// Whether the access at epoch `e` happened before anything at this clock.
    pub(crate) fn covers(&self, e: Epoch) -> bool {
        self.get(gid_of(e)) >= e as u32
    }

    pub(crate) fn reset(&mut self, gid: u32) {
        self.0.clear();
        self.0.push((gid, 1));
    }
}

/// How an access takes part in races.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Read,
    Write,
    /// An atomic read-modify-write.
    Atomic,
    /// A GLC load: an atomic (or volatile) load, never racing.
    SyncRead,
}

/// The last accesses to one dword, with the bytes each touched.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Cell {
    /// Dispatch the epochs belong to (0: none).
    seq: u32,
    write_mask: u8,
    read_mask: u8,
    write: Epoch,
    write_pc: u64,
    read: Epoch,
    read_pc: u64,
}

/// A wave making accesses, as race cells see it: its number, its epoch (its own entry of its
/// clock), its clock, and the last answers that clock gave.
pub(crate) struct Accessor<'a> {
    gid: u32,
    me: Epoch,
    vc: &'a Vc,
    seen: &'a mut Seen,
}

impl<'a> Accessor<'a> {
    /// Wave `gid` with clock `vc`; `seen` must hold answers of this clock only (cleared when
    /// the clock changes).
    pub(crate) fn new(gid: u32, vc: &'a Vc, seen: &'a mut Seen) -> Accessor<'a> {
        Accessor::at(gid, epoch(gid, vc.get(gid)), vc, seen)
    }

    /// [`Accessor::new`] with the wave's epoch `me` already looked up.
    pub(crate) fn at(gid: u32, me: Epoch, vc: &'a Vc, seen: &'a mut Seen) -> Accessor<'a> {
        Accessor { gid, me, vc, seen }
    }

    /// Whether the access at epoch `e` (0: none) is by another wave and not ordered before
    /// this wave's clock.
    #[inline]
    fn unordered(&mut self, e: Epoch) -> bool {
        e != 0 && gid_of(e) != self.gid && !self.seen.covers(self.vc, e)
    }
}

/// The last epochs a clock was asked about ([`Vc::covers`]) and its answers, one per wave
/// number modulo 4: a wave's lanes mostly meet the epochs of the same few other waves, and
/// a clock that acquired from many waves costs a binary search with cache misses each time.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    epochs: [Epoch; 4],
    covered: [bool; 4],
}

impl Seen {
    #[inline]
    fn covers(&mut self, vc: &Vc, e: Epoch) -> bool {
        let k = gid_of(e) as usize % 4;
        if self.epochs[k] != e {
            self.epochs[k] = e;
            self.covered[k] = vc.covers(e);
        }
        self.covered[k]
    }

    /// The clock changed: forget its answers.
    pub(crate) fn clear(&mut self) {
        self.epochs = [0; 4];
    }
}

/// The earlier access a new one races with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Conflict {
    pub other: Epoch,
    pub other_pc: u64,
    pub other_write: bool,
}

impl Cell {
    /// Records an access to bytes `mask` of the dword by wave `gid` at `pc` whose clock is
    /// `vc`; returns what it races with.
    ///
    /// Only a plain load and a plain store race. Machine code cannot tell an atomic store
    /// (or `atomicExch` without result) from a plain one, so two stores, or a store and an
    /// atomic, are never reported; a racy read-modify-write is still caught by its load.
    pub(crate) fn access(
        &mut self,
        seq: u32,
        gid: u32,
        vc: &Vc,
        op: Op,
        mask: u8,
        pc: u64,
    ) -> Option<Conflict> {
        let mut found = None;
        let mut seen = Seen::default();
        let mut by = Accessor::new(gid, vc, &mut seen);
        self.access_by(seq, &mut by, op, mask, pc, &mut found);
        found
    }

    /// [`Cell::access`] by `by`; a race is left in `found` unless it holds one already (the
    /// first of an access's dwords is reported). An out-parameter, written only on a race:
    /// returning the rare `Option<Conflict>` per dword cost a copy through memory each time.
    #[inline(always)]
    pub(crate) fn access_by(
        &mut self,
        seq: u32,
        by: &mut Accessor,
        op: Op,
        mask: u8,
        pc: u64,
        found: &mut Option<Conflict>,
    ) {
        if self.seq != seq {
            *self = Cell {
                seq,
                ..Cell::default()
            };
        }
        let me = by.me;
        // Only the first race of an access is kept: later dwords need not look.
        let mut unordered = |e: Epoch| found.is_none() && by.unordered(e);
        match op {
            Op::SyncRead => {}
            Op::Read => {
                if self.write_mask & mask != 0 && unordered(self.write) {
                    *found = Some(Conflict {
                        other: self.write,
                        other_pc: self.write_pc,
                        other_write: true,
                    });
                }
                self.read_mask = if self.read == me {
                    self.read_mask | mask
                } else {
                    mask
                };
                self.read = me;
                self.read_pc = pc;
            }
            Op::Write => {
                if self.read_mask & mask != 0 && unordered(self.read) {
                    *found = Some(Conflict {
                        other: self.read,
                        other_pc: self.read_pc,
                        other_write: false,
                    });
                }
                self.write_mask = if self.write == me {
                    self.write_mask | mask
                } else {
                    mask
                };
                self.write = me;
                self.write_pc = pc;
            }
            Op::Atomic => {
                // The location's new value is the atomic's: no plain store to race with.
                self.write_mask &= !mask;
            }
        }
    }

    /// The last plain writer's epoch in dispatch `seq` (for acquiring loads).
    pub(crate) fn writer(&self, seq: u32) -> Option<Epoch> {
        (self.seq == seq && self.write != 0).then_some(self.write)
    }
}

/// The bytes of the dword at `d` (a dword index) that `[addr, addr+len)` touches.
#[inline(always)]
pub(crate) fn byte_mask(d: u64, addr: u64, len: u64) -> u8 {
    // Whole dwords, as most accesses are: every byte of each (the same for all of an
    // access's dwords, so a loop over them tests it once).
    if addr.is_multiple_of(4) && len.is_multiple_of(4) && len != 0 {
        return 0xf;
    }
    let lo = addr.max(d * 4) - d * 4;
    let hi = (addr + len).min(d * 4 + 4) - d * 4;
    ((1u16 << hi) - (1u16 << lo)) as u8
}

/// A multiplicative hash for the shadow maps' integer keys (dword and page numbers): SipHash
/// per lane cost more than the check itself.
#[derive(Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (self.0 ^ k)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
}

/// Maps keyed by dword or page number.
pub(crate) type KeyMap<V> = HashMap<u64, V, std::hash::BuildHasherDefault<KeyHasher>>;

/// Dwords per shadow page (4 KB of memory).
const PAGE_DWORDS: usize = 1024;
const SHARDS: usize = 64;

/// The cells of a 4 KB page, locked on their own: a work-group keeps the last page it used
/// ([`LastPage`]) and takes no shard lock while it stays there.
type Page = Arc<Mutex<Box<[Cell; PAGE_DWORDS]>>>;

/// The page a work-group's global accesses used last (pages live as long as the checker).
#[derive(Default)]
pub(crate) struct LastPage(Option<(u64, Page)>);
/// A synchronising location's clock, with the dispatch it belongs to.
type SyncClock = (u32, Arc<Vc>);

/// Race state of global memory: cells by 4 KB page and the clocks of synchronising locations,
/// sharded so that work-groups on different host threads rarely wait for each other.
pub(crate) struct GlobalRaces {
    pages: Vec<Mutex<KeyMap<Page>>>,
    sync: Vec<Mutex<KeyMap<SyncClock>>>,
}

impl Default for GlobalRaces {
    fn default() -> Self {
        GlobalRaces {
            pages: (0..SHARDS).map(|_| Mutex::default()).collect(),
            sync: (0..SHARDS).map(|_| Mutex::default()).collect(),
        }
    }
}

/// A page of fresh cells, made on the heap: `Box::new([Cell; N])` built the 40 KB array on the
/// stack first, and every caller's frame then probed 10 stack pages per call.
fn new_page() -> Page {
    let cells = vec![Cell::default(); PAGE_DWORDS].into_boxed_slice();
    match cells.try_into() {
        Ok(cells) => Arc::new(Mutex::new(cells)),
        Err(_) => unreachable!("the vector has PAGE_DWORDS cells"),
    }
}

fn shard(key: u64) -> usize {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize % SHARDS
}

impl GlobalRaces {
    /// Page `page`'s cells, by way of `last`.
    fn page<'a>(&self, page: u64, last: &'a mut LastPage) -> &'a Page {
        if last.0.as_ref().is_some_and(|(p, _)| *p != page) {
            last.0 = None;
        }
        let (_, cells) = last.0.get_or_insert_with(|| {
            let mut shard = self.pages[shard(page)].lock();
            (page, shard.entry(page).or_insert_with(new_page).clone())
        });
        cells
    }

    /// Runs `f` on the cells of the dwords `[addr, addr+len)` touches (one page lock).
    pub(crate) fn with_cells<T>(
        &self,
        addr: u64,
        len: u64,
        last_page: &mut LastPage,
        mut f: impl FnMut(&mut Cell, u8) -> Option<T>,
    ) -> Option<T> {
        let mut found = None;
        let mut d = addr / 4;
        let last = (addr + len.max(1) - 1) / 4;
        while d <= last {
            let page = d / PAGE_DWORDS as u64;
            let mut cells = self.page(page, last_page).lock();
            while d <= last && d / PAGE_DWORDS as u64 == page {
                let r = f(
                    &mut cells[(d % PAGE_DWORDS as u64) as usize],
                    byte_mask(d, addr, len),
                );
                found = found.or(r);
                d += 1;
            }
        }
        found
    }

    /// Records `count` plain accesses by `by` at `pc`: access `k` is
    /// `at(k)` = (address, length, operation); `conflict(k, …)` hears of each race. Accesses in
    /// a row that stay inside one 4 KB page take its lock once.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn access_run(
        &self,
        seq: u32,
        by: &mut Accessor,
        pc: u64,
        last_page: &mut LastPage,
        count: usize,
        at: impl Fn(usize) -> (u64, u64, Op),
        mut conflict: impl FnMut(usize, Conflict),
    ) {
        let page_of = |addr: u64, len: u64| {
            let (first, last) = (addr / 4, (addr + len.max(1) - 1) / 4);
            let p = first / PAGE_DWORDS as u64;
            (p == last / PAGE_DWORDS as u64).then_some(p)
        };
        let mut k = 0;
        while k < count {
            let (addr, len, op) = at(k);
            let Some(page) = page_of(addr, len) else {
                // Across a page boundary: on its own.
                if let Some(c) = self.with_cells(addr, len, last_page, |cell, mask| {
                    let mut found = None;
                    cell.access_by(seq, by, op, mask, pc, &mut found);
                    found
                }) {
                    conflict(k, c);
                }
                k += 1;
                continue;
            };
            let mut cells = self.page(page, last_page).lock();
            while k < count {
                let (addr, len, op) = at(k);
                if page_of(addr, len) != Some(page) {
                    break;
                }
                let mut found = None;
                for d in addr / 4..=(addr + len.max(1) - 1) / 4 {
                    let cell = &mut cells[(d % PAGE_DWORDS as u64) as usize];
                    let mask = byte_mask(d, addr, len);
                    cell.access_by(seq, by, op, mask, pc, &mut found);
                }
                if let Some(c) = found {
                    conflict(k, c);
                }
                k += 1;
            }
        }
    }

    /// Release by an atomic read-modify-write: the location's clock joins `vc` (dispatch
    /// `seq`), continuing the release sequence.
    pub(crate) fn release(&self, seq: u32, addr: u64, vc: &Vc) {
        let mut s = self.sync[shard(addr / 4)].lock();
        let e = s.entry(addr / 4).or_insert_with(|| (seq, Arc::default()));
        if e.0 != seq {
            *e = (seq, Arc::default());
        }
        Arc::make_mut(&mut e.1).join(vc);
    }

    /// Release by a store after a release fence: the location's clock becomes the wave's
    /// (shared, not copied). Taking the clock at the store rather than at the fence also covers
    /// a barrier between the two.
    pub(crate) fn release_store(&self, seq: u32, addr: u64, at_fence: &Arc<Vc>) {
        let mut s = self.sync[shard(addr / 4)].lock();
        s.insert(addr / 4, (seq, at_fence.clone()));
    }

    /// Acquire: `vc` joins the location's clock (dispatch `seq`).
    pub(crate) fn acquire(&self, seq: u32, addr: u64, vc: &mut Vc) {
        let s = self.sync[shard(addr / 4)].lock();
        if let Some((q, loc)) = s.get(&(addr / 4)) {
            if *q == seq {
                vc.join(loc);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vc(pairs: &[(u32, u32)]) -> Vc {
        let mut v = Vc::default();
        for &(g, c) in pairs {
            v.set_max(g, c);
        }
        v
    }

    #[test]
    fn unordered_write_then_read_by_another_wave_races_and_a_joined_clock_does_not() {
        let mut c = Cell::default();
        assert!(c
            .access(1, 0, &vc(&[(0, 1)]), Op::Write, 0xf, 0x10)
            .is_none());
        let r = c
            .access(1, 1, &vc(&[(1, 1)]), Op::Read, 0xf, 0x20)
            .expect("race");
        assert_eq!(
            (r.other, r.other_pc, r.other_write),
            (epoch(0, 1), 0x10, true)
        );
        // After a barrier wave 1's clock covers wave 0's write.
        let mut c = Cell::default();
        c.access(1, 0, &vc(&[(0, 1)]), Op::Write, 0xf, 0x10);
        assert!(c
            .access(1, 1, &vc(&[(0, 1), (1, 2)]), Op::Read, 0xf, 0x20)
            .is_none());
        // Another dispatch starts afresh.
        assert!(c
            .access(2, 2, &vc(&[(2, 1)]), Op::Read, 0xf, 0x30)
            .is_none());
    }

    #[test]
    fn a_read_then_an_unordered_write_races_but_other_bytes_do_not() {
        let mut c = Cell::default();
        c.access(1, 0, &vc(&[(0, 1)]), Op::Read, 0b0011, 0x10);
        assert!(c
            .access(1, 1, &vc(&[(1, 1)]), Op::Write, 0b1100, 0x20)
            .is_none());
        let r = c
            .access(1, 1, &vc(&[(1, 1)]), Op::Write, 0b0010, 0x24)
            .expect("race");
        assert_eq!((r.other_pc, r.other_write), (0x10, false));
    }

    #[test]
    fn stores_and_atomics_never_race_with_each_other() {
        let mut c = Cell::default();
        c.access(1, 0, &vc(&[(0, 1)]), Op::Write, 0xf, 0);
        assert!(c.access(1, 1, &vc(&[(1, 1)]), Op::Write, 0xf, 0).is_none());
        assert!(c.access(1, 2, &vc(&[(2, 1)]), Op::Atomic, 0xf, 0).is_none());
        assert!(c.access(1, 3, &vc(&[(3, 1)]), Op::Read, 0xf, 0).is_none());
        // Same wave: lockstep lanes never race.
        let mut c = Cell::default();
        c.access(1, 5, &vc(&[(5, 1)]), Op::Read, 0xf, 0);
        assert!(c.access(1, 5, &vc(&[(5, 1)]), Op::Write, 0xf, 0).is_none());
    }

    #[test]
    fn byte_masks_cover_the_touched_bytes_of_each_dword() {
        assert_eq!(byte_mask(0, 0, 4), 0xf);
        assert_eq!(byte_mask(0, 1, 1), 0b0010);
        assert_eq!(byte_mask(1, 2, 4), 0b0011);
        assert_eq!(byte_mask(0, 2, 4), 0b1100);
    }

    #[test]
    fn joins_keep_the_maximum_of_each_wave() {
        let mut a = vc(&[(1, 3), (4, 1), (9, 2)]);
        let b = vc(&[(0, 1), (1, 2), (4, 5), (6, 1), (9, 2), (10, 7)]);
        a.join(&b);
        assert_eq!(a.0, vec![(0, 1), (1, 3), (4, 5), (6, 1), (9, 2), (10, 7)]);
        // A few entries into a long clock (a wave's into a location's), some new to it.
        let mut long = vc(&(0..40).map(|g| (2 * g, 5)).collect::<Vec<_>>());
        long.join(&vc(&[(3, 1), (10, 9), (40, 2), (81, 4)]));
        assert_eq!(long.get(3), 1);
        assert_eq!(long.get(10), 9);
        assert_eq!(long.get(40), 5);
        assert_eq!(long.get(81), 4);
        assert_eq!(long.0.len(), 42);
        assert!(
            long.0.windows(2).all(|p| p[0].0 < p[1].0),
            "sorted: {:?}",
            long.0
        );
    }

    /// The remembered answers of a clock belong to the epoch asked about, not to its slot:
    /// waves 1 and 5 share one, and so do two epochs of wave 1.
    #[test]
    fn remembered_answers_are_those_of_the_epoch_asked_about() {
        let clock = vc(&[(0, 1), (1, 3), (5, 1)]);
        let mut seen = Seen::default();
        assert!(seen.covers(&clock, epoch(1, 3)));
        assert!(!seen.covers(&clock, epoch(1, 4)));
        assert!(seen.covers(&clock, epoch(5, 1)));
        assert!(!seen.covers(&clock, epoch(5, 2)));
        assert!(seen.covers(&clock, epoch(1, 2)));
        // A race is found through the remembered answers as without them: wave 0 reads
        // what wave 1 wrote at clock 4 (unordered), then what wave 5 wrote at clock 1.
        let mut by = Accessor::new(0, &clock, &mut seen);
        let (mut a, mut b) = (Cell::default(), Cell::default());
        a.access(1, 1, &vc(&[(1, 4)]), Op::Write, 0xf, 0x10);
        b.access(1, 5, &vc(&[(5, 1)]), Op::Write, 0xf, 0x20);
        let mut found = None;
        b.access_by(1, &mut by, Op::Read, 0xf, 0x30, &mut found);
        assert!(found.is_none(), "wave 0's clock covers wave 5's write");
        a.access_by(1, &mut by, Op::Read, 0xf, 0x30, &mut found);
        assert_eq!(found.map(|c| c.other_pc), Some(0x10));
    }

    #[test]
    fn whole_dwords_have_every_byte_and_an_empty_access_none() {
        assert_eq!(byte_mask(3, 8, 8), 0xf);
        assert_eq!(byte_mask(2, 8, 8), 0xf);
        assert_eq!(byte_mask(2, 8, 0), 0);
        assert_eq!(byte_mask(2, 8, 2), 0b0011);
    }
}
