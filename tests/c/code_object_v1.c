/* The deprecated HSA 1.0 code-object API: deserialize a code object, query it and its symbols,
 * serialize it back, load it with hsa_executable_load_code_object and run one of its kernels
 * (`count`, which adds 1 per work-item to a counter).
 *
 * usage: code_object_v1 KERNELS.hsaco VERSION KERNEL_SYMBOL ISA_NAME
 *   e.g. runtime_kernels (gfx906, V2) "2.1" count amdgcn-amd-amdhsa--gfx906 */
#include "check.h"
#include <hsa/hsa_ven_amd_loader.h>

static char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  CHECK(f);
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc(*size);
  CHECK(buf && fread(buf, 1, *size, f) == *size);
  fclose(f);
  return buf;
}

struct seen {
  int kernels, variables, found;
  const char *want;
};

static hsa_status_t each_symbol(hsa_code_object_t co, hsa_code_symbol_t sym, void *data) {
  (void)co;
  struct seen *s = data;
  hsa_symbol_kind_t kind;
  OK(hsa_code_symbol_get_info(sym, HSA_CODE_SYMBOL_INFO_TYPE, &kind));
  uint32_t len = 0;
  OK(hsa_code_symbol_get_info(sym, HSA_CODE_SYMBOL_INFO_NAME_LENGTH, &len));
  char name[256] = {0};
  CHECK(len < sizeof name);
  OK(hsa_code_symbol_get_info(sym, HSA_CODE_SYMBOL_INFO_NAME, name));
  if (kind == HSA_SYMBOL_KIND_KERNEL) {
    s->kernels++;
    if (strcmp(name, s->want) == 0) s->found = 1;
  } else {
    s->variables++;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t alloc_cb(size_t size, hsa_callback_data_t data, void **address) {
  *(size_t *)data.handle = size;
  *address = malloc(size);
  return *address ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}

int main(int argc, char **argv) {
  CHECK(argc == 5);
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu();
  size_t size = 0;
  char *bytes = read_file(argv[1], &size);

  hsa_code_object_t co;
  CHECK_STATUS(hsa_code_object_deserialize(bytes, 0, NULL, &co), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_code_object_deserialize(NULL, size, NULL, &co), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OK(hsa_code_object_deserialize(bytes, size, NULL, &co));
  /* The handle is the runtime's copy of the ELF image. */
  CHECK(co.handle != (uint64_t)(uintptr_t)bytes);
  CHECK(memcmp((void *)(uintptr_t)co.handle, bytes, size) == 0);

  char version[64];
  OK(hsa_code_object_get_info(co, HSA_CODE_OBJECT_INFO_VERSION, version));
  CHECK(strcmp(version, argv[2]) == 0);
  hsa_code_object_type_t type = 99;
  OK(hsa_code_object_get_info(co, HSA_CODE_OBJECT_INFO_TYPE, &type));
  CHECK(type == HSA_CODE_OBJECT_TYPE_PROGRAM);
  hsa_isa_t isa, want_isa;
  OK(hsa_code_object_get_info(co, HSA_CODE_OBJECT_INFO_ISA, &isa));
  OK(hsa_isa_from_name(argv[4], &want_isa));
  CHECK(isa.handle == want_isa.handle);
  /* No HSAIL note (no finalizer made it): ROCr answers INVALID_CODE_OBJECT. */
  hsa_profile_t profile;
  CHECK_STATUS(hsa_code_object_get_info(co, HSA_CODE_OBJECT_INFO_PROFILE, &profile), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  CHECK_STATUS(hsa_code_object_get_info(co, (hsa_code_object_info_t)77, version), HSA_STATUS_ERROR_INVALID_ARGUMENT);

  struct seen seen = {0, 0, 0, argv[3]};
  OK(hsa_code_object_iterate_symbols(co, each_symbol, &seen));
  CHECK(seen.kernels >= 4 && seen.found);
  CHECK(seen.variables >= 1); /* runtime_global */

  hsa_code_symbol_t sym;
  CHECK_STATUS(hsa_code_object_get_symbol(co, "no_such_kernel", &sym), HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  OK(hsa_code_object_get_symbol(co, argv[3], &sym));
  hsa_code_symbol_t sym2;
  OK(hsa_code_object_get_symbol_from_name(co, NULL, argv[3], &sym2));
  CHECK(sym.handle == sym2.handle);
  uint32_t kernarg_size = 0, kernarg_align = 0;
  OK(hsa_code_symbol_get_info(sym, HSA_CODE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kernarg_size));
  OK(hsa_code_symbol_get_info(sym, HSA_CODE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT, &kernarg_align));
  CHECK(kernarg_size >= 8 && kernarg_align >= 8);
  uint32_t var_size;
  CHECK_STATUS(hsa_code_symbol_get_info(sym, HSA_CODE_SYMBOL_INFO_VARIABLE_SIZE, &var_size), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_code_symbol_t global;
  OK(hsa_code_object_get_symbol(co, "runtime_global", &global));
  OK(hsa_code_symbol_get_info(global, HSA_CODE_SYMBOL_INFO_VARIABLE_SIZE, &var_size));
  CHECK(var_size == 4);
  CHECK_STATUS(hsa_code_symbol_get_info((hsa_code_symbol_t){12345}, HSA_CODE_SYMBOL_INFO_TYPE, &var_size),
               HSA_STATUS_ERROR_INVALID_CODE_SYMBOL);

  /* Serialize: the same bytes back through the application's allocator. */
  void *copy = NULL;
  size_t copy_size = 0, asked = 0;
  OK(hsa_code_object_serialize(co, alloc_cb, (hsa_callback_data_t){(uint64_t)(uintptr_t)&asked}, NULL, &copy, &copy_size));
  CHECK(copy_size == size && asked == size && memcmp(copy, bytes, size) == 0);
  free(copy);

  /* Load through the executable and run `count`. */
  hsa_executable_t exe;
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  CHECK_STATUS(hsa_executable_load_code_object(exe, gpu, (hsa_code_object_t){4242}, NULL), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  OK(hsa_executable_load_code_object(exe, gpu, co, NULL));
  OK(hsa_executable_freeze(exe, NULL));
  hsa_executable_symbol_t esym;
  OK(hsa_executable_get_symbol_by_name(exe, argv[3], &gpu, &esym));
  uint64_t object = 0;
  OK(hsa_executable_symbol_get_info(esym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object));
  /* The loader extension describes the loaded image as a segment in memory. */
  hsa_ven_amd_loader_1_01_pfn_t loader;
  OK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof loader, &loader));
  size_t nseg = 0;
  CHECK_STATUS(loader.hsa_ven_amd_loader_query_segment_descriptors(NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OK(loader.hsa_ven_amd_loader_query_segment_descriptors(NULL, &nseg));
  hsa_ven_amd_loader_segment_descriptor_t segs[8];
  CHECK(nseg >= 1 && nseg <= 8);
  size_t wrong = nseg + 1;
  CHECK_STATUS(loader.hsa_ven_amd_loader_query_segment_descriptors(segs, &wrong), HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  OK(loader.hsa_ven_amd_loader_query_segment_descriptors(segs, &nseg));
  int found = 0;
  for (size_t k = 0; k < nseg; k++) {
    const char *base = segs[k].segment_base;
    if (segs[k].executable.handle == exe.handle && (uint64_t)(uintptr_t)base <= object &&
        object < (uint64_t)(uintptr_t)(base + segs[k].segment_size)) {
      CHECK(segs[k].agent.handle == gpu.handle);
      CHECK(segs[k].code_object_storage_type == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY);
      CHECK(segs[k].code_object_storage_size == size);
      CHECK(memcmp(segs[k].code_object_storage_base, bytes, size) == 0);
      found = 1;
    }
  }
  CHECK(found);

  hsa_region_t kernarg_region = find_kernarg_region(gpu);
  void **kernarg = NULL;
  OK(hsa_memory_allocate(kernarg_region, kernarg_size, (void **)&kernarg));
  memset(kernarg, 0, kernarg_size);
  uint32_t *counter = NULL;
  OK(hsa_memory_allocate(kernarg_region, 4, (void **)&counter));
  *counter = 0;
  kernarg[0] = counter;
  hsa_queue_t *q = NULL;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, 0, 0, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  submit_dispatch(q, object, kernarg, 300, 64, done);
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  CHECK(*counter == 300);

  /* Bytes that are no code object deserialize (as in ROCr) but answer no query. */
  hsa_code_object_t junk;
  OK(hsa_code_object_deserialize("not an ELF", 10, NULL, &junk));
  CHECK_STATUS(hsa_code_object_get_info(junk, HSA_CODE_OBJECT_INFO_VERSION, version), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  CHECK_STATUS(hsa_executable_load_code_object(exe, gpu, junk, NULL), HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  OK(hsa_code_object_destroy(junk));

  OK(hsa_code_object_destroy(co));
  CHECK_STATUS(hsa_code_object_destroy(co), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  CHECK_STATUS(hsa_code_object_get_info(co, HSA_CODE_OBJECT_INFO_VERSION, version), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  /* The executable keeps its own copy: the kernel still runs. */
  hsa_signal_store_screlease(done, 1);
  submit_dispatch(q, object, kernarg, 64, 64, done);
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  CHECK(*counter == 364);
  OK(hsa_queue_destroy(q));
  OK(hsa_executable_destroy(exe));
  OK(hsa_shut_down());
  free(bytes);
  printf("PASS\n");
  return 0;
}
