// atomics_float: floating-point atomics: atomicAdd on float and double (global and shared
// memory), atomicExch on float, and CAS-loop atomics built on atomicCAS (float max, double
// multiply). Values are chosen so every order of addition gives the same exact sum.
#include "hip_check.h"
#include <vector>

__device__ float atomic_max_float(float *addr, float v) {
  int *ai = (int *)addr;
  int old = *ai, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v)
      break;
    old = atomicCAS(ai, assumed, __float_as_int(v));
  } while (old != assumed);
  return __int_as_float(old);
}

__device__ double atomic_mul_double(double *addr, double v) {
  unsigned long long *ai = (unsigned long long *)addr;
  unsigned long long old = *ai, assumed;
  do {
    assumed = old;
    old = atomicCAS(ai, assumed, (unsigned long long)__double_as_longlong(__longlong_as_double((long long)assumed) * v));
  } while (old != assumed);
  return __longlong_as_double((long long)old);
}

struct Results {
  float fadd;
  float fshared;
  float fmax;
  float fexch;
  double dadd;
  double dmul;
};

__global__ void float_atomics(Results *r, const float *vals, int n) {
  __shared__ float s_sum;
  if (threadIdx.x == 0)
    s_sum = 0.0f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = vals[i];
    atomicAdd(&r->fadd, v);
    atomicAdd(&s_sum, v);
    atomic_max_float(&r->fmax, v);
    atomicExch(&r->fexch, v);
    atomicAdd(&r->dadd, (double)v * 0.5);
    if (i % 100 == 0)
      atomic_mul_double(&r->dmul, 2.0);
  }
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(&r->fshared, s_sum);
}

int main() {
  const int n = 4000;
  std::vector<float> vals(n);
  // Multiples of 1/8 with small magnitude: all partial sums are exact in float.
  for (int i = 0; i < n; i++)
    vals[i] = (float)((i * 37) % 81 - 40) / 8.0f;
  Results init = {0.0f, 0.0f, -1e30f, -1.0f, 0.0, 1.0};
  Results *dr;
  float *dvals;
  HIP_CHECK(hipMalloc(&dr, sizeof(Results)));
  HIP_CHECK(hipMalloc(&dvals, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(dr, &init, sizeof(Results), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dvals, vals.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(float_atomics, dim3((n + 255) / 256), dim3(256), 0, 0, dr, dvals, n);
  HIP_CHECK(hipGetLastError());
  Results r;
  HIP_CHECK(hipMemcpy(&r, dr, sizeof(Results), hipMemcpyDeviceToHost));
  float want_sum = 0.0f, want_max = -1e30f;
  double want_dsum = 0.0, want_mul = 1.0;
  for (int i = 0; i < n; i++) {
    want_sum += vals[i];
    want_max = vals[i] > want_max ? vals[i] : want_max;
    want_dsum += (double)vals[i] * 0.5;
    if (i % 100 == 0)
      want_mul *= 2.0;
  }
  CHECK(r.fadd == want_sum, "float atomicAdd %g, want %g", r.fadd, want_sum);
  CHECK(r.fshared == want_sum, "shared float atomicAdd %g, want %g", r.fshared, want_sum);
  CHECK(r.fmax == want_max, "CAS float max %g, want %g", r.fmax, want_max);
  bool exch_ok = false;
  for (int i = 0; i < n; i++)
    exch_ok |= r.fexch == vals[i];
  CHECK(exch_ok, "float atomicExch left %g, not one of the inputs", r.fexch);
  CHECK(r.dadd == want_dsum, "double atomicAdd %.17g, want %.17g", r.dadd, want_dsum);
  CHECK(r.dmul == want_mul, "CAS double multiply %g, want %g", r.dmul, want_mul);
  HIP_CHECK(hipFree(dr));
  HIP_CHECK(hipFree(dvals));
  pass("atomics_float");
  return 0;
}
