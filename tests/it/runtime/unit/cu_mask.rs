//! crates/runtime/src/cu_mask.rs's unit tests.

use hsaemu_runtime::cu_mask::*;

#[test]
fn masks_are_trimmed_to_the_agent_and_read_back() {
    let m = CuMask::default();
    let mut out = [7u32; 2];
    m.get(&mut out, 4);
    assert_eq!(out, [0xf, 0]);
    assert!(m.enabled().is_empty());
    assert!(!m.set(&[0b1010_0110, 0xffff_ffff], 4));
    m.get(&mut out, 4);
    assert_eq!(out, [0b0110, 0]);
    assert_eq!(m.enabled(), vec![1, 2]);
    m.set(&[], 4);
    assert!(m.enabled().is_empty());
}

#[test]
fn hsa_cu_mask_grammar() {
    // rocrtst's CU_Masking writes shuffled ranges with ", " between them.
    let m = parse_env("0:3, 0", 1, 4);
    assert_eq!(m.get(&0), Some(&vec![0b1001]));
    let m = parse_env("0,2-3 : 0-15,32-33 ; 1:0x337f", 4, 64);
    assert_eq!(m.get(&0), Some(&vec![0xffff, 0b11]));
    assert_eq!(m.get(&2), Some(&vec![0xffff, 0b11]));
    assert_eq!(m.get(&1), Some(&vec![0x337f]));
    assert_eq!(m.len(), 4);
    // Ids beyond the limits are dropped, ranges clipped.
    assert_eq!(parse_env("0:2-100", 1, 4).get(&0), Some(&vec![0b11100]));
    assert_eq!(
        parse_env("0:0x1_00000000_00000001".replace('_', "").as_str(), 1, 4).get(&0),
        Some(&vec![1])
    );
    // Syntax errors stop parsing at that set; earlier sets stay.
    let m = parse_env("1:0-1; 0:1,1", 2, 4);
    assert_eq!(m.get(&1), Some(&vec![0b11]));
    assert!(!m.contains_key(&0));
    // A GPU repeated in a later set: the later set is the error.
    assert_eq!(parse_env("0:1;0:2", 2, 4).get(&0), Some(&vec![0b10]));
    for bad in [
        "0:3-1", "0", "0:", "0:0x0", "0:0xg", "x:1", "0:1:2", "0:--1",
    ] {
        let m = parse_env(bad, 2, 4);
        assert!(!m.contains_key(&0), "{bad:?} parsed as {m:?}");
    }
}

#[test]
fn the_global_mask_limits_queues() {
    let m = CuMask::default();
    m.init_global(&[0b1001], false, 4);
    let mut out = [0u32; 1];
    m.get(&mut out, 4);
    assert_eq!(out, [0b1001]);
    assert_eq!(m.enabled(), vec![0, 3]);
    // A set within the global mask is not reduced; one outside it is.
    assert!(!m.set(&[0b0001], 4));
    assert!(m.set(&[0b0011], 4));
    m.get(&mut out, 4);
    assert_eq!(out, [0b0001]);
    // Words beyond the global mask's are dropped and count as reduced.
    assert!(m.set(&[0b1000, 1], 4));
    assert_eq!(m.enabled(), vec![3]);
    // Reset: back to the global mask (reported as reduced, as ROCr does: every CU was asked).
    assert!(m.set(&[], 4));
    assert_eq!(m.enabled(), vec![0, 3]);
    // Skip-init: the queue starts on every CU; set is still limited.
    let m = CuMask::default();
    m.init_global(&[0b1001], true, 4);
    assert!(m.enabled().is_empty());
    assert!(m.set(&[0b0110], 4));
    m.get(&mut out, 4);
    assert_eq!(out, [0]);
}
