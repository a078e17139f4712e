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
 * - Schemes of declared order 0 (penalty methods) converge as k -> infinity
 *   instead: their error and constraint error fall like 1 / k, and their
 *   error does not vanish as h -> 0 at fixed k.
 * - A scheme written outside the library (tests/ext_scheme.h: 001's
 *   implicit scheme on the public cdyn/scheme.h), registered by main before
 *   the suites count the schemes, goes through every loop above, and must
 *   give the built-in "implicit" bit for bit; cdyn_scheme_register refuses
 *   every kind of malformed type with a message.
 *
 * The AB2 integrator under these schemes is tested in test_ab2.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "bead.h"
#include "hoop.h"
#include "nlink.h"
#include "ext_scheme.h"
#include "pendutil.h"
#include "testutil.h"

/* run_opts without options. */
static void run(const char *scheme, const pend *p, double h, long N, double window, run_out *o)
{
  run_opts(scheme, NULL, p, h, N, window, o);
}

static const pend dbl = {2, 0.9, 1.3, 0.8};

/*
 * A scheme of declared order 0 is a penalty method: it does not converge
 * to the constrained solution as h -> 0 at a fixed stiffness, because its
 * links stretch by delta ~ T / k under their tension T (a floor of order
 * m g / k) and the longer, softer pendulum accumulates a phase error over
 * the run, also proportional to 1 / k.  What holds instead is convergence
 * as k -> infinity: at a step small enough that the time-discretisation
 * error is negligible, the error against the constrained reference falls
 * like 1 / k.  Such a scheme must expose its stiffness as the option `k`.
 *
 * Band: on the single pendulum at k = 1e3 the stretch is delta ~ 0.04 m
 * (3 % of L) and the spring frequency sqrt(2.94 k) = 54 rad/s is 20 times
 * the swing's 2.75 rad/s, so the next terms in 1 / k are relatively
 * O(delta / L) and O(w_swing / w_spring), a few per cent; at h = 1/40960
 * the first-order time-discretisation error (about 0.9 h for symplectic
 * Euler, 5 h for explicit Euler, measured at k = 1e4) is at most 3 % of
 * the error at k = 1e4.  Each error is therefore its 1 / k term within
 * about 10 %, which moves the slope of log e against log k by at most
 * log10(1.1 / 0.9) = 0.09; the assertion allows 0.2 around 1.  (A
 * stiffness that did not act, or acted as k^2, gives 0 or 2.)
 *
 * And the declared order itself: at fixed k the error must not vanish as
 * h shrinks; a fourfold smaller step leaves more than half of it (a
 * scheme of order >= 0.5 would remove at least half).
 */
static void check_penalty_limit(const char *scheme)
{
  const long N = 40960;
  const double h = 1.0 / (double)N;
  const char *const soft[] = {"k", "1e3", NULL}, *const stiff[] = {"k", "1e4", NULL};
  run_out o1, o2;
  run_opts(scheme, soft, &single, h, N, 0, &o1);
  run_opts(scheme, stiff, &single, h, N, 0, &o2);
  double slope = log10(o1.pos_err / o2.pos_err);
  ck_assert_msg(fabs(slope - 1) <= 0.2, "%s: error %.4e at k = 1e3, %.4e at k = 1e4: slope in k %.3f, expected 1",
                scheme, o1.pos_err, o2.pos_err, slope);
  run_out c, f;
  run_opts(scheme, stiff, &single, 1.0 / 2560, 2560, 0, &c);
  run_opts(scheme, stiff, &single, 1.0 / 10240, 10240, 0, &f);
  ck_assert_msg(f.pos_err > 0.5 * c.pos_err,
                "%s declares order 0 but its error at k = 1e4 fell from %.4e (h = 1/2560) to %.4e (h = 1/10240)",
                scheme, c.pos_err, f.pos_err);
}

/*
 * Velocity and multiplier orders on a constraint that moves with time:
 * the bead on a hoop spinning about its vertical diameter (the "hoop"
 * type; reference/hoop.c), R = 1 m, 1 kg, omega = sqrt(2 g / R), released
 * at rest relative to the hoop at 1.4 rad.  It has two rows, a Coriolis
 * force across the turning plane and gravity, the most general of the
 * suite's reference problems.  Over h = 1/160 .. 1/2560 to T = 1 s the
 * velocity error at T and the multiplier error (the largest over the two
 * rows, at the time within the last step the scheme declares,
 * cdyn_scheme_lambda_time) are fitted like the position's above, and
 * must lie within 0.25 of the declared orders
 * (cdyn_scheme_velocity_order_constant_force: gravity is constant;
 * cdyn_scheme_lambda_order).  The band is the position test's: at these h
 * the next term of the error changes the slope by less than 0.15 for
 * every scheme (measured on this problem by the convergence experiment,
 * whose finer levels agree to 0.05 with the orders asserted).  A scheme
 * that declares a velocity that does not converge (CDYN_ORDER_NONE) must
 * not see it fall: the error at the finest h keeps more than half of the
 * coarsest's.  Penalty schemes (position order 0) converge in k, not h,
 * and are checked by check_penalty_limit; multipliers that are not the
 * constraint force (lambda_note) or are not declared are not compared.
 */
/* The bead on the unit circle under gravity from theta0 with theta' =
   omega0, at t = 1 s (reference/bead.h's ODE reference, rk8pd at 1e-13). */
static int bead_reference_at_1s(double theta0, double omega0, double *theta, double *omega)
{
  cdyn_ref_bead_params bp = {1.0, G, {0, 0}, theta0, omega0, 1e-13, 1e-13};
  cdyn_ref_bead *b;
  int rc = cdyn_ref_bead_new(&b, &bp);
  if (rc)
    return rc;
  if (!(rc = cdyn_ref_bead_advance(b, 1.0)))
    rc = cdyn_ref_bead_angle(b, theta, omega);
  cdyn_ref_bead_free(b);
  return rc;
}

typedef struct {
  double vel_err, lam_err;
} hoop_out;

static void hoop_run(const char *scheme, long N, hoop_out *o)
{
  const double T = 1.0, h = T / (double)N, w = sqrt(2 * G), th0 = 1.4;
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, 1), CDYN_OK);
  double g[3] = {0, -G, 0}, x[3] = {sin(th0), -cos(th0), 0}, v[3] = {0, 0, -w * sin(th0)};
  double p[11] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 1, w};
  size_t p0 = 0;
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(s, 0, x), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(s, 0, v), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_constraint_named(s, "hoop", &p0, p, NULL), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  for (long k = 1; k <= N; k++) {
    int rc = cdyn_stepper_step(st, h);
    TU_ASSERT(rc == CDYN_OK, "%s on the hoop, h = 1/%ld, step %ld: %s", scheme, N, k, cdyn_errmsg());
  }
  double lam[2];
  ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
  int when = cdyn_stepper_lambda_time(st);
  double tl = T - h + (when == CDYN_LAMBDA_MID ? 0.5 : when == CDYN_LAMBDA_END ? 1.0 : 0.0) * h;
  cdyn_ref_hoop_params rp = {1.0, G, w, th0, 0.0, 1e-13, 1e-13};
  cdyn_ref_hoop *r;
  double lr[2], vr[3];
  ck_assert_int_eq(cdyn_ref_hoop_new(&r, &rp), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_hoop_advance(r, tl), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_hoop_multipliers(r, 1.0, lr), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_hoop_advance(r, T), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_hoop_state(r, NULL, vr, NULL), CDYN_OK);
  cdyn_ref_hoop_free(r);
  const double *vs = cdyn_system_velocities(s);
  o->vel_err = hypot(hypot(vs[0] - vr[0], vs[1] - vr[1]), vs[2] - vr[2]);
  o->lam_err = fmax(fabs(lam[0] - lr[0]), fabs(lam[1] - lr[1]));
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}

START_TEST(test_velocity_lambda_order)
{
  const char *scheme = tu_scheme_name((size_t)_i);
  size_t idx;
  ck_assert_int_eq(cdyn_scheme_find(scheme, &idx), CDYN_OK);
  if (cdyn_scheme_order_constant_force(idx) == 0)
    return; /* a penalty method: check_penalty_limit */
  double hs[NH], ve[NH], le[NH];
  hoop_out o[NH];
  for (int k = 0; k < NH; k++) {
    long N = 160L << k;
    hs[k] = 1.0 / (double)N;
    hoop_run(scheme, N, &o[k]);
    ve[k] = o[k].vel_err;
    le[k] = o[k].lam_err;
  }
  double pv = cdyn_scheme_velocity_order_constant_force(idx);
  if (pv == CDYN_ORDER_NONE) {
    ck_assert_msg(ve[NH - 1] > 0.5 * ve[0],
                  "%s declares a velocity that does not converge, but its error fell from %.3e (h = 1/160) to %.3e "
                  "(h = 1/2560)",
                  scheme, ve[0], ve[NH - 1]);
  } else {
    double fv = tu_fit_order(hs, ve, NH);
    ck_assert_msg(fabs(fv - pv) <= 0.25, "%s on the hoop: velocity order %.3f, declared %g (errors %.3e .. %.3e)",
                  scheme, fv, pv, ve[0], ve[NH - 1]);
    if (getenv("CDYN_TEST_VERBOSE"))
      printf("hoop %-14s velocity order %.3f\n", scheme, fv);
  }
  double pl = cdyn_scheme_lambda_order(idx);
  if (pl > 0) {
    double fl = tu_fit_order(hs, le, NH);
    ck_assert_msg(fabs(fl - pl) <= 0.25,
                  "%s on the hoop: multiplier order %.3f at its declared time, declared %g (errors %.3e .. %.3e N)",
                  scheme, fl, pl, le[0], le[NH - 1]);
    if (getenv("CDYN_TEST_VERBOSE"))
      printf("hoop %-14s multiplier order %.3f\n", scheme, fl);
  }
}
END_TEST

/*
 * The pins-only schemes (baraff-witkin) cannot run the hoop: their
 * multipliers are those of pins.  A 1 kg particle pinned at the origin
 * holds a 1 kg particle hanging on a spring (k = 100 N/m, rest length 1
 * m), released A = 0.1 m below its equilibrium at rest: the spring's
 * extension is m g / k + A cos(omega t), omega = sqrt(k / m) = 10 rad/s,
 * and the pin holds both weights and the oscillating spring force,
 *   lambda_pin,y = -2 m g - k A cos(omega t)
 * (the library's convention: 0 = F_0 + F_spring,0 - lambda_pin).  Over
 * h = 1/100 .. 1/1600 to T = 1 s (omega h <= 0.1) the error at the
 * declared time must converge at the declared order, within 0.25.
 */
/* An integrator option moves the multipliers' time: Baumgarte's are at the
   step's start over symplectic Euler, at its end over RK4 (its last
   stage), as baumgarte-rk4 declares. */
START_TEST(test_lambda_time_follows_options)
{
  cdyn_system *s;
  cdyn_stepper *st;
  const double one = 1.0;
  ck_assert_int_eq(tu_chain(&s, 1, 1.0, 1.0, &one), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "baumgarte"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_lambda_time(st), CDYN_LAMBDA_START);
  ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "rk4"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_lambda_time(st), CDYN_LAMBDA_END);
  size_t idx;
  ck_assert_int_eq(cdyn_scheme_find("baumgarte-rk4", &idx), CDYN_OK);
  ck_assert_int_eq(cdyn_scheme_lambda_time(idx), CDYN_LAMBDA_END);
  ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "ab2"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_lambda_time(st), CDYN_LAMBDA_START);
  cdyn_stepper_free(st);
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "implicit"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_lambda_time(st), CDYN_LAMBDA_MID);
  cdyn_stepper_free(st);
  /* Every scheme with an integrator option follows its integrator, and
     declares the time of its default one. */
  int driven = 0;
  for (size_t i = 0; i < cdyn_scheme_count(); i++) {
    const char *name = cdyn_scheme_name(i);
    if (cdyn_scheme_pins_only(i) || cdyn_stepper_new(&st, s, name) != CDYN_OK)
      continue;
    char integ[64];
    if (cdyn_stepper_get(st, "integrator", integ, sizeof integ) == CDYN_OK) {
      driven++;
      const cdyn_integrator_type *it;
      ck_assert_int_eq(cdyn_integrator_type_find(integ, &it), CDYN_OK);
      ck_assert_msg(cdyn_scheme_lambda_time(i) == (int)it->last_eval, "%s declares %d, its %s evaluates last at %d",
                    name, cdyn_scheme_lambda_time(i), integ, (int)it->last_eval);
      ck_assert_int_eq(cdyn_stepper_lambda_time(st), (int)it->last_eval);
      ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "rk4"), CDYN_OK);
      ck_assert_msg(cdyn_stepper_lambda_time(st) == CDYN_LAMBDA_END, "%s over rk4", name);
      ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "euler"), CDYN_OK);
      ck_assert_msg(cdyn_stepper_lambda_time(st) == CDYN_LAMBDA_START, "%s over euler", name);
    }
    cdyn_error_clear();
    cdyn_stepper_free(st);
  }
  ck_assert_int_ge(driven, 6); /* baumgarte, baumgarte-rk4, witkin, poststab, penalty, penalty-euler */
  cdyn_system_free(s);
  ck_assert_int_eq(cdyn_stepper_lambda_time(NULL), -1);
}
END_TEST

START_TEST(test_pins_only_lambda_order)
{
  int tested = 0;
  for (size_t i = 0; i < cdyn_scheme_count(); i++) {
    if (!cdyn_scheme_pins_only(i) || cdyn_scheme_lambda_order(i) <= 0)
      continue;
    const double k = 100, m = 1, L = 1, A = 0.1, w = sqrt(k / m), T = 1;
    double hs[NH], err[NH];
    for (int l = 0; l < NH; l++) {
      long N = 100L << l;
      double h = T / (double)N;
      cdyn_system *s;
      cdyn_stepper *st;
      const double g[3] = {0, -G, 0}, o[3] = {0, 0, 0}, x1[3] = {0, -(L + m * G / k + A), 0};
      ck_assert_int_eq(cdyn_system_new(&s, 2), CDYN_OK);
      ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
      ck_assert_int_eq(cdyn_system_set_position(s, 1, x1), CDYN_OK);
      ck_assert_int_eq(cdyn_system_set_mass(s, 0, m), CDYN_OK);
      ck_assert_int_eq(cdyn_system_set_mass(s, 1, m), CDYN_OK);
      ck_assert_int_eq(cdyn_system_add_pin(s, 0, o, NULL), CDYN_OK);
      ck_assert_int_eq(cdyn_system_add_spring(s, 0, 1, k, 0, L, NULL), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_new(&st, s, cdyn_scheme_name(i)), CDYN_OK);
      for (long n = 0; n < N; n++)
        TU_ASSERT_OK(cdyn_stepper_step(st, h));
      double lam[3];
      ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
      int when = cdyn_stepper_lambda_time(st);
      double tl = T - h + (when == CDYN_LAMBDA_MID ? 0.5 : when == CDYN_LAMBDA_END ? 1.0 : 0.0) * h;
      double exact = -2 * m * G - k * A * cos(w * tl);
      hs[l] = h;
      err[l] = fmax(fmax(fabs(lam[0]), fabs(lam[2])), fabs(lam[1] - exact));
      cdyn_stepper_free(st);
      cdyn_system_free(s);
    }
    double fitted = tu_fit_order(hs, err, NH);
    ck_assert_msg(fabs(fitted - cdyn_scheme_lambda_order(i)) <= 0.25,
                  "%s: pin multiplier order %.3f, declared %g (errors %.3e .. %.3e N)", cdyn_scheme_name(i), fitted,
                  cdyn_scheme_lambda_order(i), err[0], err[NH - 1]);
    tested++;
  }
  ck_assert_int_ge(tested, 1);
}
END_TEST

/*
 * Why the midpoint schemes' multipliers and velocities do not converge
 * (improved.c derives it).  With J fixed, a step of "improved" maps the
 * constraint value and normal velocity (Phi, u) to (-Phi, -u - 4 Phi / h):
 * a double eigenvalue -1 with a Jordan block (tests/test_arms.c,
 * test_improved_reflects_violation, checks that map on a plane to
 * rounding).  On a curved constraint each step adds the curvature term kappa =
 * (h^2 / 2) v^T Hess(Phi) v to Phi, so Phi oscillates about kappa / 2 with
 * the amplitude kappa_0 / 2 the first step leaves, and the Jordan block
 * turns that into u_k = (-1)^k 2 k kappa_0 / h: for a particle on a circle
 * of radius R moving at v0, kappa_0 = h^2 v0^2 / (2 R) and |u| = t v0^2 /
 * R, whatever h, while the positions converge (the full step moves along
 * v1/2, which the mode leaves alone).  The half-step multiplier 4 Phi /
 * h^2 + 2 J v / h + J W F then carries 2 u / h.  Checked on the fixed
 * unit circle, released at 1.2 rad with 3 m/s along it under gravity:
 * |u(1 s)| = 9 m/s within 1 % for h = 1/100 .. 1/1600, and h times the
 * multiplier's error is 2 |u| within 1 %.  Released at rest (kappa_0 = 0,
 * the suite's pendulums) only the slow change of kappa excites the mode,
 * at O(h^2) per unit time, which is why the convergence table sees the
 * velocities converge there.
 */
START_TEST(test_improved_jordan_mode)
{
  static const char *const schemes[] = {"improved", "improved-ab2"};
  for (int s = 0; s < 2; s++) {
    cdyn_system *sys;
    cdyn_stepper *st;
    size_t p0 = 0;
    /* The unit circle, from 1.2 rad at 3 m/s along it. */
    const double th0 = 1.2, v0 = 3.0;
    double pos_err[3], thr, omr;
    int level = 0;
    ck_assert_int_eq(bead_reference_at_1s(th0, v0, &thr, &omr), CDYN_OK);
    for (long N = 100; N <= 1600; N *= 4, level++) {
      ck_assert_int_eq(cdyn_system_new(&sys, 1), CDYN_OK);
      double g[3] = {0, -G, 0}, xc[3] = {sin(th0), -cos(th0), 0}, vc[3] = {v0 * cos(th0), v0 * sin(th0), 0};
      double circle[7] = {0, 0, 0, 0, 0, 1, 1};
      ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
      ck_assert_int_eq(cdyn_system_set_position(sys, 0, xc), CDYN_OK);
      ck_assert_int_eq(cdyn_system_set_velocity(sys, 0, vc), CDYN_OK);
      ck_assert_int_eq(cdyn_system_add_constraint_named(sys, "circle", &p0, circle, NULL), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_new(&st, sys, schemes[s]), CDYN_OK);
      for (long k = 0; k < N; k++)
        TU_ASSERT_OK(cdyn_stepper_step(st, 1.0 / (double)N));
      const double *q = cdyn_system_positions(sys), *v = cdyn_system_velocities(sys);
      double r = hypot(q[0], q[1]), u = (q[0] * v[0] + q[1] * v[1]) / r, lam[2];
      ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
      /* The true radial force is of order m (g + v^2 / R) ~ 20 N: the
         multiplier's error is lam[1] itself to within that. */
      ck_assert_msg(fabs(fabs(u) / (v0 * v0) - 1) <= 0.01, "%s, h = 1/%ld: |u(1)| = %.4f m/s, t v0^2 / R = %.4f",
                    schemes[s], N, fabs(u), v0 * v0);
      double hl = fabs(lam[1]) / (double)N;
      ck_assert_msg(fabs(hl / (2 * fabs(u)) - 1) <= 0.01 + 30.0 / ((double)N * 2 * fabs(u)),
                    "%s, h = 1/%ld: h |lambda| = %.4f, 2 |u| = %.4f", schemes[s], N, hl, 2 * fabs(u));
      pos_err[level] = hypot(q[0] - sin(thr), q[1] + cos(thr));
      cdyn_stepper_free(st);
      cdyn_system_free(sys);
    }
    /* Meanwhile the positions converge at second order: 16 times smaller
       per fourfold step, asserted as at least 8 times. */
    ck_assert_msg(pos_err[1] < pos_err[0] / 8 && pos_err[2] < pos_err[1] / 8,
                  "%s on the circle: position errors %.3e, %.3e, %.3e at h = 1/100, 1/400, 1/1600", schemes[s],
                  pos_err[0], pos_err[1], pos_err[2]);
  }
}
END_TEST

START_TEST(test_convergence_order)
{
  const char *scheme = tu_scheme_name((size_t)_i);
  /* Gravity alone is a constant force. */
  double p = cdyn_scheme_order_constant_force(tu_scheme_index((size_t)_i));
  if (p == 0) {
    check_penalty_limit(scheme);
    return;
  }
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
  double fitted = tu_fit_order(hs, err, NH);
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
  const char *scheme = tu_scheme_name((size_t)_i);
  double tol = scheme_tol(scheme);
  if (cdyn_scheme_order(tu_scheme_index((size_t)_i)) == 0) {
    /* A penalty scheme's constraint error is the stretch T / k of its
       springs, which does not vanish with h but falls like 1 / k; the
       maximum over the run is the largest tension over k, to within
       relative O(delta / L) (below 5 % at k = 1e3 on this pendulum), so
       its slope in k lies within 0.1 of 1, asserted within 0.2, at a step
       (h = 1/10240) far inside the stability limit. */
    const char *const soft[] = {"k", "1e3", NULL}, *const stiff[] = {"k", "1e4", NULL};
    run_out o1, o2;
    run_opts(scheme, soft, &dbl, 1.0 / 10240, 10240, 0, &o1);
    run_opts(scheme, stiff, &dbl, 1.0 / 10240, 10240, 0, &o2);
    double slope = log10(o1.emax / o2.emax);
    ck_assert_msg(fabs(slope - 1) <= 0.2, "%s: max constraint error %.4e at k = 1e3, %.4e at k = 1e4: slope %.3f",
                  scheme, o1.emax, o2.emax, slope);
    return;
  }
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
  double slope = tu_fit_order(hs, em, 4);
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
  double slope = tu_fit_order(hs, loss, 3);
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
  double slope = tu_fit_order(hs, d, 3);
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
  double slope = tu_fit_order(hs, d, 3);
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

static double chain_emax; /* largest e_n of the last chain_run */

static void chain_run(const char *scheme, const char *solver, long steps, double *q)
{
  cdyn_system *s = chain10();
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  if (solver)
    ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_OK);
  for (long k = 0; k < steps; k++) {
    int rc = cdyn_stepper_step(st, 0.002);
    TU_ASSERT(rc == CDYN_OK, "%s step %ld: %s", scheme, k, cdyn_errmsg());
    double e;
    TU_ASSERT_OK(cdyn_system_constraint_error(s, &e));
    if (k == 0 || e > chain_emax)
      chain_emax = e;
  }
  ck_assert_int_eq(cdyn_system_get_state(s, q, NULL), CDYN_OK);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}

START_TEST(test_conformance)
{
  const char *scheme = tu_scheme_name((size_t)_i);
  double q1[33], q2[33], q3[33];
  chain_run(scheme, NULL, 300, q1);
  /* Every scheme holds the links.  A constraint scheme keeps the summed
     error below 1 % of the chain's 5 m over the 0.6 s (one that lets
     links stretch by that much at h = 0.002 is not enforcing them; the
     first-order schemes' drift here is O(h v^2 t / L) ~ 1e-3 per link).
     A penalty scheme (order 0) stretches each link by its tension over
     k: the static tension of link i is g times the mass below it, and a
     chain swinging from 1.2 rad carries at most 3 - 2 cos 1.2 = 2.3
     times it, so 3 sum_i T_i / k bounds the error. */
  double bound = 0.05;
  if (cdyn_scheme_order(tu_scheme_index((size_t)_i)) == 0) {
    cdyn_system *s0 = chain10();
    cdyn_stepper *st0;
    char kbuf[64];
    ck_assert_int_eq(cdyn_stepper_new(&st0, s0, scheme), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_get(st0, "k", kbuf, sizeof kbuf), CDYN_OK);
    double k = strtod(kbuf, NULL), below = 0, sum = 0;
    for (size_t i = 10; i >= 1; i--) {
      double m;
      ck_assert_int_eq(cdyn_system_get_particle(s0, i, &m, NULL, NULL), CDYN_OK);
      below += m;
      sum += G * below;
    }
    bound = 3 * sum / k;
    cdyn_stepper_free(st0);
    cdyn_system_free(s0);
  }
  ck_assert_msg(chain_emax <= bound, "%s: constraint error %.3e exceeds its bound %.3e", scheme, chain_emax, bound);
  chain_run(scheme, NULL, 300, q2);
  for (int k = 0; k < 33; k++)
    ck_assert_msg(isfinite(q1[k]), "%s: non-finite state", scheme);
  ck_assert_msg(memcmp(q1, q2, sizeof q1) == 0, "%s: two identical runs differ", scheme);
  /* PCG at its default 1e-12 tolerance agrees with Cholesky far below
     the scheme's own error (300 steps amplify solve errors mildly). */
  if (tu_solver_fits(scheme, "pcg")) {
    chain_run(scheme, "pcg", 300, q3);
    for (int k = 0; k < 33; k++)
      ck_assert_msg(fabs(q3[k] - q1[k]) <= 1e-8, "%s: pcg and cholesky differ by %.3e", scheme, fabs(q3[k] - q1[k]));
  } else {
    /* A scheme with an indefinite system: its one fitting solver, named,
       gives bitwise the run of its automatic choice. */
    chain_run(scheme, "ldlt", 300, q3);
    ck_assert_msg(memcmp(q1, q3, sizeof q1) == 0, "%s: ldlt named and auto differ", scheme);
  }
  cdyn_system *s = chain10();
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 0.0), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_step(st, -0.01), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_step(st, NAN), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_set(st, "no_such_option", "1"), CDYN_EUNKNOWN);
  ck_assert_int_eq(cdyn_stepper_set(st, NULL, "1"), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", "no-such-solver"), CDYN_EUNKNOWN);
  /* Every option of the scheme rejects text that is no value, and keeps
     its value when it does. */
  for (size_t i = 0; i < cdyn_stepper_option_count(st); i++) {
    const char *name = cdyn_stepper_option_name(st, i);
    char before[128], after[128];
    ck_assert_int_eq(cdyn_stepper_get(st, name, before, sizeof before), CDYN_OK);
    int rc = cdyn_stepper_set(st, name, "@not-a-value");
    ck_assert_msg(rc < 0, "%s: option %s accepts '@not-a-value'", scheme, name);
    ck_assert_int_eq(cdyn_stepper_get(st, name, after, sizeof after), CDYN_OK);
    ck_assert_str_eq(before, after);
  }
  /* A state made non-finite from outside is refused, not stepped. */
  double bad[3] = {NAN, 0, 0};
  ck_assert_int_eq(cdyn_system_set_velocity(s, 3, bad), CDYN_EINVAL);
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

/* ---- schemes written outside the library ------------------------------------ */

/*
 * The scheme of tests/ext_scheme.h, registered by main, is 001's implicit
 * scheme written against the public interface alone: it must give the
 * library's "implicit" bit for bit, on the chain (both solvers).
 */
START_TEST(test_external_equals_builtin)
{
  for (int k = 0; k < 2; k++) {
    const char *solver = k ? "pcg" : "cholesky";
    double qa[33], qb[33];
    chain_run("implicit", solver, 300, qa);
    chain_run("ext-implicit", solver, 300, qb);
    ck_assert_msg(!memcmp(qa, qb, sizeof qa), "ext-implicit and implicit differ with %s", solver);
  }
}
END_TEST

static int dummy_step(cdyn_stepper *st, void *state, double h)
{
  (void)st;
  (void)state;
  (void)h;
  return CDYN_OK;
}

static int dummy_alloc(void **state, size_t n, size_t m)
{
  (void)n;
  (void)m;
  *state = NULL;
  return CDYN_OK;
}

typedef struct {
  double a;
  long b;
} dummy_opts;

/* Registration refuses, with a message, every kind of malformed type. */
START_TEST(test_register_errors)
{
  static const cdyn_option ok_opts[] = {
    {"a", CDYN_OPT_DOUBLE, offsetof(dummy_opts, a), "1.5", 0, 10, NULL, "a"},
    {"b", CDYN_OPT_INT, offsetof(dummy_opts, b), "3", 0, 10, NULL, "b"},
    CDYN_OPTIONS_END};
  static const cdyn_option bad_default[] = {
    {"a", CDYN_OPT_DOUBLE, offsetof(dummy_opts, a), "11", 0, 10, NULL, "a"}, CDYN_OPTIONS_END};
  static const cdyn_option outside[] = {
    {"b", CDYN_OPT_INT, sizeof(dummy_opts), "3", 0, 10, NULL, "b"}, CDYN_OPTIONS_END};
  static const cdyn_option clash[] = {
    {"pcg_tol", CDYN_OPT_DOUBLE, offsetof(dummy_opts, a), "1e-9", 0, 1, NULL, "a"}, CDYN_OPTIONS_END};
  static const cdyn_option twice[] = {
    {"a", CDYN_OPT_DOUBLE, offsetof(dummy_opts, a), "1", 0, 10, NULL, "a"},
    {"a", CDYN_OPT_DOUBLE, offsetof(dummy_opts, a), "1", 0, 10, NULL, "a"},
    CDYN_OPTIONS_END};
  static const cdyn_option nochoices[] = {
    {"c", CDYN_OPT_CHOICE, offsetof(dummy_opts, b), "x", 0, 0, NULL, "c"}, CDYN_OPTIONS_END};
  const cdyn_scheme_type base = {.name = "dummy", .description = "test", .source = "test", .order = 1,
                                 .options = ok_opts, .options_size = sizeof(dummy_opts), .step = dummy_step};
  cdyn_scheme_type t;
  TU_EXPECT_EINVAL(cdyn_scheme_register(NULL));
#define BAD(field, value)                                                                                         \
  do {                                                                                                            \
    t = base;                                                                                                     \
    t.field = value;                                                                                              \
    TU_EXPECT_EINVAL(cdyn_scheme_register(&t));                                                                   \
  } while (0)
  BAD(name, NULL);
  BAD(name, "");
  BAD(name, "has space");
  BAD(name, "implicit"); /* taken */
  BAD(name, "ext-implicit");
  BAD(step, NULL);
  BAD(alloc, dummy_alloc); /* alloc without free */
  BAD(description, NULL);
  BAD(order, NAN);
  BAD(order, -1);
  BAD(velocity_order, -2);
  BAD(velocity_order, INFINITY);
  BAD(lambda_order, NAN);
  BAD(lambda_order, -2);
  BAD(lambda_time, (enum cdyn_lambda_time)3);
  BAD(lambda_note, "");
  {
    /* A note says the multiplier is not the force: no order then. */
    cdyn_scheme_type bad = base;
    bad.name = "dummy-note-order";
    bad.lambda_note = "a spring force";
    bad.lambda_order = 1;
    ck_assert_int_eq(cdyn_scheme_register(&bad), CDYN_EINVAL);
    ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "lambda_order"));
  }
  BAD(options_size, 0);
  BAD(options, bad_default);
  BAD(options, outside);
  BAD(options, clash);
  BAD(options, twice);
  BAD(options, nochoices);
#undef BAD
  size_t before = cdyn_scheme_count(), idx;
  /* A good one registers once, and then runs like any other. */
  static cdyn_scheme_type good;
  good = base;
  good.name = "dummy-good";
  ck_assert_int_eq(cdyn_scheme_register(&good), CDYN_OK);
  ck_assert_uint_eq(cdyn_scheme_count(), before + 1);
  ck_assert_int_eq(cdyn_scheme_find("dummy-good", &idx), CDYN_OK);
  ck_assert_str_eq(cdyn_scheme_name(idx), "dummy-good");
  TU_EXPECT_EINVAL(cdyn_scheme_register(&good));
  cdyn_system *s = chain10();
  cdyn_stepper *st;
  char buf[32];
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "dummy-good"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_get(st, "a", buf, sizeof buf), CDYN_OK);
  ck_assert_str_eq(buf, "1.5");
  ck_assert_int_eq(cdyn_stepper_set(st, "b", "7"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "b", "11"), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_step(st, 0.01), CDYN_OK);
  /* No contact report for a scheme without one. */
  cdyn_contact_report rep;
  TU_EXPECT_EINVAL(cdyn_stepper_contact_report(st, &rep));
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("schemes");
  int ns = (int)tu_scheme_count();
  TCase *tc = tcase_create("order");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_convergence_order, 0, ns);
  tcase_add_loop_test(tc, test_velocity_lambda_order, 0, ns);
  tcase_add_test(tc, test_improved_jordan_mode);
  tcase_add_test(tc, test_pins_only_lambda_order);
  tcase_add_test(tc, test_lambda_time_follows_options);
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
  tcase_add_test(tc, test_external_equals_builtin);
  tcase_add_test(tc, test_register_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  /* A scheme from outside the library, before the suites count them. */
  if (ext_register() != CDYN_OK) {
    fprintf(stderr, "ext_register: %s\n", cdyn_errmsg());
    return EXIT_FAILURE;
  }
  return tu_run(suite());
}
