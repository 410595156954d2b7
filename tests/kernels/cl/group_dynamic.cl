// A `__local` pointer argument is the dynamic group segment: its kernarg holds the LDS offset
// the host chose, after the kernel's static LDS (tests/c/group_dynamic.c). Each work-item
// stores into both, and reads its neighbour's values back after a barrier.
__kernel void group_dynamic(__global const uint *in, __global uint *out, __local uint *dyn,
                            uint n) {
  __local uint fixed[64];
  uint l = get_local_id(0);
  uint g = get_global_id(0);
  fixed[l] = g;
  dyn[l] = in[g] * 3u;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint peer = (l + 1) % get_local_size(0);
  if (g < n)
    out[g] = dyn[peer] + fixed[peer];
}
