// noinline_calls: real device function calls (__attribute__((noinline))) that take pointers to
// private (scratch) arrays indexed at run time, return structs, call each other, and recurse
// with a bounded depth; checked against the same functions run on the host.
#include "hip_check.h"
#include <vector>

struct Pair {
  int lo, hi;
};

__host__ __device__ __attribute__((noinline)) void fill_private(int *arr, int n, int seed) {
  for (int i = 0; i < n; i++)
    arr[i] = (seed * 31 + i * 17) % 101;
}

__host__ __device__ __attribute__((noinline)) Pair min_max(const int *arr, int n) {
  Pair p = {arr[0], arr[0]};
  for (int i = 1; i < n; i++) {
    p.lo = arr[i] < p.lo ? arr[i] : p.lo;
    p.hi = arr[i] > p.hi ? arr[i] : p.hi;
  }
  return p;
}

// Insertion sort of a private array through a pointer: dynamic indices force scratch memory.
__host__ __device__ __attribute__((noinline)) void sort_private(int *arr, int n) {
  for (int i = 1; i < n; i++) {
    int v = arr[i], j = i - 1;
    while (j >= 0 && arr[j] > v) {
      arr[j + 1] = arr[j];
      j--;
    }
    arr[j + 1] = v;
  }
}

__host__ __device__ __attribute__((noinline)) int recursive_sum(const int *arr, int lo, int hi) {
  if (hi - lo <= 2) {
    int s = 0;
    for (int i = lo; i < hi; i++)
      s += arr[i];
    return s;
  }
  int mid = (lo + hi) / 2;
  return recursive_sum(arr, lo, mid) + recursive_sum(arr, mid, hi);
}

__host__ __device__ __attribute__((noinline)) double mix(double a, float b, long long c, int idx) {
  double local[8];
  for (int i = 0; i < 8; i++)
    local[i] = a * i + b - (double)c;
  return local[idx & 7] + local[(idx * 3) & 7];
}

__host__ __device__ int compute(int t, int *scratch_out) {
  int arr[40];
  int n = 20 + t % 20; // run-time length
  fill_private(arr, n, t);
  Pair p = min_max(arr, n);
  sort_private(arr, n);
  int median = arr[n / 2];
  int sum = recursive_sum(arr, 0, n);
  double m = mix(t * 0.5, (float)t, t / 3, t);
  *scratch_out = arr[t % n];
  return p.lo + 3 * p.hi + 7 * median + 11 * sum + (int)(m * 4.0);
}

__global__ void kernel(int *out, int *aux, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n)
    out[t] = compute(t, &aux[t]);
}

int main() {
  const int n = 1000;
  int *dout, *daux;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&daux, n * sizeof(int)));
  hipLaunchKernelGGL(kernel, dim3((n + 127) / 128), dim3(128), 0, 0, dout, daux, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> out(n), aux(n);
  HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(aux.data(), daux, n * sizeof(int), hipMemcpyDeviceToHost));
  for (int t = 0; t < n; t++) {
    int want_aux;
    int want = compute(t, &want_aux);
    CHECK(out[t] == want, "thread %d result %d, want %d", t, out[t], want);
    CHECK(aux[t] == want_aux, "thread %d private element %d, want %d", t, aux[t], want_aux);
  }
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(daux));
  pass("noinline_calls");
  return 0;
}
