//! `libhsa-runtime64.so.1`: links every `hsaemu_*` export of `hsaemu-capi` into one shared
//! library; `build.rs` gives each its public name with the `ROCR_1` version and sets the
//! soname. Cargo names the file `libhsa_runtime64.so`; `hsaemu exec` and the tests put it on
//! the library path as `libhsa-runtime64.so.1`.

pub use hsaemu_capi::*;
