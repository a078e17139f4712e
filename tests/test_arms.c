/*
 * test_arms.c: facts about the papers' robot arms (000 figs 2-4) that the
 * arm5 experiments rest on.
 *
 * 1. Mass invariance.  With gravity the only force and every mass scaled
 *    by the same c, M qdd + J^T lambda = M g is solved by the same qdd
 *    and lambda scaled by c: the motion does not depend on the mass.  Every
 *    scheme computes W F = g and a multiplier from A = J W J^T, so it
 *    keeps this to rounding, with the schemes' absolute parameters
 *    scaled along (penalty's stiffness k -> c k, XPBD's compliance
 *    alpha -> alpha / c).  000's "error grows with the mass" cannot come
 *    from such a setup.
 * 2. A heavy free end does change the motion: a scheme on the heavy-end
 *    arm converges, at its order, to the reduced-coordinate reference of
 *    the same arm (reference/nlink.c), which is far from the uniform one.
 * 3. The improved midpoint scheme (000 eqs 5-7) reflects a constraint
 *    violation instead of removing it.  For a linear constraint
 *    phi = n.x - d without forces one step maps (phi, psi = n.v) to
 *      phi+ = phi + h n.v1/2 = -phi              (its half step zeroes phi(q1/2))
 *      psi+ = psi - h lambda = -psi - 4 phi / h  (A lambda = 4 phi/h^2 + 2 psi/h)
 *    a double eigenvalue -1 with a Jordan block, so after k steps
 *      phi_k = (-1)^k phi_0,  psi_k = (-1)^k (psi_0 + 4 k phi_0 / h):
 *    the velocity error grows linearly.  First-order implicit maps phi
 *    to 0 in one step.  This is why the improved scheme diverges on the
 *    5-link arm at h = 0.1 (arm5-improved).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdyn/cdyn.h>

#include "nlink.h"
#include "testutil.h"

#define LINKS 5
#define N (LINKS + 1)

static const double PI = 3.14159265358979323846;

/* The 5-link arm from horizontal, masses m (the free end end_m if > 0). */
static cdyn_system *arm(double m, double end_m)
{
  double joint[LINKS] = {PI / 2, 0, 0, 0, 0};
  cdyn_system *sys;
  ck_assert_int_eq(tu_chain(&sys, LINKS, 1.0, m, joint), CDYN_OK);
  if (end_m > 0)
    ck_assert_int_eq(cdyn_system_set_mass(sys, LINKS, end_m), CDYN_OK);
  return sys;
}

static double max_dist(const double *a, const double *b, size_t n)
{
  double m = 0;
  for (size_t i = 0; i < n; i++)
    m = fmax(m, hypot(hypot(a[3 * i] - b[3 * i], a[3 * i + 1] - b[3 * i + 1]), a[3 * i + 2] - b[3 * i + 2]));
  return m;
}

/* Scale an option of a scheme that has it by c (an absolute parameter). */
static void scale_option(cdyn_stepper *st, const char *key, double c)
{
  char buf[64];
  if (cdyn_stepper_get(st, key, buf, sizeof buf) != CDYN_OK)
    return; /* the scheme has no such option */
  char val[64];
  snprintf(val, sizeof val, "%.17g", strtod(buf, NULL) * c);
  ck_assert_int_eq(cdyn_stepper_set(st, key, val), CDYN_OK);
}

/*
 * Largest node distance between the arm at mass 1 and at mass c over
 * `steps` steps of h (each step compared).  `scale` scales the schemes'
 * absolute parameters along with the masses.
 */
static double mass_gap(const char *scheme, double c, int scale, double h, int steps)
{
  cdyn_system *s1 = arm(1.0, 0), *s2 = arm(c, 0);
  cdyn_stepper *t1, *t2;
  ck_assert_int_eq(cdyn_stepper_new(&t1, s1, scheme), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&t2, s2, scheme), CDYN_OK);
  if (scale) {
    scale_option(t2, "k", c);
    scale_option(t2, "compliance", 1 / c);
  }
  /* A scheme that iterates to a tolerance stops within it, not at the
     solution, and two runs may stop one iteration apart: 1e-13 m keeps
     that below the rounding of the comparison (backward-euler and bdf2
     at their default 1e-10 m part by 1.05e-10 m). */
  char buf[64];
  if (cdyn_stepper_get(t1, "tol", buf, sizeof buf) == CDYN_OK) {
    ck_assert_int_eq(cdyn_stepper_set(t1, "tol", "1e-13"), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_set(t2, "tol", "1e-13"), CDYN_OK);
  }
  double gap = 0;
  for (int k = 0; k < steps; k++) {
    ck_assert_msg(cdyn_stepper_step(t1, h) >= 0 && cdyn_stepper_step(t2, h) >= 0, "%s: step %d failed: %s", scheme,
                  k + 1, cdyn_errmsg());
    gap = fmax(gap, max_dist(cdyn_system_positions(s1), cdyn_system_positions(s2), N));
  }
  cdyn_stepper_free(t1);
  cdyn_stepper_free(t2);
  cdyn_system_free(s1);
  cdyn_system_free(s2);
  return gap;
}

START_TEST(test_mass_invariance)
{
  /* 500 steps of h = 0.002 (1 s, the arm's first swing; h small enough
     for the penalty springs' default k, h omega = 0.2).  The two runs
     differ only by rounding: W = 1/50 and m g are inexact (relative
     1.1e-16 each), which perturbs each step by ~1e-16 of the arm's
     5 m and is carried along by a motion whose perturbations grow by at
     most a factor ~1e2 within a second (the arm is chaotic, but over
     seconds): 500 steps x 5e-16 x 1e2 = 2.5e-11.  The bound 1e-10 leaves
     a factor 4; a dependence on the mass is O(1e-2) or more (see the
     check of the method below). */
  const double c = 50, h = 0.002;
  for (size_t i = 0; i < tu_scheme_count(); i++) {
    const char *name = tu_scheme_name(i);
    double gap = mass_gap(name, c, 1, h, 500);
    ck_assert_msg(gap <= 1e-10, "%s: masses 1 and %g move apart by %.3g m within 1 s", name, c, gap);
  }
  /* The comparison sees a mass dependence where there is one: penalty's
     stiffness k is absolute (N/m), so at mass 50 without scaling k the
     springs are 50 times softer relative to the masses, and the links
     stretch under 50 times the load: m g / k = 0.05 m at the default
     k = 1e4 N/m, against 1e-3 at mass 1. */
  double gap = mass_gap("penalty", c, 0, h, 500);
  ck_assert_msg(gap > 1e-2, "penalty with an absolute k: masses 1 and %g only %.3g m apart", c, gap);
}
END_TEST

/* Positions of the heavy-end arm after T under `scheme` at step h. */
static void heavy_run(const char *scheme, double end_m, double h, long steps, double *q)
{
  cdyn_system *sys = arm(1.0, end_m);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
  for (long k = 0; k < steps; k++)
    ck_assert_msg(cdyn_stepper_step(st, h) >= 0, "%s: step %ld failed: %s", scheme, k + 1, cdyn_errmsg());
  memcpy(q, cdyn_system_positions(sys), 3 * N * sizeof(double));
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}

static void reference(double end_m, double T, double *q)
{
  double len[LINKS], mass[LINKS], theta[LINKS], xy[2 * LINKS];
  for (int i = 0; i < LINKS; i++) {
    len[i] = 1;
    mass[i] = i == LINKS - 1 ? end_m : 1;
    theta[i] = PI / 2;
  }
  cdyn_ref_nlink_params p = {LINKS, len, mass, 9.81, {0, 0}, theta, NULL, 1e-13, 1e-13};
  cdyn_ref_nlink *r;
  ck_assert_int_eq(cdyn_ref_nlink_new(&r, &p), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_nlink_advance(r, T), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_nlink_positions(r, xy), CDYN_OK);
  cdyn_ref_nlink_free(r);
  memset(q, 0, 3 * N * sizeof(double));
  for (int i = 0; i < LINKS; i++) {
    q[3 * (i + 1)] = xy[2 * i];
    q[3 * (i + 1) + 1] = xy[2 * i + 1];
  }
}

START_TEST(test_heavy_end)
{
  /* RATTLE (order 2) at h and h/2 to T = 0.5 s on the arm with a 50 kg
     free end, against the reference of that arm: the error must fall by
     2^2 = 4 (accepted 3 .. 5.3, the asymptotic range of a second-order
     method: a third-order remainder shifts the ratio by O(h)), and the
     heavy end must move the arm far more than that error. */
  const double T = 0.5, m_end = 50;
  double q1[3 * N], q2[3 * N], qr[3 * N], qu[3 * N];
  heavy_run("rattle", m_end, 0.002, 250, q1);
  heavy_run("rattle", m_end, 0.001, 500, q2);
  reference(m_end, T, qr);
  reference(1, T, qu);
  double e1 = max_dist(q1, qr, N), e2 = max_dist(q2, qr, N), apart = max_dist(qr, qu, N);
  ck_assert_msg(e1 / e2 >= 3 && e1 / e2 <= 5.3, "rattle on the heavy-end arm: errors %.3g, %.3g (ratio %.3g)", e1,
                e2, e1 / e2);
  ck_assert_msg(e2 <= 1e-3, "rattle on the heavy-end arm: error %.3g at h = 0.001", e2);
  ck_assert_msg(apart >= 100 * e2, "the heavy end moves the arm only %.3g m (scheme error %.3g)", apart, e2);
}
END_TEST

/* One particle on the plane y = 0 (normal e_y), no forces. */
static void plane_particle(cdyn_system **sys, double phi0, double psi0)
{
  ck_assert_int_eq(cdyn_system_new(sys, 1), CDYN_OK);
  double x[3] = {0.1, phi0, 0}, v[3] = {0.3, psi0, 0}, params[6] = {0, 0, 0, 0, 1, 0};
  size_t p0 = 0;
  ck_assert_int_eq(cdyn_system_set_position(*sys, 0, x), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(*sys, 0, v), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_constraint_named(*sys, "plane", &p0, params, NULL), CDYN_OK);
}

START_TEST(test_improved_reflects_violation)
{
  const double h = 0.01, phi0 = 1e-3, psi0 = 0.2;
  const char *const schemes[] = {"improved", "improved-ab2"};
  for (int s = 0; s < 2; s++) {
    cdyn_system *sys;
    cdyn_stepper *st;
    plane_particle(&sys, phi0, psi0);
    ck_assert_int_eq(cdyn_stepper_new(&st, sys, schemes[s]), CDYN_OK);
    double sign = 1;
    for (int k = 1; k <= 20; k++) {
      ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
      sign = -sign;
      const double *q = cdyn_system_positions(sys), *v = cdyn_system_velocities(sys);
      double phi = sign * phi0, psi = sign * (psi0 + 4 * k * phi0 / h);
      /* Each step adds a few roundings of |psi| <= 8.2 m/s times h to
         y: 20 steps x 1e-15 relative is far inside 1e-12. */
      ck_assert_msg(fabs(q[1] - phi) <= 1e-12 * (1 + fabs(phi) / h), "%s step %d: phi %.17g, expected %.17g",
                    schemes[s], k, q[1], phi);
      ck_assert_msg(fabs(v[1] - psi) <= 1e-12 * fabs(psi), "%s step %d: psi %.17g, expected %.17g", schemes[s], k,
                    v[1], psi);
      /* The motion along the plane is untouched: x = 0.1 + 0.3 t. */
      ck_assert_msg(fabs(q[0] - (0.1 + 0.3 * k * h)) <= 1e-14 && v[0] == 0.3, "%s step %d: x %.17g, vx %.17g",
                    schemes[s], k, q[0], v[0]);
    }
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
  /* First-order implicit puts phi at 0 in one step (its linearisation is
     exact for a linear constraint) and keeps it there: what is left is
     the rounding of y + h v with y = 1e-3 (ulp 2e-19), far below 1e-17. */
  cdyn_system *sys;
  cdyn_stepper *st;
  plane_particle(&sys, phi0, psi0);
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "implicit"), CDYN_OK);
  for (int k = 1; k <= 5; k++) {
    ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
    ck_assert_msg(fabs(cdyn_system_positions(sys)[1]) <= 1e-17, "implicit step %d: phi %.3g", k,
                  cdyn_system_positions(sys)[1]);
  }
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("arms");
  TCase *tc = tcase_create("arms");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_mass_invariance);
  tcase_add_test(tc, test_heavy_end);
  tcase_add_test(tc, test_improved_reflects_violation);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
