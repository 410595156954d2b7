// Shared helpers for the self-checking HIP programs in tests/hip/ (see docs/hip.md).
//
// Every HIP API call is wrapped in HIP_CHECK: a failing call prints
// "FAIL: <file>:<line>: <call> returned <name> (<string>)" and exits with status 1.
// CHECK(cond, fmt, ...) does the same for a failed result check. A program that
// passes prints "PASS <name>" as its last line and returns 0.
#pragma once
#include <hip/hip_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(call)                                                                     \
  do {                                                                                      \
    hipError_t hip_check_err_ = (call);                                                     \
    if (hip_check_err_ != hipSuccess) {                                                     \
      std::printf("FAIL: %s:%d: %s returned %s (%s)\n", __FILE__, __LINE__, #call,          \
                  hipGetErrorName(hip_check_err_), hipGetErrorString(hip_check_err_));      \
      std::fflush(stdout);                                                                  \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

// Checks a kernel launch: the launch itself, then (synchronously) its execution.
#define LAUNCH_CHECK()                      \
  do {                                      \
    HIP_CHECK(hipGetLastError());           \
    HIP_CHECK(hipDeviceSynchronize());      \
  } while (0)

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      std::printf("FAIL: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::printf(__VA_ARGS__);                                   \
      std::printf("\n");                                          \
      std::fflush(stdout);                                        \
      std::exit(1);                                               \
    }                                                             \
  } while (0)

// Relative-or-absolute closeness for floating-point results.
static inline bool close_enough(double got, double want, double rel, double abs_tol) {
  if (std::isnan(want))
    return std::isnan(got);
  if (std::isinf(want))
    return got == want;
  double diff = std::fabs(got - want);
  return diff <= abs_tol || diff <= rel * std::fabs(want);
}

// A pitched 2D allocation made with hipMalloc (pitch = width rounded up to 256 bytes). HIP 5.2's
// own hipMallocPitch/hipMalloc3D refuse to allocate (hipErrorInvalidValue, "Image is not
// supported on device") unless the device reports image support, so the copy tests use this and
// malloc_pitch.hip tests hipMallocPitch itself.
static inline void malloc_pitched(void **ptr, size_t *pitch, size_t width_bytes, size_t rows) {
  *pitch = (width_bytes + 255) / 256 * 256;
  HIP_CHECK(hipMalloc(ptr, *pitch * rows));
}

static inline void pass(const char *name) {
  std::printf("PASS %s\n", name);
  std::fflush(stdout);
}
