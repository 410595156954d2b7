//! Per-instruction tests of the CDNA3/CDNA4 memory instructions (a module of `tests/inst.rs`):
//! loads to LDS (`global_load_lds_*`, `scratch_load_lds_*`, MUBUF `lds`) and the packed 16-bit
//! float atomics (`ds_pk_add_f16`/`_bf16`, `*_atomic_pk_add_bf16`), on gfx940 (llvm-mc-15),
//! gfx942 and gfx950 (llvm-mc-22). Expected bytes and registers come from the ISA's
//! definitions written here: LDS_ADDR = M0 + inst_offset + TID·4 (TID·16 for 3 or 4 dwords)
//! (CDNA3/CDNA4 ISA §9.1.9), narrow loads extended to a dword as into a VGPR; a packed add is
//! two IEEE additions, each rounded once to the nearest even 16-bit value.

use super::mem::{active, aligned, mix, rd32, regs, words, wr};
use super::{Gen, Target};
use half::{bf16, f16};
use hsaemu_emu::{run_words_mem, run_words_scratch};

const CDNA: [Target; 3] = [
    Target {
        mcpu: "gfx940",
        wave64: true,
        gen: Gen::Gfx940,
    },
    Target {
        mcpu: "gfx942",
        wave64: true,
        gen: Gen::Gfx942,
    },
    Target {
        mcpu: "gfx950",
        wave64: true,
        gen: Gen::Gfx950,
    },
];

/// Loads to LDS: suffix, bytes, signed, dwords.
const LDS_LOADS: [(&str, usize, bool, usize); 7] = [
    ("ubyte", 1, false, 1),
    ("sbyte", 1, true, 1),
    ("ushort", 2, false, 1),
    ("sshort", 2, true, 1),
    ("dword", 4, false, 1),
    ("dwordx3", 4, false, 3),
    ("dwordx4", 4, false, 4),
];

/// The dword an element of `bytes` bytes at `m[a..]` becomes (zero- or sign-extended).
fn element(m: &[u8], a: usize, bytes: usize, signed: bool) -> u32 {
    let mut b = [0u8; 4];
    b[..bytes].copy_from_slice(&m[a..a + bytes]);
    let v = u32::from_le_bytes(b);
    match (bytes, signed) {
        (1, true) => v as u8 as i8 as i32 as u32,
        (2, true) => v as u16 as i16 as i32 as u32,
        _ => v,
    }
}

/// LDS before a test: a pattern that no load writes, so untouched bytes show.
fn lds_pattern() -> Vec<u8> {
    (0..65536u32).map(|k| (k * 7 + 0x5a) as u8).collect()
}

/// `global_load_lds_*` through a 64-bit VGPR address and through SADDR + a VGPR offset (a
/// negative offset), each with its own M0; `buffer_load_* … lds` through a V# with `offen`.
#[test]
fn global_and_buffer_loads_to_lds() {
    let mut ran = 0;
    for t in &CDNA {
        for &(suffix, bytes, signed, dwords) in &LDS_LOADS {
            let mut store = Vec::new();
            let global = aligned(&mut store, 4096);
            for q in 0..1024 {
                wr(global, 4 * q, mix(q as u64 + 77), 4);
            }
            let addr = global.as_ptr() as u64;
            let lines = [
                "s_mov_b32 m0, 0x100".to_string(),
                format!("global_load_lds_{suffix} v[2:3], off offset:16"),
                "s_mov_b32 m0, 0x2008".to_string(),
                format!("global_load_lds_{suffix} v1, s[2:3] offset:-8"),
                "s_mov_b32 m0, 0x5000".to_string(),
                format!("buffer_load_{suffix} v4, s[4:7], 0 offen offset:12 lds"),
            ];
            let mut r = regs(t);
            let (o1, o2, o3) = (
                |l: usize| 16 * ((l * 7) % 64),
                |l: usize| 16 * ((l * 5 + 3) % 64) + 32,
                |l: usize| 12 * ((l * 11 + 1) % 64),
            );
            for l in 0..64 {
                let a = addr + o1(l) as u64;
                r.v[2][l] = a as u32;
                r.v[3][l] = (a >> 32) as u32;
                r.v[1][l] = o2(l) as u32;
                r.v[4][l] = o3(l) as u32;
            }
            r.s[2] = addr as u32;
            r.s[3] = (addr >> 32) as u32;
            // A raw buffer: base, no stride, num_records bytes, 32-bit data format.
            r.s[4] = addr as u32;
            r.s[5] = (addr >> 32) as u32 & 0xffff;
            r.s[6] = 4096;
            r.s[7] = 4 << 15;
            let Some(w) = words(t, &lines) else {
                // gfx950 adds the dwordx3/dwordx4 forms.
                assert!(dwords > 1 && t.gen != Gen::Gfx950, "{} {suffix}", t.mcpu);
                continue;
            };
            let before = r.clone();
            let mut lds = lds_pattern();
            let mut want = lds.clone();
            let stride = if dwords > 2 { 16 } else { 4 };
            // Per form: M0 + the instruction offset, and lane l's byte in `global`.
            let forms: [(usize, &dyn Fn(usize) -> usize); 3] = [
                (0x100 + 16, &|l| o1(l) + 16),
                (0x2008 - 8, &|l| o2(l) - 8),
                (0x5000 + 12, &|l| o3(l) + 12),
            ];
            for (base, at) in forms {
                for l in (0..64).filter(|&l| active(t, l)) {
                    for k in 0..dwords {
                        let v = element(global, at(l) + 4 * k, bytes, signed);
                        wr(&mut want, base + stride * l + 4 * k, u64::from(v), 4);
                    }
                }
            }
            run_words_mem(t.gen, &w, &mut r, &mut lds, global)
                .unwrap_or_else(|e| panic!("{} {suffix}: {e:?}", t.mcpu));
            for a in 0..want.len() {
                assert_eq!(lds[a], want[a], "{} {suffix}: LDS byte {a:#x}", t.mcpu);
            }
            assert!(r.v == before.v, "{} {suffix}: VGPRs changed", t.mcpu);
            ran += 1;
        }
    }
    assert!(ran >= 17, "{ran}");
}

/// `scratch_load_lds_*` through a VGPR offset and through an SGPR offset: each lane reads its
/// own private memory (swizzled per dword) and writes LDS at M0 + offset + TID·4.
#[test]
fn scratch_loads_to_lds() {
    let mut ran = 0;
    for t in &CDNA {
        for &(suffix, bytes, signed, _) in &LDS_LOADS[..5] {
            let lines = [
                "s_mov_b32 m0, 0x40".to_string(),
                format!("scratch_load_lds_{suffix} v1, off offset:4"),
                "s_mov_b32 m0, 0x1000".to_string(),
                format!("scratch_load_lds_{suffix} off, s4 offset:8"),
            ];
            let Some(w) = words(t, &lines) else {
                panic!("{}: scratch_load_lds_{suffix} does not assemble", t.mcpu)
            };
            let mut store = Vec::new();
            let global = aligned(&mut store, 64 * 256);
            for q in 0..64 * 64 {
                wr(global, 4 * q, mix(q as u64 + 5), 4);
            }
            // Byte p of lane l's private memory (4-byte elements, wave64 interleave).
            let private = |l: usize, p: usize| (p / 4) * 4 * 64 + 4 * l + p % 4;
            let mut r = regs(t);
            for l in 0..64 {
                r.v[1][l] = (4 * ((l * 3) % 32)
                    + if bytes == 4 { 0 } else { l % 4 / bytes * bytes })
                    as u32;
            }
            r.s[4] = 0x20;
            let before = r.clone();
            let mut lds = lds_pattern();
            let mut want = lds.clone();
            for l in (0..64).filter(|&l| active(t, l)) {
                let read = |p: usize| {
                    let mut b = [0u8; 4];
                    for (k, x) in b.iter_mut().enumerate().take(bytes) {
                        *x = global[private(l, p + k)];
                    }
                    element(&b, 0, bytes, signed)
                };
                let p1 = before.v[1][l] as usize + 4;
                wr(&mut want, 0x40 + 4 + 4 * l, u64::from(read(p1)), 4);
                wr(&mut want, 0x1000 + 8 + 4 * l, u64::from(read(0x20 + 8)), 4);
            }
            run_words_scratch(t.gen, &w, &mut r, &mut lds, global, 256)
                .unwrap_or_else(|e| panic!("{} {suffix}: {e:?}", t.mcpu));
            for a in 0..want.len() {
                assert_eq!(lds[a], want[a], "{} {suffix}: LDS byte {a:#x}", t.mcpu);
            }
            assert!(r.v == before.v, "{} {suffix}: VGPRs changed", t.mcpu);
            ran += 1;
        }
    }
    assert_eq!(ran, 15);
}

/// 16-bit values for the packed adds: zeros, ones, the smallest denormal and normal, the
/// largest finite value, infinities, a NaN, and operands whose sum is a tie or overflows.
fn halves(bf: bool) -> Vec<u16> {
    if bf {
        vec![
            0x0000, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x0080, 0x7f7f, 0xff7f, 0x7f80, 0xff80,
            0x7fc0, 0x3b80, 0x3f81, 0x4049, 0xc2f7, 0x0040, 0x3c00,
        ]
    } else {
        vec![
            0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
            0x7e00, 0x1000, 0x3c01, 0x4248, 0xc5ff, 0x0200, 0x3800,
        ]
    }
}

/// One half of a packed add by its definition: the exact sum rounded to nearest even;
/// `None` for a NaN result.
fn add16(a: u16, b: u16, bf: bool) -> Option<u16> {
    let (x, y) = if bf {
        (bf16::from_bits(a).to_f64(), bf16::from_bits(b).to_f64())
    } else {
        (f16::from_bits(a).to_f64(), f16::from_bits(b).to_f64())
    };
    let s = x + y;
    if s.is_nan() {
        return None;
    }
    Some(if bf {
        bf16::from_f64(s).to_bits()
    } else {
        f16::from_f64(s).to_bits()
    })
}

fn is_nan16(v: u16, bf: bool) -> bool {
    if bf {
        bf16::from_bits(v).is_nan()
    } else {
        f16::from_bits(v).is_nan()
    }
}

/// Lane l's old value and data: the edge halves crossed, then scrambled values.
fn pk_operands(l: usize, bf: bool) -> (u32, u32) {
    let h = halves(bf);
    let n = h.len();
    let pick = |k: usize, salt: u64| {
        if k < n * 2 {
            h[k % n]
        } else {
            mix(k as u64 + salt) as u16
        }
    };
    let old = u32::from(pick(l, 1)) | u32::from(pick((l * 7 + 3) % 64, 2)) << 16;
    let data = u32::from(pick((l * 5 + 1) % 64, 3)) | u32::from(pick((l * 13 + 9) % 64, 4)) << 16;
    (old, data)
}

fn check_pk(got: u32, old: u32, data: u32, bf: bool, what: &str) {
    for s in [0, 16] {
        let g = (got >> s) as u16;
        match add16((old >> s) as u16, (data >> s) as u16, bf) {
            Some(w) => assert_eq!(g, w, "{what}: {old:#010x} + {data:#010x}, half {s}"),
            None => assert!(
                is_nan16(g, bf),
                "{what}: {old:#010x} + {data:#010x}: NaN, got {g:#x}"
            ),
        }
    }
}

/// `ds_pk_add_f16`/`_bf16` and their `_rtn` forms; `global_`, `flat_` (gfx940, gfx942,
/// gfx950) and `buffer_atomic_pk_add_bf16` (gfx950) with and without `sc0` (return the old
/// value).
#[test]
fn packed_16_bit_float_adds() {
    let mut ran = 0;
    for t in &CDNA {
        for bf in [false, true] {
            let ty = if bf { "bf16" } else { "f16" };
            // LDS: lane l's dword at 8 + 4·l; the _rtn form at 0x400 + 8 + 4·l.
            let lines = [
                format!("ds_pk_add_{ty} v1, v2 offset:8"),
                format!("ds_pk_add_rtn_{ty} v3, v4, v2 offset:8"),
            ];
            let w = words(t, &lines).unwrap_or_else(|| panic!("{}: ds_pk_add_{ty}", t.mcpu));
            let mut r = regs(t);
            let mut lds = lds_pattern();
            for l in 0..64 {
                let (old, data) = pk_operands(l, bf);
                r.v[1][l] = 4 * l as u32;
                r.v[4][l] = 0x400 + 4 * l as u32;
                r.v[2][l] = data;
                wr(&mut lds, 8 + 4 * l, u64::from(old), 4);
                wr(&mut lds, 0x408 + 4 * l, u64::from(old), 4);
            }
            let before = r.clone();
            let start = lds.clone();
            run_words_mem(t.gen, &w, &mut r, &mut lds, &mut [0u8; 16])
                .unwrap_or_else(|e| panic!("{} {ty}: {e:?}", t.mcpu));
            for l in 0..64 {
                let (old, data) = pk_operands(l, bf);
                for a in [8 + 4 * l, 0x408 + 4 * l] {
                    let got = rd32(&lds, a);
                    if active(t, l) {
                        check_pk(got, old, data, bf, &format!("{} ds {ty} lane {l}", t.mcpu));
                    } else {
                        assert_eq!(got, rd32(&start, a), "{} inactive lane {l}", t.mcpu);
                    }
                }
                let rtn = if active(t, l) { old } else { before.v[3][l] };
                assert_eq!(r.v[3][l], rtn, "{} ds_pk_add_rtn_{ty} lane {l}", t.mcpu);
            }
            ran += 1;
        }
        // Global memory: bf16 (and f16 for comparison) through global_, flat_ and buffer_.
        for (op, bf) in [("pk_add_bf16", true), ("pk_add_f16", false)] {
            let mut lines = vec![
                format!("global_atomic_{op} v[2:3], v4, off"),
                format!("global_atomic_{op} v5, v[6:7], v4, off sc0"),
                format!("flat_atomic_{op} v8, v[14:15], v4 sc0"),
            ];
            let buffer = t.gen == Gen::Gfx950 || !bf;
            if buffer {
                lines.push(format!("buffer_atomic_{op} v11, v12, s[4:7], 0 offen sc0"));
            }
            let w = words(t, &lines).unwrap_or_else(|| panic!("{}: {lines:?}", t.mcpu));
            let mut store = Vec::new();
            let global = aligned(&mut store, 4 * 256);
            let addr = global.as_ptr() as u64;
            let mut r = regs(t);
            r.s[4] = addr as u32;
            r.s[5] = (addr >> 32) as u32 & 0xffff;
            r.s[6] = 4 * 256;
            r.s[7] = 4 << 15;
            for l in 0..64 {
                let (old, data) = pk_operands(l, bf);
                for q in 0..4 {
                    wr(global, 4 * (64 * q + l), u64::from(old), 4);
                }
                let a = |q: usize| addr + 4 * (64 * q + l) as u64;
                r.v[2][l] = a(0) as u32;
                r.v[3][l] = (a(0) >> 32) as u32;
                r.v[6][l] = a(1) as u32;
                r.v[7][l] = (a(1) >> 32) as u32;
                r.v[14][l] = a(2) as u32;
                r.v[15][l] = (a(2) >> 32) as u32;
                r.v[12][l] = 4 * (64 * 3 + l) as u32;
                r.v[4][l] = data;
                r.v[11][l] = data;
            }
            let before = r.clone();
            run_words_mem(t.gen, &w, &mut r, &mut vec![0; 65536], global)
                .unwrap_or_else(|e| panic!("{} {op}: {e:?}", t.mcpu));
            for l in 0..64 {
                let (old, data) = pk_operands(l, bf);
                let what = format!("{} {op} lane {l}", t.mcpu);
                for q in 0..if buffer { 4 } else { 3 } {
                    let got = rd32(global, 4 * (64 * q + l));
                    if active(t, l) {
                        check_pk(got, old, data, bf, &what);
                    } else {
                        assert_eq!(got, old, "{what}: inactive");
                    }
                }
                for (reg, returns) in [(5, true), (8, true), (11, buffer)] {
                    let want = if active(t, l) && returns {
                        old
                    } else {
                        before.v[reg][l]
                    };
                    assert_eq!(r.v[reg][l], want, "{what}: v{reg}");
                }
            }
            ran += 1;
        }
    }
    assert_eq!(ran, 12);
}

/// The opcodes these tests cover, for `completeness`.
pub(crate) fn mnemonics() -> Vec<String> {
    let mut v = Vec::new();
    for (suffix, ..) in LDS_LOADS {
        v.push(format!("global_load_lds_{suffix}"));
    }
    for (suffix, ..) in &LDS_LOADS[..5] {
        v.push(format!("scratch_load_lds_{suffix}"));
    }
    for ty in ["f16", "bf16"] {
        v.push(format!("ds_pk_add_{ty}"));
        v.push(format!("ds_pk_add_rtn_{ty}"));
    }
    for seg in ["global", "flat", "buffer"] {
        v.push(format!("{seg}_atomic_pk_add_bf16"));
    }
    v
}
