// texture_object: HIP texture objects over a CUDA-style array (hipMallocArray +
// hipMemcpy2DToArray), read with tex2D<float4> under point and linear filtering, unnormalized
// and normalized coordinates, clamp and wrap addressing; a 3D array (hipMalloc3DArray +
// hipMemcpy3D) read with tex3D; and hipMemcpy2DFromArray reading the array back. Expected
// values are computed on the host from the definitions (texel centres at i + 0.5, linear
// weights with 8 fraction bits as the texture unit uses, so the checks allow 1/256 of a texel
// step). Prints "PASS texture_object".
#include "hip_check.h"
#include <vector>

__global__ void fetch2d(hipTextureObject_t t, const float2 *c, float4 *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex2D<float4>(t, c[i].x, c[i].y);
}

__global__ void fetch3d(hipTextureObject_t t, const float4 *c, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex3D<float>(t, c[i].x, c[i].y, c[i].z);
}

static const int W = 8, H = 6;

static float4 texel(const std::vector<float4> &img, int x, int y, bool wrap) {
  if (wrap) {
    x = ((x % W) + W) % W;
    y = ((y % H) + H) % H;
  } else {
    x = x < 0 ? 0 : x >= W ? W - 1 : x;
    y = y < 0 ? 0 : y >= H ? H - 1 : y;
  }
  return img[y * W + x];
}

static hipTextureObject_t make_tex(hipArray_t a, hipTextureFilterMode f, hipTextureAddressMode m, int normalized) {
  hipResourceDesc res = {};
  res.resType = hipResourceTypeArray;
  res.res.array.array = a;
  hipTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = m;
  td.filterMode = f;
  td.readMode = hipReadModeElementType;
  td.normalizedCoords = normalized;
  hipTextureObject_t t = 0;
  HIP_CHECK(hipCreateTextureObject(&t, &res, &td, nullptr));
  return t;
}

int main() {
  std::vector<float4> img(W * H);
  for (int i = 0; i < W * H; i++)
    img[i] = make_float4(i, 2.0f * i, -1.0f * i, 0.5f * i);
  hipChannelFormatDesc fd = hipCreateChannelDesc<float4>();
  hipArray_t arr = nullptr;
  HIP_CHECK(hipMallocArray(&arr, &fd, W, H));
  HIP_CHECK(hipMemcpy2DToArray(arr, 0, 0, img.data(), W * sizeof(float4), W * sizeof(float4), H, hipMemcpyHostToDevice));
  std::vector<float4> back(W * H);
  HIP_CHECK(hipMemcpy2DFromArray(back.data(), W * sizeof(float4), arr, 0, 0, W * sizeof(float4), H, hipMemcpyDeviceToHost));
  for (int i = 0; i < W * H; i++)
    CHECK(back[i].x == img[i].x && back[i].w == img[i].w, "array texel %d read back %f", i, back[i].x);

  const int N = 64;
  std::vector<float2> coords(N);
  for (int i = 0; i < N; i++)
    coords[i] = make_float2(-2.3f + 0.37f * (i % 16), -1.7f + 0.61f * (i / 8));
  float2 *dc;
  float4 *dout;
  HIP_CHECK(hipMalloc(&dc, N * sizeof(float2)));
  HIP_CHECK(hipMalloc(&dout, N * sizeof(float4)));
  std::vector<float4> out(N);
  for (int mode = 0; mode < 4; mode++) {
    bool linear = mode & 1, normalized = mode & 2;
    hipTextureAddressMode am = normalized ? hipAddressModeWrap : hipAddressModeClamp;
    hipTextureObject_t t = make_tex(arr, linear ? hipFilterModeLinear : hipFilterModePoint, am, normalized);
    std::vector<float2> c = coords;
    if (normalized)
      for (auto &v : c) v = make_float2(v.x / W, v.y / H);
    HIP_CHECK(hipMemcpy(dc, c.data(), N * sizeof(float2), hipMemcpyHostToDevice));
    hipLaunchKernelGGL(fetch2d, dim3(1), dim3(N), 0, 0, t, dc, dout, N);
    LAUNCH_CHECK();
    HIP_CHECK(hipMemcpy(out.data(), dout, N * sizeof(float4), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
      float u = coords[i].x, v = coords[i].y;
      float4 e;
      if (!linear) {
        e = texel(img, (int)floorf(u), (int)floorf(v), normalized);
      } else {
        float a = u - 0.5f, b = v - 0.5f;
        int i0 = (int)floorf(a), j0 = (int)floorf(b);
        float fa = a - i0, fb = b - j0;
        float4 t00 = texel(img, i0, j0, normalized), t10 = texel(img, i0 + 1, j0, normalized);
        float4 t01 = texel(img, i0, j0 + 1, normalized), t11 = texel(img, i0 + 1, j0 + 1, normalized);
        e.x = (1 - fb) * ((1 - fa) * t00.x + fa * t10.x) + fb * ((1 - fa) * t01.x + fa * t11.x);
        e.w = (1 - fb) * ((1 - fa) * t00.w + fa * t10.w) + fb * ((1 - fa) * t01.w + fa * t11.w);
      }
      // Linear: 8-bit weights move a lerp by up to 2^-9 of a texel step (steps here are 1 in
      // x and 8 in y for .x, and at most 47 across a wrap).
      float tol = linear ? 47.0f / 256 : 0.0f;
      CHECK(fabsf(out[i].x - e.x) <= tol && fabsf(out[i].w - e.w) <= tol / 2 + 1e-6f,
            "mode %d coordinate (%f, %f): got (%f, .., %f), want (%f, .., %f)", mode, u, v, out[i].x,
            out[i].w, e.x, e.w);
    }
    HIP_CHECK(hipDestroyTextureObject(t));
  }
  std::printf("2D texture object: point/linear, clamp/wrap ok\n");

  // 3D: a 4×3×2 float array.
  const int X = 4, Y = 3, Z = 2;
  std::vector<float> vol(X * Y * Z);
  for (int i = 0; i < X * Y * Z; i++) vol[i] = 10.0f * i;
  hipChannelFormatDesc f1 = hipCreateChannelDesc<float>();
  hipArray_t a3 = nullptr;
  HIP_CHECK(hipMalloc3DArray(&a3, &f1, make_hipExtent(X, Y, Z), 0));
  hipMemcpy3DParms p = {};
  p.srcPtr = make_hipPitchedPtr(vol.data(), X * sizeof(float), X, Y);
  p.dstArray = a3;
  p.extent = make_hipExtent(X, Y, Z);
  p.kind = hipMemcpyHostToDevice;
  HIP_CHECK(hipMemcpy3D(&p));
  hipTextureObject_t t3 = make_tex(a3, hipFilterModePoint, hipAddressModeClamp, 0);
  std::vector<float4> c3(X * Y * Z);
  for (int z = 0; z < Z; z++)
    for (int y = 0; y < Y; y++)
      for (int x = 0; x < X; x++) c3[(z * Y + y) * X + x] = make_float4(x + 0.5f, y + 0.5f, z + 0.5f, 0);
  float4 *dc3;
  float *do3;
  HIP_CHECK(hipMalloc(&dc3, c3.size() * sizeof(float4)));
  HIP_CHECK(hipMalloc(&do3, c3.size() * sizeof(float)));
  HIP_CHECK(hipMemcpy(dc3, c3.data(), c3.size() * sizeof(float4), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(fetch3d, dim3(1), dim3(64), 0, 0, t3, dc3, do3, X * Y * Z);
  LAUNCH_CHECK();
  std::vector<float> o3(X * Y * Z);
  HIP_CHECK(hipMemcpy(o3.data(), do3, o3.size() * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < X * Y * Z; i++) CHECK(o3[i] == vol[i], "tex3D texel %d = %f, want %f", i, o3[i], vol[i]);
  std::printf("3D texture object ok\n");
  HIP_CHECK(hipDestroyTextureObject(t3));
  HIP_CHECK(hipFreeArray(a3));
  HIP_CHECK(hipFreeArray(arr));
  HIP_CHECK(hipFree(dc));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dc3));
  HIP_CHECK(hipFree(do3));
  pass("texture_object");
  return 0;
}
