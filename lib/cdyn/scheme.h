/*
 * cdyn/scheme.h: writing a constraint-enforcement scheme, inside the
 * library or outside it.
 *
 * A scheme is a type object, as a constraint type is (cdyn/constraint.h):
 * a const cdyn_scheme_type with a name, its option table and its
 * operations.  The library's own schemes are files in lib/schemes/ plus a
 * line in lib/schemes/schemes.def; a scheme written elsewhere is
 * registered at run time with cdyn_scheme_register and is then used by
 * name like any other (cdyn_stepper_new, the cdyn program's --scheme, the
 * conformance tests).
 *
 * The contract.
 *
 * State (GSL's model, gsl_odeiv2_step_type).  `alloc(&state, n, mcap)`
 * sizes every array the scheme needs, for n particles and at most mcap
 * constraint rows, once, when the stepper is built (and again only if the
 * caller grows the system past mcap rows).  `step` must not allocate.
 * Anything that survives from one step to the next (a multistep method's
 * last force, RATTLE's velocity multipliers, an active set) lives in that
 * state; `reset` forgets it (NULL: the scheme keeps no history).  `free`
 * releases the state (it is given NULL never).
 *
 * The step.  `step(st, state, h)` advances the system from time d->t by h
 * in place, where d = cdyn_stepper_data(st) holds the positions and
 * velocities (d->q, d->v, 3n each), the inverse masses and the current
 * constraint rows.  It must:
 *   - write the multipliers of the step into d->lambda (d->m values), in
 *     the library's convention: M qdd + J^T lambda = F, so that the
 *     constraint force is -J^T lambda and a hanging link has lambda > 0.
 *     A scheme that solves for a force-like multiplier of another sign or
 *     scale (an impulse, a position correction) converts it; a scheme's
 *     file says at which time within the step its lambda applies.
 *   - return CDYN_OK, a positive status (recoverable: the result is
 *     usable but less accurate than asked, e.g. CDYN_NOCONV), or a
 *     negative one with a message (cdyn_error).
 * It need not restore anything on failure: the stepper backs up q, v and
 * t before calling it, restores them when it returns a negative status or
 * leaves a non-finite state, and then calls `reset`, since history
 * written during a failed step is not to be trusted.  The stepper also
 * advances the time; the scheme must not.
 *
 * Constraint sets that change.  Between steps the caller may switch
 * constraints on and off, add and remove them, and turn springs into
 * constraints (cdyn/system.h).  The stepper follows at the start of the
 * next step: it lays out the new rows, updates the pattern of A, and calls
 * `changed(state, st, change)`, where change->from maps each new row to
 * its row before the change (or -1), so that history kept per row can be
 * carried over.  NULL means `reset`: the history is dropped.  A scheme's
 * file says which it does and why.
 *
 * Building blocks (below): the applied force and free acceleration, the
 * constraint rows, A = J D J^T, its factorisation and solves, products
 * with J and J^T, the constrained acceleration of 001 eqs 7-10, explicit
 * integrators, and the bookkeeping of nonlinear iterations.  Each takes
 * its work arrays as arguments; none allocates.  Their results are
 * deterministic: the same calls give bitwise the same numbers.
 *
 * Registration is not thread-safe: register schemes before steppers are
 * used from several threads.
 *
 * Writing a scheme: doc/extending.md; the built-in schemes' equations,
 * orders and multipliers: doc/schemes.md.
 */
#ifndef CDYN_SCHEME_H
#define CDYN_SCHEME_H

#include <stddef.h>

#include "cdyn/constraint.h"
#include "cdyn/contact.h"
#include "cdyn/option.h"
#include "cdyn/solver.h"
#include "cdyn/stepper.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- what a scheme sees ------------------------------------------------------ */

/*
 * The stepper as its scheme sees it during a step (cdyn_stepper_data).
 * Pointers stay valid for the stepper's life; the values of n, m, t and
 * the rows are those of the current step.
 */
typedef struct cdyn_scheme_data {
  size_t n;                 /* particles */
  size_t m;                 /* constraint rows of the current set (may be 0) */
  double *q, *v;            /* 3n positions and velocities, advanced in place */
  double t;                 /* time at the start of the step */
  const double *mass;       /* n */
  const double *winv;       /* n inverse masses (W = M^-1, one per particle) */
  const cdyn_row *rows;     /* m rows at the last cdyn_eval_rows / cdyn_prepare */
  const size_t *rowcon;     /* m: the constraint id (cdyn/system.h) of each row */
  const size_t *rowpart;    /* m * CDYN_MAX_PARTICLES: the particles of each row */
  const unsigned *rownp;    /* m: how many of those a row has */
  const unsigned char *inequality; /* m: the row is an inequality g >= 0 */
  double *lambda;           /* m: the step's multipliers, written by the scheme */
  double *F;                /* 3n: the applied force of the last cdyn_free_accel */
  const void *opts;         /* the scheme's option struct */
} cdyn_scheme_data;

const cdyn_scheme_data *cdyn_stepper_data(const cdyn_stepper *st);

/* What changed in the constraint set since the last step (see `changed`). */
typedef struct cdyn_set_change {
  size_t m_old;            /* rows before the change */
  const long *from;        /* m entries: each row's index before, or -1 for a new row */
  int forces;              /* springs or the force callback changed as well */
} cdyn_set_change;

/* ---- the scheme type ------------------------------------------------------------ */

/*
 * When within a step h from t a scheme's multipliers apply: the time at
 * which they approximate the exact constraint force (the multipliers of
 * the index-1 system along the exact motion).  A multiplier evaluated at
 * the state the step starts from belongs to t; one that acts as an
 * impulse over the whole step (v+ = v + h W (F - J^T lambda)) averages
 * the force over the step and belongs to t + h/2; one evaluated at the
 * end state belongs to t + h.
 */
/* A velocity that does not converge as h -> 0 (cdyn_scheme_type.velocity_order). */
#define CDYN_ORDER_NONE (-1.0)

enum cdyn_lambda_time {
  CDYN_LAMBDA_START = 0, /* t */
  CDYN_LAMBDA_MID = 1,   /* t + h/2 */
  CDYN_LAMBDA_END = 2    /* t + h */
};

typedef struct cdyn_scheme_type {
  const char *name;
  const char *description;
  const char *source;         /* paper and equations */
  double order;               /* expected global order in position */
  /* Expected order when the applied force is constant (gravity alone), where
     some schemes do better; 0 means the same as `order`. */
  double order_constant_force;
  /* Expected global order of the velocity; 0 means the same as the
     position's (`order`, or `order_constant_force` with a constant force),
     CDYN_ORDER_NONE that it does not converge in general (the scheme's
     file says where it does). */
  double velocity_order;
  /* The multipliers as constraint forces (d->lambda, above).
     lambda_order > 0: their expected global order against the exact
     constraint force at lambda_time, which tests/test_schemes.c asserts.
     lambda_note non-NULL: d->lambda is not the constraint force (a
     penalty spring's force, a position correction, a half-step
     multiplier); the note says in one sentence what it is, and lambda_order
     must be 0.  Both 0/NULL: not declared (measured, not asserted). */
  double lambda_order;
  enum cdyn_lambda_time lambda_time;
  const char *lambda_note;
  /* When an option moves the multipliers' time, the time for the options
     `opts`.  NULL: for a scheme with an integrator option
     (CDYN_INTEGRATOR_OPTION) the last acceleration evaluation of the
     integrator it names (cdyn_integrator_type.last_eval: RK4's last stage
     is at t + h), for any other lambda_time whatever the options.  The
     declared orders, like `order`, are those of the default options. */
  enum cdyn_lambda_time (*lambda_time_of)(const void *opts);
  const cdyn_option *options; /* ends with CDYN_OPTIONS_END; may be NULL */
  size_t options_size;        /* sizeof the option struct (0 without options) */
  /* Enforces inequality rows (cdyn/contact.h).  The other schemes refuse a
     system that has them: they would treat g >= 0 as g = 0. */
  int inequalities;
  /* The state: may both be NULL for a scheme that needs none. */
  int (*alloc)(void **state, size_t n, size_t mcap);
  void (*free)(void *state);
  int (*step)(cdyn_stepper *st, void *state, double h);
  void (*reset)(void *state);  /* NULL: no history */
  /* The constraint set changed since the last step; NULL: reset. */
  void (*changed)(void *state, const cdyn_stepper *st, const cdyn_set_change *change);
  /* What the last step did with contacts (cdyn/contact.h); NULL where a
     scheme has no such report. */
  int (*contact_report)(const void *state, cdyn_contact_report *rep);
  int (*handled)(const void *state, size_t m, unsigned char *handled);
  /* Enforces pin constraints only (a global implicit integrator that
     filters pinned degrees of freedom, such as Baraff-Witkin's): the
     stepper refuses a system with any other enabled constraint, except
     inequality rows when `inequalities` is set too (projected-newton). */
  int pins_only;
  /* Solves a linear system of its own rather than A = J D J^T (Baraff-
     Witkin's 3n x 3n matrix): the stepper option `solver` names the
     solver type of that system (cdyn_stepper_solver), and its value auto
     is the scheme's own choice, which cdyn_stepper_get reports as "auto"
     (for the other schemes, "auto(NAME)": the solver chosen for A). */
  int own_system;
  /* Never assembles A = J D J^T (cdyn_prepare, cdyn_assemble, cdyn_factor,
     cdyn_solve): the stepper reserves no storage for A's pattern when it is
     built (as for own_system), where a pattern shared by every row, a
     ball's contacts with each node of a cloth, would take memory quadratic
     in the rows.  A scheme that sets it and assembles A after all still
     works: the pattern's storage then grows at its first assembly. */
  int matrix_free;
  /* A step that returns CDYN_NOCONV has not advanced: its iteration
     did not converge and the stepper restores q, v, the multipliers and
     the time, as after a failure (the schemes whose Newton iteration has
     no usable iterate short of convergence: backward-euler, bdf2).  The
     others keep the last iterate and advance. */
  int noconv_restores;
  /* Its own system (own_system) is symmetric indefinite, a KKT matrix:
     the stepper option `solver` takes only the solver types that factor
     such matrices (cdyn_solver_type.indefinite) and refuses the others. */
  int indefinite;
  /* Integrates the springs implicitly (baraff-witkin, backward-euler,
     bdf2), so that their stiffness sets no step-size limit.  0: the
     springs' force enters as an applied force, explicitly, and the step
     must keep h omega below the integrator's limit
     (cdyn_system_spring_frequency). */
  int implicit_springs;
  /* Calls the constraint types' geometric stiffness (cdyn_constraint_type
     .hess) with the options `opts` (backward-euler, bdf2, projected-newton;
     implicit with geometric_stiffness=diagonal).  A type without hess then
     has it by finite differences of its eval, which the stepper says in
     cdyn_stepper_warning.  NULL: never calls it. */
  int (*uses_hess)(const void *opts);
  /* Reads A's entries (the stepper's values of A = J D J^T, or the matrix
     of cdyn_stepper_matrix), not only solves with it through
     cdyn_factor and cdyn_solve (contact's dense sub-solves gather them).
     The stepper then keeps A whole.  0: a pinned hub particle may be
     eliminated from the matrix it factors (lib/core/pattern.c, "Pinned
     hubs"), which cdyn_solve undoes. */
  int reads_A;
} cdyn_scheme_type;

/*
 * Register a scheme under type->name.  The type must stay valid for the
 * life of the process.  CDYN_EINVAL, with a message naming the fault, for
 * a name already in use, a missing step, alloc without free, an option
 * table whose defaults do not parse or whose fields fall outside
 * options_size, or an option named like a stepper option (solver,
 * pcg_tol, pcg_maxiter, rank_tol); CDYN_ENOMEM when the table of
 * registered schemes (64 entries) is full.
 */
int cdyn_scheme_register(const cdyn_scheme_type *type);

/* ---- workspaces --------------------------------------------------------------- */

/*
 * Allocate a scheme's state as one zeroed block: a struct of `size` bytes
 * followed by its arrays of doubles.  The double * field at offsets[k]
 * within the struct (offsetof) gets an array of lens[k] values (a valid
 * pointer even when lens[k] is 0).  The whole state is released by free(),
 * so a scheme whose state is only such arrays can use `free` as its free
 * operation.  CDYN_OK, or CDYN_ENOMEM with *state NULL.
 */
int cdyn_state_alloc(void **state, size_t size, const size_t *offsets, const size_t *lens, size_t count);

/* ---- building blocks ------------------------------------------------------------ */

/* Constraint rows Phi, J, Phi_t, (Jv)_q v, phi_tt at (q, v, t) into d->rows. */
int cdyn_eval_rows(cdyn_stepper *st, const double *q, const double *v, double t);
/*
 * Phi(q, t) of every row into phi (m values) without touching d->rows
 * (an iterate's residual while the rows keep J at the step's start);
 * *maxabs (may be NULL) gets max |Phi_r|.
 */
int cdyn_eval_phi(cdyn_stepper *st, const double *q, double t, double *phi, double *maxabs);
/*
 * The rows of the constraint that row r belongs to, at (q, v, t) (v may be
 * NULL: zero), into out (CDYN_MAX_ROWS entries), without touching
 * d->rows: for schemes that sweep constraint by constraint.  *first gets
 * the constraint's first row and *count its rows (either may be NULL).
 */
int cdyn_eval_constraint(cdyn_stepper *st, size_t r, const double *q, const double *v, double t,
                         cdyn_row *out, size_t *first, unsigned *count);
/* Applied force F(q, v, t): gravity, springs and the user callback. */
int cdyn_forces(cdyn_stepper *st, const double *q, const double *v, double t, double *F);
/* The unconstrained acceleration: F(q, v, t) into d->F, and a = W F. */
int cdyn_free_accel(cdyn_stepper *st, const double *q, const double *v, double t, double *a);
/* A = J D J^T from the current rows, D = diag(d) with n per-particle weights
   (d->winv for the dynamics' matrix). */
int cdyn_assemble(cdyn_stepper *st, const double *d);
/* Factor the assembled A with the stepper's linear solver (a no-op when A
   has not been assembled again since the last factorisation). */
int cdyn_factor(cdyn_stepper *st);
/* Solve A x = b (m values) with the factored A; x may not alias b. */
int cdyn_solve(cdyn_stepper *st, const double *b, double *x);
/* The same for nrhs right-hand sides at once: b and x hold nrhs blocks of m. */
int cdyn_solve_many(cdyn_stepper *st, size_t nrhs, const double *b, double *x);
/*
 * For a scheme that solves a linear system of its own besides A
 * (Baraff-Witkin's 3n x 3n matrix): the solver type that the stepper
 * option `solver` names, that type's option struct and the stepper's
 * rank_tol, to give its own instance of the type (cdyn/solver.h); *type
 * is NULL when the option is `auto`, which leaves the choice to the
 * scheme (its file says what it chooses).  opts and rank_tol may be NULL.
 */
int cdyn_stepper_solver(const cdyn_stepper *st, const cdyn_solver_type **type, const void **opts, double *rank_tol);
/*
 * For a scheme that cuts its step into sub-steps: report the end of one
 * that is not the step's last, at time t with positions q (3n), to the
 * stepper's sub-step observer (cdyn_stepper_set_substep_observer; nothing
 * when none is set).  The stepper numbers them 1, 2, ... within the step.
 * A negative status (the observer's failure) must fail the step.
 */
int cdyn_substep_reached(cdyn_stepper *st, double t, const double *q);
/* Rows at (q, v, t), A = J W J^T and its factorisation.  Nothing when m = 0. */
int cdyn_prepare(cdyn_stepper *st, const double *q, const double *v, double t);
/* y = J x (x: 3n, y: m) and x = J^T y through the current rows. */
void cdyn_jmul(const cdyn_stepper *st, const double *x, double *y);
void cdyn_jtmul(const cdyn_stepper *st, const double *y, double *x);

/* Work arrays of cdyn_constrained_accel. */
typedef struct cdyn_accel_work {
  double *b, *jv; /* m each */
  double *jt;     /* 3n */
} cdyn_accel_work;

/*
 * The constrained acceleration of 001 eqs 7-10 at (q, v, t) into a (3n):
 *   A lambda = J W F + (Jv)_q v + 2 Phi_qt v + Phi_tt
 *              + 2 alpha (J v + Phi_t) + beta^2 Phi
 *   a = W (F - J^T lambda),
 * lambda into d->lambda.  alpha = beta = 0 is the plain index-1 form.
 */
int cdyn_constrained_accel(cdyn_stepper *st, const double *q, const double *v, double t,
                           double alpha, double beta, double *a, const cdyn_accel_work *work);

/* ---- explicit integrators ---------------------------------------------------------- */

/* An acceleration qdd = a(q, v, t); ctx is the caller's (a scheme's state). */
typedef int (*cdyn_accel_fn)(cdyn_stepper *st, void *ctx, const double *q, const double *v,
                             double t, double *a);

#define CDYN_INTEGRATOR_NVEC 6 /* vectors of 3n that the largest integrator needs */

/*
 * An integrator's workspace, owned by the scheme that uses it: scratch and
 * history.  A multistep integrator keeps its history in vec[] and uses it
 * when `history` is set: cdyn_integrate sets it (and h_last) after every
 * successful step, cdyn_integrator_work_reset clears it.
 */
typedef struct cdyn_integrator_work {
  double *vec[CDYN_INTEGRATOR_NVEC];
  int history;
  double h_last;
  double *block;
} cdyn_integrator_work;

typedef struct cdyn_integrator_type {
  const char *name;
  const char *description;
  unsigned order;
  /* When within the step its last acceleration evaluation is made (the
     multipliers a scheme over it reports): CDYN_LAMBDA_START for the
     one-stage and multistep methods, CDYN_LAMBDA_END for RK4. */
  enum cdyn_lambda_time last_eval;
  unsigned nvec; /* work vectors of 3n used, at most CDYN_INTEGRATOR_NVEC */
  int (*step)(cdyn_stepper *st, cdyn_integrator_work *w, cdyn_accel_fn accel, void *ctx,
              double *q, double *v, double t, double h);
} cdyn_integrator_type;

int cdyn_integrator_type_find(const char *name, const cdyn_integrator_type **type);
/* Work for every registered integrator, for n particles. */
int cdyn_integrator_work_alloc(cdyn_integrator_work *w, size_t n);
void cdyn_integrator_work_free(cdyn_integrator_work *w);
void cdyn_integrator_work_reset(cdyn_integrator_work *w);
/* One step of the system's state by `it` under `accel`: what every
   integrator-driven scheme's step is. */
int cdyn_integrate(cdyn_stepper *st, const cdyn_integrator_type *it, cdyn_integrator_work *w,
                   cdyn_accel_fn accel, void *ctx, double h);

/*
 * The state of an integrator-driven scheme starts with this head (its
 * first member): the integrator's work.  cdyn_integrated_alloc allocates
 * the state as cdyn_state_alloc does (a struct of `size` bytes and its
 * arrays of doubles at offsets[k], lens[k] values each) and the head's
 * work for n particles; cdyn_integrated_free and cdyn_integrated_reset are
 * then the scheme's free and reset.
 */
typedef struct cdyn_integrated {
  cdyn_integrator_work iw;
} cdyn_integrated;
int cdyn_integrated_alloc(void **state, size_t size, size_t n, const size_t *offsets, const size_t *lens,
                          size_t count);
void cdyn_integrated_free(void *state);
void cdyn_integrated_reset(void *state);

/* ---- nonlinear iterations ------------------------------------------------------------ */

/*
 * Record a nonlinear iteration (Newton, SHAKE, RATTLE, PBD sweeps) in the
 * stepper's statistics: its iteration count, its final residual, and
 * whether it met its tolerance.
 */
void cdyn_record_nonlinear(cdyn_stepper *st, unsigned iterations, double residual, int converged);

/*
 * After each correction of an iteration on Phi(q+) = 0, a scheme measures
 * its residual r (a length) and asks for a verdict, given the residual
 * rprev of the previous iterate (INFINITY after the first correction):
 *   CONVERGED  r <= tol
 *   DIVERGED   r is not finite, or r >= rprev while rprev is above the
 *              rounding floor: the iteration is not contracting, so the
 *              step lies outside its region of convergence
 *   STALLED    r >= rprev with rprev at the rounding floor (tol is below
 *              what the arithmetic can resolve)
 *   LIMIT      max_iter corrections made, still contracting
 *   CONTINUE   otherwise
 * The rounding floor is 64 eps max|q_k|: Phi and the schemes' first-block
 * residuals are differences of coordinates of size |q|, each rounded at
 * eps |q|, summed over the few rows that share a particle.
 */
enum cdyn_iter_verdict {
  CDYN_ITER_CONTINUE,
  CDYN_ITER_CONVERGED,
  CDYN_ITER_LIMIT,
  CDYN_ITER_STALLED,
  CDYN_ITER_DIVERGED
};
enum cdyn_iter_verdict cdyn_iter_verdict(const cdyn_stepper *st, const double *q, double r,
                                         double rprev, double tol, unsigned iterations,
                                         long max_iter);
/*
 * One correction of a multiplier iteration: solve A dl = b with the
 * current factorisation, add dl to lambda (m values), and raise *linear
 * to the solve's status when it is worse (CDYN_NOCONV over CDYN_OK).
 * Returns a negative status when the solve failed, else CDYN_OK.
 */
int cdyn_iter_correct(cdyn_stepper *st, const double *b, double *dl, double *lambda, int *linear);
/*
 * Record the iteration (cdyn_record_nonlinear) and turn the verdict into
 * the step's status: CONVERGED gives `linear`, the worst status of the
 * linear solves (CDYN_OK or CDYN_NOCONV); LIMIT and STALLED give
 * CDYN_NOCONV, keeping the last iterate; DIVERGED gives CDYN_EDIVERGED,
 * and the stepper restores the state, unless the last linear solve left
 * more than 1e-6 of its right-hand side unsolved: the constraints are
 * then inconsistent (no step size helps), and the status is
 * CDYN_EINFEASIBLE.  `name` is the scheme's.
 */
int cdyn_iter_finish(cdyn_stepper *st, const char *name, enum cdyn_iter_verdict verdict,
                     unsigned iterations, double r, double rprev, double tol, int linear);

#ifdef __cplusplus
}
#endif
#endif
