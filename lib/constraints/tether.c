/*
 * tether.c: a maximum distance between two particles, the one-sided row
 * of a strain limit (cdyn/cloth.h, CDYN_LIMIT_INEQUALITY).  Meant to be
 * flagged as an inequality g >= 0 (cdyn/contact.h): a tether pulls its
 * particles together only when they are L apart, like a string.
 *
 *   d = x_0 - x_1,  r = |d|,  n = d / r,  u = v_0 - v_1
 *   Phi      = L - r                       (>= 0: within the tether)
 *   J        = [ -n^T, n^T ]
 *   Phi_t    = 0
 *   (Jv)_q v = -(u.u - (n.u)^2) / r
 *   phi_tt   = 0
 *   Hess Phi = -[ P, -P; -P, P ] / r,  P = I - n n^T
 * This is the distance constraint (distance.c) with the sign of Phi
 * turned: as an equality both are the same link, with multipliers of
 * opposite signs.  A pulling tether, the force +mu J^T of cdyn/contact.h
 * with mu >= 0, has the library's lambda = -mu <= 0, and its geometric
 * stiffness lambda Hess Phi = mu P / r is the transverse stiffness of a
 * string under tension mu.
 *
 * Phi is not differentiable at r = 0, where eval reports CDYN_EDEGENERATE.
 * Parameters: L > 0.
 */
#include <math.h>

#include "core/internal.h"

static const char *const names[] = {"length"};

static int check(const double *p)
{
  if (!(p[0] > 0) || !isfinite(p[0]))
    return cdyn_error(CDYN_EINVAL, "tether constraint: length %g must be finite and > 0", p[0]);
  return CDYN_OK;
}

static int length(const double *const *x, double d[3], double *r)
{
  for (int k = 0; k < 3; k++)
    d[k] = x[0][k] - x[1][k];
  *r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!isfinite(*r))
    return cdyn_error(CDYN_ENONFINITE,
                      "tether constraint: the length is not finite (positions non-finite or beyond 1e154)");
  if (!(*r > 0))
    return cdyn_error(CDYN_EDEGENERATE, "tether constraint: particles coincide (r = 0)");
  return CDYN_OK;
}

static int eval(const double *p, const double *const *x, const double *const *v, double t, cdyn_row *row)
{
  (void)t;
  double d[3], u[3], r;
  int rc = length(x, d, &r);
  if (rc)
    return rc;
  for (int k = 0; k < 3; k++)
    u[k] = v[0][k] - v[1][k];
  double n[3] = {d[0] / r, d[1] / r, d[2] / r};
  double nu = n[0] * u[0] + n[1] * u[1] + n[2] * u[2];
  double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  row->phi = p[0] - r;
  for (int k = 0; k < 3; k++) {
    row->jac[0][k] = -n[k];
    row->jac[1][k] = n[k];
  }
  row->jdotv = -(uu - nu * nu) / r;
  return CDYN_OK;
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  (void)p;
  (void)t;
  double d[3], r;
  int rc = length(x, d, &r);
  if (rc)
    return rc;
  double s = -lambda[0] / r;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      double e = s * ((a == b) - d[a] * d[b] / (r * r));
      K[6 * a + b] = K[6 * (a + 3) + b + 3] = e;
      K[6 * a + b + 3] = K[6 * (a + 3) + b] = -e;
    }
  return CDYN_OK;
}

const cdyn_constraint_type cdyn_ctype_tether = {
  .name = "tether",
  .description = "maximum distance |x_0 - x_1| <= L as Phi = L - r (flag it as an inequality)",
  .nparticles = 2,
  .nparams = 1,
  .rows = 1,
  .param_names = names,
  .check = check,
  .eval = eval,
  .hess = hess,
};
