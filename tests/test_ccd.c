/*
 * tests/test_ccd.c: collision detection.
 * - The exact continuous-collision reference (reference/ccd_exact.c) on
 *   constructed cases whose answers are known in closed form: crossings
 *   through a face, an edge and a vertex, contact at t = 0 and t = 1,
 *   coplanar motion into and beside a triangle, an irrational time of
 *   contact, a zero-area triangle (degenerate), parallel and collinear
 *   edges, and misses by one unit in the last place; the same answers for
 *   coordinates scaled by powers of two from the subnormals up, and for
 *   the least subnormal off an edge; a degenerate triangle away from the
 *   node is no contact; bad input; on random motions, every contact it
 *   reports is a contact.
 * - The library's conservative test (cdyn_ccd_vf, cdyn_ccd_ee) against the
 *   reference: never a false negative, also for coordinates scaled from
 *   the subnormals to overflow and moved far off; fewer false positives
 *   than before its Bernstein form.
 * - The broad phase (cdyn_bvh): exactly the pairs of all-pairs testing.
 * - The exact replay of a mesh's step (reference/ccd_replay.c): the same
 *   report as testing every node-triangle and edge-edge pair with the
 *   exact test alone; likewise for a path of several states (sub-steps),
 *   each pair counted once however many of its pieces touch.
 * - The discrete narrow phase (cdyn_proximity_*): closest points on the
 *   parties, no sampled pair closer.
 * - Bad input of each.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "reference/ccd_exact.h"
#include "reference/ccd_replay.h"
#include "testutil.h"

/* The library's false positives on the constructed misses. */
static int nfalse;

/* A point moving from x0 to x1. */
#define MOVE(name, x0, y0, z0, x1, y1, z1) const double name[2][3] = {{x0, y0, z0}, {x1, y1, z1}}
#define STILL(name, x, y, z) MOVE(name, x, y, z, x, y, z)

/* The reference's answer against the construction's, and the library's
   conservative test against the reference: never a miss, its time no
   later (vf: node p, triangle q r s; ee: edges p q and r s). */
static void expect(int vf, const double p[2][3], const double q[2][3], const double r[2][3], const double s[2][3],
                   int want, double t, const char *what)
{
  double lo = NAN, hi = NAN;
  int rc = vf ? ref_ccd_vf(p, q, r, s, &lo, &hi) : ref_ccd_ee(p, q, r, s, &lo, &hi);
  ck_assert_msg(rc == want, "%s: %d, expected %d", what, rc, want);
  int hit = -1;
  double tl = NAN;
  ck_assert_int_eq((vf ? cdyn_ccd_vf : cdyn_ccd_ee)(p[0], p[1], q[0], q[1], r[0], r[1], s[0], s[1], 1e-9, &hit, &tl),
                   CDYN_OK);
  if (want == 1)
    ck_assert_msg(hit == 1 && tl <= hi, "%s: the library %s (t %.17g, exact [%.17g, %.17g])", what,
                  hit ? "is late" : "missed it", tl, lo, hi);
  else if (want == 0 && hit)
    nfalse++;
  if (want == 1)
    ck_assert_msg(lo <= t && t <= hi && hi - lo <= ldexp(1.0, -39), "%s: [%.17g, %.17g], expected %.17g", what, lo,
                  hi, t);
}

#define expect_vf(...) expect(1, __VA_ARGS__)
#define expect_ee(...) expect(0, __VA_ARGS__)

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

/* The points scaled by 2^e (exact for these exponents). */
static void scaled(const double x[2][3], int e, double out[2][3])
{
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 3; k++)
      out[i][k] = ldexp(x[i][k], e);
}

/*
 * The reference takes the doubles as integers times a common power of two:
 * its answers and brackets do not change when every coordinate is scaled
 * by 2^e, from the least exponent that keeps them exact (the mantissas of
 * 0.2 and 0.7 reach down 55 bits) to near the largest doubles; a
 * node the least subnormal outside an edge misses and on it hits; a
 * triangle that degenerates far from the node is no contact (the parties
 * are apart along an axis), one that degenerates at the contact is
 * reported as degenerate; a NULL or non-finite point is refused.
 */
START_TEST(test_exact_integers)
{
  STILL(a, 0, 0, 0);
  STILL(b, 1, 0, 0);
  MOVE(c, 0, 1, 0, 0, 1, 1);
  MOVE(p, 0.2, 0.2, 1, 0.2, 0.7, -1);
  double lo0, hi0;
  ck_assert_int_eq(ref_ccd_vf(p, a, b, c, &lo0, &hi0), 1);
  static const int exps[] = {-1015, -600, -60, 7, 500, 1020};
  for (size_t i = 0; i < sizeof exps / sizeof exps[0]; i++) {
    double P[2][3], A[2][3], B[2][3], C[2][3], lo, hi;
    scaled(p, exps[i], P), scaled(a, exps[i], A), scaled(b, exps[i], B), scaled(c, exps[i], C);
    ck_assert_msg(ref_ccd_vf(P, A, B, C, &lo, &hi) == 1 && lo == lo0 && hi == hi0, "scaled by 2^%d: [%a, %a]",
                  exps[i], lo, hi);
  }
  {
    /* The least subnormal outside the edge x = 0, and on it. */
    MOVE(q, -DBL_TRUE_MIN, 0.5, 1, -DBL_TRUE_MIN, 0.5, -1);
    STILL(cc, 0, 1, 0);
    double lo, hi;
    ck_assert_int_eq(ref_ccd_vf(q, a, b, cc, &lo, &hi), 0);
    MOVE(q0, 0, 0.5, 1, 0, 0.5, -1);
    ck_assert_int_eq(ref_ccd_vf(q0, a, b, cc, &lo, &hi), 1);
    ck_assert(lo <= 0.5 && 0.5 <= hi);
    /* Coordinates of very different magnitudes in one query. */
    MOVE(qs, DBL_TRUE_MIN, 0x1p-1000, 1, DBL_TRUE_MIN, 0x1p-1000, -0x1p900);
    ck_assert_int_eq(ref_ccd_vf(qs, a, b, cc, &lo, &hi), 1);
    ck_assert(lo <= 0x1p-900 && 0x1p-900 <= hi);
  }
  {
    /* b slides onto a at t = 0.5, far from the node (x < -1 < 0 <= the
       triangle's x): no contact; the node passing through the collapsed
       triangle then is degenerate. */
    MOVE(bb, 1, 0, 0, -1, 0, 0);
    STILL(cc, 0, 1, 0);
    MOVE(far, -2, 0.5, 1, -2, 0.5, -1);
    ck_assert_int_eq(ref_ccd_vf(far, a, bb, cc, NULL, NULL), 0);
    MOVE(thru, 0, 0.5, 1, 0, 0.5, -1);
    ck_assert_int_eq(ref_ccd_vf(thru, a, bb, cc, NULL, NULL), REF_CCD_DEGENERATE);
  }
  {
    STILL(cc, 0, 1, 0);
    double bad[2][3] = {{0, 0, 0}, {0, NAN, 0}};
    ck_assert_int_eq(ref_ccd_vf(bad, a, b, cc, NULL, NULL), REF_CCD_EINVAL);
    bad[1][1] = INFINITY;
    ck_assert_int_eq(ref_ccd_ee(a, b, cc, bad, NULL, NULL), REF_CCD_EINVAL);
    ck_assert_int_eq(ref_ccd_ee(a, b, NULL, cc, NULL, NULL), REF_CCD_EINVAL);
  }
}
END_TEST

/* Distance from x to the triangle (a, b, c), by the closest point on the
   plane if inside, else on the edges (doubles). */
static double seg_dist(const double *x, const double *y, const double *z)
{
  double d[3], e[3], L = 0, s = 0;
  for (int k = 0; k < 3; k++)
    d[k] = z[k] - y[k], e[k] = x[k] - y[k], L += d[k] * d[k], s += d[k] * e[k];
  double u = L > 0 ? fmin(1, fmax(0, s / L)) : 0, r = 0;
  for (int k = 0; k < 3; k++)
    r += (e[k] - u * d[k]) * (e[k] - u * d[k]);
  return sqrt(r);
}

static double tri_dist(const double *x, const double *a, const double *b, const double *c)
{
  double u[3], v[3], w[3], n[3];
  for (int k = 0; k < 3; k++)
    u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = x[k] - a[k];
  n[0] = u[1] * v[2] - u[2] * v[1], n[1] = u[2] * v[0] - u[0] * v[2], n[2] = u[0] * v[1] - u[1] * v[0];
  double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2], h = (w[0] * n[0] + w[1] * n[1] + w[2] * n[2]) / sqrt(nn);
  /* Barycentric test of the projection. */
  double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2], uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  double vv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2], wu = w[0] * u[0] + w[1] * u[1] + w[2] * u[2];
  double wv = w[0] * v[0] + w[1] * v[1] + w[2] * v[2], den = uu * vv - uv * uv;
  double beta = (vv * wu - uv * wv) / den, gamma = (uu * wv - uv * wu) / den;
  if (beta >= 0 && gamma >= 0 && beta + gamma <= 1)
    return fabs(h);
  return fmin(seg_dist(x, a, b), fmin(seg_dist(x, b, c), seg_dist(x, c, a)));
}

static void at(const double x[2][3], double t, double *out)
{
  for (int k = 0; k < 3; k++)
    out[k] = x[0][k] + t * (x[1][k] - x[0][k]);
}

/*
 * Random node-triangle motions (coordinates in [-1, 1], a third of them
 * built to pass through the triangle): wherever the reference reports a
 * contact, the node is on the triangle at its bracket (distance below
 * 1e-9, the rounding of evaluating the motion in doubles); and the
 * motions built to cross it are all reported.
 */
START_TEST(test_vf_random_consistent)
{
  uint64_t seed = 12345;
  int hits = 0, built = 0;
  for (int n = 0; n < 2000; n++) {
    double p[2][3], a[2][3], b[2][3], c[2][3];
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 3; k++) {
        a[i][k] = tu_uniform(&seed, -1, 1);
        b[i][k] = tu_uniform(&seed, -1, 1);
        c[i][k] = tu_uniform(&seed, -1, 1);
        p[i][k] = tu_uniform(&seed, -1, 1);
      }
    int cross = n % 3 == 0;
    if (cross) {
      /* The node is at a barycentric point of the triangle at t = 0.37
         (to rounding) and moves off it: it crosses then. */
      double w1 = tu_uniform(&seed, 0.1, 0.4), w2 = tu_uniform(&seed, 0.1, 0.4), x[3], A[3], B[3], C[3];
      at(a, 0.37, A), at(b, 0.37, B), at(c, 0.37, C);
      for (int k = 0; k < 3; k++)
        x[k] = (1 - w1 - w2) * A[k] + w1 * B[k] + w2 * C[k];
      for (int k = 0; k < 3; k++)
        p[1][k] = (x[k] - (1 - 0.37) * p[0][k]) / 0.37;
      built++;
    }
    double lo, hi;
    int rc = ref_ccd_vf(p, a, b, c, &lo, &hi);
    ck_assert(rc == 0 || rc == 1);
    if (cross)
      ck_assert_msg(rc == 1, "case %d: a built crossing was not found", n);
    if (rc == 1) {
      double X[3], A[3], B[3], C[3], t = 0.5 * (lo + hi);
      at(p, t, X), at(a, t, A), at(b, t, B), at(c, t, C);
      double d = tri_dist(X, A, B, C);
      ck_assert_msg(d <= 1e-9, "case %d: contact at t in [%.17g, %.17g], distance %.3g", n, lo, hi, d);
      hits++;
    }
  }
  ck_assert_int_ge(hits, built);
}
END_TEST

/*
 * The library's continuous test against the exact reference on random
 * motions: 2000 node-triangle and 2000 edge-edge queries, a third of each
 * built to touch (a node at a barycentric point of the triangle, or the
 * edges crossing at interior points, at a random time), a third near
 * misses (the node passing 1e-9 outside an edge, in barycentric terms; the
 * edges crossing 1e-9 beyond an end), a third generic.  No false
 * negative (a contact the library does not report, or reports later),
 * and fewer false positives than the 1,133 of the interval-arithmetic
 * test the library had before its Bernstein form (commit eae9cef), on
 * these same queries.
 */
static void random_motion(uint64_t *seed, double x[4][2][3])
{
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 3; k++)
        x[j][i][k] = tu_uniform(seed, -1, 1);
}

/* Query n of the random motions above (ee for n >= 2000; kind n % 3: 0
   touching, 1 near miss, 2 generic). */
static void library_query(uint64_t *seed, int n, double x[4][2][3])
{
  int ee = n >= 2000, kind = n % 3;
  random_motion(seed, x);
  double tc = tu_uniform(seed, 0, 1);
  if (kind < 2) {
    double X[4][3];
    for (int j = 0; j < 4; j++)
      at(x[j], tc, X[j]);
    double target[3];
    if (!ee) {
      double w1 = tu_uniform(seed, 0.05, 0.45), w2 = tu_uniform(seed, 0.05, 0.45);
      if (kind == 1) /* just outside the edge (b, c): w1 + w2 = 1 + 1e-9 */
        w2 = 1 + 1e-9 - w1;
      for (int k = 0; k < 3; k++)
        target[k] = (1 - w1 - w2) * X[1][k] + w1 * X[2][k] + w2 * X[3][k];
      /* Node 0 passes through target at tc. */
      for (int k = 0; k < 3; k++)
        x[0][1][k] = tc > 0.5 ? x[0][0][k] + (target[k] - x[0][0][k]) / tc : x[0][1][k];
      if (tc <= 0.5)
        for (int k = 0; k < 3; k++)
          x[0][0][k] = (target[k] - tc * x[0][1][k]) / (1 - tc);
    } else {
      /* Edge (r, s) moved so that its point at beta meets (p, q)'s at alpha. */
      double al = kind == 1 ? 1 + 1e-9 : tu_uniform(seed, 0.05, 0.95), be = tu_uniform(seed, 0.05, 0.95), P[3],
             Rb[3], shift[3];
      for (int k = 0; k < 3; k++) {
        P[k] = X[0][k] + al * (X[1][k] - X[0][k]);
        Rb[k] = X[2][k] + be * (X[3][k] - X[2][k]);
        shift[k] = P[k] - Rb[k];
      }
      for (int j = 2; j < 4; j++)
        for (int i = 0; i < 2; i++)
          for (int k = 0; k < 3; k++)
            x[j][i][k] += shift[k];
    }
  }
}

START_TEST(test_library_vs_exact)
{
  uint64_t seed = 777;
  long fn = 0, fp = 0, contacts = 0, degenerate = 0;
  for (int n = 0; n < 4000; n++) {
    int ee = n >= 2000;
    double x[4][2][3];
    library_query(&seed, n, x);
    double lo, hi, t = NAN;
    int rc = ee ? ref_ccd_ee(x[0], x[1], x[2], x[3], &lo, &hi) : ref_ccd_vf(x[0], x[1], x[2], x[3], &lo, &hi);
    int hit = -1;
    if (ee)
      ck_assert_int_eq(cdyn_ccd_ee(x[0][0], x[0][1], x[1][0], x[1][1], x[2][0], x[2][1], x[3][0], x[3][1], 1e-9, &hit,
                                   &t),
                       CDYN_OK);
    else
      ck_assert_int_eq(cdyn_ccd_vf(x[0][0], x[0][1], x[1][0], x[1][1], x[2][0], x[2][1], x[3][0], x[3][1], 1e-9, &hit,
                                   &t),
                       CDYN_OK);
    if (rc == REF_CCD_DEGENERATE) {
      degenerate++;
      continue;
    }
    contacts += rc;
    if (rc == 1 && (!hit || t > hi))
      fn++;
    if (rc == 0 && hit)
      fp++;
  }
  printf("# library against exact: %ld contacts in 4000 queries, %ld false negatives, %ld false positives, %ld "
         "degenerate\n",
         contacts, fn, fp, degenerate);
  ck_assert_int_eq(fn, 0);
  ck_assert_int_ge(contacts, 1000);
  ck_assert_int_lt(fp, 1133);
}
END_TEST

/*
 * The same conservativeness whatever the magnitude and the position:
 * queries of test_library_vs_exact (every fifth of the first 600 of
 * each kind, so touching, near misses and generic ones alike) scaled by
 * 2^e from where the differences are subnormal (e = -1070) to where they
 * overflow (e = 1023: the library then proves nothing and reports a
 * contact at t = 0), and moved by offsets from 2^-20 to 2^40 times their
 * size (which rounds them: the reference decides the doubles given).  No
 * false negative, no late contact against the reference on the same
 * doubles; false positives counted.
 */
START_TEST(test_library_scales)
{
  static const int exps[] = {-1070, -1040, -1000, -500, -30, 0, 30, 500, 1000, 1021, 1023};
  static const int offs[] = {-20, 0, 20, 40};
  uint64_t seed = 777;
  long fn = 0, fp = 0, contacts = 0, n_queries = 0;
  for (int n = 0; n < 4000; n++) {
    double x[4][2][3];
    library_query(&seed, n, x);
    if (n % 2000 >= 600 || n % 5)
      continue;
    int ee = n >= 2000;
    for (size_t a = 0; a < sizeof exps / sizeof exps[0]; a++)
      for (size_t b = 0; b <= sizeof offs / sizeof offs[0]; b++) {
        double y[4][2][3];
        int finite = 1;
        for (int j = 0; j < 4; j++)
          for (int i = 0; i < 2; i++)
            for (int k = 0; k < 3; k++) {
              double off = b < sizeof offs / sizeof offs[0] ? ldexp(0.7 + 0.1 * k, offs[b]) : 0;
              y[j][i][k] = ldexp(x[j][i][k] + off, exps[a]);
              finite &= isfinite(y[j][i][k]);
            }
        if (!finite) /* beyond the doubles: refused by both (test_ccd_bad_input) */
          continue;
        double lo, hi, t = NAN;
        int rc = ee ? ref_ccd_ee(y[0], y[1], y[2], y[3], &lo, &hi) : ref_ccd_vf(y[0], y[1], y[2], y[3], &lo, &hi);
        ck_assert(rc == 0 || rc == 1 || rc == REF_CCD_DEGENERATE);
        int hit = -1;
        ck_assert_int_eq((ee ? cdyn_ccd_ee : cdyn_ccd_vf)(y[0][0], y[0][1], y[1][0], y[1][1], y[2][0], y[2][1],
                                                           y[3][0], y[3][1], 1e-6, &hit, &t),
                         CDYN_OK);
        n_queries++;
        contacts += rc == 1;
        if (rc == 1 && (!hit || t > hi)) {
          fn++;
          printf("# query %d scaled by 2^%d, offset %zu: the library %s\n", n, exps[a], b,
                 hit ? "is late" : "misses the contact");
        }
        fp += rc == 0 && hit;
      }
  }
  printf("# library against exact at every scale: %ld contacts in %ld queries, %ld false negatives, %ld false "
         "positives\n",
         contacts, n_queries, fn, fp);
  ck_assert_int_eq(fn, 0);
  ck_assert_int_ge(contacts, n_queries / 4);
}
END_TEST

START_TEST(test_ccd_bad_input)
{
  const double z[3] = {0, 0, 0}, o[3] = {1, 0, 0}, nanp[3] = {0, NAN, 0}, infp[3] = {INFINITY, 0, 0};
  int hit = 7;
  double t;
  TU_EXPECT_EINVAL(cdyn_ccd_vf(NULL, z, z, o, o, z, z, o, 1e-6, &hit, &t));
  TU_EXPECT_EINVAL(cdyn_ccd_vf(z, z, z, o, o, nanp, z, o, 1e-6, &hit, &t));
  TU_EXPECT_EINVAL(cdyn_ccd_vf(z, z, z, o, o, z, z, infp, 1e-6, &hit, &t));
  TU_EXPECT_EINVAL(cdyn_ccd_vf(z, z, z, o, o, z, z, o, 0, &hit, &t));
  TU_EXPECT_EINVAL(cdyn_ccd_vf(z, z, z, o, o, z, z, o, NAN, &hit, &t));
  TU_EXPECT_EINVAL(cdyn_ccd_vf(z, z, z, o, o, z, z, o, 1e-6, NULL, &t));
  TU_EXPECT_EINVAL(cdyn_ccd_ee(z, z, z, o, o, z, NULL, o, 1e-6, &hit, &t));
  TU_EXPECT_EINVAL(cdyn_ccd_ee(z, z, z, o, o, z, z, nanp, 1e-6, &hit, &t));
  TU_EXPECT_EINVAL(cdyn_ccd_ee(z, z, z, o, o, z, z, o, 0.75, &hit, &t));
  ck_assert_int_eq(hit, 7); /* untouched by the refusals */
  /* t may be NULL. */
  ck_assert_int_eq(cdyn_ccd_ee(z, o, o, z, z, o, o, z, 1e-6, &hit, NULL), CDYN_OK);
}
END_TEST

/* ---- the broad phase ---------------------------------------------------------------- */

static int cmp_pair(const void *x, const void *y)
{
  const size_t *a = x, *b = y;
  return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* All pairs (i of A, j of B; self: i < j) of overlapping closed boxes. */
static size_t all_pairs(const double *alo, const double *ahi, size_t na, const double *blo, const double *bhi,
                        size_t nb, int self, size_t *out)
{
  size_t n = 0;
  for (size_t i = 0; i < na; i++)
    for (size_t j = self ? i + 1 : 0; j < nb; j++) {
      int ov = 1;
      for (int k = 0; k < 3 && ov; k++)
        ov = !(ahi[3 * i + k] < blo[3 * j + k] || bhi[3 * j + k] < alo[3 * i + k]);
      if (ov) {
        out[2 * n] = i, out[2 * n + 1] = j;
        n++;
      }
    }
  return n;
}

/* Boxes of a crumpled random mesh: n boxes around points of a jittered
   grid, sizes varying, some degenerate (flat) and some touching exactly. */
static void mesh_boxes(uint64_t *seed, size_t n, double *lo, double *hi)
{
  size_t side = (size_t)ceil(sqrt((double)n));
  for (size_t i = 0; i < n; i++) {
    double c[3] = {(double)(i % side) / (double)side + tu_uniform(seed, -0.02, 0.02),
                   (double)(i / side) / (double)side + tu_uniform(seed, -0.02, 0.02), tu_uniform(seed, -0.05, 0.05)};
    for (int k = 0; k < 3; k++) {
      double h = i % 7 == 0 && k == 2 ? 0 : tu_uniform(seed, 0, 1.5 / (double)side);
      lo[3 * i + k] = c[k] - h;
      hi[3 * i + k] = c[k] + h;
    }
    if (i % 11 == 5 && i > 0) { /* starting exactly where the previous box ends along x */
      lo[3 * i] = hi[3 * (i - 1)];
      hi[3 * i] = fmax(hi[3 * i], lo[3 * i]);
    }
  }
}

/*
 * The tree returns exactly the pairs all-pairs testing returns: self
 * pairs and pairs between two trees, on random mesh-like boxes of several
 * sizes, after a build and after a refit of moved boxes; more pairs than
 * room gives CDYN_ENOMEM with the true count.
 */
START_TEST(test_bvh_pairs_exact)
{
  uint64_t seed = 99;
  const size_t sizes[] = {1, 2, 3, 17, 200, 1500};
  for (int si = 0; si < 6; si++) {
    size_t n = sizes[si], m = n / 2 + 1;
    double *lo = malloc(3 * n * sizeof *lo), *hi = malloc(3 * n * sizeof *hi);
    double *blo = malloc(3 * m * sizeof *blo), *bhi = malloc(3 * m * sizeof *bhi);
    size_t cap = 4 * n * n + 8, *got = malloc(2 * cap * sizeof *got), *want = malloc(2 * cap * sizeof *want);
    ck_assert(lo && hi && blo && bhi && got && want);
    cdyn_bvh *a, *b;
    ck_assert_int_eq(cdyn_bvh_new(&a, n), CDYN_OK);
    ck_assert_int_eq(cdyn_bvh_new(&b, m), CDYN_OK);
    for (int pass = 0; pass < 2; pass++) {
      mesh_boxes(&seed, n, lo, hi);
      mesh_boxes(&seed, m, blo, bhi);
      if (pass == 0) {
        ck_assert_int_eq(cdyn_bvh_build(a, lo, hi, n), CDYN_OK);
        ck_assert_int_eq(cdyn_bvh_build(b, blo, bhi, m), CDYN_OK);
      } else {
        ck_assert_int_eq(cdyn_bvh_refit(a, lo, hi), CDYN_OK);
        ck_assert_int_eq(cdyn_bvh_refit(b, blo, bhi), CDYN_OK);
      }
      for (int self = 1; self >= 0; self--) {
        size_t ng, nw = self ? all_pairs(lo, hi, n, lo, hi, n, 1, want) : all_pairs(lo, hi, n, blo, bhi, m, 0, want);
        ck_assert_int_eq(cdyn_bvh_pairs(a, self ? NULL : b, got, cap, &ng), CDYN_OK);
        ck_assert_msg(ng == nw, "%zu boxes, %s, pass %d: %zu pairs, all-pairs %zu", n, self ? "self" : "two trees",
                      pass, ng, nw);
        qsort(got, ng, 2 * sizeof *got, cmp_pair);
        ck_assert(memcmp(got, want, 2 * nw * sizeof *got) == 0);
        if (nw > 1) {
          size_t nc;
          TU_EXPECT_STATUS(cdyn_bvh_pairs(a, self ? NULL : b, got, nw - 1, &nc), CDYN_ENOMEM);
          ck_assert_uint_eq(nc, nw);
        }
      }
    }
    cdyn_bvh_free(a);
    cdyn_bvh_free(b);
    free(lo), free(hi), free(blo), free(bhi), free(got), free(want);
  }
}
END_TEST

START_TEST(test_bvh_bad_input)
{
  cdyn_bvh *b = (cdyn_bvh *)&b;
  TU_EXPECT_EINVAL(cdyn_bvh_new(&b, 0));
  ck_assert_ptr_null(b);
  TU_EXPECT_EINVAL(cdyn_bvh_new(NULL, 4));
  ck_assert_int_eq(cdyn_bvh_new(&b, 2), CDYN_OK);
  double lo[6] = {0, 0, 0, 1, 1, 1}, hi[6] = {1, 1, 1, 2, 2, 2};
  size_t pairs[4], n;
  TU_EXPECT_EINVAL(cdyn_bvh_refit(b, lo, hi));     /* not built */
  TU_EXPECT_EINVAL(cdyn_bvh_pairs(b, NULL, pairs, 2, &n));
  TU_EXPECT_EINVAL(cdyn_bvh_build(b, lo, hi, 3)); /* over capacity */
  TU_EXPECT_EINVAL(cdyn_bvh_build(b, lo, hi, 0));
  hi[4] = -1; /* lo > hi */
  TU_EXPECT_EINVAL(cdyn_bvh_build(b, lo, hi, 2));
  hi[4] = NAN;
  TU_EXPECT_EINVAL(cdyn_bvh_build(b, lo, hi, 2));
  hi[4] = 2;
  ck_assert_int_eq(cdyn_bvh_build(b, lo, hi, 2), CDYN_OK);
  ck_assert_int_eq(cdyn_bvh_pairs(b, NULL, pairs, 2, &n), CDYN_OK);
  ck_assert_uint_eq(n, 1); /* the boxes touch at a corner */
  TU_EXPECT_EINVAL(cdyn_bvh_pairs(b, NULL, NULL, 2, &n));
  TU_EXPECT_EINVAL(cdyn_bvh_pairs(b, NULL, pairs, 2, NULL));
  cdyn_bvh_free(b);
  cdyn_bvh_free(NULL);
}
END_TEST

/* ---- the discrete narrow phase ----------------------------------------------------------- */

/*
 * Random node-triangle and edge-edge configurations: the reported closest
 * points (from the weights) lie on the parties (barycentric weights in
 * [0, 1] summing to 1), the reported distance is that between them, and
 * no pair of a 61 x 61 sampling of the parties is closer than it (to
 * 1e-12: the closest pair is a minimum, and samples only approach it from
 * above).
 */
START_TEST(test_proximity_random)
{
  uint64_t seed = 4242;
  for (int n = 0; n < 300; n++) {
    double x[4][3];
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 3; k++)
        x[j][k] = tu_uniform(&seed, -1, 1);
    if (n % 5 == 0) /* the edges parallel */
      for (int k = 0; k < 3; k++)
        x[3][k] = x[2][k] + 0.7 * (x[1][k] - x[0][k]);
    int ee = n % 2, near;
    cdyn_proximity pr;
    if (ee)
      ck_assert_int_eq(cdyn_proximity_ee(x[0], x[1], x[2], x[3], 0.1, &near, &pr), CDYN_OK);
    else
      ck_assert_int_eq(cdyn_proximity_vf(x[0], x[1], x[2], x[3], 0.1, &near, &pr), CDYN_OK);
    double d[3] = {0, 0, 0};
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 3; k++)
        d[k] += pr.w[j] * x[j][k];
    ck_assert(fabs(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - pr.dist) <= 1e-12);
    ck_assert_int_eq(near, pr.dist < 0.1);
    if (ee) {
      ck_assert(pr.w[0] >= 0 && pr.w[1] >= 0 && -pr.w[2] >= 0 && -pr.w[3] >= 0);
      ck_assert(fabs(pr.w[0] + pr.w[1] - 1) <= 1e-15 && fabs(pr.w[2] + pr.w[3] + 1) <= 1e-15);
    } else {
      ck_assert(-pr.w[1] >= -1e-15 && -pr.w[2] >= -1e-15 && -pr.w[3] >= -1e-15);
      ck_assert(fabs(pr.w[1] + pr.w[2] + pr.w[3] + 1) <= 1e-12);
    }
    double best = INFINITY;
    for (int i = 0; i <= 60; i++)
      for (int j = 0; j <= 60; j++) {
        double y[3], z[3];
        if (ee) {
          double al = i / 60.0, be = j / 60.0;
          for (int k = 0; k < 3; k++)
            y[k] = x[0][k] + al * (x[1][k] - x[0][k]), z[k] = x[2][k] + be * (x[3][k] - x[2][k]);
        } else {
          if (i + j > 60)
            continue;
          double wb = i / 60.0, wc = j / 60.0;
          for (int k = 0; k < 3; k++)
            y[k] = x[0][k], z[k] = (1 - wb - wc) * x[1][k] + wb * x[2][k] + wc * x[3][k];
        }
        best = fmin(best, sqrt((y[0] - z[0]) * (y[0] - z[0]) + (y[1] - z[1]) * (y[1] - z[1]) +
                               (y[2] - z[2]) * (y[2] - z[2])));
      }
    ck_assert_msg(pr.dist <= best + 1e-12, "case %d (%s): %.15g, a sampled pair at %.15g", n, ee ? "ee" : "vf",
                  pr.dist, best);
  }
}
END_TEST

START_TEST(test_proximity_bad_input)
{
  const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0}, p[3] = {0.2, 0.2, 0.5}, nanp[3] = {NAN, 0, 0};
  const double mid[3] = {0.5, 0, 0};
  int near;
  cdyn_proximity pr;
  TU_EXPECT_STATUS(cdyn_proximity_vf(p, a, b, mid, 0.1, &near, &pr), CDYN_EDEGENERATE); /* zero area */
  TU_EXPECT_STATUS(cdyn_proximity_ee(p, p, a, b, 0.1, &near, &pr), CDYN_EDEGENERATE);  /* zero length */
  TU_EXPECT_EINVAL(cdyn_proximity_vf(p, a, b, c, 0, &near, &pr));
  TU_EXPECT_EINVAL(cdyn_proximity_vf(p, a, b, c, -1, &near, &pr));
  TU_EXPECT_EINVAL(cdyn_proximity_vf(nanp, a, b, c, 0.1, &near, &pr));
  TU_EXPECT_EINVAL(cdyn_proximity_ee(p, a, b, nanp, 0.1, &near, &pr));
  TU_EXPECT_EINVAL(cdyn_proximity_vf(p, a, b, NULL, 0.1, &near, &pr));
  TU_EXPECT_EINVAL(cdyn_proximity_vf(p, a, b, c, 0.1, NULL, &pr));
  /* A node 0.5 above the face: distance 0.5, normal +z; near only below 0.5. */
  ck_assert_int_eq(cdyn_proximity_vf(p, a, b, c, 0.5, &near, &pr), CDYN_OK);
  ck_assert(fabs(pr.dist - 0.5) <= 1e-15 && near == 0 && pr.normal[2] == 1);
  ck_assert_int_eq(cdyn_proximity_vf(p, a, b, c, 0.51, &near, &pr), CDYN_OK);
  ck_assert_int_eq(near, 1);
}
END_TEST

/* ---- the exact replay ---------------------------------------------------------------- */

/* The swept box of points idx[0..n-1] grown by g, as the replay makes it. */
static void swept_box(const size_t *idx, int n, const double *x0, const double *x1, double g, double lo[3],
                      double hi[3])
{
  for (int k = 0; k < 3; k++) {
    lo[k] = INFINITY, hi[k] = -INFINITY;
    for (int a = 0; a < n; a++) {
      lo[k] = fmin(lo[k], fmin(x0[3 * idx[a] + k], x1[3 * idx[a] + k]));
      hi[k] = fmax(hi[k], fmax(x0[3 * idx[a] + k], x1[3 * idx[a] + k]));
    }
    lo[k] -= g, hi[k] += g;
  }
}

static double move_of(const double *x0, const double *x1, size_t i)
{
  double d[3] = {x1[3 * i] - x0[3 * i], x1[3 * i + 1] - x0[3 * i + 1], x1[3 * i + 2] - x0[3 * i + 2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* The edges of the triangles (each side once, smaller particle first),
   by search, sharing nothing with the replay; *ne gets their number.
   The caller frees them. */
/* The 2 (G - 1)^2 triangles of a G x G grid of nodes (node i G + j), two per
   cell, into tri (6 (G - 1)^2 values). */
static void grid_triangles(size_t G, size_t *tri)
{
  size_t k = 0;
  for (size_t i = 0; i + 1 < G; i++)
    for (size_t j = 0; j + 1 < G; j++) {
      size_t a = i * G + j, b = a + 1, c = a + G, d = c + 1;
      tri[k++] = a, tri[k++] = b, tri[k++] = d, tri[k++] = a, tri[k++] = d, tri[k++] = c;
    }
}

static size_t *mesh_edges(const size_t *tri, size_t nt, size_t *ne)
{
  size_t *ed = malloc(6 * nt * sizeof *ed), n = 0;
  ck_assert_ptr_nonnull(ed);
  for (size_t t = 0; t < nt; t++)
    for (int k = 0; k < 3; k++) {
      size_t i = tri[3 * t + k], j = tri[3 * t + (k + 1) % 3], a = i < j ? i : j, b = i < j ? j : i, e;
      for (e = 0; e < n && !(ed[2 * e] == a && ed[2 * e + 1] == b); e++)
        ;
      if (e == n)
        ed[2 * n] = a, ed[2 * n + 1] = b, n++;
    }
  *ne = n;
  return ed;
}

/* Do the swept boxes of points a (na) and b (nb), not grown, overlap? */
static int swept_overlap(const size_t *a, int na, const size_t *b, int nb, const double *x0, const double *x1)
{
  double alo[3], ahi[3], blo[3], bhi[3];
  swept_box(a, na, x0, x1, 0, alo, ahi);
  swept_box(b, nb, x0, x1, 0, blo, bhi);
  for (int k = 0; k < 3; k++)
    if (ahi[k] < blo[k] || bhi[k] < alo[k])
      return 0;
  return 1;
}

/* The replay's definition, pair by pair: every node of the np particles
   against every triangle, every edge against every later edge (their
   distance at x1 kept when within pad); those whose swept boxes overlap
   (counted) and that the distance bound does not clear (near) are decided
   by the exact test alone (no filter): exact stays 0 and filtered 0. */
static void replay_all_pairs(const size_t *tri, size_t nt, size_t np, const double *x0, const double *x1, double pad,
                             ref_replay_report *rep)
{
  memset(rep, 0, sizeof *rep);
  rep->min_dist = INFINITY;
  size_t ne, *ed = mesh_edges(tri, nt, &ne);
  for (size_t p = 0; p < np; p++)
    for (size_t t = 0; t < nt; t++) {
      const size_t *v = tri + 3 * t;
      if (p == v[0] || p == v[1] || p == v[2])
        continue;
      double D0 = ref_dist_point_triangle(x0 + 3 * p, x0 + 3 * v[0], x0 + 3 * v[1], x0 + 3 * v[2]);
      double D1 = ref_dist_point_triangle(x1 + 3 * p, x1 + 3 * v[0], x1 + 3 * v[1], x1 + 3 * v[2]);
      if (D1 < pad)
        rep->min_dist = fmin(rep->min_dist, D1);
      if (!swept_overlap(&p, 1, v, 3, x0, x1))
        continue;
      rep->vf_pairs++;
      double S = move_of(x0, x1, p) +
                 fmax(move_of(x0, x1, v[0]), fmax(move_of(x0, x1, v[1]), move_of(x0, x1, v[2])));
      if (D0 + D1 - S > 1e-9)
        continue;
      double P[2][3], Q[3][2][3];
      for (int k = 0; k < 3; k++) {
        P[0][k] = x0[3 * p + k], P[1][k] = x1[3 * p + k];
        for (int a = 0; a < 3; a++)
          Q[a][0][k] = x0[3 * v[a] + k], Q[a][1][k] = x1[3 * v[a] + k];
      }
      rep->near++;
      int r = ref_ccd_vf(P, Q[0], Q[1], Q[2], NULL, NULL);
      rep->degenerate += r == REF_CCD_DEGENERATE;
      rep->crossings += r == 1;
    }
  for (size_t e = 0; e < ne; e++)
    for (size_t f = e + 1; f < ne; f++) {
      const size_t *a = ed + 2 * e, *b = ed + 2 * f;
      if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1])
        continue;
      double D0 = ref_dist_segments(x0 + 3 * a[0], x0 + 3 * a[1], x0 + 3 * b[0], x0 + 3 * b[1]);
      double D1 = ref_dist_segments(x1 + 3 * a[0], x1 + 3 * a[1], x1 + 3 * b[0], x1 + 3 * b[1]);
      if (D1 < pad)
        rep->min_dist = fmin(rep->min_dist, D1);
      if (!swept_overlap(a, 2, b, 2, x0, x1))
        continue;
      rep->ee_pairs++;
      double S = fmax(move_of(x0, x1, a[0]), move_of(x0, x1, a[1])) + fmax(move_of(x0, x1, b[0]), move_of(x0, x1, b[1]));
      if (D0 + D1 - S > 1e-9)
        continue;
      double Q[4][2][3];
      const size_t ends[4] = {a[0], a[1], b[0], b[1]};
      for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++)
          Q[j][0][k] = x0[3 * ends[j] + k], Q[j][1][k] = x1[3 * ends[j] + k];
      rep->near++;
      int r = ref_ccd_ee(Q[0], Q[1], Q[2], Q[3], NULL, NULL);
      rep->degenerate += r == REF_CCD_DEGENERATE;
      rep->crossings += r == 1;
    }
  free(ed);
}

/*
 * The replay (a grid of the swept boxes, the distance bound with the
 * boxes' gap or one distance where the step's end alone clears a pair, the
 * filter, the exact test) gives the report that testing every pair with
 * the exact test alone gives (the filter's and the exact test's shares
 * adding up to the pairs past the distance bound), on crumpled
 * sheets of 2 x 2 to 12 x 12 nodes folded over themselves, moving by up to
 * 0.1 (crossings among them), with pad 0, 0.02 and 0.2, some nodes still
 * and some sharing coordinates along x (boxes that begin where others do).
 * The distances of an edge pair are taken in either order, so min_dist is
 * compared to rounding.
 */
START_TEST(test_replay_all_pairs)
{
  uint64_t seed = 2024;
  const size_t sides[] = {2, 3, 5, 8, 12};
  const double pads[] = {0, 0.02, 0.2};
  size_t crossings = 0, near = 0, filtered = 0;
  for (int si = 0; si < 5; si++)
    for (int pi = 0; pi < 3; pi++)
      for (int rep_i = 0; rep_i < 3; rep_i++) {
        size_t G = sides[si], np = G * G, nt = 2 * (G - 1) * (G - 1);
        size_t *tri = malloc(3 * nt * sizeof *tri);
        double *x0 = malloc(3 * np * sizeof *x0), *x1 = malloc(3 * np * sizeof *x1);
        ck_assert(tri && x0 && x1);
        grid_triangles(G, tri);
        double fold = tu_uniform(&seed, 0, 3), move = tu_uniform(&seed, 0, 0.1);
        for (size_t i = 0; i < G; i++)
          for (size_t j = 0; j < G; j++) {
            size_t q = i * G + j;
            double u = (double)i / (double)(G - 1), th = fold * 3.141592653589793 * (double)j / (double)(G - 1);
            x0[3 * q] = i % 4 == 3 ? x0[3 * (q - G)] : u + tu_uniform(&seed, -0.01, 0.01);
            x0[3 * q + 1] = 0.3 * sin(th) + tu_uniform(&seed, -0.01, 0.01);
            x0[3 * q + 2] = 0.3 * cos(th) + tu_uniform(&seed, -0.01, 0.01);
            for (int c = 0; c < 3; c++)
              x1[3 * q + c] = q % 5 == 2 ? x0[3 * q + c] : x0[3 * q + c] + tu_uniform(&seed, -move, move);
          }
        ref_replay_report got, want;
        ck_assert_int_eq(ref_replay(tri, nt, x0, x1, pads[pi], &got), 0);
        replay_all_pairs(tri, nt, np, x0, x1, pads[pi], &want);
        ck_assert_msg(got.vf_pairs == want.vf_pairs && got.ee_pairs == want.ee_pairs && got.near == want.near &&
                          got.filtered + got.exact == got.near && got.crossings == want.crossings &&
                          got.degenerate == want.degenerate,
                      "%zu x %zu, pad %g: pairs %zu + %zu, near %zu (filtered %zu, exact %zu), crossings %zu, "
                      "degenerate %zu; all pairs: %zu + %zu, %zu, %zu, %zu",
                      G, G, pads[pi], got.vf_pairs, got.ee_pairs, got.near, got.filtered, got.exact, got.crossings,
                      got.degenerate, want.vf_pairs, want.ee_pairs, want.near, want.crossings, want.degenerate);
        ck_assert_msg(got.min_dist == want.min_dist || fabs(got.min_dist - want.min_dist) <= 1e-14,
                      "%zu x %zu, pad %g: min_dist %.17g, all pairs %.17g", G, G, pads[pi], got.min_dist,
                      want.min_dist);
        crossings += got.crossings, near += got.near, filtered += got.filtered;
        free(tri), free(x0), free(x1);
      }
  /* Pairs get past the distance bound, the filter decides some of them,
     and there are crossings. */
  ck_assert_uint_gt(near, 100);
  ck_assert_uint_gt(filtered, 0);
  ck_assert_uint_gt(crossings, 10);
}
END_TEST

/* A G x G sheet of nodes (grid_triangles), its states x0 and x1 and a
   replay workspace kept over the calls of a test. */
typedef struct {
  size_t G, np, nt, *tri;
  double *x0, *x1;
  ref_replay_ws *ws;
} replay_sheet;

static void sheet_open(replay_sheet *f, size_t G)
{
  f->G = G, f->np = G * G, f->nt = 2 * (G - 1) * (G - 1);
  f->tri = malloc(3 * f->nt * sizeof *f->tri);
  f->x0 = malloc(3 * f->np * sizeof *f->x0), f->x1 = malloc(3 * f->np * sizeof *f->x1);
  f->ws = ref_replay_ws_new();
  ck_assert(f->tri && f->x0 && f->x1 && f->ws);
  grid_triangles(G, f->tri);
}

static void sheet_close(replay_sheet *f)
{
  ref_replay_ws_free(f->ws);
  free(f->tri), free(f->x0), free(f->x1);
}

/* The workspace's replay of x0 to x1 against replay_all_pairs (call: the
   test's call, for the message); its report into *got. */
static void sheet_expect_all_pairs(replay_sheet *f, double pad, int call, ref_replay_report *got)
{
  ref_replay_report want;
  const double *path[2] = {f->x0, f->x1};
  ck_assert_int_eq(ref_replay_path_ws(f->ws, f->tri, f->nt, path, 2, pad, got), 0);
  replay_all_pairs(f->tri, f->nt, f->np, f->x0, f->x1, pad, &want);
  ck_assert_msg(got->vf_pairs == want.vf_pairs && got->ee_pairs == want.ee_pairs && got->near == want.near &&
                    got->crossings == want.crossings && got->degenerate == want.degenerate,
                "call %d: pairs %zu + %zu, near %zu, crossings %zu, degenerate %zu; all pairs: %zu + %zu, %zu, "
                "%zu, %zu",
                call, got->vf_pairs, got->ee_pairs, got->near, got->crossings, got->degenerate, want.vf_pairs,
                want.ee_pairs, want.near, want.crossings, want.degenerate);
  ck_assert_msg(got->min_dist == want.min_dist || fabs(got->min_dist - want.min_dist) <= 1e-14,
                "call %d: min_dist %.17g, all pairs %.17g", call, got->min_dist, want.min_dist);
}

/*
 * The replay's grid meets boxes of every size: on a 10 x 10 sheet moving
 * a little, a few nodes sweep across the whole sheet (their boxes span
 * many cells, and are tested against every box) and one is far away (a
 * cell index far from the others), twice with the same workspace (the
 * second call finds its edges again only if the triangles changed); the
 * report is the all-pairs one.
 */
START_TEST(test_replay_grid_sizes)
{
  uint64_t seed = 77;
  replay_sheet f;
  sheet_open(&f, 10);
  size_t G = f.G, big_pairs = 0;
  double *x0 = f.x0, *x1 = f.x1;
  for (int rep_i = 0; rep_i < 4; rep_i++) {
    for (size_t i = 0; i < G; i++)
      for (size_t j = 0; j < G; j++) {
        size_t q = i * G + j;
        x0[3 * q] = (double)i / (double)(G - 1);
        x0[3 * q + 1] = 0.05 * sin(3.0 * (double)j) + tu_uniform(&seed, -0.01, 0.01);
        x0[3 * q + 2] = (double)j / (double)(G - 1);
        for (int c = 0; c < 3; c++)
          x1[3 * q + c] = x0[3 * q + c] + tu_uniform(&seed, -0.02, 0.02);
      }
    /* Nodes sweeping across the sheet, through it (the first from corner
       to corner, past the triangles of the far node), and one far off. */
    size_t sweep[4] = {0, 12, 45, 77};
    for (int a = 0; a < 4; a++) {
      size_t q = a ? sweep[a] + (size_t)rep_i : 0;
      x1[3 * q] = 1 - x0[3 * q];
      x1[3 * q + 1] = -x0[3 * q + 1];
      x1[3 * q + 2] = 1 - x0[3 * q + 2];
    }
    x1[3 * 99 + 0] = x0[3 * 99] = 1e6;
    ref_replay_report got;
    sheet_expect_all_pairs(&f, 0.02, rep_i, &got);
    big_pairs += got.vf_pairs + got.ee_pairs;
    ck_assert_uint_gt(got.crossings, 0);
  }
  ck_assert_uint_gt(big_pairs, 0);
  sheet_close(&f);
}
END_TEST

/*
 * States that are not finite (a scheme that blew up) meet the replay's
 * broad phase, which reaches node-triangle and edge-edge pairs through
 * the pairs of triangles whose boxes overlap: an element's box lies
 * within its triangles' boxes only where neither has a NaN bound.  On a
 * 10 x 10 sheet rolled into a tube and moving a little, through one
 * workspace over eight calls (grids, kept pairs and their reuse), nodes
 * get a NaN coordinate at the step's end (the first coordinate: a NaN box
 * at that state; another: a NaN bound along one axis only), at its start,
 * or at both (a swept box that is empty along that axis), an infinite
 * coordinate and one of 1e300; the report is the all-pairs one.
 */
START_TEST(test_replay_not_finite)
{
  uint64_t seed = 91;
  replay_sheet f;
  sheet_open(&f, 10);
  size_t G = f.G, np = f.np, pairs = 0;
  double *x0 = f.x0, *x1 = f.x1;
  for (int call = 0; call < 8; call++) {
    for (size_t q = 0; q < np; q++) {
      double u = (double)(q / G) / (double)(G - 1), th = 7.85 * (double)(q % G) / (double)(G - 1);
      x0[3 * q] = u + 0.002 * call;
      x0[3 * q + 1] = 0.3 * sin(th) + tu_uniform(&seed, -0.01, 0.01);
      x0[3 * q + 2] = 0.3 * cos(th) + tu_uniform(&seed, -0.01, 0.01);
      for (int c = 0; c < 3; c++)
        x1[3 * q + c] = x0[3 * q + c] + tu_uniform(&seed, -0.03, 0.03);
    }
    if (call % 4 != 0) { /* calls 0 and 4 finite: kept pairs built, then met by states that are not */
      size_t a = (size_t)call * 11 % np;
      x1[3 * a] = NAN;
      x1[3 * ((a + 23) % np) + 1] = NAN;
      x0[3 * ((a + 37) % np) + 2] = NAN;
      x0[3 * ((a + 51) % np)] = x1[3 * ((a + 51) % np)] = NAN;
      x1[3 * ((a + 64) % np) + 1] = call % 2 ? INFINITY : -INFINITY;
      x1[3 * ((a + 78) % np) + 2] = 1e300;
    }
    ref_replay_report got;
    sheet_expect_all_pairs(&f, 0.05, call, &got);
    pairs += got.vf_pairs + got.ee_pairs;
  }
  ck_assert_uint_gt(pairs, 0);
  sheet_close(&f);
}
END_TEST

/*
 * The smallest distance of pairs that cannot touch: two 6 x 6 sheets of
 * spacing 0.1, one above the other by gap (0.003 to 0.015, within the pad
 * of 0.02 and below the sheets' own nearest non-adjacent pairs, 0.07),
 * the upper one shifted by a third of a spacing, both moving alike along
 * x.  No pair of one sheet against the other has overlapping swept boxes,
 * so the first pass does not meet them; the smallest distance is the gap
 * (a node of the upper sheet above a triangle of the lower), which the
 * second pass must find, as testing every pair does.  The gaps go up and
 * down again through one workspace too, whose first pass grows the boxes
 * by half the last call's smallest distance: going up, the gap is past
 * that growth and the second pass finds it; coming down (0.003 after
 * 0.015), the grown first pass alone meets the sheets' pairs, and must
 * neither count them as pairs whose swept boxes overlap nor miss the gap.
 */
START_TEST(test_replay_min_dist_apart)
{
  const size_t G = 6, ns = G * G, nt1 = 2 * (G - 1) * (G - 1), nt = 2 * nt1, np = 2 * ns;
  size_t *tri = malloc(3 * nt * sizeof *tri);
  double *x0 = malloc(3 * np * sizeof *x0), *x1 = malloc(3 * np * sizeof *x1);
  ck_assert(tri && x0 && x1);
  grid_triangles(G, tri);
  for (size_t k = 0; k < 3 * nt1; k++)
    tri[3 * nt1 + k] = tri[k] + ns;
  const double gaps[6] = {0.003, 0.008, 0.015, 0.015, 0.008, 0.003};
  ref_replay_ws *ws = ref_replay_ws_new();
  ck_assert_ptr_nonnull(ws);
  for (int gi = 0; gi < 6; gi++) {
    for (size_t s = 0; s < 2; s++)
      for (size_t i = 0; i < G; i++)
        for (size_t j = 0; j < G; j++) {
          size_t q = s * ns + i * G + j;
          x0[3 * q] = 0.1 * (double)i + (s ? 0.1 / 3 : 0);
          x0[3 * q + 1] = s ? gaps[gi] : 0;
          x0[3 * q + 2] = 0.1 * (double)j + (s ? 0.1 / 3 : 0);
          x1[3 * q] = x0[3 * q] + 0.004, x1[3 * q + 1] = x0[3 * q + 1], x1[3 * q + 2] = x0[3 * q + 2];
        }
    ref_replay_report got, want;
    ck_assert_int_eq(ref_replay(tri, nt, x0, x1, 0.02, &got), 0);
    replay_all_pairs(tri, nt, np, x0, x1, 0.02, &want);
    ck_assert_msg(fabs(got.min_dist - gaps[gi]) <= 1e-15 && fabs(want.min_dist - gaps[gi]) <= 1e-15,
                  "gap %g: min_dist %.17g, all pairs %.17g", gaps[gi], got.min_dist, want.min_dist);
    ck_assert(got.vf_pairs == want.vf_pairs && got.ee_pairs == want.ee_pairs && got.crossings == 0);
    /* The same through the kept workspace: the same report. */
    ref_replay_report kept;
    const double *path[2] = {x0, x1};
    ck_assert_int_eq(ref_replay_path_ws(ws, tri, nt, path, 2, 0.02, &kept), 0);
    ck_assert_msg(kept.min_dist == got.min_dist && kept.vf_pairs == got.vf_pairs && kept.ee_pairs == got.ee_pairs &&
                      kept.near == got.near && kept.filtered == got.filtered && kept.exact == got.exact &&
                      kept.crossings == 0 && kept.degenerate == got.degenerate,
                  "gap %g (call %d): kept workspace min_dist %.17g, pairs %zu + %zu; fresh %.17g, %zu + %zu", gaps[gi],
                  gi, kept.min_dist, kept.vf_pairs, kept.ee_pairs, got.min_dist, got.vf_pairs, got.ee_pairs);
  }
  ref_replay_ws_free(ws);
  free(tri), free(x0), free(x1);
}
END_TEST

/* The boxes of points a (na) and b (nb) over the states x[from .. to],
   grown by g: do they overlap? */
static int path_boxes_overlap(const double *const *x, size_t from, size_t to, const size_t *a, int na,
                              const size_t *b, int nb, double g)
{
  double alo[3], ahi[3], blo[3], bhi[3], lo[3], hi[3];
  for (int k = 0; k < 3; k++)
    alo[k] = blo[k] = INFINITY, ahi[k] = bhi[k] = -INFINITY;
  for (size_t j = from; j < to; j++) {
    swept_box(a, na, x[j], x[j + 1], g, lo, hi);
    for (int k = 0; k < 3; k++)
      alo[k] = fmin(alo[k], lo[k]), ahi[k] = fmax(ahi[k], hi[k]);
    swept_box(b, nb, x[j], x[j + 1], g, lo, hi);
    for (int k = 0; k < 3; k++)
      blo[k] = fmin(blo[k], lo[k]), bhi[k] = fmax(bhi[k], hi[k]);
  }
  for (int k = 0; k < 3; k++)
    if (ahi[k] < blo[k] || bhi[k] < alo[k])
      return 0;
  return 1;
}

/*
 * A path's definition, pair by pair, with the exact test alone: a pair
 * whose boxes over the path overlap (not grown) is counted; it touched if the exact
 * test finds a contact on some piece (pieces whose own boxes do not
 * overlap are apart: there the exact test's axis test answers 0), else it
 * is degenerate if some piece is; the distance at the last state within
 * pad gives min_dist.
 */
static void path_all_pairs(const size_t *tri, size_t nt, size_t np, const double *const *x, size_t nx, double pad,
                           ref_replay_report *rep)
{
  memset(rep, 0, sizeof *rep);
  rep->min_dist = INFINITY;
  size_t ne, *ed = mesh_edges(tri, nt, &ne);
  const double *last = x[nx - 1];
  double Q[4][2][3];
  for (size_t p = 0; p < np; p++)
    for (size_t t = 0; t < nt; t++) {
      const size_t *v = tri + 3 * t;
      if (p == v[0] || p == v[1] || p == v[2])
        continue;
      double D = ref_dist_point_triangle(last + 3 * p, last + 3 * v[0], last + 3 * v[1], last + 3 * v[2]);
      if (D < pad)
        rep->min_dist = fmin(rep->min_dist, D);
      if (!path_boxes_overlap(x, 0, nx - 1, &p, 1, v, 3, 0))
        continue;
      rep->vf_pairs++;
      int touched = 0, degenerate = 0;
      const size_t ids[4] = {p, v[0], v[1], v[2]};
      for (size_t j = 0; j + 1 < nx && !touched; j++) {
        if (!path_boxes_overlap(x, j, j + 1, &p, 1, v, 3, 0))
          continue;
        for (int a = 0; a < 4; a++)
          for (int k = 0; k < 3; k++)
            Q[a][0][k] = x[j][3 * ids[a] + k], Q[a][1][k] = x[j + 1][3 * ids[a] + k];
        int r = ref_ccd_vf(Q[0], Q[1], Q[2], Q[3], NULL, NULL);
        touched = r == 1;
        degenerate = degenerate || r == REF_CCD_DEGENERATE;
      }
      rep->crossings += touched;
      rep->degenerate += !touched && degenerate;
    }
  for (size_t e = 0; e < ne; e++)
    for (size_t f = e + 1; f < ne; f++) {
      const size_t *a = ed + 2 * e, *b = ed + 2 * f;
      if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1])
        continue;
      double D = ref_dist_segments(last + 3 * a[0], last + 3 * a[1], last + 3 * b[0], last + 3 * b[1]);
      if (D < pad)
        rep->min_dist = fmin(rep->min_dist, D);
      if (!path_boxes_overlap(x, 0, nx - 1, a, 2, b, 2, 0))
        continue;
      rep->ee_pairs++;
      int touched = 0, degenerate = 0;
      const size_t ids[4] = {a[0], a[1], b[0], b[1]};
      for (size_t j = 0; j + 1 < nx && !touched; j++) {
        if (!path_boxes_overlap(x, j, j + 1, a, 2, b, 2, 0))
          continue;
        for (int c = 0; c < 4; c++)
          for (int k = 0; k < 3; k++)
            Q[c][0][k] = x[j][3 * ids[c] + k], Q[c][1][k] = x[j + 1][3 * ids[c] + k];
        int r = ref_ccd_ee(Q[0], Q[1], Q[2], Q[3], NULL, NULL);
        touched = r == 1;
        degenerate = degenerate || r == REF_CCD_DEGENERATE;
      }
      rep->crossings += touched;
      rep->degenerate += !touched && degenerate;
    }
  free(ed);
}

/*
 * The replay of a path (ref_replay_path) on crumpled 6 x 6 sheets moving
 * through 2 to 4 pieces (each piece a fresh random motion of up to 0.08,
 * some nodes still): the report that the path's definition gives with the
 * exact test alone on every piece (crossings, degenerate, pairs,
 * min_dist); each pair counted once however many pieces it touches in,
 * so the crossings lie between the largest of the pieces' own replays
 * and their sum; near = filtered + exact; and a path of one piece is
 * ref_replay exactly.
 */
START_TEST(test_replay_path)
{
  uint64_t seed = 4242;
  enum { G = 6, NP = G * G, NT = 2 * (G - 1) * (G - 1), MAXS = 5 };
  size_t tri[3 * NT];
  grid_triangles(G, tri);
  static double xs[MAXS][3 * NP];
  size_t total = 0, fewer = 0;
  for (int rep_i = 0; rep_i < 24; rep_i++) {
    size_t nx = 3 + (size_t)rep_i % 3;
    double fold = tu_uniform(&seed, 1, 3), pad = rep_i % 2 ? 0.05 : 0;
    for (size_t i = 0; i < G; i++)
      for (size_t j = 0; j < G; j++) {
        size_t q = i * G + j;
        double u = (double)i / (G - 1), th = fold * 3.141592653589793 * (double)j / (G - 1);
        xs[0][3 * q] = u + tu_uniform(&seed, -0.01, 0.01);
        xs[0][3 * q + 1] = 0.3 * sin(th) + tu_uniform(&seed, -0.01, 0.01);
        xs[0][3 * q + 2] = 0.3 * cos(th) + tu_uniform(&seed, -0.01, 0.01);
      }
    for (size_t s = 1; s < nx; s++)
      for (size_t q = 0; q < NP; q++)
        for (int c = 0; c < 3; c++)
          xs[s][3 * q + c] = xs[s - 1][3 * q + c] + (q % 7 == 3 ? 0 : tu_uniform(&seed, -0.08, 0.08));
    const double *x[MAXS];
    for (size_t s = 0; s < nx; s++)
      x[s] = xs[s];
    ref_replay_report got, want, piece;
    ck_assert_int_eq(ref_replay_path(tri, NT, x, nx, pad, &got), 0);
    path_all_pairs(tri, NT, NP, x, nx, pad, &want);
    ck_assert_msg(got.vf_pairs == want.vf_pairs && got.ee_pairs == want.ee_pairs && got.crossings == want.crossings &&
                      got.degenerate == want.degenerate && got.filtered + got.exact == got.near,
                  "path %d (%zu states): pairs %zu + %zu, crossings %zu, degenerate %zu, near %zu = %zu + %zu; "
                  "definition: %zu + %zu, %zu, %zu",
                  rep_i, nx, got.vf_pairs, got.ee_pairs, got.crossings, got.degenerate, got.near, got.filtered,
                  got.exact, want.vf_pairs, want.ee_pairs, want.crossings, want.degenerate);
    ck_assert_msg(got.min_dist == want.min_dist || fabs(got.min_dist - want.min_dist) <= 1e-14,
                  "path %d: min_dist %.17g, definition %.17g", rep_i, got.min_dist, want.min_dist);
    size_t sum = 0, most = 0;
    for (size_t s = 0; s + 1 < nx; s++) {
      ck_assert_int_eq(ref_replay(tri, NT, x[s], x[s + 1], pad, &piece), 0);
      sum += piece.crossings;
      most = piece.crossings > most ? piece.crossings : most;
    }
    ck_assert_msg(most <= got.crossings && got.crossings <= sum, "path %d: %zu crossings, pieces' most %zu, sum %zu",
                  rep_i, got.crossings, most, sum);
    total += got.crossings, fewer += sum - got.crossings;
    /* One piece: ref_replay itself. */
    ref_replay_report one;
    ck_assert_int_eq(ref_replay_path(tri, NT, x, 2, pad, &got), 0);
    ck_assert_int_eq(ref_replay(tri, NT, x[0], x[1], pad, &one), 0);
    ck_assert(got.vf_pairs == one.vf_pairs && got.ee_pairs == one.ee_pairs && got.near == one.near &&
              got.filtered == one.filtered && got.exact == one.exact && got.crossings == one.crossings &&
              got.degenerate == one.degenerate && (got.min_dist == one.min_dist || isnan(got.min_dist + one.min_dist) ||
                                                   (isinf(got.min_dist) && isinf(one.min_dist))));
  }
  /* The paths cross, and some pairs touch in more than one piece. */
  ck_assert_uint_gt(total, 10);
  ck_assert_uint_gt(fewer, 0);
}
END_TEST

/*
 * A small triangle that goes through a large one and comes back within a
 * step: the straight replay from the step's start to its end (the same
 * state) sees nothing; the path through the sub-step's state sees each of
 * the small triangle's three nodes cross the large triangle, in both
 * pieces, and counts each pair once: 3 crossings, where the pieces' own
 * replays find 3 each.  Bad arguments.
 */
START_TEST(test_replay_path_there_and_back)
{
  const size_t tri[6] = {0, 1, 2, 3, 4, 5};
  /* Triangle 0 1 2 in z = 0, still; triangle 3 4 5 above its interior,
     below it at the sub-step's end, back above at the step's end. */
  double x0[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, 0.4, 0.25, 0.2, 0.4, 0.2, 0.25, 0.4};
  double x1[18];
  memcpy(x1, x0, sizeof x1);
  for (int n = 3; n < 6; n++)
    x1[3 * n + 2] = -0.4;
  const double *path[3] = {x0, x1, x0};
  ref_replay_report rp, straight, a, b;
  ck_assert_int_eq(ref_replay(tri, 2, x0, x0, 0, &straight), 0);
  ck_assert_int_eq(ref_replay(tri, 2, x0, x1, 0, &a), 0);
  ck_assert_int_eq(ref_replay(tri, 2, x1, x0, 0, &b), 0);
  ck_assert_int_eq(ref_replay_path(tri, 2, path, 3, 0, &rp), 0);
  ck_assert_uint_eq(straight.crossings, 0);
  ck_assert_uint_eq(a.crossings, 3);
  ck_assert_uint_eq(b.crossings, 3);
  ck_assert_uint_eq(rp.crossings, 3);
  ck_assert_uint_eq(rp.vf_pairs, 3);
  /* The small triangle's sides against the large one's hypotenuse, whose
     box holds them; none touches. */
  ck_assert_uint_eq(rp.ee_pairs, 3);
  /* Bad arguments. */
  const double *bad[3] = {x0, NULL, x0};
  ck_assert_int_eq(ref_replay_path(tri, 2, bad, 3, 0, &rp), -1);
  ck_assert_int_eq(ref_replay_path(tri, 2, path, 1, 0, &rp), -1);
  ck_assert_int_eq(ref_replay_path(tri, 2, NULL, 3, 0, &rp), -1);
  ck_assert_int_eq(ref_replay_path(tri, 2, path, 3, -1, &rp), -1);
  ck_assert_int_eq(ref_replay_path(tri, 2, path, 3, 0, NULL), -1);
  ck_assert_int_eq(ref_replay(tri, 2, NULL, x0, 0, &rp), -1);
}
END_TEST

/*
 * The kept pairs: a 12 x 12 sheet folded over itself moves a little at
 * each of 90 calls through one workspace (every node along its own
 * smooth path, a few nodes still), with the whole sheet shifted by 0.2,
 * past every box's skin, at call 15, stretched along x by 15 % (0.15 m
 * from end to end, past the skins too) at every call from 30 to 37, and,
 * from call 20 to 40, a node sweeping through the fold; every call's
 * report is the one a fresh workspace gives, field by field (min_dist to
 * the bit: the same distances of the same pairs), and the counts of
 * testing every pair.  Every way of meeting the pairs is taken: a grid
 * whose pairs are kept (the first call, after the stretches), the pairs
 * kept from an earlier call (at every call of a drift of the whole sheet
 * by 0.015 a call from call 50 to 70, 0.3 in all: a translation moves
 * no box against another), and, while some node moves past its skin at
 * every call relative to the others (the sweeping node, the stretches),
 * the plain grid (a kept list served no call); once every node moves a
 * little again, kept pairs serve calls again.
 */
START_TEST(test_replay_kept_pairs)
{
  uint64_t seed = 9090;
  enum { G = 12, NP = G * G, NT = 2 * (G - 1) * (G - 1), CALLS = 90 };
  size_t tri[3 * NT];
  grid_triangles(G, tri);
  static double xa[3 * NP], xb[3 * NP], ph[3 * NP];
  for (size_t k = 0; k < 3 * NP; k++)
    ph[k] = tu_uniform(&seed, 0, 6.283185307179586);
  ref_replay_ws *ws = ref_replay_ws_new();
  ck_assert_ptr_nonnull(ws);
  size_t crossings = 0, near = 0, reuses_jumping = 0, reuses_50 = 0, reuses_70 = 0;
  double shift = 0, stretch = 1;
  for (int call = 0; call <= CALLS; call++) {
    double *x = call % 2 ? xb : xa;
    if (call == 15)
      shift += 0.2;
    if (call >= 30 && call <= 37)
      stretch *= 1.15;
    if (call > 50 && call <= 70)
      shift += 0.015;
    for (size_t i = 0; i < G; i++)
      for (size_t j = 0; j < G; j++) {
        size_t q = i * G + j;
        double u = (double)i / (G - 1), th = 2.2 * 3.141592653589793 * (double)j / (G - 1), t = 0.01 * call;
        double w = q % 11 == 5 ? 0 : 0.02;
        x[3 * q] = u * stretch + shift + w * sin(30 * t + ph[3 * q]);
        x[3 * q + 1] = 0.2 * sin(th) + w * sin(40 * t + ph[3 * q + 1]);
        x[3 * q + 2] = 0.2 * cos(th) + w * sin(50 * t + ph[3 * q + 2]);
      }
    if (call >= 20) { /* node 60 through the fold, then still below it */
      double s = call < 40 ? (double)(call - 20) / 20 : 1;
      x[3 * 60 + 1] = 0.3 - 0.6 * s;
    }
    if (!call)
      continue;
    const double *path[2] = {call % 2 ? xa : xb, x};
    ref_replay_report kept, fresh, want;
    ck_assert_int_eq(ref_replay_path_ws(ws, tri, NT, path, 2, 0.02, &kept), 0);
    ck_assert_int_eq(ref_replay_path(tri, NT, path, 2, 0.02, &fresh), 0);
    replay_all_pairs(tri, NT, NP, path[0], path[1], 0.02, &want);
    ck_assert_msg(kept.vf_pairs == fresh.vf_pairs && kept.ee_pairs == fresh.ee_pairs && kept.near == fresh.near &&
                      kept.filtered == fresh.filtered && kept.exact == fresh.exact &&
                      kept.crossings == fresh.crossings && kept.degenerate == fresh.degenerate &&
                      kept.min_dist == fresh.min_dist,
                  "call %d: kept pairs %zu + %zu, near %zu, crossings %zu, min_dist %.17g; fresh %zu + %zu, %zu, %zu, "
                  "%.17g",
                  call, kept.vf_pairs, kept.ee_pairs, kept.near, kept.crossings, kept.min_dist, fresh.vf_pairs,
                  fresh.ee_pairs, fresh.near, fresh.crossings, fresh.min_dist);
    ck_assert_msg(kept.vf_pairs == want.vf_pairs && kept.ee_pairs == want.ee_pairs && kept.near == want.near &&
                      kept.crossings == want.crossings && kept.degenerate == want.degenerate,
                  "call %d: pairs %zu + %zu, near %zu, crossings %zu; all pairs %zu + %zu, %zu, %zu", call,
                  kept.vf_pairs, kept.ee_pairs, kept.near, kept.crossings, want.vf_pairs, want.ee_pairs, want.near,
                  want.crossings);
    ck_assert(fabs(kept.min_dist - want.min_dist) <= 1e-14);
    crossings += kept.crossings, near += kept.near;
    if (call == 40)
      ref_replay_ws_counts(ws, NULL, &reuses_jumping, NULL);
    if (call == 50)
      ref_replay_ws_counts(ws, NULL, &reuses_50, NULL);
    if (call == 70)
      ref_replay_ws_counts(ws, NULL, &reuses_70, NULL);
  }
  ck_assert_msg(reuses_70 == reuses_50 + 20, "the drifting sheet: reuses %zu after call 50, %zu after call 70",
                reuses_50, reuses_70);
  size_t builds, reuses, plain;
  ref_replay_ws_counts(ws, &builds, &reuses, &plain);
  ck_assert_msg(builds >= 3 && reuses >= 10 && plain >= 2 && builds + reuses + plain == CALLS && reuses > reuses_jumping,
                "builds %zu, reuses %zu (%zu by call 40), plain %zu", builds, reuses, reuses_jumping, plain);
  ck_assert_uint_gt(crossings, 0);
  ck_assert_uint_gt(near, 40);
  ref_replay_ws_counts(NULL, &builds, &reuses, &plain);
  ck_assert_uint_eq(builds + reuses + plain, 0);
  ref_replay_ws_free(ws);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("ccd");
  TCase *tc = tcase_create("exact");
  tcase_add_test(tc, test_vf_constructed);
  tcase_add_test(tc, test_ee_constructed);
  tcase_add_test(tc, test_exact_integers);
  tcase_add_test(tc, test_vf_random_consistent);
  tcase_add_test(tc, test_library_vs_exact);
  tcase_add_test(tc, test_library_scales);
  tcase_add_test(tc, test_ccd_bad_input);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  tc = tcase_create("bvh"); /* and the discrete narrow phase */
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_bvh_pairs_exact);
  tcase_add_test(tc, test_bvh_bad_input);
  tcase_add_test(tc, test_proximity_random);
  tcase_add_test(tc, test_proximity_bad_input);
  suite_add_tcase(s, tc);
  tc = tcase_create("replay");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_replay_all_pairs);
  tcase_add_test(tc, test_replay_grid_sizes);
  tcase_add_test(tc, test_replay_not_finite);
  tcase_add_test(tc, test_replay_min_dist_apart);
  tcase_add_test(tc, test_replay_path);
  tcase_add_test(tc, test_replay_path_there_and_back);
  tcase_add_test(tc, test_replay_kept_pairs);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
