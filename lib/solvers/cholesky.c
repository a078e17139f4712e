/*
 * cholesky.c: dense solve of A x = b, A = J D J^T symmetric positive
 * semi-definite, with LAPACKE.
 *
 *   A = L L^T (dpotrf), x = L^-T L^-1 b (dpotrs)       when A is definite;
 *   A = V diag(w) V^T (dsyev), x = V diag(w+) V^T b    otherwise,
 * where w+_j = 1 / w_j for w_j > rank_tol * max(w) and 0 else: the
 * minimum-norm least-squares solution, which is what redundant constraints
 * (duplicated rows, a closed loop with one link too many) need.  A is
 * taken as singular when dpotrf fails or a pivot L_jj^2 falls below
 * rank_tol * max_j A_jj.
 *
 * Storage is flat with leading dimension m.  A is symmetric, so its
 * row-major storage is also its column-major storage; calling the
 * column-major *_work entry points avoids the transposed copies (and the
 * allocations) that LAPACKE makes for row-major input.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "cdyn/error.h"
#include "cdyn/solver.h"
#include "solvers/lsq.h"

typedef struct {
  size_t mcap;   /* rows it is sized for */
  size_t m;      /* rows of the current A (at most mcap) */
  double *a;     /* mcap*mcap: the factor, or the eigenvectors */
  double *w;     /* m eigenvalues */
  double *y;     /* m */
  double *work;
  lapack_int lwork;
  int eig;       /* the eigen path is in use */
  double wtol;   /* eigenvalue cut-off */
  unsigned rank;
} chol_state;

static void chol_free(void *p)
{
  chol_state *s = p;
  if (!s)
    return;
  free(s->a);
  free(s->w);
  free(s->y);
  free(s->work);
  free(s);
}

static int chol_alloc(void **out, size_t m)
{
  chol_state *s = calloc(1, sizeof *s);
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "cholesky: out of memory");
  size_t mm = m ? m : 1;
  if (mm > 65536 || mm * mm > ((size_t)-1) / sizeof(double)) {
    chol_free(s);
    return cdyn_error(CDYN_EINVAL, "cholesky: %zu rows is beyond the dense solver's limit (65536)", m);
  }
  s->mcap = m;
  s->a = malloc(mm * mm * sizeof(double));
  s->w = malloc(mm * sizeof(double));
  s->y = malloc(mm * sizeof(double));
  if (!s->a || !s->w || !s->y) {
    chol_free(s);
    return cdyn_error(CDYN_ENOMEM, "cholesky: out of memory for m = %zu", m);
  }
  double q = 0;
  lapack_int info = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'L', (lapack_int)mm, s->a,
                                       (lapack_int)mm, s->w, &q, -1);
  if (info != 0) {
    chol_free(s);
    return cdyn_error(CDYN_ESOLVE, "cholesky: dsyev workspace query failed (info %d)", (int)info);
  }
  s->lwork = (lapack_int)q;
  s->work = malloc((size_t)(s->lwork > 0 ? s->lwork : 1) * sizeof(double));
  if (!s->work) {
    chol_free(s);
    return cdyn_error(CDYN_ENOMEM, "cholesky: out of memory for workspace");
  }
  *out = s;
  return CDYN_OK;
}

/* The dense A, leading dimension m, from the sparse one. */
static void scatter(chol_state *s, const cdyn_matrix *A)
{
  size_t m = s->m;
  memset(s->a, 0, m * m * sizeof(double));
  for (size_t i = 0; i < m; i++)
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      s->a[i * m + (size_t)A->col[k]] = A->val[k];
}

static int chol_setup(void *p, const cdyn_matrix *A, double rank_tol, const void *opts,
                      cdyn_solve_info *info)
{
  (void)opts;
  chol_state *s = p;
  if (A->m > s->mcap)
    return cdyn_error(CDYN_EINVAL, "cholesky: %zu rows, sized for %zu", A->m, s->mcap);
  size_t m = s->m = A->m;
  scatter(s, A);
  double dmax = 0;
  for (size_t j = 0; j < m; j++) {
    s->y[j] = s->a[j * m + j];
    if (s->y[j] > dmax)
      dmax = s->y[j];
  }
  s->eig = 1;
  if (dmax > 0) {
    lapack_int rc = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', (lapack_int)m, s->a, (lapack_int)m);
    if (rc == 0) {
      s->eig = 0;
      for (size_t j = 0; j < m; j++) {
        double piv = s->a[j * m + j];
        if (!(piv * piv > rank_tol * dmax)) {
          s->eig = 1;
          break;
        }
      }
    }
  }
  if (!s->eig) {
    s->rank = (unsigned)m;
  } else {
    scatter(s, A);
    lapack_int rc = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'L', (lapack_int)m, s->a,
                                       (lapack_int)m, s->w, s->work, s->lwork);
    if (rc != 0)
      return cdyn_error(CDYN_ESOLVE, "cholesky: eigen-decomposition failed (dsyev info %d)", (int)rc);
    double wmax = 0;
    for (size_t j = 0; j < m; j++)
      if (fabs(s->w[j]) > wmax)
        wmax = fabs(s->w[j]);
    s->wtol = rank_tol * wmax;
    s->rank = 0;
    for (size_t j = 0; j < m; j++)
      if (s->w[j] > s->wtol && wmax > 0)
        s->rank++;
  }
  info->rank = s->rank;
  info->fallback = s->eig;
  info->iterations = 0;
  info->factorizations = 1;
  /* the Cholesky factor's triangle, or the eigenvectors and eigenvalues */
  info->factor_nnz = s->eig ? m * m + m : m * (m + 1) / 2;
  return CDYN_OK;
}

/* x = A^+ b for one right-hand side, by the eigen-decomposition. */
static void eig_solve(chol_state *s, const double *b, double *x)
{
  size_t m = s->m;
  /* Column j of V is s->a[j*m .. j*m + m). */
  for (size_t j = 0; j < m; j++) {
    const double *vj = s->a + j * m;
    double d = 0;
    for (size_t i = 0; i < m; i++)
      d += vj[i] * b[i];
    s->y[j] = (s->w[j] > s->wtol && s->rank) ? d / s->w[j] : 0.0;
  }
  memset(x, 0, m * sizeof(double));
  for (size_t j = 0; j < m; j++) {
    const double *vj = s->a + j * m;
    for (size_t i = 0; i < m; i++)
      x[i] += vj[i] * s->y[j];
  }
}

static int chol_solve(void *p, const cdyn_matrix *A, size_t nrhs, const double *b, double *x,
                      double rank_tol, const void *opts, cdyn_solve_info *info)
{
  (void)rank_tol;
  (void)opts;
  chol_state *s = p;
  size_t m = s->m;
  if (!s->eig) {
    memcpy(x, b, nrhs * m * sizeof(double));
    lapack_int rc = LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', (lapack_int)m, (lapack_int)nrhs, s->a,
                                        (lapack_int)m, x, (lapack_int)m);
    if (rc != 0)
      return cdyn_error(CDYN_ESOLVE, "cholesky: dpotrs failed (info %d)", (int)rc);
  } else {
    for (size_t j = 0; j < nrhs; j++)
      eig_solve(s, b + j * m, x + j * m);
  }
  /* Relative residual, through the sparse A: the worst right-hand side
     (NaN when the caller does not want it). */
  double worst = info->skip_residual ? NAN : 0;
  for (size_t j = 0; j < nrhs && !info->skip_residual; j++) {
    const double *bj = b + j * m, *xj = x + j * m;
    double rr = 0, bb = 0;
    for (size_t i = 0; i < m; i++) {
      double r = -bj[i];
      for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        r += A->val[k] * xj[A->col[k]];
      rr += r * r;
      bb += bj[i] * bj[i];
    }
    double res = bb > 0 ? sqrt(rr / bb) : sqrt(rr);
    if (res > worst)
      worst = res;
  }
  info->residual = worst;
  info->rank = s->rank;
  info->fallback = s->eig;
  return CDYN_OK;
}

const cdyn_solver_type cdyn_solver_cholesky = {
  .name = "cholesky",
  .description = "dense LAPACKE Cholesky; minimum-norm least squares by eigen-decomposition when A is singular",
  .iterative = 0,
  .alloc = chol_alloc,
  .free = chol_free,
  .setup = chol_setup,
  .solve = chol_solve,
};
