/*
 * anchor.c: a link of length L from a particle to an anchor point that
 * moves on a prescribed path (002's pendulum on a moving support; the
 * path is that of pin.c, so that a pin and an anchor can share a motion).
 *
 *   p(t)  = p0 + u t + a (sin(w t + phi) - sin(phi))
 *   p'    = u + a w cos(w t + phi),    p'' = -a w^2 sin(w t + phi)
 *   d = x - p(t),  r = |d|,  e = d / r,  v = velocity of the particle
 *   Phi      = r - L
 *   J        = e^T
 *   Phi_t    = -e . p'
 *   (Jv)_q v = (v.v - (e.v)^2) / r
 *   Hess Phi = (I - e e^T) / r   (sphere.c's, about the anchor at time t)
 * For the time terms, de/dt = (-p' + (e.p') e) / r at fixed x, so
 *   Phi_qt v = (de/dt) . v    = (-(p'.v) + (e.p')(e.v)) / r
 *   Phi_tt   = d(-e.p')/dt    = (p'.p' - (e.p')^2) / r - e . p''
 *   phi_tt   = 2 Phi_qt v + Phi_tt.
 * Check: with the relative velocity z = v - p', jdotv + phi_tt =
 * (z.z - (e.z)^2) / r - e.p'', the second derivative of a link's length
 * whose ends move with relative velocity z and relative acceleration
 * -p'' (distance.c's term plus the anchor's acceleration).
 *
 * Phi is not differentiable at r = 0 (particle on the anchor), where eval
 * reports CDYN_EDEGENERATE.
 * Parameters: L > 0, p0[3], u[3], a[3], w, phi.
 */
#include <math.h>

#include "core/internal.h"
#include "vec3.h"

static const char *const names[] = {"length", "p0x", "p0y", "p0z", "ux", "uy", "uz",
                                    "ax", "ay", "az", "omega", "phase"};

static int check(const double *p)
{
  if (!isfinite(p[0]) || !(p[0] > 0))
    return cdyn_error(CDYN_EINVAL, "anchor constraint: length %g must be finite and > 0", p[0]);
  return CDYN_OK;
}

static int eval(const double *p, const double *const *x, const double *const *v,
                double t, cdyn_row *row)
{
  const double L = p[0], *p0 = p + 1, *u = p + 4, *a = p + 7, w = p[10], ph = p[11];
  double s = sin(w * t + ph), c = cos(w * t + ph), s0 = sin(ph);
  double d[3], pv[3], pa[3];
  for (int k = 0; k < 3; k++) {
    d[k] = x[0][k] - (p0[k] + u[k] * t + a[k] * (s - s0));
    pv[k] = u[k] + a[k] * w * c;
    pa[k] = -a[k] * w * w * s;
  }
  double r = sqrt(cdyn_dot3(d, d));
  if (!isfinite(r))
    return cdyn_error(CDYN_ENONFINITE, "anchor constraint: |x - p(t)| is not finite at t = %g", t);
  if (!(r > 0))
    return cdyn_error(CDYN_EDEGENERATE, "anchor constraint: the particle is on the anchor (r = 0) at t = %g", t);
  double e[3] = {d[0] / r, d[1] / r, d[2] / r};
  double ev = cdyn_dot3(e, v[0]), ep = cdyn_dot3(e, pv);
  double qt = (ep * ev - cdyn_dot3(pv, v[0])) / r;
  double tt = (cdyn_dot3(pv, pv) - ep * ep) / r - cdyn_dot3(e, pa);
  row->phi = r - L;
  for (int k = 0; k < 3; k++)
    row->jac[0][k] = e[k];
  row->phi_t = -ep;
  row->jdotv = (cdyn_dot3(v[0], v[0]) - ev * ev) / r;
  row->phi_tt = 2 * qt + tt;
  if (!cdyn_rows_finite(row, 1, 1))
    return cdyn_error(CDYN_ENONFINITE, "anchor constraint: a value is not finite at t = %g", t);
  return CDYN_OK;
}

static int hess(const double *p, const double *const *x, double t, const double *lambda, double *K)
{
  const double *p0 = p + 1, *u = p + 4, *a = p + 7, w = p[10], ph = p[11];
  double s = sin(w * t + ph), s0 = sin(ph), d[3];
  for (int k = 0; k < 3; k++)
    d[k] = x[0][k] - (p0[k] + u[k] * t + a[k] * (s - s0));
  double r = sqrt(cdyn_dot3(d, d));
  if (!isfinite(r))
    return cdyn_error(CDYN_ENONFINITE, "anchor constraint: |x - p(t)| is not finite at t = %g", t);
  if (!(r > 0))
    return cdyn_error(CDYN_EDEGENERATE, "anchor constraint: the particle is on the anchor (r = 0) at t = %g", t);
  double e[3] = {d[0] / r, d[1] / r, d[2] / r}, l = lambda[0] / r;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      K[3 * i + j] = l * ((i == j) - e[i] * e[j]);
  return cdyn_hess_finite("anchor", K, 1);
}

const cdyn_constraint_type cdyn_ctype_anchor = {
  .name = "anchor",
  .description = "link |x - p(t)| = L to an anchor moving on p0 + u t + a (sin(w t + phi) - sin phi)",
  .nparticles = 1,
  .nparams = 12,
  .rows = 1,
  .param_names = names,
  .check = check,
  .eval = eval,
  .hess = hess,
};
