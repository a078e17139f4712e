/*
 * activeset.h: the interface active-set algorithms are written against
 * (internal).  See cdyn/contact.h for the contact problem
 *   w = A mu + b,  equality rows: w = 0;  inequality rows: w >= 0, mu >= 0,
 *   mu w = 0,
 * and its sign convention.
 *
 * An algorithm is a type object: a file defining a const
 * cdyn_activeset_type and one line in activesets.def.  It works on dense
 * row-major storage inside a workspace sized once, so a solve never
 * allocates.
 */
#ifndef CDYN_ACTIVESET_H
#define CDYN_ACTIVESET_H

#include <stddef.h>

#include <lapacke.h>

#include "cdyn/contact.h"

typedef struct cdyn_as_problem {
  size_t n;                      /* rows */
  const double *A;               /* n*n row-major, symmetric PSD */
  const double *b;               /* n */
  const unsigned char *equality; /* n flags, or NULL: no equality rows */
  const unsigned char *prev;     /* n flags carried from the last solve, or NULL */
  double tol_w, tol_mu;          /* sign tolerances (absolute) */
  const double *tw, *tm;         /* per-row tolerances replacing them, or NULL (see below) */
  double rank_tol;               /* relative eigenvalue cut-off of the sub-solves */
} cdyn_as_problem;

/*
 * The sign tolerances of row k: tol_w and tol_mu, or the row's own when
 * the problem carries them (an equilibrated problem, whose row k is the
 * given one scaled: its tolerances are the given problem's, scaled alike,
 * so that every sign decision is the one the given problem asks for).
 */
static inline double cdyn_as_tol_w(const struct cdyn_as_problem *p, size_t k)
{
  return p->tw ? p->tw[k] : p->tol_w;
}
static inline double cdyn_as_tol_mu(const struct cdyn_as_problem *p, size_t k)
{
  return p->tm ? p->tm[k] : p->tol_mu;
}

/* Workspace for problems of up to `cap` rows. */
typedef struct cdyn_as_ws {
  size_t cap;
  double *sub;     /* cap*cap: A_SS, then its factor or eigenvectors */
  double *eig;     /* cap */
  double *r, *x;   /* cap: compressed right-hand side and solution */
  double *work;    /* dsyev workspace */
  lapack_int lwork;
  size_t *idx;     /* cap: the rows of S */
  unsigned char *set;   /* cap flags, free for the algorithms */
  double *tmp[4];  /* cap each, free for the algorithms */
} cdyn_as_ws;

int cdyn_as_ws_alloc(cdyn_as_ws *ws, size_t cap);
void cdyn_as_ws_free(cdyn_as_ws *ws);

/*
 * x_S solves A_SS x_S = r_S for the rows with S[k] != 0 (Cholesky, or the
 * minimum-norm least-squares solution by eigen-decomposition when A_SS is
 * singular to rank_tol); x_k = 0 off S.  x may not alias r.  Returns the
 * size of S through *size (may be NULL).  Never allocates.
 */
int cdyn_as_subsolve(cdyn_as_ws *ws, size_t n, const double *A, const unsigned char *S,
                     const double *r, double rank_tol, double *x, size_t *size);

/*
 * mu_S from A_SS mu_S = -b_S, mu = 0 off S, then w = A mu + b.  Counts
 * one iteration in rep, and one solve when S is non-empty.
 */
int cdyn_as_solve_set(cdyn_as_ws *ws, const cdyn_as_problem *p, const unsigned char *S,
                      double *mu, double *w, cdyn_activeset_report *rep);

/*
 * The violation-tendency test of 003 §4.1 under the current solve: add
 * to `handled` every row not in it with w_k < -tol_w.  Returns whether
 * any was added.
 */
int cdyn_as_add_violated(const cdyn_as_problem *p, const double *w, unsigned char *handled);

/* w = A mu + b. */
void cdyn_as_residual(const cdyn_as_problem *p, const double *mu, double *w);

/* Is row k an equality row? */
static inline int cdyn_as_is_eq(const cdyn_as_problem *p, size_t k)
{
  return p->equality && p->equality[k];
}

/*
 * Are the equality rows satisfied by the solve?  An equality row keeps a
 * residual w_k != 0 after a (least-squares) sub-solve only when its
 * equation has no solution together with the other handled rows (b_S not
 * in the range of A_SS: two copies of a row that ask for different
 * values, or a set of inequality rows handled with them that cannot hold
 * at once).  Returns CDYN_EINFEASIBLE ("inconsistent constraint set") when some
 * equality row has |w_k| > tol_w and also above the rounding floor
 *   (rank_tol + 4 n eps) (|b_k| + sum_j |A_kj mu_j|),
 * the residual a consistent system can keep from rounding and from the
 * sub-solve's rank cut-off (which matters only when rel_tol is tiny);
 * CDYN_OK otherwise.  Never allocates.
 */
int cdyn_as_check_equalities(const cdyn_as_problem *p, const double *mu, const double *w);

/*
 * Fill the report's counts and flags from the final mu, w and handled set
 * (solves and iterations are left as the algorithm counted them), then
 * check the equality rows (cdyn_as_check_equalities): the report is filled
 * either way, and the status of the check is returned.
 */
int cdyn_as_finish(const cdyn_as_problem *p, const double *mu, const double *w,
                   const unsigned char *handled, cdyn_activeset_report *rep);

/*
 * An active-set algorithm.  `solve` fills mu, w = A mu + b and handled
 * (n each) and counts its solves and iterations in rep (zeroed by the
 * caller); the caller then calls cdyn_as_finish.  It returns CDYN_OK, or
 * a negative status with a message (CDYN_ESOLVE when it cannot finish).
 */
typedef struct cdyn_activeset_type {
  const char *name;
  const char *description;
  const char *source;
  int carries_set; /* uses p->prev: the scheme keeps the handled set between steps */
  int (*solve)(cdyn_as_ws *ws, const cdyn_as_problem *p, double *mu, double *w,
               unsigned char *handled, cdyn_activeset_report *rep);
} cdyn_activeset_type;

extern const cdyn_activeset_type *const cdyn_activeset_types[];
int cdyn_activeset_type_find(const char *name, const cdyn_activeset_type **type);

/*
 * Tolerances of a problem from rel_tol, A and b:
 *   tol_w = rel_tol max(max_k |b_k|, DBL_MIN),  tol_mu = tol_w / max_k A_kk.
 */
void cdyn_as_tolerances(cdyn_as_problem *p, double rel_tol);

#endif
