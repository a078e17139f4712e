/*
 * cdyn_internal.h: the library's private structures, and the linear
 * solver interface.  Private to the library and its tests of internals.
 *
 * Schemes are written against the public cdyn/scheme.h, which states
 * their contract in full; this header adds what only the library itself
 * sees: the system and stepper structs, the option parser, the tables of
 * registered types, and the linear solvers.
 *
 * The scheme-writer's contract, in short (cdyn/scheme.h has the rest):
 *   - state: alloc(&state, n, mcap) sizes every work array once; step
 *     never allocates; history lives in the state and reset forgets it;
 *     changed(state, st, change) carries it across a change of the
 *     constraint set (change->from: each row's old row, or -1), or NULL to
 *     reset.
 *   - lambda: the step writes d->lambda (cdyn_stepper_data) as force
 *     multipliers in the library's convention M qdd + J^T lambda = F.
 *   - failure: a negative status with a message; the stepper restores q, v
 *     and t and calls reset, so the step itself restores nothing.
 *   - building blocks: cdyn_free_accel, cdyn_forces, cdyn_eval_rows,
 *     cdyn_eval_phi, cdyn_eval_constraint, cdyn_prepare, cdyn_assemble,
 *     cdyn_factor, cdyn_solve(_many), cdyn_jmul, cdyn_jtmul,
 *     cdyn_constrained_accel, cdyn_integrate, cdyn_iter_verdict,
 *     cdyn_iter_correct, cdyn_iter_finish; each takes its work arrays as
 *     arguments.
 *
 * The pieces and their order inside a step:
 *   cdyn_eval_rows     Phi, J, Phi_t, (Jv)_q v, ... at (q, v, t)
 *   cdyn_forces        F(q, v, t)
 *   cdyn_assemble      A = J D J^T in preallocated CSR storage (D = W or I)
 *   cdyn_factor        the solver's setup for that A
 *   cdyn_solve         A x = b with the chosen linear solver type
 *   cdyn_jmul / cdyn_jtmul   J x and J^T y through the sparse rows
 */
#ifndef CDYN_INTERNAL_H
#define CDYN_INTERNAL_H

#include <stddef.h>

#include "cdyn/cdyn.h"
#include "cdyn/scheme.h"

/* ---- system ---------------------------------------------------------- */

/* Spring id meaning "none". */
#define CDYN_NONE ((size_t)-1)

typedef struct cdyn_spring {
  size_t i, j;
  double k, c, rest;
  int enabled;
  size_t constraint; /* the constraint it was turned into, or CDYN_NONE */
} cdyn_spring;

/*
 * A constraint slot.  Ids are slot indices and stay fixed; a removed
 * constraint leaves its slot vacant (live == 0) until an add reuses it.
 * `gen` is unique to each constraint ever added, so that a stepper can tell
 * a slot that was removed and filled again from one that stayed.
 */
typedef struct cdyn_constraint {
  const cdyn_constraint_type *type;
  size_t p[CDYN_MAX_PARTICLES];
  double params[CDYN_MAX_PARAMS];
  int live;       /* the slot holds a constraint */
  int enabled;    /* its rows are in Phi (a live constraint may be off) */
  int inequality; /* its rows are conditions Phi >= 0 (cdyn/contact.h) */
  unsigned long gen;
  size_t spring;  /* the spring it replaces (cdyn_system_spring_to_constraint), or CDYN_NONE */
} cdyn_constraint;

struct cdyn_system {
  size_t n;
  double *mass, *winv; /* n each */
  double *q, *v;       /* 3n each */
  double t;
  double gravity[3];
  cdyn_spring *springs;
  size_t nsprings, cap_springs;
  cdyn_constraint *cons;
  size_t ncons;    /* slots in use: one past the highest id ever given */
  size_t cap_cons; /* slots allocated */
  size_t *vacant;  /* cap_cons: stack of vacant slots below ncons */
  size_t nvacant;
  size_t m;        /* rows of the enabled constraints */
  size_t m_ineq;   /* of which inequality rows */
  size_t rows_live;/* rows of the live constraints, enabled or not */
  size_t cap_rows; /* rows a stepper sizes for: max(reserved, rows_live ever) */
  unsigned long gen_next;
  cdyn_force_fn force_fn;
  void *force_ctx;
  unsigned long version;       /* bumped by every change of springs or constraints */
  unsigned long force_version; /* bumped when the applied force changes form */
};

/* Evaluate one constraint's rows at (q, v, t); v may be NULL (then zero). */
int cdyn_constraint_eval(const cdyn_constraint *c, const double *q,
                         const double *v, double t, cdyn_row *rows);

/*
 * Applied forces F(q, v, t) of the system (gravity, springs, user
 * callback) into F (3n), at any state: what cdyn_forces and the public
 * cdyn_system_forces both call.
 */
int cdyn_system_eval_forces(const cdyn_system *sys, const double *q, const double *v,
                            double t, double *F);

/* Seconds on a monotonic clock (the time split of cdyn_stats). */
double cdyn_clock(void);

/* system.c: the 3 x 3 Jacobians df_i/dx_i and df_i/dv_i of spring sp at
   x_i, x_j (row-major; see there). */
int cdyn_spring_jacobians(const cdyn_spring *sp, const double *xi, const double *xj, int compression_fix,
                          double Kx[9], double Kv[9]);

/* layout.c: CDYN_EINVAL (from `who`) when `type` enforces pins only and an
   enabled constraint of sys is not a pin. */
int cdyn_check_pins_only(const cdyn_system *sys, const cdyn_scheme_type *type, const char *who);

/* ---- options ----------------------------------------------------------- */

/* Parse `value` for option `o` into base + o->offset. */
int cdyn_option_parse(const cdyn_option *o, void *base, const char *value);
int cdyn_option_format(const cdyn_option *o, const void *base, char *buf,
                       size_t len);
/* Entries of a table (up to CDYN_OPTIONS_END); 0 for NULL. */
size_t cdyn_option_count(const cdyn_option *table);

/* ---- linear solvers (SUNDIALS' model) -------------------------------------- */

/*
 * The matrix a linear solver sees: A = J D J^T, m x m, symmetric positive
 * semi-definite, in compressed sparse row storage of its full pattern
 * (both triangles).  Each row's diagonal entry comes first in it, the
 * others follow in the order of assembly, so val[rowptr[i]] is A_ii.
 * `pattern` changes exactly when m, rowptr or col change, which is when a
 * solver with a symbolic analysis must redo it; `apply` computes y = A x
 * (the only access an iterative solver needs, with `diag` for a Jacobi
 * preconditioner).
 */
typedef struct cdyn_matrix {
  size_t m, nnz;
  const int *rowptr, *col;
  const double *val;
  const double *diag; /* m */
  unsigned long pattern;
  int (*apply)(const void *ctx, const double *x, double *y);
  const void *ctx;
} cdyn_matrix;

typedef struct cdyn_solve_info {
  unsigned long iterations;
  double residual;  /* |A x - b| / |b| (0 when b = 0), the worst over the right-hand sides */
  unsigned rank;
  int fallback;     /* the least-squares path was taken */
  unsigned long analyses; /* symbolic analyses done by this call (a new pattern) */
  unsigned long factorizations; /* numeric factorisations (or preconditioner builds) done by this call */
} cdyn_solve_info;

/*
 * A linear solver type.  `alloc` sizes its state for up to mcap rows;
 * `setup` analyses and factors (or builds the preconditioner for) the
 * current A, redoing a symbolic analysis only when A->pattern changed;
 * `solve` then solves A x = b for nrhs right-hand sides (blocks of m),
 * any number of times.  Neither setup nor solve allocates, except for
 * the symbolic analysis of a pattern the solver has not seen before
 * (reported in info->analyses).  Statuses
 * follow cdyn/error.h: > 0 recoverable (CDYN_NOCONV), < 0 failed.
 * `rank_tol` is the stepper's relative pivot (or eigenvalue) below which A
 * is treated as singular; `opts` is the solver's own option struct.
 */
typedef struct cdyn_solver_type {
  const char *name;
  const char *description;
  int iterative;               /* sees A only through apply and diag */
  const cdyn_option *options;  /* the solver's own options; may be NULL */
  size_t options_size;
  int (*alloc)(void **state, size_t mcap);
  void (*free)(void *state);
  int (*setup)(void *state, const cdyn_matrix *A, double rank_tol, const void *opts,
               cdyn_solve_info *info);
  int (*solve)(void *state, const cdyn_matrix *A, size_t nrhs, const double *b, double *x,
               double rank_tol, const void *opts, cdyn_solve_info *info);
} cdyn_solver_type;

extern const cdyn_solver_type *const cdyn_solver_types[];

/* solvers/lsq.c: y = A x and |A x - b| / |b| (0-safe) through A's CSR
   storage (work: m); the minimum-norm least-squares solution of a
   singular A from a solve with A + delta I (solve(ctx, b, y), y may be
   b; delta the shift), with work br, r, u, dx of m each; *its counts the corrections. */
typedef int (*cdyn_shifted_solve)(void *ctx, const double *b, double *y);
/* The end of a direct solve of nrhs right-hand sides: CDYN_ENONFINITE
   (naming the solver) unless x is finite, else info->residual, the worst
   relative residual (work: m). */
int cdyn_direct_report(const cdyn_matrix *A, size_t nrhs, const double *b, const double *x, double *work,
                       const char *name, cdyn_solve_info *info);
void cdyn_csr_apply(const cdyn_matrix *A, const double *x, double *y);
/* solvers/banded.c: the half-bandwidth max |i - j| of A's pattern. */
size_t cdyn_banded_kd(const cdyn_matrix *A);
double cdyn_csr_residual(const cdyn_matrix *A, const double *b, const double *x, double *work);
int cdyn_shifted_lsq(const cdyn_matrix *A, cdyn_shifted_solve solve, void *ctx, double delta, const double *b,
                     double *x, double *br, double *r, double *u, double *dx, unsigned max_iter, unsigned long *its);
int cdyn_solver_type_find(const char *name, const cdyn_solver_type **type);

/* ---- integrators and schemes ------------------------------------------------ */

extern const cdyn_integrator_type *const cdyn_integrator_types[];

/* The scheme with index i: built-in ones first, then registered ones. */
const cdyn_scheme_type *cdyn_scheme_at(size_t i);

/* ---- the stepper ------------------------------------------------------------ */

/* The options every stepper has besides "solver" and the solvers' own. */
typedef struct cdyn_common_opts {
  double rank_tol;  /* relative pivot below which A is solved by least squares */
  double max_error; /* a step whose constraint error exceeds it fails (0: no guard) */
} cdyn_common_opts;

/* One contribution d_p J_ra,sa . J_rb,sb to the CSR entry `k` of A. */
typedef struct cdyn_contrib {
  size_t k, ra, rb, p;
  unsigned sa, sb;
} cdyn_contrib;

/* Sparse storage of A's pattern: m + 1 row pointers and nnz columns. */
typedef struct cdyn_csr {
  int *rowptr; /* mcap + 1 */
  int *col;    /* nnz_cap */
} cdyn_csr;

struct cdyn_stepper {
  cdyn_scheme_data d;       /* what the scheme sees (cdyn_stepper_data) */
  const cdyn_scheme_type *type;
  cdyn_system *sys;
  void *state;              /* the scheme's (type->alloc) */
  void *opts;               /* the scheme's option struct */
  size_t n, m;
  size_t mcap;              /* rows the arrays below are sized for */
  size_t states_mcap;       /* rows the scheme's and solver's states are sized for */
  size_t ccap;              /* constraint slots they are sized for */
  unsigned long version, force_version; /* of the system, at the last layout */

  /* The layout of the current constraint set. */
  cdyn_row *rows;           /* mcap */
  size_t *rowpart;          /* mcap * CDYN_MAX_PARTICLES */
  unsigned *rownp;          /* mcap */
  size_t *rowcon;           /* mcap: constraint id of each row */
  unsigned char *rowineq;   /* mcap */
  size_t *con_row0;         /* ccap: first row of each constraint, or CDYN_NONE */
  unsigned long *con_gen;   /* ccap: its gen when laid out */
  long *from;               /* mcap: the last change's row map */
  double *spare;            /* mcap: scratch of the layout */

  /* A = J D J^T: pattern, values, and the contributions that assemble it. */
  cdyn_csr A, A_next;       /* the pattern in use, and the one being built */
  double *val;              /* nnz_cap */
  double *val_prev;         /* nnz_cap: the values before the last assembly */
  double *diag;             /* mcap */
  size_t nnz, nnz_cap;
  cdyn_contrib *contrib;
  size_t ncontrib, contrib_cap;
  size_t *deg;              /* n + 1: rows per particle, then their start */
  size_t *lrow;             /* mcap * CDYN_MAX_PARTICLES: rows by particle */
  unsigned *lslot;          /* the same: the particle's slot within the row */
  size_t *mark;             /* mcap: stamps of the pattern's de-duplication */
  size_t stamp;
  unsigned long pattern;    /* bumped when the pattern changes */
  unsigned long values;     /* bumped by each assembly */
  unsigned long factored;   /* `values` at the last setup (0: none valid) */
  int factor_status;        /* the status of that setup */
  cdyn_matrix mat;          /* the view the solver gets */

  /* The linear solver: `solver` is in use; `solver_auto` says it was chosen
     from the row capacity rather than named. */
  const cdyn_solver_type *solver;
  int solver_auto;
  void *solver_state;
  void **solver_opts;       /* one option struct per registered solver type */
  cdyn_common_opts common;  /* rank_tol, max_error: the options every stepper has */

  /* Work of the stepper itself. */
  double *F;                /* 3n forces */
  double *lambda;           /* mcap multipliers of the last step */
  double *q0, *v0;          /* backup of the state at step start */
  double *lambda0;          /* mcap: the multipliers at step start, restored with the state */

  cdyn_stats stats;
};

/* layout.c: the row layout and A's pattern, built with the stepper and
   brought up to date with the system at the start of each step. */
int cdyn_layout_build(cdyn_stepper *st);
int cdyn_layout_follow(cdyn_stepper *st);
void cdyn_layout_free(cdyn_stepper *st);
/* stepper.c: the scheme's and the solver's states again, after the row
   capacity grew. */
int cdyn_stepper_resize_states(cdyn_stepper *st);

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
