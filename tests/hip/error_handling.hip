// error_handling: HIP reports invalid requests with error codes (no crash, no hang) and stays
// usable afterwards: an impossible hipMalloc, hipFree of a non-HIP pointer, a copy from a null
// pointer, invalid device ordinals, null events, and hipGetErrorName/hipGetErrorString; then a
// normal kernel still runs.
#include "hip_check.h"
#include <cstdint>
#include <cstring>

__global__ void iota(int *p) { p[threadIdx.x] = threadIdx.x; }

int main() {
  void *p = nullptr;
  hipError_t e = hipMalloc(&p, (size_t)1 << 62);
  CHECK(e == hipErrorOutOfMemory || e == hipErrorMemoryAllocation, "hipMalloc(2^62) returned %s", hipGetErrorName(e));
  CHECK(hipGetLastError() != hipSuccess, "the allocation failure was not recorded as the last error");
  HIP_CHECK(hipGetLastError()); // reading it reset it

  int stack_var = 0;
  e = hipFree(&stack_var);
  CHECK(e != hipSuccess, "hipFree of a stack address succeeded");
  (void)hipGetLastError();
  HIP_CHECK(hipFree(nullptr)); // freeing NULL is allowed

  int *d;
  HIP_CHECK(hipMalloc(&d, 64 * sizeof(int)));
  e = hipMemcpy(d, nullptr, 16, hipMemcpyHostToDevice);
  CHECK(e != hipSuccess, "hipMemcpy from NULL succeeded");
  (void)hipGetLastError();

  int count = 0;
  HIP_CHECK(hipGetDeviceCount(&count));
  hipDeviceProp_t prop;
  e = hipGetDeviceProperties(&prop, count + 3);
  CHECK(e == hipErrorInvalidDevice, "properties of device %d returned %s", count + 3, hipGetErrorName(e));
  (void)hipGetLastError();
  e = hipSetDevice(-1);
  CHECK(e == hipErrorInvalidDevice, "hipSetDevice(-1) returned %s", hipGetErrorName(e));
  (void)hipGetLastError();

  float ms;
  e = hipEventElapsedTime(&ms, nullptr, nullptr);
  CHECK(e != hipSuccess, "elapsed time between null events succeeded");
  (void)hipGetLastError();

  CHECK(std::strcmp(hipGetErrorName(hipErrorInvalidValue), "hipErrorInvalidValue") == 0, "hipGetErrorName: %s",
        hipGetErrorName(hipErrorInvalidValue));
  CHECK(std::strlen(hipGetErrorString(hipErrorOutOfMemory)) > 0, "empty hipGetErrorString");

  // Still usable.
  hipLaunchKernelGGL(iota, dim3(1), dim3(64), 0, 0, d);
  LAUNCH_CHECK();
  int h[64];
  HIP_CHECK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    CHECK(h[i] == i, "after errors, element %d = %d", i, h[i]);
  HIP_CHECK(hipFree(d));
  pass("error_handling");
  return 0;
}
