/*
 * tests/test_constraint_derivatives.c: the constraint types' derivatives,
 * and the types through a system, through the public header only.
 *
 * For every type in cdyn_constraint_types[] (the table is walked, so a new
 * type is covered as soon as it is registered) and at many pseudo-random
 * states, the derivatives a type reports are compared with finite
 * differences of the Phi it reports:
 *   jac[p][k]        central difference of Phi in x_p[k]
 *   phi_t            central difference of Phi in t
 *   jdotv            central difference of s -> J(q + s v) v
 *   jdotv + phi_tt   central second difference of s -> Phi(q + s v, t + s)
 *   hess             central difference of J(x)^T lambda in x_p[k], for
 *                    random multipliers; K is symmetric, v^T K v is the
 *                    rows' jdotv weighted by lambda, and hess fails where
 *                    eval fails
 * Then, through a system: the constraint values and error match the rows
 * and a hand computation for a link and a moving pin, coincident particles
 * are reported as degenerate, and a pendulum hanging at rest has a positive
 * multiplier m g in its link (tension, the sign convention of system.h).
 *
 * The types beyond the link and the pin, by hand and in motion, are in
 * test_constraints.c.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "testutil.h"

static const double pi = 3.14159265358979323846;

/* States drawn per type and per check. */
#define NSTATES 25

/* ---- states -------------------------------------------------------------------- */

typedef struct {
  const cdyn_constraint_type *type;
  double params[CDYN_MAX_PARAMS];
  double x[CDYN_MAX_PARTICLES][3], v[CDYN_MAX_PARTICLES][3];
  double t;
} sample;

/* ---- parameters per type ---------------------------------------------------- */

/*
 * Every registered type needs a generator of valid parameters here.  A
 * type without one fails the tests that walk the table, rather than being
 * skipped, so that registering a type forces its derivatives to be tested.
 * The generators draw values of order one, like the states below, which is
 * what the finite-difference tolerances are derived for.
 *
 * A type may also give a predicate `well` that rejects a drawn state too
 * close to where its Phi is not differentiable (a particle at a sphere's
 * centre, a sliver triangle, nearly parallel edges): near there the
 * derivatives grow without bound and no fixed finite-difference tolerance
 * holds.  The predicates keep every length that a type divides by at
 * 0.5 or more, as the 0.5 spacing of particles does for a link.
 */
static void gen_distance(uint64_t *rng, double *p)
{
  p[0] = tu_uniform(rng, 0.3, 2.0); /* length */
}

static void gen_pin(uint64_t *rng, double *p)
{
  for (int k = 0; k < 9; k++) /* p0, u, a */
    p[k] = tu_rand(rng);
  p[9] = tu_uniform(rng, 0.5, 3.0); /* omega */
  p[10] = tu_uniform(rng, -pi, pi); /* phase */
}

/* A vector in [-1, 1)^3 of length at least 0.5 (a normal of order one). */
static void gen_normal(uint64_t *rng, double *n)
{
  do
    for (int k = 0; k < 3; k++)
      n[k] = tu_rand(rng);
  while (n[0] * n[0] + n[1] * n[1] + n[2] * n[2] < 0.25);
}

static void gen_circle(uint64_t *rng, double *p)
{
  for (int k = 0; k < 3; k++) /* centre */
    p[k] = tu_rand(rng);
  gen_normal(rng, p + 3);
  p[6] = tu_uniform(rng, 0.3, 2.0); /* radius */
}

/* A hoop: centre, an axis, a normal well away from it, R, a spin rate. */
static void gen_hoop(uint64_t *rng, double *p)
{
  for (int k = 0; k < 3; k++)
    p[k] = tu_rand(rng);
  gen_normal(rng, p + 3);
  double na = sqrt(p[3] * p[3] + p[4] * p[4] + p[5] * p[5]), c;
  do {
    gen_normal(rng, p + 6);
    double nn = sqrt(p[6] * p[6] + p[7] * p[7] + p[8] * p[8]);
    c = fabs(p[3] * p[6] + p[4] * p[7] + p[5] * p[8]) / (na * nn);
  } while (c > 0.9);
  p[9] = tu_uniform(rng, 0.3, 2.0);  /* radius */
  p[10] = tu_uniform(rng, -3.0, 3.0); /* spin rate */
}

static void gen_sphere(uint64_t *rng, double *p)
{
  for (int k = 0; k < 3; k++)
    p[k] = tu_rand(rng);
  p[3] = tu_uniform(rng, 0.3, 2.0);
}

static void gen_plane(uint64_t *rng, double *p)
{
  for (int k = 0; k < 3; k++)
    p[k] = tu_rand(rng);
  gen_normal(rng, p + 3);
}

static void gen_curve(uint64_t *rng, double *p)
{
  for (int r = 0; r < 2; r++) {
    double *c = p + 6 * r;
    for (int k = 0; k < 4; k++) /* a0, a1, a2, A */
      c[k] = tu_rand(rng);
    c[4] = tu_uniform(rng, 0.5, 2.0); /* k */
    c[5] = tu_uniform(rng, -pi, pi);  /* phase */
  }
}

static void gen_angle(uint64_t *rng, double *p)
{
  p[0] = tu_uniform(rng, 0.3, pi - 0.3);
}

static void gen_none(uint64_t *rng, double *p)
{
  (void)rng;
  (void)p;
}

/* The anchor's path moves at |p'| <= |u| + |a| omega <= 0.52 + 1.04, so
   that the relative velocity stays of the size of a link's (see below). */
static void gen_anchor(uint64_t *rng, double *p)
{
  p[0] = tu_uniform(rng, 0.3, 2.0); /* length */
  for (int k = 1; k < 4; k++)       /* p0 */
    p[k] = tu_rand(rng);
  for (int k = 4; k < 10; k++) /* u, a */
    p[k] = 0.3 * tu_rand(rng);
  p[10] = tu_uniform(rng, 0.5, 2.0); /* omega */
  p[11] = tu_uniform(rng, -pi, pi);  /* phase */
}

static void gen_thickness(uint64_t *rng, double *p)
{
  p[0] = tu_uniform(rng, 0.0, 0.5);
}

/* |(b - a) x (d - c)| / (|b - a| |d - c|): the sine of the angle between
   two edges. */
static double sine_between(const double *a, const double *b, const double *c, const double *d)
{
  double e[3], f[3];
  for (int k = 0; k < 3; k++) {
    e[k] = b[k] - a[k];
    f[k] = d[k] - c[k];
  }
  double n[3] = {e[1] * f[2] - e[2] * f[1], e[2] * f[0] - e[0] * f[2], e[0] * f[1] - e[1] * f[0]};
  return sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) /
         (sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) * sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]));
}

static int well_sphere(const sample *s)
{
  return tu_dist3(s->x[0], s->params) >= 0.5;
}

static int well_anchor(const sample *s)
{
  const double *p = s->params;
  double ph = sin(p[10] * s->t + p[11]) - sin(p[11]), at[3];
  for (int k = 0; k < 3; k++)
    at[k] = p[1 + k] + p[4 + k] * s->t + p[7 + k] * ph;
  return tu_dist3(s->x[0], at) >= 0.5;
}

/* N = |e1| |e2| sin(angle) >= 0.5 |e1| |e2|: the triangle's angle at x1,
   which the normal is built from, lies in [30, 150] degrees. */
static int well_node_triangle(const sample *s)
{
  return sine_between(s->x[1], s->x[2], s->x[1], s->x[3]) >= 0.5;
}

static int well_edge_edge(const sample *s)
{
  return sine_between(s->x[0], s->x[1], s->x[2], s->x[3]) >= 0.5;
}

static const struct {
  const char *name;
  unsigned nparams;
  void (*gen)(uint64_t *rng, double *params);
  int (*well)(const sample *s); /* NULL: every state drawn is fine */
} generators[] = {
  {"distance", 1, gen_distance, NULL},
  /* The same length parameter. */
  {"tether", 1, gen_distance, NULL},
  {"pin", 11, gen_pin, NULL},
  {"circle", 7, gen_circle, NULL},
  {"sphere", 4, gen_sphere, well_sphere},
  {"plane", 6, gen_plane, NULL},
  /* The same parameters (a point, a normal of order one, not unit). */
  {"halfspace", 6, gen_plane, NULL},
  {"hoop", 11, gen_hoop, NULL},
  {"curve", 12, gen_curve, NULL},
  {"angle", 1, gen_angle, NULL},
  {"parallel", 0, gen_none, NULL},
  {"anchor", 12, gen_anchor, well_anchor},
  {"node_triangle", 1, gen_thickness, well_node_triangle},
  {"edge_edge", 1, gen_thickness, well_edge_edge},
};

/* The generator table's entry for `type`, failing the test if it has none. */
static size_t generator_of(const cdyn_constraint_type *type)
{
  for (size_t k = 0; k < sizeof generators / sizeof generators[0]; k++)
    if (!strcmp(generators[k].name, type->name)) {
      ck_assert_msg(generators[k].nparams == type->nparams,
                    "constraint type '%s' now has %u parameters; its generator in "
                    "tests/test_constraint_derivatives.c draws %u",
                    type->name, type->nparams, generators[k].nparams);
      return k;
    }
  ck_abort_msg("constraint type '%s' is registered but tests/test_constraint_derivatives.c has no "
               "parameter generator for it; add one to generators[]",
               type->name);
  return 0;
}

/* Draw valid parameters for `type`. */
static void draw_params(const cdyn_constraint_type *type, uint64_t *rng, double *params)
{
  size_t k = generator_of(type);
  generators[k].gen(rng, params);
  if (type->check)
    ck_assert_msg(type->check(params) == CDYN_OK, "type '%s' rejects generated parameters: %s",
                  type->name, cdyn_errmsg());
}

/*
 * A state for `type`: positions in [-1, 1)^3 with every pair of particles
 * at least 0.5 apart (Phi of a link is not differentiable where its
 * particles meet, and its derivatives grow like 1/r^k near there),
 * velocities in [-0.5, 0.5)^3 and t in [-2, 2), redrawn until the type's
 * predicate (if any) accepts it.
 */
static void draw_sample(const cdyn_constraint_type *type, uint64_t *rng, sample *s)
{
  memset(s, 0, sizeof *s);
  s->type = type;
  size_t g = generator_of(type);
  draw_params(type, rng, s->params);
  for (;;) {
    for (unsigned p = 0; p < type->nparticles; p++)
      for (int k = 0; k < 3; k++) {
        s->x[p][k] = tu_rand(rng);
        s->v[p][k] = 0.5 * tu_rand(rng);
      }
    s->t = 2.0 * tu_rand(rng);
    int ok = 1;
    for (unsigned a = 0; a < type->nparticles; a++)
      for (unsigned b = 0; b < a; b++)
        if (tu_dist3(s->x[a], s->x[b]) < 0.5)
          ok = 0;
    if (ok && (!generators[g].well || generators[g].well(s)))
      break;
  }
}

/* Evaluate the type of `s` at positions x, velocities v and time t. */
static void eval_at(const sample *s, double x[][3], double v[][3], double t, cdyn_row *rows)
{
  const double *xp[CDYN_MAX_PARTICLES] = {NULL}, *vp[CDYN_MAX_PARTICLES] = {NULL};
  for (unsigned p = 0; p < s->type->nparticles; p++) {
    xp[p] = x[p];
    vp[p] = v[p];
  }
  memset(rows, 0, s->type->rows * sizeof *rows);
  int rc = s->type->eval(s->params, xp, vp, t, rows);
  ck_assert_msg(rc == CDYN_OK, "type '%s': eval failed at a non-degenerate state: %d (%s)",
                s->type->name, rc, cdyn_errmsg());
}

/* Positions q + s v of a sample, into y. */
static void shift(const sample *s, double step, double y[][3])
{
  for (unsigned p = 0; p < CDYN_MAX_PARTICLES; p++)
    for (int k = 0; k < 3; k++)
      y[p][k] = s->x[p][k] + step * s->v[p][k];
}

/*
 * Error bound shared by the first-derivative checks (central differences
 * with step h = 1e-6, states and parameters of order one as drawn above):
 *   truncation  h^2 / 6 |Phi'''|: for a link |Phi'''| <= 3 |u|^3 / r^2 with
 *               |u| <= sqrt(3) (the relative velocity, for the d/ds checks)
 *               or 1 (an axis) and r >= 0.5, so <= 63 and the error is
 *               about 1e-11; a pin is linear in x, and in t its third
 *               derivative is |a| omega^3 <= sqrt(3) 27, again <= 1e-11.
 *   rounding    each Phi (|Phi| <= about 12: |x| + |p0| + |u t| + 2 |a|)
 *               carries about eps |Phi| = 3e-15, divided by 2 h: 3e-9.
 * So 1e-7 (1 + |reference|) holds with a margin above 30, while a wrong
 * sign, axis or particle gives an error of order one.
 *
 * The other types obey the same count with their own lengths in place of
 * r: a sphere's |x - c| and an anchor's |x - p(t)| (kept >= 0.5 by their
 * predicates; the anchor's path speed is at most 1.6, so relative speeds
 * stay below 2.5), the link lengths of angle and parallel (>= 0.5 by the
 * spacing of particles), and for node_triangle and edge_edge
 * |n| / |e| >= 0.5 |e'| >= 0.25 by their predicates (a normal turns at
 * the rate |n'| / |n|).  circle, plane and curve are polynomials or
 * sines of order one in x.  Measured over 20000 states per type, the
 * largest difference of any of these checks is 14 % of its tolerance
 * (node_triangle's jdotv + phi_tt) and at most 3 % for the others;
 * without the predicates node_triangle and edge_edge exceed the
 * tolerance (5 and 31 times), which is why they are there.
 */
static const double fd_h = 1e-6;
static const double fd_tol = 1e-7;

static void check_close(const char *what, const sample *s, unsigned r, int p, int k,
                        double fd, double ref, double tol)
{
  ck_assert_msg(fabs(fd - ref) <= tol * (1.0 + fabs(ref)),
                "type '%s', row %u, %s (particle %d, axis %d): reported %.17g, finite "
                "difference %.17g (difference %.3g, tolerance %.3g) at t = %.17g",
                s->type->name, r, what, p, k, ref, fd, fd - ref, tol * (1.0 + fabs(ref)), s->t);
}

/* ---- tests of every type ------------------------------------------------------- */

/* The table is well formed, and every entry can be found by its name. */
START_TEST(test_type_table)
{
  size_t count = 0;
  uint64_t rng = 11;
  for (size_t i = 0; cdyn_constraint_types[i]; i++, count++) {
    const cdyn_constraint_type *type = cdyn_constraint_types[i];
    ck_assert_ptr_nonnull(type->name);
    ck_assert_str_ne(type->name, "");
    ck_assert_ptr_nonnull(type->description);
    ck_assert_str_ne(type->description, "");
    ck_assert_ptr_nonnull(type->eval);
    ck_assert_uint_ge(type->nparticles, 1);
    ck_assert_uint_le(type->nparticles, CDYN_MAX_PARTICLES);
    ck_assert_uint_ge(type->rows, 1);
    ck_assert_uint_le(type->rows, CDYN_MAX_ROWS);
    ck_assert_uint_le(type->nparams, CDYN_MAX_PARAMS);
    if (type->nparams) {
      ck_assert_ptr_nonnull(type->param_names);
      for (unsigned a = 0; a < type->nparams; a++)
        ck_assert_msg(type->param_names[a] && type->param_names[a][0],
                      "type '%s': parameter %u has no name", type->name, a);
    }
    const cdyn_constraint_type *found = NULL;
    ck_assert_int_eq(cdyn_constraint_type_find(type->name, &found), CDYN_OK);
    ck_assert_ptr_eq(found, type);
    double params[CDYN_MAX_PARAMS];
    draw_params(type, &rng, params);
  }
  ck_assert_uint_ge(count, 2);
  const cdyn_constraint_type *t = NULL;
  ck_assert_int_eq(cdyn_constraint_type_find("distance", &t), CDYN_OK);
  ck_assert_ptr_eq(t, cdyn_constraint_distance);
  ck_assert_int_eq(cdyn_constraint_type_find("pin", &t), CDYN_OK);
  ck_assert_ptr_eq(t, cdyn_constraint_pin);
  /* Each built-in type's public pointer is the registered object. */
  const struct {
    const char *name;
    const cdyn_constraint_type *ptr;
  } builtin[] = {{"circle", cdyn_constraint_circle},     {"sphere", cdyn_constraint_sphere},
                 {"plane", cdyn_constraint_plane},       {"curve", cdyn_constraint_curve},
                 {"angle", cdyn_constraint_angle},       {"parallel", cdyn_constraint_parallel},
                 {"anchor", cdyn_constraint_anchor},     {"node_triangle", cdyn_constraint_node_triangle},
                 {"edge_edge", cdyn_constraint_edge_edge},
                 {"halfspace", cdyn_constraint_halfspace},
                 {"hoop", cdyn_constraint_hoop}};
  for (size_t k = 0; k < sizeof builtin / sizeof builtin[0]; k++) {
    ck_assert_int_eq(cdyn_constraint_type_find(builtin[k].name, &t), CDYN_OK);
    ck_assert_ptr_eq(t, builtin[k].ptr);
  }
}
END_TEST

/*
 * Every registered type at NSTATES drawn states (seeded by `seed`): the
 * rows at the sample, `base`, go to `check`, which compares them with its
 * finite differences.
 */
static void each_sample(uint64_t seed, void (*check)(sample *s, const cdyn_row *base))
{
  for (size_t i = 0; cdyn_constraint_types[i]; i++)
    for (int trial = 0; trial < NSTATES; trial++) {
      sample s;
      cdyn_row base[CDYN_MAX_ROWS];
      draw_sample(cdyn_constraint_types[i], &seed, &s);
      eval_at(&s, s.x, s.v, s.t, base);
      check(&s, base);
    }
}

/* jac[p][k] = dPhi / dx_p[k]. */
static void check_jacobian(sample *s, const cdyn_row *base)
{
  cdyn_row plus[CDYN_MAX_ROWS], minus[CDYN_MAX_ROWS];
  for (unsigned p = 0; p < s->type->nparticles; p++)
    for (int k = 0; k < 3; k++) {
      double xp[CDYN_MAX_PARTICLES][3], xm[CDYN_MAX_PARTICLES][3];
      memcpy(xp, s->x, sizeof xp);
      memcpy(xm, s->x, sizeof xm);
      xp[p][k] += fd_h;
      xm[p][k] -= fd_h;
      /* The step actually taken, after rounding of x +- h. */
      double dx = xp[p][k] - xm[p][k];
      eval_at(s, xp, s->v, s->t, plus);
      eval_at(s, xm, s->v, s->t, minus);
      for (unsigned r = 0; r < s->type->rows; r++)
        check_close("jac", s, r, (int)p, k, (plus[r].phi - minus[r].phi) / dx, base[r].jac[p][k], fd_tol);
    }
}

START_TEST(test_jacobian)
{
  each_sample(UINT64_C(0x6A09E667F3BCC908), check_jacobian);
}
END_TEST

/* phi_t = dPhi / dt at fixed positions. */
static void check_phi_t(sample *s, const cdyn_row *base)
{
  cdyn_row plus[CDYN_MAX_ROWS], minus[CDYN_MAX_ROWS];
  double tp = s->t + fd_h, tm = s->t - fd_h;
  eval_at(s, s->x, s->v, tp, plus);
  eval_at(s, s->x, s->v, tm, minus);
  for (unsigned r = 0; r < s->type->rows; r++)
    check_close("phi_t", s, r, -1, -1, (plus[r].phi - minus[r].phi) / (tp - tm), base[r].phi_t, fd_tol);
}

START_TEST(test_phi_t)
{
  each_sample(UINT64_C(0xBB67AE8584CAA73B), check_phi_t);
}
END_TEST

/* g(s) = sum_p jac[p](q + s v) . v_p at fixed t. */
static double jv_at(const sample *s, unsigned r, double step)
{
  double y[CDYN_MAX_PARTICLES][3];
  cdyn_row rows[CDYN_MAX_ROWS];
  shift(s, step, y);
  double v[CDYN_MAX_PARTICLES][3];
  memcpy(v, s->v, sizeof v);
  eval_at(s, y, v, s->t, rows);
  double g = 0;
  for (unsigned p = 0; p < s->type->nparticles; p++)
    for (int k = 0; k < 3; k++)
      g += rows[r].jac[p][k] * s->v[p][k];
  return g;
}

/* jdotv = (J v)_q v = d/ds J(q + s v) v at s = 0. */
static void check_jdotv(sample *s, const cdyn_row *base)
{
  for (unsigned r = 0; r < s->type->rows; r++) {
    double fd = (jv_at(s, r, fd_h) - jv_at(s, r, -fd_h)) / (2 * fd_h);
    check_close("jdotv", s, r, -1, -1, fd, base[r].jdotv, fd_tol);
  }
}

START_TEST(test_jdotv)
{
  each_sample(UINT64_C(0x3C6EF372FE94F82B), check_jdotv);
}
END_TEST

/*
 * Along the motion q(s) = q + s v, t(s) = t + s (zero acceleration),
 *   d^2/ds^2 Phi = v^T Phi_qq v + 2 Phi_qt v + Phi_tt = jdotv + phi_tt,
 * which checks phi_tt, including its cross term, independently of how a
 * type splits it.  Central second difference with h = 1e-4:
 *   truncation  h^2 / 12 |f''''|: for a link |f''''| <= 24 |u|^4 / r^3 with
 *               |u| <= sqrt(3), r >= 0.5, so <= 1728 and the error is
 *               <= 1.5e-6; for a pin |a| omega^4 <= sqrt(3) 81, 1.2e-7.
 *   rounding    4 eps |Phi| / h^2 with |Phi| <= 12: 1.1e-6.
 * Both are worst cases that the drawn states do not reach together, so
 * 1e-5 (1 + |reference|) holds with a margin of at least 4.
 */
static void check_phi_tt(sample *s, const cdyn_row *base)
{
  const double h = 1e-4, tol = 1e-5;
  cdyn_row plus[CDYN_MAX_ROWS], minus[CDYN_MAX_ROWS];
  double yp[CDYN_MAX_PARTICLES][3], ym[CDYN_MAX_PARTICLES][3];
  shift(s, h, yp);
  shift(s, -h, ym);
  eval_at(s, yp, s->v, s->t + h, plus);
  eval_at(s, ym, s->v, s->t - h, minus);
  for (unsigned r = 0; r < s->type->rows; r++) {
    double fd = (plus[r].phi - 2 * base[r].phi + minus[r].phi) / (h * h);
    check_close("jdotv + phi_tt", s, r, -1, -1, fd, base[r].jdotv + base[r].phi_tt, tol);
  }
}

START_TEST(test_phi_tt)
{
  each_sample(UINT64_C(0xA54FF53A5F1D36F1), check_phi_tt);
}
END_TEST

/*
 * The geometric stiffness K = sum_r lambda_r Hess Phi_r (the type's
 * `hess`).  Every entry of cdyn_constraint_types[] is a built-in type
 * (the table is lib/constraints/constraints.def; a type of the user's
 * is never in it), and every built-in type must give hess: the schemes
 * that need it would otherwise take it by finite differences
 * (lib/core/fdhess.c), slower and to about eps^(2/3) rather than to
 * rounding, which is acceptable for a user's type but not for a built-in
 * one.  So a registered type without hess fails here, as one without a
 * parameter generator does.
 *
 * Column (p, k) of K is d/dx_p[k] of the generalised constraint force
 * G(x) = J(x)^T lambda (the rows' jac as eval reports them), compared
 * with its central difference with step h = 5e-6, for lambda drawn in
 * [-1, 1)^rows, at the states of the first-derivative checks:
 *   truncation  h^2 / 6 |G'''|, G''' a fourth derivative of Phi times the
 *               multipliers (up to three rows of |lambda| <= 1).  For a
 *               link every fourth partial derivative of r is at most
 *               3 / r^3, 24 at r >= 0.5; sphere, anchor, angle and
 *               parallel obey the same count with their own lengths
 *               (>= 0.5, see above), and three rows of such terms give
 *               h^2 / 6 * 3 * 24 = 3e-10.  node_triangle and edge_edge
 *               are the largest: Phi = nh.d with |d| <= 2 sqrt(3), and nh
 *               turns at up to 1 / (|e| sin(angle)) <= 4 per unit motion
 *               of a vertex (their predicates), so their fourth
 *               derivatives are of order |d| 4^4 = 900 times a constant
 *               of order ten (measured: |G'''| up to 1.6e4); 2e4 gives
 *               h^2 / 6 * 2e4 = 8e-8.
 *   rounding    each entry of G (|G| <= about 10: the rows' jac are at
 *               most of order 1 / length <= 4 per unit multiplier)
 *               carries about 4 eps |G| = 9e-15, divided by 2 h: 1e-9.
 * So 1e-6 (1 + |K|) holds with a margin above 10 over the worst case,
 * while a wrong sign, a missing term or a swapped block gives an error
 * of order 1e-2 to 1 (dropping node_triangle's bilinear term C(g), or the
 * -f P / N^2 term of a unit vector's Hessian, or flipping the sign of
 * parallel's C, each fails at the first state drawn, by more than 1e-2).
 * h = 5e-6 balances
 * the two: the truncation term, which grows like h^2, dominates above it.
 * Measured over 20000 states per type, the largest difference is 0.7 %
 * of the tolerance (node_triangle, 6.5e-8), 0.3 % for edge_edge, 0.05 %
 * for angle and parallel, at most 0.013 % for the others, and 0 for
 * the types linear in x (pin, plane, halfspace), whose K and difference
 * are both exactly 0.
 *
 * K must also be symmetric.  Its entries (i, j) and (j, i) come from the
 * same formulas summed in different orders, so they agree to a few
 * roundings of the largest entry: 1e-14 (1 + max |K|) (measured: at most
 * 3.5e-16 (1 + max |K|), one rounding, in node_triangle, angle and
 * edge_edge; exactly symmetric in the others).
 *
 * And K is the velocity term's matrix: (J_r v)_q v = v^T Hess Phi_r v, so
 * v^T K v = sum_r lambda_r jdotv_r exactly, an independent check of
 * both that no step size blurs.  The two sides are different formulas,
 * each rounding sums of up to 144 terms of size |v|^2 max |K| (below
 * 0.75 * 10), so they agree to a few 1e-15: 1e-13 (1 + |reference|)
 * (measured over 20000 states per type: at most 2.7e-15 (1 +
 * |reference|), edge_edge).
 */
static const double hess_h = 5e-6;
static const double hess_tol = 1e-6;
static const double hess_sym_tol = 1e-14;
static const double hess_vkv_tol = 1e-13;

/* K of the type of `s` at positions x for multipliers lambda, by the
   type's hess (fd = 0) or by finite differences (fd = 1), after filling
   it with NaN (so that an entry left unset fails). */
static int k_at(const sample *s, double x[][3], const double *lambda, double *K, int fd)
{
  const double *xp[CDYN_MAX_PARTICLES] = {NULL};
  for (unsigned p = 0; p < s->type->nparticles; p++)
    xp[p] = x[p];
  unsigned n = 3 * s->type->nparticles;
  for (unsigned k = 0; k < n * n; k++)
    K[k] = NAN;
  return fd ? cdyn_constraint_fd_hess(s->type, s->params, xp, s->t, lambda, K)
            : s->type->hess(s->params, xp, s->t, lambda, K);
}

static int hess_at(const sample *s, double x[][3], const double *lambda, double *K)
{
  return k_at(s, x, lambda, K, 0);
}

/* G = J^T lambda at positions x, into G (3 np). */
static void force_at(sample *s, double x[][3], const double *lambda, double *G)
{
  cdyn_row rows[CDYN_MAX_ROWS];
  eval_at(s, x, s->v, s->t, rows);
  for (unsigned p = 0; p < s->type->nparticles; p++)
    for (int k = 0; k < 3; k++) {
      G[3 * p + k] = 0;
      for (unsigned r = 0; r < s->type->rows; r++)
        G[3 * p + k] += lambda[r] * rows[r].jac[p][k];
    }
}

static uint64_t hess_rng = UINT64_C(0x9B05688C2B3E6C1F);

static void check_hess(sample *s, const cdyn_row *base)
{
  ck_assert_msg(s->type->hess != NULL,
                "constraint type '%s' is built in but gives no geometric stiffness (hess is NULL); the "
                "schemes that need it would take it by finite differences",
                s->type->name);
  enum { NMAX = 3 * CDYN_MAX_PARTICLES };
  unsigned np = s->type->nparticles, n = 3 * np;
  double lambda[CDYN_MAX_ROWS], K[NMAX * NMAX];
  for (unsigned r = 0; r < s->type->rows; r++)
    lambda[r] = tu_rand(&hess_rng);
  int rc = hess_at(s, s->x, lambda, K);
  ck_assert_msg(rc == CDYN_OK, "type '%s': hess failed at a non-degenerate state: %d (%s)", s->type->name, rc,
                cdyn_errmsg());
  double kmax = 0;
  for (unsigned k = 0; k < n * n; k++)
    kmax = fmax(kmax, fabs(K[k]));
  /* v^T K v = sum_r lambda_r (J_r v)_q v: the rows' jdotv. */
  double vkv = 0, jv = 0, vflat[NMAX];
  for (unsigned p = 0; p < np; p++)
    for (int k = 0; k < 3; k++)
      vflat[3 * p + k] = s->v[p][k];
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < n; j++)
      vkv += vflat[i] * K[i * n + j] * vflat[j];
  for (unsigned r = 0; r < s->type->rows; r++)
    jv += lambda[r] * base[r].jdotv;
  ck_assert_msg(fabs(vkv - jv) <= hess_vkv_tol * (1 + fabs(jv)),
                "type '%s': v^T K v = %.17g, but sum_r lambda_r jdotv_r = %.17g (difference %.3g)", s->type->name,
                vkv, jv, vkv - jv);
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < i; j++)
      ck_assert_msg(fabs(K[i * n + j] - K[j * n + i]) <= hess_sym_tol * (1 + kmax),
                    "type '%s': K is not symmetric: K[%u][%u] = %.17g, K[%u][%u] = %.17g", s->type->name, i, j,
                    K[i * n + j], j, i, K[j * n + i]);
  for (unsigned p = 0; p < np; p++)
    for (int k = 0; k < 3; k++) {
      double xp[CDYN_MAX_PARTICLES][3], xm[CDYN_MAX_PARTICLES][3], Gp[NMAX], Gm[NMAX];
      memcpy(xp, s->x, sizeof xp);
      memcpy(xm, s->x, sizeof xm);
      xp[p][k] += hess_h;
      xm[p][k] -= hess_h;
      double dx = xp[p][k] - xm[p][k];
      force_at(s, xp, lambda, Gp);
      force_at(s, xm, lambda, Gm);
      unsigned col = 3 * p + (unsigned)k;
      for (unsigned i = 0; i < n; i++) {
        double fd = (Gp[i] - Gm[i]) / dx, ref = K[i * n + col];
        ck_assert_msg(fabs(fd - ref) <= hess_tol * (1.0 + fabs(ref)),
                      "type '%s', K[%u][%u] (d/dx_%u[%d] of (J^T lambda)_%u): reported %.17g, finite difference "
                      "%.17g (difference %.3g, tolerance %.3g) at t = %.17g",
                      s->type->name, i, col, p, k, i, ref, fd, fd - ref, hess_tol * (1.0 + fabs(ref)), s->t);
      }
    }
}

START_TEST(test_hess)
{
  each_sample(UINT64_C(0x1F83D9ABFB41BD6B), check_hess);
}
END_TEST

/*
 * The library's finite-difference geometric stiffness
 * (cdyn_constraint_fd_hess, lib/core/fdhess.c: what a type without hess
 * gets) against every built-in type's analytic hess, where the truth is
 * known, at NSTATES states of the draws above per type and multipliers
 * drawn in [-1, 1)^rows.  The scale of K's entries is
 *   S = max(max |K|, |lambda|_1 max |jac| / s),
 * s the length fdhess.c derives its step from (the particles' extent, or
 * the largest coordinate for one particle), and fdhess.c's error estimate
 * at its step is (3 eps)^(2/3) / 2 * S (1 + X / s)^(2/3): 4e-11 S to
 * 6e-11 S with coordinates and lengths of order one as drawn.  The
 * estimate takes |G'''| ~ |G| / s^3; the types' fourth derivatives exceed
 * that by their own constants (test_hess above: |G'''| up to 1.6e4 for
 * node_triangle and edge_edge, whose normals turn at up to 4 per unit
 * motion), so that with delta ~ 8.7e-6 and S of order 10 the truncation
 * alone can reach delta^2 |G'''| / 6 ~ 2e-7 ~ 270 (3 eps)^(2/3) S.  The
 * tolerance is
 *   hess_fd_tol = 1e3 * (3 eps)^(2/3) * S    (7.6e-8 S),
 * near 4 times that worst case; measured, the largest error over these
 * draws is 46 (3 eps)^(2/3) S (edge_edge; angle, parallel and
 * node_triangle 25 to 27, the others below 1.3).  It is far below the O(delta) error
 * of a one-sided difference at the same step, delta |G''| / 2 ~ 4e-6 S
 * (measured: 100 to 750 times the tolerance), which the test computes alongside and
 * requires to exceed the tolerance on some state of every type whose J
 * varies with x (found by comparing hess at the state and at a nearby
 * one): a one-sided difference, or any first-order slip in the step,
 * fails it.  Where K is constant (circle, sphere, hoop: quadratic Phi;
 * and pin, plane, halfspace: K = 0), a one-sided difference is exact as
 * well, and nothing could tell the two apart.  The measured largest ratio of error to
 * tolerance is printed under CDYN_TEST_VERBOSE.  The result must also be
 * exactly symmetric (fdhess.c symmetrises it).
 */
static const double hess_fd_c = 1e3;

static int fd_hess_at(const sample *s, double x[][3], const double *lambda, double *K)
{
  return k_at(s, x, lambda, K, 1);
}

/* s of fdhess.c's step rule, for the scale S. */
static double fd_length(const sample *s)
{
  unsigned np = s->type->nparticles;
  double X = 0, L = 0;
  for (unsigned a = 0; a < np; a++) {
    for (int k = 0; k < 3; k++)
      X = fmax(X, fabs(s->x[a][k]));
    for (unsigned b = 0; b < a; b++)
      L = fmax(L, tu_dist3(s->x[a], s->x[b]));
  }
  return L > 0 ? L : X > 0 ? X : 1.0;
}

START_TEST(test_fd_hess_matches_hess)
{
  enum { NMAX = 3 * CDYN_MAX_PARTICLES };
  const double eps23 = pow(3 * DBL_EPSILON, 2.0 / 3.0);
  uint64_t rng = UINT64_C(0x3C6EF372FE94F82B), lrng = UINT64_C(0xA54FF53A5F1D36F1);
  double worst_all = 0;
  for (size_t i = 0; cdyn_constraint_types[i]; i++) {
    const cdyn_constraint_type *type = cdyn_constraint_types[i];
    ck_assert_msg(type->hess, "type '%s' has no hess (test_hess says more)", type->name);
    double worst = 0, onesided = 0; /* the largest error / tolerance of each */
    int varying = 0;
    for (int trial = 0; trial < NSTATES; trial++) {
      sample s;
      draw_sample(type, &rng, &s);
      unsigned np = type->nparticles, n = 3 * np;
      double lambda[CDYN_MAX_ROWS], K[NMAX * NMAX], F[NMAX * NMAX], lsum = 0;
      for (unsigned r = 0; r < type->rows; r++) {
        lambda[r] = tu_rand(&lrng);
        lsum += fabs(lambda[r]);
      }
      ck_assert_int_eq(hess_at(&s, s.x, lambda, K), CDYN_OK);
      int rc = fd_hess_at(&s, s.x, lambda, F);
      ck_assert_msg(rc == CDYN_OK, "type '%s': cdyn_constraint_fd_hess failed: %d (%s)", type->name, rc,
                    cdyn_errmsg());
      cdyn_row base[CDYN_MAX_ROWS];
      eval_at(&s, s.x, s.v, s.t, base);
      double jmax = 0, kmax = 0;
      for (unsigned r = 0; r < type->rows; r++)
        for (unsigned p = 0; p < np; p++)
          for (int k = 0; k < 3; k++)
            jmax = fmax(jmax, fabs(base[r].jac[p][k]));
      for (unsigned k = 0; k < n * n; k++)
        kmax = fmax(kmax, fabs(K[k]));
      double S = fmax(kmax, lsum * jmax / fd_length(&s)), tol = hess_fd_c * eps23 * S;
      for (unsigned a = 0; a < n; a++)
        for (unsigned b = 0; b < n; b++) {
          ck_assert_msg(F[a * n + b] == F[b * n + a], "type '%s': the difference K is not symmetric at (%u, %u)",
                        type->name, a, b);
          double e = fabs(F[a * n + b] - K[a * n + b]);
          ck_assert_msg(e <= tol,
                        "type '%s', K[%u][%u]: hess %.17g, finite differences %.17g (difference %.3g, tolerance "
                        "%.3g = %g (3 eps)^(2/3) S, S = %.3g) at t = %.17g",
                        type->name, a, b, K[a * n + b], F[a * n + b], e, tol, hess_fd_c, S, s.t);
          worst = fmax(worst, e / tol);
        }
      /* Does K change with x (is G = J^T lambda not affine)?  Then a
         one-sided difference has an O(delta) error. */
      double y[CDYN_MAX_PARTICLES][3], K1[NMAX * NMAX];
      shift(&s, 0.05, y);
      ck_assert_int_eq(hess_at(&s, y, lambda, K1), CDYN_OK);
      for (unsigned k = 0; k < n * n; k++)
        varying |= fabs(K1[k] - K[k]) > 1e-3 * S;
      /* The one-sided difference at the library's step. */
      const double *xp[CDYN_MAX_PARTICLES] = {NULL};
      for (unsigned p = 0; p < np; p++)
        xp[p] = s.x[p];
      double delta = cdyn_constraint_fd_step(type, xp), G0[NMAX], G1[NMAX];
      force_at(&s, s.x, lambda, G0);
      for (unsigned j = 0; j < n; j++) {
        double y[CDYN_MAX_PARTICLES][3];
        memcpy(y, s.x, sizeof y);
        y[j / 3][j % 3] += delta;
        double dx = y[j / 3][j % 3] - s.x[j / 3][j % 3];
        force_at(&s, y, lambda, G1);
        for (unsigned a = 0; a < n; a++)
          onesided = fmax(onesided, fabs((G1[a] - G0[a]) / dx - K[a * n + j]) / tol);
      }
    }
    if (varying)
      ck_assert_msg(onesided > 1,
                    "type '%s': a one-sided difference at the library's step stays within the tolerance (at most "
                    "%.3g of it): the test could not tell it from the central one",
                    type->name, onesided);
    worst_all = fmax(worst_all, worst);
    if (getenv("CDYN_TEST_VERBOSE"))
      printf("fd hess %-14s largest error %.3g of the tolerance; one-sided %.3g\n", type->name, worst, onesided);
  }
  if (getenv("CDYN_TEST_VERBOSE"))
    printf("fd hess: largest error over the built-in types %.3g of the tolerance\n", worst_all);
}
END_TEST

/*
 * hess reports an error exactly where eval does, with the same status and
 * a message: at coincident particles (where a link, an angle, a triangle
 * or a pair of edges has no direction, and a sphere's or an anchor's
 * particle may sit at the centre), at a non-finite coordinate and at
 * coordinates of 1e200 (whose squares overflow).  Types that are linear
 * in x (pin) report nothing either way.  cdyn_constraint_fd_hess, the
 * stiffness of a type without hess, must do the same, but for a NaN
 * coordinate that eval accepts (the pin's), which it reports as
 * CDYN_ENONFINITE: no difference can be taken across it.
 */
START_TEST(test_hess_fails_where_eval_does)
{
  uint64_t rng = UINT64_C(0x5BE0CD19137E2179);
  for (size_t i = 0; cdyn_constraint_types[i]; i++) {
    const cdyn_constraint_type *type = cdyn_constraint_types[i];
    if (!type->hess)
      continue; /* test_hess says so */
    for (int which = 0; which < 4; which++) {
      sample s;
      draw_sample(type, &rng, &s);
      for (unsigned p = 0; p < type->nparticles; p++)
        for (int k = 0; k < 3; k++)
          switch (which) {
          case 0: /* every particle at the first one; a single particle at
                     the point of its first three parameters (a sphere's
                     centre; the anchor's point is set below) */
            s.x[p][k] = type->nparticles > 1 ? s.x[0][k] : s.params[k];
            break;
          case 1:
            if (p == 0 && k == 1)
              s.x[p][k] = NAN;
            break;
          case 2:
            s.x[p][k] *= 1e200;
            break;
          default: /* a well-drawn state: both succeed */
            break;
          }
      if (which == 0 && !strcmp(type->name, "anchor"))
        /* The anchor's point at time t. */
        for (int k = 0; k < 3; k++)
          s.x[0][k] = s.params[1 + k] + s.params[4 + k] * s.t +
                      s.params[7 + k] * (sin(s.params[10] * s.t + s.params[11]) - sin(s.params[11]));
      const double *xp[CDYN_MAX_PARTICLES] = {NULL}, *vp[CDYN_MAX_PARTICLES] = {NULL};
      for (unsigned p = 0; p < type->nparticles; p++) {
        xp[p] = s.x[p];
        vp[p] = s.v[p];
      }
      cdyn_row rows[CDYN_MAX_ROWS];
      memset(rows, 0, sizeof rows);
      double lambda[CDYN_MAX_ROWS] = {0.7, -0.4, 0.9}, K[144];
      cdyn_error_clear();
      int re = type->eval(s.params, xp, vp, s.t, rows);
      cdyn_error_clear();
      int rh = type->hess(s.params, xp, s.t, lambda, K);
      ck_assert_msg(rh == re, "type '%s', state %d: eval returns %d, hess %d (%s)", type->name, which, re, rh,
                    cdyn_errmsg());
      if (rh)
        ck_assert_msg(cdyn_errmsg()[0], "type '%s', state %d: hess returns %d without a message", type->name,
                      which, rh);
      /* And so does the finite-difference stiffness a type without hess
         gets (lib/core/fdhess.c), which evaluates at x first. */
      cdyn_error_clear();
      int rf = cdyn_constraint_fd_hess(type, s.params, xp, s.t, lambda, K);
      ck_assert_msg(rf == (which == 1 && re == CDYN_OK ? CDYN_ENONFINITE : re), "type '%s', state %d: eval returns %d, cdyn_constraint_fd_hess %d (%s)", type->name,
                    which, re, rf, cdyn_errmsg());
      if (rf)
        ck_assert_msg(cdyn_errmsg()[0], "type '%s', state %d: cdyn_constraint_fd_hess returns %d without a message",
                      type->name, which, rf);
    }
  }
}
END_TEST

/*
 * Every type through a system: the values of cdyn_system_constraint_values
 * are the rows' phi, and cdyn_system_constraint_error is their Euclidean
 * norm.  Both go through the same arithmetic as eval, so they must agree
 * to a few roundings.
 */
START_TEST(test_types_through_system)
{
  uint64_t rng = UINT64_C(0x510E527FADE682D1);
  for (size_t i = 0; cdyn_constraint_types[i]; i++) {
    const cdyn_constraint_type *type = cdyn_constraint_types[i];
    for (int trial = 0; trial < NSTATES; trial++) {
      sample s;
      draw_sample(type, &rng, &s);
      cdyn_row rows[CDYN_MAX_ROWS];
      eval_at(&s, s.x, s.v, s.t, rows);
      /* Place the particles at shuffled indices of a larger system, so that
         the system must map the constraint's particles correctly. */
      size_t n = type->nparticles + 2, idx[CDYN_MAX_PARTICLES];
      for (unsigned p = 0; p < type->nparticles; p++)
        idx[p] = n - 1 - p;
      cdyn_system *sys = NULL;
      ck_assert_int_eq(cdyn_system_new(&sys, n), CDYN_OK);
      for (unsigned p = 0; p < type->nparticles; p++) {
        ck_assert_int_eq(cdyn_system_set_position(sys, idx[p], s.x[p]), CDYN_OK);
        ck_assert_int_eq(cdyn_system_set_velocity(sys, idx[p], s.v[p]), CDYN_OK);
      }
      ck_assert_int_eq(cdyn_system_set_time(sys, s.t), CDYN_OK);
      size_t id = 99;
      ck_assert_int_eq(cdyn_system_add_constraint(sys, type, idx, s.params, &id), CDYN_OK);
      ck_assert_uint_eq(id, 0);
      ck_assert_uint_eq(cdyn_system_constraint_count(sys), 1);
      ck_assert_uint_eq(cdyn_system_row_count(sys), type->rows);
      double phi[CDYN_MAX_ROWS], e = -1, ss = 0;
      ck_assert_int_eq(cdyn_system_constraint_values(sys, phi), CDYN_OK);
      for (unsigned r = 0; r < type->rows; r++) {
        ck_assert_msg(fabs(phi[r] - rows[r].phi) <= 1e-14 * (1 + fabs(rows[r].phi)),
                      "type '%s' row %u: system value %.17g, eval %.17g", type->name, r, phi[r],
                      rows[r].phi);
        ss += rows[r].phi * rows[r].phi;
      }
      ck_assert_int_eq(cdyn_system_constraint_error(sys, &e), CDYN_OK);
      ck_assert_msg(fabs(e - sqrt(ss)) <= 1e-14 * (1 + sqrt(ss)),
                    "type '%s': constraint error %.17g, norm of rows %.17g", type->name, e,
                    sqrt(ss));
      cdyn_system_free(sys);
    }
  }
}
END_TEST

/* ---- a link and a moving pin, computed by hand ---------------------------------- */

/*
 * Particles 0 and 1 joined by a link of length L, particle 2 on the moving
 * point p(t) = p0 + u t + a (sin(w t + phase) - sin(phase)).  The error is
 * | |x0 - x1| - L | + |x2 - p(t)| and the rows are r - L, then x2 - p(t).
 * The hand computation rounds differently from the library's, by a few
 * ulps of quantities of order ten, hence 1e-13.
 */
START_TEST(test_system_error_by_hand)
{
  const double x0[3] = {0.31, -0.72, 0.15}, x1[3] = {-0.44, 0.27, 0.63};
  const double x2[3] = {1.21, 0.38, -0.93};
  const double L = 0.87;
  const double p0[3] = {0.4, -0.3, 0.9}, u[3] = {0.25, -0.6, 0.1};
  const double a[3] = {0.7, 0.35, -0.45}, w = 2.3, phase = 0.65;
  uint64_t rng = 5;
  for (int trial = 0; trial < NSTATES; trial++) {
    double t = 3.0 * tu_rand(&rng);
    cdyn_system *sys = NULL;
    ck_assert_int_eq(cdyn_system_new(&sys, 3), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, 0, x0), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, 1, x1), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, 2, x2), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_time(sys, t), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, L, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_moving_pin(sys, 2, p0, u, a, w, phase, NULL), CDYN_OK);
    ck_assert_uint_eq(cdyn_system_row_count(sys), 4);

    double r = sqrt((x0[0] - x1[0]) * (x0[0] - x1[0]) + (x0[1] - x1[1]) * (x0[1] - x1[1]) +
                    (x0[2] - x1[2]) * (x0[2] - x1[2]));
    double expect[4] = {r - L, 0, 0, 0}, pinerr2 = 0;
    for (int k = 0; k < 3; k++) {
      double pk = p0[k] + u[k] * t + a[k] * (sin(w * t + phase) - sin(phase));
      expect[1 + k] = x2[k] - pk;
      pinerr2 += expect[1 + k] * expect[1 + k];
    }
    double e_expect = fabs(r - L) + sqrt(pinerr2), e = -1, phi[4];
    ck_assert_int_eq(cdyn_system_constraint_error(sys, &e), CDYN_OK);
    ck_assert_msg(fabs(e - e_expect) <= 1e-13 * (1 + e_expect), "t = %g: error %.17g, expected %.17g",
                  t, e, e_expect);
    ck_assert_int_eq(cdyn_system_constraint_values(sys, phi), CDYN_OK);
    for (int k = 0; k < 4; k++)
      ck_assert_msg(fabs(phi[k] - expect[k]) <= 1e-13 * (1 + fabs(expect[k])),
                    "t = %g: row %d is %.17g, expected %.17g", t, k, phi[k], expect[k]);
    cdyn_system_free(sys);
  }
}
END_TEST

/* A link between coincident particles has no direction: Phi = |d| - L is
   not differentiable there, which the error measure must report. */
START_TEST(test_coincident_link_is_degenerate)
{
  const double x[3] = {0.3, -0.2, 0.9};
  cdyn_system *sys = NULL;
  ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 0, x), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 1, x), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, 1.0, NULL), CDYN_OK);
  double e = -1, phi[1];
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_system_constraint_error(sys, &e), CDYN_EDEGENERATE);
  ck_assert_str_ne(cdyn_errmsg(), "");
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_system_constraint_values(sys, phi), CDYN_EDEGENERATE);
  ck_assert_str_ne(cdyn_errmsg(), "");
  cdyn_system_free(sys);
}
END_TEST

/* ---- the sign of the multipliers ---------------------------------------------------- */

/*
 * A pendulum at rest hanging straight down: pin at the origin on particle
 * 0 (rows 0-2), particle 1 of mass 2.7 at (0, -1.3, 0), link of length 1.3
 * (row 3).  With M qdd + J^T lambda = F, J of the link = [n, -n] and
 * n = (x0 - x1) / r = (0, 1, 0), the force on particle 1 is +n lambda, up,
 * so holding it still takes lambda = m g = 2.7 * 9.81 > 0 (tension).  The
 * solve is exact up to rounding of quantities of order 30.
 */
static void hanging_pendulum(cdyn_system **out)
{
  const double origin[3] = {0, 0, 0}, x1[3] = {0, -1.3, 0}, g[3] = {0, -9.81, 0};
  cdyn_system *sys = NULL;
  ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 1, x1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(sys, 1, 2.7), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, origin, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, 1.3, NULL), CDYN_OK);
  *out = sys;
}

static void check_tension(const char *scheme)
{
  cdyn_system *sys = NULL;
  cdyn_stepper *st = NULL;
  hanging_pendulum(&sys);
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
  int rc = cdyn_stepper_step(st, 1e-6);
  ck_assert_msg(rc == CDYN_OK, "scheme %s: step failed: %d (%s)", scheme, rc, cdyn_errmsg());
  double lambda[4];
  ck_assert_int_eq(cdyn_stepper_multipliers(st, lambda), CDYN_OK);
  const double mg = 2.7 * 9.81;
  ck_assert_msg(fabs(lambda[3] - mg) <= 1e-6 * mg,
                "scheme %s: link multiplier %.17g, expected +m g = %.17g (tension)", scheme,
                lambda[3], mg);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}

START_TEST(test_tension_implicit)
{
  check_tension("implicit");
}
END_TEST

/*
 * The sign convention is the library's, not a scheme's: every scheme that
 * solves for multipliers must report the same tension.  The schemes named
 * here do not solve for the multipliers of the exact constrained motion,
 * so one step from rest does not give them m g, by construction:
 *   penalty, penalty-euler  lambda = k Phi + c (J v + Phi_t), which is 0 on
 *                           a state exactly on the constraints and at rest
 *   pbd, xpbd               a fixed number of Gauss-Seidel sweeps gives
 *                           m g (1 - r^K) on this pendulum, not m g
 * tests/test_soft.c checks each of them against its own exact value (the
 * penalty tension at static equilibrium, PBD's m g (1 - r^K), XPBD's
 * tension at equilibrium), with the same sign.  The list is explicit so
 * that no other scheme can drop out of this test unnoticed.
 */
static int exact_multipliers(const char *scheme)
{
  static const char *const soft[] = {"penalty", "penalty-euler", "pbd", "xpbd"};
  for (size_t k = 0; k < sizeof soft / sizeof soft[0]; k++)
    if (!strcmp(scheme, soft[k]))
      return 0;
  return 1;
}

START_TEST(test_tension_every_scheme)
{
  size_t checked = 0;
  for (size_t i = 0; i < tu_scheme_count(); i++)
    if (exact_multipliers(tu_scheme_name(i))) {
      check_tension(tu_scheme_name(i));
      checked++;
    }
  /* The schemes that solve A lambda = b: all but the four above. */
  ck_assert_uint_eq(checked, tu_scheme_count() - 4);
}
END_TEST

static Suite *constraints_suite(void)
{
  Suite *s = suite_create("constraint_derivatives");
  TCase *tc = tcase_create("types");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_type_table);
  tcase_add_test(tc, test_jacobian);
  tcase_add_test(tc, test_phi_t);
  tcase_add_test(tc, test_jdotv);
  tcase_add_test(tc, test_phi_tt);
  tcase_add_test(tc, test_hess);
  tcase_add_test(tc, test_hess_fails_where_eval_does);
  tcase_add_test(tc, test_fd_hess_matches_hess);
  suite_add_tcase(s, tc);

  tc = tcase_create("system");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_types_through_system);
  tcase_add_test(tc, test_system_error_by_hand);
  tcase_add_test(tc, test_coincident_link_is_degenerate);
  suite_add_tcase(s, tc);

  tc = tcase_create("multipliers");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_tension_implicit);
  tcase_add_test(tc, test_tension_every_scheme);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return tu_run(constraints_suite());
}
