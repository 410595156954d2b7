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
