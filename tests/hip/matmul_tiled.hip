// matmul_tiled: C = A x B with 16x16 shared-memory tiles (non-multiple-of-tile sizes, so edge
// tiles are partial), compared with a CPU product in double precision.
#include "hip_check.h"
#include <vector>

constexpr int kTile = 16;

__global__ void matmul(const float *a, const float *b, float *c, int m, int n, int k) {
  __shared__ float ta[kTile][kTile];
  __shared__ float tb[kTile][kTile + 1]; // padded: exercises non-power-of-two LDS strides
  int row = blockIdx.y * kTile + threadIdx.y;
  int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (k + kTile - 1) / kTile; t++) {
    int ac = t * kTile + threadIdx.x;
    int br = t * kTile + threadIdx.y;
    ta[threadIdx.y][threadIdx.x] = (row < m && ac < k) ? a[row * k + ac] : 0.0f;
    tb[threadIdx.y][threadIdx.x] = (br < k && col < n) ? b[br * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < kTile; i++)
      acc += ta[threadIdx.y][i] * tb[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n)
    c[row * n + col] = acc;
}

int main() {
  const int m = 70, n = 45, k = 83;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (int i = 0; i < m * k; i++)
    a[i] = (float)((i * 37) % 19 - 9) / 8.0f;
  for (int i = 0; i < k * n; i++)
    b[i] = (float)((i * 53) % 23 - 11) / 4.0f;
  float *da, *db, *dc;
  HIP_CHECK(hipMalloc(&da, a.size() * sizeof(float)));
  HIP_CHECK(hipMalloc(&db, b.size() * sizeof(float)));
  HIP_CHECK(hipMalloc(&dc, c.size() * sizeof(float)));
  HIP_CHECK(hipMemcpy(da, a.data(), a.size() * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(db, b.data(), b.size() * sizeof(float), hipMemcpyHostToDevice));
  dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  hipLaunchKernelGGL(matmul, grid, dim3(kTile, kTile), 0, 0, da, db, dc, m, n, k);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(c.data(), dc, c.size() * sizeof(float), hipMemcpyDeviceToHost));
  for (int r = 0; r < m; r++)
    for (int col = 0; col < n; col++) {
      double want = 0.0;
      for (int i = 0; i < k; i++)
        want += (double)a[r * k + i] * b[i * n + col];
      CHECK(close_enough(c[r * n + col], want, 1e-5, 1e-4), "c[%d][%d] = %g, want %g", r, col, c[r * n + col], want);
    }
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dc));
  pass("matmul_tiled");
  return 0;
}
