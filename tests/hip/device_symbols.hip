// device_symbols: __device__ and __constant__ variables (scalars, arrays, a struct) accessed with
// hipMemcpyToSymbol / hipMemcpyFromSymbol (with offsets, and the async forms),
// hipGetSymbolAddress and hipGetSymbolSize, and read and written by kernels; a __device__
// variable with an initialiser and one in .bss (zero-initialised) are checked first.
#include "hip_check.h"
#include <vector>

struct Config {
  int scale;
  float bias;
  long long tag;
};

__device__ int initialised[4] = {11, 22, 33, 44};
__device__ int zeroed[100];
__constant__ float coefficients[16];
__constant__ Config config;
__device__ unsigned long long kernel_runs;

__global__ void apply(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i] * coefficients[i % 16] * config.scale + config.bias;
    zeroed[i % 100] = (int)config.tag; // benign race: every writer stores the same value
  }
  if (i == 0)
    atomicAdd(&kernel_runs, 1ull);
}

int main() {
  int init_back[4];
  HIP_CHECK(hipMemcpyFromSymbol(init_back, HIP_SYMBOL(initialised), sizeof(init_back)));
  for (int i = 0; i < 4; i++)
    CHECK(init_back[i] == 11 * (i + 1), "initialised[%d] = %d", i, init_back[i]);
  std::vector<int> z(100, -1);
  HIP_CHECK(hipMemcpyFromSymbol(z.data(), HIP_SYMBOL(zeroed), 100 * sizeof(int)));
  for (int i = 0; i < 100; i++)
    CHECK(z[i] == 0, ".bss variable zeroed[%d] = %d", i, z[i]);

  size_t size = 0;
  HIP_CHECK(hipGetSymbolSize(&size, HIP_SYMBOL(coefficients)));
  CHECK(size == 16 * sizeof(float), "coefficients size %zu", size);
  void *addr = nullptr;
  HIP_CHECK(hipGetSymbolAddress(&addr, HIP_SYMBOL(zeroed)));
  CHECK(addr != nullptr, "no address for zeroed");

  float coef[16];
  for (int i = 0; i < 16; i++)
    coef[i] = 0.5f * (i + 1);
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coefficients), coef, 8 * sizeof(float)));
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coefficients), coef + 8, 8 * sizeof(float), 8 * sizeof(float)));
  Config cfg = {3, -1.5f, 0x123456789ll};
  HIP_CHECK(hipMemcpyToSymbolAsync(HIP_SYMBOL(config), &cfg, sizeof(cfg), 0, hipMemcpyHostToDevice, 0));
  HIP_CHECK(hipStreamSynchronize(0));
  unsigned long long zero = 0;
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(kernel_runs), &zero, sizeof(zero)));

  const int n = 1000;
  std::vector<float> in(n), out(n);
  for (int i = 0; i < n; i++)
    in[i] = (float)(i % 37) - 18.0f;
  float *din, *dout;
  HIP_CHECK(hipMalloc(&din, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dout, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(float), hipMemcpyHostToDevice));
  for (int run = 0; run < 3; run++) {
    hipLaunchKernelGGL(apply, dim3((n + 127) / 128), dim3(128), 0, 0, din, dout, n);
    HIP_CHECK(hipGetLastError());
  }
  HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    float want = in[i] * coef[i % 16] * 3 + -1.5f;
    CHECK(out[i] == want, "out[%d] = %g, want %g", i, out[i], want);
  }
  unsigned long long runs = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&runs, HIP_SYMBOL(kernel_runs), sizeof(runs)));
  CHECK(runs == 3, "kernel_runs = %llu", runs);
  // Read part of zeroed through the address from hipGetSymbolAddress, with an offset form too.
  int part[10];
  HIP_CHECK(hipMemcpy(part, (int *)addr + 50, sizeof(part), hipMemcpyDeviceToHost));
  for (int i = 0; i < 10; i++)
    CHECK(part[i] == (int)cfg.tag, "zeroed[%d] = %#x after the kernel", 50 + i, part[i]);
  int tail[2];
  HIP_CHECK(hipMemcpyFromSymbolAsync(tail, HIP_SYMBOL(initialised), sizeof(tail), 2 * sizeof(int), hipMemcpyDeviceToHost, 0));
  HIP_CHECK(hipStreamSynchronize(0));
  CHECK(tail[0] == 33 && tail[1] == 44, "offset read %d %d", tail[0], tail[1]);
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  pass("device_symbols");
  return 0;
}
