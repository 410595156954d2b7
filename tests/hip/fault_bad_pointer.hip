// fault_bad_pointer: a kernel that stores through a wild pointer must be reported as an error
// and must not crash or hang the host process in any other way.
//
// The HIP work runs in a child process (forked before any HIP call), because HIP 5.2 turns a
// GPU memory fault into abort() from ROCclr's queue callback ("callbackQueue aborting with
// error ...", or ROCr's "Memory access fault by GPU node-N ..."). The parent passes when the
// child either
//   - got an error status back from HIP (hipErrorIllegalAddress, hipErrorLaunchFailure, ...),
//     printed "fault reported: <error name>" and exited with status 3, or
//   - was ended by SIGABRT (HIP's documented reaction to a queue error),
// after first proving that HIP works by running a good kernel (a child that cannot even do that,
// e.g. "no device", exits 1 and the test fails). Any other outcome fails: exit 0 (fault not
// reported), a different signal such as SIGSEGV (the host process crashed), or no exit within
// HSAEMU_FAULT_TIMEOUT seconds (default 60: a hang). Expected stdout on success:
//   good kernel ok
//   (fault reported: <name>)          only in the error-status case
//   fault reported by: <how>
//   PASS fault_bad_pointer
#include "hip_check.h"
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

__global__ void good(int *p) { p[threadIdx.x] = threadIdx.x; }

__global__ void wild_store(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i * 1024] = i; // p is an unmapped address
}

static int child() {
  int *d;
  HIP_CHECK(hipMalloc(&d, 64 * sizeof(int)));
  hipLaunchKernelGGL(good, dim3(1), dim3(64), 0, 0, d);
  LAUNCH_CHECK();
  int h[64];
  HIP_CHECK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    CHECK(h[i] == i, "good kernel wrote %d at %d", h[i], i);
  std::printf("good kernel ok\n");
  std::fflush(stdout);
  // A canonical user-space address far from any allocation, page aligned.
  int *wild = (int *)(uintptr_t)0x00007f0dead00000ull;
  hipLaunchKernelGGL(wild_store, dim3(4), dim3(64), 0, 0, wild, 256);
  hipError_t launch = hipGetLastError();
  hipError_t sync = hipDeviceSynchronize();
  hipError_t err = launch != hipSuccess ? launch : sync;
  if (err == hipSuccess) {
    std::printf("FAIL: the wild store was not reported (launch and hipDeviceSynchronize returned hipSuccess)\n");
    std::fflush(stdout);
    return 0;
  }
  std::printf("fault reported: %s (%s)\n", hipGetErrorName(err), hipGetErrorString(err));
  std::fflush(stdout);
  return 3;
}

int main() {
  std::fflush(stdout);
  pid_t pid = fork();
  CHECK(pid >= 0, "fork failed: %s", std::strerror(errno));
  if (pid == 0)
    _exit(child());
  int timeout_s = 60;
  if (const char *t = std::getenv("HSAEMU_FAULT_TIMEOUT"))
    timeout_s = std::atoi(t) > 0 ? std::atoi(t) : timeout_s;
  int status = 0;
  pid_t done = 0;
  for (int waited_ms = 0; waited_ms < timeout_s * 1000; waited_ms += 50) {
    done = waitpid(pid, &status, WNOHANG);
    if (done != 0)
      break;
    usleep(50 * 1000);
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    std::printf("FAIL: the faulting process did not finish within %d s (hang)\n", timeout_s);
    return 1;
  }
  CHECK(done == pid, "waitpid failed: %s", std::strerror(errno));
  if (WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    CHECK(code == 3, "child exited with status %d (0: fault not reported, 1: HIP set-up failed)", code);
    std::printf("fault reported by: error status\n");
  } else if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    CHECK(sig == SIGABRT, "child killed by signal %d (%s): the host process crashed instead of reporting the fault",
          sig, strsignal(sig));
    std::printf("fault reported by: abort (HIP queue callback)\n");
  } else {
    CHECK(false, "unexpected wait status %#x", status);
  }
  pass("fault_bad_pointer");
  return 0;
}
