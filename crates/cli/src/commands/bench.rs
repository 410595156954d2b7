//! Implementation of the `hsaemu bench` command: compiles four OpenCL kernels (vector add,
//! tiled matmul with LDS and barriers, a work-group reduction, an atomics histogram) with
//! clang-15, runs them on the emulated GPU, checks the results against the CPU, and reports
//! wave-instructions/s and lane-ops/s (total and per host thread). A fifth benchmark times
//! `Gpu::dispatch` of an empty kernel (one work-group, and eight) to show dispatch latency.

use hsaemu_emu::{
    kernarg, Access, Dispatch, DispatchStats, Gpu, GpuConfig, LoadedCodeObject, MemoryMap,
};
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::sync::Arc;

#[derive(clap::Args)]
pub struct Args {
    /// Target processor.
    #[arg(long, default_value = "gfx90a")]
    pub processor: String,
    /// Host threads (0 = HSAEMU_THREADS or all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Smaller problem sizes (for a quick check).
    #[arg(long)]
    pub quick: bool,
    /// The clang used to compile the kernels.
    #[arg(long, default_value = "clang-15")]
    pub clang: String,
    /// Run only the benchmarks whose name contains this text.
    #[arg(long)]
    pub only: Option<String>,
    /// Directory of the ROCm device-library bitcode.
    #[arg(long, default_value = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode")]
    pub device_libs: String,
}

const VECTOR_ADD: &str = include_str!("../../../../tests/kernels/cl/vector_add.cl");
const MATMUL: &str = include_str!("../../../../tests/kernels/cl/matmul.cl");
const REDUCE: &str = include_str!("../../../../tests/kernels/cl/reduce.cl");
const ATOMICS: &str = include_str!("../../../../tests/kernels/cl/atomics.cl");
const EMPTY: &str = include_str!("../../../../tests/kernels/cl/runtime_kernels.cl");

/// A host buffer registered in the memory map while alive.
struct Buf {
    data: Vec<u64>,
    mem: Arc<MemoryMap>,
}

impl Buf {
    fn new(mem: &Arc<MemoryMap>, bytes: &[u8]) -> Result<Buf, String> {
        let mut data = vec![0u64; bytes.len().div_ceil(8).max(1)];
        for (i, b) in bytes.iter().enumerate() {
            data[i / 8] |= u64::from(*b) << (8 * (i % 8));
        }
        let b = Buf {
            data,
            mem: mem.clone(),
        };
        mem.register(b.addr(), (b.data.len() * 8) as u64, Access::ReadWrite)
            .map_err(|e| e.to_string())?;
        Ok(b)
    }
    fn addr(&self) -> u64 {
        self.data.as_ptr() as u64
    }
    fn u32s(&self) -> Vec<u32> {
        self.data
            .iter()
            .flat_map(|w| [*w as u32, (*w >> 32) as u32])
            .collect()
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        let _ = self.mem.unregister(self.addr());
    }
}

fn bytes_of<T: Copy>(v: &[T], f: impl Fn(T) -> [u8; 4]) -> Vec<u8> {
    v.iter().flat_map(|x| f(*x)).collect()
}

struct Bench {
    gpu: Gpu,
    mem: Arc<MemoryMap>,
    dir: PathBuf,
    args: Args,
}

impl Bench {
    fn compile(&self, name: &str, src: &str) -> Result<LoadedCodeObject, String> {
        let cl = self.dir.join(format!("{name}.cl"));
        let out = self.dir.join(format!("{name}.hsaco"));
        std::fs::write(&cl, src).map_err(|e| format!("cannot write {}: {e}", cl.display()))?;
        let status = Command::new(&self.args.clang)
            .args([
                "-x",
                "cl",
                "-cl-std=CL2.0",
                "-target",
                "amdgcn-amd-amdhsa",
                &format!("-mcpu={}", self.args.processor),
                "-O2",
                "-mcode-object-version=5",
                &format!("--rocm-device-lib-path={}", self.args.device_libs),
            ])
            .arg(&cl)
            .arg("-o")
            .arg(&out)
            .status()
            .map_err(|e| format!("cannot run {}: {e}", self.args.clang))?;
        if !status.success() {
            return Err(format!("{} failed on {}", self.args.clang, cl.display()));
        }
        let bytes =
            std::fs::read(&out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
        self.gpu.load_code_object(&bytes).map_err(|e| e.to_string())
    }

    fn dispatch(
        &self,
        code: &LoadedCodeObject,
        kernel: &str,
        explicit: &[u8],
        grid: [u32; 3],
        wg: [u16; 3],
        dynamic_lds: u32,
    ) -> Result<DispatchStats, String> {
        let k = code
            .kernel(kernel)
            .ok_or_else(|| format!("no kernel `{kernel}`"))?;
        let mut ka = kernarg::build(explicit, 5, grid, wg);
        ka.resize(ka.len().max(k.kernarg_segment_size as usize), 0);
        let kb = Buf::new(&self.mem, &ka)?;
        self.gpu
            .dispatch(&Dispatch {
                kernel_object: k.kernel_object,
                kernarg_address: kb.addr(),
                grid_size: grid,
                workgroup_size: wg,
                group_segment_size: k.group_segment_size + dynamic_lds,
                private_segment_size: k.private_segment_size,
                ..Dispatch::default()
            })
            .map_err(|f| f.to_string())
    }
}

/// CPU seconds (user + system) this process has used, from /proc/self/stat (Linux).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

fn report(name: &str, s: &DispatchStats, cpu: Option<f64>, ok: bool) {
    let secs = s.elapsed.as_secs_f64().max(1e-9);
    let lane = s.lane_ops as f64 / secs;
    let per_core = cpu
        .filter(|&c| c > 0.05)
        .map(|c| {
            format!(
                "{:>8.1} M lane-ops per CPU-second",
                s.lane_ops as f64 / c / 1e6
            )
        })
        .unwrap_or_default();
    println!(
        "{name:<22} {:>8.1} ms  {:>7.1} M wave-inst/s  {:>8.1} M lane-ops/s  ({} threads, {} WGs)  {per_core}{}",
        secs * 1e3,
        s.wave_instructions as f64 / secs / 1e6,
        lane / 1e6,
        s.threads,
        s.workgroups,
        if ok { "" } else { "  RESULT MISMATCH" }
    );
}

pub fn run(args: Args) -> Result<ExitCode, String> {
    let mem = MemoryMap::new();
    let gpu = Gpu::new(
        GpuConfig {
            processor: args.processor.clone(),
            threads: args.threads,
            ..GpuConfig::default()
        },
        mem.clone(),
    )
    .map_err(|e| e.to_string())?;
    let dir = std::env::temp_dir().join(format!("hsaemu-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let quick = args.quick;
    let b = Bench {
        gpu,
        mem: mem.clone(),
        dir: dir.clone(),
        args,
    };
    let mut all_ok = true;
    println!(
        "hsaemu bench on {} with up to {} host threads",
        b.args.processor,
        b.gpu.threads()
    );

    let want = |name: &str| b.args.only.as_deref().is_none_or(|o| name.contains(o));

    // Vector add.
    if want("vector_add") {
        let code = b.compile("vector_add", VECTOR_ADD)?;
        let n: u32 = if quick { 1 << 20 } else { 16 << 20 };
        let a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
        let bv: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.5).collect();
        let (ba, bb) = (
            Buf::new(&mem, &bytes_of(&a, f32::to_le_bytes))?,
            Buf::new(&mem, &bytes_of(&bv, f32::to_le_bytes))?,
        );
        let bc = Buf::new(&mem, &vec![0u8; 4 * n as usize])?;
        let mut ex = Vec::new();
        for p in [ba.addr(), bb.addr(), bc.addr()] {
            ex.extend_from_slice(&p.to_le_bytes());
        }
        ex.extend_from_slice(&n.to_le_bytes());
        let c0 = cpu_seconds();
        let s = b.dispatch(&code, "vector_add", &ex, [n, 1, 1], [256, 1, 1], 0)?;
        let cpu = cpu_seconds().zip(c0).map(|(a, b)| a - b);
        let c = bc.u32s();
        let ok = (0..n as usize)
            .step_by(997)
            .all(|i| f32::from_bits(c[i]) == a[i] + bv[i]);
        all_ok &= ok;
        report(&format!("vector_add {}M", n >> 20), &s, cpu, ok);
        drop((ba, bb, bc));
    }

    // Matmul.
    if want("matmul") {
        let code = b.compile("matmul", MATMUL)?;
        let m: u32 = if quick { 128 } else { 512 };
        let am: Vec<f32> = (0..m * m).map(|i| ((i % 17) as f32) * 0.25).collect();
        let bm: Vec<f32> = (0..m * m).map(|i| ((i % 13) as f32) * 0.5).collect();
        let (ba, bb) = (
            Buf::new(&mem, &bytes_of(&am, f32::to_le_bytes))?,
            Buf::new(&mem, &bytes_of(&bm, f32::to_le_bytes))?,
        );
        let bc = Buf::new(&mem, &vec![0u8; 4 * (m * m) as usize])?;
        let mut ex = Vec::new();
        for p in [ba.addr(), bb.addr(), bc.addr()] {
            ex.extend_from_slice(&p.to_le_bytes());
        }
        ex.extend_from_slice(&m.to_le_bytes());
        let c0 = cpu_seconds();
        let s = b.dispatch(&code, "matmul_tiled", &ex, [m, m, 1], [16, 16, 1], 0)?;
        let cpu = cpu_seconds().zip(c0).map(|(a, b)| a - b);
        let c = bc.u32s();
        let mu = m as usize;
        let ok = [(0usize, 0usize), (mu - 1, mu - 1), (mu / 3, mu / 2)]
            .iter()
            .all(|&(r, col)| {
                let want: f32 = (0..mu).map(|k| am[r * mu + k] * bm[k * mu + col]).sum();
                (f32::from_bits(c[r * mu + col]) - want).abs() <= want.abs() * 1e-4 + 1e-3
            });
        all_ok &= ok;
        report(&format!("matmul_tiled {m}x{m}"), &s, cpu, ok);
        drop((ba, bb, bc));
    }

    // Reduction.
    if want("reduce") {
        let code = b.compile("reduce", REDUCE)?;
        let n: u32 = if quick { 1 << 20 } else { 8 << 20 };
        let input: Vec<u32> = (0..n).map(|i| i % 100).collect();
        let groups = n / 256;
        let bi = Buf::new(&mem, &bytes_of(&input, u32::to_le_bytes))?;
        let bp = Buf::new(&mem, &vec![0u8; 4 * groups as usize])?;
        let static_lds = code
            .kernel("reduce_sum")
            .map(|k| k.group_segment_size)
            .unwrap_or(0);
        let mut ex = Vec::new();
        ex.extend_from_slice(&bi.addr().to_le_bytes());
        ex.extend_from_slice(&bp.addr().to_le_bytes());
        ex.extend_from_slice(&static_lds.to_le_bytes());
        ex.extend_from_slice(&n.to_le_bytes());
        let c0 = cpu_seconds();
        let s = b.dispatch(&code, "reduce_sum", &ex, [n, 1, 1], [256, 1, 1], 1024)?;
        let cpu = cpu_seconds().zip(c0).map(|(a, b)| a - b);
        let total: u64 = bp.u32s()[..groups as usize]
            .iter()
            .map(|&x| u64::from(x))
            .sum();
        let ok = total == input.iter().map(|&x| u64::from(x)).sum::<u64>();
        all_ok &= ok;
        report(&format!("reduce_sum {}M", n >> 20), &s, cpu, ok);
        drop((bi, bp));
    }

    // Histogram.
    if want("histogram") {
        let code = b.compile("atomics", ATOMICS)?;
        let n: u32 = if quick { 1 << 20 } else { 16 << 20 };
        let data: Vec<u8> = (0..n)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        let bd = Buf::new(&mem, &data)?;
        let bins = Buf::new(&mem, &[0u8; 1024])?;
        let mut ex = Vec::new();
        ex.extend_from_slice(&bd.addr().to_le_bytes());
        ex.extend_from_slice(&n.to_le_bytes());
        ex.extend_from_slice(&[0u8; 4]);
        ex.extend_from_slice(&bins.addr().to_le_bytes());
        let c0 = cpu_seconds();
        let s = b.dispatch(&code, "histogram", &ex, [256 * 256, 1, 1], [256, 1, 1], 0)?;
        let cpu = cpu_seconds().zip(c0).map(|(a, b)| a - b);
        let mut want = [0u32; 256];
        for d in &data {
            want[*d as usize] += 1;
        }
        let ok = bins.u32s()[..256] == want[..];
        all_ok &= ok;
        report(&format!("histogram {}M", n >> 20), &s, cpu, ok);
        drop((bd, bins));
    }

    // Dispatch latency: `Gpu::dispatch` of an empty kernel, median over many dispatches.
    if want("dispatch") {
        let code = b.compile("empty", EMPTY)?;
        let k = code
            .kernel("empty")
            .ok_or_else(|| "no kernel `empty`".to_string())?;
        let rounds = if quick { 200 } else { 2000 };
        for (label, groups) in [("1 WG", 1u32), ("8 WGs", 8)] {
            let grid = [64 * groups, 1, 1];
            let mut ka = kernarg::build(&[], 5, grid, [64, 1, 1]);
            ka.resize(ka.len().max(k.kernarg_segment_size as usize), 0);
            let kb = Buf::new(&mem, &ka)?;
            let d = Dispatch {
                kernel_object: k.kernel_object,
                kernarg_address: kb.addr(),
                grid_size: grid,
                workgroup_size: [64, 1, 1],
                group_segment_size: k.group_segment_size,
                private_segment_size: k.private_segment_size,
                ..Dispatch::default()
            };
            let mut times = Vec::with_capacity(rounds);
            for _ in 0..rounds {
                let t0 = std::time::Instant::now();
                b.gpu.dispatch(&d).map_err(|f| f.to_string())?;
                times.push(t0.elapsed().as_secs_f64() * 1e6);
            }
            times.sort_by(f64::total_cmp);
            println!(
                "dispatch empty, {label:<6}  median {:>7.2} us  p90 {:>7.2} us  ({rounds} dispatches)",
                times[rounds / 2],
                times[rounds * 9 / 10]
            );
        }
    }

    let _ = std::fs::remove_dir_all(&dir);
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
