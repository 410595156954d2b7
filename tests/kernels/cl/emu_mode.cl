// Kernels for the MODE register tests (crates/emu/tests/mode.rs): denormal flushing, rounding
// modes, DX10_CLAMP and IEEE mode. `ftz_ops` runs under the kernel descriptor's MODE (the test
// builds it with and without -cl-denorms-are-zero); the others write MODE first with
// __builtin_amdgcn_s_setreg.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// The references round every operation separately: no contraction into fma.
#pragma OPENCL FP_CONTRACT OFF

// hwreg(HW_REG_MODE, 0, 10): rounding, denormals, DX10_CLAMP, IEEE.
#define MODE_LOW10 (1 | (0 << 6) | ((10 - 1) << 11))
// hwreg(HW_REG_MODE, 23, 1): FP16_OVFL.
#define MODE_FP16_OVFL (1 | (23 << 6) | ((1 - 1) << 11))

// Writes MODE, then returns a value that is 0 at run time (`zero` is a kernel argument set to
// 0) but comes from reading MODE back: every input mixed with it is ordered after the write
// (the compiler may otherwise move floating-point operations across s_setreg). s_setreg takes
// an SGPR: clang-22 compiles a kernel's body as a function (`__clang_ocl_kern_imp_*`) whose
// arguments arrive in VGPRs, so the value is made uniform with readfirstlane (clang-15 folds
// it away).
static uint set_mode(uint mode, uint zero) {
    __builtin_amdgcn_s_setreg(MODE_LOW10, __builtin_amdgcn_readfirstlane(mode));
    return __builtin_amdgcn_s_getreg(MODE_LOW10) & zero;
}

static float pin(float x, uint z) { return as_float(as_uint(x) ^ z); }
static double pin64(double x, uint z) { return as_double(as_ulong(x) ^ (ulong)z); }
static half pin16(half x, uint z) { return as_half((ushort)(as_ushort(x) ^ (ushort)z)); }

// f32 arithmetic on denormal inputs and outputs, under the descriptor's MODE.
kernel void ftz_ops(global const float *a, global const float *b, global const float *c,
                    global float *out, global double *out64, global ushort *out16,
                    global int *outi) {
    size_t i = get_global_id(0);
    float x = a[i], y = b[i], z = c[i];
    global float *o = out + i * 12;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = fma(x, y, z);
    o[4] = x / y;
    o[5] = sqrt(fabs(x));
    o[6] = fmin(x, y);
    o[7] = fmax(x, y);
    o[8] = x * y + z;
    o[9] = __builtin_canonicalizef(x);
    o[10] = floor(x);
    o[11] = x * 0x1p-60f;
    out64[i] = (double)x;
    vstore_half(x, i, (global half *)out16);
    global int *oi = outi + i * 4;
    oi[0] = x < y;
    oi[1] = x == 0.0f;
    oi[2] = __builtin_amdgcn_classf(x, 0x90); // negative or positive denormal
    oi[3] = (int)floor(x);
}

// f32, f64 and f16 arithmetic and conversions after writing MODE (rounding modes, denormals).
kernel void mode_ops(global const float *a, global const float *b, global const float *c,
                     global const double *da, global const double *db, global const double *dc,
                     global const ushort *ha, global const ushort *hb, global const ushort *hc,
                     global const int *ia, global float *out, global double *out64,
                     global ushort *out16, uint mode, uint zero) {
    size_t i = get_global_id(0);
    uint zz = set_mode(mode, zero);
    float x = pin(a[i], zz), y = pin(b[i], zz), z = pin(c[i], zz);
    double dx = pin64(da[i], zz), dy = pin64(db[i], zz), dz = pin64(dc[i], zz);
    half hx = pin16(as_half(ha[i]), zz), hy = pin16(as_half(hb[i]), zz),
         hz = pin16(as_half(hc[i]), zz);
    int n = ia[i] ^ (int)zz;
    global float *o = out + i * 17;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = fma(x, y, z);
    o[4] = x * y + z;
    o[5] = sqrt(fabs(x));
    o[6] = (float)dx;
    o[7] = (float)n;
    o[8] = (float)(uint)n;
    o[9] = (float)hx;
    o[10] = native_recip(x);
    // Vector types: packed math (v_pk_*_f32 on gfx90a, v_pk_*_f16 on GFX9) where there is one.
    float2 u2 = (float2)(x, y), v2 = (float2)(y, z);
    vstore2(u2 + v2, 0, o + 11);
    vstore2(u2 * v2, 0, o + 13);
    vstore2(fma(u2, v2, u2), 0, o + 15);
    global double *o64 = out64 + i * 6;
    o64[0] = dx + dy;
    o64[1] = dx * dy;
    o64[2] = fma(dx, dy, dz);
    o64[3] = sqrt(fabs(dx));
    o64[4] = (double)x;
    o64[5] = dx - dy;
    global half *o16 = (global half *)out16 + i * 12;
    o16[0] = hx + hy;
    o16[1] = hx * hy;
    o16[2] = fma(hx, hy, hz);
    o16[3] = hx - hy;
    vstore_half(x, 4, (global half *)o16);
    o16[5] = (half)(float)hx;
    half2 h2u = (half2)(hx, hy), h2v = (half2)(hy, hz);
    vstore2(h2u + h2v, 0, o16 + 6);
    vstore2(h2u * h2v, 0, o16 + 8);
    vstore2(fma(h2u, h2v, h2u), 0, o16 + 10);
}

// The clamp output modifier (DX10_CLAMP) and min/max/canonicalize (IEEE mode) after writing MODE.
kernel void clamp_ieee_ops(global const float *a, global const float *b,
                           global const ushort *ha, global const ushort *hb,
                           global const double *da, global const double *db,
                           global uint *out, global ushort *out16, global double *out64,
                           uint mode, uint zero) {
    size_t i = get_global_id(0);
    uint zz = set_mode(mode, zero);
    float x = pin(a[i], zz), y = pin(b[i], zz);
    half hx = pin16(as_half(ha[i]), zz), hy = pin16(as_half(hb[i]), zz);
    double dx = pin64(da[i], zz), dy = pin64(db[i], zz);
    global uint *o = out + i * 5;
    o[0] = as_uint(clamp(x + y, 0.0f, 1.0f));
    o[1] = as_uint(__builtin_canonicalizef(x));
    o[2] = as_uint(fmin(x, y));
    o[3] = as_uint(fmax(x, y));
    o[4] = as_uint(clamp(x * y, 0.0f, 1.0f));
    global half *o16 = (global half *)out16 + i * 2;
    o16[0] = clamp(hx + hy, (half)0.0f, (half)1.0f);
    o16[1] = __builtin_canonicalizef16(hx);
    out64[i] = clamp(dx + dy, 0.0, 1.0);
    out64[get_global_size(0) + i] = __builtin_canonicalize(dx);
}

// FP16_OVFL: f16 overflow clamps to the largest finite value when set.
kernel void fp16_ovfl_ops(global const ushort *ha, global const ushort *hb, global const float *a,
                          global ushort *out16, uint ovfl, uint zero) {
    size_t i = get_global_id(0);
    __builtin_amdgcn_s_setreg(MODE_FP16_OVFL, __builtin_amdgcn_readfirstlane(ovfl));
    uint zz = __builtin_amdgcn_s_getreg(MODE_FP16_OVFL) & zero;
    half hx = pin16(as_half(ha[i]), zz), hy = pin16(as_half(hb[i]), zz);
    float x = pin(a[i], zz);
    global half *o16 = (global half *)out16 + i * 3;
    o16[0] = hx + hy;
    o16[1] = hx * hy;
    vstore_half(x, 2, (global half *)o16);
}

// f64 division (v_div_scale/v_div_fmas/v_div_fixup_f64) over the whole range.
kernel void div64(global const double *a, global const double *b, global double *out) {
    size_t i = get_global_id(0);
    out[i] = a[i] / b[i];
}

// c = a + b under `mode`, written by every wave before a barrier, so all the waves of a
// work-group resume at the add's PC one after another (crates/emu/tests/jit/rounds.rs: a
// compiled region there must not run under a MODE other than the default).
kernel void add_after_barrier(global const float *a, global const float *b, global float *c,
                              uint mode, uint zero) {
    uint z = set_mode(mode, zero);
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t i = get_global_id(0);
    c[i] = pin(a[i], z) + b[i];
}
