// Kernels that fault on purpose (emulator fault reporting tests).
__kernel void oob_store(__global int *p, int idx) {
  size_t i = get_global_id(0);
  if (i == 17)
    p[idx] = 1;
  else
    p[i] = 2;
}

__kernel void lds_oob(__global int *out, int idx) {
  __local int t[64];
  uint l = get_local_id(0);
  t[l] = (int)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = t[idx + (int)l];
}

__kernel void trap_on_negative(__global int *p) {
  size_t i = get_global_id(0);
  if (p[i] < 0)
    __builtin_trap();
  p[i] = 1;
}
