/*
 * solvers/lsq.h: what the library's direct solvers share (lsq.c,
 * matrix.c), private to lib/solvers.
 */
#ifndef CDYN_SOLVERS_LSQ_H
#define CDYN_SOLVERS_LSQ_H

#include <stddef.h>

#include "cdyn/solver.h"

/* |A x - b| / |b| (|A x - b| when b = 0), with work of m values. */
double cdyn_matrix_residual(const cdyn_matrix *A, const double *b, const double *x, double *work);

/* The end of a direct solve of nrhs right-hand sides: CDYN_ENONFINITE
   (naming the solver) unless x is finite, else info->residual, the worst
   relative residual (work: m); NaN, without the pass over A, when
   info->skip_residual asks for none. */
int cdyn_direct_report(const cdyn_matrix *A, size_t nrhs, const double *b, const double *x, double *work,
                       const char *name, cdyn_solve_info *info);

/* A solve with a factor of A + delta I: y = (A + delta I)^-1 b (y may be b). */
typedef int (*cdyn_shifted_solve)(void *ctx, const double *b, double *y);
/* The minimum-norm least-squares solution of a singular A from such a
   solve (lsq.c), with work br, r, u, dx of m values each; *its counts the
   corrections. */
int cdyn_shifted_lsq(const cdyn_matrix *A, cdyn_shifted_solve solve, void *ctx, double delta, const double *b,
                     double *x, double *br, double *r, double *u, double *dx, unsigned max_iter, unsigned long *its);

#endif
