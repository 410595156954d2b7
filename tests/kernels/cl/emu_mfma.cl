// targets: gfx908 gfx90a
// Matrix-core kernels in the style of AMD's "AMD matrix cores" lab notes: each work-item loads
// the A, B and C elements that the documented register layout puts in its lane, the wave calls
// an MFMA builtin (accumulating over K in a loop), and each work-item stores the D elements its
// lane holds. Matrices are row-major: A is M x K, B is K x N, C and D are M x N.
//
// Input layout (every shape): a lane holds KPL consecutive k-elements of one row of A (one
// column of B), packed low to high. Output layout: N consecutive lanes hold one row; rows run
// down four registers, then on to the next group of N lanes, then to the next four registers.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef float floatx32 __attribute__((ext_vector_type(32)));
typedef int intx4 __attribute__((ext_vector_type(4)));
typedef int intx16 __attribute__((ext_vector_type(16)));
typedef int intx32 __attribute__((ext_vector_type(32)));
typedef half halfx4 __attribute__((ext_vector_type(4)));
typedef short shortx2 __attribute__((ext_vector_type(2)));
typedef short shortx4 __attribute__((ext_vector_type(4)));
typedef double doublex4 __attribute__((ext_vector_type(4)));

// Operand loaders: KPL elements at p, p + s, p + 2s, ... packed low to high (bf16 as raw
// 16-bit patterns, i8 four to a dword).
float ld_f32(global const float *p, int s) { return p[0]; }
halfx4 ld_f16(global const half *p, int s) { return (halfx4)(p[0], p[s], p[2 * s], p[3 * s]); }
shortx2 ld_bf16x2(global const short *p, int s) { return (shortx2)(p[0], p[s]); }
shortx4 ld_bf16x4(global const short *p, int s) {
    return (shortx4)(p[0], p[s], p[2 * s], p[3 * s]);
}
int ld_i8(global const char *p, int s) {
    return (int)((uint)(uchar)p[0] | (uint)(uchar)p[s] << 8 | (uint)(uchar)p[2 * s] << 16 |
                 (uint)(uchar)p[3 * s] << 24);
}

// One block: the wave computes a T x T tile of D = A B + C (tile (group 0, group 1) of an
// N-wide D). Lane l holds row/column i = l % T and k-group g = l / T; one MFMA covers
// KPL * (64 / T) values of k. D register r holds row 4 (64/T) (r/4) + 4 g + r%4, column i.
#define TILE_GEMM(NAME, T, KPL, IN, ATY, LD, OUT, DTY, NREG, MFMA)                            \
    __kernel void NAME(global const IN *A, global const IN *B, global const OUT *C,            \
                       global OUT *D, int K, int N) {                                          \
        int l = get_local_id(0), i = l % T, g = l / T;                                         \
        int row0 = get_group_id(1) * T, col0 = get_group_id(0) * T;                            \
        DTY d;                                                                                 \
        for (int r = 0; r < NREG; r++)                                                         \
            d[r] = C[(row0 + 4 * (64 / T) * (r / 4) + 4 * g + r % 4) * N + col0 + i];          \
        for (int k0 = 0; k0 < K; k0 += KPL * (64 / T)) {                                       \
            ATY a = LD(A + (row0 + i) * K + k0 + g * KPL, 1);                                  \
            ATY b = LD(B + (k0 + g * KPL) * N + col0 + i, N);                                  \
            d = MFMA(a, b, d, 0, 0, 0);                                                        \
        }                                                                                      \
        for (int r = 0; r < NREG; r++)                                                         \
            D[(row0 + 4 * (64 / T) * (r / 4) + 4 * g + r % 4) * N + col0 + i] = d[r];          \
    }

// 64/T blocks (T = 32 or 16): a batch of T x T products D_b = A_b B_b + C_b (A_b is T x K,
// B_b is K x T); work-group w takes blocks (64/T) w and on. Lane l holds row/column l % T of
// block l / T, KPL values of k per MFMA. Block b of D takes T T/64 registers laid out like a
// one-block tile: its register r holds row 4 (64/T) (r/4) + 4 (l/T) + r%4, column l % T.
#define BATCH_GEMM(NAME, T, KPL, IN, ATY, LD, OUT, DTY, NREG, MFMA)                           \
    __kernel void NAME(global const IN *A, global const IN *B, global const OUT *C,            \
                       global OUT *D, int K) {                                                 \
        int l = get_local_id(0), i = l % T, first = get_group_id(0) * (64 / T);                \
        int b = first + l / T;                                                                 \
        const int per = T * T / 64; /* registers per block of D */                             \
        DTY d;                                                                                 \
        for (int r = 0; r < NREG; r++) {                                                       \
            int blk = first + r / per, rr = r % per;                                           \
            int row = 4 * (64 / T) * (rr / 4) + 4 * (l / T) + rr % 4;                          \
            d[r] = C[blk * T * T + row * T + i];                                               \
        }                                                                                      \
        for (int k0 = 0; k0 < K; k0 += KPL) {                                                  \
            ATY a = LD(A + b * T * K + i * K + k0, 1);                                         \
            ATY bb = LD(B + b * K * T + k0 * T + i, T);                                        \
            d = MFMA(a, bb, d, 0, 0, 0);                                                       \
        }                                                                                      \
        for (int r = 0; r < NREG; r++) {                                                       \
            int blk = first + r / per, rr = r % per;                                           \
            int row = 4 * (64 / T) * (rr / 4) + 4 * (l / T) + rr % 4;                          \
            D[blk * T * T + row * T + i] = d[r];                                               \
        }                                                                                      \
    }

// 16 blocks of 4 x 4 (the lab notes' batched 4x4x4 example; work-group w takes blocks 16 w
// and on): lanes 4b..4b+3 hold block b, register r of D holds row r, column l % 4.
#define BATCH4_GEMM(NAME, KPL, IN, ATY, LD, OUT, DTY, MFMA)                                   \
    __kernel void NAME(global const IN *A, global const IN *B, global const OUT *C,            \
                       global OUT *D, int K) {                                                 \
        int l = get_local_id(0), i = l % 4, b = get_group_id(0) * 16 + l / 4;                  \
        DTY d;                                                                                 \
        for (int r = 0; r < 4; r++)                                                            \
            d[r] = C[b * 16 + r * 4 + i];                                                      \
        for (int k0 = 0; k0 < K; k0 += KPL) {                                                  \
            ATY a = LD(A + b * 4 * K + i * K + k0, 1);                                         \
            ATY bb = LD(B + b * K * 4 + k0 * 4 + i, 4);                                        \
            d = MFMA(a, bb, d, 0, 0, 0);                                                       \
        }                                                                                      \
        for (int r = 0; r < 4; r++)                                                            \
            D[b * 16 + r * 4 + i] = d[r];                                                      \
    }

TILE_GEMM(tile_32x32x2f32, 32, 1, float, float, ld_f32, float, floatx16, 16,
          __builtin_amdgcn_mfma_f32_32x32x2f32)
TILE_GEMM(tile_16x16x4f32, 16, 1, float, float, ld_f32, float, floatx4, 4,
          __builtin_amdgcn_mfma_f32_16x16x4f32)
TILE_GEMM(tile_32x32x8f16, 32, 4, half, halfx4, ld_f16, float, floatx16, 16,
          __builtin_amdgcn_mfma_f32_32x32x8f16)
TILE_GEMM(tile_16x16x16f16, 16, 4, half, halfx4, ld_f16, float, floatx4, 4,
          __builtin_amdgcn_mfma_f32_16x16x16f16)
TILE_GEMM(tile_32x32x8i8, 32, 4, char, int, ld_i8, int, intx16, 16,
          __builtin_amdgcn_mfma_i32_32x32x8i8)
TILE_GEMM(tile_16x16x16i8, 16, 4, char, int, ld_i8, int, intx4, 4,
          __builtin_amdgcn_mfma_i32_16x16x16i8)
TILE_GEMM(tile_32x32x4bf16, 32, 2, short, shortx2, ld_bf16x2, float, floatx16, 16,
          __builtin_amdgcn_mfma_f32_32x32x4bf16)
TILE_GEMM(tile_16x16x8bf16, 16, 2, short, shortx2, ld_bf16x2, float, floatx4, 4,
          __builtin_amdgcn_mfma_f32_16x16x8bf16)

BATCH_GEMM(batch_32x32x1f32, 32, 1, float, float, ld_f32, float, floatx32, 32,
           __builtin_amdgcn_mfma_f32_32x32x1f32)
BATCH_GEMM(batch_16x16x1f32, 16, 1, float, float, ld_f32, float, floatx16, 16,
           __builtin_amdgcn_mfma_f32_16x16x1f32)
BATCH_GEMM(batch_32x32x4f16, 32, 4, half, halfx4, ld_f16, float, floatx32, 32,
           __builtin_amdgcn_mfma_f32_32x32x4f16)
BATCH_GEMM(batch_16x16x4f16, 16, 4, half, halfx4, ld_f16, float, floatx16, 16,
           __builtin_amdgcn_mfma_f32_16x16x4f16)
BATCH_GEMM(batch_32x32x4i8, 32, 4, char, int, ld_i8, int, intx32, 32,
           __builtin_amdgcn_mfma_i32_32x32x4i8)
BATCH_GEMM(batch_16x16x4i8, 16, 4, char, int, ld_i8, int, intx16, 16,
           __builtin_amdgcn_mfma_i32_16x16x4i8)
BATCH_GEMM(batch_32x32x2bf16, 32, 2, short, shortx2, ld_bf16x2, float, floatx32, 32,
           __builtin_amdgcn_mfma_f32_32x32x2bf16)
BATCH_GEMM(batch_16x16x2bf16, 16, 2, short, shortx2, ld_bf16x2, float, floatx16, 16,
           __builtin_amdgcn_mfma_f32_16x16x2bf16)

BATCH4_GEMM(batch_4x4x1f32, 1, float, float, ld_f32, float, floatx4,
            __builtin_amdgcn_mfma_f32_4x4x1f32)
BATCH4_GEMM(batch_4x4x4f16, 4, half, halfx4, ld_f16, float, floatx4,
            __builtin_amdgcn_mfma_f32_4x4x4f16)
BATCH4_GEMM(batch_4x4x4i8, 4, char, int, ld_i8, int, intx4, __builtin_amdgcn_mfma_i32_4x4x4i8)
BATCH4_GEMM(batch_4x4x2bf16, 2, short, shortx2, ld_bf16x2, float, floatx4,
            __builtin_amdgcn_mfma_f32_4x4x2bf16)

// Broadcast modifiers: one MFMA on raw operands. A, B and C come in lane-major order
// (operand register r of lane l at [r * 64 + l]), D goes out the same way; the test models
// the documented layout and the CBSZ/ABID/BLGP broadcasts on the CPU.
#define MODS(NAME, ATY, DTY, OUT, NREG, MFMA, CBSZ, ABID, BLGP)                               \
    __kernel void NAME(global const ATY *A, global const ATY *B, global const OUT *C,          \
                       global OUT *D) {                                                        \
        int l = get_local_id(0);                                                               \
        DTY d;                                                                                 \
        for (int r = 0; r < NREG; r++)                                                         \
            d[r] = C[r * 64 + l];                                                              \
        d = MFMA(A[l], B[l], d, CBSZ, ABID, BLGP);                                             \
        for (int r = 0; r < NREG; r++)                                                         \
            D[r * 64 + l] = d[r];                                                              \
    }

MODS(mods_4x4x1f32_4_3_7, float, floatx4, float, 4, __builtin_amdgcn_mfma_f32_4x4x1f32, 4, 3, 7)
MODS(mods_4x4x1f32_2_1_3, float, floatx4, float, 4, __builtin_amdgcn_mfma_f32_4x4x1f32, 2, 1, 3)
MODS(mods_4x4x1f32_3_6_0, float, floatx4, float, 4, __builtin_amdgcn_mfma_f32_4x4x1f32, 3, 6, 0)
MODS(mods_4x4x1f32_0_0_1, float, floatx4, float, 4, __builtin_amdgcn_mfma_f32_4x4x1f32, 0, 0, 1)
MODS(mods_4x4x1f32_0_0_2, float, floatx4, float, 4, __builtin_amdgcn_mfma_f32_4x4x1f32, 0, 0, 2)
MODS(mods_4x4x1f32_0_0_4, float, floatx4, float, 4, __builtin_amdgcn_mfma_f32_4x4x1f32, 0, 0, 4)
MODS(mods_4x4x1f32_0_0_5, float, floatx4, float, 4, __builtin_amdgcn_mfma_f32_4x4x1f32, 0, 0, 5)
MODS(mods_4x4x1f32_0_0_6, float, floatx4, float, 4, __builtin_amdgcn_mfma_f32_4x4x1f32, 0, 0, 6)
MODS(mods_16x16x1f32_2_3_0, float, floatx16, float, 16, __builtin_amdgcn_mfma_f32_16x16x1f32,
     2, 3, 0)
MODS(mods_16x16x1f32_1_1_3, float, floatx16, float, 16, __builtin_amdgcn_mfma_f32_16x16x1f32,
     1, 1, 3)
MODS(mods_32x32x1f32_1_1_2, float, floatx32, float, 32, __builtin_amdgcn_mfma_f32_32x32x1f32,
     1, 1, 2)
MODS(mods_16x16x4f32_0_0_3, float, floatx4, float, 4, __builtin_amdgcn_mfma_f32_16x16x4f32, 0,
     0, 3)
MODS(mods_16x16x4f16_2_2_5, halfx4, floatx16, float, 16, __builtin_amdgcn_mfma_f32_16x16x4f16,
     2, 2, 5)
MODS(mods_4x4x4i8_3_6_6, int, intx4, int, 4, __builtin_amdgcn_mfma_i32_4x4x4i8, 3, 6, 6)
MODS(mods_32x32x2bf16_1_0_1, shortx2, floatx32, float, 32,
     __builtin_amdgcn_mfma_f32_32x32x2bf16, 1, 0, 1)

// A and B in AGPRs (the acc bits of the encoding; gfx908 and gfx90a), through inline assembly.
__kernel void agpr_ab_16x16x4f32(global const float *A, global const float *B,
                                 global const float *C, global float *D) {
    int l = get_local_id(0), i = l % 16, g = l / 16;
    floatx4 d;
    for (int r = 0; r < 4; r++)
        d[r] = C[(4 * g + r) * 16 + i];
    float a = A[i * 4 + g], b = B[g * 16 + i];
    __asm__ volatile("v_mfma_f32_16x16x4f32 %0, %1, %2, %0" : "+a"(d) : "a"(a), "a"(b));
    for (int r = 0; r < 4; r++)
        D[(4 * g + r) * 16 + i] = d[r];
}

// CBSZ on a one-block shape: outside AMD's documented range, the emulator faults.
MODS(mods_16x16x4f32_1_0_0, float, floatx4, float, 4, __builtin_amdgcn_mfma_f32_16x16x4f32, 1,
     0, 0)

#ifdef __gfx90a__
// gfx90a: the bf16 "_1k" shapes (four bf16 per register pair) and f64.
TILE_GEMM(tile_32x32x8bf16_1k, 32, 4, short, shortx4, ld_bf16x4, float, floatx16, 16,
          __builtin_amdgcn_mfma_f32_32x32x8bf16_1k)
TILE_GEMM(tile_16x16x16bf16_1k, 16, 4, short, shortx4, ld_bf16x4, float, floatx4, 4,
          __builtin_amdgcn_mfma_f32_16x16x16bf16_1k)
BATCH_GEMM(batch_32x32x4bf16_1k, 32, 4, short, shortx4, ld_bf16x4, float, floatx32, 32,
           __builtin_amdgcn_mfma_f32_32x32x4bf16_1k)
BATCH_GEMM(batch_16x16x4bf16_1k, 16, 4, short, shortx4, ld_bf16x4, float, floatx16, 16,
           __builtin_amdgcn_mfma_f32_16x16x4bf16_1k)
BATCH4_GEMM(batch_4x4x4bf16_1k, 4, short, shortx4, ld_bf16x4, float, floatx4,
            __builtin_amdgcn_mfma_f32_4x4x4bf16_1k)
MODS(mods_4x4x4bf16_1k_4_9_3, shortx4, floatx4, float, 4,
     __builtin_amdgcn_mfma_f32_4x4x4bf16_1k, 4, 9, 3)

// v_mfma_f64_16x16x4f64 (the lab notes' dgemm_16x16x16): a 16 x 16 tile; lanes 16g..16g+15
// hold k-group g; D register pair p holds row 4p + l/16, column l % 16.
__kernel void tile_16x16x4f64(global const double *A, global const double *B,
                              global const double *C, global double *D, int K, int N) {
    int l = get_local_id(0), i = l % 16, g = l / 16;
    int row0 = get_group_id(1) * 16, col0 = get_group_id(0) * 16;
    doublex4 d;
    for (int p = 0; p < 4; p++)
        d[p] = C[(row0 + 4 * p + g) * N + col0 + i];
    for (int k0 = 0; k0 < K; k0 += 4) {
        double a = A[(row0 + i) * K + k0 + g];
        double b = B[(k0 + g) * N + col0 + i];
        d = __builtin_amdgcn_mfma_f64_16x16x4f64(a, b, d, 0, 0, 0);
    }
    for (int p = 0; p < 4; p++)
        D[(row0 + 4 * p + g) * N + col0 + i] = d[p];
}

// v_mfma_f64_4x4x4f64 (the lab notes' dgemm_4x4x4_batch): four 4 x 4 blocks; lane
// 16k + 4b + i holds A[i][k] / B[k][i] of block b, and D[i][j] of block b is in lane
// 16i + 4b + j.
__kernel void batch_4x4x4f64(global const double *A, global const double *B,
                             global const double *C, global double *D, int K) {
    int l = get_local_id(0), x = l % 4, blk = get_group_id(0) * 4 + (l / 4) % 4, z = l / 16;
    double d = C[blk * 16 + z * 4 + x];
    for (int k0 = 0; k0 < K; k0 += 4) {
        double a = A[blk * 4 * K + x * K + k0 + z];
        double b = B[blk * K * 4 + (k0 + z) * 4 + x];
        d = __builtin_amdgcn_mfma_f64_4x4x4f64(a, b, d, 0, 0, 0);
    }
    D[blk * 16 + z * 4 + x] = d;
}

// BLGP on gfx90a's f64 shapes is not defined by AMD (gfx940 reuses the field as NEG).
__kernel void f64_blgp(global const double *A, global double *D) {
    int l = get_local_id(0);
    D[l] = __builtin_amdgcn_mfma_f64_4x4x4f64(A[l], A[l + 64], 0.0, 0, 0, 1);
}

// gfx90a operand files clang-15 does not choose by itself, through inline assembly: C and D
// in VGPRs, A and B in AGPRs, an AGPR-to-AGPR move, and AGPR data in LDS and global accesses.
__kernel void vgpr_cd_32x32x2f32(global const float *A, global const float *B,
                                 global const float *C, global float *D, int K) {
    int l = get_local_id(0), i = l % 32, g = l / 32;
    floatx16 d;
    for (int r = 0; r < 16; r++)
        d[r] = C[(8 * (r / 4) + 4 * g + r % 4) * 32 + i];
    for (int k0 = 0; k0 < K; k0 += 2) {
        float a = A[i * K + k0 + g], b = B[(k0 + g) * 32 + i];
        if (k0 % 4 == 0)
            __asm__ volatile("v_mfma_f32_32x32x2f32 %0, %1, %2, %0" : "+v"(d) : "v"(a), "v"(b));
        else
            __asm__ volatile("v_mfma_f32_32x32x2f32 %0, %1, %2, %0" : "+v"(d) : "a"(a), "a"(b));
    }
    for (int r = 0; r < 16; r++)
        D[(8 * (r / 4) + 4 * g + r % 4) * 32 + i] = d[r];
}

__kernel void agpr_moves(global const uint *in, global uint *out) {
    local uint lds[64];
    int l = get_local_id(0);
    uint x = in[l], y, z, v;
    uint lds_addr = (uint)(size_t)&lds[63 - l];
    __asm__ volatile("v_accvgpr_mov_b32 %0, %1" : "=&a"(y) : "a"(x));
    out[128 + l] = x + 1;
    __asm__ volatile("ds_write_b32 %0, %1\n\ts_waitcnt lgkmcnt(0)" : : "v"(lds_addr), "a"(y)
                     : "memory");
    barrier(CLK_LOCAL_MEM_FENCE);
    lds_addr = (uint)(size_t)&lds[l];
    __asm__ volatile("ds_read_b32 %0, %1\n\ts_waitcnt lgkmcnt(0)" : "=a"(z) : "v"(lds_addr)
                     : "memory");
    __asm__ volatile("global_load_dword %0, %1, off offset:256\n\ts_waitcnt vmcnt(0)"
                     : "=a"(v)
                     : "v"(in + l)
                     : "memory");
    out[l] = z;
    out[64 + l] = v;
}
#endif
