// Float, double and half math, including device-library functions.
__kernel void math_f32(__global const float *x, __global float *out) {
  size_t i = get_global_id(0);
  float v = x[i];
  out[i * 8 + 0] = sqrt(v);
  out[i * 8 + 1] = exp(v);
  out[i * 8 + 2] = log(v + 1.0f);
  out[i * 8 + 3] = sin(v);
  out[i * 8 + 4] = cos(v);
  out[i * 8 + 5] = pow(v, 1.5f);
  out[i * 8 + 6] = native_recip(v + 1.0f);
  out[i * 8 + 7] = fma(v, v, -1.0f);
}

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void math_f64(__global const double *x, __global double *out) {
  size_t i = get_global_id(0);
  double v = x[i];
  out[i * 4 + 0] = sqrt(v);
  out[i * 4 + 1] = exp(v);
  out[i * 4 + 2] = v / (v + 3.0);
  out[i * 4 + 3] = (double)(long)(v * 1000.0);
}

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void math_f16(__global const half *x, __global half *out, __global float *wide) {
  size_t i = get_global_id(0);
  half v = x[i];
  out[i] = v * v + (half)1.0;
  wide[i] = convert_float(v);
}

__kernel void conversions(__global const float *x, __global int *i32, __global uint *u32,
                          __global long *i64, __global float *back) {
  size_t i = get_global_id(0);
  float v = x[i];
  i32[i] = convert_int_sat(v);
  u32[i] = convert_uint_rte(v);
  i64[i] = convert_long(v);
  back[i] = convert_float(i32[i]) + convert_float(u32[i]);
}
