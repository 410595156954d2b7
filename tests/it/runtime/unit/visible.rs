//! crates/runtime/src/visible.rs's unit tests.

use hsaemu_runtime::visible::parse;

fn uuid(i: u32) -> String {
    format!("GPU-{i:016x}")
}

#[test]
fn indices_select_and_order_gpus() {
    assert_eq!(parse("0", 2, uuid), vec![0]);
    assert_eq!(parse("1,0", 2, uuid), vec![1, 0]);
    assert_eq!(parse(" 1 , 0 ", 4, uuid), vec![1, 0]);
    assert_eq!(parse("0,2", 4, uuid), vec![0, 2]);
}

#[test]
fn the_first_invalid_entry_ends_the_list() {
    assert_eq!(parse("-1", 2, uuid), Vec::<u32>::new());
    assert_eq!(parse("2", 2, uuid), Vec::<u32>::new());
    assert_eq!(parse("1,5,0", 2, uuid), vec![1]);
    assert_eq!(parse("0,x,1", 2, uuid), vec![0]);
    assert_eq!(parse("1,1,0", 2, uuid), vec![1]);
    assert_eq!(parse("", 2, uuid), Vec::<u32>::new());
}

#[test]
fn the_runtime_surfaces_only_visible_gpus_in_their_order() {
    let config = |visible| hsaemu_runtime::agent::Config {
        target: hsaemu_runtime::agent::Isa::parse("gfx90a", true).expect("isa"),
        gpus: 3,
        compute_units: 1,
        cu_masks: Default::default(),
        cu_mask_skip_init: false,
        visible,
    };
    let nodes = |visible| {
        let rt = hsaemu_runtime::internals::runtime(config(visible)).expect("runtime");
        let nodes: Vec<(u32, String)> = rt
            .gpu_agents()
            .map(|a| (a.properties().node, a.properties().uuid.clone()))
            .collect();
        nodes
    };
    let two_then_zero = nodes(Some(vec![2, 0]));
    assert_eq!(
        two_then_zero,
        vec![
            (3, hsaemu_runtime::internals::gpu_uuid(2)),
            (1, hsaemu_runtime::internals::gpu_uuid(0))
        ]
    );
    assert!(nodes(Some(vec![])).is_empty());
    assert_eq!(nodes(None).len(), 3);
}

#[test]
fn uuids_name_gpus() {
    assert_eq!(parse("gpu-0000000000000001,0", 2, uuid), vec![1, 0]);
    assert_eq!(parse("GPU-00000000000000ff", 2, uuid), Vec::<u32>::new());
}
