/*
 * shake.c: SHAKE (Ryckaert, Ciccotti and Berendsen, J. Comput. Phys. 23,
 * 327 (1977)) in the velocity-Verlet form of Andersen (J. Comput. Phys. 52,
 * 24 (1983)).
 *
 *   v1/2 = v + (h/2) W (F(q, v, t) - J(q)^T lambda)
 *   q+   = q + h v1/2,  with lambda such that Phi(q+, t + h) = 0
 *   v+   = v1/2 + (h/2) W F(q+, v*, t + h)
 * The constraint gradients stay at q.  There is no velocity constraint, so
 * J(q+) v+ + Phi_t differs from zero by O(h) (SHAKE's velocities are not
 * tangent; RATTLE, rattle.c, adds the projection that makes them so).  The
 * positions of this one-step form are those of the Stoermer-Verlet SHAKE
 *   q+ - 2 q + q- = h^2 W (F(q) - J(q)^T Lambda),  Phi(q+) = 0,
 *   q1 = q0 + h v0 + (h^2/2) W (F(q0) - J(q0)^T Lambda_0)   (first step).
 *
 * Multipliers.  lambda above is not the constraint force: the second half
 * kick carries none, so v+ keeps a normal component (h/2) W J^T Lambda,
 * which the next first half kick must cancel as well.  Subtracting two
 * consecutive half-step velocities gives, exactly,
 *   v1/2 - v-1/2 = h W F(q) - (h/2) W J(q)^T lambda,  so  Lambda = lambda / 2,
 * on every step that follows a SHAKE step; on the first step (and after
 * cdyn_stepper_reset or a failed step) the comparison with the starting
 * step above gives Lambda = lambda.  The rule is per row: it holds for a
 * row that the previous step enforced, since the velocity carries that
 * row's normal component.  When the constraint set changes, each row that
 * stays keeps its history (cdyn_set_change.from) and a new row starts
 * with Lambda = lambda; the positions and velocities do not depend on
 * this history at all.  Lambda is the force multiplier of
 * the library's convention M qdd + J^T Lambda = F (it approximates the
 * exact multiplier to O(h^2)), and st->lambda holds it.  RATTLE reports
 * the same Lambda (rattle.c).
 *
 * Velocity-dependent forces.  The sources assume conservative forces.
 * This file evaluates the second half kick at v* = 2 v1/2 - v, which
 * differs from v+ by O(h^2), so a damper costs no order; for forces that
 * depend on q and t only, v* does not enter.
 *
 * The nonlinear equation R(lambda) = Phi(q+(lambda), t + h) = 0 has the
 * Jacobian -(h^2/2) J(q+) W J(q)^T, which is not symmetric, while the
 * library's solvers take the symmetric positive semi-definite A = J W J^T.
 * This file uses A(q) = J(q) W J(q)^T throughout, the usual matrix-SHAKE
 * simplification: it is assembled and factored once per step, and each
 * correction is one more solve with it:
 *   (h^2 / 2) A(q) dlambda = Phi(q+_k, t + h),  lambda += dlambda.
 * The iteration converges linearly, at a rate of order |J(q+) - J(q)|,
 * about h |v| / L for a link.
 *
 * Start: the first multiplier solves the constraint linearised at (q, t),
 *   Phi + J (q+ - q) + h Phi_t = 0, i.e.
 *   A lambda_1 = 2 Phi / h^2 + 2 (J v + Phi_t) / h + J W F   (at q, t),
 * the system of 000's midpoint scheme (improved.c), so that with
 * max_iter = 1 the positions are that scheme's; and because it divides no
 * rounding error by h^2, lambda_1 is accurate even for tiny h, where
 * Phi(q+) itself is rounding noise.  The iteration stops when
 * max_r |Phi_r(q+)| <= tol (a length; default 1e-10 m, see newton.c for
 * the argument); non-convergence is handled as in newton.c
 * (cdyn_iter_verdict): CDYN_NOCONV with the last iterate at max_iter or at
 * a rounding stall, CDYN_EDIVERGED if the residual grows.
 *
 * The iterates' Phi is evaluated by cdyn_eval_phi, so that the rows keep
 * J(q) for the whole iteration.
 *
 * Work (cdyn_shake_work): q_n, v_n, u = v + (h/2) W F then W F(q+),
 * J(q)^T lambda then v*; the first right-hand side, Phi(q+_k), dlambda.
 * The state adds, per row, whether the previous step enforced it, and
 * RATTLE's velocity multipliers (rattle.c).
 *
 * Measured: 2 to 3 corrections per step (mean 2.9) on a single pendulum
 * at h = 0.01, 2 to 5 (mean 3.8) on a 10-link chain at h = 0.002; fitted
 * order in position 2.00; energy error bounded and falling by 4.0 per
 * halving of h.
 *
 * Expected order: 2 in position and in Lambda, which belongs to the
 * step's start t (the Stoermer-Verlet force at q_n); 1 in velocity, whose
 * normal component is O(h) (above).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "schemes/shake.h"

typedef cdyn_shake_opts opts;

/* ---- the state of shake and rattle ------------------------------------------ */

void cdyn_shake_free(void *p)
{
  cdyn_shake_state *s = p;
  if (!s)
    return;
  free(s->w.block);
  free(s->had);
  free(s);
}

int cdyn_shake_alloc(void **out, size_t n, size_t m)
{
  cdyn_shake_state *s = calloc(1, sizeof *s);
  *out = s;
  if (!s || !(s->had = calloc(m ? m : 1, 1)) || !(s->w.block = calloc(12 * n + 5 * m + 1, sizeof(double))))
    return cdyn_error(CDYN_ENOMEM, "shake: out of memory for n = %zu, m = %zu", n, m);
  cdyn_shake_work *w = &s->w;
  w->q0 = w->block;
  w->v0 = w->q0 + 3 * n;
  w->u = w->v0 + 3 * n;
  w->jt = w->u + 3 * n;
  w->b = w->jt + 3 * n;
  w->phi = w->b + m;
  w->dl = w->phi + m;
  s->mu = w->dl + m;
  s->spare = s->mu + m;
  return CDYN_OK;
}

void cdyn_shake_reset(void *p)
{
  cdyn_shake_state *s = p;
  s->history = 0;
}

void cdyn_shake_changed(void *p, const cdyn_stepper *st, const cdyn_set_change *c)
{
  cdyn_shake_state *s = p;
  size_t m = cdyn_stepper_data(st)->m;
  if (!s->history)
    return;
  /* Carry each remaining row's flag and mu to its new place (the flags
     through `spare`, as 0 and 1). */
  for (size_t r = 0; r < m; r++)
    s->spare[r] = c->from[r] >= 0 && s->had[c->from[r]] ? 1.0 : 0.0;
  for (size_t r = 0; r < m; r++)
    s->had[r] = s->spare[r] != 0.0;
  for (size_t r = 0; r < m; r++)
    s->spare[r] = c->from[r] >= 0 ? s->mu[c->from[r]] : 0.0;
  memcpy(s->mu, s->spare, m * sizeof(double));
}

/* After a successful step: every row of it now has history. */
void cdyn_shake_mark(cdyn_shake_state *s, size_t m)
{
  memset(s->had, 1, m);
  s->history = 1;
}

int cdyn_shake_step(cdyn_stepper *st, const cdyn_shake_work *wk, double h, double tol, long max_iter,
                    const char *name)
{
  const cdyn_scheme_data *d = cdyn_stepper_data(st);
  double *q = d->q, *v = d->v, t = d->t, t1 = t + h;
  const double *w = d->winv;
  double *q0 = wk->q0, *v0 = wk->v0, *u = wk->u, *jt = wk->jt;
  double *b = wk->b, *phi = wk->phi, *dl = wk->dl, *lam = d->lambda;
  size_t n3 = 3 * d->n, m = d->m;
  int rc;
  if ((rc = cdyn_free_accel(st, q, v, t, u)))
    return rc;
  memcpy(q0, q, n3 * sizeof(double));
  memcpy(v0, v, n3 * sizeof(double));
  int status = CDYN_OK;
  if (!m) {
    for (size_t k = 0; k < n3; k++) {
      v[k] = v0[k] + 0.5 * h * u[k];
      q[k] = q0[k] + h * v[k];
    }
    cdyn_record_nonlinear(st, 0, 0.0, 1);
  } else {
    if ((rc = cdyn_prepare(st, q, v, t)))
      return rc;
    cdyn_jmul(st, u, b);
    cdyn_jmul(st, v, dl);
    for (size_t i = 0; i < m; i++)
      b[i] += 2.0 * d->rows[i].phi / (h * h) + 2.0 * (dl[i] + d->rows[i].phi_t) / h;
    /* From here on u = v + (h/2) W F, so that v1/2 = u - (h/2) W J^T lambda. */
    for (size_t k = 0; k < n3; k++)
      u[k] = v0[k] + 0.5 * h * u[k];
    int linear = cdyn_solve(st, b, lam);
    if (linear < 0)
      return linear;
    unsigned it = 1;
    double r = INFINITY, rprev = INFINITY;
    enum cdyn_iter_verdict verdict;
    for (;;) {
      cdyn_jtmul(st, lam, jt);
      for (size_t k = 0; k < n3; k++) {
        v[k] = u[k] - 0.5 * h * w[k / 3] * jt[k];
        q[k] = q0[k] + h * v[k];
      }
      if ((rc = cdyn_eval_phi(st, q, t1, phi, &r)))
        return rc;
      verdict = cdyn_iter_verdict(st, q, r, rprev, tol, it, max_iter);
      if (verdict != CDYN_ITER_CONTINUE)
        break;
      rprev = r;
      for (size_t i = 0; i < m; i++)
        phi[i] *= 2.0 / (h * h);
      if ((rc = cdyn_iter_correct(st, phi, dl, lam, &linear)))
        return rc;
      it++;
    }
    if ((status = cdyn_iter_finish(st, name, verdict, it, r, rprev, tol, linear)) < 0)
      return status;
  }
  /* Second half kick with the force at q+ (v* = 2 v1/2 - v_n). */
  for (size_t k = 0; k < n3; k++)
    jt[k] = 2.0 * v[k] - v0[k];
  if ((rc = cdyn_free_accel(st, q, jt, t1, u)))
    return rc;
  for (size_t k = 0; k < n3; k++)
    v[k] += 0.5 * h * u[k];
  return status;
}

static int step(cdyn_stepper *st, void *state, double h)
{
  cdyn_shake_state *s = state;
  const cdyn_scheme_data *d = cdyn_stepper_data(st);
  const opts *o = d->opts;
  int rc = cdyn_shake_step(st, &s->w, h, o->tol, o->max_iter, "shake");
  if (rc < 0)
    return rc;
  /* The Stoermer-Verlet multiplier (see the top of this file). */
  if (s->history)
    for (size_t i = 0; i < d->m; i++)
      if (s->had[i])
        d->lambda[i] *= 0.5;
  cdyn_shake_mark(s, d->m);
  return rc;
}

const cdyn_option cdyn_shake_options[] = {
  {"tol", CDYN_OPT_DOUBLE, offsetof(opts, tol), "1e-10", 0.0, 1e300, NULL,
   "tolerance on max |Phi_r(q+)| (a length)"},
  {"max_iter", CDYN_OPT_INT, offsetof(opts, max_iter), "50", 1, 1e6, NULL,
   "position iterations (linear solves) per step"},
  CDYN_OPTIONS_END};

const cdyn_scheme_type cdyn_scheme_shake = {
  .name = "shake",
  .description = "SHAKE in velocity-Verlet form: positions on Phi = 0, velocities not projected",
  .source = "Ryckaert, Ciccotti, Berendsen 1977; Andersen 1983",
  .order = 2,
  .velocity_order = 1,
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
