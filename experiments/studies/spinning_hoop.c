/*
 * spinning_hoop.c: spinning-hoop, a constraint that moves with time, with its
 * relative equilibrium and small-oscillation frequency known in closed
 * form.
 *
 * A bead of 1 kg on a hoop of radius R = 1 m spinning about its vertical
 * diameter at omega = sqrt(2 g / R) (the "hoop" constraint type: the
 * hoop's plane turns, Phi_t != 0).  In the bead's angle theta from the
 * downward vertical (reference/hoop.c derives it)
 *   theta'' = sin theta (omega^2 cos theta - g / R),
 * whose relative equilibrium off the axis is cos theta* = g / (omega^2 R)
 * = 1/2, theta* = pi/3, and small oscillations about it have the
 * frequency Omega = omega sin theta* = sqrt(3 g / 2) (period 1.638 s).
 * The bead is released at theta* + delta at rest relative to the hoop
 * (its inertial velocity is the hoop's, omega R sin theta across the
 * hoop's plane) and runs for `steps` steps of h, then of h/2, h/4, ...
 * (`levels` step sizes, the same duration).
 *
 * Measured at every step, with theta = atan2(x . e(t), -y) in the hoop's
 * plane at t, against the same measures of the reference solution
 * (rk8pd at 1e-13, sampled at the same times):
 *   period     the mean time between upward crossings of theta*, over
 *              the run; freq_err = period_ref / period - 1, the relative
 *              error of the oscillation frequency (the reference's
 *              period differs from 2 pi / Omega by the finite amplitude,
 *              O(delta^2); both are reported)
 *   centre     the mean of theta - theta* between the first and last
 *              crossing (the reference's is O(delta^2) off zero)
 *   amplitude  the largest |theta - theta*| over the last period, over
 *              the first: 1 for the exact motion; below 1 a scheme damps
 *              the oscillation, above 1 it pumps it
 *   max_dev    the largest |theta - theta*| over the run; the bead has
 *              left its relative equilibrium when this exceeds 5 delta
 *   u_max      the largest normal velocity |J v + Phi_t| over the rows
 *              (0 on the exact motion)
 *   e_max      the largest constraint error e_n
 * A run stops when a step fails or when e_n exceeds 0.1 R (the bead is
 * then off the hoop by a tenth of its radius); the report gives the time
 * and the reason.  There is no energy rule: the hoop does work on the
 * bead, and a scheme whose velocity carries a spurious normal component
 * (improved, improved-ab2) keeps its positions on the motion while its
 * kinetic energy is wrong, which u_max shows.
 *
 * Every scheme runs with its default options, and poststab-pv is
 * post-stabilisation with the velocity projection as well: 001 projects
 * positions only, and "does not preserve the correct dynamic motion" is
 * its claim about post-stabilisation (arm2.poststab_deviates).
 *
 * Outputs: hoop-summary.csv (one row per run and h, the reference's
 * first), hoop-trace.csv (theta - theta* at every step of the coarsest h,
 * the reference's first, for the figure), and
 * the tables of the report.  Deterministic.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"
#include "hoop.h"
#include "problems/problems.h"

static const exp_param params[] = {
  {"delta", "0.05", EXP_REAL, 0, 0.5, EXP_OPEN_MIN, "release offset from the relative equilibrium theta* (rad)"},
  {"levels", "4", EXP_INT, 1, 8, 0, "step sizes h, h/2, ... (the same duration)"},
  EXP_PARAMS_END};


static const double G = 9.81, R = 1.0;
#define MAX_LEVELS 8

typedef struct {
  int status, stopped, left;
  enum exp_end end;
  double t_end;
  long steps;
  double period, freq_err, centre, amp_ratio, max_dev, u_max, e_max;
} hoop_result;

/* Crossings and extremes of theta - theta*, fed one sample at a time. */
typedef struct {
  double prev, tprev;
  int have;
  double first, last;  /* first and last upward crossing */
  long ncross;
  double sum, sum_t;   /* integral of (theta - theta*) dt between crossings (running) */
  double acc, acc_t;   /* the part since the last crossing, not yet counted */
  double amp_first, amp_cur, amp_last; /* max |d| over the first period, the current one, the last complete one */
  double max_dev;
} tracker;

static void track(tracker *k, double t, double d)
{
  if (fabs(d) > k->max_dev)
    k->max_dev = fabs(d);
  if (k->have) {
    double dt = t - k->tprev, mid = 0.5 * (d + k->prev);
    if (k->prev < 0 && d >= 0) {
      double tc = k->tprev + dt * (-k->prev) / (d - k->prev);
      if (k->ncross == 0) {
        k->first = tc;
      } else {
        /* The part of this interval before the crossing closes the period. */
        k->sum += k->acc + 0.5 * k->prev * (tc - k->tprev);
        k->sum_t += k->acc_t + (tc - k->tprev);
        if (k->ncross == 1)
          k->amp_first = k->amp_cur;
        k->amp_last = k->amp_cur;
      }
      k->last = tc;
      k->ncross++;
      k->acc = 0.5 * d * (t - tc);
      k->acc_t = t - tc;
      k->amp_cur = fabs(d);
    } else if (k->ncross > 0) {
      k->acc += mid * dt;
      k->acc_t += dt;
      if (fabs(d) > k->amp_cur)
        k->amp_cur = fabs(d);
    }
  }
  k->prev = d;
  k->tprev = t;
  k->have = 1;
}

static void tracker_result(const tracker *k, hoop_result *r)
{
  r->max_dev = k->max_dev;
  r->period = k->ncross >= 2 ? (k->last - k->first) / (double)(k->ncross - 1) : NAN;
  r->centre = k->sum_t > 0 ? k->sum / k->sum_t : NAN;
  r->amp_ratio = k->ncross >= 3 && k->amp_first > 0 ? k->amp_last / k->amp_first : NAN;
}

/* theta of the bead in the hoop's plane at t. */
static double hoop_angle(const double *x, double t)
{
  const double w = EXP_HOOP_OMEGA;
  double s = x[0] * cos(w * t) - x[2] * sin(w * t);
  return atan2(s, -x[1]);
}

/* The normal velocity of the two rows: n(t).v + n'(t).x and x.v / |x|. */
static double normal_velocity(const double *x, const double *v, double t)
{
  const double w = EXP_HOOP_OMEGA;
  double n[3] = {sin(w * t), 0, cos(w * t)}, nd[3] = {w * cos(w * t), 0, -w * sin(w * t)};
  double u1 = n[0] * v[0] + n[2] * v[2] + nd[0] * x[0] + nd[2] * x[2];
  double u2 = (x[0] * v[0] + x[1] * v[1] + x[2] * v[2]) / R;
  return fmax(fabs(u1), fabs(u2));
}

typedef struct {
  tracker tr;
  double theta_eq, u_max;
  exp_csv *trace; /* NULL: not traced */
  const char *name;
} observer_ctx;

static int observe(void *ov, const exp_state *s)
{
  observer_ctx *o = ov;
  const double *q = cdyn_system_positions(s->sys), *v = cdyn_system_velocities(s->sys);
  double d = hoop_angle(q, s->t) - o->theta_eq;
  track(&o->tr, s->t, d);
  double u = normal_velocity(q, v, s->t);
  if (u > o->u_max)
    o->u_max = u;
  if (o->trace) {
    double row[2] = {s->t, d};
    const char *labels[1] = {o->name};
    return exp_csv_row_labels(o->trace, labels, 1, row, 2);
  }
  return 0;
}

static int build(const void *bctx, cdyn_system **out) { return exp_hoop_build(*(const double *)bctx, out); }

/* The reference sampled at the same times: its period, centre, amplitude. */
static int reference_run(double theta0, double theta_eq, double h, long steps, exp_csv *trace, hoop_result *r)
{
  cdyn_ref_hoop_params p = {R, G, EXP_HOOP_OMEGA, theta0, 0.0, 1e-13, 1e-13};
  cdyn_ref_hoop *ref;
  int rc = cdyn_ref_hoop_new(&ref, &p);
  if (rc)
    return rc;
  tracker tr;
  memset(&tr, 0, sizeof tr);
  memset(r, 0, sizeof *r);
  for (long k = 0; k <= steps && !rc; k++) {
    double t = (double)k * h, th;
    if (!(rc = cdyn_ref_hoop_advance(ref, t)) && !(rc = cdyn_ref_hoop_angle(ref, &th, NULL)))
      track(&tr, t, th - theta_eq);
    if (!rc && trace) {
      double row[2] = {t, th - theta_eq};
      const char *labels[1] = {"reference"};
      rc = exp_csv_row_labels(trace, labels, 1, row, 2);
    }
  }
  cdyn_ref_hoop_free(ref);
  if (rc)
    return rc;
  tracker_result(&tr, r);
  r->steps = steps;
  r->freq_err = 0;
  return CDYN_OK;
}

/* The rest of a table's header after "| run |": a column per step size. */
static void report_h_columns(exp_ctx *ctx, const double *hs, int levels)
{
  for (int l = 0; l < levels; l++)
    exp_report(ctx, " h = %g |", hs[l]);
  exp_report(ctx, "\n|---|");
  for (int l = 0; l < levels; l++)
    exp_report(ctx, "---|");
  exp_report(ctx, "\n");
}

static int run(exp_ctx *ctx)
{
  double delta, theta_eq, Omega;
  int rc = exp_param_double(ctx, "delta", &delta);
  if (rc)
    return rc;
  int levels = (int)exp_param_long(ctx, "levels");
  if ((rc = cdyn_ref_hoop_equilibrium(R, G, EXP_HOOP_OMEGA, &theta_eq, &Omega)))
    return rc;
  const double theta0 = theta_eq + delta, T = ctx->h * (double)ctx->steps;
  static hoop_result res[EXP_MAX_RUNS][MAX_LEVELS];
  hoop_result ref[MAX_LEVELS];
  double hs[MAX_LEVELS];
  long Ns[MAX_LEVELS];
  exp_csv sum, trace;
  char meta[512];
  snprintf(meta, sizeof meta,
           "\"theta_eq\": %.17g, \"Omega\": %.17g, \"omega\": %.17g, \"R\": %.17g, \"g\": %.17g, \"theta0\": %.17g, "
           "\"T\": %.17g",
           theta_eq, Omega, EXP_HOOP_OMEGA, R, G, theta0, T);
  if ((rc = exp_csv_open(ctx, &trace, "hoop-trace", "run,t,dtheta", NULL, meta)))
    return rc;
  for (int l = 0; l < levels && !rc; l++) {
    Ns[l] = ctx->steps << l;
    hs[l] = ctx->h / (double)(1L << l);
    rc = reference_run(theta0, theta_eq, hs[l], Ns[l], l == 0 ? &trace : NULL, &ref[l]);
  }
  for (int s = 0; s < ctx->nruns && !rc; s++)
    for (int l = 0; l < levels && !rc; l++) {
      observer_ctx o;
      memset(&o, 0, sizeof o);
      o.theta_eq = theta_eq;
      o.trace = l == 0 ? &trace : NULL;
      o.name = ctx->runs[s].name;
      exp_limits lim = {0.1 * R, INFINITY, 0};
      exp_outcome out;
      double th0 = theta0;
      if ((rc = exp_run(ctx, &ctx->runs[s], NULL, build, &th0, hs[l], Ns[l], &lim, observe, &o, &out, NULL, NULL)))
        break;
      hoop_result *r = &res[s][l];
      tracker_result(&o.tr, r);
      r->status = out.status;
      r->steps = out.steps;
      r->stopped = out.end != EXP_END_COMPLETED;
      r->end = out.end;
      r->t_end = (double)out.steps * hs[l];
      r->e_max = out.emax;
      r->u_max = o.u_max;
      r->freq_err = ref[l].period / r->period - 1;
      r->left = r->max_dev > 5 * delta;
      printf("  %-16s h = %-9.3g freq_err %+.3e  centre %+.3e  amplitude %.4f  max_dev %.3e  u_max %.3e%s\n",
             ctx->runs[s].name, hs[l], r->freq_err, r->centre, r->amp_ratio, r->max_dev, r->u_max,
             r->left ? "  LEFT the relative equilibrium" : r->stopped ? "  stopped" : "");
    }
  int crc = exp_csv_close(&trace, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;
  if ((rc = exp_csv_open(ctx, &sum, "hoop-summary",
                         "run,h,steps,status,stopped,left,period,freq_err,centre,amp_ratio,max_dev,u_max,e_max", NULL,
                         meta)))
    return rc;
  for (int l = 0; l < levels && !rc; l++) {
    const char *labels[1] = {"reference"};
    double row[12] = {hs[l], (double)Ns[l], 0, 0, 0, ref[l].period, 0, ref[l].centre, ref[l].amp_ratio,
                      ref[l].max_dev, 0, 0};
    rc = exp_csv_row_labels(&sum, labels, 1, row, 12);
  }
  for (int s = 0; s < ctx->nruns && !rc; s++)
    for (int l = 0; l < levels && !rc; l++) {
      const hoop_result *r = &res[s][l];
      const char *labels[1] = {ctx->runs[s].name};
      double row[12] = {hs[l],        (double)r->steps, (double)r->status, (double)r->stopped,
                        (double)r->left, r->period,     r->freq_err,       r->centre,
                        r->amp_ratio, r->max_dev,       r->u_max,          r->e_max};
      rc = exp_csv_row_labels(&sum, labels, 1, row, 12);
    }
  crc = exp_csv_close(&sum, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;

  exp_report(ctx,
             "Bead on a hoop spinning at omega = sqrt(2 g / R) about its vertical diameter (a constraint that moves "
             "with time): relative equilibrium theta* = %.6f rad (pi/3), small oscillations at Omega = %.6f rad/s "
             "(period %.6f s; the reference's at amplitude delta = %g: %.6f s).  Released at theta* + delta at "
             "relative rest, T = %g s.  Relative frequency error (period_ref / period - 1) and amplitude over the "
             "last period against the first (1: exact), per step size; \"left\": the bead left its relative "
             "equilibrium (|theta - theta*| > 5 delta); \"stopped\": a step failed or e_n exceeded 0.1 R.\n\n| run |",
             theta_eq, Omega, 2 * 3.14159265358979323846 / Omega, delta, ref[0].period, T);
  report_h_columns(ctx, hs, levels);
  for (int s = 0; s < ctx->nruns; s++) {
    exp_report(ctx, "| %s |", ctx->runs[s].name);
    for (int l = 0; l < levels; l++) {
      const hoop_result *r = &res[s][l];
      if (r->left)
        exp_report(ctx, " left (max %.2g rad%s) |", r->max_dev, r->stopped ? ", then stopped" : "");
      else if (r->stopped)
        exp_report(ctx, " stopped at t = %.3g s (%s) |", r->t_end,
                   r->end == EXP_END_ERROR_LIMIT ? "e_n > 0.1 R"
                   : r->end == EXP_END_DIVERGED  ? "diverged"
                                                 : "a step failed");
      else
        exp_report(ctx, " %+.2e, amp. %.3f |", r->freq_err, r->amp_ratio);
    }
    exp_report(ctx, "\n");
  }
  exp_report(ctx, "\nLargest normal velocity |J v + Phi_t| over each run (m/s; 0 on the exact motion):\n\n| run |");
  report_h_columns(ctx, hs, levels);
  for (int s = 0; s < ctx->nruns; s++) {
    exp_report(ctx, "| %s |", ctx->runs[s].name);
    for (int l = 0; l < levels; l++)
      exp_report(ctx, " %.2e |", res[s][l].u_max);
    exp_report(ctx, "\n");
  }
  exp_report(ctx, "\n");
  return CDYN_OK;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "run", "", "run name: a scheme, a companion run, or the reference"},
  {"hoop-trace", "dtheta", "rad", "theta - theta*, the bead's angle from its relative equilibrium"},
  {"hoop-summary", "stopped", "1", "1: a step failed or e_n exceeded 0.1 R"},
  {"hoop-summary", "left", "1", "1: the bead left its relative equilibrium (max_dev > 5 delta)"},
  {"hoop-summary", "period", "s", "mean time between upward crossings of theta*"},
  {"hoop-summary", "freq_err", "1", "period_ref / period - 1: relative error of the frequency"},
  {"hoop-summary", "centre", "rad", "mean of theta - theta* over whole periods"},
  {"hoop-summary", "amp_ratio", "1", "largest |theta - theta*| over the last period, over the first"},
  {"hoop-summary", "max_dev", "rad", "largest |theta - theta*| over the run"},
  {"hoop-summary", "u_max", "m/s", "largest normal velocity |J v + Phi_t| over the rows and the run"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_spinning_hoop = {
  .name = "spinning-hoop",
  .description = "bead on a spinning hoop: relative equilibrium and oscillation frequency against the closed form",
  .source = "verification (a constraint moving with time; 001's post-stabilisation claim)",
  .params = params,
  .columns = columns,
  .schemes = "all",
  .companions = exp_poststab_pv_companions,
  .h = 0.01,
  .steps = 2000,
  .run = run,
};
