// targets: gfx1030
// lazy_ids: the ID row v0 read after a pair region leaves before anything wrote it. Each
// work-item stores its v0 (its X ID in the work-group; 0x10000 set where the ID is 32 or
// more) at its global ID (work-group ID × the kernel argument `size`, the work-group's
// size), then overwrites v0 with -1. A work-group's waves A (IDs 0–31) and B (32–63)
// disagree at the `s_cbranch_vccz`, so their pair region leaves before it and the
// interpreter goes on with each wave's v0: the dispatcher may have written lanes 0–3 alone of
// a fresh pair's ID rows (`dispatch.rs`' `launch`), so the exit must store them. With a
// work-group of 96, the third wave runs alone (the round fills its rows, `ids_filled`).
// The -1 left in each wave's v0 is what an unwritten lane would show in the next group.
// lazy_ids_y is the same but reads v1 (Y, 0 here) too, as gfx1030's global IDs by
// `v_mad_u64_u32 v[0:1], …, v[0:1]` do: its pair block takes both rows from lane 0.
	.text
	.globl	lazy_ids
	.p2align	8
	.type	lazy_ids,@function
lazy_ids:
	s_load_dwordx2	s[4:5], s[0:1], 0x0
	s_load_dword	s7, s[0:1], 0x8
	s_waitcnt	lgkmcnt(0)
	s_mul_i32	s6, s2, s7
	v_add_nc_u32	v1, s6, v0
	v_lshlrev_b32	v2, 2, v1
	v_cmp_gt_u32	vcc_lo, 32, v0
	s_cbranch_vccz	.Lhigh
	global_store_dword	v2, v0, s[4:5]
	v_mov_b32	v0, -1
	s_endpgm
.Lhigh:
	v_or_b32	v3, 0x10000, v0
	global_store_dword	v2, v3, s[4:5]
	v_mov_b32	v0, -1
	s_endpgm
.Lfunc_end0:
	.size	lazy_ids, .Lfunc_end0-lazy_ids

	.globl	lazy_ids_y
	.p2align	8
	.type	lazy_ids_y,@function
lazy_ids_y:
	s_load_dwordx2	s[4:5], s[0:1], 0x0
	s_load_dword	s7, s[0:1], 0x8
	s_waitcnt	lgkmcnt(0)
	s_mul_i32	s6, s2, s7
	v_add3_u32	v1, s6, v0, v1
	v_lshlrev_b32	v2, 2, v1
	v_cmp_gt_u32	vcc_lo, 32, v0
	s_cbranch_vccz	.Lhigh_y
	global_store_dword	v2, v0, s[4:5]
	v_mov_b32	v0, -1
	s_endpgm
.Lhigh_y:
	v_or_b32	v3, 0x10000, v0
	global_store_dword	v2, v3, s[4:5]
	v_mov_b32	v0, -1
	s_endpgm
.Lfunc_end1:
	.size	lazy_ids_y, .Lfunc_end1-lazy_ids_y

	.rodata
	.p2align	6
	.amdhsa_kernel lazy_ids
		.amdhsa_kernarg_size 12
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 8
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_wavefront_size32 1
	.end_amdhsa_kernel

	.rodata
	.p2align	6
	.amdhsa_kernel lazy_ids_y
		.amdhsa_kernarg_size 12
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 8
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_wavefront_size32 1
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            lazy_ids
    .symbol:          lazy_ids.kd
    .language:        Assembler
    .kernarg_segment_size: 12
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  32
    .sgpr_count:      8
    .vgpr_count:      4
    .agpr_count:      0
    .max_flat_workgroup_size: 128
    .vendor.note:     hand-written
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: size, .offset: 8, .size: 4, .value_kind: by_value }
  - .name:            lazy_ids_y
    .symbol:          lazy_ids_y.kd
    .language:        Assembler
    .kernarg_segment_size: 12
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  32
    .sgpr_count:      8
    .vgpr_count:      4
    .agpr_count:      0
    .max_flat_workgroup_size: 128
    .vendor.note:     hand-written
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: size, .offset: 8, .size: 4, .value_kind: by_value }
amdhsa.version:
  - 1
  - 0
.end_amdgpu_metadata
