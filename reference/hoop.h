/*
 * reference/hoop.h: a bead on a hoop that spins about its vertical
 * diameter at a constant rate, in the bead's angle on the hoop, for
 * checking particle-based schemes on a constraint that moves with time.
 *
 * Conventions.  The hoop has radius R and centre at the origin; it spins
 * about the y axis at the rate omega (counter-clockwise seen from +y).
 * Gravity of magnitude g acts in -y.  At time t the hoop lies in the plane
 * spanned by y^ and e(t) = (cos omega t, 0, -sin omega t), whose normal is
 * n(t) = (sin omega t, 0, cos omega t); theta is the bead's angle from the
 * downward vertical within that plane, so the bead is at
 *
 *   x = R (sin theta e(t) - cos theta y^),
 *
 * and theta obeys theta'' = sin theta (omega^2 cos theta - g / R) (the
 * mass drops out; hoop.c derives it).  The multipliers are those of the
 * library's "hoop" constraint type with the same parameters, rows
 * n(t) . x and (x . x - R^2) / (2 R).
 *
 * Every function that returns int returns a cdyn status (cdyn/error.h): on
 * failure the object is left as it was before the call and cdyn_errmsg()
 * says why.
 */
#ifndef CDYN_REFERENCE_HOOP_H
#define CDYN_REFERENCE_HOOP_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdyn_ref_hoop cdyn_ref_hoop;

typedef struct {
  double R;              /* radius, > 0, finite */
  double g;              /* gravity magnitude, >= 0, finite, acting in -y */
  double omega;          /* spin rate of the hoop about +y, finite */
  double theta0;         /* initial angle from the downward vertical, finite */
  double thetadot0;      /* initial theta' (the rate along the hoop), finite */
  double abstol, reltol; /* 0 means default 1e-13; otherwise in (0, 1e-6] */
} cdyn_ref_hoop_params;

/* Create a bead at time 0 in the state given by p (CDYN_EINVAL, CDYN_ENOMEM). */
int cdyn_ref_hoop_new(cdyn_ref_hoop **out, const cdyn_ref_hoop_params *p);
/* Release a bead.  Accepts NULL. */
void cdyn_ref_hoop_free(cdyn_ref_hoop *r);
/* Integrate forward to time t (not earlier than the current time; GSL
   rk8pd); lands exactly on t. */
int cdyn_ref_hoop_advance(cdyn_ref_hoop *r, double t);
double cdyn_ref_hoop_time(const cdyn_ref_hoop *r);
/* The angle and its rate (either may be NULL). */
int cdyn_ref_hoop_angle(const cdyn_ref_hoop *r, double *theta, double *thetadot);
/*
 * The bead's position, velocity and acceleration in the inertial frame
 * (3 values each, any may be NULL), from the angle, its rate and the
 * equation of motion, through the closed forms of hoop.c.
 */
int cdyn_ref_hoop_state(const cdyn_ref_hoop *r, double *x, double *v, double *a);
/*
 * The multipliers of the two rows (plane, then sphere) for a bead of mass
 * m, in the library's convention M a + J^T lambda = F (hoop.c):
 *   lambda_plane  = 2 m R omega theta' cos theta        (Coriolis)
 *   lambda_sphere = m g cos theta + m R (theta'^2 + omega^2 sin^2 theta)
 */
int cdyn_ref_hoop_multipliers(const cdyn_ref_hoop *r, double m, double lambda[2]);
/*
 * The relative equilibrium off the axis and the frequency of small
 * oscillations about it, in closed form: for omega^2 R > g,
 *   cos theta_eq = g / (omega^2 R),   Omega = |omega| sin theta_eq;
 * otherwise the bottom theta_eq = 0 is the stable one, with Omega^2 =
 * g / R - omega^2 (0 at omega^2 R = g).  Either output may be NULL.
 */
int cdyn_ref_hoop_equilibrium(double R, double g, double omega, double *theta_eq, double *Omega);

#ifdef __cplusplus
}
#endif
#endif
