/*
 * cloth_scene.h: the cloth scene of cloth-elongation and
 * cloth-vs-implicit-ode (000 sec. 4, 001 sec. V-B), its parameters,
 * measures and the helpers both experiments share (cloth_scene.c).
 */
#ifndef CDYN_CLOTH_SCENE_H
#define CDYN_CLOTH_SCENE_H

#include <stddef.h>

#include <cdyn/cloth.h>

#include "runner/experiment.h"

typedef struct {
  long grid;
  double size, mass, k_struct, k_shear, k_bend, damping;
  double ball_radius, ball_speed;
  int ball; /* include the ball */
} exp_cloth_spec;

/* How a run treats the strain limit and the ball: springs alone (ball by
   projection); the adaptive constraints (the limiter and the ball
   switched, for the equality schemes); Provot's correction; plain (pins
   only: the ball by projection, no limiter); the inequality modes (the
   limiter's tethers and the ball's separations as one-sided rows on for
   good, for a scheme that enforces pins and inequality rows only). */
enum exp_cloth_method { EXP_CLOTH_SPRINGS, EXP_CLOTH_ADAPTIVE, EXP_CLOTH_PROVOT, EXP_CLOTH_PLAIN, EXP_CLOTH_INEQUALITY };

/* The cloth as a scene (cdyn/scene.h), described in the scene format and
   read by the library's reader (exp_cloth_scene_new): the patch from the cloth
   generator, the ball after it (a particles generator) on its moving
   pin; the strain limiter (adaptive), Provot's correction (provot) and
   the ball are the scene's step hooks (in the inequality method the
   limiter's mode inequality and the ball's, cdyn/cloth.h), so that cdyn_scene_step runs them
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
} exp_cloth_scene;

/* Free the scene (s zeroed); build it for method m (eps_max and sweeps:
   the strain limit's and Provot's). */
void exp_cloth_scene_free(exp_cloth_scene *s);
int exp_cloth_scene_new(const exp_cloth_spec *sp, enum exp_cloth_method m, double eps_max, long sweeps, exp_cloth_scene *s);

/* The cloth's shape, pins and load where they are not the square patch
   hung by its two corners under gravity along -y (cloth-robustness):
   nx x ny nodes (nx along x, the pinned edge z = -depth/2; ny along z),
   the patch sp->size by `depth`, total mass sp->mass, the npins nodes
   `pins`, gravity `gravity`.  exp_cloth_scene_new is
   exp_cloth_scene_shaped with nx = ny = grid, depth = size, pins the
   corners 0 and grid - 1, gravity (0, -9.81, 0).  The ball's place is
   the square patch's (x = 0, y = -size/2, 1 m behind z = -size/2). */
typedef struct {
  long nx, ny;
  double depth;
  const size_t *pins;
  size_t npins;
  double gravity[3];
} exp_cloth_shape;
int exp_cloth_scene_shaped(const exp_cloth_spec *sp, const exp_cloth_shape *shape, enum exp_cloth_method m,
                           double eps_max, long sweeps, exp_cloth_scene *s);

/* Largest and (p99 not NULL) 99th-percentile eps of the structural
   springs (nearest rank; the percentile sorts them). */
int exp_cloth_elongation(exp_cloth_scene *s, double *emax, double *p99);

/* The method of a run: by its name (springs, provot); a scheme that
   enforces pins only, with inequality rows (the inequality modes:
   projected-newton) or without (plain: baraff-witkin); else the
   adaptive constraints. */
enum exp_cloth_method exp_cloth_run_method(const exp_runspec *r);

/* Can `scheme` use the solver named `solver`?  (A scheme whose own system
   is indefinite, backward-euler or bdf2, takes only ldlt; an unknown name
   is left to the stepper to refuse.) */
int exp_cloth_solver_fits(const char *scheme, const char *solver);

/* The scene's parameters (EXP_CLOTH_SCENE_PARAMS, and grid) of the run. */
void exp_cloth_read_scene(exp_ctx *ctx, exp_cloth_spec *sp);

#define EXP_CLOTH_SCENE_PARAMS                                                                                      \
  CLOTH_MATERIAL_PARAMS,                                                                                            \
    {"ball_radius", "0.15", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "radius of the ball (m)"},          \
    {"ball_speed", "0.6", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "speed of the ball along +z (m/s)"},                 \
    {"eps_max", "0.1", EXP_REAL, 0, 10, EXP_OPEN_MIN, "elongation limit of the adaptive constraints and Provot"}

/* At most this many animation steps. */
#define EXP_CLOTH_MAX_ANIM 8

/* Step sizes, each a number or p/q (1/60), > 0, comma separated, at most
   max; "none": no step.  1 when the text is not such a list. */
int exp_cloth_parse_steps(const char *text, double *h, int max, int *n);

/* Scheme names, comma separated, at most max, each registered; "none":
   none.  1 when not. */
int exp_cloth_parse_schemes(const char *text, char out[][32], int max, int *n);

/* h as text: 1/60 when 1/h is an integer (to 1e-9), else %g. */
void exp_cloth_fmt_step(char *buf, size_t len, double h);

#endif
