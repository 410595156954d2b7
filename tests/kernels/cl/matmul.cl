#define TILE 16
// C = A * B for square n x n matrices (n a multiple of TILE), tiled through LDS.
__kernel void matmul_tiled(__global const float *A, __global const float *B, __global float *C,
                           uint n) {
  __local float As[TILE][TILE];
  __local float Bs[TILE][TILE];
  uint row = get_global_id(1), col = get_global_id(0);
  uint ly = get_local_id(1), lx = get_local_id(0);
  float acc = 0.0f;
  for (uint t = 0; t < n; t += TILE) {
    As[ly][lx] = A[row * n + t + lx];
    Bs[ly][lx] = B[(t + ly) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < TILE; k++)
      acc += As[ly][k] * Bs[k][lx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * n + col] = acc;
}
