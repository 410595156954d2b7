// dynamic_shared: extern __shared__ memory sized at launch, in 2D and 3D grids and blocks;
// every thread checks its built-in indices, and each block transposes a tile through LDS.
#include "hip_check.h"
#include <vector>

// 2D: each block loads a bx*by tile of `in` into dynamic LDS and writes it transposed.
__global__ void transpose2d(const int *in, int *out, int w, int h) {
  extern __shared__ int tile[]; // blockDim.x * blockDim.y ints
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int li = threadIdx.y * blockDim.x + threadIdx.x;
  tile[li] = (x < w && y < h) ? in[y * w + x] : -1;
  __syncthreads();
  // Read the element mirrored inside the block (reverse order) to force cross-lane LDS traffic.
  int mirrored = tile[blockDim.x * blockDim.y - 1 - li];
  if (x < w && y < h) {
    out[x * h + y] = tile[li];
    out[w * h + y * w + x] = mirrored;
  }
}

// 3D: each thread writes a code of its built-in indices; LDS is split into two dynamic regions.
__global__ void indices3d(int *out, int nx, int ny, int nz) {
  extern __shared__ int lds[];
  int threads = blockDim.x * blockDim.y * blockDim.z;
  int *a = lds, *b = lds + threads;
  int li = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  a[li] = li;
  b[li] = blockIdx.x + 10 * blockIdx.y + 100 * blockIdx.z;
  __syncthreads();
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    int other = (li + 1) % threads;
    out[(z * ny + y) * nx + x] = a[other] * 1000 + b[other] + (gridDim.x * 10000000 + gridDim.y * 1000000 + gridDim.z * 100000);
  }
}

int main() {
  // 2D
  const int w = 37, h = 29;
  dim3 b2(8, 4), g2((w + 7) / 8, (h + 3) / 4);
  std::vector<int> in(w * h), out(2 * w * h);
  for (int i = 0; i < w * h; i++)
    in[i] = i * 3 + 1;
  int *din, *dout;
  HIP_CHECK(hipMalloc(&din, in.size() * sizeof(int)));
  HIP_CHECK(hipMalloc(&dout, out.size() * sizeof(int)));
  HIP_CHECK(hipMemcpy(din, in.data(), in.size() * sizeof(int), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(transpose2d, g2, b2, b2.x * b2.y * sizeof(int), 0, din, dout, w, h);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(out.data(), dout, out.size() * sizeof(int), hipMemcpyDeviceToHost));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      CHECK(out[x * h + y] == in[y * w + x], "transpose (%d,%d) = %d, want %d", x, y, out[x * h + y], in[y * w + x]);
      int lx = x % b2.x, ly = y % b2.y, li = ly * b2.x + lx, mi = b2.x * b2.y - 1 - li;
      int mx = (x - lx) + mi % b2.x, my = (y - ly) + mi / b2.x;
      int want = (mx < w && my < h) ? in[my * w + mx] : -1;
      CHECK(out[w * h + y * w + x] == want, "mirror (%d,%d) = %d, want %d", x, y, out[w * h + y * w + x], want);
    }
  // 3D
  const int nx = 13, ny = 7, nz = 5;
  dim3 b3(4, 2, 3), g3((nx + 3) / 4, (ny + 1) / 2, (nz + 2) / 3);
  int threads = b3.x * b3.y * b3.z;
  int *d3;
  HIP_CHECK(hipMalloc(&d3, nx * ny * nz * sizeof(int)));
  hipLaunchKernelGGL(indices3d, g3, b3, 2 * threads * sizeof(int), 0, d3, nx, ny, nz);
  HIP_CHECK(hipGetLastError());
  std::vector<int> o3(nx * ny * nz);
  HIP_CHECK(hipMemcpy(o3.data(), d3, o3.size() * sizeof(int), hipMemcpyDeviceToHost));
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++) {
        int li = ((z % b3.z) * b3.y + (y % b3.y)) * b3.x + (x % b3.x);
        int other = (li + 1) % threads;
        int blk = x / b3.x + 10 * (y / b3.y) + 100 * (z / b3.z);
        int want = other * 1000 + blk + (g3.x * 10000000 + g3.y * 1000000 + g3.z * 100000);
        int got = o3[(z * ny + y) * nx + x];
        CHECK(got == want, "3D (%d,%d,%d) = %d, want %d", x, y, z, got, want);
      }
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(d3));
  pass("dynamic_shared");
  return 0;
}
