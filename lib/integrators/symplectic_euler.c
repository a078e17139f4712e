/*
 * symplectic_euler.c: semi-implicit (symplectic) Euler for q' = v,
 * v' = a(q, v, t), the update of 001 eqs 11-12:
 *   v+ = v + h a(q, v, t),   q+ = q + h v+          first order.
 */
#include "core/internal.h"

static int step(cdyn_stepper *st, cdyn_integrator_work *iw, cdyn_accel_fn accel, void *ctx,
                double *q, double *v, double t, double h)
{
  double **w = iw->vec;
  double *a = w[0];
  int rc = accel(st, ctx, q, v, t, a);
  if (rc < 0)
    return rc;
  for (size_t k = 0; k < 3 * cdyn_stepper_data(st)->n; k++) {
    v[k] += h * a[k];
    q[k] += h * v[k];
  }
  return rc;
}

const cdyn_integrator_type cdyn_integrator_symplectic_euler = {
  .name = "symplectic-euler",
  .description = "symplectic Euler: v+ = v + h a, q+ = q + h v+",
  .order = 1,
  .last_eval = CDYN_LAMBDA_START,
  .nvec = 1,
  .step = step,
};
