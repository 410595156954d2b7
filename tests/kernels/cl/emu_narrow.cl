// targets: gfx906
// Byte and 16-bit forms of the GFX9 decoding table (gfx906, gfx908) that rocPRIM's kernels
// execute and nothing else in the tests did: sign-extending byte loads from global memory and
// LDS, 64-bit LDS store pairs, byte accesses through generic (flat) pointers, and SDWA 16-bit
// min/max and compares (docs/notes/ci-time.md, "Round 18"). tests: crates/emu/tests/narrow.rs.

// global_load_sbyte, ds_write_b8 and ds_read_i8: one work-group of 256.
__kernel void sign_extending_loads(__global const char *g, __global const char *h,
                                   __global int *out) {
  __local char lc[256];
  size_t i = get_global_id(0);
  uint l = get_local_id(0);
  out[2 * i] = g[i] * 3;
  lc[l] = h[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[2 * i + 1] = lc[255 - l];
}

// ds_write2_b64: two 64-bit LDS stores from one address.
__kernel void lds_pairs(__global const long *a, __global long *out) {
  __local long ll[512];
  size_t i = get_global_id(0);
  uint l = get_local_id(0);
  ll[2 * l] = a[i] << 3;
  ll[2 * l + 1] = a[i] * -7;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint m = 255 - l;
  out[2 * i] = ll[2 * m];
  out[2 * i + 1] = ll[2 * m + 1];
}

// flat_load_ubyte and flat_store_byte: lanes whose (i + which) is odd reach LDS through the
// generic pointer, the others global memory.
__kernel void flat_bytes(__global uchar *g, __global int *out, int which) {
  __local uchar lb[256];
  size_t i = get_global_id(0);
  uint l = get_local_id(0);
  lb[l] = (uchar)(l * 5 + 1);
  barrier(CLK_LOCAL_MEM_FENCE);
  __generic uchar *p =
      ((i + which) & 1) ? (__generic uchar *)&lb[255 - l] : (__generic uchar *)&g[i];
  uchar v = *p;
  out[2 * i] = v;
  *p = (uchar)(v * 3 + 7);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[2 * i + 1] = lb[l];
}

// SDWA operand selects: v_max_i16 of a word's halves (src1_sel:WORD_1), v_max_u16 and v_min_i16
// of a (sign-extended) byte and a 16-bit value (src0_sel:BYTE_0), v_cmp_eq_u32 of a byte and a
// dword, v_cmp_ne_u16 of a byte and a 16-bit sum.
__kernel void sdwa_16bit(__global const uint *a, __global const ushort *b, __global const uchar *p,
                         __global const uchar *q, __global int *out) {
  size_t i = get_global_id(0);
  uint x0 = a[4 * i], x1 = a[4 * i + 1], x2 = a[4 * i + 2], x3 = a[4 * i + 3];
  ushort y = b[i];
  short2 h = as_short2(x0);
  out[5 * i + 0] = max(h.x, h.y);
  out[5 * i + 1] = max((ushort)(uchar)x1, y);
  out[5 * i + 2] = min((short)(char)x2, (short)y);
  out[5 * i + 3] = (x3 & 0xff) == x1;
  uchar c = (uchar)(q[i] + 5);
  out[5 * i + 4] = p[i] != c;
}
