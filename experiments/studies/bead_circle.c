/*
 * bead_circle.c: bead-circle, 002's bead on a wire (Witkin's constrained
 * dynamics course, the seminar slides on "Bead on a circle").
 *
 * One particle of mass 1 kg on the unit circle in the x-y plane, written
 * as 002 writes it, C = (x.x - 1)/2 (the circle constraint type: its
 * radial row is (|x - c|^2 - R^2)/(2R), 002's C for R = 1, and a plane row
 * keeps the bead in z = 0), gravity 9.81 m/s^2 along -y, released at rest
 * at theta0 = 2 rad from the downward vertical (above the horizontal, so
 * the bead swings through the bottom at speed sqrt(2 g (1 - cos 2))).
 * 002's multiplier equation with feedback,
 *   J W J^T lambda = -Jdot qdot - J W F - ks C - kd Cdot,
 * is the `witkin` scheme; ks = kd = 0 is the same equation without
 * feedback.  Every other scheme runs on the same problem for comparison.
 * The reference is the exact motion theta(t) = 2 asin(k sn(K - w t | k^2))
 * (reference/bead.c).
 *
 * Measured: the radial error |r - 1| at every step and the angle error
 * against the reference.  Verdicts (thresholds fixed before measuring):
 *   bead.drift_without_feedback: the mean |r - 1| over the last quarter of
 *     the run, without feedback.  "Drifts off" is read as visibly off the
 *     wire and moving away: holds if it is >= 1e-2 R and >= 2 x the mean
 *     over the first quarter; partly if only one of the two.
 *   bead.feedback_holds: the largest |r - 1| over the run with feedback
 *     (ks, kd below): holds <= 1e-3 R, partly <= 1e-2 R.
 * A run needs at least 4 steps, so that its quarters are not empty.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bead.h"
#include "runner/experiment.h"
#include "problems/problems.h"

static const exp_param params[] = {
  {"theta0", "2", EXP_REAL, -3.14159265358979323846, 3.14159265358979323846, EXP_OPEN_MIN | EXP_OPEN_MAX,
   "release angle from the downward vertical (rad)"},
  {"ks", "4", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "feedback spring constant of the witkin run (002's ks; = beta^2)"},
  {"kd", "4", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX,
   "feedback damping constant of the witkin run (002's kd; = 2 alpha; critical with ks = 4)"},
  EXP_PARAMS_END};

/* 002's equation without feedback; and with it (ks, kd reach witkin
   from the parameters of the same names). */
static const char *const no_feedback[] = {"ks", "0", "kd", "0", NULL};
static const exp_companion companions[] = {
  {"no-feedback", "witkin", no_feedback, "002's multiplier equation without feedback (ks = kd = 0)"},
  {"feedback", "witkin", NULL, "002's multiplier equation with the feedback ks, kd of the parameters"},
  {NULL, NULL, NULL, NULL}};

static const double G = 9.81;

#define NSWEEP 5


typedef struct {
  double first, last, max, angle_err_max;
  int status;
} result;

static double wrap(double a)
{
  const double pi = 3.14159265358979323846;
  return a - 2 * pi * floor((a + pi) / (2 * pi));
}

typedef struct {
  exp_csv *csv;
  double theta0;
  long N, Q;
  result *res;
} bead_obs;

static int observe(void *ov, const exp_state *s)
{
  bead_obs *o = ov;
  result *res = o->res;
  const double *q = cdyn_system_positions(s->sys);
  double r = hypot(q[0], q[1]), dr = fabs(r - 1);
  double th = atan2(q[0], -q[1]), thr, om;
  int rc = cdyn_ref_bead_exact(1.0, G, o->theta0, s->t, &thr, &om);
  if (rc)
    return rc < 0 ? rc : -rc;
  double aerr = fabs(wrap(th - thr));
  long k = s->k;
  if (k >= 1 && k <= o->Q)
    res->first += dr / (double)o->Q;
  if (k > o->N - o->Q)
    res->last += dr / (double)o->Q;
  if (dr > res->max)
    res->max = dr;
  if (aerr > res->angle_err_max)
    res->angle_err_max = aerr;
  double row[9] = {(double)k, s->t, q[0], q[1], r - 1, (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - 1) / 2, th, thr,
                   aerr};
  return exp_csv_row(o->csv, row, 9);
}

static int run_one(exp_ctx *ctx, const char *name, const exp_runspec *run, const char *const *extra, double theta0,
                   result *res)
{
  cdyn_system *sys = NULL;
  cdyn_stepper *st = NULL;
  exp_csv csv;
  int rc = exp_bead_build(theta0, &sys);
  if (rc)
    return rc;
  if ((rc = exp_stepper_run(ctx, sys, run, extra, &st)))
    goto out;
  char file[128], meta[256];
  snprintf(file, sizeof file, "bead-%s", name);
  snprintf(meta, sizeof meta, "\"run\": {\"name\": \"%s\", \"scheme\": \"%s\", \"theta0\": %.17g}", name,
           run->scheme, theta0);
  if ((rc = exp_csv_open(ctx, &csv, file, "step,t,x,y,radial_err,C,theta,theta_ref,angle_err", st, meta)))
    goto out;
  memset(res, 0, sizeof *res);
  bead_obs o = {&csv, theta0, ctx->steps, ctx->steps / 4, res};
  exp_outcome out;
  rc = exp_simulate(sys, st, ctx->h, ctx->steps, NULL, observe, &o, &out);
  if (!rc && (out.end == EXP_END_FAILED_STEP || out.end == EXP_END_NONFINITE || out.end == EXP_END_DIVERGED))
    res->status = out.status;
  int crc = exp_csv_close(&csv, rc == CDYN_OK);
  if (!rc)
    rc = crc;
  if (!rc)
    printf("  %-20s max |r - 1| %.3e  first/last-quarter mean %.3e / %.3e  max angle error %.3e%s\n", name,
           res->max, res->first, res->last, res->angle_err_max,
           res->status == CDYN_EDIVERGED ? "  (diverged)" : res->status ? "  (a step failed)" : "");
out:
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  return rc;
}

static int run(exp_ctx *ctx)
{
  double theta0, ks, kd;
  int rc = CDYN_OK;
  exp_param_double(ctx, "theta0", &theta0);
  exp_param_double(ctx, "ks", &ks);
  exp_param_double(ctx, "kd", &kd);
  static result res[EXP_MAX_RUNS];
  for (int s = 0; s < ctx->nruns && !rc; s++)
    rc = run_one(ctx, ctx->runs[s].name, &ctx->runs[s], NULL, theta0, &res[s]);
  /* Context, not the verdict: how the error depends on the feedback
     stiffness, with critical damping kd = 2 sqrt(ks). */
  static const double sweep_ks[NSWEEP] = {1, 4, 100, 2500, 1e4};
  result sweep[NSWEEP];
  exp_runspec witkin = exp_plain_run("witkin");
  for (int j = 0; j < NSWEEP && !rc; j++) {
    char a[32], b[32], name[64];
    snprintf(a, sizeof a, "%.17g", sweep_ks[j]);
    snprintf(b, sizeof b, "%.17g", 2 * sqrt(sweep_ks[j]));
    snprintf(name, sizeof name, "feedback-ks%g", sweep_ks[j]);
    const char *const ov[] = {"ks", a, "kd", b, NULL};
    rc = run_one(ctx, name, &witkin, ov, theta0, &sweep[j]);
  }
  if (rc)
    return rc;
  int inf = exp_run_index(ctx, "no-feedback"), ifb = exp_run_index(ctx, "feedback");
  /* Without the two companion runs (--companions), their rows are NaN and
     no claim is judged: cdyn run writes both claims not-run. */
  const result none = {.max = NAN, .first = NAN, .last = NAN, .angle_err_max = NAN};
  const result nofb = inf >= 0 ? res[inf] : none, withfb = ifb >= 0 ? res[ifb] : none;
  exp_report(ctx,
             "Bead on the unit circle, h = %g, %ld steps: radial error |r - 1| and angle error against the exact "
             "motion:\n\n| run | max abs(r - 1) | mean, first quarter | mean, last quarter | max angle error (rad) |\n"
             "|---|---|---|---|---|\n"
             "| witkin, ks = kd = 0 | %.2e | %.2e | %.2e | %.2e |\n| witkin, ks = %g, kd = %g | %.2e | %.2e | %.2e | %.2e |\n",
             ctx->h, ctx->steps, nofb.max, nofb.first, nofb.last, nofb.angle_err_max, ks, kd, withfb.max, withfb.first,
             withfb.last, withfb.angle_err_max);
  for (int s = 0; s < ctx->nruns; s++)
    if (ctx->runs[s].role != EXP_COMPANION)
      exp_report(ctx, "| %s%s | %.2e | %.2e | %.2e | %.2e |\n", ctx->runs[s].name, res[s].status ? " (failed)" : "",
                 res[s].max, res[s].first, res[s].last, res[s].angle_err_max);
  exp_report(ctx, "\nWith critical damping kd = 2 sqrt(ks), the largest abs(r - 1):\n\n| ks |");
  for (int j = 0; j < NSWEEP; j++)
    exp_report(ctx, " %g |", sweep_ks[j]);
  exp_report(ctx, "\n|---|---|---|---|---|---|\n| max abs(r - 1) |");
  for (int j = 0; j < NSWEEP; j++)
    exp_report(ctx, " %.2e%s |", sweep[j].max, sweep[j].status ? " (failed)" : "");
  exp_report(ctx, "\n\n");
  if (ctx->steps < 4) {
    /* The quarters of a shorter run are empty. */
    exp_claim_not_run(ctx, "bead.drift_without_feedback",
                      "the run has fewer than 4 steps, so the quarters it compares are empty");
    return CDYN_OK;
  }
  char big[64];
  if (sweep[4].status || !(sweep[4].max <= 1.0))
    snprintf(big, sizeof big, "unbounded (the run diverged)");
  else
    snprintf(big, sizeof big, "%.3g", sweep[4].max);
  rc = exp_judge(ctx, "bead.drift_without_feedback",
                 (exp_value[]){{"last_quarter", nofb.last}, {"growth", nofb.last / nofb.first}}, 2,
                 "first-quarter mean %.3g, growth %.3g x; largest %.3g; witkin with ks = kd = 0, h = %g, %ld steps%s",
                 nofb.first, nofb.last / nofb.first, nofb.max, ctx->h, ctx->steps,
                 nofb.status == CDYN_EDIVERGED ? "; it diverged" : nofb.status ? "; a step failed" : "");
  if (!rc)
    rc = exp_judge(ctx, "bead.feedback_holds", (exp_value[]){{"max_error", withfb.status ? INFINITY : withfb.max}},
                   1,
                   "witkin with ks = %g, kd = %g; last-quarter mean %.3g (without feedback %.3g, %.3g x larger); "
                   "with kd = 2 sqrt(ks) the largest abs(r - 1) is %.3g, %.3g and %s at ks = 100, 2500 and 1e4",
                   ks, kd, withfb.last, nofb.last, nofb.last / withfb.last, sweep[2].max, sweep[3].max, big);
  return rc;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "x", "m", "x of the bead"},
  {NULL, "y", "m", "y of the bead"},
  {NULL, "radial_err", "m", "r - 1, the distance from the circle"},
  {NULL, "C", "m^2", "002's C = (x.x - 1)/2"},
  {NULL, "theta", "rad", "angle of the bead from the downward vertical"},
  {NULL, "theta_ref", "rad", "the exact motion's angle (reference/bead.c)"},
  {NULL, "angle_err", "rad", "|theta - theta_ref|, wrapped to [0, pi]"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_bead_circle = {
  .name = "bead-circle",
  .description = "bead on the unit circle with and without Witkin's feedback",
  .source = "002 (bead on a circle)",
  .params = params,
  .columns = columns,
  .schemes = "all",
  .companions = companions,
  .h = 0.01,
  .steps = 2000,
  .run = run,
};
