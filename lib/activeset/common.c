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
 *
 * The verification of an exact algorithm's answer (cdyn_as_verify;
 * derived here).  An answer (mu, w) is accepted as a solution to rounding
 * when it passes tests whose tolerances follow from the problem (A, b,
 * their scale, the conditioning of the handled block, n), never from the
 * answer's own multipliers: a floor such as n eps sum_j |A_kj mu_j| grows
 * with the multipliers it is meant to judge, and a wrong answer of
 * multipliers 2e13 (fuzz corpus input 3686c8fb: |b| = 8.4, A_kk = 1e4,
 * a handled block whose smallest eigenvalue, 1.8e-12, is rounding noise)
 * passed lcp's own final check with w = 37 on a handled row.
 *
 * The bound on the multipliers.  Let C be the rows the answer uses (the
 * handled rows and any row with mu_k != 0).  Every solution of the
 * problem restricted to C (w_C = 0 on the handled rows, mu = 0 off C, mu_k
 * >= 0 on its inequality rows) has mu_C^T w_C = 0, so
 *   mu_C^T A_CC mu_C = -b_C^T mu_C <= |bt_C|_2 |mu_C|_2,
 * bt_k = max(0, -b_k) on an inequality row (where mu_k >= 0) and |b_k| on
 * an equality row (the argument of Mathias and Pang, "Error bounds for
 * the linear complementarity problem with a P-matrix", Linear Algebra
 * Appl. 132, 1990, that |x| <= |(-q)_+| / c(M), with the quadratic form
 * in place of c(M)).  A solution of a singular but consistent A_CC is
 * taken of minimum norm (the sub-solves' rule, cdyn_as_subsolve), so mu_C
 * lies in the span of the eigenvectors whose eigenvalues are above the
 * rank cut rank_tol lambda_max(A_CC), and with l_C the smallest of them
 *   l_C |mu_C|_2^2 <= mu_C^T A_CC mu_C,   so   |mu_C|_2 <= M = |bt_C|_2 / l_C.
 * l_C comes from the eigenvalues of A_CC (LAPACK dsyev, values only, in
 * the dense sub-solve's storage; block by block where the graph of A_CC
 * falls apart into several, whose eigenvalues together are A_CC's:
 * contacts in distinct places of a cloth) when |C| <= VERIFY_EIG_MAX and the
 * workspace's dense capacity; beyond, from the rank convention alone,
 * l_C >= rank_tol lambda_max(A_CC) >= rank_tol max_{k in C} A_kk, a
 * weaker bound that costs nothing.  An answer with |mu_C|_2 > 2 M +
 * |tol_mu_C|_2 is refused: no solution has multipliers that large.  (The
 * factor 2 takes in the rounding of mu, relative eps cond(A_CC) <= eps /
 * rank_tol = 2e-4, and of the eigenvalues, absolute |C| eps lambda_max;
 * the tolerances of the inequality rows of C, the multipliers down to
 * -tol_mu that count as >= 0.)  A solution that the sub-solves found on a block
 * whose Cholesky factorisation passed its pivot test but whose smallest
 * eigenvalue is below the rank cut has multipliers of about |b| / l with
 * l at rounding level; the reference enumeration (reference/lcp_enum.c)
 * takes the same block as singular, and so does this bound.
 *
 * The tolerance of row k.  At a solution within that bound the terms of
 * w_k = b_k + sum_{j in C} A_kj mu_j are bounded by
 *   |b_k| + |A_kC|_2 |mu_C|_2 <= |b_k| + sqrt(A_kk sum_{j in C} A_jj) 2 M
 * (|A_kj| <= sqrt(A_kk A_jj), A being semi-definite), and forming w_k, or
 * solving a block by a backward-stable method, errs by at most a small
 * multiple of n eps times that (Higham, "Accuracy and Stability of
 * Numerical Algorithms", 2002, §3.1 and §10.1).  So
 *   T_k = tol_w_k + VERIFY_ROUND n eps (|b_k| + sqrt(A_kk sum_{j in C} A_jj) 2 M),
 * VERIFY_ROUND = 16 (the constant of the reference's and of lcp's
 * floors), and the answer is accepted when
 *   |(A mu + b)_k - w_k| <= T_k          (the residual; A mu + b formed afresh),
 *   |w_k| <= T_k                         (equality rows),
 *   w_k >= -T_k,  mu_k >= -tol_mu_k,     (inequality rows: feasibility)
 *   mu_k <= tol_mu_k  or  |w_k| <= T_k   (complementarity, in the natural
 *                                         residual's form min(mu_k, w_k) = 0).
 * Everything is formed in double precision on the problem as the caller
 * gave it: an answer whose terms |b_k| + sum_j |A_kj mu_j|, A mu + b or w
 * are not finite cannot be checked there, and is refused (the reference
 * refuses such a set for the same reason: the fuzz corpus input
 * regress-57cdf5067cdd has b_0 = DBL_MAX beside a row with mu_1 = 2.4e296,
 * and f5455fbc, 13c4ca7e and others products A_kj mu_j above 1.8e308).
 * A T_k beyond the double range (b_k near DBL_MAX) lets its row's
 * magnitudes pass: it is the bound that overflows, not the answer.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activeset/activeset.h"
#include "core/internal.h"

/* The constant of the rounding floor of the verification (see above). */
#define VERIFY_ROUND 16.0
/* The largest handled block whose eigenvalues the verification computes
   (about 4/3 s^3 flops: 2e7 at 256 rows); beyond, it takes the rank
   convention's bound (see above). */
#define VERIFY_EIG_MAX 256

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
  free(ws->iwork);
  free(ws->keep_mu);
  free(ws->keep_w);
  free(ws->keep_h);
  free(ws->idx);
  free(ws->blk);
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
  ws->blk = malloc((3 * dc + 1) * sizeof(size_t));
  ws->set = malloc(c);
  ws->iwork = malloc(dc * sizeof *ws->iwork);
  ws->keep_mu = malloc(c * sizeof(double));
  ws->keep_w = malloc(c * sizeof(double));
  ws->keep_h = malloc(c);
  int ok = ws->sub && ws->eig && ws->r && ws->x && ws->idx && ws->blk && ws->set && ws->iwork && ws->keep_mu &&
           ws->keep_w && ws->keep_h;
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
    size_t nw = (size_t)(ws->lwork > 0 ? ws->lwork : 1);
    ok = (ws->work = malloc((nw > 3 * dc ? nw : 3 * dc) * sizeof(double))) != NULL;
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

/* ---- the verification of an exact answer ------------------------------------------ */

/* |x|_2 of a sum of squares kept scaled by its largest term (no overflow
   before the end; Blue's and LAPACK's dnrm2 idea in its simplest form). */
typedef struct {
  double big, ss;
} scaled_norm;

static void norm_add(scaled_norm *a, double x)
{
  x = fabs(x);
  if (x == 0)
    return;
  if (x > a->big) {
    a->ss = 1 + a->ss * (a->big / x) * (a->big / x);
    a->big = x;
  } else {
    a->ss += (x / a->big) * (x / a->big);
  }
}

static double norm_value(const scaled_norm *a) { return a->big * sqrt(a->ss); }

/* The root of a in the union-find forest par (halving the path). */
static size_t uf_root(size_t *par, size_t a)
{
  while (par[a] != a)
    a = par[a] = par[par[a]];
  return a;
}

/*
 * The blocks of A_CC, gathered in ws->sub over the s rows ws->idx: the
 * connected components of its graph (rows a and c joined where
 * A_ac != 0).  With more than one, ws->idx is reordered block by block
 * (each block's rows in their order) and A_CC gathered again, so that
 * each block is a diagonal block of ws->sub; ws->blk + 2 s then holds
 * the blocks' starts and s.  Returns the number of blocks.
 */
static size_t verify_blocks(cdyn_as_ws *ws, size_t n, const double *A, size_t s)
{
  size_t *par = ws->blk, *rows = ws->blk + s, *start = ws->blk + 2 * s;
  for (size_t a = 0; a < s; a++)
    par[a] = a;
  for (size_t a = 0; a < s; a++)
    for (size_t c = 0; c < a; c++)
      if (ws->sub[a * s + c] != 0) {
        size_t ra = uf_root(par, a), rc = uf_root(par, c);
        if (ra != rc)
          par[ra > rc ? ra : rc] = ra < rc ? ra : rc; /* the smaller index is the root */
      }
  size_t nb = 0;
  for (size_t a = 0; a < s; a++)
    nb += uf_root(par, a) == a;
  if (nb == 1)
    return 1;
  /* The blocks in the order of their first rows (their roots), each
     block's rows in order. */
  size_t k = 0, b = 0;
  for (size_t r = 0; r < s; r++) {
    if (par[r] != r)
      continue;
    start[b++] = k;
    for (size_t a = r; a < s; a++)
      if (uf_root(par, a) == r)
        rows[k++] = ws->idx[a];
  }
  start[b] = s;
  memcpy(ws->idx, rows, s * sizeof *rows);
  cdyn_as_gather(ws, n, A, s);
  return nb;
}

int cdyn_as_verify(cdyn_as_ws *ws, const cdyn_as_problem *p, const double *mu, const double *w,
                   const unsigned char *handled)
{
  if (!ws || !p || !mu || !w || !handled)
    return cdyn_error(CDYN_EINVAL, "active set: verification with a NULL argument");
  size_t n = p->n;
  if (n > ws->cap || !p->b || (!p->A && !p->sp))
    return cdyn_error(CDYN_EINVAL, "active set: verification of a problem of %zu rows without A or b, or beyond the "
                                   "workspace's %zu", n, ws->cap);
  /* C, |bt_C|_2, |mu_C|_2, max and sum of A_kk over C. */
  size_t s = 0;
  scaled_norm nb = {0, 0}, nm = {0, 0}, nt = {0, 0};
  double dmax = 0, dsum = 0;
  for (size_t k = 0; k < n; k++) {
    if (!handled[k] && mu[k] == 0)
      continue;
    if (!isfinite(mu[k]))
      return cdyn_error(CDYN_EUNVERIFIED, "active set: the answer's multiplier of row %zu is not finite", k);
    ws->idx[s++] = k;
    double bt = cdyn_as_is_eq(p, k) ? fabs(p->b[k]) : fmax(0.0, -p->b[k]);
    norm_add(&nb, bt);
    norm_add(&nm, mu[k]);
    if (!cdyn_as_is_eq(p, k))
      norm_add(&nt, cdyn_as_tol_mu(p, k));
    double d = cdyn_as_diag(p, k);
    dmax = fmax(dmax, d);
    dsum += d;
  }
  /* l_C: the smallest eigenvalue of A_CC above the rank cut. */
  double lmin = INFINITY;
  const char *how = "its eigenvalues";
  if (s && dmax > 0) {
    if (s <= ws->dcap && s <= VERIFY_EIG_MAX && (p->A || ws->pos)) {
      cdyn_as_gather(ws, n, p->A, s);
      size_t nb = verify_blocks(ws, n, p->A, s);
      const size_t *start = ws->blk + 2 * s;
      double lmax = -INFINITY;
      for (size_t b = 0; b < nb; b++) {
        size_t o = nb > 1 ? start[b] : 0, z = nb > 1 ? start[b + 1] - o : s;
        lapack_int info = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'N', 'L', (lapack_int)z, ws->sub + o * s + o,
                                             (lapack_int)s, ws->eig + o, ws->work, ws->lwork);
        if (info != 0)
          return cdyn_error(CDYN_ESOLVE, "active set: verification: eigenvalues of the handled block failed (dsyev "
                                         "info %d)", (int)info);
        lmax = fmax(lmax, ws->eig[o + z - 1]);
      }
      /* The smallest above the cut (each block's eigenvalues ascending). */
      double cut = p->rank_tol * lmax;
      for (size_t a = 0; a < s; a++)
        if (ws->eig[a] > cut && !(ws->eig[a] >= lmin))
          lmin = ws->eig[a];
    } else {
      lmin = p->rank_tol * dmax;
      how = "the rank cut";
    }
  }
  /* The bound M (0 when C is empty, or when A_CC = 0 and the minimum-norm
     multipliers are 0). */
  double bnorm = norm_value(&nb), mnorm = norm_value(&nm);
  double bound = bnorm > 0 ? bnorm / lmin : 0;
  /* Multipliers down to -tol_mu count as >= 0: they may add their
     tolerances to the bound (|tol_mu_C|_2). */
  if (!(mnorm <= 2 * bound + norm_value(&nt)))
    return cdyn_error(CDYN_EUNVERIFIED,
                      "active set: the answer's multipliers (|mu|_2 = %.6g over %zu rows) exceed twice the bound "
                      "%.6g that every solution on those rows obeys (the pulling part of b, |b|_2 = %.6g, over the "
                      "smallest eigenvalue %.6g of their block above the rank cut, from %s): the answer is not a "
                      "solution (its block is singular to rounding, or it is not the minimum-norm one)",
                      mnorm, s, bound, bnorm, lmin, how);
  double *r = ws->tmp[0];
  cdyn_as_residual(p, mu, r);
  double rs = sqrt(dsum), g = VERIFY_ROUND * (double)n * DBL_EPSILON, gm = g * 2 * bound;
  for (size_t k = 0; k < n; k++) {
    /* In this order so that the tolerance overflows only when it is
       beyond the double range itself (b_k near DBL_MAX with mu = 0 must
       not make it infinite); an infinite one lets the row's magnitudes
       pass, its values must still be finite. */
    double tk = cdyn_as_tol_w(p, k) + g * fabs(p->b[k]);
    if (gm > 0) /* (not 0 times an infinite sum of diagonal entries near DBL_MAX) */
      tk += gm * sqrt(cdyn_as_diag(p, k)) * rs;
    double tm = cdyn_as_tol_mu(p, k);
    const char *fail = NULL;
    /* Written so that a NaN fails each test. */
    if (!isfinite(r[k]) || !isfinite(w[k]) || !isfinite(cdyn_as_row_scale(p, k, mu)))
      fail = "its terms |b_k| + sum_j |A_kj mu_j|, A mu + b or w leave the double range";
    else if (!(fabs(r[k] - w[k]) <= tk))
      fail = "w differs from A mu + b";
    else if (cdyn_as_is_eq(p, k) && !(fabs(w[k]) <= tk))
      fail = "the equality row is not satisfied";
    else if (!cdyn_as_is_eq(p, k) && !(w[k] >= -tk))
      fail = "the inequality row is violated";
    else if (!cdyn_as_is_eq(p, k) && !(mu[k] >= -tm))
      fail = "its multiplier pulls";
    else if (!cdyn_as_is_eq(p, k) && !(mu[k] <= tm || fabs(w[k]) <= tk))
      fail = "its multiplier pushes while w is not zero (not complementary)";
    if (fail)
      return cdyn_error(CDYN_EUNVERIFIED,
                        "active set: the answer fails at row %zu: %s (mu = %.6g, w = %.6g, A mu + b = %.6g; "
                        "tolerance %.3g from the problem, multipliers bounded by %.6g)",
                        k, fail, mu[k], w[k], r[k], tk, 2 * bound);
  }
  return CDYN_OK;
}

int cdyn_as_conclude(const cdyn_activeset_type *type, cdyn_as_ws *ws, const cdyn_as_problem *p, int rc,
                     double *mu, double *w, unsigned char *handled, cdyn_activeset_report *rep)
{
  if (rc < 0)
    return rc;
  int fin = cdyn_as_finish(p, mu, w, handled, rep);
  if (fin)
    return fin;
  if (!type || !type->exact)
    return rc;
  int v = cdyn_as_verify(ws, p, mu, w, handled);
  if (v != CDYN_EUNVERIFIED || ws->guard)
    return v ? v : rc;
  /* The second solve, with the condition guard on; the first answer and
     its refusal are kept in case it fails too. */
  size_t n = p->n;
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", cdyn_errmsg());
  memcpy(ws->keep_mu, mu, n * sizeof *mu);
  memcpy(ws->keep_w, w, n * sizeof *w);
  memcpy(ws->keep_h, handled, n);
  cdyn_activeset_report r2;
  memset(&r2, 0, sizeof r2);
  ws->guard = 1;
  int rc2 = type->solve(ws, p, mu, w, handled, &r2);
  if (rc2 >= 0 && !cdyn_as_finish(p, mu, w, handled, &r2) && !cdyn_as_verify(ws, p, mu, w, handled)) {
    ws->guard = 0;
    r2.iterations += rep->iterations;
    r2.solves += rep->solves;
    *rep = r2;
    return rc2;
  }
  ws->guard = 0;
  rep->iterations += r2.iterations;
  rep->solves += r2.solves;
  memcpy(mu, ws->keep_mu, n * sizeof *mu);
  memcpy(w, ws->keep_w, n * sizeof *w);
  memcpy(handled, ws->keep_h, n);
  return cdyn_error(CDYN_EUNVERIFIED, "%s", msg);
}
