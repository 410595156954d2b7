// mfma_gemm: D = A x B + C on the matrix cores, written the way AMD's "AMD matrix cores" lab
// notes teach it: one wavefront of 64 lanes (a 32 x 2 block) per 32 x 32 tile of D, with
// __builtin_amdgcn_mfma_f32_32x32x8f16 over K in steps of 8. Lane (x, y) holds, per step,
// A[row x][k + 4y + i] and B[k + 4y + i][col x] for i = 0..3, and D register 4j + i of lane
// (x, y) is D[8j + 4y + i][x]. Inputs are quarter values, so every product and sum is exact in
// f32 and the result must equal the CPU product bit for bit. gfx908 and gfx90a only.
#include "hip_check.h"
#include <vector>

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float16 __attribute__((ext_vector_type(16)));

constexpr int kTile = 32;

__global__ void gemm(const float *a, const float *b, const float *c, float *d, int m, int n,
                     int k) {
  const int x = threadIdx.x, y = threadIdx.y;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float16 acc;
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 4; i++)
      acc[4 * j + i] = c[(row0 + 8 * j + 4 * y + i) * n + col0 + x];
  for (int kk = 0; kk < k; kk += 8) {
    half4 av, bv;
    for (int i = 0; i < 4; i++) {
      av[i] = (_Float16)a[(row0 + x) * k + kk + 4 * y + i];
      bv[i] = (_Float16)b[(kk + 4 * y + i) * n + col0 + x];
    }
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(av, bv, acc, 0, 0, 0);
  }
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 4; i++)
      d[(row0 + 8 * j + 4 * y + i) * n + col0 + x] = acc[4 * j + i];
}

int main() {
  const int m = 64, n = 96, k = 48;
  std::vector<float> a(m * k), b(k * n), c(m * n), d(m * n);
  for (int i = 0; i < m * k; i++)
    a[i] = (float)((i * 37) % 17 - 8) / 4.0f;
  for (int i = 0; i < k * n; i++)
    b[i] = (float)((i * 53) % 13 - 6) / 4.0f;
  for (int i = 0; i < m * n; i++)
    c[i] = (float)(i % 7 - 3);
  float *da, *db, *dc, *dd;
  HIP_CHECK(hipMalloc(&da, a.size() * sizeof(float)));
  HIP_CHECK(hipMalloc(&db, b.size() * sizeof(float)));
  HIP_CHECK(hipMalloc(&dc, c.size() * sizeof(float)));
  HIP_CHECK(hipMalloc(&dd, d.size() * sizeof(float)));
  HIP_CHECK(hipMemcpy(da, a.data(), a.size() * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(db, b.data(), b.size() * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dc, c.data(), c.size() * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(gemm, dim3(n / kTile, m / kTile), dim3(kTile, 2), 0, 0, da, db, dc, dd, m,
                     n, k);
  LAUNCH_CHECK();
  HIP_CHECK(hipMemcpy(d.data(), dd, d.size() * sizeof(float), hipMemcpyDeviceToHost));
  for (int r = 0; r < m; r++)
    for (int col = 0; col < n; col++) {
      double want = c[r * n + col];
      for (int i = 0; i < k; i++)
        want += (double)a[r * k + i] * b[i * n + col];
      CHECK(d[r * n + col] == (float)want, "d[%d][%d] = %g, want %g", r, col, d[r * n + col],
            want);
    }
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dc));
  HIP_CHECK(hipFree(dd));
  pass("mfma_gemm");
  return 0;
}
