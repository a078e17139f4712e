/*
 * billiard.c: the billiard scene of 003 (§5, figure 6): 11 balls and 77
 * inequality constraints, handled by the scheme "contact" with each
 * active-set algorithm.
 *
 * 003 (§5): "a billiard scene composed of 10 fixed balls placed in a
 * corner and a moving ball that slides towards them.  For each ball, we
 * define two inequality constraints according to the corner and one
 * inequality constraint for each pair of balls based on their in-between
 * distance.  This example is finally composed of 11 balls and 77
 * inequality constraints."  003 gives no numbers; the choices below are
 * this suite's.
 *
 * Scene.  11 equal balls of radius r (`radius`, default 0.0286 m, a pool
 * ball) and mass m (`mass`, 0.17 kg) as particles in the plane z = 0
 * (nothing acts along z, so they stay there).  Constraints, in this
 * order (003's count, 2 x 11 + 55 = 77):
 *   for each ball i:  x_i >= r    (cdyn_system_add_wall, p = (r, 0, 0), n = e_x)
 *                     y_i >= r    (p = (0, r, 0), n = e_y)
 *   for each pair:    |x_i - x_j| >= 2 r   (cdyn_system_add_separation)
 * so every row's g is a gap in metres: two walls meeting at the corner
 * (r, r) of the centres, and the balls' surface gaps.
 *
 * Rack.  Balls 0 .. 9 in a triangle of rows of 4, 3, 2, 1 in hexagonal
 * packing, the row of 4 on the wall y = r starting at the corner:
 *   row j = 0 .. 3, ball k = 0 .. 3 - j:
 *     x = r + s + (j + 2 k) r,   y = r + s + j sqrt(3) r,
 * s = `rack_gap` r (default 0: the rack touches both walls at ball 0 and
 * the wall y = r along row 0).  Neighbours touch exactly (gap 0 up to
 * rounding: 18 touching pairs).  At rest.
 *
 * Cue.  Ball 10 starts at (12 r, 12 r) + `cue_offset` r (1, -1)/sqrt(2)
 * (default 0.25 r: the line of motion is shifted sideways so that the
 * break is not symmetric about the diagonal) with velocity `speed`
 * (-1, -1)/sqrt(2) (default 2 m/s, towards the corner).  It reaches the
 * apex ball (row 3) after about 0.1 s.
 *
 * Tilt.  On a level frictionless table no force acts: the
 * acceleration-level problem of 003 eq 6 has b = J qdd_free - d with
 * qdd_free = 0, so only the velocity terms (curvature and Baumgarte) are
 * left, and nearly every step only the impulse step does anything.  The
 * table is therefore tilted towards the corner: an in-plane gravity of
 * `tilt` (default 0.5 m/s^2) along (-1, -1)/sqrt(2), so that the racked
 * balls press on each other and on the walls and every step's
 * acceleration-level problem has many simultaneous active constraints,
 * the situation 003's algorithms are about.  Under the diagonal tilt the
 * rack is not in equilibrium (a ball of row 1 in the groove of row 0
 * would need a pulling contact on its right), so its upper rows start to
 * roll towards the wall x = r; they move by less than a tenth of r before
 * the cue arrives.  The level table is run as well (the "-level" runs).
 *
 * Runs.  For each algorithm of `algorithms` (default iterative, platt,
 * tendency, lcp; an algorithm the library does not register, such as lcp
 * before it is merged, is skipped with a note) three runs of the scheme
 * "contact" with activeset = the algorithm:
 *   ALG          tilt, restitution = `restitution` (default 1, elastic)
 *   ALG-e<low>   tilt, restitution = `restitution_low` (default 0.5)
 *   ALG-level    tilt 0, restitution = `restitution`
 * h = 1e-3 s and 3000 steps (3 s: the break and the rack balls' bounces
 * off the walls and each other; the cue ball, sent back at up to 2 m/s,
 * is still climbing the tilt at the end).  tau = 10 h =
 * 0.01 s (Baumgarte's time constant of 003 eq 5; `tau`, passed to the
 * scheme as are `restitution` and the scheme's other option names).  The
 * scheme's tolerances keep their defaults (active_tol 1e-8 m, event_tol
 * 1e-10 m, impact_tol 1e-8 m/s, sign_tol 1e-9, max_substeps 64).
 *
 * A step returning a negative status ends its run (the state is restored,
 * nothing later can be measured); CDYN_NOCONV (more than max_substeps
 * sub-steps: a ball bouncing to rest with e < 1 makes infinitely many
 * impacts in finite time) is counted and the run goes on.
 *
 * Expected (written before any run).  The iterative algorithm never ends
 * a solve with an active row violating (it adds such rows until none
 * is), so what it leaves is the discretisation's own error: for a handled
 * pair sliding past each other at tangential relative speed u, one
 * symplectic-Euler step along q + s v + s^2 qdd, with J qdd = -(Jdot v),
 * ends at g = -h^2 u^2 / (2 d), d = 2 r (the distance's curvature u^2/d);
 * Baumgarte's correction, which acts on violations only, balances this at
 * a penetration of about 2 tau / h times that, 20 h^2 u^2 / (2 d) = 5 h^2
 * u^2 / r: 6e-5 r for u = 0.1 m/s (the rack's balls rolling on each
 * other), 6e-3 r for u = 1 m/s.  Platt's and the tendency algorithm
 * ignore rows the tilt pushes together, which then close by about
 * (tilt h^2) per step until they are handled.
 *
 * What the runs showed instead (see the report's table): the iterative
 * algorithm never removes a row, and in the rack a handled row can only
 * be kept by a pulling multiplier.  The apex ball, pushed by the cue,
 * rests on two balls whose normals are 60 degrees either side of the
 * vertical; held still, it needs a negative impulse on one of them.  So
 * at the impact (the impulse step uses the same algorithm) and then at
 * every acceleration-level solve under the tilt, the iterative algorithm
 * keeps the rack rigid with pulling multipliers: the rack does not move
 * (its balls stay put to rounding), no two balls slide on each other, and
 * the sliding error above never arises.  The columns min_mu and
 * min_impulse, the steps with pulls and rack_moved_over_r record this.
 * Platt's algorithm handles every active row at a first contact, the
 * impact included, so it holds the rack at the impact too; under the tilt
 * it then drops the pulling rows and the rack collapses.
 *
 * Outputs (every number printed with %.17g, so reruns are bitwise
 * identical; nothing here is random):
 *   series-RUN.csv     one row per step k = 0 .. steps (up to a failure):
 *     step, t, min_gap (signed, over all 77 rows, m; < 0: penetration),
 *     min_wall_gap, min_pair_gap, penetration (cdyn_system_penetration:
 *     the sum of the violations, m), px, py (momentum, kg m/s), E
 *     (kinetic + potential of the tilt, J), status (of the step),
 *     substeps, events, impulses, accel_solves, max_solves (the most
 *     linear solves one active-set problem of the step needed),
 *     max_excess (solves beyond that problem's inequality rows), handled
 *     (rows in the handled set of the step's last acceleration solve),
 *     active (inequality rows with g <= active_tol after the step), pulls,
 *     violates (0/1: some solve of the step left a pulling multiplier or a
 *     violating row), min_mu (the smallest multiplier of the step's last
 *     acceleration solve, N; < 0 pulls), min_impulse (the same of its
 *     last impulse solve, N s).  Row 0 is the start: no step, so zeros
 *     except for the state's own measures (gaps, momentum, energy, active).
 *   snapshots-RUN.csv  snap, t, ball, x, y, r, cue: the balls at the times
 *     of `snapshots` (s; the nearest step, those within the run).
 *   summary.csv        one row per run (see SUMMARY_COLUMNS): failure,
 *     NOCONV steps, max penetration (total, and over r), min gap (and over
 *     r), steps with pulls and with violations, max solves and max excess,
 *     the most handled and active rows, events and impulses summed, the
 *     energy at the start, its drift (end and largest |E - E0|) and the
 *     initial kinetic energy KE0 to read it against, |p - p_free| at the
 *     end, p_free = p(0) + M g_tilt t, the most negative multiplier and
 *     impulse, and the largest displacement of a rack ball at the end (in
 *     units of r).
 *
 * Claim billiard.iterative_handles (rule fixed before any run): on the
 * run "iterative" (tilt, restitution = `restitution`), the measure is the
 * largest total penetration (cdyn_system_penetration, after any step) in
 * units of r.  holds if every step returns a status >= 0 and the measure
 * is <= 1e-6; partly if every step returns >= 0 and it is <= 1e-3 (0.1 %
 * of the radius: not visible); does-not-hold otherwise.  The note gives
 * the other algorithms' and runs' numbers.  The claim is judged only when
 * the default scheme list runs and `algorithms` holds iterative.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"

static const exp_param params[] = {
  {"radius", "0.0286", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "ball radius r (m)"},
  {"mass", "0.17", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "mass of every ball (kg)"},
  {"speed", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "speed of the cue ball towards the corner (m/s)"},
  {"cue_offset", "0.25", EXP_REAL, -2, 2, 0, "sideways offset of the cue ball's line from the diagonal (units of r)"},
  {"rack_gap", "0", EXP_REAL, 0, 100, 0, "gap between the rack and both walls (units of r)"},
  {"tilt", "0.5", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX,
   "in-plane gravity towards the corner, along (-1,-1)/sqrt(2) (m/s^2)"},
  {"restitution", "1", EXP_REAL, 0, 1, 0, "coefficient of restitution of the main runs (scheme option)"},
  {"restitution_low", "0.5", EXP_REAL, 0, 1, 0, "coefficient of restitution of the second run per algorithm"},
  {"tau", "0.01", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX,
   "Baumgarte time constant of 003 eq 5 (scheme option, s; 10 h at the default h)"},
  {"algorithms", "iterative,platt,tendency,lcp", EXP_TEXT, 0, 0, 0,
   "active-set algorithms, each a run of the scheme contact (comma separated)"},
  {"snapshots", "0,0.1,0.2,0.5,1,3", EXP_TEXT, 0, 0, 0, "times of the snapshot files (s, comma separated)"},
  EXP_PARAMS_END};

#define NBALLS 11
#define NRACK 10
#define NWALL (2 * NBALLS)
#define NPAIR (NBALLS * (NBALLS - 1) / 2)
#define NROWS (NWALL + NPAIR)
#define MAX_SNAPS 32
#define MAX_RUNS (3 * EXP_MAX_RUNS)

typedef struct {
  double r, mass, speed, offset, rack_gap, tilt, e, e_low, tau;
  int nsnap;
  double snap[MAX_SNAPS];
} bil_params;

static int get_params(exp_ctx *ctx, bil_params *p)
{
  exp_param_double(ctx, "radius", &p->r);
  exp_param_double(ctx, "mass", &p->mass);
  exp_param_double(ctx, "speed", &p->speed);
  exp_param_double(ctx, "cue_offset", &p->offset);
  exp_param_double(ctx, "rack_gap", &p->rack_gap);
  exp_param_double(ctx, "tilt", &p->tilt);
  exp_param_double(ctx, "restitution", &p->e);
  exp_param_double(ctx, "restitution_low", &p->e_low);
  exp_param_double(ctx, "tau", &p->tau);
  return exp_parse_times(exp_param_string(ctx, "snapshots"), p->snap, MAX_SNAPS, &p->nsnap);
}

static int check(exp_ctx *ctx)
{
  bil_params p;
  return get_params(ctx, &p);
}

/* ---- the scene ------------------------------------------------------------------ */

/* Ball positions and velocities (3 NBALLS each). */
static void start_state(const bil_params *p, double *q, double *v)
{
  const double r = p->r, s = p->rack_gap * r, s3 = sqrt(3.0);
  int b = 0;
  memset(q, 0, 3 * NBALLS * sizeof(double));
  memset(v, 0, 3 * NBALLS * sizeof(double));
  for (int j = 0; j < 4; j++)
    for (int k = 0; k < 4 - j; k++, b++) {
      q[3 * b] = r + s + (double)(j + 2 * k) * r;
      q[3 * b + 1] = r + s + (double)j * s3 * r;
    }
  const double c = 1.0 / sqrt(2.0);
  q[3 * b] = 12 * r + p->offset * r * c;
  q[3 * b + 1] = 12 * r - p->offset * r * c;
  v[3 * b] = -p->speed * c;
  v[3 * b + 1] = -p->speed * c;
}

static int build(const bil_params *p, double tilt, cdyn_system **out)
{
  cdyn_system *sys;
  int rc = cdyn_system_new(&sys, NBALLS);
  if (rc)
    return rc;
  double q[3 * NBALLS], v[3 * NBALLS];
  start_state(p, q, v);
  const double c = tilt / sqrt(2.0), g[3] = {-c, -c, 0};
  const double px[3] = {p->r, 0, 0}, nx[3] = {1, 0, 0}, py[3] = {0, p->r, 0}, ny[3] = {0, 1, 0};
  rc = cdyn_system_set_gravity(sys, g);
  for (size_t i = 0; i < NBALLS && !rc; i++)
    rc = cdyn_system_set_mass(sys, i, p->mass);
  if (!rc)
    rc = cdyn_system_set_state(sys, q, v);
  for (size_t i = 0; i < NBALLS && !rc; i++) {
    rc = cdyn_system_add_wall(sys, i, px, nx, NULL);
    if (!rc)
      rc = cdyn_system_add_wall(sys, i, py, ny, NULL);
  }
  for (size_t i = 0; i < NBALLS && !rc; i++)
    for (size_t j = i + 1; j < NBALLS && !rc; j++)
      rc = cdyn_system_add_separation(sys, i, j, 2 * p->r, NULL);
  if (rc) {
    cdyn_system_free(sys);
    return rc;
  }
  *out = sys;
  return CDYN_OK;
}

/* ---- one run ------------------------------------------------------------------------ */

typedef struct {
  char name[64];
  const char *alg;          /* the run's name (an algorithm, or a scheme) */
  const exp_runspec *run;
  double e, tilt;
  long steps;           /* steps taken successfully */
  int failed, status;   /* a step returned a negative status */
  long fail_step;
  long noconv;
  double max_pen, min_gap;
  long pull_steps, violate_steps;
  unsigned max_solves, max_excess, max_handled, max_active;
  unsigned long events, impulses;
  double E0, dE_end, dE_max, KE0, dp_end;
  double min_mu, min_impulse; /* most negative multiplier (N) and impulse (N s) */
  double rack_moved;          /* largest displacement of a rack ball at the end (m) */
} run_result;

#define SERIES_COLUMNS                                                                                        \
  "step,t,min_gap,min_wall_gap,min_pair_gap,penetration,px,py,E,status,substeps,events,impulses,accel_solves," \
  "max_solves,max_excess,handled,active,pulls,violates,min_mu,min_impulse"
#define NSERIES 22

#define SUMMARY_COLUMNS                                                                                         \
  "run,algorithm,restitution,tilt,steps,failed,fail_step,fail_status,noconv_steps,max_pen,max_pen_over_r,"      \
  "min_gap,min_gap_over_r,pull_steps,violate_steps,max_solves,max_excess,max_handled,max_active,events,impulses," \
  "E0,dE_end,dE_max,KE0,dp_end,min_mu,min_impulse,rack_moved_over_r"
#define NSUMMARY 27

/* The scene of one run: the parameters and the tilt. */
typedef struct {
  const bil_params *p;
  double tilt;
} scene;

static int build_scene(const void *sv, cdyn_system **out)
{
  const scene *sc = sv;
  return build(sc->p, sc->tilt, out);
}

typedef struct {
  const bil_params *p;
  run_result *res;
  exp_csv *csv, *snap;
  double active_tol, P0[3], gt[2], h;
  int next_snap;
} bil_obs;

static int observe(void *ov, const exp_state *s)
{
  bil_obs *o = ov;
  const bil_params *p = o->p;
  run_result *res = o->res;
  cdyn_contact_report rep;
  unsigned char handled[NROWS];
  memset(&rep, 0, sizeof rep);
  memset(handled, 0, sizeof handled);
  int rc;
  long k = s->k;
  if (k > 0) {
    res->noconv += s->status == CDYN_NOCONV;
    if ((rc = exp_contact_info(s->st, NROWS, &rep, handled)))
      return rc;
  }
  double phi[NROWS], row[NSERIES], pen, P[3];
  if ((rc = cdyn_system_constraint_values(s->sys, phi)) || (rc = cdyn_system_penetration(s->sys, &pen)) ||
      (rc = cdyn_system_momentum(s->sys, P)))
    return rc;
  double gmin = INFINITY, gwall = INFINITY, gpair = INFINITY;
  unsigned active = 0, nh = 0;
  for (int i = 0; i < NROWS; i++) {
    gmin = fmin(gmin, phi[i]);
    if (i < NWALL)
      gwall = fmin(gwall, phi[i]);
    else
      gpair = fmin(gpair, phi[i]);
    active += phi[i] <= o->active_tol;
    nh += handled[i] != 0;
  }
  double t = s->t, E = s->E;
  res->max_pen = fmax(res->max_pen, pen);
  res->min_gap = fmin(res->min_gap, gmin);
  res->pull_steps += rep.pulls != 0;
  res->violate_steps += rep.violates != 0;
  if (rep.max_solves > res->max_solves)
    res->max_solves = rep.max_solves;
  if (rep.max_excess > res->max_excess)
    res->max_excess = rep.max_excess;
  if (nh > res->max_handled)
    res->max_handled = nh;
  if (active > res->max_active)
    res->max_active = active;
  res->events += rep.events;
  res->impulses += rep.impulses;
  res->dE_end = E - res->E0;
  res->dE_max = fmax(res->dE_max, fabs(E - res->E0));
  double M = NBALLS * p->mass;
  res->dp_end = hypot(P[0] - (o->P0[0] + M * o->gt[0] * t), P[1] - (o->P0[1] + M * o->gt[1] * t));
  int c = 0;
  row[c++] = (double)k;
  row[c++] = t;
  row[c++] = gmin;
  row[c++] = gwall;
  row[c++] = gpair;
  row[c++] = pen;
  row[c++] = P[0];
  row[c++] = P[1];
  row[c++] = E;
  row[c++] = (double)s->status;
  row[c++] = (double)rep.substeps;
  row[c++] = (double)rep.events;
  row[c++] = (double)rep.impulses;
  row[c++] = (double)rep.accel_solves;
  row[c++] = (double)rep.max_solves;
  row[c++] = (double)rep.max_excess;
  row[c++] = (double)nh;
  row[c++] = (double)active;
  row[c++] = (double)(rep.pulls != 0);
  row[c++] = (double)(rep.violates != 0);
  row[c++] = rep.accel.min_mu;
  row[c++] = rep.impulse.min_mu;
  res->min_mu = fmin(res->min_mu, rep.accel.min_mu);
  res->min_impulse = fmin(res->min_impulse, rep.impulse.min_mu);
  if ((rc = exp_csv_row(o->csv, row, c)))
    return rc;
  /* The snapshot of time s is the step nearest to it. */
  while (o->next_snap < p->nsnap && (long)floor(p->snap[o->next_snap] / o->h + 0.5) <= k) {
    if ((long)floor(p->snap[o->next_snap] / o->h + 0.5) == k) {
      const double *q = cdyn_system_positions(s->sys);
      for (int b = 0; b < NBALLS && !rc; b++) {
        double sn[7] = {(double)o->next_snap, t, (double)b, q[3 * b], q[3 * b + 1], p->r, (double)(b == NRACK)};
        rc = exp_csv_row(o->snap, sn, 7);
      }
      if (rc)
        return rc;
    }
    o->next_snap++;
  }
  return CDYN_OK;
}

static int run_one(exp_ctx *ctx, const bil_params *p, run_result *res)
{
  cdyn_system *sys = NULL;
  cdyn_stepper *st = NULL;
  exp_csv csv, snap;
  int have_csv = 0, have_snap = 0;
  char e_text[64];
  snprintf(e_text, sizeof e_text, "%.17g", res->e);
  const char *const extra[] = {"restitution", e_text, NULL};
  scene sc = {p, res->tilt};
  int rc = build_scene(&sc, &sys);
  if (rc)
    return rc;
  if ((rc = exp_stepper_run(ctx, sys, res->run, exp_scheme_has_option(res->run->scheme, "restitution") ? extra : NULL,
                            &st)))
    goto out;
  char buf[64] = "1e-8";
  if (exp_scheme_has_option(res->run->scheme, "active_tol") && (rc = cdyn_stepper_get(st, "active_tol", buf, sizeof buf)))
    goto out;
  const long N = ctx->steps;
  const double h = ctx->h;
  char meta[512], file[128];
  snprintf(meta, sizeof meta,
           "\"run\": {\"name\": \"%.63s\", \"algorithm\": \"%.31s\", \"restitution\": %.17g, \"tilt\": %.17g, "
           "\"rows\": %d, \"walls\": %d, \"pairs\": %d}",
           res->name, res->alg, res->e, res->tilt, NROWS, NWALL, NPAIR);
  snprintf(file, sizeof file, "series-%.63s", res->name);
  if ((rc = exp_csv_open(ctx, &csv, file, SERIES_COLUMNS, st, meta)))
    goto out;
  have_csv = 1;
  snprintf(file, sizeof file, "snapshots-%.63s", res->name);
  if ((rc = exp_csv_open(ctx, &snap, file, "snap,t,ball,x,y,r,cue", st, meta)))
    goto out;
  have_snap = 1;
  bil_obs o;
  memset(&o, 0, sizeof o);
  o.p = p;
  o.res = res;
  o.csv = &csv;
  o.snap = &snap;
  o.active_tol = strtod(buf, NULL);
  o.gt[0] = o.gt[1] = -res->tilt / sqrt(2.0);
  o.h = h;
  double T, V;
  if ((rc = cdyn_system_momentum(sys, o.P0)) || (rc = cdyn_system_energy(sys, &T, &V)))
    goto out;
  res->E0 = T + V;
  res->KE0 = T;
  res->min_gap = INFINITY;
  exp_outcome out;
  if ((rc = exp_simulate(sys, st, h, N, NULL, observe, &o, &out)))
    goto out;
  res->steps = out.steps;
  if (out.end == EXP_END_FAILED_STEP || out.end == EXP_END_NONFINITE || out.end == EXP_END_DIVERGED) {
    res->failed = 1;
    res->status = out.status;
    res->fail_step = out.end_step;
  } else {
    res->fail_step = N;
  }
  {
    double q0[3 * NBALLS], v0[3 * NBALLS];
    start_state(p, q0, v0);
    const double *q = cdyn_system_positions(sys);
    for (int b = 0; b < NRACK; b++)
      res->rack_moved = fmax(res->rack_moved, hypot(q[3 * b] - q0[3 * b], q[3 * b + 1] - q0[3 * b + 1]));
  }
out:
  if (have_csv) {
    int crc = exp_csv_close(&csv, rc == CDYN_OK);
    if (!rc)
      rc = crc;
  }
  if (have_snap) {
    int crc = exp_csv_close(&snap, rc == CDYN_OK);
    if (!rc)
      rc = crc;
  }
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  return rc;
}

/* ---- the experiment --------------------------------------------------------------------- */

static int run(exp_ctx *ctx)
{
  bil_params p;
  int rc = get_params(ctx, &p);
  if (rc)
    return rc;
  const double t_start = cdyn_clock();
  static run_result res[MAX_RUNS];
  memset(res, 0, sizeof res);
  int nrun = 0;
  for (int a = 0; a < ctx->nruns; a++) {
    const char *name = ctx->runs[a].name;
    for (int v = 0; v < 3; v++) {
      run_result *x = &res[nrun++];
      x->alg = name;
      x->run = &ctx->runs[a];
      x->e = v == 1 ? p.e_low : p.e;
      x->tilt = v == 2 ? 0.0 : p.tilt;
      if (v == 0)
        snprintf(x->name, sizeof x->name, "%s", name);
      else if (v == 1)
        snprintf(x->name, sizeof x->name, "%s-e%g", name, p.e_low);
      else
        snprintf(x->name, sizeof x->name, "%s-level", name);
    }
  }
  const char *skipped = ctx->skipped;
  for (int k = 0; k < nrun && !rc; k++) {
    const double t0 = cdyn_clock();
    if ((rc = run_one(ctx, &p, &res[k])))
      break;
    exp_progress(ctx, "billiard", k + 1, nrun);
    const run_result *x = &res[k];
    printf("  %-20s %s at step %ld; max penetration %.3e r, min gap %.3e r, max solves %u, "
           "pull/violate steps %ld/%ld, min mu %.3e N, min impulse %.3e N s, rack moved %.3g r, dE_end %.3e J  "
           "(%.2f s)\n",
           x->name, x->failed ? "FAILED" : "ran", x->fail_step, x->max_pen / p.r, x->min_gap / p.r, x->max_solves,
           x->pull_steps, x->violate_steps, x->min_mu, x->min_impulse, x->rack_moved / p.r, x->dE_end, cdyn_clock() - t0);
  }
  if (rc)
    return rc;

  exp_csv csv;
  if ((rc = exp_csv_open(ctx, &csv, "summary", SUMMARY_COLUMNS, NULL,
                         "\"note\": \"one row per run; steps: steps taken successfully; fail_step = steps when the run "
                         "did not fail; max_pen: largest sum of violations (m) after a step; min_gap: smallest "
                         "signed gap over the 77 rows (m); pull_steps, violate_steps: steps in which some solve left a "
                         "pulling multiplier or a violating row; max_solves: most linear solves of one active-set "
                         "problem; max_excess: most solves beyond that problem's inequality rows; events, impulses: "
                         "summed over the run; dE_end = E(end) - E0, dE_max = max |E - E0| (J), KE0 the initial "
                         "kinetic energy; dp_end = |p - p(0) - M g_tilt t| at the end (kg m/s)\"")))
    return rc;
  for (int k = 0; k < nrun && !rc; k++) {
    const run_result *x = &res[k];
    const char *labels[2] = {x->name, x->alg};
    double v[NSUMMARY] = {x->e,
                          x->tilt,
                          (double)x->steps,
                          (double)x->failed,
                          (double)x->fail_step,
                          (double)x->status,
                          (double)x->noconv,
                          x->max_pen,
                          x->max_pen / p.r,
                          x->min_gap,
                          x->min_gap / p.r,
                          (double)x->pull_steps,
                          (double)x->violate_steps,
                          (double)x->max_solves,
                          (double)x->max_excess,
                          (double)x->max_handled,
                          (double)x->max_active,
                          (double)x->events,
                          (double)x->impulses,
                          x->E0,
                          x->dE_end,
                          x->dE_max,
                          x->KE0,
                          x->dp_end,
                          x->min_mu,
                          x->min_impulse,
                          x->rack_moved / p.r};
    rc = exp_csv_row_labels(&csv, labels, 2, v, NSUMMARY);
  }
  {
    int crc = exp_csv_close(&csv, rc == CDYN_OK);
    if (rc || (rc = crc))
      return rc;
  }

  exp_report(ctx,
             "11 balls of r = %g m, m = %g kg, 77 inequality rows (22 walls, 55 pairs); cue at %g m/s; h = %g s, "
             "%ld steps; tau = %g s; tilt %g m/s^2 towards the corner (the -level runs: 0).%s%s%s\n\n"
             "| run | failed | NOCONV steps | max penetration / r | min gap / r | steps with pulls | steps with "
             "violations | min mu (N) | min impulse (N s) | max solves | max excess | events | impulses | "
             "E(end) - E0 (J) | max abs(E - E0) (J) | rack moved / r |\n"
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
             p.r, p.mass, p.speed, ctx->h, ctx->steps, p.tau, p.tilt, *skipped ? " Skipped: " : "",
             skipped, *skipped ? "." : "");
  for (int k = 0; k < nrun; k++) {
    const run_result *x = &res[k];
    char fail[64];
    if (x->failed)
      snprintf(fail, sizeof fail, "at step %ld (status %d)", x->fail_step, x->status);
    else
      snprintf(fail, sizeof fail, "no");
    exp_report(ctx, "| %s | %s | %ld | %.3e | %.3e | %ld | %ld | %.3e | %.3e | %u | %u | %lu | %lu | %.3e | %.3e | %.3g |\n",
               x->name, fail, x->noconv, x->max_pen / p.r, x->min_gap / p.r, x->pull_steps, x->violate_steps,
               x->min_mu, x->min_impulse, x->max_solves, x->max_excess, x->events, x->impulses, x->dE_end, x->dE_max,
               x->rack_moved / p.r);
  }
  exp_report(ctx, "\nThe initial kinetic energy is %.4g J.  A step counts as pulling (or violating) when some solve "
                  "ends with a multiplier below -tol_mu (a w below -tol_w), tolerances relative to that problem's "
                  "largest |b|; where b is itself at rounding level (the level table between impacts) the flags count "
                  "rounding, as the min mu column shows.  For scale: one ball's weight along the tilt is m g_tilt = "
                  "%.3g N, and the cue brings an impulse of m v = %.3g N s.\n\n",
             res[0].KE0, p.mass * p.tilt, p.mass * p.speed);
  for (int k = 0; k < nrun; k++)
    if (!strcmp(res[k].name, "iterative"))
      exp_report(ctx,
                 "The iterative algorithm never removes a handled row.  In the rack a row it has added can be kept "
                 "only by pulling (the apex ball, pushed by the cue, rests on two balls whose normals lie 60 degrees "
                 "either side), so at the impact and under the tilt it holds the rack rigid: most negative impulse "
                 "%.3g N s, most negative multiplier %.3g N, the rack moved %.3g r by the end.  It keeps every gap, "
                 "but partly by pulling contacts, and the break does not happen.  With a restitution below one its "
                 "energy loss is the cue's rebound from an immovable rack.  Between impacts a ball moving freely "
                 "under the tilt loses m h^2 g_tilt^2 / 2 = %.3g J per step (symplectic Euler under a constant "
                 "force): %.3g J over the run for the cue alone.\n\n",
                 res[k].min_impulse, res[k].min_mu, res[k].rack_moved / p.r,
                 0.5 * p.mass * ctx->h * ctx->h * p.tilt * p.tilt,
                 0.5 * p.mass * ctx->h * ctx->h * p.tilt * p.tilt * (double)ctx->steps);

  int ii = -1;
  for (int k = 0; k < nrun; k++)
    if (!strcmp(res[k].name, "iterative"))
      ii = k;
  if (exp_claim_ready(ctx, "billiard.iterative_handles")) {
    const run_result *x = &res[ii];
    char others[2048] = "";
    for (int k = 0; k < nrun; k++)
      if (k != ii)
        snprintf(others + strlen(others), sizeof others - strlen(others), "%s%.63s %.3g%s", *others ? "; " : "",
                 res[k].name, res[k].max_pen / p.r, res[k].failed ? " (failed)" : "");
    rc = exp_judge(ctx, "billiard.iterative_handles",
                   (exp_value[]){{"failures", (double)x->failed}, {"penetration", x->max_pen / p.r}}, 2,
                   "e = %g, tilt %g m/s^2, h = %g s, tau = %g s, %ld steps%s; min gap %.3g r; steps with pulls %ld, "
                   "with violations %ld; most negative multiplier %.3g N and impulse %.3g N s (the cue brings %.3g N "
                   "s): non-penetration is kept partly by pulling contacts, and the rack moved %.3g r by the end; max "
                   "solves per problem %u (max excess over its inequality rows %u); NOCONV steps %ld; max penetration "
                   "/ r of the other runs: %s",
                   x->e, x->tilt, ctx->h, p.tau, x->steps, x->failed ? " (FAILED)" : "", x->min_gap / p.r,
                   x->pull_steps, x->violate_steps, x->min_mu, x->min_impulse, p.mass * p.speed, x->rack_moved / p.r,
                   x->max_solves, x->max_excess, x->noconv, others);
  }
  printf("  billiard: %d runs of %ld steps in %.2f s\n", nrun, ctx->steps, cdyn_clock() - t_start);
  return rc;
}

/* The unit and meaning of the columns it writes (runner/columns.c). */
static const exp_column columns[] = {
  {NULL, "min_gap", "m", "smallest gap over all 77 rows (< 0: penetration)"},
  {NULL, "min_wall_gap", "m", "smallest ball-wall gap"},
  {NULL, "min_pair_gap", "m", "smallest ball-ball gap"},
  {NULL, "penetration", "m", "sum of the violations (cdyn_system_penetration)"},
  {NULL, "px", "kg m/s", "momentum, x"},
  {NULL, "py", "kg m/s", "momentum, y"},
  {NULL, "E", "J", "kinetic energy plus the tilt's potential"},
  {NULL, "substeps", "1", "sub-steps of the step"},
  {NULL, "events", "1", "sub-steps ended at a located activation"},
  {NULL, "impulses", "1", "impulse solves"},
  {NULL, "accel_solves", "1", "acceleration-level problems solved"},
  {NULL, "max_solves", "1", "the most linear solves one problem needed"},
  {NULL, "max_excess", "1", "the most solves above a problem's inequality rows"},
  {NULL, "handled", "1", "rows handled in the step's last acceleration solve"},
  {NULL, "active", "1", "inequality rows with g <= active_tol after the step"},
  {NULL, "pulls", "1", "1 if some solve of the step pulled"},
  {NULL, "violates", "1", "1 if some solve of the step left a violating row"},
  {NULL, "min_mu", "N", "smallest multiplier of the last acceleration solve (< 0 pulls)"},
  {NULL, "min_impulse", "N s", "smallest impulse of the last impulse solve"},
  {NULL, "snap", "1", "snapshot index"},
  {NULL, "ball", "1", "ball index (10 is the cue)"},
  {NULL, "x", "m", "x of the ball"},
  {NULL, "y", "m", "y of the ball"},
  {NULL, "r", "m", "radius"},
  {NULL, "cue", "1", "1 for the cue ball"},
  {NULL, "run", "", "run name: ALG, ALG-e<low> or ALG-level"},
  {NULL, "algorithm", "", "active-set algorithm, or a scheme that enforces inequalities"},
  {NULL, "restitution", "1", "coefficient of restitution"},
  {NULL, "tilt", "m/s^2", "in-plane gravity towards the corner"},
  {NULL, "failed", "1", "1 if a step failed"},
  {NULL, "fail_step", "1", "the failed step (nan if none)"},
  {NULL, "fail_status", "1", "its status"},
  {NULL, "noconv_steps", "1", "steps that returned CDYN_NOCONV"},
  {NULL, "max_pen", "m", "largest total penetration"},
  {NULL, "max_pen_over_r", "1", "the same over r"},
  {NULL, "min_gap_over_r", "1", "smallest gap over r"},
  {NULL, "pull_steps", "1", "steps with a pulling multiplier"},
  {NULL, "violate_steps", "1", "steps with a violating row"},
  {NULL, "max_handled", "1", "most handled rows"},
  {NULL, "max_active", "1", "most active rows"},
  {NULL, "dE_end", "J", "E(end) - E(0)"},
  {NULL, "dE_max", "J", "largest |E - E(0)|"},
  {NULL, "KE0", "J", "initial kinetic energy"},
  {NULL, "dp_end", "kg m/s", "|p - p_free| at the end, p_free = p(0) + M g_tilt t"},
  {NULL, "rack_moved_over_r", "1", "largest displacement of a rack ball at the end, over r"},
  EXP_COLUMNS_END};

const cdyn_experiment cdyn_experiment_billiard = {
  .name = "billiard",
  .description = "11 balls, 77 inequality constraints: a cue ball breaks a rack in a corner (tilted table)",
  .source = "003 fig 6",
  .params = params,
  .columns = columns,
  .check = check,
  .schemes = "",
  .inequalities = 1,
  .algorithm_param = "algorithms",
  .h = 1e-3,
  .steps = 3000,
  .run = run,
};
