//! The checkers' view of one dispatch and one resident work-group: the waves' vector clocks,
//! the work-group's LDS shadow (written bits and race cells), each wave's private-memory
//! written bits, and the accesses the current instruction noted. [`flush`] runs the checks
//! on them after the instruction.

use super::defined::{self, OriginId, Read, Use};
use super::race::{self, Cell, Conflict, Epoch, Op, Seen, Vc};
use super::report::Kind;
use super::shadow::{words, Found};
use super::{Checker, Checks};
use crate::decode::{flag, Inst, Kind as MemKind};
use crate::gpu::{Functions, Program};
use crate::wave::Wave;
use std::sync::Arc;

/// What every work-group of a checked dispatch shares.
pub(crate) struct DispatchCheck {
    pub checker: &'static Checker,
    pub seq: u32,
    pub kernel: String,
    /// ROCclr's copy and fill kernels move bytes without using them: no `uninit` there.
    pub blit: bool,
    pub entry: u64,
    pub functions: Arc<Functions>,
    pub program: Arc<Program>,
    pub wg_count: [u32; 3],
    pub waves_per_wg: u32,
    pub lds_size: u32,
    pub private_per_lane: u32,
    pub slot_size: u64,
}

/// The memory an access reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Space {
    Global,
    /// Offset in the work-group's LDS.
    Lds,
    /// Offset in the lane's private segment.
    Private,
}

/// One lane's access, noted by `exec::vmem` before it is made.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Note {
    pub space: Space,
    pub addr: u64,
    pub size: u8,
    pub lane: u8,
    pub write: bool,
}

struct WaveCheck {
    gid: u32,
    vc: Vc,
    /// The wave executed a release fence: its later stores release its clock.
    fenced: bool,
    /// The clock those stores release (shared by them; dropped when the clock changes).
    released: Option<Arc<Vc>>,
    /// One bit per byte offset of the private segment: written by some lane of the wave.
    private_init: Vec<u64>,
}

/// A resident work-group's check state (kept between launches).
pub(crate) struct GroupCheck {
    pub(super) d: Arc<DispatchCheck>,
    pub(super) wg: [u32; 3],
    waves: Vec<WaveCheck>,
    lds_init: Vec<u64>,
    lds_cells: Vec<Cell>,
    /// Stamps LDS cells, so a launch need not clear them.
    launch: u32,
    lds_sync: race::KeyMap<Vc>,
    notes: Vec<Note>,
    /// The running instruction releases its global stores (set by [`GroupCheck::begin`]).
    releasing: Option<Release>,
    /// Each wave's register definedness (`uninit`, see [`defined`]).
    pub(super) regs: Vec<defined::Regs>,
    /// The launch's uninitialised reads, for reports at their use.
    pub(super) origins: defined::Origins,
    /// LDS dwords an undefined value was stored to: the origin of that value.
    lds_origin: race::KeyMap<defined::OriginId>,
    /// Private dwords (wave << 32 | dword) an undefined value was spilled to: its origin.
    private_origin: race::KeyMap<defined::OriginId>,
    /// The running store's data definedness.
    pub(super) pending: defined::Pending,
    /// The running instruction's plain global accesses, for [`plain_races`].
    plain: Vec<Note>,
    /// The allocation the last global access found.
    found: Found,
    /// The race cells' page the last global access used.
    page: race::LastPage,
}

/// How the running instruction's global stores release the wave's clock.
#[derive(Debug, Clone, Copy)]
struct Release {
    wave: usize,
    /// An atomic read-modify-write (else a store after a release fence).
    atomic: bool,
}

impl WaveCheck {
    /// One step of the wave's own clock (after a release).
    fn tick(&mut self) {
        let c = self.vc.get(self.gid);
        self.vc.set_max(self.gid, c + 1);
        self.released = None;
    }
}

/// Whether none of bits `[from, from+len)` is set.
fn none_set(bits: &[u64], from: u64, len: u64) -> bool {
    let mut any = false;
    words(bits.len(), from, len, |w, m| any |= bits[w] & m != 0);
    !any
}

/// Whether all of bits `[from, from+len)` are set.
fn all_set(bits: &[u64], from: u64, len: u64) -> bool {
    let mut all = true;
    words(bits.len(), from, len, |w, m| all &= bits[w] & m == m);
    all
}

fn clear_bits(bits: &mut [u64], from: u64, len: u64) {
    words(bits.len(), from, len, |w, m| bits[w] &= !m);
}

fn set_bits(bits: &mut [u64], from: u64, len: u64) {
    words(bits.len(), from, len, |w, m| bits[w] |= m);
}

impl GroupCheck {
    pub(crate) fn new(d: Arc<DispatchCheck>) -> GroupCheck {
        GroupCheck {
            d,
            wg: [0; 3],
            waves: Vec::new(),
            lds_init: Vec::new(),
            lds_cells: Vec::new(),
            launch: 0,
            lds_sync: race::KeyMap::default(),
            notes: Vec::with_capacity(256),
            releasing: None,
            regs: Vec::new(),
            origins: defined::Origins::default(),
            lds_origin: race::KeyMap::default(),
            private_origin: race::KeyMap::default(),
            pending: defined::Pending::default(),
            plain: Vec::new(),
            found: Found::default(),
            page: race::LastPage::default(),
        }
    }

    /// Whether this state belongs to dispatch `d`.
    pub(crate) fn is_for(&self, d: &Arc<DispatchCheck>) -> bool {
        Arc::ptr_eq(&self.d, d)
    }

    /// Work-group `n` (linear), `id`, with `nwaves` waves starts.
    pub(crate) fn launch(&mut self, n: u64, id: [u32; 3], nwaves: usize) {
        self.wg = id;
        self.launch = self.launch.wrapping_add(1).max(1);
        let words = (self.d.lds_size as usize).div_ceil(64);
        self.lds_init.clear();
        self.lds_init.resize(words, 0);
        self.lds_cells
            .resize((self.d.lds_size as usize).div_ceil(4), Cell::default());
        self.lds_sync.clear();
        self.notes.clear();
        let pwords = (self.d.private_per_lane as usize).div_ceil(64);
        self.waves.truncate(nwaves);
        while self.waves.len() < nwaves {
            self.waves.push(WaveCheck {
                gid: 0,
                vc: Vc::default(),
                fenced: false,
                released: None,
                private_init: Vec::new(),
            });
        }
        for (wi, w) in self.waves.iter_mut().enumerate() {
            w.gid = (n * u64::from(self.d.waves_per_wg) + wi as u64) as u32;
            w.vc.reset(w.gid);
            w.fenced = false;
            w.released = None;
            w.private_init.clear();
            w.private_init.resize(pwords, 0);
        }
        self.regs.resize_with(nwaves, defined::Regs::default);
        for r in &mut self.regs {
            r.reset();
        }
        self.origins.clear();
        self.lds_origin.clear();
        self.private_origin.clear();
    }

    /// Before instruction `i` of wave `w` (checked interpreter): definedness, while anything
    /// in the wave is undefined.
    #[inline]
    pub(crate) fn step(&mut self, w: &Wave, i: &Inst) {
        if self.regs.get(w.id as usize).is_some_and(|r| r.dirty) {
            defined::before(self, w, i);
        }
    }

    /// Every wave passed `s_barrier`: each one's clock joins all the others'.
    pub(crate) fn barrier(&mut self) {
        let mut all = Vc::default();
        for w in &self.waves {
            all.join(&w.vc);
        }
        for w in &mut self.waves {
            w.vc = all.clone();
            w.tick();
        }
    }

    /// Wave `wi` executed a fence (a cache write-back or invalidate): what it did so far is
    /// released by its later stores.
    pub(crate) fn fence(&mut self, wi: usize) {
        if let Some(w) = self.waves.get_mut(wi) {
            w.fenced = true;
            w.tick();
        }
    }

    /// Wave `wi` arrived at or passes a global wave sync barrier (`ds_gws_barrier`; called
    /// under the resource's lock, see [`crate::gws::Gws::barrier`]). Arriving releases the
    /// wave's clock to the barrier's generation; passing acquires what every wave of that
    /// generation released. Generations alternate between two clocks: the first arrival of one
    /// starts its clock afresh (every wave of the generation before last has passed by then,
    /// since the last generation could not open without them), so a slow wave that passes
    /// late never acquires what others released after it (a real race stays visible).
    pub(crate) fn gws_barrier(&mut self, wi: usize, e: crate::gws::BarrierEvent) {
        use crate::gws::BarrierEvent;
        // A synchronisation "address" no memory has (non-canonical on x86-64).
        let key = |resource: u32, generation: u64| {
            0xfff0_0000_0000_0000 | u64::from(resource) << 3 | (generation & 1) << 2
        };
        let (races, seq) = (&self.d.checker.races, self.d.seq);
        let Some(w) = self.waves.get_mut(wi) else {
            return;
        };
        match e {
            BarrierEvent::Arrive {
                resource,
                generation,
                first: true,
            } => races.release_store(seq, key(resource, generation), &Arc::new(w.vc.clone())),
            BarrierEvent::Arrive {
                resource,
                generation,
                ..
            } => races.release(seq, key(resource, generation), &w.vc),
            BarrierEvent::Pass {
                resource,
                generation,
            } => {
                races.acquire(seq, key(resource, generation), &mut w.vc);
                w.tick();
            }
        }
    }

    /// Wave `w` is about to run memory instruction `i`. A releasing atomic or store publishes
    /// the wave's clock as each lane's access is noted, before the access is made: another
    /// wave (on another host thread) that observes the stored value and then acquires must
    /// find the clock there, not one published only after the instruction ended.
    pub(crate) fn begin(&mut self, w: &Wave, i: &Inst) {
        let wave = w.id as usize;
        let atomic = i.mem.kind == MemKind::Atomic;
        self.releasing = (self.d.checker.checks.race
            && self.waves.get(wave).is_some_and(|wc| atomic || wc.fenced))
        .then_some(Release { wave, atomic });
    }

    /// Whether the running instruction's stores release the wave's clock (their notes must
    /// come before the stores).
    pub(crate) fn releases(&self) -> bool {
        self.releasing.is_some()
    }

    /// Notes a whole wave's global accesses of `size` bytes each (lanes `exec`), made by the
    /// one-range fast path (no lane faulted).
    pub(crate) fn note_wave(&mut self, addrs: &[u64; 64], exec: u64, size: u32, write: bool) {
        let mut m = exec;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            self.notes.push(Note {
                space: Space::Global,
                addr: addrs[lane],
                size: size as u8,
                lane: lane as u8,
                write,
            });
        }
    }

    /// Notes one lane's LDS access, after it was made ([`GroupCheck::note`] without the
    /// release, which LDS accesses never make).
    #[inline]
    pub(crate) fn note_lds(&mut self, addr: u64, size: u32, lane: usize, write: bool) {
        self.notes.push(Note {
            space: Space::Lds,
            addr,
            size: size as u8,
            lane: lane as u8,
            write,
        });
    }

    /// Notes one lane's access (before it is made, so a faulting lane is noted too).
    #[inline]
    pub(crate) fn note(&mut self, space: Space, addr: u64, size: u32, lane: usize, write: bool) {
        if let Some(r) = self.releasing.filter(|_| write && space == Space::Global) {
            let (races, seq) = (&self.d.checker.races, self.d.seq);
            let wc = &mut self.waves[r.wave];
            if r.atomic {
                races.release(seq, addr, &wc.vc);
            } else {
                let vc = &wc.vc;
                let released = wc.released.get_or_insert_with(|| Arc::new(vc.clone()));
                races.release_store(seq, addr, released);
            }
        }
        self.notes.push(Note {
            space,
            addr,
            size: size as u8,
            lane: lane as u8,
            write,
        });
    }
}

/// How the instruction takes part in races.
fn op_of(i: &Inst, write: bool) -> Op {
    match i.mem.kind {
        MemKind::Atomic => Op::Atomic,
        _ if !write && i.has(flag::GLC) => Op::SyncRead,
        _ if write => Op::Write,
        _ => Op::Read,
    }
}

/// What the checks of one instruction's accesses share, worked out once (not per lane).
struct Run<'a> {
    w: &'a Wave,
    i: &'a Inst,
    /// The wave's index in the work-group.
    wi: usize,
    /// The accesses the instruction noted.
    notes: &'a [Note],
    /// How the instruction's loads (`[0]`) and stores (`[1]`) take part in races.
    ops: [Op; 2],
    /// The wave's own epoch: its clock ticks only after all its lanes, and what it joins
    /// holds its own entry at most at its clock.
    me: Epoch,
    /// Answers of the wave's clock (cleared when an LDS atomic changes it).
    seen: Seen,
    /// The dispatch's checks and group segment size, read once for all lanes.
    checks: Checks,
    lds_size: u64,
}

impl Run<'_> {
    /// Where note `ni`'s element sits in the instruction's registers: after the elements of
    /// its lane's earlier notes in the same direction. Worked out only where needed (most
    /// accesses never ask), not kept per lane for every access.
    fn elem(&self, ni: usize) -> Elem {
        let d16 = self.i.mem.d16 != 0;
        let regs = |n: &Note| {
            if d16 {
                1
            } else {
                u16::from(n.size).div_ceil(4).max(1)
            }
        };
        let n = &self.notes[ni];
        let k = self.notes[..ni]
            .iter()
            .filter(|m| m.lane == n.lane && m.write == n.write)
            .map(regs)
            .sum();
        Elem { k, n: regs(n) }
    }
}

/// Where a lane's element sits in the instruction's registers: the element's first register
/// (counted from the destination for a load, from the data for a store) and how many.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Elem {
    pub k: u16,
    pub n: u16,
}

/// Runs the checks on the accesses the instruction `i` of wave `w` noted.
pub(crate) fn flush(w: &Wave, i: &Inst, g: &mut GroupCheck) {
    g.releasing = None;
    if g.notes.is_empty() {
        g.pending.data.clear();
        return;
    }
    let mut notes = std::mem::take(&mut g.notes);
    let wi = w.id as usize;
    if wi < g.waves.len() {
        // The allocation found last, and whether it is this instruction's (a look-up of this
        // instruction found it).
        let mut found = std::mem::take(&mut g.found);
        let mut have = false;
        let wc = &g.waves[wi];
        let mut r = Run {
            w,
            i,
            wi,
            notes: &notes,
            ops: [op_of(i, false), op_of(i, true)],
            me: race::epoch(wc.gid, wc.vc.get(wc.gid)),
            seen: Seen::default(),
            checks: g.d.checker.checks,
            lds_size: u64::from(g.d.lds_size),
        };
        let mut ni = 0;
        while ni < notes.len() {
            let n = &notes[ni];
            match n.space {
                Space::Lds => match lds_dwords(g, &mut r, &notes[ni..]) {
                    (0, _) => lds(g, &mut r, ni),
                    (k, conflict) => {
                        ni += k - 1;
                        if let Some(c) = conflict {
                            lds_race_report(g, w, i, &notes[ni], c);
                        }
                    }
                },
                Space::Private => private(g, &r, ni, n.addr),
                Space::Global => {
                    // MUBUF scratch (the private segment buffer) reaches this wave's slot.
                    let off = n.addr.wrapping_sub(w.scratch_base);
                    if w.scratch_base != 0 && off < g.d.slot_size {
                        let lanes = w.size() as u64;
                        let p = off / (4 * lanes) * 4 + off % 4;
                        private(g, &r, ni, p);
                    } else {
                        global(g, &mut r, ni, &mut found, &mut have);
                    }
                }
            }
            ni += 1;
        }
        g.found = found;
        if !g.plain.is_empty() {
            plain_races(g, &mut r);
        }
        // A release is one step of the wave's clock, after all its lanes.
        if i.mem.kind == MemKind::Atomic {
            g.waves[wi].tick();
        }
    }
    notes.clear();
    g.notes = notes;
    g.pending.data.clear();
}

/// A plain load read an element never written: its registers become undefined (reported
/// where the value is used); any other access (an atomic) is reported now.
fn unwritten(g: &mut GroupCheck, w: &Wave, i: &Inst, n: &Note, e: Elem, read: Read, what: String) {
    if !n.write && defined::tracks_load(i) {
        let o = g.origins.add(w.pc, w.id, n.lane, read);
        defined::loaded_undefined(g, w, i, e.k, e.n, n.lane, o);
    } else {
        let other = match &read {
            Read::Global { alloc, .. } => u64::from(alloc.id),
            _ => 0,
        };
        report(g, w, i, n, Kind::Uninit, what, other);
    }
}

/// The origin of the undefined value a store writes for this element, if it is undefined.
fn stored_undefined(g: &GroupCheck, n: &Note, e: impl FnOnce() -> Elem) -> Option<OriginId> {
    if !n.write || g.pending.data.is_empty() {
        return None;
    }
    let (k, m) = if g.d.checker.checks.uninit {
        let e = e();
        (usize::from(e.k), usize::from(e.n))
    } else {
        return None;
    };
    g.pending.element(k, m, usize::from(n.lane))
}

/// Checks the leading run of `notes` that are the common LDS access, a plain load or store
/// within one dword (a load of written bytes, a store of defined data), as [`lds`] checks
/// each, without its loops over parts and dwords and with the work-group's state borrowed
/// once for the run: rocRAND's seeding makes ~100 M of them under the checkers. Returns how
/// many it checked (0: the first is not one), and the race the last of them found (the run
/// ends there, for the caller to report it in order).
fn lds_dwords(g: &mut GroupCheck, r: &mut Run, notes: &[Note]) -> (usize, Option<Conflict>) {
    let GroupCheck {
        waves,
        lds_init,
        lds_cells,
        launch,
        pending,
        ..
    } = g;
    let (checks, lds_size, pc) = (r.checks, r.lds_size, r.w.pc);
    let defined = pending.data.is_empty();
    let wc = &waves[r.wi];
    let mut by = race::Accessor::at(wc.gid, r.me, &wc.vc, &mut r.seen);
    for (k, n) in notes.iter().enumerate() {
        let (a, len) = (n.addr, u64::from(n.size));
        let op = r.ops[usize::from(n.write)];
        if n.space != Space::Lds
            || len == 0
            || a % 4 + len > 4
            || a + len > lds_size
            || !matches!(op, Op::Read | Op::Write)
            || n.write && !defined
        {
            return (k, None);
        }
        // The access's written bits lie in one word: 64 is a multiple of 4.
        let bits = (u64::MAX >> (64 - len)) << (a % 64);
        let Some(word) = lds_init.get_mut((a / 64) as usize) else {
            return (k, None);
        };
        if n.write {
            *word |= bits;
        } else if checks.uninit && *word & bits != bits {
            return (k, None);
        }
        if checks.race {
            let d = a / 4;
            if let Some(cell) = lds_cells.get_mut(d as usize) {
                let mut conflict = None;
                let mask = race::byte_mask(d, a, len);
                cell.access_by(*launch, &mut by, op, mask, pc, &mut conflict);
                if conflict.is_some() {
                    return (k + 1, conflict);
                }
            }
        }
    }
    (notes.len(), None)
}

fn lds(g: &mut GroupCheck, r: &mut Run, ni: usize) {
    let (w, i, wi, n) = (r.w, r.i, r.wi, &r.notes[ni]);
    let checks = g.d.checker.checks;
    let (a, len) = (n.addr, u64::from(n.size));
    if a + len > u64::from(g.d.lds_size) {
        return; // the emulator faults it
    }
    let op = r.ops[usize::from(n.write)];
    // A multi-dword element of a plain load or store (the fast path notes it whole): written
    // bits dword by dword, as definedness is kept per register.
    let parts = |e: Elem| {
        if len > 4 && len % 4 == 0 && i.mem.d16 == 0 && op != Op::Atomic {
            (4, 1)
        } else {
            (len, e.n)
        }
    };
    let reads = !n.write || op == Op::Atomic;
    // Only an element none of whose bytes was written (a partly written one may hold padding).
    if checks.uninit && reads && !all_set(&g.lds_init, a, len) {
        let e = r.elem(ni);
        let (step, regs) = parts(e);
        for j in 0..len / step {
            let (a, k) = (a + j * step, e.k + j as u16 * regs);
            if !none_set(&g.lds_init, a, step) {
                continue;
            }
            let part = Note {
                addr: a,
                size: step as u8,
                ..*n
            };
            let e = Elem { k, n: regs };
            // An undefined value stored there earlier keeps its first load as the origin.
            match g.lds_origin.get(&(a / 4)).copied() {
                Some(o) if !n.write && defined::tracks_load(i) => {
                    defined::loaded_undefined(g, w, i, e.k, e.n, n.lane, o)
                }
                _ => {
                    let what = format!(
                        "reads {step} bytes at LDS offset {a:#x}, never written (group segment of {} bytes)",
                        g.d.lds_size
                    );
                    let read = Read::Lds {
                        addr: a,
                        size: step as u8,
                    };
                    unwritten(g, w, i, &part, e, read, what)
                }
            }
        }
    }
    if n.write && op != Op::Atomic && !g.pending.data.is_empty() {
        let e = r.elem(ni);
        let (step, regs) = parts(e);
        for j in 0..len / step {
            let (a, k) = (a + j * step, e.k + j as u16 * regs);
            let part = Note {
                addr: a,
                size: step as u8,
                ..*n
            };
            if let Some(o) = stored_undefined(g, &part, || Elem { k, n: regs }) {
                clear_bits(&mut g.lds_init, a, step);
                g.lds_origin.insert(a / 4, o);
            } else {
                set_bits(&mut g.lds_init, a, step);
            }
        }
    } else if n.write {
        set_bits(&mut g.lds_init, a, len);
    }
    if !checks.race {
        return;
    }
    let (gid, seq) = (g.waves[wi].gid, g.launch);
    if op == Op::Atomic {
        let wc = &mut g.waves[wi];
        if let Some(loc) = g.lds_sync.get(&(a / 4)) {
            wc.vc.join(loc);
        }
        g.lds_sync.entry(a / 4).or_default().join(&wc.vc);
        r.seen.clear();
    }
    let mut conflict = None;
    let mut by = race::Accessor::at(gid, r.me, &g.waves[wi].vc, &mut r.seen);
    for d in a / 4..=(a + len - 1) / 4 {
        if let Some(cell) = g.lds_cells.get_mut(d as usize) {
            let mask = race::byte_mask(d, a, len);
            cell.access_by(seq, &mut by, op, mask, w.pc, &mut conflict);
        }
    }
    if let Some(c) = conflict {
        lds_race_report(g, w, i, n, c);
    }
}

fn lds_race_report(g: &GroupCheck, w: &Wave, i: &Inst, n: &Note, c: Conflict) {
    let what = format!(
        "{} {} bytes at LDS offset {:#x} (group segment of {} bytes)",
        if n.write { "writes" } else { "reads" },
        n.size,
        n.addr,
        g.d.lds_size
    );
    race_report(g, w, i, n, c, what);
}

fn private(g: &mut GroupCheck, r: &Run, ni: usize, p: u64) {
    let (w, i, wi, n) = (r.w, r.i, r.wi, &r.notes[ni]);
    let len = u64::from(n.size);
    if p + len > u64::from(g.d.private_per_lane) {
        return; // the emulator faults it
    }
    if n.write || i.mem.kind == MemKind::Atomic {
        // An undefined value (a spill of one) leaves the bytes as they were (the bits are per
        // wave, and other lanes may have written them); where they were never written, a
        // reload gets the value's origin.
        match stored_undefined(g, n, || r.elem(ni)) {
            None => set_bits(&mut g.waves[wi].private_init, p, len),
            Some(o) => {
                g.private_origin.insert(((wi as u64) << 32) | (p / 4), o);
            }
        }
        return;
    }
    if !g.d.checker.checks.uninit {
        return;
    }
    if none_set(&g.waves[wi].private_init, p, len) {
        if let Some(o) = g
            .private_origin
            .get(&(((wi as u64) << 32) | (p / 4)))
            .copied()
        {
            if defined::tracks_load(i) {
                let e = r.elem(ni);
                defined::loaded_undefined(g, w, i, e.k, e.n, n.lane, o);
                return;
            }
        }
        let what = format!(
            "reads {len} bytes at private offset {p:#x}, never written by this wave (private segment of {} bytes per lane)",
            g.d.private_per_lane
        );
        let read = Read::Private { p, size: n.size };
        unwritten(g, w, i, n, r.elem(ni), read, what);
    }
}

fn global(g: &mut GroupCheck, r: &mut Run, ni: usize, found: &mut Found, have: &mut bool) {
    let (w, i, wi, n) = (r.w, r.i, r.wi, &r.notes[ni]);
    let c = g.d.checker;
    let (a, len) = (n.addr, u64::from(n.size));
    // Scalar loads also fetch kernel arguments and constants the host may have written
    // unseen: they are checked for races only, and need no allocation.
    let scalar = i.fmt == crate::decode::Fmt::Smem;
    // The instruction's last allocation while it holds the address (by its mapped range, even
    // where a nested program allocation starts), else a look-up.
    let held = *have
        && found
            .alloc()
            .is_some_and(|x| a >= x.base && a < x.base + x.mapped);
    if !scalar && !held {
        *have = c.memory.find(a, found);
    }
    let hit = found.alloc().filter(|_| *have && !scalar);
    let op = r.ops[usize::from(n.write)];
    let verb = if n.write { "writes" } else { "reads" };
    if let Some(al) = hit {
        if c.checks.bounds {
            let end = a.saturating_add(len);
            let limit = al.base + al.len;
            let problem = if al.is_freed() {
                Some("after it was freed".to_string())
            } else if a >= limit {
                Some(format!("{} bytes past its end", a - limit))
            } else if end > limit {
                Some(format!("running {} bytes past its end", end - limit))
            } else {
                None
            };
            if let Some(p) = problem {
                let what = format!("{verb} {len} bytes at {a:#x}, {p}: {}", al.describe());
                report(g, w, i, n, Kind::Bounds, what, u64::from(al.id));
            }
        }
        // Polling (GLC) loads may read a flag before anyone set it; a partly written element
        // may hold padding.
        let reads = (!n.write && op != Op::SyncRead) || op == Op::Atomic;
        if c.checks.uninit && reads && !g.d.blit && !al.is_freed() {
            // A wave's multi-dword element (noted whole by the fast path): dword by dword.
            let (step, whole) = if !n.write && len > 4 && len % 4 == 0 {
                (4, true)
            } else {
                (len, false)
            };
            for j in 0..len / step {
                let a = a + j * step;
                if al.never_written(a, step) {
                    let e = r.elem(ni);
                    let regs = if whole { 1 } else { e.n };
                    let k = e.k + j as u16 * regs;
                    let what = format!(
                        "reads {step} bytes at {a:#x}, never written since allocation: {}",
                        al.describe()
                    );
                    let read = Read::Global {
                        addr: a,
                        size: step as u8,
                        alloc: al.clone(),
                    };
                    let part = Note {
                        addr: a,
                        size: step as u8,
                        ..*n
                    };
                    unwritten(g, w, i, &part, Elem { k, n: regs }, read, what);
                }
            }
        }
        if n.write || op == Op::Atomic {
            al.mark_written(a, len);
        }
    }
    // The host sees what a kernel stores to global memory.
    if let Some(o) = stored_undefined(g, n, || r.elem(ni)) {
        defined::report_use(g, w, o, Use::Store);
    }
    if !c.checks.race {
        return;
    }
    let seq = g.d.seq;
    let wc = &mut g.waves[wi];
    if matches!(op, Op::Read | Op::Write) && !(op == Op::Write && wc.fenced) {
        // Plain accesses: checked together after the instruction's notes (one page lock per
        // run of accesses to a 4 KB page, not one per lane).
        g.plain.push(*n);
        return;
    }
    let acquires = op == Op::SyncRead || op == Op::Atomic && (i.has(flag::GLC) || i.mem.rtn);
    if acquires {
        wc.released = None;
        r.seen.clear();
        c.races.acquire(seq, a, &mut wc.vc);
        let mut writer = None;
        c.races.with_cells(a, len, &mut g.page, |cell, _| {
            writer = writer.or(cell.writer(seq));
            None::<()>
        });
        if let Some(e) = writer {
            wc.vc.set_max(race::gid_of(e), e as u32);
        }
    }
    match op {
        Op::Atomic => c.races.release(seq, a, &wc.vc),
        Op::Write if wc.fenced => {
            let vc = &wc.vc;
            let released = wc.released.get_or_insert_with(|| Arc::new(vc.clone()));
            c.races.release_store(seq, a, released);
        }
        _ => {}
    }
    let (gid, vc) = (wc.gid, &wc.vc);
    let conflict = c.races.with_cells(a, len, &mut g.page, |cell, mask| {
        cell.access(seq, gid, vc, op, mask, w.pc)
    });
    if let Some(cf) = conflict {
        global_race(g, w, i, n, cf);
    }
}

/// Reports a race on global memory.
fn global_race(g: &GroupCheck, w: &Wave, i: &Inst, n: &Note, cf: Conflict) {
    let (a, len) = (n.addr, n.size);
    let verb = if n.write { "writes" } else { "reads" };
    let where_ = match g.d.checker.memory.lookup(a) {
        Some(al) => al.describe(),
        None => "no allocation the checker knows".to_string(),
    };
    let what = format!("{verb} {len} bytes at {a:#x} ({where_})");
    race_report(g, w, i, n, cf, what);
}

/// The plain global accesses the instruction noted, against the race cells in one pass.
fn plain_races(g: &mut GroupCheck, r: &mut Run) {
    let (w, i, wi) = (r.w, r.i, r.wi);
    let plain = std::mem::take(&mut g.plain);
    let c = g.d.checker;
    let (seq, gid) = (g.d.seq, g.waves[wi].gid);
    let mut found: Vec<(usize, Conflict)> = Vec::new();
    let ops = r.ops;
    c.races.access_run(
        seq,
        &mut race::Accessor::at(gid, r.me, &g.waves[wi].vc, &mut r.seen),
        w.pc,
        &mut g.page,
        plain.len(),
        |k| {
            let n = &plain[k];
            (n.addr, u64::from(n.size), ops[usize::from(n.write)])
        },
        |k, cf| found.push((k, cf)),
    );
    for (k, cf) in found {
        global_race(g, w, i, &plain[k], cf);
    }
    let mut plain = plain;
    plain.clear();
    g.plain = plain;
}

/// `0x1a4 (ds_read_b32 v1, v0)`: a PC as an offset in its code object, with its instruction.
pub(super) fn pc_text(d: &DispatchCheck, pc: u64) -> String {
    let off = d
        .functions
        .code_offset(pc)
        .unwrap_or_else(|| pc.wrapping_sub(d.entry));
    match d.program.at(pc) {
        Some(i) => format!("pc {off:#x} ({})", i.describe()),
        None => format!("pc {off:#x}"),
    }
}

pub(super) fn pc_key(d: &DispatchCheck, pc: u64) -> u64 {
    d.functions
        .code_offset(pc)
        .unwrap_or_else(|| pc.wrapping_sub(d.entry))
}

fn report(g: &GroupCheck, w: &Wave, _i: &Inst, n: &Note, kind: Kind, what: String, other: u64) {
    let d = &g.d;
    let key = (kind, d.kernel.clone(), pc_key(d, w.pc), other);
    d.checker.findings.add(key, || {
        format!(
            "in kernel {} at {}: work-group ({},{},{}) wave {} lane {} {what}",
            d.kernel,
            pc_text(d, w.pc),
            g.wg[0],
            g.wg[1],
            g.wg[2],
            w.id,
            n.lane
        )
    });
}

fn race_report(g: &GroupCheck, w: &Wave, i: &Inst, n: &Note, c: Conflict, what: String) {
    let d = &g.d;
    let other_gid = u64::from(race::gid_of(c.other));
    let per = u64::from(d.waves_per_wg.max(1));
    let (wg_n, wave) = (other_gid / per, other_gid % per);
    let [cx, cy, _] = d.wg_count.map(|x| u64::from(x.max(1)));
    let other_wg = [wg_n % cx, wg_n / cx % cy, wg_n / (cx * cy)];
    let other = format!(
        "; it races with the {} at {} by work-group ({},{},{}) wave {wave}, unordered by any barrier, fence or synchronising atomic",
        if c.other_write { "write" } else { "read" },
        pc_text(d, c.other_pc),
        other_wg[0],
        other_wg[1],
        other_wg[2],
    );
    report(g, w, i, n, Kind::Race, what + &other, pc_key(d, c.other_pc));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Checks;
    use crate::gpu::Program;
    use hsaemu_isa::Gen;

    fn inst(words: &[u32]) -> Inst {
        crate::decode::decode(Gen::Gfx90a, words)
    }

    /// Runs the checks on one lane's access to `addr` by `i`, the memory operation itself
    /// happening between `begin` and `flush` (as `exec::vector_memory` does).
    fn access(g: &mut GroupCheck, w: &Wave, i: &Inst, addr: u64, write: bool) {
        g.begin(w, i);
        g.note(Space::Global, addr, 4, 0, write);
        flush(w, i, g);
    }

    /// rocSPARSE's csrsv publishes x then a `done` flag: store x, `buffer_wbinvl1_vol`,
    /// `global_atomic_or` on the flag; a wave of another work-group polls the flag with GLC
    /// loads, then reads x. The poller may see the flag between the atomic's memory operation
    /// and the end of its instruction (another host thread): the release must be there already.
    /// A race-checking dispatch of two one-wave work-groups.
    fn dispatch(kernel: &str) -> (&'static Checker, Arc<DispatchCheck>) {
        let checker: &'static Checker = Box::leak(Box::new(Checker::new(Checks {
            race: true,
            ..Checks::default()
        })));
        let d = Arc::new(DispatchCheck {
            checker,
            seq: checker.next_dispatch(),
            kernel: kernel.into(),
            blit: false,
            entry: 0,
            functions: Arc::new(Functions::default()),
            program: Arc::new(Program::new(Gen::Gfx90a, 0, Vec::new())),
            wg_count: [2, 1, 1],
            waves_per_wg: 1,
            lds_size: 0,
            private_per_lane: 0,
            slot_size: 0,
        });
        (checker, d)
    }

    /// `ds_gws_barrier` as `exec::vmem` runs it for wave 0 of `g` (checked).
    fn gws_barrier(gws: &crate::gws::Gws, w: &mut Wave, g: &mut GroupCheck) -> crate::gws::Go {
        gws.barrier(w, 0, 1, |e| g.gws_barrier(0, e))
    }

    /// `grid.sync()` (`__ockl_grid_sync`): store, `buffer_wbinvl1_vol`, `s_barrier`, then one
    /// wave per work-group at `ds_gws_barrier`. The reader's wave arrives first and waits; the
    /// writer's arrival opens the barrier and the reader (another host thread) passes at once,
    /// before the writer's instruction has ended. The writer's release must already be there:
    /// it was published at the arrival, under the barrier's lock (it used to be published
    /// after `ds_gws_barrier` returned, a false race in one run of 25 of cooperative_groups).
    #[test]
    fn a_wave_passing_a_gws_barrier_acquires_the_arrival_that_opened_it() {
        use crate::gws::{Go, Gws};
        let (checker, d) = dispatch("grid_sync");
        let gws = Gws::default();
        let x = 0x1000;
        let store = inst(&[0xdc70_8000, 0x007f_0004]); // global_store_dword v[4:5], v0, off
        let load = inst(&[0xdc50_8000, 0x047f_0004]); // global_load_dword v4, v[4:5], off
        let (mut writer, mut reader) = (GroupCheck::new(d.clone()), GroupCheck::new(d));
        writer.launch(0, [0, 0, 0], 1);
        reader.launch(1, [1, 0, 0], 1);
        let (mut ww, mut rw) = (Wave::new(), Wave::new());

        access(&mut writer, &ww, &store, x, true);
        writer.fence(0);
        assert_eq!(gws_barrier(&gws, &mut rw, &mut reader), Go::Retry);
        assert_eq!(gws_barrier(&gws, &mut ww, &mut writer), Go::Next);
        assert_eq!(gws_barrier(&gws, &mut rw, &mut reader), Go::Next);
        access(&mut reader, &rw, &load, x, false);
        assert_eq!(checker.report(), Vec::<String>::new());

        // The next generation the other way round: the writer arrives first and is still
        // waiting (its host thread not yet back) when the reader's arrival opens the barrier.
        let y = 0x2000;
        access(&mut writer, &ww, &store, y, true);
        writer.fence(0);
        assert_eq!(gws_barrier(&gws, &mut ww, &mut writer), Go::Retry);
        assert_eq!(gws_barrier(&gws, &mut rw, &mut reader), Go::Next);
        access(&mut reader, &rw, &load, y, false);
        assert_eq!(checker.report(), Vec::<String>::new());
        assert_eq!(gws_barrier(&gws, &mut ww, &mut writer), Go::Next);
    }

    /// A wave that passes a GWS barrier late acquires only its generation: what another
    /// work-group stored after the barrier and released at the next one still races with it.
    #[test]
    fn a_late_pass_of_a_gws_barrier_does_not_acquire_the_next_generation() {
        use crate::gws::{Go, Gws};
        let (checker, d) = dispatch("grid_sync");
        let gws = Gws::default();
        let y = 0x2000;
        let store = inst(&[0xdc70_8000, 0x007f_0004]); // global_store_dword v[4:5], v0, off
        let load = inst(&[0xdc50_8000, 0x047f_0004]); // global_load_dword v4, v[4:5], off
        let (mut a, mut b) = (GroupCheck::new(d.clone()), GroupCheck::new(d));
        a.launch(0, [0, 0, 0], 1);
        b.launch(1, [1, 0, 0], 1);
        let (mut aw, mut bw) = (Wave::new(), Wave::new());

        assert_eq!(gws_barrier(&gws, &mut aw, &mut a), Go::Retry);
        assert_eq!(gws_barrier(&gws, &mut bw, &mut b), Go::Next);
        // b runs on to the next barrier before a has noticed that the first one opened.
        access(&mut b, &bw, &store, y, true);
        b.fence(0);
        assert_eq!(gws_barrier(&gws, &mut bw, &mut b), Go::Retry);
        assert_eq!(gws_barrier(&gws, &mut aw, &mut a), Go::Next);
        access(&mut a, &aw, &load, y, false);
        let found = checker.report();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("race in kernel grid_sync"), "{found:?}");
    }

    #[test]
    fn a_flag_seen_before_the_releasing_atomic_ends_still_orders_the_data() {
        let (checker, d) = dispatch("csrsv");
        let (x, flag) = (0x1000, 0x2000);
        let store = inst(&[0xdc73_8000, 0x007f_0004]); // global_store_dword v[4:5], v0, off glc slc
        let atomic_or = inst(&[0xdd24_8000, 0x007f_0002]); // global_atomic_or v[2:3], v0, off
        let poll = inst(&[0xdc51_8000, 0x107f_0006]); // global_load_dword v16, v[6:7], off glc
        let load = inst(&[0xdc50_8000, 0x047f_0004]); // global_load_dword v4, v[4:5], off
        let (mut writer, mut reader) = (GroupCheck::new(d.clone()), GroupCheck::new(d));
        writer.launch(0, [0, 0, 0], 1);
        reader.launch(1, [1, 0, 0], 1);
        let w = Wave::new();

        access(&mut writer, &w, &store, x, true);
        writer.fence(0);
        writer.begin(&w, &atomic_or);
        writer.note(Space::Global, flag, 4, 0, true);
        // The flag is set: the reader sees it, acquires, reads x.
        access(&mut reader, &w, &poll, flag, false);
        access(&mut reader, &w, &load, x, false);
        flush(&w, &atomic_or, &mut writer);
        assert_eq!(checker.report(), Vec::<String>::new());

        // Without the flag, the same read races.
        let y = 0x3000;
        access(&mut writer, &w, &store, y, true);
        access(&mut reader, &w, &load, y, false);
        let found = checker.report();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("race in kernel csrsv"), "{found:?}");
    }
}
