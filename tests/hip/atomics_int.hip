// atomics_int: every integer atomic on global and shared memory, for int, unsigned int,
// unsigned long long (and long long via CAS): atomicAdd, atomicSub, atomicExch, atomicMin,
// atomicMax, atomicInc, atomicDec, atomicAnd, atomicOr, atomicXor, atomicCAS; order-independent
// final values are compared with the CPU, and atomicExch/atomicCAS return values are checked
// to form a permutation.
#include "hip_check.h"
#include <vector>

struct Results {
  int add, sub, min_, max_, and_, or_, xor_;
  unsigned int uadd, umin, umax, inc, dec;
  unsigned long long add64, min64, max64, and64, or64, xor64;
  long long cas_add64; // signed 64-bit add via a CAS loop
  int shared_add;      // sum of per-block shared-memory results
  int exch;
};

__global__ void all_atomics(Results *r, const int *vals, int n, int *exch_seen, int *cas_slots) {
  __shared__ int s_add;
  __shared__ unsigned int s_max;
  if (threadIdx.x == 0) {
    s_add = 0;
    s_max = 0;
  }
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = vals[i];
    atomicAdd(&r->add, v);
    atomicSub(&r->sub, v);
    atomicMin(&r->min_, v);
    atomicMax(&r->max_, v);
    atomicAnd(&r->and_, ~(1 << (i % 31)));
    atomicOr(&r->or_, 1 << (i % 29));
    atomicXor(&r->xor_, v);
    atomicAdd(&r->uadd, (unsigned)v);
    atomicMin(&r->umin, (unsigned)v);
    atomicMax(&r->umax, (unsigned)v);
    atomicInc(&r->inc, 100u);  // wraps to 0 after reaching 100
    atomicDec(&r->dec, 1000u); // wraps to 1000 at 0
    unsigned long long w = (unsigned long long)(unsigned)v << 20 | (unsigned)i;
    atomicAdd(&r->add64, w);
    atomicMin(&r->min64, w);
    atomicMax(&r->max64, w);
    atomicAnd(&r->and64, ~(1ull << (i % 63)));
    atomicOr(&r->or64, 1ull << (i % 61));
    atomicXor(&r->xor64, w);
    // Signed 64-bit add through a compare-and-swap loop.
    unsigned long long *target = (unsigned long long *)&r->cas_add64;
    unsigned long long old = *target, assumed;
    do {
      assumed = old;
      old = atomicCAS(target, assumed, (unsigned long long)((long long)assumed + (long long)v * 1000003));
    } while (old != assumed);
    // Exchange: every thread swaps its id in; each old value is seen exactly once.
    exch_seen[i] = atomicExch(&r->exch, i);
    // CAS claim: each thread claims a free slot by CAS from -1, probing linearly from a hash
    // (short probes, so the loop stays cheap; collisions still happen and must be resolved).
    for (int k = 0, s = (i * 7) % n; k < n; k++, s = (s + 1) % n)
      if (atomicCAS(&cas_slots[s], -1, i) == -1)
        break;
    atomicAdd(&s_add, 1);
    atomicMax(&s_max, (unsigned)i);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&r->shared_add, s_add);
    // s_max must be the block's last valid thread index.
    int last = min((int)(blockIdx.x + 1) * (int)blockDim.x, n) - 1;
    if (s_max != (unsigned)last)
      atomicAdd(&r->shared_add, 1 << 20); // poison the check
  }
}

int main() {
  const int n = 3000;
  std::vector<int> vals(n);
  for (int i = 0; i < n; i++)
    vals[i] = (int)((i * 2654435761u) % 20001) - 10000;
  Results init = {};
  init.min_ = 0x7fffffff;
  init.max_ = (int)0x80000000;
  init.and_ = -1;
  init.umin = 0xffffffffu;
  init.dec = 0;
  init.min64 = ~0ull;
  init.and64 = ~0ull;
  init.exch = -1;
  Results *dr;
  int *dvals, *dexch, *dslots;
  HIP_CHECK(hipMalloc(&dr, sizeof(Results)));
  HIP_CHECK(hipMalloc(&dvals, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dexch, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dslots, n * sizeof(int)));
  HIP_CHECK(hipMemcpy(dr, &init, sizeof(Results), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dvals, vals.data(), n * sizeof(int), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset(dslots, 0xff, n * sizeof(int)));
  hipLaunchKernelGGL(all_atomics, dim3((n + 255) / 256), dim3(256), 0, 0, dr, dvals, n, dexch, dslots);
  HIP_CHECK(hipGetLastError());
  Results r;
  std::vector<int> exch(n), slots(n);
  HIP_CHECK(hipMemcpy(&r, dr, sizeof(Results), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(exch.data(), dexch, n * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(slots.data(), dslots, n * sizeof(int), hipMemcpyDeviceToHost));

  Results w = init;
  for (int i = 0; i < n; i++) {
    int v = vals[i];
    w.add += v;
    w.sub -= v;
    w.min_ = v < w.min_ ? v : w.min_;
    w.max_ = v > w.max_ ? v : w.max_;
    w.and_ &= ~(1 << (i % 31));
    w.or_ |= 1 << (i % 29);
    w.xor_ ^= v;
    w.uadd += (unsigned)v;
    w.umin = (unsigned)v < w.umin ? (unsigned)v : w.umin;
    w.umax = (unsigned)v > w.umax ? (unsigned)v : w.umax;
    w.inc = w.inc >= 100u ? 0u : w.inc + 1;
    w.dec = (w.dec == 0 || w.dec > 1000u) ? 1000u : w.dec - 1;
    unsigned long long x = (unsigned long long)(unsigned)v << 20 | (unsigned)i;
    w.add64 += x;
    w.min64 = x < w.min64 ? x : w.min64;
    w.max64 = x > w.max64 ? x : w.max64;
    w.and64 &= ~(1ull << (i % 63));
    w.or64 |= 1ull << (i % 61);
    w.xor64 ^= x;
    w.cas_add64 += (long long)v * 1000003;
  }
  CHECK(r.add == w.add, "atomicAdd %d, want %d", r.add, w.add);
  CHECK(r.sub == w.sub, "atomicSub %d, want %d", r.sub, w.sub);
  CHECK(r.min_ == w.min_, "atomicMin %d, want %d", r.min_, w.min_);
  CHECK(r.max_ == w.max_, "atomicMax %d, want %d", r.max_, w.max_);
  CHECK(r.and_ == w.and_, "atomicAnd %#x, want %#x", r.and_, w.and_);
  CHECK(r.or_ == w.or_, "atomicOr %#x, want %#x", r.or_, w.or_);
  CHECK(r.xor_ == w.xor_, "atomicXor %#x, want %#x", r.xor_, w.xor_);
  CHECK(r.uadd == w.uadd, "unsigned atomicAdd %u, want %u", r.uadd, w.uadd);
  CHECK(r.umin == w.umin, "unsigned atomicMin %u, want %u", r.umin, w.umin);
  CHECK(r.umax == w.umax, "unsigned atomicMax %u, want %u", r.umax, w.umax);
  // Inc/dec wrap-around makes the final value order-independent only as a count modulo the period.
  CHECK(r.inc == (unsigned)(n % 101), "atomicInc %u, want %u", r.inc, (unsigned)(n % 101));
  CHECK(r.dec == w.dec, "atomicDec %u, want %u", r.dec, w.dec);
  CHECK(r.add64 == w.add64, "64-bit atomicAdd %llx, want %llx", r.add64, w.add64);
  CHECK(r.min64 == w.min64, "64-bit atomicMin %llx, want %llx", r.min64, w.min64);
  CHECK(r.max64 == w.max64, "64-bit atomicMax %llx, want %llx", r.max64, w.max64);
  CHECK(r.and64 == w.and64, "64-bit atomicAnd %llx, want %llx", r.and64, w.and64);
  CHECK(r.or64 == w.or64, "64-bit atomicOr %llx, want %llx", r.or64, w.or64);
  CHECK(r.xor64 == w.xor64, "64-bit atomicXor %llx, want %llx", r.xor64, w.xor64);
  CHECK(r.cas_add64 == w.cas_add64, "64-bit CAS-loop add %lld, want %lld", r.cas_add64, w.cas_add64);
  CHECK(r.shared_add == n, "shared-memory atomics %d, want %d", r.shared_add, n);
  // atomicExch: the values seen plus the final value are {-1, 0, ..., n-1}, each once.
  std::vector<int> seen(n + 1, 0);
  for (int i = 0; i < n; i++) {
    CHECK(exch[i] >= -1 && exch[i] < n, "atomicExch returned %d", exch[i]);
    seen[exch[i] + 1]++;
  }
  CHECK(r.exch >= 0 && r.exch < n, "final exchanged value %d", r.exch);
  seen[r.exch + 1]++;
  for (int k = 0; k <= n; k++)
    CHECK(seen[k] == 1, "atomicExch value %d seen %d times", k - 1, seen[k]);
  // atomicCAS claims: every slot is taken by exactly one distinct thread.
  std::vector<int> owner(n, 0);
  for (int s = 0; s < n; s++) {
    CHECK(slots[s] >= 0 && slots[s] < n, "slot %d holds %d", s, slots[s]);
    owner[slots[s]]++;
  }
  for (int i = 0; i < n; i++)
    CHECK(owner[i] == 1, "thread %d claimed %d slots", i, owner[i]);
  HIP_CHECK(hipFree(dr));
  HIP_CHECK(hipFree(dvals));
  HIP_CHECK(hipFree(dexch));
  HIP_CHECK(hipFree(dslots));
  pass("atomics_int");
  return 0;
}
