//! A stable-Rust fuzz loop for hsaemu-codeobject (no nightly, no libFuzzer): mutates seed files
//! (real code objects and bundles) with byte flips, interesting values, chunk copies, inserts,
//! deletes and truncations — biased towards headers and tables — and runs every entry point.
//! A panic or an input slower than one second is saved under `crashers/` and reported.
//!
//! Usage: `cargo run --release --no-default-features --bin mutate -- SECONDS SEED_FILE...`

use std::time::{Duration, Instant};

use hsaemu_codeobject_fuzz::mutation::{mutate, Rng};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seconds: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(60);
    let seeds: Vec<Vec<u8>> = args
        .iter()
        .skip(1)
        .filter_map(|p| std::fs::read(p).ok())
        .collect();
    if seeds.is_empty() {
        eprintln!("usage: mutate SECONDS SEED_FILE...");
        std::process::exit(2);
    }
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ u64::from(std::process::id()));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (mut runs, mut failures) = (0u64, 0u64);
    let mut slowest = Duration::ZERO;
    while Instant::now() < deadline {
        let mut d = seeds[rng.below(seeds.len())].clone();
        mutate(&mut rng, &mut d);
        let t = Instant::now();
        let ok = std::panic::catch_unwind(|| hsaemu_codeobject_fuzz::exercise(&d)).is_ok();
        let took = t.elapsed();
        slowest = slowest.max(took);
        runs += 1;
        if !ok || took > Duration::from_secs(1) {
            failures += 1;
            let _ = std::fs::create_dir_all("crashers");
            let name = format!(
                "crashers/{}-{runs}-{}",
                if ok { "slow" } else { "panic" },
                std::process::id()
            );
            let _ = std::fs::write(&name, &d);
            eprintln!(
                "{} input saved to {name} ({took:?})",
                if ok { "slow" } else { "panicking" }
            );
        }
    }
    println!("{runs} inputs in {seconds} s, {failures} failures, slowest {slowest:?}");
    if failures > 0 {
        std::process::exit(1);
    }
}
