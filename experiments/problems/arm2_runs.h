/*
 * arm2_runs.h: what arm2-drift and arm2-trajectory share (arm2_runs.c):
 * the arm's parameters, and a run of it writing every node, with its
 * deviation from the reduced-coordinate reference when there is one.
 */
#ifndef CDYN_ARM2_RUNS_H
#define CDYN_ARM2_RUNS_H

#include "runner/experiment.h"
#include "nlink.h"
#include "problems/problems.h"

/* The arm's parameters, which both experiments take; arm2-trajectory
   also the tolerance of its tracking (arm2-drift has no reference to
   track, so `cdyn run arm2-drift --help` does not list it). */
#define EXP_ARM2_PARAMS                                                                                              \
  {"links", "2", EXP_INT, 1, EXP_ARM_MAX, 0, "number of links"},                                                     \
  {"mass", "1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "mass of every node (kg)"},                      \
  {"length", "1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "length of every link (m)"},                   \
  {"g", "9.81", EXP_REAL, -INFINITY, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "gravity (m/s^2), along -y"},            \
  {"alpha", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "Baumgarte damping alpha (critically damped with beta)"},      \
  {"beta", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "Baumgarte stiffness beta"}

typedef struct {
  size_t links;
  double mass, length, g, tol;
} exp_arm2_params;

/* The arm's parameters of the run (track_tol: arm2-trajectory's alone). */
int exp_arm2_params_get(exp_ctx *ctx, exp_arm2_params *p);

/* What a run reports back for the claims. */
typedef struct {
  double *e;      /* e_n, steps + 1 values */
  long steps;
  double t_track; /* first time |y_last - y_ref| > tol (the run's end if never) */
  int tracked_all;
  double E_end;   /* total energy at the last step */
  exp_outcome out;
} exp_arm2_result;

/*
 * Run `run` for `steps` steps of `h`, writing NAME.csv.  With `ref`, y of
 * the last node is compared with the reference.  e_n of the steps a
 * failed run did not reach is NaN.
 */
int exp_arm2_run(exp_ctx *ctx, const exp_arm2_params *p, const char *name, const exp_runspec *run, double h, long steps,
            cdyn_ref_nlink *ref, exp_arm2_result *res);

/* The largest of x[from .. to - 1], and 0. */
double exp_arm2_maxval(const double *x, long from, long to);

#endif
