/*
 * tests/test_ccd.c: the exact continuous-collision reference
 * (reference/ccd_exact.c) on constructed cases whose answers are known in
 * closed form: crossings through a face, an edge and a vertex, contact at
 * t = 0 and t = 1, coplanar motion into and beside a triangle, an
 * irrational time of contact, a zero-area triangle and parallel edges
 * (reported as degenerate), and misses by one unit in the last place.
 */
#include <float.h>
#include <math.h>

#include <check.h>

#include "reference/ccd_exact.h"
#include "testutil.h"

/* A point moving from x0 to x1. */
#define MOVE(name, x0, y0, z0, x1, y1, z1) const double name[2][3] = {{x0, y0, z0}, {x1, y1, z1}}
#define STILL(name, x, y, z) MOVE(name, x, y, z, x, y, z)

static void expect_vf(const double p[2][3], const double a[2][3], const double b[2][3], const double c[2][3],
                      int want, double t, const char *what)
{
  double lo = NAN, hi = NAN;
  int rc = ref_ccd_vf(p, a, b, c, &lo, &hi);
  ck_assert_msg(rc == want, "%s: %d, expected %d", what, rc, want);
  if (want == 1)
    ck_assert_msg(lo <= t && t <= hi && hi - lo <= ldexp(1.0, -39), "%s: [%.17g, %.17g], expected %.17g", what, lo,
                  hi, t);
}

static void expect_ee(const double p[2][3], const double q[2][3], const double r[2][3], const double s[2][3],
                      int want, double t, const char *what)
{
  double lo = NAN, hi = NAN;
  int rc = ref_ccd_ee(p, q, r, s, &lo, &hi);
  ck_assert_msg(rc == want, "%s: %d, expected %d", what, rc, want);
  if (want == 1)
    ck_assert_msg(lo <= t && t <= hi && hi - lo <= ldexp(1.0, -39), "%s: [%.17g, %.17g], expected %.17g", what, lo,
                  hi, t);
}

START_TEST(test_vf_constructed)
{
  STILL(a, 0, 0, 0);
  STILL(b, 1, 0, 0);
  STILL(c, 0, 1, 0);
  {
    MOVE(p, 0.25, 0.25, 1, 0.25, 0.25, -1);
    expect_vf(p, a, b, c, 1, 0.5, "through the face");
  }
  {
    MOVE(p, 2, 2, 1, 2, 2, -1);
    expect_vf(p, a, b, c, 0, 0, "beside the face");
  }
  {
    MOVE(p, 0.5, 0, 1, 0.5, 0, -1);
    expect_vf(p, a, b, c, 1, 0.5, "through an edge");
  }
  {
    MOVE(p, 0, 0, 1, 0, 0, -1);
    expect_vf(p, a, b, c, 1, 0.5, "through a vertex");
  }
  {
    /* One ulp outside the edge x = 0. */
    MOVE(p, -DBL_MIN, 0.5, 1, -DBL_MIN, 0.5, -1);
    expect_vf(p, a, b, c, 0, 0, "a hair outside an edge");
  }
  {
    MOVE(p, 0.2, 0.2, 1, 0.2, 0.2, 0);
    expect_vf(p, a, b, c, 1, 1.0, "reaching the face at t = 1");
  }
  {
    MOVE(p, 0.2, 0.2, 0, 0.2, 0.2, 1);
    expect_vf(p, a, b, c, 1, 0.0, "leaving the face at t = 0");
  }
  {
    MOVE(p, 0.2, 0.2, 1, 0.2, 0.2, 0x1p-60);
    expect_vf(p, a, b, c, 0, 0, "stopping 2^-60 short");
  }
  {
    MOVE(p, -1, 0.25, 0, 0.5, 0.25, 0);
    expect_vf(p, a, b, c, 1, 2.0 / 3.0, "coplanar, sliding in");
  }
  {
    MOVE(p, -1, 2, 0, 2, 2, 0);
    expect_vf(p, a, b, c, 0, 0, "coplanar, sliding past");
  }
  {
    /* The triangle tilts (c rises) while the node falls and slides:
       f(t) = 1 - 2.2 t - 0.5 t^2, root -2.2 + sqrt(6.84). */
    MOVE(ct, 0, 1, 0, 0, 1, 1);
    MOVE(p, 0.2, 0.2, 1, 0.2, 0.7, -1);
    expect_vf(p, a, b, ct, 1, -2.2 + sqrt(6.84), "an irrational time of contact");
  }
  {
    STILL(bb, 0, 0, 0);
    MOVE(p, 0, 0.5, 1, 0, 0.5, -1);
    expect_vf(p, a, bb, c, REF_CCD_DEGENERATE, 0, "a zero-area triangle");
  }
}
END_TEST

START_TEST(test_ee_constructed)
{
  STILL(p, -1, 0, 0);
  STILL(q, 1, 0, 0);
  {
    MOVE(r, 0, -1, 1, 0, -1, -1);
    MOVE(s, 0, 1, 1, 0, 1, -1);
    expect_ee(p, q, r, s, 1, 0.5, "crossing edges");
  }
  {
    MOVE(r, 2, -1, 1, 2, -1, -1);
    MOVE(s, 2, 1, 1, 2, 1, -1);
    expect_ee(p, q, r, s, 0, 0, "passing beyond an end");
  }
  {
    MOVE(r, 1, -1, 1, 1, -1, -1);
    MOVE(s, 1, 1, 1, 1, 1, -1);
    expect_ee(p, q, r, s, 1, 0.5, "touching at an end");
  }
  {
    const double x = nextafter(1.0, 2.0);
    MOVE(r, x, -1, 1, x, -1, -1);
    MOVE(s, x, 1, 1, x, 1, -1);
    expect_ee(p, q, r, s, 0, 0, "one ulp beyond an end");
  }
  {
    MOVE(r, -1, 0, 1, -1, 0, -1);
    MOVE(s, 1, 0, 1, 1, 0, -1);
    expect_ee(p, q, r, s, 1, 0.5, "parallel edges meeting");
  }
  {
    /* Collinear all along, overlapping from t = 0.5 on. */
    MOVE(r, 3, 0, 0, 1, 0, 0);
    MOVE(s, 5, 0, 0, 3, 0, 0);
    expect_ee(p, q, r, s, 1, 1.0, "collinear, an end arriving at t = 1");
  }
  {
    MOVE(r, 3, 0, 0, 0.5, 0, 0);
    MOVE(s, 5, 0, 0, 2.5, 0, 0);
    expect_ee(p, q, r, s, 1, 0.8, "collinear, overlapping from t = 0.8");
  }
  {
    /* Turning parallel at t = 0.5 as they meet: s's edge rotates. */
    MOVE(r, 0.5, 0, 1, -1, 0, 0);
    MOVE(s, 0.5, 0, 3, 1, 0, 0);
    expect_ee(p, q, r, s, 1, 1.0, "meeting as they turn parallel");
  }
  {
    MOVE(r, -1, 1, 1, -1, 1, 0.5);
    MOVE(s, 1, 1, 1, 1, 1, 0.5);
    expect_ee(p, q, r, s, 0, 0, "parallel edges apart");
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("ccd");
  TCase *tc = tcase_create("exact");
  tcase_add_test(tc, test_vf_constructed);
  tcase_add_test(tc, test_ee_constructed);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
