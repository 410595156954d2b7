// targets: gfx1030
// pending_sgprs: SGPRs a pair region writes and holds back (`src/jit/lower.rs`'s pending
// SGPRs, stored on every way out) read by the interpreter after the region leaves.
// Work-groups of 64 (a pair of wave32s), work-group ID in s2. Each work-item stores its
// global ID through the base s[8:9] = out + (shift << 32), written in the region (s9 twice);
// with `shift` 0 that is `out`, with another the store faults and the interpreter reports the
// address it computes from s[8:9] (the region leaves before the store: its range check
// fails). Then A (IDs 0–31) and B (32–63) disagree at the `s_cbranch_vccz` (VCC_LO written
// in the region), the pair leaves before it, and the interpreter stores s10 (A) or s11 (B),
// both written in the region, into `out2` through s[12:13], which an SMEM load of the region
// wrote. pending_sgprs64 is the same as one wave64 (single-wave regions, no pair): VCC has
// lanes 0–31 set, so the wave stores s10 in every lane, read in the basic block after the
// branch (stored at the end of the one before).
	.text
	.globl	pending_sgprs
	.p2align	8
	.type	pending_sgprs,@function
pending_sgprs:
	s_load_dwordx2	s[4:5], s[0:1], 0x0
	s_load_dword	s7, s[0:1], 0x8
	s_load_dwordx2	s[12:13], s[0:1], 0x10
	s_waitcnt	lgkmcnt(0)
	s_lshl_b32	s6, s2, 6
	s_mov_b32	s8, s4
	s_mov_b32	s9, s5
	s_add_u32	s9, s9, s7
	v_add_nc_u32	v1, s6, v0
	v_lshlrev_b32	v2, 2, v1
	s_add_u32	s10, s6, 0x55
	s_mul_i32	s11, s10, 3
	global_store_dword	v2, v1, s[8:9]
	v_cmp_gt_u32	vcc_lo, 32, v0
	s_cbranch_vccz	.Lhigh
	v_mov_b32	v3, s10
	global_store_dword	v2, v3, s[12:13]
	s_endpgm
.Lhigh:
	v_mov_b32	v3, s11
	global_store_dword	v2, v3, s[12:13]
	s_endpgm
.Lfunc_end0:
	.size	pending_sgprs, .Lfunc_end0-pending_sgprs

	.globl	pending_sgprs64
	.p2align	8
	.type	pending_sgprs64,@function
pending_sgprs64:
	s_load_dwordx2	s[4:5], s[0:1], 0x0
	s_load_dword	s7, s[0:1], 0x8
	s_load_dwordx2	s[12:13], s[0:1], 0x10
	s_waitcnt	lgkmcnt(0)
	s_lshl_b32	s6, s2, 6
	s_mov_b32	s8, s4
	s_mov_b32	s9, s5
	s_add_u32	s9, s9, s7
	v_add_nc_u32	v1, s6, v0
	v_lshlrev_b32	v2, 2, v1
	s_add_u32	s10, s6, 0x55
	s_mul_i32	s11, s10, 3
	global_store_dword	v2, v1, s[8:9]
	v_cmp_gt_u32	vcc_lo, 32, v0
	s_cbranch_vccz	.Lhigh64
	v_mov_b32	v3, s10
	global_store_dword	v2, v3, s[12:13]
	s_endpgm
.Lhigh64:
	v_mov_b32	v3, s11
	global_store_dword	v2, v3, s[12:13]
	s_endpgm
.Lfunc_end1:
	.size	pending_sgprs64, .Lfunc_end1-pending_sgprs64

	.rodata
	.p2align	6
	.amdhsa_kernel pending_sgprs
		.amdhsa_kernarg_size 24
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 14
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_wavefront_size32 1
	.end_amdhsa_kernel

	.rodata
	.p2align	6
	.amdhsa_kernel pending_sgprs64
		.amdhsa_kernarg_size 24
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 14
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_wavefront_size32 0
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            pending_sgprs
    .symbol:          pending_sgprs.kd
    .language:        Assembler
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  32
    .sgpr_count:      14
    .vgpr_count:      4
    .agpr_count:      0
    .max_flat_workgroup_size: 64
    .vendor.note:     hand-written
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: shift, .offset: 8, .size: 4, .value_kind: by_value }
      - { .name: out2, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global }
  - .name:            pending_sgprs64
    .symbol:          pending_sgprs64.kd
    .language:        Assembler
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      14
    .vgpr_count:      4
    .agpr_count:      0
    .max_flat_workgroup_size: 64
    .vendor.note:     hand-written
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: shift, .offset: 8, .size: 4, .value_kind: by_value }
      - { .name: out2, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global }
amdhsa.version:
  - 1
  - 0
.end_amdgpu_metadata
