// gfx908 matrix-core kernel: one MFMA over AccVGPRs. The emulator decodes it (AccVGPR moves and
// v_mfma_*) and reports the MFMA as an unimplemented instruction by name.
typedef float float16 __attribute__((ext_vector_type(16)));

__kernel void mfma_f32_32x32x2(__global float *out, float a, float b) {
    float16 acc = 0.0f;
    acc = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, acc, 0, 0, 0);
    out[get_global_id(0)] = acc.s0 + acc.s5;
}
