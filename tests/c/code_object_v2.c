/* Code object V2 through the C API (run on a gfx906 or gfx803 agent): kernels whose kernel
 * object is a 256-byte amd_kernel_code_t. argv[1] is tests/kernels/cl/geometry.cl and argv[2]
 * tests/kernels/cl/control.cl, both compiled with -mcode-object-version=2. The test reads the
 * amd_kernel_code_t behind HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT through ROCm's own
 * amd_hsa_kernel_code.h, checks that the symbol's segment sizes and kernarg alignment are the
 * structure's, then dispatches a 3-D grid with partial work-groups (geometry: the dispatch
 * packet and the work-group IDs) and a kernel with a private array (scratch), each checked
 * against a reference computed here. With argv[2] = "corrupt", loading argv[1] must fail with
 * HSA_STATUS_ERROR_INVALID_CODE_OBJECT. */
#include <hsa/amd_hsa_kernel_code.h>
#include "check.h"

typedef struct {
  uint64_t object;
  uint32_t kernarg_size, kernarg_align, group, private_size;
  bool dynamic;
} kernel_t;

static hsa_status_t load(hsa_agent_t gpu, const char *path, hsa_executable_t *exe) {
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  hsa_code_object_reader_t reader;
  OK(hsa_code_object_reader_create_from_file(fd, &reader));
  close(fd);
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, exe));
  hsa_status_t s = hsa_executable_load_agent_code_object(*exe, gpu, reader, NULL, NULL);
  if (s == HSA_STATUS_SUCCESS) OK(hsa_executable_freeze(*exe, NULL));
  OK(hsa_code_object_reader_destroy(reader));
  return s;
}

/* Looks up a V2 kernel (its symbol has the plain kernel name) and checks its attributes
 * against the amd_kernel_code_t the kernel object points at. */
static kernel_t kernel(hsa_executable_t exe, hsa_agent_t gpu, const char *name) {
  hsa_executable_symbol_t sym;
  OK(hsa_executable_get_symbol_by_name(exe, name, &gpu, &sym));
  hsa_symbol_kind_t kind;
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind));
  CHECK(kind == HSA_SYMBOL_KIND_KERNEL);
  kernel_t k;
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &k.object));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &k.kernarg_size));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT, &k.kernarg_align));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &k.group));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &k.private_size));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK, &k.dynamic));
  const amd_kernel_code_t *akc = (const amd_kernel_code_t *)k.object;
  CHECK(akc->amd_kernel_code_version_major == AMD_KERNEL_CODE_VERSION_MAJOR);
  CHECK(akc->amd_machine_kind == AMD_MACHINE_KIND_AMDGPU);
  CHECK(akc->kernel_code_entry_byte_offset >= (int64_t)sizeof(amd_kernel_code_t));
  CHECK(akc->wavefront_size == AMD_POWERTWO_64);
  CHECK(k.kernarg_size == akc->kernarg_segment_byte_size);
  CHECK(k.kernarg_align == 1u << akc->kernarg_segment_alignment);
  CHECK(k.group == akc->workgroup_group_segment_byte_size);
  CHECK(k.private_size == akc->workitem_private_segment_byte_size);
  CHECK(k.dynamic == !!(akc->kernel_code_properties & AMD_KERNEL_CODE_PROPERTIES_IS_DYNAMIC_CALLSTACK));
  return k;
}

static void dispatch(hsa_queue_t *q, const kernel_t *k, void *kernarg, const uint32_t grid[3], const uint16_t wg[3]) {
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  uint64_t id = hsa_queue_add_write_index_scacq_screl(q, 1);
  hsa_kernel_dispatch_packet_t *p = (hsa_kernel_dispatch_packet_t *)q->base_address + (id & (q->size - 1));
  memset((char *)p + 4, 0, sizeof(*p) - 4);
  p->workgroup_size_x = wg[0];
  p->workgroup_size_y = wg[1];
  p->workgroup_size_z = wg[2];
  p->grid_size_x = grid[0];
  p->grid_size_y = grid[1];
  p->grid_size_z = grid[2];
  p->kernel_object = k->object;
  p->kernarg_address = kernarg;
  p->group_segment_size = k->group;
  p->private_segment_size = k->private_size;
  p->completion_signal = done;
  publish(p, (uint16_t)((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE)),
          3 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)id);
  while (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) > 0) {
  }
  OK(hsa_signal_destroy(done));
}

static hsa_region_t kernarg_region;

static void *zeroed(size_t bytes) {
  void *p = NULL;
  OK(hsa_memory_allocate(kernarg_region, bytes, &p));
  memset(p, 0, bytes);
  return p;
}

int main(int argc, char **argv) {
  CHECK(argc == 3);
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu();
  kernarg_region = find_kernarg_region(gpu);
  hsa_executable_t exe;
  if (strcmp(argv[2], "corrupt") == 0) {
    CHECK_STATUS(load(gpu, argv[1], &exe), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    OK(hsa_executable_destroy(exe));
    OK(hsa_shut_down());
    printf("PASS\n");
    return 0;
  }
  hsa_queue_t *q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));

  /* geometry: local sizes of partial work-groups, group counts, group IDs, linear local IDs. */
  OK(load(gpu, argv[1], &exe));
  kernel_t geo = kernel(exe, gpu, "geometry");
  const uint32_t grid[3] = {13, 7, 5};
  const uint16_t wg[3] = {4, 4, 2};
  const uint32_t items = grid[0] * grid[1] * grid[2];
  uint32_t *out = zeroed(16 * items);
  uint8_t *kernarg = zeroed(geo.kernarg_size);
  memcpy(kernarg, &out, 8);
  dispatch(q, &geo, kernarg, grid, wg);
  for (uint32_t z = 0; z < grid[2]; z++)
    for (uint32_t y = 0; y < grid[1]; y++)
      for (uint32_t x = 0; x < grid[0]; x++) {
        uint32_t g[3] = {x, y, z}, id[3], local[3], l[3], groups[3];
        for (int d = 0; d < 3; d++) {
          id[d] = g[d] / wg[d];
          local[d] = grid[d] - id[d] * wg[d] < wg[d] ? grid[d] - id[d] * wg[d] : wg[d];
          l[d] = g[d] % wg[d];
          groups[d] = (grid[d] + wg[d] - 1) / wg[d];
        }
        /* ROCm's device library forms the linear ID from the enqueued work-group size. */
        uint32_t want[4] = {
            local[0] | local[1] << 10 | local[2] << 20,
            groups[0] | groups[1] << 10 | groups[2] << 20,
            id[0] | id[1] << 10 | id[2] << 20,
            (l[2] * wg[1] + l[1]) * wg[0] + l[0],
        };
        const uint32_t *o = out + 4 * ((z * grid[1] + y) * grid[0] + x);
        for (int k = 0; k < 4; k++) {
          if (o[k] != want[k]) {
            fprintf(stderr, "geometry (%u,%u,%u) value %d: %#x, expected %#x\n", x, y, z, k, o[k], want[k]);
            return 1;
          }
        }
      }
  OK(hsa_executable_destroy(exe));

  /* private_array: a private int[32] indexed at run time lives in scratch. */
  OK(load(gpu, argv[2], &exe));
  kernel_t priv = kernel(exe, gpu, "private_array");
  CHECK(priv.private_size >= 32 * 4);
  enum { N = 200 };
  int32_t *idx = zeroed(4 * N), *res = zeroed(4 * N);
  for (int i = 0; i < N; i++) idx[i] = (i * 11) % 37;
  uint8_t *kernarg2 = zeroed(priv.kernarg_size);
  memcpy(kernarg2, &idx, 8);
  memcpy(kernarg2 + 8, &res, 8);
  const uint32_t grid1[3] = {N, 1, 1};
  const uint16_t wg1[3] = {64, 1, 1};
  dispatch(q, &priv, kernarg2, grid1, wg1);
  for (int i = 0; i < N; i++) {
    int k = idx[i] & 31;
    if (res[i] != k * k + i) {
      fprintf(stderr, "private_array[%d] = %d, expected %d\n", i, res[i], k * k + i);
      return 1;
    }
  }
  OK(hsa_executable_destroy(exe));
  OK(hsa_queue_destroy(q));
  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
