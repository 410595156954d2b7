//! `ROCR_VISIBLE_DEVICES`: which GPUs the runtime surfaces as agents, and in which order.
//!
//! ROCr reads a comma-separated list of GPU indices (0-based, among all GPUs of the machine) or
//! UUIDs (`GPU-…`, as `HSA_AMD_AGENT_INFO_UUID` reports them). The listed GPUs become the GPU
//! agents in the order listed. The first entry that is not a GPU — an index out of range, a
//! negative number, an unknown UUID, anything else — ends the list, and so does a GPU listed
//! twice: `-1` hides every GPU. When the variable is set, even to an empty string, only listed
//! GPUs are surfaced. HIP's tests rely on this (`Unit_hipSetDevice_*VisibleDevice*`): with no
//! GPU left, `hsa_init` succeeds with the CPU agent only and `hipGetDeviceCount` fails.

/// The physical indices of the GPUs to surface, in agent order, given the variable's value and
/// the number of emulated GPUs; `uuid(i)` is GPU `i`'s UUID.
pub fn parse(value: &str, gpus: u32, uuid: impl Fn(u32) -> String) -> Vec<u32> {
    let mut visible = Vec::new();
    for token in value.split(',').map(str::trim) {
        let index = if token.len() > 1 && token[..1].eq_ignore_ascii_case("g") {
            (0..gpus).find(|&i| uuid(i).eq_ignore_ascii_case(token))
        } else {
            token.parse::<u32>().ok().filter(|&i| i < gpus)
        };
        match index {
            Some(i) if !visible.contains(&i) => visible.push(i),
            _ => break,
        }
    }
    visible
}

/// `ROCR_VISIBLE_DEVICES` from the environment: `None` when it is not set (every GPU).
pub fn from_env(gpus: u32, uuid: impl Fn(u32) -> String) -> Option<Vec<u32>> {
    std::env::var("ROCR_VISIBLE_DEVICES")
        .ok()
        .map(|v| parse(&v, gpus, uuid))
}

#[cfg(test)]
mod tests {
    use super::parse;

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
        let config = |visible| crate::agent::Config {
            target: crate::agent::Isa::parse("gfx90a", true).expect("isa"),
            gpus: 3,
            compute_units: 1,
            cu_masks: Default::default(),
            cu_mask_skip_init: false,
            visible,
        };
        let nodes = |visible| {
            let rt = crate::runtime::Runtime::new(config(visible)).expect("runtime");
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
                (3, crate::agent::gpu_uuid(2)),
                (1, crate::agent::gpu_uuid(0))
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
}
