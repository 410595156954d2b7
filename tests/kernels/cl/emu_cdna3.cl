// targets: gfx942 gfx950
// CDNA3/CDNA4 instructions (crates/emu/tests/cdna3.rs): fp8/bf8 conversions on every byte,
// packed and stochastic-rounding conversions, v_lshl_add_u64 / v_mov_b64 address arithmetic.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// Every fp8 and bf8 byte (in each of the four byte positions) to f32.
kernel void fp8_to_f32(global const uint *in, global float *fp8, global float *bf8) {
    uint i = get_global_id(0);
    uint w = in[i];
    fp8[4 * i + 0] = __builtin_amdgcn_cvt_f32_fp8(w, 0);
    fp8[4 * i + 1] = __builtin_amdgcn_cvt_f32_fp8(w, 1);
    fp8[4 * i + 2] = __builtin_amdgcn_cvt_f32_fp8(w, 2);
    fp8[4 * i + 3] = __builtin_amdgcn_cvt_f32_fp8(w, 3);
    bf8[4 * i + 0] = __builtin_amdgcn_cvt_f32_bf8(w, 0);
    bf8[4 * i + 1] = __builtin_amdgcn_cvt_f32_bf8(w, 1);
    bf8[4 * i + 2] = __builtin_amdgcn_cvt_f32_bf8(w, 2);
    bf8[4 * i + 3] = __builtin_amdgcn_cvt_f32_bf8(w, 3);
}

// Pairs of fp8/bf8 bytes (either word) to two f32.
kernel void pk_fp8_to_f32(global const uint *in, global float2 *fp8, global float2 *bf8) {
    uint i = get_global_id(0);
    uint w = in[i];
    fp8[2 * i + 0] = __builtin_amdgcn_cvt_pk_f32_fp8(w, false);
    fp8[2 * i + 1] = __builtin_amdgcn_cvt_pk_f32_fp8(w, true);
    bf8[2 * i + 0] = __builtin_amdgcn_cvt_pk_f32_bf8(w, false);
    bf8[2 * i + 1] = __builtin_amdgcn_cvt_pk_f32_bf8(w, true);
}

// f32 to fp8/bf8 with round to nearest even, two per word half (the other half kept).
kernel void f32_to_fp8(global const float *in, global uint *fp8, global uint *bf8) {
    uint i = get_global_id(0);
    float a = in[2 * i], b = in[2 * i + 1];
    int f = __builtin_amdgcn_cvt_pk_fp8_f32(a, b, 0x5a5a5a5a, false);
    fp8[i] = __builtin_amdgcn_cvt_pk_fp8_f32(b, a, f, true);
    int g = __builtin_amdgcn_cvt_pk_bf8_f32(a, b, 0x5a5a5a5a, false);
    bf8[i] = __builtin_amdgcn_cvt_pk_bf8_f32(b, a, g, true);
}

// f32 to fp8/bf8 with stochastic rounding by `rnd`, into byte `i % 4` of a kept word.
kernel void f32_to_fp8_sr(global const float *in, global const uint *rnd, global uint *fp8,
                          global uint *bf8) {
    uint i = get_global_id(0);
    float a = in[i];
    uint r = rnd[i];
    int f = 0x5a5a5a5a, g = 0x5a5a5a5a;
    switch (i % 4) {
    case 0: f = __builtin_amdgcn_cvt_sr_fp8_f32(a, r, f, 0); g = __builtin_amdgcn_cvt_sr_bf8_f32(a, r, g, 0); break;
    case 1: f = __builtin_amdgcn_cvt_sr_fp8_f32(a, r, f, 1); g = __builtin_amdgcn_cvt_sr_bf8_f32(a, r, g, 1); break;
    case 2: f = __builtin_amdgcn_cvt_sr_fp8_f32(a, r, f, 2); g = __builtin_amdgcn_cvt_sr_bf8_f32(a, r, g, 2); break;
    default: f = __builtin_amdgcn_cvt_sr_fp8_f32(a, r, f, 3); g = __builtin_amdgcn_cvt_sr_bf8_f32(a, r, g, 3); break;
    }
    fp8[i] = f;
    bf8[i] = g;
}

// 64-bit address arithmetic: clang emits v_lshl_add_u64 and v_mov_b64 for it on gfx94x.
kernel void gather64(global const ulong *src, global const uint *idx, global ulong *dst) {
    uint i = get_global_id(0);
    dst[i] = src[idx[i]] + (ulong)i * 0x100000001UL;
}

// Three-input bitwise functions: clang emits v_bitop3_b32 for them on gfx950.
kernel void bitops3(global const uint *a, global const uint *b, global const uint *c,
                    global uint *out) {
    uint i = get_global_id(0);
    uint x = a[i], y = b[i], z = c[i];
    out[6 * i + 0] = (x & y) | (~x & z);
    out[6 * i + 1] = x ^ y ^ z;
    out[6 * i + 2] = (x & y) | (y & z) | (x & z);
    out[6 * i + 3] = (x & ~y) | z;
    out[6 * i + 4] = ~(x | y) & z;
    out[6 * i + 5] = (x | y) ^ z;
}

// The same on 16-bit values.
kernel void bitops3_16(global const ushort *a, global const ushort *b, global const ushort *c,
                       global ushort *out) {
    uint i = get_global_id(0);
    ushort x = a[i], y = b[i], z = c[i];
    out[3 * i + 0] = (x & y) | (~x & z);
    out[3 * i + 1] = (ushort)((x & ~y) | z);
    out[3 * i + 2] = (ushort)((x | y) ^ z);
}

// Pairs of f32 to f16 and to bf16 (gfx950: v_cvt_pk_f16_f32, v_cvt_pk_bf16_f32).
kernel void cvt_pk_16(global const float2 *a, global half2 *h, global ushort2 *b) {
    uint i = get_global_id(0);
    h[i] = convert_half2(a[i]);
    __bf16 x = (__bf16)a[i].x, y = (__bf16)a[i].y;
    b[i] = (ushort2)(__builtin_bit_cast(ushort, x), __builtin_bit_cast(ushort, y));
}
