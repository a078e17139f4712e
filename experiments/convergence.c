/*
 * convergence.c: the convergence-order table of every scheme.
 *
 * For each scheme and each problem of problems.h (pendulum, double
 * pendulum over a short horizon, bead on a circle) the scheme runs to the
 * problem's end time T = 1 s with N = N0, 2 N0, ..., 2^(K-1) N0 steps
 * (h = T/N), and at T it is compared with the problem's reference:
 *   pos_err    max over particles of |x_i - x_ref,i|
 *   vel_err    max over particles of |v_i - v_ref,i|
 *   e_max      largest constraint error e_n over the run
 *   drift      (E(T) - E(0)) / (m g L), the energy drift, relative
 * The fitted order is the least-squares slope of log pos_err against
 * log h over the step sizes whose run was stable (every step succeeded,
 * e_n stayed below 10 % of the length and the energy did not grow by more
 * than 10 % of the releasable energy, stability.c's rules) and whose
 * error is above
 * `floor` (where the references' own error, ~1e-12, and rounding take
 * over).  All three problems have gravity as their only applied force, a
 * constant force, so a scheme's order here is its constant-force order
 * (cdyn_scheme_order_constant_force; tests/test_forces.c measures the
 * general one with a spring).  The local order between the two finest such step sizes is
 * reported beside it.  Every scheme runs with its default options.
 *
 * Outputs: convergence.csv (one row per scheme, problem and h) and
 * orders.csv (one row per scheme and problem), plus the table in the
 * report.  Deterministic.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "problems.h"

static const exp_param params[] = {
  {"n0", "25", EXP_INT, 1, 1e6, 0, "steps over T of the coarsest run"},
  {"levels", "7", EXP_INT, 2, 12, 0, "number of step sizes (each half the previous)"},
  {"floor", "1e-10", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX,
   "position errors below this are left out of the fit (reference and rounding level)"},
  EXP_PARAMS_END};

#define NPROB 3
#define MAX_LEVELS 12
#define MAX_N 16

static const exp_problem *const problems[NPROB] = {&exp_problem_pendulum, &exp_problem_double,
                                                   &exp_problem_bead};

typedef struct {
  double fitted, local, err_coarse, err_fine, emax_fine, drift_fine;
  int used;
} order_row;

static int run(exp_ctx *ctx)
{
  double floor_err;
  int rc;
  exp_param_double(ctx, "floor", &floor_err);
  long n0 = exp_param_long(ctx, "n0");
  int levels = (int)exp_param_long(ctx, "levels");
  exp_csv csv, ocsv;
  if ((rc = exp_csv_open(ctx, &csv, "convergence",
                         "scheme,problem,h,steps,status,pos_err,vel_err,e_max,e_end,drift,max_energy_err", NULL,
                         "\"note\": \"errors at the problem's end time T against its reference; drift and "
                         "max_energy_err relative to m g L; status 0 or the cdyn status of the failed step\"")))
    return rc;
  static order_row orow[EXP_MAX_RUNS][NPROB];
  double q[3 * MAX_N], v[3 * MAX_N], qr[3 * MAX_N], vr[3 * MAX_N];
  for (int s = 0; s < ctx->nruns && !rc; s++)
    for (int pi = 0; pi < NPROB && !rc; pi++) {
      const exp_problem *p = problems[pi];
      double hs[MAX_LEVELS], err[MAX_LEVELS], emax[MAX_LEVELS], drift[MAX_LEVELS];
      int ok[MAX_LEVELS];
      if ((rc = p->reference(p->T, qr, vr)))
        break;
      for (int k = 0; k < levels && !rc; k++) {
        long N = n0 << k;
        double h = p->T / (double)N;
        exp_problem_result r;
        if ((rc = exp_problem_run(ctx, p, &ctx->runs[s], NULL, h, N, 0.1 * p->length,
                                   0.1 * p->energy_range, &r, q, v)))
          break;
        /* A run that fails a step or breaks the stability rules of
           stability.c (e_n above 10 % of the length, energy gained above
           10 % of what gravity can release) is unstable at this h; its
           errors are recorded as missing and it is not in the fit. */
        int done = r.status == CDYN_OK && !r.stopped && r.steps == N;
        hs[k] = h;
        err[k] = done ? exp_max_dist(q, qr, p->n) : NAN;
        emax[k] = done ? r.emax : NAN;
        drift[k] = done ? (r.Eend - r.E0) / p->energy_scale : NAN;
        ok[k] = done && err[k] > floor_err;
        double row[9] = {h, (double)N, (double)r.status, err[k], done ? exp_max_dist(v, vr, p->n) : NAN,
                         emax[k], done ? r.eend : NAN, drift[k], done ? r.dEmax / p->energy_scale : NAN};
        const char *labels[2] = {ctx->runs[s].name, p->name};
        rc = exp_csv_row_labels(&csv, labels, 2, row, 9);
      }
      if (rc)
        break;
      order_row *o = &orow[s][pi];
      o->fitted = exp_fit_slope(hs, err, ok, levels, &o->used);
      int f1 = -1, f2 = -1;
      for (int k = 0; k < levels; k++)
        if (ok[k]) {
          f2 = f1;
          f1 = k;
        }
      o->local = f2 >= 0 ? log(err[f2] / err[f1]) / log(hs[f2] / hs[f1]) : NAN;
      o->err_coarse = err[0];
      o->err_fine = err[levels - 1];
      o->emax_fine = emax[levels - 1];
      o->drift_fine = drift[levels - 1];
      printf("  %-16s %-9s fitted order %6.3f (local %6.3f, %d points)  err %.3e .. %.3e\n", ctx->runs[s].name,
             p->name, o->fitted, o->local, o->used, o->err_coarse, o->err_fine);
    }
  int crc = exp_csv_close(&csv, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;
  if ((rc = exp_csv_open(ctx, &ocsv, "orders",
                         "scheme,problem,declared_order,declared_order_constant_force,fitted_order,local_order,"
                         "points,err_coarse,err_fine,"
                         "e_max_fine,drift_fine",
                         NULL, "\"note\": \"fitted_order: least-squares slope of log pos_err against log h\"")))
    return rc;
  for (int s = 0; s < ctx->nruns && !rc; s++) {
    size_t idx;
    cdyn_scheme_find(ctx->runs[s].scheme, &idx);
    for (int pi = 0; pi < NPROB && !rc; pi++) {
      const order_row *o = &orow[s][pi];
      const char *labels[2] = {ctx->runs[s].name, problems[pi]->name};
      double row[9] = {cdyn_scheme_order(idx), cdyn_scheme_order_constant_force(idx), o->fitted, o->local,
                       (double)o->used, o->err_coarse, o->err_fine, o->emax_fine, o->drift_fine};
      rc = exp_csv_row_labels(&ocsv, labels, 2, row, 9);
    }
  }
  crc = exp_csv_close(&ocsv, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;
  exp_report(ctx,
             "Convergence to the references at T = 1 s, %d step sizes h = 1/%ld .. 1/%ld (fitted order of the "
             "position error; at the finest h: largest constraint error e_n and energy drift (E(T) - E(0))/(m g "
             "L)):\n\n"
             "| scheme | declared | pendulum | double | bead | e_n max (pendulum) | drift (pendulum) |\n"
             "|---|---|---|---|---|---|---|\n",
             levels, n0, n0 << (levels - 1));
  for (int s = 0; s < ctx->nruns; s++) {
    size_t idx;
    cdyn_scheme_find(ctx->runs[s].scheme, &idx);
    if (cdyn_scheme_order_constant_force(idx) != cdyn_scheme_order(idx))
      exp_report(ctx, "| %s | %g (%g with constant force) |", ctx->runs[s].name, cdyn_scheme_order(idx),
                 cdyn_scheme_order_constant_force(idx));
    else
      exp_report(ctx, "| %s | %g |", ctx->runs[s].name, cdyn_scheme_order(idx));
    for (int pi = 0; pi < NPROB; pi++)
      exp_report(ctx, " %.2f |", orow[s][pi].fitted);
    exp_report(ctx, " %.2e | %.2e |\n", orow[s][0].emax_fine, orow[s][0].drift_fine);
  }
  exp_report(ctx, "\n");
  return CDYN_OK;
}

const cdyn_experiment cdyn_experiment_convergence = {
  .name = "convergence",
  .description = "convergence order of every scheme against references (pendulum, double pendulum, bead)",
  .source = "verification (schemes.md)",
  .params = params,
  .schemes = "all",
  .h = 0,
  .steps = 0,
  .run = run,
};
