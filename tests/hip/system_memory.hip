// system_memory: with XNACK on (HSA_XNACK=1, as on MI200 with HMM) kernels read and write plain
// malloc'd and mmap'd host memory, and HIP reports managed and pageable memory access; an
// address the process has not mapped (or mapped read-only, for a store) is still a fault on the
// queue, never a crash of the host. With XNACK off (the default) malloc'd memory is refused.
//
// Each case runs in a child process (HIP 5.2 aborts the process on a GPU memory fault, and the
// XNACK mode is read once at hsa_init). A fault case passes when the child got an error status
// (exit 3) or was ended by SIGABRT (HIP's queue callback); SIGSEGV/SIGBUS or a hang fail.
// Expected stdout:
//   xnack on: managed 1 pageable 1
//   malloc: kernel read and wrote 4096 ints
//   mmap: kernel read and wrote 4096 ints
//   no-access mapping: fault reported
//   wild pointer: fault reported
//   read-only store: fault reported
//   xnack off: managed 0 pageable 0
//   xnack off malloc: fault reported
//   PASS system_memory
#include "hip_check.h"
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

constexpr int N = 4096;

__global__ void twice_plus_one(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 2 * p[i] + 1;
}

static void attributes(int want) {
  int managed = -1, pageable = -1;
  HIP_CHECK(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, 0));
  HIP_CHECK(hipDeviceGetAttribute(&pageable, hipDeviceAttributePageableMemoryAccess, 0));
  std::printf("xnack %s: managed %d pageable %d\n", want ? "on" : "off", managed, pageable);
  CHECK(managed == want && pageable == want, "managed %d pageable %d, want %d", managed, pageable, want);
}

static void run_on(const char *what, int *p) {
  for (int i = 0; i < N; i++)
    p[i] = i;
  hipLaunchKernelGGL(twice_plus_one, dim3(N / 256), dim3(256), 0, 0, p, N);
  LAUNCH_CHECK();
  HIP_CHECK(hipDeviceSynchronize());
  for (int i = 0; i < N; i++)
    CHECK(p[i] == 2 * i + 1, "%s: p[%d] = %d, want %d", what, i, p[i], 2 * i + 1);
  std::printf("%s: kernel read and wrote %d ints\n", what, N);
}

// Launches on `p`, which must fault: exit 3 when HIP returns an error (HIP may abort first).
static int faulting(int *p) {
  hipLaunchKernelGGL(twice_plus_one, dim3(1), dim3(64), 0, 0, p, 64);
  hipError_t launch = hipGetLastError();
  hipError_t sync = hipDeviceSynchronize();
  if (launch == hipSuccess && sync == hipSuccess) {
    std::printf("FAIL: the access was not reported\n");
    std::fflush(stdout);
    return 0;
  }
  return 3;
}

static int child(int which) {
  switch (which) {
  case 0: { // xnack on: attributes, malloc, mmap
    attributes(1);
    int *m = static_cast<int *>(std::malloc(N * sizeof(int)));
    CHECK(m != nullptr, "malloc failed");
    run_on("malloc", m);
    std::free(m);
    void *a = mmap(nullptr, N * sizeof(int), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(a != MAP_FAILED, "mmap failed: %s", std::strerror(errno));
    run_on("mmap", static_cast<int *>(a));
    munmap(a, N * sizeof(int));
    return 0;
  }
  case 1: { // xnack on: reserved address space with no access (PROT_NONE) is not reachable
    HIP_CHECK(hipDeviceSynchronize()); // HIP's own mappings first
    void *a = mmap(nullptr, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(a != MAP_FAILED, "mmap failed: %s", std::strerror(errno));
    return faulting(static_cast<int *>(a));
  }
  case 5: // xnack on: a wild pointer below mmap_min_addr, where nothing is ever mapped
    return faulting(reinterpret_cast<int *>(uintptr_t{0x8000}));
  case 2: { // xnack on: a read-only mapping is loaded, not stored
    void *a = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(a != MAP_FAILED, "mmap failed: %s", std::strerror(errno));
    return faulting(static_cast<int *>(a));
  }
  case 3: // xnack off: attributes
    attributes(0);
    return 0;
  case 4: { // xnack off: malloc'd memory is refused
    int *m = static_cast<int *>(std::malloc(N * sizeof(int)));
    CHECK(m != nullptr, "malloc failed");
    return faulting(m);
  }
  }
  return 1;
}

// Runs case `which` in a child with HSA_XNACK=`xnack`; `fault`: it must report a fault.
static void run_case(int which, const char *xnack, bool fault, const char *name) {
  std::fflush(stdout);
  pid_t pid = fork();
  CHECK(pid >= 0, "fork failed: %s", std::strerror(errno));
  if (pid == 0) {
    setenv("HSA_XNACK", xnack, 1);
    std::fflush(stdout);
    int rc = child(which);
    std::fflush(stdout);
    _exit(rc);
  }
  int status = 0;
  pid_t done = 0;
  for (int waited_ms = 0; waited_ms < 60 * 1000; waited_ms += 50) {
    done = waitpid(pid, &status, WNOHANG);
    if (done != 0)
      break;
    usleep(50 * 1000);
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    CHECK(false, "%s: the child did not finish within 60 s (hang)", name);
  }
  if (!fault) {
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: child ended with wait status %#x", name, status);
    return;
  }
  bool reported = (WIFEXITED(status) && WEXITSTATUS(status) == 3) ||
                  (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
  CHECK(reported, "%s: wait status %#x (exit 0: not reported; a signal other than SIGABRT: the host crashed)",
        name, status);
  std::printf("%s: fault reported\n", name);
}

int main() {
  run_case(0, "1", false, "xnack on");
  run_case(1, "1", true, "no-access mapping");
  run_case(5, "1", true, "wild pointer");
  run_case(2, "1", true, "read-only store");
  run_case(3, "0", false, "xnack off");
  run_case(4, "0", true, "xnack off malloc");
  pass("system_memory");
  return 0;
}
