// device_props: hipGetDeviceCount, hipGetDeviceProperties and hipDeviceGetAttribute sanity
// (the values HIP derives from the HSA agent attributes), hipSetDevice/hipGetDevice,
// hipDeviceGetName, hipDeviceGetPCIBusId, hipRuntimeGetVersion/hipDriverGetVersion, and
// hipMemGetInfo; a kernel reports the wavefront size it sees. Prints the main properties.
#include "hip_check.h"
#include <cstring>

__global__ void report_warp_size(int *out) {
  if (threadIdx.x == 0)
    *out = warpSize;
}

int main() {
  int count = 0;
  HIP_CHECK(hipGetDeviceCount(&count));
  CHECK(count >= 1, "device count %d", count);
  HIP_CHECK(hipSetDevice(0));
  int dev = -1;
  HIP_CHECK(hipGetDevice(&dev));
  CHECK(dev == 0, "current device %d", dev);
  CHECK(hipSetDevice(count) != hipSuccess, "hipSetDevice(%d) succeeded with %d devices", count, count);

  hipDeviceProp_t p;
  HIP_CHECK(hipGetDeviceProperties(&p, 0));
  std::printf("name=%s gcnArchName=%s arch=%d CUs=%d warpSize=%d maxThreadsPerBlock=%d\n", p.name, p.gcnArchName,
              p.gcnArch, p.multiProcessorCount, p.warpSize, p.maxThreadsPerBlock);
  std::printf("totalGlobalMem=%zu sharedMemPerBlock=%zu clockRate=%d l2=%d major=%d minor=%d\n", p.totalGlobalMem,
              p.sharedMemPerBlock, p.clockRate, p.l2CacheSize, p.major, p.minor);
  CHECK(std::strlen(p.name) > 0, "empty device name");
  CHECK(std::strncmp(p.gcnArchName, "gfx", 3) == 0, "gcnArchName '%s'", p.gcnArchName);
  CHECK(p.warpSize == 64 || p.warpSize == 32, "warpSize %d", p.warpSize);
  CHECK(p.maxThreadsPerBlock == 1024, "maxThreadsPerBlock %d", p.maxThreadsPerBlock);
  CHECK(p.maxThreadsDim[0] >= 1024 && p.maxThreadsDim[1] >= 1024 && p.maxThreadsDim[2] >= 1024, "maxThreadsDim %d %d %d",
        p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2]);
  CHECK(p.maxGridSize[0] > 0 && p.maxGridSize[1] > 0 && p.maxGridSize[2] > 0, "maxGridSize");
  CHECK(p.multiProcessorCount > 0, "multiProcessorCount %d", p.multiProcessorCount);
  CHECK(p.totalGlobalMem > (64u << 20), "totalGlobalMem %zu", p.totalGlobalMem);
  CHECK(p.sharedMemPerBlock >= 32768, "sharedMemPerBlock %zu", p.sharedMemPerBlock);
  CHECK(p.regsPerBlock > 0, "regsPerBlock %d", p.regsPerBlock);
  CHECK(p.clockRate > 0, "clockRate %d", p.clockRate);
  CHECK(p.maxThreadsPerMultiProcessor >= p.warpSize, "maxThreadsPerMultiProcessor %d", p.maxThreadsPerMultiProcessor);
  CHECK(p.l2CacheSize >= 0, "l2CacheSize %d", p.l2CacheSize);
  CHECK(p.major >= 8, "major %d (gfx8 and later report 8, 9, 10)", p.major);
  CHECK(p.canMapHostMemory == 1, "canMapHostMemory %d", p.canMapHostMemory);

  int attr = 0;
  HIP_CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeWarpSize, 0));
  CHECK(attr == p.warpSize, "attribute warp size %d vs property %d", attr, p.warpSize);
  HIP_CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeMultiprocessorCount, 0));
  CHECK(attr == p.multiProcessorCount, "attribute CU count %d", attr);
  HIP_CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeMaxThreadsPerBlock, 0));
  CHECK(attr == p.maxThreadsPerBlock, "attribute max threads %d", attr);
  HIP_CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeMaxSharedMemoryPerBlock, 0));
  CHECK((size_t)attr == p.sharedMemPerBlock, "attribute shared mem %d", attr);

  int *dws, device_ws = 0;
  HIP_CHECK(hipMalloc(&dws, sizeof(int)));
  hipLaunchKernelGGL(report_warp_size, dim3(1), dim3(64), 0, 0, dws);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(&device_ws, dws, sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(dws));
  CHECK(device_ws == p.warpSize, "device code sees warpSize %d, property %d", device_ws, p.warpSize);

  char name[256];
  HIP_CHECK(hipDeviceGetName(name, sizeof(name), 0));
  CHECK(std::strlen(name) > 0, "empty hipDeviceGetName");
  char bus[64];
  HIP_CHECK(hipDeviceGetPCIBusId(bus, sizeof(bus), 0));
  int runtime_version = 0, driver_version = 0;
  HIP_CHECK(hipRuntimeGetVersion(&runtime_version));
  HIP_CHECK(hipDriverGetVersion(&driver_version));
  CHECK(runtime_version > 0, "runtime version %d", runtime_version);
  size_t free_mem = 0, total_mem = 0;
  HIP_CHECK(hipMemGetInfo(&free_mem, &total_mem));
  CHECK(total_mem > 0 && free_mem <= total_mem, "hipMemGetInfo free %zu total %zu", free_mem, total_mem);
  std::printf("pci=%s runtime=%d driver=%d free=%zu total=%zu\n", bus, runtime_version, driver_version, free_mem,
              total_mem);
  pass("device_props");
  return 0;
}
