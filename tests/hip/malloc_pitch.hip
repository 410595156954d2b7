// malloc_pitch: hipMallocPitch and hipMalloc3D. HIP 5.2 implements both on its image path and
// refuses them with hipErrorInvalidValue ("Image is not supported on device") when the device
// reports no image support (hipDeviceAttributeImageSupport == 0, i.e. the HSA agent does not
// advertise HSA_EXTENSION_IMAGES). So this program checks whichever behaviour the device's
// image support calls for:
//   - without images: both calls fail with hipErrorInvalidValue, and HIP stays usable;
//   - with images: the pitches are at least the row width, and a kernel walks the pitched
//     allocations, written and read back with hipMemcpy2D / hipMemcpy3D.
// It prints "image support: <0|1>" before "PASS malloc_pitch".
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

int main() {
  int images = -1;
  HIP_CHECK(hipDeviceGetAttribute(&images, hipDeviceAttributeImageSupport, 0));
  std::printf("image support: %d\n", images);
  const int nx = 21, ny = 9, nz = 4;
  void *p2 = nullptr;
  size_t pitch = 0;
  hipPitchedPtr p3 = {};
  hipExtent ext = make_hipExtent(nx * sizeof(int), ny, nz);
  if (images == 0) {
    hipError_t e = hipMallocPitch(&p2, &pitch, nx * sizeof(int), ny);
    CHECK(e == hipErrorInvalidValue, "hipMallocPitch without image support returned %s", hipGetErrorName(e));
    (void)hipGetLastError();
    e = hipMalloc3D(&p3, ext);
    CHECK(e == hipErrorInvalidValue, "hipMalloc3D without image support returned %s", hipGetErrorName(e));
    (void)hipGetLastError();
    int *d;
    HIP_CHECK(hipMalloc(&d, nx * sizeof(int)));
    HIP_CHECK(hipMemset(d, 0, nx * sizeof(int)));
    hipLaunchKernelGGL(add_coords, dim3(1, 1, 1), dim3(32, 1), 0, 0, d, nx * sizeof(int), 1, nx, 1, 1);
    LAUNCH_CHECK();
    int h[nx];
    HIP_CHECK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
    for (int x = 0; x < nx; x++)
      CHECK(h[x] == x, "after the refused allocations, element %d = %d", x, h[x]);
    HIP_CHECK(hipFree(d));
    pass("malloc_pitch");
    return 0;
  }
  CHECK(images == 1, "hipDeviceAttributeImageSupport = %d", images);
  // 2D
  HIP_CHECK(hipMallocPitch(&p2, &pitch, nx * sizeof(int), ny));
  CHECK(p2 != nullptr && pitch >= nx * sizeof(int), "hipMallocPitch pitch %zu", pitch);
  std::vector<int> host(nx * ny * nz), back(nx * ny * nz, -1);
  for (size_t i = 0; i < host.size(); i++)
    host[i] = (int)(i * 7);
  HIP_CHECK(hipMemcpy2D(p2, pitch, host.data(), nx * sizeof(int), nx * sizeof(int), ny, hipMemcpyHostToDevice));
  hipLaunchKernelGGL(add_coords, dim3(1, (ny + 7) / 8, 1), dim3(32, 8), 0, 0, (int *)p2, pitch, (size_t)ny, nx, ny, 1);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy2D(back.data(), nx * sizeof(int), p2, pitch, nx * sizeof(int), ny, hipMemcpyDeviceToHost));
  for (int y = 0; y < ny; y++)
    for (int x = 0; x < nx; x++)
      CHECK(back[y * nx + x] == host[y * nx + x] + x + 100 * y, "2D (%d,%d) = %d", x, y, back[y * nx + x]);
  // 3D
  HIP_CHECK(hipMalloc3D(&p3, ext));
  CHECK(p3.ptr != nullptr && p3.pitch >= nx * sizeof(int) && p3.ysize == (size_t)ny, "hipMalloc3D pitch %zu ysize %zu",
        p3.pitch, p3.ysize);
  hipMemcpy3DParms up = {};
  up.srcPtr = make_hipPitchedPtr(host.data(), nx * sizeof(int), nx, ny);
  up.dstPtr = p3;
  up.extent = ext;
  up.kind = hipMemcpyHostToDevice;
  HIP_CHECK(hipMemcpy3D(&up));
  hipLaunchKernelGGL(add_coords, dim3(1, (ny + 7) / 8, nz), dim3(32, 8), 0, 0, (int *)p3.ptr, p3.pitch, p3.ysize, nx, ny, nz);
  HIP_CHECK(hipGetLastError());
  hipMemcpy3DParms down = {};
  down.srcPtr = p3;
  down.dstPtr = make_hipPitchedPtr(back.data(), nx * sizeof(int), nx, ny);
  down.extent = ext;
  down.kind = hipMemcpyDeviceToHost;
  HIP_CHECK(hipMemcpy3D(&down));
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++) {
        int i = (z * ny + y) * nx + x;
        CHECK(back[i] == host[i] + x + 100 * y + 10000 * z, "3D (%d,%d,%d) = %d", x, y, z, back[i]);
      }
  HIP_CHECK(hipFree(p2));
  HIP_CHECK(hipFree(p3.ptr));
  pass("malloc_pitch");
  return 0;
}
