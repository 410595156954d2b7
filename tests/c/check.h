/* Shared helpers of the C tests: CHECK stops the program with the failing expression and
 * line; CHECK_STATUS also prints the status string. Each test prints "PASS" at the end. */
#ifndef HSAEMU_TEST_CHECK_H
#define HSAEMU_TEST_CHECK_H
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#define CHECK_STATUS(expr, expected)                                            \
  do {                                                                          \
    hsa_status_t s_ = (expr);                                                   \
    if (s_ != (hsa_status_t)(expected)) {                                       \
      const char *m_ = "?";                                                     \
      hsa_status_string(s_, &m_);                                               \
      fprintf(stderr, "%s:%d: %s returned 0x%x (%s), expected 0x%x\n", __FILE__, \
              __LINE__, #expr, (unsigned)s_, m_, (unsigned)(expected));         \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

#define OK(expr) CHECK_STATUS(expr, HSA_STATUS_SUCCESS)

/* A watchdog: a test that hangs (a lost wake-up, a deadlock) fails after 120 s with a
 * message instead of blocking the test run. */
#include <signal.h>
#include <unistd.h>
static void hsaemu_test_timeout(int sig) {
  (void)sig;
  static const char msg[] = "TIMEOUT: the test did not finish within 120 s\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(2);
}
__attribute__((constructor)) static void hsaemu_test_watchdog(void) {
  signal(SIGALRM, hsaemu_test_timeout);
  alarm(120);
}

static hsa_status_t find_gpu_cb(hsa_agent_t agent, void *data) {
  hsa_device_type_t type;
  OK(hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type));
  if (type == HSA_DEVICE_TYPE_GPU) {
    *(hsa_agent_t *)data = agent;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_cpu_cb(hsa_agent_t agent, void *data) {
  hsa_device_type_t type;
  OK(hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type));
  if (type == HSA_DEVICE_TYPE_CPU) {
    *(hsa_agent_t *)data = agent;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

static inline hsa_agent_t find_gpu(void) {
  hsa_agent_t a = {0};
  CHECK_STATUS(hsa_iterate_agents(find_gpu_cb, &a), HSA_STATUS_INFO_BREAK);
  return a;
}

static inline hsa_agent_t find_cpu(void) {
  hsa_agent_t a = {0};
  CHECK_STATUS(hsa_iterate_agents(find_cpu_cb, &a), HSA_STATUS_INFO_BREAK);
  return a;
}

/* Publishes a packet's header+setup with release semantics (the AQL hand-off). */
static inline void publish(void *slot, uint16_t header, uint16_t setup) {
  __atomic_store_n((uint32_t *)slot, (uint32_t)header | ((uint32_t)setup << 16), __ATOMIC_RELEASE);
}

static inline uint16_t barrier_header(hsa_packet_type_t type) {
  return (uint16_t)((type << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

/* Reserves a slot, waits for room, writes a barrier packet and rings the doorbell. */
static inline uint64_t submit_barrier(hsa_queue_t *q, hsa_packet_type_t type, const hsa_signal_t *deps,
                                      int ndeps, hsa_signal_t completion) {
  uint64_t id = hsa_queue_add_write_index_scacq_screl(q, 1);
  while (id - hsa_queue_load_read_index_scacquire(q) >= q->size) {
  }
  hsa_barrier_and_packet_t *p = (hsa_barrier_and_packet_t *)q->base_address + (id & (q->size - 1));
  memset((char *)p + 4, 0, sizeof(*p) - 4);
  for (int i = 0; i < ndeps; i++) p->dep_signal[i] = deps[i];
  p->completion_signal = completion;
  publish(p, barrier_header(type), 0);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)id);
  return id;
}

/* The agent's kernarg region: the global region with the KERNARG flag. */
static hsa_status_t kernarg_region_cb(hsa_region_t region, void *data) {
  hsa_region_segment_t seg;
  OK(hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &seg));
  uint32_t flags = 0;
  if (seg == HSA_REGION_SEGMENT_GLOBAL) {
    OK(hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags));
    if (flags & HSA_REGION_GLOBAL_FLAG_KERNARG) {
      *(hsa_region_t *)data = region;
      return HSA_STATUS_INFO_BREAK;
    }
  }
  return HSA_STATUS_SUCCESS;
}

static inline hsa_region_t find_kernarg_region(hsa_agent_t agent) {
  hsa_region_t region = {0};
  CHECK_STATUS(hsa_agent_iterate_regions(agent, kernarg_region_cb, &region), HSA_STATUS_INFO_BREAK);
  return region;
}

/* Code object V5 and later: a kernel reads its work-group size, block counts and remainders
 * from hidden arguments after the explicit ones, which the dispatcher writes (HIP's runtime
 * does; ROCr never does, so a raw HSA program must). load_kernel records, for each kernel of a
 * V5/V6 object with hidden arguments, where they start (the last 256 bytes of the kernarg
 * segment, as clang lays out OpenCL kernels); submit_dispatch fills them. */
enum { HSAEMU_MAX_V5_KERNELS = 32 };
static struct {
  uint64_t object;
  uint32_t hidden;
} hsaemu_v5_kernels[HSAEMU_MAX_V5_KERNELS];
static int hsaemu_v5_count;

/* The AMDGPU code object version of an ELF file (EI_ABIVERSION: 2 = V4, 3 = V5, 4 = V6). */
static inline int code_object_abi_version(const char *path) {
  unsigned char ident[16] = {0};
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  size_t n = fread(ident, 1, sizeof ident, f);
  fclose(f);
  return n == sizeof ident ? ident[8] : -1;
}

/* Records where the hidden arguments of `object` (kernarg segment `size` bytes, from a code
 * object of ABI version `version`) start, if it has them. */
static inline void note_hidden_args(uint64_t object, uint32_t size, int version) {
  if (version >= 3 && size >= 256) {
    CHECK(hsaemu_v5_count < HSAEMU_MAX_V5_KERNELS);
    hsaemu_v5_kernels[hsaemu_v5_count].object = object;
    hsaemu_v5_kernels[hsaemu_v5_count].hidden = size - 256;
    hsaemu_v5_count++;
  }
}

/* Writes the V5 hidden arguments of a 1-D dispatch of `grid` work-items in groups of `wg`
 * into `kernarg`, if `kernel_object` has them; only bytes that change are written, so
 * threads sharing a kernarg buffer for identical dispatches do not race. */
static inline void fill_hidden_args(uint64_t kernel_object, void *kernarg, uint32_t grid, uint16_t wg) {
  for (int k = 0; k < hsaemu_v5_count; k++) {
    if (hsaemu_v5_kernels[k].object != kernel_object) continue;
    struct __attribute__((packed)) {
      uint32_t block_count[3];
      uint16_t group_size[3];
      uint16_t remainder[3];
    } h = {{(grid + wg - 1) / wg, 1, 1}, {wg, 1, 1}, {(uint16_t)(grid % wg), 0, 0}};
    char *at = (char *)kernarg + hsaemu_v5_kernels[k].hidden;
    if (memcmp(at, &h, sizeof h) != 0) memcpy(at, &h, sizeof h);
    return;
  }
}

/* Loads the code object at `path` onto `gpu` and returns the kernel object of `name`
 * (looked up as NAME.kd, then NAME) and its kernarg segment size. */
#include <fcntl.h>
#include <unistd.h>
static inline uint64_t load_kernel(hsa_agent_t gpu, const char *path, const char *name, uint32_t *kernarg_size) {
  int version = code_object_abi_version(path);
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  hsa_code_object_reader_t reader;
  OK(hsa_code_object_reader_create_from_file(fd, &reader));
  close(fd);
  hsa_executable_t exe;
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  OK(hsa_executable_freeze(exe, NULL));
  char kd[256];
  snprintf(kd, sizeof kd, "%s.kd", name);
  hsa_executable_symbol_t sym;
  if (hsa_executable_get_symbol_by_name(exe, kd, &gpu, &sym) != HSA_STATUS_SUCCESS)
    OK(hsa_executable_get_symbol_by_name(exe, name, &gpu, &sym));
  uint64_t object = 0;
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object));
  uint32_t size = 0;
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &size));
  if (kernarg_size) *kernarg_size = size;
  note_hidden_args(object, size, version);
  return object;
}

/* Writes a 1-D dispatch packet of `grid` work-items in groups of `wg` and rings the doorbell. */
static inline uint64_t submit_dispatch(hsa_queue_t *q, uint64_t kernel_object, void *kernarg, uint32_t grid,
                                       uint16_t wg, hsa_signal_t completion) {
  uint64_t id = hsa_queue_add_write_index_scacq_screl(q, 1);
  while (id - hsa_queue_load_read_index_scacquire(q) >= q->size) {
  }
  hsa_kernel_dispatch_packet_t *p = (hsa_kernel_dispatch_packet_t *)q->base_address + (id & (q->size - 1));
  memset((char *)p + 4, 0, sizeof(*p) - 4);
  p->workgroup_size_x = wg;
  p->workgroup_size_y = p->workgroup_size_z = 1;
  p->grid_size_x = grid;
  p->grid_size_y = p->grid_size_z = 1;
  p->kernel_object = kernel_object;
  p->kernarg_address = kernarg;
  p->completion_signal = completion;
  fill_hidden_args(kernel_object, kernarg, grid, wg);
  publish(p, (uint16_t)((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE)),
          1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)id);
  return id;
}

#endif
