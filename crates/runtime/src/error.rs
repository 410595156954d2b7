//! `HsaError`: every error status of the HSA runtime, one variant per `hsa_status_t` error
//! value (core, AMD and extension codes), with ROCm 5.2's description strings.

use std::ffi::CStr;

/// The result type of the runtime API.
pub type Result<T> = std::result::Result<T, HsaError>;

/// `HSA_STATUS_SUCCESS`.
pub const STATUS_SUCCESS: u32 = 0;
/// `HSA_STATUS_INFO_BREAK`: an iteration was stopped by its callback.
pub const STATUS_INFO_BREAK: u32 = 1;
/// `HSA_STATUS_CU_MASK_REDUCED`: a success status of `hsa_amd_queue_cu_set_mask`.
pub const STATUS_CU_MASK_REDUCED: u32 = 44;

macro_rules! hsa_errors {
    ($($variant:ident = $value:expr, $name:literal, $text:literal;)*) => {
        /// An HSA error status. The discriminant is the `hsa_status_t` value.
        #[non_exhaustive]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u32)]
        pub enum HsaError {
            $(#[doc = $text] $variant = $value,)*
        }

        impl HsaError {
            /// Every variant, for tables and tests.
            pub const ALL: &'static [HsaError] = &[$(HsaError::$variant),*];

            /// The error for an `hsa_status_t` value, if it is a known error code.
            pub fn from_status(status: u32) -> Option<HsaError> {
                match status {
                    $($value => Some(HsaError::$variant),)*
                    _ => None,
                }
            }

            /// The spec name, e.g. `HSA_STATUS_ERROR_INVALID_AGENT`.
            pub fn name(self) -> &'static str {
                match self { $(HsaError::$variant => $name,)* }
            }
        }

        /// ROCm 5.2's `hsa_status_string` text for a status code (success and info codes
        /// included), or `None` for an unknown code.
        pub fn status_string(status: u32) -> Option<&'static CStr> {
            match status {
                STATUS_SUCCESS => Some(c"HSA_STATUS_SUCCESS: The function has been executed successfully."),
                STATUS_INFO_BREAK => Some(c"HSA_STATUS_INFO_BREAK: A traversal over a list of elements has been interrupted by the application before completing."),
                STATUS_CU_MASK_REDUCED => Some(c"HSA_STATUS_CU_MASK_REDUCED: The CU mask was successfully set but the mask attempted to enable a CU which was disabled for the process.  CUs disabled for the process remain disabled."),
                $($value => Some(
                    match CStr::from_bytes_with_nul(concat!($name, ": ", $text, "\0").as_bytes()) {
                        Ok(s) => s,
                        Err(_) => c"HSA_STATUS_ERROR: A generic error has occurred.",
                    }
                ),)*
                _ => None,
            }
        }
    };
}

hsa_errors! {
    Error = 0x1000, "HSA_STATUS_ERROR", "A generic error has occurred.";
    InvalidArgument = 0x1001, "HSA_STATUS_ERROR_INVALID_ARGUMENT", "One of the actual arguments does not meet a precondition stated in the documentation of the corresponding formal argument.";
    InvalidQueueCreation = 0x1002, "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION", "The requested queue creation is not valid.";
    InvalidAllocation = 0x1003, "HSA_STATUS_ERROR_INVALID_ALLOCATION", "The requested allocation is not valid.";
    InvalidAgent = 0x1004, "HSA_STATUS_ERROR_INVALID_AGENT", "The agent is invalid.";
    InvalidRegion = 0x1005, "HSA_STATUS_ERROR_INVALID_REGION", "The memory region is invalid.";
    InvalidSignal = 0x1006, "HSA_STATUS_ERROR_INVALID_SIGNAL", "The signal is invalid.";
    InvalidQueue = 0x1007, "HSA_STATUS_ERROR_INVALID_QUEUE", "The queue is invalid.";
    OutOfResources = 0x1008, "HSA_STATUS_ERROR_OUT_OF_RESOURCES", "The runtime failed to allocate the necessary resources. This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific events.";
    InvalidPacketFormat = 0x1009, "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT", "The AQL packet is malformed.";
    ResourceFree = 0x100A, "HSA_STATUS_ERROR_RESOURCE_FREE", "An error has been detected while releasing a resource.";
    NotInitialized = 0x100B, "HSA_STATUS_ERROR_NOT_INITIALIZED", "An API other than hsa_init has been invoked while the reference count of the HSA runtime is zero.";
    RefcountOverflow = 0x100C, "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW", "The maximum reference count for the object has been reached.";
    IncompatibleArguments = 0x100D, "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS", "The arguments passed to a functions are not compatible.";
    InvalidIndex = 0x100E, "HSA_STATUS_ERROR_INVALID_INDEX", "The index is invalid.";
    InvalidIsa = 0x100F, "HSA_STATUS_ERROR_INVALID_ISA", "The instruction set architecture is invalid.";
    InvalidCodeObject = 0x1010, "HSA_STATUS_ERROR_INVALID_CODE_OBJECT", "The code object is invalid.";
    InvalidExecutable = 0x1011, "HSA_STATUS_ERROR_INVALID_EXECUTABLE", "The executable is invalid.";
    FrozenExecutable = 0x1012, "HSA_STATUS_ERROR_FROZEN_EXECUTABLE", "The executable is frozen.";
    InvalidSymbolName = 0x1013, "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME", "There is no symbol with the given name.";
    VariableAlreadyDefined = 0x1014, "HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED", "The variable is already defined.";
    VariableUndefined = 0x1015, "HSA_STATUS_ERROR_VARIABLE_UNDEFINED", "The variable is undefined.";
    Exception = 0x1016, "HSA_STATUS_ERROR_EXCEPTION", "An HSAIL operation resulted in a hardware exception.";
    InvalidIsaName = 0x1017, "HSA_STATUS_ERROR_INVALID_ISA_NAME", "The instruction set architecture name is invalid.";
    InvalidCodeSymbol = 0x1018, "HSA_STATUS_ERROR_INVALID_CODE_SYMBOL", "The code object symbol is invalid.";
    InvalidExecutableSymbol = 0x1019, "HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL", "The executable symbol is invalid.";
    InvalidFile = 0x1020, "HSA_STATUS_ERROR_INVALID_FILE", "The file descriptor is invalid.";
    InvalidCodeObjectReader = 0x1021, "HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER", "The code object reader is invalid.";
    InvalidCache = 0x1022, "HSA_STATUS_ERROR_INVALID_CACHE", "The cache is invalid.";
    InvalidWavefront = 0x1023, "HSA_STATUS_ERROR_INVALID_WAVEFRONT", "The wavefront is invalid.";
    InvalidSignalGroup = 0x1024, "HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP", "The signal group is invalid.";
    InvalidRuntimeState = 0x1025, "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE", "The HSA runtime is not in the configuration state.";
    Fatal = 0x1026, "HSA_STATUS_ERROR_FATAL", "The queue received an error that may require process termination.";
    InvalidMemoryPool = 40, "HSA_STATUS_ERROR_INVALID_MEMORY_POOL", "The memory pool is invalid.";
    MemoryApertureViolation = 41, "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", "The agent attempted to access memory beyond the largest legal address.";
    IllegalInstruction = 42, "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION", "The agent attempted to execute an illegal shader instruction.";
    MemoryFault = 43, "HSA_STATUS_ERROR_MEMORY_FAULT", "Agent attempted to access an inaccessible address.";
    ExtInvalidProgram = 0x2000, "HSA_EXT_STATUS_ERROR_INVALID_PROGRAM", "Invalid program";
    ExtInvalidModule = 0x2001, "HSA_EXT_STATUS_ERROR_INVALID_MODULE", "Invalid module";
    ExtIncompatibleModule = 0x2002, "HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE", "Incompatible module";
    ExtModuleAlreadyIncluded = 0x2003, "HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED", "Module already included";
    ExtSymbolMismatch = 0x2004, "HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH", "Symbol mismatch";
    ExtFinalizationFailed = 0x2005, "HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED", "Finalization failed";
    ExtDirectiveMismatch = 0x2006, "HSA_EXT_STATUS_ERROR_DIRECTIVE_MISMATCH", "Directive mismatch";
    ExtImageFormatUnsupported = 0x3000, "HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED", "Image format is not supported.";
    ExtImageSizeUnsupported = 0x3001, "HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED", "Image size is not supported.";
    ExtImagePitchUnsupported = 0x3002, "HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED", "Image pitch is not supported or invalid.";
    ExtSamplerDescriptorUnsupported = 0x3003, "HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED", "Sampler descriptor is not supported or invalid.";
}

impl HsaError {
    /// The `hsa_status_t` value.
    pub fn status(self) -> u32 {
        self as u32
    }
}

impl std::fmt::Display for HsaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match status_string(self.status()) {
            Some(s) => write!(f, "{}", s.to_string_lossy()),
            None => write!(f, "{}", self.name()),
        }
    }
}

impl std::error::Error for HsaError {}

/// Converts a `Result` to an `hsa_status_t` value.
pub fn to_status<T>(r: &Result<T>) -> u32 {
    match r {
        Ok(_) => STATUS_SUCCESS,
        Err(e) => e.status(),
    }
}
