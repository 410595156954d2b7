// A vector held in VGPRs, indexed by a uniform value: clang-15 emits s_set_gpr_idx_on/off
// (VGPR index mode) on gfx906/gfx90a and v_movrels/v_movreld on gfx803/gfx1030.
typedef float float32v __attribute__((ext_vector_type(32)));

__kernel void register_index(__global float *out, __global const float32v *in, int k) {
  size_t g = get_global_id(0);
  float32v v = in[g];
  v[k & 31] += 1.0f;
  out[g] = v[(k >> 8) & 31] + v[(k >> 16) & 31];
}
