/* Benchmark: packet round trip — write a packet, ring the doorbell, wait (blocking) for the
 * completion signal — on one queue. Prints the median, mean and p99 in microseconds. The
 * packet is a barrier-AND packet by default, or a one-work-item dispatch of the kernel `empty`
 * when argv[1] names a code object built from tests/kernels/cl/runtime_kernels.cl. argv[2]
 * sets the number of round trips (default 2000). */
#include <time.h>
#include "check.h"

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}


int main(int argc, char **argv) {
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu();
  hsa_queue_t *q;
  OK(hsa_queue_create(gpu, 256, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, 0, 0, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  uint64_t kernel = argc > 1 ? load_kernel(gpu, argv[1], "empty", NULL) : 0;
  int N = argc > 2 ? atoi(argv[2]) : 2000;
  CHECK(N > 0);
  uint64_t *t = calloc((size_t)N, sizeof *t);
  uint64_t *busy = calloc((size_t)N, sizeof *busy);
  for (int i = 0; i < N; i++) {
    hsa_signal_store_relaxed(done, 1);
    uint64_t t0 = now_ns();
    if (kernel) {
      submit_dispatch(q, kernel, NULL, 1, 1, done);
    } else {
      submit_barrier(q, HSA_PACKET_TYPE_BARRIER_AND, NULL, 0, done);
    }
    CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    t[i] = now_ns() - t0;
    hsa_amd_profiling_dispatch_time_t pt;
    OK(hsa_amd_profiling_get_dispatch_time(gpu, done, &pt));
    busy[i] = pt.end - pt.start;
  }
  uint64_t sum = 0;
  for (int i = 0; i < N; i++) sum += t[i];
  qsort(t, N, sizeof t[0], cmp);
  qsort(busy, N, sizeof busy[0], cmp);
  printf("%s round trip: median %.2f us, mean %.2f us, p99 %.2f us\n", kernel ? "dispatch" : "barrier",
         t[N / 2] / 1000.0, (double)sum / N / 1000.0, t[N * 99 / 100] / 1000.0);
  printf("  of which executing the packet (median): %.2f us\n", busy[N / 2] / 1000.0);
  OK(hsa_queue_destroy(q));
  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
