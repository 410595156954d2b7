// Global atomics for the emulator test suite: 32/64-bit ops, float add via CAS, a
// cross-work-group spin lock.
__kernel void global_atomics(__global const int *in, __global int *c, __global long *c64,
                             __global uint *u) {
  int v = in[get_global_id(0)];
  atomic_add(&c[0], v);
  atomic_sub(&c[1], v);
  atomic_min(&c[2], v);
  atomic_max(&c[3], v);
  atomic_and(&c[4], v | 0x10000);
  atomic_or(&c[5], v & 0xff);
  atomic_xor(&c[6], v);
  atomic_inc(&u[0]);
  atomic_dec(&u[1]);
  atomic_min(&u[2], (uint)v);
  atomic_max(&u[3], (uint)v);
  atom_add(&c64[0], (long)v * 1000000);
  atom_min(&c64[1], (long)v * 3);
  atom_max(&c64[2], (long)v * 3);
  atom_xor(&c64[3], (long)v << 32);
  atom_cmpxchg(&c64[4], 0, (long)get_global_id(0) + 1);
}

__kernel void float_atomic_add(__global const float *in, __global float *sum) {
  float v = in[get_global_id(0)];
  __global volatile int *p = (__global volatile int *)sum;
  int old = *p, assumed;
  do {
    assumed = old;
    old = atomic_cmpxchg(p, assumed, as_int(as_float(assumed) + v));
  } while (old != assumed);
}

// One lane per work-group takes a global spin lock and does a non-atomic read-modify-write.
__kernel void spin_lock(__global int *lock, __global int *counter, __global int *order) {
  if (get_local_id(0) == 0) {
    while (atomic_cmpxchg(lock, 0, 1) != 0)
      ;
    int c = *(volatile __global int *)counter;
    order[c] = (int)get_group_id(0);
    *(volatile __global int *)counter = c + 1;
    atomic_xchg(lock, 0);
  }
}

// Waits until the host (or another agent) sets *flag, then records what it saw.
__kernel void wait_for_host(__global volatile int *flag, __global int *seen) {
  int spins = 0;
  while (atomic_load_explicit((__global volatile atomic_int *)flag, memory_order_acquire,
                              memory_scope_all_svm_devices) == 0) {
    __builtin_amdgcn_s_sleep(1);
    spins++;
  }
  seen[get_global_id(0)] = *flag + (spins > 0 ? 0 : 0);
}
