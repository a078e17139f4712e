/*
 * reference/spherical.c: spherical pendulum in its polar angle theta and
 * azimuth phi, with the conserved azimuthal momentum, integrated with GSL
 * odeiv2 (rk8pd) at tight tolerance.
 *
 * Equations implemented
 * ---------------------
 * The classical spherical pendulum (Landau & Lifshitz, Mechanics, sec. 14,
 * problem 1), derived here in the coordinates of spherical.h.  Per unit
 * mass,
 *
 *   T = L^2 (theta'^2 + sin^2(theta) phi'^2) / 2,
 *   V = g y = g (py - L cos theta).
 *
 * phi is cyclic, so p_phi = sin^2(theta) phi' (the momentum conjugate to
 * phi divided by m L^2) is conserved, and Lagrange's equation for theta is
 *
 *   theta'' = sin(theta) cos(theta) phi'^2 - w0^2 sin(theta)
 *           = p_phi^2 cos(theta) / sin^3(theta) - w0^2 sin(theta),
 *   phi'    = p_phi / sin^2(theta),                 w0^2 = g / L.
 *
 * The first-order system integrated is y = (theta, theta', phi) with
 * p_phi a constant of the object: the reduced (Routhian) form.  Keeping
 * p_phi exact rather than integrating phi'' = -2 cot(theta) theta' phi'
 * removes one source of drift and, more to the point, the 0/0 of that
 * equation on the axis.
 *
 * Where the chart is singular.  The right-hand side divides by
 * sin(theta).  With p_phi != 0 the motion never reaches a pole: the energy
 * per m L^2,
 *
 *   eps = theta'^2 / 2 + p_phi^2 / (2 sin^2 theta) - w0^2 cos theta,
 *
 * is conserved, so p_phi^2 / (2 sin^2 theta) <= eps + w0^2 cos theta stays
 * bounded.  Writing u = cos(theta),
 *
 *   f(theta) = (eps + w0^2 cos theta) sin^2 theta - p_phi^2 / 2
 *            = theta'^2 sin^2(theta) / 2 >= 0
 *
 * along the motion, f < 0 at both poles, and as a cubic in u with
 * leading coefficient -w0^2 it has one root below u = -1 and the other two
 * in [-1, 1].  So the reachable polar angles form one band
 * [theta_min, theta_max] in (0, pi), bounded by the two roots of f, which
 * are found by bisection on either side of the initial angle (where
 * f >= 0).  A state whose band comes within sin(theta) <
 * CDYN_REF_SPH_MIN_POLE_SINE of a pole is refused: there phi' exceeds
 * p_phi / 1e-6, and the passage past the axis, short in time but turning
 * phi by nearly pi, would dominate the integration error.
 *
 * p_phi = 0 exactly is the planar pendulum theta'' = -w0^2 sin theta in the
 * vertical plane phi = phi0, regular everywhere; theta is then a signed
 * angle in that plane and may pass through 0 and pi.  The same code path
 * serves it with the p_phi terms dropped (they would be 0 / 0 on the axis).
 *
 * A negative theta with p_phi != 0 is the point (-theta, phi + pi): the
 * equations are odd in theta and p_phi is even, so no special case is
 * needed; the band is computed for acos(cos theta0) in (0, pi).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>

#include "cdyn/error.h"
#include "ode.h"
#include "spherical.h"

struct cdyn_ref_sph {
  double L, g, w2;          /* length, gravity, w0^2 = g / L */
  double pv[3];             /* pivot */
  double pphi;              /* conserved sin^2(theta) phi' */
  int planar;               /* pphi == 0: the planar equation */
  double theta_min, theta_max;
  double y[3];              /* theta, theta', phi */
  double y_backup[3];       /* the state at the start of an advance */
  cdyn_ref_ode ode;         /* integrator; holds the current time */
};

/*
 * The right-hand side for GSL.  A non-finite state or derivative is
 * refused with GSL_EBADFUNC, which makes the driver stop at once rather
 * than retry with smaller steps, which could not help.
 */
static int sph_rhs(double t, const double y[], double dydt[], void *params)
{
  cdyn_ref_sph *r = params;
  (void)t;
  const double s = sin(y[0]), c = cos(y[0]);
  dydt[0] = y[1];
  if (r->planar) {
    dydt[1] = -r->w2 * s;
    dydt[2] = 0;
  } else {
    const double s2 = s * s;
    dydt[1] = r->pphi * r->pphi * c / (s2 * s) - r->w2 * s;
    dydt[2] = r->pphi / s2;
  }
  for (int k = 0; k < 3; k++)
    if (!isfinite(y[k]) || !isfinite(dydt[k])) {
      r->ode.nonfinite = 1;
      return GSL_EBADFUNC;
    }
  return GSL_SUCCESS;
}

/* f(theta) of the file comment: >= 0 exactly where the motion may go. */
static double band_f(double eps, double w2, double pphi, double th)
{
  const double s = sin(th);
  return (eps + w2 * cos(th)) * s * s - 0.5 * pphi * pphi;
}

/*
 * The root of band_f between `out` (where f < 0) and `in` (where f >= 0),
 * by bisection down to adjacent doubles.
 */
static double band_edge(double eps, double w2, double pphi, double out,
                        double in)
{
  for (int it = 0; it < 200; it++) {
    const double mid = 0.5 * (out + in);
    if (mid == out || mid == in)
      break;
    if (band_f(eps, w2, pphi, mid) >= 0)
      in = mid;
    else
      out = mid;
  }
  return 0.5 * (out + in);
}

int cdyn_ref_sph_new(cdyn_ref_sph **out, const cdyn_ref_sph_params *p)
{
  if (out == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_new: out is NULL");
  *out = NULL;
  if (p == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_new: p is NULL");
  if (!(isfinite(p->L) && p->L > 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_new: p->L = %g must be "
                      "finite and > 0", p->L);
  if (!(isfinite(p->g) && p->g >= 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_new: p->g = %g must be "
                      "finite and >= 0", p->g);
  for (int d = 0; d < 3; d++)
    if (!isfinite(p->pivot[d]))
      return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_new: p->pivot[%d] = %g "
                        "is not finite", d, p->pivot[d]);
  if (!isfinite(p->theta0) || !isfinite(p->phi0) ||
      !isfinite(p->thetadot0) || !isfinite(p->phidot0))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_new: the initial angles "
                      "and rates (%g, %g, %g, %g) must be finite",
                      p->theta0, p->phi0, p->thetadot0, p->phidot0);
  const double w2 = p->g / p->L;
  if (!isfinite(w2))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_new: g / L = %g / %g "
                      "overflows", p->g, p->L);
  double abstol = p->abstol, reltol = p->reltol;
  int status = cdyn_ref_ode_tolerances("cdyn_ref_sph", &abstol, &reltol);
  if (status != CDYN_OK)
    return status;

  /* The conserved quantities and the band of reachable polar angles. */
  const double s0 = sin(p->theta0), c0 = cos(p->theta0);
  const double pphi = s0 * s0 * p->phidot0;
  const double tdot = p->thetadot0;
  double theta_min, theta_max;
  if (pphi == 0) {
    /* eps + w0^2 cos theta >= 0 where the planar pendulum may go. */
    const double eps = 0.5 * tdot * tdot - w2 * c0;
    theta_min = 0;
    theta_max = (eps >= w2) ? M_PI : acos(-eps / w2);
  } else {
    const double eps =
      0.5 * tdot * tdot + 0.5 * pphi * pphi / (s0 * s0) - w2 * c0;
    if (!isfinite(eps))
      return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_new: the energy of the "
                        "initial state overflows");
    const double ta = acos(c0); /* in (0, pi) since s0 != 0 */
    theta_min = band_edge(eps, w2, pphi, 0.0, ta);
    theta_max = band_edge(eps, w2, pphi, M_PI, ta);
    const double smin = fmin(sin(theta_min), sin(theta_max));
    if (!(smin >= CDYN_REF_SPH_MIN_POLE_SINE))
      return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_new: with p_phi = %g the "
                        "motion reaches theta in [%.6g, %.6g], where "
                        "sin(theta) falls to %.3g < %g: too close to a pole "
                        "for the angle chart",
                        pphi, theta_min, theta_max, smin,
                        CDYN_REF_SPH_MIN_POLE_SINE);
  }

  cdyn_ref_sph *r = calloc(1, sizeof *r);
  if (r == NULL)
    return cdyn_error(CDYN_ENOMEM, "cdyn_ref_sph_new: out of memory");
  r->L = p->L;
  r->g = p->g;
  r->w2 = w2;
  memcpy(r->pv, p->pivot, sizeof r->pv);
  r->pphi = pphi;
  r->planar = pphi == 0;
  r->theta_min = theta_min;
  r->theta_max = theta_max;
  r->y[0] = p->theta0;
  r->y[1] = p->thetadot0;
  r->y[2] = p->phi0;
  r->ode = (cdyn_ref_ode){
    .name = "cdyn_ref_sph",
    .sys = {.function = sph_rhs, .dimension = 3, .params = r},
    .y = r->y,
    .backup = r->y_backup,
  };
  /* The object's own free copes with a driver that was not allocated. */
  if ((status = cdyn_ref_ode_start(&r->ode, abstol, reltol)) != CDYN_OK)
    cdyn_ref_sph_free(r);
  else
    *out = r;
  return status;
}

void cdyn_ref_sph_free(cdyn_ref_sph *r)
{
  if (r == NULL)
    return;
  cdyn_ref_ode_stop(&r->ode);
  free(r);
}

int cdyn_ref_sph_advance(cdyn_ref_sph *r, double t)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_advance: r is NULL");
  return cdyn_ref_ode_advance(&r->ode, t);
}

double cdyn_ref_sph_time(const cdyn_ref_sph *r)
{
  return r != NULL ? r->ode.t : NAN;
}

/* phi' at the current state. */
static double phidot(const cdyn_ref_sph *r)
{
  if (r->planar)
    return 0;
  const double s = sin(r->y[0]);
  return r->pphi / (s * s);
}

int cdyn_ref_sph_angles(const cdyn_ref_sph *r, double *theta, double *phi,
                        double *thetadot, double *phid)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_angles: r is NULL");
  if (theta != NULL)
    *theta = r->y[0];
  if (phi != NULL)
    *phi = r->y[2];
  if (thetadot != NULL)
    *thetadot = r->y[1];
  if (phid != NULL)
    *phid = phidot(r);
  return CDYN_OK;
}

int cdyn_ref_sph_turning(const cdyn_ref_sph *r, double *theta_min,
                         double *theta_max)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_turning: r is NULL");
  if (theta_min != NULL)
    *theta_min = r->theta_min;
  if (theta_max != NULL)
    *theta_max = r->theta_max;
  return CDYN_OK;
}

int cdyn_ref_sph_position(const cdyn_ref_sph *r, double xyz[3])
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_position: r is NULL");
  if (xyz == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_position: xyz is NULL");
  const double st = sin(r->y[0]), ct = cos(r->y[0]);
  const double sp = sin(r->y[2]), cp = cos(r->y[2]);
  xyz[0] = r->pv[0] + r->L * st * cp;
  xyz[1] = r->pv[1] - r->L * ct;
  xyz[2] = r->pv[2] + r->L * st * sp;
  return CDYN_OK;
}

/* Velocity from the angles; shared by velocity and energy. */
static void velocity(const cdyn_ref_sph *r, double v[3])
{
  const double st = sin(r->y[0]), ct = cos(r->y[0]);
  const double sp = sin(r->y[2]), cp = cos(r->y[2]);
  const double td = r->y[1];
  /*
   * sin(theta) phi' = p_phi / sin(theta): written this way so that the
   * planar case (p_phi = 0) never divides.
   */
  const double sphid = r->planar ? 0.0 : r->pphi / st;
  v[0] = r->L * (ct * cp * td - sp * sphid);
  v[1] = r->L * st * td;
  v[2] = r->L * (ct * sp * td + cp * sphid);
}

int cdyn_ref_sph_velocity(const cdyn_ref_sph *r, double v[3])
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_velocity: r is NULL");
  if (v == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_velocity: v is NULL");
  velocity(r, v);
  return CDYN_OK;
}

int cdyn_ref_sph_energy(const cdyn_ref_sph *r, double *e_per_mass)
{
  if (r == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_energy: r is NULL");
  if (e_per_mass == NULL)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_sph_energy: e_per_mass is "
                      "NULL");
  double v[3];
  velocity(r, v);
  const double y = r->pv[1] - r->L * cos(r->y[0]);
  const double e = 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + r->g * y;
  if (!isfinite(e))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_ref_sph_energy: energy "
                      "overflowed");
  *e_per_mass = e;
  return CDYN_OK;
}
