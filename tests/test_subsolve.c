/*
 * test_subsolve.c: the sparse sub-solves of the active-set algorithms
 * (lib/activeset/sparse.c; the contact scheme's option subsolve=sparse)
 * against the dense ones (lib/activeset/dense.c) and against the
 * exhaustive-enumeration reference (reference/lcp_enum.c), which shares
 * no code with either.
 *
 * 1. Random contact problems with dependent rows: particles in 3-D with
 *    inverse masses W, equality rows (links between particles) and
 *    inequality rows (walls on a particle, separations of two), some
 *    inequality rows repeated or scaled copies of another (a contact
 *    found twice: A singular); A = J W J^T is given to the algorithms
 *    sparse, in the pattern of the rows that share a particle (as the
 *    contact scheme assembles it), and dense.  "lcp" through both paths
 *    agrees with the reference on w and on the accelerations W J^T mu,
 *    and "iterative" through both paths ends with the same handled set,
 *    w and accelerations.  The problems exercise each branch of the
 *    sparse path: rows added to a factored set and removed from it
 *    (Schur complements), factorisations again when more than 16 are
 *    added and removed, rank-deficient sets sent to the dense path.
 * 2. Larger problems (up to 60 rows, beyond the reference): a chain of
 *    links over walls, sparse against dense for both algorithms.
 * 3. Rank-deficient sets beyond the workspace's dense capacity: the
 *    solver's least squares (CHOLMOD's shifted iteration) instead of the
 *    dense path, against the dense path.
 * 4. The layer's argument checks; the verification of an exact answer
 *    (cdyn_as_verify) on answers derived by hand, and on a handled block
 *    that falls apart into blocks, one below the rank cut; the condition
 *    guard and the second solve after a refusal (cdyn_as_conclude); rows removed
 *    from a factored set without a factorisation, and the residual check
 *    that factors afresh where the complement loses digits.
 * 5. The contact scheme: subsolve's values, an iterative linear solver
 *    refused, a chain falling onto a floor with subsolve=sparse against
 *    subsolve=dense, and a sparse run repeated bit for bit.
 *
 * The agreement bound (test_lcp.c derives it): two backward-stable solves
 * of sets H1, H2 give w within
 *   2 c k eps (1 + cond) (|b| + max_i sum_j |A_ij| (|mu1_j| + |mu2_j|)),
 * c = 4, cond the larger of cond(A_H1H1) and cond(A_H2H2) over their
 * eigenvalues above 1e-12 of the largest (the rank cut of both paths),
 * and the accelerations within the same with the scale
 * max_j W_j sum_a |J_aj| (|mu1_a| + |mu2_a|).  The sparse path factors
 * in another order (AMD) and adds rows by Schur complements, both
 * backward stable for the definite sets it keeps (Higham, "Accuracy and
 * Stability of Numerical Algorithms", 2002, chapter 10; the block
 * elimination of a symmetric definite matrix, chapter 13); its
 * rank-deficient sets take the dense path itself.  A wrong set is off by
 * O(|b|) = O(0.1 .. 1).
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_rng.h>

#include <cdyn/cdyn.h>

#include "planted.h"

#include "activeset/activeset.h"
#include "lcp_enum.h"
#include "testutil.h"

static const double EPS = DBL_EPSILON;
#define REL_TOL 1e-9
#define RANK_TOL 1e-12

/* ---- random contact problems ------------------------------------------------------ */

#define NMAX 64 /* rows */
#define PMAX 32 /* particles */

typedef struct {
  size_t n, np;
  size_t part[NMAX][2]; /* a row's particles (part[a][1] == part[a][0]: one) */
  double jac[NMAX][2][3];
  double w[PMAX];       /* inverse masses */
  double A[NMAX * NMAX], b[NMAX];
  unsigned char eq[NMAX];
  int has_eq;
  /* The sparse A: the rows that share a particle, the diagonal first. */
  int rowptr[NMAX + 1], col[NMAX * NMAX];
  double val[NMAX * NMAX];
  cdyn_as_sparse sp;
} problem;

static void unit(gsl_rng *r, double u[3])
{
  double s;
  do {
    for (int k = 0; k < 3; k++)
      u[k] = 2 * gsl_rng_uniform(r) - 1;
    s = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  } while (s < 0.1 || s > 1);
  for (int k = 0; k < 3; k++)
    u[k] /= s;
}

static int shares(const problem *p, size_t a, size_t c)
{
  for (int s = 0; s < 2; s++)
    for (int t = 0; t < 2; t++)
      if (p->part[a][s] == p->part[c][t])
        return 1;
  return 0;
}

/* A from the rows, and its compressed rows (both triangles, the diagonal
   first, then the rows sharing a particle in index order); each call
   gives the pattern a new stamp. */
static void assemble(problem *p)
{
  static unsigned long stamp;
  size_t n = p->n;
  for (size_t a = 0; a < n; a++)
    for (size_t c = 0; c <= a; c++) {
      double s = 0;
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
          if ((i && p->part[a][1] == p->part[a][0]) || (j && p->part[c][1] == p->part[c][0]))
            continue;
          if (p->part[a][i] != p->part[c][j])
            continue;
          const double *x = p->jac[a][i], *y = p->jac[c][j];
          s += p->w[p->part[a][i]] * (x[0] * y[0] + x[1] * y[1] + x[2] * y[2]);
        }
      p->A[a * n + c] = p->A[c * n + a] = s;
    }
  int nnz = 0;
  for (size_t a = 0; a < n; a++) {
    p->rowptr[a] = nnz;
    p->col[nnz] = (int)a;
    p->val[nnz++] = p->A[a * n + a];
    for (size_t c = 0; c < n; c++)
      if (c != a && shares(p, a, c)) {
        p->col[nnz] = (int)c;
        p->val[nnz++] = p->A[a * n + c];
      }
  }
  p->rowptr[n] = nnz;
  stamp++;
  p->sp = (cdyn_as_sparse){.n = n, .nnz = (size_t)nnz, .rowptr = p->rowptr, .col = p->col, .val = p->val,
                           .pattern = stamp, .values = stamp};
}

static void add_row(problem *p, size_t i, size_t j, const double u[3], int eq)
{
  size_t a = p->n++;
  p->part[a][0] = i;
  p->part[a][1] = j;
  for (int k = 0; k < 3; k++) {
    p->jac[a][0][k] = u[k];
    p->jac[a][1][k] = -u[k];
  }
  p->eq[a] = (unsigned char)eq;
}

/*
 * A problem from gsl_rng_mt19937: np particles (2 .. 8; `big`: 20 .. 30
 * in a chain), inverse masses uniform in [0.5, 2); equality rows: links
 * between consecutive particles along random unit directions (0 .. np - 1
 * of them; `big`: all); inequality rows (1 .. 12; `big`: 20 .. 30): a
 * wall on one particle (a random unit normal) or a separation of two; a
 * third of them (after the first) repeat an earlier inequality row,
 * exactly or scaled by 2.3 (dependent rows).  b by kind:
 *   0: J W f for a random force f (uniform in [-1, 1) per component):
 *      always solvable (003 eq 6 at rest);
 *   1: planted: b = w* - A mu* for a solution (mu*, w*) (inequality rows
 *      pushing or separating with even odds, equality rows pushing
 *      either way): solvable;
 *   2: uniform in [-1, 1): may have no solution.
 */
static void random_problem(gsl_rng *r, int kind, int big, problem *p)
{
  memset(p, 0, sizeof *p);
  p->np = big ? 20 + gsl_rng_uniform_int(r, 11) : 2 + gsl_rng_uniform_int(r, 7);
  for (size_t i = 0; i < p->np; i++)
    p->w[i] = 0.5 + 1.5 * gsl_rng_uniform(r);
  size_t ne = big ? p->np - 1 : gsl_rng_uniform_int(r, p->np);
  size_t ni = big ? 20 + gsl_rng_uniform_int(r, 11) : 1 + gsl_rng_uniform_int(r, 12);
  double u[3];
  for (size_t e = 0; e < ne; e++) {
    unit(r, u);
    add_row(p, e, e + 1, u, 1);
  }
  size_t first = p->n;
  for (size_t k = 0; k < ni; k++) {
    size_t a = p->n;
    if (k > 0 && gsl_rng_uniform_int(r, 3) == 0) {
      size_t from = first + gsl_rng_uniform_int(r, a - first);
      double s = gsl_rng_uniform_int(r, 2) ? 1.0 : 2.3;
      p->part[a][0] = p->part[from][0];
      p->part[a][1] = p->part[from][1];
      for (int i = 0; i < 2; i++)
        for (int c = 0; c < 3; c++)
          p->jac[a][i][c] = s * p->jac[from][i][c];
      p->n++;
      continue;
    }
    size_t i = gsl_rng_uniform_int(r, p->np);
    unit(r, u);
    if (gsl_rng_uniform_int(r, 2)) {
      add_row(p, i, i, u, 0); /* a wall: the row's second slot is the same particle, unused */
      memset(p->jac[a][1], 0, sizeof p->jac[a][1]);
    } else {
      size_t j = gsl_rng_uniform_int(r, p->np - 1);
      if (j >= i)
        j++;
      add_row(p, i, j, u, 0);
    }
  }
  assemble(p);
  size_t n = p->n;
  if (kind == 0) {
    double f[3 * PMAX];
    for (size_t k = 0; k < 3 * p->np; k++)
      f[k] = 2 * gsl_rng_uniform(r) - 1;
    for (size_t a = 0; a < n; a++) {
      double s = 0;
      for (int i = 0; i < 2; i++) {
        if (i && p->part[a][1] == p->part[a][0])
          continue;
        size_t q = p->part[a][i];
        for (int c = 0; c < 3; c++)
          s += p->jac[a][i][c] * p->w[q] * f[3 * q + (size_t)c];
      }
      p->b[a] = s;
    }
  } else if (kind == 1) {
    double mus[NMAX], ws[NMAX];
    for (size_t a = 0; a < n; a++)
      planted_row(r, p->eq[a], &mus[a], &ws[a]);
    planted_b(n, p->A, mus, ws, p->b);
  } else {
    for (size_t a = 0; a < n; a++)
      p->b[a] = 2 * gsl_rng_uniform(r) - 1;
  }
  for (size_t a = 0; a < n; a++)
    p->has_eq |= p->eq[a];
}

/* W J^T mu (3 np values). */
static void accel(const problem *p, const double *mu, double *out)
{
  memset(out, 0, 3 * p->np * sizeof(double));
  for (size_t a = 0; a < p->n; a++)
    for (int i = 0; i < 2; i++) {
      if (i && p->part[a][1] == p->part[a][0])
        continue;
      size_t q = p->part[a][i];
      for (int c = 0; c < 3; c++)
        out[3 * q + (size_t)c] += p->w[q] * p->jac[a][i][c] * mu[a];
    }
}

/* The scale of the accelerations' rounding: max over components of
   W_q sum_a |J_aq| (|mu1_a| + |mu2_a|). */
static double accel_scale(const problem *p, const double *mu1, const double *mu2)
{
  double s[3 * PMAX] = {0}, m = 0;
  for (size_t a = 0; a < p->n; a++)
    for (int i = 0; i < 2; i++) {
      if (i && p->part[a][1] == p->part[a][0])
        continue;
      size_t q = p->part[a][i];
      for (int c = 0; c < 3; c++)
        s[3 * q + (size_t)c] += p->w[q] * fabs(p->jac[a][i][c]) * (fabs(mu1[a]) + fabs(mu2[a]));
    }
  for (size_t k = 0; k < 3 * p->np; k++)
    m = fmax(m, s[k]);
  return m;
}

/* cond of A_HH over its eigenvalues above 1e-12 of the largest (1 for an
   empty block); *deficient (may be NULL): some eigenvalue is not. */
static double block_cond_def(const problem *p, const unsigned char *H, int *deficient)
{
  if (deficient)
    *deficient = 0;
  size_t idx[NMAX], h = 0, n = p->n;
  for (size_t a = 0; a < n; a++)
    if (H[a])
      idx[h++] = a;
  if (!h)
    return 1;
  gsl_matrix *M = gsl_matrix_alloc(h, h);
  gsl_vector *ev = gsl_vector_alloc(h);
  gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(h);
  for (size_t a = 0; a < h; a++)
    for (size_t c = 0; c < h; c++)
      gsl_matrix_set(M, a, c, p->A[idx[a] * n + idx[c]]);
  gsl_eigen_symm(M, ev, ws);
  double lmax = gsl_vector_max(ev), lmin = lmax;
  for (size_t a = 0; a < h; a++) {
    double l = gsl_vector_get(ev, a);
    if (l > 1e-12 * lmax && l < lmin)
      lmin = l;
    if (!(l > 1e-12 * lmax) && deficient)
      *deficient = 1;
  }
  gsl_eigen_symm_free(ws);
  gsl_vector_free(ev);
  gsl_matrix_free(M);
  return lmax > 0 ? lmax / lmin : 1;
}

static double block_cond(const problem *p, const unsigned char *H) { return block_cond_def(p, H, NULL); }

/* The bound of the agreement of two results (see the file's header):
   on w (*uw) and on the accelerations (*ua). */
static void bounds(const problem *p, const double *mu1, const unsigned char *h1, const double *mu2,
                   const unsigned char *h2, double *uw, double *ua)
{
  size_t n = p->n;
  double cond = fmax(block_cond(p, h1), block_cond(p, h2)), bmax = 0, sw = 0;
  for (size_t a = 0; a < n; a++) {
    bmax = fmax(bmax, fabs(p->b[a]));
    double s = 0;
    for (size_t c = 0; c < n; c++)
      s += fabs(p->A[a * n + c]) * (fabs(mu1[c]) + fabs(mu2[c]));
    sw = fmax(sw, s);
  }
  double unit = 2 * 4 * (double)n * EPS * (1 + cond);
  *uw = unit * (bmax + sw);
  double sa = accel_scale(p, mu1, mu2);
  *ua = unit * (sa > 0 ? sa : DBL_MIN);
}

/* ---- running an algorithm --------------------------------------------------------- */

typedef struct {
  double mu[NMAX], w[NMAX];
  unsigned char h[NMAX];
  cdyn_activeset_report rep;
  int rc;
} result;

/* The algorithm on p through ws: dense (A given) or sparse (ws has a
   solver attached), as the contact scheme calls it. */
static void solve(cdyn_as_ws *ws, const char *alg, const problem *p, int sparse, result *out)
{
  const cdyn_activeset_type *type;
  ck_assert_int_eq(cdyn_activeset_type_find(alg, &type), CDYN_OK);
  cdyn_as_problem q = {.n = p->n, .A = sparse ? NULL : p->A, .sp = sparse ? &p->sp : NULL, .b = p->b,
                       .equality = p->has_eq ? p->eq : NULL, .rank_tol = RANK_TOL};
  cdyn_as_tolerances(&q, REL_TOL);
  ck_assert_int_eq(cdyn_as_ws_bind(ws, &q), CDYN_OK);
  memset(&out->rep, 0, sizeof out->rep);
  out->rc = type->solve(ws, &q, out->mu, out->w, out->h, &out->rep);
  if (out->rc >= 0)
    out->rc = cdyn_as_finish(&q, out->mu, out->w, out->h, &out->rep);
}

static const cdyn_solver_type *cholmod_type(void)
{
  const cdyn_solver_type *t;
  ck_assert_int_eq(cdyn_solver_type_find("cholmod", &t), CDYN_OK);
  return t;
}

/* The largest |x1 - x2| over n values. */
static double maxdiff(const double *x1, const double *x2, size_t n)
{
  double d = 0;
  for (size_t k = 0; k < n; k++)
    d = fmax(d, fabs(x1[k] - x2[k]));
  return d;
}

/* Check that two results of one problem agree on w and on the
   accelerations to the bound. */
static void agree(const problem *p, const result *x, const result *y, const char *what, int t, double *worst)
{
  double uw, ua, a1[3 * PMAX], a2[3 * PMAX];
  bounds(p, x->mu, x->h, y->mu, y->h, &uw, &ua);
  accel(p, x->mu, a1);
  accel(p, y->mu, a2);
  double dw = maxdiff(x->w, y->w, p->n), da = maxdiff(a1, a2, 3 * p->np);
  *worst = fmax(*worst, fmax(dw / uw, da / ua));
  ck_assert_msg(dw <= uw, "problem %d (%zu rows, %s): |dw| = %.3g > %.3g", t, p->n, what, dw, uw);
  ck_assert_msg(da <= ua, "problem %d (%zu rows, %s): |da| = %.3g > %.3g", t, p->n, what, da, ua);
}

/* ---- 1. random problems against the dense path and the reference ------------------ */

#ifndef N_RANDOM /* overridable by hand: -DN_RANDOM=... -DSEED=... */
#define N_RANDOM 600
#endif
#ifndef SEED
#define SEED 20250611ul
#endif

START_TEST(test_random_vs_dense_and_enumeration)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED);
  cdyn_as_ws wd, wsp;
  ck_assert_int_eq(cdyn_as_ws_alloc(&wd, NMAX), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_alloc(&wsp, NMAX), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_sparse(&wsp, cholmod_type(), NULL, NMAX * NMAX), CDYN_OK);
  int solvable = 0, unsolvable = 0, deficient = 0, iter_same = 0, iter_fail = 0;
  double worst = 0;
  static problem p;
  for (int t = 0; t < N_RANDOM; t++) {
    random_problem(r, t % 3, 0, &p);
    size_t n = p.n;
    double tol_w, tol_mu;
    {
      cdyn_as_problem q = {.n = n, .A = p.A, .b = p.b};
      cdyn_as_tolerances(&q, REL_TOL);
      tol_w = q.tol_w;
      tol_mu = q.tol_mu;
    }
    result ref, ld, ls, id, is;
    unsigned long acc;
    ref.rc = ref_lcp_enumerate(n, p.A, p.b, p.has_eq ? p.eq : NULL, tol_w, tol_mu, ref.mu, ref.w, ref.h, &acc);
    ck_assert_msg(ref.rc == CDYN_OK || ref.rc == CDYN_ESOLVE, "problem %d: reference: %s", t, cdyn_errmsg());
    solve(&wd, "lcp", &p, 0, &ld);
    solve(&wsp, "lcp", &p, 1, &ls);
    /* The two paths fail alike, and a problem without solution is one. */
    ck_assert_msg((ld.rc < 0) == (ls.rc < 0), "problem %d: lcp dense %d, sparse %d (%s)", t, ld.rc, ls.rc,
                  cdyn_errmsg());
    if (ref.rc != CDYN_OK) {
      ck_assert_msg(ld.rc == CDYN_EINFEASIBLE && ls.rc == CDYN_EINFEASIBLE,
                    "problem %d: the reference finds no solution; lcp dense %d, sparse %d", t, ld.rc, ls.rc);
      unsolvable++;
    } else {
      ck_assert_msg(ld.rc == CDYN_OK && ls.rc == CDYN_OK, "problem %d (%zu rows, kind %d): lcp dense %d, sparse %d",
                    t, n, t % 3, ld.rc, ls.rc);
      ck_assert_msg(!ls.rep.pulls && !ls.rep.violates, "problem %d: sparse lcp pulls %d, violates %d", t,
                    ls.rep.pulls, ls.rep.violates);
      solvable++;
      agree(&p, &ls, &ld, "lcp sparse vs dense", t, &worst);
      agree(&p, &ls, &ref, "lcp sparse vs reference", t, &worst);
    }
    unsigned char all[NMAX];
    int def;
    memset(all, 1, n);
    block_cond_def(&p, all, &def);
    deficient += def;
    /* iterative: its path of sets, and so its result, is the dense one's. */
    solve(&wd, "iterative", &p, 0, &id);
    solve(&wsp, "iterative", &p, 1, &is);
    ck_assert_msg(id.rc == is.rc, "problem %d: iterative dense %d, sparse %d", t, id.rc, is.rc);
    if (id.rc == CDYN_OK) {
      ck_assert_msg(!memcmp(id.h, is.h, n), "problem %d: iterative's handled sets differ", t);
      agree(&p, &is, &id, "iterative sparse vs dense", t, &worst);
      iter_same++;
    } else {
      iter_fail++;
    }
  }
  cdyn_as_sparse_counts c;
  cdyn_as_ws_sparse_counts(&wsp, &c);
  if (getenv("CDYN_TEST_VERBOSE"))
    printf("sparse vs dense: %d solvable, %d without solution, %d with a singular A; iterative %d agree, %d fail "
           "alike; worst |difference| / bound %.3g; %lu factorisations, %lu solves, %lu sub-solves by added rows, "
           "%lu rank-deficient to the dense path\n",
           solvable, unsolvable, deficient, iter_same, iter_fail, worst, c.factorizations, c.solves, c.updates,
           c.dense);
  /* What the comparison is meant to cover. */
  ck_assert_int_ge(solvable, N_RANDOM / 2);
  ck_assert_int_ge(unsolvable, 1);
  ck_assert_int_ge(deficient, N_RANDOM / 4);
  ck_assert_uint_ge(c.updates, (unsigned long)N_RANDOM);
  ck_assert_uint_ge(c.dense, (unsigned long)N_RANDOM / 20);
  ck_assert_uint_eq(c.lsq, 0);
  cdyn_as_ws_free(&wd);
  cdyn_as_ws_free(&wsp);
  gsl_rng_free(r);
}
END_TEST

/* ---- 2. larger problems ----------------------------------------------------------- */

/*
 * Chains of 20 to 30 particles, every link an equality row, 20 to 30
 * inequality rows on them: beyond the reference, so sparse against dense
 * only.  The equality rows are the set the algorithms start from; "lcp"
 * adds its rows one at a time to it (Schur complements, a factorisation
 * again past 16 or when a row of the factored set leaves), "iterative"
 * adds every violated row at once (often more than 16).
 */
START_TEST(test_large_vs_dense)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED + 1);
  cdyn_as_ws wd, wsp;
  ck_assert_int_eq(cdyn_as_ws_alloc(&wd, NMAX), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_alloc(&wsp, NMAX), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_sparse(&wsp, cholmod_type(), NULL, NMAX * NMAX), CDYN_OK);
  double worst = 0;
  int solved = 0;
  static problem p;
  for (int t = 0; t < 60; t++) {
    random_problem(r, t % 2, 1, &p);
    result ld, ls, id, is;
    solve(&wd, "lcp", &p, 0, &ld);
    solve(&wsp, "lcp", &p, 1, &ls);
    ck_assert_msg(ld.rc == ls.rc, "problem %d (%zu rows): lcp dense %d, sparse %d (%s)", t, p.n, ld.rc, ls.rc,
                  cdyn_errmsg());
    if (ld.rc == CDYN_OK) {
      agree(&p, &ls, &ld, "lcp", t, &worst);
      solved++;
    }
    solve(&wd, "iterative", &p, 0, &id);
    solve(&wsp, "iterative", &p, 1, &is);
    ck_assert_msg(id.rc == is.rc, "problem %d: iterative dense %d, sparse %d", t, id.rc, is.rc);
    if (id.rc == CDYN_OK) {
      ck_assert_msg(!memcmp(id.h, is.h, p.n), "problem %d: iterative's handled sets differ", t);
      agree(&p, &is, &id, "iterative", t, &worst);
    }
  }
  cdyn_as_sparse_counts c;
  cdyn_as_ws_sparse_counts(&wsp, &c);
  if (getenv("CDYN_TEST_VERBOSE"))
    printf("large: %d solved by lcp; worst |difference| / bound %.3g; %lu factorisations, %lu sub-solves by added "
           "rows, %lu to the dense path\n",
           solved, worst, c.factorizations, c.updates, c.dense);
  ck_assert_int_ge(solved, 30);
  ck_assert_uint_ge(c.updates, 60);
  cdyn_as_ws_free(&wd);
  cdyn_as_ws_free(&wsp);
  gsl_rng_free(r);
}
END_TEST

/* ---- 3. rank-deficient sets beyond the dense capacity ------------------------------ */

/*
 * With a dense capacity of one row, a rank-deficient set of more rows is
 * solved by the linear solver's least squares (CHOLMOD: the minimum-norm
 * solution of M_S by the shifted iteration of lib/solvers/lsq.c, which
 * converges on the kept eigenvalues by a factor 2 delta / sigma per
 * correction, delta = sqrt(rank_tol) max A_kk).  On problems whose rows
 * are dependent exactly (repeated and scaled rows; their null space is
 * exact, their other eigenvalues far above delta) it agrees with the
 * dense path to the bound above.
 */
START_TEST(test_least_squares_beyond_dense_capacity)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED + 2);
  cdyn_as_ws wd, wsp;
  ck_assert_int_eq(cdyn_as_ws_alloc(&wd, NMAX), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_alloc_rows(&wsp, NMAX, 1), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_sparse(&wsp, cholmod_type(), NULL, NMAX * NMAX), CDYN_OK);
  double worst = 0;
  int compared = 0;
  static problem p;
  for (int t = 0; t < 200; t++) {
    random_problem(r, 0, 0, &p);
    result id, is;
    solve(&wd, "iterative", &p, 0, &id);
    solve(&wsp, "iterative", &p, 1, &is);
    if (id.rc != CDYN_OK || is.rc != CDYN_OK || memcmp(id.h, is.h, p.n))
      continue;
    agree(&p, &is, &id, "iterative, least squares", t, &worst);
    compared++;
  }
  cdyn_as_sparse_counts c;
  cdyn_as_ws_sparse_counts(&wsp, &c);
  if (getenv("CDYN_TEST_VERBOSE"))
    printf("least squares beyond dcap: %d compared, %lu sub-solves by least squares; worst / bound %.3g\n", compared,
           c.lsq, worst);
  ck_assert_int_ge(compared, 150);
  ck_assert_uint_ge(c.lsq, 20);
  ck_assert_uint_eq(c.dense, 0);
  cdyn_as_ws_free(&wd);
  cdyn_as_ws_free(&wsp);
  gsl_rng_free(r);
}
END_TEST

/* ---- 4. the layer's argument checks ------------------------------------------------ */

START_TEST(test_layer_errors)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED + 3);
  static problem p;
  random_problem(r, 0, 0, &p);
  gsl_rng_free(r);
  cdyn_as_ws ws;
  ck_assert_int_eq(cdyn_as_ws_alloc(&ws, NMAX), CDYN_OK);
  cdyn_as_problem q = {.n = p.n, .sp = &p.sp, .b = p.b, .rank_tol = RANK_TOL};
  /* A sparse problem needs a solver attached. */
  ck_assert_int_eq(cdyn_as_ws_bind(&ws, &q), CDYN_EINVAL);
  /* An iterative solver is refused, a direct one taken. */
  const cdyn_solver_type *pcg;
  ck_assert_int_eq(cdyn_solver_type_find("pcg", &pcg), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_sparse(&ws, pcg, NULL, 16), CDYN_EINVAL);
  ck_assert_msg(strstr(cdyn_errmsg(), "iterative"), "message: %s", cdyn_errmsg());
  ck_assert_int_eq(cdyn_as_ws_sparse(NULL, cholmod_type(), NULL, 16), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_as_ws_sparse(&ws, NULL, NULL, 16), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_as_ws_sparse(&ws, cholmod_type(), NULL, 4), CDYN_OK);
  /* More entries than the room attached. */
  ck_assert_uint_gt(p.sp.nnz, 4);
  ck_assert_int_eq(cdyn_as_ws_bind(&ws, &q), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_as_ws_sparse_reserve(&ws, p.sp.nnz), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_bind(&ws, &q), CDYN_OK);
  /* Both forms of A, or neither. */
  q.A = p.A;
  ck_assert_int_eq(cdyn_as_ws_bind(&ws, &q), CDYN_EINVAL);
  q.A = NULL;
  q.sp = NULL;
  ck_assert_int_eq(cdyn_as_ws_bind(&ws, &q), CDYN_EINVAL);
  /* A row that does not start with its diagonal, and a size mismatch. */
  cdyn_as_sparse bad = p.sp;
  int col[NMAX * NMAX];
  memcpy(col, p.col, p.sp.nnz * sizeof(int));
  int rowlen = p.rowptr[1] - p.rowptr[0];
  if (rowlen > 1) {
    col[0] = p.col[1];
    col[1] = p.col[0];
    bad.col = col;
    q.sp = &bad;
    ck_assert_int_eq(cdyn_as_ws_bind(&ws, &q), CDYN_EINVAL);
  }
  bad = p.sp;
  bad.n = p.n + 1;
  q.sp = &bad;
  ck_assert_int_eq(cdyn_as_ws_bind(&ws, &q), CDYN_EINVAL);
  /* A problem larger than the workspace. */
  q.sp = &p.sp;
  q.n = NMAX + 1;
  ck_assert_int_eq(cdyn_as_ws_bind(&ws, &q), CDYN_EINVAL);
  /* A sub-solve without A on a workspace bound to no sparse A. */
  cdyn_as_ws plain;
  ck_assert_int_eq(cdyn_as_ws_alloc(&plain, 4), CDYN_OK);
  unsigned char S[4] = {1, 1, 0, 0};
  double rhs[4] = {1, 2, 3, 4}, x[4];
  ck_assert_int_eq(cdyn_as_subsolve(&plain, 4, NULL, S, rhs, RANK_TOL, x, NULL), CDYN_EINVAL);
  /* The dense capacity bounds the rows, not the other way round. */
  cdyn_as_ws w2;
  ck_assert_int_eq(cdyn_as_ws_alloc_rows(&w2, 4, 5), CDYN_EINVAL);
  cdyn_as_sparse_counts c;
  cdyn_as_ws_sparse_counts(&plain, &c);
  ck_assert_uint_eq(c.factorizations, 0);
  cdyn_as_ws_free(&plain);
  cdyn_as_ws_free(&ws);
}
END_TEST

/* ---- 4b. the verification of an exact answer ---------------------------------- */

/*
 * cdyn_as_verify (lib/activeset/common.c) on answers derived by hand, one
 * for each of its tests, dense and sparse, and with a workspace too small
 * for the eigenvalues (the rank cut's bound).
 *
 * A = [[2, 1], [1, 2]] (eigenvalues 1 and 3), b = (-3, -3): both rows
 * handled, mu = (1, 1), w = 0 is the solution.  The bound on the
 * handled rows C = {0, 1}: bt = (3, 3), l_C = 1, M = 3 sqrt 2 = 4.24, so
 * every solution on C has |mu|_2 <= 4.24; the answer has 1.41.
 *   mu = (10, 10): |mu| = 14.1 > 2 M = 8.49 (+ |tol_mu|): refused by the bound;
 *   mu = (1, 1), w_1 = 1e-3: w differs from A mu + b by 1e-3, far above
 *     T = tol_w + 16 n eps (3 + sqrt(2 * 4) 2 M) = 1e-9 + 1.8e-13;
 *   nothing handled, mu = 0, w = b: row 0 at -3 < -T (M = 0): violated.
 * A = I, b = (1, -1): the solution is mu = (0, 1), w = (1, 0).
 *   mu = (-1, 1), w = (0, 0), both handled: within M = |bt| / 1 = 1 times
 *     2 (|mu| = 1.41), row 0 pulls (mu_0 = -1 < -tol_mu);
 *   mu = (0.5, 1), w = (1.5, 0), row 1 handled: row 0 pushes (0.5) while
 *     w_0 = 1.5: not complementary;
 *   row 0 an equality row, mu = (0, 1), w = (1, 0): the equality row is
 *     not satisfied.
 * A = 2 I, b = (1.7e308, -1e308): mu_1 = 5e307 solves it, w = (1.7e308, 0),
 * but row 1's terms |b_1| + |A_11 mu_1| = 2e308 leave the double range,
 * where w_1 cannot be checked: refused.  With mu = 0 and w = b on A = I,
 * b = (1.7e308, 1): T_0 = tol_w + 16 n eps 1.7e308 stays finite, and the
 * answer (nothing violated) passes.
 */
static int verify_case(cdyn_as_ws *ws, const double *A, const double *b, const unsigned char *eq, const double *mu,
                       const double *w, const unsigned char *h)
{
  cdyn_as_problem q = {.n = 2, .A = A, .b = b, .equality = eq, .rank_tol = RANK_TOL};
  cdyn_as_tolerances(&q, 1e-9);
  cdyn_error_clear();
  return cdyn_as_verify(ws, &q, mu, w, h);
}

/*
 * The condition guard of the dense sub-solve and cdyn_as_conclude's second
 * solve, on A = [[1, -1 + d], [-1 + d, 1]], d = 1e-12: its eigenvalues are
 * d, along (1, 1) / sqrt 2, below the rank cut rank_tol lambda_max =
 * 2e-12 - 1e-24, and 2 - d along (1, -1) / sqrt 2.  Its Cholesky pivots
 * squared are 1 and d (2 - d), both above rank_tol max A_kk = 1e-12, so
 * the factor passes the rank test.
 *   - The sub-solve of r = (1, 0): by the factor, A^-1 r = (1, 1 - d) /
 *     (d (2 - d)), about 5e11 (1, 1); with the guard on (rcond about d /
 *     2 = 5e-13, below 16 rank_tol), the minimum-norm solution, r's part
 *     along (1, -1) over 2 - d: (1, -1) / (2 (2 - d)) = (0.25, -0.25) to
 *     1e-12.
 *   - Both rows equality rows, b = (-1 + e, 1 + e), e = 1e-10, rel_tol =
 *     1e-9 (tol_w about 1e-9), handled by an algorithm that solves the set
 *     (cdyn_as_solve_set) and declares itself exact.  b's part along
 *     (1, 1) gives the factor's answer a multiplier e sqrt 2 / d, about
 *     141, beyond twice the bound |b|_2 / (2 - d) = 0.71 of the rows
 *     (refused); the second solve, guarded, gives the minimum-norm answer
 *     (0.5, -0.5), whose w = (e - d/2, e + d/2) is within tol_w: accepted,
 *     two solves counted.
 *   - The same rows as inequality rows, and an algorithm whose answers
 *     both fail the bound 1 / (2 - d) (mu = (1e6, 1e6), then 2e6 on the
 *     second solve): the first refusal, with the first numbers.
 */
static int set_solve(cdyn_as_ws *ws, const cdyn_as_problem *p, double *mu, double *w, unsigned char *handled,
                     cdyn_activeset_report *rep)
{
  for (size_t k = 0; k < p->n; k++)
    handled[k] = 1;
  return cdyn_as_solve_set(ws, p, handled, mu, w, rep);
}

static int wrong_solve(cdyn_as_ws *ws, const cdyn_as_problem *p, double *mu, double *w, unsigned char *handled,
                       cdyn_activeset_report *rep)
{
  for (size_t k = 0; k < p->n; k++) {
    handled[k] = 1;
    mu[k] = ws->guard ? 2e6 : 1e6;
  }
  cdyn_as_residual(p, mu, w);
  rep->solves++;
  return CDYN_OK;
}

START_TEST(test_conclude_guard)
{
  const double d = 1e-12, A[4] = {1, -1 + d, -1 + d, 1}, r[2] = {1, 0};
  const unsigned char both[2] = {1, 1};
  cdyn_as_ws ws;
  ck_assert_int_eq(cdyn_as_ws_alloc(&ws, 2), CDYN_OK);
  double x[2];
  ck_assert_int_eq(cdyn_as_dense_subsolve(&ws, 2, A, both, r, RANK_TOL, x, NULL), CDYN_OK);
  ck_assert_msg(x[0] > 1e11 && x[1] > 1e11, "the factor's solution (%g, %g)", x[0], x[1]);
  ws.guard = 1;
  ck_assert_int_eq(cdyn_as_dense_subsolve(&ws, 2, A, both, r, RANK_TOL, x, NULL), CDYN_OK);
  ws.guard = 0;
  ck_assert_msg(fabs(x[0] - 0.25) <= 1e-12 && fabs(x[1] + 0.25) <= 1e-12, "guarded: (%.17g, %.17g)", x[0], x[1]);

  const double e = 1e-10, b[2] = {-1 + e, 1 + e};
  const unsigned char eq[2] = {1, 1};
  cdyn_as_problem p = {.n = 2, .A = A, .b = b, .equality = eq, .rank_tol = RANK_TOL};
  cdyn_as_tolerances(&p, 1e-9);
  const cdyn_activeset_type exact = {.name = "set", .exact = 1, .solve = set_solve};
  double mu[2], w[2];
  unsigned char h[2];
  cdyn_activeset_report rep;
  memset(&rep, 0, sizeof rep);
  int rc = set_solve(&ws, &p, mu, w, h, &rep);
  ck_assert_int_eq(rc, CDYN_OK);
  ck_assert_msg(hypot(mu[0], mu[1]) > 100, "the factor's answer |mu| = %g", hypot(mu[0], mu[1]));
  rc = cdyn_as_conclude(&exact, &ws, &p, rc, mu, w, h, &rep);
  ck_assert_msg(rc == CDYN_OK, "%d (%s)", rc, cdyn_errmsg());
  ck_assert_msg(fabs(mu[0] - 0.5) <= 1e-9 && fabs(mu[1] + 0.5) <= 1e-9, "mu (%.17g, %.17g)", mu[0], mu[1]);
  ck_assert_msg(fabs(w[0]) <= 2 * e && fabs(w[1]) <= 2 * e, "w (%g, %g)", w[0], w[1]);
  ck_assert_uint_eq(rep.solves, 2);
  ck_assert_int_eq(ws.guard, 0);

  const cdyn_activeset_type wrong = {.name = "wrong", .exact = 1, .solve = wrong_solve};
  p.equality = NULL;
  memset(&rep, 0, sizeof rep);
  rc = wrong_solve(&ws, &p, mu, w, h, &rep);
  cdyn_error_clear();
  rc = cdyn_as_conclude(&wrong, &ws, &p, rc, mu, w, h, &rep);
  ck_assert_int_eq(rc, CDYN_EUNVERIFIED);
  ck_assert_msg(strstr(cdyn_errmsg(), "exceed twice the bound"), "%s", cdyn_errmsg());
  ck_assert_msg(mu[0] == 1e6 && mu[1] == 1e6, "mu (%g, %g): not the first answer's", mu[0], mu[1]);
  ck_assert_uint_eq(rep.solves, 2);
  ck_assert_int_eq(ws.guard, 0);
  cdyn_as_ws_free(&ws);
}
END_TEST

START_TEST(test_verify)
{
  cdyn_as_ws ws;
  ck_assert_int_eq(cdyn_as_ws_alloc(&ws, 2), CDYN_OK);
  const double A[4] = {2, 1, 1, 2}, b[2] = {-3, -3};
  const unsigned char both[2] = {1, 1}, none[2] = {0, 0}, second[2] = {0, 1};
  const double mu_ok[2] = {1, 1}, w_ok[2] = {0, 0};
  ck_assert_int_eq(verify_case(&ws, A, b, NULL, mu_ok, w_ok, both), CDYN_OK);
  const double mu_big[2] = {10, 10}, w_big[2] = {27, 27};
  ck_assert_int_eq(verify_case(&ws, A, b, NULL, mu_big, w_big, both), CDYN_EUNVERIFIED);
  ck_assert_msg(strstr(cdyn_errmsg(), "exceed twice the bound 4.24264"), "%s", cdyn_errmsg());
  const double w_res[2] = {0, 1e-3};
  ck_assert_int_eq(verify_case(&ws, A, b, NULL, mu_ok, w_res, both), CDYN_EUNVERIFIED);
  ck_assert_msg(strstr(cdyn_errmsg(), "row 1: w differs from A mu + b"), "%s", cdyn_errmsg());
  const double zero[2] = {0, 0};
  ck_assert_int_eq(verify_case(&ws, A, b, NULL, zero, b, none), CDYN_EUNVERIFIED);
  ck_assert_msg(strstr(cdyn_errmsg(), "row 0: the inequality row is violated"), "%s", cdyn_errmsg());

  const double Id[4] = {1, 0, 0, 1}, c[2] = {1, -1};
  const double mu_pull[2] = {-1, 1}, w_pull[2] = {0, 0};
  ck_assert_int_eq(verify_case(&ws, Id, c, NULL, mu_pull, w_pull, both), CDYN_EUNVERIFIED);
  ck_assert_msg(strstr(cdyn_errmsg(), "row 0: its multiplier pulls"), "%s", cdyn_errmsg());
  const double mu_cp[2] = {0.5, 1}, w_cp[2] = {1.5, 0};
  ck_assert_int_eq(verify_case(&ws, Id, c, NULL, mu_cp, w_cp, second), CDYN_EUNVERIFIED);
  ck_assert_msg(strstr(cdyn_errmsg(), "row 0: its multiplier pushes while w is not zero"), "%s", cdyn_errmsg());
  const double mu_sol[2] = {0, 1}, w_sol[2] = {1, 0};
  ck_assert_int_eq(verify_case(&ws, Id, c, NULL, mu_sol, w_sol, second), CDYN_OK);
  const unsigned char eq0[2] = {1, 0};
  ck_assert_int_eq(verify_case(&ws, Id, c, eq0, mu_sol, w_sol, second), CDYN_EUNVERIFIED);
  ck_assert_msg(strstr(cdyn_errmsg(), "row 0: the equality row is not satisfied"), "%s", cdyn_errmsg());

  const double A2[4] = {2, 0, 0, 2}, bh[2] = {1.7e308, -1e308}, mu_h[2] = {0, 5e307}, w_h[2] = {1.7e308, 0};
  ck_assert_int_eq(verify_case(&ws, A2, bh, NULL, mu_h, w_h, second), CDYN_EUNVERIFIED);
  ck_assert_msg(strstr(cdyn_errmsg(), "row 1: its terms"), "%s", cdyn_errmsg());
  const double bm[2] = {1.7e308, 1};
  ck_assert_int_eq(verify_case(&ws, Id, bm, NULL, zero, bm, none), CDYN_OK);

  /* The same answers on A given sparse (A_SS gathered from the compressed
     rows), and on a workspace whose dense capacity (1 row) is below the
     handled set: the rank cut's bound, M = |bt| / (rank_tol max A_kk) =
     2.1e12, accepts the solution, lets mu = (10, 10) through its bound
     (T = 0.084 there), which the complementarity test then refuses (w =
     27 on rows that push), and refuses the violated row. */
  for (int dc = 2; dc >= 1; dc--) {
    cdyn_as_ws wsp;
    ck_assert_int_eq(cdyn_as_ws_alloc_rows(&wsp, 2, (size_t)dc), CDYN_OK);
    ck_assert_int_eq(cdyn_as_ws_sparse(&wsp, cholmod_type(), NULL, 4), CDYN_OK);
    const int rowptr[3] = {0, 2, 4}, col[4] = {0, 1, 1, 0};
    const double val[4] = {2, 1, 2, 1};
    cdyn_as_sparse sp = {.n = 2, .nnz = 4, .rowptr = rowptr, .col = col, .val = val, .pattern = 1, .values = 1};
    cdyn_as_problem q = {.n = 2, .sp = &sp, .b = b, .rank_tol = RANK_TOL};
    cdyn_as_tolerances(&q, 1e-9);
    ck_assert_int_eq(cdyn_as_ws_bind(&wsp, &q), CDYN_OK);
    ck_assert_int_eq(cdyn_as_verify(&wsp, &q, mu_ok, w_ok, both), CDYN_OK);
    ck_assert_int_eq(cdyn_as_verify(&wsp, &q, mu_big, w_big, both), CDYN_EUNVERIFIED);
    ck_assert_msg(strstr(cdyn_errmsg(), dc == 2 ? "exceed twice the bound" : "pushes while w is not zero"), "%s",
                  cdyn_errmsg());
    ck_assert_int_eq(cdyn_as_verify(&wsp, &q, zero, b, none), CDYN_EUNVERIFIED);
    cdyn_as_ws_free(&wsp);
  }

  /* The arguments. */
  cdyn_as_problem q = {.n = 2, .A = A, .b = b, .rank_tol = RANK_TOL};
  cdyn_as_tolerances(&q, 1e-9);
  ck_assert_int_eq(cdyn_as_verify(NULL, &q, mu_ok, w_ok, both), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_as_verify(&ws, NULL, mu_ok, w_ok, both), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_as_verify(&ws, &q, NULL, w_ok, both), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_as_verify(&ws, &q, mu_ok, NULL, both), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_as_verify(&ws, &q, mu_ok, w_ok, NULL), CDYN_EINVAL);
  q.n = 3;
  ck_assert_int_eq(cdyn_as_verify(&ws, &q, mu_ok, w_ok, both), CDYN_EINVAL);
  q.n = 2;
  q.A = NULL;
  ck_assert_int_eq(cdyn_as_verify(&ws, &q, mu_ok, w_ok, both), CDYN_EINVAL);
  ck_assert_msg(cdyn_errmsg()[0] != '\0', "no message");
  cdyn_as_ws_free(&ws);
}
END_TEST

/*
 * The verification's eigenvalues block by block.  A over rows 0, 1, 2 has
 * two blocks, {0, 2} with [[2, 1], [1, 2]] 1e6 (eigenvalues 1e6, 3e6) and
 * {1} with 1e-7, interleaved so that the blocks must be gathered apart;
 * b = (-3e6, -1, -3e6), every row an inequality.  The rank cut is
 * rank_tol times the largest eigenvalue of the whole, 1e-12 3e6 = 3e-6,
 * so row 1's 1e-7 is rounding level: l_C = 1e6 and every solution on the
 * three rows has |mu|_2 <= |bt|_2 / 1e6 = 4.24.
 *   mu = (1, 1e7, 1), w = 0 solves A mu + b = 0 exactly, but its
 *     multiplier 1e7 is of a block singular to the cut: refused (a cut
 *     taken block by block, 1e-12 1e-7, would keep 1e-7 and let it pass);
 *   mu = (1, 0, 1), w = (0, -1, 0) with row 1 not handled: violated;
 *   with b_1 = 0, mu = (1, 0, 1), w = 0: the solution, accepted.
 * The same three answers on the same A with A_01 = A_10 = 1e-30 (one
 * block, the eigenvalues the same to rounding) get the same verdicts.
 */
START_TEST(test_verify_blocks)
{
  cdyn_as_ws ws;
  ck_assert_int_eq(cdyn_as_ws_alloc(&ws, 3), CDYN_OK);
  for (int joined = 0; joined < 2; joined++) {
    double A[9] = {2e6, 0, 1e6, 0, 1e-7, 0, 1e6, 0, 2e6};
    if (joined)
      A[1] = A[3] = 1e-30;
    double b[3] = {-3e6, -1, -3e6};
    const unsigned char all[3] = {1, 1, 1}, outer[3] = {1, 0, 1};
    const double mu_exact[3] = {1, 1e7, 1}, w0[3] = {0, 0, 0}, mu_outer[3] = {1, 0, 1}, w_viol[3] = {0, -1, 0};
    cdyn_as_problem q = {.n = 3, .A = A, .b = b, .rank_tol = RANK_TOL};
    cdyn_as_tolerances(&q, 1e-9);
    cdyn_error_clear();
    ck_assert_int_eq(cdyn_as_verify(&ws, &q, mu_exact, w0, all), CDYN_EUNVERIFIED);
    ck_assert_msg(strstr(cdyn_errmsg(), "exceed twice the bound"), "%d: %s", joined, cdyn_errmsg());
    ck_assert_int_eq(cdyn_as_verify(&ws, &q, mu_outer, w_viol, outer), CDYN_EUNVERIFIED);
    ck_assert_msg(strstr(cdyn_errmsg(), "violated"), "%d: %s", joined, cdyn_errmsg());
    b[1] = 0;
    cdyn_as_tolerances(&q, 1e-9);
    ck_assert_msg(cdyn_as_verify(&ws, &q, mu_outer, w0, all) == CDYN_OK, "%d: %s", joined, cdyn_errmsg());
  }
  cdyn_as_ws_free(&ws);
}
END_TEST

/* ---- 5. the contact scheme -------------------------------------------------------- */

enum { LINKS = 7 };

/*
 * A chain of LINKS links (LINKS + 1 particles, masses 0.73 .. 1.4 kg)
 * held by a pin at its first particle, swinging down from the horizontal
 * onto the floor y >= -0.6 (a wall on every particle) and against the
 * wall x + 0.1 z >= -0.5 (on the last three):
 * equality rows (the pin, the links) and inequality rows, contacts that
 * come and go.
 */
static cdyn_system *chain_on_floor(void)
{
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, LINKS + 1), CDYN_OK);
  const double g[3] = {0, -9.81, 0}, fp[3] = {0, -0.6, 0}, fn[3] = {0, 1, 0}, xp[3] = {-0.5, 0, 0},
               xn[3] = {1, 0, 0.1};
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  double x[LINKS + 1][3];
  for (size_t i = 0; i <= LINKS; i++) {
    x[i][0] = 0.17 * (double)i;
    x[i][1] = 0.02 * (double)i;
    x[i][2] = 0.011 * (double)(i % 3);
    ck_assert_int_eq(cdyn_system_set_position(s, i, x[i]), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(s, i, 0.73 + 0.097 * (double)i), CDYN_OK);
    if (i) {
      double d = sqrt((x[i][0] - x[i - 1][0]) * (x[i][0] - x[i - 1][0]) + (x[i][1] - x[i - 1][1]) * (x[i][1] - x[i - 1][1]) +
                      (x[i][2] - x[i - 1][2]) * (x[i][2] - x[i - 1][2]));
      ck_assert_int_eq(cdyn_system_add_distance(s, i - 1, i, d, NULL), CDYN_OK);
    }
    ck_assert_int_eq(cdyn_system_add_wall(s, i, fp, fn, NULL), CDYN_OK);
    if (i + 3 > LINKS)
      ck_assert_int_eq(cdyn_system_add_wall(s, i, xp, xn, NULL), CDYN_OK);
  }
  double x0[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_add_pin(s, 0, x0, NULL), CDYN_OK);
  return s;
}

static cdyn_stepper *contact_on(cdyn_system *s, const char *alg, const char *subsolve)
{
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "contact"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "activeset", alg), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "subsolve", subsolve), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "tau", "0.02"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "restitution", "0"), CDYN_OK);
  return st;
}

START_TEST(test_scheme_option)
{
  cdyn_system *s = chain_on_floor();
  cdyn_stepper *st = contact_on(s, "lcp", "sparse");
  char buf[32];
  ck_assert_int_eq(cdyn_stepper_get(st, "subsolve", buf, sizeof buf), CDYN_OK);
  ck_assert_str_eq(buf, "sparse");
  ck_assert_int_lt(cdyn_stepper_set(st, "subsolve", "banded"), 0);
  ck_assert_int_eq(cdyn_stepper_get(st, "subsolve", buf, sizeof buf), CDYN_OK);
  ck_assert_str_eq(buf, "sparse");
  /* An iterative linear solver cannot give the sub-solves: the step
     refuses, naming it, and leaves the state. */
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", "pcg"), CDYN_OK);
  double q0[3 * (LINKS + 1)], q[3 * (LINKS + 1)];
  ck_assert_int_eq(cdyn_system_get_state(s, q0, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 1e-3), CDYN_EINVAL);
  ck_assert_msg(strstr(cdyn_errmsg(), "subsolve") && strstr(cdyn_errmsg(), "pcg"), "message: %s", cdyn_errmsg());
  ck_assert_int_eq(cdyn_system_get_state(s, q, NULL), CDYN_OK);
  ck_assert(!memcmp(q, q0, sizeof q));
  /* A direct one named (the dense cholesky type through the same
     interface) serves. */
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", "cholesky"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 1e-3), CDYN_OK);
  cdyn_stepper_free(st);
  /* The default chooses by the system's rows (test_contact's
     test_subsolve_auto tells which path it took). */
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "contact"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_get(st, "subsolve", buf, sizeof buf), CDYN_OK);
  ck_assert_str_eq(buf, "auto");
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * The chain under "lcp" and "iterative", sparse against dense, 800 steps
 * of 1 ms with plastic impacts (restitution 0, tau 0.02 s): the same
 * contacts (impulses, events, the most solves of a problem, the rows
 * handled) at every step, and positions within 1e-9 m.  The two paths
 * differ by rounding (1e-16 relative per solve); the chain's motion
 * between contacts is smooth, and a contact whose event both runs locate
 * moves the state by the located time's rounding, so differences stay at
 * the level of rounding amplified by the steps (measured: 2.5e-15 m, with
 * 8 impacts and up to 4 contact rows handled); 1e-9 m
 * leaves room for that growth and is far below what a different contact
 * decision (an impulse, a clamped row) makes, which is the size of the
 * motion in a step (1e-3 m and up).  A second sparse run gives the same
 * bits.
 */
START_TEST(test_scheme_sparse_vs_dense)
{
  const char *alg = _i ? "iterative" : "lcp";
  cdyn_system *sd = chain_on_floor(), *ss = chain_on_floor(), *s2 = chain_on_floor();
  cdyn_stepper *td = contact_on(sd, alg, "dense"), *ts = contact_on(ss, alg, "sparse"), *t2 = contact_on(s2, alg, "sparse");
  unsigned long imp = 0, ev = 0, most = 0;
  double worst = 0;
  for (int k = 0; k < 800; k++) {
    int rd = cdyn_stepper_step(td, 1e-3), rs = cdyn_stepper_step(ts, 1e-3), r2 = cdyn_stepper_step(t2, 1e-3);
    ck_assert_msg(rd >= 0 && rs == rd && r2 == rs, "%s step %d: dense %d, sparse %d, %d (%s)", alg, k, rd, rs, r2,
                  cdyn_errmsg());
    cdyn_contact_report a, b;
    ck_assert_int_eq(cdyn_stepper_contact_report(td, &a), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_contact_report(ts, &b), CDYN_OK);
    ck_assert_msg(a.impulses == b.impulses && a.events == b.events && a.max_solves == b.max_solves &&
                    a.accel.handled == b.accel.handled,
                  "%s step %d: dense %u impulses %u events %u solves %u handled, sparse %u %u %u %u", alg, k, a.impulses,
                  a.events, a.max_solves, a.accel.handled, b.impulses, b.events, b.max_solves, b.accel.handled);
    imp += a.impulses;
    ev += a.events;
    most = a.accel.handled > most ? a.accel.handled : most;
    double qd[3 * (LINKS + 1)], qs[3 * (LINKS + 1)], q2[3 * (LINKS + 1)];
    ck_assert_int_eq(cdyn_system_get_state(sd, qd, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(ss, qs, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(s2, q2, NULL), CDYN_OK);
    worst = fmax(worst, maxdiff(qd, qs, 3 * (LINKS + 1)));
    ck_assert_msg(!memcmp(qs, q2, sizeof qs), "%s step %d: two sparse runs differ", alg, k);
  }
  cdyn_stats st;
  ck_assert_int_eq(cdyn_stepper_stats(ts, &st), CDYN_OK);
  if (getenv("CDYN_TEST_VERBOSE"))
    printf("chain on the floor, %s: %lu impulses, %lu events, at most %lu rows handled; largest |q_sparse - "
           "q_dense| %.3g m; sparse: %lu factorisations, %lu analyses\n",
           alg, imp, ev, most, worst, st.factorizations, st.analyses);
  fflush(stdout);
  ck_assert_msg(worst <= 1e-9, "%s: sparse and dense positions differ by %.3g m", alg, worst);
  /* The run met contacts, and the sparse path factored. */
  ck_assert_uint_ge(imp, 3);
  ck_assert_uint_ge(ev, 3);
  ck_assert_uint_ge(most, LINKS + 3 + 2);
  ck_assert_uint_gt(st.factorizations, 0);
  cdyn_stepper_free(td);
  cdyn_stepper_free(ts);
  cdyn_stepper_free(t2);
  cdyn_system_free(sd);
  cdyn_system_free(ss);
  cdyn_system_free(s2);
}
END_TEST

/*
 * A pinned particle eliminated from the sparse problems (contact.c,
 * "Pinned particles, eliminated"): a ball of 3 kg pinned at the origin,
 * BEADS particles (0.2 .. 0.32 kg) resting on it at radius 0.3 m
 * (separations |x_i - x_ball| >= 0.3, inequalities) and linked to each
 * other in a chain (equalities), 300 steps of 1 ms under "lcp".
 *   - sparse against dense: the same contacts (impulses, events, rows
 *     handled) at every step and positions within 1e-9 m, as the chain
 *     test above (the two paths differ by rounding);
 *   - the pin's multipliers, which the sparse path recovers after the
 *     solve (mu_E = -b_E / w_p - sum_r J_r,p^T mu_r), hold the ball:
 *     on a step not cut into sub-steps the multipliers belong to its
 *     start, and there the ball's equation M qdd + J^T lambda = F with
 *     qdd = 0 gives sum_r J_r,ball^T lambda_r = m_ball g.  J_r,ball is I
 *     on the pin's rows and -(x_i - x_ball) / |x_i - x_ball| on a
 *     separation's.  The sum of K = 3 + BEADS terms is formed to within
 *     K eps sum |terms|, the multipliers carry the solves' rounding
 *     (8 k eps (1 + cond) of their scale, test_lcp's bound; cond of this
 *     problem's blocks stays below 1e2), so the test allows
 *     1e3 K eps (m_ball |g| + sum_r |lambda_r|), for both paths;
 *   - and the steps met contact: at least BEADS rows handled on most.
 */
enum { BEADS = 5 };

static cdyn_system *beads_on_ball(void)
{
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, BEADS + 1), CDYN_OK);
  const double g[3] = {0, -9.81, 0}, o[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(s, 0, 3.0), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(s, 0, o, NULL), CDYN_OK);
  double x[BEADS + 1][3] = {{0, 0, 0}};
  for (size_t i = 1; i <= BEADS; i++) {
    double th = 0.3 + 0.05 * (double)i, ph = 2 * 3.14159265358979323846 * (double)i / BEADS;
    x[i][0] = 0.3 * sin(th) * cos(ph);
    x[i][1] = 0.3 * cos(th);
    x[i][2] = 0.3 * sin(th) * sin(ph);
    ck_assert_int_eq(cdyn_system_set_position(s, i, x[i]), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(s, i, 0.2 + 0.03 * (double)(i - 1)), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_separation(s, i, 0, 0.3, NULL), CDYN_OK);
  }
  for (size_t i = 1; i < BEADS; i++) {
    double d = sqrt((x[i + 1][0] - x[i][0]) * (x[i + 1][0] - x[i][0]) + (x[i + 1][1] - x[i][1]) * (x[i + 1][1] - x[i][1]) +
                    (x[i + 1][2] - x[i][2]) * (x[i + 1][2] - x[i][2]));
    ck_assert_int_eq(cdyn_system_add_distance(s, i, i + 1, d, NULL), CDYN_OK);
  }
  return s;
}

/* |sum_r J_r,ball^T lambda_r - m g| and the scale of its rounding, from
   the positions q at the multipliers' time (the pin's rows first, then
   one separation row per bead, as the constraints were added). */
static void ball_balance(const double *q, const double *lam, double *err, double *scale)
{
  double f[3] = {lam[0], lam[1], lam[2]}, sc = 3 * 9.81 + fabs(lam[0]) + fabs(lam[1]) + fabs(lam[2]);
  for (size_t i = 1; i <= BEADS; i++) {
    const double *xi = q + 3 * i, *xb = q;
    double d[3] = {xi[0] - xb[0], xi[1] - xb[1], xi[2] - xb[2]}, r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double l = lam[3 + i - 1];
    for (int k = 0; k < 3; k++)
      f[k] -= d[k] / r * l;
    sc += fabs(l);
  }
  f[1] -= 3.0 * -9.81;
  *err = fmax(fabs(f[0]), fmax(fabs(f[1]), fabs(f[2])));
  *scale = sc;
}

START_TEST(test_pinned_ball_eliminated)
{
  cdyn_system *sd = beads_on_ball(), *ss = beads_on_ball();
  cdyn_stepper *td = contact_on(sd, "lcp", "dense"), *ts = contact_on(ss, "lcp", "sparse");
  ck_assert_uint_eq(cdyn_stepper_rows(ts), 3 + BEADS + BEADS - 1);
  const int K = 3 + BEADS;
  int balanced = 0, contact_steps = 0;
  double worst = 0, worst_bal = 0;
  for (int k = 0; k < 300; k++) {
    double q0[3 * (BEADS + 1)];
    ck_assert_int_eq(cdyn_system_get_state(ss, q0, NULL), CDYN_OK);
    int rd = cdyn_stepper_step(td, 1e-3), rs = cdyn_stepper_step(ts, 1e-3);
    ck_assert_msg(rd >= 0 && rs == rd, "step %d: dense %d, sparse %d (%s)", k, rd, rs, cdyn_errmsg());
    cdyn_contact_report a, b;
    ck_assert_int_eq(cdyn_stepper_contact_report(td, &a), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_contact_report(ts, &b), CDYN_OK);
    ck_assert_msg(a.impulses == b.impulses && a.events == b.events && a.accel.handled == b.accel.handled &&
                    a.accel.candidates == b.accel.candidates,
                  "step %d: dense %u impulses %u events %u handled of %u, sparse %u %u %u of %u", k, a.impulses,
                  a.events, a.accel.handled, a.accel.candidates, b.impulses, b.events, b.accel.handled,
                  b.accel.candidates);
    contact_steps += a.accel.handled >= 3 + BEADS - 1 + BEADS;
    double qd[3 * (BEADS + 1)], qs[3 * (BEADS + 1)];
    ck_assert_int_eq(cdyn_system_get_state(sd, qd, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(ss, qs, NULL), CDYN_OK);
    worst = fmax(worst, maxdiff(qd, qs, 3 * (BEADS + 1)));
    if (b.substeps == 1 && a.substeps == 1) {
      double ld[3 + 2 * BEADS], ls[3 + 2 * BEADS], err, scale;
      ck_assert_int_eq(cdyn_stepper_multipliers(td, ld), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_multipliers(ts, ls), CDYN_OK);
      ball_balance(q0, ls, &err, &scale);
      worst_bal = fmax(worst_bal, err / (K * EPS * scale));
      ck_assert_msg(err <= 1e3 * K * EPS * scale, "step %d, sparse: the pin's multipliers leave the ball a force of %.3g "
                    "(scale %.3g)", k, err, scale);
      ball_balance(q0, ld, &err, &scale);
      ck_assert_msg(err <= 1e3 * K * EPS * scale, "step %d, dense: the ball's force %.3g (scale %.3g)", k, err, scale);
      balanced++;
    }
  }
  if (getenv("CDYN_TEST_VERBOSE"))
    printf("beads on a pinned ball: %d steps with every bead on the ball, %d balance checks (worst %.3g K eps), "
           "largest |q_sparse - q_dense| %.3g m\n", contact_steps, balanced, worst_bal, worst);
  ck_assert_msg(worst <= 1e-9, "sparse and dense positions differ by %.3g m", worst);
  ck_assert_int_ge(contact_steps, 150);
  ck_assert_int_ge(balanced, 150);
  cdyn_stepper_free(td);
  cdyn_stepper_free(ts);
  cdyn_system_free(sd);
  cdyn_system_free(ss);
}
END_TEST

/* ---- 4c. rows removed from the factored set -------------------------------------- */

/*
 * A sub-solve whose set lost rows of the factored one (and gained others)
 * is answered by the complement on the removed rows' unit columns, with
 * no factorisation, and agrees with the dense sub-solve.  A = the
 * tridiagonal 4 on the diagonal, 1 beside it (6 rows, condition <= 3):
 * S0 = every row, then S0 less rows 1 and 4, then less 1, 4 and 5; A's
 * values stamped anew and S0 = {0, 1, 2, 3}, then {0, 2, 3, 5} (1 removed,
 * 5 added).  Both paths are backward stable on a set of condition 3, so
 * they agree to a few eps of |x|.  And the residual check: A = J J^T with
 * rows (1, 0, 0), (1, 3e-5, 0), (0, 0, 1), definite to the rank test
 * (pivot 9e-10 against 1e-12), whose second row removed leaves S = {0, 2}
 * with x = r: the complement subtracts terms of 1e8 from each other
 * (B^-1 is 1e9 there), its residual is far above the 1000 s eps bound,
 * and S is factored afresh (refined 1, two factorisations), the answer
 * then exact to rounding.
 */
static void removed_case(cdyn_as_ws *wsp, cdyn_as_ws *wsd, cdyn_as_problem *q, const double *Ad,
                         const unsigned char *S, const double *r, unsigned long want_fact, double tol)
{
  size_t n = q->n;
  double xs[8], xd[8];
  ck_assert_int_eq(cdyn_as_ws_bind(wsp, q), CDYN_OK);
  ck_assert_int_eq(cdyn_as_subsolve(wsp, n, NULL, S, r, RANK_TOL, xs, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_as_subsolve(wsd, n, Ad, S, r, RANK_TOL, xd, NULL), CDYN_OK);
  double scale = 0, diff = 0;
  for (size_t i = 0; i < n; i++) {
    scale = fmax(scale, fabs(xd[i]));
    diff = fmax(diff, fabs(xs[i] - xd[i]));
    if (!S[i])
      ck_assert(xs[i] == 0);
  }
  ck_assert_msg(diff <= tol * scale, "sparse and dense differ by %.3g of %.3g", diff, scale);
  cdyn_as_sparse_counts c;
  cdyn_as_ws_sparse_counts(wsp, &c);
  ck_assert_msg(c.factorizations == want_fact, "%lu factorisations, %lu expected (updates %lu, refined %lu; diff %.3g of %.3g)",
                c.factorizations, want_fact, c.updates, c.refined, diff, scale);
}

START_TEST(test_removed_rows)
{
  enum { N = 6 };
  int rowptr[N + 1], col[3 * N];
  double val[3 * N], Ad[N * N] = {0};
  size_t nnz = 0;
  for (int i = 0; i < N; i++) {
    rowptr[i] = (int)nnz;
    col[nnz] = i, val[nnz++] = 4, Ad[i * N + i] = 4;
    for (int j = i - 1; j <= i + 1; j += 2)
      if (j >= 0 && j < N)
        col[nnz] = j, val[nnz++] = 1, Ad[i * N + j] = 1;
  }
  rowptr[N] = (int)nnz;
  cdyn_as_sparse sp = {N, nnz, rowptr, col, val, 1, 1};
  double b[N] = {0}, r[N] = {1, -2, 0.5, 3, -1, 2};
  cdyn_as_problem q = {.n = N, .sp = &sp, .b = b, .rank_tol = RANK_TOL};
  cdyn_as_ws wsp, wsd;
  ck_assert_int_eq(cdyn_as_ws_alloc(&wsp, N), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_alloc(&wsd, N), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_sparse(&wsp, cholmod_type(), NULL, nnz), CDYN_OK);
  const unsigned char all[N] = {1, 1, 1, 1, 1, 1}, less2[N] = {1, 0, 1, 1, 0, 1}, less3[N] = {1, 0, 1, 1, 0, 0};
  const unsigned char four[N] = {1, 1, 1, 1, 0, 0}, swap[N] = {1, 0, 1, 1, 0, 1};
  removed_case(&wsp, &wsd, &q, Ad, all, r, 1, 8 * DBL_EPSILON);
  removed_case(&wsp, &wsd, &q, Ad, less2, r, 1, 8 * DBL_EPSILON);
  removed_case(&wsp, &wsd, &q, Ad, less3, r, 1, 8 * DBL_EPSILON);
  sp.values = 2; /* A's values anew: the next sub-solve factors S = four */
  removed_case(&wsp, &wsd, &q, Ad, four, r, 2, 8 * DBL_EPSILON);
  removed_case(&wsp, &wsd, &q, Ad, swap, r, 2, 8 * DBL_EPSILON);
  cdyn_as_sparse_counts c;
  cdyn_as_ws_sparse_counts(&wsp, &c);
  ck_assert_uint_eq(c.updates, 3);
  ck_assert_uint_eq(c.refined, 0);
  cdyn_as_ws_free(&wsp);

  /* The residual check. */
  enum { M = 3 };
  const double e = 3e-5;
  int rp3[M + 1] = {0, 2, 4, 5}, c3[5] = {0, 1, 1, 0, 2};
  double v3[5] = {1, 1, 1 + e * e, 1, 1}, A3[M * M] = {1, 1, 0, 1, 1 + e * e, 0, 0, 0, 1};
  cdyn_as_sparse sp3 = {M, 5, rp3, c3, v3, 1, 1};
  double b3[M] = {0}, r3[M] = {0.1, 0.7, -2};
  cdyn_as_problem q3 = {.n = M, .sp = &sp3, .b = b3, .rank_tol = RANK_TOL};
  ck_assert_int_eq(cdyn_as_ws_alloc(&wsp, M), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_sparse(&wsp, cholmod_type(), NULL, 5), CDYN_OK);
  const unsigned char all3[M] = {1, 1, 1}, ends[M] = {1, 0, 1};
  /* the whole set, of condition 4e8: a looser agreement (eps cond) */
  removed_case(&wsp, &wsd, &q3, A3, all3, r3, 1, 1e-7);
  removed_case(&wsp, &wsd, &q3, A3, ends, r3, 2, 8 * DBL_EPSILON);
  cdyn_as_ws_sparse_counts(&wsp, &c);
  ck_assert_uint_eq(c.refined, 1);
  cdyn_as_ws_free(&wsp);
  cdyn_as_ws_free(&wsd);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("subsolve");
  TCase *tc = tcase_create("problems");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_random_vs_dense_and_enumeration);
  tcase_add_test(tc, test_large_vs_dense);
  tcase_add_test(tc, test_least_squares_beyond_dense_capacity);
  tcase_add_test(tc, test_layer_errors);
  tcase_add_test(tc, test_verify);
  tcase_add_test(tc, test_conclude_guard);
  tcase_add_test(tc, test_verify_blocks);
  tcase_add_test(tc, test_removed_rows);
  suite_add_tcase(s, tc);
  tc = tcase_create("scheme");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_scheme_option);
  tcase_add_loop_test(tc, test_scheme_sparse_vs_dense, 0, 2);
  tcase_add_test(tc, test_pinned_ball_eliminated);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
