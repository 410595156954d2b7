// targets: gfx90a
// scale_kd: out[i] = in[i] * factor, i = workgroup_id_x * 64 + workitem_id_x (one wave per
// work-group). Written by hand to pin kernel descriptor bits the compilers leave at their
// defaults: dispatch ptr + kernarg ptr user SGPRs, work-group IDs X and Y, f32 denormals
// flushed, IEEE and DX10 clamp off, 256 bytes of static LDS, kernarg size 24.
	.text
	.globl	scale_kd
	.p2align	8
	.type	scale_kd,@function
scale_kd:
	s_load_dwordx4	s[8:11], s[2:3], 0x0
	s_load_dword	s12, s[2:3], 0x10
	s_lshl_b32	s4, s4, 6
	v_add_u32_e32	v0, s4, v0
	v_lshlrev_b32_e32	v0, 2, v0
	s_waitcnt	lgkmcnt(0)
	global_load_dword	v1, v0, s[8:9]
	s_waitcnt	vmcnt(0)
	v_mul_f32_e32	v1, s12, v1
	global_store_dword	v0, v1, s[10:11]
	s_endpgm
.Lfunc_end0:
	.size	scale_kd, .Lfunc_end0-scale_kd

	.rodata
	.p2align	6
	.amdhsa_kernel scale_kd
		.amdhsa_group_segment_fixed_size 256
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 24
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 2
		.amdhsa_next_free_sgpr 13
		.amdhsa_accum_offset 4
		.amdhsa_float_denorm_mode_32 0
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_ieee_mode 0
		.amdhsa_dx10_clamp 0
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            scale_kd
    .symbol:          scale_kd.kd
    .language:        Assembler
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 256
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      19
    .vgpr_count:      2
    .agpr_count:      0
    .max_flat_workgroup_size: 64
    .vendor.note:     hand-written
    .args:
      - { .name: in, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global, .is_const: true }
      - { .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: factor, .offset: 16, .size: 4, .value_kind: by_value }
amdhsa.version:
  - 1
  - 0
.end_amdgpu_metadata
