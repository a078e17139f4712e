/*
 * lsq.c: what the direct sparse solvers (cholmod.c, banded.c) share: the
 * product y = A x through A's CSR storage, the relative residual, and the
 * minimum-norm least-squares solution of a singular A from a factor of
 * the shifted A + delta I.
 *
 * Least squares.  With S = (A + delta I)^-1, delta > 0,
 *   x_0 = 0,  x_(k+1) = x_k + S A S (b - A x_k)
 * converges to A^+ b, the minimum-norm least-squares solution that the
 * dense solver computes by eigen-decomposition (cholesky.c): in A's
 * eigenbasis S A S multiplies eigenvalue sigma's component by
 * sigma / (sigma + delta)^2, so no iterate has a component in A's null
 * space (also when b has one: the least-squares case), and a range
 * component's error falls by the factor 1 - sigma^2 / (sigma + delta)^2,
 * about 2 delta / sigma, per correction.  It stops when a correction is
 * below 1e-15 max|x| or after max_iter corrections; the residual the
 * solver then reports says how far it got.  Components with sigma of
 * order delta or below converge slowly or not at all: that is the
 * ill-conditioned part, which the dense solver cuts at rank_tol max(w).
 */
#include <math.h>
#include <string.h>

#include "cdyn_internal.h"

void cdyn_csr_apply(const cdyn_matrix *A, const double *x, double *y)
{
  for (size_t i = 0; i < A->m; i++) {
    double acc = 0;
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      acc += A->val[k] * x[A->col[k]];
    y[i] = acc;
  }
}

double cdyn_csr_residual(const cdyn_matrix *A, const double *b, const double *x, double *work)
{
  cdyn_csr_apply(A, x, work);
  double rr = 0, bb = 0;
  for (size_t i = 0; i < A->m; i++) {
    rr += (work[i] - b[i]) * (work[i] - b[i]);
    bb += b[i] * b[i];
  }
  return bb > 0 ? sqrt(rr / bb) : sqrt(rr);
}

int cdyn_shifted_lsq(const cdyn_matrix *A, cdyn_shifted_solve solve, void *ctx, const double *b, double *x,
                     double *r, double *u, double *dx, unsigned max_iter, unsigned long *its)
{
  size_t m = A->m;
  memset(x, 0, m * sizeof(double));
  memcpy(r, b, m * sizeof(double));
  for (unsigned k = 0; k < max_iter; k++) {
    int rc;
    if ((rc = solve(ctx, r, u)))
      return rc;
    cdyn_csr_apply(A, u, dx);
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
    cdyn_csr_apply(A, x, r);
    for (size_t i = 0; i < m; i++)
      r[i] = b[i] - r[i];
  }
  return CDYN_OK;
}
