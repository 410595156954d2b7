// stream_callback: hipStreamAddCallback runs after the preceding work on its stream and before
// the following work: a kernel writes pinned memory, the callback checks it and writes a new
// value, and the next kernel on the stream must see the callback's value. Two streams.
#include "hip_check.h"
#include <atomic>
#include <vector>

struct CallbackState {
  volatile int *pinned;   // written by kernel 1, then by the callback
  int stream_index;
  int seen;               // value the callback observed
  std::atomic<int> calls;
  hipError_t status;
};

__global__ void write_value(volatile int *p, int v) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    *p = v;
}

__global__ void read_value(volatile const int *p, int *out) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    *out = *p;
}

static void callback(hipStream_t, hipError_t status, void *user) {
  CallbackState *st = static_cast<CallbackState *>(user);
  st->status = status;
  st->seen = *st->pinned;
  *st->pinned = 1000 + st->stream_index;
  st->calls.fetch_add(1);
}

int main() {
  const int kStreams = 2;
  hipStream_t streams[kStreams];
  int *pinned, *dout;
  HIP_CHECK(hipHostMalloc(&pinned, kStreams * sizeof(int)));
  HIP_CHECK(hipMalloc(&dout, kStreams * sizeof(int)));
  CallbackState states[kStreams];
  for (int s = 0; s < kStreams; s++) {
    HIP_CHECK(hipStreamCreate(&streams[s]));
    pinned[s] = -1;
    states[s].pinned = pinned + s;
    states[s].stream_index = s;
    states[s].seen = -1;
    states[s].calls = 0;
    states[s].status = hipErrorUnknown;
  }
  for (int s = 0; s < kStreams; s++) {
    hipLaunchKernelGGL(write_value, dim3(1), dim3(64), 0, streams[s], pinned + s, 10 + s);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipStreamAddCallback(streams[s], callback, &states[s], 0));
    hipLaunchKernelGGL(read_value, dim3(1), dim3(64), 0, streams[s], pinned + s, dout + s);
    HIP_CHECK(hipGetLastError());
  }
  for (int s = 0; s < kStreams; s++)
    HIP_CHECK(hipStreamSynchronize(streams[s]));
  int out[kStreams];
  HIP_CHECK(hipMemcpy(out, dout, sizeof(out), hipMemcpyDeviceToHost));
  for (int s = 0; s < kStreams; s++) {
    CHECK(states[s].calls.load() == 1, "stream %d: callback ran %d times", s, states[s].calls.load());
    CHECK(states[s].status == hipSuccess, "stream %d: callback status %d", s, (int)states[s].status);
    CHECK(states[s].seen == 10 + s, "stream %d: callback saw %d, want %d (ran before the kernel?)", s, states[s].seen, 10 + s);
    CHECK(out[s] == 1000 + s, "stream %d: kernel after the callback read %d, want %d", s, out[s], 1000 + s);
  }
  // A callback on the null stream.
  CallbackState null_state;
  null_state.pinned = pinned;
  null_state.stream_index = 7;
  null_state.calls = 0;
  HIP_CHECK(hipStreamAddCallback(0, callback, &null_state, 0));
  HIP_CHECK(hipDeviceSynchronize());
  CHECK(null_state.calls.load() == 1, "null-stream callback ran %d times", null_state.calls.load());
  for (int s = 0; s < kStreams; s++)
    HIP_CHECK(hipStreamDestroy(streams[s]));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipHostFree(pinned));
  pass("stream_callback");
  return 0;
}
