/*
 * cloth_scene.c: the scene of cloth-elongation and cloth-vs-implicit-ode
 * (000 sec. 4, 001 sec. V-B).
 *
 * The scene (doc/cloth.md, "The cloth model"; the papers give no
 * numbers, so these are choices, all parameters), described in the scene
 * format (the cloth generator; exp_cloth_scene_new): a square patch of side `size`
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
 * A scheme that enforces pins and inequality rows only (projected-newton:
 * the stepper refuses it any other equality) gets the cloth with the
 * strain limiter and the ball in their inequality modes: every structural
 * spring keeps its spring and gets a one-sided tether row at 1 + eps_max,
 * and every node a one-sided separation row from the ball, all on for
 * good, so that the scheme decides inside its step where they act
 * (exp_cloth_run_method picks the method from the scheme's declared
 * kind, cdyn_scheme_pins_only and cdyn_scheme_inequalities).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdyn/cloth.h>

#include "runner/experiment.h"

#include "problems/cloth_scene.h"

/* ---- the scene ---------------------------------------------------------------------------- */

void exp_cloth_scene_free(exp_cloth_scene *s)
{
  cdyn_scene_free(s->sc);
  free(s->eps);
  memset(s, 0, sizeof *s);
}

int exp_cloth_scene_new(const exp_cloth_spec *sp, enum exp_cloth_method m, double eps_max, long sweeps, exp_cloth_scene *s)
{
  const size_t pins[2] = {0, (size_t)sp->grid - 1};
  const exp_cloth_shape shape = {sp->grid, sp->grid, sp->size, pins, 2, {0, -9.81, 0}};
  return exp_cloth_scene_shaped(sp, &shape, m, eps_max, sweeps, s);
}

int exp_cloth_scene_shaped(const exp_cloth_spec *sp, const exp_cloth_shape *shape, enum exp_cloth_method m,
                           double eps_max, long sweeps, exp_cloth_scene *s)
{
  memset(s, 0, sizeof *s);
  size_t nodes = (size_t)shape->nx * (size_t)shape->ny;
  exp_cloth_material mat = {sp->size, sp->mass, sp->k_struct, sp->k_shear, sp->k_bend, sp->damping};
  char hooks[256] = "";
  if (m == EXP_CLOTH_ADAPTIVE)
    snprintf(hooks, sizeof hooks, "\"strain_limit\": {\"eps_max\": %.17g}", eps_max);
  else if (m == EXP_CLOTH_INEQUALITY)
    snprintf(hooks, sizeof hooks, "\"strain_limit\": {\"eps_max\": %.17g, \"mode\": \"inequality\"}", eps_max);
  else if (m == EXP_CLOTH_PROVOT)
    snprintf(hooks, sizeof hooks, "\"provot\": {\"eps_max\": %.17g, \"sweeps\": %ld}", eps_max, sweeps);
  exp_text t = {0};
  exp_text_printf(&t, "{\"cdyn_scene\": 1, \"name\": \"cloth\", \"gravity\": [%.17g, %.17g, %.17g], \"generators\": [",
                  shape->gravity[0], shape->gravity[1], shape->gravity[2]);
  exp_cloth_generator_rect(&t, &mat, shape->nx, shape->ny, shape->depth, shape->pins, shape->npins, hooks);
  if (sp->ball) {
    /* The ball: 1 m behind the pinned edge, at the middle of the hanging
       cloth, moved by its pin at ball_speed along +z. */
    double c[3] = {0, -sp->size / 2, -sp->size / 2 - 1.0};
    exp_text_printf(&t,
                    ", {\"type\": \"particles\", \"particles\": [{\"x\": [%.17g, %.17g, %.17g], "
                    "\"v\": [0, 0, %.17g]}]}], \"pins\": [{\"i\": %zu, \"at\": [%.17g, %.17g, %.17g], "
                    "\"u\": [0, 0, %.17g]}], \"balls\": [{\"ball\": %zu, \"nodes\": [",
                    c[0], c[1], c[2], sp->ball_speed, nodes, c[0], c[1], c[2], sp->ball_speed, nodes);
    for (size_t k = 0; k < nodes; k++)
      exp_text_printf(&t, "%s%zu", k ? ", " : "", k);
    exp_text_printf(&t, "], \"radius\": %.17g, \"mode\": \"%s\"}]}", sp->ball_radius,
                    m == EXP_CLOTH_ADAPTIVE ? "switch" : m == EXP_CLOTH_INEQUALITY ? "inequality" : "project");
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
  s->nodes = nodes;
  s->ball_particle = s->nodes;
  s->first_struct = s->patch.spring_first[CDYN_SPRING_STRUCT];
  s->nstruct = s->patch.spring_count[CDYN_SPRING_STRUCT];
  if (!(s->eps = malloc(s->nstruct * sizeof(double)))) {
    rc = CDYN_ENOMEM;
    goto fail;
  }
  if (m == EXP_CLOTH_ADAPTIVE || m == EXP_CLOTH_INEQUALITY)
    s->sl = cdyn_scene_strainlimit(s->sc, 0);
  if (sp->ball)
    s->ball = cdyn_scene_ball(s->sc, 0);
  return CDYN_OK;
fail:
  exp_cloth_scene_free(s);
  return rc;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Largest and (p99 not NULL) 99th-percentile eps of the structural
   springs (nearest rank; the percentile sorts them). */
int exp_cloth_elongation(exp_cloth_scene *s, double *emax, double *p99)
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

enum exp_cloth_method exp_cloth_run_method(const exp_runspec *r)
{
  size_t idx;
  if (!strcmp(r->name, "springs"))
    return EXP_CLOTH_SPRINGS;
  if (!strcmp(r->name, "provot"))
    return EXP_CLOTH_PROVOT;
  if (!cdyn_scheme_find(r->scheme, &idx) && cdyn_scheme_pins_only(idx))
    return cdyn_scheme_inequalities(idx) ? EXP_CLOTH_INEQUALITY : EXP_CLOTH_PLAIN;
  return EXP_CLOTH_ADAPTIVE;
}

/* Can `scheme` use the solver named `solver`?  (A scheme whose own system
   is indefinite, backward-euler or bdf2, takes only ldlt; an unknown name
   is left to the stepper to refuse.) */
int exp_cloth_solver_fits(const char *scheme, const char *solver)
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

void exp_cloth_read_scene(exp_ctx *ctx, exp_cloth_spec *sp)
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

/* Step sizes, each a number or p/q (1/60), > 0, comma separated, at most
   max; "none": no step.  1 when the text is not such a list. */
int exp_cloth_parse_steps(const char *text, double *h, int max, int *n)
{
  *n = 0;
  if (!strcmp(text, "none"))
    return 0;
  if (exp_list_reals(text, "anim_h", EXP_LIST_SPACES | EXP_LIST_RATIO | EXP_LIST_ABOVE_LO, 0, INFINITY, h, max, n)) {
    cdyn_error_clear();
    return 1;
  }
  return 0;
}

/* Scheme names, comma separated, at most max, each registered; "none":
   none.  1 when not. */
int exp_cloth_parse_schemes(const char *text, char out[][32], int max, int *n)
{
  *n = 0;
  if (!strcmp(text, "none"))
    return 0;
  if (exp_list_names(text, "anim_schemes", EXP_LIST_SPACES, out, max, n)) {
    cdyn_error_clear();
    return 1;
  }
  for (int k = 0; k < *n; k++) {
    size_t idx;
    if (cdyn_scheme_find(out[k], &idx)) {
      cdyn_error_clear();
      return 1;
    }
  }
  return 0;
}

/* h as text: 1/60 when 1/h is an integer (to 1e-9), else %g. */
void exp_cloth_fmt_step(char *buf, size_t len, double h)
{
  double f = 1 / h;
  if (f >= 2 && fabs(f - round(f)) <= 1e-9 * f)
    snprintf(buf, len, "1/%.0f", round(f));
  else
    snprintf(buf, len, "%g", h);
}

