//! hsaemu-runtime (see the crate description; filled in by its issue).
