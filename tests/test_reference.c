/*
 * tests/test_reference.c: checks of the reference models (reference/) and
 * of the library against the dense KKT reference.
 *
 * N-link pendulum (reference/nlink.c), against numbers obtained
 * independently of it:
 * - Energy E = T + V must be conserved (2-link from horizontal, 5-link with
 *   irregular masses and lengths), and with g = 0 the angular momentum about
 *   the pivot as well.
 * - A single pendulum must have the small-angle period 2 pi sqrt(L/g) and
 *   the exact finite-amplitude period 4 sqrt(L/g) K(sin(theta0/2)).
 * - Node positions must keep every link at its length and respect the pivot.
 * - The angular accelerations of the double pendulum must match the
 *   textbook closed form, and the node accelerations of a 4-link chain must
 *   match a Cartesian Lagrange-multiplier formulation solved here.
 * - Every invalid argument must be refused with CDYN_EINVAL and a message.
 *
 * Bead on a circle (reference/bead.c): the integrated ODE against the
 * closed form in elliptic functions (four amplitudes, one near the top),
 * quarter-period facts of the closed form, its small-angle limit, energy,
 * and agreement with a one-link nlink pendulum.
 *
 * Spherical pendulum (reference/spherical.c): energy and vertical angular
 * momentum, the conical pendulum, the planar case against the bead and
 * the closed form, accelerations against a Cartesian rod, the polar
 * period against its elliptic-integral formula, and refusal of motions
 * that come too close to a pole.
 *
 * Dense KKT reference (reference/kkt.c) and cdyn_system_forces: a single
 * pendulum in closed form (tension and acceleration, with Baumgarte's
 * terms), the library's A = J W J^T path (one explicit-Euler Baumgarte
 * step, both linear solvers) on random chains of 2, 5 and 10 links, and
 * dependent rows solved in the minimum-norm sense by both.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <float.h>

#include <check.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_poly.h>
#include <gsl/gsl_sf_ellint.h>

#include "bead.h"
#include "chain_be.h"
#include "hoop.h"
#include "cdyn/cdyn.h"
#include "kkt.h"
#include "nlink.h"
#include "spherical.h"
#include "testutil.h"

static const double g_earth = 9.81;

/* Build a pendulum or fail the test with the library's message. */
static cdyn_ref_nlink *make(const cdyn_ref_nlink_params *p)
{
  cdyn_ref_nlink *r = NULL;
  const int s = cdyn_ref_nlink_new(&r, p);
  ck_assert_msg(s == CDYN_OK, "cdyn_ref_nlink_new: %d (%s)", s,
                cdyn_errmsg());
  ck_assert_ptr_nonnull(r);
  return r;
}

static void advance_ok(cdyn_ref_nlink *r, double t)
{
  const int s = cdyn_ref_nlink_advance(r, t);
  ck_assert_msg(s == CDYN_OK, "advance to %g: %d (%s)", t, s, cdyn_errmsg());
}

/*
 * An energy scale that does not depend on where y = 0 happens to be: the
 * initial kinetic energy plus the potential energy released when the chain
 * falls from the pivot height to hanging straight down.  Dividing by E(0)
 * instead would be meaningless, because E(0) is exactly 0 for a chain
 * released horizontally at the height of a pivot at the origin.
 */
static double energy_scale(const cdyn_ref_nlink_params *p, double kin0)
{
  double depth = 0, s = 0;
  for (size_t k = 0; k < p->n; k++) {
    depth += p->length[k];
    s += p->mass[k] * p->g * depth;
  }
  return kin0 + s;
}

/*
 * Largest |E(t) - E(0)| / scale over samples every 0.1 s up to 10 s.
 */
static double max_energy_error(const cdyn_ref_nlink_params *p)
{
  cdyn_ref_nlink *r = make(p);
  double e0, e, vxy[2 * 8];
  ck_assert_uint_le(p->n, 8);
  ck_assert_int_eq(cdyn_ref_nlink_energy(r, &e0), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_nlink_velocities(r, vxy), CDYN_OK);
  double kin0 = 0;
  for (size_t k = 0; k < p->n; k++)
    kin0 += 0.5 * p->mass[k] *
            (vxy[2 * k] * vxy[2 * k] + vxy[2 * k + 1] * vxy[2 * k + 1]);
  const double scale = energy_scale(p, kin0);

  double worst = 0;
  for (int j = 1; j <= 100; j++) {
    advance_ok(r, 0.1 * j);
    ck_assert_int_eq(cdyn_ref_nlink_energy(r, &e), CDYN_OK);
    const double err = fabs(e - e0) / scale;
    if (err > worst)
      worst = err;
  }
  ck_assert_double_eq_tol(cdyn_ref_nlink_time(r), 10.0, 1e-15);
  cdyn_ref_nlink_free(r);
  return worst;
}

START_TEST(test_energy_2link_horizontal)
{
  const double len[2] = {1.0, 1.0}, mass[2] = {1.0, 1.0};
  const double th[2] = {M_PI / 2, M_PI / 2};
  const cdyn_ref_nlink_params p = {.n = 2, .length = len, .mass = mass,
                                   .g = g_earth, .theta0 = th};
  const double err = max_energy_error(&p);
  printf("energy, 2-link from horizontal, 10 s: max relative error %.3e\n",
         err);
  ck_assert_msg(err <= 1e-9, "relative energy error %.3e > 1e-9", err);
}
END_TEST

START_TEST(test_energy_5link_irregular)
{
  const double len[5] = {0.71, 1.13, 0.94, 1.52, 0.67};
  const double mass[5] = {1.37, 0.83, 2.1, 0.59, 1.61};
  const double th[5] = {2.3, -0.4, 1.9, 0.8, -2.7};
  const double om[5] = {0.3, -1.2, 0.5, 2.2, -0.7};
  const cdyn_ref_nlink_params p = {.n = 5, .length = len, .mass = mass,
                                   .g = g_earth, .pivot = {0.25, 1.5},
                                   .theta0 = th, .omega0 = om};
  const double err = max_energy_error(&p);
  printf("energy, 5-link irregular, 10 s: max relative error %.3e\n", err);
  ck_assert_msg(err <= 1e-9, "relative energy error %.3e > 1e-9", err);
}
END_TEST

/*
 * The zero in s = (t - ta) / h in [0, 1] of the cubic Hermite interpolant
 * of y over one step: values y0, y1 and derivatives d0, d1 (per unit time)
 * at the ends, which differ in sign.  Sixty bisections bring the bracket
 * below 2^-60 of the step, far under the interpolant's own O(h^4) error.
 */
static double hermite_root(double y0, double d0, double y1, double d1, double h)
{
  double lo = 0, hi = 1;
  for (int it = 0; it < 60; it++) {
    const double s = 0.5 * (lo + hi), s2 = s * s, s3 = s2 * s;
    const double v = (2 * s3 - 3 * s2 + 1) * y0 + (s3 - 2 * s2 + s) * h * d0 + (-2 * s3 + 3 * s2) * y1 +
                     (s3 - s2) * h * d1;
    if ((v > 0) == (y0 > 0))
      lo = s;
    else
      hi = s;
  }
  return 0.5 * (lo + hi);
}

/*
 * Without gravity the only external force acts at the pivot, so the angular
 * momentum about the pivot, sum_k m_k (r_k - p) x v_k, is conserved.  Energy
 * conservation alone would not notice, for instance, a wrong mass weighting
 * that happened to keep a (different) energy constant.
 */
START_TEST(test_angular_momentum_zero_gravity)
{
  const double len[3] = {1.21, 0.57, 0.93}, mass[3] = {0.44, 1.73, 0.91};
  const double th[3] = {0.6, 2.9, -1.4}, om[3] = {1.7, -0.9, 2.6};
  const double px = -0.3, py = 0.8;
  const cdyn_ref_nlink_params p = {.n = 3, .length = len, .mass = mass,
                                   .g = 0.0, .pivot = {px, py},
                                   .theta0 = th, .omega0 = om};
  cdyn_ref_nlink *r = make(&p);
  double xy[6], v[6];
  double l0 = 0, scale = 0, worst = 0;
  for (int j = 0; j <= 100; j++) {
    advance_ok(r, 0.1 * j);
    ck_assert_int_eq(cdyn_ref_nlink_positions(r, xy), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_nlink_velocities(r, v), CDYN_OK);
    double l = 0, s = 0;
    for (int k = 0; k < 3; k++) {
      const double dx = xy[2 * k] - px, dy = xy[2 * k + 1] - py;
      l += mass[k] * (dx * v[2 * k + 1] - dy * v[2 * k]);
      s += mass[k] * hypot(dx, dy) * hypot(v[2 * k], v[2 * k + 1]);
    }
    if (j == 0) {
      l0 = l;
      scale = s;
    } else if (fabs(l - l0) / scale > worst) {
      worst = fabs(l - l0) / scale;
    }
  }
  printf("angular momentum, 3-link, g = 0, 10 s: max relative error %.3e\n",
         worst);
  ck_assert_msg(worst <= 1e-9, "angular momentum drift %.3e", worst);
  cdyn_ref_nlink_free(r);
}
END_TEST

/*
 * theta(t) of a single pendulum released from rest at theta0, sampled every
 * T/1000 of the small-angle period; each sign change of theta is located by
 * the cubic Hermite interpolant through (theta, omega) at the two ends of
 * the interval, whose error (h^4/384 times the fourth derivative) is far
 * below the 1e-8 needed.  Returns the period from the first and last of
 * 2 * nper + 1 crossings, which are half a period apart.
 */
static double measure_period(double theta0, double len, double g, double m,
                             int nper)
{
  const double lv[1] = {len}, mv[1] = {m}, tv[1] = {theta0};
  const cdyn_ref_nlink_params p = {.n = 1, .length = lv, .mass = mv, .g = g,
                                   .theta0 = tv};
  cdyn_ref_nlink *r = make(&p);
  const double h = 2 * M_PI * sqrt(len / g) / 1000;
  const int want = 2 * nper + 1;
  double first = 0, last = 0;
  int found = 0;
  double tha = theta0, oma = 0;
  for (long k = 1; found < want; k++) {
    ck_assert_int_lt(k, 1000L * (nper + 2));
    const double ta = (k - 1) * h, tb = k * h;
    double thb, omb;
    advance_ok(r, tb);
    ck_assert_int_eq(cdyn_ref_nlink_angles(r, &thb, &omb), CDYN_OK);
    if ((tha > 0) != (thb > 0)) {
      const double sc = hermite_root(tha, oma, thb, omb, h);
      const double tc = ta + sc * h;
      if (found == 0)
        first = tc;
      last = tc;
      found++;
    }
    tha = thb;
    oma = omb;
  }
  cdyn_ref_nlink_free(r);
  return 2 * (last - first) / (want - 1);
}

START_TEST(test_period_small_angle)
{
  /*
   * The exact period exceeds 2 pi sqrt(L/g) by the factor
   * 1 + theta0^2/16 + ..., about 6.25e-8 for theta0 = 1e-3, well inside
   * the 1e-6 tolerance.
   */
  const double len = 1.7, g = g_earth, theta0 = 1e-3;
  const double tp = measure_period(theta0, len, g, 2.3, 10);
  const double t0 = 2 * M_PI * sqrt(len / g);
  const double rel = fabs(tp - t0) / t0;
  printf("period, theta0 = 1e-3: measured %.15g, 2 pi sqrt(L/g) %.15g, "
         "relative difference %.3e (theta0^2/16 = %.3e)\n",
         tp, t0, rel, theta0 * theta0 / 16);
  ck_assert_msg(rel <= 1e-6, "small-angle period off by %.3e", rel);
  /*
   * With the first amplitude correction included the next term,
   * 11 theta0^4 / 3072 ~ 4e-15, is negligible, so the measurement can be
   * held much tighter.
   */
  const double t1 = t0 * (1 + theta0 * theta0 / 16);
  const double rel1 = fabs(tp - t1) / t1;
  printf("period, theta0 = 1e-3: relative difference from the corrected "
         "period %.3e\n", rel1);
  ck_assert_msg(rel1 <= 1e-10, "corrected small-angle period off by %.3e",
                rel1);
}
END_TEST

START_TEST(test_period_finite_amplitude)
{
  const double len = 1.7, g = g_earth, theta0 = 1.0;
  const double tp = measure_period(theta0, len, g, 0.6, 10);
  const double k = sin(theta0 / 2);
  const double exact = 4 * sqrt(len / g) * gsl_sf_ellint_Kcomp(k,
                                                               GSL_PREC_DOUBLE);
  const double rel = fabs(tp - exact) / exact;
  printf("period, theta0 = 1: measured %.15g, 4 sqrt(L/g) K %.15g, "
         "relative error %.3e\n", tp, exact, rel);
  ck_assert_msg(rel <= 1e-8, "finite-amplitude period off by %.3e", rel);
}
END_TEST

START_TEST(test_geometry)
{
  enum { n = 4 };
  const double len[n] = {0.83, 1.47, 0.36, 1.09};
  const double mass[n] = {2.2, 0.71, 1.3, 0.47};
  const double th[n] = {1.1, -0.3, 2.6, 0.2};
  const double om[n] = {-0.8, 1.9, 0.4, -2.3};
  const double px = -0.7, py = 2.3;
  const cdyn_ref_nlink_params p = {.n = n, .length = len, .mass = mass,
                                   .g = g_earth, .pivot = {px, py},
                                   .theta0 = th, .omega0 = om};
  cdyn_ref_nlink *r = make(&p);
  cdyn_ref_nlink *r2 = make(&p);

  /* At t = 0 the positions follow directly from the given angles. */
  double xy[2 * n], v[2 * n];
  ck_assert_int_eq(cdyn_ref_nlink_positions(r, xy), CDYN_OK);
  double x = px, y = py;
  for (int k = 0; k < n; k++) {
    x += len[k] * sin(th[k]);
    y -= len[k] * cos(th[k]);
    ck_assert_double_eq_tol(xy[2 * k], x, 1e-14);
    ck_assert_double_eq_tol(xy[2 * k + 1], y, 1e-14);
  }

  const double times[5] = {0.0, 0.37, 1.1, 2.9, 5.3};
  double rows[5][2 * n];
  ck_assert_int_eq(cdyn_ref_nlink_sample(r2, 5, times, &rows[0][0]), CDYN_OK);
  ck_assert_double_eq(cdyn_ref_nlink_time(r2), 5.3);
  for (int j = 0; j < 5; j++) {
    advance_ok(r, times[j]);
    ck_assert_int_eq(cdyn_ref_nlink_positions(r, xy), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_nlink_velocities(r, v), CDYN_OK);
    double prevx = px, prevy = py, prevvx = 0, prevvy = 0;
    for (int k = 0; k < n; k++) {
      const double dx = xy[2 * k] - prevx, dy = xy[2 * k + 1] - prevy;
      const double dvx = v[2 * k] - prevvx, dvy = v[2 * k + 1] - prevvy;
      /* Each link keeps its length; node 1 stays at L_0 from the pivot. */
      ck_assert_double_eq_tol(hypot(dx, dy), len[k], 1e-12);
      /* A rigid link's end moves perpendicular to the link. */
      ck_assert_double_eq_tol(dx * dvx + dy * dvy, 0.0,
                              1e-12 * len[k] * (1 + hypot(dvx, dvy)));
      prevx = xy[2 * k];
      prevy = xy[2 * k + 1];
      prevvx = v[2 * k];
      prevvy = v[2 * k + 1];
      /* sample() must follow exactly the same path as advance(). */
      ck_assert_double_eq(rows[j][2 * k], xy[2 * k]);
      ck_assert_double_eq(rows[j][2 * k + 1], xy[2 * k + 1]);
    }
  }
  cdyn_ref_nlink_free(r);
  cdyn_ref_nlink_free(r2);
}
END_TEST

/*
 * d/dt of a quantity at t = 0 by Richardson extrapolation of forward
 * differences over delta and 2 delta, from three values: f(0), f(delta),
 * f(2 delta).  The O(delta) term of the plain forward difference (about
 * delta * f''' / 2, up to ~1e-5 relative here) cancels, leaving O(delta^2)
 * plus rounding of about 1e-16 / delta, so a tolerance of 1e-8 relative
 * leaves a wide margin.
 */
static double richardson(double f0, double f1, double f2, double delta)
{
  const double d1 = (f1 - f0) / delta, d2 = (f2 - f0) / (2 * delta);
  return 2 * d1 - d2;
}

/*
 * Double pendulum angular accelerations in absolute angles from the
 * textbook closed form (m1, L1 the upper mass and link):
 *
 *   den = 2 m1 + m2 - m2 cos(2 th1 - 2 th2)
 *   th1'' = [-g (2 m1 + m2) sin th1 - m2 g sin(th1 - 2 th2)
 *            - 2 sin(th1 - th2) m2 (w2^2 L2 + w1^2 L1 cos(th1 - th2))]
 *           / (L1 den)
 *   th2'' = [2 sin(th1 - th2) (w1^2 L1 (m1 + m2) + g (m1 + m2) cos th1
 *            + w2^2 L2 m2 cos(th1 - th2))] / (L2 den)
 */
static void textbook_double(const double *len, const double *mass, double g,
                            const double *th, const double *w, double *acc)
{
  const double m1 = mass[0], m2 = mass[1], l1 = len[0], l2 = len[1];
  const double d = th[0] - th[1];
  const double den = 2 * m1 + m2 - m2 * cos(2 * th[0] - 2 * th[1]);
  acc[0] = (-g * (2 * m1 + m2) * sin(th[0]) - m2 * g * sin(th[0] - 2 * th[1]) -
            2 * sin(d) * m2 * (w[1] * w[1] * l2 + w[0] * w[0] * l1 * cos(d))) /
           (l1 * den);
  acc[1] = 2 * sin(d) *
           (w[0] * w[0] * l1 * (m1 + m2) + g * (m1 + m2) * cos(th[0]) +
            w[1] * w[1] * l2 * m2 * cos(d)) /
           (l2 * den);
}

START_TEST(test_double_pendulum_textbook)
{
  /* Released from horizontal, and a general moving state. */
  const double len[2][2] = {{1.0, 1.0}, {0.9, 1.4}};
  const double mass[2][2] = {{1.0, 1.0}, {1.3, 0.6}};
  const double th[2][2] = {{M_PI / 2, M_PI / 2}, {0.7, -1.3}};
  const double om[2][2] = {{0.0, 0.0}, {0.4, -1.1}};
  const double delta = 1e-6;
  for (int c = 0; c < 2; c++) {
    const cdyn_ref_nlink_params p = {.n = 2, .length = len[c],
                                     .mass = mass[c], .g = g_earth,
                                     .theta0 = th[c], .omega0 = om[c]};
    cdyn_ref_nlink *r = make(&p);
    double w1[2], w2[2], want[2];
    advance_ok(r, delta);
    ck_assert_int_eq(cdyn_ref_nlink_angles(r, NULL, w1), CDYN_OK);
    advance_ok(r, 2 * delta);
    ck_assert_int_eq(cdyn_ref_nlink_angles(r, NULL, w2), CDYN_OK);
    textbook_double(len[c], mass[c], g_earth, th[c], om[c], want);
    /*
     * Compared relative to the larger acceleration, because from horizontal
     * rest th2'' is exactly 0 (the two links are parallel).
     */
    const double scale = fmax(fabs(want[0]), fabs(want[1]));
    for (int i = 0; i < 2; i++) {
      const double got = richardson(om[c][i], w1[i], w2[i], delta);
      const double rel = fabs(got - want[i]) / scale;
      printf("double pendulum case %d: th%d'' = %.12g, textbook %.12g, "
             "relative difference %.3e\n", c, i + 1, got, want[i], rel);
      ck_assert_msg(rel <= 1e-8, "case %d th%d'': %.15g vs %.15g", c, i + 1,
                    got, want[i]);
    }
    cdyn_ref_nlink_free(r);
  }
}
END_TEST

/*
 * Node accelerations of a 4-link chain from a Cartesian formulation that
 * shares nothing with the joint-angle equations: point masses with forces
 * (0, -m g), distance constraints C_c = (|r_{c+1} - r_c|^2 - L_c^2) / 2 with
 * r_0 the pivot, and the index-1 system
 *
 *   m a - J^T lambda = f,   J a = -|v_{c+1} - v_c|^2,
 *
 * solved by LU.  The accelerations from the integrator are obtained by
 * differencing node velocities over short advances.
 */
START_TEST(test_nlink_against_cartesian)
{
  enum { n = 4, m3 = 3 * n };
  const double len[n] = {1.31, 0.62, 0.88, 1.05};
  const double mass[n] = {0.77, 1.92, 0.35, 1.18};
  const double th[n] = {0.4, 1.7, -0.9, 2.8};
  const double om[n] = {0.9, -1.4, 2.1, 0.3};
  const double pv[2] = {0.4, -0.2};
  const cdyn_ref_nlink_params p = {.n = n, .length = len, .mass = mass,
                                   .g = g_earth, .pivot = {pv[0], pv[1]},
                                   .theta0 = th, .omega0 = om};
  cdyn_ref_nlink *r = make(&p);
  double xy[2 * n], v0[2 * n], v1[2 * n], v2[2 * n];
  ck_assert_int_eq(cdyn_ref_nlink_positions(r, xy), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_nlink_velocities(r, v0), CDYN_OK);

  gsl_matrix *a = gsl_matrix_calloc(m3, m3);
  gsl_vector *b = gsl_vector_calloc(m3), *x = gsl_vector_alloc(m3);
  gsl_permutation *perm = gsl_permutation_alloc(m3);
  ck_assert(a && b && x && perm);
  for (int k = 0; k < n; k++) {
    gsl_matrix_set(a, 2 * k, 2 * k, mass[k]);
    gsl_matrix_set(a, 2 * k + 1, 2 * k + 1, mass[k]);
    gsl_vector_set(b, 2 * k + 1, -mass[k] * g_earth);
  }
  for (int c = 0; c < n; c++) {
    const double *ra = c == 0 ? pv : xy + 2 * (c - 1);
    const double *rb = xy + 2 * c;
    const double zero[2] = {0, 0};
    const double *va = c == 0 ? zero : v0 + 2 * (c - 1), *vb = v0 + 2 * c;
    for (int d = 0; d < 2; d++) {
      const double jd = rb[d] - ra[d];
      gsl_matrix_set(a, 2 * n + c, 2 * c + d, jd);
      gsl_matrix_set(a, 2 * c + d, 2 * n + c, -jd);
      if (c > 0) {
        gsl_matrix_set(a, 2 * n + c, 2 * (c - 1) + d, -jd);
        gsl_matrix_set(a, 2 * (c - 1) + d, 2 * n + c, jd);
      }
    }
    const double dvx = vb[0] - va[0], dvy = vb[1] - va[1];
    gsl_vector_set(b, 2 * n + c, -(dvx * dvx + dvy * dvy));
  }
  int sign;
  ck_assert_int_eq(gsl_linalg_LU_decomp(a, perm, &sign), 0);
  ck_assert_int_eq(gsl_linalg_LU_solve(a, perm, b, x), 0);

  const double delta = 1e-6;
  advance_ok(r, delta);
  ck_assert_int_eq(cdyn_ref_nlink_velocities(r, v1), CDYN_OK);
  advance_ok(r, 2 * delta);
  ck_assert_int_eq(cdyn_ref_nlink_velocities(r, v2), CDYN_OK);
  double amax = 0, worst = 0;
  for (int i = 0; i < 2 * n; i++)
    amax = fmax(amax, fabs(gsl_vector_get(x, i)));
  for (int i = 0; i < 2 * n; i++) {
    const double got = richardson(v0[i], v1[i], v2[i], delta);
    worst = fmax(worst, fabs(got - gsl_vector_get(x, i)) / amax);
  }
  printf("4-link node accelerations vs Cartesian multipliers: max relative "
         "difference %.3e\n", worst);
  ck_assert_msg(worst <= 1e-8, "node accelerations differ by %.3e", worst);

  gsl_permutation_free(perm);
  gsl_vector_free(x);
  gsl_vector_free(b);
  gsl_matrix_free(a);
  cdyn_ref_nlink_free(r);
}
END_TEST

/* Valid parameters in storage owned by the caller, for mutation. */
typedef struct {
  double len[3], mass[3], th[3], om[3];
  cdyn_ref_nlink_params p;
} fixture;

static void fixture_init(fixture *f)
{
  const double len[3] = {1.0, 0.5, 0.7}, mass[3] = {1.0, 2.0, 0.3};
  const double th[3] = {0.1, 0.2, 0.3}, om[3] = {0.0, 0.5, -0.5};
  memcpy(f->len, len, sizeof len);
  memcpy(f->mass, mass, sizeof mass);
  memcpy(f->th, th, sizeof th);
  memcpy(f->om, om, sizeof om);
  f->p = (cdyn_ref_nlink_params){.n = 3, .length = f->len, .mass = f->mass,
                                 .g = g_earth, .pivot = {0.0, 0.0},
                                 .theta0 = f->th, .omega0 = f->om};
}

/* Apply invalid mutation number c; returns 0 once c is past the last. */
static int mutate(fixture *f, int c)
{
  switch (c) {
  case 0: f->p.n = 0; break;
  case 1: f->p.n = SIZE_MAX / 2; break;
  case 2: f->p.length = NULL; break;
  case 3: f->p.mass = NULL; break;
  case 4: f->p.theta0 = NULL; break;
  case 5: f->len[1] = 0.0; break;
  case 6: f->len[2] = -1.0; break;
  case 7: f->len[0] = NAN; break;
  case 8: f->len[1] = INFINITY; break;
  case 9: f->mass[0] = 0.0; break;
  case 10: f->mass[2] = -2.0; break;
  case 11: f->mass[1] = NAN; break;
  case 12: f->mass[1] = INFINITY; break;
  case 13: f->p.g = -1.0; break;
  case 14: f->p.g = NAN; break;
  case 15: f->p.g = INFINITY; break;
  case 16: f->p.pivot[0] = NAN; break;
  case 17: f->p.pivot[1] = -INFINITY; break;
  case 18: f->th[1] = NAN; break;
  case 19: f->th[2] = INFINITY; break;
  case 20: f->om[2] = NAN; break;
  case 21: f->om[0] = -INFINITY; break;
  case 22: f->p.abstol = -1e-13; break;
  case 23: f->p.abstol = 1e-5; break;
  case 24: f->p.abstol = NAN; break;
  case 25: f->p.reltol = -1.0; break;
  case 26: f->p.reltol = 2e-6; break;
  case 27: f->p.reltol = INFINITY; break;
  default: return 0;
  }
  return 1;
}

START_TEST(test_new_rejects_invalid)
{
  fixture f;
  cdyn_ref_nlink *r = NULL;

  fixture_init(&f);
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_ref_nlink_new(NULL, &f.p), CDYN_EINVAL);
  ck_assert_str_ne(cdyn_errmsg(), "");

  cdyn_error_clear();
  r = (cdyn_ref_nlink *)&f; /* must be overwritten with NULL */
  ck_assert_int_eq(cdyn_ref_nlink_new(&r, NULL), CDYN_EINVAL);
  ck_assert_ptr_null(r);
  ck_assert_str_ne(cdyn_errmsg(), "");

  for (int c = 0;; c++) {
    fixture_init(&f);
    if (!mutate(&f, c))
      break;
    cdyn_error_clear();
    r = (cdyn_ref_nlink *)&f;
    const int s = cdyn_ref_nlink_new(&r, &f.p);
    ck_assert_msg(s == CDYN_EINVAL, "mutation %d: status %d", c, s);
    ck_assert_msg(r == NULL, "mutation %d: *out not NULL", c);
    ck_assert_msg(cdyn_errmsg()[0] != '\0', "mutation %d: no message", c);
  }

  /* The unmutated fixture, NULL omega0 and explicit tolerances are valid. */
  fixture_init(&f);
  f.p.omega0 = NULL;
  f.p.abstol = 1e-6;
  f.p.reltol = 1e-10;
  r = make(&f.p);
  double om[3];
  ck_assert_int_eq(cdyn_ref_nlink_angles(r, NULL, om), CDYN_OK);
  for (int i = 0; i < 3; i++)
    ck_assert_double_eq(om[i], 0.0);
  cdyn_ref_nlink_free(r);
}
END_TEST

START_TEST(test_call_errors)
{
  fixture f;
  fixture_init(&f);
  cdyn_ref_nlink *r = make(&f.p);
  double buf[6], th0[6], th1[6], e;

  cdyn_ref_nlink_free(NULL);
  ck_assert(isnan(cdyn_ref_nlink_time(NULL)));


  TU_EXPECT_EINVAL(cdyn_ref_nlink_advance(NULL, 1.0));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_angles(NULL, buf, buf));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_positions(NULL, buf));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_positions(r, NULL));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_velocities(NULL, buf));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_velocities(r, NULL));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_energy(NULL, &e));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_energy(r, NULL));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_sample(NULL, 1, buf, buf));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_sample(r, 1, NULL, buf));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_sample(r, 1, buf, NULL));
  ck_assert_int_eq(cdyn_ref_nlink_angles(r, NULL, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_nlink_sample(r, 0, NULL, NULL), CDYN_OK);

  /* Advancing to the current time is a no-op; backwards is refused. */
  ck_assert_int_eq(cdyn_ref_nlink_advance(r, 0.0), CDYN_OK);
  advance_ok(r, 1.0);
  ck_assert_int_eq(cdyn_ref_nlink_angles(r, th0, NULL), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_ref_nlink_advance(r, 0.5));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_advance(r, NAN));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_advance(r, INFINITY));
  ck_assert_int_eq(cdyn_ref_nlink_advance(r, 1.0), CDYN_OK);

  /* Bad sample times are refused before anything moves. */
  const double before[2] = {0.5, 2.0}, unordered[3] = {1.5, 2.5, 2.0};
  const double nan_times[2] = {1.5, NAN};
  double rows[3 * 6];
  TU_EXPECT_EINVAL(cdyn_ref_nlink_sample(r, 2, before, rows));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_sample(r, 3, unordered, rows));
  TU_EXPECT_EINVAL(cdyn_ref_nlink_sample(r, 2, nan_times, rows));
  ck_assert_double_eq(cdyn_ref_nlink_time(r), 1.0);
  ck_assert_int_eq(cdyn_ref_nlink_angles(r, th1, NULL), CDYN_OK);
  for (int i = 0; i < 3; i++)
    ck_assert_double_eq(th0[i], th1[i]);

  /* The object still works after refusing those calls. */
  advance_ok(r, 1.5);
  ck_assert_double_eq(cdyn_ref_nlink_time(r), 1.5);
  cdyn_ref_nlink_free(r);
}
END_TEST

/*
 * An angular velocity whose square overflows must be reported, not turned
 * into NaN, and the object must stay where it was.
 */
START_TEST(test_overflow_reported)
{
  fixture f;
  fixture_init(&f);
  f.om[1] = 1e200;
  cdyn_ref_nlink *r = make(&f.p);
  double e, om[3];
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_ref_nlink_advance(r, 0.1), CDYN_ENONFINITE);
  ck_assert_str_ne(cdyn_errmsg(), "");
  ck_assert_double_eq(cdyn_ref_nlink_time(r), 0.0);
  ck_assert_int_eq(cdyn_ref_nlink_angles(r, NULL, om), CDYN_OK);
  ck_assert_double_eq(om[1], 1e200);
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_ref_nlink_energy(r, &e), CDYN_ENONFINITE);
  ck_assert_str_ne(cdyn_errmsg(), "");
  const double t[2] = {0.05, 0.1};
  double rows[2 * 6];
  ck_assert_int_eq(cdyn_ref_nlink_sample(r, 2, t, rows), CDYN_ENONFINITE);
  ck_assert_double_eq(cdyn_ref_nlink_time(r), 0.0);
  cdyn_ref_nlink_free(r);
}
END_TEST

/* ======================================================================
 * reference/bead.c: a bead on a vertical circle, ODE and exact solution.
 * ====================================================================== */

static cdyn_ref_bead *make_bead(const cdyn_ref_bead_params *p)
{
  cdyn_ref_bead *r = NULL;
  const int s = cdyn_ref_bead_new(&r, p);
  ck_assert_msg(s == CDYN_OK, "cdyn_ref_bead_new: %d (%s)", s, cdyn_errmsg());
  ck_assert_ptr_nonnull(r);
  return r;
}

static void exact_ok(double R, double g, double th0, double t, double *th,
                     double *om)
{
  const int s = cdyn_ref_bead_exact(R, g, th0, t, th, om);
  ck_assert_msg(s == CDYN_OK, "cdyn_ref_bead_exact(%g, %g, %g, %g): %d (%s)",
                R, g, th0, t, s, cdyn_errmsg());
}

/*
 * The integrated bead against the closed form, every 0.05 s for 10 s, for
 * releases from rest at four angles, the last 0.24 rad below the top.
 *
 * Tolerance.  rk8pd's controller holds each step's local error estimate
 * below 1e-13 (1 + |y_i|) (abstol = reltol = 1e-13), at most 4e-13 for
 * |theta| <= 2.9; the runs take 200 to 430 steps over 10 s with these
 * samples, so the plain sum of the local errors is up to ~1.7e-10 rad,
 * before any growth of phase errors.  The controller's estimates are
 * pessimistic and the local errors do not all add up: measured, the
 * difference stays below 1e-11 (7e-12 at 2.9 rad, where the period is
 * most sensitive to energy).  The check uses 1e-10, the order of that
 * sum.  The closed form adds only rounding (K and sn are accurate to a
 * few ulp; the phase w0 t ~ 27 rad carries ~1e-14).  The rates are
 * compared after division by w0, so that both checks are in radians.
 * Passing k instead of m = k^2 to GSL's elljac, or m instead of k to
 * Kcomp, changes theta by O(0.01-0.1) rad.
 */
START_TEST(test_bead_exact_vs_ode)
{
  const double R = 1.3, g = g_earth, w0 = sqrt(g / R);
  const double th0s[4] = {0.3, 1.2, -2.1, 2.9};
  for (int c = 0; c < 4; c++) {
    const cdyn_ref_bead_params p = {.R = R, .g = g, .centre = {0.4, -0.7},
                                    .theta0 = th0s[c]};
    cdyn_ref_bead *r = make_bead(&p);
    double worst_th = 0, worst_om = 0;
    for (int j = 1; j <= 200; j++) {
      const double t = 0.05 * j;
      double th, om, the, ome;
      ck_assert_int_eq(cdyn_ref_bead_advance(r, t), CDYN_OK);
      ck_assert_int_eq(cdyn_ref_bead_angle(r, &th, &om), CDYN_OK);
      exact_ok(R, g, th0s[c], t, &the, &ome);
      worst_th = fmax(worst_th, fabs(th - the));
      worst_om = fmax(worst_om, fabs(om - ome) / w0);
    }
    printf("bead theta0 = %g: ODE vs exact over 10 s: max |dtheta| %.3e rad, "
           "max |dtheta'|/w0 %.3e\n", th0s[c], worst_th, worst_om);
    ck_assert_msg(worst_th <= 1e-10 && worst_om <= 1e-10,
                  "theta0 = %g: %.3e, %.3e", th0s[c], worst_th, worst_om);
    cdyn_ref_bead_free(r);
  }
}
END_TEST

/*
 * Exact facts of the closed form that do not need the ODE: a quarter
 * period 4K/w0 after release the bead is at the bottom with speed
 * 2 k w0 (energy: theta'^2 = 2 w0^2 (1 - cos theta0) = 4 w0^2 k^2), half a
 * period after it is at -theta0 at rest, and a full period after it is back.
 * Only rounding enters: a few ulp of K and of the elliptic functions,
 * times |theta'| <= 2 w0 for the phase, hence 1e-13.
 */
START_TEST(test_bead_exact_quarter_periods)
{
  const double R = 0.85, g = g_earth, w0 = sqrt(g / R);
  const double th0s[3] = {0.7, -1.9, 3.0};
  for (int c = 0; c < 3; c++) {
    const double k = sin(th0s[c] / 2);
    const double T = 4 * gsl_sf_ellint_Kcomp(k, GSL_PREC_DOUBLE) / w0;
    double th, om;
    exact_ok(R, g, th0s[c], T / 4, &th, &om);
    ck_assert_double_eq_tol(th, 0.0, 1e-13);
    ck_assert_double_eq_tol(om, -2 * k * w0, 1e-13 * w0);
    exact_ok(R, g, th0s[c], T / 2, &th, &om);
    ck_assert_double_eq_tol(th, -th0s[c], 1e-13);
    ck_assert_double_eq_tol(om, 0.0, 1e-13 * w0);
    exact_ok(R, g, th0s[c], 3 * T, &th, &om);
    ck_assert_double_eq_tol(th, th0s[c], 1e-12);
    /* Negative time is the motion reflected in time. */
    double thn, omn;
    exact_ok(R, g, th0s[c], -0.37, &thn, &omn);
    exact_ok(R, g, th0s[c], 0.37, &th, &om);
    ck_assert_double_eq_tol(thn, th, 1e-14);
    ck_assert_double_eq_tol(omn, -om, 1e-13 * w0);
  }
  /* g = 0: nothing moves. */
  double th, om;
  exact_ok(1.0, 0.0, 1.1, 5.0, &th, &om);
  ck_assert_double_eq_tol(th, 1.1, 1e-15);
  ck_assert_double_eq(om, 0.0);
}
END_TEST

/*
 * Small amplitude: Lindstedt's expansion of the pendulum,
 *   theta(t) = theta0 cos(W t) + O(theta0^3) (third harmonic of amplitude
 *   theta0^3 / 192), W = w0 (1 - theta0^2 / 16 + O(theta0^4)),
 * so over 10 s (w0 t ~ 27.5) the closed form must match it to
 * theta0^3 / 96 + theta0 * 27.5 * theta0^4 * 11/3072 ~ 1.1e-11 for
 * theta0 = 1e-3; without the frequency correction the difference would be
 * theta0 * 27.5 * theta0^2 / 16 ~ 1.7e-9, which the check must see.
 */
START_TEST(test_bead_small_angle)
{
  const double R = 2.2, g = g_earth, w0 = sqrt(g / R), th0 = 1e-3;
  const double W = w0 * (1 - th0 * th0 / 16);
  double worst = 0, worst_plain = 0;
  for (int j = 0; j <= 1000; j++) {
    const double t = 0.01 * j;
    double th;
    exact_ok(R, g, th0, t, &th, NULL);
    worst = fmax(worst, fabs(th - th0 * cos(W * t)));
    worst_plain = fmax(worst_plain, fabs(th - th0 * cos(w0 * t)));
  }
  const double bound = th0 * th0 * th0 / 96 +
                       th0 * w0 * 10 * pow(th0, 4) * 11 / 3072;
  printf("bead small angle 1e-3: |theta - theta0 cos(W t)| <= %.3e (bound "
         "%.3e); against w0 alone %.3e\n", worst, bound, worst_plain);
  ck_assert_msg(worst <= bound, "%.3e > %.3e", worst, bound);
  ck_assert_msg(worst_plain > 10 * bound, "frequency correction not seen");
}
END_TEST

/*
 * Energy per unit mass over 10 s, for a libration near the top and for a
 * bead going round and round (theta'0 above 2 w0).  The scale is the
 * largest kinetic energy per mass the motion can reach, (E - V_min),
 * so that the criterion does not depend on where y = 0 is.  1e-12: the
 * local error per step is 1e-13 in (theta, theta'), and an energy error
 * is a first-order function of it.
 */
START_TEST(test_bead_energy)
{
  const double R = 1.7, g = g_earth;
  const double th0[2] = {2.9, 0.4}, om0[2] = {0.0, 2.41 * sqrt(g / R)};
  for (int c = 0; c < 2; c++) {
    const cdyn_ref_bead_params p = {.R = R, .g = g, .centre = {-1.1, 3.3},
                                    .theta0 = th0[c], .omega0 = om0[c]};
    cdyn_ref_bead *r = make_bead(&p);
    double e0, e, th;
    ck_assert_int_eq(cdyn_ref_bead_energy(r, &e0), CDYN_OK);
    /* E = R^2 w^2 / 2 + g (cy - R cos theta), checked by hand at t = 0. */
    ck_assert_double_eq_tol(e0, 0.5 * R * R * om0[c] * om0[c] +
                                g * (3.3 - R * cos(th0[c])), 1e-13);
    const double scale = e0 - g * (3.3 - R);
    double worst = 0;
    for (int j = 1; j <= 100; j++) {
      ck_assert_int_eq(cdyn_ref_bead_advance(r, 0.1 * j), CDYN_OK);
      ck_assert_int_eq(cdyn_ref_bead_energy(r, &e), CDYN_OK);
      worst = fmax(worst, fabs(e - e0) / scale);
    }
    ck_assert_int_eq(cdyn_ref_bead_angle(r, &th, NULL), CDYN_OK);
    printf("bead energy, theta0 = %g, omega0 = %g: max relative error "
           "%.3e over 10 s (final theta %.3f)\n", th0[c], om0[c], worst, th);
    ck_assert_msg(worst <= 1e-12, "energy error %.3e", worst);
    if (c == 1) /* it went over the top: theta is not reduced */
      ck_assert_msg(th > 2 * M_PI, "theta = %g did not keep counting", th);
    cdyn_ref_bead_free(r);
  }
}
END_TEST

/*
 * Position and velocity against the angle, and the bead against a
 * one-link nlink pendulum of the same R, g and initial state: two
 * independent codes of the same equation must agree to their integration
 * error (both at 1e-13; see test_bead_exact_vs_ode for the size).
 */
START_TEST(test_bead_geometry_and_nlink)
{
  const double R = 1.15, g = g_earth, cx = 0.3, cy = -0.45;
  const double th0 = -1.35, om0 = 2.7;
  const cdyn_ref_bead_params p = {.R = R, .g = g, .centre = {cx, cy},
                                  .theta0 = th0, .omega0 = om0};
  cdyn_ref_bead *r = make_bead(&p);
  const double lv[1] = {R}, mv[1] = {0.77}, tv[1] = {th0}, ov[1] = {om0};
  const cdyn_ref_nlink_params np = {.n = 1, .length = lv, .mass = mv, .g = g,
                                    .pivot = {cx, cy}, .theta0 = tv,
                                    .omega0 = ov};
  cdyn_ref_nlink *nl = make(&np);
  double worst = 0;
  for (int j = 0; j <= 50; j++) {
    const double t = 0.2 * j;
    double xy[2], v[2], th, om, nxy[2], nv[2];
    ck_assert_int_eq(cdyn_ref_bead_advance(r, t), CDYN_OK);
    advance_ok(nl, t);
    ck_assert_double_eq(cdyn_ref_bead_time(r), t);
    ck_assert_int_eq(cdyn_ref_bead_angle(r, &th, &om), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_bead_position(r, xy), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_bead_velocity(r, v), CDYN_OK);
    ck_assert_double_eq_tol(xy[0], cx + R * sin(th), 1e-15);
    ck_assert_double_eq_tol(xy[1], cy - R * cos(th), 1e-15);
    ck_assert_double_eq_tol(v[0], R * om * cos(th), 1e-14);
    ck_assert_double_eq_tol(v[1], R * om * sin(th), 1e-14);
    ck_assert_int_eq(cdyn_ref_nlink_positions(nl, nxy), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_nlink_velocities(nl, nv), CDYN_OK);
    for (int d = 0; d < 2; d++)
      worst = fmax(worst, fmax(fabs(xy[d] - nxy[d]) / R,
                               fabs(v[d] - nv[d]) / (R * sqrt(g / R))));
  }
  printf("bead vs 1-link nlink over 10 s: max relative difference %.3e\n",
         worst);
  ck_assert_msg(worst <= 1e-10, "bead and nlink differ by %.3e", worst);
  cdyn_ref_bead_free(r);
  cdyn_ref_nlink_free(nl);
}
END_TEST

START_TEST(test_bead_errors)
{
  const cdyn_ref_bead_params good = {.R = 1.0, .g = g_earth,
                                     .theta0 = 0.5, .omega0 = 0.1};
  cdyn_ref_bead *r = NULL;
  double th, om, buf[2], e;


  TU_EXPECT_EINVAL(cdyn_ref_bead_new(NULL, &good));
  r = (cdyn_ref_bead *)&th;
  TU_EXPECT_EINVAL(cdyn_ref_bead_new(&r, NULL));
  ck_assert_ptr_null(r);
  for (int c = 0; c < 15; c++) {
    cdyn_ref_bead_params p = good;
    switch (c) {
    case 0: p.R = 0; break;
    case 1: p.R = -1; break;
    case 2: p.R = NAN; break;
    case 3: p.g = -0.1; break;
    case 4: p.g = INFINITY; break;
    case 5: p.centre[0] = NAN; break;
    case 6: p.centre[1] = -INFINITY; break;
    case 7: p.theta0 = NAN; break;
    case 8: p.omega0 = INFINITY; break;
    case 9: p.abstol = -1e-13; break;
    case 10: p.abstol = 1e-5; break;
    case 11: p.reltol = NAN; break;
    case 12: p.R = 1e-300; p.g = 1e300; break; /* g / R overflows */
    case 13: p.reltol = 2e-6; break;
    case 14: p.abstol = INFINITY; break;
    }
    r = (cdyn_ref_bead *)&th;
    cdyn_error_clear();
    ck_assert_msg(cdyn_ref_bead_new(&r, &p) == CDYN_EINVAL, "mutation %d", c);
    ck_assert_msg(r == NULL, "mutation %d: *out not NULL", c);
    ck_assert_msg(cdyn_errmsg()[0] != '\0', "mutation %d: no message", c);
  }

  r = make_bead(&good);
  cdyn_ref_bead_free(NULL);
  ck_assert(isnan(cdyn_ref_bead_time(NULL)));
  TU_EXPECT_EINVAL(cdyn_ref_bead_advance(NULL, 1.0));
  TU_EXPECT_EINVAL(cdyn_ref_bead_advance(r, NAN));
  TU_EXPECT_EINVAL(cdyn_ref_bead_advance(r, -0.5));
  TU_EXPECT_EINVAL(cdyn_ref_bead_angle(NULL, &th, &om));
  TU_EXPECT_EINVAL(cdyn_ref_bead_position(NULL, buf));
  TU_EXPECT_EINVAL(cdyn_ref_bead_position(r, NULL));
  TU_EXPECT_EINVAL(cdyn_ref_bead_velocity(NULL, buf));
  TU_EXPECT_EINVAL(cdyn_ref_bead_velocity(r, NULL));
  TU_EXPECT_EINVAL(cdyn_ref_bead_energy(NULL, &e));
  TU_EXPECT_EINVAL(cdyn_ref_bead_energy(r, NULL));
  ck_assert_int_eq(cdyn_ref_bead_angle(r, NULL, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_bead_advance(r, 0.0), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_bead_advance(r, 0.5), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_ref_bead_advance(r, 0.25));
  ck_assert_double_eq(cdyn_ref_bead_time(r), 0.5);
  cdyn_ref_bead_free(r);

  /* An angular velocity whose square overflows is reported, not NaN. */
  cdyn_ref_bead_params big = good;
  big.omega0 = 1e200;
  r = make_bead(&big);
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_ref_bead_energy(r, &e), CDYN_ENONFINITE);
  ck_assert_str_ne(cdyn_errmsg(), "");
  cdyn_ref_bead_free(r);

  TU_EXPECT_EINVAL(cdyn_ref_bead_exact(0.0, 1.0, 0.5, 1.0, &th, &om));
  TU_EXPECT_EINVAL(cdyn_ref_bead_exact(NAN, 1.0, 0.5, 1.0, &th, &om));
  TU_EXPECT_EINVAL(cdyn_ref_bead_exact(1.0, -1.0, 0.5, 1.0, &th, &om));
  TU_EXPECT_EINVAL(cdyn_ref_bead_exact(1.0, 1.0, 0.5, INFINITY, &th, &om));
  TU_EXPECT_EINVAL(cdyn_ref_bead_exact(1.0, 1.0, M_PI, 1.0, &th, &om));
  TU_EXPECT_EINVAL(cdyn_ref_bead_exact(1.0, 1.0, -4.0, 1.0, &th, &om));
  TU_EXPECT_EINVAL(cdyn_ref_bead_exact(1.0, 1.0, NAN, 1.0, &th, &om));
  /* The largest double below pi: sin^2(theta0 / 2) rounds to 1. */
  TU_EXPECT_EINVAL(cdyn_ref_bead_exact(1.0, 1.0, nextafter(M_PI, 0), 1.0, &th,
                                    &om));
  ck_assert_int_eq(cdyn_ref_bead_exact(1.0, 1.0, 0.5, 1.0, NULL, NULL),
                   CDYN_OK);
}
END_TEST

/* ======================================================================
 * reference/spherical.c: spherical pendulum in (theta, phi).
 * ====================================================================== */

static cdyn_ref_sph *make_sph(const cdyn_ref_sph_params *p)
{
  cdyn_ref_sph *r = NULL;
  const int s = cdyn_ref_sph_new(&r, p);
  ck_assert_msg(s == CDYN_OK, "cdyn_ref_sph_new: %d (%s)", s, cdyn_errmsg());
  ck_assert_ptr_nonnull(r);
  return r;
}

static void sph_state(const cdyn_ref_sph *r, double x[3], double v[3])
{
  ck_assert_int_eq(cdyn_ref_sph_position(r, x), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_sph_velocity(r, v), CDYN_OK);
}

/* ((x - p) x v) . e_y, the angular momentum per mass about the vertical. */
static double vertical_momentum(const double p[3], const double x[3],
                                const double v[3])
{
  return (x[2] - p[2]) * v[0] - (x[0] - p[0]) * v[2];
}

/*
 * Energy and vertical angular momentum over 10 s of a generic 3-D motion,
 * and for one that passes within sin(theta) ~ 5e-3 of the lower pole,
 * where phi' is some 3e4 times what it is at theta ~ 1.  Energy per mass is
 * scaled by E - V_min (the largest kinetic energy the motion can reach);
 * 1e-12 because the integrator's local error is 1e-13 per step in
 * (theta, theta', phi) and the energy is a first-order function of it.
 * l_y = -L^2 p_phi holds by construction of the reduced model (p_phi is a
 * constant of the object), so its check is one of the Cartesian velocity
 * formula, held to rounding: 1e-13 relative to L |v|.  The rod stays at
 * length L and perpendicular to v, also to rounding.
 */
START_TEST(test_sph_conservation)
{
  const double L = 1.4, g = g_earth, pv[3] = {0.3, 1.2, -0.5};
  const double phidot0[2] = {2.2, 0.025}, thetadot0[2] = {0.9, 3.1};
  for (int c = 0; c < 2; c++) {
    const cdyn_ref_sph_params p = {.L = L, .g = g,
                                   .pivot = {pv[0], pv[1], pv[2]},
                                   .theta0 = 1.1, .phi0 = 0.4,
                                   .thetadot0 = thetadot0[c],
                                   .phidot0 = phidot0[c]};
    cdyn_ref_sph *r = make_sph(&p);
    double x[3], v[3], e0, e, tmin, tmax;
    ck_assert_int_eq(cdyn_ref_sph_turning(r, &tmin, &tmax), CDYN_OK);
    sph_state(r, x, v);
    ck_assert_int_eq(cdyn_ref_sph_energy(r, &e0), CDYN_OK);
    const double l0 = vertical_momentum(pv, x, v);
    const double scale = e0 - g * (pv[1] - L);
    double worst_e = 0, worst_l = 0, worst_geo = 0, smin = 1;
    for (int j = 1; j <= 1000; j++) {
      ck_assert_int_eq(cdyn_ref_sph_advance(r, 0.01 * j), CDYN_OK);
      sph_state(r, x, v);
      ck_assert_int_eq(cdyn_ref_sph_energy(r, &e), CDYN_OK);
      const double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      const double d[3] = {x[0] - pv[0], x[1] - pv[1], x[2] - pv[2]};
      worst_e = fmax(worst_e, fabs(e - e0) / scale);
      worst_l = fmax(worst_l, fabs(vertical_momentum(pv, x, v) - l0) /
                                (L * speed));
      worst_geo = fmax(worst_geo,
                       fabs(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) -
                            L) / L);
      worst_geo = fmax(worst_geo, fabs(d[0] * v[0] + d[1] * v[1] +
                                       d[2] * v[2]) / (L * speed));
      smin = fmin(smin, hypot(d[0], d[2]) / L);
    }
    printf("spherical case %d: 10 s, max relative energy error %.3e, l_y "
           "error %.3e, geometry %.3e; min sin(theta) sampled %.3e, band "
           "[%.6f, %.6f]\n", c, worst_e, worst_l, worst_geo, smin, tmin,
           tmax);
    ck_assert_msg(worst_e <= 1e-12, "energy error %.3e", worst_e);
    ck_assert_msg(worst_l <= 1e-13, "l_y error %.3e", worst_l);
    ck_assert_msg(worst_geo <= 1e-13, "geometry error %.3e", worst_geo);
    /* The samples stay in the band of polar angles. */
    ck_assert_msg(smin >= fmin(sin(tmin), sin(tmax)) * (1 - 1e-9),
                  "sin(theta) = %.6e left the band", smin);
    cdyn_ref_sph_free(r);
  }
}
END_TEST

/*
 * Conical pendulum: phi'^2 = g / (L cos theta0), theta'0 = 0 makes
 * theta'' = sin(theta) (cos(theta) phi'^2 - g / L) = 0, so theta stays at
 * theta0 and phi grows linearly.  The residual of the right-hand side is a
 * few ulp of w0^2, which the (stable) oscillation about the cone turns
 * into a displacement of the same relative size: 1e-12 rad is generous.
 * phi' is then constant, which rk8pd integrates exactly, so phi carries
 * only the rounding of ~1000 additions of a number up to ~40: 1e-11.
 * The band computed from the conserved quantities collapses onto theta0;
 * at that double root f is quadratic, so bisection on a function known to
 * ~1e-16 locates it only to ~sqrt(1e-16), hence 1e-7.
 */
START_TEST(test_sph_conical)
{
  const double L = 0.95, g = g_earth, th0 = 0.8, ph0 = -0.3;
  const double pd = sqrt(g / (L * cos(th0)));
  const cdyn_ref_sph_params p = {.L = L, .g = g, .pivot = {-0.2, 0.5, 0.9},
                                 .theta0 = th0, .phi0 = ph0, .phidot0 = pd};
  cdyn_ref_sph *r = make_sph(&p);
  double tmin, tmax;
  ck_assert_int_eq(cdyn_ref_sph_turning(r, &tmin, &tmax), CDYN_OK);
  ck_assert_double_eq_tol(tmin, th0, 1e-7);
  ck_assert_double_eq_tol(tmax, th0, 1e-7);
  double worst_th = 0, worst_ph = 0, worst_y = 0;
  for (int j = 1; j <= 100; j++) {
    const double t = 0.1 * j;
    double th, ph, thd, phd, x[3];
    ck_assert_int_eq(cdyn_ref_sph_advance(r, t), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_sph_angles(r, &th, &ph, &thd, &phd), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_sph_position(r, x), CDYN_OK);
    worst_th = fmax(worst_th, fabs(th - th0));
    worst_ph = fmax(worst_ph, fabs(ph - (ph0 + pd * t)));
    worst_y = fmax(worst_y, fabs(x[1] - (0.5 - L * cos(th0))));
    ck_assert_double_eq_tol(phd, pd, 1e-12 * pd);
  }
  printf("conical pendulum 10 s: max |theta - theta0| %.3e, |phi - (phi0 + "
         "phi' t)| %.3e, |y - y0| %.3e\n", worst_th, worst_ph, worst_y);
  ck_assert_msg(worst_th <= 1e-12, "theta drifted by %.3e", worst_th);
  ck_assert_msg(worst_ph <= 1e-11, "phi drifted by %.3e", worst_ph);
  ck_assert_msg(worst_y <= 1e-12, "height drifted by %.3e", worst_y);
  cdyn_ref_sph_free(r);
}
END_TEST

/*
 * p_phi = 0 is the planar pendulum in the vertical plane phi0: against the
 * bead (same equation, separate code, both at 1e-13) and the exact
 * solution, to the 1e-10 of test_bead_exact_vs_ode.  A pendulum started on
 * the axis with phi' != 0 has p_phi = 0 too and must stay in its plane.
 */
START_TEST(test_sph_planar)
{
  const double L = 1.3, g = g_earth, pv[3] = {0.4, -0.7, 0.25};
  const double th0 = 2.5, ph0 = 0.7;
  const cdyn_ref_sph_params p = {.L = L, .g = g,
                                 .pivot = {pv[0], pv[1], pv[2]},
                                 .theta0 = th0, .phi0 = ph0};
  const cdyn_ref_bead_params bp = {.R = L, .g = g, .centre = {pv[0], pv[1]},
                                   .theta0 = th0};
  cdyn_ref_sph *r = make_sph(&p);
  cdyn_ref_bead *b = make_bead(&bp);
  double tmin, tmax;
  ck_assert_int_eq(cdyn_ref_sph_turning(r, &tmin, &tmax), CDYN_OK);
  ck_assert_double_eq(tmin, 0.0);
  ck_assert_double_eq_tol(tmax, th0, 1e-14);
  double worst_b = 0, worst_e = 0;
  for (int j = 1; j <= 100; j++) {
    const double t = 0.1 * j;
    double x[3], v[3], xb[2], vb[2], th, the;
    ck_assert_int_eq(cdyn_ref_sph_advance(r, t), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_bead_advance(b, t), CDYN_OK);
    sph_state(r, x, v);
    ck_assert_int_eq(cdyn_ref_bead_position(b, xb), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_bead_velocity(b, vb), CDYN_OK);
    const double want[6] = {pv[0] + (xb[0] - pv[0]) * cos(ph0), xb[1],
                            pv[2] + (xb[0] - pv[0]) * sin(ph0),
                            vb[0] * cos(ph0), vb[1], vb[0] * sin(ph0)};
    for (int d = 0; d < 3; d++) {
      worst_b = fmax(worst_b, fabs(x[d] - want[d]) / L);
      worst_b = fmax(worst_b, fabs(v[d] - want[3 + d]) / (L * sqrt(g / L)));
    }
    ck_assert_int_eq(cdyn_ref_sph_angles(r, &th, NULL, NULL, NULL), CDYN_OK);
    exact_ok(L, g, th0, t, &the, NULL);
    worst_e = fmax(worst_e, fabs(th - the));
  }
  printf("planar spherical pendulum vs bead: %.3e relative, vs exact %.3e "
         "rad\n", worst_b, worst_e);
  ck_assert_msg(worst_b <= 1e-10, "differs from the bead by %.3e", worst_b);
  ck_assert_msg(worst_e <= 1e-10, "differs from the exact motion by %.3e",
                worst_e);
  cdyn_ref_sph_free(r);
  cdyn_ref_bead_free(b);

  /* On the axis with phi' != 0: p_phi = 0, motion in the plane phi0. */
  const cdyn_ref_sph_params pa = {.L = L, .g = g, .theta0 = 0.0, .phi0 = ph0,
                                  .thetadot0 = 3.0, .phidot0 = 5.0};
  r = make_sph(&pa);
  for (int j = 1; j <= 20; j++) {
    double x[3], phd;
    ck_assert_int_eq(cdyn_ref_sph_advance(r, 0.1 * j), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_sph_position(r, x), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_sph_angles(r, NULL, NULL, NULL, &phd), CDYN_OK);
    ck_assert_double_eq(phd, 0.0);
    ck_assert_double_eq_tol(-x[0] * sin(ph0) + x[2] * cos(ph0), 0.0, 1e-15);
  }
  cdyn_ref_sph_free(r);
}
END_TEST

/*
 * Accelerations from a Cartesian formulation sharing nothing with the
 * angles: a point mass on a rod, a = -g e_y - mu d with d = x - p and the
 * rod tension per mass and length mu = (|v|^2 - g d_y) / L^2 (from
 * d/dt (d . v) = 0).  The integrator's accelerations come from Richardson
 * differences of velocities (see richardson() above; 1e-8 relative).
 * Checked at two states, one 3.7 s into the motion.
 */
START_TEST(test_sph_against_cartesian)
{
  const double L = 0.87, g = g_earth, pv[3] = {1.1, 0.2, -0.6};
  const cdyn_ref_sph_params p = {.L = L, .g = g,
                                 .pivot = {pv[0], pv[1], pv[2]},
                                 .theta0 = 2.2, .phi0 = 1.3,
                                 .thetadot0 = -1.7, .phidot0 = 2.9};
  cdyn_ref_sph *r = make_sph(&p);
  const double delta = 1e-6, starts[2] = {0.0, 3.7};
  for (int c = 0; c < 2; c++) {
    double x[3], v0[3], v1[3], v2[3], want[3];
    ck_assert_int_eq(cdyn_ref_sph_advance(r, starts[c]), CDYN_OK);
    sph_state(r, x, v0);
    const double d[3] = {x[0] - pv[0], x[1] - pv[1], x[2] - pv[2]};
    const double mu =
      (v0[0] * v0[0] + v0[1] * v0[1] + v0[2] * v0[2] - g * d[1]) / (L * L);
    double amax = 0;
    for (int k = 0; k < 3; k++) {
      want[k] = -mu * d[k] - (k == 1 ? g : 0.0);
      amax = fmax(amax, fabs(want[k]));
    }
    ck_assert_int_eq(cdyn_ref_sph_advance(r, starts[c] + delta), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_sph_velocity(r, v1), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_sph_advance(r, starts[c] + 2 * delta), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_sph_velocity(r, v2), CDYN_OK);
    double worst = 0;
    for (int k = 0; k < 3; k++)
      worst = fmax(worst,
                   fabs(richardson(v0[k], v1[k], v2[k], delta) - want[k]) /
                     amax);
    printf("spherical accelerations vs Cartesian at t = %g: %.3e relative\n",
           starts[c], worst);
    ck_assert_msg(worst <= 1e-8, "accelerations differ by %.3e", worst);
  }
  cdyn_ref_sph_free(r);
}
END_TEST

/*
 * The polar angle oscillates between the two roots u1 < u2 in [-1, 1] of
 *   f(u) = (eps + w0^2 u)(1 - u^2) - p_phi^2 / 2 = w0^2 (u - u3)(u - u1)(u2 - u)
 * (u = cos theta, u3 < -1, eps the energy per m L^2), with period
 *   T = 2 sqrt(2) K(k) / (w0 sqrt(u2 - u3)),  k^2 = (u2 - u1) / (u2 - u3),
 * from (u')^2 = 2 f(u) and the standard reduction of
 * int du / sqrt((u - u3)(u - u1)(u2 - u)) (Byrd & Friedman 233.00).  The
 * roots come from GSL's cubic solver.  The reference's band must match
 * acos(u2), acos(u1) (bisection to adjacent doubles, and acos'
 * conditioning of ~1 / sin theta: 1e-11), and the times between
 * successive zeros of theta', located as in measure_period() by a Hermite
 * cubic in (theta', theta''), must be T / 2 to the 1e-8 used there.
 */
START_TEST(test_sph_theta_period)
{
  const double L = 1.25, g = g_earth, w2 = g / L;
  const double th0 = 1.0, thd0 = 0.6, phd0 = 1.8;
  const cdyn_ref_sph_params p = {.L = L, .g = g, .theta0 = th0, .phi0 = 0.2,
                                 .thetadot0 = thd0, .phidot0 = phd0};
  cdyn_ref_sph *r = make_sph(&p);
  const double s0 = sin(th0), pp = s0 * s0 * phd0;
  const double eps = 0.5 * thd0 * thd0 + 0.5 * pp * pp / (s0 * s0) -
                     w2 * cos(th0);
  double u3, u1, u2;
  ck_assert_int_eq(gsl_poly_solve_cubic(eps / w2, -1.0,
                                        -(eps - 0.5 * pp * pp) / w2, &u3, &u1,
                                        &u2), 3);
  ck_assert(u3 < -1 && -1 < u1 && u1 < u2 && u2 < 1);
  double tmin, tmax;
  ck_assert_int_eq(cdyn_ref_sph_turning(r, &tmin, &tmax), CDYN_OK);
  printf("spherical band: reference [%.15f, %.15f], cubic roots [%.15f, "
         "%.15f]\n", tmin, tmax, acos(u2), acos(u1));
  ck_assert_double_eq_tol(tmin, acos(u2), 1e-11);
  ck_assert_double_eq_tol(tmax, acos(u1), 1e-11);

  const double k = sqrt((u2 - u1) / (u2 - u3));
  const double T = 2 * M_SQRT2 * gsl_sf_ellint_Kcomp(k, GSL_PREC_DOUBLE) /
                   (sqrt(w2) * sqrt(u2 - u3));
  const double h = T / 1000;
  double ta = 0, da = thd0, aa, first = 0, last = 0;
  double th = th0;
  aa = pp * pp * cos(th) / pow(sin(th), 3) - w2 * sin(th);
  int found = 0;
  const int want = 11;
  for (long j = 1; found < want; j++) {
    ck_assert_int_lt(j, 1000L * 10);
    const double tb = j * h;
    double db, ab;
    ck_assert_int_eq(cdyn_ref_sph_advance(r, tb), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_sph_angles(r, &th, NULL, &db, NULL), CDYN_OK);
    ab = pp * pp * cos(th) / pow(sin(th), 3) - w2 * sin(th);
    if ((da > 0) != (db > 0)) {
      const double sc = hermite_root(da, aa, db, ab, h);
      const double tc = ta + sc * h;
      if (found == 0)
        first = tc;
      last = tc;
      found++;
    }
    ta = tb;
    da = db;
    aa = ab;
  }
  const double measured = 2 * (last - first) / (want - 1);
  printf("spherical theta period: measured %.15g, elliptic formula %.15g, "
         "relative difference %.3e\n", measured, T, fabs(measured - T) / T);
  ck_assert_msg(fabs(measured - T) <= 1e-8 * T, "period %.15g vs %.15g",
                measured, T);
  cdyn_ref_sph_free(r);
}
END_TEST

/*
 * (-theta, phi) is the same point as (theta, phi + pi) and the equations
 * respect that, so both starts must give the same motion, to the two
 * integrations' error.
 */
START_TEST(test_sph_negative_theta)
{
  const cdyn_ref_sph_params pa = {.L = 1.0, .g = g_earth, .theta0 = -0.9,
                                  .phi0 = 0.5, .thetadot0 = 0.4,
                                  .phidot0 = 1.6};
  cdyn_ref_sph_params pb = pa;
  pb.theta0 = 0.9;
  pb.phi0 = 0.5 + M_PI;
  pb.thetadot0 = -0.4;
  cdyn_ref_sph *a = make_sph(&pa), *b = make_sph(&pb);
  double worst = 0;
  for (int j = 0; j <= 50; j++) {
    double xa[3], xb[3], va[3], vb[3];
    ck_assert_int_eq(cdyn_ref_sph_advance(a, 0.1 * j), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_sph_advance(b, 0.1 * j), CDYN_OK);
    sph_state(a, xa, va);
    sph_state(b, xb, vb);
    for (int d = 0; d < 3; d++)
      worst = fmax(worst, fmax(fabs(xa[d] - xb[d]), fabs(va[d] - vb[d])));
  }
  printf("spherical (-theta, phi) vs (theta, phi + pi): %.3e\n", worst);
  ck_assert_msg(worst <= 1e-10, "differ by %.3e", worst);
  cdyn_ref_sph_free(a);
  cdyn_ref_sph_free(b);
}
END_TEST

START_TEST(test_sph_errors)
{
  const cdyn_ref_sph_params good = {.L = 1.0, .g = g_earth, .theta0 = 0.5,
                                    .phidot0 = 1.0};
  cdyn_ref_sph *r = NULL;
  double a, buf[3], e;


  TU_EXPECT_EINVAL(cdyn_ref_sph_new(NULL, &good));
  r = (cdyn_ref_sph *)&a;
  TU_EXPECT_EINVAL(cdyn_ref_sph_new(&r, NULL));
  ck_assert_ptr_null(r);
  for (int c = 0; c < 18; c++) {
    cdyn_ref_sph_params p = good;
    switch (c) {
    case 0: p.L = 0; break;
    case 1: p.L = NAN; break;
    case 2: p.g = -1; break;
    case 3: p.g = INFINITY; break;
    case 4: p.pivot[2] = NAN; break;
    case 5: p.theta0 = INFINITY; break;
    case 6: p.phi0 = NAN; break;
    case 7: p.thetadot0 = NAN; break;
    case 8: p.phidot0 = -INFINITY; break;
    case 9: p.abstol = 1e-3; break;
    case 10: p.reltol = -1; break;
    case 11: p.L = 1e-300; p.g = 1e300; break;
    /* Motions that come too close to a pole with p_phi != 0: */
    case 12: p.theta0 = 0.9; p.thetadot0 = 4.0; p.phidot0 = 1e-4; break;
    case 13: p.theta0 = 1e-4; p.phidot0 = 1.0; break;
    case 14: p.theta0 = M_PI; p.phidot0 = 1.0; break;
    case 15: p.theta0 = 2.9; p.thetadot0 = -6.0; p.phidot0 = 1e-3; break;
    case 16: p.theta0 = 1.2; p.phidot0 = 1e-5; p.thetadot0 = 0; break;
    case 17: p.phidot0 = 1e200; break; /* the energy overflows */
    }
    r = (cdyn_ref_sph *)&a;
    cdyn_error_clear();
    ck_assert_msg(cdyn_ref_sph_new(&r, &p) == CDYN_EINVAL, "mutation %d", c);
    ck_assert_msg(r == NULL, "mutation %d: *out not NULL", c);
    ck_assert_msg(cdyn_errmsg()[0] != '\0', "mutation %d: no message", c);
  }

  r = make_sph(&good);
  cdyn_ref_sph_free(NULL);
  ck_assert(isnan(cdyn_ref_sph_time(NULL)));
  TU_EXPECT_EINVAL(cdyn_ref_sph_advance(NULL, 1.0));
  TU_EXPECT_EINVAL(cdyn_ref_sph_advance(r, INFINITY));
  TU_EXPECT_EINVAL(cdyn_ref_sph_advance(r, -1.0));
  TU_EXPECT_EINVAL(cdyn_ref_sph_angles(NULL, &a, &a, &a, &a));
  TU_EXPECT_EINVAL(cdyn_ref_sph_turning(NULL, &a, &a));
  TU_EXPECT_EINVAL(cdyn_ref_sph_position(NULL, buf));
  TU_EXPECT_EINVAL(cdyn_ref_sph_position(r, NULL));
  TU_EXPECT_EINVAL(cdyn_ref_sph_velocity(NULL, buf));
  TU_EXPECT_EINVAL(cdyn_ref_sph_velocity(r, NULL));
  TU_EXPECT_EINVAL(cdyn_ref_sph_energy(NULL, &e));
  TU_EXPECT_EINVAL(cdyn_ref_sph_energy(r, NULL));
  ck_assert_int_eq(cdyn_ref_sph_angles(r, NULL, NULL, NULL, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_sph_turning(r, NULL, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_sph_advance(r, 0.3), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_ref_sph_advance(r, 0.2));
  ck_assert_double_eq(cdyn_ref_sph_time(r), 0.3);
  cdyn_ref_sph_free(r);

  /*
   * A speed whose square overflows is reported by the energy, and an
   * angle that overflows by advance, which leaves the state as it was.
   */
  cdyn_ref_sph_params big = good;
  big.phidot0 = 0;
  big.thetadot0 = 1e308;
  r = make_sph(&big);
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_ref_sph_energy(r, &e), CDYN_ENONFINITE);
  ck_assert_str_ne(cdyn_errmsg(), "");
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_ref_sph_advance(r, 10.0), CDYN_ENONFINITE);
  ck_assert_str_ne(cdyn_errmsg(), "");
  ck_assert_double_eq(cdyn_ref_sph_time(r), 0.0);
  ck_assert_int_eq(cdyn_ref_sph_angles(r, &a, NULL, &e, NULL), CDYN_OK);
  ck_assert_double_eq(a, 0.5);
  ck_assert_double_eq(e, 1e308);
  cdyn_ref_sph_free(r);
}
END_TEST

/* ======================================================================
 * reference/ode.c: the driver contract the three references share.
 * ====================================================================== */

/* The last message names `who` and mentions `what`. */
static void expect_message(const char *who, const char *what)
{
  const char *msg = cdyn_errmsg();
  ck_assert_msg(strstr(msg, who) != NULL, "\"%s\" does not name %s", msg,
                who);
  ck_assert_msg(strstr(msg, what) != NULL, "\"%s\" does not mention %s",
                msg, what);
}

/*
 * Each reference hands its name to the shared driver, so a failure must
 * be reported under that reference's own function, and must leave the
 * time and state exactly as they were.  The bead and the planar spherical
 * pendulum start at theta' = 1e306, so theta = 0.5 + 1e306 t passes
 * DBL_MAX near t = 180: the driver takes successful steps first and fails
 * part-way, which is where the state must come back from the backup (GSL
 * itself only undoes the failing step).  Asking again must fail the same
 * way, at the same time to the digit, which it does only if the failure
 * restarted the step-size control from the first trial step as a new
 * object starts.  The nlink fixture with a link turning at 1e200 rad/s
 * overflows its centrifugal force w^2 at once, which nlink's own failure
 * description reports.  Bad tolerances are refused under the reference's
 * own _new.
 */
START_TEST(test_ode_shared_contract)
{
  char first[512];

  const cdyn_ref_bead_params bp = {.R = 1.0, .g = g_earth, .theta0 = 0.5,
                                   .omega0 = 1e306};
  cdyn_ref_bead *b = make_bead(&bp);
  for (int k = 0; k < 2; k++) {
    double th, om;
    cdyn_error_clear();
    ck_assert_int_eq(cdyn_ref_bead_advance(b, 1000.0), CDYN_ENONFINITE);
    expect_message("cdyn_ref_bead_advance", "non-finite");
    if (k == 0)
      snprintf(first, sizeof first, "%s", cdyn_errmsg());
    else
      ck_assert_str_eq(cdyn_errmsg(), first);
    ck_assert_double_eq(cdyn_ref_bead_time(b), 0.0);
    ck_assert_int_eq(cdyn_ref_bead_angle(b, &th, &om), CDYN_OK);
    ck_assert_double_eq(th, 0.5);
    ck_assert_double_eq(om, 1e306);
  }
  cdyn_ref_bead_free(b);

  const cdyn_ref_sph_params sp = {.L = 1.0, .g = g_earth, .theta0 = 0.5,
                                  .phi0 = 0.25, .thetadot0 = 1e306};
  cdyn_ref_sph *q = make_sph(&sp);
  for (int k = 0; k < 2; k++) {
    double th, ph, td;
    cdyn_error_clear();
    ck_assert_int_eq(cdyn_ref_sph_advance(q, 1000.0), CDYN_ENONFINITE);
    expect_message("cdyn_ref_sph_advance", "non-finite");
    if (k == 0)
      snprintf(first, sizeof first, "%s", cdyn_errmsg());
    else
      ck_assert_str_eq(cdyn_errmsg(), first);
    ck_assert_double_eq(cdyn_ref_sph_time(q), 0.0);
    ck_assert_int_eq(cdyn_ref_sph_angles(q, &th, &ph, &td, NULL), CDYN_OK);
    ck_assert_double_eq(th, 0.5);
    ck_assert_double_eq(ph, 0.25);
    ck_assert_double_eq(td, 1e306);
  }
  cdyn_ref_sph_free(q);

  fixture f;
  fixture_init(&f);
  f.om[1] = 1e200;
  cdyn_ref_nlink *r = make(&f.p);
  for (int k = 0; k < 2; k++) {
    double om[3];
    cdyn_error_clear();
    ck_assert_int_eq(cdyn_ref_nlink_advance(r, 0.1), CDYN_ENONFINITE);
    expect_message("cdyn_ref_nlink_advance", "overflowed");
    ck_assert_double_eq(cdyn_ref_nlink_time(r), 0.0);
    ck_assert_int_eq(cdyn_ref_nlink_angles(r, NULL, om), CDYN_OK);
    ck_assert_double_eq(om[1], 1e200);
  }
  cdyn_ref_nlink_free(r);

  cdyn_ref_bead_params bbad = bp;
  bbad.abstol = 2e-6;
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_ref_bead_new(&b, &bbad), CDYN_EINVAL);
  expect_message("cdyn_ref_bead_new", "abstol");
  cdyn_ref_sph_params sbad = sp;
  sbad.reltol = -1e-13;
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_ref_sph_new(&q, &sbad), CDYN_EINVAL);
  expect_message("cdyn_ref_sph_new", "reltol");
  fixture_init(&f);
  f.p.reltol = NAN;
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_ref_nlink_new(&r, &f.p), CDYN_EINVAL);
  expect_message("cdyn_ref_nlink_new", "reltol");
}
END_TEST

/* ======================================================================
 * cdyn_system_forces and reference/kkt.c.
 * ====================================================================== */

#define U_ROUND (DBL_EPSILON / 2) /* unit roundoff, 2^-53 */

static int add_force(void *ctx, size_t n, double t, const double *q,
                     const double *v, double *f)
{
  (void)ctx;
  for (size_t i = 0; i < n; i++)
    for (int d = 0; d < 3; d++)
      f[3 * i + d] += 0.25 * (double)(i + 1) * (d - 1.3) * t +
                      0.5 * q[3 * i + d] - 0.125 * v[3 * i + d];
  return 0;
}

static int fail_force(void *ctx, size_t n, double t, const double *q,
                      const double *v, double *f)
{
  (void)ctx; (void)n; (void)t; (void)q; (void)v; (void)f;
  return 3;
}

/*
 * cdyn_system_forces against forces written out by hand (gravity, one
 * spring with damping, a callback), and against the stepper: one explicit
 * Euler step of a system without constraints gives v+ = v + h W F exactly
 * up to the rounding of that update, which is what makes "the same code
 * as the stepper" checkable.
 */
START_TEST(test_system_forces)
{
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 3), CDYN_OK);
  const double g[3] = {0.3, -9.81, 0.2};
  const double mass[3] = {1.7, 0.45, 2.3};
  const double x[3][3] = {{0.1, 0.2, -0.3}, {1.0, -0.4, 0.5},
                          {-0.6, 0.9, 0.05}};
  const double v[3][3] = {{0.3, -0.2, 0.9}, {-1.1, 0.4, 0.25},
                          {0.7, 0.15, -0.45}};
  const double k = 40.0, c = 0.7, rest = 0.8, t = 1.375;
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  for (size_t i = 0; i < 3; i++) {
    ck_assert_int_eq(cdyn_system_set_mass(sys, i, mass[i]), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, i, x[i]), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, i, v[i]), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_set_time(sys, t), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_spring(sys, 0, 1, k, c, rest, NULL),
                   CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_force_callback(sys, add_force, NULL),
                   CDYN_OK);

  double want[9];
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 3; d++)
      want[3 * i + d] = mass[i] * g[d] +
                        0.25 * (i + 1) * (d - 1.3) * t + 0.5 * x[i][d] -
                        0.125 * v[i][d];
  double dd[3], r = 0, rate = 0;
  for (int d = 0; d < 3; d++) {
    dd[d] = x[0][d] - x[1][d];
    r += dd[d] * dd[d];
  }
  r = sqrt(r);
  for (int d = 0; d < 3; d++)
    rate += dd[d] / r * (v[0][d] - v[1][d]);
  for (int d = 0; d < 3; d++) {
    const double f = -(k * (r - rest) + c * rate) * dd[d] / r;
    want[d] += f;
    want[3 + d] -= f;
  }
  double F[9];
  ck_assert_int_eq(cdyn_system_forces(sys, F), CDYN_OK);
  for (int j = 0; j < 9; j++)
    ck_assert_double_eq_tol(F[j], want[j], 1e-13 * (1 + fabs(want[j])));

  /* The stepper's acceleration is W F: one explicit Euler step. */
  const double h = 0x1p-10;
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "baumgarte"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "euler"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
  const double *vp = cdyn_system_velocities(sys);
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 3; d++) {
      const double a = (vp[3 * i + d] - v[i][d]) / h;
      /* v+ = fl(v + h a): error u |v+|, divided by h. */
      ck_assert_double_eq_tol(a, F[3 * i + d] / mass[i],
                              2 * U_ROUND * (fabs(vp[3 * i + d]) + 1) / h);
    }
  cdyn_stepper_free(st);

  /* Errors. */
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_system_forces(NULL, F), CDYN_EINVAL);
  ck_assert_str_ne(cdyn_errmsg(), "");
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_system_forces(sys, NULL), CDYN_EINVAL);
  ck_assert_str_ne(cdyn_errmsg(), "");
  ck_assert_int_eq(cdyn_system_set_force_callback(sys, fail_force, NULL),
                   CDYN_OK);
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_system_forces(sys, F), CDYN_ECALLBACK);
  ck_assert_str_ne(cdyn_errmsg(), "");
  ck_assert_int_eq(cdyn_system_set_force_callback(sys, NULL, NULL), CDYN_OK);
  double x0[3];
  ck_assert_int_eq(cdyn_system_get_particle(sys, 0, NULL, x0, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 1, x0), CDYN_OK);
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_system_forces(sys, F), CDYN_EDEGENERATE);
  ck_assert_str_ne(cdyn_errmsg(), "");
  cdyn_system_free(sys);
}
END_TEST

static void kkt_ok(const cdyn_system *sys, double alpha, double beta,
                   double *qdd, double *lambda, cdyn_ref_kkt_info *info)
{
  const int s = cdyn_ref_kkt_accel_info(sys, alpha, beta, qdd, lambda, info);
  ck_assert_msg(s == CDYN_OK, "cdyn_ref_kkt_accel: %d (%s)", s,
                cdyn_errmsg());
}

/*
 * A single pendulum: particle 0 (mass M0) pinned at P by a pin, particle 1
 * (mass m) at P + r e_r with e_r = (sin th, -cos th, 0), moving with
 * v = v_r e_r + v_t e_th (e_th = (cos th, sin th, 0)), linked to 0 by a
 * rod of length L = r - delta.  With the link's rows Phi = r - L = delta,
 * J v = v_r, jdotv = v_t^2 / r, and a_0 = 0 from the pin, the link row
 * asks e_r . a_1 = -v_t^2 / r - 2 alpha v_r - beta^2 delta, and
 * m a_1 = m g - lambda e_r gives
 *
 *   lambda = m (g cos th + v_t^2 / r + 2 alpha v_r + beta^2 delta),
 *   a_1    = g - (lambda / m) e_r,
 *   lambda_pin = M0 g + lambda e_r        (M0 a_0 + lambda_pin - lambda e_r
 *                                          = M0 g, the link pulling 0 down)
 *
 * At rest and on the rod this is the textbook tension m g cos th.  The
 * tolerance is the reference's rounding, dim u cond_kkt times the size of
 * the solution, plus a few ulp for the closed form itself.
 */
START_TEST(test_kkt_pendulum_closed_form)
{
  const double G3[3] = {0, -g_earth, 0}, P[3] = {0.2, 0.5, -0.3};
  const double M0 = 3.7, m = 1.45, L = 0.83;
  const struct { double th, vr, vt, delta, alpha, beta; } cs[3] = {
    {0.7, 0, 0, 0, 0, 0},
    {2.3, 0.35, 1.9, 0.013, 3.1, 4.7},
    {-1.2, -0.8, -2.6, -0.021, 0, 6.2}};
  for (int c = 0; c < 3; c++) {
    const double th = cs[c].th, r = L + cs[c].delta;
    const double er[3] = {sin(th), -cos(th), 0}, et[3] = {cos(th), sin(th), 0};
    double x1[3], v1[3];
    for (int d = 0; d < 3; d++) {
      x1[d] = P[d] + r * er[d];
      v1[d] = cs[c].vr * er[d] + cs[c].vt * et[d];
    }
    cdyn_system *sys;
    ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_gravity(sys, G3), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, 0, M0), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, 1, m), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, 0, P), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, 1, x1), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, 1, v1), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_pin(sys, 0, P, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, L, NULL), CDYN_OK);

    const double lam = m * (g_earth * cos(th) + cs[c].vt * cs[c].vt / r +
                            2 * cs[c].alpha * cs[c].vr +
                            cs[c].beta * cs[c].beta * cs[c].delta);
    double want_a[6] = {0, 0, 0}, want_l[4];
    for (int d = 0; d < 3; d++) {
      want_a[3 + d] = G3[d] - lam / m * er[d];
      want_l[d] = M0 * G3[d] + lam * er[d];
    }
    want_l[3] = lam;

    double qdd[6], lambda[4];
    cdyn_ref_kkt_info info;
    kkt_ok(sys, cs[c].alpha, cs[c].beta, qdd, lambda, &info);
    ck_assert_uint_eq(info.dim, 10);
    ck_assert_uint_eq(info.rank, 10);
    ck_assert_uint_eq(info.rank_a, 4);
    double scale = 0;
    for (int j = 0; j < 4; j++)
      scale = fmax(scale, fabs(want_l[j]));
    for (int j = 0; j < 6; j++)
      scale = fmax(scale, fabs(want_a[j]) * fmax(M0, m));
    const double tol = (info.dim * info.cond_kkt + 8) * U_ROUND * scale;
    double worst = 0;
    for (int j = 0; j < 4; j++)
      worst = fmax(worst, fabs(lambda[j] - want_l[j]));
    for (int j = 0; j < 6; j++)
      worst = fmax(worst, fabs(qdd[j] - want_a[j]) * (j < 3 ? M0 : m));
    printf("KKT single pendulum case %d: lambda = %.15g (closed form "
           "%.15g); max error %.3e, bound %.3e (cond %.3g)\n",
           c, lambda[3], lam, worst, tol, info.cond_kkt);
    ck_assert_msg(worst <= tol, "case %d: %.3e > %.3e", c, worst, tol);
    if (c == 0)
      ck_assert_double_eq_tol(lambda[3], m * g_earth * cos(th), tol);
    cdyn_system_free(sys);
  }
}
END_TEST

/*
 * A random planar-ish chain (tests/testutil.h) of `links` links: masses,
 * positions off the constraints by up to 0.02 in every coordinate (pin
 * included, so that alpha and beta matter), velocities in 3-D.
 */
static cdyn_system *random_chain(size_t links, uint64_t seed)
{
  uint64_t st = seed;
  double joint[16];
  ck_assert_uint_le(links, 16);
  for (size_t k = 0; k < links; k++)
    joint[k] = tu_uniform(&st, -1.2, 1.2);
  cdyn_system *sys;
  ck_assert_int_eq(tu_chain(&sys, links, 0.9, 1.0, joint), CDYN_OK);
  for (size_t i = 0; i <= links; i++) {
    double x[3], v[3];
    ck_assert_int_eq(cdyn_system_get_particle(sys, i, NULL, x, NULL), CDYN_OK);
    for (int d = 0; d < 3; d++) {
      x[d] += tu_uniform(&st, -0.02, 0.02);
      v[d] = tu_uniform(&st, -1.5, 1.5);
    }
    ck_assert_int_eq(cdyn_system_set_position(sys, i, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, i, v), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, i, tu_uniform(&st, 0.4, 2.6)),
                     CDYN_OK);
  }
  return sys;
}

/*
 * The library's A = J W J^T path against the dense KKT reference.  One
 * step of "baumgarte" over explicit Euler (v+ = v + h a(q, v)) recovers
 * the library's acceleration as a = (v+ - v) / h, and
 * cdyn_stepper_multipliers its lambda; both are compared with the
 * reference at the state before the step, for 2, 5 and 10 links, with and
 * without stabilisation (alpha = 3.7, beta = 5.3 against 0, 0), and with
 * both linear solvers.
 *
 * Tolerance, from rounding and conditioning.  Write y = (M^(1/2) a, lambda),
 * the unknown of the reference's scaled system; with masses of order one
 * (0.4 to 2.6 here) its two parts are commensurate.  A backward-stable
 * solve of a system with condition number kappa has relative error of
 * order N u kappa (N the system size, u = 2^-53): the reference's dgelsd
 * on the scaled KKT matrix (kappa = cond_kkt), the library's Cholesky on A
 * (kappa = cond_a, the input error of forming A and its right-hand side
 * being of the same order).  So both lie within
 *   tol_y = dim u (cond_kkt + cond_a) S,   S = |lambda| + |M^(1/2) a| + |M^(-1/2) F|
 * of the exact values (S also bounds the right-hand side's size).  PCG
 * stops at a relative residual res (the library reports it); then
 * |dlambda| <= cond_a res |lambda|, added to tol_y.  Recovering a from the
 * Euler step adds, per component, the rounding of v + h a: h = 2^-10 makes
 * h a exact, so the error is at most u |v+| / h, twice for the
 * subtraction.  A dropped beta^2 Phi or 2 alpha J v term would change
 * lambda by O(beta^2 |Phi|) ~ 0.5, many orders above these bounds.
 */
START_TEST(test_kkt_against_library)
{
  const size_t sizes[3] = {2, 5, 10};
  const char *solvers[2] = {"cholesky", "pcg"};
  const double ab[2][2] = {{0.0, 0.0}, {3.7, 5.3}};
  const double h = 0x1p-10;
  for (int is = 0; is < 3; is++)
    for (int ia = 0; ia < 2; ia++)
      for (int isol = 0; isol < 2; isol++) {
        const size_t links = sizes[is], n = links + 1;
        cdyn_system *sys = random_chain(links, 0x5eed0000u + 17 * is);
        const size_t m = cdyn_system_row_count(sys), n3 = 3 * n;
        double q0[3 * 11], v0[3 * 11], F[3 * 11], qdd[3 * 11], lam[13];
        double lam_lib[13], mass[11];
        ck_assert_uint_le(n, 11);
        ck_assert_uint_le(m, 13);
        ck_assert_int_eq(cdyn_system_get_state(sys, q0, v0), CDYN_OK);
        ck_assert_int_eq(cdyn_system_forces(sys, F), CDYN_OK);
        for (size_t i = 0; i < n; i++)
          ck_assert_int_eq(cdyn_system_get_particle(sys, i, &mass[i], NULL,
                                                    NULL), CDYN_OK);
        cdyn_ref_kkt_info info;
        kkt_ok(sys, ab[ia][0], ab[ia][1], qdd, lam, &info);
        ck_assert_uint_eq(info.rank, n3 + m);
        ck_assert_uint_eq(info.rank_a, m);

        cdyn_stepper *st;
        char buf[32];
        ck_assert_int_eq(cdyn_stepper_new(&st, sys, "baumgarte"), CDYN_OK);
        ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "euler"),
                         CDYN_OK);
        snprintf(buf, sizeof buf, "%.17g", ab[ia][0]);
        ck_assert_int_eq(cdyn_stepper_set(st, "alpha", buf), CDYN_OK);
        snprintf(buf, sizeof buf, "%.17g", ab[ia][1]);
        ck_assert_int_eq(cdyn_stepper_set(st, "beta", buf), CDYN_OK);
        ck_assert_int_eq(cdyn_stepper_set(st, "solver", solvers[isol]),
                         CDYN_OK);
        const int rc = cdyn_stepper_step(st, h);
        ck_assert_msg(rc == CDYN_OK, "step: %d (%s)", rc, cdyn_errmsg());
        ck_assert_int_eq(cdyn_stepper_multipliers(st, lam_lib), CDYN_OK);
        cdyn_stats stats;
        ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
        const double *vp = cdyn_system_velocities(sys);

        double s_l = 0, s_a = 0, s_f = 0;
        for (size_t j = 0; j < m; j++)
          s_l += lam[j] * lam[j];
        for (size_t k = 0; k < n3; k++) {
          s_a += mass[k / 3] * qdd[k] * qdd[k];
          s_f += F[k] * F[k] / mass[k / 3];
        }
        const double S = sqrt(s_l) + sqrt(s_a) + sqrt(s_f);
        double tol_y = info.dim * U_ROUND * (info.cond_kkt + info.cond_a) * S;
        if (isol == 1)
          tol_y += info.cond_a * stats.last_residual * S;
        double err_l = 0, err_a = 0, ratio = 0;
        for (size_t j = 0; j < m; j++) {
          err_l = fmax(err_l, fabs(lam_lib[j] - lam[j]));
          ratio = fmax(ratio, fabs(lam_lib[j] - lam[j]) / tol_y);
        }
        for (size_t k = 0; k < n3; k++) {
          const double a_lib = (vp[k] - v0[k]) / h;
          const double sm = sqrt(mass[k / 3]);
          const double tol_k = tol_y + sm * 2 * U_ROUND * fabs(vp[k]) / h;
          err_a = fmax(err_a, sm * fabs(a_lib - qdd[k]));
          ratio = fmax(ratio, sm * fabs(a_lib - qdd[k]) / tol_k);
        }
        printf("KKT vs library, %2zu links, alpha %.1f beta %.1f, %-8s: "
               "|dlambda| %.2e, |M^1/2 da| %.2e, bound %.2e (cond_kkt "
               "%.3g, cond_a %.3g, res %.1e), worst error/bound %.3f\n",
               links, ab[ia][0], ab[ia][1], solvers[isol], err_l, err_a,
               tol_y, info.cond_kkt, info.cond_a, stats.last_residual, ratio);
        ck_assert_msg(ratio <= 1.0, "error exceeds the bound by %.3g", ratio);
        cdyn_stepper_free(st);
        cdyn_system_free(sys);
      }
}
END_TEST

/*
 * A rod doubled by two identical distance constraints: the rows are
 * dependent but consistent (equal Phi, J, and right-hand side), so the
 * constraint force is determined and the minimum-norm multipliers split
 * the single-rod tension of test_kkt_pendulum_closed_form equally.  The
 * reference (dgelsd) must report rank dim - 1 and give lambda / 2 twice;
 * the library's cholesky solver must take its least-squares path to the
 * same minimum-norm answer (see reference/kkt.c for why they coincide).
 * Tolerances as above, with the rank-deficient condition numbers taken over
 * the singular values kept; the library's eigen-decomposition is backward
 * stable as Cholesky is.
 */
START_TEST(test_kkt_redundant_rows)
{
  const double G3[3] = {0, -g_earth, 0}, P[3] = {0, 0, 0};
  const double m = 0.9, L = 1.1, th = 0.95, delta = 0.015, vt = 1.3,
               vr = 0.2;
  const double alpha = 2.5, beta = 3.5;
  const double er[3] = {sin(th), -cos(th), 0}, et[3] = {cos(th), sin(th), 0};
  double x1[3], v1[3];
  for (int d = 0; d < 3; d++) {
    x1[d] = (L + delta) * er[d];
    v1[d] = vr * er[d] + vt * et[d];
  }
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(sys, G3), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(sys, 1, m), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 1, x1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(sys, 1, v1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, P, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, L, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, L, NULL), CDYN_OK);
  const double r = L + delta;
  const double lam = m * (g_earth * cos(th) + vt * vt / r + 2 * alpha * vr +
                          beta * beta * delta);
  double qdd[6], lambda[5], v0[6];
  cdyn_ref_kkt_info info;
  kkt_ok(sys, alpha, beta, qdd, lambda, &info);
  ck_assert_uint_eq(info.dim, 11);
  ck_assert_uint_eq(info.rank, 10);
  ck_assert_uint_eq(info.rank_a, 4);
  const double tol = info.dim * U_ROUND * (info.cond_kkt + info.cond_a) *
                     (2 * lam + m * g_earth);
  printf("KKT redundant rod: lambda = %.15g, %.15g (half tension %.15g), "
         "rank %zu of %zu, cond_kkt %.3g\n", lambda[3], lambda[4], lam / 2,
         info.rank, info.dim, info.cond_kkt);
  ck_assert_double_eq_tol(lambda[3], lam / 2, tol);
  ck_assert_double_eq_tol(lambda[4], lam / 2, tol);
  for (int d = 0; d < 3; d++)
    ck_assert_double_eq_tol(qdd[3 + d], G3[d] - lam / m * er[d], tol / m);

  ck_assert_int_eq(cdyn_system_get_state(sys, NULL, v0), CDYN_OK);
  cdyn_stepper *st;
  char buf[32];
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "baumgarte"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "euler"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", "cholesky"), CDYN_OK);
  snprintf(buf, sizeof buf, "%.17g", alpha);
  ck_assert_int_eq(cdyn_stepper_set(st, "alpha", buf), CDYN_OK);
  snprintf(buf, sizeof buf, "%.17g", beta);
  ck_assert_int_eq(cdyn_stepper_set(st, "beta", buf), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 0x1p-10), CDYN_OK);
  double lam_lib[5];
  cdyn_stats stats;
  ck_assert_int_eq(cdyn_stepper_multipliers(st, lam_lib), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
  printf("library cholesky on the redundant rod: lambda = %.15g, %.15g, "
         "fallbacks %lu, rank %u\n", lam_lib[3], lam_lib[4],
         stats.fallbacks, stats.last_rank);
  ck_assert_uint_ge(stats.fallbacks, 1);
  for (int j = 0; j < 5; j++)
    ck_assert_double_eq_tol(lam_lib[j], lambda[j], tol);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

START_TEST(test_kkt_errors)
{
  /* No constraints: qdd = W F and lambda may be NULL. */
  cdyn_system *sys;
  const double G3[3] = {0.5, -9.81, 0.25}, x[3] = {1, 2, 3};
  ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(sys, G3), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(sys, 1, 2.75), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 1, x), CDYN_OK);
  double qdd[6], lam[1];
  cdyn_ref_kkt_info info;
  ck_assert_int_eq(cdyn_ref_kkt_accel_info(sys, 0, 0, qdd, NULL, &info),
                   CDYN_OK);
  ck_assert_uint_eq(info.dim, 6);
  ck_assert_uint_eq(info.rank, 6);
  ck_assert_double_eq(info.cond_a, 1.0);
  for (int j = 0; j < 6; j++)
    ck_assert_double_eq_tol(qdd[j], G3[j % 3], 1e-15);

#define EXPECT_STATUS(code, call)                                            \
  do {                                                                       \
    cdyn_error_clear();                                                      \
    ck_assert_int_eq((call), (code));                                        \
    ck_assert_str_ne(cdyn_errmsg(), "");                                     \
  } while (0)

  EXPECT_STATUS(CDYN_EINVAL, cdyn_ref_kkt_accel(NULL, 0, 0, qdd, lam));
  EXPECT_STATUS(CDYN_EINVAL, cdyn_ref_kkt_accel(sys, 0, 0, NULL, lam));
  EXPECT_STATUS(CDYN_EINVAL, cdyn_ref_kkt_accel(sys, NAN, 0, qdd, lam));
  EXPECT_STATUS(CDYN_EINVAL, cdyn_ref_kkt_accel(sys, 0, INFINITY, qdd, lam));
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, 1.5, NULL), CDYN_OK);
  EXPECT_STATUS(CDYN_EINVAL, cdyn_ref_kkt_accel(sys, 0, 0, qdd, NULL));
  ck_assert_int_eq(cdyn_ref_kkt_accel(sys, 1, 2, qdd, lam), CDYN_OK);
  /* A constraint that cannot be evaluated passes its status on. */
  ck_assert_int_eq(cdyn_system_set_position(sys, 0, x), CDYN_OK);
  EXPECT_STATUS(CDYN_EDEGENERATE, cdyn_ref_kkt_accel(sys, 0, 0, qdd, lam));
  /* So does a failing force. */
  ck_assert_int_eq(cdyn_system_set_force_callback(sys, fail_force, NULL),
                   CDYN_OK);
  EXPECT_STATUS(CDYN_ECALLBACK, cdyn_ref_kkt_accel(sys, 0, 0, qdd, lam));
  cdyn_system_free(sys);
#undef EXPECT_STATUS
}
END_TEST


/*
 * reference/chain_be.c against the library's newton scheme: both solve
 * the fully implicit step (lib/schemes/newton.c's equations) of a hanging
 * chain, chain_be by full Newton on the banded KKT system, newton by the
 * simplified iteration on A = J W J^T through the stepper.  They share no
 * code.  At a step where newton's iteration converges (h omega_N = 0.18
 * for N = 10 links of 5 cm), each solves to 1e-12 m, so a step's results
 * differ by about that much; the motion is stable and damped, so the
 * differences add at most: 250 steps give 2.5e-10 m, and the test allows
 * 1e-9 m.
 */
#define CBE_LINKS 10
static void chain_state(size_t links, double l, double kick, double *q, double *v)
{
  for (size_t i = 0; i <= links; i++) {
    q[3 * i] = 0;
    q[3 * i + 1] = -(double)i * l;
    q[3 * i + 2] = 0;
    v[3 * i] = i ? kick : 0;
    v[3 * i + 1] = v[3 * i + 2] = 0;
  }
}

START_TEST(test_chain_be_against_newton)
{
  const size_t N = CBE_LINKS, n = N + 1;
  const double l = 0.05, h = 0.004, g[3] = {0, -9.81, 0}, o[3] = {0, 0, 0};
  double q[3 * (CBE_LINKS + 1)], v[3 * (CBE_LINKS + 1)];
  chain_state(N, l, 0.05, q, v);
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, n), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_eq(cdyn_system_set_position(sys, i, q + 3 * i), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, i, v + 3 * i), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, i, 1.0), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, o, NULL), CDYN_OK);
  for (size_t i = 0; i < N; i++)
    ck_assert_int_eq(cdyn_system_add_distance(sys, i, i + 1, l, NULL), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "newton"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "tol", "1e-12"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "max_iter", "200"), CDYN_OK);
  cdyn_ref_chain_be *c;
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, N, l, 1.0, g, q, v), CDYN_OK);
  double worst = 0;
  int its, itmax = 0;
  for (int k = 0; k < 250; k++) {
    ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_chain_be_step(c, h, 1e-12 / l, 50, &its), CDYN_OK);
    if (its > itmax)
      itmax = its;
    const double *a = cdyn_system_positions(sys), *b = cdyn_ref_chain_be_q(c);
    for (size_t i = 0; i < 3 * n; i++)
      worst = fmax(worst, fabs(a[i] - b[i]));
  }
  /* The chain has moved: the comparison is not of two states at rest. */
  ck_assert_double_gt(fabs(cdyn_ref_chain_be_q(c)[3 * N]), 1e-3);
  ck_assert_double_le(worst, 1e-9);
  /* Full Newton converges quadratically: a handful of iterations. */
  ck_assert_int_le(itmax, 6);
  cdyn_ref_chain_be_free(c);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * At h = 0.1 (h omega_N = 2.8 for N = 40: every library scheme is
 * unstable there, chain-scale-stability) the fully implicit step stays
 * on the constraints to its tolerance, converges in few iterations and
 * does not gain energy over 10 s: the kick's 0.1 J is damped out.
 */
START_TEST(test_chain_be_large_step)
{
  enum { N = 40 };
  const double l = 0.05, h = 0.1, g[3] = {0, -9.81, 0};
  static double q[3 * (N + 1)], v[3 * (N + 1)];
  chain_state(N, l, 0.05, q, v);
  cdyn_ref_chain_be *c;
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, N, l, 1.0, g, q, v), CDYN_OK);
  double E0 = cdyn_ref_chain_be_energy(c), Emax = E0;
  int its, itmax = 0;
  for (int k = 0; k < 100; k++) {
    ck_assert_int_eq(cdyn_ref_chain_be_step(c, h, 1e-10, 50, &its), CDYN_OK);
    itmax = its > itmax ? its : itmax;
    Emax = fmax(Emax, cdyn_ref_chain_be_energy(c));
    const double *x = cdyn_ref_chain_be_q(c);
    for (int i = 0; i < N; i++) {
      const double *a = x + 3 * i, *b = a + 3;
      double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
      ck_assert_double_le(fabs(d - l), 1e-10 * l);
    }
  }
  ck_assert_double_le(Emax, E0 + 1e-9);
  ck_assert_double_lt(cdyn_ref_chain_be_energy(c) - E0, -0.5 * 0.5 * N * 0.05 * 0.05);
  ck_assert_int_le(itmax, 10);
  cdyn_ref_chain_be_free(c);
}
END_TEST

START_TEST(test_chain_be_errors)
{
  const double g[3] = {0, -9.81, 0}, bad[3] = {0, NAN, 0};
  double q[6] = {0, 0, 0, 0, -1, 0}, v[6] = {0, 0, 0, 1, 0, 0}; /* swinging */
  cdyn_ref_chain_be *c = (cdyn_ref_chain_be *)1;
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 0, 1, 1, g, q, v), CDYN_EINVAL);
  ck_assert_ptr_null(c);
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 1, 0, 1, g, q, v), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 1, 1, -1, g, q, v), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 1, 1, 1, bad, q, v), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 1, 1, 1, g, NULL, v), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_new(NULL, 1, 1, 1, g, q, v), CDYN_EINVAL);
  q[4] = INFINITY;
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 1, 1, 1, g, q, v), CDYN_EINVAL);
  q[4] = -1;
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 1, 1, 1, g, q, v), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0, 1e-10, 10, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, NAN, 1e-10, 10, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0.01, 0, 10, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0.01, 0.1, 10, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0.01, 1e-10, 0, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_step(NULL, 0.01, 1e-10, 10, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0.01, 1e-12, 20, NULL), CDYN_OK);
  cdyn_ref_chain_be_free(c);
  /* A bending 2-link chain: one iteration cannot reach 1e-14 from the
     prediction (for one link it can: the radial projection is exact), so
     NOCONV with the state kept. */
  double q2[9] = {0, 0, 0, 0, -1, 0, 0, -2, 0}, v2[9] = {0, 0, 0, 1, 0, 0, -1, 0, 0};
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 2, 1, 1, g, q2, v2), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0.2, 1e-14, 1, NULL), CDYN_NOCONV);
  for (int i = 0; i < 9; i++)
    ck_assert_double_eq(cdyn_ref_chain_be_q(c)[i], q2[i]);
  int its;
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0.2, 1e-14, 30, &its), CDYN_OK);
  ck_assert_int_ge(its, 2);
  cdyn_ref_chain_be_free(c);
  cdyn_ref_chain_be_free(NULL);
}
END_TEST

/* ---- multipliers as forces, and the spinning hoop ------------------------------------ */

/*
 * Link tensions of the N-link reference (Newton's law from the free end)
 * against two independent answers: the single pendulum's closed form
 * T = m g cos theta + m L theta'^2, and, for a 3-link arm with unequal
 * masses and lengths in motion, the dense KKT solve of reference/kkt.c on
 * the same state as a particle system (pin rows first, then the links,
 * whose multipliers are the tensions, and the pin rows, whose
 * multipliers hold the pivot: 0 = m_0 g_v - lambda_pin - n_0 T_0, n_0 =
 * (x_0 - x_1) / L_0).  The closed form at 1e-12 m g, the KKT solve at
 * 1e-9 m g: the reference's angles carry ~1e-12, the KKT solve's rounding
 * grows with its condition (~1e4 here).
 */
START_TEST(test_nlink_tensions)
{
  const double L1 = 1.3, m1 = 0.7, th1 = 1.1;
  cdyn_ref_nlink_params p1 = {1, &L1, &m1, 9.81, {0, 0}, &th1, NULL, 1e-13, 1e-13};
  cdyn_ref_nlink *r;
  ck_assert_int_eq(cdyn_ref_nlink_new(&r, &p1), CDYN_OK);
  for (int k = 1; k <= 5; k++) {
    ck_assert_int_eq(cdyn_ref_nlink_advance(r, 0.3 * k), CDYN_OK);
    double th, om, T, res;
    ck_assert_int_eq(cdyn_ref_nlink_angles(r, &th, &om), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_nlink_tensions(r, &T, &res), CDYN_OK);
    double exact = m1 * 9.81 * cos(th) + m1 * L1 * om * om;
    ck_assert_msg(fabs(T - exact) <= 1e-12 * m1 * 9.81 && res <= 1e-13, "t = %g: tension %.17g, closed form %.17g, "
                  "residual %.3e", 0.3 * k, T, exact, res);
  }
  cdyn_ref_nlink_free(r);

  const double L[3] = {1.0, 0.8, 1.2}, m[3] = {1.0, 0.5, 2.0}, th0[3] = {1.2, 0.4, -0.7};
  cdyn_ref_nlink_params p3 = {3, L, m, 9.81, {0, 0}, th0, NULL, 1e-13, 1e-13};
  ck_assert_int_eq(cdyn_ref_nlink_new(&r, &p3), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_nlink_advance(r, 0.7), CDYN_OK);
  double xy[6], vxy[6], T[3], res;
  ck_assert_int_eq(cdyn_ref_nlink_positions(r, xy), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_nlink_velocities(r, vxy), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_nlink_tensions(r, T, &res), CDYN_OK);
  cdyn_ref_nlink_free(r);
  ck_assert_double_le(res, 1e-12);
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 4), CDYN_OK);
  const double g[3] = {0, -9.81, 0}, o[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(sys, 0, 1.0), CDYN_OK);
  for (int i = 0; i < 3; i++) {
    const double x[3] = {xy[2 * i], xy[2 * i + 1], 0}, v[3] = {vxy[2 * i], vxy[2 * i + 1], 0};
    ck_assert_int_eq(cdyn_system_set_position(sys, (size_t)i + 1, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, (size_t)i + 1, v), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, (size_t)i + 1, m[i]), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, o, NULL), CDYN_OK);
  for (size_t i = 0; i < 3; i++)
    ck_assert_int_eq(cdyn_system_add_distance(sys, i, i + 1, L[i], NULL), CDYN_OK);
  double qdd[12], lam[6];
  ck_assert_int_eq(cdyn_ref_kkt_accel(sys, 0, 0, qdd, lam), CDYN_OK);
  for (int i = 0; i < 3; i++)
    ck_assert_msg(fabs(lam[3 + i] - T[i]) <= 1e-9 * 9.81, "link %d: KKT %.17g, Newton from the free end %.17g", i,
                  lam[3 + i], T[i]);
  /* The pivot (1 kg, at the origin): lambda_pin = m_0 g_v - n_0 T_0. */
  const double pin[3] = {-(-xy[0] / L[0]) * T[0], -9.81 - (-xy[1] / L[0]) * T[0], 0};
  for (int k = 0; k < 3; k++)
    ck_assert_msg(fabs(lam[k] - pin[k]) <= 1e-9 * 9.81, "pin row %d: KKT %.17g, the pivot's balance %.17g", k, lam[k],
                  pin[k]);
  cdyn_system_free(sys);
}
END_TEST

/*
 * The spinning hoop (reference/hoop.c).  omega^2 R = 2 g puts the
 * relative equilibrium at theta* = acos(1/2) = pi/3 with Omega = omega
 * sin theta* = sqrt(3 g / 2).  Released there at relative rest the bead
 * stays (to the integrator's tolerance); released 1e-4 away it oscillates
 * with the period 2 pi / Omega, measured from successive upward crossings
 * of theta* (linear interpolation between samples 1e-3 s apart, whose
 * error is far below the O(delta^2) = 1e-8 relative shift of a finite
 * amplitude): 1e-6 relative.  Below the threshold (omega^2 R < g) the
 * bottom is stable with Omega^2 = g / R - omega^2.
 */
START_TEST(test_hoop_equilibrium_frequency)
{
  const double g = 9.81, R = 1.0, w = sqrt(2 * g / R);
  double th_eq, W;
  ck_assert_int_eq(cdyn_ref_hoop_equilibrium(R, g, w, &th_eq, &W), CDYN_OK);
  ck_assert_double_eq_tol(th_eq, M_PI / 3, 1e-15);
  ck_assert_double_eq_tol(W, sqrt(1.5 * g), 1e-14);
  cdyn_ref_hoop_params p = {R, g, w, th_eq, 0, 1e-13, 1e-13};
  cdyn_ref_hoop *r;
  ck_assert_int_eq(cdyn_ref_hoop_new(&r, &p), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_hoop_advance(r, 5.0), CDYN_OK);
  double th, td;
  ck_assert_int_eq(cdyn_ref_hoop_angle(r, &th, &td), CDYN_OK);
  ck_assert_msg(fabs(th - th_eq) <= 1e-12 && fabs(td) <= 1e-12, "from the relative equilibrium: theta - theta* = %.3e",
                th - th_eq);
  cdyn_ref_hoop_free(r);

  p.theta0 = th_eq + 1e-4;
  ck_assert_int_eq(cdyn_ref_hoop_new(&r, &p), CDYN_OK);
  double prev = 1e-4, tprev = 0, cross[4];
  int nc = 0;
  for (int k = 1; k <= 6000 && nc < 4; k++) {
    double t = 1e-3 * k;
    ck_assert_int_eq(cdyn_ref_hoop_advance(r, t), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_hoop_angle(r, &th, NULL), CDYN_OK);
    double d = th - th_eq;
    if (prev < 0 && d >= 0)
      cross[nc++] = tprev + (t - tprev) * (-prev) / (d - prev);
    prev = d;
    tprev = t;
  }
  cdyn_ref_hoop_free(r);
  ck_assert_int_ge(nc, 3);
  double period = (cross[nc - 1] - cross[0]) / (nc - 1);
  ck_assert_msg(fabs(period * W / (2 * M_PI) - 1) <= 1e-6, "period %.10f, 2 pi / Omega = %.10f", period,
                2 * M_PI / W);

  /* Below the threshold: the bottom, Omega^2 = g/R - omega^2. */
  ck_assert_int_eq(cdyn_ref_hoop_equilibrium(R, g, 2.0, &th_eq, &W), CDYN_OK);
  ck_assert_double_eq(th_eq, 0);
  ck_assert_double_eq_tol(W, sqrt(g - 4.0), 1e-14);
  ck_assert_int_eq(cdyn_ref_hoop_equilibrium(0, g, 2.0, &th_eq, &W), CDYN_EINVAL);
}
END_TEST

/*
 * Along a large motion of the hoop: the Jacobi integral R^2 th'^2 / 2 -
 * omega^2 R^2 sin^2 th / 2 - g R cos th is conserved (1e-10); the
 * Cartesian state lies on the library's "hoop" constraint with the same
 * parameters, moving with it (Phi = 0, J v + Phi_t = 0, and the
 * acceleration obeys J a + (Jv)_q v + phi_tt = 0); and the multipliers
 * satisfy Newton's law m a = F - J^T lambda in all three directions, with
 * the closed forms of hoop.h.
 */
START_TEST(test_hoop_state_multipliers)
{
  const double g = 9.81, R = 1.0, w = sqrt(2 * g / R), m = 1.0;
  cdyn_ref_hoop_params p = {R, g, w, 1.4, 0.0, 1e-13, 1e-13};
  cdyn_ref_hoop *r;
  ck_assert_int_eq(cdyn_ref_hoop_new(&r, &p), CDYN_OK);
  const double J0 = -0.5 * w * w * R * R * sin(1.4) * sin(1.4) - g * R * cos(1.4);
  const cdyn_constraint_type *type;
  ck_assert_int_eq(cdyn_constraint_type_find("hoop", &type), CDYN_OK);
  const double params[11] = {0, 0, 0, 0, 1, 0, 0, 0, 1, R, w};
  for (int k = 1; k <= 20; k++) {
    double t = 0.1 * k, th, td, x[3], v[3], a[3], lam[2];
    ck_assert_int_eq(cdyn_ref_hoop_advance(r, t), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_hoop_angle(r, &th, &td), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_hoop_state(r, x, v, a), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_hoop_multipliers(r, m, lam), CDYN_OK);
    double J = 0.5 * R * R * td * td - 0.5 * w * w * R * R * sin(th) * sin(th) - g * R * cos(th);
    ck_assert_msg(fabs(J - J0) <= 1e-10, "t = %g: Jacobi integral %.17g, at 0 %.17g", t, J, J0);
    cdyn_row rows[2];
    const double *xp[1] = {x}, *vp[1] = {v};
    ck_assert_int_eq(type->eval(params, xp, vp, t, rows), CDYN_OK);
    for (int i = 0; i < 2; i++) {
      double jv = 0, ja = 0;
      for (int c = 0; c < 3; c++) {
        jv += rows[i].jac[0][c] * v[c];
        ja += rows[i].jac[0][c] * a[c];
      }
      ck_assert_msg(fabs(rows[i].phi) <= 1e-14 && fabs(jv + rows[i].phi_t) <= 1e-13 &&
                      fabs(ja + rows[i].jdotv + rows[i].phi_tt) <= 1e-12,
                    "t = %g, row %d: Phi %.3e, J v + Phi_t %.3e, J a + S %.3e", t, i, rows[i].phi, jv + rows[i].phi_t,
                    ja + rows[i].jdotv + rows[i].phi_tt);
    }
    const double F[3] = {0, -m * g, 0};
    for (int c = 0; c < 3; c++) {
      double res = m * a[c] - F[c] + rows[0].jac[0][c] * lam[0] + rows[1].jac[0][c] * lam[1];
      ck_assert_msg(fabs(res) <= 1e-12 * m * g, "t = %g: m a - F + J^T lambda = %.3e along axis %d", t, res, c);
    }
    ck_assert_double_eq_tol(lam[0], 2 * m * R * w * td * cos(th), 1e-12);
    ck_assert_double_eq_tol(lam[1], m * g * cos(th) + m * R * (td * td + w * w * sin(th) * sin(th)), 1e-12);
  }
  cdyn_ref_hoop_free(r);
}
END_TEST


static Suite *reference_suite(void)
{
  Suite *s = suite_create("reference_nlink");
  TCase *tc = tcase_create("conservation");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_energy_2link_horizontal);
  tcase_add_test(tc, test_energy_5link_irregular);
  tcase_add_test(tc, test_angular_momentum_zero_gravity);
  suite_add_tcase(s, tc);

  tc = tcase_create("forces_and_hoop");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_nlink_tensions);
  tcase_add_test(tc, test_hoop_equilibrium_frequency);
  tcase_add_test(tc, test_hoop_state_multipliers);
  suite_add_tcase(s, tc);

  tc = tcase_create("period");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_period_small_angle);
  tcase_add_test(tc, test_period_finite_amplitude);
  suite_add_tcase(s, tc);

  tc = tcase_create("kinematics_dynamics");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_geometry);
  tcase_add_test(tc, test_double_pendulum_textbook);
  tcase_add_test(tc, test_nlink_against_cartesian);
  suite_add_tcase(s, tc);

  tc = tcase_create("errors");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_new_rejects_invalid);
  tcase_add_test(tc, test_call_errors);
  tcase_add_test(tc, test_overflow_reported);
  suite_add_tcase(s, tc);

  tc = tcase_create("bead");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_bead_exact_vs_ode);
  tcase_add_test(tc, test_bead_exact_quarter_periods);
  tcase_add_test(tc, test_bead_small_angle);
  tcase_add_test(tc, test_bead_energy);
  tcase_add_test(tc, test_bead_geometry_and_nlink);
  tcase_add_test(tc, test_bead_errors);
  suite_add_tcase(s, tc);

  tc = tcase_create("spherical");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_sph_conservation);
  tcase_add_test(tc, test_sph_conical);
  tcase_add_test(tc, test_sph_planar);
  tcase_add_test(tc, test_sph_against_cartesian);
  tcase_add_test(tc, test_sph_theta_period);
  tcase_add_test(tc, test_sph_negative_theta);
  tcase_add_test(tc, test_sph_errors);
  suite_add_tcase(s, tc);

  tc = tcase_create("ode");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_ode_shared_contract);
  suite_add_tcase(s, tc);

  tc = tcase_create("kkt");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_system_forces);
  tcase_add_test(tc, test_kkt_pendulum_closed_form);
  tcase_add_test(tc, test_kkt_against_library);
  tcase_add_test(tc, test_kkt_redundant_rows);
  tcase_add_test(tc, test_kkt_errors);
  suite_add_tcase(s, tc);

  tc = tcase_create("chain_be");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_chain_be_against_newton);
  tcase_add_test(tc, test_chain_be_large_step);
  tcase_add_test(tc, test_chain_be_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return tu_run(reference_suite());
}
