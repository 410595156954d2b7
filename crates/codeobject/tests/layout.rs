//! Layouts and constants against the C headers: a small C program compiled with gcc against
//! ROCm's `amd_hsa_kernel_code.h` / `amd_hsa_elf.h` and a C++ one against LLVM 15's
//! `AMDHSAKernelDescriptor.h` print `offsetof`/`sizeof`/constant values, which must equal this
//! crate's. A missing compiler or header fails the test loudly.

use hsaemu_codeobject::amd_kernel_code::{kcp_v2, offsets as akc, AMD_KERNEL_CODE_SIZE};
use hsaemu_codeobject::descriptor::{
    kcp, offsets as kd, rsrc1, rsrc2, rsrc3, BitField, KERNEL_DESCRIPTOR_SIZE,
};
use hsaemu_codeobject::elf_consts::*;
use hsaemu_codeobject::{processor_info, PROCESSORS};
use std::path::Path;

/// Compiles `source` with `compiler`, runs it, and checks that it prints `expected` values, one
/// per line, in order.
fn check(compiler: &str, ext: &str, includes: &str, checks: &[(String, i64)]) {
    let mut src =
        format!("{includes}\n#include <stdio.h>\n#include <stddef.h>\nint main(void) {{\n");
    for (expr, _) in checks {
        src.push_str(&format!("  printf(\"%lld\\n\", (long long)({expr}));\n"));
    }
    src.push_str("  return 0;\n}\n");
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("hsaemu-layout-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let file = dir.join(format!("layout.{ext}"));
    let exe = dir.join("layout");
    std::fs::write(&file, src).expect("write C source");
    let cc = hsaemu_testkit::tool(compiler);
    hsaemu_testkit::run_tool(
        &cc,
        &[
            "-w",
            "-I/usr/include/llvm-15",
            &file.display().to_string(),
            "-o",
            &exe.display().to_string(),
        ],
    );
    let out = hsaemu_testkit::run_tool(&exe, &[]);
    let _ = std::fs::remove_dir_all(&dir);
    let got: Vec<i64> = String::from_utf8_lossy(&out)
        .lines()
        .map(|l| l.trim().parse().expect("number"))
        .collect();
    assert_eq!(got.len(), checks.len());
    let mut wrong = Vec::new();
    for ((expr, ours), theirs) in checks.iter().zip(&got) {
        if ours != theirs {
            wrong.push(format!("{expr}: header {theirs}, ours {ours}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} mismatches:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

fn bits(out: &mut Vec<(String, i64)>, c_name: &str, f: BitField) {
    out.push((format!("{c_name}_SHIFT"), i64::from(f.shift)));
    out.push((format!("{c_name}_WIDTH"), i64::from(f.width)));
}

#[test]
fn amd_kernel_code_t_matches_rocm_header() {
    assert!(
        Path::new("/usr/include/hsa/amd_hsa_kernel_code.h").is_file(),
        "ROCm headers missing: run scripts/setup.sh (libhsa-runtime-dev)"
    );
    let mut c: Vec<(String, i64)> = vec![(
        "sizeof(amd_kernel_code_t)".into(),
        AMD_KERNEL_CODE_SIZE as i64,
    )];
    let fields: &[(&str, usize)] = &[
        (
            "amd_kernel_code_version_major",
            akc::AMD_KERNEL_CODE_VERSION_MAJOR,
        ),
        (
            "amd_kernel_code_version_minor",
            akc::AMD_KERNEL_CODE_VERSION_MINOR,
        ),
        ("amd_machine_kind", akc::AMD_MACHINE_KIND),
        ("amd_machine_version_major", akc::AMD_MACHINE_VERSION_MAJOR),
        ("amd_machine_version_minor", akc::AMD_MACHINE_VERSION_MINOR),
        (
            "amd_machine_version_stepping",
            akc::AMD_MACHINE_VERSION_STEPPING,
        ),
        (
            "kernel_code_entry_byte_offset",
            akc::KERNEL_CODE_ENTRY_BYTE_OFFSET,
        ),
        (
            "kernel_code_prefetch_byte_offset",
            akc::KERNEL_CODE_PREFETCH_BYTE_OFFSET,
        ),
        (
            "kernel_code_prefetch_byte_size",
            akc::KERNEL_CODE_PREFETCH_BYTE_SIZE,
        ),
        (
            "max_scratch_backing_memory_byte_size",
            akc::MAX_SCRATCH_BACKING_MEMORY_BYTE_SIZE,
        ),
        ("compute_pgm_rsrc1", akc::COMPUTE_PGM_RSRC1),
        ("compute_pgm_rsrc2", akc::COMPUTE_PGM_RSRC2),
        ("kernel_code_properties", akc::KERNEL_CODE_PROPERTIES),
        (
            "workitem_private_segment_byte_size",
            akc::WORKITEM_PRIVATE_SEGMENT_BYTE_SIZE,
        ),
        (
            "workgroup_group_segment_byte_size",
            akc::WORKGROUP_GROUP_SEGMENT_BYTE_SIZE,
        ),
        ("gds_segment_byte_size", akc::GDS_SEGMENT_BYTE_SIZE),
        ("kernarg_segment_byte_size", akc::KERNARG_SEGMENT_BYTE_SIZE),
        ("workgroup_fbarrier_count", akc::WORKGROUP_FBARRIER_COUNT),
        ("wavefront_sgpr_count", akc::WAVEFRONT_SGPR_COUNT),
        ("workitem_vgpr_count", akc::WORKITEM_VGPR_COUNT),
        ("reserved_vgpr_first", akc::RESERVED_VGPR_FIRST),
        ("reserved_vgpr_count", akc::RESERVED_VGPR_COUNT),
        ("reserved_sgpr_first", akc::RESERVED_SGPR_FIRST),
        ("reserved_sgpr_count", akc::RESERVED_SGPR_COUNT),
        (
            "debug_wavefront_private_segment_offset_sgpr",
            akc::DEBUG_WAVEFRONT_PRIVATE_SEGMENT_OFFSET_SGPR,
        ),
        (
            "debug_private_segment_buffer_sgpr",
            akc::DEBUG_PRIVATE_SEGMENT_BUFFER_SGPR,
        ),
        ("kernarg_segment_alignment", akc::KERNARG_SEGMENT_ALIGNMENT),
        ("group_segment_alignment", akc::GROUP_SEGMENT_ALIGNMENT),
        ("private_segment_alignment", akc::PRIVATE_SEGMENT_ALIGNMENT),
        ("wavefront_size", akc::WAVEFRONT_SIZE),
        ("call_convention", akc::CALL_CONVENTION),
        ("reserved1", akc::RESERVED1),
        (
            "runtime_loader_kernel_symbol",
            akc::RUNTIME_LOADER_KERNEL_SYMBOL,
        ),
        ("control_directives", akc::CONTROL_DIRECTIVES),
    ];
    for (f, off) in fields {
        c.push((format!("offsetof(amd_kernel_code_t, {f})"), *off as i64));
    }
    for f in rsrc1::ALL.iter().take_while(|f| f.shift < 26) {
        bits(&mut c, &format!("AMD_COMPUTE_PGM_RSRC_ONE_{}", f.name), *f);
    }
    for f in rsrc2::ALL {
        let name = match f.name {
            "ENABLE_PRIVATE_SEGMENT" => "ENABLE_SGPR_PRIVATE_SEGMENT_WAVE_BYTE_OFFSET",
            "ENABLE_EXCEPTION_MEMORY" => "ENABLE_EXCEPTION_MEMORY_VIOLATION",
            "ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO" => "ENABLE_EXCEPTION_INT_DIVISION_BY_ZERO",
            "RESERVED0" => "RESERVED1",
            n => n,
        };
        bits(&mut c, &format!("AMD_COMPUTE_PGM_RSRC_TWO_{name}"), *f);
    }
    for f in [
        kcp::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER,
        kcp::ENABLE_SGPR_DISPATCH_PTR,
        kcp::ENABLE_SGPR_QUEUE_PTR,
        kcp::ENABLE_SGPR_KERNARG_SEGMENT_PTR,
        kcp::ENABLE_SGPR_DISPATCH_ID,
        kcp::ENABLE_SGPR_FLAT_SCRATCH_INIT,
        kcp::ENABLE_SGPR_PRIVATE_SEGMENT_SIZE,
        kcp::ENABLE_SGPR_GRID_WORKGROUP_COUNT_X,
        kcp::ENABLE_SGPR_GRID_WORKGROUP_COUNT_Y,
        kcp::ENABLE_SGPR_GRID_WORKGROUP_COUNT_Z,
        kcp_v2::ENABLE_ORDERED_APPEND_GDS,
        kcp_v2::PRIVATE_ELEMENT_SIZE,
        kcp_v2::IS_PTR64,
        kcp_v2::IS_DYNAMIC_CALLSTACK,
        kcp_v2::IS_DEBUG_ENABLED,
        kcp_v2::IS_XNACK_ENABLED,
    ] {
        bits(&mut c, &format!("AMD_KERNEL_CODE_PROPERTIES_{}", f.name), f);
    }
    check(
        "gcc",
        "c",
        "#include <stdint.h>\n#include <hsa/amd_hsa_kernel_code.h>",
        &c,
    );
}

#[test]
fn elf_constants_match_rocm_amd_hsa_elf_header() {
    assert!(
        Path::new("/usr/include/hsa/amd_hsa_elf.h").is_file(),
        "ROCm headers missing: run scripts/setup.sh (libhsa-runtime-dev)"
    );
    let mut c: Vec<(String, i64)> = Vec::new();
    let consts: &[(&str, i64)] = &[
        ("EM_AMDGPU", i64::from(EM_AMDGPU)),
        ("ELFOSABI_AMDGPU_HSA", i64::from(ELFOSABI_AMDGPU_HSA)),
        (
            "ELFABIVERSION_AMDGPU_HSA_V2",
            i64::from(ELFABIVERSION_AMDGPU_HSA_V2),
        ),
        (
            "ELFABIVERSION_AMDGPU_HSA_V3",
            i64::from(ELFABIVERSION_AMDGPU_HSA_V3),
        ),
        (
            "ELFABIVERSION_AMDGPU_HSA_V4",
            i64::from(ELFABIVERSION_AMDGPU_HSA_V4),
        ),
        (
            "ELFABIVERSION_AMDGPU_HSA_V5",
            i64::from(ELFABIVERSION_AMDGPU_HSA_V5),
        ),
        ("EF_AMDGPU_MACH", i64::from(EF_AMDGPU_MACH)),
        (
            "EF_AMDGPU_FEATURE_XNACK_V2",
            i64::from(EF_AMDGPU_FEATURE_XNACK_V2),
        ),
        (
            "EF_AMDGPU_FEATURE_TRAP_HANDLER_V2",
            i64::from(EF_AMDGPU_FEATURE_TRAP_HANDLER_V2),
        ),
        (
            "EF_AMDGPU_FEATURE_XNACK_V3",
            i64::from(EF_AMDGPU_FEATURE_XNACK_V3),
        ),
        (
            "EF_AMDGPU_FEATURE_SRAMECC_V3",
            i64::from(EF_AMDGPU_FEATURE_SRAMECC_V3),
        ),
        (
            "EF_AMDGPU_FEATURE_XNACK_V4",
            i64::from(EF_AMDGPU_FEATURE_XNACK_V4),
        ),
        (
            "EF_AMDGPU_FEATURE_XNACK_UNSUPPORTED_V4",
            i64::from(EF_AMDGPU_FEATURE_XNACK_UNSUPPORTED_V4),
        ),
        (
            "EF_AMDGPU_FEATURE_XNACK_ANY_V4",
            i64::from(EF_AMDGPU_FEATURE_XNACK_ANY_V4),
        ),
        (
            "EF_AMDGPU_FEATURE_XNACK_OFF_V4",
            i64::from(EF_AMDGPU_FEATURE_XNACK_OFF_V4),
        ),
        (
            "EF_AMDGPU_FEATURE_XNACK_ON_V4",
            i64::from(EF_AMDGPU_FEATURE_XNACK_ON_V4),
        ),
        (
            "EF_AMDGPU_FEATURE_SRAMECC_V4",
            i64::from(EF_AMDGPU_FEATURE_SRAMECC_V4),
        ),
        (
            "EF_AMDGPU_FEATURE_SRAMECC_UNSUPPORTED_V4",
            i64::from(EF_AMDGPU_FEATURE_SRAMECC_UNSUPPORTED_V4),
        ),
        (
            "EF_AMDGPU_FEATURE_SRAMECC_ANY_V4",
            i64::from(EF_AMDGPU_FEATURE_SRAMECC_ANY_V4),
        ),
        (
            "EF_AMDGPU_FEATURE_SRAMECC_OFF_V4",
            i64::from(EF_AMDGPU_FEATURE_SRAMECC_OFF_V4),
        ),
        (
            "EF_AMDGPU_FEATURE_SRAMECC_ON_V4",
            i64::from(EF_AMDGPU_FEATURE_SRAMECC_ON_V4),
        ),
        (
            "PT_AMDGPU_HSA_LOAD_GLOBAL_PROGRAM",
            i64::from(PT_AMDGPU_HSA_LOAD_GLOBAL_PROGRAM),
        ),
        (
            "PT_AMDGPU_HSA_LOAD_GLOBAL_AGENT",
            i64::from(PT_AMDGPU_HSA_LOAD_GLOBAL_AGENT),
        ),
        (
            "PT_AMDGPU_HSA_LOAD_READONLY_AGENT",
            i64::from(PT_AMDGPU_HSA_LOAD_READONLY_AGENT),
        ),
        (
            "PT_AMDGPU_HSA_LOAD_CODE_AGENT",
            i64::from(PT_AMDGPU_HSA_LOAD_CODE_AGENT),
        ),
        ("STT_AMDGPU_HSA_KERNEL", i64::from(STT_AMDGPU_HSA_KERNEL)),
        (
            "STT_AMDGPU_HSA_INDIRECT_FUNCTION",
            i64::from(STT_AMDGPU_HSA_INDIRECT_FUNCTION),
        ),
        (
            "STT_AMDGPU_HSA_METADATA",
            i64::from(STT_AMDGPU_HSA_METADATA),
        ),
        ("R_AMDGPU_NONE", i64::from(R_AMDGPU_NONE)),
        ("R_AMDGPU_32_LOW", i64::from(R_AMDGPU_ABS32_LO)),
        ("R_AMDGPU_32_HIGH", i64::from(R_AMDGPU_ABS32_HI)),
        ("R_AMDGPU_64", i64::from(R_AMDGPU_ABS64)),
        ("R_AMDGPU_RELATIVE64", i64::from(R_AMDGPU_RELATIVE64)),
        (
            "NT_AMD_HSA_CODE_OBJECT_VERSION",
            i64::from(NT_AMD_HSA_CODE_OBJECT_VERSION),
        ),
        ("NT_AMD_HSA_HSAIL", i64::from(NT_AMD_HSA_HSAIL)),
        ("NT_AMD_HSA_ISA_VERSION", i64::from(NT_AMD_HSA_ISA_VERSION)),
        ("NT_AMD_HSA_PRODUCER", i64::from(NT_AMD_HSA_PRODUCER)),
        (
            "NT_AMD_HSA_PRODUCER_OPTIONS",
            i64::from(NT_AMD_HSA_PRODUCER_OPTIONS),
        ),
        ("NT_AMD_HSA_EXTENSION", i64::from(NT_AMD_HSA_EXTENSION)),
        ("NT_AMD_HSA_ISA_NAME", i64::from(NT_AMD_HSA_ISA_NAME)),
    ];
    for (n, v) in consts {
        c.push(((*n).to_string(), *v));
    }
    // Every MACH value the ROCm header names must be the same processor in our table.
    for p in PROCESSORS
        .iter()
        .filter(|p| p.mach <= 0x42 && p.mach != 0x40 && p.mach != 0x41)
    {
        c.push((
            format!("EF_AMDGPU_MACH_AMDGCN_{}", p.name.to_ascii_uppercase()),
            i64::from(p.mach),
        ));
    }
    check(
        "g++",
        "cpp",
        "#include <elf.h>\n#include <hsa/amd_hsa_elf.h>\nusing namespace ELF;",
        &c,
    );
}

#[test]
fn kernel_descriptor_matches_llvm_amdhsa_header() {
    assert!(
        Path::new("/usr/include/llvm-15/llvm/Support/AMDHSAKernelDescriptor.h").is_file(),
        "LLVM 15 headers missing: run scripts/setup.sh (llvm-15-dev)"
    );
    let mut c: Vec<(String, i64)> = vec![(
        "sizeof(kernel_descriptor_t)".into(),
        KERNEL_DESCRIPTOR_SIZE as i64,
    )];
    for (f, off) in [
        ("group_segment_fixed_size", kd::GROUP_SEGMENT_FIXED_SIZE),
        ("private_segment_fixed_size", kd::PRIVATE_SEGMENT_FIXED_SIZE),
        ("kernarg_size", kd::KERNARG_SIZE),
        ("reserved0", kd::RESERVED0),
        (
            "kernel_code_entry_byte_offset",
            kd::KERNEL_CODE_ENTRY_BYTE_OFFSET,
        ),
        ("reserved1", kd::RESERVED1),
        ("compute_pgm_rsrc3", kd::COMPUTE_PGM_RSRC3),
        ("compute_pgm_rsrc1", kd::COMPUTE_PGM_RSRC1),
        ("compute_pgm_rsrc2", kd::COMPUTE_PGM_RSRC2),
        ("kernel_code_properties", kd::KERNEL_CODE_PROPERTIES),
        // LLVM 15 calls bytes 58..64 reserved2; newer LLVM puts kernarg_preload at 58.
        ("reserved2", kd::KERNARG_PRELOAD),
    ] {
        c.push((format!("offsetof(kernel_descriptor_t, {f})"), off as i64));
    }
    for f in rsrc1::ALL {
        bits(&mut c, &format!("COMPUTE_PGM_RSRC1_{}", f.name), *f);
    }
    for f in rsrc2::ALL.iter().filter(|f| f.name != "RESERVED0") {
        bits(&mut c, &format!("COMPUTE_PGM_RSRC2_{}", f.name), *f);
    }
    for f in [
        rsrc3::GFX90A_ACCUM_OFFSET,
        rsrc3::GFX90A_RESERVED0,
        rsrc3::GFX90A_TG_SPLIT,
        rsrc3::GFX90A_RESERVED1,
    ] {
        bits(&mut c, &format!("COMPUTE_PGM_RSRC3_GFX90A_{}", f.name), f);
    }
    for f in [
        rsrc3::GFX10_SHARED_VGPR_COUNT,
        rsrc3::GFX10_INST_PREF_SIZE,
        rsrc3::GFX10_TRAP_ON_START,
        rsrc3::GFX10_TRAP_ON_END,
        rsrc3::GFX10_RESERVED0,
        rsrc3::GFX10_IMAGE_OP,
    ] {
        bits(
            &mut c,
            &format!("COMPUTE_PGM_RSRC3_GFX10_PLUS_{}", f.name),
            f,
        );
    }
    for f in [
        kcp::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER,
        kcp::ENABLE_SGPR_DISPATCH_PTR,
        kcp::ENABLE_SGPR_QUEUE_PTR,
        kcp::ENABLE_SGPR_KERNARG_SEGMENT_PTR,
        kcp::ENABLE_SGPR_DISPATCH_ID,
        kcp::ENABLE_SGPR_FLAT_SCRATCH_INIT,
        kcp::ENABLE_SGPR_PRIVATE_SEGMENT_SIZE,
        kcp::ENABLE_WAVEFRONT_SIZE32,
        kcp::USES_DYNAMIC_STACK,
        kcp::RESERVED1,
    ] {
        bits(&mut c, &format!("KERNEL_CODE_PROPERTY_{}", f.name), f);
    }
    use hsaemu_codeobject::descriptor::{float_denorm_mode as dm, float_round_mode as rm};
    for (n, v) in [
        ("FLOAT_ROUND_MODE_NEAR_EVEN", rm::NEAR_EVEN),
        ("FLOAT_ROUND_MODE_PLUS_INFINITY", rm::PLUS_INFINITY),
        ("FLOAT_ROUND_MODE_MINUS_INFINITY", rm::MINUS_INFINITY),
        ("FLOAT_ROUND_MODE_ZERO", rm::ZERO),
        ("FLOAT_DENORM_MODE_FLUSH_SRC_DST", dm::FLUSH_SRC_DST),
        ("FLOAT_DENORM_MODE_FLUSH_DST", dm::FLUSH_DST),
        ("FLOAT_DENORM_MODE_FLUSH_SRC", dm::FLUSH_SRC),
        ("FLOAT_DENORM_MODE_FLUSH_NONE", dm::FLUSH_NONE),
    ] {
        c.push((n.to_string(), i64::from(v)));
    }
    check(
        "g++",
        "cpp",
        "#include <cstdint>\n#include <llvm/Support/AMDHSAKernelDescriptor.h>\nusing namespace llvm::amdhsa;",
        &c,
    );
}

#[test]
fn mach_table_matches_llvm_elf_header() {
    // LLVM 15's BinaryFormat/ELF.h names every MACH it knows; each must be ours.
    let header = "/usr/include/llvm-15/llvm/BinaryFormat/ELF.h";
    let text = std::fs::read_to_string(header)
        .unwrap_or_else(|e| panic!("{header}: {e}: run scripts/setup.sh (llvm-15-dev)"));
    let mut seen = 0;
    for line in text.lines() {
        let l = line.trim();
        let Some(rest) = l.strip_prefix("EF_AMDGPU_MACH_AMDGCN_GFX") else {
            continue;
        };
        let Some((name, value)) = rest.split_once('=') else {
            continue;
        };
        let name = format!("gfx{}", name.trim().to_ascii_lowercase());
        let value = value.trim().trim_end_matches(',');
        let Ok(mach) = u32::from_str_radix(value.trim_start_matches("0x"), 16) else {
            continue;
        };
        let info = processor_info(&name)
            .unwrap_or_else(|| panic!("{name} (MACH {mach:#x}) missing from the processor table"));
        assert_eq!(info.mach, mach, "{name}");
        seen += 1;
    }
    assert!(seen >= 38, "only {seen} MACH values found in {header}");
}
