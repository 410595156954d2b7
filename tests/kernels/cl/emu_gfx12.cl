// targets: gfx1201
// GFX12 (RDNA4) work-group barrier state (crates/emu/tests/kernels.rs,
// `gfx12_barrier_isfirst`): every wave reads the barrier state, then signals with
// s_barrier_signal_isfirst; exactly one wave of a work-group may see SCC set.
__kernel void barrier_isfirst(__global uint *first, __global uint *state) {
  uint f, st;
  __asm__ volatile("s_get_barrier_state %0, -1\n"
                   "s_wait_kmcnt 0\n"
                   "s_barrier_signal_isfirst -1\n"
                   "s_cselect_b32 %1, 1, 0\n"
                   "s_barrier_wait -1"
                   : "=s"(st), "=s"(f));
  const uint wave = get_global_id(0) / 32;
  if (get_local_id(0) % 32 == 0) {
    first[wave] = f;
    state[wave] = st;
  }
}
