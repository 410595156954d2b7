// A single-pass inclusive prefix sum with decoupled look-back (Merrill and Garland, the
// algorithm of rocPRIM's device scan, select and partition), the project's own version
// (docs/litmus.md, "Single-copy atomicity"). Each work-group takes the next tile id from a
// counter (so every tile it waits for has started), scans its tile in LDS, and publishes its
// status as one packed 64-bit word {flag (low half), value (high half)} with a relaxed 64-bit
// atomic store: flag 1 = the tile's aggregate, flag 2 = the inclusive prefix up to and
// including the tile. Work-item 0 then walks back over the predecessors' words (relaxed 64-bit
// atomic loads), adding aggregates until it meets an inclusive prefix. Flag and value share
// one word, so no fence orders them: the algorithm is correct exactly when the 64-bit store
// and load are single-copy atomic. A torn read adds a stale value to the prefix.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

#define TILE 64
#define FLAG_AGGREGATE 1u
#define FLAG_PREFIX 2u

static ulong pack(uint flag, uint value) { return (ulong)value << 32 | flag; }

__kernel __attribute__((reqd_work_group_size(TILE, 1, 1))) void
lookback_scan(__global const uint *in, __global uint *out, __global atomic_ulong *status,
              __global atomic_uint *tile_counter, __global atomic_uint *stalls, uint n) {
  __local uint sums[TILE];
  __local uint tile_s, exclusive_s;
  const uint l = get_local_id(0);
  if (l == 0)
    tile_s = atomic_fetch_add_explicit(tile_counter, 1, memory_order_relaxed,
                                       memory_scope_device);
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint tile = tile_s;
  const uint idx = tile * TILE + l;
  sums[l] = idx < n ? in[idx] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < TILE; off *= 2) {
    const uint t = l >= off ? sums[l - off] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    sums[l] += t;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    const uint aggregate = sums[TILE - 1];
    uint prefix = 0;
    if (tile == 0) {
      atomic_store_explicit(&status[0], pack(FLAG_PREFIX, aggregate), memory_order_relaxed,
                            memory_scope_device);
    } else {
      atomic_store_explicit(&status[tile], pack(FLAG_AGGREGATE, aggregate),
                            memory_order_relaxed, memory_scope_device);
      uint stalled = 0;
      for (int p = (int)tile - 1;; p--) {
        ulong w;
        while ((uint)(w = atomic_load_explicit(&status[p], memory_order_relaxed,
                                               memory_scope_device)) == 0)
          stalled = 1;
        prefix += (uint)(w >> 32);
        if ((uint)w == FLAG_PREFIX)
          break;
      }
      atomic_store_explicit(&status[tile], pack(FLAG_PREFIX, prefix + aggregate),
                            memory_order_relaxed, memory_scope_device);
      if (stalled)
        atomic_fetch_add_explicit(stalls, 1, memory_order_relaxed, memory_scope_device);
    }
    exclusive_s = prefix;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (idx < n)
    out[idx] = exclusive_s + sums[l];
}
