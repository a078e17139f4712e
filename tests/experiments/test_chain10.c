/*
 * tests/experiments/test_chain10.c: the experiment chain10-stability, end
 * to end.
 *
 * - the perturbed starts: the saw tooth, exact ends, link lengths to
 *   rounding, each node turned about its neighbours' axis by the angle
 *   GSL's mt19937 gives for the trial's seed, different starts for
 *   different seeds, the same bytes on rerun;
 * - every table recomputed from the per-step files and from failures.csv
 *   (the failure rule, the order statistics, the survival steps, the
 *   claim verdicts), and the mass-weighted post-stabilisation equal bit
 *   for bit to the unit one with equal masses;
 * - failure detection against known answers: a threshold crossed at a
 *   step read off an earlier run, one below every error, and implicit's
 *   bounded error.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <cdyn/cdyn.h>

#include "harness.h"

/* ---- chain10-stability ---------------------------------------------------------------- */

#define C10_NODES 11
#define C10_FAIL_COLUMNS                                                                                           \
  "scheme,trial,failed,fail_step,cause,status,e0,e_max,e_before,e_prev,e_mean,ratio,noconv,E0,E_end,e_fail"
enum { F_TRIAL = 1, F_FAILED, F_STEP, F_CAUSE, F_STATUS, F_E0, F_EMAX, F_EBEFORE, F_EPREV, F_EMEAN, F_RATIO, F_NOCONV,
       F_ENERGY0, F_ENERGY_END, F_EFAIL };
#define C10_SUMMARY_COLUMNS                                                                                        \
  "scheme,runs,failed,fail_min,fail_q1,fail_median,fail_q3,fail_max,e_mean,e_before_median,noconv,"                 \
  "identical_to_poststab,E_end_median"
enum { S_RUNS = 1, S_FAILED, S_MIN, S_Q1, S_MED, S_Q3, S_MAX, S_EMEAN, S_EBEFORE, S_NOCONV, S_IDENT, S_EEND };

/*
 * The starts of a chain10-stability run (starts.csv, trials + 1 starts)
 * against what studies/chain10_stability.c promises, for saw-tooth angle `deg` and largest
 * rotation `eps`:
 * - trial 0 is the saw tooth x_i = (i cos phi, [i odd] sin phi, 0);
 * - every start keeps the ends exactly where trial 0 has them, and every
 *   link length to rounding;
 * - trial t >= 1 turns node i = 1 .. 9 in turn about the axis through
 *   node i-1 (already turned) and node i+1 (not yet: trial 0's), by the
 *   angle psi_i that gsl_rng_mt19937 seeded with t gives,
 *   psi_i = eps (2 u_i - 1): the node keeps its axial coordinate and its
 *   distance from the axis, and its perpendicular part turns by psi_i.
 * The starts' e_n (failures.csv e0) must be at rounding level.
 */
static void check_chain10_starts(const char *dir, long trials, double deg, double eps)
{
  char path[PATH_MAX];
  pathf(path, "%s/starts.csv", dir);
  table s = read_table(path, "trial,node,x,y,z", 0);
  ck_assert_msg(s.nrows == (size_t)(trials + 1) * C10_NODES, "%s: %zu rows, expected %ld", path, s.nrows,
                (trials + 1) * C10_NODES);
  const double phi = deg * acos(-1.0) / 180.0;
  /*
   * Tolerances.  Coordinates are below 8 m, where one ulp is 1.8e-15; a
   * start position is one product (i cos phi), a turned node one Rodrigues
   * evaluation of about ten operations on |r| <= 1 plus the addition of
   * its anchor, so each coordinate carries a few ulp: <= 4e-15.  A link
   * length difference of two such nodes is off by <= 2 sqrt(3) 4e-15 =
   * 1.4e-14, hence TOL_LINK = 2e-14 and, over 10 links (the pins are
   * exact), e_n <= 2e-13.  The angle of a node about its axis is a
   * perpendicular offset of L sin phi >= 0.5 m (phi >= 30 deg here) seen
   * with those errors: <= 2 x 1.4e-14 / 0.5 ~ 6e-14 rad, hence 1e-13.
   */
  const double TOL_POS = 1e-14, TOL_LINK = 2e-14, TOL_ANGLE = 1e-13;
  ck_assert_msg(deg >= 30 && deg < 90, "the angle tolerance assumes phi >= 30 degrees");
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  ck_assert_ptr_nonnull(rng);
  for (long t = 0; t <= trials; t++) {
    const double *q = s.v + (size_t)t * C10_NODES * 5, *q0 = s.v;
    for (int i = 0; i < C10_NODES; i++) {
      ck_assert_msg(q[5 * i] == (double)t && q[5 * i + 1] == (double)i, "%s: row %ld is trial %g node %g", path,
                    t * C10_NODES + i + 1, q[5 * i], q[5 * i + 1]);
      if (t == 0) {
        double want[3] = {i * cos(phi), (i % 2) ? sin(phi) : 0.0, 0.0};
        ck_assert_msg(tu_dist3(q + 5 * i + 2, want) <= TOL_POS, "%s: trial 0 node %d at (%.17g, %.17g, %.17g)", path, i,
                      q[5 * i + 2], q[5 * i + 3], q[5 * i + 4]);
      }
    }
    /* The ends do not move. */
    for (int c = 0; c < 3; c++)
      ck_assert_msg(q[2 + c] == q0[2 + c] && q[5 * 10 + 2 + c] == q0[5 * 10 + 2 + c],
                    "%s: trial %ld moves an end of the chain", path, t);
    for (int i = 0; i < 10; i++) {
      double len = tu_dist3(q + 5 * i + 2, q + 5 * (i + 1) + 2);
      ck_assert_msg(fabs(len - 1) <= TOL_LINK, "%s: trial %ld: link %d has length 1 %+.3g", path, t, i, len - 1);
    }
    if (t == 0)
      continue;
    gsl_rng_set(rng, (unsigned long)t);
    double zmax = 0;
    for (int i = 1; i < 10; i++) {
      double psi = eps * (2 * gsl_rng_uniform(rng) - 1);
      const double *a = q + 5 * (i - 1) + 2, *b = q0 + 5 * (i + 1) + 2, *x0 = q0 + 5 * i + 2, *x1 = q + 5 * i + 2;
      double k[3], u0[3], u1[3], nk = tu_dist3(a, b);
      for (int c = 0; c < 3; c++)
        k[c] = (b[c] - a[c]) / nk;
      double k0 = 0, k1 = 0;
      for (int c = 0; c < 3; c++) {
        k0 += k[c] * (x0[c] - a[c]);
        k1 += k[c] * (x1[c] - a[c]);
      }
      for (int c = 0; c < 3; c++) {
        u0[c] = x0[c] - a[c] - k0 * k[c];
        u1[c] = x1[c] - a[c] - k1 * k[c];
      }
      double cr[3] = {u0[1] * u1[2] - u0[2] * u1[1], u0[2] * u1[0] - u0[0] * u1[2], u0[0] * u1[1] - u0[1] * u1[0]};
      double angle = atan2(k[0] * cr[0] + k[1] * cr[1] + k[2] * cr[2], u0[0] * u1[0] + u0[1] * u1[1] + u0[2] * u1[2]);
      ck_assert_msg(fabs(k0 - k1) <= TOL_LINK, "%s: trial %ld node %d: axial coordinate %.17g -> %.17g", path, t, i,
                    k0, k1);
      ck_assert_msg(fabs(angle - psi) <= TOL_ANGLE,
                    "%s: trial %ld node %d turned by %.17g rad about its neighbours' axis, seed %ld gives %.17g", path,
                    t, i, angle, t, psi);
      /* One rotation by |psi| <= eps at a distance <= L from its axis. */
      ck_assert_msg(tu_dist3(x0, x1) <= eps * (1 + 1e-9), "%s: trial %ld node %d moved %.3g > eps L", path, t, i,
                    tu_dist3(x0, x1));
      zmax = fmax(zmax, fabs(x1[2]));
    }
    /* The perturbation leaves the plane (the exact start has z = 0). */
    ck_assert_msg(zmax > 0.1 * eps, "%s: trial %ld: largest |z| %.3g, not out of the plane", path, t, zmax);
    /* Different seeds, different starts. */
    const double *prev = s.v + (size_t)(t - 1) * C10_NODES * 5;
    double diff = 0;
    for (int i = 0; i < C10_NODES; i++)
      diff = fmax(diff, tu_dist3(q + 5 * i + 2, prev + 5 * i + 2));
    ck_assert_msg(diff > 0.01 * eps, "%s: trials %ld and %ld start within %.3g of each other", path, t - 1, t, diff);
  }
  gsl_rng_free(rng);
  table_free(&s);

  pathf(path, "%s/failures.csv", dir);
  table f = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  for (size_t r = 0; r < f.nrows; r++)
    ck_assert_msg(tv(&f, r, F_E0) <= 10 * TOL_LINK, "%s: row %zu: e_n of the start is %.3g", path, r + 1,
                  tv(&f, r, F_E0));
  table_free(&f);
}

START_TEST(test_chain10_starts)
{
  /* High-entropy parameters, not the defaults: they must reach the run. */
  run_ok("run", "chain10-stability", "--scheme", "implicit", "--steps", "20", "--set", "trials=3", "--set",
         "sawtooth=37.5", "--set", "perturb=2.5e-3", "--out", "a");
  char dir[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  check_chain10_starts(dir, 3, 37.5, 2.5e-3);
  const char *cmd = "cdyn run chain10-stability --scheme implicit --steps 20 --set trials=3 --set sawtooth=37.5 "
                    "--set perturb=2.5e-3 --out a";
  check_meta(dir, "starts", cmd, 0.001, 20, "sawtooth", "37.5");
  check_meta(dir, "implicit", cmd, 0.001, 20, "perturb", "2.5e-3");
  /* A restricted run judges the claims it can, and keeps its companion run. */
  char path[PATH_MAX];
  /* Claims whose runs did not all run are listed as not run. */
  check_claims_part(dir, "chain10-stability");
  pathf(path, "%s/poststab-mass.csv", dir);
  ck_assert_msg(exists(path), "%s: the companion run is part of the experiment", path);
  /* The same command writes the same bytes. */
  run_ok("run", "chain10-stability", "--scheme", "implicit", "--steps", "20", "--set", "trials=3", "--set",
         "sawtooth=37.5", "--set", "perturb=2.5e-3", "--out", "b");
  check_same_output(5);
}
END_TEST

/*
 * One run name's unperturbed file RUN.csv (step,t,e,E) against its row of
 * failures.csv (trial 0), recomputing the failure rule: the run fails at
 * the first step k >= 1 with e_k > fail_tol.  The divergence guard
 * refuses that step (status CDYN_EDIVERGED), so the file holds the rows
 * before it, every one within fail_tol, and e_fail the refused step's e_n.
 * (Failed or non-finite steps, causes 1 and 2, likewise leave the rows
 * before the failure.)  Returns the file's e column (caller frees).
 */
static double *check_chain10_run(const char *dir, const char *name, const table *f, size_t row, long steps,
                                 double fail_tol, size_t *nrows)
{
  char path[PATH_MAX];
  pathf(path, "%s/%s.csv", dir, name);
  table t = read_table(path, "step,t,e,E", 0);
  ck_assert_msg(t.nrows >= 1 && t.nrows <= (size_t)steps + 1, "%s: %zu rows for %ld steps", path, t.nrows, steps);
  double *e = malloc(t.nrows * sizeof *e);
  ck_assert_ptr_nonnull(e);
  for (size_t k = 0; k < t.nrows; k++) {
    ck_assert_msg(tv(&t, k, 0) == (double)k && fabs(tv(&t, k, 1) - 0.001 * (double)k) <= 1e-15 * (double)k,
                  "%s: row %zu: step %g, t %.17g", path, k + 1, tv(&t, k, 0), tv(&t, k, 1));
    e[k] = tv(&t, k, 2);
    ck_assert_msg(e[k] >= 0 && (k == 0 || e[k] <= fail_tol), "%s: step %zu: e = %g (fail_tol %g)", path, k, e[k],
                  fail_tol);
  }
  ck_assert_msg(!strcmp(f->label[row], name) && tv(f, row, F_TRIAL) == 0, "failures.csv row %zu is %s trial %g",
                row + 1, f->label[row], tv(f, row, F_TRIAL));
  double failed = tv(f, row, F_FAILED), step = tv(f, row, F_STEP), cause = tv(f, row, F_CAUSE);
  double status = tv(f, row, F_STATUS), efail = tv(f, row, F_EFAIL);
  if (t.nrows == (size_t)steps + 1) {
    ck_assert_msg(failed == 0 && step == (double)steps && cause == 0 && status == 0 && isnan(efail),
                  "%s: survives all %ld steps, but failures.csv says failed %g at step %g, cause %g", path, steps,
                  failed, step, cause);
  } else if (cause == 3) {
    ck_assert_msg(failed == 1 && step == (double)t.nrows && status == CDYN_EDIVERGED && efail > fail_tol,
                  "%s: stops after %zu rows; failures.csv: failed %g at %g, status %g, e_fail %g (fail_tol %g)", path,
                  t.nrows, failed, step, status, efail, fail_tol);
  } else {
    ck_assert_msg(failed == 1 && step == (double)t.nrows && (cause == 1 || cause == 2) && status < 0 && isnan(efail),
                  "%s: stops after %zu rows without exceeding fail_tol; failures.csv: failed %g at %g, cause %g", path,
                  t.nrows, failed, step, cause);
  }
  /* The values recorded before the failure (the whole run if none). */
  size_t end = failed ? (size_t)step : (size_t)steps + 1;
  double emax = 0, esum = 0;
  for (size_t k = 0; k < end; k++)
    emax = fmax(emax, e[k]);
  for (size_t k = 1; k < end; k++)
    esum += e[k];
  ck_assert_msg(tv(f, row, F_E0) == e[0] && tv(f, row, F_EMAX) == emax,
                "%s: e0 %.17g, e_max %.17g; the file: %.17g, %.17g", name, tv(f, row, F_E0), tv(f, row, F_EMAX), e[0],
                emax);
  /* A sum of n positive terms in another order than the experiment's:
     relative rounding <= n u, u = 1.1e-16, on each side, plus the
     division. */
  double emean = end > 1 ? esum / (double)(end - 1) : NAN;
  ck_assert_msg(same(tv(f, row, F_EMEAN), emean, (2.0 * (double)end + 2) * 1.1e-16 * emean),
                "%s: e_mean %.17g, the file gives %.17g", name, tv(f, row, F_EMEAN), emean);
  double eprev = failed ? e[(size_t)step - 1] : NAN, ebefore = failed && step > 100 ? e[(size_t)step - 100] : NAN;
  ck_assert_msg(same(tv(f, row, F_EPREV), eprev, 0) && same(tv(f, row, F_EBEFORE), ebefore, 0),
                "%s: e_prev %.17g, e_before %.17g; the file gives %.17g, %.17g", name, tv(f, row, F_EPREV),
                tv(f, row, F_EBEFORE), eprev, ebefore);
  double ratio = NAN;
  if (!failed) {
    size_t q = (size_t)steps / 4;
    double a = 0, b = 0;
    for (size_t k = 1; k <= q; k++)
      a += e[k];
    for (size_t k = (size_t)steps - q + 1; k <= (size_t)steps; k++)
      b += e[k];
    ratio = b / a;
  }
  /* Two sums of N/4 positive terms, each to N/4 u on both sides, and a
     quotient: relative <= (N + 4) u. */
  ck_assert_msg(same(tv(f, row, F_RATIO), ratio, ((double)steps + 4) * 1.1e-16 * fabs(ratio)),
                "%s: ratio %.17g, the file gives %.17g", name, tv(f, row, F_RATIO), ratio);
  ck_assert_msg(tv(f, row, F_ENERGY0) == tv(&t, 0, 3) && tv(f, row, F_ENERGY_END) == tv(&t, t.nrows - 1, 3),
                "%s: E0 %.17g, E_end %.17g; the file: %.17g, %.17g", name, tv(f, row, F_ENERGY0),
                tv(f, row, F_ENERGY_END), tv(&t, 0, 3), tv(&t, t.nrows - 1, 3));
  *nrows = t.nrows;
  table_free(&t);
  return e;
}

/* Median and quartiles as studies/chain10_stability.c states them: GSL's interpolation of
   the sorted failure steps. */
static double c10_quantile(double *x, size_t n, double p)
{
  gsl_sort(x, 1, n);
  return gsl_stats_quantile_from_sorted_data(x, 1, n, p);
}

/*
 * The tables of a chain10-stability run of the run names `names` (NR of
 * them), NT starts each, N steps, failure threshold `tol`: each run's
 * unperturbed file against failures.csv (check_chain10_run), summary.csv
 * recomputed from the rows of failures.csv, and survival.csv as the step
 * function of the failure steps.  f and s get failures.csv and
 * summary.csv, e[r] and ne[r] each run's e column (caller frees).
 */
#define C10_MAX_TRIALS 16
static void check_chain10_tables(const char *dir, const char *const *names, size_t NR, size_t NT, long N, double tol,
                                 table *f, table *s, double **e, size_t *ne)
{
  char path[PATH_MAX];
  ck_assert_uint_le(NT, C10_MAX_TRIALS);
  pathf(path, "%s/failures.csv", dir);
  *f = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  ck_assert_msg(f->nrows == NR * NT, "%s: %zu rows, expected %zu", path, f->nrows, NR * NT);
  pathf(path, "%s/summary.csv", dir);
  *s = read_table_nan(path, C10_SUMMARY_COLUMNS, 1);
  ck_assert_msg(s->nrows == NR, "%s: %zu rows, expected %zu", path, s->nrows, NR);
  pathf(path, "%s/survival.csv", dir);
  table sv = read_table(path, "scheme,step,alive", 1);
  size_t svr = 0;
  for (size_t r = 0; r < NR; r++) {
    e[r] = check_chain10_run(dir, names[r], f, r * NT, N, tol, &ne[r]);
    /* The summary from the rows of failures.csv. */
    double steps[C10_MAX_TRIALS], ebefore[C10_MAX_TRIALS], eend[C10_MAX_TRIALS], emean = 0, noconv = 0;
    size_t nf = 0, nb = 0;
    for (size_t t = 0; t < NT; t++) {
      size_t row = r * NT + t;
      ck_assert_msg(!strcmp(f->label[row], names[r]) && tv(f, row, F_TRIAL) == (double)t, "failures.csv: row %zu",
                    row + 1);
      /* Only the iterative scheme can stop before its tolerance. */
      ck_assert_msg(tv(f, row, F_NOCONV) == 0 || !strcmp(names[r], "rattle"), "%s: %g NOCONV steps", names[r],
                    tv(f, row, F_NOCONV));
      if (tv(f, row, F_FAILED) == 1)
        steps[nf++] = tv(f, row, F_STEP);
      if (isfinite(tv(f, row, F_EBEFORE)))
        ebefore[nb++] = tv(f, row, F_EBEFORE);
      emean += tv(f, row, F_EMEAN);
      eend[t] = tv(f, row, F_ENERGY_END);
      noconv += tv(f, row, F_NOCONV);
    }
    emean /= (double)NT;
    ck_assert_msg(!strcmp(s->label[r], names[r]) && tv(s, r, S_RUNS) == (double)NT &&
                    tv(s, r, S_FAILED) == (double)nf && tv(s, r, S_NOCONV) == noconv,
                  "summary.csv row %zu: %s, %g runs, %g failed; expected %s, %zu, %zu", r + 1, s->label[r],
                  tv(s, r, S_RUNS), tv(s, r, S_FAILED), names[r], NT, nf);
    double want[5] = {NAN, NAN, NAN, NAN, NAN};
    static const double p[5] = {0, 0.25, 0.5, 0.75, 1};
    for (int c = 0; c < 5 && nf; c++)
      want[c] = c10_quantile(steps, nf, p[c]);
    for (int c = 0; c < 5; c++)
      ck_assert_msg(same(tv(s, r, S_MIN + c), want[c], 0), "summary.csv %s column %d: %.17g, the runs give %.17g",
                    names[r], S_MIN + c + 1, tv(s, r, S_MIN + c), want[c]);
    /* A mean of NT means: relative rounding <= NT 1.1e-16. */
    ck_assert_msg(same(tv(s, r, S_EMEAN), emean, 1e-14 * emean), "summary.csv %s: e_mean %.17g, expected %.17g",
                  names[r], tv(s, r, S_EMEAN), emean);
    double bmed = nb ? c10_quantile(ebefore, nb, 0.5) : NAN;
    ck_assert_msg(same(tv(s, r, S_EBEFORE), bmed, 0), "summary.csv %s: e_before_median %.17g, expected %.17g",
                  names[r], tv(s, r, S_EBEFORE), bmed);
    ck_assert_msg(tv(s, r, S_EEND) == c10_quantile(eend, NT, 0.5), "summary.csv %s: E_end_median %.17g", names[r],
                  tv(s, r, S_EEND));
    /* survival.csv: from 1 at step 0, down by 1/NT at each failure. */
    ck_assert_msg(svr < sv.nrows && !strcmp(sv.label[svr], names[r]) && tv(&sv, svr, 1) == 0 && tv(&sv, svr, 2) == 1,
                  "survival.csv: %s does not start at (0, 1)", names[r]);
    svr++;
    long prev = 0;
    size_t alive = NT;
    while (svr < sv.nrows && !strcmp(sv.label[svr], names[r])) {
      long k = (long)tv(&sv, svr, 1);
      ck_assert_msg(k > prev, "survival.csv %s: step %ld after %ld", names[r], k, prev);
      size_t dead = 0;
      for (size_t i = 0; i < nf; i++)
        dead += steps[i] <= (double)k;
      alive = NT - dead;
      ck_assert_msg(fabs(tv(&sv, svr, 2) - (double)alive / (double)NT) <= 1e-15,
                    "survival.csv %s: %.17g alive at step %ld, the failures give %zu of %zu", names[r],
                    tv(&sv, svr, 2), k, alive, NT);
      prev = k;
      svr++;
    }
    ck_assert_msg(alive == NT - nf, "survival.csv %s ends with %zu of %zu alive, %zu failed", names[r], alive, NT, nf);
  }
  ck_assert_msg(svr == sv.nrows, "survival.csv: %zu rows left over", sv.nrows - svr);
  table_free(&sv);
}

/* The index of run `name` among n names; fails the test if absent. */
static size_t name_index(const char *const *names, size_t n, const char *name)
{
  for (size_t k = 0; k < n; k++)
    if (!strcmp(names[k], name))
      return k;
  ck_abort_msg("no run %s", name);
  return 0;
}

/*
 * The two claims of a default-scheme chain10-stability run (run order
 * baumgarte, poststab, implicit, improved, rattle, poststab-mass; NT <= 3
 * starts each), judged again by their rules from failures.csv (f) and
 * summary.csv (s).
 */
static void check_chain10_claims(const char *dir, const table *f, const table *s, const char *const *names, size_t NR,
                                 size_t NT)
{
  ck_assert_uint_le(NT, 3);
  const size_t ip = name_index(names, NR, "poststab"), ii = name_index(names, NR, "implicit");
  double frac = tv(s, ip, S_FAILED) / tv(s, ip, S_RUNS), med = tv(s, ip, S_MED);
  /* Implicit's ratios (NaN for a failed run): the exact start's, and the
     median of the trials' that are defined. */
  double r0 = tv(f, ii * NT, F_RATIO), rt[2] = {NAN, NAN};
  size_t nrt = 0;
  for (size_t t = 1; t < NT; t++)
    if (isfinite(tv(f, ii * NT + t, F_RATIO)))
      rt[nrt++] = tv(f, ii * NT + t, F_RATIO);
  double rmed = nrt == 2 ? (rt[0] + rt[1]) / 2 : nrt == 1 ? rt[0] : NAN;
  double m_impl = isnan(r0) || isnan(rmed) ? NAN : fmax(r0, rmed);
  check_claim(dir, "chain10.poststab_fails",
              (exp_value[]){{"failed_fraction", frac}, {"median_fail_step", tv(s, ip, S_FAILED) > 0 ? med : NAN}}, 2,
              1e-5);
  check_claim(dir, "chain10.implicit_stable", (exp_value[]){{"failures", tv(s, ii, S_FAILED)}, {"decay", m_impl}}, 2,
              1e-5);
  ck_assert_uint_eq(check_claims_part(dir, "chain10-stability"), 2);
}

START_TEST(test_chain10_default_run)
{
  /* The default schemes (so the context run and the claims), 3 starts,
     400 steps, and a fail_tol low enough that some runs fail and others
     survive. */
  const size_t NT = 3;
  run_ok("run", "chain10-stability", "--steps", "400", "--set", "trials=2", "--set", "fail_tol=1e-6", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  check_chain10_starts(dir, 2, 45, 1e-3);
  /* The runs, from the run's record: the paper's schemes, then the
     mass-weighted companion. */
  static char run_names[64][64];
  const char *names[64];
  size_t NR;
  read_runs(dir, run_names, 64, &NR);
  ck_assert_uint_le(NR, 8);
  for (size_t r = 0; r < NR; r++)
    names[r] = run_names[r];
  const size_t ip = name_index(names, NR, "poststab"), im = name_index(names, NR, "poststab-mass");
  dirlist l = list_dir(dir);
  /* A file per run, starts, failures, summary, survival, runs.csv and the
     claims; each CSV with its record, and run.meta.json. */
  ck_assert_uint_eq(count_suffix(&l, ".csv"), NR + 6);
  ck_assert_uint_eq(count_suffix(&l, ".meta.json"), NR + 6);
  dirlist_free(&l);
  const char *cmd = "cdyn run chain10-stability --steps 400 --set trials=2 --set fail_tol=1e-6 --out a";
  check_meta(dir, "failures", cmd, 0.001, 400, "fail_tol", "1e-6");
  check_meta(dir, "poststab-mass", cmd, 0.001, 400, "trials", "2");
  pathf(path, "%s/poststab-mass.meta.json", dir);
  char *json = must_slurp(path);
  ck_assert_msg(json_has_string(json, "weighting", "mass"), "%s: not the mass-weighted projection:\n%s", path, json);
  free(json);
  pathf(path, "%s/poststab.meta.json", dir);
  json = must_slurp(path);
  ck_assert_msg(json_has_string(json, "weighting", "unit"), "%s: not the unit-weighted projection:\n%s", path, json);
  free(json);
  table f, s;
  double *e[8];
  size_t ne[8];
  check_chain10_tables(dir, names, NR, NT, 400, 1e-6, &f, &s, e, ne);

  /*
   * Equal masses: W = I / m with m = 1, so the library's mass weights
   * 1/m are 1.0 exactly, as are its unit weights, and the two projections
   * execute the same operations on the same numbers.  The context run
   * must therefore reproduce poststab bit for bit, and say so.
   */
  ck_assert_msg(ne[ip] == ne[im] && !memcmp(e[ip], e[im], ne[ip] * sizeof(double)),
                "poststab-mass's e_n differs from poststab's with equal masses");
  ck_assert_msg(tv(&s, im, S_IDENT) == (double)NT, "summary.csv: identical_to_poststab = %g, expected %zu",
                tv(&s, im, S_IDENT), NT);
  for (size_t r = 0; r < NR; r++)
    ck_assert_msg(r == im || tv(&s, r, S_IDENT) == -1, "summary.csv %s: identical_to_poststab %g", names[r],
                  tv(&s, r, S_IDENT));
  for (size_t t = 0; t < NT; t++)
    for (size_t c = 1; c < f.ncol; c++)
      ck_assert_msg(same(tv(&f, ip * NT + t, c), tv(&f, im * NT + t, c), 0), "failures.csv: trial %zu column %zu "
                    "differs between poststab and poststab-mass", t, c + 1);

  check_chain10_claims(dir, &f, &s, names, NR, NT);
  for (size_t r = 0; r < NR; r++)
    free(e[r]);
  table_free(&f);
  table_free(&s);

  /* At the default fail_tol the short runs survive: the verdicts'
     other branches. */
  run_ok("run", "chain10-stability", "--steps", "400", "--set", "trials=2", "--out", "b");
  wp(dir, "b");
  check_chain10_tables(dir, names, NR, NT, 400, 0.1, &f, &s, e, ne);
  check_chain10_claims(dir, &f, &s, names, NR, NT);
  for (size_t r = 0; r < NR; r++)
    free(e[r]);
  table_free(&f);
  table_free(&s);
}
END_TEST

/*
 * The summary's order statistics on failure steps that differ: implicit
 * over the default 10000 steps from 8 starts, with a fail_tol inside the
 * spread of its largest e_n over the trials (5.4e-4 .. 5.9e-4 at the
 * defaults), so that some runs fail, at various steps, and some do not.
 * The tables are checked against their rows whatever the outcome.
 */
START_TEST(test_chain10_failure_spread)
{
  run_ok("run", "chain10-stability", "--scheme", "implicit", "--set", "trials=7", "--set", "fail_tol=5.5e-4", "--out",
         "a");
  char dir[PATH_MAX];
  wp(dir, "a");
  /* implicit, and the companion run */
  static char run_names[64][64];
  const char *names[8];
  size_t NR;
  read_runs(dir, run_names, 64, &NR);
  ck_assert_msg(NR >= 1 && NR <= 8 && !strcmp(run_names[0], "implicit"), "%s: %zu runs", dir, NR);
  for (size_t r = 0; r < NR; r++)
    names[r] = run_names[r];
  table f, s;
  double *e[8];
  size_t ne[8];
  check_chain10_tables(dir, names, NR, 8, 10000, 5.5e-4, &f, &s, e, ne);
  for (size_t r = 0; r < NR; r++)
    free(e[r]);
  table_free(&f);
  table_free(&s);
}
END_TEST

/*
 * Failure detection with known answers.  A first run of baumgarte (its
 * error grows from the start) records e_n per step; a fail_tol just below
 * e_n at step 150 must then fail the same run at the first step whose e_n
 * exceeds it (the dynamics are the same up to there, so the file must
 * repeat the first run's rows before that step, and e_fail its e_n, bit
 * for bit: the divergence guard measures the same state); a fail_tol below every e_n after the
 * start fails it at step 1.  And implicit cannot fail a 300-step run at
 * the default 0.1 m: each of its steps is one linearised Newton step on
 * Phi(q+) = 0, which leaves per link the remainder of the linearisation,
 * |d|^2 / (2 L) for a step d = h v of a node relative to its neighbour;
 * the chain cannot gain energy from a fall of more than its 10 m, so
 * |v| <= sqrt(2 g 10 m) + its initial 0 = 14 m/s per node, relative speeds
 * <= 28 m/s, d <= 0.028 m, and so e_n <= 10 x 0.028^2 / 2 = 4e-3 m.
 */
START_TEST(test_chain10_failure_detection)
{
  run_ok("run", "chain10-stability", "--scheme", "baumgarte", "--steps", "300", "--set", "trials=0", "--out", "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  pathf(path, "%s/failures.csv", dir);
  table f = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  /* Row 0: baumgarte's only start (the companion's follows). */
  ck_assert_msg(f.nrows >= 1 && !strcmp(f.label[0], "baumgarte"), "%s: row 1 is not baumgarte's", path);
  size_t n1;
  double *e1 = check_chain10_run(dir, "baumgarte", &f, 0, 300, 0.1, &n1);
  table_free(&f);
  ck_assert_msg(n1 == 301, "baumgarte fails within 300 steps at 0.1 m");
  double T = e1[150] * (1 - 1e-9);
  long expect = -1;
  for (size_t k = 1; k <= 300 && expect < 0; k++)
    if (e1[k] > T)
      expect = (long)k;
  ck_assert_msg(expect >= 1 && expect <= 150, "no step up to 150 exceeds %g", T);
  char set[64];
  snprintf(set, sizeof set, "fail_tol=%.17g", T);
  run_ok("run", "chain10-stability", "--scheme", "baumgarte", "--steps", "300", "--set", "trials=0", "--set", set,
         "--out", "b");
  wp(dir, "b");
  pathf(path, "%s/failures.csv", dir);
  f = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  size_t n2;
  double *e2 = check_chain10_run(dir, "baumgarte", &f, 0, 300, T, &n2);
  ck_assert_msg(tv(&f, 0, F_FAILED) == 1 && tv(&f, 0, F_STEP) == (double)expect && tv(&f, 0, F_CAUSE) == 3,
                "fail_tol %.17g: failed %g at step %g, cause %g; expected step %ld", T, tv(&f, 0, F_FAILED),
                tv(&f, 0, F_STEP), tv(&f, 0, F_CAUSE), expect);
  /* The rows before the refused step, and that step's e_n in e_fail. */
  ck_assert_msg(n2 == (size_t)expect && !memcmp(e1, e2, n2 * sizeof(double)) && tv(&f, 0, F_EFAIL) == e1[expect],
                "the stopped run does not repeat the first run's e_n up to its failure (%zu rows, e_fail %.17g against "
                "%.17g)",
                n2, tv(&f, 0, F_EFAIL), e1[expect]);
  table_free(&f);
  free(e2);

  ck_assert_msg(e1[1] > 1e-300, "baumgarte's e_n after one step is %g", e1[1]);
  run_ok("run", "chain10-stability", "--scheme", "baumgarte", "--steps", "300", "--set", "trials=0", "--set",
         "fail_tol=1e-300", "--out", "c");
  wp(dir, "c");
  pathf(path, "%s/failures.csv", dir);
  f = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  ck_assert_msg(tv(&f, 0, F_FAILED) == 1 && tv(&f, 0, F_STEP) == 1 && tv(&f, 0, F_CAUSE) == 3,
                "fail_tol 1e-300: failed %g at step %g, cause %g; expected step 1", tv(&f, 0, F_FAILED),
                tv(&f, 0, F_STEP), tv(&f, 0, F_CAUSE));
  table_free(&f);
  free(e1);

  run_ok("run", "chain10-stability", "--scheme", "implicit", "--steps", "300", "--set", "trials=2", "--out", "d");
  wp(dir, "d");
  pathf(path, "%s/failures.csv", dir);
  f = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  ck_assert_msg(f.nrows >= 3 && !strcmp(f.label[2], "implicit"), "%s: rows 1-3 are not implicit's", path);
  for (size_t r = 0; r < 3; r++)
    ck_assert_msg(tv(&f, r, F_FAILED) == 0 && tv(&f, r, F_STEP) == 300 && tv(&f, r, F_EMAX) <= 4e-3,
                  "implicit trial %zu: failed %g at step %g, e_max %g (bound 4e-3)", r, tv(&f, r, F_FAILED),
                  tv(&f, r, F_STEP), tv(&f, r, F_EMAX));
  table_free(&f);

  /* A run's own divergence guard, tighter than fail_tol, stays: implicit
     with max_error = 1e-12 m fails at its first step whose e_n exceeds
     it (cause 3), as with fail_tol = 1e-12 m. */
  run_ok("run", "chain10-stability", "--scheme", "implicit", "--steps", "300", "--set", "trials=0", "--set",
         "implicit.max_error=1e-12", "--out", "e");
  run_ok("run", "chain10-stability", "--scheme", "implicit", "--steps", "300", "--set", "trials=0", "--set",
         "fail_tol=1e-12", "--out", "g");
  table fe, fg;
  wp(dir, "e");
  pathf(path, "%s/failures.csv", dir);
  fe = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  wp(dir, "g");
  pathf(path, "%s/failures.csv", dir);
  fg = read_table_nan(path, C10_FAIL_COLUMNS, 1);
  ck_assert_msg(tv(&fe, 0, F_FAILED) == 1 && tv(&fe, 0, F_CAUSE) == 3 && tv(&fe, 0, F_STEP) < 300 &&
                  tv(&fe, 0, F_STEP) == tv(&fg, 0, F_STEP) && tv(&fe, 0, F_EFAIL) == tv(&fg, 0, F_EFAIL) &&
                  tv(&fe, 0, F_EFAIL) > 1e-12,
                "max_error = 1e-12: failed %g at step %g, cause %g, e_fail %g; fail_tol = 1e-12: step %g, e_fail %g",
                tv(&fe, 0, F_FAILED), tv(&fe, 0, F_STEP), tv(&fe, 0, F_CAUSE), tv(&fe, 0, F_EFAIL), tv(&fg, 0, F_STEP),
                tv(&fg, 0, F_EFAIL));
  table_free(&fe);
  table_free(&fg);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------------------- */

int main(void)
{
  const exp_case cases[] = {{"chain10_starts", test_chain10_starts},
                             {"chain10_default_run", test_chain10_default_run},
                             {"chain10_failure_detection", test_chain10_failure_detection},
                             {"chain10_failure_spread", test_chain10_failure_spread}};
  return exp_run("experiments_chain10", cases, sizeof cases / sizeof cases[0]);
}
