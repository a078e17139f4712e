/*
 * cloth_vs_implicit_ode.c: cloth-vs-implicit-ode (001 sec. V-B).
 *
 * Time per step of adaptive constraints against Baraff-Witkin (001 sec.
 * V-B: "the constraint system is smaller, so the step is substantially
 * cheaper"), at equal largest elongation, each with its best solver, over
 * grid sizes.
 *
 * The scene is cloth-elongation's without the ball, over its first `T`
 * seconds (0.4 s: the fall from horizontal, with the strain limit reached
 * from t = 0.2 s on, near the pinned corners, where the load is largest;
 * the ball arrives at 1.4 s, beyond what make figures can afford at
 * 64 x 64).  Material constants are the same at every grid size: in a
 * square net of springs the membrane stiffness is k per unit strain,
 * whatever the spacing.  The step shrinks with the spacing,
 * h = h_ref 15 / (grid - 1), the explicit springs' stability scale
 * (their frequency grows as 1 / spacing); both methods take the same h.
 *
 * At each grid size:
 *   - the adaptive run (the scheme, implicit by default, with the strain
 *     limiter) with each solver of adaptive_solvers over the whole window
 *     (the dense one only while its row capacity is at most dense_max: it
 *     stores capacity^2 values); the fastest is its best, and one is
 *     stopped once its steps have taken longer than the whole window of
 *     the fastest before it: it cannot be faster, and its row has the
 *     steps it took (which depend on the clock);
 *   - Baraff-Witkin at k x 2^j (all three spring kinds scaled), j the
 *     smallest from j_prev - 1 up (j_prev: the previous grid's) whose
 *     largest eps over the window is at most eps_max, each probe a run of
 *     the window with the first of bw_solvers, stopped at the first step
 *     beyond eps_max (it fails there), the last one its timed run; its other solvers are timed over the first probe_steps
 *     steps at that stiffness (a sparse factorisation of its 3n x 3n
 *     matrix is slow at 64 x 64; CHOLMOD's in the mode bw_cholmod_mode,
 *     auto: CHOLMOD's choice, supernodal there), against the first's time
 *     over the same steps; if one is faster it is run over the window.
 *     One of them is stopped once its steps have taken longer than
 *     probe_steps steps of the fastest so far: it cannot be faster, and
 *     its row has the steps it took (which depend on the clock).
 * Time per step: wall clock (CLOCK_MONOTONIC) over the window, one run
 * each; the counted work (constraints, flips) is deterministic, the times
 * are not, so cloth-cost.csv changes from run to run.  Reported: the
 * slope of log(time per step) against log(nodes) of each method's best,
 * the ratio adaptive / Baraff-Witkin at every size, where it crosses 1 if
 * it does, and beside it the fraction of structural springs constrained
 * (mean and largest over the window).
 *
 * The scene and the methods: problems/cloth_scene.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdyn/cloth.h>

#include "runner/experiment.h"

#include "problems/cloth_scene.h"

static const exp_param cost_params[] = {
  {"grids", "16,32,64", EXP_TEXT, 0, 0, 0, "grid sizes (nodes per side), comma separated, increasing"},
  EXP_CLOTH_SCENE_PARAMS,
  {"T", "0.4", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "length of the window (s)"},
  {"h_ref", "1e-3", EXP_REAL, 0, 1, EXP_OPEN_MIN, "step at grid 16; h = h_ref 15 / (grid - 1)"},
  {"adaptive_solvers", "cholmod,cholesky,pcg", EXP_TEXT, 0, 0, 0,
   "solvers tried for the adaptive constraints, in this order (one slower over its window than the fastest before it "
   "is stopped there)"},
  {"bw_solvers", "auto,cholmod", EXP_TEXT, 0, 0, 0, "solvers tried for Baraff-Witkin (the stepper option solver; auto: the paper's filtered PCG)"},
  {"bw_cholmod_mode", "auto", EXP_TEXT, 0, 0, 0,
   "CHOLMOD's factorisation for Baraff-Witkin with the solver cholmod (its option cholmod_mode): simplicial, "
   "supernodal or auto (CHOLMOD's choice: supernodal for its 3n x 3n matrix at 64 x 64)"},
  {"dense_max", "2500", EXP_INT, 1, 1e6, 0, "largest row capacity at which the dense solver is tried"},
  {"bw_j_max", "12", EXP_INT, 0, 30, 0, "largest doubling of Baraff-Witkin's stiffness tried"},
  {"probe_steps", "20", EXP_INT, 1, 1e9, 0, "steps over which Baraff-Witkin's solvers other than the first are timed (fewer for one whose steps take longer "
   "than this many of the fastest's)"},
  {"anim_h", "1/60,1/120", EXP_TEXT, 0, 0, 0,
   "animation steps (s; numbers or p/q, comma separated; none: no such comparison), the same h for both methods"},
  {"anim_grids", "16", EXP_TEXT, 0, 0, 0, "grid sizes of the comparison at animation steps (none: none)"},
  {"anim_schemes", "backward-euler,projected-newton,admm", EXP_TEXT, 0, 0, 0,
   "the schemes compared at animation steps: with the adaptive constraints, or the limiter in its inequality mode "
   "for a scheme that takes pins and inequality rows only"},
  {"anim_T", "1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "window of the comparison at animation steps (s)"},
  {"hold_T", "2.5", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX,
   "span of cloth.frame_rate's run of projected-newton on cloth-elongation's scene with its ball at 1/60 s "
   "(cloth-elongation's 2.5 s)"},
  EXP_PARAMS_END};

static const exp_companion cost_companions[] = {
  {"baraff-witkin", "baraff-witkin", NULL, "linearised backward Euler on all springs, stiffened to the same bound"},
  {NULL, NULL, NULL, NULL}};

#define MAX_GRIDS 8
#define MAX_SOLVERS 4

/* The grid sizes of `what` (grids, anim_grids): an increasing list of
   at most MAX_GRIDS sizes in [4, 512] (runner/lists.h). */
static int parse_grids(const char *text, const char *what, long *g, int *n)
{
  return exp_list_longs(text, what, EXP_LIST_SPACES | EXP_LIST_INCREASING, 4, 512, g, MAX_GRIDS, n);
}

static int cost_check(exp_ctx *ctx)
{
  long g[MAX_GRIDS];
  int n, rc;
  char s[MAX_SOLVERS][EXP_LIST_NAME];
  if ((rc = parse_grids(exp_param_string(ctx, "grids"), "grids", g, &n)) ||
      (rc = exp_list_names(exp_param_string(ctx, "adaptive_solvers"), "adaptive_solvers", EXP_LIST_SPACES, s,
                           MAX_SOLVERS, &n)) ||
      (rc = exp_list_names(exp_param_string(ctx, "bw_solvers"), "bw_solvers", EXP_LIST_SPACES, s, MAX_SOLVERS, &n)))
    return rc;
  const char *mode = exp_param_string(ctx, "bw_cholmod_mode");
  if (strcmp(mode, "simplicial") && strcmp(mode, "supernodal") && strcmp(mode, "auto"))
    return cdyn_error(CDYN_EINVAL, "bw_cholmod_mode: simplicial, supernodal or auto, not '%s'", mode);
  double hs[EXP_CLOTH_MAX_ANIM];
  if (exp_cloth_parse_steps(exp_param_string(ctx, "anim_h"), hs, EXP_CLOTH_MAX_ANIM, &n))
    return cdyn_error(CDYN_EINVAL, "anim_h: at most %d step sizes > 0, comma separated, each a number or p/q "
                                   "(1/60), or none", EXP_CLOTH_MAX_ANIM);
  const char *ag = exp_param_string(ctx, "anim_grids");
  if (strcmp(ag, "none") && (rc = parse_grids(ag, "anim_grids", g, &n)))
    return rc;
  char names[EXP_CLOTH_MAX_ANIM][32];
  int bad = exp_cloth_parse_schemes(exp_param_string(ctx, "anim_schemes"), names, EXP_CLOTH_MAX_ANIM, &n) || n < 1;
  for (int k = 0; k < n && !bad; k++) {
    size_t idx;
    bad = cdyn_scheme_find(names[k], &idx) || (cdyn_scheme_pins_only(idx) && !cdyn_scheme_inequalities(idx));
    cdyn_error_clear();
  }
  if (bad)
    return cdyn_error(CDYN_EINVAL, "anim_schemes: at most %d registered schemes, comma separated, each enforcing "
                                   "constraints or inequality rows (cdyn list shows them)", EXP_CLOTH_MAX_ANIM);
  return 0;
}

typedef struct {
  int stop_early;           /* a stiffness probe: stop at the first step beyond eps_max (it fails there) */
  int exceeded;             /* it did: eps_max holds the first elongation beyond the limit */
  double time;              /* per step, s */
  double time_probe;        /* per step over the first probe steps */
  double eps_max;           /* over the window */
  double frac_mean, frac_max; /* constrained structural springs */
  unsigned long flips, noconv;
  long steps;
  int failed;
  int not_taken;            /* it ended at a step not taken (CDYN_NOCONV, the state restored) */
  int outrun;               /* stopped once its time passed the budget: it cannot be the fastest */
  unsigned long iterations, analyses, set_changes; /* the stepper's counts (cdyn_stats) */
} cost_result;

/* What a run of cloth-vs-implicit-ode measures after each step (the
   runner's observer): the time over the first `probe` steps, the
   elongation, the constrained fraction of the structural springs; a run
   whose elongation passes 10 (or is not finite) is stopped there. */
typedef struct {
  const exp_runspec *run;
  const char *solver;
  exp_cloth_scene *s;
  long probe, steps;
  double budget; /* > 0: the run stops once its steps have taken longer (outrun) */
  double fsum, eps_limit;
  double t_prev; /* the system's time after the last step taken */
  cost_result *out;
} cost_obs;

static int cost_observe(void *octx, const exp_state *st)
{
  cost_obs *o = octx;
  cost_result *out = o->out;
  double t = cdyn_system_time(st->sys);
  if (st->k > 0 && st->status == CDYN_NOCONV && t == o->t_prev) {
    /* Not taken (a scheme that restores its state): at a fixed step the
       run cannot go on. */
    fprintf(stderr, "  %s (%s) step %ld not taken: %s\n", o->run->name, o->solver, st->k, cdyn_errmsg());
    out->failed = out->not_taken = 1;
    return 1;
  }
  o->t_prev = t;
  if (st->k == 0)
    return CDYN_OK;
  if (st->k == o->probe)
    out->time_probe = st->elapsed / (double)o->probe;
  double emax;
  int rc = exp_cloth_elongation(o->s, &emax, NULL);
  if (rc)
    return rc;
  if (!(emax <= out->eps_max))
    out->eps_max = emax;
  if (!isfinite(emax) || emax > 10) {
    out->failed = 1;
    return 1;
  }
  if (out->stop_early && emax > o->eps_limit) {
    out->exceeded = 1;
    return 1;
  }
  if (o->s->sl) {
    cdyn_strainlimit_counts c;
    cdyn_strainlimit_counts_get(o->s->sl, &c);
    double f = (double)c.active / (double)o->s->nstruct;
    o->fsum += f;
    out->frac_max = fmax(out->frac_max, f);
    out->flips = c.flips;
  }
  /* Past the budget before the run's last step: this step counts (taken
     and timed), and the run ends. */
  if (o->budget > 0 && st->k < o->steps && st->elapsed > o->budget) {
    out->outrun = 1;
    return 1;
  }
  return CDYN_OK;
}

/* One run of the window: method m (adaptive, inequality or plain) with the stepper's
   option `key` = `solver` and, for Baraff-Witkin, the stiffness scale. */
static int cost_run(exp_ctx *ctx, const exp_runspec *run, const exp_cloth_spec *sp0, double scale, enum exp_cloth_method m,
                    const char *key, const char *solver, double eps_max, double h, long steps, long probe,
                    int stop_early, double budget, cost_result *out)
{
  exp_cloth_spec sp = *sp0;
  sp.k_struct *= scale, sp.k_shear *= scale, sp.k_bend *= scale;
  exp_cloth_scene s;
  int rc = exp_cloth_scene_new(&sp, m, eps_max, 1, &s);
  if (rc)
    return rc;
  /* Baraff-Witkin with CHOLMOD: in the mode bw_cholmod_mode. */
  const char *extra[5] = {key, solver, NULL, NULL, NULL};
  if (m == EXP_CLOTH_PLAIN && !strcmp(key, "solver") && !strcmp(solver, "cholmod"))
    extra[2] = "cholmod_mode", extra[3] = exp_param_string(ctx, "bw_cholmod_mode");
  cdyn_stepper *st;
  if ((rc = exp_stepper_run(ctx, s.sys, run, extra, &st))) {
    exp_cloth_scene_free(&s);
    return rc;
  }
  memset(out, 0, sizeof *out);
  out->stop_early = stop_early;
  cost_obs o = {.run = run, .solver = solver, .s = &s, .probe = probe, .steps = steps, .budget = budget,
                .eps_limit = eps_max, .out = out};
  exp_sim sim = {.scene = s.sc, .st = st, .h = h, .steps = steps, .obs = cost_observe, .octx = &o};
  exp_outcome oc;
  rc = exp_simulate_with(&sim, &oc);
  if (!rc && oc.end == EXP_END_FAILED_STEP) {
    fprintf(stderr, "  %s (%s) step %ld failed: %s\n", run->name, solver, oc.end_step, cdyn_errmsg());
    out->failed = 1;
    /* The runner ends a run at a CDYN_NOCONV that left the time where it
       was (the scheme restored its state): a step not taken. */
    out->not_taken = oc.status == CDYN_NOCONV;
    if (oc.end_step == probe)
      out->time_probe = oc.elapsed / (double)probe;
  }
  out->noconv = oc.noconv;
  /* A run stopped for its elongation counts the steps before that one;
     one outrun, every step it took. */
  out->steps = oc.end == EXP_END_OBSERVER && !out->outrun ? oc.steps - 1 : oc.steps;
  out->time = oc.elapsed / (double)(out->steps > 0 ? out->steps : 1);
  if (out->steps < probe)
    out->time_probe = out->time;
  out->frac_mean = o.fsum / (double)(out->steps > 0 ? out->steps : 1);
  cdyn_stats stats;
  if (!cdyn_stepper_stats(st, &stats)) {
    out->iterations = stats.nonlinear_iterations;
    out->analyses = stats.analyses;
    out->set_changes = stats.set_changes;
  }
  cdyn_stepper_free(st);
  exp_cloth_scene_free(&s);
  return rc;
}

/* A method's best at one grid and step (cost_method). */
typedef struct {
  double t, eps;          /* its fastest solver's time per step and largest eps (INFINITY, nan: none completed) */
  double kscale;          /* Baraff-Witkin's stiffness scale (1 otherwise) */
  char solver[32];        /* "-": none completed */
  cost_result r;          /* the fastest's run, or the first solver's when none completed */
} cost_best;

/* One probe of Baraff-Witkin's stiffness search: the window at k x 2^j
   with the solver `solver`, stopped at the first step beyond eps_max
   unless j = jmax (the last allowed: it runs the window, its timed run
   then); its line in the log. */
static int bw_probe(exp_ctx *ctx, const exp_runspec *run, const exp_cloth_spec *sp, long j, long jmax,
                    const char *solver, double eps_max, double h, long steps, long probe, cost_result *out)
{
  int rc = cost_run(ctx, run, sp, ldexp(1.0, (int)j), EXP_CLOTH_PLAIN, "solver", solver, eps_max, h, steps, probe,
                    j < jmax, 0, out);
  if (rc)
    return rc;
  if (out->exceeded)
    printf("  %-14s grid %-4ld k x %-6g eps %.4g at step %ld: beyond the limit, stopped\n", run->name, sp->grid,
           ldexp(1.0, (int)j), out->eps_max, out->steps + 1);
  else
    printf("  %-14s grid %-4ld k x %-6g max eps %.4g%s\n", run->name, sp->grid, ldexp(1.0, (int)j), out->eps_max,
           out->failed ? " (failed)" : "");
  return CDYN_OK;
}

/*
 * One method (run, method m: adaptive, inequality or plain) at grid `grid`, step h,
 * `steps` steps, as the experiment's rule says (above): the adaptive
 * run with each of `as` it can use (or auto, when it can use none: the
 * indefinite schemes), Baraff-Witkin's stiffness search (the smallest
 * 2^j, j >= *jprev - 1, within eps_max) and its solvers `bs`; each run's
 * row into csv (with the stepper's
 * counts when counts is set).
 */
static int cost_method(exp_ctx *ctx, const exp_runspec *run, enum exp_cloth_method m, const exp_cloth_spec *sp, double h,
                       long steps, const char (*as)[32], int nas, const char (*bs)[32], int nbs, long *jprev,
                       exp_csv *csv, int counts, cost_best *best)
{
  double eps_max;
  exp_param_double(ctx, "eps_max", &eps_max);
  long dense_max = exp_param_long(ctx, "dense_max"), jmax = exp_param_long(ctx, "bw_j_max");
  long probe = exp_param_long(ctx, "probe_steps");
  long grid = sp->grid;
  size_t nodes = (size_t)(grid * grid);
  /* The dense solver's size: the row capacity of the adaptive constraints
     (the strain rows and the pins), every free coordinate in the
     inequality mode (the scheme's system is the nodes'). */
  size_t cap = m == EXP_CLOTH_INEQUALITY ? 3 * nodes : 2 * (size_t)grid * (size_t)(grid - 1) + 6;
  double scale = 1;
  char list[MAX_SOLVERS][32];
  int nl = 0;
  const char *key = "solver";
  cost_result res[MAX_SOLVERS];
  int rc = CDYN_OK;
  for (int si = 0; si < MAX_SOLVERS; si++)
    res[si].failed = -1; /* not run */
  if (m == EXP_CLOTH_PLAIN) {
    /* The stiffness, 2^j, each probe a run of the whole window with the
       first of bw_solvers (the search's last run within eps_max is its
       timed run): the smallest j >= jprev - 1 within eps_max, the
       strain falling as the stiffness grows.  The probes start at jprev,
       since the stiffness needed grows with the grid (8, 16, 32 for grids
       16, 32, 64): when jprev is beyond eps_max, so is jprev - 1, whose
       probe is not run; when jprev is within, jprev - 1 is probed. */
    long j = *jprev > 0 ? *jprev : 0;
    for (int first = 1;; j++, first = 0) {
      if ((rc = bw_probe(ctx, run, sp, j, jmax, bs[0], eps_max, h, steps, probe, &res[0])))
        return rc;
      int within = !res[0].failed && res[0].eps_max <= eps_max;
      if (within && first && j > 0) {
        cost_result at_j = res[0];
        if ((rc = bw_probe(ctx, run, sp, j - 1, jmax, bs[0], eps_max, h, steps, probe, &res[0])))
          return rc;
        if (!res[0].failed && res[0].eps_max <= eps_max)
          j--;
        else
          res[0] = at_j;
        break;
      }
      if (within || j >= jmax)
        break;
    }
    *jprev = j;
    scale = ldexp(1.0, (int)j);
    for (int si = 0; si < nbs; si++)
      snprintf(list[nl++], 32, "%s", bs[si]);
  } else {
    for (int si = 0; si < nas; si++)
      if (exp_cloth_solver_fits(run->scheme, as[si]) && !(!strcmp(as[si], "cholesky") && cap > (size_t)dense_max))
        snprintf(list[nl++], 32, "%s", as[si]);
    if (nl == 0)
      snprintf(list[nl++], 32, "auto");
  }
  best->t = INFINITY;
  best->eps = NAN;
  best->kscale = scale;
  snprintf(best->solver, 32, "-");
  /* Every solver of the adaptive run over the whole window; Baraff-
     Witkin's others over the first `probe` steps (each of its runs
     costs far more), then the whole window for the fastest if it is
     not the first.  A race: one of Baraff-Witkin's others is stopped
     once its steps have taken longer than `probe` steps of the fastest
     so far (its time over the first `probe` steps could then only be
     longer, so it cannot be chosen): cholmod's factorisation per step
     costs 20 to 40 times the filtered PCG's at 32 x 32 and 64 x 64, and
     its first step decides.  The adaptive runs race the same way over
     the whole window: one is stopped once its steps have taken longer
     than the whole window of the fastest so far (its time per step over
     the window could then only be longer).  The dense factorisation of
     projected-newton's 768 unknowns at grid 16 costs 4 to 7 times
     CHOLMOD's a step at the animation steps, hence adaptive_solvers'
     order. */
  int b = -1;
  for (int si = 0; si < nl && !rc; si++) {
    double budget = b < 0                   ? 0
                    : m == EXP_CLOTH_PLAIN ? (double)probe * res[b].time_probe
                                           : res[b].time * (double)res[b].steps;
    if (m != EXP_CLOTH_PLAIN || si > 0)
      rc = cost_run(ctx, run, sp, scale, m, key, list[si], eps_max, h, m != EXP_CLOTH_PLAIN ? steps : probe, probe, 0,
                    budget, &res[si]);
    if (rc)
      break;
    if (res[si].outrun && m != EXP_CLOTH_PLAIN)
      printf("  %-14s grid %-4ld %-9s %8.4g ms/step over %ld steps, stopped: they took longer than the window of %s "
             "(%.4g ms)  max eps %.4g\n",
             run->name, grid, list[si], 1e3 * res[si].time, res[si].steps, list[b], 1e3 * budget, res[si].eps_max);
    else if (res[si].outrun)
      printf("  %-14s grid %-4ld %-9s %8.4g ms/step over %ld steps, stopped: they took longer than %ld steps of %s "
             "(%.4g ms)  max eps %.4g\n",
             run->name, grid, list[si], 1e3 * res[si].time, res[si].steps, probe, list[b], 1e3 * budget,
             res[si].eps_max);
    else
      printf("  %-14s grid %-4ld %-9s %8.4g ms/step (first %ld steps: %.4g)  max eps %.4g  constrained %.3g (max "
             "%.3g)%s\n",
             run->name, grid, list[si], 1e3 * res[si].time, probe, 1e3 * res[si].time_probe, res[si].eps_max,
             res[si].frac_mean, res[si].frac_max, res[si].failed ? "  FAILED" : "");
    double key_t = m != EXP_CLOTH_PLAIN ? res[si].time : res[si].time_probe, best_key = 0;
    if (b >= 0)
      best_key = m != EXP_CLOTH_PLAIN ? res[b].time : res[b].time_probe;
    if (!res[si].failed && !res[si].outrun && (b < 0 || key_t < best_key))
      b = si;
  }
  if (!rc && m == EXP_CLOTH_PLAIN && b > 0) {
    rc = cost_run(ctx, run, sp, scale, m, key, list[b], eps_max, h, steps, probe, 0, 0, &res[b]);
    if (!rc)
      printf("  %-14s grid %-4ld %-9s %8.4g ms/step over the window\n", run->name, grid, list[b], 1e3 * res[b].time);
  }
  best->r = res[b >= 0 ? b : 0];
  if (b >= 0) {
    best->t = res[b].time;
    best->eps = res[b].eps_max;
    snprintf(best->solver, 32, "%s", list[b]);
  }
  for (int si = 0; si < nl && !rc; si++) {
    if (res[si].failed < 0)
      continue;
    long called = res[si].steps + res[si].not_taken;
    double row[17] = {(double)grid, (double)nodes, h, (double)res[si].steps, scale, res[si].time,
                      res[si].time_probe, res[si].eps_max, res[si].frac_mean, res[si].frac_max,
                      (double)res[si].flips, (double)res[si].noconv, res[si].failed || res[si].outrun ? 0.0 : 1.0,
                      si == b ? 1.0 : 0.0,
                      res[si].iterations ? (double)res[si].iterations / (double)(called > 0 ? called : 1) : NAN,
                      (double)res[si].analyses, (double)res[si].set_changes};
    const char *labels[2] = {run->name, list[si]};
    rc = exp_csv_row_labels(csv, labels, 2, row, counts ? 17 : 14);
  }
  return rc;
}

static int cost_anim(exp_ctx *ctx, const exp_cloth_spec *sp0, const char (*as)[32], int nas, const char (*bs)[32],
                     int nbs);

static int cost_run_exp(exp_ctx *ctx)
{
  exp_cloth_spec sp;
  exp_cloth_read_scene(ctx, &sp);
  sp.ball = 0;
  long grids[MAX_GRIDS];
  int ng, nas, nbs;
  char as[MAX_SOLVERS][32], bs[MAX_SOLVERS][32];
  parse_grids(exp_param_string(ctx, "grids"), "grids", grids, &ng);
  exp_list_names(exp_param_string(ctx, "adaptive_solvers"), "adaptive_solvers", EXP_LIST_SPACES, as, MAX_SOLVERS,
                 &nas);
  exp_list_names(exp_param_string(ctx, "bw_solvers"), "bw_solvers", EXP_LIST_SPACES, bs, MAX_SOLVERS, &nbs);
  double eps_max, T, h_ref;
  exp_param_double(ctx, "eps_max", &eps_max);
  exp_param_double(ctx, "T", &T);
  exp_param_double(ctx, "h_ref", &h_ref);
  int bw = exp_run_index(ctx, "baraff-witkin");
  exp_csv csv;
  int rc = exp_csv_open(ctx, &csv, "cloth-cost",
                        "scheme,solver,grid,nodes,h,steps,k_scale,time_per_step,time_probe,eps_max,frac_mean,"
                        "frac_max,flips,noconv,completed,best",
                        NULL,
                        "\"note\": \"time per step over the window, wall clock, one run each (this file changes from "
                        "run to run); best = 1 for the method's fastest solver at that grid; a solver stopped in the "
                        "race against the fastest has the steps it took, which depend on the clock too, and "
                        "completed = 0\"");
  if (rc)
    return rc;
  static double best_t[EXP_MAX_RUNS][MAX_GRIDS], best_eps[EXP_MAX_RUNS][MAX_GRIDS], fr_mean[MAX_GRIDS],
    fr_max[MAX_GRIDS], kscale[MAX_GRIDS];
  static char best_s[EXP_MAX_RUNS][MAX_GRIDS][32];
  long jprev = 0;
  for (int gi = 0; gi < ng && !rc; gi++) {
    sp.grid = grids[gi];
    double h = h_ref * 15.0 / (double)(grids[gi] - 1);
    long steps = (long)ceil(T / h - 1e-9);
    for (int r = 0; r < ctx->nruns && !rc; r++) {
      const exp_runspec *run = &ctx->runs[r];
      enum exp_cloth_method m = exp_cloth_run_method(run);
      if (m != EXP_CLOTH_PLAIN && m != EXP_CLOTH_ADAPTIVE)
        continue;
      cost_best cb;
      if ((rc = cost_method(ctx, run, m, &sp, h, steps, (const char(*)[32])as, nas, (const char(*)[32])bs, nbs,
                            &jprev, &csv, 0, &cb)))
        break;
      if (m == EXP_CLOTH_PLAIN)
        kscale[gi] = cb.kscale;
      best_t[r][gi] = cb.t;
      best_eps[r][gi] = cb.eps;
      snprintf(best_s[r][gi], 32, "%s", cb.solver);
      if (m == EXP_CLOTH_ADAPTIVE && r == 0 && strcmp(cb.solver, "-")) {
        fr_mean[gi] = cb.r.frac_mean;
        fr_max[gi] = cb.r.frac_max;
      }
      exp_progress(ctx, "cloth-vs-implicit-ode", gi + 1, ng);
    }
  }
  int crc = exp_csv_close(&csv, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;
  int ad = 0; /* the first adaptive run */
  while (ad < ctx->nruns && exp_cloth_run_method(&ctx->runs[ad]) != EXP_CLOTH_ADAPTIVE)
    ad++;
  exp_report(ctx,
             "Time per step over the first %g s of the falling cloth (no ball), adaptive constraints (%s) against "
             "Baraff-Witkin stiffened to the same bound (max eps <= %g), each with its fastest solver; h = %g s x 15 "
             "/ (grid - 1).\n\n| grid | h (s) | %s (ms) | solver | max eps | BW k scale | Baraff-Witkin (ms) | solver "
             "| max eps | ratio | constrained (mean / max) |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
             T, ad < ctx->nruns ? ctx->runs[ad].name : "-", eps_max, h_ref,
             ad < ctx->nruns ? ctx->runs[ad].name : "-");
  double x[MAX_GRIDS], ya[MAX_GRIDS], yb[MAX_GRIDS];
  for (int gi = 0; gi < ng; gi++) {
    double ta = ad < ctx->nruns ? best_t[ad][gi] : NAN, tb = bw >= 0 ? best_t[bw][gi] : NAN;
    x[gi] = (double)(grids[gi] * grids[gi]);
    ya[gi] = ta, yb[gi] = tb;
    exp_report(ctx, "| %ld | %.3g | %.4g | %s | %.4g | %g | %.4g | %s | %.4g | %.3g | %.3g / %.3g |\n", grids[gi],
               h_ref * 15.0 / (double)(grids[gi] - 1), 1e3 * ta, ad < ctx->nruns ? best_s[ad][gi] : "-",
               ad < ctx->nruns ? best_eps[ad][gi] : NAN, kscale[gi], 1e3 * tb, bw >= 0 ? best_s[bw][gi] : "-",
               bw >= 0 ? best_eps[bw][gi] : NAN, ta / tb, fr_mean[gi], fr_max[gi]);
  }
  int used;
  double sa = exp_fit_slope(x, ya, NULL, ng, &used), sb = exp_fit_slope(x, yb, NULL, ng, &used);
  /* The crossover: the first grid at which the ratio passes 1, if any. */
  char cross[128] = "none within the grids measured";
  for (int gi = 1; gi < ng; gi++)
    if ((ya[gi - 1] / yb[gi - 1] - 1) * (ya[gi] / yb[gi] - 1) < 0) {
      snprintf(cross, sizeof cross, "between grid %ld and %ld", grids[gi - 1], grids[gi]);
      break;
    }
  exp_report(ctx, "\nCost exponents (time per step against nodes, log-log): adaptive %.3f, Baraff-Witkin %.3f. "
                  "Crossover of the ratio through 1: %s.\n\n", sa, sb, cross);
  printf("  cost exponents: adaptive %.3f, baraff-witkin %.3f; crossover %s\n", sa, sb, cross);
  if (exp_claim_ready(ctx, "cloth.constraints_cheaper") && ad < ctx->nruns && bw >= 0) {
    int L = ng - 1;
    exp_value v[3] = {{"ratio", ya[L] / yb[L]},
                      {"largest_grid", (double)grids[L]},
                      {"bw_eps", best_eps[bw][L]}};
    rc = exp_judge(ctx, "cloth.constraints_cheaper", v, 3,
                   "grid %ld: %s %.4g ms/step (%s) against Baraff-Witkin %.4g ms/step (%s, k x %g, max eps %.4g); "
                   "%.3g of the structural springs constrained on average (max %.3g); exponents %.2f and %.2f; "
                   "crossover %s",
                   grids[L], ctx->runs[ad].name, 1e3 * ya[L], best_s[ad][L], 1e3 * yb[L], best_s[bw][L], kscale[L],
                   best_eps[bw][L], fr_mean[L], fr_max[L], sa, sb, cross);
  }
  if (!rc)
    rc = cost_anim(ctx, &sp, (const char(*)[32])as, nas, (const char(*)[32])bs, nbs);
  return rc;
}

/*
 * The same comparison at animation steps (anim_h: 1/60 and 1/120 s by
 * default) on anim_grids (16 by default; 64 is a parameter away, not run
 * by make figures: a step of backward-euler at 64 x 64 costs tenths of a
 * second), over the first anim_T s: each scheme of anim_schemes
 * (backward-euler: the springs implicit with the adaptive strain
 * constraints; projected-newton, which takes pins and inequality rows
 * only: the springs implicit, the limiter in its inequality mode) against
 * Baraff-Witkin stiffened to the same bound at the same h, each by the
 * rule above (cost_method; the stiffness search starts afresh at each
 * step size, once for all the schemes).  A run whose step fails or is not
 * taken has not completed; its time per step is over the steps it took.
 * cloth-cost-animation.csv (changes from run to run: at each step and
 * grid the schemes' rows in their order, then Baraff-Witkin's) and a
 * table per scheme in the report.  Then cloth.frame_rate (claims.c):
 * projected-newton on cloth-elongation's scene with its ball over hold_T
 * at 1/60 s (cost_hold), and its ratio at 1/60 s on grid 16.
 */
#define FRAME_GRID 16
#define FRAME_SCHEME "projected-newton"

static int cost_hold(exp_ctx *ctx, const exp_cloth_spec *sp0, const exp_runspec *run, double h, cost_result *out);

static int cost_anim(exp_ctx *ctx, const exp_cloth_spec *sp0, const char (*as)[32], int nas, const char (*bs)[32],
                     int nbs)
{
  double hs[EXP_CLOTH_MAX_ANIM], T, eps_max;
  long grids[MAX_GRIDS];
  char names[EXP_CLOTH_MAX_ANIM][32];
  int nh, ng = 0, ns;
  exp_cloth_parse_steps(exp_param_string(ctx, "anim_h"), hs, EXP_CLOTH_MAX_ANIM, &nh);
  exp_cloth_parse_schemes(exp_param_string(ctx, "anim_schemes"), names, EXP_CLOTH_MAX_ANIM, &ns);
  const char *gtext = exp_param_string(ctx, "anim_grids");
  if (strcmp(gtext, "none"))
    parse_grids(gtext, "anim_grids", grids, &ng);
  /* cloth.frame_rate's step and grid among the comparison's, and its scheme. */
  int fh = -1, fg = -1, fs = -1;
  for (int hi = 0; hi < nh; hi++)
    if (fh < 0 && fabs(hs[hi] * 60 - 1) <= 1e-12)
      fh = hi;
  for (int gi = 0; gi < ng; gi++)
    if (grids[gi] == FRAME_GRID)
      fg = gi;
  for (int k = 0; k < ns; k++)
    if (fs < 0 && !strcmp(names[k], FRAME_SCHEME))
      fs = k;
  if (nh == 0 || ng == 0 || fh < 0 || fg < 0 || fs < 0) {
    char why[256];
    snprintf(why, sizeof why, "needs %s among anim_schemes, 1/60 among anim_h and %d among anim_grids", FRAME_SCHEME,
             FRAME_GRID);
    int rc = exp_claim_not_run(ctx, "cloth.frame_rate", why);
    if (rc || nh == 0 || ng == 0)
      return rc;
  }
  exp_param_double(ctx, "anim_T", &T);
  exp_param_double(ctx, "eps_max", &eps_max);
  exp_cloth_spec sp = *sp0;
  static exp_runspec ar[EXP_CLOTH_MAX_ANIM];
  for (int k = 0; k < ns; k++)
    ar[k] = exp_run_or_plain(ctx, names[k]);
  int bw = exp_run_index(ctx, "baraff-witkin");
  exp_runspec br = bw >= 0 ? ctx->runs[bw] : exp_plain_run("baraff-witkin");
  exp_csv csv;
  int rc = exp_csv_open(ctx, &csv, "cloth-cost-animation",
                        "scheme,solver,grid,nodes,h,steps,k_scale,time_per_step,time_probe,eps_max,frac_mean,"
                        "frac_max,flips,noconv,completed,best,newton_iterations_per_step,analyses,set_changes",
                        NULL,
                        "\"note\": \"cloth-cost.csv's comparison at the animation steps anim_h over anim_T: time per "
                        "step over the steps taken, wall clock, one run each (this file changes from run to run); a run "
                        "whose step failed or was not taken has completed = 0; a solver stopped in the "
                        "race against the fastest has the steps it took, which depend on the clock too, and completed = 0\"");
  if (rc)
    return rc;
  static cost_best ba[EXP_CLOTH_MAX_ANIM][EXP_CLOTH_MAX_ANIM][MAX_GRIDS], bb[EXP_CLOTH_MAX_ANIM][MAX_GRIDS];
  for (int hi = 0; hi < nh && !rc; hi++) {
    long jprev = 0;
    long steps = (long)ceil(T / hs[hi] - 1e-9);
    for (int gi = 0; gi < ng && !rc; gi++) {
      sp.grid = grids[gi];
      for (int k = 0; k < ns && !rc; k++)
        rc = cost_method(ctx, &ar[k], exp_cloth_run_method(&ar[k]), &sp, hs[hi], steps, as, nas, bs, nbs, &jprev, &csv,
                         1, &ba[k][hi][gi]);
      if (!rc)
        rc = cost_method(ctx, &br, EXP_CLOTH_PLAIN, &sp, hs[hi], steps, as, nas, bs, nbs, &jprev, &csv, 1,
                         &bb[hi][gi]);
    }
  }
  int c = exp_csv_close(&csv, rc == CDYN_OK);
  if (rc || (rc = c))
    return rc;
  for (int k = 0; k < ns; k++) {
    int ineq = exp_cloth_run_method(&ar[k]) == EXP_CLOTH_INEQUALITY;
    exp_report(ctx,
               "At animation steps (anim_h), over the first %g s, grids %s: %s with %s (its "
               "springs implicit) against Baraff-Witkin stiffened to max eps <= %g at the same h, each with its "
               "fastest solver. A run whose step failed or was not taken has not completed: its time per step is over "
               "the steps it took, and its ratio is given in parentheses. Newton it./step and set changes: %s's.\n\n"
               "| grid | h (s) | %s (ms) | steps taken | max eps | Newton it./step | set changes | analyses | BW k "
               "scale | Baraff-Witkin (ms) | max eps | ratio |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
               T, gtext, ar[k].name,
               ineq ? "the strain limiter in its inequality mode, a one-sided row on every structural spring for good"
                    : "the adaptive constraints",
               eps_max, ar[k].name, ar[k].name);
    for (int hi = 0; hi < nh; hi++)
      for (int gi = 0; gi < ng; gi++) {
        const cost_best *a = &ba[k][hi][gi], *b = &bb[hi][gi];
        long steps = (long)ceil(T / hs[hi] - 1e-9), called = a->r.steps + a->r.not_taken;
        int done = !a->r.failed;
        double ta = a->r.time, tb = b->t;
        char hbuf[32], ratio[32];
        exp_cloth_fmt_step(hbuf, sizeof hbuf, hs[hi]);
        snprintf(ratio, sizeof ratio, done ? "%.3g" : "(%.3g)", ta / tb);
        exp_report(ctx, "| %ld | %s | %.4g | %ld / %ld%s | %.4g | %.3g | %lu | %lu | %g | %.4g | %.4g | %s |\n",
                   grids[gi], hbuf, 1e3 * ta, a->r.steps, steps,
                   done ? "" : a->r.not_taken ? " (next not taken)" : " (failed)", a->r.eps_max,
                   a->r.iterations ? (double)a->r.iterations / (double)(called > 0 ? called : 1) : NAN,
                   a->r.set_changes, a->r.analyses, b->kscale, 1e3 * tb, b->eps, ratio);
        printf("  animation step %s grid %ld: %s %.4g ms/step over %ld of %ld steps%s, max eps %.4g; baraff-witkin "
               "(k x %g) %.4g ms/step, max eps %.4g; ratio %.3g\n",
               hbuf, grids[gi], ar[k].name, 1e3 * ta, a->r.steps, steps, done ? "" : " (not completed)",
               a->r.eps_max, b->kscale, 1e3 * tb, b->eps, ta / tb);
      }
    exp_report(ctx, "\n");
  }
  if (fh < 0 || fg < 0 || fs < 0)
    return CDYN_OK;
  /* cloth.frame_rate: the cloth held over cloth-elongation's span, then
     the cost at 1/60 s on grid 16. */
  cost_result hold;
  if ((rc = cost_hold(ctx, sp0, &ar[fs], hs[fh], &hold)))
    return rc;
  const cost_best *a = &ba[fs][fh][fg], *b = &bb[fh][fg];
  double hold_T;
  exp_param_double(ctx, "hold_T", &hold_T);
  long hold_steps = (long)ceil(hold_T / hs[fh] - 1e-9);
  int held = !hold.failed && hold.steps == hold_steps;
  double strain = held ? hold.eps_max : INFINITY, ratio = a->r.failed ? INFINITY : a->r.time / b->t;
  exp_value v[3] = {{"strain", strain}, {"ratio", ratio}, {"bw_eps", b->eps}};
  exp_report(ctx,
             "cloth.frame_rate: %s on cloth-elongation's scene (grid %d, the ball), the limiter and the ball in their "
             "inequality modes, at h = 1/60 s over %g s: %ld of %ld steps taken%s, largest structural strain %.4g "
             "(cloth-frame-rate.csv).\n\n",
             ar[fs].name, FRAME_GRID, hold_T, hold.steps, hold_steps,
             held ? "" : hold.not_taken ? " (the next not taken)" : " (stopped)", hold.eps_max);
  return exp_judge(ctx, "cloth.frame_rate", v, 3,
                   "%s at h = 1/60 s on cloth-elongation's scene (grid %d, the ball) over %g s: %ld of %ld steps "
                   "taken, largest structural strain %.4g; on grid %d over %g s without the ball: %.4g ms/step (%s, "
                   "%ld of %ld steps) against Baraff-Witkin %.4g ms/step (%s, k x %g, max eps %.4g), ratio %.3g",
                   ar[fs].name, FRAME_GRID, hold_T, hold.steps, hold_steps, hold.eps_max, FRAME_GRID, T,
                   1e3 * a->r.time, a->solver, a->r.steps, (long)ceil(T / hs[fh] - 1e-9), 1e3 * b->t, b->solver,
                   b->kscale, b->eps, a->r.time / b->t);
}

/*
 * cloth.frame_rate's first part: `run` (projected-newton) on
 * cloth-elongation's scene, grid FRAME_GRID with its ball, the limiter
 * and the ball in their inequality modes (the scene builder's choice for
 * a scheme of pins and inequality rows), over hold_T (cloth-elongation's
 * 2.5 s) at h, with the solver auto, as cloth-elongation runs it at its
 * animation steps (its cloth_stepper): the same run as that row of its
 * cloth-animation.csv.  The steps taken, whether one failed or was not
 * taken, the largest structural strain, into cloth-frame-rate.csv
 * (deterministic).
 */
static int cost_hold(exp_ctx *ctx, const exp_cloth_spec *sp0, const exp_runspec *run, double h, cost_result *out)
{
  exp_cloth_spec sp = *sp0;
  sp.grid = FRAME_GRID;
  sp.ball = 1;
  double hold_T, eps_max;
  exp_param_double(ctx, "hold_T", &hold_T);
  exp_param_double(ctx, "eps_max", &eps_max);
  long steps = (long)ceil(hold_T / h - 1e-9);
  int rc = cost_run(ctx, run, &sp, 1, exp_cloth_run_method(run), "solver", "auto", eps_max, h, steps, steps, 0, 0,
                    out);
  if (rc)
    return rc;
  long called = out->steps + out->not_taken;
  printf("  %s on cloth-elongation's scene, grid %d, h %g: %ld of %ld steps, max eps %.4g%s\n", run->name, FRAME_GRID,
         h, out->steps, steps, out->eps_max, out->failed ? " (stopped)" : "");
  exp_csv csv;
  if ((rc = exp_csv_open(ctx, &csv, "cloth-frame-rate",
                         "scheme,solver,grid,h,T,steps,steps_done,completed,not_taken,eps_max,"
                         "newton_iterations_per_step,noconv",
                         NULL,
                         "\"note\": \"cloth.frame_rate's run: the scheme on cloth-elongation's scene (its ball), the "
                         "strain limiter and the ball in their inequality modes, over hold_T at h; completed = 1: "
                         "every step taken; deterministic\"")))
    return rc;
  double row[10] = {(double)FRAME_GRID, h, hold_T, (double)steps, (double)out->steps,
                    !out->failed && out->steps == steps ? 1.0 : 0.0, (double)out->not_taken, out->eps_max,
                    out->iterations ? (double)out->iterations / (double)(called > 0 ? called : 1) : NAN,
                    (double)out->noconv};
  const char *labels[2] = {run->name, "auto"};
  rc = exp_csv_row_labels(&csv, labels, 2, row, 10);
  int c = exp_csv_close(&csv, rc == CDYN_OK);
  return rc ? rc : c;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "solver", "", "linear solver of the run (the stepper option solver; for baraff-witkin, auto is its filtered PCG)"},
  {NULL, "grid", "1", "nodes per side of the patch"},
  {NULL, "nodes", "1", "nodes of the patch, grid^2"},
  {NULL, "k_scale", "1", "factor on every spring constant (Baraff-Witkin's stiffening; 1 otherwise)"},
  {NULL, "time_per_step", "s", "wall-clock time per step over the window"},
  {NULL, "time_probe", "s", "wall-clock time per step over the first probe_steps steps (over the steps run when fewer)"},
  {NULL, "eps_max", "1", "largest structural elongation over the steps run"},
  {NULL, "frac_mean", "1", "mean fraction of structural springs constrained"},
  {NULL, "frac_max", "1", "largest fraction of structural springs constrained"},
  {NULL, "flips", "1", "springs made constraints again right after their release"},
  {NULL, "completed", "1", "1: every step of the window was taken"},
  {NULL, "best", "1", "1: the method's fastest solver at this grid"},
  {NULL, "newton_iterations_per_step", "1",
   "nonlinear iterations per step called, a last step not taken included (nan: the scheme counts none)"},
  {NULL, "analyses", "1", "symbolic analyses of a sparse direct solver (a new pattern), over the run"},
  {NULL, "set_changes", "1", "steps that followed a change of the constraint set"},
  {"cloth-frame-rate", "T", "s", "span of the run (hold_T)"},
  {"cloth-frame-rate", "steps", "1", "steps of the span at h"},
  {"cloth-frame-rate", "steps_done", "1", "steps taken (the run stops at a failed or not-taken step, or at eps > 10)"},
  {"cloth-frame-rate", "completed", "1", "1: every step of the span was taken"},
  {"cloth-frame-rate", "not_taken", "1", "1: the run ended at a step not taken (CDYN_NOCONV, the state restored)"},
  {"cloth-frame-rate", "eps_max", "1", "largest structural strain after any step taken"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_cloth_vs_implicit_ode = {
  .name = "cloth-vs-implicit-ode",
  .description = "time per step of adaptive constraints against Baraff-Witkin at equal largest elongation, over grid "
                 "sizes",
  .source = "001 sec V-B",
  .params = cost_params,
  .columns = columns,
  .check = cost_check,
  .schemes = "implicit",
  .companions = cost_companions,
  .pins_only_ok = 1,
  .h = 0,
  .steps = 0,
  .run = cost_run_exp,
};
