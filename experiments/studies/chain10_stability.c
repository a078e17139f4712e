/*
 * chain10_stability.c: chain10-stability, the 10-link robot arm of 001 (fig. 4):
 * long-term stability of the constraint schemes on a closed loop.
 *
 * 001 (sec. IV, fig. 4): "a 10-link robot arm connected with ball and
 * socket joints ... falling down under gravity.  Initially the robot links
 * are in a saw tooth position and both ends are fixed.  Even though the
 * post-stabilization method well maintains constraints until around 1300
 * integration steps, the constraint error ... suddenly grows even with a
 * relatively small time integration step (0.001)"; the implicit method
 * "shows comparable, if not better, overall constraint error" which
 * "decreases gradually over time".
 *
 * Mechanism.  11 nodes of m = 1 kg (equal masses, as every arm of the
 * suite) joined by 10 distance constraints |x_i - x_{i+1}| = L, L = 1 m
 * (a ball-and-socket joint between two links is a shared node, so a link
 * is a distance constraint between consecutive nodes), node 0 and node 10
 * held by pin constraints x = p (001: fixed ends are point-node
 * constraints, not infinite masses; with the unit-weighted projection of
 * post-stabilisation an infinitely heavy node would still move), gravity
 * g = 9.81 m/s^2 along -y, h = 0.001.  The mechanism has 27 - 10 = 17
 * degrees of freedom.
 *
 * Start (001 gives no numbers; these are this suite's choices).  Saw tooth
 * at angle phi (parameter `sawtooth`, degrees, default 45), at rest:
 *   x_i = (i L cos phi, [i odd] L sin phi, 0),  i = 0 .. 10,
 * teeth up; node 10 and its pin are at (10 L cos phi, 0, 0), so the ends
 * are 7.07 m apart at 45 degrees.  The default run is 10000 steps (10 s),
 * far beyond 001's failure near step 1300.
 *
 * Perturbations.  One run from one start is an anecdote, so besides the
 * exact saw tooth (trial 0) the experiment runs `trials` perturbed starts
 * (default 20).  Trial t >= 1 draws psi_1 .. psi_9 uniformly from
 * [-eps, eps) (eps = `perturb`, default 1e-3 rad) with GSL's
 * gsl_rng_mt19937 seeded with t (gsl_rng_set(r, t)), and for i = 1 .. 9
 * in turn rotates node i by psi_i about the axis through its two
 * neighbours at their current positions (Rodrigues' formula; k the unit
 * vector from node i-1 to node i+1, r = x_i - x_{i-1}):
 *   r' = r cos psi + (k x r) sin psi + k (k.r)(1 - cos psi).
 * Both link lengths of node i, and the pins, are kept to rounding, so the
 * start satisfies every constraint; nodes leave the x-y plane, and the
 * motion becomes three-dimensional.  Each node moves once, by at most
 * eps L.  Velocities are zero.  The start of every trial is written to
 * starts.csv.
 *
 * Schemes: the default list (baumgarte with the suite's alpha = beta = 2,
 * poststab with 001's unit weighting, implicit, improved, rattle) and,
 * when the default list runs, the context run "poststab-mass":
 * post-stabilisation with Cline and Pai's mass weighting.  With equal
 * masses W = I / m is a multiple of the identity, and
 * W J^T (J W J^T)^-1 = J^T (J J^T)^-1, so the two projections agree in
 * exact arithmetic; whether the two runs agree bit for bit is measured and
 * reported (identical_to_poststab in the summary), not assumed.
 *
 * Failure (rule fixed before any run).  A run fails at the first step
 * k >= 1 at which the step returns a negative status (cause 1), or the
 * state is not finite or cannot be measured (cause 2), or
 *   e_n = sum over constraints ||Phi_c||     (cdyn_system_constraint_error:
 *          | |x_i - x_j| - L | per link, |x - p| per pin)
 * exceeds `fail_tol` (cause 3; default 0.1 m, 1 % of the chain's 10 m;
 * the stepper's divergence guard refuses that step, status
 * CDYN_EDIVERGED, and e_fail records its e_n).  The run stops there.  A step returning CDYN_NOCONV (an iteration that
 * stopped before its tolerance) is counted, not a failure.  A run that
 * survives has failed = 0 and fail_step = steps.
 *
 * Outputs:
 *   RUN.csv       step,t,e,E of the unperturbed run of each run name
 *                 (001 fig. 4), every step before the failure (the step
 *                 that fails is not written: a failed step, a non-finite
 *                 state, or e_n above fail_tol, which the stepper's
 *                 divergence guard refuses with the state restored)
 *   failures.csv  one row per run and trial: failed, fail_step, cause,
 *                 status, e_0, the largest e_n before the failure, e_n
 *                 100 steps before it and 1 step before it (NaN where the
 *                 run survived or failed within 100 steps), the mean e_n
 *                 over the steps before the failure, the last/first
 *                 quarter ratio of the mean e_n (survivors only), the
 *                 CDYN_NOCONV steps, and the total energy at the start and
 *                 at the last measured step (001 reads the failure as a
 *                 "demolition" of the simulation; the energy shows whether
 *                 a run that keeps its constraints still moves like the
 *                 mechanism)
 *   summary.csv   per run name: runs, failures, the failure step's
 *                 min, quartiles, median and max over the failed runs
 *                 (GSL's linear interpolation of the sorted steps), the
 *                 mean over runs of the mean e_n, the median e_n 100 steps
 *                 before failure, the NOCONV steps, for poststab-mass the
 *                 number of its runs bitwise identical to poststab's (e_n
 *                 at every step and the end positions; -1 elsewhere), and
 *                 the median energy at the end
 *   survival.csv  the fraction of runs still running against the step,
 *                 one step function per run name
 *   starts.csv    trial,node,x,y,z: every start
 *
 * Claims (thresholds written before any measurement):
 *   chain10.poststab_fails: the fraction of all runs (unperturbed and
 *     trials) of poststab (unit weighting) that fail; holds if >= 0.5 and
 *     the median failure step of the failed runs is within a factor 2 of
 *     001's 1300 (650 .. 2600); partly if any run fails; does-not-hold if
 *     none does.
 *   chain10.implicit_stable: holds if implicit fails in no run and its e_n
 *     decreases: the mean e_n over the last quarter of the run is below
 *     that over the first quarter (steps 1 .. N/4; step 0 is exact), for
 *     the unperturbed run and for the median of the trials' ratios;
 *     partly if it never fails but the error does not decrease;
 *     does-not-hold if it fails in any run.  The measure is the larger of
 *     the two ratios (NaN when a failed run leaves one undefined).
 *
 * The experiment prints its run time; at the defaults (6 x 21 runs of
 * 10000 steps of an 11-node system) it is a few seconds.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "runner/experiment.h"

/* Largest number of trials: bounds the memory of the per-run records. */
#define MAX_TRIALS 100000

static const exp_param params[] = {
  {"sawtooth", "45", EXP_REAL, 0, 90, EXP_OPEN_MIN | EXP_OPEN_MAX,
   "saw-tooth angle phi of the links against the x axis (degrees)"},
  {"trials", "20", EXP_INT, 0, MAX_TRIALS, 0, "perturbed starts besides the exact saw tooth (seeds 1 .. trials)"},
  {"perturb", "1e-3", EXP_REAL, 0, 1, 0, "largest rotation of each interior node about its neighbours' axis (rad)"},
  {"fail_tol", "0.1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX,
   "a run fails when e_n exceeds this (m; 0.1 = 1 % of the chain's length)"},
  {"alpha", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "Baumgarte damping alpha (critically damped with beta)"},
  {"beta", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "Baumgarte stiffness beta"},
  EXP_PARAMS_END};

/* Post-stabilisation with Cline and Pai's mass weighting, beside 001's
   unit weighting. */
static const char *const mass_weighting[] = {"weighting", "mass", NULL};
static const exp_companion companions[] = {
  {"poststab-mass", "poststab", mass_weighting, "post-stabilisation with the mass-weighted projection"},
  {NULL, NULL, NULL, NULL}};

#define LINKS 10
#define NODES (LINKS + 1)
static const double L = 1.0, MASS = 1.0, G = 9.81;

/* Steps before the failure at which e_n is recorded ("suddenly"). */
#define BEFORE 100

typedef struct {
  double phi; /* rad */
  long trials;
  double eps, fail_tol;
} chain_params;

static int get_params(exp_ctx *ctx, chain_params *p)
{
  double deg;
  exp_param_double(ctx, "sawtooth", &deg);
  exp_param_double(ctx, "perturb", &p->eps);
  exp_param_double(ctx, "fail_tol", &p->fail_tol);
  p->phi = deg * acos(-1.0) / 180.0;
  p->trials = exp_param_long(ctx, "trials");
  return CDYN_OK;
}

static int check(exp_ctx *ctx)
{
  if (ctx->steps < 4)
    return cdyn_error(CDYN_EINVAL, "--steps %ld: chain10-stability compares the first and last quarters of a "
                                   "run, so it needs --steps >= 4", ctx->steps);
  return CDYN_OK;
}

/* ---- the start ----------------------------------------------------------------- */

/* x <- x rotated by psi about the axis through a and b (Rodrigues). */
static void rotate_about(double *x, const double *a, const double *b, double psi)
{
  double k[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double nk = sqrt(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
  for (int c = 0; c < 3; c++)
    k[c] /= nk;
  double r[3] = {x[0] - a[0], x[1] - a[1], x[2] - a[2]};
  double kr = k[0] * r[0] + k[1] * r[1] + k[2] * r[2];
  double kxr[3] = {k[1] * r[2] - k[2] * r[1], k[2] * r[0] - k[0] * r[2], k[0] * r[1] - k[1] * r[0]};
  double c = cos(psi), s = sin(psi);
  for (int j = 0; j < 3; j++)
    x[j] = a[j] + (r[j] * c + kxr[j] * s + k[j] * kr * (1 - c));
}

/* The start of `trial` (0: the exact saw tooth) into q (3 NODES). */
static int start_positions(const chain_params *p, long trial, double *q)
{
  for (int i = 0; i < NODES; i++) {
    q[3 * i] = (double)i * L * cos(p->phi);
    q[3 * i + 1] = (i % 2) ? L * sin(p->phi) : 0.0;
    q[3 * i + 2] = 0.0;
  }
  if (trial == 0)
    return CDYN_OK;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  if (!r)
    return cdyn_error(CDYN_ENOMEM, "out of memory");
  gsl_rng_set(r, (unsigned long)trial);
  for (int i = 1; i < LINKS; i++) {
    double psi = p->eps * (2 * gsl_rng_uniform(r) - 1);
    rotate_about(q + 3 * i, q + 3 * (i - 1), q + 3 * (i + 1), psi);
  }
  gsl_rng_free(r);
  return CDYN_OK;
}

static int build_chain(const chain_params *p, const double *q, cdyn_system **out)
{
  cdyn_system *sys;
  int rc = cdyn_system_new(&sys, NODES);
  if (rc)
    return rc;
  double g[3] = {0, -G, 0};
  rc = cdyn_system_set_gravity(sys, g);
  for (int i = 0; i < NODES && !rc; i++) {
    rc = cdyn_system_set_position(sys, (size_t)i, q + 3 * i);
    if (!rc)
      rc = cdyn_system_set_mass(sys, (size_t)i, MASS);
  }
  /* The pins hold the ends where the exact saw tooth puts them (the
     perturbation does not move them). */
  double p0[3] = {0, 0, 0}, p10[3] = {(double)LINKS * L * cos(p->phi), 0, 0};
  if (!rc)
    rc = cdyn_system_add_pin(sys, 0, p0, NULL);
  if (!rc)
    rc = cdyn_system_add_pin(sys, LINKS, p10, NULL);
  for (int i = 0; i < LINKS && !rc; i++)
    rc = cdyn_system_add_distance(sys, (size_t)i, (size_t)i + 1, L, NULL);
  if (rc) {
    cdyn_system_free(sys);
    return rc;
  }
  *out = sys;
  return CDYN_OK;
}

/* ---- one run --------------------------------------------------------------------- */

enum { CAUSE_NONE = 0, CAUSE_STATUS = 1, CAUSE_NONFINITE = 2, CAUSE_TOL = 3 };

typedef struct {
  int failed, cause, status;
  long fail_step; /* steps when it survived */
  long last;      /* last step whose e_n is in the history */
  double e0, emax, e_before, e_prev, e_mean, ratio;
  double E0, Eend; /* total energy at the start and at the last measured step */
  double e_fail;   /* e_n after the step refused at fail_tol (NaN if none) */
  unsigned long noconv;
} run_result;

static double mean(const double *x, long from, long to)
{
  double s = 0;
  for (long k = from; k < to; k++)
    s += x[k];
  return to > from ? s / (double)(to - from) : NAN;
}

typedef struct {
  exp_csv *csv; /* NULL: no per-step file */
  double *e;
} chain_obs;

static int observe(void *ov, const exp_state *s)
{
  chain_obs *o = ov;
  o->e[s->k] = s->e;
  if (!o->csv)
    return 0;
  double row[4] = {(double)s->k, s->t, s->e, s->E};
  return exp_csv_row(o->csv, row, 4);
}

/*
 * Run `run` from `q0` for ctx->steps steps.  e receives e_n of steps 0 ..
 * res->last.  With `name` (may be NULL) every such step is written to
 * NAME.csv as step,t,e,E.  qend (3 NODES, may be NULL) gets the last
 * positions.
 */
static int run_chain(exp_ctx *ctx, const chain_params *p, const char *name, const exp_runspec *run, const double *q0,
                     double *e, run_result *res, double *qend)
{
  cdyn_system *sys = NULL;
  cdyn_stepper *st = NULL;
  exp_csv csv;
  int have_csv = 0;
  memset(res, 0, sizeof *res);
  int rc = build_chain(p, q0, &sys);
  if (rc)
    return rc;
  if ((rc = exp_stepper_run(ctx, sys, run, NULL, &st)))
    goto out;
  const long N = ctx->steps;
  const double h = ctx->h;
  if (name) {
    char extra[256];
    snprintf(extra, sizeof extra, "\"run\": {\"name\": \"%s\", \"trial\": 0, \"h\": %.17g, \"steps\": %ld}", name,
             h, N);
    if ((rc = exp_csv_open(ctx, &csv, name, "step,t,e,E", st, extra)))
      goto out;
    have_csv = 1;
  }
  chain_obs o = {have_csv ? &csv : NULL, e};
  exp_limits lim = {p->fail_tol, INFINITY, 0};
  exp_outcome out;
  if ((rc = exp_simulate(sys, st, h, N, &lim, observe, &o, &out)))
    goto out;
  if (out.end == EXP_END_NONFINITE && out.end_step == 0) {
    rc = out.status; /* the start itself cannot be measured */
    goto out;
  }
  res->e0 = res->emax = e[0];
  res->E0 = out.E0;
  res->Eend = out.Eend;
  res->noconv = out.noconv;
  res->status = out.status;
  res->e_fail = out.e_fail;
  res->cause = out.end == EXP_END_FAILED_STEP   ? CAUSE_STATUS
               : out.end == EXP_END_NONFINITE   ? CAUSE_NONFINITE
               : out.end == EXP_END_ERROR_LIMIT ? CAUSE_TOL
                                                : CAUSE_NONE;
  res->failed = res->cause != CAUSE_NONE;
  res->fail_step = res->failed ? out.end_step : N;
  res->last = out.steps; /* the last measured step: a failed or guarded step is not one */
  /* What came before the failure (for a survivor: the whole run). */
  long before_end = res->failed ? res->fail_step : N + 1; /* exclusive */
  for (long j = 0; j < before_end; j++)
    if (e[j] > res->emax)
      res->emax = e[j];
  res->e_mean = mean(e, 1, before_end);
  res->e_before = res->failed && res->fail_step > BEFORE ? e[res->fail_step - BEFORE] : NAN;
  res->e_prev = res->failed ? e[res->fail_step - 1] : NAN;
  long qn = N / 4;
  res->ratio = res->failed ? NAN : mean(e, N - qn + 1, N + 1) / mean(e, 1, qn + 1);
  if (qend)
    memcpy(qend, cdyn_system_positions(sys), 3 * NODES * sizeof(double));
out:
  if (have_csv) {
    int crc = exp_csv_close(&csv, rc == CDYN_OK);
    if (!rc)
      rc = crc;
  }
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  return rc;
}

/* ---- statistics ----------------------------------------------------------------- */

typedef struct {
  long runs, failed;
  double min, q1, median, q3, max; /* of the failure steps of the failed runs */
  double e_mean, e_before_median;
  double Eend_median; /* median over runs of the energy at the last measured step */
  unsigned long noconv;
} run_summary;

/* Median of the finite values of x[0 .. n-1] (NaN if none); x is reordered. */
static double median_finite(double *x, long n)
{
  long m = 0;
  for (long k = 0; k < n; k++)
    if (isfinite(x[k]))
      x[m++] = x[k];
  if (!m)
    return NAN;
  gsl_sort(x, 1, (size_t)m);
  return gsl_stats_median_from_sorted_data(x, 1, (size_t)m);
}

static void summarise(const run_result *r, long n, double *work, run_summary *s)
{
  memset(s, 0, sizeof *s);
  s->runs = n;
  long nf = 0, nm = 0;
  double em = 0;
  for (long k = 0; k < n; k++) {
    if (r[k].failed)
      work[nf++] = (double)r[k].fail_step;
    if (isfinite(r[k].e_mean)) {
      em += r[k].e_mean;
      nm++;
    }
    s->noconv += r[k].noconv;
  }
  s->failed = nf;
  s->e_mean = nm ? em / (double)nm : NAN;
  if (nf) {
    gsl_sort(work, 1, (size_t)nf);
    s->min = work[0];
    s->q1 = gsl_stats_quantile_from_sorted_data(work, 1, (size_t)nf, 0.25);
    s->median = gsl_stats_median_from_sorted_data(work, 1, (size_t)nf);
    s->q3 = gsl_stats_quantile_from_sorted_data(work, 1, (size_t)nf, 0.75);
    s->max = work[nf - 1];
  } else {
    s->min = s->q1 = s->median = s->q3 = s->max = NAN;
  }
  for (long k = 0; k < n; k++)
    work[k] = r[k].e_before;
  s->e_before_median = median_finite(work, n);
  for (long k = 0; k < n; k++)
    work[k] = r[k].Eend;
  s->Eend_median = median_finite(work, n);
}

/* ---- the experiment ---------------------------------------------------------------- */


static int run(exp_ctx *ctx)
{
  chain_params p;
  int rc = get_params(ctx, &p);
  if (rc)
    return rc;
  const double t_start = cdyn_clock();
  const long N = ctx->steps, ntr = p.trials + 1;

  /* The runs: the schemes, then the mass-weighted post-stabilisation
     (a companion run, so after poststab, which it is compared with). */
  const int nrun = ctx->nruns;
  const char *names[EXP_MAX_RUNS];
  for (int r = 0; r < nrun; r++)
    names[r] = ctx->runs[r].name;
  int ip = exp_run_index(ctx, "poststab"), imass = exp_run_index(ctx, "poststab-mass");

  double *e = malloc((size_t)(N + 1) * sizeof(double));
  double *starts = malloc((size_t)ntr * 3 * NODES * sizeof(double));
  double *work = malloc((size_t)ntr * sizeof(double));
  run_result *res = malloc((size_t)nrun * (size_t)ntr * sizeof(run_result));
  /* poststab's histories and end states, to compare poststab-mass with. */
  double *ehist = imass >= 0 && ip >= 0 ? malloc((size_t)ntr * (size_t)(N + 1) * sizeof(double)) : NULL;
  double *qhist = imass >= 0 && ip >= 0 ? malloc((size_t)ntr * 3 * NODES * sizeof(double)) : NULL;
  double qend[3 * NODES];
  long identical = -1; /* poststab-mass runs identical to poststab's, -1: not compared */
  exp_csv csv;
  if (!e || !starts || !work || !res || (imass >= 0 && ip >= 0 && (!ehist || !qhist))) {
    rc = cdyn_error(CDYN_ENOMEM, "out of memory");
    goto out;
  }

  /* The starts. */
  if ((rc = exp_csv_open(ctx, &csv, "starts", "trial,node,x,y,z", NULL,
                         "\"note\": \"trial 0 is the exact saw tooth; trial t >= 1 is perturbed with "
                         "gsl_rng_mt19937 seeded with t\"")))
    goto out;
  for (long t = 0; t < ntr && !rc; t++) {
    double *q = starts + t * 3 * NODES;
    if ((rc = start_positions(&p, t, q)))
      break;
    for (int i = 0; i < NODES && !rc; i++) {
      double row[5] = {(double)t, (double)i, q[3 * i], q[3 * i + 1], q[3 * i + 2]};
      rc = exp_csv_row(&csv, row, 5);
    }
  }
  {
    int crc = exp_csv_close(&csv, rc == CDYN_OK);
    if (rc || (rc = crc))
      goto out;
  }

  for (int r = 0; r < nrun && !rc; r++) {
    const double t0 = cdyn_clock();
    for (long t = 0; t < ntr && !rc; t++) {
      run_result *rr = &res[r * ntr + t];
      double *q = starts + t * 3 * NODES;
      /* The unperturbed run also writes its e_n per step (001 fig. 4). */
      rc = run_chain(ctx, &p, t == 0 ? names[r] : NULL, &ctx->runs[r], q, e, rr, qend);
      exp_progress(ctx, "chain10-stability", r * ntr + t + 1, nrun * ntr);
      if (rc)
        break;
      if (r == ip && ehist) {
        memcpy(ehist + t * (N + 1), e, (size_t)(rr->last + 1) * sizeof(double));
        memcpy(qhist + t * 3 * NODES, qend, sizeof qend);
      }
      if (r == imass && ehist) {
        const run_result *ru = &res[ip * ntr + t];
        int same = ru->fail_step == rr->fail_step && ru->cause == rr->cause && ru->last == rr->last &&
                   !memcmp(ehist + t * (N + 1), e, (size_t)(rr->last + 1) * sizeof(double)) &&
                   !memcmp(qhist + t * 3 * NODES, qend, sizeof qend);
        identical = (identical < 0 ? 0 : identical) + same;
      }
    }
    if (!rc) {
      long nf = 0;
      for (long t = 0; t < ntr; t++)
        nf += res[r * ntr + t].failed;
      printf("  %-16s %ld runs, %ld failed, unperturbed: %s at step %ld, e_max %.3e  (%.2f s)\n", names[r], ntr, nf,
             res[r * ntr].failed ? "failed" : "survived", res[r * ntr].fail_step, res[r * ntr].emax, cdyn_clock() - t0);
    }
  }
  if (rc)
    goto out;

  /* failures.csv */
  if ((rc = exp_csv_open(ctx, &csv, "failures",
                         "scheme,trial,failed,fail_step,cause,status,e0,e_max,e_before,e_prev,e_mean,ratio,noconv,"
                         "E0,E_end,e_fail",
                         NULL,
                         "\"note\": \"fail_step = steps for a survivor (failed = 0); cause 0 none, 1 negative step "
                         "status, 2 non-finite or unmeasurable state, 3 e_n > fail_tol; e_max and e_mean over the "
                         "steps before the failure (e_mean from step 1); e_before = e_n 100 steps and e_prev 1 step "
                         "before the failure (nan if none); ratio = mean e_n over the last / first quarter, "
                         "survivors only; E0 and E_end: total energy at the start and at the last measured step; e_fail: e_n "
                         "after the step that exceeded fail_tol, refused by the stepper's divergence guard (status "
                         "-10) and so in no run file (nan for other runs)\"")))
    goto out;
  for (int r = 0; r < nrun && !rc; r++)
    for (long t = 0; t < ntr && !rc; t++) {
      const run_result *x = &res[r * ntr + t];
      double row[15] = {(double)t, (double)x->failed, (double)x->fail_step, (double)x->cause, (double)x->status,
                        x->e0,     x->emax,           x->e_before,          x->e_prev,         x->e_mean,
                        x->ratio,  (double)x->noconv, x->E0,                x->Eend,           x->e_fail};
      rc = exp_csv_row_labeled(&csv, names[r], row, 15);
    }
  {
    int crc = exp_csv_close(&csv, rc == CDYN_OK);
    if (rc || (rc = crc))
      goto out;
  }

  /* summary.csv */
  static run_summary sum[EXP_MAX_RUNS];
  for (int r = 0; r < nrun; r++)
    summarise(res + r * ntr, ntr, work, &sum[r]);
  if ((rc = exp_csv_open(ctx, &csv, "summary",
                         "scheme,runs,failed,fail_min,fail_q1,fail_median,fail_q3,fail_max,e_mean,e_before_median,"
                         "noconv,identical_to_poststab,E_end_median",
                         NULL,
                         "\"note\": \"failure-step statistics over the failed runs (nan if none; quartiles by "
                         "linear interpolation, GSL); e_mean: mean over runs of each run's mean e_n before its "
                         "failure; e_before_median: median e_n 100 steps before failure; identical_to_poststab: "
                         "runs of poststab-mass bitwise identical to poststab's (e_n history and end state), -1 "
                         "where not compared; E_end_median: median energy at the last measured step\"")))
    goto out;
  for (int r = 0; r < nrun && !rc; r++) {
    const run_summary *s = &sum[r];
    double row[12] = {(double)s->runs, (double)s->failed, s->min, s->q1, s->median, s->q3, s->max, s->e_mean,
                      s->e_before_median, (double)s->noconv, r == imass ? (double)identical : -1.0,
                      s->Eend_median};
    rc = exp_csv_row_labeled(&csv, names[r], row, 12);
  }
  {
    int crc = exp_csv_close(&csv, rc == CDYN_OK);
    if (rc || (rc = crc))
      goto out;
  }

  /* survival.csv: a step function per run name, with a point at step 0,
     at every failure step and at the end. */
  if ((rc = exp_csv_open(ctx, &csv, "survival", "scheme,step,alive", NULL,
                         "\"note\": \"fraction of the runs (unperturbed and trials) still running after the step\"")))
    goto out;
  for (int r = 0; r < nrun && !rc; r++) {
    long nf = 0;
    for (long t = 0; t < ntr; t++)
      if (res[r * ntr + t].failed)
        work[nf++] = (double)res[r * ntr + t].fail_step;
    gsl_sort(work, 1, (size_t)nf);
    double row[2] = {0, 1};
    rc = exp_csv_row_labeled(&csv, names[r], row, 2);
    for (long k = 0; k < nf && !rc; k++) {
      if (k + 1 < nf && work[k + 1] == work[k])
        continue; /* one point per distinct step */
      row[0] = work[k];
      row[1] = (double)(ntr - (k + 1)) / (double)ntr;
      rc = exp_csv_row_labeled(&csv, names[r], row, 2);
    }
    if (!rc && (nf == 0 || work[nf - 1] < (double)N)) {
      row[0] = (double)N;
      row[1] = (double)(ntr - nf) / (double)ntr;
      rc = exp_csv_row_labeled(&csv, names[r], row, 2);
    }
  }
  {
    int crc = exp_csv_close(&csv, rc == CDYN_OK);
    if (rc || (rc = crc))
      goto out;
  }

  /* The report. */
  exp_report(ctx,
             "10-link chain, both ends pinned, saw tooth at %s degrees, h = %g, %ld steps; the exact start and %ld "
             "starts perturbed by rotations of up to %s rad; a run fails when a step fails, the state is not "
             "finite or e_n > %g m.  Failure steps over the failed runs; the energy at the run's last measured step "
             "(the exact start has E(0) = %.4g J):\n\n"
             "| run | runs | failed | min | q1 | median | q3 | max | mean e_n before failure | median E at the end (J) "
             "| NOCONV steps |\n"
             "|---|---|---|---|---|---|---|---|---|---|---|\n",
             exp_param_string(ctx, "sawtooth"), ctx->h, N, p.trials, exp_param_string(ctx, "perturb"), p.fail_tol,
             res[0].E0);
  for (int r = 0; r < nrun; r++) {
    const run_summary *s = &sum[r];
    if (s->failed)
      exp_report(ctx, "| %s | %ld | %ld | %.0f | %.0f | %.0f | %.0f | %.0f | %.3e | %.4g | %lu |\n", names[r],
                 s->runs, s->failed, s->min, s->q1, s->median, s->q3, s->max, s->e_mean, s->Eend_median, s->noconv);
    else
      exp_report(ctx, "| %s | %ld | 0 | - | - | - | - | - | %.3e | %.4g | %lu |\n", names[r], s->runs, s->e_mean,
                 s->Eend_median, s->noconv);
  }
  if (identical >= 0)
    exp_report(ctx,
               "\nWith equal masses the mass-weighted projection equals the unit one in exact arithmetic; "
               "%ld of %ld poststab-mass runs are bitwise identical to poststab's.\n",
               identical, ntr);
  exp_report(ctx, "\n");

  /* The claims. */
  int ii = exp_run_index(ctx, "implicit");
  if (exp_claim_ready(ctx, "chain10.poststab_fails")) {
    const run_summary *sp = &sum[ip];
    double frac = (double)sp->failed / (double)sp->runs;
    const run_summary *sm = imass >= 0 ? &sum[imass] : NULL;
    /* Without a failed run there are no failure steps to summarise. */
    char steps[160] = "none (no run failed)", ebefore[64], mstep[64];
    if (sp->failed)
      snprintf(steps, sizeof steps, "%.0f/%.0f/%.0f/%.0f/%.0f", sp->min, sp->q1, sp->median, sp->q3, sp->max);
    exp_num(ebefore, sizeof ebefore, "%.3g", sp->e_before_median, "none (no run failed)");
    exp_num(mstep, sizeof mstep, "%.0f", sm && sm->failed ? sm->median : NAN, sm ? "none (no run failed)" : "not run");
    rc = exp_judge(ctx, "chain10.poststab_fails",
                   (exp_value[]){{"failed_fraction", frac}, {"median_fail_step", sp->failed ? sp->median : NAN}}, 2,
                   "%ld of %ld runs fail (fail_tol = %g m); failure step min/q1/median/q3/max %s; exact start: %s at "
                   "step %ld; median e_n 100 steps before failure %s; mass weighting: %ld of %ld fail, median step "
                   "%s, %ld of %ld runs bitwise identical to unit weighting; median energy at the end %.4g J (E(0) = "
                   "%.4g J)",
                   sp->failed, sp->runs, p.fail_tol, steps, res[ip * ntr].failed ? "fails" : "survives",
                   res[ip * ntr].fail_step, ebefore, sm ? sm->failed : -1L, sm ? sm->runs : -1L, mstep, identical, ntr,
                   sp->Eend_median, res[ip * ntr].E0);
  }
  if (!rc && exp_claim_ready(ctx, "chain10.implicit_stable")) {
    const run_summary *sp = ip >= 0 ? &sum[ip] : NULL, *si = &sum[ii];
    char others[1024] = "";
    for (int r = 0; r < nrun; r++)
      if (r != ip && r != ii)
        snprintf(others + strlen(others), sizeof others - strlen(others), "%s%s %ld/%ld", *others ? ", " : "",
                 names[r], sum[r].failed, sum[r].runs);
    double r0 = res[ii * ntr].ratio;
    for (long t = 1; t < ntr; t++)
      work[t - 1] = res[ii * ntr + t].ratio;
    double rmed = median_finite(work, ntr - 1);
    /* A failed run has no ratio; the measure is then undefined (NaN). */
    double measured = ntr == 1 ? r0 : isnan(r0) || isnan(rmed) ? NAN : fmax(r0, rmed);
    char t0[64], tmed[64], ei[64], ep[64];
    rc = exp_judge(ctx, "chain10.implicit_stable", (exp_value[]){{"failures", si->failed}, {"decay", measured}}, 2,
                   "implicit fails in %ld of %ld runs; ratio exact start %s, trials' median %s; mean e_n before "
                   "failure: implicit %s, poststab %s; median energy at the end %.4g J (E(0) = %.4g J); failures "
                   "of the other runs: %s",
                   si->failed, si->runs, exp_num(t0, sizeof t0, "%.3g", r0, "undefined (the run failed)"),
                   exp_num(tmed, sizeof tmed, "%.3g", rmed, ntr > 1 ? "undefined (every trial failed)" : "no trials"),
                   exp_num(ei, sizeof ei, "%.3g", si->e_mean, "undefined"),
                   exp_num(ep, sizeof ep, "%.3g", sp ? sp->e_mean : NAN, sp ? "undefined" : "not run"),
                   si->Eend_median, res[ii * ntr].E0, others);
  }
  printf("  chain10-stability: %d x %ld runs of %ld steps in %.2f s\n", nrun, ntr, N, cdyn_clock() - t_start);

out:
  free(e);
  free(starts);
  free(work);
  free(res);
  free(ehist);
  free(qhist);
  return rc;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {"starts", "trial", "1", "trial (0: the exact saw tooth; t >= 1: mt19937 seeded with t)"},
  {"starts", "node", "1", "node index"},
  {"starts", "x", "m", "x of the node"},
  {"starts", "y", "m", "y of the node"},
  {"starts", "z", "m", "z of the node"},
  {"failures", "trial", "1", "trial (0: the exact saw tooth)"},
  {"failures", "failed", "1", "1 if the run failed, else 0"},
  {"failures", "fail_step", "1", "step of the failure (steps for a survivor)"},
  {"failures", "cause", "1",
   "0 none, 1 negative step status, 2 non-finite or unmeasurable state, 3 e_n > fail_tol"},
  {"failures", "e0", "m", "e_n at the start"},
  {"failures", "e_max", "m", "largest e_n before the failure"},
  {"failures", "e_before", "m", "e_n 100 steps before the failure (nan if none)"},
  {"failures", "e_prev", "m", "e_n one step before the failure (nan if none)"},
  {"failures", "e_mean", "m", "mean e_n over steps 1 .. before the failure"},
  {"failures", "ratio", "1", "mean e_n over the last quarter over the first (survivors only)"},
  {"failures", "e_fail", "m",
   "e_n after the step that exceeded fail_tol, refused by the divergence guard (nan if none)"},
  {"summary", "runs", "1", "runs (the exact start and the trials)"},
  {"summary", "failed", "1", "runs that failed"},
  {"summary", "fail_min", "1", "smallest failure step (nan if none failed)"},
  {"summary", "fail_q1", "1", "first quartile of the failure steps (GSL, linear interpolation)"},
  {"summary", "fail_median", "1", "median failure step"},
  {"summary", "fail_q3", "1", "third quartile of the failure steps"},
  {"summary", "fail_max", "1", "largest failure step"},
  {"summary", "e_mean", "m", "mean over runs of each run's mean e_n before its failure"},
  {"summary", "e_before_median", "m", "median e_n 100 steps before the failure"},
  {"summary", "identical_to_poststab", "1",
   "runs of poststab-mass bitwise identical to poststab's (-1: not compared)"},
  {"summary", "E_end_median", "J", "median energy at the last measured step"},
  {"survival", "alive", "1", "fraction of the runs still running after the step"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_chain10_stability = {
  .name = "chain10-stability",
  .description = "10-link saw-tooth chain, both ends pinned: failure step of every scheme over perturbed starts",
  .source = "001 fig 4",
  .params = params,
  .columns = columns,
  .check = check,
  .schemes = "baumgarte,poststab,implicit,improved,rattle",
  .companions = companions,
  .h = 0.001,
  .steps = 10000,
  .run = run,
};
