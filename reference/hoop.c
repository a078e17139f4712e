/*
 * reference/hoop.c: a bead on a hoop spinning about its vertical diameter
 * (hoop.h), integrated in its angle with GSL odeiv2 (rk8pd), with the
 * inertial state and the constraint forces in closed form.
 *
 * Equations implemented
 * ---------------------
 * With e(t) = (cos w t, 0, -sin w t), n(t) = (sin w t, 0, cos w t) (w the
 * spin rate) and y^ the vertical, e' = -w n and n' = w e.  The bead is at
 *   x  = R (s e - c y^),                       s = sin theta, c = cos theta,
 *   x' = R (c th' e - s w n + s th' y^),
 *   x''= R ((c th'' - s th'^2 - s w^2) e - 2 c th' w n + (s th'' + c th'^2) y^).
 * Kinetic and potential energy per unit mass: T = R^2 (th'^2 + w^2 s^2)/2,
 * V = -g R c; Lagrange's equation for theta (the hoop's motion is
 * prescribed) gives
 *   theta'' = s (w^2 c - g / R).
 * The tangent of the hoop is c e + s y^, along which x'' . (c e + s y^) =
 * R (th'' - s c w^2) = -g s: the equation again.
 *
 * Relative equilibria: th'' = 0 at s = 0 or c = g / (w^2 R).  Linearising
 * f(th) = s (w^2 c - g/R) about c* = g / (w^2 R) < 1:
 *   f'(th*) = w^2 (c*^2 - s*^2) - (g/R) c* = -w^2 s*^2,
 * so small oscillations have the frequency Omega = |w| sin th*.  About
 * the bottom, f'(0) = w^2 - g/R, stable when w^2 R < g.
 *
 * Multipliers.  The library's hoop type has the rows Phi_1 = n(t) . x
 * (J_1 = n^T) and Phi_2 = (x . x - R^2)/(2R) (J_2 = x^T / R), and
 * m x'' = F - n lambda_1 - (x / R) lambda_2 with F = -m g y^.  Since n,
 * x / R and the tangent are orthonormal on the hoop,
 *   lambda_1 = (F - m x'') . n = 2 m R w th' c,
 *   lambda_2 = (F - m x'') . x / R = m g c + m R (th'^2 + w^2 s^2).
 * cdyn_ref_hoop_multipliers evaluates these from x'' above.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

#include "cdyn/error.h"
#include "hoop.h"
#include "ode.h"

struct cdyn_ref_hoop {
  double R, g, w;
  double y[2], y_backup[2]; /* theta, theta' */
  cdyn_ref_ode ode;
};

static int hoop_rhs(double t, const double y[], double dydt[], void *params)
{
  cdyn_ref_hoop *r = params;
  (void)t;
  if (!isfinite(y[0]) || !isfinite(y[1])) {
    r->ode.nonfinite = 1;
    return GSL_EBADFUNC;
  }
  dydt[0] = y[1];
  dydt[1] = sin(y[0]) * (r->w * r->w * cos(y[0]) - r->g / r->R);
  return GSL_SUCCESS;
}

int cdyn_ref_hoop_new(cdyn_ref_hoop **out, const cdyn_ref_hoop_params *p)
{
  if (out == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_hoop_new: out is NULL");
  *out = NULL;
  if (p == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_hoop_new: p is NULL");
  if (!(isfinite(p->R) && p->R > 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_hoop_new: p->R = %g must be finite and > 0", p->R);
  if (!(isfinite(p->g) && p->g >= 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_hoop_new: p->g = %g must be finite and >= 0", p->g);
  if (!isfinite(p->omega) || !isfinite(p->omega * p->omega * p->R) || !isfinite(p->g / p->R))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_hoop_new: omega = %g, g / R = %g / %g must be finite", p->omega, p->g,
                      p->R);
  if (!isfinite(p->theta0) || !isfinite(p->thetadot0))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_hoop_new: theta0 = %g and thetadot0 = %g must be finite", p->theta0,
                      p->thetadot0);
  double abstol = p->abstol, reltol = p->reltol;
  int status = cdyn_ref_ode_tolerances("cdyn_ref_hoop", &abstol, &reltol);
  if (status != CDYN_OK)
    return status;
  cdyn_ref_hoop *r = calloc(1, sizeof *r);
  if (r == NULL)
    return cdyn_error(CDYN_ENOMEM, "cdyn_ref_hoop_new: out of memory");
  r->R = p->R;
  r->g = p->g;
  r->w = p->omega;
  r->y[0] = p->theta0;
  r->y[1] = p->thetadot0;
  r->ode = (cdyn_ref_ode){
    .name = "cdyn_ref_hoop",
    .sys = {.function = hoop_rhs, .dimension = 2, .params = r},
    .y = r->y,
    .backup = r->y_backup,
  };
  if ((status = cdyn_ref_ode_start(&r->ode, abstol, reltol)) != CDYN_OK)
    cdyn_ref_hoop_free(r);
  else
    *out = r;
  return status;
}

void cdyn_ref_hoop_free(cdyn_ref_hoop *r)
{
  if (r == NULL)
    return;
  cdyn_ref_ode_stop(&r->ode);
  free(r);
}

int cdyn_ref_hoop_advance(cdyn_ref_hoop *r, double t)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_hoop_advance: r is NULL");
  return cdyn_ref_ode_advance(&r->ode, t);
}

double cdyn_ref_hoop_time(const cdyn_ref_hoop *r) { return r != NULL ? r->ode.t : NAN; }

int cdyn_ref_hoop_angle(const cdyn_ref_hoop *r, double *theta, double *thetadot)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_hoop_angle: r is NULL");
  if (theta)
    *theta = r->y[0];
  if (thetadot)
    *thetadot = r->y[1];
  return CDYN_OK;
}

int cdyn_ref_hoop_state(const cdyn_ref_hoop *r, double *x, double *v, double *a)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_hoop_state: r is NULL");
  const double R = r->R, w = r->w, th = r->y[0], td = r->y[1];
  const double s = sin(th), c = cos(th), phi = w * r->ode.t;
  const double e[3] = {cos(phi), 0, -sin(phi)}, n[3] = {sin(phi), 0, cos(phi)}, yh[3] = {0, 1, 0};
  const double tdd = s * (w * w * c - r->g / R);
  for (int k = 0; k < 3; k++) {
    if (x)
      x[k] = R * (s * e[k] - c * yh[k]);
    if (v)
      v[k] = R * (c * td * e[k] - s * w * n[k] + s * td * yh[k]);
    if (a)
      a[k] = R * ((c * tdd - s * td * td - s * w * w) * e[k] - 2 * c * td * w * n[k] + (s * tdd + c * td * td) * yh[k]);
  }
  return CDYN_OK;
}

int cdyn_ref_hoop_multipliers(const cdyn_ref_hoop *r, double m, double lambda[2])
{
  if (r == NULL || lambda == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_hoop_multipliers: NULL argument");
  if (!(isfinite(m) && m > 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_hoop_multipliers: mass %g must be finite and > 0", m);
  double x[3], a[3];
  cdyn_ref_hoop_state(r, x, NULL, a);
  const double phi = r->w * r->ode.t, n[3] = {sin(phi), 0, cos(phi)};
  const double f[3] = {-m * a[0], -m * (r->g + a[1]), -m * a[2]}; /* F - m x'' */
  lambda[0] = f[0] * n[0] + f[1] * n[1] + f[2] * n[2];
  lambda[1] = (f[0] * x[0] + f[1] * x[1] + f[2] * x[2]) / r->R;
  return CDYN_OK;
}

int cdyn_ref_hoop_equilibrium(double R, double g, double omega, double *theta_eq, double *Omega)
{
  if (!(isfinite(R) && R > 0) || !(isfinite(g) && g >= 0) || !isfinite(omega))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_hoop_equilibrium: R = %g, g = %g, omega = %g (R > 0, g >= 0, finite)",
                      R, g, omega);
  double w2R = omega * omega * R;
  double th = 0, W = 0;
  if (w2R > g) {
    th = acos(g / w2R);
    W = fabs(omega) * sin(th);
  } else {
    W = sqrt(g / R - omega * omega);
  }
  if (theta_eq)
    *theta_eq = th;
  if (Omega)
    *Omega = W;
  return CDYN_OK;
}
