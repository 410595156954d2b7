//! hsaemu-codeobject (see the crate description; filled in by its issue).
