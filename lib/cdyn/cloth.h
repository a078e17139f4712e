/*
 * cdyn/cloth.h: a mass-spring cloth patch, and adaptive strain limiting
 * (000 sec. 4, 001 sec. V-B): springs stretched beyond a limit become
 * distance constraints for as long as they pull.
 *
 * The patch is built as ordinary particles, springs and pins of a new
 * system, so every scheme runs on it; its topology (nodes by grid index,
 * triangles, edges, springs by kind) is kept in a cdyn_cloth for the
 * collision handling that works on triangles and edges.
 *
 * The model, the switching rules and the choices made: doc/cloth.md.
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
/*
 * The limiter's two modes.  SWITCH (000, 001): the switching above.
 * INEQUALITY: each watched spring stays a spring, and gets a one-sided
 * row, a "tether" constraint g = L - |x_i - x_j| >= 0 flagged as an
 * inequality (cdyn/contact.h), on from the start and never switched: the
 * limit only pulls, and the scheme decides within its step where it acts
 * (for the schemes that enforce inequalities).  before and after then
 * only count the rows at their limit.
 */
enum cdyn_strainlimit_mode { CDYN_LIMIT_SWITCH = 0, CDYN_LIMIT_INEQUALITY = 1 };

typedef struct cdyn_strainlimit_opts {
  double eps_max; /* > 0 */
  double length;  /* the constraint's length / L0: 0 = 1 + eps_max, else >= 1 */
  double release; /* N, >= 0: release when lambda < -release */
  int at_current; /* nonzero: the constraint's length is the spring's length when it
                     becomes a constraint (no violation to correct); `length` unused */
  double hysteresis; /* >= 0: a spring released at the last after becomes a constraint
                        again only beyond eps_max + hysteresis */
  int mode;          /* enum cdyn_strainlimit_mode (0: switch) */
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

/*
 * A heavy ball: particle `ball` of the system (its mass is the ball's; it
 * moves freely, or on a path given by a moving pin) with a radius, and
 * the `count` nodes kept outside it, at least radius + thickness from its
 * centre.  One separation constraint per node, |x_node - x_ball| >= d,
 * d = radius + thickness (cdyn_system_add_separation, the contact
 * machinery's constraint), is added when the ball is made (so make it
 * before the stepper).  Three ways to enforce them (mode):
 *   CDYN_BALL_SWITCH      for the equality schemes: before a step, the
 *                         constraint of every node that is within d, or
 *                         would be within d after a step of h at its
 *                         current relative normal velocity, is switched on
 *                         as an equality |x_node - x_ball| = d; after the
 *                         step it is switched off when its multiplier
 *                         pulls the node towards the ball (lambda >
 *                         release, the library's convention: lambda > 0
 *                         is tension).  001's non-penetration rule with
 *                         the release on the multiplier's sign.
 *   CDYN_BALL_INEQUALITY  the constraints stay on as inequality rows, for
 *                         the scheme "contact" (its active set decides).
 *   CDYN_BALL_PROJECT     no constraints: after a step, a node inside is
 *                         moved out along the ball's normal to distance d
 *                         and its velocity's approaching normal component
 *                         is set to the ball's (an inelastic contact), for
 *                         integrators without constraints (springs alone,
 *                         Provot, Baraff-Witkin).  The momentum the nodes
 *                         gain is taken from a free ball (one whose
 *                         particle has no constraint), so that the ball
 *                         feels the cloth.
 * In the constraint modes the ball's reaction is the constraint force's,
 * -J^T lambda on both particles.
 */
enum cdyn_ball_mode { CDYN_BALL_SWITCH, CDYN_BALL_INEQUALITY, CDYN_BALL_PROJECT };

typedef struct cdyn_ball_opts {
  double radius;    /* m, > 0 */
  double thickness; /* m, >= 0 */
  int mode;         /* enum cdyn_ball_mode */
  double release;   /* N, >= 0 (SWITCH): release when lambda > release */
} cdyn_ball_opts;

typedef struct cdyn_ball cdyn_ball;

typedef struct cdyn_ball_counts {
  size_t active;             /* constraints on now (SWITCH), nodes moved at the last after (PROJECT) */
  size_t activated, released; /* at the last before / after (SWITCH) */
  double depth;              /* deepest penetration now: max over nodes of d - |x_node - x_ball|, >= 0 */
} cdyn_ball_counts;

/* CDYN_EINVAL for a radius <= 0, a thickness < 0, a release < 0, an unknown
   mode, the ball among the nodes, a node or the ball out of range. */
int cdyn_ball_new(cdyn_ball **out, cdyn_system *sys, size_t ball, const size_t *nodes, size_t count,
                  const cdyn_ball_opts *opts);
void cdyn_ball_free(cdyn_ball *b);
/* Before a step of h (SWITCH: activations; other modes: nothing). */
int cdyn_ball_before(cdyn_ball *b, double h);
/* After the step (SWITCH: releases, from st's multipliers; PROJECT: the
   projection, h the step just taken; INEQUALITY: nothing). */
int cdyn_ball_after(cdyn_ball *b, const cdyn_stepper *st, double h);
/* The counts, with the depth measured now. */
int cdyn_ball_counts_get(const cdyn_ball *b, cdyn_ball_counts *counts);
/* The ball's particle and its options as made (either output may be NULL). */
int cdyn_ball_get(const cdyn_ball *b, size_t *ball, cdyn_ball_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
