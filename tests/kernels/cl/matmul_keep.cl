// targets: gfx90a gfx1030
#define TILE 16
// matmul_tiled (matmul.cl), and each work-item's last A-tile element of its row: the value of
// the loop's last ds_read, kept in its register past the loop, times 2 plus 0.5
// (crates/emu/tests/jit/lds_live.rs).
__kernel void matmul_keep(__global const float *A, __global const float *B, __global float *C,
                          __global float *K, uint n) {
  __local float As[TILE][TILE];
  __local float Bs[TILE][TILE];
  uint row = get_global_id(1), col = get_global_id(0);
  uint ly = get_local_id(1), lx = get_local_id(0);
  float acc = 0.0f, keep = 0.0f;
  for (uint t = 0; t < n; t += TILE) {
    As[ly][lx] = A[row * n + t + lx];
    Bs[ly][lx] = B[(t + ly) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < TILE; k++)
      acc += As[ly][k] * Bs[k][lx];
    keep = As[ly][TILE - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * n + col] = acc;
  K[row * n + col] = keep * 2.0f + 0.5f;
}
