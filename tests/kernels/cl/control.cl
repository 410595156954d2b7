// Divergent control flow, loops and a private array indexed at run time.
int collatz_steps(uint v) {
  int steps = 0;
  while (v != 1 && steps < 1000) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    steps++;
  }
  return steps;
}

__kernel void collatz(__global const uint *in, __global int *out) {
  size_t i = get_global_id(0);
  out[i] = collatz_steps(in[i] + 1);
}

__kernel void private_array(__global const int *idx, __global int *out) {
  int table[32];
  size_t i = get_global_id(0);
  for (int k = 0; k < 32; k++)
    table[k] = k * k + (int)i;
  out[i] = table[idx[i] & 31];
}

__kernel void grid_3d(__global uint *out) {
  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  size_t w = get_global_size(0), h = get_global_size(1);
  out[(z * h + y) * w + x] = (uint)(x + 100 * y + 10000 * z) ^ (uint)get_group_id(0);
}
