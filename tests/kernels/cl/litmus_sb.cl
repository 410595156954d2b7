// Store buffering (SB) between two work-groups (amdgpu-execution.md §10 item 2, §11 stage 4).
// In iteration i, work-item l of group 0 stores 1 to x[16 s] and then loads y[16 s]; work-item
// l of group 1 stores 1 to y[16 s] and then loads x[16 s], both seq_cst at device scope, on a
// fresh slot s = i * lanes + l (one slot per 64-byte line). Sequential consistency forbids
// both loads returning 0. r[2 s + group] receives the loaded values.
//
// Each iteration starts with a rendezvous (every work-item adds 1 to `gate` and waits for the
// other group's), then a short stagger that differs between iterations, so that the two
// groups' stores and loads overlap with every small offset. Each group records its HW_ID's
// SIMD_ID (the emulator's host worker) in hw_id[group] and both give up at once (status 2)
// when they run on the same host thread: interleaved there they cannot exercise the memory
// ordering between threads.
// A rendezvous that waits too long gives up with status 1.
__kernel void sb(__global atomic_int *x, __global atomic_int *y, __global int *r,
                 __global atomic_int *gate, __global atomic_int *status,
                 __global atomic_uint *hw_id, int iterations) {
  const int g = get_group_id(0);
  const int l = get_local_id(0);
  const int lanes = get_local_size(0);
  __global atomic_int *mine = g == 0 ? x : y;
  __global atomic_int *other = g == 0 ? y : x;
  // Words 8..15 of each line are not part of the test. Writing one pulls the line the other
  // group stores to next into this group's core: its store then waits for the line while
  // this group's load of it hits, which is when a missing StoreLoad fence shows.
  __global int *touch = (__global int *)other;
  touch[16 * l + 8] = 1;
  // HW_ID (hwreg 4): SIMD_ID is bits 5:4, which hsaemu sets from the host worker.
  const uint here = __builtin_amdgcn_s_getreg((31 << 11) | 4) & 0x30;
  if (l == 0)
    atomic_store_explicit(&hw_id[g], here | 0x80000000u, memory_order_relaxed,
                          memory_scope_device);
  for (int i = 0; i < iterations; i++) {
    atomic_fetch_add_explicit(gate, 1, memory_order_acq_rel, memory_scope_device);
    const int target = 2 * lanes * (i + 1);
    for (int spins = 0;
         atomic_load_explicit(gate, memory_order_acquire, memory_scope_device) < target;
         spins++) {
      if (spins > (1 << 26)) {
        atomic_store_explicit(status, 1, memory_order_relaxed, memory_scope_device);
        return;
      }
    }
    if (i == 0) {
      uint cu0 = atomic_load_explicit(&hw_id[0], memory_order_relaxed, memory_scope_device);
      uint cu1 = atomic_load_explicit(&hw_id[1], memory_order_relaxed, memory_scope_device);
      if (cu0 == cu1) {
        atomic_store_explicit(status, 2, memory_order_relaxed, memory_scope_device);
        return;
      }
    }
    const int stagger = (i >> (3 * g)) & 7;
    for (int d = 0; d < stagger; d++)
      atomic_load_explicit(gate, memory_order_relaxed, memory_scope_device);
    const int s = i * lanes + l;
    atomic_store_explicit(&mine[16 * s], 1, memory_order_seq_cst, memory_scope_device);
    r[2 * s + g] =
        atomic_load_explicit(&other[16 * s], memory_order_seq_cst, memory_scope_device);
    touch[16 * (s + lanes) + 8] = 1;
  }
}
