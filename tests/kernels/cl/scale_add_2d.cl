// An elementwise kernel on a 2-D grid in 16x16 work-groups: each lane's address is
// base + 4 * (x + y * w), affine per row of 16 lanes (the tier's tile facts, not its
// per-wave ones), and each loaded row is read by an ALU instruction right after its load
// (the tier keeps such rows as values).
__kernel void scale_add_2d(__global const float *a, __global const float *b,
                           __global float *c, uint w) {
  size_t x = get_global_id(0), y = get_global_id(1);
  size_t i = y * w + x;
  c[i] = a[i] * 2.0f + b[i];
}

// The same with the usual bounds test: a compare on the tile rows (x, y) before the
// accesses.
__kernel void scale_add_2d_guarded(__global const float *a, __global const float *b,
                                   __global float *c, uint w, uint h) {
  size_t x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h)
    return;
  size_t i = y * w + x;
  c[i] = a[i] * 2.0f + b[i];
}
