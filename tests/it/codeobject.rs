//! `hsaemu inspect` end to end: the real binary over corpus files of every form (code object,
//! bundle, host executable, librocrand) prints the documented JSON shape — identical to the
//! `hsaemu_codeobject::report` that the llvm-readelf oracle test checks — and bad input gets a
//! one-line `hsaemu: FILE: ...` error naming what and where, with exit status 1.

// The crate's API from outside, module by module (hsaemu-codeobject's unit tests were).
mod amd_kernel_code;
mod bundle;
mod code_object;
mod descriptor;
mod metadata;
mod target_id;

use hsaemu_codeobject::report;
use hsaemu_testkit::{
    compile_cl, compile_hip_bundle, compile_hip_exe, rocrand_library, HIP_TARGETS,
};
use serde_json::Value;
use std::process::{Command, Output};

fn inspect(args: &[&str]) -> Output {
    Command::new(crate::support::hsaemu())
        .arg("inspect")
        .args(args)
        .output()
        .expect("run hsaemu inspect")
}

fn assert_shape(doc: &Value) {
    let objects = doc["code_objects"].as_array().expect("code_objects array");
    assert!(!objects.is_empty());
    for co in objects {
        assert!(co["bundle_id"].is_null() || co["bundle_id"].is_string());
        assert!(co["target"]
            .as_str()
            .expect("target")
            .starts_with("amdgcn-amd-amdhsa--gfx"));
        assert!((2..=6).contains(&co["code_object_version"].as_u64().expect("version")));
        for k in co["kernels"].as_array().expect("kernels") {
            assert!(k["name"].is_string() && k["symbol"].is_string());
            for key in [
                "kernarg_segment_size",
                "group_segment_fixed_size",
                "private_segment_fixed_size",
                "sgpr_count",
                "vgpr_count",
                "wavefront_size",
            ] {
                assert!(k[key].is_u64(), "{key} in {k}");
            }
            for a in k["args"].as_array().expect("args") {
                assert!(
                    a["offset"].is_u64() && a["size"].is_u64() && a["value_kind"].is_string(),
                    "{a}"
                );
            }
        }
    }
}

#[test]
fn inspect_json_over_every_input_form() {
    let files = [
        compile_cl("cl/vector_add.cl", "gfx803", 2),
        compile_cl("cl/vector_add.cl", "gfx90a:xnack-", 5),
        compile_hip_bundle("hip/vector_add.hip", HIP_TARGETS),
        compile_hip_exe("hip/vector_add.hip", HIP_TARGETS),
        rocrand_library(),
    ];
    for f in &files {
        let path = f.display().to_string();
        let out = inspect(&["--json", &path]);
        assert!(
            out.status.success(),
            "{path}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{path}: bad JSON: {e}"));
        assert_shape(&doc);
        let (mut expected, _) = report::inspect(&std::fs::read(f).expect("read")).expect("report");
        expected["file"] = Value::String(path.clone());
        assert_eq!(doc, expected, "{path}");
    }
    // The V2 object says version 2 although its e_flags look like V3.
    let out = inspect(&["--json", &files[0].display().to_string()]);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["code_objects"][0]["code_object_version"], 2);
    // librocrand: one code object per bundle entry, with entry IDs.
    let out = inspect(&["--json", &files[4].display().to_string()]);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let ids: Vec<&str> = doc["code_objects"]
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|c| c["bundle_id"].as_str())
        .collect();
    assert!(
        ids.contains(&"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-") && ids.len() >= 7,
        "{ids:?}"
    );
}

#[test]
fn inspect_text_lists_targets_kernels_and_arguments() {
    let f = compile_cl("cl/vector_add.cl", "gfx906", 4);
    let out = inspect(&[&f.display().to_string()]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("code object V4  target amdgcn-amd-amdhsa--gfx906"),
        "{text}"
    );
    assert!(
        text.contains("  kernel ") && text.contains("global_buffer") && text.contains("sgprs "),
        "{text}"
    );
}

/// The directory `bad` writes its inputs to (removed by the test at its end).
fn bad_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("hsaemu-inspect-bad-{}", std::process::id()))
}

/// Runs inspect on `data` written to a file; returns (exit code, stderr).
fn bad(name: &str, data: &[u8]) -> (Option<i32>, String, String) {
    let dir = bad_dir();
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join(name);
    std::fs::write(&path, data).expect("write");
    let out = inspect(&["--json", &path.display().to_string()]);
    assert!(
        out.stdout.is_empty(),
        "{name}: printed a report for bad input"
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        path.display().to_string(),
    )
}

#[test]
fn bad_input_gets_a_one_line_error_and_exit_status_1() {
    let good = std::fs::read(compile_cl("cl/vector_add.cl", "gfx90a:xnack-", 5)).expect("read");
    let mut wrong_machine = good.clone();
    wrong_machine[18] = 62;
    let mut lying_shoff = good.clone();
    lying_shoff[0x28..0x30].copy_from_slice(&0x7fff_0000u64.to_le_bytes());
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated.hsaco",
            good[..40].to_vec(),
            "truncated ELF header at offset 0x0",
        ),
        (
            "machine.hsaco",
            wrong_machine,
            "offset 0x12: e_machine 62 is not EM_AMDGPU",
        ),
        (
            "shoff.hsaco",
            lying_shoff,
            "section header table at offset 0x7fff0000",
        ),
        (
            "text.txt",
            b"hello world".to_vec(),
            "unrecognised input at offset 0x0",
        ),
        (
            "bundle.hipfb",
            b"__CLANG_OFFLOAD_BUNDLE__\xff\xff\xff\xff\xff\xff\xff\xff".to_vec(),
            "offload bundle at offset 0x",
        ),
    ];
    for (name, data, want) in cases {
        let (code, stderr, path) = bad(name, &data);
        assert_eq!(code, Some(1), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: not one line: {stderr}");
        assert!(
            stderr.starts_with(&format!("hsaemu: {path}: ")),
            "{name}: {stderr}"
        );
        assert!(stderr.contains(want), "{name}: `{stderr}` lacks `{want}`");
    }
    let _ = std::fs::remove_dir_all(bad_dir());
    let out = inspect(&["/nonexistent/file.hsaco"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("hsaemu: /nonexistent/file.hsaco: "));
}
