// memcpy3d: hipMemcpy3D host->device, device->device with offsets (a sub-box), device->host,
// hipMemset3D, and a kernel indexing a pitched volume. The volumes are pitched allocations made
// with hipMalloc (see malloc_pitched in hip_check.h); hipMalloc3D is malloc_pitch.hip's subject.
#include "hip_check.h"
#include <vector>

__global__ void bump(hipPitchedPtr p, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    char *slice = (char *)p.ptr + z * p.pitch * p.ysize;
    int *row = (int *)(slice + y * p.pitch);
    row[x] = row[x] * 2 + 1;
  }
}

int main() {
  const int nx = 19, ny = 11, nz = 6;
  hipExtent ext = make_hipExtent(nx * sizeof(int), ny, nz);
  hipPitchedPtr dvol, dcopy;
  size_t pitch_vol, pitch_copy;
  void *pvol, *pcopy;
  malloc_pitched(&pvol, &pitch_vol, nx * sizeof(int), ny * nz);
  malloc_pitched(&pcopy, &pitch_copy, nx * sizeof(int) + 300, ny * nz); // a different pitch
  dvol = make_hipPitchedPtr(pvol, pitch_vol, nx * sizeof(int), ny);
  dcopy = make_hipPitchedPtr(pcopy, pitch_copy, nx * sizeof(int), ny);
  CHECK(dvol.pitch >= nx * sizeof(int) && dvol.ptr != nullptr, "pitch %zu", dvol.pitch);
  std::vector<int> host(nx * ny * nz), back(nx * ny * nz, -7);
  for (size_t i = 0; i < host.size(); i++)
    host[i] = (int)(i * 13 % 1009);

  hipMemcpy3DParms up = {};
  up.srcPtr = make_hipPitchedPtr(host.data(), nx * sizeof(int), nx, ny);
  up.dstPtr = dvol;
  up.extent = ext;
  up.kind = hipMemcpyHostToDevice;
  HIP_CHECK(hipMemcpy3D(&up));
  dim3 block(8, 4, 2), grid((nx + 7) / 8, (ny + 3) / 4, (nz + 1) / 2);
  hipLaunchKernelGGL(bump, grid, block, 0, 0, dvol, nx, ny, nz);
  HIP_CHECK(hipGetLastError());

  // Device -> device: zero the destination, then copy a sub-box (offset 2,3,1; size 10x5x4).
  HIP_CHECK(hipMemset3D(dcopy, 0, ext));
  const int ox = 2, oy = 3, oz = 1, sx = 10, sy = 5, sz = 4;
  hipMemcpy3DParms d2d = {};
  d2d.srcPtr = dvol;
  d2d.srcPos = make_hipPos(ox * sizeof(int), oy, oz);
  d2d.dstPtr = dcopy;
  d2d.dstPos = make_hipPos(ox * sizeof(int), oy, oz);
  d2d.extent = make_hipExtent(sx * sizeof(int), sy, sz);
  d2d.kind = hipMemcpyDeviceToDevice;
  HIP_CHECK(hipMemcpy3D(&d2d));

  hipMemcpy3DParms down = {};
  down.srcPtr = dcopy;
  down.dstPtr = make_hipPitchedPtr(back.data(), nx * sizeof(int), nx, ny);
  down.extent = ext;
  down.kind = hipMemcpyDeviceToHost;
  HIP_CHECK(hipMemcpy3D(&down));
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++) {
        size_t i = (size_t)(z * ny + y) * nx + x;
        bool in_box = x >= ox && x < ox + sx && y >= oy && y < oy + sy && z >= oz && z < oz + sz;
        int want = in_box ? host[i] * 2 + 1 : 0;
        CHECK(back[i] == want, "(%d,%d,%d) = %d, want %d", x, y, z, back[i], want);
      }
  HIP_CHECK(hipFree(dvol.ptr));
  HIP_CHECK(hipFree(dcopy.ptr));
  pass("memcpy3d");
  return 0;
}
