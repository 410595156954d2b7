//! The architectural state of one wave (64 lanes; a GFX10 wave32 wave uses lanes 0–31): the
//! scalar register file indexed by operand code (SGPRs, VCC, M0, EXEC, FLAT_SCRATCH, TTMPs in one array), SCC, the VGPR and AGPR files
//! as `[u32; 64]` rows, PC and MODE, and how scalar/vector operands are read and written.

use crate::memory::{PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};

/// Operand codes: 0..=255 are the scalar sources (SGPRs, specials, inline constants, 255 = the
/// literal); `VGPR + n` is VGPR n; `AGPR + n` is AGPR n (see `decode`).
pub(crate) const VGPR: u16 = 256;
/// See [`VGPR`].
pub(crate) const AGPR: u16 = 512;
/// The literal-constant source code.
pub(crate) const LITERAL: u16 = 255;

/// Lanes per wave.
pub(crate) const LANES: usize = 64;
/// One vector register.
pub(crate) type Row = [u32; LANES];

/// Bit `n` of a 32-lane half of a lane mask. A lane's select mask taken as `half & LANE_BIT[n]`
/// and a compare vectorises on SSE2, where a shift by the lane number (a variable 64-bit shift
/// per lane) does not (docs/notes/ci-time.md, Round 39 and "Stop 33").
const LANE_BIT: [u32; 32] = {
    let mut b = [0; 32];
    let mut i = 0;
    while i < 32 {
        b[i] = 1 << i;
        i += 1;
    }
    b
};

/// Lane by lane, `b`'s lane where `mask` has the lane's bit, else `a`'s (`v_cndmask`), all
/// 64 lanes.
pub(crate) fn select_lanes(mask: u64, a: &Row, b: &Row) -> Row {
    let mut r = *a;
    let (rows, _) = r.as_chunks_mut::<32>();
    let (bz, _) = b.as_chunks::<32>();
    for (h, (r, b)) in rows.iter_mut().zip(bz).enumerate() {
        blend32((mask >> (32 * h)) as u32, r, b);
    }
    r
}

/// `row`'s lanes set in `e` taken from `val`: branch-free, each lane's mask from `LANE_BIT`.
#[inline(always)]
fn blend32(e: u32, row: &mut [u32; 32], val: &[u32; 32]) {
    for i in 0..32 {
        let m = u32::from(e & LANE_BIT[i] != 0).wrapping_neg();
        row[i] = (val[i] & m) | (row[i] & !m);
    }
}

/// Runs `$body` for each lane `$l` of a wave: lanes 0–31 when `$wave32` holds, all 64
/// otherwise. The loop is written twice, each of fixed length, so both vectorize; a wave64
/// pays one predictable branch, and a wave32 computes half the lanes.
macro_rules! for_lanes {
    ($wave32:expr, $l:ident, $body:block) => {
        if $wave32 {
            for $l in 0..32 $body
        } else {
            for $l in 0..$crate::wave::LANES $body
        }
    };
}
pub(crate) use for_lanes;

/// Number of rows in the vector file: 256 VGPRs then 256 AGPRs.
pub(crate) const VREGS: usize = 512;

/// How inline constants and literals are read for an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    /// 32-bit (inline floats are f32 bits).
    B32,
    /// 16-bit (inline floats are f16 bits).
    B16,
    /// 64-bit integer (inline ints sign-extended, literal zero-extended).
    I64,
    /// 64-bit float (inline floats are f64 bits, literal is the high dword).
    F64,
}

/// Run state of a wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaveState {
    Running,
    Barrier,
    Done,
}

/// A wave's VGPR (and AGPR) file: [`VREGS`] rows, zeroed, in one page-aligned allocation,
/// starting [`Vgprs::COLOR`] bytes times the wave's *color* (its index in the work-group)
/// into it. A `Vec<Row>` came from `malloc`: at 16 bytes into a page when it maps one, 16
/// bytes past the previous file when it takes them from its heap (the process' history
/// decides), so a row straddled five 64-byte lines (three of a wave32's half row), and row
/// `r` of every wave of a work-group fell into the same sets of the host's L1 data cache
/// (32 KB, 8 ways: addresses 4 KB apart share a set): gfx1030's matmul, eight wave32s whose
/// rows use only the sets of their first 128 bytes, missed it 28 M times per dispatch to
/// gfx90a's 3 M (callgrind's cache simulation). Colored, a wave's rows are whole lines, and
/// the next wave's lie 128 bytes further on: in the sets the first wave's halves leave free.
pub(crate) struct Vgprs {
    /// Row 0 (the allocation's start plus the color's offset).
    rows: std::ptr::NonNull<Row>,
    /// The offset of row 0 in the allocation, in bytes.
    offset: usize,
}

impl Vgprs {
    /// Bytes between the files of two consecutive colors: half a row (a wave32's rows).
    pub(crate) const COLOR: usize = 128;
    /// Colors before they repeat: 32 × 128 bytes cover the 4 KB of one cache way.
    const COLORS: usize = 32;

    /// The allocation: the rows and room for the largest color's offset.
    fn layout() -> std::alloc::Layout {
        std::alloc::Layout::from_size_align(
            VREGS * std::mem::size_of::<Row>() + (Self::COLORS - 1) * Self::COLOR,
            4096,
        )
        .expect("a constant, valid layout")
    }

    /// A zeroed file of color `color` (taken modulo 32).
    pub(crate) fn new(color: usize) -> Vgprs {
        let layout = Self::layout();
        // SAFETY: the layout's size is not zero.
        let base = unsafe { std::alloc::alloc_zeroed(layout) };
        if base.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        let offset = color % Self::COLORS * Self::COLOR;
        // SAFETY: `offset` plus the rows' bytes lie inside the allocation; the sum is not
        // null, and it is aligned for `Row` (4 bytes: 4096 and 128 are multiples).
        let rows = unsafe { std::ptr::NonNull::new_unchecked(base.add(offset).cast::<Row>()) };
        Vgprs { rows, offset }
    }
}

impl std::ops::Deref for Vgprs {
    type Target = [Row];
    #[inline(always)]
    fn deref(&self) -> &[Row] {
        // SAFETY: `rows` points at VREGS initialised rows owned by this file (`new`).
        unsafe { std::slice::from_raw_parts(self.rows.as_ptr(), VREGS) }
    }
}

impl std::ops::DerefMut for Vgprs {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Row] {
        // SAFETY: as `deref`'s; `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.rows.as_ptr(), VREGS) }
    }
}

impl Drop for Vgprs {
    fn drop(&mut self) {
        // SAFETY: the allocation `new` made with this layout, `offset` bytes before `rows`.
        unsafe {
            std::alloc::dealloc(
                self.rows.as_ptr().cast::<u8>().sub(self.offset),
                Self::layout(),
            )
        };
    }
}

// SAFETY: a `Vgprs` owns its rows alone, as a `Box<[Row]>` would.
unsafe impl Send for Vgprs {}
// SAFETY: shared references only read, as a `Box<[Row]>`'s.
unsafe impl Sync for Vgprs {}

/// One wave.
pub(crate) struct Wave {
    /// Scalar file by operand code 0..=127 (s0–s101, flat_scratch, xnack_mask, vcc, ttmp, m0,
    /// exec).
    pub s: [u32; 128],
    pub scc: bool,
    pub v: Vgprs,
    pub pc: u64,
    pub mode: u32,
    pub trapsts: u32,
    pub state: WaveState,
    /// Index of the wave in its work-group.
    pub id: u32,
    /// The emulated compute unit of its work-group (HW_ID's CU_ID, SH_ID and SE_ID fields;
    /// see `residency::cu_of`).
    pub cu: u32,
    /// HW_ID's SIMD_ID: the host worker running the work-group, modulo 4 (which SIMD of a CU
    /// a wave occupies is the hardware's choice; the emulator's tells tests which work-groups
    /// share a host thread).
    pub simd: u32,
    /// The global wave sync barrier (resource, generation) the wave waits at.
    pub gws_wait: Option<(u8, u64)>,
    /// Whether the wave stored to global memory since its last host fence.
    pub stored: bool,
    /// Host address of this wave's scratch slot (0 when the kernel has none).
    pub scratch_base: u64,
    /// Wave-instructions executed.
    pub instructions: u64,
    /// Sum of active lanes over vector instructions.
    pub lane_ops: u64,
    /// Remaining sleep (in scheduler turns).
    pub sleep: u32,
    /// Instructions a compiled region ran after the `s_barrier` it parked the wave at (its
    /// barrier tail, `jit::after_barrier`): the dispatcher counts them in the wave's next
    /// turn, which the interpreter would have begun with them, so turns end where its do.
    pub ahead: u32,
    /// The bytes of that tail, while `ahead` is not 0: the PC less them is the interpreter's
    /// PC (the instruction after the `s_barrier`), which a stop's report names.
    pub ahead_size: u32,
    /// A GFX10 wave32 wave: lanes 0–31 of the 64-lane rows, EXEC_HI kept 0, lane masks (VCC,
    /// compare results, carries) one SGPR wide. Lanes 32–63 of its vector registers are never
    /// read (every cross-lane operation stays within the wave's 32 lanes).
    pub wave32: bool,
    /// The wave's lanes as a mask: `u64::MAX`, or the low 32 bits in wave32.
    pub lane_mask: u64,
    /// GFX10 FLAT_SCRATCH (hwregs FLAT_SCR_LO/HI, written by the kernel prologue).
    pub flat_scratch: u64,
    /// What the dispatch's set-up knows of the ID rows in every lane of the wave, while
    /// `instructions` is 0 (`ID_ROW0_LANE`, `ID_ROW1_UNIFORM`): a compiled region entered at
    /// the kernel's first instruction then skips testing them (`jit/affine.rs`). Set only
    /// for a wave lying in the first row of X (lane 0 of v0 its first work-item, v1 0): a
    /// pair's wave B then continues A's lanes. Bits 2–3 (`ID_ROWS_LAZY_SHIFT`): those rows
    /// hold lanes 0–3 alone (`dispatch.rs`' `launch`, `ids_filled`).
    pub id_rows: u8,
    /// Which groups of four SGPRs may hold something other than zero (bit `g`: s[4g..4g+4]),
    /// for [`Wave::start`], which zeroes only those: set as the dispatcher writes them, to
    /// all ones when the interpreter runs the wave, and ORed with a compiled region's
    /// [`sgpr_groups`] after it ran.
    pub sgpr_dirty: u32,
    /// Rows 0–63 (bit `r`) a compiled region found in the 16-lane tile shape (every lane `l`
    /// = lane 0 + (lane 1 − lane 0)·(l mod 16) + (lane 16 − lane 0)·(l / 16)) and nothing
    /// wrote since but a full-EXEC add of a scalar: a later region's tile test skips them
    /// (`jit/tiles.rs`). Cleared by `start`, by every interpreted instruction (`exec::step`)
    /// and, for the rows a region may write, at each region's entry (not those its code
    /// only moves by a scalar, `shape_kept`, when EXEC is full; not those a compare of the
    /// region takes on their marks, `jit/row_cmp.rs`, which each write clears). Such a
    /// compare also marks the rows it tested (`base + lane`, or one value).
    pub tile_marks: u64,
    /// Rows 0–63 (bit `r`) whose `ds_tops[r]` a compiled region's DS run check wrote and
    /// nothing wrote since (cleared as `tile_marks` is).
    pub ds_marks: u64,
    /// Per row: a DS run check's result (`jit/inline_lds.rs`' `ds_run_checks`): the highest
    /// lane address (low half) and, above it, which shape was found (0: none).
    pub ds_tops: [u64; 64],
}

/// The groups of four SGPRs (bit `g`: s[4g..4g+4]) holding the `width` SGPRs from `code`
/// (codes past the scalar file are not SGPRs).
pub(crate) const fn sgpr_groups(code: u16, width: u16) -> u32 {
    let mut m = 0u32;
    let mut c = code;
    while c < 128 && c < code.saturating_add(width) {
        m |= 1 << (c / 4);
        c += 1;
    }
    m
}

/// `Wave::id_rows`: v0 holds lane 0's value plus the lane index.
pub(crate) const ID_ROW0_LANE: u8 = 1;
/// `Wave::id_rows`: v1 holds lane 0's value in every lane.
pub(crate) const ID_ROW1_UNIFORM: u8 = 2;
/// `Wave::id_rows`: the vouched rows (bits 0–1) shifted by this are held in lanes 0–3 alone
/// (the dispatcher's `ids_filled` writes the other lanes before anything but the worker's
/// fresh pair block, which takes them from lane 0, can read them: `jit::Block::lazy_ids`).
pub(crate) const ID_ROWS_LAZY_SHIFT: u8 = 2;

impl Wave {
    pub(crate) fn new() -> Wave {
        Wave::colored(0)
    }

    /// A wave whose VGPR file has color `color` ([`Vgprs`]): the wave's index in its
    /// work-group, so that the waves' rows fall into different cache sets.
    pub(crate) fn colored(color: usize) -> Wave {
        Wave {
            s: [0; 128],
            scc: false,
            v: Vgprs::new(color),
            pc: 0,
            mode: 0,
            trapsts: 0,
            state: WaveState::Done,
            id: 0,
            cu: 0,
            simd: 0,
            gws_wait: None,
            stored: false,
            scratch_base: 0,
            instructions: 0,
            ahead: 0,
            ahead_size: 0,
            lane_ops: 0,
            sleep: 0,
            wave32: false,
            lane_mask: u64::MAX,
            id_rows: 0,
            sgpr_dirty: 0,
            tile_marks: 0,
            ds_marks: 0,
            ds_tops: [0; 64],
            flat_scratch: 0,
        }
    }

    /// Makes this a wave32 (`true`) or wave64 wave.
    pub(crate) fn set_wave32(&mut self, wave32: bool) {
        self.wave32 = wave32;
        self.lane_mask = if wave32 { 0xffff_ffff } else { u64::MAX };
    }

    /// Lanes in the wave (32 or 64).
    #[inline]
    pub(crate) fn size(&self) -> usize {
        self.lane_mask.count_ones() as usize
    }

    #[inline]
    pub(crate) fn exec(&self) -> u64 {
        u64::from(self.s[126]) | u64::from(self.s[127]) << 32
    }
    #[inline]
    pub(crate) fn set_exec(&mut self, v: u64) {
        self.s[126] = v as u32;
        self.s[127] = (v >> 32) as u32;
    }
    /// VCC as a lane mask (VCC_LO in wave32).
    #[inline]
    pub(crate) fn vcc(&self) -> u64 {
        (u64::from(self.s[106]) | u64::from(self.s[107]) << 32) & self.lane_mask
    }

    /// Merges `v` into the lanes `wmask` selects of a lane-mask destination (a carry-out, the
    /// VCC of `v_div_scale`). In wave32 `wmask` has no high bits, so the second SGPR is written
    /// back unchanged: one read-modify-write serves both wave sizes.
    #[inline(always)]
    pub(crate) fn merge_mask(&mut self, code: u16, v: u64, wmask: u64) {
        if code < 127 {
            let c = code as usize;
            let old = u64::from(self.s[c]) | u64::from(self.s[c + 1]) << 32;
            let new = (old & !wmask) | (v & wmask);
            self.s[c] = new as u32;
            self.s[c + 1] = (new >> 32) as u32;
        }
    }

    /// Writes a lane-mask operand (a compare's VCC or SGPRs): one SGPR in wave32, a pair in
    /// wave64. Masks that VALU instructions apply lane by lane (a carry-in, a `v_cndmask`
    /// select) are read 64 bits wide in wave32 too: the high half reaches only lanes 32–63,
    /// which are never read; [`Wave::vcc`] masks it for `vccz` and the branches.
    #[inline(always)]
    pub(crate) fn write_mask(&mut self, code: u16, v: u64) {
        if code < 127 {
            let c = code as usize;
            self.s[c] = v as u32;
            if !self.wave32 {
                self.s[c + 1] = (v >> 32) as u32;
            }
        }
    }
    #[inline]
    pub(crate) fn m0(&self) -> u32 {
        self.s[124]
    }

    /// Reads a scalar operand code (0..=255) as 32 bits.
    #[inline]
    pub(crate) fn sread(&self, code: u16, lit: u32, ty: Ty) -> u32 {
        match code {
            0..=127 => self.s[code as usize],
            128..=192 => u32::from(code - 128),
            193..=208 => (-(i32::from(code) - 192)) as u32,
            235 => SHARED_APERTURE_HI,
            236 => SHARED_APERTURE_HI,
            237 => PRIVATE_APERTURE_HI,
            238 => PRIVATE_APERTURE_HI,
            240..=248 => inline_float(code, ty) as u32,
            251 => u32::from(self.vcc() == 0),
            252 => u32::from(self.exec() == 0),
            253 => u32::from(self.scc),
            LITERAL => lit,
            _ => 0,
        }
    }

    /// Reads a scalar operand code as 64 bits (register pairs, extended constants).
    #[inline]
    pub(crate) fn sread64(&self, code: u16, lit: u32, ty: Ty) -> u64 {
        match code {
            0..=126 => {
                u64::from(self.s[code as usize]) | u64::from(self.s[code as usize + 1]) << 32
            }
            128..=192 => u64::from(code - 128),
            193..=208 => (-(i64::from(code) - 192)) as u64,
            235 => u64::from(SHARED_APERTURE_HI) << 32,
            236 => u64::from(SHARED_APERTURE_HI) << 32 | 0xffff_ffff,
            237 => u64::from(PRIVATE_APERTURE_HI) << 32,
            238 => u64::from(PRIVATE_APERTURE_HI) << 32 | 0xffff_ffff,
            240..=248 => inline_float(code, ty),
            LITERAL if ty == Ty::F64 => u64::from(lit) << 32,
            LITERAL => u64::from(lit),
            _ => u64::from(self.sread(code, lit, ty)),
        }
    }

    /// Writes a scalar destination code (writes to constants are ignored).
    #[inline]
    pub(crate) fn swrite(&mut self, code: u16, v: u32) {
        if code < 128 {
            self.s[code as usize] = v;
        }
    }
    #[inline]
    pub(crate) fn swrite64(&mut self, code: u16, v: u64) {
        if code < 127 {
            self.s[code as usize] = v as u32;
            self.s[code as usize + 1] = (v >> 32) as u32;
        }
    }

    /// A vector source as 64 lanes of 32 bits (VGPR/AGPR row, or a broadcast scalar).
    #[inline]
    pub(crate) fn vsrc(&self, code: u16, lit: u32, ty: Ty) -> Row {
        if code >= VGPR {
            self.v[reg_index(code)]
        } else {
            [self.sread(code, lit, ty); LANES]
        }
    }

    /// A vector source as 64 lanes of 64 bits.
    #[inline]
    pub(crate) fn vsrc64(&self, code: u16, lit: u32, ty: Ty) -> [u64; LANES] {
        if code >= VGPR {
            let r = reg_index(code);
            let lo = &self.v[r];
            let hi = &self.v[(r + 1) % VREGS];
            let mut out = [0u64; LANES];
            for_lanes!(self.wave32, i, {
                out[i] = u64::from(lo[i]) | u64::from(hi[i]) << 32;
            });
            out
        } else {
            [self.sread64(code, lit, ty); LANES]
        }
    }

    /// Writes the active lanes of a vector destination.
    #[inline]
    pub(crate) fn vwrite(&mut self, code: u16, val: &Row, exec: u64) {
        let row = &mut self.v[reg_index(code)];
        // Every lane of the wave active (lanes 32–63 of a wave32 wave are never read): a copy
        // of the whole row, so a register copy keeps its lanes 32–63 too.
        if exec == u64::MAX || exec == self.lane_mask {
            *row = *val;
            return;
        }
        // 32 lanes at a time (`blend32`).
        let halves = if self.wave32 { 1 } else { LANES / 32 };
        let (rows, _) = row.as_chunks_mut::<32>();
        let (vals, _) = val.as_chunks::<32>();
        for (h, (row, val)) in rows.iter_mut().zip(vals).take(halves).enumerate() {
            blend32((exec >> (32 * h)) as u32, row, val);
        }
    }

    /// Writes the active lanes of a 64-bit vector destination (a register pair).
    #[inline(always)]
    pub(crate) fn vwrite64(&mut self, code: u16, val: &[u64; LANES], exec: u64) {
        let r = reg_index(code);
        let mut lo = [0u32; LANES];
        let mut hi = [0u32; LANES];
        for_lanes!(self.wave32, i, {
            lo[i] = val[i] as u32;
            hi[i] = (val[i] >> 32) as u32;
        });
        let _ = r;
        self.vwrite(code, &lo, exec);
        self.vwrite(code + 1, &hi, exec);
    }

    /// Lane `lane` of a vector register code.
    #[inline]
    pub(crate) fn lane(&self, code: u16, lane: usize) -> u32 {
        self.v[reg_index(code)][lane % LANES]
    }
    #[inline]
    pub(crate) fn set_lane(&mut self, code: u16, lane: usize, v: u32) {
        self.v[reg_index(code)][lane % LANES] = v;
    }

    /// Sets up a fresh wave (called at work-group launch): its first SGPRs `user`, EXEC
    /// `exec` (the rest zero), a wave32 (`true`) or wave64 wave, nothing run yet.
    #[inline(always)]
    pub(crate) fn start<const N: usize>(&mut self, user: &[u32; N], wave32: bool, exec: u64) {
        const { assert!(N.is_multiple_of(4) && N < 124) };
        // Zeroed first: the SGPRs that something may have written since they were last
        // zeroed (`sgpr_dirty`) and that hold something, but the user SGPRs and the last
        // group (M0, NULL, EXEC), written whole below. Testing all 112 SGPRs per wave,
        // behind the SGPRs the last region stored, was half of gfx1030 vector add's set-up
        // outside the region (and storing all 512 bytes a fifth before that: the stores
        // wait for the store buffer; loads do not).
        const LAST: u32 = 1 << 31;
        let mut dirty = self.sgpr_dirty & !const { sgpr_groups(0, N as u16) | LAST };
        if self.sgpr_dirty != u32::MAX {
            // A compiled region's few: by groups of four.
            let (groups, _) = self.s.as_chunks_mut::<4>();
            while dirty != 0 {
                let g = dirty.trailing_zeros() as usize;
                dirty &= dirty - 1;
                let c = &mut groups[g % 32];
                if c[0] | c[1] | c[2] | c[3] != 0 {
                    *c = [0; 4];
                }
            }
        } else {
            // After the interpreter (all of them): by chunks of 16.
            let (chunks, _) = self.s.as_chunks_mut::<16>();
            for (k, c) in chunks.iter_mut().enumerate() {
                if dirty >> (4 * k) & 0xf != 0 && c.iter().fold(0, |a, &x| a | x) != 0 {
                    *c = [0; 16];
                }
            }
        }
        self.s[..N].copy_from_slice(user);
        self.s[124..].copy_from_slice(&[0, 0, exec as u32, (exec >> 32) as u32]);
        self.sgpr_dirty = const { sgpr_groups(0, N as u16) | LAST };
        self.fresh_fields();
        self.set_wave32(wave32);
    }

    /// Sets this wave up again as a fresh wave of the work-group it was set up for (its wave
    /// size, CU and SIMD kept), where its scalar file differs from another wave's set-up
    /// only in the SGPR groups `groups` (bit `g`: s[4g..4g+4]) and the per-wave SGPRs: those
    /// groups from `s` (that wave's, as set up; the others unread), its `sgpr_dirty` `dirty`,
    /// and the fields as [`Wave::start`] leaves them. The caller writes what differs per
    /// wave (its ID, PC, MODE, per-wave SGPRs and ID rows), as for a started wave.
    #[inline(always)]
    pub(crate) fn restart(&mut self, s: &[[u32; 4]; 32], groups: u32, dirty: u32) {
        let mut g = groups;
        let (to, _) = self.s.as_chunks_mut::<4>();
        while g != 0 {
            let k = g.trailing_zeros() as usize % 32;
            g &= g - 1;
            to[k] = s[k];
        }
        self.sgpr_dirty = dirty;
        self.fresh_fields();
    }

    /// The fields of a wave that has run nothing (`start`, `restart`).
    #[inline(always)]
    fn fresh_fields(&mut self) {
        self.scc = false;
        self.state = WaveState::Running;
        self.stored = false;
        // Usually zero already: tested, stored only when not (a store here cost more CPU
        // time than the loads and tests, docs/notes/ci-time.md, Round 45).
        if self.trapsts | self.sleep | self.ahead != 0 || self.flat_scratch != 0 {
            self.trapsts = 0;
            self.sleep = 0;
            self.ahead = 0;
            self.flat_scratch = 0;
        }
        if self.gws_wait.is_some() {
            self.gws_wait = None;
        }
        self.id_rows = 0;
        self.tile_marks = 0;
        self.ds_marks = 0;
        self.instructions = 0;
        self.lane_ops = 0;
    }
}

/// Row index of a VGPR/AGPR code.
#[inline]
pub(crate) fn reg_index(code: u16) -> usize {
    if code >= AGPR {
        (256 + (code - AGPR) as usize) % VREGS
    } else {
        (code - VGPR) as usize % VREGS
    }
}

/// The inline integer constant of operand code `code` (128–192: 0 to 64, 193–208: −1 to
/// −16), or `None` for any other code.
pub(crate) fn inline_int(code: u16) -> Option<i32> {
    match code {
        128..=192 => Some(i32::from(code) - 128),
        193..=208 => Some(192 - i32::from(code)),
        _ => None,
    }
}

/// The inline float constants 240..=248 for an operand type.
pub(crate) fn inline_float(code: u16, ty: Ty) -> u64 {
    let f: f64 = match code {
        240 => 0.5,
        241 => -0.5,
        242 => 1.0,
        243 => -1.0,
        244 => 2.0,
        245 => -2.0,
        246 => 4.0,
        247 => -4.0,
        _ => 0.159_154_943_091_895_35, // 1/(2π)
    };
    match ty {
        Ty::B32 => {
            if code == 248 {
                0x3e22_f983
            } else {
                u64::from((f as f32).to_bits())
            }
        }
        Ty::B16 => {
            if code == 248 {
                0x3118
            } else {
                u64::from(half::f16::from_f64(f).to_bits())
            }
        }
        Ty::I64 | Ty::F64 => {
            if code == 248 {
                0x3fc4_5f30_6dc9_c882
            } else {
                f.to_bits()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wave's VGPR file starts on a line, its color's 128 bytes past the previous color's
    /// in the 4 KB of a cache way, zeroed, and holds what is written to any row.
    #[test]
    fn vgpr_files_are_whole_lines_colored_by_wave() {
        for color in 0..33 {
            let mut w = Wave::colored(color);
            let at = w.v.as_ptr() as usize;
            assert_eq!(
                at % 4096,
                color % 32 * 128,
                "color {color}: row 0 at {at:#x}"
            );
            assert_eq!(w.v.len(), VREGS);
            assert!(w.v.iter().all(|r| r.iter().all(|&x| x == 0)), "zeroed");
            w.v[VREGS - 1][LANES - 1] = 5;
            w.v[0][0] = 7;
            assert_eq!((w.v[0][0], w.v[VREGS - 1][LANES - 1]), (7, 5));
        }
    }
}
