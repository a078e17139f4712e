/*
 * rk4.c: classical fourth-order Runge-Kutta for q' = v, v' = a(q, v, t).
 *   k1 = (v,            a(q, v, t))
 *   k2 = (v + h/2 k1v,  a(q + h/2 k1q, v + h/2 k1v, t + h/2))
 *   k3 = (v + h/2 k2v,  a(q + h/2 k2q, v + h/2 k2v, t + h/2))
 *   k4 = (v + h k3v,    a(q + h k3q,   v + h k3v,   t + h))
 *   (q, v)+ = (q, v) + h/6 (k1 + 2 k2 + 2 k3 + k4)          fourth order.
 * The q-component of each stage is the stage velocity, so only the stage
 * point (qt, vt), the acceleration and the two running sums are stored.
 */
#include "core/internal.h"

static int step(cdyn_stepper *st, cdyn_integrator_work *iw, cdyn_accel_fn accel, void *ctx,
                double *q, double *v, double t, double h)
{
  double **w = iw->vec;
  double *a = w[0], *qt = w[1], *vt = w[2], *sq = w[3], *sv = w[4];
  size_t N = 3 * cdyn_stepper_data(st)->n;
  int worst = 0;
  int rc = accel(st, ctx, q, v, t, a);
  if (rc < 0)
    return rc;
  worst = rc;
  for (size_t k = 0; k < N; k++) {
    sq[k] = v[k];
    sv[k] = a[k];
    qt[k] = q[k] + 0.5 * h * v[k];
    vt[k] = v[k] + 0.5 * h * a[k];
  }
  static const double c[3] = {0.5, 0.5, 1.0}; /* stage times */
  static const double wgt[3] = {2.0, 2.0, 1.0};
  for (int s = 0; s < 3; s++) {
    rc = accel(st, ctx, qt, vt, t + c[s] * h, a);
    if (rc < 0)
      return rc;
    if (rc > worst)
      worst = rc;
    double hn = s < 2 ? c[s + 1] * h : 0.0;
    for (size_t k = 0; k < N; k++) {
      sq[k] += wgt[s] * vt[k];
      sv[k] += wgt[s] * a[k];
      if (s < 2) {
        /* Next stage point from this stage's slope (vt, a). */
        qt[k] = q[k] + hn * vt[k];
        vt[k] = v[k] + hn * a[k];
      }
    }
  }
  for (size_t k = 0; k < N; k++) {
    q[k] += h / 6.0 * sq[k];
    v[k] += h / 6.0 * sv[k];
  }
  return worst;
}

const cdyn_integrator_type cdyn_integrator_rk4 = {
  .name = "rk4",
  .description = "classical fourth-order Runge-Kutta",
  .order = 4,
  .last_eval = CDYN_LAMBDA_END,
  .nvec = 5,
  .step = step,
};
