// targets: gfx1201
// GFX12 (RDNA4) VIMAGE/VSAMPLE instructions through inline assembly, with address operands in
// separate, non-adjacent VGPRs (and a last operand holding the remaining addresses as a
// tuple), the renamed atomics with th:TH_ATOMIC_RETURN, a sample with explicit derivatives,
// get_resinfo, float min/max atomics and an a16/d16 load. Run by crates/emu/tests/mimg.rs
// (`gfx12_*`), which writes the T#/S# words.

typedef uint tsharp __attribute__((ext_vector_type(8)));
typedef uint ssharp __attribute__((ext_vector_type(4)));

// clang-22 keeps a descriptor loaded through a pointer in VGPRs; the "s" operands need it
// uniform.
#define RFL(v, k) __builtin_amdgcn_readfirstlane(v.s##k)
static tsharp T(__constant tsharp *p) {
  tsharp v = *p;
  return (tsharp)(RFL(v, 0), RFL(v, 1), RFL(v, 2), RFL(v, 3), RFL(v, 4), RFL(v, 5), RFL(v, 6),
                  RFL(v, 7));
}
static ssharp S(__constant ssharp *p) {
  ssharp v = *p;
  return (ssharp)(RFL(v, 0), RFL(v, 1), RFL(v, 2), RFL(v, 3));
}

// A 2D-array load at (x, y, layer) from three separate VGPRs in descending order.
__kernel void load_sep(__constant tsharp *t, __global const uint4 *c, __global float4 *o) {
  size_t i = get_global_id(0);
  uint4 a = c[i];
  float4 r;
  __asm__ volatile("v_mov_b32 v45, %1\n v_mov_b32 v40, %2\n v_mov_b32 v37, %3\n"
                   "image_load %0, [v45, v40, v37], %4 dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY\n"
                   "s_wait_loadcnt 0x0"
                   : "=&v"(r) : "v"(a.x), "v"(a.y), "v"(a.z), "s"(T(t)) : "v37", "v40", "v45");
  o[i] = r;
}

// image_atomic_add_uint and image_atomic_cmpswap returning the old value, and
// image_atomic_max_int without return, on a 2D R32 image at (c[i].x, c[i].y).
__kernel void atomics(__constant tsharp *t, __global const uint2 *c, __global const uint *cmp,
                      __global uint *old_add, __global uint *old_cas) {
  size_t i = get_global_id(0);
  uint2 xy = c[i];
  uint lane = (uint)i, old = 1;
  __asm__ volatile("v_mov_b32 v41, %1\n v_mov_b32 v38, %2\n"
                   "image_atomic_add_uint %0, [v41, v38], %3 dmask:0x1 dim:SQ_RSRC_IMG_2D "
                   "th:TH_ATOMIC_RETURN\n"
                   "s_wait_loadcnt 0x0"
                   : "+&v"(old) : "v"(xy.x), "v"(xy.y), "s"(T(t)) : "v38", "v41");
  old_add[i] = old;
  __asm__ volatile("v_mov_b32 v41, %1\n v_mov_b32 v38, %2\n"
                   "image_atomic_max_int %3, [v41, v38], %4 dmask:0x1 dim:SQ_RSRC_IMG_2D\n"
                   "s_wait_storecnt 0x0"
                   : "=&v"(old) : "v"(xy.x), "v"(xy.y), "v"(lane), "s"(T(t)) : "v38", "v41");
  uint2 d = (uint2)(1000 + lane, cmp[i]);
  __asm__ volatile("v_mov_b32 v41, %1\n v_mov_b32 v38, %2\n"
                   "image_atomic_cmpswap %0, [v41, v38], %3 dmask:0x3 dim:SQ_RSRC_IMG_2D "
                   "th:TH_ATOMIC_RETURN\n"
                   "s_wait_loadcnt 0x0"
                   : "+&v"(d) : "v"(xy.x), "v"(xy.y), "s"(T(t)) : "v38", "v41");
  old_cas[i] = d.x;
}

// image_atomic_add_flt returning the old value.
__kernel void atomic_add_flt(__constant tsharp *t, __global const float *v, __global float *old) {
  size_t i = get_global_id(0);
  float r = v[i];
  uint zero = 0;
  __asm__ volatile("image_atomic_add_flt %0, [%1, %1], %2 dmask:0x1 dim:SQ_RSRC_IMG_2D "
                   "th:TH_ATOMIC_RETURN\n"
                   "s_wait_loadcnt 0x0"
                   : "+&v"(r) : "v"(zero), "s"(T(t)));
  old[i] = r;
}

// image_sample_d on a 2D image: ddx.x, ddx.y, ddy.x in three VGPRs and ddy.y, x, y in the
// fourth operand's tuple v[30:32].
__kernel void sample_d(__constant tsharp *t, __constant ssharp *s, __global const float2 *c,
                       __global float4 *o) {
  size_t i = get_global_id(0);
  float2 uv = c[i];
  float4 r;
  __asm__ volatile("v_mov_b32 v20, 0\n v_mov_b32 v27, 0\n v_mov_b32 v22, 0\n v_mov_b32 v30, 0\n"
                   "v_mov_b32 v31, %1\n v_mov_b32 v32, %2\n"
                   "image_sample_d %0, [v20, v27, v22, v[30:32]], %3, %4 dmask:0xf "
                   "dim:SQ_RSRC_IMG_2D\n"
                   "s_wait_samplecnt 0x0"
                   : "=&v"(r) : "v"(uv.x), "v"(uv.y), "s"(T(t)), "s"(S(s))
                   : "v20", "v22", "v27", "v30", "v31", "v32");
  o[i] = r;
}

// image_get_resinfo at mip level m[i].
__kernel void resinfo(__constant tsharp *t, __global const uint *m, __global uint4 *o) {
  size_t i = get_global_id(0);
  uint4 r;
  __asm__ volatile("image_get_resinfo %0, %1, %2 dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY\n"
                   "s_wait_loadcnt 0x0"
                   : "=&v"(r) : "v"(m[i]), "s"(T(t)));
  o[i] = r;
}

// image_atomic_min_flt and image_atomic_max_flt returning the old value: lane i on texel
// (i, 0) of a 2D R32 FLOAT image each.
__kernel void minmax_flt(__constant tsharp *tmin, __constant tsharp *tmax,
                         __global const float *v, __global float *omin, __global float *omax) {
  size_t i = get_global_id(0);
  uint x = (uint)i, y = 0;
  float r = v[i];
  __asm__ volatile("image_atomic_min_flt %0, [%1, %2], %3 dmask:0x1 dim:SQ_RSRC_IMG_2D "
                   "th:TH_ATOMIC_RETURN\n"
                   "s_wait_loadcnt 0x0"
                   : "+&v"(r) : "v"(x), "v"(y), "s"(T(tmin)));
  omin[i] = r;
  r = v[i];
  __asm__ volatile("image_atomic_max_flt %0, [%1, %2], %3 dmask:0x1 dim:SQ_RSRC_IMG_2D "
                   "th:TH_ATOMIC_RETURN\n"
                   "s_wait_loadcnt 0x0"
                   : "+&v"(r) : "v"(x), "v"(y), "s"(T(tmax)));
  omax[i] = r;
}

// image_load with a16 (x and y packed in one VGPR) and d16 (four halves in two VGPRs).
__kernel void load_a16_d16(__constant tsharp *t, __global const uint *c, __global uint2 *o) {
  size_t i = get_global_id(0);
  uint2 r;
  __asm__ volatile("image_load %0, %1, %2 dmask:0xf dim:SQ_RSRC_IMG_2D a16 d16\n"
                   "s_wait_loadcnt 0x0"
                   : "=&v"(r) : "v"(c[i]), "s"(T(t)));
  o[i] = r;
}
