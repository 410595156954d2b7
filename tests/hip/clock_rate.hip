// clock_rate: clock64() and wall_clock64() against the rates HIP reports (issue 19).
// clock64() reads s_memtime, which ticks at hipDeviceAttributeClockRate (kHz);
// wall_clock64() reads s_memrealtime, which ticks at a constant 100 MHz on these GPUs (what
// later HIP releases report as hipDeviceAttributeWallClockRate; HIP 5.2 has no query for it). So a kernel that waits N seconds by either counter
// waits N seconds of host time. Checked: the two counters agree over a spin of ~0.3 s, both
// fit inside the host's interval around the launch, a wait by clock64() takes its time (not
// 17 times longer), each wave's readings never decrease, and readings are consistent across
// waves and dispatches (every reading of a later dispatch is >= every reading of an earlier
// one). Bounds are generous: the machine may be loaded, and the emulator only promises that
// the counters follow host time at those rates.
#include "hip_check.h"

#include <chrono>
#include <climits>
#include <vector>
#include <algorithm>

// wall_clock64() is declared for the device pass only in HIP 5.2's headers.
__device__ static inline long long wall_now() {
#if defined(__HIP_DEVICE_COMPILE__)
  return wall_clock64();
#else
  return 0;
#endif
}

struct Stamps {
  long long c0, w0, c1, w1;
};

// Spins until wall_clock64() has advanced by `ticks`, recording both counters around the spin.
__global__ void spin_wall(long long ticks, Stamps *s) {
  long long c0 = clock64(), w0 = wall_now();
  while (wall_now() - w0 < ticks) {
  }
  long long w1 = wall_now(), c1 = clock64();
  *s = {c0, w0, c1, w1};
}

// Waits `cycles` shader clocks, the way HIP's own tests wait (clock64() / clockRate).
__global__ void spin_clock(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

constexpr int SAMPLES = 64;

// Each wave (one lane per wave writes) samples both counters SAMPLES times.
__global__ void sample(long long *clk, long long *wall, int *bad) {
  int wave = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  bool leader = threadIdx.x % warpSize == 0;
  long long pc = clock64(), pw = wall_now();
  long long first_c = pc, first_w = pw;
  for (int i = 0; i < SAMPLES; i++) {
    long long c = clock64(), w = wall_now();
    if (c < pc || w < pw)
      atomicAdd(bad, 1);
    pc = c;
    pw = w;
  }
  if (leader) {
    clk[2 * wave] = first_c;
    clk[2 * wave + 1] = pc;
    wall[2 * wave] = first_w;
    wall[2 * wave + 1] = pw;
  }
}

static double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int main() {
  int clock_khz = 0;
  const int wall_khz = 100000;
  HIP_CHECK(hipDeviceGetAttribute(&clock_khz, hipDeviceAttributeClockRate, 0));
  std::printf("clockRate %d kHz, wall clock %d kHz\n", clock_khz, wall_khz);
  CHECK(clock_khz > 0, "clockRate %d", clock_khz);

  Stamps *s = nullptr;
  HIP_CHECK(hipMalloc(&s, sizeof(Stamps)));
  // Warm-up: loads the code object, so the timed launches below measure the kernels.
  hipLaunchKernelGGL(spin_wall, dim3(1), dim3(1), 0, 0, 1LL, s);
  LAUNCH_CHECK();

  // 1. Spin 0.3 s by wall_clock64(); clock64() must have advanced by the same time.
  const double spin = 0.3;
  auto t0 = std::chrono::steady_clock::now();
  hipLaunchKernelGGL(spin_wall, dim3(1), dim3(1), 0, 0, (long long)(spin * wall_khz * 1000.0), s);
  LAUNCH_CHECK();
  double host = seconds_since(t0);
  Stamps h;
  HIP_CHECK(hipMemcpy(&h, s, sizeof h, hipMemcpyDeviceToHost));
  double by_wall = double(h.w1 - h.w0) / (wall_khz * 1000.0);
  double by_clock = double(h.c1 - h.c0) / (clock_khz * 1000.0);
  std::printf("spin: host %.3f s, wall_clock64 %.3f s, clock64 %.3f s\n", host, by_wall, by_clock);
  CHECK(by_wall >= spin && by_wall <= host + 0.01, "wall_clock64 interval %.3f s, host %.3f s",
        by_wall, host);
  CHECK(by_clock >= 0.8 * by_wall && by_clock <= 1.5 * by_wall && by_clock <= host + 0.01,
        "clock64 says %.3f s where wall_clock64 says %.3f s (host %.3f s)", by_clock, by_wall,
        host);

  // 2. A wait of 0.5 s by clock64() / clockRate takes about 0.5 s (the bug made it 8.5 s).
  t0 = std::chrono::steady_clock::now();
  hipLaunchKernelGGL(spin_clock, dim3(1), dim3(1), 0, 0, (long long)(0.5 * clock_khz * 1000.0));
  LAUNCH_CHECK();
  host = seconds_since(t0);
  std::printf("wait of 0.5 s by clock64(): host %.3f s\n", host);
  CHECK(host >= 0.5 && host < 6.0, "a 0.5 s wait by clock64() took %.3f s", host);

  // 3. Monotonic per wave, consistent across waves and dispatches.
  const int blocks = 8, threads = 128;
  int waves = blocks * threads / 32;  // upper bound for wave32 too
  long long *clk = nullptr, *wall = nullptr;
  int *bad = nullptr;
  HIP_CHECK(hipMalloc(&clk, 2 * 2 * waves * sizeof(long long)));
  HIP_CHECK(hipMalloc(&wall, 2 * 2 * waves * sizeof(long long)));
  HIP_CHECK(hipMalloc(&bad, sizeof(int)));
  HIP_CHECK(hipMemset(clk, 0, 2 * 2 * waves * sizeof(long long)));
  HIP_CHECK(hipMemset(wall, 0, 2 * 2 * waves * sizeof(long long)));
  HIP_CHECK(hipMemset(bad, 0, sizeof(int)));
  hipLaunchKernelGGL(sample, dim3(blocks), dim3(threads), 0, 0, clk, wall, bad);
  LAUNCH_CHECK();
  hipLaunchKernelGGL(sample, dim3(blocks), dim3(threads), 0, 0, clk + 2 * waves,
                     wall + 2 * waves, bad);
  LAUNCH_CHECK();
  int warp = 0;
  HIP_CHECK(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, 0));
  int used = blocks * threads / warp;
  std::vector<long long> c(4 * waves), w(4 * waves);
  HIP_CHECK(hipMemcpy(c.data(), clk, c.size() * sizeof(long long), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(w.data(), wall, w.size() * sizeof(long long), hipMemcpyDeviceToHost));
  int nbad = 0;
  HIP_CHECK(hipMemcpy(&nbad, bad, sizeof nbad, hipMemcpyDeviceToHost));
  CHECK(nbad == 0, "%d readings went backwards within a wave", nbad);
  long long max_c1 = 0, max_w1 = 0, min_c2 = LLONG_MAX, min_w2 = LLONG_MAX;
  for (int k = 0; k < used; k++) {
    CHECK(c[2 * k] > 0 && c[2 * k + 1] >= c[2 * k], "wave %d clock %lld..%lld", k, c[2 * k],
          c[2 * k + 1]);
    max_c1 = std::max(max_c1, c[2 * k + 1]);
    max_w1 = std::max(max_w1, w[2 * k + 1]);
    min_c2 = std::min(min_c2, c[2 * waves + 2 * k]);
    min_w2 = std::min(min_w2, w[2 * waves + 2 * k]);
  }
  CHECK(min_c2 >= max_c1, "second dispatch's clock64 %lld < first's %lld", min_c2, max_c1);
  CHECK(min_w2 >= max_w1, "second dispatch's wall_clock64 %lld < first's %lld", min_w2, max_w1);

  HIP_CHECK(hipFree(s));
  HIP_CHECK(hipFree(clk));
  HIP_CHECK(hipFree(wall));
  HIP_CHECK(hipFree(bad));
  pass("clock_rate");
  return 0;
}
