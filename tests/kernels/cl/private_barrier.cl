// A private table kept across a barrier: every wave of the work-group fills its own before
// any reads it back, so waves given the same private segment offset would read one
// another's entries.
__kernel void private_across_barrier(__global const int *idx, __global int *out) {
  int table[64];
  size_t i = get_global_id(0);
  for (int k = 0; k < 64; k++)
    table[k] = k * k + (int)i;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = table[idx[i] & 63];
}
