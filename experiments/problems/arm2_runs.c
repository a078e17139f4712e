/*
 * arm2_runs.c: the falling 2-link robot arm of 001 (figures 1-3), as
 * arm2-drift and arm2-trajectory run it.
 *
 * Mechanism: nodes 0, 1, 2 joined by rigid links of length L (distance
 * constraints |x_i - x_j| = L); node 0 pinned at the origin by a pin
 * constraint (001: "fixed ends are point-node constraints"); point masses m
 * at the nodes; gravity g along -y.  Start: horizontal along +x, at rest.
 * The paper gives h = 0.05 and 1460 steps (73 s) and leaves the masses,
 * lengths, g and Baumgarte's alpha, beta open; the defaults below are the
 * choices of this suite (doc/choices.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"
#include "nlink.h"
#include "problems/problems.h"
#include "problems/arm2_runs.h"

int exp_arm2_params_get(exp_ctx *ctx, exp_arm2_params *p)
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
  const exp_arm2_params *p = pv;
  exp_arm a = {p->links, p->length, p->g, p->mass, 0.0, NULL};
  return exp_arm_build(&a, out);
}

/* The observer of an arm run: one CSV row per step, e_n kept for the
   claims, and the deviation from the reference when there is one. */
typedef struct {
  const exp_arm2_params *p;
  exp_csv *csv;
  double *row, *xy, esum;
  cdyn_ref_nlink *ref;
  exp_arm2_result *res;
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
int exp_arm2_run(exp_ctx *ctx, const exp_arm2_params *p, const char *name, const exp_runspec *run, double h, long steps,
                   cdyn_ref_nlink *ref, exp_arm2_result *res)
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

double exp_arm2_maxval(const double *x, long from, long to)
{
  double m = 0;
  for (long k = from; k < to; k++)
    if (x[k] > m)
      m = x[k];
  return m;
}

