/*
 * stability.c: the largest stable step size of every scheme
 * (implicit.large_steps, 001 sec III: implicit enforcement stays stable at
 * step sizes where explicit Baumgarte does not).
 *
 * Problems (problems.h): the single pendulum and a 10-link arm, both
 * released at rest from horizontal (the papers' arms), run for T = 10 s.
 *
 * A run at step size h is stable when, over the whole of T, the chosen
 * rules (fixed before any measurement) hold:
 *   - every step succeeds (no failed or non-finite step, no CDYN_NOCONV:
 *     a scheme that could not solve its own equations did not step);
 *   - the constraint error stays bounded: e_n <= 0.1 x the total length
 *     of the links (a link off by 10 % is no longer that mechanism);
 *   - the scheme does not create energy: E - E(0) <= 0.1 x the energy
 *     gravity can release (E(0) - min E), since the exact motion keeps E
 *     constant and dissipation is allowed.
 * Step sizes form the geometric grid h_j = 1e-3 2^(j/4) (steps of 19 %),
 * j from -13 (1.2e-4) to 36 (0.5).  The search starts at 1e-3, goes down
 * until a stable h is found (or the grid ends: "below 1.2e-4"), then up
 * until the first unstable h.  The largest stable h reported is the last
 * stable one before that first failure: a scheme that would be stable
 * again at some larger h is not credited with it.
 *
 * exp_largest_stable_h is shared with the stiff-pendulum experiment, and
 * the search itself (exp_stable_search, any probe, any start on the grid)
 * with chain-scale-stability.
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

#define J_MIN (-13)
#define J_MAX 36

double exp_stable_grid_h(int j) { return 1e-3 * pow(2.0, j / 4.0); }
static double grid_h(int j) { return exp_stable_grid_h(j); }

/* The state of one search of a problem of problems.h. */
typedef struct {
  exp_ctx *ctx;
  const exp_problem *p;
  const exp_runspec *run;
  const char *const *extra;
  double err_frac, energy_frac;
  exp_csv *log;
} problem_probe;

/* One probe: run to p->T at h and judge it. */
static int probe(void *pctx, double h, int *stable)
{
  problem_probe *pp = pctx;
  const exp_problem *p = pp->p;
  long N = (long)ceil(p->T / h - 1e-9);
  exp_problem_result r;
  double emax_stop = pp->err_frac * p->length, dE_stop = pp->energy_frac * p->energy_range;
  int rc = exp_problem_run(pp->ctx, p, pp->run, pp->extra, h, N, emax_stop, dE_stop, &r, NULL, NULL);
  if (rc)
    return rc;
  *stable = r.status == CDYN_OK && !r.stopped && r.noconv == 0 && r.steps == N;
  if (pp->log) {
    const char *labels[2] = {pp->run->name, p->name};
    double row[7] = {h, (double)*stable, (double)r.status, (double)r.steps, r.emax, r.Eend - r.E0,
                     (double)r.noconv};
    rc = exp_csv_row_labels(pp->log, labels, 2, row, 7);
  }
  return rc;
}

int exp_stable_search(exp_stable_probe probe_h, void *pctx, int j_start, double *h_stable, double *h_unstable)
{
  int j = j_start < J_MIN ? J_MIN : j_start > J_MAX ? J_MAX : j_start, stable, rc;
  if ((rc = probe_h(pctx, grid_h(j), &stable)))
    return rc;
  int went_down = 0;
  while (!stable && j > J_MIN) {
    j--;
    went_down = 1;
    if ((rc = probe_h(pctx, grid_h(j), &stable)))
      return rc;
  }
  if (!stable) {
    *h_stable = NAN; /* below the grid */
    *h_unstable = grid_h(j);
    return CDYN_OK;
  }
  /* Going down ended at the first stable h; going up, the first failure. */
  if (went_down) {
    *h_stable = grid_h(j);
    *h_unstable = grid_h(j + 1);
    return CDYN_OK;
  }
  while (j < J_MAX) {
    if ((rc = probe_h(pctx, grid_h(j + 1), &stable)))
      return rc;
    if (!stable)
      break;
    j++;
  }
  *h_stable = grid_h(j);
  *h_unstable = j < J_MAX ? grid_h(j + 1) : NAN;
  return CDYN_OK;
}

int exp_largest_stable_h(exp_ctx *ctx, const exp_problem *p, const exp_runspec *run, const char *const *extra,
                         double err_frac, double energy_frac, exp_csv *log, double *h_stable,
                         double *h_unstable)
{
  problem_probe pp = {ctx, p, run, extra, err_frac, energy_frac, log};
  return exp_stable_search(probe, &pp, 0, h_stable, h_unstable);
}

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
      double a = isnan(hs[ii][pi]) ? grid_h(J_MIN) : hs[ii][pi], b = isnan(hs[ib][pi]) ? grid_h(J_MIN) : hs[ib][pi];
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
