//! The report behind `hsaemu inspect`: the code objects of a file with each kernel's segment
//! sizes, register counts (metadata values, plus the allocation derived from the descriptor)
//! and arguments, as condensed text (like `llvm-readelf --notes`) or as JSON.

use crate::{find_code_objects, CodeObject, Kernel, KernelDescriptor, ProcessorInfo};
use serde_json::{json, Value};

/// One kernel's descriptor-derived facts.
struct Derived {
    kd: KernelDescriptor,
    vgprs: u32,
    sgprs: Option<u32>,
    wavefront_size: u32,
}

fn derive(
    co: &CodeObject<'_>,
    k: &Kernel,
    info: Option<&ProcessorInfo>,
) -> Result<Option<Derived>, String> {
    let Some(info) = info else { return Ok(None) };
    let kd = co
        .kernel_descriptor(&k.symbol)
        .map_err(|e| format!("kernel `{}`: {e}", k.name))?;
    Ok(Some(Derived {
        kd,
        vgprs: kd.vgpr_count(info),
        sgprs: kd.sgpr_count(info),
        wavefront_size: kd.wavefront_size(info),
    }))
}

pub fn code_object_json(bundle_id: Option<&str>, co: &CodeObject<'_>) -> Result<Value, String> {
    let info = co.processor();
    let mut kernels = Vec::new();
    for k in co.kernels() {
        let d = derive(co, k, info)?;
        let args: Vec<Value> = k
            .args
            .iter()
            .map(|a| {
                let mut v = json!({"offset": a.offset, "size": a.size, "value_kind": a.value_kind.as_str()});
                if let Some(n) = &a.name {
                    v["name"] = json!(n);
                }
                if let Some(t) = &a.type_name {
                    v["type_name"] = json!(t);
                }
                if let Some(s) = &a.address_space {
                    v["address_space"] = json!(s.as_str());
                }
                v
            })
            .collect();
        let mut kv = json!({
            "name": k.name,
            "symbol": k.symbol,
            "kernarg_segment_size": k.kernarg_segment_size,
            "kernarg_segment_align": k.kernarg_segment_align,
            "group_segment_fixed_size": k.group_segment_fixed_size,
            "private_segment_fixed_size": k.private_segment_fixed_size,
            "sgpr_count": k.sgpr_count,
            "vgpr_count": k.vgpr_count,
            "agpr_count": k.agpr_count,
            "wavefront_size": k.wavefront_size,
            "max_flat_workgroup_size": k.max_flat_workgroup_size,
            "args": args,
        });
        if let Some(d) = d {
            kv["descriptor"] = json!({
                "kernarg_size": d.kd.kernarg_size,
                "group_segment_fixed_size": d.kd.group_segment_fixed_size,
                "private_segment_fixed_size": d.kd.private_segment_fixed_size,
                "kernel_code_entry_byte_offset": d.kd.kernel_code_entry_byte_offset,
                "compute_pgm_rsrc1": d.kd.compute_pgm_rsrc1,
                "compute_pgm_rsrc2": d.kd.compute_pgm_rsrc2,
                "compute_pgm_rsrc3": d.kd.compute_pgm_rsrc3,
                "kernel_code_properties": d.kd.kernel_code_properties,
                "allocated_vgpr_count": d.vgprs,
                "allocated_sgpr_count": d.sgprs,
                "wavefront_size": d.wavefront_size,
                "user_sgpr_count": d.kd.user_sgpr_count(),
            });
        }
        kernels.push(kv);
    }
    Ok(json!({
        "bundle_id": bundle_id,
        "target": co.target().isa_name(),
        "code_object_version": co.version(),
        "e_flags": co.e_flags(),
        "metadata_target": co.metadata().target,
        "kernels": kernels,
    }))
}

pub fn code_object_text(
    out: &mut String,
    bundle_id: Option<&str>,
    co: &CodeObject<'_>,
) -> Result<(), String> {
    use std::fmt::Write;
    let info = co.processor();
    let _ = write!(
        out,
        "code object V{}  target {}  e_flags {:#x}",
        co.version(),
        co.target().isa_name(),
        co.e_flags()
    );
    if let Some(id) = bundle_id {
        let _ = write!(out, "  (bundle entry {id})");
    }
    let _ = writeln!(
        out,
        "\n  {} kernel(s), load size {:#x}",
        co.kernels().len(),
        co.load_size()
    );
    for k in co.kernels() {
        let d = derive(co, k, info)?;
        let _ = writeln!(out, "  kernel {}  (symbol {})", k.name, k.symbol);
        let _ = writeln!(
            out,
            "    kernarg {} B (align {}), group {} B, private {} B, wavefront {}, max workgroup {}",
            k.kernarg_segment_size,
            k.kernarg_segment_align,
            k.group_segment_fixed_size,
            k.private_segment_fixed_size,
            k.wavefront_size,
            k.max_flat_workgroup_size
        );
        let _ = write!(out, "    sgprs {}, vgprs {}", k.sgpr_count, k.vgpr_count);
        if let Some(a) = k.agpr_count {
            let _ = write!(out, ", agprs {a}");
        }
        if let Some(d) = d {
            let _ = write!(out, "  (descriptor: {} vgprs", d.vgprs);
            if let Some(s) = d.sgprs {
                let _ = write!(out, ", {s} sgprs");
            }
            let _ = write!(
                out,
                " allocated, {} user sgprs, entry {:+#x})",
                d.kd.user_sgpr_count(),
                d.kd.kernel_code_entry_byte_offset
            );
        }
        out.push('\n');
        for (i, a) in k.args.iter().enumerate() {
            let _ = write!(
                out,
                "    arg {i:>2}: offset {:>3} size {:>2} {}",
                a.offset, a.size, a.value_kind
            );
            if let Some(n) = &a.name {
                let _ = write!(out, "  {n}");
            }
            if let Some(t) = &a.type_name {
                let _ = write!(out, " : {t}");
            }
            out.push('\n');
        }
    }
    Ok(())
}

/// The whole report for a file's bytes: `(json, text)`. Errors are one line, prefixed with the
/// bundle entry ID when the failing code object came from a bundle.
pub fn inspect(data: &[u8]) -> Result<(Value, String), String> {
    let found = find_code_objects(data).map_err(|e| e.to_string())?;
    if found.is_empty() {
        return Err("no AMDGPU code objects found".into());
    }
    let mut objects = Vec::new();
    let mut text = String::new();
    for f in &found {
        let ctx = |e: String| match &f.bundle_id {
            Some(id) => format!("bundle entry `{id}`: {e}"),
            None => e,
        };
        let co = CodeObject::parse(&f.data).map_err(|e| ctx(e.to_string()))?;
        objects.push(code_object_json(f.bundle_id.as_deref(), &co).map_err(ctx)?);
        code_object_text(&mut text, f.bundle_id.as_deref(), &co).map_err(ctx)?;
    }
    Ok((json!({ "code_objects": objects }), text))
}
