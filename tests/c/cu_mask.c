/* CU masking seen from a kernel: the `hw_id` kernel records the HW_ID compute unit of every
 * work-group. With the default mask a grid of many work-groups sees every CU the agent
 * reports (CUs are emulated, however few host threads run them); after
 * hsa_amd_queue_cu_set_mask it sees exactly the CUs of the mask. Also the mask's read-back and
 * ROCr's statuses, and ROCr's HSA_CU_MASK variable (read at hsa_init): new queues start with
 * it, set_mask is limited by it (HSA_STATUS_CU_MASK_REDUCED), and HSA_CU_MASK_SKIP_INIT=1
 * leaves new queues on every CU.
 *
 * usage: cu_mask HW_ID.hsaco */
#include "check.h"

#define GROUPS 64

static uint32_t cus_seen(hsa_queue_t *q, uint64_t kernel, void **kernarg, uint32_t *ids) {
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  memset(ids, 0xff, GROUPS * sizeof *ids);
  submit_dispatch(q, kernel, kernarg, GROUPS * 64, 64, done);
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  OK(hsa_signal_destroy(done));
  uint32_t seen = 0;
  for (int g = 0; g < GROUPS; g++) {
    /* CU_ID in bits 3:0 of the field, SH_ID bit 4, SE_ID bits 6:5. */
    uint32_t v = ids[g];
    uint32_t cu = (v & 0xf) | ((v >> 4) & 1) << 4 | ((v >> 5) & 3) << 5;
    CHECK(cu < 32);
    seen |= 1u << cu;
  }
  return seen;
}

int main(int argc, char **argv) {
  CHECK(argc == 2);
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu();
  uint32_t cu_count = 0;
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cu_count));
  CHECK(cu_count >= 4 && cu_count <= 32);
  uint32_t kernarg_size = 0;
  uint64_t kernel = load_kernel(gpu, argv[1], "hw_id", &kernarg_size);
  hsa_region_t region = find_kernarg_region(gpu);
  void **kernarg = NULL;
  uint32_t *ids = NULL;
  OK(hsa_memory_allocate(region, kernarg_size, (void **)&kernarg));
  OK(hsa_memory_allocate(region, GROUPS * sizeof *ids, (void **)&ids));
  memset(kernarg, 0, kernarg_size);
  kernarg[0] = ids;
  hsa_queue_t *q = NULL;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));

  uint32_t all = cu_count == 32 ? 0xffffffffu : (1u << cu_count) - 1;
  uint32_t mask[2] = {0, 0};
  OK(hsa_amd_queue_cu_get_mask(q, 64, mask));
  CHECK(mask[0] == all && mask[1] == 0);
  CHECK(cus_seen(q, kernel, kernarg, ids) == all);

  /* Statuses as ROCr: a count that is not a multiple of 32, a null mask with a count. */
  uint32_t two = 0x5;
  CHECK_STATUS(hsa_amd_queue_cu_set_mask(q, 31, &two), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_amd_queue_cu_set_mask(q, 32, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_amd_queue_cu_get_mask(q, 0, mask), HSA_STATUS_ERROR_INVALID_ARGUMENT);

  /* CUs 0 and 2 only; bits beyond the agent's CUs are dropped. */
  uint32_t want[2] = {0x5 | 0x80000000u, 0xffffffffu};
  OK(hsa_amd_queue_cu_set_mask(q, 64, want));
  OK(hsa_amd_queue_cu_get_mask(q, 64, mask));
  CHECK(mask[0] == (cu_count == 32 ? 0x80000005u : 0x5u) && mask[1] == 0);
  CHECK(cus_seen(q, kernel, kernarg, ids) == mask[0]);

  /* One CU. */
  uint32_t one = 0x2;
  OK(hsa_amd_queue_cu_set_mask(q, 32, &one));
  CHECK(cus_seen(q, kernel, kernarg, ids) == 0x2);

  /* No words: every CU again. */
  OK(hsa_amd_queue_cu_set_mask(q, 0, NULL));
  OK(hsa_amd_queue_cu_get_mask(q, 32, mask));
  CHECK(mask[0] == all);
  CHECK(cus_seen(q, kernel, kernarg, ids) == all);

  OK(hsa_queue_destroy(q));
  OK(hsa_memory_free(ids));
  OK(hsa_memory_free(kernarg));
  OK(hsa_shut_down());

  /* HSA_CU_MASK, ROCr's syntax as rocrtst writes it ("GPU:CU ranges", spaces allowed), read
   * by the next hsa_init. GPU 1 does not exist: ignored. */
  setenv("HSA_CU_MASK", "0:3, 0-0 ; 1:0x1", 1);
  for (int skip = 0; skip < 2; skip++) {
    if (skip) setenv("HSA_CU_MASK_SKIP_INIT", "1", 1);
    OK(hsa_init());
    gpu = find_gpu();
    kernel = load_kernel(gpu, argv[1], "hw_id", &kernarg_size);
    region = find_kernarg_region(gpu);
    OK(hsa_memory_allocate(region, kernarg_size, (void **)&kernarg));
    OK(hsa_memory_allocate(region, GROUPS * sizeof *ids, (void **)&ids));
    memset(kernarg, 0, kernarg_size);
    kernarg[0] = ids;
    OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
    OK(hsa_amd_queue_cu_get_mask(q, 32, mask));
    /* A new queue runs on CUs 0 and 3 only, unless HSA_CU_MASK_SKIP_INIT. */
    uint32_t start = skip ? all : 0x9;
    CHECK(mask[0] == start);
    CHECK(cus_seen(q, kernel, kernarg, ids) == start);
    /* Within the mask: success; beyond it: the CUs outside are dropped, and said so. */
    uint32_t cu3 = 0x8, cu01 = 0x3;
    OK(hsa_amd_queue_cu_set_mask(q, 32, &cu3));
    CHECK(cus_seen(q, kernel, kernarg, ids) == 0x8);
    CHECK_STATUS(hsa_amd_queue_cu_set_mask(q, 32, &cu01), (hsa_status_t)HSA_STATUS_CU_MASK_REDUCED);
    OK(hsa_amd_queue_cu_get_mask(q, 32, mask));
    CHECK(mask[0] == 0x1);
    CHECK(cus_seen(q, kernel, kernarg, ids) == 0x1);
    /* A reset returns to HSA_CU_MASK, not to every CU. */
    CHECK_STATUS(hsa_amd_queue_cu_set_mask(q, 0, NULL), (hsa_status_t)HSA_STATUS_CU_MASK_REDUCED);
    OK(hsa_amd_queue_cu_get_mask(q, 32, mask));
    CHECK(mask[0] == 0x9);
    CHECK(cus_seen(q, kernel, kernarg, ids) == 0x9);
    OK(hsa_queue_destroy(q));
    OK(hsa_shut_down());
  }
  unsetenv("HSA_CU_MASK");
  unsetenv("HSA_CU_MASK_SKIP_INIT");
  printf("PASS\n");
  return 0;
}
