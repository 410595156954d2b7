// vector_add: c = a + b over a grid with a partial last block; the smallest complete HIP program.
#include "hip_check.h"
#include <vector>

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

int main() {
  const int n = 10000; // not a multiple of the block size: the last block is partial
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; i++) {
    a[i] = i * 0.5f;
    b[i] = 1000.0f - i;
  }
  float *da, *db, *dc;
  HIP_CHECK(hipMalloc(&da, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&db, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dc, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(da, a.data(), n * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(db, b.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(vector_add, dim3((n + 255) / 256), dim3(256), 0, 0, da, db, dc, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(c.data(), dc, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    CHECK(c[i] == a[i] + b[i], "c[%d] = %g, want %g", i, c[i], a[i] + b[i]);
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dc));
  pass("vector_add");
  return 0;
}
