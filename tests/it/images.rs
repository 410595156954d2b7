//! Images and samplers end to end, with PoCL as the oracle: the kernels of
//! `tests/kernels/cl/images.cl` are compiled by clang-15 for the emulated GPU and run through
//! hsaemu's HSA image API (`hsaemu_runtime::image`), and the same source is run by PoCL over
//! OpenCL images and samplers with the same contents. Loads, stores and nearest sampling must
//! agree bit for bit; linear filtering within the texture unit's 8-bit weight precision.
//! Covered: format families (unorm/snorm 8/16, half, float, signed/unsigned 8/16/32, BGRA
//! and ARGB 8-bit, R and A) × geometries (1D, 2D, 3D, 1DA, 2DA, and 1DB for loads and stores)
//! × sampler modes (the four addressing modes, nearest and linear, normalized and
//! unnormalized coordinates). PoCL offers no RG, RA, INTENSITY, LUMINANCE, packed or sRGB
//! images; those conversions are checked by `hsaemu-emu`'s unit tests from their definitions.
//! Runs on the target `HSAEMU_TARGET` names (gfx90a by default; gfx906 and gfx803 pass too),
//! then on gfx1030, gfx1201 and gfx1100 agents of runtimes of their own
//! (`hsaemu_runtime::runtime::standalone`).

use std::sync::Arc;

use hsaemu_runtime::image::{DataLayout, ImageDescriptor, ImageFormat, Region, SamplerDescriptor};
use hsaemu_runtime::layout::{packet_header, packet_type, KernelDispatchPacket};
use hsaemu_runtime::{
    Agent, CodeObjectReader, Executable, MemoryOrder, Queue, QueueType, Runtime, SignalCondition,
    WaitState,
};
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_CPU};
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, ClMem, Image, Sampler, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::platform::get_platforms;
use opencl3::program::Program;
use opencl3::types::{cl_image_desc, cl_image_format, CL_BLOCKING};

const SOURCE: &str = "cl/images.cl";

/// An image geometry: HSA geometry, OpenCL image type, kernel-name part, dimensions
/// (width, height, depth or layers) and coordinate count.
#[derive(Clone, Copy)]
struct Geo {
    hsa: u32,
    cl: u32,
    name: &'static str,
    dims: [usize; 3],
}

const GEOS: [Geo; 6] = [
    Geo {
        hsa: 0,
        cl: 0x10F4,
        name: "1d",
        dims: [13, 1, 1],
    },
    Geo {
        hsa: 1,
        cl: 0x10F1,
        name: "2d",
        dims: [7, 5, 1],
    },
    Geo {
        hsa: 2,
        cl: 0x10F2,
        name: "3d",
        dims: [5, 4, 3],
    },
    Geo {
        hsa: 3,
        cl: 0x10F5,
        name: "1da",
        dims: [9, 3, 1],
    },
    Geo {
        hsa: 4,
        cl: 0x10F3,
        name: "2da",
        dims: [6, 4, 3],
    },
    // A 1D buffer image: loads and stores only (typed buffer accesses through a V#).
    Geo {
        hsa: 5,
        cl: 0x10F6,
        name: "1db",
        dims: [37, 1, 1],
    },
];

impl Geo {
    fn texels(&self) -> usize {
        self.dims.iter().product()
    }
    fn hsa_descriptor(&self, format: ImageFormat) -> ImageDescriptor {
        let [w, h, d] = self.dims;
        let (height, depth, layers) = match self.hsa {
            0 | 5 => (0, 0, 0),
            1 => (h, 0, 0),
            2 => (h, d, 0),
            3 => (0, 0, h),
            _ => (h, 0, d),
        };
        ImageDescriptor {
            geometry: self.hsa,
            width: w,
            height,
            depth,
            array_size: layers,
            format,
        }
    }
    fn cl_descriptor(&self) -> cl_image_desc {
        let [w, h, d] = self.dims;
        let (height, depth, layers) = match self.hsa {
            0 | 5 => (0, 0, 0),
            1 => (h, 0, 0),
            2 => (h, d, 0),
            3 => (0, 0, h),
            _ => (h, 0, d),
        };
        cl_image_desc {
            image_type: self.cl,
            image_width: w,
            image_height: height,
            image_depth: depth,
            image_array_size: layers,
            image_row_pitch: 0,
            image_slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            buffer: std::ptr::null_mut(),
        }
    }
    /// The region (width, rows, slices) an HSA import/export addresses.
    fn region(&self) -> [u32; 3] {
        self.dims.map(|d| d as u32)
    }
}

/// What the kernel reads: float (`_f`), signed (`_i`) or unsigned (`_ui`) values.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    F,
    I,
    Ui,
}

/// An image format: HSA channel type and order, its OpenCL twin, element size, read kind.
#[derive(Clone, Copy, Debug)]
struct Fmt {
    ty: u32,
    order: u32,
    bytes: usize,
    kind: Kind,
}

const fn fmt(ty: u32, order: u32, bytes: usize, kind: Kind) -> Fmt {
    Fmt {
        ty,
        order,
        bytes,
        kind,
    }
}

/// The formats PoCL offers (`clGetSupportedImageFormats`: R, A and RGBA with every channel
/// type, BGRA and ARGB with the 8-bit ones). HSA channel types: 0 SNORM_INT8, 1 SNORM_INT16,
/// 2 UNORM_INT8, 3 UNORM_INT16, 8/9/10 SIGNED_INT8/16/32, 11/12/13 UNSIGNED_INT8/16/32,
/// 14 HALF_FLOAT, 15 FLOAT; orders: 0 A, 1 R, 8 RGBA, 9 BGRA, 10 ARGB.
const FORMATS: [Fmt; 20] = [
    fmt(0, 8, 4, Kind::F),
    fmt(1, 8, 8, Kind::F),
    fmt(2, 8, 4, Kind::F),
    fmt(3, 8, 8, Kind::F),
    fmt(14, 8, 8, Kind::F),
    fmt(15, 8, 16, Kind::F),
    fmt(8, 8, 4, Kind::I),
    fmt(9, 8, 8, Kind::I),
    fmt(10, 8, 16, Kind::I),
    fmt(11, 8, 4, Kind::Ui),
    fmt(12, 8, 8, Kind::Ui),
    fmt(13, 8, 16, Kind::Ui),
    fmt(3, 1, 2, Kind::F),
    fmt(15, 1, 4, Kind::F),
    fmt(10, 1, 4, Kind::I),
    fmt(3, 0, 2, Kind::F),
    fmt(0, 0, 1, Kind::F),
    fmt(2, 9, 4, Kind::F),
    fmt(8, 9, 4, Kind::I),
    fmt(11, 10, 4, Kind::Ui),
];
/// Formats whose reads through a sampler are checked under every sampler mode.
const SAMPLED: [Fmt; 5] = [
    FORMATS[2],
    FORMATS[5],
    FORMATS[12],
    FORMATS[17],
    FORMATS[11],
];

impl Fmt {
    fn hsa(&self) -> ImageFormat {
        ImageFormat {
            channel_type: self.ty,
            channel_order: self.order,
        }
    }
    fn cl(&self) -> cl_image_format {
        // HSA → OpenCL channel types (565 and 555 swap places) and orders.
        const TY: [u32; 16] = [
            0x10D0, 0x10D1, 0x10D2, 0x10D3, 0, 0x10D5, 0x10D4, 0x10D6, 0x10D7, 0x10D8, 0x10D9,
            0x10DA, 0x10DB, 0x10DC, 0x10DD, 0x10DE,
        ];
        let order = match self.order {
            0 => 0x10B1,
            1 => 0x10B0,
            8 => 0x10B5,
            9 => 0x10B6,
            _ => 0x10B7,
        };
        cl_image_format {
            image_channel_order: order,
            image_channel_data_type: TY[self.ty as usize],
        }
    }
    fn suffix(&self) -> &'static str {
        match self.kind {
            Kind::F => "f",
            Kind::I => "i",
            Kind::Ui => "ui",
        }
    }
    /// Deterministic image contents: finite values for float types, any bits otherwise.
    fn contents(&self, texels: usize, seed: u32) -> Vec<u8> {
        let mut r = Lcg(seed);
        let mut out = Vec::with_capacity(texels * self.bytes);
        for _ in 0..texels * self.bytes / self.component_bytes() {
            match (self.ty, self.component_bytes()) {
                (15, _) => {
                    let f = (r.next() % 2001) as f32 / 250.0 - 4.0;
                    out.extend_from_slice(&f.to_le_bytes());
                }
                (14, _) => {
                    let f = half::f16::from_f32((r.next() % 2001) as f32 / 250.0 - 4.0);
                    out.extend_from_slice(&f.to_le_bytes());
                }
                (_, n) => out.extend_from_slice(&r.next().to_le_bytes()[..n]),
            }
        }
        out
    }
    fn component_bytes(&self) -> usize {
        match self.ty {
            0 | 2 | 8 | 11 => 1,
            1 | 3 | 9 | 12 | 14 => 2,
            _ => 4,
        }
    }
}

struct Lcg(u32);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.0.rotate_right(8)
    }
}

/// An HSA sampler descriptor and its OpenCL twin (normalized, addressing, filter).
#[derive(Clone, Copy, Debug)]
struct Samp {
    normalized: bool,
    /// HSA addressing mode: 1 clamp-to-edge, 2 clamp-to-border, 3 repeat, 4 mirrored repeat.
    address: u32,
    linear: bool,
}

impl Samp {
    fn hsa(&self) -> SamplerDescriptor {
        SamplerDescriptor {
            coordinate_mode: u32::from(self.normalized),
            filter_mode: u32::from(self.linear),
            address_mode: self.address,
        }
    }
}

/// One kernel argument.
enum Arg<'a> {
    Image,
    Sampler,
    /// A buffer with these initial contents, read back after the run.
    Buffer(&'a [u8]),
}

/// The emulated GPU behind the runtime's Rust API.
struct Hsa {
    rt: Arc<Runtime>,
    gpu: Agent,
    pool: u64,
    exe: Executable,
    queue: Queue,
    /// The code object version of the kernels.
    cov: u32,
}

impl Hsa {
    fn new() -> Hsa {
        Hsa::on(hsaemu_runtime::init().expect("init"))
    }

    /// A runtime of its own whose GPU is `target` (gfx1030 runs in every test run, whatever
    /// `HSAEMU_TARGET` says).
    fn for_target(target: &str) -> Hsa {
        let config = hsaemu_runtime::agent::Config {
            target: hsaemu_runtime::Isa::parse(target, true).expect("isa"),
            gpus: 1,
            compute_units: 4,
            cu_masks: Default::default(),
            cu_mask_skip_init: false,
            visible: None,
        };
        Hsa::on(hsaemu_runtime::runtime::standalone(config).expect("runtime"))
    }

    fn on(rt: Arc<Runtime>) -> Hsa {
        let gpu = rt.gpu_agents().next().expect("a GPU agent").clone();
        let target = gpu.properties().name.clone();
        let target = target.as_str();
        // clang-22's recipe links the V5 ABI library: its targets are built as V5.
        let cov = if hsaemu_testkit::is_clang22_target(target) {
            5
        } else {
            4
        };
        let path = hsaemu_testkit::compile_cl(SOURCE, target, cov);
        let bytes = std::fs::read(&path).expect("read code object");
        let exe = rt.create_executable();
        exe.load(
            rt.memory(),
            &gpu,
            &CodeObjectReader::from_bytes(&bytes).expect("reader"),
        )
        .expect("load");
        exe.freeze().expect("freeze");
        let pool = gpu.pools()[0].handle();
        let queue = rt
            .create_queue(&gpu, 64, QueueType::Single, None)
            .expect("queue");
        Hsa {
            rt,
            gpu,
            pool,
            exe,
            queue,
            cov,
        }
    }

    fn alloc(&self, bytes: usize) -> u64 {
        self.rt
            .allocate(self.pool, bytes.max(1) as u64)
            .expect("allocate")
    }

    #[allow(clippy::too_many_arguments)]
    /// Runs `kernel` over `n` work-items with an image of `geo`/`format` holding `contents`
    /// and (for `Arg::Sampler`) a sampler; returns the buffers and the image's contents.
    fn run(
        &self,
        kernel: &str,
        geo: &Geo,
        format: &Fmt,
        contents: &[u8],
        samp: Option<Samp>,
        args: &[Arg],
        n: usize,
    ) -> (Vec<Vec<u8>>, Vec<u8>) {
        let rt = &self.rt;
        let agent = self.gpu.handle();
        let desc = geo.hsa_descriptor(format.hsa());
        let info = hsaemu_runtime::image::data_info(&self.gpu, &desc, DataLayout::Opaque, 0, 0)
            .expect("image data info");
        let data = self.alloc(info.size);
        let image = rt
            .create_image(agent, &desc, data, DataLayout::Opaque, 0, 0)
            .expect("create image");
        let region = Region {
            offset: [0; 3],
            range: geo.region(),
        };
        // SAFETY: `contents` holds the whole image tightly packed; the image data is a live
        // allocation of `info.size` bytes.
        unsafe { rt.import_image(agent, contents.as_ptr(), [0, 0], image.handle(), region) }
            .expect("import");
        let sampler = samp.map(|s| rt.create_sampler(agent, &s.hsa()).expect("sampler"));
        let kernel = self
            .exe
            .symbol_by_name(&format!("{kernel}.kd"), Some(agent))
            .expect("kernel symbol");
        let kernarg = self.alloc(kernel.kernarg_segment_size as usize);
        let mut buffers = Vec::new();
        for (k, a) in args.iter().enumerate() {
            let v = match a {
                Arg::Image => image.handle(),
                Arg::Sampler => sampler.as_ref().expect("a sampler").handle(),
                Arg::Buffer(b) => {
                    let p = self.alloc(b.len());
                    // SAFETY: `p` is a fresh allocation of `b.len()` bytes.
                    unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p as *mut u8, b.len()) };
                    buffers.push((p, b.len()));
                    p
                }
            };
            // SAFETY: the kernarg segment holds one 8-byte slot per explicit argument.
            unsafe { *(kernarg as *mut u64).add(k) = v };
        }
        // Code object V5 (the clang-22 targets) reads the work-group size from the implicit
        // arguments after the explicit ones: hidden_block_count_x (u32 at +0),
        // hidden_group_size_x (u16 at +12), hidden_remainder_x (u16 at +18); global offsets 0.
        let hidden = 8 * args.len();
        if self.cov >= 5 && kernel.kernarg_segment_size as usize >= hidden + 20 {
            // SAFETY: the kernarg segment is `kernarg_segment_size` bytes, past `hidden + 20`.
            unsafe {
                let at = (kernarg as *mut u8).add(hidden);
                std::ptr::write_bytes(at, 0, kernel.kernarg_segment_size as usize - hidden);
                *(at as *mut u32) = n.div_ceil(64) as u32;
                *(at.add(12) as *mut u16) = 64;
                *(at.add(18) as *mut u16) = (n % 64) as u16;
            }
        }
        let done = rt.create_signal(1).expect("signal");
        let p = KernelDispatchPacket {
            header: u16::from(packet_type::KERNEL_DISPATCH)
                | (1 << packet_header::BARRIER)
                | (2 << packet_header::SCACQUIRE_FENCE_SCOPE)
                | (2 << packet_header::SCRELEASE_FENCE_SCOPE),
            setup: 1,
            workgroup_size_x: 64,
            workgroup_size_y: 1,
            workgroup_size_z: 1,
            grid_size_x: n as u32,
            grid_size_y: 1,
            grid_size_z: 1,
            group_segment_size: kernel.group_segment_size,
            private_segment_size: kernel.private_segment_size,
            kernel_object: kernel.address,
            kernarg_address: kernarg,
            completion_signal: done.handle(),
            ..Default::default()
        };
        self.queue.submit(&p.to_bytes()).expect("submit");
        let left = done.wait(
            SignalCondition::Lt,
            1,
            None,
            WaitState::Blocked,
            MemoryOrder::Acquire,
        );
        assert_eq!(left, 0, "{} did not complete", kernel.name);
        let out: Vec<Vec<u8>> = buffers
            .iter()
            // SAFETY: each buffer holds `len` bytes the completed kernel may have written.
            .map(|&(p, len)| unsafe { std::slice::from_raw_parts(p as *const u8, len) }.to_vec())
            .collect();
        let mut img = vec![0u8; contents.len()];
        // SAFETY: `img` holds the whole image tightly packed.
        unsafe { rt.export_image(agent, image.handle(), img.as_mut_ptr(), [0, 0], region) }
            .expect("export");
        if let Some(s) = sampler {
            rt.destroy_sampler(agent, s.handle())
                .expect("destroy sampler");
        }
        rt.destroy_image(agent, image.handle())
            .expect("destroy image");
        for (p, _) in buffers {
            rt.memory().free(p).expect("free");
        }
        rt.memory().free(kernarg).expect("free");
        rt.memory().free(data).expect("free");
        (out, img)
    }
}

/// PoCL's CPU device.
struct Pocl {
    context: Context,
    queue: CommandQueue,
    program: Program,
}

impl Pocl {
    fn new() -> Pocl {
        let platforms = get_platforms().expect("an OpenCL platform: install pocl-opencl-icd");
        let platform = platforms
            .into_iter()
            .find(|p| {
                p.name()
                    .is_ok_and(|n| n.contains("Portable Computing Language"))
            })
            .expect("the PoCL platform: install pocl-opencl-icd");
        let id = *platform
            .get_devices(CL_DEVICE_TYPE_CPU)
            .expect("PoCL devices")
            .first()
            .expect("a PoCL CPU device");
        let device = Device::new(id);
        let context = Context::from_device(&device).expect("context");
        let queue = CommandQueue::create_default_with_properties(&context, 0, 0).expect("queue");
        let source = std::fs::read_to_string(hsaemu_testkit::kernels_dir().join(SOURCE))
            .expect("kernel source");
        let program = Program::create_and_build_from_source(&context, &source, "-cl-std=CL2.0")
            .expect("PoCL builds the image kernels");
        Pocl {
            context,
            queue,
            program,
        }
    }

    /// As [`Hsa::run`].
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        kernel: &str,
        geo: &Geo,
        format: &Fmt,
        contents: &[u8],
        samp: Option<Samp>,
        args: &[Arg],
        n: usize,
    ) -> (Vec<Vec<u8>>, Vec<u8>) {
        let mut init = contents.to_vec();
        let f = format.cl();
        let d = geo.cl_descriptor();
        // A 1D buffer image lives in a buffer created with the contents.
        let backing = (geo.hsa == 5).then(|| {
            // SAFETY: `init` holds the whole image, copied at creation.
            unsafe {
                Buffer::<u8>::create(
                    &self.context,
                    CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                    init.len(),
                    init.as_mut_ptr().cast(),
                )
            }
            .expect("PoCL image buffer")
        });
        let mut d = d;
        let host = match &backing {
            Some(b) => {
                d.buffer = b.get();
                std::ptr::null_mut()
            }
            None => init.as_mut_ptr().cast(),
        };
        let flags = CL_MEM_READ_WRITE
            | if backing.is_some() {
                0
            } else {
                CL_MEM_COPY_HOST_PTR
            };
        // SAFETY: `host` is null (buffer image) or `init`, the whole image tightly packed,
        // copied at creation.
        let image = unsafe { Image::create(&self.context, flags, &f, &d, host) }
            .unwrap_or_else(|e| panic!("PoCL image {format:?} {}: {e}", geo.name));
        let sampler = samp.map(|s| {
            let address = 0x1130 + s.address;
            let filter = if s.linear { 0x1141 } else { 0x1140 };
            Sampler::create(&self.context, u32::from(s.normalized), address, filter)
                .expect("PoCL sampler")
        });
        let k = Kernel::create(&self.program, kernel).expect("PoCL kernel");
        let mut buffers = Vec::new();
        for a in args {
            if let Arg::Buffer(b) = a {
                let mut bytes = b.to_vec();
                // SAFETY: `bytes` holds `len` bytes, copied at creation.
                let buf = unsafe {
                    Buffer::<u8>::create(
                        &self.context,
                        CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                        bytes.len(),
                        bytes.as_mut_ptr().cast(),
                    )
                }
                .expect("PoCL buffer");
                buffers.push(buf);
            }
        }
        let mut exec = ExecuteKernel::new(&k);
        let mut next = 0;
        for a in args {
            // SAFETY: arguments in the kernel's parameter order with their declared types.
            unsafe {
                match a {
                    Arg::Image => exec.set_arg(&image.get()),
                    Arg::Sampler => exec.set_arg(&sampler.as_ref().expect("sampler").get()),
                    Arg::Buffer(_) => {
                        next += 1;
                        exec.set_arg(&buffers[next - 1].get())
                    }
                };
            }
        }
        // SAFETY: every argument is set.
        unsafe { exec.set_global_work_size(n).enqueue_nd_range(&self.queue) }.expect("PoCL run");
        self.queue.finish().expect("PoCL finish");
        let out: Vec<Vec<u8>> = args
            .iter()
            .filter_map(|a| match a {
                Arg::Buffer(b) => Some(b.len()),
                _ => None,
            })
            .zip(&buffers)
            .map(|(len, b)| {
                let mut v = vec![0u8; len];
                // SAFETY: a blocking read of `len` bytes from a buffer of that size.
                unsafe {
                    self.queue
                        .enqueue_read_buffer(b, CL_BLOCKING, 0, &mut v, &[])
                }
                .expect("PoCL read");
                v
            })
            .collect();
        let mut img = vec![0u8; contents.len()];
        let region = geo.dims;
        // SAFETY: a blocking read of the whole image, tightly packed, into `img`.
        unsafe {
            self.queue.enqueue_read_image(
                &image,
                CL_BLOCKING,
                [0usize; 3].as_ptr(),
                region.as_ptr(),
                0,
                0,
                img.as_mut_ptr().cast(),
                &[],
            )
        }
        .expect("PoCL read image");
        (out, img)
    }
}

/// Integer coordinates of every texel (as int4), in image order.
fn all_texels(geo: &Geo) -> Vec<u8> {
    let [w, h, d] = geo.dims;
    let mut out = Vec::new();
    for z in 0..d {
        for y in 0..h {
            for x in 0..w {
                for v in [x, y, z, 0] {
                    out.extend_from_slice(&(v as i32).to_le_bytes());
                }
            }
        }
    }
    out
}

/// Float sample coordinates: each spatial coordinate away from texel edges (so nearest
/// filtering cannot tie), some outside the image; layers are integers.
fn sample_coords(geo: &Geo, samp: &Samp, n: usize, seed: u32) -> Vec<u8> {
    let mut r = Lcg(seed);
    let (comps, spatial) = match geo.hsa {
        0 => (1, 1),
        1 => (2, 2),
        2 => (4, 3),
        3 => (2, 1),
        _ => (4, 2),
    };
    let mut out = Vec::new();
    for _ in 0..n {
        for c in 0..comps {
            let v = if c < spatial {
                let size = geo.dims[c] as f32;
                // Texel index in [-3, size + 3), plus a fraction in [0.1, 0.9).
                let t = (r.next() % (geo.dims[c] as u32 + 6)) as f32 - 3.0;
                let frac = 0.1 + (r.next() % 800) as f32 / 1000.0;
                let u = t + frac;
                if samp.normalized {
                    u / size
                } else {
                    u
                }
            } else if c == spatial && geo.hsa >= 3 {
                (r.next() % (geo.dims[spatial] as u32 + 2)) as f32 - 1.0
            } else {
                0.0
            };
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// The coordinates to give PoCL for `coords`: OpenCL never normalizes an array's layer
/// coordinate, but PoCL scales it by the layer count under a normalized sampler, so the layer
/// is handed to it pre-divided (with a quarter-layer offset, so neither rounding nor
/// flooring moves it).
fn pocl_coords(geo: &Geo, samp: &Samp, coords: &[u8]) -> Vec<u8> {
    let (comps, layer) = match geo.hsa {
        3 => (2, 1),
        4 => (4, 2),
        _ => return coords.to_vec(),
    };
    if !samp.normalized {
        return coords.to_vec();
    }
    let layers = geo.dims[layer] as f32;
    let mut v = floats(coords);
    for c in v.chunks_mut(comps) {
        c[layer] = (c[layer] + 0.25) / layers;
    }
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// The first component where hsaemu's results `a` differ from PoCL's `b` beyond what the
/// definitions allow, or `None`. `tol`: the absolute tolerance of linear filtering.
/// Normalized formats may differ by 1 ulp: hsaemu converts exactly (c / (2^n - 1), correctly
/// rounded, as the texture unit does) where PoCL multiplies by the reciprocal. PoCL reads the
/// alpha of an R image as 0; OpenCL specifies 1 (1.0f or 1), which hsaemu must give.
fn mismatch(f: &Fmt, a: &[u8], b: &[u8], tol: Option<f32>) -> Option<usize> {
    let words = |v: &[u8]| -> Vec<u32> {
        v.chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    };
    let (a, b) = (words(a), words(b));
    let one = if f.kind == Kind::F { 1f32.to_bits() } else { 1 };
    let normalized = f.ty <= 3;
    a.iter().zip(&b).enumerate().position(|(k, (&x, &y))| {
        if f.order == 1 && k % 4 == 3 {
            return x != one;
        }
        let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
        match tol {
            Some(t) => (fx - fy).abs() > t || fx.is_nan() != fy.is_nan(),
            None if normalized => (i64::from(x as i32) - i64::from(y as i32)).abs() > 1,
            None => x != y,
        }
    })
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

/// On `HSAEMU_TARGET`'s agent, then on a gfx1030 agent (GFX10.3 T#/V# words, MIMG with `dim`,
/// unified formats), then on gfx1201 and gfx1100 agents (GFX12 and GFX11 words, kernels by
/// clang-22). One test: PoCL's contexts do not run side by side in one process.
#[test]
fn image_kernels_match_pocl() {
    match_pocl(Hsa::new());
    hsaemu_runtime::shut_down().expect("shut down");
    match_pocl(Hsa::for_target("gfx1030"));
    // GFX12 (RDNA4): clang-22's VIMAGE/VSAMPLE code over GFX12 T#/S# words.
    match_pocl(Hsa::for_target("gfx1201"));
    // GFX11 (RDNA3): GFX11 T#/V# words, MIMG with `dim` and NSA.
    match_pocl(Hsa::for_target("gfx1100"));
}

fn match_pocl(hsa: Hsa) {
    let pocl = Pocl::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (gi, geo) in GEOS.iter().enumerate() {
        for (fi, f) in FORMATS.iter().enumerate() {
            let seed = (gi * 100 + fi) as u32;
            let contents = f.contents(geo.texels(), seed);
            let coords = all_texels(geo);
            let n = geo.texels();
            // Loads: every texel.
            let kernel = format!("load_{}_{}", geo.name, f.suffix());
            let out = vec![0u8; n * 16];
            let args = [Arg::Image, Arg::Buffer(&coords), Arg::Buffer(&out)];
            let (a, _) = hsa.run(&kernel, geo, f, &contents, None, &args, n);
            let (b, _) = pocl.run(&kernel, geo, f, &contents, None, &args, n);
            checked += 1;
            if let Some(k) = mismatch(f, &a[1], &b[1], None) {
                let word =
                    |v: &[u8]| u32::from_le_bytes(v[4 * k..4 * k + 4].try_into().expect("4 bytes"));
                failures.push(format!(
                    "{kernel} {f:?}: texel {} component {}: hsaemu {:#x} pocl {:#x}",
                    k / 4,
                    k % 4,
                    word(&a[1]),
                    word(&b[1])
                ));
            }
            // Stores: every texel, from the values the load read (so they are representable),
            // into an image that starts zeroed; compare the bytes.
            let kernel = format!("store_{}_{}", geo.name, f.suffix());
            let zero = vec![0u8; contents.len()];
            let args = [Arg::Image, Arg::Buffer(&coords), Arg::Buffer(&b[1])];
            let (_, ia) = hsa.run(&kernel, geo, f, &zero, None, &args, n);
            let (_, ib) = pocl.run(&kernel, geo, f, &zero, None, &args, n);
            checked += 1;
            if ia != ib {
                failures.push(format!("{kernel} {f:?}: image bytes differ"));
            }
        }
        // Buffer images take no sampler.
        let sampled: &[Fmt] = if geo.hsa == 5 { &[] } else { &SAMPLED };
        for (fi, f) in sampled.iter().enumerate() {
            let contents = f.contents(geo.texels(), (gi * 7 + fi) as u32);
            let kernel = format!("sample_{}_{}", geo.name, f.suffix());
            for normalized in [false, true] {
                for address in 1..=4u32 {
                    for linear in [false, true] {
                        // OpenCL defines repeat and mirrored repeat for normalized
                        // coordinates only; integer formats are read with nearest filtering.
                        if (address >= 3 && !normalized) || (linear && f.kind != Kind::F) {
                            continue;
                        }
                        let s = Samp {
                            normalized,
                            address,
                            linear,
                        };
                        let n = 64;
                        let coords = sample_coords(geo, &s, n, address * 31 + gi as u32);
                        let out = vec![0u8; n * 16];
                        let args = [
                            Arg::Image,
                            Arg::Sampler,
                            Arg::Buffer(&coords),
                            Arg::Buffer(&out),
                        ];
                        let (a, _) = hsa.run(&kernel, geo, f, &contents, Some(s), &args, n);
                        let theirs = pocl_coords(geo, &s, &coords);
                        let args = [
                            Arg::Image,
                            Arg::Sampler,
                            Arg::Buffer(&theirs),
                            Arg::Buffer(&out),
                        ];
                        let (b, _) = pocl.run(&kernel, geo, f, &contents, Some(s), &args, n);
                        checked += 1;
                        let (va, vb) = (&a[1], &b[1]);
                        // Weights have 8 fraction bits: each lerp may move by up to 2^-9
                        // of the difference of its texels (float images here lie in
                        // [-4, 4], normalized ones in [0, 1]).
                        let range: f32 = if f.ty == 15 { 8.0 } else { 1.0 };
                        let tol = linear.then_some(range * 3.0 / 512.0 + 1e-6);
                        let bad = mismatch(f, va, vb, tol);
                        if let Some(k) = bad {
                            failures.push(format!(
                                "{kernel} {f:?} {s:?}: lane {} component {}: hsaemu {:?} pocl {:?} at {:?}",
                                k / 4,
                                k % 4,
                                &floats(&va[k / 4 * 16..k / 4 * 16 + 16]),
                                &floats(&vb[k / 4 * 16..k / 4 * 16 + 16]),
                                &floats(&coords[k / 4 * coords.len() / n..(k / 4 + 1) * coords.len() / n]),
                            ));
                        }
                    }
                }
            }
        }
    }
    eprintln!("images: {checked} runs compared with PoCL");
    assert!(checked > 400, "only {checked} runs");
    drop(hsa);
    assert!(
        failures.is_empty(),
        "{} of {checked} runs differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
