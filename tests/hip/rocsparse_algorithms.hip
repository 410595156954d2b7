// rocsparse_algorithms: Debian's prebuilt rocSPARSE library running its heavier algorithms on a
// sparse matrix generated here, each result compared with a CPU reference:
// - rocsparse_scsrsv_solve, lower triangular, plain and transposed: a level-scheduled solve
//   whose waves spin on flags that other work-groups set (forward progress across work-groups);
// - rocsparse_scsrilu0: incomplete LU factorisation, the same dependency scheme;
// - rocsparse_scsr2csc (rocPRIM radix sort underneath) and rocsparse_csrsort;
// - rocsparse_scsrgemm, C = A * A (hash tables in LDS, atomics);
// - rocsparse_sbsrmv after rocsparse_scsr2bsr for block sizes 2, 3, 4, 8, 16 and 32 (each has its
//   own kernel), and rocsparse_scoomv, rocsparse_sellmv, rocsparse_shybmv after conversions;
// - rocsparse_sgtsv (tridiagonal solve) and the generic rocsparse_spmv API.
// Tolerances: matrix and vector entries are multiples of 1/8 in [-2, 2] ("exact data"), so
// every product-and-sum result is exactly representable in float and must equal the CPU's
// (tolerance 0) whatever the summation order. The solves and the factorisation divide, so
// their results must be within 1e-5 (solves) or 1e-4 (ILU0, through 1212 rows of updates) of
// the double-precision CPU result, relative to max(1, |value|).
#include "hip_check.h"
#include <rocsparse/rocsparse.h>
#include <algorithm>
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
};

template <class T> static T *to_device(const std::vector<T> &v) {
  T *d;
  HIP_CHECK(hipMalloc(&d, std::max<size_t>(1, v.size()) * sizeof(T)));
  HIP_CHECK(hipMemcpy(d, v.data(), v.size() * sizeof(T), hipMemcpyHostToDevice));
  return d;
}

template <class T> static std::vector<T> to_host(const T *d, size_t n) {
  std::vector<T> v(n);
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(v.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
  return v;
}

static void *scratch(size_t bytes) {
  void *p;
  HIP_CHECK(hipMalloc(&p, bytes + 16));
  return p;
}

// |got - want| <= tol * max(1, |want|) for every element.
static void compare(const char *what, const std::vector<float> &got,
                    const std::vector<double> &want, double tol) {
  CHECK(got.size() >= want.size(), "%s: %zu values, want %zu", what, got.size(), want.size());
  double worst = 0;
  for (size_t i = 0; i < want.size(); i++) {
    const double err = std::fabs((double)got[i] - want[i]);
    worst = std::max(worst, err);
    CHECK(err <= tol * std::max(1.0, std::fabs(want[i])), "%s: [%zu] = %.9g, want %.9g", what,
          i, got[i], want[i]);
  }
  std::printf("%s: %zu values match (tolerance %g, largest error %.3g)\n", what, want.size(), tol,
              worst);
}

struct Csr {
  int m, n;
  std::vector<int> row_ptr, col;
  std::vector<float> val;
  int nnz() const { return row_ptr[m]; }
};

int main() {
  // 1212, not more: the same kernels run as with 1500 on every target (docs/notes/ci-time.md,
  // Round 24; 1000 loses csrgemm's largest row bin and a rocPRIM block sort size), and 1212
  // leaves 1500's remainders modulo each bsrmv block size (partial block rows for 8, 16, 32).
  const int m = 1212, n = 1212;
  Lcg rng{42};
  // 0 to 19 entries a row, one row with 900: short-row and long-row paths.
  Csr a{m, n, {0}, {}, {}};
  for (int r = 0; r < m; r++) {
    int need = r == 700 ? 900 : (int)rng.below(20);
    for (int c = 0; c < n && need > 0; c++) {
      if ((int)rng.below((uint32_t)(n - c)) < need) {
        a.col.push_back(c);
        a.val.push_back(rng.eighths());
        need--;
      }
    }
    a.row_ptr.push_back((int)a.col.size());
  }
  const int nnz = a.nnz();
  std::vector<float> x(n);
  for (float &v : x)
    v = rng.eighths();
  std::vector<double> ax(m); // A*x, exact
  for (int r = 0; r < m; r++)
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++)
      ax[r] += (double)a.val[k] * x[a.col[k]];
  std::printf("matrix %d x %d, %d non-zeros\n", m, n, nnz);

  rocsparse_handle h;
  SPARSE_CHECK(rocsparse_create_handle(&h));
  rocsparse_mat_descr descr;
  SPARSE_CHECK(rocsparse_create_mat_descr(&descr));
  int *d_rp = to_device(a.row_ptr), *d_col = to_device(a.col);
  float *d_val = to_device(a.val), *d_x = to_device(x);
  const float one = 1.0f, zero = 0.0f;

  // 1. Triangular solves with L = strictly-lower part of A / 16 plus 2 on the diagonal.
  {
    std::vector<int> rp{0}, col;
    std::vector<float> val;
    for (int r = 0; r < m; r++) {
      for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++) {
        if (a.col[k] < r) {
          col.push_back(a.col[k]);
          val.push_back(a.val[k] / 16);
        }
      }
      col.push_back(r);
      val.push_back(2.0f);
      rp.push_back((int)col.size());
    }
    const int lnnz = rp[m];
    int *d_lrp = to_device(rp), *d_lcol = to_device(col);
    float *d_lval = to_device(val);
    rocsparse_mat_descr ldescr;
    SPARSE_CHECK(rocsparse_create_mat_descr(&ldescr));
    SPARSE_CHECK(rocsparse_set_mat_fill_mode(ldescr, rocsparse_fill_mode_lower));
    float *d_y;
    HIP_CHECK(hipMalloc(&d_y, m * sizeof(float)));
    for (rocsparse_operation op : {rocsparse_operation_none, rocsparse_operation_transpose}) {
      rocsparse_mat_info info;
      SPARSE_CHECK(rocsparse_create_mat_info(&info));
      size_t bytes = 0;
      SPARSE_CHECK(rocsparse_scsrsv_buffer_size(h, op, m, lnnz, ldescr, d_lval, d_lrp, d_lcol,
                                                info, &bytes));
      void *buf = scratch(bytes);
      SPARSE_CHECK(rocsparse_scsrsv_analysis(h, op, m, lnnz, ldescr, d_lval, d_lrp, d_lcol, info,
                                             rocsparse_analysis_policy_force,
                                             rocsparse_solve_policy_auto, buf));
      SPARSE_CHECK(rocsparse_scsrsv_solve(h, op, m, lnnz, &one, ldescr, d_lval, d_lrp, d_lcol,
                                          info, d_x, d_y, rocsparse_solve_policy_auto, buf));
      rocsparse_int pivot = 0;
      SPARSE_CHECK(rocsparse_csrsv_zero_pivot(h, ldescr, info, &pivot));
      CHECK(pivot == -1, "csrsv reports a zero pivot at %d", pivot);
      std::vector<double> want(m);
      if (op == rocsparse_operation_none) { // forward substitution
        for (int r = 0; r < m; r++) {
          double s = x[r];
          for (int k = rp[r]; k < rp[r + 1] - 1; k++)
            s -= val[k] * want[col[k]];
          want[r] = s / 2.0;
        }
      } else { // L^T y = x: backward, scattering each solved value up the column
        std::vector<double> b(x.begin(), x.end());
        for (int r = m - 1; r >= 0; r--) {
          want[r] = b[r] / 2.0;
          for (int k = rp[r]; k < rp[r + 1] - 1; k++)
            b[col[k]] -= val[k] * want[r];
        }
      }
      compare(op == rocsparse_operation_none ? "csrsv L y = x" : "csrsv L^T y = x",
              to_host(d_y, m), want, 1e-5);
      SPARSE_CHECK(rocsparse_destroy_mat_info(info));
      HIP_CHECK(hipFree(buf));
    }
    HIP_CHECK(hipFree(d_y));
    HIP_CHECK(hipFree(d_lrp));
    HIP_CHECK(hipFree(d_lcol));
    HIP_CHECK(hipFree(d_lval));
    SPARSE_CHECK(rocsparse_destroy_mat_descr(ldescr));
  }

  // 2. ILU0 of A with 64 on the diagonal (diagonally dominant, so no pivoting is needed).
  {
    std::vector<int> rp{0}, col, diag(m);
    std::vector<float> val;
    for (int r = 0; r < m; r++) {
      bool placed = false;
      for (int k = a.row_ptr[r]; k <= a.row_ptr[r + 1]; k++) {
        const int c = k < a.row_ptr[r + 1] ? a.col[k] : n;
        if (!placed && c >= r) {
          diag[r] = (int)col.size();
          col.push_back(r);
          val.push_back(64.0f);
          placed = true;
          if (c == r)
            continue;
        }
        if (k < a.row_ptr[r + 1]) {
          col.push_back(c);
          val.push_back(a.val[k]);
        }
      }
      rp.push_back((int)col.size());
    }
    const int innz = rp[m];
    int *d_irp = to_device(rp), *d_icol = to_device(col);
    float *d_ival = to_device(val);
    rocsparse_mat_info info;
    SPARSE_CHECK(rocsparse_create_mat_info(&info));
    size_t bytes = 0;
    SPARSE_CHECK(
        rocsparse_scsrilu0_buffer_size(h, m, innz, descr, d_ival, d_irp, d_icol, info, &bytes));
    void *buf = scratch(bytes);
    SPARSE_CHECK(rocsparse_scsrilu0_analysis(h, m, innz, descr, d_ival, d_irp, d_icol, info,
                                             rocsparse_analysis_policy_force,
                                             rocsparse_solve_policy_auto, buf));
    SPARSE_CHECK(rocsparse_scsrilu0(h, m, innz, descr, d_ival, d_irp, d_icol, info,
                                    rocsparse_solve_policy_auto, buf));
    rocsparse_int pivot = 0;
    SPARSE_CHECK(rocsparse_csrilu0_zero_pivot(h, info, &pivot));
    CHECK(pivot == -1, "csrilu0 reports a zero pivot at %d", pivot);
    // ILU0, row by row (IKJ): L's entries are divided by the pivot, U's updated in place, fill
    // outside the pattern dropped.
    std::vector<double> lu(val.begin(), val.end());
    std::vector<int> where(n, -1);
    for (int i = 0; i < m; i++) {
      for (int k = rp[i]; k < rp[i + 1]; k++)
        where[col[k]] = k;
      for (int k = rp[i]; k < rp[i + 1] && col[k] < i; k++) {
        const int p = col[k];
        lu[k] /= lu[diag[p]];
        for (int j = diag[p] + 1; j < rp[p + 1]; j++)
          if (where[col[j]] >= 0)
            lu[where[col[j]]] -= lu[k] * lu[j];
      }
      for (int k = rp[i]; k < rp[i + 1]; k++)
        where[col[k]] = -1;
    }
    compare("csrilu0", to_host(d_ival, innz), lu, 1e-4);
    SPARSE_CHECK(rocsparse_destroy_mat_info(info));
    HIP_CHECK(hipFree(buf));
    HIP_CHECK(hipFree(d_irp));
    HIP_CHECK(hipFree(d_icol));
    HIP_CHECK(hipFree(d_ival));
  }

  // 3. csr2csc (a stable transpose) and csrsort (rows given in reverse column order).
  {
    size_t bytes = 0;
    SPARSE_CHECK(rocsparse_csr2csc_buffer_size(h, m, n, nnz, d_rp, d_col,
                                               rocsparse_action_numeric, &bytes));
    void *buf = scratch(bytes);
    float *d_cval;
    int *d_crow, *d_cptr;
    HIP_CHECK(hipMalloc(&d_cval, nnz * sizeof(float)));
    HIP_CHECK(hipMalloc(&d_crow, nnz * sizeof(int)));
    HIP_CHECK(hipMalloc(&d_cptr, (n + 1) * sizeof(int)));
    SPARSE_CHECK(rocsparse_scsr2csc(h, m, n, nnz, d_val, d_rp, d_col, d_cval, d_crow, d_cptr,
                                    rocsparse_action_numeric, rocsparse_index_base_zero, buf));
    std::vector<int> ptr(n + 1, 0), row(nnz);
    std::vector<float> cval(nnz);
    for (int c : a.col)
      ptr[c + 1]++;
    for (int c = 0; c < n; c++)
      ptr[c + 1] += ptr[c];
    std::vector<int> next(ptr.begin(), ptr.end() - 1);
    for (int r = 0; r < m; r++) {
      for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++) {
        const int p = next[a.col[k]]++;
        row[p] = r;
        cval[p] = a.val[k];
      }
    }
    const std::vector<int> got_ptr = to_host(d_cptr, n + 1), got_row = to_host(d_crow, nnz);
    const std::vector<float> got_val = to_host(d_cval, nnz);
    for (int c = 0; c <= n; c++)
      CHECK(got_ptr[c] == ptr[c], "csr2csc: col_ptr[%d] = %d, want %d", c, got_ptr[c], ptr[c]);
    for (int k = 0; k < nnz; k++)
      CHECK(got_row[k] == row[k] && got_val[k] == cval[k],
            "csr2csc: [%d] = (row %d, %g), want (row %d, %g)", k, got_row[k], got_val[k], row[k],
            cval[k]);
    std::printf("csr2csc: %d entries match\n", nnz);
    HIP_CHECK(hipFree(buf));

    std::vector<int> reversed = a.col;
    for (int r = 0; r < m; r++)
      std::reverse(reversed.begin() + a.row_ptr[r], reversed.begin() + a.row_ptr[r + 1]);
    int *d_rev = to_device(reversed), *d_perm;
    HIP_CHECK(hipMalloc(&d_perm, nnz * sizeof(int)));
    SPARSE_CHECK(rocsparse_csrsort_buffer_size(h, m, n, nnz, d_rp, d_rev, &bytes));
    buf = scratch(bytes);
    SPARSE_CHECK(rocsparse_create_identity_permutation(h, nnz, d_perm));
    SPARSE_CHECK(rocsparse_csrsort(h, m, n, nnz, descr, d_rp, d_rev, d_perm, buf));
    const std::vector<int> sorted = to_host(d_rev, nnz), perm = to_host(d_perm, nnz);
    for (int r = 0; r < m; r++) {
      for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++) {
        const int from = a.row_ptr[r] + a.row_ptr[r + 1] - 1 - k;
        CHECK(sorted[k] == a.col[k] && perm[k] == from,
              "csrsort: [%d] = (col %d, perm %d), want (col %d, perm %d)", k, sorted[k], perm[k],
              a.col[k], from);
      }
    }
    std::printf("csrsort: %d entries match\n", nnz);
    HIP_CHECK(hipFree(buf));
    HIP_CHECK(hipFree(d_rev));
    HIP_CHECK(hipFree(d_perm));
    HIP_CHECK(hipFree(d_cval));
    HIP_CHECK(hipFree(d_crow));
    HIP_CHECK(hipFree(d_cptr));
  }

  // 4. csrgemm: C = A * A (pattern and values; exact data, so tolerance 0).
  {
    rocsparse_mat_info info;
    SPARSE_CHECK(rocsparse_create_mat_info(&info));
    size_t bytes = 0;
    SPARSE_CHECK(rocsparse_scsrgemm_buffer_size(
        h, rocsparse_operation_none, rocsparse_operation_none, m, n, n, &one, descr, nnz, d_rp,
        d_col, descr, nnz, d_rp, d_col, nullptr, nullptr, 0, nullptr, nullptr, info, &bytes));
    void *buf = scratch(bytes);
    int *d_crp, *d_ccol;
    float *d_cval;
    HIP_CHECK(hipMalloc(&d_crp, (m + 1) * sizeof(int)));
    rocsparse_int cnnz = 0;
    SPARSE_CHECK(rocsparse_csrgemm_nnz(h, rocsparse_operation_none, rocsparse_operation_none, m,
                                       n, n, descr, nnz, d_rp, d_col, descr, nnz, d_rp, d_col,
                                       nullptr, 0, nullptr, nullptr, descr, d_crp, &cnnz, info,
                                       buf));
    HIP_CHECK(hipMalloc(&d_ccol, (cnnz + 1) * sizeof(int)));
    HIP_CHECK(hipMalloc(&d_cval, (cnnz + 1) * sizeof(float)));
    SPARSE_CHECK(rocsparse_scsrgemm(h, rocsparse_operation_none, rocsparse_operation_none, m, n,
                                    n, &one, descr, nnz, d_val, d_rp, d_col, descr, nnz, d_val,
                                    d_rp, d_col, nullptr, nullptr, 0, nullptr, nullptr, nullptr,
                                    descr, d_cval, d_crp, d_ccol, info, buf));
    const std::vector<int> crp = to_host(d_crp, m + 1), ccol = to_host(d_ccol, cnnz);
    const std::vector<float> cval = to_host(d_cval, cnnz);
    std::vector<double> acc(n, 0.0);
    std::vector<char> seen(n, 0);
    long total = 0;
    for (int r = 0; r < m; r++) {
      std::vector<int> cols;
      for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++) {
        const int j = a.col[k];
        for (int l = a.row_ptr[j]; l < a.row_ptr[j + 1]; l++) {
          if (!seen[a.col[l]]) {
            seen[a.col[l]] = 1;
            cols.push_back(a.col[l]);
          }
          acc[a.col[l]] += (double)a.val[k] * a.val[l];
        }
      }
      std::sort(cols.begin(), cols.end());
      total += (long)cols.size();
      CHECK(crp[r + 1] - crp[r] == (int)cols.size(), "csrgemm: row %d has %d entries, want %zu", r,
            crp[r + 1] - crp[r], cols.size());
      for (size_t i = 0; i < cols.size(); i++) {
        const int k = crp[r] + (int)i;
        CHECK(ccol[k] == cols[i] && cval[k] == acc[cols[i]],
              "csrgemm: C[%d] entry %zu = (col %d, %g), want (col %d, %g)", r, i, ccol[k],
              cval[k], cols[i], acc[cols[i]]);
      }
      for (int c : cols) {
        acc[c] = 0;
        seen[c] = 0;
      }
    }
    CHECK(cnnz == total, "csrgemm: %d non-zeros, want %ld", cnnz, total);
    std::printf("csrgemm: C = A*A, %d non-zeros match\n", cnnz);
    SPARSE_CHECK(rocsparse_destroy_mat_info(info));
    HIP_CHECK(hipFree(buf));
    HIP_CHECK(hipFree(d_crp));
    HIP_CHECK(hipFree(d_ccol));
    HIP_CHECK(hipFree(d_cval));
  }

  // 5. SpMV in other formats: BSR (each block size has its own kernel), COO, ELL, HYB, and the
  //    generic API's CSR algorithms. Exact data: tolerance 0.
  {
    for (int bd : {2, 3, 4, 8, 16, 32}) {
      const int mb = (m + bd - 1) / bd, nb = (n + bd - 1) / bd;
      rocsparse_mat_descr bdescr;
      SPARSE_CHECK(rocsparse_create_mat_descr(&bdescr));
      int *d_brp, *d_bcol;
      float *d_bval;
      HIP_CHECK(hipMalloc(&d_brp, (mb + 1) * sizeof(int)));
      rocsparse_int nnzb = 0;
      SPARSE_CHECK(rocsparse_csr2bsr_nnz(h, rocsparse_direction_row, m, n, descr, d_rp, d_col, bd,
                                         bdescr, d_brp, &nnzb));
      HIP_CHECK(hipMalloc(&d_bcol, nnzb * sizeof(int)));
      HIP_CHECK(hipMalloc(&d_bval, (size_t)nnzb * bd * bd * sizeof(float)));
      SPARSE_CHECK(rocsparse_scsr2bsr(h, rocsparse_direction_row, m, n, descr, d_val, d_rp, d_col,
                                      bd, bdescr, d_bval, d_brp, d_bcol));
      std::vector<float> xpad((size_t)nb * bd, 0.0f);
      std::copy(x.begin(), x.end(), xpad.begin());
      float *d_xpad = to_device(xpad), *d_y;
      HIP_CHECK(hipMalloc(&d_y, (size_t)mb * bd * sizeof(float)));
      SPARSE_CHECK(rocsparse_sbsrmv(h, rocsparse_direction_row, rocsparse_operation_none, mb, nb,
                                    nnzb, &one, bdescr, d_bval, d_brp, d_bcol, bd, d_xpad, &zero,
                                    d_y));
      char what[32];
      std::snprintf(what, sizeof what, "bsrmv %dx%d blocks", bd, bd);
      compare(what, to_host(d_y, (size_t)mb * bd), ax, 0.0);
      HIP_CHECK(hipFree(d_brp));
      HIP_CHECK(hipFree(d_bcol));
      HIP_CHECK(hipFree(d_bval));
      HIP_CHECK(hipFree(d_xpad));
      HIP_CHECK(hipFree(d_y));
      SPARSE_CHECK(rocsparse_destroy_mat_descr(bdescr));
    }
    float *d_y;
    HIP_CHECK(hipMalloc(&d_y, m * sizeof(float)));

    std::vector<int> coo_row(nnz);
    for (int r = 0; r < m; r++)
      for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++)
        coo_row[k] = r;
    int *d_coo_row = to_device(coo_row);
    SPARSE_CHECK(rocsparse_scoomv(h, rocsparse_operation_none, m, n, nnz, &one, descr, d_val,
                                  d_coo_row, d_col, d_x, &zero, d_y));
    compare("coomv", to_host(d_y, m), ax, 0.0);
    HIP_CHECK(hipFree(d_coo_row));

    rocsparse_mat_descr edescr;
    SPARSE_CHECK(rocsparse_create_mat_descr(&edescr));
    rocsparse_int width = 0;
    SPARSE_CHECK(rocsparse_csr2ell_width(h, m, descr, d_rp, edescr, &width));
    CHECK(width == 900, "csr2ell_width = %d, want 900 (the longest row)", width);
    float *d_eval;
    int *d_ecol;
    HIP_CHECK(hipMalloc(&d_eval, (size_t)width * m * sizeof(float)));
    HIP_CHECK(hipMalloc(&d_ecol, (size_t)width * m * sizeof(int)));
    SPARSE_CHECK(
        rocsparse_scsr2ell(h, m, descr, d_val, d_rp, d_col, edescr, width, d_eval, d_ecol));
    SPARSE_CHECK(rocsparse_sellmv(h, rocsparse_operation_none, m, n, &one, edescr, d_eval, d_ecol,
                                  width, d_x, &zero, d_y));
    compare("ellmv", to_host(d_y, m), ax, 0.0);
    HIP_CHECK(hipFree(d_eval));
    HIP_CHECK(hipFree(d_ecol));
    SPARSE_CHECK(rocsparse_destroy_mat_descr(edescr));

    rocsparse_hyb_mat hyb;
    SPARSE_CHECK(rocsparse_create_hyb_mat(&hyb));
    SPARSE_CHECK(rocsparse_scsr2hyb(h, m, n, descr, d_val, d_rp, d_col, hyb, 0,
                                    rocsparse_hyb_partition_auto));
    SPARSE_CHECK(rocsparse_shybmv(h, rocsparse_operation_none, &one, descr, hyb, d_x, &zero, d_y));
    compare("hybmv", to_host(d_y, m), ax, 0.0);
    SPARSE_CHECK(rocsparse_destroy_hyb_mat(hyb));

    rocsparse_spmat_descr mat;
    rocsparse_dnvec_descr vx, vy;
    SPARSE_CHECK(rocsparse_create_csr_descr(&mat, m, n, nnz, d_rp, d_col, d_val,
                                            rocsparse_indextype_i32, rocsparse_indextype_i32,
                                            rocsparse_index_base_zero, rocsparse_datatype_f32_r));
    SPARSE_CHECK(rocsparse_create_dnvec_descr(&vx, n, d_x, rocsparse_datatype_f32_r));
    SPARSE_CHECK(rocsparse_create_dnvec_descr(&vy, m, d_y, rocsparse_datatype_f32_r));
    for (rocsparse_spmv_alg alg : {rocsparse_spmv_alg_csr_adaptive, rocsparse_spmv_alg_csr_stream}) {
      HIP_CHECK(hipMemset(d_y, 0xff, m * sizeof(float))); // NaNs, so beta = 0 must ignore them
      size_t bytes = 0;
      SPARSE_CHECK(rocsparse_spmv(h, rocsparse_operation_none, &one, mat, vx, &zero, vy,
                                  rocsparse_datatype_f32_r, alg, &bytes, nullptr));
      void *buf = scratch(bytes);
      SPARSE_CHECK(rocsparse_spmv(h, rocsparse_operation_none, &one, mat, vx, &zero, vy,
                                  rocsparse_datatype_f32_r, alg, &bytes, buf));
      compare(alg == rocsparse_spmv_alg_csr_adaptive ? "spmv (csr adaptive)" : "spmv (csr stream)",
              to_host(d_y, m), ax, 0.0);
      HIP_CHECK(hipFree(buf));
    }
    SPARSE_CHECK(rocsparse_destroy_spmat_descr(mat));
    SPARSE_CHECK(rocsparse_destroy_dnvec_descr(vx));
    SPARSE_CHECK(rocsparse_destroy_dnvec_descr(vy));
    HIP_CHECK(hipFree(d_y));
  }

  // 6. gtsv: a diagonally dominant tridiagonal system of 512 rows, 3 right-hand sides; the
  //    solution, multiplied back by the matrix on the CPU, must give the right-hand sides.
  {
    const int mm = 512, nrhs = 3;
    std::vector<float> dl(mm), d(mm), du(mm), b((size_t)mm * nrhs);
    for (int i = 0; i < mm; i++) {
      dl[i] = i > 0 ? rng.eighths() : 0.0f;
      du[i] = i < mm - 1 ? rng.eighths() : 0.0f;
      d[i] = 8.0f + rng.eighths();
    }
    for (float &v : b)
      v = rng.eighths();
    float *d_dl = to_device(dl), *d_d = to_device(d), *d_du = to_device(du), *d_b = to_device(b);
    size_t bytes = 0;
    SPARSE_CHECK(rocsparse_sgtsv_buffer_size(h, mm, nrhs, d_dl, d_d, d_du, d_b, mm, &bytes));
    void *buf = scratch(bytes);
    SPARSE_CHECK(rocsparse_sgtsv(h, mm, nrhs, d_dl, d_d, d_du, d_b, mm, buf));
    const std::vector<float> sol = to_host(d_b, (size_t)mm * nrhs);
    std::vector<double> back((size_t)mm * nrhs);
    for (int j = 0; j < nrhs; j++) {
      const float *s = &sol[(size_t)j * mm];
      for (int i = 0; i < mm; i++)
        back[(size_t)j * mm + i] = (double)d[i] * s[i] + (i > 0 ? (double)dl[i] * s[i - 1] : 0) +
                                   (i < mm - 1 ? (double)du[i] * s[i + 1] : 0);
    }
    std::vector<double> rhs(b.begin(), b.end());
    std::vector<float> back_f(back.begin(), back.end());
    compare("gtsv (A * solution = rhs)", back_f, rhs, 1e-5);
    HIP_CHECK(hipFree(buf));
    HIP_CHECK(hipFree(d_dl));
    HIP_CHECK(hipFree(d_d));
    HIP_CHECK(hipFree(d_du));
    HIP_CHECK(hipFree(d_b));
  }

  SPARSE_CHECK(rocsparse_destroy_mat_descr(descr));
  SPARSE_CHECK(rocsparse_destroy_handle(h));
  HIP_CHECK(hipFree(d_rp));
  HIP_CHECK(hipFree(d_col));
  HIP_CHECK(hipFree(d_val));
  HIP_CHECK(hipFree(d_x));
  pass("rocsparse_algorithms");
  return 0;
}
