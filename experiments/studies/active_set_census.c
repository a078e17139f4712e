/*
 * active_set_census.c: active-set-census, beyond 003: how often each active-set
 * algorithm returns the exact contact solution on random small contact
 * configurations.
 *
 * A configuration: np particles (1-4) in d dimensions (2 or 3), masses
 * log-uniform in [0.1, 10] kg, k constraints (min_rows .. max_rows, 2-12 by
 * default), all active at the current state (g = 0) and at rest:
 *   a wall on particle i:      the row n^T on x_i, n a random unit normal;
 *   a separation of i and j:   the row u^T on x_i and -u^T on x_j, u a
 *                              random unit direction from j to i (each
 *                              pair at most once, chosen with
 *                              probability 1/2 while pairs are left);
 * and a random applied force f_p = m_p g_p, g_p standard normal per
 * component.  With J (k x d np) and W = M^-1 the acceleration-level
 * contact problem is (003 eq 6 at rest, no stabilisation)
 *   w = A mu + b,  A = J W J^T,  b = J W f,
 *   qdd = W (f + J^T mu).
 * The draws come from one gsl mt19937 stream seeded with `seed`, in the
 * order written in cp_generate(), so a (seed, trial) pair names a problem.
 *
 * The exact solution is the reference's exhaustive enumeration
 * (reference/lcp_enum.c, dense LAPACK, shares no code with the library);
 * for A = J W J^T the accelerations qdd of all solutions are the same.
 * Each algorithm (cdyn_activeset_solve, sign tolerance rel_tol = 1e-9) is
 * classified on each problem:
 *   exact       qdd within 1e-7 (relative to max(|qdd_ref|, |W f|)) of the
 *               reference's and no pulling multiplier;
 *   penetrates  an inequality row is left with w_k < -tol_w;
 *   pulls       a handled row has mu_k < -tol_mu.
 * Platt is run as at a first contact (every active constraint handled);
 * its later steps (dropping the pullers) are the corner experiment's.
 * Also counted: accelerations right whatever the multipliers (with
 * redundant contacts, A singular, a pulling mu can give the exact qdd).
 * A problem where the iterative algorithm or the exact LCP solver is not
 * exact is a counterexample: counterexamples.csv names it by seed and
 * trial (experiments/problems/contact_problems.c regenerates it) with what went
 * wrong; tests/data/census-counterexamples.csv, a copy of the default
 * run's, is replayed by tests/test_census.c.
 *
 * Verdict (rule fixed before measuring): iterative.terminates holds if the
 * iterative algorithm needs at most k non-empty solves on every problem
 * (k its inequality rows, 003 §5's "at most n linear systems"); otherwise
 * does-not-hold.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "runner/experiment.h"
#include "problems/contact_problems.h"
#include "lcp_enum.h"

static const exp_param params[] = {
  {"problems", "10000", EXP_INT, 1, 1e8, 0, "number of random contact configurations"},
  {"seed", "1", EXP_INT, 0, 4294967295.0, 0, "seed of the gsl mt19937 stream"},
  {"min_rows", "2", EXP_INT, 1, CP_MAXK, 0, "fewest constraints of a configuration"},
  {"max_rows", "12", EXP_INT, 1, CP_MAXK, 0, "most constraints of a configuration (the enumeration's limit is 16)"},
  EXP_PARAMS_END};

static int check(exp_ctx *ctx)
{
  if (exp_param_long(ctx, "min_rows") > exp_param_long(ctx, "max_rows"))
    return cdyn_error(CDYN_EINVAL, "min_rows = %ld must not exceed max_rows = %ld", exp_param_long(ctx, "min_rows"),
                      exp_param_long(ctx, "max_rows"));
  return CDYN_OK;
}

#define NALG 4
static const char *const algs[NALG] = {"platt", "tendency", "iterative", "lcp"};
static const double REL_TOL = 1e-9, ACC_TOL = 1e-7;

typedef struct {
  unsigned long problems, exact, accel_ok, penetrates, pulls, failed, excess;
  unsigned long solves_sum;
  unsigned max_solves;
} tally;

static int run(exp_ctx *ctx)
{
  int rc;
  unsigned long N = (unsigned long)exp_param_long(ctx, "problems");
  double seed_d;
  exp_param_double(ctx, "seed", &seed_d);
  size_t kmin = (size_t)exp_param_long(ctx, "min_rows"), kmax = (size_t)exp_param_long(ctx, "max_rows");
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  if (!r)
    return cdyn_error(CDYN_ENOMEM, "active-set-census: out of memory for the generator");
  gsl_rng_set(r, (unsigned long)seed_d);

  tally tot[NALG];
  static tally bysize[CP_MAXK + 1][NALG];
  memset(tot, 0, sizeof tot);
  memset(bysize, 0, sizeof bysize);
  unsigned long ref_failed = 0, ncounter = 0, lcp_disagree = 0;
  exp_csv cx;
  int have_cx = 0;
  rc = exp_csv_open(ctx, &cx, "counterexamples",
                    "seed,trial,rows,dim,particles,iterative_pulls,iterative_penetrates,iterative_accel_ok,"
                    "lcp_exact",
                    NULL, NULL);
  have_cx = rc == CDYN_OK;
  cp_problem p;
  for (unsigned long t = 0; t < N && !rc; t++) {
    exp_progress(ctx, "active-set-census", (long)t + 1, (long)N);
    cp_generate(r, kmin, kmax, &p);
    size_t k = p.k, nq = p.d * p.np;
    double mu_ref[CP_MAXK], w_ref[CP_MAXK], a_ref[3 * CP_MAXP], wf[3 * CP_MAXP];
    /* The reference's tolerances: those of cdyn_activeset_solve. */
    double bmax = 0, dmax = 0;
    for (size_t a = 0; a < k; a++) {
      bmax = fmax(bmax, fabs(p.b[a]));
      dmax = fmax(dmax, p.A[a * k + a]);
    }
    double tol_w = REL_TOL * fmax(bmax, 1e-300), tol_mu = tol_w / dmax;
    /* No count of accepted subsets: the enumeration then stops after the
       answer's size, with the same answer (lcp_enum.h), a third of the
       work of visiting all 2^k subsets on these problems. */
    if (ref_lcp_enumerate(k, p.A, p.b, NULL, tol_w, tol_mu, mu_ref, w_ref, NULL, NULL) != CDYN_OK) {
      ref_failed++;
      cdyn_error_clear();
      continue;
    }
    cp_accel(&p, mu_ref, a_ref);
    double zero[CP_MAXK] = {0};
    cp_accel(&p, zero, wf);
    double scale = 0;
    for (size_t q = 0; q < nq; q++)
      scale = fmax(scale, fmax(fabs(a_ref[q]), fabs(wf[q])));
    int exact[NALG] = {0}, pulls[NALG] = {0}, pen[NALG] = {0}, aok[NALG] = {0};
    for (int a = 0; a < NALG; a++) {
      double mu[CP_MAXK], w[CP_MAXK], qdd[3 * CP_MAXP];
      unsigned char hd[CP_MAXK];
      cdyn_activeset_report rep;
      tally *ta = &tot[a], *tb = &bysize[k][a];
      ta->problems++, tb->problems++;
      int src = cdyn_activeset_solve(algs[a], k, p.A, p.b, NULL, NULL, REL_TOL, mu, w, hd, &rep);
      if (src < 0) {
        ta->failed++, tb->failed++;
        cdyn_error_clear();
        continue;
      }
      cp_accel(&p, mu, qdd);
      double dev = 0;
      for (size_t q = 0; q < nq; q++)
        dev = fmax(dev, fabs(qdd[q] - a_ref[q]));
      aok[a] = dev <= ACC_TOL * scale;
      exact[a] = aok[a] && !rep.pulls;
      ta->accel_ok += aok[a], tb->accel_ok += aok[a];
      pulls[a] = rep.pulls;
      pen[a] = rep.violates;
      ta->exact += exact[a], tb->exact += exact[a];
      ta->pulls += pulls[a], tb->pulls += pulls[a];
      ta->penetrates += pen[a], tb->penetrates += pen[a];
      ta->solves_sum += rep.solves, tb->solves_sum += rep.solves;
      if (rep.solves > ta->max_solves)
        ta->max_solves = rep.solves;
      if (rep.solves > tb->max_solves)
        tb->max_solves = rep.solves;
      if (rep.solves > k)
        ta->excess++, tb->excess++;
    }
    if (!exact[3])
      lcp_disagree++;
    if (!exact[2] || !exact[3]) {
      ncounter++;
      double row[9] = {seed_d, (double)t, (double)k, (double)p.d, (double)p.np, pulls[2], pen[2], aok[2],
                       exact[3]};
      rc = exp_csv_row(&cx, row, 9);
    }
  }
  gsl_rng_free(r);
  int crc = CDYN_OK;
  if (have_cx)
    crc = exp_csv_close(&cx, rc == CDYN_OK);
  if (!rc)
    rc = crc;
  if (rc)
    return rc;

  exp_csv sum;
  if ((rc = exp_csv_open(ctx, &sum, "census-summary",
                         "algorithm,rows,problems,exact,accel_ok,penetrates,pulls,failed,mean_solves,max_solves,excess", NULL,
                         NULL)))
    return rc;
  for (int a = 0; a < NALG && !rc; a++) {
    const tally *ta = &tot[a];
    double row[10] = {0, ta->problems, ta->exact, ta->accel_ok, ta->penetrates, ta->pulls, ta->failed,
                      ta->problems ? (double)ta->solves_sum / (double)ta->problems : 0, ta->max_solves, ta->excess};
    rc = exp_csv_row_labeled(&sum, algs[a], row, 10);
    for (size_t k = kmin; k <= kmax && !rc; k++) {
      const tally *tb = &bysize[k][a];
      double rb[10] = {(double)k, tb->problems, tb->exact, tb->accel_ok, tb->penetrates, tb->pulls, tb->failed,
                       tb->problems ? (double)tb->solves_sum / (double)tb->problems : 0, tb->max_solves, tb->excess};
      rc = exp_csv_row_labeled(&sum, algs[a], rb, 10);
    }
  }
  crc = exp_csv_close(&sum, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;

  unsigned long M = N - ref_failed;
  printf("  %lu problems (%lu without a reference solution), %lu counterexamples\n", N, ref_failed, ncounter);
  exp_report(ctx,
             "%lu random contact configurations (seed %.0f, %zu-%zu constraints, 1-4 particles in 2-D or 3-D, "
             "masses 0.1-10 kg, all constraints active, at rest), against exhaustive enumeration "
             "(reference/lcp_enum.c). Exact: the accelerations agree with the reference's to 1e-7 and no "
             "multiplier pulls. Platt is run as at a first contact (every active constraint handled).\n\n"
             "| algorithm | exact | accelerations right | penetrates | pulls | failed | mean solves | max solves | "
             "solves > k |\n|---|---|---|---|---|---|---|---|---|\n",
             M, seed_d, kmin, kmax);
  for (int a = 0; a < NALG; a++) {
    const tally *ta = &tot[a];
    double P = ta->problems ? (double)ta->problems : 1;
    exp_report(ctx, "| %s | %lu (%.2f %%) | %lu (%.2f %%) | %lu (%.2f %%) | %lu (%.2f %%) | %lu | %.2f | %u | %lu |\n",
               algs[a], ta->exact, 100.0 * (double)ta->exact / P, ta->accel_ok, 100.0 * (double)ta->accel_ok / P,
               ta->penetrates, 100.0 * (double)ta->penetrates / P,
               ta->pulls, 100.0 * (double)ta->pulls / P, ta->failed, (double)ta->solves_sum / P, ta->max_solves,
               ta->excess);
  }
  exp_report(ctx, "\n%lu counterexamples (the iterative algorithm or the LCP solver not exact) are in "
                  "counterexamples.csv (seed and trial).\n\n",
             ncounter);
  printf("  iterative: %lu of %lu exact, %lu penetrate, %lu pull, at most %u solves; lcp: %lu exact\n",
         tot[2].exact, tot[2].problems, tot[2].penetrates, tot[2].pulls, tot[2].max_solves, tot[3].exact);
  return exp_judge(ctx, "iterative.terminates",
                   (exp_value[]){{"excess", (double)tot[2].excess}, {"failed", (double)tot[2].failed}}, 2,
                   "%lu random problems with %zu-%zu constraints: at most %u solves, %.2f on average; but it returns "
                   "the exact solution on %.2f %% (penetrates on %lu, pulls on %lu); the LCP solver is exact on %lu, "
              "disagrees on %lu",
                   tot[2].problems, kmin, kmax, tot[2].max_solves, (double)tot[2].solves_sum / (double)(tot[2].problems ? tot[2].problems : 1),
              100.0 * (double)tot[2].exact / (double)(tot[2].problems ? tot[2].problems : 1), tot[2].penetrates,
                   tot[2].pulls, tot[3].exact, lcp_disagree);
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "algorithm", "", "active-set algorithm"},
  {NULL, "rows", "1", "rows of the problem (census-summary: all rows of all problems)"},
  {NULL, "problems", "1", "problems with a reference solution"},
  {NULL, "exact", "1", "problems solved exactly (accelerations to 1e-7, no pulling)"},
  {NULL, "accel_ok", "1", "problems with the right accelerations"},
  {NULL, "penetrates", "1", "problems left with a violating row"},
  {NULL, "pulls", "1", "problems with a pulling multiplier"},
  {NULL, "failed", "1", "problems on which the algorithm returned an error"},
  {NULL, "mean_solves", "1", "mean non-empty linear solves per problem"},
  {NULL, "max_solves", "1", "most solves of one problem"},
  {NULL, "excess", "1", "problems with more solves than inequality rows"},
  {NULL, "seed", "1", "seed of the generator"},
  {NULL, "trial", "1", "trial number within the seed"},
  {NULL, "dim", "1", "dimension (2 or 3)"},
  {NULL, "particles", "1", "particles"},
  {NULL, "iterative_pulls", "1", "1 if the iterative algorithm pulls"},
  {NULL, "iterative_penetrates", "1", "1 if it leaves a violating row"},
  {NULL, "iterative_accel_ok", "1", "1 if its accelerations are right"},
  {NULL, "lcp_exact", "1", "1 if the LCP solver is exact"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_active_set_census = {
  .name = "active-set-census",
  .description = "random small contact problems: how often each active-set algorithm is exact",
  .source = "beyond 003",
  .params = params,
  .columns = columns,
  .check = check,
  .schemes = NULL,
  .h = 0.01,
  .steps = 1,
  .run = run,
};
