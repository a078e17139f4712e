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
 * up"), CDYN_ESOLVE otherwise, CDYN_EINFEASIBLE, CDYN_ENONFINITE (the
 * result overflowed).
 *
 * What is asserted, on the inputs with A = J W J^T (positive
 * semi-definite, which lcp assumes; an A written entry by entry passes the
 * library's 2 x 2 test and can still be indefinite, and is only counted):
 *   - no input is in "lcp fails, reference solves";
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
enum { S_OK, S_NOCONV, S_GIVES_UP, S_ESOLVE, S_INFEASIBLE, S_NONFINITE, S_EINVAL, S_OTHER, NSTATUS };
static const char *const status_name[NSTATUS] = {"OK", "NOCONV", "gives up", "ESOLVE", "EINFEAS", "ENONFIN", "EINVAL",
                                                 "other"};

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
  case CDYN_ENONFINITE:
    return S_NONFINITE;
  case CDYN_EINVAL:
    return S_EINVAL;
  default:
    return S_OTHER;
  }
}

/* cond of A_HH over its eigenvalues above 1e-12 of the largest; 1 for an
   empty block. */
static double block_cond(size_t n, const double *A, const unsigned char *H)
{
  size_t idx[MAXN], h = 0;
  for (size_t a = 0; a < n; a++)
    if (H[a])
      idx[h++] = a;
  if (!h)
    return 1;
  gsl_matrix *M = gsl_matrix_alloc(h, h);
  gsl_vector *ev = gsl_vector_alloc(h);
  gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(h);
  ck_assert(M && ev && ws);
  /* The symmetric part: the harness forms A_ij and A_ji in different
     orders, which can differ in the last bit. */
  for (size_t a = 0; a < h; a++)
    for (size_t c = 0; c < h; c++)
      gsl_matrix_set(M, a, c, 0.5 * (A[idx[a] * n + idx[c]] + A[idx[c] * n + idx[a]]));
  gsl_eigen_symm(M, ev, ws);
  double lmax = gsl_vector_max(ev), lmin = lmax;
  for (size_t a = 0; a < h; a++) {
    double l = gsl_vector_get(ev, a);
    if (l > 1e-12 * lmax && l < lmin)
      lmin = l;
  }
  gsl_eigen_symm_free(ws);
  gsl_vector_free(ev);
  gsl_matrix_free(M);
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

START_TEST(test_corpus)
{
  struct dirent **names;
  int m = scandir(CDYN_FUZZ_CORPUS, &names, not_dot, alphasort);
  ck_assert_msg(m > 0, "no inputs in %s", CDYN_FUZZ_CORPUS);
  unsigned table[2][NCLASS][NSTATUS];
  memset(table, 0, sizeof table);
  static uint8_t buf[1 << 16];
  for (int f = 0; f < m; f++) {
    const char *name = names[f]->d_name;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", CDYN_FUZZ_CORPUS, name);
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "cannot open %s", path);
    size_t size = fread(buf, 1, sizeof buf, fp);
    ck_assert_msg(!ferror(fp) && feof(fp), "%s: read error, or longer than %zu bytes", path, sizeof buf);
    fclose(fp);
    fuzz_input in = {.data = buf, .size = size};
    fuzz_as_input x;
    fuzz_as_decode(&in, &x);
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
    /* The library's tolerances (cdyn_as_tolerances). */
    double bmax = 0, dmax = 0;
    for (size_t k = 0; k < n; k++) {
      bmax = fmax(bmax, fabs(x.b[k]));
      dmax = fmax(dmax, x.A[k * n + k]);
    }
    double tol_w = x.tol * (bmax > DBL_MIN ? bmax : DBL_MIN), tol_mu = dmax > 0 ? tol_w / dmax : tol_w;
    int cls;
    if (st == S_EINVAL || (st == S_NONFINITE && !finite_input)) {
      cls = C_REFUSED;
    } else {
      if (st == S_NOCONV)
        ck_assert_msg(strstr(cdyn_errmsg(), "less accurate than rel_tol asks"), "%s: %s", name, cdyn_errmsg());
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
      if (x.psd)
        ck_assert_msg(cls != C_LCP_FAILS, "%s: lcp returns %s while the reference accepts a set", name,
                      status_name[st]);
      if (cls == C_SOLVED && x.psd) {
        for (size_t k = 0; k < n; k++) {
          if (eq && eq[k])
            continue;
          if (h[k])
            ck_assert_msg(mu[k] >= -tol_mu, "%s row %zu: handled, mu %g < -tol_mu %g", name, k, mu[k], -tol_mu);
          else
            ck_assert_msg(mu[k] == 0, "%s row %zu: not handled, mu %g", name, k, mu[k]);
        }
        double cond = fmax(block_cond(n, x.A, h), block_cond(n, x.A, h_r));
        long double lbmax = 0, scale_w = 0, scale_a = 0, dw = 0, da = 0;
        double a[FUZZ_AS_MAXD], a_r[FUZZ_AS_MAXD];
        for (size_t i = 0; i < n; i++) {
          lbmax = fmaxl(lbmax, fabsl((long double)x.b[i]));
          long double sc = 0;
          for (size_t c = 0; c < n; c++)
            sc += fabsl((long double)x.A[i * n + c]) * (fabsl((long double)mu[c]) + fabsl((long double)mu_r[c]));
          scale_w = fmaxl(scale_w, sc);
          dw = fmaxl(dw, fabsl((long double)w[i] - (long double)w_r[i]));
        }
        accel(&x, mu, a);
        accel(&x, mu_r, a_r);
        for (size_t j = 0; j < x.d; j++) {
          long double sc = 0;
          for (size_t i = 0; i < n; i++)
            sc += fabsl((long double)x.J[i * x.d + j]) * (fabsl((long double)mu[i]) + fabsl((long double)mu_r[i]));
          scale_a = fmaxl(scale_a, (long double)x.W[j] * sc);
          da = fmaxl(da, fabsl((long double)a[j] - (long double)a_r[j]));
        }
        long double unit_w = 2 * 4 * (long double)n * DBL_EPSILON * (1 + cond) * (lbmax + scale_w);
        long double unit_a = 2 * 4 * (long double)n * DBL_EPSILON * (1 + cond) * scale_a;
        if (getenv("CDYN_TEST_VERBOSE"))
          printf("# %.12s %s: cond %.3g, |dw| %.3Lg (bound %.3Lg), |da| %.3Lg (bound %.3Lg)\n", name, status_name[st],
                 cond, dw, unit_w, da, unit_a);
        ck_assert_msg(dw <= unit_w, "%s: |w_lcp - w_ref| = %.3Lg > %.3Lg", name, dw, unit_w);
        ck_assert_msg(da <= unit_a, "%s: |a_lcp - a_ref| = %.3Lg > %.3Lg", name, da, unit_a);
      }
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

int main(void)
{
  Suite *s = suite_create("lcp_corpus");
  TCase *tc = tcase_create("lcp_corpus");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_corpus);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
