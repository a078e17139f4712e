/*
 * cloth_contact.c: cloth-contact (001 fig 5, 001 sec. V-A): heavy balls
 * hit a cloth held by two posts; non-penetration constraints keep the
 * cloth out of the balls and out of itself.
 *
 * The scene (001 gives no numbers: these are choices, all parameters).
 * A square patch of side `size` (1 m), grid x grid nodes (16 x 16), mass
 * 0.5 kg, the springs of cloth-elongation (k = 100 / 20 / 2 N/m, damping
 * 0.02 N s/m), horizontal at y = 0, x and z in [-size/2, size/2].  Two
 * posts hold it (`posts`): the two middle nodes of the edge x = -size/2
 * and the two of the edge x = +size/2 are pinned (001's posts, as pins;
 * `edges` pins every node of those edges instead, a hammock).  Gravity
 * 9.81 m/s^2 along -y.  `balls` (3) balls of radius ball_radius (0.1 m)
 * and mass ball_mass (1 kg each, six times the cloth together) start on
 * the line between the posts (`ball_line` x: z = 0, x = -0.3, 0, 0.3 m;
 * `z`: x = 0, z = -0.3, 0, 0.3 m, across it), the first at height
 * ball_height (0.13 m: 2.5 cm above the thickness), each next one
 * ball_spacing (0) higher, moving down at ball_speed (1 m/s).  The line
 * between the posts sags under the balls into a sling that holds them,
 * and the cloth's two halves fall on either side, wrap the balls and meet
 * under them (self-collision).  The share of step ends at which every
 * ball lies on the cloth (within 2 delta of it) is measured.  1 s (1000
 * steps of 1 ms).  (The earlier scene, balls across the line striking
 * one after another at 3 m/s, is ball_line=z, ball_height=0.2,
 * ball_spacing=0.2, ball_speed=3: there the outer balls slide off within
 * 0.3 s.)  Adaptive strain limiting (lib/cloth/strainlimit.c, eps_max
 * 0.1) stays on.  (In the earlier scene, at 1.2 s the run discrete-4h
 * blows up: 7,404 crossings in its first 1.0 s, 691,251 in the next
 * 0.2 s, with 7.2 million pairs past the replay's distance bound, of
 * which the filter leaves 4,663 to GMP.)
 *
 * The constraints, the runs, the measures and the verdict, which
 * cloth-self-contact shares: problems/cloth_contact_scene.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/experiment.h"
#include "problems/cloth_contact_scene.h"

#define MAX_BALLS 8

/* ---- cloth-contact ------------------------------------------------------------------------------ */

static const exp_param contact_params[] = {
  {"grid", "16", EXP_INT, 4, 128, 0, "nodes along each side of the patch"},
  CLOTH_MATERIAL_PARAMS,
  {"eps_max", "0.1", EXP_REAL, 0, 10, EXP_OPEN_MIN, "elongation limit of the adaptive strain constraints"},
  {"balls", "3", EXP_INT, 1, MAX_BALLS, 0, "number of balls"},
  {"ball_radius", "0.1", EXP_REAL, 0, 1, EXP_OPEN_MIN, "radius of each ball (m)"},
  {"ball_mass", "1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "mass of each ball (kg)"},
  {"ball_speed", "1", EXP_REAL, 0, 100, 0, "initial downward speed of the balls (m/s)"},
  {"ball_height", "0.13", EXP_REAL, -10, 10, 0, "height of the first ball's centre at the start (m; the cloth at y = 0)"},
  {"ball_line", "x", EXP_TEXT, 0, 0, 0,
   "the line the balls start on: z (x = 0, across the posts' line) or x (z = 0, along it, between the posts)"},
  {"ball_spacing", "0", EXP_REAL, 0, 10, 0, "each further ball starts this much higher than the one before (m)"},
  {"thickness", "0.005", EXP_REAL, 0, 1, EXP_OPEN_MIN, "cloth thickness delta (m)"},
  {"capacity", "4096", EXP_INT, 1, 1 << 20, 0, "cloth-cloth contacts reserved"},
  {"pairs", "262144", EXP_INT, 1, 1 << 28, EXP_OWN,
   "broad-phase pairs reserved per query (node-triangle or edge-edge boxes that overlap; more end the run)"},
  {"skin", "0.005", EXP_REAL, 0, 1, 0,
   "the broad phase keeps its candidate pairs while the cloth moves less than this from where they were found, a "
   "common translation aside (m; 0: found at every query)"},
  {"posts", "points", EXP_TEXT, 0, 0, 0,
   "what holds the cloth: edges (every node of the two edges x = -size/2 and x = size/2) or points (their two middle "
   "nodes each)"},
  {"tau", "0.02", EXP_REAL, 0, 1e300, 0, "Baumgarte time constant of the scheme contact (s)"},
  {"algorithms", "lcp,iterative", EXP_TEXT, 0, 0, 0, "active-set algorithms run with the scheme contact"},
  {"out_every", "5", EXP_INT, 1, 1e9, 0, "write every this many steps (maxima and sums over them)"},
  {"snapshots", "0.1,0.3,0.6,1.0", EXP_TEXT, 0, 0, 0, "times of the mesh snapshots (s), comma separated"},
  EXP_PARAMS_END};

static const char *const lcp_sparse[] = {"activeset", "lcp", "subsolve", "sparse", NULL};
/* The algorithm runs on the dense path, which lcp-sparse is measured against. */
static const char *const dense_path[] = {"subsolve", "dense", NULL};

static const exp_companion contact_companions[] = {
  {"discrete", "implicit", NULL, "as implicit, with proximity detection only (no continuous detection)"},
  {"discrete-4h", "implicit", NULL, "as discrete, at 4 h"},
  {"stacked", "implicit", NULL,
   "as implicit, with 001's rule read as several contacts on one node or edge, solved together (reading b)"},
  {"failsafe", "implicit", NULL, "as implicit, with the fail-safe (rigid impact zones) after each step"},
  {"discrete-failsafe", "implicit", NULL, "as discrete, with the fail-safe after each step"},
  {"lcp-sparse", "contact", lcp_sparse,
   "as lcp, with the sub-systems of the contact problems solved sparse (CHOLMOD on A over the candidate rows)"},
  {NULL, NULL, NULL, NULL}};

static int contact_check(exp_ctx *ctx)
{
  const char *posts = exp_param_string(ctx, "posts");
  if (strcmp(posts, "edges") && strcmp(posts, "points")) {
    cdyn_error(CDYN_EINVAL, "posts: '%s' is neither edges nor points", posts);
    return 2;
  }
  const char *line = exp_param_string(ctx, "ball_line");
  if (strcmp(line, "x") && strcmp(line, "z")) {
    cdyn_error(CDYN_EINVAL, "ball_line: '%s' is neither x nor z", line);
    return 2;
  }
  return exp_cc_check_snapshots(ctx);
}

static int contact_run(exp_ctx *ctx)
{
  exp_cc_spec sp;
  memset(&sp, 0, sizeof sp);
  exp_cc_read_spec(ctx, &sp);
  sp.name = "cloth-contact";
  sp.balls = exp_param_long(ctx, "balls");
  exp_param_double(ctx, "ball_mass", &sp.ball_mass);
  exp_param_double(ctx, "ball_speed", &sp.speed);
  exp_param_double(ctx, "ball_height", &sp.ball_height);
  exp_param_double(ctx, "ball_spacing", &sp.ball_spacing);
  sp.edge_posts = !strcmp(exp_param_string(ctx, "posts"), "edges");
  sp.along_x = !strcmp(exp_param_string(ctx, "ball_line"), "x");
  return exp_cc_run(ctx, &sp);
}

const cdyn_experiment cdyn_experiment_cloth_contact = {
  .name = "cloth-contact",
  .description = "heavy balls hit a cloth held by two posts: non-penetration constraints from collision detection, "
                 "continuous against discrete, checked by an exact replay",
  .source = "001 fig 5, 001 sec V-A",
  .params = contact_params,
  .columns = exp_cc_columns,
  .check = contact_check,
  .schemes = "implicit",
  .companions = contact_companions,
  .algorithm_param = "algorithms",
  .algorithm_options = dense_path,
  .h = 1e-3,
  .steps = 1000,
  .run = contact_run,
};
