// warp_shuffle: __shfl, __shfl_up, __shfl_down and __shfl_xor (full width and sub-widths), and a
// shuffle-based wavefront reduction; every lane's result is checked on the CPU.
#include "hip_check.h"
#include <vector>

// out layout per thread: 6 results.
__global__ void shuffles(const int *in, int *out, float *fout) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[tid];
  int lane = threadIdx.x % warpSize;
  int *o = out + tid * 6;
  o[0] = __shfl(v, (lane * 5 + 3) % warpSize);     // arbitrary permutation
  o[1] = __shfl_up(v, 3);                         // lanes < 3 keep their own value
  o[2] = __shfl_down(v, 5);                       // lanes >= warpSize-5 keep their own value
  o[3] = __shfl_xor(v, 9);
  o[4] = __shfl(v, 2, 16);                        // lane 2 of each 16-lane segment
  int sum = v;                                    // butterfly reduction over the wavefront
  for (int off = warpSize / 2; off > 0; off /= 2)
    sum += __shfl_xor(sum, off);
  o[5] = sum;
  fout[tid] = __shfl_down((float)v * 0.5f, 1);
}

int main() {
  int ws = 0;
  HIP_CHECK(hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, 0));
  CHECK(ws == 32 || ws == 64, "warp size %d", ws);
  const int block = 128, blocks = 3, n = block * blocks;
  std::vector<int> in(n), out(n * 6);
  std::vector<float> fout(n);
  for (int i = 0; i < n; i++)
    in[i] = (i * 131) % 997 - 400;
  int *din, *dout;
  float *dfout;
  HIP_CHECK(hipMalloc(&din, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dout, n * 6 * sizeof(int)));
  HIP_CHECK(hipMalloc(&dfout, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(shuffles, dim3(blocks), dim3(block), 0, 0, din, dout, dfout);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(out.data(), dout, n * 6 * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(fout.data(), dfout, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int t = 0; t < n; t++) {
    int lane = t % ws, base = t - lane;
    int *o = &out[t * 6];
    int want_sum = 0;
    for (int l = 0; l < ws; l++)
      want_sum += in[base + l];
    int want[6] = {
        in[base + (lane * 5 + 3) % ws],
        lane >= 3 ? in[t - 3] : in[t],
        lane + 5 < ws ? in[t + 5] : in[t],
        in[base + (lane ^ 9)],
        in[base + (lane / 16) * 16 + 2],
        want_sum,
    };
    for (int k = 0; k < 6; k++)
      CHECK(o[k] == want[k], "thread %d (lane %d) result %d = %d, want %d", t, lane, k, o[k], want[k]);
    float wf = (lane + 1 < ws ? in[t + 1] : in[t]) * 0.5f;
    CHECK(fout[t] == wf, "thread %d float shuffle %g, want %g", t, fout[t], wf);
  }
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dfout));
  pass("warp_shuffle");
  return 0;
}
