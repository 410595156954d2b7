// targets: gfx90a gfx1030
// sgpr_start: each work-group's waves store s20, s63, s100 and VCC_LO before writing anything
// to them (out[4 * wave + 0..4], wave = the wave's index in the dispatch), then set the
// first three to all ones and VCC by a carry (which names it only in its encoding), and
// store them again into `seen` (so they are live after their writes: a compiled region
// stores them into the wave). A wave starts with every SGPR past its user and system ones
// zero (Wave::start), whatever the wave that ran before it in the same host slot left there.
	.text
	.globl	sgpr_start
	.p2align	8
	.type	sgpr_start,@function
sgpr_start:
	s_load_dwordx2	s[4:5], s[0:1], 0x0
	s_load_dwordx2	s[8:9], s[0:1], 0x8
	// The wave's index: work-group ID * 2 + (the wave's first work-item >= the wave size).
	v_readfirstlane_b32	s3, v0
	s_cmp_lg_u32	s3, 0
	s_cselect_b32	s3, 1, 0
	s_lshl_b32	s6, s2, 1
	s_add_u32	s6, s6, s3
	s_lshl_b32	s6, s6, 4
	v_mov_b32	v1, s6
	v_mov_b32	v2, s20
	v_mov_b32	v3, s63
	v_mov_b32	v4, s100
	v_mov_b32	v5, vcc_lo
	s_waitcnt	lgkmcnt(0)
	global_store_dwordx4	v1, v[2:5], s[4:5]
	s_mov_b32	s20, -1
	s_mov_b32	s63, -1
	s_mov_b32	s100, -1
	// Lanes 1 and up carry.
.if .amdgcn.gfx_generation_number == 9
	v_add_co_u32_e32	v5, vcc, -1, v0
.else
	v_add_co_ci_u32_e32	v5, vcc_lo, -1, v0, vcc_lo
.endif
	v_mov_b32	v2, s20
	v_mov_b32	v3, s63
	v_mov_b32	v4, s100
	v_mov_b32	v5, vcc_lo
	global_store_dwordx4	v1, v[2:5], s[8:9]
	s_endpgm
.Lfunc_end0:
	.size	sgpr_start, .Lfunc_end0-sgpr_start

	.rodata
	.p2align	6
.if .amdgcn.gfx_generation_number == 9
	.amdhsa_kernel sgpr_start
		.amdhsa_kernarg_size 16
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 6
		.amdhsa_next_free_sgpr 101
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_accum_offset 8
	.end_amdhsa_kernel
.else
	.amdhsa_kernel sgpr_start
		.amdhsa_kernarg_size 16
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 6
		.amdhsa_next_free_sgpr 101
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_wavefront_size32 1
	.end_amdhsa_kernel
.endif

.if .amdgcn.gfx_generation_number == 9
	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            sgpr_start
    .symbol:          sgpr_start.kd
    .language:        Assembler
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      101
    .vgpr_count:      6
    .agpr_count:      0
    .max_flat_workgroup_size: 128
    .vendor.note:     hand-written
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: seen, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
amdhsa.version:
  - 1
  - 0
.end_amdgpu_metadata
.else
	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            sgpr_start
    .symbol:          sgpr_start.kd
    .language:        Assembler
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  32
    .sgpr_count:      101
    .vgpr_count:      6
    .agpr_count:      0
    .max_flat_workgroup_size: 128
    .vendor.note:     hand-written
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: seen, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
amdhsa.version:
  - 1
  - 0
.end_amdgpu_metadata
.endif
