/*
 * stability.c: the largest stable step size of every scheme
 * (implicit.large_steps, 001 sec III: implicit enforcement stays stable at
 * step sizes where explicit Baumgarte does not).
 *
 * Problems (problems.h): the single pendulum and a 10-link arm, both
 * released at rest from horizontal (the papers' arms), run for T = 10 s.
 *
 * A run at step size h is stable when every step succeeds, the constraint
 * error stays within err_frac of the links' length and the energy does not
 * grow by more than energy_frac of what gravity can release; the search
 * walks the grid h_j = 1e-3 2^(j/4) from 1e-3 down to the first stable h,
 * then up to the first unstable one (problems/stable_search.c gives the
 * rules and the search in full: stiff-pendulum and chain-scale-stability
 * use them too).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runner/experiment.h"
#include "problems/problems.h"

static const exp_param params[] = {
  {"err_frac", "0.1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX,
   "unstable when e_n exceeds this fraction of the total link length"},
  {"energy_frac", "0.1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX,
   "unstable when E - E(0) exceeds this fraction of the releasable energy"},
  EXP_PARAMS_END};

#define NPROB 2
static const exp_problem *const problems[NPROB] = {&exp_problem_pendulum_h, &exp_problem_chain10};

static int run(exp_ctx *ctx)
{
  double err_frac, energy_frac;
  int rc;
  exp_param_double(ctx, "err_frac", &err_frac);
  exp_param_double(ctx, "energy_frac", &energy_frac);
  exp_csv log, out;
  if ((rc = exp_csv_open(ctx, &log, "stability-probes", "scheme,problem,h,stable,status,steps,e_max,energy_gain,noconv",
                         NULL, "\"note\": \"every probe of the search; stable is 1 or 0\"")))
    return rc;
  static double hs[EXP_MAX_RUNS][NPROB], hu[EXP_MAX_RUNS][NPROB];
  for (int s = 0; s < ctx->nruns && !rc; s++)
    for (int pi = 0; pi < NPROB && !rc; pi++) {
      rc = exp_largest_stable_h(ctx, problems[pi], &ctx->runs[s], NULL, err_frac, energy_frac, &log, &hs[s][pi],
                                &hu[s][pi]);
      if (!rc)
        printf("  %-16s %-11s largest stable h %-10.4g first unstable %.4g\n", ctx->runs[s].name, problems[pi]->name,
               hs[s][pi], hu[s][pi]);
      exp_progress(ctx, "stability", (long)(s * NPROB + pi + 1), (long)(ctx->nruns * NPROB));
    }
  int crc = exp_csv_close(&log, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;
  if ((rc = exp_csv_open(ctx, &out, "stability",
                         "scheme,index,pendulum_h_max,pendulum_h_fail,chain10_h_max,chain10_h_fail", NULL,
                         "\"note\": \"h_max: largest stable h before the first unstable grid point (h_fail); nan "
                         "h_max: unstable down to 1.2e-4; nan h_fail: stable up to 0.5\"")))
    return rc;
  for (int s = 0; s < ctx->nruns && !rc; s++) {
    double row[5] = {(double)s, hs[s][0], hu[s][0], hs[s][1], hu[s][1]};
    rc = exp_csv_row_labeled(&out, ctx->runs[s].name, row, 5);
  }
  crc = exp_csv_close(&out, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;
  exp_report(ctx,
             "Largest stable step size over 10 s from horizontal (grid steps of 19 %%; \"-\" below 1.2e-4, "
             "\">= 0.5\" stable on the whole grid):\n\n| scheme | pendulum | 10-link arm |\n|---|---|---|\n");
  for (int s = 0; s < ctx->nruns; s++) {
    exp_report(ctx, "| %s |", ctx->runs[s].name);
    for (int pi = 0; pi < NPROB; pi++) {
      if (isnan(hs[s][pi]))
        exp_report(ctx, " - |");
      else if (isnan(hu[s][pi]))
        exp_report(ctx, " >= %.3g |", hs[s][pi]);
      else
        exp_report(ctx, " %.3g |", hs[s][pi]);
    }
    exp_report(ctx, "\n");
  }
  exp_report(ctx, "\n");
  int ii = exp_run_index(ctx, "implicit"), ib = exp_run_index(ctx, "baumgarte");
  if (exp_claim_ready(ctx, "implicit.large_steps")) {
    /* Ratio of largest stable steps; a failure below the grid counts as
       the grid's bottom, a success over the whole grid as its top. */
    double r[NPROB];
    for (int pi = 0; pi < NPROB; pi++) {
      double a = isnan(hs[ii][pi]) ? exp_stable_grid_h(EXP_STABLE_J_MIN) : hs[ii][pi], b = isnan(hs[ib][pi]) ? exp_stable_grid_h(EXP_STABLE_J_MIN) : hs[ib][pi];
      r[pi] = a / b;
    }
    return exp_judge(ctx, "implicit.large_steps",
                     (exp_value[]){{"pendulum", r[0]}, {"chain", r[1]}}, 2,
                     "pendulum: implicit %.3g, Baumgarte %.3g (ratio %.3g); 10-link arm: implicit %.3g, Baumgarte "
                     "%.3g (ratio %.3g)",
                     hs[ii][0], hs[ib][0], r[0], hs[ii][1], hs[ib][1], r[1]);
  }
  return CDYN_OK;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {"stability", "index", "1", "position of the scheme in the run's list"},
  {"stability", "pendulum_h_max", "s", "largest stable h, single pendulum from horizontal"},
  {"stability", "pendulum_h_fail", "s", "first unstable h above it"},
  {"stability", "chain10_h_max", "s", "largest stable h, 10-link arm from horizontal"},
  {"stability", "chain10_h_fail", "s", "first unstable h above it"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_stability = {
  .name = "stability",
  .description = "largest stable step size of every scheme (pendulum and 10-link arm from horizontal)",
  .source = "001 sec III",
  .params = params,
  .columns = columns,
  .schemes = "all",
  .h = 0,
  .steps = 0,
  .run = run,
};
