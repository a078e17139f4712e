/*
 * tests/experiments/test_cloth_experiments.c: the cloth experiments, end
 * to end, each on small grids over a fraction of a second.
 *
 * - cloth-elongation: the summary against the series, the triangles'
 *   strains in the snapshots against the series' largest spring strain,
 *   the ball out of reach, the claim by its rule, the same bytes on rerun
 *   but for the timing file;
 * - cloth-vs-implicit-ode: one fastest solver per method and grid, the
 *   fastest of the rows timed over the same steps, Baraff-Witkin's
 *   stiffness, the steps and h by the experiment's rule, the claims by
 *   their rules, cloth.frame_rate's run the same as cloth-elongation's;
 * - cloth-contact: the summary against the series, the coarse run, the
 *   linear algebra per run (lcp-sparse factors, the dense contact runs do
 *   not through the solver), the snapshots' triangles and balls, the
 *   claim by its rule, the same bytes on rerun but for the timing files;
 * - collision-cost: one row per mesh with its triangle count, the times
 *   positive;
 * - cloth-robustness: each variant as run, the verdicts and where a run
 *   stopped recomputed from the series by the experiment's rule, the
 *   strains and counts per step the series', the metadata, the refusals,
 *   the same bytes on rerun but for the timing file.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "harness.h"

/* ---- cloth (cloth-elongation, cloth-vs-implicit-ode) ---------------------------------------- */

enum { CLE_T = 1, CLE_STEPS, CLE_MAX, CLE_P99, CLE_ACTIVE, CLE_ACT, CLE_REL, CLE_FLIPS, CLE_CONTACTS, CLE_DEPTH, CLE_E, CLE_STATUS };
enum { CLS_STEPS = 1, CLS_COMPLETED, CLS_MAX, CLS_P99, CLS_ACTIVE_MAX, CLS_FLIPS, CLS_DEPTH, CLS_NOCONV, CLS_STATUS };
enum { CLN_TRI = 2, CLN_X1, CLN_T = 12, CLN_STRAIN, CLN_BX, CLN_BR = 17 };

enum { CLA_H = 2, CLA_STEPS, CLA_DONE, CLA_STABLE, CLA_TFAIL, CLA_MAX, CLA_HOLDS, CLA_HOLDS_TOL, CLA_LOSS, CLA_NEWTON,
       CLA_FACT, CLA_ANALYSES, CLA_SETCH, CLA_ACTIVE_MAX, CLA_FLIPS, CLA_NOCONV, CLA_STATUS };
enum { CLAS_H = 1, CLAS_T, CLAS_STEPS, CLAS_MAX, CLAS_P99, CLAS_ACTIVE, CLAS_FLIPS, CLAS_CONTACTS, CLAS_DEPTH, CLAS_E,
       CLAS_IT, CLAS_STATUS };

/*
 * cloth-elongation's runs at the animation steps (1/60 and 1/120 s over
 * 0.4 s): the experiment's runs at its own step first (their largest eps
 * the summary's), then every run, backward-euler, projected-newton and
 * admm (the last two with the limiter and the ball in their inequality
 * modes: no ball contact is ever switched on) at each step; each
 * row's largest eps, steps taken and first broken rule as its series
 * says (a strain beyond the bound of 1, a last row with a status for a
 * step that failed or was not taken); stable exactly when no rule was
 * broken; holds_eps and holds_eps_tol by their rule.
 */
static void check_cloth_animation(const char *dir, const table *sum)
{
  char path[PATH_MAX];
  pathf(path, "%s/cloth-animation.csv", dir);
  table a = read_table_nan(path,
                           "scheme,fail,h,steps,steps_done,stable,t_fail,eps_max_measured,holds_eps,holds_eps_tol,"
                           "energy_lost_per_s,newton_iterations_per_step,factorizations_per_step,analyses,"
                           "set_changes,active_max,flips,noconv,status",
                           2);
  pathf(path, "%s/cloth-animation-series.csv", dir);
  table se = read_table_nan(path, "scheme,h,t,steps,eps_max,eps_p99,active,flips,contacts,depth,E,iterations,status", 1);
  const double hs[2] = {1.0 / 60, 1.0 / 120};
  ck_assert_uint_eq(a.nrows, sum->nrows + 2 * (sum->nrows + 3));
  int be = 0, pn = 0, ad = 0;
  for (size_t r = 0; r < a.nrows; r++) {
    char name[128];
    snprintf(name, sizeof name, "%s", a.label[r]);
    char *fail = strchr(name, ',');
    ck_assert(fail);
    *fail++ = '\0';
    double h = tv(&a, r, CLA_H);
    int stable = tv(&a, r, CLA_STABLE) == 1;
    ck_assert_msg(stable == !strcmp(fail, "none"), "%s h %g: stable %d, fail %s", name, h, stable, fail);
    ck_assert(stable ? isnan(tv(&a, r, CLA_TFAIL)) : tv(&a, r, CLA_TFAIL) > 0);
    double emax = tv(&a, r, CLA_MAX);
    ck_assert(tv(&a, r, CLA_HOLDS) == (stable && emax <= 0.1));
    ck_assert(tv(&a, r, CLA_HOLDS_TOL) == (stable && emax <= 0.11));
    if (r < sum->nrows) {
      /* The experiment's own runs, in its order. */
      ck_assert_str_eq(name, sum->label[r]);
      ck_assert(h == 1e-3 && tv(&a, r, CLA_STEPS) == 400);
      ck_assert(emax == tv(sum, r, CLS_MAX) && tv(&a, r, CLA_DONE) == tv(sum, r, CLS_STEPS));
      continue;
    }
    int hi = (int)((r - sum->nrows) / (sum->nrows + 3));
    ck_assert(h == hs[hi]);
    ck_assert_int_eq((long)tv(&a, r, CLA_STEPS), (long)ceil(0.4 / h - 1e-9));
    be += !strcmp(name, "backward-euler");
    pn += !strcmp(name, "projected-newton");
    ad += !strcmp(name, "admm");
    /* The series of this run at this step. */
    double smax = 0;
    long last = -1, bound_step = -1, status = 0;
    for (size_t k = 0; k < se.nrows; k++) {
      if (strcmp(se.label[k], name) || tv(&se, k, CLAS_H) != h)
        continue;
      if (!strcmp(name, "projected-newton") || !strcmp(name, "admm"))
        ck_assert(tv(&se, k, CLAS_CONTACTS) == 0);
      if (tv(&se, k, CLAS_STATUS) != 0) {
        status = (long)tv(&se, k, CLAS_STATUS);
        continue;
      }
      double e = tv(&se, k, CLAS_MAX);
      smax = fmax(smax, e);
      if (e > 1 && bound_step < 0)
        bound_step = (long)tv(&se, k, CLAS_STEPS);
      last = (long)tv(&se, k, CLAS_STEPS);
    }
    ck_assert_msg(smax == emax, "%s h %g: series %g, table %g", name, h, smax, emax);
    ck_assert_int_eq(last, (long)tv(&a, r, CLA_DONE));
    ck_assert_int_eq(status, (long)tv(&a, r, CLA_STATUS));
    if (!strcmp(fail, "strain-bound"))
      ck_assert(fabs(tv(&a, r, CLA_TFAIL) - (double)bound_step * h) <= 1e-12);
    if (!strcmp(fail, "step-not-taken"))
      ck_assert(status == CDYN_NOCONV && fabs(tv(&a, r, CLA_TFAIL) - (double)(last + 1) * h) <= 1e-12);
    if (stable)
      ck_assert(bound_step < 0 && last == (long)tv(&a, r, CLA_STEPS) && status == 0);
  }
  ck_assert_int_eq(be, 2);
  ck_assert_int_eq(pn, 2);
  ck_assert_int_eq(ad, 2);
  table_free(&a);
  table_free(&se);
}

/*
 * A short cloth-elongation (8 x 8, 0.4 s, every step written): the
 * summary is the series' extremes; at each snapshot the largest strain of
 * the triangles' structural edges (a second computation, over triangles
 * rather than springs) is the series' eps_max of that step, every
 * structural spring being an edge of a triangle, and each triangle's
 * strain is that of one of its edges as given by its corners; the ball
 * stays out of reach (it arrives at 1.4 s); the claim is judged by its
 * rule on the summary's values.  The same command twice
 * gives the same bytes but for the timing file.
 */
START_TEST(test_cloth_elongation)
{
  for (int pass = 0; pass < 2; pass++)
    run_ok("run", "cloth-elongation", "--steps", "400", "--set", "grid=8", "--set", "out_every=1", "--set",
           "snapshots=0.1,0.4", "--out", pass ? "b" : "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  pathf(path, "%s/cloth-elongation.csv", dir);
  table t = read_table_nan(path, "scheme,t,steps,eps_max,eps_p99,active,activated,released,flips,contacts,depth,E,status", 1);
  pathf(path, "%s/cloth-elongation-summary.csv", dir);
  table sum = read_table_nan(path, "scheme,steps,completed,eps_max,eps_p99,active_max,flips,depth_max,noconv,status", 1);
  pathf(path, "%s/cloth-snapshots.csv", dir);
  table sn = read_table_nan(path, "scheme,snap,tri,x1,y1,z1,x2,y2,z2,x3,y3,z3,t,strain,bx,by,bz,br", 2);
  ck_assert_uint_eq(sum.nrows, 6);
  double springs_max = NAN, implicit_max = NAN, implicit_failed = NAN;
  const double spacing = 1.0 / 7;
  for (size_t r = 0; r < sum.nrows; r++) {
    const char *name = sum.label[r];
    double emax = 0, pmax = 0;
    long last = -1;
    for (size_t k = 0; k < t.nrows; k++)
      if (!strcmp(t.label[k], name) && tv(&t, k, CLE_STATUS) == 0) {
        emax = fmax(emax, tv(&t, k, CLE_MAX));
        pmax = fmax(pmax, tv(&t, k, CLE_P99));
        ck_assert(tv(&t, k, CLE_P99) <= tv(&t, k, CLE_MAX));
        ck_assert_msg(tv(&t, k, CLE_DEPTH) == 0, "%s: a node in the ball at step %g", name, tv(&t, k, CLE_STEPS));
        last = (long)tv(&t, k, CLE_STEPS);
      }
    ck_assert_msg(emax == tv(&sum, r, CLS_MAX) && pmax == tv(&sum, r, CLS_P99), "%s: summary %g / %g, series %g / %g",
                  name, tv(&sum, r, CLS_MAX), tv(&sum, r, CLS_P99), emax, pmax);
    ck_assert_int_eq(last, (long)tv(&sum, r, CLS_STEPS));
    if (tv(&sum, r, CLS_COMPLETED) == 1)
      ck_assert_int_eq(last, 400);
    if (!strcmp(name, "springs"))
      springs_max = emax;
    if (!strcmp(name, "implicit")) {
      implicit_max = tv(&sum, r, CLS_COMPLETED) == 1 ? emax : INFINITY;
      implicit_failed = 1 - tv(&sum, r, CLS_COMPLETED);
    }
    /* The snapshots against the series. */
    for (int snap = 0; snap < 2; snap++) {
      double worst = -INFINITY, tsnap = NAN;
      size_t ntri = 0;
      for (size_t k = 0; k < sn.nrows; k++) {
        char lab[128];
        snprintf(lab, sizeof lab, "%s,%d", name, snap);
        if (strcmp(sn.label[k], lab))
          continue;
        ntri++;
        tsnap = tv(&sn, k, CLN_T);
        /* The column is the strain of one of the corners' edges as a
           structural edge (rest length one spacing). */
        int match = 0;
        for (int a = 0; a < 3; a++) {
          const double *p = &sn.v[k * sn.ncol + CLN_X1 + 3 * a], *q = &sn.v[k * sn.ncol + CLN_X1 + 3 * ((a + 1) % 3)];
          double d = sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
          match |= fabs(d / spacing - 1 - tv(&sn, k, CLN_STRAIN)) <= 1e-12;
        }
        ck_assert_msg(match, "%s, snapshot %d, triangle %g: strain %.15g is no edge's", name, snap, tv(&sn, k, CLN_TRI),
                      tv(&sn, k, CLN_STRAIN));
        worst = fmax(worst, tv(&sn, k, CLN_STRAIN));
      }
      if (!ntri)
        continue; /* the run stopped before it */
      ck_assert_uint_eq(ntri, 2 * 7 * 7);
      long step = lround(tsnap / 1e-3);
      for (size_t k = 0; k < t.nrows; k++)
        if (!strcmp(t.label[k], name) && (long)tv(&t, k, CLE_STEPS) == step)
          ck_assert_msg(fabs(worst - tv(&t, k, CLE_MAX)) <= 1e-12, "%s, snapshot %d: strain %.15g, series %.15g", name,
                        snap, worst, tv(&t, k, CLE_MAX));
    }
  }
  check_claim(dir, "cloth.elongation_bounded",
              (exp_value[]){{"constrained_max", implicit_max}, {"failed", implicit_failed}, {"springs_max", springs_max}},
              3, 1e-5);
  ck_assert_uint_eq(check_claims_part(dir, "cloth-elongation"), 1);
  check_cloth_animation(dir, &sum);
  table_free(&t);
  table_free(&sum);
  table_free(&sn);
  /* Determinism, the timing files aside. */
  static const char *const timing[] = {"cloth-elongation-time.csv", "cloth-animation-time.csv"};
  for (int k = 0; k < 2; k++) {
    char a2[PATH_MAX], b2[PATH_MAX], rel[64];
    pathf(a2, "%s/%s", dir, timing[k]);
    snprintf(rel, sizeof rel, "b/%s", timing[k]);
    wp(b2, rel);
    ck_assert(exists(a2) && exists(b2));
    unlink(a2);
    unlink(b2);
  }
  check_same_output(6);
}
END_TEST

/* ---- cloth-contact, collision-cost ----------------------------------------------------------- */

enum { CT_T = 1, CT_STEPS, CT_CROSS, CT_EXACT, CT_MIND, CT_GAP, CT_VIOL, CT_CONTACTS, CT_VF, CT_EE, CT_BALL, CT_CREATED,
       CT_RELEASED, CT_DELAY, CT_REDOS, CT_STATUS, CT_NN, CT_NEAR, CT_FILTERED, CT_HEIGHT };
enum { CCS_H = 1, CCS_STEPS, CCS_COMPLETED, CCS_CROSS, CCS_EXACT, CCS_DEG, CCS_VIOL, CCS_MIND, CCS_GAP, CCS_CMAX, CCS_BMAX,
       CCS_CREATED, CCS_RELEASES, CCS_DELAY, CCS_DMEAN, CCS_REDOS, CCS_UNRES, CCS_PAR, CCS_END, CCS_RED, CCS_STATUS,
       CCS_FS_STEPS, CCS_FS_PASSES, CCS_FS_ZONES, CCS_FS_NODES, CCS_FS_FROZEN, CCS_FS_UNRES, CCS_FS_IMPULSE,
       CCS_FS_MOMENTUM, CCS_FS_ENERGY, CCS_HELD, CCS_NEAR, CCS_FILTERED, CCS_PIECES,
       CCS_FS_REUSED, CCS_NOCONV, CCS_MERGED };
/* The summary's header, of cloth-contact and cloth-self-contact alike. */
/* cloth-self-contact-cost.csv (and cloth-contact-cost.csv). */
#define CC_COST_COLUMNS "scheme,steps,detect,solve,replay,solves,failsafe,free,free_at_states,ratio,free_rows"
#define CCS_COLUMNS                                                                                                    \
  "scheme,h,steps,completed,crossings,exact,degenerate,violation,min_dist,ball_gap,contacts_max,ball_max,created,"     \
  "releases,delay_max,delay_mean,redos,unresolved,parallel,endpoint,redundant,status,failsafe_steps,failsafe_passes,"  \
  "failsafe_zones,failsafe_nodes,failsafe_frozen,failsafe_unresolved,failsafe_impulse,failsafe_momentum,"            \
  "failsafe_energy,held,near,filtered,pieces,failsafe_reused,noconv,merged"

/*
 * A short cloth-contact (8 x 8, two balls, 0.12 s, every step written):
 * the summary is the series' extremes and sums (crossings, violation,
 * distances, contacts, the replay's pair counts, whose filtered and exact
 * shares add up to near in every row; a replay piece per step, more only
 * for the runs of the scheme contact, which cuts its steps); the violation is the distances' own; the
 * coarse run takes a quarter of the steps at 4 h; the snapshots hold
 * every triangle with a flag 0, 1 or 2 and both balls; the claim is
 * judged by its rule on the stacked run's summary; the runs with the
 * fail-safe have no crossing in the exact replay, and a pass of it at
 * every step; the others none.  The same command twice gives the same
 * bytes but for the timing files.  The scene is the earlier one (balls
 * across the posts' line, striking one after another at 3 m/s), where the
 * cloth folds onto itself within the 0.12 s.
 */
START_TEST(test_cloth_contact)
{
  for (int pass = 0; pass < 2; pass++)
    run_ok("run", "cloth-contact", "--steps", "120", "--set", "grid=8", "--set", "balls=2", "--set", "out_every=1",
           "--set", "snapshots=0.05,0.1", "--set", "ball_line=z", "--set", "ball_speed=3", "--set", "ball_height=0.2",
           "--set", "ball_spacing=0.2", "--out", pass ? "b" : "a");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  pathf(path, "%s/cloth-contact.csv", dir);
  table t = read_table_nan(path,
                           "scheme,t,steps,crossings,exact,min_dist,ball_gap,violation,contacts,vf,ee,ball_contacts,"
                           "created,released,delay_max,redos,status,nn,near,filtered,height", 1);
  pathf(path, "%s/cloth-contact-summary.csv", dir);
  table sum = read_table_nan(path, CCS_COLUMNS, 1);
  ck_assert_uint_eq(sum.nrows, 9);
  const double delta = 0.005;
  exp_value v[4] = {{"crossings", NAN}, {"violation", NAN}, {"release_delay", NAN}, {"failed", NAN}};
  for (size_t r = 0; r < sum.nrows; r++) {
    const char *name = sum.label[r];
    double cross = 0, viol = 0, mind = INFINITY, gap = INFINITY, cmax = 0, exact = 0, near = 0, filtered = 0;
    long last = -1;
    for (size_t k = 0; k < t.nrows; k++)
      if (!strcmp(t.label[k], name) && tv(&t, k, CT_STATUS) == 0) {
        cross += tv(&t, k, CT_CROSS);
        exact += tv(&t, k, CT_EXACT), near += tv(&t, k, CT_NEAR), filtered += tv(&t, k, CT_FILTERED);
        /* The replay's pairs past its distance bound: decided by its filter or by the exact test. */
        ck_assert(tv(&t, k, CT_FILTERED) + tv(&t, k, CT_EXACT) == tv(&t, k, CT_NEAR));
        viol = fmax(viol, tv(&t, k, CT_VIOL));
        if (!isnan(tv(&t, k, CT_MIND)))
          mind = fmin(mind, tv(&t, k, CT_MIND));
        gap = fmin(gap, tv(&t, k, CT_GAP));
        cmax = fmax(cmax, tv(&t, k, CT_CONTACTS));
        ck_assert(tv(&t, k, CT_VF) + tv(&t, k, CT_EE) + tv(&t, k, CT_NN) == tv(&t, k, CT_CONTACTS));
        /* The violation is the distances' own (the smaller of the two gaps against delta). */
        double md = isnan(tv(&t, k, CT_MIND)) ? INFINITY : tv(&t, k, CT_MIND);
        double expect = fmax(0, fmax(delta - md, delta - tv(&t, k, CT_GAP))) / delta;
        ck_assert_msg(fabs(tv(&t, k, CT_VIOL) - expect) <= 1e-12, "%s step %g: violation %g, distances give %g",
                      name, tv(&t, k, CT_STEPS), tv(&t, k, CT_VIOL), expect);
        last = (long)tv(&t, k, CT_STEPS);
        /* The cloth starts flat at y = 0 (its mean height 0) and moves. */
        ck_assert(isfinite(tv(&t, k, CT_HEIGHT)));
        if (tv(&t, k, CT_STEPS) == 0)
          ck_assert(tv(&t, k, CT_HEIGHT) == 0);
      }
    ck_assert_msg(cross == tv(&sum, r, CCS_CROSS), "%s: %g crossings in the series, %g in the summary", name, cross,
                  tv(&sum, r, CCS_CROSS));
    ck_assert(exact == tv(&sum, r, CCS_EXACT) && near == tv(&sum, r, CCS_NEAR) &&
              filtered == tv(&sum, r, CCS_FILTERED));
    ck_assert(viol == tv(&sum, r, CCS_VIOL));
    ck_assert(mind == (isnan(tv(&sum, r, CCS_MIND)) ? INFINITY : tv(&sum, r, CCS_MIND)) && gap == tv(&sum, r, CCS_GAP));
    ck_assert(cmax == tv(&sum, r, CCS_CMAX));
    ck_assert_int_eq(last, (long)tv(&sum, r, CCS_STEPS));
    /* The replay's pieces: one per step, and more where the scheme cut
       its steps (contact, at the balls' events: the replay followed its
       sub-steps); 001's scheme takes them whole. */
    int cuts = !strcmp(name, "lcp") || !strcmp(name, "iterative") || !strcmp(name, "lcp-sparse");
    ck_assert(cuts ? tv(&sum, r, CCS_PIECES) > last : tv(&sum, r, CCS_PIECES) == last);
    int coarse = !strcmp(name, "discrete-4h");
    ck_assert(tv(&sum, r, CCS_H) == (coarse ? 4e-3 : 1e-3));
    if (tv(&sum, r, CCS_COMPLETED) == 1)
      ck_assert_int_eq(last, coarse ? 30 : 120);
    ck_assert(tv(&sum, r, CCS_HELD) >= 0 && tv(&sum, r, CCS_HELD) <= 1);
    if (strstr(name, "failsafe")) {
      ck_assert_msg(tv(&sum, r, CCS_CROSS) == 0, "%s: %g crossings with the fail-safe", name, tv(&sum, r, CCS_CROSS));
      ck_assert(tv(&sum, r, CCS_FS_PASSES) + tv(&sum, r, CCS_FS_REUSED) >= last);
      ck_assert(tv(&sum, r, CCS_FS_UNRES) == 0);
    } else {
      ck_assert(tv(&sum, r, CCS_FS_PASSES) == 0 && tv(&sum, r, CCS_FS_STEPS) == 0 && tv(&sum, r, CCS_FS_REUSED) == 0);
    }
    /* Only the merge rule merges; it stacks, so it refuses nothing as redundant. */
    if (!strcmp(name, "merged"))
      ck_assert(tv(&sum, r, CCS_RED) == 0);
    else
      ck_assert(tv(&sum, r, CCS_MERGED) == 0);
    if (!strcmp(name, "stacked")) {
      ck_assert(tv(&sum, r, CCS_RED) == 0); /* reading (b) refuses no pair */
      v[0].x = tv(&sum, r, CCS_COMPLETED) == 1 ? tv(&sum, r, CCS_CROSS) : INFINITY;
      v[1].x = tv(&sum, r, CCS_VIOL);
      v[2].x = tv(&sum, r, CCS_DELAY);
      v[3].x = 1 - tv(&sum, r, CCS_COMPLETED);
    }
  }
  check_claim(dir, "cloth.contact_no_penetration", v, 4, 1e-9);
  ck_assert_uint_eq(check_claims_part(dir, "cloth-contact"), 1);
  pathf(path, "%s/cloth-contact-snapshots.csv", dir);
  table sn = read_table_nan(path, "scheme,snap,tri,x1,y1,z1,x2,y2,z2,x3,y3,z3,t,flag", 2);
  for (size_t k = 0; k < sn.nrows; k++) {
    double f = tv(&sn, k, 13);
    ck_assert(f == 0 || f == 1 || f == 2);
  }
  pathf(path, "%s/cloth-contact-balls.csv", dir);
  table bl = read_table_nan(path, "scheme,snap,ball,x,y,z,radius,t", 2);
  ck_assert_uint_eq(sn.nrows, bl.nrows / 2 * 2 * 7 * 7);
  table_free(&t);
  table_free(&sum);
  table_free(&sn);
  table_free(&bl);
  /* The linear algebra of the steps: every run solved rows, and only
     lcp-sparse factored among the contact runs (the dense path's
     Cholesky factorisations are inside its active-set solves). */
  pathf(path, "%s/cloth-contact-solve.csv", dir);
  table so = read_table_nan(path, "scheme,steps,rows,contacts,contacts_max,assembly,factor,solve,linear,factorizations,"
                                  "analyses,solves", 1);
  ck_assert_uint_eq(so.nrows, 9);
  for (size_t r = 0; r < so.nrows; r++) {
    ck_assert(tv(&so, r, 2) > 0 && tv(&so, r, 8) > 0);
    if (!strcmp(so.label[r], "lcp-sparse"))
      ck_assert(tv(&so, r, 9) > 0 && tv(&so, r, 10) > 0 && tv(&so, r, 11) > 0);
    if (!strcmp(so.label[r], "lcp") || !strcmp(so.label[r], "iterative"))
      ck_assert(tv(&so, r, 9) == 0);
  }
  table_free(&so);
  char a2[PATH_MAX], b2[PATH_MAX];
  static const char *const timing[] = {"cloth-contact-time.csv", "cloth-contact-cost.csv", "cloth-contact-solve.csv"};
  for (int k = 0; k < 3; k++) {
    pathf(a2, "%s/%s", dir, timing[k]);
    char rel[64];
    snprintf(rel, sizeof rel, "b/%s", timing[k]);
    wp(b2, rel);
    ck_assert(exists(a2) && exists(b2));
    unlink(a2);
    unlink(b2);
  }
  check_same_output(4);
}
END_TEST

/*
 * collision-cost on grids 4 and 8: one row per mesh with its triangle
 * count 2 (N - 1)^2, the times positive.
 */
/*
 * A small cloth-self-contact (10 x 10, 0.2 s: the cloth reaches the ball
 * and drapes over it), its default runs: every run of the experiment's
 * list is there; the runs with the fail-safe, and lcp (the scheme
 * contact, exact LCP, sparse sub-solves), complete with no crossing in
 * the exact replay; the cost file has the unconstrained step's time for
 * every run.
 */
START_TEST(test_cloth_self_contact)
{
  /* Bad scene choices are refused before anything is written. */
  static const char *const bad[][2] = {{"cloth-contact", "posts=bars"},
                                       {"cloth-contact", "ball_line=y"},
                                       {"cloth-self-contact", "snapshots=-1"}};
  for (size_t k = 0; k < 3; k++) {
    proc p = run_cdyn("run", bad[k][0], "--set", bad[k][1], "--out", "bad");
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)strcspn(bad[k][1], "="), bad[k][1]);
    ck_assert_msg(p.status == 2 && strstr(p.err, key), "%s --set %s: status %d, %s", bad[k][0], bad[k][1], p.status,
                  p.err);
    proc_free(&p);
    char dir[PATH_MAX];
    wp(dir, "bad");
    ck_assert(!exists(dir));
  }
  /* The run failsafe is the run implicit's simulation here (share_failsafe
     on by default): no step of implicit kept a pair touching. */
  proc ps = run_cdyn("run", "cloth-self-contact", "--steps", "200", "--set", "grid=10", "--set", "capacity=2048",
                     "--set", "snapshots=0.1,0.2", "--out", "sc");
  ck_assert_msg(ps.status == 0, "cdyn exited with %d; stderr:\n%s", ps.status, ps.err);
  ck_assert_msg(strstr(ps.out, "failsafe     is implicit's simulation: no step of implicit kept a pair touching"),
                "%s", ps.out);
  proc_free(&ps);
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "sc");
  check_no_temporaries(dir);
  pathf(path, "%s/cloth-self-contact-summary.csv", dir);
  table sum = read_table_nan(path, CCS_COLUMNS, 1);
  static const char *const runs[] = {"implicit", "stacked", "merged", "failsafe", "discrete", "admm", "admm-frame",
                                     "admm-frame-100", "lcp"};
  ck_assert_uint_eq(sum.nrows, 9);
  for (size_t r = 0; r < sum.nrows; r++) {
    ck_assert_str_eq(sum.label[r], runs[r]);
    /* The cloth reached the ball: a node within 1 % of the thickness of
       its surface (admm's rows hold the nodes on it from outside). */
    ck_assert(tv(&sum, r, CCS_GAP) < 1.01 * 0.005);
    /* The large-step runs: admm at h, and at the frame's step 1/60 s over
       the same 0.2 s (12 steps); each completes with no crossing in the
       exact replay of its steps (the contacts one-sided rows in its solve;
       the experiment's `pairs` is not admm's option of that name). */
    if (!strncmp(sum.label[r], "admm", 4)) {
      int framed = strstr(sum.label[r], "-frame") != NULL;
      ck_assert(tv(&sum, r, CCS_H) == (framed ? 0.016666666666666667 : 1e-3));
      ck_assert(tv(&sum, r, CCS_COMPLETED) == 1 && tv(&sum, r, CCS_CROSS) == 0);
      ck_assert(tv(&sum, r, CCS_STEPS) == (framed ? 12 : 200));
    }
    if (!strcmp(sum.label[r], "lcp"))
      ck_assert(tv(&sum, r, CCS_COMPLETED) == 1 && tv(&sum, r, CCS_CROSS) == 0 && tv(&sum, r, CCS_STEPS) == 200);
    if (strstr(sum.label[r], "failsafe")) {
      ck_assert(tv(&sum, r, CCS_CROSS) == 0);
      ck_assert(tv(&sum, r, CCS_FS_PASSES) + tv(&sum, r, CCS_FS_REUSED) >= tv(&sum, r, CCS_STEPS));
    }
  }
  pathf(path, "%s/cloth-self-contact-cost.csv", dir);
  table c = read_table_nan(path, CC_COST_COLUMNS, 1);
  ck_assert_uint_eq(c.nrows, 9);
  for (size_t r = 0; r < c.nrows; r++)
    ck_assert(tv(&c, r, 7) > 0 && tv(&c, r, 8) > 0);
  table_free(&sum);
  table_free(&c);
  /* The runs by one process (jobs = 1) instead of two (the default), with
     every broad-phase query answered by the hierarchies (skin = 0) instead
     of from kept candidate lists, and the run failsafe simulated on its own
     (share_failsafe = 0): the same bytes in every file but the timing ones
     (the skin changes the time a run takes, not which pairs the narrow
     phase sees, nor their order; the fail-safe that had no work changes
     nothing). */
  ps = run_cdyn("run", "cloth-self-contact", "--steps", "200", "--set", "grid=10", "--set", "capacity=2048", "--set",
                "snapshots=0.1,0.2", "--set", "jobs=1", "--set", "skin=0", "--set", "share_failsafe=0", "--out",
                "sc1");
  ck_assert_msg(ps.status == 0, "cdyn exited with %d; stderr:\n%s", ps.status, ps.err);
  ck_assert_msg(!strstr(ps.out, "is implicit's simulation") && strstr(ps.out, "failsafe     fail-safe: 0 steps changed"),
                "%s", ps.out);
  proc_free(&ps);
  static const char *const data[] = {"cloth-self-contact.csv", "cloth-self-contact-summary.csv",
                                     "cloth-self-contact-snapshots.csv", "cloth-self-contact-balls.csv", "runs.csv"};
  for (size_t k = 0; k < 5; k++) {
    char a[PATH_MAX], b[PATH_MAX], rel[96];
    pathf(a, "%s/%s", dir, data[k]);
    snprintf(rel, sizeof rel, "sc1/%s", data[k]);
    wp(b, rel);
    size_t na, nb;
    char *ta = slurp(a, &na), *tb = slurp(b, &nb);
    ck_assert_msg(ta && tb && na == nb && !memcmp(ta, tb, na), "%s: jobs = 2 with the skin 0.005 and jobs = 1 with 0 differ",
                  data[k]);
    free(ta);
    free(tb);
  }
}
END_TEST

/*
 * The unconstrained step at a run's own states (cloth-self-contact-cost.csv's
 * free_at_states, ratio, free_rows): the 10 x 10 cloth with a strain limit
 * of 1 %, which its drape over the ball reaches (its strain rows switch on)
 * and its fall from rest does not.  Each run's steps from its states solve
 * strain rows: implicit's (switched distance rows) a mean above zero, and
 * admm's (one-sided rows on every structural spring, as in its run) 2 x 10
 * x 9 = 180, which the cloth alone of a scheme that enforces pins and
 * inequality rows only must carry as its run does (it had no strain limit
 * before).  The ratio is the file's own columns' (detect + solve +
 * failsafe) / free_at_states, and the run failsafe, implicit's simulation,
 * has implicit's step at the same states.
 */
START_TEST(test_cloth_self_contact_free_at_states)
{
  proc p = run_cdyn("run", "cloth-self-contact", "--steps", "200", "--set", "grid=10", "--set", "capacity=2048",
                    "--set", "snapshots=0.2", "--set", "eps_max=0.01", "--out", "scf");
  ck_assert_msg(p.status == 0, "cdyn exited with %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(strstr(p.out, "its unconstrained step from its states is implicit's"), "%s", p.out);
  proc_free(&p);
  char path[PATH_MAX];
  wp(path, "scf/cloth-self-contact-cost.csv");
  table c = read_table_nan(path, CC_COST_COLUMNS, 1);
  ck_assert_uint_eq(c.nrows, 9);
  size_t imp = c.nrows, fs = c.nrows;
  for (size_t r = 0; r < c.nrows; r++) {
    double t = tv(&c, r, 8), ratio = tv(&c, r, 9), rows = tv(&c, r, 10);
    ck_assert_msg(isfinite(t) && t > 0, "%s: free_at_states %g", c.label[r], t);
    double want = (tv(&c, r, 2) + tv(&c, r, 3) + tv(&c, r, 6)) / t;
    ck_assert_msg(fabs(ratio - want) <= 1e-12 * want, "%s: ratio %.17g against %.17g", c.label[r], ratio, want);
    if (!strcmp(c.label[r], "implicit"))
      imp = r, ck_assert_msg(rows > 0, "implicit: %g rows a step from its states", rows);
    if (!strcmp(c.label[r], "failsafe"))
      fs = r;
    if (!strncmp(c.label[r], "admm", 4))
      ck_assert_msg(rows == 180, "%s: %g rows a step from its states", c.label[r], rows);
  }
  ck_assert(imp < c.nrows && fs < c.nrows);
  ck_assert(tv(&c, fs, 8) == tv(&c, imp, 8) && tv(&c, fs, 10) == tv(&c, imp, 10));
  table_free(&c);
}
END_TEST

/*
 * A run the divergence rule ends is replayed up to the step before: the
 * 10 x 10 cloth at h = 0.02 s, where the run discrete (the scheme
 * implicit's springs explicit, past their stability at that step) is
 * ended by the rule at step 14.  Its summary counts 13 pieces replayed,
 * one a step but the last; a run that completes counts one a step; the
 * log names the step not replayed.
 */
START_TEST(test_cloth_self_contact_diverged)
{
  /* 15 steps: discrete diverges after its 14th, and the fail-safe has
     changed steps by then.  The capacity 1024 ends the run stacked (not
     asserted on) at its step 10, as 2048 did, but before its last
     sub-solves of over 1,000 rows on the 300 coordinates of the cloth
     blown up, which took seconds each. */
  proc p = run_cdyn("run", "cloth-self-contact", "--steps", "15", "--h", "0.02", "--set", "grid=10", "--set",
                    "capacity=1024", "--set", "snapshots=0.1", "--out", "scd");
  ck_assert_msg(p.status == 0, "cdyn exited with %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(strstr(p.err, "discrete: diverged: after step 14") && strstr(p.err, "(that step is not replayed)"),
                "%s", p.err);
  /* Steps of implicit kept pairs touching at this step: the run failsafe is
     simulated on its own (share_failsafe notwithstanding), and its
     fail-safe changes steps. */
  ck_assert_msg(!strstr(p.out, "is implicit's simulation"), "%s", p.out);
  proc_free(&p);
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "scd");
  pathf(path, "%s/cloth-self-contact-summary.csv", dir);
  table sum = read_table_nan(path, CCS_COLUMNS, 1);
  int seen = 0;
  for (size_t r = 0; r < sum.nrows; r++) {
    if (!strcmp(sum.label[r], "discrete")) {
      seen = 1;
      ck_assert(tv(&sum, r, CCS_COMPLETED) == 0 && tv(&sum, r, CCS_STEPS) == 14);
      ck_assert_msg(tv(&sum, r, CCS_PIECES) == 13, "discrete: %g pieces replayed", tv(&sum, r, CCS_PIECES));
    }
    if (!strcmp(sum.label[r], "failsafe"))
      ck_assert_msg(tv(&sum, r, CCS_FS_STEPS) > 0, "failsafe: %g steps changed", tv(&sum, r, CCS_FS_STEPS));
    /* the runs that take their steps whole and complete: one piece a step */
    if (tv(&sum, r, CCS_COMPLETED) == 1 && strcmp(sum.label[r], "lcp"))
      ck_assert_msg(tv(&sum, r, CCS_PIECES) == tv(&sum, r, CCS_STEPS), "%s: %g pieces over %g steps", sum.label[r],
                    tv(&sum, r, CCS_PIECES), tv(&sum, r, CCS_STEPS));
  }
  ck_assert(seen);
  table_free(&sum);
}
END_TEST

START_TEST(test_collision_cost)
{
  run_ok("run", "collision-cost", "--set", "grids=4,8", "--set", "reps=2", "--out", "cc");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "cc");
  check_no_temporaries(dir);
  pathf(path, "%s/collision-cost.csv", dir);
  table t = read_table_nan(path, "grid,nodes,triangles,candidates,contacts,exact,near,filtered", 0);
  ck_assert_uint_eq(t.nrows, 2);
  for (size_t k = 0; k < 2; k++) {
    double N = tv(&t, k, 0);
    ck_assert(tv(&t, k, 2) == 2 * (N - 1) * (N - 1));
    ck_assert(tv(&t, k, 3) > 0);
    ck_assert(tv(&t, k, 7) + tv(&t, k, 5) == tv(&t, k, 6));
  }
  pathf(path, "%s/collision-cost-time.csv", dir);
  table tt = read_table_nan(path, "grid,triangles,before,after,replay", 0);
  ck_assert_uint_eq(tt.nrows, 2);
  for (size_t k = 0; k < 2; k++)
    ck_assert(tv(&tt, k, 2) > 0 && tv(&tt, k, 3) > 0 && tv(&tt, k, 4) > 0);
  table_free(&t);
  table_free(&tt);
}
END_TEST

enum { CLC_GRID = 2, CLC_NODES, CLC_H, CLC_STEPS, CLC_K, CLC_TIME, CLC_PROBE, CLC_MAX, CLC_FMEAN, CLC_FMAX, CLC_FLIPS, CLC_NOCONV,
       CLC_COMPLETED, CLC_BEST };

enum { CLF_GRID = 2, CLF_H, CLF_T, CLF_STEPS, CLF_DONE, CLF_COMPLETED, CLF_NOT_TAKEN, CLF_MAX, CLF_NEWTON, CLF_NOCONV };

/*
 * A small cloth-vs-implicit-ode (grids 8 and 12, 0.3 s; at the animation
 * steps grid 16, 0.3 s, and cloth.frame_rate's run over 0.4 s): one
 * fastest solver per method and grid, and it is the fastest of the rows
 * timed over the same steps; Baraff-Witkin's stiffness a power of two
 * whose run stays within eps_max; the steps and h as the experiment's
 * rule says; the claims judged by their rules on these rows; and
 * cloth.frame_rate's run of projected-newton the same, to the bit, as
 * cloth-elongation's at 1/60 s over the same span on the same grid.
 */
/*
 * Baraff-Witkin's stiffness search starts at the last grid's power: on
 * grids 12 then 16 (0.3 s, where 12 needs k x 4 and 16 too) it probes
 * k x 4 at 16 first, finds it within eps_max, then k x 2 below it, beyond;
 * so k x 4, the same power as the search from k x 1 up on grid 16 alone.
 */
static double bw_scale_at_16(const char *grids, const char *out, const char *want_log)
{
  proc p = run_cdyn("run", "cloth-vs-implicit-ode", "--set", grids, "--set", "T=0.3", "--set", "anim_h=none", "--out",
                    out);
  ck_assert_msg(p.status == 0, "cdyn exited with %d; stderr:\n%s", p.status, p.err);
  ck_assert_msg(strstr(p.out, want_log), "%s: no '%s' in\n%s", grids, want_log, p.out);
  proc_free(&p);
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, out);
  pathf(path, "%s/cloth-cost.csv", dir);
  table t = read_table_nan(path,
                           "scheme,solver,grid,nodes,h,steps,k_scale,time_per_step,time_probe,eps_max,frac_mean,"
                           "frac_max,flips,noconv,completed,best",
                           2);
  double k = NAN;
  for (size_t r = 0; r < t.nrows; r++)
    if (tv(&t, r, CLC_GRID) == 16 && !strncmp(t.label[r], "baraff-witkin,", 14) && tv(&t, r, CLC_BEST) == 1) {
      ck_assert(tv(&t, r, CLC_MAX) <= 0.1);
      k = tv(&t, r, CLC_K);
    }
  table_free(&t);
  return k;
}

START_TEST(test_cloth_cost_search)
{
  double k2 = bw_scale_at_16("grids=12,16", "s2",
                             "baraff-witkin  grid 16   k x 4      max eps 0.09187\n"
                             "  baraff-witkin  grid 16   k x 2      eps 0.1003 at step 174: beyond the limit, stopped\n"
                             "  baraff-witkin  grid 16   auto ");
  double k1 = bw_scale_at_16("grids=16", "s1",
                             "baraff-witkin  grid 16   k x 1      eps 0.1009 at step 156: beyond the limit, stopped\n");
  ck_assert_msg(k2 == 4 && k1 == 4, "k x %g after grid 12, k x %g alone", k2, k1);
}
END_TEST

START_TEST(test_cloth_cost)
{
  run_ok("run", "cloth-vs-implicit-ode", "--set", "grids=8,12", "--set", "T=0.3", "--set", "anim_grids=16", "--set",
         "anim_T=0.3", "--set", "hold_T=0.4", "--out", "c");
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "c");
  check_no_temporaries(dir);
  pathf(path, "%s/cloth-cost.csv", dir);
  table t = read_table_nan(path,
                           "scheme,solver,grid,nodes,h,steps,k_scale,time_per_step,time_probe,eps_max,frac_mean,"
                           "frac_max,flips,noconv,completed,best",
                           2);
  double best[2][2] = {{NAN, NAN}, {NAN, NAN}}, bw_eps = NAN;
  for (int g = 0; g < 2; g++) {
    double grid = g ? 12 : 8, h = 1e-3 * 15 / (grid - 1);
    for (int m = 0; m < 2; m++) {
      const char *meth = m ? "baraff-witkin" : "implicit";
      int nbest = 0;
      for (size_t r = 0; r < t.nrows; r++) {
        if (tv(&t, r, CLC_GRID) != grid || strncmp(t.label[r], meth, strlen(meth)) || t.label[r][strlen(meth)] != ',')
          continue;
        ck_assert(tv(&t, r, CLC_H) == h && tv(&t, r, CLC_NODES) == grid * grid);
        if (m == 0) {
          /* Every step of the window, or fewer for a solver stopped in
             the race (below). */
          long full = (long)ceil(0.3 / h - 1e-9), steps = (long)tv(&t, r, CLC_STEPS);
          ck_assert(steps == full || (steps >= 1 && steps < full && tv(&t, r, CLC_COMPLETED) == 0));
          ck_assert(tv(&t, r, CLC_K) == 1);
        } else {
          int e;
          ck_assert_msg(frexp(tv(&t, r, CLC_K), &e) == 0.5, "k_scale %g is not a power of two", tv(&t, r, CLC_K));
        }
        if (tv(&t, r, CLC_BEST) == 1) {
          nbest++;
          best[g][m] = tv(&t, r, CLC_TIME);
          if (m == 1) {
            bw_eps = tv(&t, r, CLC_MAX);
            ck_assert_msg(bw_eps <= 0.1, "grid %g: Baraff-Witkin's eps %g", grid, bw_eps);
          }
        }
      }
      ck_assert_int_eq(nbest, 1);
      /* The best is the fastest over the steps all its rows ran.  One of
         Baraff-Witkin's other solvers ran probe_steps (20) steps, or
         fewer, stopped once they took longer than 20 steps of the best at
         its time over its first 20 (time_probe). */
      double best_probe = NAN;
      for (size_t r = 0; r < t.nrows; r++)
        if (tv(&t, r, CLC_GRID) == grid && !strncmp(t.label[r], meth, strlen(meth)) &&
            t.label[r][strlen(meth)] == ',' && tv(&t, r, CLC_BEST) == 1)
          best_probe = tv(&t, r, CLC_PROBE);
      for (size_t r = 0; r < t.nrows; r++) {
        if (tv(&t, r, CLC_GRID) != grid || strncmp(t.label[r], meth, strlen(meth)) || t.label[r][strlen(meth)] != ',')
          continue;
        if (!m) {
          /* One stopped in the race took longer over its steps than the
             best over the whole window. */
          double full = ceil(0.3 / h - 1e-9), steps = tv(&t, r, CLC_STEPS);
          ck_assert(tv(&t, r, CLC_TIME) >= best[g][m]);
          if (steps < full)
            ck_assert_msg(tv(&t, r, CLC_TIME) * steps > best[g][m] * full,
                          "grid %g: %s ran %g steps at %g s each, against %g of the best's %g s", grid, t.label[r],
                          steps, tv(&t, r, CLC_TIME), full, best[g][m]);
          continue;
        }
        ck_assert(tv(&t, r, CLC_PROBE) >= best_probe);
        double steps = tv(&t, r, CLC_STEPS);
        if (tv(&t, r, CLC_BEST) != 1 && steps != 20)
          ck_assert_msg(steps >= 1 && steps < 20 && tv(&t, r, CLC_TIME) * steps > 20 * best_probe,
                        "grid %g: %s ran %g steps at %g s each, against 20 of the best's %g s", grid, t.label[r],
                        steps, tv(&t, r, CLC_TIME), best_probe);
      }
    }
  }
  check_claim(dir, "cloth.constraints_cheaper",
              (exp_value[]){{"ratio", best[1][0] / best[1][1]}, {"largest_grid", 12}, {"bw_eps", bw_eps}}, 3, 1e-5);

  table_free(&t);
  /* At the animation steps 1/60 and 1/120 s, grid 16, 0.3 s: backward-euler
     with the solver auto (the only one of adaptive_solvers' kind it takes)
     and its counts; projected-newton with each of adaptive_solvers (the
     dense one too: its 768 unknowns are within dense_max) and its counts;
     Baraff-Witkin stiffened by a power of two, its best within eps_max; a
     run that completed took every step; at most one best per method and
     step. */
  pathf(path, "%s/cloth-cost-animation.csv", dir);
  table an = read_table_nan(path,
                            "scheme,solver,grid,nodes,h,steps,k_scale,time_per_step,time_probe,eps_max,frac_mean,"
                            "frac_max,flips,noconv,completed,best,newton_iterations_per_step,analyses,set_changes",
                            2);
  int seen[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}}, nbest[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  double pn_t = INFINITY, bw_t = NAN, bw_e = NAN; /* the bests at 1/60 s */
  for (size_t r = 0; r < an.nrows; r++) {
    double h = tv(&an, r, CLC_H);
    int hi = fabs(h - 1.0 / 60) < 1e-15 ? 0 : fabs(h - 1.0 / 120) < 1e-15 ? 1 : -1;
    ck_assert_msg(hi >= 0, "h %g", h);
    ck_assert(tv(&an, r, CLC_GRID) == 16 && tv(&an, r, CLC_NODES) == 256);
    int m = !strncmp(an.label[r], "baraff-witkin,", 14)      ? 2
            : !strncmp(an.label[r], "projected-newton,", 17) ? 1
            : !strncmp(an.label[r], "admm,", 5)              ? 3
                                                             : 0;
    if (m == 0)
      ck_assert_str_eq(an.label[r], "backward-euler,auto");
    if (m == 1 || m == 3) {
      const char *sv = an.label[r] + (m == 1 ? 17 : 5);
      ck_assert(!strcmp(sv, "cholesky") || !strcmp(sv, "cholmod") || !strcmp(sv, "pcg"));
    }
    if (hi == 0 && tv(&an, r, CLC_BEST) == 1) {
      if (m == 1)
        pn_t = tv(&an, r, CLC_TIME);
      if (m == 2)
        bw_t = tv(&an, r, CLC_TIME), bw_e = tv(&an, r, CLC_MAX);
    }
    seen[hi][m] = 1;
    nbest[hi][m] += tv(&an, r, CLC_BEST) == 1;
    if (tv(&an, r, CLC_COMPLETED) == 1 && (!m || tv(&an, r, CLC_BEST) == 1))
      ck_assert_int_eq((long)tv(&an, r, CLC_STEPS), (long)ceil(0.3 / h - 1e-9));
    if (m == 2) {
      int e;
      ck_assert(frexp(tv(&an, r, CLC_K), &e) == 0.5);
      if (tv(&an, r, CLC_BEST) == 1)
        ck_assert(tv(&an, r, CLC_MAX) <= 0.1);
    } else {
      ck_assert(tv(&an, r, CLC_K) == 1);
      ck_assert(tv(&an, r, CLC_BEST + 1) > 0); /* Newton iterations per step */
      if (tv(&an, r, CLC_BEST) == 1)
        ck_assert(tv(&an, r, CLC_COMPLETED) == 1);
    }
  }
  for (int hi = 0; hi < 2; hi++)
    for (int m = 0; m < 4; m++)
      ck_assert(seen[hi][m] && nbest[hi][m] <= 1);
  table_free(&an);
  /* cloth.frame_rate: projected-newton on cloth-elongation's scene (grid
     16, the ball) over hold_T at 1/60 s, then the ratio of the bests at
     1/60 s (infinite when projected-newton has none: no run completed). */
  pathf(path, "%s/cloth-frame-rate.csv", dir);
  table fr = read_table_nan(path,
                            "scheme,solver,grid,h,T,steps,steps_done,completed,not_taken,eps_max,"
                            "newton_iterations_per_step,noconv",
                            2);
  ck_assert_uint_eq(fr.nrows, 1);
  ck_assert_str_eq(fr.label[0], "projected-newton,auto");
  ck_assert(tv(&fr, 0, CLF_GRID) == 16 && fabs(tv(&fr, 0, CLF_H) - 1.0 / 60) < 1e-15 && tv(&fr, 0, CLF_T) == 0.4);
  ck_assert_int_eq((long)tv(&fr, 0, CLF_STEPS), 24);
  int completed = tv(&fr, 0, CLF_COMPLETED) == 1;
  ck_assert(completed == (tv(&fr, 0, CLF_DONE) == 24));
  if (tv(&fr, 0, CLF_NOT_TAKEN) == 1)
    ck_assert(!completed && tv(&fr, 0, CLF_NOCONV) >= 1);
  check_claim(dir, "cloth.frame_rate",
              (exp_value[]){{"strain", completed ? tv(&fr, 0, CLF_MAX) : INFINITY}, {"ratio", pn_t / bw_t},
                            {"bw_eps", bw_e}},
              3, 1e-5);
  ck_assert_uint_eq(check_claims_part(dir, "cloth-vs-implicit-ode"), 2);
  /* The same run in cloth-elongation: its span 40 steps of 0.01 s, its
     animation step 1/60 s, projected-newton alone beside its runs. */
  run_ok("run", "cloth-elongation", "--h", "0.01", "--steps", "40", "--set", "grid=16", "--set", "anim_h=1/60", "--set",
         "anim_schemes=projected-newton", "--out", "e16");
  char edir[PATH_MAX];
  wp(edir, "e16");
  pathf(path, "%s/cloth-animation.csv", edir);
  table ea = read_table_nan(path,
                            "scheme,fail,h,steps,steps_done,stable,t_fail,eps_max_measured,holds_eps,holds_eps_tol,"
                            "energy_lost_per_s,newton_iterations_per_step,factorizations_per_step,analyses,"
                            "set_changes,active_max,flips,noconv,status",
                            2);
  int found = 0;
  for (size_t r = 0; r < ea.nrows; r++)
    if (!strncmp(ea.label[r], "projected-newton,", 17) && fabs(tv(&ea, r, CLA_H) - 1.0 / 60) < 1e-15) {
      found++;
      ck_assert_int_eq((long)tv(&ea, r, CLA_STEPS), 24);
      ck_assert_int_eq((long)tv(&ea, r, CLA_DONE), (long)tv(&fr, 0, CLF_DONE));
      ck_assert_msg(tv(&ea, r, CLA_MAX) == tv(&fr, 0, CLF_MAX), "cloth-elongation's strain %.17g, cloth.frame_rate's %.17g",
                    tv(&ea, r, CLA_MAX), tv(&fr, 0, CLF_MAX));
      ck_assert(tv(&ea, r, CLA_STABLE) == (completed && tv(&fr, 0, CLF_MAX) <= 1));
      if (completed)
        ck_assert(tv(&ea, r, CLA_NEWTON) == tv(&fr, 0, CLF_NEWTON));
    }
  ck_assert_int_eq(found, 1);
  table_free(&ea);
  table_free(&fr);
}
END_TEST

/* ---- cloth-robustness ------------------------------------------------------------------------- */

enum { RS_H = 2, RS_T, RS_STEP, RS_STRAIN, RS_IT, RS_FACT, RS_STATUS };
enum { RB_NX = 3, RB_NY, RB_MASS, RB_PINS, RB_GX, RB_GY, RB_GZ, RB_EPS, RB_BOUND, RB_H, RB_STEPS, RB_DONE, RB_HOLDS,
       RB_TSTOP, RB_MAX, RB_END, RB_NEWTON, RB_FACT, RB_NOCONV, RB_STATUS };

/* What the variants of the short run below are, on the 6 x 6 grid at
   T = 0.3 s (experiments/studies/cloth_robustness.c defines them). */
typedef struct {
  const char *name;
  double ny, mass, pins, gx, eps, h;
} rob_expect;

/*
 * A short cloth-robustness (6 x 6, 0.3 s, five variants): every run of
 * every variant has a row with the variant's shape, mass, pins, gravity,
 * limit and step; its series has every step from 0 to where it ended,
 * none after the first rule broken; the largest and end strain, the steps
 * taken and the iterations and factorisations per step are the series';
 * the verdict, the rule broken and when are the rule (a step taken, a
 * finite state, strain <= eps_max + eps_tol) recomputed from the series;
 * the time file has a positive time for each run; the metadata records
 * every parameter and variant; an unknown variant and baraff-witkin (pins
 * only: it cannot take the limit) are refused before anything is
 * written.  The same command twice gives the same bytes but for the
 * timing file.
 */
START_TEST(test_cloth_robustness)
{
  static const char *const bad[][2] = {{"--set", "variants=base,nope"}, {"--set", "variants=base,base"},
                                       {"--scheme", "baraff-witkin"}};
  for (size_t k = 0; k < 3; k++) {
    proc p = run_cdyn("run", "cloth-robustness", bad[k][0], bad[k][1], "--out", "bad");
    ck_assert_msg(p.status == 2 && (k < 2 ? strstr(p.err, "variants") != NULL : strstr(p.err, "baraff-witkin") != NULL),
                  "%s %s: status %d, %s", bad[k][0], bad[k][1], p.status, p.err);
    proc_free(&p);
    char dir[PATH_MAX];
    wp(dir, "bad");
    ck_assert(!exists(dir));
  }
  for (int pass = 0; pass < 2; pass++)
    run_ok("run", "cloth-robustness", "--set", "grid=6", "--set", "T=0.3", "--set",
           "variants=base,rect-half,heavy-pins,tilt,h15", "--out", pass ? "b" : "a");
  static const rob_expect ex[] = {{"base", 6, 0.5, 2, 0, 0.1, 1.0 / 60},
                                  {"rect-half", 3, 0.25, 2, 0, 0.1, 1.0 / 60},
                                  {"heavy-pins", 6, 5, 3, 0, 0.1, 1.0 / 60},
                                  {"tilt", 6, 0.5, 2, 5, 0.1, 1.0 / 60},
                                  {"h15", 6, 0.5, 2, 0, 0.1, 1.0 / 15}};
  static const char *const runs[] = {"projected-newton", "admm", "backward-euler"};
  char dir[PATH_MAX], path[PATH_MAX];
  wp(dir, "a");
  check_no_temporaries(dir);
  pathf(path, "%s/cloth-robustness.csv", dir);
  table t = read_table_nan(path,
                           "scheme,variant,fail,nx,ny,mass,pins,gx,gy,gz,eps_limit,strain_bound,h,steps,steps_done,"
                           "holds,t_stop,strain_max,strain_end,newton_iterations_per_step,factorizations_per_step,"
                           "noconv,status",
                           3);
  pathf(path, "%s/cloth-robustness-series.csv", dir);
  table se = read_table_nan(path, "scheme,variant,h,t,step,strain,iterations,factorizations,status", 2);
  pathf(path, "%s/cloth-robustness-time.csv", dir);
  table tm = read_table_nan(path, "scheme,variant,h,steps_done,time_per_step", 2);
  ck_assert_uint_eq(t.nrows, 15);
  ck_assert_uint_eq(tm.nrows, 15);
  int held = 0;
  for (size_t r = 0; r < t.nrows; r++) {
    const rob_expect *e = &ex[r / 3];
    const char *run = runs[r % 3];
    char key[128], lab[160];
    snprintf(key, sizeof key, "%s,%s", run, e->name);
    snprintf(lab, sizeof lab, "%s,", key);
    ck_assert_msg(!strncmp(t.label[r], lab, strlen(lab)), "row %zu: %s, expected %s", r, t.label[r], key);
    const char *fail = t.label[r] + strlen(lab);
    ck_assert_str_eq(tm.label[r], key);
    /* The variant as run. */
    double h = tv(&t, r, RB_H);
    ck_assert(tv(&t, r, RB_NX) == 6 && tv(&t, r, RB_NY) == e->ny && tv(&t, r, RB_MASS) == e->mass &&
              tv(&t, r, RB_PINS) == e->pins);
    ck_assert(tv(&t, r, RB_GX) == e->gx && tv(&t, r, RB_GY) == -9.81 && tv(&t, r, RB_GZ) == 0);
    ck_assert(tv(&t, r, RB_EPS) == e->eps && tv(&t, r, RB_BOUND) == e->eps + 0.01);
    ck_assert(h == e->h);
    long steps = (long)tv(&t, r, RB_STEPS);
    ck_assert_int_eq(steps, (long)ceil(0.3 / h - 1e-9));
    /* The rule, from the series. */
    double bound = tv(&t, r, RB_BOUND), smax = 0, send = NAN, it = 0, fact = 0;
    long last = -1, k_fail = -1, called = 0;
    const char *why = "none";
    int status_row = 0;
    for (size_t k = 0; k < se.nrows; k++) {
      if (strcmp(se.label[k], key))
        continue;
      long step = (long)tv(&se, k, RS_STEP);
      ck_assert_msg(k_fail < 0, "%s: a row (step %ld) after the rule was broken at step %ld", key, step, k_fail);
      ck_assert_msg(step == last + 1, "%s: step %ld after %ld", key, step, last);
      ck_assert(tv(&se, k, RS_H) == h && fabs(tv(&se, k, RS_T) - (double)step * h) <= 1e-12);
      fact += tv(&se, k, RS_FACT);
      if (step > 0) {
        it += tv(&se, k, RS_IT);
        called++;
      }
      double status = tv(&se, k, RS_STATUS);
      if (status != 0) {
        status_row = 1;
        k_fail = step;
        why = status == CDYN_NOCONV ? "step-not-taken" : "failed-step";
        ck_assert(isnan(tv(&se, k, RS_STRAIN)));
        ck_assert(status == tv(&t, r, RB_STATUS));
        continue;
      }
      double strain = tv(&se, k, RS_STRAIN);
      last = step;
      send = strain;
      if (!isfinite(strain)) {
        k_fail = step, why = "non-finite";
        smax = strain;
      } else {
        smax = fmax(smax, strain);
        if (strain > bound)
          k_fail = step, why = "strain-bound";
      }
    }
    int holds = k_fail < 0 && last == steps;
    ck_assert_msg(holds == (tv(&t, r, RB_HOLDS) == 1), "%s: holds %g, the rule on the series %d", key,
                  tv(&t, r, RB_HOLDS), holds);
    ck_assert_msg(!strcmp(fail, why), "%s: fail %s, the rule on the series %s", key, fail, why);
    ck_assert(holds ? isnan(tv(&t, r, RB_TSTOP)) : fabs(tv(&t, r, RB_TSTOP) - (double)k_fail * h) <= 1e-12);
    ck_assert_int_eq(last, (long)tv(&t, r, RB_DONE));
    ck_assert_int_eq(last, (long)tv(&tm, r, 3));
    ck_assert(tv(&tm, r, 2) == h && tv(&tm, r, 4) > 0);
    ck_assert_msg(smax == tv(&t, r, RB_MAX) && send == tv(&t, r, RB_END), "%s: strain %g / %g, series %g / %g", key,
                  tv(&t, r, RB_MAX), tv(&t, r, RB_END), smax, send);
    ck_assert(status_row || tv(&t, r, RB_STATUS) == 0);
    if (!status_row) {
      /* Per step called, from the series' steps. */
      double n = tv(&t, r, RB_NEWTON), f = tv(&t, r, RB_FACT);
      ck_assert_msg(isnan(n) ? it == 0 : fabs(n - it / (double)called) <= 1e-12 * n, "%s: %g Newton iterations a "
                    "step, the series %g / %ld", key, n, it, called);
      ck_assert(isnan(f) ? fact == 0 : fabs(f - fact / (double)called) <= 1e-12 * f);
    }
    held += holds;
  }
  ck_assert_int_ge(held, 1);
  /* The metadata: every parameter, and the variants as run. */
  pathf(path, "%s/cloth-robustness.meta.json", dir);
  char *json = must_slurp(path);
  static const char *const keys[] = {"\"grid\": \"6\"", "\"T\": \"0.3\"", "\"eps_tol\": \"0.01\"", "\"eps_max\": \"0.1\"",
                                     "\"k_struct\": \"100\"", "\"damping\": \"0.02\"",
                                     "{\"variant\": \"heavy-pins\"", "\"pins\": [0, 4, 5]"};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    ck_assert_msg(strstr(json, keys[k]) != NULL, "%s: no %s", path, keys[k]);
  free(json);
  pathf(path, "%s/report.part.md", dir);
  char *rep = must_slurp(path);
  ck_assert(strstr(rep, "| variant | run |") != NULL && strstr(rep, "| heavy-pins | backward-euler |") != NULL);
  free(rep);
  ck_assert_uint_eq(check_claims_part(dir, "cloth-robustness"), 0);
  table_free(&t);
  table_free(&se);
  table_free(&tm);
  /* Determinism, the timing file aside. */
  char a2[PATH_MAX], b2[PATH_MAX];
  pathf(a2, "%s/cloth-robustness-time.csv", dir);
  wp(b2, "b/cloth-robustness-time.csv");
  ck_assert(exists(a2) && exists(b2));
  unlink(a2);
  unlink(b2);
  check_same_output(2);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------------------- */

int main(void)
{
  const exp_case cases[] = {{"cloth_elongation", test_cloth_elongation},
                             {"cloth_cost", test_cloth_cost},
                             {"cloth_cost_search", test_cloth_cost_search},
                             {"cloth_contact", test_cloth_contact},
                             {"cloth_self_contact", test_cloth_self_contact},
                             {"cloth_self_contact_diverged", test_cloth_self_contact_diverged},
                             {"cloth_self_contact_free_at_states", test_cloth_self_contact_free_at_states},
                             {"collision_cost", test_collision_cost},
                             {"cloth_robustness", test_cloth_robustness}};
  return exp_run("experiments_cloth", cases, sizeof cases / sizeof cases[0]);
}
