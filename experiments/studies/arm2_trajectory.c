/*
 * arm2_trajectory.c: arm2-trajectory, the falling 2-link robot arm of 001
 * (figures 1, 3); the arm and its runs: problems/arm2_runs.c.
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
#include "problems/arm2_runs.h"

static const exp_param trajectory_params[] = {
  EXP_ARM2_PARAMS,
  {"track_tol", "0.1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX,
   "tracking tolerance on y of the last node (m)"},
  EXP_PARAMS_END};

/* Parameters whose names are options of a scheme are passed on to it
   (exp_stepper_options, runner/runner.c), so the tracking tolerance is `track_tol`: under the name
   `tol` it would set the iteration tolerance of newton, shake and rattle. */

/* Bounds the reference's fixed-size row and header buffers. */
#define MAX_LINKS EXP_ARM_MAX

/* The same arm in joint angles: horizontal (theta = pi/2) at rest. */
static int build_reference(const exp_arm2_params *p, cdyn_ref_nlink **out)
{
  exp_arm a = {p->links, p->length, p->g, p->mass, 0.0, NULL};
  return exp_arm_reference(&a, out);
}

/* ---- arm2-trajectory ----------------------------------------------------------- */

#define NDIV 4

static int run_trajectory(exp_ctx *ctx)
{
  exp_arm2_params p;
  int rc = exp_arm2_params_get(ctx, &p);
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
      exp_arm2_result r;
      memset(&r, 0, sizeof r);
      rc = exp_arm2_run(ctx, &p, name, &ctx->runs[s], h, steps, ref, &r);
      if (!rc) {
        ttrack[s][d] = r.t_track;
        all[s][d] = r.tracked_all;
        eend[s][d] = r.E_end;
        double v[6] = {h, (double)steps, r.t_track, (double)r.tracked_all, exp_arm2_maxval(r.e, 0, steps + 1), r.E_end};
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
/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "y_ref", "m", "y of the last node in the reduced-coordinate reference at t"},
  {NULL, "dev", "m", "y of the last node minus y_ref"},
  {"reference", "x#", "m", "x of node # of the reference (node 0 is the pivot at the origin)"},
  {"reference", "y#", "m", "y of node # of the reference"},
  {"reference", "E", "J", "total energy of the reference"},
  {"tracking", "t_track", "s",
   "time until y of the last node first leaves track_tol of the reference (the run's length if never)"},
  {"tracking", "tracked_all", "1", "1 if it never left the band, else 0"},
  {"tracking", "max_e", "m", "largest e_n of the run"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_arm2_trajectory = {
  .name = "arm2-trajectory",
  .description = "2-link arm: y of node 2 against the reduced-coordinate reference, at h, h/2, h/4, h/8",
  .source = "001 fig 1, 3",
  .params = trajectory_params,
  .columns = columns,
  .schemes = "baumgarte,poststab,implicit",
  .h = 0.05,
  .steps = 1460,
  .run = run_trajectory,
};
