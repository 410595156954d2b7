//! hsaemu-runtime: the HSA runtime as a safe Rust API over the emulated GPU. It knows nothing
//! of C: `hsaemu-capi` wraps it as `libhsa-runtime64.so.1`.
//!
//! Modules mirror the HSA API groups: [`runtime`] (init, shut-down, system information, handle
//! tables), [`agent`] (agents and ISAs), [`memory`] (pools, regions, allocation, locking,
//! copies), [`signal`] (signals and waits), [`queue`] (AQL queues and the packet processor), [`executable`] (code objects),
//! [`layout`] (the byte layouts shared with device code), [`backend`] (the one seam to the
//! emulated GPU) and [`trace`] (the Chrome-trace timeline of `HSAEMU_TRACE=FILE`).

pub mod agent;
mod alias;
pub mod backend;
pub mod check;
pub mod code_object_v1;
pub mod cu_mask;
pub mod error;
pub mod executable;
pub mod image;
#[doc(hidden)]
pub mod internals;
pub mod ipc;
pub mod layout;
pub mod memory;
pub mod pages;
pub mod queue;
pub mod runtime;
pub mod signal;
pub mod svm;
mod sync;
pub mod trace;
pub mod visible;

pub use agent::{Agent, AgentProperties, DeviceType, Isa};
pub use error::{HsaError, Result};
pub use executable::{CodeObjectReader, Executable, ExecutableSymbol, SymbolType};
pub use memory::{MemoryManager, MemoryPool};
pub use queue::{Queue, QueueType};
pub use runtime::{current, init, shut_down, Runtime, SignalTable};
pub use signal::{MemoryOrder, Signal, SignalCondition, SignalOp, WaitState};
