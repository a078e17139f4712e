/*
 * stable_search.c: the largest stable step size of a scheme on a problem
 * (problems.h), which stability, stiff-pendulum and chain-scale-stability
 * share.
 *
 * A run at step size h is stable when, over the whole of T, the chosen
 * rules (fixed before any measurement) hold:
 *   - every step succeeds (no failed or non-finite step, no CDYN_NOCONV:
 *     a scheme that could not solve its own equations did not step);
 *   - the constraint error stays bounded: e_n <= err_frac x the total
 *     length of the links (0.1 in stability: a link off by 10 % is no
 *     longer that mechanism);
 *   - the scheme does not create energy: E - E(0) <= energy_frac x the
 *     energy gravity can release (E(0) - min E), since the exact motion
 *     keeps E constant and dissipation is allowed.
 * Step sizes form the geometric grid h_j = 1e-3 2^(j/4) (steps of 19 %),
 * j from -13 (1.2e-4) to 36 (0.5).  The search starts at 1e-3 (or at
 * another point of the grid), goes down until a stable h is found (or the
 * grid ends: "below 1.2e-4"), then up until the first unstable h.  The
 * largest stable h reported is the last stable one before that first
 * failure: a scheme that would be stable again at some larger h is not
 * credited with it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runner/experiment.h"
#include "problems/problems.h"

#define J_MIN EXP_STABLE_J_MIN
#define J_MAX EXP_STABLE_J_MAX

double exp_stable_grid_h(int j) { return 1e-3 * pow(2.0, j / 4.0); }
static double grid_h(int j) { return exp_stable_grid_h(j); }

/* The state of one search of a problem of problems.h. */
typedef struct {
  exp_ctx *ctx;
  const exp_problem *p;
  const exp_runspec *run;
  const char *const *extra;
  double err_frac, energy_frac;
  exp_csv *log;
} problem_probe;

/* One probe: run to p->T at h and judge it. */
static int probe(void *pctx, double h, int *stable)
{
  problem_probe *pp = pctx;
  const exp_problem *p = pp->p;
  long N = (long)ceil(p->T / h - 1e-9);
  exp_problem_result r;
  double emax_stop = pp->err_frac * p->length, dE_stop = pp->energy_frac * p->energy_range;
  int rc = exp_problem_run(pp->ctx, p, pp->run, pp->extra, h, N, emax_stop, dE_stop, &r, NULL, NULL);
  if (rc)
    return rc;
  *stable = r.status == CDYN_OK && !r.stopped && r.noconv == 0 && r.steps == N;
  if (pp->log) {
    const char *labels[2] = {pp->run->name, p->name};
    double row[7] = {h, (double)*stable, (double)r.status, (double)r.steps, r.emax, r.Eend - r.E0,
                     (double)r.noconv};
    rc = exp_csv_row_labels(pp->log, labels, 2, row, 7);
  }
  return rc;
}

int exp_stable_search(exp_stable_probe probe_h, void *pctx, int j_start, double *h_stable, double *h_unstable)
{
  int j = j_start < J_MIN ? J_MIN : j_start > J_MAX ? J_MAX : j_start, stable, rc;
  if ((rc = probe_h(pctx, grid_h(j), &stable)))
    return rc;
  int went_down = 0;
  while (!stable && j > J_MIN) {
    j--;
    went_down = 1;
    if ((rc = probe_h(pctx, grid_h(j), &stable)))
      return rc;
  }
  if (!stable) {
    *h_stable = NAN; /* below the grid */
    *h_unstable = grid_h(j);
    return CDYN_OK;
  }
  /* Going down ended at the first stable h; going up, the first failure. */
  if (went_down) {
    *h_stable = grid_h(j);
    *h_unstable = grid_h(j + 1);
    return CDYN_OK;
  }
  while (j < J_MAX) {
    if ((rc = probe_h(pctx, grid_h(j + 1), &stable)))
      return rc;
    if (!stable)
      break;
    j++;
  }
  *h_stable = grid_h(j);
  *h_unstable = j < J_MAX ? grid_h(j + 1) : NAN;
  return CDYN_OK;
}

int exp_largest_stable_h(exp_ctx *ctx, const exp_problem *p, const exp_runspec *run, const char *const *extra,
                         double err_frac, double energy_frac, exp_csv *log, double *h_stable,
                         double *h_unstable)
{
  problem_probe pp = {ctx, p, run, extra, err_frac, energy_frac, log};
  return exp_stable_search(probe, &pp, 0, h_stable, h_unstable);
}
