/*
 * test_lcp_corpus.c: the exact solver "lcp" (lib/activeset/lcp.c) over
 * every input of the active-set fuzz corpus (tests/fuzz/corpus/activeset),
 * decoded as the harness decodes it (tests/fuzz/activeset_input.h),
 * against the enumeration reference (reference/lcp_enum.c).
 *
 * Each input is a contact problem (cdyn/contact.h)
 *   w = A mu + b,  equality rows: w_k = 0;
 *   inequality rows: w_k >= 0, mu_k >= 0, mu_k w_k = 0,
 * with A = J W J^T (the harness's "psd" inputs) or written entry by entry,
 * and rel_tol.  lcp is run on it whatever algorithm the input names, and
 * the reference at the library's tolerances (tol_w = rel_tol max|b|,
 * tol_mu = tol_w / max A_kk).  The classes, printed as a table:
 *   refused        lcp refuses the arguments (CDYN_EINVAL; CDYN_ENONFINITE
 *                  for an A or b that is not finite);
 *   undecided      the reference cannot run (a tolerance 0, subnormal to
 *                  0, or not finite);
 *   solved         lcp succeeds (CDYN_OK, or CDYN_NOCONV: a row at zero
 *                  to the rounding of nearly dependent rows) and the
 *                  reference accepts a set;
 *   lcp fails, reference solves;
 *   both unsolvable  lcp fails and the reference accepts no set;
 *   lcp solves, reference none.
 * "lcp fails" is split by status: CDYN_ESOLVE at the pass limit ("gives
 * up", no longer returned: the last set's solution is verified instead),
 * CDYN_ESOLVE otherwise, CDYN_EINFEASIBLE, CDYN_EUNVERIFIED (lcp refuses
 * its answer: lib/activeset/lcp.c, "Verification of the answer"),
 * CDYN_ENONFINITE (the result overflowed).
 *
 * What is asserted, on every input: no success of lcp (CDYN_OK, or
 * CDYN_NOCONV, whose numbers a caller uses) is in "lcp solves, reference
 * none"; every CDYN_EUNVERIFIED names the test its answer failed.  On
 * the inputs with A = J W J^T (positive semi-definite, which lcp
 * assumes; an A written entry by entry passes the library's 2 x 2 test
 * and can still be indefinite, and is otherwise only counted):
 *   - no input is in "lcp fails, reference solves", but those listed in
 *     refused_solvable, where lcp refuses its own answer
 *     (CDYN_EUNVERIFIED) and a test below says why;
 *   - "solved": the multipliers of lcp push on its handled inequality
 *     rows and are 0 off them; its w and its accelerations W J^T mu agree
 *     with the reference's to the bound of test_lcp.c's
 *     test_random_vs_enumeration, 2 c k eps (1 + cond) (|b| + scale),
 *     c = 4, cond the larger condition number of the two handled blocks
 *     over their eigenvalues above 1e-12 of the largest (the rank cut of
 *     both solvers); w is unique, and so is J^T mu;
 *   - CDYN_OK, in either "solved" or "lcp solves, reference none", keeps
 *     lcp's own promise: w_k >= -tol_w off the handled set, mu_k >=
 *     -tol_mu on it, and |w_k| <= tol_w + 16 n eps (|b_k| + sum_j
 *     |A_kj mu_j|) on it (the rounding its final check allows);
 *   - CDYN_NOCONV says that its result is less accurate than rel_tol asks.
 * The scales are summed in long double: some inputs have b_k near 1e300
 * and multipliers near 1e303, whose sums overflow a double.
 *
 * Each input on which lcp and the reference disagreed before lcp's
 * answers were verified has its own test, named by its corpus id
 * (test_3686c8fb and the others below), asserting what lcp does now.
 */
#define _POSIX_C_SOURCE 200809L /* scandir */
#include <check.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>

#include <cdyn/cdyn.h>

#include "activeset_input.h"
#include "lcp_enum.h"
#include "testutil.h"

#ifndef CDYN_FUZZ_CORPUS
#error "CDYN_FUZZ_CORPUS must name the directory tests/fuzz/corpus/activeset"
#endif

#define MAXN FUZZ_AS_MAXN

enum {
  C_REFUSED,
  C_UNDECIDED,
  C_SOLVED,
  C_LCP_FAILS,
  C_BOTH_NONE,
  C_LCP_ONLY,
  NCLASS
};
static const char *const class_name[NCLASS] = {"refused", "undecided", "solved", "lcp fails, reference solves",
                                               "both unsolvable", "lcp solves, reference none"};
/* lcp's statuses, the columns of the table. */
enum { S_OK, S_NOCONV, S_GIVES_UP, S_ESOLVE, S_INFEASIBLE, S_UNVERIFIED, S_NONFINITE, S_EINVAL, S_OTHER, NSTATUS };
static const char *const status_name[NSTATUS] = {"OK",      "NOCONV",  "gives up", "ESOLVE", "EINFEAS",
                                                 "UNVERIF", "ENONFIN", "EINVAL",   "other"};

static int status_of(int rc, const char *msg)
{
  switch (rc) {
  case CDYN_OK:
    return S_OK;
  case CDYN_NOCONV:
    return S_NOCONV;
  case CDYN_ESOLVE:
    return strstr(msg, "pivot passes") ? S_GIVES_UP : S_ESOLVE;
  case CDYN_EINFEASIBLE:
    return S_INFEASIBLE;
  case CDYN_EUNVERIFIED:
    return S_UNVERIFIED;
  case CDYN_ENONFINITE:
    return S_NONFINITE;
  case CDYN_EINVAL:
    return S_EINVAL;
  default:
    return S_OTHER;
  }
}

/* The eigenvalues of A_HH (H's rows, in order; `sym`: of its symmetric
   part (A_ij + A_ji) / 2): *lmax the largest, *lmin the smallest above
   1e-12 of it (INFINITY when none is).  Returns the size of the block. */
static size_t block_eigs(size_t n, const double *A, const unsigned char *H, int sym, double *lmax, double *lmin)
{
  size_t idx[MAXN], h = 0;
  for (size_t a = 0; a < n; a++)
    if (H[a])
      idx[h++] = a;
  *lmax = 0;
  *lmin = INFINITY;
  if (!h)
    return 0;
  gsl_matrix *M = gsl_matrix_alloc(h, h);
  gsl_vector *ev = gsl_vector_alloc(h);
  gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(h);
  ck_assert(M && ev && ws);
  for (size_t a = 0; a < h; a++)
    for (size_t c = 0; c < h; c++)
      gsl_matrix_set(M, a, c,
                     sym ? 0.5 * (A[idx[a] * n + idx[c]] + A[idx[c] * n + idx[a]]) : A[idx[a] * n + idx[c]]);
  gsl_eigen_symm(M, ev, ws);
  *lmax = gsl_vector_max(ev);
  for (size_t a = 0; a < h; a++) {
    double l = gsl_vector_get(ev, a);
    if (l > 1e-12 * *lmax && l < *lmin)
      *lmin = l;
  }
  gsl_eigen_symm_free(ws);
  gsl_vector_free(ev);
  gsl_matrix_free(M);
  return h;
}

/* cond of A_HH over its eigenvalues above 1e-12 of the largest; 1 for an
   empty block.  The symmetric part: the harness forms A_ij and A_ji in
   different orders, which can differ in the last bit. */
static double block_cond(size_t n, const double *A, const unsigned char *H)
{
  double lmax, lmin;
  if (!block_eigs(n, A, H, 1, &lmax, &lmin))
    return 1;
  return lmax > 0 ? lmax / lmin : 1;
}

/* W J^T mu (d values). */
static void accel(const fuzz_as_input *x, const double *mu, double *a)
{
  for (size_t j = 0; j < x->d; j++) {
    double s = 0;
    for (size_t i = 0; i < x->n; i++)
      s += x->J[i * x->d + j] * mu[i];
    a[j] = x->W[j] * s;
  }
}

static int not_dot(const struct dirent *e) { return e->d_name[0] != '.'; }

/* The input in file `name` of the corpus, decoded as the harness does. */
static void load(const char *name, fuzz_as_input *x)
{
  static uint8_t buf[1 << 16];
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", CDYN_FUZZ_CORPUS, name);
  FILE *fp = fopen(path, "rb");
  ck_assert_msg(fp != NULL, "cannot open %s", path);
  size_t size = fread(buf, 1, sizeof buf, fp);
  ck_assert_msg(!ferror(fp) && feof(fp), "%s: read error, or longer than %zu bytes", path, sizeof buf);
  fclose(fp);
  fuzz_input in = {.data = buf, .size = size};
  fuzz_as_decode(&in, x);
}

/* The library's tolerances (cdyn_as_tolerances). */
static void tolerances(const fuzz_as_input *x, double *tol_w, double *tol_mu)
{
  double bmax = 0, dmax = 0;
  for (size_t k = 0; k < x->n; k++) {
    bmax = fmax(bmax, fabs(x->b[k]));
    dmax = fmax(dmax, x->A[k * x->n + k]);
  }
  *tol_w = x->tol * (bmax > DBL_MIN ? bmax : DBL_MIN);
  *tol_mu = dmax > 0 ? *tol_w / dmax : *tol_w;
}

/*
 * A solution of lcp against the reference's: the multipliers push on the
 * handled inequality rows and are 0 off them; w and the accelerations
 * W J^T mu agree to 2 c k eps (1 + cond) (|b| + scale), c = 4 (see the
 * header).
 */
static void agrees(const char *name, const fuzz_as_input *x, const double *mu, const double *w, const unsigned char *h,
                   const double *mu_r, const double *w_r, const unsigned char *h_r, double tol_mu, const char *st)
{
  size_t n = x->n;
  const unsigned char *eq = x->use_eq ? x->eq : NULL;
  for (size_t k = 0; k < n; k++) {
    if (eq && eq[k])
      continue;
    if (h[k])
      ck_assert_msg(mu[k] >= -tol_mu, "%s row %zu: handled, mu %g < -tol_mu %g", name, k, mu[k], -tol_mu);
    else
      ck_assert_msg(mu[k] == 0, "%s row %zu: not handled, mu %g", name, k, mu[k]);
  }
  double cond = fmax(block_cond(n, x->A, h), block_cond(n, x->A, h_r));
  long double lbmax = 0, scale_w = 0, scale_a = 0, dw = 0, da = 0;
  double a[FUZZ_AS_MAXD], a_r[FUZZ_AS_MAXD];
  for (size_t i = 0; i < n; i++) {
    lbmax = fmaxl(lbmax, fabsl((long double)x->b[i]));
    long double sc = 0;
    for (size_t c = 0; c < n; c++)
      sc += fabsl((long double)x->A[i * n + c]) * (fabsl((long double)mu[c]) + fabsl((long double)mu_r[c]));
    scale_w = fmaxl(scale_w, sc);
    dw = fmaxl(dw, fabsl((long double)w[i] - (long double)w_r[i]));
  }
  accel(x, mu, a);
  accel(x, mu_r, a_r);
  for (size_t j = 0; j < x->d; j++) {
    long double sc = 0;
    for (size_t i = 0; i < n; i++)
      sc += fabsl((long double)x->J[i * x->d + j]) * (fabsl((long double)mu[i]) + fabsl((long double)mu_r[i]));
    scale_a = fmaxl(scale_a, (long double)x->W[j] * sc);
    da = fmaxl(da, fabsl((long double)a[j] - (long double)a_r[j]));
  }
  long double unit_w = 2 * 4 * (long double)n * DBL_EPSILON * (1 + cond) * (lbmax + scale_w);
  long double unit_a = 2 * 4 * (long double)n * DBL_EPSILON * (1 + cond) * scale_a;
  if (getenv("CDYN_TEST_VERBOSE"))
    printf("# %.12s %s: cond %.3g, |dw| %.3Lg (bound %.3Lg), |da| %.3Lg (bound %.3Lg)\n", name, st, cond, dw, unit_w,
           da, unit_a);
  ck_assert_msg(dw <= unit_w, "%s: |w_lcp - w_ref| = %.3Lg > %.3Lg", name, dw, unit_w);
  ck_assert_msg(da <= unit_a, "%s: |a_lcp - a_ref| = %.3Lg > %.3Lg", name, da, unit_a);
}

/*
 * The inputs on which lcp refuses its answer (CDYN_EUNVERIFIED) while the
 * reference accepts a set: lcp's pivoting ends at another set, whose
 * answer is not a solution the reference accepts (each has its test
 * below, which says why).
 */
static const char *const refused_solvable[] = {"f5455fbc6f9554842749b70ebf17423add71a16f"};

static int is_refused_solvable(const char *name)
{
  for (size_t i = 0; i < sizeof refused_solvable / sizeof refused_solvable[0]; i++)
    if (!strcmp(name, refused_solvable[i]))
      return 1;
  return 0;
}

START_TEST(test_corpus)
{
  struct dirent **names;
  int m = scandir(CDYN_FUZZ_CORPUS, &names, not_dot, alphasort);
  ck_assert_msg(m > 0, "no inputs in %s", CDYN_FUZZ_CORPUS);
  unsigned table[2][NCLASS][NSTATUS];
  memset(table, 0, sizeof table);
  for (int f = 0; f < m; f++) {
    const char *name = names[f]->d_name;
    fuzz_as_input x;
    load(name, &x);
    size_t n = x.n;
    const unsigned char *eq = x.use_eq ? x.eq : NULL;

    double mu[MAXN], w[MAXN], mu_r[MAXN], w_r[MAXN];
    unsigned char h[MAXN], h_r[MAXN];
    cdyn_activeset_report rep;
    cdyn_error_clear();
    int rc = cdyn_activeset_solve("lcp", n, x.A, x.b, eq, NULL, x.tol, mu, w, h, &rep);
    int st = status_of(rc, cdyn_errmsg());
    int finite_input = 1;
    for (size_t k = 0; k < n * n; k++)
      finite_input &= isfinite(x.A[k]) != 0;
    for (size_t k = 0; k < n; k++)
      finite_input &= isfinite(x.b[k]) != 0;
    double tol_w, tol_mu;
    tolerances(&x, &tol_w, &tol_mu);
    int cls;
    if (st == S_EINVAL || (st == S_NONFINITE && !finite_input)) {
      cls = C_REFUSED;
    } else {
      if (st == S_NOCONV)
        ck_assert_msg(strstr(cdyn_errmsg(), "less accurate than rel_tol asks"), "%s: %s", name, cdyn_errmsg());
      if (st == S_UNVERIFIED)
        ck_assert_msg(strstr(cdyn_errmsg(), "exceed twice the bound") || strstr(cdyn_errmsg(), "the answer fails at row"),
                      "%s: %s", name, cdyn_errmsg());
      int lcp_solves = st == S_OK || st == S_NOCONV;
      if (st == S_OK && x.psd) {
        /* lcp's own promise at CDYN_OK. */
        for (size_t k = 0; k < n; k++) {
          if (eq && eq[k])
            continue;
          long double sc = fabsl((long double)x.b[k]);
          for (size_t j = 0; j < n; j++)
            sc += fabsl((long double)x.A[k * n + j] * (long double)mu[j]);
          long double tw = tol_w + 16.0L * (long double)n * DBL_EPSILON * sc;
          if (h[k])
            ck_assert_msg(mu[k] >= -tol_mu && fabsl((long double)w[k]) <= tw,
                          "%s row %zu: handled with mu %g, w %g (tol_mu %g, allowed |w| %Lg)", name, k, mu[k], w[k],
                          tol_mu, tw);
          else
            ck_assert_msg(w[k] >= -tol_w, "%s row %zu: w %g < -tol_w = %g with CDYN_OK", name, k, w[k], -tol_w);
        }
      }
      cdyn_error_clear();
      int rc_r = ref_lcp_enumerate(n, x.A, x.b, eq, tol_w, tol_mu, mu_r, w_r, h_r, NULL);
      if (rc_r == CDYN_EINVAL)
        cls = C_UNDECIDED;
      else if (rc_r == CDYN_OK)
        cls = lcp_solves ? C_SOLVED : C_LCP_FAILS;
      else
        cls = lcp_solves ? C_LCP_ONLY : C_BOTH_NONE;
      ck_assert_msg(rc_r == CDYN_OK || rc_r == CDYN_ESOLVE || rc_r == CDYN_EINVAL, "%s: reference: %d (%s)", name,
                    rc_r, cdyn_errmsg());
      /* No success of lcp (CDYN_OK, or CDYN_NOCONV, whose numbers a caller
         uses) where the reference accepts no set, whatever A is. */
      ck_assert_msg(cls != C_LCP_ONLY, "%s: lcp returns %s while the reference accepts no set", name,
                    status_name[st]);
      if (x.psd)
        ck_assert_msg(cls != C_LCP_FAILS || (st == S_UNVERIFIED && is_refused_solvable(name)),
                      "%s: lcp returns %s while the reference accepts a set", name, status_name[st]);
      if (cls == C_SOLVED && x.psd)
        agrees(name, &x, mu, w, h, mu_r, w_r, h_r, tol_mu, status_name[st]);
    }
    table[x.psd][cls][st]++;
    free(names[f]);
  }
  free(names);
  /* The table, as TAP comments. */
  for (int psd = 1; psd >= 0; psd--) {
    printf("# lcp over the corpus, A %s:\n# %-28s", psd ? "= J W J^T" : "entry by entry", "");
    for (int s = 0; s < NSTATUS; s++)
      printf(" %8s", status_name[s]);
    printf("\n");
    for (int c = 0; c < NCLASS; c++) {
      printf("# %-28s", class_name[c]);
      for (int s = 0; s < NSTATUS; s++)
        printf(" %8u", table[psd][c][s]);
      printf("\n");
    }
  }
  fflush(stdout);
}
END_TEST

/* ---- the inputs on which lcp and the reference disagreed ---------------------- */

/*
 * Before lcp's answers were verified (cdyn_as_verify, lib/activeset/
 * common.c), lcp returned a success on 23 inputs with A = J W J^T where
 * the reference accepts no set (6 with CDYN_OK, 17 with CDYN_NOCONV),
 * CDYN_OK on one input with an A written entry by entry that the
 * reference rejects, and gave up (CDYN_ESOLVE at its pass limit) on an
 * input with b_k = -1e300 that the reference solves.  Each has a test
 * here, named by its corpus id, with the reference's verdict at the
 * library's tolerances and what lcp must do:
 *   REFUSED the reference accepts no set: lcp returns no success, and the
 *          reason its refusal gives holds, recomputed from the problem
 *          (GSL's eigen-solver for the handled block, which shares no code
 *          with the library's LAPACK call):
 *            CDYN_EUNVERIFIED "exceed twice the bound": |mu_C|_2 > 2 M +
 *              |tol_mu|_2, M = |bt_C|_2 / l_C (bt_k = max(0, -b_k), l_C
 *              the smallest eigenvalue of A_CC above 1e-12 of the largest;
 *              C the handled rows and those with mu_k != 0): no solution
 *              on those rows has multipliers that large;
 *            CDYN_EUNVERIFIED "violated", with |mu_C|_2 within that bound:
 *              an inequality row has w_k < -T_k, T_k = tol_w + 16 n eps
 *              (|b_k| + sqrt(A_kk sum_{j in C} A_jj) 2 M);
 *            CDYN_EUNVERIFIED "leave the double range": some row's terms
 *              |b_k| + sum_j |A_kj mu_j| exceed the double range (summed
 *              here in long double), so w cannot be formed and checked in
 *              double precision;
 *            CDYN_EINFEASIBLE "inconsistent constraint set", or
 *              CDYN_ESOLVE "cannot all hold": lcp reports that the problem
 *              has no solution, which the reference confirms.
 *          Which of these lcp reaches depends on its pivoting through
 *          blocks that are singular to rounding, and so on the rounding
 *          of the LAPACK and BLAS kernels (OpenBLAS picks them by the
 *          processor): the test asks for a reason that holds, not for one
 *          of them;
 *   RANGE  the reference solves the problem, and lcp's set gives terms
 *          beyond the double range: CDYN_EUNVERIFIED "leave the double
 *          range", as above, or (a path that another kernel's rounding
 *          may take) a solution, checked as SOLVED;
 *   ARGS   CDYN_EINVAL: A is not symmetric (the check's allowance
 *          overflowed before);
 *   SOLVED the reference solves the problem, and so does lcp (CDYN_OK, or
 *          CDYN_NOCONV "less accurate than rel_tol asks": it stops at its
 *          pass limit and the last clamped set's solution passes its
 *          verification), with the reference's answer.
 */
typedef enum { WHY_REFUSED, WHY_RANGE, WHY_ARGS, WHY_SOLVED } why;

/* The smallest eigenvalue of A_CC above 1e-12 of the largest (INFINITY
   for an empty or zero block). */
static double block_floor(size_t n, const double *A, const unsigned char *C)
{
  double lmax, lmin;
  if (!block_eigs(n, A, C, 0, &lmax, &lmin))
    return INFINITY;
  return lmax > 0 ? lmin : INFINITY;
}

/* What lcp did on an input, as corpus_case checked it. */
typedef enum {
  OUT_SOLVED,        /* CDYN_OK or CDYN_NOCONV, with the reference's answer */
  OUT_WRONG_SUCCESS, /* a success where the reference accepts no set */
  OUT_BOUND,         /* CDYN_EUNVERIFIED, |mu_C| beyond the bound, recomputed */
  OUT_ROW,           /* CDYN_EUNVERIFIED, an inequality row violated, recomputed */
  OUT_RANGE,         /* CDYN_EUNVERIFIED, terms beyond the double range, recomputed */
  OUT_NO_SOLUTION,   /* CDYN_EINFEASIBLE or CDYN_ESOLVE "cannot all hold" */
  OUT_ARGS           /* CDYN_EINVAL, A not symmetric, recomputed */
} outcome;

static const char *const outcome_name[] = {"solved", "success where the reference accepts no set", "bound", "row",
                                           "range", "no solution", "arguments"};

/* The outcomes an input of each kind may have (the header's list). */
static int allowed(why reason, outcome o)
{
  switch (reason) {
  case WHY_REFUSED:
    return o == OUT_BOUND || o == OUT_ROW || o == OUT_RANGE || o == OUT_NO_SOLUTION;
  case WHY_RANGE:
    return o == OUT_RANGE || o == OUT_SOLVED;
  case WHY_SOLVED:
    return o == OUT_SOLVED;
  case WHY_ARGS:
    return o == OUT_ARGS;
  }
  return 0;
}

/*
 * lcp on the corpus input `name`, and the reference at the library's
 * tolerances (whose verdict must be reference_solves).  Which outcome lcp
 * had is read from its status and message, and the reason that outcome
 * claims is checked here, recomputed from the problem (each outcome's
 * assertions below); the outcome is returned for the test to judge
 * against the input's kind (allowed).
 */
static outcome corpus_case(const char *name, int reference_solves)
{
  fuzz_as_input x;
  load(name, &x);
  size_t n = x.n;
  const unsigned char *eq = x.use_eq ? x.eq : NULL;
  double tol_w, tol_mu, mu[MAXN], w[MAXN], mu_r[MAXN], w_r[MAXN];
  unsigned char h[MAXN], h_r[MAXN];
  cdyn_error_clear();
  int rc = cdyn_activeset_solve("lcp", n, x.A, x.b, eq, NULL, x.tol, mu, w, h, NULL);
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", cdyn_errmsg());
  if (rc == CDYN_EINVAL) {
    /* Refused arguments: A must be far from symmetric. */
    ck_assert_msg(strstr(msg, "not symmetric"), "%s: %d (%s)", name, rc, msg);
    long double worst = 0;
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < i; j++) {
        long double d = fabsl((long double)x.A[i * n + j] - x.A[j * n + i]);
        long double sc = fabsl((long double)x.A[i * n + j]) + fabsl((long double)x.A[j * n + i]) +
                         sqrtl((long double)x.A[i * n + i] * x.A[j * n + j]);
        worst = fmaxl(worst, d / sc);
      }
    ck_assert_msg(worst > 0.1L, "%s: A is symmetric to %Lg", name, worst);
    return OUT_ARGS;
  }
  tolerances(&x, &tol_w, &tol_mu);
  cdyn_error_clear();
  int rc_r = ref_lcp_enumerate(n, x.A, x.b, eq, tol_w, tol_mu, mu_r, w_r, h_r, NULL);
  ck_assert_msg(rc_r == (reference_solves ? CDYN_OK : CDYN_ESOLVE), "%s: the reference returns %d", name, rc_r);
  if (rc == CDYN_OK || rc == CDYN_NOCONV) {
    if (!reference_solves)
      return OUT_WRONG_SUCCESS;
    ck_assert_msg(rc == CDYN_OK || strstr(msg, "less accurate than rel_tol asks"), "%s: %d (%s)", name, rc, msg);
    agrees(name, &x, mu, w, h, mu_r, w_r, h_r, tol_mu, rc == CDYN_OK ? "OK" : "NOCONV");
    return OUT_SOLVED;
  }
  if (rc == CDYN_EINFEASIBLE || rc == CDYN_ESOLVE) {
    /* A report that the problem has no solution: what the reference says? */
    ck_assert_msg(!reference_solves, "%s: %d (%s) where the reference solves the problem", name, rc, msg);
    ck_assert_msg((rc == CDYN_EINFEASIBLE && strstr(msg, "inconsistent constraint set")) ||
                      (rc == CDYN_ESOLVE && strstr(msg, "cannot all hold")),
                  "%s: %d (%s)", name, rc, msg);
    return OUT_NO_SOLUTION;
  }
  ck_assert_msg(rc == CDYN_EUNVERIFIED, "%s: %d (%s)", name, rc, msg);
  /* The bound, recomputed. */
  unsigned char C[MAXN];
  long double bt = 0, mn = 0, tm = 0, dsum = 0;
  for (size_t k = 0; k < n; k++) {
    C[k] = h[k] || mu[k] != 0;
    if (!C[k])
      continue;
    long double b = (eq && eq[k]) ? fabsl((long double)x.b[k]) : fmaxl(0, -(long double)x.b[k]);
    bt += b * b;
    mn += (long double)mu[k] * mu[k];
    if (!(eq && eq[k]))
      tm += (long double)tol_mu * tol_mu;
    dsum += x.A[k * n + k];
  }
  long double M = bt > 0 ? sqrtl(bt) / block_floor(n, x.A, C) : 0;
  int over = sqrtl(mn) > 2 * M + sqrtl(tm);
  if (strstr(msg, "exceed twice the bound")) {
    ck_assert_msg(over, "%s: |mu_C| %Lg, bound %Lg (%s)", name, sqrtl(mn), M, msg);
    return OUT_BOUND;
  }
  int range = strstr(msg, "leave the double range") != NULL;
  ck_assert_msg(range || !over, "%s: |mu_C| %Lg beyond the bound %Lg (%s)", name, sqrtl(mn), M, msg);
  long double terms = 0;
  int violated = 0;
  for (size_t k = 0; k < n; k++) {
    long double t = fabsl((long double)x.b[k]), r = x.b[k];
    for (size_t j = 0; j < n; j++) {
      t += fabsl((long double)x.A[k * n + j] * mu[j]);
      r += (long double)x.A[k * n + j] * mu[j];
    }
    terms = fmaxl(terms, t);
    long double T = tol_w + 16.0L * (long double)n * DBL_EPSILON *
                                (fabsl((long double)x.b[k]) + sqrtl(x.A[k * n + k] * dsum) * 2 * M);
    violated |= !(eq && eq[k]) && r < -T;
  }
  if (range) {
    ck_assert_msg(terms > DBL_MAX, "%s: terms up to %Lg (%s)", name, terms, msg);
    /* Where the reference solves the problem, its answer's terms stay in
       the range: the refusal is of lcp's set, not of the problem. */
    for (size_t k = 0; k < n && reference_solves; k++) {
      long double t = fabsl((long double)x.b[k]);
      for (size_t j = 0; j < n; j++)
        t += fabsl((long double)x.A[k * n + j] * mu_r[j]);
      ck_assert_msg(t <= DBL_MAX, "%s row %zu: the reference's terms reach %Lg", name, k, t);
    }
    return OUT_RANGE;
  }
  ck_assert_msg(violated && strstr(msg, "violated"), "%s: no row violated beyond its tolerance (%s)", name, msg);
  return OUT_ROW;
}

/* One test per corpus input: corpus_case checks the outcome lcp had (its
   reason recomputed from the problem), and the test asks that it is one
   the input's kind allows. */
#define CORPUS_CASE(test, file, reason, solves)                                                                  \
  START_TEST(test)                                                                                               \
  {                                                                                                              \
    outcome o = corpus_case(file, solves);                                                                       \
    ck_assert_msg(allowed(reason, o), "%s: lcp's outcome is '%s', which an input of this kind may not have",     \
                  file, outcome_name[o]);                                                                        \
  }                                                                                                              \
  END_TEST

/* CDYN_OK before, A = J W J^T; the reference accepts no set: refused. */
CORPUS_CASE(test_13c4ca7e, "13c4ca7e7b97d74bfd20afaded964ed17636f515", WHY_REFUSED, 0)
CORPUS_CASE(test_3686c8fb, "3686c8fb7cefe0a707244b86dd77bc9e7c2c8e77", WHY_REFUSED, 0)
CORPUS_CASE(test_8da6e13e, "8da6e13ee6f4d2d8402f542382c95b3706285fb2", WHY_REFUSED, 0)
CORPUS_CASE(test_8dd1755b, "8dd1755b286af49bf13773a5a0f3b19d171b8f77", WHY_REFUSED, 0)
CORPUS_CASE(test_a9378de5, "a9378de510ecf5a0a525c3521da421e0128160b7", WHY_REFUSED, 0)
CORPUS_CASE(test_regress_57cdf506, "regress-57cdf5067cdd", WHY_REFUSED, 0)
/* CDYN_NOCONV before, A = J W J^T; the reference accepts no set: refused. */
CORPUS_CASE(test_044ec903, "044ec903403f7d4e5b4ec1b373046b40894cf749", WHY_REFUSED, 0)
CORPUS_CASE(test_0e9469fd, "0e9469fd0a532d80e89b705eb7a3074d6012bbf9", WHY_REFUSED, 0)
CORPUS_CASE(test_1db18cf1, "1db18cf16c398bf07778682bcbf4f22a02b325d7", WHY_REFUSED, 0)
CORPUS_CASE(test_28c5cf7e, "28c5cf7e0fa47436a4f4a9af59c28a22980c3937", WHY_REFUSED, 0)
CORPUS_CASE(test_32573b21, "32573b21d51e461122187fe5444e9c28f6def66b", WHY_REFUSED, 0)
CORPUS_CASE(test_3b53312a, "3b53312a54c9461761eb91365f068ce8ad93dc37", WHY_REFUSED, 0)
CORPUS_CASE(test_547403dc, "547403dc6fe3a0bc1a70af7457374cb92b1b0ee6", WHY_REFUSED, 0)
CORPUS_CASE(test_579728f7, "579728f77000be68cb7cbbf1a7ef4fef4e1d09f8", WHY_REFUSED, 0)
CORPUS_CASE(test_65b72c4c, "65b72c4c562f30490b2564e5d95cf14453fd034e", WHY_REFUSED, 0)
CORPUS_CASE(test_696ff087, "696ff0879d40899964cec7080caa8aa9349c5496", WHY_REFUSED, 0)
CORPUS_CASE(test_79feffa1, "79feffa14caebeece1a6a91a938994d9604856d4", WHY_REFUSED, 0)
CORPUS_CASE(test_92c168dc, "92c168dc5d0d8b158ac1e9c6757a8e354b969188", WHY_REFUSED, 0)
CORPUS_CASE(test_c4d648ae, "c4d648ae2da31abae8314fcb7dc065cb47505e7d", WHY_REFUSED, 0)
CORPUS_CASE(test_cdd6ad9e, "cdd6ad9e538d5bc13a6b05e902df963c2fb9dc0c", WHY_REFUSED, 0)
CORPUS_CASE(test_f083c06c, "f083c06c41de99d807e3f7540928c6b74f85b178", WHY_REFUSED, 0)
CORPUS_CASE(test_f1822187, "f18221877e1be82b88001b4869469242f973df7b", WHY_REFUSED, 0)
CORPUS_CASE(test_ffdc3a5f, "ffdc3a5f11f489c32fdbff8f7ffe57f4ad93a3ad", WHY_REFUSED, 0)
/* CDYN_NOCONV before, and the reference solves it: lcp ends at the set
   {0, 3, 7}, whose multipliers (2.2e304, ten times the reference's at its
   set {0, 2, 3}) give products A_00 mu_0 = 2.1e308 beyond the double
   range; the reference does not accept that set (its floor is not finite
   there). */
CORPUS_CASE(test_f5455fbc, "f5455fbc6f9554842749b70ebf17423add71a16f", WHY_RANGE, 1)
/* CDYN_OK before, A written entry by entry (A_01 = 1.3e-6, A_10 = 1.8e308);
   the reference accepts no set. */
CORPUS_CASE(test_fbb9c410, "fbb9c4107b831bc2f9c39d6eb6bc7e4d07e8be3f", WHY_ARGS, 0)
/* 8 rows of rank 3; the reference solves it.  With OpenBLAS's AVX-512
   kernels, lcp's first solve ends at a set whose answer fails the bound
   (a Cholesky factor of a block singular to rounding passed the rank
   test), and its second solve, with the condition guard
   (cdyn_as_conclude), solves it; with the AVX2 kernels the first does. */
CORPUS_CASE(test_34e826a4, "34e826a4f03d7dfccf4c94829bfcc81ddea2da2a", WHY_SOLVED, 1)
/* b_1 = -1e300: lcp gave up at its pass limit (CDYN_ESOLVE); the
   reference solves it (added to the corpus with this test). */
CORPUS_CASE(test_8d255aea, "8d255aea32eaa48a112e346ccdfc746240d56348", WHY_SOLVED, 1)
int main(void)
{
  Suite *s = suite_create("lcp_corpus");
  TCase *tc = tcase_create("lcp_corpus");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_corpus);
  suite_add_tcase(s, tc);
  TCase *tcd = tcase_create("disagreements");
  tcase_add_test(tcd, test_13c4ca7e);
  tcase_add_test(tcd, test_3686c8fb);
  tcase_add_test(tcd, test_8da6e13e);
  tcase_add_test(tcd, test_8dd1755b);
  tcase_add_test(tcd, test_a9378de5);
  tcase_add_test(tcd, test_regress_57cdf506);
  tcase_add_test(tcd, test_044ec903);
  tcase_add_test(tcd, test_0e9469fd);
  tcase_add_test(tcd, test_1db18cf1);
  tcase_add_test(tcd, test_28c5cf7e);
  tcase_add_test(tcd, test_32573b21);
  tcase_add_test(tcd, test_3b53312a);
  tcase_add_test(tcd, test_547403dc);
  tcase_add_test(tcd, test_579728f7);
  tcase_add_test(tcd, test_65b72c4c);
  tcase_add_test(tcd, test_696ff087);
  tcase_add_test(tcd, test_79feffa1);
  tcase_add_test(tcd, test_92c168dc);
  tcase_add_test(tcd, test_c4d648ae);
  tcase_add_test(tcd, test_cdd6ad9e);
  tcase_add_test(tcd, test_f083c06c);
  tcase_add_test(tcd, test_f1822187);
  tcase_add_test(tcd, test_ffdc3a5f);
  tcase_add_test(tcd, test_f5455fbc);
  tcase_add_test(tcd, test_fbb9c410);
  tcase_add_test(tcd, test_8d255aea);
  tcase_add_test(tcd, test_34e826a4);
  suite_add_tcase(s, tcd);
  return tu_run(s);
}
