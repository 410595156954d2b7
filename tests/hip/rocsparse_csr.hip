// rocsparse_csr: Debian's prebuilt rocSPARSE library (librocsparse0, its own code objects for
// gfx803…gfx90a) on a sparse matrix generated here, each result compared with a CPU reference:
// - rocsparse_scsrmv, y = alpha*A*x + beta*y, without analysis (the row-per-subwarp kernel),
//   after rocsparse_scsrmv_analysis (the adaptive kernel, whose long rows are split across
//   work-groups), and transposed (y = alpha*A^T*x + beta*y, scattered with atomics);
// - rocsparse_dcsrmv (double, adaptive);
// - rocsparse_scsrmm, C = alpha*A*B + beta*C with a dense column-major B;
// - rocsparse_csr2coo and rocsparse_coo2csr (index conversions);
// - rocsparse_saxpyi, rocsparse_sgthr and rocsparse_sdoti (sparse level 1).
// Tolerances: the "exact" data are multiples of 1/8 in [-2, 2], so every product and partial
// sum is a multiple of 1/128 below 2^15 and exactly representable in float: those results must
// be bit-identical to the CPU's whatever order the GPU sums in (tolerance 0). For general data
// (uniform in [-1, 1]) a float result may differ from the double CPU sum by at most
// 1e-5 * (sum of |terms|), a double one by 1e-13 * (sum of |terms|).
#include "hip_check.h"
#include <rocsparse/rocsparse.h>
#include <cstdint>
#include <vector>

#define SPARSE_CHECK(call)                                                             \
  do {                                                                                 \
    rocsparse_status sparse_check_st_ = (call);                                        \
    CHECK(sparse_check_st_ == rocsparse_status_success, "%s returned status %d", #call, \
          (int)sparse_check_st_);                                                      \
  } while (0)

// A small deterministic generator for the test data (64-bit LCG, high bits).
struct Lcg {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(s >> 33);
  }
  uint32_t below(uint32_t n) { return next() % n; }
  float eighths() { return ((int)below(33) - 16) / 8.0f; } // k/8, k in [-16, 16]
  float unit() { return (float)((double)next() / 2147483648.0 * 2.0 - 1.0); }
};

struct Csr {
  int m, n;
  std::vector<int> row_ptr, col;
};

// Rows of 0 to 40 entries, every 97th row empty, a few rows of ~10% density and one row with
// most columns set, so the kernels' short-row, long-row and empty-row paths all run.
static Csr make_matrix(int m, int n, Lcg &rng) {
  Csr a{m, n, {0}, {}};
  for (int r = 0; r < m; r++) {
    int len = (int)rng.below(41);
    if (r % 97 == 0)
      len = 0;
    if (r % 401 == 7)
      len = n / 10;
    if (r == m / 2)
      len = n * 3 / 4;
    // `len` distinct sorted columns: walk the columns, taking each with probability len/left.
    int need = len;
    for (int c = 0; c < n && need > 0; c++) {
      if ((int)rng.below((uint32_t)(n - c)) < need) {
        a.col.push_back(c);
        need--;
      }
    }
    a.row_ptr.push_back((int)a.col.size());
  }
  return a;
}

template <class T> static T *to_device(const std::vector<T> &v) {
  T *d;
  HIP_CHECK(hipMalloc(&d, v.size() * sizeof(T)));
  HIP_CHECK(hipMemcpy(d, v.data(), v.size() * sizeof(T), hipMemcpyHostToDevice));
  return d;
}

template <class T> static std::vector<T> to_host(const T *d, size_t n) {
  std::vector<T> v(n);
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(v.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
  return v;
}

// y = alpha*op(A)*x + beta*y in double; also sum |terms| for the tolerance.
template <class T>
static void csrmv_ref(const Csr &a, const std::vector<T> &val, bool transpose, double alpha,
                      const std::vector<T> &x, double beta, const std::vector<T> &y0,
                      std::vector<double> &y, std::vector<double> &mag) {
  y.assign(y0.size(), 0.0);
  mag.assign(y0.size(), 0.0);
  for (size_t i = 0; i < y0.size(); i++) {
    y[i] = beta * y0[i];
    mag[i] = std::fabs(beta * y0[i]);
  }
  for (int r = 0; r < a.m; r++) {
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++) {
      const int out = transpose ? a.col[k] : r, in = transpose ? r : a.col[k];
      const double t = alpha * (double)val[k] * (double)x[in];
      y[out] += t;
      mag[out] += std::fabs(t);
    }
  }
}

template <class T>
static void compare(const char *what, const std::vector<T> &got, const std::vector<double> &want,
                    const std::vector<double> &mag, double rel) {
  for (size_t i = 0; i < want.size(); i++) {
    const double err = std::fabs((double)got[i] - want[i]);
    CHECK(err <= rel * mag[i], "%s: y[%zu] = %.17g, want %.17g (error %.3g > %.3g)", what, i,
          (double)got[i], want[i], err, rel * mag[i]);
  }
  std::printf("%s: %zu values match (tolerance %g x sum|terms|)\n", what, want.size(), rel);
}

int main() {
  const int m = 3000, n = 2000;
  Lcg rng{12345};
  const Csr a = make_matrix(m, n, rng);
  const int nnz = a.row_ptr[m];
  std::vector<float> val_exact(nnz), val_f(nnz);
  std::vector<double> val_d(nnz);
  for (int k = 0; k < nnz; k++) {
    val_exact[k] = rng.eighths();
    val_f[k] = rng.unit();
    val_d[k] = (double)rng.unit() + rng.unit() * 1e-8;
  }
  std::vector<float> xn_exact(n), xm_exact(m), yn_exact(n), ym_exact(m), xn_f(n), ym_f(m);
  std::vector<double> xn_d(n), ym_d(m);
  for (int i = 0; i < n; i++) {
    xn_exact[i] = rng.eighths();
    yn_exact[i] = rng.eighths();
    xn_f[i] = rng.unit();
    xn_d[i] = rng.unit();
  }
  for (int i = 0; i < m; i++) {
    xm_exact[i] = rng.eighths();
    ym_exact[i] = rng.eighths();
    ym_f[i] = rng.unit();
    ym_d[i] = rng.unit();
  }
  std::printf("matrix %d x %d, %d non-zeros\n", m, n, nnz);

  rocsparse_handle handle;
  SPARSE_CHECK(rocsparse_create_handle(&handle));
  int version = 0;
  SPARSE_CHECK(rocsparse_get_version(handle, &version));
  std::printf("rocSPARSE %d.%d.%d\n", version / 100000, version / 100 % 1000, version % 100);
  rocsparse_mat_descr descr;
  SPARSE_CHECK(rocsparse_create_mat_descr(&descr));

  int *d_row_ptr = to_device(a.row_ptr), *d_col = to_device(a.col);
  float *d_val_exact = to_device(val_exact), *d_val_f = to_device(val_f);
  double *d_val_d = to_device(val_d);
  std::vector<double> want, mag;

  // 1. scsrmv without analysis, exact data: bit-identical.
  {
    const float alpha = 2.0f, beta = -0.5f;
    float *dx = to_device(xn_exact), *dy = to_device(ym_exact);
    SPARSE_CHECK(rocsparse_scsrmv(handle, rocsparse_operation_none, m, n, nnz, &alpha, descr,
                                  d_val_exact, d_row_ptr, d_col, nullptr, dx, &beta, dy));
    csrmv_ref(a, val_exact, false, alpha, xn_exact, beta, ym_exact, want, mag);
    compare("scsrmv (exact data)", to_host(dy, m), want, mag, 0.0);
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
  }

  // 2. scsrmv after analysis (adaptive), exact data, then general data.
  rocsparse_mat_info info;
  SPARSE_CHECK(rocsparse_create_mat_info(&info));
  SPARSE_CHECK(rocsparse_scsrmv_analysis(handle, rocsparse_operation_none, m, n, nnz, descr,
                                         d_val_exact, d_row_ptr, d_col, info));
  {
    const float alpha = -1.5f, beta = 0.25f;
    float *dx = to_device(xn_exact), *dy = to_device(ym_exact);
    SPARSE_CHECK(rocsparse_scsrmv(handle, rocsparse_operation_none, m, n, nnz, &alpha, descr,
                                  d_val_exact, d_row_ptr, d_col, info, dx, &beta, dy));
    csrmv_ref(a, val_exact, false, alpha, xn_exact, beta, ym_exact, want, mag);
    compare("scsrmv adaptive (exact data)", to_host(dy, m), want, mag, 0.0);
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
  }
  {
    const float alpha = 0.75f, beta = 1.0f;
    float *dx = to_device(xn_f), *dy = to_device(ym_f);
    SPARSE_CHECK(rocsparse_scsrmv(handle, rocsparse_operation_none, m, n, nnz, &alpha, descr,
                                  d_val_f, d_row_ptr, d_col, info, dx, &beta, dy));
    csrmv_ref(a, val_f, false, alpha, xn_f, beta, ym_f, want, mag);
    compare("scsrmv adaptive (general data)", to_host(dy, m), want, mag, 1e-5);
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
  }
  SPARSE_CHECK(rocsparse_destroy_mat_info(info));

  // 3. Transposed scsrmv (no analysis): y (n) = alpha*A^T*x (m) + beta*y, exact data.
  {
    const float alpha = 1.0f, beta = 2.0f;
    float *dx = to_device(xm_exact), *dy = to_device(yn_exact);
    SPARSE_CHECK(rocsparse_scsrmv(handle, rocsparse_operation_transpose, m, n, nnz, &alpha,
                                  descr, d_val_exact, d_row_ptr, d_col, nullptr, dx, &beta, dy));
    csrmv_ref(a, val_exact, true, alpha, xm_exact, beta, yn_exact, want, mag);
    compare("scsrmv transposed (exact data)", to_host(dy, n), want, mag, 0.0);
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
  }

  // 4. dcsrmv after analysis, general data.
  {
    rocsparse_mat_info dinfo;
    SPARSE_CHECK(rocsparse_create_mat_info(&dinfo));
    SPARSE_CHECK(rocsparse_dcsrmv_analysis(handle, rocsparse_operation_none, m, n, nnz, descr,
                                           d_val_d, d_row_ptr, d_col, dinfo));
    const double alpha = 1.25, beta = -0.375;
    double *dx = to_device(xn_d), *dy = to_device(ym_d);
    SPARSE_CHECK(rocsparse_dcsrmv(handle, rocsparse_operation_none, m, n, nnz, &alpha, descr,
                                  d_val_d, d_row_ptr, d_col, dinfo, dx, &beta, dy));
    csrmv_ref(a, val_d, false, alpha, xn_d, beta, ym_d, want, mag);
    compare("dcsrmv adaptive (general data)", to_host(dy, m), want, mag, 1e-13);
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
    SPARSE_CHECK(rocsparse_destroy_mat_info(dinfo));
  }

  // 5. scsrmm: C (m x nb) = alpha*A*B + beta*C, B (n x nb) and C column-major, exact data.
  {
    const int nb = 8;
    std::vector<float> b((size_t)n * nb), c0((size_t)m * nb);
    for (float &v : b)
      v = rng.eighths();
    for (float &v : c0)
      v = rng.eighths();
    const float alpha = 0.5f, beta = -1.0f;
    float *db = to_device(b), *dc = to_device(c0);
    SPARSE_CHECK(rocsparse_scsrmm(handle, rocsparse_operation_none, rocsparse_operation_none, m,
                                  nb, n, nnz, &alpha, descr, d_val_exact, d_row_ptr, d_col, db, n,
                                  &beta, dc, m));
    const std::vector<float> c = to_host(dc, (size_t)m * nb);
    for (int j = 0; j < nb; j++) {
      for (int r = 0; r < m; r++) {
        double s = beta * c0[(size_t)j * m + r];
        for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++)
          s += alpha * (double)val_exact[k] * b[(size_t)j * n + a.col[k]];
        CHECK(c[(size_t)j * m + r] == s, "scsrmm: C[%d][%d] = %.9g, want %.9g", r, j,
              c[(size_t)j * m + r], s);
      }
    }
    std::printf("scsrmm (exact data): %d x %d values match\n", m, nb);
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dc));
  }

  // 6. csr2coo, then coo2csr back.
  {
    int *d_coo_row;
    HIP_CHECK(hipMalloc(&d_coo_row, nnz * sizeof(int)));
    SPARSE_CHECK(
        rocsparse_csr2coo(handle, d_row_ptr, nnz, m, d_coo_row, rocsparse_index_base_zero));
    const std::vector<int> coo_row = to_host(d_coo_row, nnz);
    for (int r = 0; r < m; r++)
      for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++)
        CHECK(coo_row[k] == r, "csr2coo: row index [%d] = %d, want %d", k, coo_row[k], r);
    int *d_row_ptr2;
    HIP_CHECK(hipMalloc(&d_row_ptr2, (m + 1) * sizeof(int)));
    SPARSE_CHECK(
        rocsparse_coo2csr(handle, d_coo_row, nnz, m, d_row_ptr2, rocsparse_index_base_zero));
    const std::vector<int> row_ptr2 = to_host(d_row_ptr2, m + 1);
    for (int r = 0; r <= m; r++)
      CHECK(row_ptr2[r] == a.row_ptr[r], "coo2csr: row_ptr[%d] = %d, want %d", r, row_ptr2[r],
            a.row_ptr[r]);
    std::printf("csr2coo / coo2csr: %d row indices and %d offsets match\n", nnz, m + 1);
    HIP_CHECK(hipFree(d_coo_row));
    HIP_CHECK(hipFree(d_row_ptr2));
  }

  // 7. Level 1 on a sparse vector of 500 distinct indices into a dense vector of 20000,
  //    exact data: y += alpha*x (axpyi), gather y at the indices (gthr), x . y (doti).
  {
    const int len = 20000, sp = 500;
    std::vector<int> ind;
    for (int i = 0; i < len && (int)ind.size() < sp; i++)
      if ((int)rng.below((uint32_t)(len - i)) < sp - (int)ind.size())
        ind.push_back(i);
    std::vector<float> xv(sp), y(len);
    for (float &v : xv)
      v = rng.eighths();
    for (float &v : y)
      v = rng.eighths();
    int *d_ind = to_device(ind);
    float *d_xv = to_device(xv), *d_y = to_device(y), *d_g;
    HIP_CHECK(hipMalloc(&d_g, sp * sizeof(float)));
    const float alpha = -3.0f;
    SPARSE_CHECK(rocsparse_saxpyi(handle, sp, &alpha, d_xv, d_ind, d_y, rocsparse_index_base_zero));
    std::vector<float> y_want = y;
    for (int i = 0; i < sp; i++)
      y_want[ind[i]] += alpha * xv[i];
    const std::vector<float> y_got = to_host(d_y, len);
    for (int i = 0; i < len; i++)
      CHECK(y_got[i] == y_want[i], "saxpyi: y[%d] = %g, want %g", i, y_got[i], y_want[i]);
    SPARSE_CHECK(rocsparse_sgthr(handle, sp, d_y, d_g, d_ind, rocsparse_index_base_zero));
    const std::vector<float> g = to_host(d_g, sp);
    for (int i = 0; i < sp; i++)
      CHECK(g[i] == y_want[ind[i]], "sgthr: [%d] = %g, want %g", i, g[i], y_want[ind[i]]);
    float dot = 0.0f;
    SPARSE_CHECK(rocsparse_sdoti(handle, sp, d_xv, d_ind, d_y, &dot, rocsparse_index_base_zero));
    double dot_want = 0;
    for (int i = 0; i < sp; i++)
      dot_want += (double)xv[i] * y_want[ind[i]];
    CHECK(dot == dot_want, "sdoti = %.9g, want %.9g", dot, dot_want);
    std::printf("saxpyi / sgthr / sdoti: %d-element sparse vector matches (dot %g)\n", sp, dot);
    HIP_CHECK(hipFree(d_ind));
    HIP_CHECK(hipFree(d_xv));
    HIP_CHECK(hipFree(d_y));
    HIP_CHECK(hipFree(d_g));
  }

  SPARSE_CHECK(rocsparse_destroy_mat_descr(descr));
  SPARSE_CHECK(rocsparse_destroy_handle(handle));
  HIP_CHECK(hipFree(d_row_ptr));
  HIP_CHECK(hipFree(d_col));
  HIP_CHECK(hipFree(d_val_exact));
  HIP_CHECK(hipFree(d_val_f));
  HIP_CHECK(hipFree(d_val_d));
  pass("rocsparse_csr");
  return 0;
}
