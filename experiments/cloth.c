/*
 * cloth.c: the cloth experiments of 000 sec. 4 and 001 sec. V-B.
 *
 * The scene (cloth.md; the papers give no numbers, so these are choices,
 * all parameters): a square patch of side `size` (1 m), grid x grid nodes
 * (16 x 16), total mass `mass` (0.5 kg), Provot's springs (lib/cloth.c)
 * with k_struct = 100, k_shear = 20, k_bend = 2 N/m and damping c = 0.02
 * N s/m on every spring, horizontal at y = 0 (x and z in [-size/2,
 * size/2]), pinned at the two corners of its edge z = -size/2, at rest;
 * gravity 9.81 m/s^2 along -y.  It falls and swings about the pinned edge.
 * A ball of radius ball_radius (0.15 m) moves on a straight path (a moving
 * pin: it is heavy enough that the cloth does not slow it) at ball_speed
 * (0.6 m/s) along +z, its centre at x = 0, y = -size/2 (the middle of the
 * hanging cloth), starting 1 m behind the pinned edge: it reaches the
 * hanging cloth at about 1.4 s and pushes it 0.5 m beyond by T = 2.5 s.
 * The cloth's nodes are kept out of the ball (lib/ball.c).
 *
 * Methods (runs):
 *   springs        the springs alone: the scheme `implicit` with no
 *                  constraint but the pins, which integrates the springs
 *                  explicitly (its free acceleration, symplectic Euler);
 *                  the ball by projection;
 *   implicit, improved, rattle (and any other equality scheme given)
 *                  adaptive constraints (lib/strainlimit.c): before each
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
#include <time.h>

#include <cdyn/cloth.h>

#include "experiment.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the scene ---------------------------------------------------------------------------- */

typedef struct {
  long grid;
  double size, mass, k_struct, k_shear, k_bend, damping;
  double ball_radius, ball_speed;
  int ball; /* include the ball */
} scene_spec;

enum method { M_SPRINGS, M_ADAPTIVE, M_PROVOT, M_PLAIN };

typedef struct {
  cdyn_system *sys;
  cdyn_cloth *cl;
  cdyn_strainlimit *sl;
  cdyn_ball *ball;
  size_t *structural, nstruct;
  unsigned char *fixed; /* per particle: pinned (Provot's fixed nodes) */
  size_t nodes, ball_particle;
  double *eps;          /* nstruct: scratch for the percentile */
} scene;

static void scene_free(scene *s)
{
  cdyn_strainlimit_free(s->sl);
  cdyn_ball_free(s->ball);
  cdyn_cloth_free(s->cl);
  cdyn_system_free(s->sys);
  free(s->structural);
  free(s->fixed);
  free(s->eps);
  memset(s, 0, sizeof *s);
}

static int scene_new(const scene_spec *sp, enum method m, double eps_max, scene *s)
{
  memset(s, 0, sizeof *s);
  size_t N = (size_t)sp->grid;
  const size_t pins[2] = {0, N - 1};
  cdyn_cloth_spec cs;
  memset(&cs, 0, sizeof cs);
  cs.nx = cs.ny = N;
  cs.origin[0] = -sp->size / 2, cs.origin[2] = -sp->size / 2;
  cs.u[0] = sp->size, cs.v[2] = sp->size;
  cs.mass = sp->mass;
  cs.k_struct = sp->k_struct, cs.k_shear = sp->k_shear, cs.k_bend = sp->k_bend;
  cs.damping = sp->damping;
  cs.pins = pins, cs.npins = 2;
  cs.extra = sp->ball ? 1 : 0;
  int rc = cdyn_cloth_new(&s->cl, &s->sys, &cs);
  if (rc)
    return rc;
  s->nodes = N * N;
  s->ball_particle = s->nodes;
  const double g[3] = {0, -9.81, 0};
  size_t first;
  if ((rc = cdyn_system_set_gravity(s->sys, g)) ||
      (rc = cdyn_cloth_springs(s->cl, CDYN_SPRING_STRUCT, &first, &s->nstruct)))
    goto fail;
  s->structural = malloc(s->nstruct * sizeof(size_t));
  s->eps = malloc(s->nstruct * sizeof(double));
  s->fixed = calloc(s->nodes + 1, 1);
  if (!s->structural || !s->eps || !s->fixed) {
    rc = CDYN_ENOMEM;
    goto fail;
  }
  for (size_t k = 0; k < s->nstruct; k++)
    s->structural[k] = first + k;
  s->fixed[pins[0]] = s->fixed[pins[1]] = 1;
  if (m == M_ADAPTIVE) {
    cdyn_strainlimit_opts o = {eps_max, 0, 0, 0, 0};
    if ((rc = cdyn_strainlimit_new(&s->sl, s->sys, s->structural, s->nstruct, &o)))
      goto fail;
  }
  if (sp->ball) {
    double c[3] = {0, -sp->size / 2, -sp->size / 2 - 1.0}, u[3] = {0, 0, sp->ball_speed}, zero[3] = {0, 0, 0};
    if ((rc = cdyn_system_set_position(s->sys, s->ball_particle, c)) ||
        (rc = cdyn_system_set_velocity(s->sys, s->ball_particle, u)) ||
        (rc = cdyn_system_add_moving_pin(s->sys, s->ball_particle, c, u, zero, 0, 0, NULL)))
      goto fail;
    size_t *nodes = malloc(s->nodes * sizeof(size_t));
    if (!nodes) {
      rc = CDYN_ENOMEM;
      goto fail;
    }
    for (size_t k = 0; k < s->nodes; k++)
      nodes[k] = k;
    cdyn_ball_opts bo = {sp->ball_radius, 0.0, m == M_ADAPTIVE ? CDYN_BALL_SWITCH : CDYN_BALL_PROJECT, 0.0};
    rc = cdyn_ball_new(&s->ball, s->sys, s->ball_particle, nodes, s->nodes, &bo);
    free(nodes);
    if (rc)
      goto fail;
  }
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

/* Largest and 99th-percentile eps of the structural springs (nearest rank). */
static int elongation(scene *s, double *emax, double *p99)
{
  const double *q = cdyn_system_positions(s->sys);
  double worst = 0;
  for (size_t k = 0; k < s->nstruct; k++) {
    size_t i, j;
    double rest;
    int rc = cdyn_system_get_spring(s->sys, s->structural[k], &i, &j, NULL, NULL, &rest);
    if (rc)
      return rc;
    double d = sqrt((q[3 * i] - q[3 * j]) * (q[3 * i] - q[3 * j]) + (q[3 * i + 1] - q[3 * j + 1]) * (q[3 * i + 1] - q[3 * j + 1]) +
                    (q[3 * i + 2] - q[3 * j + 2]) * (q[3 * i + 2] - q[3 * j + 2]));
    s->eps[k] = (d - rest) / rest;
    if (!(s->eps[k] <= worst))
      worst = s->eps[k];
  }
  *emax = worst;
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

/* One step of a method: hooks before, the stepper's step, hooks after. */
static int method_step(scene *s, cdyn_stepper *st, enum method m, double h, double eps_max, long sweeps)
{
  int rc;
  if (s->sl && (rc = cdyn_strainlimit_before(s->sl)))
    return rc;
  if (s->ball && (rc = cdyn_ball_before(s->ball, h)))
    return rc;
  int status = cdyn_stepper_step(st, h);
  if (status < 0)
    return status;
  if (s->sl && (rc = cdyn_strainlimit_after(s->sl, st)))
    return rc;
  if (m == M_PROVOT && (rc = cdyn_provot_limit(s->sys, s->structural, s->nstruct, eps_max, (int)sweeps, h, s->fixed,
                                               NULL)))
    return rc;
  if (s->ball && (rc = cdyn_ball_after(s->ball, st, h)))
    return rc;
  return status;
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
  {"size", "1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "side of the square patch (m)"},               \
    {"mass", "0.5", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "total mass of the cloth (kg)"},           \
    {"k_struct", "100", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "stiffness of the structural springs (N/m)"},          \
    {"k_shear", "20", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "stiffness of the shear springs (N/m)"},                 \
    {"k_bend", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "stiffness of the bend springs (N/m)"},                    \
    {"damping", "0.02", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "damping c of every spring (N s/m)"},                 \
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

static const exp_companion elong_companions[] = {
  {"springs", "implicit", NULL, "the springs alone (no constraint but the pins), the ball by projection"},
  {"provot", "implicit", NULL, "the springs, then Provot's position correction beyond eps_max"},
  {"baraff-witkin", "baraff-witkin", NULL, "linearised backward Euler on all springs, same constants"},
  {NULL, NULL, NULL, NULL}};

#define MAX_SNAPS 16

static int parse_snaps(const char *text, double *ts, int *n)
{
  *n = 0;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", text);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    char *end;
    double t = strtod(tok, &end);
    if (*end || !isfinite(t) || t < 0 || *n == MAX_SNAPS)
      return cdyn_error(CDYN_EINVAL, "cloth-elongation: snapshots: '%s' is not a time >= 0 (at most %d)", tok,
                        MAX_SNAPS);
    ts[(*n)++] = t;
  }
  return CDYN_OK;
}

static int elong_check(exp_ctx *ctx)
{
  double ts[MAX_SNAPS];
  int n;
  if (parse_snaps(exp_param_string(ctx, "snapshots"), ts, &n)) {
    fprintf(stderr, "cdyn run: %s\n", cdyn_errmsg());
    return 2;
  }
  return 0;
}

/* Write the triangles of the mesh with their largest edge strain
   |edge| / rest - 1, the rest length from the grid (an edge joins grid
   neighbours or the two ends of a quad's diagonal). */
static int write_snapshot(exp_csv *csv, const char *run, int snap, double t, const scene *s, long grid,
                          double spacing)
{
  const size_t *tri;
  size_t ntri, N = (size_t)grid;
  int rc = cdyn_cloth_triangles(s->cl, &tri, &ntri);
  const double *q = cdyn_system_positions(s->sys);
  char snapbuf[16];
  snprintf(snapbuf, sizeof snapbuf, "%d", snap);
  for (size_t k = 0; k < ntri && !rc; k++) {
    double row[12], worst = -INFINITY;
    row[0] = (double)k;
    for (int a = 0; a < 3; a++) {
      size_t i = tri[3 * k + (size_t)a], j = tri[3 * k + (size_t)(a + 1) % 3];
      double d = 0;
      for (int c = 0; c < 3; c++) {
        row[1 + 3 * a + c] = q[3 * i + (size_t)c];
        d += (q[3 * i + (size_t)c] - q[3 * j + (size_t)c]) * (q[3 * i + (size_t)c] - q[3 * j + (size_t)c]);
      }
      double di = (double)(i % N) - (double)(j % N), dj = (double)(i / N) - (double)(j / N);
      double e = sqrt(d) / (spacing * sqrt(di * di + dj * dj)) - 1;
      if (!(e <= worst))
        worst = e;
    }
    row[10] = t;
    row[11] = worst;
    const char *labels[2] = {run, snapbuf};
    rc = exp_csv_row_labels(csv, labels, 2, row, 12);
  }
  return rc;
}

static const char *const elong_columns =
  "scheme,t,steps,eps_max,eps_p99,active,activated,released,flips,contacts,depth,E,status";

static int elong_run(exp_ctx *ctx)
{
  scene_spec sp;
  read_scene(ctx, &sp);
  double eps_max, snaps[MAX_SNAPS];
  int nsnap;
  exp_param_double(ctx, "eps_max", &eps_max);
  long sweeps = exp_param_long(ctx, "provot_sweeps"), every = exp_param_long(ctx, "out_every");
  parse_snaps(exp_param_string(ctx, "snapshots"), snaps, &nsnap);
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
                         "scheme,snap,tri,x1,y1,z1,x2,y2,z2,x3,y3,z3,t,strain", NULL,
                         "\"note\": \"the mesh at each snapshot time: one row per triangle, its corners and its "
                         "largest edge strain (|edge| / rest - 1)\""))) {
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
    if ((rc = scene_new(&sp, m, eps_max, &s)))
      break;
    cdyn_stepper *st;
    if ((rc = exp_stepper_run(ctx, s.sys, run, NULL, &st))) {
      scene_free(&s);
      break;
    }
    run_max[r] = run_p99[r] = run_depth[r] = 0;
    run_active_max[r] = 0;
    run_flips[r] = run_noconv[r] = 0;
    run_status[r] = 0;
    run_failed[r] = 0;
    double elapsed = 0;
    int snap = 0;
    long k;
    for (k = 0; k <= steps && !rc; k++) {
      int status = 0;
      if (k > 0) {
        double t0 = now();
        status = method_step(&s, st, m, h, eps_max, sweeps);
        elapsed += now() - t0;
        if (status < 0) {
          run_status[r] = status;
          run_failed[r] = 1;
          fprintf(stderr, "  %s: step %ld failed: %s\n", run->name, k, cdyn_errmsg());
        }
        if (status == CDYN_NOCONV)
          run_noconv[r]++;
      }
      double emax = NAN, p99 = NAN;
      if (status >= 0 && (rc = elongation(&s, &emax, &p99)))
        break;
      cdyn_strainlimit_counts sc = {0};
      cdyn_ball_counts bc = {0};
      if (s.sl)
        cdyn_strainlimit_counts_get(s.sl, &sc);
      if (s.ball && status >= 0 && cdyn_ball_counts_get(s.ball, &bc))
        bc.depth = NAN;
      double E = status >= 0 ? energy(&s) : NAN;
      if (status >= 0) {
        if (!(emax <= run_max[r]))
          run_max[r] = emax;
        if (!(p99 <= run_p99[r]))
          run_p99[r] = p99;
        if (!(bc.depth <= run_depth[r]))
          run_depth[r] = bc.depth;
        if ((long)(sc.active + (m == M_ADAPTIVE ? bc.active : 0)) > run_active_max[r])
          run_active_max[r] = (long)(sc.active + (m == M_ADAPTIVE ? bc.active : 0));
        run_flips[r] = sc.flips;
        run_steps[r] = k;
      }
      if (k % every == 0 || status < 0 || k == steps) {
        double t = (double)k * h;
        double row[12] = {t, (double)k, emax, p99, (double)sc.active, (double)sc.activated, (double)sc.released,
                          (double)sc.flips, (double)bc.active, bc.depth, E, (double)(status < 0 ? status : 0)};
        rc = exp_csv_row_labeled(&series, run->name, row, 12);
      }
      if (!rc && status >= 0 && snap < nsnap && (double)k * h >= snaps[snap] - 0.5 * h) {
        rc = write_snapshot(&snapcsv, run->name, snap, (double)k * h, &s, sp.grid, spacing);
        snap++;
      }
      if (status < 0)
        break;
      if (!isfinite(emax) || emax > 10.0) {
        fprintf(stderr, "  %s: elongation %g at step %ld: stopped\n", run->name, emax, k);
        run_failed[r] = 1;
        break;
      }
      exp_progress(ctx, run->name, k, steps);
    }
    run_time[r] = elapsed / (double)(run_steps[r] > 0 ? run_steps[r] : 1);
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
             "(limit %g):\n\n| run | steps | completed | max eps | max p99 | max active | flips | max depth (m) | "
             "ms/step |\n|---|---|---|---|---|---|---|---|---|\n",
             sp.grid, sp.grid, sp.size, sp.mass, sp.k_struct, sp.k_shear, sp.k_bend, sp.ball_radius, sp.ball_speed, h,
             steps, eps_max);
  for (int r = 0; r < ctx->nruns; r++)
    exp_report(ctx, "| %s | %ld | %s | %.4g | %.4g | %ld | %lu | %.3g | %.3g |\n", ctx->runs[r].name, run_steps[r],
               run_failed[r] ? "no" : "yes", run_max[r], run_p99[r], run_active_max[r], run_flips[r], run_depth[r],
               1e3 * run_time[r]);
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
