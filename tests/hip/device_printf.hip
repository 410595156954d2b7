// device_printf: printf from device code (HIP's hostcall path) with ints, unsigned, 64-bit,
// floats, doubles, chars and strings, from several blocks. The test harness checks that stdout
// holds the expected lines (tests/hip/manifest.txt); this program checks that every block ran
// past its printf.
#include "hip_check.h"

__global__ void say_hello(int *ret) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) {
    printf("hello from block %d of %d\n", (int)blockIdx.x, (int)gridDim.x);
    ret[blockIdx.x] = (int)blockIdx.x; // proves the block ran past its printf
  }
  if (t == 0) {
    printf("ints: %d %i %u %x %ld %lld\n", -42, 7, 4000000000u, 0xbeef, -1234567890123L, 9876543210LL);
    printf("floats: %.3f %.2f %e\n", 3.14159f, -2.5, 12345.678);
    printf("chars: %c%c%c str=%s pad=[%5d] [%-4s]\n", 'a', 'b', 'c', "device", 42, "x");
  }
}

int main() {
  const int blocks = 4;
  int *dret;
  HIP_CHECK(hipMalloc(&dret, blocks * sizeof(int)));
  HIP_CHECK(hipMemset(dret, 0xff, blocks * sizeof(int)));
  hipLaunchKernelGGL(say_hello, dim3(blocks), dim3(64), 0, 0, dret);
  LAUNCH_CHECK();
  int ret[blocks];
  HIP_CHECK(hipMemcpy(ret, dret, sizeof(ret), hipMemcpyDeviceToHost));
  for (int b = 0; b < blocks; b++)
    CHECK(ret[b] == b, "block %d wrote %d after its printf", b, ret[b]);
  HIP_CHECK(hipFree(dret));
  std::fflush(stdout);
  pass("device_printf");
  return 0;
}
