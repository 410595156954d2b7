// launch_variants: the ways a kernel gets launched and its arguments passed: triple-chevron
// syntax, hipLaunchKernelGGL, hipLaunchKernel with an argument array, hipExtLaunchKernelGGL,
// templated kernels, by-value structs (with mixed alignment) and many scalar arguments,
// 1x1x1 grids, blocks of 1 and 1024 threads, a grid of 12289 x 3 blocks, and
// __launch_bounds__.
#include "hip_check.h"
#include <hip/hip_ext.h>
#include <vector>

struct Mixed {
  char c;
  double d;
  short s;
  int arr[3];
  float f;
};

__global__ void many_args(long long *out, char a, short b, int c, long long d, float e, double f, unsigned char g,
                          Mixed m, const int *h, int i) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    *out = a + b + c + d + (long long)e + (long long)f + g + m.c + (long long)m.d + m.s + m.arr[0] + m.arr[1] +
           m.arr[2] + (long long)m.f + *h + i;
}

template <typename T, int K>
__global__ void scale_t(T *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = p[i] * (T)K;
}

__global__ void __launch_bounds__(1024) count_threads(unsigned *counter) { atomicAdd(counter, 1u); }

__global__ void mark_blocks(unsigned char *marks) {
  size_t b = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
  if (threadIdx.x == 0)
    marks[b] = 1;
}

int main() {
  long long *dout;
  int *dh;
  HIP_CHECK(hipMalloc(&dout, sizeof(long long)));
  HIP_CHECK(hipMalloc(&dh, sizeof(int)));
  int hv = 1000;
  HIP_CHECK(hipMemcpy(dh, &hv, sizeof(int), hipMemcpyHostToDevice));
  Mixed m = {5, 6.75, -7, {8, 9, 10}, 11.5f};
  long long want = 1 + 2 + 3 + 4000000000ll + 5 + 6 + 7 + 5 + 6 + -7 + 8 + 9 + 10 + 11 + 1000 + 12;
  long long got = 0;

  // 1. triple chevrons
  many_args<<<1, 1>>>(dout, 1, 2, 3, 4000000000ll, 5.5f, 6.25, 7, m, dh, 12);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(&got, dout, sizeof(got), hipMemcpyDeviceToHost));
  CHECK(got == want, "<<<>>> sum %lld, want %lld", got, want);
  // 2. hipLaunchKernelGGL
  HIP_CHECK(hipMemset(dout, 0, sizeof(long long)));
  hipLaunchKernelGGL(many_args, dim3(1), dim3(64), 0, 0, dout, (char)1, (short)2, 3, 4000000000ll, 5.5f, 6.25,
                     (unsigned char)7, m, (const int *)dh, 12);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(&got, dout, sizeof(got), hipMemcpyDeviceToHost));
  CHECK(got == want, "hipLaunchKernelGGL sum %lld, want %lld", got, want);
  // 3. hipLaunchKernel with an argument array
  HIP_CHECK(hipMemset(dout, 0, sizeof(long long)));
  char a = 1;
  short b = 2;
  int c = 3, i = 12;
  long long d = 4000000000ll;
  float e = 5.5f;
  double f = 6.25;
  unsigned char g = 7;
  const int *h = dh;
  void *args[] = {&dout, &a, &b, &c, &d, &e, &f, &g, &m, &h, &i};
  HIP_CHECK(hipLaunchKernel((const void *)many_args, dim3(1), dim3(32), args, 0, 0));
  HIP_CHECK(hipMemcpy(&got, dout, sizeof(got), hipMemcpyDeviceToHost));
  CHECK(got == want, "hipLaunchKernel sum %lld, want %lld", got, want);

  // Templates
  const int n = 300;
  std::vector<int> vi(n);
  std::vector<double> vd(n);
  for (int k = 0; k < n; k++) {
    vi[k] = k - 150;
    vd[k] = k * 0.25;
  }
  int *di;
  double *dd;
  HIP_CHECK(hipMalloc(&di, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dd, n * sizeof(double)));
  HIP_CHECK(hipMemcpy(di, vi.data(), n * sizeof(int), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dd, vd.data(), n * sizeof(double), hipMemcpyHostToDevice));
  hipLaunchKernelGGL((scale_t<int, 3>), dim3(3), dim3(100), 0, 0, di, n);
  HIP_CHECK(hipGetLastError());
  // hipExtLaunchKernelGGL: grid in blocks, no start/stop events, flags 0.
  hipExtLaunchKernelGGL((scale_t<double, -2>), dim3(5), dim3(64), 0, 0, nullptr, nullptr, 0, dd, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> ri(n);
  std::vector<double> rd(n);
  HIP_CHECK(hipMemcpy(ri.data(), di, n * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(rd.data(), dd, n * sizeof(double), hipMemcpyDeviceToHost));
  for (int k = 0; k < n; k++) {
    CHECK(ri[k] == vi[k] * 3, "scale_t<int,3>[%d] = %d", k, ri[k]);
    CHECK(rd[k] == vd[k] * -2, "scale_t<double,-2>[%d] = %g", k, rd[k]);
  }

  // Thread-count extremes.
  unsigned *dc;
  HIP_CHECK(hipMalloc(&dc, sizeof(unsigned)));
  const unsigned shapes[][2] = {{1, 1}, {1, 1024}, {7, 1}, {3, 1000}, {2, 65}};
  for (auto &s : shapes) {
    HIP_CHECK(hipMemset(dc, 0, sizeof(unsigned)));
    hipLaunchKernelGGL(count_threads, dim3(s[0]), dim3(s[1]), 0, 0, dc);
    HIP_CHECK(hipGetLastError());
    unsigned cnt = 0;
    HIP_CHECK(hipMemcpy(&cnt, dc, sizeof(cnt), hipMemcpyDeviceToHost));
    CHECK(cnt == s[0] * s[1], "grid %u x block %u counted %u threads", s[0], s[1], cnt);
  }
  // Many blocks: 12289 x 3 blocks of 64 threads, each marks itself once.
  const size_t blocks = 12289ull * 3;
  unsigned char *marks;
  HIP_CHECK(hipMalloc(&marks, blocks));
  HIP_CHECK(hipMemset(marks, 0, blocks));
  hipLaunchKernelGGL(mark_blocks, dim3(12289, 3), dim3(64), 0, 0, marks);
  HIP_CHECK(hipGetLastError());
  std::vector<unsigned char> hm(blocks);
  HIP_CHECK(hipMemcpy(hm.data(), marks, blocks, hipMemcpyDeviceToHost));
  for (size_t k = 0; k < blocks; k++)
    CHECK(hm[k] == 1, "block %zu not run", k);
  // An invalid launch configuration is refused.
  hipLaunchKernelGGL(count_threads, dim3(1), dim3(2048), 0, 0, dc);
  CHECK(hipGetLastError() != hipSuccess, "a 2048-thread block was accepted");
  HIP_CHECK(hipGetLastError()); // the error was cleared by the previous call
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dh));
  HIP_CHECK(hipFree(di));
  HIP_CHECK(hipFree(dd));
  HIP_CHECK(hipFree(dc));
  HIP_CHECK(hipFree(marks));
  pass("launch_variants");
  return 0;
}
