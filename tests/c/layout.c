/* Prints the size of every struct shared between hsaemu and C, and the offset of each
 * field, as "name value" lines; the layout test compares them with the Rust definitions. */
#include <hsa/amd_hsa_queue.h>
#include <hsa/amd_hsa_signal.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stddef.h>
#include <stdio.h>

#define SIZE(t) printf("sizeof %s %zu\n", #t, sizeof(t))
#define OFF(t, f) printf("offsetof %s.%s %zu\n", #t, #f, offsetof(t, f))

int main(void) {
  SIZE(amd_signal_t);
  OFF(amd_signal_t, kind);
  OFF(amd_signal_t, value);
  OFF(amd_signal_t, event_mailbox_ptr);
  OFF(amd_signal_t, event_id);
  OFF(amd_signal_t, reserved1);
  OFF(amd_signal_t, start_ts);
  OFF(amd_signal_t, end_ts);
  OFF(amd_signal_t, queue_ptr);
  OFF(amd_signal_t, reserved3);
  SIZE(hsa_queue_t);
  OFF(hsa_queue_t, type);
  OFF(hsa_queue_t, features);
  OFF(hsa_queue_t, base_address);
  OFF(hsa_queue_t, doorbell_signal);
  OFF(hsa_queue_t, size);
  OFF(hsa_queue_t, reserved1);
  OFF(hsa_queue_t, id);
  SIZE(amd_queue_t);
  OFF(amd_queue_t, hsa_queue);
  OFF(amd_queue_t, reserved1);
  OFF(amd_queue_t, write_dispatch_id);
  OFF(amd_queue_t, group_segment_aperture_base_hi);
  OFF(amd_queue_t, private_segment_aperture_base_hi);
  OFF(amd_queue_t, max_cu_id);
  OFF(amd_queue_t, max_wave_id);
  OFF(amd_queue_t, max_legacy_doorbell_dispatch_id_plus_1);
  OFF(amd_queue_t, legacy_doorbell_lock);
  OFF(amd_queue_t, reserved2);
  OFF(amd_queue_t, read_dispatch_id);
  OFF(amd_queue_t, read_dispatch_id_field_base_byte_offset);
  OFF(amd_queue_t, compute_tmpring_size);
  OFF(amd_queue_t, scratch_resource_descriptor);
  OFF(amd_queue_t, scratch_backing_memory_location);
  OFF(amd_queue_t, scratch_backing_memory_byte_size);
  OFF(amd_queue_t, scratch_wave64_lane_byte_size);
  OFF(amd_queue_t, queue_properties);
  OFF(amd_queue_t, reserved3);
  OFF(amd_queue_t, queue_inactive_signal);
  OFF(amd_queue_t, reserved4);
  SIZE(hsa_kernel_dispatch_packet_t);
  OFF(hsa_kernel_dispatch_packet_t, header);
  OFF(hsa_kernel_dispatch_packet_t, setup);
  OFF(hsa_kernel_dispatch_packet_t, workgroup_size_x);
  OFF(hsa_kernel_dispatch_packet_t, workgroup_size_y);
  OFF(hsa_kernel_dispatch_packet_t, workgroup_size_z);
  OFF(hsa_kernel_dispatch_packet_t, reserved0);
  OFF(hsa_kernel_dispatch_packet_t, grid_size_x);
  OFF(hsa_kernel_dispatch_packet_t, grid_size_y);
  OFF(hsa_kernel_dispatch_packet_t, grid_size_z);
  OFF(hsa_kernel_dispatch_packet_t, private_segment_size);
  OFF(hsa_kernel_dispatch_packet_t, group_segment_size);
  OFF(hsa_kernel_dispatch_packet_t, kernel_object);
  OFF(hsa_kernel_dispatch_packet_t, kernarg_address);
  OFF(hsa_kernel_dispatch_packet_t, reserved2);
  OFF(hsa_kernel_dispatch_packet_t, completion_signal);
  SIZE(hsa_agent_dispatch_packet_t);
  OFF(hsa_agent_dispatch_packet_t, header);
  OFF(hsa_agent_dispatch_packet_t, type);
  OFF(hsa_agent_dispatch_packet_t, reserved0);
  OFF(hsa_agent_dispatch_packet_t, return_address);
  OFF(hsa_agent_dispatch_packet_t, arg);
  OFF(hsa_agent_dispatch_packet_t, reserved2);
  OFF(hsa_agent_dispatch_packet_t, completion_signal);
  SIZE(hsa_barrier_and_packet_t);
  OFF(hsa_barrier_and_packet_t, header);
  OFF(hsa_barrier_and_packet_t, reserved0);
  OFF(hsa_barrier_and_packet_t, reserved1);
  OFF(hsa_barrier_and_packet_t, dep_signal);
  OFF(hsa_barrier_and_packet_t, reserved2);
  OFF(hsa_barrier_and_packet_t, completion_signal);
  SIZE(hsa_barrier_or_packet_t);
  OFF(hsa_barrier_or_packet_t, dep_signal);
  OFF(hsa_barrier_or_packet_t, completion_signal);
  SIZE(hsa_amd_barrier_value_packet_t);
  OFF(hsa_amd_barrier_value_packet_t, header);
  OFF(hsa_amd_barrier_value_packet_t, reserved0);
  OFF(hsa_amd_barrier_value_packet_t, signal);
  OFF(hsa_amd_barrier_value_packet_t, value);
  OFF(hsa_amd_barrier_value_packet_t, mask);
  OFF(hsa_amd_barrier_value_packet_t, cond);
  OFF(hsa_amd_barrier_value_packet_t, reserved1);
  OFF(hsa_amd_barrier_value_packet_t, reserved2);
  OFF(hsa_amd_barrier_value_packet_t, reserved3);
  OFF(hsa_amd_barrier_value_packet_t, completion_signal);
  SIZE(hsa_amd_pointer_info_t);
  OFF(hsa_amd_pointer_info_t, size);
  OFF(hsa_amd_pointer_info_t, type);
  OFF(hsa_amd_pointer_info_t, agentBaseAddress);
  OFF(hsa_amd_pointer_info_t, hostBaseAddress);
  OFF(hsa_amd_pointer_info_t, sizeInBytes);
  OFF(hsa_amd_pointer_info_t, userData);
  OFF(hsa_amd_pointer_info_t, agentOwner);
  OFF(hsa_amd_pointer_info_t, global_flags);
  SIZE(hsa_amd_event_t);
  OFF(hsa_amd_event_t, event_type);
  OFF(hsa_amd_event_t, memory_fault.agent);
  OFF(hsa_amd_event_t, memory_fault.virtual_address);
  OFF(hsa_amd_event_t, memory_fault.fault_reason_mask);
  SIZE(hsa_amd_profiling_dispatch_time_t);
  SIZE(hsa_pitched_ptr_t);
  SIZE(hsa_dim3_t);
  return 0;
}
