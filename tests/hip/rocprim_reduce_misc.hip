// rocprim_reduce_misc: rocPRIM's (Debian's librocprim-dev) device-wide run-length encode (all
// runs and non-trivial runs), reduce by key, histogram (even bins and explicit levels) and
// reduce over 8- and 16-bit types (sums; min/max: rocprim_merge.hip) through its public API,
// each checked against a CPU reference written here.
#include "hip_check.h"
#include <rocprim/rocprim.hpp>
#include <algorithm>
#include <cstdint>
#include <vector>

static uint32_t rng_state = 521288629u;
static uint32_t next_rand() {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

template <class T> static T *to_device(const std::vector<T> &v) {
  T *d = nullptr;
  HIP_CHECK(hipMalloc(&d, sizeof(T) * (v.size() ? v.size() : 1)));
  if (!v.empty())
    HIP_CHECK(hipMemcpy(d, v.data(), sizeof(T) * v.size(), hipMemcpyHostToDevice));
  return d;
}

template <class T> static std::vector<T> to_host(const T *d, size_t n) {
  std::vector<T> v(n);
  if (n)
    HIP_CHECK(hipMemcpy(v.data(), d, sizeof(T) * n, hipMemcpyDeviceToHost));
  return v;
}

#define ROCPRIM_RUN(call_with_storage)                                     \
  do {                                                                     \
    void *temporary_storage = nullptr;                                     \
    size_t temporary_storage_bytes = 0;                                    \
    HIP_CHECK(call_with_storage);                                          \
    HIP_CHECK(hipMalloc(&temporary_storage, temporary_storage_bytes + 1)); \
    HIP_CHECK(call_with_storage);                                          \
    HIP_CHECK(hipDeviceSynchronize());                                     \
    HIP_CHECK(hipFree(temporary_storage));                                 \
  } while (0)

template <class T> static void expect_equal(const char *what, const std::vector<T> &got,
                                            const std::vector<T> &want) {
  CHECK(got.size() == want.size(), "%s: %zu values, want %zu", what, got.size(), want.size());
  for (size_t i = 0; i < want.size(); i++)
    CHECK(got[i] == want[i], "%s: element %zu is %lld, want %lld", what, i, (long long)got[i],
          (long long)want[i]);
  std::printf("%s: %zu values match\n", what, want.size());
}

// Reduces `in` on the device with `op` from `init` and compares with the CPU fold (wrapping
// in T, as the device computes it).
template <class T, class Op> static void reduce_one(const char *what, const std::vector<T> &in,
                                                    T init, Op op) {
  T *d_in = to_device(in);
  T *d_out = to_device(std::vector<T>(1));
  T want = init;
  for (T x : in)
    want = op(want, x);
  ROCPRIM_RUN(rocprim::reduce(temporary_storage, temporary_storage_bytes, d_in, d_out, init,
                              in.size(), op));
  expect_equal(what, to_host(d_out, 1), std::vector<T>{want});
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
}

static void reduces(size_t n) {
  std::vector<uint8_t> u8(n);
  std::vector<int8_t> i8(n);
  std::vector<uint16_t> u16(n);
  std::vector<int16_t> i16(n);
  for (size_t i = 0; i < n; i++) {
    u8[i] = (uint8_t)next_rand();
    i8[i] = (int8_t)next_rand();
    u16[i] = (uint16_t)next_rand();
    i16[i] = (int16_t)next_rand();
  }
  reduce_one<uint8_t>("reduce uint8 plus", u8, 3, rocprim::plus<uint8_t>());
  reduce_one<int8_t>("reduce int8 plus", i8, -7, rocprim::plus<int8_t>());
  reduce_one<uint16_t>("reduce uint16 plus", u16, 0, rocprim::plus<uint16_t>());
  reduce_one<int16_t>("reduce int16 plus", i16, 100, rocprim::plus<int16_t>());
}

static void run_length_encodes(size_t n) {
  std::vector<int> in(n);
  for (size_t i = 0; i < n; i++)
    in[i] = (i == 0 || next_rand() % 4 == 0) ? (int)(next_rand() % 50) : in[i - 1];
  std::vector<int> unique;
  std::vector<unsigned int> counts, offsets, nt_counts;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && in[j] == in[i])
      j++;
    unique.push_back(in[i]);
    counts.push_back((unsigned int)(j - i));
    if (j - i > 1) {
      offsets.push_back((unsigned int)i);
      nt_counts.push_back((unsigned int)(j - i));
    }
    i = j;
  }
  int *d_in = to_device(in);
  int *d_unique = to_device(std::vector<int>(n));
  unsigned int *d_counts = to_device(std::vector<unsigned int>(n));
  unsigned int *d_offsets = to_device(std::vector<unsigned int>(n));
  unsigned int *d_runs = to_device(std::vector<unsigned int>(1));
  ROCPRIM_RUN(rocprim::run_length_encode(temporary_storage, temporary_storage_bytes, d_in,
                                         (unsigned int)n, d_unique, d_counts, d_runs));
  size_t runs = to_host(d_runs, 1)[0];
  CHECK(runs == unique.size(), "run_length_encode: %zu runs, want %zu", runs, unique.size());
  expect_equal("run_length_encode unique", to_host(d_unique, runs), unique);
  expect_equal("run_length_encode counts", to_host(d_counts, runs), counts);

  ROCPRIM_RUN(rocprim::run_length_encode_non_trivial_runs(
      temporary_storage, temporary_storage_bytes, d_in, (unsigned int)n, d_offsets, d_counts,
      d_runs));
  runs = to_host(d_runs, 1)[0];
  CHECK(runs == offsets.size(), "non-trivial runs: %zu, want %zu", runs, offsets.size());
  expect_equal("run_length_encode_non_trivial_runs offsets", to_host(d_offsets, runs), offsets);
  expect_equal("run_length_encode_non_trivial_runs counts", to_host(d_counts, runs), nt_counts);

  // reduce_by_key over the same runs: the sum of each run's positions.
  std::vector<unsigned int> pos(n), sums;
  for (size_t i = 0; i < n; i++)
    pos[i] = (unsigned int)i;
  for (size_t r = 0, i = 0; r < unique.size(); r++) {
    unsigned int s = 0;
    for (unsigned int k = 0; k < counts[r]; k++)
      s += pos[i++];
    sums.push_back(s);
  }
  unsigned int *d_pos = to_device(pos);
  ROCPRIM_RUN(rocprim::reduce_by_key(temporary_storage, temporary_storage_bytes, d_in, d_pos,
                                     (unsigned int)n, d_unique, d_counts, d_runs,
                                     rocprim::plus<unsigned int>()));
  runs = to_host(d_runs, 1)[0];
  CHECK(runs == unique.size(), "reduce_by_key: %zu keys, want %zu", runs, unique.size());
  expect_equal("reduce_by_key keys", to_host(d_unique, runs), unique);
  expect_equal("reduce_by_key sums", to_host(d_counts, runs), sums);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_unique));
  HIP_CHECK(hipFree(d_counts));
  HIP_CHECK(hipFree(d_offsets));
  HIP_CHECK(hipFree(d_runs));
  HIP_CHECK(hipFree(d_pos));
}

static void histograms(size_t n) {
  std::vector<float> samples(n);
  for (auto &s : samples)
    s = (float)(next_rand() % 12000) / 100.0f - 10.0f; // [-10, 110): some outside [0, 100)
  float *d_samples = to_device(samples);
  const unsigned int bins = 37;
  unsigned int *d_hist = to_device(std::vector<unsigned int>(bins));
  // Even bins over [0, 100): bin = floor((s - 0) * bins / 100); samples outside are dropped.
  std::vector<unsigned int> want(bins);
  for (float s : samples)
    if (s >= 0.0f && s < 100.0f)
      want[std::min(bins - 1, (unsigned int)((s - 0.0f) * bins / 100.0f))]++;
  ROCPRIM_RUN(rocprim::histogram_even(temporary_storage, temporary_storage_bytes, d_samples,
                                      (unsigned int)n, d_hist, bins + 1, 0.0f, 100.0f));
  expect_equal("histogram_even", to_host(d_hist, bins), want);

  // Explicit levels (uneven bins): bin i holds levels[i] <= s < levels[i + 1].
  const std::vector<float> levels = {-5.0f, 0.0f, 1.0f, 2.5f, 10.0f, 50.0f, 99.0f, 105.0f};
  float *d_levels = to_device(levels);
  std::vector<unsigned int> want_range(levels.size() - 1);
  for (float s : samples)
    for (size_t b = 0; b + 1 < levels.size(); b++)
      if (levels[b] <= s && s < levels[b + 1])
        want_range[b]++;
  ROCPRIM_RUN(rocprim::histogram_range(temporary_storage, temporary_storage_bytes, d_samples,
                                       (unsigned int)n, d_hist, (unsigned int)levels.size(),
                                       d_levels));
  expect_equal("histogram_range", to_host(d_hist, levels.size() - 1), want_range);
  HIP_CHECK(hipFree(d_samples));
  HIP_CHECK(hipFree(d_hist));
  HIP_CHECK(hipFree(d_levels));
}

int main() {
  for (size_t n : {1000u, 250000u}) {
    std::printf("n = %zu\n", n);
    run_length_encodes(n);
    histograms(n);
    reduces(n);
  }
  pass("rocprim_reduce_misc");
  return 0;
}
