// targets: gfx90a
// Data that points at a protected global of the same code object (becomes
// R_AMDGPU_RELATIVE64) and at an undefined symbol `external_table` (stays R_AMDGPU_ABS64 against
// it, which the application must define before loading). Named `.S`, not `.s`, so that it is
// not part of the corpus that runtime tests load: loading it fails without that definition.
	.text
	.globl	extern_ref
	.p2align	8
	.type	extern_ref,@function
extern_ref:
	s_endpgm
.Lfunc_end0:
	.size	extern_ref, .Lfunc_end0-extern_ref

	.data
	.p2align	3
	.globl	self_ptr
	.protected	self_ptr
	.type	self_ptr,@object
self_ptr:
	.quad	local_table+8
	.size	self_ptr, 8
	.globl	ext_ptr
	.protected	ext_ptr
	.type	ext_ptr,@object
ext_ptr:
	.quad	external_table+16
	.size	ext_ptr, 8
	.globl	local_table
	.protected	local_table
	.type	local_table,@object
local_table:
	.quad	1, 2, 3
	.size	local_table, 24

	.rodata
	.p2align	6
	.amdhsa_kernel extern_ref
		.amdhsa_next_free_vgpr 1
		.amdhsa_next_free_sgpr 1
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:            extern_ref
    .symbol:          extern_ref.kd
    .language:        Assembler
    .kernarg_segment_size: 0
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      6
    .vgpr_count:      1
    .agpr_count:      0
    .max_flat_workgroup_size: 64
amdhsa.version:
  - 1
  - 0
.end_amdgpu_metadata
