/*
 * tests/experiments/test_stability.c: the experiments stability and
 * stiff-pendulum, end to end, both searches for the largest stable step
 * size on stability.c's grid of step sizes.
 *
 * - stability: every probe's verdict against the rules, the order of the
 *   search, and the two deciding probes repeated here through the public
 *   API;
 * - stiff-pendulum: the searches, h_max of the symplectic-Euler spring
 *   against the stability limit 2 / omega of its radial mode, and the
 *   PBD stretch;
 * - chain-scale-stability on short chains: the sizes (the doubling, then
 *   links_max), the claim implicit.no_step_limit recomputed from the map,
 *   and backward-euler stable on the whole grid; a probe ends at its first
 *   CDYN_NOCONV (newton's).
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "harness.h"

/* ---- the step-size searches ------------------------------------------------------------ */

/* stability.c's step-size grid: h_j = 1e-3 2^(j/4), j = -13 .. 36. */
#define GRID_JMIN (-13)
#define GRID_JMAX 36
static double grid_h(int j)
{
  return 1e-3 * pow(2.0, j / 4.0);
}

/* The grid index of h; fails unless h is a grid point (to rounding). */
static int grid_index(const char *path, double h)
{
  ck_assert_msg(h > 0, "%s: h = %g is not a step size", path, h);
  int j = (int)lround(4 * log2(h / 1e-3));
  ck_assert_msg(j >= GRID_JMIN && j <= GRID_JMAX && fabs(h - grid_h(j)) <= 1e-15 * h,
                "%s: h = %.17g is not a grid point 1e-3 2^(j/4), j in [%d, %d]", path, h, GRID_JMIN, GRID_JMAX);
  return j;
}

/* stability.c's rules for one problem: a run of T seconds is stable when
   every step succeeds without CDYN_NOCONV, e_n <= e_limit and
   E - E(0) <= dE_limit throughout. */
typedef struct {
  double T, e_limit, dE_limit;
} stab_rules;

/* The probe logs (stability-probes.csv, stiff-probes.csv). */
#define PROBE_COLUMNS "scheme,problem,h,stable,status,steps,e_max,energy_gain,noconv"
enum { P_H = 2, P_STABLE, P_STATUS, P_STEPS, P_EMAX, P_GAIN, P_NOCONV };

/*
 * One logged probe: its stable flag must be what the rules say of its own
 * columns.  A run stops at the first step that breaks a rule, so it is
 * stable exactly when it completed all ceil(T/h) steps with status 0, no
 * CDYN_NOCONV, e_max within the limit and the final energy gain within
 * its limit (a gain past the limit would have stopped it earlier); and a
 * run that stopped early must show why.
 */
static int check_probe(const char *path, const table *t, size_t r, const stab_rules *ru)
{
  double h = tv(t, r, P_H), steps = tv(t, r, P_STEPS), status = tv(t, r, P_STATUS);
  double emax = tv(t, r, P_EMAX), gain = tv(t, r, P_GAIN), noconv = tv(t, r, P_NOCONV);
  long N = (long)ceil(ru->T / h - 1e-9);
  ck_assert_msg(steps >= 0 && steps <= (double)N && steps == floor(steps), "%s: row %zu: %g steps of at most %ld",
                path, r + 1, steps, N);
  if (steps < (double)N)
    ck_assert_msg(status < 0 || emax > ru->e_limit || gain > ru->dE_limit,
                  "%s: row %zu stopped after %g of %ld steps without a failed step or a broken rule", path, r + 1,
                  steps, N);
  int ok = status == 0 && steps == (double)N && noconv == 0 && emax <= ru->e_limit && gain <= ru->dE_limit;
  ck_assert_msg(tv(t, r, P_STABLE) == ok, "%s: row %zu (h = %g): stable = %g, but its columns say %d", path, r + 1, h,
                tv(t, r, P_STABLE), ok);
  return ok;
}

/*
 * The search of stability.c, starting at row r of a probe log: it probes
 * 1e-3 first; from an unstable start it goes down the grid until a stable
 * h (or the grid's end), from a stable one up until the first unstable h
 * (or the grid's end).  Every probe must be the search's next grid point,
 * with the same label; *h_max and *h_fail receive what the search finds
 * (NaN where stability.c writes NaN).  Returns the row after the search.
 */
static size_t check_search(const char *path, const table *t, size_t r, const stab_rules *ru, double *h_max,
                           double *h_fail)
{
  ck_assert_msg(r < t->nrows, "%s: a search is missing", path);
  const char *label = t->label[r];
  int j = 0, dir = 0;
  for (;; r++) {
    ck_assert_msg(r < t->nrows, "%s: the search for %s ends without a result", path, label);
    ck_assert_msg(!strcmp(t->label[r], label), "%s: row %zu is %s inside the search for %s", path, r + 1,
                  t->label[r], label);
    int jr = grid_index(path, tv(t, r, P_H));
    ck_assert_msg(jr == j, "%s: row %zu probes grid point %d where the search's next is %d", path, r + 1, jr, j);
    int stable = check_probe(path, t, r, ru);
    if (!dir)
      dir = stable ? 1 : -1;
    if (dir < 0 && stable) {
      *h_max = grid_h(j);
      *h_fail = grid_h(j + 1);
      return r + 1;
    }
    if (dir < 0 && j == GRID_JMIN) {
      *h_max = NAN;
      *h_fail = grid_h(j);
      return r + 1;
    }
    if (dir > 0 && !stable) {
      *h_max = grid_h(j - 1);
      *h_fail = grid_h(j);
      return r + 1;
    }
    if (dir > 0 && j == GRID_JMAX) {
      *h_max = grid_h(j);
      *h_fail = NAN;
      return r + 1;
    }
    j += dir;
  }
}

/* ---- stability ------------------------------------------------------------------- */

/* stability.c's probe, through the public API: an arm of `links` 1 m
   links and 1 kg nodes pinned at the origin, released at rest from
   horizontal (problems.h's pendulum-h and chain10), run under the rules
   until it completes or breaks one.  The step that takes e_n beyond the
   limit is refused (the runner's divergence guard: CDYN_EDIVERGED), so
   the run's measures are those of the state before it; a step beyond the
   energy limit is kept and ends the run. */
typedef struct {
  int stable, status;
  long steps;
  unsigned long noconv;
  double e_max, gain;
} probe_result;

static probe_result probe_arm(const char *scheme, size_t links, double h, const stab_rules *ru)
{
  double joint[10] = {PI / 2}; /* every link horizontal */
  cdyn_system *sys;
  cdyn_stepper *st;
  ck_assert_uint_le(links, 10);
  ck_assert_int_eq(tu_chain(&sys, links, 1.0, 1.0, joint), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
  probe_result p = {0, 0, 0, 0, 0, 0};
  double T, V, e;
  ck_assert_int_eq(cdyn_system_energy(sys, &T, &V), CDYN_OK);
  ck_assert_int_eq(cdyn_system_constraint_error(sys, &p.e_max), CDYN_OK);
  const double E0 = T + V;
  const long N = (long)ceil(ru->T / h - 1e-9);
  int stopped = 0;
  for (long k = 1; k <= N && !stopped; k++) {
    int rc = cdyn_stepper_step(st, h);
    if (rc < 0) {
      p.status = rc;
      break;
    }
    ck_assert_int_eq(cdyn_system_energy(sys, &T, &V), CDYN_OK);
    ck_assert_int_eq(cdyn_system_constraint_error(sys, &e), CDYN_OK);
    if (!(e <= ru->e_limit)) {
      p.status = CDYN_EDIVERGED;
      break;
    }
    p.noconv += rc == CDYN_NOCONV;
    p.steps = k;
    p.gain = T + V - E0;
    p.e_max = fmax(p.e_max, e);
    stopped = !(p.gain <= ru->dE_limit);
  }
  p.stable = !p.status && !stopped && !p.noconv && p.steps == N;
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  return p;
}

START_TEST(test_stability_implicit)
{
  run_ok("run", "stability", "--scheme", "implicit", "--out", "a");
  const char *cmd = "cdyn run stability --scheme implicit --out a";
  char dir[PATH_MAX], path[PATH_MAX], ppath[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  check_meta(dir, "stability", cmd, 0, 0, "err_frac", "0.1");
  check_meta(dir, "stability-probes", cmd, 0, 0, "energy_frac", "0.1");
  pathf(path, "%s/stability.csv", dir);
  pathf(ppath, "%s/stability-probes.csv", dir);
  table s = read_table_nan(path, "scheme,index,pendulum_h_max,pendulum_h_fail,chain10_h_max,chain10_h_fail", 1);
  table p = read_table(ppath, PROBE_COLUMNS, 2);
  ck_assert_msg(s.nrows == 1 && !strcmp(s.label[0], "implicit") && tv(&s, 0, 1) == 0,
                "%s: expected the one row of implicit", path);

  static const char *const names[] = {"pendulum-h", "chain10"};
  static const size_t links[] = {1, 10};
  size_t r = 0;
  for (size_t pi = 0; pi < 2; pi++) {
    /* stability.c's rules with its default fractions: e_n <= 0.1 x the
       total length, and a gain <= 0.1 x the energy gravity can release
       from horizontal, m g L (1 + 2 + ... + n) for n links. */
    double n = (double)links[pi];
    stab_rules ru = {10.0, 0.1 * n, 0.1 * G * n * (n + 1) / 2};
    char label[64];
    snprintf(label, sizeof label, "implicit,%s", names[pi]);
    ck_assert_msg(r < p.nrows && !strcmp(p.label[r], label), "%s: the search for %s is missing", ppath, label);
    double h_max, h_fail;
    r = check_search(ppath, &p, r, &ru, &h_max, &h_fail);
    double w_max = tv(&s, 0, 2 + 2 * pi), w_fail = tv(&s, 0, 3 + 2 * pi);
    ck_assert_msg(same(w_max, h_max, 0) && same(w_fail, h_fail, 0),
                  "%s: %s: h_max %.17g, h_fail %.17g, but its probes find %.17g, %.17g", path, names[pi], w_max,
                  w_fail, h_max, h_fail);
    /* Implicit is stable at 1e-3 (a step of a few thousandths of the
       swing) and fails below the grid's top, 0.5 s (a quarter of the
       pendulum's period): both ends lie on the grid, h_max a grid point
       and h_fail the next one, which is what the probes are rerun at. */
    ck_assert_msg(isfinite(h_max) && isfinite(h_fail), "%s: %s: h_max %g, h_fail %g", path, names[pi], h_max, h_fail);
    grid_index(path, h_max);
    ck_assert_msg(fabs(h_fail / h_max - pow(2, 0.25)) <= 1e-14, "%s: %s: h_fail / h_max = %.17g, not 2^(1/4)", path,
                  names[pi], h_fail / h_max);

    /* The two probes that decide, run again here: the same operations
       give the same numbers, bit for bit. */
    for (int f = 0; f < 2; f++) {
      double h = f ? h_fail : h_max;
      probe_result q = probe_arm("implicit", links[pi], h, &ru);
      ck_assert_msg(q.stable == !f, "%s at h = %.17g is %s here", names[pi], h, q.stable ? "stable" : "unstable");
      size_t k = 0;
      while (k < p.nrows && !(tv(&p, k, P_H) == h && !strcmp(p.label[k], label)))
        k++;
      ck_assert_msg(k < p.nrows, "%s: no probe of %s at %.17g", ppath, label, h);
      ck_assert_msg(tv(&p, k, P_STEPS) == (double)q.steps && tv(&p, k, P_STATUS) == q.status &&
                      tv(&p, k, P_NOCONV) == (double)q.noconv &&
                      fabs(tv(&p, k, P_EMAX) - q.e_max) <= 1e-12 * fmax(1, q.e_max) &&
                      fabs(tv(&p, k, P_GAIN) - q.gain) <= 1e-12 * fmax(1, fabs(q.gain)),
                    "%s: row %zu (%s, h = %g): steps %g, status %g, e_max %.17g, gain %.17g; "
                    "here %ld, %d, %.17g, %.17g",
                    ppath, k + 1, label, h, tv(&p, k, P_STEPS), tv(&p, k, P_STATUS), tv(&p, k, P_EMAX),
                    tv(&p, k, P_GAIN), q.steps, q.status, q.e_max, q.gain);
    }
  }
  ck_assert_msg(r == p.nrows, "%s: %zu rows after the two searches", ppath, p.nrows - r);
  /* Claims whose runs did not all run are listed as not run. */
  check_claims_part(dir, "stability");
  table_free(&s);
  table_free(&p);
}
END_TEST

/* ---- stiff-pendulum ------------------------------------------------------------------ */

START_TEST(test_stiff_pendulum)
{
  run_ok("run", "stiff-pendulum", "--scheme", "penalty,implicit", "--out", "a");
  const char *cmd = "cdyn run stiff-pendulum --scheme penalty,implicit --out a";
  char dir[PATH_MAX], path[PATH_MAX], ppath[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  static const char *const files[] = {"stiff-probes", "stiff-spring", "stiff-constraint", "pbd-stretch"};
  for (size_t k = 0; k < 4; k++)
    check_meta(dir, files[k], cmd, 0, 0, "damping", "0");
  /* Claims whose runs did not all run are listed as not run. */
  check_claims_part(dir, "stiff-pendulum");

  pathf(path, "%s/stiff-spring.csv", dir);
  pathf(ppath, "%s/stiff-probes.csv", dir);
  table sp = read_table_nan(path, "scheme,k,h_max,h_fail,h_limit", 1);
  table pr = read_table(ppath, PROBE_COLUMNS, 2);
  ck_assert_msg(sp.nrows == 6, "%s: %zu rows, expected k = 1e3 .. 1e8", path, sp.nrows);
  /* The pendulum: 1 kg on |x| = 1 m from horizontal, 10 s, stability.c's
     rules: e_n <= 0.1 L, gain <= 0.1 m g L. */
  const double m = 1, L = 1;
  const stab_rules ru = {10.0, 0.1 * L, 0.1 * m * G * L};
  /* Within those rules the bob falls at most 1.1 L and gains at most
     0.1 m g L, so v^2 <= 2.4 g L, at a radius >= 0.9 L: the swing's
     angular rate has w^2 <= 2.4 g / (0.81 L) (29 s^-2). */
  const double w2 = 2.4 * G / (0.81 * L);
  size_t r = 0;
  for (size_t j = 0; j < 6; j++) {
    double k = pow(10, 3 + (double)j), h_max, h_fail;
    ck_assert_msg(!strcmp(sp.label[j], "penalty") && tv(&sp, j, 1) == k, "%s: row %zu is %s at k = %g, expected "
                  "penalty at %g", path, j + 1, sp.label[j], tv(&sp, j, 1), k);
    double hm = tv(&sp, j, 2), hf = tv(&sp, j, 3), hl = tv(&sp, j, 4);
    ck_assert_msg(fabs(hl - 2 * sqrt(m / k)) <= 1e-15 * hl, "%s: k = %g: h_limit %.17g, 2 sqrt(m/k) = %.17g", path, k,
                  hl, 2 * sqrt(m / k));
    ck_assert_msg(r < pr.nrows && !strcmp(pr.label[r], "penalty,sphere-pendulum"), "%s: the search at k = %g is "
                  "missing", ppath, k);
    r = check_search(ppath, &pr, r, &ru, &h_max, &h_fail);
    ck_assert_msg(same(hm, h_max, 0) && same(hf, h_fail, 0),
                  "%s: k = %g: h_max %.17g, h_fail %.17g, but its probes find %.17g, %.17g", path, k, hm, hf, h_max,
                  h_fail);
    ck_assert_msg(isfinite(hm) && isfinite(hf) && fabs(hf / hm - pow(2, 0.25)) <= 1e-14,
                  "%s: k = %g: h_max %g, h_fail %g", path, k, hm, hf);
    /*
     * The spring k (|x| - L) has the Hessian k n n^T + k (1 - L/r)(I - n n^T):
     * its radial stiffness is k exactly.  In the frame that turns with
     * the pendulum the swing changes the radial mode: at a fixed rate w
     * the centrifugal force softens it to k/m - w^2, at a fixed angular
     * momentum it stiffens to k/m + 3 w^2 (the curvature of the effective
     * potential), so omega_r^2 lies between the two, and not always
     * above k/m as for a spring at rest.  Symplectic Euler on x'' = -omega^2 x
     * is stable for h omega < 2 and grows without bound from h omega = 2
     * (a double eigenvalue -1, then one of modulus > 1).  Therefore
     *   h_max <= 2 / sqrt(k/m - w^2) = h_limit / sqrt(1 - m w^2 / k),
     * which is h_limit to within 0.15 % for k >= 1e4 and 1.5 % above it
     * at k = 1e3; it is not h_max <= h_limit exactly.  Below
     * 2 / sqrt(k/m + 3 w^2) the spring mode is stable; its stretch builds
     * with the tension over the swing (~0.5 s), slowly against the
     * spring's period (<= 0.2 s), so it stays near its static value
     * 3 m g / k <= 0.03 L, inside the 0.1 L rule.  The grid holds a
     * point within a factor 2^(-1/4) = 0.84 below any h, so
     *   h_max >= 2^(-1/4) 2 / sqrt(k/m + 3 w^2)   (~0.84 h_limit).
     */
    double upper = hl / sqrt(1 - m * w2 / k), lower = pow(2, -0.25) * 2 / sqrt(k / m + 3 * w2);
    ck_assert_msg(hm <= upper, "penalty at k = %g: h_max %.6g above 2/omega_r <= %.6g (h_limit %.6g)", k, hm, upper,
                  hl);
    ck_assert_msg(hm >= lower, "penalty at k = %g: h_max %.6g below 0.84 x 2/omega_r >= %.6g (h_limit %.6g)", k, hm,
                  lower, hl);
  }
  /* Then the one search of the constraint scheme, on the same pendulum. */
  pathf(path, "%s/stiff-constraint.csv", dir);
  table sc = read_table_nan(path, "scheme,h_max,h_fail", 1);
  ck_assert_msg(sc.nrows == 1 && !strcmp(sc.label[0], "implicit"), "%s: expected the one row of implicit", path);
  ck_assert_msg(r < pr.nrows && !strcmp(pr.label[r], "implicit,sphere-pendulum"), "%s: implicit's search is missing",
                ppath);
  double h_max, h_fail;
  r = check_search(ppath, &pr, r, &ru, &h_max, &h_fail);
  ck_assert_msg(same(tv(&sc, 0, 1), h_max, 0) && same(tv(&sc, 0, 2), h_fail, 0),
                "%s: h_max %.17g, h_fail %.17g, but the probes find %.17g, %.17g", path, tv(&sc, 0, 1), tv(&sc, 0, 2),
                h_max, h_fail);
  ck_assert_msg(r == pr.nrows, "%s: %zu rows after the searches", ppath, pr.nrows - r);
  table_free(&sp);
  table_free(&sc);
  table_free(&pr);

  /* PBD on the hanging chain: K = 1 .. 100 sweeps, rising; the stretch
     left by fewer sweeps of Gauss-Seidel is larger, and every run ends
     (status 0).  XPBD at its default compliance 0 computes exactly what
     PBD computes (pbd.c), so its rows repeat PBD's. */
  pathf(path, "%s/pbd-stretch.csv", dir);
  table ps = read_table(path, "scheme,iterations,stretch,status", 1);
  size_t npbd = 0;
  while (npbd < ps.nrows && !strcmp(ps.label[npbd], "pbd"))
    npbd++;
  ck_assert_msg(npbd >= 2 && tv(&ps, 0, 1) == 1 && tv(&ps, npbd - 1, 1) == 100,
                "%s: the pbd rows must run from 1 to 100 iterations", path);
  for (size_t k = 0; k < npbd; k++) {
    ck_assert_msg(tv(&ps, k, 2) > 0 && tv(&ps, k, 3) == 0, "%s: row %zu: stretch %g, status %g", path, k + 1,
                  tv(&ps, k, 2), tv(&ps, k, 3));
    if (k)
      ck_assert_msg(tv(&ps, k, 1) > tv(&ps, k - 1, 1) && tv(&ps, k, 2) < tv(&ps, k - 1, 2),
                    "%s: row %zu: %g iterations stretch %.6g, %g iterations %.6g", path, k + 1, tv(&ps, k, 1),
                    tv(&ps, k, 2), tv(&ps, k - 1, 1), tv(&ps, k - 1, 2));
  }
  ck_assert_msg(ps.nrows == 2 * npbd, "%s: %zu rows, expected pbd's %zu and as many of xpbd", path, ps.nrows, npbd);
  for (size_t k = 0; k < npbd; k++)
    ck_assert_msg(!strcmp(ps.label[npbd + k], "xpbd") && tv(&ps, npbd + k, 1) == tv(&ps, k, 1) &&
                    tv(&ps, npbd + k, 2) == tv(&ps, k, 2),
                  "%s: row %zu: xpbd at compliance 0 differs from pbd", path, npbd + k + 1);
  table_free(&ps);
}
END_TEST

/* ---- chain-scale-stability ------------------------------------------------------------ */

START_TEST(test_chain_scale)
{
  run_ok("run", "chain-scale-stability", "--scheme", "implicit,baumgarte,backward-euler", "--set", "links_min=5",
         "--set", "links_max=12", "--set", "T=2", "--out", "c");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "c");
  check_no_temporaries(dir);
  pathf(path, "%s/chain-scale-map.csv", dir);
  table t = read_table_nan(path, "scheme,links,h_max,h_fail,omega,h_max_omega", 1);
  /* Sizes 5, 10, then links_max = 12; runs implicit, baumgarte,
     backward-euler, the companion implicit-gs and the reference. */
  ck_assert_uint_eq(t.nrows, 5 * 3);
  double hs[2][3], hu[2][3];
  for (size_t r = 0; r < t.nrows; r++) {
    static const double sizes[3] = {5, 10, 12};
    ck_assert_double_eq(tv(&t, r, 1), sizes[r % 3]);
    int k = !strcmp(t.label[r], "implicit") ? 0 : !strcmp(t.label[r], "baumgarte") ? 1 : -1;
    if (k >= 0) {
      hs[k][r % 3] = tv(&t, r, 2);
      hu[k][r % 3] = tv(&t, r, 3);
    }
    if (!strcmp(t.label[r], "backward-euler") || !strcmp(t.label[r], "full-newton-ref"))
      ck_assert_msg(isnan(tv(&t, r, 3)) && tv(&t, r, 2) > 0.5, "%s: %s unstable at N = %g, h = %g", path,
                    t.label[r], tv(&t, r, 1), tv(&t, r, 3));
  }
  /* The claim's sub-measures, from the map. */
  double stable = 0, ratio = INFINITY;
  for (int i = 0; i < 3; i++) {
    stable += isnan(hu[0][i]) && !isnan(hs[0][i]);
    double r = hs[0][i] / hs[1][i];
    if (!(r >= ratio))
      ratio = r;
  }
  exp_value v[2] = {{"stable_fraction", stable / 3}, {"min_ratio", ratio}};
  check_claim(dir, "implicit.no_step_limit", v, 2, 1e-5);
  check_claims_part(dir, "chain-scale-stability");
  table_free(&t);
}
END_TEST

/* A probe ends at its first step that returns CDYN_NOCONV: newton's
   unstable probes on a short chain each stop there, so each counts one
   such step, unstable, its steps ending with that one (fewer than the
   run's); its stable probes count none and complete the run. */
START_TEST(test_chain_scale_noconv_ends)
{
  run_ok("run", "chain-scale-stability", "--scheme", "newton", "--set", "links_min=5", "--set", "links_max=5",
         "--set", "T=2", "--out", "n");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "n");
  pathf(path, "%s/chain-scale-probes.csv", dir);
  table t = read_table(path, "scheme,links,h,stable,status,steps,stretch_max,energy_gain,noconv", 1);
  size_t ended = 0, stable = 0;
  for (size_t r = 0; r < t.nrows; r++) {
    if (strcmp(t.label[r], "newton"))
      continue;
    double h = tv(&t, r, 2), steps = tv(&t, r, 5), noconv = tv(&t, r, 8), full = ceil(2 / h - 1e-9);
    if (noconv > 0) {
      ck_assert_msg(noconv == 1 && tv(&t, r, 3) == 0 && steps < full, "%s: newton at h = %g: %g steps, %g NOCONV",
                    path, h, steps, noconv);
      ended++;
    } else if (tv(&t, r, 3) == 1) {
      ck_assert_double_eq(steps, full);
      stable++;
    }
  }
  ck_assert_msg(ended >= 1 && stable >= 1, "%s: %zu probes ended at NOCONV, %zu stable", path, ended, stable);
  table_free(&t);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------------------- */

int main(void)
{
  const exp_case cases[] = {{"stability_implicit", test_stability_implicit},
                             {"stiff_pendulum", test_stiff_pendulum},
                             {"chain_scale", test_chain_scale},
                             {"chain_scale_noconv_ends", test_chain_scale_noconv_ends}};
  return exp_run("experiments_stability", cases, sizeof cases / sizeof cases[0]);
}
