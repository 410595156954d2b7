//! A stable-Rust fuzz loop for hsaemu-codeobject (no nightly, no libFuzzer): mutates seed files
//! (real code objects and bundles) with byte flips, interesting values, chunk copies, inserts,
//! deletes and truncations — biased towards headers and tables — and runs every entry point.
//! A panic or an input slower than one second is saved under `crashers/` and reported.
//!
//! Usage: `cargo run --release --no-default-features --bin mutate -- SECONDS SEED_FILE...`

use std::time::{Duration, Instant};

/// xorshift64*: deterministic, seedable, good enough for mutation choices.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const INTERESTING: &[u64] = &[
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0x100,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    u64::MAX,
    1 << 32,
    1 << 60,
];

fn position(rng: &mut Rng, len: usize) -> usize {
    match rng.below(4) {
        0 => rng.below(len.min(512)),
        1 => rng.below(len.min(8192)),
        2 => len.saturating_sub(1 + rng.below(len.min(4096))),
        _ => rng.below(len),
    }
}

fn mutate(rng: &mut Rng, d: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(8) {
        let len = d.len();
        if len == 0 {
            d.push(rng.next() as u8);
            continue;
        }
        let at = position(rng, len);
        match rng.below(7) {
            0 => d[at] ^= 1 << rng.below(8),
            1 => d[at] = rng.next() as u8,
            2 => {
                let v = INTERESTING[rng.below(INTERESTING.len())].to_le_bytes();
                let w = [1, 2, 4, 8][rng.below(4)];
                for (i, b) in v.iter().take(w).enumerate() {
                    if let Some(x) = d.get_mut(at + i) {
                        *x = *b;
                    }
                }
            }
            3 => {
                let from = rng.below(len);
                let n = rng.below(64).min(len - from).min(len - at);
                let chunk = d[from..from + n].to_vec();
                d[at..at + n].copy_from_slice(&chunk);
            }
            4 => {
                let n = rng.below(32);
                d.splice(at..at, std::iter::repeat_n(rng.next() as u8, n));
            }
            5 => {
                let n = rng.below(32).min(len - at);
                d.drain(at..at + n);
            }
            _ => d.truncate(at),
        }
    }
}

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
