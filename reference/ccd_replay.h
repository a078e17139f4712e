/*
 * reference/ccd_replay.h: the continuous check of a step of a triangle
 * mesh, for the cloth-contact experiment (doc/cloth.md,
 * "Collision detection"): did any node pass through a triangle, or any edge through
 * another, while every point moved linearly from x0 to x1?  And how close
 * are the mesh's elements at x1?
 *
 * Every node-triangle pair and every edge-edge pair that shares no
 * particle is considered (no hierarchy: the swept boxes sorted along x,
 * the nodes' swept against the triangles', the edges' against each
 * other).  A pair whose swept boxes overlap is cleared without
 * exact arithmetic when a distance bound proves it apart over the step:
 * with D0, D1 its distances at x0 and x1 and S the largest displacement of
 * a point of the first element plus that of the second, its distance at
 * t is at least max(D0 - t S, D1 - (1 - t) S) >= (D0 + D1 - S) / 2, so
 * D0 + D1 - S > 1e-9 (metres; the doubles' rounding is below 1e-14 at the
 * scale of a metre) clears it (D1 - S > 1e-9 alone does, D0 being >= 0,
 * and then D0 is not computed).  Every other pair goes to the exact test
 * (reference/ccd_exact.c, GMP).  The distances are computed here, by
 * minimising over the closed elements (point-triangle: the projection
 * when inside, else the three sides; segment-segment: the interior
 * critical point when inside both, else the four end-to-segment
 * distances), sharing nothing with the library.
 */
#ifndef CDYN_REFERENCE_CCD_REPLAY_H
#define CDYN_REFERENCE_CCD_REPLAY_H

#include <stddef.h>

typedef struct ref_replay_report {
  size_t vf_pairs, ee_pairs; /* pairs whose swept boxes overlap */
  size_t exact;              /* pairs sent to the exact test */
  size_t crossings;          /* pairs that touched (exact) */
  size_t degenerate;         /* exact test undecided (zero-area triangle, zero-length edge) */
  double min_dist;           /* smallest distance at x1 over the overlapping pairs (INFINITY: none) */
} ref_replay_report;

/* tris: 3 ntris particle indices (the edges are their sides); x0, x1: 3
   per particle; min_dist covers the pairs within pad at x1.  0 on
   success, -1 on bad arguments or no memory. */
int ref_replay(const size_t *tris, size_t ntris, const double *x0, const double *x1, double pad,
               ref_replay_report *rep);

/* The distances of the closed elements (for the tests). */
double ref_dist_point_triangle(const double p[3], const double a[3], const double b[3], const double c[3]);
double ref_dist_segments(const double p[3], const double q[3], const double r[3], const double s[3]);

#endif
