/*
 * banded.c: banded Cholesky solve of A x = b, A = J D J^T symmetric
 * positive semi-definite, with LAPACK's dpbtrf/dpbtrs (through LAPACKE).
 *
 *   A = L L^T,  L lower triangular with the half-bandwidth kd of A,
 *   kd = max |i - j| over A's entries, in the rows' own order;
 *   x = L^-T L^-1 b.
 * Cost O(m kd^2) to factor and O(m kd) to solve, with no fill outside the
 * band: for a chain whose links are numbered along it A is tridiagonal
 * (kd = 1), and a factorisation is a few flops per row.  The solver takes
 * A's order as it is (no reordering), so it can pay only where the
 * constraints are numbered along a band.  Measured (make bench), it does
 * not pay even there: on chains, A tridiagonal, CHOLMOD's simplicial
 * factorisation and solve take 0.033 ms at 1000 rows against LAPACK's
 * 0.041 (dpbtrs, through BLAS-2 calls of bandwidth 1, is the slower
 * half), so solver=auto never picks it (stepper.c); on a grid numbered
 * row by row (kd ~ 2 N) it is 2.5 times slower than CHOLMOD at N = 100.
 *
 * Storage: LAPACK's lower band storage, column-major, leading dimension
 * kd + 1: A(i, j) at ab[(i - j) + j (kd + 1)] for j <= i <= j + kd.
 * kd is found when A->pattern changes (an analysis, counted in
 * info->analyses); the band grows (allocates) only when (kd + 1) m
 * exceeds what it has held before.
 *
 * Singular A: the dense solver's test (cholesky.c) on the pivots
 * L_jj^2 < rank_tol max_j A_jj (or dpbtrf's failure), then the factor of
 * A + delta I, delta = sqrt(rank_tol) max_j A_jj, and the minimum-norm
 * least-squares iteration of lsq.c, as in cholmod.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "cdyn/error.h"
#include "cdyn/solver.h"
#include "solvers/lsq.h"

/* Corrections of the least-squares iteration. */
#define MAXREF 60
/* The band allocated with the solver: rows of kd + 1 for this kd. */
#define KD0 4

typedef struct {
  size_t mcap, m, kd;
  double *ab;          /* cap doubles */
  size_t cap;
  unsigned long pattern;
  int have_pattern;
  double delta;
  unsigned rank;
  double *r, *u, *dx, *br; /* mcap each */
} band_state;

static void band_free(void *p)
{
  band_state *s = p;
  if (!s)
    return;
  free(s->ab);
  free(s->r);
  free(s->u);
  free(s->dx);
  free(s->br);
  free(s);
}

static int band_alloc(void **out, size_t m)
{
  band_state *s = calloc(1, sizeof *s);
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "banded: out of memory");
  size_t mm = m ? m : 1;
  s->mcap = m;
  s->cap = (KD0 + 1) * mm;
  s->ab = malloc(s->cap * sizeof(double));
  s->r = malloc(mm * sizeof(double));
  s->u = malloc(mm * sizeof(double));
  s->dx = malloc(mm * sizeof(double));
  s->br = malloc(mm * sizeof(double));
  if (!s->ab || !s->r || !s->u || !s->dx || !s->br) {
    band_free(s);
    return cdyn_error(CDYN_ENOMEM, "banded: out of memory for m = %zu", m);
  }
  *out = s;
  return CDYN_OK;
}

/* Scatter A (+ shift on the diagonal) into band storage and factor it. */
static lapack_int factor(band_state *s, const cdyn_matrix *A, double shift)
{
  size_t m = s->m, ld = s->kd + 1;
  memset(s->ab, 0, ld * m * sizeof(double));
  for (size_t i = 0; i < m; i++)
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      size_t j = (size_t)A->col[k];
      if (j <= i)
        s->ab[(i - j) + j * ld] = A->val[k] + (i == j ? shift : 0.0);
    }
  return LAPACKE_dpbtrf_work(LAPACK_COL_MAJOR, 'L', (lapack_int)m, (lapack_int)s->kd, s->ab, (lapack_int)ld);
}

static int band_setup(void *p, const cdyn_matrix *A, double rank_tol, const void *opts, cdyn_solve_info *info)
{
  (void)opts;
  band_state *s = p;
  size_t m = A->m;
  info->iterations = 0;
  if (m > s->mcap)
    return cdyn_error(CDYN_EINVAL, "banded: %zu rows, sized for %zu", m, s->mcap);
  if (!s->have_pattern || A->pattern != s->pattern) {
    size_t kd = cdyn_matrix_bandwidth(A);
    if (m && kd + 1 > ((size_t)-1) / sizeof(double) / m)
      return cdyn_error(CDYN_ENOMEM, "banded: a band of %zu by %zu is too large", kd + 1, m);
    if ((kd + 1) * m > s->cap) {
      double *ab = realloc(s->ab, (kd + 1) * m * sizeof(double));
      if (!ab)
        return cdyn_error(CDYN_ENOMEM, "banded: out of memory for a band of %zu by %zu", kd + 1, m);
      s->ab = ab;
      s->cap = (kd + 1) * m;
    }
    s->kd = kd;
    s->pattern = A->pattern;
    s->have_pattern = 1;
    info->analyses = 1;
  }
  s->m = m;
  double dmax = 0;
  for (size_t j = 0; j < m; j++)
    dmax = fmax(dmax, A->diag[j]);
  s->delta = 0;
  int singular = !(dmax > 0);
  if (!singular) {
    lapack_int rc = factor(s, A, 0.0);
    if (rc < 0)
      return cdyn_error(CDYN_ESOLVE, "banded: dpbtrf argument %d is invalid", (int)-rc);
    singular = rc > 0;
    for (size_t j = 0; j < m && !singular; j++) {
      double d = s->ab[j * (s->kd + 1)];
      singular = !(d * d > rank_tol * dmax);
    }
  }
  if (singular) {
    s->delta = sqrt(rank_tol) * (dmax > 0 ? dmax : 1.0);
    lapack_int rc = factor(s, A, s->delta);
    if (rc != 0)
      return cdyn_error(CDYN_ESOLVE, "banded: the shifted factorisation failed (dpbtrf info %d)", (int)rc);
    s->rank = 0;
    for (size_t j = 0; j < m; j++) {
      double d = s->ab[j * (s->kd + 1)];
      s->rank += d * d > 10 * s->delta;
    }
  } else {
    s->rank = (unsigned)m;
  }
  info->rank = s->rank;
  info->fallback = s->delta > 0;
  info->factorizations = 1;
  info->factor_nnz = m * (s->kd + 1); /* the band's storage */
  return CDYN_OK;
}

/* y = (A + delta I)^-1 b with the factor; y may be b. */
static int band_apply(void *ctx, const double *b, double *y)
{
  band_state *s = ctx;
  if (y != b)
    memcpy(y, b, s->m * sizeof(double));
  lapack_int rc = LAPACKE_dpbtrs_work(LAPACK_COL_MAJOR, 'L', (lapack_int)s->m, (lapack_int)s->kd, 1, s->ab,
                                      (lapack_int)(s->kd + 1), y, (lapack_int)s->m);
  if (rc != 0)
    return cdyn_error(CDYN_ESOLVE, "banded: dpbtrs failed (info %d)", (int)rc);
  return CDYN_OK;
}

static int band_solve(void *p, const cdyn_matrix *A, size_t nrhs, const double *b, double *x, double rank_tol,
                      const void *opts, cdyn_solve_info *info)
{
  (void)rank_tol;
  (void)opts;
  band_state *s = p;
  if (!s->have_pattern || s->m != A->m)
    return cdyn_error(CDYN_EINVAL, "banded: solve before setup");
  size_t m = A->m;
  unsigned long its = 0;
  for (size_t j = 0; j < nrhs; j++) {
    const double *bj = b + j * m;
    double *xj = x + j * m;
    int rc = s->delta > 0 ? cdyn_shifted_lsq(A, band_apply, s, s->delta, bj, xj, s->br, s->r, s->u, s->dx, MAXREF, &its)
                          : band_apply(s, bj, xj);
    if (rc)
      return rc;
  }
  int rc = cdyn_direct_report(A, nrhs, b, x, s->r, "banded", info);
  info->iterations = its;
  info->rank = s->rank;
  info->fallback = s->delta > 0;
  return rc;
}

const cdyn_solver_type cdyn_solver_banded = {
  .name = "banded",
  .description = "banded Cholesky (LAPACK dpbtrf) in the rows' own order; least squares when A is singular",
  .iterative = 0,
  .alloc = band_alloc,
  .free = band_free,
  .setup = band_setup,
  .solve = band_solve,
};
