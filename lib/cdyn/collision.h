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

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int cdyn_ccd_vf(const double p0[3], const double p1[3], const double a0[3], const double a1[3], const double b0[3],
                const double b1[3], const double c0[3], const double c1[3], double tol, int *hit, double *t);
int cdyn_ccd_ee(const double p0[3], const double p1[3], const double q0[3], const double q1[3], const double r0[3],
                const double r1[3], const double s0[3], const double s1[3], double tol, int *hit, double *t);

/*
 * Discrete narrow phase: the closest points of node p and the closed
 * triangle (a, b, c), or of the closed edges (p, q) and (r, s), at one
 * instant.  out->dist is their distance and *near is 1 when it is below
 * delta (the thickness); out->w holds weights with sum_k w_k x_k the vector
 * between the closest points, from the second party to the first (vf:
 * (1, -barycentric of the closest point); ee: (1 - alpha, alpha,
 * -(1 - beta), -beta)); out->normal is that vector normalised (at distance
 * 0: the face normal, or the edges' common normal).  CDYN_EINVAL for a NULL
 * or non-finite point, a delta not finite and > 0, NULL outputs;
 * CDYN_EDEGENERATE for a triangle of (nearly) zero area or an edge of zero
 * length.  Method: lib/proximity.c.
 */
typedef struct cdyn_proximity {
  double dist;
  double w[4];
  double normal[3];
} cdyn_proximity;

int cdyn_proximity_vf(const double p[3], const double a[3], const double b[3], const double c[3], double delta,
                      int *near, cdyn_proximity *out);
int cdyn_proximity_ee(const double p[3], const double q[3], const double r[3], const double s[3], double delta,
                      int *near, cdyn_proximity *out);

/*
 * Broad phase: a bounding-volume hierarchy of axis-aligned boxes (lo and
 * hi: 3 values per box).  cdyn_bvh_new sizes it for `capacity` boxes;
 * cdyn_bvh_build builds it over `count` <= capacity boxes; cdyn_bvh_refit
 * recomputes its bounds for moved boxes (same count, same topology).
 * cdyn_bvh_pairs writes the overlapping pairs (box of a, box of b) into
 * pairs (2 values each, at most cap pairs) and their number into *count;
 * b NULL or a: the pairs of distinct boxes of a, smaller index first.
 * When there are more than cap pairs, *count says how many and the status
 * is CDYN_ENOMEM (none is dropped silently).  CDYN_EINVAL for NULL
 * arguments, a count out of range, a box not finite or with lo > hi, or a
 * tree not built.  Only cdyn_bvh_new allocates.
 */
typedef struct cdyn_bvh cdyn_bvh;

int cdyn_bvh_new(cdyn_bvh **out, size_t capacity);
void cdyn_bvh_free(cdyn_bvh *b);
int cdyn_bvh_build(cdyn_bvh *b, const double *lo, const double *hi, size_t count);
int cdyn_bvh_refit(cdyn_bvh *b, const double *lo, const double *hi);
int cdyn_bvh_pairs(const cdyn_bvh *a, const cdyn_bvh *b, size_t *pairs, size_t cap, size_t *count);

#ifdef __cplusplus
}
#endif
#endif
