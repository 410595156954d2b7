// managed_memory: hipMallocManaged memory written on the host, updated by kernels, read back on
// the host after hipDeviceSynchronize without any explicit copy; a managed struct with a pointer
// to another managed buffer; hipMemcpy to and from managed memory.
#include "hip_check.h"

struct Node {
  int *data;
  int count;
  int sum;
};

__global__ void increment(int *p, int n, int by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] += by;
}

__global__ void sum_node(Node *node) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    int s = 0;
    for (int i = 0; i < node->count; i++)
      s += node->data[i];
    node->sum = s;
  }
}

int main() {
  int managed = 0;
  HIP_CHECK(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, 0));
  const int n = 5000;
  int *m;
  HIP_CHECK(hipMallocManaged(&m, n * sizeof(int), hipMemAttachGlobal));
  for (int i = 0; i < n; i++)
    m[i] = i;
  for (int round = 1; round <= 3; round++) {
    hipLaunchKernelGGL(increment, dim3((n + 255) / 256), dim3(256), 0, 0, m, n, round);
    LAUNCH_CHECK();
  }
  for (int i = 0; i < n; i++)
    CHECK(m[i] == i + 6, "element %d = %d, want %d", i, m[i], i + 6);

  Node *node;
  HIP_CHECK(hipMallocManaged(&node, sizeof(Node)));
  node->data = m;
  node->count = 100;
  node->sum = -1;
  hipLaunchKernelGGL(sum_node, dim3(1), dim3(64), 0, 0, node);
  LAUNCH_CHECK();
  int want = 0;
  for (int i = 0; i < 100; i++)
    want += i + 6;
  CHECK(node->sum == want, "managed struct sum %d, want %d", node->sum, want);

  // Explicit copies also accept managed pointers.
  int *d;
  HIP_CHECK(hipMalloc(&d, n * sizeof(int)));
  HIP_CHECK(hipMemcpy(d, m, n * sizeof(int), hipMemcpyDefault));
  hipLaunchKernelGGL(increment, dim3((n + 255) / 256), dim3(256), 0, 0, d, n, 1000);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(m, d, n * sizeof(int), hipMemcpyDefault));
  for (int i = 0; i < n; i++)
    CHECK(m[i] == i + 1006, "after copies element %d = %d", i, m[i]);
  HIP_CHECK(hipFree(d));
  HIP_CHECK(hipFree(node));
  HIP_CHECK(hipFree(m));
  std::printf("managed memory attribute: %d\n", managed);
  pass("managed_memory");
  return 0;
}
