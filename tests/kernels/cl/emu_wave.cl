// Wave-level operations through the AMDGPU builtins: ds_bpermute, ds_swizzle, DPP moves,
// readfirstlane, mbcnt and ballot-like reductions.
__kernel void wave_ops(__global const int *in, __global int *out) {
  size_t i = get_global_id(0);
  int v = in[i];
  uint lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
  out[i * 8 + 0] = (int)lane;
  out[i * 8 + 1] = __builtin_amdgcn_ds_bpermute((int)(((lane + 1) & 63) * 4), v);
  out[i * 8 + 2] = __builtin_amdgcn_ds_swizzle(v, 0x041f); // xor lane with 1 (bit-mask mode)
  out[i * 8 + 3] = __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, false); // row_shr:1
  out[i * 8 + 4] = __builtin_amdgcn_readfirstlane(v);
  out[i * 8 + 5] = __builtin_amdgcn_mov_dpp(v, 0x1b, 0xf, 0xf, false); // quad_perm [3,2,1,0]
  out[i * 8 + 6] = __builtin_amdgcn_ds_swizzle(v, 0x8000 | 0x1b); // quad perm mode
  out[i * 8 + 7] = __builtin_amdgcn_update_dpp(-1, v, 0x140, 0xf, 0xf, false); // row_mirror
}

// OpenCL sub-group functions (the device libraries' wave reductions and scans: DPP row
// shifts on every target, row_bcast on GFX9, v_permlanex16 and row_share on GFX10).
__kernel void subgroups(__global const int *in, __global int *out) {
  size_t i = get_global_id(0);
  int v = in[i];
  out[i * 6 + 0] = sub_group_reduce_add(v);
  out[i * 6 + 1] = sub_group_scan_inclusive_add(v);
  out[i * 6 + 2] = sub_group_scan_exclusive_max(v);
  out[i * 6 + 3] = sub_group_broadcast(v, 3);
  out[i * 6 + 4] = sub_group_any(v > 1000);
  out[i * 6 + 5] = (int)get_sub_group_size();
}
