// streams_events: four streams doing async copy -> kernel -> async copy from pinned memory,
// cross-stream ordering with hipStreamWaitEvent, event timing (hipEventElapsedTime),
// hipEventQuery/hipStreamQuery, and a non-blocking stream.
#include "hip_check.h"
#include <vector>

// Deliberately slow-ish per element (a dependent loop) so a missing dependency is observable.
__global__ void scale_slow(const int *in, int *out, int n, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = in[i];
    for (int k = 0; k < 64; k++)
      v = (v * 3 + k) & 0xffff;
    out[i] = v * factor;
  }
}

__global__ void add_arrays(const int *a, const int *b, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] + b[i];
}

static int slow_ref(int v, int factor) {
  for (int k = 0; k < 64; k++)
    v = (v * 3 + k) & 0xffff;
  return v * factor;
}

int main() {
  const int kStreams = 4, n = 4096;
  hipStream_t streams[kStreams];
  for (int s = 0; s < kStreams; s++)
    HIP_CHECK(s == 3 ? hipStreamCreateWithFlags(&streams[s], hipStreamNonBlocking) : hipStreamCreate(&streams[s]));
  int *host_in, *host_out;
  HIP_CHECK(hipHostMalloc(&host_in, kStreams * n * sizeof(int)));
  HIP_CHECK(hipHostMalloc(&host_out, (kStreams + 1) * n * sizeof(int)));
  for (int i = 0; i < kStreams * n; i++)
    host_in[i] = i % 5003;
  int *din, *dout, *dsum;
  HIP_CHECK(hipMalloc(&din, kStreams * n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dout, kStreams * n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dsum, n * sizeof(int)));
  hipEvent_t start, stop, done[kStreams];
  HIP_CHECK(hipEventCreate(&start));
  HIP_CHECK(hipEventCreate(&stop));
  for (int s = 0; s < kStreams; s++)
    HIP_CHECK(hipEventCreateWithFlags(&done[s], hipEventDisableTiming));

  HIP_CHECK(hipEventRecord(start, streams[0]));
  for (int s = 0; s < kStreams; s++) {
    int off = s * n;
    HIP_CHECK(hipMemcpyAsync(din + off, host_in + off, n * sizeof(int), hipMemcpyHostToDevice, streams[s]));
    hipLaunchKernelGGL(scale_slow, dim3(n / 256), dim3(256), 0, streams[s], din + off, dout + off, n, s + 1);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpyAsync(host_out + off, dout + off, n * sizeof(int), hipMemcpyDeviceToHost, streams[s]));
    HIP_CHECK(hipEventRecord(done[s], streams[s]));
  }
  // Stream 0 combines the results of streams 1 and 2: it must wait for both.
  HIP_CHECK(hipStreamWaitEvent(streams[0], done[1], 0));
  HIP_CHECK(hipStreamWaitEvent(streams[0], done[2], 0));
  hipLaunchKernelGGL(add_arrays, dim3(n / 256), dim3(256), 0, streams[0], dout + n, dout + 2 * n, dsum, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpyAsync(host_out + kStreams * n, dsum, n * sizeof(int), hipMemcpyDeviceToHost, streams[0]));
  HIP_CHECK(hipEventRecord(stop, streams[0]));
  HIP_CHECK(hipEventSynchronize(stop));
  HIP_CHECK(hipEventQuery(stop));
  for (int s = 0; s < kStreams; s++) {
    HIP_CHECK(hipStreamSynchronize(streams[s]));
    HIP_CHECK(hipStreamQuery(streams[s]));
    HIP_CHECK(hipEventQuery(done[s]));
  }
  float ms = -1.0f;
  HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 0.0f && ms < 600000.0f, "elapsed time %g ms", ms);
  // Timing on an event created with hipEventDisableTiming is an error.
  float ignored;
  CHECK(hipEventElapsedTime(&ignored, done[0], done[1]) != hipSuccess, "elapsed time on untimed events succeeded");

  for (int s = 0; s < kStreams; s++)
    for (int i = 0; i < n; i++) {
      int want = slow_ref(host_in[s * n + i], s + 1);
      CHECK(host_out[s * n + i] == want, "stream %d element %d = %d, want %d", s, i, host_out[s * n + i], want);
    }
  for (int i = 0; i < n; i++) {
    int want = slow_ref(host_in[n + i], 2) + slow_ref(host_in[2 * n + i], 3);
    CHECK(host_out[kStreams * n + i] == want, "sum %d = %d, want %d", i, host_out[kStreams * n + i], want);
  }
  for (int s = 0; s < kStreams; s++) {
    HIP_CHECK(hipEventDestroy(done[s]));
    HIP_CHECK(hipStreamDestroy(streams[s]));
  }
  HIP_CHECK(hipEventDestroy(start));
  HIP_CHECK(hipEventDestroy(stop));
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dsum));
  HIP_CHECK(hipHostFree(host_in));
  HIP_CHECK(hipHostFree(host_out));
  pass("streams_events");
  return 0;
}
