//! cargo-fuzz target: every entry point of hsaemu-codeobject over libFuzzer's inputs.
//! Seed it with real code objects: `cargo +nightly fuzz run parse ../target/kernels`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    hsaemu_codeobject_fuzz::exercise(data);
});
