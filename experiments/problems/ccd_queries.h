/*
 * ccd_queries.h: the continuous-collision queries of the ccd-census
 * experiment (beyond the papers; doc/cloth.md, "Collision detection"), shared
 * with tests/test_ccd_census.c, which checks that each family is what it
 * says.
 *
 * A query: four points moving linearly, x(t) = x0 + t (x1 - x0), t in
 * [0, 1], as x[point][0 at t = 0, 1 at t = 1][coordinate]; node-triangle
 * (ee = 0: the node p and the triangle a, b, c) or edge-edge (ee = 1: the
 * edges p, q and r, s).  The families:
 *   random        x0 uniform in the unit box, x1 = x0 + d, d uniform in
 *                 [-1/2, 1/2]^3 (gsl_rng_uniform), every point; query i
 *                 with i % 3 == 0 is then shifted to cross (the node, or
 *                 the edge r s, moved rigidly so that it passes through a
 *                 point of barycentric weights in [0.05, 0.45] of the
 *                 triangle, or crosses p q at interior parameters in
 *                 [0.05, 0.95], at a random time; in doubles, so decided
 *                 by a reference);
 * and the constructed degenerate families, built on integers (multiples of
 * 2^-40, exact in doubles) so that the answer is known by construction:
 * positions multiples of 2^-10 in [-1, 1], velocities multiples of 2^-8 in
 * [-1, 1], the contact at t* = j / 64 (j = 1 .. 63), a point with position
 * X at t* and velocity V moving from X - t* V to X + (1 - t*) V.  Even
 * queries are built to touch (hit), odd ones to miss, except near-miss
 * (all miss) and graze (all hit).  A miss is certified by a plane that
 * separates the parties at t = 0 and at t = 1 alike (then at every t, the
 * motion being linear), with a gap g:
 *   coplanar      every point in the plane z = 0 throughout; hit: the node
 *                 at t* at a point (i0 a + i1 b + i2 c) / 8 of the closed
 *                 triangle (on an edge or a vertex when a weight is 0) /
 *                 the edges crossing at parameters i / 8 (ends included);
 *                 miss: apart across x = 0 by g in {2^-30, 2^-20, 2^-10}.
 *                 The triangle keeps its orientation in the plane (checked
 *                 exactly), so it never degenerates.
 *   parallel      vf: the triangle translates and the node moves along the
 *                 line of its edge a b (in its plane); hit: on the edge at
 *                 t* (parameter i / 8); miss: its parameter beyond [0, 1]
 *                 by at least 1/8 at t = 0 and 1.  ee: each edge
 *                 translates, s - r = kappa (q - p), kappa = +-1/4 .. 2;
 *                 at t* on one line, overlapping (hit) or at least 1/8 of
 *                 p q apart along it (miss; their relative velocity not
 *                 along the line, so on one line at t* only).
 *   root-t0       every point in z = 0 at t = 0 (f(0) = 0), at t = 1 the
 *                 node (the edge r s) above and the triangle (the edge p q)
 *                 at or below; the answer is that of t = 0: a point of the
 *                 closed triangle / crossing edges (hit) or apart across
 *                 x = 0 by g (miss).
 *   root-t1       root-t0 with time reversed (x0 and x1 swapped).
 *   vertex        hit: the node through vertex a at t* / end r through end
 *                 p, all velocities random; miss: across the plane x = 0,
 *                 a (p) on it and b, c (q) beyond, the node (r) at x = -g,
 *                 g = 2^-20, level with a (p) at t*.
 *   edge          as vertex, with the point a + mu (b - a), mu = 1/8 ..
 *                 7/8, of the edge (a, b on the plane) in place of a; ee:
 *                 end r on the interior of p q.
 *   leading-zero  every velocity with the same z component, so the
 *                 relative velocities are coplanar and the cubic's t^3
 *                 coefficient vanishes; hit: the node at a point of the
 *                 closed triangle / the edges crossing at interior
 *                 parameters at t*; miss: apart across x = 0 by g = 2^-20.
 *   near-miss     the closest approach g = 2^-30 (about 9.3e-10) across a
 *                 separating plane, by i % 3: above an interior point of
 *                 the face at t = 1 or 0 (the triangle in z = 0 keeping its
 *                 orientation, the node at z >= g) / r s under interior
 *                 points of p q at t = 1 or 0 (p q in z = 0, r s at
 *                 z <= -g); beside an edge's interior / end r beside the
 *                 interior of p q; beside a vertex / end r beside end p,
 *                 at t*.
 *   graze         the same with g = 0: touching at exactly zero distance
 *                 without crossing.
 * Half of the constructed queries (at random) are then mapped by x ->
 * 2^s (M x + T), M a random integer 3 x 3 matrix of entries -1, 0, 1 with
 * det M != 0, T a multiple of 2^-10 in [-1, 1]^3, s in -2 .. 2: exact in
 * doubles, and an affine map keeps linear motion, incidence, coplanarity,
 * parallelism, separating planes and the vanishing of the t^3 coefficient
 * (f becomes det M f); the other half stay axis-aligned.  Gaps are those
 * of the construction, before the map.  Every draw comes from the
 * generator given, in the order of the code.
 */
#ifndef CDYN_CCD_QUERIES_H
#define CDYN_CCD_QUERIES_H

#include <gsl/gsl_rng.h>

enum ccdq_family {
  CCDQ_RANDOM,
  CCDQ_COPLANAR,
  CCDQ_PARALLEL,
  CCDQ_ROOT_T0,
  CCDQ_ROOT_T1,
  CCDQ_VERTEX,
  CCDQ_EDGE,
  CCDQ_LEADING_ZERO,
  CCDQ_NEAR_MISS,
  CCDQ_GRAZE,
  CCDQ_NFAM
};

/* "random", "coplanar", ... as above. */
extern const char *const ccdq_family_names[CCDQ_NFAM];

/* Where a constructed query touches or passes closest. */
enum ccdq_feature {
  CCDQ_AT_NONE,   /* not recorded */
  CCDQ_AT_VERTEX, /* vf: the node and vertex a; ee: ends r and p */
  CCDQ_AT_EDGE,   /* vf: the node and an interior point of a b; ee: end r and one of p q */
  CCDQ_AT_FACE    /* vf: the node and an interior point of the face; ee: interior points of both */
};

typedef struct ccdq_info {
  int built;   /* the answer by construction: 1 contact, 0 none */
  int j;       /* the instant of the construction, t* = j / 64 (0 .. 64); -1: none */
  enum ccdq_feature feature;
  double gap;  /* the distance there before the map (0: touching); -1: not recorded */
} ccdq_info;

/* Query i of the random family, kind ee (0 vf, 1 ee), into x; CDYN_EINVAL
   for a kind out of range or a NULL argument. */
int ccdq_random(gsl_rng *r, int ee, unsigned long i, double x[4][2][3]);

/*
 * Query i of constructed family fam (CCDQ_COPLANAR .. CCDQ_GRAZE), kind
 * ee, into x, and what it was built to be into *info.  CDYN_EINVAL for a
 * family out of range or a construction that fails its own checks (which
 * the rules above exclude: every value exact, a planar triangle found
 * that keeps its orientation).
 */
int ccdq_constructed(gsl_rng *r, int fam, int ee, unsigned long i, double x[4][2][3], ccdq_info *info);

#endif
