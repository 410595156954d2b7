// Element-wise c = a + b over n floats.
__kernel void vector_add(__global const float *a, __global const float *b,
                         __global float *c, uint n) {
  size_t i = get_global_id(0);
  if (i < n)
    c[i] = a[i] + b[i];
}

// y = alpha * x + y.
__kernel void saxpy(float alpha, __global const float *x, __global float *y, uint n) {
  size_t i = get_global_id(0);
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}
