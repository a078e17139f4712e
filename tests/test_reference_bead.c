/*
 * tests/test_reference_bead.c: checks of the bead on a circle and the
 * spherical pendulum references, and of the ODE driver that they and the
 * N-link pendulum share.
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
 * The driver (reference/ode.c): a failure is reported under the
 * reference's own name and leaves its time and state as they were, and
 * bad tolerances are refused by each reference's _new.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <float.h>

#include <check.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_poly.h>
#include <gsl/gsl_sf_ellint.h>

#include "bead.h"
#include "cdyn/cdyn.h"
#include "nlink.h"
#include "spherical.h"
#include "refutil.h"
#include "testutil.h"

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

static Suite *reference_suite(void)
{
  Suite *s = suite_create("reference_bead_spherical");
  TCase *tc = tcase_create("bead");
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
  return s;
}

int main(void)
{
  return tu_run(reference_suite());
}
