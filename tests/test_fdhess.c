/*
 * tests/test_fdhess.c: a user's constraint type without `hess` under the
 * schemes implicit in the constraint geometry, whose geometric stiffness
 * the library then takes by finite differences (lib/core/fdhess.c).
 *
 * The type is the built-in hoop (a bead on a hoop spinning about its
 * vertical diameter: two rows, one of them moving with time) copied
 * under another name with hess = NULL, as a user would define it; its
 * reference is reference/hoop.c's reduced model in the bead's angle,
 * integrated by GSL's rk8pd to 1e-13, the same problem and reference as
 * the velocity and multiplier orders of tests/test_schemes.c: R = 1 m,
 * 1 kg, omega = sqrt(2 g / R), released at rest relative to the hoop at
 * 1.4 rad, T = 1 s, h = 1/160 .. 1/2560.
 *
 * - Orders: the position error at T over the five step sizes, fitted as
 *   in tests/test_schemes.c (least squares in log-log), must lie within
 *   0.25 of the declared order, 1 for backward-euler and 2 for bdf2.
 *   The band is that file's: at these h the next term of the error moves
 *   the fitted slope by less than 0.15 on the hoop.  The same fit of the
 *   built-in hoop (analytic hess) is printed beside it under
 *   CDYN_TEST_VERBOSE.
 * - Agreement with the built-in type.  K enters Newton's matrix only,
 *   not the residual (backward_euler.c), so a K off by the finite
 *   difference's error, about eps^(2/3) = 4e-11 of its scale, changes
 *   Newton's path by that fraction of each correction, not the root:
 *   both runs stop on the same residuals, max |Phi_r| <= tol = 1e-10 m
 *   and max |(W R)_i| <= tol_accel = 1e-8 m/s^2, so each step's end
 *   differs from the exact root of its equations by at most about
 *   tol + k^2 tol_accel (a length), and the two runs' by twice that per
 *   step.  Carried over N steps of a problem whose solutions separate at
 *   most like e^(omega T) (omega = 4.4 / s, the hoop's spin, bounds the
 *   rates of its linearisation), the final positions must agree within
 *     2 N (tol + h^2 tol_accel) e^(omega T),
 *   4.3e-5 m at h = 1/2560 (e^(omega T) = 84).  Newton converges
 *   quadratically, so the runs stop far inside those tolerances and agree
 *   much better (the measured largest difference is printed under
 *   CDYN_TEST_VERBOSE: the hoop's runs agree to the last bit); the bound
 *   is what the stopping rule guarantees.  Their Newton iterations are
 *   compared as well: the same count to within one per ten steps.
 * - The same on the built-in anchor without hess (a pendulum on a
 *   shaken pivot, time-dependent too), whose K varies with x so that the
 *   differences carry a truncation error; its orders from the
 *   differences of successive levels (test_anchor_without_hess).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "hoop.h"
#include "testutil.h"

static const double g0 = 9.81;
#define NLEVELS 5

/* The built-in hoop, as a user's type without hess. */
static cdyn_constraint_type own_hoop;

static void make_own_hoop(void)
{
  own_hoop = *cdyn_constraint_hoop;
  own_hoop.name = "own-hoop";
  own_hoop.hess = NULL;
}

typedef struct {
  double pos_err, vel_err;
  double q[3], v[3];
  unsigned long iterations;
} run_out;

static void hoop_run(const cdyn_constraint_type *type, const char *scheme, long N, run_out *o)
{
  const double T = 1.0, h = T / (double)N, w = sqrt(2 * g0), th0 = 1.4;
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, 1), CDYN_OK);
  double g[3] = {0, -g0, 0}, x[3] = {sin(th0), -cos(th0), 0}, v[3] = {0, 0, -w * sin(th0)};
  double p[11] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 1, w};
  size_t p0 = 0;
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(s, 0, x), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(s, 0, v), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_constraint(s, type, &p0, p, NULL), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  /* The warning names the user's type, and only it. */
  const char *warn = cdyn_stepper_warning(st);
  if (type == &own_hoop)
    ck_assert_msg(strstr(warn, "'own-hoop'") && strstr(warn, "2 * 3 * 1 + 1 = 7 calls"), "%s: '%s'", scheme, warn);
  else
    ck_assert_msg(!warn[0], "%s with the built-in hoop: '%s'", scheme, warn);
  for (long k = 1; k <= N; k++) {
    int rc = cdyn_stepper_step(st, h);
    ck_assert_msg(rc == CDYN_OK, "%s on the %s, h = 1/%ld, step %ld: %s", scheme, type->name, N, k, cdyn_errmsg());
  }
  cdyn_stats stats;
  ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
  o->iterations = stats.nonlinear_iterations;
  cdyn_ref_hoop_params rp = {1.0, g0, w, th0, 0.0, 1e-13, 1e-13};
  cdyn_ref_hoop *r;
  double xr[3], vr[3];
  ck_assert_int_eq(cdyn_ref_hoop_new(&r, &rp), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_hoop_advance(r, T), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_hoop_state(r, xr, vr, NULL), CDYN_OK);
  cdyn_ref_hoop_free(r);
  const double *qs = cdyn_system_positions(s), *vs = cdyn_system_velocities(s);
  memcpy(o->q, qs, sizeof o->q);
  memcpy(o->v, vs, sizeof o->v);
  o->pos_err = hypot(hypot(qs[0] - xr[0], qs[1] - xr[1]), qs[2] - xr[2]);
  o->vel_err = hypot(hypot(vs[0] - vr[0], vs[1] - vr[1]), vs[2] - vr[2]);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}

static const char *const schemes[] = {"backward-euler", "bdf2"};

START_TEST(test_orders_without_hess)
{
  make_own_hoop();
  const char *scheme = schemes[_i];
  size_t idx;
  ck_assert_int_eq(cdyn_scheme_find(scheme, &idx), CDYN_OK);
  const double declared = cdyn_scheme_order(idx), tol = 1e-10, tol_accel = 1e-8, w = sqrt(2 * g0);
  double hs[NLEVELS], own_err[NLEVELS], builtin_err[NLEVELS], worst = 0;
  for (int k = 0; k < NLEVELS; k++) {
    long N = 160L << k;
    double h = 1.0 / (double)N;
    hs[k] = h;
    run_out own, builtin;
    hoop_run(&own_hoop, scheme, N, &own);
    hoop_run(cdyn_constraint_hoop, scheme, N, &builtin);
    own_err[k] = own.pos_err;
    builtin_err[k] = builtin.pos_err;
    double diff = hypot(hypot(own.q[0] - builtin.q[0], own.q[1] - builtin.q[1]), own.q[2] - builtin.q[2]);
    double bound = 2 * (double)N * (tol + h * h * tol_accel) * exp(w * 1.0);
    ck_assert_msg(diff <= bound,
                  "%s, h = 1/%ld: the hess-less hoop ends %.3e m from the built-in one, beyond the stopping rule's "
                  "%.3e m",
                  scheme, N, diff, bound);
    long di = (long)own.iterations - (long)builtin.iterations;
    ck_assert_msg(labs(di) <= N / 10, "%s, h = 1/%ld: %lu Newton iterations without hess, %lu with it", scheme, N,
                  own.iterations, builtin.iterations);
    worst = fmax(worst, diff / bound);
    if (getenv("CDYN_TEST_VERBOSE"))
      printf("%-14s h = 1/%-5ld error %.4e (own-hoop) %.4e (hoop); ends %.3e m apart (bound %.3e); iterations "
             "%lu, %lu\n",
             scheme, N, own.pos_err, builtin.pos_err, diff, bound, own.iterations, builtin.iterations);
  }
  double p_own = tu_fit_order(hs, own_err, NLEVELS), p_builtin = tu_fit_order(hs, builtin_err, NLEVELS);
  ck_assert_msg(fabs(p_own - declared) <= 0.25,
                "%s with a hoop without hess: position order %.3f, declared %g (errors %.3e .. %.3e)", scheme, p_own,
                declared, own_err[0], own_err[NLEVELS - 1]);
  if (getenv("CDYN_TEST_VERBOSE"))
    printf("%-14s order %.3f without hess, %.3f with it (declared %g); largest difference %.3g of its bound\n",
           scheme, p_own, p_builtin, declared, worst);
}
END_TEST

/* The built-in anchor (a link to a point on a prescribed path), as a
   user's type without hess. */
static cdyn_constraint_type own_anchor;

/* A pendulum of 1 m whose pivot is shaken horizontally, p(t) = a (sin(w t
   + phase) - sin(phase)) with a = 0.3 m, w = 5 rad/s, released at 0.5 rad
   moving with the pivot, to T = 1 s in N steps: the end position and the
   Newton iterations. */
static void anchor_run(const cdyn_constraint_type *type, const char *scheme, long N, run_out *o)
{
  const double T = 1.0, h = T / (double)N, th0 = 0.5, a = 0.3, w = 5.0, phase = 0.4;
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, 1), CDYN_OK);
  double g[3] = {0, -g0, 0}, x[3] = {sin(th0), -cos(th0), 0}, v[3] = {a * w * cos(phase), 0, 0};
  double p[12] = {1.0, 0, 0, 0, 0, 0, 0, a, 0, 0, w, phase};
  size_t p0 = 0;
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(s, 0, x), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(s, 0, v), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_constraint(s, type, &p0, p, NULL), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  for (long k = 1; k <= N; k++) {
    int rc = cdyn_stepper_step(st, h);
    ck_assert_msg(rc == CDYN_OK, "%s on the %s, h = 1/%ld, step %ld: %s", scheme, type->name, N, k, cdyn_errmsg());
  }
  cdyn_stats stats;
  ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
  o->iterations = stats.nonlinear_iterations;
  memcpy(o->q, cdyn_system_positions(s), sizeof o->q);
  memcpy(o->v, cdyn_system_velocities(s), sizeof o->v);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}

/*
 * The hoop's K is constant (its rows are linear and quadratic in x), so
 * central differences of its J^T lambda are exact but for rounding, and
 * the runs above agree to the last bit.  The anchor's K = lambda (I -
 * e e^T) / r varies with x, and its differences carry their truncation
 * error, about (3 eps)^(2/3) / 2 of |lambda| / r (fdhess.c).  On the
 * shaken pendulum, with no reference in closed form, the orders are those
 * of the differences of successive levels, |q_N - q_2N| over
 * h = 1/160 .. 1/2560 (q_5120 the last), which fall at the method's
 * order; both must lie within 0.25 of the declared order, and the runs
 * without and with hess must agree within the stopping rule's bound of
 * the hoop's, with omega the pendulum's sqrt(g / L) + the pivot's rate w
 * for the separation of solutions.
 */
START_TEST(test_anchor_without_hess)
{
  own_anchor = *cdyn_constraint_anchor;
  own_anchor.name = "own-anchor";
  own_anchor.hess = NULL;
  const char *scheme = schemes[_i];
  size_t idx;
  ck_assert_int_eq(cdyn_scheme_find(scheme, &idx), CDYN_OK);
  const double declared = cdyn_scheme_order(idx), tol = 1e-10, tol_accel = 1e-8, rate = sqrt(g0) + 5.0;
  double hs[NLEVELS], own_d[NLEVELS], builtin_d[NLEVELS], worst = 0;
  run_out own[NLEVELS + 1], builtin[NLEVELS + 1];
  for (int k = 0; k <= NLEVELS; k++) {
    long N = 160L << k;
    double h = 1.0 / (double)N;
    anchor_run(&own_anchor, scheme, N, &own[k]);
    anchor_run(cdyn_constraint_anchor, scheme, N, &builtin[k]);
    double diff = tu_dist3(own[k].q, builtin[k].q);
    double bound = 2 * (double)N * (tol + h * h * tol_accel) * exp(rate * 1.0);
    ck_assert_msg(diff <= bound,
                  "%s, h = 1/%ld: the hess-less anchor ends %.3e m from the built-in one, beyond the stopping "
                  "rule's %.3e m",
                  scheme, N, diff, bound);
    long di = (long)own[k].iterations - (long)builtin[k].iterations;
    ck_assert_msg(labs(di) <= N / 10, "%s, h = 1/%ld: %lu Newton iterations without hess, %lu with it", scheme, N,
                  own[k].iterations, builtin[k].iterations);
    worst = fmax(worst, diff / bound);
    if (getenv("CDYN_TEST_VERBOSE"))
      printf("%-14s anchor h = 1/%-5ld ends %.3e m apart (bound %.3e); iterations %lu, %lu\n", scheme, N, diff,
             bound, own[k].iterations, builtin[k].iterations);
    if (k) {
      hs[k - 1] = 2 * h;
      own_d[k - 1] = tu_dist3(own[k - 1].q, own[k].q);
      builtin_d[k - 1] = tu_dist3(builtin[k - 1].q, builtin[k].q);
    }
  }
  double p_own = tu_fit_order(hs, own_d, NLEVELS), p_builtin = tu_fit_order(hs, builtin_d, NLEVELS);
  ck_assert_msg(fabs(p_own - declared) <= 0.25,
                "%s with an anchor without hess: position order %.3f, declared %g (differences %.3e .. %.3e)",
                scheme, p_own, declared, own_d[0], own_d[NLEVELS - 1]);
  if (getenv("CDYN_TEST_VERBOSE"))
    printf("%-14s anchor order %.3f without hess, %.3f with it (declared %g); largest difference %.3g of its "
           "bound\n",
           scheme, p_own, p_builtin, declared, worst);
}
END_TEST

static Suite *fdhess_suite(void)
{
  Suite *s = suite_create("fdhess");
  TCase *tc = tcase_create("orders");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_orders_without_hess, 0, (int)(sizeof schemes / sizeof schemes[0]));
  tcase_add_loop_test(tc, test_anchor_without_hess, 0, (int)(sizeof schemes / sizeof schemes[0]));
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return tu_run(fdhess_suite());
}
