//! What every fuzz driver runs on an input: every public entry point of hsaemu-codeobject
//! (input-form detection, unbundling, code object parsing, descriptor lookup for every
//! symbol and kernel, the inspect report, target ID parsing), and hsaemu-isa's decoder and
//! disassembler on every `.text` found (its own generation, and GFX10 in both wave sizes) and
//! on the raw input under every generation. Errors are fine; panics, hangs and runaway
//! allocations are bugs.

pub mod mutation;

use hsaemu_codeobject::{
    find_code_objects, report, unbundle, unbundle_all, AmdKernelCode, CodeObject, KernelDescriptor,
    TargetId,
};
use hsaemu_isa::Gen;

/// Every generation with decoding tables (and the reserved one, which must fail cleanly).
const GENS: [Gen; Gen::ALL.len()] = Gen::ALL;

/// Decodes and formats every instruction of `bytes` (as `.text` at `base`) for `gen`.
fn disassemble(gen: Gen, bytes: &[u8], base: u64) {
    for (off, r) in hsaemu_isa::decode_all(gen, bytes) {
        if let Ok(inst) = r {
            let _ = hsaemu_isa::format(&inst, gen, base.wrapping_add(off));
            let _ = inst.dst_dwords();
        }
    }
    let _ = hsaemu_isa::listing(gen, bytes, base, &[], None);
}

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
    // Raw bytes as machine code, capped so one input stays fast.
    let raw = &data[..data.len().min(1 << 16)];
    for gen in GENS {
        disassemble(gen, raw, 0);
    }
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
    let gen = Gen::from_processor(co.target().processor());
    for s in co.sections().iter().filter(|s| s.name == ".text") {
        let text = usize::try_from(s.offset)
            .ok()
            .zip(usize::try_from(s.size).ok())
            .and_then(|(o, n)| data.get(o..o.checked_add(n)?));
        let Some(text) = text else { continue };
        if let Some(g) = gen {
            disassemble(g, text, s.addr);
        }
        disassemble(Gen::Gfx10, text, s.addr);
        disassemble(Gen::Gfx10W64, text, s.addr);
    }
}
