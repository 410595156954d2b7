// targets: gfx90a gfx1030
// A loop whose body is one long basic block: 32 unrolled xorshift32 steps (~200 vector
// instructions), more than is left of most scheduler turns when one ends there.
__kernel void xorshift_rounds(__global uint *x, uint rounds) {
  uint i = get_global_id(0);
  uint v = x[i];
  for (uint r = 0; r < rounds; r++) {
#pragma unroll
    for (int k = 0; k < 32; k++) {
      v ^= v << 13;
      v ^= v >> 17;
      v ^= v << 5;
    }
  }
  x[i] = v;
}
