//! MIMG semantics (GFX8, GFX9, GFX10.3, GFX11, and GFX12's VIMAGE/VSAMPLE lowered to the same
//! form by `decode`): image loads and stores (with format conversion and
//! the raw `_pck` forms), image atomics (integer and float), the sample and gather4 families
//! (`_d`/`_cd` derivatives in 32 or 16 bits), `image_get_lod` and `image_get_resinfo`, over
//! linear images described by a T# (and an S# for sampling). The texel arithmetic (formats,
//! addressing, filter weights, LOD) is in `crate::image`; this module reads the registers,
//! computes addresses and touches memory, lane by lane.
//!
//! Address components, in the order the ISA manuals give: [offset] [bias] [z-compare]
//! [derivatives] coordinates [lod | clamp | mip]. The number of coordinates comes from the
//! T#'s type. With `a16` the derivatives, coordinates and lod/clamp/mip are 16-bit, two per
//! VGPR (bias is an f16 in the low half of its own VGPR; offset and z-compare stay 32-bit);
//! `_g16` opcodes pack only the derivatives. Images have one mip level here (the runtime
//! never builds more): the LOD chooses between the magnification and minification filters,
//! `image_load_mip`/`image_store_mip` with a level past the last read 0 and drop the store,
//! and a level above the base of a T# that describes several levels faults as unimplemented
//! (their memory layout is not modelled) instead of reading the wrong texels.

use super::vmem::mem_fault;
use super::{unimplemented, Env, Flow, LaneFault, R};
use crate::decode::{flag, Atom, Inst};
use crate::error::FaultKind;
use crate::image::{self, Layout, Resource, Sampler, Texel};
use crate::memory::host;
use crate::ops::Op;
use crate::wave::{Ty, Wave, LANES};

/// Operation kinds (bits 0–3 of [`describe`]).
const LOAD: u32 = 1;
const STORE: u32 = 2;
const ATOMIC: u32 = 3;
const SAMPLE: u32 = 4;
const GATHER4: u32 = 5;
const RESINFO: u32 = 6;
const GET_LOD: u32 = 7;
/// Address modifiers (bits 8 and up of [`describe`]): the opcode's `_mip`, `_c`, `_b`, …
/// (`_cd`, coarse derivatives, read like `_d`: the derivatives are the instruction's).
const MIP: u32 = 1 << 8;
const C: u32 = 1 << 9;
const B: u32 = 1 << 10;
const L: u32 = 1 << 11;
const LZ: u32 = 1 << 12;
const D: u32 = 1 << 13;
const CL: u32 = 1 << 14;
const O: u32 = 1 << 15;
/// 16-bit derivatives (`_g16`).
const G16: u32 = 1 << 16;
/// No format conversion (`_pck`): the element's bits, dword by dword.
const PCK: u32 = 1 << 17;
/// `_pck_sgn`: an 8- or 16-bit element is sign-extended.
const SGN: u32 = 1 << 18;

/// The kind and address modifiers of an image operation (the join `ops::op_of` gives every
/// opcode with a handler here its `Op`).
fn describe(op: Op) -> u32 {
    match op {
        Op::IMAGE_GATHER4 => GATHER4,
        Op::IMAGE_GATHER4_B => GATHER4 | B,
        Op::IMAGE_GATHER4_B_CL => GATHER4 | B | CL,
        Op::IMAGE_GATHER4_B_CL_O => GATHER4 | B | CL | O,
        Op::IMAGE_GATHER4_B_O => GATHER4 | B | O,
        Op::IMAGE_GATHER4_C => GATHER4 | C,
        Op::IMAGE_GATHER4_C_B => GATHER4 | C | B,
        Op::IMAGE_GATHER4_C_B_CL => GATHER4 | C | B | CL,
        Op::IMAGE_GATHER4_C_B_CL_O => GATHER4 | C | B | CL | O,
        Op::IMAGE_GATHER4_C_B_O => GATHER4 | C | B | O,
        Op::IMAGE_GATHER4_C_CL => GATHER4 | C | CL,
        Op::IMAGE_GATHER4_C_CL_O => GATHER4 | C | CL | O,
        Op::IMAGE_GATHER4_C_L => GATHER4 | C | L,
        Op::IMAGE_GATHER4_C_L_O => GATHER4 | C | L | O,
        Op::IMAGE_GATHER4_C_LZ => GATHER4 | C | LZ,
        Op::IMAGE_GATHER4_C_LZ_O => GATHER4 | C | LZ | O,
        Op::IMAGE_GATHER4_C_O => GATHER4 | C | O,
        Op::IMAGE_GATHER4_CL => GATHER4 | CL,
        Op::IMAGE_GATHER4_CL_O => GATHER4 | CL | O,
        Op::IMAGE_GATHER4_L => GATHER4 | L,
        Op::IMAGE_GATHER4_L_O => GATHER4 | L | O,
        Op::IMAGE_GATHER4_LZ => GATHER4 | LZ,
        Op::IMAGE_GATHER4_LZ_O => GATHER4 | LZ | O,
        Op::IMAGE_GATHER4_O => GATHER4 | O,
        Op::IMAGE_GET_LOD => GET_LOD,
        Op::IMAGE_GET_RESINFO => RESINFO | MIP,
        Op::IMAGE_LOAD => LOAD,
        Op::IMAGE_LOAD_MIP => LOAD | MIP,
        Op::IMAGE_LOAD_PCK => LOAD | PCK,
        Op::IMAGE_LOAD_PCK_SGN => LOAD | PCK | SGN,
        Op::IMAGE_LOAD_MIP_PCK => LOAD | MIP | PCK,
        Op::IMAGE_LOAD_MIP_PCK_SGN => LOAD | MIP | PCK | SGN,
        Op::IMAGE_SAMPLE => SAMPLE,
        Op::IMAGE_SAMPLE_B => SAMPLE | B,
        Op::IMAGE_SAMPLE_B_CL => SAMPLE | B | CL,
        Op::IMAGE_SAMPLE_B_CL_O => SAMPLE | B | CL | O,
        Op::IMAGE_SAMPLE_B_O => SAMPLE | B | O,
        Op::IMAGE_SAMPLE_C => SAMPLE | C,
        Op::IMAGE_SAMPLE_C_B => SAMPLE | C | B,
        Op::IMAGE_SAMPLE_C_B_CL => SAMPLE | C | B | CL,
        Op::IMAGE_SAMPLE_C_B_CL_O => SAMPLE | C | B | CL | O,
        Op::IMAGE_SAMPLE_C_B_O => SAMPLE | C | B | O,
        Op::IMAGE_SAMPLE_C_CL => SAMPLE | C | CL,
        Op::IMAGE_SAMPLE_C_CL_O => SAMPLE | C | CL | O,
        Op::IMAGE_SAMPLE_C_D | Op::IMAGE_SAMPLE_C_CD => SAMPLE | C | D,
        Op::IMAGE_SAMPLE_C_D_CL | Op::IMAGE_SAMPLE_C_CD_CL => SAMPLE | C | D | CL,
        Op::IMAGE_SAMPLE_C_D_CL_O | Op::IMAGE_SAMPLE_C_CD_CL_O => SAMPLE | C | D | CL | O,
        Op::IMAGE_SAMPLE_C_D_O | Op::IMAGE_SAMPLE_C_CD_O => SAMPLE | C | D | O,
        Op::IMAGE_SAMPLE_C_D_G16 | Op::IMAGE_SAMPLE_C_CD_G16 => SAMPLE | C | D | G16,
        Op::IMAGE_SAMPLE_C_D_CL_G16 | Op::IMAGE_SAMPLE_C_CD_CL_G16 => SAMPLE | C | D | CL | G16,
        Op::IMAGE_SAMPLE_C_D_CL_O_G16 | Op::IMAGE_SAMPLE_C_CD_CL_O_G16 => {
            SAMPLE | C | D | CL | O | G16
        }
        Op::IMAGE_SAMPLE_C_D_O_G16 | Op::IMAGE_SAMPLE_C_CD_O_G16 => SAMPLE | C | D | O | G16,
        Op::IMAGE_SAMPLE_C_L => SAMPLE | C | L,
        Op::IMAGE_SAMPLE_C_L_O => SAMPLE | C | L | O,
        Op::IMAGE_SAMPLE_C_LZ => SAMPLE | C | LZ,
        Op::IMAGE_SAMPLE_C_LZ_O => SAMPLE | C | LZ | O,
        Op::IMAGE_SAMPLE_C_O => SAMPLE | C | O,
        Op::IMAGE_SAMPLE_CL => SAMPLE | CL,
        Op::IMAGE_SAMPLE_CL_O => SAMPLE | CL | O,
        Op::IMAGE_SAMPLE_D | Op::IMAGE_SAMPLE_CD => SAMPLE | D,
        Op::IMAGE_SAMPLE_D_CL | Op::IMAGE_SAMPLE_CD_CL => SAMPLE | D | CL,
        Op::IMAGE_SAMPLE_D_CL_O | Op::IMAGE_SAMPLE_CD_CL_O => SAMPLE | D | CL | O,
        Op::IMAGE_SAMPLE_D_O | Op::IMAGE_SAMPLE_CD_O => SAMPLE | D | O,
        Op::IMAGE_SAMPLE_D_G16 | Op::IMAGE_SAMPLE_CD_G16 => SAMPLE | D | G16,
        Op::IMAGE_SAMPLE_D_CL_G16 | Op::IMAGE_SAMPLE_CD_CL_G16 => SAMPLE | D | CL | G16,
        Op::IMAGE_SAMPLE_D_CL_O_G16 | Op::IMAGE_SAMPLE_CD_CL_O_G16 => SAMPLE | D | CL | O | G16,
        Op::IMAGE_SAMPLE_D_O_G16 | Op::IMAGE_SAMPLE_CD_O_G16 => SAMPLE | D | O | G16,
        Op::IMAGE_SAMPLE_L => SAMPLE | L,
        Op::IMAGE_SAMPLE_L_O => SAMPLE | L | O,
        Op::IMAGE_SAMPLE_LZ => SAMPLE | LZ,
        Op::IMAGE_SAMPLE_LZ_O => SAMPLE | LZ | O,
        Op::IMAGE_SAMPLE_O => SAMPLE | O,
        Op::IMAGE_STORE => STORE,
        Op::IMAGE_STORE_MIP => STORE | MIP,
        Op::IMAGE_STORE_PCK => STORE | PCK,
        Op::IMAGE_STORE_MIP_PCK => STORE | MIP | PCK,
        Op::IMAGE_ATOMIC_SWAP
        | Op::IMAGE_ATOMIC_CMPSWAP
        | Op::IMAGE_ATOMIC_ADD
        | Op::IMAGE_ATOMIC_SUB
        | Op::IMAGE_ATOMIC_SMIN
        | Op::IMAGE_ATOMIC_UMIN
        | Op::IMAGE_ATOMIC_SMAX
        | Op::IMAGE_ATOMIC_UMAX
        | Op::IMAGE_ATOMIC_AND
        | Op::IMAGE_ATOMIC_OR
        | Op::IMAGE_ATOMIC_XOR
        | Op::IMAGE_ATOMIC_INC
        | Op::IMAGE_ATOMIC_DEC
        | Op::IMAGE_ATOMIC_FCMPSWAP
        | Op::IMAGE_ATOMIC_FMIN
        | Op::IMAGE_ATOMIC_FMAX
        | Op::IMAGE_ATOMIC_ADD_UINT
        | Op::IMAGE_ATOMIC_SUB_UINT
        | Op::IMAGE_ATOMIC_MIN_INT
        | Op::IMAGE_ATOMIC_MIN_UINT
        | Op::IMAGE_ATOMIC_MAX_INT
        | Op::IMAGE_ATOMIC_MAX_UINT
        | Op::IMAGE_ATOMIC_INC_UINT
        | Op::IMAGE_ATOMIC_DEC_UINT
        | Op::IMAGE_ATOMIC_ADD_FLT
        | Op::IMAGE_ATOMIC_MIN_FLT
        | Op::IMAGE_ATOMIC_MAX_FLT
        | Op::IMAGE_ATOMIC_PK_ADD_F16
        | Op::IMAGE_ATOMIC_PK_ADD_BF16 => ATOMIC,
        _ => 0,
    }
}

/// The operation of an image atomic.
fn atom(op: Op) -> Atom {
    match op {
        Op::IMAGE_ATOMIC_ADD => Atom::Add,
        Op::IMAGE_ATOMIC_AND => Atom::And,
        Op::IMAGE_ATOMIC_CMPSWAP => Atom::CmpSwap,
        Op::IMAGE_ATOMIC_DEC => Atom::Dec,
        Op::IMAGE_ATOMIC_INC => Atom::Inc,
        Op::IMAGE_ATOMIC_OR => Atom::Or,
        Op::IMAGE_ATOMIC_SMAX => Atom::SMax,
        Op::IMAGE_ATOMIC_SMIN => Atom::SMin,
        Op::IMAGE_ATOMIC_SUB => Atom::Sub,
        Op::IMAGE_ATOMIC_SWAP => Atom::Swap,
        Op::IMAGE_ATOMIC_UMAX => Atom::UMax,
        Op::IMAGE_ATOMIC_UMIN => Atom::UMin,
        Op::IMAGE_ATOMIC_XOR => Atom::Xor,
        Op::IMAGE_ATOMIC_FCMPSWAP => Atom::FCmpSwap,
        Op::IMAGE_ATOMIC_FMIN => Atom::FMin,
        Op::IMAGE_ATOMIC_FMAX => Atom::FMax,
        // GFX12's names (by type instead of signedness prefixes). The float min/max are IEEE
        // 754-2019 minimumNumber/maximumNumber (the RDNA4 ISA's IMAGE_ATOMIC_MIN_FLT text).
        Op::IMAGE_ATOMIC_ADD_UINT => Atom::Add,
        Op::IMAGE_ATOMIC_SUB_UINT => Atom::Sub,
        Op::IMAGE_ATOMIC_MIN_INT => Atom::SMin,
        Op::IMAGE_ATOMIC_MIN_UINT => Atom::UMin,
        Op::IMAGE_ATOMIC_MAX_INT => Atom::SMax,
        Op::IMAGE_ATOMIC_MAX_UINT => Atom::UMax,
        Op::IMAGE_ATOMIC_INC_UINT => Atom::Inc,
        Op::IMAGE_ATOMIC_DEC_UINT => Atom::Dec,
        Op::IMAGE_ATOMIC_ADD_FLT => Atom::FAdd,
        Op::IMAGE_ATOMIC_MIN_FLT => Atom::FMinNum,
        Op::IMAGE_ATOMIC_MAX_FLT => Atom::FMaxNum,
        Op::IMAGE_ATOMIC_PK_ADD_F16 => Atom::PkAddF16,
        Op::IMAGE_ATOMIC_PK_ADD_BF16 => Atom::PkAddBf16,
        _ => Atom::Swap,
    }
}

fn layout(i: &Inst) -> Layout {
    if i.gen == crate::decode::Gen::Gfx8 {
        Layout::Gfx8
    } else if i.gen.is_gfx10() {
        Layout::Gfx10
    } else if i.gen.is_gfx12() {
        Layout::Gfx12
    } else if i.gen.is_gfx11() {
        Layout::Gfx11
    } else {
        Layout::Gfx9
    }
}

/// The VGPR of address dword `k`: consecutive from `src[0]`, or with GFX10 NSA the `k`-th
/// entry of the address list (the first in `src[0]`, the next eight bytes in `lit` and `ext`),
/// or GFX12's separate address operands ([`crate::decode::VIMAGE_ADDRS`]).
fn address_vgpr(i: &Inst, k: u16) -> u16 {
    if i.imm & crate::decode::VIMAGE_ADDRS != 0 {
        // vaddr0 in `src[0]`, vaddr1.. in the bytes of `lit`; the last operand (`ext`: its
        // index) holds the remaining dwords in consecutive VGPRs.
        let f = k.min(i.ext as u16);
        let first = if f == 0 {
            i.src[0]
        } else {
            crate::wave::VGPR + u16::from((i.lit >> (8 * (f - 1))) as u8)
        };
        return first + (k - f);
    }
    if k == 0 || i.imm >> 8 & 3 == 0 {
        return i.src[0] + k;
    }
    let list = u64::from(i.lit) | u64::from(i.ext) << 32;
    let v = (list >> (8 * u32::from(k - 1).min(7))) as u8;
    crate::wave::VGPR + u16::from(v)
}

/// Where an address component sits: its address dword, and which bits (`FULL`, or a 16-bit
/// half with `a16`/`_g16`).
#[derive(Clone, Copy)]
struct Slot {
    dword: u16,
    half: u8,
}

const WHOLE: u8 = 0;
const LO: u8 = 1;
const HI: u8 = 2;

/// The address components of an instruction, in [`describe`]'s order: component `k` of the
/// ISA's list is `at[k]`.
struct Addresses {
    at: [Slot; 16],
    n: usize,
    /// 16-bit halves are f16 (sampling) rather than unsigned integers (loads, stores).
    float: bool,
}

impl Addresses {
    /// The layout of the address VGPRs (LLVM's packing of 16-bit operands, which the ISA's
    /// `A16`/`G16` describe): 16-bit derivatives are packed per direction (x, y in one dword,
    /// z alone), and the coordinates and lod/clamp/mip continue in pairs.
    fn new(d: u32, res: &Resource, a16: bool) -> Addresses {
        let kind = d & 0xf;
        let mut a = Addresses {
            at: [Slot {
                dword: 0,
                half: WHOLE,
            }; 16],
            n: 0,
            float: matches!(kind, SAMPLE | GATHER4 | GET_LOD),
        };
        let push = |a: &mut Addresses, dword: usize, half: u8| {
            if a.n < a.at.len() {
                a.at[a.n] = Slot {
                    dword: dword as u16,
                    half,
                };
                a.n += 1;
            }
        };
        let mut dw = 0usize;
        for f in [O, B, C] {
            if d & f != 0 {
                push(&mut a, dw, if a16 && f == B { LO } else { WHOLE });
                dw += 1;
            }
        }
        if d & D != 0 {
            let spatial = spatial(res);
            if a16 || d & G16 != 0 {
                for _direction in 0..2 {
                    for j in 0..spatial {
                        push(&mut a, dw + j / 2, if j % 2 == 0 { LO } else { HI });
                    }
                    dw += spatial.div_ceil(2);
                }
            } else {
                for _ in 0..2 * spatial {
                    push(&mut a, dw, WHOLE);
                    dw += 1;
                }
            }
        }
        let coords = if kind == RESINFO { 0 } else { res.coords() };
        let trailing = usize::from(d & (L | CL | MIP) != 0);
        for m in 0..coords + trailing {
            if a16 {
                push(&mut a, dw + m / 2, if m % 2 == 0 { LO } else { HI });
            } else {
                push(&mut a, dw + m, WHOLE);
            }
        }
        a
    }

    /// Component `k` of lane `l` as 32 bits (f32 bits for a float, an integer otherwise).
    fn get(&self, w: &Wave, i: &Inst, k: usize, l: usize) -> u32 {
        let Some(s) = self.at.get(k).filter(|_| k < self.n) else {
            return 0;
        };
        let v = w.lane(address_vgpr(i, s.dword), l);
        let h = match s.half {
            WHOLE => return v,
            LO => v & 0xffff,
            _ => v >> 16,
        };
        if self.float {
            half::f16::from_bits(h as u16).to_f32().to_bits()
        } else {
            h
        }
    }
}

/// How many coordinates are spatial (the layer of an array is not).
fn spatial(res: &Resource) -> usize {
    res.coords() - usize::from(res.arrayed())
}

/// An instruction the emulator does not model, named with what makes it so.
fn unmodelled(i: &Inst, what: &str) -> LaneFault {
    LaneFault::new(
        FaultKind::Unimplemented {
            mnemonic: format!("{} {what}", i.name()),
        },
        None,
    )
}

/// How many mip levels a T# describes.
fn levels(res: &Resource) -> u32 {
    u32::from(res.last_level.saturating_sub(res.base_level)) + 1
}

/// Executes an image instruction.
pub(crate) fn mimg(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    let d = describe(i.op);
    let kind = d & 0xf;
    // GFX8's bit 15 is `r128` (a 4-dword T#), not `a16`. NSA lists past eight registers are
    // not implemented.
    let gfx8 = i.gen == crate::decode::Gen::Gfx8;
    if kind == 0 || (gfx8 && i.has(flag::A16)) || i.imm >> 8 & 3 == 3 {
        return Err(unimplemented(i));
    }
    let mut t = [0u32; 8];
    for (k, v) in t.iter_mut().enumerate() {
        *v = w.sread(i.src[2] + k as u16, 0, Ty::B32);
    }
    let res = Resource::from_words(layout(i), &t);
    // `_pck` moves bits without conversion: it needs only a known element size.
    let touches_memory = !matches!(kind, RESINFO | GET_LOD);
    let known = if d & PCK != 0 {
        res.format.layout().is_some()
    } else {
        res.format.supported()
    };
    if touches_memory && (res.tiling != 0 || !known) {
        return Err(unmodelled(
            i,
            &format!(
                "on an image with data format {}, number format {}, tiling {}",
                res.format.data, res.format.num, res.tiling
            ),
        ));
    }
    let samp = if matches!(kind, SAMPLE | GATHER4 | GET_LOD) {
        let mut s = [0u32; 4];
        for (k, v) in s.iter_mut().enumerate() {
            *v = w.sread(i.sdst + k as u16, 0, Ty::B32);
        }
        Sampler::from_layout_words(layout(i), &s)
    } else {
        Sampler::from_words(&[0; 4])
    };
    let addrs = Addresses::new(d, &res, i.has(flag::A16));
    let exec = w.exec();
    w.lane_ops += u64::from(exec.count_ones());
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let addr = |k: u16| addrs.get(w, i, usize::from(k), l);
        match kind {
            LOAD => {
                let v = match load_address(i, &res, d, &addr)? {
                    Some(a) if d & PCK != 0 => packed(read(env, a, &res, l)?, &res, d & SGN != 0),
                    Some(a) => res.swizzle(res.format.decode(read(env, a, &res, l)?)),
                    None => [0; 4],
                };
                put(w, i, d, l, &v, d & PCK == 0 && !res.format.is_int());
            }
            STORE => {
                let mut v = [0u32; 4];
                let mut r = 0;
                for (c, x) in v.iter_mut().enumerate() {
                    if i.imm >> c & 1 != 0 {
                        *x = w.lane(i.src[1] + r, l);
                        r += 1;
                    }
                }
                if let Some(a) = load_address(i, &res, d, &addr)? {
                    let raw = if d & PCK != 0 {
                        v.iter()
                            .enumerate()
                            .fold(0u128, |acc, (c, &x)| acc | u128::from(x) << (32 * c))
                    } else {
                        res.format.encode(res.unswizzle(v))
                    };
                    write(env, a, &res, raw, l)?;
                }
                w.stored = true;
            }
            ATOMIC => {
                let data = w.lane(i.src[1], l);
                let cmp = w.lane(i.src[1] + 1, l);
                let old = match load_address(i, &res, d, &addr)? {
                    Some(a) => atomic(env, a, atom(i.op), data, cmp, l)?,
                    None => 0,
                };
                if i.has(flag::GLC) {
                    w.set_lane(i.dst, l, old);
                }
                w.stored = true;
            }
            RESINFO => {
                let mip = addr(0);
                let e = res.extent();
                let m = |v: u32| (v >> mip.min(31)).max(1);
                let v = match res.kind {
                    image::img_type::D1 => [m(e[0]), 0, 0, levels(&res)],
                    image::img_type::D1_ARRAY => [m(e[0]), e[1], 0, levels(&res)],
                    image::img_type::D2 => [m(e[0]), m(e[1]), 0, levels(&res)],
                    image::img_type::D3 => [m(e[0]), m(e[1]), m(e[2]), levels(&res)],
                    _ => [m(e[0]), m(e[1]), e[2], levels(&res)],
                };
                put(w, i, d, l, &v, false);
            }
            GET_LOD => {
                let coord =
                    |k: u16, lane: usize| f32::from_bits(addrs.get(w, i, usize::from(k), lane));
                let raw = quad_lod(i, &res, &samp, 0, &coord, l);
                let clamped = clamp_lod(raw, &samp, &res);
                put(w, i, d, l, &[clamped.to_bits(), raw.to_bits(), 0, 0], true);
            }
            _ => {
                let coord = |k: u16, lane: usize| addrs.get(w, i, usize::from(k), lane);
                let v = sample(env, i, d, &res, &samp, &coord, l)?;
                put(w, i, d, l, &v, !res.format.is_int());
            }
        }
    }
    Ok(Flow::Next)
}

/// The address of the texel a load, store or atomic touches, or `None` when it is outside
/// the image (coordinates past the size, or a mip level past the last: loads read 0 and
/// stores are dropped). A level above the base of a T# with several levels is unimplemented.
fn load_address(
    i: &Inst,
    res: &Resource,
    d: u32,
    addr: &impl Fn(u16) -> u32,
) -> Result<Option<u64>, LaneFault> {
    let n = res.coords();
    let mut c = [0u32; 3];
    for (k, v) in c.iter_mut().enumerate().take(n) {
        *v = addr(k as u16);
    }
    if d & MIP != 0 {
        let mip = addr(n as u16);
        if mip >= levels(res) {
            return Ok(None);
        }
        if mip != 0 {
            return Err(unmodelled(i, "at a mip level above the base level"));
        }
    }
    // A 1D array's layer is its second coordinate, which `texel_address` reads as y.
    Ok(res.texel_address(c))
}

/// A `_pck` load's result: the element's bits as up to four dwords (low bytes first); an
/// element of one or two bytes is zero-extended, or sign-extended with `_sgn`.
fn packed(raw: u128, res: &Resource, sgn: bool) -> [u32; 4] {
    let bits = 8 * res.format.bytes();
    let mut v: [u32; 4] = std::array::from_fn(|c| (raw >> (32 * c)) as u32);
    if sgn && bits < 32 {
        v[0] = ((v[0] << (32 - bits)) as i32 >> (32 - bits)) as u32;
    }
    v
}

/// The LOD sampling computes from the implicit derivatives of a compute wave: the
/// coordinates' differences across the lane's quad (lanes 4q..4q+3 as a 2×2 block: x from
/// lane 4q to 4q+1, y from 4q to 4q+2), whether those lanes are active or not.
fn quad_lod(
    i: &Inst,
    res: &Resource,
    samp: &Sampler,
    first: u16,
    coord: &impl Fn(u16, usize) -> f32,
    l: usize,
) -> f32 {
    let q = l & !3;
    let mut ddx = [0f32; 3];
    let mut ddy = [0f32; 3];
    for k in 0..spatial(res) {
        let c = first + k as u16;
        ddx[k] = coord(c, q + 1) - coord(c, q);
        ddy[k] = coord(c, q + 2) - coord(c, q);
    }
    scaled_lod(i, res, samp, ddx, ddy)
}

/// [`image::lod`] of derivatives in the instruction's coordinate space (normalized ones are
/// scaled to texels by the image size).
fn scaled_lod(i: &Inst, res: &Resource, samp: &Sampler, ddx: [f32; 3], ddy: [f32; 3]) -> f32 {
    let normalized = !samp.force_unnormalized && !i.has(flag::UNORM);
    let e = res.extent();
    let s =
        |v: [f32; 3]| std::array::from_fn(|k| if normalized { v[k] * e[k] as f32 } else { v[k] });
    image::lod(s(ddx), s(ddy))
}

/// The LOD clamped to the sampler's MIN_LOD..MAX_LOD and to the T#'s levels (relative to the
/// base level), as `image_get_lod` returns it.
fn clamp_lod(lod: f32, samp: &Sampler, res: &Resource) -> f32 {
    let lod = samp.clamp_lod(lod);
    lod.min((levels(res) - 1) as f32).max(0.0)
}

/// Writes the result components `dmask` selects (gather4: all four) to consecutive VGPRs,
/// packed in pairs of 16 bits with `d16` (f16 for `float` results), plus the TFE/LWE status
/// dword (0).
fn put(w: &mut Wave, i: &Inst, d: u32, l: usize, v: &[u32; 4], float: bool) {
    let gather = d & 0xf == GATHER4;
    let mut buf = [0u32; 4];
    let mut n = 0;
    for (c, &x) in v.iter().enumerate() {
        if gather || i.imm >> c & 1 != 0 {
            buf[n] = x;
            n += 1;
        }
    }
    let picked = &buf[..n];
    let mut regs = 0u16;
    if i.has(flag::D16) {
        for pair in picked.chunks(2) {
            let h = |x: u32| {
                if float {
                    u32::from(half::f16::from_f32(f32::from_bits(x)).to_bits())
                } else {
                    x & 0xffff
                }
            };
            let lo = h(pair[0]);
            let hi = pair.get(1).map_or(0, |&x| h(x));
            w.set_lane(i.dst + regs, l, lo | hi << 16);
            regs += 1;
        }
    } else {
        for &x in picked {
            w.set_lane(i.dst + regs, l, x);
            regs += 1;
        }
    }
    if i.has(flag::TFE | flag::LWE) {
        w.set_lane(i.dst + regs, l, 0);
    }
}

/// Reads one element (1–16 bytes) at `a`.
fn read(env: &mut Env, a: u64, res: &Resource, l: usize) -> Result<u128, LaneFault> {
    let n = res.format.bytes();
    if !env.cache.check(env.mem, a, u64::from(n), false) {
        return Err(mem_fault(a, false, n, l));
    }
    let mut v = 0u128;
    let mut off = 0;
    while off < n {
        let k = (n - off).min(8);
        v |= u128::from(host::load(a + u64::from(off), k)) << (8 * off);
        off += k;
    }
    Ok(v)
}

/// Writes one element (1–16 bytes) at `a`.
fn write(env: &mut Env, a: u64, res: &Resource, v: u128, l: usize) -> Result<(), LaneFault> {
    let n = res.format.bytes();
    if !env.cache.check(env.mem, a, u64::from(n), true) {
        return Err(mem_fault(a, true, n, l));
    }
    let mut off = 0;
    while off < n {
        let k = (n - off).min(8);
        host::store(a + u64::from(off), k, (v >> (8 * off)) as u64);
        off += k;
    }
    Ok(())
}

/// A 32-bit image atomic at `a` (the operations of the buffer atomics); returns the old value.
fn atomic(
    env: &mut Env,
    a: u64,
    op: Atom,
    data: u32,
    cmp: u32,
    l: usize,
) -> Result<u32, LaneFault> {
    if !env.cache.check(env.mem, a, 4, true) || !a.is_multiple_of(4) {
        return Err(mem_fault(a, true, 4, l));
    }
    Ok(host::rmw32(a, |old| {
        super::vmem::atom_apply(op, u64::from(old), u64::from(data), u64::from(cmp), 4) as u32
    }))
}

/// The sample and gather4 families for one lane; `coord(k, lane)` is address component `k`
/// of a lane (f32 bits, or the packed offsets).
fn sample(
    env: &mut Env,
    i: &Inst,
    d: u32,
    res: &Resource,
    samp: &Sampler,
    coord: &impl Fn(u16, usize) -> u32,
    l: usize,
) -> Result<[u32; 4], LaneFault> {
    let f = |k: u16| f32::from_bits(coord(k, l));
    let spatial = spatial(res);
    let mut k = 0u16;
    let offsets = if d & O != 0 {
        k += 1;
        coord(0, l)
    } else {
        0
    };
    let bias = if d & B != 0 {
        k += 1;
        f(k - 1)
    } else {
        0.0
    };
    let reference = if d & C != 0 {
        k += 1;
        Some(f(k - 1))
    } else {
        None
    };
    let derivatives = k;
    if d & D != 0 {
        k += 2 * spatial as u16;
    }
    let first = k;
    let last = first + res.coords() as u16;
    let lod = if d & L != 0 {
        f(last)
    } else if d & LZ != 0 {
        0.0
    } else if d & D != 0 {
        // Horizontal derivatives of each spatial coordinate, then vertical ones.
        let g = |dir: usize| -> [f32; 3] {
            std::array::from_fn(|c| {
                if c < spatial {
                    f(derivatives + (dir * spatial + c) as u16)
                } else {
                    0.0
                }
            })
        };
        scaled_lod(i, res, samp, g(0), g(1)) + bias
    } else {
        quad_lod(
            i,
            res,
            samp,
            first,
            &|k, lane| f32::from_bits(coord(k, lane)),
            l,
        ) + bias
    };
    // `_cl`: the instruction's clamp is a lower bound on the LOD (an upper bound on detail).
    let lod = if d & CL != 0 { lod.max(f(last)) } else { lod };
    let lod = samp.clamp_lod(lod);
    if levels(res) > 1 && lod > 0.0 {
        return Err(unmodelled(i, "selecting a mip level above the base level"));
    }
    // Integer formats are never filtered.
    let linear = !res.format.is_int()
        && if lod > 0.0 {
            samp.min_linear
        } else {
            samp.mag_linear
        };
    let gather = d & 0xf == GATHER4;
    let normalized = !samp.force_unnormalized && !i.has(flag::UNORM);
    let e = res.extent();
    let layer = if res.arrayed() {
        let s = f(first + spatial as u16);
        let layers = e[spatial] as f32;
        let s = if s.is_nan() { 0.0 } else { s };
        s.round_ties_even().clamp(0.0, layers - 1.0) as u32
    } else {
        0
    };
    // Per spatial dimension: the two texels and the second one's weight.
    let mut taps = [[Texel::At(0); 2]; 3];
    let mut weight = [0f32; 3];
    for d in 0..spatial {
        let s = f(first + d as u16);
        let size = e[d];
        let u = image::texel_coordinate(s, size, normalized);
        let off = i64::from(((offsets >> (8 * d)) as i32) << 26 >> 26);
        let (i0, a) = if linear || gather {
            image::linear_taps(u)
        } else {
            (u.floor() as i64, 0.0)
        };
        let mode = samp.clamp[d];
        taps[d] = [
            image::address(mode, i0 + off, size),
            image::address(mode, i0 + 1 + off, size),
        ];
        weight[d] = a;
    }
    let fetch = |env: &mut Env, t: [Texel; 3]| -> Result<[u32; 4], LaneFault> {
        let mut c = [0u32; 3];
        for d in 0..3 {
            match t[d] {
                Texel::At(x) => c[d] = x,
                Texel::Border => return Ok(samp.border(res.format)),
            }
        }
        if res.arrayed() {
            c[spatial] = layer;
        }
        let mut v = match res.texel_address(c) {
            Some(a) => res.format.decode(read(env, a, res, l)?),
            None => samp.border(res.format),
        };
        if let Some(r) = reference {
            let pass = image::depth_compare(samp.depth_compare, r, f32::from_bits(v[0]));
            v[0] = if pass { 1f32 } else { 0f32 }.to_bits();
        }
        Ok(v)
    };
    let tap = |d: usize, k: usize| {
        if d < spatial {
            taps[d][k]
        } else {
            Texel::At(0)
        }
    };
    if gather {
        // The bilinear footprint's four texels, in the order (i0,j1) (i1,j1) (i1,j0) (i0,j0),
        // of the one component DMASK selects (after the destination selects).
        let comp = (0..4).find(|c| i.imm >> c & 1 != 0).unwrap_or(0);
        let mut out = [0u32; 4];
        for (o, (a, b)) in out.iter_mut().zip([(0, 1), (1, 1), (1, 0), (0, 0)]) {
            let v = fetch(env, [tap(0, a), tap(1, b), tap(2, 0)])?;
            *o = res.swizzle(v)[comp];
        }
        return Ok(out);
    }
    if !linear {
        let v = fetch(env, [tap(0, 0), tap(1, 0), tap(2, 0)])?;
        return Ok(res.swizzle(v));
    }
    // Linear: lerp along x, then y, then z, in f32.
    let corners = 1usize << spatial;
    let mut vals = [[0f32; 4]; 8];
    for (n, val) in vals.iter_mut().enumerate().take(corners) {
        let t = [tap(0, n & 1), tap(1, n >> 1 & 1), tap(2, n >> 2 & 1)];
        *val = fetch(env, t)?.map(f32::from_bits);
    }
    let lerp = |a: [f32; 4], b: [f32; 4], w: f32| {
        let mut r = [0f32; 4];
        for c in 0..4 {
            r[c] = a[c] * (1.0 - w) + b[c] * w;
        }
        r
    };
    let mut n = corners;
    for &wd in weight.iter().take(spatial) {
        n /= 2;
        for m in 0..n {
            vals[m] = lerp(vals[2 * m], vals[2 * m + 1], wd);
        }
    }
    Ok(res.swizzle(vals[0].map(f32::to_bits)))
}

/// Whether a MUBUF opcode is a typed (format) load or store, which 1DB images (texture
/// buffers: HIP's `tex1Dfetch`, OpenCL's `image1d_buffer_t`) compile to.
pub(crate) fn is_buffer_format(op: Op) -> bool {
    buffer_format_count(op).is_some()
}

/// A typed buffer access: whether it stores, its components, and how each sits in the
/// registers (`D16_*`).
fn buffer_format_count(op: Op) -> Option<(bool, usize, u8)> {
    Some(match op {
        Op::BUFFER_LOAD_FORMAT_X | Op::TBUFFER_LOAD_FORMAT_X => (false, 1, FULL),
        Op::BUFFER_LOAD_FORMAT_XY | Op::TBUFFER_LOAD_FORMAT_XY => (false, 2, FULL),
        Op::BUFFER_LOAD_FORMAT_XYZ | Op::TBUFFER_LOAD_FORMAT_XYZ => (false, 3, FULL),
        Op::BUFFER_LOAD_FORMAT_XYZW | Op::TBUFFER_LOAD_FORMAT_XYZW => (false, 4, FULL),
        Op::BUFFER_STORE_FORMAT_X | Op::TBUFFER_STORE_FORMAT_X => (true, 1, FULL),
        Op::BUFFER_STORE_FORMAT_XY | Op::TBUFFER_STORE_FORMAT_XY => (true, 2, FULL),
        Op::BUFFER_STORE_FORMAT_XYZ | Op::TBUFFER_STORE_FORMAT_XYZ => (true, 3, FULL),
        Op::BUFFER_STORE_FORMAT_XYZW | Op::TBUFFER_STORE_FORMAT_XYZW => (true, 4, FULL),
        Op::BUFFER_LOAD_FORMAT_D16_X | Op::TBUFFER_LOAD_FORMAT_D16_X => (false, 1, D16),
        Op::BUFFER_LOAD_FORMAT_D16_XY | Op::TBUFFER_LOAD_FORMAT_D16_XY => (false, 2, D16),
        Op::BUFFER_LOAD_FORMAT_D16_XYZ | Op::TBUFFER_LOAD_FORMAT_D16_XYZ => (false, 3, D16),
        Op::BUFFER_LOAD_FORMAT_D16_XYZW | Op::TBUFFER_LOAD_FORMAT_D16_XYZW => (false, 4, D16),
        Op::BUFFER_STORE_FORMAT_D16_X | Op::TBUFFER_STORE_FORMAT_D16_X => (true, 1, D16),
        Op::BUFFER_STORE_FORMAT_D16_XY | Op::TBUFFER_STORE_FORMAT_D16_XY => (true, 2, D16),
        Op::BUFFER_STORE_FORMAT_D16_XYZ | Op::TBUFFER_STORE_FORMAT_D16_XYZ => (true, 3, D16),
        Op::BUFFER_STORE_FORMAT_D16_XYZW | Op::TBUFFER_STORE_FORMAT_D16_XYZW => (true, 4, D16),
        Op::BUFFER_LOAD_FORMAT_D16_HI_X => (false, 1, D16_HI),
        Op::BUFFER_STORE_FORMAT_D16_HI_X => (true, 1, D16_HI),
        _ => return None,
    })
}

/// A component per register.
const FULL: u8 = 0;
/// 16-bit components, two per register (X low, Y high); GFX8 ("unpacked D16") puts each in
/// the low half of its own register.
const D16: u8 = 1;
/// One 16-bit component in the high half of the register; the low half is kept.
const D16_HI: u8 = 2;

/// Where component `c` of a d16 access sits: register offset and bit shift.
fn d16_slot(mode: u8, unpacked: bool, c: usize) -> (u16, u32) {
    match mode {
        D16_HI => (0, 16),
        _ if unpacked => (c as u16, 0),
        _ => ((c / 2) as u16, 16 * (c % 2) as u32),
    }
}

/// A decoded component (f32 bits for float, normalized and scaled formats; an integer for
/// UINT/SINT) as 16 bits: f16 rounded to nearest even, or the integer's low half.
fn to_d16(f: image::Format, v: u32) -> u32 {
    match f.num {
        image::num_format::UINT | image::num_format::SINT => v & 0xffff,
        _ => u32::from(half::f16::from_f32(f32::from_bits(v)).to_bits()),
    }
}

/// A 16-bit register half as the component value the format encodes from.
fn from_d16(f: image::Format, h: u32) -> u32 {
    match f.num {
        image::num_format::UINT => h & 0xffff,
        image::num_format::SINT => h as u16 as i16 as i32 as u32,
        _ => half::f16::from_bits(h as u16).to_f32().to_bits(),
    }
}

/// `buffer_{load,store}_format_*` and `tbuffer_*` (with their d16 forms): the element at
/// `base + index * stride + offset` is converted through a data and number format and the
/// V#'s destination selects (word 3), like an image texel. The format is the V#'s for
/// `buffer_*_format_*` and the instruction's for `tbuffer_*` (GFX10's unified formats become
/// GFX9 ones at decode). Unswizzled buffers only (what the runtime builds); an element out of
/// range reads 0 and drops stores (GFX8/9: index or offset against `num_records`; GFX10: the
/// V#'s OOB_SELECT).
pub(crate) fn buffer_format(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    let Some((store, n, d16)) = buffer_format_count(i.op) else {
        return Err(unimplemented(i));
    };
    let r = i.src[2];
    let v: [u32; 4] = std::array::from_fn(|k| w.sread(r + k as u16, 0, Ty::B32));
    let gfx10 = i.gen.is_rdna();
    // GFX10 and GFX11 carry their format in the descriptor (word 3: 7 bits, GFX11 6 bits in
    // its own numbering); GFX8/GFX9's swizzled buffers are not modelled.
    if !gfx10 && v[1] >> 31 != 0 {
        return Err(unmodelled(
            i,
            "on a swizzled buffer (the V#'s SWIZZLE_ENABLE)",
        ));
    }
    let base = u64::from(v[0]) | u64::from(v[1] & 0xffff) << 32;
    let stride = u64::from(v[1] >> 16 & 0x3fff);
    let records = u64::from(v[2]);
    let format = if i.ext & crate::decode::TYPED_FORMAT != 0 {
        image::Format {
            data: (i.ext >> 16) as u8,
            num: (i.ext >> 24 & 0xf) as u8,
        }
    } else if i.gen.is_gfx11() {
        image::Format::from_unified_gfx11((v[3] >> 12 & 0x3f) as u16)
            .unwrap_or(image::Format { data: 0, num: 0 })
    } else if gfx10 {
        image::Format::from_unified((v[3] >> 12 & 0x7f) as u16)
            .unwrap_or(image::Format { data: 0, num: 0 })
    } else {
        image::Format {
            data: (v[3] >> 15 & 0xf) as u8,
            num: (v[3] >> 12 & 7) as u8,
        }
    };
    let res = Resource {
        format,
        dst_sel: std::array::from_fn(|c| (v[3] >> (3 * c) & 7) as u8),
        ..Resource::from_words(Layout::Gfx9, &[0; 8])
    };
    if !res.format.supported() {
        let (d, n) = (res.format.data, res.format.num);
        let why = format!("on a buffer with data format {d}, number format {n}");
        return Err(unmodelled(i, &why));
    }
    let oob_select = if gfx10 {
        v[3] >> 28 & 3
    } else if stride == 0 {
        3
    } else {
        1
    };
    let unpacked = i.gen == hsaemu_isa::Gen::Gfx8;
    let soffset = u64::from(w.sread(i.ext as u16, 0, Ty::B32));
    let (idxen, offen) = (i.has(flag::IDXEN), i.has(flag::OFFEN));
    let exec = w.exec();
    w.lane_ops += u64::from(exec.count_ones());
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let va = u64::from(w.lane(i.src[0], l));
        let vb = u64::from(w.lane(i.src[0] + 1, l));
        let index = if idxen { va } else { 0 };
        let voff = match (offen, idxen) {
            (false, _) => 0,
            (true, true) => vb,
            (true, false) => va,
        };
        let offset = voff + i.imm as u64;
        let in_range = match oob_select {
            0 => index < records && offset < stride,
            1 => index < records,
            2 => true,
            _ => index * stride + offset < records,
        };
        let a = base + soffset + index * stride + offset;
        if store {
            let mut vals = [0u32; 4];
            for (c, x) in vals.iter_mut().enumerate().take(n) {
                *x = if d16 == FULL {
                    w.lane(i.src[1] + c as u16, l)
                } else {
                    let (reg, sh) = d16_slot(d16, unpacked, c);
                    from_d16(res.format, w.lane(i.src[1] + reg, l) >> sh)
                };
            }
            if in_range {
                write(env, a, &res, res.format.encode(res.unswizzle(vals)), l)?;
            }
            w.stored = true;
        } else {
            let vals = if in_range {
                res.swizzle(res.format.decode(read(env, a, &res, l)?))
            } else {
                [0; 4]
            };
            for (c, &x) in vals.iter().enumerate().take(n) {
                if d16 == FULL {
                    w.set_lane(i.dst + c as u16, l, x);
                } else {
                    let (reg, sh) = d16_slot(d16, unpacked, c);
                    let old = w.lane(i.dst + reg, l);
                    let keep = if unpacked && d16 == D16 {
                        0
                    } else {
                        !(0xffff << sh)
                    };
                    w.set_lane(i.dst + reg, l, (old & keep) | to_d16(res.format, x) << sh);
                }
            }
        }
    }
    Ok(Flow::Next)
}
