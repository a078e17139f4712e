/*
 * cloth_self_contact.c: cloth-self-contact, a large cloth dropped onto a
 * fixed ball drapes over it and folds onto itself (beyond the papers: the self-contact that 001
 * sec. V-A's constraints are for, at a size where contact is the cost).
 * The scene (choices, all parameters): a square patch of side `size`
 * (1 m), grid x grid nodes (64 x 64), the material of cloth-contact,
 * horizontal at y = 0 and free (no posts); a ball of radius ball_radius
 * (0.25 m), pinned, its top `drop` (0.05 m) below the cloth and its centre
 * off the cloth's centre by offset_x, offset_z (0.05, 0.03 m) so that the
 * drape is not symmetric; gravity 9.81 m/s^2 along -y; 2 s.  The cloth
 * touches the ball after about 0.1 s, its corners and sides fall past
 * it and fold against each other and against the cloth on the ball.
 * The runs and measures are cloth-contact's (one scene code,
 * problems/cloth_contact_scene.c): the
 * papers' method in both readings of its rule (implicit: one contact per
 * node or edge; stacked: several solved together), the fail-safe after
 * it, and the discrete baseline (proximity at the step's start only);
 * crossings by the exact replay of every
 * step, distances, contacts, and the cost per step split into detection,
 * solve and fail-safe, against the unconstrained step; and 001's
 * inequality reading by the scheme contact, its exact LCP (activeset =
 * lcp) with sparse sub-solves, warm-started from the last clamped set,
 * the fixed ball's pin eliminated from its problems (run lcp); and the
 * large-step solve admm (strain limits and contacts one-sided in its step)
 * at 1 ms (run admm) and at the animator's step `frame`, 1/60 s, over the
 * same 2 s (admm-frame; admm-frame-100 with 100 iterations a step).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"
#include "problems/cloth_contact_scene.h"

static const exp_param self_params[] = {
  {"grid", "64", EXP_INT, 4, 256, 0, "nodes along each side of the patch"},
  CLOTH_MATERIAL_PARAMS,
  {"eps_max", "0.1", EXP_REAL, 0, 10, EXP_OPEN_MIN, "elongation limit of the adaptive strain constraints"},
  {"ball_radius", "0.25", EXP_REAL, 0, 1, EXP_OPEN_MIN, "radius of the fixed ball (m)"},
  {"drop", "0.05", EXP_REAL, 0, 10, 0, "height of the cloth above the ball's top at the start (m)"},
  {"offset_x", "0.05", EXP_REAL, -1, 1, 0, "the ball's centre off the cloth's centre along x (m)"},
  {"offset_z", "0.03", EXP_REAL, -1, 1, 0, "the ball's centre off the cloth's centre along z (m)"},
  {"thickness", "0.005", EXP_REAL, 0, 1, EXP_OPEN_MIN, "cloth thickness delta (m)"},
  {"capacity", "4096", EXP_INT, 1, 1 << 22, 0, "cloth-cloth contacts reserved"},
  {"pairs", "262144", EXP_INT, 1, 1 << 28, EXP_OWN,
   "broad-phase pairs reserved per query (node-triangle or edge-edge boxes that overlap; more end the run)"},
  {"merge", "45", EXP_REAL, 0, 180, EXP_OPEN_MIN,
   "the run merged: a contact pushing a node or edge within this angle of a new pair's direction takes that pair "
   "(degrees)"},
  {"skin", "0.005", EXP_REAL, 0, 1, 0,
   "the broad phase keeps its candidate pairs while the cloth moves less than this from where they were found, a "
   "common translation aside (m; 0: found at every query)"},
  {"tau", "0.02", EXP_REAL, 0, 1e300, 0, "Baumgarte time constant of the scheme contact (s)"},
  {"frame", "0.016666666666666667", EXP_REAL, 0, 1, EXP_OPEN_MIN | EXP_OWN,
   "the step of the runs admm-frame*, over the same time as the others (s)"},
  {"jobs", "2", EXP_INT, 1, 2, EXP_OWN,
   "processes that run the runs at once (1 or 2); the files are the same for either, the timing files aside"},
  {"share_failsafe", "1", EXP_INT, 0, 1, EXP_OWN,
   "1: the run failsafe is the run implicit's simulation when no step of implicit kept a pair touching (the "
   "fail-safe acts only after such a step); 0: simulated on its own. The files are the same for either, the timing "
   "files aside"},
  {"out_every", "10", EXP_INT, 1, 1e9, 0, "write every this many steps (maxima and sums over them)"},
  {"snapshots", "0.25,0.5,1,2", EXP_TEXT, 0, 0, 0, "times of the mesh snapshots (s), comma separated"},
  EXP_PARAMS_END};

static const char *const lcp_sparse[] = {"activeset", "lcp", "subsolve", "sparse", NULL};
static const char *const admm_100[] = {"iterations", "100", NULL};

static const exp_companion self_companions[] = {
  {"stacked", "implicit", NULL,
   "as implicit, with 001's rule read as several contacts on one node or edge, solved together (reading b)"},
  {"merged", "implicit", NULL,
   "as stacked, with the merge rule: a pair whose node or edge a contact already pushes within `merge` degrees of its "
   "own direction adds none"},
  {"failsafe", "implicit", NULL, "as implicit, with the fail-safe (rigid impact zones) after each step"},
  {"discrete", "implicit", NULL, "as implicit, with proximity detection only (no continuous detection)"},
  {"admm", "admm", NULL, "the large-step cloth solve (scheme admm): strain limits and contacts one-sided in its step"},
  {"admm-frame", "admm", NULL, "as admm, at the animator's step `frame` (1/60 s), over the same time"},
  {"admm-frame-100", "admm", admm_100, "as admm-frame, with 100 iterations a step (10 by default)"},
  {"lcp", "contact", lcp_sparse,
   "001's contact constraints as inequalities, solved exactly (scheme contact, activeset = lcp, its sub-systems "
   "sparse)"},
  {NULL, NULL, NULL, NULL}};

static int self_check(exp_ctx *ctx) { return exp_cc_check_snapshots(ctx); }

static int self_run(exp_ctx *ctx)
{
  exp_cc_spec sp;
  memset(&sp, 0, sizeof sp);
  exp_cc_read_spec(ctx, &sp);
  sp.name = "cloth-self-contact";
  sp.self = 1;
  sp.balls = 1;
  sp.ball_mass = 1;
  exp_param_double(ctx, "drop", &sp.drop);
  exp_param_double(ctx, "offset_x", &sp.offset[0]);
  exp_param_double(ctx, "offset_z", &sp.offset[1]);
  exp_param_double(ctx, "frame", &sp.frame);
  exp_param_double(ctx, "merge", &sp.merge);
  sp.jobs = exp_param_long(ctx, "jobs");
  /* The run lcp first: its steps cost the most (its event sub-steps; the
     -cost file's detect, solve and replay columns), and queued last by its
     place among the runs it could end alone. */
  sp.first = "lcp";
  sp.share = exp_param_long(ctx, "share_failsafe") != 0;
  return exp_cc_run(ctx, &sp);
}

const cdyn_experiment cdyn_experiment_cloth_self_contact = {
  .name = "cloth-self-contact",
  .description = "a 64 x 64 cloth dropped onto a fixed ball drapes and folds onto itself: both readings of 001's "
                 "contact rule, the fail-safe, the discrete baseline and the scheme contact, checked by the exact "
                 "replay, with the cost of detection and the fail-safe against the unconstrained step",
  .source = "001 sec V-A (beyond the paper: self-contact at scale)",
  .params = self_params,
  .columns = exp_cc_columns,
  .files_as = "cloth-contact",
  .check = self_check,
  .schemes = "implicit",
  .pins_only_ok = 1,
  .companions = self_companions,
  .algorithm_param = NULL,
  .h = 1e-3,
  .steps = 2000,
  .run = self_run,
};
