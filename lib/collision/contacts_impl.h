/*
 * collision/contacts_impl.h: the cloth contact handler's state, shared by
 * its detection and release (contacts.c), its broad phase
 * (candidates.c) and its fail-safe (failsafe.c).  Private to the library.
 */
#ifndef CDYN_COLLISION_CONTACTS_IMPL_H
#define CDYN_COLLISION_CONTACTS_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "cdyn/collision.h"
#include "core/internal.h"

enum { VF = 0, EE = 1, NN = 2 };

/* A normal speed below this (m/s) is rest, not separation (rounding of J v). */
#define SEP_NOISE 1e-6

/* Edges meeting at an angle whose sine is below this get no edge-edge
   constraint (its normal turns as 1 / sin: a near-parallel pair linearises
   badly); the node-triangle pairs at their ends hold them. */
#define PARALLEL_SIN 0.1

typedef struct {
  int kind;
  size_t a, b;     /* vf: node, triangle; ee: edge, edge (a < b); nn: node, node (a < b) */
  size_t con;      /* constraint id */
  long sep_start;  /* step end at which it was first seen separating; -1: not yet */
  int fresh;       /* made after the step, not in it (no repeat was left) */
} contact;

/* The fail-safe's work arrays (failsafe.c), allocated with the handler
   when the option is on. */
typedef struct {
  double *q, *v;          /* 3n: the state it makes */
  double *x1;             /* 3n: the step's end as the scheme left it */
  size_t *parent;         /* n: union-find forest of the impact zones */
  size_t *next, *head;    /* n each: the members of each zone, per pass */
  unsigned char *mode;    /* n, per zone root: FS_* of failsafe.c */
  unsigned char *dirty;   /* n, per zone root: its motion is to be made again */
  unsigned char *held;    /* n: held to the world (a pin), or of infinite mass */
} cdyn_failsafe_ws;

struct cdyn_contacts {
  cdyn_system *sys;
  cdyn_contacts_opts o;
  size_t ntri, nedge, nnode;
  size_t *tri;   /* 3 ntri */
  size_t *edge;  /* 2 nedge */
  size_t *node;  /* nnode: the particles of the triangles */
  cdyn_bvh *bn, *bt, *be;
  double *lo, *hi; /* 3 max(ntri, nedge, nnode): boxes handed to a hierarchy */
  size_t *pairs;   /* 2 opts.pairs */
  contact *c;      /* opts.capacity */
  size_t nc;
  double *q0, *v0, t0; /* the state at the step's start */
  double *x1;          /* 3n: the predicted positions q0 + h v0 */
  int saved;
  unsigned redos;      /* repeats of the current step */
  long step;           /* step ends seen */
  cdyn_contacts_counts counts;
  cdyn_failsafe_ws fs;
  size_t touching; /* pairs the continuous test found touching in the last check of a taken motion */
  /* The candidate list (candidates.c). */
  uint32_t *list[2];   /* 2 opts.pairs each: VF (node, triangle) and EE (edge, edge) element pairs */
  size_t nlist[2];
  int listed;          /* the list holds every pair of its build's boxes */
  double lskin;        /* the skin of the next build (candidates.c: the option's, halved while a list does not fit) */
  double list_skin;    /* the skin the list was built with, which its fit is judged by */
  double *rlo, *rhi;   /* 3n: each particle's box at the list's build */
  double *plo, *phi;   /* 3n: each particle's box over the motion of the last cdyn_contacts_motion */
  double *elo, *ehi;   /* 3 (nnode + ntri + nedge): the elements' boxes over that motion, not grown */
  int fits;            /* that motion lies in the list's skin */
  unsigned retry;      /* motions left before the next try at a list, after one that did not fit */
  int list_due;        /* the motion's list is yet to be judged (or built): at its first query that needs it */
  int list_fit;        /* the motion lies in the list's skin (when listed) */
  /* The pairs of the last query of each kind with boxes grown by g > 0
     (candidates.c): a later query whose boxes lie within them, shifted and
     grown, is answered from them. */
  uint32_t *near[2];   /* 2 opts.pairs each */
  size_t nnear[2];
  int near_have[2];
  double near_g[2];    /* that query's growth */
  double *nlo[2], *nhi[2]; /* 3n each: the particles' boxes over that query's motion */
  double near_slack[2]; /* the current motion's distance from them (half the spread, rounding added) */
  uint32_t *sorted;    /* 2 opts.pairs: the pairs between the two passes of their sort */
  size_t *bucket;      /* max(nnode, ntri, nedge) + 1: the sort's counts */
};

/* candidates.c: the reservation of its arrays, the hierarchies built over
   the cloth at the system's state; set the motion x0 -> x1 of the next queries (the list
   rebuilt when the motion leaves its skin), then the pairs of one kind (VF
   or EE) that share no particle and whose boxes over that motion, grown
   by g in [0, CDYN_CONTACTS_GROW], overlap, into cc->pairs (*np of them),
   in ascending order of (a, b): the order depends on the pairs alone,
   never on how the broad phase found them.
   A pair nearer than the thickness has boxes within it along every axis,
   so boxes grown by half of it (and 1e-6 of that for rounding) overlap;
   a pair that touches has overlapping boxes ungrown. */
#define CDYN_CONTACTS_GROW(cc) (0.5 * (cc)->o.thickness * (1 + 1e-6))
int cdyn_contacts_alloc_list(cdyn_contacts *cc);
int cdyn_contacts_build_trees(cdyn_contacts *cc);
int cdyn_contacts_motion(cdyn_contacts *cc, const double *x0, const double *x1);
int cdyn_contacts_pairs(cdyn_contacts *cc, int kind, double g, size_t *np);
/* The fail-safe after a step of h (failsafe.c): allocation of its work
   arrays, their release, and the pass itself. */
int cdyn_failsafe_alloc(cdyn_contacts *cc);
void cdyn_failsafe_free(cdyn_contacts *cc);
int cdyn_failsafe_run(cdyn_contacts *cc, double h);

#endif
