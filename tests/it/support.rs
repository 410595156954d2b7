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
        // Next to the test binary, not in the kernel cache: `target/kernels` may be shared
        // between checkouts, and one checkout's link would then run another's library.
        let dir = deps.parent().unwrap_or(deps).join("hsaemu-lib");
        std::fs::create_dir_all(&dir).expect("create library dir");
        let link = dir.join("libhsa-runtime64.so.1");
        // Renamed into place: an `hsaemu exec` another test started may be reading the link.
        let tmp = dir.join(format!("libhsa-runtime64.so.1.tmp{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(so.canonicalize().expect("canonical .so path"), &tmp)
            .expect("symlink the library");
        std::fs::rename(&tmp, &link).expect("rename the library link into place");
        dir
    })
}
