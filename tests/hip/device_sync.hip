// device_sync: hipDeviceSynchronize waits for work on every stream (null stream, blocking and
// non-blocking streams) queued without any per-stream synchronisation; kernels write pinned
// host memory so the check needs no copy. Also hipStreamSynchronize on the null stream,
// hipGetLastError/hipPeekAtLastError after good launches, and repeated sync when idle.
#include "hip_check.h"

__global__ void slow_fill(int *p, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned v = (unsigned)value;
    for (int k = 0; k < 200; k++)
      v = (v * 1103515245u + 12345u) & 0x7fffffffu;
    p[i] = (int)v;
  }
}

static int ref(int value) {
  unsigned v = (unsigned)value;
  for (int k = 0; k < 200; k++)
    v = (v * 1103515245u + 12345u) & 0x7fffffffu;
  return (int)v;
}

int main() {
  const int kStreams = 3, n = 2048, rounds = 4;
  hipStream_t streams[kStreams];
  HIP_CHECK(hipStreamCreate(&streams[0]));
  HIP_CHECK(hipStreamCreateWithFlags(&streams[1], hipStreamNonBlocking));
  HIP_CHECK(hipStreamCreateWithFlags(&streams[2], hipStreamDefault));
  int *host;
  HIP_CHECK(hipHostMalloc(&host, (kStreams + 1) * rounds * n * sizeof(int)));
  for (int i = 0; i < (kStreams + 1) * rounds * n; i++)
    host[i] = -1;
  for (int r = 0; r < rounds; r++) {
    for (int s = 0; s < kStreams; s++) {
      int *p = host + ((s * rounds) + r) * n;
      hipLaunchKernelGGL(slow_fill, dim3(n / 256), dim3(256), 0, streams[s], p, n, s * 100 + r);
      HIP_CHECK(hipGetLastError());
    }
    hipLaunchKernelGGL(slow_fill, dim3(n / 256), dim3(256), 0, 0, host + (kStreams * rounds + r) * n, n, 1000 + r);
    HIP_CHECK(hipPeekAtLastError());
  }
  HIP_CHECK(hipDeviceSynchronize());
  for (int s = 0; s <= kStreams; s++)
    for (int r = 0; r < rounds; r++) {
      int want = ref(s == kStreams ? 1000 + r : s * 100 + r);
      for (int i = 0; i < n; i++)
        CHECK(host[(s * rounds + r) * n + i] == want, "stream %d round %d element %d = %d, want %d", s, r, i,
              host[(s * rounds + r) * n + i], want);
    }
  HIP_CHECK(hipStreamSynchronize(0));
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipDeviceSynchronize());
  for (int s = 0; s < kStreams; s++)
    HIP_CHECK(hipStreamDestroy(streams[s]));
  HIP_CHECK(hipHostFree(host));
  HIP_CHECK(hipGetLastError());
  pass("device_sync");
  return 0;
}
