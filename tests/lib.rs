//! Cross-crate tests live in this package's `tests/`-level files; the library is empty.
