// float_atomic_order: many float and double atomicAdds of values of mixed magnitude into a few
// accumulators. Float addition is not associative, so the sums depend on the order in which the
// atomics land: on a GPU (or hsaemu with several host threads) that order changes from run to
// run, under `hsaemu exec --deterministic` it must not (docs/debugging.md). Prints the sums'
// bit patterns, so runs can be compared exactly, and checks them against a double reference
// within the rounding that any order may cause.
#include "hip_check.h"
#include <cstdint>
#include <cstring>

constexpr int N = 1 << 16;
constexpr int SUMS = 4;

__host__ __device__ inline double value(int i) {
  // Mantissas in [1, 2), exponents from -20 to +19: each sum mixes tiny and huge terms.
  double m = 1.0 + (double)((i * 7919) % 1000) / 1000.0;
  int e = (int)((i * 31u) % 40u) - 20;
  return ((i & 1) ? -m : m) * std::ldexp(1.0, e);
}

__global__ void accumulate(float *fs, double *ds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    atomicAdd(&fs[i % SUMS], (float)value(i));
    atomicAdd(&ds[i % SUMS], value(i));
  }
}

int main() {
  float *fs;
  double *ds;
  HIP_CHECK(hipMalloc(&fs, SUMS * sizeof(float)));
  HIP_CHECK(hipMalloc(&ds, SUMS * sizeof(double)));
  HIP_CHECK(hipMemset(fs, 0, SUMS * sizeof(float)));
  HIP_CHECK(hipMemset(ds, 0, SUMS * sizeof(double)));
  hipLaunchKernelGGL(accumulate, dim3(N / 256), dim3(256), 0, 0, fs, ds);
  LAUNCH_CHECK();
  float hf[SUMS];
  double hd[SUMS];
  HIP_CHECK(hipMemcpy(hf, fs, sizeof(hf), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(hd, ds, sizeof(hd), hipMemcpyDeviceToHost));
  double ref[SUMS] = {0}, mag[SUMS] = {0};
  for (int i = 0; i < N; i++) {
    ref[i % SUMS] += value(i);
    mag[i % SUMS] += std::fabs(value(i));
  }
  for (int k = 0; k < SUMS; k++) {
    uint32_t fb;
    uint64_t db;
    std::memcpy(&fb, &hf[k], 4);
    std::memcpy(&db, &hd[k], 8);
    std::printf("sum%d float %08x double %016llx\n", k, fb, (unsigned long long)db);
    // Any order: within N float roundings of the total magnitude.
    CHECK(std::fabs(hf[k] - ref[k]) <= mag[k] * N * 6e-8, "float sum %d: %g, expected %g", k,
          hf[k], ref[k]);
    CHECK(std::fabs(hd[k] - ref[k]) <= mag[k] * 1e-12, "double sum %d: %g, expected %g", k,
          hd[k], ref[k]);
  }
  pass("float_atomic_order");
  return 0;
}
