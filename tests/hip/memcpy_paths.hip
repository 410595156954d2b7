// memcpy_paths: hipMemcpy sizes and kinds that take different paths inside HIP 5.2 (see
// docs/hip.md): pageable H2D <= 8 KiB (CPU copy), 8 KiB - 1 MiB (staging buffer), > 1 MiB
// (pinned with hsa_amd_memory_lock_to_pool); D2H <= 64 B, <= 1 MiB, > 1 MiB; device-to-device
// (the blit kernel) with unaligned offsets and odd sizes; hipMemcpyDefault; host-to-host;
// hipMemcpyAsync on the null stream; hipMemcpyDtoD/HtoD/DtoH driver-style calls. A kernel
// checksums each uploaded buffer on the device as well.
#include "hip_check.h"
#include <cstring>
#include <vector>

__global__ void checksum(const unsigned char *p, size_t n, unsigned long long *sum) {
  unsigned long long local = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    local += p[i] * (unsigned long long)(i % 251 + 1);
  atomicAdd(sum, local);
}

static void fill(std::vector<unsigned char> &v, unsigned seed) {
  for (size_t i = 0; i < v.size(); i++) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = (unsigned char)(seed >> 24);
  }
}

int main() {
  const size_t sizes[] = {1, 3, 64, 65, 4096, 8192, 8193, 100000, (1u << 20), (1u << 20) + 4093, 3u << 20};
  const size_t max_size = 3u << 20;
  unsigned char *d1, *d2;
  HIP_CHECK(hipMalloc(&d1, max_size + 64));
  HIP_CHECK(hipMalloc(&d2, max_size + 64));
  unsigned long long *dsum;
  HIP_CHECK(hipMalloc(&dsum, sizeof(unsigned long long)));
  unsigned seed = 1;
  for (size_t n : sizes) {
    std::vector<unsigned char> src(n), back(n, 0), back2(n, 0);
    fill(src, seed++);
    HIP_CHECK(hipMemcpy(d1, src.data(), n, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(dsum, 0, sizeof(unsigned long long)));
    hipLaunchKernelGGL(checksum, dim3(32), dim3(256), 0, 0, d1, n, dsum);
    HIP_CHECK(hipGetLastError());
    unsigned long long got_sum = 0, want_sum = 0;
    HIP_CHECK(hipMemcpy(&got_sum, dsum, sizeof(got_sum), hipMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
      want_sum += src[i] * (unsigned long long)(i % 251 + 1);
    CHECK(got_sum == want_sum, "device checksum of %zu uploaded bytes %llu, want %llu", n, got_sum, want_sum);
    HIP_CHECK(hipMemcpy(back.data(), d1, n, hipMemcpyDeviceToHost));
    CHECK(std::memcmp(back.data(), src.data(), n) == 0, "H2D/D2H round trip of %zu bytes differs", n);
    // D2D with unaligned source and destination offsets.
    size_t so = n % 7, dofs = 3 + n % 5;
    HIP_CHECK(hipMemcpy(d2 + dofs, d1 + so, n - so, hipMemcpyDeviceToDevice));
    HIP_CHECK(hipMemcpy(back2.data(), d2 + dofs, n - so, hipMemcpyDeviceToHost));
    CHECK(std::memcmp(back2.data(), src.data() + so, n - so) == 0, "D2D of %zu bytes (offsets %zu -> %zu) differs",
          n - so, so, dofs);
  }
  // hipMemcpyDefault infers the direction from the pointers.
  std::vector<unsigned char> a(5000), b(5000);
  fill(a, 99);
  HIP_CHECK(hipMemcpy(d1, a.data(), a.size(), hipMemcpyDefault));
  HIP_CHECK(hipMemcpy(d2, d1, a.size(), hipMemcpyDefault));
  HIP_CHECK(hipMemcpy(b.data(), d2, b.size(), hipMemcpyDefault));
  CHECK(std::memcmp(a.data(), b.data(), a.size()) == 0, "hipMemcpyDefault round trip differs");
  // Host to host.
  std::vector<unsigned char> c(5000, 0);
  HIP_CHECK(hipMemcpy(c.data(), a.data(), a.size(), hipMemcpyHostToHost));
  CHECK(std::memcmp(a.data(), c.data(), a.size()) == 0, "host-to-host copy differs");
  // Driver-style entry points and an async copy on the null stream.
  std::vector<unsigned char> e(777), f(777, 0);
  fill(e, 7);
  HIP_CHECK(hipMemcpyHtoD((hipDeviceptr_t)d1, e.data(), e.size()));
  HIP_CHECK(hipMemcpyDtoD((hipDeviceptr_t)(d2 + 1), (hipDeviceptr_t)d1, e.size()));
  HIP_CHECK(hipMemcpyAsync(f.data(), d2 + 1, f.size(), hipMemcpyDeviceToHost, 0));
  HIP_CHECK(hipStreamSynchronize(0));
  CHECK(std::memcmp(e.data(), f.data(), e.size()) == 0, "driver-style copies differ");
  std::vector<unsigned char> g(777, 0);
  HIP_CHECK(hipMemcpyDtoH(g.data(), (hipDeviceptr_t)(d2 + 1), g.size()));
  CHECK(std::memcmp(e.data(), g.data(), e.size()) == 0, "hipMemcpyDtoH differs");
  HIP_CHECK(hipFree(dsum));
  HIP_CHECK(hipFree(d1));
  HIP_CHECK(hipFree(d2));
  pass("memcpy_paths");
  return 0;
}
