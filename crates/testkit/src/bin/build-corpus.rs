//! Compiles the whole kernel corpus ([`hsaemu_testkit::corpus`]) into the kernel cache and
//! exits: what the first corpus test would otherwise compile on a cold cache.
//! `scripts/test.sh` runs it at low priority beside cargo's build, on the cores the build leaves
//! idle (docs/notes/ci-time.md). A failed compile panics with the compiler's message.

fn main() {
    let entries = hsaemu_testkit::corpus();
    println!(
        "build-corpus: {} corpus files in {}",
        entries.len(),
        hsaemu_testkit::cache_dir().display()
    );
}
