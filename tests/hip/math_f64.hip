// math_f64: device library math in double precision (the ocml functions hipcc links), compared
// with the host libm within a relative tolerance of 8e-14 (a few ulp; absolute 1e-13 near zero).
#include "hip_check.h"
#include <vector>

// name, device expression (double), reference expression (double), input range [lo, hi]
#define MATH_F64_LIST(X)                                          \
  X(sin, sin(x), sin(x), -10.0, 10.0)                           \
  X(cos, cos(x), cos(x), -10.0, 10.0)                           \
  X(tan, tan(x), tan(x), -1.2, 1.2)                             \
  X(exp, exp(x), exp(x), -20.0, 20.0)                           \
  X(exp2, exp2(x), exp2(x), -20.0, 20.0)                        \
  X(expm1, expm1(x), expm1(x), -2.0, 2.0)                       \
  X(log, log(x), log(x), 0.001, 1000.0)                         \
  X(log2, log2(x), log2(x), 0.001, 1000.0)                      \
  X(log10, log10(x), log10(x), 0.001, 1000.0)                   \
  X(log1p, log1p(x), log1p(x), -0.5, 10.0)                      \
  X(sqrt, sqrt(x), sqrt(x), 0.0, 10000.0)                       \
  X(rsqrt, rsqrt(x), 1.0 / sqrt(x), 0.01, 10000.0)              \
  X(cbrt, cbrt(x), cbrt(x), -1000.0, 1000.0)                    \
  X(pow, pow(x, y), pow(x, y), 0.1, 4.0)                        \
  X(atan2, atan2(x, y - 2.0), atan2(x, y - 2.0), -5.0, 5.0)    \
  X(asin, asin(x), asin(x), -1.0, 1.0)                          \
  X(acos, acos(x), acos(x), -1.0, 1.0)                          \
  X(atan, atan(x), atan(x), -50.0, 50.0)                        \
  X(sinh, sinh(x), sinh(x), -5.0, 5.0)                          \
  X(cosh, cosh(x), cosh(x), -5.0, 5.0)                          \
  X(tanh, tanh(x), tanh(x), -5.0, 5.0)                          \
  X(erf, erf(x), erf(x), -3.0, 3.0)                             \
  X(erfc, erfc(x), erfc(x), -2.0, 3.0)                          \
  X(hypot, hypot(x, y), hypot(x, y), -100.0, 100.0)             \
  X(fmod, fmod(x, y + 0.5), fmod(x, y + 0.5), -50.0, 50.0)     \
  X(fma, fma(x, y, 0.25), (double)x * y + 0.25, -10.0, 10.0)   \
  X(floor, floor(x), floor(x), -100.0, 100.0)                   \
  X(ceil, ceil(x), ceil(x), -100.0, 100.0)                      \
  X(round, round(x), round(x), -100.0, 100.0)                   \
  X(trunc, trunc(x), trunc(x), -100.0, 100.0)                   \
  X(fabs, fabs(x), fabs(x), -100.0, 100.0)                      \
  X(fmin, fmin(x, y), fmin(x, y), -10.0, 10.0)                  \
  X(fmax, fmax(x, y), fmax(x, y), -10.0, 10.0)                  \
  X(ldexp, ldexp(x, 5), ldexp(x, 5), -10.0, 10.0)               \
  X(tgamma, tgamma(x), tgamma(x), 0.2, 8.0)                     \
  X(lgamma, lgamma(x), lgamma(x), 0.2, 20.0)

enum {
#define ENUM(name, d, h, lo, hi) F_##name,
  MATH_F64_LIST(ENUM)
#undef ENUM
  F_COUNT
};

__global__ void eval(const double *xs, const double *ys, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int f = blockIdx.y;
  if (i >= n)
    return;
  double x = xs[f * n + i], y = ys[f * n + i];
  double r = 0.0;
  switch (f) {
#define CASE(name, d, h, lo, hi) \
  case F_##name:                 \
    r = d;                       \
    break;
    MATH_F64_LIST(CASE)
#undef CASE
  }
  out[f * n + i] = r;
}

static double reference(int f, double x, double y) {
  switch (f) {
#define CASE(name, d, h, lo, hi) \
  case F_##name:                 \
    return h;
    MATH_F64_LIST(CASE)
#undef CASE
  }
  return 0.0;
}

int main() {
  const int n = 200;
  const char *names[] = {
#define NAME(name, d, h, lo, hi) #name,
      MATH_F64_LIST(NAME)
#undef NAME
  };
  const double lo[] = {
#define LO(name, d, h, l, hi) l,
      MATH_F64_LIST(LO)
#undef LO
  };
  const double hi[] = {
#define HI(name, d, h, l, h2) h2,
      MATH_F64_LIST(HI)
#undef HI
  };
  std::vector<double> xs(F_COUNT * n), ys(F_COUNT * n), out(F_COUNT * n);
  for (int f = 0; f < F_COUNT; f++)
    for (int i = 0; i < n; i++) {
      xs[f * n + i] = (double)(lo[f] + (hi[f] - lo[f]) * i / (n - 1));
      ys[f * n + i] = (double)(0.1 + 3.7 * ((i * 7) % n) / n);
    }
  double *dx, *dy, *dout;
  HIP_CHECK(hipMalloc(&dx, xs.size() * sizeof(double)));
  HIP_CHECK(hipMalloc(&dy, ys.size() * sizeof(double)));
  HIP_CHECK(hipMalloc(&dout, out.size() * sizeof(double)));
  HIP_CHECK(hipMemcpy(dx, xs.data(), xs.size() * sizeof(double), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dy, ys.data(), ys.size() * sizeof(double), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(eval, dim3((n + 63) / 64, F_COUNT), dim3(64), 0, 0, dx, dy, dout, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(out.data(), dout, out.size() * sizeof(double), hipMemcpyDeviceToHost));
  for (int f = 0; f < F_COUNT; f++)
    for (int i = 0; i < n; i++) {
      double want = reference(f, xs[f * n + i], ys[f * n + i]);
      double got = out[f * n + i];
      // A few ulp of double relative (host libm is itself off by up to ~1 ulp), plus an absolute floor.
      CHECK(close_enough(got, want, 8e-14, 1e-13), "%s(%.17g, %.17g) = %.17g, want %.17g", names[f], xs[f * n + i],
            ys[f * n + i], got, want);
    }
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  HIP_CHECK(hipFree(dout));
  pass("math_f64");
  return 0;
}
