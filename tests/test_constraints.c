/*
 * tests/test_constraints.c: the constraint types beyond the link and the
 * pin, through the public header only.
 *
 * Values at hand-computed states (signs included), degenerate states
 * reported as CDYN_EDEGENERATE, overflowing ones as CDYN_ENONFINITE,
 * invalid parameters rejected by cdyn_system_add_constraint_named, and
 * each type in motion under gravity: the implicit scheme's after-step
 * error equals the h^2 S / 2 that the type's jdotv + phi_tt predict, and
 * Baumgarte's error stays within its first-order bound and halves with h.
 *
 * Every type's derivatives against finite differences, and the types
 * through a system, are in test_constraint_derivatives.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "testutil.h"

static const double pi = 3.14159265358979323846;

/* ---- the new types: values computed by hand ------------------------------------ */

/*
 * Evaluate the type `name` directly at positions x (and velocities v, may
 * be NULL for zero) at time t; return eval's status.  Rows are cleared
 * first, as the system does.
 */
static int eval_named(const char *name, const double *params, double x[][3], double v[][3], double t,
                      cdyn_row *rows)
{
  const cdyn_constraint_type *type = NULL;
  ck_assert_int_eq(cdyn_constraint_type_find(name, &type), CDYN_OK);
  static double zero[CDYN_MAX_PARTICLES][3];
  const double *xp[CDYN_MAX_PARTICLES] = {NULL}, *vp[CDYN_MAX_PARTICLES] = {NULL};
  for (unsigned p = 0; p < type->nparticles; p++) {
    xp[p] = x[p];
    vp[p] = v ? v[p] : zero[p];
  }
  memset(rows, 0, CDYN_MAX_ROWS * sizeof *rows);
  return type->eval(params, xp, vp, t, rows);
}

/* Hand values below are sums of a few products of numbers of order one:
   they and the library round differently by a few ulps, hence 1e-14. */
#define NEAR(a, b) ck_assert_msg(fabs((a) - (b)) <= 1e-14 * (1 + fabs(b)), "%s = %.17g, expected %.17g", #a, (double)(a), (double)(b))

START_TEST(test_circle_values)
{
  /* Centre (1, 2, 3), normal 2 z (not unit), R = 2; d = (1.2, 1.6, 0.5):
     Phi_1 = 0.5, Phi_2 = (4.25 - 4) / 4 = 0.0625; with v = (0.3, -0.4, 1.2),
     jdotv_2 = |v|^2 / R = 1.69 / 2. */
  double p[7] = {1, 2, 3, 0, 0, 2, 2}, x[1][3] = {{2.2, 3.6, 3.5}}, v[1][3] = {{0.3, -0.4, 1.2}};
  cdyn_row r[CDYN_MAX_ROWS];
  ck_assert_int_eq(eval_named("circle", p, x, v, 0, r), CDYN_OK);
  NEAR(r[0].phi, 0.5);
  NEAR(r[1].phi, 0.0625);
  NEAR(r[0].jac[0][2], 1.0);
  NEAR(r[1].jac[0][0], 0.6);
  NEAR(r[0].jdotv, 0.0);
  NEAR(r[1].jdotv, 1.69 / 2);
  /* On the circle: d = 2 (cos a, sin a, 0). */
  for (double a = 0.1; a < 6.3; a += 0.7) {
    double y[1][3] = {{1 + 2 * cos(a), 2 + 2 * sin(a), 3}};
    ck_assert_int_eq(eval_named("circle", p, y, NULL, 0, r), CDYN_OK);
    ck_assert(fabs(r[0].phi) <= 1e-15 && fabs(r[1].phi) <= 1e-15);
  }
  /* R = 1 about the origin: row 2 is 002's C = (x.x - 1) / 2. */
  double q[7] = {0, 0, 0, 0, 0, 1, 1}, z[1][3] = {{0.7, -0.9, 0.4}};
  ck_assert_int_eq(eval_named("circle", q, z, NULL, 0, r), CDYN_OK);
  NEAR(r[1].phi, (0.49 + 0.81 + 0.16 - 1) / 2);
  NEAR(r[0].phi, 0.4);
  /* At the centre nothing is singular: Phi_2 = -R / 2, its gradient 0. */
  double c[1][3] = {{1, 2, 3}};
  ck_assert_int_eq(eval_named("circle", p, c, v, 0, r), CDYN_OK);
  NEAR(r[1].phi, -1.0);
  ck_assert(r[1].jac[0][0] == 0 && r[1].jac[0][1] == 0 && r[1].jac[0][2] == 0);
}
END_TEST

START_TEST(test_sphere_values)
{
  /* c = (0.5, -1, 2), R = 1.5, x = c + 2 (0.6, 0.8, 0): Phi = 0.5,
     J = (0.6, 0.8, 0); v = (0.8, -0.6, 1) is across e, so jdotv = |v|^2 / r = 1. */
  double p[4] = {0.5, -1, 2, 1.5}, x[1][3] = {{1.7, 0.6, 2}}, v[1][3] = {{0.8, -0.6, 1}};
  cdyn_row r[CDYN_MAX_ROWS];
  ck_assert_int_eq(eval_named("sphere", p, x, v, 0, r), CDYN_OK);
  NEAR(r[0].phi, 0.5);
  NEAR(r[0].jac[0][0], 0.6);
  NEAR(r[0].jac[0][1], 0.8);
  NEAR(r[0].jdotv, 1.0);
}
END_TEST

START_TEST(test_plane_values)
{
  /* p = (1, 1, 1), n = (0, 3, 4), |n| = 5; x - p = (6, 1, 2):
     Phi = (3 + 8) / 5 = 2.2, positive on the side n points to, and
     -2.2 with the normal reversed. */
  double p[6] = {1, 1, 1, 0, 3, 4}, x[1][3] = {{7, 2, 3}};
  cdyn_row r[CDYN_MAX_ROWS];
  ck_assert_int_eq(eval_named("plane", p, x, NULL, 0, r), CDYN_OK);
  NEAR(r[0].phi, 2.2);
  NEAR(r[0].jac[0][1], 0.6);
  NEAR(r[0].jac[0][2], 0.8);
  p[4] = -3;
  p[5] = -4;
  ck_assert_int_eq(eval_named("plane", p, x, NULL, 0, r), CDYN_OK);
  NEAR(r[0].phi, -2.2);
}
END_TEST

START_TEST(test_halfspace_values)
{
  /* The normal is not normalised: 003's corner constraint g1 = x - y is
     p = 0, n = (1, -1, 0), so at x = (0.7, 0.2, 0.3) Phi = 0.5 and J = n;
     with n = (0, 3, 4) and p = (1, 1, 1), x - p = (6, 1, 2): Phi = 11,
     five times the plane's signed distance. */
  double p[6] = {0, 0, 0, 1, -1, 0}, x[1][3] = {{0.7, 0.2, 0.3}};
  cdyn_row r[CDYN_MAX_ROWS];
  ck_assert_int_eq(eval_named("halfspace", p, x, NULL, 0, r), CDYN_OK);
  NEAR(r[0].phi, 0.5);
  NEAR(r[0].jac[0][0], 1.0);
  NEAR(r[0].jac[0][1], -1.0);
  NEAR(r[0].jac[0][2], 0.0);
  NEAR(r[0].jdotv, 0.0);
  double q[6] = {1, 1, 1, 0, 3, 4}, y[1][3] = {{7, 2, 3}};
  ck_assert_int_eq(eval_named("halfspace", q, y, NULL, 0, r), CDYN_OK);
  NEAR(r[0].phi, 11.0);
  NEAR(r[0].jac[0][2], 4.0);
}
END_TEST

START_TEST(test_hoop_values)
{
  /* Axis y, normal z at t = 0 (given with a part along the axis, which is
     dropped), R = 2, w = 0.5: at t = pi the hoop has turned by pi/2 and
     its normal is n = (1, 0, 0), n' = w (0, 0, -1).  At x = (0.3, 1, 2),
     v = (1, 2, 3): Phi_1 = 0.3, Phi_t = -1, phi_tt = 2 n'.v - w^2 Phi_1
     = -3 - 0.075; Phi_2 = (5.09 - 4) / 4, jdotv_2 = 14 / 2. */
  double p[11] = {0, 0, 0, 0, 3, 0, 0, 0.7, 1, 2, 0.5}, x[1][3] = {{0.3, 1, 2}}, v[1][3] = {{1, 2, 3}};
  cdyn_row r[CDYN_MAX_ROWS];
  ck_assert_int_eq(eval_named("hoop", p, x, v, pi, r), CDYN_OK);
  NEAR(r[0].phi, 0.3);
  NEAR(r[0].jac[0][0], 1.0);
  NEAR(r[0].jac[0][2], 0.0);
  NEAR(r[0].phi_t, -1.0);
  NEAR(r[0].jdotv, 0.0);
  NEAR(r[0].phi_tt, -3.075);
  NEAR(r[1].phi, 1.09 / 4);
  NEAR(r[1].jac[0][2], 1.0);
  NEAR(r[1].jdotv, 7.0);
  /* At w = 0 it is the circle of normal n0 (the part of n across a). */
  double c[7] = {0, 0, 0, 0, 0, 1, 2};
  cdyn_row rc[CDYN_MAX_ROWS];
  p[10] = 0;
  ck_assert_int_eq(eval_named("hoop", p, x, v, pi, r), CDYN_OK);
  ck_assert_int_eq(eval_named("circle", c, x, v, pi, rc), CDYN_OK);
  for (int k = 0; k < 2; k++) {
    NEAR(r[k].phi, rc[k].phi);
    NEAR(r[k].phi_t, rc[k].phi_t);
    NEAR(r[k].jdotv + r[k].phi_tt, rc[k].jdotv + rc[k].phi_tt);
  }
}
END_TEST

START_TEST(test_curve_values)
{
  /* f = 1 + 2 s + 3 s^2 + 0.5 sin(pi s), g = -1 + s^2 at s = x = 0.5:
     f = 3.25, f' = 5, f'' = 6 - 0.5 pi^2; g = -0.75, g' = 1, g'' = 2.
     x = (0.5, 4, 0), v = (2, 0.1, -0.3): Phi = (0.75, 0.75),
     jdotv = (-(6 - 0.5 pi^2) 4, -8). */
  double p[12] = {1, 2, 3, 0.5, pi, 0, -1, 0, 1, 0, 1, 0};
  double x[1][3] = {{0.5, 4, 0}}, v[1][3] = {{2, 0.1, -0.3}};
  cdyn_row r[CDYN_MAX_ROWS];
  ck_assert_int_eq(eval_named("curve", p, x, v, 0, r), CDYN_OK);
  NEAR(r[0].phi, 0.75);
  NEAR(r[1].phi, 0.75);
  NEAR(r[0].jac[0][0], -5.0);
  NEAR(r[0].jac[0][1], 1.0);
  NEAR(r[1].jac[0][0], -1.0);
  NEAR(r[1].jac[0][2], 1.0);
  NEAR(r[0].jdotv, -(6 - 0.5 * pi * pi) * 4);
  NEAR(r[1].jdotv, -8.0);
}
END_TEST

START_TEST(test_angle_values)
{
  /* Joint at (1, 1, 1); links along x (length 2) and z (length 3): a right
     angle, so with theta0 = pi/3 Phi = 0 - 1/2; g_u = z / 2, g_w = x / 3. */
  double p[1] = {pi / 3}, x[3][3] = {{3, 1, 1}, {1, 1, 1}, {1, 1, 4}};
  cdyn_row r[CDYN_MAX_ROWS];
  ck_assert_int_eq(eval_named("angle", p, x, NULL, 0, r), CDYN_OK);
  NEAR(r[0].phi, -0.5);
  NEAR(r[0].jac[0][2], 0.5);
  NEAR(r[0].jac[2][0], 1.0 / 3);
  NEAR(r[0].jac[1][0], -1.0 / 3);
  NEAR(r[0].jac[1][2], -0.5);
  /* The second link at 60 degrees in the x-y plane: Phi = 0 to rounding. */
  double y[3][3] = {{3, 1, 1}, {1, 1, 1}, {1 + 1.5 * 0.5, 1 + 1.5 * sqrt(3) / 2, 1}};
  ck_assert_int_eq(eval_named("angle", p, y, NULL, 0, r), CDYN_OK);
  ck_assert(fabs(r[0].phi) <= 1e-15);
}
END_TEST

START_TEST(test_parallel_values)
{
  /* Links along x and y: Phi = x x y = z.  Along x and -x: Phi = 0. */
  double x[4][3] = {{0.1, 0.2, 0.3}, {2.1, 0.2, 0.3}, {-1, 0.5, 0}, {-1, 3.5, 0}};
  cdyn_row r[CDYN_MAX_ROWS];
  ck_assert_int_eq(eval_named("parallel", NULL, x, NULL, 0, r), CDYN_OK);
  NEAR(r[0].phi, 0.0);
  NEAR(r[1].phi, 0.0);
  NEAR(r[2].phi, 1.0);
  double y[4][3] = {{0.1, 0.2, 0.3}, {2.1, 0.2, 0.3}, {-1, 0.5, 0}, {-4, 0.5, 0}};
  ck_assert_int_eq(eval_named("parallel", NULL, y, NULL, 0, r), CDYN_OK);
  for (int k = 0; k < 3; k++)
    NEAR(r[k].phi, 0.0);
}
END_TEST

/* The anchor follows pin.c's path: with the same path parameters, Phi of
   the anchor is the norm of the pin's rows minus L, at every time. */
START_TEST(test_anchor_values)
{
  double pin[11] = {0.4, -0.3, 0.9, 0.25, -0.6, 0.1, 0.7, 0.35, -0.45, 2.3, 0.65};
  double anc[12] = {0.87};
  memcpy(anc + 1, pin, sizeof pin);
  double x[1][3] = {{1.21, 0.38, -0.93}};
  for (double t = -1.3; t < 3; t += 0.37) {
    cdyn_row rp[CDYN_MAX_ROWS], ra[CDYN_MAX_ROWS];
    ck_assert_int_eq(eval_named("pin", pin, x, NULL, t, rp), CDYN_OK);
    ck_assert_int_eq(eval_named("anchor", anc, x, NULL, t, ra), CDYN_OK);
    double r = sqrt(rp[0].phi * rp[0].phi + rp[1].phi * rp[1].phi + rp[2].phi * rp[2].phi);
    NEAR(ra[0].phi, r - 0.87);
    /* Phi_t = e . (pin's phi_t), since the pin's phi_t is -p'. */
    NEAR(ra[0].phi_t, (rp[0].phi * rp[0].phi_t + rp[1].phi * rp[1].phi_t + rp[2].phi * rp[2].phi_t) / r);
  }
  /* A uniformly moving anchor, by hand: p(2) = (2, 2, 3), x = (4, 2, 3):
     Phi = 2 - 1, Phi_t = -e.u = -0.5. */
  double q[12] = {1, 1, 2, 3, 0.5, 0, 0, 0, 0, 0, 0, 0}, y[1][3] = {{4, 2, 3}};
  cdyn_row r[CDYN_MAX_ROWS];
  ck_assert_int_eq(eval_named("anchor", q, y, NULL, 2.0, r), CDYN_OK);
  NEAR(r[0].phi, 1.0);
  NEAR(r[0].phi_t, -0.5);
}
END_TEST

START_TEST(test_node_triangle_values)
{
  /* Unit right triangle in z = 0, (0,0,0), (1,0,0), (0,1,0): n = z.  The
     node at height 0.3 (anywhere above the plane, also outside the
     triangle) gives Phi = 0.3 - h; swapping two vertices flips n. */
  double h[1] = {0.05};
  double x[4][3] = {{0.2, 0.3, 0.3}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  cdyn_row r[CDYN_MAX_ROWS];
  ck_assert_int_eq(eval_named("node_triangle", h, x, NULL, 0, r), CDYN_OK);
  NEAR(r[0].phi, 0.3 - 0.05);
  NEAR(r[0].jac[0][2], 1.0);
  double y[4][3] = {{0.2, 0.3, 0.3}, {0, 0, 0}, {0, 1, 0}, {1, 0, 0}};
  ck_assert_int_eq(eval_named("node_triangle", h, y, NULL, 0, r), CDYN_OK);
  NEAR(r[0].phi, -0.3 - 0.05);
  double z[4][3] = {{-2.5, 4, 0.3}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  ck_assert_int_eq(eval_named("node_triangle", h, z, NULL, 0, r), CDYN_OK);
  NEAR(r[0].phi, 0.3 - 0.05);
  /* The Jacobian sums to zero over the particles (Phi is invariant under
     translation) for any triangle. */
  double w[4][3] = {{0.3, -0.2, 0.9}, {0.1, 0.4, -0.3}, {1.2, 0.1, 0.2}, {-0.2, 1.1, 0.5}};
  ck_assert_int_eq(eval_named("node_triangle", h, w, NULL, 0, r), CDYN_OK);
  for (int k = 0; k < 3; k++)
    ck_assert(fabs(r[0].jac[0][k] + r[0].jac[1][k] + r[0].jac[2][k] + r[0].jac[3][k]) <= 1e-14);
}
END_TEST

START_TEST(test_edge_edge_values)
{
  /* Edge a along x from the origin, edge b along y at (0.5, ., 0.7):
     n = x x 2y = 2z, Phi = 0.7 - h; reversing edge b flips n. */
  double h[1] = {0.1};
  double x[4][3] = {{0, 0, 0}, {1, 0, 0}, {0.5, -1, 0.7}, {0.5, 1, 0.7}};
  cdyn_row r[CDYN_MAX_ROWS];
  ck_assert_int_eq(eval_named("edge_edge", h, x, NULL, 0, r), CDYN_OK);
  NEAR(r[0].phi, 0.7 - 0.1);
  double y[4][3] = {{0, 0, 0}, {1, 0, 0}, {0.5, 1, 0.7}, {0.5, -1, 0.7}};
  ck_assert_int_eq(eval_named("edge_edge", h, y, NULL, 0, r), CDYN_OK);
  NEAR(r[0].phi, -0.7 - 0.1);
  /* Skew edges far from their closest points: still the lines' distance. */
  double z[4][3] = {{5, 0, 0}, {6, 0, 0}, {-3, 7, 0.7}, {-3, 8, 0.7}};
  ck_assert_int_eq(eval_named("edge_edge", h, z, NULL, 0, r), CDYN_OK);
  NEAR(r[0].phi, 0.7 - 0.1);
}
END_TEST

/* ---- degeneracies, non-finite values, invalid parameters ------------------------- */

/* A degenerate state through the system: values and error report
   CDYN_EDEGENERATE with a message, rather than NaN. */
static void expect_degenerate(const char *name, const double *params, double x[][3])
{
  const cdyn_constraint_type *type = NULL;
  ck_assert_int_eq(cdyn_constraint_type_find(name, &type), CDYN_OK);
  cdyn_system *sys = NULL;
  size_t idx[CDYN_MAX_PARTICLES] = {0, 1, 2, 3};
  ck_assert_int_eq(cdyn_system_new(&sys, type->nparticles), CDYN_OK);
  for (unsigned p = 0; p < type->nparticles; p++)
    ck_assert_int_eq(cdyn_system_set_position(sys, p, x[p]), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_constraint_named(sys, name, idx, params, NULL), CDYN_OK);
  double phi[CDYN_MAX_ROWS] = {0}, e = 0;
  cdyn_error_clear();
  ck_assert_msg(cdyn_system_constraint_values(sys, phi) == CDYN_EDEGENERATE, "%s: not reported degenerate",
                name);
  ck_assert_str_ne(cdyn_errmsg(), "");
  ck_assert_int_eq(cdyn_system_constraint_error(sys, &e), CDYN_EDEGENERATE);
  /* A stepper's first step meets the same state and fails cleanly. */
  cdyn_stepper *st = NULL;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "implicit"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 1e-3), CDYN_EDEGENERATE);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}

START_TEST(test_degenerate_states)
{
  double sph[4] = {0.5, -1, 2, 1.5}, c[1][3] = {{0.5, -1, 2}};
  expect_degenerate("sphere", sph, c);
  double anc[12] = {1, 1, 2, 3, 0.5, 0, 0, 0, 0, 0, 0, 0}, at[1][3] = {{1, 2, 3}};
  expect_degenerate("anchor", anc, at); /* at t = 0 the anchor is at p0 */
  double th[1] = {1.0};
  double ang[3][3] = {{0.3, 0.2, 0.1}, {0.3, 0.2, 0.1}, {1, 1, 1}}; /* |u| = 0 */
  expect_degenerate("angle", th, ang);
  double ang2[3][3] = {{1, 1, 1}, {0.3, 0.2, 0.1}, {0.3, 0.2, 0.1}}; /* |w| = 0 */
  expect_degenerate("angle", th, ang2);
  double par[4][3] = {{0, 0, 0}, {1, 0, 0}, {2, 2, 2}, {2, 2, 2}};
  expect_degenerate("parallel", NULL, par);
  double h[1] = {0.1};
  /* Collinear vertices, exactly (N = 0) and to rounding (x3 = 3 x2 / 2 in
     floating point, so N is rounding noise but not always 0). */
  double tri[4][3] = {{0, 0, 1}, {0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  expect_degenerate("node_triangle", h, tri);
  double tri2[4][3] = {{0, 0, 1}, {0, 0, 0}, {0.1, 0.7, 0.3}, {0.1 * 1.5, 0.7 * 1.5, 0.3 * 1.5}};
  expect_degenerate("node_triangle", h, tri2);
  double tri3[4][3] = {{0, 0, 1}, {0, 0, 0}, {1, 0, 0}, {1, 0, 0}}; /* two vertices coincide */
  expect_degenerate("node_triangle", h, tri3);
  double ee[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0.5}, {3, 1, 0.5}};
  expect_degenerate("edge_edge", h, ee);
  double ee2[4][3] = {{0, 0, 0}, {0.1, 0.7, 0.3}, {1, 1, 1}, {1 + 0.3, 1 + 2.1, 1 + 0.9}};
  expect_degenerate("edge_edge", h, ee2);
}
END_TEST

/* Positions so large that a squared length overflows: CDYN_ENONFINITE,
   not a NaN in the rows, from the type itself. */
START_TEST(test_nonfinite_intermediates)
{
  cdyn_row r[CDYN_MAX_ROWS];
  double big = 1e200;
  double sph[4] = {0, 0, 0, 1}, x1[1][3] = {{big, 0, 0}};
  ck_assert_int_eq(eval_named("sphere", sph, x1, NULL, 0, r), CDYN_ENONFINITE);
  double cir[7] = {0, 0, 0, 0, 0, 1, 1};
  ck_assert_int_eq(eval_named("circle", cir, x1, NULL, 0, r), CDYN_ENONFINITE);
  double cur[12] = {0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0};
  ck_assert_int_eq(eval_named("curve", cur, x1, NULL, 0, r), CDYN_ENONFINITE);
  double anc[12] = {1};
  ck_assert_int_eq(eval_named("anchor", anc, x1, NULL, 0, r), CDYN_ENONFINITE);
  double th[1] = {1.0}, x3[3][3] = {{big, 0, 0}, {0, 0, 0}, {0, 1, 0}};
  ck_assert_int_eq(eval_named("angle", th, x3, NULL, 0, r), CDYN_ENONFINITE);
  double x4[4][3] = {{0, 0, 1}, {0, 0, 0}, {big, 0, 0}, {0, 1, 0}};
  ck_assert_int_eq(eval_named("parallel", NULL, x4, NULL, 0, r), CDYN_ENONFINITE);
  double h[1] = {0};
  ck_assert_int_eq(eval_named("node_triangle", h, x4, NULL, 0, r), CDYN_ENONFINITE);
  ck_assert_int_eq(eval_named("edge_edge", h, x4, NULL, 0, r), CDYN_ENONFINITE);
  double pl[6] = {0, 0, 0, 1, 1, 0}, xp[1][3] = {{1.5e308, 1.5e308, 0}};
  ck_assert_int_eq(eval_named("plane", pl, xp, NULL, 0, r), CDYN_ENONFINITE);
}
END_TEST

/* Invalid parameters are rejected through the public entry point, with a
   message, and nothing is added. */
static void expect_rejected(const char *name, const double *params)
{
  cdyn_system *sys = NULL;
  size_t idx[CDYN_MAX_PARTICLES] = {0, 1, 2, 3};
  ck_assert_int_eq(cdyn_system_new(&sys, 4), CDYN_OK);
  cdyn_error_clear();
  int rc = cdyn_system_add_constraint_named(sys, name, idx, params, NULL);
  ck_assert_msg(rc == CDYN_EINVAL, "%s: invalid parameters accepted (%d)", name, rc);
  ck_assert_str_ne(cdyn_errmsg(), "");
  ck_assert_uint_eq(cdyn_system_constraint_count(sys), 0);
  ck_assert_uint_eq(cdyn_system_row_count(sys), 0);
  cdyn_system_free(sys);
}

START_TEST(test_invalid_parameters)
{
  expect_rejected("circle", (double[]){0, 0, 0, 0, 0, 0, 1}); /* zero normal */
  expect_rejected("circle", (double[]){0, 0, 0, 0, 0, 1, 0}); /* R = 0 */
  expect_rejected("circle", (double[]){0, 0, 0, 0, 0, 1, -1});
  expect_rejected("circle", (double[]){0, 0, 0, 0, NAN, 1, 1});
  expect_rejected("sphere", (double[]){0, 0, 0, 0});
  expect_rejected("sphere", (double[]){0, 0, 0, -2});
  expect_rejected("plane", (double[]){1, 2, 3, 0, 0, 0});
  expect_rejected("plane", (double[]){1, 2, 3, INFINITY, 0, 0});
  expect_rejected("halfspace", (double[]){1, 2, 3, 0, 0, 0});
  expect_rejected("halfspace", (double[]){1, 2, 3, 0, NAN, 1});
  expect_rejected("hoop", (double[]){0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1});   /* no axis */
  expect_rejected("hoop", (double[]){0, 0, 0, 0, 1, 0, 0, 2, 0, 1, 1});   /* normal along the axis */
  expect_rejected("hoop", (double[]){0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1});   /* R = 0 */
  expect_rejected("hoop", (double[]){0, 0, 0, 0, 1, 0, 0, 0, 1, 1, NAN}); /* spin rate */
  expect_rejected("curve", (double[]){0, 0, 0, 0, NAN, 0, 0, 0, 0, 0, 0, 0});
  expect_rejected("angle", (double[]){0});
  expect_rejected("angle", (double[]){pi});
  expect_rejected("angle", (double[]){-0.1});
  expect_rejected("angle", (double[]){4});
  expect_rejected("anchor", (double[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0});
  expect_rejected("anchor", (double[]){-1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0});
  expect_rejected("node_triangle", (double[]){-0.01});
  expect_rejected("edge_edge", (double[]){-0.01});
  /* The edges of the valid ranges are accepted: h = 0, a tiny R, a huge
     normal, theta0 just inside (0, pi), and no parameters at all for
     "parallel" (params may be NULL). */
  cdyn_system *sys = NULL;
  size_t idx[CDYN_MAX_PARTICLES] = {0, 1, 2, 3};
  ck_assert_int_eq(cdyn_system_new(&sys, 4), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_constraint_named(sys, "node_triangle", idx, (double[]){0}, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_constraint_named(sys, "edge_edge", idx, (double[]){0}, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_constraint_named(sys, "circle", idx, (double[]){0, 0, 0, 1e300, 1e300, 0, 1e-300}, NULL),
                   CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_constraint_named(sys, "angle", idx, (double[]){1e-9}, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_constraint_named(sys, "angle", idx, (double[]){pi - 1e-9}, NULL), CDYN_OK);
  size_t id = 99;
  ck_assert_int_eq(cdyn_system_add_constraint_named(sys, "parallel", idx, NULL, &id), CDYN_OK);
  ck_assert_uint_eq(id, 5);
  ck_assert_uint_eq(cdyn_system_row_count(sys), 1 + 1 + 2 + 1 + 1 + 3);
  const cdyn_constraint_type *type = NULL;
  size_t parts[CDYN_MAX_PARTICLES];
  ck_assert_int_eq(cdyn_system_get_constraint(sys, id, &type, parts, NULL), CDYN_OK);
  ck_assert_ptr_eq(type, cdyn_constraint_parallel);
  ck_assert_uint_eq(parts[3], 3);
  cdyn_system_free(sys);
}
END_TEST

/* ---- the new types in motion ------------------------------------------------------ */

/*
 * A small system holding one constraint of a type, its particles 0 .. np-1
 * in the type's order, under gravity (0, -9.81, 0), started on the
 * constraint with velocities that keep it (Phi = 0 and Phi-dot = 0), and
 * optionally a spring between two of the particles.  Gravity alone moves
 * a set of free particles as one body; the spring pulls them out of the
 * rigid motion they start in, so that the constraint has to act (for two
 * links started parallel and turning together, the only consistent start,
 * free flight would even keep them parallel with no force at all).
 */
typedef struct {
  const char *type;
  double params[CDYN_MAX_PARAMS];
  double mass[CDYN_MAX_PARTICLES];
  double x[CDYN_MAX_PARTICLES][3], v[CDYN_MAX_PARTICLES][3];
  int spring;              /* add a spring between particles si and sj */
  size_t si, sj;
  double sk, srest;
} dyn_case;

static void unit3(double *a)
{
  double r = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  for (int k = 0; k < 3; k++)
    a[k] /= r;
}

static void cross3(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Two unit vectors t1, t2 with (n, t1, t2) orthonormal. */
static void across(const double *n, double *t1, double *t2)
{
  double nh[3] = {n[0], n[1], n[2]}, a[3] = {0.37, -0.81, 0.45};
  unit3(nh);
  double an = a[0] * nh[0] + a[1] * nh[1] + a[2] * nh[2];
  for (int k = 0; k < 3; k++)
    t1[k] = a[k] - an * nh[k];
  unit3(t1);
  cross3(nh, t1, t2);
}

/* Velocities of a rigid motion: v_p = V + w x (x_p - o). */
static void rigid(dyn_case *c, unsigned np, const double *V, const double *w, const double *o)
{
  for (unsigned p = 0; p < np; p++) {
    double r[3] = {c->x[p][0] - o[0], c->x[p][1] - o[1], c->x[p][2] - o[2]}, wr[3];
    cross3(w, r, wr);
    for (int k = 0; k < 3; k++)
      c->v[p][k] = V[k] + wr[k];
  }
}

static void profile(const double *c, double s, double *f, double *df)
{
  *f = c[0] + c[1] * s + c[2] * s * s + c[3] * sin(c[4] * s + c[5]);
  *df = c[1] + 2 * c[2] * s + c[3] * c[4] * cos(c[4] * s + c[5]);
}

static dyn_case make_case(const char *type)
{
  dyn_case c;
  memset(&c, 0, sizeof c);
  c.type = type;
  for (int p = 0; p < CDYN_MAX_PARTICLES; p++)
    c.mass[p] = 1.0 + 0.3 * p;
  const double V[3] = {0.2, 0.5, -0.1}, w[3] = {0.7, -0.4, 1.1};
  double t1[3], t2[3];
  if (!strcmp(type, "circle")) {
    double p[7] = {0.2, -0.1, 0.3, 0.3, 1.0, 0.4, 0.8};
    memcpy(c.params, p, sizeof p);
    across(p + 3, t1, t2);
    for (int k = 0; k < 3; k++) {
      c.x[0][k] = p[k] + p[6] * t1[k];
      c.v[0][k] = 1.5 * t2[k];
    }
  } else if (!strcmp(type, "hoop")) {
    /* Axis a, normal t1 across it; the hoop spans a^ and t2 at t = 0. */
    double p[11] = {0.2, -0.1, 0.3, 0.3, 1.0, 0.4, 0, 0, 0, 0.9, 1.3}, ah[3] = {0.3, 1.0, 0.4}, wx[3];
    across(ah, t1, t2);
    unit3(ah);
    memcpy(p + 6, t1, sizeof t1);
    memcpy(c.params, p, sizeof p);
    const double b = 0.7, R = p[9], u = 1.1;
    double d[3];
    for (int k = 0; k < 3; k++)
      d[k] = R * (cos(b) * ah[k] + sin(b) * t2[k]);
    cross3(ah, d, wx);
    for (int k = 0; k < 3; k++) {
      c.x[0][k] = p[k] + d[k];
      c.v[0][k] = u * (-sin(b) * ah[k] + cos(b) * t2[k]) + p[10] * wx[k];
    }
  } else if (!strcmp(type, "sphere")) {
    double p[4] = {0.1, 0.5, -0.2, 1.1}, e[3] = {0.6, -0.7, 0.4};
    memcpy(c.params, p, sizeof p);
    across(e, t1, t2);
    unit3(e);
    for (int k = 0; k < 3; k++) {
      c.x[0][k] = p[k] + p[3] * e[k];
      c.v[0][k] = 1.3 * t1[k] + 0.4 * t2[k];
    }
  } else if (!strcmp(type, "plane")) {
    double p[6] = {0.3, -0.2, 0.1, 0.2, 1.0, -0.3};
    memcpy(c.params, p, sizeof p);
    across(p + 3, t1, t2);
    for (int k = 0; k < 3; k++) {
      c.x[0][k] = p[k] + 0.4 * t1[k];
      c.v[0][k] = 0.9 * t2[k] - 0.3 * t1[k];
    }
  } else if (!strcmp(type, "curve")) {
    double p[12] = {0.1, 0.3, -0.4, 0.25, 2.1, 0.3, -0.2, 0.1, 0.2, 0.3, 1.7, -0.5};
    memcpy(c.params, p, sizeof p);
    double s = 0.35, vx = 0.8, f, df, g, dg;
    profile(p, s, &f, &df);
    profile(p + 6, s, &g, &dg);
    double x[3] = {s, f, g}, v[3] = {vx, df * vx, dg * vx};
    memcpy(c.x[0], x, sizeof x);
    memcpy(c.v[0], v, sizeof v);
  } else if (!strcmp(type, "angle")) {
    double th = 1.1, j[3] = {0.1, 0.2, -0.1}, u[3] = {1, 0.2, 0.3};
    c.params[0] = th;
    across(u, t1, t2);
    unit3(u);
    for (int k = 0; k < 3; k++) {
      c.x[0][k] = j[k] + 0.9 * u[k];
      c.x[1][k] = j[k];
      c.x[2][k] = j[k] + 1.2 * (cos(th) * u[k] + sin(th) * t1[k]);
    }
    rigid(&c, 3, V, w, j);
  } else if (!strcmp(type, "parallel")) {
    double g[3] = {0.3, 0.8, -0.5}, b0[3] = {0.4, -0.6, 0.5}, o[3] = {0.3, 0.1, 0.1};
    unit3(g);
    for (int k = 0; k < 3; k++) {
      c.x[1][k] = g[k];
      c.x[2][k] = b0[k];
      c.x[3][k] = b0[k] + 0.8 * g[k];
    }
    rigid(&c, 4, V, w, o);
    c.spring = 1;
    c.si = 1;
    c.sj = 3;
    c.sk = 40;
    c.srest = 0.3;
  } else if (!strcmp(type, "anchor")) {
    double p[12] = {0.9, 0.2, 0.4, -0.3, 0.3, -0.1, 0.2, 0.2, 0.1, -0.15, 2.5, 0.4};
    double e[3] = {0.5, -0.8, 0.3};
    memcpy(c.params, p, sizeof p);
    across(e, t1, t2);
    unit3(e);
    for (int k = 0; k < 3; k++) {
      double pv = p[4 + k] + p[7 + k] * p[10] * cos(p[11]); /* p'(0) */
      c.x[0][k] = p[1 + k] + p[0] * e[k];
      c.v[0][k] = pv + 1.1 * t1[k];
    }
  } else if (!strcmp(type, "node_triangle")) {
    double e1[3] = {1.0, 0.1, 0.2}, e2[3] = {0.2, 0.9, -0.1}, n[3], o[3] = {0.4, 0.3, 0.05};
    c.params[0] = 0.05;
    cross3(e1, e2, n);
    unit3(n);
    for (int k = 0; k < 3; k++) {
      c.x[2][k] = e1[k];
      c.x[3][k] = e2[k];
      c.x[0][k] = 0.3 * e1[k] + 0.25 * e2[k] + 0.05 * n[k];
    }
    rigid(&c, 4, V, w, o);
    c.spring = 1;
    c.si = 0;
    c.sj = 2;
    c.sk = 40;
    c.srest = 0.3;
  } else if (!strcmp(type, "edge_edge")) {
    double ea[3] = {1, 0.2, -0.1}, eb[3] = {-0.2, 0.9, 0.3}, n[3], o[3] = {0.5, 0.1, 0};
    c.params[0] = 0.05;
    cross3(ea, eb, n);
    unit3(n);
    for (int k = 0; k < 3; k++) {
      c.x[1][k] = ea[k];
      c.x[2][k] = 0.5 * ea[k] - 0.4 * eb[k] + 0.05 * n[k];
      c.x[3][k] = c.x[2][k] + eb[k];
    }
    rigid(&c, 4, V, w, o);
    c.spring = 1;
    c.si = 0;
    c.sj = 3;
    c.sk = 40;
    c.srest = 0.3;
  } else {
    ck_abort_msg("no dynamic case for '%s'", type);
  }
  return c;
}

/* Rows of the case's type at positions q, velocities v (3 np each) and t. */
static void eval_flat(const cdyn_constraint_type *type, const double *params, const double *q,
                      const double *v, double t, cdyn_row *rows)
{
  const double *xp[CDYN_MAX_PARTICLES] = {NULL}, *vp[CDYN_MAX_PARTICLES] = {NULL};
  for (unsigned p = 0; p < type->nparticles; p++) {
    xp[p] = q + 3 * p;
    vp[p] = v + 3 * p;
  }
  memset(rows, 0, CDYN_MAX_ROWS * sizeof *rows);
  int rc = type->eval(params, xp, vp, t, rows);
  ck_assert_msg(rc == CDYN_OK, "'%s': eval failed along the motion: %s", type->name, cdyn_errmsg());
}

/* Euclidean norm over the rows of S = jdotv + phi_tt, or of phi. */
static double norm_s(const cdyn_row *r, unsigned m)
{
  double s = 0;
  for (unsigned k = 0; k < m; k++)
    s += (r[k].jdotv + r[k].phi_tt) * (r[k].jdotv + r[k].phi_tt);
  return sqrt(s);
}

static double norm_phi(const cdyn_row *r, unsigned m)
{
  double s = 0;
  for (unsigned k = 0; k < m; k++)
    s += r[k].phi * r[k].phi;
  return sqrt(s);
}

typedef struct {
  double emax;    /* max over steps of |Phi| (Euclidean over the rows) */
  double smax;    /* max over steps of |S(q_n, v_n, t_n)| */
  double dmax;    /* max over steps of |S_{n+1} - S_n| / h */
  double defect;  /* max over steps of |Phi_{n+1} - h^2 S(q_n, v_{n+1}, t_n) / 2| */
  double splus;   /* max over steps of |S(q_n, v_{n+1}, t_n)| */
} dyn_out;

static void run_case(const dyn_case *c, const char *scheme, double h, long nsteps, dyn_out *o)
{
  const cdyn_constraint_type *type = NULL;
  ck_assert_int_eq(cdyn_constraint_type_find(c->type, &type), CDYN_OK);
  const unsigned np = type->nparticles, m = type->rows;
  cdyn_system *sys = NULL;
  ck_assert_int_eq(cdyn_system_new(&sys, np), CDYN_OK);
  const double g[3] = {0, -9.81, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  size_t idx[CDYN_MAX_PARTICLES] = {0, 1, 2, 3};
  for (unsigned p = 0; p < np; p++) {
    ck_assert_int_eq(cdyn_system_set_mass(sys, p, c->mass[p]), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, p, c->x[p]), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, p, c->v[p]), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_constraint_named(sys, c->type, idx, c->params, NULL), CDYN_OK);
  if (c->spring)
    ck_assert_int_eq(cdyn_system_add_spring(sys, c->si, c->sj, c->sk, 0, c->srest, NULL), CDYN_OK);
  cdyn_stepper *st = NULL;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);

  const double *q = cdyn_system_positions(sys), *v = cdyn_system_velocities(sys);
  double q0[3 * CDYN_MAX_PARTICLES], s_prev[CDYN_MAX_ROWS];
  cdyn_row r[CDYN_MAX_ROWS];
  /* The case starts on the constraint and moving along it: Phi and
     Phi-dot = J v + Phi_t vanish to rounding of order-one numbers. */
  eval_flat(type, c->params, q, v, 0, r);
  for (unsigned k = 0; k < m; k++) {
    double pd = r[k].phi_t;
    for (unsigned p = 0; p < np; p++)
      for (int d = 0; d < 3; d++)
        pd += r[k].jac[p][d] * c->v[p][d];
    ck_assert_msg(fabs(r[k].phi) <= 1e-14 && fabs(pd) <= 1e-14,
                  "'%s' row %u: the start is not consistent: Phi %.3g, Phi-dot %.3g", c->type, k, r[k].phi, pd);
  }
  memset(o, 0, sizeof *o);
  for (long n = 0; n < nsteps; n++) {
    double t = cdyn_system_time(sys);
    memcpy(q0, q, 3 * np * sizeof(double));
    eval_flat(type, c->params, q, v, t, r);
    o->smax = fmax(o->smax, norm_s(r, m));
    double ds = 0;
    for (unsigned k = 0; k < m; k++) {
      double sk = r[k].jdotv + r[k].phi_tt;
      if (n)
        ds += (sk - s_prev[k]) * (sk - s_prev[k]);
      s_prev[k] = sk;
    }
    o->dmax = fmax(o->dmax, sqrt(ds) / h);
    int rc = cdyn_stepper_step(st, h);
    ck_assert_msg(rc == CDYN_OK, "'%s' with %s: step %ld failed: %s", c->type, scheme, n, cdyn_errmsg());
    cdyn_row after[CDYN_MAX_ROWS], plus[CDYN_MAX_ROWS];
    eval_flat(type, c->params, q, v, t + h, after);
    eval_flat(type, c->params, q0, v, t, plus);
    o->emax = fmax(o->emax, norm_phi(after, m));
    o->splus = fmax(o->splus, norm_s(plus, m));
    double dd = 0;
    for (unsigned k = 0; k < m; k++) {
      double e = after[k].phi - 0.5 * h * h * (plus[k].jdotv + plus[k].phi_tt);
      dd += e * e;
    }
    o->defect = fmax(o->defect, sqrt(dd));
  }
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}

static const char *const moving_types[] = {"circle", "sphere", "plane", "curve", "angle",
                                           "parallel", "anchor", "node_triangle", "edge_edge", "hoop"};

/*
 * The implicit scheme (001 eq 14) makes the linearisation of
 * Phi(q + h v+, t + h) at (q_n, t_n) vanish, so after the step what is
 * left of Phi is the Taylor remainder
 *   Phi_{n+1} = h^2 / 2 S(q_n, v_{n+1}, t_n) + h^3 / 6 Phi''' + ...
 * with S = (Jv)_q v + 2 Phi_qt v + Phi_tt, the type's jdotv + phi_tt.  So
 * the rows a type reports predict, with their signs, the error the scheme
 * leaves.  The next term is relatively h |Phi'''| / (3 |S|): with speeds
 * of about 2 over lengths of about 1 (rates below 10 / s) that is below
 * 1e-2 at h = 1e-3, so the test asks for agreement within 5 % of the
 * largest h^2 |S| / 2 of the run, plus 1e-13 for rounding (the values
 * are of order one and the residual is about 1e-6).  A wrong sign of
 * jdotv or phi_tt gives a discrepancy of 100 % or more.
 */
START_TEST(test_implicit_remainder)
{
  const char *name = moving_types[_i];
  const double h = 1e-3;
  dyn_case c = make_case(name);
  dyn_out o;
  run_case(&c, "implicit", h, 200, &o);
  double bound = 0.05 * 0.5 * h * h * o.splus + 1e-13;
  if (getenv("CDYN_TEST_VERBOSE"))
    printf("implicit  %-14s max|Phi| %.3e  defect %.3e  h^2 max|S+|/2 %.3e  ratio %.4f\n", name, o.emax,
           o.defect, 0.5 * h * h * o.splus, o.defect / (0.5 * h * h * o.splus));
  ck_assert_msg(o.defect <= bound,
                "'%s' with implicit: |Phi_{n+1} - h^2 S / 2| reaches %.3e; allowed %.3e (max |S| %.3g, max |Phi| %.3e)",
                name, o.defect, bound, o.splus, o.emax);
}
END_TEST

/*
 * Baumgarte (alpha = beta = 2) over symplectic Euler.  From a consistent
 * start, one step v+ = v + h a, q+ = q + h v+ with J a = -S - 2 alpha
 * Phi-dot - beta^2 Phi gives, expanding Phi and Phi-dot at (q_n, t_n),
 *   Phi_{n+1}     = Phi_n + h Phi-dot_{n+1} - h^2 S / 2 + O(h^3)
 *   Phi-dot_{n+1} = (1 - 2 alpha h) Phi-dot_n - h beta^2 Phi_n + O(h^2)
 * where the O(h^2) is h times the change of S over the step (the velocity
 * changes by h a between where S is used and where it acts).  These are
 * the feedback equation Phi'' + 2 alpha Phi' + beta^2 Phi = 0 driven by a
 * position defect of rate h S / 2 and a velocity defect of rate about
 * h dS/dt.  The feedback is critically damped (alpha = beta), so over
 * T = 0.2 s a position defect passes with gain at most 1 and a velocity
 * defect with gain at most T; hence, to leading order,
 *   max |Phi| <= h T max|S| / 2 + h T^2 max|dS/dt| / 2,
 * first order in h.  The test allows twice that (for the velocity
 * defect, which is h times the change of S at fixed position, and the
 * O(h^2) terms), plus 1e-12 for rounding, and checks the first order
 * itself: halving h halves the error, within 20 %.  A sign error in
 * jdotv or phi_tt instead drives Phi'' = 2 S, an error of order S T^2,
 * about T / h = 200 times the bound.
 */
START_TEST(test_baumgarte_first_order)
{
  const char *name = moving_types[_i];
  const double h = 1e-3, T = 0.2;
  dyn_case c = make_case(name);
  dyn_out o, o2;
  run_case(&c, "baumgarte", h, 200, &o);
  double bound = h * T * (o.smax + T * o.dmax) + 1e-12;
  ck_assert_msg(o.emax <= bound, "'%s' with baumgarte: max |Phi| %.3e above %.3e (max |S| %.3g, |dS/dt| %.3g)",
                name, o.emax, bound, o.smax, o.dmax);
  /* Every case but the plane's (Phi linear, S = 0) moves so that S is of
     order one, or the bound would test nothing. */
  if (strcmp(name, "plane")) {
    ck_assert_msg(o.smax >= 0.1, "'%s': max |S| = %.3g, the case does not exercise S", name, o.smax);
    run_case(&c, "baumgarte", h / 2, 400, &o2);
    double ratio = o.emax / o2.emax;
    if (getenv("CDYN_TEST_VERBOSE"))
      printf("baumgarte %-14s max|Phi| %.3e  bound %.3e (max|S| %.3g, max|dS/dt| %.3g)  e/bound %.3f  "
             "e(h)/e(h/2) %.3f\n", name, o.emax, bound, o.smax, o.dmax, o.emax / bound, ratio);
    ck_assert_msg(ratio >= 1.6 && ratio <= 2.4, "'%s' with baumgarte: error %.3e at h, %.3e at h/2 (ratio %.3f)",
                  name, o.emax, o2.emax, ratio);
  }
}
END_TEST

static Suite *constraints_suite(void)
{
  Suite *s = suite_create("constraints");
  TCase *tc = tcase_create("new types");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_circle_values);
  tcase_add_test(tc, test_sphere_values);
  tcase_add_test(tc, test_plane_values);
  tcase_add_test(tc, test_halfspace_values);
  tcase_add_test(tc, test_hoop_values);
  tcase_add_test(tc, test_curve_values);
  tcase_add_test(tc, test_angle_values);
  tcase_add_test(tc, test_parallel_values);
  tcase_add_test(tc, test_anchor_values);
  tcase_add_test(tc, test_node_triangle_values);
  tcase_add_test(tc, test_edge_edge_values);
  tcase_add_test(tc, test_degenerate_states);
  tcase_add_test(tc, test_nonfinite_intermediates);
  tcase_add_test(tc, test_invalid_parameters);
  suite_add_tcase(s, tc);

  tc = tcase_create("motion");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_implicit_remainder, 0, sizeof moving_types / sizeof moving_types[0]);
  tcase_add_loop_test(tc, test_baumgarte_first_order, 0, sizeof moving_types / sizeof moving_types[0]);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return tu_run(constraints_suite());
}
