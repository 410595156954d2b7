// device_malloc: malloc and free called from device code (HIP's device heap, hidden_heap_v1,
// growing through the hostcall SERVICE_DEVMEM path): every thread allocates a small block, fills
// it, a second kernel reads the blocks back through a pointer table, and a third frees them.
#include "hip_check.h"
#include <vector>

__global__ void alloc_fill(int **table, int n, int words) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int *p = (int *)malloc(words * sizeof(int));
    if (p)
      for (int k = 0; k < words; k++)
        p[k] = i * 1000 + k;
    table[i] = p;
  }
}

__global__ void sum_blocks(int *const *table, long long *sums, int n, int words) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    // Read another thread's block: device heap memory is global memory.
    const int *p = table[(i + 17) % n];
    long long s = -1;
    if (p) {
      s = 0;
      for (int k = 0; k < words; k++)
        s += p[k];
    }
    sums[i] = s;
  }
}

__global__ void free_blocks(int **table, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && table[i])
    free(table[i]);
}

int main() {
  const int n = 512, words = 16;
  int **table;
  long long *dsums;
  HIP_CHECK(hipMalloc(&table, n * sizeof(int *)));
  HIP_CHECK(hipMalloc(&dsums, n * sizeof(long long)));
  hipLaunchKernelGGL(alloc_fill, dim3(n / 128), dim3(128), 0, 0, table, n, words);
  LAUNCH_CHECK();
  hipLaunchKernelGGL(sum_blocks, dim3(n / 128), dim3(128), 0, 0, table, dsums, n, words);
  LAUNCH_CHECK();
  std::vector<long long> sums(n);
  std::vector<int *> ptrs(n);
  HIP_CHECK(hipMemcpy(sums.data(), dsums, n * sizeof(long long), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(ptrs.data(), table, n * sizeof(int *), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    CHECK(ptrs[i] != nullptr, "device malloc returned NULL for thread %d", i);
    int owner = (i + 17) % n;
    long long want = (long long)owner * 1000 * words + words * (words - 1) / 2;
    CHECK(sums[i] == want, "thread %d read sum %lld, want %lld", i, sums[i], want);
  }
  for (int i = 1; i < n; i++)
    CHECK(ptrs[i] != ptrs[0], "two threads got the same block %p", (void *)ptrs[i]);
  hipLaunchKernelGGL(free_blocks, dim3(n / 128), dim3(128), 0, 0, table, n);
  LAUNCH_CHECK();
  HIP_CHECK(hipFree(table));
  HIP_CHECK(hipFree(dsums));
  pass("device_malloc");
  return 0;
}
