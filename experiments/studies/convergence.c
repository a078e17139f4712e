/*
 * convergence.c: the convergence-order table of every scheme, in
 * position, velocity and multiplier.
 *
 * For each scheme and each problem of problems.h (pendulum, double
 * pendulum over a short horizon, bead on a circle, bead on a spinning
 * hoop) the scheme runs to the problem's end time T = 1 s with N = N0,
 * 2 N0, ..., 2^(K-1) N0 steps (h = T/N), and is compared with the
 * problem's reference:
 *   pos_err    max over particles of |x_i - x_ref,i| at T
 *   vel_err    max over particles of |v_i - v_ref,i| at T
 *   lam_err    max over rows of |lambda_r - lambda_ref,r| (N), the
 *              multipliers of the last step against the exact constraint
 *              force at the time they belong to, lam_t = T - h + tau h
 *              with tau = 0, 1/2 or 1 as the scheme declares for the
 *              run's options (cdyn_stepper_lambda_time: the step's
 *              start, midpoint or end)
 *   e_max      largest constraint error e_n over the run
 *   drift      (E(T) - E(0)) / (m g L), the energy drift, relative
 * The fitted order of each error is the least-squares slope of its log
 * against log h over the step sizes whose run was stable (every step
 * succeeded, e_n stayed below 10 % of the length and the energy did not
 * grow by more than 10 % of the problem's energy_range, problems/stable_search.c's
 * rules) and whose error is above `floor` (positions and velocities) or
 * `lambda_floor` (multipliers), where the references' own error (~1e-12)
 * and rounding take over.  All four problems have gravity as their only
 * applied force, a constant force, so a scheme's order here is its
 * constant-force order (cdyn_scheme_order_constant_force;
 * tests/test_forces.c measures the general one with a spring).  The local
 * order of the position between the two finest such step sizes is
 * reported beside it.  Every scheme runs with its default options, and
 * "poststab-pv" is post-stabilisation with the velocity projection as
 * well (001 projects positions only).
 *
 * A scheme whose lambda is not the constraint force (it declares a
 * lambda_note: a penalty spring's force, a half-step multiplier) still
 * has its error measured and fitted, but is marked lambda_force = 0 in
 * orders.csv, and the report gives the note beside its measured error.
 *
 * Outputs: convergence.csv (one row per scheme, problem and h) and
 * orders.csv (one row per scheme and problem), plus the table in the
 * report.  Deterministic.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"
#include "problems/problems.h"

static const exp_param params[] = {
  {"n0", "25", EXP_INT, 1, 1e6, 0, "steps over T of the coarsest run"},
  {"levels", "7", EXP_INT, 2, 12, 0, "number of step sizes (each half the previous)"},
  {"floor", "1e-10", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX,
   "position and velocity errors below this are left out of the fit (reference and rounding level)"},
  {"lambda_floor", "1e-8", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX,
   "multiplier errors (N) below this are left out of the fit (reference and rounding level)"},
  EXP_PARAMS_END};


#define NPROB 4
#define MAX_LEVELS 12
#define MAX_N 16
#define MAX_M 16

static const exp_problem *const problems[NPROB] = {&exp_problem_pendulum, &exp_problem_double, &exp_problem_bead,
                                                   &exp_problem_hoop};

typedef struct {
  double fitted, local, err_coarse, err_fine, emax_fine, drift_fine;
  double vfitted, lfitted, lerr_fine;
  int used, vused, lused;
  int lambda_time; /* of the run's stepper, with its options */
} order_row;

/* The fraction of the step at which multipliers of time t apply. */
static double time_fraction(int t)
{
  switch (t) {
  case CDYN_LAMBDA_MID:
    return 0.5;
  case CDYN_LAMBDA_END:
    return 1.0;
  default:
    return 0.0;
  }
}

static const char *lambda_time_name(int t)
{
  static const char *const names[] = {"start", "mid", "end"};
  return t >= 0 && t <= 2 ? names[t] : "?";
}

static int run(exp_ctx *ctx)
{
  double floor_err, lambda_floor;
  int rc;
  exp_param_double(ctx, "floor", &floor_err);
  exp_param_double(ctx, "lambda_floor", &lambda_floor);
  long n0 = exp_param_long(ctx, "n0");
  int levels = (int)exp_param_long(ctx, "levels");
  exp_csv csv, ocsv;
  if ((rc = exp_csv_open(ctx, &csv, "convergence",
                         "scheme,problem,h,steps,status,pos_err,vel_err,e_max,e_end,drift,max_energy_err,lam_err,"
                         "lam_t",
                         NULL,
                         "\"note\": \"errors at the problem's end time T against its reference; drift and "
                         "max_energy_err relative to m g L; status 0 or the cdyn status of the failed step; lam_err "
                         "(N): the last step's multipliers against the exact constraint force at lam_t, the time "
                         "within the last step that the scheme's multipliers belong to\"")))
    return rc;
  static order_row orow[EXP_MAX_RUNS][NPROB];
  double q[3 * MAX_N], v[3 * MAX_N], qr[3 * MAX_N], vr[3 * MAX_N];
  double lam_ref[MAX_M];
  for (int s = 0; s < ctx->nruns && !rc; s++)
    for (int pi = 0; pi < NPROB && !rc; pi++) {
      const exp_problem *p = problems[pi];
      double hs[MAX_LEVELS], err[MAX_LEVELS], emax[MAX_LEVELS], drift[MAX_LEVELS], verr[MAX_LEVELS],
        lerr[MAX_LEVELS];
      int ok[MAX_LEVELS], vok[MAX_LEVELS], lok[MAX_LEVELS];
      size_t idx;
      if ((rc = cdyn_scheme_find(ctx->runs[s].scheme, &idx)))
        break;
      int lambda_time = cdyn_scheme_lambda_time(idx);
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
           problems/stable_search.c (e_n above 10 % of the length, energy gained above
           10 % of the problem's energy_range) is unstable at this h; its
           errors are recorded as missing and it is not in the fit. */
        int done = r.status == CDYN_OK && !r.stopped && r.steps == N;
        /* The time the last step's multipliers belong to, with the run's
           options (an integrator option can move it). */
        if (r.steps > 0)
          lambda_time = r.lambda_time;
        double lt = p->T - h + time_fraction(lambda_time) * h;
        if (done && (rc = p->multipliers(lt, lam_ref)))
          break;
        hs[k] = h;
        err[k] = done ? exp_max_dist(q, qr, p->n) : NAN;
        verr[k] = done ? exp_max_dist(v, vr, p->n) : NAN;
        lerr[k] = NAN;
        if (done && r.m == p->m) {
          lerr[k] = 0;
          for (size_t j = 0; j < p->m; j++)
            lerr[k] = fmax(lerr[k], fabs(r.lambda[j] - lam_ref[j]));
        }
        emax[k] = done ? r.emax : NAN;
        drift[k] = done ? (r.Eend - r.E0) / p->energy_scale : NAN;
        ok[k] = done && err[k] > floor_err;
        vok[k] = done && verr[k] > floor_err;
        lok[k] = done && lerr[k] > lambda_floor;
        double row[11] = {h,        (double)N,         (double)r.status, err[k],
                          verr[k],  emax[k],           done ? r.eend : NAN,
                          drift[k], done ? r.dEmax / p->energy_scale : NAN,
                          lerr[k],  lt};
        const char *labels[2] = {ctx->runs[s].name, p->name};
        rc = exp_csv_row_labels(&csv, labels, 2, row, 11);
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
      o->vfitted = exp_fit_slope(hs, verr, vok, levels, &o->vused);
      o->lfitted = exp_fit_slope(hs, lerr, lok, levels, &o->lused);
      o->lerr_fine = lerr[levels - 1];
      o->lambda_time = lambda_time;
      printf("  %-16s %-9s fitted order q %6.3f (local %6.3f, %d points)  v %6.3f  lambda %6.3f  err %.3e .. %.3e\n",
             ctx->runs[s].name, p->name, o->fitted, o->local, o->used, o->vfitted, o->lfitted, o->err_coarse,
             o->err_fine);
    }
  int crc = exp_csv_close(&csv, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;
  if ((rc = exp_csv_open(ctx, &ocsv, "orders",
                         "scheme,problem,declared_order,declared_order_constant_force,fitted_order,local_order,"
                         "points,err_coarse,err_fine,"
                         "e_max_fine,drift_fine,declared_velocity_order,fitted_velocity_order,velocity_points,"
                         "declared_lambda_order,lambda_time,lambda_force,fitted_lambda_order,lambda_points,"
                         "lambda_err_fine",
                         NULL,
                         "\"note\": \"fitted orders: least-squares slopes of log pos_err, vel_err and lam_err "
                         "against log h; declared_velocity_order is the constant-force one (-1: does not converge in general); lambda_time: the "
                         "fraction of the step at which the multipliers apply (0 start, 0.5 midpoint, 1 end); "
                         "lambda_force 0: the scheme declares that its multipliers are not the constraint force "
                         "(cdyn list SCHEME says what they are); declared_lambda_order 0: not declared\"")))
    return rc;
  for (int s = 0; s < ctx->nruns && !rc; s++) {
    size_t idx;
    if ((rc = cdyn_scheme_find(ctx->runs[s].scheme, &idx)))
      break;
    for (int pi = 0; pi < NPROB && !rc; pi++) {
      const order_row *o = &orow[s][pi];
      const char *labels[2] = {ctx->runs[s].name, problems[pi]->name};
      double row[18] = {cdyn_scheme_order(idx),
                        cdyn_scheme_order_constant_force(idx),
                        o->fitted,
                        o->local,
                        (double)o->used,
                        o->err_coarse,
                        o->err_fine,
                        o->emax_fine,
                        o->drift_fine,
                        cdyn_scheme_velocity_order_constant_force(idx),
                        o->vfitted,
                        (double)o->vused,
                        cdyn_scheme_lambda_order(idx),
                        time_fraction(o->lambda_time),
                        cdyn_scheme_lambda_note(idx) ? 0.0 : 1.0,
                        o->lfitted,
                        (double)o->lused,
                        o->lerr_fine};
      rc = exp_csv_row_labels(&ocsv, labels, 2, row, 18);
    }
  }
  crc = exp_csv_close(&ocsv, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;
  exp_report(ctx,
             "Convergence to the references at T = 1 s, %d step sizes h = 1/%ld .. 1/%ld: fitted orders of the "
             "position, velocity and multiplier errors (q / v / lambda), against the declared ones (lambda "
             "compared at the time within the last step given in brackets; \"-\": not declared). The hoop "
             "spins (its constraint moves with time).\n\n"
             "| scheme | declared q / v / lambda | pendulum | double | bead | hoop | e_n max (pendulum) | drift "
             "(pendulum) |\n"
             "|---|---|---|---|---|---|---|---|\n",
             levels, n0, n0 << (levels - 1));
  for (int s = 0; s < ctx->nruns; s++) {
    size_t idx;
    if (cdyn_scheme_find(ctx->runs[s].scheme, &idx))
      continue; /* found above */
    char lo[32];
    if (cdyn_scheme_lambda_note(idx))
      snprintf(lo, sizeof lo, "not a force");
    else if (cdyn_scheme_lambda_order(idx) > 0)
      snprintf(lo, sizeof lo, "%g", cdyn_scheme_lambda_order(idx));
    else
      snprintf(lo, sizeof lo, "-");
    char vo[32];
    if (cdyn_scheme_velocity_order_constant_force(idx) == CDYN_ORDER_NONE)
      snprintf(vo, sizeof vo, "none");
    else
      snprintf(vo, sizeof vo, "%g", cdyn_scheme_velocity_order_constant_force(idx));
    exp_report(ctx, "| %s | %g / %s / %s (%s) |", ctx->runs[s].name, cdyn_scheme_order_constant_force(idx), vo, lo,
               lambda_time_name(orow[s][0].lambda_time));
    for (int pi = 0; pi < NPROB; pi++) {
      char a[32], b[32], c[32];
      exp_report(ctx, " %s / %s / %s |", exp_num(a, sizeof a, "%.2f", orow[s][pi].fitted, "no fit"),
                 exp_num(b, sizeof b, "%.2f", orow[s][pi].vfitted, "no fit"),
                 exp_num(c, sizeof c, "%.2f", orow[s][pi].lfitted, "no fit"));
    }
    char a[32], b[32];
    exp_report(ctx, " %s | %s |\n", exp_num(a, sizeof a, "%.2e", orow[s][0].emax_fine, "unstable"),
               exp_num(b, sizeof b, "%.2e", orow[s][0].drift_fine, "unstable"));
  }
  exp_report(ctx, "\n\"no fit\": fewer than two step sizes at which the run is stable and its error above the "
                  "rounding floor.\n");
  exp_report(ctx, "\nMultiplier errors at the finest h (N), and what a scheme's multipliers are where they are not "
                  "the constraint force:\n\n| scheme | pendulum | double | bead | hoop | note |\n"
                  "|---|---|---|---|---|---|\n");
  for (int s = 0; s < ctx->nruns; s++) {
    size_t idx;
    if (cdyn_scheme_find(ctx->runs[s].scheme, &idx))
      continue; /* found above */
    exp_report(ctx, "| %s |", ctx->runs[s].name);
    for (int pi = 0; pi < NPROB; pi++) {
      char a[32];
      exp_report(ctx, " %s |", exp_num(a, sizeof a, "%.2e", orow[s][pi].lerr_fine, "none"));
    }
    exp_report(ctx, " %s |\n", cdyn_scheme_lambda_note(idx) ? cdyn_scheme_lambda_note(idx) : "");
  }
  exp_report(ctx, "\n\"none\": the run at the finest h was unstable or gave no multiplier per constraint.\n\n");
  return CDYN_OK;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {"convergence", "pos_err", "m", "largest node distance from the reference at T"},
  {"convergence", "vel_err", "m/s", "largest node velocity difference from the reference at T"},
  {"convergence", "drift", "1", "(E(T) - E(0)) / (m g L)"},
  {"convergence", "max_energy_err", "1", "largest |E - E(0)| / (m g L) over the run"},
  {"convergence", "lam_err", "N",
   "largest multiplier difference from the exact constraint force at lam_t, over the rows"},
  {"convergence", "lam_t", "s", "the time within the last step that the scheme's multipliers belong to"},
  {"orders", "declared_order", "1", "the scheme's declared order"},
  {"orders", "declared_order_constant_force", "1", "its declared order under a constant force"},
  {"orders", "fitted_order", "1", "least-squares slope of log pos_err against log h"},
  {"orders", "local_order", "1", "slope between the two finest fitted step sizes"},
  {"orders", "points", "1", "step sizes in the fit"},
  {"orders", "err_coarse", "m", "pos_err at the coarsest h"},
  {"orders", "err_fine", "m", "pos_err at the finest h"},
  {"orders", "e_max_fine", "m", "largest e_n at the finest h"},
  {"orders", "drift_fine", "1", "drift at the finest h"},
  {"orders", "declared_velocity_order", "1", "the scheme's declared velocity order under a constant force"},
  {"orders", "fitted_velocity_order", "1", "least-squares slope of log vel_err against log h"},
  {"orders", "velocity_points", "1", "step sizes in the velocity fit"},
  {"orders", "declared_lambda_order", "1", "the scheme's declared multiplier order (0: not declared)"},
  {"orders", "lambda_time", "1", "fraction of the step at which the multipliers apply (0, 0.5, 1)"},
  {"orders", "lambda_force", "1", "1: the multipliers are the constraint force; 0: the scheme says they are not"},
  {"orders", "fitted_lambda_order", "1", "least-squares slope of log lam_err against log h"},
  {"orders", "lambda_points", "1", "step sizes in the multiplier fit"},
  {"orders", "lambda_err_fine", "N", "lam_err at the finest h"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_convergence = {
  .name = "convergence",
  .description = "convergence order of every scheme in position, velocity and multiplier against references "
                 "(pendulum, double pendulum, bead, spinning hoop)",
  .source = "verification (doc/schemes.md)",
  .params = params,
  .columns = columns,
  .schemes = "all",
  .companions = exp_poststab_pv_companions,
  .h = 0,
  .steps = 0,
  .run = run,
};
