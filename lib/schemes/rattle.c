/*
 * rattle.c: RATTLE (Andersen, J. Comput. Phys. 52, 24 (1983); Hairer,
 * Lubich and Wanner, Geometric Numerical Integration, 2nd ed., sec. VII.1,
 * the RATTLE method for constrained mechanical systems).
 *
 *   v1/2 = v + (h/2) W (F(q) - J(q)^T lambda)
 *   q+   = q + h v1/2,  Phi(q+, t + h) = 0                (SHAKE, shake.c)
 *   v+   = v1/2 + (h/2) W (F(q+) - J(q+)^T mu),
 *          J(q+) v+ + Phi_t(q+, t + h) = 0
 * The second line is SHAKE's step; with w = v1/2 + (h/2) W F(q+), SHAKE's
 * own v+, the last one is a linear solve with A(q+) = J(q+) W J(q+)^T:
 *   A(q+) nu = J(q+) w + Phi_t(q+, t + h),  v+ = w - W J(q+)^T nu,
 *   mu = 2 nu / h,
 * the mass-weighted projection of SHAKE's velocity onto the tangent space
 * of the moving constraint.  Symplectic, time-reversible and of order 2
 * when the position equation is solved exactly; here it is solved to
 * `tol` (see shake.c), which bounds the departure from reversibility.
 *
 * Multipliers.  Neither lambda nor mu alone is the force of the
 * Stoermer-Verlet form whose positions RATTLE shares with SHAKE: with
 * mu_- the velocity multiplier of the previous step (at the same q),
 *   v1/2 - v-1/2 = h W F(q) - (h/2) W J(q)^T (lambda + mu_-),
 * so that form's multiplier is Lambda = (lambda + mu_-) / 2, and on the
 * first step (and after cdyn_stepper_reset or a failed step), from the
 * starting step q1 = q0 + h v0 + (h^2/2) W (F - J^T Lambda_0), Lambda =
 * lambda.  st->lambda holds Lambda, the force multiplier of the library's
 * convention M qdd + J^T Lambda = F, the same quantity SHAKE reports (its
 * positions, and so its Lambda, are the same up to the iteration
 * tolerance).  Each lambda or mu alone is only a first-order
 * approximation of the exact multiplier; Lambda is second order.
 *
 * State: SHAKE's (cdyn_shake_state), whose work arrays the projection
 * reuses (b for J w + Phi_t, dl for nu, jt for J^T nu), and mu_- by row.
 * As for SHAKE, the rule is per row: when the constraint set changes, a
 * row that stays keeps its mu_- (cdyn_set_change.from) and a new row
 * starts with Lambda = lambda.  The trajectory does not depend on mu_-.
 *
 * Expected order: 2 in position, velocity and Lambda, which belongs to
 * the step's start t.
 */
#include <stddef.h>

#include "schemes/shake.h"

typedef cdyn_shake_opts opts; /* shake's options, shared */

static int step(cdyn_stepper *st, void *state, double h)
{
  cdyn_shake_state *s = state;
  const cdyn_scheme_data *d = cdyn_stepper_data(st);
  const opts *o = d->opts;
  int status = cdyn_shake_step(st, &s->w, h, o->tol, o->max_iter, "rattle");
  if (status < 0)
    return status;
  if (!d->m) {
    cdyn_shake_mark(s, 0);
    return status;
  }
  double *v = d->v, t1 = d->t + h, *b = s->w.b, *nu = s->w.dl, *jt = s->w.jt;
  const double *w = d->winv;
  int rc;
  if ((rc = cdyn_prepare(st, d->q, v, t1)))
    return rc;
  cdyn_jmul(st, v, b);
  for (size_t i = 0; i < d->m; i++)
    b[i] += d->rows[i].phi_t;
  int src = cdyn_solve(st, b, nu);
  if (src < 0)
    return src;
  cdyn_jtmul(st, nu, jt);
  for (size_t k = 0; k < 3 * d->n; k++)
    v[k] -= w[k / 3] * jt[k];
  /* Lambda = (lambda + mu_-) / 2 on the rows the last step enforced, then
     keep mu. */
  for (size_t i = 0; i < d->m; i++) {
    if (s->history && s->had[i])
      d->lambda[i] = 0.5 * (d->lambda[i] + s->mu[i]);
    s->mu[i] = 2.0 * nu[i] / h;
  }
  cdyn_shake_mark(s, d->m);
  return src > status ? src : status;
}

const cdyn_scheme_type cdyn_scheme_rattle = {
  .name = "rattle",
  .description = "RATTLE: SHAKE's positions, velocities projected onto J v + Phi_t = 0",
  .source = "Andersen 1983; Hairer, Lubich, Wanner, GNI sec. VII.1",
  .order = 2,
  .lambda_order = 2,
  .lambda_time = CDYN_LAMBDA_START,
  .options = cdyn_shake_options,
  .options_size = sizeof(opts),
  .alloc = cdyn_shake_alloc,
  .free = cdyn_shake_free,
  .step = step,
  .reset = cdyn_shake_reset,
  .changed = cdyn_shake_changed,
};
