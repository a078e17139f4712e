/*
 * cdyn/collision.h: collision detection for cloth (001 sec. V-A; cloth.md,
 * "Collision detection").
 *
 * Continuous narrow phase.  The points move linearly over a step,
 * x(t) = x0 + t (x1 - x0), t in [0, 1].  cdyn_ccd_vf asks whether node p
 * can touch the closed triangle (a, b, c), cdyn_ccd_ee whether the closed
 * edges (p, q) and (r, s) can meet, at some t.  The answer is
 * conservative: a real contact is never missed, including the degenerate
 * cases (coplanar motion, parallel edges, a contact at t = 0 or 1, at a
 * vertex or along an edge); it may report a contact that is not there
 * (within the interval enclosures, at a time resolution `tol`).  *hit gets
 * 1 or 0 and, on a hit, *t (may be NULL) a time no later than the first
 * contact, within tol of the interval that could not be excluded.  Method
 * and the argument for its conservativeness: lib/ccd.c.
 *
 * CDYN_EINVAL for a NULL or non-finite point, hit NULL, or tol outside
 * (0, 0.5].  Neither function allocates.
 */
#ifndef CDYN_COLLISION_H
#define CDYN_COLLISION_H

#ifdef __cplusplus
extern "C" {
#endif

int cdyn_ccd_vf(const double p0[3], const double p1[3], const double a0[3], const double a1[3], const double b0[3],
                const double b1[3], const double c0[3], const double c1[3], double tol, int *hit, double *t);
int cdyn_ccd_ee(const double p0[3], const double p1[3], const double q0[3], const double q1[3], const double r0[3],
                const double r1[3], const double s0[3], const double s1[3], double tol, int *hit, double *t);

#ifdef __cplusplus
}
#endif
#endif
