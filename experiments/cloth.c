/*
 * cloth.c: the cloth experiments of 000 sec. 4 and 001 sec. V-B.
 *
 * The scene (doc/cloth.md, "The cloth model"; the papers give no
 * numbers, so these are choices, all parameters), described in the scene
 * format (the cloth generator; scene_new): a square patch of side `size`
 * (1 m), grid x grid nodes (16 x 16), total mass `mass` (0.5 kg),
 * Provot's springs (lib/cloth/cloth.c)
 * with k_struct = 100, k_shear = 20, k_bend = 2 N/m and damping c = 0.02
 * N s/m on every spring, horizontal at y = 0 (x and z in [-size/2,
 * size/2]), pinned at the two corners of its edge z = -size/2, at rest;
 * gravity 9.81 m/s^2 along -y.  It falls and swings about the pinned edge.
 * A ball of radius ball_radius (0.15 m) moves on a straight path (a moving
 * pin: it is heavy enough that the cloth does not slow it) at ball_speed
 * (0.6 m/s) along +z, its centre at x = 0, y = -size/2 (the middle of the
 * hanging cloth), starting 1 m behind the pinned edge: it reaches the
 * hanging cloth at about 1.4 s and pushes it 0.5 m beyond by T = 2.5 s.
 * The cloth's nodes are kept out of the ball (lib/cloth/ball.c).
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
 *                  the ball by projection.
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

#include "experiment.h"

/* ---- the scene ---------------------------------------------------------------------------- */

typedef struct {
  long grid;
  double size, mass, k_struct, k_shear, k_bend, damping;
  double ball_radius, ball_speed;
  int ball; /* include the ball */
} scene_spec;

enum method { M_SPRINGS, M_ADAPTIVE, M_PROVOT, M_PLAIN };

/* The cloth as a scene (cdyn/scene.h), described in the scene format and
   read by the library's reader (scene_new): the patch from the cloth
   generator, the ball after it (a particles generator) on its moving
   pin; the strain limiter (adaptive), Provot's correction (provot) and
   the ball are the scene's step hooks, so that cdyn_scene_step runs them
   around each step and `cdyn export` writes the whole run.  The
   patch's topology comes with the scene (cdyn_scene_get_patch). */
typedef struct {
  cdyn_scene *sc;
  cdyn_system *sys;     /* the scene's */
  cdyn_scene_patch patch;
  cdyn_strainlimit *sl; /* the scene's hooks, or NULL */
  cdyn_ball *ball;
  size_t first_struct, nstruct;
  size_t nodes, ball_particle;
  double *eps;          /* nstruct: scratch for the percentile */
} scene;

static void scene_free(scene *s)
{
  cdyn_scene_free(s->sc);
  free(s->eps);
  memset(s, 0, sizeof *s);
}

static int scene_new(const scene_spec *sp, enum method m, double eps_max, long sweeps, scene *s)
{
  memset(s, 0, sizeof *s);
  size_t N = (size_t)sp->grid;
  const size_t pins[2] = {0, N - 1};
  exp_cloth_material mat = {sp->size, sp->mass, sp->k_struct, sp->k_shear, sp->k_bend, sp->damping};
  char hooks[256] = "";
  if (m == M_ADAPTIVE)
    snprintf(hooks, sizeof hooks, "\"strain_limit\": {\"eps_max\": %.17g}", eps_max);
  else if (m == M_PROVOT)
    snprintf(hooks, sizeof hooks, "\"provot\": {\"eps_max\": %.17g, \"sweeps\": %ld}", eps_max, sweeps);
  exp_text t = {0};
  exp_text_puts(&t, "{\"cdyn_scene\": 1, \"name\": \"cloth\", \"gravity\": [0, -9.81, 0], \"generators\": [");
  exp_cloth_generator(&t, &mat, sp->grid, pins, 2, hooks);
  if (sp->ball) {
    /* The ball: 1 m behind the pinned edge, at the middle of the hanging
       cloth, moved by its pin at ball_speed along +z. */
    double c[3] = {0, -sp->size / 2, -sp->size / 2 - 1.0};
    exp_text_printf(&t,
                    ", {\"type\": \"particles\", \"particles\": [{\"x\": [%.17g, %.17g, %.17g], "
                    "\"v\": [0, 0, %.17g]}]}], \"pins\": [{\"i\": %zu, \"at\": [%.17g, %.17g, %.17g], "
                    "\"u\": [0, 0, %.17g]}], \"balls\": [{\"ball\": %zu, \"nodes\": [",
                    c[0], c[1], c[2], sp->ball_speed, N * N, c[0], c[1], c[2], sp->ball_speed, N * N);
    for (size_t k = 0; k < N * N; k++)
      exp_text_printf(&t, "%s%zu", k ? ", " : "", k);
    exp_text_printf(&t, "], \"radius\": %.17g, \"mode\": \"%s\"}]}", sp->ball_radius,
                    m == M_ADAPTIVE ? "switch" : "project");
  } else {
    exp_text_puts(&t, "]}");
  }
  int rc = exp_scene_read_text(&t, "cloth", &s->sc);
  exp_text_free(&t);
  if (rc)
    return rc;
  s->sys = cdyn_scene_system(s->sc);
  if ((rc = cdyn_scene_get_patch(s->sc, 0, &s->patch)))
    goto fail;
  s->nodes = N * N;
  s->ball_particle = s->nodes;
  s->first_struct = s->patch.spring_first[CDYN_SPRING_STRUCT];
  s->nstruct = s->patch.spring_count[CDYN_SPRING_STRUCT];
  if (!(s->eps = malloc(s->nstruct * sizeof(double)))) {
    rc = CDYN_ENOMEM;
    goto fail;
  }
  if (m == M_ADAPTIVE)
    s->sl = cdyn_scene_strainlimit(s->sc, 0);
  if (sp->ball)
    s->ball = cdyn_scene_ball(s->sc, 0);
  return CDYN_OK;
fail:
  scene_free(s);
  return rc;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Largest and (p99 not NULL) 99th-percentile eps of the structural
   springs (nearest rank; the percentile sorts them). */
static int elongation(scene *s, double *emax, double *p99)
{
  const double *q = cdyn_system_positions(s->sys);
  double worst = 0;
  for (size_t k = 0; k < s->nstruct; k++) {
    size_t i, j;
    double rest;
    int rc = cdyn_system_get_spring(s->sys, s->first_struct + k, &i, &j, NULL, NULL, &rest);
    if (rc)
      return rc;
    double d = sqrt((q[3 * i] - q[3 * j]) * (q[3 * i] - q[3 * j]) + (q[3 * i + 1] - q[3 * j + 1]) * (q[3 * i + 1] - q[3 * j + 1]) +
                    (q[3 * i + 2] - q[3 * j + 2]) * (q[3 * i + 2] - q[3 * j + 2]));
    s->eps[k] = (d - rest) / rest;
    if (!(s->eps[k] <= worst))
      worst = s->eps[k];
  }
  *emax = worst;
  if (!p99)
    return CDYN_OK;
  if (!isfinite(worst)) {
    *p99 = worst;
    return CDYN_OK;
  }
  qsort(s->eps, s->nstruct, sizeof(double), cmp_double);
  size_t r = (size_t)ceil(0.99 * (double)s->nstruct);
  *p99 = s->eps[r ? r - 1 : 0];
  return CDYN_OK;
}

/* Kinetic, gravity's and every spring's elastic energy of the cloth. */
static double energy(const scene *s)
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

static enum method run_method(const exp_runspec *r)
{
  size_t idx;
  if (!strcmp(r->name, "springs"))
    return M_SPRINGS;
  if (!strcmp(r->name, "provot"))
    return M_PROVOT;
  if (!cdyn_scheme_find(r->scheme, &idx) && cdyn_scheme_pins_only(idx))
    return M_PLAIN;
  return M_ADAPTIVE;
}

static void read_scene(exp_ctx *ctx, scene_spec *sp)
{
  sp->grid = exp_param_long(ctx, "grid");
  exp_param_double(ctx, "size", &sp->size);
  exp_param_double(ctx, "mass", &sp->mass);
  exp_param_double(ctx, "k_struct", &sp->k_struct);
  exp_param_double(ctx, "k_shear", &sp->k_shear);
  exp_param_double(ctx, "k_bend", &sp->k_bend);
  exp_param_double(ctx, "damping", &sp->damping);
  exp_param_double(ctx, "ball_radius", &sp->ball_radius);
  exp_param_double(ctx, "ball_speed", &sp->ball_speed);
  sp->ball = 1;
}

#define SCENE_PARAMS                                                                                                \
  CLOTH_MATERIAL_PARAMS,                                                                                            \
    {"ball_radius", "0.15", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "radius of the ball (m)"},        \
    {"ball_speed", "0.6", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "speed of the ball along +z (m/s)"},                 \
    {"eps_max", "0.1", EXP_REAL, 0, 10, EXP_OPEN_MIN, "elongation limit of the adaptive constraints and Provot"}

/* ---- cloth-elongation ----------------------------------------------------------------------- */

static const exp_param elong_params[] = {
  {"grid", "16", EXP_INT, 2, 256, 0, "nodes along each side of the patch"},
  SCENE_PARAMS,
  {"provot_sweeps", "10", EXP_INT, 1, 1000, 0, "passes of Provot's correction per step"},
  {"solver", "cholesky", EXP_TEXT, 0, 0, 0, "linear solver of the constraint schemes (dense: only active rows)"},
  {"out_every", "10", EXP_INT, 1, 1e9, 0, "write every this many steps to cloth-elongation.csv"},
  {"snapshots", "0.5,1.5,2.5", EXP_TEXT, 0, 0, 0, "times of the mesh snapshots (s), comma separated"},
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
  double ts[MAX_SNAPS];
  int n;
  if (exp_parse_times(exp_param_string(ctx, "snapshots"), "cloth-elongation", ts, MAX_SNAPS, &n)) {
    fprintf(stderr, "cdyn run: %s\n", cdyn_errmsg());
    return 2;
  }
  return 0;
}

/* Write the triangles of the mesh with the largest strain |edge| / rest - 1
   of their two structural edges (grid neighbours; the third edge, a quad's
   diagonal, is a shear spring, neither limited nor measured). */
static int write_snapshot(exp_csv *csv, const char *run, int snap, double t, const scene *s, long grid,
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

/* What cloth-elongation measures after each step of a run (the runner's
   observer): the elongation, the limiter's and the ball's counts, the
   energy, a row every `every` steps and the last, the snapshots; a run
   whose elongation passes 10 (or is not finite) is stopped there. */
typedef struct {
  exp_ctx *ctx;
  const exp_runspec *run;
  enum method m;
  scene *s;
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
} elong_obs;

static int elong_observe(void *octx, const exp_state *st)
{
  elong_obs *o = octx;
  scene *s = o->s;
  long k = st->k;
  double emax, p99;
  int rc = elongation(s, &emax, &p99);
  if (rc)
    return rc;
  cdyn_strainlimit_counts sc = {0};
  cdyn_ball_counts bc = {0};
  if (s->sl)
    cdyn_strainlimit_counts_get(s->sl, &sc);
  if (s->ball && cdyn_ball_counts_get(s->ball, &bc))
    bc.depth = NAN;
  double E = energy(s);
  if (!(emax <= o->max))
    o->max = emax;
  if (!(p99 <= o->p99))
    o->p99 = p99;
  if (!(bc.depth <= o->depth))
    o->depth = bc.depth;
  long active = (long)(sc.active + (o->m == M_ADAPTIVE ? bc.active : 0));
  if (active > o->active_max)
    o->active_max = active;
  o->flips = sc.flips;
  o->steps_done = k;
  if (k % o->every == 0 || k == o->steps) {
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

static int elong_run(exp_ctx *ctx)
{
  scene_spec sp;
  read_scene(ctx, &sp);
  double eps_max, snaps[MAX_SNAPS];
  int nsnap;
  exp_param_double(ctx, "eps_max", &eps_max);
  long sweeps = exp_param_long(ctx, "provot_sweeps"), every = exp_param_long(ctx, "out_every");
  exp_parse_times(exp_param_string(ctx, "snapshots"), "cloth-elongation", snaps, MAX_SNAPS, &nsnap);
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
  static double run_max[EXP_MAX_RUNS], run_p99[EXP_MAX_RUNS], run_depth[EXP_MAX_RUNS], run_time[EXP_MAX_RUNS];
  static long run_steps[EXP_MAX_RUNS], run_active_max[EXP_MAX_RUNS], run_failed[EXP_MAX_RUNS];
  static unsigned long run_flips[EXP_MAX_RUNS], run_noconv[EXP_MAX_RUNS];
  static int run_status[EXP_MAX_RUNS];
  for (int r = 0; r < ctx->nruns && !rc; r++) {
    const exp_runspec *run = &ctx->runs[r];
    enum method m = run_method(run);
    scene s;
    if ((rc = scene_new(&sp, m, eps_max, sweeps, &s)))
      break;
    cdyn_stepper *st;
    if ((rc = exp_stepper_run(ctx, s.sys, run, NULL, &st))) {
      scene_free(&s);
      break;
    }
    elong_obs o = {.ctx = ctx, .run = run, .m = m, .s = &s, .series = &series, .snapcsv = &snapcsv, .every = every,
                   .steps = steps, .h = h, .snaps = snaps, .nsnap = nsnap, .grid = sp.grid, .spacing = spacing,
                   .radius = sp.ball_radius};
    exp_sim sim = {.scene = s.sc, .st = st, .h = h, .steps = steps, .obs = elong_observe, .octx = &o};
    exp_outcome out;
    rc = exp_simulate_with(&sim, &out);
    if (!rc && out.end == EXP_END_FAILED_STEP) {
      /* The failed step's row: its status, the limiter's counts, no
         measure of a state that was not kept. */
      o.failed = 1;
      fprintf(stderr, "  %s: step %ld failed: %s\n", run->name, out.end_step, cdyn_errmsg());
      cdyn_strainlimit_counts sc = {0};
      if (s.sl)
        cdyn_strainlimit_counts_get(s.sl, &sc);
      double row[12] = {(double)out.end_step * h, (double)out.end_step, NAN, NAN, (double)sc.active,
                        (double)sc.activated, (double)sc.released, (double)sc.flips, 0, 0, NAN, (double)out.status};
      rc = exp_csv_row_labeled(&series, run->name, row, 12);
    }
    run_max[r] = o.max, run_p99[r] = o.p99, run_depth[r] = o.depth;
    run_active_max[r] = o.active_max;
    run_flips[r] = o.flips;
    run_noconv[r] = out.noconv;
    run_status[r] = out.end == EXP_END_FAILED_STEP ? out.status : 0;
    run_failed[r] = o.failed;
    run_steps[r] = o.steps_done;
    run_time[r] = out.elapsed / (double)(run_steps[r] > 0 ? run_steps[r] : 1);
    printf("  %-14s steps %-6ld max eps %-10.4g p99 %-10.4g max active %-6ld flips %-6lu depth %-9.3g %.3g ms/step%s\n",
           run->name, run_steps[r], run_max[r], run_p99[r], run_active_max[r], run_flips[r], run_depth[r],
           1e3 * run_time[r], run_failed[r] ? " (stopped)" : "");
    cdyn_stepper_free(st);
    scene_free(&s);
  }
  int c1 = exp_csv_close(&series, rc == CDYN_OK), c2 = exp_csv_close(&snapcsv, rc == CDYN_OK);
  if (rc || (rc = c1) || (rc = c2))
    return rc;

  if ((rc = exp_csv_open(ctx, &summ, "cloth-elongation-summary",
                         "scheme,steps,completed,eps_max,eps_p99,active_max,flips,depth_max,noconv,status", NULL,
                         "\"note\": \"over the whole run: the largest eps and 99th percentile of any step\"")))
    return rc;
  for (int r = 0; r < ctx->nruns && !rc; r++) {
    double row[9] = {(double)run_steps[r], run_failed[r] ? 0.0 : 1.0, run_max[r], run_p99[r],
                     (double)run_active_max[r], (double)run_flips[r], run_depth[r], (double)run_noconv[r],
                     (double)run_status[r]};
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
    double row[2] = {(double)run_steps[r], run_time[r]};
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
    exp_report(ctx, "| %s | %ld | %s | %.4g | %.4g | %ld | %lu | %.3g |\n", ctx->runs[r].name, run_steps[r],
               run_failed[r] ? "no" : "yes", run_max[r], run_p99[r], run_active_max[r], run_flips[r], run_depth[r]);
  exp_report(ctx, "\n");

  if (exp_claim_ready(ctx, "cloth.elongation_bounded")) {
    int ri = exp_run_index(ctx, "implicit"), rs = exp_run_index(ctx, "springs");
    exp_value v[3] = {{"constrained_max", run_failed[ri] ? INFINITY : run_max[ri]},
                      {"failed", (double)run_failed[ri]},
                      {"springs_max", run_max[rs]}};
    rc = exp_judge(ctx, "cloth.elongation_bounded", v, 3,
                   "implicit with adaptive constraints: largest eps %.4g over %ld steps (p99 %.4g, %lu flips); "
                   "springs alone: %.4g; rattle %.4g, improved %.4g (runs that stopped count as unbounded)",
                   run_max[ri], run_steps[ri], run_p99[ri], run_flips[ri], run_max[rs],
                   exp_run_index(ctx, "rattle") >= 0 ? run_max[exp_run_index(ctx, "rattle")] : NAN,
                   exp_run_index(ctx, "improved") >= 0 ? run_max[exp_run_index(ctx, "improved")] : NAN);
  }
  return rc;
}

const cdyn_experiment cdyn_experiment_cloth_elongation = {
  .name = "cloth-elongation",
  .description = "a cloth hung by two corners falls and is pushed by a ball: elongation with springs, adaptive "
                 "constraints, Provot and Baraff-Witkin",
  .source = "000 fig 1, 001 fig 6",
  .params = elong_params,
  .check = elong_check,
  .schemes = "implicit,improved,rattle",
  .companions = elong_companions,
  .pins_only_ok = 1,
  .h = 1e-3,
  .steps = 2500,
  .run = elong_run,
};

/* ---- cloth-vs-implicit-ode ------------------------------------------------------------------- */

/*
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
 *     stores capacity^2 values); the fastest is its best;
 *   - Baraff-Witkin at k x 2^j (all three spring kinds scaled), j the
 *     smallest from j_prev - 1 up (j_prev: the previous grid's) whose
 *     largest eps over the window is at most eps_max, each probe a run of
 *     the window with the first of bw_solvers, stopped at the first step
 *     beyond eps_max (it fails there), the last one its timed run; its other solvers are timed over the first probe_steps
 *     steps at that stiffness (a sparse factorisation of its 3n x 3n
 *     matrix costs 0.2 s a step at 64 x 64), against the first's time
 *     over the same steps; if one is faster it is run over the window.
 * Time per step: wall clock (CLOCK_MONOTONIC) over the window, one run
 * each; the counted work (constraints, flips) is deterministic, the times
 * are not, so cloth-cost.csv changes from run to run.  Reported: the
 * slope of log(time per step) against log(nodes) of each method's best,
 * the ratio adaptive / Baraff-Witkin at every size, where it crosses 1 if
 * it does, and beside it the fraction of structural springs constrained
 * (mean and largest over the window).
 */
static const exp_param cost_params[] = {
  {"grids", "16,32,64", EXP_TEXT, 0, 0, 0, "grid sizes (nodes per side), comma separated, increasing"},
  SCENE_PARAMS,
  {"T", "0.4", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "length of the window (s)"},
  {"h_ref", "1e-3", EXP_REAL, 0, 1, EXP_OPEN_MIN, "step at grid 16; h = h_ref 15 / (grid - 1)"},
  {"adaptive_solvers", "cholesky,cholmod,pcg", EXP_TEXT, 0, 0, 0, "solvers tried for the adaptive constraints"},
  {"bw_solvers", "auto,cholmod", EXP_TEXT, 0, 0, 0, "solvers tried for Baraff-Witkin (the stepper option solver; auto: the paper's filtered PCG)"},
  {"dense_max", "2500", EXP_INT, 1, 1e6, 0, "largest row capacity at which the dense solver is tried"},
  {"bw_j_max", "12", EXP_INT, 0, 30, 0, "largest doubling of Baraff-Witkin's stiffness tried"},
  {"probe_steps", "20", EXP_INT, 1, 1e9, 0, "steps over which Baraff-Witkin's solvers other than the first are timed"},
  EXP_PARAMS_END};

static const exp_companion cost_companions[] = {
  {"baraff-witkin", "baraff-witkin", NULL, "linearised backward Euler on all springs, stiffened to the same bound"},
  {NULL, NULL, NULL, NULL}};

#define MAX_GRIDS 8
#define MAX_SOLVERS 4

static int parse_list(const char *text, char out[][32], int max, int *n)
{
  char buf[512];
  snprintf(buf, sizeof buf, "%s", text);
  *n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    if (*n == max || strlen(tok) >= 32)
      return 1;
    snprintf(out[(*n)++], 32, "%s", tok);
  }
  return *n == 0;
}

static int parse_grids(const char *text, long *g, int *n)
{
  char items[MAX_GRIDS][32];
  if (parse_list(text, items, MAX_GRIDS, n))
    return 1;
  for (int k = 0; k < *n; k++) {
    char *end;
    g[k] = strtol(items[k], &end, 10);
    if (*end || g[k] < 4 || g[k] > 512 || (k && g[k] <= g[k - 1]))
      return 1;
  }
  return 0;
}

static int cost_check(exp_ctx *ctx)
{
  long g[MAX_GRIDS];
  int n;
  char s[MAX_SOLVERS][32];
  if (parse_grids(exp_param_string(ctx, "grids"), g, &n)) {
    fprintf(stderr, "cdyn run: grids: a comma-separated increasing list of at most %d sizes in [4, 512]\n",
            MAX_GRIDS);
    return 2;
  }
  if (parse_list(exp_param_string(ctx, "adaptive_solvers"), s, MAX_SOLVERS, &n) ||
      parse_list(exp_param_string(ctx, "bw_solvers"), s, MAX_SOLVERS, &n)) {
    fprintf(stderr, "cdyn run: adaptive_solvers, bw_solvers: comma-separated lists of at most %d names\n",
            MAX_SOLVERS);
    return 2;
  }
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
} cost_result;

/* What a run of cloth-vs-implicit-ode measures after each step (the
   runner's observer): the time over the first `probe` steps, the
   elongation, the constrained fraction of the structural springs; a run
   whose elongation passes 10 (or is not finite) is stopped there. */
typedef struct {
  const exp_runspec *run;
  const char *solver;
  scene *s;
  long probe;
  double fsum, eps_limit;
  cost_result *out;
} cost_obs;

static int cost_observe(void *octx, const exp_state *st)
{
  cost_obs *o = octx;
  cost_result *out = o->out;
  if (st->k == 0)
    return CDYN_OK;
  if (st->k == o->probe)
    out->time_probe = st->elapsed / (double)o->probe;
  double emax;
  int rc = elongation(o->s, &emax, NULL);
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
  return CDYN_OK;
}

/* One run of the window: method m (adaptive or plain) with the stepper's
   option `key` = `solver` and, for Baraff-Witkin, the stiffness scale. */
static int cost_run(exp_ctx *ctx, const exp_runspec *run, const scene_spec *sp0, double scale, enum method m,
                    const char *key, const char *solver, double eps_max, double h, long steps, long probe,
                    int stop_early, cost_result *out)
{
  scene_spec sp = *sp0;
  sp.k_struct *= scale, sp.k_shear *= scale, sp.k_bend *= scale;
  scene s;
  int rc = scene_new(&sp, m, eps_max, 1, &s);
  if (rc)
    return rc;
  const char *extra[3] = {key, solver, NULL};
  cdyn_stepper *st;
  if ((rc = exp_stepper_run(ctx, s.sys, run, extra, &st))) {
    scene_free(&s);
    return rc;
  }
  memset(out, 0, sizeof *out);
  out->stop_early = stop_early;
  cost_obs o = {.run = run, .solver = solver, .s = &s, .probe = probe, .eps_limit = eps_max, .out = out};
  exp_sim sim = {.scene = s.sc, .st = st, .h = h, .steps = steps, .obs = cost_observe, .octx = &o};
  exp_outcome oc;
  rc = exp_simulate_with(&sim, &oc);
  if (!rc && oc.end == EXP_END_FAILED_STEP) {
    fprintf(stderr, "  %s (%s) step %ld failed: %s\n", run->name, solver, oc.end_step, cdyn_errmsg());
    out->failed = 1;
    if (oc.end_step == probe)
      out->time_probe = oc.elapsed / (double)probe;
  }
  out->noconv = oc.noconv;
  /* A run stopped for its elongation counts the steps before that one. */
  out->steps = oc.end == EXP_END_OBSERVER ? oc.steps - 1 : oc.steps;
  out->time = oc.elapsed / (double)(out->steps > 0 ? out->steps : 1);
  if (out->steps < probe)
    out->time_probe = out->time;
  out->frac_mean = o.fsum / (double)(out->steps > 0 ? out->steps : 1);
  cdyn_stepper_free(st);
  scene_free(&s);
  return rc;
}

static int cost_run_exp(exp_ctx *ctx)
{
  scene_spec sp;
  read_scene(ctx, &sp);
  sp.ball = 0;
  long grids[MAX_GRIDS];
  int ng, nas, nbs;
  char as[MAX_SOLVERS][32], bs[MAX_SOLVERS][32];
  parse_grids(exp_param_string(ctx, "grids"), grids, &ng);
  parse_list(exp_param_string(ctx, "adaptive_solvers"), as, MAX_SOLVERS, &nas);
  parse_list(exp_param_string(ctx, "bw_solvers"), bs, MAX_SOLVERS, &nbs);
  double eps_max, T, h_ref;
  exp_param_double(ctx, "eps_max", &eps_max);
  exp_param_double(ctx, "T", &T);
  exp_param_double(ctx, "h_ref", &h_ref);
  long dense_max = exp_param_long(ctx, "dense_max"), jmax = exp_param_long(ctx, "bw_j_max");
  long probe = exp_param_long(ctx, "probe_steps");
  int bw = exp_run_index(ctx, "baraff-witkin");
  exp_csv csv;
  int rc = exp_csv_open(ctx, &csv, "cloth-cost",
                        "scheme,solver,grid,nodes,h,steps,k_scale,time_per_step,time_probe,eps_max,frac_mean,"
                        "frac_max,flips,noconv,completed,best",
                        NULL,
                        "\"note\": \"time per step over the window, wall clock, one run each (this file changes from "
                        "run to run); best = 1 for the method's fastest solver at that grid\"");
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
    size_t nodes = (size_t)(grids[gi] * grids[gi]);
    size_t cap = 2 * (size_t)grids[gi] * (size_t)(grids[gi] - 1) + 6;
    for (int r = 0; r < ctx->nruns && !rc; r++) {
      const exp_runspec *run = &ctx->runs[r];
      enum method m = run_method(run);
      double scale = 1;
      const char(*list)[32] = as;
      int nl = nas;
      const char *key = "solver";
      cost_result res[MAX_SOLVERS];
      for (int si = 0; si < MAX_SOLVERS; si++)
        res[si].failed = -1; /* not run */
      if (m == M_PLAIN) {
        /* The stiffness: from jprev - 1 up, each probe a run of the whole
           window with the first of bw_solvers, whose last one is its
           timed run. */
        long j = jprev > 0 ? jprev - 1 : 0;
        for (;; j++) {
          /* A probe that passes eps_max fails there: it stops at that
             step (the last allowed one, j = jmax, runs the window: it is
             the timed run then). */
          if ((rc = cost_run(ctx, run, &sp, ldexp(1.0, (int)j), m, "solver", bs[0], eps_max, h, steps, probe,
                             j < jmax, &res[0])))
            break;
          if (res[0].exceeded)
            printf("  %-14s grid %-4ld k x %-6g eps %.4g at step %ld: beyond the limit, stopped\n", run->name,
                   grids[gi], ldexp(1.0, (int)j), res[0].eps_max, res[0].steps + 1);
          else
            printf("  %-14s grid %-4ld k x %-6g max eps %.4g%s\n", run->name, grids[gi], ldexp(1.0, (int)j),
                   res[0].eps_max, res[0].failed ? " (failed)" : "");
          if ((!res[0].failed && res[0].eps_max <= eps_max) || j >= jmax)
            break;
        }
        if (rc)
          break;
        jprev = j;
        scale = ldexp(1.0, (int)j);
        kscale[gi] = scale;
        list = bs, nl = nbs, key = "solver";
      } else if (m != M_ADAPTIVE)
        continue;
      best_t[r][gi] = INFINITY;
      best_eps[r][gi] = NAN;
      snprintf(best_s[r][gi], 32, "-");
      /* Every solver of the adaptive run over the whole window; Baraff-
         Witkin's others over the first `probe` steps (each of its runs
         costs far more), then the whole window for the fastest if it is
         not the first. */
      int b = -1;
      for (int si = 0; si < nl && !rc; si++) {
        if (m == M_ADAPTIVE && !strcmp(list[si], "cholesky") && cap > (size_t)dense_max)
          continue;
        if (m == M_ADAPTIVE || si > 0)
          rc = cost_run(ctx, run, &sp, scale, m, key, list[si], eps_max, h, m == M_ADAPTIVE ? steps : probe, probe, 0,
                        &res[si]);
        if (rc)
          break;
        printf("  %-14s grid %-4ld %-9s %8.4g ms/step (first %ld steps: %.4g)  max eps %.4g  constrained %.3g (max "
               "%.3g)%s\n",
               run->name, grids[gi], list[si], 1e3 * res[si].time, probe, 1e3 * res[si].time_probe, res[si].eps_max,
               res[si].frac_mean, res[si].frac_max, res[si].failed ? "  FAILED" : "");
        double key_t = m == M_ADAPTIVE ? res[si].time : res[si].time_probe, best_key = 0;
        if (b >= 0)
          best_key = m == M_ADAPTIVE ? res[b].time : res[b].time_probe;
        if (!res[si].failed && (b < 0 || key_t < best_key))
          b = si;
      }
      if (!rc && m == M_PLAIN && b > 0) {
        rc = cost_run(ctx, run, &sp, scale, m, key, list[b], eps_max, h, steps, probe, 0, &res[b]);
        if (!rc)
          printf("  %-14s grid %-4ld %-9s %8.4g ms/step over the window\n", run->name, grids[gi], list[b],
                 1e3 * res[b].time);
      }
      if (b >= 0) {
        best_t[r][gi] = res[b].time;
        best_eps[r][gi] = res[b].eps_max;
        snprintf(best_s[r][gi], 32, "%s", list[b]);
        if (m == M_ADAPTIVE && r == 0) {
          fr_mean[gi] = res[b].frac_mean;
          fr_max[gi] = res[b].frac_max;
        }
      }
      for (int si = 0; si < nl && !rc; si++) {
        if (res[si].failed < 0)
          continue;
        double row[14] = {(double)grids[gi], (double)nodes, h, (double)res[si].steps, scale, res[si].time,
                          res[si].time_probe, res[si].eps_max, res[si].frac_mean, res[si].frac_max,
                          (double)res[si].flips, (double)res[si].noconv, res[si].failed ? 0.0 : 1.0,
                          si == b ? 1.0 : 0.0};
        const char *labels[2] = {run->name, list[si]};
        rc = exp_csv_row_labels(&csv, labels, 2, row, 14);
      }
      exp_progress(ctx, "cloth-vs-implicit-ode", gi + 1, ng);
    }
  }
  int crc = exp_csv_close(&csv, rc == CDYN_OK);
  if (rc || (rc = crc))
    return rc;
  int ad = 0; /* the first adaptive run */
  while (ad < ctx->nruns && run_method(&ctx->runs[ad]) != M_ADAPTIVE)
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
  return rc;
}

const cdyn_experiment cdyn_experiment_cloth_vs_implicit_ode = {
  .name = "cloth-vs-implicit-ode",
  .description = "time per step of adaptive constraints against Baraff-Witkin at equal largest elongation, over grid "
                 "sizes",
  .source = "001 sec V-B",
  .params = cost_params,
  .check = cost_check,
  .schemes = "implicit",
  .companions = cost_companions,
  .pins_only_ok = 1,
  .h = 0,
  .steps = 0,
  .run = cost_run_exp,
};
