// rocrand_xorwow: Debian's prebuilt rocRAND library generating with its XORWOW generator through
// the host API, compared element by element with a CPU XORWOW written here from the published
// algorithm (Marsaglia, "Xorshift RNGs", J. Stat. Softw. 8(14), 2003: a 160-bit xorshift plus
// a Weyl sequence, d += 362437) and rocRAND's documented conventions:
// - seeding (rocrand/rocrand_xorwow.h): Marsaglia's initial state, perturbed by the seed's two
//   halves as that header's constructor does;
// - the host generator runs 512 x 256 = 131072 engines; engine e starts at subsequence e, i.e.
//   2^67 steps along the stream; element i of a rocrand_generate call is the next value of
//   engine (start + i) mod 131072, and each call advances `start` by its length.
// The 2^67-step jump is computed here independently: the state update is linear over GF(2), so
// the jump is the 160x160 bit matrix of one step squared 67 times. Every comparison is exact.
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

// The xorshift part of the state: five 32-bit words, as a 160-bit vector over GF(2).
struct Vec160 {
  uint32_t x[5];
};

// One xorshift step (the Weyl counter d is kept apart: it does not depend on x).
static Vec160 xorshift_step(Vec160 s) {
  const uint32_t t = s.x[0] ^ (s.x[0] >> 2);
  Vec160 r;
  r.x[0] = s.x[1];
  r.x[1] = s.x[2];
  r.x[2] = s.x[3];
  r.x[3] = s.x[4];
  r.x[4] = (s.x[4] ^ (s.x[4] << 4)) ^ (t ^ (t << 1));
  return r;
}

// A 160x160 bit matrix stored by columns: col[j] is the image of basis vector j.
struct Mat160 {
  Vec160 col[160];
};

static Vec160 apply(const Mat160 &m, const Vec160 &v) {
  Vec160 r = {{0, 0, 0, 0, 0}};
  for (int j = 0; j < 160; j++) {
    if ((v.x[j / 32] >> (j % 32)) & 1) {
      for (int k = 0; k < 5; k++)
        r.x[k] ^= m.col[j].x[k];
    }
  }
  return r;
}

static Mat160 multiply(const Mat160 &a, const Mat160 &b) {
  Mat160 r;
  for (int j = 0; j < 160; j++)
    r.col[j] = apply(a, b.col[j]);
  return r;
}

struct Engine {
  Vec160 s;
  uint32_t d;
  uint32_t next() {
    s = xorshift_step(s);
    d += 362437u;
    return d + s.x[4];
  }
};

int main() {
  const uint64_t seed = 0xfeedface12345678ull;
  const unsigned engines = 512 * 256;

  // The seeded start of every engine, before its subsequence jump.
  Engine e0;
  const uint32_t init[5] = {123456789u, 362436069u, 521288629u, 88675123u, 5783321u};
  std::memcpy(e0.s.x, init, sizeof init);
  e0.d = 6615241u;
  const uint32_t t0 = 1228688033u * ((uint32_t)seed ^ 0x2c7f967fu);
  const uint32_t t1 = 2073658381u * ((uint32_t)(seed >> 32) ^ 0xa03697cbu);
  e0.s.x[0] += t0;
  e0.s.x[1] ^= t0;
  e0.s.x[2] += t1;
  e0.s.x[3] ^= t1;
  e0.s.x[4] += t0;
  e0.d += t1 + t0;

  // Sanity of the matrix machinery: the one-step matrix applied 1000 times equals 1000 steps.
  Mat160 step;
  for (int j = 0; j < 160; j++) {
    Vec160 b = {{0, 0, 0, 0, 0}};
    b.x[j / 32] = 1u << (j % 32);
    step.col[j] = xorshift_step(b);
  }
  {
    Vec160 a = e0.s, b = e0.s;
    for (int i = 0; i < 1000; i++) {
      a = xorshift_step(a);
      b = apply(step, b);
    }
    CHECK(std::memcmp(&a, &b, sizeof a) == 0, "CPU reference: matrix step != xorshift step");
    Mat160 sq = multiply(step, step); // and squaring: two steps
    a = xorshift_step(xorshift_step(e0.s));
    b = apply(sq, e0.s);
    CHECK(std::memcmp(&a, &b, sizeof a) == 0, "CPU reference: squared matrix != two steps");
  }
  Mat160 jump = step;
  for (int i = 0; i < 67; i++)
    jump = multiply(jump, jump); // step^(2^67)

  std::vector<Engine> engine(engines);
  engine[0] = e0;
  for (unsigned e = 1; e < engines; e++) {
    engine[e].s = apply(jump, engine[e - 1].s);
    engine[e].d = e0.d;
  }

  rocrand_generator gen;
  ROCRAND_CHECK(rocrand_create_generator(&gen, ROCRAND_RNG_PSEUDO_XORWOW));
  ROCRAND_CHECK(rocrand_set_seed(gen, seed));
  // Two calls: the second starts at engine n1 and wraps around to engines 0, 1, ... which then
  // give their second value.
  const size_t n1 = 100000, n2 = 50000;
  unsigned int *du;
  HIP_CHECK(hipMalloc(&du, n1 * sizeof(unsigned int)));
  std::vector<unsigned int> u(n1);
  unsigned start = 0;
  for (size_t n : {n1, n2}) {
    ROCRAND_CHECK(rocrand_generate(gen, du, n));
    HIP_CHECK(hipMemcpy(u.data(), du, n * sizeof(unsigned int), hipMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
      const unsigned id = (start + i) % engines;
      const uint32_t want = engine[id].next();
      CHECK(u[i] == want, "call with n=%zu: [%zu] (engine %u) = %08x, want %08x", n, i, id, u[i],
            want);
    }
    start = (start + n) % engines;
    std::printf("xorwow uint32: %zu values match\n", n);
  }
  ROCRAND_CHECK(rocrand_destroy_generator(gen));
  HIP_CHECK(hipFree(du));
  pass("rocrand_xorwow");
  return 0;
}
