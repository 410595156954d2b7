// blit_bandwidth: hipMemset and hipMemcpyDtoD of 256 MiB, which HIP runs as ROCclr's blit
// kernels (__amd_rocclr_fillBufferAligned, __amd_rocclr_copyBufferAligned / copyBuffer) on the
// device. Every byte of the results is checked, plus the edges of unaligned fills and copies
// (the bytes just outside each range keep their old values). Prints the bandwidth of the two
// 256 MiB operations; the test asserts only correctness (the figures go in the README; see
// docs/architecture-emu.md, "Native blits").
//
// Under hsaemu's --check (HSAEMU_CHECK set: tests/it/hip.rs runs every program so on gfx90a)
// the blits are interpreted with every store checked, about 2 minutes for 256 MiB, so the
// program then moves 16 MiB, as it does with HSAEMU_JIT=0 (no native blits; tests/it/hip.rs
// runs every program so to compare with the compiling tier).
#include "hip_check.h"
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

static size_t kSize = 256u << 20;
constexpr size_t kGuard = 64;

static double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

static unsigned char pattern_byte(size_t i) { return (unsigned char)((i * 2654435761u) >> 13); }

// The bytes [0, n) of `got` equal `want` repeated; reports the first difference.
static void check_fill(const std::vector<unsigned char> &got, size_t from, size_t n, unsigned char want,
                       const char *what) {
  for (size_t i = from; i < from + n; i++)
    CHECK(got[i] == want, "%s: byte %zu is 0x%02x, want 0x%02x", what, i, got[i], want);
}

// Counts the guard bytes around [kGuard, kGuard + n) of `p` that differ from `want`: the guards
// checked on the device too, through the kernels' view of the same memory.
__global__ void count_guard_mismatches(const unsigned char *p, size_t n, unsigned char want, int *bad) {
  size_t i = threadIdx.x;
  if (i < kGuard && p[i] != want)
    atomicAdd(bad, 1);
  if (i < kGuard && p[kGuard + n + i] != want)
    atomicAdd(bad, 1);
}

int main() {
  const char *checking = std::getenv("HSAEMU_CHECK");
  const char *jit = std::getenv("HSAEMU_JIT");  // "0": the blits are interpreted (25 s for 256 MiB)
  if ((checking && *checking) || (jit && std::strcmp(jit, "0") == 0))
    kSize = 16u << 20;
  unsigned char *a, *b;
  HIP_CHECK(hipMalloc(&a, kSize + 2 * kGuard));
  HIP_CHECK(hipMalloc(&b, kSize + 2 * kGuard));
  std::vector<unsigned char> host(kSize + 2 * kGuard);

  // Guards around the 256 MiB range: 0x11 in a, 0x22 in b.
  HIP_CHECK(hipMemset(a, 0x11, kSize + 2 * kGuard));
  HIP_CHECK(hipMemset(b, 0x22, kSize + 2 * kGuard));
  HIP_CHECK(hipDeviceSynchronize());

  // 1. hipMemset of 256 MiB.
  auto t0 = std::chrono::steady_clock::now();
  HIP_CHECK(hipMemset(a + kGuard, 0x5a, kSize));
  HIP_CHECK(hipDeviceSynchronize());
  double memset_s = seconds_since(t0);
  HIP_CHECK(hipMemcpy(host.data(), a, host.size(), hipMemcpyDeviceToHost));
  check_fill(host, 0, kGuard, 0x11, "memset: guard before");
  check_fill(host, kGuard, kSize, 0x5a, "memset");
  check_fill(host, kGuard + kSize, kGuard, 0x11, "memset: guard after");

  // 2. hipMemcpyDtoD of 256 MiB from a source holding a non-repeating pattern.
  for (size_t i = 0; i < kSize; i++)
    host[kGuard + i] = pattern_byte(i);
  HIP_CHECK(hipMemcpy(a + kGuard, host.data() + kGuard, kSize, hipMemcpyHostToDevice));
  t0 = std::chrono::steady_clock::now();
  HIP_CHECK(hipMemcpyDtoD(b + kGuard, a + kGuard, kSize));
  HIP_CHECK(hipDeviceSynchronize());
  double copy_s = seconds_since(t0);
  std::fill(host.begin(), host.end(), 0);
  HIP_CHECK(hipMemcpy(host.data(), b, host.size(), hipMemcpyDeviceToHost));
  check_fill(host, 0, kGuard, 0x22, "copy: guard before");
  for (size_t i = 0; i < kSize; i++)
    CHECK(host[kGuard + i] == pattern_byte(i), "copy: byte %zu is 0x%02x, want 0x%02x", i, host[kGuard + i],
          pattern_byte(i));
  check_fill(host, kGuard + kSize, kGuard, 0x22, "copy: guard after");
  int *bad, nbad = -1;
  HIP_CHECK(hipMalloc(&bad, sizeof(int)));
  HIP_CHECK(hipMemset(bad, 0, sizeof(int)));
  hipLaunchKernelGGL(count_guard_mismatches, dim3(1), dim3(kGuard), 0, 0, b, kSize, (unsigned char)0x22, bad);
  LAUNCH_CHECK();
  HIP_CHECK(hipMemcpy(&nbad, bad, sizeof(int), hipMemcpyDeviceToHost));
  CHECK(nbad == 0, "copy: %d guard bytes changed, seen from the device", nbad);
  HIP_CHECK(hipFree(bad));

  // 3. Edges: unaligned fills and copies of small and odd sizes (the byte-wise kernels and the
  // tail of the dword copy), each checked against a host model of the whole guarded buffer.
  const size_t kEdge = 1 << 16;
  std::vector<unsigned char> model(kEdge), got(kEdge);
  for (size_t i = 0; i < kEdge; i++)
    model[i] = pattern_byte(i + 7);
  HIP_CHECK(hipMemcpy(b, model.data(), kEdge, hipMemcpyHostToDevice));
  struct Fill {
    size_t offset, n;
    unsigned char v;
  } fills[] = {{1, 9}, {3, 5}, {8, 8}, {16, 1000}, {1001, 3003}, {6001, 11}, {20000, 40000}};
  for (const Fill &f : fills) {
    HIP_CHECK(hipMemset(b + f.offset, f.v ^ (unsigned char)f.offset, f.n));
    std::memset(model.data() + f.offset, f.v ^ (unsigned char)f.offset, f.n);
  }
  HIP_CHECK(hipMemsetD32((hipDeviceptr_t)(b + 60004), 0xdeadbeefu, 7));
  for (size_t i = 0; i < 7; i++) {
    unsigned v = 0xdeadbeefu;
    std::memcpy(model.data() + 60004 + 4 * i, &v, 4);
  }
  HIP_CHECK(hipMemsetD16((hipDeviceptr_t)(b + 60200), 0xbeef, 9));
  for (size_t i = 0; i < 9; i++) {
    unsigned short v = 0xbeef;
    std::memcpy(model.data() + 60200 + 2 * i, &v, 2);
  }
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(got.data(), b, kEdge, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < kEdge; i++)
    CHECK(got[i] == model[i], "unaligned fills: byte %zu is 0x%02x, want 0x%02x", i, got[i], model[i]);

  // Unaligned device-to-device copies from a's pattern into b (odd offsets and sizes: the
  // byte kernel, the dword kernel with its 1-3 byte tail, the aligned kernels).
  struct Copy {
    size_t src, dst, n;
  } copies[] = {{0, 0, 1}, {1, 2, 3}, {3, 7, 13}, {4, 4, 4096}, {5, 1029, 5000}, {16, 32, 8192}, {7, 40001, 9999}};
  for (const Copy &c : copies) {
    HIP_CHECK(hipMemcpyDtoD(b + c.dst, a + kGuard + c.src, c.n));
    for (size_t i = 0; i < c.n; i++)
      model[c.dst + i] = pattern_byte(c.src + i);
  }
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(got.data(), b, kEdge, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < kEdge; i++)
    CHECK(got[i] == model[i], "unaligned copies: byte %zu is 0x%02x, want 0x%02x", i, got[i], model[i]);

  double gb = (double)kSize / 1e9;
  std::printf("hipMemset %zu MiB: %.3f s, %.2f GB/s\n", kSize >> 20, memset_s, gb / memset_s);
  std::printf("hipMemcpyDtoD %zu MiB: %.3f s, %.2f GB/s\n", kSize >> 20, copy_s, gb / copy_s);
  HIP_CHECK(hipFree(a));
  HIP_CHECK(hipFree(b));
  pass("blit_bandwidth");
  return 0;
}
