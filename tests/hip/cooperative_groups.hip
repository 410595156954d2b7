// cooperative_groups: a grid-wide pipeline whose stages are separated by grid.sync() (each
// stage reads what other blocks wrote in the previous one), launched with
// hipLaunchCooperativeKernel; the same pipeline through multi_grid sync and
// hipLaunchCooperativeKernelMultiDevice on one device; and HIP's own error for a cooperative
// grid larger than the device can hold at once.
#include "hip_check.h"
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

// Stage 1: a[i] = i. Stage 2: b[i] = a[i] + a[(i + 1) % n] (a neighbour in another block).
// Stage 3: block sums of b. Stage 4: block 0 adds up the block sums. Stage 5: everyone reads
// the total and writes it out.
__device__ void pipeline(cg::grid_group grid, int *a, int *b, int *partial, int *total, int *out) {
  const int n = grid.size();
  const int i = grid.thread_rank();
  a[i] = i;
  grid.sync();
  b[i] = a[i] + a[(i + blockDim.x + 1) % n];
  grid.sync();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int k = 0; k < (int)blockDim.x; k++)
      s += b[blockIdx.x * blockDim.x + k];
    partial[blockIdx.x] = s;
  }
  grid.sync();
  if (i == 0) {
    int s = 0;
    for (int k = 0; k < (int)gridDim.x; k++)
      s += partial[k];
    *total = s;
  }
  grid.sync();
  out[i] = *total;
}

__global__ void grid_kernel(int *a, int *b, int *partial, int *total, int *out) {
  pipeline(cg::this_grid(), a, b, partial, total, out);
}

__global__ void multi_grid_kernel(int *a, int *b, int *partial, int *total, int *out, int *ranks) {
  cg::multi_grid_group mg = cg::this_multi_grid();
  if (cg::this_grid().thread_rank() == 0)
    ranks[0] = mg.grid_rank() + 100 * mg.num_grids();
  mg.sync();
  pipeline(cg::this_grid(), a, b, partial, total, out);
  mg.sync();
}

static void check_results(const int *d_out, int n) {
  // sum over i of (i + (i + B + 1) % n) = n(n-1)/2 * 2
  long long want = (long long)n * (n - 1);
  int *h = new int[n];
  HIP_CHECK(hipMemcpy(h, d_out, n * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    CHECK(h[i] == want, "out[%d] = %d, want %lld", i, h[i], want);
  delete[] h;
}

int main() {
  int coop = 0, multi = 0, cus = 0;
  HIP_CHECK(hipDeviceGetAttribute(&coop, hipDeviceAttributeCooperativeLaunch, 0));
  HIP_CHECK(hipDeviceGetAttribute(&multi, hipDeviceAttributeCooperativeMultiDeviceLaunch, 0));
  HIP_CHECK(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0));
  std::printf("cooperativeLaunch=%d multiDevice=%d CUs=%d\n", coop, multi, cus);
  CHECK(coop == 1, "device 0 does not support cooperative launches");

  const int threads = 64;
  int per_cu = 0;
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, grid_kernel, threads, 0));
  CHECK(per_cu >= 1, "occupancy %d", per_cu);
  // As many blocks as the device holds at once (far more than host threads): they must all be
  // resident and interleave.
  const int blocks = per_cu * cus;
  const int n = blocks * threads;
  int *a, *b, *partial, *total, *out, *ranks;
  HIP_CHECK(hipMalloc(&a, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&b, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&partial, blocks * sizeof(int)));
  HIP_CHECK(hipMalloc(&total, sizeof(int)));
  HIP_CHECK(hipMalloc(&out, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&ranks, sizeof(int)));

  void *args[] = {&a, &b, &partial, &total, &out};
  HIP_CHECK(hipLaunchCooperativeKernel((const void *)grid_kernel, dim3(blocks), dim3(threads), args, 0, 0));
  HIP_CHECK(hipDeviceSynchronize());
  check_results(out, n);
  std::printf("grid sync: %d blocks x %d threads, 4 grid syncs\n", blocks, threads);

  // A grid that cannot be resident at once: HIP refuses it itself.
  hipError_t e = hipLaunchCooperativeKernel((const void *)grid_kernel, dim3(per_cu * cus + 1), dim3(threads),
                                            args, 0, 0);
  CHECK(e == hipErrorCooperativeLaunchTooLarge, "too large grid: %s", hipGetErrorName(e));
  (void)hipGetLastError();
  std::printf("too large: %s\n", hipGetErrorName(e));

  if (multi) {
    HIP_CHECK(hipMemset(out, 0, n * sizeof(int)));
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));
    void *margs[] = {&a, &b, &partial, &total, &out, &ranks};
    hipLaunchParams p = {};
    p.func = (void *)multi_grid_kernel;
    p.gridDim = dim3(blocks);
    p.blockDim = dim3(threads);
    p.args = margs;
    p.sharedMem = 0;
    p.stream = s;
    HIP_CHECK(hipLaunchCooperativeKernelMultiDevice(&p, 1, 0));
    HIP_CHECK(hipStreamSynchronize(s));
    check_results(out, n);
    int r = -1;
    HIP_CHECK(hipMemcpy(&r, ranks, sizeof r, hipMemcpyDeviceToHost));
    CHECK(r == 100, "multi-grid rank/num_grids %d", r);
    std::printf("multi-grid sync: 1 grid\n");
    HIP_CHECK(hipStreamDestroy(s));
  }
  HIP_CHECK(hipFree(a));
  HIP_CHECK(hipFree(b));
  HIP_CHECK(hipFree(partial));
  HIP_CHECK(hipFree(total));
  HIP_CHECK(hipFree(out));
  HIP_CHECK(hipFree(ranks));
  pass("cooperative_groups");
  return 0;
}
