// targets: gfx1100 gfx1151
// RDNA3 wave matrix multiply-accumulate through clang's __builtin_amdgcn_wmma_* (one wave of
// 32 lanes, or 64 with -DWAVE64 -mwavefrontsize64). Matrices are row-major 16x16; the B
// operands come transposed (row j of BT is column j of B). Each lane loads row l%16 of A and
// column l%16 of B (every 16-lane group holds a copy, as the ISA requires) and C/D element
// (v*G + l/16, l%16) for accumulator element v, G = wave size / 16: AMD's documented layout.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#ifdef WAVE64
#define ACC 4
#define WMMA(name) __builtin_amdgcn_wmma_##name##_w64
#else
#define ACC 8
#define WMMA(name) __builtin_amdgcn_wmma_##name##_w32
#endif
#define G (ACC == 8 ? 2 : 4)

typedef float floatA __attribute__((ext_vector_type(ACC)));
typedef int intA __attribute__((ext_vector_type(ACC)));
typedef half half16v __attribute__((ext_vector_type(16)));
typedef half halfA __attribute__((ext_vector_type(2 * ACC)));
typedef short short16v __attribute__((ext_vector_type(16)));
typedef short shortA __attribute__((ext_vector_type(2 * ACC)));

// D = A·B + C with f16 inputs and f32 results.
kernel void wmma_f32_f16(global const half *a, global const half *bt, global const float *c,
                         global float *d) {
    uint l = get_local_id(0), i = l % 16, g = l / 16;
    half16v av, bv;
    for (int k = 0; k < 16; k++) {
        av[k] = a[i * 16 + k];
        bv[k] = bt[i * 16 + k];
    }
    floatA cv;
    for (int v = 0; v < ACC; v++)
        cv[v] = c[(v * G + g) * 16 + i];
    floatA dv = WMMA(f32_16x16x16_f16)(av, bv, cv);
    for (int v = 0; v < ACC; v++)
        d[(v * G + g) * 16 + i] = dv[v];
}

// The same with bf16 inputs (raw bits).
kernel void wmma_f32_bf16(global const short *a, global const short *bt, global const float *c,
                          global float *d) {
    uint l = get_local_id(0), i = l % 16, g = l / 16;
    short16v av, bv;
    for (int k = 0; k < 16; k++) {
        av[k] = a[i * 16 + k];
        bv[k] = bt[i * 16 + k];
    }
    floatA cv;
    for (int v = 0; v < ACC; v++)
        cv[v] = c[(v * G + g) * 16 + i];
    floatA dv = WMMA(f32_16x16x16_bf16)(av, bv, cv);
    for (int v = 0; v < ACC; v++)
        d[(v * G + g) * 16 + i] = dv[v];
}

// f16 results, both halves: D = A·B + C in the low halves (op_sel 0), then
// D2 = A2·B + C2 in the high halves (op_sel 1) of the same registers.
kernel void wmma_f16_f16(global const half *a, global const half *a2, global const half *bt,
                         global const half *c, global const half *c2, global half *d,
                         global half *d2) {
    uint l = get_local_id(0), i = l % 16, g = l / 16;
    half16v av, a2v, bv;
    for (int k = 0; k < 16; k++) {
        av[k] = a[i * 16 + k];
        a2v[k] = a2[i * 16 + k];
        bv[k] = bt[i * 16 + k];
    }
    halfA cv;
    for (int v = 0; v < ACC; v++) {
        cv[2 * v] = c[(v * G + g) * 16 + i];
        cv[2 * v + 1] = c2[(v * G + g) * 16 + i];
    }
    halfA dv = WMMA(f16_16x16x16_f16)(av, bv, cv, false);
    halfA ev = WMMA(f16_16x16x16_f16)(a2v, bv, dv, true);
    for (int v = 0; v < ACC; v++) {
        d[(v * G + g) * 16 + i] = ev[2 * v];
        d2[(v * G + g) * 16 + i] = ev[2 * v + 1];
    }
}

// bf16 results (raw bits), low halves.
kernel void wmma_bf16_bf16(global const short *a, global const short *bt, global const short *c,
                           global short *d) {
    uint l = get_local_id(0), i = l % 16, g = l / 16;
    short16v av, bv;
    for (int k = 0; k < 16; k++) {
        av[k] = a[i * 16 + k];
        bv[k] = bt[i * 16 + k];
    }
    shortA cv;
    for (int v = 0; v < ACC; v++) {
        cv[2 * v] = c[(v * G + g) * 16 + i];
        cv[2 * v + 1] = 0;
    }
    shortA dv = WMMA(bf16_16x16x16_bf16)(av, bv, cv, false);
    for (int v = 0; v < ACC; v++)
        d[(v * G + g) * 16 + i] = dv[2 * v];
}

// 8-bit integers: A signed, B unsigned; D plain (wrapping) and D2 with clamp.
kernel void wmma_iu8(global const int4 *a, global const int4 *bt, global const int *c,
                     global int *d, global int *d2) {
    uint l = get_local_id(0), i = l % 16, g = l / 16;
    intA cv;
    for (int v = 0; v < ACC; v++)
        cv[v] = c[(v * G + g) * 16 + i];
    intA dv = WMMA(i32_16x16x16_iu8)(true, a[i], false, bt[i], cv, false);
    intA ev = WMMA(i32_16x16x16_iu8)(true, a[i], false, bt[i], cv, true);
    for (int v = 0; v < ACC; v++) {
        d[(v * G + g) * 16 + i] = dv[v];
        d2[(v * G + g) * 16 + i] = ev[v];
    }
}

// 4-bit integers (two per byte, low nibble first): A unsigned, B signed.
kernel void wmma_iu4(global const int2 *a, global const int2 *bt, global const int *c,
                     global int *d) {
    uint l = get_local_id(0), i = l % 16, g = l / 16;
    intA cv;
    for (int v = 0; v < ACC; v++)
        cv[v] = c[(v * G + g) * 16 + i];
    intA dv = WMMA(i32_16x16x16_iu4)(false, a[i], true, bt[i], cv, false);
    for (int v = 0; v < ACC; v++)
        d[(v * G + g) * 16 + i] = dv[v];
}
