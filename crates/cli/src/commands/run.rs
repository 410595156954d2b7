//! Implementation of the `hsaemu run` command: runs one kernel of a code object (a plain code
//! object, an offload bundle or a HIP host binary) on the emulated GPU with arguments given on
//! the command line, and prints the buffers afterwards.
//!
//! Argument specs (`--arg`, in kernel-argument order):
//! `i32:V`, `u32:V`, `i64:V`, `u64:V`, `f32:V`, `f64:V` — a scalar;
//! `buf:N` — N zeroed bytes (printed as u32 words afterwards);
//! `buf:TYPE:V1,V2,…` — a buffer initialised with values of TYPE (printed as TYPE);
//! `local:N` — a dynamic LDS (`__local` pointer) argument of N bytes.

use crate::host_buffer::HostBuffer;
use hsaemu_emu::{kernarg, Dispatch, Gpu, GpuConfig, MemoryMap};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Code object, offload bundle or HIP executable.
    #[arg(required_unless_present = "replay")]
    pub file: Option<std::path::PathBuf>,
    /// Kernel name (exact, or a unique substring such as an unmangled HIP name).
    #[arg(long, required_unless_present = "replay", default_value = "")]
    pub kernel: String,
    /// Rerun a dispatch recorded by `hsaemu exec --capture` (its `dispatch-*` directory, or a
    /// capture directory holding one record) alone and deterministically, and say whether it
    /// reproduces the recorded fault or results (exit status 0 when it does).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["file", "args"])]
    pub replay: Option<std::path::PathBuf>,
    /// Grid size in work-items: X[,Y[,Z]].
    #[arg(long, default_value = "1")]
    pub grid: String,
    /// Work-group size: X[,Y[,Z]].
    #[arg(long, default_value = "1")]
    pub block: String,
    /// Kernel arguments, in order (see the command's documentation).
    #[arg(long = "arg")]
    pub args: Vec<String>,
    /// Processor to emulate (default: the code object's).
    #[arg(long)]
    pub processor: Option<String>,
    /// Code object version for the hidden arguments (default: from the ELF header).
    #[arg(long)]
    pub cov: Option<u32>,
    /// Host threads (0 = HSAEMU_THREADS or all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ty {
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl Ty {
    fn parse(s: &str) -> Result<Ty, String> {
        Ok(match s {
            "i32" => Ty::I32,
            "u32" => Ty::U32,
            "i64" => Ty::I64,
            "u64" => Ty::U64,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            _ => return Err(format!("unknown type `{s}` (i32, u32, i64, u64, f32, f64)")),
        })
    }
    fn size(self) -> usize {
        match self {
            Ty::I32 | Ty::U32 | Ty::F32 => 4,
            _ => 8,
        }
    }
    fn encode(self, v: &str) -> Result<Vec<u8>, String> {
        let bad = |e: &dyn std::fmt::Display| format!("bad {} value `{v}`: {e}", self.name());
        Ok(match self {
            Ty::I32 => v
                .parse::<i32>()
                .map_err(|e| bad(&e))?
                .to_le_bytes()
                .to_vec(),
            Ty::U32 => v
                .parse::<u32>()
                .map_err(|e| bad(&e))?
                .to_le_bytes()
                .to_vec(),
            Ty::I64 => v
                .parse::<i64>()
                .map_err(|e| bad(&e))?
                .to_le_bytes()
                .to_vec(),
            Ty::U64 => v
                .parse::<u64>()
                .map_err(|e| bad(&e))?
                .to_le_bytes()
                .to_vec(),
            Ty::F32 => v
                .parse::<f32>()
                .map_err(|e| bad(&e))?
                .to_le_bytes()
                .to_vec(),
            Ty::F64 => v
                .parse::<f64>()
                .map_err(|e| bad(&e))?
                .to_le_bytes()
                .to_vec(),
        })
    }
    fn decode(self, b: &[u8]) -> String {
        let mut a8 = [0u8; 8];
        a8[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
        let a4 = [a8[0], a8[1], a8[2], a8[3]];
        match self {
            Ty::I32 => i32::from_le_bytes(a4).to_string(),
            Ty::U32 => u32::from_le_bytes(a4).to_string(),
            Ty::I64 => i64::from_le_bytes(a8).to_string(),
            Ty::U64 => u64::from_le_bytes(a8).to_string(),
            Ty::F32 => f32::from_le_bytes(a4).to_string(),
            Ty::F64 => f64::from_le_bytes(a8).to_string(),
        }
    }
    fn name(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::I64 => "i64",
            Ty::U64 => "u64",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
        }
    }
}

fn dims(s: &str, what: &str) -> Result<[u32; 3], String> {
    let mut out = [1u32; 3];
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("--{what} takes X[,Y[,Z]], got `{s}`"));
    }
    for (i, p) in parts.iter().enumerate() {
        out[i] = p
            .trim()
            .parse()
            .map_err(|e| format!("--{what}: bad size `{p}`: {e}"))?;
    }
    Ok(out)
}

/// The LLVM processor of an AMDGPU ELF from `e_flags` (EF_AMDGPU_MACH, codeobject's processor
/// table), if the emulator runs it.
fn processor_of(elf: &[u8]) -> Option<&'static str> {
    let flags = u32::from_le_bytes(elf.get(48..52)?.try_into().ok()?);
    let p = hsaemu_codeobject::processor_by_mach(flags & 0xff)?;
    hsaemu_emu::Gen::from_processor(p.name)
        .filter(|&g| hsaemu_emu::emulated(g))
        .map(|_| p.name)
}

pub fn run(args: Args) -> Result<ExitCode, String> {
    let Some(path) = &args.file else {
        return replay(args.replay.as_deref().ok_or("no code object given")?);
    };
    let file = path.display().to_string();
    let data = std::fs::read(path).map_err(|e| format!("{file}: {e}"))?;
    let found =
        hsaemu_codeobject::bundle::find_code_objects(&data).map_err(|e| format!("{file}: {e}"))?;
    let chosen = found
        .iter()
        .find(|c| match (&args.processor, processor_of(&c.data)) {
            (Some(p), Some(q)) => p == q,
            (None, Some(_)) => true,
            _ => false,
        })
        .ok_or_else(|| format!("{file}: no code object for a processor the emulator supports"))?;
    let processor = match &args.processor {
        Some(p) => p.clone(),
        None => processor_of(&chosen.data).unwrap_or("gfx90a").to_string(),
    };
    let cov = args.cov.unwrap_or(match chosen.data.get(8) {
        Some(3) => 5,
        Some(2) => 4,
        _ => 3,
    });
    let mem = MemoryMap::new();
    let gpu = Gpu::new(
        GpuConfig {
            processor: processor.clone(),
            threads: args.threads,
            ..GpuConfig::default()
        },
        mem.clone(),
    )
    .map_err(|e| e.to_string())?;
    let code = gpu
        .load_code_object(&chosen.data)
        .map_err(|e| format!("{file}: {e}"))?;
    let matches: Vec<_> = code
        .kernels
        .iter()
        .filter(|k| k.name == args.kernel || k.name.contains(&args.kernel))
        .collect();
    let kernel = match matches.as_slice() {
        [k] => *k,
        [] => {
            let names: Vec<&str> = code.kernels.iter().map(|k| k.name.as_str()).collect();
            return Err(format!(
                "{file}: no kernel `{}` (kernels: {})",
                args.kernel,
                names.join(", ")
            ));
        }
        many => match many.iter().find(|k| k.name == args.kernel) {
            Some(k) => *k,
            None => return Err(format!("{file}: `{}` matches several kernels", args.kernel)),
        },
    };
    let grid = dims(&args.grid, "grid")?;
    let block = dims(&args.block, "block")?;
    let block16 = block.map(|b| b.min(u32::from(u16::MAX)) as u16);

    let mut explicit: Vec<u8> = Vec::new();
    let mut buffers: Vec<(usize, Ty, HostBuffer)> = Vec::new();
    let mut dynamic_lds = 0u32;
    let align = |v: &mut Vec<u8>, a: usize| v.resize(v.len().div_ceil(a) * a, 0);
    for (n, spec) in args.args.iter().enumerate() {
        let (kind, rest) = spec
            .split_once(':')
            .ok_or_else(|| format!("--arg `{spec}`: expected KIND:VALUE"))?;
        match kind {
            "buf" => {
                let (ty, bytes) = match rest.split_once(':') {
                    Some((t, vals)) => {
                        let ty = Ty::parse(t)?;
                        let mut b = Vec::new();
                        for v in vals.split(',').filter(|v| !v.is_empty()) {
                            b.extend(ty.encode(v.trim())?);
                        }
                        (ty, b)
                    }
                    None => {
                        let len: usize = rest
                            .parse()
                            .map_err(|e| format!("--arg `{spec}`: bad size: {e}"))?;
                        (Ty::U32, vec![0u8; len])
                    }
                };
                let buf = HostBuffer::new(&mem, &bytes)?;
                align(&mut explicit, 8);
                explicit.extend_from_slice(&buf.addr().to_le_bytes());
                buffers.push((n, ty, buf));
            }
            "local" => {
                let len: u32 = rest
                    .parse()
                    .map_err(|e| format!("--arg `{spec}`: bad size: {e}"))?;
                align(&mut explicit, 4);
                explicit
                    .extend_from_slice(&(kernel.group_segment_size + dynamic_lds).to_le_bytes());
                dynamic_lds += len.div_ceil(16) * 16;
            }
            t => {
                let ty = Ty::parse(t).map_err(|e| format!("--arg `{spec}`: {e}"))?;
                align(&mut explicit, ty.size());
                explicit.extend(ty.encode(rest)?);
            }
        }
    }
    let mut ka = kernarg::build(&explicit, cov, grid, block16);
    ka.resize(ka.len().max(kernel.kernarg_segment_size as usize), 0);
    let kbuf = HostBuffer::new(&mem, &ka)?;
    let stats = gpu
        .dispatch(&Dispatch {
            kernel_object: kernel.kernel_object,
            kernarg_address: kbuf.addr(),
            grid_size: grid,
            workgroup_size: block16,
            group_segment_size: kernel.group_segment_size + dynamic_lds,
            private_segment_size: kernel.private_segment_size,
            ..Dispatch::default()
        })
        .map_err(|f| f.to_string())?;
    println!(
        "{} on {processor}: {} work-groups, {} waves, {} wave-instructions in {:.3} ms",
        kernel.name,
        stats.workgroups,
        stats.waves,
        stats.wave_instructions,
        stats.elapsed.as_secs_f64() * 1e3
    );
    for (n, ty, buf) in &buffers {
        let bytes = buf.bytes();
        let vals: Vec<String> = bytes.chunks(ty.size()).map(|c| ty.decode(c)).collect();
        println!(
            "arg {n} ({}[{}]): {}",
            ty.name(),
            vals.len(),
            vals.join(" ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `--replay DIR`: reruns a captured dispatch and reports the outcome against the record.
fn replay(dir: &std::path::Path) -> Result<ExitCode, String> {
    let r = hsaemu_emu::replay(dir)?;
    println!("replay of {}: kernel {}", r.dir.display(), r.kernel);
    match (&r.fault, &r.recorded_fault) {
        (Some(f), Some(_)) if r.matches => println!("reproduced the recorded fault: {f}"),
        (Some(f), Some(want)) => println!("faulted differently: {f}\nrecorded: {want}"),
        (Some(f), None) => println!("faulted, but the capture completed: {f}"),
        (None, Some(want)) => println!("completed, but the capture faulted: {want}"),
        (None, None) if r.matches => println!(
            "completed; results match the recording ({} changed ranges compared{})",
            r.compared,
            if r.host_changed > 0 {
                format!(
                    "; {} more changed during the capture by the host, not by the kernel",
                    r.host_changed
                )
            } else {
                String::new()
            }
        ),
        (None, None) => {
            let ranges: Vec<String> = r.differing.iter().map(|b| format!("{b:#x}")).collect();
            println!(
                "completed; results DIFFER from the recording in {} of {} ranges: {}",
                ranges.len(),
                r.compared,
                ranges.join(", ")
            )
        }
    }
    Ok(if r.matches {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
