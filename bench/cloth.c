/*
 * bench/cloth.c: cdyn-bench's third section, cloth at the animation step
 * against Bullet 3.24's soft body (peer_bullet.cpp).  Every variant runs
 * on every problem at h = 1/60 s, fixed, for T = 10 s of simulated time
 * (600 frames); --quick runs hanging-32 and hanging-64 only, for 60
 * frames (1 s), one repetition, and the tables say so.
 *
 * The cloth (cdyn's cloth generator, cdyn_cloth_new, the same for every
 * variant): N x N nodes, a 1 m square in the plane y = 0, x and z in
 * [-0.5, 0.5] (u along x, v along z; node (i, j) is j N + i), 0.5 kg in
 * all (0.5 / N^2 kg a node), Provot's springs with k_struct = 100, k_shear
 * = 20, k_bend = 2 N/m and damping 0.02 N s/m on each, released flat and
 * at rest under g = (0, -9.81, 0), pinned at nodes 0 and N - 1, the two
 * corners of its edge z = -0.5.
 *
 * Problems: hanging-32, hanging-64, hanging-128 (the N x N cloth alone);
 * ball-64: the 64 x 64 cloth, pinned the same, and a fixed frictionless
 * ball of radius 0.25 m centred at (0, -0.5, 0), 0.5 m below the cloth's
 * centre, with a contact thickness of 5 mm (nodes kept at least 0.255 m
 * from its centre).  The cloth swings down about its pinned edge onto the
 * ball, which it reaches after about 0.4 s, and drapes over it.  (Pinned
 * rather than free: a free cloth on a frictionless ball slides off and
 * falls for good, which the stability rule below would call a runaway.)
 *
 * Variants, every one on every problem:
 *   projected-newton   cdyn's large-step cloth scheme "projected-newton"
 *                      with its defaults, the structural springs strain
 *                      limited (cdyn_strainlimit_opts eps_max = 0.1, mode
 *                      CDYN_LIMIT_INEQUALITY: a tether row per spring,
 *                      flagged an inequality, always on) and the ball in
 *                      mode CDYN_BALL_INEQUALITY; cdyn_strainlimit_before
 *                      and _after around each step (they only count in
 *                      this mode), cdyn_ball_before and _after likewise.
 *                      Where the library has no scheme of that name
 *                      (cdyn_scheme_find refuses it), the variant is
 *                      reported absent.
 *   admm               cdyn's "admm" (backward Euler's incremental
 *                      potential by ADMM over one prefactored matrix, a
 *                      fixed number of iterations a step), the strain
 *                      limiter and the ball as for projected-newton.  Its
 *                      iterations n are the smallest of 10 (its default),
 *                      12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160
 *                      whose largest strain over the run is <= 0.11, else
 *                      160, searched as xpbd's substeps below.
 *   baraff-witkin      cdyn's baraff-witkin (Baraff and Witkin 1998) with
 *                      the springs as they are, solver auto (its modified
 *                      conjugate gradients); no strain limiter (the scheme
 *                      takes pins only), the ball in mode
 *                      CDYN_BALL_PROJECT (nodes inside moved out after the
 *                      step).
 *   xpbd-substeps      cdyn's xpbd, one iteration per substep, n substeps
 *                      of h / n per frame, with the strain limit in the
 *                      form xpbd takes (it enforces no inequality rows):
 *                      the switching limiter (CDYN_LIMIT_SWITCH, eps_max =
 *                      0.1, the constraint's length the limit itself,
 *                      release at lambda < 0), whose before and after run
 *                      around every substep, and the ball in mode
 *                      CDYN_BALL_SWITCH.  n is the smallest of 1, 2, 4,
 *                      ..., 64 whose largest strain over the run is <=
 *                      0.11, else 64 (the table says which); a candidate
 *                      stops as soon as its strain passes 0.11 or it
 *                      breaks the stability rule, so only the chosen n
 *                      runs whole.  A candidate the time cap (below)
 *                      stops within the target is chosen, and reported
 *                      capped.
 *   bullet-classic-10  Bullet's btSoftBody, classic solver, piterations
 *   bullet-classic-40  10 or 40, built from the same cloth (nodes, springs
 *                      as links and triangles in cdyn's order, masses 0.5
 *                      / N^2, the two corners setMass(i, 0)), in a
 *                      btSoftRigidDynamicsWorld, stepSimulation(1/60, 0):
 *                      one internal step of 1/60 per frame.  Bullet's
 *                      links are position projections, not springs: its
 *                      kLST is the fraction of a link's violation removed
 *                      per iteration, in [0, 1], not N/m.  The mapping:
 *                      kLST 1, 0.2, 0.02 for the structural, shear and
 *                      bend links (the structural ones as stiff as Bullet
 *                      makes them, the others in cdyn's ratios to them);
 *                      kDP = 0 (Bullet's kDP damps every node's absolute
 *                      velocity, a drag on the fall too, and its links
 *                      have no relative damping); the ball a static
 *                      btSphereShape rigid body of radius 0.25 m, friction
 *                      0, soft-rigid contact by fCollision::SDF_RS with the
 *                      soft body's collision margin 5 mm (the contact
 *                      thickness; Bullet's default is 0.25 m) and the
 *                      signed distance field's voxels 1 cm (Bullet's
 *                      default 0.25 m); the rest Bullet's defaults
 *                      (peer_bullet.cpp says which).  Without Bullet at
 *                      configure these variants are reported absent.
 *
 * The stability rule, fixed before any run: a run is stable when every
 * step returns CDYN_OK (Bullet: stepSimulation returns without an
 * exception), the state stays finite, and no node gets farther than 10 m
 * from where it started, checked after every frame.  A run stops at the
 * first frame that breaks the rule, and is reported unstable from there
 * (the time of that frame's end and what failed).  The strain is not part
 * of the rule: it is what the table compares.
 *
 * Measured per run, the checks outside the timed calls: the time per
 * frame (the step calls' time, with the limiter's and the ball's before
 * and after for cdyn; the median over repetitions); the largest strain of
 * a structural edge over every frame, (|x_i - x_j| - L0) / L0 over the
 * edges of cdyn's structural springs (cdyn_cloth_springs, CDYN_SPRING_
 * STRUCT; Bullet's node positions m_nodes[i].m_x, the same numbering),
 * after every frame; the end strain, the largest at the last frame; on
 * ball-64 the deepest penetration of a node into the ball, max over the
 * frames and nodes of 0.25 m - |x - c| (the thickness not counted;
 * negative: no node came that close, the closest approach), after every
 * frame; Newton iterations per frame
 * (cdyn_stepper_stats, Gauss-Seidel sweeps for xpbd; '-' for Bullet); the
 * share of the stepping time in the stepper's linear algebra, its
 * factorisations and solves (cdyn_stats time_factor + time_solve over the
 * step calls' time, in the run reported; '-' where none is counted: xpbd
 * has none, and baraff-witkin's own solve is not counted), and the
 * entries of its last factor (cdyn_stats.factor_nnz: the memory of a
 * direct solver's factor, and what each solve reads), with their growth
 * with the cloth's size; the
 * peak resident memory of the run: every run is a child process (fork),
 * which releases its inherited free heap (malloc_trim), resets its peak
 * (/proc/self/clear_refs, 5), reads its resident size (VmRSS) as a base,
 * builds and runs, and reads its peak (VmHWM) at the end: the run's
 * memory is the peak less the base, so that no variant's allocations
 * count for another and what the parent holds counts for none.
 *
 * Caps: any run stops once its stepping time passes 0.1 s per frame of the
 * run's length (60 s over 600 frames, 6 s over --quick's 60; after at
 * least one frame) and is reported capped with the frames it ran, a safety
 * net.
 * Repetitions (--reps, 3 by default; 1 with --quick), the median time per
 * frame reported; they stop once a variant's runs on a problem have taken
 * 6 s of stepping (so their number depends on the machine's speed, as the
 * times do).  Every repetition must reproduce the first's status and
 * strains bit for bit (else the note says so): the runs are deterministic.
 */
#define _GNU_SOURCE

#include "cloth.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cdyn/cdyn.h"
#include "common.h"
#ifdef HAVE_BULLET
#include "peer_bullet.h"
#endif

#define CL_H (1.0 / 60)
#define CL_FRAMES 600L
#define CL_QUICK_FRAMES 60L
#define CL_MASS 0.5
#define CL_K_STRUCT 100.0
#define CL_K_SHEAR 20.0
#define CL_K_BEND 2.0
#define CL_DAMPING 0.02
#define CL_G (-9.81)
#define CL_EPS_MAX 0.1          /* the strain limit of projected-newton and xpbd */
#define CL_XPBD_TARGET 0.11     /* xpbd's n: the smallest whose strain stays at or below it */
#define CL_SUBSTEPS_MAX 64
#define CL_FAR 10.0             /* m: the stability rule's largest distance from the start */
#define CL_BALL_RADIUS 0.25
#define CL_BALL_Y (-0.5)
#define CL_THICKNESS 0.005      /* m: the ball's contact thickness, Bullet's margin */
#define CL_VOXEL 0.01           /* m: Bullet's signed distance field's voxels */
#define CL_MAX_SECONDS 60.0     /* a run's stepping time over CL_FRAMES, a safety net */
#define CL_REP_BUDGET 6.0       /* s of stepping per problem and variant, for repetitions */
#define CL_MAX_REPS 15
#define CL_PROBLEMS 4

/* ---- the problems and the variants --------------------------------------------------- */

typedef struct {
  const char *name;
  size_t N;
  int ball;
} cl_problem;

static const cl_problem problems[CL_PROBLEMS] = {
  {"hanging-32", 32, 0}, {"hanging-64", 64, 0}, {"hanging-128", 128, 0}, {"ball-64", 64, 1}};

enum { V_PN, V_ADMM, V_BW, V_XPBD, V_B10, V_B40, NV };
enum { E_CDYN, E_BULLET };
/* What a variant's n is, searched for the strain target: nothing (n = 1),
   substeps per frame, or iterations per step. */
enum { N_NONE, N_SUBSTEPS, N_ITERATIONS };

typedef struct {
  const char *name;
  int engine;
  const char *scheme; /* cdyn */
  int iterations;     /* Bullet's piterations */
  const char *what;
  int nkind, n0, nmax; /* the search: n from n0 by next_n, to nmax */
} cl_variant;

/* The search's next candidate: substeps double; iterations go up by about
   a quarter (a few iterations more cost a few per cent more a frame, so the
   search does not overshoot by half). */
static int next_n(int nkind, int n)
{
  static const int its[] = {10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160};
  if (nkind == N_ITERATIONS)
    for (size_t k = 0; k < sizeof its / sizeof its[0]; k++)
      if (its[k] > n)
        return its[k];
  return 2 * n;
}

static const cl_variant variants[NV] = {
  [V_PN] = {"projected-newton", E_CDYN, "projected-newton", 0,
            "cdyn projected-newton, its defaults; strain limiter eps_max 0.1 in CDYN_LIMIT_INEQUALITY on the "
            "structural springs; ball CDYN_BALL_INEQUALITY", N_NONE, 1, 1},
  [V_ADMM] = {"admm", E_CDYN, "admm", 0,
              "cdyn admm, n iterations per step, the rest its defaults; strain limiter eps_max 0.1 in "
              "CDYN_LIMIT_INEQUALITY on the structural springs; ball CDYN_BALL_INEQUALITY",
              N_ITERATIONS, 10, 160},
  [V_BW] = {"baraff-witkin", E_CDYN, "baraff-witkin", 0,
            "cdyn baraff-witkin, solver auto, the springs as they are (no strain limiter); ball CDYN_BALL_PROJECT",
            N_NONE, 1, 1},
  [V_XPBD] = {"xpbd-substeps", E_CDYN, "xpbd", 0,
              "cdyn xpbd, 1 iteration per substep, n substeps per frame; switching strain limiter (CDYN_LIMIT_SWITCH, "
              "eps_max 0.1) on the structural springs and ball CDYN_BALL_SWITCH, both around every substep",
              N_SUBSTEPS, 1, CL_SUBSTEPS_MAX},
  [V_B10] = {"bullet-classic-10", E_BULLET, NULL, 10,
             "Bullet btSoftBody, classic solver, piterations 10, kLST 1 / 0.2 / 0.02, kDP 0, SDF_RS", N_NONE, 1, 1},
  [V_B40] = {"bullet-classic-40", E_BULLET, NULL, 40,
             "Bullet btSoftBody, classic solver, piterations 40, kLST 1 / 0.2 / 0.02, kDP 0, SDF_RS", N_NONE, 1, 1},
};

/* ---- a problem's cloth, built once in the parent -------------------------------------- */

typedef struct {
  size_t n;             /* nodes */
  double *x0;           /* 3n */
  size_t springs;       /* all of them, in cdyn's order */
  size_t *spring;       /* 2 springs */
  double *k;            /* springs, N/m */
  size_t s_first, s_count; /* the structural ones */
  double *L0;           /* springs, m */
  size_t tris;
  size_t *tri;          /* 3 tris */
} cl_topo;

static void topo_free(cl_topo *t)
{
  free(t->x0);
  free(t->spring);
  free(t->k);
  free(t->L0);
  free(t->tri);
  memset(t, 0, sizeof *t);
}

static cdyn_cloth_spec cloth_spec(const cl_problem *p, size_t pins[2])
{
  cdyn_cloth_spec cs;
  memset(&cs, 0, sizeof cs);
  cs.nx = cs.ny = p->N;
  cs.origin[0] = -0.5, cs.origin[1] = 0, cs.origin[2] = -0.5;
  cs.u[0] = 1;
  cs.v[2] = 1;
  cs.mass = CL_MASS;
  cs.k_struct = CL_K_STRUCT, cs.k_shear = CL_K_SHEAR, cs.k_bend = CL_K_BEND;
  cs.damping = CL_DAMPING;
  pins[0] = 0, pins[1] = p->N - 1;
  cs.pins = pins, cs.npins = 2;
  cs.extra = p->ball ? 1 : 0;
  return cs;
}

static int topo_build(const cl_problem *p, cl_topo *t)
{
  memset(t, 0, sizeof *t);
  size_t pins[2];
  cdyn_cloth_spec cs = cloth_spec(p, pins);
  cs.extra = 0;
  cdyn_cloth *cl = NULL;
  cdyn_system *s = NULL;
  int rc = cdyn_cloth_new(&cl, &s, &cs);
  if (rc)
    return rc;
  t->n = p->N * p->N;
  t->springs = cdyn_system_spring_count(s);
  const size_t *tri;
  rc = cdyn_cloth_triangles(cl, &tri, &t->tris);
  if (!rc)
    rc = cdyn_cloth_springs(cl, CDYN_SPRING_STRUCT, &t->s_first, &t->s_count);
  t->x0 = malloc(3 * t->n * sizeof *t->x0);
  t->spring = malloc(2 * t->springs * sizeof *t->spring);
  t->k = malloc(t->springs * sizeof *t->k);
  t->L0 = malloc(t->springs * sizeof *t->L0);
  t->tri = malloc(3 * t->tris * sizeof *t->tri);
  if (!rc && (!t->x0 || !t->spring || !t->k || !t->L0 || !t->tri))
    rc = CDYN_ENOMEM;
  if (!rc) {
    memcpy(t->x0, cdyn_system_positions(s), 3 * t->n * sizeof *t->x0);
    memcpy(t->tri, tri, 3 * t->tris * sizeof *t->tri);
  }
  for (size_t k = 0; !rc && k < t->springs; k++)
    rc = cdyn_system_get_spring(s, k, &t->spring[2 * k], &t->spring[2 * k + 1], &t->k[k], NULL, &t->L0[k]);
  cdyn_cloth_free(cl);
  cdyn_system_free(s);
  if (rc)
    topo_free(t);
  return rc;
}

/* The largest strain of a structural edge, at x. */
static double strain(const cl_topo *t, const double *x)
{
  double e = -INFINITY;
  for (size_t k = t->s_first; k < t->s_first + t->s_count; k++) {
    const double *a = x + 3 * t->spring[2 * k], *b = x + 3 * t->spring[2 * k + 1];
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    double s = (sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - t->L0[k]) / t->L0[k];
    if (!(s <= e))
      e = s;
  }
  return e;
}

/* ---- one run, in a child -------------------------------------------------------------- */

enum { S_NONE, S_STABLE, S_UNSTABLE, S_CAPPED, S_ABSENT, S_ERROR };
/* The time cap of a run of `total` frames: CL_MAX_SECONDS scaled from
   CL_FRAMES, the same stepping time per frame for --quick's shorter runs. */
static double cap_seconds(long total) { return CL_MAX_SECONDS * (double)total / (double)CL_FRAMES; }

static const char *const status_name[] = {"not run", "stable", "unstable", "capped", "absent", "error"};

typedef struct {
  int status;
  int substeps;
  long frames;          /* whole frames run and kept */
  double t_fail;        /* s, the end of the failing frame (unstable) */
  double strain_max, strain_end;
  double depth_max;     /* m, ball-64 */
  double seconds;       /* stepping time */
  double nonlinear;     /* total */
  double linalg;        /* s, of seconds: the stepper's linear algebra (cdyn_stats time_factor + time_solve) */
  size_t factor_nnz;    /* entries of its last factor (cdyn_stats.factor_nnz; 0: none reported) */
  long rss_base_kb, rss_hwm_kb; /* the child's resident size at its start and its peak */
  int passed;           /* stopped: strain above stop_above */
  char note[400];
} cl_run;

/* The per-frame checks, outside the timed calls. */
typedef struct {
  const cl_topo *t;
  int ball;
  double stop_above;
  double strain_max, strain_last, depth_max;
  int passed;
  char why[300];
} cl_watch;

/* 0: go on; 1: stop (the rule broken, why set, or the search's target passed). */
static int watch_frame(cl_watch *w, const double *x)
{
  const cl_topo *t = w->t;
  for (size_t i = 0; i < 3 * t->n; i++)
    if (!isfinite(x[i])) {
      snprintf(w->why, sizeof w->why, "the state is not finite (node %zu)", i / 3);
      return 1;
    }
  for (size_t i = 0; i < t->n; i++) {
    const double *a = x + 3 * i, *b = t->x0 + 3 * i;
    double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    if (d > CL_FAR) {
      snprintf(w->why, sizeof w->why, "node %zu is %.3g m from its start (> %g m)", i, d, CL_FAR);
      return 1;
    }
    if (w->ball) {
      double r = sqrt(a[0] * a[0] + (a[1] - CL_BALL_Y) * (a[1] - CL_BALL_Y) + a[2] * a[2]);
      if (!(CL_BALL_RADIUS - r <= w->depth_max))
        w->depth_max = CL_BALL_RADIUS - r;
    }
  }
  double s = strain(t, x);
  w->strain_last = s;
  if (!(s <= w->strain_max))
    w->strain_max = s;
  if (s > w->stop_above) {
    w->passed = 1;
    return 1;
  }
  return 0;
}

static long proc_status_kb(const char *key)
{
  FILE *f = fopen("/proc/self/status", "r");
  if (!f)
    return -1;
  char line[256];
  long v = -1;
  size_t n = strlen(key);
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, key, n) && line[n] == ':') {
      v = strtol(line + n + 1, NULL, 10);
      break;
    }
  fclose(f);
  return v;
}

static void finish(cl_run *r, const cl_watch *w, long total, int broke)
{
  r->strain_max = w->strain_max;
  r->strain_end = w->strain_last;
  r->depth_max = w->depth_max;
  if (broke) {
    r->status = S_UNSTABLE;
    r->t_fail = (double)(r->frames + 1) * CL_H;
    snprintf(r->note, sizeof r->note, "frame %ld (t = %.4g s): %s", r->frames + 1, r->t_fail, w->why);
  } else if (w->passed) {
    r->status = S_CAPPED;
    r->passed = 1;
    snprintf(r->note, sizeof r->note, "stopped at frame %ld: strain %.3g above the target %g", r->frames,
             w->strain_last, w->stop_above);
  } else if (r->frames < total) {
    r->status = S_CAPPED;
    snprintf(r->note, sizeof r->note, "capped: %ld of %ld frames in %.3g s of stepping", r->frames, total,
             r->seconds);
  } else {
    r->status = S_STABLE;
  }
}

static void run_cdyn(const cl_problem *p, const cl_topo *t, int iv, int n, double stop_above, long total, cl_run *r)
{
  const cl_variant *v = &variants[iv];
  cdyn_cloth *cl = NULL;
  cdyn_system *s = NULL;
  cdyn_strainlimit *sl = NULL;
  cdyn_ball *b = NULL;
  cdyn_stepper *st = NULL;
  size_t pins[2];
  cdyn_cloth_spec cs = cloth_spec(p, pins);
  const size_t ball = t->n;
  const double g[3] = {0, CL_G, 0};
  int rc = cdyn_cloth_new(&cl, &s, &cs);
  if (!rc)
    rc = cdyn_system_set_gravity(s, g);
  if (!rc && p->ball) {
    const double c[3] = {0, CL_BALL_Y, 0};
    if (!(rc = cdyn_system_set_position(s, ball, c)))
      rc = cdyn_system_add_pin(s, ball, c, NULL);
  }
  int ineq = iv == V_PN || iv == V_ADMM;
  int limit = ineq ? CDYN_LIMIT_INEQUALITY : iv == V_XPBD ? CDYN_LIMIT_SWITCH : -1;
  if (!rc && limit >= 0) {
    size_t *idx = malloc(t->s_count * sizeof *idx);
    if (!idx) {
      rc = CDYN_ENOMEM;
    } else {
      for (size_t k = 0; k < t->s_count; k++)
        idx[k] = t->s_first + k;
      cdyn_strainlimit_opts so = {.eps_max = CL_EPS_MAX, .mode = limit};
      rc = cdyn_strainlimit_new(&sl, s, idx, t->s_count, &so);
      free(idx);
    }
  }
  if (!rc && p->ball) {
    size_t *nodes = malloc(t->n * sizeof *nodes);
    if (!nodes) {
      rc = CDYN_ENOMEM;
    } else {
      for (size_t k = 0; k < t->n; k++)
        nodes[k] = k;
      cdyn_ball_opts bo = {CL_BALL_RADIUS, CL_THICKNESS,
                           ineq ? CDYN_BALL_INEQUALITY : iv == V_XPBD ? CDYN_BALL_SWITCH : CDYN_BALL_PROJECT,
                           0.0};
      rc = cdyn_ball_new(&b, s, ball, nodes, t->n, &bo);
      free(nodes);
    }
  }
  if (!rc)
    rc = cdyn_stepper_new(&st, s, v->scheme);
  if (!rc && iv == V_XPBD)
    rc = cdyn_stepper_set(st, "iterations", "1");
  if (!rc && v->nkind == N_ITERATIONS) {
    char its[32];
    snprintf(its, sizeof its, "%d", n);
    rc = cdyn_stepper_set(st, "iterations", its);
  }
  const int sub = v->nkind == N_SUBSTEPS ? n : 1;
  if (rc) {
    r->status = S_ERROR;
    snprintf(r->note, sizeof r->note, "build: %s", cdyn_errmsg());
    goto done;
  }
  cl_watch w = {.t = t, .ball = p->ball, .stop_above = stop_above, .strain_max = 0, .strain_last = 0,
               .depth_max = -INFINITY};
  const double hs = CL_H / sub;
  const double *x = cdyn_system_positions(s);
  int broke = 0;
  while (r->frames < total) {
    double t0 = cdyn_clock();
    for (int k = 0; !rc && k < sub; k++) {
      if (sl)
        rc = cdyn_strainlimit_before(sl);
      if (!rc && b)
        rc = cdyn_ball_before(b, hs);
      if (!rc && (rc = cdyn_stepper_step(st, hs)) == CDYN_OK) {
        if (b)
          rc = cdyn_ball_after(b, st, hs);
        if (!rc && sl)
          rc = cdyn_strainlimit_after(sl, st);
      }
    }
    r->seconds += cdyn_clock() - t0;
    if (rc) {
      snprintf(w.why, sizeof w.why, "%s: %.250s", bench_status_name(rc), cdyn_errmsg());
      broke = 1;
      break;
    }
    if (watch_frame(&w, x)) {
      broke = !w.passed;
      if (w.passed)
        r->frames++;
      break;
    }
    r->frames++;
    if (r->seconds > cap_seconds(total) && r->frames < total)
      break;
  }
  cdyn_stats S;
  if (!cdyn_stepper_stats(st, &S)) {
    r->nonlinear = (double)S.nonlinear_iterations;
    r->linalg = S.time_factor + S.time_solve;
    r->factor_nnz = S.factor_nnz;
  }
  finish(r, &w, total, broke);
done:
  cdyn_stepper_free(st);
  cdyn_ball_free(b);
  cdyn_strainlimit_free(sl);
  cdyn_cloth_free(cl);
  cdyn_system_free(s);
}

#ifdef HAVE_BULLET
static void run_bullet(const cl_problem *p, const cl_topo *t, int iv, long total, cl_run *r)
{
  double *mass = malloc(t->n * sizeof *mass), *kl = malloc(t->springs * sizeof *kl),
         *x = malloc(3 * t->n * sizeof *x);
  peer_bullet *pb = NULL;
  if (!mass || !kl || !x) {
    r->status = S_ERROR;
    snprintf(r->note, sizeof r->note, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < t->n; i++)
    mass[i] = (i == 0 || i == p->N - 1) ? 0 : CL_MASS / (double)t->n;
  for (size_t k = 0; k < t->springs; k++)
    kl[k] = t->k[k] / CL_K_STRUCT;
  peer_bullet_cloth c = {.n = t->n, .x0 = t->x0, .mass = mass, .links = t->springs, .link = t->spring,
                         .stiffness = kl, .triangles = t->tris, .tri = t->tri, .g = {0, CL_G, 0},
                         .damping = 0, .iterations = variants[iv].iterations, .margin = CL_THICKNESS,
                         .ball = p->ball, .centre = {0, CL_BALL_Y, 0}, .radius = CL_BALL_RADIUS,
                         .voxel = CL_VOXEL};
  pb = peer_bullet_new(&c, r->note, sizeof r->note);
  if (!pb) {
    r->status = S_ERROR;
    goto done;
  }
  cl_watch w = {.t = t, .ball = p->ball, .stop_above = INFINITY, .strain_max = 0, .strain_last = 0,
               .depth_max = -INFINITY};
  int broke = 0;
  while (r->frames < total) {
    double t0 = cdyn_clock();
    int rc = peer_bullet_step(pb, CL_H, w.why, sizeof w.why);
    r->seconds += cdyn_clock() - t0;
    if (rc) {
      broke = 1;
      break;
    }
    peer_bullet_positions(pb, x);
    if (watch_frame(&w, x)) {
      broke = !w.passed;
      break;
    }
    r->frames++;
    if (r->seconds > cap_seconds(total) && r->frames < total)
      break;
  }
  finish(r, &w, total, broke);
done:
  peer_bullet_free(pb);
  free(mass);
  free(kl);
  free(x);
}
#endif

/* One run in a child process: what it measured, with its memory. */
static void run_forked(const cl_problem *p, const cl_topo *t, int iv, int n, double stop_above, long total, cl_run *r)
{
  memset(r, 0, sizeof *r);
  r->substeps = n;
  int fd[2];
  if (pipe(fd)) {
    r->status = S_ERROR;
    snprintf(r->note, sizeof r->note, "pipe: %s", strerror(errno));
    return;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    r->status = S_ERROR;
    snprintf(r->note, sizeof r->note, "fork: %s", strerror(errno));
    close(fd[0]);
    close(fd[1]);
    return;
  }
  if (pid == 0) {
    close(fd[0]);
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    FILE *cr = fopen("/proc/self/clear_refs", "w");
    if (cr) {
      fputs("5", cr);
      fclose(cr);
    }
    r->rss_base_kb = proc_status_kb("VmRSS");
    if (variants[iv].engine == E_CDYN) {
      run_cdyn(p, t, iv, n, stop_above, total, r);
    } else {
#ifdef HAVE_BULLET
      run_bullet(p, t, iv, total, r);
#endif
    }
    r->rss_hwm_kb = proc_status_kb("VmHWM");
    const char *at = (const char *)r;
    size_t left = sizeof *r;
    while (left > 0) {
      ssize_t k = write(fd[1], at, left);
      if (k <= 0)
        _exit(1);
      at += k;
      left -= (size_t)k;
    }
    _exit(0);
  }
  close(fd[1]);
  char *at = (char *)r;
  size_t got = 0;
  while (got < sizeof *r) {
    ssize_t k = read(fd[0], at + got, sizeof *r - got);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      break;
    got += (size_t)k;
  }
  close(fd[0]);
  int wst = 0;
  while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
    ;
  if (got != sizeof *r) {
    memset(r, 0, sizeof *r);
    r->substeps = n;
    r->status = S_ERROR;
    if (WIFSIGNALED(wst))
      snprintf(r->note, sizeof r->note, "the run's process died of signal %d", WTERMSIG(wst));
    else
      snprintf(r->note, sizeof r->note, "the run's process exited (%d) without its results",
               WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
  }
}

/* ---- the section ------------------------------------------------------------------------ */

typedef struct {
  const cl_problem *p;
  cl_topo t;
  int reps[NV];
  double ms[NV];      /* the median over the repetitions */
  cl_run run[NV];     /* the first run */
  char search[NV][512]; /* the n searched (xpbd's substeps, admm's iterations) */
  int reached[NV];      /* the chosen n meets the target */
} cl_row;

struct bench_cloth {
  int quick, reps;
  long frames;
  size_t np;
  cl_row rows[CL_PROBLEMS];
  double seconds;
};

static void log_run(const cl_row *row, const char *name, const cl_run *r, int rep)
{
  double f = r->frames ? (double)r->frames : NAN;
  fprintf(stderr, "  cloth rep %d %-11s %-24s n=%-2d %-8s %4ld frames %9.3f ms/frame  strain %.3e  mem %.1f MB  %s\n",
          rep, row->p->name, name, r->substeps, status_name[r->status], r->frames, 1e3 * r->seconds / f,
          r->strain_max, (double)(r->rss_hwm_kb - r->rss_base_kb) / 1024, r->note);
}

static void run_variant(bench_cloth *c, cl_row *row, int iv, int n, const cl_run *first)
{
  cl_run *r = &row->run[iv];
  if (first) {
    *r = *first;
  } else {
    run_forked(row->p, &row->t, iv, n, INFINITY, c->frames, r);
    log_run(row, variants[iv].name, r, 1);
  }
  row->reps[iv] = 1;
  double t[CL_MAX_REPS];
  t[0] = r->frames ? 1e3 * r->seconds / (double)r->frames : NAN;
  double spent = r->seconds;
  while (r->status == S_STABLE && row->reps[iv] < c->reps && spent + r->seconds <= CL_REP_BUDGET) {
    cl_run again;
    run_forked(row->p, &row->t, iv, n, INFINITY, c->frames, &again);
    log_run(row, variants[iv].name, &again, row->reps[iv] + 1);
    spent += again.seconds;
    if (again.status != r->status || memcmp(&again.strain_max, &r->strain_max, sizeof(double)) ||
        memcmp(&again.strain_end, &r->strain_end, sizeof(double))) {
      size_t k = strlen(r->note);
      snprintf(r->note + k, sizeof r->note - k, "%srepetition %d differs: %s, strain %.17g", k ? "; " : "",
               row->reps[iv] + 1, status_name[again.status], again.strain_max);
      break;
    }
    t[row->reps[iv]++] = again.frames ? 1e3 * again.seconds / (double)again.frames : NAN;
  }
  row->ms[iv] = bench_median(t, row->reps[iv]);
}

/* xpbd, admm: the smallest n of n0, 2 n0, ..., nmax whose strain stays
   <= 0.11. */
static void run_search(bench_cloth *c, cl_row *row, int iv)
{
  const cl_variant *v = &variants[iv];
  size_t len = 0;
  char *search = row->search[iv];
  search[0] = 0;
  for (int n = v->n0; n < v->nmax; n = next_n(v->nkind, n)) {
    cl_run trial;
    char what[64];
    run_forked(row->p, &row->t, iv, n, CL_XPBD_TARGET, c->frames, &trial);
    snprintf(what, sizeof what, "%s (search)", v->name);
    log_run(row, what, &trial, 1);
    /* A run that the time cap stopped before its strain passed the target
       meets it as far as it went: the table says it was capped. */
    if (trial.status == S_STABLE || (trial.status == S_CAPPED && trial.strain_max <= CL_XPBD_TARGET)) {
      row->reached[iv] = 1;
      run_variant(c, row, iv, n, &trial);
      return;
    }
    if (trial.status == S_ERROR || trial.status == S_ABSENT) {
      row->run[iv] = trial;
      return;
    }
    if (len < sizeof row->search[iv]) {
      size_t room = sizeof row->search[iv] - len;
      if (trial.status == S_UNSTABLE)
        len += (size_t)snprintf(search + len, room, "%sn=%d: unstable at t = %.4g s", len ? "; " : "", n,
                                trial.t_fail);
      else if (trial.passed)
        len += (size_t)snprintf(search + len, room, "%sn=%d: strain %.3g at frame %ld", len ? "; " : "", n,
                                trial.strain_max, trial.frames);
      else
        len += (size_t)snprintf(search + len, room, "%sn=%d: %s", len ? "; " : "", n, trial.note);
    }
  }
  run_variant(c, row, iv, v->nmax, NULL);
  row->reached[iv] = row->run[iv].status == S_STABLE && row->run[iv].strain_max <= CL_XPBD_TARGET;
}

static void absent(cl_row *row, int iv, const char *why)
{
  cl_run *r = &row->run[iv];
  memset(r, 0, sizeof *r);
  r->status = S_ABSENT;
  r->substeps = 1;
  snprintf(r->note, sizeof r->note, "%s", why);
  row->ms[iv] = NAN;
}

bench_cloth *bench_cloth_run(int quick, int reps, const char *only)
{
  bench_cloth *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  double t0 = cdyn_clock();
  c->quick = quick;
  c->reps = quick ? 1 : reps < 1 ? 1 : reps > CL_MAX_REPS ? CL_MAX_REPS : reps;
  c->frames = quick ? CL_QUICK_FRAMES : CL_FRAMES;
  size_t count = quick ? 2 : CL_PROBLEMS;
  for (size_t k = 0; k < count; k++) {
    if (only && !bench_in_list(only, problems[k].name))
      continue;
    cl_row *row = &c->rows[c->np];
    row->p = &problems[k];
    if (topo_build(row->p, &row->t)) {
      fprintf(stderr, "cdyn-bench: cannot build the cloth of %s: %s\n", row->p->name, cdyn_errmsg());
      bench_cloth_free(c);
      return NULL;
    }
    c->np++;
  }
  fprintf(stderr, "cdyn-bench: cloth against Bullet, h = 1/60 s for %ld frames\n", c->frames);
  for (size_t ip = 0; ip < c->np; ip++) {
    cl_row *row = &c->rows[ip];
    for (int iv = 0; iv < NV; iv++) {
      size_t si;
      if (variants[iv].scheme && cdyn_scheme_find(variants[iv].scheme, &si)) {
        char why[128];
        snprintf(why, sizeof why, "the library has no scheme %s (cdyn_scheme_find refuses the name)",
                 variants[iv].scheme);
        absent(row, iv, why);
      } else if (variants[iv].nkind != N_NONE) {
        run_search(c, row, iv);
      } else if (variants[iv].engine == E_BULLET) {
#ifdef HAVE_BULLET
        run_variant(c, row, iv, 1, NULL);
#else
        absent(row, iv, "Bullet was not found at configure");
#endif
      } else {
        run_variant(c, row, iv, 1, NULL);
      }
    }
  }
  c->seconds = cdyn_clock() - t0;
  return c;
}

void bench_cloth_free(bench_cloth *c)
{
  if (!c)
    return;
  for (size_t ip = 0; ip < c->np; ip++)
    topo_free(&c->rows[ip].t);
  free(c);
}

/* ---- the outputs ------------------------------------------------------------------------- */

/* What follows a run's time in the size tables: nothing when it ran
   stable to the end, else why it is not a whole run. */
static const char *mark(const cl_run *r)
{
  return r->status == S_STABLE ? "" : r->status == S_CAPPED ? " (capped)" : " (no)";
}

/* One cell of a table: fmt with its values when have, else none (the
   CSV's empty field, the Markdown table's "-"). */
__attribute__((format(printf, 4, 5))) static void cell(FILE *f, int have, const char *none, const char *fmt, ...)
{
  if (!have) {
    fputs(none, f);
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
}

/* The share of a run's stepping time in the stepper's linear algebra, or
   NaN where none is counted (Bullet; xpbd has none; baraff-witkin's own
   solve is not counted in cdyn_stats). */
static double linalg_share(const cl_run *r, int iv)
{
  return variants[iv].engine == E_CDYN && r->frames > 0 && r->seconds > 0 && r->linalg > 0 ? r->linalg / r->seconds
                                                                                             : NAN;
}

/* The entries of a run's last factor, or 0 where none is reported. */
static size_t factor_entries(const cl_run *r, int iv)
{
  return variants[iv].engine == E_CDYN ? r->factor_nnz : 0;
}

static double run_mb(const cl_run *r)
{
  return r->rss_hwm_kb > 0 && r->rss_base_kb > 0 ? (double)(r->rss_hwm_kb - r->rss_base_kb) / 1024 : NAN;
}

int bench_cloth_write(const bench_cloth *c, const char *dir, int argc, char **argv)
{
  char tmp[1024], fin[1024];
  FILE *f = bench_open_tmp(dir, "soft-body.csv", tmp, fin, sizeof tmp);
  if (!f) {
    fprintf(stderr, "cdyn-bench: cannot write in %s (does the directory exist?)\n", dir);
    return -1;
  }
  fprintf(f, "problem,nodes,springs,h,frames,variant,n,status,t_unstable,frames_run,strain_max,strain_end,"
             "ms_per_frame,frames_per_s,reps,nonlinear_per_frame,linalg_share,factor_nnz,mem_run_mb,mem_base_mb,"
             "mem_peak_mb,ball_depth_max,search,note\n");
  for (size_t ip = 0; ip < c->np; ip++)
    for (int iv = 0; iv < NV; iv++) {
      const cl_row *row = &c->rows[ip];
      const cl_run *r = &row->run[iv];
      fprintf(f, "%s,%zu,%zu,%.17g,%ld,%s,%d,%s,", row->p->name, row->t.n, row->t.springs, CL_H, c->frames,
              variants[iv].name, r->substeps, status_name[r->status]);
      cell(f, r->status == S_UNSTABLE, ",", "%.6g,", r->t_fail);
      fprintf(f, "%ld,", r->frames);
      cell(f, r->frames > 0, ",,,,,", "%.6g,%.6g,%.6g,%.6g,%d,", r->strain_max, r->strain_end, row->ms[iv],
           1e3 / row->ms[iv], row->reps[iv]);
      cell(f, r->frames > 0 && variants[iv].engine == E_CDYN, ",", "%.4g,", r->nonlinear / (double)r->frames);
      double share = linalg_share(r, iv);
      size_t entries = factor_entries(r, iv);
      cell(f, isfinite(share), ",", "%.4g,", share);
      cell(f, entries != 0, ",", "%zu,", entries);
      cell(f, r->status != S_ABSENT && r->status != S_ERROR && r->rss_hwm_kb > 0, ",,,", "%.4g,%.4g,%.4g,",
           run_mb(r), (double)r->rss_base_kb / 1024, (double)r->rss_hwm_kb / 1024);
      cell(f, row->p->ball && r->frames > 0, ",", "%.4g,", r->depth_max);
      if (variants[iv].nkind != N_NONE)
        exp_csv_field(f, row->search[iv]);
      fprintf(f, ",");
      exp_csv_field(f, r->note);
      fprintf(f, "\n");
    }
  if (bench_close_tmp(f, tmp, fin))
    return -1;

  f = bench_open_tmp(dir, "soft-body.meta.json", tmp, fin, sizeof tmp);
  if (!f)
    return -1;
  bench_meta_begin(f, argc, argv);
  fprintf(f, ",\n  \"bullet\": ");
#ifdef HAVE_BULLET
  fprintf(f, "{\"version\": ");
  exp_json_str(f, peer_bullet_version());
  fprintf(f, ", \"pkg_config_module\": ");
  exp_json_str(f, CDYN_BULLET_MODULE);
  fprintf(f, ", \"btScalar_bytes\": %d}", peer_bullet_scalar_bytes());
#else
  fprintf(f, "null");
#endif
  fprintf(f, ",\n  \"section\": \"cloth against Bullet\",\n  \"parameters\": {\"h\": %.17g, \"frames\": %ld, \"T\": %g, "
             "\"reps\": %d, \"rep_budget_seconds\": %g, \"max_seconds\": %g, \"quick\": %d, \"cloth\": {\"size\": 1, "
             "\"plane\": \"y = 0, x and z in [-0.5, 0.5]\", \"mass\": %g, \"k_struct\": %g, \"k_shear\": %g, "
             "\"k_bend\": %g, \"damping\": %g, \"g\": [0, %g, 0], \"pins\": \"nodes 0 and N - 1\"}, "
             "\"ball\": {\"problem\": \"ball-64\", \"radius\": %g, \"centre\": [0, %g, 0], \"thickness\": %g, "
             "\"fixed\": true, \"friction\": 0}, \"strain_limit\": {\"eps_max\": %g, \"projected-newton\": "
             "\"CDYN_LIMIT_INEQUALITY\", \"admm\": \"CDYN_LIMIT_INEQUALITY\", \"xpbd-substeps\": "
             "\"CDYN_LIMIT_SWITCH\"}, "
             "\"stability_rule\": \"every step returns CDYN_OK (Bullet: no exception), the state stays finite and no "
             "node gets farther than %g m from its start, checked after every frame\", "
             "\"xpbd_substeps\": \"smallest n of 1, 2, 4, ..., %d whose largest strain is <= %g, else %d; 1 "
             "iteration per substep\", \"admm_iterations\": \"smallest n of 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, "
             "128 whose largest strain is <= %g, else 160\", \"bullet_mapping\": {\"kLST\": [%g, %g, %g], \"kDP\": 0, \"collisions\": "
             "\"SDF_RS\", \"margin\": %g, \"sdf_voxel\": %g, \"step\": \"stepSimulation(h, 0)\"}, "
             "\"memory\": \"per run, a child process: VmHWM at its end less VmRSS at its start, after malloc_trim "
             "and a reset of the peak (clear_refs 5)\", \"section_seconds\": %.1f},\n  \"problems\": [",
          CL_H, c->frames, (double)c->frames * CL_H, c->reps, CL_REP_BUDGET, cap_seconds(c->frames), c->quick, CL_MASS,
          CL_K_STRUCT, CL_K_SHEAR, CL_K_BEND, CL_DAMPING, CL_G, CL_BALL_RADIUS, CL_BALL_Y, CL_THICKNESS, CL_EPS_MAX,
          CL_FAR, CL_SUBSTEPS_MAX, CL_XPBD_TARGET, CL_SUBSTEPS_MAX, CL_XPBD_TARGET, 1.0, CL_K_SHEAR / CL_K_STRUCT,
          CL_K_BEND / CL_K_STRUCT, CL_THICKNESS, CL_VOXEL, c->seconds);
  for (size_t ip = 0; ip < c->np; ip++)
    fprintf(f, "%s{\"name\": \"%s\", \"N\": %zu, \"nodes\": %zu, \"springs\": %zu, \"structural\": %zu, "
               "\"ball\": %s}",
            ip ? ", " : "", c->rows[ip].p->name, c->rows[ip].p->N, c->rows[ip].t.n, c->rows[ip].t.springs,
            c->rows[ip].t.s_count, c->rows[ip].p->ball ? "true" : "false");
  fprintf(f, "],\n  \"variants\": [");
  for (int iv = 0; iv < NV; iv++) {
    const cl_variant *v = &variants[iv];
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
    } else if (v->scheme) {
      fprintf(f, ", \"scheme\": \"%s\", \"registered\": false", v->scheme);
    }
    if (iv == V_XPBD)
      fprintf(f, ", \"iterations\": \"1\"");
    if (v->engine == E_BULLET)
      fprintf(f, ", \"piterations\": %d", v->iterations);
    fprintf(f, "}");
  }
  fprintf(f, "]\n}\n");
  return bench_close_tmp(f, tmp, fin);
}

/* The row of problem `name`, or NULL. */
static const cl_row *row_named(const bench_cloth *c, const char *name)
{
  for (size_t ip = 0; ip < c->np; ip++)
    if (!strcmp(c->rows[ip].p->name, name))
      return &c->rows[ip];
  return NULL;
}

/* Time per frame against the cloth's size: each variant's ms/frame on the
   hanging cloths (each at its own n), the ratio of one size to the next
   (4 times the nodes), and that ratio as a power of the nodes, log r /
   log 4 (1: linear). */
static void print_scaling(FILE *g, const bench_cloth *c)
{
  static const char *const names[] = {"hanging-32", "hanging-64", "hanging-128"};
  const cl_row *rows[3];
  int have = 0;
  for (int k = 0; k < 3; k++)
    have += (rows[k] = row_named(c, names[k])) != NULL;
  if (have < 2)
    return;
  fprintf(g, "\n### Time per frame with the cloth's size\n\n"
             "Each variant's ms/frame on the hanging cloths, each at its own n (the run above); the ratio of a "
             "size to the one before it (4 times the nodes), and that ratio as a power of the nodes, log r / log 4 "
             "(1 is linear). A run that did not complete its frames (no, or capped) is marked.\n\n");
  fprintf(g, "| variant | 32 | 64 | 128 | 64 / 32 | power | 128 / 64 | power |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int iv = 0; iv < NV; iv++) {
    double ms[3];
    fprintf(g, "| %s |", variants[iv].name);
    for (int k = 0; k < 3; k++) {
      const cl_run *r = rows[k] ? &rows[k]->run[iv] : NULL;
      ms[k] = r && r->frames > 0 ? rows[k]->ms[iv] : NAN;
      cell(g, isfinite(ms[k]), " - |", " %.4g%s |", ms[k], r ? mark(r) : "");
    }
    for (int k = 1; k < 3; k++)
      cell(g, isfinite(ms[k]) && isfinite(ms[k - 1]) && ms[k - 1] > 0, " - | - |", " %.3g | %.2f |",
           ms[k] / ms[k - 1], log(ms[k] / ms[k - 1]) / log(4.0));
    fprintf(g, "\n");
  }
  /* The cdyn variants with a factor: the frame split into the linear
     algebra and the rest, and the factor's entries, size by size. */
  int any = 0;
  for (int iv = 0; iv < NV; iv++)
    for (int k = 0; k < 3; k++)
      any |= rows[k] && factor_entries(&rows[k]->run[iv], iv) > 0 && isfinite(linalg_share(&rows[k]->run[iv], iv));
  if (!any)
    return;
  fprintf(g, "\nThe same split for the cdyn variants that factor a matrix: each frame's time in the linear algebra "
             "(factorisations and solves) and in the rest (ms/frame times the run's share), and the factor's "
             "entries, with the ratio of each size to the one before it. A direct solve reads its whole factor: "
             "past the small sizes, where each solve's fixed costs weigh, its time follows the entries, and grows "
             "faster once the factor outgrows the caches.\n\n");
  fprintf(g, "| variant | size | n | ms/frame | linear algebra (ms/frame) | the rest (ms/frame) | factor entries |\n"
             "|---|---:|---:|---:|---:|---:|---:|\n");
  for (int iv = 0; iv < NV; iv++) {
    double la[3] = {NAN, NAN, NAN}, re[3] = {NAN, NAN, NAN}, fe[3] = {NAN, NAN, NAN};
    int shown = 0;
    for (int k = 0; k < 3; k++) {
      const cl_run *r = rows[k] ? &rows[k]->run[iv] : NULL;
      if (!r)
        continue;
      double share = linalg_share(r, iv);
      size_t entries = factor_entries(r, iv);
      if (!entries || !isfinite(share))
        continue;
      double ms = rows[k]->ms[iv];
      la[k] = ms * share;
      re[k] = ms - la[k];
      fe[k] = (double)entries;
      fprintf(g, "| %s | %zu | %d | %.4g%s | %.4g | %.4g | %zu |\n", variants[iv].name, rows[k]->p->N, r->substeps, ms,
              mark(r), la[k], re[k], entries);
      shown++;
    }
    for (int k = 1; k < 3 && shown; k++)
      if (isfinite(la[k]) && isfinite(la[k - 1]) && la[k - 1] > 0 && re[k - 1] > 0)
        fprintf(g, "| %s | %zu / %zu | | %.3g | %.3g | %.3g | %.3g |\n", variants[iv].name, rows[k]->p->N,
                rows[k - 1]->p->N, rows[k]->ms[iv] / rows[k - 1]->ms[iv], la[k] / la[k - 1], re[k] / re[k - 1],
                fe[k] / fe[k - 1]);
  }
}

void bench_cloth_print(FILE *g, const bench_cloth *c)
{
  fprintf(g, "\n## Cloth against Bullet: h = 1/60 s for %g s (%ld frames)%s\n\n", (double)c->frames * CL_H, c->frames,
          c->quick ? ", quick (hanging-32 and hanging-64 only, 60 frames)" : "");
  fprintf(g, "cdyn's cloth (N x N nodes, 1 m square, 0.5 kg, Provot's springs 100 / 20 / 2 N/m, damping 0.02 N s/m), "
             "released flat and at rest, pinned at its two corners 0 and N - 1; ball-64 adds a fixed frictionless "
             "ball of radius %g m, 0.5 m below the cloth's centre. Variants: cdyn's projected-newton (strain limiter "
             "eps_max %g as inequalities), admm with n iterations a step (the same limits; n the smallest of 10, 12, "
             "16, 20, 24, ..., 160 with strain <= %g), baraff-witkin (springs only), xpbd with n substeps (switching strain "
             "limiter; n the smallest of 1, 2, ..., %d with strain <= %g), and Bullet's btSoftBody with 10 and 40 "
             "position iterations (kLST 1 / 0.2 / 0.02; Bullet's kLST is a fraction, not N/m). Stable, a rule fixed "
             "before the runs: every step returns CDYN_OK (Bullet: no exception), the state stays finite and no node "
             "gets farther than %g m from its start. Strain: the largest (|x_i - x_j| - L0) / L0 of a structural "
             "edge, over every frame and at the last. ms/frame: the step calls' time, the median over reps; x B10 "
             "and x B40: that time over bullet-classic-10's and bullet-classic-40's. Memory: the run's peak resident size less its start, each run in "
             "its own process. The rules in full: bench/cloth.c.\n",
          CL_BALL_RADIUS, CL_EPS_MAX, CL_XPBD_TARGET, CL_SUBSTEPS_MAX, CL_XPBD_TARGET, CL_FAR);
  for (size_t ip = 0; ip < c->np; ip++) {
    const cl_row *row = &c->rows[ip];
    fprintf(g, "\n### %s (%zu nodes, %zu springs)\n\n", row->p->name, row->t.n, row->t.springs);
    fprintf(g, "| variant | n | stable | strain max | strain end | ms/frame | x B10 | x B40 | reps | Newton it./frame | "
               "linear algebra | factor entries | memory (MB) |%s note |\n",
            row->p->ball ? " depth in ball (m; < 0: none) |" : "");
    fprintf(g, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|%s---|\n", row->p->ball ? "---:|" : "");
    double b10 = row->run[V_B10].frames > 0 ? row->ms[V_B10] : NAN;
    double b40 = row->run[V_B40].frames > 0 ? row->ms[V_B40] : NAN;
    for (int iv = 0; iv < NV; iv++) {
      const cl_run *r = &row->run[iv];
      fprintf(g, "| %s | %d | ", variants[iv].name, r->substeps);
      if (r->status == S_STABLE || r->status == S_CAPPED || (r->status == S_UNSTABLE && r->frames > 0)) {
        fprintf(g, "%s | %.3e | %.3e | %.4g | ", r->status == S_STABLE ? "yes" : r->status == S_CAPPED ? "capped" : "no",
                r->strain_max, r->strain_end, row->ms[iv]);
        cell(g, isfinite(b10), "- | ", "%.3g | ", row->ms[iv] / b10);
        cell(g, isfinite(b40), "- | ", "%.3g | ", row->ms[iv] / b40);
        fprintf(g, "%d | ", row->reps[iv]);
        cell(g, variants[iv].engine == E_CDYN, "- | ", "%.3g | ", r->nonlinear / (double)r->frames);
        double share = linalg_share(r, iv);
        size_t entries = factor_entries(r, iv);
        cell(g, isfinite(share), "- | ", "%.0f %% | ", 100 * share);
        cell(g, entries != 0, "- | ", "%zu | ", entries);
        fprintf(g, "%.1f | ", run_mb(r));
        if (row->p->ball)
          fprintf(g, "%.2e | ", r->depth_max);
      } else {
        fprintf(g, "%s | - | - | - | - | - | - | - | - | - | - | ", status_name[r->status]);
        if (row->p->ball)
          fprintf(g, "- | ");
      }
      const char *sep = "";
      if (variants[iv].nkind != N_NONE && r->status != S_ABSENT && r->status != S_ERROR) {
        if (row->reached[iv])
          fprintf(g, "smallest n with strain <= %g", CL_XPBD_TARGET);
        else
          fprintf(g, "no n up to %d keeps the strain <= %g: n = %d", variants[iv].nmax, CL_XPBD_TARGET,
                  r->substeps);
        if (row->search[iv][0])
          fprintf(g, " (%s)", row->search[iv]);
        sep = "; ";
      }
      if (r->note[0])
        fprintf(g, "%s%s", sep, r->note);
      fprintf(g, " |\n");
    }
  }
  print_scaling(g, c);
  fprintf(g, "\n(The section took %.0f s.)\n", c->seconds);
}
