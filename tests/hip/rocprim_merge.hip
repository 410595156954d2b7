// rocprim_merge: the rocPRIM (Debian's librocprim-dev) algorithms whose code needs the VALU
// semantics issue 18 found missing (integer clamp, v_xnor_b32, 16-bit max3/min3), checked
// against CPU references:
// - merge sort (keys, and key-value pairs with a descending comparator: stable, equal keys keep
//   their input order) and merge of two sorted sequences of different lengths. rocPRIM's merge
//   path computes `diag < n2 ? 0 : diag - n2` with `v_sub_u32 … clamp`: integer clamp
//   (saturation) on VOP3 subtraction;
// - radix sort with float and double keys (the key codec uses v_xnor_b32);
// - min/max reductions of 8- and 16-bit integers (v_max3_u16/i16, v_min3_u16/i16).
#include "hip_check.h"
#include <rocprim/rocprim.hpp>
#include <algorithm>
#include <limits>
#include <cstdint>
#include <vector>

static uint32_t rng_state = 88675123u;
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

static void merge_sorts(size_t n) {
  std::vector<int> keys(n);
  for (auto &k : keys)
    k = (int)(next_rand() % 5000) - 2500; // many equal keys: stability matters
  std::vector<unsigned int> values(n);
  for (size_t i = 0; i < n; i++)
    values[i] = (unsigned int)i;
  int *d_keys = to_device(keys);
  int *d_keys_out = to_device(std::vector<int>(n));
  unsigned int *d_values = to_device(values);
  unsigned int *d_values_out = to_device(std::vector<unsigned int>(n));

  std::vector<int> want = keys;
  std::stable_sort(want.begin(), want.end());
  ROCPRIM_RUN(rocprim::merge_sort(temporary_storage, temporary_storage_bytes, d_keys, d_keys_out,
                                  n));
  expect_equal("merge_sort keys", to_host(d_keys_out, n), want);

  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; i++)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return keys[a] > keys[b]; });
  std::vector<unsigned int> want_values(n);
  for (size_t i = 0; i < n; i++) {
    want[i] = keys[order[i]];
    want_values[i] = values[order[i]];
  }
  ROCPRIM_RUN(rocprim::merge_sort(temporary_storage, temporary_storage_bytes, d_keys, d_keys_out,
                                  d_values, d_values_out, n, rocprim::greater<int>()));
  expect_equal("merge_sort pairs descending keys", to_host(d_keys_out, n), want);
  expect_equal("merge_sort pairs descending values", to_host(d_values_out, n), want_values);
  HIP_CHECK(hipFree(d_keys));
  HIP_CHECK(hipFree(d_keys_out));
  HIP_CHECK(hipFree(d_values));
  HIP_CHECK(hipFree(d_values_out));
}

static void merges(size_t n1, size_t n2) {
  std::vector<long long> a(n1), b(n2);
  for (auto &x : a)
    x = (long long)(next_rand() % 100000) * 3;
  for (auto &x : b)
    x = (long long)(next_rand() % 100000) * 5;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<long long> want(n1 + n2);
  std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin());
  long long *d_a = to_device(a);
  long long *d_b = to_device(b);
  long long *d_out = to_device(std::vector<long long>(n1 + n2));
  ROCPRIM_RUN(rocprim::merge(temporary_storage, temporary_storage_bytes, d_a, d_b, d_out, n1, n2,
                             rocprim::less<long long>()));
  expect_equal("merge int64", to_host(d_out, n1 + n2), want);
  HIP_CHECK(hipFree(d_a));
  HIP_CHECK(hipFree(d_b));
  HIP_CHECK(hipFree(d_out));
}

// rocPRIM's order for floating-point keys (rocprim/detail/radix_sort.hpp): the radix order of
// the sign-flipped bit patterns, -inf < … < +inf, except that -0.0 and +0.0 are one key (the
// sort is stable, so they keep their input order). That is IEEE `<` (NaNs are not used here).
template <class F> static bool float_less(F a, F b) { return a < b; }

template <class F> static std::vector<F> float_keys(size_t n) {
  std::vector<F> k(n);
  const F specials[] = {F(0), -F(0), std::numeric_limits<F>::infinity(),
                        -std::numeric_limits<F>::infinity(), std::numeric_limits<F>::denorm_min(),
                        -std::numeric_limits<F>::denorm_min(), std::numeric_limits<F>::max(),
                        std::numeric_limits<F>::lowest()};
  for (size_t i = 0; i < n; i++)
    k[i] = next_rand() % 50 == 0 ? specials[next_rand() % 8]
                                 : (F)((int)(next_rand() % 20001) - 10000) / F(64);
  return k;
}

// Radix-sorts float keys, and double keys with their positions as values, ascending; compares
// with std::stable_sort.
static void float_sorts(size_t n) {
  std::vector<float> keys = float_keys<float>(n);
  float *d_keys = to_device(keys);
  float *d_keys_out = to_device(std::vector<float>(n));
  std::vector<float> want = keys;
  std::stable_sort(want.begin(), want.end(), float_less<float>);
  ROCPRIM_RUN(rocprim::radix_sort_keys(temporary_storage, temporary_storage_bytes, d_keys,
                                       d_keys_out, (unsigned int)n));
  std::vector<float> got = to_host(d_keys_out, n);
  for (size_t i = 0; i < n; i++)
    CHECK(got[i] == want[i], "radix_sort_keys float: element %zu is %g, want %g", i, got[i],
          want[i]);
  std::printf("radix_sort_keys float: %zu values match\n", n);

  std::vector<double> dkeys = float_keys<double>(n);
  std::vector<unsigned int> pos(n);
  for (size_t i = 0; i < n; i++)
    pos[i] = (unsigned int)i;
  std::vector<unsigned int> want_pos = pos;
  std::stable_sort(want_pos.begin(), want_pos.end(),
                   [&](unsigned int a, unsigned int b) { return dkeys[a] < dkeys[b]; });
  double *d_dkeys = to_device(dkeys);
  double *d_dkeys_out = to_device(std::vector<double>(n));
  unsigned int *d_pos = to_device(pos);
  unsigned int *d_pos_out = to_device(std::vector<unsigned int>(n));
  ROCPRIM_RUN(rocprim::radix_sort_pairs(temporary_storage, temporary_storage_bytes, d_dkeys,
                                        d_dkeys_out, d_pos, d_pos_out, (unsigned int)n));
  expect_equal("radix_sort_pairs double -> position", to_host(d_pos_out, n), want_pos);
  HIP_CHECK(hipFree(d_keys));
  HIP_CHECK(hipFree(d_keys_out));
  HIP_CHECK(hipFree(d_dkeys));
  HIP_CHECK(hipFree(d_dkeys_out));
  HIP_CHECK(hipFree(d_pos));
  HIP_CHECK(hipFree(d_pos_out));
}

// Min and max reductions of random 8- and 16-bit integers.
template <class T, class Op> static void reduce_one(const char *what, size_t n, T init, Op op) {
  std::vector<T> in(n);
  for (auto &x : in)
    x = (T)next_rand();
  T want = init;
  for (T x : in)
    want = op(want, x);
  T *d_in = to_device(in);
  T *d_out = to_device(std::vector<T>(1));
  ROCPRIM_RUN(rocprim::reduce(temporary_storage, temporary_storage_bytes, d_in, d_out, init, n,
                              op));
  expect_equal(what, to_host(d_out, 1), std::vector<T>{want});
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
}

static void min_max_reductions(size_t n) {
  reduce_one<uint8_t>("reduce uint8 max", n, 0, rocprim::maximum<uint8_t>());
  reduce_one<int8_t>("reduce int8 min", n, 127, rocprim::minimum<int8_t>());
  reduce_one<uint16_t>("reduce uint16 min", n, 65535, rocprim::minimum<uint16_t>());
  reduce_one<int16_t>("reduce int16 max", n, -32768, rocprim::maximum<int16_t>());
}

int main() {
  // 1000 elements: single-block paths; 10000: the multi-block ones (block sorts then merge
  // rounds, merge partitions, two-pass reductions).
  for (size_t n : {1000u, 10000u}) {
    std::printf("n = %zu\n", n);
    merge_sorts(n);
    merges(n, n / 3 + 17);
    merges(5, n);
    float_sorts(n);
    min_max_reductions(n);
  }
  pass("rocprim_merge");
  return 0;
}
