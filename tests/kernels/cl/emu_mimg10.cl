// targets: gfx1030
// A GFX10 NSA image load (inline assembly: clang-15 puts addresses in consecutive VGPRs when it
// can), with x and y in non-adjacent registers listed in descending order. Run by
// crates/emu/tests/mimg.rs (`gfx10_nsa_addresses`).

typedef uint tsharp __attribute__((ext_vector_type(8)));

__kernel void load_nsa(__constant tsharp *t, __global const uint2 *c, __global float4 *o) {
  size_t i = get_global_id(0);
  uint2 xy = c[i];
  float4 r;
  __asm__ volatile("v_mov_b32 v45, %1\n v_mov_b32 v40, %2\n"
                   "image_load %0, [v45, v40], %3 dmask:0xf dim:SQ_RSRC_IMG_2D unorm\n"
                   "s_waitcnt vmcnt(0)"
                   : "=&v"(r) : "v"(xy.x), "v"(xy.y), "s"(*t) : "v40", "v45");
  o[i] = r;
}
