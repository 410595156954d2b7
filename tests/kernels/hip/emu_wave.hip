// Wave-level HIP intrinsics for the emulator suite: __shfl_down / __shfl_xor reductions,
// __ballot, a block scan through shared memory, and a noinline device function with a
// private array.
#include <hip/hip_runtime.h>

extern "C" __global__ void shfl_reduce(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int off = warpSize / 2; off > 0; off /= 2)
    v += __shfl_down(v, off);
  int x = in[i];
  for (int m = 1; m < warpSize; m *= 2)
    x = max(x, __shfl_xor(x, m));
  if (threadIdx.x % warpSize == 0) {
    out[2 * (i / warpSize)] = v;
    out[2 * (i / warpSize) + 1] = x;
  }
}

extern "C" __global__ void ballot_count(const int *in, unsigned long long *masks, int *counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool p = in[i] % 3 == 0;
  unsigned long long b = __ballot(p);
  int c = __popcll(b) + __shfl(in[i], 5);
  if (threadIdx.x % warpSize == 0) {
    masks[i / warpSize] = b;
    counts[i / warpSize] = c;
  }
}

extern "C" __global__ void block_scan(const int *in, int *out) {
  __shared__ int s[512];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int off = 1; off < (int)blockDim.x; off *= 2) {
    int v = t >= off ? s[t - off] : 0;
    __syncthreads();
    s[t] += v;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = s[t];
}

__device__ __attribute__((noinline)) int sum_squares(int *p, int n) {
  int s = 0;
  for (int k = 0; k < n; k++)
    s += p[k] * p[k];
  return s;
}

extern "C" __global__ void private_call(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int buf[16];
  for (int k = 0; k < 16; k++)
    buf[k] = in[i] + k;
  out[i] = sum_squares(buf, 1 + (in[i] & 15));
}
