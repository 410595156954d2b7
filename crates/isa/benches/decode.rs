//! Decode speed: every instruction of the gfx90a, gfx803 and gfx1030 (wave32) code objects in
//! Debian's prebuilt rocRAND (`librocrand.so.1`), decoded with `decode_all`; reported in
//! instructions per second. Also measures decode + format (the disassembler).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hsaemu_codeobject::{bundle, CodeObject};
use hsaemu_isa::{decode_all, format, Gen};

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

fn bench(c: &mut Criterion) {
    for (processor, gen) in [
        ("gfx90a", Gen::Gfx90a),
        ("gfx803", Gen::Gfx8),
        ("gfx1030", Gen::Gfx10),
    ] {
        let texts = rocrand_text(processor);
        let count: usize = texts.iter().map(|t| decode_all(gen, t).len()).sum();
        let mut g = c.benchmark_group(format!("rocrand-{processor}"));
        g.throughput(Throughput::Elements(count as u64));
        g.bench_function("decode_all", |b| {
            b.iter(|| {
                let mut n = 0usize;
                for t in &texts {
                    n += decode_all(gen, t).len();
                }
                n
            })
        });
        g.bench_function("decode_loop", |b| {
            b.iter(|| {
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
            })
        });
        g.bench_function("decode_and_format", |b| {
            b.iter(|| {
                let mut len = 0usize;
                for t in &texts {
                    for (off, r) in decode_all(gen, t) {
                        if let Ok(i) = r {
                            len += format(&i, gen, off).len();
                        }
                    }
                }
                len
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
