/* Stress: 8 producer threads each submit 10,000 rounds across 4 shared (MULTI) queues while
 * 2 more threads hammer signals; every completion signal must reach exactly 0, every queue's
 * read index must equal its write index, and nothing may deadlock. With argv[2], a code object
 * built from tests/kernels/cl/runtime_kernels.cl, every round is a kernel dispatch of `count`
 * (64 work-items incrementing one counter, which must end exact) and every 8th round adds a
 * barrier-AND packet that depends on a signal the noise threads keep storing; without it,
 * every round is a barrier-AND packet. argv[1] overrides the per-thread round count. */
#include <pthread.h>
#include <time.h>
#include "check.h"

#define PRODUCERS 8
#define QUEUES 4
static int packets = 10000;
static hsa_queue_t *queues[QUEUES];
static hsa_signal_t completions[PRODUCERS];
static hsa_signal_t zero_dep, traffic, stop;
static uint64_t count_kernel;
static void **kernarg;
static int counter;
/* Packets one producer submits: a dispatch per round plus a barrier every 8th round. */
static int per_thread(void) { return count_kernel ? packets + packets / 8 : packets; }

static void *producer(void *arg) {
  long t = (long)arg;
  hsa_queue_t *q = queues[t % QUEUES];
  for (int i = 0; i < packets; i++) {
    if (count_kernel) {
      submit_dispatch(q, count_kernel, kernarg, 64, 64, completions[t]);
      if (i % 8 == 7) submit_barrier(q, HSA_PACKET_TYPE_BARRIER_AND, &zero_dep, 1, completions[t]);
    } else if (i % 8 == 7) {
      submit_barrier(q, HSA_PACKET_TYPE_BARRIER_AND, &zero_dep, 1, completions[t]);
    } else {
      submit_barrier(q, HSA_PACKET_TYPE_BARRIER_AND, NULL, 0, completions[t]);
    }
  }
  return NULL;
}

static void *noise(void *arg) {
  (void)arg;
  long n = 0;
  while (hsa_signal_load_relaxed(stop) == 0) {
    hsa_signal_add_scacq_screl(traffic, 1);
    hsa_signal_subtract_scacq_screl(traffic, 1);
    hsa_signal_store_screlease(zero_dep, 0);
    n++;
  }
  return (void *)n;
}

int main(int argc, char **argv) {
  if (argc > 1) packets = atoi(argv[1]);
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu();
  if (argc > 2) {
    count_kernel = load_kernel(gpu, argv[2], "count", NULL);
    kernarg = calloc(1, 4096);
    OK(hsa_memory_register(kernarg, 4096));
    OK(hsa_memory_register(&counter, sizeof counter));
    kernarg[0] = &counter;
  }
  for (int i = 0; i < QUEUES; i++) OK(hsa_queue_create(gpu, 1024, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &queues[i]));
  for (int i = 0; i < PRODUCERS; i++) OK(hsa_signal_create(per_thread(), 0, NULL, &completions[i]));
  OK(hsa_signal_create(0, 0, NULL, &zero_dep));
  OK(hsa_signal_create(0, 0, NULL, &traffic));
  OK(hsa_signal_create(0, 0, NULL, &stop));
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pthread_t th[PRODUCERS], nt[2];
  for (long i = 0; i < 2; i++) pthread_create(&nt[i], NULL, noise, NULL);
  for (long i = 0; i < PRODUCERS; i++) pthread_create(&th[i], NULL, producer, (void *)i);
  for (int i = 0; i < PRODUCERS; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < PRODUCERS; i++)
    CHECK(hsa_signal_wait_scacquire(completions[i], HSA_SIGNAL_CONDITION_EQ, 0, 60000000000ull, HSA_WAIT_STATE_BLOCKED) == 0);
  hsa_signal_store_screlease(stop, 1);
  for (int i = 0; i < 2; i++) pthread_join(nt[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  CHECK(hsa_signal_load_scacquire(traffic) == 0);
  uint64_t total = 0;
  for (int i = 0; i < QUEUES; i++) {
    uint64_t w = hsa_queue_load_write_index_scacquire(queues[i]);
    CHECK(hsa_queue_load_read_index_scacquire(queues[i]) == w);
    total += w;
    OK(hsa_queue_destroy(queues[i]));
  }
  CHECK(total == (uint64_t)PRODUCERS * (uint64_t)per_thread());
  if (count_kernel) CHECK(counter == PRODUCERS * packets * 64);
  for (int i = 0; i < PRODUCERS; i++) CHECK(hsa_signal_load_relaxed(completions[i]) == 0);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("stress: %llu packets (%d kernel dispatches) in %.2f s (%.0f packets/s)\n", (unsigned long long)total,
         count_kernel ? PRODUCERS * packets : 0, s, (double)total / s);
  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
