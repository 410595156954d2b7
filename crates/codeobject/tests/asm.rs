//! Kernel descriptor bits against the assembler: `tests/kernels/asm/scale_kd.s` sets
//! `.amdhsa_*` directives to non-default values; the assembler (clang-15) encodes them, and
//! every field we decode must say what the directive said.

use hsaemu_codeobject::descriptor::float_denorm_mode;
use hsaemu_codeobject::{CodeObject, Feature, SymbolKind, Value, ValueKind};
use hsaemu_testkit::compile_asm;

#[test]
fn scale_kd_descriptor_matches_its_directives() {
    for (target, xnack) in [
        ("gfx90a:xnack-", Feature::Off),
        ("gfx90a:xnack+", Feature::On),
    ] {
        for cov in [3, 4, 5] {
            let path = compile_asm("asm/scale_kd.s", target, cov);
            let data = std::fs::read(&path).expect("read");
            let co = CodeObject::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let w = format!("{target} V{cov}");
            assert_eq!(co.version(), cov, "{w}");
            assert_eq!(co.target().processor(), "gfx90a", "{w}");
            assert_eq!(co.target().xnack(), xnack, "{w}");
            let kd = co.kernel_descriptor("scale_kd.kd").expect("descriptor");
            // .amdhsa_group_segment_fixed_size 256, .amdhsa_kernarg_size 24, private 0
            assert_eq!(
                (
                    kd.group_segment_fixed_size,
                    kd.private_segment_fixed_size,
                    kd.kernarg_size
                ),
                (256, 0, 24),
                "{w}"
            );
            // dispatch ptr (2) + kernarg ptr (2) user SGPRs; no private segment buffer
            assert!(
                kd.enable_sgpr_dispatch_ptr() && kd.enable_sgpr_kernarg_segment_ptr(),
                "{w}"
            );
            assert!(
                !kd.enable_sgpr_private_segment_buffer() && !kd.enable_sgpr_queue_ptr(),
                "{w}"
            );
            assert!(
                !kd.enable_sgpr_dispatch_id() && !kd.enable_sgpr_flat_scratch_init(),
                "{w}"
            );
            assert_eq!(kd.user_sgpr_count(), 4, "{w}");
            assert_eq!(kd.enabled_user_sgpr_count(), 4, "{w}");
            // work-group IDs X and Y, not Z; work-item ID X only; no scratch
            assert!(
                kd.enable_sgpr_workgroup_id_x() && kd.enable_sgpr_workgroup_id_y(),
                "{w}"
            );
            assert!(
                !kd.enable_sgpr_workgroup_id_z() && !kd.enable_sgpr_workgroup_info(),
                "{w}"
            );
            assert_eq!(kd.enable_vgpr_workitem_id(), 0, "{w}");
            assert!(!kd.enable_private_segment(), "{w}");
            // float modes: f32 denormals flushed, f16/f64 kept, IEEE and DX10 clamp off
            assert_eq!(
                kd.float_denorm_mode_32(),
                float_denorm_mode::FLUSH_SRC_DST,
                "{w}"
            );
            assert_eq!(
                kd.float_denorm_mode_16_64(),
                float_denorm_mode::FLUSH_NONE,
                "{w}"
            );
            assert_eq!(
                (kd.float_round_mode_32(), kd.float_round_mode_16_64()),
                (0, 0),
                "{w}"
            );
            assert!(!kd.enable_ieee_mode() && !kd.enable_dx10_clamp(), "{w}");
            // .amdhsa_accum_offset 4 → field 0; .amdhsa_next_free_vgpr 2 → one granule of 8
            assert_eq!(kd.accum_offset(), 0, "{w}");
            assert!(!kd.tg_split(), "{w}");
            let info = co.processor().expect("gfx90a known");
            assert_eq!(kd.vgpr_count(info), 8, "{w}");
            assert_eq!(kd.arch_vgpr_count(info), Some(4), "{w}");
            assert_eq!(kd.wavefront_size(info), 64, "{w}");
            assert!(
                !kd.uses_dynamic_stack() && !kd.enable_wavefront_size32(),
                "{w}"
            );
            // The entry is the function symbol.
            let func = co.symbol("scale_kd").expect("function symbol");
            assert_eq!(func.kind, SymbolKind::Function, "{w}");
            assert_eq!(
                co.kernel_entry("scale_kd.kd").expect("entry"),
                func.value,
                "{w}"
            );
            let kd_sym = co.symbol("scale_kd.kd").expect("kd symbol");
            assert_eq!(
                (kd_sym.kind, kd_sym.size, kd_sym.value % 64),
                (SymbolKind::KernelDescriptor, 64, 0),
                "{w}"
            );
            assert!(co.dynamic_relocations().is_empty(), "{w}");
            let text = co
                .load_segments()
                .iter()
                .find(|s| s.flags & 1 != 0)
                .expect("an executable PT_LOAD");
            assert!(
                text.vaddr <= func.value && func.value < text.vaddr + text.memsz,
                "{w}"
            );
            // Metadata as written, including the unknown key.
            let k = &co.kernels()[0];
            assert_eq!(
                (
                    k.name.as_str(),
                    k.sgpr_count,
                    k.vgpr_count,
                    k.max_flat_workgroup_size
                ),
                ("scale_kd", 19, 2, 64),
                "{w}"
            );
            let kinds: Vec<&ValueKind> = k.args.iter().map(|a| &a.value_kind).collect();
            assert_eq!(
                kinds,
                [
                    &ValueKind::GlobalBuffer,
                    &ValueKind::GlobalBuffer,
                    &ValueKind::ByValue
                ],
                "{w}"
            );
            assert!(k.args[0].is_const && !k.args[1].is_const, "{w}");
            assert!(
                k.extra.contains(&(
                    ".vendor.note".to_string(),
                    Value::String("hand-written".into())
                )),
                "{w}"
            );
        }
    }
}
