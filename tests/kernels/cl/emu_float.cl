// Float math for the emulator test suite: basic ops and device-library functions.
__kernel void float_ops(__global const float *a, __global const float *b, __global float *out) {
  size_t i = get_global_id(0);
  float x = a[i], y = b[i];
  out[i * 12 + 0] = fmin(x, y);
  out[i * 12 + 1] = fmax(x, y);
  out[i * 12 + 2] = floor(x);
  out[i * 12 + 3] = ceil(x);
  out[i * 12 + 4] = rint(x);
  out[i * 12 + 5] = trunc(x);
  out[i * 12 + 6] = copysign(fabs(x), y);
  out[i * 12 + 7] = x / y;
  out[i * 12 + 8] = fmod(x, y);
  out[i * 12 + 9] = ldexp(x, (int)y & 15);
  out[i * 12 + 10] = round(x);
  out[i * 12 + 11] = mad(x, y, 1.0f);
}

__kernel void float_lib(__global const float *a, __global float *out) {
  size_t i = get_global_id(0);
  float x = a[i];
  out[i * 12 + 0] = tan(x);
  out[i * 12 + 1] = atan(x);
  out[i * 12 + 2] = atan2(x, 0.75f);
  out[i * 12 + 3] = asin(x / 8.0f);
  out[i * 12 + 4] = acos(x / 8.0f);
  out[i * 12 + 5] = sinh(x / 4.0f);
  out[i * 12 + 6] = tanh(x);
  out[i * 12 + 7] = log2(fabs(x) + 0.5f);
  out[i * 12 + 8] = log10(fabs(x) + 0.5f);
  out[i * 12 + 9] = exp2(x);
  out[i * 12 + 10] = cbrt(x);
  out[i * 12 + 11] = hypot(x, 3.0f);
}

__kernel void float_special(__global const float *a, __global float *out, __global int *cls) {
  size_t i = get_global_id(0);
  float x = a[i];
  out[i * 4 + 0] = sqrt(x);
  out[i * 4 + 1] = 1.0f / x;
  out[i * 4 + 2] = x * 0.0f;
  out[i * 4 + 3] = fract(x, &out[i * 4 + 3]) + 0.0f * out[i * 4 + 3];
  cls[i] = isnan(x) | isinf(x) << 1 | isfinite(x) << 2 | signbit(x) << 3 | isnormal(x) << 4;
}
