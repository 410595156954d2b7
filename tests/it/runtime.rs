//! The runtime's safe Rust API end to end: agents and pools, barrier packets across queues,
//! a malformed packet reaching the queue's error callback, and vector_add compiled by clang
//! loaded into an executable and dispatched on the emulated GPU — all without the C API.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

mod unit;

use hsaemu_runtime::layout::{packet_header, packet_type, BarrierPacket, KernelDispatchPacket};
use hsaemu_runtime::{
    CodeObjectReader, DeviceType, HsaError, MemoryOrder, QueueType, SignalCondition, SymbolType,
    WaitState,
};

fn header(kind: u8) -> u16 {
    u16::from(kind)
        | (1 << packet_header::BARRIER)
        | (2 << packet_header::SCACQUIRE_FENCE_SCOPE)
        | (2 << packet_header::SCRELEASE_FENCE_SCOPE)
}

fn barrier(kind: u8, deps: &[u64], completion: u64) -> [u8; 64] {
    let mut dep_signal = [0u64; 5];
    dep_signal[..deps.len()].copy_from_slice(deps);
    BarrierPacket {
        header: header(kind),
        dep_signal,
        completion_signal: completion,
        ..BarrierPacket::default()
    }
    .to_bytes()
}

#[test]
fn agents_pools_and_cross_queue_barriers() {
    let rt = hsaemu_runtime::init().expect("init");
    assert_eq!(rt.agents()[0].device_type(), DeviceType::Cpu);
    let gpu = rt.gpu_agents().next().expect("a GPU agent").clone();
    assert!(gpu
        .isa()
        .expect("GPU ISA")
        .name
        .starts_with("amdgcn-amd-amdhsa--"));
    assert_eq!(gpu.pools().len(), 2);
    let q1 = rt
        .create_queue(&gpu, 64, QueueType::Multi, None)
        .expect("queue 1");
    let q2 = rt
        .create_queue(&gpu, 64, QueueType::Multi, None)
        .expect("queue 2");
    let gate = rt.create_signal(1).expect("signal");
    let a = rt.create_signal(1).expect("signal");
    let done = rt.create_signal(1).expect("signal");
    q1.submit(&barrier(
        packet_type::BARRIER_AND,
        &[a.handle()],
        done.handle(),
    ))
    .expect("submit");
    q2.submit(&barrier(
        packet_type::BARRIER_AND,
        &[gate.handle()],
        a.handle(),
    ))
    .expect("submit");
    let v = done.wait(
        SignalCondition::Eq,
        0,
        Some(Duration::from_millis(20)),
        WaitState::Blocked,
        MemoryOrder::Acquire,
    );
    assert_eq!(v, 1, "q1's barrier must wait for q2's");
    gate.store(0, MemoryOrder::Release);
    assert_eq!(
        done.wait(
            SignalCondition::Eq,
            0,
            None,
            WaitState::Blocked,
            MemoryOrder::Acquire
        ),
        0
    );
    assert_eq!(q1.load_read_index(MemoryOrder::Acquire), 1);
    rt.destroy_queue(q1.address()).expect("destroy");
    rt.destroy_queue(q2.address()).expect("destroy");
    assert_eq!(rt.destroy_queue(q2.address()), Err(HsaError::InvalidQueue));
    hsaemu_runtime::shut_down().expect("shut down");
}

#[test]
fn malformed_packet_reaches_the_error_callback() {
    let rt = hsaemu_runtime::init().expect("init");
    let gpu = rt.gpu_agents().next().expect("a GPU agent").clone();
    let seen = Arc::new(AtomicU32::new(0));
    let s2 = seen.clone();
    let q = rt
        .create_queue(
            &gpu,
            64,
            QueueType::Multi,
            Some(Arc::new(move |e: HsaError| {
                s2.store(e.status(), Ordering::SeqCst)
            })),
        )
        .expect("queue");
    let done = rt.create_signal(1).expect("signal");
    // dimensions = 0 in setup
    let p = KernelDispatchPacket {
        header: header(packet_type::KERNEL_DISPATCH),
        setup: 0,
        kernel_object: 0x1000,
        completion_signal: done.handle(),
        ..Default::default()
    };
    q.submit(&p.to_bytes()).expect("submit");
    // The queue reports itself inactive only after the callback has returned.
    let inactive = q.inactive_signal().expect("queue_inactive_signal");
    assert_eq!(
        inactive.wait(
            SignalCondition::Lt,
            0,
            None,
            WaitState::Blocked,
            MemoryOrder::Acquire
        ),
        -1
    );
    // ROCr's status for invalid dimensions; the completion signal keeps its value.
    assert_eq!(
        seen.load(Ordering::SeqCst),
        HsaError::IncompatibleArguments.status()
    );
    assert_eq!(done.load(MemoryOrder::Acquire), 1);
    rt.destroy_queue(q.address()).expect("destroy");
    hsaemu_runtime::shut_down().expect("shut down");
}

#[test]
fn vector_add_through_the_rust_api() {
    let rt = hsaemu_runtime::init().expect("init");
    let gpu = rt.gpu_agents().next().expect("a GPU agent").clone();
    let target = gpu.properties().name.clone();
    let path = hsaemu_testkit::compile_cl("cl/vector_add.cl", &target, 4);
    let bytes = std::fs::read(&path).expect("read code object");
    let exe = rt.create_executable();
    exe.load(
        rt.memory(),
        &gpu,
        &CodeObjectReader::from_bytes(&bytes).expect("reader"),
    )
    .expect("load");
    exe.freeze().expect("freeze");
    let kernel = exe
        .symbol_by_name("vector_add.kd", Some(gpu.handle()))
        .expect("kernel symbol");
    assert_eq!(kernel.kind, SymbolType::Kernel);
    assert!(kernel.kernarg_segment_size >= 28);

    const N: usize = 300;
    let pool = gpu.pools()[0].handle();
    let alloc = |bytes: usize| rt.allocate(pool, bytes as u64).expect("allocate");
    let (a, b, c) = (alloc(N * 4), alloc(N * 4), alloc(N * 4));
    let kernarg = alloc(kernel.kernarg_segment_size as usize);
    // SAFETY: each allocation is at least N floats (or the kernarg size) of zeroed, writable
    // host memory owned by this test until freed below.
    unsafe {
        let (fa, fb) = (a as *mut f32, b as *mut f32);
        for i in 0..N {
            *fa.add(i) = i as f32;
            *fb.add(i) = 0.5 * i as f32;
        }
        let k = kernarg as *mut u64;
        *k = a;
        *k.add(1) = b;
        *k.add(2) = c;
        *(kernarg as *mut u32).add(6) = N as u32;
    }
    let q = rt
        .create_queue(&gpu, 64, QueueType::Single, None)
        .expect("queue");
    let done = rt.create_signal(1).expect("signal");
    let p = KernelDispatchPacket {
        header: header(packet_type::KERNEL_DISPATCH),
        setup: 1,
        workgroup_size_x: 64,
        workgroup_size_y: 1,
        workgroup_size_z: 1,
        grid_size_x: N as u32,
        grid_size_y: 1,
        grid_size_z: 1,
        group_segment_size: kernel.group_segment_size,
        private_segment_size: kernel.private_segment_size,
        kernel_object: kernel.address,
        kernarg_address: kernarg,
        completion_signal: done.handle(),
        ..Default::default()
    };
    q.submit(&p.to_bytes()).expect("submit");
    assert_eq!(
        done.wait(
            SignalCondition::Lt,
            1,
            None,
            WaitState::Blocked,
            MemoryOrder::Acquire
        ),
        0
    );
    // SAFETY: `c` holds N floats written by the kernel, which has completed.
    let out = unsafe { std::slice::from_raw_parts(c as *const f32, N) };
    for (i, v) in out.iter().enumerate() {
        assert_eq!(*v, 1.5 * i as f32, "c[{i}]");
    }
    for p in [a, b, c, kernarg] {
        rt.memory().free(p).expect("free");
    }
    assert_eq!(rt.memory().free(a), Err(HsaError::InvalidAllocation));
    rt.destroy_queue(q.address()).expect("destroy");
    rt.destroy_executable(exe.handle())
        .expect("destroy executable");
    hsaemu_runtime::shut_down().expect("shut down");
}

#[test]
fn global_variables_are_symbols_that_kernels_update() {
    let rt = hsaemu_runtime::init().expect("init");
    let gpu = rt.gpu_agents().next().expect("a GPU agent").clone();
    let target = gpu.properties().name.clone();
    let path = hsaemu_testkit::compile_cl("cl/runtime_kernels.cl", &target, 4);
    let bytes = std::fs::read(&path).expect("read code object");
    let exe = rt.create_executable();
    exe.load(
        rt.memory(),
        &gpu,
        &CodeObjectReader::from_bytes(&bytes).expect("reader"),
    )
    .expect("load");
    exe.freeze().expect("freeze");
    let var = exe
        .symbol_by_name("runtime_global", Some(gpu.handle()))
        .expect("variable symbol");
    assert_eq!(var.kind, SymbolType::Variable);
    assert_eq!(var.size, 4);
    // SAFETY: the variable's address points at 4 bytes of the loaded image, alive while `exe` is.
    let read = || unsafe { std::ptr::read_volatile(var.address as *const i32) };
    assert_eq!(read(), 5);
    let kernel = exe
        .symbol_by_name("bump_global.kd", Some(gpu.handle()))
        .expect("kernel symbol");
    // The kernel reads its hidden arguments (global offsets): a zeroed kernarg segment.
    let kernarg = rt
        .allocate(
            gpu.pools()[0].handle(),
            u64::from(kernel.kernarg_segment_size.max(1)),
        )
        .expect("kernarg");
    let q = rt
        .create_queue(&gpu, 64, QueueType::Single, None)
        .expect("queue");
    let done = rt.create_signal(1).expect("signal");
    let p = KernelDispatchPacket {
        header: header(packet_type::KERNEL_DISPATCH),
        setup: 1,
        workgroup_size_x: 64,
        workgroup_size_y: 1,
        workgroup_size_z: 1,
        grid_size_x: 64,
        grid_size_y: 1,
        grid_size_z: 1,
        kernel_object: kernel.address,
        kernarg_address: kernarg,
        completion_signal: done.handle(),
        ..Default::default()
    };
    q.submit(&p.to_bytes()).expect("submit");
    assert_eq!(
        done.wait(
            SignalCondition::Lt,
            1,
            None,
            WaitState::Blocked,
            MemoryOrder::Acquire
        ),
        0
    );
    assert_eq!(read(), 15);
    rt.memory().free(kernarg).expect("free");
    rt.destroy_queue(q.address()).expect("destroy");
    rt.destroy_executable(exe.handle())
        .expect("destroy executable");
    hsaemu_runtime::shut_down().expect("shut down");
}

/// ROCclr frees host memory it locked without unlocking it; a code object image placed over
/// those addresses must load and be visible to kernels. (rocPRIM's radix-sort test failed with
/// `hipErrorInvalidDeviceFunction` late in a long run: the image's registration clashed with
/// the stale locked range and the load returned `HSA_STATUS_ERROR_INVALID_CODE_OBJECT`.)
#[test]
fn a_code_object_loads_over_freed_locked_memory() {
    let rt = hsaemu_runtime::init().expect("init");
    let gpu = rt.gpu_agents().next().expect("a GPU agent").clone();
    let target = gpu.properties().name.clone();
    let path = hsaemu_testkit::compile_cl("cl/vector_add.cl", &target, 4);
    let bytes = std::fs::read(&path).expect("read code object");
    let reader = CodeObjectReader::from_bytes(&bytes).expect("reader");
    let mut reused = None;
    // Other tests' threads allocate at the same time and may take the freed block first, so
    // this tries many times (each try is cheap).
    for _ in 0..256 {
        // Below malloc's mmap threshold, so the freed block is reused by the next allocations
        // (the image among them) in this thread.
        let buf = vec![0u8; 96 << 10];
        let start = buf.as_ptr() as u64;
        let (lo, hi) = (
            start.next_multiple_of(4096),
            (start + buf.len() as u64) / 4096 * 4096,
        );
        rt.memory().lock(lo, hi - lo, gpu.handle()).expect("lock");
        drop(buf); // freed while still locked
        let exe = rt.create_executable();
        exe.load(rt.memory(), &gpu, &reader)
            .expect("load over memory freed while locked");
        let (_, base, size) = exe.loaded_objects()[0];
        if base < hi && lo < base + size {
            reused = Some((exe, base, size, lo));
            break;
        }
    }
    let (exe, base, size, lo) = reused.expect("the allocator never reused the freed block");
    assert!(
        rt.memory().device_map().contains(base, size),
        "the image is not visible to kernels whole"
    );
    assert_eq!(
        rt.memory().pointer_info(lo).kind,
        hsaemu_runtime::memory::PointerType::Unknown,
        "the stale locked range is still known"
    );
    rt.destroy_executable(exe.handle()).expect("destroy");
    hsaemu_runtime::shut_down().expect("shut down");
}
