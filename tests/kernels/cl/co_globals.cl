// Program-scope globals, one initialised with the address of another: the linked code object
// carries an R_AMDGPU_RELATIVE64 dynamic relocation that a loader must apply.
__global int co_table[4] = {1, 2, 3, 4};
__global int *co_ptr = &co_table[2];

__kernel void co_globals(__global int *out) {
  size_t i = get_global_id(0);
  out[i] = *co_ptr + co_table[i & 3];
}
