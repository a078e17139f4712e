/*
 * tests/test_cloth.c: the cloth patch builder and adaptive strain limiting
 * (cdyn/cloth.h).
 *
 * - The mesh: node, spring, triangle and edge counts for several sizes
 *   (formulas in lib/cloth/cloth.c), every spring at rest at the start, every
 *   triangle counterclockwise about u x v with positive area, every
 *   triangle edge listed once, the alternating diagonals, pins in place.
 * - Bad input: fewer than 2 x 2 nodes, parallel or non-finite axes, mass
 *   <= 0, negative stiffness, pins out of range or twice; eps_max <= 0, a
 *   bad length or release, springs out of range or twice.
 * - Switching: a spring stretched past the limit becomes a constraint at
 *   the next before (held at (1 + eps_max) L0 by the step); a constraint
 *   whose multiplier pushes becomes a spring at after; no allocation in
 *   before, step and after over a run with switches (dense and PCG
 *   solvers); the same run twice is bitwise equal.
 * - Baraff-Witkin: one step against a dense solve of the same system,
 *   order and energy loss on the elastic pendulum, a chain of stiff
 *   springs against the rigid chain reference, refusals, no
 *   allocation after the first step, determinism.
 * - The heavy ball: each mode keeps the nodes out, a free ball conserves
 *   momentum with the cloth, bad input.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <lapacke.h>

#include <cdyn/cdyn.h>

#include "alloc_count.h"
#include "core/internal.h"
#include "reference/nlink.h"
#include "testutil.h"

static cdyn_cloth_spec patch(size_t nx, size_t ny)
{
  cdyn_cloth_spec s;
  memset(&s, 0, sizeof s);
  s.nx = nx;
  s.ny = ny;
  s.u[0] = 1.0;
  s.v[2] = 0.8;
  s.mass = 0.5;
  s.k_struct = 500;
  s.k_shear = 50;
  s.k_bend = 5;
  s.damping = 0.1;
  return s;
}

START_TEST(test_mesh_counts)
{
  const size_t sizes[][2] = {{2, 2}, {3, 2}, {5, 4}, {16, 16}};
  for (int c = 0; c < 4; c++) {
    size_t nx = sizes[c][0], ny = sizes[c][1];
    cdyn_cloth_spec s = patch(nx, ny);
    const size_t pins[2] = {0, nx - 1};
    s.pins = pins;
    s.npins = 2;
    s.extra = 1;
    cdyn_cloth *cl;
    cdyn_system *sys;
    ck_assert_int_eq(cdyn_cloth_new(&cl, &sys, &s), CDYN_OK);
    ck_assert_uint_eq(cdyn_system_row_count(sys), 6);
    size_t first, count;
    ck_assert_int_eq(cdyn_cloth_springs(cl, CDYN_SPRING_STRUCT, &first, &count), CDYN_OK);
    ck_assert_uint_eq(first, 0);
    ck_assert_uint_eq(count, (nx - 1) * ny + nx * (ny - 1));
    ck_assert_int_eq(cdyn_cloth_springs(cl, CDYN_SPRING_SHEAR, &first, &count), CDYN_OK);
    ck_assert_uint_eq(count, 2 * (nx - 1) * (ny - 1));
    ck_assert_int_eq(cdyn_cloth_springs(cl, CDYN_SPRING_BEND, &first, &count), CDYN_OK);
    ck_assert_uint_eq(count, (nx - 2) * ny + nx * (ny - 2));
    ck_assert_uint_eq(first + count, cdyn_system_spring_count(sys));
    /* Every spring at rest: no force but gravity (none set). */
    double *F = malloc(3 * (nx * ny + 1) * sizeof *F);
    ck_assert_ptr_nonnull(F);
    ck_assert_int_eq(cdyn_system_forces(sys, F), CDYN_OK);
    for (size_t k = 0; k < 3 * (nx * ny + 1); k++)
      ck_assert_msg(fabs(F[k]) <= 1e-12, "force %zu = %g at rest", k, F[k]);
    free(F);
    /* Triangles: counterclockwise about u x v = (0, -0.8, 0), each with the
       area of half a quad. */
    const size_t *tri, *edge;
    size_t nt, ne;
    ck_assert_int_eq(cdyn_cloth_triangles(cl, &tri, &nt), CDYN_OK);
    ck_assert_uint_eq(nt, 2 * (nx - 1) * (ny - 1));
    const double *q = cdyn_system_positions(sys);
    double quad = (1.0 / (double)(nx - 1)) * (0.8 / (double)(ny - 1));
    for (size_t t = 0; t < nt; t++) {
      const double *a = q + 3 * tri[3 * t], *b = q + 3 * tri[3 * t + 1], *c3 = q + 3 * tri[3 * t + 2];
      double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c3[0] - a[0], c3[1] - a[1], c3[2] - a[2]};
      double ny_ = e1[2] * e2[0] - e1[0] * e2[2]; /* y component of e1 x e2 */
      ck_assert_msg(fabs(-ny_ / 2 - quad / 2) <= 1e-12, "triangle %zu: signed area %g, want %g", t, -ny_ / 2,
                    quad / 2);
    }
    /* Alternating diagonals: quad (0, 0) along (0,0)-(1,1), quad (1, 0) along (2,0)-(1,1). */
    if (nx >= 3) {
      size_t n00, n11, n20;
      cdyn_cloth_node(cl, 0, 0, &n00);
      cdyn_cloth_node(cl, 1, 1, &n11);
      cdyn_cloth_node(cl, 2, 0, &n20);
      ck_assert(tri[0] == n00 && tri[2] == n11);
      ck_assert(tri[6] == n00 + 1 && tri[7] == n20 && tri[8] == n11);
    }
    /* Edges: each triangle edge exactly once. */
    ck_assert_int_eq(cdyn_cloth_edges(cl, &edge, &ne), CDYN_OK);
    ck_assert_uint_eq(ne, (nx - 1) * ny + nx * (ny - 1) + (nx - 1) * (ny - 1));
    for (size_t t = 0; t < nt; t++)
      for (int s3 = 0; s3 < 3; s3++) {
        size_t a = tri[3 * t + s3], b = tri[3 * t + (s3 + 1) % 3];
        int found = 0;
        for (size_t e = 0; e < ne; e++)
          found += (edge[2 * e] == a && edge[2 * e + 1] == b) || (edge[2 * e] == b && edge[2 * e + 1] == a);
        ck_assert_msg(found == 1, "edge %zu-%zu listed %d times", a, b, found);
      }
    double m;
    ck_assert_int_eq(cdyn_system_get_particle(sys, 0, &m, NULL, NULL), CDYN_OK);
    ck_assert(fabs(m - 0.5 / (double)(nx * ny)) <= 1e-15);
    cdyn_cloth_free(cl);
    cdyn_system_free(sys);
  }
}
END_TEST

#define EXPECT_EINVAL(call, what)                                                                              \
  do {                                                                                                         \
    int rc_ = (call);                                                                                          \
    ck_assert_msg(rc_ == CDYN_EINVAL, "%s: status %d", what, rc_);                                             \
    ck_assert_msg(strlen(cdyn_errmsg()) > 0, "%s: no message", what);                                          \
  } while (0)

START_TEST(test_bad_input)
{
  cdyn_cloth *cl = (cdyn_cloth *)1;
  cdyn_system *sys = (cdyn_system *)1;
  cdyn_cloth_spec s = patch(1, 5);
  EXPECT_EINVAL(cdyn_cloth_new(&cl, &sys, &s), "1 x 5 nodes");
  ck_assert_ptr_null(cl);
  ck_assert_ptr_null(sys);
  s = patch(2, 2);
  s.v[0] = 2, s.v[2] = 0;
  EXPECT_EINVAL(cdyn_cloth_new(&cl, &sys, &s), "parallel axes");
  s = patch(2, 2);
  s.u[1] = NAN;
  EXPECT_EINVAL(cdyn_cloth_new(&cl, &sys, &s), "non-finite axis");
  s = patch(2, 2);
  s.mass = 0;
  EXPECT_EINVAL(cdyn_cloth_new(&cl, &sys, &s), "mass 0");
  s = patch(2, 2);
  s.k_bend = -1;
  EXPECT_EINVAL(cdyn_cloth_new(&cl, &sys, &s), "negative stiffness");
  s = patch(3, 3);
  const size_t out[1] = {9}, twice[2] = {4, 4};
  s.pins = out, s.npins = 1;
  EXPECT_EINVAL(cdyn_cloth_new(&cl, &sys, &s), "pin out of range");
  s.pins = twice, s.npins = 2;
  EXPECT_EINVAL(cdyn_cloth_new(&cl, &sys, &s), "pin twice");
  EXPECT_EINVAL(cdyn_cloth_new(NULL, &sys, &s), "NULL");
  /* A good one, for the accessors and the limiter's checks. */
  s = patch(3, 3);
  ck_assert_int_eq(cdyn_cloth_new(&cl, &sys, &s), CDYN_OK);
  size_t node, first, count;
  EXPECT_EINVAL(cdyn_cloth_node(cl, 3, 0, &node), "node out of range");
  EXPECT_EINVAL(cdyn_cloth_springs(cl, CDYN_SPRING_KINDS, &first, &count), "spring kind");
  EXPECT_EINVAL(cdyn_cloth_triangles(NULL, NULL, NULL), "triangles NULL");
  cdyn_strainlimit *sl = (cdyn_strainlimit *)1;
  const size_t sp[2] = {0, 1}, dup[2] = {1, 1}, far[1] = {1000};
  cdyn_strainlimit_opts o = {0, 0, 0, 0, 0, CDYN_LIMIT_SWITCH};
  EXPECT_EINVAL(cdyn_strainlimit_new(&sl, sys, sp, 2, &o), "eps_max 0");
  ck_assert_ptr_null(sl);
  o.eps_max = -0.1;
  EXPECT_EINVAL(cdyn_strainlimit_new(&sl, sys, sp, 2, &o), "eps_max < 0");
  o.eps_max = 0.1, o.length = 0.5;
  EXPECT_EINVAL(cdyn_strainlimit_new(&sl, sys, sp, 2, &o), "length < 1");
  o.length = 0, o.release = -1;
  EXPECT_EINVAL(cdyn_strainlimit_new(&sl, sys, sp, 2, &o), "release < 0");
  o.release = 0, o.hysteresis = -1e-3;
  EXPECT_EINVAL(cdyn_strainlimit_new(&sl, sys, sp, 2, &o), "hysteresis < 0");
  o.hysteresis = 0, o.mode = 7;
  EXPECT_EINVAL(cdyn_strainlimit_new(&sl, sys, sp, 2, &o), "unknown mode");
  o.mode = CDYN_LIMIT_INEQUALITY, o.at_current = 1;
  EXPECT_EINVAL(cdyn_strainlimit_new(&sl, sys, sp, 2, &o), "at_current with the inequality mode");
  o.mode = CDYN_LIMIT_SWITCH, o.at_current = 0;
  EXPECT_EINVAL(cdyn_strainlimit_new(&sl, sys, dup, 2, &o), "spring twice");
  EXPECT_EINVAL(cdyn_strainlimit_new(&sl, sys, far, 1, &o), "spring out of range");
  EXPECT_EINVAL(cdyn_strainlimit_before(NULL), "before NULL");
  /* cdyn_system_set_constraint_params, which the limiter's at_current uses. */
  size_t pin_c = cdyn_system_constraint_count(sys);
  const double px[3] = {0, 0, 0}, bad[3] = {0, NAN, 0};
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, px, &pin_c), CDYN_OK);
  EXPECT_EINVAL(cdyn_system_set_constraint_params(sys, pin_c + 1, px), "constraint out of range");
  EXPECT_EINVAL(cdyn_system_set_constraint_params(sys, pin_c, bad), "non-finite parameter");
  EXPECT_EINVAL(cdyn_system_set_constraint_params(sys, pin_c, NULL), "NULL parameters");
  size_t d_c;
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, 0.5, &d_c), CDYN_OK);
  const double negative = -1, half = 0.25;
  EXPECT_EINVAL(cdyn_system_set_constraint_params(sys, d_c, &negative), "negative length");
  ck_assert_int_eq(cdyn_system_set_constraint_params(sys, d_c, &half), CDYN_OK);
  double got;
  ck_assert_int_eq(cdyn_system_get_constraint(sys, d_c, NULL, NULL, &got), CDYN_OK);
  ck_assert(got == 0.25);
  EXPECT_EINVAL(cdyn_strainlimit_after(NULL, NULL), "after NULL");
  cdyn_cloth_free(cl);
  cdyn_system_free(sys);
}
END_TEST

/* The cloth of spec `cs` pinned at the two corners of its first row, under
   gravity (9.81 m/s^2 along -y). */
static cdyn_system *hung(cdyn_cloth_spec cs, cdyn_cloth **cl)
{
  const size_t pins[2] = {0, cs.nx - 1};
  cs.pins = pins, cs.npins = 2;
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_cloth_new(cl, &sys, &cs), CDYN_OK);
  const double g[3] = {0, -9.81, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  return sys;
}

/* admm on the n x n patch hung by two corners (hung), with its option
   key set to value (key NULL: its defaults). */
static cdyn_stepper *admm_hung(size_t n, const char *key, const char *value, cdyn_cloth **cl, cdyn_system **sys)
{
  *sys = hung(patch(n, n), cl);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, *sys, "admm"), CDYN_OK);
  if (key)
    ck_assert_int_eq(cdyn_stepper_set(st, key, value), CDYN_OK);
  return st;
}

/*
 * A cloth of 8 x 8 nodes hung by two corners with soft structural springs
 * (k = 20 N/m for 0.5 kg), falling from horizontal: its springs near the
 * pins stretch past 10 % within a few steps.  Runs `steps` steps of
 * `scheme`, strain-limiting the structural springs; returns the final
 * state in q and the counts.
 */
static void hang(const char *scheme, const char *solver, int steps, double hysteresis, double *q,
                 cdyn_strainlimit_counts *counts, long *allocs, double *eps_worst)
{
  cdyn_cloth_spec s = patch(8, 8);
  s.k_struct = 20, s.k_shear = 2, s.k_bend = 0.2;
  cdyn_cloth *cl;
  cdyn_system *sys = hung(s, &cl);
  size_t first, count;
  ck_assert_int_eq(cdyn_cloth_springs(cl, CDYN_SPRING_STRUCT, &first, &count), CDYN_OK);
  size_t *idx = malloc(count * sizeof *idx);
  ck_assert_ptr_nonnull(idx);
  for (size_t k = 0; k < count; k++)
    idx[k] = first + k;
  cdyn_strainlimit *sl;
  cdyn_strainlimit_opts o = {0.1, 0, 0, 0, hysteresis, CDYN_LIMIT_SWITCH};
  ck_assert_int_eq(cdyn_strainlimit_new(&sl, sys, idx, count, &o), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
  /* The dense solver (sized once for every row) or PCG: no analysis per set. */
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_OK);
  *allocs = 0;
  *eps_worst = 0;
  for (int k = 0; k < steps; k++) {
    /* No Check assertion while counting: Check allocates in them. */
    if (k > 0)
      ta_arm(0);
    int rb = cdyn_strainlimit_before(sl);
    int rc = cdyn_stepper_step(st, 0.005);
    int ra = cdyn_strainlimit_after(sl, st);
    if (k > 0)
      *allocs += ta_disarm();
    ck_assert_int_eq(rb, CDYN_OK);
    ck_assert_msg(rc >= 0, "%s step %d: %s", scheme, k, cdyn_errmsg());
    ck_assert_int_eq(ra, CDYN_OK);
    const double *x = cdyn_system_positions(sys);
    for (size_t a = 0; a < count; a++) {
      size_t i, j;
      double rest;
      TU_ASSERT_OK(cdyn_system_get_spring(sys, idx[a], &i, &j, NULL, NULL, &rest));
      double d = sqrt((x[3 * i] - x[3 * j]) * (x[3 * i] - x[3 * j]) + (x[3 * i + 1] - x[3 * j + 1]) *
                      (x[3 * i + 1] - x[3 * j + 1]) + (x[3 * i + 2] - x[3 * j + 2]) * (x[3 * i + 2] - x[3 * j + 2]));
      *eps_worst = fmax(*eps_worst, (d - rest) / rest);
    }
  }
  ck_assert_int_eq(cdyn_strainlimit_counts_get(sl, counts), CDYN_OK);
  memcpy(q, cdyn_system_positions(sys), 3 * 64 * sizeof *q);
  cdyn_stepper_free(st);
  cdyn_strainlimit_free(sl);
  free(idx);
  cdyn_cloth_free(cl);
  cdyn_system_free(sys);
}

/*
 * implicit and rattle.  improved is left out on purpose: a constraint
 * switched on is violated (the spring passed the limit), and 000's
 * midpoint scheme does not reduce a violation, it reflects it (Phi_(n+1)
 * about -Phi_n; the bad-initial experiment measures the same from a
 * violated start), so on this cloth it diverges (elongation 1e55 within
 * 200 steps, with or without releases).  With the option at_current (no
 * violation at the switch) it stays bounded but is not limited: its
 * largest elongation reaches 0.37, with 7767 flips in 400 steps.
 */
START_TEST(test_switching)
{
  static const char *const schemes[] = {"implicit", "rattle"}, *const solvers[] = {"cholesky", "pcg"};
  const char *scheme = schemes[_i % 2], *solver = solvers[_i / 2];
  double q1[3 * 64], q2[3 * 64], eps1, eps2;
  cdyn_strainlimit_counts c1, c2;
  long a1, a2;
  hang(scheme, solver, 200, 0, q1, &c1, &a1, &eps1);
  ck_assert_msg(c1.total_activated > 0, "%s: no spring reached the limit", scheme);
  /* Limited: no structural spring beyond twice the limit after any step
     (one step can stretch a spring that was below the limit before it). */
  ck_assert_msg(eps1 <= 0.2, "%s: a structural spring reached eps = %.3g", scheme, eps1);
  ck_assert_msg(c1.total_released > 0, "%s: no constraint was released", scheme);
  ck_assert_msg(a1 == 0 || !ta_works, "%s with %s: %ld allocations in 199 limited steps", scheme, solver, a1);
  hang(scheme, solver, 200, 0, q2, &c2, &a2, &eps2);
  ck_assert(memcmp(q1, q2, sizeof q1) == 0);
  ck_assert_uint_eq(c1.total_activated, c2.total_activated);
  ck_assert_uint_eq(c1.flips, c2.flips);
}
END_TEST

/* Particle 0 pinned at the origin, particle 1 at (x, 0, 0), and spring *k
   (10 N/m, undamped, rest length 1) between them. */
static cdyn_system *one_spring(double x, size_t *k)
{
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
  const double x0[3] = {0, 0, 0}, x1[3] = {x, 0, 0};
  ck_assert_int_eq(cdyn_system_set_position(sys, 1, x1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, x0, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_spring(sys, 0, 1, 10, 0, 1.0, k), CDYN_OK);
  return sys;
}

/*
 * One spring over the limit becomes a constraint at before, and the step
 * holds it at (1 + eps_max) L0; a constraint pushed on (its nodes driven
 * together) is released at after.
 */
START_TEST(test_single_switch)
{
  size_t k;
  cdyn_system *sys = one_spring(1.2, &k);
  cdyn_strainlimit *sl;
  cdyn_strainlimit_opts o = {0.1, 0, 0, 0, 0, CDYN_LIMIT_SWITCH};
  ck_assert_int_eq(cdyn_strainlimit_new(&sl, sys, &k, 1, &o), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "rattle"), CDYN_OK);
  cdyn_strainlimit_counts c;
  ck_assert_int_eq(cdyn_strainlimit_before(sl), CDYN_OK);
  ck_assert_int_eq(cdyn_strainlimit_counts_get(sl, &c), CDYN_OK);
  ck_assert_uint_eq(c.activated, 1);
  ck_assert_uint_eq(c.active, 1);
  ck_assert_uint_eq(cdyn_system_row_count(sys), 4);
  ck_assert_int_ge(cdyn_stepper_step(st, 0.01), 0);
  /* RATTLE enforces |x1 - x0| = 1.1 to its tolerance 1e-10. */
  double x[3];
  ck_assert_int_eq(cdyn_system_get_particle(sys, 1, NULL, x, NULL), CDYN_OK);
  ck_assert_msg(fabs(sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - 1.1) <= 1e-10, "length %.17g",
                sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
  /* Without a spring force the constraint pulled (lambda > 0): it stays. */
  ck_assert_int_eq(cdyn_strainlimit_after(sl, st), CDYN_OK);
  ck_assert_int_eq(cdyn_strainlimit_counts_get(sl, &c), CDYN_OK);
  ck_assert_uint_eq(c.released, 0);
  /* Drive the node inwards fast: the constraint must push, and go. */
  const double vin[3] = {-5, 0, 0};
  ck_assert_int_eq(cdyn_system_set_velocity(sys, 1, vin), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(st, 0.01), 0);
  double lambda;
  size_t c_id;
  ck_assert_int_eq(cdyn_system_constraint_count(sys) >= 2, 1);
  c_id = cdyn_system_constraint_count(sys) - 1;
  ck_assert_int_eq(cdyn_stepper_constraint_multipliers(st, c_id, &lambda, NULL), CDYN_OK);
  ck_assert_msg(lambda < 0, "lambda %g: the inward motion should be resisted by a push", lambda);
  ck_assert_int_eq(cdyn_strainlimit_after(sl, st), CDYN_OK);
  ck_assert_int_eq(cdyn_strainlimit_counts_get(sl, &c), CDYN_OK);
  ck_assert_uint_eq(c.released, 1);
  ck_assert_uint_eq(c.active, 0);
  int on;
  ck_assert_int_eq(cdyn_system_spring_enabled(sys, k, &on), CDYN_OK);
  ck_assert_int_eq(on, 1);
  ck_assert_uint_eq(cdyn_system_row_count(sys), 3);
  cdyn_stepper_free(st);
  cdyn_strainlimit_free(sl);
  cdyn_system_free(sys);
}
END_TEST

/*
 * The inequality mode: the spring stays on and a tether row, flagged as an
 * inequality, is on from the start.  The contact scheme (which enforces
 * inequalities) stops a node flung outwards at the limit and never pushes
 * it (lambda <= 0 in the library's sign: lambda = -mu); under an outward
 * force g m = 20 m N greater than the spring's 1 N at the limit, the node
 * rests there, and the tether pulls with the difference.
 */
START_TEST(test_inequality_mode)
{
  size_t k;
  cdyn_system *sys = one_spring(1.05, &k);
  size_t rows0 = cdyn_system_row_count(sys);
  cdyn_strainlimit *sl;
  cdyn_strainlimit_opts o = {0.1, 0, 0, 0, 0, CDYN_LIMIT_INEQUALITY};
  ck_assert_int_eq(cdyn_strainlimit_new(&sl, sys, &k, 1, &o), CDYN_OK);
  ck_assert_uint_eq(cdyn_system_row_count(sys), rows0 + 1);
  ck_assert_uint_eq(cdyn_system_inequality_rows(sys), 1);
  size_t c_id = cdyn_system_constraint_count(sys) - 1;
  int on;
  ck_assert_int_eq(cdyn_system_is_inequality(sys, c_id, &on), CDYN_OK);
  ck_assert_int_eq(on, 1);
  ck_assert_int_eq(cdyn_system_spring_enabled(sys, k, &on), CDYN_OK);
  ck_assert_int_eq(on, 1);
  cdyn_strainlimit_counts c;
  ck_assert_int_eq(cdyn_strainlimit_before(sl), CDYN_OK);
  ck_assert_int_eq(cdyn_strainlimit_counts_get(sl, &c), CDYN_OK);
  ck_assert_uint_eq(c.active, 0); /* 1.05 < 1.1 */
  const double vout[3] = {5, 0, 0};
  ck_assert_int_eq(cdyn_system_set_velocity(sys, 1, vout), CDYN_OK);
  const double g[3] = {20, 0, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  double mass;
  ck_assert_int_eq(cdyn_system_get_particle(sys, 1, &mass, NULL, NULL), CDYN_OK);
  ck_assert(20 * mass > 1);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "contact"), CDYN_OK);
  double rmax = 0, lambda = 0;
  for (int n = 0; n < 40; n++) {
    ck_assert_int_eq(cdyn_strainlimit_before(sl), CDYN_OK);
    ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
    ck_assert_int_eq(cdyn_strainlimit_after(sl, st), CDYN_OK);
    double x[3];
    ck_assert_int_eq(cdyn_system_get_particle(sys, 1, NULL, x, NULL), CDYN_OK);
    rmax = fmax(rmax, sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
    ck_assert_int_eq(cdyn_stepper_constraint_multipliers(st, c_id, &lambda, NULL), CDYN_OK);
    ck_assert_msg(lambda <= 0, "step %d: the tether pushed (lambda %g)", n, lambda);
  }
  /* Flung at 5 m/s, the node reaches 1.1 within 10 ms and is held there
     to the contact scheme's tolerance (a length of 1e-9 here: 1e-6 of a
     step's travel covers it). */
  ck_assert_msg(rmax <= 1.1 + 5e-6, "the node went %.17g from the pin; the limit is 1.1", rmax);
  /* Resting at the limit: lambda = -(20 m - k (1.1 - 1)), to the
     scheme's rounding. */
  ck_assert_msg(fabs(lambda + (20 * mass - 1)) <= 1e-9 * (20 * mass), "lambda %.17g, expected %.17g", lambda,
                -(20 * mass - 1));
  ck_assert_int_eq(cdyn_strainlimit_counts_get(sl, &c), CDYN_OK);
  ck_assert_uint_eq(c.active, 1);
  cdyn_stepper_free(st);
  cdyn_strainlimit_free(sl);
  cdyn_system_free(sys);
}
END_TEST

/* ---- projected-newton ------------------------------------------------------------- */

/* Max over the structural springs of (r - L0) / L0. */
static double struct_strain(const cdyn_system *sys, const cdyn_cloth *cl)
{
  size_t first, count;
  ck_assert_int_eq(cdyn_cloth_springs(cl, CDYN_SPRING_STRUCT, &first, &count), CDYN_OK);
  double e = 0;
  for (size_t k = first; k < first + count; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    const double *a = sys->q + 3 * sp->i, *b = sys->q + 3 * sp->j;
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    e = fmax(e, (sqrt(d0 * d0 + d1 * d1 + d2 * d2) - sp->rest) / sp->rest);
  }
  return e;
}

/*
 * Without inequality rows or dampers the step is backward Euler's on the
 * springs and the pins, the same equations backward-euler solves (on the
 * KKT system, the pins as multipliers): an undamped 5 x 5 patch hung by
 * two corners, 30 steps
 * of 1/60 s (h omega about 7 for its stiffest spring), both to a momentum
 * residual of 1e-9 m/s^2.  Each step's solutions then differ by at most
 * about h^2 1e-9 = 3e-13 m, and backward Euler does not amplify a
 * difference (it is contractive on this damped system): asserted within
 * 1e-10 m.  Measured: see the message.
 */
START_TEST(test_pn_is_backward_euler)
{
  double q[2][3 * 25];
  for (int k = 0; k < 2; k++) {
    cdyn_cloth *cl;
    cdyn_cloth_spec cs = patch(5, 5);
    cs.damping = 0;
    cdyn_system *sys = hung(cs, &cl);
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_stepper_new(&st, sys, k ? "backward-euler" : "projected-newton"), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_set(st, "tol_accel", "1e-9"), CDYN_OK);
    for (int n = 0; n < 30; n++)
      ck_assert_msg(cdyn_stepper_step(st, 1.0 / 60) == CDYN_OK, "%d step %d: %s", k, n, cdyn_errmsg());
    memcpy(q[k], sys->q, sizeof q[k]);
    cdyn_stepper_free(st);
    cdyn_cloth_free(cl);
    cdyn_system_free(sys);
  }
  double dmax = 0;
  for (int i = 0; i < 3 * 25; i++)
    dmax = fmax(dmax, fabs(q[0][i] - q[1][i]));
  ck_assert_msg(dmax <= 1e-10, "projected-newton and backward-euler differ by %.3g m", dmax);
  /* and the patch moved: the free corners fell */
  ck_assert(q[0][3 * 24 + 1] < -0.2);
}
END_TEST

/*
 * The tether fixture: one spring released at 1.05 m from its pinned end,
 * its strain limit (10 %) a tether row (the limiter's inequality mode),
 * under an outward load of 20 m, stepped 50 times with h = 0.01 s by
 * `scheme` with the options `set` (key, value, ..., NULL).  The row must
 * never push; gives the farthest the node went from the pin, the row's
 * last multiplier and the node's mass.
 */
static void tether_run(const char *scheme, const char *const *set, double *rmax, double *lambda, double *mass)
{
  size_t k;
  cdyn_system *sys = one_spring(1.05, &k);
  cdyn_strainlimit *sl;
  cdyn_strainlimit_opts o = {0.1, 0, 0, 0, 0, CDYN_LIMIT_INEQUALITY};
  ck_assert_int_eq(cdyn_strainlimit_new(&sl, sys, &k, 1, &o), CDYN_OK);
  const double g[3] = {20, 0, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_get_particle(sys, 1, mass, NULL, NULL), CDYN_OK);
  size_t c_id = cdyn_system_constraint_count(sys) - 1;
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
  for (; set && *set; set += 2)
    ck_assert_int_eq(cdyn_stepper_set(st, set[0], set[1]), CDYN_OK);
  *rmax = 0;
  for (int n = 0; n < 50; n++) {
    ck_assert_int_eq(cdyn_strainlimit_before(sl), CDYN_OK);
    ck_assert_msg(cdyn_stepper_step(st, 0.01) == CDYN_OK, "%s step %d: %s", scheme, n, cdyn_errmsg());
    ck_assert_int_eq(cdyn_strainlimit_after(sl, st), CDYN_OK);
    double x[3];
    ck_assert_int_eq(cdyn_system_get_particle(sys, 1, NULL, x, NULL), CDYN_OK);
    *rmax = fmax(*rmax, sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
    ck_assert_int_eq(cdyn_stepper_constraint_multipliers(st, c_id, lambda, NULL), CDYN_OK);
    ck_assert_msg(*lambda <= 0, "%s step %d: the tether pushed (lambda %g)", scheme, n, *lambda);
  }
  cdyn_stepper_free(st);
  cdyn_strainlimit_free(sl);
  cdyn_system_free(sys);
}

/*
 * The contact fixture: a node 1 m above a pinned one, held off it by a
 * separation row (one-sided, 1 m) under gravity, stepped 20 times with
 * h = 0.01 s by `scheme` with the options `set`; the steps after the
 * first must allocate nothing.  Gives the node's position, the row's
 * multiplier and the pin's three.
 */
static void contact_run(const char *scheme, const char *const *set, double x[3], double *lambda, double pin[3])
{
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
  const double x0[3] = {0, 0, 0}, x1[3] = {0, 1, 0}, g[3] = {0, -9.81, 0};
  ck_assert_int_eq(cdyn_system_set_position(sys, 1, x1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, x0, NULL), CDYN_OK);
  size_t c_id;
  ck_assert_int_eq(cdyn_system_add_separation(sys, 0, 1, 1.0, &c_id), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
  for (; set && *set; set += 2)
    ck_assert_int_eq(cdyn_stepper_set(st, set[0], set[1]), CDYN_OK);
  long allocs = 0;
  for (int n = 0; n < 20; n++) {
    if (n > 0)
      ta_arm(0);
    int rc = cdyn_stepper_step(st, 0.01);
    if (n > 0)
      allocs += ta_disarm();
    ck_assert_msg(rc == CDYN_OK, "%s step %d: %s", scheme, n, cdyn_errmsg());
  }
  ck_assert_msg(allocs == 0 || !ta_works, "%s: %ld allocations in 19 steps", scheme, allocs);
  ck_assert_int_eq(cdyn_system_get_particle(sys, 1, NULL, x, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_constraint_multipliers(st, c_id, lambda, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_constraint_multipliers(st, 0, pin, NULL), CDYN_OK);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}

/*
 * A tether row (the limiter's inequality mode) under an outward load: the
 * node, released at 1.05 m, is stopped at the limit 1.1 m and rests there;
 * the row only pulls, and at rest it pulls with the load less the spring,
 * 20 m - k (1.1 - 1).  Tolerances: the violation within tol (1e-6 m by
 * default) plus rounding, and the pull to m tol_accel (the momentum
 * residual the step leaves) or the row's rounding floor (below).
 */
START_TEST(test_pn_tether)
{
  double rmax, lambda, mass;
  tether_run("projected-newton", NULL, &rmax, &lambda, &mass);
  ck_assert_msg(rmax <= 1.1 + 1e-6 + 1e-14, "the node went %.17g from the pin; the limit is 1.1", rmax);
  /* The pull to m tol_accel, or to the rounding floor of the row's force,
     64 eps kappa |x| with kappa = 1e4 m / h^2 (the default stiffness; the
     pin's end is fixed, so J W J^T = 1 / m). */
  double floor_n = 64 * DBL_EPSILON * 1e4 * mass / (0.01 * 0.01) * 1.1;
  ck_assert_msg(fabs(lambda + (20 * mass - 1)) <= fmax(mass * 1e-4, floor_n), "lambda %.17g, expected %.17g", lambda,
                -(20 * mass - 1));
}
END_TEST

/*
 * The hanging cloth at an animator's step: a 12 x 12 patch with soft
 * structural springs (20 N/m: alone they stretch it by far more than
 * 10 %), its structural springs limited to 10 % by tethers, h = 1/60 s,
 * 2 s.  Every step converges, no structural spring passes the limit by
 * more than the tolerance (1e-6 m, 1.2e-5 of a spring of 0.083 m), the
 * steps after the first allocate nothing, and two runs agree bitwise.
 */
static void pn_hang(const char *scheme, const char *mode, double *q, long *allocs, double *eps_worst,
                    unsigned long *iters)
{
  cdyn_cloth_spec cs = patch(12, 12);
  cs.k_struct = 20, cs.k_shear = 2, cs.k_bend = 0.2;
  cdyn_cloth *cl;
  cdyn_system *sys = hung(cs, &cl);
  size_t first, count;
  ck_assert_int_eq(cdyn_cloth_springs(cl, CDYN_SPRING_STRUCT, &first, &count), CDYN_OK);
  size_t *idx = malloc(count * sizeof *idx);
  ck_assert_ptr_nonnull(idx);
  for (size_t k = 0; k < count; k++)
    idx[k] = first + k;
  cdyn_strainlimit *sl;
  cdyn_strainlimit_opts o = {0.1, 0, 0, 0, 0, CDYN_LIMIT_INEQUALITY};
  ck_assert_int_eq(cdyn_strainlimit_new(&sl, sys, idx, count, &o), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "cholmod_mode", mode), CDYN_OK);
  *allocs = 0;
  *eps_worst = 0;
  for (int n = 0; n < 120; n++) {
    if (n > 0)
      ta_arm(0);
    int rc = cdyn_strainlimit_before(sl);
    if (!rc)
      rc = cdyn_stepper_step(st, 1.0 / 60);
    if (!rc)
      rc = cdyn_strainlimit_after(sl, st);
    if (n > 0)
      *allocs += ta_disarm();
    ck_assert_msg(rc == CDYN_OK, "step %d: %s", n, cdyn_errmsg());
    *eps_worst = fmax(*eps_worst, struct_strain(sys, cl));
  }
  cdyn_stats stats;
  ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
  *iters = stats.nonlinear_iterations;
  memcpy(q, sys->q, 3 * 144 * sizeof *q);
  cdyn_stepper_free(st);
  cdyn_strainlimit_free(sl);
  free(idx);
  cdyn_cloth_free(cl);
  cdyn_system_free(sys);
}

START_TEST(test_pn_cloth_limit)
{
  double q1[3 * 144], q2[3 * 144], e1, e2;
  long a1, a2;
  unsigned long it1, it2;
  /* cholmod's simplicial factorisation, and its supernodal one (which
     fails outright on an indefinite matrix, and allocates: cholmod.c). */
  static const char *const modes[] = {"simplicial", "supernodal"};
  pn_hang("projected-newton", modes[_i], q1, &a1, &e1, &it1);
  pn_hang("projected-newton", modes[_i], q2, &a2, &e2, &it2);
  ck_assert_msg(e1 <= 0.1 + 1e-6 / (0.8 / 11), "%s: a structural spring reached eps = %.9g (limit 0.1)", modes[_i], e1);
  ck_assert_msg(e1 >= 0.1 - 1e-6, "eps = %.9g: the limit never acted", e1);
  ck_assert_msg(_i == 1 || a1 == 0 || !ta_works, "%ld allocations in 119 steps", a1);
  ck_assert(memcmp(q1, q2, sizeof q1) == 0);
  ck_assert_uint_eq(it1, it2);
  /* It fell and hangs: the free corner well below its start. */
  ck_assert(q1[3 * 143 + 1] < -0.3);
}
END_TEST

/*
 * A spring compressed to half its length, k = 10 N/m on 1 kg, h = 1 s:
 * its transverse stiffness k (1 - L0 / r) = -10 N/m outweighs m / h^2 =
 * 1 N/m, so the exact Hessian is indefinite and the scheme must fall to
 * a lower rung.  With cholmod's supernodal factorisation, which (with its
 * shifted retry) fails outright on an indefinite matrix, that failure
 * must count as "not positive definite", not end the step; with the
 * simplicial one, the fallback to least squares does.  The step then
 * converges: the node stays on its line (no transverse force) and moves
 * out, pushed by the spring.
 */
START_TEST(test_pn_indefinite)
{
  static const char *const modes[] = {"simplicial", "supernodal", "supernodal"};
  size_t k;
  cdyn_system *sys = one_spring(_i == 2 ? 1.5 : 0.5, &k);
  const double v1[3] = {0, 0.3, 0};
  ck_assert_int_eq(cdyn_system_set_velocity(sys, 1, v1), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "projected-newton"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "cholmod_mode", modes[_i]), CDYN_OK);
  if (_i == 2) {
    /* cholmod keeping its factor (cholmod_reuse_tol): a step from a
       stretched spring makes a factor, then the compressed spring's
       indefinite matrix is met by the solve, which refactors, and fails. */
    ck_assert_int_eq(cdyn_stepper_set(st, "cholmod_reuse_tol", "1e-3"), CDYN_OK);
    ck_assert_msg(cdyn_stepper_step(st, 1.0) == CDYN_OK, "stretched: %s", cdyn_errmsg());
    const double x1[3] = {0.5, 0, 0};
    ck_assert_int_eq(cdyn_system_set_position(sys, 1, x1), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, 1, v1), CDYN_OK);
  }
  ck_assert_msg(cdyn_stepper_step(st, 1.0) == CDYN_OK, "%s: %s", modes[_i], cdyn_errmsg());
  double x[3];
  ck_assert_int_eq(cdyn_system_get_particle(sys, 1, NULL, x, NULL), CDYN_OK);
  ck_assert_msg(x[0] > 0.5, "%s: the node did not move out (x = %g)", modes[_i], x[0]);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * A node resting on a ball: particle 0 pinned at the origin, node 1 of
 * 1 kg above it, a separation |x_1 - x_0| >= 1 flagged as an inequality
 * (a contact that only pushes).  The row's block, mu times minus the
 * sphere's curvature P / r, is negative semi-definite, so the scheme
 * projects it (its eigenvalues by LAPACKE): the steps after the first must
 * not allocate even so, the node stays on the ball to the tolerance, and
 * the contact pushes with the node's weight, lambda = -m g.
 */
START_TEST(test_pn_contact_block)
{
  double x[3], lambda, pin[3];
  contact_run("projected-newton", NULL, x, &lambda, pin);
  ck_assert_msg(x[1] >= 1 - 1e-6 - 1e-15 && fabs(x[0]) + fabs(x[2]) <= 1e-12, "the node at (%g, %.17g, %g)", x[0], x[1],
                x[2]);
  /* to m tol_accel, or the row's rounding floor 64 eps kappa |x| (kappa =
     1e4 m / h^2) */
  ck_assert_msg(fabs(lambda + 9.81) <= fmax(1e-4, 64 * DBL_EPSILON * 1e4 / (0.01 * 0.01)), "lambda %.17g", lambda);
}
END_TEST

/*
 * A change of the set (a tether switched off for one step, then on): the
 * estimates follow their rows through the row map, so the stepper goes on
 * from where it was, and its step agrees with a fresh stepper's, which
 * starts from no estimates, to the tolerances (tol = 1e-6 m, tol_accel =
 * 1e-4 m/s^2, set to 1e-9 m and 1e-8 m/s^2 here): asserted within 1e-7 m.
 */
START_TEST(test_pn_set_change)
{
  size_t k;
  cdyn_system *sys = one_spring(1.05, &k);
  cdyn_strainlimit *sl;
  cdyn_strainlimit_opts o = {0.1, 0, 0, 0, 0, CDYN_LIMIT_INEQUALITY};
  ck_assert_int_eq(cdyn_strainlimit_new(&sl, sys, &k, 1, &o), CDYN_OK);
  const double g[3] = {20, -3, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  size_t c_id = cdyn_system_constraint_count(sys) - 1;
  cdyn_stepper *st, *fresh;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "projected-newton"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "tol", "1e-9"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "tol_accel", "1e-8"), CDYN_OK);
  for (int n = 0; n < 20; n++)
    ck_assert_msg(cdyn_stepper_step(st, 0.01) == CDYN_OK, "step %d: %s", n, cdyn_errmsg());
  ck_assert_int_eq(cdyn_system_enable_constraint(sys, c_id, 0), CDYN_OK);
  ck_assert_msg(cdyn_stepper_step(st, 0.01) == CDYN_OK, "%s", cdyn_errmsg());
  ck_assert_int_eq(cdyn_system_enable_constraint(sys, c_id, 1), CDYN_OK);
  /* The same state, two steppers: the running one and a fresh one. */
  double q0[6], v0[6], q1[6];
  memcpy(q0, sys->q, sizeof q0);
  memcpy(v0, sys->v, sizeof v0);
  for (int n = 0; n < 5; n++)
    ck_assert_msg(cdyn_stepper_step(st, 0.01) == CDYN_OK, "after: step %d: %s", n, cdyn_errmsg());
  memcpy(q1, sys->q, sizeof q1);
  memcpy(sys->q, q0, sizeof q0);
  memcpy(sys->v, v0, sizeof v0);
  ck_assert_int_eq(cdyn_stepper_new(&fresh, sys, "projected-newton"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(fresh, "tol", "1e-9"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(fresh, "tol_accel", "1e-8"), CDYN_OK);
  for (int n = 0; n < 5; n++)
    ck_assert_msg(cdyn_stepper_step(fresh, 0.01) == CDYN_OK, "fresh: step %d: %s", n, cdyn_errmsg());
  double d = 0;
  for (int i = 0; i < 6; i++)
    d = fmax(d, fabs(sys->q[i] - q1[i]));
  ck_assert_msg(d <= 1e-7, "the running and the fresh stepper differ by %.3g m", d);
  cdyn_stepper_free(fresh);
  cdyn_stepper_free(st);
  cdyn_strainlimit_free(sl);
  cdyn_system_free(sys);
}
END_TEST

/* What it refuses: an equality link (backward-euler takes those), a
   particle pinned twice. */
START_TEST(test_pn_refuses)
{
  size_t k;
  cdyn_system *sys = one_spring(1.05, &k);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, 1.05, NULL), CDYN_OK);
  cdyn_stepper *st = NULL;
  EXPECT_EINVAL(cdyn_stepper_new(&st, sys, "projected-newton"), "equality link");
  ck_assert_ptr_null(st);
  cdyn_system_free(sys);
  sys = one_spring(1.05, &k);
  const double x0[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, x0, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "projected-newton"), CDYN_OK);
  EXPECT_EINVAL(cdyn_stepper_step(st, 0.01), "pinned twice");
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/* ---- admm -------------------------------------------------------------------------- */

/*
 * Converged, admm's step is the same minimum as projected-newton's (the
 * same incremental potential: springs, the dampers' dissipation along
 * their start direction, the pins eliminated): the damped 5 x 5 patch hung
 * by two corners, 10 steps of 1/60 s, admm to a primal residual of 1e-12 m
 * and a dual one of 1e-9 m/s^2, projected-newton to a momentum residual of
 * 1e-9 m/s^2.  A momentum residual r leaves a position error of about
 * r h^2 = 3e-13 m a step, and the primal residual 1e-12 m one of its own
 * size; the steps do not amplify them (the system is damped): asserted
 * within 1e-10 m.
 */
START_TEST(test_admm_is_the_minimum)
{
  double q[2][3 * 25];
  unsigned long iters = 0;
  for (int k = 0; k < 2; k++) {
    cdyn_cloth *cl;
    cdyn_system *sys = hung(patch(5, 5), &cl);
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_stepper_new(&st, sys, k ? "projected-newton" : "admm"), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_set(st, "tol_accel", "1e-9"), CDYN_OK);
    if (!k) {
      ck_assert_int_eq(cdyn_stepper_set(st, "tol", "1e-12"), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_set(st, "iterations", "1000000"), CDYN_OK);
    }
    for (int n = 0; n < 10; n++)
      ck_assert_msg(cdyn_stepper_step(st, 1.0 / 60) == CDYN_OK, "%d step %d: %s", k, n, cdyn_errmsg());
    if (!k) {
      cdyn_stats stats;
      ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
      iters = stats.nonlinear_iterations;
    }
    memcpy(q[k], sys->q, sizeof q[k]);
    cdyn_stepper_free(st);
    cdyn_cloth_free(cl);
    cdyn_system_free(sys);
  }
  double dmax = 0;
  for (int i = 0; i < 3 * 25; i++)
    dmax = fmax(dmax, fabs(q[0][i] - q[1][i]));
  ck_assert_msg(dmax <= 1e-10, "admm (%lu iterations) and projected-newton differ by %.3g m", iters, dmax);
  ck_assert(q[0][3 * 24 + 1] < -0.05);
}
END_TEST

/*
 * A tether merged into its spring, under an outward load, converged at
 * every step (tol 1e-12 m, tol_accel 1e-9 m/s^2): the node, released at
 * 1.05 m, stops at the limit 1.1 m and rests there, and the row pulls
 * with the load less the spring, 20 m - k (1.1 - 1).  The pull is the
 * split variable's force, W y less the spring's: it is known to the
 * weight W = 1000 m / h^2 + k times the primal residual, plus m
 * tol_accel (the force balance the dual residual leaves).
 */
START_TEST(test_admm_tether)
{
  static const char *const set[] = {"tol", "1e-12", "tol_accel", "1e-9", "iterations", "100000", NULL};
  double rmax, lambda, mass;
  tether_run("admm", set, &rmax, &lambda, &mass);
  ck_assert_msg(rmax <= 1.1 + 1e-12 * sqrt(3) + 1e-14, "the node went %.17g from the pin; the limit is 1.1", rmax);
  double W = 1000 * mass / (0.01 * 0.01) + 10;
  ck_assert_msg(fabs(lambda + (20 * mass - 1)) <= W * 1e-12 + mass * 1e-9 + 1e-12, "lambda %.17g, expected %.17g",
                lambda, -(20 * mass - 1));
}
END_TEST

/*
 * The hanging 12 x 12 cloth of test_pn_cloth_limit with admm's defaults
 * (10 iterations a step): no allocation after the first step, bitwise
 * repeatable.  Its strain is what 10 iterations give, not a tolerance's
 * bound: asserted only below 0.11, the bound for an animator's
 * step (measured: see the message); the limit must have acted.
 */
START_TEST(test_admm_cloth)
{
  double q1[3 * 144], q2[3 * 144], e1, e2;
  long a1, a2;
  unsigned long it1, it2;
  pn_hang("admm", "simplicial", q1, &a1, &e1, &it1);
  pn_hang("admm", "simplicial", q2, &a2, &e2, &it2);
  ck_assert_msg(e1 <= 0.11, "a structural spring reached eps = %.9g", e1);
  ck_assert_msg(e1 >= 0.1 - 1e-6, "eps = %.9g: the limit never acted", e1);
  ck_assert_msg(a1 == 0 || !ta_works, "%ld allocations in 119 steps", a1);
  ck_assert(memcmp(q1, q2, sizeof q1) == 0);
  ck_assert_uint_eq(it1, 120 * 10);
  ck_assert(q1[3 * 143 + 1] < -0.3);
}
END_TEST

/*
 * A node resting on a ball (test_pn_contact_block's): the contact is
 * split while it pushes, the node stays on the ball to the primal
 * tolerance, the contact pushes with the node's weight to m tol_accel plus
 * its weight w^2 = 1000 m / h^2 times the primal residual, and the steps
 * after the first allocate nothing.
 */
START_TEST(test_admm_contact)
{
  static const char *const set[] = {"tol", "1e-12", "tol_accel", "1e-9", "iterations", "100000", NULL};
  double x[3], lambda, pin[3];
  contact_run("admm", set, x, &lambda, pin);
  ck_assert_msg(fabs(x[1] - 1) <= 1e-12 * sqrt(3) + 1e-15 && fabs(x[0]) + fabs(x[2]) <= 1e-12,
                "the node at (%g, %.17g, %g)", x[0], x[1], x[2]);
  double w2 = 1000 / (0.01 * 0.01);
  ck_assert_msg(fabs(lambda + 9.81) <= 1e-9 + w2 * 1e-12 + 1e-12, "lambda %.17g", lambda);
  /* the pin bears the ball's weight and the node's push on it, 2 m g
     upwards: its force -lambda_pin */
  ck_assert_msg(fabs(pin[1] + 2 * 9.81) <= 2 * (1e-9 + w2 * 1e-12) + 1e-12 && fabs(pin[0]) + fabs(pin[2]) <= 1e-9,
                "the pin's multiplier (%g, %.17g, %g)", pin[0], pin[1], pin[2]);
}
END_TEST

/*
 * The springs two at a time (`pairs` on, the default) and one at a time
 * give the same bits: a 5 x 6 cloth (127 springs, so one is left over
 * from the pairs), one spring switched off, the structural springs
 * limited by tethers and the far row landing on a wall (split and
 * projected contacts), 60 steps at 1/60 s.
 */
START_TEST(test_admm_pairs)
{
  double q[2][3 * 30];
  for (int k = 0; k < 2; k++) {
    cdyn_cloth *cl;
    cdyn_system *sys = hung(patch(5, 6), &cl);
    ck_assert_uint_eq(cdyn_system_spring_count(sys), 127);
    size_t first, count;
    ck_assert_int_eq(cdyn_cloth_springs(cl, CDYN_SPRING_STRUCT, &first, &count), CDYN_OK);
    size_t idx[64];
    ck_assert_uint_le(count, 64);
    for (size_t j = 0; j < count; j++)
      idx[j] = first + j;
    cdyn_strainlimit *sl;
    cdyn_strainlimit_opts o = {0.1, 0, 0, 0, 0, CDYN_LIMIT_INEQUALITY};
    ck_assert_int_eq(cdyn_strainlimit_new(&sl, sys, idx, count, &o), CDYN_OK);
    ck_assert_int_eq(cdyn_system_enable_spring(sys, first + count + 3, 0), CDYN_OK); /* a shear spring */
    const double p[3] = {0, -0.03, 0}, up[3] = {0, 1, 0};
    for (size_t i = 25; i < 30; i++)
      ck_assert_int_eq(cdyn_system_add_wall(sys, i, p, up, NULL), CDYN_OK);
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_stepper_new(&st, sys, "admm"), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_set(st, "pairs", k ? "off" : "on"), CDYN_OK);
    for (int n = 0; n < 60; n++) {
      ck_assert_int_eq(cdyn_strainlimit_before(sl), CDYN_OK);
      ck_assert_msg(cdyn_stepper_step(st, 1.0 / 60) == CDYN_OK, "%d step %d: %s", k, n, cdyn_errmsg());
      ck_assert_int_eq(cdyn_strainlimit_after(sl, st), CDYN_OK);
    }
    /* The solver's residual of the step's last iteration, which alone
       computes it (skip_residual): a direct solve's, at rounding level
       (NaN fails). */
    cdyn_stats stats;
    ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
    ck_assert_msg(stats.last_residual <= 1e-10, "last residual %g", stats.last_residual);
    memcpy(q[k], sys->q, sizeof q[k]);
    cdyn_stepper_free(st);
    cdyn_strainlimit_free(sl);
    cdyn_cloth_free(cl);
    cdyn_system_free(sys);
  }
  ck_assert(memcmp(q[0], q[1], sizeof q[0]) == 0);
  /* the far row came down onto the wall */
  ck_assert_msg(fabs(q[0][3 * 27 + 1] + 0.03) < 1e-3, "node 27 at y = %g", q[0][3 * 27 + 1]);
}
END_TEST

/*
 * With a tolerance, a step that does not reach it in its iterations is
 * CDYN_NOCONV and the state is as before it; without one, the same step
 * is the method's K iterations and CDYN_OK.
 */
START_TEST(test_admm_noconv)
{
  cdyn_cloth *cl;
  cdyn_system *sys;
  cdyn_stepper *st = admm_hung(5, "iterations", "2", &cl, &sys);
  ck_assert_int_eq(cdyn_stepper_set(st, "tol", "1e-12"), CDYN_OK);
  double q0[3 * 25];
  memcpy(q0, sys->q, sizeof q0);
  ck_assert_int_eq(cdyn_stepper_step(st, 1.0 / 60), CDYN_NOCONV);
  ck_assert_msg(strstr(cdyn_errmsg(), "no convergence") != NULL, "%s", cdyn_errmsg());
  ck_assert(memcmp(q0, sys->q, sizeof q0) == 0);
  ck_assert(cdyn_system_time(sys) == 0);
  ck_assert_int_eq(cdyn_stepper_set(st, "tol", "0"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 1.0 / 60), CDYN_OK);
  ck_assert(memcmp(q0, sys->q, sizeof q0) != 0);
  cdyn_stepper_free(st);
  cdyn_cloth_free(cl);
  cdyn_system_free(sys);
}
END_TEST

/*
 * The duals' extrapolated start (option extrapolate) moves where a step
 * starts, not the minimum it converges to: the damped 5 x 5 patch of
 * test_admm_is_the_minimum, 10 steps of 1/60 s converged to a primal
 * residual of 1e-12 m and a dual one of 1e-9 m/s^2, with a = 0, 0.5 and 1,
 * agrees to 1e-10 m (the residuals' position errors, as there).  With
 * the default 10 iterations a step the runs differ (the start matters
 * there), and every value outside [0, 1] is refused.
 */
START_TEST(test_admm_extrapolate)
{
  static const char *const as[3] = {"0", "0.5", "1"};
  double q[2][3][3 * 25];
  for (int conv = 0; conv < 2; conv++)
    for (int k = 0; k < 3; k++) {
      cdyn_cloth *cl;
      cdyn_system *sys;
      cdyn_stepper *st = admm_hung(5, "extrapolate", as[k], &cl, &sys);
      if (conv) {
        ck_assert_int_eq(cdyn_stepper_set(st, "tol_accel", "1e-9"), CDYN_OK);
        ck_assert_int_eq(cdyn_stepper_set(st, "tol", "1e-12"), CDYN_OK);
        ck_assert_int_eq(cdyn_stepper_set(st, "iterations", "1000000"), CDYN_OK);
      }
      for (int n = 0; n < 10; n++)
        ck_assert_msg(cdyn_stepper_step(st, 1.0 / 60) == CDYN_OK, "a = %s step %d: %s", as[k], n, cdyn_errmsg());
      memcpy(q[conv][k], sys->q, sizeof q[conv][k]);
      cdyn_stepper_free(st);
      cdyn_cloth_free(cl);
      cdyn_system_free(sys);
    }
  for (int k = 1; k < 3; k++) {
    double dmax = 0, dfix = 0;
    for (int i = 0; i < 3 * 25; i++) {
      dmax = fmax(dmax, fabs(q[1][k][i] - q[1][0][i]));
      dfix = fmax(dfix, fabs(q[0][k][i] - q[0][0][i]));
    }
    ck_assert_msg(dmax <= 1e-10, "converged, a = %s and a = 0 differ by %.3g m", as[k], dmax);
    ck_assert_msg(dfix > 0, "10 iterations a step: a = %s gave a = 0's positions", as[k]);
  }
  cdyn_cloth *cl;
  cdyn_system *sys;
  cdyn_stepper *st = admm_hung(3, NULL, NULL, &cl, &sys);
  EXPECT_EINVAL(cdyn_stepper_set(st, "extrapolate", "1.5"), "extrapolate 1.5");
  EXPECT_EINVAL(cdyn_stepper_set(st, "extrapolate", "-0.25"), "extrapolate -0.25");
  EXPECT_EINVAL(cdyn_stepper_set(st, "extrapolate", "nan"), "extrapolate nan");
  cdyn_stepper_free(st);
  cdyn_cloth_free(cl);
  cdyn_system_free(sys);
}
END_TEST

/*
 * admm's linear algebra in the stepper's statistics: on the hung 5 x 5
 * patch (23 free particles: A is 23 x 23), 10 steps of 10 iterations are
 * 100 solves of three right-hand sides each (stats.solves counts a call),
 * at least one factorisation, their time in time_solve and time_factor,
 * and the factor's entries: the dense solver's triangle, 23 * 24 / 2 =
 * 276, exactly; CHOLMOD's, between the diagonal's 23 and that.
 */
START_TEST(test_admm_stats)
{
  static const char *const solvers[2] = {"cholesky", "cholmod"};
  for (int k = 0; k < 2; k++) {
    cdyn_cloth *cl;
    cdyn_system *sys;
    cdyn_stepper *st = admm_hung(5, "solver", solvers[k], &cl, &sys);
    for (int n = 0; n < 10; n++)
      ck_assert_msg(cdyn_stepper_step(st, 1.0 / 60) == CDYN_OK, "%s step %d: %s", solvers[k], n, cdyn_errmsg());
    cdyn_stats S;
    ck_assert_int_eq(cdyn_stepper_stats(st, &S), CDYN_OK);
    ck_assert_uint_eq(S.solves, 100);
    ck_assert_uint_ge(S.factorizations, 1);
    ck_assert_msg(S.time_solve > 0 && S.time_factor > 0 && isfinite(S.time_solve) && isfinite(S.time_factor),
                  "%s: time_solve %g, time_factor %g", solvers[k], S.time_solve, S.time_factor);
    if (k == 0)
      ck_assert_msg(S.factor_nnz == 276, "cholesky: %zu factor entries, expected 276", S.factor_nnz);
    else
      ck_assert_msg(S.factor_nnz >= 23 && S.factor_nnz <= 276, "cholmod: %zu factor entries", S.factor_nnz);
    cdyn_stepper_free(st);
    cdyn_cloth_free(cl);
    cdyn_system_free(sys);
  }
}
END_TEST

/* What it refuses: an equality link, an inequality of several rows (a pin
   flagged as one), a particle pinned twice. */
START_TEST(test_admm_refuses)
{
  size_t k;
  cdyn_system *sys = one_spring(1.05, &k);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, 1.05, NULL), CDYN_OK);
  cdyn_stepper *st = NULL;
  EXPECT_EINVAL(cdyn_stepper_new(&st, sys, "admm"), "equality link");
  ck_assert_ptr_null(st);
  cdyn_system_free(sys);
  sys = one_spring(1.05, &k);
  const double x0[3] = {0, 0, 0}, x1[3] = {1, 0, 0};
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, x0, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "admm"), CDYN_OK);
  EXPECT_EINVAL(cdyn_stepper_step(st, 0.01), "pinned twice");
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  sys = one_spring(1.05, &k);
  size_t c;
  ck_assert_int_eq(cdyn_system_add_pin(sys, 1, x1, &c), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_inequality(sys, c, 1), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "admm"), CDYN_OK);
  EXPECT_EINVAL(cdyn_stepper_step(st, 0.01), "one-row");
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/* at_current: the constraint takes the spring's length at the switch. */
START_TEST(test_at_current)
{
  size_t k;
  cdyn_system *sys = one_spring(1.25, &k);
  cdyn_strainlimit *sl;
  cdyn_strainlimit_opts o = {0.1, 0, 0, 1, 0, CDYN_LIMIT_SWITCH};
  ck_assert_int_eq(cdyn_strainlimit_new(&sl, sys, &k, 1, &o), CDYN_OK);
  ck_assert_int_eq(cdyn_strainlimit_before(sl), CDYN_OK);
  double L;
  ck_assert_int_eq(cdyn_system_get_constraint(sys, cdyn_system_constraint_count(sys) - 1, NULL, NULL, &L), CDYN_OK);
  ck_assert_msg(fabs(L - 1.25) <= 1e-15, "length %.17g, want 1.25", L);
  double phi[4];
  ck_assert_int_eq(cdyn_system_constraint_values(sys, phi), CDYN_OK);
  ck_assert(fabs(phi[3]) <= 1e-15);
  cdyn_strainlimit_free(sl);
  cdyn_system_free(sys);
}
END_TEST

/*
 * Hysteresis: a released spring that must pass eps_max + 1e-3 before it
 * is a constraint again flips far less (implicit on the hanging cloth,
 * 400 steps: 1132 flips without, 10 with, measured), and the limit still
 * holds to the same bound.
 */
START_TEST(test_hysteresis)
{
  double q[3 * 64], eps0, eps1;
  cdyn_strainlimit_counts c0, c1;
  long a;
  hang("implicit", "cholesky", 400, 0, q, &c0, &a, &eps0);
  hang("implicit", "cholesky", 400, 1e-3, q, &c1, &a, &eps1);
  ck_assert_msg(c1.flips * 10 < c0.flips, "flips: %zu with hysteresis 1e-3, %zu without", c1.flips, c0.flips);
  ck_assert_msg(eps1 <= 0.2, "eps %.3g with hysteresis", eps1);
}
END_TEST

/*
 * Provot: a chain of 4 springs of rest length 1 stretched to 1.5 each,
 * node 0 fixed.  One spring alone goes to exactly (1 + eps_max) L0 in one
 * correction, shared by inverse mass; with sweeps the chain converges to
 * every spring at the limit, geometrically (Gauss-Seidel), node 0 never
 * moves, and every velocity changes by its node's displacement / h.  Bad
 * input is refused.
 */
START_TEST(test_provot)
{
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 5), CDYN_OK);
  size_t sp[4];
  for (size_t i = 0; i < 5; i++) {
    const double x[3] = {1.5 * (double)i, 0, 0};
    ck_assert_int_eq(cdyn_system_set_position(sys, i, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, i, 1.0 + (double)i), CDYN_OK);
  }
  for (size_t i = 0; i < 4; i++)
    ck_assert_int_eq(cdyn_system_add_spring(sys, i, i + 1, 10, 0, 1.0, &sp[i]), CDYN_OK);
  unsigned char fixed[5] = {1, 0, 0, 0, 0};
  double q0[15], q[15], v[15];
  ck_assert_int_eq(cdyn_system_get_state(sys, q0, NULL), CDYN_OK);
  /* The last spring alone, one correction: masses 4 and 5 share 0.4 as 5:4. */
  size_t moved;
  ck_assert_int_eq(cdyn_provot_limit(sys, &sp[3], 1, 0.1, 1, 0.01, fixed, &moved), CDYN_OK);
  ck_assert_uint_eq(moved, 1);
  ck_assert_int_eq(cdyn_system_get_state(sys, q, v), CDYN_OK);
  ck_assert(fabs((q[12] - q[9]) - 1.1) <= 1e-14);
  ck_assert(fabs((q[9] - q0[9]) - 0.4 * 5.0 / 9.0) <= 1e-14);
  ck_assert(fabs(v[12] - (q[12] - q0[12]) / 0.01) <= 1e-12);
  /* All of them, sweep after sweep: Gauss-Seidel, so the excess over the
     limit shrinks geometrically (each sweep's later corrections stretch
     the earlier springs again by a fraction of what they move). */
  double excess[3];
  for (int round = 0; round < 3; round++) {
    ck_assert_int_eq(cdyn_provot_limit(sys, sp, 4, 0.1, 50, 0.01, fixed, &moved), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(sys, q, v), CDYN_OK);
    excess[round] = 0;
    for (size_t i = 0; i < 4; i++)
      excess[round] = fmax(excess[round], q[3 * i + 3] - q[3 * i] - 1.1);
  }
  ck_assert_msg(excess[1] < 0.1 * excess[0] && excess[2] < 0.1 * excess[1],
                "excess after 50, 100, 150 sweeps: %.3g %.3g %.3g", excess[0], excess[1], excess[2]);
  ck_assert(q[0] == 0 && v[0] == 0);
  for (size_t k = 0; k < 15; k++)
    ck_assert(fabs(v[k] - (q[k] - q0[k]) / 0.01) <= 1e-9);
  EXPECT_EINVAL(cdyn_provot_limit(sys, sp, 4, 0, 1, 0.01, fixed, NULL), "eps_max 0");
  EXPECT_EINVAL(cdyn_provot_limit(sys, sp, 4, 0.1, 0, 0.01, fixed, NULL), "0 sweeps");
  EXPECT_EINVAL(cdyn_provot_limit(sys, sp, 4, 0.1, 1, 0, fixed, NULL), "h 0");
  const size_t far = 9;
  EXPECT_EINVAL(cdyn_provot_limit(sys, &far, 1, 0.1, 1, 0.01, fixed, NULL), "spring out of range");
  cdyn_system_free(sys);
}
END_TEST

/*
 * A static check with an exact answer.  A vertical chain: node 0 pinned at
 * the origin, nodes 1..N (N = 6) of m = 0.1 kg below it, joined by springs
 * of k = 450 N/m, L0 = 0.1 m, c = 2 sqrt(k m) (critical for one node),
 * under g = 9.81, strain-limited at eps_max = 0.1 with implicit.  At rest
 * spring s (from node s to s+1) carries T_s = (N - s) m g; as a spring it
 * would stretch by T_s / k, i.e. eps_s = T_s / (k L0) = 0.0218 (N - s),
 * so springs 0 and 1 (eps 0.131, 0.109) are over the limit and stand as
 * constraints at 1.1 L0 with lambda = T_s > 0 (never released), springs
 * 2..5 (eps 0.087 .. 0.022) as springs at L0 + T_s / k.  The start puts
 * springs 2..5 at that length and springs 0 and 1 just past the limit,
 * at 1.1 (1 + 1e-6) L0, so that they are constraints from the first step
 * and their correction is too small to kick spring 2 over the limit.
 * (Measured: from 1.15 L0 the jolt of that correction does, and spring 2,
 * pulling, then stays a constraint for good: the equilibrium the method
 * reaches depends on its history.)  After 3 s of steps of 1 ms the motion
 * has decayed (the slowest mode is damped at about 10 1/s) and every node
 * must be at its hand-derived height to 1e-9 m, the constraints'
 * multipliers at T_s to 1e-6 N.
 */
START_TEST(test_static_equilibrium)
{
  enum { N = 6 };
  const double m = 0.1, k = 450, L0 = 0.1, g = 9.81, c = 2 * sqrt(k * m);
  double L[N], y[N + 1];
  y[0] = 0;
  for (int s = 0; s < N; s++) {
    double T = (N - s) * m * g;
    L[s] = T / (k * L0) > 0.1 ? 1.1 * L0 : L0 + T / k;
    y[s + 1] = y[s] - L[s];
  }
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, N + 1), CDYN_OK);
  const double gv[3] = {0, -g, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(sys, gv), CDYN_OK);
  double ystart = 0;
  for (int i = 0; i <= N; i++) {
    const double x[3] = {0, ystart, 0};
    ck_assert_int_eq(cdyn_system_set_position(sys, (size_t)i, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, (size_t)i, m), CDYN_OK);
    if (i < N)
      ystart -= i < 2 ? 1.1 * (1 + 1e-6) * L0 : L[i];
  }
  const double o[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, o, NULL), CDYN_OK);
  size_t sp[N];
  for (int s = 0; s < N; s++)
    ck_assert_int_eq(cdyn_system_add_spring(sys, (size_t)s, (size_t)s + 1, k, c, L0, &sp[s]), CDYN_OK);
  cdyn_strainlimit *sl;
  cdyn_strainlimit_opts opt = {0.1, 0, 0, 0, 0, CDYN_LIMIT_SWITCH};
  ck_assert_int_eq(cdyn_strainlimit_new(&sl, sys, sp, N, &opt), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "implicit"), CDYN_OK);
  for (int step = 0; step < 3000; step++) {
    ck_assert_int_eq(cdyn_strainlimit_before(sl), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_step(st, 1e-3), CDYN_OK);
    ck_assert_int_eq(cdyn_strainlimit_after(sl, st), CDYN_OK);
  }
  cdyn_strainlimit_counts cnt;
  ck_assert_int_eq(cdyn_strainlimit_counts_get(sl, &cnt), CDYN_OK);
  ck_assert_uint_eq(cnt.active, 2);
  ck_assert_uint_eq(cnt.total_released, 0);
  for (int i = 0; i <= N; i++) {
    double x[3];
    ck_assert_int_eq(cdyn_system_get_particle(sys, (size_t)i, NULL, x, NULL), CDYN_OK);
    ck_assert_msg(fabs(x[1] - y[i]) <= 1e-9 && fabs(x[0]) <= 1e-12 && fabs(x[2]) <= 1e-12,
                  "node %d at y = %.12f, want %.12f", i, x[1], y[i]);
  }
  /* The two constraints were added after the pin (id 0), in spring order. */
  for (int s = 0; s < 2; s++) {
    double lambda;
    ck_assert_int_eq(cdyn_stepper_constraint_multipliers(st, (size_t)s + 1, &lambda, NULL), CDYN_OK);
    ck_assert_msg(fabs(lambda - (N - s) * m * g) <= 1e-6, "spring %d: lambda %.9f, want %.9f", s, lambda,
                  (N - s) * m * g);
  }
  cdyn_stepper_free(st);
  cdyn_strainlimit_free(sl);
  cdyn_system_free(sys);
}
END_TEST

/*
 * The spring Jacobians of Baraff-Witkin (cdyn_spring_jacobians) against
 * central differences of the spring force (cdyn_system_eval_forces), for
 * a stretched and a compressed spring: df_i/dx_i with c = 0 (the damping
 * force's x-dependence is left out by design), df_i/dv_i with k = 0.
 * Central differences with step 1e-5 err by about 1e-10 |f'''| + 1e-16
 * |f| / 1e-5, well below the tolerance 1e-7 (k, c of order 1, r of order
 * 1).  With the compression fix a compressed spring's df/dx is -k n n^T.
 */
START_TEST(test_spring_jacobians)
{
  const double xs[2][3] = {{1.3, -0.4, 0.5}, {0.3, 0.2, -0.1}}; /* r = 1.52 and 0.37 */
  for (int which = 0; which < 2; which++)
    for (int part = 0; part < 2; part++) {
      cdyn_system *sys;
      ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
      const double v1[3] = {0.3, -0.7, 0.2};
      ck_assert_int_eq(cdyn_system_set_position(sys, 0, xs[which]), CDYN_OK);
      ck_assert_int_eq(cdyn_system_set_velocity(sys, 0, v1), CDYN_OK);
      double k = part ? 0.0 : 3.7, c = part ? 0.4 : 0.0;
      ck_assert_int_eq(cdyn_system_add_spring(sys, 0, 1, k, c, 1.0, NULL), CDYN_OK);
      double Kx[9], Kv[9];
      ck_assert_int_eq(cdyn_spring_jacobians(&sys->springs[0], sys->q, sys->q + 3, 0, Kx, Kv), CDYN_OK);
      const double *K = part ? Kv : Kx;
      double *y = part ? sys->v : sys->q;
      for (int b = 0; b < 3; b++) {
        double F1[6], F2[6], keep = y[b], dlt = 1e-5;
        y[b] = keep + dlt;
        ck_assert_int_eq(cdyn_system_eval_forces(sys, sys->q, sys->v, 0, F1), CDYN_OK);
        y[b] = keep - dlt;
        ck_assert_int_eq(cdyn_system_eval_forces(sys, sys->q, sys->v, 0, F2), CDYN_OK);
        y[b] = keep;
        for (int a = 0; a < 3; a++) {
          double fd = (F1[a] - F2[a]) / (2 * dlt);
          ck_assert_msg(fabs(fd - K[3 * a + b]) <= 1e-7, "%s, d f_%d / d %s_%d: %.12g, differences %.12g",
                        which ? "compressed" : "stretched", a, part ? "v" : "x", b, K[3 * a + b], fd);
        }
      }
      if (which == 1 && !part) {
        ck_assert_int_eq(cdyn_spring_jacobians(&sys->springs[0], sys->q, sys->q + 3, 1, Kx, Kv), CDYN_OK);
        double r = sqrt(0.3 * 0.3 + 0.2 * 0.2 + 0.1 * 0.1), n[3] = {0.3 / r, 0.2 / r, -0.1 / r};
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++)
            ck_assert(fabs(Kx[3 * a + b] + k * n[a] * n[b]) <= 1e-14);
      }
      cdyn_system_free(sys);
    }
}
END_TEST

/* ---- Baraff-Witkin ---------------------------------------------------------------- */

/* A BW stepper with the solver `solver` (auto: the paper's filtered PCG)
   and cg_tol. */
static cdyn_stepper *bw_stepper(cdyn_system *sys, const char *solver, const char *cg_tol)
{
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "baraff-witkin"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_OK);
  if (cg_tol)
    ck_assert_int_eq(cdyn_stepper_set(st, "cg_tol", cg_tol), CDYN_OK);
  return st;
}

/*
 * One step of a 3 x 3 patch (pins at nodes 0 and 2, every spring
 * stretched by 8 %, velocities, damping and gravity) against the same
 * linear system built independently: df/dx and df/dv by central
 * differences of the system's force (step 1e-6: error ~1e-10 relative,
 * the rounding of forces of order 10 N), df/dx at v = 0 since
 * Baraff-Witkin's K is the elastic forces' alone (the dampers' dependence
 * on x through n is left out, as in their paper), the pinned components prescribed so that the
 * pins land on their points, the free ones by LU (dgesv) of the reduced
 * dense matrix.  The pins' multipliers are the full system's residual
 * over h.  Each solver: auto, the paper's filtered PCG (at cg_tol 1e-13);
 * on the reduced system cholmod, cholesky, banded, and pcg (the library's,
 * at its default pcg_tol 1e-12).
 */
START_TEST(test_bw_one_step_dense)
{
  static const char *const lin[] = {"auto", "cholmod", "cholesky", "banded", "pcg"};
  enum { N = 9, N3 = 27 };
  const double h = 0.01;
  const size_t pins[2] = {0, 2};
  cdyn_cloth *cl;
  cdyn_system *sys = hung(patch(3, 3), &cl);
  double pin_at[2][3];
  memcpy(pin_at[0], sys->q, sizeof pin_at[0]);
  memcpy(pin_at[1], sys->q + 6, sizeof pin_at[1]);
  for (size_t i = 0; i < N; i++)
    for (int a = 0; a < 3; a++) {
      sys->q[3 * i + a] *= 1.08;
      sys->v[3 * i + a] = 0.3 * sin(1.7 * (double)i + a) + (a == 1 ? 0.2 : 0.0);
    }
  double q0[N3], v0[N3];
  memcpy(q0, sys->q, sizeof q0);
  memcpy(v0, sys->v, sizeof v0);
  /* The reference. */
  static double A[N3 * N3], Kx[N3 * N3];
  static const double zero[N3];
  double f0[N3], b[N3], z[N3] = {0}, dv[N3];
  int pinned[N3] = {0};
  ck_assert_int_eq(cdyn_system_eval_forces(sys, q0, v0, 0, f0), CDYN_OK);
  for (int c = 0; c < N3; c++) {
    double qp[N3], qm[N3], vp[N3], vm[N3], F1[N3], F2[N3], F3[N3], F4[N3], dl = 1e-6;
    memcpy(qp, q0, sizeof qp), memcpy(qm, q0, sizeof qm), memcpy(vp, v0, sizeof vp), memcpy(vm, v0, sizeof vm);
    qp[c] += dl, qm[c] -= dl, vp[c] += dl, vm[c] -= dl;
    ck_assert_int_eq(cdyn_system_eval_forces(sys, qp, zero, 0, F1), CDYN_OK);
    ck_assert_int_eq(cdyn_system_eval_forces(sys, qm, zero, 0, F2), CDYN_OK);
    ck_assert_int_eq(cdyn_system_eval_forces(sys, q0, vp, 0, F3), CDYN_OK);
    ck_assert_int_eq(cdyn_system_eval_forces(sys, q0, vm, 0, F4), CDYN_OK);
    for (int r = 0; r < N3; r++) {
      Kx[r * N3 + c] = (F1[r] - F2[r]) / (2 * dl);
      double Dv = (F3[r] - F4[r]) / (2 * dl);
      A[r * N3 + c] = (r == c ? sys->mass[r / 3] : 0.0) - h * Dv - h * h * Kx[r * N3 + c];
    }
  }
  for (int r = 0; r < N3; r++) {
    double kv = 0;
    for (int c = 0; c < N3; c++)
      kv += Kx[r * N3 + c] * v0[c];
    b[r] = h * (f0[r] + h * kv);
  }
  for (int p = 0; p < 2; p++)
    for (int a = 0; a < 3; a++) {
      int k = 3 * (int)pins[p] + a;
      pinned[k] = 1;
      z[k] = (pin_at[p][a] - q0[k]) / h - v0[k];
    }
  {
    static double Ar[N3 * N3];
    double br[N3];
    int map[N3], nf = 0;
    for (int r = 0; r < N3; r++)
      if (!pinned[r])
        map[nf++] = r;
    for (int i = 0; i < nf; i++) {
      br[i] = b[map[i]];
      for (int c = 0; c < N3; c++)
        br[i] -= A[map[i] * N3 + c] * z[c];
      for (int j = 0; j < nf; j++)
        Ar[i * nf + j] = A[map[i] * N3 + map[j]];
    }
    lapack_int ipiv[N3];
    ck_assert_int_eq(LAPACKE_dgesv(LAPACK_ROW_MAJOR, nf, 1, Ar, nf, ipiv, br, 1), 0);
    memcpy(dv, z, sizeof dv);
    for (int i = 0; i < nf; i++)
      dv[map[i]] = br[i];
  }
  double lam_ref[6];
  for (int p = 0; p < 2; p++)
    for (int a = 0; a < 3; a++) {
      int k = 3 * (int)pins[p] + a;
      double adv = 0;
      for (int c = 0; c < N3; c++)
        adv += A[k * N3 + c] * dv[c];
      lam_ref[3 * p + a] = (b[k] - adv) / h;
    }
  double dvmax = 0, lmax = 0;
  for (int k = 0; k < N3; k++)
    dvmax = fmax(dvmax, fabs(dv[k]));
  for (int k = 0; k < 6; k++)
    lmax = fmax(lmax, fabs(lam_ref[k]));
  ck_assert(dvmax > 0.01 && lmax > 0.1);
  for (int l = 0; l < 5; l++) {
    memcpy(sys->q, q0, sizeof q0);
    memcpy(sys->v, v0, sizeof v0);
    cdyn_stepper *st = bw_stepper(sys, lin[l], "1e-13");
    ck_assert_msg(cdyn_stepper_step(st, h) == CDYN_OK, "%s: %s", lin[l], cdyn_errmsg());
    double lam[6];
    ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
    for (int k = 0; k < N3; k++) {
      double want_v = v0[k] + dv[k], want_q = q0[k] + h * want_v;
      ck_assert_msg(fabs(sys->v[k] - want_v) <= 1e-8 * dvmax, "%s: v[%d] = %.15g, dense %.15g", lin[l], k,
                    sys->v[k], want_v);
      ck_assert_msg(fabs(sys->q[k] - want_q) <= 1e-8 * dvmax * h + 1e-15, "%s: q[%d]", lin[l], k);
    }
    /* The pins land exactly where the pinned rows are solved exactly: by
       the filtered PCG (it never moves them) and by a direct solver (the
       reduced system's identity rows); the library's PCG iterates on
       them with the rest, so they land within its tolerance, a relative
       residual of 1e-12: |dv_p - z_p| <= 1e-12 |b|, here below 1e-12
       dvmax, and the position moves by h times that. */
    int exact_pins = strcmp(lin[l], "pcg") != 0;
    for (int p = 0; p < 2; p++)
      for (int a = 0; a < 3; a++) {
        double got = sys->q[3 * pins[p] + (size_t)a], want = pin_at[p][a];
        if (exact_pins)
          ck_assert_msg(got == want, "%s: pin %d lands at %.17g, not %.17g", lin[l], p, got, want);
        else
          ck_assert_msg(fabs(got - want) <= 1e-12 * dvmax * h + 1e-15, "%s: pin %d lands at %.17g, not %.17g",
                        lin[l], p, got, want);
      }
    for (int k = 0; k < 6; k++)
      ck_assert_msg(fabs(lam[k] - lam_ref[k]) <= 1e-6 * lmax, "%s: lambda[%d] = %.12g, dense %.12g", lin[l], k,
                    lam[k], lam_ref[k]);
    cdyn_stepper_free(st);
  }
  cdyn_cloth_free(cl);
  cdyn_system_free(sys);
}
END_TEST

/*
 * The elastic pendulum: particle 1 (m = 0.5 kg) on an undamped spring
 * (k = 60 N/m, L0 = 0.7 m) from particle 0, pinned at the origin, under
 * gravity, from (0.8, -0.3, 0.2) at rest.  Reference: the same ODE,
 * x'' = g - (k/m)(|x| - L0) x/|x|, by GSL's rk8pd at 1e-13.  Linearised
 * backward Euler is first order: the position error at T = 1 s over
 * h = 1/100 .. 1/1600 must fit a slope within 0.25 of 1 (the band of
 * test_schemes.c).  It dissipates: the energy falls, by an amount
 * proportional to h (slope within 0.25 of 1 as well).
 */
/* Least-squares slope of log y against log x. */
static double loglog_slope(const double *x, const double *y, int n)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int k = 0; k < n; k++) {
    double a = log(x[k]), b = log(y[k]);
    sx += a, sy += b, sxx += a * a, sxy += a * b;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

static int elastic_rhs(double t, const double y[], double dydt[], void *params)
{
  (void)t, (void)params;
  double r = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]), f = -(60.0 / 0.5) * (r - 0.7) / r;
  for (int a = 0; a < 3; a++) {
    dydt[a] = y[3 + a];
    dydt[3 + a] = f * y[a] + (a == 1 ? -9.81 : 0.0);
  }
  return GSL_SUCCESS;
}

static cdyn_system *elastic_pendulum(void)
{
  const double origin[3] = {0, 0, 0}, x1[3] = {0.8, -0.3, 0.2}, g[3] = {0, -9.81, 0};
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 1, x1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(sys, 1, 0.5), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, origin, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_spring(sys, 0, 1, 60.0, 0.0, 0.7, NULL), CDYN_OK);
  return sys;
}

static double elastic_energy(const cdyn_system *sys)
{
  const double *x = sys->q + 3, *v = sys->v + 3;
  double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  return 0.5 * 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * 9.81 * x[1] +
         0.5 * 60.0 * (r - 0.7) * (r - 0.7);
}

START_TEST(test_bw_order_energy)
{
  double y[6] = {0.8, -0.3, 0.2, 0, 0, 0}, t = 0;
  gsl_odeiv2_system os = {elastic_rhs, NULL, 6, NULL};
  gsl_odeiv2_driver *drv = gsl_odeiv2_driver_alloc_y_new(&os, gsl_odeiv2_step_rk8pd, 1e-4, 1e-13, 1e-13);
  ck_assert_ptr_nonnull(drv);
  ck_assert_int_eq(gsl_odeiv2_driver_apply(drv, &t, 1.0, y), GSL_SUCCESS);
  gsl_odeiv2_driver_free(drv);
  double hs[5], err[5], loss[5];
  for (int k = 0; k < 5; k++) {
    long N = 100L << k;
    hs[k] = 1.0 / (double)N;
    cdyn_system *sys = elastic_pendulum();
    double E0 = elastic_energy(sys);
    cdyn_stepper *st = bw_stepper(sys, k % 2 ? "cholmod" : "auto", "1e-12");
    for (long n = 0; n < N; n++)
      ck_assert_int_eq(cdyn_stepper_step(st, hs[k]), CDYN_OK);
    err[k] = sqrt(pow(sys->q[3] - y[0], 2) + pow(sys->q[4] - y[1], 2) + pow(sys->q[5] - y[2], 2));
    loss[k] = E0 - elastic_energy(sys);
    ck_assert_msg(loss[k] > 0, "h = %g: the energy rose by %g J", hs[k], -loss[k]);
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
  double p = loglog_slope(hs, err, 5), pe = loglog_slope(hs, loss, 5);
  ck_assert_msg(fabs(p - 1) <= 0.25, "order %.3f (errors %g .. %g)", p, err[0], err[4]);
  ck_assert_msg(fabs(pe - 1) <= 0.25, "energy loss against h: slope %.3f (%g .. %g J)", pe, loss[0], loss[4]);
}
END_TEST

/* Pins only: a distance constraint is refused when the stepper is made and
   when one is switched on later; bad option values are refused. */
START_TEST(test_bw_refuses)
{
  cdyn_system *sys = elastic_pendulum();
  size_t id;
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, 0.7, &id), CDYN_OK);
  cdyn_stepper *st = NULL;
  TU_EXPECT_EINVAL(cdyn_stepper_new(&st, sys, "baraff-witkin"));
  ck_assert_ptr_null(st);
  ck_assert_int_eq(cdyn_system_enable_constraint(sys, id, 0), CDYN_OK);
  st = bw_stepper(sys, "auto", NULL);
  ck_assert_int_eq(cdyn_stepper_step(st, 0.01), CDYN_OK);
  ck_assert_int_eq(cdyn_system_enable_constraint(sys, id, 1), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_stepper_step(st, 0.01));
  TU_EXPECT_STATUS(cdyn_stepper_set(st, "solver", "lu"), CDYN_EUNKNOWN);
  TU_EXPECT_EINVAL(cdyn_stepper_set(st, "cg_tol", "0"));
  TU_EXPECT_STATUS(cdyn_stepper_set(st, "compression", "none"), CDYN_EUNKNOWN);
  size_t idx;
  ck_assert_int_eq(cdyn_scheme_find("baraff-witkin", &idx), CDYN_OK);
  ck_assert_int_eq(cdyn_scheme_pins_only(idx), 1);
  ck_assert_int_eq(cdyn_scheme_find("implicit", &idx), CDYN_OK);
  ck_assert_int_eq(cdyn_scheme_pins_only(idx), 0);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/* A hanging 8 x 8 patch: no allocation after the first step (which builds
   the pattern and, for cholmod, the analysis), with either solver; two
   runs are bitwise equal. */
static void bw_hang(const char *linear, double *q, long *allocs)
{
  cdyn_cloth *cl;
  cdyn_system *sys = hung(patch(8, 8), &cl);
  cdyn_stepper *st = bw_stepper(sys, linear, "1e-6");
  *allocs = 0;
  for (int k = 0; k < 100; k++) {
    if (k > 0)
      ta_arm(0);
    int rc = cdyn_stepper_step(st, 0.01);
    if (k > 0)
      *allocs += ta_disarm();
    ck_assert_msg(rc == CDYN_OK, "%s step %d: %s", linear, k, cdyn_errmsg());
  }
  memcpy(q, sys->q, 3 * 64 * sizeof *q);
  cdyn_stepper_free(st);
  cdyn_cloth_free(cl);
  cdyn_system_free(sys);
}

START_TEST(test_bw_no_allocation)
{
  static const char *const lin[] = {"auto", "cholmod"};
  double q1[3 * 64], q2[3 * 64];
  long a1, a2;
  bw_hang(lin[_i], q1, &a1);
  bw_hang(lin[_i], q2, &a2);
  ck_assert_msg(a1 == 0 || !ta_works, "%s: %ld allocations in 99 steps", lin[_i], a1);
  ck_assert(memcmp(q1, q2, sizeof q1) == 0);
  /* It fell and hangs: the free corner below its start. */
  ck_assert(q1[3 * 63 + 1] < -0.1);
}
END_TEST

/*
 * The chain: three 1 kg nodes on springs of rest length 1 m from a
 * pinned pivot, released from angles (1.2, 1.0, 0.8) rad, against the
 * rigid three-link pendulum of reference/nlink.c (GSL, 1e-13) at
 * T = 0.5 s.  A stiff spring approaches the rigid link: its static
 * stretch is 3 m g / k (3e-4 m at k = 1e5) and its fast oscillation is
 * damped out by backward Euler, so what remains is the method's first-order
 * error.  Measured: 2.7e-3 m at (k = 1e5, h = 1e-3), 1.2e-3 m at
 * (1e6, 5e-4): the error halves with h (ratio 2.3).  Asserted: the finer
 * run within 2e-3 m and at least 1.8 times below the coarser.
 */
static double bw_chain_error(double k, double h, const double *ref_xy, const double *th)
{
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, 4), CDYN_OK);
  const double g[3] = {0, -9.81, 0}, o[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  double x = 0, y = 0;
  for (int i = 0; i < 3; i++) {
    x += sin(th[i]), y -= cos(th[i]);
    const double p[3] = {x, y, 0};
    ck_assert_int_eq(cdyn_system_set_position(s, (size_t)i + 1, p), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_pin(s, 0, o, NULL), CDYN_OK);
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(cdyn_system_add_spring(s, (size_t)i, (size_t)i + 1, k, 0, 1.0, NULL), CDYN_OK);
  cdyn_stepper *st = bw_stepper(s, "auto", "1e-12");
  long N = lround(0.5 / h);
  for (long n = 0; n < N; n++)
    ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
  double e = 0;
  for (int i = 0; i < 3; i++)
    e = fmax(e, hypot(s->q[3 * (i + 1)] - ref_xy[2 * i], s->q[3 * (i + 1) + 1] - ref_xy[2 * i + 1]));
  cdyn_stepper_free(st);
  cdyn_system_free(s);
  return e;
}

START_TEST(test_bw_chain_reference)
{
  const double L[3] = {1, 1, 1}, M[3] = {1, 1, 1}, th[3] = {1.2, 1.0, 0.8};
  cdyn_ref_nlink_params rp = {3, L, M, 9.81, {0, 0}, th, NULL, 0, 0};
  cdyn_ref_nlink *ref;
  ck_assert_int_eq(cdyn_ref_nlink_new(&ref, &rp), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_nlink_advance(ref, 0.5), CDYN_OK);
  double xy[6];
  ck_assert_int_eq(cdyn_ref_nlink_positions(ref, xy), CDYN_OK);
  cdyn_ref_nlink_free(ref);
  double coarse = bw_chain_error(1e5, 1e-3, xy, th), fine = bw_chain_error(1e6, 5e-4, xy, th);
  ck_assert_msg(fine <= 2e-3 && coarse >= 1.8 * fine, "errors %.4g (k 1e5, h 1e-3) and %.4g (k 1e6, h 5e-4)", coarse,
                fine);
}
END_TEST

/* ---- the heavy ball ---------------------------------------------------------------- */

/* A 6 x 6 patch, 0.5 m square, horizontal (u along x, v along z) at
   y = 0, pinned at two corners when `pinned`, and a ball (the extra
   particle) of radius 0.1 m below its middle at y = -0.15, on a moving pin
   rising at `rise` m/s, or free (mass 5 kg) moving up at `rise`. */
static void ball_scene(int pinned, int held, double rise, cdyn_cloth **cl, cdyn_system **sys, size_t *ball)
{
  cdyn_cloth_spec cs = patch(6, 6);
  cs.u[0] = 0.5, cs.v[2] = 0.5, cs.v[0] = 0, cs.v[1] = 0;
  cs.origin[0] = -0.25, cs.origin[2] = -0.25;
  const size_t pins[2] = {0, 5};
  cs.pins = pinned ? pins : NULL, cs.npins = pinned ? 2 : 0;
  cs.extra = 1;
  ck_assert_int_eq(cdyn_cloth_new(cl, sys, &cs), CDYN_OK);
  *ball = 36;
  const double c[3] = {0.01, -0.15, 0.02}, up[3] = {0, rise, 0}, zero[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_set_position(*sys, *ball, c), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(*sys, *ball, up), CDYN_OK);
  if (held)
    ck_assert_int_eq(cdyn_system_add_moving_pin(*sys, *ball, c, up, zero, 0, 0, NULL), CDYN_OK);
  else
    ck_assert_int_eq(cdyn_system_set_mass(*sys, *ball, 5.0), CDYN_OK);
}

static void momentum(const cdyn_system *sys, double p[3])
{
  const double *v = cdyn_system_velocities(sys);
  p[0] = p[1] = p[2] = 0;
  for (size_t i = 0; i < sys->n; i++)
    for (int k = 0; k < 3; k++)
      p[k] += sys->mass[i] * v[3 * i + k];
}

/* The ball scene with every node kept out of the ball (`mode`) and a
   stepper of `scheme`: pinned cloth and a ball rising on its path at
   1 m/s, or (held = 0) a free cloth and a free 5 kg ball at 1 m/s. */
typedef struct {
  cdyn_cloth *cl;
  cdyn_system *sys;
  cdyn_ball *b;
  cdyn_stepper *st;
  size_t ball;
} ball_run;

static ball_run ball_setup(int held, int mode, const char *scheme)
{
  ball_run r;
  ball_scene(held, held, 1.0, &r.cl, &r.sys, &r.ball);
  size_t nodes[36];
  for (size_t k = 0; k < 36; k++)
    nodes[k] = k;
  cdyn_ball_opts bo = {0.1, 0.0, mode, 0.0};
  ck_assert_int_eq(cdyn_ball_new(&r.b, r.sys, r.ball, nodes, 36, &bo), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&r.st, r.sys, scheme), CDYN_OK);
  return r;
}

static void ball_free(ball_run *r)
{
  cdyn_stepper_free(r->st);
  cdyn_ball_free(r->b);
  cdyn_cloth_free(r->cl);
  cdyn_system_free(r->sys);
}

/*
 * The ball rises into the cloth at 1 m/s for 0.3 s (h = 2 ms), with every
 * mode: SWITCH (implicit: constraints switched on as it arrives, off
 * when they pull), INEQUALITY (contact), PROJECT (springs alone).  The
 * cloth goes up with it, and no node gets deep into the ball after any
 * step.  SWITCH (implicit) holds the linearised constraint, whose error
 * on a sphere is that of a chord, h^2 v_t^2 / (2 R) for a node sliding at
 * v_t: below 1e-4 m for v_t < 2 m/s (measured: 6.8e-5 m); PROJECT puts
 * nodes on the surface to rounding.  contact enforces the rows at the
 * acceleration level with Baumgarte's feedback (tau = 5 steps), so a
 * sliding node drifts in under the rising cloth tension: measured
 * 3.0e-4 m at the end of the run, growing; the bound for it is 1e-3 m
 * (1 % of the radius).
 */
START_TEST(test_ball_modes)
{
  static const char *const scheme[] = {"implicit", "contact", "implicit"};
  const int mode = _i;
  ball_run r = ball_setup(1, mode, scheme[mode]);
  cdyn_system *sys = r.sys;
  cdyn_ball *b = r.b;
  cdyn_stepper *st = r.st;
  size_t ball = r.ball;
  /* contact: Baumgarte's stabilisation (003 eq 5) at tau = 5 steps, or the
     acceleration-level rows drift into the ball. */
  if (mode == CDYN_BALL_INEQUALITY)
    ck_assert_int_eq(cdyn_stepper_set(st, "tau", "0.01"), CDYN_OK);
  double worst = 0;
  unsigned long released = 0, activated = 0;
  cdyn_ball_counts c;
  for (int k = 0; k < 150; k++) {
    ck_assert_int_eq(cdyn_ball_before(b, 0.002), CDYN_OK);
    int rc = cdyn_stepper_step(st, 0.002);
    ck_assert_msg(rc >= 0, "mode %d step %d: %s", mode, k, cdyn_errmsg());
    ck_assert_int_eq(cdyn_ball_after(b, st, 0.002), CDYN_OK);
    ck_assert_int_eq(cdyn_ball_counts_get(b, &c), CDYN_OK);
    worst = fmax(worst, c.depth);
    activated += c.activated;
    released += c.released;
  }
  ck_assert_msg(worst <= (mode == CDYN_BALL_INEQUALITY ? 1e-3 : 1e-4), "mode %d: a node reached %.3g m into the ball",
                mode, worst);
  /* The ball carried the cloth: it rose from y = -0.15 to 0.15 (its top
     from -0.05 to 0.25) into a cloth at y = 0 held by two corners, so
     nodes must be on its surface (within 1e-3 m) and lifted above
     y = 0.1; had it passed through, none would be. */
  size_t touching = 0;
  double top = -1;
  const double *x = cdyn_system_positions(sys);
  for (size_t k = 0; k < 36; k++) {
    double r = sqrt(pow(x[3 * k] - x[3 * ball], 2) + pow(x[3 * k + 1] - x[3 * ball + 1], 2) +
                    pow(x[3 * k + 2] - x[3 * ball + 2], 2));
    touching += r < 0.101;
    top = fmax(top, x[3 * k + 1]);
  }
  ck_assert_msg(touching >= 1 && top > 0.1, "mode %d: %zu nodes on the ball at the end, the highest at y = %g",
                mode, touching, top);
  if (mode == CDYN_BALL_SWITCH)
    ck_assert_msg(activated >= 4 && released > 0, "activated %lu, released %lu", activated, released);
  ball_free(&r);
}
END_TEST

/*
 * The reaction: a free ball (5 kg, 1 m/s) hits a free cloth (no pins, no
 * gravity).  No external force acts, so the total momentum stays 5 kg m/s
 * along y: to rounding (1e-12 relative) with constraints (their forces
 * -J^T lambda are equal and opposite on node and ball, the springs' too,
 * and implicit's update is linear in them) and with the projection's
 * exchange.  The ball slows down: it pushed the cloth.
 */
START_TEST(test_ball_reaction)
{
  const int mode = _i ? CDYN_BALL_PROJECT : CDYN_BALL_SWITCH;
  ball_run r = ball_setup(0, mode, "implicit");
  cdyn_system *sys = r.sys;
  cdyn_ball *b = r.b;
  cdyn_stepper *st = r.st;
  size_t ball = r.ball;
  double p0[3], p1[3];
  momentum(sys, p0);
  for (int k = 0; k < 150; k++) {
    ck_assert_int_eq(cdyn_ball_before(b, 0.002), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_step(st, 0.002), CDYN_OK);
    ck_assert_int_eq(cdyn_ball_after(b, st, 0.002), CDYN_OK);
  }
  momentum(sys, p1);
  for (int k = 0; k < 3; k++)
    ck_assert_msg(fabs(p1[k] - p0[k]) <= 1e-12 * 5.0, "mode %d: momentum[%d] %.15g -> %.15g", mode, k, p0[k], p1[k]);
  ck_assert_msg(cdyn_system_velocities(sys)[3 * ball + 1] < 0.99, "the ball kept %.6g m/s",
                cdyn_system_velocities(sys)[3 * ball + 1]);
  ball_free(&r);
}
END_TEST

START_TEST(test_ball_bad_input)
{
  cdyn_cloth *cl;
  cdyn_system *sys;
  size_t ball, nodes[3] = {0, 1, 2};
  ball_scene(1, 1, 0.0, &cl, &sys, &ball);
  cdyn_ball *b = (cdyn_ball *)&b;
  cdyn_ball_opts bo = {0.1, 0.0, CDYN_BALL_SWITCH, 0.0};
  bo.radius = 0;
  TU_EXPECT_EINVAL(cdyn_ball_new(&b, sys, ball, nodes, 3, &bo));
  ck_assert_ptr_null(b);
  bo.radius = -1;
  TU_EXPECT_EINVAL(cdyn_ball_new(&b, sys, ball, nodes, 3, &bo));
  bo.radius = NAN;
  TU_EXPECT_EINVAL(cdyn_ball_new(&b, sys, ball, nodes, 3, &bo));
  bo.radius = 0.1, bo.thickness = -1e-3;
  TU_EXPECT_EINVAL(cdyn_ball_new(&b, sys, ball, nodes, 3, &bo));
  bo.thickness = 0, bo.release = -1;
  TU_EXPECT_EINVAL(cdyn_ball_new(&b, sys, ball, nodes, 3, &bo));
  bo.release = 0, bo.mode = 7;
  TU_EXPECT_EINVAL(cdyn_ball_new(&b, sys, ball, nodes, 3, &bo));
  bo.mode = CDYN_BALL_SWITCH;
  TU_EXPECT_EINVAL(cdyn_ball_new(&b, sys, 99, nodes, 3, &bo));
  size_t bad[2] = {0, 99}, self[2] = {0, 36};
  TU_EXPECT_EINVAL(cdyn_ball_new(&b, sys, ball, bad, 2, &bo));
  TU_EXPECT_EINVAL(cdyn_ball_new(&b, sys, ball, self, 2, &bo));
  TU_EXPECT_EINVAL(cdyn_ball_new(&b, sys, ball, NULL, 2, &bo));
  TU_EXPECT_EINVAL(cdyn_ball_new(NULL, sys, ball, nodes, 3, &bo));
  /* Nothing was added by the refusals. */
  ck_assert_uint_eq(cdyn_system_constraint_count(sys), 3);
  ck_assert_int_eq(cdyn_ball_new(&b, sys, ball, nodes, 3, &bo), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_ball_before(b, 0));
  TU_EXPECT_EINVAL(cdyn_ball_before(NULL, 0.01));
  TU_EXPECT_EINVAL(cdyn_ball_after(b, NULL, 0.01));
  TU_EXPECT_EINVAL(cdyn_ball_counts_get(b, NULL));
  cdyn_ball_free(b);
  cdyn_ball_free(NULL);
  cdyn_cloth_free(cl);
  cdyn_system_free(sys);
}
END_TEST


/*
 * cdyn_system_spring_frequency (core/frequency.c) against the spectrum of
 * M^-1/2 K M^-1/2 by LAPACK's dsyev, on a cloth at rest (K = sum k d d^T)
 * with unequal masses: one spring's frequency <= the highest <= the
 * Gershgorin bound.  And the limit it serves: two particles and a spring
 * under symplectic Euler stay bounded at h omega = 1.9 and blow up at 2.1.
 */
START_TEST(test_spring_frequency)
{
  cdyn_cloth_spec spec = {.nx = 5, .ny = 4, .origin = {0, 0, 0}, .u = {1, 0, 0}, .v = {0, 0, 1},
                          .mass = 0.2, .k_struct = 300, .k_shear = 40, .k_bend = 5};
  cdyn_cloth *cloth;
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_cloth_new(&cloth, &sys, &spec), CDYN_OK);
  size_t n = cdyn_system_size(sys), n3 = 3 * n;
  ck_assert_int_eq(cdyn_system_set_mass(sys, 3, 0.004), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(sys, 12, 0.05), CDYN_OK);
  double *K = calloc(n3 * n3, sizeof *K), *w = malloc(n3 * sizeof *w), m[64];
  ck_assert(K && w && n <= 64);
  for (size_t i = 0; i < n; i++)
    ck_assert_int_eq(cdyn_system_get_particle(sys, i, &m[i], NULL, NULL), CDYN_OK);
  const double *q = cdyn_system_positions(sys);
  for (size_t s = 0; s < cdyn_system_spring_count(sys); s++) {
    size_t a, b;
    double k;
    ck_assert_int_eq(cdyn_system_get_spring(sys, s, &a, &b, &k, NULL, NULL), CDYN_OK);
    double d[3], l = 0;
    for (int c = 0; c < 3; c++)
      d[c] = q[3 * b + c] - q[3 * a + c], l += d[c] * d[c];
    size_t p[2] = {a, b};
    for (int u = 0; u < 2; u++)
      for (int v = 0; v < 2; v++)
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++)
            K[(3 * p[u] + r) * n3 + 3 * p[v] + c] += (u == v ? 1 : -1) * k * d[r] * d[c] / l / sqrt(m[p[u]] * m[p[v]]);
  }
  ck_assert_int_eq(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', (lapack_int)n3, K, (lapack_int)n3, w), 0);
  double wmax = sqrt(w[n3 - 1]), ws, wb;
  ck_assert_int_eq(cdyn_system_spring_frequency(sys, &ws, &wb), CDYN_OK);
  ck_assert_msg(ws <= wmax * (1 + 1e-12) && wmax <= wb * (1 + 1e-12), "one spring %g, highest %g, bound %g", ws, wmax,
                wb);
  ck_assert_msg(ws > 0.5 * wmax && wb < 3 * wmax, "bounds too loose: %g <= %g <= %g", ws, wmax, wb);
  ck_assert_int_eq(cdyn_system_spring_frequency(NULL, &ws, &wb), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_system_spring_frequency(sys, NULL, &wb), CDYN_EINVAL);
  free(K);
  free(w);
  cdyn_cloth_free(cloth);
  cdyn_system_free(sys);

  /* The limit h omega < 2 of symplectic Euler, on one spring. */
  for (int run = 0; run < 2; run++) {
    ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
    double x1[3] = {1.1, 0, 0};
    ck_assert_int_eq(cdyn_system_set_position(sys, 1, x1), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_spring(sys, 0, 1, 100, 0, 1, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_spring_frequency(sys, &ws, &wb), CDYN_OK);
    ck_assert_double_eq_tol(ws, sqrt(200.0), 1e-12);
    ck_assert_double_eq_tol(wb, sqrt(200.0), 1e-12); /* one spring: the bound is exact */
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_stepper_new(&st, sys, "baumgarte"), CDYN_OK);
    double h = (run ? 2.1 : 1.9) / ws, amp = 0;
    for (int k = 0; k < 400; k++) {
      if (cdyn_stepper_step(st, h) < 0)
        break;
      const double *x = cdyn_system_positions(sys);
      amp = fmax(amp, fabs(x[3] - x[0] - 1));
    }
    if (run)
      ck_assert_msg(amp > 1e3, "h omega = 2.1: amplitude %g did not grow", amp);
    else
      ck_assert_msg(amp < 1, "h omega = 1.9: amplitude %g grew", amp);
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
}
END_TEST

int main(void)
{
  ta_init();
  Suite *s = suite_create("cloth");
  TCase *tc = tcase_create("mesh");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_mesh_counts);
  tcase_add_test(tc, test_bad_input);
  suite_add_tcase(s, tc);
  tc = tcase_create("strainlimit");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_single_switch);
  tcase_add_test(tc, test_at_current);
  tcase_add_test(tc, test_inequality_mode);
  tcase_add_test(tc, test_hysteresis);
  tcase_add_test(tc, test_provot);
  tcase_add_test(tc, test_static_equilibrium);
  tcase_add_test(tc, test_spring_jacobians);
  tcase_add_test(tc, test_spring_frequency);
  tcase_add_loop_test(tc, test_switching, 0, 4);
  suite_add_tcase(s, tc);
  tc = tcase_create("baraff-witkin");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_bw_one_step_dense);
  tcase_add_test(tc, test_bw_order_energy);
  tcase_add_test(tc, test_bw_chain_reference);
  tcase_add_test(tc, test_bw_refuses);
  tcase_add_loop_test(tc, test_bw_no_allocation, 0, 2);
  suite_add_tcase(s, tc);
  tc = tcase_create("projected-newton");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_pn_is_backward_euler);
  tcase_add_test(tc, test_pn_tether);
  tcase_add_loop_test(tc, test_pn_cloth_limit, 0, 2);
  tcase_add_loop_test(tc, test_pn_indefinite, 0, 3);
  tcase_add_test(tc, test_pn_contact_block);
  tcase_add_test(tc, test_pn_set_change);
  tcase_add_test(tc, test_pn_refuses);
  suite_add_tcase(s, tc);
  tc = tcase_create("admm");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_admm_is_the_minimum);
  tcase_add_test(tc, test_admm_tether);
  tcase_add_test(tc, test_admm_cloth);
  tcase_add_test(tc, test_admm_contact);
  tcase_add_test(tc, test_admm_pairs);
  tcase_add_test(tc, test_admm_noconv);
  tcase_add_test(tc, test_admm_extrapolate);
  tcase_add_test(tc, test_admm_stats);
  tcase_add_test(tc, test_admm_refuses);
  suite_add_tcase(s, tc);
  tc = tcase_create("ball");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_ball_bad_input);
  tcase_add_loop_test(tc, test_ball_modes, 0, 3);
  tcase_add_loop_test(tc, test_ball_reaction, 0, 2);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
