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
 * the scheme damps energy, the more the larger h.
 *
 * Expected order: 1.
 */
#include "cdyn_internal.h"

static int step(cdyn_stepper *st, double h)
{
  cdyn_system *s = st->sys;
  double *q = s->q, *v = s->v, t = s->t;
  const double *w = s->winv;
  double *a = st->vec[0], *u = st->vec[1], *jt = st->vec[2], *b = st->mvec[0];
  size_t n = st->n;
  int rc;
  if ((rc = cdyn_free_accel(st, q, v, t, a)))
    return rc;
  int src = CDYN_OK;
  if (st->m) {
    if ((rc = cdyn_prepare(st, q, v, t)))
      return rc;
    for (size_t k = 0; k < 3 * n; k++)
      u[k] = v[k] / h + a[k];
    cdyn_jmul(st, u, b);
    for (size_t r = 0; r < st->m; r++)
      b[r] += st->rows[r].phi / (h * h) + st->rows[r].phi_t / h;
    src = cdyn_solve(st, b, st->lambda);
    if (src < 0)
      return src;
    cdyn_jtmul(st, st->lambda, jt);
    for (size_t i = 0; i < n; i++)
      for (int d = 0; d < 3; d++)
        a[3 * i + d] -= w[i] * jt[3 * i + d];
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
  .options = NULL,
  .options_size = 0,
  .step = step,
};
