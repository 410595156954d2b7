// targets: gfx90a gfx1030
// park_pc: a work-group of two waves. Wave 0 waits at an s_barrier followed by a tail of two
// vector ALU operations (which the compiling tier runs before parking the wave,
// jit::after_barrier); wave 1 never arrives: it sets flag[1] (the host stops the dispatch
// once it sees it) and polls flag[0] until the host sets it (never). The offsets (from the kernel's entry) are the ones
// the test expects the stop's report to name. No memory access before the barrier: under
// HSAEMU_JIT=verify regions leave out such loads, and the region from the entry must reach it.
	.text
	.globl	park_pc
	.p2align	8
	.type	park_pc,@function
park_pc:
	v_readfirstlane_b32	s3, v0			// 0x00: the wave's first work-item
	s_cmp_eq_u32	s3, 0				// 0x04
	s_cbranch_scc0	.Lpoll				// 0x08
	s_barrier					// 0x0c
	v_mov_b32	v1, 1.0				// 0x10: where wave 0 waits
	v_add_f32	v1, v1, v1			// 0x14
	s_endpgm					// 0x18
.Lpoll:
	s_load_dwordx2	s[4:5], s[0:1], 0x0		// 0x1c
	v_mov_b32	v1, 1				// 0x24
	v_mov_b32	v2, 0				// 0x28
	s_waitcnt	lgkmcnt(0)			// 0x2c
	global_store_dword	v2, v1, s[4:5] offset:4	// 0x30: flag[1] = 1, for the host
.Lloop:
	s_load_dword	s6, s[4:5], 0x0 glc		// 0x38
	s_waitcnt	lgkmcnt(0)			// 0x40
	s_cmp_eq_u32	s6, 0				// 0x44
	s_cbranch_scc1	.Lloop				// 0x48
	s_endpgm					// 0x4c
.Lfunc_end0:
	.size	park_pc, .Lfunc_end0-park_pc

	.rodata
	.p2align	6
.if .amdgcn.gfx_generation_number == 9
	.amdhsa_kernel park_pc
		.amdhsa_kernarg_size 8
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 3
		.amdhsa_next_free_sgpr 8
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
.else
	.amdhsa_kernel park_pc
		.amdhsa_kernarg_size 8
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
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
  - .name:            park_pc
    .symbol:          park_pc.kd
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
      - { .name: flag, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
amdhsa.version:
  - 1
  - 0
.end_amdgpu_metadata
.else
	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            park_pc
    .symbol:          park_pc.kd
    .language:        Assembler
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  32
    .sgpr_count:      8
    .vgpr_count:      3
    .agpr_count:      0
    .max_flat_workgroup_size: 64
    .vendor.note:     hand-written
    .args:
      - { .name: flag, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
amdhsa.version:
  - 1
  - 0
.end_amdgpu_metadata
.endif
