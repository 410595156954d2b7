/* The chapter-1 example in its HSA 1.x form: find the GPU and the kernarg region, create a
 * queue, load a code object (argv[1], with vector_add from tests/kernels/cl/vector_add.cl)
 * through a code object reader and an executable, look up the kernel, fill the kernarg
 * segment, write a dispatch packet, ring the doorbell and wait on the completion signal; then
 * check c = a + b. With argv[2] = "incompatible", loading must fail with
 * INCOMPATIBLE_ARGUMENTS instead (the code object is for another target). */
#include <fcntl.h>
#include <hsa/hsa_ven_amd_loader.h>
#include <unistd.h>
#include "check.h"

static hsa_status_t each_loaded(hsa_executable_t e, hsa_loaded_code_object_t lco, void *data) {
  (void)e;
  *(hsa_loaded_code_object_t *)data = lco;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t count_symbols(hsa_executable_t e, hsa_agent_t a, hsa_executable_symbol_t s, void *data) {
  (void)e; (void)a; (void)s;
  (*(int *)data)++;
  return HSA_STATUS_SUCCESS;
}

int main(int argc, char **argv) {
  CHECK(argc >= 2);
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu();
  hsa_region_t kernarg_region = find_kernarg_region(gpu);

  int fd = open(argv[1], O_RDONLY);
  CHECK(fd >= 0);
  hsa_code_object_reader_t reader;
  OK(hsa_code_object_reader_create_from_file(fd, &reader));
  close(fd);
  hsa_executable_t exe;
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  if (argc > 2 && strcmp(argv[2], "incompatible") == 0) {
    CHECK_STATUS(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL), HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
    OK(hsa_executable_destroy(exe));
    OK(hsa_code_object_reader_destroy(reader));
    OK(hsa_shut_down());
    printf("PASS\n");
    return 0;
  }
  OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  OK(hsa_executable_freeze(exe, NULL));
  CHECK_STATUS(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL), HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  uint32_t valid = 1;
  OK(hsa_executable_validate(exe, &valid));
  CHECK(valid == 0);
  int nsyms = 0;
  OK(hsa_executable_iterate_agent_symbols(exe, gpu, count_symbols, &nsyms));
  CHECK(nsyms >= 2);

  hsa_executable_symbol_t sym;
  if (hsa_executable_get_symbol_by_name(exe, "vector_add.kd", &gpu, &sym) != HSA_STATUS_SUCCESS)
    OK(hsa_executable_get_symbol_by_name(exe, "vector_add", &gpu, &sym));
  hsa_executable_symbol_t none;
  CHECK_STATUS(hsa_executable_get_symbol_by_name(exe, "no_such_kernel", &gpu, &none), HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  if (hsa_executable_get_symbol_by_name(exe, "vector_add.kd", NULL, &sym) != HSA_STATUS_SUCCESS)
    OK(hsa_executable_get_symbol_by_name(exe, "vector_add", NULL, &sym));
  hsa_symbol_kind_t kind;
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind));
  CHECK(kind == HSA_SYMBOL_KIND_KERNEL);
  uint64_t kernel_object = 0;
  uint32_t kernarg_size = 0, kernarg_align = 0, group = 0, private = 0;
  bool dynamic = true;
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kernarg_size));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT, &kernarg_align));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &group));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &private));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK, &dynamic));
  CHECK(kernel_object != 0 && kernarg_size >= 28 && kernarg_align >= 8 && !dynamic);
  /* The AMD loader extension, through its function table. */
  bool supported = false;
  OK(hsa_system_extension_supported(HSA_EXTENSION_AMD_LOADER, 1, 0, &supported));
  CHECK(supported);
  hsa_ven_amd_loader_1_01_pfn_t loader;
  OK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof loader, &loader));
  hsa_executable_t owner = {0};
  OK(loader.hsa_ven_amd_loader_query_executable((void *)kernel_object, &owner));
  CHECK(owner.handle == exe.handle);
  const void *host = NULL;
  OK(loader.hsa_ven_amd_loader_query_host_address((void *)kernel_object, &host));
  CHECK(host == (void *)kernel_object);
  hsa_loaded_code_object_t lco = {0};
  OK(loader.hsa_ven_amd_loader_executable_iterate_loaded_code_objects(exe, each_loaded, &lco));
  uint64_t load_base = 0, load_size = 0;
  OK(loader.hsa_ven_amd_loader_loaded_code_object_get_info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE, &load_base));
  OK(loader.hsa_ven_amd_loader_loaded_code_object_get_info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE, &load_size));
  CHECK(kernel_object >= load_base && kernel_object < load_base + load_size);
  hsa_agent_t lco_agent;
  OK(loader.hsa_ven_amd_loader_loaded_code_object_get_info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT, &lco_agent));
  CHECK(lco_agent.handle == gpu.handle);
  uint32_t uri_len = 0;
  OK(loader.hsa_ven_amd_loader_loaded_code_object_get_info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH, &uri_len));
  char uri[256] = {0};
  CHECK(uri_len > 0 && uri_len < sizeof uri);
  OK(loader.hsa_ven_amd_loader_loaded_code_object_get_info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI, uri));
  CHECK(strncmp(uri, "memory://", 9) == 0);

  uint32_t name_len = 0;
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &name_len));
  char name[64] = {0};
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name));
  CHECK(strncmp(name, "vector_add", 10) == 0 && strlen(name) == name_len);

  enum { N = 1000 };
  float *a, *b, *c;
  OK(hsa_memory_allocate(kernarg_region, N * sizeof(float), (void **)&a));
  OK(hsa_memory_allocate(kernarg_region, N * sizeof(float), (void **)&b));
  OK(hsa_memory_allocate(kernarg_region, N * sizeof(float), (void **)&c));
  for (int i = 0; i < N; i++) { a[i] = (float)i; b[i] = 2.0f * (float)i; c[i] = -1.0f; }
  uint8_t *kernarg;
  OK(hsa_memory_allocate(kernarg_region, kernarg_size, (void **)&kernarg));
  memset(kernarg, 0, kernarg_size);
  memcpy(kernarg + 0, &a, 8);
  memcpy(kernarg + 8, &b, 8);
  memcpy(kernarg + 16, &c, 8);
  uint32_t n = N;
  memcpy(kernarg + 24, &n, 4);
  const uint16_t wg = 64;
  if (kernarg_size >= 32 + 256) {
    /* Code object V5 (256 bytes of implicit arguments; V4 has 56): block counts, group sizes
     * and remainders. */
    uint32_t blocks = (N + wg - 1) / wg, one = 1;
    uint16_t rem = N % wg, ones = 1, zero = 0;
    memcpy(kernarg + 32, &blocks, 4);
    memcpy(kernarg + 36, &one, 4);
    memcpy(kernarg + 40, &one, 4);
    memcpy(kernarg + 44, &wg, 2);
    memcpy(kernarg + 46, &ones, 2);
    memcpy(kernarg + 48, &ones, 2);
    memcpy(kernarg + 50, &rem, 2);
    memcpy(kernarg + 52, &zero, 2);
    memcpy(kernarg + 54, &zero, 2);
  }

  hsa_queue_t *q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  uint64_t id = hsa_queue_load_write_index_relaxed(q);
  hsa_queue_store_write_index_relaxed(q, id + 1);
  hsa_kernel_dispatch_packet_t *p = (hsa_kernel_dispatch_packet_t *)q->base_address + (id & (q->size - 1));
  memset((char *)p + 4, 0, sizeof(*p) - 4);
  p->workgroup_size_x = wg;
  p->workgroup_size_y = p->workgroup_size_z = 1;
  p->grid_size_x = N;
  p->grid_size_y = p->grid_size_z = 1;
  p->kernel_object = kernel_object;
  p->kernarg_address = kernarg;
  p->group_segment_size = group;
  p->private_segment_size = private;
  p->completion_signal = done;
  uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  publish(p, header, 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)id);
  hsa_signal_value_t v;
  while ((v = hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED)) > 0) {}
  CHECK(v == 0);
  for (int i = 0; i < N; i++) {
    if (c[i] != 3.0f * (float)i) {
      fprintf(stderr, "c[%d] = %f, expected %f\n", i, c[i], 3.0f * (float)i);
      return 1;
    }
  }
  CHECK(hsa_queue_load_read_index_scacquire(q) == id + 1);
  OK(hsa_queue_destroy(q));
  OK(hsa_signal_destroy(done));
  OK(hsa_memory_free(a));
  OK(hsa_memory_free(b));
  OK(hsa_memory_free(c));
  OK(hsa_memory_free(kernarg));
  OK(hsa_executable_destroy(exe));
  OK(hsa_code_object_reader_destroy(reader));
  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
