// Histogram of bytes with global atomics, staged in LDS atomics.
__kernel void histogram(__global const uchar *data, uint n, __global uint *bins) {
  __local uint local_bins[256];
  for (uint i = get_local_id(0); i < 256; i += get_local_size(0))
    local_bins[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
    atomic_inc(&local_bins[data[i]]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = get_local_id(0); i < 256; i += get_local_size(0))
    atomic_add(&bins[i], local_bins[i]);
}

// Every integer atomic on one global word, with returned old values kept.
__kernel void atomic_ops(__global int *cells, __global int *old) {
  int i = get_global_id(0);
  old[i * 8 + 0] = atomic_add(&cells[0], i);
  old[i * 8 + 1] = atomic_sub(&cells[1], i);
  old[i * 8 + 2] = atomic_xchg(&cells[2], i);
  old[i * 8 + 3] = atomic_min(&cells[3], i);
  old[i * 8 + 4] = atomic_max(&cells[4], i);
  old[i * 8 + 5] = atomic_and(&cells[5], ~(1 << (i & 31)));
  old[i * 8 + 6] = atomic_or(&cells[6], 1 << (i & 31));
  old[i * 8 + 7] = atomic_cmpxchg(&cells[7], i - 1, i);
}
