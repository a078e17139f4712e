/*
 * test_census.c: the counterexamples of the active-set census as
 * regression tests.
 *
 * tests/data/census-counterexamples.csv is the default run's
 * counterexamples.csv (`cdyn run active-set-census`: seed 1, 10,000
 * problems of 2-12 constraints): every problem on which the iterative
 * algorithm (003's Algorithm 3) or the exact LCP solver was not exact,
 * named by seed and trial, with what went wrong.  The problems are
 * regenerated with experiments/problems/contact_problems.c, the census's own
 * generator, and replayed:
 *
 * 1. "lcp" must be exact on every one: its answer is checked against the
 *    LCP's conditions directly (a certificate that needs no reference):
 *    mu >= -tol_mu, w = A mu + b >= -tol_w, mu_k w_k = 0 to rounding, and
 *    on every trial up to the last listed the reference must accept a set
 *    where lcp succeeds.
 *    On the first problems of the list it is also compared with the
 *    exhaustive enumeration (reference/lcp_enum.c).
 * 2. The iterative algorithm must fail on each exactly as recorded (it
 *    pulls; it penetrates; its accelerations W (f + J^T mu) are right or
 *    not, against lcp's): a change of its behaviour on any of them fails.
 * 3. On every other trial up to the last listed the iterative algorithm
 *    must be exact (the list is complete).
 *
 * Tolerances: the library's sign tolerances for rel_tol = 1e-9 (tol_w =
 * 1e-9 max|b|, tol_mu = tol_w / max A_kk), and for accelerations the
 * census's 1e-7 of max(|qdd_lcp|, |W f|): the multipliers of near-dependent
 * rows reach 1e6 |b| / A_kk, so rounding in qdd reaches 1e6 eps of its
 * scale, below 1e-9.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include <cdyn/cdyn.h>

#include "problems/contact_problems.h"
#include "lcp_enum.h"
#include "testutil.h"

#ifndef CDYN_TEST_DATA
#error "CDYN_TEST_DATA must name the directory tests/data"
#endif

static const double REL_TOL = 1e-9, ACC_TOL = 1e-7;
#define HEADER "seed,trial,rows,dim,particles,iterative_pulls,iterative_penetrates,iterative_accel_ok,lcp_exact"

typedef struct {
  unsigned long seed, trial;
  double rows, dim, particles, pulls, penetrates, accel_ok, lcp_exact;
} entry;

static entry *read_entries(size_t *n)
{
  const char *path = CDYN_TEST_DATA "/census-counterexamples.csv";
  FILE *f = fopen(path, "r");
  TU_ASSERT(f != NULL, "%s: %s", path, strerror(errno));
  char line[512];
  TU_ASSERT(fgets(line, sizeof line, f) != NULL, "%s: empty", path);
  line[strcspn(line, "\n")] = '\0';
  TU_ASSERT(!strcmp(line, HEADER), "%s: header '%s'", path, line);
  size_t cap = 0, len = 0;
  entry *e = NULL;
  while (fgets(line, sizeof line, f)) {
    if (len == cap) {
      cap = cap ? 2 * cap : 1024;
      e = realloc(e, cap * sizeof *e);
      ck_assert_ptr_nonnull(e);
    }
    double s, t;
    entry *x = &e[len];
    int got = sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &s, &t, &x->rows, &x->dim, &x->particles, &x->pulls,
                     &x->penetrates, &x->accel_ok, &x->lcp_exact);
    TU_ASSERT(got == 9, "%s: line %zu: '%s'", path, len + 2, line);
    x->seed = (unsigned long)s;
    x->trial = (unsigned long)t;
    TU_ASSERT(len == 0 || x->trial > e[len - 1].trial, "%s: trials not increasing at line %zu", path, len + 2);
    TU_ASSERT(x->seed == e[0].seed, "%s: one seed expected", path);
    len++;
  }
  fclose(f);
  TU_ASSERT(len > 0, "%s: no counterexamples", path);
  *n = len;
  return e;
}

static void tolerances(const cp_problem *p, double *tw, double *tm)
{
  double bmax = 0, dmax = 0;
  for (size_t a = 0; a < p->k; a++) {
    bmax = fmax(bmax, fabs(p->b[a]));
    dmax = fmax(dmax, p->A[a * p->k + a]);
  }
  *tw = REL_TOL * fmax(bmax, 1e-300);
  *tm = *tw / dmax;
}

/* lcp's answer, certified by the LCP's conditions; its accelerations. */
static void lcp_certified(const cp_problem *p, unsigned long trial, double *qdd, double *scale)
{
  size_t k = p->k, nq = p->d * p->np;
  double mu[CP_MAXK], w[CP_MAXK], tw, tm;
  unsigned char hd[CP_MAXK];
  cdyn_activeset_report rep;
  int rc = cdyn_activeset_solve("lcp", k, p->A, p->b, NULL, NULL, REL_TOL, mu, w, hd, &rep);
  TU_ASSERT(rc == CDYN_OK, "trial %lu: lcp returns %d: %s", trial, rc, cdyn_errmsg());
  tolerances(p, &tw, &tm);
  /* A success of lcp is one the reference accepts: it finds a solution
     too (w is unique; the census compares accelerations). */
  double mr[CP_MAXK], wr[CP_MAXK];
  TU_ASSERT(ref_lcp_enumerate(k, p->A, p->b, NULL, tw, tm, mr, wr, NULL, NULL) == CDYN_OK,
            "trial %lu: lcp succeeds where the reference accepts no set (%s)", trial, cdyn_errmsg());
  for (size_t a = 0; a < k; a++) {
    double s = fabs(p->b[a]);
    for (size_t c = 0; c < k; c++)
      s += fabs(p->A[a * k + c] * mu[c]);
    /* w recomputed here, with its rounding (a few eps of the terms). */
    double wa = p->b[a];
    for (size_t c = 0; c < k; c++)
      wa += p->A[a * k + c] * mu[c];
    double tr = tw + 64 * (double)k * 2.2e-16 * s;
    TU_ASSERT(mu[a] >= -tm && wa >= -tr && fabs(mu[a] * wa) <= tr * fmax(fabs(mu[a]), tm),
              "trial %lu, row %zu: lcp gives mu %.3g, w %.3g (tol_w %.3g, tol_mu %.3g)", trial, a, mu[a], wa, tr,
              tm);
  }
  cp_accel(p, mu, qdd);
  double zero[CP_MAXK] = {0}, wf[3 * CP_MAXP];
  cp_accel(p, zero, wf);
  *scale = 0;
  for (size_t q = 0; q < nq; q++)
    *scale = fmax(*scale, fmax(fabs(qdd[q]), fabs(wf[q])));
}

START_TEST(test_counterexamples_replay)
{
  size_t n;
  entry *e = read_entries(&n);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  ck_assert_ptr_nonnull(r);
  gsl_rng_set(r, e[0].seed);
  cp_problem p;
  size_t next = 0, enumerated = 0;
  unsigned long last = e[n - 1].trial;
  for (unsigned long t = 0; t <= last; t++) {
    cp_generate(r, 2, 12, &p);
    int listed = next < n && e[next].trial == t;
    double qdd[3 * CP_MAXP], scale;
    lcp_certified(&p, t, qdd, &scale);
    double mu[CP_MAXK], w[CP_MAXK], qi[3 * CP_MAXP];
    unsigned char hd[CP_MAXK];
    cdyn_activeset_report rep;
    int rc = cdyn_activeset_solve("iterative", p.k, p.A, p.b, NULL, NULL, REL_TOL, mu, w, hd, &rep);
    TU_ASSERT(rc == CDYN_OK, "trial %lu: iterative returns %d: %s", t, rc, cdyn_errmsg());
    cp_accel(&p, mu, qi);
    double dev = 0;
    for (size_t q = 0; q < p.d * p.np; q++)
      dev = fmax(dev, fabs(qi[q] - qdd[q]));
    int aok = dev <= ACC_TOL * scale, exact = aok && !rep.pulls;
    /* 003 §5: at most one solve per inequality row. */
    ck_assert_uint_le(rep.solves, p.k);
    if (!listed) {
      TU_ASSERT(exact, "trial %lu is not in the list, but iterative is not exact (pulls %d, accelerations off "
                "by %.3g of %.3g)", t, rep.pulls, dev, scale);
      continue;
    }
    const entry *x = &e[next++];
    TU_ASSERT(x->rows == (double)p.k && x->dim == (double)p.d && x->particles == (double)p.np,
              "trial %lu: the generator now gives k = %zu, d = %zu, np = %zu; recorded %g, %g, %g", t, p.k, p.d,
              p.np, x->rows, x->dim, x->particles);
    TU_ASSERT(rep.pulls == (int)x->pulls && rep.violates == (int)x->penetrates && aok == (int)x->accel_ok,
              "trial %lu: iterative pulls %d, penetrates %d, accelerations right %d; recorded %g, %g, %g", t,
              rep.pulls, rep.violates, aok, x->pulls, x->penetrates, x->accel_ok);
    TU_ASSERT(x->lcp_exact == 1, "trial %lu: recorded as a failure of lcp, which is exact now", t);
    if (enumerated < 25) {
      /* lcp against the enumeration: w is unique. */
      double tw, tm, mr[CP_MAXK], wr[CP_MAXK], ml[CP_MAXK], wl[CP_MAXK];
      tolerances(&p, &tw, &tm);
      TU_ASSERT_OK(ref_lcp_enumerate(p.k, p.A, p.b, NULL, tw, tm, mr, wr, NULL, NULL));
      TU_ASSERT_OK(cdyn_activeset_solve("lcp", p.k, p.A, p.b, NULL, NULL, REL_TOL, ml, wl, NULL, NULL));
      double qr[3 * CP_MAXP];
      cp_accel(&p, mr, qr);
      for (size_t q = 0; q < p.d * p.np; q++)
        TU_ASSERT(fabs(qr[q] - qdd[q]) <= ACC_TOL * scale, "trial %lu: lcp qdd %.17g, enumeration %.17g", t,
                  qdd[q], qr[q]);
      enumerated++;
    }
  }
  ck_assert_uint_eq(next, n);
  gsl_rng_free(r);
  free(e);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("census");
  TCase *tc = tcase_create("counterexamples");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_counterexamples_replay);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
