// rocprim_scan_select: rocPRIM's (Debian's librocprim-dev, header-only) device-wide scan,
// select, unique and partition through its public API, each checked element by element
// against a CPU reference written here. These are the algorithms built on decoupled look-back:
// work-groups publish packed {flag, value} status words with one 64-bit store and poll them
// with 64-bit loads, so they are only right when those accesses are single-copy atomic
// (docs/litmus.md). Sizes span many tiles so that work-groups on different host threads look
// back at one another.
#include "hip_check.h"
#include <rocprim/rocprim.hpp>
#include <cstdint>
#include <vector>

static uint32_t rng_state = 12345;
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

// Runs a rocPRIM device algorithm the documented way: a size query with a null temporary
// storage pointer, then the call itself with that much storage.
#define ROCPRIM_RUN(call_with_storage)                              \
  do {                                                              \
    void *temporary_storage = nullptr;                              \
    size_t temporary_storage_bytes = 0;                             \
    HIP_CHECK(call_with_storage);                                   \
    HIP_CHECK(hipMalloc(&temporary_storage, temporary_storage_bytes + 1)); \
    HIP_CHECK(call_with_storage);                                   \
    HIP_CHECK(hipDeviceSynchronize());                              \
    HIP_CHECK(hipFree(temporary_storage));                          \
  } while (0)

template <class T> static void expect_equal(const char *what, const std::vector<T> &got,
                                            const std::vector<T> &want) {
  CHECK(got.size() == want.size(), "%s: %zu values, want %zu", what, got.size(), want.size());
  for (size_t i = 0; i < want.size(); i++)
    CHECK(got[i] == want[i], "%s: element %zu is %lld, want %lld", what, i, (long long)got[i],
          (long long)want[i]);
  std::printf("%s: %zu values match\n", what, want.size());
}

static void scans(size_t n) {
  std::vector<int> in(n);
  for (auto &x : in)
    x = (int)(next_rand() % 201) - 100;
  int *d_in = to_device(in);
  int *d_out = to_device(std::vector<int>(n));

  std::vector<int> want(n);
  int acc = 0;
  for (size_t i = 0; i < n; i++)
    want[i] = acc += in[i];
  ROCPRIM_RUN(rocprim::inclusive_scan(temporary_storage, temporary_storage_bytes, d_in, d_out,
                                      n, rocprim::plus<int>()));
  expect_equal("inclusive_scan int", to_host(d_out, n), want);

  acc = 7;
  for (size_t i = 0; i < n; i++) {
    want[i] = acc;
    acc += in[i];
  }
  ROCPRIM_RUN(rocprim::exclusive_scan(temporary_storage, temporary_storage_bytes, d_in, d_out,
                                      7, n, rocprim::plus<int>()));
  expect_equal("exclusive_scan int", to_host(d_out, n), want);

  // A 64-bit scan (its look-back state is not a packed word) with max instead of plus.
  std::vector<long long> in64(n);
  for (auto &x : in64)
    x = ((long long)next_rand() << 20) - ((long long)next_rand() << 19);
  long long *d_in64 = to_device(in64);
  long long *d_out64 = to_device(std::vector<long long>(n));
  std::vector<long long> want64(n);
  long long m = in64[0];
  for (size_t i = 0; i < n; i++)
    want64[i] = m = std::max(m, in64[i]);
  ROCPRIM_RUN(rocprim::inclusive_scan(temporary_storage, temporary_storage_bytes, d_in64,
                                      d_out64, n, rocprim::maximum<long long>()));
  expect_equal("inclusive_scan max int64", to_host(d_out64, n), want64);

  // By key: runs of equal keys (lengths 1..40) restart the scan.
  std::vector<int> keys(n);
  for (size_t i = 0, k = 0; i < n; k++)
    for (size_t r = 1 + next_rand() % 40; r && i < n; r--)
      keys[i++] = (int)k;
  int *d_keys = to_device(keys);
  for (size_t i = 0; i < n; i++)
    want[i] = (i == 0 || keys[i] != keys[i - 1]) ? in[i] : want[i - 1] + in[i];
  ROCPRIM_RUN(rocprim::inclusive_scan_by_key(temporary_storage, temporary_storage_bytes, d_keys,
                                             d_in, d_out, n, rocprim::plus<int>()));
  expect_equal("inclusive_scan_by_key", to_host(d_out, n), want);

  for (size_t i = 0; i < n; i++)
    want[i] = (i == 0 || keys[i] != keys[i - 1]) ? 3 : want[i - 1] + in[i - 1];
  ROCPRIM_RUN(rocprim::exclusive_scan_by_key(temporary_storage, temporary_storage_bytes, d_keys,
                                             d_in, d_out, 3, n, rocprim::plus<int>()));
  expect_equal("exclusive_scan_by_key", to_host(d_out, n), want);

  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_in64));
  HIP_CHECK(hipFree(d_out64));
  HIP_CHECK(hipFree(d_keys));
}

struct IsMultipleOf3 {
  __host__ __device__ bool operator()(int x) const { return x % 3 == 0; }
};
struct IsNegative {
  __host__ __device__ bool operator()(int x) const { return x < 0; }
};

static void selects(size_t n) {
  std::vector<int> in(n);
  std::vector<unsigned char> flags(n);
  for (size_t i = 0; i < n; i++) {
    in[i] = (int)(next_rand() % 1000) - 500;
    flags[i] = next_rand() % 4 == 0;
  }
  int *d_in = to_device(in);
  unsigned char *d_flags = to_device(flags);
  int *d_out = to_device(std::vector<int>(n));
  int *d_out2 = to_device(std::vector<int>(n));
  int *d_rest = to_device(std::vector<int>(n));
  unsigned int *d_count = to_device(std::vector<unsigned int>(2));

  std::vector<int> want;
  for (size_t i = 0; i < n; i++)
    if (flags[i])
      want.push_back(in[i]);
  ROCPRIM_RUN(rocprim::select(temporary_storage, temporary_storage_bytes, d_in, d_flags, d_out,
                              d_count, n));
  size_t count = to_host(d_count, 1)[0];
  expect_equal("select flagged", to_host(d_out, count), want);

  want.clear();
  for (size_t i = 0; i < n; i++)
    if (in[i] % 3 == 0)
      want.push_back(in[i]);
  ROCPRIM_RUN(rocprim::select(temporary_storage, temporary_storage_bytes, d_in, d_out, d_count,
                              n, IsMultipleOf3()));
  count = to_host(d_count, 1)[0];
  expect_equal("select predicate", to_host(d_out, count), want);

  // unique over runs of repeated values.
  std::vector<int> runs(n);
  for (size_t i = 0; i < n; i++)
    runs[i] = (i == 0 || next_rand() % 5 == 0) ? (int)(next_rand() % 100) : runs[i - 1];
  int *d_runs = to_device(runs);
  want.clear();
  for (size_t i = 0; i < n; i++)
    if (i == 0 || runs[i] != runs[i - 1])
      want.push_back(runs[i]);
  ROCPRIM_RUN(rocprim::unique(temporary_storage, temporary_storage_bytes, d_runs, d_out, d_count,
                              n, rocprim::equal_to<int>()));
  count = to_host(d_count, 1)[0];
  expect_equal("unique", to_host(d_out, count), want);

  // partition: the selected values in order, then the rejected ones in reverse order.
  std::vector<int> part;
  for (size_t i = 0; i < n; i++)
    if (flags[i])
      part.push_back(in[i]);
  size_t selected = part.size();
  for (size_t i = n; i-- > 0;)
    if (!flags[i])
      part.push_back(in[i]);
  ROCPRIM_RUN(rocprim::partition(temporary_storage, temporary_storage_bytes, d_in, d_flags, d_out,
                                 d_count, n));
  CHECK(to_host(d_count, 1)[0] == selected, "partition flagged: %u selected, want %zu",
        to_host(d_count, 1)[0], selected);
  expect_equal("partition flagged", to_host(d_out, n), part);

  part.clear();
  for (size_t i = 0; i < n; i++)
    if (in[i] < 0)
      part.push_back(in[i]);
  selected = part.size();
  for (size_t i = n; i-- > 0;)
    if (!(in[i] < 0))
      part.push_back(in[i]);
  ROCPRIM_RUN(rocprim::partition(temporary_storage, temporary_storage_bytes, d_in, d_out, d_count,
                                 n, IsNegative()));
  CHECK(to_host(d_count, 1)[0] == selected, "partition predicate: %u selected, want %zu",
        to_host(d_count, 1)[0], selected);
  expect_equal("partition predicate", to_host(d_out, n), part);

  // Three-way: first the negatives, then the multiples of 3 (not negative), then the rest,
  // each in input order.
  std::vector<int> first, second, rest;
  for (int x : in)
    (x < 0 ? first : x % 3 == 0 ? second : rest).push_back(x);
  ROCPRIM_RUN(rocprim::partition_three_way(temporary_storage, temporary_storage_bytes, d_in,
                                           d_out, d_out2, d_rest, d_count, n, IsNegative(),
                                           IsMultipleOf3()));
  std::vector<unsigned int> counts = to_host(d_count, 2);
  CHECK(counts[0] == first.size() && counts[1] == second.size(),
        "partition_three_way counts %u %u, want %zu %zu", counts[0], counts[1], first.size(),
        second.size());
  expect_equal("partition_three_way first", to_host(d_out, first.size()), first);
  expect_equal("partition_three_way second", to_host(d_out2, second.size()), second);
  expect_equal("partition_three_way rest", to_host(d_rest, rest.size()), rest);

  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_flags));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_out2));
  HIP_CHECK(hipFree(d_rest));
  HIP_CHECK(hipFree(d_count));
  HIP_CHECK(hipFree(d_runs));
}

int main() {
  // Several sizes: one tile, a few, and enough tiles for the look-back to span host threads.
  for (size_t n : {1000u, 37000u, 300000u}) {
    std::printf("n = %zu\n", n);
    scans(n);
    selects(n);
  }
  pass("rocprim_scan_select");
  return 0;
}
