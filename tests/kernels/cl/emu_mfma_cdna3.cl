// targets: gfx942 gfx950
// CDNA3/CDNA4 matrix-core shapes (crates/emu/tests/mfma.rs, `cdna3_tiles_of_a_matrix_product`), in
// the tile layout of emu_mfma.cl: a lane holds KPL consecutive k-elements of one row of A (one
// column of B); N consecutive lanes hold one row of D, rows run down four registers.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef float floatx2 __attribute__((ext_vector_type(2)));
typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef int intx4 __attribute__((ext_vector_type(4)));
typedef int intx16 __attribute__((ext_vector_type(16)));
typedef double doublex4 __attribute__((ext_vector_type(4)));
typedef half halfx8 __attribute__((ext_vector_type(8)));
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef ushort ushortx8 __attribute__((ext_vector_type(8)));

floatx2 ld_f32x2(global const float *p, int s) { return (floatx2)(p[0], p[s]); }
// Eight 8-bit elements (i8, fp8 or bf8 bytes) at p, p + s, ... packed low to high.
long ld_x8(global const uchar *p, int s) {
    ulong v = 0;
    for (int e = 0; e < 8; e++)
        v |= (ulong)p[e * s] << (8 * e);
    return (long)v;
}

#define TILE(NAME, T, KPL, IN, ATY, LD, OUT, DTY, NREG, MFMA)                                 \
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

#ifdef __gfx942__
// xf32 is gfx94x only.
TILE(tile_32x32x4_xf32, 32, 2, float, floatx2, ld_f32x2, float, floatx16, 16,
     __builtin_amdgcn_mfma_f32_32x32x4_xf32)
TILE(tile_16x16x8_xf32, 16, 2, float, floatx2, ld_f32x2, float, floatx4, 4,
     __builtin_amdgcn_mfma_f32_16x16x8_xf32)
#endif
TILE(tile_32x32x16_i8, 32, 8, uchar, long, ld_x8, int, intx16, 16,
     __builtin_amdgcn_mfma_i32_32x32x16_i8)
TILE(tile_16x16x32_i8, 16, 8, uchar, long, ld_x8, int, intx4, 4,
     __builtin_amdgcn_mfma_i32_16x16x32_i8)
TILE(tile_32x32x16_fp8_fp8, 32, 8, uchar, long, ld_x8, float, floatx16, 16,
     __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8)
TILE(tile_16x16x32_bf8_bf8, 16, 8, uchar, long, ld_x8, float, floatx4, 4,
     __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8)
TILE(tile_16x16x32_fp8_bf8, 16, 8, uchar, long, ld_x8, float, floatx4, 4,
     __builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8)
TILE(tile_32x32x16_bf8_fp8, 32, 8, uchar, long, ld_x8, float, floatx16, 16,
     __builtin_amdgcn_mfma_f32_32x32x16_bf8_fp8)

// v_mfma_f64_16x16x4_f64 with NEG (the BLGP field on CDNA3) on A and C: D = A B - C.
__kernel void tile_16x16x4f64_neg_a_c(global const double *A, global const double *B,
                                      global const double *C, global double *D, int K, int N) {
    int l = get_local_id(0), i = l % 16, g = l / 16;
    int row0 = get_group_id(1) * 16, col0 = get_group_id(0) * 16;
    doublex4 d;
    for (int p = 0; p < 4; p++)
        d[p] = -C[(row0 + 4 * p + g) * N + col0 + i];
    for (int k0 = 0; k0 < K; k0 += 4) {
        double a = A[(row0 + i) * K + k0 + g];
        double b = B[(k0 + g) * N + col0 + i];
        // neg A (bit 0) and C (bit 2): each step gives -(a b) - d, negated back: d + a b.
        d = __builtin_amdgcn_mfma_f64_16x16x4f64(a, b, d, 0, 0, 5);
        d = -d;
    }
    for (int p = 0; p < 4; p++)
        D[(row0 + 4 * p + g) * N + col0 + i] = d[p];
}

#ifdef __gfx950__
// gfx950's double-K shapes: eight f16/bf16 or sixteen i8 k-elements per lane.
halfx8 ld_f16x8(global const half *p, int s) {
    halfx8 v;
    for (int e = 0; e < 8; e++)
        v[e] = p[e * s];
    return v;
}
bf16x8 ld_bf16x8(global const ushort *p, int s) {
    ushortx8 v;
    for (int e = 0; e < 8; e++)
        v[e] = p[e * s];
    return __builtin_bit_cast(bf16x8, v);
}
intx4 ld_i8x16(global const uchar *p, int s) {
    intx4 v;
    for (int r = 0; r < 4; r++) {
        uint x = 0;
        for (int e = 0; e < 4; e++)
            x |= (uint)p[(4 * r + e) * s] << (8 * e);
        v[r] = (int)x;
    }
    return v;
}
TILE(tile_16x16x32_f16, 16, 8, half, halfx8, ld_f16x8, float, floatx4, 4,
     __builtin_amdgcn_mfma_f32_16x16x32_f16)
TILE(tile_32x32x16_f16, 32, 8, half, halfx8, ld_f16x8, float, floatx16, 16,
     __builtin_amdgcn_mfma_f32_32x32x16_f16)
TILE(tile_16x16x32_bf16, 16, 8, ushort, bf16x8, ld_bf16x8, float, floatx4, 4,
     __builtin_amdgcn_mfma_f32_16x16x32_bf16)
TILE(tile_32x32x16_bf16, 32, 8, ushort, bf16x8, ld_bf16x8, float, floatx16, 16,
     __builtin_amdgcn_mfma_f32_32x32x16_bf16)
TILE(tile_16x16x64_i8, 16, 16, uchar, intx4, ld_i8x16, int, intx4, 4,
     __builtin_amdgcn_mfma_i32_16x16x64_i8)
TILE(tile_32x32x32_i8, 32, 16, uchar, intx4, ld_i8x16, int, intx16, 16,
     __builtin_amdgcn_mfma_i32_32x32x32_i8)
#endif
