/*
 * cloth_contact.c: cloth-contact (001 fig 5, 001 sec. V-A): heavy balls
 * hit a cloth held by two posts; non-penetration constraints keep the
 * cloth out of the balls and out of itself.  And collision-cost: the
 * detector's time per step against the mesh size.
 *
 * The scene (001 gives no numbers: these are choices, all parameters).
 * A square patch of side `size` (1 m), grid x grid nodes (16 x 16), mass
 * 0.5 kg, the springs of cloth-elongation (k = 100 / 20 / 2 N/m, damping
 * 0.02 N s/m), horizontal at y = 0, x and z in [-size/2, size/2].  Two
 * posts hold it: the two middle nodes of the edge x = -size/2 and the two
 * of the edge x = +size/2 are pinned (001's posts, as pins).  Gravity
 * 9.81 m/s^2 along -y.  `balls` (3) balls of radius ball_radius (0.1 m)
 * and mass ball_mass (1 kg each, six times the cloth together) start at
 * x = 0, z = -0.3, 0, 0.3 m, at heights 0.2, 0.4, 0.6 m (so they strike
 * one after another), moving down at ball_speed (3 m/s).  The posts hold
 * the cloth on the line z = 0 only: its halves turn down about it like
 * flaps under the outer balls, which slide off within 0.3 s; the middle
 * ball, on the line, is held longer; the falling halves fold and strike
 * each other (self-collision).  1 s (1000 steps of 1 ms).  (At 1.2 s the
 * run discrete-4h blows up: 7,404 crossings in its first 1.0 s, 691,251
 * in the next 0.2 s, whose exact replay alone takes 11 min; --steps 1200
 * shows it.)  Adaptive strain
 * limiting (lib/cloth/strainlimit.c, eps_max 0.1) stays on.
 *
 * Constraints.  Ball-node: |x_node - c| >= r + delta, one cdyn_ball per
 * ball over every node; ball-ball: |c_i - c_j| >= 2 r (a cdyn_ball of
 * radius 2 r over the other balls).  Cloth-cloth (self-collision
 * included): lib/collision/contacts.c, thickness delta (5 mm), capacity `capacity`,
 * region margin delta, separation speed 1 mm/s, release on any pull.
 * With a scheme that enforces inequalities ("contact": the runs lcp and
 * iterative, the active-set algorithms of 003 on the same rows) every
 * such constraint is an inequality row; with an equality scheme (the run
 * implicit, 001's) they are switched on as equalities and released by
 * their multipliers (lib/cloth/ball.c, lib/collision/contacts.c, mode switch).
 *
 * Runs:
 *   implicit      001's: switched equality constraints, continuous detection;
 *   lcp           scheme contact, exact LCP (activeset = lcp), continuous;
 *   iterative     scheme contact, 003's iterative algorithm, continuous;
 *   lcp-sparse    as lcp, with the contact problems' sub-systems solved
 *                 sparse (subsolve = sparse: A over the candidate rows in
 *                 compressed rows, factored by CHOLMOD through the solver
 *                 interface; lib/activeset/sparse.c): the same contacts to
 *                 rounding, at a cost that follows the candidates' A;
 *   discrete      as implicit, but only proximity at the step's start (no
 *                 CCD): the judged method without continuous detection;
 *   discrete-4h   as discrete, with steps of 4 h (a quarter as many).
 * (The discrete runs use 001's scheme, like the judged run: with the
 * scheme contact at 4 h the dense active-set solves over the strain
 * constraints and the many contacts took 5 s a step, 100 steps in 9 min.)
 * The scheme contact gets tau = `tau` (Baumgarte's time constant, 0.02 s)
 * so that the strain constraints, equality rows at the acceleration
 * level, do not drift.
 *
 * Measures, per step.  The exact check: reference/ccd_replay.c replays
 * the step's motion (linear from the state before the step to the state
 * after it) of every node-triangle and edge-edge pair of the mesh and
 * counts the pairs that touched during it (exactly, GMP), i.e. the
 * crossings the detector let through.  The smallest distance between
 * non-adjacent elements at the step's end, against delta; the ball gap:
 * min over nodes of |x_node - c| - r, against delta.  The violation of a
 * step is max(delta - min distance, delta - ball gap, 0) / delta.
 * Contacts active (node-triangle, edge-edge, ball-node), created,
 * released, and the release delays (lib/collision/contacts.c: step ends between the
 * first at which a contact is seen separating and its release); the
 * time spent in detection (cdyn_contacts_before and _after) and in the
 * step (the solve), in cloth-contact-time.csv, the one file that changes
 * from run to run.  And where the steps' linear algebra goes, from the
 * stepper's statistics, in cloth-contact-solve.csv (also changing from
 * run to run): the assembly of A (implicit: over its rows; the contact
 * runs: over the contact problems' candidate rows, dense after the
 * assembly of the whole A, or sparse), its factorisations and the solves
 * (the active-set solves for the contact runs), per step, beside the
 * mean number of rows in the solves (implicit: its rows; contact: the
 * candidates of the acceleration problem) and of contacts (cloth-cloth
 * contacts and ball-node pairs within the thickness, as counted above).
 *
 * The verdict (claim cloth.contact_no_penetration, rule in claimdefs.c,
 * fixed before the first run): on the run implicit, 001's method, no
 * crossing ever; the largest violation at most half of delta; every
 * release within 2 step ends of the separation's start.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdyn/cloth.h>
#include <cdyn/collision.h>

#include "ccd_replay.h"
#include "experiment.h"

#define MAX_BALLS 8

typedef struct {
  long grid, balls;
  double size, mass, k_struct, k_shear, k_bend, damping, eps_max;
  double radius, ball_mass, speed, delta;
  long capacity;
} cc_spec;

/* The scene (cdyn/scene.h), described in the scene format and read by
   the library's reader (cc_new): the cloth (the cloth generator, with its
   strain limiter and its contact handler), its posts (the generator's
   pins) and the balls after it (a particles generator) are its own; the
   strain limiter, the balls' constraints (ball-node, then ball-ball, ball
   by ball) and the contact handler are its step hooks, so that
   cdyn_scene_step runs them around each step (and repeats a step whose
   motion shows a new contact), and `cdyn export` writes the run. */
typedef struct {
  cdyn_scene *sc;
  cdyn_system *sys; /* the scene's */
  cdyn_contacts *cc; /* the scene's */
  size_t nodes, nb;
  const size_t *tri; /* the patch's (the scene's) */
  size_t ntri;
  double *x0; /* the state before the step, for the replay */
} cc_scene;

static void cc_free(cc_scene *s)
{
  cdyn_scene_free(s->sc);
  free(s->x0);
  memset(s, 0, sizeof *s);
}

static int cc_new(const cc_spec *sp, int inequality, int continuous, cc_scene *s)
{
  memset(s, 0, sizeof *s);
  size_t N = (size_t)sp->grid, nb = (size_t)sp->balls;
  size_t pins[4] = {N * (N / 2 - 1), N * (N / 2), N * (N / 2 - 1) + N - 1, N * (N / 2) + N - 1};
  exp_cloth_material mat = {sp->size, sp->mass, sp->k_struct, sp->k_shear, sp->k_bend, sp->damping};
  char hooks[512];
  snprintf(hooks, sizeof hooks,
           "\"strain_limit\": {\"eps_max\": %.17g}, \"contacts\": {\"thickness\": %.17g, \"mode\": \"%s\", "
           "\"continuous\": %s, \"capacity\": %ld, \"margin\": %.17g}",
           sp->eps_max, sp->delta, inequality ? "inequality" : "switch", continuous ? "true" : "false", sp->capacity,
           sp->delta);
  exp_text t = {0};
  exp_text_puts(&t, "{\"cdyn_scene\": 1, \"name\": \"cloth-contact\", \"gravity\": [0, -9.81, 0], \"generators\": [");
  exp_cloth_generator(&t, &mat, sp->grid, pins, 4, hooks);
  /* The balls: at x = 0, z = -0.3, 0, 0.3 m (evenly for another count),
     heights 0.2, 0.4, 0.6 m, moving down. */
  static const double zs[3] = {-0.3, 0, 0.3};
  exp_text_puts(&t, ", {\"type\": \"particles\", \"particles\": [");
  for (size_t b = 0; b < nb; b++) {
    double c[3] = {0, 0.2 + 0.2 * (double)b, nb <= 3 ? zs[b] : -0.3 + 0.6 * (double)b / (double)(nb - 1)};
    exp_text_printf(&t, "%s{\"x\": [%.17g, %.17g, %.17g], \"v\": [0, %.17g, 0], \"m\": %.17g}", b ? ", " : "", c[0],
                    c[1], c[2], -sp->speed, sp->ball_mass);
  }
  exp_text_puts(&t, "]}], \"balls\": [");
  const char *mode = inequality ? "inequality" : "switch";
  for (size_t b = 0; b < nb; b++) {
    exp_text_printf(&t, "%s{\"ball\": %zu, \"radius\": %.17g, \"thickness\": %.17g, \"mode\": \"%s\", \"nodes\": [",
                    b ? ", " : "", N * N + b, sp->radius, sp->delta, mode);
    for (size_t k = 0; k < N * N; k++)
      exp_text_printf(&t, "%s%zu", k ? ", " : "", k);
    exp_text_puts(&t, "]}");
    if (b + 1 < nb) {
      /* ball-ball: this ball against the later ones. */
      exp_text_printf(&t, ", {\"ball\": %zu, \"radius\": %.17g, \"mode\": \"%s\", \"nodes\": [", N * N + b,
                      2 * sp->radius, mode);
      for (size_t o = b + 1; o < nb; o++)
        exp_text_printf(&t, "%s%zu", o > b + 1 ? ", " : "", N * N + o);
      exp_text_puts(&t, "]}");
    }
  }
  exp_text_puts(&t, "]}");
  int rc = exp_scene_read_text(&t, "cloth-contact", &s->sc);
  exp_text_free(&t);
  if (rc)
    return rc;
  s->sys = cdyn_scene_system(s->sc);
  s->nodes = N * N;
  s->nb = nb;
  s->cc = cdyn_scene_contacts(s->sc);
  cdyn_scene_patch pt;
  if ((rc = cdyn_scene_get_patch(s->sc, 0, &pt)))
    goto fail;
  s->tri = pt.tri;
  s->ntri = pt.ntri;
  if (!(s->x0 = malloc(3 * (s->nodes + nb) * sizeof(double)))) {
    rc = CDYN_ENOMEM;
    goto fail;
  }
  return CDYN_OK;
fail:
  cc_free(s);
  return rc;
}

/* Where a run's time went: the detection (the scene's contact handler,
   before and after each step), the steps (the stepper, repeats
   included), and how many stepper steps a step took in all. */
typedef struct {
  double detect, solve; /* seconds */
  unsigned long steps;  /* stepper steps taken (repeats included) */
} step_cost;

/* Smallest |x_node - c| - r over nodes and balls; the ball-node pairs within r + delta + 1e-9. */
static double ball_gap(const cc_scene *s, double r, double delta, size_t *touching)
{
  const double *q = cdyn_system_positions(s->sys);
  double gap = INFINITY;
  *touching = 0;
  for (size_t b = 0; b < s->nb; b++) {
    const double *c = q + 3 * (s->nodes + b);
    for (size_t i = 0; i < s->nodes; i++) {
      const double *x = q + 3 * i;
      double d = sqrt((x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) + (x[2] - c[2]) * (x[2] - c[2])) - r;
      gap = fmin(gap, d);
      if (d <= delta + 1e-9)
        (*touching)++;
    }
  }
  return gap;
}

/* ---- cloth-contact ------------------------------------------------------------------------------ */

static const exp_param contact_params[] = {
  {"grid", "16", EXP_INT, 4, 128, 0, "nodes along each side of the patch"},
  CLOTH_MATERIAL_PARAMS,
  {"eps_max", "0.1", EXP_REAL, 0, 10, EXP_OPEN_MIN, "elongation limit of the adaptive strain constraints"},
  {"balls", "3", EXP_INT, 1, MAX_BALLS, 0, "number of balls"},
  {"ball_radius", "0.1", EXP_REAL, 0, 1, EXP_OPEN_MIN, "radius of each ball (m)"},
  {"ball_mass", "1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "mass of each ball (kg)"},
  {"ball_speed", "3", EXP_REAL, 0, 100, 0, "initial downward speed of the balls (m/s)"},
  {"thickness", "0.005", EXP_REAL, 0, 1, EXP_OPEN_MIN, "cloth thickness delta (m)"},
  {"capacity", "4096", EXP_INT, 1, 1 << 20, 0, "cloth-cloth contacts reserved"},
  {"tau", "0.02", EXP_REAL, 0, 1e300, 0, "Baumgarte time constant of the scheme contact (s)"},
  {"algorithms", "lcp,iterative", EXP_TEXT, 0, 0, 0, "active-set algorithms run with the scheme contact"},
  {"out_every", "5", EXP_INT, 1, 1e9, 0, "write every this many steps (maxima and sums over them)"},
  {"snapshots", "0.1,0.3,0.6,1.0", EXP_TEXT, 0, 0, 0, "times of the mesh snapshots (s), comma separated"},
  EXP_PARAMS_END};

static const char *const lcp_sparse[] = {"activeset", "lcp", "subsolve", "sparse", NULL};

static const exp_companion contact_companions[] = {
  {"discrete", "implicit", NULL, "as implicit, with proximity detection only (no continuous detection)"},
  {"discrete-4h", "implicit", NULL, "as discrete, at 4 h"},
  {"lcp-sparse", "contact", lcp_sparse,
   "as lcp, with the sub-systems of the contact problems solved sparse (CHOLMOD on A over the candidate rows)"},
  {NULL, NULL, NULL, NULL}};

#define MAX_SNAPS 16


static int contact_check(exp_ctx *ctx)
{
  double ts[MAX_SNAPS];
  int n;
  if (exp_parse_times(exp_param_string(ctx, "snapshots"), "cloth-contact", ts, MAX_SNAPS, &n)) {
    fprintf(stderr, "cdyn run: %s\n", cdyn_errmsg());
    return 2;
  }
  return 0;
}

/* The triangles (corners, and 1 when a cloth-cloth contact holds one of
   its nodes, 2 when a node is at a ball) and the balls. */
static int write_snapshot(exp_csv *mesh, exp_csv *balls, const char *run, int snap, double t, const cc_scene *s,
                          double r, double delta, unsigned char *flag)
{
  const double *q = cdyn_system_positions(s->sys);
  memset(flag, 0, s->nodes);
  for (size_t b = 0; b < s->nb; b++) {
    const double *c = q + 3 * (s->nodes + b);
    for (size_t i = 0; i < s->nodes; i++) {
      const double *x = q + 3 * i;
      double d = sqrt((x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) + (x[2] - c[2]) * (x[2] - c[2]));
      if (d <= r + delta * 1.5)
        flag[i] = 2;
    }
  }
  for (size_t k = 0; k < cdyn_contacts_active(s->cc); k++) {
    cdyn_contact_info in;
    int rc = cdyn_contacts_get(s->cc, k, &in);
    if (rc && rc != CDYN_EDEGENERATE)
      return rc;
    for (int j = 0; j < 4; j++)
      if (in.particles[j] < s->nodes)
        flag[in.particles[j]] = 1;
  }
  char snapbuf[16];
  snprintf(snapbuf, sizeof snapbuf, "%d", snap);
  const char *labels[2] = {run, snapbuf};
  int rc = CDYN_OK;
  for (size_t k = 0; k < s->ntri && !rc; k++) {
    double row[12];
    int f = 0;
    row[0] = (double)k;
    for (int a = 0; a < 3; a++) {
      size_t i = s->tri[3 * k + (size_t)a];
      for (int c = 0; c < 3; c++)
        row[1 + 3 * a + c] = q[3 * i + (size_t)c];
      if (flag[i] == 1 || (flag[i] == 2 && f == 0))
        f = flag[i];
    }
    row[10] = t;
    row[11] = (double)f;
    rc = exp_csv_row_labels(mesh, labels, 2, row, 12);
  }
  for (size_t b = 0; b < s->nb && !rc; b++) {
    double row[6] = {(double)b, q[3 * (s->nodes + b)], q[3 * (s->nodes + b) + 1], q[3 * (s->nodes + b) + 2], r, t};
    rc = exp_csv_row_labels(balls, labels, 2, row, 6);
  }
  return rc;
}

typedef struct {
  long steps, steps_done;
  int failed, status;
  double h;
  unsigned long crossings, exact, degenerate, releases, delay_max, redos, unresolved, created;
  unsigned long parallel, endpoint, redundant; /* pairs found but given no constraint (lib/collision/contacts.c) */
  double delay_mean, violation, min_dist, ball_gap;
  long contacts_max, ball_max;
  double t_detect, t_solve, t_replay; /* per step */
  unsigned long solves;               /* stepper steps (repeats included) */
  double rows_sum, contacts_sum;      /* over the measured steps: rows in the solves, contacts */
  long touch_max;                     /* the most contacts (cloth-cloth and ball-node) at a step's end */
  cdyn_stats stats;                   /* the stepper's, at the run's end */
} run_result;

static const char *const contact_columns =
  "scheme,t,steps,crossings,exact,min_dist,ball_gap,violation,contacts,vf,ee,ball_contacts,created,released,"
  "delay_max,redos,status";

/* What cloth-contact measures after each step of a run (the runner's
   observer): the exact replay of the step's motion (the state before it
   is kept at every observation), the distances, contacts and releases,
   a row (and the times) every `ev` steps and the last, the snapshots. */
typedef struct {
  exp_ctx *ctx;
  const exp_runspec *run;
  run_result *R;
  cc_scene *s;
  exp_csv *series, *tseries, *mesh, *balls;
  unsigned char *flag;
  int ineq; /* the run's scheme enforces inequality rows (contact) */
  double radius, delta, h;
  long steps, ev;
  const double *snaps;
  int nsnap, snap;
  cdyn_contacts_counts cn;
  cdyn_scene_stats last; /* the scene's times at the last observation */
  double replay;         /* s in the replays */
  /* Over the current slice of ev steps: */
  step_cost slice;
  double slice_replay, min_slice, gap_slice, viol_slice;
  unsigned long cross_slice, exact_slice, rel_slice, created_slice;
} contact_obs;

static int contact_observe(void *octx, const exp_state *st)
{
  contact_obs *o = octx;
  cc_scene *s = o->s;
  run_result *R = o->R;
  long k = st->k;
  double delta = o->delta;
  int rc;
  if (k > 0) {
    cdyn_scene_stats now;
    cdyn_scene_stats_get(s->sc, &now);
    o->slice.detect += now.detect - o->last.detect;
    o->slice.solve += now.solve - o->last.solve;
    o->last = now;
    double t0 = cdyn_clock();
    ref_replay_report rp;
    if (ref_replay(s->tri, s->ntri, s->x0, cdyn_system_positions(s->sys), 4 * delta, &rp))
      return cdyn_error(CDYN_ENOMEM, "cloth-contact: the replay failed (out of memory)");
    double dt = cdyn_clock() - t0;
    o->replay += dt, o->slice_replay += dt;
    R->crossings += rp.crossings, o->cross_slice += rp.crossings;
    R->exact += rp.exact, o->exact_slice += rp.exact;
    R->degenerate += rp.degenerate;
    o->min_slice = fmin(o->min_slice, rp.min_dist);
    R->min_dist = fmin(R->min_dist, rp.min_dist);
    if ((rc = cdyn_contacts_counts_get(s->cc, &o->cn)))
      return rc;
    o->rel_slice += o->cn.released;
    o->created_slice += o->cn.created;
    R->created += o->cn.created;
    R->steps_done = k;
  } else {
    cdyn_scene_stats_get(s->sc, &o->last);
  }
  /* The state this step ends at: the next step's start, for its replay. */
  memcpy(s->x0, cdyn_system_positions(s->sys), 3 * (s->nodes + s->nb) * sizeof(double));
  size_t touching = 0;
  double gap = ball_gap(s, o->radius, delta, &touching);
  o->gap_slice = fmin(o->gap_slice, gap);
  R->ball_gap = fmin(R->ball_gap, gap);
  double viol = fmax(0, fmax(delta - o->min_slice, delta - o->gap_slice)) / delta;
  o->viol_slice = fmax(o->viol_slice, viol);
  R->violation = fmax(R->violation, viol);
  if ((long)o->cn.active > R->contacts_max)
    R->contacts_max = (long)o->cn.active;
  if ((long)touching > R->ball_max)
    R->ball_max = (long)touching;
  if (k > 0) {
    /* The rows of the step's solves: the acceleration problem's candidates
       for the scheme contact, the system's rows for the others. */
    cdyn_contact_report cr;
    R->rows_sum += o->ineq && cdyn_stepper_contact_report(st->st, &cr) == CDYN_OK ? (double)cr.accel.candidates
                                                                                 : (double)cdyn_stepper_rows(st->st);
    R->contacts_sum += (double)(o->cn.active + touching);
    if ((long)(o->cn.active + touching) > R->touch_max)
      R->touch_max = (long)(o->cn.active + touching);
  }
  if (k % o->ev == 0 || k == o->steps) {
    double t = (double)k * o->h;
    double row[16] = {t,
                      (double)k,
                      (double)o->cross_slice,
                      (double)o->exact_slice,
                      isfinite(o->min_slice) ? o->min_slice : NAN,
                      o->gap_slice,
                      o->viol_slice,
                      (double)o->cn.active,
                      (double)o->cn.vf,
                      (double)o->cn.ee,
                      (double)touching,
                      (double)o->created_slice,
                      (double)o->rel_slice,
                      (double)o->cn.delay_max,
                      (double)o->cn.redos,
                      0};
    if ((rc = exp_csv_row_labeled(o->series, o->run->name, row, 16)))
      return rc;
    long n = k == 0 ? 1 : (k % o->ev ? k % o->ev : o->ev);
    double trow[4] = {t, o->slice.detect / (double)n, o->slice.solve / (double)n, o->slice_replay / (double)n};
    if ((rc = exp_csv_row_labeled(o->tseries, o->run->name, trow, 4)))
      return rc;
    o->cross_slice = o->exact_slice = o->rel_slice = o->created_slice = 0;
    o->min_slice = o->gap_slice = INFINITY;
    o->viol_slice = 0;
    o->slice.detect = o->slice.solve = 0;
    o->slice_replay = 0;
  }
  if (o->snap < o->nsnap && (double)k * o->h >= o->snaps[o->snap] - 0.5 * o->h) {
    if ((rc = write_snapshot(o->mesh, o->balls, o->run->name, o->snap, (double)k * o->h, s, o->radius, delta, o->flag)))
      return rc;
    o->snap++;
  }
  exp_progress(o->ctx, o->run->name, k, o->steps);
  return CDYN_OK;
}

static int contact_run(exp_ctx *ctx)
{
  cc_spec sp;
  sp.grid = exp_param_long(ctx, "grid");
  sp.balls = exp_param_long(ctx, "balls");
  sp.capacity = exp_param_long(ctx, "capacity");
  exp_param_double(ctx, "size", &sp.size);
  exp_param_double(ctx, "mass", &sp.mass);
  exp_param_double(ctx, "k_struct", &sp.k_struct);
  exp_param_double(ctx, "k_shear", &sp.k_shear);
  exp_param_double(ctx, "k_bend", &sp.k_bend);
  exp_param_double(ctx, "damping", &sp.damping);
  exp_param_double(ctx, "eps_max", &sp.eps_max);
  exp_param_double(ctx, "ball_radius", &sp.radius);
  exp_param_double(ctx, "ball_mass", &sp.ball_mass);
  exp_param_double(ctx, "ball_speed", &sp.speed);
  exp_param_double(ctx, "thickness", &sp.delta);
  long every = exp_param_long(ctx, "out_every");
  double snaps[MAX_SNAPS];
  int nsnap;
  exp_parse_times(exp_param_string(ctx, "snapshots"), "cloth-contact", snaps, MAX_SNAPS, &nsnap);
  double delta = sp.delta;
  exp_csv series, mesh, balls, summ, timing, tseries;
  int rc;
  char extra[512];
  snprintf(extra, sizeof extra,
           "\"note\": \"maxima, minima and sums over the out_every steps ending at t; crossings from the exact "
           "replay (reference/ccd_replay.c)\", \"thickness\": %.17g",
           delta);
  if ((rc = exp_csv_open(ctx, &series, "cloth-contact", contact_columns, NULL, extra)))
    return rc;
  if ((rc = exp_csv_open(ctx, &mesh, "cloth-contact-snapshots", "scheme,snap,tri,x1,y1,z1,x2,y2,z2,x3,y3,z3,t,flag",
                         NULL,
                         "\"note\": \"the mesh at each snapshot time, one row per triangle: flag 1 when a cloth-cloth "
                         "contact holds one of its nodes, 2 when a node touches a ball\""))) {
    exp_csv_close(&series, 0);
    return rc;
  }
  if ((rc = exp_csv_open(ctx, &balls, "cloth-contact-balls", "scheme,snap,ball,x,y,z,radius,t", NULL,
                         "\"note\": \"the balls at each snapshot time\""))) {
    exp_csv_close(&series, 0);
    exp_csv_close(&mesh, 0);
    return rc;
  }
  if ((rc = exp_csv_open(ctx, &tseries, "cloth-contact-time", "scheme,t,detect,solve,replay", NULL,
                         "\"note\": \"wall-clock time per step over the out_every steps ending at t "
                         "(CLOCK_MONOTONIC): the one file of this experiment that changes from run to run\""))) {
    exp_csv_close(&series, 0);
    exp_csv_close(&mesh, 0);
    exp_csv_close(&balls, 0);
    return rc;
  }
  static run_result res[EXP_MAX_RUNS];
  unsigned char *flag = malloc((size_t)(sp.grid * sp.grid));
  if (!flag)
    rc = cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory");
  for (int r = 0; r < ctx->nruns && !rc; r++) {
    const exp_runspec *run = &ctx->runs[r];
    run_result *R = &res[r];
    memset(R, 0, sizeof *R);
    size_t idx;
    int ineq = !cdyn_scheme_find(run->scheme, &idx) && cdyn_scheme_inequalities(idx);
    int continuous = strncmp(run->name, "discrete", 8) != 0;
    int coarse = !strcmp(run->name, "discrete-4h");
    double h = coarse ? 4 * ctx->h : ctx->h;
    long steps = coarse ? ctx->steps / 4 : ctx->steps;
    long ev = coarse ? (every + 3) / 4 : every;
    R->h = h, R->steps = steps;
    R->min_dist = R->ball_gap = INFINITY;
    cc_scene s;
    if ((rc = cc_new(&sp, ineq, continuous, &s)))
      break;
    cdyn_stepper *st;
    if ((rc = exp_stepper_run(ctx, s.sys, run, NULL, &st))) {
      cc_free(&s);
      break;
    }
    /* Room for the pattern of A as contacts come and go (no step allocates). */
    if ((rc = cdyn_stepper_reserve(st, (size_t)1 << 20))) {
      cdyn_stepper_free(st);
      cc_free(&s);
      break;
    }
    contact_obs o = {.ctx = ctx, .run = run, .R = R, .s = &s, .series = &series, .tseries = &tseries, .mesh = &mesh,
                     .balls = &balls, .flag = flag, .radius = sp.radius, .delta = delta, .h = h, .steps = steps,
                     .ev = ev, .snaps = snaps, .nsnap = nsnap, .min_slice = INFINITY, .gap_slice = INFINITY,
                     .ineq = ineq};
    exp_sim sim = {.scene = s.sc, .st = st, .h = h, .steps = steps, .obs = contact_observe, .octx = &o};
    exp_outcome out;
    rc = exp_simulate_with(&sim, &out);
    if (!rc && out.end == EXP_END_FAILED_STEP) {
      R->failed = 1;
      R->status = out.status;
      fprintf(stderr, "  %s: step %ld failed: %s\n", run->name, out.end_step, cdyn_errmsg());
    }
    /* The failed step's share of the detection and the solve. */
    cdyn_scene_stats ss;
    cdyn_scene_stats_get(s.sc, &ss);
    step_cost cost = {ss.detect, ss.solve, ss.stepper_steps};
    double replay_t = o.replay;
    cdyn_contacts_counts cn = o.cn;
    R->releases = cn.total_released;
    R->delay_max = cn.delay_max;
    R->delay_mean = cn.total_released ? (double)cn.delay_sum / (double)cn.total_released : 0;
    R->redos = cn.redos;
    R->unresolved = cn.unresolved;
    R->parallel = cn.parallel;
    R->endpoint = cn.endpoint;
    R->redundant = cn.redundant;
    long done = R->steps_done > 0 ? R->steps_done : 1;
    R->t_detect = cost.detect / (double)done;
    R->t_solve = cost.solve / (double)done;
    R->t_replay = replay_t / (double)done;
    R->solves = cost.steps;
    cdyn_stepper_stats(st, &R->stats);
    printf("  %-12s steps %-5ld crossings %-4lu violation %-8.3g min dist %-9.3g ball gap %-9.3g contacts <= %-5ld "
           "releases %-6lu delay <= %lu (mean %.2f) repeats %-4lu detect %.3g ms solve %.3g ms%s\n",
           run->name, R->steps_done, R->crossings, R->violation, R->min_dist, R->ball_gap, R->contacts_max,
           R->releases, R->delay_max, R->delay_mean, R->redos, 1e3 * R->t_detect, 1e3 * R->t_solve,
           R->failed ? " (failed)" : "");
    cdyn_stepper_free(st);
    cc_free(&s);
  }
  free(flag);
  int c1 = exp_csv_close(&series, rc == CDYN_OK), c2 = exp_csv_close(&mesh, rc == CDYN_OK),
      c3 = exp_csv_close(&balls, rc == CDYN_OK), c4 = exp_csv_close(&tseries, rc == CDYN_OK);
  if (rc || (rc = c1) || (rc = c2) || (rc = c3) || (rc = c4))
    return rc;
  if ((rc = exp_csv_open(ctx, &summ, "cloth-contact-summary",
                         "scheme,h,steps,completed,crossings,exact,degenerate,violation,min_dist,ball_gap,contacts_max,"
                         "ball_max,created,releases,delay_max,delay_mean,redos,unresolved,parallel,endpoint,redundant,"
                         "status",
                         NULL, "\"note\": \"over the whole run\"")))
    return rc;
  for (int r = 0; r < ctx->nruns && !rc; r++) {
    run_result *R = &res[r];
    double row[21] = {R->h, (double)R->steps_done, R->failed ? 0.0 : 1.0, (double)R->crossings, (double)R->exact,
                      (double)R->degenerate, R->violation, isfinite(R->min_dist) ? R->min_dist : NAN, R->ball_gap,
                      (double)R->contacts_max, (double)R->ball_max, (double)R->created, (double)R->releases,
                      (double)R->delay_max, R->delay_mean, (double)R->redos, (double)R->unresolved,
                      (double)R->parallel, (double)R->endpoint, (double)R->redundant, (double)R->status};
    rc = exp_csv_row_labeled(&summ, ctx->runs[r].name, row, 21);
  }
  c1 = exp_csv_close(&summ, rc == CDYN_OK);
  if (rc || (rc = c1))
    return rc;
  if ((rc = exp_csv_open(ctx, &timing, "cloth-contact-cost", "scheme,steps,detect,solve,replay,solves", NULL,
                         "\"note\": \"wall-clock time per step (CLOCK_MONOTONIC, one run): detection (before and "
                         "after), the step's solves (repeats included), the exact replay; changes from run to "
                         "run\"")))
    return rc;
  for (int r = 0; r < ctx->nruns && !rc; r++) {
    double row[5] = {(double)res[r].steps_done, res[r].t_detect, res[r].t_solve, res[r].t_replay,
                     (double)res[r].solves};
    rc = exp_csv_row_labeled(&timing, ctx->runs[r].name, row, 5);
  }
  c1 = exp_csv_close(&timing, rc == CDYN_OK);
  if (rc || (rc = c1))
    return rc;
  if ((rc = exp_csv_open(ctx, &timing, "cloth-contact-solve",
                         "scheme,steps,rows,contacts,contacts_max,assembly,factor,solve,linear,factorizations,analyses,"
                         "solves",
                         NULL,
                         "\"note\": \"the steps' linear algebra from the stepper's statistics (cdyn_stats), wall-clock "
                         "seconds per step (CLOCK_MONOTONIC, one run): assembly of A (the contact runs: over the contact "
                         "problems' candidates, dense after the whole A, or sparse), factorisations, solves (the contact "
                         "runs: the active-set solves, without their sparse factorisations), and linear, their sum; "
                         "factorisations per step and analyses in all, linear solves per step (the contact runs: the active-set "
                         "sub-solves of subsolve=sparse; the dense path's are not counted); rows: mean rows in the solves (the acceleration "
                         "problem's candidates for the contact runs), contacts: mean and most cloth-cloth contacts and "
                         "ball-node pairs at a step's end; changes from run to run\"")))
    return rc;
  for (int r = 0; r < ctx->nruns && !rc; r++) {
    const run_result *R = &res[r];
    double done = R->steps_done > 0 ? (double)R->steps_done : 1.0;
    const cdyn_stats *S = &R->stats;
    double row[11] = {(double)R->steps_done, R->rows_sum / done, R->contacts_sum / done, (double)R->touch_max,
                      S->time_assembly / done, S->time_factor / done, S->time_solve / done,
                      (S->time_assembly + S->time_factor + S->time_solve) / done, (double)S->factorizations / done,
                      (double)S->analyses, (double)S->solves / done};
    rc = exp_csv_row_labeled(&timing, ctx->runs[r].name, row, 11);
  }
  c1 = exp_csv_close(&timing, rc == CDYN_OK);
  if (rc || (rc = c1))
    return rc;

  exp_report(ctx,
             "Cloth %ldx%ld (%g m, %g kg) held by two posts; %ld balls (r = %g m, %g kg each) strike it at %g m/s; "
             "thickness delta = %g m, strain limit %g. h = %g s, %ld steps. Crossings from the exact replay of every "
             "step; violation = max(delta - distance, 0) / delta over cloth-cloth pairs and ball-node pairs; release "
             "delay in steps after separation begins (time per step in cloth-contact-cost.csv):\n\n"
             "| run | h (s) | steps | completed | crossings | exact tests | max violation | min distance (m) | min "
             "ball gap (m) | max contacts | releases | max delay | mean delay | repeats |\n"
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
             sp.grid, sp.grid, sp.size, sp.mass, sp.balls, sp.radius, sp.ball_mass, sp.speed, delta, sp.eps_max,
             ctx->h, ctx->steps);
  for (int r = 0; r < ctx->nruns; r++) {
    run_result *R = &res[r];
    exp_report(ctx, "| %s | %g | %ld | %s | %lu | %lu | %.3g | %.3g | %.3g | %ld | %lu | %lu | %.2f | %lu |\n",
               ctx->runs[r].name, R->h, R->steps_done, R->failed ? "no" : "yes", R->crossings, R->exact,
               R->violation, R->min_dist, R->ball_gap, R->contacts_max, R->releases, R->delay_max, R->delay_mean,
               R->redos);
  }
  exp_report(ctx,
             "\nThe size of the steps' linear solves (their times per step, assembly, factorisations and solves, "
             "are in cloth-contact-solve.csv):\n\n"
             "| run | mean rows | mean contacts | most contacts | factorisations per step | analyses |\n"
             "|---|---|---|---|---|---|\n");
  for (int r = 0; r < ctx->nruns; r++) {
    const run_result *R = &res[r];
    double done = R->steps_done > 0 ? (double)R->steps_done : 1.0;
    exp_report(ctx, "| %s | %.1f | %.2f | %ld | %.3f | %lu |\n", ctx->runs[r].name, R->rows_sum / done,
               R->contacts_sum / done, R->touch_max, (double)R->stats.factorizations / done, R->stats.analyses);
  }
  exp_report(ctx, "\n");
  if (exp_claim_ready(ctx, "cloth.contact_no_penetration")) {
    int ri = exp_run_index(ctx, "implicit"), rl = exp_run_index(ctx, "lcp"), rd = exp_run_index(ctx, "discrete"),
        r4 = exp_run_index(ctx, "discrete-4h");
    run_result *R = &res[ri];
    exp_value v[4] = {{"crossings", R->failed ? INFINITY : (double)R->crossings},
                      {"violation", R->violation},
                      {"release_delay", (double)R->delay_max},
                      {"failed", (double)R->failed}};
    rc = exp_judge(ctx, "cloth.contact_no_penetration", v, 4,
                   "implicit (001's switched constraints, continuous detection): %lu crossings over %ld steps, "
                   "largest violation %.3g delta, releases %lu with delay <= %lu steps; lcp: %lu crossings, "
                   "violation %.3g; discrete only: %lu crossings at h, %lu at 4h",
                   R->crossings, R->steps_done, R->violation, R->releases, R->delay_max,
                   rl >= 0 ? res[rl].crossings : 0, rl >= 0 ? res[rl].violation : NAN, rd >= 0 ? res[rd].crossings : 0,
                   r4 >= 0 ? res[r4].crossings : 0);
  }
  return rc;
}

const cdyn_experiment cdyn_experiment_cloth_contact = {
  .name = "cloth-contact",
  .description = "heavy balls hit a cloth held by two posts: non-penetration constraints from collision detection, "
                 "continuous against discrete, checked by an exact replay",
  .source = "001 fig 5, 001 sec V-A",
  .params = contact_params,
  .check = contact_check,
  .schemes = "implicit",
  .companions = contact_companions,
  .algorithm_param = "algorithms",
  .h = 1e-3,
  .steps = 1000,
  .run = contact_run,
};

/* ---- collision-cost -------------------------------------------------------------------------------- */

/*
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
 * (continuous on) is made once; cdyn_contacts_before(h) and
 * cdyn_contacts_after (the check of the motion taken, here the predicted
 * one: the state is moved to x + h v first) are timed over `reps` calls
 * (the state restored between them), and the exact replay of the same
 * motion (reference/ccd_replay.c: sort and sweep, distance bound, GMP)
 * once, for comparison.  Written: the triangles, the broad-phase pairs,
 * the contacts, the times; the slope of log(time) against log(triangles)
 * is the measured exponent.
 */
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

static int parse_grids(const char *text, long *g, int *n)
{
  *n = 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", text);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    char *end;
    long v = strtol(tok, &end, 10);
    if (*end || v < 2 || v > 1024 || *n == MAX_GRIDS)
      return cdyn_error(CDYN_EINVAL, "collision-cost: grids: '%s' is not a size 2 .. 1024 (at most %d)", tok,
                        MAX_GRIDS);
    g[(*n)++] = v;
  }
  return *n ? CDYN_OK : cdyn_error(CDYN_EINVAL, "collision-cost: grids: none given");
}

static int cost_check(exp_ctx *ctx)
{
  long g[MAX_GRIDS];
  int n;
  if (parse_grids(exp_param_string(ctx, "grids"), g, &n)) {
    fprintf(stderr, "cdyn run: %s\n", cdyn_errmsg());
    return 2;
  }
  return 0;
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
  if ((rc = exp_csv_open(ctx, &out, "collision-cost", "grid,nodes,triangles,candidates,contacts,exact", NULL,
                         "\"note\": \"per mesh: broad-phase pairs and contacts of one detection, pairs the replay "
                         "sent to the exact test\"")))
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
    double row[6] = {(double)N, (double)(N * N), (double)ntri, (double)cn.candidates, (double)cn.active,
                     (double)rp.exact};
    if ((rc = exp_csv_row(&out, row, 6)))
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

const cdyn_experiment cdyn_experiment_collision_cost = {
  .name = "collision-cost",
  .description = "the collision detector's time per step against the mesh size (broad phase, proximity and "
                 "continuous tests), with the exact replay for comparison",
  .source = "001 sec V-A (beyond the paper: the cost of detection)",
  .params = cost_params,
  .check = cost_check,
  .schemes = NULL,
  .h = 1e-3,
  .steps = 0,
  .run = cost_run,
};
