// histogram_atomic: a 64-bin histogram built with shared-memory atomics per block, merged
// into global memory with global atomics; a second kernel uses global atomics only.
#include "hip_check.h"
#include <vector>

constexpr int kBins = 64;

__global__ void hist_shared(const unsigned char *data, int n, unsigned int *bins) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i] % kBins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (local[b])
      atomicAdd(&bins[b], local[b]);
}

__global__ void hist_global(const unsigned char *data, int n, unsigned int *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i] % kBins], 1u);
}

int main() {
  const int n = 50000;
  std::vector<unsigned char> data(n);
  unsigned int seed = 12345;
  for (int i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    data[i] = (unsigned char)(seed >> 16);
  }
  // Skew one bin so that many lanes of a wave hit the same address.
  for (int i = 0; i < n; i += 3)
    data[i] = 7;
  std::vector<unsigned int> want(kBins, 0);
  for (int i = 0; i < n; i++)
    want[data[i] % kBins]++;
  unsigned char *ddata;
  unsigned int *dbins;
  HIP_CHECK(hipMalloc(&ddata, n));
  HIP_CHECK(hipMalloc(&dbins, kBins * sizeof(unsigned int)));
  HIP_CHECK(hipMemcpy(ddata, data.data(), n, hipMemcpyHostToDevice));
  std::vector<unsigned int> got(kBins);
  for (int pass_no = 0; pass_no < 2; pass_no++) {
    HIP_CHECK(hipMemset(dbins, 0, kBins * sizeof(unsigned int)));
    if (pass_no == 0)
      hipLaunchKernelGGL(hist_shared, dim3(16), dim3(256), 0, 0, ddata, n, dbins);
    else
      hipLaunchKernelGGL(hist_global, dim3((n + 255) / 256), dim3(256), 0, 0, ddata, n, dbins);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(got.data(), dbins, kBins * sizeof(unsigned int), hipMemcpyDeviceToHost));
    for (int b = 0; b < kBins; b++)
      CHECK(got[b] == want[b], "%s: bin %d = %u, want %u", pass_no ? "global" : "shared", b, got[b], want[b]);
  }
  HIP_CHECK(hipFree(ddata));
  HIP_CHECK(hipFree(dbins));
  pass("histogram_atomic");
  return 0;
}
