// Kernels for the runtime's tests: an empty kernel (dispatch round trip), a store through a
// wild pointer (memory fault), a trap (exception), and a kernel that bumps a counter per
// work-item (dispatch stress).
__kernel void empty(void) {}

__kernel void fault_store(__global int *p) {
  p[get_global_id(0)] = 42;
}

__kernel void trap_kernel(__global int *p) {
  if (get_global_id(0) == 0)
    __builtin_trap();
  p[get_global_id(0)] = 1;
}

__kernel void count(__global atomic_int *counter) {
  atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, memory_scope_device);
}

// A program-scope variable (an executable symbol of kind VARIABLE; the visibility attribute
// keeps it in .dynsym, as HIP's __device__ variables are) that `bump_global` updates.
__attribute__((visibility("protected"))) __global int runtime_global = 5;

__kernel void bump_global(void) {
  if (get_global_id(0) == 0)
    runtime_global += 10;
}
