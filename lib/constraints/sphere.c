/*
 * sphere.c: a particle on a fixed sphere (a spherical pendulum hung from
 * a fixed point; the link of distance.c with one end fixed).
 *
 *   d = x - c,  r = |d|,  e = d / r,  v = velocity of the particle
 *   Phi      = r - R                       (the papers' error measure)
 *   J        = e^T
 *   Phi_t    = 0
 *   (Jv)_q v = (v.v - (e.v)^2) / r         (d/ds of e(x + s v).v)
 *   phi_tt   = 0
 *   Hess Phi = (I - e e^T) / r             (distance.c's P / r, one end)
 *
 * Phi is not differentiable at r = 0 (the centre), where eval reports
 * CDYN_EDEGENERATE.
 * Parameters: c[3] (centre), R > 0 (radius).
 */
#include <math.h>

#include "core/internal.h"
#include "vec3.h"

static const char *const names[] = {"cx", "cy", "cz", "radius"};

static int check(const double *p)
{
  if (!isfinite(p[3]) || !(p[3] > 0))
    return cdyn_error(CDYN_EINVAL, "sphere constraint: radius %g must be finite and > 0", p[3]);
  return CDYN_OK;
}

/* r = |x - c| and e = (x - c) / r, or the status where Phi is not differentiable. */
static int radial(const double *p, const double *x, double *r, double e[3])
{
  double d[3];
  cdyn_sub3(x, p, d);
  *r = sqrt(cdyn_dot3(d, d));
  if (!isfinite(*r))
    return cdyn_error(CDYN_ENONFINITE, "sphere constraint: |x - c| is not finite (position non-finite or beyond 1e154)");
  if (!(*r > 0))
    return cdyn_error(CDYN_EDEGENERATE, "sphere constraint: the particle is at the centre (r = 0)");
  for (int k = 0; k < 3; k++)
    e[k] = d[k] / *r;
  return CDYN_OK;
}

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  (void)t;
  double r, e[3];
  int rc = radial(p, x[0], &r, e);
  if (rc)
    return rc;
  double ev = cdyn_dot3(e, v[0]);
  row->phi = r - p[3];
  for (int k = 0; k < 3; k++)
    row->jac[0][k] = e[k];
  row->jdotv = (cdyn_dot3(v[0], v[0]) - ev * ev) / r;
  if (!cdyn_rows_finite(row, 1, 1))
    return cdyn_error(CDYN_ENONFINITE, "sphere constraint: a value is not finite");
  return CDYN_OK;
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  (void)t;
  double r, e[3];
  int rc = radial(p, x[0], &r, e);
  if (rc)
    return rc;
  double s = lambda[0] / r;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      K[3 * a + b] = s * ((a == b) - e[a] * e[b]);
  return cdyn_hess_finite("sphere", K, 1);
}

const cdyn_constraint_type cdyn_ctype_sphere = {
  .name = "sphere",
  .description = "particle on a sphere |x - c| = R (Phi = |x - c| - R)",
  .nparticles = 1,
  .nparams = 4,
  .rows = 1,
  .param_names = names,
  .check = check,
  .eval = eval,
  .hess = hess,
};
