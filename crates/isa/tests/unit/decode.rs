//! decode.rs's fast paths against its general path, through the decoder's hidden `internals`.

use hsaemu_isa::internals::{
    decode_general, salu_fast, table, vop3_fast, vop3_fast_gfx10, vop_short_fast, word, Fam, BLANK,
};
use hsaemu_isa::{decode, DecodeErrorKind, Gen};

/// Every generation with tables, both GFX10 wave sizes included.
fn table_gens() -> Vec<Gen> {
    Gen::ALL.to_vec()
}

/// The VOP1/VOP2/VOPC fast path gives exactly what the general path gives, for every
/// opcode of every generation and a spread of `src0` values (VGPRs, SGPRs, special
/// registers, inline constants, literal, DPP, SDWA, reserved values).
#[test]
fn vop_short_fast_path_agrees_with_the_general_path() {
    let gens = table_gens();
    let src0s = [
        0,
        5,
        101,
        102,
        106,
        107,
        108,
        112,
        124,
        125,
        126,
        128,
        200,
        209,
        240,
        248,
        250,
        251,
        0xf9,
        0xfa,
        0xff,
        256,
        256 + 77,
        511,
    ];
    let mut fast_hits = 0;
    for gen in gens {
        for fam in [Fam::Vop1, Fam::Vop2, Fam::Vopc] {
            let Some(rows) = table(gen, fam) else {
                panic!("{gen:?} has no {fam:?} table");
            };
            for (op, row) in rows.iter().enumerate() {
                let op = op as u32;
                if row.is_none() || (fam == Fam::Vop2 && op >= 0x3e) {
                    continue;
                }
                for src0 in src0s {
                    let w0 = match fam {
                        Fam::Vop1 => (0x3f << 25) | (7 << 17) | (op << 9) | src0,
                        Fam::Vopc => (0x3e << 25) | (op << 17) | (9 << 9) | src0,
                        _ => (op << 25) | (7 << 17) | (9 << 9) | src0,
                    };
                    let mut bytes = w0.to_le_bytes().to_vec();
                    bytes.extend_from_slice(&0x1234_5678u32.to_le_bytes());
                    let mut fast = BLANK;
                    if !vop_short_fast(gen, &bytes, 0, w0, &mut fast) {
                        assert_eq!(
                            fast, BLANK,
                            "{gen:?} {w0:#010x}: fast path wrote and bailed"
                        );
                        continue;
                    }
                    fast_hits += 1;
                    let mut general = BLANK;
                    let r = decode_general(gen, &bytes, 0, &mut general);
                    assert_eq!(r, Ok(()), "{gen:?} {w0:#010x}");
                    assert_eq!(fast, general, "{gen:?} {w0:#010x}");
                }
            }
        }
    }
    assert!(fast_hits > 10_000, "only {fast_hits} fast-path decodes");
}

/// An offset near `usize::MAX` is a truncation error, not an arithmetic overflow.
#[test]
fn offsets_at_the_end_of_the_address_space_are_truncated() {
    for offset in [usize::MAX, usize::MAX - 3, usize::MAX - 4] {
        let e = decode(Gen::Gfx9, &[0; 8], offset).expect_err("nothing there");
        assert_eq!(e.kind, DecodeErrorKind::Truncated, "offset {offset:#x}");
    }
    // A two-word instruction whose second word would lie past usize::MAX.
    let vop3 = 0xd100_0000u32.to_le_bytes();
    let e = word(Gen::Gfx9, &vop3, usize::MAX - 3, 1).expect_err("no second word");
    assert_eq!(e.kind, DecodeErrorKind::Truncated);
}

/// Likewise for the plain-VOP3 fast path and GFX10's (modifier bits set and clear; GFX10:
/// carry-out, lane masks in both wave sizes, literals).
#[test]
fn vop3_fast_path_agrees_with_the_general_path() {
    let gens = table_gens();
    let srcs = [0u32, 106, 126, 128, 240, 255, 256, 300, 511];
    let (mut fast_hits, mut gfx10_mask_hits, mut gfx10_literal_hits) = (0, 0, 0);
    for gen in gens {
        let Some(rows) = table(gen, Fam::Vop3) else {
            panic!("{gen:?} has no VOP3 table");
        };
        for (op, row) in rows.iter().enumerate() {
            if row.is_none() || (!gen.is_rdna() && (op as u32 >> 7) & 7 == 7) {
                continue;
            }
            if gen.is_rdna() && op >= 0x400 {
                continue;
            }
            let vop3 = if gen.is_rdna() { 0x35 } else { 0x34 };
            for (i, &a) in srcs.iter().enumerate() {
                let b = srcs[(i + 3) % srcs.len()];
                let c = srcs[(i + 5) % srcs.len()];
                for mods in [0u32, 1] {
                    let w0 = (vop3 << 26) | ((op as u32) << 16) | (mods * 0xff00) | 7;
                    let w1 = a | (b << 9) | (c << 18) | (mods * 0xf800_0000);
                    let mut bytes = w0.to_le_bytes().to_vec();
                    bytes.extend_from_slice(&w1.to_le_bytes());
                    bytes.extend_from_slice(&0x1234_5678u32.to_le_bytes());
                    let mut fast = BLANK;
                    let done = if gen.is_rdna() {
                        vop3_fast_gfx10(gen, &bytes, 0, w0, &mut fast)
                    } else {
                        vop3_fast(gen, &bytes, 0, w0, &mut fast)
                    };
                    if !done {
                        assert_eq!(
                            fast, BLANK,
                            "{gen:?} {w0:#010x}: fast path wrote and bailed"
                        );
                        continue;
                    }
                    fast_hits += 1;
                    if *row == Some(true) {
                        gfx10_mask_hits += 1;
                    }
                    gfx10_literal_hits += usize::from(fast.size == 12);
                    let mut general = BLANK;
                    let r = decode_general(gen, &bytes, 0, &mut general);
                    assert_eq!(r, Ok(()), "{gen:?} {w0:#010x} {w1:#010x}");
                    assert_eq!(fast, general, "{gen:?} {w0:#010x} {w1:#010x}");
                }
            }
        }
    }
    assert!(fast_hits > 5_000, "only {fast_hits} fast-path decodes");
    assert!(
        gfx10_mask_hits > 1_000,
        "only {gfx10_mask_hits} with lane masks"
    );
    assert!(
        gfx10_literal_hits > 1_000,
        "only {gfx10_literal_hits} with a literal"
    );
}

/// Likewise for the SOP1/SOP2/SOPP fast path.
#[test]
fn salu_fast_path_agrees_with_the_general_path() {
    let gens = table_gens();
    let values = [
        0, 3, 101, 102, 106, 108, 112, 124, 125, 126, 127, 128, 200, 240, 250, 255,
    ];
    let mut fast_hits = 0;
    for gen in gens {
        for fam in [Fam::Sop1, Fam::Sop2, Fam::Sopp] {
            let Some(rows) = table(gen, fam) else {
                panic!("{gen:?} has no {fam:?} table");
            };
            for (op, row) in rows.iter().enumerate() {
                let op = op as u32;
                if row.is_none() || (fam == Fam::Sop2 && op >= 0x60) {
                    // SOP2 opcodes 0x60.. would be SOPK/SOP1/SOPC/SOPP words.
                    continue;
                }
                for (a, b) in values.iter().zip(values.iter().rev()) {
                    let w0 = match fam {
                        Fam::Sop1 => (0x17d << 23) | (a << 16) | (op << 8) | b,
                        Fam::Sopp => (0x17f << 23) | (op << 16) | (a << 8) | b,
                        _ => (0b10 << 30) | (op << 23) | ((a & 0x7f) << 16) | (b << 8) | a,
                    };
                    let mut bytes = w0.to_le_bytes().to_vec();
                    bytes.extend_from_slice(&0x1234_5678u32.to_le_bytes());
                    let mut fast = BLANK;
                    if !salu_fast(gen, w0, &mut fast) {
                        assert_eq!(
                            fast, BLANK,
                            "{gen:?} {w0:#010x}: fast path wrote and bailed"
                        );
                        continue;
                    }
                    fast_hits += 1;
                    let mut general = BLANK;
                    let r = decode_general(gen, &bytes, 0, &mut general);
                    assert_eq!(r, Ok(()), "{gen:?} {w0:#010x}");
                    assert_eq!(fast, general, "{gen:?} {w0:#010x}");
                }
            }
        }
    }
    assert!(fast_hits > 1_000, "only {fast_hits} fast-path decodes");
}
