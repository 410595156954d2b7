//! What several test modules need: the `hsaemu` binary and our `libhsa-runtime64.so.1`, both
//! built by cargo next to this test binary (`scripts/test.sh` builds the workspace first).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The `hsaemu` binary cargo built next to this test binary.
pub fn hsaemu() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target profile dir");
    let bin = dir.join("hsaemu");
    assert!(
        bin.is_file(),
        "{} is missing: run `cargo build -p hsaemu-cli` (scripts/test.sh builds the workspace first)",
        bin.display()
    );
    bin
}

/// A directory holding our library as `libhsa-runtime64.so.1` (cargo builds the cdylib as a
/// dependency of this test package, next to the test binary). Putting it first on
/// `LD_LIBRARY_PATH` is exactly what `hsaemu exec` does.
pub fn library_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("test binary path");
        let deps = exe.parent().expect("deps dir");
        let so = [
            deps.join("libhsa_runtime64.so"),
            deps.join("../libhsa_runtime64.so"),
        ]
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| {
            panic!(
                "libhsa_runtime64.so was not built next to {}",
                deps.display()
            )
        });
        // Beside the library, not in the kernel cache: target/kernels may be shared by several
        // worktrees, and a shared symlink would send this run to another build's library.
        let dir = deps.join("hsaemu-lib");
        std::fs::create_dir_all(&dir).expect("create library dir");
        let link = dir.join("libhsa-runtime64.so.1");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(so.canonicalize().expect("canonical .so path"), &link)
            .expect("symlink the library");
        dir
    })
}
