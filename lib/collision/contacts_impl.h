/*
 * collision/contacts_impl.h: the cloth contact handler's state, shared by
 * its detection and release (contacts.c), its hierarchies' boxes
 * (boxes.c) and its fail-safe (failsafe.c).  Private to the library.
 */
#ifndef CDYN_COLLISION_CONTACTS_IMPL_H
#define CDYN_COLLISION_CONTACTS_IMPL_H

#include <stddef.h>

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
  double *lo, *hi; /* 3 max(ntri, nedge, nnode) */
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
};

/* boxes.c: the boxes of `count` elements of `per` particles each (idx:
   per * count particles) over the points x0 and x1 (x1 NULL: x0 alone),
   grown by g, into lo and hi (3 count each); and the three hierarchies
   refitted to the motion x0 -> x1. */
void cdyn_contacts_boxes(const cdyn_contacts *cc, const size_t *idx, size_t per, size_t count,
                         const double *x0, const double *x1, double g, double *lo, double *hi);
int cdyn_contacts_refit(cdyn_contacts *cc, const double *x0, const double *x1);
/* The fail-safe after a step of h (failsafe.c): allocation of its work
   arrays, their release, and the pass itself. */
int cdyn_failsafe_alloc(cdyn_contacts *cc);
void cdyn_failsafe_free(cdyn_contacts *cc);
int cdyn_failsafe_run(cdyn_contacts *cc, double h);

#endif
