// memcpy2d_pitch: hipMemcpy2D host->device, device->device (between pitched allocations with
// different pitches), device->host, hipMemcpy2DAsync, hipMemset2D, and a kernel that walks a
// pitched allocation; sub-rectangle copies with odd byte widths. The pitched allocations come
// from hipMalloc (malloc_pitched in hip_check.h); hipMallocPitch is malloc_pitch.hip's subject.
#include "hip_check.h"
#include <cstring>
#include <vector>

__global__ void add_row_col(float *p, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float *row = (float *)((char *)p + y * pitch);
    row[x] += 1000.0f * y + x;
  }
}

int main() {
  const int w = 45, h = 23;
  size_t pitch_a = 0, pitch_b = 0;
  float *da, *db;
  malloc_pitched((void **)&da, &pitch_a, w * sizeof(float), h);
  malloc_pitched((void **)&db, &pitch_b, (w + 7) * sizeof(float) + 512, h + 2); // a different pitch
  CHECK(pitch_a >= w * sizeof(float) && pitch_a % 4 == 0, "pitch %zu for width %zu", pitch_a, w * sizeof(float));
  CHECK(pitch_b >= (w + 7) * sizeof(float), "pitch %zu", pitch_b);
  std::vector<float> host(w * h), back(w * h, -1.0f);
  for (int i = 0; i < w * h; i++)
    host[i] = (float)i * 0.5f;
  // Host (tightly packed) -> pitched device.
  HIP_CHECK(hipMemcpy2D(da, pitch_a, host.data(), w * sizeof(float), w * sizeof(float), h, hipMemcpyHostToDevice));
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  hipLaunchKernelGGL(add_row_col, grid, block, 0, 0, da, pitch_a, w, h);
  HIP_CHECK(hipGetLastError());
  // Device -> device into a larger pitched allocation at row 1, column 3.
  float *db_origin = (float *)((char *)db + pitch_b) + 3;
  HIP_CHECK(hipMemset2D(db, pitch_b, 0, (w + 7) * sizeof(float), h + 2));
  HIP_CHECK(hipMemcpy2D(db_origin, pitch_b, da, pitch_a, w * sizeof(float), h, hipMemcpyDeviceToDevice));
  // Device -> host from the copy.
  HIP_CHECK(hipMemcpy2D(back.data(), w * sizeof(float), db_origin, pitch_b, w * sizeof(float), h, hipMemcpyDeviceToHost));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float want = host[y * w + x] + 1000.0f * y + x;
      CHECK(back[y * w + x] == want, "(%d,%d) = %g, want %g", x, y, back[y * w + x], want);
    }
  // The zeroed border of db stayed zero: read the whole allocation back.
  std::vector<float> whole((w + 7) * (h + 2));
  HIP_CHECK(hipMemcpy2D(whole.data(), (w + 7) * sizeof(float), db, pitch_b, (w + 7) * sizeof(float), h + 2, hipMemcpyDeviceToHost));
  for (int y = 0; y < h + 2; y++)
    for (int x = 0; x < w + 7; x++) {
      bool inside = y >= 1 && y < h + 1 && x >= 3 && x < w + 3;
      if (!inside)
        CHECK(whole[y * (w + 7) + x] == 0.0f, "border (%d,%d) = %g", x, y, whole[y * (w + 7) + x]);
    }
  // Odd byte widths through an async copy: a 13-byte-wide, 9-row sub-rectangle of bytes.
  const int bw = 13, bh = 9, spitch = 50;
  std::vector<unsigned char> src(spitch * bh), dst(bw * bh, 0);
  for (size_t i = 0; i < src.size(); i++)
    src[i] = (unsigned char)(i * 7 + 3);
  unsigned char *dbytes;
  size_t pbytes;
  malloc_pitched((void **)&dbytes, &pbytes, bw, bh);
  hipStream_t s;
  HIP_CHECK(hipStreamCreate(&s));
  HIP_CHECK(hipMemcpy2DAsync(dbytes, pbytes, src.data() + 5, spitch, bw, bh, hipMemcpyHostToDevice, s));
  HIP_CHECK(hipMemcpy2DAsync(dst.data(), bw, dbytes, pbytes, bw, bh, hipMemcpyDeviceToHost, s));
  HIP_CHECK(hipStreamSynchronize(s));
  for (int y = 0; y < bh; y++)
    for (int x = 0; x < bw; x++)
      CHECK(dst[y * bw + x] == src[y * spitch + 5 + x], "byte (%d,%d) = %d, want %d", x, y, dst[y * bw + x], src[y * spitch + 5 + x]);
  HIP_CHECK(hipStreamDestroy(s));
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dbytes));
  pass("memcpy2d_pitch");
  return 0;
}
