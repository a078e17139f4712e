/*
 * stiff_pendulum.c: stiff-pendulum, 004's pendulum as a stiff spring against the
 * pendulum as a constraint, and 004's position-based dynamics with too few
 * iterations.
 *
 * Pendulum: one 1 kg particle on a sphere constraint |x| - L = 0 about a
 * fixed point (L = 1 m), gravity 9.81 m/s^2 along -y, released at rest
 * from horizontal, run for T = 10 s.  A penalty scheme (one whose options
 * include the stiffness `k`) turns the constraint into the spring
 * k (|x| - L) of 004, undamped as 004 writes it (the experiment's
 * `damping` parameter, default 0, sets the penalty schemes' damping
 * ratio); its oscillation along the spring has
 * omega^2 = k / m, and explicit integration of it is stable only for
 * h < 2 / omega = 2 sqrt(m/k) (symplectic Euler; explicit Euler is never
 * stable for an undamped oscillator and only survives a finite run).
 * For k = 1e3 .. 1e8 N/m the largest stable h of each penalty scheme is
 * found by the search and rules of problems/stable_search.c (e_n <= 0.1 L, no energy
 * gain above 10 % of m g L, no failed step, over 10 s); each constraint
 * scheme gets the same search once, since it has no k.
 *
 * spring.stiff_needs_small_h (thresholds fixed before measuring): the
 * least-squares slope of log h_max against log k for the symplectic-Euler
 * penalty scheme ("penalty") is -1/2 for h = O(sqrt(m/k)): holds if it is
 * in [-0.6, -0.4] and the implicit scheme's h_max is >= 10 x the spring's
 * at the stiffest k; partly if one of the two.
 *
 * PBD: a chain of 10 links of 0.1 m with 0.1 kg nodes hangs at rest from a
 * pin; PBD (and XPBD with compliance 0) runs for 5 s at h = 0.01 with
 * K = 1, 2, 5, 10, 20, 50, 100 Gauss-Seidel sweeps per step.  The stretch
 * is e_n / (total length), averaged over the last second.
 * pbd.soft_with_few_iterations: holds if the stretch with K = 1 is
 * >= 1e-2 (one per cent: visible) and the stretch does not increase with
 * K; partly if it is >= 1e-3 and does not increase.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runner/experiment.h"
#include "problems/problems.h"

static const exp_param params[] = {
  {"damping", "0", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX,
   "damping ratio of the penalty schemes' springs (004's spring has none)"},
  EXP_PARAMS_END};

/* Bottom of stability.c's step-size grid: an h_max of NaN means unstable
   at every grid point, so below this. */
#define GRID_BOTTOM (1e-3 * 0.10511205190671431) /* 1e-3 2^(-13/4) */

static const double G = 9.81;

static int pend_build(cdyn_system **out)
{
  cdyn_system *sys;
  int rc = cdyn_system_new(&sys, 1);
  if (rc)
    return rc;
  double g[3] = {0, -G, 0}, x[3] = {1, 0, 0}, par[4] = {0, 0, 0, 1}; /* centre, R */
  size_t p0 = 0;
  if (!(rc = cdyn_system_set_gravity(sys, g)) && !(rc = cdyn_system_set_position(sys, 0, x)))
    rc = cdyn_system_add_constraint_named(sys, "sphere", &p0, par, NULL);
  if (rc) {
    cdyn_system_free(sys);
    return rc;
  }
  *out = sys;
  return CDYN_OK;
}

static const exp_problem spring_pendulum = {
  .name = "sphere-pendulum",
  .description = "1 kg on |x| = 1 m, from horizontal",
  .n = 1,
  .T = 10.0,
  .energy_scale = 9.81,
  .energy_range = 9.81,
  .length = 1.0,
  .build = pend_build,
  .reference = NULL,
};

#define NK 6
#define NITER 7

static int chain_build(const void *unused, cdyn_system **out)
{
  (void)unused;
  cdyn_system *sys;
  int rc = cdyn_system_new(&sys, 11);
  if (rc)
    return rc;
  double g[3] = {0, -G, 0}, o[3] = {0, 0, 0};
  rc = cdyn_system_set_gravity(sys, g);
  for (size_t i = 0; i <= 10 && !rc; i++) {
    double x[3] = {0, -0.1 * (double)i, 0};
    if (!(rc = cdyn_system_set_position(sys, i, x)))
      rc = cdyn_system_set_mass(sys, i, 0.1);
  }
  if (!rc)
    rc = cdyn_system_add_pin(sys, 0, o, NULL);
  for (size_t i = 0; i < 10 && !rc; i++)
    rc = cdyn_system_add_distance(sys, i, i + 1, 0.1, NULL);
  if (rc) {
    cdyn_system_free(sys);
    return rc;
  }
  *out = sys;
  return CDYN_OK;
}

/* Mean stretch e_n / L_total over the last second of 5 s at h = 0.01. */
typedef struct {
  long N, W;
  double stretch;
} stretch_obs;

static int observe_stretch(void *ov, const exp_state *s)
{
  stretch_obs *o = ov;
  if (s->k > o->N - o->W)
    o->stretch += s->e / 1.0 / (double)o->W;
  return 0;
}

static int chain_stretch(exp_ctx *ctx, const exp_runspec *run, const char *const *extra, double *stretch, int *status)
{
  stretch_obs o = {500, 100, 0};
  exp_outcome out;
  int rc = exp_run(ctx, run, extra, chain_build, NULL, 0.01, o.N, NULL, observe_stretch, &o, &out, NULL, NULL);
  if (rc)
    return rc;
  *status = CDYN_OK;
  *stretch = o.stretch;
  if (out.end == EXP_END_FAILED_STEP || out.end == EXP_END_NONFINITE || out.end == EXP_END_DIVERGED) {
    *status = out.status;
    *stretch = NAN;
  }
  return CDYN_OK;
}

static int run(exp_ctx *ctx)
{
  static const double ks[NK] = {1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
  static const int iters[NITER] = {1, 2, 5, 10, 20, 50, 100};
  int rc;
  double damping;
  exp_param_double(ctx, "damping", &damping);
  char damp[32];
  snprintf(damp, sizeof damp, "%.17g", damping);
  exp_csv plog, hcsv, ccsv, pcsv;
  if ((rc = exp_csv_open(ctx, &plog, "stiff-probes", "scheme,problem,h,stable,status,steps,e_max,energy_gain,noconv",
                         NULL, "\"note\": \"every probe of the stability searches\"")))
    return rc;
  if ((rc = exp_csv_open(ctx, &hcsv, "stiff-spring", "scheme,k,h_max,h_fail,h_limit", NULL,
                         "\"note\": \"penalty schemes: largest stable h against k; h_limit = 2 sqrt(m/k)\""))) {
    exp_csv_close(&plog, 0);
    return rc;
  }
  if ((rc = exp_csv_open(ctx, &ccsv, "stiff-constraint", "scheme,h_max,h_fail", NULL,
                         "\"note\": \"constraint schemes (no k): largest stable h on the same pendulum\""))) {
    exp_csv_close(&plog, 0);
    exp_csv_close(&hcsv, 0);
    return rc;
  }
  static double hmax[EXP_MAX_RUNS][NK], hcon[EXP_MAX_RUNS];
  static int penalty[EXP_MAX_RUNS];
  for (int s = 0; s < ctx->nruns && !rc; s++) {
    const exp_runspec *run = &ctx->runs[s];
    const char *sc = run->name;
    penalty[s] = exp_scheme_has_option(run->scheme, "k"); /* a penalty scheme has k */
    if (penalty[s]) {
      for (int j = 0; j < NK && !rc; j++) {
        char kbuf[32];
        snprintf(kbuf, sizeof kbuf, "%.17g", ks[j]);
        const char *const ov[] = {"k", kbuf, "damping", damp, NULL};
        double hu;
        rc = exp_largest_stable_h(ctx, &spring_pendulum, run, ov, 0.1, 0.1, &plog, &hmax[s][j], &hu);
        if (!rc) {
          double row[4] = {ks[j], hmax[s][j], hu, 2 * sqrt(1.0 / ks[j])};
          rc = exp_csv_row_labeled(&hcsv, sc, row, 4);
          printf("  %-16s k = %-8g largest stable h %-10.4g (2 sqrt(m/k) = %.4g)\n", sc, ks[j], hmax[s][j],
                 2 * sqrt(1.0 / ks[j]));
        }
      }
    } else {
      double hu;
      rc = exp_largest_stable_h(ctx, &spring_pendulum, run, NULL, 0.1, 0.1, &plog, &hcon[s], &hu);
      if (!rc) {
        double row[2] = {hcon[s], hu};
        rc = exp_csv_row_labeled(&ccsv, sc, row, 2);
        printf("  %-16s (constraint) largest stable h %.4g\n", sc, hcon[s]);
      }
    }
    exp_progress(ctx, "stiff-pendulum", s + 1, ctx->nruns);
  }
  int c1 = exp_csv_close(&plog, rc == CDYN_OK), c2 = exp_csv_close(&hcsv, rc == CDYN_OK),
      c3 = exp_csv_close(&ccsv, rc == CDYN_OK);
  if (rc || (rc = c1) || (rc = c2) || (rc = c3))
    return rc;

  /* PBD stretch against the number of sweeps. */
  static const char *const pbd_schemes[] = {"pbd", "xpbd"};
  double stretch[2][NITER];
  if ((rc = exp_csv_open(ctx, &pcsv, "pbd-stretch", "scheme,iterations,stretch,status", NULL,
                         "\"run\": {\"h\": 0.01, \"steps\": 500}, "
                         "\"note\": \"hanging 10-link chain, h = 0.01, mean e_n / length over the last of 5 s\"")))
    return rc;
  int have_pbd = 0;
  /* The study is part of the experiment whatever schemes run: pbd and
     xpbd with their --set options when they are runs, else their
     defaults. */
  for (int s = 0; s < 2 && !rc; s++) {
    size_t idx;
    if (cdyn_scheme_find(pbd_schemes[s], &idx)) {
      cdyn_error_clear();
      continue;
    }
    if (s == 0)
      have_pbd = 1;
    const exp_runspec run = exp_run_or_plain(ctx, pbd_schemes[s]);
    for (int j = 0; j < NITER && !rc; j++) {
      char kb[16];
      snprintf(kb, sizeof kb, "%d", iters[j]);
      const char *const ov[] = {"iterations", kb, NULL};
      int status;
      rc = chain_stretch(ctx, &run, ov, &stretch[s][j], &status);
      if (!rc) {
        double row[3] = {(double)iters[j], stretch[s][j], (double)status};
        rc = exp_csv_row_labeled(&pcsv, pbd_schemes[s], row, 3);
        printf("  %-6s K = %-4d stretch %.4e\n", pbd_schemes[s], iters[j], stretch[s][j]);
      }
    }
  }
  c1 = exp_csv_close(&pcsv, rc == CDYN_OK);
  if (rc || (rc = c1))
    return rc;

  /* Report and claims. */
  exp_report(ctx, "Largest stable h on the pendulum (1 kg, 1 m, from horizontal, 10 s):\n\n| scheme |");
  for (int j = 0; j < NK; j++)
    exp_report(ctx, " k = %g |", ks[j]);
  exp_report(ctx, "\n|---|---|---|---|---|---|---|\n| 2 sqrt(m/k) |");
  for (int j = 0; j < NK; j++)
    exp_report(ctx, " %.3g |", 2 * sqrt(1.0 / ks[j]));
  exp_report(ctx, "\n");
  for (int s = 0; s < ctx->nruns; s++) {
    exp_report(ctx, "| %s |", ctx->runs[s].name);
    for (int j = 0; j < NK; j++) {
      char v[48], below[48];
      snprintf(below, sizeof below, "< %.3g", GRID_BOTTOM);
      exp_report(ctx, " %s |", exp_num(v, sizeof v, "%.3g", penalty[s] ? hmax[s][j] : hcon[s], below));
    }
    exp_report(ctx, "\n");
  }
  exp_report(ctx, "\n\"< %.3g\": unstable at every step size of the grid, down to its bottom.\n", GRID_BOTTOM);
  if (have_pbd) {
    exp_report(ctx, "\nStretch of a hanging 10-link chain (e_n / length) against sweeps per step:\n\n| K |");
    for (int j = 0; j < NITER; j++)
      exp_report(ctx, " %d |", iters[j]);
    exp_report(ctx, "\n|---|---|---|---|---|---|---|---|\n| pbd |");
    for (int j = 0; j < NITER; j++)
      exp_report(ctx, " %.2e |", stretch[0][j]);
    exp_report(ctx, "\n");
  }
  exp_report(ctx, "\n");
  int ip = exp_run_index(ctx, "penalty"), ii = exp_run_index(ctx, "implicit");
  if (exp_claim_ready(ctx, "spring.stiff_needs_small_h") && penalty[ip]) {
    int ok[NK], used;
    for (int j = 0; j < NK; j++)
      ok[j] = !isnan(hmax[ip][j]);
    double slope = exp_fit_slope(ks, hmax[ip], ok, NK, &used);
    /* Unstable on the whole grid: its h_max is below the grid's bottom. */
    double hs_stiff = isnan(hmax[ip][NK - 1]) ? GRID_BOTTOM : hmax[ip][NK - 1];
    double ratio = hcon[ii] / hs_stiff;
    char below[64], lo[64], hi[64];
    snprintf(below, sizeof below, "none (unstable down to h = %.3g)", GRID_BOTTOM);
    rc = exp_judge(ctx, "spring.stiff_needs_small_h", (exp_value[]){{"slope", slope}, {"constraint_margin", ratio}}, 2,
                   "spring damping ratio %g; h_max sqrt(k/m) = %s at k = 1e3 and %s at k = 1e8 (2 for the "
                   "undamped linear oscillator); implicit's h_max %.3g is %s%.3g x the spring's at k = 1e8",
                   damping, exp_num(lo, sizeof lo, "%.3g", hmax[ip][0] * sqrt(ks[0]), below),
                   exp_num(hi, sizeof hi, "%.3g", hmax[ip][NK - 1] * sqrt(ks[NK - 1]), below), hcon[ii],
                   isnan(hmax[ip][NK - 1]) ? "more than " : "", ratio);
  }
  if (!rc && have_pbd && exp_claim_ready(ctx, "pbd.soft_with_few_iterations")) {
    int increases = 0;
    for (int j = 1; j < NITER; j++)
      if (!(stretch[0][j] <= stretch[0][j - 1]))
        increases++;
    double s1 = stretch[0][0];
    rc = exp_judge(ctx, "pbd.soft_with_few_iterations", (exp_value[]){{"increases", increases}, {"stretch", s1}}, 2,
                   "stretch with K = 1, 10, 100: %.3g, %.3g, %.3g%s", s1, stretch[0][3], stretch[0][6],
                   increases ? "; the stretch is not monotone in K" : "");
  }
  return rc;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {"stiff-spring", "k", "N/m", "stiffness of the penalty spring"},
  {"stiff-spring", "h_limit", "s", "2 sqrt(m/k), the linear stability limit"},
  {"pbd-stretch", "iterations", "1", "Gauss-Seidel sweeps per step"},
  {"pbd-stretch", "stretch", "1", "mean e_n / length over the last second"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_stiff_pendulum = {
  .name = "stiff-pendulum",
  .description = "pendulum as a stiff spring vs as a constraint; PBD stretch against iterations",
  .source = "004",
  .params = params,
  .columns = columns,
  .schemes = "all",
  .h = 0,
  .steps = 0,
  .run = run,
};
