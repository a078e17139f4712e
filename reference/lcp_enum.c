/*
 * reference/lcp_enum.c: the contact problem solved by trying every handled
 * set (the "exact reference for small sets" of the notes on 003).
 *
 * Equations (see lcp_enum.h): for each subset S of the inequality rows I,
 * with H = S + E (E the equality rows),
 *   A_HH mu_H = -b_H,  mu = 0 off H,  w = A mu + b,
 * accepted when mu_S >= -tol_mu, w_{I \ S} >= -tol_w and |w_H| <= tol_w.
 * This is the definition of a solution of the mixed linear
 * complementarity problem (Cottle, Pang and Stone, "The Linear
 * Complementarity Problem", 1992, §1.1) read one complementary pair of
 * index sets at a time, with nothing chosen by a pivoting rule.
 *
 * Choices made
 * ------------
 * - The solve is LAPACK's dgelsd (SVD, minimum-norm least squares, rank
 *   cut-off REF_LCP_RCOND times the largest singular value) on the dense
 *   block A_HH, which shares no code with the library's Cholesky or
 *   eigen-decomposition sub-solve.  The least-squares solution of a
 *   singular but consistent block is a solution; an inconsistent one
 *   leaves |w_H| > tol_w and is rejected.  A_HH is symmetric, so its
 *   column-major copy is itself.
 * - The subset returned is the smallest accepted one; among accepted
 *   subsets of that size, the one with the smallest max_k |mu_k|, then
 *   the lowest bitmask, so that the answer does not depend on the order
 *   of the loop.  All accepted subsets solve the problem to rounding (w
 *   is unique), but their rounding is not the same: the error of w and of
 *   the accelerations grows with the multipliers, and a degenerate problem
 *   can be solved both by a well-conditioned set and by one of two nearly
 *   antiparallel walls with multipliers of 3e4 and accelerations good to
 *   only about 1e-7 (trial 2101 of the census, seed 1, once the floor
 *   below accepts the latter).  With *accepted wanted all subsets are
 *   visited, so that it counts them all (1 for a definite A and a
 *   non-degenerate problem); without, the search stops after the size of
 *   the first accepted subset.
 * - w = A mu + b is formed from the full A in double precision, row by
 *   row.  Its tests use tol_w plus the rounding that a solution computed
 *   in floating point keeps, REF_LCP_ROUND n eps (|b_k| + sum_j |A_kj mu_j|):
 *   a problem whose solution has multipliers 1e6 times |b| / A_kk (a
 *   nearly dependent set of rows) has residuals of rounding far above a
 *   tol_w relative to |b|, and is still solved by that set.
 * - A row k outside H has, besides that, the error that the solve's own
 *   rounding puts into mu_H, carried to w_k.  dgelsd is normwise backward
 *   stable: the computed mu_H solves (A_HH + E) mu_H = -(b_H + e) with
 *   |E|_2 <= g |A_HH|_2 and |e|_2 <= g |b_H|_2, g a small multiple of
 *   h eps.  To first order mu_H is then off by
 *   dmu_H = -A_HH^+ (E mu_H + e), and w_k = A_kH mu_H + b_k by
 *   A_kH dmu_H = -c_k^T (E mu_H + e), with c_k = A_HH^+ A_Hk (A_HH is
 *   symmetric), so by at most
 *     |c_k|_2 g (|A_HH|_2 |mu_H|_2 + |b_H|_2).
 *   c_k are the coefficients of row k in terms of the rows of H.  When
 *   row k nearly depends on H with large coefficients (two nearly
 *   antiparallel walls on one particle in H and a third row through the
 *   same particle outside it), this term is far above the rounding of the
 *   product: in trial 2557 of the census (seed 1), the exact solution has
 *   w_4 = 0 outside H with |c_4| ~ 3e3, and the solve leaves
 *   w_4 = -1.7e-9, below -tol_w - the product's floor = -1.18e-9, so that
 *   no set was accepted.  The floor of a row outside H therefore adds
 *   this bound with g = REF_LCP_ROUND h eps; c_k comes from the same
 *   dgelsd call (one right-hand side per row outside H) and |A_HH|_2 is
 *   its largest singular value.
 * - The norms in that floor are formed scaled (norm2), and a set whose w
 *   or floor is not finite is not accepted: a problem with b_k = -1e300
 *   once overflowed |b_H|_2^2, and the infinite floor accepted a set that
 *   left w = -1e300 on a row outside H.
 * The cost is 2^|I| dense SVDs, fine for the small problems of tests.
 */
#include "lcp_enum.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "cdyn/error.h"

typedef struct {
  double *a, *r, *sv, *work, *mu, *w;
  double *cn; /* |c_k|_2 of the rows outside H (see the floor above) */
  lapack_int *iwork;
  size_t *rows; /* the rows of H */
  size_t *ineq; /* the inequality rows, in index order */
  lapack_int lwork;
} enum_ws;

static void ws_free(enum_ws *e)
{
  free(e->a);
  free(e->r);
  free(e->sv);
  free(e->work);
  free(e->mu);
  free(e->w);
  free(e->cn);
  free(e->iwork);
  free(e->rows);
  free(e->ineq);
}

/*
 * The 2-norm of x[0 .. m-1], scaled by the largest magnitude first so that
 * the squares cannot overflow: a fuzzed problem with b_k = -1e300 made
 * |b_H|_2^2 infinite, so the floor below became infinite and a set that
 * left w_k = -1e300 outside H was accepted.
 */
static double norm2(const double *x, size_t m)
{
  double big = 0, s = 0;
  for (size_t i = 0; i < m; i++)
    big = fmax(big, fabs(x[i]));
  if (big == 0)
    return 0;
  for (size_t i = 0; i < m; i++) {
    double t = x[i] / big;
    s += t * t;
  }
  return big * sqrt(s);
}

static int popcount(unsigned long x)
{
  int c = 0;
  for (; x; x &= x - 1)
    c++;
  return c;
}

int ref_lcp_enumerate(size_t n, const double *A, const double *b, const unsigned char *equality,
                      double tol_w, double tol_mu, double *mu, double *w, unsigned char *handled,
                      unsigned long *accepted)
{
  const char *fn = "ref_lcp_enumerate";
  if (accepted)
    *accepted = 0;
  if (n == 0)
    return cdyn_error(CDYN_EINVAL, "%s: n = 0 rows", fn);
  if (!A || !b || !mu || !w)
    return cdyn_error(CDYN_EINVAL, "%s: A, b, mu and w must not be NULL", fn);
  if (!(tol_w > 0 && isfinite(tol_w) && tol_mu > 0 && isfinite(tol_mu)))
    return cdyn_error(CDYN_EINVAL, "%s: tol_w = %g and tol_mu = %g must be positive and finite", fn,
                      tol_w, tol_mu);
  size_t m = 0;
  for (size_t k = 0; k < n; k++)
    if (!(equality && equality[k]))
      m++;
  if (m > REF_LCP_MAX_INEQ)
    return cdyn_error(CDYN_EINVAL, "%s: %zu inequality rows, more than the %d enumerated", fn, m,
                      REF_LCP_MAX_INEQ);
  if (n > 4096)
    return cdyn_error(CDYN_EINVAL, "%s: n = %zu rows is too many for a dense reference", fn, n);
  for (size_t k = 0; k < n * n; k++)
    if (!isfinite(A[k]))
      return cdyn_error(CDYN_ENONFINITE, "%s: A is not finite", fn);
  for (size_t k = 0; k < n; k++)
    if (!isfinite(b[k]))
      return cdyn_error(CDYN_ENONFINITE, "%s: b is not finite", fn);

  enum_ws e;
  memset(&e, 0, sizeof e);
  e.a = malloc(n * n * sizeof *e.a);
  e.r = malloc(n * (n + 1) * sizeof *e.r);
  e.cn = malloc(n * sizeof *e.cn);
  e.sv = malloc(n * sizeof *e.sv);
  e.mu = malloc(n * sizeof *e.mu);
  e.w = malloc(n * sizeof *e.w);
  e.rows = malloc(n * sizeof *e.rows);
  e.ineq = malloc((m ? m : 1) * sizeof *e.ineq);
  if (!e.a || !e.r || !e.cn || !e.sv || !e.mu || !e.w || !e.rows || !e.ineq) {
    ws_free(&e);
    return cdyn_error(CDYN_ENOMEM, "%s: out of memory for %zu rows", fn, n);
  }
  for (size_t k = 0, i = 0; k < n; k++)
    if (!(equality && equality[k]))
      e.ineq[i++] = k;

  /* Workspace for the largest block (n rows) with the most right-hand
     sides (n, the empty H having none); smaller blocks need less. */
  {
    double q = 0;
    lapack_int iq = 0, rank = 0;
    lapack_int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, (lapack_int)n,
                                          e.a, (lapack_int)n, e.r, (lapack_int)n, e.sv, REF_LCP_RCOND,
                                          &rank, &q, -1, &iq);
    if (info != 0) {
      ws_free(&e);
      return cdyn_error(CDYN_ESOLVE, "%s: dgelsd workspace query failed (info %d)", fn, (int)info);
    }
    e.lwork = (lapack_int)q + 1;
    e.work = malloc((size_t)e.lwork * sizeof *e.work);
    e.iwork = malloc((size_t)(iq > 1 ? iq : 1) * sizeof *e.iwork);
    if (!e.work || !e.iwork) {
      ws_free(&e);
      return cdyn_error(CDYN_ENOMEM, "%s: out of memory for the SVD workspace", fn);
    }
  }

  unsigned long count = 0, best = 0;
  int best_size = -1;
  double best_mumax = 0;
  unsigned long nsub = 1ul << m;
  /*
   * Subsets in order of size, and within a size in increasing bitmask
   * order (Gosper's next-combination step), so that the first accepted
   * one is the answer; without a count wanted the search stops there.
   */
  int size_now = 0;
  unsigned long mask = 0;
  for (unsigned long visited = 0; visited < nsub; visited++) {
    if (visited) {
      if (mask == 0 || size_now == 0 || (mask | ((1ul << size_now) - 1ul) << (m - (size_t)size_now)) == mask) {
        /* the last subset of this size: the first of the next size */
        size_now++;
        mask = (1ul << size_now) - 1ul;
      } else {
        unsigned long c = mask & (~mask + 1ul), r = mask + c;
        mask = (((r ^ mask) >> 2) / c) | r;
      }
    }
    if (!accepted && best_size >= 0 && size_now > best_size)
      break;
    /* H = E + the inequality rows of the mask, in index order. */
    size_t h = 0;
    for (size_t k = 0, i = 0; k < n; k++) {
      int eq = equality && equality[k];
      int in = eq || ((mask >> i) & 1ul);
      if (!eq)
        i++;
      if (in)
        e.rows[h++] = k;
    }
    for (size_t k = 0; k < n; k++) {
      e.mu[k] = 0;
      e.cn[k] = 0;
    }
    double anorm = 0, munorm = 0, bnorm = 0;
    double *bh = e.w; /* b_H, for its norm; e.w is formed afresh below */
    if (h) {
      /* Right-hand sides: -b_H, then A_Hk for each row k outside H (the
         coefficients c_k of the floor above), column-major h x (1 + n - h). */
      size_t nrhs = 1;
      for (size_t c = 0; c < h; c++) {
        for (size_t r = 0; r < h; r++)
          e.a[c * h + r] = A[e.rows[r] * n + e.rows[c]];
        e.r[c] = -b[e.rows[c]];
        bh[c] = b[e.rows[c]];
      }
      for (size_t k = 0, c = 0; k < n; k++) {
        if (c < h && e.rows[c] == k) {
          c++;
          continue;
        }
        for (size_t r = 0; r < h; r++)
          e.r[nrhs * h + r] = A[e.rows[r] * n + k];
        nrhs++;
      }
      lapack_int rank = 0;
      lapack_int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, (lapack_int)h, (lapack_int)h, (lapack_int)nrhs,
                                            e.a, (lapack_int)h, e.r, (lapack_int)h, e.sv, REF_LCP_RCOND,
                                            &rank, e.work, e.lwork, e.iwork);
      if (info != 0) {
        ws_free(&e);
        return cdyn_error(CDYN_ESOLVE, "%s: dgelsd failed on a block of %zu rows (info %d)", fn, h,
                          (int)info);
      }
      for (size_t c = 0; c < h; c++)
        e.mu[e.rows[c]] = e.r[c];
      for (size_t k = 0, c = 0, q = 1; k < n; k++) {
        if (c < h && e.rows[c] == k) {
          c++;
          continue;
        }
        e.cn[k] = norm2(e.r + q * h, h);
        q++;
      }
      anorm = e.sv[0];
      munorm = norm2(e.r, h);
      bnorm = norm2(bh, h);
    }
    for (size_t k = 0; k < n; k++) {
      double acc = b[k];
      for (size_t j = 0; j < n; j++)
        acc += A[k * n + j] * e.mu[j];
      e.w[k] = acc;
    }
    /* The acceptance test, w with its rounding floor. */
    int ok = 1;
    for (size_t k = 0, i = 0; k < n && ok; k++) {
      int eq = equality && equality[k];
      int in = eq || ((mask >> i) & 1ul);
      if (!eq)
        i++;
      double scale = fabs(b[k]);
      for (size_t j = 0; j < n; j++)
        scale += fabs(A[k * n + j] * e.mu[j]);
      double tw = tol_w + REF_LCP_ROUND * (double)n * DBL_EPSILON * scale;
      if (!in)
        tw += REF_LCP_ROUND * (double)h * DBL_EPSILON * e.cn[k] * (anorm * munorm + bnorm);
      /* A w or a floor that overflowed decides nothing: the set is not
         accepted (an infinite floor would accept any w). */
      if (!isfinite(e.w[k]) || !isfinite(tw))
        ok = 0;
      else if (in)
        ok = fabs(e.w[k]) <= tw && (eq || e.mu[k] >= -tol_mu);
      else
        ok = e.w[k] >= -tw;
    }
    if (!ok)
      continue;
    count++;
    int size = popcount(mask);
    double mumax = 0;
    for (size_t k = 0; k < n; k++)
      mumax = fmax(mumax, fabs(e.mu[k]));
    if (best_size < 0 || size < best_size || (size == best_size && mumax < best_mumax)) {
      best_size = size;
      best_mumax = mumax;
      best = mask;
      memcpy(mu, e.mu, n * sizeof *mu);
      memcpy(w, e.w, n * sizeof *w);
    }
  }
  ws_free(&e);
  if (accepted)
    *accepted = count;
  if (!count)
    return cdyn_error(CDYN_ESOLVE,
                      "%s: none of the %lu handled sets is a solution within tol_w = %g, tol_mu = %g",
                      fn, nsub, tol_w, tol_mu);
  if (handled)
    for (size_t k = 0, i = 0; k < n; k++) {
      int eq = equality && equality[k];
      handled[k] = (unsigned char)(eq || ((best >> i) & 1ul));
      if (!eq)
        i++;
    }
  return CDYN_OK;
}
