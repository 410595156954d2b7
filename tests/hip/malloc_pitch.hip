// malloc_pitch: hipMallocPitch and hipMalloc3D. HIP 5.2 implements both on ROCclr's image path:
// it refuses them with hipErrorInvalidValue ("Image is not supported on device") unless the
// device reports image support, and rounds each row up to the device's image pitch alignment
// (256 bytes in ROCclr). hsaemu's GPU agent advertises HSA_EXTENSION_IMAGES with its image
// limits, so this program requires:
//   - hipDeviceAttributeImageSupport == 1;
//   - both calls succeed, with pitches that are the row width rounded up to 256 bytes;
//   - a zero-sized request succeeds with a null pointer;
//   - data written with hipMemcpy2D / hipMemcpy3D, changed by a kernel that walks the pitched
//     rows and slices, copied pitched-to-pitched on the device (hipMemcpy2D, hipMemcpy3D) and
//     cleared with hipMemset2D, reads back exactly.
// It prints "image support: 1" and the pitches before "PASS malloc_pitch".
#include "hip_check.h"
#include <vector>

__global__ void add_coords(int *p, size_t pitch, size_t slice_rows, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x < nx && y < ny && z < nz) {
    int *row = (int *)((char *)p + (z * slice_rows + y) * pitch);
    row[x] += x + 100 * y + 10000 * z;
  }
}

static size_t round_up_256(size_t n) { return (n + 255) / 256 * 256; }

int main() {
  int images = -1;
  HIP_CHECK(hipDeviceGetAttribute(&images, hipDeviceAttributeImageSupport, 0));
  std::printf("image support: %d\n", images);
  CHECK(images == 1, "hipDeviceAttributeImageSupport = %d, want 1", images);
  const int nx = 21, ny = 9, nz = 4;
  const size_t row = nx * sizeof(int);
  std::vector<int> host(nx * ny * nz), back(nx * ny * nz, -1);
  for (size_t i = 0; i < host.size(); i++)
    host[i] = (int)(i * 7);

  // Zero-sized requests: success and a null pointer.
  void *z2 = &images;
  size_t zpitch = 0;
  HIP_CHECK(hipMallocPitch(&z2, &zpitch, 0, ny));
  CHECK(z2 == nullptr, "hipMallocPitch(width 0) gave %p", z2);

  // 2D: upload, kernel, download.
  void *p2 = nullptr;
  size_t pitch = 0;
  HIP_CHECK(hipMallocPitch(&p2, &pitch, row, ny));
  std::printf("hipMallocPitch pitch: %zu\n", pitch);
  CHECK(p2 != nullptr && pitch == round_up_256(row), "hipMallocPitch pitch %zu for rows of %zu bytes", pitch, row);
  HIP_CHECK(hipMemcpy2D(p2, pitch, host.data(), row, row, ny, hipMemcpyHostToDevice));
  hipLaunchKernelGGL(add_coords, dim3(1, (ny + 7) / 8, 1), dim3(32, 8), 0, 0, (int *)p2, pitch, (size_t)ny, nx, ny, 1);
  LAUNCH_CHECK();
  HIP_CHECK(hipMemcpy2D(back.data(), row, p2, pitch, row, ny, hipMemcpyDeviceToHost));
  for (int y = 0; y < ny; y++)
    for (int x = 0; x < nx; x++)
      CHECK(back[y * nx + x] == host[y * nx + x] + x + 100 * y, "2D (%d,%d) = %d", x, y, back[y * nx + x]);

  // 2D, wider rows than one alignment unit, pitched-to-pitched on the device, then a memset of
  // the first rows.
  const size_t wide = 300 * sizeof(int);
  void *q2 = nullptr;
  size_t qpitch = 0;
  HIP_CHECK(hipMallocPitch(&q2, &qpitch, wide, 3));
  CHECK(q2 != nullptr && qpitch == round_up_256(wide), "hipMallocPitch pitch %zu for rows of %zu bytes", qpitch, wide);
  HIP_CHECK(hipMemset2D(q2, qpitch, 0x7f, wide, 3));
  HIP_CHECK(hipMemcpy2D(q2, qpitch, p2, pitch, row, 3, hipMemcpyDeviceToDevice));
  HIP_CHECK(hipMemset2D(q2, qpitch, 0, row, 1));
  std::vector<int> wide_back(300 * 3, -1);
  HIP_CHECK(hipMemcpy2D(wide_back.data(), wide, q2, qpitch, wide, 3, hipMemcpyDeviceToHost));
  for (int y = 0; y < 3; y++)
    for (int x = 0; x < 300; x++) {
      int want = x >= nx ? 0x7f7f7f7f : y == 0 ? 0 : host[y * nx + x] + x + 100 * y;
      CHECK(wide_back[y * 300 + x] == want, "pitched D2D (%d,%d) = %d, want %d", x, y, wide_back[y * 300 + x], want);
    }

  // 3D: upload, kernel over every slice, download.
  hipPitchedPtr p3 = {};
  hipExtent ext = make_hipExtent(row, ny, nz);
  HIP_CHECK(hipMalloc3D(&p3, ext));
  std::printf("hipMalloc3D pitch: %zu\n", p3.pitch);
  CHECK(p3.ptr != nullptr && p3.pitch == round_up_256(row) && p3.xsize == row && p3.ysize == (size_t)ny,
        "hipMalloc3D pitch %zu xsize %zu ysize %zu", p3.pitch, p3.xsize, p3.ysize);
  hipMemcpy3DParms up = {};
  up.srcPtr = make_hipPitchedPtr(host.data(), row, nx, ny);
  up.dstPtr = p3;
  up.extent = ext;
  up.kind = hipMemcpyHostToDevice;
  HIP_CHECK(hipMemcpy3D(&up));
  hipLaunchKernelGGL(add_coords, dim3(1, (ny + 7) / 8, nz), dim3(32, 8), 0, 0, (int *)p3.ptr, p3.pitch, p3.ysize, nx, ny, nz);
  LAUNCH_CHECK();
  hipMemcpy3DParms down = {};
  down.srcPtr = p3;
  down.dstPtr = make_hipPitchedPtr(back.data(), row, nx, ny);
  down.extent = ext;
  down.kind = hipMemcpyDeviceToHost;
  HIP_CHECK(hipMemcpy3D(&down));
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++) {
        int i = (z * ny + y) * nx + x;
        CHECK(back[i] == host[i] + x + 100 * y + 10000 * z, "3D (%d,%d,%d) = %d", x, y, z, back[i]);
      }

  // 3D pitched-to-pitched on the device: copy slices 1..2 of p3 into a second 3D allocation.
  hipPitchedPtr r3 = {};
  HIP_CHECK(hipMalloc3D(&r3, make_hipExtent(row, ny, 2)));
  hipMemcpy3DParms d2d = {};
  d2d.srcPtr = p3;
  d2d.srcPos = make_hipPos(0, 0, 1);
  d2d.dstPtr = r3;
  d2d.extent = make_hipExtent(row, ny, 2);
  d2d.kind = hipMemcpyDeviceToDevice;
  HIP_CHECK(hipMemcpy3D(&d2d));
  std::vector<int> slices(nx * ny * 2, -1);
  hipMemcpy3DParms down2 = {};
  down2.srcPtr = r3;
  down2.dstPtr = make_hipPitchedPtr(slices.data(), row, nx, ny);
  down2.extent = make_hipExtent(row, ny, 2);
  down2.kind = hipMemcpyDeviceToHost;
  HIP_CHECK(hipMemcpy3D(&down2));
  for (int z = 0; z < 2; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++) {
        int i = ((z + 1) * ny + y) * nx + x;
        int got = slices[(z * ny + y) * nx + x];
        CHECK(got == host[i] + x + 100 * y + 10000 * (z + 1), "3D D2D (%d,%d,%d) = %d", x, y, z, got);
      }

  HIP_CHECK(hipFree(p2));
  HIP_CHECK(hipFree(q2));
  HIP_CHECK(hipFree(p3.ptr));
  HIP_CHECK(hipFree(r3.ptr));
  pass("malloc_pitch");
  return 0;
}
