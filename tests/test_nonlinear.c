/*
 * test_nonlinear.c: the schemes that solve Phi(q+) = 0 by iteration,
 * newton (004), shake and rattle (Ryckaert et al. 1977, Andersen 1983).
 *
 * Every quantity is recomputed here from the public API and the equations
 * of the schemes, not read back from their internals: Phi through
 * cdyn_system_constraint_values, J, J^T lambda, A = J W J^T and Phi_t from
 * the chain's geometry (a pin on particle 0, then links k -- k+1, the rows
 * in that order), the multipliers through cdyn_stepper_multipliers.
 *
 * The systems are planar chains hanging from a pin that may move,
 *   p(t) = p0 + u t + a (sin(w t + phi) - sin phi),
 * with high-entropy masses and angles (no symmetry to hide a wrong index).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "testutil.h"

static const double G = 9.81;

#define MAXP 12 /* particles */
#define MAXM (3 + MAXP) /* rows */

/* A pin trajectory: p0, u, a, w, phi as cdyn_system_add_moving_pin takes them. */
typedef struct {
  double p0[3], u[3], a[3], w, phi;
} pin_path;

static const pin_path fixed_pin = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, 0};
/* Uniform drift, for Galilean invariance. */
static const pin_path drifting_pin = {{0, 0, 0}, {0.37, -0.21, 0.13}, {0, 0, 0}, 0, 0};
/* Shaken horizontally and vertically: Phi_t and Phi_tt are far from zero. */
static const pin_path shaken_pin = {{0.1, 0.2, 0}, {0, 0, 0}, {0.05, 0.03, 0}, 6.3, 0.4};

static void pin_velocity(const pin_path *p, double t, double *pv)
{
  for (int k = 0; k < 3; k++)
    pv[k] = p->u[k] + p->a[k] * p->w * cos(p->w * t + p->phi);
}

typedef struct {
  size_t links;
  double L;
  const pin_path *pin;
} chain;

/*
 * The chain at rest relative to its pin: particle 0 on p(0), link k at the
 * absolute angle theta_k = joint[0] + ... + joint[k] from the downward
 * vertical, masses 0.7 + 0.29 (k mod 4) (particle 0, on the pin, included:
 * gravity acts on it too), every particle moving with the pin's velocity
 * plus `extra` (3 (links + 1) values, may be NULL).
 */
static cdyn_system *chain_new(const chain *c, const double *joint, const double *extra)
{
  cdyn_system *s;
  const double g[3] = {0, -G, 0};
  ck_assert_uint_le(c->links + 1, MAXP);
  ck_assert_int_eq(cdyn_system_new(&s, c->links + 1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  double x[3] = {c->pin->p0[0], c->pin->p0[1], c->pin->p0[2]}, th = 0, pv[3];
  pin_velocity(c->pin, 0.0, pv);
  for (size_t i = 0; i <= c->links; i++) {
    if (i) {
      th += joint[i - 1];
      x[0] += c->L * sin(th);
      x[1] -= c->L * cos(th);
    }
    double v[3] = {pv[0], pv[1], pv[2]};
    if (extra)
      for (int k = 0; k < 3; k++)
        v[k] += extra[3 * i + k];
    ck_assert_int_eq(cdyn_system_set_position(s, i, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(s, i, v), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(s, i, 0.7 + 0.29 * (double)(i % 4)), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_moving_pin(s, 0, c->pin->p0, c->pin->u, c->pin->a, c->pin->w, c->pin->phi, NULL),
                   CDYN_OK);
  for (size_t i = 0; i < c->links; i++)
    ck_assert_int_eq(cdyn_system_add_distance(s, i, i + 1, c->L, NULL), CDYN_OK);
  return s;
}

static const double joint10[10] = {1.2, -0.31, 0.17, 0.43, -0.22, 0.08, -0.37, 0.29, 0.11, -0.19};
static const double joint2[2] = {0.8, 0.35};

/* Unit vector of link k at positions q. */
static void link_dir(const double *q, size_t k, double *n)
{
  double d[3] = {q[3 * k] - q[3 * k + 3], q[3 * k + 1] - q[3 * k + 4], q[3 * k + 2] - q[3 * k + 5]};
  double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  for (int c = 0; c < 3; c++)
    n[c] = d[c] / r;
}

/* x = J(q)^T y for the chain. */
static void jt_mul(const chain *c, const double *q, const double *y, double *x)
{
  memset(x, 0, 3 * (c->links + 1) * sizeof(double));
  for (int k = 0; k < 3; k++)
    x[k] = y[k];
  for (size_t k = 0; k < c->links; k++) {
    double n[3];
    link_dir(q, k, n);
    for (int d = 0; d < 3; d++) {
      x[3 * k + d] += n[d] * y[3 + k];
      x[3 * k + 3 + d] -= n[d] * y[3 + k];
    }
  }
}

/* y = J(q) x + Phi_t(t) for the chain (x a velocity). */
static void jv_phit(const chain *c, const double *q, const double *x, double t, double *y)
{
  double pv[3];
  pin_velocity(c->pin, t, pv);
  for (int k = 0; k < 3; k++)
    y[k] = x[k] - pv[k];
  for (size_t k = 0; k < c->links; k++) {
    double n[3];
    link_dir(q, k, n);
    y[3 + k] = 0;
    for (int d = 0; d < 3; d++)
      y[3 + k] += n[d] * (x[3 * k + d] - x[3 * k + 3 + d]);
  }
}

static double energy(const cdyn_system *s)
{
  double T, V;
  TU_ASSERT_OK(cdyn_system_energy(s, &T, &V));
  return T + V;
}

static cdyn_stepper *stepper(cdyn_system *s, const char *scheme)
{
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  return st;
}

static double scheme_tol(const cdyn_stepper *st)
{
  char buf[64];
  ck_assert_int_eq(cdyn_stepper_get(st, "tol", buf, sizeof buf), CDYN_OK);
  return strtod(buf, NULL);
}

static const char *const iterating[3] = {"newton", "shake", "rattle"};

/* ---- every iterating scheme ----------------------------------------------- */

/*
 * On the 10-link chain, shaken at the pin, at h = 0.002: every step meets
 * the tolerance, so every row of Phi(q+, t + h) is within tol, and the
 * statistics say so (at least one correction per step, none unconverged,
 * the last residual within tol).
 */
START_TEST(test_residual_within_tol)
{
  const char *scheme = iterating[_i];
  chain c = {10, 0.5, &shaken_pin};
  cdyn_system *s = chain_new(&c, joint10, NULL);
  cdyn_stepper *st = stepper(s, scheme);
  double tol = scheme_tol(st), phi[MAXM];
  size_t m = cdyn_system_row_count(s);
  for (long k = 1; k <= 500; k++) {
    int rc = cdyn_stepper_step(st, 0.002);
    ck_assert_msg(rc == CDYN_OK, "%s step %ld: %d (%s)", scheme, k, rc, cdyn_errmsg());
    ck_assert_int_eq(cdyn_system_constraint_values(s, phi), CDYN_OK);
    ck_assert_msg(tu_max_abs(phi, m) <= tol, "%s step %ld: max |Phi_r| = %.3e > tol %.1e", scheme, k, tu_max_abs(phi, m),
                  tol);
    cdyn_stats S;
    ck_assert_int_eq(cdyn_stepper_stats(st, &S), CDYN_OK);
    ck_assert_uint_ge(S.last_nonlinear_iterations, 1);
    ck_assert_msg(S.last_nonlinear_residual <= tol, "%s: recorded residual %.3e", scheme, S.last_nonlinear_residual);
    ck_assert_uint_eq(S.nonlinear_noconv, 0);
    ck_assert_uint_ge(S.nonlinear_iterations, S.steps);
  }
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * Iteration counts on the single pendulum at h = 0.01 (L = 1.3, from 1.1
 * rad).  newton with a fresh factorisation at every iterate (refactor =
 * 0, case 3) contracts at the rate h^2 (g / L + v^2 / L^2) <= 1.6e-3 per
 * iteration (the dropped Hessian term); shake and rattle, and newton
 * with its default reuse of one factorisation, at about h |v| / L <= 0.03
 * at worst (the matrix kept at q; newton refactors when a correction
 * contracts by less than refactor = 0.1, which does not happen here); the
 * first iterate leaves a residual of order h^2 v^2 / (2 L) <= 1e-3.
 * Reaching 1e-10 therefore takes at most ceil(log(1e-7) / log(1.6e-3)) +
 * 1 = 4 solves for newton with refactor = 0 and ceil(log(1e-7) /
 * log(0.03)) + 1 = 6 for the others, and always more than one, since the
 * first residual is far above tol except at the turning points.  newton
 * with refactor = 0 factors once per solve; with the default, once per
 * step here.
 */
START_TEST(test_iteration_counts)
{
  const char *scheme = _i == 3 ? "newton" : iterating[_i];
  const unsigned bound = _i == 3 ? 4 : 6;
  double j = 1.1;
  chain c = {1, 1.3, &fixed_pin};
  cdyn_system *s = chain_new(&c, &j, NULL);
  cdyn_stepper *st = stepper(s, scheme);
  if (_i == 3)
    ck_assert_int_eq(cdyn_stepper_set(st, "refactor", "0"), CDYN_OK);
  unsigned worst = 0;
  for (long k = 0; k < 1000; k++) {
    ck_assert_int_eq(cdyn_stepper_step(st, 0.01), CDYN_OK);
    cdyn_stats S;
    ck_assert_int_eq(cdyn_stepper_stats(st, &S), CDYN_OK);
    if (S.last_nonlinear_iterations > worst)
      worst = S.last_nonlinear_iterations;
  }
  cdyn_stats S;
  ck_assert_int_eq(cdyn_stepper_stats(st, &S), CDYN_OK);
  double mean = (double)S.nonlinear_iterations / (double)S.steps;
  ck_assert_msg(worst <= bound, "%s: up to %u iterations per step, bound %u", scheme, worst, bound);
  ck_assert_msg(mean >= 2.0, "%s: %.2f iterations per step on average; the first iterate cannot meet 1e-10", scheme,
                mean);
  if (_i == 3)
    ck_assert_uint_eq(S.factorizations, S.solves);
  else if (!strcmp(scheme, "newton"))
    ck_assert_uint_eq(S.factorizations, S.steps);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * The multipliers are force multipliers in the library's convention
 * M qdd + J^T lambda = F.  A chain hanging straight down at rest stays at
 * rest under every one of these schemes, and its multipliers are the
 * static tensions: link k carries the weight of particles k+1 .. links,
 * and the pin row y carries minus the whole weight (particle 0 included),
 * lambda_pin = F_0 - n lambda_0 with n = (0, 1, 0).  A = J W J^T of a
 * 10-link chain has condition number below 1e3, so the solves are exact to
 * 1e3 eps relative; 1e-11 leaves room for the sums.
 */
START_TEST(test_static_tension)
{
  const char *scheme = iterating[_i];
  double zero[10] = {0};
  chain c = {10, 0.5, &fixed_pin};
  cdyn_system *s = chain_new(&c, zero, NULL);
  cdyn_stepper *st = stepper(s, scheme);
  ck_assert_int_eq(cdyn_stepper_step(st, 0.01), CDYN_OK);
  double lam[MAXM], mass[MAXP], below = 0, total = 0;
  ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
  for (size_t i = 0; i <= 10; i++) {
    ck_assert_int_eq(cdyn_system_get_particle(s, i, &mass[i], NULL, NULL), CDYN_OK);
    total += mass[i];
  }
  for (size_t k = 10; k-- > 0;) {
    below += mass[k + 1];
    double want = below * G;
    ck_assert_msg(fabs(lam[3 + k] - want) <= 1e-11 * total * G, "%s: link %zu: lambda %.17g, tension %.17g", scheme,
                  k, lam[3 + k], want);
  }
  ck_assert_msg(fabs(lam[1] + total * G) <= 1e-11 * total * G, "%s: pin lambda_y %.17g, expected %.17g", scheme,
                lam[1], -total * G);
  ck_assert_msg(fabs(lam[0]) <= 1e-11 * total * G && fabs(lam[2]) <= 1e-11 * total * G, "%s: pin x, z %.3e %.3e",
                scheme, lam[0], lam[2]);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * Galilean invariance tests the time-dependent constraint.  A pendulum
 * whose pin drifts uniformly at u, started with every velocity increased
 * by u, moves exactly as the pendulum on the fixed pin, shifted by u t:
 * gravity is uniform and the equations of all three schemes are invariant
 * under q -> q + u t, v -> v + u (J does not change, Phi_t = -u cancels
 * J u on the pin rows).  The two runs then differ only by rounding and by
 * where each iteration happens to stop within tol; over N steps that is
 * at most N tol in position (each step's iterate lies within tol of the
 * exact one, and the motion over 2.5 s does not amplify much) and N tol / h
 * in velocity.  A scheme that ignores Phi_t holds the pin at rest, or
 * pulls it back, and fails by metres.
 */
START_TEST(test_drifting_pin_is_galilean)
{
  const char *scheme = iterating[_i];
  const double h = 0.005;
  const long N = 500;
  chain c0 = {2, 0.9, &fixed_pin}, c1 = {2, 0.9, &drifting_pin};
  double extra[9] = {0, 0, 0, 0.31, -0.17, 0.05, -0.42, 0.26, 0.0};
  cdyn_system *s0 = chain_new(&c0, joint2, extra), *s1 = chain_new(&c1, joint2, extra);
  cdyn_stepper *st0 = stepper(s0, scheme), *st1 = stepper(s1, scheme);
  double tol = scheme_tol(st0);
  for (long k = 0; k < N; k++) {
    ck_assert_int_eq(cdyn_stepper_step(st0, h), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_step(st1, h), CDYN_OK);
  }
  double q0[9], v0[9], q1[9], v1[9], T = cdyn_system_time(s1), dq = 0, dv = 0;
  ck_assert_int_eq(cdyn_system_get_state(s0, q0, v0), CDYN_OK);
  ck_assert_int_eq(cdyn_system_get_state(s1, q1, v1), CDYN_OK);
  for (int k = 0; k < 9; k++) {
    dq = fmax(dq, fabs(q1[k] - drifting_pin.u[k % 3] * T - q0[k]));
    dv = fmax(dv, fabs(v1[k] - drifting_pin.u[k % 3] - v0[k]));
  }
  ck_assert_msg(dq <= N * tol, "%s: positions differ from the fixed-pin run by %.3e (bound %.1e)", scheme, dq,
                N * tol);
  ck_assert_msg(dv <= N * tol / h, "%s: velocities differ by %.3e (bound %.1e)", scheme, dv, N * tol / h);
  cdyn_stepper_free(st0);
  cdyn_stepper_free(st1);
  cdyn_system_free(s0);
  cdyn_system_free(s1);
}
END_TEST

/*
 * A step far outside the iteration's region of convergence: a pendulum
 * (L = 1.3) moving at |v| = 3.6 m/s with h = 1.5 s.  newton's contraction
 * factor is about h^2 (g / L + v^2 / L^2) = 34, shake's and rattle's about
 * h |v| / L = 4: neither iteration can contract, so the residual grows
 * and the step must fail with CDYN_EDIVERGED, leave the state and time
 * exactly as they were, count the iteration as unconverged and the step
 * not at all.
 */
START_TEST(test_divergence_restores)
{
  const char *scheme = iterating[_i];
  double j = 1.1, extra[6] = {0, 0, 0, 3.0, 2.0, 0};
  chain c = {1, 1.3, &fixed_pin};
  cdyn_system *s = chain_new(&c, &j, extra);
  cdyn_stepper *st = stepper(s, scheme);
  double q[6], v[6], q1[6], v1[6];
  ck_assert_int_eq(cdyn_system_get_state(s, q, v), CDYN_OK);
  cdyn_error_clear();
  int rc = cdyn_stepper_step(st, 1.5);
  ck_assert_msg(rc == CDYN_EDIVERGED, "%s: h = 1.5 returned %d (%s)", scheme, rc, cdyn_errmsg());
  ck_assert_str_ne(cdyn_errmsg(), "");
  ck_assert_int_eq(cdyn_system_get_state(s, q1, v1), CDYN_OK);
  ck_assert(memcmp(q, q1, sizeof q) == 0 && memcmp(v, v1, sizeof v) == 0);
  ck_assert(cdyn_system_time(s) == 0.0);
  cdyn_stats S;
  ck_assert_int_eq(cdyn_stepper_stats(st, &S), CDYN_OK);
  ck_assert_uint_eq(S.steps, 0);
  ck_assert_uint_eq(S.nonlinear_noconv, 1);
  /* The same stepper still works at a sensible step. */
  ck_assert_int_eq(cdyn_stepper_step(st, 0.01), CDYN_OK);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

START_TEST(test_options)
{
  const char *scheme = iterating[_i];
  chain c = {1, 1.3, &fixed_pin};
  double j = 0.4;
  cdyn_system *s = chain_new(&c, &j, NULL);
  cdyn_stepper *st = stepper(s, scheme);
  char buf[64];
  ck_assert_double_eq(scheme_tol(st), 1e-10);
  ck_assert_int_eq(cdyn_stepper_get(st, "max_iter", buf, sizeof buf), CDYN_OK);
  ck_assert_int_eq(atoi(buf), _i == 0 ? 20 : 50);
  const char *const bad_tol[] = {"-1e-10", "nan", "x", ""};
  for (size_t k = 0; k < 4; k++)
    ck_assert_int_eq(cdyn_stepper_set(st, "tol", bad_tol[k]), CDYN_EINVAL);
  const char *const bad_iter[] = {"0", "-3", "2.5", "many"};
  for (size_t k = 0; k < 4; k++)
    ck_assert_int_eq(cdyn_stepper_set(st, "max_iter", bad_iter[k]), CDYN_EINVAL);
  ck_assert_double_eq(scheme_tol(st), 1e-10);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/* Tension of the link of a single pendulum (pin on particle 0, bob 1 of
   mass m) at a state: the bob's acceleration along n = (x0 - x1) / r is
   the centripetal |u_t|^2 / r (u = v1 - v0, u_t its part normal to n) and
   m a = m g + n lambda, so lambda = m (|u_t|^2 / r + G n_y). */
static double pendulum_tension(const double *q, const double *v, double m)
{
  double n[3], u[3], un = 0, uu = 0;
  link_dir(q, 0, n);
  double r = hypot(hypot(q[0] - q[3], q[1] - q[4]), q[2] - q[5]);
  for (int k = 0; k < 3; k++) {
    u[k] = v[3 + k] - v[k];
    un += u[k] * n[k];
    uu += u[k] * u[k];
  }
  return m * ((uu - un * un) / r + G * n[1]);
}

/*
 * The reported multiplier is the constraint force of the library's
 * convention, M qdd + J^T lambda = F: on the single pendulum (L = 1.3,
 * from 1.1 rad, 2 s) it must converge to the tension m (|u_t|^2 / L +
 * G n_y) of the state at the start of the step, at the order of the
 * multiplier each scheme defines.  newton's lambda is a backward-Euler
 * force, first order: fitted 1 +- 0.2.  RATTLE's Lambda = (lambda +
 * mu_-) / 2 is the Stoermer-Verlet multiplier, second order, 2 +- 0.25
 * (the first step is left out: its Lambda comes from the Taylor start
 * q1 = q0 + h v0 + (h^2/2) a, whose h^3 term leaves an O(h) error there).
 * SHAKE's positions are RATTLE's, so its Lambda = lambda / 2 must equal
 * RATTLE's; the multipliers are resolved by the positions to about
 * 4 tol m / h^2 (m = m1, the larger of the two masses), the bound used.  (SHAKE's own velocities are not tangent,
 * so the tension formula is not applied to its state.)
 */
START_TEST(test_multiplier_is_tension)
{
  double hs[3], err_newton[3], err_rattle[3];
  double j = 1.1, m1;
  chain c = {1, 1.3, &fixed_pin};
  for (int k = 0; k < 3; k++) {
    double h = hs[k] = 0.01 / (double)(1 << k);
    cdyn_system *sn = chain_new(&c, &j, NULL), *ss = chain_new(&c, &j, NULL), *sr = chain_new(&c, &j, NULL);
    ck_assert_int_eq(cdyn_system_get_particle(sn, 1, &m1, NULL, NULL), CDYN_OK);
    cdyn_stepper *stn = stepper(sn, "newton"), *sts = stepper(ss, "shake"), *str = stepper(sr, "rattle");
    double tol = scheme_tol(sts);
    err_newton[k] = err_rattle[k] = 0;
    for (long i = 0; i < lround(2.0 / h); i++) {
      double qn[6], vn[6], qr[6], vr[6], ln[4], ls[4], lr[4];
      ck_assert_int_eq(cdyn_system_get_state(sn, qn, vn), CDYN_OK);
      ck_assert_int_eq(cdyn_system_get_state(sr, qr, vr), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_step(stn, h), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_step(sts, h), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_step(str, h), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_multipliers(stn, ln), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_multipliers(sts, ls), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_multipliers(str, lr), CDYN_OK);
      err_newton[k] = fmax(err_newton[k], fabs(ln[3] - pendulum_tension(qn, vn, m1)));
      if (i)
        err_rattle[k] = fmax(err_rattle[k], fabs(lr[3] - pendulum_tension(qr, vr, m1)));
      for (int r = 0; r < 4; r++)
        ck_assert_msg(fabs(ls[r] - lr[r]) <= 4 * tol * m1 / (h * h), "h = %g step %ld row %d: shake %.10g, rattle %.10g",
                      h, i, r, ls[r], lr[r]);
    }
    cdyn_stepper_free(stn);
    cdyn_stepper_free(sts);
    cdyn_stepper_free(str);
    cdyn_system_free(sn);
    cdyn_system_free(ss);
    cdyn_system_free(sr);
  }
  double pn = tu_fit_order(hs, err_newton, 3), pr = tu_fit_order(hs, err_rattle, 3);
  ck_assert_msg(fabs(pn - 1) <= 0.2, "newton: multiplier error order %.3f (%.3e .. %.3e)", pn, err_newton[0],
                err_newton[2]);
  ck_assert_msg(fabs(pr - 2) <= 0.25, "rattle: multiplier error order %.3f (%.3e .. %.3e)", pr, err_rattle[0],
                err_rattle[2]);
}
END_TEST

/*
 * Forces that depend on position and velocity keep the declared order.
 * The double pendulum on the shaken pin gets a damped spring from the pin
 * particle to the last one (k = 40, c = 0.8, rest 1.2), so that F changes
 * within a step both with q (SHAKE's second half kick must use F(q+)) and
 * with v (through v* = 2 v1/2 - v).  No closed-form reference exists, so
 * the order is measured by self-convergence: the differences between
 * runs at h, h/2, h/4, h/8 (1 s, from h = 0.01) shrink by 2^p, and the
 * fitted p must lie within 0.25 of the scheme's declared order, the band
 * of the convergence test of test_schemes.c.
 */
START_TEST(test_spring_damper_order)
{
  const char *scheme = iterating[_i];
  size_t idx;
  ck_assert_int_eq(cdyn_scheme_find(scheme, &idx), CDYN_OK);
  double p = cdyn_scheme_order(idx), q[4][9], hs[3], d[3];
  chain c = {2, 0.9, &shaken_pin};
  for (int k = 0; k < 4; k++) {
    double h = 0.01 / (double)(1 << k);
    double extra[9] = {0, 0, 0, 0.4, 0.1, 0.2, -0.3, 0.2, -0.1};
    cdyn_system *s = chain_new(&c, joint2, extra);
    ck_assert_int_eq(cdyn_system_add_spring(s, 0, 2, 40.0, 0.8, 1.2, NULL), CDYN_OK);
    cdyn_stepper *st = stepper(s, scheme);
    for (long i = 0; i < (100L << k); i++)
      ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(s, q[k], NULL), CDYN_OK);
    cdyn_stepper_free(st);
    cdyn_system_free(s);
    if (k) {
      hs[k - 1] = 2 * h;
      d[k - 1] = 0;
      for (int i = 0; i < 9; i++)
        d[k - 1] = fmax(d[k - 1], fabs(q[k][i] - q[k - 1][i]));
    }
  }
  double fitted = tu_fit_order(hs, d, 3);
  ck_assert_msg(fabs(fitted - p) <= 0.25, "%s with a damped spring: order %.3f, declared %g (%.3e .. %.3e)", scheme,
                fitted, p, d[0], d[2]);
}
END_TEST

/* ---- newton --------------------------------------------------------------- */

/*
 * With max_iter = 1 newton stops after its first correction, which is by
 * construction the first-order implicit step of 001 eq 16 (same system,
 * same update, same arithmetic).  On the shaken chain (Phi_t != 0) and
 * from a moving state the two must agree over 100 steps to rounding: the
 * operations are the same, so any difference comes from the compiler
 * contracting a multiply-add differently in the two files, a few ulps of
 * coordinates of size 5 per step.  newton reports CDYN_NOCONV each time
 * (one correction cannot meet 1e-10 here), and counts it.
 */
START_TEST(test_newton_one_iteration_is_implicit)
{
  chain c = {10, 0.5, &shaken_pin};
  double extra[33];
  uint64_t rng = UINT64_C(0x5DEECE66D);
  for (int k = 0; k < 33; k++)
    extra[k] = tu_uniform(&rng, -1, 1);
  cdyn_system *sa = chain_new(&c, joint10, extra), *sb = chain_new(&c, joint10, extra);
  cdyn_stepper *sta = stepper(sa, "newton"), *stb = stepper(sb, "implicit");
  ck_assert_int_eq(cdyn_stepper_set(sta, "max_iter", "1"), CDYN_OK);
  for (long k = 1; k <= 100; k++) {
    ck_assert_int_eq(cdyn_stepper_step(sta, 0.01), CDYN_NOCONV);
    ck_assert_int_eq(cdyn_stepper_step(stb, 0.01), CDYN_OK);
  }
  double qa[33], va[33], qb[33], vb[33];
  ck_assert_int_eq(cdyn_system_get_state(sa, qa, va), CDYN_OK);
  ck_assert_int_eq(cdyn_system_get_state(sb, qb, vb), CDYN_OK);
  for (int k = 0; k < 33; k++) {
    ck_assert_msg(fabs(qa[k] - qb[k]) <= 100 * 8 * DBL_EPSILON * 5, "q[%d]: %.17g vs %.17g", k, qa[k], qb[k]);
    ck_assert_msg(fabs(va[k] - vb[k]) <= 100 * 8 * DBL_EPSILON * 5 / 0.01, "v[%d]: %.17g vs %.17g", k, va[k], vb[k]);
  }
  cdyn_stats S;
  ck_assert_int_eq(cdyn_stepper_stats(sta, &S), CDYN_OK);
  ck_assert_uint_eq(S.steps, 100);
  ck_assert_uint_eq(S.nonlinear_noconv, 100);
  ck_assert_uint_eq(S.nonlinear_iterations, 100);
  cdyn_stepper_free(sta);
  cdyn_stepper_free(stb);
  cdyn_system_free(sa);
  cdyn_system_free(sb);
}
END_TEST

/*
 * A violent state (every particle of the 10-link chain thrown at up to
 * 20 m/s, h = 0.01) with max_iter = 1 and tol = 1e-14: the step is
 * recoverable, CDYN_NOCONV, keeps its (finite) result and advances the
 * time, and the statistics count every such step.
 */
START_TEST(test_newton_noconv)
{
  chain c = {10, 0.5, &fixed_pin};
  double extra[33];
  uint64_t rng = UINT64_C(0x2545F4914F6CDD1D);
  for (int k = 0; k < 33; k++)
    extra[k] = tu_uniform(&rng, -20, 20);
  cdyn_system *s = chain_new(&c, joint10, extra);
  cdyn_stepper *st = stepper(s, "newton");
  ck_assert_int_eq(cdyn_stepper_set(st, "max_iter", "1"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "tol", "1e-14"), CDYN_OK);
  for (long k = 1; k <= 20; k++) {
    cdyn_error_clear();
    int rc = cdyn_stepper_step(st, 0.01);
    ck_assert_msg(rc == CDYN_NOCONV, "step %ld: %d (%s)", k, rc, cdyn_errmsg());
    ck_assert_str_ne(cdyn_errmsg(), "");
    double q[33], v[33];
    ck_assert_int_eq(cdyn_system_get_state(s, q, v), CDYN_OK);
    for (int i = 0; i < 33; i++)
      ck_assert(isfinite(q[i]) && isfinite(v[i]));
    ck_assert_double_eq_tol(cdyn_system_time(s), 0.01 * (double)k, 1e-15);
    cdyn_stats S;
    ck_assert_int_eq(cdyn_stepper_stats(st, &S), CDYN_OK);
    ck_assert_uint_eq(S.steps, (unsigned long)k);
    ck_assert_uint_eq(S.nonlinear_noconv, (unsigned long)k);
    ck_assert_uint_eq(S.last_nonlinear_iterations, 1);
    ck_assert(S.last_nonlinear_residual > 1e-14);
  }
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * The converged step solves 004's equations, checked from outside:
 *   q+ - q_pred + h^2 W J(q+)^T lambda = 0,  q_pred = q + h v + h^2 W F,
 *   Phi(q+, t + h) = 0,  v+ = (q+ - q) / h,
 * with W F = g for every particle (gravity only) and J from the geometry.
 * newton stops when both residuals are within tol; recomputing them here
 * adds the rounding of q_pred and of the products, a few eps |q| (|q| < 2
 * on this double pendulum), and v+ = (q+ - q) / h holds to that rounding
 * divided by h.  On the shaken pin, so that Phi depends on t.
 */
START_TEST(test_newton_fixed_point)
{
  const double h = 0.01;
  chain c = {2, 0.9, &shaken_pin};
  double extra[9] = {0, 0, 0, 0.6, -0.2, 0.1, -0.3, 0.5, -0.2};
  cdyn_system *s = chain_new(&c, joint2, extra);
  cdyn_stepper *st = stepper(s, "newton");
  double tol = scheme_tol(st), round = 16 * DBL_EPSILON * 2.0;
  for (long k = 0; k < 300; k++) {
    double q[9], v[9], qp[9], vp[9], lam[5], jt[9], w[3], phi[5];
    ck_assert_int_eq(cdyn_system_get_state(s, q, v), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(s, qp, vp), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
    for (size_t i = 0; i < 3; i++) {
      ck_assert_int_eq(cdyn_system_get_particle(s, i, &w[i], NULL, NULL), CDYN_OK);
      w[i] = 1.0 / w[i];
    }
    jt_mul(&c, qp, lam, jt);
    double G1 = 0, dv = 0;
    for (int i = 0; i < 9; i++) {
      double g = i % 3 == 1 ? -G : 0.0;
      double qpred = q[i] + h * v[i] + h * h * g;
      G1 = fmax(G1, fabs(qp[i] - qpred + h * h * w[i / 3] * jt[i]));
      dv = fmax(dv, fabs(vp[i] - (qp[i] - q[i]) / h));
    }
    ck_assert_msg(G1 <= tol + round, "step %ld: |q+ - q_pred + h^2 W J^T lambda| = %.3e", k, G1);
    ck_assert_msg(dv <= 2 * round / h, "step %ld: v+ - (q+ - q) / h = %.3e", k, dv);
    ck_assert_int_eq(cdyn_system_constraint_values(s, phi), CDYN_OK);
    ck_assert_msg(tu_max_abs(phi, 5) <= tol, "step %ld: |Phi| = %.3e", k, tu_max_abs(phi, 5));
  }
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * newton dissipates energy, as backward Euler does: on the single
 * pendulum (L = 1.3, from 1.1 rad) the mean of E - E0 over the first
 * period (2.5 s) is negative, the mean over the fourth period lower
 * still, and the loss over the first period is first order in h
 * (each step removes O(h^2) energy, so O(h) per unit time): fitted over
 * h = 0.01 .. 0.0025, 1 +- 0.2, the band of the first-order tests of
 * test_schemes.c.
 */
START_TEST(test_newton_dissipates_first_order)
{
  double hs[3], loss[3];
  for (int k = 0; k < 3; k++) {
    double h = hs[k] = 0.01 / (double)(1 << k), j = 1.1;
    chain c = {1, 1.3, &fixed_pin};
    cdyn_system *s = chain_new(&c, &j, NULL);
    cdyn_stepper *st = stepper(s, "newton");
    double E0 = energy(s), first = 0, fourth = 0;
    long P = lround(2.5 / h);
    for (long i = 1; i <= 4 * P; i++) {
      TU_ASSERT_OK(cdyn_stepper_step(st, h));
      double d = energy(s) - E0;
      if (i <= P)
        first += d / (double)P;
      if (i > 3 * P)
        fourth += d / (double)P;
    }
    ck_assert_msg(first < 0 && fourth < first, "h = %g: mean E - E0 first period %.3e, fourth %.3e", h, first,
                  fourth);
    loss[k] = -first;
    cdyn_stepper_free(st);
    cdyn_system_free(s);
  }
  double p = tu_fit_order(hs, loss, 3);
  ck_assert_msg(fabs(p - 1) <= 0.2, "energy loss order %.3f (%.3e .. %.3e)", p, loss[0], loss[2]);
}
END_TEST

/* ---- shake and rattle ------------------------------------------------------ */

/*
 * With max_iter = 1 the SHAKE positions are those of 000's midpoint scheme
 * (improved.c): same linear system at (q, t), same q+ = q + h v1/2.  One
 * step from a moving state on the shaken pin (so the Phi_t term counts);
 * the arithmetic is grouped differently, so they agree to a few eps |q|.
 */
START_TEST(test_shake_one_iteration_is_midpoint)
{
  chain c = {10, 0.5, &shaken_pin};
  double extra[33];
  uint64_t rng = UINT64_C(0x9E3779B97F4A7C15);
  for (int k = 0; k < 33; k++)
    extra[k] = tu_uniform(&rng, -1, 1);
  for (int r = 0; r < 2; r++) {
    cdyn_system *sa = chain_new(&c, joint10, extra), *sb = chain_new(&c, joint10, extra);
    cdyn_stepper *sta = stepper(sa, r ? "rattle" : "shake"), *stb = stepper(sb, "improved");
    ck_assert_int_eq(cdyn_stepper_set(sta, "max_iter", "1"), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_step(sta, 0.01), CDYN_NOCONV);
    ck_assert_int_eq(cdyn_stepper_step(stb, 0.01), CDYN_OK);
    double qa[33], qb[33];
    ck_assert_int_eq(cdyn_system_get_state(sa, qa, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(sb, qb, NULL), CDYN_OK);
    for (int k = 0; k < 33; k++)
      ck_assert_msg(fabs(qa[k] - qb[k]) <= 8 * DBL_EPSILON * 5, "q[%d]: %.17g vs %.17g", k, qa[k], qb[k]);
    cdyn_stepper_free(sta);
    cdyn_stepper_free(stb);
    cdyn_system_free(sa);
    cdyn_system_free(sb);
  }
}
END_TEST

/*
 * RATTLE's velocity projection changes none of the positions: the
 * component -W J(q)^T nu it removes from v is absorbed by the next step's
 * lambda, which is determined by Phi(q+) = 0 alone.  So SHAKE and RATTLE
 * produce the same positions; the runs differ only where each iteration
 * stops within tol, at most N tol over N steps.
 */
START_TEST(test_shake_rattle_same_positions)
{
  const long N = 2000;
  chain c = {2, 0.9, &shaken_pin};
  cdyn_system *sa = chain_new(&c, joint2, NULL), *sb = chain_new(&c, joint2, NULL);
  cdyn_stepper *sta = stepper(sa, "shake"), *stb = stepper(sb, "rattle");
  double tol = scheme_tol(sta), qa[9], qb[9], d = 0;
  for (long k = 0; k < N; k++) {
    ck_assert_int_eq(cdyn_stepper_step(sta, 0.005), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_step(stb, 0.005), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(sa, qa, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(sb, qb, NULL), CDYN_OK);
    for (int i = 0; i < 9; i++)
      d = fmax(d, fabs(qa[i] - qb[i]));
  }
  ck_assert_msg(d <= N * tol, "positions differ by %.3e (bound %.1e)", d, N * tol);
  cdyn_stepper_free(sta);
  cdyn_stepper_free(stb);
  cdyn_system_free(sa);
  cdyn_system_free(sb);
}
END_TEST

/*
 * RATTLE's velocities satisfy the velocity constraint J(q+) v+ +
 * Phi_t(q+, t + h) = 0 at every step, to rounding.  The remainder is the
 * residual b - A nu of the projection's solve, A nu = b = J w + Phi_t, plus
 * the rounding of J v + Phi_t recomputed here.  Cholesky is backward
 * stable, |b - A nu| <= c m eps |J| |W J^T nu| with |J| <= 2 per row and
 * W J^T nu the velocity correction, smaller than |v| + |p'|; the rows
 * recomputed here are dot products of up to 6 terms of size |v| + |p'|.
 * With m = 13 rows and c of order 8, 256 eps (|v| + |p'|) bounds both.
 * On the shaken pin, whose velocity reaches |a| w = 0.37 m/s.
 */
START_TEST(test_rattle_velocity_constraint)
{
  const double h = 0.002;
  chain c = {10, 0.5, &shaken_pin};
  cdyn_system *s = chain_new(&c, joint10, NULL);
  cdyn_stepper *st = stepper(s, "rattle");
  for (long k = 0; k < 500; k++) {
    ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
    double q[33], v[33], r[MAXM], pv[3];
    ck_assert_int_eq(cdyn_system_get_state(s, q, v), CDYN_OK);
    jv_phit(&c, q, v, cdyn_system_time(s), r);
    pin_velocity(c.pin, cdyn_system_time(s), pv);
    double bound = 256 * DBL_EPSILON * (tu_max_abs(v, 33) + tu_max_abs(pv, 3));
    ck_assert_msg(tu_max_abs(r, 13) <= bound, "step %ld: |J v + Phi_t| = %.3e > %.3e", k, tu_max_abs(r, 13), bound);
  }
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * SHAKE's velocities are not tangent.  Its v+ is RATTLE's plus the
 * normal component W J(q+)^T nu that RATTLE removes, with
 *   A(q+) nu = J(q+) v+ + Phi_t,   nu = (h/2) mu,
 * and mu, RATTLE's velocity multiplier, equals the multiplier SHAKE
 * reports (Lambda, the constraint force at t) up to O(h).  So
 *   J(q+) v+ + Phi_t = (h/2) A(q+) lambda + O(h^2):
 * first order in h, not zero.  Over 1 s on the double pendulum on the
 * shaken pin, at h = 0.01, 0.005, 0.0025: the largest |J v+ + Phi_t| must
 * fit order 1 +- 0.1, and its distance from (h/2) A lambda order 2 +- 0.2
 * (so that term is the leading one).
 */
START_TEST(test_shake_velocity_first_order)
{
  double hs[3], big[3], rem[3];
  chain c = {2, 0.9, &shaken_pin};
  for (int k = 0; k < 3; k++) {
    double h = hs[k] = 0.01 / (double)(1 << k), w[3];
    cdyn_system *s = chain_new(&c, joint2, NULL);
    cdyn_stepper *st = stepper(s, "shake");
    for (size_t i = 0; i < 3; i++) {
      ck_assert_int_eq(cdyn_system_get_particle(s, i, &w[i], NULL, NULL), CDYN_OK);
      w[i] = 1.0 / w[i];
    }
    big[k] = rem[k] = 0;
    for (long i = 0; i < lround(1.0 / h); i++) {
      ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
      double q[9], v[9], r[5], lam[5], jt[9], ajl[5];
      ck_assert_int_eq(cdyn_system_get_state(s, q, v), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
      jv_phit(&c, q, v, cdyn_system_time(s), r);
      /* (h/2) A(q+) lambda = (h/2) J W J^T lambda, with Phi_t left out. */
      jt_mul(&c, q, lam, jt);
      for (int j = 0; j < 9; j++)
        jt[j] *= 0.5 * h * w[j / 3];
      chain c0 = {2, 0.9, &fixed_pin};
      jv_phit(&c0, q, jt, 0.0, ajl);
      for (int j = 0; j < 5; j++) {
        big[k] = fmax(big[k], fabs(r[j]));
        rem[k] = fmax(rem[k], fabs(r[j] - ajl[j]));
      }
    }
    cdyn_stepper_free(st);
    cdyn_system_free(s);
  }
  double p1 = tu_fit_order(hs, big, 3), p2 = tu_fit_order(hs, rem, 3);
  ck_assert_msg(fabs(p1 - 1) <= 0.1, "|J v + Phi_t| order %.3f (%.3e .. %.3e)", p1, big[0], big[2]);
  ck_assert_msg(fabs(p2 - 2) <= 0.2, "remainder after (h/2) A lambda: order %.3f (%.3e .. %.3e)", p2, rem[0], rem[2]);
}
END_TEST

/*
 * Energy over 10^4 steps on the double pendulum (from 0.8 and 1.15 rad,
 * chaotic): SHAKE and RATTLE are symplectic, so the energy error stays
 * bounded, with no drift (the largest |E - E0| over the second half of the
 * run is within 25 % of that over the first half; a drift from zero would
 * make it about twice as large), and scales as h^2: halving h divides the
 * largest error by 4 up to the O(h^2) relative next term and the
 * different stretch of the chaotic orbit each run explores, 4 +- 0.5.
 */
START_TEST(test_energy_second_order_no_drift)
{
  const char *scheme = _i ? "rattle" : "shake";
  const long N = 10000;
  double d[3];
  chain c = {2, 0.9, &fixed_pin};
  for (int k = 0; k < 3; k++) {
    double h = 0.01 / (double)(1 << k), half[2] = {0, 0};
    cdyn_system *s = chain_new(&c, joint2, NULL);
    cdyn_stepper *st = stepper(s, scheme);
    double E0 = energy(s);
    for (long i = 0; i < N; i++) {
      TU_ASSERT_OK(cdyn_stepper_step(st, h));
      half[i >= N / 2] = fmax(half[i >= N / 2], fabs(energy(s) - E0));
    }
    ck_assert_msg(half[1] <= 1.25 * half[0], "%s h = %g: max |E - E0| first half %.3e, second %.3e", scheme, h,
                  half[0], half[1]);
    d[k] = fmax(half[0], half[1]);
    cdyn_stepper_free(st);
    cdyn_system_free(s);
  }
  for (int k = 1; k < 3; k++)
    ck_assert_msg(fabs(d[k - 1] / d[k] - 4) <= 0.5, "%s: max |E - E0| %.3e -> %.3e, ratio %.3f", scheme, d[k - 1],
                  d[k], d[k - 1] / d[k]);
}
END_TEST

/*
 * RATTLE is time-reversible: N steps forward, velocities negated, N steps
 * more, and the state is the initial one with negated velocities.  Each
 * step solves Phi(q+) = 0 only to tol, which moves q+ by at most about
 * tol, and v by about tol / h of which the projection keeps only the
 * O(h) tangential part, about tol; so after 2N steps the state is off by
 * at most about 2 N tol in both.  Over 10 s (N = 1000, h = 0.01) the
 * double pendulum does not amplify that much.  SHAKE, whose velocities
 * carry an O(h) normal part, returns the positions but not the velocities
 * (measured: 5e-2), which the velocity bound would catch.
 */
START_TEST(test_rattle_reversible)
{
  const long N = 1000;
  chain c = {2, 0.9, &fixed_pin};
  cdyn_system *s = chain_new(&c, joint2, NULL);
  cdyn_stepper *st = stepper(s, "rattle");
  double tol = scheme_tol(st), q0[9], v0[9], q[9], v[9];
  ck_assert_int_eq(cdyn_system_get_state(s, q0, v0), CDYN_OK);
  for (long k = 0; k < N; k++)
    ck_assert_int_eq(cdyn_stepper_step(st, 0.01), CDYN_OK);
  ck_assert_int_eq(cdyn_system_get_state(s, q, v), CDYN_OK);
  for (int i = 0; i < 9; i++)
    v[i] = -v[i];
  ck_assert_int_eq(cdyn_system_set_state(s, q, v), CDYN_OK);
  for (long k = 0; k < N; k++)
    ck_assert_int_eq(cdyn_stepper_step(st, 0.01), CDYN_OK);
  ck_assert_int_eq(cdyn_system_get_state(s, q, v), CDYN_OK);
  double dq = 0, dv = 0;
  for (int i = 0; i < 9; i++) {
    dq = fmax(dq, fabs(q[i] - q0[i]));
    dv = fmax(dv, fabs(v[i] + v0[i]));
  }
  ck_assert_msg(dq <= 2 * N * tol, "positions return to %.3e (bound %.1e)", dq, 2 * N * tol);
  ck_assert_msg(dv <= 2 * N * tol, "velocities return to %.3e (bound %.1e)", dv, 2 * N * tol);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("nonlinear");
  TCase *tc = tcase_create("all");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_residual_within_tol, 0, 3);
  tcase_add_loop_test(tc, test_iteration_counts, 0, 4);
  tcase_add_loop_test(tc, test_static_tension, 0, 3);
  tcase_add_loop_test(tc, test_drifting_pin_is_galilean, 0, 3);
  tcase_add_loop_test(tc, test_divergence_restores, 0, 3);
  tcase_add_loop_test(tc, test_options, 0, 3);
  tcase_add_test(tc, test_multiplier_is_tension);
  tcase_add_loop_test(tc, test_spring_damper_order, 0, 3);
  suite_add_tcase(s, tc);
  tc = tcase_create("newton");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_newton_one_iteration_is_implicit);
  tcase_add_test(tc, test_newton_noconv);
  tcase_add_test(tc, test_newton_fixed_point);
  tcase_add_test(tc, test_newton_dissipates_first_order);
  suite_add_tcase(s, tc);
  tc = tcase_create("shake-rattle");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_shake_one_iteration_is_midpoint);
  tcase_add_test(tc, test_shake_rattle_same_positions);
  tcase_add_test(tc, test_rattle_velocity_constraint);
  tcase_add_test(tc, test_shake_velocity_first_order);
  tcase_add_loop_test(tc, test_energy_second_order_no_drift, 0, 2);
  tcase_add_test(tc, test_rattle_reversible);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return tu_run(suite());
}
