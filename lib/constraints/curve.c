/*
 * curve.c: a particle on a fixed parametric curve, the "bead on a wire"
 * of 002 generalised from the circle to a wire of any shape.
 *
 * The curve is parametrised by the x coordinate, c(s) = (s, f(s), g(s)),
 * with
 *   f(s) = a0 + a1 s + a2 s^2 + A sin(k s + phi)
 *   f'   = a1 + 2 a2 s + A k cos(k s + phi)
 *   f''  = 2 a2 - A k^2 sin(k s + phi)
 * and g(s) likewise with its own six coefficients.  With x = (x, y, z) and
 * v = (vx, vy, vz):
 *   Phi_1    = y - f(x),          Phi_2 = z - g(x)
 *   J_1      = (-f'(x), 1, 0),    J_2   = (-g'(x), 0, 1)
 *   Phi_t    = 0
 *   (Jv)_q v = -f''(x) vx^2  and  -g''(x) vx^2
 *              (J_1 v = vy - f'(x) vx; its x-derivative times vx)
 *   phi_tt   = 0
 *   Hess Phi = -f''(x) and -g''(x) in the (x, x) entry, 0 elsewhere,
 *              so lambda.Hess Phi = -(lambda_1 f'' + lambda_2 g'') there
 *
 * The two rows are independent everywhere (their y and z columns are the
 * identity), so A = J W J^T is always definite.  Phi_1, Phi_2 are vertical
 * offsets from the wire, not distances: they equal the distance to first
 * order only where the wire is flat (f' = g' = 0), and the error measure
 * of the library reports them as they are.
 *
 * A curve that doubles back in x cannot be written this way; choosing x
 * as the parameter keeps the constraint a closed-form function of the
 * particle's position, with no closest-point search.
 * Parameters (12): f's a0 a1 a2 A k phi, then g's a0 a1 a2 A k phi.
 */
#include <math.h>

#include "core/internal.h"
#include "vec3.h"

static const char *const names[] = {"f_a0", "f_a1", "f_a2", "f_amp", "f_k", "f_phase",
                                    "g_a0", "g_a1", "g_a2", "g_amp", "g_k", "g_phase"};

/* f, f' and f'' at s for the six coefficients c. */
static void profile(const double *c, double s, double *f, double *df, double *ddf)
{
  double arg = c[4] * s + c[5], sn = sin(arg), cs = cos(arg);
  *f = c[0] + c[1] * s + c[2] * s * s + c[3] * sn;
  *df = c[1] + 2 * c[2] * s + c[3] * c[4] * cs;
  *ddf = 2 * c[2] - c[3] * c[4] * c[4] * sn;
}

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  (void)t;
  for (int r = 0; r < 2; r++) {
    double f, df, ddf;
    profile(p + 6 * r, x[0][0], &f, &df, &ddf);
    row[r].phi = x[0][1 + r] - f;
    row[r].jac[0][0] = -df;
    row[r].jac[0][1 + r] = 1.0;
    row[r].jdotv = -ddf * v[0][0] * v[0][0];
  }
  if (!cdyn_rows_finite(row, 2, 1))
    return cdyn_error(CDYN_ENONFINITE, "curve constraint: a value is not finite (position or coefficients too large)");
  return CDYN_OK;
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  /* eval's checks, at rest: hess fails where eval does. */
  cdyn_row row[2] = {{0}};
  int rc = cdyn_eval_at_rest(eval, p, x, t, row);
  if (rc)
    return rc;
  for (int k = 0; k < 9; k++)
    K[k] = 0;
  for (int r = 0; r < 2; r++) {
    double f, df, ddf;
    profile(p + 6 * r, x[0][0], &f, &df, &ddf);
    K[0] -= lambda[r] * ddf;
  }
  return cdyn_hess_finite("curve", K, 1);
}

const cdyn_constraint_type cdyn_ctype_curve = {
  .name = "curve",
  .description = "particle on the wire y = f(x), z = g(x), f = a0 + a1 x + a2 x^2 + A sin(k x + phi)",
  .nparticles = 1,
  .nparams = 12,
  .rows = 2,
  .param_names = names,
  .check = NULL,
  .eval = eval,
  .hess = hess,
};
