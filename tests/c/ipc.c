/* IPC between two processes: the parent shares a pool allocation and an IPC signal; a second
 * process (this program, exec'd with "child") attaches both, checks the parent's bytes, has a
 * kernel bump a counter in the shared memory, writes bytes of its own, and signals. The parent
 * then sees the child's bytes and the kernel's count in its own allocation, at its own
 * address. Also ROCr's statuses for misuse of the IPC calls.
 *
 * usage: ipc KERNELS.hsaco (runtime_kernels.cl: `count`) */
#include "check.h"

#include <sys/wait.h>

#define SIZE (3 * 4096 + 100)

static hsa_status_t global_pool_cb(hsa_amd_memory_pool_t pool, void *data) {
  hsa_amd_segment_t seg;
  OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  bool alloc = false;
  OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc));
  if (seg == HSA_AMD_SEGMENT_GLOBAL && alloc) {
    *(hsa_amd_memory_pool_t *)data = pool;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

static void hex_out(const void *p, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static void hex_in(const char *s, void *p, size_t n) {
  CHECK(strlen(s) == 2 * n);
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    CHECK(sscanf(s + 2 * i, "%2x", &v) == 1);
    ((unsigned char *)p)[i] = (unsigned char)v;
  }
}

static int child(const char *kernels, const char *mem_hex, const char *sig_hex) {
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu();
  hsa_amd_ipc_memory_t mh;
  hsa_amd_ipc_signal_t sh;
  hex_in(mem_hex, &mh, sizeof mh);
  hex_in(sig_hex, &sh, sizeof sh);
  /* More than was shared is refused. */
  void *p = NULL;
  CHECK_STATUS(hsa_amd_ipc_memory_attach(&mh, 4 * 4096 + 1, 1, &gpu, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OK(hsa_amd_ipc_memory_attach(&mh, SIZE, 1, &gpu, &p));
  unsigned char *bytes = p;
  for (int i = 0; i < SIZE - 4; i++) CHECK(bytes[i] == (unsigned char)(i * 7));
  hsa_amd_pointer_info_t info = {.size = sizeof info};
  OK(hsa_amd_pointer_info(p, &info, NULL, NULL, NULL));
  CHECK(info.type == HSA_EXT_POINTER_TYPE_IPC);

  /* A kernel counts 256 work-items into the shared memory's last word. */
  uint32_t kernarg_size = 0;
  uint64_t count = load_kernel(gpu, kernels, "count", &kernarg_size);
  hsa_region_t kernarg_region = find_kernarg_region(gpu);
  void **kernarg = NULL;
  OK(hsa_memory_allocate(kernarg_region, kernarg_size, (void **)&kernarg));
  memset(kernarg, 0, kernarg_size);
  kernarg[0] = bytes + SIZE - 4;
  hsa_queue_t *q = NULL;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, 0, 0, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  submit_dispatch(q, count, kernarg, 256, 64, done);
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);

  for (int i = 0; i < 4096; i++) bytes[i] = (unsigned char)(255 - i);

  hsa_signal_t s;
  OK(hsa_amd_ipc_signal_attach(&sh, &s));
  CHECK(hsa_signal_load_scacquire(s) == 5);
  hsa_signal_subtract_screlease(s, 5);

  OK(hsa_amd_ipc_memory_detach(p));
  CHECK_STATUS(hsa_amd_ipc_memory_detach(p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OK(hsa_queue_destroy(q));
  OK(hsa_shut_down());
  printf("child PASS\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && strcmp(argv[1], "child") == 0) return child(argv[2], argv[3], argv[4]);
  CHECK(argc == 2);
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu();
  hsa_amd_memory_pool_t pool = {0};
  CHECK_STATUS(hsa_amd_agent_iterate_memory_pools(gpu, global_pool_cb, &pool), HSA_STATUS_INFO_BREAK);
  unsigned char *buf = NULL;
  OK(hsa_amd_memory_pool_allocate(pool, SIZE, 0, (void **)&buf));
  for (int i = 0; i < SIZE; i++) buf[i] = (unsigned char)(i * 7);
  buf[SIZE - 4] = buf[SIZE - 3] = buf[SIZE - 2] = buf[SIZE - 1] = 0;

  hsa_amd_ipc_memory_t mh;
  /* ROCr: only a whole allocation, from its start, with its size. */
  CHECK_STATUS(hsa_amd_ipc_memory_create(buf + 4096, SIZE - 4096, &mh), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_amd_ipc_memory_create(buf, SIZE - 4096, &mh), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_amd_ipc_memory_create(buf, SIZE, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  int on_stack = 0;
  CHECK_STATUS(hsa_amd_ipc_memory_create(&on_stack, sizeof on_stack, &mh), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OK(hsa_amd_ipc_memory_create(buf, SIZE, &mh));
  /* Exporting moved nothing. */
  for (int i = 0; i < SIZE - 4; i++) CHECK(buf[i] == (unsigned char)(i * 7));
  hsa_amd_ipc_memory_t again;
  OK(hsa_amd_ipc_memory_create(buf, SIZE, &again));
  CHECK(memcmp(&mh, &again, sizeof mh) == 0);
  hsa_amd_ipc_memory_t garbage;
  memset(&garbage, 0x5a, sizeof garbage);
  void *p = NULL;
  CHECK_STATUS(hsa_amd_ipc_memory_attach(&garbage, 0, 0, NULL, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_amd_ipc_memory_detach(buf), HSA_STATUS_ERROR_INVALID_ARGUMENT);

  hsa_signal_t plain, s;
  OK(hsa_signal_create(0, 0, NULL, &plain));
  hsa_amd_ipc_signal_t sh;
  CHECK_STATUS(hsa_amd_ipc_signal_create(plain, &sh), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OK(hsa_amd_signal_create(5, 0, NULL, HSA_AMD_SIGNAL_IPC, &s));
  OK(hsa_amd_ipc_signal_create(s, &sh));

  char mem_hex[2 * sizeof mh + 1], sig_hex[2 * sizeof sh + 1];
  hex_out(&mh, sizeof mh, mem_hex);
  hex_out(&sh, sizeof sh, sig_hex);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    execl("/proc/self/exe", argv[0], "child", argv[1], mem_hex, sig_hex, (char *)NULL);
    _exit(127);
  }
  /* Wait for the child's signal, in slices, so that a failing child fails the test at once. */
  int status = 0;
  pid_t exited = 0;
  while (hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, 10000000, HSA_WAIT_STATE_BLOCKED) != 0) {
    exited = waitpid(pid, &status, WNOHANG);
    CHECK(exited == 0);
  }
  if (exited == 0) CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (int i = 0; i < 4096; i++) CHECK(buf[i] == (unsigned char)(255 - i));
  for (int i = 4096; i < SIZE - 4; i++) CHECK(buf[i] == (unsigned char)(i * 7));
  uint32_t counted;
  memcpy(&counted, buf + SIZE - 4, 4);
  CHECK(counted == 256);

  /* The exporter frees its allocation; the handle no longer attaches. */
  OK(hsa_amd_memory_pool_free(buf));
  CHECK_STATUS(hsa_amd_ipc_memory_attach(&mh, 0, 0, NULL, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OK(hsa_signal_destroy(s));
  OK(hsa_signal_destroy(plain));
  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
