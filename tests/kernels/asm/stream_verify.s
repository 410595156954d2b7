// targets: gfx1030
// stream_verify: every work-item stores 3 × its global ID + 1 at its global ID (work-groups of
// 256) into the kernel argument segment itself, which the test makes a buffer of the grid's
// size: the kernel loads nothing, so under HSAEMU_JIT=verify (whose regions leave out loads)
// the region from the entry reaches the `s_endpgm` and its pair variant streams the
// work-groups (dispatch.rs' `stream_pairs`). It writes s3 and s[8:9] (two SGPR groups the
// relaunched waves must get back as set up) and reads the work-group ID (s2).
// stream_split is the same but for the wave of global ID 0x583 (work-group 5's wave 4), which
// adds 7 more: that wave's VCC is not zero at the `s_cbranch_vccz` and its pair partner's is,
// so their pair call leaves there and the work-group goes on unstreamed (`stream_pairs`'
// fall-back) after two streamed pairs.
	.text
	.globl	stream_verify
	.p2align	8
	.type	stream_verify,@function
stream_verify:
	s_lshl_b32	s3, s2, 8		// the work-group's first work-item
	s_add_u32	s8, s0, 0		// the output: the kernel argument segment
	s_addc_u32	s9, s1, 0
	v_add_nc_u32	v1, s3, v0		// the global ID
	v_lshlrev_b32	v2, 2, v1
	v_mul_u32_u24	v3, 3, v1
	v_add_nc_u32	v3, 1, v3
	global_store_dword	v2, v3, s[8:9]
	s_endpgm
.Lfunc_end0:
	.size	stream_verify, .Lfunc_end0-stream_verify

	.globl	stream_split
	.p2align	8
	.type	stream_split,@function
stream_split:
	s_lshl_b32	s3, s2, 8
	s_add_u32	s8, s0, 0
	s_addc_u32	s9, s1, 0
	v_add_nc_u32	v1, s3, v0
	v_lshlrev_b32	v2, 2, v1
	v_mul_u32_u24	v3, 3, v1
	v_cmp_eq_u32	vcc_lo, 0x583, v1	// its wave adds 7 more
	s_cbranch_vccz	.Lstore
	v_add_nc_u32	v3, 7, v3
.Lstore:
	v_add_nc_u32	v3, 1, v3
	global_store_dword	v2, v3, s[8:9]
	s_endpgm
.Lfunc_end1:
	.size	stream_split, .Lfunc_end1-stream_split

	.rodata
	.p2align	6
	.amdhsa_kernel stream_verify
		.amdhsa_kernarg_size 8
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 10
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_wavefront_size32 1
	.end_amdhsa_kernel
	.amdhsa_kernel stream_split
		.amdhsa_kernarg_size 8
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 10
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_wavefront_size32 1
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            stream_verify
    .symbol:          stream_verify.kd
    .language:        Assembler
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  32
    .sgpr_count:      10
    .vgpr_count:      4
    .agpr_count:      0
    .max_flat_workgroup_size: 256
    .vendor.note:     hand-written
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: by_value }
  - .name:            stream_split
    .symbol:          stream_split.kd
    .language:        Assembler
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  32
    .sgpr_count:      10
    .vgpr_count:      4
    .agpr_count:      0
    .max_flat_workgroup_size: 256
    .vendor.note:     hand-written
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: by_value }
amdhsa.version:
  - 1
  - 0
.end_amdgpu_metadata
