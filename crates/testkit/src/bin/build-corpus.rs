//! Compiles the kernel corpus ([`hsaemu_testkit::corpus`]) into the kernel cache and exits: what
//! the first corpus test would otherwise compile on a cold cache. `HSAEMU_FULL_CORPUS=1` builds
//! the whole corpus, the duplicate code object versions of every source included (what the
//! corpus tests then walk too; docs/notes/ci-time.md, "Round 14").
//! `scripts/test.sh` runs it at low priority beside cargo's build, on the cores the build leaves
//! idle (docs/notes/ci-time.md). A failed compile panics with the compiler's message.

fn main() {
    let entries = hsaemu_testkit::corpus();
    println!(
        "build-corpus: {} corpus files{} in {}",
        entries.len(),
        if hsaemu_testkit::full_corpus() {
            " (HSAEMU_FULL_CORPUS=1)"
        } else {
            ""
        },
        hsaemu_testkit::cache_dir().display()
    );
}
