// targets: gfx1030
// GFX10 cross-lane builtins: v_permlane16_b32 / v_permlanex16_b32 (with fi and bound_ctrl,
// also in divergent code), DPP8 and the DPP16 controls row_share / row_xmask.
__kernel void lanes10(__global const int *in, __global int *out, uint sel_lo, uint sel_hi) {
  size_t i = get_global_id(0);
  int v = in[i];
  out[i * 10 + 0] = __builtin_amdgcn_permlane16(0, v, sel_lo, sel_hi, false, false);
  out[i * 10 + 1] = __builtin_amdgcn_permlanex16(0, v, sel_lo, sel_hi, false, false);
  // dpp8:[7,6,5,4,3,2,1,0]: lane k of each group of eight reads lane 7 - k.
  out[i * 10 + 2] = __builtin_amdgcn_mov_dpp8(v, 0x0053977);
  out[i * 10 + 3] = __builtin_amdgcn_update_dpp(0, v, 0x155, 0xf, 0xf, false); // row_share:5
  out[i * 10 + 4] = __builtin_amdgcn_update_dpp(0, v, 0x163, 0xf, 0xf, false); // row_xmask:3
  int a = -1, b = -1, c = -1, d = -1, e = -1;
  if (v & 1) {
    // Only odd values are active: the inactive source lanes decide.
    a = __builtin_amdgcn_permlane16(-2, v, sel_lo, sel_hi, false, false); // keep old
    b = __builtin_amdgcn_permlane16(-2, v, sel_lo, sel_hi, false, true);  // bound_ctrl: 0
    c = __builtin_amdgcn_permlanex16(-2, v, sel_lo, sel_hi, true, false); // fi: read anyway
    d = __builtin_amdgcn_update_dpp(-3, v, 0x111, 0xf, 0xf, false);      // row_shr:1
    e = __builtin_amdgcn_update_dpp(-3, v, 0x111, 0xf, 0xf, true);       // bound_ctrl
  }
  out[i * 10 + 5] = a;
  out[i * 10 + 6] = b;
  out[i * 10 + 7] = c;
  out[i * 10 + 8] = d;
  out[i * 10 + 9] = e;
}
