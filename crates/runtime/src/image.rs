//! The images extension (`hsa_ext_image_*`, `hsa_ext_sampler_*`, `hsa_amd_image_create`) as
//! ROCm's runtime offers it for a GPU agent: its table of supported formats per geometry, the
//! size and alignment of image data, image and sampler handles whose memory holds the resource
//! words kernels read, and the host-side import, export, copy and clear.
//!
//! Layouts: every image is linear (the opaque layout is the linear one with the default row
//! pitch), rows aligned to 256 bytes (`HSA_EXT_AGENT_INFO_IMAGE_LINEAR_ROW_PITCH_ALIGNMENT`),
//! slices `row_pitch * height` apart, as the GFX8/GFX9 T# has no slice pitch. An image handle
//! is the address of 12 dwords: the T# (or a V# for 1DB), then the channel type, channel order
//! and width that the device libraries read (ROCr's `srd[8..11]`). A sampler handle is the
//! address of its S#. Both live in pages registered with the emulated GPU.
//!
//! GFX10.3 agents write the GFX10 words (unified formats; T#s of 3D images and arrays have no
//! pitch field, so their linear layout takes only the default row pitch), GFX11 agents the
//! GFX11 words (the same with GFX11's format numbers and no RESOURCE_LEVEL). GFX12 agents
//! (gfx1200/gfx1201) write GFX12's T# and S# ([`Layout::Gfx12`]: GFX11's format numbers, a
//! 16-bit pitch for 1D and 2D images, 13-bit LODs) and a V# with GFX11's buffer format.

use std::collections::HashMap;
use std::sync::Arc;

use hsaemu_emu::image::{
    self as hw, clamp, data_format as df, num_format as nf, sel, Format, Layout, Resource,
};
use hsaemu_emu::Gen;
use parking_lot::RwLock;

use crate::error::{HsaError, Result};
use crate::pages::PageBox;
use crate::{Agent, DeviceType, Runtime};

/// `hsa_ext_image_geometry_t`.
pub mod geometry {
    pub const D1: u32 = 0;
    pub const D2: u32 = 1;
    pub const D3: u32 = 2;
    pub const D1A: u32 = 3;
    pub const D2A: u32 = 4;
    pub const D1B: u32 = 5;
    pub const D2DEPTH: u32 = 6;
    pub const D2ADEPTH: u32 = 7;
}

/// `hsa_ext_image_capability_t` bits.
pub mod capability {
    pub const READ_ONLY: u32 = 1;
    pub const WRITE_ONLY: u32 = 2;
    pub const READ_WRITE: u32 = 4;
}

const RO: u32 = capability::READ_ONLY;
const ROWO: u32 = RO | capability::WRITE_ONLY;
const RW: u32 = ROWO | capability::READ_WRITE;

/// Row pitch alignment of linear images, in bytes.
pub const ROW_PITCH_ALIGNMENT: usize = 256;

/// `hsa_ext_image_format_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct ImageFormat {
    pub channel_type: u32,
    pub channel_order: u32,
}

/// `hsa_ext_image_descriptor_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct ImageDescriptor {
    pub geometry: u32,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub array_size: usize,
    pub format: ImageFormat,
}

/// `hsa_ext_sampler_descriptor_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct SamplerDescriptor {
    pub coordinate_mode: u32,
    pub filter_mode: u32,
    pub address_mode: u32,
}

/// `hsa_ext_image_data_layout_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataLayout {
    Opaque,
    Linear,
}

/// What ROCr's format table says about one channel order × channel type: capabilities,
/// element size and hardware format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub struct Property {
    pub cap: u32,
    pub format: Format,
}

/// The channel types of ROCr's table, in `hsa_ext_image_channel_type_t` order, for the
/// orders whose rows follow one pattern: (type, hardware data format for 1/2/4 channels).
pub(crate) fn property(order: u32, ty: u32) -> Option<Property> {
    // Channels per order: A, R, RG, RA, RGBA (others are special below).
    let channels = match order {
        0 | 1 | 16 | 17 => 1, // A, R, INTENSITY, LUMINANCE
        3 | 5 => 2,           // RG, RA
        8 => 4,               // RGBA
        _ => 0,
    };
    let p = |cap, data, num| {
        Some(Property {
            cap,
            format: Format { data, num },
        })
    };
    let per = |d1, d2, d4| match channels {
        1 => d1,
        2 => d2,
        _ => d4,
    };
    match order {
        // BGRA, ARGB: 8-bit types only.
        9 | 10 => match ty {
            0 => p(RW, df::F8_8_8_8, nf::SNORM),
            2 => p(RW, df::F8_8_8_8, nf::UNORM),
            8 => p(RW, df::F8_8_8_8, nf::SINT),
            11 => p(RW, df::F8_8_8_8, nf::UINT),
            _ => None,
        },
        // RGB: the packed types.
        6 => match ty {
            5 => p(RW, df::F1_5_5_5, nf::UNORM),
            6 => p(RW, df::F5_6_5, nf::UNORM),
            7 => p(RW, df::F2_10_10_10, nf::UNORM),
            _ => None,
        },
        // SRGBA: read-only UNORM_INT8.
        14 => (ty == 2).then_some(Property {
            cap: RO,
            format: Format {
                data: df::F8_8_8_8,
                num: nf::SRGB,
            },
        }),
        // DEPTH: UNORM_INT16 and FLOAT, read and write.
        18 => match ty {
            3 => p(ROWO, df::F16, nf::UNORM),
            15 => p(ROWO, df::F32, nf::FLOAT),
            _ => None,
        },
        _ if channels == 0 => None,
        _ => {
            let d8 = per(df::F8, df::F8_8, df::F8_8_8_8);
            let d16 = per(df::F16, df::F16_16, df::F16_16_16_16);
            let d32 = per(df::F32, df::F32_32, df::F32_32_32_32);
            // INTENSITY and LUMINANCE have no integer types.
            let ints = !matches!(order, 16 | 17);
            match ty {
                0 => p(RW, d8, nf::SNORM),
                1 => p(RW, d16, nf::SNORM),
                2 => p(RW, d8, nf::UNORM),
                3 => p(RW, d16, nf::UNORM),
                8 if ints => p(RW, d8, nf::SINT),
                9 if ints => p(RW, d16, nf::SINT),
                10 if ints => p(RW, d32, nf::SINT),
                11 if ints => p(RW, d8, nf::UINT),
                12 if ints => p(RW, d16, nf::UINT),
                13 if ints => p(RW, d32, nf::UINT),
                14 => p(RW, d16, nf::FLOAT),
                15 => p(RW, d32, nf::FLOAT),
                _ => None,
            }
        }
    }
}

/// The destination selects of a channel order (ROCr's swizzle table).
pub(crate) fn swizzle(order: u32) -> [u8; 4] {
    use sel::*;
    match order {
        0 => [ZERO, ZERO, ZERO, X],
        1 | 2 => [X, ZERO, ZERO, ONE],
        3 | 4 => [X, Y, ZERO, ONE],
        5 => [X, ZERO, ZERO, Y],
        6 | 7 => [Z, Y, X, ONE],
        8 => [X, Y, Z, W],
        9 => [Z, Y, X, W],
        10 => [Y, Z, W, X],
        11 => [Y, X, W, Z],
        12 | 13 => [X, Y, Z, ONE],
        14 => [X, Y, Z, W],
        15 => [Z, Y, X, W],
        16 => [X, X, X, X],
        17 => [X, X, X, ONE],
        18 => [X, ZERO, ZERO, ZERO],
        _ => [Y, ZERO, ZERO, ZERO],
    }
}

/// The descriptor layout of an agent's generation, or `None` for an agent without images.
pub(crate) fn layout_of(agent: &Agent) -> Option<Layout> {
    if agent.properties().device_type != DeviceType::Gpu {
        return None;
    }
    let name = &agent.properties().name;
    match Gen::from_processor(name.split(':').next().unwrap_or(name))? {
        Gen::Gfx8 => Some(Layout::Gfx8),
        g if g.is_gfx10() => Some(Layout::Gfx10),
        g if g.is_gfx12() => Some(Layout::Gfx12),
        g if g.is_gfx11() => Some(Layout::Gfx11),
        g if g.is_rdna() => None,
        _ => Some(Layout::Gfx9),
    }
}

/// The capability mask of a format for a geometry on `agent` (`hsa_ext_image_get_capability`);
/// 0 when unsupported. The linear layout has the same capabilities.
pub fn format_capability(agent: &Agent, geometry: u32, format: ImageFormat) -> u32 {
    supported(agent, geometry, format).map_or(0, |p| p.cap)
}

pub(crate) fn supported(agent: &Agent, geometry: u32, format: ImageFormat) -> Option<Property> {
    layout_of(agent)?;
    let p = property(format.channel_order, format.channel_type)?;
    let depth_order = matches!(format.channel_order, 18 | 19);
    let ok = match geometry {
        geometry::D2DEPTH | geometry::D2ADEPTH => depth_order,
        // No buffer access to sRGB or the 555/565 packed types.
        geometry::D1B => {
            !matches!(format.channel_order, 12..=15) && !matches!(format.channel_type, 5 | 6)
        }
        g => g <= geometry::D2A,
    };
    ok.then_some(p)
}

/// `hsa_ext_image_region_t`: a region's first element and size in elements (x, y, z; a 1D
/// array's layers are y).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub offset: [u32; 3],
    pub range: [u32; 3],
}

/// `hsa_ext_image_data_info_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataInfo {
    pub size: usize,
    pub alignment: usize,
}

/// An image's linear layout: element size, row pitch, slice pitch, rows per slice, slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub struct Geometry {
    pub element: usize,
    pub row_pitch: usize,
    pub slice_pitch: usize,
    pub rows: usize,
    pub slices: usize,
}

impl Geometry {
    fn size(&self) -> usize {
        self.slice_pitch * self.slices
    }
}

/// Checks a descriptor and pitches and computes the image's layout (ROCr's
/// `GetImageSizeAndAlignment`).
fn plan(
    agent: &Agent,
    desc: &ImageDescriptor,
    layout: DataLayout,
    row_pitch: usize,
    slice_pitch: usize,
) -> Result<(Property, Geometry)> {
    if desc.geometry > geometry::D2ADEPTH {
        return Err(HsaError::InvalidArgument);
    }
    let p =
        supported(agent, desc.geometry, desc.format).ok_or(HsaError::ExtImageFormatUnsupported)?;
    use geometry::*;
    let (max_w, max_h, max_d, max_a) = match desc.geometry {
        D1 => (16384, 0, 0, 0),
        D1A => (16384, 0, 0, 8192),
        D1B => (65536, 0, 0, 0),
        D2 | D2DEPTH => (16384, 16384, 0, 0),
        D2A | D2ADEPTH => (16384, 16384, 0, 8192),
        _ => (16384, 16384, 8192, 0),
    };
    let rows = if max_h == 0 { 1 } else { desc.height };
    let slices = match desc.geometry {
        D3 => desc.depth,
        D1A | D2A | D2ADEPTH => desc.array_size,
        _ => 1,
    };
    if desc.width == 0 || rows == 0 || slices == 0 {
        return Err(HsaError::InvalidArgument);
    }
    if desc.width > max_w
        || (max_h != 0 && desc.height > max_h)
        || (max_d != 0 && desc.depth > max_d)
        || (max_a != 0 && desc.array_size > max_a)
    {
        return Err(HsaError::ExtImageSizeUnsupported);
    }
    let element = p.format.bytes() as usize;
    let tight = desc.width * element;
    let default_row = tight.next_multiple_of(ROW_PITCH_ALIGNMENT);
    let g = if desc.geometry == D1B {
        Geometry {
            element,
            row_pitch: tight,
            slice_pitch: tight,
            rows: 1,
            slices: 1,
        }
    } else if layout == DataLayout::Linear {
        let row = if row_pitch == 0 {
            default_row
        } else {
            row_pitch
        };
        // GFX10's T# holds a 14-bit pitch for 1D and 2D images (GFX12's a 16-bit one) and
        // none for the others.
        let hw = layout_of(agent);
        let gfx10 = matches!(hw, Some(Layout::Gfx10 | Layout::Gfx11));
        let max_pitch = if gfx10 { 1 << 14 } else { 1 << 16 };
        let fixed = matches!(hw, Some(Layout::Gfx10 | Layout::Gfx11 | Layout::Gfx12))
            && !matches!(desc.geometry, D1 | D2 | D2DEPTH);
        if row < tight
            || row % ROW_PITCH_ALIGNMENT != 0
            || row / element > max_pitch
            || (fixed && row != default_row)
        {
            return Err(HsaError::ExtImagePitchUnsupported);
        }
        let slice = row * rows;
        if slice_pitch != 0 && slice_pitch != slice {
            return Err(HsaError::ExtImagePitchUnsupported);
        }
        Geometry {
            element,
            row_pitch: row,
            slice_pitch: slice,
            rows,
            slices,
        }
    } else {
        Geometry {
            element,
            row_pitch: default_row,
            slice_pitch: default_row * rows,
            rows,
            slices,
        }
    };
    Ok((p, g))
}

/// `hsa_ext_image_data_get_info(_with_layout)`: size and alignment of an image's data.
pub fn data_info(
    agent: &Agent,
    desc: &ImageDescriptor,
    layout: DataLayout,
    row_pitch: usize,
    slice_pitch: usize,
) -> Result<DataInfo> {
    let (_, g) = plan(agent, desc, layout, row_pitch, slice_pitch)?;
    Ok(DataInfo {
        size: g.size(),
        alignment: ROW_PITCH_ALIGNMENT,
    })
}

/// The words an image handle points at: T# (or V#), channel type, order, width.
pub(crate) type ImageWords = [u32; 16];

/// An image: its descriptor, data and the words kernels read.
#[derive(Debug)]
pub struct Image {
    pub agent: u64,
    pub desc: ImageDescriptor,
    /// Address of the image data.
    pub data: u64,
    geometry: Geometry,
    format: Format,
    words: PageBox<ImageWords>,
}

impl Image {
    /// The handle: the address of its resource words.
    pub fn handle(&self) -> u64 {
        self.words.addr()
    }

    /// The image's resource words (T# or V#, then channel type, order and width).
    pub fn words(&self) -> [u32; 11] {
        let mut w = [0u32; 11];
        w.copy_from_slice(&self.words[..11]);
        w
    }

    /// Row pitch of the data in bytes.
    pub fn row_pitch(&self) -> usize {
        self.geometry.row_pitch
    }

    /// Slice pitch of the data in bytes.
    pub fn slice_pitch(&self) -> usize {
        self.geometry.slice_pitch
    }

    /// Size in elements (width, rows, slices) as a region addresses it.
    fn extent(&self) -> [usize; 3] {
        match self.desc.geometry {
            geometry::D1 | geometry::D1B => [self.desc.width, 1, 1],
            // A 1D array's layers are its second coordinate.
            geometry::D1A => [self.desc.width, self.geometry.slices, 1],
            _ => [self.desc.width, self.geometry.rows, self.geometry.slices],
        }
    }

    /// Byte offset of element (x, y, z) in the data.
    fn offset(&self, c: [usize; 3]) -> usize {
        let g = &self.geometry;
        if self.desc.geometry == geometry::D1A {
            return c[1] * g.slice_pitch + c[0] * g.element;
        }
        c[2] * g.slice_pitch + c[1] * g.row_pitch + c[0] * g.element
    }

    /// Checks that a region lies inside the image.
    fn check_region(&self, offset: [u32; 3], range: [u32; 3]) -> Result<()> {
        let e = self.extent();
        for d in 0..3 {
            let end = u64::from(offset[d]) + u64::from(range[d]);
            if end > e[d] as u64 {
                return Err(HsaError::InvalidArgument);
            }
        }
        Ok(())
    }
}

/// A sampler: its S# in registered memory.
#[derive(Debug)]
pub struct SamplerObject {
    pub agent: u64,
    pub desc: SamplerDescriptor,
    words: PageBox<[u32; 4]>,
}

impl SamplerObject {
    /// The handle: the address of its S#.
    pub fn handle(&self) -> u64 {
        self.words.addr()
    }

    /// The S# words.
    pub fn words(&self) -> [u32; 4] {
        *self.words
    }
}

/// The runtime's live images and samplers by handle.
#[derive(Debug, Default)]
pub struct Images {
    images: RwLock<HashMap<u64, Arc<Image>>>,
    samplers: RwLock<HashMap<u64, Arc<SamplerObject>>>,
}

/// The S# of a sampler descriptor (ROCr's `PopulateSamplerSrd`).
pub(crate) fn sampler_words(layout: Layout, desc: &SamplerDescriptor) -> Result<[u32; 4]> {
    let mode = match desc.address_mode {
        0 | 3 => clamp::WRAP,
        1 => clamp::CLAMP_LAST_TEXEL,
        2 => clamp::CLAMP_BORDER,
        4 => clamp::MIRROR,
        _ => return Err(HsaError::InvalidArgument),
    };
    let linear = match desc.filter_mode {
        0 => false,
        1 => true,
        _ => return Err(HsaError::InvalidArgument),
    };
    let force_unnormalized = match desc.coordinate_mode {
        0 => true,
        1 => false,
        _ => return Err(HsaError::InvalidArgument),
    };
    Ok(hw::Sampler {
        clamp: [mode; 3],
        depth_compare: 0,
        force_unnormalized,
        mag_linear: linear,
        min_linear: linear,
        border_color_type: 0,
        min_lod: 0,
        max_lod: 4095,
    }
    .to_layout_words(layout))
}

/// `SQ_RSRC_IMG_*` of a geometry.
fn img_type(g: u32) -> u8 {
    match g {
        geometry::D1 => hw::img_type::D1,
        geometry::D3 => hw::img_type::D3,
        geometry::D1A => hw::img_type::D1_ARRAY,
        geometry::D2A | geometry::D2ADEPTH => hw::img_type::D2_ARRAY,
        _ => hw::img_type::D2,
    }
}

/// The resource words of an image at `data` (256-byte aligned).
pub(crate) fn image_words(
    layout: Layout,
    desc: &ImageDescriptor,
    format: Format,
    g: &Geometry,
    data: u64,
) -> ImageWords {
    let dst_sel = swizzle(desc.format.channel_order);
    let mut w = [0u32; 16];
    if desc.geometry == geometry::D1B {
        // A buffer resource (V#): base, stride = element size, num_records in bytes.
        let sel = dst_sel.map(u32::from);
        w[0] = data as u32;
        w[1] = (data >> 32) as u32 & 0xffff | (g.element as u32) << 16;
        w[2] = (desc.width * g.element) as u32;
        let sels = sel[0] | sel[1] << 3 | sel[2] << 6 | sel[3] << 9;
        w[3] = if layout == Layout::Gfx10 {
            // The unified FORMAT in 18:12, RESOURCE_LEVEL (bit 24) set as ROCr sets it.
            sels | u32::from(format.to_unified().unwrap_or(0)) << 12 | 1 << 24
        } else if matches!(layout, Layout::Gfx11 | Layout::Gfx12) {
            // GFX11's format numbers, 6 bits at 17:12 (ROCr's `resource_gfx11.h`,
            // `resource_gfx12.h`).
            sels | u32::from(format.to_unified_gfx11().unwrap_or(0)) << 12
        } else {
            sels | u32::from(format.num) << 12 | u32::from(format.data) << 15
        };
    } else {
        let r = Resource {
            base: data,
            format,
            width: desc.width as u32,
            height: g.rows as u32,
            depth: g.slices as u32,
            pitch: (g.row_pitch / g.element) as u32,
            kind: img_type(desc.geometry),
            dst_sel,
            base_level: 0,
            last_level: 0,
            base_array: 0,
            tiling: 0,
        };
        let r = if matches!(desc.geometry, geometry::D1A) {
            Resource { height: 1, ..r }
        } else {
            r
        };
        w[..8].copy_from_slice(&r.to_words(layout));
    }
    w[8] = desc.format.channel_type;
    w[9] = desc.format.channel_order;
    w[10] = desc.width as u32;
    w
}

impl Runtime {
    /// `hsa_ext_image_create(_with_layout)`: an image over `data`, which must be aligned to
    /// the data alignment and stay allocated (and visible to kernels) while the image lives.
    pub fn create_image(
        &self,
        agent: u64,
        desc: &ImageDescriptor,
        data: u64,
        layout: DataLayout,
        row_pitch: usize,
        slice_pitch: usize,
    ) -> Result<Arc<Image>> {
        let a = self.agent(agent)?;
        let (p, g) = plan(a, desc, layout, row_pitch, slice_pitch)?;
        if data == 0 || !data.is_multiple_of(ROW_PITCH_ALIGNMENT as u64) {
            return Err(HsaError::InvalidArgument);
        }
        let hw_layout = layout_of(a).ok_or(HsaError::ExtImageFormatUnsupported)?;
        let words = image_words(hw_layout, desc, p.format, &g, data);
        self.register_image(agent, desc, data, g, p.format, words)
    }

    fn register_image(
        &self,
        agent: u64,
        desc: &ImageDescriptor,
        data: u64,
        geometry: Geometry,
        format: Format,
        words: ImageWords,
    ) -> Result<Arc<Image>> {
        let words = PageBox::new(words)?;
        self.memory()
            .expose(words.addr(), words.mapped_len() as u64);
        let image = Arc::new(Image {
            agent,
            desc: *desc,
            data,
            geometry,
            format,
            words,
        });
        self.images()
            .images
            .write()
            .insert(image.handle(), image.clone());
        Ok(image)
    }

    /// `hsa_amd_image_create`: an image whose T# comes from a vendor layout (`version` 1,
    /// `deviceID` = 0x1002 << 16 | the agent's chip ID, then T# words 0–7); the base address,
    /// format and swizzle come from the descriptor and `data`, as in ROCr.
    pub fn create_image_with_amd_layout(
        &self,
        agent: u64,
        desc: &ImageDescriptor,
        vendor: &[u32; 10],
        data: u64,
    ) -> Result<Arc<Image>> {
        let a = self.agent(agent)?;
        if !data.is_multiple_of(256) {
            return Err(HsaError::InvalidAllocation);
        }
        if vendor[0] != 1 || vendor[1] != (0x1002 << 16 | a.properties().chip_id) {
            return Err(HsaError::ExtImageFormatUnsupported);
        }
        let hw_layout = layout_of(a).ok_or(HsaError::ExtImageFormatUnsupported)?;
        let p =
            supported(a, desc.geometry, desc.format).ok_or(HsaError::ExtImageFormatUnsupported)?;
        if desc.geometry == geometry::D1B {
            return Err(HsaError::ExtImageFormatUnsupported);
        }
        let mut t = [0u32; 8];
        t.copy_from_slice(&vendor[2..10]);
        let mut r = Resource::from_words(hw_layout, &t);
        if r.format.bytes() != p.format.bytes() {
            return Err(HsaError::ExtImageFormatUnsupported);
        }
        r.base = data;
        r.format = p.format;
        r.dst_sel = swizzle(desc.format.channel_order);
        let element = p.format.bytes() as usize;
        let row_pitch = r.pitch as usize * element;
        let rows = if matches!(desc.geometry, geometry::D1 | geometry::D1A) {
            1
        } else {
            r.height as usize
        };
        let g = Geometry {
            element,
            row_pitch,
            slice_pitch: row_pitch * rows,
            rows,
            slices: r.depth as usize,
        };
        let mut words = [0u32; 16];
        words[..8].copy_from_slice(&r.to_words(hw_layout));
        words[8] = desc.format.channel_type;
        words[9] = desc.format.channel_order;
        words[10] = desc.width as u32;
        self.register_image(agent, desc, data, g, p.format, words)
    }

    /// The live image with this handle.
    pub fn image(&self, handle: u64) -> Result<Arc<Image>> {
        self.images()
            .images
            .read()
            .get(&handle)
            .cloned()
            .ok_or(HsaError::InvalidArgument)
    }

    /// `hsa_ext_image_destroy`.
    pub fn destroy_image(&self, agent: u64, handle: u64) -> Result<()> {
        self.agent(agent)?;
        let image = self
            .images()
            .images
            .write()
            .remove(&handle)
            .ok_or(HsaError::InvalidArgument)?;
        self.memory().hide(image.handle());
        Ok(())
    }

    /// `hsa_ext_sampler_create`.
    pub fn create_sampler(
        &self,
        agent: u64,
        desc: &SamplerDescriptor,
    ) -> Result<Arc<SamplerObject>> {
        let a = self.agent(agent)?;
        if a.properties().device_type != DeviceType::Gpu {
            return Err(HsaError::InvalidAgent);
        }
        let layout = layout_of(a).unwrap_or(Layout::Gfx9);
        let words = PageBox::new(sampler_words(layout, desc)?)?;
        self.memory()
            .expose(words.addr(), words.mapped_len() as u64);
        let s = Arc::new(SamplerObject {
            agent,
            desc: *desc,
            words,
        });
        self.images().samplers.write().insert(s.handle(), s.clone());
        Ok(s)
    }

    /// `hsa_ext_sampler_destroy`.
    pub fn destroy_sampler(&self, agent: u64, handle: u64) -> Result<()> {
        self.agent(agent)?;
        let s = self
            .images()
            .samplers
            .write()
            .remove(&handle)
            .ok_or(HsaError::InvalidArgument)?;
        self.memory().hide(s.handle());
        Ok(())
    }

    /// `hsa_ext_image_import`: copies a region from host memory laid out with the given row
    /// and slice pitches (0: tightly packed) into the image.
    ///
    /// # Safety
    /// `src` must be readable for the region at those pitches; the image's data must be
    /// live, writable memory.
    pub unsafe fn import_image(
        &self,
        agent: u64,
        src: *const u8,
        [row_pitch, slice_pitch]: [usize; 2],
        handle: u64,
        Region { offset, range }: Region,
    ) -> Result<()> {
        self.agent(agent)?;
        let image = self.image(handle)?;
        let (row, slice) = host_pitches(&image, row_pitch, slice_pitch, range)?;
        image.check_region(offset, range)?;
        let line = range[0] as usize * image.geometry.element;
        for_rows(offset, range, |c, z, y| {
            let dst = image.data as usize + image.offset(c);
            let s = z * slice + y * row;
            // SAFETY: the caller's contract covers the source; the destination row lies in
            // the image (checked region).
            unsafe { std::ptr::copy(src.add(s), dst as *mut u8, line) };
        });
        Ok(())
    }

    /// `hsa_ext_image_export`: copies a region of the image to host memory.
    ///
    /// # Safety
    /// `dst` must be writable for the region at those pitches; the image's data must be live.
    pub unsafe fn export_image(
        &self,
        agent: u64,
        handle: u64,
        dst: *mut u8,
        [row_pitch, slice_pitch]: [usize; 2],
        Region { offset, range }: Region,
    ) -> Result<()> {
        self.agent(agent)?;
        let image = self.image(handle)?;
        let (row, slice) = host_pitches(&image, row_pitch, slice_pitch, range)?;
        image.check_region(offset, range)?;
        let line = range[0] as usize * image.geometry.element;
        for_rows(offset, range, |c, z, y| {
            let src = image.data as usize + image.offset(c);
            let d = z * slice + y * row;
            // SAFETY: as in `import_image`, the other way round.
            unsafe { std::ptr::copy(src as *const u8, dst.add(d), line) };
        });
        Ok(())
    }

    /// `hsa_ext_image_copy`: copies a region between two images of the same agent with the
    /// same element size (ROCr also requires compatible formats; the bytes are copied as
    /// they are, except that sRGB and linear versions of a format convert nothing either).
    pub fn copy_image(
        &self,
        agent: u64,
        src: u64,
        src_offset: [u32; 3],
        dst: u64,
        dst_offset: [u32; 3],
        range: [u32; 3],
    ) -> Result<()> {
        self.agent(agent)?;
        let (s, d) = (self.image(src)?, self.image(dst)?);
        if s.agent != d.agent || s.geometry.element != d.geometry.element {
            return Err(HsaError::InvalidArgument);
        }
        s.check_region(src_offset, range)?;
        d.check_region(dst_offset, range)?;
        let line = range[0] as usize * s.geometry.element;
        for_rows(src_offset, range, |c, z, y| {
            let from = s.data as usize + s.offset(c);
            let to = [
                dst_offset[0] as usize,
                dst_offset[1] as usize + y,
                dst_offset[2] as usize + z,
            ];
            let to = d.data as usize + d.offset(to);
            // SAFETY: both rows lie inside their images' data (checked regions), which the
            // application keeps allocated while the images live.
            unsafe { std::ptr::copy(from as *const u8, to as *mut u8, line) };
        });
        Ok(())
    }

    /// `hsa_ext_image_clear`: fills a region with one colour, given as four floats (float,
    /// normalized and sRGB formats), four `int32_t`s or four `uint32_t`s (integer formats), in
    /// RGBA order; it is converted to the image's format as a kernel's store would.
    pub fn clear_image(
        &self,
        agent: u64,
        handle: u64,
        color: [u32; 4],
        offset: [u32; 3],
        range: [u32; 3],
    ) -> Result<()> {
        self.agent(agent)?;
        let image = self.image(handle)?;
        image.check_region(offset, range)?;
        let dst_sel = swizzle(image.desc.format.channel_order);
        let mut components = [0u32; 4];
        for (c, o) in components.iter_mut().enumerate() {
            if let Some(ch) = dst_sel.iter().position(|&s| s == sel::X + c as u8) {
                *o = color[ch];
            }
        }
        // sRGB data is written encoded, as the colour is linear.
        let fmt = image.format;
        if fmt.num == nf::SRGB {
            for c in components.iter_mut().take(3) {
                *c = linear_to_srgb(f32::from_bits(*c)).to_bits();
            }
        }
        let element = fmt.encode(components).to_le_bytes();
        let n = image.geometry.element;
        for_rows(offset, range, |c, _, _| {
            let row = image.data as usize + image.offset(c);
            for x in 0..range[0] as usize {
                // SAFETY: the element lies inside the image's data (checked region).
                unsafe {
                    std::ptr::copy_nonoverlapping(element.as_ptr(), (row + x * n) as *mut u8, n)
                };
            }
        });
        Ok(())
    }
}

/// The sRGB transfer function (IEC 61966-2-1).
fn linear_to_srgb(l: f32) -> f32 {
    let l = f64::from(l.clamp(0.0, 1.0));
    let c = if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    c as f32
}

/// Host-side pitches of an import/export: 0 means tightly packed; a non-zero pitch smaller
/// than a row (or a slice) of the region is refused.
fn host_pitches(
    image: &Image,
    row: usize,
    slice: usize,
    range: [u32; 3],
) -> Result<(usize, usize)> {
    let line = range[0] as usize * image.geometry.element;
    let row = if row == 0 { line } else { row };
    // A 1D array's layers are its rows in the region's second dimension.
    let rows = range[1] as usize;
    let slice = if slice == 0 { row * rows } else { slice };
    if row < line || slice < row * rows {
        return Err(HsaError::InvalidArgument);
    }
    Ok((row, slice))
}

/// Calls `f(element coordinates, z, y)` for the first element of each row of a region
/// (z and y relative to the region).
fn for_rows(offset: [u32; 3], range: [u32; 3], mut f: impl FnMut([usize; 3], usize, usize)) {
    for z in 0..range[2] as usize {
        for y in 0..range[1] as usize {
            f(
                [
                    offset[0] as usize,
                    offset[1] as usize + y,
                    offset[2] as usize + z,
                ],
                z,
                y,
            );
        }
    }
}
