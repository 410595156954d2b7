/* API misuse: calls before hsa_init and after the last hsa_shut_down return
 * NOT_INITIALIZED (checked before the arguments, as ROCm does); null pointers, bad handles
 * and bad sizes return the spec's status; reference counting of init/shut-down; unimplemented
 * functions return an error, never success. */
#include <hsa/hsa_ext_image.h>
#include "check.h"

static hsa_status_t nop(hsa_agent_t a, void *d) { (void)a; (void)d; return HSA_STATUS_SUCCESS; }
static hsa_status_t stop_at_first(hsa_agent_t a, void *d) { (void)a; (*(int *)d)++; return (hsa_status_t)0x4242; }

int main(void) {
  const char *str = NULL;
  /* hsa_status_string works before init. */
  OK(hsa_status_string(HSA_STATUS_ERROR_INVALID_ARGUMENT, &str));
  CHECK(strncmp(str, "HSA_STATUS_ERROR_INVALID_ARGUMENT: ", 35) == 0);
  OK(hsa_status_string(HSA_STATUS_CU_MASK_REDUCED, &str));
  CHECK(strstr(str, "disabled for the process.  CUs") != NULL);
  CHECK_STATUS(hsa_status_string((hsa_status_t)0x1027, &str), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_status_string(HSA_STATUS_SUCCESS, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);

  hsa_signal_t s;
  uint16_t v;
  CHECK_STATUS(hsa_shut_down(), HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK_STATUS(hsa_signal_create(1, 0, NULL, &s), HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK_STATUS(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &v), HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK_STATUS(hsa_iterate_agents(NULL, NULL), HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK_STATUS(hsa_memory_free(NULL), HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK_STATUS(hsa_amd_memory_pool_free(NULL), HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK_STATUS(hsa_extension_get_name(0x201, &str), HSA_STATUS_ERROR_NOT_INITIALIZED);
  hsa_agent_t none = {0};
  hsa_queue_t *q;
  CHECK_STATUS(hsa_queue_create(none, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q), HSA_STATUS_ERROR_NOT_INITIALIZED);

  /* Reference counting. */
  OK(hsa_init());
  OK(hsa_init());
  OK(hsa_shut_down());
  OK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &v));

  CHECK_STATUS(hsa_iterate_agents(NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OK(hsa_iterate_agents(nop, NULL));
  int calls = 0;
  CHECK_STATUS(hsa_iterate_agents(stop_at_first, &calls), (hsa_status_t)0x4242);
  CHECK(calls == 1);
  CHECK_STATUS(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_system_get_info((hsa_system_info_t)99, &v), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_agent_t gpu = find_gpu();
  char name[64];
  CHECK_STATUS(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_agent_get_info(none, HSA_AGENT_INFO_NAME, name), HSA_STATUS_ERROR_INVALID_AGENT);
  CHECK_STATUS(hsa_queue_create(gpu, 63, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_queue_create(gpu, 0, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_queue_create(gpu, 1u << 30, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_region_t bad_region = {8};
  void *p;
  CHECK_STATUS(hsa_memory_allocate(bad_region, 64, &p), HSA_STATUS_ERROR_INVALID_REGION);
  hsa_amd_memory_pool_t bad_pool = {8};
  CHECK_STATUS(hsa_amd_memory_pool_allocate(bad_pool, 64, 0, &p), HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  CHECK_STATUS(hsa_memory_free((void *)0x1234), HSA_STATUS_ERROR_INVALID_ALLOCATION);
  OK(hsa_amd_memory_pool_free(NULL));
  CHECK_STATUS(hsa_memory_copy(NULL, name, 4), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_signal_t bogus = {0x40};
  CHECK_STATUS(hsa_signal_destroy(bogus), HSA_STATUS_ERROR_INVALID_SIGNAL);
  /* Value operations on an unknown signal are ignored rather than crashing. */
  hsa_signal_store_relaxed(bogus, 3);
  CHECK(hsa_signal_load_relaxed(bogus) == 0);
  /* Unimplemented functions never report success. */
  hsa_ext_image_t img;
  CHECK(hsa_ext_image_create(gpu, NULL, NULL, HSA_ACCESS_PERMISSION_RW, &img) != HSA_STATUS_SUCCESS);
  hsa_signal_group_t grp;
  CHECK(hsa_signal_group_create(0, NULL, 0, NULL, &grp) != HSA_STATUS_SUCCESS);

  OK(hsa_shut_down());
  CHECK_STATUS(hsa_shut_down(), HSA_STATUS_ERROR_NOT_INITIALIZED);
  CHECK_STATUS(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &v), HSA_STATUS_ERROR_NOT_INITIALIZED);
  /* The runtime can be initialised again. */
  OK(hsa_init());
  find_gpu();
  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
