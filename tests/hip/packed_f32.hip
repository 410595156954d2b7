// packed_f32: float2 arithmetic with constants, which clang compiles for gfx90a to the packed
// f32 instructions with inline constants (`v_pk_add_f32 v[0:1], v[0:1], -1.0 op_sel_hi:[1,0]`).
// An inline float constant of a packed f32 operand is the f32 encoding in the low dword, so
// both lanes add -1.0 (issue 19: HIP 5.2.3's Unit_vectorTypes_CompileTest found the emulator
// reading the f64 encoding, whose low dword is 0, making `f--` on a float2 a no-op). The
// expected values are C's: each component changes by exactly 1.
#include "hip_check.h"

__global__ void shared_float2(int *out) {
  __shared__ float2 f1, f2;
  int r = 0, bit = 0;
  f1 = float2{2};
  f2 = f1++;
  r |= (!(f1 == float2{3} && f2 == float2{2})) << bit++;
  f2 = f1--;
  r |= (!(f2 == float2{3} && f1 == float2{2})) << bit++;
  f2 = ++f1;
  r |= (!(f1 == float2{3} && f2 == float2{3})) << bit++;
  f2 = --f1;
  r |= (!(f1 == float2{2} && f2 == float2{2})) << bit++;
  *out = r;
}

// Per-lane data, so the arithmetic cannot be folded: every constant the inline-constant table
// holds, added, multiplied and fused with each component.
__global__ void global_float2(const float2 *in, float2 *out) {
  int i = threadIdx.x;
  float2 v = in[i];
  out[8 * i + 0] = v + float2{-1.0f, -1.0f};
  out[8 * i + 1] = v + float2{0.5f, 0.5f};
  out[8 * i + 2] = v * float2{2.0f, 2.0f};
  out[8 * i + 3] = v * float2{-4.0f, -4.0f};
  out[8 * i + 4] = v * float2{-0.5f, -0.5f} + float2{1.0f, 1.0f};
  out[8 * i + 5] = v + float2{4.0f, 4.0f};
  out[8 * i + 6] = v * float2{v.y, v.x} + float2{-2.0f, -2.0f};
  out[8 * i + 7] = v + float2{1.0f, 2.0f};
}

int main() {
  int *d = nullptr;
  HIP_CHECK(hipMalloc(&d, sizeof(int)));
  hipLaunchKernelGGL(shared_float2, dim3(1), dim3(1), 0, 0, d);
  LAUNCH_CHECK();
  int bits = -1;
  HIP_CHECK(hipMemcpy(&bits, d, sizeof bits, hipMemcpyDeviceToHost));
  CHECK(bits == 0, "float2 ++/-- in LDS: failed checks %#x (bit 1: f1--, bit 3: --f1)", bits);

  const int n = 64;
  float2 in[n], out[8 * n];
  for (int i = 0; i < n; i++)
    in[i] = float2{0.25f * i - 3.0f, 7.0f - 0.5f * i};
  float2 *din = nullptr, *dout = nullptr;
  HIP_CHECK(hipMalloc(&din, sizeof in));
  HIP_CHECK(hipMalloc(&dout, sizeof out));
  HIP_CHECK(hipMemcpy(din, in, sizeof in, hipMemcpyHostToDevice));
  hipLaunchKernelGGL(global_float2, dim3(1), dim3(n), 0, 0, din, dout);
  LAUNCH_CHECK();
  HIP_CHECK(hipMemcpy(out, dout, sizeof out, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    float x = in[i].x, y = in[i].y;
    float want[8][2] = {{x - 1.0f, y - 1.0f},       {x + 0.5f, y + 0.5f},
                        {x * 2.0f, y * 2.0f},       {x * -4.0f, y * -4.0f},
                        {std::fma(x, -0.5f, 1.0f), std::fma(y, -0.5f, 1.0f)},
                        {x + 4.0f, y + 4.0f},       {std::fma(x, y, -2.0f), std::fma(y, x, -2.0f)},
                        {x + 1.0f, y + 2.0f}};
    for (int k = 0; k < 8; k++) {
      float2 g = out[8 * i + k];
      // Unfused mul+add would differ from fma in the last bit; allow either.
      bool ok = close_enough(g.x, want[k][0], 1e-6, 0) && close_enough(g.y, want[k][1], 1e-6, 0);
      CHECK(ok, "lane %d case %d: (%.9g, %.9g), want (%.9g, %.9g)", i, k, g.x, g.y, want[k][0],
            want[k][1]);
    }
  }
  HIP_CHECK(hipFree(d));
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  pass("packed_f32");
  return 0;
}
