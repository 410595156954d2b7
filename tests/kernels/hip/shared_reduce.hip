// Block reduction with static and dynamic shared memory, warp shuffles and atomics.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <vector>

__global__ void block_sum(const int *in, int *out, int n) {
  extern __shared__ int dyn[];
  __shared__ int warp_sums[16];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int off = warpSize / 2; off > 0; off /= 2)
    v += __shfl_down(v, off);
  if (threadIdx.x % warpSize == 0)
    warp_sums[threadIdx.x / warpSize] = v;
  dyn[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int w = 0; w < blockDim.x / warpSize; w++)
      s += warp_sums[w];
    atomicAdd(out, s);
  }
}

int main() {
  const int n = 10000;
  std::vector<int> h(n);
  long expect = 0;
  for (int i = 0; i < n; i++) {
    h[i] = (i * 7) % 13 - 6;
    expect += h[i];
  }
  int *din, *dout;
  hipMalloc(&din, n * sizeof(int));
  hipMalloc(&dout, sizeof(int));
  hipMemcpy(din, h.data(), n * sizeof(int), hipMemcpyHostToDevice);
  hipMemset(dout, 0, sizeof(int));
  hipLaunchKernelGGL(block_sum, dim3((n + 255) / 256), dim3(256), 256 * sizeof(int), 0, din, dout, n);
  int got = 0;
  hipMemcpy(&got, dout, sizeof(int), hipMemcpyDeviceToHost);
  if (got != expect) {
    std::printf("FAIL: got %d expected %ld\n", got, expect);
    return 1;
  }
  std::printf("PASS shared_reduce sum=%d\n", got);
  return 0;
}
