/*
 * distance.c: rigid link between two particles (001 sec. IV, 000 sec. 4).
 *
 *   d = x_0 - x_1,  r = |d|,  n = d / r,  u = v_0 - v_1
 *   Phi      = r - L                       (the papers' error measure)
 *   J        = [ n^T, -n^T ]
 *   Phi_t    = 0
 *   (Jv)_q v = (u.u - (n.u)^2) / r         (d/ds of n(q + s v).u)
 *   phi_tt   = 0
 *   Hess Phi = [ P, -P; -P, P ] / r,  P = I - n n^T  (the geometric
 *              stiffness lambda Hess Phi: a tension lambda > 0 resists
 *              sideways motion of either end like a spring lambda / r)
 *
 * Phi is not differentiable at r = 0, where eval reports CDYN_EDEGENERATE.
 * Parameters: L > 0.
 */
#include <math.h>

#include "core/internal.h"

static const char *const names[] = {"length"};

static int check(const double *p)
{
  if (!(p[0] > 0))
    return cdyn_error(CDYN_EINVAL, "distance constraint: length %g must be > 0", p[0]);
  return CDYN_OK;
}

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  (void)t;
  double d[3], u[3];
  for (int k = 0; k < 3; k++) {
    d[k] = x[0][k] - x[1][k];
    u[k] = v[0][k] - v[1][k];
  }
  double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!isfinite(r))
    return cdyn_error(CDYN_ENONFINITE, "distance constraint: the link length is not finite (positions non-finite or beyond 1e154)");
  if (!(r > 0))
    return cdyn_error(CDYN_EDEGENERATE, "distance constraint: particles coincide (r = 0)");
  double n[3] = {d[0] / r, d[1] / r, d[2] / r};
  double nu = n[0] * u[0] + n[1] * u[1] + n[2] * u[2];
  double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  row->phi = r - p[0];
  for (int k = 0; k < 3; k++) {
    row->jac[0][k] = n[k];
    row->jac[1][k] = -n[k];
  }
  row->jdotv = (uu - nu * nu) / r;
  return CDYN_OK;
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  (void)p;
  (void)t;
  double d[3];
  for (int k = 0; k < 3; k++)
    d[k] = x[0][k] - x[1][k];
  double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!isfinite(r))
    return cdyn_error(CDYN_ENONFINITE, "distance constraint: the link length is not finite (positions non-finite or beyond 1e154)");
  if (!(r > 0))
    return cdyn_error(CDYN_EDEGENERATE, "distance constraint: particles coincide (r = 0)");
  double s = lambda[0] / r;
  /* P is symmetric, and so is each entry's rounding (d_a d_b = d_b d_a):
     the upper triangle, mirrored. */
  for (int a = 0; a < 3; a++)
    for (int b = a; b < 3; b++) {
      double e = s * ((a == b) - d[a] * d[b] / (r * r));
      K[6 * a + b] = K[6 * (a + 3) + b + 3] = K[6 * b + a] = K[6 * (b + 3) + a + 3] = e;
      K[6 * a + b + 3] = K[6 * (a + 3) + b] = K[6 * b + a + 3] = K[6 * (b + 3) + a] = -e;
    }
  return CDYN_OK;
}

const cdyn_constraint_type cdyn_ctype_distance = {
  .name = "distance",
  .description = "rigid link |x_0 - x_1| = L (Phi = r - L)",
  .nparticles = 2,
  .nparams = 1,
  .rows = 1,
  .param_names = names,
  .check = check,
  .eval = eval,
  .hess = hess,
};

