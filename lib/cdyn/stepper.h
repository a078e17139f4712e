/*
 * cdyn/stepper.h: constraint-enforcement schemes and the stepper that runs
 * one on a system.
 *
 * A stepper is built once for a system and a scheme name.  It sizes every
 * workspace then, for the system's reserved capacity, so cdyn_stepper_step()
 * never allocates.  When the system's constraint set has changed since the
 * last step (constraints switched, added or removed, springs turned into
 * constraints; cdyn/system.h), the step first follows it: it lays out the
 * new rows, updates the sparsity pattern of A (the solver redoes its
 * analysis only when the pattern changed), moves the last multipliers to
 * their new rows, and lets the scheme carry or drop its history (each
 * scheme's file says which).  Only growth past the reserved capacity, or
 * a pattern larger than any before, makes a step allocate; stats counts it.
 *
 * Options are strings set by name (`alpha`, `solver`, ...): the scheme's
 * own options plus the options every stepper has:
 *   solver    auto | cholesky | cholmod | banded | pcg | a registered one
 *             cholesky: dense LAPACKE; cholmod: sparse Cholesky (CHOLMOD);
 *             banded: LAPACK band Cholesky in the rows' order; pcg:
 *             conjugate gradients; solvers of one's own: cdyn/solver.h.
 *             auto, decided when the stepper is built: cholesky for a row
 *             capacity of at most 256, cholmod above.  cdyn_stepper_get
 *             reports the choice as "auto(name)".  A scheme that solves a
 *             system of its own (baraff-witkin) solves it with the type
 *             named, and decides itself what auto means (its file says).
 *   pcg_tol   relative residual at which PCG stops (default 1e-12)
 *   pcg_maxiter  iteration limit of PCG (0 = 10 m)
 *   pcg_precond  jacobi (default) | sgs (a symmetric Gauss-Seidel sweep)
 *   cholmod_mode  simplicial (default) | supernodal | auto (CHOLMOD's choice)
 *   cholmod_reuse_tol  0 (default: factor at every setup) or the relative
 *             residual to which CG preconditioned by an earlier factor
 *             solves, factoring again only when it slows
 *   cholmod_reuse_maxit  CG iterations before a reused factor is replaced
 *             (default 10)
 *   rank_tol  relative pivot/eigenvalue below which A is treated as
 *             singular and solved in the least-squares sense (default 1e-12)
 *   max_error the divergence guard (below; default 0, off)
 * A sparse direct solver (cholmod, banded) analyses A's pattern once per
 * constraint set it has not seen (cholmod keeps the last 8), which
 * allocates; cdyn_stats.analyses counts it.
 *
 * A step that fails restores the system's state and time, and returns a
 * negative status.  A step whose iterative solve stopped short returns
 * CDYN_NOCONV (> 0) and keeps its result.  The schemes that iterate on
 * Phi(q+) = 0 (newton, shake, rattle) return CDYN_NOCONV when they run
 * out of iterations (option max_iter) while still converging, and
 * CDYN_EDIVERGED (< 0, state restored) when the residual grows: the step
 * is too large for the iteration, and a smaller h is the remedy.
 *
 * Using a stepper, its options and statistics: doc/library.md.
 */
#ifndef CDYN_STEPPER_H
#define CDYN_STEPPER_H

#include <stddef.h>

#include "cdyn/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdyn_stepper cdyn_stepper;

/* Counters, cumulative since the stepper was built (or reset_stats). */
typedef struct cdyn_stats {
  unsigned long steps;        /* successful steps */
  unsigned long assemblies;   /* times A = J D J^T was assembled */
  unsigned long solves;       /* linear solves */
  unsigned long iterations;   /* PCG iterations, summed */
  unsigned long fallbacks;    /* solves that needed the least-squares path */
  unsigned long noconv;       /* solves that stopped before their tolerance */
  unsigned long constraint_evals; /* evaluations of all constraint rows */
  double last_residual;       /* relative residual of the last solve */
  unsigned last_rank;         /* numerical rank of A at the last solve */
  /* Schemes that iterate on a nonlinear problem within a step (Newton,
     SHAKE, RATTLE, PBD sweeps): */
  unsigned long nonlinear_iterations; /* iterations, summed */
  unsigned long nonlinear_noconv; /* steps whose iteration hit its limit */
  unsigned last_nonlinear_iterations; /* iterations of the last step */
  double last_nonlinear_residual; /* max |Phi_r| (or the scheme's residual)
                                     at the end of the last step's iteration */
  unsigned long factorizations; /* numeric factorisations (or preconditioner builds) of A: one per
                                   setup, none when a setup keeps an earlier factor (cholmod_reuse_tol) */
  unsigned long analyses;       /* symbolic analyses of a sparse direct solver (a pattern
                                   it had not seen; these allocate) */
  size_t factor_nnz;            /* entries of the last factor made through a solver type that
                                   succeeded (cdyn_solve_info.factor_nnz): a direct solver's memory, and
                                   the work of each of its solves; 0 before the first factorisation (and
                                   after cdyn_stepper_reset_stats), for an iterative solver, and for the
                                   schemes that do not report it: baraff-witkin's reduced solve and
                                   contact's sparse active-set solves */
  unsigned long patterns;       /* sparsity patterns of A built (1 at the start) */
  unsigned long set_changes;    /* steps that followed a change of the constraint set */
  unsigned long reallocations;  /* steps that had to grow a workspace */
  unsigned long guarded;        /* steps refused by the divergence guard max_error */
  double last_guarded_error;    /* e_n after the last step it refused (the state was not kept) */
  /* Where the linear algebra's time goes, in seconds (a monotonic clock):
     assembling A, setting up the solver (analysis, factorisation or
     preconditioner), and solving. */
  double time_assembly, time_factor, time_solve;
} cdyn_stats;

/* Build a stepper for `sys` with the scheme `scheme` (see cdyn_scheme_name). */
int cdyn_stepper_new(cdyn_stepper **out, cdyn_system *sys, const char *scheme);
void cdyn_stepper_free(cdyn_stepper *st);

/* Set an option from its text form; CDYN_EUNKNOWN for an unknown key.
   Setting one of the scheme's own options (not solver, a solver's
   options such as pcg_tol or cholmod_mode, rank_tol, max_error) also
   forgets multistep history, as cdyn_stepper_reset does. */
int cdyn_stepper_set(cdyn_stepper *st, const char *key, const char *value);
/* Current value of an option as text. */
int cdyn_stepper_get(const cdyn_stepper *st, const char *key, char *buf,
                     size_t len);
/* Options, for listing and for metadata: i = 0 .. count-1. */
size_t cdyn_stepper_option_count(const cdyn_stepper *st);
const char *cdyn_stepper_option_name(const cdyn_stepper *st, size_t i);
const char *cdyn_stepper_option_doc(const cdyn_stepper *st, size_t i);

/* Advance the system by one step of size h > 0.  Returns 0, a positive
   recoverable status (CDYN_NOCONV: a less accurate step, taken), or a
   negative one with the positions, velocities, time and multipliers as
   they were before the step.  A non-negative status always means a finite
   state and finite multipliers (else CDYN_ENONFINITE).  With the option
   max_error > 0 (the divergence guard; 0, off, by default) it also means
   a constraint error e_n <= max_error after the step: a step beyond it
   fails with CDYN_EDIVERGED and is counted in cdyn_stats.guarded.
   Inconsistent constraints (Phi(q) = 0 without a solution) give
   CDYN_EINFEASIBLE with newton, shake and rattle; the other schemes
   cannot tell (each says so in its source) and return 0. */
int cdyn_stepper_step(cdyn_stepper *st, double h);
/* Forget multistep history (after the state was changed from outside). */
int cdyn_stepper_reset(cdyn_stepper *st);

/*
 * The sub-step observer (optional): the positions a step passes through.
 * A scheme that cuts its step into sub-steps (contact: at each located
 * event) moves the system through intermediate states, and a check of the
 * step's motion (an exact collision replay) should follow that path, not
 * the straight line from the step's start to its end.  With an observer
 * set, every cdyn_stepper_step calls
 *   fn(ctx, 0, t0, q0)       at its start (the state it starts from), and
 *   fn(ctx, k, t_k, q_k)     at the end of its k-th sub-step, k = 1, 2, ...,
 *                            for every sub-step but the last,
 * q: the 3n positions at that time (read only, valid during the call).
 * The step's end is the state cdyn_stepper_step leaves, so the path of a
 * step is q0, q_1, ..., q_K, then the state after the step; a scheme that
 * takes its step whole reports only k = 0.  A step that is taken again
 * (a caller repeating it from its start) starts again at k = 0.  The
 * observer returns CDYN_OK to go on; anything else fails the step (a
 * negative status is passed up as it is, any other as CDYN_EINVAL) with
 * the state restored.  It must not change the system.  fn NULL removes
 * the observer.  No allocation; CDYN_EINVAL for a NULL stepper.
 */
typedef int (*cdyn_substep_fn)(void *ctx, unsigned long k, double t, const double *q);
int cdyn_stepper_set_substep_observer(cdyn_stepper *st, cdyn_substep_fn fn, void *ctx);

/*
 * What a caller should know before running this stepper, as one line of
 * text ("" when there is nothing): a warning, never a failure.  Today:
 * the constraint types of the system without `hess` whose geometric
 * stiffness the scheme, with its current options, takes by central
 * differences of their eval (cdyn_constraint_fd_hess), naming each type,
 * its constraints and the cost, 2 * 3 np + 1 calls of eval per
 * constraint each time the scheme needs K.  Written when the stepper is
 * built, when an option is set and when a step follows a change of the
 * constraint set (into storage of the stepper's: no allocation).  The
 * text stays valid until the next such event; NULL for a NULL stepper.
 */
const char *cdyn_stepper_warning(const cdyn_stepper *st);

const char *cdyn_stepper_scheme(const cdyn_stepper *st);
int cdyn_stepper_stats(const cdyn_stepper *st, cdyn_stats *stats);
int cdyn_stepper_reset_stats(cdyn_stepper *st);
/* Room for a sparsity pattern of A with up to nnz entries (and their
   contributions), so that constraint sets whose pattern grows up to that
   size (contacts made and released between steps) make no step allocate.
   Never shrinks.  CDYN_EINVAL for nnz beyond INT_MAX. */
int cdyn_stepper_reserve(cdyn_stepper *st, size_t nnz);
/* Rows of the constraint set of the last step (or of the stepper's build). */
size_t cdyn_stepper_rows(const cdyn_stepper *st);
/* The multipliers of the last step (cdyn_stepper_rows values, the
   convention M qdd + J^T lambda = F). */
int cdyn_stepper_multipliers(const cdyn_stepper *st, double *lambda);
/* The multipliers of constraint c at the last step (its rows' values, at
   most CDYN_MAX_ROWS; *rows, may be NULL, gets their number); CDYN_EINVAL
   if c was not in that step's set. */
int cdyn_stepper_constraint_multipliers(const cdyn_stepper *st, size_t c, double *lambda,
                                        size_t *rows);

/* The registry of schemes, integrators and linear solvers. */
size_t cdyn_scheme_count(void);
const char *cdyn_scheme_name(size_t i);
const char *cdyn_scheme_description(size_t i);
const char *cdyn_scheme_source(size_t i);
/* Expected global order of accuracy in position. */
double cdyn_scheme_order(size_t i);
/* Expected order when the applied force is constant (gravity alone); a
   scheme that evaluates the force at the wrong time can do better there
   than in general. */
double cdyn_scheme_order_constant_force(size_t i);
/* Expected global order of the velocity (cdyn_scheme_type.velocity_order),
   in general and with a constant force; CDYN_ORDER_NONE (-1): it does not
   converge in general. */
double cdyn_scheme_velocity_order(size_t i);
double cdyn_scheme_velocity_order_constant_force(size_t i);
/* The multipliers as constraint forces (cdyn_scheme_type.lambda_order,
   lambda_time, lambda_note), for the default options: the declared order
   (0: not declared, or not a force), the time within the step they belong
   to (enum cdyn_lambda_time, in cdyn/scheme.h; -1 for an i out of range), and
   what they are when they are not the constraint force (NULL when they
   are). */
double cdyn_scheme_lambda_order(size_t i);
int cdyn_scheme_lambda_time(size_t i);
const char *cdyn_scheme_lambda_note(size_t i);
/* The time within a step that st's multipliers belong to with its current
   options (an integrator option can move it: cdyn_scheme_type.lambda_time_of);
   -1 for a NULL st. */
int cdyn_stepper_lambda_time(const cdyn_stepper *st);
/* Index of a scheme by name, or CDYN_EUNKNOWN. */
int cdyn_scheme_find(const char *name, size_t *index);
/* Does scheme i enforce inequality rows (cdyn/contact.h)?  The others
   refuse a system that has them. */
int cdyn_scheme_inequalities(size_t i);
/* Does scheme i integrate the springs implicitly (cdyn_scheme_type.implicit_springs),
   with no step-size limit from their stiffness?  0 for an i out of range. */
int cdyn_scheme_implicit_springs(size_t i);
/* Does scheme i enforce pins only (cdyn_scheme_type.pins_only)?  0 for an i out of range. */
int cdyn_scheme_pins_only(size_t i);
/* Can scheme i use solver type j (cdyn_solver_name)?  A scheme whose own
   system is symmetric indefinite (cdyn_scheme_type.indefinite:
   backward-euler, bdf2) takes only the solver types that factor such
   matrices (cdyn_solver_type.indefinite: ldlt); every other pair fits.
   0 for an index out of range. */
int cdyn_scheme_solver_fits(size_t i, size_t j);
/*
 * The options a stepper of scheme i has (those of cdyn_stepper_option_*,
 * in the same order), without building one: their number, and the name,
 * default value (as text) and one-line description of option k (any of
 * the three pointers may be NULL).  CDYN_EINVAL for an index out of range.
 */
size_t cdyn_scheme_option_count(size_t i);
int cdyn_scheme_option(size_t i, size_t k, const char **name, const char **def, const char **doc);

size_t cdyn_integrator_count(void);
const char *cdyn_integrator_name(size_t i);
const char *cdyn_integrator_description(size_t i);

size_t cdyn_solver_count(void);
const char *cdyn_solver_name(size_t i);
const char *cdyn_solver_description(size_t i);

/* Package version, "MAJOR.MINOR.PATCH". */
const char *cdyn_version(void);

/* Seconds on a monotonic clock: the clock of cdyn_stats' times, for
   timing a caller's own work alike. */
double cdyn_clock(void);
/* Are all len values finite? */
int cdyn_all_finite(const double *x, size_t len);

#ifdef __cplusplus
}
#endif
#endif
