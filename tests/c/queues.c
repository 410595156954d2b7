/* Queues: creation and its errors, the amd_queue_t view, every index operation, a full ring
 * drained by the packet processor, barrier-AND/OR dependencies across queues (including a
 * negative dependency), the AMD BARRIER_VALUE packet, malformed packets reported to the
 * error callback, and inactivation. */
#include <hsa/amd_hsa_queue.h>
#include <pthread.h>
#include "check.h"

static volatile hsa_status_t cb_status;
static volatile hsa_queue_t *cb_queue;
static volatile void *cb_data;
static void on_error(hsa_status_t status, hsa_queue_t *q, void *data) {
  cb_queue = q;
  cb_data = data;
  __atomic_store_n(&cb_status, status, __ATOMIC_SEQ_CST);
}

static hsa_status_t wait_callback(void) {
  for (long i = 0; i < 2000000000L && __atomic_load_n(&cb_status, __ATOMIC_SEQ_CST) == 0; i++) {}
  hsa_status_t s = cb_status;
  cb_status = 0;
  return s;
}

static hsa_status_t first_region(hsa_region_t r, void *data) {
  *(hsa_region_t *)data = r;
  return HSA_STATUS_INFO_BREAK;
}

static void bad_dispatch(hsa_agent_t gpu, void (*corrupt)(hsa_kernel_dispatch_packet_t *), uint16_t type,
                         hsa_status_t expected) {
  hsa_queue_t *q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, on_error, (void *)0x77, 0, 0, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  uint64_t id = hsa_queue_add_write_index_relaxed(q, 1);
  hsa_kernel_dispatch_packet_t *p = (hsa_kernel_dispatch_packet_t *)q->base_address + id;
  memset((char *)p + 4, 0, 60);
  p->workgroup_size_x = p->workgroup_size_y = p->workgroup_size_z = 1;
  p->grid_size_x = p->grid_size_y = p->grid_size_z = 1;
  p->kernel_object = 0x1000;
  p->completion_signal = done;
  uint16_t setup = 1;
  if (corrupt) corrupt(p);
  if (p->reserved0 == 0xdead) { setup = 0; p->reserved0 = 0; }
  publish(p, (uint16_t)(type << HSA_PACKET_HEADER_TYPE), setup);
  hsa_signal_store_screlease(q->doorbell_signal, id);
  CHECK_STATUS(wait_callback(), expected);
  CHECK(cb_queue == q && cb_data == (void *)0x77);
  /* As in ROCr, the completion signal keeps its value; the read index did not move past the
   * packet. */
  CHECK(hsa_signal_load_scacquire(done) == 1);
  CHECK(hsa_queue_load_read_index_scacquire(q) == 0);
  OK(hsa_queue_destroy(q));
  OK(hsa_signal_destroy(done));
}
static void zero_dims(hsa_kernel_dispatch_packet_t *p) { p->reserved0 = 0xdead; }
static void zero_wg(hsa_kernel_dispatch_packet_t *p) { p->workgroup_size_x = 0; }
static void huge_wg(hsa_kernel_dispatch_packet_t *p) { p->workgroup_size_x = 2048; }
static void huge_lds(hsa_kernel_dispatch_packet_t *p) { p->group_segment_size = 1 << 20; }
static void null_kernel(hsa_kernel_dispatch_packet_t *p) { p->kernel_object = 0; }

int main(void) {
  OK(hsa_init());
  hsa_agent_t gpu = find_gpu(), cpu = find_cpu();
  hsa_queue_t *q = NULL;
  CHECK_STATUS(hsa_queue_create(gpu, 100, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_queue_create(gpu, 64, (hsa_queue_type32_t)7, NULL, NULL, 0, 0, &q), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(hsa_queue_create(cpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q), HSA_STATUS_ERROR_INVALID_AGENT);
  CHECK_STATUS(hsa_queue_destroy(NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);

  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, on_error, NULL, 0, 0, &q));
  CHECK(q->size == 64 && q->type == HSA_QUEUE_TYPE_MULTI);
  CHECK(q->features & HSA_QUEUE_FEATURE_KERNEL_DISPATCH);
  CHECK(((uintptr_t)q->base_address % 64) == 0 && q->doorbell_signal.handle != 0);
  amd_queue_t *aq = (amd_queue_t *)q;
  /* Kernels form flat LDS/scratch addresses from these (the emulator's apertures). */
  CHECK(aq->group_segment_aperture_base_hi == 0x10000 && aq->private_segment_aperture_base_hi == 0x20000);
  CHECK(aq->queue_properties & AMD_QUEUE_PROPERTIES_IS_PTR64);
  /* Every slot starts INVALID. */
  for (uint32_t i = 0; i < q->size; i++)
    CHECK((((hsa_barrier_and_packet_t *)q->base_address)[i].header & 0xff) == HSA_PACKET_TYPE_INVALID);

  /* Index operations (the queue is idle: nothing is published). */
  CHECK(hsa_queue_load_write_index_relaxed(q) == 0);
  CHECK(hsa_queue_add_write_index_relaxed(q, 2) == 0);
  CHECK(hsa_queue_add_write_index_scacquire(q, 1) == 2);
  CHECK(hsa_queue_add_write_index_screlease(q, 1) == 3);
  CHECK(hsa_queue_add_write_index_acq_rel(q, 1) == 4);
  CHECK(hsa_queue_load_write_index_scacquire(q) == 5);
  CHECK(aq->write_dispatch_id == 5);
  CHECK(hsa_queue_cas_write_index_relaxed(q, 5, 6) == 5);
  CHECK(hsa_queue_cas_write_index_scacquire(q, 0, 7) == 6);
  CHECK(hsa_queue_cas_write_index_screlease(q, 6, 7) == 6);
  CHECK(hsa_queue_cas_write_index_scacq_screl(q, 7, 8) == 7);
  CHECK(hsa_queue_cas_write_index_acquire(q, 8, 9) == 8);
  hsa_queue_store_write_index_relaxed(q, 0);
  hsa_queue_store_write_index_screlease(q, 0);
  CHECK(hsa_queue_load_write_index_acquire(q) == 0);
  CHECK(hsa_queue_load_read_index_relaxed(q) == 0 && aq->read_dispatch_id == 0);

  /* A full ring: 64 barriers held back by a gate, then 64 more as space frees up. */
  hsa_signal_t gate, done;
  OK(hsa_signal_create(1, 0, NULL, &gate));
  OK(hsa_signal_create(128, 0, NULL, &done));
  for (int i = 0; i < 64; i++) submit_barrier(q, HSA_PACKET_TYPE_BARRIER_AND, &gate, 1, done);
  CHECK(hsa_queue_load_write_index_relaxed(q) == 64);
  CHECK(hsa_queue_load_read_index_scacquire(q) == 0);
  CHECK(hsa_signal_load_scacquire(done) == 128);
  hsa_signal_store_screlease(gate, 0);
  for (int i = 0; i < 64; i++) submit_barrier(q, HSA_PACKET_TYPE_BARRIER_AND, NULL, 0, done);
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  CHECK(hsa_queue_load_read_index_scacquire(q) == 128);

  /* Cross-queue dependencies: q waits (AND) on two signals that q2's barriers complete. */
  hsa_queue_t *q2;
  OK(hsa_queue_create(gpu, 256, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, 0, 0, &q2));
  hsa_signal_t a, b, both, either, g2;
  OK(hsa_signal_create(1, 0, NULL, &a));
  OK(hsa_signal_create(1, 0, NULL, &b));
  OK(hsa_signal_create(1, 0, NULL, &both));
  OK(hsa_signal_create(1, 0, NULL, &either));
  OK(hsa_signal_create(1, 0, NULL, &g2));
  hsa_signal_t deps[2] = {a, b};
  submit_barrier(q, HSA_PACKET_TYPE_BARRIER_OR, deps, 2, either);
  submit_barrier(q, HSA_PACKET_TYPE_BARRIER_AND, deps, 2, both);
  submit_barrier(q2, HSA_PACKET_TYPE_BARRIER_AND, &g2, 1, a);
  CHECK(hsa_signal_wait_scacquire(either, HSA_SIGNAL_CONDITION_EQ, 0, 20000000ull, HSA_WAIT_STATE_BLOCKED) == 1);
  hsa_signal_store_screlease(g2, 0); /* q2 completes a → the OR barrier completes */
  CHECK(hsa_signal_wait_scacquire(either, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  CHECK(hsa_signal_wait_scacquire(both, HSA_SIGNAL_CONDITION_EQ, 0, 20000000ull, HSA_WAIT_STATE_BLOCKED) == 1);
  hsa_signal_subtract_screlease(b, 1);
  CHECK(hsa_signal_wait_scacquire(both, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);

  /* A negative dependency makes the barrier's completion signal negative; the queue goes on. */
  hsa_signal_t neg, res, after;
  OK(hsa_signal_create(-5, 0, NULL, &neg));
  OK(hsa_signal_create(1, 0, NULL, &res));
  OK(hsa_signal_create(1, 0, NULL, &after));
  submit_barrier(q, HSA_PACKET_TYPE_BARRIER_AND, &neg, 1, res);
  submit_barrier(q, HSA_PACKET_TYPE_BARRIER_AND, NULL, 0, after);
  CHECK(hsa_signal_wait_scacquire(res, HSA_SIGNAL_CONDITION_LT, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) < 0);
  CHECK(hsa_signal_wait_scacquire(after, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);

  /* AMD BARRIER_VALUE: waits until (value & mask) == 0x10. */
  hsa_signal_t v, vdone;
  OK(hsa_signal_create(0, 0, NULL, &v));
  OK(hsa_signal_create(1, 0, NULL, &vdone));
  uint64_t id = hsa_queue_add_write_index_scacq_screl(q, 1);
  hsa_amd_barrier_value_packet_t *bv = (hsa_amd_barrier_value_packet_t *)q->base_address + (id & (q->size - 1));
  memset((char *)bv + 4, 0, 60);
  bv->signal = v;
  bv->value = 0x10;
  bv->mask = 0xf0;
  bv->cond = HSA_SIGNAL_CONDITION_EQ;
  bv->completion_signal = vdone;
  publish(bv, (uint16_t)(HSA_PACKET_TYPE_VENDOR_SPECIFIC << HSA_PACKET_HEADER_TYPE), HSA_AMD_PACKET_TYPE_BARRIER_VALUE);
  hsa_signal_store_screlease(q->doorbell_signal, id);
  hsa_signal_store_screlease(v, 0x21);
  CHECK(hsa_signal_wait_scacquire(vdone, HSA_SIGNAL_CONDITION_EQ, 0, 20000000ull, HSA_WAIT_STATE_BLOCKED) == 1);
  hsa_signal_store_screlease(v, 0x13);
  CHECK(hsa_signal_wait_scacquire(vdone, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);

  /* Inactivation: later packets are ignored. */
  OK(hsa_queue_inactivate(q2));
  OK(hsa_queue_inactivate(q2));
  hsa_signal_t ignored;
  OK(hsa_signal_create(1, 0, NULL, &ignored));
  submit_barrier(q2, HSA_PACKET_TYPE_BARRIER_AND, NULL, 0, ignored);
  CHECK(hsa_signal_wait_scacquire(ignored, HSA_SIGNAL_CONDITION_EQ, 0, 20000000ull, HSA_WAIT_STATE_BLOCKED) == 1);
  OK(hsa_queue_destroy(q2));
  CHECK_STATUS(hsa_queue_destroy(q2), HSA_STATUS_ERROR_INVALID_QUEUE);
  OK(hsa_queue_destroy(q));

  /* A soft queue: the application owns the doorbell and processes packets itself. */
  hsa_region_t gpu_region = {0};
  CHECK_STATUS(hsa_agent_iterate_regions(gpu, first_region, &gpu_region), HSA_STATUS_INFO_BREAK);
  hsa_signal_t soft_bell;
  OK(hsa_signal_create(0, 0, NULL, &soft_bell));
  hsa_queue_t *sq;
  OK(hsa_soft_queue_create(gpu_region, 64, HSA_QUEUE_TYPE_SINGLE, HSA_QUEUE_FEATURE_AGENT_DISPATCH, soft_bell, &sq));
  CHECK(sq->doorbell_signal.handle == soft_bell.handle && sq->features == HSA_QUEUE_FEATURE_AGENT_DISPATCH);
  hsa_signal_t never;
  OK(hsa_signal_create(1, 0, NULL, &never));
  submit_barrier(sq, HSA_PACKET_TYPE_BARRIER_AND, NULL, 0, never);
  CHECK(hsa_signal_wait_scacquire(never, HSA_SIGNAL_CONDITION_EQ, 0, 10000000ull, HSA_WAIT_STATE_BLOCKED) == 1);
  CHECK(hsa_signal_load_relaxed(soft_bell) == 0); /* the doorbell value the producer stored */
  hsa_queue_store_read_index_screlease(sq, 1);
  CHECK(hsa_queue_load_read_index_relaxed(sq) == 1);
  OK(hsa_queue_destroy(sq));
  OK(hsa_signal_destroy(soft_bell)); /* still the application's signal */

  /* Malformed packets: each one stops its queue with INVALID_PACKET_FORMAT. */
  /* ROCr 5.2's status for each command-processor error. */
  bad_dispatch(gpu, zero_dims, HSA_PACKET_TYPE_KERNEL_DISPATCH, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  bad_dispatch(gpu, zero_wg, HSA_PACKET_TYPE_KERNEL_DISPATCH, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  bad_dispatch(gpu, huge_wg, HSA_PACKET_TYPE_KERNEL_DISPATCH, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  bad_dispatch(gpu, huge_lds, HSA_PACKET_TYPE_KERNEL_DISPATCH, HSA_STATUS_ERROR_INVALID_ALLOCATION);
  bad_dispatch(gpu, null_kernel, HSA_PACKET_TYPE_KERNEL_DISPATCH, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  bad_dispatch(gpu, NULL, HSA_PACKET_TYPE_AGENT_DISPATCH, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  bad_dispatch(gpu, NULL, 9, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);

  OK(hsa_shut_down());
  printf("PASS\n");
  return 0;
}
