/*
 * tests/test_ccd_filter.c: the certified floating-point filter of the
 * exact replay (reference/ccd_filter.c) against the exact test
 * (reference/ccd_exact.c, GMP), query by query.  The filter may be
 * unsure; when it is not, its answer must be the exact test's: "apart"
 * only where the exact test answers 0 (never a contact, never
 * degenerate), "touch" only where it answers 1.  A single wrong answer
 * fails the test.
 *
 * The queries:
 * - constructed cases with a known answer: a node through the face, beside
 *   it, above it; edges crossing and passing; the filter must decide these
 *   clear ones, the answer being known by construction;
 * - the random family of the collision census (experiments/problems/ccd_queries.c),
 *   a third of it shifted to cross;
 * - every constructed degenerate family of the census (coplanar motion,
 *   parallel edges, a root of the cubic at t = 0 or 1, vertex and edge
 *   touches, a vanishing t^3 coefficient, near misses at 2^-30, grazing
 *   touches at distance 0), each query also with one coordinate moved by
 *   one unit in the last place (which may flip its answer: the exact test
 *   says which);
 * - the same queries scaled by powers of two from the subnormals to beyond
 *   the filter's 2^200 limit (there it must stay unsure unless the exact
 *   axis test separates the parties);
 * - the census's recorded disagreements between the library and the
 *   reference (tests/data/ccd-census-counterexamples.csv), the hard cases;
 * - the node-triangle and edge-edge pairs of crumpled meshes whose motion
 *   the replay's distance bound does not clear;
 * - bad input.
 * The share the filter decides is printed for each set.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include <cdyn/cdyn.h>

#include "problems/ccd_queries.h"
#include "reference/ccd_exact.h"
#include "reference/ccd_filter.h"
#include "reference/ccd_replay.h"
#include "testutil.h"

#ifndef CDYN_TEST_DATA
#error "CDYN_TEST_DATA must name the directory tests/data"
#endif

/* Queries asked, decided by the filter (apart, touch), by set. */
typedef struct {
  long asked, apart, touch;
} tally;

/* The filter against the exact test on one query (x[point][time][coord];
   vf: node 0, triangle 1 2 3; ee: edges 0 1 and 2 3); returns the
   filter's answer. */
static int check_query(int ee, const double x[4][2][3], tally *t, const char *what, long i)
{
  int f = ee ? ref_filter_ee(x[0], x[1], x[2], x[3]) : ref_filter_vf(x[0], x[1], x[2], x[3]);
  int g = ee ? ref_ccd_ee(x[0], x[1], x[2], x[3], NULL, NULL) : ref_ccd_vf(x[0], x[1], x[2], x[3], NULL, NULL);
  TU_ASSERT(f == REF_FILTER_APART || f == REF_FILTER_TOUCH || f == REF_FILTER_UNSURE, "%s %ld: filter %d", what, i,
            f);
  TU_ASSERT(g == 0 || g == 1 || g == REF_CCD_DEGENERATE, "%s %ld: exact test %d", what, i, g);
  /* Where the filter answers, the exact test agrees: apart is 0, touch 1. */
  if (f == REF_FILTER_APART || f == REF_FILTER_TOUCH)
    TU_ASSERT(g == (f == REF_FILTER_TOUCH),
              "%s %ld (%s): the filter says %s, the exact test %d: %a %a %a / %a %a %a, %a %a %a / %a %a %a, "
              "%a %a %a / %a %a %a, %a %a %a / %a %a %a",
              what, i, ee ? "ee" : "vf", f == REF_FILTER_TOUCH ? "touch" : "apart", g, x[0][0][0], x[0][0][1],
              x[0][0][2], x[0][1][0], x[0][1][1], x[0][1][2], x[1][0][0], x[1][0][1], x[1][0][2], x[1][1][0],
              x[1][1][1], x[1][1][2], x[2][0][0], x[2][0][1], x[2][0][2], x[2][1][0], x[2][1][1], x[2][1][2],
              x[3][0][0], x[3][0][1], x[3][0][2], x[3][1][0], x[3][1][1], x[3][1][2]);
  t->asked++;
  t->apart += f == REF_FILTER_APART;
  t->touch += f == REF_FILTER_TOUCH;
  return f;
}

static void print_tally(const char *what, const tally *t)
{
  printf("# %s: %ld queries, the filter decided %ld (%.1f %%: %ld apart, %ld touching), the exact test the rest\n",
         what, t->asked, t->apart + t->touch, t->asked ? 100.0 * (double)(t->apart + t->touch) / (double)t->asked : 0,
         t->apart, t->touch);
}

#define MOVE(name, x0, y0, z0, x1, y1, z1) {{x0, y0, z0}, {x1, y1, z1}}
#define STILL(x, y, z) MOVE(name, x, y, z, x, y, z)

/*
 * Clear cases: the answer by construction, and the filter must find it
 * (each is far from every degeneracy, with margins of a tenth of the
 * scale, so an unsure answer would be a filter that does not work).
 */
START_TEST(test_filter_constructed)
{
  tally t = {0, 0, 0};
  const struct {
    int ee, want;
    double x[4][2][3];
    const char *what;
  } cases[] = {
    {0, REF_FILTER_TOUCH, {MOVE(p, 0.25, 0.25, 1, 0.25, 0.25, -1), STILL(0, 0, 0), STILL(1, 0, 0), STILL(0, 1, 0)},
     "node through the face"},
    {0, REF_FILTER_TOUCH,
     {MOVE(p, 0.2, 0.3, 0.4, 0.3, 0.2, -0.7), MOVE(a, 0, 0, 0, 0.1, 0, 0.1), MOVE(b, 1, 0, 0, 1.1, 0.1, 0),
      MOVE(c, 0, 1, 0, 0, 1.1, -0.1)},
     "node through a moving face"},
    {0, REF_FILTER_APART, {MOVE(p, 2, 2, 1, 2, 2, -1), STILL(0, 0, 0), STILL(1, 0, 0), STILL(0, 1, 0)},
     "node beside the face (axis)"},
    {0, REF_FILTER_APART, {MOVE(p, 0.8, 0.8, 1, 0.8, 0.8, -1), STILL(0, 0, 0), STILL(1, 0, 0), STILL(0, 1, 0)},
     "node through the plane outside the hypotenuse"},
    {0, REF_FILTER_APART, {MOVE(p, 0.25, 0.25, 1, 0.3, 0.2, 0.1), STILL(0, 0, 0), STILL(1, 0, 0), STILL(0, 1, 0)},
     "node above the face"},
    {0, REF_FILTER_APART,
     {MOVE(p, -0.5, 0.3, 0.5, 0.3, -0.5, -0.5), STILL(0, 0, 0), STILL(1, 0, 0), STILL(0, 1, 0)},
     "node through the plane beyond the vertex a"},
    {1, REF_FILTER_TOUCH, {STILL(-1, 0, 0), STILL(1, 0, 0), MOVE(r, 0, -1, 1, 0, -1, -1), MOVE(s, 0, 1, 1, 0, 1, -1)},
     "edges crossing"},
    {1, REF_FILTER_APART, {STILL(-1, 0, 0), STILL(1, 0, 0), MOVE(r, 2, -1, 1, 2, -1, -1), MOVE(s, 2, 1, 1, 2, 1, -1)},
     "edges passing beyond an end (axis)"},
    {1, REF_FILTER_APART,
     {STILL(-1, 0, 0), STILL(1, 0, 0), MOVE(r, 0.5, 0.3, 1, 1.5, -0.1, -1), MOVE(s, 1.5, 0.9, 1, 2.5, 0.5, -1)},
     "edges through the same plane, apart in it"},
    {1, REF_FILTER_APART, {STILL(-1, 0, 0), STILL(1, 0, 0), MOVE(r, 0, -1, 1, 0, -1, 0.2), MOVE(s, 0, 1, 1, 0, 1, 0.2)},
     "edges approaching, not meeting"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int f = check_query(cases[k].ee, cases[k].x, &t, cases[k].what, (long)k);
    TU_ASSERT(f == cases[k].want, "%s: the filter says %d, built %d", cases[k].what, f, cases[k].want);
  }
  print_tally("constructed", &t);
}
END_TEST

/* The query scaled by 2^e (every coordinate; exact but where it falls
   into the subnormals or overflows). */
static int scale_query(const double x[4][2][3], int e, double out[4][2][3])
{
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 3; k++) {
        out[j][i][k] = ldexp(x[j][i][k], e);
        if (!isfinite(out[j][i][k]))
          return 0;
      }
  return 1;
}

/* Beyond the filter's magnitude limit (the query scaled so that its
   largest coordinate lies in [2^200, 2^201)) it is unsure, but where the
   exact test's own axis test separates the parties (then it says
   apart). */
static void check_beyond_limit(int ee, const double x[4][2][3], const char *what, long i)
{
  double big = 0, y[4][2][3];
  for (int j = 0; j < 4; j++)
    for (int t = 0; t < 2; t++)
      for (int k = 0; k < 3; k++)
        big = fmax(big, fabs(x[j][t][k]));
  if (big == 0 || !scale_query(x, 200 - ilogb(big), y))
    return;
  int f = ee ? ref_filter_ee(y[0], y[1], y[2], y[3]) : ref_filter_vf(y[0], y[1], y[2], y[3]);
  TU_ASSERT(f == REF_FILTER_UNSURE || f == REF_FILTER_APART, "%s %ld beyond 2^200: %d", what, i, f);
  if (f == REF_FILTER_APART) {
    int g = ee ? ref_ccd_ee(y[0], y[1], y[2], y[3], NULL, NULL) : ref_ccd_vf(y[0], y[1], y[2], y[3], NULL, NULL);
    TU_ASSERT(g == 0, "%s %ld beyond 2^200: apart, the exact test %d", what, i, g);
  }
}

/*
 * The census's random family: 4000 queries of each kind, and each again
 * scaled by 2^-1040 (coordinates near the subnormals, rounded there),
 * 2^-300, 2^150 and 2^199, and beyond the limit.
 */
START_TEST(test_filter_random)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  ck_assert_ptr_nonnull(r);
  gsl_rng_set(r, 7);
  static const int scales[] = {-1040, -300, 150, 199};
  for (int ee = 0; ee < 2; ee++) {
    tally t = {0, 0, 0}, ts = {0, 0, 0};
    for (unsigned long i = 0; i < 4000; i++) {
      double x[4][2][3], y[4][2][3];
      TU_ASSERT_OK(ccdq_random(r, ee, i, x));
      check_query(ee, x, &t, "random", (long)i);
      if (i % 4 == 0) {
        for (int s = 0; s < 4; s++)
          if (scale_query(x, scales[s], y))
            check_query(ee, y, &ts, "random, scaled", (long)i);
        check_beyond_limit(ee, x, "random", (long)i);
      }
    }
    print_tally(ee ? "random ee" : "random vf", &t);
    print_tally(ee ? "random ee, scaled" : "random vf, scaled", &ts);
    ck_assert(t.apart > 0 && t.touch > 0);
  }
  gsl_rng_free(r);
}
END_TEST

/* x with coordinate c (0 .. 23) moved by one double up or down. */
static void nudge(const double x[4][2][3], int c, int up, double out[4][2][3])
{
  memcpy(out, x, sizeof(double[4][2][3]));
  double *v = &out[c / 6][c / 3 % 2][c % 3];
  *v = nextafter(*v, up ? INFINITY : -INFINITY);
}

/*
 * Every constructed degenerate family of the census, 300 queries of each
 * kind (their answers known by construction and checked against the
 * exact test by test_ccd_census), each also with one coordinate nudged by
 * one double and scaled as in test_filter_random.
 */
START_TEST(test_filter_degenerate_families)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  ck_assert_ptr_nonnull(r);
  gsl_rng_set(r, 11);
  uint64_t seed = 5;
  static const int scales[] = {-1040, -300, 150, 199};
  tally all = {0, 0, 0}, nudged = {0, 0, 0}, scaled = {0, 0, 0};
  for (int fam = CCDQ_COPLANAR; fam < CCDQ_NFAM; fam++) {
    tally t = {0, 0, 0};
    for (int ee = 0; ee < 2; ee++)
      for (unsigned long i = 0; i < 300; i++) {
        double x[4][2][3], y[4][2][3];
        ccdq_info info;
        TU_ASSERT_OK(ccdq_constructed(r, fam, ee, i, x, &info));
        int f = check_query(ee, x, &t, ccdq_family_names[fam], (long)i);
        /* The construction's answer, where the filter gives one. */
        if (f != REF_FILTER_UNSURE)
          TU_ASSERT(f == (info.built ? REF_FILTER_TOUCH : REF_FILTER_APART), "%s %lu: filter %d, built %d",
                    ccdq_family_names[fam], i, f, info.built);
        int c = (int)(tu_next(&seed) % 24);
        nudge(x, c, (int)(tu_next(&seed) % 2), y);
        check_query(ee, y, &nudged, ccdq_family_names[fam], (long)i);
        if (i % 3 == 0) {
          for (int s = 0; s < 4; s++)
            if (scale_query(x, scales[s], y))
              check_query(ee, y, &scaled, ccdq_family_names[fam], (long)i);
          check_beyond_limit(ee, x, ccdq_family_names[fam], (long)i);
        }
      }
    print_tally(ccdq_family_names[fam], &t);
    all.asked += t.asked, all.apart += t.apart, all.touch += t.touch;
  }
  print_tally("constructed families", &all);
  print_tally("constructed families, one coordinate nudged by one double", &nudged);
  print_tally("constructed families, scaled", &scaled);
  gsl_rng_free(r);
}
END_TEST

/* The census's recorded disagreements (tests/data, as test_ccd_census.c
   reads them): queries on which the library and the reference differed. */
START_TEST(test_filter_counterexamples)
{
  const char *path = CDYN_TEST_DATA "/ccd-census-counterexamples.csv";
  FILE *f = fopen(path, "r");
  TU_ASSERT(f != NULL, "%s: %s", path, strerror(errno));
  char line[2048];
  TU_ASSERT(fgets(line, sizeof line, f) != NULL, "%s: empty", path);
  tally t = {0, 0, 0};
  long n = 0;
  while (fgets(line, sizeof line, f)) {
    n++;
    char *field[30], *save = NULL;
    int nf = 0;
    for (char *tok = strtok_r(line, ",\n", &save); tok && nf < 30; tok = strtok_r(NULL, ",\n", &save))
      field[nf++] = tok;
    TU_ASSERT(nf == 30, "%s: line %ld has %d fields", path, n + 1, nf);
    int ee = !strcmp(field[0], "ee");
    double x[4][2][3];
    for (int c = 0; c < 24; c++) {
      char *end;
      x[c / 6][c / 3 % 2][c % 3] = strtod(field[6 + c], &end);
      TU_ASSERT(end != field[6 + c] && !*end, "%s: line %ld: '%s'", path, n + 1, field[6 + c]);
    }
    check_query(ee, x, &t, "counterexample", n);
  }
  fclose(f);
  ck_assert(n > 0);
  print_tally("recorded disagreements of the census", &t);
}
END_TEST

/*
 * Mesh pairs: crumpled sheets of 8 x 8 nodes folded over themselves and
 * moved by up to 0.1 (as test_ccd.c's replay test builds them), every
 * node-triangle and edge-edge pair sharing no particle whose motion the
 * replay's distance bound does not clear (the pairs the filter sees in the
 * replay).
 */
static double move_of(const double *x0, const double *x1, size_t i)
{
  double d[3] = {x1[3 * i] - x0[3 * i], x1[3 * i + 1] - x0[3 * i + 1], x1[3 * i + 2] - x0[3 * i + 2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

START_TEST(test_filter_mesh_pairs)
{
  uint64_t seed = 77;
  enum { G = 8, NP = G * G, NT = 2 * (G - 1) * (G - 1) };
  size_t tri[3 * NT], k = 0;
  for (size_t i = 0; i + 1 < G; i++)
    for (size_t j = 0; j + 1 < G; j++) {
      size_t a = i * G + j, b = a + 1, c = a + G, d = c + 1;
      tri[k++] = a, tri[k++] = b, tri[k++] = d, tri[k++] = a, tri[k++] = d, tri[k++] = c;
    }
  size_t ed[6 * NT], ne = 0;
  for (size_t t = 0; t < NT; t++)
    for (int s = 0; s < 3; s++) {
      size_t i = tri[3 * t + s], j = tri[3 * t + (s + 1) % 3], a = i < j ? i : j, b = i < j ? j : i, e;
      for (e = 0; e < ne && !(ed[2 * e] == a && ed[2 * e + 1] == b); e++)
        ;
      if (e == ne)
        ed[2 * ne] = a, ed[2 * ne + 1] = b, ne++;
    }
  tally t = {0, 0, 0};
  for (int rep = 0; rep < 12; rep++) {
    double x0[3 * NP], x1[3 * NP];
    double fold = tu_uniform(&seed, 1, 3), move = tu_uniform(&seed, 0.02, 0.1);
    for (size_t i = 0; i < G; i++)
      for (size_t j = 0; j < G; j++) {
        size_t q = i * G + j;
        double u = (double)i / (G - 1), th = fold * 3.141592653589793 * (double)j / (G - 1);
        x0[3 * q] = u + tu_uniform(&seed, -0.01, 0.01);
        x0[3 * q + 1] = 0.3 * sin(th) + tu_uniform(&seed, -0.01, 0.01);
        x0[3 * q + 2] = 0.3 * cos(th) + tu_uniform(&seed, -0.01, 0.01);
        for (int c = 0; c < 3; c++)
          x1[3 * q + c] = x0[3 * q + c] + tu_uniform(&seed, -move, move);
      }
    double x[4][2][3];
    for (size_t p = 0; p < NP; p++)
      for (size_t f = 0; f < NT; f++) {
        const size_t *v = tri + 3 * f;
        if (p == v[0] || p == v[1] || p == v[2])
          continue;
        double D0 = ref_dist_point_triangle(x0 + 3 * p, x0 + 3 * v[0], x0 + 3 * v[1], x0 + 3 * v[2]);
        double D1 = ref_dist_point_triangle(x1 + 3 * p, x1 + 3 * v[0], x1 + 3 * v[1], x1 + 3 * v[2]);
        double S = move_of(x0, x1, p) + fmax(move_of(x0, x1, v[0]), fmax(move_of(x0, x1, v[1]), move_of(x0, x1, v[2])));
        if (D0 + D1 - S > 1e-9)
          continue;
        const size_t ids[4] = {p, v[0], v[1], v[2]};
        for (int j = 0; j < 4; j++)
          for (int c = 0; c < 3; c++)
            x[j][0][c] = x0[3 * ids[j] + c], x[j][1][c] = x1[3 * ids[j] + c];
        check_query(0, x, &t, "mesh vf", (long)(p * NT + f));
      }
    for (size_t e = 0; e < ne; e++)
      for (size_t f = e + 1; f < ne; f++) {
        const size_t *a = ed + 2 * e, *b = ed + 2 * f;
        if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1])
          continue;
        double D0 = ref_dist_segments(x0 + 3 * a[0], x0 + 3 * a[1], x0 + 3 * b[0], x0 + 3 * b[1]);
        double D1 = ref_dist_segments(x1 + 3 * a[0], x1 + 3 * a[1], x1 + 3 * b[0], x1 + 3 * b[1]);
        double S = fmax(move_of(x0, x1, a[0]), move_of(x0, x1, a[1])) + fmax(move_of(x0, x1, b[0]), move_of(x0, x1, b[1]));
        if (D0 + D1 - S > 1e-9)
          continue;
        const size_t ids[4] = {a[0], a[1], b[0], b[1]};
        for (int j = 0; j < 4; j++)
          for (int c = 0; c < 3; c++)
            x[j][0][c] = x0[3 * ids[j] + c], x[j][1][c] = x1[3 * ids[j] + c];
        check_query(1, x, &t, "mesh ee", (long)(e * ne + f));
      }
  }
  print_tally("mesh pairs past the distance bound", &t);
  ck_assert(t.asked > 1000 && t.touch > 0);
}
END_TEST

/* A NULL or non-finite point: REF_CCD_EINVAL, as the exact test. */
START_TEST(test_filter_bad_input)
{
  double x[4][2][3] = {
    MOVE(p, 0.25, 0.25, 1, 0.25, 0.25, -1), STILL(0, 0, 0), STILL(1, 0, 0), STILL(0, 1, 0)};
  ck_assert_int_eq(ref_filter_vf(NULL, x[1], x[2], x[3]), REF_CCD_EINVAL);
  ck_assert_int_eq(ref_filter_ee(x[0], x[1], x[2], NULL), REF_CCD_EINVAL);
  const double bad[] = {NAN, INFINITY, -INFINITY};
  for (int b = 0; b < 3; b++)
    for (int c = 0; c < 24; c++) {
      double y[4][2][3];
      memcpy(y, x, sizeof y);
      y[c / 6][c / 3 % 2][c % 3] = bad[b];
      ck_assert_int_eq(ref_filter_vf(y[0], y[1], y[2], y[3]), REF_CCD_EINVAL);
      ck_assert_int_eq(ref_filter_ee(y[0], y[1], y[2], y[3]), REF_CCD_EINVAL);
    }
  /* A coordinate at 2^200 in magnitude: not filtered (the axis test does
     not separate these); all below it (the same scaled by 2^198): decided. */
  double y[4][2][3];
  ck_assert(scale_query(x, 200, y));
  ck_assert_int_eq(ref_filter_vf(y[0], y[1], y[2], y[3]), REF_FILTER_UNSURE);
  ck_assert(scale_query(x, 198, y));
  ck_assert_int_eq(ref_filter_vf(y[0], y[1], y[2], y[3]), REF_FILTER_TOUCH);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("ccd_filter");
  TCase *tc = tcase_create("filter");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_filter_constructed);
  tcase_add_test(tc, test_filter_random);
  tcase_add_test(tc, test_filter_degenerate_families);
  tcase_add_test(tc, test_filter_counterexamples);
  tcase_add_test(tc, test_filter_mesh_pairs);
  tcase_add_test(tc, test_filter_bad_input);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
