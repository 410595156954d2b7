// Each work-group's first work-item records the compute unit it runs on: HW_ID (hwreg 4)
// bits 15:8 (CU_ID, SH_ID, SE_ID), as ROCm's CU-masking test reads it on gfx90a.
__kernel void hw_id(__global uint *cu) {
  if (get_local_id(0) == 0)
    cu[get_group_id(0)] = __builtin_amdgcn_s_getreg((7 << 11) | (8 << 6) | 4);
}
