//! Image and sampler resources as the texture unit reads them, and the texel arithmetic behind
//! the MIMG instructions: the GFX8/GFX9 image resource (T#, 8 dwords) and sampler (S#,
//! 4 dwords) words, the data/number formats and their conversions, sampler addressing and
//! filtering. Pure functions: the memory accesses are in `exec/mimg.rs`, and the runtime
//! builds its descriptors and converts clear colours with the same code.
//!
//! Field positions are those of the GCN3 (GFX8) and Vega (GFX9) ISA manuals' "Image Resource"
//! and "Image Sampler" tables (ROCm's `SQ_IMG_RSRC_WORD*` / `SQ_IMG_SAMP_WORD*`), ROCr's
//! `resource_nv.h`/`resource_gfx11.h` for GFX10.3/GFX11, and for GFX12 (RDNA4) ROCr's
//! `runtime/hsa-runtime/image/resource_gfx12.h` and `image_manager_gfx12.cpp` (ROCR-Runtime
//! c7785a6, 2024-10), cross-checked against Mesa's `ac_descriptors.c` (`S_00A010_DEPTH_GFX12`,
//! `PITCH_MSB_GFX12`, `LAST_LEVEL_GFX12`): see [`Layout::Gfx12`].

use half::f16;

/// `IMG_DATA_FORMAT`: how an element is split into components.
pub mod data_format {
    pub const F8: u8 = 1;
    pub const F16: u8 = 2;
    pub const F8_8: u8 = 3;
    pub const F32: u8 = 4;
    pub const F16_16: u8 = 5;
    pub const F10_10_10_2: u8 = 8;
    pub const F2_10_10_10: u8 = 9;
    pub const F8_8_8_8: u8 = 10;
    pub const F32_32: u8 = 11;
    pub const F16_16_16_16: u8 = 12;
    pub const F32_32_32: u8 = 13;
    pub const F32_32_32_32: u8 = 14;
    pub const F5_6_5: u8 = 16;
    pub const F1_5_5_5: u8 = 17;
    pub const F5_5_5_1: u8 = 18;
}

/// `IMG_NUM_FORMAT`: how a component's bits become a value.
pub mod num_format {
    pub const UNORM: u8 = 0;
    pub const SNORM: u8 = 1;
    pub const USCALED: u8 = 2;
    pub const SSCALED: u8 = 3;
    pub const UINT: u8 = 4;
    pub const SINT: u8 = 5;
    pub const FLOAT: u8 = 7;
    pub const SRGB: u8 = 9;
}

/// `SQ_RSRC_IMG_*`: the resource type in T# word 3.
pub mod img_type {
    pub const D1: u8 = 8;
    pub const D2: u8 = 9;
    pub const D3: u8 = 10;
    pub const CUBE: u8 = 11;
    pub const D1_ARRAY: u8 = 12;
    pub const D2_ARRAY: u8 = 13;
}

/// `SQ_SEL_*`: a destination select of T# word 3.
pub mod sel {
    pub const ZERO: u8 = 0;
    pub const ONE: u8 = 1;
    pub const X: u8 = 4;
    pub const Y: u8 = 5;
    pub const Z: u8 = 6;
    pub const W: u8 = 7;
}

/// `SQ_TEX_CLAMP`: a sampler addressing mode.
pub mod clamp {
    pub const WRAP: u8 = 0;
    pub const MIRROR: u8 = 1;
    pub const CLAMP_LAST_TEXEL: u8 = 2;
    pub const MIRROR_ONCE_LAST_TEXEL: u8 = 3;
    pub const CLAMP_HALF_BORDER: u8 = 4;
    pub const MIRROR_ONCE_HALF_BORDER: u8 = 5;
    pub const CLAMP_BORDER: u8 = 6;
    pub const MIRROR_ONCE_BORDER: u8 = 7;
}

/// GFX10's unified `FORMAT` (T# word 1 and V# word 3 of images and buffers, MTBUF's `format`):
/// consecutive values per data format, one per number format it takes, in `IMG_NUM_FORMAT`
/// order (LLVM's `BUF_FMT_*`/ROCr's `CFMT_*` tables), then the sRGB and packed 16-bit formats
/// from 128 on. The 10_11_11 and 11_11_10 groups (30–43) are not implemented and have no row.
/// The one table for every GFX10 format field.
const UNIFIED: [(u8, u16, &[u8]); 15] = {
    use data_format::*;
    use num_format::*;
    const N6: &[u8] = &[UNORM, SNORM, USCALED, SSCALED, UINT, SINT];
    const N7: &[u8] = &[UNORM, SNORM, USCALED, SSCALED, UINT, SINT, FLOAT];
    const N3: &[u8] = &[UINT, SINT, FLOAT];
    [
        (F8, 1, N6),
        (F16, 7, N7),
        (F8_8, 14, N6),
        (F32, 20, N3),
        (F16_16, 23, N7),
        (F10_10_10_2, 44, N6),
        (F2_10_10_10, 50, N6),
        (F8_8_8_8, 56, N6),
        (F32_32, 62, N3),
        (F16_16_16_16, 65, N7),
        (F32_32_32, 72, N3),
        (F32_32_32_32, 75, N3),
        (F8, 128, &[SRGB]),
        (F8_8, 129, &[SRGB]),
        (F8_8_8_8, 130, &[SRGB]),
    ]
};

/// GFX11's unified `FORMAT` (T# word 1, 8 bits): GFX10's values up to 16_16 (29), then
/// renumbered without the 10_11_11/11_11_10 groups (30–31, not implemented) and without
/// scaled 10_10_10_2 (LLVM's `UfmtGFX11`). No sRGB or packed 16-bit rows: their GFX11 values
/// are not modelled, so such a T# faults as an unsupported format.
const UNIFIED_GFX11: [(u8, u16, &[u8]); 12] = {
    use data_format::*;
    use num_format::*;
    const N6: &[u8] = &[UNORM, SNORM, USCALED, SSCALED, UINT, SINT];
    const N7: &[u8] = &[UNORM, SNORM, USCALED, SSCALED, UINT, SINT, FLOAT];
    const N3: &[u8] = &[UINT, SINT, FLOAT];
    [
        (F8, 1, N6),
        (F16, 7, N7),
        (F8_8, 14, N6),
        (F32, 20, N3),
        (F16_16, 23, N7),
        (F10_10_10_2, 32, &[UNORM, SNORM, UINT, SINT]),
        (F2_10_10_10, 36, N6),
        (F8_8_8_8, 42, N6),
        (F32_32, 48, N3),
        (F16_16_16_16, 51, N7),
        (F32_32_32, 58, N3),
        (F32_32_32_32, 61, N3),
    ]
};

/// The GFX10 packed 16-bit UNORM formats (133–135).
const UNIFIED_PACKED: [(u8, u16); 3] = [
    (data_format::F5_6_5, 133),
    (data_format::F1_5_5_5, 134),
    (data_format::F5_5_5_1, 135),
];

/// An element format: data format and number format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    pub data: u8,
    pub num: u8,
}

impl Format {
    /// Component widths in bits, X first (lowest bits), 0 for an absent component, and the
    /// element size in bytes; `None` for a data format hsaemu does not implement.
    pub fn layout(self) -> Option<([u8; 4], u32)> {
        use data_format::*;
        Some(match self.data {
            F8 => ([8, 0, 0, 0], 1),
            F16 => ([16, 0, 0, 0], 2),
            F8_8 => ([8, 8, 0, 0], 2),
            F32 => ([32, 0, 0, 0], 4),
            F16_16 => ([16, 16, 0, 0], 4),
            // The names list components from the most significant bits down.
            F10_10_10_2 => ([2, 10, 10, 10], 4),
            F2_10_10_10 => ([10, 10, 10, 2], 4),
            F8_8_8_8 => ([8, 8, 8, 8], 4),
            F32_32 => ([32, 32, 0, 0], 8),
            F16_16_16_16 => ([16, 16, 16, 16], 8),
            F32_32_32 => ([32, 32, 32, 0], 12),
            F32_32_32_32 => ([32, 32, 32, 32], 16),
            F5_6_5 => ([5, 6, 5, 0], 2),
            F1_5_5_5 => ([5, 5, 5, 1], 2),
            F5_5_5_1 => ([1, 5, 5, 5], 2),
            _ => return None,
        })
    }

    /// The format of a GFX10 unified `FORMAT` value, or `None` for one hsaemu does not know.
    pub fn from_unified(v: u16) -> Option<Format> {
        for (data, first, nums) in UNIFIED {
            let Some(k) = v.checked_sub(first) else {
                continue;
            };
            if let Some(&num) = nums.get(usize::from(k)) {
                return Some(Format { data, num });
            }
        }
        let (data, _) = UNIFIED_PACKED.into_iter().find(|p| p.1 == v)?;
        Some(Format {
            data,
            num: num_format::UNORM,
        })
    }

    /// A GFX11 unified `FORMAT` value (`None` for one hsaemu does not implement).
    pub fn from_unified_gfx11(v: u16) -> Option<Format> {
        UNIFIED_GFX11.into_iter().find_map(|(data, first, nums)| {
            let num = *nums.get(usize::from(v.checked_sub(first)?))?;
            Some(Format { data, num })
        })
    }

    /// The GFX11 unified `FORMAT` value of this format (the inverse of
    /// [`Format::from_unified_gfx11`]).
    pub fn to_unified_gfx11(self) -> Option<u16> {
        UNIFIED_GFX11.into_iter().find_map(|(data, first, nums)| {
            let k = nums
                .iter()
                .position(|&n| n == self.num && data == self.data)?;
            Some(first + k as u16)
        })
    }

    /// The GFX10 unified `FORMAT` value of this format (the inverse of [`Format::from_unified`]).
    pub fn to_unified(self) -> Option<u16> {
        for (data, first, nums) in UNIFIED {
            if let Some(k) = nums
                .iter()
                .position(|&n| n == self.num && data == self.data)
            {
                return Some(first + k as u16);
            }
        }
        let packed = UNIFIED_PACKED.into_iter().find(|p| p.0 == self.data)?;
        (self.num == num_format::UNORM).then_some(packed.1)
    }

    /// Element size in bytes (0 for an unknown data format).
    pub fn bytes(self) -> u32 {
        self.layout().map_or(0, |l| l.1)
    }

    /// Whether values are integers (UINT/SINT) rather than floats.
    pub fn is_int(self) -> bool {
        matches!(self.num, num_format::UINT | num_format::SINT)
    }

    /// Whether the number format and data format make a combination hsaemu implements.
    pub fn supported(self) -> bool {
        let Some((bits, _)) = self.layout() else {
            return false;
        };
        let widest = bits.iter().copied().max().unwrap_or(0);
        match self.num {
            num_format::FLOAT => bits.iter().all(|&b| b == 0 || b == 16 || b == 32),
            num_format::UNORM | num_format::SNORM | num_format::USCALED | num_format::SSCALED => {
                widest <= 16
            }
            num_format::SRGB => self.data == data_format::F8_8_8_8,
            num_format::UINT | num_format::SINT => true,
            _ => false,
        }
    }

    /// Converts an element's bits (little-endian, in the low `bytes()` bytes) into the four
    /// component values X, Y, Z, W as 32-bit patterns (f32 bits, or integers for UINT/SINT).
    /// Absent components read as 0 (X, Y, Z) and 1 (W).
    pub fn decode(self, raw: u128) -> [u32; 4] {
        let Some((bits, _)) = self.layout() else {
            return [0; 4];
        };
        let one = if self.is_int() { 1 } else { 1f32.to_bits() };
        let mut out = [0, 0, 0, one];
        let mut shift = 0u32;
        for (c, &b) in bits.iter().enumerate() {
            if b == 0 {
                continue;
            }
            let b = u32::from(b);
            let v = ((raw >> shift) as u64 & mask(b)) as u32;
            shift += b;
            out[c] = self.decode_component(v, b, c);
        }
        out
    }

    fn decode_component(self, v: u32, b: u32, c: usize) -> u32 {
        let sext = |v: u32| ((v << (32 - b)) as i32) >> (32 - b);
        match self.num {
            num_format::UNORM => unorm_to_f32(v, b).to_bits(),
            num_format::SRGB if c < 3 => srgb_to_linear(f64::from(v) / mask(b) as f64).to_bits(),
            num_format::SRGB => unorm_to_f32(v, b).to_bits(),
            num_format::SNORM => {
                let max = ((1u32 << (b - 1)) - 1) as f32;
                (sext(v) as f32 / max).max(-1.0).to_bits()
            }
            num_format::USCALED => (v as f32).to_bits(),
            num_format::SSCALED => (sext(v) as f32).to_bits(),
            num_format::UINT => v,
            num_format::SINT => sext(v) as u32,
            num_format::FLOAT if b == 16 => f16::from_bits(v as u16).to_f32().to_bits(),
            _ => v,
        }
    }

    /// Converts four component values (f32 bits, or integers for UINT/SINT) into an element's
    /// bits: floats round to nearest even, normalized and integer values saturate.
    pub fn encode(self, vals: [u32; 4]) -> u128 {
        let Some((bits, _)) = self.layout() else {
            return 0;
        };
        let mut raw = 0u128;
        let mut shift = 0u32;
        for (c, &b) in bits.iter().enumerate() {
            if b == 0 {
                continue;
            }
            let b = u32::from(b);
            let v = u64::from(self.encode_component(vals[c], b)) & mask(b);
            raw |= u128::from(v) << shift;
            shift += b;
        }
        raw
    }

    fn encode_component(self, v: u32, b: u32) -> u32 {
        let f = f32::from_bits(v);
        let umax = mask(b) as u32;
        let smax = (1i64 << (b - 1)) - 1;
        match self.num {
            num_format::UNORM | num_format::SRGB => {
                let f = if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) };
                (f64::from(f) * f64::from(umax)).round_ties_even() as u32
            }
            num_format::SNORM => {
                let f = if f.is_nan() { 0.0 } else { f.clamp(-1.0, 1.0) };
                ((f64::from(f) * smax as f64).round_ties_even() as i64) as u32
            }
            num_format::USCALED => {
                let f = if f.is_nan() { 0.0 } else { f };
                (f64::from(f).round_ties_even().clamp(0.0, f64::from(umax))) as u32
            }
            num_format::SSCALED => {
                let f = if f.is_nan() { 0.0 } else { f };
                (f64::from(f)
                    .round_ties_even()
                    .clamp(-(smax as f64) - 1.0, smax as f64) as i64) as u32
            }
            num_format::UINT => v.min(umax),
            num_format::SINT => (i64::from(v as i32).clamp(-smax - 1, smax)) as u32,
            num_format::FLOAT if b == 16 => u32::from(f16::from_f32(f).to_bits()),
            _ => v,
        }
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `v / (2^bits - 1)`, correctly rounded.
fn unorm_to_f32(v: u32, bits: u32) -> f32 {
    (f64::from(v) / mask(bits) as f64) as f32
}

/// The sRGB transfer function's inverse (IEC 61966-2-1), as OpenCL specifies it for reads,
/// from the exact encoded value, rounded once.
fn srgb_to_linear(c: f64) -> f32 {
    let l = if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    };
    l as f32
}

/// An image resource (T#) as the texture unit reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resource {
    /// Byte address of element (0, 0, 0) of the base level.
    pub base: u64,
    pub format: Format,
    pub width: u32,
    pub height: u32,
    /// Depth of a 3D image, or the last layer + 1 of an array.
    pub depth: u32,
    /// Row pitch in elements.
    pub pitch: u32,
    pub kind: u8,
    pub dst_sel: [u8; 4],
    pub base_level: u8,
    pub last_level: u8,
    pub base_array: u32,
    /// GFX9 `SW_MODE` (0: linear) / GFX8 `TILING_INDEX`.
    pub tiling: u8,
}

/// Which descriptor layout a generation uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// GFX8 (Volcanic Islands).
    Gfx8,
    /// GFX9 (Vega, MI100, MI200).
    Gfx9,
    /// GFX10.3 (RDNA2): one unified `FORMAT`, the width split across words 1 and 2, the
    /// pitch of 1D and 2D images in word 4 (3D images and arrays use the linear pitch the
    /// hardware derives: rows aligned to 256 bytes), `BASE_ARRAY` in word 4.
    Gfx10,
    /// GFX11 (RDNA3, RDNA3.5): GFX10.3's words, but an 8-bit `FORMAT` numbered by
    /// [`Format::from_unified_gfx11`] and no `RESOURCE_LEVEL` (ROCr's `resource_gfx11.h`).
    Gfx11,
    /// GFX12 (RDNA4): GFX11's format numbers and word 0, but word 1 holds `MAX_MIP` (16:12),
    /// `FORMAT` (24:17), `BASE_LEVEL` (29:25) and the width's low 2 bits (31:30); word 2 the
    /// width's high 14 bits (13:0) and a 16-bit `HEIGHT` (29:14); word 3 `LAST_LEVEL` in
    /// 19:15 (`NO_EDGE_CLAMP` at 12); word 4 a 14-bit `DEPTH` with `PITCH_MSB` (15:14) above
    /// it, so that 1D and 2D images carry a 16-bit pitch − 1 there, and `BASE_ARRAY` in 28:16.
    /// The S# moves `MIN_LOD`/`MAX_LOD` to 13 bits each (word 1, 12:0 and 25:13).
    Gfx12,
}

/// The row pitch in elements GFX10 derives for a linear image without a pitch field: the row
/// rounded up to 256 bytes (the pitch ROCr's address library gives such images).
pub fn gfx10_derived_pitch(width: u32, format: Format) -> u32 {
    let bytes = format.bytes().max(1);
    (width * bytes).next_multiple_of(256) / bytes
}

fn bits(w: u32, lo: u32, n: u32) -> u32 {
    (w >> lo) & (mask(n) as u32)
}

impl Resource {
    /// Reads a T#.
    pub fn from_words(layout: Layout, w: &[u32; 8]) -> Resource {
        if layout == Layout::Gfx12 {
            return Resource::from_words_gfx12(w);
        }
        if matches!(layout, Layout::Gfx10 | Layout::Gfx11) {
            return Resource::from_words_gfx10(layout, w);
        }
        let pitch_bits = if layout == Layout::Gfx9 { 16 } else { 14 };
        let kind = bits(w[3], 28, 4) as u8;
        let arrays = matches!(kind, img_type::D1_ARRAY | img_type::D2_ARRAY);
        let depth = if layout == Layout::Gfx8 && arrays {
            bits(w[5], 13, 13) + 1
        } else {
            bits(w[4], 0, 13) + 1
        };
        Resource {
            base: (u64::from(w[0]) | u64::from(w[1] & 0xff) << 32) << 8,
            format: Format {
                data: bits(w[1], 20, 6) as u8,
                num: bits(w[1], 26, 4) as u8,
            },
            width: bits(w[2], 0, 14) + 1,
            height: bits(w[2], 14, 14) + 1,
            depth,
            pitch: bits(w[4], 13, pitch_bits) + 1,
            kind,
            dst_sel: dst_sel_of(w[3]),
            base_level: bits(w[3], 12, 4) as u8,
            last_level: bits(w[3], 16, 4) as u8,
            base_array: bits(w[5], 0, 13),
            tiling: bits(w[3], 20, 5) as u8,
        }
    }

    /// Whether a GFX10 T# of this type has a pitch field (1D and 2D; the others use
    /// [`gfx10_derived_pitch`]).
    fn gfx10_has_pitch(kind: u8) -> bool {
        matches!(kind, img_type::D1 | img_type::D2)
    }

    /// Reads a GFX10.3 T# (ROCr's `resource_nv.h` layout).
    fn from_words_gfx10(layout: Layout, w: &[u32; 8]) -> Resource {
        let kind = bits(w[3], 28, 4) as u8;
        let format = if layout == Layout::Gfx11 {
            Format::from_unified_gfx11(bits(w[1], 20, 8) as u16)
        } else {
            Format::from_unified(bits(w[1], 20, 9) as u16)
        }
        .unwrap_or(Format { data: 0, num: 0 });
        let width = (bits(w[1], 30, 2) | bits(w[2], 0, 12) << 2) + 1;
        let (depth, pitch) = if Resource::gfx10_has_pitch(kind) {
            (1, bits(w[4], 0, 14) + 1)
        } else {
            (bits(w[4], 0, 13) + 1, gfx10_derived_pitch(width, format))
        };
        Resource {
            base: (u64::from(w[0]) | u64::from(w[1] & 0xff) << 32) << 8,
            format,
            width,
            height: bits(w[2], 14, 14) + 1,
            depth,
            pitch,
            kind,
            dst_sel: dst_sel_of(w[3]),
            base_level: bits(w[3], 12, 4) as u8,
            last_level: bits(w[3], 16, 4) as u8,
            base_array: bits(w[4], 16, 13),
            tiling: bits(w[3], 20, 5) as u8,
        }
    }

    /// Writes a GFX10.3 T# (RESOURCE_LEVEL set, as ROCr does) or a GFX11 one; an unknown
    /// format writes 0.
    fn words_gfx10(&self, layout: Layout) -> [u32; 8] {
        let mut w = [0u32; 8];
        let b = self.base >> 8;
        let width = self.width - 1;
        let (format, resource_level) = if layout == Layout::Gfx11 {
            (self.format.to_unified_gfx11(), 0)
        } else {
            (self.format.to_unified(), 1 << 31)
        };
        w[0] = b as u32;
        w[1] = (b >> 32) as u32 & 0xff | u32::from(format.unwrap_or(0)) << 20 | (width & 3) << 30;
        w[2] = (width >> 2) & 0xfff | ((self.height - 1) & 0x3fff) << 14 | resource_level;
        w[3] = self.word3();
        w[4] = if Resource::gfx10_has_pitch(self.kind) {
            (self.pitch - 1) & 0x3fff
        } else {
            (self.depth - 1) & 0x1fff
        } | (self.base_array & 0x1fff) << 16;
        w
    }

    /// Reads a GFX12 T# (see [`Layout::Gfx12`]).
    fn from_words_gfx12(w: &[u32; 8]) -> Resource {
        let kind = bits(w[3], 28, 4) as u8;
        let format = Format::from_unified_gfx11(bits(w[1], 17, 8) as u16)
            .unwrap_or(Format { data: 0, num: 0 });
        let width = (bits(w[1], 30, 2) | bits(w[2], 0, 14) << 2) + 1;
        let (depth, pitch) = if Resource::gfx10_has_pitch(kind) {
            (1, (bits(w[4], 0, 14) | bits(w[4], 14, 2) << 14) + 1)
        } else {
            (bits(w[4], 0, 14) + 1, gfx10_derived_pitch(width, format))
        };
        Resource {
            base: (u64::from(w[0]) | u64::from(w[1] & 0xff) << 32) << 8,
            format,
            width,
            height: bits(w[2], 14, 16) + 1,
            depth,
            pitch,
            kind,
            dst_sel: dst_sel_of(w[3]),
            base_level: bits(w[1], 25, 5) as u8,
            last_level: bits(w[3], 15, 5) as u8,
            base_array: bits(w[4], 16, 14),
            tiling: bits(w[3], 20, 5) as u8,
        }
    }

    /// Writes a GFX12 T# (the fields ROCr's `ImageManagerGfx12` fills; `MAX_MIP` 0).
    fn words_gfx12(&self) -> [u32; 8] {
        let mut w = [0u32; 8];
        let b = self.base >> 8;
        let width = self.width - 1;
        let format = self.format.to_unified_gfx11().unwrap_or(0);
        w[0] = b as u32;
        w[1] = (b >> 32) as u32 & 0xff
            | u32::from(format) << 17
            | u32::from(self.base_level & 0x1f) << 25
            | (width & 3) << 30;
        w[2] = (width >> 2) & 0x3fff | ((self.height - 1) & 0xffff) << 14;
        w[3] = u32::from(self.dst_sel[0])
            | u32::from(self.dst_sel[1]) << 3
            | u32::from(self.dst_sel[2]) << 6
            | u32::from(self.dst_sel[3]) << 9
            | u32::from(self.last_level & 0x1f) << 15
            | u32::from(self.tiling) << 20
            | u32::from(self.kind) << 28;
        w[4] = if Resource::gfx10_has_pitch(self.kind) {
            (self.pitch - 1) & 0xffff
        } else {
            (self.depth - 1) & 0x3fff
        } | (self.base_array & 0x3fff) << 16;
        w
    }

    /// T# word 3 (the same on GFX8, GFX9 and GFX10): destination selects, levels, tiling, type.
    fn word3(&self) -> u32 {
        u32::from(self.dst_sel[0])
            | u32::from(self.dst_sel[1]) << 3
            | u32::from(self.dst_sel[2]) << 6
            | u32::from(self.dst_sel[3]) << 9
            | u32::from(self.base_level) << 12
            | u32::from(self.last_level) << 16
            | u32::from(self.tiling) << 20
            | u32::from(self.kind) << 28
    }

    /// Writes a T# for a linear image (the inverse of [`Resource::from_words`]); `base` must be
    /// 256-byte aligned.
    pub fn to_words(&self, layout: Layout) -> [u32; 8] {
        if layout == Layout::Gfx12 {
            return self.words_gfx12();
        }
        if matches!(layout, Layout::Gfx10 | Layout::Gfx11) {
            return self.words_gfx10(layout);
        }
        let mut w = [0u32; 8];
        let b = self.base >> 8;
        w[0] = b as u32;
        w[1] = (b >> 32) as u32 & 0xff
            | u32::from(self.format.data) << 20
            | u32::from(self.format.num) << 26;
        w[2] = (self.width - 1) & 0x3fff | ((self.height - 1) & 0x3fff) << 14;
        w[3] = self.word3();
        let pitch_mask = if layout == Layout::Gfx9 {
            0xffff
        } else {
            0x3fff
        };
        w[4] = (self.depth - 1) & 0x1fff | ((self.pitch - 1) & pitch_mask) << 13;
        w[5] = self.base_array & 0x1fff;
        if layout == Layout::Gfx8 {
            // GFX8 keeps an array's last layer in word 5 (LAST_ARRAY).
            w[5] |= ((self.depth - 1) & 0x1fff) << 13;
        }
        w
    }

    /// How many coordinates address a texel: x, then y, then z or the layer.
    pub fn coords(&self) -> usize {
        match self.kind {
            img_type::D1 => 1,
            img_type::D2 | img_type::D1_ARRAY => 2,
            _ => 3,
        }
    }

    /// Whether the last coordinate is a layer index.
    pub fn arrayed(&self) -> bool {
        matches!(self.kind, img_type::D1_ARRAY | img_type::D2_ARRAY)
    }

    /// Size in texels along each dimension (x, y, z/layers); unused dimensions are 1.
    pub fn extent(&self) -> [u32; 3] {
        match self.kind {
            img_type::D1 => [self.width, 1, 1],
            img_type::D1_ARRAY => [self.width, self.depth, 1],
            img_type::D2 => [self.width, self.height, 1],
            _ => [self.width, self.height, self.depth],
        }
    }

    /// Byte address of the texel at (x, y, z/layer) of the base level, or `None` outside.
    pub fn texel_address(&self, c: [u32; 3]) -> Option<u64> {
        let e = self.extent();
        if c[0] >= e[0] || c[1] >= e[1] || c[2] >= e[2] {
            return None;
        }
        let bytes = u64::from(self.format.bytes());
        let row = u64::from(self.pitch) * bytes;
        // 1D arrays keep one row per layer.
        let (y, z) = if self.kind == img_type::D1_ARRAY {
            (0, c[1])
        } else {
            (c[1], c[2])
        };
        let slice = row
            * u64::from(if self.kind == img_type::D1_ARRAY {
                1
            } else {
                self.height
            });
        Some(self.base + u64::from(z) * slice + u64::from(y) * row + u64::from(c[0]) * bytes)
    }

    /// Applies the destination selects to decoded components.
    pub fn swizzle(&self, v: [u32; 4]) -> [u32; 4] {
        let one = if self.format.is_int() {
            1
        } else {
            1f32.to_bits()
        };
        self.dst_sel.map(|s| match s {
            sel::X..=sel::W => v[usize::from(s - sel::X)],
            sel::ONE => one,
            _ => 0,
        })
    }

    /// The inverse of [`Resource::swizzle`] for stores: memory component c takes the first
    /// destination channel that selects it (0 when none does).
    pub fn unswizzle(&self, v: [u32; 4]) -> [u32; 4] {
        let mut out = [0u32; 4];
        for (c, o) in out.iter_mut().enumerate() {
            if let Some(ch) = self.dst_sel.iter().position(|&s| s == sel::X + c as u8) {
                *o = v[ch];
            }
        }
        out
    }
}

/// A sampler (S#).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampler {
    pub clamp: [u8; 3],
    pub depth_compare: u8,
    pub force_unnormalized: bool,
    pub mag_linear: bool,
    pub min_linear: bool,
    pub border_color_type: u8,
    pub min_lod: u16,
    pub max_lod: u16,
}

impl Sampler {
    /// Reads an S# (the same on GFX8 and GFX9).
    pub fn from_words(w: &[u32; 4]) -> Sampler {
        Sampler {
            clamp: [
                bits(w[0], 0, 3) as u8,
                bits(w[0], 3, 3) as u8,
                bits(w[0], 6, 3) as u8,
            ],
            depth_compare: bits(w[0], 12, 3) as u8,
            force_unnormalized: bits(w[0], 15, 1) != 0,
            // XY_MAG_FILTER / XY_MIN_FILTER: POINT, BILINEAR, ANISO_POINT, ANISO_BILINEAR.
            mag_linear: bits(w[2], 20, 2) & 1 != 0,
            min_linear: bits(w[2], 22, 2) & 1 != 0,
            border_color_type: bits(w[3], 30, 2) as u8,
            min_lod: bits(w[1], 0, 12) as u16,
            max_lod: bits(w[1], 12, 12) as u16,
        }
    }

    /// Reads an S# of a generation: GFX12's 13-bit `MIN_LOD`/`MAX_LOD` (word 1, 12:0 and
    /// 25:13), the other fields as [`Sampler::from_words`].
    pub fn from_layout_words(layout: Layout, w: &[u32; 4]) -> Sampler {
        let s = Sampler::from_words(w);
        if layout != Layout::Gfx12 {
            return s;
        }
        Sampler {
            min_lod: bits(w[1], 0, 13) as u16,
            max_lod: bits(w[1], 13, 13) as u16,
            ..s
        }
    }

    /// Writes an S# of a generation (the inverse of [`Sampler::from_layout_words`]).
    pub fn to_layout_words(&self, layout: Layout) -> [u32; 4] {
        let mut w = self.to_words();
        if layout == Layout::Gfx12 {
            w[1] = u32::from(self.min_lod) & 0x1fff | (u32::from(self.max_lod) & 0x1fff) << 13;
        }
        w
    }

    /// Writes an S# (the inverse of [`Sampler::from_words`]).
    pub fn to_words(&self) -> [u32; 4] {
        let filter = |l: bool| u32::from(l);
        [
            u32::from(self.clamp[0])
                | u32::from(self.clamp[1]) << 3
                | u32::from(self.clamp[2]) << 6
                | u32::from(self.depth_compare) << 12
                | u32::from(self.force_unnormalized) << 15,
            u32::from(self.min_lod) | u32::from(self.max_lod) << 12,
            filter(self.mag_linear) << 20 | filter(self.min_linear) << 22,
            u32::from(self.border_color_type) << 30,
        ]
    }

    /// The border colour's components X, Y, Z, W (before the destination selects) for an
    /// image of `format`: transparent black, opaque black or opaque white.
    pub fn border(&self, format: Format) -> [u32; 4] {
        let (zero, one) = if format.is_int() {
            (0, 1)
        } else {
            (0, 1f32.to_bits())
        };
        match self.border_color_type {
            1 => [zero, zero, zero, one],
            2 => [one; 4],
            _ => [zero; 4],
        }
    }
}

impl Sampler {
    /// `lod` clamped to MIN_LOD..MAX_LOD (unsigned 4.8 fixed point); NaN becomes MIN_LOD.
    pub fn clamp_lod(&self, lod: f32) -> f32 {
        let fixed = |v: u16| f32::from(v) / 256.0;
        lod.max(fixed(self.min_lod)).min(fixed(self.max_lod))
    }
}

/// The level of detail of a sample from the texel-space derivatives of its coordinates along
/// the two screen directions: log2 of the longer of the two gradients (the scale factor ρ of
/// the OpenGL and Vulkan specifications' LOD computation; −∞ for no change).
pub fn lod(ddx: [f32; 3], ddy: [f32; 3]) -> f32 {
    let len = |v: [f32; 3]| {
        v.iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>()
            .sqrt()
    };
    len(ddx).max(len(ddy)).log2() as f32
}

/// Where a texel coordinate lands after addressing: a texel index, or the border.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Texel {
    At(u32),
    Border,
}

/// Applies addressing mode `mode` to integer texel coordinate `i` in an image `size` wide.
pub fn address(mode: u8, i: i64, size: u32) -> Texel {
    let n = i64::from(size);
    match mode {
        clamp::WRAP => Texel::At(i.rem_euclid(n) as u32),
        clamp::MIRROR => {
            let p = i.rem_euclid(2 * n);
            Texel::At(if p < n { p } else { 2 * n - 1 - p } as u32)
        }
        clamp::CLAMP_LAST_TEXEL => Texel::At(i.clamp(0, n - 1) as u32),
        clamp::MIRROR_ONCE_LAST_TEXEL => {
            let m = if i < 0 { -1 - i } else { i };
            Texel::At(m.clamp(0, n - 1) as u32)
        }
        clamp::MIRROR_ONCE_HALF_BORDER | clamp::MIRROR_ONCE_BORDER => {
            let m = if i < 0 { -1 - i } else { i };
            if m < n {
                Texel::At(m as u32)
            } else {
                Texel::Border
            }
        }
        // CLAMP_HALF_BORDER and CLAMP_BORDER.
        _ => {
            if (0..n).contains(&i) {
                Texel::At(i as u32)
            } else {
                Texel::Border
            }
        }
    }
}

/// Fraction bits of texel-space coordinates: the texture unit converts a sample coordinate to
/// fixed point with 8-bit sub-texel precision (the D3D10+ requirement), which is also the
/// precision of the linear filter's weights.
pub const SUBTEXEL_BITS: u32 = 8;

/// The texel-space coordinate of sample coordinate `s` along a dimension `size` texels long:
/// scaled by the size when normalized, then rounded to the nearest 1/256 of a texel.
pub fn texel_coordinate(s: f32, size: u32, normalized: bool) -> f64 {
    let u = if normalized {
        f64::from(s) * f64::from(size)
    } else {
        f64::from(s)
    };
    let scale = f64::from(1u32 << SUBTEXEL_BITS);
    if u.is_nan() {
        0.0
    } else {
        (u * scale).round() / scale
    }
}

/// The two texels and the weight of the second one for linear filtering at texel-space
/// coordinate `u` (texel centres at i + 0.5).
pub fn linear_taps(u: f64) -> (i64, f32) {
    let t = u - 0.5;
    let i0 = t.floor();
    (i0 as i64, (t - i0) as f32)
}

/// Depth comparison of a sample_c: `ref OP texel` with `SQ_TEX_DEPTH_COMPARE` `func`.
pub fn depth_compare(func: u8, reference: f32, texel: f32) -> bool {
    match func {
        0 => false,
        1 => reference < texel,
        2 => reference == texel,
        3 => reference <= texel,
        4 => reference > texel,
        5 => reference != texel,
        6 => reference >= texel,
        _ => true,
    }
}

/// DST_SEL_X…W (word 3 bits 11:0, three bits each): the same place in every T# layout.
fn dst_sel_of(w3: u32) -> [u8; 4] {
    [0, 3, 6, 9].map(|at| bits(w3, at, 3) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unorm8_round_trips_and_rounds_to_nearest() {
        let f = Format {
            data: data_format::F8_8_8_8,
            num: num_format::UNORM,
        };
        let v = f.decode(0x80ff_0001);
        assert_eq!(f32::from_bits(v[0]), 1.0 / 255.0);
        assert_eq!(f32::from_bits(v[2]), 1.0);
        assert_eq!(f32::from_bits(v[3]), 128.0 / 255.0);
        assert_eq!(f.encode(v), 0x80ff_0001);
        // 0.5 * 255 = 127.5 rounds to even (128); out-of-range values saturate; NaN is 0.
        let e = f.encode([0.5f32, 2.0, -1.0, f32::NAN].map(f32::to_bits));
        assert_eq!(e, 0x0000_ff80);
    }

    #[test]
    fn packed_formats_put_x_in_the_low_bits() {
        let f = Format {
            data: data_format::F5_6_5,
            num: num_format::UNORM,
        };
        // Z = 31 (bits 15:11), Y = 0 (bits 10:5), X = 1 (bits 4:0).
        let v = f.decode(0xf801);
        assert_eq!(f32::from_bits(v[0]), 1.0 / 31.0);
        assert_eq!(f32::from_bits(v[1]), 0.0);
        assert_eq!(f32::from_bits(v[2]), 1.0);
        assert_eq!(f32::from_bits(v[3]), 1.0);
        let f = Format {
            data: data_format::F2_10_10_10,
            num: num_format::UNORM,
        };
        assert_eq!(
            f.encode([1.0f32, 0.0, 1.0, 1.0].map(f32::to_bits)),
            0xfff0_03ff
        );
    }

    #[test]
    fn signed_and_integer_conversions_saturate() {
        let s = Format {
            data: data_format::F8,
            num: num_format::SNORM,
        };
        assert_eq!(f32::from_bits(s.decode(0x80)[0]), -1.0);
        assert_eq!(f32::from_bits(s.decode(0x81)[0]), -1.0);
        assert_eq!(s.encode([(-2.0f32).to_bits(), 0, 0, 0]), 0x81);
        let i = Format {
            data: data_format::F16,
            num: num_format::SINT,
        };
        assert_eq!(i.decode(0xffff)[0], u32::MAX);
        assert_eq!(i.encode([70000, 0, 0, 0]), 0x7fff);
        assert_eq!(i.encode([(-70000i32) as u32, 0, 0, 0]), 0x8000);
        let h = Format {
            data: data_format::F16,
            num: num_format::FLOAT,
        };
        assert_eq!(h.encode([1.5f32.to_bits(), 0, 0, 0]), 0x3e00);
    }

    #[test]
    fn srgb_reads_decode_colour_but_not_alpha() {
        let f = Format {
            data: data_format::F8_8_8_8,
            num: num_format::SRGB,
        };
        let v = f.decode(0x80ff_0080);
        // IEC 61966-2-1: ((c + 0.055) / 1.055)^2.4 above 0.04045; c / 12.92 below.
        let c = 128.0f64 / 255.0;
        assert_eq!(f32::from_bits(v[0]), ((c + 0.055) / 1.055).powf(2.4) as f32);
        assert_eq!(f32::from_bits(v[2]), 1.0);
        assert_eq!(f32::from_bits(v[3]), 128.0 / 255.0);
        let dark = f.decode(0x0000_0005);
        assert_eq!(f32::from_bits(dark[0]), (5.0f64 / 255.0 / 12.92) as f32);
    }

    #[test]
    fn descriptors_round_trip() {
        let r = Resource {
            base: 0x7f12_3456_7800,
            format: Format {
                data: data_format::F8_8_8_8,
                num: num_format::UNORM,
            },
            width: 100,
            height: 30,
            depth: 4,
            pitch: 128,
            kind: img_type::D2_ARRAY,
            dst_sel: [sel::Z, sel::Y, sel::X, sel::W],
            base_level: 0,
            last_level: 0,
            base_array: 0,
            tiling: 0,
        };
        for layout in [Layout::Gfx8, Layout::Gfx9] {
            assert_eq!(Resource::from_words(layout, &r.to_words(layout)), r);
        }
        // GFX10: a 2D array's pitch is the derived one; a 2D image's is in word 4.
        let g = Resource { pitch: 128, ..r };
        assert_eq!(g.pitch, gfx10_derived_pitch(100, g.format));
        assert_eq!(
            Resource::from_words(Layout::Gfx10, &g.to_words(Layout::Gfx10)),
            g
        );
        let flat = Resource {
            kind: img_type::D2,
            depth: 1,
            pitch: 4096,
            ..r
        };
        let w = flat.to_words(Layout::Gfx10);
        // FORMAT 56 (8_8_8_8_UNORM), WIDTH-1 = 99 split 3 | 24 << 2, PITCH-1 = 4095.
        assert_eq!((w[1] >> 20 & 0x1ff, w[1] >> 30, w[2] & 0xfff), (56, 3, 24));
        assert_eq!(w[4], 4095);
        assert_eq!(Resource::from_words(Layout::Gfx10, &w), flat);
        // GFX11: FORMAT 42 (8_8_8_8_UNORM in LLVM's UfmtGFX11), no RESOURCE_LEVEL.
        let w = flat.to_words(Layout::Gfx11);
        assert_eq!((w[1] >> 20 & 0xff, w[1] >> 30, w[2] & 0xfff), (42, 3, 24));
        assert_eq!(w[2] >> 31, 0);
        assert_eq!(Resource::from_words(Layout::Gfx11, &w), flat);
        let f32x4 = Format {
            data: data_format::F32_32_32_32,
            num: num_format::FLOAT,
        };
        assert_eq!(Format::from_unified_gfx11(63), Some(f32x4));
        assert_eq!(f32x4.to_unified(), Some(77));
        assert_eq!(Format::from_unified_gfx11(30), None);
        // GFX12 (ROCr's resource_gfx12.h): FORMAT 42 at 24:17, WIDTH-1 = 99 as 3 | 24 << 2
        // (WIDTH_HI 13:0 of word 2), HEIGHT-1 = 29 at 29:14, PITCH-1 = 4095 in DEPTH 13:0.
        let w = flat.to_words(Layout::Gfx12);
        assert_eq!((w[1] >> 17 & 0xff, w[1] >> 30, w[2] & 0x3fff), (42, 3, 24));
        assert_eq!((w[2] >> 14, w[3] >> 28, w[4]), (29, 9, 4095));
        assert_eq!(Resource::from_words(Layout::Gfx12, &w), flat);
        // A 16-bit pitch: PITCH_MSB (15:14) holds bits 15:14 of pitch − 1; a height past
        // GFX11's 14 bits; LAST_LEVEL at 19:15, BASE_LEVEL at 29:25 of word 1.
        let wide = Resource {
            pitch: 40000,
            width: 40000,
            height: 20000,
            last_level: 3,
            base_level: 1,
            ..flat
        };
        let w = wide.to_words(Layout::Gfx12);
        assert_eq!(
            (w[4] & 0x3fff, w[4] >> 14 & 3),
            (39999 & 0x3fff, 39999 >> 14)
        );
        assert_eq!(
            (w[2] >> 14, w[3] >> 15 & 0x1f, w[1] >> 25 & 0x1f),
            (19999, 3, 1)
        );
        assert_eq!(Resource::from_words(Layout::Gfx12, &w), wide);
        // A 2D array: DEPTH is the last layer, the pitch the derived one.
        let arr = Resource { base_array: 5, ..g };
        let w = arr.to_words(Layout::Gfx12);
        assert_eq!((w[4] & 0x3fff, w[4] >> 16), (3, 5));
        assert_eq!(Resource::from_words(Layout::Gfx12, &w), arr);
        let s = Sampler {
            clamp: [clamp::CLAMP_BORDER; 3],
            depth_compare: 0,
            force_unnormalized: true,
            mag_linear: true,
            min_linear: true,
            border_color_type: 0,
            min_lod: 0,
            max_lod: 4095,
        };
        assert_eq!(Sampler::from_words(&s.to_words()), s);
        // GFX12: ROCr's MAX_LOD 4095 lands at 25:13.
        let w = s.to_layout_words(Layout::Gfx12);
        assert_eq!(w[1], 4095 << 13);
        assert_eq!(Sampler::from_layout_words(Layout::Gfx12, &w), s);
        assert_eq!(s.to_layout_words(Layout::Gfx10), s.to_words());
        // The S# clang builds for CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP |
        // CLK_FILTER_NEAREST.
        let c = Sampler::from_words(&[0x1000_b1b6, 0x00ff_f000, 0x8000_0000, 0]);
        assert_eq!(c.clamp, [clamp::CLAMP_BORDER; 3]);
        assert!(c.force_unnormalized && !c.mag_linear && !c.min_linear);
    }

    #[test]
    fn gfx10_unified_formats_follow_the_buf_fmt_table() {
        use data_format::*;
        use num_format::*;
        // Values from llvm-objdump-15's `format:[BUF_FMT_*]` names on gfx1030.
        for (v, data, num) in [
            (1, F8, UNORM),
            (6, F8, SINT),
            (13, F16, FLOAT),
            (19, F8_8, SINT),
            (22, F32, FLOAT),
            (29, F16_16, FLOAT),
            (44, F10_10_10_2, UNORM),
            (55, F2_10_10_10, SINT),
            (56, F8_8_8_8, UNORM),
            (61, F8_8_8_8, SINT),
            (64, F32_32, FLOAT),
            (71, F16_16_16_16, FLOAT),
            (74, F32_32_32, FLOAT),
            (77, F32_32_32_32, FLOAT),
            (130, F8_8_8_8, SRGB),
            (133, F5_6_5, UNORM),
            (134, F1_5_5_5, UNORM),
        ] {
            let f = Format { data, num };
            assert_eq!(Format::from_unified(v), Some(f), "{v}");
            assert_eq!(f.to_unified(), Some(v));
        }
        assert_eq!(Format::from_unified(0), None);
        assert_eq!(Format::from_unified(30), None);
    }

    #[test]
    fn lod_is_log2_of_the_longer_gradient() {
        // ρ = max(|ddx|, |ddy|): 4 texels per step → LOD 2; (3, 4) has length 5.
        assert_eq!(lod([4.0, 0.0, 0.0], [0.0, 1.0, 0.0]), 2.0);
        assert_eq!(lod([3.0, 4.0, 0.0], [1.0, 0.0, 0.0]), 5f64.log2() as f32);
        assert_eq!(lod([0.5, 0.0, 0.0], [0.0, 0.25, 0.0]), -1.0);
        assert_eq!(lod([0.0; 3], [0.0; 3]), f32::NEG_INFINITY);
        let s = Sampler::from_words(&[0, 0x400 << 12 | 0x080, 0, 0]);
        // MIN_LOD 0x080 = 0.5, MAX_LOD 0x400 = 4.0 (unsigned 4.8).
        assert_eq!(s.clamp_lod(-3.0), 0.5);
        assert_eq!(s.clamp_lod(2.25), 2.25);
        assert_eq!(s.clamp_lod(9.0), 4.0);
        assert_eq!(s.clamp_lod(f32::NAN), 0.5);
    }

    #[test]
    fn gfx10_buffer_formats_are_the_unified_ones() {
        // The MTBUF/V# numbering of the RDNA ISA (`BUF_FMT_*`): 22 is 32_FLOAT, 77
        // 32_32_32_32_FLOAT, 14 8_8_UNORM; 30–43 (10_11_11, 11_11_10) are not implemented.
        for (v, data, num) in [
            (22, data_format::F32, num_format::FLOAT),
            (77, data_format::F32_32_32_32, num_format::FLOAT),
            (14, data_format::F8_8, num_format::UNORM),
        ] {
            assert_eq!(Format::from_unified(v), Some(Format { data, num }));
        }
        assert_eq!(Format::from_unified(36), None);
        assert_eq!(Format::from_unified(78), None);
    }

    #[test]
    fn addressing_modes() {
        assert_eq!(address(clamp::WRAP, -1, 4), Texel::At(3));
        assert_eq!(address(clamp::MIRROR, -1, 4), Texel::At(0));
        assert_eq!(address(clamp::MIRROR, 4, 4), Texel::At(3));
        assert_eq!(address(clamp::MIRROR, 9, 4), Texel::At(1));
        assert_eq!(address(clamp::CLAMP_LAST_TEXEL, 7, 4), Texel::At(3));
        assert_eq!(address(clamp::CLAMP_BORDER, 4, 4), Texel::Border);
        assert_eq!(address(clamp::CLAMP_BORDER, -1, 4), Texel::Border);
        assert_eq!(linear_taps(1.0), (0, 0.5));
        assert_eq!(texel_coordinate(0.5 + 1.0 / 1024.0, 1, false), 0.5);
        // -3/7 scaled back by 7 is -3.0000002 in f32; the fixed-point coordinate is -3.
        assert_eq!(texel_coordinate(-3.0 * (1.0 / 7.0f32), 7, true), -3.0);
    }
}
