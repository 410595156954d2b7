//! The semantics census over isa's tables (see `hsaemu_emu::census`).
use hsaemu_emu::{census, is_vector_memory, RowStatus};
use hsaemu_isa::Gen;

#[test]
fn census_dump() {
    for gen in [Gen::Gfx8, Gen::Gfx900, Gen::Gfx9, Gen::Gfx90a, Gen::Gfx940, Gen::Gfx10] {
        let rows = census(gen);
        for r in &rows {
            if r.status == RowStatus::Missing || matches!(r.status, RowStatus::Cdna3) {
                let mem = r.encodings.iter().any(|e| is_vector_memory(*e));
                eprintln!("{gen:?} {:?} {} {:?} mem={mem}", r.status, r.mnemonic, r.encodings);
            }
        }
    }
}
