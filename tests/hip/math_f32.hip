// math_f32: device library math in single precision (the ocml functions hipcc links), compared
// with the host's double-precision libm within a few-ulp relative tolerance.
#include "hip_check.h"
#include <vector>

// name, device expression (float), reference expression (double; float-rounded where the
// device rounds an intermediate to float), input range [lo, hi]
#define MATH_F32_LIST(X)                                          \
  X(sinf, sinf(x), sin(x), -10.0, 10.0)                           \
  X(cosf, cosf(x), cos(x), -10.0, 10.0)                           \
  X(tanf, tanf(x), tan(x), -1.2, 1.2)                             \
  X(expf, expf(x), exp(x), -20.0, 20.0)                           \
  X(exp2f, exp2f(x), exp2(x), -20.0, 20.0)                        \
  X(expm1f, expm1f(x), expm1(x), -2.0, 2.0)                       \
  X(logf, logf(x), log(x), 0.001, 1000.0)                         \
  X(log2f, log2f(x), log2(x), 0.001, 1000.0)                      \
  X(log10f, log10f(x), log10(x), 0.001, 1000.0)                   \
  X(log1pf, log1pf(x), log1p(x), -0.5, 10.0)                      \
  X(sqrtf, sqrtf(x), sqrt(x), 0.0, 10000.0)                       \
  X(rsqrtf, rsqrtf(x), 1.0 / sqrt(x), 0.01, 10000.0)              \
  X(cbrtf, cbrtf(x), cbrt(x), -1000.0, 1000.0)                    \
  X(powf, powf(x, y), pow(x, y), 0.1, 4.0)                        \
  X(atan2f, atan2f(x, y - 2.0f), atan2(x, (double)(float)(y - 2.0)), -5.0, 5.0) \
  X(asinf, asinf(x), asin(x), -1.0, 1.0)                          \
  X(acosf, acosf(x), acos(x), -1.0, 1.0)                          \
  X(atanf, atanf(x), atan(x), -50.0, 50.0)                        \
  X(sinhf, sinhf(x), sinh(x), -5.0, 5.0)                          \
  X(coshf, coshf(x), cosh(x), -5.0, 5.0)                          \
  X(tanhf, tanhf(x), tanh(x), -5.0, 5.0)                          \
  X(erff, erff(x), erf(x), -3.0, 3.0)                             \
  X(erfcf, erfcf(x), erfc(x), -2.0, 3.0)                          \
  X(hypotf, hypotf(x, y), hypot(x, y), -100.0, 100.0)             \
  X(fmodf, fmodf(x, y + 0.5f), fmod(x, (double)(float)(y + 0.5)), -50.0, 50.0) \
  X(fmaf, fmaf(x, y, 0.25f), (double)x * y + 0.25, -10.0, 10.0)   \
  X(floorf, floorf(x), floor(x), -100.0, 100.0)                   \
  X(ceilf, ceilf(x), ceil(x), -100.0, 100.0)                      \
  X(roundf, roundf(x), round(x), -100.0, 100.0)                   \
  X(truncf, truncf(x), trunc(x), -100.0, 100.0)                   \
  X(fabsf, fabsf(x), fabs(x), -100.0, 100.0)                      \
  X(fminf, fminf(x, y), fmin(x, y), -10.0, 10.0)                  \
  X(fmaxf, fmaxf(x, y), fmax(x, y), -10.0, 10.0)                  \
  X(ldexpf, ldexpf(x, 5), ldexp(x, 5), -10.0, 10.0)               \
  X(tgammaf, tgammaf(x), tgamma(x), 0.2, 8.0)                     \
  X(lgammaf, lgammaf(x), lgamma(x), 0.2, 20.0)

enum {
#define ENUM(name, d, h, lo, hi) F_##name,
  MATH_F32_LIST(ENUM)
#undef ENUM
  F_COUNT
};

__global__ void eval(const float *xs, const float *ys, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int f = blockIdx.y;
  if (i >= n)
    return;
  float x = xs[f * n + i], y = ys[f * n + i];
  float r = 0.0f;
  switch (f) {
#define CASE(name, d, h, lo, hi) \
  case F_##name:                 \
    r = d;                       \
    break;
    MATH_F32_LIST(CASE)
#undef CASE
  }
  out[f * n + i] = r;
}

static double reference(int f, float xf, float yf) {
  double x = xf, y = yf;
  switch (f) {
#define CASE(name, d, h, lo, hi) \
  case F_##name:                 \
    return h;
    MATH_F32_LIST(CASE)
#undef CASE
  }
  return 0.0;
}

int main() {
  const int n = 200;
  const char *names[] = {
#define NAME(name, d, h, lo, hi) #name,
      MATH_F32_LIST(NAME)
#undef NAME
  };
  const double lo[] = {
#define LO(name, d, h, l, hi) l,
      MATH_F32_LIST(LO)
#undef LO
  };
  const double hi[] = {
#define HI(name, d, h, l, h2) h2,
      MATH_F32_LIST(HI)
#undef HI
  };
  std::vector<float> xs(F_COUNT * n), ys(F_COUNT * n), out(F_COUNT * n);
  for (int f = 0; f < F_COUNT; f++)
    for (int i = 0; i < n; i++) {
      xs[f * n + i] = (float)(lo[f] + (hi[f] - lo[f]) * i / (n - 1));
      ys[f * n + i] = (float)(0.1 + 3.7 * ((i * 7) % n) / n);
    }
  float *dx, *dy, *dout;
  HIP_CHECK(hipMalloc(&dx, xs.size() * sizeof(float)));
  HIP_CHECK(hipMalloc(&dy, ys.size() * sizeof(float)));
  HIP_CHECK(hipMalloc(&dout, out.size() * sizeof(float)));
  HIP_CHECK(hipMemcpy(dx, xs.data(), xs.size() * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dy, ys.data(), ys.size() * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(eval, dim3((n + 63) / 64, F_COUNT), dim3(64), 0, 0, dx, dy, dout, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(out.data(), dout, out.size() * sizeof(float), hipMemcpyDeviceToHost));
  for (int f = 0; f < F_COUNT; f++)
    for (int i = 0; i < n; i++) {
      double want = reference(f, xs[f * n + i], ys[f * n + i]);
      float got = out[f * n + i];
      // 4 ulp of float relative, plus an absolute floor for results near zero.
      CHECK(close_enough(got, want, 4.8e-7 * 8, 1e-6), "%s(%.9g, %.9g) = %.9g, want %.9g", names[f], xs[f * n + i],
            ys[f * n + i], got, want);
    }
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  HIP_CHECK(hipFree(dout));
  pass("math_f32");
  return 0;
}
