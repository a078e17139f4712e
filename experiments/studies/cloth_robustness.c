/*
 * cloth_robustness.c: cloth-robustness (beyond the papers): where does a
 * scheme hold a strain-limited hanging cloth at an animator's step, and
 * where does it stop?
 *
 * The cloth (problems/cloth_scene.c, without the ball): a square patch of
 * side `size` (1 m), grid x grid nodes (16 x 16), total mass `mass` (0.5
 * kg), Provot's springs k_struct = 100, k_shear = 20, k_bend = 2 N/m,
 * damping 0.02 N s/m, horizontal at y = 0 at rest, pinned at the two
 * corners of its edge z = -size/2, under gravity; the strain limiter at
 * eps_max (0.1).  Each variant (the table `variants` below, chosen by the
 * parameter of that name) changes one or a few of these, and runs for T
 * (3 s) at its step:
 *   base            the cloth as above, at the experiment's h (1/60 s);
 *   rect-half       nx = grid, ny = grid / 2 nodes;
 *   rect-double     nx = grid, ny = 2 grid nodes;
 *                   (a rectangle of the same fabric: the same spacing
 *                   size / (grid - 1) and mass per node, so ny / grid of
 *                   the square's mass, the pinned edge still size long);
 *   heavy           mass 5 kg;
 *   heavy-pins      mass 5 kg, every 4th node of the pinned edge pinned
 *                   (0, 4, 8, ... and the far corner);
 *   tilt            gravity (5, -9.81, 0) m/s^2;
 *   tilt-45         gravity (9.81, -9.81, 0) m/s^2;
 *   eps5            eps_max 0.05;
 *   h30             h = 1/30 s;
 *   h30-eps5-heavy  h = 1/30 s, eps_max 0.05 and mass 5 kg together;
 *   h15             h = 1/15 s.
 * A variant's own values replace the parameters' (mass 5 kg whatever
 * `mass` says); what it does not name comes from the parameters.
 *
 * Runs: projected-newton and admm (pins and inequality rows only; admm
 * with its defaults, 10 iterations a step) with the strain limiter in its
 * inequality mode (a one-sided tether row at 1 + eps_max on
 * every structural spring, on for good: the scheme decides inside its
 * step where they act); the companion backward-euler with the limiter's
 * adaptive constraints, switched before and after each step
 * (exp_cloth_run_method picks the mode from the scheme's kind); any
 * scheme given with --scheme or --extra-schemes that can take either
 * (baraff-witkin cannot: it enforces pins only, and the limit is a
 * constraint).
 *
 * Measured after every step: the largest structural strain (|x_ij| - L0)
 * / L0, the nonlinear iterations and numeric factorisations of the step
 * (cloth-robustness-series.csv); per run the rule's verdict, where it
 * stopped and why, the largest and the end strain, iterations and
 * factorisations per step (cloth-robustness.csv), and the wall clock per
 * step (cloth-robustness-time.csv, the one file that changes from run to
 * run).  No claim: it is a map.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdyn/cloth.h>

#include "runner/experiment.h"

#include "problems/cloth_scene.h"

/* ---- the variants ---------------------------------------------------------------------------- */

typedef struct {
  const char *name;
  int ny_num, ny_den; /* ny = grid * ny_num / ny_den (integer division) */
  double mass;        /* total mass of the square patch (kg); 0: the parameter's */
  int pin_every;      /* 0: the two corners; k: every k-th node of the pinned edge and the far corner */
  double g[3];        /* gravity (m/s^2) */
  double eps_max;     /* the limit; 0: the parameter's */
  double h;           /* the step (s); 0: the experiment's (--h) */
  const char *doc;
} variant;

static const variant variants[] = {
  {"base", 1, 1, 0, 0, {0, -9.81, 0}, 0, 0, "the cloth as described"},
  {"rect-half", 1, 2, 0, 0, {0, -9.81, 0}, 0, 0, "ny = grid/2 nodes across, the same fabric"},
  {"rect-double", 2, 1, 0, 0, {0, -9.81, 0}, 0, 0, "ny = 2 grid nodes across, the same fabric"},
  {"heavy", 1, 1, 5, 0, {0, -9.81, 0}, 0, 0, "mass 5 kg"},
  {"heavy-pins", 1, 1, 5, 4, {0, -9.81, 0}, 0, 0, "mass 5 kg, every 4th node of the pinned edge pinned"},
  {"tilt", 1, 1, 0, 0, {5, -9.81, 0}, 0, 0, "gravity (5, -9.81, 0)"},
  {"tilt-45", 1, 1, 0, 0, {9.81, -9.81, 0}, 0, 0, "gravity (9.81, -9.81, 0)"},
  {"eps5", 1, 1, 0, 0, {0, -9.81, 0}, 0.05, 0, "eps_max 0.05"},
  {"h30", 1, 1, 0, 0, {0, -9.81, 0}, 0, 1.0 / 30, "h = 1/30 s"},
  {"h30-eps5-heavy", 1, 1, 5, 0, {0, -9.81, 0}, 0.05, 1.0 / 30, "h = 1/30 s, eps_max 0.05, mass 5 kg"},
  {"h15", 1, 1, 0, 0, {0, -9.81, 0}, 0, 1.0 / 15, "h = 1/15 s"},
};
#define NVARIANTS (sizeof variants / sizeof variants[0])
#define MAX_PINS 1024

static const exp_param rob_params[] = {
  {"grid", "16", EXP_INT, 4, 128, 0, "nodes along the pinned edge (and across the square patch)"},
  CLOTH_MATERIAL_PARAMS,
  {"eps_max", "0.1", EXP_REAL, 0, 10, EXP_OPEN_MIN, "strain limit of the variants that do not set their own"},
  {"eps_tol", "0.01", EXP_REAL, 0, 10, 0, "the rule's margin: a run holds while the largest strain <= eps_max + eps_tol"},
  {"T", "3", EXP_REAL, 0, 1000, EXP_OPEN_MIN, "time each variant runs (s)"},
  {"variants", "base,rect-half,rect-double,heavy,heavy-pins,tilt,tilt-45,eps5,h30,h30-eps5-heavy,h15", EXP_TEXT, 0,
   0, 0,
   "variants of the cloth to run, comma separated (base, rect-half, rect-double, heavy, heavy-pins, tilt, tilt-45, "
   "eps5, h30, h30-eps5-heavy, h15; experiments/studies/cloth_robustness.c defines them)"},
  EXP_PARAMS_END};

static const exp_companion rob_companions[] = {
  {"backward-euler", "backward-euler", NULL,
   "backward Euler with the limiter's adaptive constraints, switched before and after each step"},
  {NULL, NULL, NULL, NULL}};

/* The variants of the parameter, as indices into `variants`; 1 when the
   list is not one of their names, each at most once. */
static int parse_variants(const char *text, int *idx, int *n)
{
  char names[NVARIANTS][EXP_LIST_NAME];
  if (exp_list_names(text, "variants", EXP_LIST_SPACES | EXP_LIST_UNIQUE, names, (int)NVARIANTS, n)) {
    cdyn_error_clear();
    return 1;
  }
  for (int k = 0; k < *n; k++) {
    idx[k] = -1;
    for (size_t v = 0; v < NVARIANTS; v++)
      if (!strcmp(names[k], variants[v].name))
        idx[k] = (int)v;
    if (idx[k] < 0)
      return 1;
  }
  return 0;
}

static int rob_check(exp_ctx *ctx)
{
  int idx[NVARIANTS], n;
  if (parse_variants(exp_param_string(ctx, "variants"), idx, &n))
    return cdyn_error(CDYN_EINVAL, "variants: names of variants, comma separated, each at most once: base, rect-half, "
                                   "rect-double, heavy, heavy-pins, tilt, tilt-45, eps5, h30, h30-eps5-heavy, h15");
  double T;
  exp_param_double(ctx, "T", &T);
  for (int k = 0; k < n; k++) {
    double h = variants[idx[k]].h > 0 ? variants[idx[k]].h : ctx->h;
    if (T / h > 1e7)
      return cdyn_error(CDYN_EINVAL, "T: %g s at h = %g s is more than 1e7 steps", T, h);
  }
  return 0;
}

/* A variant made concrete by the parameters. */
typedef struct {
  const variant *v;
  long nx, ny;
  double mass, eps_max, bound, h, depth;
  long steps;
  size_t pins[MAX_PINS], npins;
} rob_case;

static void make_case(exp_ctx *ctx, const exp_cloth_spec *sp, const variant *v, rob_case *c)
{
  double eps_max, eps_tol, T;
  exp_param_double(ctx, "eps_max", &eps_max);
  exp_param_double(ctx, "eps_tol", &eps_tol);
  exp_param_double(ctx, "T", &T);
  memset(c, 0, sizeof *c);
  c->v = v;
  c->nx = sp->grid;
  c->ny = sp->grid * v->ny_num / v->ny_den;
  double square_mass = v->mass > 0 ? v->mass : sp->mass;
  /* The same fabric: the mass per node and the spacing of the square. */
  c->mass = square_mass * (double)c->ny / (double)sp->grid;
  c->depth = sp->size * (double)(c->ny - 1) / (double)(sp->grid - 1);
  c->eps_max = v->eps_max > 0 ? v->eps_max : eps_max;
  c->bound = c->eps_max + eps_tol;
  c->h = v->h > 0 ? v->h : ctx->h;
  c->steps = (long)ceil(T / c->h - 1e-9);
  size_t N = (size_t)c->nx;
  if (v->pin_every > 0) {
    for (size_t i = 0; i < N; i += (size_t)v->pin_every)
      c->pins[c->npins++] = i;
    if (c->pins[c->npins - 1] != N - 1)
      c->pins[c->npins++] = N - 1;
  } else {
    c->pins[0] = 0;
    c->pins[1] = N - 1;
    c->npins = 2;
  }
}

/* ---- the rule --------------------------------------------------------------------------------- */

/*
 * The rule, fixed before any run: a run holds when every step
 *   - is taken: it returns a status >= 0 and advances the time (a
 *     CDYN_NOCONV from a scheme that restores its state when its
 *     iteration does not converge, projected-newton and backward-euler,
 *     is a step not taken: at a fixed step an animation cannot go on from
 *     it, and the run ends there);
 *   - leaves a finite state;
 *   - leaves the largest structural strain at most eps_max + eps_tol
 *     (the variant's eps_max; eps_tol 0.01 by default, the tolerance 0.11
 *     of a 0.1 limit that cloth.frame_rate allows, for any limit).
 * Recorded: the first rule broken (fail) and the time of the step at
 * which it was (t_stop).  A run ends there: the map asks where a scheme
 * stops holding the cloth, not what it does after.
 */
enum rob_fail { RF_NONE, RF_FAILED, RF_NOT_TAKEN, RF_NONFINITE, RF_STRAIN };
static const char *const fail_names[] = {"none", "failed-step", "step-not-taken", "non-finite", "strain-bound"};

typedef struct {
  exp_ctx *ctx;
  const exp_runspec *run;
  const rob_case *c;
  exp_cloth_scene *s;
  exp_csv *series;
  enum rob_fail fail;
  long k_fail, steps_done;
  double max, end;
  unsigned long fact_prev;
} rob_obs;

static void rob_break(rob_obs *o, enum rob_fail f, long k)
{
  if (o->fail == RF_NONE) {
    o->fail = f;
    o->k_fail = k;
  }
}

/* A row of the series: the run, the variant, then h, t, the step, the
   strain, the step's iterations and factorisations, its status. */
static int series_row(rob_obs *o, long k, double strain, double it, double fact, double status)
{
  const char *labels[2] = {o->run->name, o->c->v->name};
  double row[7] = {o->c->h, (double)k * o->c->h, (double)k, strain, it, fact, status};
  return exp_csv_row_labels(o->series, labels, 2, row, 7);
}

static int rob_observe(void *octx, const exp_state *st)
{
  rob_obs *o = octx;
  double e;
  int rc = exp_cloth_elongation(o->s, &e, NULL);
  if (rc)
    return rc;
  cdyn_stats stats = {0};
  cdyn_stepper_stats(st->st, &stats);
  double it = st->k ? (double)stats.last_nonlinear_iterations : 0;
  double fact = (double)(stats.factorizations - o->fact_prev);
  o->fact_prev = stats.factorizations;
  if ((rc = series_row(o, st->k, e, it, fact, 0)))
    return rc;
  o->steps_done = st->k;
  o->end = e;
  if (!(e <= o->max))
    o->max = e;
  if (!isfinite(e))
    rob_break(o, RF_NONFINITE, st->k);
  else if (e > o->c->bound)
    rob_break(o, RF_STRAIN, st->k);
  exp_progress(o->ctx, o->run->name, st->k, o->c->steps);
  if (o->fail != RF_NONE) {
    fprintf(stderr, "  %s, %s: %s at step %ld (t = %g s, strain %g, bound %g): stopped\n", o->run->name,
            o->c->v->name, fail_names[o->fail], st->k, (double)st->k * o->c->h, e, o->c->bound);
    return 1;
  }
  return CDYN_OK;
}

/* What one run gives. */
typedef struct {
  enum rob_fail fail;
  long k_fail, steps_done;
  double max, end, time;
  int status;
  unsigned long noconv;
  cdyn_stats stats;
} rob_result;

/* Per step the stepper was called for (a failed or not-taken last step
   included); nan when the count is 0 (the scheme does not count it). */
static double per_step(unsigned long count, const rob_result *r)
{
  long called = r->steps_done + (r->status != 0);
  return count ? (double)count / (double)(called > 0 ? called : 1) : NAN;
}

static int rob_one(exp_ctx *ctx, const exp_cloth_spec *sp0, const exp_runspec *run, const rob_case *c,
                   exp_csv *series, rob_result *res)
{
  memset(res, 0, sizeof *res);
  exp_cloth_spec sp = *sp0;
  sp.mass = c->mass;
  sp.ball = 0;
  const exp_cloth_shape shape = {c->nx, c->ny, c->depth, c->pins, c->npins, {c->v->g[0], c->v->g[1], c->v->g[2]}};
  enum exp_cloth_method m = exp_cloth_run_method(run);
  exp_cloth_scene s;
  int rc = exp_cloth_scene_shaped(&sp, &shape, m, c->eps_max, 1, &s);
  if (rc)
    return rc;
  cdyn_stepper *st;
  if ((rc = exp_stepper_run(ctx, s.sys, run, NULL, &st))) {
    exp_cloth_scene_free(&s);
    return rc;
  }
  rob_obs o = {.ctx = ctx, .run = run, .c = c, .s = &s, .series = series};
  exp_sim sim = {.scene = s.sc, .st = st, .h = c->h, .steps = c->steps, .obs = rob_observe, .octx = &o};
  exp_outcome out;
  rc = exp_simulate_with(&sim, &out);
  if (!rc && o.fail == RF_NONE && (out.end == EXP_END_FAILED_STEP || out.end == EXP_END_NONFINITE)) {
    /* The step that failed, was not taken, or left a state that cannot
       be measured: its row, with its status and no strain. */
    long k = out.end_step;
    cdyn_stats stats = {0};
    cdyn_stepper_stats(st, &stats);
    if (out.end == EXP_END_NONFINITE)
      rob_break(&o, RF_NONFINITE, k);
    else
      rob_break(&o, out.status == CDYN_NOCONV ? RF_NOT_TAKEN : RF_FAILED, k);
    res->status = out.status;
    fprintf(stderr, "  %s, %s: step %ld %s: %s\n", run->name, c->v->name, k, fail_names[o.fail], out.reason);
    rc = series_row(&o, k, NAN, (double)stats.last_nonlinear_iterations, (double)(stats.factorizations - o.fact_prev),
                    (double)out.status);
  }
  res->fail = o.fail;
  res->k_fail = o.k_fail;
  res->steps_done = o.steps_done;
  res->max = o.max;
  res->end = o.end;
  res->noconv = out.noconv;
  res->time = out.elapsed / (double)(o.steps_done > 0 ? o.steps_done : 1);
  cdyn_stepper_stats(st, &res->stats);
  printf("  %-16s %-15s h %-8.4g steps %4ld / %-4ld max strain %-9.4g end %-9.4g %s%s %.3g it/step %.3g ms/step\n",
         run->name, c->v->name, c->h, res->steps_done, c->steps, res->max, res->end,
         o.fail == RF_NONE ? "holds" : "stops: ", o.fail == RF_NONE ? "" : fail_names[o.fail],
         per_step(res->stats.nonlinear_iterations, res), 1e3 * res->time);
  cdyn_stepper_free(st);
  exp_cloth_scene_free(&s);
  return rc;
}

/* ---- the experiment ---------------------------------------------------------------------------- */

static int rob_run(exp_ctx *ctx)
{
  exp_cloth_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.grid = exp_param_long(ctx, "grid");
  exp_param_double(ctx, "size", &sp.size);
  exp_param_double(ctx, "mass", &sp.mass);
  exp_param_double(ctx, "k_struct", &sp.k_struct);
  exp_param_double(ctx, "k_shear", &sp.k_shear);
  exp_param_double(ctx, "k_bend", &sp.k_bend);
  exp_param_double(ctx, "damping", &sp.damping);
  int idx[NVARIANTS], nv;
  parse_variants(exp_param_string(ctx, "variants"), idx, &nv);
  double T, eps_tol;
  exp_param_double(ctx, "T", &T);
  exp_param_double(ctx, "eps_tol", &eps_tol);
  static rob_case cases[NVARIANTS];
  for (int k = 0; k < nv; k++)
    make_case(ctx, &sp, &variants[idx[k]], &cases[k]);

  /* The variants as run, for the metadata. */
  exp_text ex = {0};
  exp_text_printf(&ex,
                  "\"note\": \"holds: every step taken (status >= 0 and the time advanced: a CDYN_NOCONV from a "
                  "scheme that restores its state is a step not taken, and ends the run), a finite state, and the "
                  "largest structural strain <= eps_max + eps_tol after every step\", \"T\": %.17g, \"eps_tol\": "
                  "%.17g, \"variants\": [",
                  T, eps_tol);
  for (int k = 0; k < nv; k++) {
    const rob_case *c = &cases[k];
    exp_text_printf(&ex,
                    "%s{\"variant\": \"%s\", \"doc\": \"%s\", \"nx\": %ld, \"ny\": %ld, \"size\": [%.17g, %.17g], "
                    "\"mass\": %.17g, \"gravity\": [%.17g, %.17g, %.17g], \"eps_max\": %.17g, \"h\": %.17g, "
                    "\"steps\": %ld, \"pins\": [",
                    k ? ", " : "", c->v->name, c->v->doc, c->nx, c->ny, sp.size, c->depth, c->mass, c->v->g[0],
                    c->v->g[1], c->v->g[2], c->eps_max, c->h, c->steps);
    for (size_t p = 0; p < c->npins; p++)
      exp_text_printf(&ex, "%s%zu", p ? ", " : "", c->pins[p]);
    exp_text_puts(&ex, "]}");
  }
  exp_text_puts(&ex, "]");
  if (ex.failed) {
    exp_text_free(&ex);
    return cdyn_error(CDYN_ENOMEM, "cloth-robustness: out of memory for the metadata");
  }

  static rob_result res[EXP_MAX_RUNS][NVARIANTS];
  exp_csv series, table, timing;
  int rc = exp_csv_open(ctx, &series, "cloth-robustness-series", "scheme,variant,h,t,step,strain,iterations,"
                        "factorizations,status", NULL, ex.s);
  if (rc) {
    exp_text_free(&ex);
    return rc;
  }
  for (int k = 0; k < nv && !rc; k++)
    for (int r = 0; r < ctx->nruns && !rc; r++)
      rc = rob_one(ctx, &sp, &ctx->runs[r], &cases[k], &series, &res[r][k]);
  int c1 = exp_csv_close(&series, rc == CDYN_OK);
  if (rc || (rc = c1)) {
    exp_text_free(&ex);
    return rc;
  }

  rc = exp_csv_open(ctx, &table, "cloth-robustness",
                    "scheme,variant,fail,nx,ny,mass,pins,gx,gy,gz,eps_limit,strain_bound,h,steps,steps_done,holds,"
                    "t_stop,strain_max,strain_end,newton_iterations_per_step,factorizations_per_step,noconv,status",
                    NULL, ex.s);
  exp_text_free(&ex);
  if (rc)
    return rc;
  for (int k = 0; k < nv && !rc; k++)
    for (int r = 0; r < ctx->nruns && !rc; r++) {
      const rob_case *c = &cases[k];
      const rob_result *e = &res[r][k];
      int holds = e->fail == RF_NONE;
      double row[20] = {(double)c->nx, (double)c->ny, c->mass, (double)c->npins, c->v->g[0], c->v->g[1], c->v->g[2],
                        c->eps_max, c->bound, c->h, (double)c->steps, (double)e->steps_done, holds ? 1.0 : 0.0,
                        holds ? NAN : (double)e->k_fail * c->h, e->max, e->end,
                        per_step(e->stats.nonlinear_iterations, e), per_step(e->stats.factorizations, e),
                        (double)e->noconv, (double)e->status};
      const char *labels[3] = {ctx->runs[r].name, c->v->name, fail_names[e->fail]};
      rc = exp_csv_row_labels(&table, labels, 3, row, 20);
    }
  c1 = exp_csv_close(&table, rc == CDYN_OK);
  if (rc || (rc = c1))
    return rc;

  if ((rc = exp_csv_open(ctx, &timing, "cloth-robustness-time", "scheme,variant,h,steps_done,time_per_step", NULL,
                         "\"note\": \"wall-clock time per step taken of the runs of cloth-robustness.csv "
                         "(CLOCK_MONOTONIC, the limiter's hooks included, one run each): changes from run to run\"")))
    return rc;
  for (int k = 0; k < nv && !rc; k++)
    for (int r = 0; r < ctx->nruns && !rc; r++) {
      const char *labels[2] = {ctx->runs[r].name, cases[k].v->name};
      double row[3] = {cases[k].h, (double)res[r][k].steps_done, res[r][k].time};
      rc = exp_csv_row_labels(&timing, labels, 2, row, 3);
    }
  c1 = exp_csv_close(&timing, rc == CDYN_OK);
  if (rc || (rc = c1))
    return rc;

  /* The report: the map. */
  char ineq[256] = "", adapt[256] = "";
  for (int r = 0; r < ctx->nruns; r++) {
    char *l = exp_cloth_run_method(&ctx->runs[r]) == EXP_CLOTH_INEQUALITY ? ineq : adapt;
    snprintf(l + strlen(l), 256 - strlen(l), "%s%s", *l ? ", " : "", ctx->runs[r].name);
  }
  exp_report(ctx,
             "The hanging cloth (%g m, %g kg, %ld x %ld nodes; k = %g / %g / %g N/m, damping %g N s/m), released "
             "horizontal at rest and pinned at the corners of one edge, in variants, each for %g s at its step. "
             "%s%s%s%s%s%s. A run holds when every step is taken (a CDYN_NOCONV from a scheme that restores its "
             "state is a step not taken and ends the run), the state stays finite, and the largest structural strain "
             "stays <= eps_max + %g after every step; otherwise the table gives the first rule broken and when. "
             "Per step: the stepper's nonlinear (Newton) iterations and numeric factorisations, over the steps "
             "called. Files cloth-robustness.csv, cloth-robustness-series.csv (every step), "
             "cloth-robustness-time.csv (the time per step, which changes from run to run and so is not in this "
             "report).\n\n| variant | run | nodes | mass (kg) | pins | g (m/s^2) | eps_max | h (s) | holds | stopped "
             "(t, s) | max strain | end strain | Newton it./step | factorisations/step |\n"
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
             sp.size, sp.mass, sp.grid, sp.grid, sp.k_struct, sp.k_shear, sp.k_bend, sp.damping, T,
             *ineq ? ineq : "", *ineq ? " with the strain limiter in its inequality mode (one-sided tether rows on for "
                                        "good, enforced inside the step)" : "",
             *ineq && *adapt ? "; " : "", *adapt ? adapt : "",
             *adapt ? " with the limiter's adaptive constraints (switched before and after each step)" : "",
             !*ineq && !*adapt ? "No runs" : "", eps_tol);
  for (int k = 0; k < nv; k++)
    for (int r = 0; r < ctx->nruns; r++) {
      const rob_case *c = &cases[k];
      const rob_result *e = &res[r][k];
      char hbuf[32], stop[64] = "-", it[32], fa[32];
      exp_cloth_fmt_step(hbuf, sizeof hbuf, c->h);
      if (e->fail != RF_NONE)
        snprintf(stop, sizeof stop, "%s (%.4g)", fail_names[e->fail], (double)e->k_fail * c->h);
      exp_report(ctx, "| %s | %s | %ld x %ld | %g | %zu | (%g, %g, %g) | %g | %s | %s | %s | %.4g | %.4g | %s | %s |\n",
                 c->v->name, ctx->runs[r].name, c->nx, c->ny, c->mass, c->npins, c->v->g[0], c->v->g[1], c->v->g[2],
                 c->eps_max, hbuf, e->fail == RF_NONE ? "yes" : "no", stop, e->max, e->end,
                 exp_num(it, sizeof it, "%.3g", per_step(e->stats.nonlinear_iterations, e), "-"),
                 exp_num(fa, sizeof fa, "%.3g", per_step(e->stats.factorizations, e), "-"));
    }
  for (int r = 0; r < ctx->nruns; r++) {
    int any = 0;
    exp_report(ctx, "%s%s holds: ", r ? "; " : "\n", ctx->runs[r].name);
    for (int k = 0; k < nv; k++)
      if (res[r][k].fail == RF_NONE)
        exp_report(ctx, "%s%s", any++ ? ", " : "", cases[k].v->name);
    if (!any)
      exp_report(ctx, "none");
    any = 0;
    exp_report(ctx, "; stops: ");
    for (int k = 0; k < nv; k++)
      if (res[r][k].fail != RF_NONE)
        exp_report(ctx, "%s%s", any++ ? ", " : "", cases[k].v->name);
    if (!any)
      exp_report(ctx, "none");
  }
  exp_report(ctx, ".\n\n");
  return CDYN_OK;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "variant", "", "variant of the cloth (experiments/studies/cloth_robustness.c)"},
  {NULL, "step", "1", "step number k (0: the start)"},
  {NULL, "strain", "1",
   "largest structural strain (|x_ij| - L0) / L0 after the step (nan: the step failed or was not taken)"},
  {NULL, "iterations", "1", "nonlinear (Newton) iterations of the step; 0 for a scheme without"},
  {NULL, "factorizations", "1", "numeric factorisations in the step"},
  {"cloth-robustness-series", "status", "1",
   "cdyn status of the step that failed or was not taken (1: CDYN_NOCONV of a scheme that restores its state), on "
   "the run's last row; 0 otherwise"},
  {NULL, "fail", "",
   "first rule the run broke: none, failed-step (status < 0), step-not-taken (CDYN_NOCONV, state restored), "
   "non-finite, strain-bound (largest strain > strain_bound)"},
  {NULL, "nx", "1", "nodes along the pinned edge"},
  {NULL, "ny", "1", "nodes across"},
  {NULL, "mass", "kg", "total mass of the cloth"},
  {NULL, "pins", "1", "pinned nodes"},
  {NULL, "gx", "m/s^2", "gravity, x"},
  {NULL, "gy", "m/s^2", "gravity, y"},
  {NULL, "gz", "m/s^2", "gravity, z"},
  {NULL, "eps_limit", "1", "the strain limiter's eps_max"},
  {NULL, "strain_bound", "1", "the rule's bound on the largest strain: eps_limit + eps_tol"},
  {NULL, "steps_done", "1", "steps taken and measured (a run ends at the first rule it breaks)"},
  {NULL, "holds", "1", "1: the run kept the rule (fail = none)"},
  {NULL, "t_stop", "s", "time of the step at which the rule was first broken (nan: holds)"},
  {NULL, "strain_max", "1", "largest structural strain after any step taken"},
  {NULL, "strain_end", "1", "largest structural strain after the last step taken"},
  {NULL, "newton_iterations_per_step", "1", "nonlinear iterations per step called (nan: the scheme counts none)"},
  {NULL, "factorizations_per_step", "1", "numeric factorisations per step called (nan: none)"},
  {"cloth-robustness", "status", "1", "cdyn status of the step that failed or was not taken (0: none)"},
  {NULL, "time_per_step", "s", "wall-clock time per step taken, the limiter's hooks included"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_cloth_robustness = {
  .name = "cloth-robustness",
  .description = "where projected-newton and admm hold a strain-limited hanging cloth at an animator's step, and "
                 "where they stop: variants of shape, mass, pins, gravity, limit and step",
  .source = "beyond the papers (001 sec. V-B's cloth at animation steps)",
  .params = rob_params,
  .columns = columns,
  .check = rob_check,
  .schemes = "projected-newton,admm",
  .companions = rob_companions,
  .pins_ineq_ok = 1,
  .h = 1.0 / 60,
  .steps = 0,
  .run = rob_run,
};
