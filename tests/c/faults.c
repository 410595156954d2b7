/* Kernel faults: a store through a wild pointer and a trap stop their queue and reach its
 * error callback with MEMORY_APERTURE_VIOLATION and EXCEPTION; as in ROCr the completion signal
 * keeps its value and the queue's queue_inactive_signal turns -1 after the callback; a queue
 * without a callback reports on stderr; the process stays alive and other queues keep working.
 * argv[1]: a code object built from tests/kernels/cl/runtime_kernels.cl. */
#include <hsa/amd_hsa_queue.h>
#include "check.h"

static volatile hsa_status_t cb_status;
static void on_error(hsa_status_t status, hsa_queue_t *q, void *data) {
  (void)q; (void)data;
  __atomic_store_n(&cb_status, status, __ATOMIC_SEQ_CST);
}

static volatile uint64_t fault_address, fault_agent;
static hsa_status_t on_event(const hsa_amd_event_t *e, void *data) {
  CHECK(data == (void *)0x99 && e->event_type == HSA_AMD_GPU_MEMORY_FAULT_EVENT);
  fault_agent = e->memory_fault.agent.handle;
  __atomic_store_n(&fault_address, e->memory_fault.virtual_address, __ATOMIC_SEQ_CST);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t run(hsa_agent_t gpu, uint64_t kernel, void *kernarg, int with_callback) {
  hsa_queue_t *q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, with_callback ? on_error : NULL, NULL, 0, 0, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  cb_status = 0;
  submit_dispatch(q, kernel, kernarg, 64, 64, done);
  hsa_signal_t inactive = ((amd_queue_t *)q)->queue_inactive_signal;
  CHECK(hsa_signal_wait_scacquire(inactive, HSA_SIGNAL_CONDITION_LT, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == -1);
  /* The callback has returned before the queue reports itself inactive. */
  hsa_status_t s = __atomic_load_n(&cb_status, __ATOMIC_SEQ_CST);
  CHECK(!with_callback || s != 0);
  CHECK(hsa_signal_load_scacquire(done) == 1);
  OK(hsa_queue_destroy(q));
  OK(hsa_signal_destroy(done));
  return s;
}

int main(int argc, char **argv) {
  CHECK(argc == 2);
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu();
  void **kernarg;
  uint32_t size = 0;
  uint64_t fault = load_kernel(gpu, argv[1], "fault_store", &size);
  uint64_t trap = load_kernel(gpu, argv[1], "trap_kernel", NULL);
  uint64_t count = load_kernel(gpu, argv[1], "count", NULL);
  kernarg = calloc(1, 4096);
  OK(hsa_memory_register(kernarg, 4096));
  kernarg[0] = (void *)0x10; /* a wild pointer */
  OK(hsa_amd_register_system_event_handler(on_event, (void *)0x99));
  CHECK_STATUS(run(gpu, fault, kernarg, 1), HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);
  /* The system event handler saw the faulting address (lane 0 stores at p[0]). */
  CHECK(__atomic_load_n(&fault_address, __ATOMIC_SEQ_CST) >= 0x10 && fault_address < 0x10 + 64 * 4);
  CHECK(fault_agent == gpu.handle);
  static int buf[64];
  OK(hsa_memory_register(buf, sizeof buf));
  kernarg[0] = buf;
  CHECK_STATUS(run(gpu, trap, kernarg, 1), HSA_STATUS_ERROR_EXCEPTION);
  kernarg[0] = (void *)0x10;
  fprintf(stderr, "(an error report from hsaemu is expected next)\n");
  run(gpu, fault, kernarg, 0);
  /* The process and the runtime still work: a good dispatch counts 256 work-items. */
  static int counter;
  OK(hsa_memory_register(&counter, sizeof counter));
  kernarg[0] = &counter;
  hsa_queue_t *q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  submit_dispatch(q, count, kernarg, 256, 64, done);
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  CHECK(counter == 256);
  hsa_amd_profiling_dispatch_time_t times;
  OK(hsa_amd_profiling_get_dispatch_time(gpu, done, &times));
  CHECK(times.start > 0 && times.end >= times.start);
  OK(hsa_queue_destroy(q));
  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
