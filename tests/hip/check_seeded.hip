// check_seeded: one seeded bug per kernel, for `hsaemu exec --check` (tests/it/check.rs). Not in
// the manifest: these programs are wrong on purpose. `check_seeded BUG` runs the kernel of that
// name; `check_seeded clean` runs correct twins of the same access patterns.
#include "hip_check.h"
#include <cstring>

constexpr int BLOCK = 128;  // two wave64 waves (four wave32 waves)

// An LDS race between waves: after the first barrier, the upper half of the block overwrites the
// lower half's slots, which the lower half reads, with no __syncthreads() between.
extern "C" __global__ void lds_race(int *out, int sync) {
  __shared__ int s[BLOCK];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  int mine = s[threadIdx.x];
  if (sync)
    __syncthreads();
  if (threadIdx.x >= BLOCK / 2)
    s[threadIdx.x - BLOCK / 2] = -1;
  out[blockIdx.x * BLOCK + threadIdx.x] = mine;
}

// A global race between blocks: every block's first lane increments one counter non-atomically.
extern "C" __global__ void global_race(int *counter, int *per_block) {
  if (threadIdx.x == 0) {
    if (per_block)
      per_block[blockIdx.x] += 1;
    else
      *counter = *counter + 1;
  }
}

// LDS read before anything wrote it: only the first 32 slots are written.
extern "C" __global__ void uninit_lds(int *out, int all) {
  __shared__ int s[BLOCK];
  if (all || threadIdx.x < 32)
    s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[blockIdx.x * BLOCK + threadIdx.x] = s[threadIdx.x];
}

// Private memory read before written: a[] is written below `n`, read at idx[i] (>= n).
extern "C" __global__ void uninit_private(int *out, const int *idx, int n) {
  int a[96];
  for (int k = 0; k < n; k++)
    a[k] = k * 3 + threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[idx[i]];
}

// Device memory read before anything wrote it (`in` is hipMalloc'd, never filled).
extern "C" __global__ void uninit_global(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + 1;
}

// Off by one: `<=` reads and writes element n, one past the end of both n-element arrays.
extern "C" __global__ void past_end(const int *in, int *out, int n, int inclusive) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n || (inclusive && i == n))
    out[i] = in[i] * 2;
}

// Reads a buffer the program already gave back with hipFree.
extern "C" __global__ void use_after_free(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}

static void run(const char *bug, bool clean) {
  const int n = 1000, blocks = 4;
  int *a, *b, *c;
  HIP_CHECK(hipMalloc(&a, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&b, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&c, 4096 * sizeof(int)));
  HIP_CHECK(hipMemset(c, 0, 4096 * sizeof(int)));
  int host[n];
  for (int k = 0; k < n; k++)
    host[k] = k;
  HIP_CHECK(hipMemcpy(b, host, sizeof host, hipMemcpyHostToDevice));
  if (!strcmp(bug, "lds_race")) {
    hipLaunchKernelGGL(lds_race, dim3(blocks), dim3(BLOCK), 0, 0, c, clean ? 1 : 0);
  } else if (!strcmp(bug, "global_race")) {
    hipLaunchKernelGGL(global_race, dim3(blocks), dim3(64), 0, 0, c, clean ? c + 64 : nullptr);
  } else if (!strcmp(bug, "uninit_lds")) {
    hipLaunchKernelGGL(uninit_lds, dim3(blocks), dim3(BLOCK), 0, 0, c, clean ? 1 : 0);
  } else if (!strcmp(bug, "uninit_private")) {
    int idx[256];
    for (int k = 0; k < 256; k++)
      idx[k] = clean ? k % 40 : 40 + k % 50;
    HIP_CHECK(hipMemcpy(a, idx, sizeof idx, hipMemcpyHostToDevice));
    hipLaunchKernelGGL(uninit_private, dim3(2), dim3(BLOCK), 0, 0, c, a, 40);
  } else if (!strcmp(bug, "uninit_global")) {
    if (clean)
      HIP_CHECK(hipMemset(a, 0, n * sizeof(int)));
    hipLaunchKernelGGL(uninit_global, dim3(n / 200), dim3(200), 0, 0, a, c);
  } else if (!strcmp(bug, "past_end")) {
    hipLaunchKernelGGL(past_end, dim3(blocks), dim3(256), 0, 0, b, a, n, clean ? 0 : 1);
  } else if (!strcmp(bug, "use_after_free")) {
    int *gone;
    HIP_CHECK(hipMalloc(&gone, n * sizeof(int)));
    HIP_CHECK(hipMemcpy(gone, host, sizeof host, hipMemcpyHostToDevice));
    if (!clean)
      HIP_CHECK(hipFree(gone));
    hipLaunchKernelGGL(use_after_free, dim3(n / 200), dim3(200), 0, 0, clean ? gone : gone, c);
    LAUNCH_CHECK();
    if (clean)
      HIP_CHECK(hipFree(gone));
  } else {
    std::printf("FAIL: unknown bug %s\n", bug);
    std::exit(2);
  }
  LAUNCH_CHECK();
  HIP_CHECK(hipFree(a));
  HIP_CHECK(hipFree(b));
  HIP_CHECK(hipFree(c));
}

int main(int argc, char **argv) {
  static const char *all[] = {"lds_race",   "global_race", "uninit_lds",    "uninit_private",
                              "uninit_global", "past_end", "use_after_free"};
  if (argc == 2 && !strcmp(argv[1], "clean")) {
    for (const char *bug : all)
      run(bug, true);
  } else if (argc == 2) {
    run(argv[1], false);
  } else {
    std::printf("usage: check_seeded BUG|clean\n");
    return 2;
  }
  std::printf("PASS check_seeded\n");
  return 0;
}
