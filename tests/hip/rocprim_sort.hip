// rocprim_sort: rocPRIM's (Debian's librocprim-dev) device-wide radix sort through its public
// API: keys only and key-value pairs, ascending and descending, with 32- and 64-bit integer
// keys, and a bit-range sort (floating-point keys: rocprim_merge.hip). Each result is compared element by element with
// std::stable_sort on the CPU (radix sort is stable, so the values of equal keys keep their
// input order).
#include "hip_check.h"
#include <rocprim/rocprim.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

static uint32_t rng_state = 2463534242u;
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

// Bitwise equality, so that -0.0 and +0.0 are told apart.
template <class T> static void expect_same(const char *what, const std::vector<T> &got,
                                           const std::vector<T> &want) {
  CHECK(got.size() == want.size(), "%s: %zu values, want %zu", what, got.size(), want.size());
  for (size_t i = 0; i < want.size(); i++)
    CHECK(std::memcmp(&got[i], &want[i], sizeof(T)) == 0, "%s: element %zu differs", what, i);
  std::printf("%s: %zu values match\n", what, want.size());
}

template <class K> static void sort_keys(const char *what, const std::vector<K> &keys,
                                         bool (*less)(K, K)) {
  const size_t n = keys.size();
  K *d_in = to_device(keys);
  K *d_out = to_device(std::vector<K>(n));
  std::vector<K> want = keys;
  std::stable_sort(want.begin(), want.end(), less);
  ROCPRIM_RUN(rocprim::radix_sort_keys(temporary_storage, temporary_storage_bytes, d_in, d_out,
                                       (unsigned int)n));
  expect_same(what, to_host(d_out, n), want);

  std::stable_sort(want.begin(), want.end(), [&](K a, K b) { return less(b, a); });
  ROCPRIM_RUN(rocprim::radix_sort_keys_desc(temporary_storage, temporary_storage_bytes, d_in,
                                            d_out, (unsigned int)n));
  expect_same("  descending", to_host(d_out, n), want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
}

template <class K, class V> static void sort_pairs(const char *what, const std::vector<K> &keys,
                                                   bool (*less)(K, K)) {
  const size_t n = keys.size();
  std::vector<V> values(n);
  for (size_t i = 0; i < n; i++)
    values[i] = (V)i;
  K *d_keys_in = to_device(keys);
  K *d_keys_out = to_device(std::vector<K>(n));
  V *d_values_in = to_device(values);
  V *d_values_out = to_device(std::vector<V>(n));
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; i++)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return less(keys[a], keys[b]); });
  std::vector<K> want_keys(n);
  std::vector<V> want_values(n);
  for (size_t i = 0; i < n; i++) {
    want_keys[i] = keys[order[i]];
    want_values[i] = values[order[i]];
  }
  ROCPRIM_RUN(rocprim::radix_sort_pairs(temporary_storage, temporary_storage_bytes, d_keys_in,
                                        d_keys_out, d_values_in, d_values_out, (unsigned int)n));
  expect_same(what, to_host(d_keys_out, n), want_keys);
  expect_same("  values", to_host(d_values_out, n), want_values);

  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return less(keys[b], keys[a]); });
  for (size_t i = 0; i < n; i++) {
    want_keys[i] = keys[order[i]];
    want_values[i] = values[order[i]];
  }
  ROCPRIM_RUN(rocprim::radix_sort_pairs_desc(temporary_storage, temporary_storage_bytes,
                                             d_keys_in, d_keys_out, d_values_in, d_values_out,
                                             (unsigned int)n));
  expect_same("  descending keys", to_host(d_keys_out, n), want_keys);
  expect_same("  descending values", to_host(d_values_out, n), want_values);
  HIP_CHECK(hipFree(d_keys_in));
  HIP_CHECK(hipFree(d_keys_out));
  HIP_CHECK(hipFree(d_values_in));
  HIP_CHECK(hipFree(d_values_out));
}

static bool u32_less(unsigned int a, unsigned int b) { return a < b; }
static bool i64_less(long long a, long long b) { return a < b; }

int main() {
  // 1000 keys: one block (sort_single_kernel). 10000: ten blocks of 1024 sorted, then four
  // rounds of radix_block_merge_kernel (10, 5, 3, 2 runs: a partial last block and an odd run
  // count); more keys only add rounds of the same kernels, up to 1048576.
  for (size_t n : {1000u, 10000u}) {
    std::printf("n = %zu\n", n);
    std::vector<unsigned int> u(n);
    for (auto &x : u)
      x = next_rand();
    sort_keys<unsigned int>("radix_sort_keys uint32", u, u32_less);

    std::vector<long long> s(n);
    for (auto &x : s)
      x = (long long)((uint64_t)next_rand() << 32 | next_rand());
    sort_pairs<long long, int>("radix_sort_pairs int64 -> int", s, i64_less);

    // Bits 4..19 only: keys that differ only outside those bits keep their input order.
    std::vector<unsigned int> masked(n);
    for (auto &x : masked)
      x = next_rand();
    std::vector<unsigned int> want = masked;
    std::stable_sort(want.begin(), want.end(), [](unsigned int a, unsigned int b) {
      return (a >> 4 & 0xffff) < (b >> 4 & 0xffff);
    });
    unsigned int *d_in = to_device(masked);
    unsigned int *d_out = to_device(std::vector<unsigned int>(n));
    ROCPRIM_RUN(rocprim::radix_sort_keys(temporary_storage, temporary_storage_bytes, d_in, d_out,
                                         (unsigned int)n, 4, 20));
    expect_same("radix_sort_keys bits [4, 20)", to_host(d_out, n), want);
    HIP_CHECK(hipFree(d_in));
    HIP_CHECK(hipFree(d_out));
    std::fflush(stdout);
  }
  pass("rocprim_sort");
  return 0;
}
