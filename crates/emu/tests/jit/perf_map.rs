//! `HSAEMU_JIT_PERFMAP=1`: each compiled region's code is listed in `/tmp/perf-<pid>.map`
//! (`START SIZE NAME`, hexadecimal), where `perf report` finds the symbols of JIT code. The
//! setting is read once per process, so the test runs a copy of this binary with it set,
//! which dispatches a kernel until its regions compile and checks its own map.

use hsaemu_emu::jit;

/// The test binary's copy, run with `HSAEMU_JIT_PERFMAP=1`: it must run its one test and
/// pass. Its map file is removed afterwards.
#[test]
fn compiled_regions_are_named_in_the_perf_map() {
    if !jit::enabled() {
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let child = std::process::Command::new(exe)
        .args(["--exact", "perf_map::child", "--ignored", "--nocapture"])
        .env("HSAEMU_JIT_PERFMAP", "1")
        // Under `perf record` Cranelift writes the map itself and the tier does not.
        .env_remove("PERF_BUILDID_DIR")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run the test binary");
    let map = jit::perf_map_path_of(child.id());
    let out = child.wait_with_output().expect("wait for the test binary");
    let _ = std::fs::remove_file(&map);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "the copy with HSAEMU_JIT_PERFMAP=1 failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The copy's side: the work-group reduction (`cl/reduce.cl`) on gfx90a, dispatched until its
/// regions compile in the background; then its map must hold a line for a region of
/// `reduce_sum` (named by the kernel and the offset of its start, then its variant), whose
/// range lies in executable memory of this process. Outside the copy (the setting unset) it
/// does nothing.
#[test]
#[ignore = "run by compiled_regions_are_named_in_the_perf_map, in a process of its own"]
fn child() {
    use super::common::{code_object_version, from_bytes_threads, Arg};
    if std::env::var("HSAEMU_JIT_PERFMAP").as_deref() != Ok("1") {
        return;
    }
    let cov = code_object_version("gfx90a");
    let path = hsaemu_testkit::compile_cl_with("cl/reduce.cl", "gfx90a", cov, &[]);
    let bytes = std::fs::read(path).expect("read compiled kernel");
    let e = from_bytes_threads(&bytes, "gfx90a", cov, 1);
    let lds = e
        .code
        .kernel("reduce_sum")
        .expect("kernel")
        .group_segment_size;
    let input: Vec<i32> = (0..256 * 64).map(|i| i % 7).collect();
    let map = jit::perf_map_path_of(std::process::id());
    let named = |text: &str| -> Vec<(u64, u64, String)> {
        text.lines()
            .filter_map(|l| {
                let mut f = l.splitn(3, ' ');
                let start = u64::from_str_radix(f.next()?, 16).ok()?;
                let size = u64::from_str_radix(f.next()?, 16).ok()?;
                Some((start, size, f.next()?.to_string()))
            })
            .filter(|(_, _, name)| name.contains(":reduce_sum+0x"))
            .collect()
    };
    let t = std::time::Instant::now();
    let mut lines = Vec::new();
    while lines.is_empty() && t.elapsed().as_secs() < 60 {
        let (bi, bp) = (e.buf_i32(&input), e.buf_i32(&[0; 64]));
        let args = [
            Arg::Ptr(&bi),
            Arg::Ptr(&bp),
            Arg::U32(lds),
            Arg::U32(256 * 64),
        ];
        e.try_run("reduce_sum", &args, [256 * 64, 1, 1], [256, 1, 1], 1024)
            .expect("reduce_sum runs");
        std::thread::sleep(std::time::Duration::from_millis(20));
        lines = named(&std::fs::read_to_string(&map).unwrap_or_default());
    }
    assert!(
        !lines.is_empty(),
        "no region of reduce_sum in {}",
        map.display()
    );
    let exec = executable_ranges();
    for (start, size, name) in &lines {
        // `regionN:reduce_sum+0xOFF:VARIANT…`: the offset of an instruction (4-byte aligned).
        let rest = name.split(":reduce_sum+0x").nth(1).unwrap_or_default();
        let (off, variant) = rest.split_once(':').unwrap_or((rest, ""));
        let off = u64::from_str_radix(off, 16).unwrap_or(1);
        assert!(
            name.starts_with("region") && off % 4 == 0,
            "`{name}`: a region's number, then the kernel and an instruction's offset"
        );
        assert!(
            ["both", "general", "full"]
                .iter()
                .any(|v| variant.split(':').next() == Some(*v)),
            "`{name}`: its variants after the place"
        );
        assert!(
            *size > 0 && exec.iter().any(|&(a, b)| a <= *start && start + size <= b),
            "`{name}` at {start:#x}, {size:#x} bytes: not inside executable memory"
        );
    }
}

/// This process's executable mappings (`/proc/self/maps`), as `[start, end)`.
fn executable_ranges() -> Vec<(u64, u64)> {
    let maps = std::fs::read_to_string("/proc/self/maps").expect("read /proc/self/maps");
    maps.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (range, perms) = (f.next()?, f.next()?);
            let (a, b) = range.split_once('-')?;
            perms.contains('x').then_some((
                u64::from_str_radix(a, 16).ok()?,
                u64::from_str_radix(b, 16).ok()?,
            ))
        })
        .collect()
}
