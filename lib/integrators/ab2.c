/*
 * ab2.c: two-step Adams-Bashforth for q' = v, v' = a(q, v, t), with a
 * variable step (Hairer, Norsett and Wanner, Solving ODEs I, sec. III.5;
 * the constant-step form is the AB2 that 000 names for its predictor).
 * With h = h_n, h_p = h_n-1 the size of the previous step and r = h / h_p,
 *   v+ = v_n + h [(1 + r/2) a_n - (r/2) a_n-1]
 *   q+ = q_n + h [(1 + r/2) v_n - (r/2) v_n-1]
 * which is the integral over [t_n, t_n + h] of the line through
 * (t_n-1, f_n-1) and (t_n, f_n); r = 1 gives the familiar
 * (h/2)(3 f_n - f_n-1).  Second order.
 *
 * Choices where the method itself is silent:
 * - Start.  With no history (the first step, after cdyn_stepper_reset,
 *   after a failed step, after any scheme option changed, and after the
 *   constraint set changed: w->history == 0) the step is an explicit Euler
 *   step, q+ = q + h v, v+ = v + h a.  Its local error O(h^2) is made once,
 *   so the global order stays 2.  A change of the constraint set drops the
 *   history because a_n-1 is the acceleration under the old set:
 *   extrapolating across that jump would make an O(h) error in v, where
 *   the Euler start makes O(h^2).
 * - Step-size changes are handled by the variable-step formula above, not
 *   by a restart, so a caller may vary h freely; the previous step size is
 *   w->h_last, which cdyn_integrate records after every successful step.
 *   (The formula is exact for linear f whatever r is; a very large r
 *   amplifies the extrapolation, as for any multistep method.)
 * - History lives in the integrator's work, which the scheme owns:
 *   vec[1] = a_n-1 and vec[2] = v_n-1, both at the start of the previous
 *   step.  A scheme calls the integrator once per step and resets the work
 *   with its own reset.
 */
#include "core/internal.h"

static int step(cdyn_stepper *st, cdyn_integrator_work *iw, cdyn_accel_fn accel, void *ctx,
                double *q, double *v, double t, double h)
{
  double **w = iw->vec;
  double *a = w[0], *aprev = w[1], *vprev = w[2];
  size_t N = 3 * cdyn_stepper_data(st)->n;
  int rc = accel(st, ctx, q, v, t, a);
  if (rc < 0)
    return rc;
  /* Weights of f_n and f_n-1; (1, 0) is explicit Euler. */
  double c0 = 1.0, c1 = 0.0;
  if (iw->history) {
    double r = h / iw->h_last;
    c0 = 1.0 + 0.5 * r;
    c1 = -0.5 * r;
  }
  for (size_t k = 0; k < N; k++) {
    double vn = v[k], an = a[k];
    q[k] += h * (c0 * vn + c1 * vprev[k]);
    v[k] += h * (c0 * an + c1 * aprev[k]);
    aprev[k] = an;
    vprev[k] = vn;
  }
  return rc;
}

const cdyn_integrator_type cdyn_integrator_ab2 = {
  .name = "ab2",
  .description = "two-step Adams-Bashforth (variable step; Euler start)",
  .order = 2,
  .last_eval = CDYN_LAMBDA_START,
  .nvec = 3,
  .step = step,
};
