// module_kernels: device code only, built with `hipcc --genco` into a code object bundle that
// module_api loads at run time with hipModuleLoad (see tests/hip/manifest.txt).
#include <hip/hip_runtime.h>

__device__ int module_counter;          // a global variable, found with hipModuleGetGlobal
__constant__ float module_scale = 2.5f; // an initialised constant

extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] * module_scale + y[i];
    atomicAdd(&module_counter, 1);
  }
}

struct Params {
  int offset;
  short multiplier;
  double bias;
};

extern "C" __global__ void with_struct(Params p, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = (int)(i * p.multiplier + p.offset + p.bias);
}
