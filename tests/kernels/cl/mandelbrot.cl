// Mandelbrot set: iterations until |z| > 2 (at most max_iter) of z = z^2 + c for the pixel at
// c = (x0 + x*dx, y0 + y*dy), over a width x height grid. `hsaemu bench`'s float-heavy loop.
// Every operation is rounded separately (no contraction into fma), so a CPU doing the same f32
// arithmetic in the same order gets the same iteration count for every pixel.
#pragma OPENCL FP_CONTRACT OFF

__kernel void mandelbrot(__global uint *out, uint width, uint height, float x0, float y0,
                         float dx, float dy, uint max_iter) {
  uint x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height)
    return;
  float cr = x0 + (float)x * dx;
  float ci = y0 + (float)y * dy;
  float zr = 0.0f, zi = 0.0f;
  uint i = 0;
  while (i < max_iter) {
    float zr2 = zr * zr, zi2 = zi * zi;
    if (zr2 + zi2 > 4.0f)
      break;
    zi = 2.0f * zr * zi + ci;
    zr = zr2 - zi2 + cr;
    i++;
  }
  out[y * width + x] = i;
}
