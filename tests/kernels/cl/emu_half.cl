// Half precision (scalar and packed half2) for the emulator test suite.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void half2_ops(__global const half2 *a, __global const half2 *b, __global half2 *out) {
  size_t i = get_global_id(0);
  half2 x = a[i], y = b[i];
  out[i * 4 + 0] = x + y;
  out[i * 4 + 1] = x * y;
  out[i * 4 + 2] = fma(x, y, x);
  out[i * 4 + 3] = fmax(x, y);
}

__kernel void half_convert(__global const float *a, __global half *h, __global float *back,
                           __global short *s) {
  size_t i = get_global_id(0);
  half v = convert_half(a[i]);
  h[i] = v;
  back[i] = convert_float(v * (half)2.0);
  s[i] = convert_short_sat(v);
}
