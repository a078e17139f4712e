/*
 * reference/bead.c: a bead on a vertical circle in its angle, integrated
 * with GSL odeiv2 (rk8pd) at tight tolerance, and the exact motion after
 * release from rest through Jacobi's elliptic functions.
 *
 * Equations implemented
 * ---------------------
 * The bead of 002's "bead on a circle" example: a point mass on a circle of
 * radius R about c, gravity g in -y, theta from the downward vertical:
 *
 *   x = c + R (sin theta, -cos theta),   x' = R theta' (cos theta, sin theta),
 *   T = m R^2 theta'^2 / 2,   V = m g y = m g (cy - R cos theta),
 *
 * so Lagrange's equation is the simple pendulum
 *
 *   theta'' = -w0^2 sin theta,   w0 = sqrt(g / R).
 *
 * The ODE is integrated as the first-order system y = (theta, theta').
 *
 * Exact motion after release from rest at theta0, |theta0| < pi: the
 * classical closed form of the pendulum (NIST DLMF sec. 22.19(i); sn, cn,
 * dn and K as in Abramowitz & Stegun chs. 16-17).  It is derived here in
 * full, since only the derivation pins down the signs.  Energy
 * conservation gives
 *
 *   theta'^2 = 2 w0^2 (cos theta - cos theta0)
 *            = 4 w0^2 (k^2 - sin^2(theta / 2)),   k = sin(theta0 / 2).
 *
 * With sin(theta / 2) = k sn(u | m), m = k^2, u = K - w0 t, where
 * K = K(k) is the complete elliptic integral of the first kind, this holds
 * because 1 - sn^2 = cn^2 and du/dt = -w0:
 *
 *   cos(theta / 2) = dn(u | m)     (dn^2 = 1 - m sn^2, and both are > 0),
 *   theta(t)       = 2 atan2(k sn(u | m), dn(u | m)),
 *   theta'(t)      = -2 k w0 cn(u | m),
 *
 * and at t = 0, sn(K) = 1, cn(K) = 0 give theta = theta0, theta' = 0.
 * The atan2 form equals the textbook 2 arcsin(k sn) but stays well
 * conditioned near the top, where arcsin's derivative 1 / cos(theta / 2)
 * grows.  The period is 4 K / w0.
 *
 * GSL's conventions differ between the two functions used, and mixing
 * them up would be silent: gsl_sf_elljac_e(u, m, ...) takes the PARAMETER
 * m = k^2, while gsl_sf_ellint_Kcomp(k, mode) takes the MODULUS k.
 *
 * Choices made
 * ------------
 * - u is reduced to [-2K, 2K] by the period 4K of sn and cn (dn has
 *   period 2K) before calling GSL, because the Landen/AGM evaluation
 *   computes sin(u mu_n), whose absolute error grows with |u|; after ten
 *   seconds of a 1 m pendulum |u| would otherwise be about 30.
 * - GSL's default error handler aborts, and both functions call it for
 *   arguments outside their domain (|m| > 1, k^2 >= 1).  The exact solution
 *   therefore refuses any theta0 for which k^2 rounds to 1 before GSL sees
 *   it; inside that domain neither function invokes the handler.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_sf_ellint.h>
#include <gsl/gsl_sf_elljac.h>

#include "bead.h"
#include "cdyn/error.h"
#include "ode.h"

struct cdyn_ref_bead {
  double R, g, cx, cy;
  double w2;          /* g / R */
  double y[2];        /* theta, theta' */
  double y_backup[2]; /* the state at the start of an advance */
  cdyn_ref_ode ode;   /* integrator; holds the current time */
};

/*
 * The right-hand side for GSL.  A non-finite state is refused with
 * GSL_EBADFUNC, which makes the driver stop at once rather than retry with
 * smaller steps, which could not help.  With a finite state and w2 the
 * derivative is finite too.
 */
static int bead_rhs(double t, const double y[], double dydt[], void *params)
{
  cdyn_ref_bead *r = params;
  (void)t;
  if (!isfinite(y[0]) || !isfinite(y[1])) {
    r->ode.nonfinite = 1;
    return GSL_EBADFUNC;
  }
  dydt[0] = y[1];
  dydt[1] = -r->w2 * sin(y[0]);
  return GSL_SUCCESS;
}

int cdyn_ref_bead_new(cdyn_ref_bead **out, const cdyn_ref_bead_params *p)
{
  if (out == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_new: out is NULL");
  *out = NULL;
  if (p == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_new: p is NULL");
  if (!(isfinite(p->R) && p->R > 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_new: p->R = %g must be "
                      "finite and > 0", p->R);
  if (!(isfinite(p->g) && p->g >= 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_new: p->g = %g must be "
                      "finite and >= 0", p->g);
  for (int d = 0; d < 2; d++)
    if (!isfinite(p->centre[d]))
      return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_new: p->centre[%d] = %g "
                        "is not finite", d, p->centre[d]);
  if (!isfinite(p->theta0) || !isfinite(p->omega0))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_new: theta0 = %g and "
                      "omega0 = %g must be finite", p->theta0, p->omega0);
  const double w2 = p->g / p->R;
  if (!isfinite(w2))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_new: g / R = %g / %g "
                      "overflows", p->g, p->R);
  double abstol = p->abstol, reltol = p->reltol;
  int status = cdyn_ref_ode_tolerances("cdyn_ref_bead", &abstol, &reltol);
  if (status != CDYN_OK)
    return status;

  cdyn_ref_bead *r = calloc(1, sizeof *r);
  if (r == NULL)
    return cdyn_error(CDYN_ENOMEM, "cdyn_ref_bead_new: out of memory");
  r->R = p->R;
  r->g = p->g;
  r->cx = p->centre[0];
  r->cy = p->centre[1];
  r->w2 = w2;
  r->y[0] = p->theta0;
  r->y[1] = p->omega0;
  r->ode = (cdyn_ref_ode){
    .name = "cdyn_ref_bead",
    .sys = {.function = bead_rhs, .dimension = 2, .params = r},
    .y = r->y,
    .backup = r->y_backup,
  };
  /* The object's own free copes with a driver that was not allocated. */
  if ((status = cdyn_ref_ode_start(&r->ode, abstol, reltol)) != CDYN_OK)
    cdyn_ref_bead_free(r);
  else
    *out = r;
  return status;
}

void cdyn_ref_bead_free(cdyn_ref_bead *r)
{
  if (r == NULL)
    return;
  cdyn_ref_ode_stop(&r->ode);
  free(r);
}

int cdyn_ref_bead_advance(cdyn_ref_bead *r, double t)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_advance: r is NULL");
  return cdyn_ref_ode_advance(&r->ode, t);
}

double cdyn_ref_bead_time(const cdyn_ref_bead *r)
{
  return r != NULL ? r->ode.t : NAN;
}

int cdyn_ref_bead_angle(const cdyn_ref_bead *r, double *theta, double *omega)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_angle: r is NULL");
  if (theta != NULL)
    *theta = r->y[0];
  if (omega != NULL)
    *omega = r->y[1];
  return CDYN_OK;
}

int cdyn_ref_bead_position(const cdyn_ref_bead *r, double xy[2])
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_position: r is NULL");
  if (xy == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_position: xy is NULL");
  xy[0] = r->cx + r->R * sin(r->y[0]);
  xy[1] = r->cy - r->R * cos(r->y[0]);
  return CDYN_OK;
}

int cdyn_ref_bead_velocity(const cdyn_ref_bead *r, double v[2])
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_velocity: r is NULL");
  if (v == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_velocity: v is NULL");
  const double s = r->R * r->y[1];
  v[0] = s * cos(r->y[0]);
  v[1] = s * sin(r->y[0]);
  return CDYN_OK;
}

int cdyn_ref_bead_energy(const cdyn_ref_bead *r, double *e_per_mass)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_energy: r is NULL");
  if (e_per_mass == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_energy: e_per_mass is "
                      "NULL");
  const double speed = r->R * r->y[1];
  const double y = r->cy - r->R * cos(r->y[0]);
  const double e = 0.5 * speed * speed + r->g * y;
  if (!isfinite(e))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_ref_bead_energy: energy "
                      "overflowed (speed %g, height %g)", speed, y);
  *e_per_mass = e;
  return CDYN_OK;
}

int cdyn_ref_bead_exact(double R, double g, double theta0, double t,
                        double *theta, double *omega)
{
  if (!(isfinite(R) && R > 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_exact: R = %g must be "
                      "finite and > 0", R);
  if (!(isfinite(g) && g >= 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_exact: g = %g must be "
                      "finite and >= 0", g);
  if (!isfinite(t))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_exact: t = %g is not "
                      "finite", t);
  if (!(fabs(theta0) < M_PI))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_exact: theta0 = %.17g "
                      "must satisfy |theta0| < pi (release from rest below "
                      "the top)", theta0);
  const double k = sin(0.5 * theta0), m = k * k;
  if (!(m < 1))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_exact: theta0 = %.17g is "
                      "so close to the top that k^2 = sin^2(theta0/2) rounds "
                      "to 1", theta0);
  const double w0 = sqrt(g / R);
  if (!isfinite(w0) || !isfinite(w0 * t))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_bead_exact: sqrt(g / R) t "
                      "overflows (g = %g, R = %g, t = %g)", g, R, t);

  gsl_sf_result kr;
  int s = gsl_sf_ellint_Kcomp_e(k, GSL_PREC_DOUBLE, &kr);
  if (s != GSL_SUCCESS)
    return cdyn_error(CDYN_ESOLVE, "cdyn_ref_bead_exact: "
                      "gsl_sf_ellint_Kcomp_e(%.17g) failed with status %d "
                      "(%s)", k, s, gsl_strerror(s));
  const double K = kr.val;
  double u = K - w0 * t;
  /* sn and cn have period 4K, dn 2K: reduce u to [-2K, 2K]. */
  u -= 4 * K * nearbyint(u / (4 * K));
  double sn, cn, dn;
  s = gsl_sf_elljac_e(u, m, &sn, &cn, &dn);
  if (s != GSL_SUCCESS)
    return cdyn_error(CDYN_ESOLVE, "cdyn_ref_bead_exact: gsl_sf_elljac_e(%g, "
                      "%.17g) failed with status %d (%s)", u, m, s,
                      gsl_strerror(s));
  if (theta != NULL)
    *theta = 2 * atan2(k * sn, dn);
  if (omega != NULL)
    *omega = -2 * k * w0 * cn;
  return CDYN_OK;
}
