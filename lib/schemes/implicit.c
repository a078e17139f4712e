/*
 * implicit.c: first-order implicit constraint enforcement (001 eqs 11-16).
 *
 *   v+ = v + h W (F - J^T lambda)                               (eq 11)
 *   q+ = q + h v+                                               (eq 12)
 *   Phi(q+, t + h) = 0, linearised at (q, t):
 *   Phi + J (q+ - q) + h Phi_t = 0                              (eq 14)
 * which gives, with everything at (q, t),
 *   A lambda = Phi / h^2 + Phi_t / h + J (v / h + W F)          (eq 16)
 * A = J W J^T, the matrix of Baumgarte's method: one assembly and one
 * solve per step.  This is one linearised Newton step on Phi(q+) = 0, so
 * the scheme damps energy, the more the larger h.  lambda is the force
 * multiplier of the whole step (the constraint force acts from t to t + h
 * as a backward-Euler impulse), so it is the force averaged over the step
 * and belongs to its midpoint, t + h/2 (lambda_time; first order, which
 * the convergence table and tests/test_schemes.c measure).  No history: a change of the constraint
 * set needs nothing.
 *
 * Expected order: 1.
 *
 * Inconsistent constraints (Phi(q) = 0 without a solution: a particle
 * pinned at two points) are not detected: the step takes the
 * least-squares solution of its linear system and returns success.
 * newton, shake and rattle report them (CDYN_EINFEASIBLE).
 */
#include <stddef.h>
#include <stdlib.h>

#include "core/internal.h"

/* Work only: the scheme keeps no history, so it needs no reset. */
typedef struct {
  double *a, *u, *jt; /* 3n */
  double *b;          /* m */
} state;

static int alloc(void **out, size_t n, size_t m)
{
  const size_t off[] = {offsetof(state, a), offsetof(state, u), offsetof(state, jt), offsetof(state, b)};
  const size_t len[] = {3 * n, 3 * n, 3 * n, m};
  return cdyn_state_alloc(out, sizeof(state), off, len, 4);
}

static int step(cdyn_stepper *st, void *state_, double h)
{
  const state *ws = state_;
  const cdyn_scheme_data *d = cdyn_stepper_data(st);
  double *q = d->q, *v = d->v, t = d->t;
  const double *w = d->winv;
  double *a = ws->a, *u = ws->u, *jt = ws->jt, *b = ws->b;
  size_t n = d->n;
  int rc;
  if ((rc = cdyn_free_accel(st, q, v, t, a)))
    return rc;
  int src = CDYN_OK;
  if (d->m) {
    if ((rc = cdyn_prepare(st, q, v, t)))
      return rc;
    for (size_t k = 0; k < 3 * n; k++)
      u[k] = v[k] / h + a[k];
    cdyn_jmul(st, u, b);
    for (size_t r = 0; r < d->m; r++)
      b[r] += d->rows[r].phi / (h * h) + d->rows[r].phi_t / h;
    src = cdyn_solve(st, b, d->lambda);
    if (src < 0)
      return src;
    cdyn_jtmul(st, d->lambda, jt);
    for (size_t i = 0; i < n; i++)
      for (int c = 0; c < 3; c++)
        a[3 * i + c] -= w[i] * jt[3 * i + c];
  }
  for (size_t k = 0; k < 3 * n; k++) {
    v[k] += h * a[k];
    q[k] += h * v[k];
  }
  return src;
}

const cdyn_scheme_type cdyn_scheme_implicit = {
  .name = "implicit",
  .description = "first-order implicit constraint enforcement",
  .source = "001 eqs 11-16",
  .order = 1,
  .lambda_order = 1,
  .lambda_time = CDYN_LAMBDA_MID,
  .options = NULL,
  .options_size = 0,
  .alloc = alloc,
  .free = free,
  .step = step,
};
