/*
 * collision_cost.c: collision-cost.
 *
 * The detector's time per step against the mesh size (the n log n
 * target).  For each grid size N (nodes per side): an N x N cloth of side
 * 1 m folded into a wave, y = A sin(3 pi x) cos(2 pi z) (A = 0.1 m),
 * every node jittered by up to `jitter` spacings and given a random
 * velocity that moves it by up to `motion` spacings per step of h in each
 * component (a fixed splitmix64 stream seeded with `seed`), thickness
 * `thickness` spacings: the mesh is refined with the cloth's scales
 * refined with it, so that the work per element stays the same and the
 * measured growth is the detector's own (with a fixed thickness the pairs
 * per element grow as the spacing falls below it).  The handler
 * (continuous on, no kept candidate list: skin 0) is made once;
 * cdyn_contacts_before(h) and
 * cdyn_contacts_after (the check of the motion taken, here the predicted
 * one: the state is moved to x + h v first) are timed over `reps` calls
 * (the state restored between them), and the exact replay of the same
 * motion (reference/ccd_replay.c: a grid of the swept boxes, distance bound, filter, GMP)
 * once, for comparison.  Written: the triangles, the broad-phase pairs,
 * the contacts, the times; the slope of log(time) against log(triangles)
 * is the measured exponent.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdyn/cloth.h>
#include <cdyn/collision.h>

#include "ccd_replay.h"
#include "runner/experiment.h"

static const exp_param cost_params[] = {
  {"grids", "8,16,32,64,128", EXP_TEXT, 0, 0, 0, "nodes per side of each mesh, comma separated"},
  {"reps", "20", EXP_INT, 1, 100000, 0, "timed calls per mesh"},
  {"thickness", "0.1", EXP_REAL, 0, 10, EXP_OPEN_MIN, "cloth thickness delta, in grid spacings"},
  {"jitter", "0.01", EXP_REAL, 0, 1, 0, "largest random displacement of a node, in grid spacings"},
  {"motion", "0.1", EXP_REAL, 0, 10, 0, "largest motion of a node per step and component, in grid spacings"},
  {"seed", "1", EXP_INT, 0, 4294967295.0, 0, "seed of the random jitter and velocities"},
  EXP_PARAMS_END};

#define MAX_GRIDS 16
static const double PI = 3.14159265358979323846;

/* The grid sizes: at most MAX_GRIDS sizes in [2, 1024] (runner/lists.h). */
static int parse_grids(const char *text, long *g, int *n)
{
  return exp_list_longs(text, "grids", EXP_LIST_SPACES, 2, 1024, g, MAX_GRIDS, n);
}

static int cost_check(exp_ctx *ctx)
{
  long g[MAX_GRIDS];
  int n;
  return parse_grids(exp_param_string(ctx, "grids"), g, &n);
}

static unsigned long rng_next(unsigned long long *s)
{
  /* splitmix64: a fixed, portable stream for the jitter */
  unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (unsigned long)((z ^ (z >> 31)) >> 11);
}

static double rng_unit(unsigned long long *s) { return (double)rng_next(s) / 9007199254740992.0 * 2 - 1; }

static int cost_run(exp_ctx *ctx)
{
  long grids[MAX_GRIDS];
  int ng;
  parse_grids(exp_param_string(ctx, "grids"), grids, &ng);
  long reps = exp_param_long(ctx, "reps"), seed = exp_param_long(ctx, "seed");
  double delta_s, jitter_s, motion_s, h = ctx->h;
  exp_param_double(ctx, "thickness", &delta_s);
  exp_param_double(ctx, "jitter", &jitter_s);
  exp_param_double(ctx, "motion", &motion_s);
  exp_csv out, timing;
  int rc;
  if ((rc = exp_csv_open(ctx, &out, "collision-cost", "grid,nodes,triangles,candidates,contacts,exact,near,filtered",
                         NULL,
                         "\"note\": \"per mesh: broad-phase pairs and contacts of one detection; of the replay's "
                         "pairs, those sent to the exact test (GMP), those past its distance bound (near) and those its "
                         "filter decided (near = filtered + exact)\"")))
    return rc;
  if ((rc = exp_csv_open(ctx, &timing, "collision-cost-time", "grid,triangles,before,after,replay", NULL,
                         "\"note\": \"wall-clock seconds per call (CLOCK_MONOTONIC, mean over reps calls; the replay "
                         "once): changes from run to run\""))) {
    exp_csv_close(&out, 0);
    return rc;
  }
  double tri_n[MAX_GRIDS], t_det[MAX_GRIDS];
  for (int k = 0; k < ng && !rc; k++) {
    size_t N = (size_t)grids[k];
    /* The mesh: the cloth generator's 1 m patch of N x N nodes. */
    const exp_cloth_material mat = {1.0, 0.5, 100, 20, 2, 0};
    exp_text t = {0};
    exp_text_puts(&t, "{\"cdyn_scene\": 1, \"name\": \"collision-cost\", \"generators\": [");
    exp_cloth_generator(&t, &mat, (long)N, NULL, 0, NULL);
    exp_text_puts(&t, "]}");
    cdyn_scene *sc = NULL;
    rc = exp_scene_read_text(&t, "collision-cost", &sc);
    exp_text_free(&t);
    if (rc)
      break;
    cdyn_system *sys = cdyn_scene_system(sc);
    cdyn_scene_patch pt;
    cdyn_scene_get_patch(sc, 0, &pt);
    unsigned long long st = (unsigned long long)seed * 0x2545f4914f6cdd1dULL + (unsigned long long)N;
    double *q0 = malloc(3 * N * N * sizeof *q0), *v0 = malloc(3 * N * N * sizeof *v0),
           *q1 = malloc(3 * N * N * sizeof *q1);
    cdyn_contacts *cc = NULL;
    if (!q0 || !v0 || !q1) {
      rc = cdyn_error(CDYN_ENOMEM, "collision-cost: out of memory");
      goto next;
    }
    const double *q = cdyn_system_positions(sys);
    double spacing = 1.0 / (double)(N - 1), jitter = jitter_s * spacing, speed = motion_s * spacing / h;
    double delta = delta_s * spacing;
    for (size_t i = 0; i < N * N; i++) {
      double x = q[3 * i], z = q[3 * i + 2];
      q0[3 * i] = x + jitter * rng_unit(&st);
      q0[3 * i + 1] = 0.1 * sin(3 * PI * x) * cos(2 * PI * z) + jitter * rng_unit(&st);
      q0[3 * i + 2] = z + jitter * rng_unit(&st);
      for (int c = 0; c < 3; c++)
        v0[3 * i + c] = speed * rng_unit(&st);
      for (int c = 0; c < 3; c++)
        q1[3 * i + c] = q0[3 * i + c] + h * v0[3 * i + c];
    }
    if ((rc = cdyn_system_set_state(sys, q0, v0)))
      goto next;
    const size_t *tri = pt.tri;
    size_t ntri = pt.ntri;
    cdyn_contacts_opts co;
    cdyn_contacts_opts_default(&co);
    co.thickness = delta;
    co.capacity = 4 * ntri;
    co.pairs = 64 * ntri;
    /* No kept candidate list: every call queries the hierarchies, the cost
       of a step whose motion leaves the skin (the calls repeat one motion,
       which a kept list would answer without a query after the first). */
    co.skin = 0;
    if ((rc = cdyn_contacts_new(&cc, sys, tri, ntri, &co)))
      goto next;
    double tb = 0, ta = 0;
    cdyn_contacts_counts cn;
    memset(&cn, 0, sizeof cn);
    for (long r = 0; r < reps && !rc; r++) {
      if ((rc = cdyn_system_set_state(sys, q0, v0)))
        break;
      double t0 = cdyn_clock();
      rc = cdyn_contacts_before(cc, h);
      double t1 = cdyn_clock();
      tb += t1 - t0;
      if (rc)
        break;
      if (r == 0)
        cdyn_contacts_counts_get(cc, &cn);
      int redo;
      if ((rc = cdyn_system_set_state(sys, q1, v0)))
        break;
      t0 = cdyn_clock();
      /* A stepper is not needed in mode inequality: the check and the releases read the state. */
      rc = cdyn_contacts_after(cc, NULL, h, &redo);
      ta += cdyn_clock() - t0;
    }
    if (rc)
      goto next;
    double t0 = cdyn_clock();
    ref_replay_report rp;
    if (ref_replay(tri, ntri, q0, q1, 0, &rp)) {
      rc = cdyn_error(CDYN_ENOMEM, "collision-cost: the replay failed (out of memory)");
      goto next;
    }
    double tr = cdyn_clock() - t0;
    tri_n[k] = (double)ntri;
    t_det[k] = (tb + ta) / (double)reps;
    double row[8] = {(double)N, (double)(N * N), (double)ntri, (double)cn.candidates, (double)cn.active,
                     (double)rp.exact, (double)rp.near, (double)rp.filtered};
    if ((rc = exp_csv_row(&out, row, 8)))
      goto next;
    double trow[5] = {(double)N, (double)ntri, tb / (double)reps, ta / (double)reps, tr};
    rc = exp_csv_row(&timing, trow, 5);
    printf("  grid %-4zu triangles %-7zu pairs %-8zu contacts %-6zu before %.3g ms after %.3g ms replay %.3g ms\n",
           N, ntri, cn.candidates, cn.active, 1e3 * tb / (double)reps, 1e3 * ta / (double)reps, 1e3 * tr);
  next:
    cdyn_contacts_free(cc);
    free(q0);
    free(v0);
    free(q1);
    cdyn_scene_free(sc);
  }
  int c1 = exp_csv_close(&out, rc == CDYN_OK), c2 = exp_csv_close(&timing, rc == CDYN_OK);
  if (rc || (rc = c1) || (rc = c2))
    return rc;
  int used;
  double slope = exp_fit_slope(tri_n, t_det, NULL, ng, &used);
  exp_report(ctx,
             "Collision detection per step (before + after, continuous on; thickness %g, jitter %g and motion per "
             "step %g grid spacings) on a folded, jittered cloth with random velocities (h = %g s): time against "
             "triangles, log-log slope %.3g over %d meshes (n log n is about 1.1 over this range; times in "
             "collision-cost-time.csv).\n\n",
             delta_s, jitter_s, motion_s, h, slope, used);
  return CDYN_OK;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "grid", "1", "nodes per side of the mesh"},
  {NULL, "nodes", "1", "nodes of the mesh"},
  {NULL, "triangles", "1", "triangles of the mesh"},
  {NULL, "candidates", "1", "broad-phase pairs (node-triangle and edge-edge, sharing no particle) of one detection"},
  {NULL, "contacts", "1", "contacts made by one detection"},
  {NULL, "exact", "1", "pairs the exact replay sent to the exact (GMP) test"},
  {NULL, "near", "1", "pairs past the exact replay's distance bound (near = filtered + exact)"},
  {NULL, "filtered", "1",
   "pairs past the exact replay's distance bound that its certified floating-point filter decided"},
  {NULL, "before", "s", "wall-clock time of cdyn_contacts_before (mean over reps)"},
  {NULL, "after", "s", "wall-clock time of cdyn_contacts_after, the check of the motion taken (mean over reps)"},
  {NULL, "replay", "s", "wall-clock time of the exact replay of the same motion (one call)"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_collision_cost = {
  .name = "collision-cost",
  .description = "the collision detector's time per step against the mesh size (broad phase, proximity and "
                 "continuous tests), with the exact replay for comparison",
  .source = "001 sec V-A (beyond the paper: the cost of detection)",
  .params = cost_params,
  .columns = columns,
  .check = cost_check,
  .schemes = NULL,
  .h = 1e-3,
  .steps = 0,
  .run = cost_run,
};
