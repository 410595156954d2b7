/* Deallocation callbacks, SVM attributes and prefetch, and hsa_amd_memory_migrate, with the
 * statuses ROCr 5.2 returns for misuse. */
#include "check.h"

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

static int calls;
static void *seen_ptr;
static void *seen_data;
static unsigned char seen_byte;

static void on_free(void *ptr, void *data) {
  calls++;
  seen_ptr = ptr;
  seen_data = data;
  seen_byte = *(unsigned char *)ptr; /* still mapped while the callback runs */
}

static void on_free_other(void *ptr, void *data) {
  (void)ptr;
  (void)data;
  calls += 100;
}

static void deallocation_callbacks(hsa_amd_memory_pool_t pool) {
  unsigned char *p = NULL;
  OK(hsa_amd_memory_pool_allocate(pool, 8192, 0, (void **)&p));
  p[100] = 42;
  int token;
  CHECK_STATUS(hsa_amd_register_deallocation_callback(NULL, on_free, &token), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_amd_register_deallocation_callback(p, NULL, &token), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  /* Only pool allocations: anything else is INVALID_ALLOCATION, as in ROCr. */
  CHECK_STATUS(hsa_amd_register_deallocation_callback(&token, on_free, &token), HSA_STATUS_ERROR_INVALID_ALLOCATION);
  /* Any address inside the allocation; the callback gets that address back. */
  OK(hsa_amd_register_deallocation_callback(p + 100, on_free, &token));
  OK(hsa_amd_register_deallocation_callback(p, on_free_other, NULL));
  CHECK_STATUS(hsa_amd_deregister_deallocation_callback(p + 1, on_free_other), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OK(hsa_amd_deregister_deallocation_callback(p, on_free_other));
  CHECK_STATUS(hsa_amd_deregister_deallocation_callback(p, on_free_other), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(calls == 0);
  OK(hsa_amd_memory_pool_free(p));
  CHECK(calls == 1 && seen_ptr == p + 100 && seen_data == &token && seen_byte == 42);
  CHECK_STATUS(hsa_amd_deregister_deallocation_callback(p, on_free), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static void svm(hsa_agent_t gpu, hsa_agent_t cpu) {
  size_t len = 4 * 4096;
  unsigned char *p = aligned_alloc(4096, len);
  CHECK(p);
  memset(p, 1, len);
  /* Defaults: fine-grained, accessible by the GPU and the host. */
  hsa_amd_svm_attribute_pair_t q[4] = {
      {HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 99},
      {HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, gpu.handle},
      {HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, cpu.handle},
      {HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION, 0},
  };
  OK(hsa_amd_svm_attributes_get(p, len, q, 4));
  CHECK(q[0].value == HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED);
  CHECK(q[1].attribute == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE && q[1].value == gpu.handle);
  CHECK(q[2].attribute == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE && q[2].value == cpu.handle);
  CHECK(q[3].value == cpu.handle);

  /* The middle two pages: coarse-grained, read-only, preferred on the GPU, GPU access in place. */
  hsa_amd_svm_attribute_pair_t set[4] = {
      {HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED},
      {HSA_AMD_SVM_ATTRIB_READ_ONLY, 1},
      {HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, gpu.handle},
      {HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE, gpu.handle},
  };
  OK(hsa_amd_svm_attributes_set(p + 4096 + 17, 4096, set, 4));
  hsa_amd_svm_attribute_pair_t g[4] = {
      {HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 0},
      {HSA_AMD_SVM_ATTRIB_READ_ONLY, 0},
      {HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, 0},
      {HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, gpu.handle},
  };
  OK(hsa_amd_svm_attributes_get(p + 4096, 2 * 4096, g, 4));
  CHECK(g[0].value == HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED && g[1].value == 1);
  CHECK(g[2].value == gpu.handle);
  CHECK(g[3].attribute == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE);
  /* Over the whole buffer the granularity is mixed. */
  OK(hsa_amd_svm_attributes_get(p, len, g, 1));
  CHECK(g[0].value == HSA_AMD_SVM_GLOBAL_FLAG_INDETERMINATE);
  /* The bytes did not move. */
  for (size_t i = 0; i < len; i++) CHECK(p[i] == 1);

  /* ROCr's validation. */
  hsa_amd_svm_attribute_pair_t twice[2] = {{HSA_AMD_SVM_ATTRIB_READ_MOSTLY, 1}, {HSA_AMD_SVM_ATTRIB_READ_MOSTLY, 0}};
  CHECK_STATUS(hsa_amd_svm_attributes_set(p, len, twice, 2), HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  hsa_amd_svm_attribute_pair_t same_agent[2] = {{HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, gpu.handle},
                                                 {HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS, gpu.handle}};
  CHECK_STATUS(hsa_amd_svm_attributes_set(p, len, same_agent, 2), HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  hsa_amd_svm_attribute_pair_t bad_agent = {HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, 12345};
  CHECK_STATUS(hsa_amd_svm_attributes_set(p, len, &bad_agent, 1), HSA_STATUS_ERROR_INVALID_AGENT);
  hsa_amd_svm_attribute_pair_t bad_flag = {HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, 7};
  CHECK_STATUS(hsa_amd_svm_attributes_set(p, len, &bad_flag, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_amd_svm_attribute_pair_t query_in_set = {HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, gpu.handle};
  CHECK_STATUS(hsa_amd_svm_attributes_set(p, len, &query_in_set, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_amd_svm_attribute_pair_t unknown = {0x999, 0};
  CHECK_STATUS(hsa_amd_svm_attributes_get(p, len, &unknown, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  /* The driver refuses an empty range; ROCr reports that as HSA_STATUS_ERROR. */
  CHECK_STATUS(hsa_amd_svm_attributes_set(p, 0, set, 1), HSA_STATUS_ERROR);

  /* Prefetch to the GPU after a dependency: completes its signal, records the location. */
  hsa_signal_t dep, done;
  OK(hsa_signal_create(1, 0, NULL, &dep));
  OK(hsa_signal_create(1, 0, NULL, &done));
  CHECK_STATUS(hsa_amd_svm_prefetch_async(p, len, (hsa_agent_t){777}, 0, NULL, done), HSA_STATUS_ERROR_INVALID_AGENT);
  OK(hsa_amd_svm_prefetch_async(p, len, gpu, 1, &dep, done));
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 20000000, HSA_WAIT_STATE_BLOCKED) == 1);
  hsa_signal_store_screlease(dep, 0);
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  hsa_amd_svm_attribute_pair_t where = {HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION, 0};
  OK(hsa_amd_svm_attributes_get(p, len, &where, 1));
  CHECK(where.value == gpu.handle);
  /* Without dependencies it completes before returning... or soon after. */
  hsa_signal_store_screlease(done, 1);
  OK(hsa_amd_svm_prefetch_async(p, 4096, cpu, 0, NULL, done));
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  OK(hsa_amd_svm_attributes_get(p, 4096, &where, 1));
  CHECK(where.value == cpu.handle);
  OK(hsa_signal_destroy(dep));
  OK(hsa_signal_destroy(done));
  free(p);
}

static void migrate(hsa_amd_memory_pool_t pool) {
  void *p = NULL;
  OK(hsa_amd_memory_pool_allocate(pool, 4096, 0, &p));
  CHECK_STATUS(hsa_amd_memory_migrate(NULL, pool, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_amd_memory_migrate(p, pool, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_amd_memory_migrate(p, (hsa_amd_memory_pool_t){1}, 0), HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  int x;
  CHECK_STATUS(hsa_amd_memory_migrate(&x, pool, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  *(int *)p = 9;
  OK(hsa_amd_memory_migrate(p, pool, 0));
  CHECK(*(int *)p == 9);
  OK(hsa_amd_memory_pool_free(p));
}

int main(void) {
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu(), cpu = find_cpu();
  hsa_amd_memory_pool_t pool = {0};
  CHECK_STATUS(hsa_amd_agent_iterate_memory_pools(gpu, global_pool_cb, &pool), HSA_STATUS_INFO_BREAK);
  deallocation_callbacks(pool);
  svm(gpu, cpu);
  migrate(pool);
  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
