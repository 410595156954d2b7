//! Bad input: truncated, corrupt, wrong-machine and hostile files get a specific one-line
//! error naming what and where — never a panic, a hang or an unbounded allocation. Hand-made
//! corruptions of real compiler output check the specific errors; proptest mutates real code
//! objects and bundles (and feeds random bytes) through every entry point.

use hsaemu_codeobject::{
    find_code_objects, report, unbundle, unbundle_all, AmdKernelCode, CodeObject, Error,
    KernelDescriptor, TargetId,
};
use hsaemu_testkit::{compile_cl, compile_hip_bundle};
use proptest::prelude::*;
use std::sync::OnceLock;

/// Real inputs: small code objects of several versions and targets, and a HIP bundle.
fn seeds() -> &'static Vec<(String, Vec<u8>)> {
    static SEEDS: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut v = Vec::new();
        for (t, cov) in [
            ("gfx803", 2),
            ("gfx906", 3),
            ("gfx90a:xnack-", 5),
            ("gfx1030", 4),
        ] {
            let p = compile_cl("cl/vector_add.cl", t, cov);
            v.push((
                p.display().to_string(),
                std::fs::read(&p).expect("read seed"),
            ));
        }
        let b = compile_hip_bundle("hip/vector_add.hip", &["gfx906", "gfx90a:xnack-"]);
        v.push((
            b.display().to_string(),
            std::fs::read(&b).expect("read seed"),
        ));
        v
    })
}

fn seed(i: usize) -> Vec<u8> {
    seeds()[i].1.clone()
}

/// Every entry point over `data`; must return, never panic.
fn exercise(data: &[u8]) {
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
    let _ = TargetId::parse(&String::from_utf8_lossy(&data[..data.len().min(64)]));
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

fn err(data: &[u8]) -> Error {
    match CodeObject::parse(data) {
        Ok(_) => panic!("corrupt input was accepted"),
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "error is not one line: {msg}");
            e
        }
    }
}

fn put_u16(d: &mut [u8], at: usize, v: u16) {
    d[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
fn put_u32(d: &mut [u8], at: usize, v: u32) {
    d[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
fn put_u64(d: &mut [u8], at: usize, v: u64) {
    d[at..at + 8].copy_from_slice(&v.to_le_bytes());
}
fn get_u64(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().expect("8 bytes"))
}

#[test]
fn header_checks_name_the_field() {
    let good = seed(2);
    assert!(CodeObject::parse(&good).is_ok());
    type Case = (usize, u8, fn(&Error) -> bool);
    let cases: Vec<Case> = vec![
        (0, b'X', |e| {
            matches!(e, Error::UnknownFormat { offset: 0, .. })
        }),
        (4, 1, |e| matches!(e, Error::WrongClass { found: 1 })),
        (5, 2, |e| matches!(e, Error::WrongEndian { found: 2 })),
        (7, 0, |e| matches!(e, Error::WrongOsAbi { found: 0 })),
        (8, 9, |e| {
            matches!(e, Error::UnsupportedAbiVersion { found: 9 })
        }),
        (18, 62, |e| matches!(e, Error::WrongMachine { found: 62 })),
        (16, 7, |e| matches!(e, Error::WrongType { found: 7 })),
        (0x30, 0xee, |e| {
            matches!(e, Error::UnknownMach { mach: 0xee, .. })
        }),
    ];
    for (at, byte, want) in cases {
        let mut d = good.clone();
        d[at] = byte;
        let e = err(&d);
        assert!(want(&e), "byte {at:#x} = {byte:#x}: unexpected error {e}");
    }
    // The e_flags xnack field says ON for a processor without xnack (gfx1030, V4).
    let mut d = seed(3);
    put_u32(&mut d, 0x30, 0x336);
    assert!(matches!(err(&d), Error::BadFlags { .. }));
}

#[test]
fn truncation_anywhere_is_an_error_with_an_offset() {
    for i in 0..seeds().len() {
        let d = seed(i);
        let step = (d.len() / 300).max(1);
        for len in (0..d.len()).step_by(step).chain([1, 4, 63, 64]) {
            let cut = &d[..len.min(d.len())];
            exercise(cut);
            if i < 4 {
                let e = err(cut);
                if len < 64 {
                    assert!(
                        matches!(
                            e,
                            Error::Truncated {
                                offset: 0,
                                needed: 64,
                                ..
                            }
                        ),
                        "{e}"
                    );
                }
            }
        }
    }
}

#[test]
fn lying_tables_are_reported_where_they_are() {
    let good = seed(2);
    // Section header table past the end.
    let mut d = good.clone();
    put_u64(&mut d, 0x28, 0xffff_ffff_0000);
    let e = err(&d);
    assert!(
        matches!(
            e,
            Error::Elf {
                offset: 0xffff_ffff_0000,
                ..
            }
        ),
        "{e}"
    );
    // Program header table past the end.
    let mut d = good.clone();
    put_u64(&mut d, 0x20, (good.len() - 8) as u64);
    assert!(matches!(
        err(&d),
        Error::Elf {
            what: "program header table",
            ..
        }
    ));
    // A PT_LOAD whose file bytes run past the end.
    let mut d = good.clone();
    let phoff = get_u64(&d, 0x20) as usize;
    let load = (0..8)
        .map(|i| phoff + i * 56)
        .find(|&p| u32::from_le_bytes(d[p..p + 4].try_into().expect("4")) == 1)
        .expect("a PT_LOAD");
    put_u64(&mut d, load + 32, u64::MAX / 2);
    let e = err(&d);
    assert!(
        matches!(
            e,
            Error::Elf {
                what: "PT_LOAD segment",
                ..
            }
        ),
        "{e}"
    );
    // A PT_LOAD claiming a 2^60-byte image.
    let mut d = good.clone();
    put_u64(&mut d, load + 40, 1 << 60);
    assert!(err(&d).to_string().contains("4 GiB"));
}

/// The file offset of the metadata note's descriptor.
fn metadata_desc_offset(d: &[u8]) -> usize {
    let co = CodeObject::parse(d).expect("seed parses");
    let n = co
        .notes()
        .iter()
        .find(|n| n.n_type == 32 || n.n_type == 10)
        .expect("metadata note");
    n.desc_offset as usize
}

#[test]
fn corrupt_notes_and_metadata_are_specific() {
    let good = seed(2);
    let desc = metadata_desc_offset(&good);
    // descsz far too large: the note record is reported.
    let mut d = good.clone();
    put_u32(&mut d, desc - 8 - 8 - 4 + 4, 0x7fff_ffff);
    let e = err(&d);
    assert!(matches!(e, Error::BadNote { .. }), "{e}");
    // A msgpack map header claiming 2^32-1 entries: bounded, and an error at the metadata.
    let mut d = good.clone();
    d[desc] = 0xdf;
    d[desc + 1..desc + 5].copy_from_slice(&[0xff; 4]);
    let e = err(&d);
    assert!(matches!(e, Error::Metadata { .. }), "{e}");
    // A required key renamed: the error names the key path.
    let mut d = good.clone();
    let pos = d
        .windows(12)
        .position(|w| w == b".sgpr_count\xcc" || w.starts_with(b".sgpr_count"))
        .expect(".sgpr_count");
    d[pos + 1] = b'x';
    let e = err(&d);
    assert!(
        e.to_string().contains("amdhsa.kernels[0].sgpr_count"),
        "{e}"
    );
    // V2 YAML: corrupt the text.
    let mut d = seed(0);
    let desc = metadata_desc_offset(&d);
    d[desc + 4] = b'[';
    d[desc + 5] = b'{';
    let e = err(&d);
    assert!(matches!(e, Error::Metadata { .. }), "{e}");
}

#[test]
fn unknown_metadata_keys_are_kept() {
    // Rename `.language` to `.lxnguage`: kept as an extra key, not rejected.
    let mut d = seed(2);
    let pos = d
        .windows(9)
        .position(|w| w == b".language")
        .expect(".language");
    d[pos + 2] = b'x';
    let co = CodeObject::parse(&d).expect("unknown keys are accepted");
    assert!(co.kernels()[0].extra.iter().any(|(k, _)| k == ".lxnguage"));
}

#[test]
fn corrupt_bundles_are_specific() {
    let good = seed(4);
    assert!(find_code_objects(&good).expect("bundle").len() >= 2);
    let mut d = good.clone();
    put_u64(&mut d, 24, u64::MAX);
    assert!(matches!(
        find_code_objects(&d),
        Err(Error::Bundle { offset: 24, .. })
    ));
    let mut d = good.clone();
    put_u64(&mut d, 32 + 16, u64::MAX - 4); // the first entry's ID length
    let e = find_code_objects(&d).expect_err("lying entry");
    assert!(matches!(e, Error::Bundle { .. }), "{e}");
    // Compressed bundle with a bad method and with garbage payload.
    let mut c = b"CCOB".to_vec();
    c.extend(2u16.to_le_bytes());
    c.extend(7u16.to_le_bytes());
    c.extend(40u32.to_le_bytes());
    c.extend(100u32.to_le_bytes());
    c.extend([0u8; 24]);
    assert!(matches!(
        find_code_objects(&c),
        Err(Error::Decompress { offset: 6, .. })
    ));
    put_u16(&mut c, 6, 1);
    assert!(matches!(
        find_code_objects(&c),
        Err(Error::Decompress { .. })
    ));
    put_u16(&mut c, 6, 0);
    assert!(matches!(
        find_code_objects(&c),
        Err(Error::Decompress { .. })
    ));
    assert!(matches!(
        find_code_objects(b"hello"),
        Err(Error::UnknownFormat { .. })
    ));
}

#[test]
fn many_partial_magics_are_scanned_linearly() {
    // An empty bundle followed by a million "__CL" prefixes that are not bundle magics: the scan
    // for the next bundle must neither recurse per candidate nor take quadratic time.
    let mut d = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    d.extend(0u64.to_le_bytes());
    for _ in 0..1_000_000 {
        d.extend(b"__CL");
    }
    let t = std::time::Instant::now();
    assert_eq!(unbundle_all(&d).expect("one empty bundle").len(), 0);
    assert!(t.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn regression_inputs_do_not_panic() {
    // Inputs found by fuzzing are kept in tests/crashers/ and must stay harmless.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crashers");
    let mut n = 0;
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd.flatten() {
            let data = std::fs::read(e.path()).expect("read crasher");
            exercise(&data);
            n += 1;
        }
    }
    eprintln!("{n} regression inputs");
}

/// A mutation: (region selector, position, new byte).
fn mutations() -> impl Strategy<Value = Vec<(u8, u32, u8)>> {
    proptest::collection::vec((0u8..4, any::<u32>(), any::<u8>()), 1..12)
}

fn mutate(mut d: Vec<u8>, muts: &[(u8, u32, u8)], cut: Option<u32>) -> Vec<u8> {
    let len = d.len().max(1);
    for &(region, pos, byte) in muts {
        // Bias towards the headers and tables (start and end of the file), where structure is.
        let at = match region {
            0 => pos as usize % len.min(512),
            1 => pos as usize % len.min(4096),
            2 => len - 1 - (pos as usize % len.min(2048)),
            _ => pos as usize % len,
        };
        if let Some(b) = d.get_mut(at) {
            *b = byte;
        }
    }
    if let Some(c) = cut {
        d.truncate(c as usize % (d.len() + 1));
    }
    d
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_code_objects_never_panic(i in 0usize..4, muts in mutations(), cut in proptest::option::weighted(0.2, any::<u32>())) {
        let d = mutate(seed(i), &muts, cut);
        exercise(&d);
    }

    #[test]
    fn mutated_bundles_never_panic(muts in mutations(), cut in proptest::option::weighted(0.2, any::<u32>())) {
        let d = mutate(seed(4), &muts, cut);
        exercise(&d);
    }

    #[test]
    fn random_bytes_never_panic(prefix in 0usize..3, body in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let mut d = [&b"\x7fELF\x02\x01\x01\x40\x03"[..], b"__CLANG_OFFLOAD_BUNDLE__", b"CCOB"][prefix].to_vec();
        d.extend(body);
        exercise(&d);
    }
}

/// Bad values deep in the metadata: each error names its path and reason exactly as the paths
/// were always written (a V3 key keeps its leading `.` after the joining one), whatever the
/// nesting, for both formats.
#[test]
fn metadata_errors_name_the_value_path() {
    use hsaemu_codeobject::metadata::{interpret_v2, interpret_v3, Value};
    fn s(t: &str) -> Value {
        Value::String(t.to_string())
    }
    fn map(kv: Vec<(&str, Value)>) -> Value {
        Value::Map(kv.into_iter().map(|(k, v)| (s(k), v)).collect())
    }
    fn ints(v: &[i128]) -> Value {
        Value::Array(v.iter().map(|&i| Value::Int(i)).collect())
    }
    fn arg3(size: Value) -> Value {
        map(vec![
            (".offset", Value::Int(0)),
            (".size", size),
            (".value_kind", s("by_value")),
        ])
    }
    fn kernel3(args: Vec<Value>, extra: Vec<(&str, Value)>) -> Value {
        let mut kv = vec![(".name", s("k")), (".symbol", s("k.kd"))];
        for key in [
            ".kernarg_segment_size",
            ".group_segment_fixed_size",
            ".private_segment_fixed_size",
            ".kernarg_segment_align",
            ".wavefront_size",
            ".sgpr_count",
            ".vgpr_count",
            ".max_flat_workgroup_size",
        ] {
            kv.push((key, Value::Int(8)));
        }
        kv.push((".args", Value::Array(args)));
        kv.extend(extra);
        map(kv)
    }
    fn v3(kernels: Vec<Value>, printf: Value) -> Value {
        map(vec![
            ("amdhsa.version", ints(&[1, 2])),
            ("amdhsa.printf", printf),
            ("amdhsa.kernels", Value::Array(kernels)),
        ])
    }
    fn path_of(r: hsaemu_codeobject::Result<hsaemu_codeobject::Metadata>) -> (String, String) {
        match r {
            Err(Error::Metadata { path, reason, .. }) => (path, reason),
            other => panic!("expected a metadata error, got {other:?}"),
        }
    }
    let good = || arg3(Value::Int(4));
    let ok = v3(vec![kernel3(vec![good()], vec![])], Value::Array(vec![]));
    assert!(interpret_v3(&ok, 0).is_ok());

    let cases3 = [
        (
            v3(
                vec![
                    kernel3(vec![good()], vec![]),
                    kernel3(vec![good(), good(), arg3(s("4"))], vec![]),
                ],
                Value::Array(vec![]),
            ),
            "amdhsa.kernels[1]..args[2]..size",
            "expected an integer, found a string",
        ),
        (
            v3(
                vec![kernel3(
                    vec![],
                    vec![(
                        ".reqd_workgroup_size",
                        Value::Array(vec![Value::Int(1), Value::Nil, Value::Int(1)]),
                    )],
                )],
                Value::Array(vec![]),
            ),
            "amdhsa.kernels[0]..reqd_workgroup_size[1]",
            "expected an integer, found nil",
        ),
        (
            v3(
                vec![kernel3(vec![map(vec![(".offset", Value::Int(0))])], vec![])],
                Value::Array(vec![]),
            ),
            "amdhsa.kernels[0]..args[0].size",
            "required key is missing",
        ),
        (
            v3(vec![], Value::Array(vec![s("1:4:%d"), ints(&[1])])),
            "amdhsa.printf[1]",
            "expected a string, found an array",
        ),
        (
            Value::Int(1),
            "(top level)",
            "expected a map, found an integer",
        ),
    ];
    for (doc, path, reason) in cases3 {
        assert_eq!(path_of(interpret_v3(&doc, 0)), (path.into(), reason.into()));
    }

    let v2 = |args: Vec<Value>, props: Vec<(&str, Value)>| {
        map(vec![
            ("Version", ints(&[1, 0])),
            (
                "Kernels",
                Value::Array(vec![map(vec![
                    ("Name", s("k")),
                    ("SymbolName", s("k@kd")),
                    ("Args", Value::Array(args)),
                    ("CodeProps", map(props)),
                ])]),
            ),
        ])
    };
    let arg2 = |align: i128| {
        map(vec![
            ("Size", Value::Int(4)),
            ("Align", Value::Int(align)),
            ("ValueKind", s("ByValue")),
        ])
    };
    assert!(interpret_v2(&v2(vec![arg2(4)], vec![]), 0).is_ok());
    assert_eq!(
        path_of(interpret_v2(&v2(vec![arg2(4), arg2(3)], vec![]), 0)),
        (
            "Kernels[0].Args[1].Align".into(),
            "3 is not a power of two".into()
        )
    );
    assert_eq!(
        path_of(interpret_v2(
            &v2(vec![], vec![("NumSGPRs", Value::Int(1 << 40))]),
            0
        )),
        (
            "Kernels[0].CodeProps.NumSGPRs".into(),
            "1099511627776 is out of range 0..2^32".into()
        )
    );
}

/// MessagePack of every kind decodes to the values written out here by hand, and a truncated
/// string fails with the owning decoder's error: its text and the offset it stopped at.
#[test]
fn msgpack_values_and_truncation_errors() {
    use hsaemu_codeobject::metadata::{decode_msgpack, Value};
    let mut d = vec![0x9b, 0xc0, 0xc3, 0xcf];
    d.extend([0xff; 8]); // u64::MAX
    d.extend([0xd0, 0x80]); // i8 -128
    d.extend([0xca, 0x3f, 0x80, 0, 0]); // f32 1.0
    d.extend([0xcb, 0x40, 0, 0, 0, 0, 0, 0, 0]); // f64 2.0
    d.extend([0xa2, b'h', b'i', 0xa1, 0xff]); // "hi", then a string that is not UTF-8
    d.extend([0xc4, 2, 1, 2, 0x81, 0xa1, b'k', 5, 0xd4, 1, 7]); // bin, {k: 5}, fixext1
    let want = Value::Array(vec![
        Value::Nil,
        Value::Bool(true),
        Value::Int(i128::from(u64::MAX)),
        Value::Int(-128),
        Value::Float(1.0),
        Value::Float(2.0),
        Value::String("hi".into()),
        Value::Binary(vec![]),
        Value::Binary(vec![1, 2]),
        Value::Map(vec![(Value::String("k".into()), Value::Int(5))]),
        Value::Binary(vec![7]),
    ]);
    assert_eq!(decode_msgpack(&d, 0).expect("decodes"), want);

    match decode_msgpack(&[0xa5, b'a', b'b'], 100) {
        Err(Error::Metadata {
            offset,
            path,
            reason,
        }) => {
            assert_eq!((offset, path.as_str()), (103, "(msgpack)"), "{reason}");
            assert!(
                reason.contains("Expected 5 bytes, read 2 bytes"),
                "{reason}"
            );
        }
        other => panic!("expected a metadata error, got {other:?}"),
    }
}
