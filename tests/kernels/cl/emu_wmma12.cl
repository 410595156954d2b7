// targets: gfx1200 gfx1201
// RDNA4 (GFX12) wave matrix multiply-accumulate through clang's __builtin_amdgcn_wmma_*_gfx12
// and __builtin_amdgcn_swmmac_* (one wave of 32 lanes, or 64 with -DWAVE64 -mwavefrontsize64).
// The kernels move registers, not matrices: lane l loads its A, B and C (or index) registers
// from element l of each buffer, runs the instruction and stores D to element l. The test
// (crates/emu/tests/wmma.rs) places the matrices in the registers by AMD's documented layout
// and reads D back the same way.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#ifdef WAVE64
#define WMMA(name) __builtin_amdgcn_wmma_##name##_w64_gfx12
#define SWMMAC(name) __builtin_amdgcn_swmmac_##name##_w64
// Registers of an operand that takes n VGPRs in wave32: n/2 in wave64 (at least one).
typedef int R1;
typedef int R2;
typedef int2 R4;
typedef int4 R8;
typedef float4 F8;
#define AS_H4 as_half4
#define AS_H8 as_half8
#define AS_S4 as_short4
#define AS_S8 as_short8
#define AS_R4 as_int2
#else
#define WMMA(name) __builtin_amdgcn_wmma_##name##_w32_gfx12
#define SWMMAC(name) __builtin_amdgcn_swmmac_##name##_w32
typedef int R1;
typedef int2 R2;
typedef int4 R4;
typedef int8 R8;
typedef float8 F8;
#define AS_H4 as_half8
#define AS_H8 as_half16
#define AS_S4 as_short8
#define AS_S8 as_short16
#define AS_R4 as_int4
#endif

#define LANE uint l = get_local_id(0)

// Dense float shapes with f32 results: D = A·B + C.
#define DENSE_F32(kname, op, TA, CAST)                                                         \
    kernel void kname(global const TA *a, global const TA *b, global const F8 *c,            \
                      global F8 *d) {                                                        \
        LANE;                                                                                \
        d[l] = WMMA(op)(CAST(a[l]), CAST(b[l]), c[l]);                                       \
    }
DENSE_F32(wmma_f32_f16, f32_16x16x16_f16, R4, AS_H4)
DENSE_F32(wmma_f32_bf16, f32_16x16x16_bf16, R4, AS_S4)
DENSE_F32(wmma_fp8_fp8, f32_16x16x16_fp8_fp8, R2, )
DENSE_F32(wmma_fp8_bf8, f32_16x16x16_fp8_bf8, R2, )
DENSE_F32(wmma_bf8_fp8, f32_16x16x16_bf8_fp8, R2, )
DENSE_F32(wmma_bf8_bf8, f32_16x16x16_bf8_bf8, R2, )

// 16-bit results, packed two rows a VGPR.
kernel void wmma_f16_f16(global const R4 *a, global const R4 *b, global const R4 *c,
                         global R4 *d) {
    LANE;
    d[l] = AS_R4(WMMA(f16_16x16x16_f16)(AS_H4(a[l]), AS_H4(b[l]), AS_H4(c[l])));
}
kernel void wmma_bf16_bf16(global const R4 *a, global const R4 *b, global const R4 *c,
                           global R4 *d) {
    LANE;
    d[l] = AS_R4(WMMA(bf16_16x16x16_bf16)(AS_S4(a[l]), AS_S4(b[l]), AS_S4(c[l])));
}

// Integers: D with A signed and B unsigned, E with A unsigned, B signed and clamp.
#define DENSE_INT(kname, op, TA)                                                               \
    kernel void kname(global const TA *a, global const TA *b, global const R8 *c,            \
                      global R8 *d, global R8 *e) {                                          \
        LANE;                                                                                \
        d[l] = WMMA(op)(true, a[l], false, b[l], c[l], false);                               \
        e[l] = WMMA(op)(false, a[l], true, b[l], c[l], true);                                \
    }
DENSE_INT(wmma_iu8, i32_16x16x16_iu8, R2)
DENSE_INT(wmma_iu4, i32_16x16x16_iu4, R1)
DENSE_INT(wmma_iu4_k32, i32_16x16x32_iu4, R2)

// SWMMAC: D = A·B + C with index set 0 (the index VGPR as given) and E with the index
// VGPR's high half (set 1 of 2 in wave32, set 2 of 4 in wave64: index_key when the compiler
// folds the shift).
#define SPARSE_F(kname, op, TA, TB, TC, CA, CB, CC, OUT)                                       \
    kernel void kname(global const TA *a, global const TB *b, global const TC *c,            \
                      global const int *idx, global TC *d, global TC *e) {                   \
        LANE;                                                                                \
        d[l] = OUT(SWMMAC(op)(CA(a[l]), CB(b[l]), CC(c[l]), idx[l]));                        \
        e[l] = OUT(SWMMAC(op)(CA(a[l]), CB(b[l]), CC(c[l]), (int)((uint)idx[l] >> 16)));     \
    }
SPARSE_F(swmmac_f32_f16, f32_16x16x32_f16, R4, R8, F8, AS_H4, AS_H8, , )
SPARSE_F(swmmac_f32_bf16, f32_16x16x32_bf16, R4, R8, F8, AS_S4, AS_S8, , )
SPARSE_F(swmmac_f16_f16, f16_16x16x32_f16, R4, R8, R4, AS_H4, AS_H8, AS_H4, AS_R4)
SPARSE_F(swmmac_bf16_bf16, bf16_16x16x32_bf16, R4, R8, R4, AS_S4, AS_S8, AS_S4, AS_R4)
SPARSE_F(swmmac_fp8_fp8, f32_16x16x32_fp8_fp8, R2, R4, F8, , , , )
SPARSE_F(swmmac_fp8_bf8, f32_16x16x32_fp8_bf8, R2, R4, F8, , , , )
SPARSE_F(swmmac_bf8_fp8, f32_16x16x32_bf8_fp8, R2, R4, F8, , , , )
SPARSE_F(swmmac_bf8_bf8, f32_16x16x32_bf8_bf8, R2, R4, F8, , , , )

// Integer SWMMAC: D with A signed, B unsigned (index set 0); E with A unsigned, B signed,
// clamp, and the index VGPR's high half.
#define SPARSE_INT(kname, op, TA, TB, SHIFT)                                                   \
    kernel void kname(global const TA *a, global const TB *b, global const R8 *c,            \
                      global const int *idx, global R8 *d, global R8 *e) {                   \
        LANE;                                                                                \
        d[l] = SWMMAC(op)(true, a[l], false, b[l], c[l], idx[l], false);                     \
        e[l] = SWMMAC(op)(false, a[l], true, b[l], c[l], (int)((uint)idx[l] >> SHIFT), true); \
    }
SPARSE_INT(swmmac_iu8, i32_16x16x32_iu8, R2, R4, 16)
SPARSE_INT(swmmac_iu4, i32_16x16x32_iu4, R1, R2, 16)
#ifdef WAVE64
SPARSE_INT(swmmac_iu4_k64, i32_16x16x64_iu4, R2, R4, 16)
#else
// One index set in wave32: E reads the same one.
SPARSE_INT(swmmac_iu4_k64, i32_16x16x64_iu4, R2, R4, 0)
#endif
