//! Formerly hsaemu-codeobject's unit tests of src/metadata.rs (docs/notes/ci-time.md, "Round 38").

use hsaemu_codeobject::metadata::*;

#[test]
fn v2_yaml_offsets_follow_alignment() {
    let text = "---\nVersion: [ 1, 0 ]\nPrintf: [ '1:3:4:4:4:hello %d %f %s\\n' ]\nKernels:\n  - Name: k\n    SymbolName: 'k@kd'\n    Args:\n      - Size: 4\n        Align: 4\n        ValueKind: ByValue\n      - Size: 8\n        Align: 8\n        ValueKind: GlobalBuffer\n        AddrSpaceQual: Global\n        Vendor.Key: 3\n      - Size: 8\n        Align: 8\n        ValueKind: HiddenGlobalOffsetX\n    CodeProps:\n      KernargSegmentSize: 24\n      NumSGPRs: 10\n      NumVGPRs: 3\n      WavefrontSize: 64\n...\n";
    let v = decode_yaml(text, 0).expect("yaml");
    let md = interpret_v2(&v, 0).expect("metadata");
    assert_eq!(md.version, vec![1, 0]);
    assert_eq!(md.printf[0].arg_sizes, vec![4, 4, 4]);
    let k = &md.kernels[0];
    assert_eq!(
        k.args.iter().map(|a| a.offset).collect::<Vec<_>>(),
        vec![0, 8, 16]
    );
    assert_eq!(k.args[2].value_kind, ValueKind::HiddenGlobalOffsetX);
    assert_eq!(k.args[1].extra[0].0, "Vendor.Key");
    assert_eq!(k.sgpr_count, 10);
}

fn mp(pairs: Vec<(&str, rmpv::Value)>) -> rmpv::Value {
    rmpv::Value::Map(
        pairs
            .into_iter()
            .map(|(k, v)| (rmpv::Value::from(k), v))
            .collect(),
    )
}

#[test]
fn every_v3_to_v6_key_is_understood() {
    use rmpv::Value as M;
    let dim = || M::Array(vec![M::from(64), M::from(1), M::from(1)]);
    let mut args = Vec::new();
    for (i, (v3, _, _)) in VALUE_KINDS.iter().enumerate() {
        args.push(mp(vec![
            (".name", M::from(format!("a{i}"))),
            (".type_name", M::from("int*")),
            (".offset", M::from(i * 8)),
            (".size", M::from(8)),
            (".value_kind", M::from(*v3)),
            (".value_type", M::from("i32")),
            (".pointee_align", M::from(4)),
            (".address_space", M::from("global")),
            (".access", M::from("read_only")),
            (".actual_access", M::from("read_write")),
            (".is_const", M::from(true)),
            (".is_restrict", M::from(true)),
            (".is_volatile", M::from(true)),
            (".is_pipe", M::from(false)),
        ]));
    }
    let kernel = mp(vec![
        (".name", M::from("k")),
        (".symbol", M::from("k.kd")),
        (".language", M::from("OpenCL C")),
        (".language_version", M::Array(vec![M::from(2), M::from(0)])),
        (".args", M::Array(args)),
        (".reqd_workgroup_size", dim()),
        (".workgroup_size_hint", dim()),
        (".vec_type_hint", M::from("int")),
        (".device_enqueue_symbol", M::from("k.runtime_handle")),
        (".kernarg_segment_size", M::from(256u32)),
        (".group_segment_fixed_size", M::from(16)),
        (".private_segment_fixed_size", M::from(32)),
        (".kernarg_segment_align", M::from(8)),
        (".wavefront_size", M::from(64)),
        (".sgpr_count", M::from(20)),
        (".vgpr_count", M::from(10)),
        (".agpr_count", M::from(4)),
        (".max_flat_workgroup_size", M::from(256)),
        (".sgpr_spill_count", M::from(1)),
        (".vgpr_spill_count", M::from(2)),
        (".kind", M::from("init")),
        (".max_num_work_groups_x", M::from(7)),
        (".max_num_work_groups_y", M::from(8)),
        (".max_num_work_groups_z", M::from(9)),
        (".uses_dynamic_stack", M::from(true)),
        (".workgroup_processor_mode", M::from(true)),
        (".uniform_work_group_size", M::from(1)),
        (".future_key", M::from(5)),
    ]);
    let root = mp(vec![
        ("amdhsa.version", M::Array(vec![M::from(1), M::from(2)])),
        ("amdhsa.target", M::from("amdgcn-amd-amdhsa--gfx90a:xnack-")),
        (
            "amdhsa.printf",
            M::Array(vec![M::from("1:2:4:8:x=%d y=%ld\n")]),
        ),
        ("amdhsa.kernels", M::Array(vec![kernel])),
        ("vendor.extension", M::Nil),
    ]);
    let mut bytes = Vec::new();
    rmpv::encode::write_value(&mut bytes, &root).expect("encode");
    let md = interpret_v3(&decode_msgpack(&bytes, 0).expect("decode"), 0).expect("interpret");
    assert_eq!(md.version, vec![1, 2]);
    assert_eq!(
        md.target.as_deref(),
        Some("amdgcn-amd-amdhsa--gfx90a:xnack-")
    );
    assert_eq!(
        md.printf,
        vec![PrintfInfo {
            id: 1,
            arg_sizes: vec![4, 8],
            format: "x=%d y=%ld\n".into()
        }]
    );
    assert_eq!(md.extra.len(), 1);
    let k = &md.kernels[0];
    assert_eq!(
        k.extra,
        vec![(".future_key".to_string(), Value::Int(5))],
        "only the unknown key is extra"
    );
    assert_eq!(
        (k.agpr_count, k.sgpr_spill_count, k.vgpr_spill_count),
        (Some(4), Some(1), Some(2))
    );
    assert_eq!(
        (k.reqd_workgroup_size, k.workgroup_size_hint),
        (Some([64, 1, 1]), Some([64, 1, 1]))
    );
    assert_eq!(k.kind, KernelKind::Init);
    assert_eq!(k.max_num_work_groups, [Some(7), Some(8), Some(9)]);
    assert_eq!(
        (
            k.uses_dynamic_stack,
            k.workgroup_processor_mode,
            k.uniform_work_group_size
        ),
        (Some(true), Some(true), Some(1))
    );
    assert_eq!(k.device_enqueue_symbol.as_deref(), Some("k.runtime_handle"));
    assert_eq!(k.args.len(), VALUE_KINDS.len());
    for (a, (_, _, kind)) in k.args.iter().zip(VALUE_KINDS) {
        assert_eq!(&a.value_kind, kind);
        assert!(a.extra.is_empty(), "{:?}", a.extra);
        assert_eq!(a.address_space, Some(AddressSpace::Global));
        assert_eq!(
            (a.access.clone(), a.actual_access.clone()),
            (Some(Access::ReadOnly), Some(Access::ReadWrite))
        );
        assert!(a.is_const && a.is_restrict && a.is_volatile && !a.is_pipe);
        assert_eq!(a.pointee_align, Some(4));
    }
    // A missing required argument key is named with its path.
    let bad = mp(vec![
        ("amdhsa.version", M::Array(vec![M::from(1), M::from(0)])),
        (
            "amdhsa.kernels",
            M::Array(vec![mp(vec![(".name", M::from("k"))])]),
        ),
    ]);
    let mut bytes = Vec::new();
    rmpv::encode::write_value(&mut bytes, &bad).expect("encode");
    let e = interpret_v3(&decode_msgpack(&bytes, 0x40).expect("decode"), 0x40)
        .expect_err("missing keys");
    assert_eq!(
        e.to_string(),
        "metadata at offset 0x40: amdhsa.kernels[0].symbol: required key is missing"
    );
}

#[test]
fn every_v2_key_is_understood() {
    let text = "---\nVersion: [ 1, 0 ]\nKernels:\n  - Name: k\n    SymbolName: 'k@kd'\n    Language: OpenCL C\n    LanguageVersion: [ 2, 0 ]\n    Attrs:\n      ReqdWorkGroupSize: [ 64, 1, 1 ]\n      WorkGroupSizeHint: [ 32, 1, 1 ]\n      VecTypeHint: int\n      RuntimeHandle: k.handle\n    Args:\n      - Name: p\n        TypeName: 'int*'\n        Size: 8\n        Align: 8\n        ValueKind: DynamicSharedPointer\n        ValueType: I32\n        PointeeAlign: 16\n        AddrSpaceQual: Local\n        AccQual: Default\n        ActualAccQual: ReadOnly\n        IsConst: true\n        IsRestrict: true\n        IsVolatile: true\n        IsPipe: false\n    CodeProps:\n      KernargSegmentSize: 64\n      GroupSegmentFixedSize: 4\n      PrivateSegmentFixedSize: 8\n      KernargSegmentAlign: 8\n      WavefrontSize: 64\n      NumSGPRs: 12\n      NumVGPRs: 5\n      MaxFlatWorkGroupSize: 256\n      NumSpilledSGPRs: 1\n      NumSpilledVGPRs: 2\n...\n";
    let md = interpret_v2(&decode_yaml(text, 0).expect("yaml"), 0).expect("metadata");
    let k = &md.kernels[0];
    assert!(k.extra.is_empty(), "{:?}", k.extra);
    assert_eq!(
        (k.reqd_workgroup_size, k.workgroup_size_hint),
        (Some([64, 1, 1]), Some([32, 1, 1]))
    );
    assert_eq!(
        (k.vec_type_hint.as_deref(), k.runtime_handle.as_deref()),
        (Some("int"), Some("k.handle"))
    );
    assert_eq!(
        (
            k.kernarg_segment_size,
            k.group_segment_fixed_size,
            k.private_segment_fixed_size
        ),
        (64, 4, 8)
    );
    assert_eq!(
        (
            k.sgpr_count,
            k.vgpr_count,
            k.max_flat_workgroup_size,
            k.sgpr_spill_count,
            k.vgpr_spill_count
        ),
        (12, 5, 256, Some(1), Some(2))
    );
    let a = &k.args[0];
    assert!(a.extra.is_empty(), "{:?}", a.extra);
    assert_eq!(
        (a.value_kind.clone(), a.align, a.pointee_align),
        (ValueKind::DynamicSharedPointer, Some(8), Some(16))
    );
    assert_eq!(
        (
            a.address_space.clone(),
            a.access.clone(),
            a.actual_access.clone()
        ),
        (
            Some(AddressSpace::Local),
            Some(Access::Default),
            Some(Access::ReadOnly)
        )
    );
    assert!(a.is_const && a.is_restrict && a.is_volatile && !a.is_pipe);
}

#[test]
fn deep_yaml_is_refused() {
    let text = "[".repeat(10_000);
    assert!(decode_yaml(&text, 0).is_err());
}

#[test]
fn value_kind_names_round_trip() {
    for (v3, v2, k) in VALUE_KINDS {
        assert_eq!(&ValueKind::from_v3(v3), k);
        assert_eq!(&ValueKind::from_v2(v2), k);
        assert_eq!(k.as_str(), *v3);
    }
    assert_eq!(
        ValueKind::from_v3("hidden_future"),
        ValueKind::Unknown("hidden_future".into())
    );
    assert!(ValueKind::from_v3("hidden_future").is_hidden());
}
