//! crates/runtime/src/trace.rs's unit tests.

#[test]
fn the_file_is_valid_json_after_every_event() {
    let dir = std::env::temp_dir().join(format!("hsaemu-trace-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("t.json");
    let t =
        hsaemu_runtime::internals::timeline(path.to_str().expect("utf-8 path")).expect("create");
    let parse = || -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(&path).expect("read");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("invalid JSON ({e}):\n{text}"))
    };
    assert_eq!(parse().len(), 1, "the copy track's name");
    t.kernel_loaded(0x1000, "vector_add.kd");
    t.packet(
        0x7000,
        3,
        "dispatch",
        Some((0x1000, [64, 1, 1], [64, 1, 1])),
        1000,
        5000,
        None,
    );
    t.packet(
        0x7000,
        4,
        "barrier-and",
        None,
        5000,
        6000,
        Some("a \"quoted\" error"),
    );
    t.copy(1, 2, 64, 7000, 8000);
    t.api_call("hsa_init", None);
    let events = parse();
    let dispatch = events
        .iter()
        .find(|e| e["cat"] == "dispatch")
        .expect("a dispatch event");
    assert_eq!(dispatch["name"], "vector_add");
    assert_eq!(dispatch["dur"], 4.0);
    assert_eq!(dispatch["args"]["grid"], "64x1x1");
    let barrier = events
        .iter()
        .find(|e| e["cat"] == "barrier-and")
        .expect("barrier");
    assert_eq!(barrier["args"]["error"], "a \"quoted\" error");
    assert!(events
        .iter()
        .any(|e| e["cat"] == "copy" && e["args"]["bytes"] == 64));
    assert!(events
        .iter()
        .any(|e| e["name"] == "hsa_init" && e["ph"] == "i"));
    let _ = std::fs::remove_dir_all(&dir);
}
