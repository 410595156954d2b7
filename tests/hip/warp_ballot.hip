// warp_ballot: __ballot, __any, __all and __popcll inside divergent code, checked per wavefront.
#include "hip_check.h"
#include <vector>

__global__ void votes(const int *in, unsigned long long *ballots, int *flags) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int v = in[tid];
  unsigned long long b = __ballot(v > 0);
  int any_neg = __any(v < 0) != 0; // only zero / non-zero is specified
  int all_small = __all(v < 1000) != 0;
  int count = __popcll(b);
  // A ballot inside a divergent branch sees only the active lanes. The predicate is true for
  // every input (all are >= -2) but must not be a constant: clang 15 folds __ballot(1) to a read
  // of EXEC and hoists it to the kernel entry, out of the branch, so real hardware would see all
  // 64 lanes too.
  unsigned long long odd = 0;
  if (lane & 1)
    odd = __ballot(v > -100);
  if (lane == 0) {
    int w = tid / warpSize;
    ballots[w * 2] = b;
    flags[w * 3] = any_neg;
    flags[w * 3 + 1] = all_small;
    flags[w * 3 + 2] = count;
  }
  if (lane == 1)
    ballots[(tid / warpSize) * 2 + 1] = odd;
}

int main() {
  int ws = 0;
  HIP_CHECK(hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, 0));
  CHECK(ws == 32 || ws == 64, "warp size %d", ws);
  const int block = 256, blocks = 2, n = block * blocks, waves = n / ws;
  std::vector<int> in(n);
  for (int i = 0; i < n; i++)
    in[i] = ((i * 2654435761u) >> 7) % 7 - 2; // mix of negative, zero, positive
  // Wave 1: all positive; wave 2: all zero (no negatives); wave 3 has a large value.
  for (int i = ws; i < 2 * ws; i++)
    in[i] = 5;
  for (int i = 2 * ws; i < 3 * ws; i++)
    in[i] = 0;
  in[3 * ws + 4] = 5000;
  int *din, *dflags;
  unsigned long long *dballots;
  HIP_CHECK(hipMalloc(&din, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dflags, waves * 3 * sizeof(int)));
  HIP_CHECK(hipMalloc(&dballots, waves * 2 * sizeof(unsigned long long)));
  HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(votes, dim3(blocks), dim3(block), 0, 0, din, dballots, dflags);
  HIP_CHECK(hipGetLastError());
  std::vector<unsigned long long> ballots(waves * 2);
  std::vector<int> flags(waves * 3);
  HIP_CHECK(hipMemcpy(ballots.data(), dballots, ballots.size() * sizeof(unsigned long long), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(flags.data(), dflags, flags.size() * sizeof(int), hipMemcpyDeviceToHost));
  for (int w = 0; w < waves; w++) {
    unsigned long long want = 0, odd = 0;
    int any_neg = 0, all_small = 1;
    for (int l = 0; l < ws; l++) {
      int v = in[w * ws + l];
      if (v > 0)
        want |= 1ull << l;
      if (l & 1)
        odd |= 1ull << l;
      any_neg |= v < 0;
      all_small &= v < 1000;
    }
    CHECK(ballots[w * 2] == want, "wave %d ballot %llx, want %llx", w, ballots[w * 2], want);
    CHECK(ballots[w * 2 + 1] == odd, "wave %d divergent ballot %llx, want %llx", w, ballots[w * 2 + 1], odd);
    CHECK(flags[w * 3] == any_neg, "wave %d __any %d, want %d", w, flags[w * 3], any_neg);
    CHECK(flags[w * 3 + 1] == all_small, "wave %d __all %d, want %d", w, flags[w * 3 + 1], all_small);
    CHECK(flags[w * 3 + 2] == __builtin_popcountll(want), "wave %d popcount %d", w, flags[w * 3 + 2]);
  }
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dflags));
  HIP_CHECK(hipFree(dballots));
  pass("warp_ballot");
  return 0;
}
