//! Crates built with `doctest = false` (so `cargo test` does not run rustdoc on them only to find
//! no doc test: docs/notes/ci-time.md, "Round 34") must not have a doc example rustdoc would
//! run, or it would go untested without a word.

use std::path::{Path, PathBuf};

use hsaemu_testkit::workspace_root;

/// Whether a fence's info string makes rustdoc compile the block as a doc test: no info string,
/// or one of rustdoc's Rust attributes (`ignore` blocks are listed but not run). Any other word
/// (`text`, `c`, `sh`) is another language.
fn is_doctest(info: &str) -> bool {
    let words = info
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty());
    let mut rust = true;
    for word in words {
        match word {
            "rust" | "should_panic" | "no_run" | "compile_fail" | "test_harness" => {}
            "ignore" => return false,
            w if w.starts_with("edition") => {}
            _ => rust = false,
        }
    }
    rust
}

/// The doc-comment lines (`///`, `//!`) of `text` that open a fenced block rustdoc would run.
fn doctest_fences(text: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut open: Option<&str> = None;
    for (number, line) in text.lines().enumerate() {
        let line = line.trim_start();
        let Some(doc) = line
            .strip_prefix("///")
            .or_else(|| line.strip_prefix("//!"))
        else {
            continue;
        };
        let doc = doc.trim_start();
        let fence = ["```", "~~~"].into_iter().find(|f| doc.starts_with(f));
        match (open, fence) {
            (None, Some(f)) => {
                open = Some(f);
                if is_doctest(doc.trim_start_matches(f.as_bytes()[0] as char)) {
                    found.push(number + 1);
                }
            }
            (Some(o), Some(f)) if o == f => open = None,
            _ => {}
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("source directory").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_fence_check_sees_a_doc_example() {
    assert_eq!(
        doctest_fences("//! ```\n//! let a = 1;\n//! ```\n/// ```text\n/// a\n/// ```\n"),
        [1]
    );
    assert_eq!(
        doctest_fences("/// ```rust,no_run\n/// f();\n/// ```\n/// ```ignore\n/// ```\n"),
        [1]
    );
}

#[test]
fn crates_without_doc_tests_have_no_doc_example() {
    let root = workspace_root();
    let mut manifests: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| e.path().join("Cargo.toml"))
        .filter(|p| p.is_file())
        .collect();
    manifests.sort();
    let mut checked = 0;
    let mut examples = Vec::new();
    for manifest in &manifests {
        let text = std::fs::read_to_string(manifest).expect("manifest");
        if !text.lines().any(|l| l.trim() == "doctest = false") {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&manifest.with_file_name("src"), &mut files);
        files.sort();
        for file in files {
            let source = std::fs::read_to_string(&file).expect("source file");
            checked += 1;
            for line in doctest_fences(&source) {
                examples.push(format!("{}:{line}", file.display()));
            }
        }
    }
    assert!(checked > 100, "only {checked} source files found");
    assert!(
        examples.is_empty(),
        "doc examples in crates with `doctest = false` in their manifest (they would not run; \
         take that line out of the crate's [lib], or mark the block `text`): {examples:#?}"
    );
}
