// targets: gfx942 gfx950
// Sparse matrix-core instructions (crates/emu/tests/mfma.rs, `smfmac_products`): one wave runs
// one v_smfmac_* on operands given per lane as raw words. a: A's compressed words (lane l at
// a[l * WA]), b: B's words (b[l * WB]), c: C by register (c[r * 64 + l]), idx: the index VGPR;
// d receives D like c. The test builds the operands from AMD's documented layout and checks D
// against a dense CPU product.
typedef _Float16 v4h __attribute__((ext_vector_type(4)));
typedef _Float16 v8h __attribute__((ext_vector_type(8)));
typedef _Float16 v16h __attribute__((ext_vector_type(16)));
typedef short v4s __attribute__((ext_vector_type(4)));
typedef short v8s __attribute__((ext_vector_type(8)));
typedef __bf16 v8bf __attribute__((ext_vector_type(8)));
typedef __bf16 v16bf __attribute__((ext_vector_type(16)));
typedef int v2i __attribute__((ext_vector_type(2)));
typedef int v4i __attribute__((ext_vector_type(4)));
typedef int v8i __attribute__((ext_vector_type(8)));
typedef int v16i __attribute__((ext_vector_type(16)));
typedef uint w2 __attribute__((ext_vector_type(2)));
typedef uint w4 __attribute__((ext_vector_type(4)));
typedef uint w8 __attribute__((ext_vector_type(8)));
typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v16f __attribute__((ext_vector_type(16)));

// NAME: kernel; OP: builtin suffix; TA/WA, TB/WB: A and B types and their words per lane;
// TC/E/NC: accumulator vector, element type, registers; CBSZ/ABID: the index-set selection.
#define SMFMAC(NAME, OP, TA, WA, TB, WB, TC, E, NC, CBSZ, ABID)                              \
  __kernel void NAME(__global const uint *a, __global const uint *b, __global const E *c,     \
                     __global const int *idx, __global E *d) {                                \
    const uint l = get_local_id(0);                                                           \
    TA va = __builtin_astype(((__global const w##WA *)a)[l], TA);                                            \
    TB vb = __builtin_astype(((__global const w##WB *)b)[l], TB);                                            \
    TC acc;                                                                                   \
    for (int r = 0; r < NC; r++)                                                              \
      acc[r] = c[r * 64 + l];                                                                 \
    acc = __builtin_amdgcn_smfmac_##OP(va, vb, acc, idx[l], CBSZ, ABID);                      \
    for (int r = 0; r < NC; r++)                                                              \
      d[r * 64 + l] = acc[r];                                                                 \
  }

SMFMAC(sp_16x16x32_f16_0_0, f32_16x16x32_f16, v4h, 2, v8h, 4, v4f, float, 4, 0, 0)
SMFMAC(sp_16x16x32_f16_0_2, f32_16x16x32_f16, v4h, 2, v8h, 4, v4f, float, 4, 0, 2)
SMFMAC(sp_16x16x32_f16_1_3, f32_16x16x32_f16, v4h, 2, v8h, 4, v4f, float, 4, 1, 3)
SMFMAC(sp_32x32x16_f16_0_1, f32_32x32x16_f16, v4h, 2, v8h, 4, v16f, float, 16, 0, 1)
SMFMAC(sp_16x16x32_bf16_0_3, f32_16x16x32_bf16, v4s, 2, v8s, 4, v4f, float, 4, 0, 3)
SMFMAC(sp_32x32x16_bf16_0_0, f32_32x32x16_bf16, v4s, 2, v8s, 4, v16f, float, 16, 0, 0)
SMFMAC(sp_16x16x64_i8_0_1, i32_16x16x64_i8, v2i, 2, v4i, 4, v4i, int, 4, 0, 1)
SMFMAC(sp_32x32x32_i8_0_0, i32_32x32x32_i8, v2i, 2, v4i, 4, v16i, int, 16, 0, 0)
SMFMAC(sp_16x16x64_fp8_fp8_0_0, f32_16x16x64_fp8_fp8, v2i, 2, v4i, 4, v4f, float, 4, 0, 0)
SMFMAC(sp_16x16x64_fp8_bf8_0_1, f32_16x16x64_fp8_bf8, v2i, 2, v4i, 4, v4f, float, 4, 0, 1)
SMFMAC(sp_16x16x64_bf8_fp8_1_0, f32_16x16x64_bf8_fp8, v2i, 2, v4i, 4, v4f, float, 4, 1, 0)
SMFMAC(sp_16x16x64_bf8_bf8_0_0, f32_16x16x64_bf8_bf8, v2i, 2, v4i, 4, v4f, float, 4, 0, 0)
SMFMAC(sp_32x32x32_fp8_fp8_0_1, f32_32x32x32_fp8_fp8, v2i, 2, v4i, 4, v16f, float, 16, 0, 1)
SMFMAC(sp_32x32x32_fp8_bf8_0_0, f32_32x32x32_fp8_bf8, v2i, 2, v4i, 4, v16f, float, 16, 0, 0)
SMFMAC(sp_32x32x32_bf8_fp8_0_0, f32_32x32x32_bf8_fp8, v2i, 2, v4i, 4, v16f, float, 16, 0, 0)
SMFMAC(sp_32x32x32_bf8_bf8_0_1, f32_32x32x32_bf8_bf8, v2i, 2, v4i, 4, v16f, float, 16, 0, 1)

#if defined(__gfx950__)
// CDNA4's double-K shapes: eight 16-bit or sixteen 8-bit values of A per lane.
SMFMAC(sp_16x16x64_f16_0_1, f32_16x16x64_f16, v8h, 4, v16h, 8, v4f, float, 4, 0, 1)
SMFMAC(sp_32x32x32_f16_0_0, f32_32x32x32_f16, v8h, 4, v16h, 8, v16f, float, 16, 0, 0)
SMFMAC(sp_16x16x64_bf16_0_0, f32_16x16x64_bf16, v8bf, 4, v16bf, 8, v4f, float, 4, 0, 0)
SMFMAC(sp_32x32x32_bf16_1_1, f32_32x32x32_bf16, v8bf, 4, v16bf, 8, v16f, float, 16, 1, 1)
SMFMAC(sp_16x16x128_i8_0_0, i32_16x16x128_i8, v4i, 4, v8i, 8, v4i, int, 4, 0, 0)
SMFMAC(sp_32x32x64_i8_0_0, i32_32x32x64_i8, v4i, 4, v8i, 8, v16i, int, 16, 0, 0)
SMFMAC(sp_16x16x128_fp8_fp8_0_0, f32_16x16x128_fp8_fp8, v4i, 4, v8i, 8, v4f, float, 4, 0, 0)
SMFMAC(sp_16x16x128_fp8_bf8_0_0, f32_16x16x128_fp8_bf8, v4i, 4, v8i, 8, v4f, float, 4, 0, 0)
SMFMAC(sp_16x16x128_bf8_fp8_0_0, f32_16x16x128_bf8_fp8, v4i, 4, v8i, 8, v4f, float, 4, 0, 0)
SMFMAC(sp_16x16x128_bf8_bf8_0_0, f32_16x16x128_bf8_bf8, v4i, 4, v8i, 8, v4f, float, 4, 0, 0)
SMFMAC(sp_32x32x64_fp8_fp8_0_0, f32_32x32x64_fp8_fp8, v4i, 4, v8i, 8, v16f, float, 16, 0, 0)
SMFMAC(sp_32x32x64_fp8_bf8_0_0, f32_32x32x64_fp8_bf8, v4i, 4, v8i, 8, v16f, float, 16, 0, 0)
SMFMAC(sp_32x32x64_bf8_fp8_0_0, f32_32x32x64_bf8_fp8, v4i, 4, v8i, 8, v16f, float, 16, 0, 0)
SMFMAC(sp_32x32x64_bf8_bf8_0_0, f32_32x32x64_bf8_bf8, v4i, 4, v8i, 8, v16f, float, 16, 0, 0)
#endif
