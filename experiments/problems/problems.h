/*
 * problems.h: the test problems the verification experiments share, each
 * with an independent reference solution.
 *
 *   pendulum    one rigid link of L = 1 m, a 1 kg bob, pinned pivot,
 *               released at rest from theta0 = 1.2 rad
 *   double      001's 2-link arm: two 1 m links, 1 kg nodes, released
 *               at rest from horizontal
 *   bead        002's bead on the unit circle, C = (x.x - 1)/2 in the
 *               x-y plane, 1 kg, released at rest from theta0 = 2 rad
 *               (above the horizontal)
 *   hoop        a bead on a hoop of R = 1 m spinning about its vertical
 *               diameter at omega = sqrt(2 g / R) (the "hoop" constraint
 *               type, which moves with time), 1 kg, released at rest
 *               relative to the hoop at 1.4 rad; its relative equilibrium
 *               is theta* = acos(g / (omega^2 R)) = pi/3 and small
 *               oscillations about it have Omega = omega sin theta*
 *               (reference/hoop.c, rk8pd at 1e-13)
 *   pendulum-h  the pendulum released from horizontal
 *   chain10     a 10-link arm of 1 m links and 1 kg nodes, released from
 *               horizontal
 *
 * Angles are measured from the downward vertical; gravity is 9.81 m/s^2
 * along -y.  The chains' references are reference/nlink.c (joint angles,
 * GSL rk8pd at 1e-13); the bead's is the exact solution in Jacobi
 * elliptic functions (reference/bead.c).
 */
#ifndef CDYN_PROBLEMS_H
#define CDYN_PROBLEMS_H

#include <stddef.h>

#include <cdyn/cdyn.h>

#include "runner/experiment.h"

typedef struct exp_problem {
  const char *name;
  const char *description;
  size_t n;            /* particles */
  double T;            /* horizon of the convergence runs */
  double energy_scale; /* m g L of the problem, for relative energies */
  double energy_range; /* the scale of the energy-gain rule: E(0) - min E, the energy gravity
                          can release, for the conservative problems; for the driven hoop a
                          bound on |E - E(0)| (problems.c) */
  double length;       /* total constraint length, for relative errors */
  int (*build)(cdyn_system **out);
  /* Reference positions and velocities of all n particles (3n each) at t. */
  int (*reference)(double t, double *q, double *v);
  /* Constraint rows of the built system, and the exact multipliers of
     those rows at t (m values, the library's convention M a + J^T lambda
     = F), from the reference state by Newton's law on the particles,
     independently of the library (problems.c gives each derivation). */
  size_t m;
  int (*multipliers)(double t, double *lambda);
} exp_problem;

/* What one run of a problem measured. */
#define EXP_PROBLEM_MAX_ROWS 16
typedef struct exp_problem_result {
  int status;           /* CDYN_OK, or the status of the step that failed (CDYN_EDIVERGED: the error limit) */
  long steps;           /* steps completed */
  int stopped;          /* a limit below was exceeded (the run stopped there) */
  unsigned long noconv; /* steps that returned CDYN_NOCONV */
  double emax, eend;    /* constraint error e_n: largest, and at the end */
  double E0, Eend;      /* total energy at the start and at the end */
  double dEmax;         /* largest |E - E0| */
  size_t m;             /* rows of the last step (0 if none was taken) */
  int lambda_time;      /* when within a step the multipliers apply (cdyn_stepper_lambda_time) */
  double lambda[EXP_PROBLEM_MAX_ROWS]; /* its multipliers (cdyn_stepper_multipliers), when m fits */
} exp_problem_result;

typedef struct exp_ctx exp_ctx;

/*
 * A planar arm of `links` rigid links (the papers' robot arms): node 0
 * pinned at the origin by a pin constraint, link k a distance constraint
 * |x_k - x_k+1| = length, node k+1 = node k + length (sin theta_k,
 * -cos theta_k, 0) for absolute angles theta_k from the downward vertical
 * (theta NULL: all pi/2, horizontal along +x), at rest, gravity g along -y.
 * Every node has mass `mass`, except the free end, which has `end_mass`
 * when that is > 0.
 */
#define EXP_ARM_MAX 100
typedef struct exp_arm {
  size_t links;
  double length, g, mass, end_mass;
  const double *theta;
} exp_arm;

struct cdyn_ref_nlink;
int exp_arm_build(const exp_arm *a, cdyn_system **out);
/* The same arm in joint angles (reference/nlink.c, rk8pd at 1e-13). */
int exp_arm_reference(const exp_arm *a, struct cdyn_ref_nlink **out);
/* The reference's state as 3(links + 1) positions and velocities (node 0 at rest at the origin). */
int exp_arm_reference_state(const struct cdyn_ref_nlink *r, size_t links, double *q, double *v);

/*
 * Run `run` (its options as exp_stepper_run sets them, then `extra`, a
 * NULL-terminated list of option name/value pairs, may be NULL) on
 * problem `p` for `steps` steps of h, through the runner (exp_simulate).
 * The run stops early, with r->stopped set, when e_n exceeds emax_stop or
 * E - E0 exceeds dE_stop (pass INFINITY for no limit).  A step that fails
 * (or a state that cannot be measured) ends the run with r->status set;
 * that is a measurement, not an error of this function, which returns
 * non-zero only when the problem cannot be built.  q and v (3n each, may
 * be NULL) receive the final state.
 */
int exp_problem_run(exp_ctx *ctx, const exp_problem *p, const struct exp_runspec *run, const char *const *extra,
                    double h, long steps, double emax_stop, double dE_stop, exp_problem_result *r, double *q, double *v);

/*
 * The largest stable step size of `scheme` on `p` (stable_search.c, which
 * states the rules): *h_stable is the last stable grid point before the
 * first unstable one *h_unstable (NaN: stable on the whole grid);
 * *h_stable is NaN when no grid point is stable.  Every probe is logged
 * to `log` (may be NULL) as scheme,problem,h,stable,status,steps,e_max,
 * energy_gain,noconv.
 */
struct exp_csv;
int exp_largest_stable_h(exp_ctx *ctx, const exp_problem *p, const struct exp_runspec *run, const char *const *extra,
                         double err_frac, double energy_frac, struct exp_csv *log, double *h_stable,
                         double *h_unstable);

/*
 * The search of exp_largest_stable_h for any probe: `probe(pctx, h,
 * &stable)` runs at h and judges it (non-zero return: an error, which
 * ends the search).  The search starts at grid point j_start (h =
 * exp_stable_grid_h(j_start); exp_largest_stable_h starts at 0, h =
 * 1e-3), goes down until a stable h, then up until the first unstable
 * one; the results are as exp_largest_stable_h's.
 */
typedef int (*exp_stable_probe)(void *pctx, double h, int *stable);
int exp_stable_search(exp_stable_probe probe, void *pctx, int j_start, double *h_stable, double *h_unstable);
/* Point j of the search's grid: 1e-3 2^(j/4), j from -13 to 36. */
double exp_stable_grid_h(int j);
/* The grid's ends: j from EXP_STABLE_J_MIN to EXP_STABLE_J_MAX. */
#define EXP_STABLE_J_MIN (-13)
#define EXP_STABLE_J_MAX 36

/* 002's bead on the unit circle (x-y plane, centre 0) at rest at angle
   theta0 from the downward vertical, gravity 9.81 along -y. */
int exp_bead_build(double theta0, cdyn_system **out);

/* The hoop problem's system at angle theta0 on the hoop, at rest relative
   to it (1 kg, R = 1 m, omega = sqrt(2 g / R)). */
int exp_hoop_build(double theta0, cdyn_system **out);
#define EXP_HOOP_OMEGA 4.4294469180700204 /* sqrt(2 * 9.81) */

/* The companion run "poststab-pv": post-stabilisation with the velocity
   projection as well (001 projects positions only), for the experiments
   that report both readings (convergence, spinning-hoop). */
extern const exp_companion exp_poststab_pv_companions[];

extern const exp_problem exp_problem_pendulum, exp_problem_double, exp_problem_bead, exp_problem_hoop,
  exp_problem_pendulum_h, exp_problem_chain10;

#endif
