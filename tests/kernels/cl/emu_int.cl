// Integer arithmetic for the emulator test suite: 32-bit and 64-bit ops, division, bit ops.
__kernel void int_ops(__global const int *a, __global const int *b, __global int *out) {
  size_t i = get_global_id(0);
  int x = a[i], y = b[i];
  int yd = y == 0 ? 1 : y;
  out[i * 16 + 0] = x + y;
  out[i * 16 + 1] = x * y;
  out[i * 16 + 2] = mul_hi(x, y);
  out[i * 16 + 3] = x / yd;
  out[i * 16 + 4] = x % yd;
  out[i * 16 + 5] = x >> (y & 31);
  out[i * 16 + 6] = (int)((uint)x >> (y & 31));
  out[i * 16 + 7] = x << (y & 31);
  out[i * 16 + 8] = popcount(x);
  out[i * 16 + 9] = clz(x);
  out[i * 16 + 10] = abs(x);
  out[i * 16 + 11] = min(x, y) ^ max(x, y);
  out[i * 16 + 12] = mad24(x & 0x7fffff, y & 0x7fffff, 7);
  out[i * 16 + 13] = rotate(x, y);
  out[i * 16 + 14] = (int)((uint)x / (uint)(yd));
  out[i * 16 + 15] = bitselect(x, y, 0x0f0f0f0f);
}

__kernel void long_ops(__global const long *a, __global const long *b, __global long *out) {
  size_t i = get_global_id(0);
  long x = a[i], y = b[i];
  long yd = y == 0 ? 1 : y;
  out[i * 8 + 0] = x * y;
  out[i * 8 + 1] = x / yd;
  out[i * 8 + 2] = x % yd;
  out[i * 8 + 3] = x >> (y & 63);
  out[i * 8 + 4] = (long)((ulong)x / (ulong)yd);
  out[i * 8 + 5] = x < y ? x : y;
  out[i * 8 + 6] = (long)mul_hi((ulong)x, (ulong)y);
  out[i * 8 + 7] = popcount(x) + clz(y);
}

__kernel void small_ints(__global const uchar4 *a, __global const short2 *b, __global int *out) {
  size_t i = get_global_id(0);
  uchar4 p = a[i];
  short2 q = b[i];
  uchar4 s = add_sat(p, (uchar4)(200, 100, 50, 25));
  out[i * 4 + 0] = s.x + s.y * 256 + s.z * 65536;
  out[i * 4 + 1] = (int)(q.x * q.y);
  out[i * 4 + 2] = (int)(short)(q.x + q.y);
  out[i * 4 + 3] = (int)abs_diff(p.w, p.x) + (int)hadd(p.y, p.z);
}
