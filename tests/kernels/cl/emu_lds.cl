// LDS (local memory) with barriers and local atomics for the emulator test suite.
#define T 16
__kernel void transpose(__global const float *in, __global float *out, uint w, uint h) {
  __local float tile[T][T + 1];
  uint x = get_global_id(0), y = get_global_id(1);
  uint lx = get_local_id(0), ly = get_local_id(1);
  if (x < w && y < h)
    tile[ly][lx] = in[y * w + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint ox = get_group_id(1) * T + lx, oy = get_group_id(0) * T + ly;
  if (ox < h && oy < w)
    out[oy * h + ox] = tile[lx][ly];
}

__kernel void scan_inclusive(__global const int *in, __global int *out) {
  __local int buf[2][256];
  uint l = get_local_id(0), n = get_local_size(0);
  int src = 0;
  buf[0][l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < n; off <<= 1) {
    int v = buf[src][l];
    if (l >= off)
      v += buf[src][l - off];
    buf[1 - src][l] = v;
    src = 1 - src;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = buf[src][l];
}

__kernel void local_atomics(__global const int *in, __global int *out) {
  __local int c[12];
  __local long c64[2];
  uint l = get_local_id(0);
  if (l < 12)
    c[l] = (l == 4 || l == 7) ? -1 : (l == 3 ? 0x7fffffff : 0);
  if (l < 2)
    c64[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int v = in[get_global_id(0)];
  atomic_add(&c[0], v);
  atomic_sub(&c[1], v);
  atomic_xchg(&c[2], 5);
  atomic_min(&c[3], v);
  atomic_max(&c[4], v);
  atomic_and(&c[5], v);
  atomic_or(&c[6], v);
  atomic_xor(&c[7], v);
  atomic_inc(&c[8]);
  atomic_dec(&c[9]);
  atomic_cmpxchg(&c[10], (int)l - 1, (int)l);
  atom_add(&c64[0], (long)v << 20);
  atom_max(&c64[1], (long)v * v);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 12)
    out[get_group_id(0) * 16 + l] = c[l];
  if (l < 2)
    ((__global long *)(out + get_group_id(0) * 16 + 12))[l] = c64[l];
}
