//! Per-instruction tests of memory instructions (a module of `tests/inst.rs`): each line runs
//! on one wave with LDS and one global buffer (`run_words_mem`), and the registers and bytes it
//! leaves are compared with a reference written here from the ISA's definition (Vega, MI200
//! and RDNA2 ISA manuals; the DS src2 address rule and the scalar scratch offset as those
//! manuals give them). Lanes 5 and 37 are inactive and must leave memory and registers alone.
//! [`mnemonics`] names every opcode these tests cover, for `completeness`.

use super::{assemble, prefetch, Target, TARGETS};
use hsaemu_emu::{run_words_mem, WaveRegs};

/// EXEC of every test: all lanes but 5 and 37.
pub(super) fn exec_mask(t: &Target) -> u64 {
    let all = if t.wave64 { u64::MAX } else { 0xffff_ffff };
    all & !(1 << 5) & !(1u64 << 37)
}

pub(super) fn active(t: &Target, l: usize) -> bool {
    exec_mask(t) >> l & 1 != 0
}

/// The words of `lines` for `t`, or `None` when llvm-mc rejects one of them.
pub(super) fn words(t: &Target, lines: &[String]) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for w in assemble(t, lines) {
        out.extend(w?);
    }
    Some(out)
}

/// A zeroed buffer of `n` bytes at an 8-byte-aligned address, inside `store`.
pub(super) fn aligned(store: &mut Vec<u8>, n: usize) -> &mut [u8] {
    *store = vec![0u8; n + 8];
    let o = store.as_ptr().align_offset(8);
    &mut store[o..o + n]
}

pub(super) fn rd32(m: &[u8], a: usize) -> u32 {
    u32::from_le_bytes(m[a..a + 4].try_into().expect("4 bytes"))
}

fn rd64(m: &[u8], a: usize) -> u64 {
    u64::from_le_bytes(m[a..a + 8].try_into().expect("8 bytes"))
}

pub(super) fn wr(m: &mut [u8], a: usize, v: u64, bytes: usize) {
    m[a..a + bytes].copy_from_slice(&v.to_le_bytes()[..bytes]);
}

/// A deterministic scramble for memory and register contents.
pub(super) fn mix(k: u64) -> u64 {
    let mut x = k.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Registers for a test: EXEC without lanes 5 and 37, VGPRs scrambled.
pub(super) fn regs(t: &Target) -> WaveRegs {
    let mut r = WaveRegs::new(t.gen);
    for (v, row) in r.v.iter_mut().enumerate().take(16) {
        for (l, x) in row.iter_mut().enumerate() {
            *x = mix((v * 64 + l) as u64) as u32;
        }
    }
    r.set_exec(exec_mask(t));
    r
}

/// An atomic read-modify-write as the ISA defines it: the new memory value from the old one,
/// the data and the compare value, for 4- or 8-byte operands.
#[derive(Clone, Copy, Debug, PartialEq)]
enum A {
    Swap,
    CmpSwap,
    Add,
    Sub,
    Rsub,
    Inc,
    Dec,
    SMin,
    SMax,
    UMin,
    UMax,
    And,
    Or,
    Xor,
    FMin,
    FMax,
    FAdd,
    FCmpSwap,
}

fn atomic(a: A, old: u64, data: u64, cmp: u64, bytes: usize) -> u64 {
    let mask = if bytes == 8 { u64::MAX } else { 0xffff_ffff };
    let s = |v: u64| -> i64 {
        if bytes == 8 {
            v as i64
        } else {
            i64::from(v as u32 as i32)
        }
    };
    let f = |v: u64| -> f64 {
        if bytes == 8 {
            f64::from_bits(v)
        } else {
            f64::from(f32::from_bits(v as u32))
        }
    };
    let bits = |x: f64| -> u64 {
        if bytes == 8 {
            x.to_bits()
        } else {
            u64::from((x as f32).to_bits())
        }
    };
    let r = match a {
        A::Swap => data,
        A::CmpSwap => {
            if old == cmp {
                data
            } else {
                old
            }
        }
        A::Add => old.wrapping_add(data),
        A::Sub => old.wrapping_sub(data),
        A::Rsub => data.wrapping_sub(old),
        // INC: tmp >= data ? 0 : tmp + 1; DEC: tmp == 0 || tmp > data ? data : tmp - 1.
        A::Inc => {
            if old >= data {
                0
            } else {
                old + 1
            }
        }
        A::Dec => {
            if old == 0 || old > data {
                data
            } else {
                old - 1
            }
        }
        A::SMin => {
            if s(data) < s(old) {
                data
            } else {
                old
            }
        }
        A::SMax => {
            if s(data) > s(old) {
                data
            } else {
                old
            }
        }
        A::UMin => {
            if data < old {
                data
            } else {
                old
            }
        }
        A::UMax => {
            if data > old {
                data
            } else {
                old
            }
        }
        A::And => old & data,
        A::Or => old | data,
        A::Xor => old ^ data,
        // The operands below are never NaN or a signed zero pair, where the manuals differ.
        A::FMin => {
            if f(data) < f(old) {
                data
            } else {
                old
            }
        }
        A::FMax => {
            if f(data) > f(old) {
                data
            } else {
                old
            }
        }
        A::FAdd => bits(f(old) + f(data)),
        // A float compare: -0 equals +0, NaN equals nothing.
        A::FCmpSwap => {
            if f(old) == f(cmp) {
                data
            } else {
                old
            }
        }
    };
    r & mask
}

/// A float value (f32 or f64 bits) for index k: finite values of both signs, infinities and
/// denormals, no NaN and no zero.
fn float_bits(k: u64, bytes: usize) -> u64 {
    let vals = [
        1.5,
        -2.25,
        1e30,
        -7.0e-3,
        f64::INFINITY,
        3.0,
        -1e-40,
        0.125,
        -f64::INFINITY,
        42.0,
    ];
    let x = vals[(mix(k) % vals.len() as u64) as usize];
    if bytes == 8 {
        let x = if x == -1e-40 { -4.9e-324 } else { x };
        x.to_bits()
    } else {
        u64::from((x as f32).to_bits())
    }
}

fn is_float(a: A) -> bool {
    matches!(a, A::FMin | A::FMax | A::FAdd | A::FCmpSwap)
}

// ---------------------------------------------------------------------------------------
// DS src2 forms (GFX8/GFX9): MEM[A] = op(MEM[A], MEM[B]).

const SRC2: [(&str, A, usize); 31] = [
    ("ds_add_src2_u32", A::Add, 4),
    ("ds_sub_src2_u32", A::Sub, 4),
    ("ds_rsub_src2_u32", A::Rsub, 4),
    ("ds_inc_src2_u32", A::Inc, 4),
    ("ds_dec_src2_u32", A::Dec, 4),
    ("ds_min_src2_i32", A::SMin, 4),
    ("ds_max_src2_i32", A::SMax, 4),
    ("ds_min_src2_u32", A::UMin, 4),
    ("ds_max_src2_u32", A::UMax, 4),
    ("ds_and_src2_b32", A::And, 4),
    ("ds_or_src2_b32", A::Or, 4),
    ("ds_xor_src2_b32", A::Xor, 4),
    ("ds_write_src2_b32", A::Swap, 4),
    ("ds_min_src2_f32", A::FMin, 4),
    ("ds_max_src2_f32", A::FMax, 4),
    ("ds_add_src2_f32", A::FAdd, 4),
    ("ds_add_src2_u64", A::Add, 8),
    ("ds_sub_src2_u64", A::Sub, 8),
    ("ds_rsub_src2_u64", A::Rsub, 8),
    ("ds_inc_src2_u64", A::Inc, 8),
    ("ds_dec_src2_u64", A::Dec, 8),
    ("ds_min_src2_i64", A::SMin, 8),
    ("ds_max_src2_i64", A::SMax, 8),
    ("ds_min_src2_u64", A::UMin, 8),
    ("ds_max_src2_u64", A::UMax, 8),
    ("ds_and_src2_b64", A::And, 8),
    ("ds_or_src2_b64", A::Or, 8),
    ("ds_xor_src2_b64", A::Xor, 8),
    ("ds_write_src2_b64", A::Swap, 8),
    ("ds_min_src2_f64", A::FMin, 8),
    ("ds_max_src2_f64", A::FMax, 8),
];

/// LDS filled for an operation: floats for the float ones, small integers (so inc/dec wrap
/// and stop both happen) or scrambled bits for the others.
fn fill_lds(a: A, bytes: usize, seed: u64) -> Vec<u8> {
    let mut lds = vec![0u8; 65536];
    for k in 0..65536 / bytes {
        let v = if is_float(a) {
            float_bits(seed * 100_000 + k as u64, bytes)
        } else if matches!(a, A::Inc | A::Dec) {
            mix(seed * 100_000 + k as u64) % 4
        } else {
            mix(seed * 100_000 + k as u64)
        };
        wr(&mut lds, k * bytes, v, bytes);
    }
    lds
}

#[test]
fn ds_src2() {
    // Lane addresses 16 apart from 256; B is 8 bytes off an A (never another lane's A).
    // offset:2 → B = A + 8; offset:0x7ffa (offset[14] set) → −6 dwords; offset:0x8000 takes the
    // dword count from ADDR[31:17] (10 here) and A from ADDR[16:0].
    let cases: [(u32, u32, i64); 3] = [(2, 0, 2), (0x7ffa, 0, -6), (0x8000, 10 << 17, 10)];
    let mut ran = 0;
    for t in &TARGETS {
        let all: Vec<String> = SRC2
            .iter()
            .flat_map(|&(name, _, _)| cases.map(|(off, _, _)| format!("{name} v1 offset:{off}")))
            .collect();
        prefetch(t, &all);
        for (k, &(name, a, bytes)) in SRC2.iter().enumerate() {
            for &(off, hi, delta) in &cases {
                let line = vec![format!("{name} v1 offset:{off}")];
                let Some(w) = words(t, &line) else { continue };
                let mut r = regs(t);
                for l in 0..64 {
                    r.v[1][l] = hi | (256 + 16 * l as u32);
                }
                let mut lds = fill_lds(a, bytes, k as u64);
                let mut want = lds.clone();
                for l in (0..t.lanes()).filter(|&l| active(t, l)) {
                    let aa = 256 + 16 * l;
                    let b = ((aa as i64 + 4 * delta) as usize) & !(bytes - 1);
                    let (old, src) = if bytes == 8 {
                        (rd64(&want, aa), rd64(&want, b))
                    } else {
                        (u64::from(rd32(&want, aa)), u64::from(rd32(&want, b)))
                    };
                    wr(&mut want, aa, atomic(a, old, src, 0, bytes), bytes);
                }
                let before = r.clone();
                run_words_mem(t.gen, &w, &mut r, &mut lds, &mut [])
                    .unwrap_or_else(|e| panic!("{}: {}: {e:?}", t.mcpu, line[0]));
                assert!(lds == want, "{}: {}: LDS differs", t.mcpu, line[0]);
                assert_eq!(r.v, before.v, "{}: {}: a VGPR changed", t.mcpu, line[0]);
                ran += 1;
            }
        }
    }
    assert!(ran >= SRC2.len() * 3 * 3, "{ran}");
}

// ---------------------------------------------------------------------------------------
// DS: append/consume, addtid, wrxchg2, condxchg32, wrap, float compare-store.

#[test]
fn ds_append_consume() {
    let mut ran = 0;
    for t in &TARGETS {
        for (name, up) in [("ds_append", true), ("ds_consume", false)] {
            let line = vec![format!("{name} v2 offset:16")];
            let Some(w) = words(t, &line) else { continue };
            let mut r = regs(t);
            r.s[WaveRegs::M0] = 0x100;
            let mut lds = vec![0u8; 65536];
            wr(&mut lds, 0x110, 1000, 4);
            let before = r.clone();
            run_words_mem(t.gen, &w, &mut r, &mut lds, &mut []).expect(name);
            // The dword at M0 + offset moves by the active lane count; each active lane gets
            // the value before.
            let n = exec_mask(t).count_ones();
            let after = if up { 1000 + n } else { 1000 - n };
            assert_eq!(rd32(&lds, 0x110), after, "{}: {name}", t.mcpu);
            for l in 0..64 {
                let want = if l < t.lanes() && active(t, l) {
                    1000
                } else {
                    before.v[2][l]
                };
                assert_eq!(r.v[2][l], want, "{}: {name} lane {l}", t.mcpu);
            }
            ran += 1;
        }
    }
    assert!(ran >= 2 * 5, "{ran}");
}

#[test]
fn ds_addtid() {
    let mut ran = 0;
    for t in &TARGETS {
        let lines = [
            "ds_write_addtid_b32 v3 offset:8",
            "ds_read_addtid_b32 v4 offset:12",
        ]
        .map(String::from);
        let Some(w) = words(t, &lines) else { continue };
        let mut r = regs(t);
        r.s[WaveRegs::M0] = 0x200;
        let mut lds = fill_lds(A::Add, 4, 7);
        let mut want = lds.clone();
        let before = r.clone();
        // Lane l writes the dword at M0 + 8 + 4l, then reads the one at M0 + 12 + 4l (which
        // lane l + 1 wrote, when active).
        for l in (0..t.lanes()).filter(|&l| active(t, l)) {
            wr(&mut want, 0x208 + 4 * l, u64::from(before.v[3][l]), 4);
        }
        run_words_mem(t.gen, &w, &mut r, &mut lds, &mut []).expect("addtid");
        assert!(lds == want, "{}: LDS differs", t.mcpu);
        for l in 0..64 {
            let v = if l < t.lanes() && active(t, l) {
                rd32(&want, 0x20c + 4 * l)
            } else {
                before.v[4][l]
            };
            assert_eq!(r.v[4][l], v, "{}: lane {l}", t.mcpu);
        }
        ran += 1;
    }
    assert!(ran >= 4, "{ran}");
}

#[test]
fn ds_wrxchg2() {
    let forms = [
        (
            "ds_wrxchg2_rtn_b32 v[4:5], v1, v2, v3 offset0:1 offset1:3",
            4,
            [4, 12],
        ),
        (
            "ds_wrxchg2st64_rtn_b32 v[4:5], v1, v2, v3 offset0:1 offset1:2",
            4,
            [256, 512],
        ),
        (
            "ds_wrxchg2_rtn_b64 v[4:7], v1, v[2:3], v[8:9] offset0:1 offset1:3",
            8,
            [8, 24],
        ),
        (
            "ds_wrxchg2st64_rtn_b64 v[4:7], v1, v[2:3], v[8:9] offset1:1",
            8,
            [0, 512],
        ),
    ];
    let mut ran = 0;
    let all: Vec<String> = forms.iter().map(|f| f.0.to_string()).collect();
    for t in &TARGETS {
        prefetch(t, &all);
        for &(line, bytes, offs) in &forms {
            let lines = vec![line.to_string()];
            let Some(w) = words(t, &lines) else { continue };
            let mut r = regs(t);
            for l in 0..64 {
                r.v[1][l] = 1024 * l as u32;
            }
            let mut lds = fill_lds(A::Xor, 4, 3);
            let orig = lds.clone();
            let before = r.clone();
            run_words_mem(t.gen, &w, &mut r, &mut lds, &mut []).expect(line);
            let data = if bytes == 4 { [2, 3] } else { [2, 8] };
            let mut want = orig.clone();
            for l in (0..t.lanes()).filter(|&l| active(t, l)) {
                for k in 0..2 {
                    let a = 1024 * l + offs[k];
                    let mut v = u64::from(before.v[data[k]][l]);
                    if bytes == 8 {
                        v |= u64::from(before.v[data[k] + 1][l]) << 32;
                    }
                    wr(&mut want, a, v, bytes);
                    // The old values land in consecutive destination registers.
                    for d in 0..bytes / 4 {
                        let dst = 4 + k * bytes / 4 + d;
                        assert_eq!(r.v[dst][l], rd32(&orig, a + 4 * d), "{}: {line}", t.mcpu);
                    }
                }
            }
            assert!(lds == want, "{}: {line}: LDS differs", t.mcpu);
            for l in [5, 37].into_iter().filter(|&l| l < t.lanes()) {
                assert_eq!(r.v[4][l], before.v[4][l], "{}: {line}: inactive", t.mcpu);
            }
            ran += 1;
        }
    }
    assert!(ran >= 4 * 3, "{ran}");
}

#[test]
fn ds_condxchg32_wrap() {
    let mut ran = 0;
    for t in &TARGETS {
        let lines = vec!["ds_condxchg32_rtn_b64 v[4:5], v1, v[2:3] offset:8".to_string()];
        if let Some(w) = words(t, &lines) {
            let mut r = regs(t);
            for l in 0..64 {
                r.v[1][l] = 16 * l as u32;
            }
            let mut lds = fill_lds(A::Xor, 4, 5);
            let orig = lds.clone();
            let before = r.clone();
            run_words_mem(t.gen, &w, &mut r, &mut lds, &mut []).expect("condxchg32");
            let mut want = orig.clone();
            for l in (0..t.lanes()).filter(|&l| active(t, l)) {
                for k in 0..2 {
                    let a = 16 * l + 8 + 4 * k;
                    let d = before.v[2 + k][l];
                    // Dword k is replaced by data dword k without bit 31 when its bit 31 is set.
                    if d >> 31 != 0 {
                        wr(&mut want, a, u64::from(d & 0x7fff_ffff), 4);
                    }
                    assert_eq!(r.v[4 + k][l], rd32(&orig, a), "{}: condxchg32", t.mcpu);
                }
            }
            assert!(lds == want, "{}: condxchg32: LDS differs", t.mcpu);
            ran += 1;
        }
        let lines = vec!["ds_wrap_rtn_b32 v4, v1, v2, v3 offset:4".to_string()];
        if let Some(w) = words(t, &lines) {
            let mut r = regs(t);
            for l in 0..64 {
                r.v[1][l] = 16 * l as u32;
                r.v[2][l] = (l as u32 % 7) * 100; // the wrap point
                r.v[3][l] = 1000 + l as u32;
            }
            let mut lds = vec![0u8; 65536];
            for l in 0..64 {
                wr(&mut lds, 16 * l + 4, 50 * l as u64, 4);
            }
            let orig = lds.clone();
            let before = r.clone();
            run_words_mem(t.gen, &w, &mut r, &mut lds, &mut []).expect("wrap");
            for l in 0..64 {
                let old = rd32(&orig, 16 * l + 4);
                let (d0, d1) = (before.v[2][l], before.v[3][l]);
                let on = l < t.lanes() && active(t, l);
                let new = if !on {
                    old
                } else if old >= d0 {
                    old - d0
                } else {
                    old + d1
                };
                assert_eq!(rd32(&lds, 16 * l + 4), new, "{}: wrap lane {l}", t.mcpu);
                let ret = if on { old } else { before.v[4][l] };
                assert_eq!(r.v[4][l], ret, "{}: wrap lane {l}", t.mcpu);
            }
            ran += 1;
        }
    }
    assert!(ran >= 2 * 4, "{ran}");
}

/// `ds_cmpst_f32/f64` (and `_rtn`): data0 is the compare value, data1 the new one, compared as
/// floats: −0 matches +0 and NaN matches nothing (a bit compare would do the opposite).
#[test]
fn ds_cmpst_float() {
    let forms = [
        ("ds_cmpst_f32 v1, v2, v3", 4, false),
        ("ds_cmpst_rtn_f32 v4, v1, v2, v3", 4, true),
        ("ds_cmpst_f64 v1, v[2:3], v[6:7]", 8, false),
        ("ds_cmpst_rtn_f64 v[4:5], v1, v[2:3], v[6:7]", 8, true),
    ];
    let cases: [(f64, f64); 4] = [(0.0, -0.0), (f64::NAN, f64::NAN), (1.5, 1.5), (2.0, 3.0)];
    let mut ran = 0;
    let all: Vec<String> = forms.iter().map(|f| f.0.to_string()).collect();
    for t in &TARGETS {
        prefetch(t, &all);
        for &(line, bytes, rtn) in &forms {
            let lines = vec![line.to_string()];
            let Some(w) = words(t, &lines) else { continue };
            let bits = |x: f64| {
                if bytes == 8 {
                    x.to_bits()
                } else {
                    u64::from((x as f32).to_bits())
                }
            };
            let mut r = regs(t);
            let mut lds = vec![0u8; 65536];
            for l in 0..64 {
                let (m, c) = cases[l % 4];
                r.v[1][l] = 8 * l as u32;
                wr(&mut lds, 8 * l, bits(m), bytes);
                let c = bits(c);
                let n = 0x4000_0000_0000_0000 | l as u64; // the new value
                r.v[2][l] = c as u32;
                r.v[3][l] = (c >> 32) as u32;
                let nr = if bytes == 8 { 6 } else { 3 };
                r.v[nr][l] = n as u32;
                r.v[nr + 1][l] = (n >> 32) as u32;
            }
            let orig = lds.clone();
            let before = r.clone();
            run_words_mem(t.gen, &w, &mut r, &mut lds, &mut []).expect(line);
            for l in 0..t.lanes() {
                let old = if bytes == 8 {
                    rd64(&orig, 8 * l)
                } else {
                    u64::from(rd32(&orig, 8 * l))
                };
                let cmp = u64::from(before.v[2][l]) | u64::from(before.v[3][l]) << 32;
                let nr = if bytes == 8 { 6 } else { 3 };
                let data = u64::from(before.v[nr][l]) | u64::from(before.v[nr + 1][l]) << 32;
                let new = if active(t, l) {
                    atomic(A::FCmpSwap, old, data, cmp, bytes)
                } else {
                    old
                };
                let got = if bytes == 8 {
                    rd64(&lds, 8 * l)
                } else {
                    u64::from(rd32(&lds, 8 * l))
                };
                assert_eq!(got, new, "{}: {line} lane {l}", t.mcpu);
                if rtn && active(t, l) {
                    assert_eq!(r.v[4][l], old as u32, "{}: {line} lane {l}", t.mcpu);
                }
            }
            ran += 1;
        }
    }
    assert!(ran >= 4 * 4, "{ran}");
}

/// GWS semaphores on one wave: `ds_gws_init` sets the count, `sema_v` adds one, `sema_br`
/// adds its data, `sema_p` takes one or waits (the wave stops here: nothing else would
/// release it), `sema_release_all` releases waiters without adding to the count.
#[test]
fn ds_gws_semaphores() {
    let mut ran = 0;
    for t in &TARGETS {
        for (ps, release, done) in [(4, false, true), (5, false, false), (1, true, false)] {
            let mut lines = vec!["ds_gws_init v0 gds".to_string()];
            if release {
                lines.push("ds_gws_sema_release_all gds".into());
            } else {
                lines.push("ds_gws_sema_v gds".into());
                lines.push("ds_gws_sema_br v1 gds".into());
            }
            lines.extend((0..ps).map(|_| "ds_gws_sema_p gds".to_string()));
            lines.push("s_mov_b32 s5, 1".into());
            let Some(w) = words(t, &lines) else { continue };
            let mut r = regs(t);
            for l in 0..64 {
                r.v[0][l] = 0; // the initial count (first active lane's)
                r.v[1][l] = 3; // bulk release of 3
            }
            r.s[WaveRegs::M0] = 0;
            run_words_mem(t.gen, &w, &mut r, &mut vec![0; 65536], &mut []).expect("gws");
            assert_eq!(
                r.s[5],
                u32::from(done),
                "{}: {ps} sema_p, release_all {release}",
                t.mcpu
            );
            ran += 1;
        }
    }
    assert!(ran >= 3 * 4, "{ran}");
}

// ---------------------------------------------------------------------------------------
// Scalar memory (GFX9): atomics, scratch, dcache discard.

const SCALAR_ATOMICS: [(&str, A); 13] = [
    ("swap", A::Swap),
    ("cmpswap", A::CmpSwap),
    ("add", A::Add),
    ("sub", A::Sub),
    ("smin", A::SMin),
    ("umin", A::UMin),
    ("smax", A::SMax),
    ("umax", A::UMax),
    ("and", A::And),
    ("or", A::Or),
    ("xor", A::Xor),
    ("inc", A::Inc),
    ("dec", A::Dec),
];

/// A scalar atomic's two lines: immediate offset 0x18, and the SGPR offset s12 (= 0x20).
fn scalar_atomic_lines(op: &str, a: A, x2: bool, buffer: bool, glc: bool) -> [String; 2] {
    let bytes = if x2 { 8 } else { 4 };
    let regs_n = (bytes / 4) * if a == A::CmpSwap { 2 } else { 1 };
    let sdata = if regs_n == 1 {
        "s4".to_string()
    } else {
        format!("s[4:{}]", 3 + regs_n)
    };
    let name = format!(
        "s_{}atomic_{op}{}",
        if buffer { "buffer_" } else { "" },
        if x2 { "_x2" } else { "" }
    );
    let base = if buffer { "s[8:11]" } else { "s[2:3]" };
    [
        format!(
            "{name} {sdata}, {base}, 0x18{}",
            if glc { " glc" } else { "" }
        ),
        format!("{name} {sdata}, {base}, s12"),
    ]
}

#[test]
fn scalar_atomics() {
    let mut ran = 0;
    for t in &TARGETS {
        let mut all = Vec::new();
        for &(op, a) in SCALAR_ATOMICS.iter() {
            for x2 in [false, true] {
                for buffer in [false, true] {
                    for glc in [true, false] {
                        all.extend(scalar_atomic_lines(op, a, x2, buffer, glc));
                    }
                }
            }
        }
        prefetch(t, &all);
        for (k, &(op, a)) in SCALAR_ATOMICS.iter().enumerate() {
            for x2 in [false, true] {
                for buffer in [false, true] {
                    for glc in [true, false] {
                        let bytes = if x2 { 8 } else { 4 };
                        let [line, line_soff] = scalar_atomic_lines(op, a, x2, buffer, glc);
                        let lines = vec![line.clone()];
                        let Some(w) = words(t, &lines) else { continue };
                        let w2 = words(t, std::slice::from_ref(&line_soff));
                        for (w, off, l) in [(Some(w), 0x18, &line), (w2, 0x20, &line_soff)] {
                            let Some(w) = w else { continue };
                            let mut store = Vec::new();
                            let global = aligned(&mut store, 256);
                            for q in 0..32 {
                                let v = if matches!(a, A::Inc | A::Dec) {
                                    q % 4
                                } else {
                                    mix(q + 77 * k as u64)
                                };
                                wr(global, 8 * q as usize, v, 8);
                            }
                            let addr = global.as_ptr() as u64;
                            let mut r = regs(t);
                            r.s[2] = addr as u32;
                            r.s[3] = (addr >> 32) as u32;
                            // V#: base (48 bits) then stride 4 in bits 61:48, which the
                            // address must not include.
                            r.s[8] = addr as u32;
                            r.s[9] = (addr >> 32) as u32 | 4 << 16;
                            r.s[10] = 256;
                            r.s[11] = 0;
                            r.s[12] = 0x20;
                            for (q, s) in r.s[4..8].iter_mut().enumerate() {
                                *s = if matches!(a, A::Inc | A::Dec) {
                                    2
                                } else {
                                    mix(500 + q as u64) as u32
                                };
                            }
                            // cmpswap: make the compare value match the memory in one case.
                            if a == A::CmpSwap && off == 0x18 {
                                let m = rd64(global, off);
                                if x2 {
                                    r.s[6] = m as u32;
                                    r.s[7] = (m >> 32) as u32;
                                } else {
                                    r.s[5] = m as u32;
                                }
                            }
                            let before = r.clone();
                            let sread = |k: usize| -> u64 {
                                if x2 {
                                    u64::from(before.s[k]) | u64::from(before.s[k + 1]) << 32
                                } else {
                                    u64::from(before.s[k])
                                }
                            };
                            let old = if x2 {
                                rd64(global, off)
                            } else {
                                u64::from(rd32(global, off))
                            };
                            let cmp = if a == A::CmpSwap {
                                sread(4 + bytes / 4)
                            } else {
                                0
                            };
                            let new = atomic(a, old, sread(4), cmp, bytes);
                            let mut want = global.to_vec();
                            wr(&mut want, off, new, bytes);
                            run_words_mem(t.gen, &w, &mut r, &mut vec![0; 65536], global)
                                .unwrap_or_else(|e| panic!("{}: {l}: {e:?}", t.mcpu));
                            assert!(*global == want, "{}: {l}: memory", t.mcpu);
                            let glc = l.ends_with("glc");
                            let ret = if glc { old } else { sread(4) };
                            assert_eq!(r.s[4], ret as u32, "{}: {l}: sdata", t.mcpu);
                            if x2 {
                                assert_eq!(r.s[5], (ret >> 32) as u32, "{}: {l}: sdata", t.mcpu);
                            }
                            ran += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(ran >= 13 * 2 * 2 * 2 * 3, "{ran}");
}

#[test]
fn scalar_scratch_and_discard() {
    let mut ran = 0;
    for t in &TARGETS {
        // Store s[4:7] at base + 0x10, then load the dwordx2 at base + (s6 & ~3) * 64 and the
        // dword at base + 0x14 (the immediate offset is not scaled).
        let lines = [
            "s_scratch_store_dwordx4 s[4:7], s[2:3], 0x10",
            "s_scratch_load_dwordx2 s[8:9], s[2:3], s12",
            "s_scratch_load_dword s10, s[2:3], 0x14",
            "s_scratch_store_dword s4, s[2:3], s13",
            "s_scratch_store_dwordx2 s[4:5], s[2:3], 0x8",
            "s_scratch_load_dwordx4 s[16:19], s[2:3], 0x0",
            "s_dcache_discard s[2:3], 0x0",
            "s_dcache_discard_x2 s[2:3], 0x40",
        ]
        .map(String::from);
        let Some(w) = words(t, &lines) else { continue };
        let mut store = Vec::new();
        let global = aligned(&mut store, 1024);
        for q in 0..256 {
            wr(global, 4 * q, mix(q as u64), 4);
        }
        let addr = global.as_ptr() as u64;
        let mut r = regs(t);
        r.s[2] = addr as u32;
        r.s[3] = (addr >> 32) as u32;
        r.s[4..8].copy_from_slice(&[11, 22, 33, 44]);
        r.s[12] = 0x6; // (6 & ~3) * 64 = 256
        r.s[13] = 0x8; // 512
        let mut want = global.to_vec();
        for (k, v) in [11u64, 22, 33, 44].into_iter().enumerate() {
            wr(&mut want, 0x10 + 4 * k, v, 4);
        }
        let (l0, l1) = (rd32(&want, 256), rd32(&want, 260));
        let l2 = rd32(&want, 0x14);
        wr(&mut want, 512, 11, 4);
        wr(&mut want, 8, 11, 4);
        wr(&mut want, 12, 22, 4);
        let l3: Vec<u32> = (0..4).map(|k| rd32(&want, 4 * k)).collect();
        run_words_mem(t.gen, &w, &mut r, &mut vec![0; 65536], global)
            .unwrap_or_else(|e| panic!("{}: {e:?}", t.mcpu));
        assert!(*global == want, "{}: memory", t.mcpu);
        assert_eq!(&r.s[8..11], &[l0, l1, l2], "{}", t.mcpu);
        assert_eq!(r.s[16..20].to_vec(), l3, "{}", t.mcpu);
        ran += 1;
    }
    assert!(ran >= 3, "{ran}");
}

// ---------------------------------------------------------------------------------------
// Float atomics of GFX10 (FLAT/GLOBAL/MUBUF fcmpswap, fmin, fmax, f32 and f64).

#[test]
fn float_atomics() {
    let ops = [
        ("fcmpswap", A::FCmpSwap),
        ("fmin", A::FMin),
        ("fmax", A::FMax),
    ];
    const SEGS: [&str; 3] = ["global", "flat", "buffer"];
    let line = |op: &str, a: A, x2: bool, seg: &str| {
        let dr = if x2 { 2 } else { 1 };
        let data_n = dr * if a == A::FCmpSwap { 2 } else { 1 };
        let reg = |b: usize, n: usize| {
            if n == 1 {
                format!("v{b}")
            } else {
                format!("v[{b}:{}]", b + n - 1)
            }
        };
        let name = format!("{seg}_atomic_{op}{}", if x2 { "_x2" } else { "" });
        match seg {
            "global" => format!("{name} {}, v1, {}, s[2:3] glc", reg(10, dr), reg(4, data_n)),
            "flat" => format!("{name} {}, v[2:3], {} glc", reg(10, dr), reg(4, data_n)),
            _ => format!("{name} {}, v1, s[8:11], 0 offen glc", reg(4, data_n)),
        }
    };
    let all: Vec<String> = ops
        .iter()
        .flat_map(|&(op, a)| [false, true].map(|x2| SEGS.map(|seg| line(op, a, x2, seg))))
        .flatten()
        .collect();
    let mut ran = 0;
    for t in &TARGETS {
        prefetch(t, &all);
        for &(op, a) in &ops {
            for x2 in [false, true] {
                for seg in SEGS {
                    let bytes = if x2 { 8 } else { 4 };
                    let dr = bytes / 4;
                    let line = line(op, a, x2, seg);
                    let Some(w) = words(t, std::slice::from_ref(&line)) else {
                        continue;
                    };
                    let mut store = Vec::new();
                    let global = aligned(&mut store, 64 * 8);
                    let addr = global.as_ptr() as u64;
                    let mut r = regs(t);
                    r.s[2] = addr as u32;
                    r.s[3] = (addr >> 32) as u32;
                    r.s[8] = addr as u32;
                    r.s[9] = (addr >> 32) as u32;
                    r.s[10] = global.len() as u32;
                    r.s[11] = 0x3100_0000; // GFX10: OOB_SELECT 3 (raw), format 32
                    let fb = |x: f64| {
                        if x2 {
                            x.to_bits()
                        } else {
                            u64::from((x as f32).to_bits())
                        }
                    };
                    for l in 0..64 {
                        r.v[1][l] = (8 * l) as u32;
                        let p = addr + 8 * l as u64;
                        r.v[2][l] = p as u32;
                        r.v[3][l] = (p >> 32) as u32;
                        let m = float_bits(l as u64, bytes);
                        let d = float_bits(1000 + l as u64, bytes);
                        wr(global, 8 * l, m, bytes);
                        // fcmpswap: lanes ≡ 1 (mod 4) compare equal; lanes ≡ 2 compare +0
                        // with −0 in memory (equal as floats); lanes ≡ 3 compare NaN with
                        // NaN (never equal).
                        let c = match l % 4 {
                            1 => m,
                            2 => {
                                wr(global, 8 * l, fb(-0.0), bytes);
                                fb(0.0)
                            }
                            3 => {
                                wr(global, 8 * l, fb(f64::NAN), bytes);
                                fb(f64::NAN)
                            }
                            _ => d,
                        };
                        let (d, c) = if a == A::FCmpSwap { (d, c) } else { (d, 0) };
                        r.v[4][l] = d as u32;
                        if x2 {
                            r.v[5][l] = (d >> 32) as u32;
                        }
                        if a == A::FCmpSwap {
                            r.v[4 + dr][l] = c as u32;
                            if x2 {
                                r.v[5 + dr][l] = (c >> 32) as u32;
                            }
                        }
                    }
                    if a != A::FCmpSwap {
                        // No NaN/signed-zero operands for min/max (see `atomic`).
                        for l in 0..64 {
                            wr(global, 8 * l, float_bits(l as u64, bytes), bytes);
                        }
                    }
                    let orig = global.to_vec();
                    let before = r.clone();
                    run_words_mem(t.gen, &w, &mut r, &mut vec![0; 65536], global)
                        .unwrap_or_else(|e| panic!("{}: {line}: {e:?}", t.mcpu));
                    let rd = |m: &[u8], l: usize| {
                        if x2 {
                            rd64(m, 8 * l)
                        } else {
                            u64::from(rd32(m, 8 * l))
                        }
                    };
                    let vr = |v: usize, l: usize| {
                        u64::from(before.v[v][l])
                            | if x2 {
                                u64::from(before.v[v + 1][l]) << 32
                            } else {
                                0
                            }
                    };
                    let ret_reg = if seg == "buffer" { 4 } else { 10 };
                    for l in 0..t.lanes() {
                        let old = rd(&orig, l);
                        let on = active(t, l);
                        let cmp = if a == A::FCmpSwap { vr(4 + dr, l) } else { 0 };
                        let new = if on {
                            atomic(a, old, vr(4, l), cmp, bytes)
                        } else {
                            old
                        };
                        assert_eq!(rd(global, l), new, "{}: {line} lane {l}", t.mcpu);
                        let ret = if on { old } else { vr(ret_reg, l) };
                        let got = u64::from(r.v[ret_reg][l])
                            | if x2 {
                                u64::from(r.v[ret_reg + 1][l]) << 32
                            } else {
                                0
                            };
                        assert_eq!(got, ret, "{}: {line} lane {l}: returned", t.mcpu);
                    }
                    ran += 1;
                }
            }
        }
    }
    assert!(ran >= 3 * 2 * 3 * 2, "{ran}");
}

/// A typed-buffer check: the target, the buffer after the run, the registers before and after.
type Check<'a> = dyn Fn(&Target, &[u8], &WaveRegs, &WaveRegs) + 'a;

// ---------------------------------------------------------------------------------------
// Typed buffer accesses: tbuffer_* (format in the instruction) and the d16 format forms.

/// Runs one typed-buffer line on every target where it assembles (`fmt9`/`fmt10`: the GFX8/9
/// and GFX10 spellings of its format, `None` for a `buffer_*_format` line whose format is the
/// V#'s `word3`: GFX9 bits, GFX10 unified format); `setup` fills the 1 KiB buffer and VGPRs
/// (v1: the lane's byte offset, 4 * lane unless `setup` changes it), `check` compares.
/// Returns the targets it ran on.
fn typed(
    line: &str,
    fmt9: Option<&str>,
    fmt10: Option<&str>,
    word3: (u32, u32),
    setup: &dyn Fn(&mut [u8], &mut WaveRegs),
    check: &Check<'_>,
) -> usize {
    typed_on(line, fmt9, fmt10, word3, setup, check, None)
}

/// The targets [`typed_on`] runs `line` on and the line it assembles for each.
fn typed_lines(
    line: &str,
    fmt9: Option<&str>,
    fmt10: Option<&str>,
    gfx8: Option<bool>,
) -> Vec<(&'static Target, String)> {
    // GFX10 `buffer_*_format_d16_*` do not decode (see `typed_buffer_components`).
    let skip10 = line.starts_with("buffer_") && line.contains("_d16_") && fmt9.is_none();
    TARGETS
        .iter()
        .filter(|t| gfx8.is_none_or(|g| g == t.gfx8()) && !(skip10 && t.gfx10()))
        .map(|t| {
            let fmt = if t.gfx10() { fmt10 } else { fmt9 };
            // Two 16-bit components take two registers on GFX8 (unpacked D16), one elsewhere.
            let line = line.replace("D16XY", if t.gfx8() { "v[4:5]" } else { "v4" });
            let line = match fmt {
                Some(f) => format!("{line} format:[{f}] offen"),
                None => format!("{line} offen"),
            };
            (t, line)
        })
        .collect()
}

/// [`prefetch`]es each target's lines of `lines`: one llvm-mc run per target.
fn prefetch_each(lines: &[(&Target, String)]) {
    for t in &TARGETS {
        let mine: Vec<String> = lines
            .iter()
            .filter(|(u, _)| std::ptr::eq(*u, t))
            .map(|(_, l)| l.clone())
            .collect();
        prefetch(t, &mine);
    }
}

/// A wave's registers for a typed buffer access to `global` (1 KiB): the V# in s[8:11], its
/// word 1 ORed with `word1_hi` and its word 3 `word3`; v1 the lane's byte offset, 4 * lane.
fn buffer_regs(t: &Target, global: &[u8], word1_hi: u32, word3: u32) -> WaveRegs {
    let addr = global.as_ptr() as u64;
    let mut r = regs(t);
    r.s[8] = addr as u32;
    r.s[9] = (addr >> 32) as u32 | word1_hi;
    r.s[10] = 1024;
    r.s[11] = word3;
    for l in 0..64 {
        r.v[1][l] = (4 * l) as u32; // 4 bytes per lane
    }
    r
}

/// [`typed`] on the GFX8 targets only (`Some(true)`), the others only (`Some(false)`) or all.
fn typed_on(
    line: &str,
    fmt9: Option<&str>,
    fmt10: Option<&str>,
    word3: (u32, u32),
    setup: &dyn Fn(&mut [u8], &mut WaveRegs),
    check: &Check<'_>,
    gfx8: Option<bool>,
) -> usize {
    let mut ran = 0;
    for (t, line) in typed_lines(line, fmt9, fmt10, gfx8) {
        let Some(w) = words(t, std::slice::from_ref(&line)) else {
            continue;
        };
        let mut store = Vec::new();
        let global = aligned(&mut store, 1024);
        // Destination selects X, Y, Z, W; GFX10 also OOB_SELECT 3 (raw) and RESOURCE_LEVEL.
        let word3 = 0xfac
            | if t.gfx10() {
                0x3100_0000 | word3.1 << 12
            } else {
                word3.0
            };
        let mut r = buffer_regs(t, global, 0, word3);
        setup(global, &mut r);
        let before = r.clone();
        run_words_mem(t.gen, &w, &mut r, &mut vec![0; 65536], global)
            .unwrap_or_else(|e| panic!("{}: {line}: {e:?}", t.mcpu));
        check(t, global, &before, &r);
        ran += 1;
    }
    ran
}

#[test]
fn typed_buffer() {
    // Each access's line and formats (GFX9, GFX10), all assembled first.
    let unorm = (
        "tbuffer_load_format_xyzw v[4:7], v1, s[8:11], 0",
        Some("BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UNORM"),
        Some("BUF_FMT_8_8_8_8_UNORM"),
    );
    let d16xy = (
        "tbuffer_load_format_d16_xy D16XY, v1, s[8:11], 0",
        Some("BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT"),
        Some("BUF_FMT_16_16_FLOAT"),
    );
    let stores = [
        (
            "tbuffer_store_format_x v4, v1, s[8:11], 0",
            "BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_UINT",
            "BUF_FMT_32_UINT",
            4,
        ),
        (
            "tbuffer_store_format_d16_x v4, v1, s[8:11], 0",
            "BUF_DATA_FORMAT_16,BUF_NUM_FORMAT_SINT",
            "BUF_FMT_16_SINT",
            2,
        ),
    ];
    let hi_store = (
        "buffer_store_format_d16_hi_x v4, v1, s[8:11], 0",
        None,
        None,
    );
    let hi_load = ("buffer_load_format_d16_hi_x v4, v1, s[8:11], 0", None, None);
    let mut lines = Vec::new();
    for (line, f9, f10) in [unorm, d16xy, hi_store, hi_load]
        .into_iter()
        .chain(stores.map(|(l, f9, f10, _)| (l, Some(f9), Some(f10))))
    {
        lines.extend(typed_lines(line, f9, f10, None));
    }
    prefetch_each(&lines);
    // tbuffer_load_format_xyzw of 8_8_8_8 UNORM: component b reads b / 255.
    let ran = typed(
        unorm.0,
        unorm.1,
        unorm.2,
        (0, 0),
        &|g, _| {
            for (k, b) in g.iter_mut().enumerate() {
                *b = [0u8, 255, 51, 128][k % 4].wrapping_add((k / 4 % 3) as u8);
            }
        },
        &|t, g, before, r| {
            for l in 0..t.lanes() {
                for c in 0..4 {
                    let want = if active(t, l) {
                        (f32::from(g[4 * l + c]) / 255.0).to_bits()
                    } else {
                        before.v[4 + c][l]
                    };
                    assert_eq!(r.v[4 + c][l], want, "{}: unorm lane {l} c{c}", t.mcpu);
                }
            }
        },
    );
    assert!(ran >= 5, "{ran}");
    // tbuffer_load_format_d16_xy of 16_16 FLOAT: the halves come back unchanged, packed
    // (X low, Y high) or, on GFX8 (unpacked D16), one per register.
    let halves = [0x3e00u16, 0x8000, 0x0001, 0x7c00, 0xc500, 0x03ff];
    let ran = typed(
        d16xy.0,
        d16xy.1,
        d16xy.2,
        (0, 0),
        &|g, _| {
            for k in 0..128 {
                wr(g, 2 * k, u64::from(halves[k % halves.len()]), 2);
            }
        },
        &|t, g, before, r| {
            for l in (0..t.lanes()).filter(|&l| active(t, l)) {
                let (x, y) = (
                    u32::from(g[4 * l]) | u32::from(g[4 * l + 1]) << 8,
                    rd32(g, 4 * l) >> 16,
                );
                if t.gfx8() {
                    assert_eq!((r.v[4][l], r.v[5][l]), (x, y), "{}: d16 lane {l}", t.mcpu);
                } else {
                    assert_eq!(r.v[4][l], x | y << 16, "{}: d16 lane {l}", t.mcpu);
                    assert_eq!(r.v[5][l], before.v[5][l], "{}: d16 lane {l}", t.mcpu);
                }
            }
        },
    );
    assert!(ran >= 5, "{ran}");
    // tbuffer_store_format_x of 32 UINT: the dword as is; tbuffer_store_format_d16_x of 16
    // SINT: the register's low half.
    for (line, f9, f10, bytes) in stores {
        let ran = typed(
            line,
            Some(f9),
            Some(f10),
            (0, 0),
            &|_, _| {},
            &|t, g, before, _| {
                for l in 0..t.lanes() {
                    let want = if active(t, l) {
                        before.v[4][l] & (u32::MAX >> (32 - 8 * bytes))
                    } else {
                        0
                    };
                    let got = if bytes == 4 {
                        rd32(g, 4 * l)
                    } else {
                        rd32(g, 4 * l) & 0xffff
                    };
                    assert_eq!(got, want, "{}: {line} lane {l}", t.mcpu);
                }
            },
        );
        assert!(ran >= 5, "{line}: {ran}");
    }
    // buffer_{load,store}_format_d16_hi_x (GFX9), format 16 FLOAT from the V#: the high half
    // of the register goes to memory; a load fills the high half and keeps the low one.
    let w3 = (2 << 15 | 7 << 12, 13);
    // (Halves that are not NaN: a NaN's payload need not survive the conversion.)
    let hi = |_: &mut [u8], r: &mut WaveRegs| {
        for l in 0..64 {
            r.v[4][l] = u32::from(halves[l % halves.len()]) << 16 | l as u32;
        }
    };
    let ran = typed(
        hi_store.0,
        hi_store.1,
        hi_store.2,
        w3,
        &hi,
        &|t, g, before, _| {
            for l in (0..t.lanes()).filter(|&l| active(t, l)) {
                assert_eq!(
                    rd32(g, 4 * l) & 0xffff,
                    before.v[4][l] >> 16,
                    "{}: d16_hi store lane {l}",
                    t.mcpu
                );
            }
        },
    );
    assert!(ran >= 3, "{ran}");
    let ran = typed(
        hi_load.0,
        hi_load.1,
        hi_load.2,
        w3,
        &|g, _| {
            for k in 0..128 {
                wr(g, 2 * k, u64::from(halves[k % halves.len()]), 2);
            }
        },
        &|t, g, before, r| {
            for l in (0..t.lanes()).filter(|&l| active(t, l)) {
                let h = rd32(g, 4 * l) & 0xffff;
                assert_eq!(
                    r.v[4][l],
                    h << 16 | (before.v[4][l] & 0xffff),
                    "{}: d16_hi load lane {l}",
                    t.mcpu
                );
            }
        },
    );
    assert!(ran >= 3, "{ran}");
}

/// A typed buffer access the emulator does not model faults as unimplemented and says why:
/// GFX8/9's swizzled V# (word 1 bit 31, SWIZZLE_ENABLE) and a V# whose format has no
/// conversion (data format 0 is BUF_DATA_FORMAT_INVALID). What a fuzzed kernel met: the
/// report named the mnemonic alone.
#[test]
fn unmodelled_typed_buffers_say_why() {
    let line = "buffer_load_format_x v4, v1, s[8:11], 0 offen".to_string();
    let mut ran = 0;
    for t in TARGETS.iter().filter(|t| !t.gfx10()) {
        let Some(w) = words(t, std::slice::from_ref(&line)) else {
            continue;
        };
        // (word 1's high bits, word 3, what the report must say)
        let cases = [
            (1u32 << 31, 0xfac | 4 << 15 | 4 << 12, "swizzled buffer"),
            (0, 0xfac, "data format 0, number format 0"),
        ];
        for (hi, word3, why) in cases {
            let mut store = Vec::new();
            let global = aligned(&mut store, 1024);
            let mut r = buffer_regs(t, global, hi, word3);
            let got = run_words_mem(t.gen, &w, &mut r, &mut vec![0; 65536], global);
            assert!(
                matches!(&got, Err(hsaemu_emu::FaultKind::Unimplemented { mnemonic })
                    if mnemonic.starts_with("buffer_load_format_x") && mnemonic.contains(why)),
                "{}: {why}: {got:?}",
                t.mcpu
            );
        }
        ran += 1;
    }
    assert!(ran >= 3, "ran on {ran} targets");
}

/// Every component count of the typed accesses, stored then loaded with UINT formats of as
/// many components (16-bit ones for d16): memory holds the registers' values (d16: their
/// halves, packed two per register, or one per register on GFX8), and the load returns them.
#[test]
fn typed_buffer_components() {
    const N9: [&str; 4] = ["32", "32_32", "32_32_32", "32_32_32_32"];
    const D9: [&str; 4] = ["16", "16_16", "16_16_16_16", "16_16_16_16"];
    const N10: [u32; 4] = [20, 62, 72, 75];
    const D10: [u32; 4] = [11, 27, 69, 69];
    const D9BITS: [u32; 4] = [2, 5, 12, 12];
    const KINDS: [(&str, bool); 3] = [("tbuffer", false), ("tbuffer", true), ("buffer", true)];
    // Registers: n, or ceil(n/2) packed halves (n on GFX8: D16XY marks those).
    let regs_line = |k: usize, prefix: &str, d16: bool, store: bool| {
        let n = k + 1;
        let op = if store { "store" } else { "load" };
        let sfx = if d16 { "d16_" } else { "" };
        let dst = if d16 {
            format!("D16R{n}")
        } else if n == 1 {
            "v4".into()
        } else {
            format!("v[4:{}]", 3 + n)
        };
        let c = ["x", "xy", "xyz", "xyzw"][k];
        format!("{prefix}_{op}_format_{sfx}{c} {dst}, v1, s[8:11], 0")
    };
    let formats = |k: usize, prefix: &str, d16: bool| {
        if prefix == "buffer" {
            (None, None)
        } else if d16 {
            (
                Some(format!("BUF_DATA_FORMAT_{},BUF_NUM_FORMAT_UINT", D9[k])),
                Some(format!("BUF_FMT_{}_UINT", D9[k])),
            )
        } else {
            (
                Some(format!("BUF_DATA_FORMAT_{},BUF_NUM_FORMAT_UINT", N9[k])),
                Some(format!("BUF_FMT_{}_UINT", N9[k])),
            )
        }
    };
    // GFX10's `buffer_*_format_d16` store that must not decode (below).
    let gfx10 = TARGETS.iter().find(|t| t.gfx10()).expect("gfx10");
    let gfx10_line = |k: usize| {
        let n = k + 1;
        let line = regs_line(k, "buffer", true, true)
            .replace(&format!("D16R{n}"), "v[4:5]")
            .replace("v[4:5]", if n <= 2 { "v4" } else { "v[4:5]" });
        format!("{line} offen")
    };
    // Every line below, one llvm-mc run per target.
    let mut lines: Vec<(&Target, String)> = Vec::new();
    for k in 0..4 {
        lines.push((gfx10, gfx10_line(k)));
        for (prefix, d16) in KINDS {
            let (f9, f10) = formats(k, prefix, d16);
            for store in [true, false] {
                for (gfx8, l) in typed_n_variants(&regs_line(k, prefix, d16, store), k + 1) {
                    lines.extend(typed_lines(&l, f9.as_deref(), f10.as_deref(), Some(gfx8)));
                }
            }
        }
    }
    prefetch_each(&lines);
    for k in 0..4 {
        let n = k + 1;
        for (prefix, d16) in KINDS {
            let regs_line = |store: bool| regs_line(k, prefix, d16, store);
            let (f9, f10) = formats(k, prefix, d16);
            let w3 = (D9BITS[k] << 15 | 4 << 12, if d16 { D10[k] } else { N10[k] });
            let setup = |_: &mut [u8], r: &mut WaveRegs| {
                for l in 0..64 {
                    r.v[1][l] = (16 * l) as u32;
                }
            };
            if prefix == "buffer" {
                // GFX10 encodes these opcodes (0x80–0x87) with opcode bit 7 in bit 25, and
                // isa's GFX10 table has no such rows: they must not decode (they once decoded
                // as `buffer_*_format_x`).
                let t = gfx10;
                let line = gfx10_line(k);
                let w = words(t, std::slice::from_ref(&line)).expect("llvm-mc assembles it");
                let e = run_words_mem(t.gen, &w, &mut regs(t), &mut vec![0; 65536], &mut []);
                assert!(
                    matches!(e, Err(hsaemu_emu::FaultKind::IllegalInstruction { .. })),
                    "{line}: {e:?}"
                );
            }
            for store in [true, false] {
                let line = regs_line(store);
                let ran = typed_n(
                    &line,
                    f9.as_deref(),
                    f10.as_deref(),
                    w3,
                    n,
                    &setup,
                    &|t, g, before, r| {
                        let unpacked = t.gfx8();
                        for l in (0..t.lanes()).filter(|&l| active(t, l)) {
                            for comp in 0..n {
                                let (reg, sh) = if !d16 || unpacked {
                                    (comp, 0)
                                } else {
                                    (comp / 2, 16 * (comp % 2))
                                };
                                let src = if store { before } else { r };
                                let v = src.v[4 + reg][l] >> sh;
                                let (m, mask) = if d16 {
                                    (rd32(g, 16 * l + 2 * comp) & 0xffff, 0xffff)
                                } else {
                                    (rd32(g, 16 * l + 4 * comp), u32::MAX)
                                };
                                assert_eq!(v & mask, m, "{}: {line} lane {l} c{comp}", t.mcpu);
                            }
                        }
                    },
                );
                assert!(ran >= 1, "{line}: no target");
            }
        }
    }
}

/// [`typed`] with `D16R{n}` in `line` standing for the registers of n 16-bit components.
#[allow(clippy::too_many_arguments)]
fn typed_n(
    line: &str,
    fmt9: Option<&str>,
    fmt10: Option<&str>,
    word3: (u32, u32),
    n: usize,
    setup: &dyn Fn(&mut [u8], &mut WaveRegs),
    check: &Check<'_>,
) -> usize {
    let mut ran = 0;
    for (gfx8, l) in typed_n_variants(line, n) {
        ran += typed_on(&l, fmt9, fmt10, word3, setup, check, Some(gfx8));
    }
    ran
}

/// The lines [`typed_n`] gives [`typed_on`]: for GFX8 (`true`) and for the others.
fn typed_n_variants(line: &str, n: usize) -> [(bool, String); 2] {
    let packed = n.div_ceil(2);
    let r = |k: usize| {
        if k == 1 {
            "v4".to_string()
        } else {
            format!("v[4:{}]", 3 + k)
        }
    };
    // GFX8 spells the unpacked registers; typed() replaces D16XY per target.
    let line = line.replace(&format!("D16R{n}"), &format!("D16XY{n}"));
    [true, false].map(|gfx8| {
        (
            gfx8,
            line.replace(&format!("D16XY{n}"), &if gfx8 { r(n) } else { r(packed) }),
        )
    })
}

/// GFX10 `global_{load,store}_dword_addtid`: lane l at SADDR + offset + 4l.
#[test]
fn global_addtid() {
    let mut ran = 0;
    for t in &TARGETS {
        let lines = [
            "global_store_dword_addtid v3, s[2:3] offset:16",
            "global_load_dword_addtid v4, s[2:3] offset:20",
        ]
        .map(String::from);
        let Some(w) = words(t, &lines) else { continue };
        let mut store = Vec::new();
        let global = aligned(&mut store, 512);
        for q in 0..128 {
            wr(global, 4 * q, mix(q as u64), 4);
        }
        let addr = global.as_ptr() as u64;
        let mut r = regs(t);
        r.s[2] = addr as u32;
        r.s[3] = (addr >> 32) as u32;
        let mut want = global.to_vec();
        let before = r.clone();
        for l in (0..t.lanes()).filter(|&l| active(t, l)) {
            wr(&mut want, 16 + 4 * l, u64::from(before.v[3][l]), 4);
        }
        run_words_mem(t.gen, &w, &mut r, &mut vec![0; 65536], global)
            .unwrap_or_else(|e| panic!("{}: {e:?}", t.mcpu));
        assert!(*global == want, "{}: memory", t.mcpu);
        for l in 0..64 {
            let v = if l < t.lanes() && active(t, l) {
                rd32(&want, 20 + 4 * l)
            } else {
                before.v[4][l]
            };
            assert_eq!(r.v[4][l], v, "{}: lane {l}", t.mcpu);
        }
        ran += 1;
    }
    assert!(ran >= 2, "{ran}");
}

/// Every opcode the tests above cover (each assembles on at least one target; the tests
/// count the lines they ran).
pub(crate) fn mnemonics() -> Vec<String> {
    let mut v: Vec<String> = SRC2.iter().map(|s| s.0.to_string()).collect();
    v.extend(
        [
            "ds_append",
            "ds_consume",
            "ds_read_addtid_b32",
            "ds_write_addtid_b32",
            "ds_wrxchg2_rtn_b32",
            "ds_wrxchg2st64_rtn_b32",
            "ds_wrxchg2_rtn_b64",
            "ds_wrxchg2st64_rtn_b64",
            "ds_condxchg32_rtn_b64",
            "ds_wrap_rtn_b32",
            "ds_cmpst_f32",
            "ds_cmpst_rtn_f32",
            "ds_cmpst_f64",
            "ds_cmpst_rtn_f64",
            "ds_gws_init",
            "ds_gws_sema_v",
            "ds_gws_sema_br",
            "ds_gws_sema_p",
            "ds_gws_sema_release_all",
            "s_scratch_store_dwordx4",
            "s_scratch_load_dwordx2",
            "s_scratch_load_dword",
            "s_scratch_store_dword",
            "s_scratch_store_dwordx2",
            "s_scratch_load_dwordx4",
            "s_dcache_discard",
            "s_dcache_discard_x2",
            "global_load_dword_addtid",
            "global_store_dword_addtid",
            "tbuffer_load_format_xyzw",
            "tbuffer_load_format_d16_xy",
            "tbuffer_store_format_x",
            "tbuffer_store_format_d16_x",
            "buffer_store_format_d16_hi_x",
            "buffer_load_format_d16_hi_x",
        ]
        .map(String::from),
    );
    for (op, _) in SCALAR_ATOMICS {
        for b in ["", "buffer_"] {
            for x in ["", "_x2"] {
                v.push(format!("s_{b}atomic_{op}{x}"));
            }
        }
    }
    for c in ["x", "xy", "xyz", "xyzw"] {
        for p in ["tbuffer_load_format_", "tbuffer_store_format_"] {
            v.push(format!("{p}{c}"));
            v.push(format!("{p}d16_{c}"));
        }
        v.push(format!("buffer_load_format_d16_{c}"));
        v.push(format!("buffer_store_format_d16_{c}"));
    }
    for op in ["fcmpswap", "fmin", "fmax"] {
        for seg in ["global", "flat", "buffer"] {
            for x in ["", "_x2"] {
                v.push(format!("{seg}_atomic_{op}{x}"));
            }
        }
    }
    v
}
