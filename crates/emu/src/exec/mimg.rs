//! MIMG semantics (GFX8, GFX9, GFX10.3): image loads and stores, image atomics, the sample and gather4
//! families and `image_get_resinfo`, over linear images described by a T# (and an S# for
//! sampling). The texel arithmetic (formats, addressing, filter weights) is in `crate::image`;
//! this module reads the registers, computes addresses and touches memory, lane by lane.
//!
//! Address VGPRs, in the order the ISA manuals give: [offset] [bias] [z-compare]
//! [derivatives] coordinates [lod | clamp | mip]. The number of coordinates comes from the
//! T#'s type. Images have one mip level here (the runtime never builds more), so LOD only
//! chooses between the magnification and minification filters and `image_load_mip` /
//! `image_store_mip` with a level past the last read 0 and drop the store.

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
/// Address modifiers (bits 8 and up of [`describe`]): the opcode's `_mip`, `_c`, `_b`, …
const MIP: u32 = 1 << 8;
const C: u32 = 1 << 9;
const B: u32 = 1 << 10;
const L: u32 = 1 << 11;
const LZ: u32 = 1 << 12;
const D: u32 = 1 << 13;
const CL: u32 = 1 << 14;
const O: u32 = 1 << 15;

/// The kind and address modifiers of an image operation (the join `ops::op_of` gives every
/// opcode with a handler here its `Op`; the others are on `tools/missing.txt`: `image_get_lod`,
/// the `_pck` forms, `image_sample_cd*`).
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
        Op::IMAGE_GET_RESINFO => RESINFO,
        Op::IMAGE_LOAD => LOAD,
        Op::IMAGE_LOAD_MIP => LOAD | MIP,
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
        Op::IMAGE_SAMPLE_C_D => SAMPLE | C | D,
        Op::IMAGE_SAMPLE_C_D_CL => SAMPLE | C | D | CL,
        Op::IMAGE_SAMPLE_C_D_CL_O => SAMPLE | C | D | CL | O,
        Op::IMAGE_SAMPLE_C_D_O => SAMPLE | C | D | O,
        Op::IMAGE_SAMPLE_C_L => SAMPLE | C | L,
        Op::IMAGE_SAMPLE_C_L_O => SAMPLE | C | L | O,
        Op::IMAGE_SAMPLE_C_LZ => SAMPLE | C | LZ,
        Op::IMAGE_SAMPLE_C_LZ_O => SAMPLE | C | LZ | O,
        Op::IMAGE_SAMPLE_C_O => SAMPLE | C | O,
        Op::IMAGE_SAMPLE_CL => SAMPLE | CL,
        Op::IMAGE_SAMPLE_CL_O => SAMPLE | CL | O,
        Op::IMAGE_SAMPLE_D => SAMPLE | D,
        Op::IMAGE_SAMPLE_D_CL => SAMPLE | D | CL,
        Op::IMAGE_SAMPLE_D_CL_O => SAMPLE | D | CL | O,
        Op::IMAGE_SAMPLE_D_O => SAMPLE | D | O,
        Op::IMAGE_SAMPLE_L => SAMPLE | L,
        Op::IMAGE_SAMPLE_L_O => SAMPLE | L | O,
        Op::IMAGE_SAMPLE_LZ => SAMPLE | LZ,
        Op::IMAGE_SAMPLE_LZ_O => SAMPLE | LZ | O,
        Op::IMAGE_SAMPLE_O => SAMPLE | O,
        Op::IMAGE_STORE => STORE,
        Op::IMAGE_STORE_MIP => STORE | MIP,
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
        | Op::IMAGE_ATOMIC_DEC => ATOMIC,
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
        _ => Atom::Swap,
    }
}

fn layout(i: &Inst) -> Layout {
    if i.gen == crate::decode::Gen::Gfx8 {
        Layout::Gfx8
    } else if i.gen.is_gfx10() {
        Layout::Gfx10
    } else {
        Layout::Gfx9
    }
}

/// The VGPR of address `k`: consecutive from `src[0]`, or with GFX10 NSA the `k`-th entry of
/// the address list (the first in `src[0]`, the next eight bytes in `lit` and `ext`).
fn address_vgpr(i: &Inst, k: u16) -> u16 {
    if k == 0 || i.imm >> 8 & 3 == 0 {
        return i.src[0] + k;
    }
    let list = u64::from(i.lit) | u64::from(i.ext) << 32;
    let v = (list >> (8 * u32::from(k - 1).min(7))) as u8;
    crate::wave::VGPR + u16::from(v)
}

/// Executes an image instruction.
pub(crate) fn mimg(w: &mut Wave, i: &Inst, env: &mut Env) -> R {
    let d = describe(i.op);
    let kind = d & 0xf;
    // a16 addresses, GFX11 and NSA lists past eight registers are not implemented.
    if kind == 0 || i.has(flag::A16) || i.gen.is_gfx11() || i.imm >> 8 & 3 == 3 {
        return Err(unimplemented(i));
    }
    let mut t = [0u32; 8];
    for (k, v) in t.iter_mut().enumerate() {
        *v = w.sread(i.src[2] + k as u16, 0, Ty::B32);
    }
    let res = Resource::from_words(layout(i), &t);
    if kind != RESINFO && (res.tiling != 0 || !res.format.supported()) {
        return Err(LaneFault::new(
            FaultKind::Unimplemented {
                mnemonic: format!(
                    "{} on an image with data format {}, number format {}, tiling {}",
                    i.name(),
                    res.format.data,
                    res.format.num,
                    res.tiling
                ),
            },
            None,
        ));
    }
    let samp = if matches!(kind, SAMPLE | GATHER4) {
        let mut s = [0u32; 4];
        for (k, v) in s.iter_mut().enumerate() {
            *v = w.sread(i.sdst + k as u16, 0, Ty::B32);
        }
        Some(Sampler::from_words(&s))
    } else {
        None
    };
    let exec = w.exec();
    w.lane_ops += u64::from(exec.count_ones());
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let addr = |k: u16| w.lane(address_vgpr(i, k), l);
        match kind {
            LOAD => {
                let v = match load_coords(&res, d, &addr) {
                    Some(c) => match res.texel_address(c) {
                        Some(a) => res.swizzle(res.format.decode(read(env, a, &res, l)?)),
                        None => [0; 4],
                    },
                    None => [0; 4],
                };
                put(w, i, d, l, &v, !res.format.is_int());
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
                if let Some(a) = load_coords(&res, d, &addr).and_then(|c| res.texel_address(c)) {
                    write(env, a, &res, res.format.encode(res.unswizzle(v)), l)?;
                }
                w.stored = true;
            }
            ATOMIC => {
                let data = w.lane(i.src[1], l);
                let cmp = w.lane(i.src[1] + 1, l);
                let old = match load_coords(&res, d, &addr).and_then(|c| res.texel_address(c)) {
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
                let levels = u32::from(res.last_level.saturating_sub(res.base_level)) + 1;
                let e = res.extent();
                let m = |v: u32| (v >> mip.min(31)).max(1);
                let v = match res.kind {
                    image::img_type::D1 => [m(e[0]), 0, 0, levels],
                    image::img_type::D1_ARRAY => [m(e[0]), e[1], 0, levels],
                    image::img_type::D2 => [m(e[0]), m(e[1]), 0, levels],
                    image::img_type::D3 => [m(e[0]), m(e[1]), m(e[2]), levels],
                    _ => [m(e[0]), m(e[1]), e[2], levels],
                };
                put(w, i, d, l, &v, false);
            }
            _ => {
                let samp = samp.unwrap_or_else(|| Sampler::from_words(&[0; 4]));
                let v = sample(env, i, d, &res, &samp, &addr, l)?;
                put(w, i, d, l, &v, !res.format.is_int());
            }
        }
    }
    Ok(Flow::Next)
}

/// The integer texel coordinates of a load, store or atomic (x, y, z/layer), or `None` when a
/// mip level past the image's only level is addressed.
fn load_coords(res: &Resource, d: u32, addr: &impl Fn(u16) -> u32) -> Option<[u32; 3]> {
    let n = res.coords();
    let mut c = [0u32; 3];
    for (k, v) in c.iter_mut().enumerate().take(n) {
        *v = addr(k as u16);
    }
    if d & MIP != 0 && addr(n as u16) != 0 {
        return None;
    }
    // A 1D array's layer is its second coordinate, which `texel_address` reads as y.
    Some(c)
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

fn mem_fault(address: u64, write: bool, size: u32, lane: usize) -> LaneFault {
    LaneFault::new(
        FaultKind::MemoryViolation {
            address,
            write,
            size,
        },
        Some(lane as u32),
    )
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

/// A 32-bit image atomic at `a`; returns the old value.
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
    Ok(host::rmw32(a, |old| match op {
        // cmpswap: data is the new value, the next register the compared one.
        Atom::CmpSwap => {
            if old == cmp {
                data
            } else {
                old
            }
        }
        Atom::Add => old.wrapping_add(data),
        Atom::Sub => old.wrapping_sub(data),
        Atom::SMin => (old as i32).min(data as i32) as u32,
        Atom::UMin => old.min(data),
        Atom::SMax => (old as i32).max(data as i32) as u32,
        Atom::UMax => old.max(data),
        Atom::And => old & data,
        Atom::Or => old | data,
        Atom::Xor => old ^ data,
        Atom::Inc => {
            if old >= data {
                0
            } else {
                old + 1
            }
        }
        Atom::Dec => {
            if old == 0 || old > data {
                data
            } else {
                old - 1
            }
        }
        _ => data,
    }))
}

/// The sample and gather4 families for one lane.
fn sample(
    env: &mut Env,
    i: &Inst,
    d: u32,
    res: &Resource,
    samp: &Sampler,
    addr: &impl Fn(u16) -> u32,
    l: usize,
) -> Result<[u32; 4], LaneFault> {
    let f = |k: u16| f32::from_bits(addr(k));
    let spatial = res.coords() - usize::from(res.arrayed());
    let mut k = 0u16;
    let offsets = if d & O != 0 {
        k += 1;
        addr(0)
    } else {
        0
    };
    if d & B != 0 {
        k += 1;
    }
    let reference = if d & C != 0 {
        k += 1;
        Some(f(k - 1))
    } else {
        None
    };
    if d & D != 0 {
        // Derivatives pick the LOD, and there is one level.
        k += 2 * spatial as u16;
    }
    let first = k;
    let lod = if d & L != 0 {
        f(first + res.coords() as u16)
    } else {
        0.0
    };
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
    // GFX10 and GFX11 carry the unified format and OOB_SELECT in word 3 (bits 18:12, 29:28).
    let gfx10 = i.gen.is_rdna();
    if !gfx10 && v[1] >> 31 != 0 {
        return Err(unimplemented(i));
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
        image::gfx11_buffer_format((v[3] >> 12 & 0x7f) as u8)
            .unwrap_or(image::Format { data: 0, num: 0 })
    } else if gfx10 {
        image::gfx10_buffer_format((v[3] >> 12 & 0x7f) as u8)
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
        return Err(unimplemented(i));
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
