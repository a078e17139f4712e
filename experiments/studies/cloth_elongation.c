/*
 * cloth_elongation.c: cloth-elongation (000 sec. 4, 001 sec. V-B, 000
 * fig 1, 001 fig 6).
 *
 * The scene: problems/cloth_scene.c.
 *
 * Methods (runs):
 *   springs        the springs alone: the scheme `implicit` with no
 *                  constraint but the pins, which integrates the springs
 *                  explicitly (its free acceleration, symplectic Euler);
 *                  the ball by projection;
 *   implicit, improved, rattle (and any other equality scheme given)
 *                  adaptive constraints (lib/cloth/strainlimit.c): before each
 *                  step a structural spring stretched beyond eps_max
 *                  becomes the distance constraint |x_ij| = (1 + eps_max)
 *                  L0, after it a constraint whose multiplier pushes
 *                  (lambda < 0) becomes a spring again; no hysteresis; the
 *                  ball by separation constraints switched the same way;
 *   provot         `implicit` on the springs, then Provot's correction of
 *                  the structural springs beyond eps_max (provot_sweeps
 *                  passes), then the ball's projection;
 *   baraff-witkin  linearised backward Euler on all springs at the same
 *                  constants (lib/schemes/baraff_witkin.c, filtered PCG);
 *                  the ball by projection;
 *   a scheme that enforces pins and inequality rows only (projected-newton,
 *                  at the animation steps): the strain limiter and the
 *                  ball in their inequality modes (problems/cloth_scene.c),
 *                  one-sided rows on for good, which the scheme enforces
 *                  inside its step.
 * Only structural springs are limited and measured: they carry the
 * cloth's stretch (shear and bend springs are soft by design).  The
 * elongation of a spring is eps = (|x_ij| - L0) / L0.
 *
 * Per step: the largest and the 99th-percentile eps over structural
 * springs, the active constraints (strain and ball), the springs
 * activated right after a release (flips), the ball's deepest penetration,
 * the energy (kinetic, gravity's and every spring's elastic energy
 * k (r - L0)^2 / 2, constrained or not; the ball excluded), written every
 * out_every steps; the time per step over the run (hooks included).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdyn/cloth.h>

#include "runner/experiment.h"

#include "problems/cloth_scene.h"

/* Kinetic, gravity's and every spring's elastic energy of the cloth. */
static double energy(const exp_cloth_scene *s)
{
  const cdyn_system *sys = s->sys;
  const double *q = cdyn_system_positions(sys), *v = cdyn_system_velocities(sys);
  double E = 0;
  for (size_t i = 0; i < s->nodes; i++) {
    double m;
    cdyn_system_get_particle(sys, i, &m, NULL, NULL);
    E += 0.5 * m * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]) + m * 9.81 * q[3 * i + 1];
  }
  for (size_t k = 0; k < cdyn_system_spring_count(sys); k++) {
    size_t i, j;
    double kk, rest;
    cdyn_system_get_spring(sys, k, &i, &j, &kk, NULL, &rest);
    double d = sqrt((q[3 * i] - q[3 * j]) * (q[3 * i] - q[3 * j]) + (q[3 * i + 1] - q[3 * j + 1]) * (q[3 * i + 1] - q[3 * j + 1]) +
                    (q[3 * i + 2] - q[3 * j + 2]) * (q[3 * i + 2] - q[3 * j + 2]));
    E += 0.5 * kk * (d - rest) * (d - rest);
  }
  return E;
}

/* A stepper for `run` (exp_stepper_run) where the experiment has a
   parameter `solver` for its constraint schemes: a scheme that cannot use
   that solver (backward-euler, bdf2: their KKT matrix is indefinite, and
   the default is cholesky) gets its own choice, auto, instead, and so
   does a run in the inequality modes (projected-newton: its system is
   every free node's, 3n unknowns, where the dense solver's saving, a
   system of the active rows alone, does not exist); its --set options
   still apply after. */
static int cloth_stepper(exp_ctx *ctx, cdyn_system *sys, const exp_runspec *run, const char *const *extra,
                         cdyn_stepper **out)
{
  const char *solver = exp_param_string(ctx, "solver");
  if (!solver || (exp_cloth_solver_fits(run->scheme, solver) && exp_cloth_run_method(run) != EXP_CLOTH_INEQUALITY))
    return exp_stepper_run(ctx, sys, run, extra, out);
  int k = 0;
  while (strcmp(ctx->exp->params[k].name, "solver"))
    k++;
  const char *saved = ctx->param_text[k];
  ctx->param_text[k] = "auto";
  int rc = exp_stepper_run(ctx, sys, run, extra, out);
  ctx->param_text[k] = saved;
  return rc;
}

/*
 * The stability rule of a run at a fixed step (cloth-elongation's
 * animation steps, and its own step for comparison), fixed before the
 * runs: a run is stable when every step
 *   - is taken: it returns a status >= 0 and advances the time (a
 *     CDYN_NOCONV of a scheme that restores its state when its iteration
 *     does not converge, backward-euler and bdf2, is a step not taken: at
 *     a fixed step an animation cannot go on from it; the run ends there);
 *   - leaves a finite state;
 *   - leaves the largest structural strain at most `bound` (1: 100 %).
 * Recorded: the first rule broken and the step at which it was.  A run
 * goes on past the strain bound (to show whether it comes back) until
 * its strain passes 10 or is not finite, as every cloth-elongation run.
 */
enum stab_fail { SF_NONE, SF_FAILED, SF_NOT_TAKEN, SF_NONFINITE, SF_BOUND };
static const char *const stab_names[] = {"none", "failed-step", "step-not-taken", "non-finite", "strain-bound"};

typedef struct {
  double bound;
  double t_prev;   /* the system's time after the last step taken */
  double E0, E, t; /* the energy at the start, at the last step taken, and that step's time */
  enum stab_fail fail;
  long k_fail;
} stab;

static void stab_break(stab *b, enum stab_fail f, long k)
{
  if (b->fail == SF_NONE) {
    b->fail = f;
    b->k_fail = k;
  }
}

/* After step k (0: the start) of a run at step h, with its largest
   strain and energy: 1 when the step was not taken (the run ends). */
static int stab_step(stab *b, const exp_state *st, double h, double emax, double E)
{
  double t = cdyn_system_time(st->sys);
  if (st->k > 0 && st->status == CDYN_NOCONV && t == b->t_prev) {
    stab_break(b, SF_NOT_TAKEN, st->k);
    return 1;
  }
  b->t_prev = t;
  if (st->k == 0)
    b->E0 = E;
  b->E = E;
  b->t = (double)st->k * h;
  if (!isfinite(emax) || !isfinite(E))
    stab_break(b, SF_NONFINITE, st->k);
  else if (emax > b->bound)
    stab_break(b, SF_BOUND, st->k);
  return 0;
}

/* Energy lost per second from the start to the last step taken (nan
   before any). */
static double stab_loss_rate(const stab *b) { return b->t > 0 ? (b->E0 - b->E) / b->t : NAN; }

/* ---- cloth-elongation ----------------------------------------------------------------------- */

static const exp_param elong_params[] = {
  {"grid", "16", EXP_INT, 2, 256, 0, "nodes along each side of the patch"},
  EXP_CLOTH_SCENE_PARAMS,
  {"provot_sweeps", "10", EXP_INT, 1, 1000, 0, "passes of Provot's correction per step"},
  {"solver", "cholesky", EXP_TEXT, 0, 0, 0, "linear solver of the constraint schemes (dense: only active rows)"},
  {"out_every", "10", EXP_INT, 1, 1e9, 0, "write every this many steps to cloth-elongation.csv"},
  {"snapshots", "0.5,1.5,2.5", EXP_TEXT, 0, 0, 0, "times of the mesh snapshots (s), comma separated"},
  {"anim_h", "1/60,1/120", EXP_TEXT, 0, 0, 0,
   "animation steps (s; numbers or p/q, comma separated; none: no animation runs): every run again at each, over "
   "the same time"},
  {"anim_schemes", "backward-euler,projected-newton,admm", EXP_TEXT, 0, 0, 0,
   "schemes run at the animation steps only, with the adaptive constraints, or the limiter and the ball in their "
   "inequality modes for a scheme that takes pins and inequality rows only (none: no such runs)"},
  {"strain_bound", "1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX,
   "stability rule: largest structural strain of a stable run"},
  {"eps_tol", "0.11", EXP_REAL, 0, 10, EXP_OPEN_MIN, "elongation the animation table also judges (the claim's tolerance)"},
  EXP_PARAMS_END};

/* Baraff-Witkin solves its own 3n x 3n system with the solver its stepper
   option names: auto, the paper's filtered PCG, whatever `solver` (the
   constraint schemes' solver) says. */
static const char *const bw_overrides[] = {"solver", "auto", NULL};

static const exp_companion elong_companions[] = {
  {"springs", "implicit", NULL, "the springs alone (no constraint but the pins), the ball by projection"},
  {"provot", "implicit", NULL, "the springs, then Provot's position correction beyond eps_max"},
  {"baraff-witkin", "baraff-witkin", bw_overrides,
   "linearised backward Euler on all springs, same constants, the paper's filtered PCG"},
  {NULL, NULL, NULL, NULL}};

#define MAX_SNAPS 16

static int elong_check(exp_ctx *ctx)
{
  double ts[MAX_SNAPS], hs[EXP_CLOTH_MAX_ANIM];
  char names[EXP_CLOTH_MAX_ANIM][32];
  int n;
  int rc;
  if ((rc = exp_parse_times(exp_param_string(ctx, "snapshots"), ts, MAX_SNAPS, &n)))
    return rc;
  if (exp_cloth_parse_steps(exp_param_string(ctx, "anim_h"), hs, EXP_CLOTH_MAX_ANIM, &n))
    return cdyn_error(CDYN_EINVAL, "anim_h: at most %d step sizes > 0, comma separated, each a number or p/q "
                                   "(1/60), or none", EXP_CLOTH_MAX_ANIM);
  if (exp_cloth_parse_schemes(exp_param_string(ctx, "anim_schemes"), names, EXP_CLOTH_MAX_ANIM, &n))
    return cdyn_error(CDYN_EINVAL, "anim_schemes: at most %d registered schemes, comma separated, or none (cdyn "
                                   "list shows them)", EXP_CLOTH_MAX_ANIM);
  return 0;
}

/* Write the triangles of the mesh with the largest strain |edge| / rest - 1
   of their two structural edges (grid neighbours; the third edge, a quad's
   diagonal, is a shear spring, neither limited nor measured). */
static int write_snapshot(exp_csv *csv, const char *run, int snap, double t, const exp_cloth_scene *s, long grid,
                          double spacing, double radius)
{
  const size_t *tri = s->patch.tri;
  size_t ntri = s->patch.ntri, N = (size_t)grid;
  int rc = CDYN_OK;
  const double *q = cdyn_system_positions(s->sys);
  char snapbuf[16];
  snprintf(snapbuf, sizeof snapbuf, "%d", snap);
  for (size_t k = 0; k < ntri && !rc; k++) {
    double row[16], worst = -INFINITY;
    row[0] = (double)k;
    for (int a = 0; a < 3; a++) {
      size_t i = tri[3 * k + (size_t)a], j = tri[3 * k + (size_t)(a + 1) % 3];
      double d = 0;
      for (int c = 0; c < 3; c++) {
        row[1 + 3 * a + c] = q[3 * i + (size_t)c];
        d += (q[3 * i + (size_t)c] - q[3 * j + (size_t)c]) * (q[3 * i + (size_t)c] - q[3 * j + (size_t)c]);
      }
      double di = (double)(i % N) - (double)(j % N), dj = (double)(i / N) - (double)(j / N);
      if (di != 0 && dj != 0)
        continue; /* the diagonal: a shear spring, not limited */
      double e = sqrt(d) / (spacing * sqrt(di * di + dj * dj)) - 1;
      if (!(e <= worst))
        worst = e;
    }
    row[10] = t;
    row[11] = worst;
    /* The ball's centre and radius (nan without one). */
    for (int c = 0; c < 3; c++)
      row[12 + c] = s->ball ? q[3 * s->ball_particle + (size_t)c] : NAN;
    row[15] = s->ball ? radius : NAN;
    const char *labels[2] = {run, snapbuf};
    rc = exp_csv_row_labels(csv, labels, 2, row, 16);
  }
  return rc;
}

static const char *const elong_columns =
  "scheme,t,steps,eps_max,eps_p99,active,activated,released,flips,contacts,depth,E,status";
static const char *const anim_columns = "scheme,h,t,steps,eps_max,eps_p99,active,flips,contacts,depth,E,iterations,status";

/* What cloth-elongation measures after each step of a run (the runner's
   observer): the elongation, the limiter's and the ball's counts, the
   energy, a row every `every` steps and the last, the snapshots; a run
   whose elongation passes 10 (or is not finite) is stopped there. */
typedef struct {
  exp_ctx *ctx;
  const exp_runspec *run;
  enum exp_cloth_method m;
  exp_cloth_scene *s;
  exp_csv *series, *snapcsv;
  long every, steps;
  double h;
  const double *snaps;
  int nsnap, snap;
  long grid;
  double spacing, radius;
  /* Over the run: */
  double max, p99, depth;
  long active_max, steps_done;
  unsigned long flips;
  int failed;
  int anim; /* an animation run: its own series (anim_columns) */
  stab b;   /* the stability rule (b.bound set by the caller) */
} elong_obs;

static int elong_observe(void *octx, const exp_state *st)
{
  elong_obs *o = octx;
  exp_cloth_scene *s = o->s;
  long k = st->k;
  double emax, p99;
  int rc = exp_cloth_elongation(s, &emax, &p99);
  if (rc)
    return rc;
  double E = energy(s);
  if (stab_step(&o->b, st, o->h, emax, E)) {
    fprintf(stderr, "  %s (h = %g): step %ld not taken (%s): stopped\n", o->run->name, o->h, k, cdyn_errmsg());
    o->failed = 1;
    return 1;
  }
  cdyn_strainlimit_counts sc = {0};
  cdyn_ball_counts bc = {0};
  if (s->sl)
    cdyn_strainlimit_counts_get(s->sl, &sc);
  if (s->ball && cdyn_ball_counts_get(s->ball, &bc))
    bc.depth = NAN;
  if (!(emax <= o->max))
    o->max = emax;
  if (!(p99 <= o->p99))
    o->p99 = p99;
  if (!(bc.depth <= o->depth))
    o->depth = bc.depth;
  long active = (long)(sc.active + (o->m == EXP_CLOTH_ADAPTIVE ? bc.active : 0));
  if (active > o->active_max)
    o->active_max = active;
  o->flips = sc.flips;
  o->steps_done = k;
  if (o->anim) {
    /* The animation series: every step, with the step size and the
       nonlinear iterations of the step. */
    cdyn_stats stats = {0};
    cdyn_stepper_stats(st->st, &stats);
    double row[12] = {o->h, (double)k * o->h, (double)k, emax, p99, (double)sc.active, (double)sc.flips,
                      (double)bc.active, bc.depth, E, k ? (double)stats.last_nonlinear_iterations : 0, 0};
    if ((rc = exp_csv_row_labeled(o->series, o->run->name, row, 12)))
      return rc;
  } else if (k % o->every == 0 || k == o->steps) {
    double t = (double)k * o->h;
    double row[12] = {t, (double)k, emax, p99, (double)sc.active, (double)sc.activated, (double)sc.released,
                      (double)sc.flips, (double)bc.active, bc.depth, E, 0};
    if ((rc = exp_csv_row_labeled(o->series, o->run->name, row, 12)))
      return rc;
  }
  if (o->snap < o->nsnap && (double)k * o->h >= o->snaps[o->snap] - 0.5 * o->h) {
    if ((rc = write_snapshot(o->snapcsv, o->run->name, o->snap, (double)k * o->h, s, o->grid, o->spacing, o->radius)))
      return rc;
    o->snap++;
  }
  if (!isfinite(emax) || emax > 10.0) {
    fprintf(stderr, "  %s: elongation %g at step %ld: stopped\n", o->run->name, emax, k);
    o->failed = 1;
    return 1;
  }
  exp_progress(o->ctx, o->run->name, k, o->steps);
  return CDYN_OK;
}

/* What one run of cloth-elongation gives. */
typedef struct {
  double max, p99, depth; /* over the steps taken */
  double time;            /* wall clock per step */
  long steps, active_max; /* steps taken and measured */
  int failed, status;     /* stopped before the end; the failed step's status */
  unsigned long flips, noconv;
  stab b;                 /* the stability rule */
  cdyn_stats stats;       /* the stepper's, at the end */
  char solver[64];        /* its solver */
} elong_result;

/*
 * One run of the cloth at step h for `steps` steps: the series into
 * `series` (anim: every step, anim_columns; else every `every` steps and
 * the last, elong_columns), the snapshots into snapcsv (NULL: none), the
 * stability rule with the strain bound `bound`.
 */
static int elong_one(exp_ctx *ctx, const exp_cloth_spec *sp, const exp_runspec *run, double eps_max, long sweeps,
                     double h, long steps, double bound, exp_csv *series, int anim, long every, exp_csv *snapcsv,
                     const double *snaps, int nsnap, elong_result *res)
{
  memset(res, 0, sizeof *res);
  enum exp_cloth_method m = exp_cloth_run_method(run);
  exp_cloth_scene s;
  int rc = exp_cloth_scene_new(sp, m, eps_max, sweeps, &s);
  if (rc)
    return rc;
  cdyn_stepper *st;
  if ((rc = cloth_stepper(ctx, s.sys, run, NULL, &st))) {
    exp_cloth_scene_free(&s);
    return rc;
  }
  elong_obs o = {.ctx = ctx, .run = run, .m = m, .s = &s, .series = series, .snapcsv = snapcsv, .every = every,
                 .steps = steps, .h = h, .snaps = snaps, .nsnap = snapcsv ? nsnap : 0, .grid = sp->grid,
                 .spacing = sp->size / (double)(sp->grid - 1), .radius = sp->ball_radius, .anim = anim,
                 .b = {.bound = bound}};
  exp_sim sim = {.scene = s.sc, .st = st, .h = h, .steps = steps, .obs = elong_observe, .octx = &o};
  exp_outcome out;
  rc = exp_simulate_with(&sim, &out);
  int failed_step = out.end == EXP_END_FAILED_STEP;
  if (!rc && (failed_step || o.b.fail == SF_NOT_TAKEN)) {
    /* The failed (or not taken) step's row: its status, the limiter's
       counts, no measure of a state that was not kept. */
    long k = failed_step ? out.end_step : o.b.k_fail;
    int status = failed_step ? out.status : CDYN_NOCONV;
    o.failed = 1;
    if (failed_step) {
      fprintf(stderr, "  %s: step %ld failed: %s\n", run->name, k, cdyn_errmsg());
      /* The runner ends a run at a CDYN_NOCONV that left the time where
         it was (the scheme restored its state): a step not taken. */
      stab_break(&o.b, status == CDYN_NOCONV ? SF_NOT_TAKEN : SF_FAILED, k);
    }
    cdyn_strainlimit_counts sc = {0};
    if (s.sl)
      cdyn_strainlimit_counts_get(s.sl, &sc);
    if (anim) {
      cdyn_stats stats = {0};
      cdyn_stepper_stats(st, &stats);
      double row[12] = {h, (double)k * h, (double)k, NAN, NAN, (double)sc.active, (double)sc.flips, 0, 0, NAN,
                        (double)stats.last_nonlinear_iterations, (double)status};
      rc = exp_csv_row_labeled(series, run->name, row, 12);
    } else {
      double row[12] = {(double)k * h, (double)k, NAN, NAN, (double)sc.active, (double)sc.activated,
                        (double)sc.released, (double)sc.flips, 0, 0, NAN, (double)status};
      rc = exp_csv_row_labeled(series, run->name, row, 12);
    }
    res->status = status;
  }
  if (!rc && out.end == EXP_END_NONFINITE) {
    o.failed = 1;
    stab_break(&o.b, SF_NONFINITE, out.end_step);
  }
  res->max = o.max, res->p99 = o.p99, res->depth = o.depth;
  res->active_max = o.active_max;
  res->flips = o.flips;
  res->noconv = out.noconv;
  res->failed = o.failed;
  res->steps = o.steps_done;
  res->time = out.elapsed / (double)(res->steps > 0 ? res->steps : 1);
  res->b = o.b;
  cdyn_stepper_stats(st, &res->stats);
  if (cdyn_stepper_get(st, "solver", res->solver, sizeof res->solver))
    snprintf(res->solver, sizeof res->solver, "-");
  if (anim)
    printf("  %-14s h %-9.4g steps %-5ld max eps %-9.4g max active %-5ld flips %-6lu %s%s %.3g ms/step\n",
           run->name, h, res->steps, res->max, res->active_max, res->flips,
           o.b.fail == SF_NONE ? "stable" : "unstable: ", o.b.fail == SF_NONE ? "" : stab_names[o.b.fail],
           1e3 * res->time);
  else
    printf("  %-14s steps %-6ld max eps %-10.4g p99 %-10.4g max active %-6ld flips %-6lu depth %-9.3g %.3g "
           "ms/step%s\n",
           run->name, res->steps, res->max, res->p99, res->active_max, res->flips, res->depth, 1e3 * res->time,
           res->failed ? " (stopped)" : "");
  cdyn_stepper_free(st);
  exp_cloth_scene_free(&s);
  return rc;
}

static int elong_anim(exp_ctx *ctx, const exp_cloth_spec *sp, const elong_result *res);

static int elong_run(exp_ctx *ctx)
{
  exp_cloth_spec sp;
  exp_cloth_read_scene(ctx, &sp);
  double eps_max, snaps[MAX_SNAPS], bound;
  int nsnap;
  exp_param_double(ctx, "eps_max", &eps_max);
  exp_param_double(ctx, "strain_bound", &bound);
  long sweeps = exp_param_long(ctx, "provot_sweeps"), every = exp_param_long(ctx, "out_every");
  exp_parse_times(exp_param_string(ctx, "snapshots"), snaps, MAX_SNAPS, &nsnap);
  double h = ctx->h;
  long steps = ctx->steps;
  double spacing = sp.size / (double)(sp.grid - 1);
  char extra[512];
  snprintf(extra, sizeof extra,
           "\"note\": \"structural springs only; eps = (r - L0) / L0; a run that failed stops at its last step\", "
           "\"grid_spacing\": %.17g",
           spacing);
  exp_csv series, summ, timing, snapcsv;
  int rc;
  if ((rc = exp_csv_open(ctx, &series, "cloth-elongation", elong_columns, NULL, extra)))
    return rc;
  if ((rc = exp_csv_open(ctx, &snapcsv, "cloth-snapshots",
                         "scheme,snap,tri,x1,y1,z1,x2,y2,z2,x3,y3,z3,t,strain,bx,by,bz,br", NULL,
                         "\"note\": \"the mesh at each snapshot time: one row per triangle, its corners, the largest "
                         "strain of its two structural edges (|edge| / rest - 1), and the ball\""))) {
    exp_csv_close(&series, 0);
    return rc;
  }
  static elong_result res[EXP_MAX_RUNS];
  for (int r = 0; r < ctx->nruns && !rc; r++)
    rc = elong_one(ctx, &sp, &ctx->runs[r], eps_max, sweeps, h, steps, bound, &series, 0, every, &snapcsv, snaps,
                   nsnap, &res[r]);
  int c1 = exp_csv_close(&series, rc == CDYN_OK), c2 = exp_csv_close(&snapcsv, rc == CDYN_OK);
  if (rc || (rc = c1) || (rc = c2))
    return rc;

  if ((rc = exp_csv_open(ctx, &summ, "cloth-elongation-summary",
                         "scheme,steps,completed,eps_max,eps_p99,active_max,flips,depth_max,noconv,status", NULL,
                         "\"note\": \"over the whole run: the largest eps and 99th percentile of any step\"")))
    return rc;
  for (int r = 0; r < ctx->nruns && !rc; r++) {
    double row[9] = {(double)res[r].steps, res[r].failed ? 0.0 : 1.0, res[r].max, res[r].p99,
                     (double)res[r].active_max, (double)res[r].flips, res[r].depth, (double)res[r].noconv,
                     (double)res[r].status};
    rc = exp_csv_row_labeled(&summ, ctx->runs[r].name, row, 9);
  }
  c1 = exp_csv_close(&summ, rc == CDYN_OK);
  if (rc || (rc = c1))
    return rc;
  if ((rc = exp_csv_open(ctx, &timing, "cloth-elongation-time", "scheme,steps,time_per_step", NULL,
                         "\"note\": \"wall-clock time per step (CLOCK_MONOTONIC, hooks included, one run): the one "
                         "file of this experiment that changes from run to run\"")))
    return rc;
  for (int r = 0; r < ctx->nruns && !rc; r++) {
    double row[2] = {(double)res[r].steps, res[r].time};
    rc = exp_csv_row_labeled(&timing, ctx->runs[r].name, row, 2);
  }
  c1 = exp_csv_close(&timing, rc == CDYN_OK);
  if (rc || (rc = c1))
    return rc;

  exp_report(ctx,
             "Cloth %ldx%ld (%g m, %g kg; k = %g / %g / %g N/m), hung by two corners, falling from horizontal; a "
             "ball (r = %g m) moves into it at %g m/s. h = %g s, %ld steps. Elongation of the structural springs "
             "(limit %g; time per step in cloth-elongation-time.csv):\n\n| run | steps | completed | max eps | max p99 | "
             "max active | flips | max depth (m) |\n|---|---|---|---|---|---|---|---|\n",
             sp.grid, sp.grid, sp.size, sp.mass, sp.k_struct, sp.k_shear, sp.k_bend, sp.ball_radius, sp.ball_speed, h,
             steps, eps_max);
  for (int r = 0; r < ctx->nruns; r++)
    exp_report(ctx, "| %s | %ld | %s | %.4g | %.4g | %ld | %lu | %.3g |\n", ctx->runs[r].name, res[r].steps,
               res[r].failed ? "no" : "yes", res[r].max, res[r].p99, res[r].active_max, res[r].flips, res[r].depth);
  exp_report(ctx, "\n");

  if (exp_claim_ready(ctx, "cloth.elongation_bounded")) {
    int ri = exp_run_index(ctx, "implicit"), rs = exp_run_index(ctx, "springs");
    exp_value v[3] = {{"constrained_max", res[ri].failed ? INFINITY : res[ri].max},
                      {"failed", (double)res[ri].failed},
                      {"springs_max", res[rs].max}};
    rc = exp_judge(ctx, "cloth.elongation_bounded", v, 3,
                   "implicit with adaptive constraints: largest eps %.4g over %ld steps (p99 %.4g, %lu flips); "
                   "springs alone: %.4g; rattle %.4g, improved %.4g (runs that stopped count as unbounded)",
                   res[ri].max, res[ri].steps, res[ri].p99, res[ri].flips, res[rs].max,
                   exp_run_index(ctx, "rattle") >= 0 ? res[exp_run_index(ctx, "rattle")].max : NAN,
                   exp_run_index(ctx, "improved") >= 0 ? res[exp_run_index(ctx, "improved")].max : NAN);
  }
  if (!rc)
    rc = elong_anim(ctx, &sp, res);
  return rc;
}

/* Per step the stepper was called for (a failed or not-taken last step
   included); nan when the count is 0 (the scheme does not count it). */
static double per_step(unsigned long count, const elong_result *r)
{
  long called = r->steps + (r->status != 0);
  return count ? (double)count / (double)(called > 0 ? called : 1) : NAN;
}

/*
 * cloth-elongation at animation steps (anim_h, 1/60 and 1/120 s by
 * default): the same cloth and ball over the same time (h steps of the
 * experiment), every run of the experiment (the papers' schemes with the
 * adaptive constraints, the springs alone, Provot, Baraff-Witkin) and the
 * schemes of anim_schemes (backward-euler: the springs implicit with the
 * constraints, the adaptive strain constraints switched by the same rule;
 * projected-newton, which takes pins and inequality rows only: the
 * springs implicit, the limiter and the ball in their inequality modes,
 * one-sided rows on for good) at each step, judged by the stability rule (stab, above).  Written:
 * cloth-animation-series.csv (every step of every run), cloth-animation.csv
 * (a row per run and step, the experiment's own step first, from the runs
 * above: the reference), cloth-animation-time.csv (the wall clock: the
 * file that changes from run to run), and a table in the report.
 */
static int elong_anim(exp_ctx *ctx, const exp_cloth_spec *sp, const elong_result *res)
{
  double hs[EXP_CLOTH_MAX_ANIM];
  char names[EXP_CLOTH_MAX_ANIM][32];
  int nh, nn;
  exp_cloth_parse_steps(exp_param_string(ctx, "anim_h"), hs, EXP_CLOTH_MAX_ANIM, &nh);
  exp_cloth_parse_schemes(exp_param_string(ctx, "anim_schemes"), names, EXP_CLOTH_MAX_ANIM, &nn);
  if (nh == 0)
    return CDYN_OK;
  double eps_max, bound, eps_tol;
  exp_param_double(ctx, "eps_max", &eps_max);
  exp_param_double(ctx, "strain_bound", &bound);
  exp_param_double(ctx, "eps_tol", &eps_tol);
  long sweeps = exp_param_long(ctx, "provot_sweeps");
  double T = ctx->h * (double)ctx->steps;
  /* The runs: the experiment's, then those of anim_schemes not among them. */
  static exp_runspec runs[EXP_MAX_RUNS + EXP_CLOTH_MAX_ANIM];
  int nr = 0;
  for (int r = 0; r < ctx->nruns; r++)
    runs[nr++] = ctx->runs[r];
  for (int i = 0; i < nn; i++) {
    int dup = 0;
    for (int r = 0; r < nr; r++)
      dup |= !strcmp(runs[r].name, names[i]);
    if (!dup)
      runs[nr++] = exp_plain_run(names[i]);
  }
  static elong_result ares[EXP_CLOTH_MAX_ANIM][EXP_MAX_RUNS + EXP_CLOTH_MAX_ANIM];
  long asteps[EXP_CLOTH_MAX_ANIM];
  exp_csv series, table, timing;
  int rc;
  if ((rc = exp_csv_open(ctx, &series, "cloth-animation-series", anim_columns, NULL,
                         "\"note\": \"every run at each animation step, every step; structural springs only; a run "
                         "that failed or whose step was not taken has a last row with its status and no measure\"")))
    return rc;
  for (int hi = 0; hi < nh && !rc; hi++) {
    asteps[hi] = (long)ceil(T / hs[hi] - 1e-9);
    for (int r = 0; r < nr && !rc; r++)
      rc = elong_one(ctx, sp, &runs[r], eps_max, sweeps, hs[hi], asteps[hi], bound, &series, 1, 1, NULL, NULL, 0,
                     &ares[hi][r]);
  }
  int c = exp_csv_close(&series, rc == CDYN_OK);
  if (rc || (rc = c))
    return rc;

  /* The table: the experiment's own step (the runs above), then each animation step. */
  exp_text ex = {0};
  exp_text_printf(&ex,
                  "\"note\": \"one row per run and step; the first rows are the experiment's own step h (the runs "
                  "of cloth-elongation.csv); stable: every step taken (status >= 0 and the time advanced: a "
                  "CDYN_NOCONV of a scheme that restores its state is a step not taken, and ends the run), a finite "
                  "state, largest structural strain <= strain_bound after every step\", \"strain_bound\": %.17g, "
                  "\"eps_tol\": %.17g, \"T\": %.17g, \"animation_runs\": [",
                  bound, eps_tol, T);
  for (int r = 0; r < nr; r++)
    exp_text_printf(&ex, "%s{\"run\": \"%s\", \"scheme\": \"%s\", \"solver\": \"%s\", \"animation_only\": %s}",
                    r ? ", " : "", runs[r].name, runs[r].scheme, nh ? ares[0][r].solver : "-",
                    r >= ctx->nruns ? "true" : "false");
  exp_text_puts(&ex, "]");
  if (ex.failed) {
    exp_text_free(&ex);
    return cdyn_error(CDYN_ENOMEM, "cloth-elongation: out of memory for the metadata");
  }
  rc = exp_csv_open(ctx, &table, "cloth-animation",
                    "scheme,fail,h,steps,steps_done,stable,t_fail,eps_max_measured,holds_eps,holds_eps_tol,"
                    "energy_lost_per_s,newton_iterations_per_step,factorizations_per_step,analyses,set_changes,"
                    "active_max,flips,noconv,status",
                    NULL, ex.s);
  exp_text_free(&ex);
  if (rc)
    return rc;
  for (int hi = -1; hi < nh && !rc; hi++)
    for (int r = 0; r < (hi < 0 ? ctx->nruns : nr) && !rc; r++) {
      const elong_result *e = hi < 0 ? &res[r] : &ares[hi][r];
      double h = hi < 0 ? ctx->h : hs[hi];
      int stable = e->b.fail == SF_NONE;
      double row[17] = {h, (double)(hi < 0 ? ctx->steps : asteps[hi]), (double)e->steps, stable ? 1.0 : 0.0,
                        stable ? NAN : (double)e->b.k_fail * h, e->max, stable && e->max <= eps_max ? 1.0 : 0.0,
                        stable && e->max <= eps_tol ? 1.0 : 0.0, stab_loss_rate(&e->b),
                        per_step(e->stats.nonlinear_iterations, e), per_step(e->stats.factorizations, e),
                        (double)e->stats.analyses, (double)e->stats.set_changes, (double)e->active_max,
                        (double)e->flips, (double)e->noconv, (double)e->status};
      const char *labels[2] = {runs[r].name, stab_names[e->b.fail]};
      rc = exp_csv_row_labels(&table, labels, 2, row, 17);
    }
  c = exp_csv_close(&table, rc == CDYN_OK);
  if (rc || (rc = c))
    return rc;
  if ((rc = exp_csv_open(ctx, &timing, "cloth-animation-time", "scheme,h,steps,time_per_step", NULL,
                         "\"note\": \"wall-clock time per step of the runs of cloth-animation.csv (CLOCK_MONOTONIC, "
                         "hooks included, one run each): changes from run to run\"")))
    return rc;
  for (int hi = -1; hi < nh && !rc; hi++)
    for (int r = 0; r < (hi < 0 ? ctx->nruns : nr) && !rc; r++) {
      const elong_result *e = hi < 0 ? &res[r] : &ares[hi][r];
      double row[3] = {hi < 0 ? ctx->h : hs[hi], (double)e->steps, e->time};
      rc = exp_csv_row_labeled(&timing, runs[r].name, row, 3);
    }
  c = exp_csv_close(&timing, rc == CDYN_OK);
  if (rc || (rc = c))
    return rc;

  char hbuf[32], only[256] = "", ineq[256] = "";
  for (int r = ctx->nruns; r < nr; r++)
    snprintf(only + strlen(only), sizeof only - strlen(only), "%s%s", r > ctx->nruns ? ", " : "", runs[r].name);
  /* The runs in the inequality modes (a scheme of pins and inequality
     rows only), named after the others' adaptive constraints. */
  for (int r = 0; r < nr; r++)
    if (exp_cloth_run_method(&runs[r]) == EXP_CLOTH_INEQUALITY)
      snprintf(ineq + strlen(ineq), sizeof ineq - strlen(ineq), "%s%s", *ineq ? ", " : "; ", runs[r].name);
  if (*ineq)
    snprintf(ineq + strlen(ineq), sizeof ineq - strlen(ineq),
             " with the limiter and the ball in their inequality modes instead: one-sided rows on for good, which "
             "the scheme enforces inside its step");
  exp_report(ctx,
             "At animation steps: the same cloth and ball over the same %g s, every run again at each step of "
             "anim_h%s%s%s%s%s, the experiment's own step first for reference. Stable: every step taken (a step returning CDYN_NOCONV from a scheme that restores its "
             "state is not taken and ends the run), a finite state, and the largest structural strain <= %g after "
             "every step; \"first broken\" is the first rule a run broke and when. Energy lost per second: "
             "(E(0) - E(t)) / t to the last step taken (the cloth's kinetic, gravity's and springs' energy; the ball "
             "does work on it). Files cloth-animation.csv, cloth-animation-series.csv (every step), "
             "cloth-animation-time.csv (the time per step, which changes from run to run and so is not in this report; "
             "cloth-vs-implicit-ode compares the times at these steps). Per step: the stepper's nonlinear iterations "
             "and numeric factorisations, and the set changes over the run.\n\n| run | h (s) | steps taken | stable "
             "| first broken (t, s) | max eps | eps <= %g | eps <= %g | energy lost (J/s) | Newton it./step | "
             "factorisations/step | set changes |\n"
             "|---|---|---|---|---|---|---|---|---|---|---|---|\n",
             T, nr > ctx->nruns ? ", and beside them " : "", only, nr > ctx->nruns ? " (from anim_schemes, with the same adaptive constraints" : "",
             nr > ctx->nruns ? ineq : "", nr > ctx->nruns ? ")" : "",
             bound, eps_max, eps_tol);
  for (int hi = -1; hi < nh; hi++)
    for (int r = 0; r < (hi < 0 ? ctx->nruns : nr); r++) {
      const elong_result *e = hi < 0 ? &res[r] : &ares[hi][r];
      double h = hi < 0 ? ctx->h : hs[hi];
      long steps = hi < 0 ? ctx->steps : asteps[hi];
      int stable = e->b.fail == SF_NONE;
      char broken[64] = "-";
      if (!stable)
        snprintf(broken, sizeof broken, "%s (%.4g)", stab_names[e->b.fail], (double)e->b.k_fail * h);
      char loss[32] = "-";
      if (e->steps == steps)
        snprintf(loss, sizeof loss, "%.3g", stab_loss_rate(&e->b));
      exp_cloth_fmt_step(hbuf, sizeof hbuf, h);
      exp_report(ctx, "| %s | %s | %ld / %ld | %s | %s | %.4g | %s | %s | %s | %.3g | %.3g | %lu |\n", runs[r].name,
                 hbuf, e->steps, steps, stable ? "yes" : "no", broken, e->max,
                 stable && e->max <= eps_max ? "yes" : "no", stable && e->max <= eps_tol ? "yes" : "no", loss,
                 per_step(e->stats.nonlinear_iterations, e), per_step(e->stats.factorizations, e),
                 e->stats.set_changes);
    }
  exp_report(ctx, "\n(Energy lost: only for runs that took every step.)");
  /* The verdicts, per step. */
  for (int hi = 0; hi < nh; hi++) {
    exp_cloth_fmt_step(hbuf, sizeof hbuf, hs[hi]);
    const char *what[3] = {"stable", "holding eps <= eps_max", "holding eps <= eps_tol"};
    exp_report(ctx, " At h = %s s:", hbuf);
    for (int w = 0; w < 3; w++) {
      int any = 0;
      exp_report(ctx, "%s %s: ", w ? ";" : "", what[w]);
      for (int r = 0; r < nr; r++) {
        const elong_result *e = &ares[hi][r];
        int ok = e->b.fail == SF_NONE && (w == 0 || e->max <= (w == 1 ? eps_max : eps_tol));
        if (ok)
          exp_report(ctx, "%s%s", any++ ? ", " : "", runs[r].name);
      }
      if (!any)
        exp_report(ctx, "none");
    }
    exp_report(ctx, ".");
  }
  exp_report(ctx, "\n\n");
  return CDYN_OK;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "eps_max", "1", "largest elongation (|x_ij| - L0) / L0 over the structural springs"},
  {NULL, "eps_p99", "1", "99th percentile (nearest rank) of the structural springs' elongation"},
  {"cloth-elongation", "active", "1", "strain constraints active after the step"},
  {NULL, "activated", "1", "springs turned into constraints before the step"},
  {NULL, "released", "1", "constraints turned back into springs after the step"},
  {NULL, "flips", "1",
   "springs made constraints again right after their release, cumulative"},
  {NULL, "contacts", "1",
   "ball contacts: separation constraints on (adaptive runs; 0 in the inequality modes, whose rows are on for good) "
   "or nodes projected out (others) at the step"},
  {NULL, "depth", "m", "deepest penetration of a node into the ball after the step"},
  {NULL, "completed", "1", "1: every step was taken; 0: the run failed or blew up"},
  {"cloth-elongation-summary", "eps_max", "1", "largest elongation of any step of the run"},
  {"cloth-elongation-summary", "eps_p99", "1", "largest 99th-percentile elongation of any step"},
  {NULL, "active_max", "1", "most constraints active at once (strain and ball)"},
  {NULL, "depth_max", "m", "deepest penetration into the ball of the run"},
  {NULL, "time_per_step", "s", "wall-clock time per step, hooks included"},
  {NULL, "snap", "1", "snapshot number"},
  {NULL, "tri", "1", "triangle index (the cloth generator's triangles, cdyn_scene_get_patch)"},
  {NULL, "x#", "m", "x of the triangle's corner #"},
  {NULL, "y#", "m", "y of the triangle's corner #"},
  {NULL, "z#", "m", "z of the triangle's corner #"},
  {NULL, "strain", "1", "largest strain |edge| / rest - 1 of the triangle's two structural edges"},
  {NULL, "bx", "m", "x of the ball's centre"},
  {NULL, "by", "m", "y of the ball's centre"},
  {NULL, "bz", "m", "z of the ball's centre"},
  {NULL, "br", "m", "the ball's radius"},
  {"cloth-animation-series", "active", "1",
   "strain constraints active after the step (inequality modes: tethers at their limit)"},
  {"cloth-animation-series", "iterations", "1",
   "nonlinear (Newton, SHAKE/RATTLE) iterations of the step; 0 for a scheme without"},
  {"cloth-animation-series", "status", "1",
   "cdyn status of the step that failed or was not taken (1: CDYN_NOCONV of a scheme that restores its state), "
   "on the run's last row; 0 otherwise"},
  {NULL, "fail", "",
   "first stability rule the run broke: none, failed-step (status < 0), step-not-taken (CDYN_NOCONV, state "
   "restored), non-finite, strain-bound (largest strain > strain_bound)"},
  {NULL, "steps_done", "1", "steps taken and measured (the run stops at a failed or not-taken step, or at eps > 10)"},
  {"cloth-animation", "stable", "1", "1: the run kept the stability rule (fail = none)"},
  {NULL, "t_fail", "s", "time of the step at which the rule was first broken (nan: stable)"},
  {NULL, "eps_max_measured", "1", "largest structural elongation after any step taken"},
  {NULL, "holds_eps", "1", "1: stable and eps_max_measured <= eps_max"},
  {NULL, "holds_eps_tol", "1", "1: stable and eps_max_measured <= eps_tol"},
  {NULL, "energy_lost_per_s", "W",
   "(E(0) - E(t)) / t, t the last step taken: the cloth's energy (kinetic, gravity's, springs'; the ball's work "
   "included)"},
  {NULL, "newton_iterations_per_step", "1",
   "nonlinear iterations per step called (nan: the scheme counts none)"},
  {NULL, "factorizations_per_step", "1", "numeric factorisations per step called (nan: none)"},
  {NULL, "analyses", "1", "symbolic analyses of a sparse direct solver (a new pattern), over the run"},
  {NULL, "set_changes", "1", "steps that followed a change of the constraint set"},
  {"cloth-animation", "status", "1",
   "cdyn status of the step that failed or was not taken (0: none)"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_cloth_elongation = {
  .name = "cloth-elongation",
  .description = "a cloth hung by two corners falls and is pushed by a ball: elongation with springs, adaptive "
                 "constraints, Provot and Baraff-Witkin",
  .source = "000 fig 1, 001 fig 6",
  .params = elong_params,
  .columns = columns,
  .check = elong_check,
  .schemes = "implicit,improved,rattle",
  .companions = elong_companions,
  .pins_only_ok = 1,
  .h = 1e-3,
  .steps = 2500,
  .run = elong_run,
};

