//! What every fuzz driver runs on an input: every public entry point of hsaemu-codeobject
//! (input-form detection, unbundling, code object parsing, descriptor lookup for every
//! symbol and kernel, the inspect report, target ID parsing). Errors are fine; panics,
//! hangs and runaway allocations are bugs.

use hsaemu_codeobject::{
    find_code_objects, report, unbundle, unbundle_all, AmdKernelCode, CodeObject, KernelDescriptor,
    TargetId,
};

/// Runs every entry point over `data`.
pub fn exercise(data: &[u8]) {
    let _ = report::inspect(data);
    let _ = unbundle(data);
    let _ = unbundle_all(data);
    if let Ok(found) = find_code_objects(data) {
        for f in found {
            exercise_code_object(&f.data);
        }
    }
    exercise_code_object(data);
    let _ = KernelDescriptor::parse(data);
    let _ = AmdKernelCode::parse(data);
    if let Ok(s) = std::str::from_utf8(&data[..data.len().min(256)]) {
        let _ = TargetId::parse(s);
    }
}

fn exercise_code_object(data: &[u8]) {
    let Ok(co) = CodeObject::parse(data) else {
        return;
    };
    let _ = (
        co.load_size(),
        co.dynamic_relocations().len(),
        co.metadata_raw(),
        co.target().isa_name(),
    );
    for s in co.symbols() {
        let _ = co.kernel_descriptor(&s.name);
        let _ = co.kernel_entry(&s.name);
        let _ = co.read_vaddr(s.value, s.size.min(1 << 20));
    }
    for k in co.kernels() {
        let _ = co.kernel_descriptor(&k.symbol);
    }
}
