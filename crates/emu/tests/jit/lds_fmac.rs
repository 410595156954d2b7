//! A matmul-like basic block: `ds_read2_b32`s (uniform per 4 lanes and contiguous
//! addresses, computed by the block itself) feeding a run of `v_fmac_f32`s into one row,
//! with waits and an `s_nop` between them (the chain goes on across them: its NaN test is
//! at its end), a row the run writes and then reads in the chain (the chain's recomputation
//! must not read it from the `Wave`), NaNs in some lanes from the LDS, a `ds_read2` into its
//! own address row and a load through the address it read. Expected registers from the
//! definitions (lane address + offset, `S0 * S1 + S2` fused, a NaN operand giving the
//! first NaN quieted), run here on the LDS words.

use super::fma_nan::fma;
use super::{assemble, want_compiled_run};
use hsaemu_emu::{jit, run_words_mem, Gen, WaveRegs};

const LDS: usize = 2048;

const PROGRAM: &str = "v_lshlrev_b32 v2, 2, v0
     v_and_b32 v3, -16, v2
     ds_read2_b32 v[10:11], v3 offset1:1
     ds_read2_b32 v[12:13], v2 offset0:64 offset1:128
     s_waitcnt lgkmcnt(0)
     v_fmac_f32 v20, v10, v12
     s_waitcnt lgkmcnt(0)
     v_fmac_f32 v20, v11, v13
     s_nop 0
     v_mul_f32 v14, v10, v13
     v_fmac_f32 v20, v14, v12
     s_waitcnt lgkmcnt(0)
     v_fmac_f32 v20, v11, v14
     ds_read2_b32 v[2:3], v2 offset0:192 offset1:193
     ds_read_b32 v15, v2 offset:4
     v_fmac_f32 v20, v15, v12
     s_endpgm
";

/// LDS dword `k`: ordinary floats; at 64 + l (v12's) a quiet or signalling NaN in a few
/// lanes (none in lanes 8–15, so some groups have none); at 192 + l an address (1024 + 4l).
fn word(k: usize) -> u32 {
    let ordinary = (0.5 + k as f32 * 0.25).to_bits();
    match k {
        64..128 => {
            let l = k - 64;
            match l {
                8..16 => ordinary,
                _ if l % 7 == 3 => 0x7fc0_0000 | l as u32,
                _ if l % 11 == 5 => 0xff80_0000 | l as u32,
                _ => ordinary,
            }
        }
        192..257 => 1024 + 4 * (k as u32 - 192),
        _ => ordinary,
    }
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize) {
    let words = assemble(mcpu, attr, PROGRAM);
    let mut r = WaveRegs::new(gen);
    r.set_exec(if lanes == 64 { u64::MAX } else { 0xffff_ffff });
    for l in 0..64 {
        r.v[0][l] = l as u32;
        r.v[20][l] = (1.0 + l as f32).to_bits();
        // A NaN the `Wave` holds in v14 until the run's `v_mul_f32` replaces it.
        r.v[14][l] = 0x7fc0_dead;
    }
    let old = r.clone();
    let mut lds: Vec<u8> = (0..LDS / 4).flat_map(|k| word(k).to_le_bytes()).collect();
    let mut global = vec![0u8; 64];
    let what = format!("{mcpu}{attr}");
    let before = jit::stats();
    run_words_mem(gen, &words, &mut r, &mut lds, &mut global)
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    want_compiled_run(&before, &what);
    let mut nans = 0;
    for l in 0..lanes {
        let mut want = old.v.clone();
        let v = &mut want;
        v[2][l] = 4 * l as u32;
        v[3][l] = 16 * (l as u32 >> 2);
        let a = v[3][l] as usize / 4;
        (v[10][l], v[11][l]) = (word(a), word(a + 1));
        (v[12][l], v[13][l]) = (word(64 + l), word(128 + l));
        let mut acc = fma(v[10][l], v[12][l], v[20][l]);
        acc = fma(v[11][l], v[13][l], acc);
        // Both factors ordinary: the product rounded once.
        v[14][l] = (f32::from_bits(v[10][l]) * f32::from_bits(v[13][l])).to_bits();
        acc = fma(v[14][l], v[12][l], acc);
        acc = fma(v[11][l], v[14][l], acc);
        (v[2][l], v[3][l]) = (word(192 + l), word(193 + l));
        v[15][l] = word((v[2][l] as usize + 4) / 4);
        acc = fma(v[15][l], v[12][l], acc);
        v[20][l] = acc;
        nans += usize::from(f32::from_bits(acc).is_nan());
        for reg in [2, 3, 10, 11, 12, 13, 14, 15, 20] {
            assert_eq!(r.v[reg][l], want[reg][l], "{what}: v{reg} lane {l}");
        }
    }
    assert!(nans > 0 && nans <= lanes - 8, "{what}: {nans} NaN lanes");
}

/// Part of the one test in `jit.rs`.
pub(super) fn lds_rows_feeding_fmac_chains_match_the_definitions() {
    check(Gen::Gfx90a, "gfx90a", "", 64);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64);
}
