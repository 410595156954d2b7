//! hsaemu-emu across crates: HIP device code compiled by hipcc, taken out of its offload
//! bundle with hsaemu-codeobject's bundle reader, loaded and run on the emulated GPU.

use hsaemu_emu::{kernarg, Access, Dispatch, Gpu, GpuConfig, LoadedCodeObject, MemoryMap};
use std::sync::Arc;

/// A zeroed host buffer registered in a memory map while alive.
struct Buf {
    data: Vec<u64>,
    mem: Arc<MemoryMap>,
}

impl Buf {
    fn new(mem: &Arc<MemoryMap>, bytes: &[u8]) -> Buf {
        let mut data = vec![0u64; bytes.len().div_ceil(8).max(1)];
        for (i, b) in bytes.iter().enumerate() {
            data[i / 8] |= u64::from(*b) << (8 * (i % 8));
        }
        let b = Buf {
            data,
            mem: mem.clone(),
        };
        mem.register(b.addr(), (b.data.len() * 8) as u64, Access::ReadWrite)
            .expect("register");
        b
    }
    fn addr(&self) -> u64 {
        self.data.as_ptr() as u64
    }
    fn u32s(&self) -> Vec<u32> {
        self.data
            .iter()
            .flat_map(|w| [*w as u32, (*w >> 32) as u32])
            .collect()
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        let _ = self.mem.unregister(self.addr());
    }
}

/// Loads the `target` code object of a HIP bundle compiled from `src`.
fn load(src: &str, target: &str) -> (Gpu, Arc<MemoryMap>, LoadedCodeObject, u32) {
    let bundle = std::fs::read(hsaemu_testkit::compile_hip_bundle(
        src,
        &["gfx90a", "gfx906"],
    ))
    .expect("read bundle");
    let entries = hsaemu_codeobject::bundle::unbundle(&bundle).expect("unbundle");
    let entry = entries
        .iter()
        .find(|e| e.id.ends_with(&format!("--{target}")))
        .unwrap_or_else(|| panic!("no {target} entry in the bundle"));
    let cov = match entry.data.get(8) {
        Some(3) => 5,
        Some(2) => 4,
        _ => 3,
    };
    let mem = MemoryMap::new();
    let gpu = Gpu::new(
        GpuConfig {
            processor: target.into(),
            threads: 2,
            ..GpuConfig::default()
        },
        mem.clone(),
    )
    .expect("gpu");
    let code = gpu.load_code_object(&entry.data).expect("load");
    (gpu, mem, code, cov)
}

/// A 1D launch: grid size in work-items, work-group size, dynamic LDS bytes.
struct Launch {
    grid: u32,
    wg: u16,
    dyn_lds: u32,
}

fn run(
    gpu: &Gpu,
    mem: &Arc<MemoryMap>,
    code: &LoadedCodeObject,
    cov: u32,
    name: &str,
    explicit: &[u8],
    launch: Launch,
) {
    let Launch { grid, wg, dyn_lds } = launch;
    let k = code
        .kernels
        .iter()
        .find(|k| k.name.contains(name))
        .unwrap_or_else(|| panic!("no kernel {name}"));
    let mut ka = kernarg::build(explicit, cov, [grid, 1, 1], [wg, 1, 1]);
    ka.resize(ka.len().max(k.kernarg_segment_size as usize), 0);
    let kb = Buf::new(mem, &ka);
    gpu.dispatch(&Dispatch {
        kernel_object: k.kernel_object,
        kernarg_address: kb.addr(),
        grid_size: [grid, 1, 1],
        workgroup_size: [wg, 1, 1],
        group_segment_size: k.group_segment_size + dyn_lds,
        private_segment_size: k.private_segment_size,
        ..Dispatch::default()
    })
    .unwrap_or_else(|f| panic!("{f}"));
}

#[test]
fn emu_runs_hip_vector_add_from_bundle() {
    for target in ["gfx90a", "gfx906"] {
        let (gpu, mem, code, cov) = load("hip/vector_add.hip", target);
        let n = 5000u32;
        let a: Vec<u8> = (0..n)
            .flat_map(|i| (i as f32 * 0.5).to_le_bytes())
            .collect();
        let b: Vec<u8> = (0..n)
            .flat_map(|i| (1000.0 - i as f32).to_le_bytes())
            .collect();
        let (ba, bb, bc) = (
            Buf::new(&mem, &a),
            Buf::new(&mem, &b),
            Buf::new(&mem, &vec![0u8; 4 * n as usize]),
        );
        let mut ex = Vec::new();
        for p in [ba.addr(), bb.addr(), bc.addr()] {
            ex.extend_from_slice(&p.to_le_bytes());
        }
        ex.extend_from_slice(&(n as i32).to_le_bytes());
        run(
            &gpu,
            &mem,
            &code,
            cov,
            "vector_add",
            &ex,
            Launch {
                grid: n.div_ceil(256) * 256,
                wg: 256,
                dyn_lds: 0,
            },
        );
        for (i, &bits) in bc.u32s().iter().enumerate().take(n as usize) {
            assert_eq!(
                f32::from_bits(bits),
                i as f32 * 0.5 + (1000.0 - i as f32),
                "{target} element {i}"
            );
        }
    }
}

#[test]
fn emu_runs_hip_block_sum_with_dynamic_shared_memory() {
    for target in ["gfx90a", "gfx906"] {
        let (gpu, mem, code, cov) = load("hip/shared_reduce.hip", target);
        let n = 10000i32;
        let input: Vec<i32> = (0..n).map(|i| (i * 7) % 13 - 6).collect();
        let bi = Buf::new(
            &mem,
            &input
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<_>>(),
        );
        let bo = Buf::new(&mem, &[0u8; 8]);
        let mut ex = Vec::new();
        ex.extend_from_slice(&bi.addr().to_le_bytes());
        ex.extend_from_slice(&bo.addr().to_le_bytes());
        ex.extend_from_slice(&n.to_le_bytes());
        run(
            &gpu,
            &mem,
            &code,
            cov,
            "block_sum",
            &ex,
            Launch {
                grid: (n as u32).div_ceil(256) * 256,
                wg: 256,
                dyn_lds: 256 * 4,
            },
        );
        assert_eq!(bo.u32s()[0] as i32, input.iter().sum::<i32>(), "{target}");
    }
}

/// `hsaemu run FILE --kernel … --arg …`: one kernel on the emulated GPU from the command line,
/// the buffers printed after the dispatch; a faulting kernel prints the one-line report and
/// exits with status 1.
#[test]
fn hsaemu_run_prints_buffers_and_reports_faults() {
    let vector_add = hsaemu_testkit::compile_cl("cl/vector_add.cl", "gfx90a", 5);
    let out = std::process::Command::new(crate::support::hsaemu())
        .arg("run")
        .arg(&vector_add)
        .args(["--kernel", "vector_add", "--grid", "5", "--block", "4"])
        .args([
            "--arg",
            "buf:f32:1,2,3,4,5",
            "--arg",
            "buf:f32:10,20,30,40,50",
        ])
        .args(["--arg", "buf:f32:0,0,0,0,-1", "--arg", "u32:4"])
        .output()
        .expect("run hsaemu run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // n = 4: the fifth work-item (in a partial second work-group) must leave c[4] alone.
    assert!(
        text.lines().any(|l| l == "arg 2 (f32[5]): 11 22 33 44 -1"),
        "{text}"
    );

    let faults = hsaemu_testkit::compile_cl("cl/emu_faults.cl", "gfx90a", 5);
    let out = std::process::Command::new(crate::support::hsaemu())
        .arg("run")
        .arg(&faults)
        .args(["--kernel", "oob_store", "--grid", "64", "--block", "64"])
        .args(["--arg", "buf:256", "--arg", "i32:100000000"])
        .output()
        .expect("run hsaemu run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("memory fault in kernel `oob_store`") && err.contains("lane 17 of wave 0"),
        "{err}"
    );
}

/// A file mapped read-only: the rocSPARSE test reads a few targets' code objects of a 1.3 GB
/// library, which `fs::read` would copy whole (~2 CPU-s of page faults and copying).
struct MappedFile {
    addr: *mut libc::c_void,
    len: usize,
}

impl MappedFile {
    fn open(path: &std::path::Path) -> std::io::Result<Self> {
        use std::os::fd::AsRawFd;
        let file = std::fs::File::open(path)?;
        let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
        if len == 0 {
            return Err(std::io::Error::other("empty file"));
        }
        // SAFETY: a fresh private read-only mapping of an open file's `len` bytes; the kernel
        // picks the address. The mapping outlives `file` (closing the descriptor keeps it).
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if addr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Self { addr, len })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `addr` maps `len` readable bytes until `drop`, and the slice borrows `self`.
        // The system library is not written while the test runs (were it truncated, reading
        // past its end would raise SIGBUS: a crash, not wrong bytes).
        unsafe { std::slice::from_raw_parts(self.addr.cast::<u8>(), self.len) }
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping `open` made; no slice of it outlives `self`.
        unsafe { libc::munmap(self.addr, self.len) };
    }
}

/// Decoder and semantics coverage over Debian's prebuilt rocSPARSE (librocsparse0), the largest
/// real-world GPU code at hand: for each target the tests/hip programs run it on, every one of
/// its 111 code objects loads, every instruction of every function decodes (no invalid word),
/// and every mnemonic has semantics. About 6.6 million instructions a target; reading the
/// 1.3 GB library and decoding take a few seconds each.
#[test]
fn rocsparse_code_objects_decode_and_are_implemented() {
    let lib = hsaemu_testkit::rocsparse_library();
    let data = MappedFile::open(&lib).unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
    let found = hsaemu_codeobject::find_code_objects(data.bytes())
        .unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
    for (processor, id) in [
        ("gfx90a", "gfx90a:xnack-"),
        ("gfx908", "gfx908:xnack-"),
        ("gfx906", "gfx906:xnack-"),
        ("gfx803", "gfx803"),
    ] {
        let suffix = format!("--{id}");
        let mut objects = 0;
        let mut instructions = 0;
        let mut mnemonics = std::collections::BTreeSet::new();
        for co in found
            .iter()
            .filter(|c| c.bundle_id.as_deref().is_some_and(|b| b.ends_with(&suffix)))
        {
            let gpu = Gpu::new(
                GpuConfig {
                    processor: processor.into(),
                    ..GpuConfig::default()
                },
                MemoryMap::new(),
            )
            .expect("gpu");
            let code = gpu
                .load_code_object(&co.data)
                .unwrap_or_else(|e| panic!("{id}: code object {objects}: {e}"));
            let cov = gpu.coverage(&code);
            assert_eq!(cov.invalid_words, 0, "{id}: code object {objects}");
            let missing = cov.unimplemented();
            assert!(
                missing.is_empty(),
                "{id}: code object {objects}: {missing:?}"
            );
            objects += 1;
            instructions += cov.instructions;
            mnemonics.extend(cov.mnemonics.into_iter().map(|m| m.0));
        }
        eprintln!(
            "rocSPARSE {id}: {objects} code objects, {instructions} instructions, {} mnemonics",
            mnemonics.len()
        );
        assert_eq!(objects, 111, "{id}");
        assert!(instructions > 6_000_000, "{id}: {instructions}");
    }
}
