//! Not API: thin wrappers and re-exports of the crate's private items for its unit tests,
//! which live in the integration test binary (tests/it/runtime/unit/) so that the crate is not
//! compiled a second time as a test harness (docs/notes/ci-time.md, "Round 50"). Nothing
//! here changes an item at its public path.

use crate::agent::{Agent, Config};
use crate::backend::DeviceMemoryMap;
use crate::error::Result;
use crate::image::{ImageDescriptor, ImageFormat, SamplerDescriptor};
use crate::memory::{MemoryManager, MemoryPool, PoolProperties};
use crate::runtime::Runtime;
use crate::trace::Timeline;
use hsaemu_emu::image::{Format, Layout};

/// `/proc/self/maps` and the alias plan (alias.rs is a private module: its items are re-exported).
pub use crate::alias::{create, parse_maps, plan, still_valid, Maps, Plan, Vma};

/// svm.rs's values of `HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG`.
pub const FINE_GRAINED: u64 = crate::svm::FINE_GRAINED;
pub const COARSE_GRAINED: u64 = crate::svm::COARSE_GRAINED;
pub const INDETERMINATE: u64 = crate::svm::INDETERMINATE;

/// `agent::gpu_uuid`.
pub fn gpu_uuid(index: u32) -> String {
    crate::agent::gpu_uuid(index)
}

/// `Runtime::new`.
pub fn runtime(config: Config) -> Result<Runtime> {
    Runtime::new(config)
}

/// `MemoryManager::new`.
pub fn memory_manager(device_map: DeviceMemoryMap) -> MemoryManager {
    MemoryManager::new(device_map)
}

/// `MemoryPool::new`.
pub fn memory_pool(p: PoolProperties) -> MemoryPool {
    MemoryPool::new(p)
}

/// `Timeline::create`.
pub fn timeline(path: &str) -> std::io::Result<Timeline> {
    Timeline::create(path)
}

/// image.rs's table row and an image's geometry (`#[doc(hidden)]` there: not API).
pub use crate::image::{Geometry, Property};

/// `image::property`.
pub fn property(order: u32, ty: u32) -> Option<Property> {
    crate::image::property(order, ty)
}

/// `image::supported`.
pub fn supported(agent: &Agent, geometry: u32, format: ImageFormat) -> Option<Property> {
    crate::image::supported(agent, geometry, format)
}

/// `image::swizzle`.
pub fn swizzle(order: u32) -> [u8; 4] {
    crate::image::swizzle(order)
}

/// `image::layout_of`.
pub fn layout_of(agent: &Agent) -> Option<Layout> {
    crate::image::layout_of(agent)
}

/// `image::image_words`.
pub fn image_words(
    layout: Layout,
    desc: &ImageDescriptor,
    format: Format,
    g: &Geometry,
    data: u64,
) -> [u32; 16] {
    crate::image::image_words(layout, desc, format, g, data)
}

/// `image::sampler_words`.
pub fn sampler_words(layout: Layout, desc: &SamplerDescriptor) -> Result<[u32; 4]> {
    crate::image::sampler_words(layout, desc)
}
