//! Wave traces (`hsaemu exec --trace-wave=KERNEL[:WG[:WAVE]]`, `HSAEMU_TRACE_WAVE`): every
//! instruction the chosen waves execute, with its PC, text and EXEC, and what it wrote: the
//! scalar and vector registers that changed (per lane), SCC, the global memory a FLAT/GLOBAL
//! store or atomic wrote (per lane, read back after the instruction), the LDS bytes a DS
//! instruction changed and the private (scratch) dwords a store changed. The lines go to `HSAEMU_TRACE_WAVE_FILE` (default
//! `hsaemu-wave-trace.txt`).
//!
//! Costs nothing when off: the scheduler picks the traced loop per wave turn (not per
//! instruction) for the work-groups [`Tracer::selects_wg`] chose at launch; every other wave
//! runs the usual loop, whose observer is `()` and compiles away.

use crate::decode::{Fmt, Inst, Kind};
use crate::wave::{Row, Wave, LANES, VGPR, VREGS};
use parking_lot::Mutex;
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::OnceLock;

/// Which waves to trace: `KERNEL[:WG[:WAVE]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveSelector {
    /// The kernel: its exact name or a part of it.
    pub kernel: String,
    /// The work-group.
    pub workgroup: WorkGroup,
    /// The wave in the work-group (None: every wave).
    pub wave: Option<u32>,
}

/// A work-group: its index in launch order (x fastest), or its ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkGroup {
    /// The n-th work-group (x + y·gx + z·gx·gy).
    Index(u64),
    /// The work-group ID (x, y, z).
    Id([u32; 3]),
}

impl WaveSelector {
    /// Parses `KERNEL[:WG[:WAVE]]`; WG is `N` or `X,Y,Z` (default 0), WAVE a number.
    pub fn parse(spec: &str) -> Result<WaveSelector, String> {
        let bad = |why: &str| {
            format!("--trace-wave `{spec}`: {why} (expected KERNEL[:WG[:WAVE]], WG = N or X,Y,Z)")
        };
        // The kernel name comes first; the numeric fields are taken from the end.
        let mut parts: Vec<&str> = spec.split(':').collect();
        let numeric = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit() || c == ',');
        let mut fields = Vec::new();
        while parts.len() > 1 && fields.len() < 2 && parts.last().is_some_and(|p| numeric(p)) {
            fields.insert(0, parts.pop().unwrap_or_default());
        }
        let kernel = parts.join(":");
        if kernel.is_empty() {
            return Err(bad("no kernel name"));
        }
        let workgroup = match fields.first() {
            None => WorkGroup::Index(0),
            Some(wg) if wg.contains(',') => {
                let v: Vec<u32> = wg
                    .split(',')
                    .map(|x| x.parse::<u32>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| bad("bad work-group ID"))?;
                match v[..] {
                    [x, y] => WorkGroup::Id([x, y, 0]),
                    [x, y, z] => WorkGroup::Id([x, y, z]),
                    _ => return Err(bad("a work-group ID has 2 or 3 fields")),
                }
            }
            Some(wg) => WorkGroup::Index(wg.parse().map_err(|_| bad("bad work-group index"))?),
        };
        let wave = match fields.get(1) {
            None => None,
            Some(w) => Some(w.parse().map_err(|_| bad("bad wave number"))?),
        };
        Ok(WaveSelector {
            kernel,
            workgroup,
            wave,
        })
    }
}

/// The process's wave tracing, from `HSAEMU_TRACE_WAVE` (read once): the selector and the
/// output file. An unreadable selector or file is reported once on stderr and traces nothing.
fn config() -> Option<&'static (WaveSelector, Mutex<std::fs::File>)> {
    static CONFIG: OnceLock<Option<(WaveSelector, Mutex<std::fs::File>)>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let spec = std::env::var("HSAEMU_TRACE_WAVE").ok()?;
            let sel = WaveSelector::parse(&spec)
                .map_err(|e| eprintln!("hsaemu: HSAEMU_TRACE_WAVE: {e}"))
                .ok()?;
            let path = std::env::var("HSAEMU_TRACE_WAVE_FILE")
                .unwrap_or_else(|_| "hsaemu-wave-trace.txt".into());
            let file = std::fs::File::create(&path)
                .map_err(|e| eprintln!("hsaemu: HSAEMU_TRACE_WAVE_FILE {path}: {e}"))
                .ok()?;
            Some((sel, Mutex::new(file)))
        })
        .as_ref()
}

/// Tracing of one dispatch.
pub(crate) struct Tracer {
    sel: &'static WaveSelector,
    file: &'static Mutex<std::fs::File>,
}

impl Tracer {
    /// The tracer of a dispatch of `kernel`, if `HSAEMU_TRACE_WAVE` selects it; writes the
    /// dispatch's header line.
    pub(crate) fn for_dispatch(
        kernel: Option<&str>,
        grid: [u32; 3],
        block: [u16; 3],
    ) -> Option<Tracer> {
        let (sel, file) = config()?;
        let name = kernel?;
        if name != sel.kernel && !name.contains(&sel.kernel) {
            return None;
        }
        let t = Tracer { sel, file };
        let wave = sel
            .wave
            .map_or_else(|| "every wave".to_string(), |w| format!("wave {w}"));
        let wg = match sel.workgroup {
            WorkGroup::Index(n) => format!("work-group #{n}"),
            WorkGroup::Id([x, y, z]) => format!("work-group ({x},{y},{z})"),
        };
        t.write(&format!(
            "# dispatch of {name}: grid {grid:?}, work-group size {block:?}; tracing {wave} of {wg}\n"
        ));
        Some(t)
    }

    /// Whether the `n`-th work-group (ID `id`) is traced.
    pub(crate) fn selects_wg(&self, n: u64, id: [u32; 3]) -> bool {
        match self.sel.workgroup {
            WorkGroup::Index(k) => k == n,
            WorkGroup::Id(want) => want == id,
        }
    }

    /// Whether wave `wave` of a traced work-group is traced.
    pub(crate) fn selects_wave(&self, wave: u32) -> bool {
        self.sel.wave.is_none_or(|w| w == wave)
    }

    pub(crate) fn write(&self, text: &str) {
        // A failing trace file must not stop the program; the first error is enough.
        let _ = self.file.lock().write_all(text.as_bytes());
    }
}

/// What the scheduler's wave loop tells an observer around each instruction.
pub(crate) trait Observer {
    /// Whether it looks at every instruction (the compiling tier stays off then).
    const ACTIVE: bool = true;
    fn before(&mut self, w: &Wave, inst: &Inst, lds: &[u8]);
    fn after(&mut self, w: &Wave, inst: &Inst, lds: &[u8], fault: bool);
}

/// No observer: the normal loop.
impl Observer for () {
    const ACTIVE: bool = false;
    #[inline(always)]
    fn before(&mut self, _: &Wave, _: &Inst, _: &[u8]) {}
    #[inline(always)]
    fn after(&mut self, _: &Wave, _: &Inst, _: &[u8], _: bool) {}
}

/// Records one traced wave's instructions for one scheduler turn; the lines go to the file
/// when it is dropped.
pub(crate) struct WaveRecorder<'t> {
    tracer: &'t Tracer,
    mem: &'t crate::memory::MemoryMap,
    prefix: String,
    /// Code offset of the PC (its address minus this) for the listing.
    code_base: u64,
    out: String,
    pc: u64,
    s: [u32; 128],
    scc: bool,
    v: Vec<Row>,
    lds: Vec<u8>,
    /// Global addresses a store or atomic writes: (lane, address, bytes).
    writes: Vec<(usize, u64, u32)>,
    /// Bytes of the wave's private (scratch) slot; its copy before a store that may reach it.
    pub(crate) slot_size: u64,
    private: Vec<u8>,
}

impl<'t> WaveRecorder<'t> {
    pub(crate) fn new(
        tracer: &'t Tracer,
        mem: &'t crate::memory::MemoryMap,
        wg: [u32; 3],
        wave: u32,
        code_base: u64,
    ) -> Self {
        WaveRecorder {
            tracer,
            mem,
            prefix: format!("wg({},{},{}) w{wave}", wg[0], wg[1], wg[2]),
            code_base,
            out: String::new(),
            pc: 0,
            s: [0; 128],
            scc: false,
            v: vec![[0; LANES]; VREGS],
            lds: Vec::new(),
            writes: Vec::new(),
            slot_size: 0,
            private: Vec::new(),
        }
    }
}

impl Drop for WaveRecorder<'_> {
    fn drop(&mut self) {
        if !self.out.is_empty() {
            self.tracer.write(&self.out);
        }
    }
}

/// The name of scalar operand code `r`.
fn sgpr_name(r: usize) -> String {
    match r {
        0..=101 => format!("s{r}"),
        102 => "flat_scratch_lo".into(),
        103 => "flat_scratch_hi".into(),
        104 => "xnack_mask_lo".into(),
        105 => "xnack_mask_hi".into(),
        106 => "vcc_lo".into(),
        107 => "vcc_hi".into(),
        108..=123 => format!("ttmp{}", r - 108),
        124 => "m0".into(),
        126 => "exec_lo".into(),
        127 => "exec_hi".into(),
        _ => format!("sgpr_code{r}"),
    }
}

fn vgpr_name(row: usize) -> String {
    if row < 256 {
        format!("v{row}")
    } else {
        format!("a{}", row - 256)
    }
}

/// The per-lane global addresses of a FLAT/GLOBAL instruction (before it runs), for the
/// lanes in `exec`: the 64-bit VGPR pair, or SGPR base plus 32-bit VGPR offset, plus the
/// immediate offset.
fn flat_addresses(w: &Wave, i: &Inst, exec: u64) -> Vec<(usize, u64)> {
    if i.src[0] < VGPR {
        return Vec::new();
    }
    let r = crate::wave::reg_index(i.src[0]);
    let off = i64::from(i.imm) as u64;
    let saddr = i.fmt == Fmt::Global && i.src[2] != 0x7f;
    let base = if saddr {
        w.sread64(i.src[2], 0, crate::wave::Ty::I64)
    } else {
        0
    };
    (0..LANES)
        .filter(|&l| exec >> l & 1 != 0)
        .map(|l| {
            let a = if saddr {
                base.wrapping_add(u64::from(w.v[r][l]))
            } else {
                u64::from(w.v[r][l]) | u64::from(w.v[(r + 1) % VREGS][l]) << 32
            };
            (l, a.wrapping_add(off))
        })
        .collect()
}

impl Observer for WaveRecorder<'_> {
    fn before(&mut self, w: &Wave, i: &Inst, lds: &[u8]) {
        self.pc = w.pc;
        self.s = w.s;
        self.scc = w.scc;
        self.v.copy_from_slice(&w.v);
        let writes = matches!(i.mem.kind, Kind::Store | Kind::Atomic);
        self.lds.clear();
        self.writes.clear();
        self.private.clear();
        // SCRATCH, MUBUF (spills) and FLAT stores may write the wave's private slot: keep a
        // copy to compare (slots up to 16 MiB).
        if writes
            && matches!(i.fmt, Fmt::Scratch | Fmt::Mubuf | Fmt::Flat)
            && w.scratch_base != 0
            && self.slot_size <= 16 << 20
            && self.mem.contains(w.scratch_base, self.slot_size)
        {
            self.private = crate::memory::host::read_bytes(w.scratch_base, self.slot_size);
        }
        if writes && i.fmt == Fmt::Ds {
            self.lds.extend_from_slice(lds);
        }
        if writes && matches!(i.fmt, Fmt::Flat | Fmt::Global) {
            let bytes = u32::from(i.mem.bytes) * u32::from(i.mem.count.max(1));
            self.writes = flat_addresses(w, i, w.exec() & w.lane_mask)
                .into_iter()
                .map(|(l, a)| (l, a, bytes))
                .collect();
        }
    }

    fn after(&mut self, w: &Wave, i: &Inst, lds: &[u8], fault: bool) {
        let o = &mut self.out;
        let _ = writeln!(
            o,
            "{} pc {:#x} exec {:#018x}  {}",
            self.prefix,
            self.pc.wrapping_sub(self.code_base),
            self.s[126] as u64 | (self.s[127] as u64) << 32,
            i.describe()
        );
        if fault {
            let _ = writeln!(o, "    -> fault (see the dispatch's report)");
            return;
        }
        for r in 0..128 {
            if w.s[r] != self.s[r] {
                let _ = writeln!(o, "    {} = {:#010x}", sgpr_name(r), w.s[r]);
            }
        }
        if w.scc != self.scc {
            let _ = writeln!(o, "    scc = {}", u8::from(w.scc));
        }
        let lanes = w.size();
        for (row, (new, old)) in w.v.iter().zip(self.v.iter()).enumerate() {
            if new[..lanes] == old[..lanes] {
                continue;
            }
            let _ = write!(o, "    {} =", vgpr_name(row));
            for l in (0..lanes).filter(|&l| new[l] != old[l]) {
                let _ = write!(o, " [{l}]{:#x}", new[l]);
            }
            o.push('\n');
        }
        if !self.lds.is_empty() {
            // Changed LDS dwords.
            for (k, (new, old)) in lds.chunks(4).zip(self.lds.chunks(4)).enumerate() {
                if new != old {
                    let mut v = [0u8; 4];
                    v[..new.len()].copy_from_slice(new);
                    let _ = writeln!(o, "    lds[{:#x}] = {:#010x}", 4 * k, u32::from_le_bytes(v));
                }
            }
        }
        if !self.private.is_empty() {
            // Changed private dwords, by lane and offset (the swizzle of code-object-abi.md
            // §5.3: dword k of the slot is lane k % lanes, private dword k / lanes).
            let now = crate::memory::host::read_bytes(w.scratch_base, self.slot_size);
            for (k, (new, old)) in now.chunks(4).zip(self.private.chunks(4)).enumerate() {
                if new != old {
                    let mut v = [0u8; 4];
                    v[..new.len()].copy_from_slice(new);
                    let _ = writeln!(
                        o,
                        "    private[{:#x}] = {:#010x} (lane {})",
                        k / lanes * 4,
                        u32::from_le_bytes(v),
                        k % lanes
                    );
                }
            }
        }
        for &(l, a, bytes) in &self.writes {
            if self.mem.contains(a, u64::from(bytes)) {
                let _ = write!(o, "    mem[{a:#x}] =");
                for k in 0..bytes.div_ceil(4) {
                    let n = (bytes - 4 * k).min(4);
                    let _ = write!(
                        o,
                        " {:#x}",
                        crate::memory::host::load(a + 4 * u64::from(k), n)
                    );
                }
                let _ = writeln!(
                    o,
                    " (lane {l}{})",
                    if i.mem.kind == Kind::Atomic {
                        ", atomic"
                    } else {
                        ""
                    }
                );
            } else {
                let _ = writeln!(
                    o,
                    "    mem[{a:#x}] written (lane {l}; LDS or private aperture)"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_parse() {
        let p = |s: &str| WaveSelector::parse(s).expect(s);
        assert_eq!(
            p("saxpy"),
            WaveSelector {
                kernel: "saxpy".into(),
                workgroup: WorkGroup::Index(0),
                wave: None
            }
        );
        assert_eq!(p("k:3").workgroup, WorkGroup::Index(3));
        let s = p("k:1,2,3:1");
        assert_eq!((s.workgroup, s.wave), (WorkGroup::Id([1, 2, 3]), Some(1)));
        assert_eq!(p("ns::k:2").kernel, "ns::k");
        assert!(WaveSelector::parse(":1").is_err());
        assert!(WaveSelector::parse("k:1,2,3,4").is_err());
    }
}
