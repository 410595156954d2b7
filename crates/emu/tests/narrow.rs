//! Byte and 16-bit instruction forms of the GFX9 decoding table (gfx906, gfx908) that only
//! rocPRIM's kernels executed on gfx906 before the rocPRIM HIP programs lost their gfx906
//! builds (tests/hip/manifest.txt; docs/notes/ci-time.md, "Round 18"): the kernels of
//! tests/kernels/cl/emu_narrow.cl on gfx906 against CPU references, and a check that clang
//! still emits each form (a compiler that picks other instructions would drop the coverage
//! silently).

use crate::common::*;

const SRC: &str = "cl/emu_narrow.cl";
const TARGET: &str = "gfx906";

/// Each kernel and the forms it is there for, as llvm-objdump-15 prints their mnemonics.
const FORMS: [(&str, &[&str]); 4] = [
    (
        "sign_extending_loads",
        &["global_load_sbyte", "ds_write_b8", "ds_read_i8"],
    ),
    ("lds_pairs", &["ds_write2_b64"]),
    ("flat_bytes", &["flat_load_ubyte", "flat_store_byte"]),
    (
        "sdwa_16bit",
        &[
            "v_max_i16_sdwa",
            "v_max_u16_sdwa",
            "v_min_i16_sdwa",
            "v_cmp_eq_u32_sdwa",
            "v_cmp_ne_u16_sdwa",
        ],
    ),
];

#[test]
fn kernels_have_the_forms_under_test() {
    let path = hsaemu_testkit::compile_cl(SRC, TARGET, code_object_version(TARGET));
    let text = objdump(&path, "gfx906");
    for (kernel, forms) in FORMS {
        // The kernel's lines: from its label to the next symbol's.
        let start = text
            .find(&format!("<{kernel}>:"))
            .unwrap_or_else(|| panic!("{kernel} missing from the disassembly"));
        let body = &text[start..];
        let body = &body[..body[1..].find("\n0").map_or(body.len(), |e| e + 1)];
        let mnemonics: Vec<&str> = body
            .lines()
            .filter_map(|l| l.strip_prefix('\t'))
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        for f in forms {
            assert!(mnemonics.contains(f), "{kernel}: no {f} in {mnemonics:?}");
        }
    }
}

/// Signed bytes: `global_load_sbyte` and `ds_read_i8` sign-extend bit 7 into the dword.
#[test]
fn sign_extending_byte_loads() {
    let e = emu(SRC, TARGET);
    let mut rng = Rng(31);
    let g: Vec<u8> = (0..256u32)
        .map(|i| match i {
            0 => 0x80,
            1 => 0x7f,
            2 => 0xff,
            3 => 0,
            _ => rng.next_u32() as u8,
        })
        .collect();
    let h: Vec<u8> = (0..256u32).map(|i| (i * 37 + 11) as u8).collect();
    let (bg, bh, bo) = (e.buf_bytes(&g), e.buf_bytes(&h), e.zeros(8 * 256));
    e.run1(
        "sign_extending_loads",
        &[Arg::Ptr(&bg), Arg::Ptr(&bh), Arg::Ptr(&bo)],
        256,
        256,
    );
    let o = bo.i32s();
    for i in 0..256 {
        assert_eq!(o[2 * i], i32::from(g[i] as i8) * 3, "global {i}");
        assert_eq!(o[2 * i + 1], i32::from(h[255 - i] as i8), "LDS {i}");
    }
}

/// `ds_write2_b64`: two qwords at ADDR + OFFSET0 * 8 and ADDR + OFFSET1 * 8.
#[test]
fn lds_qword_pairs() {
    let e = emu(SRC, TARGET);
    let mut rng = Rng(5);
    let a: Vec<u64> = (0..512)
        .map(|_| u64::from(rng.next_u32()) << 32 | u64::from(rng.next_u32()))
        .collect();
    let (ba, bo) = (e.buf_u64(&a), e.zeros(16 * 512));
    e.run1("lds_pairs", &[Arg::Ptr(&ba), Arg::Ptr(&bo)], 512, 256);
    let o = bo.u64s();
    for i in 0..512 {
        // The work-group's lane 255 - l wrote what lane l reads.
        let j = i / 256 * 256 + 255 - i % 256;
        let x = a[j] as i64;
        assert_eq!(o[2 * i], (x << 3) as u64, "{i} first");
        assert_eq!(o[2 * i + 1], x.wrapping_mul(-7) as u64, "{i} second");
    }
}

/// `flat_load_ubyte` zero-extends; `flat_store_byte` writes the low byte, to LDS or global
/// memory as the address falls.
#[test]
fn flat_byte_accesses() {
    let e = emu(SRC, TARGET);
    for which in [0, 1] {
        let g: Vec<u8> = (0..512u32).map(|i| (i * 73 + 200) as u8).collect();
        let (bg, bo) = (e.buf_bytes(&g), e.zeros(8 * 512));
        e.run1(
            "flat_bytes",
            &[Arg::Ptr(&bg), Arg::Ptr(&bo), Arg::I32(which)],
            512,
            256,
        );
        let (o, after) = (bo.i32s(), bg.bytes());
        let lds = |l: usize| (l * 5 + 1) as u8;
        let to_lds = |i: usize| (i + which as usize) & 1 == 1;
        for i in 0..512 {
            let l = i % 256;
            let v = if to_lds(i) { lds(255 - l) } else { g[i] };
            assert_eq!(o[2 * i], i32::from(v), "which {which}: load {i}");
            let stored = v.wrapping_mul(3).wrapping_add(7);
            let want_g = if to_lds(i) { g[i] } else { stored };
            assert_eq!(after[i], want_g, "which {which}: global byte {i}");
            // LDS byte l is written by the work-group's lane 255 - l, when it goes to LDS.
            let k = i - l + 255 - l;
            let want_lds = if to_lds(k) {
                lds(l).wrapping_mul(3).wrapping_add(7)
            } else {
                lds(l)
            };
            assert_eq!(
                o[2 * i + 1],
                i32::from(want_lds),
                "which {which}: LDS byte {l} of {i}"
            );
        }
    }
}

/// SDWA operand selection: WORD_1 takes bits 31:16, BYTE_0 bits 7:0, zero- or (with `sext`)
/// sign-extended, before the 16-bit max/min or compare.
#[test]
fn sdwa_selects_in_16bit_operations() {
    let e = emu(SRC, TARGET);
    let n = 256usize;
    let mut rng = Rng(77);
    let edges = [
        0u32,
        0x8000_7fff,
        0x7fff_8000,
        0xffff_0001,
        0x0080_ff7f,
        0xff80_0001,
    ];
    let mut a: Vec<u32> = (0..4 * n).map(|_| rng.next_u32()).collect();
    for (k, &x) in edges.iter().enumerate() {
        a[4 * k..4 * k + 4].fill(x);
    }
    // Every fourth lane's x3 byte equals its x1, so that the compare is sometimes true.
    for i in (0..n).step_by(4) {
        a[4 * i + 1] = a[4 * i + 3] & 0xff;
    }
    let b: Vec<u16> = (0..n)
        .map(|i| match i {
            0 => 0x8000,
            1 => 0x7fff,
            2 => 0xff7f,
            3 => 0x0080,
            _ => rng.next_u32() as u16,
        })
        .collect();
    let q: Vec<u8> = (0..n).map(|_| rng.next_u32() as u8).collect();
    // p equals q + 5 on every third lane.
    let p: Vec<u8> = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                q[i].wrapping_add(5)
            } else {
                rng.next_u32() as u8
            }
        })
        .collect();
    let b_bytes: Vec<u8> = b.iter().flat_map(|x| x.to_le_bytes()).collect();
    let (ba, bb, bp, bq, bo) = (
        e.buf_u32(&a),
        e.buf_bytes(&b_bytes),
        e.buf_bytes(&p),
        e.buf_bytes(&q),
        e.zeros(4 * 5 * n),
    );
    e.run1(
        "sdwa_16bit",
        &[
            Arg::Ptr(&ba),
            Arg::Ptr(&bb),
            Arg::Ptr(&bp),
            Arg::Ptr(&bq),
            Arg::Ptr(&bo),
        ],
        n as u32,
        64,
    );
    let o = bo.i32s();
    for i in 0..n {
        let (x0, x1, x2, x3, y) = (a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3], b[i]);
        let want = [
            i32::from((x0 as i16).max((x0 >> 16) as i16)),
            i32::from(u16::from(x1 as u8).max(y)),
            i32::from(i16::from(x2 as u8 as i8).min(y as i16)),
            i32::from(x3 & 0xff == x1),
            i32::from(p[i] != q[i].wrapping_add(5)),
        ];
        assert_eq!(
            o[5 * i..5 * i + 5],
            want,
            "lane {i}: x {x0:#x} {x1:#x} {x2:#x} {x3:#x} y {y:#x}"
        );
    }
}
