// Work-group geometry as a kernel sees it: the local size of partial work-groups and the group
// counts come from the dispatch packet (dispatch pointer SGPRs before code object V5, hidden
// arguments in V5), group IDs from the work-group ID SGPRs, local IDs from the VGPRs.
__kernel void geometry(__global uint *out) {
  size_t w = get_global_size(0), h = get_global_size(1);
  size_t i = (get_global_id(2) * h + get_global_id(1)) * w + get_global_id(0);
  __global uint *o = out + 4 * i;
  o[0] = get_local_size(0) | get_local_size(1) << 10 | get_local_size(2) << 20;
  o[1] = get_num_groups(0) | get_num_groups(1) << 10 | get_num_groups(2) << 20;
  o[2] = get_group_id(0) | get_group_id(1) << 10 | get_group_id(2) << 20;
  o[3] = get_local_linear_id();
}
