// rocrand_mrg32k3a: Debian's prebuilt rocRAND library generating with its MRG32k3a generator
// through the host API, compared element by element with a CPU MRG32k3a written here from the
// published algorithm (L'Ecuyer, "Good parameters and implementations for combined multiple
// recursive random number generators", Oper. Res. 47(1), 1999: two order-3 recurrences modulo
// m1 = 2^32 - 209 and m2 = 2^32 - 22853, output x1 - x2 mod m1) and rocRAND's documented
// conventions:
// - seeding (rocrand/rocrand_mrg32k3a.h): with x = low32(seed) ^ 0x55555555 and
//   y = high32(seed) ^ 0xAAAAAAAA, state 1 is (x*s, y*s, x*s) mod m1 and state 2
//   (y*s, x*s, y*s) mod m2 (for a seed below 2^32, where the header's arithmetic is exact);
//   an output is x1 - x2 in [1, m1] (m1 in place of 0);
// - the host generator runs 512 x 256 = 131072 engines; engine e starts at subsequence e,
//   e * 2^76 steps along the stream (L'Ecuyer's substream length, as in cuRAND; the header's
//   jump tables for subsequences are named A1P67/A2P67 but hold the matrices' 2^76-th powers);
//   element i of a rocrand_generate call is the next value of engine (start + i) mod 131072;
// - uint32 output is (unsigned)((v - 1) * ROCRAND_MRG32K3A_UINT_NORM), float
//   (float)(v * ROCRAND_MRG32K3A_NORM_DOUBLE), double v * ROCRAND_MRG32K3A_NORM_DOUBLE (one IEEE
//   double operation each, so exact).
// The 2^76-step jump is computed here independently, by squaring each recurrence's 3x3
// companion matrix modulo its m 76 times. Every comparison is exact.
#include "hip_check.h"
#include <rocrand/rocrand.h>
#include <cstdint>
#include <vector>

#define ROCRAND_CHECK(call)                                                     \
  do {                                                                          \
    rocrand_status rocrand_check_st_ = (call);                                  \
    CHECK(rocrand_check_st_ == ROCRAND_STATUS_SUCCESS, "%s returned status %d", \
          #call, (int)rocrand_check_st_);                                       \
  } while (0)

static const uint64_t M1 = 4294967087ull, M2 = 4294944443ull;

struct Mat3 {
  uint64_t a[3][3];
};

static Mat3 mat_mul(const Mat3 &x, const Mat3 &y, uint64_t m) {
  Mat3 r;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      uint64_t s = 0;
      for (int k = 0; k < 3; k++)
        s = (s + (uint64_t)((unsigned __int128)x.a[i][k] * y.a[k][j] % m)) % m;
      r.a[i][j] = s;
    }
  return r;
}

static void mat_vec(const Mat3 &x, uint64_t v[3], uint64_t m) {
  uint64_t r[3];
  for (int i = 0; i < 3; i++) {
    uint64_t s = 0;
    for (int k = 0; k < 3; k++)
      s = (s + (uint64_t)((unsigned __int128)x.a[i][k] * v[k] % m)) % m;
    r[i] = s;
  }
  for (int i = 0; i < 3; i++)
    v[i] = r[i];
}

// The state of one stream: x1[n-3..n-1] and x2[n-3..n-1].
struct Engine {
  uint64_t s1[3], s2[3];
  uint32_t next() {
    const uint64_t p1 = (1403580 * s1[1] + 810728 * (M1 - s1[0])) % M1;
    const uint64_t p2 = (527612 * s2[2] + 1370589 * (M2 - s2[0])) % M2;
    s1[0] = s1[1];
    s1[1] = s1[2];
    s1[2] = p1;
    s2[0] = s2[1];
    s2[1] = s2[2];
    s2[2] = p2;
    return (uint32_t)(p1 > p2 ? p1 - p2 : p1 + M1 - p2);
  }
};

static uint32_t to_uint(uint32_t v) { return (uint32_t)((double)(v - 1) * 1.000000048661607); }
static float to_float(uint32_t v) { return (float)((double)v * 2.3283065498378288e-10); }
static double to_double(uint32_t v) { return (double)v * 2.3283065498378288e-10; }

int main() {
  const uint64_t seed = 0x9e3779b9ull; // below 2^32 (see above)
  const unsigned engines = 512 * 256;

  const uint64_t x = (uint32_t)seed ^ 0x55555555u, y = (uint32_t)(seed >> 32) ^ 0xAAAAAAAAu;
  Engine e0 = {{x * seed % M1, y * seed % M1, x * seed % M1},
               {y * seed % M2, x * seed % M2, y * seed % M2}};
  // One step of each recurrence as a companion matrix acting on (x[n-3], x[n-2], x[n-1]).
  const Mat3 step1 = {{{0, 1, 0}, {0, 0, 1}, {M1 - 810728, 1403580, 0}}};
  const Mat3 step2 = {{{0, 1, 0}, {0, 0, 1}, {M2 - 1370589, 0, 527612}}};
  {
    // Sanity of the matrices: 1000 matrix steps equal 1000 recurrence steps.
    Engine a = e0, b = e0;
    for (int i = 0; i < 1000; i++) {
      a.next();
      mat_vec(step1, b.s1, M1);
      mat_vec(step2, b.s2, M2);
    }
    for (int i = 0; i < 3; i++)
      CHECK(a.s1[i] == b.s1[i] && a.s2[i] == b.s2[i], "CPU reference: matrix step mismatch");
  }
  Mat3 jump1 = step1, jump2 = step2;
  for (int i = 0; i < 76; i++) {
    jump1 = mat_mul(jump1, jump1, M1);
    jump2 = mat_mul(jump2, jump2, M2);
  }
  std::vector<Engine> engine(engines);
  engine[0] = e0;
  for (unsigned e = 1; e < engines; e++) {
    engine[e] = engine[e - 1];
    mat_vec(jump1, engine[e].s1, M1);
    mat_vec(jump2, engine[e].s2, M2);
  }

  rocrand_generator gen;
  ROCRAND_CHECK(rocrand_create_generator(&gen, ROCRAND_RNG_PSEUDO_MRG32K3A));
  ROCRAND_CHECK(rocrand_set_seed(gen, seed));
  // uint32, float, double: each call starts where the last one stopped; the float call wraps
  // around to engines 0, 1, ... for their second value.
  const size_t nu = 70000, nf = 90000, nd = 30000;
  void *d;
  HIP_CHECK(hipMalloc(&d, nf * sizeof(double)));
  unsigned start = 0;

  ROCRAND_CHECK(rocrand_generate(gen, (unsigned int *)d, nu));
  std::vector<unsigned int> u(nu);
  HIP_CHECK(hipMemcpy(u.data(), d, nu * sizeof(unsigned int), hipMemcpyDeviceToHost));
  for (size_t i = 0; i < nu; i++) {
    const unsigned id = (start + i) % engines;
    const uint32_t want = to_uint(engine[id].next());
    CHECK(u[i] == want, "uint32 [%zu] (engine %u) = %08x, want %08x", i, id, u[i], want);
  }
  start = (start + nu) % engines;
  std::printf("mrg32k3a uint32: %zu values match\n", nu);

  ROCRAND_CHECK(rocrand_generate_uniform(gen, (float *)d, nf));
  std::vector<float> f(nf);
  HIP_CHECK(hipMemcpy(f.data(), d, nf * sizeof(float), hipMemcpyDeviceToHost));
  for (size_t i = 0; i < nf; i++) {
    const unsigned id = (start + i) % engines;
    const float want = to_float(engine[id].next());
    CHECK(f[i] == want, "float [%zu] (engine %u) = %.9g, want %.9g", i, id, f[i], want);
  }
  start = (start + nf) % engines;
  std::printf("mrg32k3a uniform float: %zu values match\n", nf);

  ROCRAND_CHECK(rocrand_generate_uniform_double(gen, (double *)d, nd));
  std::vector<double> dv(nd);
  HIP_CHECK(hipMemcpy(dv.data(), d, nd * sizeof(double), hipMemcpyDeviceToHost));
  for (size_t i = 0; i < nd; i++) {
    const unsigned id = (start + i) % engines;
    const double want = to_double(engine[id].next());
    CHECK(dv[i] == want, "double [%zu] (engine %u) = %.17g, want %.17g", i, id, dv[i], want);
  }
  std::printf("mrg32k3a uniform double: %zu values match\n", nd);

  ROCRAND_CHECK(rocrand_destroy_generator(gen));
  HIP_CHECK(hipFree(d));
  pass("rocrand_mrg32k3a");
  return 0;
}
