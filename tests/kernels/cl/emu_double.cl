// Double precision for the emulator test suite.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void double_ops(__global const double *a, __global const double *b, __global double *out) {
  size_t i = get_global_id(0);
  double x = a[i], y = b[i];
  out[i * 10 + 0] = x + y;
  out[i * 10 + 1] = x * y;
  out[i * 10 + 2] = x / y;
  out[i * 10 + 3] = sqrt(fabs(x));
  out[i * 10 + 4] = fma(x, y, 0.5);
  out[i * 10 + 5] = floor(x) + ceil(y);
  out[i * 10 + 6] = fmin(x, y) - fmax(x, y);
  out[i * 10 + 7] = (double)(int)x + (double)(ulong)fabs(y);
  out[i * 10 + 8] = (double)(float)x;
  out[i * 10 + 9] = rint(x * 3.0);
}

__kernel void double_lib(__global const double *a, __global double *out) {
  size_t i = get_global_id(0);
  double x = a[i];
  out[i * 6 + 0] = sin(x);
  out[i * 6 + 1] = cos(x);
  out[i * 6 + 2] = log(fabs(x) + 1.0);
  out[i * 6 + 3] = pow(fabs(x), 0.3);
  out[i * 6 + 4] = exp(x / 4.0);
  out[i * 6 + 5] = atan(x);
}

// Large arguments take the Payne-Hanek path (v_trig_preop_f64).
__kernel void double_big_trig(__global const double *a, __global double *out) {
  size_t i = get_global_id(0);
  out[i * 2 + 0] = sin(a[i]);
  out[i * 2 + 1] = cos(a[i]);
}
