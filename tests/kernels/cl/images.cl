// targets: gfx803 gfx900 gfx906 gfx908 gfx90a gfx1030 gfx1201
// Image kernels run by hsaemu (through the HSA image API) and by PoCL, whose results the
// integration test `images` compares. One kernel per geometry and value type: `load_*` reads
// with integer coordinates and no sampler, `store_*` writes, `sample_*` reads through the
// sampler argument at float coordinates.

#define KERNELS(G, IMG, FC, IC, IX)                                                          \
  __kernel void load_##G##_f(read_only IMG img, __global const IC *c, __global float4 *o) {  \
    size_t i = get_global_id(0);                                                             \
    o[i] = read_imagef(img, IX(c[i]));                                                       \
  }                                                                                          \
  __kernel void load_##G##_i(read_only IMG img, __global const IC *c, __global int4 *o) {    \
    size_t i = get_global_id(0);                                                             \
    o[i] = read_imagei(img, IX(c[i]));                                                       \
  }                                                                                          \
  __kernel void load_##G##_ui(read_only IMG img, __global const IC *c, __global uint4 *o) {  \
    size_t i = get_global_id(0);                                                             \
    o[i] = read_imageui(img, IX(c[i]));                                                      \
  }                                                                                          \
  __kernel void store_##G##_f(write_only IMG img, __global const IC *c,                      \
                              __global const float4 *v) {                                    \
    size_t i = get_global_id(0);                                                             \
    write_imagef(img, IX(c[i]), v[i]);                                                       \
  }                                                                                          \
  __kernel void store_##G##_i(write_only IMG img, __global const IC *c,                      \
                              __global const int4 *v) {                                      \
    size_t i = get_global_id(0);                                                             \
    write_imagei(img, IX(c[i]), v[i]);                                                       \
  }                                                                                          \
  __kernel void store_##G##_ui(write_only IMG img, __global const IC *c,                     \
                               __global const uint4 *v) {                                    \
    size_t i = get_global_id(0);                                                             \
    write_imageui(img, IX(c[i]), v[i]);                                                      \
  }                                                                                          \
  __kernel void sample_##G##_f(read_only IMG img, sampler_t s, __global const FC *c,         \
                               __global float4 *o) {                                         \
    size_t i = get_global_id(0);                                                             \
    o[i] = read_imagef(img, s, c[i]);                                                        \
  }                                                                                          \
  __kernel void sample_##G##_i(read_only IMG img, sampler_t s, __global const FC *c,         \
                               __global int4 *o) {                                           \
    size_t i = get_global_id(0);                                                             \
    o[i] = read_imagei(img, s, c[i]);                                                        \
  }                                                                                          \
  __kernel void sample_##G##_ui(read_only IMG img, sampler_t s, __global const FC *c,        \
                                __global uint4 *o) {                                         \
    size_t i = get_global_id(0);                                                             \
    o[i] = read_imageui(img, s, c[i]);                                                       \
  }

#define X1(c) (c).x
#define X2(c) (c).xy
#define X4(c) (c)

KERNELS(1d, image1d_t, float, int4, X1)
KERNELS(2d, image2d_t, float2, int4, X2)
KERNELS(3d, image3d_t, float4, int4, X4)
KERNELS(1da, image1d_array_t, float2, int4, X2)
KERNELS(2da, image2d_array_t, float4, int4, X4)

// Image queries: width, height, depth, array size, channel data type and order.
__kernel void info_2da(read_only image2d_array_t img, __global int *o) {
  o[0] = get_image_width(img);
  o[1] = get_image_height(img);
  o[2] = (int)get_image_array_size(img);
  o[3] = get_image_channel_data_type(img);
  o[4] = get_image_channel_order(img);
}
__kernel void info_3d(read_only image3d_t img, __global int *o) {
  o[0] = get_image_width(img);
  o[1] = get_image_height(img);
  o[2] = get_image_depth(img);
  o[3] = get_image_channel_data_type(img);
  o[4] = get_image_channel_order(img);
}

// 1D buffer images (image1d_buffer_t): no sampler reads in OpenCL, only loads and stores.
#define BUFFER_KERNELS(T, S, RD, WR)                                                         \
  __kernel void load_1db_##S(read_only image1d_buffer_t img, __global const int4 *c,        \
                             __global T *o) {                                               \
    size_t i = get_global_id(0);                                                            \
    o[i] = RD(img, c[i].x);                                                                 \
  }                                                                                         \
  __kernel void store_1db_##S(write_only image1d_buffer_t img, __global const int4 *c,      \
                              __global const T *v) {                                        \
    size_t i = get_global_id(0);                                                            \
    WR(img, c[i].x, v[i]);                                                                  \
  }

BUFFER_KERNELS(float4, f, read_imagef, write_imagef)
BUFFER_KERNELS(int4, i, read_imagei, write_imagei)
BUFFER_KERNELS(uint4, ui, read_imageui, write_imageui)
