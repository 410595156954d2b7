//! Hostile input never panics: arbitrary bytes, and words built to reach every GFX10 encoding
//! family with arbitrary fields, decoded and formatted for every generation (both GFX10 wave
//! sizes included). Decoded instructions stay inside the input and have a valid size.

use hsaemu_isa::{decode, decode_all, format, listing, Gen, TextSymbol};
use proptest::prelude::*;

const GENS: [Gen; Gen::ALL.len()] = Gen::ALL;

/// The fixed high bits of every GFX10 encoding (and the GFX9 ones), to steer random words
/// into the family decoders: (bits, how many high bits they fix).
const PREFIXES: [(u32, u32); 16] = [
    (0b0, 1),         // VOP2
    (0b0111111, 7),   // VOP1
    (0b0111110, 7),   // VOPC
    (0b10, 2),        // SOP2
    (0b1011, 4),      // SOPK
    (0b101111101, 9), // SOP1
    (0b101111110, 9), // SOPC
    (0b101111111, 9), // SOPP
    (0b111101, 6),    // GFX10 SMEM
    (0b110101, 6),    // GFX10 VOP3
    (0b110011000, 9), // GFX10 VOP3P
    (0b110110, 6),    // DS
    (0b110111, 6),    // FLAT/GLOBAL/SCRATCH
    (0b111000, 6),    // MUBUF
    (0b111010, 6),    // MTBUF
    (0b110100, 6),    // GFX9 VOP3/VOP3P
];

fn check(gen: Gen, bytes: &[u8]) {
    for (off, r) in decode_all(gen, bytes) {
        if let Ok(inst) = r {
            assert!(
                // 16 and 20: GFX10 MIMG with two or three NSA dwords.
                matches!(inst.size, 4 | 8 | 12 | 16 | 20),
                "{gen:?} size {}",
                inst.size
            );
            assert!(off as usize + usize::from(inst.size) <= bytes.len());
            let text = format(&inst, gen, off);
            assert!(!text.is_empty());
            let _ = inst.dst_dwords();
            let _ = inst.opcode.info();
        }
    }
    let sym = TextSymbol {
        name: "k".into(),
        addr: 0x1000,
        size: bytes.len() as u64,
    };
    let _ = listing(gen, bytes, 0x1000, std::slice::from_ref(&sym), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        for gen in GENS {
            check(gen, &bytes);
        }
    }

    #[test]
    fn steered_words_never_panic(
        words in proptest::collection::vec((0usize..PREFIXES.len(), any::<u32>()), 1..24),
        tail in 0usize..4,
    ) {
        let mut bytes = Vec::new();
        for (p, w) in words {
            let (bits, n) = PREFIXES[p];
            let word = (bits << (32 - n)) | (w & (u32::MAX >> n));
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        bytes.truncate(bytes.len() - tail);
        for gen in GENS {
            check(gen, &bytes);
            // Every offset, not just instruction starts (a branch into a literal).
            for off in 0..bytes.len() + 2 {
                let _ = decode(gen, &bytes, off);
            }
        }
    }
}
