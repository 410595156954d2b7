//! Implementation of the `hsaemu bench` command: compiles five OpenCL kernels (vector add,
//! tiled matmul with LDS and barriers, a work-group reduction, an atomics histogram, a
//! mandelbrot float loop) with clang-15 (clang-22 with hand-linked device libraries for the
//! processors only LLVM 22 knows), runs them on the emulated GPU, checks the results against the
//! CPU, and reports lane-ops per CPU-second and wall time. Each kernel runs twice on the
//! emulator, interpreted (`HSAEMU_JIT=0`) and with the compiling tier on, each in a process of
//! its own (`tiers.rs`: the tier's setting is per process, and a process's CPU time then counts
//! exactly one run, compiler thread included). Each kernel also runs natively under PoCL (the
//! same source compiled for the host CPU, with the same number of threads) and the report gives
//! hsaemu/PoCL wall-time ratios for both tiers. `--compare-processor` runs the kernels on a
//! second processor and gives its lane-ops per CPU-second relative to the first, and its CPU
//! for the same grid (each processor's compiler emits its own instruction count). `--repeat N`
//! runs each case's children N times, the processors alternated round by round, and reports the
//! median over the rounds: the compare table's is the median of the rounds' own ratios, each of
//! two children run one right after the other (the host's speed can swing 2x from one minute to
//! the next, and such a ratio cancels it where one round's pair of figures does not).
//! `--interleave N` pairs them closer: for the compare table one child per case and tier runs
//! the case on both processors (a `Gpu` each over one memory map), N pairs of dispatches
//! interleaved one by one (P Q, Q P, …), each dispatch timed by the process's CPU clock around
//! it, and the table gives the median of the pairs' own ratios with their range (the host's
//! speed changes within a second or two, faster than a round of two children). A last
//! benchmark times `Gpu::dispatch` of an empty kernel (one work-group, and eight) to show
//! dispatch latency.

mod pocl;
mod tiers;

use crate::host_buffer::HostBuffer;
use hsaemu_emu::{kernarg, Dispatch, DispatchStats, Gpu, GpuConfig, LoadedCodeObject, MemoryMap};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;
use tiers::{Measured, Tier, TierChoice};

#[derive(clap::Args)]
pub struct Args {
    /// Target processor.
    #[arg(long, default_value = "gfx90a")]
    pub processor: String,
    /// Host threads (0 = HSAEMU_THREADS or all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Smaller problem sizes, each dispatched twice instead of four times (for a quick check).
    #[arg(long)]
    pub quick: bool,
    /// The clang used to compile the kernels [default: clang-15; clang-22 for the processors
    /// only LLVM 22 knows (gfx942, gfx950, gfx11xx, gfx12xx)].
    #[arg(long)]
    pub clang: Option<String>,
    /// Run only the benchmarks whose name contains this text.
    #[arg(long)]
    pub only: Option<String>,
    /// Do not run the kernels under PoCL for comparison.
    #[arg(long)]
    pub no_pocl: bool,
    /// Directory of the ROCm device-library bitcode.
    #[arg(long, default_value = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode")]
    pub device_libs: String,
    /// Which emulator tiers run each kernel, each run in a process of its own: `interp` (the
    /// interpreter alone, HSAEMU_JIT=0), `jit` (the compiling tier, on by default:
    /// HSAEMU_JIT=1, or the `sync`/`verify` mode HSAEMU_JIT names), or `both`, side by side.
    #[arg(long, value_enum, default_value_t = TierChoice::Both)]
    pub tier: TierChoice,
    /// Also run the kernels on this processor (e.g. gfx1030) and report its lane-ops per
    /// CPU-second relative to --processor's, and its CPU for the same job, for each tier (each
    /// of its children runs right after --processor's of the same case and tier; with --repeat,
    /// the median of the rounds' ratios and their range).
    #[arg(long)]
    pub compare_processor: Option<String>,
    /// Run each case's children this many times (rounds; with --compare-processor the two
    /// processors' children alternate, which goes first too) and report the median over the
    /// rounds: the host's speed can swing 2x between runs a minute apart.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// With --compare-processor: give the compare table from one process per case and tier
    /// that runs the case on both processors, their dispatches interleaved one by one in this
    /// many pairs (each processor first in every other pair), as the median of the pairs'
    /// ratios and their range: a pair's two dispatches start ~0.1–0.2 s apart where two
    /// children are ~1 s apart, and the host's speed can change within a second or two. The
    /// main table still comes from --processor's own children (--repeat rounds of them).
    #[arg(long, requires = "compare_processor",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub interleave: Option<u32>,
    /// Internal: run the benchmark with this label alone, in the tier HSAEMU_JIT sets, and
    /// print its result as one JSON line (each tier's run is such a child process).
    #[arg(long, hide = true)]
    pub child_case: Option<String>,
    /// Internal: the child's code object, compiled by the parent for the child's processor
    /// (instead of compiling the case again in each tier's child).
    #[arg(long, hide = true, requires = "child_case")]
    pub child_code: Option<PathBuf>,
    /// Internal: run the child's case on --compare-processor too, from this code object
    /// (compiled by the parent), the two processors' dispatches interleaved (--interleave).
    #[arg(long, hide = true, requires_all = ["child_case", "interleave"])]
    pub child_compare_code: Option<PathBuf>,
}

const VECTOR_ADD: &str = include_str!("../../../../../tests/kernels/cl/vector_add.cl");
const MATMUL: &str = include_str!("../../../../../tests/kernels/cl/matmul.cl");
const REDUCE: &str = include_str!("../../../../../tests/kernels/cl/reduce.cl");
const ATOMICS: &str = include_str!("../../../../../tests/kernels/cl/atomics.cl");
const MANDELBROT: &str = include_str!("../../../../../tests/kernels/cl/mandelbrot.cl");
const EMPTY: &str = include_str!("../../../../../tests/kernels/cl/runtime_kernels.cl");

fn bytes_of<T: Copy>(v: &[T], f: impl Fn(T) -> [u8; 4]) -> Vec<u8> {
    v.iter().flat_map(|x| f(*x)).collect()
}

fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A kernel argument, as both the emulator and PoCL receive it.
enum Arg {
    /// A global buffer with its initial contents (read back after the run).
    Buffer(Vec<u8>),
    /// A 32-bit scalar.
    U32(u32),
    /// A `__local` pointer to this many bytes of dynamic group memory.
    Local(u32),
}

/// Checks a run's output buffers (in argument order) against the CPU.
type Check = Box<dyn Fn(&[Vec<u8>]) -> bool>;

/// Dispatches of a case in one process, as PoCL's runs: the first (the tier interprets while
/// it compiles) is reported apart, the median of the others is the case's figure. `--quick`
/// makes two (its figures are for checking the report, not for quoting).
const ROUNDS: usize = 4;

fn rounds(quick: bool) -> usize {
    if quick {
        2
    } else {
        ROUNDS
    }
}

/// One dispatch of a case: its statistics and the CPU seconds it took.
struct Round {
    stats: DispatchStats,
    cpu: Option<f64>,
}

/// What the emulated runs of a case produced: the first dispatch, the median of the later
/// ones (by wall time), and whether every run's output buffers matched the CPU's.
struct Emulated {
    first: Round,
    median: Round,
    ok: bool,
}

/// A case ready to dispatch on one GPU: its code object, its buffers (registered in the
/// bench's memory map) and its kernarg segment's explicit part.
struct Ready {
    code: LoadedCodeObject,
    bufs: Vec<HostBuffer>,
    explicit: Vec<u8>,
    dynamic_lds: u32,
}

/// One benchmark: a kernel from `tests/kernels/cl/`, its arguments and launch shape, and the
/// check of its output buffers against the CPU (applied to the emulator's and PoCL's results).
struct Case {
    label: String,
    file: &'static str,
    source: &'static str,
    kernel: &'static str,
    args: Vec<Arg>,
    grid: [u32; 3],
    wg: [u16; 3],
    check: Check,
}

struct Bench {
    gpu: Gpu,
    mem: Arc<MemoryMap>,
    dir: PathBuf,
    args: Args,
}

impl Bench {
    fn compile(&self, name: &str, src: &str) -> Result<LoadedCodeObject, String> {
        let out = self.build(&self.args.processor, name, src)?;
        Bench::load(&self.gpu, &out)
    }

    /// Compiles `src` for `processor` into the bench's directory and returns the code object's
    /// path. The parent builds each case once per processor and hands the file to both tiers'
    /// children (`--child-code`), which would otherwise each run the same compile.
    fn build(&self, processor: &str, name: &str, src: &str) -> Result<PathBuf, String> {
        let cl = self.dir.join(format!("{name}-{processor}.cl"));
        let out = self.dir.join(format!("{name}-{processor}.hsaco"));
        std::fs::write(&cl, src).map_err(|e| format!("cannot write {}: {e}", cl.display()))?;
        let (clang, mut args) = self.compiler(processor);
        if hsaemu_testkit::is_clang22_target(processor) {
            // clang-22's recipe has a second step: bitcode first, to see which library calls
            // need the generic-pointer shim.
            let bc = self.dir.join(format!("{name}-{processor}.bc"));
            let mut probe = args.clone();
            probe.extend(["-c".into(), "-emit-llvm".into()]);
            run_clang(&clang, &probe, &cl, &bc)?;
            link_shim(&mut args, &bc)?;
        }
        run_clang(&clang, &args, &cl, &out)?;
        Ok(out)
    }

    /// Loads a code object file into an emulated GPU (the bench's own, or the second
    /// processor's of an interleaved child).
    fn load(gpu: &Gpu, path: &Path) -> Result<LoadedCodeObject, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        gpu.load_code_object(&bytes).map_err(|e| e.to_string())
    }

    /// The compiler and its device-library options for the target: clang-15 links the libraries
    /// itself; the processors only LLVM 22 knows get clang-22 with ROCm 5.2's libraries linked
    /// by hand (testkit's recipe, the same the tests' kernels are built with).
    fn compiler(&self, p: &str) -> (String, Vec<String>) {
        let clang22 = hsaemu_testkit::is_clang22_target(p);
        let clang = self
            .args
            .clang
            .clone()
            .unwrap_or_else(|| if clang22 { "clang-22" } else { "clang-15" }.to_string());
        let mut args: Vec<String> = [
            "-x",
            "cl",
            "-cl-std=CL2.0",
            "-target",
            "amdgcn-amd-amdhsa",
            &format!("-mcpu={p}"),
            "-O2",
            "-mcode-object-version=5",
        ]
        .map(String::from)
        .to_vec();
        if clang22 {
            let dir = &self.args.device_libs;
            args.extend(hsaemu_testkit::clang22_device_lib_args(dir, p, false));
        } else {
            args.push(format!("--rocm-device-lib-path={}", self.args.device_libs));
        }
        (clang, args)
    }

    /// Runs a case on the emulator [`rounds`] times, each from the initial buffer contents.
    fn emulate(&self, case: &Case) -> Result<Emulated, String> {
        let code = match &self.args.child_code {
            Some(path) => Bench::load(&self.gpu, path)?,
            None => self.compile(case.file, case.source)?,
        };
        let mut ready = self.prepare(code, case)?;
        let mut runs = Vec::new();
        let mut ok = true;
        for _ in 0..rounds(self.args.quick) {
            let (run, right) = self.run_once(&self.gpu, &mut ready, case, true)?;
            ok &= right;
            runs.push(run);
        }
        let first = runs.remove(0);
        runs.sort_by_key(|r| r.stats.elapsed);
        let median = runs.swap_remove(runs.len() / 2);
        Ok(Emulated { first, median, ok })
    }

    /// Makes a case ready to dispatch with `code` (loaded into the GPU that will run it): its
    /// buffers in the memory map and its kernarg segment's explicit part.
    fn prepare(&self, code: LoadedCodeObject, case: &Case) -> Result<Ready, String> {
        let k = code
            .kernel(case.kernel)
            .ok_or_else(|| format!("no kernel `{}`", case.kernel))?;
        // The explicit kernarg segment: pointers 8-aligned, 32-bit values 4-aligned; a
        // `__local` pointer is the LDS offset of the dynamic allocation, which follows the
        // kernel's static group segment.
        let mut explicit = Vec::new();
        let mut bufs = Vec::new();
        let mut dynamic_lds = 0;
        for a in &case.args {
            let (align, bytes) = match a {
                Arg::Buffer(init) => {
                    let b = HostBuffer::new(&self.mem, init)?;
                    let addr = b.addr();
                    bufs.push(b);
                    (8, addr.to_le_bytes().to_vec())
                }
                Arg::U32(v) => (4, v.to_le_bytes().to_vec()),
                Arg::Local(size) => {
                    let offset = k.group_segment_size + dynamic_lds;
                    dynamic_lds += size;
                    (4, offset.to_le_bytes().to_vec())
                }
            };
            explicit.resize(explicit.len().next_multiple_of(align), 0);
            explicit.extend_from_slice(&bytes);
        }
        Ok(Ready {
            code,
            bufs,
            explicit,
            dynamic_lds,
        })
    }

    /// One dispatch of a ready case on `gpu`, from the initial buffer contents (kernels like
    /// the histogram accumulate into their outputs): its statistics, the CPU seconds of this
    /// process around it, and, if `check`, whether its output matched the CPU's (else true:
    /// copying a full case's outputs out for the check takes longer than its dispatch).
    fn run_once(
        &self,
        gpu: &Gpu,
        r: &mut Ready,
        case: &Case,
        check: bool,
    ) -> Result<(Round, bool), String> {
        let inits = case.args.iter().filter_map(|a| match a {
            Arg::Buffer(init) => Some(init),
            _ => None,
        });
        for (b, init) in r.bufs.iter_mut().zip(inits) {
            b.fill(init);
        }
        let c0 = cpu_seconds();
        let stats = self.dispatch(gpu, r, case)?;
        let cpu = cpu_seconds().zip(c0).map(|(a, b)| a - b);
        let ok = !check || {
            let buffers: Vec<Vec<u8>> = r.bufs.iter().map(HostBuffer::bytes).collect();
            (case.check)(&buffers)
        };
        Ok((Round { stats, cpu }, ok))
    }

    fn dispatch(&self, gpu: &Gpu, r: &Ready, case: &Case) -> Result<DispatchStats, String> {
        let (kernel, grid, wg) = (case.kernel, case.grid, case.wg);
        let k = r
            .code
            .kernel(kernel)
            .ok_or_else(|| format!("no kernel `{kernel}`"))?;
        let mut ka = kernarg::build(&r.explicit, 5, grid, wg);
        ka.resize(ka.len().max(k.kernarg_segment_size as usize), 0);
        let kb = HostBuffer::new(&self.mem, &ka)?;
        gpu.dispatch(&Dispatch {
            kernel_object: k.kernel_object,
            kernarg_address: kb.addr(),
            grid_size: grid,
            workgroup_size: wg,
            group_segment_size: k.group_segment_size + r.dynamic_lds,
            private_segment_size: k.private_segment_size,
            ..Dispatch::default()
        })
        .map_err(|f| f.to_string())
    }
}

/// testkit's [`hsaemu_testkit::link_generic_shim`], whose panics (it is a test helper: a tool
/// that fails, a library it cannot read) become an error naming the cause.
fn link_shim(args: &mut Vec<String>, bc: &Path) -> Result<(), String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let linked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        hsaemu_testkit::link_generic_shim(args, bc)
    }));
    std::panic::set_hook(hook);
    linked.map_err(|p| {
        let why = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!(
            "clang-22's generic-pointer shim for {} failed: {why}",
            bc.display()
        )
    })
}

/// Runs `clang args… cl -o out`; its diagnostics are shown only when it fails (clang-22 warns
/// about every kernel that uses LDS, "local memory global used by non-kernel function").
fn run_clang(clang: &str, args: &[String], cl: &Path, out: &Path) -> Result<(), String> {
    let run = Command::new(clang)
        .args(args)
        .arg(cl)
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| {
            format!("cannot run {clang}: {e} (scripts/setup.sh installs clang-15 and clang-22)")
        })?;
    if !run.status.success() {
        return Err(format!(
            "{clang} failed on {}:\n{}",
            cl.display(),
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    Ok(())
}

/// CPU seconds (user + system, every thread) this process has used: its CPU-time clock, to
/// the nanosecond (/proc/self/stat counts 10 ms ticks, too coarse for the quick cases).
fn cpu_seconds() -> Option<f64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the clock id is a constant libc defines.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    (rc == 0).then_some(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
}

/// The five throughput benchmarks, at full or quick size.
fn cases(quick: bool) -> Vec<Case> {
    let mut cases = Vec::new();

    // Vector add.
    let n: u32 = if quick { 1 << 20 } else { 16 << 20 };
    let a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.5).collect();
    let args = vec![
        Arg::Buffer(bytes_of(&a, f32::to_le_bytes)),
        Arg::Buffer(bytes_of(&b, f32::to_le_bytes)),
        Arg::Buffer(vec![0u8; 4 * n as usize]),
        Arg::U32(n),
    ];
    cases.push(Case {
        label: format!("vector_add {}M", n >> 20),
        file: "vector_add",
        source: VECTOR_ADD,
        kernel: "vector_add",
        args,
        grid: [n, 1, 1],
        wg: [256, 1, 1],
        check: Box::new(move |out| {
            let c = u32s(&out[2]);
            (0..n as usize)
                .step_by(997)
                .all(|i| f32::from_bits(c[i]) == a[i] + b[i])
        }),
    });

    // Tiled matmul.
    let m: u32 = if quick { 128 } else { 512 };
    let am: Vec<f32> = (0..m * m).map(|i| ((i % 17) as f32) * 0.25).collect();
    let bm: Vec<f32> = (0..m * m).map(|i| ((i % 13) as f32) * 0.5).collect();
    let args = vec![
        Arg::Buffer(bytes_of(&am, f32::to_le_bytes)),
        Arg::Buffer(bytes_of(&bm, f32::to_le_bytes)),
        Arg::Buffer(vec![0u8; 4 * (m * m) as usize]),
        Arg::U32(m),
    ];
    cases.push(Case {
        label: format!("matmul_tiled {m}x{m}"),
        file: "matmul",
        source: MATMUL,
        kernel: "matmul_tiled",
        args,
        grid: [m, m, 1],
        wg: [16, 16, 1],
        check: Box::new(move |out| {
            let c = u32s(&out[2]);
            let mu = m as usize;
            [(0usize, 0usize), (mu - 1, mu - 1), (mu / 3, mu / 2)]
                .iter()
                .all(|&(r, col)| {
                    let want: f32 = (0..mu).map(|k| am[r * mu + k] * bm[k * mu + col]).sum();
                    (f32::from_bits(c[r * mu + col]) - want).abs() <= want.abs() * 1e-4 + 1e-3
                })
        }),
    });

    // Work-group reduction with dynamic LDS.
    let n: u32 = if quick { 1 << 20 } else { 8 << 20 };
    let input: Vec<u32> = (0..n).map(|i| i % 100).collect();
    let groups = (n / 256) as usize;
    let want: u64 = input.iter().map(|&x| u64::from(x)).sum();
    cases.push(Case {
        label: format!("reduce_sum {}M", n >> 20),
        file: "reduce",
        source: REDUCE,
        kernel: "reduce_sum",
        args: vec![
            Arg::Buffer(bytes_of(&input, u32::to_le_bytes)),
            Arg::Buffer(vec![0u8; 4 * groups]),
            Arg::Local(1024),
            Arg::U32(n),
        ],
        grid: [n, 1, 1],
        wg: [256, 1, 1],
        check: Box::new(move |out| {
            u32s(&out[1]).iter().map(|&x| u64::from(x)).sum::<u64>() == want
        }),
    });

    // Histogram with LDS and global atomics.
    let n: u32 = if quick { 1 << 20 } else { 16 << 20 };
    let data: Vec<u8> = (0..n)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut want = [0u32; 256];
    for d in &data {
        want[*d as usize] += 1;
    }
    cases.push(Case {
        label: format!("histogram {}M", n >> 20),
        file: "atomics",
        source: ATOMICS,
        kernel: "histogram",
        args: vec![Arg::Buffer(data), Arg::U32(n), Arg::Buffer(vec![0u8; 1024])],
        grid: [256 * 256, 1, 1],
        wg: [256, 1, 1],
        check: Box::new(move |out| u32s(&out[1])[..256] == want[..]),
    });
    cases.push(mandelbrot(quick));
    cases
}

/// The float-heavy loop: a 1024×768 mandelbrot (256×192 quick) of at most 256 iterations per
/// pixel, over [-2.25, 0.75] × [-1.125, 1.125]. The kernel does not contract into fma, so the
/// CPU's f32 arithmetic in the same order gives the same count for every pixel, and every
/// pixel is compared.
fn mandelbrot(quick: bool) -> Case {
    let (w, h): (u32, u32) = if quick { (256, 192) } else { (1024, 768) };
    let max_iter = 256u32;
    let (x0, y0) = (-2.25f32, -1.125f32);
    let (dx, dy) = (3.0 / w as f32, 2.25 / h as f32);
    // Computed on first use and shared by the emulator's and PoCL's checks.
    let want: std::cell::OnceCell<Vec<u32>> = std::cell::OnceCell::new();
    let reference = move || -> Vec<u32> {
        let mut v = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let (cr, ci) = (x0 + x as f32 * dx, y0 + y as f32 * dy);
                let (mut zr, mut zi, mut i) = (0f32, 0f32, 0u32);
                while i < max_iter {
                    let (zr2, zi2) = (zr * zr, zi * zi);
                    if zr2 + zi2 > 4.0 {
                        break;
                    }
                    zi = 2.0 * zr * zi + ci;
                    zr = zr2 - zi2 + cr;
                    i += 1;
                }
                v.push(i);
            }
        }
        v
    };
    Case {
        label: format!("mandelbrot {w}x{h}"),
        file: "mandelbrot",
        source: MANDELBROT,
        kernel: "mandelbrot",
        args: vec![
            Arg::Buffer(vec![0u8; 4 * (w * h) as usize]),
            Arg::U32(w),
            Arg::U32(h),
            Arg::U32(x0.to_bits()),
            Arg::U32(y0.to_bits()),
            Arg::U32(dx.to_bits()),
            Arg::U32(dy.to_bits()),
            Arg::U32(max_iter),
        ],
        grid: [w, h, 1],
        wg: [16, 16, 1],
        check: Box::new(move |out| u32s(&out[0]) == *want.get_or_init(&reference)),
    }
}

/// The LLVM 22 tool missing for building kernels for `processor`, as an error naming it:
/// clang-22's recipe runs testkit's generic-pointer shim, whose tools are looked up by `find`.
fn check_llvm22_tools(processor: &str, find: impl Fn(&str) -> bool) -> Result<(), String> {
    if !hsaemu_testkit::is_clang22_target(processor) {
        return Ok(());
    }
    match hsaemu_testkit::GENERIC_SHIM_TOOLS
        .into_iter()
        .find(|t| !find(t))
    {
        Some(t) => Err(format!(
            "{processor}'s kernels are built by LLVM 22, and its `{t}` is missing: install \
             llvm-22 (scripts/setup.sh installs clang-22, lld-22 and llvm-22)"
        )),
        // The shim reads the OpenCL library from testkit's directory, whatever --device-libs says.
        None if !Path::new(hsaemu_testkit::DEVICE_LIB_PATH)
            .join("opencl.bc")
            .is_file() =>
        {
            Err(format!(
                "{processor}'s kernels link ROCm's device libraries from {}, which has no \
                 opencl.bc: install rocm-device-libs (scripts/setup.sh)",
                hsaemu_testkit::DEVICE_LIB_PATH
            ))
        }
        None => Ok(()),
    }
}

/// What PoCL's run of a case gave.
struct Native {
    elapsed: f64,
    cpu: Option<f64>,
    ok: bool,
}

/// Runs a case under PoCL and checks its result.
fn run_pocl(p: &pocl::Pocl, case: &Case) -> Result<Native, String> {
    let args: Vec<pocl::Arg> = case
        .args
        .iter()
        .map(|a| match a {
            Arg::Buffer(b) => pocl::Arg::Buffer(b),
            Arg::U32(v) => pocl::Arg::U32(*v),
            Arg::Local(size) => pocl::Arg::Local(*size as usize),
        })
        .collect();
    let global: Vec<usize> = case.grid.iter().map(|&g| g as usize).collect();
    let local: Vec<usize> = case.wg.iter().map(|&w| usize::from(w)).collect();
    let run = p.run(case.source, case.kernel, &args, &global, &local)?;
    Ok(Native {
        elapsed: run.elapsed.as_secs_f64().max(1e-9),
        cpu: run.cpu,
        ok: (case.check)(&run.buffers),
    })
}

/// The median, least and greatest of some figures (`None` for none). An even count's median
/// is the mean of its two middle figures.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Spread {
    median: f64,
    min: f64,
    max: f64,
}

fn spread(figures: &[f64]) -> Option<Spread> {
    let mut v = figures.to_vec();
    v.sort_by(f64::total_cmp);
    let (&min, &max) = (v.first()?, v.last()?);
    let mid = v.len() / 2;
    let median = if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    };
    Some(Spread { median, min, max })
}

/// One tier's cells of a report row, over the case's rounds (one per `--repeat`): the median
/// of the rounds' M lane-ops per CPU-second, of their wall times, and that wall time / PoCL's.
fn tier_cells(rounds: &[Measured], native: Option<&Native>) -> String {
    let lane: Vec<f64> = rounds
        .iter()
        .filter_map(Measured::lane_ops_per_cpu_second)
        .collect();
    let lane = spread(&lane).map_or("-".into(), |l| format!("{:.1} M", l.median));
    let walls: Vec<f64> = rounds.iter().map(|m| m.elapsed).collect();
    let (wall, ratio) = match spread(&walls) {
        Some(w) => (
            format!("{:.1} ms", w.median * 1e3),
            native.map_or("-".into(), |n| format!("{:.1}x", w.median / n.elapsed)),
        ),
        None => ("-".into(), "-".into()),
    };
    format!("{lane:>13} {wall:>11} {ratio:>8}  ")
}

/// The two header lines of the report's table.
fn table_header(tiers: &[Tier], pocl: bool) {
    let titles: String = tiers.iter().map(|t| format!("{:<36}", t.title())).collect();
    let cells: String = tiers
        .iter()
        .map(|_| format!("{:>13} {:>11} {:>8}  ", "lane-ops/CPU", "wall", "/PoCL"))
        .collect();
    let (pt, pc) = if pocl {
        ("PoCL native", "wall")
    } else {
        ("", "")
    };
    println!("{}", format!("{:<22} {titles}{pt}", "").trim_end());
    println!("{}", format!("{:<22} {cells}{pc:>11}", "kernel").trim_end());
}

/// Per tier, a case's run in each round (`--repeat`), in round order.
type Rounds = Vec<Vec<Measured>>;

/// The report row of a case: each tier's cells, PoCL's time, and which tiers' results were
/// wrong in some round; then what the compiling tier did in the first round.
fn print_row(label: &str, tiers: &[Tier], runs: &Rounds, native: Option<&Native>) {
    let cells: String = runs.iter().map(|r| tier_cells(r, native)).collect();
    let pocl = native.map_or(String::new(), |n| {
        let cpu = n
            .cpu
            .map_or(String::new(), |c| format!(" ({:.1} ms CPU)", c * 1e3));
        format!("{:>11}{cpu}", format!("{:.1} ms", n.elapsed * 1e3))
    });
    let mut wrong: Vec<String> = tiers
        .iter()
        .zip(runs)
        .filter(|(_, r)| !r.iter().all(|m| m.ok))
        .map(|(t, _)| format!("RESULT MISMATCH ({})", t.title()))
        .collect();
    if native.is_some_and(|n| !n.ok) {
        wrong.push("POCL RESULT MISMATCH".into());
    }
    let line = format!("{label:<22} {cells}{pocl}  {}", wrong.join("  "));
    println!("{}", line.trim_end());
    for (t, r) in tiers.iter().zip(runs) {
        if let (Tier::Jit, Some(m)) = (t, r.first()) {
            let c = &m.compiled;
            let verified = if c.verified_runs > 0 {
                format!(", {} runs verified", c.verified_runs)
            } else {
                String::new()
            };
            let refused = if c.refused > 0 {
                format!(", {} blocks refused", c.refused)
            } else {
                String::new()
            };
            println!(
                "  compiling tier: {} blocks ({} instructions) compiled in {:.1} ms{verified}{refused}{}; \
                 first dispatch {:.1} ms",
                c.blocks,
                c.instructions,
                c.compile_ms,
                if c.enabled { "" } else { " (tier off: built without the `jit` feature)" },
                m.first_elapsed * 1e3
            );
            if let Some(l) = c.lowered.line() {
                println!("{l}");
            }
        }
    }
}

/// A benchmark case on two processors, in the tier this process's HSAEMU_JIT sets: the child's
/// side of `tiers::run_interleaved`. A `Gpu` for `q` beside the bench's own (one memory map,
/// each its own buffers); each runs the case once first (that dispatch compiles, and is left
/// out as in [`Bench::emulate`]), then `--interleave` pairs of dispatches, `--processor`'s
/// first in even pairs and `q`'s in odd ones (P Q Q P P Q …: neither always goes first, and
/// so a drift of the host's speed or what a dispatch leaves in the caches favours neither).
/// The warm-ups' and the last pair's results are checked (a full case's outputs take longer
/// to copy out than to compute, and would keep the pairs' two dispatches apart); a warm-up's
/// check counts in the first pair's.
fn run_child_interleaved(b: &Bench, label: &str, q: &str, q_code: &Path) -> Result<(), String> {
    let case = cases(b.args.quick)
        .into_iter()
        .find(|c| c.label == label)
        .ok_or_else(|| format!("no benchmark `{label}`"))?;
    let config = GpuConfig {
        processor: q.to_string(),
        threads: b.args.threads,
        ..GpuConfig::default()
    };
    let gq = Gpu::new(config, b.mem.clone()).map_err(|e| e.to_string())?;
    let p_code = match &b.args.child_code {
        Some(path) => Bench::load(&b.gpu, path)?,
        None => b.compile(case.file, case.source)?,
    };
    let mut p = (&b.gpu, b.prepare(p_code, &case)?);
    let mut q = (&gq, b.prepare(Bench::load(&gq, q_code)?, &case)?);
    let run = |(gpu, ready): &mut (&Gpu, Ready), check| b.run_once(gpu, ready, &case, check);
    let (mut p_ok, mut q_ok) = (run(&mut p, true)?.1, run(&mut q, true)?.1);
    let n = b.args.interleave.unwrap_or(1);
    let mut pairs = Vec::new();
    for i in 0..n {
        let last = i + 1 == n;
        let (pr, qr) = if q_goes_first(i) {
            let qr = run(&mut q, last)?;
            (run(&mut p, last)?, qr)
        } else {
            let pr = run(&mut p, last)?;
            (pr, run(&mut q, last)?)
        };
        pairs.push((pr.0, pr.1 && p_ok, qr.0, qr.1 && q_ok));
        (p_ok, q_ok) = (true, true);
    }
    let samples: Vec<_> = pairs
        .iter()
        .map(|(pr, pok, qr, qok)| ((&pr.stats, pr.cpu, *pok), (&qr.stats, qr.cpu, *qok)))
        .collect();
    println!("{}", tiers::interleaved_line(&samples));
    Ok(())
}

/// Whether the compared processor dispatches first in interleaved pair `pair` (P Q, Q P, …).
fn q_goes_first(pair: u32) -> bool {
    pair % 2 == 1
}

/// A benchmark case alone, in the tier this process's HSAEMU_JIT sets: the child's side of
/// `tiers::run_child`.
fn run_child_case(b: &Bench, label: &str) -> Result<(), String> {
    let case = cases(b.args.quick)
        .into_iter()
        .find(|c| c.label == label)
        .ok_or_else(|| format!("no benchmark `{label}`"))?;
    let run = b.emulate(&case)?;
    // The compiler's counts once it has handled every region the runs sent it (the figures
    // above are measured already): on a loaded host a `--quick` run can end before the
    // background compiler has published anything, and the report then said "0 blocks".
    hsaemu_emu::jit::wait_compiled(std::time::Duration::from_secs(60));
    let (m, f) = (&run.median, &run.first);
    println!(
        "{}",
        tiers::result_line(&m.stats, m.cpu, (&f.stats, f.cpu), run.ok)
    );
    Ok(())
}

pub fn run(args: Args) -> Result<ExitCode, String> {
    let find = |t: &str| hsaemu_testkit::find_tool(t).is_some();
    check_llvm22_tools(&args.processor, find)?;
    if let Some(q) = &args.compare_processor {
        check_llvm22_tools(q, find)?;
    }
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
    // PoCL reads its thread limit from the environment: open it before any other thread runs.
    let native = if args.no_pocl || args.child_case.is_some() {
        None
    } else {
        match pocl::Pocl::open(gpu.threads()) {
            Ok(p) => Some(p),
            Err(e) => {
                println!("PoCL comparison unavailable: {e}");
                None
            }
        }
    };
    let dir = std::env::temp_dir().join(format!("hsaemu-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let b = Bench {
        gpu,
        mem: mem.clone(),
        dir: dir.clone(),
        args,
    };
    let result = match b.args.child_case.clone() {
        Some(label) => match (&b.args.compare_processor, &b.args.child_compare_code) {
            (Some(q), Some(code)) => run_child_interleaved(&b, &label, q, code).map(|()| true),
            _ => run_child_case(&b, &label).map(|()| true),
        },
        None => run_parent(&b, native.as_ref()),
    };
    let _ = std::fs::remove_dir_all(&dir);
    Ok(if result? {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The report: every selected case in every selected tier beside PoCL, the second processor's
/// figures if asked for, and dispatch latency. False when a result was wrong.
fn run_parent(b: &Bench, native: Option<&pocl::Pocl>) -> Result<bool, String> {
    let tiers = Tier::chosen(b.args.tier);
    let mut all_ok = true;
    println!(
        "hsaemu bench on {} with up to {} host threads{}",
        b.args.processor,
        b.gpu.threads(),
        native
            .map(|p| format!("; PoCL on `{}` with as many", p.device))
            .unwrap_or_default()
    );
    let once = if native.is_some() {
        " (PoCL's run once)"
    } else {
        ""
    };
    let repeat = match b.args.repeat {
        1 => String::new(),
        n => format!(
            "; hsaemu's figures are the median of {n} rounds, each case's children run again \
             in each{once}"
        ),
    };
    println!(
        "(hsaemu dispatches each case {} times and PoCL runs it 4: the figures are the median \
         of the runs after the first{repeat}; lane-ops/CPU: M lane-ops per CPU-second of the \
         run's own process, all threads; wall: dispatch wall time; /PoCL: hsaemu wall time / \
         PoCL's)",
        rounds(b.args.quick)
    );
    table_header(tiers, native.is_some());

    let want = |name: &str| b.args.only.as_deref().is_none_or(|o| name.contains(o));
    let mut second = Vec::new();
    let ok = |r: &Rounds| r.iter().flatten().all(|m| m.ok);
    for case in cases(b.args.quick) {
        if !want(case.kernel) && !want(&case.label) {
            continue;
        }
        let p = b.args.processor.as_str();
        let code = b.build(p, case.file, case.source)?;
        let q = match &b.args.compare_processor {
            Some(q) => Some((q.as_str(), b.build(q, case.file, case.source)?)),
            None => None,
        };
        let q = q.as_ref().map(|(q, code)| (*q, code.as_path()));
        let (runs, other) = match (q, b.args.interleave) {
            (Some(q), Some(_)) => {
                let (runs, _) = run_rounds(b, &case.label, tiers, (p, &code), None)?;
                let pairs = tiers
                    .iter()
                    .map(|&t| tiers::run_interleaved(&b.args, (p, &code), q, &case.label, t))
                    .collect::<Result<Vec<_>, String>>()?;
                let (mine, theirs): (Rounds, Rounds) =
                    pairs.into_iter().map(|v| v.into_iter().unzip()).unzip();
                all_ok &= ok(&mine) && ok(&theirs);
                second.push((case.label.clone(), mine, theirs));
                (runs, None)
            }
            _ => run_rounds(b, &case.label, tiers, (p, &code), q)?,
        };
        let pocl = native.map(|n| run_pocl(n, &case)).transpose()?;
        all_ok &= ok(&runs) && pocl.as_ref().is_none_or(|n| n.ok);
        print_row(&case.label, tiers, &runs, pocl.as_ref());
        if let Some(other) = other {
            all_ok &= ok(&other);
            second.push((case.label.clone(), runs, other));
        }
    }
    if let Some(q) = &b.args.compare_processor {
        let pairing = match b.args.interleave {
            Some(_) => Pairing::Interleaved,
            None => Pairing::Rounds,
        };
        compare_processors(q, &b.args.processor, tiers, &second, pairing);
    }
    if want("dispatch") {
        dispatch_latency(b)?;
    }
    Ok(all_ok)
}

/// A case's children, `--repeat` rounds of them: per tier, its run on `p` in each round and, if
/// given, its run on `q` in each round. In a round each tier runs on `p` then at once on `q`
/// (on `q` first in odd rounds, so that neither always goes first): the host's speed flips
/// between a slow and a fast mode from one minute to the next (2x on the project's VM), and
/// two children run one right after the other usually see the same mode, so the ratio of a
/// round's pair cancels the flips where figures from different minutes do not.
fn run_rounds(
    b: &Bench,
    label: &str,
    tiers: &[Tier],
    p: (&str, &Path),
    q: Option<(&str, &Path)>,
) -> Result<(Rounds, Option<Rounds>), String> {
    let mut mine = vec![Vec::new(); tiers.len()];
    let mut theirs = vec![Vec::new(); tiers.len()];
    for round in 0..b.args.repeat {
        for (i, &t) in tiers.iter().enumerate() {
            let child = |(processor, code): (&str, &Path)| {
                tiers::run_child(&b.args, processor, label, code, t)
            };
            match q {
                None => mine[i].push(child(p)?),
                Some(q) if round % 2 == 1 => {
                    theirs[i].push(child(q)?);
                    mine[i].push(child(p)?);
                }
                Some(q) => {
                    mine[i].push(child(p)?);
                    theirs[i].push(child(q)?);
                }
            }
        }
    }
    Ok((mine, q.map(|_| theirs)))
}

/// The `--compare-processor` table: `q`'s lane-ops per CPU-second over `p`'s (and its CPU for
/// the same job), per case and tier (issue 13 asks for gfx1030 within 1.2× of gfx90a per
/// lane-op, a ratio of at least 0.83).
fn compare_processors(
    q: &str,
    p: &str,
    tiers: &[Tier],
    rows: &[(String, Rounds, Rounds)],
    pairing: Pairing,
) {
    let n = rows.first().and_then(|(_, r, _)| r.first()).map(Vec::len);
    let over = match (pairing, n) {
        (Pairing::Interleaved, _) => ", the median of the ratios of pairs of dispatches \
            interleaved in one process (least–greatest)"
            .to_string(),
        (Pairing::Rounds, Some(n)) if n > 1 => {
            format!(", the median of {n} rounds' ratios (least–greatest)")
        }
        _ => String::new(),
    };
    println!(
        "{q} relative to {p}: lane-ops per CPU-second, {q} / {p}{over}; same job: {p}'s CPU / \
         {q}'s"
    );
    let table: Vec<(&String, Vec<String>)> = rows
        .iter()
        .map(|(label, mine, theirs)| {
            let cells = mine
                .iter()
                .zip(theirs)
                .map(|(a, b)| compare_cell(a, b, pairing));
            (label, cells.collect())
        })
        .collect();
    // A column as wide as its widest cell (a cell over rounds is wider than one round's).
    let width = table
        .iter()
        .flat_map(|(_, cells)| cells.iter().map(|c| c.chars().count() + 2))
        .fold(36, usize::max);
    let titles: String = tiers
        .iter()
        .map(|t| format!("{:<width$}", t.title()))
        .collect();
    println!("{}", format!("{:<22} {titles}", "kernel").trim_end());
    for (label, cells) in table {
        let cells: String = cells.iter().map(|c| format!("{c:<width$}")).collect();
        println!("{}", format!("{label:<22} {cells}").trim_end());
    }
}

/// How the compare table's runs were paired: children run one after the other in rounds
/// (`--repeat`), or dispatches interleaved in one child (`--interleave`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pairing {
    Rounds,
    Interleaved,
}

/// One cell of the `--compare-processor` table, `b` (the second processor's rounds) against `a`
/// (the first's, of the same rounds): its lane-ops per CPU-second over `a`'s, then "same job",
/// `a`'s CPU over `b`'s for the same grid. The two differ because each processor's compiler
/// emits its own instructions: gfx90a's vector add counts 19 lane-ops per element (64-bit
/// address arithmetic) to gfx1030's 15. One round gives its ratios and `b`'s own figure; more
/// give the median of the rounds' ratios, each of a round's pair (see [`run_rounds`]), with
/// their range. Interleaved pairs (`--interleave`, [`run_child_interleaved`]) give the median
/// of the pairs' ratios and their range however many. A result mismatch of `b` in any round or
/// pair is marked.
fn compare_cell(a: &[Measured], b: &[Measured], pairing: Pairing) -> String {
    let rounds = || a.iter().zip(b);
    let lane: Vec<f64> = rounds()
        .filter_map(|(a, b)| Some(b.lane_ops_per_cpu_second()? / a.lane_ops_per_cpu_second()?))
        .collect();
    let job: Vec<f64> = rounds()
        .filter_map(|(a, b)| Some(a.cpu? / b.cpu?))
        .collect();
    let job = spread(&job).map_or(String::new(), |j| format!(", same job {:.2}x", j.median));
    let bad = if b.iter().all(|m| m.ok) {
        ""
    } else {
        " RESULT MISMATCH"
    };
    let cell = match (spread(&lane), b) {
        (None, _) => "-".into(),
        (Some(l), _) if pairing == Pairing::Interleaved => format!(
            "{:.2}x ({:.2}–{:.2} over {} pairs, interleaved){job}",
            l.median,
            l.min,
            l.max,
            lane.len()
        ),
        (Some(l), [one]) => {
            let y = one.lane_ops_per_cpu_second().unwrap_or_default();
            format!("{:.2}x ({y:.1} M){job}", l.median)
        }
        (Some(l), _) => format!(
            "{:.2}x ({:.2}–{:.2} over {} rounds){job}",
            l.median,
            l.min,
            l.max,
            lane.len()
        ),
    };
    format!("{cell}{bad}")
}

/// Dispatch latency: `Gpu::dispatch` of an empty kernel, median over many dispatches (in this
/// process, with the tier HSAEMU_JIT sets: an empty kernel compiles nothing).
fn dispatch_latency(b: &Bench) -> Result<(), String> {
    let code = b.compile("empty", EMPTY)?;
    let k = code
        .kernel("empty")
        .ok_or_else(|| "no kernel `empty`".to_string())?;
    let rounds = if b.args.quick { 200 } else { 2000 };
    for (label, groups) in [("1 WG", 1u32), ("8 WGs", 8)] {
        let grid = [64 * groups, 1, 1];
        let mut ka = kernarg::build(&[], 5, grid, [64, 1, 1]);
        ka.resize(ka.len().max(k.kernarg_segment_size as usize), 0);
        let kb = HostBuffer::new(&b.mem, &ka)?;
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of `lane_ops` lane-ops in `cpu` CPU-seconds and `elapsed` wall seconds, its result
    /// right.
    fn run(lane_ops: u64, cpu: f64, elapsed: f64) -> Measured {
        Measured {
            cpu: Some(cpu),
            elapsed,
            lane_ops,
            ok: true,
            ..Measured::default()
        }
    }

    #[test]
    fn compare_cell_gives_lane_ops_and_the_same_jobs_cpu() {
        // 190 lane-ops in 1 s against 150 in 1.25 s: per lane-op (150 / 1.25) / 190 = 0.63,
        // for the same job 1 / 1.25 = 0.80.
        let a = run(190_000_000, 1.0, 1.0);
        let b = run(150_000_000, 1.25, 1.0);
        assert_eq!(
            compare_cell(&[a], &[b], Pairing::Rounds),
            "0.63x (120.0 M), same job 0.80x"
        );
        let unknown = Measured { cpu: None, ..b };
        assert_eq!(compare_cell(&[a], &[unknown], Pairing::Rounds), "-");
        let wrong = Measured { ok: false, ..b };
        assert_eq!(
            compare_cell(&[a], &[wrong], Pairing::Rounds),
            "0.63x (120.0 M), same job 0.80x RESULT MISMATCH"
        );
    }

    #[test]
    fn spread_gives_the_median_least_and_greatest() {
        let s = |median, min, max| Some(Spread { median, min, max });
        // Unsorted, odd: the middle figure (the mean would be 4.33).
        assert_eq!(spread(&[10.0, 1.0, 2.0]), s(2.0, 1.0, 10.0));
        // Even: the mean of the two middle ones, 2 and 3 (the mean of all would be 3.75).
        assert_eq!(spread(&[9.0, 1.0, 3.0, 2.0]), s(2.5, 1.0, 9.0));
        assert_eq!(spread(&[0.7]), s(0.7, 0.7, 0.7));
        assert_eq!(spread(&[]), None);
    }

    /// Over rounds, each round's ratio is of its own pair of runs, and the cell gives their
    /// median and range; a result mismatch of the second processor in any round marks it.
    #[test]
    fn compare_cell_over_rounds_gives_the_median_of_each_rounds_ratios() {
        // 200 lane-ops in 1 s each round against 150 in 1.0, 1.25 and 0.5 s: per lane-op 0.75,
        // 0.60 and 1.50 (mean 0.95), the same job 1.00, 0.80 and 2.00 (mean 1.27).
        let a = [run(200_000_000, 1.0, 1.0); 3];
        let b = [1.0, 1.25, 0.5].map(|cpu| run(150_000_000, cpu, 1.0));
        assert_eq!(
            compare_cell(&a, &b, Pairing::Rounds),
            "0.75x (0.60–1.50 over 3 rounds), same job 1.00x"
        );
        // Each round's own pair: CPU 2.0/1.6, 1.0/0.5 and 1.0/0.9 (the first round in the
        // host's slow mode) give 1.25, 2.00 and 1.11; the ratio of the medians would be 1.11.
        let p = [2.0, 1.0, 1.0].map(|cpu| run(100, cpu, 1.0));
        let q = [1.6, 0.5, 0.9].map(|cpu| run(100, cpu, 1.0));
        assert_eq!(
            compare_cell(&p, &q, Pairing::Rounds),
            "1.25x (1.11–2.00 over 3 rounds), same job 1.25x"
        );
        let mut wrong = b;
        wrong[1].ok = false;
        assert!(compare_cell(&a, &wrong, Pairing::Rounds).ends_with(" RESULT MISMATCH"));
    }

    /// Interleaved pairs: the median of the pairs' own ratios with their range and count, even
    /// for one pair (whose cell is never the one-round form); a mismatch in any pair marks it.
    #[test]
    fn compare_cell_over_interleaved_pairs_gives_the_median_of_each_pairs_ratios() {
        // Pairs of CPU 1.0/1.0, 0.5/0.8, 2.0/2.2 and 1.0/1.5 s for 100 lane-ops each: per
        // lane-op 1.00, 0.625, 0.909 and 0.667 (median of the middle two 0.667 and 0.909 =
        // 0.788; the ratio of the medians 1.0/1.25 would be 0.80, the mean 0.80).
        let p = [1.0, 0.5, 2.0, 1.0].map(|cpu| run(100, cpu, 1.0));
        let q = [1.0, 0.8, 2.2, 1.5].map(|cpu| run(100, cpu, 1.0));
        assert_eq!(
            compare_cell(&p, &q, Pairing::Interleaved),
            "0.79x (0.62–1.00 over 4 pairs, interleaved), same job 0.79x"
        );
        assert_eq!(
            compare_cell(&p[1..2], &q[1..2], Pairing::Interleaved),
            "0.62x (0.62–0.62 over 1 pairs, interleaved), same job 0.62x"
        );
        let mut wrong = q;
        wrong[3].ok = false;
        assert!(compare_cell(&p, &wrong, Pairing::Interleaved).ends_with(" RESULT MISMATCH"));
    }

    /// Each processor dispatches first in every other pair, --processor in the first.
    #[test]
    fn interleaved_pairs_alternate_which_processor_goes_first() {
        let order: Vec<bool> = (0..4).map(q_goes_first).collect();
        assert_eq!(order, [false, true, false, true]);
    }

    /// The main table's cells over rounds: the median of the rounds' lane-ops per CPU-second and
    /// of their wall times, and the latter over PoCL's.
    #[test]
    fn tier_cells_give_the_median_over_rounds() {
        // 100 M lane-ops in 0.5, 0.1 and 0.2 CPU-seconds: 200, 1000 and 500 M per second
        // (median 500, mean 566.7); wall 500, 100 and 200 ms (median 200, mean 266.7).
        let rounds = [0.5, 0.1, 0.2].map(|t| run(100_000_000, t, t));
        let pocl = Native {
            elapsed: 0.1,
            cpu: None,
            ok: true,
        };
        let want = format!("{:>13} {:>11} {:>8}  ", "500.0 M", "200.0 ms", "2.0x");
        assert_eq!(tier_cells(&rounds, Some(&pocl)), want);
        // One round: its own figures, as before --repeat.
        let want = format!("{:>13} {:>11} {:>8}  ", "1000.0 M", "100.0 ms", "-");
        assert_eq!(tier_cells(&rounds[1..2], None), want);
    }

    #[test]
    fn a_missing_llvm22_tool_is_an_error_naming_it() {
        let err = check_llvm22_tools("gfx1100", |t| t != "llvm-nm-22")
            .expect_err("llvm-nm-22 is missing");
        assert!(err.contains("`llvm-nm-22` is missing"), "{err}");
        assert!(err.contains("gfx1100"), "{err}");
        assert!(check_llvm22_tools("gfx1100", |_| true).is_ok());
        // clang-15's processors need none of them.
        assert!(check_llvm22_tools("gfx90a", |_| false).is_ok());
    }

    #[test]
    fn a_failing_shim_step_is_an_error_not_a_panic() {
        let mut args = Vec::new();
        let err = link_shim(&mut args, Path::new("/nonexistent/kernel.bc"))
            .expect_err("llvm-nm-22 cannot read a missing file");
        assert!(err.contains("llvm-nm-22"), "{err}");
        assert!(args.is_empty());
    }
}
