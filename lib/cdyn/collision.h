/*
 * cdyn/collision.h: collision detection for cloth (001 sec. V-A; doc/cloth.md,
 * "Collision detection").
 *
 * Continuous narrow phase.  The points move linearly over a step,
 * x(t) = x0 + t (x1 - x0), t in [0, 1].  cdyn_ccd_vf asks whether node p
 * can touch the closed triangle (a, b, c), cdyn_ccd_ee whether the closed
 * edges (p, q) and (r, s) can meet, at some t.  The answer is
 * conservative: a real contact is never missed, including the degenerate
 * cases (coplanar motion, parallel edges, a contact at t = 0 or 1, at a
 * vertex or along an edge); it may report a contact that is not there
 * (a miss within the rounding of its floating-point bounds, or a touch
 * without crossing).  *hit gets 1 or 0 and, on a hit, *t (may be NULL) a
 * time no later than the first contact: the start of the first time
 * interval that could not be excluded, of width at most tol (within tol
 * of the contact when one was proved in it).  Method and the argument for
 * its conservativeness: lib/collision/ccd.c.
 *
 * CDYN_EINVAL for a NULL or non-finite point, hit NULL, or tol outside
 * (0, 0.5].  Neither function allocates.
 */
#ifndef CDYN_COLLISION_H
#define CDYN_COLLISION_H

#include <stddef.h>

#include "cdyn/stepper.h"
#include "cdyn/system.h"

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
 * length.  Method: lib/collision/proximity.c.
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


/*
 * Cloth non-penetration: contacts between the triangles of a mesh (its
 * nodes against its triangles, its edges against its edges, self-collision
 * included), found by the detection above and enforced as node_triangle
 * and edge_edge constraints of thickness delta; equations, detection,
 * release rules and capacity in lib/collision/contacts.c.
 *   CDYN_CONTACTS_INEQUALITY  inequality rows Phi >= 0, for the scheme
 *                             "contact" (its active set: lcp, iterative...);
 *   CDYN_CONTACTS_SWITCH      equalities Phi = 0 while held, for the
 *                             equality schemes (001's switching).
 * Use per step: cdyn_contacts_before(h); step; cdyn_contacts_after(st, h,
 * &redo); while redo, step again (the state was restored to the step's
 * start with the contacts found in the motion taken) and call after again.
 * Make the handler before the stepper: it reserves the system's room for
 * `capacity` contacts.
 */
enum cdyn_contacts_mode { CDYN_CONTACTS_INEQUALITY, CDYN_CONTACTS_SWITCH };

typedef struct cdyn_contacts_opts {
  double thickness;   /* delta, m, > 0 */
  int mode;           /* enum cdyn_contacts_mode */
  int continuous;     /* also continuous detection (predicted and taken motion) */
  size_t capacity;    /* contacts at once, 1 .. 2^24 */
  size_t pairs;       /* broad-phase pairs per query, 1 .. 2^28 */
  double margin;      /* m >= 0: region release margin */
  double sep_speed;   /* m/s >= 0: release when separating faster */
  double release;     /* >= 0: release when the multiplier exceeds it (pull) */
  double ccd_tol;     /* time resolution of cdyn_ccd_*, (0, 0.5] */
  unsigned max_redo;  /* repeats of one step, <= 64 */
  int stack;          /* mode switch: a node or edge already held takes more contacts, solved together */
  int failsafe;       /* rigid impact zones after each step: no crossing (lib/collision/failsafe.c) */
  unsigned failsafe_iter; /* its detection passes per step, 1 .. 10000 */
  double skin;        /* m >= 0: the candidate pairs are kept while the cloth moves less than this
                         (relative to a common translation) from where they were found; 0: found at
                         every query (lib/collision/candidates.c) */
  double merge;       /* degrees in [0, 180], mode switch with stack on: a pair whose node or edge is
                         already held by a contact pushing it within this angle of the pair's own
                         direction is merged into that contact (none made); 0: every pair its own */
} cdyn_contacts_opts;

typedef struct cdyn_contacts_counts {
  size_t active, vf, ee, nn;    /* contacts now, of which node-triangle, edge-edge, node-node */
  size_t created;               /* at the last before (and the afters of its step) */
  size_t released;              /* at the last after */
  size_t candidates;            /* broad-phase pairs at the last before (sharing no particle) */
  size_t found_after;           /* contacts found in the taken motion of the last step */
  unsigned long tests;          /* narrow-phase pair tests, cumulative */
  unsigned long redos;          /* steps repeated, cumulative */
  unsigned long unresolved;     /* touches found when no repeat was left, cumulative */
  unsigned long skipped;        /* pairs with a degenerate triangle, cumulative */
  unsigned long parallel;       /* edge pairs too parallel for a normal, cumulative */
  unsigned long endpoint;       /* edge pairs found meeting at an end (left to node-triangle), cumulative */
  unsigned long redundant;      /* mode switch, stack off: pairs whose node or edge was already held, cumulative */
  unsigned long merged;         /* mode switch, stack on, merge > 0: pairs merged into a contact holding their
                                   node or edge in a direction within `merge` of theirs, cumulative */
  unsigned long total_released; /* cumulative, by rule: */
  unsigned long released_separating, released_pull, released_region, released_degenerate;
  unsigned long delay_sum, delay_max; /* release delays in steps (lib/collision/contacts.c), cumulative */
  /* The fail-safe (lib/collision/failsafe.c), cumulative: */
  unsigned long fs_steps;       /* steps whose motion it changed */
  unsigned long fs_passes;      /* its own detection passes */
  unsigned long fs_reused;      /* steps it checked by the handler's own continuous check of the motion taken
                                   (no pair touching: no pass of its own); fs_passes + fs_reused >= steps */
  unsigned long fs_hits;        /* pairs found touching, over its passes */
  unsigned long fs_zones;       /* impact zones it moved, counted at each step's end */
  unsigned long fs_nodes;       /* nodes in those zones */
  unsigned long fs_rigid, fs_translated, fs_frozen; /* zones by the motion they were given */
  unsigned long fs_unresolved;  /* steps left with a touching pair (touching at the step's start) */
  double fs_impulse;            /* sum over changed nodes of m |v_new - v|, N s */
  double fs_momentum;           /* sum over steps of |sum_i m_i (v_new - v)|, N s (0 but for frozen zones) */
  double fs_energy;             /* sum over steps of the kinetic energy it removed, J (negative: added) */
  double fs_seconds;            /* wall-clock time in it, s */
  unsigned long cleared;        /* pair tests before a step whose distance at the step's start, less the
                                   elements' largest displacements, proved them apart (no continuous test),
                                   cumulative */
  unsigned long list_builds;    /* candidate lists found by the hierarchies, cumulative */
  unsigned long list_kept;      /* motions whose pairs came from a kept list, cumulative */
  unsigned long list_direct;    /* motions whose pairs came from the hierarchies directly (skin 0, or a
                                   list that would not fit `pairs`), cumulative */
  unsigned long near_queries;   /* queries answered from the pairs of the last query of their kind whose
                                   boxes, grown more, hold theirs (the check of a step's motion taken,
                                   from the pairs of its prediction), cumulative; a motion all of whose
                                   queries were is in none of the three counts above */
  unsigned long quiet_after;    /* continuous: steps kept (no repeat asked) whose check of the motion taken
                                   found no pair touching, cumulative; with the fail-safe on, fs_reused */
  unsigned long touched_after;  /* continuous: steps kept whose check found a pair touching (no repeat left),
                                   cumulative: the steps a fail-safe would have worked on */
} cdyn_contacts_counts;

enum { CDYN_CONTACT_VF = 0, CDYN_CONTACT_EE = 1, CDYN_CONTACT_NN = 2 };
typedef struct cdyn_contact_info {
  int kind;               /* CDYN_CONTACT_VF, CDYN_CONTACT_EE or CDYN_CONTACT_NN */
  size_t first, second;   /* vf: node particle, triangle index; ee: edge indices; nn: node particles */
  size_t constraint;      /* its constraint id in the system */
  size_t particles[4];    /* the constraint's particles, oriented (nn: two, then SIZE_MAX) */
  double phi, u;          /* Phi and dPhi/dt = J v now */
} cdyn_contact_info;

typedef struct cdyn_contacts cdyn_contacts;

/* Defaults: thickness 5 mm, inequality, continuous, capacity 4096, 2^18
   pairs, margin 5 mm, sep_speed 1 mm/s, release 0, ccd_tol 1e-6, max_redo 4,
   stack off, merge 0, fail-safe off (100 passes when on). */
int cdyn_contacts_opts_default(cdyn_contacts_opts *o);
/* tris: 3 ntris particle indices.  CDYN_EINVAL for bad options or
   triangles (out of range, repeated particle); CDYN_ENONFINITE for a
   state not finite. */
int cdyn_contacts_new(cdyn_contacts **out, cdyn_system *sys, const size_t *tris, size_t ntris,
                      const cdyn_contacts_opts *o);
/* Free the handler.  The constraints of its contacts stay in the system
   (which may have been freed first): cdyn_contacts_clear removes them. */
void cdyn_contacts_free(cdyn_contacts *cc);
/* Remove every contact: its constraint leaves the system (counted as
   neither a release nor a creation).  CDYN_EINVAL for a NULL handler. */
int cdyn_contacts_clear(cdyn_contacts *cc);
/* CDYN_ENONFINITE for a state not finite, CDYN_ENOMEM when the contacts
   or the pairs exceed what was reserved (with the count). */
int cdyn_contacts_before(cdyn_contacts *cc, double h);
int cdyn_contacts_after(cdyn_contacts *cc, const cdyn_stepper *st, double h, int *redo);
int cdyn_contacts_counts_get(const cdyn_contacts *cc, cdyn_contacts_counts *counts);
size_t cdyn_contacts_active(const cdyn_contacts *cc);
int cdyn_contacts_get(const cdyn_contacts *cc, size_t k, cdyn_contact_info *info);
/* The mesh's edges (2 particles each, smaller first), their number. */
size_t cdyn_contacts_edges(const cdyn_contacts *cc, const size_t **edges);
/* The mesh's triangles as given (3 particles each), their number. */
size_t cdyn_contacts_triangles(const cdyn_contacts *cc, const size_t **tris);

#ifdef __cplusplus
}
#endif
#endif
