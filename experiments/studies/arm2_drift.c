/*
 * arm2_drift.c: arm2-drift, the falling 2-link robot arm of 001 (figures
 * 1-2); the arm and its runs: problems/arm2_runs.c.
 *
 * arm2-drift (001 fig 2): the per-step constraint error
 *   e_n = sum over links | |x_i - x_j| - L | + |x_0 - p|
 * of Baumgarte, post-stabilisation and implicit, plus Baumgarte with
 * alpha = beta = 0 (the unstabilised index-1 formulation) for context.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"
#include "nlink.h"
#include "problems/problems.h"
#include "problems/arm2_runs.h"

static const exp_param drift_params[] = {EXP_ARM2_PARAMS, EXP_PARAMS_END};

/* Baumgarte without feedback, the formulation that drifts: context for
   arm2-drift. */
static const char *const no_feedback[] = {"alpha", "0", "beta", "0", NULL};
static const exp_companion drift_companions[] = {
  {"baumgarte-a0b0", "baumgarte", no_feedback, "Baumgarte with alpha = beta = 0: the unstabilised index-1 form"},
  {NULL, NULL, NULL, NULL}};

static double mean(const double *x, long from, long to)
{
  double s = 0;
  for (long k = from; k < to; k++)
    s += x[k];
  return to > from ? s / (double)(to - from) : NAN;
}

/* ---- arm2-drift ------------------------------------------------------------- */

static int run_drift(exp_ctx *ctx)
{
  exp_arm2_params p;
  int rc = exp_arm2_params_get(ctx, &p);
  if (rc)
    return rc;
  static exp_arm2_result res[EXP_MAX_RUNS];
  memset(res, 0, sizeof res);
  int nrun = 0;
  for (int r = 0; r < ctx->nruns && !rc; r++, nrun++)
    rc = exp_arm2_run(ctx, &p, ctx->runs[r].name, &ctx->runs[r], ctx->h, ctx->steps, NULL, &res[r]);
  long N = ctx->steps, q = N / 4;
  if (!rc) {
    exp_report(ctx,
               "Mean per-step constraint error e_n over %ld steps of h = %g:\n\n"
               "| run | mean e_n | max e_n | e_n at the end |\n|---|---|---|---|\n",
               N, ctx->h);
    for (int k = 0; k < nrun; k++)
      exp_report(ctx, "| %s | %.3e | %.3e | %.3e |\n", ctx->runs[k].name, mean(res[k].e, 1, N + 1),
                 exp_arm2_maxval(res[k].e, 0, N + 1), res[k].e[N]);
    exp_report(ctx, "\n");
  }
  if (!rc && q < 1) {
    /* The growth claim compares quarters of the run, which are empty. */
    exp_claim_not_run(ctx, "arm2.baumgarte_grows", "the run has fewer than 4 steps, so its quarters are empty");
  }
  int ib = exp_run_index(ctx, "baumgarte"), ip = exp_run_index(ctx, "poststab"), ii = exp_run_index(ctx, "implicit"),
      i1 = exp_run_index(ctx, "baumgarte-a0b0");
  if (!rc && q >= 1 && exp_claim_ready(ctx, "arm2.baumgarte_grows")) {
    /* Growth: mean error over the last quarter against the first (steps
       1 .. N/4; step 0 is exact). */
    double gb = mean(res[ib].e, N - q + 1, N + 1) / mean(res[ib].e, 1, q + 1);
    double g1 = mean(res[i1].e, N - q + 1, N + 1) / mean(res[i1].e, 1, q + 1);
    rc = exp_judge(ctx, "arm2.baumgarte_grows", (exp_value[]){{"growth", gb}}, 1,
                   "alpha = beta = %s; the same ratio without feedback (alpha = beta = 0) is %.3g; mean e_n "
                   "first/last quarter %.3g / %.3g",
                   exp_param_string(ctx, "alpha"), g1, mean(res[ib].e, 1, q + 1), mean(res[ib].e, N - q + 1, N + 1));
  }
  if (!rc && exp_claim_ready(ctx, "arm2.poststab_to_zero")) {
    double mp = exp_arm2_maxval(res[ip].e, N / 2, N + 1) / p.length;
    rc = exp_judge(ctx, "arm2.poststab_to_zero", (exp_value[]){{"max_error", mp}}, 1,
                   "post-stabilisation (unit weighting, one projection per step); e_n at the last step %.3g",
                   res[ip].e[N]);
  }
  if (!rc && exp_claim_ready(ctx, "arm2.implicit_tight")) {
    double mb = mean(res[ib].e, 1, N + 1), mpm = mean(res[ip].e, 1, N + 1), mi = mean(res[ii].e, 1, N + 1);
    double rb = mi / mb, rp = mi / mpm;
    rc = exp_judge(ctx, "arm2.implicit_tight", (exp_value[]){{"vs_baumgarte", rb}, {"vs_poststab", rp}}, 2,
                   "mean e_n: implicit %.3g, Baumgarte %.3g, post-stab %.3g; implicit/post-stab = %.3g", mi, mb, mpm,
                   rp);
  }
  for (int k = 0; k < nrun; k++)
    free(res[k].e);
  return rc;
}


const cdyn_experiment cdyn_experiment_arm2_drift = {
  .name = "arm2-drift",
  .description = "2-link arm falling from horizontal: per-step constraint error",
  .source = "001 fig 1-2",
  .params = drift_params,
  .schemes = "baumgarte,poststab,implicit",
  .companions = drift_companions,
  .h = 0.05,
  .steps = 1460,
  .run = run_drift,
};

