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

#include "runner/experiment.h"

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

/* Can `scheme` use the solver named `solver`?  (A scheme whose own system
   is indefinite, backward-euler or bdf2, takes only ldlt; an unknown name
   is left to the stepper to refuse.) */
static int solver_fits(const char *scheme, const char *solver)
{
  size_t i;
  if (!strcmp(solver, "auto") || cdyn_scheme_find(scheme, &i)) {
    cdyn_error_clear();
    return 1;
  }
  for (size_t j = 0; j < cdyn_solver_count(); j++)
    if (!strcmp(cdyn_solver_name(j), solver))
      return cdyn_scheme_solver_fits(i, j);
  return 1;
}

/* A stepper for `run` (exp_stepper_run) where the experiment has a
   parameter `solver` for its constraint schemes: a scheme that cannot use
   that solver (backward-euler, bdf2: their KKT matrix is indefinite, and
   the default is cholesky) gets its own choice, auto, instead; its --set
   options still apply after. */
static int cloth_stepper(exp_ctx *ctx, cdyn_system *sys, const exp_runspec *run, const char *const *extra,
                         cdyn_stepper **out)
{
  const char *solver = exp_param_string(ctx, "solver");
  if (!solver || solver_fits(run->scheme, solver))
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
  {"anim_h", "1/60,1/120", EXP_TEXT, 0, 0, 0,
   "animation steps (s; numbers or p/q, comma separated; none: no animation runs): every run again at each, over "
   "the same time"},
  {"anim_schemes", "backward-euler", EXP_TEXT, 0, 0, 0,
   "schemes run at the animation steps only, with the adaptive constraints (none: no such runs)"},
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
#define MAX_ANIM 8

/* Step sizes, each a number or p/q (1/60), > 0, comma separated, at most
   max; "none": no step.  1 when the text is not such a list. */
static int parse_steps(const char *text, double *h, int max, int *n)
{
  *n = 0;
  if (!strcmp(text, "none"))
    return 0;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", text);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    char *end;
    double x = strtod(tok, &end);
    if (end != tok && *end == '/') {
      char *den = end + 1;
      double y = strtod(den, &end);
      if (end == den || !(y > 0) || !isfinite(y))
        return 1;
      x /= y;
    }
    if (end == tok || *end || !(x > 0) || !isfinite(x) || *n == max)
      return 1;
    h[(*n)++] = x;
  }
  return *n == 0;
}

/* Scheme names, comma separated, at most max, each registered; "none":
   none.  1 when not. */
static int parse_schemes(const char *text, char out[][32], int max, int *n)
{
  *n = 0;
  if (!strcmp(text, "none"))
    return 0;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", text);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    size_t idx;
    if (*n == max || strlen(tok) >= 32 || cdyn_scheme_find(tok, &idx)) {
      cdyn_error_clear();
      return 1;
    }
    snprintf(out[(*n)++], 32, "%s", tok);
  }
  return *n == 0;
}

static int elong_check(exp_ctx *ctx)
{
  double ts[MAX_SNAPS], hs[MAX_ANIM];
  char names[MAX_ANIM][32];
  int n;
  if (exp_parse_times(exp_param_string(ctx, "snapshots"), "cloth-elongation", ts, MAX_SNAPS, &n)) {
    fprintf(stderr, "cdyn run: %s\n", cdyn_errmsg());
    return 2;
  }
  if (parse_steps(exp_param_string(ctx, "anim_h"), hs, MAX_ANIM, &n)) {
    fprintf(stderr, "cdyn run: anim_h: at most %d step sizes > 0, comma separated, each a number or p/q (1/60), or "
                    "none\n", MAX_ANIM);
    return 2;
  }
  if (parse_schemes(exp_param_string(ctx, "anim_schemes"), names, MAX_ANIM, &n)) {
    fprintf(stderr, "cdyn run: anim_schemes: at most %d registered schemes, comma separated, or none (cdyn list "
                    "shows them)\n", MAX_ANIM);
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
static const char *const anim_columns = "scheme,h,t,steps,eps_max,eps_p99,active,flips,contacts,depth,E,iterations,status";

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
  int anim; /* an animation run: its own series (anim_columns) */
  stab b;   /* the stability rule (b.bound set by the caller) */
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
  long active = (long)(sc.active + (o->m == M_ADAPTIVE ? bc.active : 0));
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
static int elong_one(exp_ctx *ctx, const scene_spec *sp, const exp_runspec *run, double eps_max, long sweeps,
                     double h, long steps, double bound, exp_csv *series, int anim, long every, exp_csv *snapcsv,
                     const double *snaps, int nsnap, elong_result *res)
{
  memset(res, 0, sizeof *res);
  enum method m = run_method(run);
  scene s;
  int rc = scene_new(sp, m, eps_max, sweeps, &s);
  if (rc)
    return rc;
  cdyn_stepper *st;
  if ((rc = cloth_stepper(ctx, s.sys, run, NULL, &st))) {
    scene_free(&s);
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
      stab_break(&o.b, SF_FAILED, k);
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
  scene_free(&s);
  return rc;
}

static int elong_anim(exp_ctx *ctx, const scene_spec *sp, const elong_result *res);

static int elong_run(exp_ctx *ctx)
{
  scene_spec sp;
  read_scene(ctx, &sp);
  double eps_max, snaps[MAX_SNAPS], bound;
  int nsnap;
  exp_param_double(ctx, "eps_max", &eps_max);
  exp_param_double(ctx, "strain_bound", &bound);
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

/* h as text: 1/60 when 1/h is an integer (to 1e-9), else %g. */
static void fmt_step(char *buf, size_t len, double h)
{
  double f = 1 / h;
  if (f >= 2 && fabs(f - round(f)) <= 1e-9 * f)
    snprintf(buf, len, "1/%.0f", round(f));
  else
    snprintf(buf, len, "%g", h);
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
 * constraints, the adaptive strain constraints switched by the same rule)
 * at each step, judged by the stability rule (stab, above).  Written:
 * cloth-animation-series.csv (every step of every run), cloth-animation.csv
 * (a row per run and step, the experiment's own step first, from the runs
 * above: the reference), cloth-animation-time.csv (the wall clock: the
 * file that changes from run to run), and a table in the report.
 */
static int elong_anim(exp_ctx *ctx, const scene_spec *sp, const elong_result *res)
{
  double hs[MAX_ANIM];
  char names[MAX_ANIM][32];
  int nh, nn;
  parse_steps(exp_param_string(ctx, "anim_h"), hs, MAX_ANIM, &nh);
  parse_schemes(exp_param_string(ctx, "anim_schemes"), names, MAX_ANIM, &nn);
  if (nh == 0)
    return CDYN_OK;
  double eps_max, bound, eps_tol;
  exp_param_double(ctx, "eps_max", &eps_max);
  exp_param_double(ctx, "strain_bound", &bound);
  exp_param_double(ctx, "eps_tol", &eps_tol);
  long sweeps = exp_param_long(ctx, "provot_sweeps");
  double T = ctx->h * (double)ctx->steps;
  /* The runs: the experiment's, then those of anim_schemes not among them. */
  static exp_runspec runs[EXP_MAX_RUNS + MAX_ANIM];
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
  static elong_result ares[MAX_ANIM][EXP_MAX_RUNS + MAX_ANIM];
  long asteps[MAX_ANIM];
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

  char hbuf[32], only[256] = "";
  for (int r = ctx->nruns; r < nr; r++)
    snprintf(only + strlen(only), sizeof only - strlen(only), "%s%s", r > ctx->nruns ? ", " : "", runs[r].name);
  exp_report(ctx,
             "At animation steps: the same cloth and ball over the same %g s, every run again at each step of "
             "anim_h%s%s%s, the experiment's own step first for reference. Stable: every step taken (a step returning CDYN_NOCONV from a scheme that restores its "
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
             T, nr > ctx->nruns ? ", and beside them " : "", only,
             nr > ctx->nruns ? " (from anim_schemes, with the same adaptive constraints)" : "",
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
      fmt_step(hbuf, sizeof hbuf, h);
      exp_report(ctx, "| %s | %s | %ld / %ld | %s | %s | %.4g | %s | %s | %s | %.3g | %.3g | %lu |\n", runs[r].name,
                 hbuf, e->steps, steps, stable ? "yes" : "no", broken, e->max,
                 stable && e->max <= eps_max ? "yes" : "no", stable && e->max <= eps_tol ? "yes" : "no", loss,
                 per_step(e->stats.nonlinear_iterations, e), per_step(e->stats.factorizations, e),
                 e->stats.set_changes);
    }
  exp_report(ctx, "\n(Energy lost: only for runs that took every step.)");
  /* The verdicts, per step. */
  for (int hi = 0; hi < nh; hi++) {
    fmt_step(hbuf, sizeof hbuf, hs[hi]);
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
  {"anim_h", "1/60,1/120", EXP_TEXT, 0, 0, 0,
   "animation steps (s; numbers or p/q, comma separated; none: no such comparison), the same h for both methods"},
  {"anim_grids", "16", EXP_TEXT, 0, 0, 0, "grid sizes of the comparison at animation steps (none: none)"},
  {"anim_scheme", "backward-euler", EXP_TEXT, 0, 0, 0, "the adaptive constraints' scheme at animation steps"},
  {"anim_T", "1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "window of the comparison at animation steps (s)"},
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
  double hs[MAX_ANIM];
  if (parse_steps(exp_param_string(ctx, "anim_h"), hs, MAX_ANIM, &n)) {
    fprintf(stderr, "cdyn run: anim_h: at most %d step sizes > 0, comma separated, each a number or p/q (1/60), or "
                    "none\n", MAX_ANIM);
    return 2;
  }
  const char *ag = exp_param_string(ctx, "anim_grids");
  if (strcmp(ag, "none") && parse_grids(ag, g, &n)) {
    fprintf(stderr, "cdyn run: anim_grids: a comma-separated increasing list of at most %d sizes in [4, 512], or "
                    "none\n", MAX_GRIDS);
    return 2;
  }
  char one[1][32];
  size_t idx;
  if (parse_schemes(exp_param_string(ctx, "anim_scheme"), one, 1, &n) || n != 1 ||
      (!cdyn_scheme_find(one[0], &idx) && cdyn_scheme_pins_only(idx))) {
    cdyn_error_clear();
    fprintf(stderr, "cdyn run: anim_scheme: one registered scheme that enforces constraints (cdyn list shows "
                    "them)\n");
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
  int not_taken;            /* it ended at a step not taken (CDYN_NOCONV, the state restored) */
  unsigned long iterations, analyses, set_changes; /* the stepper's counts (cdyn_stats) */
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
  cdyn_stats stats;
  if (!cdyn_stepper_stats(st, &stats)) {
    out->iterations = stats.nonlinear_iterations;
    out->analyses = stats.analyses;
    out->set_changes = stats.set_changes;
  }
  cdyn_stepper_free(st);
  scene_free(&s);
  return rc;
}

/* A method's best at one grid and step (cost_method). */
typedef struct {
  double t, eps;          /* its fastest solver's time per step and largest eps (INFINITY, nan: none completed) */
  double kscale;          /* Baraff-Witkin's stiffness scale (1 otherwise) */
  char solver[32];        /* "-": none completed */
  cost_result r;          /* the fastest's run, or the first solver's when none completed */
} cost_best;

/*
 * One method (run, method m: adaptive or plain) at grid `grid`, step h,
 * `steps` steps, as the experiment's rule says (above): the adaptive
 * run with each of `as` it can use (or auto, when it can use none: the
 * indefinite schemes), Baraff-Witkin's stiffness search from *jprev - 1
 * up and its solvers `bs`; each run's row into csv (with the stepper's
 * counts when counts is set).
 */
static int cost_method(exp_ctx *ctx, const exp_runspec *run, enum method m, const scene_spec *sp, double h,
                       long steps, const char (*as)[32], int nas, const char (*bs)[32], int nbs, long *jprev,
                       exp_csv *csv, int counts, cost_best *best)
{
  double eps_max;
  exp_param_double(ctx, "eps_max", &eps_max);
  long dense_max = exp_param_long(ctx, "dense_max"), jmax = exp_param_long(ctx, "bw_j_max");
  long probe = exp_param_long(ctx, "probe_steps");
  long grid = sp->grid;
  size_t nodes = (size_t)(grid * grid);
  size_t cap = 2 * (size_t)grid * (size_t)(grid - 1) + 6;
  double scale = 1;
  char list[MAX_SOLVERS][32];
  int nl = 0;
  const char *key = "solver";
  cost_result res[MAX_SOLVERS];
  int rc = CDYN_OK;
  for (int si = 0; si < MAX_SOLVERS; si++)
    res[si].failed = -1; /* not run */
  if (m == M_PLAIN) {
    /* The stiffness: from jprev - 1 up, each probe a run of the whole
       window with the first of bw_solvers, whose last one is its
       timed run. */
    long j = *jprev > 0 ? *jprev - 1 : 0;
    for (;; j++) {
      /* A probe that passes eps_max fails there: it stops at that
         step (the last allowed one, j = jmax, runs the window: it is
         the timed run then). */
      if ((rc = cost_run(ctx, run, sp, ldexp(1.0, (int)j), m, "solver", bs[0], eps_max, h, steps, probe, j < jmax,
                         &res[0])))
        return rc;
      if (res[0].exceeded)
        printf("  %-14s grid %-4ld k x %-6g eps %.4g at step %ld: beyond the limit, stopped\n", run->name, grid,
               ldexp(1.0, (int)j), res[0].eps_max, res[0].steps + 1);
      else
        printf("  %-14s grid %-4ld k x %-6g max eps %.4g%s\n", run->name, grid, ldexp(1.0, (int)j), res[0].eps_max,
               res[0].failed ? " (failed)" : "");
      if ((!res[0].failed && res[0].eps_max <= eps_max) || j >= jmax)
        break;
    }
    *jprev = j;
    scale = ldexp(1.0, (int)j);
    for (int si = 0; si < nbs; si++)
      snprintf(list[nl++], 32, "%s", bs[si]);
  } else {
    for (int si = 0; si < nas; si++)
      if (solver_fits(run->scheme, as[si]) && !(!strcmp(as[si], "cholesky") && cap > (size_t)dense_max))
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
     not the first. */
  int b = -1;
  for (int si = 0; si < nl && !rc; si++) {
    if (m == M_ADAPTIVE || si > 0)
      rc = cost_run(ctx, run, sp, scale, m, key, list[si], eps_max, h, m == M_ADAPTIVE ? steps : probe, probe, 0,
                    &res[si]);
    if (rc)
      break;
    printf("  %-14s grid %-4ld %-9s %8.4g ms/step (first %ld steps: %.4g)  max eps %.4g  constrained %.3g (max "
           "%.3g)%s\n",
           run->name, grid, list[si], 1e3 * res[si].time, probe, 1e3 * res[si].time_probe, res[si].eps_max,
           res[si].frac_mean, res[si].frac_max, res[si].failed ? "  FAILED" : "");
    double key_t = m == M_ADAPTIVE ? res[si].time : res[si].time_probe, best_key = 0;
    if (b >= 0)
      best_key = m == M_ADAPTIVE ? res[b].time : res[b].time_probe;
    if (!res[si].failed && (b < 0 || key_t < best_key))
      b = si;
  }
  if (!rc && m == M_PLAIN && b > 0) {
    rc = cost_run(ctx, run, sp, scale, m, key, list[b], eps_max, h, steps, probe, 0, &res[b]);
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
                      (double)res[si].flips, (double)res[si].noconv, res[si].failed ? 0.0 : 1.0,
                      si == b ? 1.0 : 0.0,
                      res[si].iterations ? (double)res[si].iterations / (double)(called > 0 ? called : 1) : NAN,
                      (double)res[si].analyses, (double)res[si].set_changes};
    const char *labels[2] = {run->name, list[si]};
    rc = exp_csv_row_labels(csv, labels, 2, row, counts ? 17 : 14);
  }
  return rc;
}

static int cost_anim(exp_ctx *ctx, const scene_spec *sp0, const char (*as)[32], int nas, const char (*bs)[32],
                     int nbs);

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
    for (int r = 0; r < ctx->nruns && !rc; r++) {
      const exp_runspec *run = &ctx->runs[r];
      enum method m = run_method(run);
      if (m != M_PLAIN && m != M_ADAPTIVE)
        continue;
      cost_best cb;
      if ((rc = cost_method(ctx, run, m, &sp, h, steps, (const char(*)[32])as, nas, (const char(*)[32])bs, nbs,
                            &jprev, &csv, 0, &cb)))
        break;
      if (m == M_PLAIN)
        kscale[gi] = cb.kscale;
      best_t[r][gi] = cb.t;
      best_eps[r][gi] = cb.eps;
      snprintf(best_s[r][gi], 32, "%s", cb.solver);
      if (m == M_ADAPTIVE && r == 0 && strcmp(cb.solver, "-")) {
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
  if (!rc)
    rc = cost_anim(ctx, &sp, (const char(*)[32])as, nas, (const char(*)[32])bs, nbs);
  return rc;
}

/*
 * The same comparison at animation steps (anim_h: 1/60 and 1/120 s by
 * default) on anim_grids (16 by default; 64 is a parameter away, not run
 * by make figures: a step of backward-euler at 64 x 64 costs tenths of a
 * second), over the first anim_T s: anim_scheme (backward-euler: the
 * springs implicit with the adaptive strain constraints) against
 * Baraff-Witkin stiffened to the same bound at the same h, each by the
 * rule above (cost_method; the stiffness search starts afresh at each
 * step size).  A run whose step fails or is not taken has not completed;
 * its time per step is over the steps it took.  cloth-cost-animation.csv
 * (changes from run to run) and a table in the report.
 */
static int cost_anim(exp_ctx *ctx, const scene_spec *sp0, const char (*as)[32], int nas, const char (*bs)[32],
                     int nbs)
{
  double hs[MAX_ANIM], T, eps_max;
  long grids[MAX_GRIDS];
  int nh, ng = 0;
  parse_steps(exp_param_string(ctx, "anim_h"), hs, MAX_ANIM, &nh);
  const char *gtext = exp_param_string(ctx, "anim_grids"), *scheme = exp_param_string(ctx, "anim_scheme");
  if (strcmp(gtext, "none"))
    parse_grids(gtext, grids, &ng);
  if (nh == 0 || ng == 0)
    return CDYN_OK;
  exp_param_double(ctx, "anim_T", &T);
  exp_param_double(ctx, "eps_max", &eps_max);
  scene_spec sp = *sp0;
  exp_runspec ar = exp_run_or_plain(ctx, scheme);
  int bw = exp_run_index(ctx, "baraff-witkin");
  exp_runspec br = bw >= 0 ? ctx->runs[bw] : exp_plain_run("baraff-witkin");
  exp_csv csv;
  int rc = exp_csv_open(ctx, &csv, "cloth-cost-animation",
                        "scheme,solver,grid,nodes,h,steps,k_scale,time_per_step,time_probe,eps_max,frac_mean,"
                        "frac_max,flips,noconv,completed,best,newton_iterations_per_step,analyses,set_changes",
                        NULL,
                        "\"note\": \"cloth-cost.csv's comparison at the animation steps anim_h over anim_T: time per "
                        "step over the steps taken, wall clock, one run each (this file changes from run to run); a run "
                        "whose step failed or was not taken has completed = 0\"");
  if (rc)
    return rc;
  static cost_best ba[MAX_ANIM][MAX_GRIDS], bb[MAX_ANIM][MAX_GRIDS];
  for (int hi = 0; hi < nh && !rc; hi++) {
    long jprev = 0;
    long steps = (long)ceil(T / hs[hi] - 1e-9);
    for (int gi = 0; gi < ng && !rc; gi++) {
      sp.grid = grids[gi];
      if ((rc = cost_method(ctx, &ar, M_ADAPTIVE, &sp, hs[hi], steps, as, nas, bs, nbs, &jprev, &csv, 1,
                            &ba[hi][gi])))
        break;
      rc = cost_method(ctx, &br, M_PLAIN, &sp, hs[hi], steps, as, nas, bs, nbs, &jprev, &csv, 1, &bb[hi][gi]);
    }
  }
  int c = exp_csv_close(&csv, rc == CDYN_OK);
  if (rc || (rc = c))
    return rc;
  exp_report(ctx,
             "At animation steps (anim_h), over the first %g s, grids %s: %s with the adaptive constraints (its "
             "springs implicit) against Baraff-Witkin stiffened to max eps <= %g at the same h, each with its "
             "fastest solver. A run whose step failed or was not taken has not completed: its time per step is over "
             "the steps it took, and its ratio is given in parentheses. Newton it./step and set changes: %s's.\n\n"
             "| grid | h (s) | %s (ms) | steps taken | max eps | Newton it./step | set changes | analyses | BW k "
             "scale | Baraff-Witkin (ms) | max eps | ratio |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
             T, gtext, ar.name, eps_max, ar.name, ar.name);
  for (int hi = 0; hi < nh; hi++)
    for (int gi = 0; gi < ng; gi++) {
      const cost_best *a = &ba[hi][gi], *b = &bb[hi][gi];
      long steps = (long)ceil(T / hs[hi] - 1e-9), called = a->r.steps + a->r.not_taken;
      int done = !a->r.failed;
      double ta = a->r.time, tb = b->t;
      char hbuf[32], ratio[32];
      fmt_step(hbuf, sizeof hbuf, hs[hi]);
      snprintf(ratio, sizeof ratio, done ? "%.3g" : "(%.3g)", ta / tb);
      exp_report(ctx, "| %ld | %s | %.4g | %ld / %ld%s | %.4g | %.3g | %lu | %lu | %g | %.4g | %.4g | %s |\n",
                 grids[gi], hbuf, 1e3 * ta, a->r.steps, steps,
                 done ? "" : a->r.not_taken ? " (next not taken)" : " (failed)", a->r.eps_max,
                 a->r.iterations ? (double)a->r.iterations / (double)(called > 0 ? called : 1) : NAN,
                 a->r.set_changes, a->r.analyses, b->kscale, 1e3 * tb, b->eps, ratio);
      printf("  animation step %s grid %ld: %s %.4g ms/step over %ld of %ld steps%s, max eps %.4g; baraff-witkin "
             "(k x %g) %.4g ms/step, max eps %.4g; ratio %.3g\n",
             hbuf, grids[gi], ar.name, 1e3 * ta, a->r.steps, steps, done ? "" : " (not completed)", a->r.eps_max,
             b->kscale, 1e3 * tb, b->eps, ta / tb);
    }
  exp_report(ctx, "\n");
  return CDYN_OK;
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
