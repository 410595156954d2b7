// targets: gfx950
// gfx950's scaled conversions and LDS transpose loads as clang-22 emits them for the
// builtins (tests/cdna3.rs `cdna4_scaled_conversions_from_builtins`,
// `cdna4_transpose_loads_from_builtins`).

typedef short short2_t __attribute__((ext_vector_type(2)));

// Item i: two f32 in[2i], in[2i+1] and a scale sc[i]. fp4 into byte 2 of 0x5a5a5a5a, fp8
// into word 1 of it, bf8 (stochastic, seed 0) into byte 3; then back to f32 from the same
// places.
kernel void scaled(global const float *in, global const float *sc, global uint *out,
                   global float *back) {
    size_t i = get_global_id(0);
    float a = in[2 * i], b = in[2 * i + 1], s = sc[i];
    uint f4 = __builtin_amdgcn_cvt_scalef32_pk_fp4_f32(0x5a5a5a5a, a, b, s, 2);
    short2_t f8 = __builtin_amdgcn_cvt_scalef32_pk_fp8_f32((short2_t)(0x5a5a, 0x5a5a), a, b, s,
                                                           true);
    uint b8 = __builtin_amdgcn_cvt_scalef32_sr_bf8_f32(0x5a5a5a5a, a, 0u, s, 3);
    out[3 * i] = f4;
    out[3 * i + 1] = as_uint(f8);
    out[3 * i + 2] = b8;
    float2 p = __builtin_amdgcn_cvt_scalef32_pk_f32_fp4(f4, s, 2);
    back[3 * i] = p.x;
    back[3 * i + 1] = p.y;
    back[3 * i + 2] = __builtin_amdgcn_cvt_scalef32_f32_fp8(as_uint(f8), s, 3);
}

// One work-group of 64: LDS = in[0..512]; lane i reads b8 and b16 at 8i, b4 at 512 + 8i,
// b6 at 1024 + 16i (bytes).
kernel void transpose(global const uint *in, global uint *out) {
    local uint lds[512];
    size_t i = get_local_id(0);
    for (int k = 0; k < 8; k++)
        lds[8 * i + k] = in[8 * i + k];
    barrier(CLK_LOCAL_MEM_FENCE);
    local char *base = (local char *)lds;
    int2 t8 = __builtin_amdgcn_ds_read_tr8_b64_v2i32((local int2 *)(base + 8 * i));
    int2 t4 = __builtin_amdgcn_ds_read_tr4_b64_v2i32((local int2 *)(base + 512 + 8 * i));
    int3 t6 = __builtin_amdgcn_ds_read_tr6_b96_v3i32((local int3 *)(base + 1024 + 16 * i));
    int2 t16 = as_int2(__builtin_amdgcn_ds_read_tr16_b64_v4i16((local short4 *)(base + 8 * i)));
    global uint *o = out + 9 * i;
    o[0] = t8.x;
    o[1] = t8.y;
    o[2] = t4.x;
    o[3] = t4.y;
    o[4] = t6.x;
    o[5] = t6.y;
    o[6] = t6.z;
    o[7] = t16.x;
    o[8] = t16.y;
}
