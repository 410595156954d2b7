//! Decode speed: every instruction of the gfx90a, gfx803 and gfx1030 (wave32) code objects in
//! Debian's prebuilt rocRAND (`librocrand.so.1`), decoded with `decode_all`, with a loop over
//! `decode`, and decoded and formatted (the disassembler); reported in M instructions per second.
//!
//! A plain timing loop (`harness = false`), not a benchmark framework: criterion was the largest
//! dependency of the test build after Cranelift, for three numbers (docs/notes/ci-time.md,
//! "Round 8"). `cargo bench -p hsaemu-isa --bench decode [FILTER]` times each case for about a
//! second, in rounds of `ROUND` seconds, and prints the best round (the least disturbed by the
//! shared machine's other work) and the median. Run without `--bench` (as `cargo test
//! --all-targets` does), each case runs once, as a check that it works.
//! `examples/decode_speed.rs` is the fixed-work twin for profilers.

use std::hint::black_box;
use std::time::{Duration, Instant};

use hsaemu_codeobject::{bundle, CodeObject};
use hsaemu_isa::{decode_all, format, Gen};

/// Length of one timed round.
const ROUND: Duration = Duration::from_millis(100);
/// Rounds per case.
const ROUNDS: usize = 10;

/// The `.text` bytes of every code object for `processor` in librocrand.
fn rocrand_text(processor: &str) -> Vec<Vec<u8>> {
    let path = hsaemu_testkit::rocrand_library();
    let data = std::fs::read(&path).expect("read librocrand");
    let found = bundle::find_code_objects(&data).expect("librocrand has bundles");
    let mut out = Vec::new();
    for co in &found {
        let Ok(obj) = CodeObject::parse(&co.data) else {
            continue;
        };
        if obj.target().processor() != processor {
            continue;
        }
        for s in obj.sections().iter().filter(|s| s.name == ".text") {
            let (o, n) = (s.offset as usize, s.size as usize);
            if let Some(b) = co.data.get(o..o + n) {
                out.push(b.to_vec());
            }
        }
    }
    assert!(!out.is_empty(), "no {processor} code objects in librocrand");
    out
}

/// Times `f` (which handles `count` instructions per call) and prints the rate.
fn case(name: &str, count: usize, measure: bool, mut f: impl FnMut() -> usize) {
    if !measure {
        black_box(f());
        println!("{name}: ran once");
        return;
    }
    black_box(f()); // warm-up
    let mut rates: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            let mut calls = 0u64;
            while start.elapsed() < ROUND {
                black_box(f());
                calls += 1;
            }
            (calls as f64 * count as f64) / start.elapsed().as_secs_f64() / 1e6
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    println!(
        "{name}: best {:.1} M instructions/s, median {:.1} ({count} instructions a call)",
        rates[ROUNDS - 1],
        rates[ROUNDS / 2]
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let measure = args.iter().any(|a| a == "--bench");
    let filter = args.iter().find(|a| !a.starts_with("--"));
    for (processor, gen) in [
        ("gfx90a", Gen::Gfx90a),
        ("gfx803", Gen::Gfx8),
        ("gfx1030", Gen::Gfx10),
    ] {
        let texts = rocrand_text(processor);
        let count: usize = texts.iter().map(|t| decode_all(gen, t).len()).sum();
        let selected = |name: &str| filter.is_none_or(|f| name.contains(f.as_str()));
        let name = format!("rocrand-{processor}/decode_all");
        if selected(&name) {
            case(&name, count, measure, || {
                texts.iter().map(|t| decode_all(gen, t).len()).sum()
            });
        }
        let name = format!("rocrand-{processor}/decode_loop");
        if selected(&name) {
            case(&name, count, measure, || {
                let mut n = 0usize;
                for t in &texts {
                    let mut off = 0;
                    while off + 4 <= t.len() {
                        off += match hsaemu_isa::decode(gen, t, off) {
                            Ok(i) => usize::from(i.size),
                            Err(_) => 4,
                        };
                        n += 1;
                    }
                }
                n
            });
        }
        let name = format!("rocrand-{processor}/decode_and_format");
        if selected(&name) {
            case(&name, count, measure, || {
                let mut len = 0usize;
                for t in &texts {
                    for (off, r) in decode_all(gen, t) {
                        if let Ok(i) = r {
                            len += format(&i, gen, off).len();
                        }
                    }
                }
                len
            });
        }
    }
}
