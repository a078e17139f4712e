/*
 * arm2.c: the falling 2-link robot arm of 001 (figures 1-3).
 *
 * Mechanism: nodes 0, 1, 2 joined by rigid links of length L (distance
 * constraints |x_i - x_j| = L); node 0 pinned at the origin by a pin
 * constraint (001: "fixed ends are point-node constraints"); point masses m
 * at the nodes; gravity g along -y.  Start: horizontal along +x, at rest.
 * The paper gives h = 0.05 and 1460 steps (73 s) and leaves the masses,
 * lengths, g and Baumgarte's alpha, beta open; the defaults below are the
 * choices of this suite (README, "Choices").
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

#include "experiment.h"
#include "nlink.h"
#include "problems.h"

static const exp_param params[] = {
  {"links", "2", "number of links"},
  {"mass", "1", "mass of every node (kg)"},
  {"length", "1", "length of every link (m)"},
  {"g", "9.81", "gravity (m/s^2), along -y"},
  {"alpha", "2", "Baumgarte damping alpha (critically damped with beta)"},
  {"beta", "2", "Baumgarte stiffness beta"},
  {"track_tol", "0.1", "arm2-trajectory: tracking tolerance on y of the last node (m)"},
  {"solver", "auto", "linear solver"},
  {NULL, NULL, NULL}};

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
  double links;
  int rc;
  if ((rc = exp_param_double(ctx, "links", &links)) || (rc = exp_param_double(ctx, "mass", &p->mass)) ||
      (rc = exp_param_double(ctx, "length", &p->length)) || (rc = exp_param_double(ctx, "g", &p->g)) ||
      (rc = exp_param_double(ctx, "track_tol", &p->tol)))
    return rc;
  if (links < 1 || links > MAX_LINKS || links != floor(links))
    return cdyn_error(CDYN_EINVAL, "links = %g: expected an integer in [1, %d]", links, MAX_LINKS);
  p->links = (size_t)links;
  if (!(p->tol > 0))
    return cdyn_error(CDYN_EINVAL, "track_tol = %g must be > 0", p->tol);
  return CDYN_OK;
}

/* The arm as a particle system (problems.c); mass and length are validated by cdyn. */
static int build_arm(const arm_params *p, cdyn_system **out)
{
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
} run_result;

/*
 * Run `scheme` for `steps` steps of `h`, writing NAME.csv.  `overrides`
 * (may be NULL) is a NULL-terminated list of option name, value pairs.
 * With `ref`, y of the last node is compared with the reference.
 */
static int run_arm(exp_ctx *ctx, const arm_params *p, const char *name, const char *scheme,
                   const char *const *overrides, double h, long steps, cdyn_ref_nlink *ref,
                   run_result *res)
{
  cdyn_system *sys = NULL;
  cdyn_stepper *st = NULL;
  exp_csv csv;
  int rc = build_arm(p, &sys);
  if (rc)
    return rc;
  if ((rc = exp_stepper_with(ctx, sys, scheme, overrides, &st)))
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
  double esum = 0;
  int ncol = 0;
  for (long k = 0; k <= steps; k++) {
    if (k > 0 && (rc = cdyn_stepper_step(st, h)) < 0)
      break;
    rc = CDYN_OK;
    double t = (double)k * h, e, T, V;
    if ((rc = cdyn_system_constraint_error(sys, &e)) || (rc = cdyn_system_energy(sys, &T, &V)))
      break;
    esum += e;
    res->e[k] = e;
    const double *q = cdyn_system_positions(sys);
    ncol = 0;
    row[ncol++] = (double)k;
    row[ncol++] = t;
    row[ncol++] = e;
    row[ncol++] = esum;
    for (size_t i = 0; i < 3 * n; i++)
      row[ncol++] = q[i];
    row[ncol++] = T + V;
    res->E_end = T + V;
    if (ref) {
      if ((rc = cdyn_ref_nlink_advance(ref, t)) || (rc = cdyn_ref_nlink_positions(ref, xy)))
        break;
      double yref = xy[2 * p->links - 1], dev = q[3 * p->links + 1] - yref;
      row[ncol++] = yref;
      row[ncol++] = dev;
      if (res->tracked_all && fabs(dev) > p->tol) {
        res->tracked_all = 0;
        res->t_track = t;
      }
    }
    if ((rc = exp_csv_row(&csv, row, ncol)))
      break;
  }
  free(row);
  free(xy);
  int crc = exp_csv_close(&csv, rc == CDYN_OK);
  if (!rc)
    rc = crc;
  if (!rc) {
    cdyn_stats s;
    cdyn_stepper_stats(st, &s);
    printf("  %-22s h = %-8g steps = %-6ld e_end = %.3e  solves/step = %.2f\n", name, h, steps,
           res->e[steps], (double)s.solves / (double)steps);
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
  run_result res[EXP_MAX_SCHEMES + 1];
  memset(res, 0, sizeof res);
  const char *names[EXP_MAX_SCHEMES + 1];
  int nrun = 0;
  for (int s = 0; s < ctx->nschemes && !rc; s++) {
    names[nrun] = ctx->schemes[s];
    rc = run_arm(ctx, &p, ctx->schemes[s], ctx->schemes[s], NULL, ctx->h, ctx->steps, NULL, &res[nrun]);
    nrun++;
  }
  /* Context: Baumgarte without feedback, the formulation that drifts. */
  static const char *const index1[] = {"alpha", "0", "beta", "0", NULL};
  int i1 = -1;
  if (!rc && !ctx->schemes_given) {
    names[nrun] = "baumgarte-a0b0";
    rc = run_arm(ctx, &p, "baumgarte-a0b0", "baumgarte", index1, ctx->h, ctx->steps, NULL, &res[nrun]);
    i1 = nrun++;
  }
  if (!rc && ctx->claims) {
    /* The runs are the schemes in order, then the context run. */
    int ib = exp_scheme_index(ctx, "baumgarte"), ip = exp_scheme_index(ctx, "poststab"),
        ii = exp_scheme_index(ctx, "implicit");
    long N = ctx->steps, q = N / 4;
    if (ib >= 0 && ip >= 0 && ii >= 0 && q >= 1) {
      /* Growth: mean error over the last quarter against the first
         (steps 1 .. N/4; step 0 is exact). */
      double gb = mean(res[ib].e, N - q + 1, N + 1) / mean(res[ib].e, 1, q + 1);
      double g1 = mean(res[i1].e, N - q + 1, N + 1) / mean(res[i1].e, 1, q + 1);
      exp_claim(ctx, "arm2.baumgarte_grows", gb, "last/first-quarter mean e_n: holds >= 2, partly > 1.2",
                gb >= 2 ? "holds" : gb > 1.2 ? "partly" : "does-not-hold",
                "alpha = beta = %s; the same ratio without feedback (alpha = beta = 0) is %.3g; mean e_n "
                "first/last quarter %.3g / %.3g",
                exp_param_string(ctx, "alpha"), g1, mean(res[ib].e, 1, q + 1), mean(res[ib].e, N - q + 1, N + 1));
      double mp = maxval(res[ip].e, N / 2, N + 1) / p.length;
      exp_claim(ctx, "arm2.poststab_to_zero", mp,
                "max e_n / L over the second half: holds <= 1e-6, partly <= 1e-3",
                mp <= 1e-6 ? "holds" : mp <= 1e-3 ? "partly" : "does-not-hold",
                "post-stabilisation (unit weighting, one projection per step); e_n at the last step %.3g",
                res[ip].e[N]);
      double mb = mean(res[ib].e, 1, N + 1), mpm = mean(res[ip].e, 1, N + 1), mi = mean(res[ii].e, 1, N + 1);
      double rb = mi / mb, rp = mi / mpm;
      int below = rb <= 0.1, above = rp >= 1;
      exp_claim(ctx, "arm2.implicit_tight", rb,
                "mean e_n implicit/Baumgarte <= 0.1 and implicit >= post-stab: both holds, one partly",
                below && above ? "holds" : below || above ? "partly" : "does-not-hold",
                "mean e_n: implicit %.3g, Baumgarte %.3g, post-stab %.3g; implicit/post-stab = %.3g", mi, mb, mpm,
                rp);
      exp_report(ctx,
                 "Mean per-step constraint error e_n over %ld steps of h = %g:\n\n"
                 "| run | mean e_n | max e_n | e_n at the end |\n|---|---|---|---|\n",
                 N, ctx->h);
      for (int k = 0; k < nrun; k++)
        exp_report(ctx, "| %s | %.3e | %.3e | %.3e |\n", names[k], mean(res[k].e, 1, N + 1),
                   maxval(res[k].e, 0, N + 1), res[k].e[N]);
      exp_report(ctx, "\n");
    }
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
  double ttrack[EXP_MAX_SCHEMES][NDIV], eend[EXP_MAX_SCHEMES][NDIV];
  int all[EXP_MAX_SCHEMES][NDIV];
  if ((rc = exp_csv_open(ctx, &csv, "tracking", "scheme,h,steps,t_track,tracked_all,max_e,E_end", NULL,
                         NULL)))
    goto out;
  for (int s = 0; s < ctx->nschemes && !rc; s++)
    for (int d = 0; d < NDIV && !rc; d++) {
      long div = 1L << d;
      double h = ctx->h / (double)div;
      long steps = ctx->steps * div;
      char name[256];
      snprintf(name, sizeof name, "%s_h%g", ctx->schemes[s], h);
      cdyn_ref_nlink_free(ref);
      ref = NULL;
      if ((rc = build_reference(&p, &ref)))
        break;
      run_result r;
      memset(&r, 0, sizeof r);
      rc = run_arm(ctx, &p, name, ctx->schemes[s], NULL, h, steps, ref, &r);
      if (!rc) {
        ttrack[s][d] = r.t_track;
        all[s][d] = r.tracked_all;
        eend[s][d] = r.E_end;
        double v[6] = {h, (double)steps, r.t_track, (double)r.tracked_all, maxval(r.e, 0, steps + 1), r.E_end};
        rc = exp_csv_row_labeled(&csv, ctx->schemes[s], v, 6);
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
  for (int s = 0; s < ctx->nschemes; s++) {
    exp_report(ctx, "| %s |", ctx->schemes[s]);
    for (int d = 0; d < NDIV; d++)
      exp_report(ctx, " %s%.2f |", all[s][d] ? ">= " : "", ttrack[s][d]);
    exp_report(ctx, "\n");
  }
  exp_report(ctx, "\n");
  if (ctx->claims) {
    int ii = exp_scheme_index(ctx, "implicit"), ip = exp_scheme_index(ctx, "poststab");
    if (ii >= 0 && ip >= 0) {
      double ti = ttrack[ii][0], tp = ttrack[ip][0];
      exp_claim(ctx, "arm2.implicit_tracks_reference", ti,
                "seconds within tol of the reference at h = 0.05: holds = whole run, partly >= 10 s",
                all[ii][0] ? "holds" : ti >= 10 ? "partly" : "does-not-hold",
                "tol = %g m on y of node 2 over %g s; at h/2, h/4, h/8 implicit tracks %.2f, %.2f, %.2f s", p.tol,
                T, ttrack[ii][1], ttrack[ii][2], ttrack[ii][3]);
      int early = !all[ip][0] && tp <= 10, shorter = tp < ti || (all[ii][0] && !all[ip][0]);
      exp_claim(ctx, "arm2.poststab_deviates", tp,
                "seconds within tol at h = 0.05: holds if <= 10 s and shorter than implicit; partly if one",
                early && shorter ? "holds" : early || shorter ? "partly" : "does-not-hold",
                "post-stab leaves the %g m band after %.2f s, implicit after %.2f s; post-stab at h/2, h/4, h/8: "
                "%.2f, %.2f, %.2f s; energy at %g s (the reference conserves E = 0; hanging at rest is %.4g): "
                "post-stab %.4g, implicit %.4g",
                p.tol, tp, ti, ttrack[ip][1], ttrack[ip][2], ttrack[ip][3], T,
                -p.mass * p.g * p.length * (double)(p.links * (p.links + 1) / 2), eend[ip][0], eend[ii][0]);
    }
  }
out:
  cdyn_ref_nlink_free(ref);
  return rc;
}

const cdyn_experiment cdyn_experiment_arm2_drift = {
  .name = "arm2-drift",
  .description = "2-link arm falling from horizontal: per-step constraint error",
  .source = "001 fig 1-2",
  .params = params,
  .schemes = "baumgarte,poststab,implicit",
  .h = 0.05,
  .steps = 1460,
  .run = run_drift,
};

const cdyn_experiment cdyn_experiment_arm2_trajectory = {
  .name = "arm2-trajectory",
  .description = "2-link arm: y of node 2 against the reduced-coordinate reference, at h, h/2, h/4, h/8",
  .source = "001 fig 1, 3",
  .params = params,
  .schemes = "baumgarte,poststab,implicit",
  .h = 0.05,
  .steps = 1460,
  .run = run_trajectory,
};
