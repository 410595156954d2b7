// Work-group sum reduction through LDS with barriers; one partial sum per group.
__kernel void reduce_sum(__global const int *in, __global int *partial,
                         __local int *scratch, uint n) {
  size_t gid = get_global_id(0);
  size_t lid = get_local_id(0);
  scratch[lid] = gid < n ? in[gid] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s)
      scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    partial[get_group_id(0)] = scratch[0];
}

// Same reduction with a statically sized LDS array and 64-bit accumulation.
__kernel void reduce_sum_u64(__global const ulong *in, __global ulong *out, uint n) {
  __local ulong tile[256];
  size_t lid = get_local_id(0);
  size_t gid = get_global_id(0);
  tile[lid] = gid < n ? in[gid] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = 128; s > 0; s >>= 1) {
    if (lid < s)
      tile[lid] += tile[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    atom_add(out, tile[0]);
}
