//! hsaemu-capi: the C ABI (filled in by the HSA runtime issue).
