//! Agents and ISAs: one CPU agent followed by the emulated GPU agents (`HSAEMU_GPUS`, default
//! one) of the target named by `HSAEMU_TARGET` (default `gfx90a`), with every property that
//! `hsa_agent_get_info` and the AMD agent attributes report, and the memory pools each owns.

use std::sync::Arc;

use crate::backend::GpuBackend;
use crate::error::{HsaError, Result};
use crate::memory::MemoryPool;

/// Kind of agent (`hsa_device_type_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceType {
    Cpu,
    Gpu,
}

/// One supported GPU processor and its fixed properties.
#[derive(Debug, Clone, Copy)]
pub struct TargetInfo {
    /// e.g. `gfx90a`.
    pub processor: &'static str,
    /// Default target features in target-ID order, e.g. `:sramecc+:xnack-`.
    pub default_features: &'static str,
    pub chip_id: u32,
    /// Marketing name used as the product name.
    pub product: &'static str,
    /// LDS (group segment) bytes per work-group.
    pub lds_size: u32,
    /// SIMDs per compute unit (GCN/CDNA: four SIMD16; RDNA: two SIMD32).
    pub simds_per_cu: u32,
    /// Most waves resident per compute unit.
    pub max_waves_per_cu: u32,
    /// What the real part reports (rocminfo) for the properties the emulator copies: cache
    /// line bytes, L1/L2/L3 data cache bytes, top engine clock, and (for `hsaemu info` and the
    /// docs only) its compute units, shader engines and shader arrays per engine.
    pub hardware: Hardware,
}

impl TargetInfo {
    /// The processor's entry in codeobject's processor table (the one source of processor
    /// facts: features, wave size, ISA version).
    pub fn processor_info(&self) -> &'static hsaemu_codeobject::ProcessorInfo {
        hsaemu_codeobject::processor_info(self.processor)
            .expect("every agent target is in codeobject's processor table")
    }
    /// Whether the processor has an XNACK mode to select.
    pub fn supports_xnack(&self) -> bool {
        self.processor_info().supports_xnack
    }
    /// Whether the processor has an SRAMECC mode to select.
    pub fn supports_sramecc(&self) -> bool {
        self.processor_info().supports_sramecc
    }
    /// Lanes per wavefront by default (32 on GFX10+, whose kernels may choose wave64).
    pub fn wavefront_size(&self) -> u32 {
        self.processor_info().default_wavefront_size()
    }
}

/// A real part's figures (see [`TargetInfo::hardware`]).
#[derive(Debug, Clone, Copy)]
pub struct Hardware {
    /// The card the figures come from.
    pub part: &'static str,
    pub cacheline_size: u32,
    pub cache_sizes: [u32; 4],
    pub max_clock_mhz: u32,
    pub compute_units: u32,
    pub shader_engines: u32,
    pub shader_arrays_per_se: u32,
    /// The driver gives the part global wave sync resources, so ROCr offers cooperative
    /// queues (`HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES`; GFX8 has none).
    pub gws: bool,
}

const KB: u32 = 1024;
/// GWS (see [`Hardware::gws`]) on GFX9 and later.
const GWS: bool = true;
/// CDNA3/CDNA4 as rocminfo shows MI300X/MI355X: 32 KiB L1 per CU, 4 MiB L2 per XCD and the
/// 256 MiB Infinity Cache as L3.
const CACHES_CDNA3: [u32; 4] = [32 * KB, 4096 * KB, 262144 * KB, 0];

/// The GPU targets an emulated agent can present.
pub const TARGETS: &[TargetInfo] = &[
    TargetInfo {
        processor: "gfx803",
        default_features: "",
        chip_id: 0x7300,
        product: "Fiji",
        lds_size: 65536,
        simds_per_cu: 4,
        max_waves_per_cu: 40,
        hardware: Hardware {
            part: "Radeon R9 Fury X",
            cacheline_size: 64,
            cache_sizes: [16 * KB, 2048 * KB, 0, 0],
            max_clock_mhz: 1050,
            compute_units: 64,
            shader_engines: 4,
            shader_arrays_per_se: 1,
            gws: false,
        },
    },
    TargetInfo {
        processor: "gfx900",
        default_features: ":xnack-",
        chip_id: 0x687f,
        product: "Vega 10",
        lds_size: 65536,
        simds_per_cu: 4,
        max_waves_per_cu: 40,
        hardware: Hardware {
            part: "Radeon RX Vega 64",
            cacheline_size: 64,
            cache_sizes: [16 * KB, 4096 * KB, 0, 0],
            max_clock_mhz: 1630,
            compute_units: 64,
            shader_engines: 4,
            shader_arrays_per_se: 1,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx906",
        default_features: ":sramecc+:xnack-",
        chip_id: 0x66af,
        product: "Vega 20",
        lds_size: 65536,
        simds_per_cu: 4,
        max_waves_per_cu: 40,
        hardware: Hardware {
            part: "Radeon Instinct MI60",
            cacheline_size: 64,
            cache_sizes: [16 * KB, 4096 * KB, 0, 0],
            max_clock_mhz: 1800,
            compute_units: 64,
            shader_engines: 4,
            shader_arrays_per_se: 1,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx908",
        default_features: ":sramecc+:xnack-",
        chip_id: 0x738c,
        product: "Arcturus",
        lds_size: 65536,
        simds_per_cu: 4,
        max_waves_per_cu: 40,
        hardware: Hardware {
            part: "Instinct MI100",
            cacheline_size: 64,
            cache_sizes: [16 * KB, 8192 * KB, 0, 0],
            max_clock_mhz: 1502,
            compute_units: 120,
            shader_engines: 8,
            shader_arrays_per_se: 1,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx90a",
        default_features: ":sramecc+:xnack-",
        chip_id: 0x740f,
        product: "Aldebaran",
        lds_size: 65536,
        simds_per_cu: 4,
        // MI200: 8 waves per SIMD (rocminfo: 32 waves, 2048 work-items per CU).
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Instinct MI210",
            cacheline_size: 128,
            cache_sizes: [16 * KB, 8192 * KB, 0, 0],
            max_clock_mhz: 1700,
            compute_units: 104,
            shader_engines: 8,
            shader_arrays_per_se: 1,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx1030",
        default_features: "",
        chip_id: 0x73bf,
        product: "Navi 21",
        lds_size: 65536,
        // What ROCr reports for Navi 21: 2 SIMD32 per CU, 16 waves each.
        simds_per_cu: 2,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Radeon RX 6900 XT",
            cacheline_size: 128,
            cache_sizes: [16 * KB, 4096 * KB, 131072 * KB, 0],
            max_clock_mhz: 2660,
            compute_units: 80,
            shader_engines: 4,
            shader_arrays_per_se: 2,
            gws: GWS,
        },
    },
    // CDNA3 (MI300) and CDNA4 (MI350). LDS, wave size, target-ID features and the 128-byte
    // cache line are the hardware's (backend guide, rocminfo on MI300X/MI355X); the chip IDs of
    // gfx940/gfx941 (pre-production MI300A/MI300X parts) are guesses, see docs/status.md.
    TargetInfo {
        processor: "gfx940",
        default_features: ":sramecc+:xnack-",
        chip_id: 0x74a0,
        product: "MI300A (gfx940)",
        lds_size: 65536,
        simds_per_cu: 4,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Instinct MI300A",
            cacheline_size: 128,
            cache_sizes: CACHES_CDNA3,
            max_clock_mhz: 2100,
            compute_units: 228,
            shader_engines: 24,
            shader_arrays_per_se: 1,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx941",
        default_features: ":sramecc+:xnack-",
        chip_id: 0x74a1,
        product: "MI300X (gfx941)",
        lds_size: 65536,
        simds_per_cu: 4,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Instinct MI300X",
            cacheline_size: 128,
            cache_sizes: CACHES_CDNA3,
            max_clock_mhz: 2100,
            compute_units: 304,
            shader_engines: 32,
            shader_arrays_per_se: 1,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx942",
        default_features: ":sramecc+:xnack-",
        chip_id: 0x74a1,
        product: "MI300X",
        lds_size: 65536,
        simds_per_cu: 4,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Instinct MI300X",
            cacheline_size: 128,
            cache_sizes: CACHES_CDNA3,
            max_clock_mhz: 2100,
            compute_units: 304,
            shader_engines: 32,
            shader_arrays_per_se: 1,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx950",
        default_features: ":sramecc+:xnack-",
        chip_id: 0x75a3,
        product: "MI355X",
        // gfx950 has 160 KiB of LDS per compute unit, all of it available to one work-group.
        lds_size: 163840,
        simds_per_cu: 4,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Instinct MI355X",
            cacheline_size: 128,
            cache_sizes: CACHES_CDNA3,
            max_clock_mhz: 2400,
            compute_units: 256,
            shader_engines: 32,
            shader_arrays_per_se: 1,
            gws: GWS,
        },
    },
    // RDNA3 and RDNA3.5. Wave32 by default, 64 KiB LDS per work-group, 128-byte cache lines,
    // two SIMD32 per CU and 32 waves per CU as ROCr reports them for RDNA. The figures of the
    // RX 7900 XTX are its rocminfo's; gfx1151's (Strix Halo, Radeon 8060S) are from the
    // published specifications, and its chip ID and cache sizes are guesses (docs/status.md).
    TargetInfo {
        processor: "gfx1100",
        default_features: "",
        chip_id: 0x744c,
        product: "Navi 31",
        lds_size: 65536,
        simds_per_cu: 2,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Radeon RX 7900 XTX",
            cacheline_size: 128,
            cache_sizes: [32 * KB, 6144 * KB, 98304 * KB, 0],
            max_clock_mhz: 2482,
            compute_units: 96,
            shader_engines: 6,
            shader_arrays_per_se: 2,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx1151",
        default_features: "",
        chip_id: 0x1586,
        product: "Strix Halo",
        lds_size: 65536,
        simds_per_cu: 2,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Radeon 8060S",
            cacheline_size: 128,
            cache_sizes: [32 * KB, 2048 * KB, 32768 * KB, 0],
            max_clock_mhz: 2900,
            compute_units: 40,
            shader_engines: 2,
            shader_arrays_per_se: 2,
            gws: GWS,
        },
    },
    // The rest of RDNA3 (same ISA as gfx1100) and RDNA3.5 (gfx1151's), from the published
    // specifications of one part each; the APUs (gfx1103, gfx1150, gfx1152, gfx1153) have no
    // Infinity Cache. Chip IDs are the parts' PCI device IDs where published, and gfx1152's
    // and gfx1153's figures are guesses (no part with a published specification known to us;
    // gfx1153 takes gfx1152's): docs/status.md.
    TargetInfo {
        processor: "gfx1101",
        default_features: "",
        chip_id: 0x747e,
        product: "Navi 32",
        lds_size: 65536,
        simds_per_cu: 2,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Radeon RX 7800 XT",
            cacheline_size: 128,
            cache_sizes: [32 * KB, 4096 * KB, 65536 * KB, 0],
            max_clock_mhz: 2430,
            compute_units: 60,
            shader_engines: 3,
            shader_arrays_per_se: 2,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx1102",
        default_features: "",
        chip_id: 0x7480,
        product: "Navi 33",
        lds_size: 65536,
        simds_per_cu: 2,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Radeon RX 7600",
            cacheline_size: 128,
            cache_sizes: [32 * KB, 2048 * KB, 32768 * KB, 0],
            max_clock_mhz: 2655,
            compute_units: 32,
            shader_engines: 2,
            shader_arrays_per_se: 2,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx1103",
        default_features: "",
        chip_id: 0x15bf,
        product: "Phoenix",
        lds_size: 65536,
        simds_per_cu: 2,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Radeon 780M",
            cacheline_size: 128,
            cache_sizes: [32 * KB, 2048 * KB, 0, 0],
            max_clock_mhz: 2700,
            compute_units: 12,
            shader_engines: 1,
            shader_arrays_per_se: 2,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx1150",
        default_features: "",
        chip_id: 0x150e,
        product: "Strix Point",
        lds_size: 65536,
        simds_per_cu: 2,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Radeon 890M",
            cacheline_size: 128,
            cache_sizes: [32 * KB, 2048 * KB, 0, 0],
            max_clock_mhz: 2900,
            compute_units: 16,
            shader_engines: 1,
            shader_arrays_per_se: 2,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx1152",
        default_features: "",
        chip_id: 0x1114,
        product: "Krackan Point",
        lds_size: 65536,
        simds_per_cu: 2,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Radeon 880M",
            cacheline_size: 128,
            cache_sizes: [32 * KB, 2048 * KB, 0, 0],
            max_clock_mhz: 2900,
            compute_units: 12,
            shader_engines: 1,
            shader_arrays_per_se: 2,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx1153",
        default_features: "",
        chip_id: 0x1114,
        product: "RDNA3.5 (gfx1153)",
        lds_size: 65536,
        simds_per_cu: 2,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Radeon 880M class",
            cacheline_size: 128,
            cache_sizes: [32 * KB, 2048 * KB, 0, 0],
            max_clock_mhz: 2900,
            compute_units: 12,
            shader_engines: 1,
            shader_arrays_per_se: 2,
            gws: GWS,
        },
    },
    // RDNA4 (gfx1200, gfx1201): wave32 by default, 64 KiB LDS, 128-byte lines, two SIMD32
    // per CU. The figures are the published specifications of the RX 9070 XT (Navi 48: 64 CUs
    // in 4 shader engines, 8 MiB L2, 64 MiB Infinity Cache, 2970 MHz boost) and RX 9060 XT
    // (Navi 44: 32 CUs, 4 MiB L2, 32 MiB Infinity Cache, 3130 MHz); the chip IDs are their
    // PCI device IDs (0x7550, 0x7590); the L1 size is RDNA3's (docs/status.md).
    TargetInfo {
        processor: "gfx1200",
        default_features: "",
        chip_id: 0x7590,
        product: "Navi 44",
        lds_size: 65536,
        simds_per_cu: 2,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Radeon RX 9060 XT",
            cacheline_size: 128,
            cache_sizes: [32 * KB, 4096 * KB, 32768 * KB, 0],
            max_clock_mhz: 3130,
            compute_units: 32,
            shader_engines: 2,
            shader_arrays_per_se: 2,
            gws: GWS,
        },
    },
    TargetInfo {
        processor: "gfx1201",
        default_features: "",
        chip_id: 0x7550,
        product: "Navi 48",
        lds_size: 65536,
        simds_per_cu: 2,
        max_waves_per_cu: 32,
        hardware: Hardware {
            part: "Radeon RX 9070 XT",
            cacheline_size: 128,
            cache_sizes: [32 * KB, 8192 * KB, 65536 * KB, 0],
            max_clock_mhz: 2970,
            compute_units: 64,
            shader_engines: 4,
            shader_arrays_per_se: 2,
            gws: GWS,
        },
    },
];

/// The instruction set of a GPU agent (`hsa_isa_t`), named by a full target ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Isa {
    /// `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`.
    pub name: String,
    pub target: TargetInfo,
    /// `Some(true)` for `xnack+`, `Some(false)` for `xnack-`, `None` when not specified.
    pub xnack: Option<bool>,
    pub sramecc: Option<bool>,
}

impl PartialEq for TargetInfo {
    fn eq(&self, other: &Self) -> bool {
        self.processor == other.processor
    }
}
impl Eq for TargetInfo {}

impl Isa {
    /// Parses `gfx90a`, `gfx90a:xnack+` or a full `amdgcn-amd-amdhsa--…` name.
    /// Unspecified features take the target's defaults when `fill_defaults` is set.
    pub fn parse(name: &str, fill_defaults: bool) -> Result<Isa> {
        let short = name.strip_prefix("amdgcn-amd-amdhsa--").unwrap_or(name);
        let mut parts = short.split(':');
        let processor = parts.next().unwrap_or("");
        let target = *TARGETS
            .iter()
            .find(|t| t.processor == processor)
            .ok_or(HsaError::InvalidIsaName)?;
        let (mut xnack, mut sramecc) = (None, None);
        for f in parts {
            let (feat, on) = match (f.strip_suffix('+'), f.strip_suffix('-')) {
                (Some(x), _) => (x, true),
                (_, Some(x)) => (x, false),
                _ => return Err(HsaError::InvalidIsaName),
            };
            match feat {
                "xnack" if target.supports_xnack() => xnack = Some(on),
                "sramecc" if target.supports_sramecc() => sramecc = Some(on),
                _ => return Err(HsaError::InvalidIsaName),
            }
        }
        if fill_defaults {
            if target.supports_sramecc() && sramecc.is_none() {
                sramecc = Some(true);
            }
            if target.supports_xnack() && xnack.is_none() {
                xnack = Some(false);
            }
        }
        let mut full = format!("amdgcn-amd-amdhsa--{}", target.processor);
        if let Some(s) = sramecc {
            full.push_str(if s { ":sramecc+" } else { ":sramecc-" });
        }
        if let Some(x) = xnack {
            full.push_str(if x { ":xnack+" } else { ":xnack-" });
        }
        Ok(Isa {
            name: full,
            target,
            xnack,
            sramecc,
        })
    }

    /// Whether code compiled for `code` (a code object's target) runs on this ISA: same
    /// processor, and each feature the code object pins (`+`/`-`) matches this ISA's setting.
    pub fn accepts(&self, code: &Isa) -> bool {
        let feature_ok = |code: Option<bool>, agent: Option<bool>| match (code, agent) {
            (None, _) => true,
            (Some(c), Some(a)) => c == a,
            (Some(_), None) => false,
        };
        self.target.processor == code.target.processor
            && feature_ok(code.xnack, self.xnack)
            && feature_ok(code.sramecc, self.sramecc)
    }
}

/// Everything `hsa_agent_get_info` reports about an agent.
#[derive(Debug, Clone)]
pub struct AgentProperties {
    pub name: String,
    pub vendor_name: String,
    pub product_name: String,
    pub device_type: DeviceType,
    /// NUMA-style node number (CPU 0, GPUs 1..).
    pub node: u32,
    pub compute_units: u32,
    pub simds_per_cu: u32,
    pub max_waves_per_cu: u32,
    pub wavefront_size: u32,
    pub workgroup_max_dim: [u16; 3],
    pub workgroup_max_size: u32,
    pub grid_max_dim: [u32; 3],
    pub grid_max_size: u32,
    pub fbarrier_max_size: u32,
    pub queues_max: u32,
    pub queue_min_size: u32,
    pub queue_max_size: u32,
    /// L1..L4 data cache sizes in bytes (0 = absent).
    pub cache_sizes: [u32; 4],
    pub cacheline_size: u32,
    pub chip_id: u32,
    pub max_clock_mhz: u32,
    pub memory_max_mhz: u32,
    pub memory_width: u32,
    pub bdfid: u32,
    pub uuid: String,
    pub lds_size: u32,
    /// Whether the agent accepts kernel dispatch packets.
    pub kernel_dispatch: bool,
    /// Shader engines and shader arrays per engine of the emulated CUs, laid out as HW_ID
    /// numbers them (16 CUs per array, 2 arrays per engine).
    pub shader_engines: u32,
    pub shader_arrays_per_se: u32,
    /// Address watch points (`1 << WatchPointsTotalBits`, as the driver reports them).
    pub watch_points: u32,
    /// Cooperative queues (`HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES`).
    pub cooperative_queues: bool,
    /// The real part's figures, for reports (GPUs only).
    pub hardware: Option<Hardware>,
}

/// An agent. Cloning shares it; its handle is stable for the runtime's life.
#[derive(Clone, Debug)]
pub struct Agent(pub(crate) Arc<AgentInner>);

#[derive(Debug)]
pub(crate) struct AgentInner {
    pub props: AgentProperties,
    pub isa: Option<Isa>,
    pub pools: Vec<MemoryPool>,
    pub backend: Option<GpuBackend>,
}

impl Agent {
    /// The `hsa_agent_t` handle.
    pub fn handle(&self) -> u64 {
        Arc::as_ptr(&self.0) as u64
    }
    /// The agent's properties.
    pub fn properties(&self) -> &AgentProperties {
        &self.0.props
    }
    /// CPU or GPU.
    pub fn device_type(&self) -> DeviceType {
        self.0.props.device_type
    }
    /// The ISA of a GPU agent (CPU agents have none).
    pub fn isa(&self) -> Option<&Isa> {
        self.0.isa.as_ref()
    }
    /// The agent's memory pools, in iteration order.
    pub fn pools(&self) -> &[MemoryPool] {
        &self.0.pools
    }
    pub(crate) fn backend(&self) -> Option<&GpuBackend> {
        self.0.backend.as_ref()
    }
}

impl PartialEq for Agent {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for Agent {}

/// The configuration read from the environment at `hsa_init`.
#[derive(Debug, Clone)]
pub struct Config {
    /// `HSAEMU_TARGET`, e.g. `gfx90a` or `gfx90a:xnack+`.
    pub target: Isa,
    /// `HSAEMU_GPUS`.
    pub gpus: u32,
    /// `HSAEMU_CUS`: compute units per GPU.
    pub compute_units: u32,
    /// `HSA_CU_MASK` as ROCr parses it: the CU mask words of each listed GPU index.
    pub cu_masks: std::collections::BTreeMap<u32, Vec<u32>>,
    /// `HSA_CU_MASK_SKIP_INIT=1`: new queues start on every CU.
    pub cu_mask_skip_init: bool,
    /// ROCr's `ROCR_VISIBLE_DEVICES` (`visible.rs`): the GPUs surfaced, in agent order, by
    /// index among the `gpus` emulated ones; `None`: all of them.
    pub visible: Option<Vec<u32>>,
}

impl Config {
    /// Reads `HSAEMU_TARGET`, `HSAEMU_GPUS`, `HSAEMU_CUS` and ROCr's `HSA_CU_MASK` and
    /// `ROCR_VISIBLE_DEVICES`. A target that is not supported is
    /// an error (reported on stderr with the supported list; `hsa_init` fails), never a silent
    /// fallback to another GPU; bad counts are reported and replaced by the defaults.
    pub fn from_env() -> Result<Config> {
        let mut target = std::env::var("HSAEMU_TARGET").unwrap_or_else(|_| "gfx90a".into());
        // ROCr's HSA_XNACK=1 asks the driver for XNACK on (and so HMM: kernels reach
        // system-allocated memory); an xnack± pinned in HSAEMU_TARGET wins.
        if std::env::var("HSA_XNACK").is_ok_and(|v| v.trim() == "1")
            && !target.contains("xnack")
            && Isa::parse(&target, false).is_ok_and(|i| i.target.supports_xnack())
        {
            target.push_str(":xnack+");
        }
        let target = Isa::parse(&target, true).map_err(|_| {
            let known: Vec<&str> = TARGETS.iter().map(|t| t.processor).collect();
            eprintln!(
                "hsaemu: HSAEMU_TARGET={target:?} is not a supported target (supported: {}, \
                 optionally with :sramecc± and :xnack±)",
                known.join(", ")
            );
            HsaError::Error
        })?;
        let num = |var: &str, default: u32, max: u32| -> u32 {
            match std::env::var(var) {
                Ok(v) => match v.trim().parse::<u32>() {
                    Ok(n) if n <= max => n,
                    _ => {
                        eprintln!(
                            "hsaemu: {var}={v:?} is not a number in 0..={max}; using {default}"
                        );
                        default
                    }
                },
                Err(_) => default,
            }
        };
        let gpus = num("HSAEMU_GPUS", 1, 64);
        let compute_units = num("HSAEMU_CUS", 4, 1024).max(1);
        Ok(Config {
            target,
            gpus,
            compute_units,
            cu_masks: crate::cu_mask::parse_env(
                &std::env::var("HSA_CU_MASK").unwrap_or_default(),
                gpus,
                compute_units,
            ),
            cu_mask_skip_init: std::env::var("HSA_CU_MASK_SKIP_INIT").is_ok_and(|v| v == "1"),
            visible: crate::visible::from_env(gpus, gpu_uuid),
        })
    }

    /// The GPUs to surface as agents, in order (see `visible`).
    pub fn visible_gpus(&self) -> Vec<u32> {
        self.visible
            .clone()
            .unwrap_or_else(|| (0..self.gpus).collect())
    }
}

pub(crate) fn cpu_properties() -> AgentProperties {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    AgentProperties {
        name: cpu_model_name(),
        vendor_name: "CPU".into(),
        product_name: cpu_model_name(),
        device_type: DeviceType::Cpu,
        node: 0,
        compute_units: cores,
        simds_per_cu: 0,
        max_waves_per_cu: 0,
        wavefront_size: 0,
        workgroup_max_dim: [0; 3],
        workgroup_max_size: 0,
        grid_max_dim: [0; 3],
        grid_max_size: 0,
        fbarrier_max_size: 0,
        queues_max: 0,
        queue_min_size: 0,
        queue_max_size: 0,
        cache_sizes: [32 * 1024, 1024 * 1024, 32 * 1024 * 1024, 0],
        cacheline_size: 64,
        chip_id: 0,
        max_clock_mhz: 2000,
        memory_max_mhz: 0,
        memory_width: 0,
        bdfid: 0,
        uuid: "CPU-XX".into(),
        lds_size: 0,
        kernel_dispatch: false,
        shader_engines: 0,
        shader_arrays_per_se: 0,
        watch_points: 1,
        cooperative_queues: false,
        hardware: None,
    }
}

pub(crate) fn gpu_properties(isa: &Isa, index: u32, compute_units: u32) -> AgentProperties {
    let t = isa.target;
    AgentProperties {
        name: t.processor.into(),
        vendor_name: "AMD".into(),
        product_name: format!("hsaemu {} ({})", t.processor, t.product),
        device_type: DeviceType::Gpu,
        node: index + 1,
        compute_units,
        simds_per_cu: t.simds_per_cu,
        max_waves_per_cu: t.max_waves_per_cu,
        wavefront_size: t.wavefront_size(),
        workgroup_max_dim: [1024; 3],
        workgroup_max_size: 1024,
        grid_max_dim: [u32::MAX; 3],
        grid_max_size: u32::MAX,
        fbarrier_max_size: 32,
        queues_max: 128,
        queue_min_size: 64,
        queue_max_size: 131072,
        cache_sizes: t.hardware.cache_sizes,
        cacheline_size: t.hardware.cacheline_size,
        chip_id: t.chip_id,
        max_clock_mhz: t.hardware.max_clock_mhz,
        memory_max_mhz: 1600,
        memory_width: 4096,
        bdfid: (index + 3) << 8,
        uuid: gpu_uuid(index),
        lds_size: t.lds_size,
        kernel_dispatch: true,
        shader_engines: compute_units.div_ceil(32),
        shader_arrays_per_se: compute_units.div_ceil(16).min(2),
        watch_points: 4,
        cooperative_queues: t.hardware.gws,
        hardware: Some(t.hardware),
    }
}

/// GPU `index`'s UUID (`HSA_AMD_AGENT_INFO_UUID`).
pub(crate) fn gpu_uuid(index: u32) -> String {
    format!("GPU-{:016x}", 0x4853_4145_4d55_0000u64 | u64::from(index))
}

fn cpu_model_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "hsaemu host CPU".into())
}
