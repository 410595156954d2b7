//! hsaemu-emu's tests, in one binary: each file below was once a test binary of its own that
//! compiled `common/` and linked the emulator and Cranelift again (docs/notes/ci-time.md,
//! "Round 5"). A file's tests are its module: `cargo test -p hsaemu-emu-tests --test emu --
//! litmus::` (the package crates/emu-tests compiles them at opt-level 1, "Round 11").
//! `jit.rs` stays a binary of its own (`--test jit`): its one test reads the tier's
//! process-wide statistics, which other tests running beside it would change.

mod common;

mod blit;
mod cdna3;
mod coverage;
mod faults;
mod hip;
mod inst;
mod kernels;
mod litmus;
mod mfma;
mod mimg;
mod mode;
mod narrow;
mod suite;
mod v2;
mod wave_start;
mod wmma;

/// Cargo builds no test binary of its own for a file in tests/ (`autotests = false`), so a new
/// file's tests run only once it is a module above or a `[[test]]` in crates/emu-tests/Cargo.toml
/// (the package that compiles these files).
#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../emu/tests");
    let this = include_str!("emu.rs");
    let manifest = include_str!("../../emu-tests/Cargo.toml");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a tests/ entry").path();
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        if path.extension().is_some_and(|x| x == "rs") {
            assert!(
                this.lines().any(|l| l == format!("mod {name};"))
                    || manifest.contains(&format!("path = \"../emu/tests/{name}.rs\"")),
                "{} is not compiled: add `mod {name};` to tests/emu.rs",
                path.display()
            );
        }
    }
}
