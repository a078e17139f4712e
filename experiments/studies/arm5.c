/*
 * arm5.c: the falling 5-link robot arm of 000 (figures 2-4).
 *
 * Mechanism (problems.c, exp_arm): nodes 0..5 joined by rigid links of
 * length L (distance constraints), node 0 pinned at the origin by a pin
 * constraint (000: "a red sphere illustrates fixed point-node
 * constraint"), point masses at the nodes, gravity g along -y, released at
 * rest from horizontal.  000 gives h in {0.01, 0.1} and mass in {1, 50}
 * and nothing else; lengths (1 m), g (9.81), the run length (10 s) and
 * the reading of "mass" are this suite's choices (doc/choices.md).
 *
 * The error of 000's figures is the per-step constraint error
 *   e_n = sum over links | |x_i - x_j| - L | + |x_0 - p|
 * which 000 calls "accumulated"; the CSVs hold e_n and its running sum.
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
 *
 * arm5-baumgarte (000 fig 4): explicit Baumgarte (alpha = beta = 2 unless
 * set) against implicit on the same arm, and a sweep of alpha and beta
 * over {0, 2^-2, ..., 2^8}: the mean e_n over the last tenth of the run
 * (the error after a fixed time, averaged over the oscillation of the
 * feedback), with the runs that break stability.c's rules marked
 * unstable: a failed step, e_n above `err_frac` of the arm's length, or an
 * energy gain above `energy_frac` of the energy gravity can release.
 *
 * Beyond the papers, for each of the two: constraint error e_n and
 * trajectory error max_i |x_i - x_ref,i| at a fixed time `order_T`
 * against h = h_coarse 2^-k, k = 0 .. order_levels - 1, against the
 * reduced-coordinate reference (reference/nlink.c, rk8pd at 1e-13), with
 * the fitted slopes in the report; the order of each scheme on the
 * papers' own mechanism.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"
#include "nlink.h"
#include "problems/problems.h"

#define MAX_LEVELS 16
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
  {"order_levels", "8", EXP_INT, 2, MAX_LEVELS, 0, "order study: number of step sizes h_coarse 2^-k"},
  {"diverge_frac", "1", EXP_REAL, 0, INFINITY, POS,
   "a panel run has diverged (and stops) when e_n exceeds this fraction of the arm's length"},
  EXP_PARAMS_END};

static const exp_param params_baumgarte[] = {
  {"links", "5", EXP_INT, 1, EXP_ARM_MAX, 0, "number of links"},
  {"length", "1", EXP_REAL, 0, INFINITY, POS, "length of every link (m)"},
  {"g", "9.81", EXP_REAL, 0, INFINITY, POS, "gravity (m/s^2), along -y"},
  {"mass", "1", EXP_REAL, 0, INFINITY, POS, "mass of every node (kg)"},
  {"alpha", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "Baumgarte damping alpha of the main run (critically damped with beta)"},
  {"beta", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "Baumgarte stiffness beta of the main run"},
  {"err_frac", "0.1", EXP_REAL, 0, INFINITY, POS, "sweep: unstable when e_n exceeds this fraction of the arm's length"},
  {"energy_frac", "0.1", EXP_REAL, 0, INFINITY, POS,
   "sweep: unstable when the energy gains this fraction of the releasable energy"},
  {"h_coarse", "0.1", EXP_REAL, 0, INFINITY, POS, "order study: the coarsest h"},
  {"order_T", "1", EXP_REAL, 0, INFINITY, POS, "order study: time at which errors are measured (s)"},
  {"order_levels", "8", EXP_INT, 2, MAX_LEVELS, 0, "order study: number of step sizes h_coarse 2^-k"},
  EXP_PARAMS_END};

#define MAX_LEVELS 16

typedef struct {
  exp_arm arm;
  double h_coarse, order_T;
  int levels;
} common_params;

static int get_common(exp_ctx *ctx, common_params *p)
{
  memset(p, 0, sizeof *p);
  exp_param_double(ctx, "length", &p->arm.length);
  exp_param_double(ctx, "g", &p->arm.g);
  exp_param_double(ctx, "h_coarse", &p->h_coarse);
  exp_param_double(ctx, "order_T", &p->order_T);
  int levels = (int)exp_param_long(ctx, "order_levels");
  if (!(p->order_T >= p->h_coarse) || p->order_T / (p->h_coarse * ldexp(1.0, -levels)) > 1e8)
    return cdyn_error(CDYN_EINVAL, "order_T = %g must be at least h_coarse = %g and at most 1e8 steps of the finest h",
                      p->order_T, p->h_coarse);
  if (ctx->steps > 10000000)
    return cdyn_error(CDYN_EINVAL, "--steps %ld: at most 1e7", ctx->steps);
  p->arm.links = (size_t)exp_param_long(ctx, "links");
  p->arm.mass = 1;
  p->levels = levels;
  return CDYN_OK;
}

/* ---- one run -------------------------------------------------------------------------- */

/* What one run measured. */
typedef struct {
  int status;       /* CDYN_OK, or the status of the step that failed */
  long steps;       /* steps completed */
  int unstable;     /* a failed step, or one of the limits below exceeded */
  long fail_step;   /* the first step that broke a rule (steps + 1 if none) */
  double e_sum;     /* sum of e_n, n = 1 .. steps */
  double e_tail;    /* mean e_n over the last tenth of the steps */
  double e_end, e_max, E0, gain_max;
  double e_fail;    /* e_n after the step refused at e_lim (NaN if none) */
} arm_run;

/* The per-step columns of a run's CSV. */
#define RUN_COLUMNS "step,t,e,e_sum,x_end,y_end,E"

typedef struct {
  const exp_arm *a;
  exp_csv *csv;
  double *traj;
  arm_run *r;
  long tail_from, tail_n;
} arm5_obs;

static int observe_arm(void *ov, const exp_state *s)
{
  arm5_obs *o = ov;
  arm_run *r = o->r;
  size_t n = o->a->links + 1;
  long k = s->k;
  if (k > 0)
    r->e_sum += s->e;
  if (k >= o->tail_from && k > 0) {
    r->e_tail += s->e;
    o->tail_n++;
  }
  const double *q = cdyn_system_positions(s->sys);
  if (o->traj)
    memcpy(o->traj + (size_t)k * 3 * n, q, 3 * n * sizeof(double));
  if (o->csv) {
    double row[7] = {(double)k, s->t, s->e, r->e_sum, q[3 * (n - 1)], q[3 * (n - 1) + 1], s->E};
    return exp_csv_row(o->csv, row, 7);
  }
  return 0;
}

static int build_arm5(const void *a, cdyn_system **out) { return exp_arm_build(a, out); }

/*
 * Run `run` (its options, then `ov`, NULL-terminated name/value pairs) on
 * arm `a` for `steps` steps of h.  `csv` (may be NULL) gets one row per
 * step; `traj` (may be NULL) 3n positions per step, steps + 1 rows.  The
 * run stops at a failed step and, when e_lim or gain_lim is finite, at the
 * first step that exceeds it; fail_step is that step.  Neither a failed
 * step nor one beyond e_lim (which the stepper's divergence guard refuses,
 * the state restored) is written: the last row is the last state within
 * the rules.  (A step beyond gain_lim, the runner's own rule, is.)  qend
 * (may be NULL) receives the final positions.  Returns non-zero only when the run cannot be set up or
 * written; a failed step is a measurement (r->status).
 */
static int run_arm(exp_ctx *ctx, const exp_arm *a, const exp_runspec *run, const char *const *ov, double h, long steps,
                   double e_lim, double gain_lim, exp_csv *csv, double *traj, arm_run *r, double *qend)
{
  memset(r, 0, sizeof *r);
  /* the last tenth, at least the last step */
  long tail_n_want = steps >= 10 ? steps / 10 : 1;
  arm5_obs o = {a, csv, traj, r, steps - tail_n_want + 1, 0};
  exp_limits lim = {e_lim, gain_lim};
  exp_outcome out;
  int rc = exp_run(ctx, run, ov, build_arm5, a, h, steps, &lim, observe_arm, &o, &out, qend, NULL);
  if (rc)
    return rc;
  r->status = out.status;
  r->e_fail = out.e_fail;
  r->unstable = out.end != EXP_END_COMPLETED;
  r->fail_step = r->unstable ? out.end_step : steps + 1;
  r->steps = out.steps;
  r->e_end = out.eend;
  r->e_max = out.emax;
  r->E0 = out.E0;
  r->gain_max = out.gain_max;
  r->e_tail = o.tail_n ? r->e_tail / (double)o.tail_n : NAN;
  return CDYN_OK;
}

/* A run written to NAME.csv (RUN_COLUMNS). */
static int run_to_csv(exp_ctx *ctx, const exp_arm *a, const char *name, const exp_runspec *run, const char *const *ov,
                      double h, long steps, double e_lim, double *traj, arm_run *r)
{
  exp_csv csv;
  char extra[512];
  snprintf(extra, sizeof extra,
           "\"run\": {\"name\": \"%s\", \"scheme\": \"%s\", \"h\": %.17g, \"steps\": %ld, \"links\": %zu, "
           "\"mass\": %.17g, \"end_mass\": %.17g}",
           name, run->scheme, h, steps, a->links, a->mass, a->end_mass > 0 ? a->end_mass : a->mass);
  int rc = exp_csv_open(ctx, &csv, name, RUN_COLUMNS, NULL, extra);
  if (rc)
    return rc;
  rc = run_arm(ctx, a, run, ov, h, steps, e_lim, INFINITY, &csv, traj, r, NULL);
  int crc = exp_csv_close(&csv, rc == CDYN_OK);
  return rc ? rc : crc;
}

/* ---- the order study (beyond the papers) --------------------------------------------------- */

/*
 * Every scheme of the run at h = h_coarse 2^-k on the uniform 1 kg arm:
 * e_n and max_i |x_i - x_ref,i| at order_T.  Writes order.csv; fitted
 * slopes (over the levels whose run completed and whose error is above
 * 1e-10, where the reference's own error and rounding take over) go to
 * the report and to slope[s][0..1] (constraint, trajectory).
 */
static int order_study(exp_ctx *ctx, const common_params *p, double slope[][2])
{
  exp_arm a = p->arm;
  a.mass = 1;
  a.end_mass = 0;
  size_t n = a.links + 1;
  double qref[3 * (EXP_ARM_MAX + 1)], vref[3 * (EXP_ARM_MAX + 1)], q[3 * (EXP_ARM_MAX + 1)];
  cdyn_ref_nlink *ref;
  int rc = exp_arm_reference(&a, &ref);
  if (rc)
    return rc;
  if (!(rc = cdyn_ref_nlink_advance(ref, p->order_T)))
    rc = exp_arm_reference_state(ref, a.links, qref, vref);
  cdyn_ref_nlink_free(ref);
  if (rc)
    return rc;
  exp_csv csv;
  char extra[256];
  snprintf(extra, sizeof extra,
           "\"order\": {\"T\": %.17g, \"links\": %zu, \"mass\": 1, \"reference\": \"reference/nlink.c, GSL rk8pd, "
           "abstol = reltol = 1e-13\"}",
           p->order_T, a.links);
  if ((rc = exp_csv_open(ctx, &csv, "order", "scheme,h,steps,completed,e_T,pos_err", NULL, extra)))
    return rc;
  double hs[MAX_LEVELS], ec[MAX_LEVELS], ep[MAX_LEVELS];
  int ok[MAX_LEVELS], okp[MAX_LEVELS];
  exp_report(ctx,
             "Order on the arm (beyond the papers): e_n and the largest node distance from the reduced-coordinate "
             "reference at t = %g s, for h = %g / 2^k, k = 0 .. %d; slopes of log error against log h, fitted over "
             "the runs that completed with error above 1e-10:\n\n| scheme | slope of e_n | slope of the trajectory "
             "error | trajectory error at the finest h |\n|---|---|---|---|\n",
             p->order_T, p->h_coarse, p->levels - 1);
  for (int s = 0; s < ctx->nruns && !rc; s++) {
    for (int k = 0; k < p->levels && !rc; k++) {
      hs[k] = p->h_coarse * ldexp(1.0, -k);
      long steps = lround(p->order_T / hs[k]);
      hs[k] = p->order_T / (double)steps; /* land on order_T exactly */
      arm_run r;
      if ((rc = run_arm(ctx, &a, &ctx->runs[s], NULL, hs[k], steps, INFINITY, INFINITY, NULL, NULL, &r, q)))
        break;
      int done = r.status == CDYN_OK && r.steps == steps;
      ec[k] = done ? r.e_end : NAN;
      ep[k] = done ? exp_max_dist(q, qref, n) : NAN;
      ok[k] = done && ec[k] > 1e-10;
      okp[k] = done && ep[k] > 1e-10;
      double row[5] = {hs[k], (double)steps, (double)done, ec[k], ep[k]};
      rc = exp_csv_row_labeled(&csv, ctx->runs[s].name, row, 5);
    }
    if (rc)
      break;
    int used;
    slope[s][0] = exp_fit_slope(hs, ec, ok, p->levels, &used);
    slope[s][1] = exp_fit_slope(hs, ep, okp, p->levels, &used);
    exp_report(ctx, "| %s | %.2f | %.2f | %.3g |\n", ctx->runs[s].name, slope[s][0], slope[s][1], ep[p->levels - 1]);
  }
  exp_report(ctx, "\n");
  int crc = exp_csv_close(&csv, rc == CDYN_OK);
  return rc ? rc : crc;
}

/* ---- arm5-improved ------------------------------------------------------------------------- */

#define NVAR 2 /* uniform, heavy-end */
#define NH 2
#define NM 2

static const char *const variants[NVAR] = {"uniform", "heavy-end"};

/* Mean e_n of a run; +inf when it diverged (so that ratios order it last). */
static double run_mean(const arm_run *r) { return r->unstable ? INFINITY : r->e_sum / (double)r->steps; }

/* a / b for mean errors; NaN when both diverged (nothing to compare). */
static double err_ratio(double a, double b) { return isinf(a) && isinf(b) ? NAN : a / b; }

static int run_improved(exp_ctx *ctx)
{
  common_params p;
  double mass[NM], hh[NH], diverge;
  int rc = get_common(ctx, &p);
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
        arm_run r[EXP_MAX_RUNS];
        for (int s = 0; s < ctx->nruns && !rc; s++) {
          char name[256];
          snprintf(name, sizeof name, "%s-h%g-m%g-%s", variants[v], hh[ih], mass[im], ctx->runs[s].name);
          double *tr = v == 0 && ih == 0 ? traj + (size_t)(im * ctx->nruns + s) * rowlen : NULL;
          if ((rc = run_to_csv(ctx, &a, name, &ctx->runs[s], NULL, hh[ih], steps[ih], e_lim, tr, &r[s])))
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
  if ((rc = order_study(ctx, &p, slope)))
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

/* ---- arm5-baumgarte ------------------------------------------------------------------------ */

/* The sweep's alpha and beta values: 0, then 2^-2 .. 2^8. */
#define NSWEEP 12
static double sweep_value(int k) { return k == 0 ? 0.0 : ldexp(1.0, k - 3); }

static int run_baumgarte(exp_ctx *ctx)
{
  common_params p;
  double err_frac, energy_frac;
  int rc = get_common(ctx, &p);
  if (rc)
    return rc;
  exp_param_double(ctx, "mass", &p.arm.mass);
  exp_param_double(ctx, "err_frac", &err_frac);
  exp_param_double(ctx, "energy_frac", &energy_frac);
  const exp_runspec bg = exp_run_or_plain(ctx, "baumgarte");
  /* Main runs: every scheme with its options (alpha, beta from the parameters). */
  static arm_run main_run[EXP_MAX_RUNS];
  for (int s = 0; s < ctx->nruns && !rc; s++) {
    rc = run_to_csv(ctx, &p.arm, ctx->runs[s].name, &ctx->runs[s], NULL, ctx->h, ctx->steps, INFINITY, NULL,
                    &main_run[s]);
    if (!rc)
      printf("  %-12s h = %g steps = %ld mean e_n = %.3e\n", ctx->runs[s].name, ctx->h, ctx->steps,
             main_run[s].e_sum / (double)ctx->steps);
  }
  if (rc)
    return rc;
  /* The sweep: Baumgarte at every (alpha, beta), limits of stability.c. */
  double length = (double)p.arm.links * p.arm.length;
  double nl = (double)p.arm.links;
  /* Energy gravity can release from horizontal: sum over nodes of m g (drop
     when hanging) = m g L n(n+1)/2 for uniform masses. */
  double releasable = p.arm.mass * p.arm.g * p.arm.length * nl * (nl + 1) / 2;
  exp_csv sw;
  char extra[512];
  snprintf(extra, sizeof extra,
           "\"sweep\": {\"values\": \"0, 2^-2 .. 2^8\", \"e_limit\": %.17g, \"gain_limit\": %.17g, \"note\": "
           "\"e_tail: mean e_n over the last tenth of the run; stable 0 marks a failed step or a limit exceeded "
           "(fail_step); e_fail: e_n after the step that exceeded e_limit, refused by the divergence guard\"}",
           err_frac * length, energy_frac * releasable);
  if ((rc = exp_csv_open(ctx, &sw, "sweep", "ia,ib,alpha,beta,stable,fail_step,e_tail,e_mean,e_max,gain_max,e_fail", NULL,
                         extra)))
    return rc;
  static double etail[NSWEEP][NSWEEP];
  static int stable[NSWEEP][NSWEEP];
  for (int ia = 0; ia < NSWEEP && !rc; ia++)
    for (int ib = 0; ib < NSWEEP && !rc; ib++) {
      char as[32], bs[32];
      snprintf(as, sizeof as, "%.17g", sweep_value(ia));
      snprintf(bs, sizeof bs, "%.17g", sweep_value(ib));
      const char *ov[] = {"alpha", as, "beta", bs, NULL};
      arm_run r;
      if ((rc = run_arm(ctx, &p.arm, &bg, ov, ctx->h, ctx->steps, err_frac * length, energy_frac * releasable, NULL,
                        NULL, &r, NULL)))
        break;
      stable[ia][ib] = !r.unstable;
      etail[ia][ib] = r.unstable ? NAN : r.e_tail;
      double row[11] = {(double)ia, (double)ib, sweep_value(ia), sweep_value(ib), (double)stable[ia][ib],
                        (double)r.fail_step, etail[ia][ib], r.unstable ? NAN : r.e_sum / (double)ctx->steps,
                        r.e_max, r.gain_max, r.e_fail};
      rc = exp_csv_row(&sw, row, 11);
    }
  {
    int crc = exp_csv_close(&sw, rc == CDYN_OK);
    if (rc || (rc = crc))
      return rc;
  }
  int nst = 0, nbeat = 0, ii = exp_run_index(ctx, "implicit"), ib = exp_run_index(ctx, "baumgarte");
  double emin = INFINITY, emax = 0, amin = NAN, bmin = NAN;
  for (int a = 0; a < NSWEEP; a++)
    for (int b = 0; b < NSWEEP; b++)
      if (stable[a][b]) {
        nst++;
        if (etail[a][b] < emin) {
          emin = etail[a][b];
          amin = sweep_value(a);
          bmin = sweep_value(b);
        }
        emax = fmax(emax, etail[a][b]);
        if (ii >= 0 && main_run[ii].e_tail < etail[a][b])
          nbeat++;
      }
  exp_report(ctx,
             "Mean e_n over %ld steps of h = %g:\n\n| scheme | mean e_n | mean e_n over the last tenth |\n|---|---|---|\n",
             ctx->steps, ctx->h);
  for (int s = 0; s < ctx->nruns; s++)
    exp_report(ctx, "| %s | %.3e | %.3e |\n", ctx->runs[s].name, main_run[s].e_sum / (double)ctx->steps,
               main_run[s].e_tail);
  exp_report(ctx,
             "\nBaumgarte's alpha-beta sweep (%d x %d values, 0 and 2^-2 .. 2^8): %d stable; among them the mean "
             "e_n over the last tenth ranges from %.3g (alpha = %g, beta = %g) to %.3g.\n\n",
             NSWEEP, NSWEEP, nst, emin, amin, bmin, emax);
  static double slope[EXP_MAX_RUNS][2];
  if ((rc = order_study(ctx, &p, slope)))
    return rc;
  if (exp_claim_ready(ctx, "arm5.implicit_beats_baumgarte")) {
    /* A main run that stopped early has no mean over the run: infinite. */
    double mi = main_run[ii].steps == ctx->steps ? main_run[ii].e_sum / (double)ctx->steps : INFINITY,
           mb = main_run[ib].steps == ctx->steps ? main_run[ib].e_sum / (double)ctx->steps : INFINITY;
    double ratio = mi / mb, spread = nst >= 2 ? emax / emin : NAN;
    return exp_judge(ctx, "arm5.implicit_beats_baumgarte", (exp_value[]){{"ratio", ratio}, {"spread", spread}}, 2,
                     "Baumgarte's alpha = %s, beta = %s; mean e_n implicit %.3g, Baumgarte %.3g at h = %g; sweep: %d of "
                     "%d (alpha, beta) stable, error after %g s from %.3g to %.3g (ratio %.3g), implicit's (%.3g) "
                     "below Baumgarte's at %d of the %d stable points",
                     exp_param_string(ctx, "alpha"), exp_param_string(ctx, "beta"), mi, mb, ctx->h, nst,
                     NSWEEP * NSWEEP, (double)ctx->steps * ctx->h, emin, emax, emax / emin, main_run[ii].e_tail,
                     nbeat, nst);
  }
  return CDYN_OK;
}

/* What can be checked before anything is written. */
static int check_common(exp_ctx *ctx)
{
  common_params p;
  return get_common(ctx, &p);
}

static int check_improved(exp_ctx *ctx)
{
  double light, heavy, h_coarse;
  int rc = check_common(ctx);
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

static int check_baumgarte(exp_ctx *ctx)
{
  int rc = check_common(ctx);
  if (!rc && ctx->steps < 10)
    return cdyn_error(CDYN_EINVAL, "--steps %ld: at least 10 (the sweep averages over the last tenth)", ctx->steps);
  return rc;
}

const cdyn_experiment cdyn_experiment_arm5_improved = {
  .name = "arm5-improved",
  .description = "5-link arm: improved midpoint vs first-order implicit, h x mass panels, and the order study",
  .source = "000 fig 2-3",
  .params = params_improved,
  .check = check_improved,
  .schemes = "implicit,improved,improved-ab2",
  .h = 0.01,
  .steps = 1000,
  .run = run_improved,
};

const cdyn_experiment cdyn_experiment_arm5_baumgarte = {
  .name = "arm5-baumgarte",
  .description = "5-link arm: explicit Baumgarte vs implicit, an alpha-beta sweep, and the order study",
  .source = "000 fig 4",
  .params = params_baumgarte,
  .check = check_baumgarte,
  .schemes = "baumgarte,implicit",
  .h = 0.01,
  .steps = 1000,
  .run = run_baumgarte,
};
