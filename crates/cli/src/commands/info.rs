//! Implementation of the `hsaemu info` command: what `rocminfo` prints (system attributes,
//! then each agent with its caches, memory pools and ISAs), read through hsaemu's own Rust
//! runtime API. `HSAEMU_TARGET`, `HSAEMU_GPUS` and `HSAEMU_CUS` shape the agents as usual.

use std::fmt::Write as _;
use std::process::ExitCode;

use hsaemu_runtime::memory::Segment;
use hsaemu_runtime::{Agent, DeviceType, Runtime};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<ExitCode, String> {
    let rt = hsaemu_runtime::init().map_err(|e| format!("hsa_init failed: {e}"))?;
    let text = render(&rt);
    let _ = hsaemu_runtime::shut_down();
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

fn banner(out: &mut String, title: &str) {
    let bar = "=".repeat(title.len());
    let _ = writeln!(out, "{bar}\n{title}\n{bar}");
}

fn line(out: &mut String, indent: usize, key: &str, value: impl std::fmt::Display) {
    let pad = " ".repeat(indent);
    let key = format!("{key}:");
    let _ = writeln!(
        out,
        "{pad}{key:<width$}{value}",
        width = 28usize.saturating_sub(indent).max(key.len() + 1)
    );
}

fn num(v: u64) -> String {
    format!("{v}(0x{v:x})")
}

fn bool_text(b: bool) -> &'static str {
    if b {
        "TRUE"
    } else {
        "FALSE"
    }
}

/// The whole report.
pub fn render(rt: &Runtime) -> String {
    let mut out = String::new();
    banner(&mut out, "HSA System Attributes");
    line(&mut out, 0, "Runtime Version", "1.1");
    line(&mut out, 0, "Runtime Ext Version", "1.1 (hsaemu)");
    line(
        &mut out,
        0,
        "System Timestamp Freq.",
        format!("{:.6}MHz", rt.timestamp_frequency() as f64 / 1e6),
    );
    line(
        &mut out,
        0,
        "Sig. Max Wait Duration",
        "18446744073709551615 (0xFFFFFFFFFFFFFFFF) (timestamp count)",
    );
    line(&mut out, 0, "Machine Model", "LARGE");
    line(&mut out, 0, "System Endianness", "LITTLE");
    out.push('\n');
    banner(&mut out, "HSA Agents");
    for (i, agent) in rt.agents().iter().enumerate() {
        agent_report(&mut out, rt, i + 1, agent);
    }
    out.push_str("*** Done ***\n");
    out
}

fn agent_report(out: &mut String, rt: &Runtime, index: usize, agent: &Agent) {
    let p = agent.properties();
    let gpu = p.device_type == DeviceType::Gpu;
    let stars = "*".repeat(format!("Agent {index}").len());
    let _ = writeln!(out, "{stars}\nAgent {index}\n{stars}");
    line(out, 2, "Name", &p.name);
    line(out, 2, "Uuid", &p.uuid);
    line(out, 2, "Marketing Name", &p.product_name);
    line(out, 2, "Vendor Name", &p.vendor_name);
    line(
        out,
        2,
        "Feature",
        if p.kernel_dispatch {
            "KERNEL_DISPATCH"
        } else {
            "None specified"
        },
    );
    line(out, 2, "Profile", "BASE_PROFILE");
    line(out, 2, "Float Round Mode", "NEAR");
    line(out, 2, "Max Queue Number", num(u64::from(p.queues_max)));
    line(out, 2, "Queue Min Size", num(u64::from(p.queue_min_size)));
    line(out, 2, "Queue Max Size", num(u64::from(p.queue_max_size)));
    line(out, 2, "Queue Type", "MULTI");
    line(out, 2, "Node", p.node);
    line(out, 2, "Device Type", if gpu { "GPU" } else { "CPU" });
    let _ = writeln!(out, "  Cache Info:");
    for (level, size) in p.cache_sizes.iter().enumerate().filter(|(_, s)| **s != 0) {
        line(
            out,
            4,
            &format!("L{}", level + 1),
            format!("{}(0x{:x}) KB", size / 1024, size / 1024),
        );
    }
    line(out, 2, "Chip ID", num(u64::from(p.chip_id)));
    line(out, 2, "ASIC Revision", num(0));
    line(
        out,
        2,
        "Cacheline Size",
        format!("{}(0x{:x})", p.cacheline_size, p.cacheline_size),
    );
    line(out, 2, "Max Clock Freq. (MHz)", p.max_clock_mhz);
    line(out, 2, "BDFID", p.bdfid);
    line(out, 2, "Internal Node ID", p.node);
    line(out, 2, "Compute Unit", p.compute_units);
    line(out, 2, "SIMDs per CU", p.simds_per_cu);
    line(out, 2, "Shader Engines", p.shader_engines);
    line(out, 2, "Shader Arrs. per Eng.", p.shader_arrays_per_se);
    line(out, 2, "WatchPts on Addr. Ranges", p.watch_points);
    line(out, 2, "Memory Properties", "");
    line(
        out,
        2,
        "Features",
        if gpu { "KERNEL_DISPATCH" } else { "None" },
    );
    if gpu {
        line(out, 2, "Fast F16 Operation", "TRUE");
        line(out, 2, "Wavefront Size", num(u64::from(p.wavefront_size)));
        line(
            out,
            2,
            "Workgroup Max Size",
            num(u64::from(p.workgroup_max_size)),
        );
        let _ = writeln!(out, "  Workgroup Max Size per Dimension:");
        for (axis, d) in ["x", "y", "z"].iter().zip(p.workgroup_max_dim) {
            line(out, 4, axis, num(u64::from(d)));
        }
        line(
            out,
            2,
            "Max Waves Per CU",
            num(u64::from(p.max_waves_per_cu)),
        );
        line(
            out,
            2,
            "Max Work-item Per CU",
            num(u64::from(p.max_waves_per_cu * p.wavefront_size)),
        );
        line(out, 2, "Grid Max Size", num(u64::from(p.grid_max_size)));
        let _ = writeln!(out, "  Grid Max Size per Dimension:");
        for (axis, d) in ["x", "y", "z"].iter().zip(p.grid_max_dim) {
            line(out, 4, axis, num(u64::from(d)));
        }
        line(out, 2, "Max fbarriers/Workgrp", p.fbarrier_max_size);
        line(
            out,
            2,
            "Cooperative Queues",
            bool_text(p.cooperative_queues),
        );
    }
    if let Some(hw) = p.hardware {
        // Where the emulator's figures differ from the part whose figures it copies.
        let _ = writeln!(
            out,
            "  Emulated (hardware {}: {} CUs, {} shader engines x {} arrays; hsaemu: HSAEMU_CUS={} CUs, clocks copied, not emulated)",
            hw.part,
            hw.compute_units,
            hw.shader_engines,
            hw.shader_arrays_per_se,
            p.compute_units
        );
    }
    let _ = writeln!(out, "  Pool Info:");
    for (i, pool) in agent.pools().iter().enumerate() {
        let pp = pool.properties();
        let _ = writeln!(out, "    Pool {}", i + 1);
        let segment = match pp.segment {
            Segment::Global => {
                let mut flags = Vec::new();
                if pp.flags.kernarg {
                    flags.push("KERNARG");
                }
                if pp.flags.fine_grained {
                    flags.push("FINE GRAINED");
                }
                if pp.flags.coarse_grained {
                    flags.push("COARSE GRAINED");
                }
                format!("GLOBAL; FLAGS: {}", flags.join(", "))
            }
            Segment::Group => "GROUP".to_string(),
            Segment::ReadOnly => "READONLY".to_string(),
            Segment::Private => "PRIVATE".to_string(),
            Segment::Kernarg => "KERNARG".to_string(),
        };
        line(out, 6, "Segment", segment);
        line(
            out,
            6,
            "Size",
            format!("{}(0x{:x}) KB", pp.size / 1024, pp.size / 1024),
        );
        line(out, 6, "Allocatable", bool_text(pp.alloc_allowed));
        line(out, 6, "Alloc Granule", format!("{}KB", pp.granule / 1024));
        line(
            out,
            6,
            "Alloc Alignment",
            format!("{}KB", pp.alignment / 1024),
        );
        line(out, 6, "Accessible by all", bool_text(pp.accessible_by_all));
    }
    let _ = writeln!(out, "  ISA Info:");
    match agent.isa() {
        Some(isa) => {
            let _ = writeln!(out, "    ISA 1");
            line(out, 6, "Name", &isa.name);
            line(out, 6, "Machine Models", "HSA_MACHINE_MODEL_LARGE");
            line(out, 6, "Profiles", "HSA_PROFILE_BASE");
            line(out, 6, "Default Rounding Mode", "NEAR");
            line(out, 6, "Fast f16", "TRUE");
            line(out, 6, "Workgroup Max Size", num(1024));
            let _ = writeln!(out, "      Workgroup Max Size per Dimension:");
            for axis in ["x", "y", "z"] {
                line(out, 8, axis, num(1024));
            }
            line(out, 6, "Grid Max Size", num(u64::from(u32::MAX)));
            let _ = writeln!(out, "      Grid Max Size per Dimension:");
            for axis in ["x", "y", "z"] {
                line(out, 8, axis, num(u64::from(u32::MAX)));
            }
            line(out, 6, "FBarrier Max Size", 32);
        }
        None => {
            let _ = writeln!(out, "    N/A");
        }
    }
    let _ = rt;
}

#[cfg(test)]
mod tests {
    #[test]
    fn report_lists_the_cpu_and_the_emulated_gpu() {
        let rt = hsaemu_runtime::init().expect("init");
        let text = super::render(&rt);
        hsaemu_runtime::shut_down().expect("shut down");
        assert!(text.contains("HSA System Attributes"));
        assert!(text.contains("Device Type:              CPU") || text.contains("Device Type:"));
        let gpus = rt.gpu_agents().count();
        assert!(gpus >= 1);
        assert!(text.contains("Agent 2"));
        assert!(
            text.contains("Name:                     amdgcn-amd-amdhsa--")
                || text.contains("amdgcn-amd-amdhsa--")
        );
        assert!(text.contains("GLOBAL; FLAGS: COARSE GRAINED"));
        assert!(text.contains("GROUP"));
        // rocminfo's fields, with MI210's figures for the default gfx90a agent.
        if std::env::var_os("HSAEMU_TARGET").is_none() {
            for want in [
                "Max Waves Per CU:         32(0x20)",
                "Max Work-item Per CU:     2048(0x800)",
                "Cacheline Size:           128(0x80)",
                "WatchPts on Addr. Ranges: 4",
                "Fast F16 Operation:       TRUE",
                "Grid Max Size:            4294967295(0xffffffff)",
                "Instinct MI210: 104 CUs",
            ] {
                assert!(text.contains(want), "missing {want:?} in\n{text}");
            }
        }
        assert!(text.ends_with("*** Done ***\n"));
    }
}
