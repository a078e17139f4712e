/*
 * tests/refutil.h: the helpers of the reference tests
 * (test_reference.c, test_reference_bead.c, test_reference_kkt.c) that
 * more than one of them uses: gravity, building and advancing an N-link
 * pendulum of reference/nlink.h, its period measured from the zero
 * crossings of theta, a derivative by Richardson extrapolation, and valid
 * N-link parameters to mutate.
 *
 * Everything is static inline, as in testutil.h.
 */
#ifndef CDYN_TESTS_REFUTIL_H
#define CDYN_TESTS_REFUTIL_H

#include <math.h>
#include <string.h>

#include <check.h>
#include <gsl/gsl_math.h>

#include "cdyn/cdyn.h"
#include "nlink.h"

static const double g_earth = 9.81;

/* Build a pendulum or fail the test with the library's message. */
static inline cdyn_ref_nlink *make(const cdyn_ref_nlink_params *p)
{
  cdyn_ref_nlink *r = NULL;
  const int s = cdyn_ref_nlink_new(&r, p);
  ck_assert_msg(s == CDYN_OK, "cdyn_ref_nlink_new: %d (%s)", s,
                cdyn_errmsg());
  ck_assert_ptr_nonnull(r);
  return r;
}

static inline void advance_ok(cdyn_ref_nlink *r, double t)
{
  const int s = cdyn_ref_nlink_advance(r, t);
  ck_assert_msg(s == CDYN_OK, "advance to %g: %d (%s)", t, s, cdyn_errmsg());
}

/*
 * The zero in s = (t - ta) / h in [0, 1] of the cubic Hermite interpolant
 * of y over one step: values y0, y1 and derivatives d0, d1 (per unit time)
 * at the ends, which differ in sign.  Sixty bisections bring the bracket
 * below 2^-60 of the step, far under the interpolant's own O(h^4) error.
 */
static inline double hermite_root(double y0, double d0, double y1, double d1, double h)
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
 * theta(t) of a single pendulum released from rest at theta0, sampled every
 * T/1000 of the small-angle period; each sign change of theta is located by
 * the cubic Hermite interpolant through (theta, omega) at the two ends of
 * the interval, whose error (h^4/384 times the fourth derivative) is far
 * below the 1e-8 needed.  Returns the period from the first and last of
 * 2 * nper + 1 crossings, which are half a period apart.
 */
static inline double measure_period(double theta0, double len, double g, double m,
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

/*
 * d/dt of a quantity at t = 0 by Richardson extrapolation of forward
 * differences over delta and 2 delta, from three values: f(0), f(delta),
 * f(2 delta).  The O(delta) term of the plain forward difference (about
 * delta * f''' / 2, up to ~1e-5 relative here) cancels, leaving O(delta^2)
 * plus rounding of about 1e-16 / delta, so a tolerance of 1e-8 relative
 * leaves a wide margin.
 */
static inline double richardson(double f0, double f1, double f2, double delta)
{
  const double d1 = (f1 - f0) / delta, d2 = (f2 - f0) / (2 * delta);
  return 2 * d1 - d2;
}

/* Valid parameters in storage owned by the caller, for mutation. */
typedef struct {
  double len[3], mass[3], th[3], om[3];
  cdyn_ref_nlink_params p;
} fixture;

static inline void fixture_init(fixture *f)
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

#endif
