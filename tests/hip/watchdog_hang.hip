// watchdog_hang: a kernel that spins forever must not hang the host. With the watchdog
// (HSAEMU_TIMEOUT=1, set by the child before its first HIP call) the dispatch is stopped after
// one second and reported on stderr with every live wave (kernel, PC, instruction, the address
// it polls); hipDeviceSynchronize is unblocked by the queue error: HIP 5.2's queue callback
// aborts the process (ROCclr's "callbackQueue aborting with error"), or HIP returns an error.
//
// The HIP work runs in a forked child as in fault_bad_pointer. The parent passes when the child
// first ran a good kernel, then either exited with status 3 (an error status from HIP) or was
// ended by SIGABRT, within 60 s. Exit 0 (the hang "completed"), another signal (a crash) or no
// exit in time (a hang) fail. Expected stdout on success:
//   good kernel ok
//   hang stopped by: <how>
//   PASS watchdog_hang
#include "hip_check.h"
#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

__global__ void good(int *p) { p[threadIdx.x] = threadIdx.x; }

__global__ void spin(volatile int *flag) {
  while (*flag == 0) {
  }
}

static int child() {
  setenv("HSAEMU_TIMEOUT", "1", 1);
  int *d;
  HIP_CHECK(hipMalloc(&d, 64 * sizeof(int)));
  HIP_CHECK(hipMemset(d, 0, 64 * sizeof(int)));
  hipLaunchKernelGGL(good, dim3(1), dim3(64), 0, 0, d);
  LAUNCH_CHECK();
  std::printf("good kernel ok\n");
  std::fflush(stdout);
  HIP_CHECK(hipMemset(d, 0, sizeof(int)));
  hipLaunchKernelGGL(spin, dim3(2), dim3(64), 0, 0, d); // *d stays 0: spins forever
  hipError_t err = hipDeviceSynchronize();
  if (err == hipSuccess) {
    std::printf("FAIL: hipDeviceSynchronize returned hipSuccess for a kernel that never ends\n");
    std::fflush(stdout);
    return 0;
  }
  std::printf("hang reported: %s\n", hipGetErrorName(err));
  std::fflush(stdout);
  return 3;
}

int main() {
  std::fflush(stdout);
  pid_t pid = fork();
  CHECK(pid >= 0, "fork failed: %s", std::strerror(errno));
  if (pid == 0)
    _exit(child());
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
    std::printf("FAIL: the spinning kernel was not stopped within 60 s (hang)\n");
    return 1;
  }
  CHECK(done == pid, "waitpid failed: %s", std::strerror(errno));
  if (WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    CHECK(code == 3, "child exited with status %d (0: hang not reported, 1: HIP set-up failed)", code);
    std::printf("hang stopped by: error status\n");
  } else if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    CHECK(sig == SIGABRT, "child killed by signal %d (%s): the host process crashed", sig, strsignal(sig));
    std::printf("hang stopped by: abort (HIP queue callback)\n");
  } else {
    CHECK(false, "unexpected wait status %#x", status);
  }
  pass("watchdog_hang");
  return 0;
}
