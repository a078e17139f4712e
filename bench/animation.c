/*
 * bench/animation.c: cdyn-bench's second section, the animation step.
 * Every variant runs at h = 1/60 s, fixed, for T = 10 s of simulated time
 * (600 frames), the step a game or an animation tool takes, far above
 * the stability boundary h omega_N ~ 1 of the implicit scheme on these
 * problems (omega_N = sqrt(N g / l): h omega_N = 2.3, 7.4 and 16.5 on the
 * chains of 100, 1000 and 5000 links).  The first section (bench.c) runs
 * at h = min(1/60, 0.25 / omega_N) instead, where every variant is stable.
 *
 * Problems (problems.c): chain-N, N = 100, 1000, 5000: N links of 5 cm
 * and N nodes of 1 kg hanging straight down from a fixed point, every
 * node kicked sideways at 5 cm/s (so a scheme that is unstable there
 * shows it: from rest the chain would hang in equilibrium); grid-64x64:
 * the 64 x 64 cloth of 1 kg nodes 5 cm apart, flat and at rest, falling
 * with two opposite corners held.
 *
 * Variants:
 *   backward-euler     cdyn's backward-euler with its defaults (as written:
 *                      tol = 1e-10 m on the constraints, tol_accel = 1e-8
 *                      m/s^2 on the momentum residual, max_iter 50, solver
 *                      auto, which is ldlt for this scheme); the meta
 *                      record lists the defaults as run, and goal 1 reads tol
 *   ode-step-erp1      ODE's dWorldStep with ERP = 1 (the exact step; the
 *                      same scheme as cdyn's implicit)
 *   ode-quick20        ODE's dWorldQuickStep, 20 iterations (ERP 0.2, ODE's
 *                      default; peer_ode.c)
 *   implicit           cdyn's implicit scheme (solver auto)
 *   implicit-gs-diagonal  the same with geometric_stiffness = diagonal
 *                      (Andrews, Teichmann and Kry's lumped diagonal geometric
 *                      stiffness), where the library has that option: when
 *                      cdyn_stepper_set refuses it, the variant is reported
 *                      absent
 *   xpbd-substeps      cdyn's xpbd with one iteration per step and n
 *                      substeps per frame (Macklin et al. 2019, "Small
 *                      steps in physics simulation"): h / n for 600 n
 *                      steps, n the smallest of 1, 2, 4, ..., 128 whose
 *                      largest stretch is at most backward-euler's on the
 *                      same problem, or 128 if none is (the table says
 *                      which).  A candidate n stops as soon as its stretch
 *                      passes the target, so only the chosen n runs whole.
 *
 * The stability rule, fixed before any run: a run is stable when every
 * step returns CDYN_OK (ODE: its step succeeds without an ODE error), the
 * state stays finite, and the largest relative stretch max_k |d_k - l_k| /
 * l_k, checked after every step (every substep for xpbd), stays <= 0.1
 * over the 10 s.  (backward-euler's CDYN_NOCONV restores the state, so a
 * frame that returns it was not taken: it counts as a failure.)  The
 * blow-up time reported is the end of the first step that breaks the
 * rule; the run goes on after a stretch above 0.1 until a step fails, the
 * state is not finite or the stretch passes 1 (a runaway), so that its
 * note can say what it did and its time per frame is measured on the
 * frames it ran.
 *
 * Measured per run, the checks outside the timed calls: the largest
 * stretch; the time per frame (the step calls' time over the frames; a
 * frame is 1/60 s, n substeps for xpbd; the first frame includes the
 * solver's symbolic analysis), and frames per second from it, the median
 * over repetitions; Newton iterations and factorisations per frame
 * (cdyn_stepper_stats: nonlinear_iterations, which are Gauss-Seidel
 * sweeps for xpbd, and factorizations; '-' for ODE); the energy lost per
 * second (E(0) - E(T)) / T, E = kinetic + gravitational potential, from
 * the positions and velocities (ODE's bodies' linear velocities).  An
 * unstable run reports the time of its blow-up and what failed, and '-'
 * for the rest.
 *
 * Caps: dWorldStep runs one frame only above 1000 rows (its dense m x m
 * factorisation takes about 10 s a step at m = 5000 on a 2-core machine:
 * bench.c's chain-5000 row), and not at all above 5000 rows (the grid's
 * 8070 rows: a 520 MB matrix, and as much again for its factor).  As a
 * safety net, any run stops once its stepping time passes 60 s (after at
 * least one frame) and is reported capped, with the frames it ran; no run
 * reaches it on a 2-core machine today (the longest, xpbd with 128
 * substeps on chain-5000, takes about 35 s), so the outcomes do not depend
 * on the machine's speed unless it does.
 * Repetitions (--reps, 3 by default; 1 with --quick), the median time per
 * frame reported: an unstable run is repeated until its repetitions have
 * 600 frames together (at most 64), so that its time per frame (which the
 * CSV keeps, and goal 1 uses for dWorldQuickStep) rests on as many frames
 * as a stable run's; repetitions stop once a variant's runs on a problem
 * have taken 6 s of stepping (so their number depends on the machine's
 * speed, as the times do).  Every repetition must reproduce the first's
 * status, stretch and energy bit for bit (else the note says so).
 */
#define _POSIX_C_SOURCE 200809L

#include "animation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/cdyn.h"
#include "common.h"
#include "problem.h"
#include "problems.h"
#ifdef HAVE_ODE
#include "peer_ode.h"
#endif

#define ANIM_H (1.0 / 60)
#define ANIM_FRAMES 600L
#define ANIM_T (ANIM_FRAMES * ANIM_H)
#define ANIM_BLOWUP 0.1        /* the stability rule's largest stretch */
#define ANIM_RUNAWAY 1.0       /* a run stops once its stretch passes it */
#define ANIM_REP_BUDGET 6.0    /* s of stepping per problem and variant, for repetitions */
#define ANIM_MAX_REPS 64
#define ANIM_PROBLEMS 4
#define ANIM_SUBSTEPS_MAX 128
#define ANIM_MAX_SECONDS 60.0  /* a run's stepping time, a safety net (capped runs depend on the machine) */

/* ---- the variants ---------------------------------------------------------------- */

enum { V_BE, V_ODE_STEP, V_ODE_QUICK20, V_IMPLICIT, V_IMPLICIT_GS, V_XPBD, NV };

typedef struct {
  const char *name;
  const char *scheme;      /* cdyn; NULL: ODE */
  const char *key, *value; /* one option, or NULL */
  int ode;                 /* the ODE variant */
  size_t max_rows;         /* 0, or the largest m run */
  size_t short_rows;       /* 0, or the m above which a run is cut to short_frames */
  long short_frames;
  double max_seconds;      /* stepping time after which a run stops (capped): a safety net */
  const char *what;
} anim_variant;

static const anim_variant variants[NV] = {
  [V_BE] = {"backward-euler", "backward-euler", NULL, NULL, 0, 0, 0, 0, ANIM_MAX_SECONDS,
            "cdyn backward-euler, its defaults (listed under defaults)"},
#ifdef HAVE_ODE
  [V_ODE_STEP] = {"ode-step-erp1", NULL, NULL, NULL, PEER_ODE_STEP_ERP1, 5000, 1000, 1, ANIM_MAX_SECONDS,
                  "ODE dWorldStep, ERP 1 (the exact step: cdyn's implicit scheme)"},
  [V_ODE_QUICK20] = {"ode-quick20", NULL, NULL, NULL, PEER_ODE_QUICK20, 0, 0, 0, ANIM_MAX_SECONDS,
                     "ODE dWorldQuickStep, 20 iterations, ERP 0.2"},
#else
  [V_ODE_STEP] = {"ode-step-erp1", NULL, NULL, NULL, -1, 0, 0, 0, 0, "ODE dWorldStep (ODE not built in)"},
  [V_ODE_QUICK20] = {"ode-quick20", NULL, NULL, NULL, -1, 0, 0, 0, 0, "ODE dWorldQuickStep (ODE not built in)"},
#endif
  [V_IMPLICIT] = {"implicit", "implicit", NULL, NULL, 0, 0, 0, 0, ANIM_MAX_SECONDS, "cdyn implicit, solver auto"},
  [V_IMPLICIT_GS] = {"implicit-gs-diagonal", "implicit", "geometric_stiffness", "diagonal", 0, 0, 0, 0,
                     ANIM_MAX_SECONDS,
                     "cdyn implicit, geometric_stiffness = diagonal"},
  [V_XPBD] = {"xpbd-substeps", "xpbd", "iterations", "1", 0, 0, 0, 0, ANIM_MAX_SECONDS,
              "cdyn xpbd, 1 iteration per substep, n substeps per frame"},
};

/* ---- one run ---------------------------------------------------------------------- */

enum { S_NONE, S_STABLE, S_UNSTABLE, S_CAPPED, S_SKIPPED, S_ABSENT, S_ERROR };
static const char *const status_name[] = {"not run", "stable", "unstable", "capped", "not run", "absent", "error"};

typedef struct {
  int status;
  int substeps;           /* per frame */
  long steps;             /* (sub)steps taken and kept */
  long frames;            /* whole frames among them */
  double t_fail;          /* the failing step's end (unstable) */
  double stretch_max;     /* over the steps kept */
  double seconds;         /* stepping time of the steps */
  double e0, e_end;       /* J, at the start and after the last step */
  double nonlinear, factorizations; /* totals over the steps */
  double evals;           /* evaluations of all the constraint rows, total */
  int passed;             /* stopped by the search's target */
  char note[400];
} anim_run;

/* The per-step checks, outside the timed calls. */
typedef struct {
  const bench_problem *p;
  double hs;          /* the (sub)step */
  long total;         /* steps of the whole run */
  double stop_above;  /* end the run when the stretch passes it (the search's target) */
  double stretch_max;
  long step;          /* the last step checked */
  int passed;         /* stretch > stop_above */
  long blew;          /* the first step with stretch > ANIM_BLOWUP, or 0 */
  double blew_stretch;
  int runaway;        /* stopped: stretch > ANIM_RUNAWAY, or not finite */
  double e_last;
} watch;

static double energy(const bench_problem *p, const double *x, const double *v)
{
  double e = 0;
  for (size_t i = 0; i < p->n; i++) {
    const double *xi = x + 3 * i, *vi = v + 3 * i;
    e += p->mass[i] * (0.5 * (vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]) -
                       (p->g[0] * xi[0] + p->g[1] * xi[1] + p->g[2] * xi[2]));
  }
  return e;
}

static int watch_step(void *ctx, long step, const double *x, const double *v)
{
  watch *w = ctx;
  w->step = step;
  double s = bench_stretch(w->p, x);
  if (!(s <= w->stretch_max))
    w->stretch_max = s;
  if (!(s <= ANIM_BLOWUP) && !w->blew) {
    w->blew = step;
    w->blew_stretch = s;
  }
  if (!(s <= ANIM_RUNAWAY)) {
    w->runaway = 1;
    return 1;
  }
  if (s > w->stop_above) {
    w->passed = 1;
    return 1;
  }
  if (step == w->total)
    w->e_last = energy(w->p, x, v);
  return 0;
}

/* The fixed-point links' type: "sphere", given its geometric stiffness
   here if the library's type has none (backward-euler needs it). */
static int sphere_hess(const double *par, const double *const *x, double t, const double *lambda, double *K)
{
  (void)t;
  double d[3] = {x[0][0] - par[0], x[0][1] - par[1], x[0][2] - par[2]};
  double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!isfinite(r))
    return cdyn_error(CDYN_ENONFINITE, "sphere (bench): |x - c| is not finite");
  if (!(r > 0))
    return cdyn_error(CDYN_EDEGENERATE, "sphere (bench): the particle is at the centre (r = 0)");
  double s = lambda[0] / r;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      K[3 * a + b] = s * ((a == b) - d[a] * d[b] / (r * r));
  return CDYN_OK;
}

static cdyn_constraint_type sphere_with_hess;
static int sphere_own_hess; /* 1: the library's sphere has none, this file gives it */

static const cdyn_constraint_type *pinned_type(void)
{
  if (cdyn_constraint_sphere->hess)
    return cdyn_constraint_sphere;
  if (!sphere_with_hess.name) {
    sphere_with_hess = *cdyn_constraint_sphere;
    sphere_with_hess.name = "sphere+hess";
    sphere_with_hess.hess = sphere_hess;
    sphere_own_hess = 1;
  }
  return &sphere_with_hess;
}

/* ---- backward-euler's linear solves, timed (the profile of a missed speed goal) ---- */

static const cdyn_solver_type *ldlt_base;
static double prof_setup, prof_solve;
static unsigned long prof_setups, prof_solves;

static int tw_alloc(void **state, size_t mcap)
{
  return ldlt_base->alloc(state, mcap);
}

static void tw_free(void *state)
{
  ldlt_base->free(state);
}

static int tw_setup(void *state, const cdyn_matrix *A, double rank_tol, const void *opts, cdyn_solve_info *info)
{
  double t0 = cdyn_clock();
  int rc = ldlt_base->setup(state, A, rank_tol, opts, info);
  prof_setup += cdyn_clock() - t0;
  prof_setups++;
  return rc;
}

static int tw_solve(void *state, const cdyn_matrix *A, size_t nrhs, const double *b, double *x, double rank_tol,
                    const void *opts, cdyn_solve_info *info)
{
  double t0 = cdyn_clock();
  int rc = ldlt_base->solve(state, A, nrhs, b, x, rank_tol, opts, info);
  prof_solve += cdyn_clock() - t0;
  prof_solves++;
  return rc;
}

static cdyn_solver_type timed_ldlt;

/* Registers "ldlt-timed", ldlt through the timing wrapper; 0 or -1. */
static int register_timed_ldlt(void)
{
  static int done;
  if (done)
    return done > 0 ? 0 : -1;
  done = -1;
  if (cdyn_solver_type_find("ldlt", &ldlt_base))
    return -1;
  timed_ldlt = *ldlt_base;
  timed_ldlt.name = "ldlt-timed";
  timed_ldlt.description = "ldlt, its setup and solve timed (cdyn-bench's profile)";
  timed_ldlt.alloc = tw_alloc;
  timed_ldlt.free = tw_free;
  timed_ldlt.setup = tw_setup;
  timed_ldlt.solve = tw_solve;
  if (cdyn_solver_register(&timed_ldlt))
    return -1;
  done = 1;
  return 0;
}

/* ---- running cdyn and ODE ------------------------------------------------------------- */

static void finish(anim_run *r, const watch *w, int failed_step, const char *why)
{
  r->stretch_max = w->stretch_max;
  r->frames = r->steps / r->substeps;
  if (w->step == w->total)
    r->e_end = w->e_last;
  if (failed_step || w->blew) {
    /* The first failure is the blow-up; what came after, for the note. */
    r->status = S_UNSTABLE;
    long at = w->blew ? w->blew : w->step + 1;
    r->t_fail = (double)at * w->hs;
    size_t k = 0;
    if (w->blew)
      k = (size_t)snprintf(r->note, sizeof r->note, "stretch %.3g > %g at step %ld", w->blew_stretch, ANIM_BLOWUP,
                           at);
    if (k >= sizeof r->note)
      return;
    const char *then = k ? "; then " : "";
    if (failed_step && !k)
      snprintf(r->note + k, sizeof r->note - k, "step %ld failed: %.340s", w->step + 1, why);
    else if (failed_step)
      snprintf(r->note + k, sizeof r->note - k, "%sstep %ld (t = %.4g s) failed: %.300s", then, w->step + 1,
               (double)(w->step + 1) * w->hs, why);
    else if (w->runaway)
      snprintf(r->note + k, sizeof r->note - k, "%sstretch %.3g at step %ld (t = %.4g s), run stopped", then,
               w->stretch_max, w->step, (double)w->step * w->hs);
    else if (w->step == w->total)
      snprintf(r->note + k, sizeof r->note - k, "%sran to the end, largest stretch %.3g", then, w->stretch_max);
    else
      snprintf(r->note + k, sizeof r->note - k, "%scapped after %ld frames, largest stretch %.3g", then, r->frames,
               w->stretch_max);
  } else if (w->passed) {
    r->status = S_CAPPED;
    r->passed = 1;
    snprintf(r->note, sizeof r->note, "stopped at step %ld: stretch %.3g above the target %.3g", w->step,
             w->stretch_max, w->stop_above);
  } else if (r->steps < w->total) {
    r->status = S_CAPPED;
    snprintf(r->note, sizeof r->note, "capped: %ld of %ld frames (t = %.4g s) in %.3g s of stepping", r->frames,
             ANIM_FRAMES, (double)r->steps * w->hs, r->seconds);
  } else {
    r->status = S_STABLE;
  }
}

/* One run of a cdyn variant with n substeps per frame.  profile: through
   ldlt-timed (backward-euler only). */
static void run_cdyn(const bench_problem *p, const anim_variant *v, int n, double stop_above, int profile,
                     anim_run *r)
{
  memset(r, 0, sizeof *r);
  r->substeps = n;
  watch w = {.p = p, .hs = ANIM_H / n, .total = ANIM_FRAMES * n, .stop_above = stop_above};
  r->e0 = energy(p, p->x0, p->v0);
  cdyn_system *s = NULL;
  cdyn_stepper *st = NULL;
  int rc;
  if ((rc = bench_build_system(p, pinned_type(), &s)) || (rc = cdyn_stepper_new(&st, s, v->scheme))) {
    r->status = S_ERROR;
    snprintf(r->note, sizeof r->note, "build: %s", cdyn_errmsg());
    goto done;
  }
  if (v->key && (rc = cdyn_stepper_set(st, v->key, v->value))) {
    r->status = rc == CDYN_EUNKNOWN ? S_ABSENT : S_ERROR;
    snprintf(r->note, sizeof r->note, "cdyn_stepper_set(\"%s\", \"%s\"): %s", v->key, v->value, cdyn_errmsg());
    goto done;
  }
  if (profile && (rc = cdyn_stepper_set(st, "solver", "ldlt-timed"))) {
    r->status = S_ERROR;
    snprintf(r->note, sizeof r->note, "solver ldlt-timed: %s", cdyn_errmsg());
    goto done;
  }
  const double *x = cdyn_system_positions(s), *vel = cdyn_system_velocities(s);
  int failed = 0;
  char why[400] = "";
  while (r->steps < w.total) {
    double t0 = cdyn_clock();
    rc = cdyn_stepper_step(st, w.hs);
    r->seconds += cdyn_clock() - t0;
    if (rc != CDYN_OK) {
      failed = 1;
      snprintf(why, sizeof why, "%s%s: %.300s", bench_status_name(rc), rc > 0 ? " (the step not taken)" : "",
               cdyn_errmsg());
      break;
    }
    r->steps++;
    if (watch_step(&w, r->steps, x, vel))
      break;
    if (r->steps % n == 0 && r->seconds > v->max_seconds && r->steps < w.total)
      break;
  }
  cdyn_stats S;
  cdyn_stepper_stats(st, &S);
  r->nonlinear = (double)S.nonlinear_iterations;
  r->factorizations = (double)S.factorizations;
  r->evals = (double)S.constraint_evals;
  finish(r, &w, failed, why);
done:
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}

static void run_ode(const bench_problem *p, const anim_variant *v, anim_run *r)
{
  memset(r, 0, sizeof *r);
  r->substeps = 1;
  r->e0 = energy(p, p->x0, p->v0);
#ifdef HAVE_ODE
  watch w = {.p = p, .hs = ANIM_H, .total = ANIM_FRAMES, .stop_above = INFINITY};
  bench_run br;
  int cut = v->short_rows && p->links > v->short_rows;
  int rc = peer_ode_run_observed(p, v->ode, ANIM_H, cut ? v->short_frames : ANIM_FRAMES, 1, v->max_seconds, &br,
                                 watch_step, &w);
  r->steps = rc ? w.step : br.steps;
  r->seconds = br.seconds;
  if (rc && br.steps == 0 && !strncmp(br.note, "dWorldStep factors", 18)) {
    r->status = S_SKIPPED;
    snprintf(r->note, sizeof r->note, "%s", br.note);
    return;
  }
  finish(r, &w, rc != 0, br.note);
  if (cut && r->status == S_CAPPED)
    snprintf(r->note, sizeof r->note, "run for %ld of %ld frames only (above %zu rows, for its dense "
             "factorisation's time: see ms/frame)", r->frames, ANIM_FRAMES, v->short_rows);
  if (!rc && r->status == S_STABLE && br.note[0])
    snprintf(r->note, sizeof r->note, "%s", br.note);
#else
  (void)p;
  (void)v;
  r->status = S_ABSENT;
  snprintf(r->note, sizeof r->note, "ODE was not found at configure");
#endif
}

/* ---- the section ------------------------------------------------------------------------ */

typedef struct {
  bench_problem p;
  int reps[NV];
  double ms[NV];          /* ms per frame, the median over the repetitions */
  anim_run run[NV];       /* the first run */
  char search[512];       /* xpbd's search */
  double target;          /* xpbd's target stretch (backward-euler's), NAN without one */
  int reached;            /* xpbd: the chosen n meets the target */
} anim_row;

typedef struct {
  int have;
  double ms_frame, ms_setup, ms_solve, ms_rest; /* per frame */
  double setups, solves, nonlinear, evals;      /* per frame */
  long frames;
  char note[300];
} profile;

struct bench_anim {
  int quick, reps;
  size_t np;
  anim_row rows[ANIM_PROBLEMS];
  profile prof[ANIM_PROBLEMS]; /* backward-euler's, when a speed goal is missed */
  double exponent;             /* backward-euler's ms per frame against N over the chains */
  int exponent_points;
  double seconds;              /* the section's wall time */
};

static const char *status_of(const anim_run *r)
{
  return status_name[r->status];
}

static void log_run(const anim_row *row, const char *name, const anim_run *r, int rep)
{
  double f = r->frames ? (double)r->frames : NAN;
  fprintf(stderr, "  anim rep %d %-11s %-20s n=%-3d %-8s %5ld frames %8.3f ms/frame  it/frame %.3g  stretch %.2e  %s\n",
          rep, row->p.name, name, r->substeps, status_of(r), r->frames, 1e3 * r->seconds / f, r->nonlinear / f,
          r->stretch_max, r->note);
}

/* Runs variant iv on a row, with its repetitions; first: its
   first run, done already (or NULL). */
static void run_variant(bench_anim *a, anim_row *row, int iv, int n, double stop_above, const anim_run *first)
{
  const anim_variant *v = &variants[iv];
  anim_run *r = &row->run[iv];
  if (v->max_rows && row->p.links > v->max_rows) {
    memset(r, 0, sizeof *r);
    r->status = S_SKIPPED;
    r->substeps = 1;
    snprintf(r->note, sizeof r->note, "not run above %zu rows: dWorldStep's dense m x m matrix (m = %zu: %.2g GB, and "
             "as much again for its factor)", v->max_rows, row->p.links,
             (double)row->p.links * (double)row->p.links * 8 / 1e9);
    return;
  }
  if (first)
    *r = *first;
  else if (v->scheme)
    run_cdyn(&row->p, v, n, stop_above, 0, r);
  else
    run_ode(&row->p, v, r);
  if (!first)
    log_run(row, v->name, r, 1);
  row->reps[iv] = 1;
  double t[ANIM_MAX_REPS];
  t[0] = r->frames ? 1e3 * r->seconds / (double)r->frames : NAN;
  double spent = r->seconds;
  /* An unstable run is repeated until its repetitions have 600 frames
     together, so that its time per frame rests on as many frames as a
     stable run's. */
  int want = a->reps;
  if (r->status == S_UNSTABLE && r->frames > 0 && (ANIM_FRAMES + r->frames - 1) / r->frames > want)
    want = (int)((ANIM_FRAMES + r->frames - 1) / r->frames);
  if (want > ANIM_MAX_REPS)
    want = ANIM_MAX_REPS;
  while ((r->status == S_STABLE || (r->status == S_UNSTABLE && r->frames > 0)) && row->reps[iv] < want &&
         spent + r->seconds <= ANIM_REP_BUDGET) {
    anim_run again;
    if (v->scheme)
      run_cdyn(&row->p, v, n, stop_above, 0, &again);
    else
      run_ode(&row->p, v, &again);
    log_run(row, v->name, &again, row->reps[iv] + 1);
    spent += again.seconds;
    if (again.status != r->status || memcmp(&again.stretch_max, &r->stretch_max, sizeof(double)) ||
        memcmp(&again.e_end, &r->e_end, sizeof(double))) {
      size_t k = strlen(r->note);
      snprintf(r->note + k, sizeof r->note - k, "%srepetition %d differs: %s, stretch %.17g", k ? "; " : "",
               row->reps[iv] + 1, status_of(&again), again.stretch_max);
      break;
    }
    t[row->reps[iv]++] = again.frames ? 1e3 * again.seconds / (double)again.frames : NAN;
  }
  row->ms[iv] = bench_median(t, row->reps[iv]);
}

/* xpbd: the smallest n of 1, 2, ..., 128 with backward-euler's stretch. */
static void run_xpbd(bench_anim *a, anim_row *row)
{
  const anim_run *be = &row->run[V_BE];
  row->target = be->status == S_STABLE ? be->stretch_max : NAN;
  size_t len = 0;
  row->search[0] = 0;
  for (int n = isfinite(row->target) ? 1 : ANIM_SUBSTEPS_MAX; n <= ANIM_SUBSTEPS_MAX; n *= 2) {
    if (n < ANIM_SUBSTEPS_MAX) {
      anim_run trial;
      run_cdyn(&row->p, &variants[V_XPBD], n, row->target, 0, &trial);
      log_run(row, "xpbd-substeps (search)", &trial, 1);
      if (trial.status == S_STABLE) {
        row->reached = 1;
        run_variant(a, row, V_XPBD, n, row->target, &trial);
        return;
      }
      if (trial.status == S_ERROR || trial.status == S_ABSENT) {
        row->run[V_XPBD] = trial;
        return;
      }
      if (len < sizeof row->search) {
        if (trial.status == S_UNSTABLE)
          len += (size_t)snprintf(row->search + len, sizeof row->search - len, "%sn=%d: blew up at t = %.4g s",
                                  len ? "; " : "", n, trial.t_fail);
        else if (trial.passed)
          len += (size_t)snprintf(row->search + len, sizeof row->search - len,
                                  "%sn=%d: stretch %.2e at substep %ld", len ? "; " : "", n, trial.stretch_max,
                                  trial.steps);
        else
          len += (size_t)snprintf(row->search + len, sizeof row->search - len, "%sn=%d: %s", len ? "; " : "", n,
                                  trial.note);
      }
      continue;
    }
    run_variant(a, row, V_XPBD, n, INFINITY, NULL);
    row->reached = isfinite(row->target) && row->run[V_XPBD].status == S_STABLE &&
                   row->run[V_XPBD].stretch_max <= row->target;
    return;
  }
}

/* backward-euler through ldlt-timed: where a frame's time goes. */
static void run_profile(anim_row *row, profile *pr)
{
  memset(pr, 0, sizeof *pr);
  if (register_timed_ldlt()) {
    snprintf(pr->note, sizeof pr->note, "no profile: the timing wrapper could not be registered (%s)", cdyn_errmsg());
    return;
  }
  prof_setup = prof_solve = 0;
  prof_setups = prof_solves = 0;
  anim_run r;
  run_cdyn(&row->p, &variants[V_BE], 1, INFINITY, 1, &r);
  log_run(row, "backward-euler (profile)", &r, 1);
  if (!r.frames) {
    snprintf(pr->note, sizeof pr->note, "no profile: %.250s", r.note);
    return;
  }
  double f = (double)r.frames;
  pr->have = 1;
  pr->frames = r.frames;
  pr->ms_frame = 1e3 * r.seconds / f;
  pr->ms_setup = 1e3 * prof_setup / f;
  pr->ms_solve = 1e3 * prof_solve / f;
  pr->ms_rest = pr->ms_frame - pr->ms_setup - pr->ms_solve;
  pr->setups = (double)prof_setups / f;
  pr->solves = (double)prof_solves / f;
  pr->nonlinear = r.nonlinear / f;
  pr->evals = r.evals / f;
  if (r.status != S_STABLE)
    snprintf(pr->note, sizeof pr->note, "%.250s", r.note);
}

static int stable(const anim_row *row, int iv)
{
  return row && row->run[iv].status == S_STABLE;
}

static const anim_row *find_row(const bench_anim *a, const char *name)
{
  for (size_t ip = 0; ip < a->np; ip++)
    if (!strcmp(a->rows[ip].p.name, name))
      return &a->rows[ip];
  return NULL;
}

/* Frames per second of a stable run; NAN else. */
static double fps(const anim_row *row, int iv)
{
  return stable(row, iv) ? 1e3 / row->ms[iv] : NAN;
}

static void fit_exponent(bench_anim *a)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (size_t ip = 0; ip < a->np; ip++) {
    const anim_row *row = &a->rows[ip];
    if (strncmp(row->p.name, "chain-", 6) || !stable(row, V_BE))
      continue;
    double X = log((double)row->p.links), Y = log(row->ms[V_BE]);
    sx += X, sy += Y, sxx += X * X, sxy += X * Y, n++;
  }
  a->exponent_points = n;
  a->exponent = n >= 2 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : NAN;
}

bench_anim *bench_anim_run(int quick, int reps, const char *only)
{
  bench_anim *a = calloc(1, sizeof *a);
  if (!a)
    return NULL;
  double t0 = cdyn_clock();
  a->quick = quick;
  a->reps = quick ? 1 : reps < 1 ? 1 : reps > ANIM_MAX_REPS ? ANIM_MAX_REPS : reps;
  const size_t sizes[ANIM_PROBLEMS] = {100, 1000, 5000, 64};
  size_t count = quick ? 2 : ANIM_PROBLEMS;
  for (size_t k = 0; k < count; k++) {
    anim_row *row = &a->rows[a->np];
    int rc = k < 3 ? bench_chain(&row->p, sizes[k]) : bench_grid(&row->p, sizes[k]);
    if (rc) {
      bench_anim_free(a);
      return NULL;
    }
    if (only && !bench_in_list(only, row->p.name)) {
      bench_problem_free(&row->p);
      continue;
    }
    row->target = NAN;
    a->np++;
  }
  fprintf(stderr, "cdyn-bench: the animation step, h = 1/60 s for %g s\n", ANIM_T);
  for (size_t ip = 0; ip < a->np; ip++) {
    anim_row *row = &a->rows[ip];
    for (int iv = 0; iv < NV; iv++)
      if (iv != V_XPBD)
        run_variant(a, row, iv, 1, INFINITY, NULL);
    run_xpbd(a, row);
  }
  fit_exponent(a);
  /* The profile of a missed speed goal. */
  const anim_row *c1000 = find_row(a, "chain-1000");
  double ratio = fps(c1000, V_BE) * (c1000 ? c1000->ms[V_ODE_QUICK20] : NAN) / 1e3;
  int miss_speed = c1000 && stable(c1000, V_BE) && !(ratio >= 1);
  int miss_scaling = a->exponent_points == 3 && !(a->exponent <= 1.1);
  for (size_t ip = 0; ip < a->np; ip++) {
    anim_row *row = &a->rows[ip];
    int chain = !strncmp(row->p.name, "chain-", 6);
    if (stable(row, V_BE) && ((miss_speed && row == c1000) || (miss_scaling && chain)))
      run_profile(row, &a->prof[ip]);
  }
  a->seconds = cdyn_clock() - t0;
  return a;
}

void bench_anim_free(bench_anim *a)
{
  if (!a)
    return;
  for (size_t ip = 0; ip < a->np; ip++)
    bench_problem_free(&a->rows[ip].p);
  free(a);
}

/* ---- the outputs ------------------------------------------------------------------------- */

int bench_anim_write(const bench_anim *a, const char *dir, int argc, char **argv)
{
  char tmp[1024], fin[1024];
  FILE *f = bench_open_tmp(dir, "animation.csv", tmp, fin, sizeof tmp);
  if (!f) {
    fprintf(stderr, "cdyn-bench: cannot write in %s (does the directory exist?)\n", dir);
    return -1;
  }
  fprintf(f, "problem,links,particles,h,frames,variant,substeps,status,t_blowup,frames_run,stretch_max,ms_per_frame,"
             "frames_per_s,reps,nonlinear_per_frame,factorizations_per_frame,energy_loss_per_s,E0,E_end,"
             "xpbd_target,xpbd_search,note\n");
  for (size_t ip = 0; ip < a->np; ip++)
    for (int iv = 0; iv < NV; iv++) {
      const anim_row *row = &a->rows[ip];
      const anim_run *r = &row->run[iv];
      fprintf(f, "%s,%zu,%zu,%.17g,%ld,%s,%d,%s,", row->p.name, row->p.links, row->p.n, ANIM_H, ANIM_FRAMES,
              variants[iv].name, r->substeps, status_of(r));
      if (r->status == S_UNSTABLE)
        fprintf(f, "%.6g,", r->t_fail);
      else
        fprintf(f, ",");
      /* Every run's numbers, over the frames it ran (the status says
         whether they count; summary.md shows '-' for an unstable run). */
      fprintf(f, "%ld,", r->frames);
      if (r->steps > 0)
        fprintf(f, "%.4g,", r->stretch_max);
      else
        fprintf(f, ",");
      if (r->frames > 0) {
        fprintf(f, "%.6g,%.6g,%d,", row->ms[iv], 1e3 / row->ms[iv], row->reps[iv]);
        if (variants[iv].scheme)
          fprintf(f, "%.4g,%.4g,", r->nonlinear / (double)r->frames, r->factorizations / (double)r->frames);
        else
          fprintf(f, ",,");
      } else {
        fprintf(f, ",,,,,");
      }
      if (r->steps > 0 && r->steps == ANIM_FRAMES * r->substeps)
        fprintf(f, "%.6g,%.10g,%.10g,", (r->e0 - r->e_end) / ANIM_T, r->e0, r->e_end);
      else
        fprintf(f, ",,,");
      if (iv == V_XPBD) {
        fprintf(f, "%.4g,", row->target);
        exp_csv_field(f, row->search);
      } else {
        fprintf(f, ",");
      }
      fprintf(f, ",");
      exp_csv_field(f, r->note);
      fprintf(f, "\n");
    }
  if (bench_close_tmp(f, tmp, fin))
    return -1;

  f = bench_open_tmp(dir, "animation.meta.json", tmp, fin, sizeof tmp);
  if (!f)
    return -1;
  bench_meta_begin(f, argc, argv);
  fprintf(f, ",\n  \"section\": \"animation step\",\n  \"parameters\": {\"h\": %.17g, \"frames\": %ld, \"T\": %g, "
             "\"reps\": %d, \"rep_budget_seconds\": %g, \"quick\": %d, \"link\": %g, \"mass\": %g, \"kick\": %g, "
             "\"g\": %g, \"stability_rule\": \"every step returns CDYN_OK (ODE: succeeds), the state stays finite, "
             "and the largest relative stretch over the run, checked after every (sub)step, stays <= %g\", "
             "\"xpbd_substeps\": \"smallest n of 1, 2, 4, ..., %d whose largest stretch is at most backward-euler's on "
             "the same problem, else %d\", \"sphere_hess_from_bench\": %s, \"section_seconds\": %.1f},\n"
             "  \"problems\": [",
          ANIM_H, ANIM_FRAMES, ANIM_T, a->reps, ANIM_REP_BUDGET, a->quick, BENCH_LINK, BENCH_MASS, BENCH_KICK, BENCH_G,
          ANIM_BLOWUP, ANIM_SUBSTEPS_MAX, ANIM_SUBSTEPS_MAX, sphere_own_hess ? "true" : "false", a->seconds);
  for (size_t ip = 0; ip < a->np; ip++)
    fprintf(f, "%s{\"name\": \"%s\", \"links\": %zu, \"particles\": %zu}", ip ? ", " : "", a->rows[ip].p.name,
            a->rows[ip].p.links, a->rows[ip].p.n);
  fprintf(f, "],\n  \"variants\": [");
  for (int iv = 0; iv < NV; iv++) {
    const anim_variant *v = &variants[iv];
    fprintf(f, "%s{\"name\": \"%s\", \"what\": ", iv ? ", " : "", v->name);
    exp_json_str(f, v->what);
    size_t si;
    if (v->scheme && !cdyn_scheme_find(v->scheme, &si)) {
      fprintf(f, ", \"scheme\": \"%s\", \"defaults\": {", v->scheme);
      for (size_t k = 0; k < cdyn_scheme_option_count(si); k++) {
        const char *name = NULL, *def = NULL;
        cdyn_scheme_option(si, k, &name, &def, NULL);
        fprintf(f, "%s", k ? ", " : "");
        exp_json_str(f, name ? name : "?");
        fprintf(f, ": ");
        exp_json_str(f, def ? def : "");
      }
      fprintf(f, "}");
    }
    if (v->key)
      fprintf(f, ", \"%s\": \"%s\"", v->key, v->value);
    fprintf(f, ", \"max_seconds\": %g", v->max_seconds);
    if (v->max_rows)
      fprintf(f, ", \"max_rows\": %zu", v->max_rows);
    if (v->short_rows)
      fprintf(f, ", \"frames_above_%zu_rows\": %ld", v->short_rows, v->short_frames);
    fprintf(f, "}");
  }
  fprintf(f, "]\n}\n");
  return bench_close_tmp(f, tmp, fin);
}

static void print_table(FILE *g, const bench_anim *a)
{
  fprintf(g, "| problem | variant | n | stable | blow-up (s) | stretch max | ms/frame | frames/s | reps | "
             "Newton it./frame | factorisations/frame | energy lost (W) | note |\n");
  fprintf(g, "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  for (size_t ip = 0; ip < a->np; ip++)
    for (int iv = 0; iv < NV; iv++) {
      const anim_row *row = &a->rows[ip];
      const anim_run *r = &row->run[iv];
      fprintf(g, "| %s | %s | %d | ", row->p.name, variants[iv].name, r->substeps);
      switch (r->status) {
      case S_STABLE:
        fprintf(g, "yes | - | %.2e | %.4g | %.4g | %d | ", r->stretch_max, row->ms[iv], 1e3 / row->ms[iv],
                row->reps[iv]);
        if (variants[iv].scheme)
          fprintf(g, "%.3g | %.3g | ", r->nonlinear / (double)r->frames, r->factorizations / (double)r->frames);
        else
          fprintf(g, "- | - | ");
        fprintf(g, "%.4g | ", (r->e0 - r->e_end) / ANIM_T);
        break;
      case S_UNSTABLE:
        fprintf(g, "no | %.4g | - | - | - | - | - | - | - | ", r->t_fail);
        break;
      case S_CAPPED:
        fprintf(g, "capped | - | %.2e | %.4g | %.4g | 1 | ", r->stretch_max, 1e3 * r->seconds / (double)r->frames,
                (double)r->frames / r->seconds);
        if (variants[iv].scheme)
          fprintf(g, "%.3g | %.3g | - | ", r->nonlinear / (double)r->frames, r->factorizations / (double)r->frames);
        else
          fprintf(g, "- | - | - | ");
        break;
      default:
        fprintf(g, "%s | - | - | - | - | - | - | - | - | ", status_of(r));
      }
      const char *sep = "";
      if (iv == V_XPBD && r->status != S_ABSENT && r->status != S_ERROR) {
        if (!isfinite(row->target))
          fprintf(g, "no target (backward-euler not stable): n = %d, the largest tried", r->substeps);
        else if (row->reached)
          fprintf(g, "smallest n with stretch <= backward-euler's %.2e", row->target);
        else
          fprintf(g, "no n up to %d reaches backward-euler's stretch %.2e: n = %d, the largest tried",
                  ANIM_SUBSTEPS_MAX, row->target, r->substeps);
        sep = "; ";
      }
      if (r->note[0])
        fprintf(g, "%s%s", sep, r->note);
      fprintf(g, " |\n");
    }
}

/* What a run did, for the goals: "stable, stretch ...", "blew up at t = ...:
   what", ...; brief: without the note. */
static void describe(char *buf, size_t len, const anim_row *row, int iv, int brief)
{
  if (!row) {
    snprintf(buf, len, "not run in this invocation");
    return;
  }
  const anim_run *r = &row->run[iv];
  switch (r->status) {
  case S_STABLE:
    snprintf(buf, len, "stable, stretch %.2e", r->stretch_max);
    break;
  case S_UNSTABLE:
    if (brief)
      snprintf(buf, len, "blew up at t = %.4g s", r->t_fail);
    else
      snprintf(buf, len, "blew up at t = %.4g s: %s", r->t_fail, r->note);
    break;
  case S_CAPPED:
    snprintf(buf, len, "%s, stretch %.2e so far", r->note, r->stretch_max);
    break;
  default:
    if (brief)
      snprintf(buf, len, "%s", status_of(r));
    else
      snprintf(buf, len, "%s (%s)", status_of(r), r->note);
  }
}

/* The default of a scheme's option, as text ("?" if unknown). */
static const char *scheme_default(const char *scheme, const char *key)
{
  size_t i;
  if (cdyn_scheme_find(scheme, &i))
    return "?";
  for (size_t k = 0; k < cdyn_scheme_option_count(i); k++) {
    const char *name, *def;
    if (!cdyn_scheme_option(i, k, &name, &def, NULL) && name && !strcmp(name, key))
      return def ? def : "?";
  }
  return "?";
}

static const char *verdict(int pass)
{
  return pass ? "PASS" : "MISS";
}

/* PASS/MISS of a goal on a problem, or n/a when it was not run here. */
static const char *verdict_on(const anim_row *row, int pass)
{
  return row ? verdict(pass) : "n/a";
}

static void print_profile(FILE *g, const bench_anim *a, const anim_row *row)
{
  const profile *pr = &a->prof[row - a->rows];
  if (!pr->have) {
    fprintf(g, "   - profile of backward-euler on %s: %s\n", row->p.name, pr->note[0] ? pr->note : "not run");
    return;
  }
  fprintf(g, "   - profile of backward-euler on %s (a second run, its ldlt setups and solves timed through a "
             "forwarding wrapper): %.3g ms per frame = factorisation (ldlt setup) %.3g ms (%.0f %%, %.3g per frame, "
             "%.3g ms each) + triangular solves %.3g ms (%.0f %%) + the rest (constraint and Hessian evaluations, "
             "assembly, residuals, line search) %.3g ms (%.0f %%); per frame %.3g Newton iterations and %.3g "
             "evaluations of all the constraint rows%s%s\n",
          row->p.name, pr->ms_frame, pr->ms_setup, 100 * pr->ms_setup / pr->ms_frame, pr->setups,
          pr->setups > 0 ? pr->ms_setup / pr->setups : NAN, pr->ms_solve, 100 * pr->ms_solve / pr->ms_frame,
          pr->ms_rest, 100 * pr->ms_rest / pr->ms_frame, pr->nonlinear, pr->evals, pr->note[0] ? "; " : "",
          pr->note);
}

static void print_goals(FILE *g, const bench_anim *a)
{
  char d1[600], d2[600];
  fprintf(g, "\nGoals of the animation step, as measured (PASS/MISS; each ratio is >= 1 when met; n/a and nan: "
             "a run missing from this invocation):\n");
  /* 1 */
  const anim_row *row = find_row(a, "chain-1000");
  double s_be = stable(row, V_BE) ? row->run[V_BE].stretch_max : NAN;
  const char *tol = scheme_default("backward-euler", "tol");
  fprintf(g, "1. chain-1000 at 1/60 s over 10 s: backward-euler %s; largest stretch %.2e (goal <= 1e-8; its tol of "
             "%s m on links of %g m is a stretch of %.2g): ratio %.3g, %s\n",
          !row ? "not run in this invocation" : stable(row, V_BE) ? "stable" : "NOT stable", s_be, tol, BENCH_LINK,
          strtod(tol, NULL) / BENCH_LINK, 1e-8 / s_be,
          verdict_on(row, stable(row, V_BE) && s_be <= 1e-8));
  /* ode-quick20's speed over the frames it ran, stable or not (its per-frame
     work does not depend on the state: 20 sweeps). */
  double fb = fps(row, V_BE), fq = row && row->run[V_ODE_QUICK20].frames > 0 ? 1e3 / row->ms[V_ODE_QUICK20] : NAN;
  describe(d1, sizeof d1, row, V_ODE_QUICK20, 1);
  fprintf(g, "   - frames per second: backward-euler %.4g, ode-quick20 %.4g (the median of %d runs of the %ld frames "
             "each ran; %s): ratio %.3g (goal >= 1), %s; largest stretches: backward-euler %.2e, ode-quick20 %.2e\n",
          fb, fq, row ? row->reps[V_ODE_QUICK20] : 0, row ? row->run[V_ODE_QUICK20].frames : 0L, d1, fb / fq,
          verdict_on(row, fb / fq >= 1), s_be,
          row && row->run[V_ODE_QUICK20].steps ? row->run[V_ODE_QUICK20].stretch_max : NAN);
  if (row && !(fb / fq >= 1))
    print_profile(g, a, row);
  describe(d1, sizeof d1, row, V_IMPLICIT, 0);
  describe(d2, sizeof d2, row, V_ODE_STEP, 0);
  int both = row && row->run[V_IMPLICIT].status == S_UNSTABLE && row->run[V_ODE_STEP].status == S_UNSTABLE;
  fprintf(g, "   - expected to blow up there: implicit %s; ode-step-erp1 %s: %s\n", d1, d2, verdict_on(row, both));
  describe(d1, sizeof d1, row, V_IMPLICIT_GS, 0);
  fprintf(g, "   - implicit with geometric_stiffness = diagonal: %s\n", d1);
  /* 2 */
  row = find_row(a, "chain-5000");
  describe(d1, sizeof d1, row, V_BE, 0);
  fprintf(g, "2. chain-5000 at 1/60 s: backward-euler %s: %s\n", d1, verdict_on(row, stable(row, V_BE)));
  int chains = !!find_row(a, "chain-100") + !!find_row(a, "chain-1000") + !!find_row(a, "chain-5000");
  fprintf(g, "   - fitted exponent of backward-euler's time per frame against N over N = 100, 1000, 5000 (%d of "
             "them run, %d stable): %.3g (goal <= 1.1): ratio %.3g, %s\n",
          chains, a->exponent_points, a->exponent, 1.1 / a->exponent,
          chains < 3                  ? "n/a (the three chains were not all run)"
          : a->exponent_points == 3 ? verdict(a->exponent <= 1.1)
                                      : "MISS (backward-euler not stable on all three)");
  if (a->exponent_points == 3 && !(a->exponent <= 1.1))
    for (size_t ip = 0; ip < a->np; ip++)
      if (!strncmp(a->rows[ip].p.name, "chain-", 6))
        print_profile(g, a, &a->rows[ip]);
  /* 3 */
  row = find_row(a, "grid-64x64");
  fprintf(g, "3. grid-64x64 (cloth) at 1/60 s: backward-euler %s: %s\n",
          row ? (describe(d1, sizeof d1, row, V_BE, 0), d1) : "not run in this invocation",
          verdict_on(row, stable(row, V_BE)));
  if (row) {
    fprintf(g, "   - stable:");
    int any = 0;
    for (int iv = 0; iv < NV; iv++)
      if (stable(row, iv))
        fprintf(g, "%s %s (stretch %.2e)", any++ ? "," : "", variants[iv].name, row->run[iv].stretch_max);
    fprintf(g, "%s; not:", any ? "" : " none");
    any = 0;
    for (int iv = 0; iv < NV; iv++)
      if (!stable(row, iv)) {
        describe(d1, sizeof d1, row, iv, 1);
        fprintf(g, "%s %s %s", any++ ? ";" : "", variants[iv].name, d1);
      }
    fprintf(g, "%s\n", any ? "" : " none");
  }
}

void bench_anim_print(FILE *g, const bench_anim *a)
{
  fprintf(g, "\n## The animation step: h = 1/60 s for 10 s (600 frames)\n\n");
  fprintf(g, "Hanging chains of N links of 5 cm (1 kg nodes, kicked sideways at 5 cm/s) and the 64 x 64 cloth (1 kg "
             "nodes 5 cm apart, flat, at rest, falling with two opposite corners held), every variant at h = 1/60 s "
             "(h omega_N = 2.3, 7.4 and 16.5 on the chains). Stable, a rule fixed before the runs: every step "
             "returns CDYN_OK (ODE: succeeds), the state stays finite, and the largest relative stretch "
             "max |d - l| / l, checked after every step (every substep for xpbd), stays <= %g. An unstable run's "
             "blow-up time is the end of its first step that breaks the rule; the run goes on until a step fails, "
             "the state is not finite or the stretch passes %g, and its note says what it did. A frame is 1/60 s: "
             "n substeps for xpbd-substeps, one Gauss-Seidel iteration each (its Newton column counts those "
             "iterations). ms/frame: the step calls' time over the frames (the first frame's symbolic analysis "
             "included), the median over reps. Energy lost: (E(0) - E(T)) / T, E = kinetic + gravitational, which "
             "includes the potential released by links that stretch. ODE: dWorldStep with ERP 1 (the same scheme as "
             "implicit), dWorldQuickStep with 20 iterations and ERP 0.2. Caps: dWorldStep runs one frame above 1000 rows "
             "and none above 5000 (dense); any run stops after %g s of stepping, a safety net, and is reported "
             "capped.%s\n\n",
          ANIM_BLOWUP, ANIM_RUNAWAY, ANIM_MAX_SECONDS,
          sphere_own_hess ? " The links to fixed points use the library's sphere constraint with its geometric "
                            "stiffness supplied by the benchmark (the library's sphere has none, and "
                            "backward-euler needs it)."
                          : "");
  print_table(g, a);
  print_goals(g, a);
  fprintf(g, "\n(The section took %.0f s.)\n", a->seconds);
}
