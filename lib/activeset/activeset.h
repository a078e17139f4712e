/*
 * activeset.h: the interface active-set algorithms are written against
 * (internal).  See cdyn/contact.h for the contact problem
 *   w = A mu + b,  equality rows: w = 0;  inequality rows: w >= 0, mu >= 0,
 *   mu w = 0,
 * and its sign convention.
 *
 * An algorithm is a type object: a file defining a const
 * cdyn_activeset_type and one line in activesets.def.  It works inside a
 * workspace sized once, so a solve never allocates.
 *
 * A is given dense (row-major, p->A) or sparse (compressed rows, p->sp;
 * then p->A is NULL).  An algorithm reads it only through the functions
 * below (cdyn_as_diag, cdyn_as_column, cdyn_as_row_scale,
 * cdyn_as_direction, cdyn_as_residual) and solves its sub-systems with
 * cdyn_as_subsolve, which for a sparse A factors through a linear solver
 * type (cdyn/solver.h) attached to the workspace (sparse.c); the dense
 * form of each function does the arithmetic the algorithms did inline,
 * in the same order, so dense results are bitwise those of before.
 */
#ifndef CDYN_ACTIVESET_H
#define CDYN_ACTIVESET_H

#include <stddef.h>

#include <lapacke.h>

#include "cdyn/contact.h"
#include "cdyn/solver.h"

/*
 * A sparse A: compressed rows holding both triangles, row i's diagonal
 * entry first (the convention of cdyn/solver.h; an absent diagonal is not
 * allowed: store a zero).  `pattern` changes exactly when n, rowptr or col
 * change, `values` whenever val may have changed (a sparse sub-solve keeps
 * its factor while both stay the same).
 */
typedef struct cdyn_as_sparse {
  size_t n, nnz;
  const int *rowptr, *col; /* n + 1, nnz */
  const double *val;       /* nnz */
  unsigned long pattern, values;
} cdyn_as_sparse;

typedef struct cdyn_as_problem {
  size_t n;                      /* rows */
  const double *A;               /* n*n row-major, symmetric PSD; NULL when sp is given */
  const cdyn_as_sparse *sp;      /* A in compressed rows (sp->n == n), or NULL: A is dense */
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

typedef struct cdyn_as_sfac cdyn_as_sfac; /* the sparse sub-solves' state (sparse.c) */
typedef struct cdyn_activeset_type cdyn_activeset_type; /* an algorithm (below) */

/* Workspace for problems of up to `cap` rows, whose dense sub-solves have
   at most `dcap` rows (dcap = cap for a dense A). */
typedef struct cdyn_as_ws {
  size_t cap, dcap;
  double *sub;     /* dcap*dcap: A_SS, then its factor or eigenvectors */
  double *eig;     /* cap */
  double *r, *x;   /* cap: compressed right-hand side and solution */
  double *work;    /* dsyev workspace (at least 3 dcap: also dlansy's and dpocon's) */
  lapack_int lwork;
  lapack_int *iwork; /* dcap: dpocon's */
  int guard;       /* the dense sub-solve's condition guard is on (cdyn_as_conclude's second solve) */
  double *keep_mu, *keep_w; /* cap each: the first answer, kept through the second solve */
  unsigned char *keep_h;    /* cap */
  size_t *idx;     /* cap: the rows of S */
  size_t *blk;     /* 3 dcap + 1: the verification's blocks of A_CC (its union-find, their rows, their starts) */
  unsigned char *set;   /* cap flags, free for the algorithms */
  long *pos;       /* cap, with a sparse solver attached: a row's place in S (the dense fallback's gather) */
  double *tmp[4];  /* cap each, free for the algorithms */
  cdyn_as_sfac *sf;          /* the sparse sub-solves (cdyn_as_ws_sparse), or NULL */
  const cdyn_as_sparse *sp;  /* the sparse A of the problem bound (cdyn_as_ws_bind), or NULL */
} cdyn_as_ws;

/* A workspace for dense problems of up to cap rows (dcap = cap). */
int cdyn_as_ws_alloc(cdyn_as_ws *ws, size_t cap);
/* A workspace for problems of up to cap rows whose dense sub-solves (a
   dense A, or the dense fallback of a sparse one: sparse.c) have at most
   dcap <= cap rows. */
int cdyn_as_ws_alloc_rows(cdyn_as_ws *ws, size_t cap, size_t dcap);
void cdyn_as_ws_free(cdyn_as_ws *ws);

/*
 * Sparse sub-solves (sparse.c): attach a direct linear solver type (not
 * `iterative`) with its option struct (may be NULL for the library's
 * cholmod and ldlt), for sparse problems of up to ws->cap rows and nnz_cap
 * stored entries; allocates (the solver's state, the factor's storage).
 * Called again with the same type it only takes the new opts; with another
 * type it replaces the solver.  cdyn_as_ws_sparse_reserve grows the entry
 * capacity (allocates when nnz exceeds it).  The solver's statistics are
 * counted into *counts (cdyn_as_sparse_counts) as it works.
 */
typedef struct cdyn_as_sparse_counts {
  unsigned long factorizations; /* setups of the solver (numeric factorisations) */
  unsigned long analyses;       /* symbolic analyses they did (a pattern not seen before) */
  unsigned long solves;         /* solves with a factor */
  unsigned long updates;        /* sub-solves answered by a factor of another set (rows added or removed) */
  unsigned long refined;        /* of those with rows removed, solved again from a factorisation (residual) */
  unsigned long dense;          /* sub-solves that fell back to the dense path (rank deficient) */
  unsigned long lsq;            /* rank-deficient sub-solves beyond the dense path's size: the solver's least squares */
  double time_factor, time_solve; /* seconds */
} cdyn_as_sparse_counts;
int cdyn_as_ws_sparse(cdyn_as_ws *ws, const cdyn_solver_type *type, const void *opts, size_t nnz_cap);
void cdyn_as_sfac_free(cdyn_as_sfac *sf);
size_t cdyn_as_sfac_nnz_cap(const cdyn_as_sfac *sf);
int cdyn_as_ws_sparse_reserve(cdyn_as_ws *ws, size_t nnz_cap);
/* The counts since the solver was attached (zeros without one). */
void cdyn_as_ws_sparse_counts(const cdyn_as_ws *ws, cdyn_as_sparse_counts *counts);

/*
 * Bind the workspace to p before an algorithm solves it: checks that p
 * fits (n <= cap; a sparse A needs an attached solver, n == sp->n, the
 * diagonal first in each row) and points ws->sp at p->sp (NULL for a
 * dense A).  CDYN_EINVAL with a message otherwise.
 */
int cdyn_as_ws_bind(cdyn_as_ws *ws, const cdyn_as_problem *p);

/*
 * x_S solves A_SS x_S = r_S for the rows with S[k] != 0; x_k = 0 off S.
 * A dense (A != NULL): Cholesky, or the minimum-norm least-squares
 * solution by eigen-decomposition when A_SS is singular to rank_tol (with
 * ws->guard on, also when its condition estimate puts it near the cut:
 * cdyn_as_conclude).  A
 * NULL: the sparse A the workspace is bound to (cdyn_as_ws_bind), solved
 * by the attached linear solver (sparse.c, whose header gives the rank
 * rule).  x may not alias r.  Returns the size of S through *size (may be
 * NULL).  Never allocates (a sparse solver's analysis of a pattern it has
 * not seen excepted, as cdyn/solver.h allows).
 */
int cdyn_as_subsolve(cdyn_as_ws *ws, size_t n, const double *A, const unsigned char *S,
                     const double *r, double rank_tol, double *x, size_t *size);

/* A_SS into ws->sub (s x s, the rows ws->idx[0 .. s)), from the dense A,
   or from the bound sparse A when A is NULL (needs ws->pos: a sparse
   solver attached); s <= ws->dcap. */
void cdyn_as_gather(cdyn_as_ws *ws, size_t n, const double *A, size_t s);

/* The sparse and the dense sub-solve behind cdyn_as_subsolve (sparse.c,
   dense.c); cdyn_as_dense_subsolve gathers A_SS from the dense A, or
   from the bound sparse A when A is NULL, and needs |S| <= ws->dcap. */
int cdyn_as_sparse_subsolve(cdyn_as_ws *ws, const unsigned char *S, const double *r, double rank_tol,
                            double *x, size_t *size);
int cdyn_as_dense_subsolve(cdyn_as_ws *ws, size_t n, const double *A, const unsigned char *S,
                           const double *r, double rank_tol, double *x, size_t *size);

/* ---- reading A, dense or sparse ----------------------------------------------- */

/* A_kk. */
static inline double cdyn_as_diag(const struct cdyn_as_problem *p, size_t k)
{
  return p->sp ? p->sp->val[p->sp->rowptr[k]] : p->A[k * p->n + k];
}

/* out_k = s A_kd for every row k (column d of A, scaled). */
void cdyn_as_column(const cdyn_as_problem *p, size_t d, double s, double *out);

/* |b_k| + sum_j |A_kj x_j|: the scale of w_k's rounding at x. */
double cdyn_as_row_scale(const cdyn_as_problem *p, size_t k, const double *x);

/*
 * The product of Baraff's fdirection (lcp.c): u is zero off S + {d} with
 * u_d = 1; dw = A u (n values), and over the rows k of S + {d}
 *   quad = sum_k |u_k| sum_{j in S + {d}} |A_kj u_j|,
 *   dmax = max_k A_kk,   rs = sum_k sqrt(A_kk) |u_k|.
 */
void cdyn_as_direction(const cdyn_as_problem *p, const unsigned char *S, size_t d, const double *u,
                       double *dw, double *quad, double *dmax, double *rs);

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
 * The verification of an answer of an algorithm that declares itself exact
 * (the equations and their derivation: common.c).  With C the handled
 * rows and the rows with mu_k != 0, it bounds every solution of the
 * problem restricted to C from A_CC and b_C alone,
 *   |mu_C|_2 <= M = |bt_C|_2 / l_C   (bt_k = max(0, -b_k) on inequality
 *   rows, |b_k| on equality rows; l_C the smallest eigenvalue of A_CC above
 *   the rank cut rank_tol lambda_max(A_CC)),
 * and refuses the answer unless |mu_C|_2 <= 2 M + |tol_mu_C|_2 and, with
 *   T_k = tol_w_k + VERIFY_ROUND n eps (|b_k| + sqrt(A_kk sum_{j in C} A_jj) 2 M),
 * every row has |(A mu + b)_k - w_k| <= T_k, every equality row |w_k| <=
 * T_k, and every inequality row w_k >= -T_k, mu_k >= -tol_mu_k and
 * (mu_k <= tol_mu_k or |w_k| <= T_k).  Everything is formed in double
 * precision on the problem as given; an answer whose terms |b_k| + sum_j
 * |A_kj mu_j| are not finite there is refused.  Returns CDYN_OK, CDYN_EUNVERIFIED with a
 * message naming the first test that failed, or CDYN_EINVAL for NULL
 * arguments or a problem beyond the workspace.  Uses ws->tmp[0] and the
 * dense sub-solve's storage (ws->sub, ws->eig, ws->work, ws->idx); never
 * allocates.
 */
int cdyn_as_verify(cdyn_as_ws *ws, const cdyn_as_problem *p, const double *mu, const double *w,
                   const unsigned char *handled);

/*
 * What every caller of an algorithm does once its solve has returned the
 * status rc: the report (cdyn_as_finish, whose status replaces a success),
 * then, for an algorithm that declares itself exact and a status that
 * kept its numbers (CDYN_OK or a recoverable one), the verification
 * (cdyn_as_verify), whose refusal replaces the status.  A negative rc is
 * returned as it is (the report is then the algorithm's business).
 *
 * A refusal gets one more try.  The dense sub-solve takes a block by its
 * Cholesky factor when every pivot passes the rank test, and a block
 * singular to rounding can pass it: each pivot squared is at least the
 * smallest eigenvalue and can exceed it by far, while the verification
 * (and the eigen-path) cut at rank_tol lambda_max.  Whether a block near
 * the cut factors, and so which path the pivoting takes, then depends on
 * the rounding of the LAPACK and BLAS kernels (OpenBLAS picks them by the
 * processor), and a path can end at a set whose answer is refused.  So
 * after a refusal the algorithm solves the problem again with the
 * condition guard on (ws->guard: cdyn_as_dense_subsolve takes a factor
 * only while its condition estimate keeps the block clear of the cut, and
 * solves a block near or below it by the eigen-path), and that answer,
 * verified, replaces the refusal if it passes; otherwise the first
 * refusal is returned with the first answer's numbers.  An answer that
 * passes the first time is never solved again, so the guard changes no
 * accepted answer.  The report counts both solves.
 */
int cdyn_as_conclude(const struct cdyn_activeset_type *type, cdyn_as_ws *ws, const cdyn_as_problem *p, int rc,
                     double *mu, double *w, unsigned char *handled, cdyn_activeset_report *rep);

/*
 * An active-set algorithm.  `solve` fills mu, w = A mu + b and handled
 * (n each) and counts its solves and iterations in rep (zeroed by the
 * caller); the caller then calls cdyn_as_finish.  It returns CDYN_OK, or
 * a negative status with a message (CDYN_ESOLVE when it cannot finish).
 */
struct cdyn_activeset_type {
  const char *name;
  const char *description;
  const char *source;
  int carries_set; /* uses p->prev: the scheme keeps the handled set between steps */
  /* Takes p->prev as a guess of the rows it will handle, and starts from
     it: its answer is the same, to rounding, with any guess or none. */
  int warm_starts;
  /* Declares that a success is an exact solution of the contact problem
     (to rounding): its answers are verified (cdyn_as_verify) and refused
     with CDYN_EUNVERIFIED when they are not.  The algorithms measured as
     their papers give them (platt, tendency, iterative) leave it 0: their
     answers may pull or violate by design. */
  int exact;
  int (*solve)(cdyn_as_ws *ws, const cdyn_as_problem *p, double *mu, double *w,
               unsigned char *handled, cdyn_activeset_report *rep);
};

extern const cdyn_activeset_type *const cdyn_activeset_types[];
int cdyn_activeset_type_find(const char *name, const cdyn_activeset_type **type);

/*
 * Tolerances of a problem from rel_tol, A and b:
 *   tol_w = rel_tol max(max_k |b_k|, DBL_MIN),  tol_mu = tol_w / max_k A_kk.
 */
void cdyn_as_tolerances(cdyn_as_problem *p, double rel_tol);

#endif
