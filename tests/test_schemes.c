/*
 * test_schemes.c: every scheme on pendulums, against the reduced-coordinate
 * reference (reference/nlink.c, GSL rk8pd at 1e-13).
 *
 * - Convergence order: the global position error at T = 1 s over five step
 *   sizes, fitted by least squares in log-log, must lie within 0.25 of the
 *   order the scheme declares (cdyn_scheme_order).  The coarsest step is
 *   chosen so that w h <= 0.14 (w = sqrt(g/L) = 2.75 rad/s), where the
 *   leading error term dominates; the 0.25 band is what the next term,
 *   relatively O(w h), can shift a slope fitted over a factor 16 in h.
 * - Constraint error: implicit's after-step error is the remainder of its
 *   linearisation (001 eq 14): for a link, Phi(q+) = |dd_perp|^2 / (2 r)
 *   with dd = h v_rel, so max e = h^2 v_max^2 / (2 L) to leading order,
 *   v_max^2 = 2 g L (1 - cos theta0).  Every scheme's constraint
 *   error vanishes at least at first order in h on a double pendulum,
 *   except for the schemes that iterate Phi(q+) = 0 to a tolerance (they
 *   have an option `tol`), whose error must stay within it at every h.
 * - Energy over 30 s (about 12 periods): implicit and post-stabilisation
 *   dissipate, the less the smaller h; symplectic-Euler Baumgarte keeps an
 *   O(h) bounded error; RK4 Baumgarte an error of order 4.
 * - Conformance of every registered scheme: steps a 10-link chain, stays
 *   finite, is bitwise deterministic, rejects h <= 0, and gives the same
 *   answer with either linear solver.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "nlink.h"

static const double G = 9.81;

typedef struct {
  size_t links;
  double L, m, theta0;
} pend;

/* A planar pendulum of `links` links from angle theta0, at rest. */
static cdyn_system *make_pendulum(const pend *p)
{
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, p->links + 1), CDYN_OK);
  double g[3] = {0, -G, 0}, o[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  for (size_t i = 1; i <= p->links; i++) {
    double x[3] = {(double)i * p->L * sin(p->theta0), -(double)i * p->L * cos(p->theta0), 0};
    ck_assert_int_eq(cdyn_system_set_position(s, i, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(s, i, p->m), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_pin(s, 0, o, NULL), CDYN_OK);
  for (size_t i = 0; i < p->links; i++)
    ck_assert_int_eq(cdyn_system_add_distance(s, i, i + 1, p->L, NULL), CDYN_OK);
  return s;
}

/* Reference position of the last node at time T. */
static void reference_at(const pend *p, double T, double *xy_last)
{
  double len[8], mass[8], th[8];
  for (size_t i = 0; i < p->links; i++) {
    len[i] = p->L;
    mass[i] = p->m;
    th[i] = p->theta0;
  }
  cdyn_ref_nlink_params rp = {p->links, len, mass, G, {0, 0}, th, NULL, 1e-13, 1e-13};
  cdyn_ref_nlink *r;
  ck_assert_int_eq(cdyn_ref_nlink_new(&r, &rp), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_nlink_advance(r, T), CDYN_OK);
  double xy[16];
  ck_assert_int_eq(cdyn_ref_nlink_positions(r, xy), CDYN_OK);
  xy_last[0] = xy[2 * p->links - 2];
  xy_last[1] = xy[2 * p->links - 1];
  cdyn_ref_nlink_free(r);
}

typedef struct {
  double pos_err;  /* |x_last - x_ref| at the end */
  double emax;     /* max constraint error over the run */
  double E0;       /* initial energy */
  double dEmax;    /* max |E - E0| */
  double first, last; /* mean E - E0 over the first and last `window` seconds */
} run_out;

static void run(const char *scheme, const pend *p, double h, long N, double window, run_out *o)
{
  cdyn_system *s = make_pendulum(p);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  double T, V;
  ck_assert_int_eq(cdyn_system_energy(s, &T, &V), CDYN_OK);
  memset(o, 0, sizeof *o);
  o->E0 = T + V;
  long P = window > 0 ? lround(window / h) : 0;
  for (long k = 1; k <= N; k++) {
    int rc = cdyn_stepper_step(st, h);
    ck_assert_msg(rc == CDYN_OK, "%s h = %g step %ld: %s", scheme, h, k, cdyn_errmsg());
    double e;
    ck_assert_int_eq(cdyn_system_constraint_error(s, &e), CDYN_OK);
    ck_assert_int_eq(cdyn_system_energy(s, &T, &V), CDYN_OK);
    double d = T + V - o->E0;
    if (e > o->emax)
      o->emax = e;
    if (fabs(d) > o->dEmax)
      o->dEmax = fabs(d);
    if (k <= P)
      o->first += d / (double)P;
    if (k > N - P)
      o->last += d / (double)P;
  }
  double ref[2];
  reference_at(p, (double)N * h, ref);
  const double *q = cdyn_system_positions(s);
  o->pos_err = hypot(q[3 * p->links] - ref[0], q[3 * p->links + 1] - ref[1]);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}

/* Least-squares slope of log(y) against log(x). */
static double fit_order(const double *x, const double *y, int n)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int k = 0; k < n; k++) {
    double lx = log(x[k]), ly = log(y[k]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

static const pend single = {1, 1.3, 0.7, 1.1};
static const pend dbl = {2, 0.9, 1.3, 0.8};

#define NH 5

START_TEST(test_convergence_order)
{
  const char *scheme = cdyn_scheme_name((size_t)_i);
  double p = cdyn_scheme_order((size_t)_i);
  /* w h <= 0.14 at the coarsest step: N0 = 20 at order > 2, else 40
     (first-order schemes need the smaller step for their error to be
     asymptotic in the constraint-force coupling as well). */
  long N0 = p > 2 ? 20 : 40;
  double hs[NH], err[NH];
  for (int k = 0; k < NH; k++) {
    long N = N0 << k;
    hs[k] = 1.0 / (double)N;
    run_out o;
    run(scheme, &single, hs[k], N, 0, &o);
    err[k] = o.pos_err;
  }
  double fitted = fit_order(hs, err, NH);
  ck_assert_msg(fabs(fitted - p) <= 0.25, "%s: fitted order %.3f, declared %g (errors %.3e .. %.3e)", scheme,
                fitted, p, err[0], err[NH - 1]);
}
END_TEST

START_TEST(test_implicit_constraint_bound)
{
  /* 001 eq 14 linearises Phi at q, so after each step the error is the
     remainder |dd_perp|^2 / (2 L) with dd = h v_rel: at the bottom of the
     swing the maximum is h^2 v_max^2 / (2 L) to leading order.  The next
     terms are relatively O(w h) <= 0.07 here, so the measured maximum must
     lie within 10 % of that value: an implicit step that corrected only
     part of Phi, or over-corrected it, lands outside. */
  double vmax2 = 2 * G * single.L * (1 - cos(single.theta0));
  for (long N = 40; N <= 640; N *= 2) {
    double h = 1.0 / (double)N;
    run_out o;
    run("implicit", &single, h, N, 0, &o);
    double lead = h * h * vmax2 / (2 * single.L);
    ck_assert_msg(o.emax >= 0.9 * lead && o.emax <= 1.1 * lead,
                  "h = %g: max e = %.4e, leading-order remainder h^2 v^2 / (2 L) = %.4e (ratio %.4f)", h, o.emax,
                  lead, o.emax / lead);
  }
}
END_TEST

/* The scheme's option `tol` (schemes that iterate Phi(q+) = 0 to a
   tolerance), or 0 if it has none. */
static double scheme_tol(const char *scheme)
{
  cdyn_system *s = make_pendulum(&single);
  cdyn_stepper *st;
  char buf[64];
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  double tol = cdyn_stepper_get(st, "tol", buf, sizeof buf) == CDYN_OK ? strtod(buf, NULL) : 0;
  cdyn_stepper_free(st);
  cdyn_system_free(s);
  return tol;
}

START_TEST(test_constraint_error_vanishes)
{
  /* On the double pendulum every scheme's constraint error goes to zero at
     least at first order in h (post-stabilisation and RK4 faster).  The
     schemes that solve Phi(q+) = 0 by iteration (newton, shake, rattle)
     instead keep every row within their tolerance at every h: the error
     e = |Phi_pin|_2 + |Phi_link1| + |Phi_link2| is then at most
     (sqrt(3) + 2) tol. */
  const char *scheme = cdyn_scheme_name((size_t)_i);
  double tol = scheme_tol(scheme);
  double hs[4], em[4];
  for (int k = 0; k < 4; k++) {
    long N = 50L << k;
    hs[k] = 1.0 / (double)N;
    run_out o;
    run(scheme, &dbl, hs[k], N, 0, &o);
    em[k] = o.emax;
    if (tol > 0)
      ck_assert_msg(em[k] <= (sqrt(3.0) + 2) * tol, "%s, h = %g: max e = %.3e above (sqrt 3 + 2) tol = %.3e", scheme,
                    hs[k], em[k], (sqrt(3.0) + 2) * tol);
  }
  if (tol > 0)
    return;
  double slope = fit_order(hs, em, 4);
  ck_assert_msg(slope >= 0.9, "%s: constraint error fitted order %.3f (max e %.3e .. %.3e)", scheme, slope, em[0],
                em[3]);
  if (!strcmp(scheme, "implicit"))
    ck_assert_msg(fabs(slope - 2) <= 0.25, "implicit: the linearisation remainder is O(h^2), fitted %.3f", slope);
}
END_TEST

/* Energy over 30 s at h = 0.02, 0.01, 0.005; windows of one period (2.5 s). */
static void energy_runs(const char *scheme, run_out o[3], double hs[3])
{
  for (int k = 0; k < 3; k++) {
    hs[k] = 0.02 / (double)(1 << k);
    run(scheme, &single, hs[k], lround(30.0 / hs[k]), 2.5, &o[k]);
  }
}

START_TEST(test_energy_implicit_dissipates)
{
  run_out o[3];
  double hs[3];
  energy_runs("implicit", o, hs);
  for (int k = 0; k < 3; k++) {
    /* The mean energy over the last period is below that of the first,
       and both below the start: the scheme removes energy. */
    ck_assert_msg(o[k].last < o[k].first && o[k].first < 0, "h = %g: mean E - E0 first %.3e last %.3e", hs[k],
                  o[k].first, o[k].last);
    /* The loss shrinks with h. */
    if (k)
      ck_assert_msg(fabs(o[k].last) < 0.6 * fabs(o[k - 1].last), "loss did not shrink from h = %g to %g: %.3e, %.3e",
                    hs[k - 1], hs[k], o[k - 1].last, o[k].last);
  }
}
END_TEST

START_TEST(test_energy_poststab_dissipates_first_order)
{
  run_out o[3];
  double hs[3], loss[3];
  energy_runs("poststab", o, hs);
  for (int k = 0; k < 3; k++) {
    ck_assert_msg(o[k].last < o[k].first && o[k].first < 0, "h = %g: mean E - E0 first %.3e last %.3e", hs[k],
                  o[k].first, o[k].last);
    loss[k] = -o[k].first;
  }
  /* The projection removes O(h) energy per unit time (dq = O(h^2) per
     step against a velocity left unprojected): first order in h. */
  double slope = fit_order(hs, loss, 3);
  ck_assert_msg(fabs(slope - 1) <= 0.2, "post-stab energy loss order %.3f", slope);
}
END_TEST

START_TEST(test_energy_baumgarte_bounded_first_order)
{
  run_out o[3];
  double hs[3], d[3];
  energy_runs("baumgarte", o, hs);
  for (int k = 0; k < 3; k++)
    d[k] = o[k].dEmax;
  /* Symplectic Euler: an O(h) energy error over the whole 30 s, so no
     drift that survives h -> 0. */
  double slope = fit_order(hs, d, 3);
  ck_assert_msg(fabs(slope - 1) <= 0.2, "Baumgarte max |E - E0| order %.3f (%.3e .. %.3e)", slope, d[0], d[2]);
}
END_TEST

START_TEST(test_energy_rk4_high_order)
{
  run_out o[3];
  double hs[3], d[3];
  energy_runs("baumgarte-rk4", o, hs);
  for (int k = 0; k < 3; k++)
    d[k] = o[k].dEmax;
  /* RK4 is not symplectic: its energy error is that of a fourth-order
     method; over a long run the band is wider than for the position. */
  double slope = fit_order(hs, d, 3);
  ck_assert_msg(slope >= 3.0 && slope <= 5.0, "RK4 max |E - E0| order %.3f (%.3e .. %.3e)", slope, d[0], d[2]);
  ck_assert_msg(d[0] < 1e-3 * fabs(o[0].E0), "RK4 energy error %.3e at h = 0.02", d[0]);
}
END_TEST

/* ---- conformance of every registered scheme ------------------------------- */

static cdyn_system *chain10(void)
{
  pend p = {10, 0.5, 1.0, 1.2};
  cdyn_system *s = make_pendulum(&p);
  /* High-entropy masses so that W is not a multiple of I. */
  for (size_t i = 1; i <= 10; i++)
    ck_assert_int_eq(cdyn_system_set_mass(s, i, 0.5 + 0.37 * (double)((i * 7) % 5)), CDYN_OK);
  return s;
}

static void chain_run(const char *scheme, const char *solver, long steps, double *q)
{
  cdyn_system *s = chain10();
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  if (solver)
    ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_OK);
  for (long k = 0; k < steps; k++) {
    int rc = cdyn_stepper_step(st, 0.002);
    ck_assert_msg(rc == CDYN_OK, "%s step %ld: %s", scheme, k, cdyn_errmsg());
  }
  ck_assert_int_eq(cdyn_system_get_state(s, q, NULL), CDYN_OK);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}

START_TEST(test_conformance)
{
  const char *scheme = cdyn_scheme_name((size_t)_i);
  double q1[33], q2[33], q3[33];
  chain_run(scheme, NULL, 300, q1);
  chain_run(scheme, NULL, 300, q2);
  for (int k = 0; k < 33; k++)
    ck_assert_msg(isfinite(q1[k]), "%s: non-finite state", scheme);
  ck_assert_msg(memcmp(q1, q2, sizeof q1) == 0, "%s: two identical runs differ", scheme);
  /* PCG at its default 1e-12 tolerance agrees with Cholesky far below
     the scheme's own error (300 steps amplify solve errors mildly). */
  chain_run(scheme, "pcg", 300, q3);
  for (int k = 0; k < 33; k++)
    ck_assert_msg(fabs(q3[k] - q1[k]) <= 1e-8, "%s: pcg and cholesky differ by %.3e", scheme, fabs(q3[k] - q1[k]));
  cdyn_system *s = chain10();
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 0.0), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_step(st, -0.01), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_step(st, NAN), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_set(st, "no_such_option", "1"), CDYN_EUNKNOWN);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

START_TEST(test_first_step_at_rest_agrees)
{
  /* On a state that is exactly on the constraints and at rest, every
     stabilised and unstabilised formulation must return the same first
     step: Phi = 0 and J v = 0 make the feedback terms vanish. */
  double qa[6], qb[6];
  const char *names[2] = {"baumgarte", "poststab"};
  for (int k = 0; k < 2; k++) {
    cdyn_system *s = make_pendulum(&single);
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_stepper_new(&st, s, names[k]), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_step(st, 1e-3), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(s, k ? qb : qa, NULL), CDYN_OK);
    cdyn_stepper_free(st);
    cdyn_system_free(s);
  }
  /* Post-stabilisation then projects O(h^2 v^2 / L) = 0 at rest up to the
     O(h^4) curvature of the first step. */
  for (int k = 0; k < 6; k++)
    ck_assert_msg(fabs(qa[k] - qb[k]) <= 1e-10, "component %d: %.3e", k, fabs(qa[k] - qb[k]));
}
END_TEST

START_TEST(test_witkin_equals_baumgarte)
{
  /* 002's feedback form with (ks, kd) is Baumgarte's with alpha = kd / 2,
     beta = sqrt(ks); 002's multiplier has the opposite sign, and the
     stepper reports both in the library's convention.  The two are
     separate implementations; from a state that violates Phi and Phi-dot
     (so the feedback terms act) they must agree to rounding: the only
     difference in the arithmetic is beta^2 against ks (one ulp) and the
     order of a few additions, amplified mildly over 300 steps. */
  const double ks = 7.3, kd = 3.1;
  char alpha[64], beta[64], kss[64], kds[64];
  snprintf(alpha, sizeof alpha, "%.17g", kd / 2);
  snprintf(beta, sizeof beta, "%.17g", sqrt(ks));
  snprintf(kss, sizeof kss, "%.17g", ks);
  snprintf(kds, sizeof kds, "%.17g", kd);
  double q[2][9], lam[2][5];
  for (int k = 0; k < 2; k++) {
    cdyn_system *s = make_pendulum(&dbl);
    double x2[3] = {1.31, -0.97, 0.05}, v1[3] = {0.4, 0.3, -0.2};
    ck_assert_int_eq(cdyn_system_set_position(s, 2, x2), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(s, 1, v1), CDYN_OK);
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_stepper_new(&st, s, k ? "witkin" : "baumgarte"), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_set(st, k ? "ks" : "alpha", k ? kss : alpha), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_set(st, k ? "kd" : "beta", k ? kds : beta), CDYN_OK);
    for (int i = 0; i < 300; i++)
      ck_assert_int_eq(cdyn_stepper_step(st, 0.002), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(s, q[k], NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_multipliers(st, lam[k]), CDYN_OK);
    cdyn_stepper_free(st);
    cdyn_system_free(s);
  }
  for (int i = 0; i < 9; i++)
    ck_assert_msg(fabs(q[0][i] - q[1][i]) <= 1e-10, "q[%d]: Baumgarte %.17g, Witkin %.17g", i, q[0][i], q[1][i]);
  for (int r = 0; r < 5; r++)
    ck_assert_msg(fabs(lam[0][r] - lam[1][r]) <= 1e-9 * (1 + fabs(lam[0][r])),
                  "lambda[%d]: Baumgarte %.17g, Witkin %.17g", r, lam[0][r], lam[1][r]);
  /* And the feedback did act: without it the final state differs. */
  cdyn_system *s = make_pendulum(&dbl);
  double x2[3] = {1.31, -0.97, 0.05}, v1[3] = {0.4, 0.3, -0.2}, q0[9];
  ck_assert_int_eq(cdyn_system_set_position(s, 2, x2), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(s, 1, v1), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "witkin"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "ks", "0"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "kd", "0"), CDYN_OK);
  for (int i = 0; i < 300; i++)
    ck_assert_int_eq(cdyn_stepper_step(st, 0.002), CDYN_OK);
  ck_assert_int_eq(cdyn_system_get_state(s, q0, NULL), CDYN_OK);
  double diff = 0;
  for (int i = 0; i < 9; i++)
    diff = fmax(diff, fabs(q0[i] - q[1][i]));
  ck_assert_msg(diff > 1e-3, "feedback made no difference (%.3e)", diff);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("schemes");
  int ns = (int)cdyn_scheme_count();
  TCase *tc = tcase_create("order");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_convergence_order, 0, ns);
  tcase_add_loop_test(tc, test_constraint_error_vanishes, 0, ns);
  tcase_add_test(tc, test_implicit_constraint_bound);
  suite_add_tcase(s, tc);
  tc = tcase_create("energy");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_energy_implicit_dissipates);
  tcase_add_test(tc, test_energy_poststab_dissipates_first_order);
  tcase_add_test(tc, test_energy_baumgarte_bounded_first_order);
  tcase_add_test(tc, test_energy_rk4_high_order);
  suite_add_tcase(s, tc);
  tc = tcase_create("conformance");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_conformance, 0, ns);
  tcase_add_test(tc, test_first_step_at_rest_agrees);
  tcase_add_test(tc, test_witkin_equals_baumgarte);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
