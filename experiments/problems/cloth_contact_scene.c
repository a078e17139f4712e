/*
 * cloth_contact_scene.c: the scene of cloth-contact and
 * cloth-self-contact (001 sec. V-A), their runs and measures.
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
 *   implicit      001's: switched equality constraints, continuous detection,
 *                 one contact per node or edge (reading (a) of 001's rule,
 *                 doc/cloth.md);
 *   stacked       as implicit, several contacts on one node or edge solved
 *                 together (reading (b), the one judged);
 *   merged        (cloth-self-contact) as stacked, with the merge rule
 *                 (doc/cloth.md): a pair whose node or edge a contact
 *                 already pushes within `merge` degrees (45) of its own
 *                 direction adds none;
 *   failsafe      as implicit, with the fail-safe (rigid impact zones,
 *                 lib/collision/failsafe.c) after each step;
 *   lcp           scheme contact, exact LCP (activeset = lcp), continuous;
 *   iterative     scheme contact, 003's iterative algorithm, continuous;
 *   lcp-sparse    as lcp, with the contact problems' sub-systems solved
 *                 sparse (subsolve = sparse: A over the candidate rows in
 *                 compressed rows, factored by CHOLMOD through the solver
 *                 interface; lib/activeset/sparse.c): the same contacts to
 *                 rounding, at a cost that follows the candidates' A;
 *   discrete      as implicit, but only proximity at the step's start (no
 *                 CCD): the judged method without continuous detection;
 *   discrete-failsafe  as discrete, with the fail-safe;
 *   discrete-4h   as discrete, with steps of 4 h (a quarter as many);
 *   admm          the scheme admm: strain limits (tethers) and contacts one-
 *                 sided rows in its step (pins-only schemes get the strain
 *                 limiter in its inequality mode);
 *   *-frame*      a run at the step sp->frame (cloth-self-contact's `frame`,
 *                 1/60 s) over the same time, a row every step.
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
 * counts the pairs that touched during it (exactly: a distance bound, a
 * certified floating-point filter, and GMP for the pairs the filter
 * cannot decide), i.e. the crossings the detector let through; near
 * counts the pairs past the distance bound, filtered those the filter
 * decided, exact those sent to GMP (near = filtered + exact).  A scheme
 * that cuts its steps (contact: at located events) moves through the
 * states at its cuts, which the stepper's sub-step observer reports; the
 * replay follows that path, piece by piece (ref_replay_path: a pair
 * counted once per step if it touches in any piece), from the step's
 * start through the cuts of the step's last attempt (a repeated step
 * starts again) to its end.  A step taken whole is replayed as one
 * straight piece, as before; pieces counts the pieces replayed.  The
 * step a run is ended at by the divergence rule (runner.c: its state past
 * the rule's limits) is not replayed: the run is reported diverged there,
 * and the exact test of a state that far out meets every pair of the mesh
 * (on cloth-self-contact's 64 x 64 cloth, minutes for one step).  The smallest distance between
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
 * The verdict (claim cloth.contact_no_penetration, rule in runner/claims.c,
 * fixed before the first run): on the run stacked, 001's method in the
 * reading of its rule argued in doc/cloth.md, no crossing ever; the
 * largest violation at most half of delta; every release within 2 step
 * ends of the separation's start.  The note gives the run implicit
 * (reading (a)) and the fail-safe run beside it.
 *
 * cloth-self-contact runs the same code on its own scene.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cdyn/cloth.h>
#include <cdyn/collision.h>

#include "ccd_replay.h"
#include "problems/replay_queue.h"
#include "runner/experiment.h"
#include "problems/cloth_contact_scene.h"

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

/* How a run handles its contacts (the contact handler's options). */
typedef struct {
  int none;       /* no contact handler and no balls: the cloth alone (the unconstrained step's cost) */
  int inequality; /* inequality rows (scheme contact) or switched equalities */
  int continuous; /* continuous detection too */
  int stack;      /* switched: several contacts on a node or edge (001's rule, reading b) */
  double merge;   /* stacked: the merge rule's angle (degrees; 0: every pair its own contact) */
  int failsafe;   /* rigid impact zones after each step */
  int pins_only;  /* the scheme enforces pins and inequality rows only: the strain limits as tethers too */
} cc_handling;

static int cc_new(const exp_cc_spec *sp, const cc_handling *hd, cc_scene *s)
{
  memset(s, 0, sizeof *s);
  size_t N = (size_t)sp->grid, nb = (size_t)sp->balls;
  size_t mid[4] = {N * (N / 2 - 1), N * (N / 2), N * (N / 2 - 1) + N - 1, N * (N / 2) + N - 1};
  size_t *pins = malloc(2 * N * sizeof *pins), npins = 0;
  if (!pins)
    return cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory");
  if (sp->self) {
    npins = 0;
  } else if (sp->edge_posts) {
    /* Node k = N r + c lies at x = -size/2 + size c / (N - 1). */
    for (size_t r = 0; r < N; r++)
      pins[npins++] = N * r, pins[npins++] = N * r + N - 1;
  } else {
    memcpy(pins, mid, sizeof mid);
    npins = 4;
  }
  int inequality = hd->inequality;
  exp_cloth_material mat = {sp->size, sp->mass, sp->k_struct, sp->k_shear, sp->k_bend, sp->damping};
  char hooks[512], merge[64] = "";
  if (hd->merge > 0)
    snprintf(merge, sizeof merge, ", \"merge\": %.17g", hd->merge);
  snprintf(hooks, sizeof hooks,
           "\"strain_limit\": {\"eps_max\": %.17g%s}, \"contacts\": {\"thickness\": %.17g, \"mode\": \"%s\", "
           "\"continuous\": %s, \"capacity\": %ld, \"pairs\": %ld, \"margin\": %.17g, \"skin\": %.17g%s%s%s}",
           sp->eps_max, hd->pins_only ? ", \"mode\": \"inequality\"" : "", sp->delta,
           inequality ? "inequality" : "switch", hd->continuous ? "true" : "false",
           sp->capacity, sp->pairs, sp->delta, sp->skin, hd->stack ? ", \"stack\": true" : "", merge, hd->failsafe ? ", \"failsafe\": true" : "");
  exp_text t = {0};
  exp_text_printf(&t, "{\"cdyn_scene\": 1, \"name\": \"%s\", \"gravity\": [0, -9.81, 0], \"generators\": [",
                  sp->name);
  if (hd->none) {
    snprintf(hooks, sizeof hooks, "\"strain_limit\": {\"eps_max\": %.17g%s}", sp->eps_max,
             hd->pins_only ? ", \"mode\": \"inequality\"" : "");
    nb = 0;
  }
  exp_cloth_generator(&t, &mat, sp->grid, pins, npins, hooks);
  free(pins);
  if (sp->self && !hd->none) {
    /* One ball, fixed (pinned where it starts), under the cloth. */
    exp_text_printf(&t, ", {\"type\": \"particles\", \"particles\": [{\"x\": [%.17g, %.17g, %.17g], \"m\": %.17g}]}], "
                    "\"pins\": [{\"i\": %zu}], \"balls\": [{\"ball\": %zu, \"radius\": %.17g, \"thickness\": %.17g, "
                    "\"mode\": \"%s\", \"nodes\": [",
                    sp->offset[0], -sp->radius - sp->drop, sp->offset[1], sp->ball_mass, N * N, N * N, sp->radius,
                    sp->delta, inequality ? "inequality" : "switch");
    for (size_t k = 0; k < N * N; k++)
      exp_text_printf(&t, "%s%zu", k ? ", " : "", k);
    exp_text_puts(&t, "]}]}");
    nb = 1;
    goto read;
  }
  if (hd->none) {
    exp_text_puts(&t, "]}");
    goto read;
  }
  /* The balls: at x = 0, z = -0.3, 0, 0.3 m (evenly for another count),
     heights 0.2, 0.4, 0.6 m, moving down. */
  static const double zs[3] = {-0.3, 0, 0.3};
  exp_text_puts(&t, ", {\"type\": \"particles\", \"particles\": [");
  for (size_t b = 0; b < nb; b++) {
    double w = nb <= 3 ? zs[b] : -0.3 + 0.6 * (double)b / (double)(nb - 1);
    double c[3] = {sp->along_x ? w : 0, sp->ball_height + sp->ball_spacing * (double)b, sp->along_x ? 0 : w};
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
read:;
  int rc = exp_scene_read_text(&t, sp->name, &s->sc);
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

/* Smallest |x_node - c| - r over nodes and balls; the ball-node pairs
   within r + delta + 1e-9; *held: 1 when every ball has a node within
   r + 2 delta (a ball resting on the cloth: its contacts are made within
   the thickness and let go beyond twice it). */
static double ball_gap(const cc_scene *s, double r, double delta, size_t *touching, int *held)
{
  const double *q = cdyn_system_positions(s->sys);
  double gap = INFINITY;
  *touching = 0;
  *held = 1;
  for (size_t b = 0; b < s->nb; b++) {
    const double *c = q + 3 * (s->nodes + b);
    double gb = INFINITY;
    for (size_t i = 0; i < s->nodes; i++) {
      const double *x = q + 3 * i;
      double d = sqrt((x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) + (x[2] - c[2]) * (x[2] - c[2])) - r;
      gap = fmin(gap, d);
      gb = fmin(gb, d);
      if (d <= delta + 1e-9)
        (*touching)++;
    }
    if (!(gb <= 2 * delta))
      *held = 0;
  }
  return gap;
}

#define MAX_SNAPS 16


int exp_cc_check_snapshots(exp_ctx *ctx)
{
  double ts[MAX_SNAPS];
  int n;
  return exp_parse_times(exp_param_string(ctx, "snapshots"), ts, MAX_SNAPS, &n);
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
  unsigned long noconv; /* steps that returned CDYN_NOCONV */
  double h;
  unsigned long crossings, exact, degenerate, releases, delay_max, redos, unresolved, created;
  unsigned long near, filtered; /* pairs past the replay's distance bound, and decided by its filter */
  unsigned long pieces;         /* straight pieces replayed: one per step plus one per sub-step cut */
  long unreplayed;              /* the step the divergence rule ended the run at (not replayed), or 0 */
  unsigned long parallel, endpoint, redundant, merged; /* pairs found but given no constraint (lib/collision/contacts.c) */
  double delay_mean, violation, min_dist, ball_gap;
  long contacts_max, ball_max;
  double t_detect, t_solve, t_replay, t_failsafe, t_free; /* per step; t_free: the unconstrained step */
  double t_free_at; /* per step: the unconstrained step from the run's own states (free_step_at_states) */
  double free_rows; /* the mean rows of those steps (the strain rows its states switch on) */
  unsigned long solves;                           /* stepper steps (repeats included) */
  /* The fail-safe (lib/collision/failsafe.c), over the run: */
  unsigned long held_steps; /* step ends with every ball on the cloth (within 2 delta) */
  unsigned long fs_steps, fs_zones, fs_nodes, fs_frozen, fs_unresolved, fs_passes, fs_reused;
  double fs_impulse, fs_momentum, fs_energy;
  double rows_sum, contacts_sum; /* over the measured steps: rows in the solves, contacts */
  long touch_max;                /* the most contacts (cloth-cloth and ball-node) at a step's end */
  cdyn_stats stats;              /* the stepper's, at the run's end */
  /* For the log: the broad phase's counts (cdyn_contacts_counts), how the
     replay met its pairs (rq_counts), and the steps whose check of the
     motion taken found no pair touching or some (quiet_after,
     touched_after: a fail-safe would have reused the first and worked on
     the second). */
  unsigned long list_builds, list_kept, list_direct, near_queries, tests, cleared, quiet_after, touched_after;
  size_t rq_built, rq_reused, rq_plain;
  int shared; /* its rows are those of the run it shares its simulation with (share_failsafe) */
} run_result;

/* The cloth's mean height: the mean y of its nodes (m). */
static double mean_height(const cc_scene *s)
{
  const double *x = cdyn_system_positions(s->sys);
  double sum = 0;
  for (size_t i = 0; i < s->nodes; i++)
    sum += x[3 * i + 1];
  return sum / (double)s->nodes;
}

/* How a run that did not complete ended, for the claim's note. */
static const char *fail_note(const run_result *R)
{
  return !R->failed ? "" : R->status == CDYN_EDIVERGED ? " (diverged)" : " (a step failed)";
}

static const char *const contact_columns =
  "scheme,t,steps,crossings,exact,min_dist,ball_gap,violation,contacts,vf,ee,ball_contacts,created,released,"
  "delay_max,redos,status,nn,near,filtered,height";

/* The cuts of the current step (the stepper's sub-step observer): the
   positions (3 n each) at the end of every sub-step but the last, of the
   step's latest attempt; a step that starts again (k = 0) empties it. */
typedef struct {
  double *x;
  size_t cap, count, n3;
} cut_path;

static int record_cut(void *ctx, unsigned long k, double t, const double *q)
{
  (void)t;
  cut_path *p = ctx;
  if (k == 0) {
    p->count = 0;
    return CDYN_OK;
  }
  if (p->count == p->cap) {
    /* Past the room made for the scheme's max_substeps (a scheme without
       that option starts with none): grow, outside the library. */
    size_t cap = p->cap ? 2 * p->cap : 8;
    double *x = realloc(p->x, cap * p->n3 * sizeof *x);
    if (!x)
      return cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory for %zu sub-step states", cap);
    p->x = x, p->cap = cap;
  }
  memcpy(p->x + p->count * p->n3, q, p->n3 * sizeof *q);
  p->count++;
  return CDYN_OK;
}

/*
 * The unconstrained step at the run's own states.  A step of a run in
 * contact pays for the cloth's own solve besides its contacts: a draped
 * cloth switches on thousands of strain rows, which the same cloth would
 * solve without contacts too.  The unconstrained step of the run's first
 * 100 steps (free_step_cost) is a cloth falling from rest, with none of
 * them.  So the contacts' cost is also measured against the same cloth at
 * the run's own states: S states evenly spaced over the run's steps, at
 * the middles of S equal parts (step k_j = (2 j + 1) steps / (2 S), j = 0
 * .. S - 1), S = steps / 20 within [1, FREE_SAMPLES]: one state per 20
 * steps, 5 steps of the cloth alone each, so that a frame-step run (120
 * steps, each about as costly alone as the run's own solve) spends a
 * quarter of its count of steps here and a run of 2000 steps a twentieth.
 * The state a step the divergence rule ends the run at leaves is not
 * taken; the cloth's positions and velocities are copied.  From each, the
 * cloth alone (no contacts, no balls) under the run's scheme takes one
 * step untimed (its strain limit switches its rows for that state, and the
 * stepper's caches meet the new pattern, as they would in a run of its
 * own), then FREE_TIMED steps, each timed; t_free_at is the time per timed
 * step over all of them.
 */
#define FREE_SAMPLES 20
#define FREE_TIMED 4

typedef struct {
  double *q, *v; /* S x n3 each: the states taken */
  size_t n3;     /* the cloth's coordinates (its particles come first in the run's system) */
  long steps;    /* the run's steps */
  int S, count;  /* states planned, taken */
} free_samples;

static int samples_new(free_samples *f, size_t n3, long steps)
{
  memset(f, 0, sizeof *f);
  f->n3 = n3, f->steps = steps;
  long S = steps / 20;
  f->S = S < 1 ? 1 : S > FREE_SAMPLES ? FREE_SAMPLES : (int)S;
  f->q = malloc((size_t)f->S * n3 * sizeof *f->q);
  f->v = malloc((size_t)f->S * n3 * sizeof *f->v);
  if (!f->q || !f->v) {
    free(f->q), free(f->v);
    f->q = f->v = NULL;
    return cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory for the unconstrained step's states");
  }
  return CDYN_OK;
}

static void samples_free(free_samples *f)
{
  free(f->q), free(f->v);
  f->q = f->v = NULL;
}

/* Take the state after step k when it is the next one planned (steps / S >= 1
   apart, so each k meets at most one). */
static void take_sample(free_samples *f, long k, const cdyn_system *sys)
{
  if (f->count >= f->S || k != (long)((2LL * f->count + 1) * f->steps / (2LL * f->S)))
    return;
  memcpy(f->q + (size_t)f->count * f->n3, cdyn_system_positions(sys), f->n3 * sizeof *f->q);
  memcpy(f->v + (size_t)f->count * f->n3, cdyn_system_velocities(sys), f->n3 * sizeof *f->v);
  f->count++;
}

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
  cut_path *cuts;        /* the step's cuts */
  free_samples *fs;      /* the states the unconstrained step is timed from */
  const double **states; /* room for the step's path: start, cuts, end */
  size_t nstates;
  rq *q;                 /* the replays, on their own thread (problems/replay_queue.h) */
  int open_slice;        /* steps observed since the last row */
  double replay;         /* s in the replays */
  /* Over the current slice of ev steps: */
  step_cost slice;
  double slice_replay, min_slice, gap_slice, viol_slice;
  unsigned long cross_slice, exact_slice, near_slice, filtered_slice, rel_slice, created_slice;
} contact_obs;

/* A replay's report, summed in as it would have been after its step. */
static void take_replay(void *ctx, const ref_replay_report *rp, double seconds)
{
  contact_obs *o = ctx;
  run_result *R = o->R;
  o->replay += seconds, o->slice_replay += seconds;
  R->crossings += rp->crossings, o->cross_slice += rp->crossings;
  R->exact += rp->exact, o->exact_slice += rp->exact;
  R->near += rp->near, o->near_slice += rp->near;
  R->filtered += rp->filtered, o->filtered_slice += rp->filtered;
  R->degenerate += rp->degenerate;
  o->min_slice = fmin(o->min_slice, rp->min_dist);
  R->min_dist = fmin(R->min_dist, rp->min_dist);
}

/* Every replay handed over, summed in. */
static int flush_replays(contact_obs *o)
{
  if (rq_flush(o->q, take_replay, o))
    return cdyn_error(CDYN_ENOMEM, "cloth-contact: the replay failed (out of memory)");
  return CDYN_OK;
}

/* The violation of the slice: max over its steps of max(delta - the
   smallest distance, delta - the smallest ball gap, 0) / delta, the
   smallest so far in the slice at each step.  Both only fall within the
   slice, so the largest is the one at its last step, taken here (once
   its replays are in). */
static void close_slice(contact_obs *o)
{
  double delta = o->delta;
  double viol = fmax(0, fmax(delta - o->min_slice, delta - o->gap_slice)) / delta;
  o->viol_slice = fmax(o->viol_slice, viol);
  o->R->violation = fmax(o->R->violation, viol);
}

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
    /* The step's path: its start, the cuts of its last attempt, its end
       (two states, a straight piece, for a step taken whole). */
    const cut_path *cp = o->cuts;
    if (cp->count + 2 > o->nstates) {
      const double **st2 = realloc(o->states, (cp->count + 2) * sizeof *st2);
      if (!st2)
        return cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory");
      o->states = st2, o->nstates = cp->count + 2;
    }
    size_t nx = 0;
    o->states[nx++] = s->x0;
    for (size_t c = 0; c < cp->count; c++)
      o->states[nx++] = cp->x + c * cp->n3;
    o->states[nx++] = cdyn_system_positions(s->sys);
    if (st->diverging) {
      /* The step the divergence rule ends the run at is not replayed: its
         end is past the rule's limits, where every swept box meets every
         other and the exact test of all those pairs is the whole cost of
         the run (the run is reported diverged at this step). */
      R->unreplayed = k;
    } else {
      int pr = rq_push(o->q, o->states, nx);
      if (pr == RQ_FULL && (rc = flush_replays(o)))
        return rc;
      if (pr == RQ_FULL)
        pr = rq_push(o->q, o->states, nx);
      if (pr)
        return cdyn_error(CDYN_ENOMEM, "cloth-contact: the replay failed (out of memory)");
      R->pieces += nx - 1;
    }
    o->open_slice = 1;
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
  if (k == 0 || !st->diverging)
    take_sample(o->fs, k, s->sys);
  size_t touching = 0;
  int held;
  double gap = ball_gap(s, o->radius, delta, &touching, &held);
  if (k > 0)
    R->held_steps += (unsigned long)held;
  o->gap_slice = fmin(o->gap_slice, gap);
  R->ball_gap = fmin(R->ball_gap, gap);
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
    if ((rc = flush_replays(o)))
      return rc;
    close_slice(o);
    double t = (double)k * o->h;
    double row[20] = {t,
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
                      0,
                      (double)o->cn.nn,
                      (double)o->near_slice,
                      (double)o->filtered_slice,
                      mean_height(s)};
    if ((rc = exp_csv_row_labeled(o->series, o->run->name, row, 20)))
      return rc;
    long n = k == 0 ? 1 : (k % o->ev ? k % o->ev : o->ev);
    double trow[4] = {t, o->slice.detect / (double)n, o->slice.solve / (double)n, o->slice_replay / (double)n};
    if ((rc = exp_csv_row_labeled(o->tseries, o->run->name, trow, 4)))
      return rc;
    o->cross_slice = o->exact_slice = o->near_slice = o->filtered_slice = o->rel_slice = o->created_slice = 0;
    o->min_slice = o->gap_slice = INFINITY;
    o->viol_slice = 0;
    o->slice.detect = o->slice.solve = 0;
    o->slice_replay = 0;
    o->open_slice = 0;
  }
  if (o->snap < o->nsnap && (double)k * o->h >= o->snaps[o->snap] - 0.5 * o->h) {
    if ((rc = write_snapshot(o->mesh, o->balls, o->run->name, o->snap, (double)k * o->h, s, o->radius, delta, o->flag)))
      return rc;
    o->snap++;
  }
  exp_progress(o->ctx, o->run->name, k, o->steps);
  return CDYN_OK;
}

/* The cloth alone for the unconstrained step: the same cloth (springs,
   strain limit; a pins-only scheme's strain limit in its inequality
   mode, as in its runs) with no contact handler and no balls, and a
   stepper of the run's scheme on it. */
static int free_cloth(exp_ctx *ctx, const exp_cc_spec *sp, const exp_runspec *run, cc_scene *s, cdyn_stepper **st)
{
  size_t idx;
  cc_handling none = {.none = 1, .pins_only = !cdyn_scheme_find(run->scheme, &idx) && cdyn_scheme_pins_only(idx)};
  int rc = cc_new(sp, &none, s);
  if (rc)
    return rc;
  if ((rc = exp_stepper_run(ctx, s->sys, run, NULL, st)))
    cc_free(s);
  return rc;
}

/* The unconstrained step from the run's start: the cloth alone
   (free_cloth), `steps` steps of h; *t gets the wall-clock time per
   step. */
static int free_step_cost(exp_ctx *ctx, const exp_cc_spec *sp, const exp_runspec *run, double h, long steps, double *t)
{
  cc_scene s;
  cdyn_stepper *st;
  int rc = free_cloth(ctx, sp, run, &s, &st);
  if (rc)
    return rc;
  double t0 = cdyn_clock();
  long k = 0;
  while (k < steps && !cdyn_scene_step(s.sc, st, h))
    k++;
  *t = k ? (cdyn_clock() - t0) / (double)k : NAN;
  cdyn_stepper_free(st);
  cc_free(&s);
  return CDYN_OK;
}

/* The unconstrained step from the states f took (see free_samples): *t the
   wall-clock time per timed step, *rows their mean rows (NAN when none was
   taken). */
static int free_step_at_states(exp_ctx *ctx, const exp_cc_spec *sp, const exp_runspec *run, double h,
                               const free_samples *f, double *t, double *rows)
{
  *t = *rows = NAN;
  if (!f->count)
    return CDYN_OK;
  cc_scene s;
  cdyn_stepper *st;
  int rc = free_cloth(ctx, sp, run, &s, &st);
  if (rc)
    return rc;
  double sum = 0, nrows = 0;
  long timed = 0;
  for (int j = 0; j < f->count && !rc; j++) {
    if ((rc = cdyn_system_set_state(s.sys, f->q + (size_t)j * f->n3, f->v + (size_t)j * f->n3)) ||
        (rc = cdyn_stepper_reset(st)))
      break;
    /* A step that fails (a state the cloth alone cannot step from) ends
       that state's steps; its time is not counted. */
    int bad = cdyn_scene_step(s.sc, st, h) != CDYN_OK;
    for (int k = 0; k < FREE_TIMED && !bad; k++) {
      double t0 = cdyn_clock();
      bad = cdyn_scene_step(s.sc, st, h) != CDYN_OK;
      if (!bad)
        sum += cdyn_clock() - t0, timed++, nrows += (double)cdyn_stepper_rows(st);
    }
    if (bad)
      cdyn_error_clear();
  }
  if (!rc && timed)
    *t = sum / (double)timed, *rows = nrows / (double)timed;
  cdyn_stepper_free(st);
  cc_free(&s);
  return rc;
}

/* One run's output while it runs (run_sink): its rows of the four files
   written as it goes (series, snapshots, balls, times), in memory, and its
   log lines (out: stdout, err: stderr); exp_cc_run writes them in the
   order of the runs, whichever process ran them and whenever. */
typedef struct {
  exp_csv csv[4];     /* the files' own, writing to memory */
  FILE *out, *err;
  char *buf[6];       /* the four files' rows, out, err */
  size_t len[6];
  int failed;         /* a row was refused (its csv's failed) */
} run_sink;

static int sink_open(run_sink *k, exp_csv *const *files)
{
  memset(k, 0, sizeof *k);
  FILE **f[6] = {&k->csv[0].file.f, &k->csv[1].file.f, &k->csv[2].file.f, &k->csv[3].file.f, &k->out, &k->err};
  for (int i = 0; i < 4; i++)
    k->csv[i] = *files[i];
  for (int i = 0; i < 6; i++)
    if (!(*f[i] = open_memstream(&k->buf[i], &k->len[i]))) {
      for (int j = 0; j < i; j++)
        fclose(*f[j]);
      for (int j = 0; j < 6; j++)
        free(k->buf[j]), k->buf[j] = NULL;
      return cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory for a run's output");
    }
  return CDYN_OK;
}

/* Close the streams: the buffers hold what was written. */
static int sink_close(run_sink *k)
{
  FILE *f[6] = {k->csv[0].file.f, k->csv[1].file.f, k->csv[2].file.f, k->csv[3].file.f, k->out, k->err};
  int bad = 0;
  for (int i = 0; i < 6; i++)
    bad |= f[i] && fclose(f[i]) != 0;
  for (int i = 0; i < 4; i++)
    k->failed |= k->csv[i].failed, k->csv[i].file.f = NULL;
  k->out = k->err = NULL;
  return bad ? cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory for a run's output") : CDYN_OK;
}

static void sink_free(run_sink *k)
{
  for (int i = 0; i < 6; i++)
    free(k->buf[i]), k->buf[i] = NULL, k->len[i] = 0;
}

/* A run's lines in the log: its measures, its broad phase, its replay
   and (failsafe: a run with the fail-safe) the fail-safe's work. */
static void log_run(FILE *out, const char *name, const run_result *R, int failsafe)
{
  fprintf(out, "  %-12s steps %-5ld crossings %-4lu violation %-8.3g min dist %-9.3g ball gap %-9.3g contacts <= %-5ld "
         "releases %-6lu delay <= %lu (mean %.2f) repeats %-4lu detect %.3g ms solve %.3g ms%s\n",
         name, R->steps_done, R->crossings, R->violation, R->min_dist, R->ball_gap, R->contacts_max,
         R->releases, R->delay_max, R->delay_mean, R->redos, 1e3 * R->t_detect, 1e3 * R->t_solve,
         R->failed ? (R->status == CDYN_EDIVERGED ? " (diverged)" : " (failed)") : "");
  fprintf(out, "  %-12s broad phase: %lu candidate lists found, %lu motions answered from a kept list, %lu from the "
         "hierarchies, %lu queries from the pairs of the motion's prediction; %lu pair tests, %lu cleared by distance\n",
         name, R->list_builds, R->list_kept, R->list_direct, R->near_queries, R->tests, R->cleared);
  fprintf(out, "  %-12s replay: %zu steps met their pairs by a grid whose pairs were kept, %zu by pairs kept from an "
         "earlier step, %zu by a grid alone\n", name, R->rq_built, R->rq_reused, R->rq_plain);
  if (failsafe)
    fprintf(out, "  %-12s fail-safe: %lu steps changed, %lu zones (%lu frozen), %lu passes, impulse %.3g N s, momentum "
           "%.3g N s, energy removed %.3g J, unresolved %lu, %.3g ms a step\n",
           name, R->fs_steps, R->fs_zones, R->fs_frozen, R->fs_passes, R->fs_impulse, R->fs_momentum,
           R->fs_energy, R->fs_unresolved, 1e3 * R->t_failsafe);
}

/* Run r's step *h, its steps *steps and its rows every *ev steps: the
   experiment's, but for discrete-4h (4 h) and the runs named *-frame (the
   same time at the step sp->frame, a row every step it spans). */
static void run_steps(const exp_ctx *ctx, const exp_cc_spec *sp, int r, long every, double *h, long *steps, long *ev)
{
  const char *name = ctx->runs[r].name;
  int coarse = !strcmp(name, "discrete-4h");
  int framed = sp->frame > 0 && strstr(name, "-frame") != NULL;
  *h = coarse ? 4 * ctx->h : ctx->h;
  *steps = coarse ? ctx->steps / 4 : ctx->steps;
  *ev = coarse ? (every + 3) / 4 : every;
  if (framed) {
    *h = sp->frame;
    *steps = lround((double)ctx->steps * ctx->h / *h);
    *ev = lround((double)every * ctx->h / *h);
    if (*steps < 1)
      *steps = 1;
    if (*ev < 1)
      *ev = 1;
  }
}

/* Run r of ctx on the scene sp into *R, its output into k. */
static int cc_one_run(exp_ctx *ctx, const exp_cc_spec *sp0, int r, long every, const double *snaps, int nsnap,
                      unsigned char *flag, run_result *R, run_sink *k)
{
  exp_cc_spec sp = *sp0;
  double delta = sp.delta;
  const exp_runspec *run = &ctx->runs[r];
  memset(R, 0, sizeof *R);
  int rc = CDYN_OK;
  size_t idx;
  cc_handling hd = {.inequality = !cdyn_scheme_find(run->scheme, &idx) && cdyn_scheme_inequalities(idx),
                    .continuous = strncmp(run->name, "discrete", 8) != 0,
                    .stack = !strcmp(run->name, "stacked") || !strcmp(run->name, "merged"),
                    .merge = !strcmp(run->name, "merged") ? sp.merge : 0,
                    .failsafe = strstr(run->name, "failsafe") != NULL,
                    .pins_only = !cdyn_scheme_find(run->scheme, &idx) && cdyn_scheme_pins_only(idx)};
  double h;
  long steps, ev;
  run_steps(ctx, &sp, r, every, &h, &steps, &ev);
  R->h = h, R->steps = steps;
  R->min_dist = R->ball_gap = INFINITY;
  cc_scene s;
  if ((rc = cc_new(&sp, &hd, &s)))
    return rc;
  cdyn_stepper *st;
  if ((rc = exp_stepper_run(ctx, s.sys, run, NULL, &st))) {
    cc_free(&s);
    return rc;
  }
  /* Room for the pattern of A as contacts come and go (no step allocates). */
  if ((rc = cdyn_stepper_reserve(st, (size_t)1 << 20))) {
    cdyn_stepper_free(st);
    cc_free(&s);
    return rc;
  }
  /* The sub-steps' states, for the replay: room for max_substeps cuts
     when the scheme has that option (contact), else none until one
     comes. */
  cut_path cuts = {NULL, 0, 0, 3 * (s.nodes + s.nb)};
  char buf[64];
  if (!cdyn_stepper_get(st, "max_substeps", buf, sizeof buf)) {
    long ms = strtol(buf, NULL, 10);
    if (ms > 0 && ms <= 4096 && !(cuts.x = malloc((size_t)ms * cuts.n3 * sizeof *cuts.x)))
      rc = cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory");
    else if (cuts.x)
      cuts.cap = (size_t)ms;
  }
  if (rc || (rc = cdyn_stepper_set_substep_observer(st, record_cut, &cuts))) {
    free(cuts.x);
    cdyn_stepper_free(st);
    cc_free(&s);
    return rc;
  }
  free_samples fsm;
  if ((rc = samples_new(&fsm, 3 * s.nodes, steps))) {
    free(cuts.x);
    cdyn_stepper_free(st);
    cc_free(&s);
    return rc;
  }
  contact_obs o = {.ctx = ctx, .run = run, .R = R, .s = &s, .series = &k->csv[0], .tseries = &k->csv[3], .fs = &fsm,
                   .mesh = &k->csv[1], .balls = &k->csv[2], .flag = flag, .radius = sp.radius, .delta = delta, .h = h, .steps = steps,
                   .ev = ev, .snaps = snaps, .nsnap = nsnap, .min_slice = INFINITY, .gap_slice = INFINITY,
                   .cuts = &cuts, .ineq = hd.inequality,
                   .q = rq_new(s.tri, s.ntri, 3 * (s.nodes + s.nb), 4 * delta, (size_t)(ev < 64 ? ev : 64))};
  if (!o.q) {
    samples_free(&fsm);
    free(cuts.x);
    cdyn_stepper_free(st);
    cc_free(&s);
    return cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory");
  }
  exp_sim sim = {.scene = s.sc, .st = st, .h = h, .steps = steps, .obs = contact_observe, .octx = &o};
  exp_outcome out = {0};
  rc = exp_simulate_with(&sim, &out);
  R->noconv = out.noconv;
  /* The replays of a run that ended within a slice (a failed step). */
  if (!rc)
    rc = flush_replays(&o);
  if (!rc && o.open_slice)
    close_slice(&o);
  if (!rc && out.end == EXP_END_FAILED_STEP) {
    R->failed = 1;
    R->status = out.status;
    fprintf(k->err, "  %s: step %ld failed: %s\n", run->name, out.end_step, cdyn_errmsg());
  }
  /* A run the divergence rule ended did not complete either. */
  if (!rc && out.end == EXP_END_DIVERGED) {
    R->failed = 1;
    R->status = out.status;
    fprintf(k->err, "  %s: diverged: %s%s\n", run->name, out.reason,
            R->unreplayed ? " (that step is not replayed)" : "");
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
  R->merged = cn.merged;
  R->fs_steps = cn.fs_steps, R->fs_zones = cn.fs_zones, R->fs_nodes = cn.fs_nodes, R->fs_frozen = cn.fs_frozen;
  R->fs_unresolved = cn.fs_unresolved, R->fs_passes = cn.fs_passes, R->fs_reused = cn.fs_reused;
  R->fs_impulse = cn.fs_impulse, R->fs_momentum = cn.fs_momentum, R->fs_energy = cn.fs_energy;
  long done = R->steps_done > 0 ? R->steps_done : 1;
  /* The fail-safe runs inside the handler's after: its time is its own. */
  R->t_failsafe = cn.fs_seconds / (double)done;
  cost.detect -= cn.fs_seconds;
  R->t_detect = cost.detect / (double)done;
  R->t_solve = cost.solve / (double)done;
  R->t_replay = replay_t / (double)done;
  R->solves = cost.steps;
  cdyn_stepper_stats(st, &R->stats);
  R->list_builds = cn.list_builds, R->list_kept = cn.list_kept, R->list_direct = cn.list_direct;
  R->near_queries = cn.near_queries, R->tests = cn.tests, R->cleared = cn.cleared;
  R->quiet_after = cn.quiet_after, R->touched_after = cn.touched_after;
  rq_counts(o.q, &R->rq_built, &R->rq_reused, &R->rq_plain);
  log_run(k->out, run->name, R, hd.failsafe);
  cdyn_stepper_free(st);
  cc_free(&s);
  free(cuts.x);
  free(o.states);
  rq_free(o.q);
  if (!rc)
    rc = free_step_cost(ctx, &sp, run, h, steps < 100 ? steps : 100, &R->t_free);
  if (!rc)
    rc = free_step_at_states(ctx, &sp, run, h, &fsm, &R->t_free_at, &R->free_rows);
  samples_free(&fsm);
  return rc; /* an error of the run itself (not a failed step): the experiment fails */
}

/* A worker's record of a run for the process that writes the files. */
typedef struct {
  int r, rc;
  run_result R;
  size_t len[6];
  char msg[512];
} run_record;

static int write_all(FILE *f, const void *p, size_t n) { return n == 0 || fwrite(p, 1, n, f) == n; }

/* Read a worker's records from f into res and outs (done[r] set). */
static int read_records(FILE *f, run_result *res, run_sink *outs, unsigned char *done, int nruns, int *wrc)
{
  run_record rec;
  while (fread(&rec, sizeof rec, 1, f) == 1) {
    if (rec.r == -1) { /* the worker's tally of its simulations */
      size_t n = exp_watch_size();
      void *t = rec.len[0] == n ? malloc(n) : NULL;
      if (!t || fread(t, 1, n, f) != n) {
        free(t);
        return cdyn_error(CDYN_EIO, "cloth-contact: a worker's tally is cut short");
      }
      exp_watch_merge(t);
      free(t);
      continue;
    }
    if (rec.r < 0 || rec.r >= nruns)
      return cdyn_error(CDYN_EIO, "cloth-contact: a worker's record names run %d", rec.r);
    run_sink *k = &outs[rec.r];
    for (int i = 0; i < 6; i++) {
      k->len[i] = rec.len[i];
      if (!(k->buf[i] = malloc(rec.len[i] + 1)))
        return cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory");
      if (rec.len[i] && fread(k->buf[i], 1, rec.len[i], f) != rec.len[i])
        return cdyn_error(CDYN_EIO, "cloth-contact: a worker's record of run %d is cut short", rec.r);
    }
    res[rec.r] = rec.R;
    done[rec.r] = 1;
    if (rec.rc && !*wrc) {
      *wrc = rec.rc;
      cdyn_error(rec.rc, "%s", rec.msg);
    }
  }
  return ferror(f) ? cdyn_error(CDYN_EIO, "cloth-contact: reading a worker's records") : CDYN_OK;
}

/*
 * The run failsafe as the run implicit's simulation (cloth-self-contact's
 * share_failsafe, on by default).  The two runs differ only by the
 * fail-safe after each step, and the fail-safe acts only after a step
 * whose check of the motion taken (the handler's own, which both runs
 * make) found a pair touching: after every other step it reuses that check
 * and changes nothing (lib/collision/failsafe.c).  So when no step of
 * implicit was left with a pair touching (its touched_after is 0), the run
 * failsafe would take the same states, contacts and solves, bit for bit,
 * and its replay would replay the same motion: its rows are implicit's,
 * its fail-safe counts those of a fail-safe that reused the check after
 * each of those steps (fs_reused = quiet_after, nothing else), and only its
 * unconstrained step over the first 100 steps is measured again (the one
 * from the run's own states is implicit's: the same states and scheme).  Otherwise (a step left touching,
 * a failed run, a message on stderr) failsafe is simulated on its own.
 * The pair must be the two runs of one scheme with the same options (no
 * --set for failsafe alone), and no capture on (cdyn export records each
 * run's own scene).  tests/experiments/test_cloth_experiments.c checks
 * that share_failsafe = 0 gives the same bytes.
 */
static int share_pair(const exp_ctx *ctx, const exp_cc_spec *sp, int *ri, int *rf)
{
  *ri = *rf = -1;
  int i = exp_run_index(ctx, "implicit"), f = exp_run_index(ctx, "failsafe");
  if (!sp->share || exp_capture_on() || i < 0 || f < 0)
    return 0;
  const exp_runspec *a = &ctx->runs[i], *b = &ctx->runs[f];
  if (strcmp(a->scheme, b->scheme))
    return 0;
  for (const char *const *x = a->overrides, *const *y = b->overrides;;) {
    const char *u = x ? *x : NULL, *v = y ? *y : NULL;
    if (!u || !v) {
      if (u || v)
        return 0;
      break;
    }
    if (strcmp(u, v))
      return 0;
    x++, y++;
  }
  for (int k = 0; k < ctx->nsets; k++)
    if (ctx->sets[k].scheme && !strcmp(ctx->sets[k].scheme, b->name))
      return 0;
  *ri = i, *rf = f;
  return 1;
}

/* buf (len bytes) with each line's first field `from` made `to`, into
   *out (malloc'd; *out NULL when a line does not start with from and a
   comma). */
static int relabel(const char *buf, size_t len, const char *from, const char *to, char **out, size_t *olen)
{
  size_t nf = strlen(from), nt = strlen(to), lines = 0;
  *out = NULL, *olen = 0;
  for (size_t p = 0; p < len; p++)
    lines += buf[p] == '\n';
  char *o = malloc(len + lines * (nt > nf ? nt - nf : 0) + 1), *w = o;
  if (!o)
    return cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory");
  for (size_t p = 0; p < len;) {
    const char *nl = memchr(buf + p, '\n', len - p);
    size_t end = nl ? (size_t)(nl - buf) + 1 : len;
    if (end - p <= nf || memcmp(buf + p, from, nf) || buf[p + nf] != ',') {
      free(o);
      return CDYN_OK;
    }
    memcpy(w, to, nt);
    memcpy(w + nt, buf + p + nf, end - p - nf);
    w += nt + end - p - nf;
    p = end;
  }
  *w = '\0';
  *out = o, *olen = (size_t)(w - o);
  return CDYN_OK;
}

/* Run rf as run ri's simulation, if it may be (see share_pair): *R and k
   from Ri and ki, *shared 1; else *shared 0 and nothing done. */
static int share_run(exp_ctx *ctx, const exp_cc_spec *sp, int ri, int rf, const run_result *Ri, const run_sink *ki,
                     run_result *R, run_sink *k, int *shared)
{
  *shared = 0;
  if (Ri->failed || Ri->touched_after || ki->len[5] || ki->failed)
    return CDYN_OK;
  const char *from = ctx->runs[ri].name, *to = ctx->runs[rf].name;
  run_sink t;
  memset(&t, 0, sizeof t);
  for (int i = 0; i < 4; i++) {
    int rc = relabel(ki->buf[i] ? ki->buf[i] : "", ki->len[i], from, to, &t.buf[i], &t.len[i]);
    if (rc || !t.buf[i]) {
      sink_free(&t);
      return rc;
    }
  }
  *R = *Ri;
  R->fs_reused = Ri->quiet_after;
  R->shared = 1;
  int rc = free_step_cost(ctx, sp, &ctx->runs[rf], R->h, R->steps < 100 ? R->steps : 100, &R->t_free);
  FILE *out = rc ? NULL : open_memstream(&t.buf[4], &t.len[4]);
  if (!rc && !out)
    rc = cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory");
  if (out) {
    log_run(out, to, R, 1);
    fprintf(out, "  %-12s is %s's simulation: no step of %s kept a pair touching, so the fail-safe, which acts only "
            "after such a step, would have reused the check after each of its %lu steps and changed nothing; its "
            "unconstrained step from its states is %s's, timed at the same states (share_failsafe = 0 simulates "
            "it on its own)\n", to, from, from, R->quiet_after, from);
    if (fclose(out))
      rc = cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory");
  }
  if (!rc && !(t.buf[5] = calloc(1, 1)))
    rc = cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory");
  if (rc) {
    sink_free(&t);
    return rc;
  }
  *k = t;
  *shared = 1;
  return CDYN_OK;
}

/*
 * Every run of ctx, each by cc_one_run, by `jobs` processes at once
 * (cloth-self-contact's parameter; 1 elsewhere): the runs are independent,
 * so a second process (fork, before any run has started a thread) takes
 * runs from the same queue (a pipe holding the run numbers, one byte each,
 * read a byte at a time) and sends each run's result and output back
 * through a temporary file.  The files then get every run's rows in the
 * order of the runs: the same bytes for any number of processes (the
 * timing files aside, which change from run to run anyway).  Under cdyn
 * export (a capture on) one process runs them all: the capture records
 * each run's scene and digest in the process that runs it.
 */
static int run_all(exp_ctx *ctx, const exp_cc_spec *sp, long every, const double *snaps, int nsnap,
                   exp_csv *const *files, run_result *res)
{
  int n = ctx->nruns, rc = CDYN_OK, wrc = CDYN_OK;
  unsigned char *flag = malloc((size_t)(sp->grid * sp->grid)), done[EXP_MAX_RUNS] = {0};
  run_sink *outs = calloc((size_t)(n > 0 ? n : 1), sizeof *outs);
  if (!flag || !outs) {
    free(flag);
    free(outs);
    return cdyn_error(CDYN_ENOMEM, "cloth-contact: out of memory");
  }
  int tok[2] = {-1, -1}, ri, rf;
  share_pair(ctx, sp, &ri, &rf);
  FILE *tf = NULL;
  pid_t pid = -1;
  /* cdyn export's capture records each run in this process: one process then. */
  if (sp->jobs > 1 && n > 1 && !exp_capture_on()) {
    if (pipe(tok) || !(tf = tmpfile()))
      rc = cdyn_error(CDYN_EIO, "cloth-contact: no pipe or temporary file for a second process");
    /* The runs with more steps first (a stable order: among equals, the
       runs' own), so that the short ones (the frame's, 60 times fewer
       steps) fill in at the end and the two processes end together; the
       run sp->first before all (the longest: its steps cost most). */
    int order[EXP_MAX_RUNS];
    long len[EXP_MAX_RUNS];
    for (int r = 0; r < n; r++) {
      double h;
      long ev;
      run_steps(ctx, sp, r, every, &h, &len[r], &ev);
      if (sp->first && !strcmp(ctx->runs[r].name, sp->first))
        len[r] = LONG_MAX;
      int j = r;
      for (; j > 0 && len[order[j - 1]] < len[r]; j--)
        order[j] = order[j - 1];
      order[j] = r;
    }
    for (int j = 0; j < n && !rc; j++) {
      int r = order[j];
      unsigned char b = (unsigned char)r;
      if (r != rf && write(tok[1], &b, 1) != 1)
        rc = cdyn_error(CDYN_EIO, "cloth-contact: writing the run queue");
    }
    if (tok[1] >= 0)
      close(tok[1]);
    fflush(stdout);
    fflush(stderr);
    if (!rc && (pid = fork()) < 0)
      rc = cdyn_error(CDYN_EIO, "cloth-contact: no second process");
  }
  int worker = pid == 0;
  if (worker) /* its own simulations only, handed back at its end */
    exp_watch_reset();
  for (int next = 0; !rc;) {
    int r;
    if (tok[0] >= 0) {
      unsigned char b;
      if (read(tok[0], &b, 1) != 1)
        break;
      r = b;
    } else if ((r = next++) >= n) {
      break;
    } else if (r == rf) {
      continue;
    }
    /* Run r, then (r the run implicit) the run failsafe, from implicit's
       simulation when it may be (share_run), else on its own. */
    int todo[2] = {r, r == ri ? rf : -1}, nt = 0;
    for (int j = 0; j < 2 && todo[j] >= 0 && !rc; j++) {
      int q = todo[j], shared = 0;
      nt = j + 1; /* the records to send: through this run's, with rc */
      run_sink *k = &outs[q];
      if (j == 1 && (rc = share_run(ctx, sp, r, q, &res[r], &outs[r], &res[q], k, &shared)))
        break;
      if (shared)
        continue;
      if ((rc = sink_open(k, files)))
        break;
      int orc = cc_one_run(ctx, sp, q, every, snaps, nsnap, flag, &res[q], k);
      int crc = sink_close(k);
      rc = orc ? orc : crc;
      if (!rc && k->failed)
        rc = cdyn_error(CDYN_EIO, "cloth-contact: a row of run %s was refused", ctx->runs[q].name);
    }
    for (int j = 0; j < nt; j++) {
      int q = todo[j];
      run_sink *k = &outs[q];
      if (worker) {
        run_record rec;
        memset(&rec, 0, sizeof rec);
        rec.r = q, rec.rc = j == nt - 1 ? rc : CDYN_OK, rec.R = res[q];
        memcpy(rec.len, k->len, sizeof rec.len);
        if (rec.rc)
          snprintf(rec.msg, sizeof rec.msg, "%s", cdyn_errmsg());
        int ok = write_all(tf, &rec, sizeof rec);
        for (int i = 0; i < 6 && ok; i++)
          ok = write_all(tf, k->buf[i], k->len[i]);
        if (!ok)
          _exit(3);
      } else {
        done[q] = 1;
      }
    }
    if (worker)
      for (int j = 0; j < nt; j++)
        sink_free(&outs[todo[j]]);
  }
  if (worker) {
    run_record rec;
    memset(&rec, 0, sizeof rec);
    rec.r = -1;
    rec.len[0] = exp_watch_size();
    void *t = malloc(rec.len[0]);
    int ok = t != NULL;
    if (ok) {
      exp_watch_export(t);
      ok = write_all(tf, &rec, sizeof rec) && write_all(tf, t, rec.len[0]);
    }
    free(t);
    _exit(ok && fflush(tf) == 0 ? (rc ? 1 : 0) : 3);
  }
  if (tok[0] >= 0)
    close(tok[0]);
  if (pid > 0) {
    int status;
    while (waitpid(pid, &status, 0) < 0)
      ;
    if (!rc && (!WIFEXITED(status) || WEXITSTATUS(status) > 1))
      rc = WIFSIGNALED(status) ? cdyn_error(CDYN_EIO, "cloth-contact: the second process ended by signal %d",
                                             WTERMSIG(status))
                               : cdyn_error(CDYN_EIO, "cloth-contact: the second process failed (status %d)",
                                            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    if (!rc) {
      rewind(tf);
      rc = read_records(tf, res, outs, done, n, &wrc);
      if (!rc)
        rc = wrc;
    }
  }
  if (tf)
    fclose(tf);
  /* Every run's output, in the order of the runs. */
  for (int r = 0; r < n && !rc; r++) {
    if (!done[r]) {
      rc = cdyn_error(CDYN_EIO, "cloth-contact: run %s was not run", ctx->runs[r].name);
      break;
    }
    for (int i = 0; i < 4; i++)
      if (!write_all(files[i]->file.f, outs[r].buf[i], outs[r].len[i]))
        files[i]->failed = 1;
    fwrite(outs[r].buf[4], 1, outs[r].len[4], stdout);
    fwrite(outs[r].buf[5], 1, outs[r].len[5], stderr);
  }
  for (int r = 0; r < n; r++)
    sink_free(&outs[r]);
  free(outs);
  free(flag);
  return rc;
}

/* The run of both scene experiments (cloth-contact, cloth-self-contact):
   every run of ctx on the scene sp, their files under sp->name. */
int exp_cc_run(exp_ctx *ctx, const exp_cc_spec *sp0)
{
  exp_cc_spec sp = *sp0;
  char fname[7][96];
  static const char *const suffix[7] = {"", "-snapshots", "-balls", "-time", "-summary", "-cost", "-solve"};
  for (int k = 0; k < 7; k++)
    snprintf(fname[k], sizeof fname[k], "%s%s", sp.name, suffix[k]);
  long every = exp_param_long(ctx, "out_every");
  double snaps[MAX_SNAPS];
  int nsnap;
  exp_parse_times(exp_param_string(ctx, "snapshots"), snaps, MAX_SNAPS, &nsnap);
  double delta = sp.delta;
  exp_csv series, mesh, balls, summ, timing, tseries;
  int rc;
  char extra[512];
  snprintf(extra, sizeof extra,
           "\"note\": \"maxima, minima and sums over the out_every steps ending at t; crossings from the exact "
           "replay (reference/ccd_replay.c)\", \"thickness\": %.17g",
           delta);
  if ((rc = exp_csv_open(ctx, &series, fname[0], contact_columns, NULL, extra)))
    return rc;
  if ((rc = exp_csv_open(ctx, &mesh, fname[1], "scheme,snap,tri,x1,y1,z1,x2,y2,z2,x3,y3,z3,t,flag",
                         NULL,
                         "\"note\": \"the mesh at each snapshot time, one row per triangle: flag 1 when a cloth-cloth "
                         "contact holds one of its nodes, 2 when a node touches a ball\""))) {
    exp_csv_close(&series, 0);
    return rc;
  }
  if ((rc = exp_csv_open(ctx, &balls, fname[2], "scheme,snap,ball,x,y,z,radius,t", NULL,
                         "\"note\": \"the balls at each snapshot time\""))) {
    exp_csv_close(&series, 0);
    exp_csv_close(&mesh, 0);
    return rc;
  }
  if ((rc = exp_csv_open(ctx, &tseries, fname[3], "scheme,t,detect,solve,replay", NULL,
                         "\"note\": \"wall-clock time per step over the out_every steps ending at t "
                         "(CLOCK_MONOTONIC): the one file of this experiment that changes from run to run\""))) {
    exp_csv_close(&series, 0);
    exp_csv_close(&mesh, 0);
    exp_csv_close(&balls, 0);
    return rc;
  }
  static run_result res[EXP_MAX_RUNS];
  exp_csv *files[4] = {&series, &mesh, &balls, &tseries};
  rc = run_all(ctx, &sp, every, snaps, nsnap, files, res);
  int c1 = exp_csv_close(&series, rc == CDYN_OK), c2 = exp_csv_close(&mesh, rc == CDYN_OK),
      c3 = exp_csv_close(&balls, rc == CDYN_OK), c4 = exp_csv_close(&tseries, rc == CDYN_OK);
  if (rc || (rc = c1) || (rc = c2) || (rc = c3) || (rc = c4))
    return rc;
  if ((rc = exp_csv_open(ctx, &summ, fname[4],
                         "scheme,h,steps,completed,crossings,exact,degenerate,violation,min_dist,ball_gap,contacts_max,"
                         "ball_max,created,releases,delay_max,delay_mean,redos,unresolved,parallel,endpoint,redundant,"
                         "status,failsafe_steps,failsafe_passes,failsafe_zones,failsafe_nodes,failsafe_frozen,"
                         "failsafe_unresolved,failsafe_impulse,failsafe_momentum,failsafe_energy,held,near,filtered,"
                         "pieces,failsafe_reused,noconv,merged",
                         NULL,
                         "\"note\": \"over the whole run; failsafe_*: the fail-safe's steps changed, detection passes, "
                         "zones and their nodes summed over steps, frozen zones, steps left touching, sum m |dv| (N s), "
                         "sum of |sum m dv| per step (N s), kinetic energy removed (J)\"")))
    return rc;
  for (int r = 0; r < ctx->nruns && !rc; r++) {
    run_result *R = &res[r];
    double row[37] = {R->h, (double)R->steps_done, R->failed ? 0.0 : 1.0, (double)R->crossings, (double)R->exact,
                      (double)R->degenerate, R->violation, isfinite(R->min_dist) ? R->min_dist : NAN, R->ball_gap,
                      (double)R->contacts_max, (double)R->ball_max, (double)R->created, (double)R->releases,
                      (double)R->delay_max, R->delay_mean, (double)R->redos, (double)R->unresolved,
                      (double)R->parallel, (double)R->endpoint, (double)R->redundant, (double)R->status,
                      (double)R->fs_steps, (double)R->fs_passes, (double)R->fs_zones, (double)R->fs_nodes,
                      (double)R->fs_frozen, (double)R->fs_unresolved, R->fs_impulse, R->fs_momentum, R->fs_energy,
                      R->steps_done > 0 ? (double)R->held_steps / (double)R->steps_done : NAN, (double)R->near,
                      (double)R->filtered, (double)R->pieces, (double)R->fs_reused, (double)R->noconv,
                      (double)R->merged};
    rc = exp_csv_row_labeled(&summ, ctx->runs[r].name, row, 37);
  }
  c1 = exp_csv_close(&summ, rc == CDYN_OK);
  if (rc || (rc = c1))
    return rc;
  if ((rc = exp_csv_open(ctx, &timing, fname[5],
                         "scheme,steps,detect,solve,replay,solves,failsafe,free,free_at_states,ratio,free_rows", NULL,
                         "\"note\": \"wall-clock time per step (CLOCK_MONOTONIC, one run): detection (before and "
                         "after, the fail-safe apart), the step's solves (repeats included), the exact replay, the "
                         "fail-safe, the unconstrained step (the cloth alone, no contacts or balls, the run's "
                         "scheme) over its first 100 steps and from up to 20 of the run's own states, and (detection + "
                         "solves + fail-safe) / the unconstrained step at the run's states, and the mean rows of the steps "
                         "timed from those states; changes from run to run, but for free_rows\"")))
    return rc;
  for (int r = 0; r < ctx->nruns && !rc; r++) {
    const run_result *R = &res[r];
    double row[10] = {(double)R->steps_done, R->t_detect, R->t_solve, R->t_replay, (double)R->solves, R->t_failsafe,
                      R->t_free, R->t_free_at, (R->t_detect + R->t_solve + R->t_failsafe) / R->t_free_at, R->free_rows};
    rc = exp_csv_row_labeled(&timing, ctx->runs[r].name, row, 10);
  }
  c1 = exp_csv_close(&timing, rc == CDYN_OK);
  if (rc || (rc = c1))
    return rc;
  if ((rc = exp_csv_open(ctx, &timing, fname[6],
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

  if (sp.self)
    exp_report(ctx,
               "Cloth %ldx%ld (%g m, %g kg), free, dropped from rest onto a fixed ball (r = %g m, its top %g m below "
               "the cloth, centre off the cloth's centre by %g m along x and %g m along z); thickness delta = %g m, "
               "strain limit %g. h = %g s, %ld steps.",
               sp.grid, sp.grid, sp.size, sp.mass, sp.radius, sp.drop, sp.offset[0], sp.offset[1], delta, sp.eps_max,
               ctx->h, ctx->steps);
  else
    exp_report(ctx,
               "Cloth %ldx%ld (%g m, %g kg) held by two posts (%s); %ld balls (r = %g m, %g kg each) strike it at %g "
               "m/s; thickness delta = %g m, strain limit %g. h = %g s, %ld steps.",
               sp.grid, sp.grid, sp.size, sp.mass,
               sp.edge_posts ? "its two opposite edges pinned" : "the two middle nodes of two opposite edges pinned",
               sp.balls, sp.radius, sp.ball_mass, sp.speed, delta, sp.eps_max, ctx->h, ctx->steps);
  exp_report(ctx,
             " Crossings from the exact replay of every step (filtered: pairs past the replay's distance bound "
             "that its floating-point filter decided; exact tests: the rest, sent to GMP); violation = max(delta - "
             "distance, 0) / delta over cloth-cloth pairs and ball-node pairs; balls held: the share of step ends at "
             "which every ball lies within 2 delta of the cloth; release delay in steps after separation "
             "begins:\n\n"
             "| run | h (s) | steps | completed | crossings | filtered | exact tests | max violation | min distance "
             "(m) | min ball gap (m) | balls held | max contacts | balls' max contacts | releases | max delay | mean "
             "delay | repeats |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int r = 0; r < ctx->nruns; r++) {
    run_result *R = &res[r];
    exp_report(ctx,
               "| %s | %g | %ld | %s | %lu | %lu | %lu | %.3g | %.3g | %.3g | %.0f %% | %ld | %ld | %lu | %lu | %.2f | "
               "%lu |\n",
               ctx->runs[r].name, R->h, R->steps_done, R->failed ? "no" : "yes", R->crossings, R->filtered, R->exact,
               R->violation, R->min_dist, R->ball_gap,
               R->steps_done > 0 ? 100.0 * (double)R->held_steps / (double)R->steps_done : 0.0, R->contacts_max,
               R->ball_max, R->releases, R->delay_max, R->delay_mean, R->redos);
  }
  exp_report(ctx,
             "\nThe fail-safe (rigid impact zones after each step; sums over the run): steps it changed, its "
             "own detection passes (a step whose continuous check found nothing touching needs none), zones it moved (summed over steps; frozen ones apart), the impulse sum m |dv|, the "
             "linear momentum it changed and the kinetic energy it removed.\n\n"
             "| run | steps changed | passes | zones | frozen | nodes | impulse (N s) | momentum (N s) | energy (J) | "
             "left touching |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (int r = 0; r < ctx->nruns; r++) {
    run_result *R = &res[r];
    if (!R->fs_passes && !R->fs_reused)
      continue;
    exp_report(ctx, "| %s | %lu | %lu | %lu | %lu | %lu | %.3g | %.3g | %.3g | %lu |\n", ctx->runs[r].name,
               R->fs_steps, R->fs_passes, R->fs_zones, R->fs_frozen, R->fs_nodes, R->fs_impulse, R->fs_momentum,
               R->fs_energy, R->fs_unresolved);
  }
  exp_report(ctx,
             "\nThe cost per step (wall clock, which changes from run to run, so not in this report): detection, "
             "the step's solves, the fail-safe and the unconstrained step (the cloth alone with the run's scheme, "
             "from rest and from the run's own states) in %s-cost.csv, drawn with their ratios in the figure "
             "%s-cost.\n",
             sp.name, sp.name);
  exp_report(ctx,
             "\nThe size of the steps' linear solves (their times per step, assembly, factorisations and solves, "
             "are in %s-solve.csv):\n\n"
             "| run | mean rows | mean contacts | most contacts | factorisations per step | analyses |\n"
             "|---|---|---|---|---|---|\n",
             sp.name);
  for (int r = 0; r < ctx->nruns; r++) {
    const run_result *R = &res[r];
    double done = R->steps_done > 0 ? (double)R->steps_done : 1.0;
    exp_report(ctx, "| %s | %.1f | %.2f | %ld | %.3f | %lu |\n", ctx->runs[r].name, R->rows_sum / done,
               R->contacts_sum / done, R->touch_max, (double)R->stats.factorizations / done, R->stats.analyses);
  }
  exp_report(ctx, "\n");
  if (!sp.self && exp_claim_ready(ctx, "cloth.contact_no_penetration")) {
    /* Judged on reading (b) of 001's rule (the run stacked, doc/cloth.md);
       the note gives reading (a), the fail-safe and the others. */
    int rb = exp_run_index(ctx, "stacked"), ra = exp_run_index(ctx, "implicit"), rf = exp_run_index(ctx, "failsafe"),
        rl = exp_run_index(ctx, "lcp"), rd = exp_run_index(ctx, "discrete"), r4 = exp_run_index(ctx, "discrete-4h");
    run_result *R = &res[rb];
    exp_value v[4] = {{"crossings", R->failed ? INFINITY : (double)R->crossings},
                      {"violation", R->violation},
                      {"release_delay", (double)R->delay_max},
                      {"failed", (double)R->failed}};
    rc = exp_judge(ctx, "cloth.contact_no_penetration", v, 4,
                   "reading (b), stacked (001's switched constraints, several on a node, continuous detection): %lu "
                   "crossings over %ld steps%s, largest violation %.3g delta, releases %lu with delay <= %lu steps; "
                   "reading (a), implicit (one contact per node or edge): %lu crossings%s, violation %.3g, delay <= "
                   "%lu; with the fail-safe after reading (a): %lu crossings; lcp: %lu crossings, violation %.3g; "
                   "discrete only: %lu crossings at h, %lu at 4h%s",
                   R->crossings, R->steps_done, fail_note(R), R->violation, R->releases, R->delay_max,
                   res[ra].crossings, fail_note(&res[ra]), res[ra].violation, res[ra].delay_max, res[rf].crossings,
                   rl >= 0 ? res[rl].crossings : 0, rl >= 0 ? res[rl].violation : NAN, res[rd].crossings,
                   res[r4].crossings, fail_note(&res[r4]));
  }
  return rc;
}

void exp_cc_read_spec(exp_ctx *ctx, exp_cc_spec *sp)
{
  sp->grid = exp_param_long(ctx, "grid");
  sp->capacity = exp_param_long(ctx, "capacity");
  sp->pairs = exp_param_long(ctx, "pairs");
  exp_param_double(ctx, "size", &sp->size);
  exp_param_double(ctx, "mass", &sp->mass);
  exp_param_double(ctx, "k_struct", &sp->k_struct);
  exp_param_double(ctx, "k_shear", &sp->k_shear);
  exp_param_double(ctx, "k_bend", &sp->k_bend);
  exp_param_double(ctx, "damping", &sp->damping);
  exp_param_double(ctx, "eps_max", &sp->eps_max);
  exp_param_double(ctx, "ball_radius", &sp->radius);
  exp_param_double(ctx, "thickness", &sp->delta);
  exp_param_double(ctx, "skin", &sp->skin);
}


const exp_column exp_cc_columns[] = {
  {NULL, "crossings", "1", "node-triangle and edge-edge pairs that touched during the steps (exact replay)"},
  {NULL, "exact", "1", "pairs the replay sent to the exact (GMP) test"},
  {NULL, "near", "1", "pairs past the replay's distance bound (near = filtered + exact)"},
  {NULL, "pieces", "1",
   "straight pieces the replay followed: one per step, plus one per sub-step cut of a scheme that cuts its steps"},
  {NULL, "filtered", "1",
   "pairs past the replay's distance bound that its certified floating-point filter decided (not sent to GMP)"},
  {NULL, "degenerate", "1", "pairs the exact test could not decide (zero-area triangle or zero-length edge)"},
  {NULL, "min_dist", "m", "smallest distance between non-adjacent mesh elements at a step's end (nan: no pair within 4 delta)"},
  {NULL, "ball_gap", "m", "smallest |x_node - c| - r over nodes and balls"},
  {NULL, "violation", "1", "largest max(delta - distance, delta - ball gap, 0) / delta"},
  {NULL, "contacts", "1", "cloth-cloth contacts active after the step"},
  {NULL, "vf", "1", "of which node-triangle"},
  {NULL, "ee", "1", "of which edge-edge"},
  {NULL, "nn", "1", "of which node-node"},
  {NULL, "ball_contacts", "1", "node-ball pairs within r + delta"},
  {NULL, "height", "m", "the cloth's mean height: the mean y of its nodes at t"},
  {NULL, "created", "1", "cloth-cloth contacts created"},
  {"cloth-contact", "released", "1", "cloth-cloth contacts released"},
  {NULL, "releases", "1", "cloth-cloth contacts released over the run"},
  {NULL, "delay_max", "steps", "largest release delay: step ends between separation and release"},
  {NULL, "delay_mean", "steps", "mean release delay"},
  {NULL, "redos", "1", "steps repeated because the taken motion showed a new contact (cumulative)"},
  {NULL, "unresolved", "1", "contacts found in a step's motion when no repeat was left"},
  {NULL, "parallel", "1", "edge pairs found with an angle's sine below 0.1: no edge-edge constraint"},
  {NULL, "endpoint", "1", "edge pairs found meeting at an end: left to the node-triangle pairs"},
  {NULL, "redundant", "1", "mode switch: pairs whose node or edge already held a contact, none made"},
  {NULL, "merged", "1",
   "the merge rule (run merged): pairs whose node or edge a contact already pushed within `merge` degrees, none made"},
  {NULL, "contacts_max", "1", "most cloth-cloth contacts at once"},
  {NULL, "ball_max", "1", "most node-ball pairs within r + delta at once"},
  {NULL, "completed", "1", "1: every step was taken; 0: a step failed or the run diverged (doc/cli.md)"},
  {NULL, "detect", "s", "wall-clock time per step in detection (before and after the step)"},
  {NULL, "solve", "s", "wall-clock time per step in the step's solves"},
  {NULL, "replay", "s", "wall-clock time per step of the exact replay"},
  {NULL, "solves", "1", "stepper steps taken, repeats included"},
  {"cloth-contact-solve", "rows", "1",
   "mean rows in a step's solves: the system's rows, or the acceleration problem's candidates (scheme contact)"},
  {"cloth-contact-solve", "contacts", "1",
   "mean cloth-cloth contacts plus ball-node pairs within r + delta at a step's end"},
  {"cloth-contact-solve", "contacts_max", "1",
   "most cloth-cloth contacts plus ball-node pairs within r + delta at a step's end"},
  {"cloth-contact-solve", "assembly", "s",
   "wall-clock time per step assembling A (scheme contact: A over the contact problems' candidates)"},
  {"cloth-contact-solve", "factor", "s",
   "wall-clock time per step in the linear solver's setups (scheme contact: the sparse factorisations)"},
  {"cloth-contact-solve", "solve", "s",
   "wall-clock time per step in the solves (scheme contact: the active-set solves, less their sparse "
   "factorisations)"},
  {"cloth-contact-solve", "linear", "s", "assembly + factor + solve"},
  {"cloth-contact-solve", "factorizations", "1", "numeric factorisations per step"},
  {"cloth-contact-solve", "analyses", "1",
   "symbolic analyses of a sparse solver over the run (a pattern it had not seen)"},
  {"cloth-contact-solve", "solves", "1",
   "linear solves per step (scheme contact with subsolve=sparse: the active-set sub-solves; the dense path's are "
   "not counted)"},
  {NULL, "snap", "1", "snapshot number"},
  {NULL, "tri", "1", "triangle index (the cloth generator's triangles, cdyn_scene_get_patch)"},
  {NULL, "x#", "m", "x of the triangle's corner #"},
  {NULL, "y#", "m", "y of the triangle's corner #"},
  {NULL, "z#", "m", "z of the triangle's corner #"},
  {NULL, "flag", "1", "1: a cloth-cloth contact holds a node of the triangle; 2: a node touches a ball; 0: neither"},
  {NULL, "ball", "1", "ball number"},
  {NULL, "x", "m", "x of the ball's centre"},
  {NULL, "y", "m", "y of the ball's centre"},
  {NULL, "z", "m", "z of the ball's centre"},
  {NULL, "radius", "m", "the ball's radius"},
  {NULL, "h", "s", "step size of the run"},
  {NULL, "failsafe", "s", "wall-clock time per step in the fail-safe (rigid impact zones)"},
  {NULL, "free", "s",
   "wall-clock time per step of the unconstrained step: the cloth alone (no contacts, no balls), the run's scheme, "
   "its first 100 steps"},
  {NULL, "free_at_states", "s",
   "wall-clock time per step of the unconstrained step from the run's own states: the cloth alone (no contacts, "
   "no balls), the run's scheme, from steps / 20 states (at least 1, at most 20) evenly spaced over the run's "
   "steps (from each, one step untimed, then 4 timed)"},
  {NULL, "ratio", "1", "(detect + solve + failsafe) / free_at_states: a step's cost against the same cloth's "
   "unconstrained step at the same states"},
  {NULL, "free_rows", "1", "mean rows of the unconstrained steps timed from the run's states (free_at_states)"},
  {NULL, "held", "1", "share of step ends at which every ball lies within 2 delta of the cloth (its contacts let go beyond)"},
  {NULL, "failsafe_steps", "1", "steps whose motion the fail-safe changed"},
  {NULL, "failsafe_passes", "1", "the fail-safe's own detection passes over the run"},
  {NULL, "failsafe_reused", "1",
   "steps the fail-safe checked by the handler's continuous check of the motion taken (nothing touching: no pass of "
   "its own)"},
  {NULL, "failsafe_zones", "1", "impact zones the fail-safe moved, summed over steps"},
  {NULL, "failsafe_nodes", "1", "nodes of those zones, summed over steps"},
  {NULL, "failsafe_frozen", "1", "zones held still (a pinned node, or still touching when translated)"},
  {NULL, "failsafe_unresolved", "1", "steps the fail-safe left with a touching pair"},
  {NULL, "failsafe_impulse", "N s", "sum over the changed nodes and steps of m |v_new - v|"},
  {NULL, "failsafe_momentum", "N s", "sum over steps of |sum m (v_new - v)| (linear momentum changed)"},
  {NULL, "failsafe_energy", "J", "kinetic energy the fail-safe removed (negative: added)"},
  EXP_COLUMNS_END};
