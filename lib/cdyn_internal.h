/*
 * cdyn_internal.h: what schemes, integrators and solvers are written
 * against.  Private to the library and its tests of internals.
 *
 * The pieces and their order inside a step:
 *   cdyn_eval_rows     Phi, J, Phi_t, (Jv)_q v, ... at (q, v, t)
 *   cdyn_forces        F(q, v, t)
 *   cdyn_assemble      A = J D J^T in preallocated CSR storage (D = W or I)
 *   cdyn_solve         A x = b with the chosen linear solver type
 *   cdyn_jmul / cdyn_jtmul   J x and J^T y through the sparse rows
 */
#ifndef CDYN_INTERNAL_H
#define CDYN_INTERNAL_H

#include <stddef.h>

#include <gsl/gsl_spmatrix.h>

#include "cdyn/cdyn.h"

/* ---- system ---------------------------------------------------------- */

typedef struct cdyn_spring {
  size_t i, j;
  double k, c, rest;
} cdyn_spring;

typedef struct cdyn_constraint {
  const cdyn_constraint_type *type;
  size_t p[CDYN_MAX_PARTICLES];
  double params[CDYN_MAX_PARAMS];
  size_t row0; /* first row of this constraint in Phi */
  int inequality; /* its rows are conditions Phi >= 0 (cdyn/contact.h) */
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
  size_t ncons, cap_cons, m;
  size_t m_ineq; /* rows of the constraints flagged as inequalities */
  cdyn_force_fn force_fn;
  void *force_ctx;
  unsigned long version; /* bumped when springs or constraints change */
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

/* ---- options ----------------------------------------------------------- */

enum cdyn_option_kind {
  CDYN_OPT_DOUBLE,
  CDYN_OPT_INT,
  CDYN_OPT_BOOL,
  CDYN_OPT_CHOICE,     /* index into `choices` */
  CDYN_OPT_INTEGRATOR  /* const cdyn_integrator_type * */
};

typedef struct cdyn_option {
  const char *name;
  enum cdyn_option_kind kind;
  size_t offset;               /* of the value inside the options struct */
  const char *def;             /* default, as text */
  double min, max;             /* inclusive bounds for DOUBLE and INT */
  const char *const *choices;  /* NULL-terminated, for CHOICE */
  const char *doc;
} cdyn_option;

/* Parse `value` for option `o` into base + o->offset. */
int cdyn_option_parse(const cdyn_option *o, void *base, const char *value);
int cdyn_option_format(const cdyn_option *o, const void *base, char *buf,
                       size_t len);

/* ---- linear solvers ------------------------------------------------------ */

typedef struct cdyn_solve_opts {
  double pcg_tol;
  long pcg_maxiter; /* 0: 10 m */
  double rank_tol;
} cdyn_solve_opts;

typedef struct cdyn_solve_info {
  unsigned long iterations;
  double residual;  /* |A x - b| / |b| (0 when b = 0) */
  unsigned rank;
  int fallback;     /* the least-squares path was taken */
} cdyn_solve_info;

/*
 * A linear solver for the symmetric positive semi-definite A = J D J^T.
 * `factor` sees each newly assembled A once; `solve` may then be called
 * for several right-hand sides.  Neither allocates.
 */
typedef struct cdyn_solver_type {
  const char *name;
  const char *description;
  int (*alloc)(void **state, size_t m);
  void (*free)(void *state);
  int (*factor)(void *state, const gsl_spmatrix *A, const cdyn_solve_opts *o,
                cdyn_solve_info *info);
  int (*solve)(void *state, const gsl_spmatrix *A, const double *b, double *x,
               const cdyn_solve_opts *o, cdyn_solve_info *info);
} cdyn_solver_type;

extern const cdyn_solver_type *const cdyn_solver_types[];
int cdyn_solver_type_find(const char *name, const cdyn_solver_type **type);

/* ---- integrators --------------------------------------------------------- */


/* Acceleration qdd = a(q, v, t); returns a status. */
typedef int (*cdyn_accel_fn)(cdyn_stepper *st, const double *q,
                             const double *v, double t, double *a);

/*
 * An explicit integrator for q' = v, v' = a(q, v, t): one step in place.
 * It uses st->vec[first ...] as scratch (nvec vectors of 3n).
 */
typedef struct cdyn_integrator_type {
  const char *name;
  const char *description;
  unsigned order;
  unsigned nvec;
  int (*step)(cdyn_stepper *st, cdyn_accel_fn accel, double *q, double *v,
              double t, double h, double **scratch);
} cdyn_integrator_type;

extern const cdyn_integrator_type *const cdyn_integrator_types[];

/* One step of st->sys by the integrator `it` under the acceleration
   `accel`: what every integrator-driven scheme's step is. */
static inline int cdyn_integrate(cdyn_stepper *st, const cdyn_integrator_type *it, cdyn_accel_fn accel,
                                 double h);

/* The option entry of a scheme's integrator (field `field` of its options
   struct `type`), and the end of an option table. */
#define CDYN_INTEGRATOR_OPTION(type, field, def, doc)                                             \
  {"integrator", CDYN_OPT_INTEGRATOR, offsetof(type, field), def, 0, 0, NULL, doc}
#define CDYN_OPTIONS_END {NULL, 0, 0, NULL, 0, 0, NULL, NULL}
int cdyn_integrator_type_find(const char *name,
                              const cdyn_integrator_type **type);

/* ---- schemes ------------------------------------------------------------- */

/*
 * A scheme advances (q, v) of st->sys from time st->sys->t by h, in place.
 * The stepper has already backed the state up and will restore it if the
 * scheme returns a negative status or leaves a non-finite state.
 */
typedef struct cdyn_scheme_type {
  const char *name;
  const char *description;
  const char *source; /* paper and equations */
  double order;       /* expected global order in position */
  /* Expected order when the applied force is constant (gravity alone),
     where some schemes do better; 0 means the same as `order`. */
  double order_constant_force;
  const cdyn_option *options; /* terminated by a NULL name; may be NULL */
  size_t options_size;        /* sizeof the scheme's option struct */
  int (*step)(cdyn_stepper *st, double h);
  void (*reset)(cdyn_stepper *st); /* may be NULL */
  /* Enforces inequality rows (cdyn/contact.h).  The other schemes refuse
     a system that has them: they would treat g >= 0 as g = 0. */
  int inequalities;
  /* Scheme-owned workspace, sized when the stepper is built (may be NULL):
     init sets st->scheme_state, fini frees it. */
  int (*init)(cdyn_stepper *st);
  void (*fini)(cdyn_stepper *st);
} cdyn_scheme_type;

extern const cdyn_scheme_type *const cdyn_scheme_types[];

/* ---- the stepper ---------------------------------------------------------- */

#define CDYN_NVEC 12  /* scratch vectors of 3n */
#define CDYN_NMVEC 4  /* scratch vectors of m */

/* One contribution d_p J_ra,sa . J_rb,sb to the CSR entry `k` of A. */
typedef struct cdyn_contrib {
  size_t k, ra, rb, p;
  unsigned sa, sb;
} cdyn_contrib;


struct cdyn_stepper {
  const cdyn_scheme_type *type;
  cdyn_system *sys;
  unsigned long version;
  size_t n, m;

  /* constraint rows at the last evaluation */
  cdyn_row *rows;   /* m */
  size_t *rowpart;  /* m * CDYN_MAX_PARTICLES particle indices */
  unsigned *rownp;  /* particles per row */

  /* A = J D J^T, pattern fixed at build time */
  gsl_spmatrix *A;
  cdyn_contrib *contrib;
  size_t ncontrib;

  /* linear solver: `solver` is in use; `solver_auto` says it was chosen
     from m rather than named */
  const cdyn_solver_type *solver;
  int solver_auto;
  void *solver_state;
  cdyn_solve_opts so;

  /* work vectors */
  double *F;               /* 3n forces */
  double *lambda;          /* m multipliers of the last solve */
  double *vec[CDYN_NVEC];  /* 3n scratch */
  double *mvec[CDYN_NMVEC];/* m scratch */
  double *ones;            /* n ones: D = I */
  double *q0, *v0;         /* backup of the state at step start */

  void *opts;              /* the scheme's options struct */
  int have_history;        /* multistep schemes: a previous step exists */
  double h_last;           /* size of the last successful step (valid when
                              have_history): variable-step multistep methods */

  void *scheme_state;      /* the scheme's workspace (type->init) */

  cdyn_stats stats;
};

static inline int cdyn_integrate(cdyn_stepper *st, const cdyn_integrator_type *it, cdyn_accel_fn accel,
                                 double h)
{
  cdyn_system *s = st->sys;
  return it->step(st, accel, s->q, s->v, s->t, h, st->vec);
}

int cdyn_eval_rows(cdyn_stepper *st, const double *q, const double *v,
                   double t);
int cdyn_forces(cdyn_stepper *st, const double *q, const double *v, double t,
                double *F);
/* A = J D J^T from the current rows; d has n per-particle weights. */
int cdyn_assemble(cdyn_stepper *st, const double *d);
/* Factor the assembled A, then solve A x = b (x may alias no input). */
int cdyn_factor(cdyn_stepper *st);
int cdyn_solve(cdyn_stepper *st, const double *b, double *x);
/* y = J x (x: 3n, y: m) and x = J^T y, through the current rows. */
void cdyn_jmul(const cdyn_stepper *st, const double *x, double *y);
void cdyn_jtmul(const cdyn_stepper *st, const double *y, double *x);

/*
 * The unconstrained acceleration: F(q, v, t) into st->F and a = W F.
 */
int cdyn_free_accel(cdyn_stepper *st, const double *q, const double *v,
                    double t, double *a);
/*
 * Rows at (q, v, t), A = J W J^T and its factorisation: what every scheme
 * that solves with the dynamics' matrix needs first.  Does nothing when
 * there are no constraints.
 */
int cdyn_prepare(cdyn_stepper *st, const double *q, const double *v, double t);

/*
 * The constrained acceleration of 001 eqs 7-10 at (q, v, t):
 *   A lambda = J W F + (Jv)_q v + 2 Phi_qt v + Phi_tt
 *              + 2 alpha (J v + Phi_t) + beta^2 Phi
 *   a = W (F - J^T lambda)
 * alpha = beta = 0 is the plain index-1 formulation.  Uses st->vec[11].
 */
int cdyn_constrained_accel(cdyn_stepper *st, const double *q, const double *v,
                           double t, double alpha, double beta, double *a);

/*
 * Record a nonlinear iteration (Newton, SHAKE, RATTLE, PBD sweeps) in the
 * stepper's statistics: its iteration count, its final residual, and
 * whether it met its tolerance.
 */
void cdyn_record_nonlinear(cdyn_stepper *st, unsigned iterations, double residual,
                           int converged);

/*
 * Nonlinear iterations within a step (newton, shake, rattle).  After each
 * correction a scheme measures its residual r (in units of length) and asks
 * for a verdict, given the residual rprev of the previous iterate (INFINITY
 * after the first correction):
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
 * Record the iteration in the statistics (cdyn_record_nonlinear) and turn
 * the verdict into the step's status: CONVERGED gives `linear`, the worst
 * status of the linear solves (CDYN_OK or CDYN_NOCONV); LIMIT and STALLED
 * give CDYN_NOCONV, keeping the last iterate (the best: the residuals
 * decreased up to it, or stalled at rounding); DIVERGED gives
 * CDYN_EDIVERGED, and the stepper restores the state.  `name` is the
 * scheme's, for the message.
 */
int cdyn_iter_finish(cdyn_stepper *st, const char *name, enum cdyn_iter_verdict verdict,
                     unsigned iterations, double r, double rprev, double tol, int linear);

/*
 * The SHAKE step (lib/schemes/shake.c), which RATTLE completes with a
 * velocity projection: advances st->sys by h in place and leaves the
 * multiplier lambda of the first half kick, v1/2 = v + (h/2) W (F -
 * J^T lambda), in st->lambda.  Uses st->vec[6..9] and st->mvec[0..2].
 */
/* The options of shake and rattle: their position iteration. */
typedef struct cdyn_shake_opts {
  double tol;
  long max_iter;
} cdyn_shake_opts;
extern const cdyn_option cdyn_shake_options[];

int cdyn_shake_step(cdyn_stepper *st, double h, double tol, long max_iter, const char *name);

/* Scratch vectors st->vec[0 .. CDYN_INTEGRATOR_NVEC) belong to the
   integrator; schemes use the ones above. */
#define CDYN_INTEGRATOR_NVEC 6

/* Helpers. */
int cdyn_all_finite(const double *x, size_t len);

#endif
