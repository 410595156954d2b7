//! The native baseline for `hsaemu bench`: the same OpenCL C source run by PoCL (Debian's
//! `pocl-opencl-icd`), the OpenCL implementation that compiles kernels to host machine code.
//! The OpenCL library is loaded at run time (`opencl3`'s `dynamic` feature), so `hsaemu` runs
//! without it; a machine without PoCL gets a one-line explanation instead of a ratio.
//!
//! PoCL gets the same number of host threads as the emulator (`POCL_MAX_PTHREAD_COUNT` for
//! PoCL 3.x's pthread device, `POCL_CPU_MAX_CU_COUNT` for the later `cpu` device), one warm-up
//! run (PoCL compiles on first use), then the median of three timed runs.

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_CPU};
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::platform::get_platforms;
use opencl3::program::Program;
use opencl3::types::CL_BLOCKING;
use std::time::{Duration, Instant};

/// One kernel argument, in order.
pub enum Arg<'a> {
    /// A global buffer initialised from these bytes; read back after the run.
    Buffer(&'a [u8]),
    /// A 32-bit scalar (`uint`, `int` or `float` bits).
    U32(u32),
    /// A `__local` buffer of this many bytes.
    Local(usize),
}

/// PoCL's CPU device with a context and an in-order queue.
pub struct Pocl {
    context: Context,
    queue: CommandQueue,
    /// The device name PoCL reports (e.g. `pthread-haswell`).
    pub device: String,
}

/// What a timed run produced.
pub struct Run {
    /// Median wall time of the timed runs (kernel enqueue to queue finish).
    pub elapsed: Duration,
    /// CPU seconds of this process over the timed runs, divided by their number.
    pub cpu: Option<f64>,
    /// Each `Arg::Buffer`'s contents after the last run, in argument order.
    pub buffers: Vec<Vec<u8>>,
}

impl Pocl {
    /// Opens PoCL's CPU device, limited to `threads` host threads. Must run before any other
    /// thread of this process reads the environment (the limit is passed by environment).
    pub fn open(threads: usize) -> Result<Pocl, String> {
        let n = threads.max(1).to_string();
        std::env::set_var("POCL_MAX_PTHREAD_COUNT", &n);
        std::env::set_var("POCL_CPU_MAX_CU_COUNT", &n);
        let platforms = get_platforms().map_err(|e| {
            format!("no OpenCL platform ({e}): install ocl-icd-libopencl1 and pocl-opencl-icd")
        })?;
        let platform = platforms
            .into_iter()
            .find(|p| {
                p.name()
                    .is_ok_and(|n| n.contains("Portable Computing Language"))
            })
            .ok_or("no PoCL platform among the OpenCL platforms: install pocl-opencl-icd")?;
        let id = *platform
            .get_devices(CL_DEVICE_TYPE_CPU)
            .map_err(|e| format!("clGetDeviceIDs: {e}"))?
            .first()
            .ok_or("PoCL has no CPU device")?;
        let device = Device::new(id);
        let name = device.name().unwrap_or_default();
        let context = Context::from_device(&device).map_err(|e| format!("clCreateContext: {e}"))?;
        let queue = CommandQueue::create_default_with_properties(&context, 0, 0)
            .map_err(|e| format!("clCreateCommandQueue: {e}"))?;
        Ok(Pocl {
            context,
            queue,
            device: name,
        })
    }

    /// Builds `source`, runs `kernel` once to warm up, then three times timed, over `global`
    /// work-items in groups of `local` (1 to 3 dimensions).
    pub fn run(
        &self,
        source: &str,
        kernel: &str,
        args: &[Arg],
        global: &[usize],
        local: &[usize],
    ) -> Result<Run, String> {
        let program = Program::create_and_build_from_source(&self.context, source, "")
            .map_err(|log| format!("PoCL could not build the kernel: {log}"))?;
        let k = Kernel::create(&program, kernel).map_err(|e| format!("clCreateKernel: {e}"))?;
        let mut buffers = Vec::new();
        for a in args {
            if let Arg::Buffer(bytes) = a {
                let mut init = bytes.to_vec();
                // SAFETY: `init` outlives the call and holds `init.len()` bytes, which
                // CL_MEM_COPY_HOST_PTR copies before returning.
                let b = unsafe {
                    Buffer::<u8>::create(
                        &self.context,
                        CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                        init.len().max(1),
                        init.as_mut_ptr().cast(),
                    )
                }
                .map_err(|e| format!("clCreateBuffer: {e}"))?;
                buffers.push((b, bytes.len()));
            }
        }
        let mut times = Vec::new();
        let mut cpu = Vec::new();
        for round in 0..4 {
            // Every round starts from the initial contents (kernels like the histogram
            // accumulate into their outputs).
            for (a, (b, _)) in args
                .iter()
                .filter_map(|a| match a {
                    Arg::Buffer(bytes) => Some(bytes),
                    _ => None,
                })
                .zip(buffers.iter_mut())
            {
                // SAFETY: a blocking write of `a.len()` bytes into a buffer created with that
                // size; `a` stays alive for the call.
                unsafe { self.queue.enqueue_write_buffer(b, CL_BLOCKING, 0, a, &[]) }
                    .map_err(|e| format!("clEnqueueWriteBuffer: {e}"))?;
            }
            let mut exec = ExecuteKernel::new(&k);
            let mut next = 0;
            for a in args {
                // SAFETY: arguments are set in the kernel's parameter order with the types the
                // bench's kernels declare (buffers as cl_mem, 32-bit scalars, local sizes).
                unsafe {
                    match a {
                        Arg::Buffer(_) => {
                            exec.set_arg(&buffers[next].0);
                            next += 1;
                        }
                        Arg::U32(v) => {
                            exec.set_arg(v);
                        }
                        Arg::Local(size) => {
                            exec.set_arg_local_buffer(*size);
                        }
                    }
                }
            }
            exec.set_global_work_sizes(global)
                .set_local_work_sizes(local);
            let c0 = super::cpu_seconds();
            let t0 = Instant::now();
            // SAFETY: every argument was set above and the buffers live until after `finish`.
            unsafe { exec.enqueue_nd_range(&self.queue) }
                .map_err(|e| format!("clEnqueueNDRangeKernel: {e}"))?;
            self.queue.finish().map_err(|e| format!("clFinish: {e}"))?;
            if round > 0 {
                times.push(t0.elapsed());
                if let (Some(a), Some(b)) = (super::cpu_seconds(), c0) {
                    cpu.push(a - b);
                }
            }
        }
        let mut out = Vec::new();
        for (b, len) in &buffers {
            let mut data = vec![0u8; *len];
            // SAFETY: a blocking read of `len` bytes from a buffer of at least that size.
            unsafe {
                self.queue
                    .enqueue_read_buffer(b, CL_BLOCKING, 0, &mut data, &[])
            }
            .map_err(|e| format!("clEnqueueReadBuffer: {e}"))?;
            out.push(data);
        }
        times.sort();
        Ok(Run {
            elapsed: times[times.len() / 2],
            cpu: (cpu.len() == times.len()).then(|| cpu.iter().sum::<f64>() / cpu.len() as f64),
            buffers: out,
        })
    }
}
