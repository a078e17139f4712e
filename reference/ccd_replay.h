/*
 * reference/ccd_replay.h: the continuous check of a step of a triangle
 * mesh, for the cloth-contact experiment (doc/cloth.md,
 * "Collision detection"): did any node pass through a triangle, or any edge through
 * another, while every point moved linearly from x0 to x1?  And how close
 * are the mesh's elements at x1?
 *
 * Every node-triangle pair and every edge-edge pair that shares no
 * particle is considered, found through the triangles (no hierarchy: the
 * triangles' boxes hashed into a uniform grid of cubes of twice their
 * median size, each overlapping pair of triangles met once, in the cell
 * of the lower corner of its overlap; a box that spans more than a few
 * cells is tested against every box).  Each node and each edge belongs to
 * the first triangle that has it, and lies in that triangle's box; a pair
 * of triangles whose boxes overlap hands on the pairs of their own nodes
 * and edges whose boxes overlap, so each such pair is met once (a node or
 * an edge whose box has a NaN coordinate, from a state that is not
 * finite, is tested against every partner instead).  Two passes: the
 * first meets the pairs whose swept boxes overlap (only those can touch:
 * each element lies in its box throughout) and asks whether they touched,
 * taking their distances at x1 on the way; the second meets the pairs
 * whose boxes at x1 overlap when grown by b / 2, b the smallest distance
 * within pad found so far (or pad), and takes their distances: a pair
 * nearer than b at x1 is within b along every axis, so min_dist is the
 * smallest distance within pad of every pair, whichever pass met it.
 * With a workspace kept from call to call, the first pass meets the swept
 * boxes grown by g, 0.6 times the last call's b (half of it and a fifth
 * more, for a b that rose a little): a pair it meets only through the
 * growth gets its distance alone (it counts nowhere else), and when
 * b / 2 <= g at the end of the pass it has met every pair the second
 * would, which is then not made.  From step to step b changes little, so
 * one grid pass does the work of two; the report is the same.  Nor is a
 * grid made at every call: the first pass keeps the pairs of its
 * triangles' boxes grown by a skin (a quarter of their median largest
 * side), and a later call whose every triangle's box lies within its grown
 * box of then meets its pairs among those kept (two boxes that overlap
 * have grown boxes that overlap), testing only them (while the mesh moves past the skin at
 * every call, the plain grid is made instead); the report is again the
 * same.  A pair whose swept boxes overlap is cleared without exact
 * arithmetic when a distance bound proves it apart over the step:
 * with D0, D1 its distances at x0 and x1 and S the largest displacement of
 * a point of the first element plus that of the second, its distance at
 * t is at least max(D0 - t S, D1 - (1 - t) S) >= (D0 + D1 - S) / 2, so
 * D0 + D1 - S > 1e-9 (metres; the doubles' rounding is below 1e-14 at the
 * scale of a metre) clears it (D1 - S > 1e-9 alone does, D0 being >= 0,
 * and then D0 is not computed).  A pair the bound does not clear (near)
 * goes to the certified floating-point filter (reference/ccd_filter.c:
 * interval arithmetic on the coplanarity cubic and the inside conditions
 * over a bisection of the step), which either proves the answer the exact
 * test would give (no contact, or a contact with non-degenerate elements)
 * or is unsure; only then does the pair go to the exact test
 * (reference/ccd_exact.c, GMP).  The distances are computed here, by
 * minimising over the closed elements (point-triangle: the projection
 * when inside, else the three sides; segment-segment: the interior
 * critical point when inside both, else the four end-to-segment
 * distances), sharing nothing with the library.  The distance between
 * the parties' boxes at a state, a lower bound of their distance, stands
 * for D1 where it alone clears the pair (its bound minus S above 1e-9),
 * and where it shows that the pair cannot lower min_dist; the report is
 * the one the distances give.
 *
 * A path.  ref_replay_path replays the states x_0, x_1, ..., x_k (k >= 1)
 * joined by straight pieces, every point moving linearly from x_j to
 * x_{j+1} over piece j: the motion of a scheme that cuts its step into
 * sub-steps.  The boxes are swept over all the states; a pair whose boxes
 * overlap counts once in vf_pairs or ee_pairs, and is asked piece by
 * piece (a piece whose own boxes do not overlap is skipped, then the
 * distance bound, the filter, the exact test, as above) until one piece
 * touches: it then counts once in crossings, whatever the other pieces;
 * a pair that touches in no piece but is degenerate in one counts once in
 * degenerate.  near, filtered and exact count pieces.  min_dist is taken
 * at x_k.  With k = 1 this is ref_replay exactly.
 */
#ifndef CDYN_REFERENCE_CCD_REPLAY_H
#define CDYN_REFERENCE_CCD_REPLAY_H

#include <stddef.h>

typedef struct ref_replay_report {
  size_t vf_pairs, ee_pairs; /* pairs whose swept boxes overlap */
  size_t near;               /* pieces of those pairs the distance bound did not clear */
  size_t filtered;           /* of those, decided by the filter (no contact, or contact) */
  size_t exact;              /* of those, sent to the exact test: near = filtered + exact */
  size_t crossings;          /* pairs that touched (the filter's proof or the exact test's) */
  size_t degenerate;         /* exact test undecided (zero-area triangle, zero-length edge) */
  double min_dist;           /* smallest distance below pad at the last state of any pair sharing no particle
                                (INFINITY: none) */
} ref_replay_report;

/* tris: 3 ntris particle indices (the edges are their sides); x0, x1: 3
   per particle; min_dist covers the pairs within pad at x1.  0 on
   success, -1 on bad arguments or no memory. */
int ref_replay(const size_t *tris, size_t ntris, const double *x0, const double *x1, double pad,
               ref_replay_report *rep);

/* The path x[0], ..., x[nx - 1] (nx >= 2 states, 3 doubles per particle
   each), as above; ref_replay(x0, x1) is ref_replay_path({x0, x1}, 2).
   0 on success, -1 on bad arguments (a NULL state, nx < 2) or no memory. */
int ref_replay_path(const size_t *tris, size_t ntris, const double *const *x, size_t nx, double pad,
                    ref_replay_report *rep);

/* The same with a workspace kept from call to call (the mesh's edges,
   found again only when the triangles change, and the arrays), for a
   replay of every step: nothing is allocated once the sizes are met.
   ref_replay_ws_new returns NULL when out of memory. */
typedef struct ref_replay_ws ref_replay_ws;
ref_replay_ws *ref_replay_ws_new(void);
void ref_replay_ws_free(ref_replay_ws *ws);
int ref_replay_path_ws(ref_replay_ws *ws, const size_t *tris, size_t ntris, const double *const *x, size_t nx,
                       double pad, ref_replay_report *rep);

/* How the workspace's first passes met their pairs: by a grid made for
   them with the pairs kept (builds), by the pairs kept from an earlier
   call (reuses), or by a grid made for them with nothing kept (plain,
   while the mesh moves past the skin at every call).  Each is 0 for a
   NULL workspace; a NULL pointer is not written. */
void ref_replay_ws_counts(const ref_replay_ws *ws, size_t *builds, size_t *reuses, size_t *plain);

/* The distances of the closed elements (for the tests). */
double ref_dist_point_triangle(const double p[3], const double a[3], const double b[3], const double c[3]);
double ref_dist_segments(const double p[3], const double q[3], const double r[3], const double s[3]);

#endif
