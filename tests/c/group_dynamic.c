/* Dynamic group memory (rocrtst GroupMemoryAllocationTest): a `__local` pointer kernarg holds
 * an LDS offset, and the packet's group_segment_size is the kernel's static LDS plus the
 * dynamic part.
 *   ok        the offset is the static size: every lane reads its neighbour's values
 *   garbage   the offset is garbage (as rocrtst passes: an uninitialised member) and the
 *             stores go beyond the work-group's LDS: a queue error naming the LDS offset;
 *             with HSAEMU_LDS_OOB=hardware (argv[3] "hardware") the stores are dropped and
 *             the reads give 0, as on the hardware, and the dispatch completes
 *
 * usage: group_dynamic GROUP_DYNAMIC.hsaco ok|garbage [hardware] */
#include <hsa/amd_hsa_queue.h>
#include "check.h"

#define WG 64
#define N (4 * WG)

static volatile hsa_status_t cb_status;
static void on_error(hsa_status_t status, hsa_queue_t *q, void *data) {
  (void)q; (void)data;
  __atomic_store_n(&cb_status, status, __ATOMIC_SEQ_CST);
}

int main(int argc, char **argv) {
  CHECK(argc >= 3);
  int garbage = !strcmp(argv[2], "garbage");
  int hardware = argc > 3 && !strcmp(argv[3], "hardware");
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu();

  int fd = open(argv[1], O_RDONLY);
  CHECK(fd >= 0);
  hsa_code_object_reader_t reader;
  OK(hsa_code_object_reader_create_from_file(fd, &reader));
  close(fd);
  hsa_executable_t exe;
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  OK(hsa_executable_freeze(exe, NULL));
  hsa_executable_symbol_t sym;
  OK(hsa_executable_get_symbol_by_name(exe, "group_dynamic.kd", &gpu, &sym));
  uint64_t kernel = 0;
  uint32_t kernarg_size = 0, fixed = 0;
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kernarg_size));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &fixed));
  CHECK(fixed == WG * 4); /* `fixed[64]` */
  CHECK(kernarg_size >= 24);

  hsa_region_t region = find_kernarg_region(gpu);
  char *kernarg = NULL;
  uint32_t *in = NULL, *out = NULL;
  OK(hsa_memory_allocate(region, kernarg_size, (void **)&kernarg));
  OK(hsa_memory_allocate(region, N * 4, (void **)&in));
  OK(hsa_memory_allocate(region, N * 4, (void **)&out));
  memset(kernarg, 0, kernarg_size);
  for (uint32_t i = 0; i < N; i++) in[i] = i * 7 + 1, out[i] = 0xdeadbeef;
  /* in (8), out (8), the LDS offset of `dyn` (4), n (4), then the hidden arguments. */
  memcpy(kernarg, &in, 8);
  memcpy(kernarg + 8, &out, 8);
  uint32_t offset = garbage ? 0x55649f80u : fixed, n = N;
  memcpy(kernarg + 16, &offset, 4);
  memcpy(kernarg + 20, &n, 4);
  note_hidden_args(kernel, kernarg_size, code_object_abi_version(argv[1]));
  fill_hidden_args(kernel, kernarg, N, WG);

  hsa_queue_t *q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, on_error, NULL, 0, 0, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  uint64_t id = hsa_queue_add_write_index_scacq_screl(q, 1);
  hsa_kernel_dispatch_packet_t *p = (hsa_kernel_dispatch_packet_t *)q->base_address + (id & (q->size - 1));
  memset((char *)p + 4, 0, sizeof(*p) - 4);
  p->workgroup_size_x = WG;
  p->workgroup_size_y = p->workgroup_size_z = 1;
  p->grid_size_x = N;
  p->grid_size_y = p->grid_size_z = 1;
  p->group_segment_size = fixed + WG * 4; /* static + dynamic */
  p->kernel_object = kernel;
  p->kernarg_address = kernarg;
  p->completion_signal = done;
  publish(p, (uint16_t)((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE)),
          1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)id);

  if (garbage && !hardware) {
    /* The fault stops the queue; the callback has run before queue_inactive_signal turns -1. */
    hsa_signal_t inactive = ((amd_queue_t *)q)->queue_inactive_signal;
    CHECK(hsa_signal_wait_scacquire(inactive, HSA_SIGNAL_CONDITION_LT, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == -1);
    CHECK((int)cb_status == (int)HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);
    CHECK(hsa_signal_load_scacquire(done) == 1);
    printf("out-of-range LDS store reported\n");
  } else {
    CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    CHECK(cb_status == 0);
    for (uint32_t g = 0; g < N; g++) {
      uint32_t peer = g / WG * WG + (g % WG + 1) % WG;
      /* Dropped stores, reads of 0: only the static part arrives. */
      uint32_t want = (garbage ? 0 : in[peer] * 3) + peer;
      if (out[g] != want) {
        fprintf(stderr, "out[%u] = %u, want %u\n", g, out[g], want);
        return 1;
      }
    }
    printf("%s\n", garbage ? "out-of-range LDS dropped as the hardware does" : "dynamic LDS correct");
  }
  OK(hsa_queue_destroy(q));
  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
