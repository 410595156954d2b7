/* Memory operations: hsa_memory_copy, hsa_amd_memory_fill, asynchronous copies (immediate,
 * waiting for a dependency signalled later by another thread, a negative dependency) and
 * rectangular copies, pointer information with the accessible-agent list and user data. */
#include <pthread.h>
#include <unistd.h>
#include "check.h"

static hsa_amd_memory_pool_t device_pool;
static hsa_status_t first_global_pool(hsa_amd_memory_pool_t pool, void *data) {
  (void)data;
  hsa_amd_segment_t seg;
  OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  device_pool = pool;
  return HSA_STATUS_INFO_BREAK;
}

static hsa_signal_t later;
static void *release_later(void *arg) {
  (void)arg;
  usleep(20000);
  hsa_signal_store_screlease(later, 0);
  return NULL;
}

int main(void) {
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu(), cpu = find_cpu();
  CHECK_STATUS(hsa_amd_agent_iterate_memory_pools(gpu, first_global_pool, NULL), HSA_STATUS_INFO_BREAK);
  enum { N = 1 << 16 };
  uint32_t *a, *b;
  OK(hsa_amd_memory_pool_allocate(device_pool, N * 4, 0, (void **)&a));
  OK(hsa_amd_memory_pool_allocate(device_pool, N * 4, 0, (void **)&b));

  OK(hsa_amd_memory_fill(a, 0xdeadbeef, N));
  for (int i = 0; i < N; i++) CHECK(a[i] == 0xdeadbeef);
  CHECK_STATUS(hsa_amd_memory_fill((char *)a + 1, 0, 4), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  for (int i = 0; i < N; i++) a[i] = (uint32_t)i * 3u;
  OK(hsa_memory_copy(b, a, N * 4));
  CHECK(memcmp(a, b, N * 4) == 0);

  /* Immediate async copy. */
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  memset(b, 0, N * 4);
  OK(hsa_amd_memory_async_copy(b, gpu, a, cpu, N * 4, 0, NULL, done));
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  CHECK(memcmp(a, b, N * 4) == 0);
  hsa_amd_profiling_async_copy_time_t t;
  OK(hsa_amd_profiling_get_async_copy_time(done, &t));
  CHECK(t.end >= t.start && t.start > 0);

  /* A copy that waits for a dependency released by another thread. */
  OK(hsa_signal_create(1, 0, NULL, &later));
  hsa_signal_store_relaxed(done, 1);
  memset(b, 0, N * 4);
  pthread_t th;
  pthread_create(&th, NULL, release_later, NULL);
  OK(hsa_amd_memory_async_copy(b, gpu, a, cpu, N * 4, 1, &later, done));
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  pthread_join(th, NULL);
  CHECK(memcmp(a, b, N * 4) == 0);

  /* A negative dependency: no copy, negative completion. */
  hsa_signal_t bad;
  OK(hsa_signal_create(-1, 0, NULL, &bad));
  hsa_signal_store_relaxed(done, 1);
  b[0] = 12345;
  OK(hsa_amd_memory_async_copy(b, gpu, a, cpu, 4, 1, &bad, done));
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) < 0);
  CHECK(b[0] == 12345);

  /* Rectangular copy: a 16 x 8 x 2 byte box between two pitched layouts. */
  memset(b, 0, N * 4);
  hsa_pitched_ptr_t src = {a, 256, 256 * 64}, dst = {b, 128, 128 * 32};
  hsa_dim3_t src_off = {4, 2, 1}, dst_off = {8, 1, 0}, range = {16, 8, 2};
  hsa_signal_store_relaxed(done, 1);
  OK(hsa_amd_memory_async_copy_rect(&dst, &dst_off, &src, &src_off, &range, gpu, hsaDeviceToDevice, 0, NULL, done));
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  for (unsigned z = 0; z < range.z; z++)
    for (unsigned y = 0; y < range.y; y++)
      CHECK(memcmp((char *)b + (dst_off.z + z) * dst.slice + (dst_off.y + y) * dst.pitch + dst_off.x,
                   (char *)a + (src_off.z + z) * src.slice + (src_off.y + y) * src.pitch + src_off.x, range.x) == 0);
  CHECK(((char *)b)[dst_off.x - 1] == 0);

  /* Pointer information with the accessible agents and user data. */
  OK(hsa_amd_pointer_info_set_userdata(a, (void *)0x5151));
  hsa_amd_pointer_info_t info = {.size = sizeof info};
  uint32_t count = 0;
  hsa_agent_t *agents = NULL;
  OK(hsa_amd_pointer_info((char *)a + 100, &info, malloc, &count, &agents));
  CHECK(info.type == HSA_EXT_POINTER_TYPE_HSA && info.agentBaseAddress == a && info.hostBaseAddress == a);
  CHECK(info.userData == (void *)0x5151 && info.sizeInBytes == N * 4);
  CHECK(info.agentOwner.handle == gpu.handle);
  CHECK(info.global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
  CHECK(count == 2 && agents != NULL);
  free(agents);
  int stack_var;
  OK(hsa_amd_pointer_info(&stack_var, &info, NULL, NULL, NULL));
  CHECK(info.type == HSA_EXT_POINTER_TYPE_UNKNOWN);

  OK(hsa_amd_memory_pool_free(a));
  OK(hsa_amd_memory_pool_free(b));
  CHECK_STATUS(hsa_amd_memory_pool_free(a), HSA_STATUS_ERROR_INVALID_ALLOCATION);
  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
