/*
 * arm2.c: the falling 2-link robot arm of 001 (figures 1-3).
 *
 * Mechanism: nodes 0, 1, 2 joined by rigid links of length L (distance
 * constraints |x_i - x_j| = L); node 0 pinned at the origin by a pin
 * constraint (001: "fixed ends are point-node constraints"); point masses m
 * at the nodes; gravity g along -y.  Start: horizontal along +x, at rest.
 * The paper gives h = 0.05 and 1460 steps (73 s) and leaves the masses,
 * lengths, g and Baumgarte's alpha, beta open; the defaults below are the
 * choices of this suite (doc/choices.md).
 *
 * arm2-drift (001 fig 2): the per-step constraint error
 *   e_n = sum over links | |x_i - x_j| - L | + |x_0 - p|
 * of Baumgarte, post-stabilisation and implicit, plus Baumgarte with
 * alpha = beta = 0 (the unstabilised index-1 formulation) for context.
 *
 * arm2-trajectory (001 fig 3): y of node 2 against the reduced-coordinate
 * reference (reference/nlink.c: joint angles, GSL rk8pd at 1e-13).  The
 * double pendulum released from horizontal is chaotic, so "overlaps the
 * reference" is measured as the time each scheme stays within `tol` of it,
 * at h, h/2, h/4 and h/8.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"
#include "nlink.h"
#include "problems/problems.h"

/* The arm's parameters, which both experiments take; arm2-trajectory
   also the tolerance of its tracking (arm2-drift has no reference to
   track, so `cdyn run arm2-drift --help` does not list it). */
#define ARM_PARAMS                                                                                            \
  {"links", "2", EXP_INT, 1, EXP_ARM_MAX, 0, "number of links"},                                              \
  {"mass", "1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "mass of every node (kg)"},               \
  {"length", "1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "length of every link (m)"},            \
  {"g", "9.81", EXP_REAL, -INFINITY, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "gravity (m/s^2), along -y"},     \
  {"alpha", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "Baumgarte damping alpha (critically damped with beta)"}, \
  {"beta", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "Baumgarte stiffness beta"}

static const exp_param drift_params[] = {ARM_PARAMS, EXP_PARAMS_END};
static const exp_param trajectory_params[] = {
  ARM_PARAMS,
  {"track_tol", "0.1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX,
   "tracking tolerance on y of the last node (m)"},
  EXP_PARAMS_END};

/* Baumgarte without feedback, the formulation that drifts: context for
   arm2-drift. */
static const char *const no_feedback[] = {"alpha", "0", "beta", "0", NULL};
static const exp_companion drift_companions[] = {
  {"baumgarte-a0b0", "baumgarte", no_feedback, "Baumgarte with alpha = beta = 0: the unstabilised index-1 form"},
  {NULL, NULL, NULL, NULL}};

/* Parameters whose names are options of a scheme are passed on to it
   (common.c), so the tracking tolerance is `track_tol`: under the name
   `tol` it would set the iteration tolerance of newton, shake and rattle. */

/* Bounds the reference's fixed-size row and header buffers. */
#define MAX_LINKS EXP_ARM_MAX

typedef struct {
  size_t links;
  double mass, length, g, tol;
} arm_params;

static int get_params(exp_ctx *ctx, arm_params *p)
{
  p->links = (size_t)exp_param_long(ctx, "links");
  exp_param_double(ctx, "mass", &p->mass);
  exp_param_double(ctx, "length", &p->length);
  exp_param_double(ctx, "g", &p->g);
  /* arm2-trajectory's alone; arm2-drift tracks nothing. */
  p->tol = 0;
  if (!strcmp(ctx->exp->name, "arm2-trajectory"))
    return exp_param_double(ctx, "track_tol", &p->tol);
  return CDYN_OK;
}

/* The arm as a particle system (problems.c); mass and length are validated by cdyn. */
static int build_arm(const void *pv, cdyn_system **out)
{
  const arm_params *p = pv;
  exp_arm a = {p->links, p->length, p->g, p->mass, 0.0, NULL};
  return exp_arm_build(&a, out);
}

/* The same arm in joint angles: horizontal (theta = pi/2) at rest. */
static int build_reference(const arm_params *p, cdyn_ref_nlink **out)
{
  exp_arm a = {p->links, p->length, p->g, p->mass, 0.0, NULL};
  return exp_arm_reference(&a, out);
}

/* What a run reports back for the claims. */
typedef struct {
  double *e;      /* e_n, steps + 1 values */
  long steps;
  double t_track; /* first time |y_last - y_ref| > tol (the run's end if never) */
  int tracked_all;
  double E_end;   /* total energy at the last step */
  exp_outcome out;
} run_result;

/* The observer of an arm run: one CSV row per step, e_n kept for the
   claims, and the deviation from the reference when there is one. */
typedef struct {
  const arm_params *p;
  exp_csv *csv;
  double *row, *xy, esum;
  cdyn_ref_nlink *ref;
  run_result *res;
} arm_obs;

static int observe_arm(void *ov, const exp_state *s)
{
  arm_obs *o = ov;
  size_t n = o->p->links + 1;
  const double *q = cdyn_system_positions(s->sys);
  o->esum += s->e;
  o->res->e[s->k] = s->e;
  int ncol = 0;
  double *row = o->row;
  row[ncol++] = (double)s->k;
  row[ncol++] = s->t;
  row[ncol++] = s->e;
  row[ncol++] = o->esum;
  for (size_t i = 0; i < 3 * n; i++)
    row[ncol++] = q[i];
  row[ncol++] = s->E;
  o->res->E_end = s->E;
  if (o->ref) {
    int rc;
    if ((rc = cdyn_ref_nlink_advance(o->ref, s->t)) || (rc = cdyn_ref_nlink_positions(o->ref, o->xy)))
      return rc < 0 ? rc : -rc;
    double yref = o->xy[2 * o->p->links - 1], dev = q[3 * o->p->links + 1] - yref;
    row[ncol++] = yref;
    row[ncol++] = dev;
    if (o->res->tracked_all && fabs(dev) > o->p->tol) {
      o->res->tracked_all = 0;
      o->res->t_track = s->t;
    }
  }
  return exp_csv_row(o->csv, row, ncol);
}

/*
 * Run `run` for `steps` steps of `h`, writing NAME.csv.  With `ref`, y of
 * the last node is compared with the reference.  e_n of the steps a
 * failed run did not reach is NaN.
 */
static int run_arm(exp_ctx *ctx, const arm_params *p, const char *name, const exp_runspec *run, double h, long steps,
                   cdyn_ref_nlink *ref, run_result *res)
{
  cdyn_system *sys = NULL;
  cdyn_stepper *st = NULL;
  exp_csv csv;
  int rc = build_arm(p, &sys);
  if (rc)
    return rc;
  if ((rc = exp_stepper_run(ctx, sys, run, NULL, &st)))
    goto out;
  size_t n = p->links + 1;
  /* Columns: step,t,e,e_sum,x0,y0,z0,...,E[,y_ref,dev] */
  char *cols = malloc(64 * (n + 4));
  double *row = malloc((7 + 3 * n) * sizeof(double)); /* step,t,e,e_sum,3n,E,y_ref,dev */
  double *xy = ref ? malloc(2 * p->links * sizeof(double)) : NULL;
  res->e = malloc((size_t)(steps + 1) * sizeof(double));
  if (!cols || !row || (ref && !xy) || !res->e) {
    free(cols);
    free(row);
    free(xy);
    rc = cdyn_error(CDYN_ENOMEM, "out of memory");
    goto out;
  }
  for (long k = 0; k <= steps; k++)
    res->e[k] = NAN;
  strcpy(cols, "step,t,e,e_sum");
  for (size_t i = 0; i < n; i++)
    sprintf(cols + strlen(cols), ",x%zu,y%zu,z%zu", i, i, i);
  strcat(cols, ",E");
  if (ref)
    strcat(cols, ",y_ref,dev");
  char extra[256];
  snprintf(extra, sizeof extra, "\"run\": {\"name\": \"%s\", \"h\": %.17g, \"steps\": %ld}", name, h, steps);
  if ((rc = exp_csv_open(ctx, &csv, name, cols, st, extra))) {
    free(cols);
    free(row);
    free(xy);
    goto out;
  }
  free(cols);
  res->steps = steps;
  res->t_track = steps * h;
  res->tracked_all = 1;
  arm_obs o = {p, &csv, row, xy, 0, ref, res};
  rc = exp_simulate(sys, st, h, steps, NULL, observe_arm, &o, &res->out);
  free(row);
  free(xy);
  int crc = exp_csv_close(&csv, rc == CDYN_OK);
  if (!rc)
    rc = crc;
  if (!rc) {
    cdyn_stats s;
    cdyn_stepper_stats(st, &s);
    printf("  %-22s h = %-8g steps = %-6ld e_end = %.3e  solves/step = %.2f%s\n", name, h, steps, res->e[steps],
           (double)s.solves / (double)steps, res->out.end == EXP_END_COMPLETED ? "" : "  (the run ended early)");
  }
out:
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  return rc;
}

static double mean(const double *x, long from, long to)
{
  double s = 0;
  for (long k = from; k < to; k++)
    s += x[k];
  return to > from ? s / (double)(to - from) : NAN;
}

static double maxval(const double *x, long from, long to)
{
  double m = 0;
  for (long k = from; k < to; k++)
    if (x[k] > m)
      m = x[k];
  return m;
}

/* ---- arm2-drift ------------------------------------------------------------- */

static int run_drift(exp_ctx *ctx)
{
  arm_params p;
  int rc = get_params(ctx, &p);
  if (rc)
    return rc;
  static run_result res[EXP_MAX_RUNS];
  memset(res, 0, sizeof res);
  int nrun = 0;
  for (int r = 0; r < ctx->nruns && !rc; r++, nrun++)
    rc = run_arm(ctx, &p, ctx->runs[r].name, &ctx->runs[r], ctx->h, ctx->steps, NULL, &res[r]);
  long N = ctx->steps, q = N / 4;
  if (!rc) {
    exp_report(ctx,
               "Mean per-step constraint error e_n over %ld steps of h = %g:\n\n"
               "| run | mean e_n | max e_n | e_n at the end |\n|---|---|---|---|\n",
               N, ctx->h);
    for (int k = 0; k < nrun; k++)
      exp_report(ctx, "| %s | %.3e | %.3e | %.3e |\n", ctx->runs[k].name, mean(res[k].e, 1, N + 1),
                 maxval(res[k].e, 0, N + 1), res[k].e[N]);
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
    double mp = maxval(res[ip].e, N / 2, N + 1) / p.length;
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

/* ---- arm2-trajectory ----------------------------------------------------------- */

#define NDIV 4

static int run_trajectory(exp_ctx *ctx)
{
  arm_params p;
  int rc = get_params(ctx, &p);
  if (rc)
    return rc;
  cdyn_ref_nlink *ref = NULL;
  exp_csv csv;
  /* The reference alone, on the base step grid. */
  if ((rc = build_reference(&p, &ref)))
    return rc;
  {
    char cols[32 * (MAX_LINKS + 2)] = "t";
    for (size_t i = 1; i <= p.links; i++)
      sprintf(cols + strlen(cols), ",x%zu,y%zu", i, i);
    strcat(cols, ",E");
    if ((rc = exp_csv_open(ctx, &csv, "reference", cols, NULL,
                           "\"reference\": \"planar N-link pendulum in absolute joint angles, GSL odeiv2 rk8pd, "
                           "abstol = reltol = 1e-13\"")))
      goto out;
    double row[2 * MAX_LINKS + 2], E;
    for (long k = 0; k <= ctx->steps && !rc; k++) {
      double t = (double)k * ctx->h;
      if ((rc = cdyn_ref_nlink_advance(ref, t)) || (rc = cdyn_ref_nlink_positions(ref, row + 1)) ||
          (rc = cdyn_ref_nlink_energy(ref, &E)))
        break;
      row[0] = t;
      row[1 + 2 * p.links] = E;
      rc = exp_csv_row(&csv, row, (int)(2 + 2 * p.links));
    }
    int crc = exp_csv_close(&csv, rc == CDYN_OK);
    if (rc || (rc = crc))
      goto out;
  }
  /* Each scheme at h, h/2, h/4, h/8 over the same time span. */
  static double ttrack[EXP_MAX_RUNS][NDIV], eend[EXP_MAX_RUNS][NDIV];
  static int all[EXP_MAX_RUNS][NDIV];
  if ((rc = exp_csv_open(ctx, &csv, "tracking", "scheme,h,steps,t_track,tracked_all,max_e,E_end", NULL,
                         NULL)))
    goto out;
  for (int s = 0; s < ctx->nruns && !rc; s++)
    for (int d = 0; d < NDIV && !rc; d++) {
      long div = 1L << d;
      double h = ctx->h / (double)div;
      long steps = ctx->steps * div;
      char name[256];
      snprintf(name, sizeof name, "%s_h%g", ctx->runs[s].name, h);
      cdyn_ref_nlink_free(ref);
      ref = NULL;
      if ((rc = build_reference(&p, &ref)))
        break;
      run_result r;
      memset(&r, 0, sizeof r);
      rc = run_arm(ctx, &p, name, &ctx->runs[s], h, steps, ref, &r);
      if (!rc) {
        ttrack[s][d] = r.t_track;
        all[s][d] = r.tracked_all;
        eend[s][d] = r.E_end;
        double v[6] = {h, (double)steps, r.t_track, (double)r.tracked_all, maxval(r.e, 0, steps + 1), r.E_end};
        rc = exp_csv_row_labeled(&csv, ctx->runs[s].name, v, 6);
      }
      free(r.e);
    }
  {
    int crc = exp_csv_close(&csv, rc == CDYN_OK);
    if (rc || (rc = crc))
      goto out;
  }
  double T = ctx->steps * ctx->h;
  exp_report(ctx,
             "Time (s) for which y of the last node stays within %g m of the reference, out of %g s "
             "(\">=\" means the whole run):\n\n| scheme |",
             p.tol, T);
  for (int d = 0; d < NDIV; d++)
    exp_report(ctx, " h = %g |", ctx->h / (double)(1L << d));
  exp_report(ctx, "\n|---|");
  for (int d = 0; d < NDIV; d++)
    exp_report(ctx, "---|");
  exp_report(ctx, "\n");
  for (int s = 0; s < ctx->nruns; s++) {
    exp_report(ctx, "| %s |", ctx->runs[s].name);
    for (int d = 0; d < NDIV; d++)
      exp_report(ctx, " %s%.2f |", all[s][d] ? ">= " : "", ttrack[s][d]);
    exp_report(ctx, "\n");
  }
  exp_report(ctx, "\n");
  int ii = exp_run_index(ctx, "implicit"), ip = exp_run_index(ctx, "poststab");
  if (exp_claim_ready(ctx, "arm2.implicit_tracks_reference")) {
    double ti = ttrack[ii][0];
    rc = exp_judge(ctx, "arm2.implicit_tracks_reference",
                   (exp_value[]){{"whole_run", (double)all[ii][0]}, {"t_track", ti}}, 2,
                   "tol = %g m on y of node 2 over %g s; at h/2, h/4, h/8 implicit tracks %.2f, %.2f, %.2f s", p.tol, T,
                   ttrack[ii][1], ttrack[ii][2], ttrack[ii][3]);
  }
  if (!rc && exp_claim_ready(ctx, "arm2.poststab_deviates")) {
    double ti = ttrack[ii][0], tp = ttrack[ip][0];
    /* The time each leaves the band, infinite when it never does. */
    double dp = all[ip][0] ? INFINITY : tp, di = all[ii][0] ? INFINITY : ti;
    rc = exp_judge(ctx, "arm2.poststab_deviates",
                   (exp_value[]){{"t_deviate", dp}, {"lead", dp - di}}, 2,
                   "post-stab leaves the %g m band after %.2f s, implicit after %.2f s; post-stab at h/2, h/4, h/8: "
                   "%.2f, %.2f, %.2f s; energy at %g s (the reference conserves E = 0; hanging at rest is %.4g): "
                   "post-stab %.4g, implicit %.4g",
                   p.tol, tp, ti, ttrack[ip][1], ttrack[ip][2], ttrack[ip][3], T,
                   -p.mass * p.g * p.length * (double)(p.links * (p.links + 1) / 2), eend[ip][0], eend[ii][0]);
  }
out:
  cdyn_ref_nlink_free(ref);
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

const cdyn_experiment cdyn_experiment_arm2_trajectory = {
  .name = "arm2-trajectory",
  .description = "2-link arm: y of node 2 against the reduced-coordinate reference, at h, h/2, h/4, h/8",
  .source = "001 fig 1, 3",
  .params = trajectory_params,
  .schemes = "baumgarte,poststab,implicit",
  .h = 0.05,
  .steps = 1460,
  .run = run_trajectory,
};
