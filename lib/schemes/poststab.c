/*
 * poststab.c: post-stabilisation (Cline and Pai; 001 eqs 17-18).
 *
 * An unstabilised step (Baumgarte with alpha = beta = 0, over an explicit
 * integrator) is followed by a projection of the positions back towards
 * Phi = 0, linearised at the new positions:
 *   Phi(q + dq) ~ Phi(q) + J dq = 0                            (eq 17)
 *   dq = -D J^T (J D J^T)^-1 Phi(q)                            (eq 18)
 * with D = I, the plain pseudo-inverse of 001 eq 18 (weighting=unit, the
 * default), or D = W = M^-1 as Cline and Pai weight it (weighting=mass).
 * 001 corrects positions only (project_velocity=off, the default); the
 * usual companion projection of the velocities onto J v + Phi_t = 0,
 *   v <- v - D J^T (J D J^T)^-1 (J v + Phi_t),
 * is available as project_velocity=on.  `iterations` repeats the position
 * projection (Newton iterations on Phi(q) = 0); 001 does one.
 *
 * With D = I a pinned particle moves like any other under the projection,
 * so pins must be constraints, not infinite masses.
 *
 * History: only a multistep integrator's (AB2), which a change of the
 * constraint set drops (ab2.c says why).  lambda is that of the
 * unstabilised step's last acceleration evaluation (the projection's
 * multipliers are displacements, not forces, and are not reported).
 *
 * Expected order: that of the integrator (1 for symplectic Euler), in
 * position, velocity and multiplier (at the step's start).
 *
 * Inconsistent constraints (Phi(q) = 0 without a solution: a particle
 * pinned at two points) are not detected: the step takes the
 * least-squares solution of its linear system and returns success.
 * newton, shake and rattle report them (CDYN_EINFEASIBLE).
 */
#include <stddef.h>

#include "core/internal.h"

typedef struct {
  const cdyn_integrator_type *integrator;
  int weighting; /* 0 unit, 1 mass */
  int project_velocity;
  long iterations;
} opts;

static const char *const weightings[] = {"unit", "mass", NULL};

typedef struct {
  cdyn_integrated head;
  cdyn_accel_work aw;
  double *mu, *b;   /* m: the projection's multipliers and right-hand side */
  double *jt;       /* 3n: D J^T mu */
  double *ones;     /* n: D = I */
} state;

static int alloc(void **out, size_t n, size_t m)
{
  const size_t off[] = {offsetof(state, aw.b), offsetof(state, aw.jv), offsetof(state, aw.jt),
                        offsetof(state, mu),   offsetof(state, b),     offsetof(state, jt),
                        offsetof(state, ones)};
  const size_t len[] = {m, m, 3 * n, m, m, 3 * n, n};
  int rc = cdyn_integrated_alloc(out, sizeof(state), n, off, len, 7);
  if (rc)
    return rc;
  const state *s = *out;
  for (size_t i = 0; i < n; i++)
    s->ones[i] = 1.0;
  return CDYN_OK;
}

static int accel(cdyn_stepper *st, void *ctx, const double *q, const double *v, double t, double *a)
{
  return cdyn_constrained_accel(st, q, v, t, 0.0, 0.0, a, &((const state *)ctx)->aw);
}

/* x <- x - D J^T (J D J^T)^-1 b, through the rows at the new state. */
static int project(cdyn_stepper *st, const state *s, const double *d, const double *b, double *x)
{
  size_t n = cdyn_stepper_data(st)->n;
  int rc;
  if ((rc = cdyn_assemble(st, d)) || (rc = cdyn_factor(st)))
    return rc;
  int src = cdyn_solve(st, b, s->mu);
  if (src < 0)
    return src;
  cdyn_jtmul(st, s->mu, s->jt);
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 3; c++)
      x[3 * i + c] -= d[i] * s->jt[3 * i + c];
  return src;
}

static int step(cdyn_stepper *st, void *ctx, double h)
{
  state *s = ctx;
  const cdyn_scheme_data *dd = cdyn_stepper_data(st);
  const opts *o = dd->opts;
  int rc = cdyn_integrate(st, o->integrator, &s->head.iw, accel, s, h);
  if (rc < 0 || !dd->m)
    return rc;
  int worst = rc;
  const double *d = o->weighting ? dd->winv : s->ones;
  double t1 = dd->t + h, *b = s->b;
  for (long it = 0; it < o->iterations; it++) {
    if ((rc = cdyn_eval_rows(st, dd->q, dd->v, t1)))
      return rc;
    for (size_t r = 0; r < dd->m; r++)
      b[r] = dd->rows[r].phi;
    if ((rc = project(st, s, d, b, dd->q)) < 0)
      return rc;
    if (rc > worst)
      worst = rc;
  }
  if (o->project_velocity) {
    if ((rc = cdyn_eval_rows(st, dd->q, dd->v, t1)))
      return rc;
    cdyn_jmul(st, dd->v, b);
    for (size_t r = 0; r < dd->m; r++)
      b[r] += dd->rows[r].phi_t;
    if ((rc = project(st, s, d, b, dd->v)) < 0)
      return rc;
    if (rc > worst)
      worst = rc;
  }
  return worst;
}

static const cdyn_option options[] = {
  CDYN_INTEGRATOR_OPTION(opts, integrator, "symplectic-euler", "explicit integrator of the unstabilised step"),
  {"weighting", CDYN_OPT_CHOICE, offsetof(opts, weighting), "unit", 0, 0, weightings,
   "projection metric: unit (001 eq 18) or mass (Cline and Pai)"},
  {"project_velocity", CDYN_OPT_BOOL, offsetof(opts, project_velocity), "off", 0, 0, NULL,
   "also project velocities onto J v + Phi_t = 0"},
  {"iterations", CDYN_OPT_INT, offsetof(opts, iterations), "1", 1, 100, NULL,
   "position projections per step"},
  CDYN_OPTIONS_END};

const cdyn_scheme_type cdyn_scheme_poststab = {
  .name = "poststab",
  .description = "post-stabilisation: unstabilised step, then position projection",
  .source = "001 eqs 17-18 (Cline and Pai)",
  .order = 1,
  .lambda_order = 1,
  .lambda_time = CDYN_LAMBDA_START,
  .options = options,
  .options_size = sizeof(opts),
  .alloc = alloc,
  .free = cdyn_integrated_free,
  .step = step,
  .reset = cdyn_integrated_reset,
};
