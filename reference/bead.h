/*
 * reference/bead.h: a bead on a fixed vertical circle (the pendulum of 002's
 * "bead on a circle" example), in its angle, for checking particle-based
 * constraint schemes against an independent solution.
 *
 * Conventions.  The circle has radius R and centre c = (cx, cy) in the x-y
 * plane; gravity of magnitude g acts in -y.  theta is measured from the
 * downward vertical, counter-clockwise positive, so the bead sits at
 *
 *   x = c + R (sin theta, -cos theta)
 *
 * and obeys theta'' = -(g / R) sin theta (the mass drops out).  The same
 * angle convention as reference/nlink.h, so a one-link nlink pendulum and a
 * bead of equal R and g move alike.
 *
 * Two references are offered:
 *   - cdyn_ref_bead_new/advance: the ODE integrated by GSL odeiv2 (rk8pd) at
 *     tight tolerance, for any initial angle and angular velocity;
 *   - cdyn_ref_bead_exact: the closed-form motion after release from rest
 *     with |theta0| < pi, through Jacobi's elliptic functions.
 * Each checks the other; the equations are written out in bead.c.
 *
 * Every function that returns int returns a cdyn status (cdyn/error.h): on
 * failure the object is left as it was before the call and cdyn_errmsg()
 * says why.
 */
#ifndef CDYN_REFERENCE_BEAD_H
#define CDYN_REFERENCE_BEAD_H

#ifdef __cplusplus
extern "C" {
#endif

/* A bead on a circle together with its integrator and current state. */
typedef struct cdyn_ref_bead cdyn_ref_bead;

typedef struct {
  double R;              /* radius, > 0, finite */
  double g;              /* gravity magnitude, >= 0, finite, acting in -y */
  double centre[2];      /* centre of the circle (x, y), finite */
  double theta0;         /* initial angle from the downward vertical, finite */
  double omega0;         /* initial angular velocity theta', finite */
  double abstol, reltol; /* 0 means default 1e-13; otherwise in (0, 1e-6] */
} cdyn_ref_bead_params;

/*
 * Create a bead at time 0 in the state given by p.  On success *out holds
 * the new object; on failure *out is set to NULL (if out is not NULL) and
 * nothing is leaked.  Returns CDYN_EINVAL for invalid parameters and
 * CDYN_ENOMEM if memory runs out.
 */
int cdyn_ref_bead_new(cdyn_ref_bead **out, const cdyn_ref_bead_params *p);

/* Release a bead.  Accepts NULL. */
void cdyn_ref_bead_free(cdyn_ref_bead *r);

/*
 * Integrate forward to time t, which must be finite and not earlier than
 * the current time; t equal to the current time does nothing.  The object
 * lands exactly on t.  Returns CDYN_EINVAL for a bad t, CDYN_ENONFINITE if
 * the state would overflow and CDYN_ESOLVE if the integrator fails; on any
 * failure the state and time are unchanged.
 */
int cdyn_ref_bead_advance(cdyn_ref_bead *r, double t);

/* The current time, or NaN if r is NULL. */
double cdyn_ref_bead_time(const cdyn_ref_bead *r);

/*
 * The current angle theta (not reduced to any interval: a bead that has
 * gone over the top keeps counting) and angular velocity theta'.  Either
 * output may be NULL.
 */
int cdyn_ref_bead_angle(const cdyn_ref_bead *r, double *theta, double *omega);

/* Position c + R (sin theta, -cos theta). */
int cdyn_ref_bead_position(const cdyn_ref_bead *r, double xy[2]);

/* Velocity R theta' (cos theta, sin theta). */
int cdyn_ref_bead_velocity(const cdyn_ref_bead *r, double v[2]);

/*
 * Energy per unit mass, |v|^2 / 2 + g y, with the zero of the potential at
 * y = 0 (not at the centre), as in cdyn_ref_nlink_energy().  Returns
 * CDYN_ENONFINITE if the result overflows.
 */
int cdyn_ref_bead_energy(const cdyn_ref_bead *r, double *e_per_mass);

/*
 * The exact motion after release from rest at theta0 (theta'(0) = 0):
 * theta(t) and theta'(t) for any finite t (negative t gives the motion
 * before, which is the same motion reflected in time).  Requires R > 0,
 * g >= 0, all finite, and |theta0| < pi with sin^2(theta0 / 2) < 1 in
 * floating point (the top itself is an equilibrium that the formula does
 * not cover).  Either output may be NULL.  Returns CDYN_EINVAL for invalid
 * arguments and CDYN_ESOLVE if GSL's elliptic functions report a failure.
 */
int cdyn_ref_bead_exact(double R, double g, double theta0, double t,
                        double *theta, double *omega);

#ifdef __cplusplus
}
#endif
#endif
