//! A stable-Rust fuzz loop for the emulated GPU: mutates seed code objects, loads each mutant
//! with `Gpu::load_code_object` and dispatches every kernel it has (first two) over a
//! registered buffer, with the watchdog set to one second so a mutant that loops forever is
//! stopped and reported instead of hanging the loop. Load errors, faults, rejected launches
//! and timeouts are expected outcomes; a panic is a bug (saved under `crashers/`), and so is a
//! crash of the process (the input being dispatched is always in `crashers/current`).
//!
//! Usage: `cargo run --release --no-default-features --bin dispatch -- SECONDS SEED_FILE...`
//! (`FUZZ_TARGET=gfx906` for seeds built for another processor; default gfx90a). With
//! `HSAEMU_JIT=verify` every block the mutants run is compiled at once and each compiled run
//! checked against the interpreter: a difference is a bug of the compiling tier, counted and
//! saved under `crashers/` like a panic. `FUZZ_THREADS=N` runs each dispatch's work-groups on
//! N host threads (default 1); not with `verify`, whose check re-runs a block's loads after
//! the compiled run, when another thread's work-groups may have stored there.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hsaemu_codeobject_fuzz::mutation::{mutate, Rng};
use hsaemu_emu::{Access, Control, Dispatch, FaultKind, Gpu, GpuConfig, MemoryMap};

/// Words of the buffer every kernel argument points into (256 KiB).
const DATA_WORDS: usize = 1 << 15;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seconds: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(60);
    let seeds: Vec<Vec<u8>> = args
        .iter()
        .skip(1)
        .filter_map(|p| std::fs::read(p).ok())
        .collect();
    if seeds.is_empty() {
        eprintln!("usage: dispatch SECONDS SEED_FILE...");
        std::process::exit(2);
    }
    std::panic::set_hook(Box::new(|_| {}));
    let processor = std::env::var("FUZZ_TARGET").unwrap_or_else(|_| "gfx90a".into());
    let threads = std::env::var("FUZZ_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1);
    let mem = MemoryMap::new();
    let gpu = Gpu::new(
        GpuConfig {
            processor,
            threads,
            compute_units: 4,
            ..GpuConfig::default()
        },
        mem.clone(),
    )
    .expect("GPU");
    // The memory every pointer argument reaches, and the kernarg segment (pointers into the
    // data, then small integers).
    let data = vec![0u64; DATA_WORDS].into_boxed_slice();
    let data_addr = data.as_ptr() as u64;
    mem.register(data_addr, (DATA_WORDS * 8) as u64, Access::ReadWrite)
        .expect("register data");
    let mut kernarg = vec![0u64; 512].into_boxed_slice();
    for (i, k) in kernarg.iter_mut().enumerate() {
        *k = if i < 8 {
            data_addr + (i as u64) * 4096
        } else {
            (i % 7) as u64 * 64
        };
    }
    let kernarg_addr = kernarg.as_ptr() as u64;
    mem.register(kernarg_addr, 4096, Access::ReadWrite)
        .expect("register kernarg");
    let _ = std::fs::create_dir_all("crashers");

    let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ u64::from(std::process::id()));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut outcomes: BTreeMap<&'static str, u64> = BTreeMap::new();
    let (mut inputs, mut panics, mut mismatches) = (0u64, 0u64, 0u64);
    // The instructions met without semantics, by mnemonic (what a generation still lacks).
    let mut unimplemented: BTreeMap<String, u64> = BTreeMap::new();
    while Instant::now() < deadline {
        let mut d = seeds[rng.below(seeds.len())].clone();
        // Code bytes matter most here: fewer mutations than the parser loop, so that many
        // mutants still load.
        if rng.below(4) != 0 {
            mutate(&mut rng, &mut d);
        }
        inputs += 1;
        let _ = std::fs::write("crashers/current", &d);
        let mut mismatch = None;
        let mut missing = Vec::new();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut seen = Vec::new();
            let Ok(code) = gpu.load_code_object(&d) else {
                return vec!["load error"];
            };
            for k in code.kernels.iter().take(2) {
                // One, two or four waves a work-group (of 64 lanes, or of 32), one to eight
                // work-groups.
                let lanes = 32 << rng.below(2);
                let wg = [lanes << rng.below(3), 1, 1];
                let grid = [u32::from(wg[0]) * (1 + rng.below(8) as u32), 1, 1];
                let dispatch = Dispatch {
                    kernel_object: k.kernel_object,
                    kernarg_address: kernarg_addr,
                    grid_size: grid,
                    workgroup_size: wg,
                    ..Dispatch::default()
                };
                let r = gpu.dispatch_with(&dispatch, Arc::new(Control::with_timeout(Some(1))));
                seen.push(match r {
                    Ok(_) => "completed",
                    Err(f) => match f.kind {
                        FaultKind::InvalidDispatch { .. } => "rejected",
                        FaultKind::Stopped { .. } => "watchdog",
                        FaultKind::MemoryViolation { .. } => "memory fault",
                        FaultKind::IllegalInstruction { .. } => "illegal instruction",
                        FaultKind::Unimplemented { mnemonic } => {
                            missing.push(mnemonic);
                            "unimplemented"
                        }
                        FaultKind::Trap { .. } => "trap",
                        // Under HSAEMU_JIT=verify: a compiled run that differs from the
                        // interpreter's, a bug of the compiling tier (saved below).
                        FaultKind::TierMismatch { detail } => {
                            mismatch = Some(format!("{}, grid {grid:?}: {detail}", k.name));
                            "tier mismatch"
                        }
                        _ => "other fault",
                    },
                });
            }
            seen
        }));
        for m in missing {
            *unimplemented.entry(m).or_default() += 1;
        }
        if let Some(detail) = mismatch {
            mismatches += 1;
            let name = format!("crashers/dispatch-mismatch-{inputs}-{}", std::process::id());
            let _ = std::fs::write(&name, &d);
            eprintln!("tier mismatch saved to {name}: {detail}");
        }
        match result {
            Ok(seen) => {
                for s in seen {
                    *outcomes.entry(s).or_default() += 1;
                }
            }
            Err(_) => {
                panics += 1;
                let name = format!("crashers/dispatch-panic-{inputs}-{}", std::process::id());
                let _ = std::fs::write(&name, &d);
                eprintln!("panicking input saved to {name}");
            }
        }
    }
    drop(data);
    let _ = std::fs::remove_file("crashers/current");
    println!(
        "{inputs} inputs in {seconds} s, {panics} panics, 0 crashes, {mismatches} tier mismatches; \
         outcomes: {outcomes:?}"
    );
    if !unimplemented.is_empty() {
        println!("unimplemented instructions met: {unimplemented:?}");
    }
    // Whether the mutants reached wave32 pair calls and streamed work-groups (under `verify`
    // both checked against the interpreter; streamed only where a kernel's region from the
    // entry holds no load).
    let jit = hsaemu_emu::jit::stats();
    println!(
        "pair calls: {}, streamed work-groups: {}",
        jit.pair_runs, jit.streamed_groups
    );
    if panics + mismatches > 0 {
        std::process::exit(1);
    }
}
