// event_ipc: inter-process events and registered shared memory (issue 19, HIP 5.2.3's
// Unit_hipEventIpc). HIP keeps an inter-process event's signals in a POSIX shared-memory
// object mapped MAP_SHARED and hipHostRegister()s it; its hipHostUnregister removes the
// memory object under both the host and the agent address and aborts ("Memobj map does not
// have ptr") when hsa_amd_memory_lock_to_pool gave the host address back. hsaemu gives a
// second mapping of the same pages, as a discrete GPU gives another address. Checked: events
// created, recorded, synchronised, queried and destroyed; hipIpcOpenEventHandle in the same
// process refused with hipErrorInvalidContext; and a MAP_SHARED mapping registered with
// hipHostRegister, written by a kernel through its device pointer, seen by the host, and
// unregistered.
#include "hip_check.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

__global__ void fill(unsigned *p, unsigned n, unsigned v) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = v + i;
}

int main() {
  const unsigned n = 1024;
  unsigned *d = nullptr;
  HIP_CHECK(hipMalloc(&d, n * sizeof(unsigned)));

  for (int round = 0; round < 2; round++) {
    hipEvent_t start, stop;
    HIP_CHECK(hipEventCreateWithFlags(&start, hipEventDisableTiming | hipEventInterprocess));
    HIP_CHECK(hipEventCreateWithFlags(&stop, hipEventDisableTiming | hipEventInterprocess));
    HIP_CHECK(hipEventRecord(start, nullptr));
    hipLaunchKernelGGL(fill, dim3(n / 256), dim3(256), 0, 0, d, n, 7u);
    HIP_CHECK(hipEventRecord(stop, nullptr));
    HIP_CHECK(hipEventSynchronize(stop));
    HIP_CHECK(hipEventQuery(stop));
    float ms = 0;
    CHECK(hipEventElapsedTime(&ms, start, stop) != hipSuccess,
          "elapsed time of events without timing");
    hipIpcEventHandle_t handle;
    HIP_CHECK(hipIpcGetEventHandle(&handle, start));
    hipEvent_t opened;
    CHECK(hipIpcOpenEventHandle(&opened, handle) == hipErrorInvalidContext,
          "opening an event handle in its own process must fail with hipErrorInvalidContext");
    // HIP 5.2 writes an interprocess event's shared flag with its own dispatch
    // (`__amd_rocclr_streamOpsWrite`) and unlocks the event's shared page when that command is
    // released, on its callback thread: sometimes after the next round has mapped its event on
    // the same, reused, address and locked it. Locks are counted per range, as in ROCt, so
    // that late unlock leaves the new lock alone (it used to drop it: a use after free in
    // the next round's write, docs/notes/ci-time.md Round 28).
    HIP_CHECK(hipEventDestroy(start));
    HIP_CHECK(hipEventDestroy(stop));
  }

  // A shared-memory object, mapped shared, registered and used by a kernel.
  char name[64];
  std::snprintf(name, sizeof name, "/hsaemu_event_ipc_%d", (int)getpid());
  int fd = shm_open(name, O_CREAT | O_RDWR | O_EXCL, 0600);
  CHECK(fd >= 0, "shm_open failed");
  shm_unlink(name);
  const size_t bytes = 2 * 4096;
  CHECK(ftruncate(fd, bytes) == 0, "ftruncate failed");
  void *m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(m != MAP_FAILED, "mmap failed");
  close(fd);
  // Register from an offset inside the mapping, as HIP does for the event's signal array.
  unsigned *host = reinterpret_cast<unsigned *>(static_cast<char *>(m) + 20);
  HIP_CHECK(hipHostRegister(host, n * sizeof(unsigned), hipHostRegisterDefault));
  unsigned *dev = nullptr;
  HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void **>(&dev), host, 0));
  std::printf("registered shared mapping: host %p, device %p\n", (void *)host, (void *)dev);
  hipLaunchKernelGGL(fill, dim3(n / 256), dim3(256), 0, 0, dev, n, 1000u);
  LAUNCH_CHECK();
  for (unsigned i = 0; i < n; i++)
    CHECK(host[i] == 1000u + i, "host[%u] = %u, want %u", i, host[i], 1000u + i);
  HIP_CHECK(hipHostUnregister(host));
  munmap(m, bytes);

  HIP_CHECK(hipFree(d));
  pass("event_ipc");
  return 0;
}
