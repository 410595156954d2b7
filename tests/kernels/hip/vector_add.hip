// HIP vector add: the smallest complete HIP program; checks its own result.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <vector>

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 16;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; i++) {
    a[i] = i * 0.5f;
    b[i] = 1000.0f - i;
  }
  float *da, *db, *dc;
  if (hipMalloc(&da, n * sizeof(float)) != hipSuccess || hipMalloc(&db, n * sizeof(float)) != hipSuccess ||
      hipMalloc(&dc, n * sizeof(float)) != hipSuccess) {
    std::printf("FAIL: hipMalloc\n");
    return 1;
  }
  hipMemcpy(da, a.data(), n * sizeof(float), hipMemcpyHostToDevice);
  hipMemcpy(db, b.data(), n * sizeof(float), hipMemcpyHostToDevice);
  hipLaunchKernelGGL(vector_add, dim3((n + 255) / 256), dim3(256), 0, 0, da, db, dc, n);
  hipMemcpy(c.data(), dc, n * sizeof(float), hipMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (c[i] != a[i] + b[i])
      bad++;
  hipFree(da);
  hipFree(db);
  hipFree(dc);
  if (bad) {
    std::printf("FAIL: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASS vector_add n=%d\n", n);
  return 0;
}
