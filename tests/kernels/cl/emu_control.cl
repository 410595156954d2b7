// Control flow for the emulator test suite: switch, nested loops, calls, early exits.
__attribute__((noinline)) int poly(int x, int k) {
  int acc = 0;
  for (int j = 0; j < k; j++)
    acc = acc * 3 + (x ^ j);
  return acc;
}

__attribute__((noinline)) void fill_private(int *p, int n, int seed) {
  for (int j = 0; j < n; j++)
    p[j] = seed * 31 + j * j;
}

__kernel void switch_loops(__global const int *in, __global int *out) {
  size_t i = get_global_id(0);
  int v = in[i];
  int r = 0;
  switch (v & 7) {
  case 0: r = v * 2; break;
  case 1: r = v - 100; break;
  case 3: r = poly(v, 5); break;
  case 5:
    for (int a = 0; a < (v & 15); a++) {
      if (a == 7) continue;
      for (int b = 0; b < 4; b++) {
        if (a * b > 20) break;
        r += a * b;
      }
    }
    break;
  default: r = -v;
  }
  if (v < 0) {
    out[i] = 12345;
    return;
  }
  out[i] = r;
}

__kernel void calls_private(__global const int *in, __global int *out) {
  size_t i = get_global_id(0);
  int buf[24];
  int n = 8 + (in[i] & 15);
  fill_private(buf, n, in[i]);
  int s = 0;
  for (int j = 0; j < n; j++)
    s += buf[j] * (j + 1);
  out[i] = s + poly(in[i], 3);
}

__kernel void while_divergent(__global const uint *in, __global uint *out) {
  size_t i = get_global_id(0);
  uint x = in[i];
  uint n = 0;
  while (x > 1) {
    if (x % 3 == 0) x /= 3;
    else if (x & 1) x -= 1;
    else x >>= 1;
    n++;
  }
  out[i] = n;
}
