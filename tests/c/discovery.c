/* Discovery: system info, agents (CPU first, then the emulated GPU), every core and AMD
 * agent attribute HIP and rocminfo read, ISAs, caches, regions and memory pools, and
 * allocation from each pool. */
#include "check.h"

static int n_agents, n_regions, n_pools, kernarg_regions;

static hsa_status_t count_agent(hsa_agent_t a, void *d) {
  (void)a; (void)d;
  n_agents++;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t isa_cb(hsa_isa_t isa, void *data) {
  uint32_t len = 0;
  OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &len));
  char name[128] = {0};
  CHECK(len > 0 && len < sizeof name);
  OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name));
  CHECK(strlen(name) == len);
  strcpy((char *)data, name);
  hsa_isa_t again;
  OK(hsa_isa_from_name(name, &again));
  CHECK(again.handle == isa.handle);
  uint32_t wg = 0;
  OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_WORKGROUP_MAX_SIZE, &wg));
  CHECK(wg == 1024);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_group_region(hsa_region_t r, void *d) {
  hsa_region_segment_t seg;
  OK(hsa_region_get_info(r, HSA_REGION_INFO_SEGMENT, &seg));
  if (seg == HSA_REGION_SEGMENT_GROUP) *(hsa_region_t *)d = r;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t region_cb(hsa_region_t r, void *d) {
  (void)d;
  n_regions++;
  hsa_region_segment_t seg;
  uint32_t flags = 0;
  OK(hsa_region_get_info(r, HSA_REGION_INFO_SEGMENT, &seg));
  if (seg == HSA_REGION_SEGMENT_GLOBAL) {
    OK(hsa_region_get_info(r, HSA_REGION_INFO_GLOBAL_FLAGS, &flags));
    if (flags & HSA_REGION_GLOBAL_FLAG_KERNARG) {
      kernarg_regions++;
      void *p = NULL;
      OK(hsa_memory_allocate(r, 256, &p));
      CHECK(p != NULL && ((uintptr_t)p % 16) == 0);
      memset(p, 0xab, 256);
      OK(hsa_memory_free(p));
    }
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t pool_cb(hsa_amd_memory_pool_t pool, void *data) {
  hsa_agent_t agent = *(hsa_agent_t *)data;
  n_pools++;
  hsa_amd_segment_t seg;
  OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  uint32_t flags = 0;
  size_t size = 0, granule = 0;
  bool alloc = false;
  OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size));
  CHECK(size > 0);
  OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc));
  hsa_amd_memory_pool_access_t access;
  OK(hsa_amd_agent_memory_pool_get_info(agent, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access));
  if (seg == HSA_AMD_SEGMENT_GLOBAL) {
    OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
    CHECK(!((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED)));
    OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &granule));
    CHECK(granule >= 4096 && alloc);
    CHECK(access == HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT);
    void *p = NULL;
    OK(hsa_amd_memory_pool_allocate(pool, 1000, 0, &p));
    CHECK(p != NULL);
    memset(p, 1, 1000);
    OK(hsa_amd_agents_allow_access(1, &agent, NULL, p));
    hsa_amd_pointer_info_t info = {.size = sizeof info};
    OK(hsa_amd_pointer_info((char *)p + 10, &info, NULL, NULL, NULL));
    CHECK(info.type == HSA_EXT_POINTER_TYPE_HSA);
    CHECK(info.agentBaseAddress == p && info.sizeInBytes >= 1000);
    CHECK(info.agentOwner.handle == agent.handle);
    OK(hsa_amd_memory_pool_free(p));
    CHECK_STATUS(hsa_amd_memory_pool_allocate(pool, 0, 0, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  } else {
    CHECK(seg == HSA_AMD_SEGMENT_GROUP && !alloc);
  }
  return HSA_STATUS_SUCCESS;
}

int main(void) {
  OK(hsa_init());
  uint16_t major = 0;
  OK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major));
  CHECK(major == 1);
  uint64_t freq = 0, t0 = 0, t1 = 0;
  OK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &freq));
  CHECK(freq == 1000000000ull);
  OK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t0));
  OK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t1));
  CHECK(t1 >= t0);
  hsa_endianness_t e;
  OK(hsa_system_get_info(HSA_SYSTEM_INFO_ENDIANNESS, &e));
  CHECK(e == HSA_ENDIANNESS_LITTLE);
  hsa_machine_model_t mm;
  OK(hsa_system_get_info(HSA_SYSTEM_INFO_MACHINE_MODEL, &mm));
  CHECK(mm == HSA_MACHINE_MODEL_LARGE);

  OK(hsa_iterate_agents(count_agent, NULL));
  const char *gpus = getenv("HSAEMU_GPUS");
  CHECK(n_agents == 1 + (gpus ? atoi(gpus) : 1));
  hsa_agent_t cpu = find_cpu(), gpu = find_gpu();

  char name[64];
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name));
  const char *target = getenv("HSAEMU_TARGET");
  CHECK(strcmp(name, target ? target : "gfx90a") == 0);
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_VENDOR_NAME, name));
  CHECK(strcmp(name, "AMD") == 0);
  hsa_agent_feature_t feat;
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_FEATURE, &feat));
  CHECK(feat & HSA_AGENT_FEATURE_KERNEL_DISPATCH);
  uint32_t u = 0;
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_WAVEFRONT_SIZE, &u));
  /* RDNA (gfx10xx, gfx11xx) reports wave32, like ROCr. */
  CHECK(u == (target && strncmp(target, "gfx1", 4) == 0 ? 32u : 64u));
  uint16_t dims[3];
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, dims));
  CHECK(dims[0] == 1024);
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &u));
  CHECK(u >= 4096);
  uint32_t caches[4];
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_CACHE_SIZE, caches));
  CHECK(caches[0] > 0);
  hsa_profile_t prof;
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_PROFILE, &prof));
  CHECK(prof == HSA_PROFILE_BASE);
  uint32_t amd_u32[] = {HSA_AMD_AGENT_INFO_CHIP_ID, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT,
                        HSA_AMD_AGENT_INFO_CACHELINE_SIZE, HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY,
                        HSA_AMD_AGENT_INFO_MEMORY_WIDTH, HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU,
                        HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU, HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT};
  for (unsigned i = 0; i < sizeof amd_u32 / sizeof amd_u32[0]; i++) {
    u = 0;
    OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)amd_u32[i], &u));
    CHECK(u > 0);
  }
  char uuid[32] = {0};
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_UUID, uuid));
  CHECK(strncmp(uuid, "GPU-", 4) == 0 && strlen(uuid) == 20);
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_PRODUCT_NAME, name));
  CHECK(strlen(name) > 0);
  hsa_amd_hdp_flush_t hdp;
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_HDP_FLUSH, &hdp));
  *hdp.HDP_MEM_FLUSH_CNTL = 1;
  CHECK_STATUS(hsa_agent_get_info(gpu, (hsa_agent_info_t)0x7777, &u), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_agent_t bogus = {12345};
  CHECK_STATUS(hsa_agent_get_info(bogus, HSA_AGENT_INFO_NAME, name), HSA_STATUS_ERROR_INVALID_AGENT);

  char isa_name[128] = {0};
  OK(hsa_agent_iterate_isas(gpu, isa_cb, isa_name));
  if (!target) CHECK(strcmp(isa_name, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") == 0);
  /* CDNA3/CDNA4 as the hardware reports them: 128-byte cache lines, LDS per work-group 64 KiB
   * (gfx942) or 160 KiB (gfx950), sramecc+/xnack- by default. */
  if (target && (strcmp(target, "gfx942") == 0 || strcmp(target, "gfx950") == 0)) {
    uint32_t line = 0, lds = 0;
    OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_CACHELINE_SIZE, &line));
    CHECK(line == 128);
    OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &u));
    CHECK(u == 1024);
    hsa_region_t group = {0};
    OK(hsa_agent_iterate_regions(gpu, find_group_region, &group));
    CHECK(group.handle != 0);
    OK(hsa_region_get_info(group, HSA_REGION_INFO_SIZE, &lds));
    CHECK(lds == (strcmp(target, "gfx950") == 0 ? 160u * 1024 : 64u * 1024));
    char want[64];
    snprintf(want, sizeof want, "amdgcn-amd-amdhsa--%s:sramecc+:xnack-", target);
    CHECK(strcmp(isa_name, want) == 0);
  }
  hsa_isa_t isa;
  CHECK_STATUS(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx9999", &isa), HSA_STATUS_ERROR_INVALID_ISA_NAME);
  OK(hsa_agent_get_info(cpu, HSA_AGENT_INFO_DEVICE, &u));
  CHECK(u == HSA_DEVICE_TYPE_CPU);

  OK(hsa_agent_iterate_regions(gpu, region_cb, NULL));
  CHECK(n_regions >= 2 && kernarg_regions == 1);
  n_pools = 0;
  OK(hsa_amd_agent_iterate_memory_pools(cpu, pool_cb, &cpu));
  CHECK(n_pools == 2);
  n_pools = 0;
  OK(hsa_amd_agent_iterate_memory_pools(gpu, pool_cb, &gpu));
  CHECK(n_pools == 2);

  /* Registered and locked host memory. */
  static char host[8192];
  void *agent_ptr = NULL;
  OK(hsa_amd_memory_lock(host, sizeof host, &gpu, 1, &agent_ptr));
  /* The agent address maps the same bytes; like a discrete GPU's (and as HIP 5.2's
     hipHostUnregister needs) it may differ from the host address. */
  CHECK(agent_ptr != NULL);
  host[100] = 42;
  CHECK(((volatile char *)agent_ptr)[100] == 42);
  ((volatile char *)agent_ptr)[101] = 43;
  CHECK(host[101] == 43);
  void *again = NULL;
  OK(hsa_amd_memory_lock(host, sizeof host, &gpu, 1, &again));
  CHECK(again == agent_ptr);
  hsa_amd_pointer_info_t info = {.size = sizeof info};
  OK(hsa_amd_pointer_info(host + 5, &info, NULL, NULL, NULL));
  CHECK(info.type == HSA_EXT_POINTER_TYPE_LOCKED);
  OK(hsa_amd_memory_unlock(host));
  OK(hsa_memory_register(host, sizeof host));
  OK(hsa_memory_deregister(host, sizeof host));

  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
