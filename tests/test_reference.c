/*
 * tests/test_reference.c: checks of the N-link pendulum reference
 * (reference/nlink.c) against numbers obtained independently of it, and
 * of the multipliers as forces.
 *
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
 * - The link tensions must match the single pendulum's closed form and the
 *   dense KKT solve (reference/kkt.c) of a 3-link arm in motion.
 * - The spinning hoop (reference/hoop.c) must stay at its relative
 *   equilibrium and oscillate about it with the closed form's period, keep
 *   its Jacobi integral, stay on the library's "hoop" constraint, and have
 *   multipliers that satisfy Newton's law.
 *
 * The bead, the spherical pendulum and the driver they share are checked
 * in test_reference_bead.c; the dense KKT reference and the chain_be
 * reference in test_reference_kkt.c.
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
#include <gsl/gsl_sf_ellint.h>

#include "hoop.h"
#include "cdyn/cdyn.h"
#include "kkt.h"
#include "nlink.h"
#include "refutil.h"
#include "testutil.h"

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
  return s;
}

int main(void)
{
  return tu_run(reference_suite());
}
