// targets: gfx950
// gfx950's f8f6f4 MFMAs (crates/emu/tests/mfma.rs, `f8f6f4_products`): one wave runs one
// __builtin_amdgcn_mfma_scale_f32_*_f8f6f4 on operands given per lane as raw words. a, b: A's
// and B's eight words per lane (lane l at a[8l]; the formats use the first 8, 6 or 4), c: C by
// register (c[r * 64 + l]), sa, sb: each lane's scale word; d receives D like c. The test
// builds the operands from the documented layout and checks D against a CPU product.
// Kernels `f8f6f4_M_CBSZ_BLGP_SELA_SELB` pass the scales (read at run time, so clang keeps the
// scaled instruction); `f8f6f4_M_CBSZ_BLGP_plain` pass constant zero scales, which clang-22
// compiles as the plain v_mfma_f32_*_f8f6f4.
typedef int v8i __attribute__((ext_vector_type(8)));
typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v16f __attribute__((ext_vector_type(16)));

#define F8F6F4(NAME, SHAPE, TC, NC, CBSZ, BLGP, SELA, SCALEA, SELB, SCALEB)                   \
  __kernel void NAME(__global const v8i *a, __global const v8i *b, __global const float *c,   \
                     __global const int *sa, __global const int *sb, __global float *d) {     \
    const uint l = get_local_id(0);                                                           \
    TC acc;                                                                                   \
    for (int r = 0; r < NC; r++)                                                              \
      acc[r] = c[r * 64 + l];                                                                 \
    acc = __builtin_amdgcn_mfma_scale_f32_##SHAPE##_f8f6f4(a[l], b[l], acc, CBSZ, BLGP, SELA, \
                                                           SCALEA, SELB, SCALEB);             \
    for (int r = 0; r < NC; r++)                                                              \
      d[r * 64 + l] = acc[r];                                                                 \
  }

#define SCALED16(CBSZ, BLGP, SELA, SELB)                                                      \
  F8F6F4(f8f6f4_16_##CBSZ##_##BLGP##_##SELA##_##SELB, 16x16x128, v4f, 4, CBSZ, BLGP, SELA,    \
         sa[l], SELB, sb[l])
#define SCALED32(CBSZ, BLGP, SELA, SELB)                                                      \
  F8F6F4(f8f6f4_32_##CBSZ##_##BLGP##_##SELA##_##SELB, 32x32x64, v16f, 16, CBSZ, BLGP, SELA,   \
         sa[l], SELB, sb[l])
#define PLAIN16(CBSZ, BLGP)                                                                   \
  F8F6F4(f8f6f4_16_##CBSZ##_##BLGP##_plain, 16x16x128, v4f, 4, CBSZ, BLGP, 0, 0, 0, 0)
#define PLAIN32(CBSZ, BLGP)                                                                   \
  F8F6F4(f8f6f4_32_##CBSZ##_##BLGP##_plain, 32x32x64, v16f, 16, CBSZ, BLGP, 0, 0, 0, 0)

// Every format on A (B fp8) and on B (A fp8), each scale byte, some mixed pairs.
SCALED16(0, 0, 0, 0)
SCALED16(1, 0, 1, 2)
SCALED16(2, 0, 2, 3)
SCALED16(3, 0, 3, 1)
SCALED16(4, 0, 0, 1)
SCALED16(0, 1, 2, 0)
SCALED16(0, 2, 1, 1)
SCALED16(0, 3, 3, 3)
SCALED16(0, 4, 2, 2)
SCALED16(2, 3, 1, 0)
SCALED16(4, 4, 3, 2)
SCALED16(3, 4, 0, 3)
SCALED32(0, 0, 1, 1)
SCALED32(1, 1, 0, 2)
SCALED32(2, 2, 3, 0)
SCALED32(3, 3, 2, 1)
SCALED32(4, 4, 1, 3)
SCALED32(4, 2, 2, 2)
SCALED32(1, 3, 0, 0)
SCALED32(0, 4, 3, 1)
PLAIN16(0, 0)
PLAIN16(1, 4)
PLAIN16(2, 2)
PLAIN16(4, 3)
PLAIN32(0, 1)
PLAIN32(3, 2)
PLAIN32(4, 4)
