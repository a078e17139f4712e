/*
 * arm5_improved.c: arm5-improved, the falling 5-link robot arm of 000
 * (figures 2-3); the arm, its runs and the order study:
 * problems/arm5_runs.c.
 *
 * arm5-improved (000 fig 3): first-order implicit against the improved
 * midpoint scheme (both AB2 readings) in four panels, h in {h, h_coarse}
 * x mass in {mass_light, mass_heavy}.  Two readings of "mass":
 *   uniform   every node has the mass.  With gravity the only force the
 *             motion is then independent of the mass: M qdd + J^T lambda =
 *             M g has the solution lambda proportional to m and the same
 *             qdd, and every scheme here computes W F = g and
 *             lambda = A^-1 (...) with A = J W J^T, so lambda scales with
 *             m and W lambda does not.  The runs measure how far rounding
 *             (W = 1/m is inexact) moves them apart.
 *   heavy-end the free end has the mass and the other nodes 1 kg, which
 *             does change the motion.
 * Per panel the ratio sum e_n(implicit) / sum e_n(improved) over the run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"
#include "nlink.h"
#include "problems/problems.h"
#include "problems/arm5_runs.h"

#define POS EXP_OPEN_MIN | EXP_OPEN_MAX /* (0, inf) */

static const exp_param params_improved[] = {
  {"links", "5", EXP_INT, 1, EXP_ARM_MAX, 0, "number of links"},
  {"length", "1", EXP_REAL, 0, INFINITY, POS, "length of every link (m)"},
  {"g", "9.81", EXP_REAL, 0, INFINITY, POS, "gravity (m/s^2), along -y"},
  {"h_coarse", "0.1", EXP_REAL, 0, INFINITY, POS,
   "the larger of the two panel step sizes (the smaller is --h); also the coarsest h of the order study"},
  {"mass_light", "1", EXP_REAL, 0, INFINITY, POS, "the lighter mass of the panels (kg)"},
  {"mass_heavy", "50", EXP_REAL, 0, INFINITY, POS, "the heavier mass of the panels (kg)"},
  {"order_T", "1", EXP_REAL, 0, INFINITY, POS, "order study: time at which errors are measured (s)"},
  {"order_levels", "8", EXP_INT, 2, EXP_ARM5_MAX_LEVELS, 0, "order study: number of step sizes h_coarse 2^-k"},
  {"diverge_frac", "1", EXP_REAL, 0, INFINITY, POS,
   "a panel run has diverged (and stops) when e_n exceeds this fraction of the arm's length"},
  EXP_PARAMS_END};

/* ---- arm5-improved ------------------------------------------------------------------------- */

#define NVAR 2 /* uniform, heavy-end */
#define NH 2
#define NM 2

static const char *const variants[NVAR] = {"uniform", "heavy-end"};

/* Mean e_n of a run; +inf when it diverged (so that ratios order it last). */
static double run_mean(const exp_arm5_result *r) { return r->unstable ? INFINITY : r->e_sum / (double)r->steps; }

/* a / b for mean errors; NaN when both diverged (nothing to compare). */
static double err_ratio(double a, double b) { return isinf(a) && isinf(b) ? NAN : a / b; }

static int run_improved(exp_ctx *ctx)
{
  exp_arm5_params p;
  double mass[NM], hh[NH], diverge;
  int rc = exp_arm5_params_get(ctx, &p);
  if (rc)
    return rc;
  exp_param_double(ctx, "mass_light", &mass[0]);
  exp_param_double(ctx, "mass_heavy", &mass[1]);
  exp_param_double(ctx, "diverge_frac", &diverge);
  hh[0] = ctx->h;
  hh[1] = p.h_coarse;
  double duration = (double)ctx->steps * ctx->h, e_lim = diverge * (double)p.arm.links * p.arm.length;
  long steps[NH];
  for (int ih = 0; ih < NH; ih++) {
    steps[ih] = lround(duration / hh[ih]);
    if (steps[ih] < 10)
      return cdyn_error(CDYN_EINVAL, "the run (%g s) must be at least 10 steps of h = %g", duration, hh[ih]);
  }
  size_t n = p.arm.links + 1, rowlen = (size_t)(steps[0] + 1) * 3 * n;
  /* Trajectories of every scheme on the uniform arm at --h, light and
     heavy, for the invariance check: traj + (im * nschemes + s) * rowlen. */
  double *traj = malloc((size_t)(NM * ctx->nruns) * rowlen * sizeof(double));
  if (!traj)
    return cdyn_error(CDYN_ENOMEM, "out of memory");
  /* mean[v][ih][im][s]: mean e_n (inf: diverged); when[...]: the step it diverged at. */
  static double mean[NVAR][NH][NM][EXP_MAX_RUNS], invariance[EXP_MAX_RUNS], inv1s[EXP_MAX_RUNS];
  static long when[NVAR][NH][NM][EXP_MAX_RUNS];
  exp_csv panels;
  char extra[640];
  snprintf(extra, sizeof extra,
           "\"note\": \"one row per panel run; a run diverged when e_n exceeded %.17g m or a step failed; "
           "e_mean is nan for a diverged run; ratio_implicit = e_mean(implicit) / e_mean(scheme) in the same panel, nan when "
           "either diverged; e_fail = e_n after the step that crossed the limit, refused by the stepper's divergence "
           "guard and so in no run file (nan if none)\"",
           e_lim);
  if ((rc = exp_csv_open(ctx, &panels, "panels",
                         "variant,scheme,h,mass,steps,diverged,fail_step,e_sum,e_mean,ratio_implicit,e_fail", NULL,
                         extra)))
    goto out;
  int ii = exp_run_index(ctx, "implicit");
  for (int v = 0; v < NVAR && !rc; v++)
    for (int ih = 0; ih < NH && !rc; ih++)
      for (int im = 0; im < NM && !rc; im++) {
        exp_arm a = p.arm;
        a.mass = v == 0 ? mass[im] : 1.0;
        a.end_mass = v == 0 ? 0.0 : mass[im];
        exp_arm5_result r[EXP_MAX_RUNS];
        for (int s = 0; s < ctx->nruns && !rc; s++) {
          char name[256];
          snprintf(name, sizeof name, "%s-h%g-m%g-%s", variants[v], hh[ih], mass[im], ctx->runs[s].name);
          double *tr = v == 0 && ih == 0 ? traj + (size_t)(im * ctx->nruns + s) * rowlen : NULL;
          if ((rc = exp_arm5_run_to_csv(ctx, &a, name, &ctx->runs[s], NULL, hh[ih], steps[ih], e_lim, tr, &r[s])))
            break;
          mean[v][ih][im][s] = run_mean(&r[s]);
          when[v][ih][im][s] = r[s].unstable ? r[s].fail_step : -1;
          printf("  %-36s steps = %-5ld mean e_n = %.3e%s\n", name, steps[ih], r[s].e_sum / (double)r[s].steps,
                 r[s].unstable ? "  DIVERGED" : "");
        }
        for (int s = 0; s < ctx->nruns && !rc; s++) {
          double row[9] = {hh[ih], mass[im], (double)steps[ih], (double)r[s].unstable, (double)r[s].fail_step,
                           r[s].e_sum, r[s].unstable ? NAN : mean[v][ih][im][s],
                           ii >= 0 && !r[s].unstable && !r[ii].unstable ? mean[v][ih][im][ii] / mean[v][ih][im][s]
                                                                        : NAN,
                           r[s].e_fail};
          const char *labels[2] = {variants[v], ctx->runs[s].name};
          rc = exp_csv_row_labels(&panels, labels, 2, row, 9);
        }
      }
  {
    int crc = exp_csv_close(&panels, rc == CDYN_OK);
    if (rc || (rc = crc))
      goto out;
  }
  /* Mass invariance: the uniform light and heavy runs of each scheme at --h. */
  for (int s = 0; s < ctx->nruns; s++) {
    const double *t0 = traj + (size_t)s * rowlen, *t1 = traj + (size_t)(ctx->nruns + s) * rowlen;
    long last = when[0][0][0][s] >= 0 || when[0][0][1][s] >= 0 ? -1 : steps[0];
    invariance[s] = inv1s[s] = NAN;
    if (last < 0)
      continue; /* a run diverged; nothing to compare */
    invariance[s] = inv1s[s] = 0;
    for (long k = 0; k <= last; k++) {
      double dk = exp_max_dist(t0 + (size_t)k * 3 * n, t1 + (size_t)k * 3 * n, n);
      invariance[s] = fmax(invariance[s], dk);
      if ((double)k * hh[0] <= 1.0)
        inv1s[s] = fmax(inv1s[s], dk);
    }
  }
  {
    exp_csv inv;
    char ex[256];
    snprintf(ex, sizeof ex,
             "\"note\": \"largest node distance (m) between the uniform runs at mass %.17g and %.17g, h = %.17g; "
             "nan where either diverged\"",
             mass[0], mass[1], hh[0]);
    if ((rc = exp_csv_open(ctx, &inv, "mass-invariance", "scheme,h,first_second,whole_run", NULL, ex)))
      goto out;
    for (int s = 0; s < ctx->nruns && !rc; s++) {
      double row[3] = {hh[0], inv1s[s], invariance[s]};
      rc = exp_csv_row_labeled(&inv, ctx->runs[s].name, row, 3);
    }
    int crc = exp_csv_close(&inv, rc == CDYN_OK);
    if (rc || (rc = crc))
      goto out;
  }
  exp_report(ctx,
             "Mean per-step constraint error e_n over %g s, and first-order implicit's mean over the scheme's "
             "(\"diverged\": e_n exceeded %g m, diverge_frac of the arm's length, at the step given; the run stopped "
             "there):\n\n"
             "| masses | h | mass | scheme | mean e_n | implicit / scheme |\n|---|---|---|---|---|---|\n",
             duration, e_lim);
  for (int v = 0; v < NVAR; v++)
    for (int ih = 0; ih < NH; ih++)
      for (int im = 0; im < NM; im++)
        for (int s = 0; s < ctx->nruns; s++) {
          exp_report(ctx, "| %s | %g | %g | %s | ", variants[v], hh[ih], mass[im], ctx->runs[s].name);
          if (when[v][ih][im][s] >= 0)
            exp_report(ctx, "diverged at step %ld |", when[v][ih][im][s]);
          else
            exp_report(ctx, "%.3e |", mean[v][ih][im][s]);
          if (ii >= 0 && when[v][ih][im][s] < 0 && when[v][ih][im][ii] < 0)
            exp_report(ctx, " %.3g |\n", mean[v][ih][im][ii] / mean[v][ih][im][s]);
          else
            exp_report(ctx, " - |\n");
        }
  exp_report(ctx,
             "\nUniform masses %g and %g kg, gravity only (the motion does not depend on the mass): largest distance "
             "(m) between the two runs' nodes at h = %g, over the first second and over the whole run:\n\n"
             "| scheme | first 1 s | whole run |\n|---|---|---|\n",
             mass[0], mass[1], hh[0]);
  for (int s = 0; s < ctx->nruns; s++)
    exp_report(ctx, "| %s | %.3g | %.3g |\n", ctx->runs[s].name, inv1s[s], invariance[s]);
  exp_report(ctx, "\n");
  static double slope[EXP_MAX_RUNS][2];
  if ((rc = exp_arm5_order_study(ctx, &p, slope)))
    goto out;
  /* Claims, on the uniform reading (000: "mass (1 and 50 unit)"). */
  int iv = exp_run_index(ctx, "improved"), ia = exp_run_index(ctx, "improved-ab2");
  if (exp_claim_ready(ctx, "arm5.improved_2x")) {
    double r[NH][NM], ra[NH][NM], rh[NH][NM];
    static const char *const panel[NH][NM] = {{"fine_light", "fine_heavy"}, {"coarse_light", "coarse_heavy"}};
    const exp_claim_def *c2x = exp_claim_find("arm5.improved_2x");
    int npass = 0;
    for (int ih = 0; ih < NH; ih++)
      for (int im = 0; im < NM; im++) {
        r[ih][im] = err_ratio(mean[0][ih][im][ii], mean[0][ih][im][iv]);
        ra[ih][im] = ia >= 0 ? err_ratio(mean[0][ih][im][ii], mean[0][ih][im][ia]) : NAN;
        rh[ih][im] = err_ratio(mean[1][ih][im][ii], mean[1][ih][im][iv]);
        npass += exp_holds_test(c2x, panel[ih][im], r[ih][im]);
      }
    /* Each panel as "ratio", or which of the two diverged and when. */
    char txt[3][NH * NM][96];
    for (int ih = 0; ih < NH; ih++)
      for (int im = 0; im < NM; im++) {
        const double rr[3] = {r[ih][im], ra[ih][im], rh[ih][im]};
        const int vv[3] = {0, 0, 1}, ss[3] = {iv, ia, iv};
        for (int j = 0; j < 3; j++) {
          char *t = txt[j][ih * NM + im];
          long wi = when[vv[j]][ih][im][ii], ws = ss[j] >= 0 ? when[vv[j]][ih][im][ss[j]] : -1;
          if (wi >= 0 && ws >= 0)
            snprintf(t, 96, "both diverged (steps %ld, %ld)", wi, ws);
          else if (ws >= 0)
            snprintf(t, 96, "%s diverged at step %ld", ctx->runs[ss[j]].name, ws);
          else if (wi >= 0)
            snprintf(t, 96, "implicit diverged at step %ld", wi);
          else
            snprintf(t, 96, "%.3g", rr[j]);
        }
      }
    rc = exp_judge(ctx, "arm5.improved_2x",
                   (exp_value[]){{"fine_light", r[0][0]},
                                 {"fine_heavy", r[0][1]},
                                 {"coarse_light", r[1][0]},
                                 {"coarse_heavy", r[1][1]}},
                   4,
                   "implicit/improved at (h, m) = (%g, %g) %s, (%g, %g) %s, (%g, %g) %s, (%g, %g) %s; improved-ab2: "
                   "%s, %s, %s, %s; heavy free end: %s, %s, %s, %s; over %g s; %d of the 4 uniform panels at 1.5 or more",
                   hh[0], mass[0], txt[0][0], hh[0], mass[1], txt[0][1], hh[1], mass[0], txt[0][2], hh[1], mass[1],
                   txt[0][3], txt[1][0], txt[1][1], txt[1][2], txt[1][3], txt[2][0], txt[2][1], txt[2][2], txt[2][3],
                   duration, npass);
  }
  if (!rc && exp_claim_ready(ctx, "arm5.error_grows_with_h_and_mass")) {
    /* Growth with h (mean e_n, so the step counts do not matter) and with
       mass, for implicit and improved; a pair where both runs diverged
       says nothing and is left out. */
    double gh_min = INFINITY, gm_min = INFINITY, gm_max = -INFINITY, gv_min = INFINITY, gv_max = -INFINITY;
    int nh_used = 0, nm_used = 0;
    const int sc[2] = {ii, iv};
    for (int j = 0; j < 2; j++) {
      for (int im = 0; im < NM; im++) {
        double g = err_ratio(mean[0][1][im][sc[j]], mean[0][0][im][sc[j]]);
        if (!isnan(g)) {
          gh_min = fmin(gh_min, g);
          nh_used++;
        }
      }
      for (int ih = 0; ih < NH; ih++) {
        double g = err_ratio(mean[0][ih][1][sc[j]], mean[0][ih][0][sc[j]]),
               gv = err_ratio(mean[1][ih][1][sc[j]], mean[1][ih][0][sc[j]]);
        if (!isnan(g)) {
          nm_used++;
          gm_min = fmin(gm_min, g);
          gm_max = fmax(gm_max, g);
        }
        if (!isnan(gv)) {
          gv_min = fmin(gv_min, gv);
          gv_max = fmax(gv_max, gv);
        }
      }
    }
    /* A direction with no usable pair (every pair diverged) shows no growth. */
    double with_h = nh_used ? gh_min : NAN, with_m = nm_used ? gm_min : NAN;
    const exp_claim_def *cg = exp_claim_find("arm5.error_grows_with_h_and_mass");
    int grows_h = exp_holds_test(cg, "with_h", with_h), grows_m = exp_holds_test(cg, "with_mass", with_m);
    rc = exp_judge(ctx, "arm5.error_grows_with_h_and_mass", (exp_value[]){{"with_h", with_h}, {"with_mass", with_m}},
                   2,
                   "growth with h: smallest ratio %.3g (%s); growth with mass (uniform masses, where the motion does "
                   "not depend on it): %.10g .. %.10g (%s); with a heavy free end instead: %.3g .. %.3g (inf: the "
                   "heavy run diverged)",
                   gh_min, grows_h ? "grows" : "does not grow", gm_min, gm_max, grows_m ? "grows" : "does not grow",
                   gv_min, gv_max);
  }
out:
  free(traj);
  return rc;
}

static int check_improved(exp_ctx *ctx)
{
  double light, heavy, h_coarse;
  int rc = exp_arm5_check(ctx);
  if (rc)
    return rc;
  exp_param_double(ctx, "mass_light", &light);
  exp_param_double(ctx, "mass_heavy", &heavy);
  exp_param_double(ctx, "h_coarse", &h_coarse);
  if (!(heavy > light))
    return cdyn_error(CDYN_EINVAL, "mass_heavy = %g must be above mass_light = %g", heavy, light);
  if (!(h_coarse >= 2 * ctx->h))
    return cdyn_error(CDYN_EINVAL, "h_coarse = %g must be at least twice --h %g (the panels' two step sizes)",
                      h_coarse, ctx->h);
  double duration = (double)ctx->steps * ctx->h;
  if (lround(duration / h_coarse) < 10 || lround(duration / ctx->h) < 10)
    return cdyn_error(CDYN_EINVAL, "the run (%g s) must be at least 10 steps of h = %g", duration, h_coarse);
  return CDYN_OK;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  EXP_ARM5_COLUMNS,
  {"panels", "variant", "", "reading of \"mass\": uniform (every node) or heavy-end (the free end)"},
  {"panels", "mass", "kg", "the panel's mass"},
  {"panels", "diverged", "1",
   "1 if a step failed or e_n exceeded diverge_frac of the arm's length (the run stopped)"},
  {"panels", "fail_step", "1", "step at which it diverged (steps + 1 if it did not)"},
  {"panels", "e_sum", "m", "sum of e_n over the run"},
  {"panels", "e_mean", "m", "mean e_n over the run (nan if it diverged)"},
  {"panels", "ratio_implicit", "1", "mean e_n of implicit over this run's (nan if either diverged)"},
  {"panels", "e_fail", "m",
   "e_n after the step that crossed the limit, refused by the divergence guard (nan if none)"},
  {"mass-invariance", "first_second", "m",
   "largest node distance between the light and heavy uniform runs over the first second"},
  {"mass-invariance", "whole_run", "m", "the same over the whole run"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_arm5_improved = {
  .name = "arm5-improved",
  .description = "5-link arm: improved midpoint vs first-order implicit, h x mass panels, and the order study",
  .source = "000 fig 2-3",
  .params = params_improved,
  .columns = columns,
  .check = check_improved,
  .schemes = "implicit,improved,improved-ab2",
  .h = 0.01,
  .steps = 1000,
  .run = run_improved,
};

