// spin_lock: a global mutex shared by all blocks (atomicCAS to take it, atomicExch to release,
// __threadfence around the critical section). One lane per wavefront contends, so the lock
// needs forward progress across wavefronts; the critical section does non-atomic
// read-modify-writes that are only correct under mutual exclusion.
#include "hip_check.h"

struct Shared {
  int lock;
  int counter;        // plain increments under the lock
  long long sum;      // plain adds under the lock
  int max_inside;     // must stay 1: how many holders at once
  int inside;
};

__global__ void contend(Shared *s, int iterations) {
  // One lane per wavefront takes the lock (lanes of one wavefront cannot spin on each other).
  if (threadIdx.x % warpSize != 0)
    return;
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  for (int it = 0; it < iterations; it++) {
    while (atomicCAS(&s->lock, 0, 1) != 0)
      __builtin_amdgcn_s_sleep(1);
    __threadfence();
    int now = atomicAdd(&s->inside, 1) + 1;
    if (now > s->max_inside)
      s->max_inside = now;
    volatile int *c = &s->counter;
    *c = *c + 1;
    volatile long long *sum = &s->sum;
    *sum = *sum + id + it;
    atomicSub(&s->inside, 1);
    __threadfence();
    atomicExch(&s->lock, 0);
  }
}

int main() {
  const int blocks = 8, threads = 128, iterations = 20;
  int ws = 0;
  HIP_CHECK(hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, 0));
  CHECK(ws == 32 || ws == 64, "warp size %d", ws);
  Shared *d;
  HIP_CHECK(hipMalloc(&d, sizeof(Shared)));
  HIP_CHECK(hipMemset(d, 0, sizeof(Shared)));
  hipLaunchKernelGGL(contend, dim3(blocks), dim3(threads), 0, 0, d, iterations);
  LAUNCH_CHECK();
  Shared h;
  HIP_CHECK(hipMemcpy(&h, d, sizeof(Shared), hipMemcpyDeviceToHost));
  int holders = blocks * threads / ws;
  long long want_sum = 0;
  for (int id = 0; id < blocks * threads; id += ws)
    for (int it = 0; it < iterations; it++)
      want_sum += id + it;
  CHECK(h.lock == 0, "lock left held: %d", h.lock);
  CHECK(h.counter == holders * iterations, "counter %d, want %d", h.counter, holders * iterations);
  CHECK(h.sum == want_sum, "sum %lld, want %lld", h.sum, want_sum);
  CHECK(h.max_inside == 1, "%d holders inside the critical section at once", h.max_inside);
  CHECK(h.inside == 0, "inside count %d", h.inside);
  HIP_CHECK(hipFree(d));
  pass("spin_lock");
  return 0;
}
