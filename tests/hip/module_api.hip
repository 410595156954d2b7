// module_api: the module API on a code object built separately with `hipcc --genco`
// (module_kernels.hip): hipModuleLoad, hipModuleGetFunction, hipModuleGetGlobal,
// hipModuleLaunchKernel with both kernelParams and the "extra" argument buffer, hipModuleUnload.
// The code object path is argv[1], or else the HSAEMU_HIP_MODULE environment variable. The
// program's own (embedded) kernel then compares the module kernel's output on the device: module
// and fat-binary code objects coexist in one process.
#include "hip_check.h"
#include <cstddef>
#include <cstring>
#include <vector>

__global__ void count_mismatches(const float *got, const float *want, int n, int *bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && got[i] != want[i])
    atomicAdd(bad, 1);
}

struct Params { // must match module_kernels.hip
  int offset;
  short multiplier;
  double bias;
};

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : std::getenv("HSAEMU_HIP_MODULE");
  CHECK(path != nullptr, "usage: module_api <code object from hipcc --genco> (or set HSAEMU_HIP_MODULE)");
  hipModule_t module;
  HIP_CHECK(hipModuleLoad(&module, path));
  hipFunction_t saxpy, with_struct;
  HIP_CHECK(hipModuleGetFunction(&saxpy, module, "saxpy"));
  HIP_CHECK(hipModuleGetFunction(&with_struct, module, "with_struct"));
  hipFunction_t missing;
  CHECK(hipModuleGetFunction(&missing, module, "no_such_kernel") != hipSuccess, "a missing kernel was found");

  hipDeviceptr_t counter;
  size_t counter_size = 0;
  HIP_CHECK(hipModuleGetGlobal(&counter, &counter_size, module, "module_counter"));
  CHECK(counter_size == sizeof(int), "module_counter size %zu", counter_size);
  hipDeviceptr_t scale;
  size_t scale_size = 0;
  HIP_CHECK(hipModuleGetGlobal(&scale, &scale_size, module, "module_scale"));
  float scale_value = 0.0f;
  HIP_CHECK(hipMemcpy(&scale_value, scale, sizeof(float), hipMemcpyDeviceToHost));
  CHECK(scale_value == 2.5f, "module_scale = %g, want 2.5", scale_value);
  int zero = 0;
  HIP_CHECK(hipMemcpy(counter, &zero, sizeof(int), hipMemcpyHostToDevice));

  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; i++) {
    x[i] = (float)i;
    y[i] = 1.0f - i;
  }
  float *dx, *dy;
  HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
  float a = 0.5f;
  int count = n;
  void *args[] = {&a, &dx, &dy, &count};
  HIP_CHECK(hipModuleLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, args, nullptr));
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<float> out(n);
  HIP_CHECK(hipMemcpy(out.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    CHECK(out[i] == a * x[i] * 2.5f + y[i], "saxpy[%d] = %g, want %g", i, out[i], a * x[i] * 2.5f + y[i]);
  // The embedded kernel agrees.
  std::vector<float> want(n);
  for (int i = 0; i < n; i++)
    want[i] = a * x[i] * 2.5f + y[i];
  float *dwant;
  int *dbad, bad = -1;
  HIP_CHECK(hipMalloc(&dwant, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dbad, sizeof(int)));
  HIP_CHECK(hipMemcpy(dwant, want.data(), n * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset(dbad, 0, sizeof(int)));
  hipLaunchKernelGGL(count_mismatches, dim3((n + 255) / 256), dim3(256), 0, 0, dy, dwant, n, dbad);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(&bad, dbad, sizeof(int), hipMemcpyDeviceToHost));
  CHECK(bad == 0, "embedded kernel found %d mismatches in the module kernel's output", bad);
  HIP_CHECK(hipFree(dwant));
  HIP_CHECK(hipFree(dbad));
  int counted = 0;
  HIP_CHECK(hipMemcpy(&counted, counter, sizeof(int), hipMemcpyDeviceToHost));
  CHECK(counted == n, "module_counter = %d, want %d", counted, n);

  // The "extra" form: one packed argument buffer laid out like the kernel's kernarg segment.
  struct {
    Params p;
    int *out;
    int n;
  } packed;
  int *dout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
  packed.p.offset = 17;
  packed.p.multiplier = -3;
  packed.p.bias = 0.25;
  packed.out = dout;
  packed.n = n;
  size_t packed_size = sizeof(packed);
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE, &packed_size,
                   HIP_LAUNCH_PARAM_END};
  HIP_CHECK(hipModuleLaunchKernel(with_struct, (n + 63) / 64, 1, 1, 64, 1, 1, 0, 0, nullptr, extra));
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int> iout(n);
  HIP_CHECK(hipMemcpy(iout.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    int want = (int)(i * -3 + 17 + 0.25);
    CHECK(iout[i] == want, "with_struct[%d] = %d, want %d", i, iout[i], want);
  }
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipModuleUnload(module));
  pass("module_api");
  return 0;
}
