// targets: gfx950
// CDNA4 (gfx950) vector ALU additions (crates/emu/tests/cdna3.rs, `cdna4_*` tests): where
// clang-22 selects the instruction from plain code the kernel says so; the rest use builtins
// or inline assembly. The tests compute the expected values from the instructions' definitions.
typedef _Float16 v2h __attribute__((ext_vector_type(2)));
typedef short v2s __attribute__((ext_vector_type(2)));
typedef uint v2u __attribute__((ext_vector_type(2)));

// v_ashr_pk_u8_i32 (selected by clang-22 from this pattern) and v_ashr_pk_i8_i32 (inline
// assembly): two arithmetic shifts, saturated to 8 bits and packed.
__kernel void ashr_pk(__global const int *a, __global const int *b, __global const uint *s,
                      __global ushort *u8, __global uint *i8) {
  const int i = get_global_id(0);
  const uint sh = s[i] & 31;
  int x = a[i] >> sh, y = b[i] >> sh;
  x = min(max(x, 0), 255);
  y = min(max(y, 0), 255);
  u8[i] = (ushort)((uchar)x | ((ushort)(uchar)y << 8));
  uint r;
  __asm__ volatile("v_ashr_pk_i8_i32 %0, %1, %2, %3" : "=v"(r) : "v"(a[i]), "v"(b[i]), "v"(s[i]));
  i8[i] = r;
}

// v_maximum3_f32/v_minimum3_f32 and their packed f16 forms, selected from the IEEE 754-2019
// maximum/minimum builtins.
__kernel void max3(__global const float *a, __global float *mx, __global float *mn) {
  const int i = get_global_id(0);
  mx[i] = __builtin_elementwise_maximum(__builtin_elementwise_maximum(a[3 * i], a[3 * i + 1]),
                                        a[3 * i + 2]);
  mn[i] = __builtin_elementwise_minimum(__builtin_elementwise_minimum(a[3 * i], a[3 * i + 1]),
                                        a[3 * i + 2]);
}

__kernel void pk_max3(__global const v2h *a, __global v2h *mx, __global v2h *mn) {
  const int i = get_global_id(0);
  mx[i] = __builtin_elementwise_maximum(__builtin_elementwise_maximum(a[3 * i], a[3 * i + 1]),
                                        a[3 * i + 2]);
  mn[i] = __builtin_elementwise_minimum(__builtin_elementwise_minimum(a[3 * i], a[3 * i + 1]),
                                        a[3 * i + 2]);
}

// v_prng_b32 chained four times.
__kernel void prng(__global const uint *a, __global uint *o) {
  const int i = get_global_id(0);
  uint x = a[i];
  for (int k = 0; k < 4; k++) {
    x = __builtin_amdgcn_prng_b32(x);
    o[4 * i + k] = x;
  }
}

// v_cvt_f32_bf16 of the low half (VOP1), the high half (SDWA WORD_1) and the low half in the VOP3
// encoding.
__kernel void cvt_f32_bf16(__global const uint *a, __global uint *o) {
  const int i = get_global_id(0);
  uint lo, hi, hi3;
  __asm__ volatile("v_cvt_f32_bf16 %0, %1" : "=v"(lo) : "v"(a[i]));
  __asm__ volatile("v_cvt_f32_bf16_sdwa %0, %1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1"
                   : "=v"(hi) : "v"(a[i]));
  __asm__ volatile("v_cvt_f32_bf16_e64 %0, %1" : "=v"(hi3) : "v"(a[i]));
  o[3 * i] = lo;
  o[3 * i + 1] = hi;
  o[3 * i + 2] = hi3;
}

// v_permlane16_swap_b32 and v_permlane32_swap_b32 (builtins): both registers come back.
__kernel void permlane_swap(__global const uint *a, __global const uint *b, __global uint *o) {
  const int l = get_local_id(0);
  v2u r16 = __builtin_amdgcn_permlane16_swap(a[l], b[l], false, false);
  v2u r32 = __builtin_amdgcn_permlane32_swap(a[l], b[l], false, false);
  o[l] = r16.x;
  o[64 + l] = r16.y;
  o[128 + l] = r32.x;
  o[192 + l] = r32.y;
}

// v_dot2c_f32_bf16 (the builtin) and v_dot2_f32_bf16 (inline assembly, plain and with the
// low half of A, the high half of B and C negated).
__kernel void dot2_bf16(__global const uint *a, __global const uint *b, __global const float *c,
                        __global float *o) {
  const int i = get_global_id(0);
  o[3 * i] = __builtin_amdgcn_fdot2_f32_bf16(__builtin_bit_cast(v2s, a[i]),
                                             __builtin_bit_cast(v2s, b[i]), c[i], false);
  float r, q;
  __asm__ volatile("v_dot2_f32_bf16 %0, %1, %2, %3" : "=v"(r) : "v"(a[i]), "v"(b[i]), "v"(c[i]));
  __asm__ volatile("v_dot2_f32_bf16 %0, %1, %2, %3 neg_lo:[1,0,1] neg_hi:[0,1,0]"
                   : "=v"(q) : "v"(a[i]), "v"(b[i]), "v"(c[i]));
  o[3 * i + 1] = r;
  o[3 * i + 2] = q;
}
