/*
 * sparse.c: the sub-solves A_SS x_S = r_S of an active-set algorithm when
 * A is sparse (cdyn_as_sparse), through a direct linear solver type
 * (cdyn/solver.h: cholmod by default; the contact scheme's subsolve=sparse).
 *
 * The matrix the solver factors.  For a set S0 of rows,
 *   M_S0 = [ A_S0S0   0     ]
 *          [ 0        c I   ],   c = max_{k in S0} A_kk,
 * stored in the pattern of the whole of A: the entries of a row or column
 * outside S0 are zeros, its diagonal c.  The pattern does not depend on
 * S0, so the solver's symbolic analysis (an ordering and the factor's
 * structure; it allocates, and costs about as much as a factorisation) is
 * done once per pattern of A, not per set: a problem's sets, and every
 * problem over the same candidate rows, share it (cholmod keeps the
 * analyses of its last 8 patterns).  The rows outside S0 decouple, so with
 * r zero outside S0 the solution is x_S0 = A_S0S0^-1 r_S0 and zero
 * elsewhere, and c, A's own scale, keeps them out of the solver's rank
 * test (a unit diagonal would not, for A of another scale).
 *
 * Rows added to the factored set: a Schur complement.  The active-set
 * algorithms change S a row at a time (lcp: one row joins or leaves C at
 * each pivot) or add a few (iterative: the rows found violated).  With B =
 * M_S0 factored and S = S0 + P, P = {p_1 .. p_k} rows outside S0,
 *   z_a = B^-1 A_{S0,p_a}       (one solve per added row, kept while it stays)
 *   H_ab = A_{p_a p_b} - A_{p_a,S0} z_b                 (k x k, dense)
 *   y = H^-1 (r_P - A_{P,S0} B^-1 r_S0),  x_S0 = B^-1 r_S0 - Z y,  x_P = y,
 * the block elimination of A_SS with S0 first, as the Schur-complement
 * method of active-set quadratic programming does it (Gill, Murray,
 * Saunders and Wright, "A Schur-complement method for sparse quadratic
 * programming", 1990; Bartlett and Biegler, "QPSchur", 2006).  A
 * sub-solve then costs two solves with B's factor and O(k^2) work instead
 * of a factorisation.
 *
 * Rows removed from it: the same complement, bordered by unit columns (the
 * same sources).  With D = S0 less S (removed) and P = S less S0 (added),
 * A_SS x_S = r_S is the system
 *   B x_S0 + A_{S0,P} x_P + E_D l = r~,   r~ = r on S0 less D, 0 on D,
 *   A_{P,S0} x_S0 + A_PP x_P     = r_P,
 *   E_D^T x_S0                    = 0,
 * E_D the unit columns of D: x_D = 0, and the slack l frees the removed
 * rows' equations.  The border G = [E_D, A_{S0,P}] (D first) gives
 *   Z = B^-1 G,  H = C - G^T Z  (C: A_PP on P, 0 elsewhere),
 *   y = H^-1 ([0; r_P] - G^T B^-1 r~),  x_S0 = B^-1 r~ - Z y,  x_P = y_P.
 * H has an LDL^T factor in the order D then P without pivoting: its D
 * block is -(B^-1)_DD, negative definite for a definite B, and the Schur
 * complement of D in H is the complement of P on S0 less D, definite when
 * A_SS is; its P pivots are those of the rank test
 * below.  With no row removed this is the Cholesky factor above, as
 * before.  The removed rows' terms come from B^-1, which an ill-conditioned
 * B makes large against the answer (a removed row nearly parallel to one
 * that stays), and their subtraction then loses digits that a
 * factorisation of A_SS would not: so a sub-solve with removed rows checks
 * its residual on S, |r_S - A_SS x_S| <= 1000 |S| eps (|r_S| + |A_SS| |x_S|)
 * (the infinity norm, each row's terms summed in magnitude), and factors S
 * afresh when it fails (counted in refined).  B is factored again, with
 * S0 = S, when the values or the pattern of A changed, when more than
 * KMAX rows are removed and added together (then the k solves and the k x k
 * factorisation cost more than a factorisation of B), or when a pivot of
 * the D block is not negative (rounding).
 *
 * Why not CHOLMOD's rowadd and rowdel.  They modify a simplicial LDL^T
 * factor in place, a row at a time, and would answer a pivot with less
 * work again; but they work on CHOLMOD's factor object, past the solver
 * interface (the stepper's choice of solver, its options and its least
 * squares); rowadd reallocates every column of the new row's path that
 * has no spare slot (CHOLMOD/Modify/t_cholmod_rowadd_worker.c: "Lp[j] +
 * Lnz[j] >= Lp[Lnext[j]]"), and a numeric factorisation leaves every
 * column packed, so the pivots would allocate inside a step; and a
 * sequence of rank-one downdates carries its rounding from pivot to pivot,
 * where the complement here is formed afresh from B at each sub-solve.
 *
 * The rank rule.  A_SS is taken as definite when
 *   - the solver found B = M_S0 definite: its own test (cholmod: every
 *     pivot of the LDL^T of P M P^T above rank_tol max_k M_kk, that is
 *     rank_tol max_{k in S0} A_kk; lib/solvers/cholmod.c), and
 *   - every pivot d_a of the Cholesky factorisation of H (the Schur
 *     complement of added row a on S0 and the rows added before it) is
 *     above rank_tol max_{k in S} A_kk,
 * the dense sub-solve's test (dense.c: Cholesky pivots against rank_tol
 * times the largest diagonal entry) in the elimination order B's ordering
 * and then the added rows.  Otherwise A_SS is rank deficient to rank_tol
 * (dependent rows: a contact repeated, rows through pinned particles), and
 * the sub-solve is the dense one (its Cholesky test, then the
 * minimum-norm least-squares solution by eigen-decomposition) on A_SS
 * gathered from the compressed rows, when |S| is within the workspace's
 * dense capacity dcap and DENSE_MAX rows (the cost of an
 * eigen-decomposition); beyond, the solver's least-squares path on M_S
 * (cholmod: the minimum-norm solution by the shifted iteration of
 * lib/solvers/lsq.c), which cuts near-null directions at about
 * sqrt(rank_tol) rather than rank_tol.  The dense fallback decides rank as
 * the dense path does, so that the two paths agree on which rows depend
 * on which (lcp's pivoting relies on its sub-solves cutting what its own
 * test dw_d <= rank_tol max A_kk calls dependent).
 *
 * Results.  The solution is the dense path's to rounding (another
 * elimination order; with rows removed, to the residual the check above
 * allows), not bit for bit.  The same calls give the same
 * bits: what a sub-solve keeps for the next (B, its set S0, the columns
 * z_a) is a function of the calls made since A's values last changed.
 *
 * Storage: M's values (nnz_cap) and diagonal, S0, the columns z (cap x
 * KMAX) and two vectors, allocated when the solver is attached
 * (cdyn_as_ws_sparse); the solver allocates its state then and its
 * analyses when it meets a pattern.  Nothing else allocates.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "activeset/activeset.h"
#include "core/internal.h"

/* The most rows added to a factored set before it is factored again. */
#define KMAX 16
/* The largest rank-deficient set given to the dense path: its
   eigen-decomposition (about 9 s^3 flops) takes about a second at 1024
   rows, and grows as the cube. */
#define DENSE_MAX 1024

struct cdyn_as_sfac {
  const cdyn_solver_type *type;
  void *state;
  const void *opts;
  size_t cap, nnz_cap;
  double *mval;          /* nnz_cap: M_S0's values, in A's pattern */
  double *mdiag;         /* cap: its diagonal */
  cdyn_matrix M;         /* the view the solver gets */
  /* The factor of B = M_S0: valid for A's pattern and values as stamped. */
  int valid, singular;
  unsigned long pattern, values;
  double rank_tol;
  unsigned char *base;   /* cap: S0 */
  /* The columns z = B^-1 A_{S0,p} of the rows added: zrow[j] (cap: none)
     has its column at Z + j cap. */
  size_t zrow[KMAX];
  double *Z;             /* cap * KMAX */
  double *rb, *xb;       /* cap: a right-hand side and a solution of B */
  size_t prow[KMAX], pcol[KMAX]; /* the rows added in this sub-solve, and their columns */
  double H[KMAX * KMAX]; /* the Schur complement, then its Cholesky factor */
  cdyn_as_sparse_counts counts;
};

void cdyn_as_sfac_free(cdyn_as_sfac *f)
{
  if (!f)
    return;
  if (f->state)
    f->type->free(f->state);
  free(f->mval);
  free(f->mdiag);
  free(f->base);
  free(f->Z);
  free(f->rb);
  free(f->xb);
  free(f);
}

size_t cdyn_as_sfac_nnz_cap(const cdyn_as_sfac *f) { return f ? f->nnz_cap : 0; }

static int m_apply(const void *ctx, const double *x, double *y)
{
  cdyn_matrix_apply(&((const cdyn_as_sfac *)ctx)->M, x, y);
  return CDYN_OK;
}

int cdyn_as_ws_sparse_reserve(cdyn_as_ws *ws, size_t nnz_cap)
{
  if (!ws || !ws->sf)
    return cdyn_error(CDYN_EINVAL, "active set: no sparse solver attached to the workspace");
  cdyn_as_sfac *f = ws->sf;
  if (nnz_cap <= f->nnz_cap)
    return CDYN_OK;
  if (nnz_cap > (size_t)0x7fffffff)
    return cdyn_error(CDYN_EINVAL, "active set: %zu entries is beyond the sparse solvers' int interface", nnz_cap);
  double *v = realloc(f->mval, nnz_cap * sizeof(double));
  if (!v)
    return cdyn_error(CDYN_ENOMEM, "active set: out of memory for %zu entries", nnz_cap);
  f->mval = v;
  f->nnz_cap = nnz_cap;
  f->valid = 0;
  return CDYN_OK;
}

int cdyn_as_ws_sparse(cdyn_as_ws *ws, const cdyn_solver_type *type, const void *opts, size_t nnz_cap)
{
  if (!ws || !type)
    return cdyn_error(CDYN_EINVAL, "active set: NULL workspace or solver type");
  if (type->iterative)
    return cdyn_error(CDYN_EINVAL,
                      "active set: the sparse sub-solves need a direct solver; '%s' is iterative (its solves are "
                      "not exact enough for the algorithms' sign tests)",
                      type->name);
  if (ws->sf && ws->sf->type == type) {
    ws->sf->opts = opts;
    return cdyn_as_ws_sparse_reserve(ws, nnz_cap);
  }
  cdyn_as_sfac_free(ws->sf);
  ws->sf = NULL;
  size_t c = ws->cap ? ws->cap : 1, nz = nnz_cap ? nnz_cap : 1;
  if (nz > (size_t)0x7fffffff)
    return cdyn_error(CDYN_EINVAL, "active set: %zu entries is beyond the sparse solvers' int interface", nnz_cap);
  cdyn_as_sfac *f = calloc(1, sizeof *f);
  if (!f)
    return cdyn_error(CDYN_ENOMEM, "active set: out of memory");
  f->type = type;
  f->opts = opts;
  f->cap = ws->cap;
  f->nnz_cap = nz;
  f->mval = malloc(nz * sizeof(double));
  f->mdiag = malloc(c * sizeof(double));
  f->base = calloc(c, 1);
  f->Z = malloc(c * KMAX * sizeof(double));
  f->rb = malloc(c * sizeof(double));
  f->xb = malloc(c * sizeof(double));
  if (!ws->pos)
    ws->pos = malloc(c * sizeof(long));
  if (!f->mval || !f->mdiag || !f->base || !f->Z || !f->rb || !f->xb || !ws->pos) {
    cdyn_as_sfac_free(f);
    return cdyn_error(CDYN_ENOMEM, "active set: out of memory for the sparse sub-solves of %zu rows", ws->cap);
  }
  int rc = type->alloc(&f->state, ws->cap);
  if (rc) {
    f->state = NULL;
    cdyn_as_sfac_free(f);
    return rc;
  }
  for (size_t j = 0; j < KMAX; j++)
    f->zrow[j] = (size_t)-1;
  ws->sf = f;
  return CDYN_OK;
}

void cdyn_as_ws_sparse_counts(const cdyn_as_ws *ws, cdyn_as_sparse_counts *counts)
{
  if (ws && ws->sf)
    *counts = ws->sf->counts;
  else
    memset(counts, 0, sizeof *counts);
}

/* Factor B = M_S0 with S0 = S. */
static int factor_base(cdyn_as_sfac *f, const cdyn_as_sparse *sp, const unsigned char *S, double rank_tol)
{
  size_t n = sp->n;
  double dmax = 0, dall = 0;
  for (size_t i = 0; i < n; i++) {
    double d = sp->val[sp->rowptr[i]];
    if (S[i] && d > dmax)
      dmax = d;
    if (d > dall)
      dall = d;
  }
  double c = dmax > 0 ? dmax : dall > 0 ? dall : 1.0;
  for (size_t i = 0; i < n; i++) {
    int q0 = sp->rowptr[i], q1 = sp->rowptr[i + 1];
    if (S[i]) {
      for (int q = q0; q < q1; q++)
        f->mval[q] = S[sp->col[q]] ? sp->val[q] : 0.0;
    } else {
      for (int q = q0; q < q1; q++)
        f->mval[q] = 0.0;
      f->mval[q0] = c;
    }
    f->mdiag[i] = f->mval[q0];
  }
  memcpy(f->base, S, n);
  for (size_t j = 0; j < KMAX; j++)
    f->zrow[j] = (size_t)-1;
  f->M = (cdyn_matrix){.m = n, .nnz = sp->nnz, .rowptr = sp->rowptr, .col = sp->col, .val = f->mval,
                       .diag = f->mdiag, .pattern = sp->pattern, .apply = m_apply, .ctx = f};
  f->valid = 0;
  cdyn_solve_info info;
  memset(&info, 0, sizeof info);
  double t0 = cdyn_clock();
  int rc = f->type->setup(f->state, &f->M, rank_tol, f->opts, &info);
  f->counts.time_factor += cdyn_clock() - t0;
  f->counts.factorizations++;
  f->counts.analyses += info.analyses;
  if (rc < 0)
    return rc;
  f->singular = info.fallback || info.rank < n;
  f->valid = 1;
  f->pattern = sp->pattern;
  f->values = sp->values;
  f->rank_tol = rank_tol;
  return CDYN_OK;
}

/* x = B^-1 b (x may not alias b). */
static int base_solve(cdyn_as_sfac *f, const double *b, double *x)
{
  cdyn_solve_info info;
  memset(&info, 0, sizeof info);
  double t0 = cdyn_clock();
  int rc = f->type->solve(f->state, &f->M, 1, b, x, f->rank_tol, f->opts, &info);
  f->counts.time_solve += cdyn_clock() - t0;
  f->counts.solves++;
  return rc < 0 ? rc : CDYN_OK;
}

/* A rank-deficient A_SS: the dense sub-solve within dcap and DENSE_MAX
   rows, else the solver's least squares on M_S. */
static int deficient(cdyn_as_ws *ws, const unsigned char *S, size_t s, const double *r, double rank_tol, double *x)
{
  cdyn_as_sfac *f = ws->sf;
  const cdyn_as_sparse *sp = ws->sp;
  size_t n = sp->n;
  if (s <= ws->dcap && s <= DENSE_MAX) {
    f->counts.dense++;
    return cdyn_as_dense_subsolve(ws, n, NULL, S, r, rank_tol, x, NULL);
  }
  int rc, current = f->valid && f->pattern == sp->pattern && f->values == sp->values && f->rank_tol == rank_tol &&
                    !memcmp(f->base, S, n);
  if (!current && (rc = factor_base(f, sp, S, rank_tol)))
    return rc;
  f->counts.lsq++;
  for (size_t i = 0; i < n; i++)
    f->rb[i] = S[i] ? r[i] : 0.0;
  if ((rc = base_solve(f, f->rb, f->xb)))
    return rc;
  for (size_t i = 0; i < n; i++)
    x[i] = S[i] ? f->xb[i] : 0.0;
  return CDYN_OK;
}

/* sum_{i in S0} A_ip v_i over row p's entries (A symmetric). */
static double base_dot(const cdyn_as_sfac *f, const cdyn_as_sparse *sp, size_t p, const double *v)
{
  double acc = 0;
  for (int q = sp->rowptr[p]; q < sp->rowptr[p + 1]; q++)
    if (f->base[sp->col[q]])
      acc += sp->val[q] * v[sp->col[q]];
  return acc;
}

/* A_pq (0 when not stored). */
static double entry(const cdyn_as_sparse *sp, size_t p, size_t q)
{
  for (int k = sp->rowptr[p]; k < sp->rowptr[p + 1]; k++)
    if ((size_t)sp->col[k] == q)
      return sp->val[k];
  return 0.0;
}

int cdyn_as_sparse_subsolve(cdyn_as_ws *ws, const unsigned char *S, const double *r, double rank_tol, double *x,
                            size_t *size)
{
  cdyn_as_sfac *f = ws->sf;
  const cdyn_as_sparse *sp = ws->sp;
  if (!f || !sp)
    return cdyn_error(CDYN_EINVAL, "active set: a sparse sub-solve without an attached solver");
  size_t n = sp->n, s = 0;
  double dmax = 0;
  for (size_t i = 0; i < n; i++) {
    x[i] = 0;
    if (S[i]) {
      s++;
      if (sp->val[sp->rowptr[i]] > dmax)
        dmax = sp->val[sp->rowptr[i]];
    }
  }
  if (size)
    *size = s;
  if (!s)
    return CDYN_OK;
  /* Can B's factor serve: A unchanged, and S differs from S0 by at most
     KMAX rows, removed from S0 (D, first in prow) or added to it (P)? */
  int fresh = f->valid && f->pattern == sp->pattern && f->values == sp->values && f->rank_tol == rank_tol;
  size_t k = 0, nd = 0;
  for (size_t i = 0; i < n && fresh; i++)
    if (f->base[i] && !S[i]) {
      if (k == KMAX)
        fresh = 0;
      else
        k++, nd++;
    } else if (S[i] && !f->base[i]) {
      if (k == KMAX)
        fresh = 0;
      else
        k++;
    }
  if (fresh && k) {
    size_t a = 0, b = nd;
    for (size_t i = 0; i < n; i++)
      if (f->base[i] && !S[i])
        f->prow[a++] = i;
      else if (S[i] && !f->base[i])
        f->prow[b++] = i;
  }
  int rc, tries = 0;
again:
  if (!fresh || (f->singular && k)) {
    if ((rc = factor_base(f, sp, S, rank_tol)))
      return rc;
    k = nd = 0;
  }
  if (f->singular)
    return deficient(ws, S, s, r, rank_tol, x);
  if (k) {
    /* The columns z = B^-1 g of the border rows (g: A_{S0,p} for an added
       row p, e_d for a removed row d; a row is one or the other while B
       stands): keep those still in the border, solve for the new ones in
       the slots the others free. */
    unsigned char keep[KMAX] = {0};
    for (size_t a = 0; a < k; a++) {
      f->pcol[a] = KMAX;
      for (size_t j = 0; j < KMAX; j++)
        if (f->zrow[j] == f->prow[a]) {
          f->pcol[a] = j;
          keep[j] = 1;
        }
    }
    for (size_t a = 0; a < k; a++) {
      if (f->pcol[a] < KMAX)
        continue;
      size_t j = 0;
      while (keep[j])
        j++;
      keep[j] = 1;
      f->pcol[a] = j;
      f->zrow[j] = f->prow[a];
      size_t p = f->prow[a];
      memset(f->rb, 0, n * sizeof(double));
      if (a < nd)
        f->rb[p] = 1.0;
      else
        for (int q = sp->rowptr[p]; q < sp->rowptr[p + 1]; q++)
          if (f->base[sp->col[q]])
            f->rb[sp->col[q]] = sp->val[q];
      if ((rc = base_solve(f, f->rb, f->Z + j * f->cap)))
        return rc;
    }
    /* H = C - G^T Z (C: A_PP on the added rows, 0 elsewhere) and its
       LDL^T factor (L unit lower, row-major in H below the diagonal, D on
       it): the removed rows first, whose pivots are those of
       -(B^-1)_DD and must be negative, then the added rows, each pivot the
       Schur complement of its row on S0 less D and the rows added before
       it, with the rank test. */
    double *H = f->H;
    for (size_t a = 0; a < k; a++)
      for (size_t b = a; b < k; b++) {
        const double *z = f->Z + f->pcol[b] * f->cap;
        double g = a < nd ? z[f->prow[a]] : base_dot(f, sp, f->prow[a], z);
        double c = a >= nd && b >= nd ? entry(sp, f->prow[a], f->prow[b]) : 0.0;
        H[a * k + b] = H[b * k + a] = c - g;
      }
    int refactor = 0;
    if (!nd) {
      /* Rows added only: the Cholesky factor of H (lower, row-major in H),
         each pivot the Schur complement of its row on S0 and the rows
         added before it, with the rank test. */
      for (size_t j = 0; j < k; j++) {
        double d = H[j * k + j];
        for (size_t m = 0; m < j; m++)
          d -= H[j * k + m] * H[j * k + m];
        if (!(d > rank_tol * dmax))
          return deficient(ws, S, s, r, rank_tol, x);
        double l = sqrt(d);
        H[j * k + j] = l;
        for (size_t i = j + 1; i < k; i++) {
          double v = H[i * k + j];
          for (size_t m = 0; m < j; m++)
            v -= H[i * k + m] * H[j * k + m];
          H[i * k + j] = v / l;
        }
      }
    }
    for (size_t j = 0; nd && j < k && !refactor; j++) {
      double d = H[j * k + j];
      for (size_t m = 0; m < j; m++)
        d -= H[j * k + m] * H[j * k + m] * H[m * k + m];
      if (j < nd && !(d < 0)) {
        refactor = 1; /* rounding: B is definite, so -(B^-1)_DD is */
        break;
      }
      if (j >= nd && !(d > rank_tol * dmax))
        return deficient(ws, S, s, r, rank_tol, x);
      H[j * k + j] = d;
      for (size_t i = j + 1; i < k; i++) {
        double v = H[i * k + j];
        for (size_t m = 0; m < j; m++)
          v -= H[i * k + m] * H[j * k + m] * H[m * k + m];
        H[i * k + j] = v / d;
      }
    }
    if (refactor) {
      fresh = 0;
      goto again;
    }
  }
  /* xb = B^-1 r~ (r~ = r on S0 less D, 0 on D), then the border:
     y = H^-1 (t), t = [0; r_P] - G^T xb; x_S0 = xb - Z y, x_P = y_P
     (x_D = 0: y_D is the slack that frees the removed rows' equations). */
  for (size_t i = 0; i < n; i++)
    f->rb[i] = f->base[i] && S[i] ? r[i] : 0.0;
  if ((rc = base_solve(f, f->rb, f->xb)))
    return rc;
  if (k) {
    double y[KMAX];
    const double *H = f->H;
    for (size_t a = 0; a < k; a++) {
      double v = a < nd ? -f->xb[f->prow[a]] : r[f->prow[a]] - base_dot(f, sp, f->prow[a], f->xb);
      for (size_t m = 0; m < a; m++)
        v -= H[a * k + m] * y[m];
      y[a] = nd ? v : v / H[a * k + a];
    }
    for (size_t a = k; a-- > 0;) {
      double v = nd ? y[a] / H[a * k + a] : y[a];
      for (size_t m = a + 1; m < k; m++)
        v -= H[m * k + a] * y[m];
      y[a] = nd ? v : v / H[a * k + a];
    }
    for (size_t a = 0; a < k; a++) {
      const double *z = f->Z + f->pcol[a] * f->cap;
      for (size_t i = 0; i < n; i++)
        if (f->base[i])
          f->xb[i] -= z[i] * y[a];
    }
    for (size_t a = nd; a < k; a++)
      f->xb[f->prow[a]] = y[a];
    f->counts.updates++;
    if (nd) {
      /* Removed rows: the complement subtracts B^-1 terms that B's
         conditioning may make large against the answer.  Its residual on
         S must be that of a backward-stable solve (1000 s eps of |r| +
         |A_SS| |x|), or S is factored afresh. */
      double rn = 0, sc = 0;
      for (size_t i = 0; i < n; i++) {
        if (!S[i])
          continue;
        double acc = r[i], mag = fabs(r[i]);
        for (int q = sp->rowptr[i]; q < sp->rowptr[i + 1]; q++) {
          size_t j = (size_t)sp->col[q];
          double t = S[j] ? sp->val[q] * f->xb[j] : 0.0;
          acc -= t, mag += fabs(t);
        }
        rn = fmax(rn, fabs(acc));
        sc = fmax(sc, mag);
      }
      if (!(rn <= 1e3 * (double)s * DBL_EPSILON * sc) && tries++ == 0) {
        f->counts.refined++;
        fresh = 0;
        goto again;
      }
    }
  }
  for (size_t i = 0; i < n; i++)
    x[i] = S[i] ? f->xb[i] : 0.0;
  if (!cdyn_all_finite(x, n))
    return cdyn_error(CDYN_ENONFINITE, "active set: a sparse sub-solve of %zu rows gave a non-finite result", s);
  return CDYN_OK;
}
