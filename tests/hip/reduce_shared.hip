// reduce_shared: block-level tree reductions in static shared memory (int sum, float sum,
// int max), then a second kernel reduces the per-block partials; checked against the CPU.
#include "hip_check.h"
#include <vector>

constexpr int kBlock = 256;

__global__ void block_reduce(const int *in, const float *fin, int n, int *isum, float *fsum, int *imax) {
  __shared__ int s_sum[kBlock];
  __shared__ float s_fsum[kBlock];
  __shared__ int s_max[kBlock];
  int tid = threadIdx.x;
  int i = blockIdx.x * kBlock * 2 + tid;
  int v = 0, m = INT_MIN;
  float f = 0.0f;
  if (i < n) {
    v += in[i];
    f += fin[i];
    m = max(m, in[i]);
  }
  if (i + kBlock < n) {
    v += in[i + kBlock];
    f += fin[i + kBlock];
    m = max(m, in[i + kBlock]);
  }
  s_sum[tid] = v;
  s_fsum[tid] = f;
  s_max[tid] = m;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      s_sum[tid] += s_sum[tid + stride];
      s_fsum[tid] += s_fsum[tid + stride];
      s_max[tid] = max(s_max[tid], s_max[tid + stride]);
    }
    __syncthreads();
  }
  if (tid == 0) {
    isum[blockIdx.x] = s_sum[0];
    fsum[blockIdx.x] = s_fsum[0];
    imax[blockIdx.x] = s_max[0];
  }
}

// One block folds the partials (any count) with a strided loop and a final tree.
__global__ void final_reduce(const int *isum, int count, long long *total) {
  __shared__ long long s[kBlock];
  long long acc = 0;
  for (int i = threadIdx.x; i < count; i += kBlock)
    acc += isum[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride >>= 1) {
    if ((int)threadIdx.x < stride)
      s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *total = s[0];
}

int main() {
  const int n = 100003;
  const int blocks = (n + 2 * kBlock - 1) / (2 * kBlock);
  std::vector<int> in(n);
  std::vector<float> fin(n);
  for (int i = 0; i < n; i++) {
    in[i] = (i * 7919) % 1000 - 500;
    fin[i] = (float)((i % 17) - 8) * 0.25f; // exactly representable partial sums
  }
  int *din, *dsum, *dmax;
  float *dfin, *dfsum;
  long long *dtotal;
  HIP_CHECK(hipMalloc(&din, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dfin, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dsum, blocks * sizeof(int)));
  HIP_CHECK(hipMalloc(&dfsum, blocks * sizeof(float)));
  HIP_CHECK(hipMalloc(&dmax, blocks * sizeof(int)));
  HIP_CHECK(hipMalloc(&dtotal, sizeof(long long)));
  HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dfin, fin.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(block_reduce, dim3(blocks), dim3(kBlock), 0, 0, din, dfin, n, dsum, dfsum, dmax);
  HIP_CHECK(hipGetLastError());
  hipLaunchKernelGGL(final_reduce, dim3(1), dim3(kBlock), 0, 0, dsum, blocks, dtotal);
  HIP_CHECK(hipGetLastError());
  std::vector<int> sum(blocks), mx(blocks);
  std::vector<float> fsum(blocks);
  long long total = 0;
  HIP_CHECK(hipMemcpy(sum.data(), dsum, blocks * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(fsum.data(), dfsum, blocks * sizeof(float), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(mx.data(), dmax, blocks * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(&total, dtotal, sizeof(long long), hipMemcpyDeviceToHost));
  long long want_total = 0;
  for (int b = 0; b < blocks; b++) {
    int s = 0, m = INT_MIN;
    float f = 0.0f;
    for (int i = b * 2 * kBlock; i < n && i < (b + 1) * 2 * kBlock; i++) {
      s += in[i];
      f += fin[i];
      m = in[i] > m ? in[i] : m;
    }
    want_total += s;
    CHECK(sum[b] == s, "block %d sum %d, want %d", b, sum[b], s);
    CHECK(mx[b] == m, "block %d max %d, want %d", b, mx[b], m);
    CHECK(fsum[b] == f, "block %d float sum %g, want %g", b, fsum[b], f);
  }
  CHECK(total == want_total, "total %lld, want %lld", total, want_total);
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dfin));
  HIP_CHECK(hipFree(dsum));
  HIP_CHECK(hipFree(dfsum));
  HIP_CHECK(hipFree(dmax));
  HIP_CHECK(hipFree(dtotal));
  pass("reduce_shared");
  return 0;
}
