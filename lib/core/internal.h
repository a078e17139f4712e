/*
 * core/internal.h: the library's private structures: the system, the
 * stepper, and the tables of types.  Private to the library and its tests
 * of internals.
 *
 * Schemes are written against the public cdyn/scheme.h, which states
 * their contract in full; this header adds what only the library itself
 * sees: the system and stepper structs, the option parser and the tables
 * of types.  Linear solvers are public (cdyn/solver.h).
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
#include "cdyn/solver.h"
#include "base/errserial.h"

/* The `apply` of a matrix whose ctx is the matrix itself (A.ctx = &A):
   cdyn_matrix_apply through the solvers' callback, for the views the
   schemes and the stepper hand their solvers.  Always CDYN_OK. */
int cdyn_matrix_apply_self(const void *A, const double *x, double *y);

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
 * The geometric stiffness sum_r lambda[r] Hess Phi_r of constraint c at
 * (q, t) into K ((3 np)^2 values, row-major, np = c->type->nparticles,
 * in the order of c->p), through its type's `hess`, or by central
 * differences of its eval when it has none (fdhess.c).
 */
int cdyn_constraint_hess(const cdyn_constraint *c, const double *q, double t, const double *lambda, double *K);

/*
 * Applied forces F(q, v, t) of the system (gravity, springs, user
 * callback) into F (3n), at any state: what cdyn_forces and the public
 * cdyn_system_forces both call.
 */
int cdyn_system_eval_forces(const cdyn_system *sys, const double *q, const double *v,
                            double t, double *F);

/* system.c: the 3 x 3 Jacobians df_i/dx_i and df_i/dv_i of spring sp at
   x_i, x_j (row-major; see there). */
int cdyn_spring_jacobians(const cdyn_spring *sp, const double *xi, const double *xj, int compression_fix,
                          double Kx[9], double Kv[9]);

/* ---- the tables of types ------------------------------------------------------ */

/* The built-in types, from each family's .def file (lib/FAMILY/table.c;
   NULL-ended; cdyn_constraint_types is public, in cdyn/constraint.h). */
extern const cdyn_solver_type *const cdyn_builtin_solvers[];
extern const cdyn_integrator_type *const cdyn_integrator_types[];
extern const cdyn_scheme_type *const cdyn_builtin_schemes[];
/* solvers/lookup.c: append a solver type to those registered at run time
   (cdyn_solver_register, once it has checked the type); CDYN_ENOMEM when
   their table is full. */
int cdyn_solver_add(const cdyn_solver_type *t);
/* The pin type object itself (constraints/pin.c), for the code that
   treats pins apart. */
extern const cdyn_constraint_type cdyn_ctype_pin;

/* The entries of a NULL-ended table. */
static inline size_t cdyn_table_count(const void *const *table)
{
  size_t k = 0;
  while (table[k])
    k++;
  return k;
}

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
  /* Pinned hubs eliminated from A (pattern.c): */
  long *hubpin;             /* n + 1: first row of the pin that makes the particle a hub, or -1 */
  size_t *hrow, *hpin;      /* mcap * CDYN_MAX_PARTICLES: a row through a hub (not its pin's), that pin's first row */
  unsigned *hslot;          /* the same: the hub's slot within the row */
  double *hj;               /* 3 mcap * CDYN_MAX_PARTICLES: its J block on the hub, at the last assembly */
  double *hrhs;             /* mcap: a right-hand side reduced */
  size_t nhub;              /* entries of hrow */
  size_t nhub_particles;    /* hubs */
  unsigned *lslot;          /* the same: the particle's slot within the row */
  size_t *mark;             /* mcap: stamps of the pattern's de-duplication (and of colpos) */
  size_t *colpos;           /* mcap: a row's column -> its position in the row's CSR storage (fill_contrib) */
  size_t stamp;
  unsigned long pattern;    /* bumped when the pattern changes */
  int pattern_stale;        /* the rows changed and A's pattern is not built for them yet */
  unsigned long values;     /* bumped by each assembly */
  unsigned long factored;   /* `values` at the last setup (0: none valid) */
  int factor_status;        /* the status of that setup */
  cdyn_matrix mat;          /* the view the solver gets */

  /* The linear solver: `solver` is in use; `solver_auto` says it was chosen
     from the row capacity rather than named. */
  const cdyn_solver_type *solver;
  int solver_auto;
  void *solver_state;
  size_t nsolvers;          /* solver types known when the stepper was built */
  void **solver_opts;       /* nsolvers: one option struct per solver type */
  size_t solver_k;          /* the index of `solver` among them */
  cdyn_common_opts common;  /* rank_tol, max_error: the options every stepper has */

  /* Work of the stepper itself. */
  double *F;                /* 3n forces */
  double *lambda;           /* mcap multipliers of the last step */
  double *q0, *v0;          /* backup of the state at step start */
  double *lambda0;          /* mcap: the multipliers at step start, restored with the state */

  cdyn_stats stats;

  /* The sub-step observer (cdyn_stepper_set_substep_observer; NULL: none)
     and the sub-steps reported in the current step. */
  cdyn_substep_fn substep_fn;
  void *substep_ctx;
  unsigned long substep_k;

  /* cdyn_stepper_warning's text ("" when there is nothing to say). */
  char warning[640];
};

/* blocks.c: sub-step k at (t, q) reported to the observer st->substep_fn
   (which must be set): its answer as a status (CDYN_OK goes on, a
   negative status is the step's, anything else is refused with
   CDYN_EINVAL).  The stepper reports sub-step 0, a step's start; a
   scheme the others through cdyn_substep_reached. */
int cdyn_substep_observed(const cdyn_stepper *st, unsigned long k, double t, const double *q);

/* ---- A's pattern (pattern.c) ------------------------------------------------- */

/* Resize *p from `old` to `count` elements of `size` bytes, zeroing the
   new tail; *p is untouched on failure (CDYN_ENOMEM, no message). */
int cdyn_resize(void *pp, size_t old, size_t count, size_t size);
/* Size the pattern storage for nnz entries and ncontrib contributions
   (never shrinking). */
int cdyn_pattern_reserve(cdyn_stepper *st, size_t nnz, size_t ncontrib);
/* The entries of the pattern of the first m rows laid out, and through
   *ncontrib its contributions, without building it (to size its
   storage). */
size_t cdyn_pattern_count(cdyn_stepper *st, size_t m, size_t *ncontrib);
/* Build A's pattern and contribution list for the current rows if they
   changed since it was last built (the first assembly or setup after a
   change does). */
int cdyn_pattern_build(cdyn_stepper *st);
/* The matrix view the solvers get (st->mat): the pattern last built. */
void cdyn_pattern_matrix(cdyn_stepper *st);
/* The particles of stepper row r in ascending order (with repeats, at
   most CDYN_MAX_PARTICLES) into ps, as the pattern walks them; returns
   their number (the scheme contact's sparse A too). */
unsigned cdyn_row_particles_sorted(const cdyn_stepper *st, size_t r, size_t *ps);

/* ---- particles' neighbour lists (adjacency.c) --------------------------------- */

/* Each particle's neighbours, ascending and without repeats: particle i's
   are nbr[start[i] .. start[i + 1] - 1]. */
typedef struct cdyn_adjacency {
  size_t n;
  size_t *start, *nbr;
  size_t *deg; /* the build's counts */
  int placing; /* the walk's pass: 0 counts, 1 places */
} cdyn_adjacency;
/* Names every pair (i, j), i != j, both < n, through cdyn_adjacency_add;
   it is called twice and must name the same pairs both times. */
typedef void (*cdyn_adjacency_walk)(void *ctx, cdyn_adjacency *g);
/* Build g's lists for n particles from the walk's pairs (g freed first;
   a zeroed g is empty).  CDYN_ENOMEM, with no message, g empty. */
int cdyn_adjacency_build(cdyn_adjacency *g, size_t n, cdyn_adjacency_walk walk, void *ctx);
void cdyn_adjacency_add(cdyn_adjacency *g, size_t i, size_t j);
/* j's place in i's list, from 0 (j must be there). */
size_t cdyn_adjacency_slot(const cdyn_adjacency *g, size_t i, size_t j);
void cdyn_adjacency_free(cdyn_adjacency *g);

#endif
