/*
 * arm5_runs.h: what arm5-improved and arm5-baumgarte share (arm5_runs.c):
 * the arm's common parameters, a run of it with its measures, and the
 * order study.
 */
#ifndef CDYN_ARM5_RUNS_H
#define CDYN_ARM5_RUNS_H

#include "runner/experiment.h"
#include "problems/problems.h"

/* The most step sizes of the order study. */
#define EXP_ARM5_MAX_LEVELS 16

typedef struct {
  exp_arm arm;
  double h_coarse, order_T;
  int levels;
} exp_arm5_params;

/* The columns both arm5 experiments write (the free end in every run's
   file, order.csv): entries of an exp_column table. */
#define EXP_ARM5_COLUMNS                                                                              \
  {NULL, "x_end", "m", "x of the free end of the arm"},                                               \
  {NULL, "y_end", "m", "y of the free end of the arm"},                                               \
  {"order", "completed", "1", "1 if the run reached order_T, else 0"},                                \
  {"order", "e_T", "m", "e_n at order_T"},                                                            \
  {"order", "pos_err", "m", "largest node distance from the reduced-coordinate reference at order_T"}

/* The parameters both experiments take, checked across each other. */
int exp_arm5_params_get(exp_ctx *ctx, exp_arm5_params *p);

/* What one run measured. */
typedef struct {
  int status;       /* CDYN_OK, or the status of the step that failed */
  long steps;       /* steps completed */
  int unstable;     /* a failed step, or one of the limits below exceeded */
  long fail_step;   /* the first step that broke a rule (steps + 1 if none) */
  double e_sum;     /* sum of e_n, n = 1 .. steps */
  double e_tail;    /* mean e_n over the last tenth of the steps */
  double e_end, e_max, E0, gain_max;
  double e_fail;    /* e_n after the step refused at e_lim (NaN if none) */
} exp_arm5_result;

/*
 * Run `run` (its options, then `ov`, NULL-terminated name/value pairs) on
 * arm `a` for `steps` steps of h.  `csv` (may be NULL) gets one row per
 * step; `traj` (may be NULL) 3n positions per step, steps + 1 rows.  The
 * run stops at a failed step and, when e_lim or gain_lim is finite, at the
 * first step that exceeds it; fail_step is that step.  Neither a failed
 * step nor one beyond e_lim (which the stepper's divergence guard refuses,
 * the state restored) is written: the last row is the last state within
 * the rules.  (A step beyond gain_lim, the runner's own rule, is.)  qend
 * (may be NULL) receives the final positions.  Returns non-zero only when the run cannot be set up or
 * written; a failed step is a measurement (r->status).
 */
int exp_arm5_run(exp_ctx *ctx, const exp_arm *a, const exp_runspec *run, const char *const *ov, double h, long steps,
            double e_lim, double gain_lim, exp_csv *csv, double *traj, exp_arm5_result *r, double *qend);

/* A run written to NAME.csv (RUN_COLUMNS). */
int exp_arm5_run_to_csv(exp_ctx *ctx, const exp_arm *a, const char *name, const exp_runspec *run, const char *const *ov,
               double h, long steps, double e_lim, double *traj, exp_arm5_result *r);

/*
 * Every scheme of the run at h = h_coarse 2^-k on the uniform 1 kg arm:
 * e_n and max_i |x_i - x_ref,i| at order_T.  Writes order.csv; fitted
 * slopes (over the levels whose run completed and whose error is above
 * 1e-10, where the reference's own error and rounding take over) go to
 * the report and to slope[s][0..1] (constraint, trajectory).
 */
int exp_arm5_order_study(exp_ctx *ctx, const exp_arm5_params *p, double slope[][2]);

/* What can be checked before anything is written. */
int exp_arm5_check(exp_ctx *ctx);

#endif
