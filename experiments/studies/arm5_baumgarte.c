/*
 * arm5_baumgarte.c: arm5-baumgarte, the falling 5-link robot arm of 000
 * (figure 4); the arm, its runs and the order study: problems/arm5_runs.c.
 *
 * arm5-baumgarte (000 fig 4): explicit Baumgarte (alpha = beta = 2 unless
 * set) against implicit on the same arm, and a sweep of alpha and beta
 * over {0, 2^-2, ..., 2^8}: the mean e_n over the last tenth of the run
 * (the error after a fixed time, averaged over the oscillation of the
 * feedback), with the runs that break the stability rules (problems/stable_search.c) marked
 * unstable: a failed step, e_n above `err_frac` of the arm's length, or an
 * energy gain above `energy_frac` of the energy gravity can release.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"
#include "nlink.h"
#include "problems/problems.h"
#include "problems/arm5_runs.h"

#define POS EXP_OPEN_MIN | EXP_OPEN_MAX /* (0, inf) */

static const exp_param params_baumgarte[] = {
  {"links", "5", EXP_INT, 1, EXP_ARM_MAX, 0, "number of links"},
  {"length", "1", EXP_REAL, 0, INFINITY, POS, "length of every link (m)"},
  {"g", "9.81", EXP_REAL, 0, INFINITY, POS, "gravity (m/s^2), along -y"},
  {"mass", "1", EXP_REAL, 0, INFINITY, POS, "mass of every node (kg)"},
  {"alpha", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "Baumgarte damping alpha of the main run (critically damped with beta)"},
  {"beta", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "Baumgarte stiffness beta of the main run"},
  {"err_frac", "0.1", EXP_REAL, 0, INFINITY, POS, "sweep: unstable when e_n exceeds this fraction of the arm's length"},
  {"energy_frac", "0.1", EXP_REAL, 0, INFINITY, POS,
   "sweep: unstable when the energy gains this fraction of the releasable energy"},
  {"h_coarse", "0.1", EXP_REAL, 0, INFINITY, POS, "order study: the coarsest h"},
  {"order_T", "1", EXP_REAL, 0, INFINITY, POS, "order study: time at which errors are measured (s)"},
  {"order_levels", "8", EXP_INT, 2, EXP_ARM5_MAX_LEVELS, 0, "order study: number of step sizes h_coarse 2^-k"},
  EXP_PARAMS_END};

/* ---- arm5-baumgarte ------------------------------------------------------------------------ */

/* The sweep's alpha and beta values: 0, then 2^-2 .. 2^8. */
#define NSWEEP 12
static double sweep_value(int k) { return k == 0 ? 0.0 : ldexp(1.0, k - 3); }

static int run_baumgarte(exp_ctx *ctx)
{
  exp_arm5_params p;
  double err_frac, energy_frac;
  int rc = exp_arm5_params_get(ctx, &p);
  if (rc)
    return rc;
  exp_param_double(ctx, "mass", &p.arm.mass);
  exp_param_double(ctx, "err_frac", &err_frac);
  exp_param_double(ctx, "energy_frac", &energy_frac);
  const exp_runspec bg = exp_run_or_plain(ctx, "baumgarte");
  /* Main runs: every scheme with its options (alpha, beta from the parameters). */
  static exp_arm5_result main_run[EXP_MAX_RUNS];
  for (int s = 0; s < ctx->nruns && !rc; s++) {
    rc = exp_arm5_run_to_csv(ctx, &p.arm, ctx->runs[s].name, &ctx->runs[s], NULL, ctx->h, ctx->steps, INFINITY, NULL,
                    &main_run[s]);
    if (!rc)
      printf("  %-12s h = %g steps = %ld mean e_n = %.3e\n", ctx->runs[s].name, ctx->h, ctx->steps,
             main_run[s].e_sum / (double)ctx->steps);
  }
  if (rc)
    return rc;
  /* The sweep: Baumgarte at every (alpha, beta), limits of problems/stable_search.c. */
  double length = (double)p.arm.links * p.arm.length;
  double nl = (double)p.arm.links;
  /* Energy gravity can release from horizontal: sum over nodes of m g (drop
     when hanging) = m g L n(n+1)/2 for uniform masses. */
  double releasable = p.arm.mass * p.arm.g * p.arm.length * nl * (nl + 1) / 2;
  exp_csv sw;
  char extra[512];
  snprintf(extra, sizeof extra,
           "\"sweep\": {\"values\": \"0, 2^-2 .. 2^8\", \"e_limit\": %.17g, \"gain_limit\": %.17g, \"note\": "
           "\"e_tail: mean e_n over the last tenth of the run; stable 0 marks a failed step or a limit exceeded "
           "(fail_step); e_fail: e_n after the step that exceeded e_limit, refused by the divergence guard\"}",
           err_frac * length, energy_frac * releasable);
  if ((rc = exp_csv_open(ctx, &sw, "sweep", "ia,ib,alpha,beta,stable,fail_step,e_tail,e_mean,e_max,gain_max,e_fail", NULL,
                         extra)))
    return rc;
  static double etail[NSWEEP][NSWEEP];
  static int stable[NSWEEP][NSWEEP];
  for (int ia = 0; ia < NSWEEP && !rc; ia++)
    for (int ib = 0; ib < NSWEEP && !rc; ib++) {
      char as[32], bs[32];
      snprintf(as, sizeof as, "%.17g", sweep_value(ia));
      snprintf(bs, sizeof bs, "%.17g", sweep_value(ib));
      const char *ov[] = {"alpha", as, "beta", bs, NULL};
      exp_arm5_result r;
      if ((rc = exp_arm5_run(ctx, &p.arm, &bg, ov, ctx->h, ctx->steps, err_frac * length, energy_frac * releasable, NULL,
                        NULL, &r, NULL)))
        break;
      stable[ia][ib] = !r.unstable;
      etail[ia][ib] = r.unstable ? NAN : r.e_tail;
      double row[11] = {(double)ia, (double)ib, sweep_value(ia), sweep_value(ib), (double)stable[ia][ib],
                        (double)r.fail_step, etail[ia][ib], r.unstable ? NAN : r.e_sum / (double)ctx->steps,
                        r.e_max, r.gain_max, r.e_fail};
      rc = exp_csv_row(&sw, row, 11);
    }
  {
    int crc = exp_csv_close(&sw, rc == CDYN_OK);
    if (rc || (rc = crc))
      return rc;
  }
  int nst = 0, nbeat = 0, ii = exp_run_index(ctx, "implicit"), ib = exp_run_index(ctx, "baumgarte");
  double emin = INFINITY, emax = 0, amin = NAN, bmin = NAN;
  for (int a = 0; a < NSWEEP; a++)
    for (int b = 0; b < NSWEEP; b++)
      if (stable[a][b]) {
        nst++;
        if (etail[a][b] < emin) {
          emin = etail[a][b];
          amin = sweep_value(a);
          bmin = sweep_value(b);
        }
        emax = fmax(emax, etail[a][b]);
        if (ii >= 0 && main_run[ii].e_tail < etail[a][b])
          nbeat++;
      }
  exp_report(ctx,
             "Mean e_n over %ld steps of h = %g:\n\n| scheme | mean e_n | mean e_n over the last tenth |\n|---|---|---|\n",
             ctx->steps, ctx->h);
  for (int s = 0; s < ctx->nruns; s++)
    exp_report(ctx, "| %s | %.3e | %.3e |\n", ctx->runs[s].name, main_run[s].e_sum / (double)ctx->steps,
               main_run[s].e_tail);
  exp_report(ctx,
             "\nBaumgarte's alpha-beta sweep (%d x %d values, 0 and 2^-2 .. 2^8): %d stable; among them the mean "
             "e_n over the last tenth ranges from %.3g (alpha = %g, beta = %g) to %.3g.\n\n",
             NSWEEP, NSWEEP, nst, emin, amin, bmin, emax);
  static double slope[EXP_MAX_RUNS][2];
  if ((rc = exp_arm5_order_study(ctx, &p, slope)))
    return rc;
  if (exp_claim_ready(ctx, "arm5.implicit_beats_baumgarte")) {
    /* A main run that stopped early has no mean over the run: infinite. */
    double mi = main_run[ii].steps == ctx->steps ? main_run[ii].e_sum / (double)ctx->steps : INFINITY,
           mb = main_run[ib].steps == ctx->steps ? main_run[ib].e_sum / (double)ctx->steps : INFINITY;
    double ratio = mi / mb, spread = nst >= 2 ? emax / emin : NAN;
    return exp_judge(ctx, "arm5.implicit_beats_baumgarte", (exp_value[]){{"ratio", ratio}, {"spread", spread}}, 2,
                     "Baumgarte's alpha = %s, beta = %s; mean e_n implicit %.3g, Baumgarte %.3g at h = %g; sweep: %d of "
                     "%d (alpha, beta) stable, error after %g s from %.3g to %.3g (ratio %.3g), implicit's (%.3g) "
                     "below Baumgarte's at %d of the %d stable points",
                     exp_param_string(ctx, "alpha"), exp_param_string(ctx, "beta"), mi, mb, ctx->h, nst,
                     NSWEEP * NSWEEP, (double)ctx->steps * ctx->h, emin, emax, emax / emin, main_run[ii].e_tail,
                     nbeat, nst);
  }
  return CDYN_OK;
}

static int check_baumgarte(exp_ctx *ctx)
{
  int rc = exp_arm5_check(ctx);
  if (!rc && ctx->steps < 10)
    return cdyn_error(CDYN_EINVAL, "--steps %ld: at least 10 (the sweep averages over the last tenth)", ctx->steps);
  return rc;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  EXP_ARM5_COLUMNS,
  {"sweep", "ia", "1", "index of alpha in the sweep (0: 0, k: 2^(k-3))"},
  {"sweep", "ib", "1", "index of beta in the sweep"},
  {"sweep", "alpha", "1/s", "Baumgarte's alpha"},
  {"sweep", "beta", "1/s", "Baumgarte's beta"},
  {"sweep", "fail_step", "1", "step that broke a stability rule (steps + 1 if none)"},
  {"sweep", "e_tail", "m", "mean e_n over the last tenth of the run (nan if unstable)"},
  {"sweep", "e_mean", "m", "mean e_n over the run (nan if unstable)"},
  {"sweep", "gain_max", "J", "largest E - E(0) of the run"},
  {"sweep", "e_fail", "m",
   "e_n after the step that exceeded the limit, refused by the divergence guard (nan if none)"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_arm5_baumgarte = {
  .name = "arm5-baumgarte",
  .description = "5-link arm: explicit Baumgarte vs implicit, an alpha-beta sweep, and the order study",
  .source = "000 fig 4",
  .params = params_baumgarte,
  .columns = columns,
  .check = check_baumgarte,
  .schemes = "baumgarte,implicit",
  .h = 0.01,
  .steps = 1000,
  .run = run_baumgarte,
};
