// Kernels for the reliability tests (tests/c/reliability.c): a kernel that spins on a flag the
// host never sets (preemption, watchdog), one that rewrites a buffer for many rounds
// (free-while-running), and one whose store faults inside a called function (symbolised PCs).
__kernel void spin(__global atomic_int *flag) {
  while (atomic_load_explicit(flag, memory_order_relaxed, memory_scope_device) == 0) {
  }
}

// Spins with a work-group barrier in the loop (two waves: the barrier really synchronises).
__kernel void spin_barrier(__global atomic_int *flag) {
  while (atomic_load_explicit(flag, memory_order_relaxed, memory_scope_device) == 0) {
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
}

__kernel void write_loop(__global int *p, int n, int rounds) {
  for (int r = 0; r < rounds; r++)
    for (int i = (int)get_global_id(0); i < n; i += (int)get_global_size(0))
      p[i] = r;
}

// Not inlined, and placed before its caller in .text: its PCs lie below the kernel's entry.
__attribute__((noinline)) void callee_store(__global int *p, int i) {
  p[i] = 1;
}

__kernel void call_fault(__global int *p, int i) {
  callee_store(p, i + (int)get_global_id(0));
}
