/*
 * schemes/shake.h: the SHAKE step that RATTLE completes (shake.c,
 * rattle.c), private to lib/schemes.
 */
#ifndef CDYN_SCHEMES_SHAKE_H
#define CDYN_SCHEMES_SHAKE_H

#include "core/internal.h"

/*
 * The SHAKE step (lib/schemes/shake.c), which RATTLE completes with a
 * velocity projection: advances the system by h in place and leaves the
 * multiplier lambda of the first half kick, v1/2 = v + (h/2) W (F -
 * J^T lambda), in d->lambda.
 */
typedef struct cdyn_shake_opts {
  double tol;
  long max_iter;
} cdyn_shake_opts;
extern const cdyn_option cdyn_shake_options[];

typedef struct cdyn_shake_work {
  double *q0, *v0, *u, *jt; /* 3n each */
  double *b, *phi, *dl;     /* m each */
  double *block;
} cdyn_shake_work;

int cdyn_shake_step(cdyn_stepper *st, const cdyn_shake_work *w, double h, double tol, long max_iter,
                    const char *name);

/*
 * The state of shake and rattle: the work, and the history of their
 * multipliers.  `history` says a step of this stepper precedes; had[r]
 * then says whether that step enforced row r; mu holds RATTLE's velocity
 * multipliers of that step, by row.
 */
typedef struct cdyn_shake_state {
  cdyn_shake_work w;
  unsigned char *had; /* m */
  double *mu, *spare; /* m */
  int history;
} cdyn_shake_state;

int cdyn_shake_alloc(void **state, size_t n, size_t m);
void cdyn_shake_free(void *state);
void cdyn_shake_reset(void *state);
void cdyn_shake_changed(void *state, const cdyn_stepper *st, const cdyn_set_change *c);
void cdyn_shake_mark(cdyn_shake_state *s, size_t m);

#endif
