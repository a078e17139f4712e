/*
 * cdyn/cloth.h: a mass-spring cloth patch, and adaptive strain limiting
 * (000 sec. 4, 001 sec. V-B): springs stretched beyond a limit become
 * distance constraints for as long as they pull.
 *
 * The patch is built as ordinary particles, springs and pins of a new
 * system, so every scheme runs on it; its topology (nodes by grid index,
 * triangles, edges, springs by kind) is kept in a cdyn_cloth for the
 * collision handling that works on triangles and edges.
 */
#ifndef CDYN_CLOTH_H
#define CDYN_CLOTH_H

#include <stddef.h>

#include "cdyn/stepper.h"
#include "cdyn/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A rectangular patch of nx x ny nodes (both >= 2): node (i, j), i < nx,
 * j < ny, has index j nx + i and starts at origin + i/(nx - 1) u +
 * j/(ny - 1) v, at rest.  Each node has mass mass / (nx ny).  Springs in
 * Provot's layout, each f_i = -(k (r - L0) + c (v_ij . n)) n with L0 its
 * starting length: structural along the grid lines, shear on both
 * diagonals of each quad, bend between every second node along rows and
 * columns; a kind with k = 0 is left out.  The quads are split into two
 * triangles by alternating diagonals ((i + j) even: (i, j)-(i+1, j+1);
 * odd: (i+1, j)-(i, j+1)), so the mesh has no preferred shear direction.
 * `pins` lists nodes pinned where they start (pin constraints, three rows
 * each).  `extra` particles (mass 1, at the origin, at rest) follow the
 * nodes, for whatever else the scene holds (a ball).
 */
typedef struct cdyn_cloth_spec {
  size_t nx, ny;
  double origin[3], u[3], v[3];
  double mass;                     /* kg, total */
  double k_struct, k_shear, k_bend; /* N/m, >= 0 */
  double damping;                  /* N s/m, the c of every spring, >= 0 */
  const size_t *pins;              /* node indices, may be NULL when npins = 0 */
  size_t npins;
  size_t extra;                    /* particles after the nodes */
} cdyn_cloth_spec;

typedef struct cdyn_cloth cdyn_cloth;

enum cdyn_spring_kind { CDYN_SPRING_STRUCT, CDYN_SPRING_SHEAR, CDYN_SPRING_BEND, CDYN_SPRING_KINDS };

/* Build the system (*sys) and the cloth's topology (*cloth).  Bad input
   (fewer than 2 x 2 nodes, u and v parallel or not finite, a mass <= 0, a
   negative stiffness or damping, a pin out of range or listed twice) is
   CDYN_EINVAL with nothing built. */
int cdyn_cloth_new(cdyn_cloth **cloth, cdyn_system **sys, const cdyn_cloth_spec *spec);
void cdyn_cloth_free(cdyn_cloth *cloth);

/* Node (i, j)'s particle index; CDYN_EINVAL out of range. */
int cdyn_cloth_node(const cdyn_cloth *cloth, size_t i, size_t j, size_t *node);
/* The triangles, 3 node indices each, counterclockwise about u x v. */
int cdyn_cloth_triangles(const cdyn_cloth *cloth, const size_t **tri, size_t *count);
/* The triangles' edges, each once, 2 node indices each. */
int cdyn_cloth_edges(const cdyn_cloth *cloth, const size_t **edge, size_t *count);
/* The springs of one kind: system spring indices first .. first + count - 1. */
int cdyn_cloth_springs(const cdyn_cloth *cloth, enum cdyn_spring_kind kind, size_t *first, size_t *count);

/*
 * Adaptive strain limiting (000 sec. 4, 001 sec. V-B).  Before each step,
 * cdyn_strainlimit_before turns every watched spring whose elongation
 * eps = (r - L0) / L0 exceeds eps_max into a distance constraint
 * |x_i - x_j| = L, L = length L0 (length 0: (1 + eps_max) L0, the limit
 * itself).  After the step, cdyn_strainlimit_after turns back into a
 * spring every such constraint whose multiplier (the stepper's, in the
 * convention M qdd + J^T lambda = F: lambda > 0 pulls) is below -release,
 * i.e. pushes its nodes apart: resists shrinkage.  A spring released
 * after a step is checked again before the next one, so a spring that
 * ends a step released and over the limit is a constraint again at once
 * (a flip, counted).  Works with every equality scheme.  Each watched
 * spring's constraint is added, switched off, when the limiter is made
 * (so make it before the stepper): a switch then only turns a spring and
 * a constraint on or off, and a stepper sizes itself for all of them
 * active at once, so neither the switches nor the steps allocate (but for
 * a sparse solver's analysis of an active set it has not seen:
 * cdyn/stepper.h).
 */
typedef struct cdyn_strainlimit_opts {
  double eps_max; /* > 0 */
  double length;  /* the constraint's length / L0: 0 = 1 + eps_max, else >= 1 */
  double release; /* N, >= 0: release when lambda < -release */
  int at_current; /* nonzero: the constraint's length is the spring's length when it
                     becomes a constraint (no violation to correct); `length` unused */
  double hysteresis; /* >= 0: a spring released at the last after becomes a constraint
                        again only beyond eps_max + hysteresis */
} cdyn_strainlimit_opts;

typedef struct cdyn_strainlimit cdyn_strainlimit;

typedef struct cdyn_strainlimit_counts {
  size_t active;            /* constraints now */
  size_t activated, released; /* at the last before / after */
  size_t flips;             /* springs activated again right after their release, cumulative */
  unsigned long total_activated, total_released;
} cdyn_strainlimit_counts;

/* Watch `count` springs of sys (indices in `springs`; each spring on and not
   watched twice).  CDYN_EINVAL for eps_max <= 0, length in (0, 1), release
   < 0, a spring out of range or listed twice. */
int cdyn_strainlimit_new(cdyn_strainlimit **out, cdyn_system *sys, const size_t *springs, size_t count,
                         const cdyn_strainlimit_opts *opts);
void cdyn_strainlimit_free(cdyn_strainlimit *sl);
int cdyn_strainlimit_before(cdyn_strainlimit *sl);
int cdyn_strainlimit_after(cdyn_strainlimit *sl, const cdyn_stepper *st);
int cdyn_strainlimit_counts_get(const cdyn_strainlimit *sl, cdyn_strainlimit_counts *counts);

/*
 * Provot's strain limiting (Provot 1995, "Deformation constraints in a
 * mass-spring model to describe rigid cloth behavior"), applied after a
 * step of the springs: each of the `count` springs stretched beyond
 * (1 + eps_max) L0 has its nodes moved towards each other along their
 * line until it is at that length, the correction shared in proportion to
 * the nodes' inverse masses, or taken wholly by the free node when the
 * other is `fixed` (fixed may be NULL: none is), none when both are; the
 * moved nodes' velocities change by the same displacement / h, so that
 * x and v stay consistent.  `sweeps` passes in the order given (Provot's
 * is order-dependent and does not conserve momentum); *moved (may be NULL)
 * gets the corrections made.  CDYN_EINVAL for eps_max <= 0, sweeps < 1,
 * h <= 0, a spring out of range.
 */
int cdyn_provot_limit(cdyn_system *sys, const size_t *springs, size_t count, double eps_max, int sweeps, double h,
                      const unsigned char *fixed, size_t *moved);

#ifdef __cplusplus
}
#endif
#endif
