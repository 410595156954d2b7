// targets: gfx90a gfx1030
// endpgm_memo: every wave stores 7 to out[its index in the dispatch] after two s_getreg_b32,
// which the compiling tier does not lower: the region between them stops at the second,
// and a later one at the s_endpgm. The dispatcher remembers that s_endpgm's PC for the rest of the work-group's
// slice (Tier::is_endpgm); the next wave's stop at the s_getreg_b32 must not be taken for it.
// f32 denormals on: the compiled regions with vector ALU assume the mode compilers give.
	.text
	.globl	endpgm_memo
	.p2align	8
	.type	endpgm_memo,@function
endpgm_memo:
	s_load_dwordx2	s[4:5], s[0:1], 0x0
	// The wave's index: work-group ID * 2 + (the wave's first work-item >= the wave size).
	v_readfirstlane_b32	s3, v0
	s_cmp_lg_u32	s3, 0
	s_cselect_b32	s3, 1, 0
	s_lshl_b32	s6, s2, 1
	s_add_u32	s6, s6, s3
	s_lshl_b32	s6, s6, 2
	s_getreg_b32	s7, hwreg(HW_REG_MODE)
	v_mov_b32	v2, 7
	s_getreg_b32	s7, hwreg(HW_REG_MODE)
	v_mov_b32	v1, s6
	s_waitcnt	lgkmcnt(0)
	global_store_dword	v1, v2, s[4:5]
	s_endpgm
.Lfunc_end0:
	.size	endpgm_memo, .Lfunc_end0-endpgm_memo

	.rodata
	.p2align	6
.if .amdgcn.gfx_generation_number == 9
	.amdhsa_kernel endpgm_memo
		.amdhsa_kernarg_size 8
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 3
		.amdhsa_next_free_sgpr 8
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
.else
	.amdhsa_kernel endpgm_memo
		.amdhsa_kernarg_size 8
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 3
		.amdhsa_next_free_sgpr 8
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_wavefront_size32 1
	.end_amdhsa_kernel
.endif

.if .amdgcn.gfx_generation_number == 9
	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            endpgm_memo
    .symbol:          endpgm_memo.kd
    .language:        Assembler
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
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
.else
	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            endpgm_memo
    .symbol:          endpgm_memo.kd
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
.endif
