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
  /* Scalars, not small arrays: the link is evaluated several times a step
     for every link of a chain, and a vector load of values just stored one
     by one stalls.  The operations and their order are those of the
     equations above. */
  const double *a = x[0], *b = x[1], *va = v[0], *vb = v[1];
  double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  double u0 = va[0] - vb[0], u1 = va[1] - vb[1], u2 = va[2] - vb[2];
  double r = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
  if (!isfinite(r))
    return cdyn_error(CDYN_ENONFINITE, "distance constraint: the link length is not finite (positions non-finite or beyond 1e154)");
  if (!(r > 0))
    return cdyn_error(CDYN_EDEGENERATE, "distance constraint: particles coincide (r = 0)");
  double n0 = d0 / r, n1 = d1 / r, n2 = d2 / r;
  double nu = n0 * u0 + n1 * u1 + n2 * u2;
  double uu = u0 * u0 + u1 * u1 + u2 * u2;
  row->phi = r - p[0];
  row->jac[0][0] = n0;
  row->jac[0][1] = n1;
  row->jac[0][2] = n2;
  row->jac[1][0] = -n0;
  row->jac[1][1] = -n1;
  row->jac[1][2] = -n2;
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

