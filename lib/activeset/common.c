/*
 * common.c: the pieces every active-set algorithm shares (003 eq 6 with a
 * handled set S): the workspace, the solve of a handled set, the
 * residual, the tolerances and the checks that end a solve.
 *
 * For a handled set S the contact problem w = A mu + b reduces to
 *   A_SS mu_S = -b_S,  mu_k = 0 (k not in S),  w = A mu + b,
 * the KKT system of 003 eq 6 with the accelerations eliminated
 * (qdd = a_free + W J^T mu, A = J W J^T).  Its sub-systems A_SS x_S = r_S
 * (cdyn_as_subsolve) are solved by dense.c when A is dense, and by
 * sparse.c when it is sparse (compressed rows, cdyn_as_sparse), whose
 * rank-deficient ones go to dense.c (on A_SS gathered from the compressed
 * rows).
 *
 * A sparse A is read through the same functions as a dense one, over its
 * stored entries.  The dense forms do the arithmetic the algorithms did
 * inline, in the same order.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "activeset/activeset.h"
#include "core/internal.h"

/* ---- workspace ------------------------------------------------------------ */

void cdyn_as_ws_free(cdyn_as_ws *ws)
{
  if (!ws)
    return;
  free(ws->sub);
  free(ws->eig);
  free(ws->r);
  free(ws->x);
  free(ws->work);
  free(ws->idx);
  free(ws->set);
  for (int k = 0; k < 4; k++)
    free(ws->tmp[k]);
  free(ws->pos);
  cdyn_as_sfac_free(ws->sf);
  memset(ws, 0, sizeof *ws);
}

int cdyn_as_ws_alloc(cdyn_as_ws *ws, size_t cap) { return cdyn_as_ws_alloc_rows(ws, cap, cap); }

int cdyn_as_ws_alloc_rows(cdyn_as_ws *ws, size_t cap, size_t dcap)
{
  if (!ws)
    return cdyn_error(CDYN_EINVAL, "active set: workspace is NULL");
  memset(ws, 0, sizeof *ws);
  size_t c = cap ? cap : 1, dc = dcap ? dcap : 1;
  if (dcap > cap)
    return cdyn_error(CDYN_EINVAL, "active set: dense capacity %zu above the %zu rows", dcap, cap);
  if (dc > 65536)
    return cdyn_error(CDYN_EINVAL, "active set: %zu rows is beyond the dense workspace's limit", dcap);
  if (c > ((size_t)1 << 30))
    return cdyn_error(CDYN_EINVAL, "active set: %zu rows is beyond the workspace's limit", cap);
  ws->cap = cap;
  ws->dcap = dcap;
  ws->sub = malloc(dc * dc * sizeof(double));
  ws->eig = malloc(dc * sizeof(double));
  ws->r = malloc(c * sizeof(double));
  ws->x = malloc(c * sizeof(double));
  ws->idx = malloc(c * sizeof(size_t));
  ws->set = malloc(c);
  int ok = ws->sub && ws->eig && ws->r && ws->x && ws->idx && ws->set;
  for (int k = 0; k < 4 && ok; k++)
    ok = (ws->tmp[k] = malloc(c * sizeof(double))) != NULL;
  if (ok) {
    double q = 0;
    lapack_int info = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'L', (lapack_int)dc, ws->sub,
                                         (lapack_int)dc, ws->eig, &q, -1);
    if (info != 0) {
      cdyn_as_ws_free(ws);
      return cdyn_error(CDYN_ESOLVE, "active set: dsyev workspace query failed (info %d)", (int)info);
    }
    ws->lwork = (lapack_int)q;
    ok = (ws->work = malloc((size_t)(ws->lwork > 0 ? ws->lwork : 1) * sizeof(double))) != NULL;
  }
  if (!ok) {
    cdyn_as_ws_free(ws);
    return cdyn_error(CDYN_ENOMEM, "active set: out of memory for %zu rows", cap);
  }
  return CDYN_OK;
}

int cdyn_as_ws_bind(cdyn_as_ws *ws, const cdyn_as_problem *p)
{
  if (!ws || !p)
    return cdyn_error(CDYN_EINVAL, "active set: NULL workspace or problem");
  if (p->n > ws->cap)
    return cdyn_error(CDYN_EINVAL, "active set: problem of %zu rows exceeds the workspace's %zu", p->n, ws->cap);
  if (!p->sp) {
    if (!p->A)
      return cdyn_error(CDYN_EINVAL, "active set: a problem without A");
    ws->sp = NULL;
    return CDYN_OK;
  }
  const cdyn_as_sparse *sp = p->sp;
  if (p->A)
    return cdyn_error(CDYN_EINVAL, "active set: a problem with both a dense and a sparse A");
  if (!ws->sf)
    return cdyn_error(CDYN_EINVAL, "active set: a sparse problem needs a solver attached to the workspace "
                                   "(cdyn_as_ws_sparse)");
  if (sp->n != p->n || !sp->rowptr || !sp->col || !sp->val || sp->rowptr[0] != 0 ||
      (size_t)sp->rowptr[sp->n] != sp->nnz)
    return cdyn_error(CDYN_EINVAL, "active set: the sparse A is not a matrix of %zu rows", p->n);
  if (sp->nnz > cdyn_as_sfac_nnz_cap(ws->sf))
    return cdyn_error(CDYN_EINVAL, "active set: the sparse A has %zu entries, the workspace room for fewer", sp->nnz);
  for (size_t i = 0; i < sp->n; i++)
    if (sp->rowptr[i + 1] <= sp->rowptr[i] || (size_t)sp->col[sp->rowptr[i]] != i)
      return cdyn_error(CDYN_EINVAL, "active set: row %zu of the sparse A does not start with its diagonal", i);
  ws->sp = sp;
  return CDYN_OK;
}

/* ---- sub-solves ------------------------------------------------------------- */

int cdyn_as_subsolve(cdyn_as_ws *ws, size_t n, const double *A, const unsigned char *S,
                     const double *r, double rank_tol, double *x, size_t *size)
{
  if (n > ws->cap)
    return cdyn_error(CDYN_EINVAL, "active set: problem of %zu rows exceeds the workspace's %zu", n,
                      ws->cap);
  if (A)
    return cdyn_as_dense_subsolve(ws, n, A, S, r, rank_tol, x, size);
  if (!ws->sp || ws->sp->n != n)
    return cdyn_error(CDYN_EINVAL, "active set: a sub-solve without A (the workspace is bound to no sparse A "
                                   "of %zu rows)", n);
  return cdyn_as_sparse_subsolve(ws, S, r, rank_tol, x, size);
}

int cdyn_as_add_violated(const cdyn_as_problem *p, const double *w, unsigned char *handled)
{
  int added = 0;
  for (size_t k = 0; k < p->n; k++)
    if (!handled[k] && w[k] < -cdyn_as_tol_w(p, k))
      handled[k] = 1, added = 1;
  return added;
}

void cdyn_as_residual(const cdyn_as_problem *p, const double *mu, double *w)
{
  size_t n = p->n;
  if (p->sp) {
    const cdyn_as_sparse *sp = p->sp;
    for (size_t i = 0; i < n; i++) {
      double acc = p->b[i];
      for (int q = sp->rowptr[i]; q < sp->rowptr[i + 1]; q++)
        acc += sp->val[q] * mu[sp->col[q]];
      w[i] = acc;
    }
    return;
  }
  for (size_t i = 0; i < n; i++) {
    double acc = p->b[i];
    const double *row = p->A + i * n;
    for (size_t j = 0; j < n; j++)
      acc += row[j] * mu[j];
    w[i] = acc;
  }
}

int cdyn_as_solve_set(cdyn_as_ws *ws, const cdyn_as_problem *p, const unsigned char *S,
                      double *mu, double *w, cdyn_activeset_report *rep)
{
  size_t n = p->n, s;
  double *negb = ws->tmp[3];
  for (size_t k = 0; k < n; k++)
    negb[k] = -p->b[k];
  int rc = cdyn_as_subsolve(ws, n, p->A, S, negb, p->rank_tol, mu, &s);
  if (rc)
    return rc;
  cdyn_as_residual(p, mu, w);
  rep->iterations++;
  if (s)
    rep->solves++;
  return CDYN_OK;
}

/* ---- reading A ----------------------------------------------------------------- */

void cdyn_as_column(const cdyn_as_problem *p, size_t d, double s, double *out)
{
  size_t n = p->n;
  if (!p->sp) {
    for (size_t k = 0; k < n; k++)
      out[k] = s * p->A[k * n + d];
    return;
  }
  /* A is symmetric: column d is row d. */
  const cdyn_as_sparse *sp = p->sp;
  memset(out, 0, n * sizeof(double));
  for (int q = sp->rowptr[d]; q < sp->rowptr[d + 1]; q++)
    out[sp->col[q]] = s * sp->val[q];
}

double cdyn_as_row_scale(const cdyn_as_problem *p, size_t k, const double *x)
{
  double sc = fabs(p->b[k]);
  if (!p->sp) {
    const double *row = p->A + k * p->n;
    for (size_t j = 0; j < p->n; j++)
      sc += fabs(row[j] * x[j]);
    return sc;
  }
  const cdyn_as_sparse *sp = p->sp;
  for (int q = sp->rowptr[k]; q < sp->rowptr[k + 1]; q++)
    sc += fabs(sp->val[q] * x[sp->col[q]]);
  return sc;
}

void cdyn_as_direction(const cdyn_as_problem *p, const unsigned char *S, size_t d, const double *u,
                       double *dw, double *quad, double *dmax, double *rs)
{
  size_t n = p->n;
  double qd = 0, dm = cdyn_as_diag(p, d), r = sqrt(cdyn_as_diag(p, d));
  for (size_t i = 0; i < n; i++)
    if (S[i])
      r += sqrt(cdyn_as_diag(p, i)) * fabs(u[i]);
  if (!p->sp) {
    const double *A = p->A;
    for (size_t k = 0; k < n; k++) {
      const double *row = A + k * n;
      double acc = row[d], sc = fabs(row[d]);
      for (size_t i = 0; i < n; i++)
        if (S[i]) {
          acc += row[i] * u[i];
          sc += fabs(row[i] * u[i]);
        }
      dw[k] = acc;
      if (k == d || S[k]) {
        qd += fabs(u[k]) * sc;
        if (row[k] > dm)
          dm = row[k];
      }
    }
  } else {
    /* Over the stored entries of each row, in their order; u is zero off
       S + {d}. */
    const cdyn_as_sparse *sp = p->sp;
    for (size_t k = 0; k < n; k++) {
      double acc = 0, sc = 0;
      for (int q = sp->rowptr[k]; q < sp->rowptr[k + 1]; q++) {
        size_t j = (size_t)sp->col[q];
        if (S[j] || j == d) {
          double t = sp->val[q] * u[j];
          acc += t;
          sc += fabs(t);
        }
      }
      dw[k] = acc;
      if (k == d || S[k]) {
        qd += fabs(u[k]) * sc;
        if (sp->val[sp->rowptr[k]] > dm)
          dm = sp->val[sp->rowptr[k]];
      }
    }
  }
  *quad = qd;
  *dmax = dm;
  *rs = r;
}

void cdyn_as_tolerances(cdyn_as_problem *p, double rel_tol)
{
  double bmax = 0, dmax = 0;
  for (size_t k = 0; k < p->n; k++) {
    if (fabs(p->b[k]) > bmax)
      bmax = fabs(p->b[k]);
    if (cdyn_as_diag(p, k) > dmax)
      dmax = cdyn_as_diag(p, k);
  }
  p->tol_w = rel_tol * (bmax > DBL_MIN ? bmax : DBL_MIN);
  p->tol_mu = dmax > 0 ? p->tol_w / dmax : p->tol_w;
}

int cdyn_as_check_equalities(const cdyn_as_problem *p, const double *mu, const double *w)
{
  if (!p->equality)
    return CDYN_OK;
  size_t n = p->n;
  for (size_t k = 0; k < n; k++) {
    if (!p->equality[k])
      continue;
    double scale = cdyn_as_row_scale(p, k, mu);
    double floor_k = (p->rank_tol + 4.0 * (double)n * DBL_EPSILON) * scale;
    /* Written so that a NaN residual also fails. */
    if (!(fabs(w[k]) <= cdyn_as_tol_w(p, k)) && !(fabs(w[k]) <= floor_k))
      return cdyn_error(CDYN_EINFEASIBLE,
                        "inconsistent constraint set: equality row %zu keeps w = %.6g after the solve "
                        "(tol_w = %.3g): its equation has no solution together with the other handled rows",
                        k, w[k], cdyn_as_tol_w(p, k));
  }
  return CDYN_OK;
}

int cdyn_as_finish(const cdyn_as_problem *p, const double *mu, const double *w,
                   const unsigned char *handled, cdyn_activeset_report *rep)
{
  rep->candidates = (unsigned)p->n;
  rep->inequalities = 0;
  rep->handled = 0;
  rep->pulls = rep->violates = 0;
  rep->min_mu = rep->min_w = 0;
  int first = 1;
  for (size_t k = 0; k < p->n; k++) {
    if (handled[k])
      rep->handled++;
    if (cdyn_as_is_eq(p, k))
      continue;
    rep->inequalities++;
    if (first || mu[k] < rep->min_mu)
      rep->min_mu = mu[k];
    if (first || w[k] < rep->min_w)
      rep->min_w = w[k];
    first = 0;
    if (handled[k] && mu[k] < -cdyn_as_tol_mu(p, k))
      rep->pulls = 1;
    if (w[k] < -cdyn_as_tol_w(p, k))
      rep->violates = 1;
  }
  return cdyn_as_check_equalities(p, mu, w);
}
