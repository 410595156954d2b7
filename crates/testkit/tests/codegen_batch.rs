//! The corpus's code generation in batches ([`hsaemu_testkit::codegen_in_batches`]) makes the
//! code objects one driver run each makes, byte for byte, under the keys `compile_cl` reads.

use hsaemu_testkit::internals::driver_code_object;
use std::path::PathBuf;

#[test]
fn batched_code_objects_are_the_drivers() {
    // An empty kernel cache of its own, so the batch has everything to make (this binary's
    // only test: nothing else reads the variable).
    let dir = std::env::temp_dir().join(format!("hsaemu-codegen-batch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("CARGO_TARGET_DIR", &dir);
    // clang-15 V2 and V3 from one V4 module, two sources in one batch; clang-22 V5 from the
    // probes.
    let cases = [
        ("cl/math.cl", "gfx906", 2),
        ("cl/control.cl", "gfx906", 2),
        ("cl/math.cl", "gfx906", 3),
        ("cl/control.cl", "gfx1100", 5),
        ("cl/math.cl", "gfx1100", 5),
    ];
    let jobs: Vec<(String, String, u32)> = cases
        .iter()
        .map(|(s, t, v)| (s.to_string(), t.to_string(), *v))
        .collect();
    hsaemu_testkit::codegen_in_batches(&jobs);
    let made: Vec<PathBuf> = std::fs::read_dir(dir.join("kernels"))
        .expect("list the kernel cache")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "hsaco"))
        .collect();
    for (rel, target, cov) in cases {
        let cached = hsaemu_testkit::compile_cl(rel, target, cov);
        assert!(
            made.contains(&cached),
            "{rel} {target} V{cov}: not made by the batch ({made:?})"
        );
        let out = dir.join("driver.hsaco");
        driver_code_object(rel, target, cov, &[], &out);
        let ours = std::fs::read(&cached).expect("read the batch's code object");
        let drivers = std::fs::read(&out).expect("read the driver's code object");
        assert!(
            ours == drivers,
            "{rel} {target} V{cov}: {} differs from the driver's",
            cached.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
