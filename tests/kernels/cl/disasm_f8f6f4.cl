// targets: gfx950
// gfx950's f8f6f4 MFMAs for the disassembler corpus (not executed here; emu_mfma_f8f6f4.cl
// runs them). clang-22 emits the scaled builtin as `v_mfma_ld_scale_b32` + MFMA (one
// 16-byte `v_mfma_scale_f32_*` in llvm-objdump-22) and, with zero scales, as the plain MFMA;
// the formats (fp8 0, bf8 1, fp6 2, bf6 3, fp4 4) set the A/B register counts.
typedef int int8v __attribute__((ext_vector_type(8)));
typedef float float4v __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));

kernel void scaled_16x16(global const int8v *a, global float4v *c, int sa, int sb) {
    size_t i = get_global_id(0);
    c[i] = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a[i], a[i + 1], c[i], 0, 2, 1, sa, 2, sb);
}

kernel void plain_16x16(global const int8v *a, global float4v *c) {
    size_t i = get_global_id(0);
    float4v x = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a[i], a[i + 1], c[i], 4, 3, 0, 0, 0, 0);
    c[i] = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a[i], a[i + 1], x, 1, 4, 0, 0, 0, 0);
}

kernel void scaled_32x32(global const int8v *a, global float16v *c, int sa, int sb) {
    size_t i = get_global_id(0);
    c[i] = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(a[i], a[i + 1], c[i], 3, 0, 0, sa, 1, sb);
    c[i + 1] = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(a[i], a[i + 2], c[i + 1], 2, 2, 0, 0, 0, 0);
}
