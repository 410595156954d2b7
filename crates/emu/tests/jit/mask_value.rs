//! A lane mask that a compare just wrote, read back as a scalar value in the same run: as a
//! `v_cndmask` source beside its own use as the selector (the dispatch fuzzer's find, a
//! gfx1030 wave64 mutant: a run took the source for the select it forwards and read the
//! SGPR's old value; wave32 had the same), as a VALU operand and by a scalar instruction. Values from the definitions: `v_cmp_*_e64` writes bit l of the SGPR
//! (pair) for each lane in EXEC and 0 for the others; `v_cndmask_b32` gives src1 where the
//! selector's bit is set, else src0, in EXEC's lanes.

use super::{assemble, mask_reg, want_compiled_run};
use hsaemu_emu::{jit, run_words, Gen, WaveRegs};

/// How the program reads the mask as a value besides the scalar `s_mov_b32`: `v_cndmask`'s
/// src0 beside the selector and src1 from s32 (wave32: the one SGPR twice), from v13 (gfx10
/// wave64: the constant bus takes two SGPRs), or a `v_mov_b32` (gfx9: one).
#[derive(Clone, Copy, PartialEq)]
enum Read {
    CndmaskS32,
    CndmaskV13,
    Mov,
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize, read: Read) {
    let wave32 = lanes == 32;
    let what = format!("{mcpu}{attr}");
    let m = mask_reg(0, wave32);
    let first = match read {
        Read::CndmaskS32 => format!("v_cndmask_b32_e64 v10, s0, s32, {m}"),
        Read::CndmaskV13 => format!("v_cndmask_b32_e64 v10, s0, v13, {m}"),
        Read::Mov => "v_mov_b32_e32 v10, s0".into(),
    };
    let add = if read == Read::Mov {
        "v_add_u32_e32"
    } else {
        "v_add_nc_u32_e32"
    };
    // The mask's last half: s0 in wave32, s1 in wave64.
    let last = if wave32 { "s0" } else { "s1" };
    let text = format!(
        "v_cmp_eq_u32_e64 {m}, v1, v11
         {first}
         {add} v12, {last}, v12
         s_mov_b32 s3, s0
         s_endpgm
"
    );
    let words = assemble(mcpu, attr, &text);
    let full = if wave32 { 0xffff_ffff } else { u64::MAX };
    for exec in [u64::MAX, 0x0f0f_3c3c_a5a5_6996] {
        let exec = exec & full;
        let mut r = WaveRegs::new(gen);
        r.set_exec(exec);
        // Old values the compiled run must not read: the mask's SGPRs before the compare.
        (r.s[0], r.s[1], r.s[3]) = (0xffff_ffff, 0xffff_ffff, 0x3333_3333);
        r.s[32] = 0x5151_5151;
        for l in 0..64 {
            r.v[1][l] = l as u32 % 3;
            r.v[11][l] = 1;
            r.v[10][l] = 0x1010_0000 | l as u32;
            r.v[12][l] = 0x100 * l as u32;
            r.v[13][l] = 0x1313_0000 | l as u32;
        }
        let old = r.clone();
        let before = jit::stats();
        run_words(gen, &words, &mut r).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        want_compiled_run(&before, &what);
        // The compare's mask: lanes in EXEC whose v1 equals v11.
        let mask = (0..lanes)
            .filter(|&l| exec >> l & 1 != 0 && old.v[1][l] == old.v[11][l])
            .fold(0u64, |m, l| m | 1 << l);
        let (lo, hi) = (mask as u32, (mask >> 32) as u32);
        assert_eq!(r.s[0], lo, "{what}: the mask's low half");
        if !wave32 {
            assert_eq!(r.s[1], hi, "{what}: the mask's high half");
        }
        assert_eq!(r.s[3], lo, "{what}: s_mov_b32 of the mask's low half");
        let added = if wave32 { lo } else { hi };
        for l in 0..lanes {
            let (want10, want12) = if exec >> l & 1 != 0 {
                let set = mask >> l & 1 != 0;
                let v10 = match read {
                    Read::CndmaskS32 if set => old.s[32],
                    Read::CndmaskV13 if set => old.v[13][l],
                    _ => lo,
                };
                (v10, old.v[12][l].wrapping_add(added))
            } else {
                (old.v[10][l], old.v[12][l])
            };
            assert_eq!(r.v[10][l], want10, "{what} exec {exec:#x}: v10 lane {l}");
            assert_eq!(r.v[12][l], want12, "{what} exec {exec:#x}: v12 lane {l}");
        }
    }
}

pub(crate) fn masks_read_as_values_match_the_definitions() {
    check(Gen::Gfx90a, "gfx90a", "", 64, Read::Mov);
    check(
        Gen::Gfx10,
        "gfx1030",
        "+wavefrontsize32",
        32,
        Read::CndmaskS32,
    );
    check(
        Gen::Gfx10W64,
        "gfx1030",
        "+wavefrontsize64",
        64,
        Read::CndmaskV13,
    );
}
