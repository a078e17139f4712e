/*
 * tests/test_ab2.c: the AB2 integrator (integrator = ab2) under the
 * schemes that take an integrator.
 *
 * - Order 2 under baumgarte and poststab on the single pendulum, against
 *   the reduced-coordinate reference (reference/nlink.c), with constant
 *   and with alternating step sizes.
 * - Its history, checked against the formula step by step: the
 *   variable-step formula from the second step on, and an Euler step after
 *   cdyn_stepper_reset, after a change of integrator or of any other
 *   option, and after a failed step.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "pendutil.h"
#include "testutil.h"

/* ---- the AB2 integrator ------------------------------------------------------ */

/*
 * baumgarte and poststab over integrator = ab2 converge at order 2 on the
 * single pendulum: the feedback and the projection act on O(h^3) local
 * constraint errors, so the integrator's order is the scheme's.  Same step
 * sizes and band as test_convergence_order.
 */
START_TEST(test_ab2_order)
{
  const char *const schemes[2] = {"baumgarte", "poststab"};
  const char *const kv[] = {"integrator", "ab2", NULL};
  for (int i = 0; i < 2; i++) {
    double hs[NH], err[NH];
    for (int k = 0; k < NH; k++) {
      long N = 40L << k;
      hs[k] = 1.0 / (double)N;
      run_out o;
      run_opts(schemes[i], kv, &single, hs[k], N, 0, &o);
      err[k] = o.pos_err;
    }
    double fitted = tu_fit_order(hs, err, NH);
    ck_assert_msg(fabs(fitted - 2) <= 0.25, "%s over ab2: fitted order %.3f (errors %.3e .. %.3e)", schemes[i],
                  fitted, err[0], err[NH - 1]);
  }
}
END_TEST

/*
 * Variable steps: N steps alternating 0.8 H and 1.2 H (N even, so T = N H
 * = 1 s).  The variable-step AB2 stays second order.  The constant-step
 * weights (3/2, -1/2) used with a step ratio r != 1 would make a local
 * error h (r - 1) / 2 (f_n - f_n-1) = O(H^2) per step, +0.24 H^2 f' after
 * a short step and -0.16 H^2 f' after a long one, which do not cancel:
 * a first-order method, outside the 0.25 band.
 */
START_TEST(test_ab2_variable_step)
{
  const char *const kv[] = {"integrator", "ab2", NULL};
  double Hs[NH], err[NH];
  for (int k = 0; k < NH; k++) {
    long N = 40L << k;
    Hs[k] = 1.0 / (double)N;
    cdyn_system *s = make_pendulum(&single);
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_stepper_new(&st, s, "baumgarte"), CDYN_OK);
    set_options(st, kv);
    for (long j = 0; j < N; j++)
      ck_assert_int_eq(cdyn_stepper_step(st, (j % 2 ? 1.2 : 0.8) * Hs[k]), CDYN_OK);
    double ref[2];
    reference_at(&single, cdyn_system_time(s), ref);
    const double *q = cdyn_system_positions(s);
    err[k] = hypot(q[3] - ref[0], q[4] - ref[1]);
    cdyn_stepper_free(st);
    cdyn_system_free(s);
  }
  double fitted = tu_fit_order(Hs, err, NH);
  ck_assert_msg(fabs(fitted - 2) <= 0.25, "ab2 with alternating steps: fitted order %.3f (errors %.3e .. %.3e)",
                fitted, err[0], err[NH - 1]);
}
END_TEST

/* A linear force -kappa x that can be told to fail once. */
typedef struct {
  double kappa;
  int fail;
} lin_ctx;

static int linear_force(void *ctx, size_t n, double t, const double *q, const double *v, double *f)
{
  (void)t;
  (void)v;
  lin_ctx *c = ctx;
  if (c->fail) {
    c->fail = 0;
    return 1;
  }
  for (size_t k = 0; k < 3 * n; k++)
    f[k] -= c->kappa * q[k];
  return 0;
}

/*
 * The AB2 formula written as the integral of the line through the last two
 * slopes, y+ = y + h f_n + h^2 / (2 h_p) (f_n - f_n-1), with an explicit
 * Euler step when there is no history: an algebraically different form of
 * what ab2.c computes, so the two agree to rounding only.
 */
typedef struct {
  double x[3], v[3], ap[3], vp[3], hp;
  int have;
} ab2_model;

static void model_step(ab2_model *m, double kappa, double w, double h, int symplectic_euler)
{
  for (int k = 0; k < 3; k++) {
    double a = w * (-kappa * m->x[k]);
    double xn, vn;
    if (symplectic_euler) {
      vn = m->v[k] + h * a;
      xn = m->x[k] + h * vn;
    } else if (m->have) {
      double c = h * h / (2 * m->hp);
      xn = m->x[k] + h * m->v[k] + c * (m->v[k] - m->vp[k]);
      vn = m->v[k] + h * a + c * (a - m->ap[k]);
    } else {
      xn = m->x[k] + h * m->v[k];
      vn = m->v[k] + h * a;
    }
    m->ap[k] = a;
    m->vp[k] = m->v[k];
    m->x[k] = xn;
    m->v[k] = vn;
  }
  m->hp = h;
  m->have = !symplectic_euler;
}

static void same_as_model(const cdyn_system *s, const ab2_model *m, const char *what)
{
  /* States of order 1 after a dozen steps of O(1) arithmetic: agreement to
     a few hundred ulps. */
  double x[3], v[3];
  ck_assert_int_eq(cdyn_system_get_particle(s, 0, NULL, x, v), CDYN_OK);
  for (int k = 0; k < 3; k++) {
    ck_assert_msg(fabs(x[k] - m->x[k]) <= 1e-13, "%s: x[%d] = %.17g, formula %.17g", what, k, x[k], m->x[k]);
    ck_assert_msg(fabs(v[k] - m->v[k]) <= 1e-13, "%s: v[%d] = %.17g, formula %.17g", what, k, v[k], m->v[k]);
  }
}

/*
 * AB2's history: the variable-step formula from the second step on, an
 * Euler step after cdyn_stepper_reset, after the integrator option was
 * changed (the old integrator's scratch is not AB2 history), after any
 * other scheme option changed, and after a failed step.  One particle on a
 * linear spring force, no constraints, through baumgarte (which then
 * integrates a = W F).
 */
START_TEST(test_ab2_history)
{
  const double mass = 1.7, kappa = 2.9, x0[3] = {0.31, -0.52, 0.11}, v0[3] = {0.2, 0.05, -0.4};
  lin_ctx ctx = {kappa, 0};
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, 1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(s, 0, mass), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(s, 0, x0), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(s, 0, v0), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_force_callback(s, linear_force, &ctx), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "baumgarte"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "ab2"), CDYN_OK);
  ab2_model m = {{0}, {0}, {0}, {0}, 0, 0};
  for (int k = 0; k < 3; k++) {
    m.x[k] = x0[k];
    m.v[k] = v0[k];
  }
  const double w = 1.0 / mass;
  /* Euler start, then AB2 with step ratios 21/13 and 17/21. */
  const double hs[3] = {0.013, 0.021, 0.017};
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(cdyn_stepper_step(st, hs[i]), CDYN_OK);
    model_step(&m, kappa, w, hs[i], 0);
    same_as_model(s, &m, i ? "AB2 step" : "first (Euler) step");
  }
  /* Reset: Euler again, then AB2 from the new history. */
  ck_assert_int_eq(cdyn_stepper_reset(st), CDYN_OK);
  m.have = 0;
  ck_assert_int_eq(cdyn_stepper_step(st, 0.019), CDYN_OK);
  model_step(&m, kappa, w, 0.019, 0);
  same_as_model(s, &m, "step after reset");
  ck_assert_int_eq(cdyn_stepper_step(st, 0.011), CDYN_OK);
  model_step(&m, kappa, w, 0.011, 0);
  same_as_model(s, &m, "second step after reset");
  /* Integrator switched to symplectic Euler and back. */
  ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "symplectic-euler"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 0.015), CDYN_OK);
  model_step(&m, kappa, w, 0.015, 1);
  same_as_model(s, &m, "symplectic Euler step");
  ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "ab2"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 0.012), CDYN_OK);
  model_step(&m, kappa, w, 0.012, 0);
  same_as_model(s, &m, "first step after switching to ab2");
  ck_assert_int_eq(cdyn_stepper_step(st, 0.016), CDYN_OK);
  model_step(&m, kappa, w, 0.016, 0);
  same_as_model(s, &m, "second step after switching to ab2");
  /* Another scheme option changes the equations: history is dropped. */
  ck_assert_int_eq(cdyn_stepper_set(st, "alpha", "3"), CDYN_OK);
  m.have = 0;
  ck_assert_int_eq(cdyn_stepper_step(st, 0.014), CDYN_OK);
  model_step(&m, kappa, w, 0.014, 0);
  same_as_model(s, &m, "step after an option change");
  /* A failed step restores the state and drops the history. */
  ck_assert_int_eq(cdyn_stepper_step(st, 0.018), CDYN_OK);
  model_step(&m, kappa, w, 0.018, 0);
  ctx.fail = 1;
  ck_assert_int_eq(cdyn_stepper_step(st, 0.02), CDYN_ECALLBACK);
  same_as_model(s, &m, "failed step");
  m.have = 0;
  ck_assert_int_eq(cdyn_stepper_step(st, 0.013), CDYN_OK);
  model_step(&m, kappa, w, 0.013, 0);
  same_as_model(s, &m, "step after a failed step");
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("ab2");
  TCase *tc = tcase_create("ab2");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_ab2_order);
  tcase_add_test(tc, test_ab2_variable_step);
  tcase_add_test(tc, test_ab2_history);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return tu_run(suite());
}
