//! The listing (listing.rs's tests).

use hsaemu_isa::{listing, Gen, TextSymbol};

/// Runs of 8 or more zero bytes print as `...` (whole words), shorter ones as `.long`;
/// a run stops at the next symbol.
#[test]
fn zero_runs_print_like_llvm_objdump() {
    let code_end = 0xbf9f_0000u32.to_le_bytes();
    let mut text = Vec::new();
    text.extend_from_slice(&code_end);
    text.extend_from_slice(&[0; 4]); // one zero word: `.long`
    text.extend_from_slice(&code_end);
    text.extend_from_slice(&[0; 12]); // three words, up to the symbol: `...`
    text.extend_from_slice(&code_end);
    let sym = |name: &str, addr| TextSymbol {
        name: name.into(),
        addr,
        size: 0,
    };
    let out = listing(
        Gen::Gfx10,
        &text,
        0x100,
        &[sym("a", 0x100), sym("b", 0x11c)],
        None,
    );
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with('\t')).collect();
    assert!(lines[1].starts_with("\t.long 0x00000000 "), "{out}");
    assert_eq!(lines[3], "\t\t...", "{out}");
    assert!(lines[4].starts_with("\ts_code_end "), "{out}");
    assert_eq!(lines.len(), 5, "{out}");
}

/// A section address at the top of the address space (a corrupt file) wraps instead of
/// overflowing.
#[test]
fn listing_at_the_top_of_the_address_space_does_not_panic() {
    // s_nop 0; s_endpgm
    let text = [0x00, 0x00, 0x80, 0xbf, 0x00, 0x00, 0x81, 0xbf];
    let out = listing(Gen::Gfx9, &text, u64::MAX - 3, &[], None);
    assert!(out.contains("s_nop 0") && out.contains("s_endpgm"), "{out}");
}
