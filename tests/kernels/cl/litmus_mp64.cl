// Message passing through one packed 64-bit {flag, value} word between two work-groups
// (docs/litmus.md, "Single-copy atomicity"): the shape of rocPRIM's decoupled look-back.
// In iteration i, work-item l of group 0 (the producer) stores the word
// {flag = 1 (low half), value = VALUE(s) (high half)} to a fresh slot s = i * lanes + l with
// one relaxed 64-bit atomic store (`global_store_dwordx2`); work-item l of group 1 (the
// consumer) polls the slot with relaxed 64-bit atomic loads (`global_load_dwordx2 glc`) until
// the flag is set. A naturally aligned 64-bit access is single-copy atomic, so whenever the
// flag is set the value must be VALUE(s): any other value is a torn read. One slot per
// 64-byte line. Per work-item of the consumer: torn[l] counts torn reads, early[l] counts the
// slots it polled at least once before the store arrived (the accesses overlapped in time).
//
// Rendezvous, stagger, HW_ID check and status codes as in litmus_sb.cl.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

#define VALUE(s) ((uint)(s) * 2654435761u + 0x9e3779b9u)

__kernel void mp64(__global atomic_ulong *words, __global uint *torn, __global uint *early,
                   __global atomic_int *gate, __global atomic_int *status,
                   __global atomic_uint *hw_id, int iterations) {
  const int g = get_group_id(0);
  const int l = get_local_id(0);
  const int lanes = get_local_size(0);
  // HW_ID (hwreg 4): SIMD_ID is bits 5:4, which hsaemu sets from the host worker (CU_ID names
  // the emulated CU, which no longer says which host thread runs the group).
  const uint here = __builtin_amdgcn_s_getreg((31 << 11) | 4) & 0x30;
  if (l == 0)
    atomic_store_explicit(&hw_id[g], here | 0x80000000u, memory_order_relaxed,
                          memory_scope_device);
  uint torn_here = 0, early_here = 0;
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
    const int s = i * lanes + l;
    __global atomic_ulong *slot = &words[8 * s];
    if (g == 0) {
      // A stagger that differs between iterations, so that the store meets every phase of
      // the consumer's polling loop.
      const int stagger = i & 7;
      for (int d = 0; d < stagger; d++)
        atomic_load_explicit(gate, memory_order_relaxed, memory_scope_device);
      atomic_store_explicit(slot, (ulong)VALUE(s) << 32 | 1u, memory_order_relaxed,
                            memory_scope_device);
    } else {
      ulong w = atomic_load_explicit(slot, memory_order_relaxed, memory_scope_device);
      if (w == 0)
        early_here++;
      for (int spins = 0; (uint)w == 0; spins++) {
        if (spins > (1 << 26)) {
          atomic_store_explicit(status, 1, memory_order_relaxed, memory_scope_device);
          return;
        }
        // The value without the flag is torn too (the other order of halves).
        if ((uint)(w >> 32) != 0)
          torn_here++;
        w = atomic_load_explicit(slot, memory_order_relaxed, memory_scope_device);
      }
      if ((uint)w != 1u || (uint)(w >> 32) != VALUE(s))
        torn_here++;
    }
  }
  if (g == 1) {
    torn[l] = torn_here;
    early[l] = early_here;
  }
}
