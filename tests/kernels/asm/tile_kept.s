// targets: gfx90a gfx1030
// tile_kept: one wave per work-group (64 lanes on gfx90a, 32 on gfx1030) sums, over 16
// passes of a loop cut by two s_barriers, the dwords of `in` at v9 + 64·j (j < 4), v9 =
// 4·(l mod 16) + 256·(l / 16) + 4·(the passes the lane ran), and stores the sum to
// out[work-item]. The region at the loop's head tests v9 as a 16-lane tile and writes it
// only by adding s23 (4), so its tile mark (`Wave::tile_marks`) may stay across its calls
// under a full EXEC (`tiles.rs`' `shape_kept`); the region between the barriers makes
// EXEC the even lanes for pass 14, whose add then breaks the tile: its entry must clear
// the mark, or pass 15 takes v9 for a tile (crates/emu/tests/jit/tile_marks.rs).
// f32 denormals on: the compiled regions with vector ALU assume the mode compilers give.
	.text
	.globl	tile_kept
	.p2align	8
	.type	tile_kept,@function
tile_kept:
// The generations differ in three instructions only: the vector add, the work-group's first
// byte (a wave's dwords: 64 lanes or 32) and the 64- or 32-bit EXEC of pass 14.
.if .amdgcn.gfx_generation_number == 9
	.macro	vadd d, a, b
	v_add_u32	\d, \a, \b
	.endm
	.macro	exec_pass14
	s_cselect_b64	exec, s[24:25], -1
	.endm
	.macro	wave_bytes
	s_mul_i32	s10, s2, 256
	.endm
.else
	.macro	vadd d, a, b
	v_add_nc_u32	\d, \a, \b
	.endm
	.macro	exec_pass14
	s_cselect_b32	exec_lo, s24, -1
	.endm
	.macro	wave_bytes
	s_mul_i32	s10, s2, 128
	.endm
.endif
	s_load_dwordx4	s[4:7], s[0:1], 0x0
	// v9 = 4·(l mod 16) + 256·(l / 16): a 16-lane tile, not affine over the wave.
	v_and_b32	v1, 15, v0
	v_lshrrev_b32	v2, 4, v0
	v_lshlrev_b32	v1, 2, v1
	v_lshlrev_b32	v2, 8, v2
	vadd	v9, v1, v2
	// v6 = the work-item's byte offset (one wave per work-group).
	v_lshlrev_b32	v6, 2, v0
	wave_bytes
	vadd	v6, s10, v6
	s_mov_b32	s20, 0
	s_mov_b32	s21, 0
	s_mov_b32	s23, 4
	// EXEC in pass 14: the even lanes.
	s_mov_b32	s24, 0x55555555
	s_mov_b32	s25, 0x55555555
	v_mov_b32	v5, 0
	s_waitcnt	lgkmcnt(0)
	// Not lowered: the loop's head starts a block.
	s_getreg_b32	s11, hwreg(HW_REG_MODE)
.Lloop:
	// Region A (after the second barrier: the loop's head to the first): reads v9 as a
	// tile and moves it by s23 (its only write: the mark may stay under a full EXEC).
	vadd	v10, s21, v9
	vadd	v11, 64, v10
	vadd	v12, 0x80, v10
	vadd	v13, 0xc0, v10
	global_load_dword	v3, v10, s[6:7]
	global_load_dword	v4, v11, s[6:7]
	global_load_dword	v14, v12, s[6:7]
	global_load_dword	v15, v13, s[6:7]
	s_waitcnt	vmcnt(0)
	vadd	v5, v5, v3
	vadd	v5, v5, v4
	vadd	v5, v5, v14
	vadd	v5, v5, v15
	vadd	v9, s23, v9
	s_barrier
	// Region B (between the barriers): pass 14 runs region A under EXEC s[24:25].
	s_add_u32	s20, s20, 1
	s_cmp_eq_u32	s20, 14
	exec_pass14
	s_barrier
	s_cmp_lt_u32	s20, 16
	s_cbranch_scc1	.Lloop
	global_store_dword	v6, v5, s[4:5]
	s_endpgm
.Lfunc_end0:
	.size	tile_kept, .Lfunc_end0-tile_kept

	.rodata
	.p2align	6
.if .amdgcn.gfx_generation_number == 9
	.amdhsa_kernel tile_kept
		.amdhsa_kernarg_size 16
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 16
		.amdhsa_next_free_sgpr 32
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_accum_offset 16
	.end_amdhsa_kernel
.else
	.amdhsa_kernel tile_kept
		.amdhsa_kernarg_size 16
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 16
		.amdhsa_next_free_sgpr 32
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_wavefront_size32 1
	.end_amdhsa_kernel
.endif

.if .amdgcn.gfx_generation_number == 9
	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            tile_kept
    .symbol:          tile_kept.kd
    .language:        Assembler
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      32
    .vgpr_count:      16
    .agpr_count:      0
    .max_flat_workgroup_size: 64
    .vendor.note:     hand-written
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: in, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
amdhsa.version:
  - 1
  - 0
.end_amdgpu_metadata
.else
	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            tile_kept
    .symbol:          tile_kept.kd
    .language:        Assembler
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  32
    .sgpr_count:      32
    .vgpr_count:      16
    .agpr_count:      0
    .max_flat_workgroup_size: 32
    .vendor.note:     hand-written
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: in, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
amdhsa.version:
  - 1
  - 0
.end_amdgpu_metadata
.endif
