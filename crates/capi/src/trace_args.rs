//! `HSAEMU_TRACE=api`: each export's call, printed on stderr with its arguments formatted by
//! type (handles in hex, enumerations by name, C strings quoted, pointers in hex, callbacks by
//! address) when it starts, and its status by name when it returns:
//!
//! ```text
//! hsaemu: api hsa_agent_get_info(agent=0x55d0c1a0, attribute=HSA_AGENT_INFO_NAME, value=0x7ffd…)
//! hsaemu: api hsa_agent_get_info -> HSA_STATUS_SUCCESS
//! ```
//!
//! The status is the one the export recorded on its way out (`trace_error!`, `status`,
//! `iterate`), success when it recorded none; nested calls (callbacks that call the API) keep
//! their own.

use std::cell::Cell;
use std::ffi::{c_char, CStr};
use std::sync::Arc;

use hsaemu_runtime::{HsaError, Runtime};

thread_local! {
    static STATUS: Cell<Option<u32>> = const { Cell::new(None) };
}

/// Records the status the current export returns.
pub(crate) fn record(status: u32) {
    STATUS.with(|s| s.set(Some(status)));
}

/// One traced call: printed when made, and with its status when dropped.
pub(crate) struct CallTrace {
    name: &'static str,
    outer: Option<u32>,
}

impl CallTrace {
    pub(crate) fn begin(name: &'static str, args: &[String]) -> CallTrace {
        eprintln!("hsaemu: api {name}({})", args.join(", "));
        CallTrace {
            name,
            outer: STATUS.with(|s| s.replace(None)),
        }
    }
}

impl Drop for CallTrace {
    fn drop(&mut self) {
        let status = STATUS.with(|s| s.replace(self.outer)).unwrap_or(0);
        eprintln!("hsaemu: api {} -> {}", self.name, status_name(status));
    }
}

fn status_name(status: u32) -> String {
    match status {
        0 => "HSA_STATUS_SUCCESS".into(),
        1 => "HSA_STATUS_INFO_BREAK".into(),
        s => HsaError::from_status(s).map_or_else(|| format!("0x{s:x}"), |e| e.name().into()),
    }
}

/// The trace of an export that runs without a runtime (`hsa_init`, `hsa_shut_down`).
pub(crate) fn untraced_call(name: &'static str) -> Option<CallTrace> {
    crate::util::trace_enabled("api").then(|| CallTrace::begin(name, &[]))
}

/// The runtime, holding the call's trace until the export returns.
pub(crate) struct Traced {
    pub rt: Arc<Runtime>,
    pub _guard: Option<CallTrace>,
}

impl std::ops::Deref for Traced {
    type Target = Arc<Runtime>;
    fn deref(&self) -> &Arc<Runtime> {
        &self.rt
    }
}

/// How an argument prints; `func` and `param` name it, for enumerations.
pub(crate) trait TraceArg {
    fn show(&self, func: &str, param: &str) -> String;
}

macro_rules! decimal {
    ($($t:ty),*) => {$(
        impl TraceArg for $t {
            fn show(&self, func: &str, param: &str) -> String {
                match enum_name(func, param, *self as i64) {
                    Some(n) => n.to_string(),
                    None => self.to_string(),
                }
            }
        }
    )*};
}
decimal!(u8, u16, u32, i32, i64, usize);

impl TraceArg for u64 {
    /// Handles (agents, signals, regions, executables…) and addresses.
    fn show(&self, _: &str, _: &str) -> String {
        format!("0x{self:x}")
    }
}

impl TraceArg for hsaemu_runtime::MemoryOrder {
    fn show(&self, _: &str, _: &str) -> String {
        format!("{self:?}")
    }
}

impl TraceArg for bool {
    fn show(&self, _: &str, _: &str) -> String {
        self.to_string()
    }
}

impl<T> TraceArg for *const T {
    fn show(&self, func: &str, param: &str) -> String {
        pointer(self.cast(), func, param)
    }
}

impl<T> TraceArg for *mut T {
    fn show(&self, func: &str, param: &str) -> String {
        pointer(self.cast_const().cast(), func, param)
    }
}

impl<T: std::fmt::Pointer> TraceArg for Option<T> {
    /// Callbacks.
    fn show(&self, _: &str, _: &str) -> String {
        match self {
            Some(f) => format!("{f:p}"),
            None => "NULL".into(),
        }
    }
}

/// Parameters that are NUL-terminated strings.
const STRING_PARAMS: &[&str] = &["name", "symbol_name", "module", "options", "extension_name"];

fn pointer(p: *const u8, func: &str, param: &str) -> String {
    if p.is_null() {
        return "NULL".into();
    }
    if let Some(s) = structure(p, func, param) {
        return s;
    }
    if STRING_PARAMS.contains(&param) {
        // SAFETY: the API documents these parameters as NUL-terminated strings; the call
        // itself reads them the same way.
        let s = unsafe { CStr::from_ptr(p as *const c_char) };
        return format!("{:?}", s.to_string_lossy());
    }
    format!("{p:p}")
}

/// The input structures the API takes by pointer, field by field.
fn structure(p: *const u8, func: &str, param: &str) -> Option<String> {
    use crate::memory::{Dim3, PitchedPtr};
    // SAFETY (each read): the API documents these parameters as pointers to the structure
    // named, which the call itself reads; unaligned reads need no alignment.
    Some(match (func, param) {
        ("hsa_amd_memory_async_copy_rect", "dst" | "src") => {
            let v = unsafe { (p as *const PitchedPtr).read_unaligned() };
            format!(
                "{{base={:p}, pitch={}, slice={}}}",
                v.base, v.pitch, v.slice
            )
        }
        ("hsa_amd_memory_async_copy_rect", "dst_offset" | "src_offset" | "range") => {
            let v = unsafe { (p as *const Dim3).read_unaligned() };
            format!("{{x={}, y={}, z={}}}", v.x, v.y, v.z)
        }
        ("hsa_amd_ipc_memory_attach" | "hsa_amd_ipc_signal_attach", "handle") => {
            let v = unsafe { (p as *const [u32; 8]).read_unaligned() };
            format!("{{handle={v:08x?}}}")
        }
        _ => return None,
    })
}

/// The name of an enumeration value, for the parameters that take one.
fn enum_name(func: &str, param: &str, v: i64) -> Option<&'static str> {
    let table: &[(i64, &str)] = match (func, param) {
        (_, "condition") => &[
            (0, "HSA_SIGNAL_CONDITION_EQ"),
            (1, "HSA_SIGNAL_CONDITION_NE"),
            (2, "HSA_SIGNAL_CONDITION_LT"),
            (3, "HSA_SIGNAL_CONDITION_GTE"),
        ],
        (_, "state" | "wait_state_hint" | "wait_hint") => {
            &[(0, "HSA_WAIT_STATE_BLOCKED"), (1, "HSA_WAIT_STATE_ACTIVE")]
        }
        ("hsa_queue_create" | "hsa_soft_queue_create", "type_") => &[
            (0, "HSA_QUEUE_TYPE_MULTI"),
            (1, "HSA_QUEUE_TYPE_SINGLE"),
            (2, "HSA_QUEUE_TYPE_COOPERATIVE"),
        ],
        ("hsa_amd_memory_async_copy_rect", "_dir") => &[
            (0, "hsaHostToHost"),
            (1, "hsaHostToDevice"),
            (2, "hsaDeviceToHost"),
            (3, "hsaDeviceToDevice"),
        ],
        ("hsa_system_get_info", "attribute") => SYSTEM_INFO,
        ("hsa_agent_get_info", "attribute") => AGENT_INFO,
        ("hsa_region_get_info", "attribute") => REGION_INFO,
        ("hsa_amd_memory_pool_get_info", "attribute") => POOL_INFO,
        ("hsa_executable_symbol_get_info" | "hsa_code_symbol_get_info", "attribute") => SYMBOL_INFO,
        ("hsa_code_object_get_info", "attribute") => &[
            (0, "HSA_CODE_OBJECT_INFO_VERSION"),
            (1, "HSA_CODE_OBJECT_INFO_TYPE"),
            (2, "HSA_CODE_OBJECT_INFO_ISA"),
            (3, "HSA_CODE_OBJECT_INFO_MACHINE_MODEL"),
            (4, "HSA_CODE_OBJECT_INFO_PROFILE"),
            (5, "HSA_CODE_OBJECT_INFO_DEFAULT_FLOAT_ROUNDING_MODE"),
        ],
        _ => return None,
    };
    table.iter().find(|(k, _)| *k == v).map(|(_, n)| *n)
}

const SYSTEM_INFO: &[(i64, &str)] = &[
    (0, "HSA_SYSTEM_INFO_VERSION_MAJOR"),
    (1, "HSA_SYSTEM_INFO_VERSION_MINOR"),
    (2, "HSA_SYSTEM_INFO_TIMESTAMP"),
    (3, "HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY"),
    (4, "HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT"),
    (5, "HSA_SYSTEM_INFO_ENDIANNESS"),
    (6, "HSA_SYSTEM_INFO_MACHINE_MODEL"),
    (7, "HSA_SYSTEM_INFO_EXTENSIONS"),
    (0x200, "HSA_AMD_SYSTEM_INFO_BUILD_VERSION"),
    (0x201, "HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED"),
    (0x202, "HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT"),
];

const AGENT_INFO: &[(i64, &str)] = &[
    (0, "HSA_AGENT_INFO_NAME"),
    (1, "HSA_AGENT_INFO_VENDOR_NAME"),
    (2, "HSA_AGENT_INFO_FEATURE"),
    (3, "HSA_AGENT_INFO_MACHINE_MODEL"),
    (4, "HSA_AGENT_INFO_PROFILE"),
    (5, "HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE"),
    (6, "HSA_AGENT_INFO_WAVEFRONT_SIZE"),
    (7, "HSA_AGENT_INFO_WORKGROUP_MAX_DIM"),
    (8, "HSA_AGENT_INFO_WORKGROUP_MAX_SIZE"),
    (9, "HSA_AGENT_INFO_GRID_MAX_DIM"),
    (10, "HSA_AGENT_INFO_GRID_MAX_SIZE"),
    (11, "HSA_AGENT_INFO_FBARRIER_MAX_SIZE"),
    (12, "HSA_AGENT_INFO_QUEUES_MAX"),
    (13, "HSA_AGENT_INFO_QUEUE_MIN_SIZE"),
    (14, "HSA_AGENT_INFO_QUEUE_MAX_SIZE"),
    (15, "HSA_AGENT_INFO_QUEUE_TYPE"),
    (16, "HSA_AGENT_INFO_NODE"),
    (17, "HSA_AGENT_INFO_DEVICE"),
    (18, "HSA_AGENT_INFO_CACHE_SIZE"),
    (19, "HSA_AGENT_INFO_ISA"),
    (20, "HSA_AGENT_INFO_EXTENSIONS"),
    (21, "HSA_AGENT_INFO_VERSION_MAJOR"),
    (22, "HSA_AGENT_INFO_VERSION_MINOR"),
    (
        23,
        "HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES",
    ),
    (24, "HSA_AGENT_INFO_FAST_F16_OPERATION"),
    (0xA000, "HSA_AMD_AGENT_INFO_CHIP_ID"),
    (0xA001, "HSA_AMD_AGENT_INFO_CACHELINE_SIZE"),
    (0xA002, "HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT"),
    (0xA003, "HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY"),
    (0xA004, "HSA_AMD_AGENT_INFO_DRIVER_NODE_ID"),
    (0xA005, "HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS"),
    (0xA006, "HSA_AMD_AGENT_INFO_BDFID"),
    (0xA007, "HSA_AMD_AGENT_INFO_MEMORY_WIDTH"),
    (0xA008, "HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY"),
    (0xA009, "HSA_AMD_AGENT_INFO_PRODUCT_NAME"),
    (0xA00A, "HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU"),
    (0xA00B, "HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU"),
    (0xA00C, "HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES"),
    (0xA00D, "HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE"),
    (0xA00E, "HSA_AMD_AGENT_INFO_HDP_FLUSH"),
    (0xA00F, "HSA_AMD_AGENT_INFO_DOMAIN"),
    (0xA010, "HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES"),
    (0xA011, "HSA_AMD_AGENT_INFO_UUID"),
    (0xA012, "HSA_AMD_AGENT_INFO_ASIC_REVISION"),
    (0xA013, "HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS"),
    (0xA014, "HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT"),
];

const REGION_INFO: &[(i64, &str)] = &[
    (0, "HSA_REGION_INFO_SEGMENT"),
    (1, "HSA_REGION_INFO_GLOBAL_FLAGS"),
    (2, "HSA_REGION_INFO_SIZE"),
    (4, "HSA_REGION_INFO_ALLOC_MAX_SIZE"),
    (8, "HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE"),
    (5, "HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED"),
    (6, "HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE"),
    (7, "HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT"),
    (0xA000, "HSA_AMD_REGION_INFO_HOST_ACCESSIBLE"),
    (0xA001, "HSA_AMD_REGION_INFO_BASE"),
    (0xA002, "HSA_AMD_REGION_INFO_BUILDER_ID"),
    (0xA003, "HSA_AMD_REGION_INFO_ENGINE_ID"),
];

const POOL_INFO: &[(i64, &str)] = &[
    (0, "HSA_AMD_MEMORY_POOL_INFO_SEGMENT"),
    (1, "HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS"),
    (2, "HSA_AMD_MEMORY_POOL_INFO_SIZE"),
    (5, "HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED"),
    (6, "HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE"),
    (7, "HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT"),
    (15, "HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL"),
    (16, "HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE"),
];

const SYMBOL_INFO: &[(i64, &str)] = &[
    (0, "HSA_EXECUTABLE_SYMBOL_INFO_TYPE"),
    (1, "HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH"),
    (2, "HSA_EXECUTABLE_SYMBOL_INFO_NAME"),
    (3, "HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH"),
    (4, "HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME"),
    (5, "HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE"),
    (6, "HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION"),
    (7, "HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT"),
    (8, "HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT"),
    (9, "HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE"),
    (10, "HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST"),
    (11, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE"),
    (
        12,
        "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT",
    ),
    (13, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE"),
    (14, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE"),
    (15, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK"),
    (
        16,
        "HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION",
    ),
    (17, "HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION"),
    (18, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION"),
    (20, "HSA_EXECUTABLE_SYMBOL_INFO_AGENT"),
    (21, "HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS"),
    (22, "HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT"),
];
