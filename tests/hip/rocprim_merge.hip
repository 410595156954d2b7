// rocprim_merge: rocPRIM's (Debian's librocprim-dev) device-wide merge sort and merge through
// its public API, checked element by element against std::stable_sort and std::merge on the
// CPU: keys only and key-value pairs (stable: equal keys keep their input order), a custom
// comparator (descending), and a merge of two sorted sequences of different lengths.
// rocPRIM's merge path computes `diag < n2 ? 0 : diag - n2` with `v_sub_u32 … clamp`, so these
// need integer clamp (saturation) on VOP3 subtraction.
#include "hip_check.h"
#include <rocprim/rocprim.hpp>
#include <algorithm>
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

int main() {
  for (size_t n : {1000u, 70000u}) {
    std::printf("n = %zu\n", n);
    merge_sorts(n);
    merges(n, n / 3 + 17);
    merges(5, n);
  }
  std::printf("PASS rocprim_merge\n");
  return 0;
}
