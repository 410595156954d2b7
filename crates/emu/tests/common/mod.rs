//! Test harness: compiles a kernel source with the real compiler (testkit, cached), loads it
//! on an emulated GPU, runs dispatches with host buffers, and hands results back.
#![allow(dead_code)]
#![allow(clippy::needless_range_loop)] // references are indexed like the device buffers

use hsaemu_emu::{
    kernarg, Access, Dispatch, DispatchStats, Fault, Gpu, GpuConfig, LoadedCodeObject, MemoryMap,
};
use std::sync::Arc;

/// A host buffer registered in the memory map for the duration of a test.
pub struct Buf {
    data: Vec<u64>,
    len: usize,
    mem: Arc<MemoryMap>,
}

impl Buf {
    pub fn addr(&self) -> u64 {
        self.data.as_ptr() as u64
    }
    pub fn bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len);
        for w in &self.data {
            v.extend_from_slice(&w.to_le_bytes());
        }
        v.truncate(self.len);
        v
    }
    pub fn u32s(&self) -> Vec<u32> {
        self.bytes()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }
    pub fn i32s(&self) -> Vec<i32> {
        self.u32s().into_iter().map(|x| x as i32).collect()
    }
    pub fn f32s(&self) -> Vec<f32> {
        self.u32s().into_iter().map(f32::from_bits).collect()
    }
    pub fn u64s(&self) -> Vec<u64> {
        self.bytes()
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    }
    pub fn f64s(&self) -> Vec<f64> {
        self.u64s().into_iter().map(f64::from_bits).collect()
    }
    pub fn u16s(&self) -> Vec<u16> {
        self.bytes()
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect()
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        let _ = self.mem.unregister(self.addr());
        if let Some(c) = hsaemu_emu::check::active() {
            c.freed(self.addr(), "drop");
        }
    }
}

/// A kernel argument.
pub enum Arg<'a> {
    Ptr(&'a Buf),
    U32(u32),
    I32(i32),
    F32(f32),
    U64(u64),
    F64(f64),
    Null,
}

pub struct Emu {
    pub gpu: Gpu,
    pub mem: Arc<MemoryMap>,
    pub code: LoadedCodeObject,
    pub cov: u32,
}

/// `src` compiled for a test target (a processor or a build variant such as [`GFX1030_W64`] or
/// one of [`TARGETS_V2`]) and loaded on a fresh emulated GPU.
pub fn emu(src: &str, target: &str) -> Emu {
    emu_cov(src, target, code_object_version(target))
}

/// [`emu`] on a GPU of `threads` host threads.
pub fn emu_threads(src: &str, target: &str, threads: usize) -> Emu {
    let (processor, extra) = compile_target(target);
    let cov = code_object_version(target);
    let path = hsaemu_testkit::compile_cl_with(src, processor, cov, extra);
    let bytes = std::fs::read(&path).expect("read compiled kernel");
    from_bytes_threads(&bytes, processor, cov, threads)
}

pub fn emu_cov(src: &str, target: &str, cov: u32) -> Emu {
    let (processor, extra) = compile_target(target);
    let path = hsaemu_testkit::compile_cl_with(src, processor, cov, extra);
    let bytes = std::fs::read(&path).expect("read compiled kernel");
    from_bytes(&bytes, processor, cov)
}

pub fn from_bytes(bytes: &[u8], target: &str, cov: u32) -> Emu {
    from_bytes_threads(bytes, target, cov, 2)
}

/// [`from_bytes`] on a GPU of `threads` host threads.
pub fn from_bytes_threads(bytes: &[u8], target: &str, cov: u32, threads: usize) -> Emu {
    let mem = MemoryMap::new();
    let gpu = Gpu::new(
        GpuConfig {
            processor: target.to_string(),
            threads,
            ..GpuConfig::default()
        },
        mem.clone(),
    )
    .expect("gpu");
    let code = gpu.load_code_object(bytes).expect("load code object");
    Emu {
        gpu,
        mem,
        code,
        cov,
    }
}

impl Emu {
    pub fn buf_bytes(&self, bytes: &[u8]) -> Buf {
        let n = bytes.len().max(1);
        let mut data = vec![0u64; n.div_ceil(8) + 1];
        for (i, b) in bytes.iter().enumerate() {
            data[i / 8] |= u64::from(*b) << (8 * (i % 8));
        }
        let buf = Buf {
            data,
            len: bytes.len(),
            mem: self.mem.clone(),
        };
        self.mem
            .register(buf.addr(), n as u64, Access::ReadWrite)
            .expect("register buffer");
        // Under HSAEMU_CHECK (the check sweep of docs/debugging.md): an allocation of
        // exactly its bytes, all written by the host.
        if let Some(c) = hsaemu_emu::check::active() {
            c.allocated(buf.addr(), n as u64, n as u64, true, "test buffer");
            c.host_wrote(buf.addr(), n as u64);
        }
        buf
    }
    pub fn buf_u32(&self, v: &[u32]) -> Buf {
        self.buf_bytes(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
    }
    pub fn buf_i32(&self, v: &[i32]) -> Buf {
        self.buf_bytes(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
    }
    pub fn buf_f32(&self, v: &[f32]) -> Buf {
        self.buf_bytes(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
    }
    pub fn buf_f64(&self, v: &[f64]) -> Buf {
        self.buf_bytes(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
    }
    pub fn buf_u64(&self, v: &[u64]) -> Buf {
        self.buf_bytes(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
    }
    pub fn zeros(&self, bytes: usize) -> Buf {
        self.buf_bytes(&vec![0u8; bytes])
    }

    /// Runs `kernel` over a 1-3D grid; `lds` is the dynamic group segment size.
    pub fn try_run(
        &self,
        kernel: &str,
        args: &[Arg],
        grid: [u32; 3],
        wg: [u16; 3],
        lds: u32,
    ) -> Result<DispatchStats, Fault> {
        let k = self
            .code
            .kernel(kernel)
            .unwrap_or_else(|| panic!("no kernel {kernel}"));
        let mut explicit: Vec<u8> = Vec::new();
        let align = |v: &mut Vec<u8>, a: usize| v.resize(v.len().div_ceil(a) * a, 0);
        for a in args {
            match a {
                Arg::Ptr(b) => {
                    align(&mut explicit, 8);
                    explicit.extend_from_slice(&b.addr().to_le_bytes())
                }
                Arg::Null => {
                    align(&mut explicit, 8);
                    explicit.extend_from_slice(&0u64.to_le_bytes())
                }
                Arg::U32(x) => {
                    align(&mut explicit, 4);
                    explicit.extend_from_slice(&x.to_le_bytes())
                }
                Arg::I32(x) => {
                    align(&mut explicit, 4);
                    explicit.extend_from_slice(&x.to_le_bytes())
                }
                Arg::F32(x) => {
                    align(&mut explicit, 4);
                    explicit.extend_from_slice(&x.to_le_bytes())
                }
                Arg::U64(x) => {
                    align(&mut explicit, 8);
                    explicit.extend_from_slice(&x.to_le_bytes())
                }
                Arg::F64(x) => {
                    align(&mut explicit, 8);
                    explicit.extend_from_slice(&x.to_le_bytes())
                }
            }
        }
        let mut ka = kernarg::build(&explicit, self.cov, grid, wg);
        ka.resize(ka.len().max(k.kernarg_segment_size as usize), 0);
        let kbuf = self.buf_bytes(&ka);
        let r = self.gpu.dispatch(&Dispatch {
            kernel_object: k.kernel_object,
            kernarg_address: kbuf.addr(),
            grid_size: grid,
            workgroup_size: wg,
            group_segment_size: k.group_segment_size + lds,
            private_segment_size: k.private_segment_size,
            ..Dispatch::default()
        });
        if let Some(c) = hsaemu_emu::check::active() {
            let found = c.report();
            assert!(found.is_empty(), "--check findings:\n{}", found.join("\n"));
        }
        r
    }

    pub fn run(&self, kernel: &str, args: &[Arg], grid: [u32; 3], wg: [u16; 3]) -> DispatchStats {
        self.try_run(kernel, args, grid, wg, 0)
            .unwrap_or_else(|f| panic!("{f}"))
    }
    pub fn run1(&self, kernel: &str, args: &[Arg], n: u32, wg: u16) -> DispatchStats {
        self.run(kernel, args, [n, 1, 1], [wg, 1, 1])
    }
}

/// Deterministic pseudo-random numbers.
pub struct Rng(pub u64);
impl Rng {
    pub fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    pub fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next_u32() as f32 / u32::MAX as f32)
    }
}

/// The targets every kernel test runs on: gfx90a, gfx906 and gfx803 (wave64) and gfx1030
/// (RDNA2) in wave32, clang's default for it.
pub const TARGETS: [&str; 4] = ["gfx90a", "gfx906", "gfx803", "gfx1030"];

/// CDNA3 (gfx942) and CDNA4 (gfx950), compiled by clang-22 (testkit's recipe). The suite runs
/// every source clang-22 can link for them (not those in `hsaemu_testkit::CLANG22_UNLINKABLE`).
pub const TARGETS_CDNA3: [&str; 2] = ["gfx942", "gfx950"];

/// RDNA3 (gfx1100), RDNA3.5 (gfx1151) and RDNA4 (gfx1201) in wave32, compiled by clang-22
/// (testkit's recipe), like [`TARGETS_CDNA3`] every source clang-22 can link for them.
pub const TARGETS_RDNA3: [&str; 3] = ["gfx1100", "gfx1151", "gfx1201"];

/// gfx1201 (RDNA4) with the kernels compiled for wave64 (`-mwavefrontsize64`).
pub const GFX1201_W64: &str = "gfx1201-w64";

/// gfx1100 with the kernels compiled for wave64 (`-mwavefrontsize64`).
pub const GFX1100_W64: &str = "gfx1100-w64";

/// gfx1151 (RDNA3.5) with the kernels compiled for wave64 (`-mwavefrontsize64`).
pub const GFX1151_W64: &str = "gfx1151-w64";

/// [`TARGETS_RDNA3`] in wave64: the representative subset (the tests that run
/// [`TARGETS_W64`]) runs on each of them.
pub const TARGETS_RDNA3_W64: [&str; 3] = [GFX1100_W64, GFX1151_W64, GFX1201_W64];

/// gfx1030 with the kernels compiled for wave64 (`-mwavefrontsize64`).
pub const GFX1030_W64: &str = "gfx1030-w64";

/// [`TARGETS`] and [`GFX1030_W64`]: the representative subset of tests that also runs wave64
/// RDNA code (with [`TARGETS_RDNA3`] and [`TARGETS_RDNA3_W64`] chained where it runs there).
pub const TARGETS_W64: [&str; 5] = ["gfx90a", "gfx906", "gfx803", "gfx1030", GFX1030_W64];

/// gfx1030 with private memory reached by `scratch_*` instructions (LLVM's
/// `enable-flat-scratch` feature) instead of MUBUF through the scratch V#.
pub const GFX1030_FLAT_SCRATCH: &str = "gfx1030-flat-scratch";

/// The format-independent kernel tests also run on code object V2, whose kernel objects are
/// `amd_kernel_code_t`s rather than kernel descriptors: these variants are the processors
/// clang-15 emits V2 for ("V2 does not support processor gfx90a").
pub const TARGETS_V2: [&str; 3] = ["gfx803-v2", "gfx900-v2", "gfx906-v2"];

/// The code object version a test target is built as.
pub fn code_object_version(target: &str) -> u32 {
    if target.ends_with("-v2") {
        2
    } else {
        5
    }
}

/// The processor of a test target and the compiler options it adds.
pub fn compile_target(target: &str) -> (&str, &'static [&'static str]) {
    if let Some(processor) = target.strip_suffix("-v2") {
        return (processor, &[]);
    }
    match target {
        GFX1030_W64 => ("gfx1030", &["-mwavefrontsize64"]),
        GFX1100_W64 => ("gfx1100", &["-mwavefrontsize64"]),
        GFX1151_W64 => ("gfx1151", &["-mwavefrontsize64"]),
        GFX1201_W64 => ("gfx1201", &["-mwavefrontsize64"]),
        GFX1030_FLAT_SCRATCH => (
            "gfx1030",
            &[
                "-Xclang",
                "-target-feature",
                "-Xclang",
                "+enable-flat-scratch",
            ],
        ),
        _ => (target, &[]),
    }
}

/// Lanes per wave of the kernels compiled for a test target.
pub fn wave_size(target: &str) -> usize {
    if matches!(target, "gfx1030" | "gfx1100" | "gfx1151" | "gfx1201") {
        32
    } else {
        64
    }
}

/// Relative/ulp float comparison.
pub fn close(a: f32, b: f32, ulps: u32) -> bool {
    if a.is_nan() && b.is_nan() {
        return true;
    }
    if a == b {
        return true;
    }
    let d = (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs();
    d <= u64::from(ulps) || (a - b).abs() <= 1e-30
}

/// Compiles a HIP source for all TARGETS (cached bundle; HIP 5.2 has no wave64 on GFX10),
/// extracts `target`'s code object
/// with clang-offload-bundler-15 and loads it.
pub fn emu_hip(src: &str, target: &str) -> Emu {
    let bundle = hsaemu_testkit::compile_hip_bundle(src, &TARGETS);
    let out = bundle.with_extension(format!("{target}.hsaco"));
    hsaemu_testkit::build_once(&out, || {
        let tmp = hsaemu_testkit::temp_beside(&out, "hsaco");
        let tool = hsaemu_testkit::tool("clang-offload-bundler-15");
        hsaemu_testkit::run_tool(
            &tool,
            &[
                "--unbundle",
                "--type=o",
                &format!("--input={}", bundle.display()),
                &format!("--targets=hipv4-amdgcn-amd-amdhsa--{target}"),
                &format!("--output={}", tmp.display()),
            ],
        );
        std::fs::rename(&tmp, &out).expect("move unbundled code object");
    });
    let bytes = std::fs::read(&out).expect("read code object");
    let cov = match bytes.get(8) {
        Some(3) => 5,
        Some(2) => 4,
        _ => 3,
    };
    from_bytes(&bytes, target, cov)
}

/// `llvm-objdump-15 -d --mcpu=MCPU` of the code object at `path` (the tests that assert the
/// compiler really emitted the instructions they are there for).
/// Cached with the code object (`cached_tool_output`).
pub fn objdump(path: &std::path::Path, mcpu: &str) -> String {
    let mcpu = format!("--mcpu={mcpu}");
    let out = hsaemu_testkit::cached_tool_output("llvm-objdump-15", &["-d", &mcpu], path);
    String::from_utf8_lossy(&out).into_owned()
}
