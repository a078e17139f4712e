/*
 * reference/spherical.h: a spherical pendulum (a point mass at fixed
 * distance L from a fixed pivot, free to move in 3-D) in its polar and
 * azimuthal angles, integrated to tight tolerance, for checking
 * particle-based constraint schemes against an independent solution.
 *
 * Conventions.  Gravity of magnitude g acts in -y, fixed, as in the
 * library's experiments (gravity (0, -g, 0)); a caller with another
 * direction must rotate its frame.  theta is the polar angle from the
 * downward vertical and phi the azimuth, measured in the horizontal x-z
 * plane from +x towards +z:
 *
 *   x = px + L sin(theta) cos(phi),
 *   y = py - L cos(theta),
 *   z = pz + L sin(theta) sin(phi).
 *
 * At phi = 0 the motion in the x-y plane is that of reference/bead.h and
 * reference/nlink.h with the same theta.  The angular momentum per unit
 * mass about the vertical through the pivot is
 *
 *   l_y = ((r - p) x v) . e_y = -L^2 sin^2(theta) phi',
 *
 * and the conserved p_phi = sin^2(theta) phi' is built into the model (see
 * spherical.c).  Motions that would come close to a pole (theta = 0 or pi)
 * with p_phi != 0 are refused at creation; p_phi = 0 exactly is the planar
 * pendulum in the vertical plane phi = phi0 and is allowed everywhere, with
 * theta then a signed angle in that plane.
 *
 * Every function that returns int returns a cdyn status (cdyn/error.h): on
 * failure the object is left as it was before the call and cdyn_errmsg()
 * says why.
 */
#ifndef CDYN_REFERENCE_SPHERICAL_H
#define CDYN_REFERENCE_SPHERICAL_H

#ifdef __cplusplus
extern "C" {
#endif

/* A spherical pendulum together with its integrator and current state. */
typedef struct cdyn_ref_sph cdyn_ref_sph;

typedef struct {
  double L;              /* length, > 0, finite */
  double g;              /* gravity magnitude, >= 0, finite, acting in -y */
  double pivot[3];       /* fixed pivot, finite */
  double theta0, phi0;   /* initial polar angle and azimuth (rad), finite */
  double thetadot0;      /* initial theta', finite */
  double phidot0;        /* initial phi', finite */
  double abstol, reltol; /* 0 means default 1e-13; otherwise in (0, 1e-6] */
} cdyn_ref_sph_params;

/*
 * The smallest sin(theta) the motion may reach when p_phi != 0.  Near a
 * pole phi' = p_phi / sin^2(theta) grows without bound, so the model in
 * these angles stops being a good reference there.
 */
#define CDYN_REF_SPH_MIN_POLE_SINE 1e-3

/*
 * Create a pendulum at time 0 in the state given by p.  On success *out
 * holds the new object; on failure *out is set to NULL (if out is not
 * NULL) and nothing is leaked.  Returns CDYN_EINVAL for invalid parameters,
 * including a state with p_phi = sin^2(theta0) phi'0 != 0 whose motion
 * would bring sin(theta) below CDYN_REF_SPH_MIN_POLE_SINE, and CDYN_ENOMEM
 * if memory runs out.
 */
int cdyn_ref_sph_new(cdyn_ref_sph **out, const cdyn_ref_sph_params *p);

/* Release a pendulum.  Accepts NULL. */
void cdyn_ref_sph_free(cdyn_ref_sph *r);

/*
 * Integrate forward to time t, which must be finite and not earlier than
 * the current time; t equal to the current time does nothing.  The object
 * lands exactly on t.  Returns CDYN_EINVAL for a bad t, CDYN_ENONFINITE if
 * the state would overflow and CDYN_ESOLVE if the integrator fails; on any
 * failure the state and time are unchanged.
 */
int cdyn_ref_sph_advance(cdyn_ref_sph *r, double t);

/* The current time, or NaN if r is NULL. */
double cdyn_ref_sph_time(const cdyn_ref_sph *r);

/*
 * The current angles and their rates; phi' is p_phi / sin^2(theta), and 0
 * in the planar case.  Any output may be NULL.
 */
int cdyn_ref_sph_angles(const cdyn_ref_sph *r, double *theta, double *phi,
                        double *thetadot, double *phidot);

/*
 * The closed band [theta_min, theta_max] within [0, pi] of polar angles
 * (theta reduced to [0, pi] by theta -> acos(cos theta)) that the conserved
 * energy and p_phi allow.  With p_phi != 0 these are the turning angles of
 * the motion, equal for a conical pendulum; in the planar case theta_min
 * is 0 and theta_max the amplitude (pi if the pendulum can reach the top).
 * Either output may be NULL.
 */
int cdyn_ref_sph_turning(const cdyn_ref_sph *r, double *theta_min,
                         double *theta_max);

/* Position of the mass. */
int cdyn_ref_sph_position(const cdyn_ref_sph *r, double xyz[3]);

/* Velocity of the mass. */
int cdyn_ref_sph_velocity(const cdyn_ref_sph *r, double v[3]);

/*
 * Energy per unit mass, |v|^2 / 2 + g y, with the zero of the potential at
 * y = 0 (not at the pivot), evaluated from the Cartesian position and
 * velocity.  Returns CDYN_ENONFINITE if the result overflows.
 */
int cdyn_ref_sph_energy(const cdyn_ref_sph *r, double *e_per_mass);

#ifdef __cplusplus
}
#endif
#endif
