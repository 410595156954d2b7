//! The comgr cache's file format and option filter (crates/comgrshim/src/cache.rs's tests),
//! through the crate's hidden `internals`.

use hsaemu_comgr::internals::{decode, encode, names_a_file, Object, MAGIC};

#[test]
fn files_decode_to_what_was_encoded_and_damage_is_refused() {
    let objects = vec![
        Object {
            kind: 8,
            name: b"a.so".to_vec(),
            bytes: vec![1, 2, 3],
        },
        Object {
            kind: 5,
            name: Vec::new(),
            bytes: Vec::new(),
        },
    ];
    let f = encode(&objects);
    assert_eq!(decode(&f), Some(objects));
    for i in [0, MAGIC.len() + 3, f.len() - 40, f.len() - 1] {
        let mut bad = f.clone();
        bad[i] ^= 1;
        assert_eq!(decode(&bad), None, "flipped byte {i}");
    }
    assert_eq!(decode(&f[..f.len() - 1]), None);
    assert_eq!(decode(&[]), None);
}

#[test]
fn options_naming_files_are_found() {
    for o in [
        "-I.",
        "-include",
        "-isystem",
        "@args",
        "x/y",
        "-lfoo",
        "-L.",
        "-MD",
        "-save-temps",
    ] {
        assert!(names_a_file(o.as_bytes()), "{o}");
    }
    for o in ["-O3", "-cl-std=CL2.0", "-mcode-object-version=4", "-DX=1"] {
        assert!(!names_a_file(o.as_bytes()), "{o}");
    }
}
