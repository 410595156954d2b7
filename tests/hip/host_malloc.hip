// host_malloc: pinned host memory from hipHostMalloc (default, mapped, coherent and
// non-coherent flags) read and written directly by kernels, hipHostGetDevicePointer,
// hipHostRegister of ordinary malloc'd memory, and async copies between pinned and device memory.
#include "hip_check.h"
#include <cstdlib>
#include <vector>

__global__ void square_in_place(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = p[i] * p[i];
}

int main() {
  const int n = 3000;
  const unsigned flags[] = {hipHostMallocDefault, hipHostMallocMapped, hipHostMallocCoherent, hipHostMallocNonCoherent};
  for (unsigned f : flags) {
    int *h;
    HIP_CHECK(hipHostMalloc(&h, n * sizeof(int), f));
    for (int i = 0; i < n; i++)
      h[i] = i - 1500;
    int *dev_view = nullptr;
    HIP_CHECK(hipHostGetDevicePointer((void **)&dev_view, h, 0));
    CHECK(dev_view != nullptr, "no device pointer for flags %#x", f);
    hipLaunchKernelGGL(square_in_place, dim3((n + 255) / 256), dim3(256), 0, 0, dev_view, n);
    LAUNCH_CHECK();
    for (int i = 0; i < n; i++)
      CHECK(h[i] == (i - 1500) * (i - 1500), "flags %#x: element %d = %d", f, i, h[i]);
    unsigned got_flags = 0;
    HIP_CHECK(hipHostGetFlags(&got_flags, h));
    HIP_CHECK(hipHostFree(h));
  }

  // hipHostRegister on malloc'd memory, then a kernel through the device pointer.
  int *plain = (int *)std::malloc(n * sizeof(int));
  CHECK(plain != nullptr, "malloc failed");
  for (int i = 0; i < n; i++)
    plain[i] = i % 100;
  HIP_CHECK(hipHostRegister(plain, n * sizeof(int), hipHostRegisterMapped));
  int *plain_dev = nullptr;
  HIP_CHECK(hipHostGetDevicePointer((void **)&plain_dev, plain, 0));
  hipLaunchKernelGGL(square_in_place, dim3((n + 255) / 256), dim3(256), 0, 0, plain_dev, n);
  LAUNCH_CHECK();
  for (int i = 0; i < n; i++)
    CHECK(plain[i] == (i % 100) * (i % 100), "registered element %d = %d", i, plain[i]);
  HIP_CHECK(hipHostUnregister(plain));
  std::free(plain);

  // Async copies pinned -> device -> pinned on a stream, with a kernel in between.
  int *src, *dst, *d;
  HIP_CHECK(hipHostMalloc(&src, n * sizeof(int)));
  HIP_CHECK(hipHostMalloc(&dst, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&d, n * sizeof(int)));
  for (int i = 0; i < n; i++) {
    src[i] = 3 * i;
    dst[i] = -1;
  }
  hipStream_t s;
  HIP_CHECK(hipStreamCreate(&s));
  HIP_CHECK(hipMemcpyAsync(d, src, n * sizeof(int), hipMemcpyHostToDevice, s));
  hipLaunchKernelGGL(square_in_place, dim3((n + 255) / 256), dim3(256), 0, s, d, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpyAsync(dst, d, n * sizeof(int), hipMemcpyDeviceToHost, s));
  HIP_CHECK(hipStreamSynchronize(s));
  for (int i = 0; i < n; i++)
    CHECK(dst[i] == 9 * i * i, "async element %d = %d", i, dst[i]);
  HIP_CHECK(hipStreamDestroy(s));
  HIP_CHECK(hipFree(d));
  HIP_CHECK(hipHostFree(src));
  HIP_CHECK(hipHostFree(dst));
  pass("host_malloc");
  return 0;
}
