//! DS loads and stores in a compiled region (`src/jit/inline_lds.rs`: by shape under a full
//! EXEC, lane by lane over the set EXEC bits under a partial one): every address shape the
//! inline code tells apart (contiguous, uniform per 4 lanes, contiguous per 4 lanes but overlapping, anything
//! else), `b32`/`b64`/`b128`, `read2`/`write2` and `st64`, a load into its own address
//! register (also as a `read2`'s second destination), and an access ending exactly at the LDS size. Expected LDS and registers come
//! from the instructions' definitions (lane address + offset, little-endian dwords, stores
//! element by element, dword by dword, lanes in ascending order), run here on a model; the
//! tier's own check compares each compiled run with the interpreter, LDS bytes included.

use super::assemble;
use hsaemu_emu::{jit, run_words_mem, Gen, WaveRegs};

/// The LDS the program uses: the `ds_read_b128` at 7168 + 16·63 ends exactly here.
const LDS: usize = 8192;

fn program(gfx10: bool) -> String {
    let (add, sub) = if gfx10 {
        ("v_add_nc_u32", "v_sub_nc_u32")
    } else {
        ("v_add_u32", "v_sub_u32")
    };
    format!(
        "v_lshlrev_b32 v10, 2, v20
         v_lshlrev_b32 v11, 3, v20
         v_lshlrev_b32 v12, 4, v20
         v_and_b32 v13, -4, v20
         v_lshlrev_b32 v13, 2, v13
         {sub} v14, 63, v20
         v_lshlrev_b32 v14, 2, v14
         {add} v15, 0x800, v12
         {add} v16, 0x1000, v11
         v_and_b32 v17, 3, v20
         v_lshlrev_b32 v17, 3, v17
         v_lshrrev_b32 v18, 2, v20
         v_lshl_add_u32 v17, v18, 2, v17
         v_and_b32 v19, 15, v20
         v_lshlrev_b32 v19, 2, v19
         ds_write_b32 v10, v0
         ds_write_b64 v11, v[2:3] offset:512
         ds_write2_b32 v15, v4, v5 offset0:1 offset1:2
         ds_write_b32 v13, v6 offset:3072
         ds_write_b32 v14, v7 offset:3328
         ds_write2st64_b64 v16, v[8:9], v[0:1] offset1:1
         ds_write_b64 v17, v[4:5] offset:5120
         ds_write_b32 v19, v1 offset:6144
         ds_write_b64 v13, v[6:7] offset:6400
         ds_write_b128 v12, v[0:3] offset:7168
         ds_read_b32 v30, v10
         ds_read_b64 v[32:33], v11 offset:512
         ds_read2_b32 v[34:35], v15 offset0:1 offset1:2
         ds_read2_b32 v[36:37], v13 offset0:192 offset1:193
         ds_read_b32 v31, v14 offset:3328
         ds_read2st64_b64 v[38:41], v16 offset1:1
         ds_read_b64 v[42:43], v17 offset:5120
         ds_read_b32 v44, v19 offset:6144
         ds_read_b64 v[46:47], v13 offset:6400
         ds_read_b128 v[48:51], v12 offset:7168
         ds_read2_b32 v[52:53], v10 offset1:64
         ds_read_b64 v[10:11], v10 offset:8
         ds_read2_b32 v[18:19], v19 offset0:3 offset1:200
         ds_read2_b32 v[12:13], v13 offset0:5 offset1:9
         v_lshlrev_b32 v21, 2, v20
         ds_read_b32 v54, v21 offset:64
         v_lshrrev_b32 v21, 2, v20
         ds_read_b32 v55, v21 offset:64
         s_endpgm
"
    )
}

/// One DS instruction of the program as its definition reads: the address register, and
/// per element its byte offset, first data (or destination) register and dwords per lane.
/// A register's value in lane l.
type LaneFn = fn(u32) -> u32;

struct Ds {
    store: bool,
    addr: usize,
    elems: Vec<(u32, usize, u32)>,
    /// A vector instruction before it: (register, its value in lane l).
    before: Option<(usize, LaneFn)>,
}

fn ds(store: bool, addr: usize, elems: &[(u32, usize, u32)]) -> Ds {
    Ds {
        store,
        addr,
        elems: elems.to_vec(),
        before: None,
    }
}

/// The program's DS instructions, in order.
fn accesses() -> Vec<Ds> {
    vec![
        ds(true, 10, &[(0, 0, 1)]),
        ds(true, 11, &[(512, 2, 2)]),
        ds(true, 15, &[(4, 4, 1), (8, 5, 1)]),
        ds(true, 13, &[(3072, 6, 1)]),
        ds(true, 14, &[(3328, 7, 1)]),
        ds(true, 16, &[(0, 8, 2), (512, 0, 2)]),
        ds(true, 17, &[(5120, 4, 2)]),
        ds(true, 19, &[(6144, 1, 1)]),
        ds(true, 13, &[(6400, 6, 2)]),
        ds(true, 12, &[(7168, 0, 4)]),
        ds(false, 10, &[(0, 30, 1)]),
        ds(false, 11, &[(512, 32, 2)]),
        ds(false, 15, &[(4, 34, 1), (8, 35, 1)]),
        ds(false, 13, &[(768, 36, 1), (772, 37, 1)]),
        ds(false, 14, &[(3328, 31, 1)]),
        ds(false, 16, &[(0, 38, 2), (512, 40, 2)]),
        ds(false, 17, &[(5120, 42, 2)]),
        ds(false, 19, &[(6144, 44, 1)]),
        ds(false, 13, &[(6400, 46, 2)]),
        ds(false, 12, &[(7168, 48, 4)]),
        ds(false, 10, &[(0, 52, 1), (256, 53, 1)]),
        ds(false, 10, &[(8, 10, 2)]),
        // The address register as a `read2`'s second destination, contiguous and uniform
        // (the inline code goes group by group: each group's address before its rows).
        ds(false, 19, &[(12, 18, 1), (800, 19, 1)]),
        ds(false, 13, &[(20, 12, 1), (36, 13, 1)]),
        // An address row whose shape changes (contiguous, then uniform per 4 lanes) between
        // two accesses: what the first found of it must not serve the second.
        Ds {
            before: Some((21, |l| 4 * l)),
            ..ds(false, 21, &[(64, 54, 1)])
        },
        Ds {
            before: Some((21, |l| l >> 2)),
            ..ds(false, 21, &[(64, 55, 1)])
        },
    ]
}

/// The program's effect by the definitions: (registers, LDS) after it, for `lanes` lanes
/// under `exec`.
fn model(r: &WaveRegs, lanes: usize, exec: u64) -> (Vec<[u32; 64]>, Vec<u8>) {
    let mut v = r.v.clone();
    let mut lds = vec![0u8; LDS];
    let active = |l: usize| l < lanes && exec >> l & 1 != 0;
    // The address arithmetic (under EXEC, like every vector instruction).
    for l in (0..lanes).filter(|&l| active(l)) {
        let l32 = l as u32;
        v[10][l] = 4 * l32;
        v[11][l] = 8 * l32;
        v[12][l] = 16 * l32;
        v[13][l] = 4 * (l32 & !3);
        v[14][l] = 4 * (63 - l32);
        v[15][l] = 0x800 + 16 * l32;
        v[16][l] = 0x1000 + 8 * l32;
        v[17][l] = 8 * (l32 & 3) + 4 * (l32 >> 2);
        v[18][l] = l32 >> 2;
        v[19][l] = 4 * (l32 & 15);
    }
    for a in accesses() {
        if let Some((reg, f)) = a.before {
            for l in (0..lanes).filter(|&l| active(l)) {
                v[reg][l] = f(l as u32);
            }
        }
        let addr = v[a.addr];
        let mut out = Vec::new();
        for &(off, reg, dwords) in &a.elems {
            for k in 0..dwords {
                for l in (0..lanes).filter(|&l| active(l)) {
                    let at = (addr[l] + off + 4 * k) as usize;
                    let cell = &mut lds[at..at + 4];
                    if a.store {
                        cell.copy_from_slice(&v[reg + k as usize][l].to_le_bytes());
                    } else {
                        let x = u32::from_le_bytes([cell[0], cell[1], cell[2], cell[3]]);
                        out.push((reg + k as usize, l, x));
                    }
                }
            }
        }
        for (reg, l, x) in out {
            v[reg][l] = x;
        }
    }
    (v, lds)
}

fn check(gen: Gen, mcpu: &str, attr: &str, lanes: usize, exec: u64) {
    let words = assemble(mcpu, attr, &program(!attr.is_empty()));
    let mut r = WaveRegs::new(gen);
    r.set_exec(exec);
    for l in 0..64 {
        r.v[20][l] = l as u32;
        // Address registers out of the LDS where the program leaves them (inactive lanes):
        // only the active lanes' addresses may count for the range.
        for k in (10..20).chain([21]) {
            r.v[k][l] = 0x4000_0000 | (k as u32) << 8 | l as u32;
        }
        for k in 0..10 {
            r.v[k][l] = 0x9e37_79b9u32.rotate_left(l as u32) ^ (k as u32 * 0x0101_0101);
        }
        for k in 30..56 {
            r.v[k][l] = 0xdead_0000 | k as u32;
        }
    }
    let (want, want_lds) = model(&r, lanes, exec);
    let mut lds = vec![0u8; LDS];
    let mut global = vec![0u8; 64];
    let before = jit::stats();
    let ctx = format!("{mcpu}{attr} exec {exec:#x}");
    run_words_mem(gen, &words, &mut r, &mut lds, &mut global)
        .unwrap_or_else(|e| panic!("{ctx}: {e:?}"));
    if jit::checks_single_runs() {
        let after = jit::stats();
        assert!(
            after.instructions >= before.instructions + 43,
            "{ctx}: the block with DS instructions was not compiled whole ({before:?} → \
             {after:?})"
        );
    }
    // Under a partial EXEC every access is inline (`inline_ds_partial`: any shape), none a
    // call of the interpreter's fast path, nor an exit before it. Under a full EXEC so are
    // the shapes of one or two dwords a lane that are neither contiguous nor uniform per
    // group (`v14`'s reversed lanes, `v17`'s overlapping `b64` store: lane by lane); only
    // the two `b128` accesses through `v12` call it.
    let full = exec == u64::MAX >> (64 - lanes);
    if jit::checks_single_runs() {
        let after = jit::stats();
        let calls = if full { 2 } else { 0 };
        assert_eq!(
            (after.calls, after.runs),
            (before.calls + calls, before.runs + 1),
            "{ctx}: a DS access left the compiled code ({before:?} → {after:?})"
        );
    }
    for (k, (a, b)) in lds.iter().zip(&want_lds).enumerate() {
        assert_eq!(a, b, "{ctx}: LDS byte {k:#x}");
    }
    for reg in (10..20).chain(30..56) {
        let (got, want) = (&r.v[reg][..lanes], &want[reg][..lanes]);
        for (l, (a, b)) in got.iter().zip(want).enumerate() {
            assert_eq!(a, b, "{ctx}: v{reg} lane {l}");
        }
    }
}

/// Part of the one test in `jit.rs`.
pub(super) fn inline_ds_accesses_match_the_definitions() {
    let some = !(1u64 << 5 | 1 << 22 | 1 << 37);
    check(Gen::Gfx90a, "gfx90a", "", 64, u64::MAX);
    check(Gen::Gfx90a, "gfx90a", "", 64, some);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32, 0xffff_ffff);
    check(
        Gen::Gfx10,
        "gfx1030",
        "+wavefrontsize32",
        32,
        some & 0xffff_ffff,
    );
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64, u64::MAX);
    // A few lanes, as in a reduction's last tree steps; lanes 0 and 4 overlap in the
    // `ds_write_b64` at `v17` (lane 0's second dword, lane 4's first).
    check(Gen::Gfx90a, "gfx90a", "", 64, 0b1_1011);
    check(Gen::Gfx10, "gfx1030", "+wavefrontsize32", 32, 0b1_1011);
    check(Gen::Gfx10W64, "gfx1030", "+wavefrontsize64", 64, some);
}
