/*
 * dense.c: the dense sub-solve of an active-set algorithm, A_SS x_S = r_S
 * with A_SS gathered into the workspace from a dense A, or from the
 * sparse A the workspace is bound to (sparse.c's rank-deficient
 * sub-solves).  A_SS is solved by Cholesky (dpotrf/dpotrs) when it is
 * definite (with the condition guard on, cdyn_as_conclude's second solve:
 * and clear of the rank cut by its condition estimate, dpocon), otherwise by the minimum-norm least-squares solution through
 * its eigen-decomposition (dsyev), the rule of the dense cholesky solver
 * (lib/solvers/cholesky.c): redundant contacts, such as a racked ball
 * touching three others in the plane, make A_SS singular.  A_SS is
 * symmetric, so its row-major copy is also column-major and the *_work
 * entry points need no transposed copies.
 */
#include <math.h>
#include <string.h>

#include "activeset/activeset.h"
#include "core/internal.h"

/* The condition guard's margin (cdyn_as_dense_subsolve, with ws->guard). */
#define COND_MARGIN 16.0

/* A_SS into ws->sub (s x s, the rows ws->idx[0 .. s)): from the dense A,
   or from the bound sparse A (A NULL), whose rows are scattered through
   the positions of the rows of S (ws->pos). */
void cdyn_as_gather(cdyn_as_ws *ws, size_t n, const double *A, size_t s)
{
  if (A) {
    for (size_t a = 0; a < s; a++)
      for (size_t c = 0; c < s; c++)
        ws->sub[a * s + c] = A[ws->idx[a] * n + ws->idx[c]];
    return;
  }
  const cdyn_as_sparse *sp = ws->sp;
  long *pos = ws->pos;
  for (size_t k = 0; k < n; k++)
    pos[k] = -1;
  for (size_t a = 0; a < s; a++)
    pos[ws->idx[a]] = (long)a;
  memset(ws->sub, 0, s * s * sizeof(double));
  for (size_t a = 0; a < s; a++) {
    size_t i = ws->idx[a];
    for (int q = sp->rowptr[i]; q < sp->rowptr[i + 1]; q++)
      if (pos[sp->col[q]] >= 0)
        ws->sub[a * s + (size_t)pos[sp->col[q]]] = sp->val[q];
  }
}

int cdyn_as_dense_subsolve(cdyn_as_ws *ws, size_t n, const double *A, const unsigned char *S,
                           const double *r, double rank_tol, double *x, size_t *size)
{
  size_t s = 0;
  for (size_t k = 0; k < n; k++) {
    x[k] = 0;
    if (S[k])
      ws->idx[s++] = k;
  }
  if (size)
    *size = s;
  if (!s)
    return CDYN_OK;
  if (s > ws->dcap)
    return cdyn_error(CDYN_EINVAL, "active set: a dense sub-solve of %zu rows exceeds the workspace's %zu", s,
                      ws->dcap);
  for (size_t a = 0; a < s; a++)
    ws->r[a] = r[ws->idx[a]];
  cdyn_as_gather(ws, n, A, s);
  double dmax = 0;
  for (size_t a = 0; a < s; a++) {
    if (ws->sub[a * s + a] > dmax)
      dmax = ws->sub[a * s + a];
  }
  int eig = 1;
  /* With the guard on, the 1-norm of A_SS before the factorisation
     overwrites it (below). */
  double anorm = ws->guard && dmax > 0 ? LAPACKE_dlansy_work(LAPACK_COL_MAJOR, '1', 'L', (lapack_int)s, ws->sub,
                                                             (lapack_int)s, ws->work)
                                       : 0;
  if (dmax > 0 && LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', (lapack_int)s, ws->sub,
                                      (lapack_int)s) == 0) {
    eig = 0;
    for (size_t a = 0; a < s && !eig; a++) {
      double piv = ws->sub[a * s + a];
      if (!(piv * piv > rank_tol * dmax))
        eig = 1;
    }
    /* The guard (cdyn_as_conclude's second solve): the factor only while
       its condition estimate keeps the block clear of the eigen-path's
       cut, rcond (dpocon, 1-norm) >= COND_MARGIN rank_tol.  For symmetric
       A_SS, lambda_max / lambda_min <= kappa_1 = 1 / rcond_true, and
       dpocon's rcond exceeds rcond_true only by the factor by which its
       estimate of |A_SS^-1|_1 falls short (a lower bound, seldom off by
       more than 3): so a block taken by the factor has lambda_min >
       rank_tol lambda_max, and one near or below the cut takes the
       eigen-path, which drops its eigenvalues below the cut. */
    double rcond = 0;
    if (!eig && ws->guard &&
        (LAPACKE_dpocon_work(LAPACK_COL_MAJOR, 'L', (lapack_int)s, ws->sub, (lapack_int)s, anorm, &rcond, ws->work,
                             ws->iwork) != 0 ||
         !(rcond >= COND_MARGIN * rank_tol)))
      eig = 1;
  }
  if (!eig) {
    memcpy(ws->x, ws->r, s * sizeof(double));
    lapack_int rc = LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', (lapack_int)s, 1, ws->sub,
                                        (lapack_int)s, ws->x, (lapack_int)s);
    if (rc != 0)
      return cdyn_error(CDYN_ESOLVE, "active set: dpotrs failed (info %d)", (int)rc);
  } else {
    cdyn_as_gather(ws, n, A, s);
    lapack_int rc = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'L', (lapack_int)s, ws->sub,
                                       (lapack_int)s, ws->eig, ws->work, ws->lwork);
    if (rc != 0)
      return cdyn_error(CDYN_ESOLVE, "active set: eigen-decomposition failed (dsyev info %d)",
                        (int)rc);
    double wmax = 0;
    for (size_t j = 0; j < s; j++)
      if (fabs(ws->eig[j]) > wmax)
        wmax = fabs(ws->eig[j]);
    double cut = rank_tol * wmax;
    memset(ws->x, 0, s * sizeof(double));
    for (size_t j = 0; j < s; j++) {
      if (!(ws->eig[j] > cut) || wmax == 0)
        continue;
      const double *vj = ws->sub + j * s; /* column j of V */
      double d = 0;
      for (size_t i = 0; i < s; i++)
        d += vj[i] * ws->r[i];
      d /= ws->eig[j];
      for (size_t i = 0; i < s; i++)
        ws->x[i] += vj[i] * d;
    }
  }
  for (size_t a = 0; a < s; a++)
    x[ws->idx[a]] = ws->x[a];
  if (!cdyn_all_finite(x, n))
    return cdyn_error(CDYN_ENONFINITE, "active set: a sub-solve of %zu rows gave a non-finite result",
                      s);
  return CDYN_OK;
}
