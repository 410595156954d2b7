/* The host process never crashes and never hangs because of a kernel (issue 17), and queue
 * errors behave as in ROCr 5.2 (issue 15). argv[1]: a code object built from
 * tests/kernels/cl/reliability.cl; argv[2]: the case.
 *   errors    every malformed packet field is rejected with ROCr's status; the completion
 *             signal keeps its value, the read index stays, and the callback has returned
 *             before queue_inactive_signal (what the failure wakes) turns -1
 *   stop      hsa_queue_inactivate and hsa_queue_destroy stop a spinning kernel; hsa_shut_down
 *             returns with a kernel spinning
 *   watchdog  (HSAEMU_TIMEOUT=1) a spinning kernel is stopped and reported; prints the flag's
 *             address, which the report must name as the polled address
 *   free      ROUNDS times: free a 16 MiB buffer while 1024 work-groups write it; every run
 *             ends in a reported fault (or completes), never a crash
 *   uaf       a kernel storing into a freed 4 KiB buffer, after a signal was created, faults
 *   callee    a fault inside a called function (the report is checked by the Rust test)
 *   keep      pool memory stays readable and writable after the last hsa_shut_down
 *   pending   a malformed packet published just before hsa_queue_destroy (here without even
 *             ringing the doorbell) still reaches the error callback before destroy returns
 *   unload    the executable of a running kernel is destroyed: the kernel runs on and
 *             completes when released; a later dispatch of its kernel object is rejected */
#include <hsa/amd_hsa_queue.h>
#include <pthread.h>
#include <unistd.h>
#include "check.h"

static volatile hsa_status_t cb_status;
static void on_error(hsa_status_t status, hsa_queue_t *q, void *data) {
  (void)q; (void)data;
  usleep(20000); /* a slow callback: nothing the failure wakes may run before it returns */
  __atomic_store_n(&cb_status, status, __ATOMIC_SEQ_CST);
}

static hsa_amd_memory_pool_t pool;
static hsa_status_t global_pool(hsa_amd_memory_pool_t p, void *data) {
  (void)data;
  hsa_amd_segment_t seg;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  pool = p;
  return HSA_STATUS_INFO_BREAK;
}

static void *alloc(hsa_agent_t gpu, size_t size) {
  if (pool.handle == 0)
    CHECK_STATUS(hsa_amd_agent_iterate_memory_pools(gpu, global_pool, NULL), HSA_STATUS_INFO_BREAK);
  void *p = NULL;
  OK(hsa_amd_memory_pool_allocate(pool, size, 0, &p));
  return p;
}

static hsa_signal_t inactive_signal(hsa_queue_t *q) {
  return ((amd_queue_t *)q)->queue_inactive_signal;
}

/* Waits for the queue to report an error; the callback must have returned by then. */
static hsa_status_t wait_error(hsa_queue_t *q) {
  CHECK(hsa_signal_wait_scacquire(inactive_signal(q), HSA_SIGNAL_CONDITION_LT, 0, UINT64_MAX,
                                  HSA_WAIT_STATE_BLOCKED) == -1);
  hsa_status_t s = __atomic_load_n(&cb_status, __ATOMIC_SEQ_CST);
  CHECK(s != 0);
  cb_status = 0;
  return s;
}

/* ---- errors ---- */
typedef struct {
  const char *what;
  uint16_t type, setup, header_extra;
  uint16_t wg[3];
  uint32_t grid[3];
  uint32_t group, private_size;
  int kernel; /* 0: null, 1: the real kernel, 2: a registered address that is no kernel */
  int completion; /* 0: a live signal, 1: garbage, 2: destroyed */
  hsa_status_t expected;
} bad_packet_t;

static void check_rejected(hsa_agent_t gpu, uint64_t kernel, void *junk, const bad_packet_t *b) {
  hsa_queue_t *q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, on_error, NULL, 0, 0, &q));
  hsa_signal_t done, dead;
  OK(hsa_signal_create(1, 0, NULL, &done));
  OK(hsa_signal_create(1, 0, NULL, &dead));
  OK(hsa_signal_destroy(dead));
  uint64_t id = hsa_queue_add_write_index_relaxed(q, 1);
  hsa_kernel_dispatch_packet_t *p = (hsa_kernel_dispatch_packet_t *)q->base_address + id;
  memset((char *)p + 4, 0, 60);
  p->workgroup_size_x = b->wg[0];
  p->workgroup_size_y = b->wg[1];
  p->workgroup_size_z = b->wg[2];
  p->grid_size_x = b->grid[0];
  p->grid_size_y = b->grid[1];
  p->grid_size_z = b->grid[2];
  p->group_segment_size = b->group;
  p->private_segment_size = b->private_size;
  p->kernel_object = b->kernel == 0 ? 0 : b->kernel == 1 ? kernel : (uint64_t)(uintptr_t)junk;
  p->completion_signal = b->completion == 0 ? done : b->completion == 1 ? (hsa_signal_t){0x123450}
                                                                        : dead;
  publish(p, (uint16_t)((b->type << HSA_PACKET_HEADER_TYPE) | b->header_extra), b->setup);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)id);
  hsa_status_t s = wait_error(q);
  if (s != b->expected) {
    const char *m = "?";
    hsa_status_string(s, &m);
    fprintf(stderr, "%s: status 0x%x (%s), expected 0x%x\n", b->what, s, m, b->expected);
    exit(1);
  }
  /* ROCr leaves the completion signal alone, and the packet at the read index. */
  CHECK(hsa_signal_load_scacquire(done) == 1);
  CHECK(hsa_queue_load_read_index_scacquire(q) == 0);
  OK(hsa_queue_destroy(q));
  OK(hsa_signal_destroy(done));
  printf("rejected: %s\n", b->what);
}

static void errors(hsa_agent_t gpu, uint64_t kernel) {
  static int junk[64];
  OK(hsa_memory_register(junk, sizeof junk));
  const uint16_t KD = HSA_PACKET_TYPE_KERNEL_DISPATCH;
  const bad_packet_t cases[] = {
      {"dimensions 0", KD, 0, 0, {1, 1, 1}, {1, 1, 1}, 0, 0, 1, 0, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS},
      {"work-group x 0", KD, 1, 0, {0, 1, 1}, {1, 1, 1}, 0, 0, 1, 0, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS},
      {"grid z 0", KD, 3, 0, {1, 1, 1}, {1, 1, 0}, 0, 0, 1, 0, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS},
      {"work-group 2048x2048x1024 (2^32 work-items)", KD, 3, 0, {2048, 2048, 1024}, {2048, 2048, 1024}, 0, 0, 1, 0,
       HSA_STATUS_ERROR_INVALID_ARGUMENT},
      {"work-group 2x33284x64520 (wraps to 64)", KD, 3, 0, {2, 33284, 64520}, {2, 33284, 64520}, 0, 0, 1, 0,
       HSA_STATUS_ERROR_INVALID_ARGUMENT},
      {"work-group y 1025", KD, 2, 0, {1, 1025, 1}, {1, 1025, 1}, 0, 0, 1, 0, HSA_STATUS_ERROR_INVALID_ARGUMENT},
      {"work-group 64x32 = 2048 work-items", KD, 2, 0, {64, 32, 1}, {64, 32, 1}, 0, 0, 1, 0,
       HSA_STATUS_ERROR_INVALID_ARGUMENT},
      {"group segment 1 MiB", KD, 1, 0, {64, 1, 1}, {64, 1, 1}, 1 << 20, 0, 1, 0, HSA_STATUS_ERROR_INVALID_ALLOCATION},
      {"private segment 0xffffffff", KD, 1, 0, {64, 1, 1}, {64, 1, 1}, 0, 0xffffffffu, 1, 0,
       HSA_STATUS_ERROR_OUT_OF_RESOURCES},
      {"null kernel object", KD, 1, 0, {64, 1, 1}, {64, 1, 1}, 0, 0, 0, 0, HSA_STATUS_ERROR_INVALID_CODE_OBJECT},
      {"kernel object that is no kernel", KD, 1, 0, {64, 1, 1}, {64, 1, 1}, 0, 0, 2, 0,
       HSA_STATUS_ERROR_INVALID_CODE_OBJECT},
      {"reserved setup bits", KD, 1 | 0x100, 0, {64, 1, 1}, {64, 1, 1}, 0, 0, 1, 0, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
      {"acquire fence scope 3", KD, 1, 3 << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE, {64, 1, 1}, {64, 1, 1}, 0, 0, 1, 0,
       HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
      {"release fence scope 3", KD, 1, 3 << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE, {64, 1, 1}, {64, 1, 1}, 0, 0, 1,
       0, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
      {"vendor-specific packet of an unknown format", 0, 1, 0, {64, 1, 1}, {64, 1, 1}, 0, 0, 1, 0, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
      {"packet type 9", 9, 1, 0, {64, 1, 1}, {64, 1, 1}, 0, 0, 1, 0, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
      {"agent dispatch on a kernel queue", HSA_PACKET_TYPE_AGENT_DISPATCH, 1, 0, {64, 1, 1}, {64, 1, 1}, 0, 0, 1, 0,
       HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
      {"garbage completion signal", KD, 1, 0, {64, 1, 1}, {64, 1, 1}, 0, 0, 1, 1, HSA_STATUS_ERROR_INVALID_SIGNAL},
      {"destroyed completion signal", KD, 1, 0, {64, 1, 1}, {64, 1, 1}, 0, 0, 1, 2, HSA_STATUS_ERROR_INVALID_SIGNAL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_rejected(gpu, kernel, junk, &cases[i]);
}

/* ---- spinning kernels ---- */
static hsa_queue_t *start_spin_wg(hsa_agent_t gpu, uint64_t spin, int *flag, hsa_signal_t *done, int with_cb,
                                  uint16_t wg);
static hsa_queue_t *start_spin(hsa_agent_t gpu, uint64_t spin, int *flag, hsa_signal_t *done, int with_cb) {
  return start_spin_wg(gpu, spin, flag, done, with_cb, 64);
}
static hsa_queue_t *start_spin_wg(hsa_agent_t gpu, uint64_t spin, int *flag, hsa_signal_t *done, int with_cb,
                                  uint16_t wg) {
  void **kernarg = alloc(gpu, 4096);
  kernarg[0] = flag;
  hsa_queue_t *q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, with_cb ? on_error : NULL, NULL, 0, 0, &q));
  OK(hsa_signal_create(1, 0, NULL, done));
  submit_dispatch(q, spin, kernarg, 4 * wg, wg, *done);
  usleep(100000);
  CHECK(hsa_signal_load_scacquire(*done) == 1); /* still spinning */
  return q;
}

static void stop(hsa_agent_t gpu, uint64_t spin, uint64_t spin_barrier) {
  int *flag = alloc(gpu, 4096);
  hsa_signal_t done;
  /* Waves looping around a barrier are stopped as well. */
  hsa_queue_t *q = start_spin_wg(gpu, spin_barrier, flag, &done, 1, 128);
  OK(hsa_queue_destroy(q));
  CHECK(hsa_signal_load_scacquire(done) == 1);
  q = start_spin(gpu, spin, flag, &done, 1);
  OK(hsa_queue_inactivate(q));
  OK(hsa_queue_destroy(q)); /* returns: the dispatch stopped */
  CHECK(hsa_signal_load_scacquire(done) == 1);
  CHECK(cb_status == 0); /* an inactivation is not an error */
  q = start_spin(gpu, spin, flag, &done, 1);
  OK(hsa_queue_destroy(q));
  printf("inactivate and destroy stopped the kernel\n");
  q = start_spin(gpu, spin, flag, &done, 1);
  OK(hsa_shut_down()); /* returns although the kernel spins */
  printf("shut-down stopped the kernel\n");
}

static void watchdog(hsa_agent_t gpu, uint64_t spin) {
  int *flag = alloc(gpu, 4096);
  hsa_signal_t done;
  printf("flag at %p\n", (void *)flag);
  fflush(stdout);
  hsa_queue_t *q = start_spin(gpu, spin, flag, &done, 1);
  CHECK_STATUS(wait_error(q), HSA_STATUS_ERROR);
  CHECK(hsa_signal_load_scacquire(done) == 1);
  OK(hsa_queue_destroy(q));
  printf("the watchdog stopped the kernel\n");
}

/* ---- freed memory ---- */
static void free_while_running(hsa_agent_t gpu, uint64_t write_loop, int rounds) {
  enum { N = 4 << 20 }; /* 16 MiB of ints */
  void **kernarg = alloc(gpu, 4096);
  int faults = 0, completed = 0;
  for (int r = 0; r < rounds; r++) {
    int *buf = alloc(gpu, N * sizeof(int));
    kernarg[0] = buf;
    ((int *)kernarg)[2] = N;
    ((int *)kernarg)[3] = 1000;
    hsa_queue_t *q;
    OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, on_error, NULL, 0, 0, &q));
    hsa_signal_t done;
    OK(hsa_signal_create(1, 0, NULL, &done));
    uint64_t id = hsa_queue_add_write_index_scacq_screl(q, 1);
    hsa_kernel_dispatch_packet_t *p = (hsa_kernel_dispatch_packet_t *)q->base_address + id;
    memset((char *)p + 4, 0, 60);
    p->workgroup_size_x = 64;
    p->workgroup_size_y = p->workgroup_size_z = 1;
    p->grid_size_x = 1024 * 64;
    p->grid_size_y = p->grid_size_z = 1;
    p->kernel_object = write_loop;
    p->kernarg_address = kernarg;
    p->completion_signal = done;
    publish(p, (uint16_t)(HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE), 1);
    hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)id);
    usleep(1000 * (10 + (r * 7) % 40));
    OK(hsa_amd_memory_pool_free(buf));
    /* Either the kernel had finished, or it faults on the freed buffer. */
    for (;;) {
      if (hsa_signal_load_scacquire(done) == 0) {
        completed++;
        break;
      }
      if (hsa_signal_load_scacquire(inactive_signal(q)) < 0) {
        CHECK_STATUS(wait_error(q), HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);
        faults++;
        break;
      }
      usleep(1000);
    }
    OK(hsa_queue_destroy(q));
    OK(hsa_signal_destroy(done));
  }
  printf("free-while-running: %d runs, %d faults reported, %d completed first, 0 crashes\n", rounds, faults,
         completed);
  CHECK(faults > 0);
}

static void use_after_free(hsa_agent_t gpu, uint64_t write_loop) {
  void **kernarg = alloc(gpu, 4096);
  int *buf = alloc(gpu, 4096);
  OK(hsa_amd_memory_pool_free(buf));
  /* New objects after the free must not take its addresses. */
  hsa_signal_t sigs[16];
  for (int i = 0; i < 16; i++) {
    OK(hsa_signal_create(7, 0, NULL, &sigs[i]));
    CHECK((uintptr_t)sigs[i].handle - (uintptr_t)buf >= 4096);
  }
  int *other = alloc(gpu, 4096);
  CHECK((uintptr_t)other - (uintptr_t)buf >= 4096);
  kernarg[0] = buf;
  ((int *)kernarg)[2] = 1024;
  ((int *)kernarg)[3] = 1;
  hsa_queue_t *q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, on_error, NULL, 0, 0, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  submit_dispatch(q, write_loop, kernarg, 64, 64, done);
  CHECK_STATUS(wait_error(q), HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);
  for (int i = 0; i < 16; i++) CHECK(hsa_signal_load_scacquire(sigs[i]) == 7);
  printf("use after free reported at %p\n", (void *)buf);
}

static void callee(hsa_agent_t gpu, uint64_t call_fault) {
  void **kernarg = alloc(gpu, 4096);
  kernarg[0] = (void *)0x1000; /* a wild pointer */
  hsa_queue_t *q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, on_error, NULL, 0, 0, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  submit_dispatch(q, call_fault, kernarg, 64, 64, done);
  CHECK_STATUS(wait_error(q), HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);
  printf("callee fault reported\n");
}

static void keep(hsa_agent_t gpu) {
  int *p = alloc(gpu, 1 << 20);
  for (int i = 0; i < (1 << 18); i++) p[i] = i;
  OK(hsa_init()); /* a second reference: memory survives until the last shut-down, and after */
  OK(hsa_shut_down());
  OK(hsa_shut_down());
  for (int i = 0; i < (1 << 18); i++) CHECK(p[i] == i);
  p[5] = -5;
  CHECK(p[5] == -5);
  printf("pool memory valid after shut-down\n");
}

/* ---- destroy right after publishing ---- */
static void pending(hsa_agent_t gpu, uint64_t kernel) {
  static int junk[64];
  for (int i = 0; i < 20; i++) {
    hsa_queue_t *q;
    OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, on_error, NULL, 0, 0, &q));
    hsa_signal_t done;
    OK(hsa_signal_create(1, 0, NULL, &done));
    uint64_t id = hsa_queue_add_write_index_relaxed(q, 1);
    hsa_kernel_dispatch_packet_t *p = (hsa_kernel_dispatch_packet_t *)q->base_address + (id & (q->size - 1));
    memset((char *)p + 4, 0, sizeof(*p) - 4);
    p->workgroup_size_x = 0xffff; /* beyond 1024: INVALID_ARGUMENT */
    p->workgroup_size_y = p->workgroup_size_z = 1;
    p->grid_size_x = 0xffff;
    p->grid_size_y = p->grid_size_z = 1;
    p->kernel_object = kernel;
    p->kernarg_address = junk;
    p->completion_signal = done;
    publish(p, (uint16_t)((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                          (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                          (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE)),
            1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    OK(hsa_queue_destroy(q));
    CHECK(__atomic_load_n(&cb_status, __ATOMIC_SEQ_CST) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    cb_status = 0;
    CHECK(hsa_signal_load_scacquire(done) == 1);
    OK(hsa_signal_destroy(done));
  }
  printf("20 packets published just before destroy reached the callback\n");
}

/* ---- a code object destroyed under its kernel ---- */
static void unload(hsa_agent_t gpu, const char *path) {
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  hsa_code_object_reader_t reader;
  OK(hsa_code_object_reader_create_from_file(fd, &reader));
  close(fd);
  hsa_executable_t exe;
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  OK(hsa_executable_freeze(exe, NULL));
  hsa_executable_symbol_t sym;
  OK(hsa_executable_get_symbol_by_name(exe, "spin.kd", &gpu, &sym));
  uint64_t spin = 0;
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &spin));
  int *flag = alloc(gpu, 4096);
  hsa_signal_t done;
  hsa_queue_t *q = start_spin(gpu, spin, flag, &done, 1);
  OK(hsa_executable_destroy(exe));
  OK(hsa_code_object_reader_destroy(reader));
  usleep(50000);
  CHECK(hsa_signal_load_scacquire(done) == 1); /* still running its code */
  __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  CHECK(cb_status == 0);
  printf("the kernel of a destroyed executable ran to its end\n");
  /* Its kernel object is gone: a new dispatch of it is an error on the queue, not a crash. */
  hsa_signal_t again;
  OK(hsa_signal_create(1, 0, NULL, &again));
  void **kernarg = alloc(gpu, 4096);
  kernarg[0] = flag;
  submit_dispatch(q, spin, kernarg, 64, 64, again);
  CHECK_STATUS(wait_error(q), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  CHECK(hsa_signal_load_scacquire(again) == 1);
  OK(hsa_queue_destroy(q));
  printf("a dispatch of the destroyed kernel object was rejected\n");
}

int main(int argc, char **argv) {
  CHECK(argc >= 3);
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu();
  const char *mode = argv[2];
  if (!strcmp(mode, "errors")) {
    errors(gpu, load_kernel(gpu, argv[1], "write_loop", NULL));
  } else if (!strcmp(mode, "stop")) {
    stop(gpu, load_kernel(gpu, argv[1], "spin", NULL), load_kernel(gpu, argv[1], "spin_barrier", NULL));
    printf("PASS\n");
    return 0;
  } else if (!strcmp(mode, "watchdog")) {
    watchdog(gpu, load_kernel(gpu, argv[1], "spin", NULL));
  } else if (!strcmp(mode, "free")) {
    free_while_running(gpu, load_kernel(gpu, argv[1], "write_loop", NULL), argc > 3 ? atoi(argv[3]) : 20);
  } else if (!strcmp(mode, "uaf")) {
    use_after_free(gpu, load_kernel(gpu, argv[1], "write_loop", NULL));
  } else if (!strcmp(mode, "callee")) {
    callee(gpu, load_kernel(gpu, argv[1], "call_fault", NULL));
  } else if (!strcmp(mode, "pending")) {
    pending(gpu, load_kernel(gpu, argv[1], "write_loop", NULL));
  } else if (!strcmp(mode, "unload")) {
    unload(gpu, argv[1]);
  } else if (!strcmp(mode, "keep")) {
    keep(gpu);
    printf("PASS\n");
    return 0;
  } else {
    CHECK(!"unknown mode");
  }
  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
