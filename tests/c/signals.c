/* Signals: every value operation in every memory order (including ROCm's deprecated alias
 * names), every wait condition, timeouts, multi-threaded producers and waiters, wait-any,
 * async handlers and the value pointer. */
#include <pthread.h>
#include <time.h>
#include "check.h"

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define THREADS 4
#define ITERS 20000
static hsa_signal_t counter, go;

static void *adder(void *arg) {
  (void)arg;
  hsa_signal_wait_scacquire(go, HSA_SIGNAL_CONDITION_EQ, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
  for (int i = 0; i < ITERS; i++) {
    switch (i % 4) {
      case 0: hsa_signal_add_relaxed(counter, 1); break;
      case 1: hsa_signal_add_scacquire(counter, 1); break;
      case 2: hsa_signal_add_screlease(counter, 1); break;
      default: hsa_signal_add_scacq_screl(counter, 1); break;
    }
  }
  return NULL;
}

static hsa_signal_t ping, pong;
static void *ponger(void *arg) {
  (void)arg;
  for (int i = 1; i <= 1000; i++) {
    hsa_signal_wait_scacquire(ping, HSA_SIGNAL_CONDITION_GTE, i, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
    hsa_signal_store_screlease(pong, i);
  }
  return NULL;
}

static volatile int handler_calls;
static bool handler(hsa_signal_value_t v, void *arg) {
  CHECK(arg == (void *)0x1234);
  if (!(v == 7 || v == 8)) fprintf(stderr, "handler saw %ld\n", (long)v);
  CHECK(v == 7 || v == 8);
  /* Re-arm after the first call only (the value may still be 7 then: handlers are
   * level-triggered). */
  return __atomic_add_fetch(&handler_calls, 1, __ATOMIC_SEQ_CST) == 1;
}

int main(void) {
  OK(hsa_init());
  hsa_signal_t s;
  OK(hsa_signal_create(10, 0, NULL, &s));
  CHECK(s.handle != 0 && (s.handle % 64) == 0);
  CHECK(hsa_signal_load_relaxed(s) == 10);
  CHECK(hsa_signal_load_scacquire(s) == 10);
  CHECK(hsa_signal_load_acquire(s) == 10);
  hsa_signal_store_relaxed(s, 1);
  hsa_signal_store_screlease(s, 2);
  hsa_signal_store_release(s, 3);
  CHECK(hsa_signal_load_relaxed(s) == 3);
  hsa_signal_silent_store_relaxed(s, 4);
  hsa_signal_silent_store_screlease(s, 5);
  CHECK(hsa_signal_load_relaxed(s) == 5);
  CHECK(hsa_signal_exchange_relaxed(s, 6) == 5);
  CHECK(hsa_signal_exchange_scacquire(s, 7) == 6);
  CHECK(hsa_signal_exchange_screlease(s, 8) == 7);
  CHECK(hsa_signal_exchange_scacq_screl(s, 9) == 8);
  CHECK(hsa_signal_exchange_acquire(s, 10) == 9);
  CHECK(hsa_signal_exchange_release(s, 11) == 10);
  CHECK(hsa_signal_exchange_acq_rel(s, 12) == 11);
  CHECK(hsa_signal_cas_relaxed(s, 12, 13) == 12);
  CHECK(hsa_signal_cas_scacquire(s, 99, 14) == 13);
  CHECK(hsa_signal_cas_screlease(s, 13, 14) == 13);
  CHECK(hsa_signal_cas_scacq_screl(s, 14, 15) == 14);
  CHECK(hsa_signal_cas_acq_rel(s, 15, 16) == 15);
  CHECK(hsa_signal_load_relaxed(s) == 16);
  hsa_signal_add_relaxed(s, 4);      /* 20 */
  hsa_signal_subtract_scacquire(s, 5); /* 15 */
  hsa_signal_subtract_acq_rel(s, 5);   /* 10 */
  CHECK(hsa_signal_load_relaxed(s) == 10);
  hsa_signal_or_screlease(s, 0x5);   /* 0b1111 */
  hsa_signal_and_scacq_screl(s, 0x6); /* 0b0110 */
  hsa_signal_xor_relaxed(s, 0x3);    /* 0b0101 */
  CHECK(hsa_signal_load_relaxed(s) == 5);
  hsa_signal_and_release(s, 4);
  hsa_signal_or_acquire(s, 1);
  hsa_signal_xor_acq_rel(s, 8);
  CHECK(hsa_signal_load_relaxed(s) == 13);

  /* Every condition, satisfied immediately. */
  CHECK(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 13, UINT64_MAX, HSA_WAIT_STATE_ACTIVE) == 13);
  CHECK(hsa_signal_wait_relaxed(s, HSA_SIGNAL_CONDITION_NE, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 13);
  CHECK(hsa_signal_wait_acquire(s, HSA_SIGNAL_CONDITION_LT, 14, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 13);
  CHECK(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_GTE, 13, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 13);
  /* Unsatisfied with a 20 ms timeout: returns the current value after roughly the timeout. */
  uint64_t t0 = now_ns();
  CHECK(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, 20000000ull, HSA_WAIT_STATE_BLOCKED) == 13);
  uint64_t dt = now_ns() - t0;
  CHECK(dt >= 19000000ull && dt < 2000000000ull);
  CHECK(hsa_signal_wait_relaxed(s, HSA_SIGNAL_CONDITION_LT, 0, 1000000ull, HSA_WAIT_STATE_ACTIVE) == 13);

  /* Device-style update through the value pointer wakes a waiter. */
  volatile hsa_signal_value_t *vp = NULL;
  OK(hsa_amd_signal_value_pointer(s, &vp));
  CHECK((uint64_t)vp == s.handle + 8);
  *vp = 42;
  CHECK(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 42, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 42);

  /* Many threads adding with every order. */
  OK(hsa_signal_create(0, 0, NULL, &counter));
  OK(hsa_amd_signal_create(0, 0, NULL, 0, &go));
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&th[i], NULL, adder, NULL);
  hsa_signal_store_screlease(go, 1);
  CHECK(hsa_signal_wait_scacquire(counter, HSA_SIGNAL_CONDITION_GTE, THREADS * ITERS, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == THREADS * ITERS);
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  CHECK(hsa_signal_load_scacquire(counter) == THREADS * ITERS);

  /* Ping-pong between two threads: 1000 blocking round trips. */
  OK(hsa_signal_create(0, 0, NULL, &ping));
  OK(hsa_signal_create(0, 0, NULL, &pong));
  pthread_t p;
  pthread_create(&p, NULL, ponger, NULL);
  t0 = now_ns();
  for (int i = 1; i <= 1000; i++) {
    hsa_signal_store_screlease(ping, i);
    CHECK(hsa_signal_wait_scacquire(pong, HSA_SIGNAL_CONDITION_EQ, i, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == i);
  }
  pthread_join(p, NULL);
  printf("signal ping-pong round trip: %.1f us\n", (now_ns() - t0) / 1000.0 / 1000.0);

  /* wait_any */
  hsa_signal_t set[3] = {ping, pong, s};
  hsa_signal_condition_t conds[3] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ};
  hsa_signal_value_t vals[3] = {-1, -1, 42};
  hsa_signal_value_t seen = 0;
  CHECK(hsa_amd_signal_wait_any(3, set, conds, vals, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, &seen) == 2);
  CHECK(seen == 42);
  vals[2] = -1;
  CHECK(hsa_amd_signal_wait_any(3, set, conds, vals, 5000000ull, HSA_WAIT_STATE_BLOCKED, &seen) == UINT32_MAX);

  /* Signal groups. */
  hsa_signal_group_t group;
  hsa_signal_t members[2] = {ping, pong};
  OK(hsa_signal_group_create(2, members, 0, NULL, &group));
  hsa_signal_condition_t gconds[2] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_GTE};
  hsa_signal_value_t gvals[2] = {-7, 1000};
  hsa_signal_t which;
  hsa_signal_value_t gv = 0;
  OK(hsa_signal_group_wait_any_scacquire(group, gconds, gvals, HSA_WAIT_STATE_BLOCKED, &which, &gv));
  CHECK(which.handle == pong.handle && gv == 1000);
  OK(hsa_signal_group_destroy(group));
  CHECK_STATUS(hsa_signal_group_destroy(group), HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);

  /* async handler: fires at 7, re-arms, fires at 8, then stays off. */
  hsa_signal_t h;
  OK(hsa_signal_create(0, 0, NULL, &h));
  OK(hsa_amd_signal_async_handler(h, HSA_SIGNAL_CONDITION_GTE, 7, handler, (void *)0x1234));
  hsa_signal_store_screlease(h, 7);
  while (__atomic_load_n(&handler_calls, __ATOMIC_SEQ_CST) < 1) {}
  hsa_signal_store_screlease(h, 3); /* below the threshold: the re-armed handler waits */
  hsa_signal_store_screlease(h, 8);
  while (__atomic_load_n(&handler_calls, __ATOMIC_SEQ_CST) < 2) {}
  hsa_signal_store_screlease(h, 9);
  t0 = now_ns();
  while (now_ns() - t0 < 20000000ull) {}
  CHECK(handler_calls == 2);

  OK(hsa_signal_destroy(s));
  CHECK_STATUS(hsa_signal_destroy(s), HSA_STATUS_ERROR_INVALID_SIGNAL);
  hsa_signal_t zero = {0};
  CHECK_STATUS(hsa_signal_destroy(zero), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_signal_create(1, 0, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_signal_create(1, 1, NULL, &s), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
