/*
 * lsq.c: what the direct solvers (cholesky.c, cholmod.c, banded.c) share:
 * the report that ends a direct solve, and the minimum-norm least-squares
 * solution of a singular A from a factor of the shifted A + delta I.
 *
 * Least squares.  With S = (A + delta I)^-1, delta > 0, in A's eigenbasis
 * (eigenvalues sigma), A^+ b, the minimum-norm least-squares solution
 * that the dense solver computes by eigen-decomposition (cholesky.c), is
 * found in two stages.
 *   1. The part of b in A's null space: n = lim (delta S)^k b, since
 *      delta S multiplies sigma's component by delta / (sigma + delta)
 *      and keeps the null space's; then br = b - n, consistent.
 *   2. x_0 = 0,  x_(k+1) = x_k + S A S (br - A x_k), with A S r computed
 *      as r - delta S r: S A S multiplies sigma's component by
 *      sigma / (sigma + delta)^2, so no iterate has a null component, and
 *      a range component's error falls by 1 - sigma^2 / (sigma + delta)^2,
 *      about 2 delta / sigma, per correction; the limit is A^+ br = A^+ b.
 * Stage 1 matters for an inconsistent b: S b carries b's null part
 * magnified by 1 / delta, and the factor's rounding, relative eps times
 * the condition |A| / delta of A + delta I, would leak it into the range
 * part at (eps |A|^2 / delta^2) |b| (1e-4 |b| for delta = 1e-6 |A|);
 * delta S b keeps only eps |A| / delta of it (1e-10).  Each stage stops
 * when its update falls below 1e-15 of |b| or |x|, or after max_iter
 * rounds; the residual the solver then reports says how far it got.
 * Components with sigma of order delta or below converge slowly or not
 * at all: the ill-conditioned part, which the dense solver cuts at
 * rank_tol max(w).
 */
#include <math.h>
#include <string.h>

#include "cdyn/error.h"
#include "cdyn/solver.h"
#include "solvers/lsq.h"

int cdyn_direct_report(const cdyn_matrix *A, size_t nrhs, const double *b, const double *x, double *work,
                       const char *name, cdyn_solve_info *info)
{
  size_t m = A->m;
  if (!cdyn_all_finite(x, nrhs * m))
    return cdyn_error(CDYN_ENONFINITE, "%s: non-finite solution", name);
  (void)work;
  if (info->skip_residual) {
    info->residual = NAN;
    return CDYN_OK;
  }
  /* Up to 4 columns a pass over A, each row's sum in storage order as in
     cdyn_matrix_residual (the same bits), A read once for them all. */
  double worst = 0;
  for (size_t j0 = 0; j0 < nrhs; j0 += 4) {
    size_t nc = nrhs - j0 < 4 ? nrhs - j0 : 4;
    double rr[4] = {0, 0, 0, 0}, bb[4] = {0, 0, 0, 0};
    const double *bj = b + j0 * m, *xj = x + j0 * m;
    for (size_t i = 0; i < m; i++) {
      double acc[4] = {0, 0, 0, 0};
      int k0 = A->rowptr[i], k1 = A->rowptr[i + 1];
      if (nc == 3) /* the three coordinates of a particle system */
        for (int k = k0; k < k1; k++) {
          double v = A->val[k];
          size_t c = (size_t)A->col[k];
          acc[0] += v * xj[c];
          acc[1] += v * xj[m + c];
          acc[2] += v * xj[2 * m + c];
        }
      else
        for (int k = k0; k < k1; k++) {
          double v = A->val[k];
          size_t c = (size_t)A->col[k];
          for (size_t j = 0; j < nc; j++)
            acc[j] += v * xj[j * m + c];
        }
      for (size_t j = 0; j < nc; j++) {
        double r = acc[j] - bj[j * m + i];
        rr[j] += r * r;
        bb[j] += bj[j * m + i] * bj[j * m + i];
      }
    }
    for (size_t j = 0; j < nc; j++) {
      double res = bb[j] > 0 ? sqrt(rr[j] / bb[j]) : sqrt(rr[j]);
      if (res > worst)
        worst = res;
    }
  }
  info->residual = worst;
  return CDYN_OK;
}

int cdyn_shifted_lsq(const cdyn_matrix *A, cdyn_shifted_solve solve, void *ctx, double delta, const double *b,
                     double *x, double *br, double *r, double *u, double *dx, unsigned max_iter, unsigned long *its)
{
  size_t m = A->m;
  int rc;
  double bn = 0;
  for (size_t i = 0; i < m; i++)
    bn = fmax(bn, fabs(b[i]));
  /* The null-space part of b: n = lim (delta S)^k b. */
  memcpy(r, b, m * sizeof(double));
  for (unsigned k = 0; k < max_iter; k++) {
    if ((rc = solve(ctx, r, u)))
      return rc;
    double dn = 0;
    for (size_t i = 0; i < m; i++) {
      double v = delta * u[i];
      dn = fmax(dn, fabs(v - r[i]));
      r[i] = v;
    }
    ++*its;
    if (!(dn > 1e-15 * bn))
      break;
  }
  for (size_t i = 0; i < m; i++)
    br[i] = b[i] - r[i];
  /* x = A^+ br for the consistent br. */
  memset(x, 0, m * sizeof(double));
  memcpy(r, br, m * sizeof(double));
  for (unsigned k = 0; k < max_iter; k++) {
    if ((rc = solve(ctx, r, u)))
      return rc;
    /* A S r as r - delta S r (equal in exact arithmetic; cheaper). */
    for (size_t i = 0; i < m; i++)
      dx[i] = r[i] - delta * u[i];
    if ((rc = solve(ctx, dx, dx)))
      return rc;
    double dn = 0, xn = 0;
    for (size_t i = 0; i < m; i++) {
      x[i] += dx[i];
      dn = fmax(dn, fabs(dx[i]));
      xn = fmax(xn, fabs(x[i]));
    }
    ++*its;
    if (!(dn > 1e-15 * xn))
      break;
    cdyn_matrix_apply(A, x, r);
    for (size_t i = 0; i < m; i++)
      r[i] = br[i] - r[i];
  }
  return CDYN_OK;
}
