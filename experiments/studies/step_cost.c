/*
 * step_cost.c: step-cost, the cost per step of each scheme on planar chains
 * (for implicit.same_cost, 001 sec III: implicit solves the same matrix
 * A = J W J^T as Baumgarte, once per step; and improved.small_extra_cost,
 * 000 sec 5: the midpoint scheme adds one Jacobian evaluation at q_1/2 and
 * one product with its transpose to the first-order implicit step).
 *
 * For chains of 2, 10 and 100 links (node 0 pinned, hanging straight down
 * and swinging as a rigid body at 0.5 rad/s, a consistent state every
 * scheme can step) each scheme is timed with CLOCK_MONOTONIC: after ten
 * steps, steps are run in batches of at least `batch_s` seconds of
 * stepping, `trials` times, and the fastest batch gives the time per step
 * (the minimum is the estimate least disturbed by other load).  At each
 * chain size the schemes take their batches in turn (a round: one batch
 * of each, in the runs' order, the next round in the reverse order), so
 * that a slow phase of the machine lasting a second or two falls on every
 * scheme's batches alike rather than on one scheme's five, and the ratios
 * the claims take compare batches timed close together.  The runner
 * times each step's call alone; its measurements between the steps are
 * outside the time.  The counted work per step
 * (linear solves, assemblies) is deterministic; the times are not, and
 * this is the one experiment whose CSV changes from run to run.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runner/experiment.h"

static const exp_param params[] = {
  {"trials", "5", EXP_INT, 1, 100, 0, "timed batches per scheme and chain (the fastest counts)"},
  {"batch_s", "0.04", EXP_REAL, 0, 10, EXP_OPEN_MIN, "minimum duration of a timed batch (s)"},
  EXP_PARAMS_END};

static int build_chain(size_t links, cdyn_system **out)
{
  cdyn_system *sys;
  int rc = cdyn_system_new(&sys, links + 1);
  if (rc)
    return rc;
  double g[3] = {0, -9.81, 0}, o[3] = {0, 0, 0};
  rc = cdyn_system_set_gravity(sys, g);
  for (size_t i = 0; i <= links && !rc; i++) {
    /* v = w x r for w = 0.5 about z: J v = 0 on every link. */
    double x[3] = {0, -(double)i, 0}, v[3] = {0.5 * (double)i, 0, 0};
    rc = cdyn_system_set_position(sys, i, x);
    if (!rc)
      rc = cdyn_system_set_velocity(sys, i, v);
  }
  if (!rc)
    rc = cdyn_system_add_pin(sys, 0, o, NULL);
  for (size_t i = 0; i < links && !rc; i++)
    rc = cdyn_system_add_distance(sys, i, i + 1, 1.0, NULL);
  if (rc) {
    cdyn_system_free(sys);
    return rc;
  }
  *out = sys;
  return CDYN_OK;
}

/* A timed batch ends once its steps have taken batch_s seconds. */
static int batch_done(void *octx, const exp_state *s)
{
  return s->elapsed >= *(const double *)octx;
}

#define NSIZES 3
static const size_t sizes[NSIZES] = {2, 10, 100};

static int run(exp_ctx *ctx)
{
  double batch_s;
  int rc;
  exp_param_double(ctx, "batch_s", &batch_s);
  int trials = (int)exp_param_long(ctx, "trials");
  exp_csv csv;
  if ((rc = exp_csv_open(ctx, &csv, "step-cost", "scheme,links,rows,solves_per_step,assemblies_per_step,us_per_step",
                         NULL, "\"note\": \"us_per_step is wall-clock time and varies between runs\"")))
    return rc;
  static double us[EXP_MAX_RUNS][NSIZES];
  static double solves[EXP_MAX_RUNS][NSIZES];
  static double rows[EXP_MAX_RUNS][NSIZES], assemblies[EXP_MAX_RUNS][NSIZES];
  static cdyn_system *sys[EXP_MAX_RUNS];
  static cdyn_stepper *st[EXP_MAX_RUNS];
  int nr = ctx->nruns;
  for (int z = 0; z < NSIZES && !rc; z++) {
    /* Every scheme's chain and stepper, and its ten measured steps
       before the timing (what `cdyn export` writes of the run). */
    static int src[EXP_MAX_RUNS]; /* the run's status: < 0 ends the experiment, > 0 (recoverable) does not */
    static double best[EXP_MAX_RUNS];
    for (int s = 0; s < nr; s++)
      sys[s] = NULL, st[s] = NULL, best[s] = INFINITY, src[s] = CDYN_OK;
    for (int s = 0; s < nr && !rc; s++) {
      exp_outcome out;
      if ((rc = build_chain(sizes[z], &sys[s])) || (rc = exp_stepper_run(ctx, sys[s], &ctx->runs[s], NULL, &st[s])))
        break;
      if (!(rc = exp_simulate(sys[s], st[s], ctx->h, 10, NULL, NULL, NULL, &out)) && out.end == EXP_END_FAILED_STEP)
        src[s] = out.status;
      if (src[s] < 0)
        rc = src[s];
    }
    /* The timed batches, which continue each run: `trials` rounds, each a
       batch of every scheme, in the runs' order and then in reverse. */
    for (int tr = 0; tr < trials && !rc; tr++)
      for (int q = 0; q < nr && !rc; q++) {
        int s = tr % 2 ? nr - 1 - q : q;
        if (src[s] < 0)
          continue;
        exp_outcome out;
        exp_sim sim = {.sys = sys[s], .st = st[s], .h = ctx->h, .steps = 100000000L, .obs = batch_done,
                       .octx = &batch_s, .continued = 1};
        if ((rc = exp_simulate_with(&sim, &out)))
          break;
        long count = out.end == EXP_END_FAILED_STEP ? out.end_step : out.steps;
        double per = out.elapsed / (double)(count > 0 ? count : 1);
        if (per < best[s])
          best[s] = per;
        if (out.end == EXP_END_FAILED_STEP)
          src[s] = out.status;
        if (src[s] < 0)
          rc = src[s];
      }
    /* (A recoverable solve status does not spoil the timing.) */
    for (int s = 0; s < nr; s++) {
      if (!rc) {
        cdyn_stats stt;
        cdyn_stepper_stats(st[s], &stt);
        us[s][z] = 1e6 * best[s];
        solves[s][z] = (double)stt.solves / (double)stt.steps;
        assemblies[s][z] = (double)stt.assemblies / (double)stt.steps;
        rows[s][z] = (double)cdyn_system_row_count(sys[s]);
      }
      cdyn_stepper_free(st[s]);
      cdyn_system_free(sys[s]);
    }
  }
  /* The rows by scheme, then chain. */
  for (int s = 0; s < nr && !rc; s++)
    for (int z = 0; z < NSIZES && !rc; z++) {
      double v[5] = {(double)sizes[z], rows[s][z], solves[s][z], assemblies[s][z], us[s][z]};
      rc = exp_csv_row_labeled(&csv, ctx->runs[s].name, v, 5);
      printf("  %-16s links %-4zu %8.2f us/step  %.2f solves/step\n", ctx->runs[s].name, sizes[z], us[s][z],
             solves[s][z]);
    }
  int crc = exp_csv_close(&csv, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;
  exp_report(ctx, "Time per step (microseconds, fastest of %d batches; wall clock, varies between runs):\n\n"
                  "| scheme | solves/step |", trials);
  for (int z = 0; z < NSIZES; z++)
    exp_report(ctx, " %zu links |", sizes[z]);
  exp_report(ctx, "\n|---|---|---|---|---|\n");
  for (int s = 0; s < ctx->nruns; s++) {
    exp_report(ctx, "| %s | %.0f |", ctx->runs[s].name, solves[s][NSIZES - 1]);
    for (int z = 0; z < NSIZES; z++)
      exp_report(ctx, " %.1f |", us[s][z]);
    exp_report(ctx, "\n");
  }
  exp_report(ctx, "\n");
  int ib = exp_run_index(ctx, "baumgarte"), ii = exp_run_index(ctx, "implicit"), im = exp_run_index(ctx, "improved");
  const int z = NSIZES - 1;
  if (exp_claim_ready(ctx, "implicit.same_cost")) {
    double r = us[ii][z] / us[ib][z];
    rc = exp_judge(ctx, "implicit.same_cost", (exp_value[]){{"ratio", r}}, 1,
                   "both do %.0f and %.0f linear solves per step; ratios at 2 and 10 links %.2f and %.2f; wall-clock "
                   "time, so the measured value varies between runs",
                   solves[ii][z], solves[ib][z], us[ii][0] / us[ib][0], us[ii][1] / us[ib][1]);
  }
  if (!rc && exp_claim_ready(ctx, "improved.small_extra_cost")) {
    double r = us[im][z] / us[ii][z];
    rc = exp_judge(ctx, "improved.small_extra_cost", (exp_value[]){{"ratio", r}}, 1,
                   "%.0f and %.0f linear solves per step; ratios at 2 and 10 links %.2f and %.2f; wall-clock "
                   "time, so the measured value varies between runs",
                   solves[im][z], solves[ii][z], us[im][0] / us[ii][0], us[im][1] / us[ii][1]);
  }
  return rc;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "links", "1", "links of the chain"},
  {NULL, "rows", "1", "constraint rows"},
  {NULL, "solves_per_step", "1", "linear solves per step"},
  {NULL, "assemblies_per_step", "1", "assemblies of A per step"},
  {NULL, "us_per_step", "us", "wall-clock time per step, the fastest batch"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_step_cost = {
  .name = "step-cost",
  .description = "time per step of each scheme on chains of 2, 10 and 100 links",
  .source = "001 sec III",
  .params = params,
  .columns = columns,
  .schemes = "all",
  .h = 0.001,
  .steps = 0,
  .run = run,
};
