// targets: gfx1030
// pair_info: every work-item stores its wave's work-group info SGPR (s3: {first_wave[31],
// ordered_append_term[16:6], wave count[5:0]}, LLVM AMDGPUUsage's "Work-Group Info") at its
// global ID, in work-groups of 128 (four wave32s: two pairs). The SGPR differs between a
// work-group's first wave and the others, so the first pair never runs as a pair and the
// second does: a pair of fresh waves enters without comparing its SGPRs only where none of
// those it compares is set per wave (dispatch.rs's `FreshPair`).
	.text
	.globl	pair_info
	.p2align	8
	.type	pair_info,@function
pair_info:
	s_load_dwordx2	s[4:5], s[0:1], 0x0
	s_lshl_b32	s6, s2, 7
	v_add_nc_u32	v1, s6, v0
	v_lshlrev_b32	v1, 2, v1
	v_mov_b32	v2, s3
	s_waitcnt	lgkmcnt(0)
	global_store_dword	v1, v2, s[4:5]
	s_endpgm
.Lfunc_end0:
	.size	pair_info, .Lfunc_end0-pair_info

	.rodata
	.p2align	6
	.amdhsa_kernel pair_info
		.amdhsa_kernarg_size 8
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_info 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 3
		.amdhsa_next_free_sgpr 8
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_wavefront_size32 1
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            pair_info
    .symbol:          pair_info.kd
    .language:        Assembler
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  32
    .sgpr_count:      8
    .vgpr_count:      3
    .agpr_count:      0
    .max_flat_workgroup_size: 128
    .vendor.note:     hand-written
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
amdhsa.version:
  - 1
  - 0
.end_amdgpu_metadata
