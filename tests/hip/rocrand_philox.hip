// rocrand_philox: Debian's prebuilt rocRAND library (librocrand1, its own code objects for
// gfx803…gfx90a) generating with the Philox4x32-10 generator through the host API, compared
// element by element with a CPU Philox4x32-10 written here from the published algorithm
// (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3", SC'11).
//
// rocRAND's documented conventions (rocrand/rocrand_philox4x32_10.h, rocrand.h):
// - the 64-bit seed is the key: key[0] = low 32 bits, key[1] = high 32 bits;
// - the host generator is one stream: value number p (counting from the generator's absolute
//   offset, set by rocrand_set_offset) is word p % 4 of Philox(counter = p / 4, key), the
//   counter a 128-bit integer whose least significant 32-bit word is word 0;
// - consecutive rocrand_generate* calls continue the stream; a float is
//   2^-32 + v * 2^-32 (in (0, 1]), a double 2^-53 + (v1 | (v2 >> 11) << 32) * 2^-53 from two
//   consecutive values. Both are exact in IEEE arithmetic, so every comparison here is exact.
// Also a statistical check of rocrand_generate_normal (Box-Muller on the device's log/sin/cos).
#include "hip_check.h"
#include <rocrand/rocrand.h>
#include <cstdint>
#include <cstring>
#include <vector>

#define ROCRAND_CHECK(call)                                                     \
  do {                                                                          \
    rocrand_status rocrand_check_st_ = (call);                                  \
    CHECK(rocrand_check_st_ == ROCRAND_STATUS_SUCCESS, "%s returned status %d", \
          #call, (int)rocrand_check_st_);                                       \
  } while (0)

// One Philox4x32 round: two 32x32->64 multiplications, the high halves xor'ed with the other
// counter words and the round key (the S-box-free "Philox" bijection of the paper, §4.2).
static void philox_round(uint32_t ctr[4], const uint32_t key[2]) {
  const uint64_t p0 = (uint64_t)0xD2511F53u * ctr[0];
  const uint64_t p1 = (uint64_t)0xCD9E8D57u * ctr[2];
  const uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
  const uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
  const uint32_t out[4] = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
  std::memcpy(ctr, out, sizeof out);
}

// Philox4x32-10: ten rounds, the key bumped by the Weyl constants between rounds.
static void philox4x32_10(const uint32_t counter[4], const uint32_t key_in[2], uint32_t out[4]) {
  uint32_t ctr[4] = {counter[0], counter[1], counter[2], counter[3]};
  uint32_t key[2] = {key_in[0], key_in[1]};
  for (int r = 0; r < 10; r++) {
    if (r > 0) {
      key[0] += 0x9E3779B9u;
      key[1] += 0xBB67AE85u;
    }
    philox_round(ctr, key);
  }
  std::memcpy(out, ctr, sizeof ctr);
}

// Value number `pos` of rocRAND's host Philox stream for `seed`.
static uint32_t stream_value(uint64_t seed, uint64_t pos) {
  const uint64_t block = pos / 4;
  const uint32_t counter[4] = {(uint32_t)block, (uint32_t)(block >> 32), 0, 0};
  const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  uint32_t out[4];
  philox4x32_10(counter, key, out);
  return out[pos % 4];
}

// The reference itself is checked against the known-answer vectors that Random123 publishes
// for philox4x32-10 (kat_vectors: zero, all-ones and pi-digit inputs).
static void check_reference() {
  struct Kat {
    uint32_t ctr[4], key[2], want[4];
  } kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
      {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
       {0xffffffffu, 0xffffffffu},
       {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
      {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
       {0xa4093822u, 0x299f31d0u},
       {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
  };
  for (const Kat &k : kats) {
    uint32_t got[4];
    philox4x32_10(k.ctr, k.key, got);
    for (int i = 0; i < 4; i++)
      CHECK(got[i] == k.want[i], "CPU reference: KAT word %d = %08x, want %08x", i, got[i],
            k.want[i]);
  }
}

static float uniform_float(uint32_t v) { return 0x1p-32f + (float)v * 0x1p-32f; }

static double uniform_double(uint32_t v1, uint32_t v2) {
  const uint64_t u = (uint64_t)v1 | ((uint64_t)(v2 >> 11) << 32);
  return 0x1p-53 + (double)u * 0x1p-53;
}

int main() {
  check_reference();
  const uint64_t seed = 0x0123456789abcdefull;
  // Not multiples of 4 and a misaligned start below: the kernel's head and tail paths run too.
  const size_t n1 = 70001, n2 = 12345, nf = 33333, nd = 9999;
  rocrand_generator gen;
  ROCRAND_CHECK(rocrand_create_generator(&gen, ROCRAND_RNG_PSEUDO_PHILOX4_32_10));
  ROCRAND_CHECK(rocrand_set_seed(gen, seed));

  unsigned int *du;
  HIP_CHECK(hipMalloc(&du, (n1 + 1) * sizeof(unsigned int)));
  std::vector<unsigned int> u(n1);

  // 1. uint32 from the start of the stream, then a second call that continues it, written one
  //    element past a 16-byte boundary.
  ROCRAND_CHECK(rocrand_generate(gen, du, n1));
  HIP_CHECK(hipMemcpy(u.data(), du, n1 * sizeof(unsigned int), hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n1; i++)
    CHECK(u[i] == stream_value(seed, i), "uint32 [%zu] = %08x, want %08x", i, u[i],
          stream_value(seed, i));
  ROCRAND_CHECK(rocrand_generate(gen, du + 1, n2));
  HIP_CHECK(hipMemcpy(u.data(), du + 1, n2 * sizeof(unsigned int), hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n2; i++)
    CHECK(u[i] == stream_value(seed, n1 + i), "continued uint32 [%zu] = %08x, want %08x", i,
          u[i], stream_value(seed, n1 + i));
  std::printf("philox uint32: %zu + %zu values match\n", n1, n2);

  // 2. float in (0, 1] after rocrand_set_offset (absolute offset, restarts the stream there).
  const uint64_t offset = 1000003;
  ROCRAND_CHECK(rocrand_set_offset(gen, offset));
  float *df;
  HIP_CHECK(hipMalloc(&df, nf * sizeof(float)));
  ROCRAND_CHECK(rocrand_generate_uniform(gen, df, nf));
  std::vector<float> f(nf);
  HIP_CHECK(hipMemcpy(f.data(), df, nf * sizeof(float), hipMemcpyDeviceToHost));
  for (size_t i = 0; i < nf; i++) {
    const float want = uniform_float(stream_value(seed, offset + i));
    CHECK(f[i] == want && f[i] > 0.0f && f[i] <= 1.0f, "uniform float [%zu] = %.9g, want %.9g",
          i, f[i], want);
  }
  std::printf("philox uniform float: %zu values match\n", nf);

  // 3. double from pairs of values, continuing after the floats.
  double *dd;
  HIP_CHECK(hipMalloc(&dd, nd * sizeof(double)));
  ROCRAND_CHECK(rocrand_generate_uniform_double(gen, dd, nd));
  std::vector<double> d(nd);
  HIP_CHECK(hipMemcpy(d.data(), dd, nd * sizeof(double), hipMemcpyDeviceToHost));
  const uint64_t base = offset + nf;
  for (size_t i = 0; i < nd; i++) {
    const double want =
        uniform_double(stream_value(seed, base + 2 * i), stream_value(seed, base + 2 * i + 1));
    CHECK(d[i] == want, "uniform double [%zu] = %.17g, want %.17g", i, d[i], want);
  }
  std::printf("philox uniform double: %zu values match\n", nd);

  // 4. Normal(mean 2, stddev 3), float: the sample mean and variance of 2^18 values are within
  //    5 standard errors of the true ones (a wrong transform or correlated lanes fail this).
  const size_t nn = 1 << 18;
  float *dn;
  HIP_CHECK(hipMalloc(&dn, nn * sizeof(float)));
  ROCRAND_CHECK(rocrand_set_offset(gen, 0));
  ROCRAND_CHECK(rocrand_generate_normal(gen, dn, nn, 2.0f, 3.0f));
  std::vector<float> nv(nn);
  HIP_CHECK(hipMemcpy(nv.data(), dn, nn * sizeof(float), hipMemcpyDeviceToHost));
  double sum = 0, sum2 = 0;
  for (float x : nv) {
    CHECK(std::isfinite(x), "normal value %g is not finite", x);
    sum += x;
  }
  const double mean = sum / nn;
  for (float x : nv)
    sum2 += (x - mean) * (x - mean);
  const double var = sum2 / (nn - 1);
  // Standard errors: sigma/sqrt(n) for the mean, sigma^2*sqrt(2/(n-1)) for the variance.
  const double se_mean = 3.0 / std::sqrt((double)nn);
  const double se_var = 9.0 * std::sqrt(2.0 / (nn - 1));
  CHECK(std::fabs(mean - 2.0) < 5 * se_mean, "normal mean %.5f, want 2 +- %.5f", mean,
        5 * se_mean);
  CHECK(std::fabs(var - 9.0) < 5 * se_var, "normal variance %.5f, want 9 +- %.5f", var,
        5 * se_var);
  std::printf("philox normal: mean %.4f variance %.4f over %zu values\n", mean, var, nn);

  ROCRAND_CHECK(rocrand_destroy_generator(gen));
  HIP_CHECK(hipFree(du));
  HIP_CHECK(hipFree(df));
  HIP_CHECK(hipFree(dd));
  HIP_CHECK(hipFree(dn));
  pass("rocrand_philox");
  return 0;
}
