/*
 * cdyn/solver.h: linear solver types, inside the library or outside it.
 *
 * A linear solver is a type object, as a scheme is (cdyn/scheme.h), on
 * SUNDIALS' model of a generic linear solver: a const cdyn_solver_type
 * with a name, its option table and four operations.  The library's own
 * solvers are files in lib/solvers/ plus a line in
 * lib/solvers/solvers.def; a solver written elsewhere is registered at run
 * time with cdyn_solver_register and is then chosen by name like any
 * other: the stepper option `solver` (cdyn/stepper.h), the cdyn program's
 * --set solver=NAME, a scene's scheme options, and the solver conformance
 * tests.
 *
 * The matrix a solver sees.  Schemes solve with A = J D J^T (m x m,
 * symmetric positive semi-definite; D = W, the inverse masses, for the
 * dynamics).  The stepper assembles it into compressed sparse row storage
 * of its full pattern (both triangles): row i holds its diagonal entry
 * first, then the others in the order of assembly, so val[rowptr[i]] is
 * A_ii.  `pattern` changes exactly when m, rowptr or col change, which is
 * when a solver with a symbolic analysis must redo it.  `apply` computes
 * y = A x and `diag` holds A's diagonal, which is all an iterative solver
 * (`iterative` set) may use.  A scheme that solves a system of its own
 * (Baraff-Witkin's 3n x 3n matrix) hands its own cdyn_matrix to the same
 * operations (cdyn_stepper_solver, cdyn/scheme.h).
 *
 * The contract.
 *   alloc(&state, mcap)  sizes the solver's state for up to mcap rows,
 *                        once, when the stepper is built (and again only
 *                        when the caller grows the system past mcap rows).
 *   setup(state, A, rank_tol, opts, info)
 *                        analyses and factors A (or builds the
 *                        preconditioner), redoing a symbolic analysis only
 *                        when A->pattern changed.
 *   solve(state, A, nrhs, b, x, rank_tol, opts, info)
 *                        solves A x = b for nrhs right-hand sides (blocks
 *                        of m values), any number of times after a setup;
 *                        x does not alias b.
 *   free(state)          releases the state (never given NULL).
 * Neither setup nor solve may allocate, except for the symbolic analysis
 * of a pattern the solver has not seen before, which it reports in
 * info->analyses.  `rank_tol` is the stepper option of that name: the
 * relative pivot (or eigenvalue) below which A is treated as singular and
 * solved in the least-squares sense (info->fallback).  `opts` is the
 * solver's own option struct, set from its option table (cdyn/option.h):
 * the stepper keeps one per solver type and lists the options of every
 * registered solver type among its own.  Statuses follow cdyn/error.h:
 * CDYN_OK, a positive status when the result is usable but less accurate
 * than asked (CDYN_NOCONV: an iteration stopped at its limit), a negative
 * one with a message (cdyn_error) when it failed.
 *
 * Registration is not thread-safe: register solvers before steppers are
 * built or used from several threads.  A stepper knows the solver types
 * registered when it was built; a solver registered later can be chosen
 * by steppers built after it.
 *
 * Writing a solver: doc/extending.md, "A linear solver".
 */
#ifndef CDYN_SOLVER_H
#define CDYN_SOLVER_H

#include <stddef.h>

#include "cdyn/option.h"
#include "cdyn/stepper.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The matrix a linear solver sees (see above). */
typedef struct cdyn_matrix {
  size_t m, nnz;
  const int *rowptr, *col; /* m + 1 row pointers, nnz columns */
  const double *val;       /* nnz values */
  const double *diag;      /* m: A_ii */
  unsigned long pattern;   /* changes exactly when m, rowptr or col change */
  int (*apply)(const void *ctx, const double *x, double *y); /* y = A x, never NULL */
  const void *ctx;
} cdyn_matrix;

/* What a setup or solve reports. */
typedef struct cdyn_solve_info {
  unsigned long iterations;     /* of an iterative solver */
  double residual;              /* |A x - b| / |b| (0 when b = 0), the worst over the right-hand sides */
  unsigned rank;                /* numerical rank of A */
  int fallback;                 /* the least-squares path was taken (A singular) */
  unsigned long analyses;       /* symbolic analyses done by this call (a new pattern) */
  unsigned long factorizations; /* numeric factorisations (or preconditioner builds) done by this call */
  unsigned negative;            /* negative pivots of a symmetric indefinite factorisation (ldlt): by
                                   Sylvester's law of inertia, A's negative eigenvalues; 0 for the others */
  size_t factor_nnz;            /* entries of the factor made by this call, as the solver stores them (a
                                   simplicial sparse factor's nonzeros, its diagonal included; a supernodal
                                   one's dense blocks, explicit zeros included; a band's, a dense
                                   triangle's, or a dense eigen-decomposition's vectors and values); 0
                                   when it made none, or for an iterative solver */
  /* In, set by the caller of solve (0 in a zeroed struct: the residual is
     computed): nonzero asks a direct solver to leave out its pass over A
     for the residual, which it then reports as NaN; a non-finite solution
     is still an error.  An iterative solver computes it anyway. */
  int skip_residual;
} cdyn_solve_info;

typedef struct cdyn_solver_type {
  const char *name;
  const char *description;
  int iterative;               /* sees A only through apply and diag */
  /* Factors symmetric quasi-definite (indefinite) matrices as well and
     reports their negative pivots (cdyn_solve_info.negative): the solvers
     that the schemes with an indefinite system take (ldlt). */
  int indefinite;
  const cdyn_option *options;  /* its own options, ending with CDYN_OPTIONS_END; may be NULL */
  size_t options_size;         /* sizeof its option struct (0 without options) */
  int (*alloc)(void **state, size_t mcap);
  void (*free)(void *state);
  int (*setup)(void *state, const cdyn_matrix *A, double rank_tol, const void *opts, cdyn_solve_info *info);
  int (*solve)(void *state, const cdyn_matrix *A, size_t nrhs, const double *b, double *x, double rank_tol,
               const void *opts, cdyn_solve_info *info);
} cdyn_solver_type;

/*
 * Register a solver under type->name.  The type must stay valid for the
 * life of the process.  CDYN_EINVAL, with a message naming the fault, for
 * a name already in use (or "auto"), a missing operation, an option table
 * whose defaults do not parse or whose fields fall outside options_size,
 * or an option named like one a stepper has already (solver, rank_tol,
 * max_error, another solver's, or a registered scheme's); CDYN_ENOMEM when
 * the table of registered solvers (16 entries) is full.
 */
int cdyn_solver_register(const cdyn_solver_type *type);

/* The solver type named `name` (built-in or registered), or CDYN_EUNKNOWN. */
int cdyn_solver_type_find(const char *name, const cdyn_solver_type **type);
/* The solver type with index i < cdyn_solver_count() (cdyn/stepper.h):
   the built-in ones first, then the registered ones; NULL beyond. */
const cdyn_solver_type *cdyn_solver_type_at(size_t i);

/* y = A x through A's compressed rows (x and y: m values, not aliased). */
void cdyn_matrix_apply(const cdyn_matrix *A, const double *x, double *y);
/* The half-bandwidth max |i - j| over A's pattern. */
size_t cdyn_matrix_bandwidth(const cdyn_matrix *A);

/*
 * The matrix A = J D J^T of st's last assembly (a view into the stepper's
 * storage, valid until its next step): for benchmarks and tests that time
 * or check a solver on the matrices a scheme produces.  A->m is 0 before
 * the first assembly.  With a pinned hub eliminated (a pinned particle
 * through which more than 32 rows pass, for a scheme without reads_A;
 * lib/core/pattern.c), it is the matrix the stepper factors: A without
 * that particle's terms, the pin's rows apart with diagonal d_p.
 */
int cdyn_stepper_matrix(const cdyn_stepper *st, cdyn_matrix *A);

#ifdef __cplusplus
}
#endif
#endif
