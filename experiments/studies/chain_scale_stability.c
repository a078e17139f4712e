/*
 * chain_scale_stability.c: chain-scale-stability, the stability of every scheme on a
 * long hanging chain, mapped in the number of links N against the step
 * size h.
 *
 * Problem: N links of length l = 5 cm, N nodes of 1 kg below a pinned
 * node 0 at the origin, hanging straight down (node k at (0, -k l, 0)) at
 * rest, every free node then kicked sideways by v = 5 cm/s along +x (the
 * kick is perpendicular to every link, so the start satisfies the
 * constraints and their velocity form exactly).  Gravity 9.81 m/s^2 along
 * -y.  The pin is a pin constraint, each link a distance constraint.
 *
 * Why long chains are hard.  The tension of link k (counted from the top)
 * at rest is T_k = (N - k) m g, so the top of the chain is a string under
 * tension up to N m g.  A string of point masses m at spacing l under
 * tension T has transverse modes up to omega = 2 sqrt(T / (m l)); the
 * estimate used here is omega_N = sqrt(N g / l) (108 rad/s at N = 60), the
 * scale of the chain's fastest transverse modes.  An explicit treatment of
 * that stiffness is stable only for h omega below a constant of order 1:
 * the constraint schemes treat the constraint force implicitly along the
 * link but its change of direction (the geometric stiffness
 * lambda Hess(c)) explicitly, or (newton, shake, rattle) iterate on a
 * matrix that leaves it out.  So the boundary is expected at
 * h_max = c / omega_N, h_max proportional to N^(-1/2), and this
 * experiment measures c per scheme: h_max omega_N, and the least-squares
 * slope of log h_max against log N.
 *
 * Rules of stability (fixed before measuring), for a run of T = 10 s:
 *   - every step succeeds, none returns CDYN_NOCONV;
 *   - the stretch, max over links of ||x_i - x_j| - l| / l, stays at or
 *     below stretch_frac = 0.1 (a link 10 % off its length);
 *   - E - E(0) stays at or below energy_frac = 0.1 of N m g (N l), the
 *     scale of the chain's potential energy.
 * A probe ends at the first step that breaks a rule (the observer ends it
 * at a CDYN_NOCONV), so an unstable probe's steps end with that step.
 * The step sizes are problems/stable_search.c's grid h_j = 1e-3 2^(j/4) (steps of
 * 19 %), and so is the search (exp_stable_search), started at j = 16
 * (h = 0.016, near the 1/60 of the probe that found the problem): down
 * until stable, then up until the first unstable h.  A growth so slow
 * that it stays within the rules for 10 s counts as stable: the map is of
 * stability over T, like the papers' runs.
 *
 * N doubles from links_min up to links_max, and links_max itself ends
 * the list (5, 10, ..., 640, 1000 by default).
 *
 * Companion: implicit-gs, 001's implicit step with the lumped diagonal
 * geometric stiffness of Andrews, Teichmann and Kry (implicit's option
 * geometric_stiffness = diagonal): how much of the h omega = 1 wall it
 * removes.  The schemes implicit in the constraint geometry
 * (backward-euler, bdf2) are among "all".
 *
 * Claim implicit.no_step_limit (000 sec 2, 001 sec III): judged from
 * implicit's and Baumgarte's largest stable h at every N.
 *
 * Outputs:
 *   chain-scale-probes.csv  every probe: scheme, links, h, stable, status,
 *                           steps, stretch_max, energy_gain, noconv
 *   chain-scale-map.csv     scheme, links, h_max, h_fail, omega, h_max_omega
 *   chain-scale-energy.csv  scheme, links, h, energy_lost_per_s: every run
 *                           stable at h = 0.016, 0.032, .., 0.512 (the
 *                           search's probes going up), (E(0) - E(T)) / T
 *   the report: h_max per scheme and N, h_max omega_N, the slope, and the
 *   energy lost per second by the runs stable at large steps.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"
#include "problems/problems.h"
#include "reference/chain_be.h"

#define MAX_SIZES 16
#define J_START 16

static const exp_param params[] = {
  {"links_min", "5", EXP_INT, 1, 1e6, 0, "fewest links; N doubles from it up to links_max"},
  {"links_max", "1000", EXP_INT, 1, 1e6, 0, "most links (run as well when the doubling does not reach it)"},
  {"length", "0.05", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "length of every link (m)"},
  {"mass", "1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "mass of every node (kg)"},
  {"g", "9.81", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "gravity (m/s^2), along -y"},
  {"kick", "0.05", EXP_REAL, -INFINITY, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX,
   "sideways (+x) speed given to every free node at the start (m/s)"},
  {"T", "10", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "length of each run (s)"},
  {"stretch_frac", "0.1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX,
   "unstable when a link's relative stretch exceeds this"},
  {"energy_frac", "0.1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX,
   "unstable when E - E(0) exceeds this fraction of N m g (N l)"},
  EXP_PARAMS_END};

typedef struct {
  long links;
  double length, mass, g, kick;
} chain_spec;

static int chain_build(const void *bctx, cdyn_system **out)
{
  const chain_spec *c = bctx;
  size_t n = (size_t)c->links + 1;
  cdyn_system *sys;
  int rc = cdyn_system_new(&sys, n);
  if (rc)
    return rc;
  double g[3] = {0, -c->g, 0}, o[3] = {0, 0, 0}, v[3] = {c->kick, 0, 0};
  rc = cdyn_system_set_gravity(sys, g);
  for (size_t i = 0; i < n && !rc; i++) {
    double x[3] = {0, -(double)i * c->length, 0};
    if (!(rc = cdyn_system_set_position(sys, i, x)) && !(rc = cdyn_system_set_mass(sys, i, c->mass)) && i > 0)
      rc = cdyn_system_set_velocity(sys, i, v);
  }
  if (!rc)
    rc = cdyn_system_add_pin(sys, 0, o, NULL);
  for (size_t i = 0; i + 1 < n && !rc; i++)
    rc = cdyn_system_add_distance(sys, i, i + 1, c->length, NULL);
  if (rc) {
    cdyn_system_free(sys);
    return rc;
  }
  *out = sys;
  return CDYN_OK;
}

/* The observer: the largest relative stretch, ending the run above the
   limit or at a step that returned CDYN_NOCONV. */
typedef struct {
  const chain_spec *c;
  double limit, max;
} stretch_obs;

static int observe(void *octx, const exp_state *s)
{
  stretch_obs *o = octx;
  const double *q = cdyn_system_positions(s->sys);
  double worst = 0;
  for (long i = 0; i < o->c->links; i++) {
    const double *a = q + 3 * i, *b = a + 3;
    double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    double r = fabs(d - o->c->length) / o->c->length;
    if (!(r <= worst)) /* NaN wins */
      worst = r;
  }
  if (!(worst <= o->max))
    o->max = worst;
  /* A step that returned CDYN_NOCONV already makes the probe unstable:
     the probe ends there, as at a stretch past the limit. */
  return worst <= o->limit && s->status != CDYN_NOCONV ? 0 : 1;
}

/* The step sizes of the energy table: grid points j = 16, 20, .., 36,
   h = 0.016 .. 0.512 (doubling). */
#define NE 6
#define E_J0 J_START

typedef struct {
  exp_ctx *ctx;
  const exp_runspec *run;
  chain_spec c;
  double T, stretch_frac, gain_max;
  exp_csv *log;
  double *lost; /* NE: energy lost per second at the stable probes of the table's h (else NaN) */
} chain_probe;

/* A stable probe at one of the energy table's step sizes records (E(0) - E(T)) / T. */
static void record_energy(chain_probe *p, double h, int stable, double gain)
{
  int j = (int)lround(4 * log2(h / 1e-3));
  if (stable && p->lost && j >= E_J0 && (j - E_J0) % 4 == 0 && (j - E_J0) / 4 < NE &&
      fabs(h - 1e-3 * pow(2.0, j / 4.0)) <= 1e-12 * h)
    p->lost[(j - E_J0) / 4] = -gain / p->T;
}

static int probe(void *pctx, double h, int *stable)
{
  chain_probe *p = pctx;
  long steps = (long)ceil(p->T / h - 1e-9);
  stretch_obs o = {&p->c, p->stretch_frac, 0};
  exp_limits lim = {INFINITY, p->gain_max, 0};
  exp_outcome out;
  int rc = exp_run(p->ctx, p->run, NULL, chain_build, &p->c, h, steps, &lim, observe, &o, &out, NULL, NULL);
  if (rc)
    return rc;
  *stable = out.end == EXP_END_COMPLETED && out.noconv == 0;
  record_energy(p, h, *stable, out.Eend - out.E0);
  const char *label = p->run->name;
  double row[8] = {(double)p->c.links, h, (double)*stable, (double)out.status, (double)out.steps, o.max,
                   out.Eend - out.E0, (double)out.noconv};
  return exp_csv_row_labels(p->log, &label, 1, row, 8);
}

/*
 * The fully implicit step solved in full (reference/chain_be.c: Newton
 * with the constraints' second derivatives, to 1e-10 l), under the same
 * rules.  A step whose Newton iteration does not converge in 50
 * iterations ends the run as a failed step.
 */
#define REF_NAME "full-newton-ref"
#define REF_TOL 1e-10
#define REF_MAX_ITER 50

static int ref_probe(void *pctx, double h, int *stable)
{
  chain_probe *p = pctx;
  long steps = (long)ceil(p->T / h - 1e-9), links = p->c.links;
  size_t n3 = 3 * (size_t)(links + 1);
  double *q = malloc(2 * n3 * sizeof *q), *v = q + n3, g[3] = {0, -p->c.g, 0};
  if (!q)
    return cdyn_error(CDYN_ENOMEM, "chain-scale-stability: out of memory for %ld links", links);
  for (long i = 0; i <= links; i++) {
    q[3 * i] = 0;
    q[3 * i + 1] = -(double)i * p->c.length;
    q[3 * i + 2] = 0;
    v[3 * i] = i ? p->c.kick : 0;
    v[3 * i + 1] = v[3 * i + 2] = 0;
  }
  cdyn_ref_chain_be *ch;
  int rc = cdyn_ref_chain_be_new(&ch, (size_t)links, p->c.length, p->c.mass, g, q, v);
  free(q);
  if (rc)
    return rc;
  double E0 = cdyn_ref_chain_be_energy(ch), E = E0, smax = 0;
  long k = 0;
  int status = CDYN_OK, its, itmax = 0;
  for (; k < steps; k++) {
    if ((status = cdyn_ref_chain_be_step(ch, h, REF_TOL, REF_MAX_ITER, &its)) != CDYN_OK)
      break;
    if (its > itmax)
      itmax = its;
    const double *x = cdyn_ref_chain_be_q(ch);
    for (long i = 0; i < links; i++) {
      const double *a = x + 3 * i, *b = a + 3;
      double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
      double r = fabs(d - p->c.length) / p->c.length;
      if (!(r <= smax))
        smax = r;
    }
    E = cdyn_ref_chain_be_energy(ch);
    if (!(smax <= p->stretch_frac) || !(E - E0 <= p->gain_max)) {
      k++;
      break;
    }
  }
  cdyn_ref_chain_be_free(ch);
  *stable = status == CDYN_OK && k == steps && smax <= p->stretch_frac && E - E0 <= p->gain_max;
  record_energy(p, h, *stable, E - E0);
  const char *label = REF_NAME;
  double row[8] = {(double)links, h, (double)*stable, (double)status, (double)k, smax, E - E0, 0};
  return exp_csv_row_labels(p->log, &label, 1, row, 8);
}

static const char *const gs_diagonal[] = {"geometric_stiffness", "diagonal", NULL};

static const exp_companion companions[] = {
  {"implicit-gs", "implicit", gs_diagonal,
   "001's implicit step with the lumped diagonal geometric stiffness (Andrews, Teichmann and Kry 2017)"},
  {NULL, NULL, NULL, NULL}};

/* implicit.no_step_limit from the map: hs, hu of implicit and Baumgarte. */
static int judge(exp_ctx *ctx, const long *N, int nN, double hs[][MAX_SIZES], double hu[][MAX_SIZES])
{
  if (!exp_claim_ready(ctx, "implicit.no_step_limit"))
    return CDYN_OK;
  int ri = exp_run_index(ctx, "implicit"), rb = exp_run_index(ctx, "baumgarte");
  double stable = 0, ratio = INFINITY;
  for (int i = 0; i < nN; i++) {
    stable += isnan(hu[ri][i]) && !isnan(hs[ri][i]);
    double r = hs[ri][i] / hs[rb][i];
    if (!(r >= ratio)) /* NaN wins */
      ratio = r;
  }
  exp_value v[2] = {{"stable_fraction", stable / nN}, {"min_ratio", ratio}};
  return exp_judge(ctx, "implicit.no_step_limit", v, 2,
                   "implicit stable on the whole grid at %g of %d sizes N = %ld .. %ld; its largest stable h over "
                   "Baumgarte's: at least %.3g at every N",
                   stable, nN, N[0], N[nN - 1], ratio);
}

static int sizes(exp_ctx *ctx, long *N, int *nN)
{
  long lo = exp_param_long(ctx, "links_min"), hi = exp_param_long(ctx, "links_max");
  if (lo > hi)
    return cdyn_error(CDYN_EINVAL, "links_min = %ld is above links_max = %ld", lo, hi);
  *nN = 0;
  for (long k = lo;; k *= 2) {
    if (k > hi)
      k = hi;
    if (*nN == MAX_SIZES)
      return cdyn_error(CDYN_EINVAL, "links_min = %ld to links_max = %ld: more than %d sizes", lo, hi, MAX_SIZES);
    N[(*nN)++] = k;
    if (k == hi)
      break;
  }
  return CDYN_OK;
}

static int check(exp_ctx *ctx)
{
  long N[MAX_SIZES];
  int nN;
  return sizes(ctx, N, &nN);
}

/* Least-squares slope of log y against log x over the finite points. */
static double loglog_slope(const long *x, const double *y, int n, int *used)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (!isfinite(y[i]))
      continue;
    double lx = log((double)x[i]), ly = log(y[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
    k++;
  }
  *used = k;
  if (k < 2)
    return NAN;
  return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

/* One row of the report's table. */
static void report_row(exp_ctx *ctx, const char *name, const long *N, int nN, const double *hs, const double *hu,
                       const chain_spec *c)
{
  exp_report(ctx, "| %s |", name);
  double y[MAX_SIZES];
  for (int i = 0; i < nN; i++) {
    double w = sqrt((double)N[i] * c->g / c->length);
    /* A censored point (stable on the whole grid) does not enter the slope. */
    y[i] = isnan(hu[i]) ? NAN : hs[i];
    if (isnan(hs[i]))
      exp_report(ctx, " - |");
    else if (isnan(hu[i]))
      exp_report(ctx, " >= %.3g |", hs[i]);
    else
      exp_report(ctx, " %.3g (%.2f) |", hs[i], hs[i] * w);
  }
  int used;
  double slope = loglog_slope(N, y, nN, &used);
  if (used >= 2)
    exp_report(ctx, " %.2f |\n", slope);
  else
    exp_report(ctx, " - |\n");
}

static int run(exp_ctx *ctx)
{
  long N[MAX_SIZES];
  int nN, rc;
  if ((rc = sizes(ctx, N, &nN)))
    return rc;
  chain_spec c;
  double T, stretch_frac, energy_frac;
  exp_param_double(ctx, "length", &c.length);
  exp_param_double(ctx, "mass", &c.mass);
  exp_param_double(ctx, "g", &c.g);
  exp_param_double(ctx, "kick", &c.kick);
  exp_param_double(ctx, "T", &T);
  exp_param_double(ctx, "stretch_frac", &stretch_frac);
  exp_param_double(ctx, "energy_frac", &energy_frac);

  exp_csv log, map;
  if ((rc = exp_csv_open(ctx, &log, "chain-scale-probes", "scheme,links,h,stable,status,steps,stretch_max,energy_gain,noconv",
                         NULL, "\"note\": \"every probe of the search; stable is 1 or 0\"")))
    return rc;
  static double hs[EXP_MAX_RUNS][MAX_SIZES], hu[EXP_MAX_RUNS][MAX_SIZES];
  static double lost[EXP_MAX_RUNS + 1][MAX_SIZES][NE];
  for (int s = 0; s <= ctx->nruns; s++)
    for (int i = 0; i < MAX_SIZES; i++)
      for (int e = 0; e < NE; e++)
        lost[s][i][e] = NAN;
  for (int s = 0; s < ctx->nruns && !rc; s++)
    for (int i = 0; i < nN && !rc; i++) {
      chain_probe p = {ctx, &ctx->runs[s], c, T, stretch_frac, 0, &log, lost[s][i]};
      p.c.links = N[i];
      double L = (double)N[i] * c.length;
      p.gain_max = energy_frac * (double)N[i] * c.mass * c.g * L;
      rc = exp_stable_search(probe, &p, J_START, &hs[s][i], &hu[s][i]);
      if (!rc)
        printf("  %-16s N = %-5ld largest stable h %-10.4g first unstable %.4g\n", ctx->runs[s].name, N[i], hs[s][i],
               hu[s][i]);
      exp_progress(ctx, "chain-scale-stability", (long)(s * nN + i + 1), (long)(ctx->nruns * nN));
    }
  static double rs[MAX_SIZES], ru[MAX_SIZES];
  for (int i = 0; i < nN && !rc; i++) {
    chain_probe p = {ctx, NULL, c, T, stretch_frac, 0, &log, lost[ctx->nruns][i]};
    p.c.links = N[i];
    p.gain_max = energy_frac * (double)N[i] * c.mass * c.g * ((double)N[i] * c.length);
    rc = exp_stable_search(ref_probe, &p, J_START, &rs[i], &ru[i]);
    if (!rc)
      printf("  %-16s N = %-5ld largest stable h %-10.4g first unstable %.4g\n", REF_NAME, N[i], rs[i], ru[i]);
  }
  int crc = exp_csv_close(&log, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;

  if ((rc = exp_csv_open(ctx, &map, "chain-scale-map", "scheme,links,h_max,h_fail,omega,h_max_omega", NULL,
                         "\"note\": \"h_max: largest stable h before the first unstable grid point (h_fail); nan "
                         "h_max: unstable down to 1.2e-4; nan h_fail: stable up to 0.5; omega = sqrt(N g / l)\"")))
    return rc;
  for (int s = 0; s < ctx->nruns && !rc; s++)
    for (int i = 0; i < nN && !rc; i++) {
      double w = sqrt((double)N[i] * c.g / c.length);
      double row[5] = {(double)N[i], hs[s][i], hu[s][i], w, hs[s][i] * w};
      rc = exp_csv_row_labeled(&map, ctx->runs[s].name, row, 5);
    }
  for (int i = 0; i < nN && !rc; i++) {
    double w = sqrt((double)N[i] * c.g / c.length);
    double row[5] = {(double)N[i], rs[i], ru[i], w, rs[i] * w};
    rc = exp_csv_row_labeled(&map, REF_NAME, row, 5);
  }
  crc = exp_csv_close(&map, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;

  exp_report(ctx,
             "Largest stable step size on a hanging chain of N links of %g m, kicked sideways at %g m/s, over %g s "
             "(grid steps of 19 %%; \"-\": unstable down to 1.2e-4; \">= 0.5\": stable on the whole grid). In "
             "brackets h_max omega_N, omega_N = sqrt(N g / l); the slope is that of log h_max against log N "
             "(-1/2 if h_max = c / omega_N).\n\n| scheme |",
             c.length, c.kick, T);
  for (int i = 0; i < nN; i++)
    exp_report(ctx, " N = %ld |", N[i]);
  exp_report(ctx, " slope |\n|---|");
  for (int i = 0; i <= nN; i++)
    exp_report(ctx, "---|");
  exp_report(ctx, "\n");
  for (int s = 0; s < ctx->nruns; s++)
    report_row(ctx, ctx->runs[s].name, N, nN, hs[s], hu[s], &c);
  report_row(ctx, REF_NAME " (reference/chain_be.c)", N, nN, rs, ru, &c);
  exp_report(ctx,
             "\nThe reference solves each step by plain Newton (no line search) from the free-fall predictor: "
             "where its row ends below the grid's top, its Newton iteration did not converge in %d iterations "
             "(status %d in chain-scale-probes.csv), which is a limit of that solver, not an instability of the "
             "step.\n\n",
             REF_MAX_ITER, CDYN_NOCONV);

  /* The energy the stable runs lose, per second, at the doubling step sizes. */
  exp_csv en;
  if ((rc = exp_csv_open(ctx, &en, "chain-scale-energy", "scheme,links,h,energy_lost_per_s", NULL,
                         "\"note\": \"(E(0) - E(T)) / T of every run stable at h = 0.016, 0.032, .., 0.512 (the "
                         "grid points the search visits going up); E kinetic plus gravitational\"")))
    return rc;
  for (int s = 0; s <= ctx->nruns && !rc; s++)
    for (int i = 0; i < nN && !rc; i++)
      for (int e = 0; e < NE && !rc; e++)
        if (!isnan(lost[s][i][e])) {
          double row[3] = {(double)N[i], 1e-3 * pow(2.0, (E_J0 + 4 * e) / 4.0), lost[s][i][e]};
          rc = exp_csv_row_labeled(&en, s < ctx->nruns ? ctx->runs[s].name : REF_NAME, row, 3);
        }
  crc = exp_csv_close(&en, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;
  int last = nN - 1, first = nN > 1 ? 1 : 0;
  exp_report(ctx,
             "Energy lost per second, (E(0) - E(T)) / T in W, by the runs stable at h = 0.016 s and above, on "
             "the chains of N = %ld and %ld links (chain-scale-energy.csv has every N; the kick gives the chain "
             "%.3g J of kinetic energy per %ld links; \"-\": not stable at that h).\n\n| run | N |",
             N[first], N[last], 0.5 * c.mass * c.kick * c.kick * (double)N[first], N[first]);
  for (int e = 0; e < NE; e++)
    exp_report(ctx, " h = %g |", 1e-3 * pow(2.0, (E_J0 + 4 * e) / 4.0));
  exp_report(ctx, "\n|---|---|");
  for (int e = 0; e < NE; e++)
    exp_report(ctx, "---|");
  exp_report(ctx, "\n");
  for (int s = 0; s <= ctx->nruns; s++) {
    int any = 0;
    for (int e = 0; e < NE; e++)
      any |= !isnan(lost[s][first][e]) || !isnan(lost[s][last][e]);
    if (!any)
      continue;
    int sizes2[2] = {first, last};
    for (int k = 0; k < (first == last ? 1 : 2); k++) {
      exp_report(ctx, "| %s | %ld |", s < ctx->nruns ? ctx->runs[s].name : REF_NAME, N[sizes2[k]]);
      for (int e = 0; e < NE; e++)
        if (isnan(lost[s][sizes2[k]][e]))
          exp_report(ctx, " - |");
        else
          exp_report(ctx, " %.3g |", lost[s][sizes2[k]][e]);
      exp_report(ctx, "\n");
    }
  }
  exp_report(ctx, "\n");
  return judge(ctx, N, nN, hs, hu);
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "links", "1", "number of links N of the hanging chain"},
  {NULL, "stretch_max", "1",
   "largest relative link stretch ||x_i - x_j| - l| / l of the probe (the step that crossed the limit included)"},
  {"chain-scale-map", "omega", "rad/s",
   "omega_N = sqrt(N g / l), the scale of the chain's fastest transverse modes"},
  {"chain-scale-map", "h_max_omega", "1", "h_max omega_N"},
  {"chain-scale-energy", "h", "s", "step size, a grid point h = 0.016 2^k"},
  {"chain-scale-energy", "energy_lost_per_s", "W",
   "(E(0) - E(T)) / T over the run of T seconds, E kinetic plus gravitational"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_chain_scale_stability = {
  .name = "chain-scale-stability",
  .description = "stability map of every scheme on a hanging chain: number of links against step size",
  .source = "001 sec III (\"stable over large time steps\"), at scale",
  .params = params,
  .columns = columns,
  .check = check,
  .schemes = "all",
  .h = 0,
  .steps = 0,
  .companions = companions,
  .run = run,
};
