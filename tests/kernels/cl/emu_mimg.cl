// targets: gfx900 gfx906 gfx908
// MIMG instructions OpenCL C never emits (clang-15 compiles image reads to image_sample and
// image_load only), issued with inline assembly over a T# and an S# the test writes into
// buffers: gather4, get_resinfo, image atomics, sample_lz/_l/_c_lz/_lz_o, d16 loads.
// Run by crates/emu/tests/mimg.rs, which computes the expected values from the definitions.

typedef uint tsharp __attribute__((ext_vector_type(8)));

// gather4 of component `which` (0: red, 3: alpha) at normalized coordinates c[i].
__kernel void gather4(__constant tsharp *t, __constant uint4 *s, __global const float2 *c,
                      __global float4 *red, __global float4 *alpha) {
  size_t i = get_global_id(0);
  float4 r, a;
  float2 xy = c[i];
  __asm__ volatile("image_gather4 %0, %1, %2, %3 dmask:0x1\n s_waitcnt vmcnt(0)"
                   : "=v"(r) : "v"(xy), "s"(*t), "s"(*s));
  __asm__ volatile("image_gather4 %0, %1, %2, %3 dmask:0x8\n s_waitcnt vmcnt(0)"
                   : "=v"(a) : "v"(xy), "s"(*t), "s"(*s));
  red[i] = r;
  alpha[i] = a;
}

// get_resinfo at mip level `mip[i]`.
__kernel void resinfo(__constant tsharp *t, __global const uint *mip, __global uint4 *o) {
  size_t i = get_global_id(0);
  uint4 r;
  __asm__ volatile("image_get_resinfo %0, %1, %2 dmask:0xf unorm\n s_waitcnt vmcnt(0)"
                   : "=v"(r) : "v"(mip[i]), "s"(*t));
  o[i] = r;
}

// Atomics on an R32 UINT 2D image: every lane adds 1 to texel c[i], then takes the max with
// its id, then swaps in its id where the texel holds v[i]; each returns the old value.
__kernel void atomics(__constant tsharp *t, __global const uint2 *c, __global const uint *v,
                      __global uint *old_add, __global uint *old_cmpswap) {
  size_t i = get_global_id(0);
  uint2 xy = c[i];
  uint r = 1;
  __asm__ volatile("image_atomic_add %0, %1, %2 dmask:0x1 unorm glc\n s_waitcnt vmcnt(0)"
                   : "+v"(r) : "v"(xy), "s"(*t));
  old_add[i] = r;
  uint id = (uint)i;
  __asm__ volatile("image_atomic_umax %0, %1, %2 dmask:0x1 unorm\n s_waitcnt vmcnt(0)"
                   : : "v"(id), "v"(xy), "s"(*t));
  uint2 swap = (uint2)(1000u + id, v[i]);
  __asm__ volatile("image_atomic_cmpswap %0, %1, %2 dmask:0x3 unorm glc\n s_waitcnt vmcnt(0)"
                   : "+v"(swap) : "v"(xy), "s"(*t));
  old_cmpswap[i] = swap.x;
}

// sample_lz, sample_l (LOD 2: minification filter), sample_c_lz (depth compare against
// ref[i]) and sample_lz_o (texel offsets (+1, -1)) at normalized coordinates c[i].
__kernel void samples(__constant tsharp *t, __constant uint4 *s, __global const float2 *c,
                      __global const float *ref, __global float4 *lz, __global float4 *l,
                      __global float *cmp, __global float4 *off) {
  size_t i = get_global_id(0);
  float2 xy = c[i];
  float4 r;
  __asm__ volatile("image_sample_lz %0, %1, %2, %3 dmask:0xf\n s_waitcnt vmcnt(0)"
                   : "=v"(r) : "v"(xy), "s"(*t), "s"(*s));
  lz[i] = r;
  float3 xyl = (float3)(xy, 2.0f);
  __asm__ volatile("image_sample_l %0, %1, %2, %3 dmask:0xf\n s_waitcnt vmcnt(0)"
                   : "=v"(r) : "v"(xyl), "s"(*t), "s"(*s));
  l[i] = r;
  float3 rxy = (float3)(ref[i], xy);
  float q;
  __asm__ volatile("image_sample_c_lz %0, %1, %2, %3 dmask:0x1\n s_waitcnt vmcnt(0)"
                   : "=v"(q) : "v"(rxy), "s"(*t), "s"(*s));
  cmp[i] = q;
  // Offsets: x in bits 5:0, y in bits 13:8 (6-bit two's complement).
  float3 oxy = (float3)(as_float(0x3f01u), xy);
  __asm__ volatile("image_sample_lz_o %0, %1, %2, %3 dmask:0xf\n s_waitcnt vmcnt(0)"
                   : "=v"(r) : "v"(oxy), "s"(*t), "s"(*s));
  off[i] = r;
}

// image_load with d16: two components packed as halves in one VGPR.
__kernel void load_d16(__constant tsharp *t, __global const uint2 *c, __global uint *o) {
  size_t i = get_global_id(0);
  uint r;
  __asm__ volatile("image_load %0, %1, %2 dmask:0x3 unorm d16\n s_waitcnt vmcnt(0)"
                   : "=v"(r) : "v"(c[i]), "s"(*t));
  o[i] = r;
}
