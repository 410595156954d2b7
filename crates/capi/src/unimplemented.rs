//! The exported functions hsaemu does not implement: one reviewed list. Each gets its own
//! stub, `hsaemu_stub_<name>`, which returns `HSA_STATUS_ERROR` (never a silent success) and,
//! when `HSAEMU_TRACE` includes `api` or `unimplemented`, says on stderr which function was
//! called. The stubs ignore their arguments, which is sound under the x86-64 System V calling
//! convention (the caller owns argument registers and stack). `hsa-runtime64`'s build script
//! links every ROCm export that has neither an implementation nor an alias to its stub here,
//! and refuses to link one that has none. docs/status-runtime.md lists them.

use crate::util::HSA_STATUS_ERROR;

/// Reports a call to an unimplemented function (when tracing) and returns its status.
pub fn unimplemented(name: &str) -> u32 {
    if crate::util::trace_enabled("unimplemented") {
        eprintln!("hsaemu: {name} is not implemented; returning HSA_STATUS_ERROR");
    }
    HSA_STATUS_ERROR
}

macro_rules! stubs {
    ($($stub:ident => $name:literal;)*) => {
        $(
            #[doc = concat!("`", $name, "`: not implemented, returns `HSA_STATUS_ERROR`.")]
            #[unsafe(no_mangle)]
            pub extern "C" fn $stub() -> u32 {
                unimplemented($name)
            }
        )*
        /// The names of every stubbed function.
        pub const UNIMPLEMENTED: &[&str] = &[$($name),*];
    };
}

stubs! {
    hsaemu_stub_hsa_amd_interop_map_buffer => "hsa_amd_interop_map_buffer";
    hsaemu_stub_hsa_amd_interop_unmap_buffer => "hsa_amd_interop_unmap_buffer";
    hsaemu_stub_hsa_ext_program_add_module => "hsa_ext_program_add_module";
    hsaemu_stub_hsa_ext_program_create => "hsa_ext_program_create";
    hsaemu_stub_hsa_ext_program_destroy => "hsa_ext_program_destroy";
    hsaemu_stub_hsa_ext_program_finalize => "hsa_ext_program_finalize";
    hsaemu_stub_hsa_ext_program_get_info => "hsa_ext_program_get_info";
    hsaemu_stub_hsa_ext_program_iterate_modules => "hsa_ext_program_iterate_modules";
}
