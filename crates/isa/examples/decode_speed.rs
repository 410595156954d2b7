//! A fixed-work decode driver for profiling (`perf stat`, `valgrind --tool=callgrind`): decodes
//! every instruction of the code objects of the given processors in Debian's librocrand
//! `ROUNDS` times and prints how many instructions that was, so cycles or instructions per
//! decoded instruction follow from the profiler's totals. Usage: `decode_speed [ROUNDS
//! [PROCESSOR…]]` (defaults: 20, gfx90a gfx803; gfx1030 decodes as wave32). The timed
//! benchmark (`benches/decode.rs`) is the throughput measurement; this is its noise-free twin
//! for a shared machine.

use hsaemu_codeobject::{bundle, CodeObject};
use hsaemu_isa::{decode_all, Gen};

fn main() -> Result<(), String> {
    let rounds: usize = match std::env::args().nth(1) {
        Some(a) => a.parse().map_err(|e| format!("rounds `{a}`: {e}"))?,
        None => 20,
    };
    let mut processors: Vec<String> = std::env::args().skip(2).collect();
    if processors.is_empty() {
        processors = vec!["gfx90a".into(), "gfx803".into()];
    }
    let path = hsaemu_testkit::rocrand_library();
    let data = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let found = bundle::find_code_objects(&data).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut texts: Vec<(Gen, Vec<u8>)> = Vec::new();
    for co in &found {
        let Ok(obj) = CodeObject::parse(&co.data) else {
            continue;
        };
        let processor = obj.target().processor();
        if !processors.iter().any(|p| p == processor) {
            continue;
        }
        let Some(gen) = Gen::from_processor(processor) else {
            return Err(format!("{processor}: no decoding tables"));
        };
        for s in obj.sections().iter().filter(|s| s.name == ".text") {
            let (o, n) = (s.offset as usize, s.size as usize);
            if let Some(b) = co.data.get(o..o + n) {
                texts.push((gen, b.to_vec()));
            }
        }
    }
    let mut decoded = 0usize;
    let mut ok = 0usize;
    for _ in 0..rounds {
        for (gen, t) in &texts {
            let all = decode_all(*gen, t);
            decoded += all.len();
            ok += all.iter().filter(|(_, r)| r.is_ok()).count();
        }
    }
    println!("{decoded} instructions decoded ({ok} ok) in {rounds} rounds");
    Ok(())
}
