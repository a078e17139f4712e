/*
 * arm5_runs.c: the falling 5-link robot arm of 000 (figures 2-4), as
 * arm5-improved and arm5-baumgarte run it.
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
#include "problems/arm5_runs.h"

int exp_arm5_params_get(exp_ctx *ctx, exp_arm5_params *p)
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


/* The per-step columns of a run's CSV. */
#define RUN_COLUMNS "step,t,e,e_sum,x_end,y_end,E"

typedef struct {
  const exp_arm *a;
  exp_csv *csv;
  double *traj;
  exp_arm5_result *r;
  long tail_from, tail_n;
} arm5_obs;

static int observe_arm(void *ov, const exp_state *s)
{
  arm5_obs *o = ov;
  exp_arm5_result *r = o->r;
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

int exp_arm5_run(exp_ctx *ctx, const exp_arm *a, const exp_runspec *run, const char *const *ov, double h, long steps,
            double e_lim, double gain_lim, exp_csv *csv, double *traj, exp_arm5_result *r, double *qend)
{
  memset(r, 0, sizeof *r);
  /* the last tenth, at least the last step */
  long tail_n_want = steps >= 10 ? steps / 10 : 1;
  arm5_obs o = {a, csv, traj, r, steps - tail_n_want + 1, 0};
  exp_limits lim = {e_lim, gain_lim, 0};
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

int exp_arm5_run_to_csv(exp_ctx *ctx, const exp_arm *a, const char *name, const exp_runspec *run, const char *const *ov,
               double h, long steps, double e_lim, double *traj, exp_arm5_result *r)
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
  rc = exp_arm5_run(ctx, a, run, ov, h, steps, e_lim, INFINITY, &csv, traj, r, NULL);
  int crc = exp_csv_close(&csv, rc == CDYN_OK);
  return rc ? rc : crc;
}

/* ---- the order study (beyond the papers) --------------------------------------------------- */

int exp_arm5_order_study(exp_ctx *ctx, const exp_arm5_params *p, double slope[][2])
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
  double hs[EXP_ARM5_MAX_LEVELS], ec[EXP_ARM5_MAX_LEVELS], ep[EXP_ARM5_MAX_LEVELS];
  int ok[EXP_ARM5_MAX_LEVELS], okp[EXP_ARM5_MAX_LEVELS];
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
      exp_arm5_result r;
      if ((rc = exp_arm5_run(ctx, &a, &ctx->runs[s], NULL, hs[k], steps, INFINITY, INFINITY, NULL, NULL, &r, q)))
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

int exp_arm5_check(exp_ctx *ctx)
{
  exp_arm5_params p;
  return exp_arm5_params_get(ctx, &p);
}

