// targets: gfx1200 gfx1201
// RDNA4 (GFX12) transpose loads through clang's __builtin_amdgcn_global_load_tr_b128_v8i16 and
// __builtin_amdgcn_global_load_tr_b64_v2i32 (wave32): lane l loads at src + offs[l] (in
// elements) and stores the register it receives to out[l]. The test
// (crates/emu/tests/wmma.rs) checks each lane's elements against the 8x8 transpose map.
typedef short v8s __attribute__((ext_vector_type(8)));

kernel void load_tr_b128(global const short *src, global const uint *offs, global int4 *out) {
  uint l = get_local_id(0);
  v8s v = __builtin_amdgcn_global_load_tr_b128_v8i16((global v8s *)(src + offs[l]));
  out[l] = __builtin_astype(v, int4);
}

kernel void load_tr_b64(global const char *src, global const uint *offs, global int2 *out) {
  uint l = get_local_id(0);
  out[l] = __builtin_amdgcn_global_load_tr_b64_v2i32((global int2 *)(src + offs[l]));
}
