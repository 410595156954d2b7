// memset_variants: hipMemset (byte pattern, unaligned start and odd lengths), hipMemsetD8,
// hipMemsetD16, hipMemsetD32, hipMemsetAsync, hipMemsetD32Async, hipMemset2D; checks every
// byte, including that bytes just outside each range are untouched; a kernel also checks the
// first fill on the device.
#include "hip_check.h"
#include <cstring>
#include <vector>

__global__ void count_equal(const unsigned char *p, size_t n, unsigned char value, unsigned *count) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && p[i] == value)
    atomicAdd(count, 1u);
}

static std::vector<unsigned char> read_back(const void *d, size_t n) {
  std::vector<unsigned char> v(n);
  HIP_CHECK(hipMemcpy(v.data(), d, n, hipMemcpyDeviceToHost));
  return v;
}

int main() {
  const size_t n = 10007;
  unsigned char *d;
  HIP_CHECK(hipMalloc(&d, n + 64));
  std::vector<unsigned char> want(n + 64, 0xee);
  HIP_CHECK(hipMemset(d, 0xee, n + 64));
  unsigned *dcount, count = 0;
  HIP_CHECK(hipMalloc(&dcount, sizeof(unsigned)));
  HIP_CHECK(hipMemset(dcount, 0, sizeof(unsigned)));
  hipLaunchKernelGGL(count_equal, dim3((n + 64 + 255) / 256), dim3(256), 0, 0, d, n + 64, (unsigned char)0xee, dcount);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(&count, dcount, sizeof(unsigned), hipMemcpyDeviceToHost));
  CHECK(count == n + 64, "kernel counted %u bytes of 0xee, want %zu", count, n + 64);
  HIP_CHECK(hipFree(dcount));

  // Unaligned offsets and odd lengths. HIP 5.2 splits a byte memset at the next 8-byte boundary
  // and mishandles a range that ends before it (hipMemset(d + 1, v, 1) fills 7 bytes and then
  // launches a fill of 2^61 - 1 words: a host-side bug of ROCm 5.2, fixed later), so every range
  // here reaches that boundary; {3, 5} ends exactly on it.
  const size_t ranges[][2] = {{1, 9}, {3, 5}, {17, 1000}, {1029, 4097}, {6001, 11}, {6100, 3333}};
  int value = 1;
  for (auto &r : ranges) {
    HIP_CHECK(hipMemset(d + r[0], value, r[1]));
    std::memset(want.data() + r[0], value, r[1]);
    value += 0x11;
  }
  auto got = read_back(d, n + 64);
  for (size_t i = 0; i < got.size(); i++)
    CHECK(got[i] == want[i], "hipMemset byte %zu = %#x, want %#x", i, got[i], want[i]);

  // D8 / D16 / D32.
  HIP_CHECK(hipMemsetD8((hipDeviceptr_t)(d + 5), 0x5a, 77));
  std::memset(want.data() + 5, 0x5a, 77);
  HIP_CHECK(hipMemsetD16((hipDeviceptr_t)(d + 200), 0xbeef, 301));
  for (int i = 0; i < 301; i++) {
    want[200 + 2 * i] = 0xef;
    want[200 + 2 * i + 1] = 0xbe;
  }
  HIP_CHECK(hipMemsetD32((hipDeviceptr_t)(d + 2000), 0x12345678, 999));
  for (int i = 0; i < 999; i++) {
    want[2000 + 4 * i] = 0x78;
    want[2000 + 4 * i + 1] = 0x56;
    want[2000 + 4 * i + 2] = 0x34;
    want[2000 + 4 * i + 3] = 0x12;
  }
  got = read_back(d, n + 64);
  for (size_t i = 0; i < got.size(); i++)
    CHECK(got[i] == want[i], "D8/D16/D32 byte %zu = %#x, want %#x", i, got[i], want[i]);

  // Async variants on a stream.
  hipStream_t s;
  HIP_CHECK(hipStreamCreate(&s));
  HIP_CHECK(hipMemsetAsync(d + 7000, 0x77, 2000, s));
  HIP_CHECK(hipMemsetD32Async((hipDeviceptr_t)(d + 9004), (int)0xa5a5a5a5u, 200, s));
  HIP_CHECK(hipStreamSynchronize(s));
  std::memset(want.data() + 7000, 0x77, 2000);
  std::memset(want.data() + 9004, 0xa5, 800);
  got = read_back(d, n + 64);
  for (size_t i = 0; i < got.size(); i++)
    CHECK(got[i] == want[i], "async byte %zu = %#x, want %#x", i, got[i], want[i]);

  // hipMemset2D on a pitched allocation: only the width of each row changes.
  size_t pitch;
  unsigned char *p2;
  const int w = 70, h = 9;
  malloc_pitched((void **)&p2, &pitch, w, h);
  HIP_CHECK(hipMemset(p2, 0x01, pitch * h));
  HIP_CHECK(hipMemset2D(p2 + 3, pitch, 0x9c, w - 10, h - 2));
  auto g2 = read_back(p2, pitch * h);
  for (int y = 0; y < h; y++)
    for (size_t x = 0; x < pitch; x++) {
      bool inside = y < h - 2 && x >= 3 && x < 3 + (size_t)(w - 10);
      unsigned char wv = inside ? 0x9c : 0x01;
      CHECK(g2[y * pitch + x] == wv, "memset2D (%zu,%d) = %#x, want %#x", x, y, g2[y * pitch + x], wv);
    }
  HIP_CHECK(hipStreamDestroy(s));
  HIP_CHECK(hipFree(d));
  HIP_CHECK(hipFree(p2));
  pass("memset_variants");
  return 0;
}
