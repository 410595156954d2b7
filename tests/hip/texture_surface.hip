// texture_surface: the other HIP texture and surface resources.
//   - surface objects over a 2D array: a kernel writes with surf2Dwrite, another reads with
//     surf2Dread, and hipMemcpy2DFromArray reads the array back;
//   - a texture object over pitched 2D memory (hipResourceTypePitch2D), read with tex2D;
//   - a layered 2D array (hipArrayLayered) read with tex2DLayered;
//   - tex1Dfetch from a texture object over linear memory (hipResourceTypeLinear);
//   - integer textures (uchar4, hipReadModeElementType) and hipReadModeNormalizedFloat;
//   - mipmapped arrays: HIP 5.2 refuses hipMallocMipmappedArray (hipErrorNotSupported) before
//     reaching the HSA runtime, so there is nothing below it to test.
// Expected values come from the host data; prints "PASS texture_surface".
#include "hip_check.h"
#include <vector>

__global__ void surf_write(hipSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) surf2Dwrite((float)(x * 1000 + y), s, x * (int)sizeof(float), y);
}

__global__ void surf_read(hipSurfaceObject_t s, int *o, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) {
    float v;
    surf2Dread(&v, s, x * (int)sizeof(float), y);
    o[y * w + x] = (int)v + 1;
  }
}

__global__ void read_pitch(hipTextureObject_t t, float *o, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) o[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
}

__global__ void read_layered(hipTextureObject_t t, float *o, int w, int h, int layers) {
  int x = threadIdx.x, y = blockIdx.x % h, l = blockIdx.x / h;
  if (x < w && l < layers) o[(l * h + y) * w + x] = tex2DLayered<float>(t, x + 0.5f, y + 0.5f, l);
}

__global__ void read_linear(hipTextureObject_t t, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex1Dfetch<float>(t, i);
}

__global__ void read_uchar4(hipTextureObject_t t, uchar4 *o, float4 *f, hipTextureObject_t tn, int w) {
  int x = threadIdx.x;
  if (x < w) {
    o[x] = tex2D<uchar4>(t, x + 0.5f, 0.5f);
    f[x] = tex2D<float4>(tn, x + 0.5f, 0.5f);
  }
}

static hipTextureObject_t make_texture(const hipResourceDesc &res, hipTextureReadMode mode) {
  hipTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = hipAddressModeClamp;
  td.filterMode = hipFilterModePoint;
  td.readMode = mode;
  hipTextureObject_t t = 0;
  HIP_CHECK(hipCreateTextureObject(&t, &res, &td, nullptr));
  return t;
}

int main() {
  const int W = 12, H = 5, L = 3;
  int *dint;
  float *dfl;
  HIP_CHECK(hipMalloc(&dint, W * H * L * sizeof(int)));
  HIP_CHECK(hipMalloc(&dfl, W * H * L * sizeof(float)));

  // Surfaces.
  // HIP 5.2's surf2Dwrite converts the value to float and stores the float4 through the
  // image's format, so an int surface would hold float bit patterns: use a float one.
  hipChannelFormatDesc fi = hipCreateChannelDesc<float>();
  hipArray_t sa = nullptr;
  // HIP 5.2 refuses hipArraySurfaceLoadStore (hipErrorNotSupported); any array takes surfaces.
  HIP_CHECK(hipMallocArray(&sa, &fi, W, H));
  hipResourceDesc sr = {};
  sr.resType = hipResourceTypeArray;
  sr.res.array.array = sa;
  hipSurfaceObject_t s = 0;
  HIP_CHECK(hipCreateSurfaceObject(&s, &sr));
  hipLaunchKernelGGL(surf_write, dim3(H), dim3(W), 0, 0, s, W, H);
  LAUNCH_CHECK();
  hipLaunchKernelGGL(surf_read, dim3(H), dim3(W), 0, 0, s, dint, W, H);
  LAUNCH_CHECK();
  std::vector<int> iv(W * H);
  std::vector<float> back(W * H);
  HIP_CHECK(hipMemcpy(iv.data(), dint, W * H * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy2DFromArray(back.data(), W * sizeof(float), sa, 0, 0, W * sizeof(float), H, hipMemcpyDeviceToHost));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      CHECK(back[y * W + x] == x * 1000 + y, "surface (%d,%d) = %f", x, y, back[y * W + x]);
      CHECK(iv[y * W + x] == x * 1000 + y + 1, "surf2Dread (%d,%d) = %d", x, y, iv[y * W + x]);
    }
  HIP_CHECK(hipDestroySurfaceObject(s));
  HIP_CHECK(hipFreeArray(sa));
  std::printf("surface object ok\n");

  std::vector<float> host(W * H * L), out(W * H * L);
  for (int i = 0; i < W * H * L; i++) host[i] = 0.25f * i - 3.0f;

  // Pitched 2D memory.
  float *pm;
  size_t pitch = 0;
  HIP_CHECK(hipMallocPitch((void **)&pm, &pitch, W * sizeof(float), H));
  HIP_CHECK(hipMemcpy2D(pm, pitch, host.data(), W * sizeof(float), W * sizeof(float), H, hipMemcpyHostToDevice));
  hipResourceDesc pr = {};
  pr.resType = hipResourceTypePitch2D;
  pr.res.pitch2D.devPtr = pm;
  pr.res.pitch2D.desc = hipCreateChannelDesc<float>();
  pr.res.pitch2D.width = W;
  pr.res.pitch2D.height = H;
  pr.res.pitch2D.pitchInBytes = pitch;
  hipTextureObject_t tp = make_texture(pr, hipReadModeElementType);
  hipLaunchKernelGGL(read_pitch, dim3(H), dim3(W), 0, 0, tp, dfl, W, H);
  LAUNCH_CHECK();
  HIP_CHECK(hipMemcpy(out.data(), dfl, W * H * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < W * H; i++) CHECK(out[i] == host[i], "pitch2D texel %d = %f, want %f", i, out[i], host[i]);
  HIP_CHECK(hipDestroyTextureObject(tp));
  HIP_CHECK(hipFree(pm));
  std::printf("pitch2D texture object ok\n");

  // Layered 2D array.
  hipChannelFormatDesc ff = hipCreateChannelDesc<float>();
  hipArray_t la = nullptr;
  HIP_CHECK(hipMalloc3DArray(&la, &ff, make_hipExtent(W, H, L), hipArrayLayered));
  hipMemcpy3DParms p = {};
  p.srcPtr = make_hipPitchedPtr(host.data(), W * sizeof(float), W, H);
  p.dstArray = la;
  p.extent = make_hipExtent(W, H, L);
  p.kind = hipMemcpyHostToDevice;
  HIP_CHECK(hipMemcpy3D(&p));
  hipResourceDesc lr = {};
  lr.resType = hipResourceTypeArray;
  lr.res.array.array = la;
  hipTextureObject_t tl = make_texture(lr, hipReadModeElementType);
  hipLaunchKernelGGL(read_layered, dim3(H * L), dim3(W), 0, 0, tl, dfl, W, H, L);
  LAUNCH_CHECK();
  HIP_CHECK(hipMemcpy(out.data(), dfl, W * H * L * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < W * H * L; i++) CHECK(out[i] == host[i], "layered texel %d = %f, want %f", i, out[i], host[i]);
  HIP_CHECK(hipDestroyTextureObject(tl));
  HIP_CHECK(hipFreeArray(la));
  std::printf("layered texture object ok\n");

  // Integer texels, element type and normalized float.
  std::vector<uchar4> px(W);
  for (int x = 0; x < W; x++) px[x] = make_uchar4(x, 20 * x, 255 - x, 128);
  // HIP 5.2's hipCreateChannelDesc<uchar4>() says hipChannelFormatKindSigned (so a normalized
  // read would be SNORM): spell the unsigned format out.
  hipChannelFormatDesc fu = hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindUnsigned);
  hipArray_t ua = nullptr;
  HIP_CHECK(hipMallocArray(&ua, &fu, W, 1));
  HIP_CHECK(hipMemcpy2DToArray(ua, 0, 0, px.data(), W * sizeof(uchar4), W * sizeof(uchar4), 1, hipMemcpyHostToDevice));
  hipResourceDesc ur = {};
  ur.resType = hipResourceTypeArray;
  ur.res.array.array = ua;
  hipTextureObject_t te = make_texture(ur, hipReadModeElementType);
  hipTextureObject_t tn = make_texture(ur, hipReadModeNormalizedFloat);
  uchar4 *du;
  float4 *df4;
  HIP_CHECK(hipMalloc(&du, W * sizeof(uchar4)));
  HIP_CHECK(hipMalloc(&df4, W * sizeof(float4)));
  hipLaunchKernelGGL(read_uchar4, dim3(1), dim3(W), 0, 0, te, du, df4, tn, W);
  LAUNCH_CHECK();
  std::vector<uchar4> ou(W);
  std::vector<float4> of(W);
  HIP_CHECK(hipMemcpy(ou.data(), du, W * sizeof(uchar4), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(of.data(), df4, W * sizeof(float4), hipMemcpyDeviceToHost));
  for (int x = 0; x < W; x++) {
    CHECK(ou[x].x == px[x].x && ou[x].y == px[x].y && ou[x].z == px[x].z && ou[x].w == 128, "uchar4 texel %d", x);
    CHECK(of[x].y == px[x].y / 255.0f && of[x].w == 128 / 255.0f, "normalized texel %d = (%f, %f, %f, %f)", x, of[x].x, of[x].y, of[x].z, of[x].w);
  }
  HIP_CHECK(hipDestroyTextureObject(te));
  HIP_CHECK(hipDestroyTextureObject(tn));
  HIP_CHECK(hipFreeArray(ua));
  std::printf("integer and normalized-float reads ok\n");

  // Linear memory and tex1Dfetch.
  float *lin;
  HIP_CHECK(hipMalloc(&lin, W * H * sizeof(float)));
  HIP_CHECK(hipMemcpy(lin, host.data(), W * H * sizeof(float), hipMemcpyHostToDevice));
  hipResourceDesc rl = {};
  rl.resType = hipResourceTypeLinear;
  rl.res.linear.devPtr = lin;
  rl.res.linear.desc = hipCreateChannelDesc<float>();
  rl.res.linear.sizeInBytes = W * H * sizeof(float);
  hipTextureObject_t t1 = make_texture(rl, hipReadModeElementType);
  hipLaunchKernelGGL(read_linear, dim3(1), dim3(W * H), 0, 0, t1, dfl, W * H);
  LAUNCH_CHECK();
  HIP_CHECK(hipMemcpy(out.data(), dfl, W * H * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < W * H; i++) CHECK(out[i] == host[i], "tex1Dfetch %d = %f, want %f", i, out[i], host[i]);
  HIP_CHECK(hipDestroyTextureObject(t1));
  HIP_CHECK(hipFree(lin));
  std::printf("tex1Dfetch ok\n");

  hipMipmappedArray_t mip = nullptr;
  hipError_t merr = hipMallocMipmappedArray(&mip, &ff, make_hipExtent(16, 16, 0), 3, 0);
  CHECK(merr == hipErrorNotSupported, "hipMallocMipmappedArray returned %s", hipGetErrorName(merr));
  std::printf("mipmapped arrays: %s (HIP 5.2)\n", hipGetErrorName(merr));

  HIP_CHECK(hipFree(dint));
  HIP_CHECK(hipFree(dfl));
  HIP_CHECK(hipFree(du));
  HIP_CHECK(hipFree(df4));
  pass("texture_surface");
  return 0;
}
