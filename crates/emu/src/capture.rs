//! Replayable dispatch records (`hsaemu exec --capture=DIR`, `HSAEMU_CAPTURE=DIR`;
//! `--capture-kernel=NAME`, `HSAEMU_CAPTURE_KERNEL`) and their replay (`hsaemu run --replay`).
//!
//! Before each dispatch runs, the memory it may access (every range registered with the
//! memory map: allocations, kernel arguments, the loaded code objects with their globals) is
//! copied. When the dispatch faults, or its kernel is the one selected, the copy is written as
//! a record: a directory `DIR/dispatch-NNNN-KERNEL/` with
//! - `capture.txt`: the versioned manifest (`hsaemu-capture 1` on the first line, then one
//!   `key value…` line each: the GPU, the dispatch packet's fields, each memory range, the
//!   functions of the loaded code, and the outcome: the fault or a digest of every writable
//!   range after the dispatch);
//! - `mem-BASE.bin`: each range's bytes before the dispatch (the loaded code object among
//!   them); `packet.bin` and `queue.bin`: the AQL packet and the `amd_queue_t` the kernel
//!   sees through its dispatch and queue pointers.
//!
//! Captured dispatches run in the deterministic schedule, and a replay maps every range at
//! its recorded address (device pointers are host pointers, so the kernel arguments and the
//! pointers stored in memory stay valid) and runs the dispatch alone, deterministically: it
//! reproduces the fault, or results whose digests match the record.

use crate::descriptor::KernelObjectFormat;
use crate::error::{Fault, FaultKind};
use crate::gpu::{Dispatch, Gpu, GpuConfig};
use crate::memory::host::{self, HostBuffer};
use crate::memory::{Access, MemoryKind, MemoryMap, Region};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The manifest's first line.
const MAGIC: &str = "hsaemu-capture 1";
const MANIFEST: &str = "capture.txt";

/// `HSAEMU_CAPTURE` and `HSAEMU_CAPTURE_KERNEL` (read once).
struct Config {
    dir: PathBuf,
    kernel: Option<String>,
}

fn config() -> Option<&'static Config> {
    static CONFIG: OnceLock<Option<Config>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let dir = std::env::var_os("HSAEMU_CAPTURE").filter(|d| !d.is_empty())?;
            Some(Config {
                dir: PathBuf::from(dir),
                kernel: std::env::var("HSAEMU_CAPTURE_KERNEL")
                    .ok()
                    .filter(|k| !k.is_empty()),
            })
        })
        .as_ref()
}

/// Whether dispatches are being captured (they then run deterministically).
pub(crate) fn enabled() -> bool {
    config().is_some()
}

/// One range as captured.
struct Snapshot {
    region: Region,
    bytes: Vec<u8>,
}

/// A dispatch's state before it ran, until it is known whether to keep it.
pub(crate) struct Pending {
    dir: PathBuf,
    selected: bool,
    cfg: GpuConfig,
    d: Dispatch,
    kernel: String,
    format: KernelObjectFormat,
    regions: Vec<Snapshot>,
    packet: Option<Vec<u8>>,
    queue: Option<Vec<u8>>,
    functions: Vec<(u64, u64, u64, String)>,
}

/// A copy of `len` bytes at `addr`, which lies in a live registered range (or, for the
/// queue, is the caller's `amd_queue_t`).
fn copy_out(addr: u64, len: u64) -> Vec<u8> {
    host::read_bytes(addr, len)
}

impl Pending {
    /// Snapshots the memory of a dispatch about to run, when capturing is on.
    pub(crate) fn begin(
        gpu: &Gpu,
        d: &Dispatch,
        kernel: Option<&str>,
        format: KernelObjectFormat,
    ) -> Option<Pending> {
        let c = config()?;
        let name = kernel.unwrap_or("unknown");
        let selected = c
            .kernel
            .as_deref()
            .is_some_and(|k| name == k || name.contains(k));
        // Ranges freed meanwhile stay mapped until this epoch ends.
        let _epoch = gpu.mem.begin_dispatch();
        let regions = gpu
            .mem
            .regions()
            .into_iter()
            .map(|region| Snapshot {
                bytes: copy_out(region.base, region.len),
                region,
            })
            .collect();
        let packet =
            (d.dispatch_packet_address != 0).then(|| copy_out(d.dispatch_packet_address, 64));
        let queue = (d.queue_address != 0).then(|| copy_out(d.queue_address, 256));
        Some(Pending {
            dir: c.dir.clone(),
            selected,
            cfg: gpu.cfg.clone(),
            d: d.clone(),
            kernel: name.to_string(),
            format,
            regions,
            packet,
            queue,
            functions: gpu.functions().list(),
        })
    }

    /// Writes the record if the dispatch faulted or was selected; says where on stderr.
    pub(crate) fn finish(self, gpu: &Gpu, result: &Result<crate::DispatchStats, Fault>) {
        let fault = match result {
            Err(f)
                if matches!(
                    f.kind,
                    FaultKind::InvalidDispatch { .. } | FaultKind::Stopped { .. }
                ) =>
            {
                return
            }
            Err(f) => Some(f),
            Ok(_) => None,
        };
        if fault.is_none() && !self.selected {
            return;
        }
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let n = SEQ.fetch_add(1, Ordering::Relaxed);
        let short: String = self
            .kernel
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(48)
            .collect();
        let dir = self.dir.join(format!("dispatch-{n:04}-{short}"));
        match self.write(gpu, &dir, fault) {
            Ok(()) => eprintln!(
                "hsaemu: capture: {} of `{}` recorded in {} (replay: hsaemu run --replay {})",
                if fault.is_some() {
                    "faulting dispatch"
                } else {
                    "dispatch"
                },
                self.kernel,
                dir.display(),
                dir.display()
            ),
            Err(e) => eprintln!("hsaemu: capture: cannot write {}: {e}", dir.display()),
        }
    }

    fn write(&self, gpu: &Gpu, dir: &Path, fault: Option<&Fault>) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let d = &self.d;
        let mut m = String::new();
        let _ = writeln!(m, "{MAGIC}");
        let _ = writeln!(m, "processor {}", self.cfg.processor);
        let _ = writeln!(m, "xnack {}", u8::from(self.cfg.xnack));
        let _ = writeln!(m, "gpu_compute_units {}", self.cfg.compute_units);
        let _ = writeln!(m, "lds_size {}", self.cfg.lds_size);
        let _ = writeln!(m, "clock_mhz {}", self.cfg.clock_mhz);
        let _ = writeln!(m, "kernel {}", self.kernel);
        let _ = writeln!(m, "kernel_object {:#x}", d.kernel_object);
        let _ = writeln!(m, "kernel_object_format {}", format_name(self.format));
        let _ = writeln!(m, "kernarg_address {:#x}", d.kernarg_address);
        let [gx, gy, gz] = d.grid_size;
        let _ = writeln!(m, "grid {gx} {gy} {gz}");
        let [wx, wy, wz] = d.workgroup_size;
        let _ = writeln!(m, "workgroup {wx} {wy} {wz}");
        let _ = writeln!(m, "group_segment_size {}", d.group_segment_size);
        let _ = writeln!(m, "private_segment_size {}", d.private_segment_size);
        let _ = writeln!(m, "dispatch_id {}", d.dispatch_id);
        let _ = writeln!(m, "cooperative {}", u8::from(d.cooperative));
        let cus: Vec<String> = d.compute_units.iter().map(u32::to_string).collect();
        let _ = writeln!(
            m,
            "compute_units {}",
            if cus.is_empty() {
                "-".into()
            } else {
                cus.join(",")
            }
        );
        if let Some(p) = &self.packet {
            std::fs::write(dir.join("packet.bin"), p)?;
            let _ = writeln!(m, "packet packet.bin");
        }
        if let Some(q) = &self.queue {
            std::fs::write(dir.join("queue.bin"), q)?;
            let _ = writeln!(m, "queue queue.bin");
        }
        for s in &self.regions {
            let r = &s.region;
            let file = format!("mem-{:x}.bin", r.base);
            std::fs::write(dir.join(&file), &s.bytes)?;
            let _ = writeln!(
                m,
                "region {:#x} {} {} {} {file}",
                r.base,
                r.len,
                access_name(r.access),
                kind_name(r.kind)
            );
        }
        for (start, size, base, name) in &self.functions {
            let _ = writeln!(m, "function {start:#x} {size} {base:#x} {name}");
        }
        match fault {
            Some(f) => {
                let _ = writeln!(m, "fault {}", fault_key(f));
                let _ = writeln!(m, "fault_message {}", f.to_string().replace('\n', " | "));
            }
            None => {
                let _epoch = gpu.mem.begin_dispatch();
                for (base, digest) in digests(gpu.memory(), &self.regions) {
                    let _ = writeln!(m, "digest {base:#x} {digest:016x}");
                }
            }
        }
        std::fs::write(dir.join(MANIFEST), m)
    }
}

/// What must be the same for a replayed fault to be the recorded one: the kind (with its
/// address, offset or trap ID), the work-group, wave, lane and PC. (The message also holds
/// times and scratch addresses, which differ.)
fn fault_key(f: &Fault) -> String {
    let [x, y, z] = f.workgroup_id;
    format!(
        "{:?} work-group ({x},{y},{z}) wave {} lane {} pc {:#x}",
        f.kind,
        f.wave,
        f.lane.map_or("-".into(), |l| l.to_string()),
        f.pc
    )
}

/// FNV-1a over the bytes.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The digest of each writable captured range that changed while the dispatch ran, as it is
/// now (ranges no longer mapped are left out). The host may have changed some of them too
/// (the runtime's queues and signals): a replay tells those apart, since nothing else runs
/// there.
fn digests(mem: &MemoryMap, regions: &[Snapshot]) -> Vec<(u64, u64)> {
    regions
        .iter()
        .filter(|s| s.region.access != Access::Read)
        .filter(|s| mem.region_of(s.region.base) == Some(s.region))
        .map(|s| (s, fnv1a(&copy_out(s.region.base, s.region.len))))
        .filter(|(s, after)| *after != fnv1a(&s.bytes))
        .map(|(s, after)| (s.region.base, after))
        .collect()
}

fn access_name(a: Access) -> &'static str {
    match a {
        Access::Read => "read",
        Access::ReadWrite => "readwrite",
        Access::Code => "code",
    }
}

fn kind_name(k: MemoryKind) -> &'static str {
    match k {
        MemoryKind::Coarse => "coarse",
        MemoryKind::FineHost => "fine-host",
        MemoryKind::FineDevice => "fine-device",
    }
}

fn format_name(f: KernelObjectFormat) -> &'static str {
    match f {
        KernelObjectFormat::Descriptor => "descriptor",
        KernelObjectFormat::AmdKernelCode => "amd_kernel_code",
    }
}

/// What a replay found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayReport {
    /// The record's directory.
    pub dir: PathBuf,
    /// The kernel.
    pub kernel: String,
    /// The replayed dispatch's fault message, if it faulted.
    pub fault: Option<String>,
    /// The recorded fault message, if the capture faulted.
    pub recorded_fault: Option<String>,
    /// Whether the outcome is the recorded one: the same fault, or (for a dispatch that
    /// completed) the same digest of every writable range.
    pub matches: bool,
    /// Writable ranges whose digest differs from the record (base addresses).
    pub differing: Vec<u64>,
    /// Ranges compared: those the capture's dispatch or the replay changed.
    pub compared: usize,
    /// Ranges that changed during the capture but not in the replay: written by the host
    /// while the captured dispatch ran (not counted as a difference).
    pub host_changed: usize,
}

/// The manifest's lines as (key, rest).
struct Manifest {
    lines: Vec<(String, String)>,
}

impl Manifest {
    fn get(&self, key: &str) -> Result<&str, String> {
        self.lines
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .ok_or_else(|| format!("{MANIFEST}: no `{key}` line"))
    }
    fn all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.lines
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    fn num<T: std::str::FromStr>(&self, key: &str) -> Result<T, String> {
        parse_num(self.get(key)?).ok_or_else(|| format!("{MANIFEST}: bad `{key}` value"))
    }
}

/// A decimal or `0x` hexadecimal number.
fn parse_num<T: std::str::FromStr>(s: &str) -> Option<T> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok()?.to_string().parse().ok(),
        None => s.parse().ok(),
    }
}

fn triple<T: std::str::FromStr + Copy + Default>(s: &str) -> Option<[T; 3]> {
    let v: Vec<T> = s.split_whitespace().map(parse_num).collect::<Option<_>>()?;
    (v.len() == 3).then(|| [v[0], v[1], v[2]])
}

/// The record directory: `dir` itself, or its only `dispatch-*` subdirectory.
fn record_dir(dir: &Path) -> Result<PathBuf, String> {
    if dir.join(MANIFEST).is_file() {
        return Ok(dir.to_path_buf());
    }
    let subs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join(MANIFEST).is_file())
        .collect();
    match &subs[..] {
        [one] => Ok(one.clone()),
        [] => Err(format!(
            "{}: no {MANIFEST} (not a capture record)",
            dir.display()
        )),
        _ => Err(format!(
            "{}: holds {} records; name one of its dispatch-* directories",
            dir.display(),
            subs.len()
        )),
    }
}

/// Replays the record in `dir` (or the only record under it) alone and deterministically.
pub fn replay(dir: &Path) -> Result<ReplayReport, String> {
    let dir = record_dir(dir)?;
    let text = std::fs::read_to_string(dir.join(MANIFEST))
        .map_err(|e| format!("{}: {e}", dir.join(MANIFEST).display()))?;
    let mut it = text.lines();
    if it.next() != Some(MAGIC) {
        return Err(format!(
            "{}: not a version-1 hsaemu capture (the first line must be `{MAGIC}`)",
            dir.join(MANIFEST).display()
        ));
    }
    let m = Manifest {
        lines: it
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let (k, v) = l.split_once(' ').unwrap_or((l, ""));
                (k.to_string(), v.to_string())
            })
            .collect(),
    };
    let read = |name: &str| {
        std::fs::read(dir.join(name)).map_err(|e| format!("{}: {e}", dir.join(name).display()))
    };

    // The memory, at its recorded addresses.
    let mem = MemoryMap::new();
    let mut regions = Vec::new();
    for line in m.all("region") {
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("{MANIFEST}: bad region line `{line}`");
        let [base, len, access, kind, file] = f[..] else {
            return Err(bad());
        };
        let base: u64 = parse_num(base).ok_or_else(bad)?;
        let len: u64 = parse_num(len).ok_or_else(bad)?;
        let access = match access {
            "read" => Access::Read,
            "readwrite" => Access::ReadWrite,
            "code" => Access::Code,
            _ => return Err(bad()),
        };
        let kind = match kind {
            "coarse" => MemoryKind::Coarse,
            "fine-host" => MemoryKind::FineHost,
            "fine-device" => MemoryKind::FineDevice,
            _ => return Err(bad()),
        };
        let bytes = read(file)?;
        if bytes.len() as u64 != len {
            return Err(format!(
                "{file}: {} bytes, the manifest says {len}",
                bytes.len()
            ));
        }
        regions.push((
            Region {
                base,
                len,
                access,
                kind,
            },
            bytes,
        ));
    }
    let _mapping = host::FixedMapping::new(regions.iter().map(|(r, _)| (r.base, r.len)))?;
    for (r, bytes) in &regions {
        host::write_bytes(r.base, bytes);
        mem.register_kind(r.base, r.len, r.access, r.kind)
            .map_err(|e| format!("region {:#x}: {e}", r.base))?;
    }

    let cfg = GpuConfig {
        processor: m.get("processor")?.to_string(),
        xnack: m.get("xnack")? == "1",
        threads: 1,
        compute_units: m.num("gpu_compute_units")?,
        lds_size: m.num("lds_size")?,
        clock_mhz: m.num("clock_mhz")?,
    };
    let gpu = Gpu::new(cfg, mem.clone()).map_err(|e| e.to_string())?;
    gpu.set_deterministic(true);
    let kernel = m.get("kernel")?.to_string();
    let format = match m.get("kernel_object_format")? {
        "descriptor" => KernelObjectFormat::Descriptor,
        "amd_kernel_code" => KernelObjectFormat::AmdKernelCode,
        other => {
            return Err(format!(
                "{MANIFEST}: unknown kernel_object_format `{other}`"
            ))
        }
    };
    let mut functions = Vec::new();
    for line in m.all("function") {
        let bad = || format!("{MANIFEST}: bad function line `{line}`");
        let mut f = line.splitn(4, ' ');
        let mut num = || f.next().and_then(parse_num::<u64>).ok_or_else(bad);
        let (start, size, base) = (num()?, num()?, num()?);
        let name = f.next().ok_or_else(bad)?.to_string();
        functions.push((start, size, base, name));
    }
    let kernel_object: u64 = m.num("kernel_object")?;
    gpu.adopt(kernel_object, &kernel, format, functions);

    // The packet and queue the kernel sees, in fresh memory.
    let mut keep = Vec::new();
    let mut place = |name: Option<&str>| -> Result<u64, String> {
        let Some(name) = name else { return Ok(0) };
        let bytes = read(name)?;
        let buf = HostBuffer::new(bytes.len() as u64).ok_or("out of memory")?;
        buf.write(0, &bytes);
        mem.register(buf.base(), bytes.len() as u64, Access::Read)
            .map_err(|e| e.to_string())?;
        let a = buf.base();
        keep.push(buf);
        Ok(a)
    };
    let packet = place(m.get("packet").ok())?;
    let queue = place(m.get("queue").ok())?;
    let cus = m.get("compute_units")?;
    let d = Dispatch {
        kernel_object,
        kernarg_address: m.num("kernarg_address")?,
        grid_size: triple(m.get("grid")?).ok_or("bad grid")?,
        workgroup_size: triple(m.get("workgroup")?).ok_or("bad workgroup")?,
        group_segment_size: m.num("group_segment_size")?,
        private_segment_size: m.num("private_segment_size")?,
        dispatch_packet_address: packet,
        queue_address: queue,
        dispatch_id: m.num("dispatch_id")?,
        compute_units: if cus == "-" {
            Vec::new()
        } else {
            cus.split(',')
                .map(parse_num)
                .collect::<Option<_>>()
                .ok_or("bad compute_units")?
        },
        cooperative: m.get("cooperative")? == "1",
    };
    let result = gpu.dispatch(&d);

    let recorded_fault = m.get("fault").ok().map(str::to_string);
    let mut report = ReplayReport {
        dir: dir.clone(),
        kernel,
        fault: result.as_ref().err().map(|f| f.to_string()),
        recorded_fault: m.get("fault_message").ok().map(str::to_string),
        matches: false,
        differing: Vec::new(),
        compared: 0,
        host_changed: 0,
    };
    match (&result, &recorded_fault) {
        (Err(f), Some(key)) => report.matches = fault_key(f) == *key,
        (Ok(_), None) => {
            let mut recorded = std::collections::BTreeMap::new();
            for line in m.all("digest") {
                let bad = || format!("{MANIFEST}: bad digest line `{line}`");
                let (base, want) = line.split_once(' ').ok_or_else(bad)?;
                let base: u64 = parse_num(base).ok_or_else(bad)?;
                let want = u64::from_str_radix(want, 16).map_err(|_| bad())?;
                recorded.insert(base, want);
            }
            for (r, before) in regions.iter().filter(|(r, _)| r.access != Access::Read) {
                let (before, after) = (fnv1a(before), fnv1a(&copy_out(r.base, r.len)));
                match recorded.get(&r.base) {
                    // The replay wrote what the capture's dispatch did.
                    Some(&want) if after == want => report.compared += 1,
                    // Changed under the capture, not by the kernel here: the host.
                    Some(_) if after == before => report.host_changed += 1,
                    None if after == before => {}
                    _ => {
                        report.compared += 1;
                        report.differing.push(r.base);
                    }
                }
            }
            report.matches = report.differing.is_empty();
        }
        _ => {}
    }
    for b in &keep {
        let _ = mem.unregister(b.base());
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_digests() {
        assert_eq!(parse_num::<u64>("0x10"), Some(16));
        assert_eq!(parse_num::<u32>("12"), Some(12));
        assert_eq!(triple::<u16>("1 2 3"), Some([1, 2, 3]));
        assert_eq!(triple::<u16>("1 2"), None);
        // FNV-1a test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
