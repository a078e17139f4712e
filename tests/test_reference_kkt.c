/*
 * tests/test_reference_kkt.c: the library against the dense KKT reference
 * (reference/kkt.c) and the fully implicit chain reference
 * (reference/chain_be.c).
 *
 * - cdyn_system_forces against forces written out by hand and against one
 *   explicit-Euler step of the stepper.
 * - A single pendulum in closed form (tension and acceleration, with
 *   Baumgarte's terms), the library's A = J W J^T path (one explicit-Euler
 *   Baumgarte step, both linear solvers) on random chains of 2, 5 and 10
 *   links, and dependent rows solved in the minimum-norm sense by both;
 *   the reference's refusals.
 * - The fully implicit step of a hanging chain solved by chain_be (full
 *   Newton on the banded KKT system) and by the library's newton scheme,
 *   which share no code: the same motion over 250 steps, a large step,
 *   and chain_be's refusals; and by the library's backward-euler (the
 *   same step solved in full) at steps beyond every other scheme's wall.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <float.h>

#include <check.h>
#include <gsl/gsl_math.h>

#include "chain_be.h"
#include "cdyn/cdyn.h"
#include "kkt.h"
#include "refutil.h"
#include "testutil.h"

/* ======================================================================
 * cdyn_system_forces and reference/kkt.c.
 * ====================================================================== */

#define U_ROUND (DBL_EPSILON / 2) /* unit roundoff, 2^-53 */

static int add_force(void *ctx, size_t n, double t, const double *q,
                     const double *v, double *f)
{
  (void)ctx;
  for (size_t i = 0; i < n; i++)
    for (int d = 0; d < 3; d++)
      f[3 * i + d] += 0.25 * (double)(i + 1) * (d - 1.3) * t +
                      0.5 * q[3 * i + d] - 0.125 * v[3 * i + d];
  return 0;
}

static int fail_force(void *ctx, size_t n, double t, const double *q,
                      const double *v, double *f)
{
  (void)ctx; (void)n; (void)t; (void)q; (void)v; (void)f;
  return 3;
}

/*
 * cdyn_system_forces against forces written out by hand (gravity, one
 * spring with damping, a callback), and against the stepper: one explicit
 * Euler step of a system without constraints gives v+ = v + h W F exactly
 * up to the rounding of that update, which is what makes "the same code
 * as the stepper" checkable.
 */
START_TEST(test_system_forces)
{
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 3), CDYN_OK);
  const double g[3] = {0.3, -9.81, 0.2};
  const double mass[3] = {1.7, 0.45, 2.3};
  const double x[3][3] = {{0.1, 0.2, -0.3}, {1.0, -0.4, 0.5},
                          {-0.6, 0.9, 0.05}};
  const double v[3][3] = {{0.3, -0.2, 0.9}, {-1.1, 0.4, 0.25},
                          {0.7, 0.15, -0.45}};
  const double k = 40.0, c = 0.7, rest = 0.8, t = 1.375;
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  for (size_t i = 0; i < 3; i++) {
    ck_assert_int_eq(cdyn_system_set_mass(sys, i, mass[i]), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, i, x[i]), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, i, v[i]), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_set_time(sys, t), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_spring(sys, 0, 1, k, c, rest, NULL),
                   CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_force_callback(sys, add_force, NULL),
                   CDYN_OK);

  double want[9];
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 3; d++)
      want[3 * i + d] = mass[i] * g[d] +
                        0.25 * (i + 1) * (d - 1.3) * t + 0.5 * x[i][d] -
                        0.125 * v[i][d];
  double dd[3], r = 0, rate = 0;
  for (int d = 0; d < 3; d++) {
    dd[d] = x[0][d] - x[1][d];
    r += dd[d] * dd[d];
  }
  r = sqrt(r);
  for (int d = 0; d < 3; d++)
    rate += dd[d] / r * (v[0][d] - v[1][d]);
  for (int d = 0; d < 3; d++) {
    const double f = -(k * (r - rest) + c * rate) * dd[d] / r;
    want[d] += f;
    want[3 + d] -= f;
  }
  double F[9];
  ck_assert_int_eq(cdyn_system_forces(sys, F), CDYN_OK);
  for (int j = 0; j < 9; j++)
    ck_assert_double_eq_tol(F[j], want[j], 1e-13 * (1 + fabs(want[j])));

  /* The stepper's acceleration is W F: one explicit Euler step. */
  const double h = 0x1p-10;
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "baumgarte"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "euler"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
  const double *vp = cdyn_system_velocities(sys);
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 3; d++) {
      const double a = (vp[3 * i + d] - v[i][d]) / h;
      /* v+ = fl(v + h a): error u |v+|, divided by h. */
      ck_assert_double_eq_tol(a, F[3 * i + d] / mass[i],
                              2 * U_ROUND * (fabs(vp[3 * i + d]) + 1) / h);
    }
  cdyn_stepper_free(st);

  /* Errors. */
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_system_forces(NULL, F), CDYN_EINVAL);
  ck_assert_str_ne(cdyn_errmsg(), "");
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_system_forces(sys, NULL), CDYN_EINVAL);
  ck_assert_str_ne(cdyn_errmsg(), "");
  ck_assert_int_eq(cdyn_system_set_force_callback(sys, fail_force, NULL),
                   CDYN_OK);
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_system_forces(sys, F), CDYN_ECALLBACK);
  ck_assert_str_ne(cdyn_errmsg(), "");
  ck_assert_int_eq(cdyn_system_set_force_callback(sys, NULL, NULL), CDYN_OK);
  double x0[3];
  ck_assert_int_eq(cdyn_system_get_particle(sys, 0, NULL, x0, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 1, x0), CDYN_OK);
  cdyn_error_clear();
  ck_assert_int_eq(cdyn_system_forces(sys, F), CDYN_EDEGENERATE);
  ck_assert_str_ne(cdyn_errmsg(), "");
  cdyn_system_free(sys);
}
END_TEST

static void kkt_ok(const cdyn_system *sys, double alpha, double beta,
                   double *qdd, double *lambda, cdyn_ref_kkt_info *info)
{
  const int s = cdyn_ref_kkt_accel_info(sys, alpha, beta, qdd, lambda, info);
  ck_assert_msg(s == CDYN_OK, "cdyn_ref_kkt_accel: %d (%s)", s,
                cdyn_errmsg());
}

/*
 * A single pendulum: particle 0 (mass M0) pinned at P by a pin, particle 1
 * (mass m) at P + r e_r with e_r = (sin th, -cos th, 0), moving with
 * v = v_r e_r + v_t e_th (e_th = (cos th, sin th, 0)), linked to 0 by a
 * rod of length L = r - delta.  With the link's rows Phi = r - L = delta,
 * J v = v_r, jdotv = v_t^2 / r, and a_0 = 0 from the pin, the link row
 * asks e_r . a_1 = -v_t^2 / r - 2 alpha v_r - beta^2 delta, and
 * m a_1 = m g - lambda e_r gives
 *
 *   lambda = m (g cos th + v_t^2 / r + 2 alpha v_r + beta^2 delta),
 *   a_1    = g - (lambda / m) e_r,
 *   lambda_pin = M0 g + lambda e_r        (M0 a_0 + lambda_pin - lambda e_r
 *                                          = M0 g, the link pulling 0 down)
 *
 * At rest and on the rod this is the textbook tension m g cos th.  The
 * tolerance is the reference's rounding, dim u cond_kkt times the size of
 * the solution, plus a few ulp for the closed form itself.
 */
START_TEST(test_kkt_pendulum_closed_form)
{
  const double G3[3] = {0, -g_earth, 0}, P[3] = {0.2, 0.5, -0.3};
  const double M0 = 3.7, m = 1.45, L = 0.83;
  const struct { double th, vr, vt, delta, alpha, beta; } cs[3] = {
    {0.7, 0, 0, 0, 0, 0},
    {2.3, 0.35, 1.9, 0.013, 3.1, 4.7},
    {-1.2, -0.8, -2.6, -0.021, 0, 6.2}};
  for (int c = 0; c < 3; c++) {
    const double th = cs[c].th, r = L + cs[c].delta;
    const double er[3] = {sin(th), -cos(th), 0}, et[3] = {cos(th), sin(th), 0};
    double x1[3], v1[3];
    for (int d = 0; d < 3; d++) {
      x1[d] = P[d] + r * er[d];
      v1[d] = cs[c].vr * er[d] + cs[c].vt * et[d];
    }
    cdyn_system *sys;
    ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_gravity(sys, G3), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, 0, M0), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, 1, m), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, 0, P), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, 1, x1), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, 1, v1), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_pin(sys, 0, P, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, L, NULL), CDYN_OK);

    const double lam = m * (g_earth * cos(th) + cs[c].vt * cs[c].vt / r +
                            2 * cs[c].alpha * cs[c].vr +
                            cs[c].beta * cs[c].beta * cs[c].delta);
    double want_a[6] = {0, 0, 0}, want_l[4];
    for (int d = 0; d < 3; d++) {
      want_a[3 + d] = G3[d] - lam / m * er[d];
      want_l[d] = M0 * G3[d] + lam * er[d];
    }
    want_l[3] = lam;

    double qdd[6], lambda[4];
    cdyn_ref_kkt_info info;
    kkt_ok(sys, cs[c].alpha, cs[c].beta, qdd, lambda, &info);
    ck_assert_uint_eq(info.dim, 10);
    ck_assert_uint_eq(info.rank, 10);
    ck_assert_uint_eq(info.rank_a, 4);
    double scale = 0;
    for (int j = 0; j < 4; j++)
      scale = fmax(scale, fabs(want_l[j]));
    for (int j = 0; j < 6; j++)
      scale = fmax(scale, fabs(want_a[j]) * fmax(M0, m));
    const double tol = (info.dim * info.cond_kkt + 8) * U_ROUND * scale;
    double worst = 0;
    for (int j = 0; j < 4; j++)
      worst = fmax(worst, fabs(lambda[j] - want_l[j]));
    for (int j = 0; j < 6; j++)
      worst = fmax(worst, fabs(qdd[j] - want_a[j]) * (j < 3 ? M0 : m));
    printf("KKT single pendulum case %d: lambda = %.15g (closed form "
           "%.15g); max error %.3e, bound %.3e (cond %.3g)\n",
           c, lambda[3], lam, worst, tol, info.cond_kkt);
    ck_assert_msg(worst <= tol, "case %d: %.3e > %.3e", c, worst, tol);
    if (c == 0)
      ck_assert_double_eq_tol(lambda[3], m * g_earth * cos(th), tol);
    cdyn_system_free(sys);
  }
}
END_TEST

/*
 * A random planar-ish chain (tests/testutil.h) of `links` links: masses,
 * positions off the constraints by up to 0.02 in every coordinate (pin
 * included, so that alpha and beta matter), velocities in 3-D.
 */
static cdyn_system *random_chain(size_t links, uint64_t seed)
{
  uint64_t st = seed;
  double joint[16];
  ck_assert_uint_le(links, 16);
  for (size_t k = 0; k < links; k++)
    joint[k] = tu_uniform(&st, -1.2, 1.2);
  cdyn_system *sys;
  ck_assert_int_eq(tu_chain(&sys, links, 0.9, 1.0, joint), CDYN_OK);
  for (size_t i = 0; i <= links; i++) {
    double x[3], v[3];
    ck_assert_int_eq(cdyn_system_get_particle(sys, i, NULL, x, NULL), CDYN_OK);
    for (int d = 0; d < 3; d++) {
      x[d] += tu_uniform(&st, -0.02, 0.02);
      v[d] = tu_uniform(&st, -1.5, 1.5);
    }
    ck_assert_int_eq(cdyn_system_set_position(sys, i, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, i, v), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, i, tu_uniform(&st, 0.4, 2.6)),
                     CDYN_OK);
  }
  return sys;
}

/*
 * The library's A = J W J^T path against the dense KKT reference.  One
 * step of "baumgarte" over explicit Euler (v+ = v + h a(q, v)) recovers
 * the library's acceleration as a = (v+ - v) / h, and
 * cdyn_stepper_multipliers its lambda; both are compared with the
 * reference at the state before the step, for 2, 5 and 10 links, with and
 * without stabilisation (alpha = 3.7, beta = 5.3 against 0, 0), and with
 * both linear solvers.
 *
 * Tolerance, from rounding and conditioning.  Write y = (M^(1/2) a, lambda),
 * the unknown of the reference's scaled system; with masses of order one
 * (0.4 to 2.6 here) its two parts are commensurate.  A backward-stable
 * solve of a system with condition number kappa has relative error of
 * order N u kappa (N the system size, u = 2^-53): the reference's dgelsd
 * on the scaled KKT matrix (kappa = cond_kkt), the library's Cholesky on A
 * (kappa = cond_a, the input error of forming A and its right-hand side
 * being of the same order).  So both lie within
 *   tol_y = dim u (cond_kkt + cond_a) S,   S = |lambda| + |M^(1/2) a| + |M^(-1/2) F|
 * of the exact values (S also bounds the right-hand side's size).  PCG
 * stops at a relative residual res (the library reports it); then
 * |dlambda| <= cond_a res |lambda|, added to tol_y.  Recovering a from the
 * Euler step adds, per component, the rounding of v + h a: h = 2^-10 makes
 * h a exact, so the error is at most u |v+| / h, twice for the
 * subtraction.  A dropped beta^2 Phi or 2 alpha J v term would change
 * lambda by O(beta^2 |Phi|) ~ 0.5, many orders above these bounds.
 */
START_TEST(test_kkt_against_library)
{
  const size_t sizes[3] = {2, 5, 10};
  const char *solvers[2] = {"cholesky", "pcg"};
  const double ab[2][2] = {{0.0, 0.0}, {3.7, 5.3}};
  const double h = 0x1p-10;
  for (int is = 0; is < 3; is++)
    for (int ia = 0; ia < 2; ia++)
      for (int isol = 0; isol < 2; isol++) {
        const size_t links = sizes[is], n = links + 1;
        cdyn_system *sys = random_chain(links, 0x5eed0000u + 17 * is);
        const size_t m = cdyn_system_row_count(sys), n3 = 3 * n;
        double q0[3 * 11], v0[3 * 11], F[3 * 11], qdd[3 * 11], lam[13];
        double lam_lib[13], mass[11];
        ck_assert_uint_le(n, 11);
        ck_assert_uint_le(m, 13);
        ck_assert_int_eq(cdyn_system_get_state(sys, q0, v0), CDYN_OK);
        ck_assert_int_eq(cdyn_system_forces(sys, F), CDYN_OK);
        for (size_t i = 0; i < n; i++)
          ck_assert_int_eq(cdyn_system_get_particle(sys, i, &mass[i], NULL,
                                                    NULL), CDYN_OK);
        cdyn_ref_kkt_info info;
        kkt_ok(sys, ab[ia][0], ab[ia][1], qdd, lam, &info);
        ck_assert_uint_eq(info.rank, n3 + m);
        ck_assert_uint_eq(info.rank_a, m);

        cdyn_stepper *st;
        char buf[32];
        ck_assert_int_eq(cdyn_stepper_new(&st, sys, "baumgarte"), CDYN_OK);
        ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "euler"),
                         CDYN_OK);
        snprintf(buf, sizeof buf, "%.17g", ab[ia][0]);
        ck_assert_int_eq(cdyn_stepper_set(st, "alpha", buf), CDYN_OK);
        snprintf(buf, sizeof buf, "%.17g", ab[ia][1]);
        ck_assert_int_eq(cdyn_stepper_set(st, "beta", buf), CDYN_OK);
        ck_assert_int_eq(cdyn_stepper_set(st, "solver", solvers[isol]),
                         CDYN_OK);
        const int rc = cdyn_stepper_step(st, h);
        ck_assert_msg(rc == CDYN_OK, "step: %d (%s)", rc, cdyn_errmsg());
        ck_assert_int_eq(cdyn_stepper_multipliers(st, lam_lib), CDYN_OK);
        cdyn_stats stats;
        ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
        const double *vp = cdyn_system_velocities(sys);

        double s_l = 0, s_a = 0, s_f = 0;
        for (size_t j = 0; j < m; j++)
          s_l += lam[j] * lam[j];
        for (size_t k = 0; k < n3; k++) {
          s_a += mass[k / 3] * qdd[k] * qdd[k];
          s_f += F[k] * F[k] / mass[k / 3];
        }
        const double S = sqrt(s_l) + sqrt(s_a) + sqrt(s_f);
        double tol_y = info.dim * U_ROUND * (info.cond_kkt + info.cond_a) * S;
        if (isol == 1)
          tol_y += info.cond_a * stats.last_residual * S;
        double err_l = 0, err_a = 0, ratio = 0;
        for (size_t j = 0; j < m; j++) {
          err_l = fmax(err_l, fabs(lam_lib[j] - lam[j]));
          ratio = fmax(ratio, fabs(lam_lib[j] - lam[j]) / tol_y);
        }
        for (size_t k = 0; k < n3; k++) {
          const double a_lib = (vp[k] - v0[k]) / h;
          const double sm = sqrt(mass[k / 3]);
          const double tol_k = tol_y + sm * 2 * U_ROUND * fabs(vp[k]) / h;
          err_a = fmax(err_a, sm * fabs(a_lib - qdd[k]));
          ratio = fmax(ratio, sm * fabs(a_lib - qdd[k]) / tol_k);
        }
        printf("KKT vs library, %2zu links, alpha %.1f beta %.1f, %-8s: "
               "|dlambda| %.2e, |M^1/2 da| %.2e, bound %.2e (cond_kkt "
               "%.3g, cond_a %.3g, res %.1e), worst error/bound %.3f\n",
               links, ab[ia][0], ab[ia][1], solvers[isol], err_l, err_a,
               tol_y, info.cond_kkt, info.cond_a, stats.last_residual, ratio);
        ck_assert_msg(ratio <= 1.0, "error exceeds the bound by %.3g", ratio);
        cdyn_stepper_free(st);
        cdyn_system_free(sys);
      }
}
END_TEST

/*
 * A rod doubled by two identical distance constraints: the rows are
 * dependent but consistent (equal Phi, J, and right-hand side), so the
 * constraint force is determined and the minimum-norm multipliers split
 * the single-rod tension of test_kkt_pendulum_closed_form equally.  The
 * reference (dgelsd) must report rank dim - 1 and give lambda / 2 twice;
 * the library's cholesky solver must take its least-squares path to the
 * same minimum-norm answer (see reference/kkt.c for why they coincide).
 * Tolerances as above, with the rank-deficient condition numbers taken over
 * the singular values kept; the library's eigen-decomposition is backward
 * stable as Cholesky is.
 */
START_TEST(test_kkt_redundant_rows)
{
  const double G3[3] = {0, -g_earth, 0}, P[3] = {0, 0, 0};
  const double m = 0.9, L = 1.1, th = 0.95, delta = 0.015, vt = 1.3,
               vr = 0.2;
  const double alpha = 2.5, beta = 3.5;
  const double er[3] = {sin(th), -cos(th), 0}, et[3] = {cos(th), sin(th), 0};
  double x1[3], v1[3];
  for (int d = 0; d < 3; d++) {
    x1[d] = (L + delta) * er[d];
    v1[d] = vr * er[d] + vt * et[d];
  }
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(sys, G3), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(sys, 1, m), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 1, x1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(sys, 1, v1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, P, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, L, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, L, NULL), CDYN_OK);
  const double r = L + delta;
  const double lam = m * (g_earth * cos(th) + vt * vt / r + 2 * alpha * vr +
                          beta * beta * delta);
  double qdd[6], lambda[5], v0[6];
  cdyn_ref_kkt_info info;
  kkt_ok(sys, alpha, beta, qdd, lambda, &info);
  ck_assert_uint_eq(info.dim, 11);
  ck_assert_uint_eq(info.rank, 10);
  ck_assert_uint_eq(info.rank_a, 4);
  const double tol = info.dim * U_ROUND * (info.cond_kkt + info.cond_a) *
                     (2 * lam + m * g_earth);
  printf("KKT redundant rod: lambda = %.15g, %.15g (half tension %.15g), "
         "rank %zu of %zu, cond_kkt %.3g\n", lambda[3], lambda[4], lam / 2,
         info.rank, info.dim, info.cond_kkt);
  ck_assert_double_eq_tol(lambda[3], lam / 2, tol);
  ck_assert_double_eq_tol(lambda[4], lam / 2, tol);
  for (int d = 0; d < 3; d++)
    ck_assert_double_eq_tol(qdd[3 + d], G3[d] - lam / m * er[d], tol / m);

  ck_assert_int_eq(cdyn_system_get_state(sys, NULL, v0), CDYN_OK);
  cdyn_stepper *st;
  char buf[32];
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "baumgarte"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "integrator", "euler"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", "cholesky"), CDYN_OK);
  snprintf(buf, sizeof buf, "%.17g", alpha);
  ck_assert_int_eq(cdyn_stepper_set(st, "alpha", buf), CDYN_OK);
  snprintf(buf, sizeof buf, "%.17g", beta);
  ck_assert_int_eq(cdyn_stepper_set(st, "beta", buf), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 0x1p-10), CDYN_OK);
  double lam_lib[5];
  cdyn_stats stats;
  ck_assert_int_eq(cdyn_stepper_multipliers(st, lam_lib), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
  printf("library cholesky on the redundant rod: lambda = %.15g, %.15g, "
         "fallbacks %lu, rank %u\n", lam_lib[3], lam_lib[4],
         stats.fallbacks, stats.last_rank);
  ck_assert_uint_ge(stats.fallbacks, 1);
  for (int j = 0; j < 5; j++)
    ck_assert_double_eq_tol(lam_lib[j], lambda[j], tol);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

START_TEST(test_kkt_errors)
{
  /* No constraints: qdd = W F and lambda may be NULL. */
  cdyn_system *sys;
  const double G3[3] = {0.5, -9.81, 0.25}, x[3] = {1, 2, 3};
  ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(sys, G3), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(sys, 1, 2.75), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(sys, 1, x), CDYN_OK);
  double qdd[6], lam[1];
  cdyn_ref_kkt_info info;
  ck_assert_int_eq(cdyn_ref_kkt_accel_info(sys, 0, 0, qdd, NULL, &info),
                   CDYN_OK);
  ck_assert_uint_eq(info.dim, 6);
  ck_assert_uint_eq(info.rank, 6);
  ck_assert_double_eq(info.cond_a, 1.0);
  for (int j = 0; j < 6; j++)
    ck_assert_double_eq_tol(qdd[j], G3[j % 3], 1e-15);

#define EXPECT_STATUS(code, call)                                            \
  do {                                                                       \
    cdyn_error_clear();                                                      \
    ck_assert_int_eq((call), (code));                                        \
    ck_assert_str_ne(cdyn_errmsg(), "");                                     \
  } while (0)

  EXPECT_STATUS(CDYN_EINVAL, cdyn_ref_kkt_accel(NULL, 0, 0, qdd, lam));
  EXPECT_STATUS(CDYN_EINVAL, cdyn_ref_kkt_accel(sys, 0, 0, NULL, lam));
  EXPECT_STATUS(CDYN_EINVAL, cdyn_ref_kkt_accel(sys, NAN, 0, qdd, lam));
  EXPECT_STATUS(CDYN_EINVAL, cdyn_ref_kkt_accel(sys, 0, INFINITY, qdd, lam));
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, 1.5, NULL), CDYN_OK);
  EXPECT_STATUS(CDYN_EINVAL, cdyn_ref_kkt_accel(sys, 0, 0, qdd, NULL));
  ck_assert_int_eq(cdyn_ref_kkt_accel(sys, 1, 2, qdd, lam), CDYN_OK);
  /* A constraint that cannot be evaluated passes its status on. */
  ck_assert_int_eq(cdyn_system_set_position(sys, 0, x), CDYN_OK);
  EXPECT_STATUS(CDYN_EDEGENERATE, cdyn_ref_kkt_accel(sys, 0, 0, qdd, lam));
  /* So does a failing force. */
  ck_assert_int_eq(cdyn_system_set_force_callback(sys, fail_force, NULL),
                   CDYN_OK);
  EXPECT_STATUS(CDYN_ECALLBACK, cdyn_ref_kkt_accel(sys, 0, 0, qdd, lam));
  cdyn_system_free(sys);
#undef EXPECT_STATUS
}
END_TEST

/*
 * reference/chain_be.c against the library's newton scheme: both solve
 * the fully implicit step (lib/schemes/newton.c's equations) of a hanging
 * chain, chain_be by full Newton on the banded KKT system, newton by the
 * simplified iteration on A = J W J^T through the stepper.  They share no
 * code.  At a step where newton's iteration converges (h omega_N = 0.18
 * for N = 10 links of 5 cm), each solves to 1e-12 m, so a step's results
 * differ by about that much; the motion is stable and damped, so the
 * differences add at most: 250 steps give 2.5e-10 m, and the test allows
 * 1e-9 m.
 */
#define CBE_LINKS 10
static void chain_state(size_t links, double l, double kick, double *q, double *v)
{
  for (size_t i = 0; i <= links; i++) {
    q[3 * i] = 0;
    q[3 * i + 1] = -(double)i * l;
    q[3 * i + 2] = 0;
    v[3 * i] = i ? kick : 0;
    v[3 * i + 1] = v[3 * i + 2] = 0;
  }
}

START_TEST(test_chain_be_against_newton)
{
  const size_t N = CBE_LINKS, n = N + 1;
  const double l = 0.05, h = 0.004, g[3] = {0, -9.81, 0}, o[3] = {0, 0, 0};
  double q[3 * (CBE_LINKS + 1)], v[3 * (CBE_LINKS + 1)];
  chain_state(N, l, 0.05, q, v);
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, n), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_eq(cdyn_system_set_position(sys, i, q + 3 * i), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, i, v + 3 * i), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, i, 1.0), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, o, NULL), CDYN_OK);
  for (size_t i = 0; i < N; i++)
    ck_assert_int_eq(cdyn_system_add_distance(sys, i, i + 1, l, NULL), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "newton"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "tol", "1e-12"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "max_iter", "200"), CDYN_OK);
  cdyn_ref_chain_be *c;
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, N, l, 1.0, g, q, v), CDYN_OK);
  double worst = 0;
  int its, itmax = 0;
  for (int k = 0; k < 250; k++) {
    ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
    ck_assert_int_eq(cdyn_ref_chain_be_step(c, h, 1e-12 / l, 50, &its), CDYN_OK);
    if (its > itmax)
      itmax = its;
    const double *a = cdyn_system_positions(sys), *b = cdyn_ref_chain_be_q(c);
    for (size_t i = 0; i < 3 * n; i++)
      worst = fmax(worst, fabs(a[i] - b[i]));
  }
  /* The chain has moved: the comparison is not of two states at rest. */
  ck_assert_double_gt(fabs(cdyn_ref_chain_be_q(c)[3 * N]), 1e-3);
  ck_assert_double_le(worst, 1e-9);
  /* Full Newton converges quadratically: a handful of iterations. */
  ck_assert_int_le(itmax, 6);
  cdyn_ref_chain_be_free(c);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * reference/chain_be.c against the library's backward-euler scheme: the
 * same equations (backward Euler on the whole constrained system: node 0
 * fixed there, pinned here), solved by two codes that share nothing:
 * full Newton on a banded LU, and Newton with the types' Hessians, a line
 * search and a sparse quasi-definite LDL^T.  The steps are far beyond
 * every other scheme's wall h omega_N = 1: h omega_N = 1.5 (N = 10,
 * h = 1/60), 4.7 (N = 100, h = 1/60) and 11 (N = 10, h = 0.25).
 * Each code stops when its residuals are within 1e-12 m (backward-euler's
 * tol; chain_be's tol times l); so one step's results differ by a few
 * 1e-12 m, and backward Euler damps every mode, so differences carried
 * from earlier steps do not grow: over `steps` steps at most steps x
 * 4e-12 m, asserted.  The multipliers: a position residual of 1e-12 m is
 * a force residual of m 1e-12 / h^2 per node, and a link's multiplier
 * sums those of the nodes below it: at most N m 4e-12 / h^2 per step,
 * times the steps, asserted.
 */
/* The largest differences of positions (m) and link multipliers (N) over
   `steps` steps of both codes; the chain must have moved (*moved, m). */
typedef struct {
  double q, lambda, moved;
} be_gap;

static be_gap be_against_reference(size_t N, double h, int steps)
{
  const size_t n = N + 1;
  const double l = 0.05, g[3] = {0, -9.81, 0}, o[3] = {0, 0, 0};
  double *q = malloc(6 * n * sizeof *q), *v = q + 3 * n;
  ck_assert_ptr_nonnull(q);
  chain_state(N, l, 0.05, q, v);
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, n), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_eq(cdyn_system_set_position(sys, i, q + 3 * i), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, i, v + 3 * i), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, o, NULL), CDYN_OK);
  for (size_t i = 0; i < N; i++)
    ck_assert_int_eq(cdyn_system_add_distance(sys, i, i + 1, l, NULL), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "backward-euler"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "tol", "1e-12"), CDYN_OK);
  cdyn_ref_chain_be *c;
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, N, l, 1.0, g, q, v), CDYN_OK);
  double *lam = malloc((N + 3) * sizeof *lam);
  ck_assert_ptr_nonnull(lam);
  double worst = 0, worst_l = 0, moved = 0;
  int its;
  for (int k = 0; k < steps; k++) {
    int rc = cdyn_stepper_step(st, h);
    ck_assert_msg(rc == CDYN_OK, "N = %zu, h = %g, step %d: %s", N, h, k, cdyn_errmsg());
    ck_assert_int_eq(cdyn_ref_chain_be_step(c, h, 1e-12 / l, 50, &its), CDYN_OK);
    const double *a = cdyn_system_positions(sys), *b = cdyn_ref_chain_be_q(c);
    for (size_t i = 0; i < 3 * n; i++)
      worst = fmax(worst, fabs(a[i] - b[i]));
    moved = fmax(moved, fabs(b[3 * N]));
    ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
    const double *lr = cdyn_ref_chain_be_lambda(c);
    for (size_t j = 0; j < N; j++)
      worst_l = fmax(worst_l, fabs(lam[3 + j] - lr[j]));
  }
  cdyn_ref_chain_be_free(c);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  free(lam);
  free(q);
  return (be_gap){worst, worst_l, moved};
}

START_TEST(test_chain_be_against_backward_euler)
{
  static const struct {
    size_t N;
    double h;
    int steps;
  } cases[] = {{10, 1.0 / 60, 120}, {100, 1.0 / 60, 60}, {10, 0.25, 40}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    size_t N = cases[k].N;
    double h = cases[k].h;
    int steps = cases[k].steps;
    be_gap g = be_against_reference(N, h, steps);
    /* The chain has moved: not a comparison of two states at rest. */
    ck_assert_double_gt(g.moved, 1e-3);
    ck_assert_msg(g.q <= steps * 4e-12, "N = %zu, h = %g: positions differ by %.3e over %d steps", N, h, g.q, steps);
    ck_assert_msg(g.lambda <= steps * (double)N * 4e-12 / (h * h),
                  "N = %zu, h = %g: multipliers differ by %.3e N over %d steps", N, h, g.lambda, steps);
  }
}
END_TEST

/*
 * At h = 0.1 (h omega_N = 2.8 for N = 40: every library scheme is
 * unstable there, chain-scale-stability) the fully implicit step stays
 * on the constraints to its tolerance, converges in few iterations and
 * does not gain energy over 10 s: the kick's 0.1 J is damped out.
 */
START_TEST(test_chain_be_large_step)
{
  enum { N = 40 };
  const double l = 0.05, h = 0.1, g[3] = {0, -9.81, 0};
  static double q[3 * (N + 1)], v[3 * (N + 1)];
  chain_state(N, l, 0.05, q, v);
  cdyn_ref_chain_be *c;
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, N, l, 1.0, g, q, v), CDYN_OK);
  double E0 = cdyn_ref_chain_be_energy(c), Emax = E0;
  int its, itmax = 0;
  for (int k = 0; k < 100; k++) {
    ck_assert_int_eq(cdyn_ref_chain_be_step(c, h, 1e-10, 50, &its), CDYN_OK);
    itmax = its > itmax ? its : itmax;
    Emax = fmax(Emax, cdyn_ref_chain_be_energy(c));
    const double *x = cdyn_ref_chain_be_q(c);
    for (int i = 0; i < N; i++) {
      const double *a = x + 3 * i, *b = a + 3;
      double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
      ck_assert_double_le(fabs(d - l), 1e-10 * l);
    }
  }
  ck_assert_double_le(Emax, E0 + 1e-9);
  ck_assert_double_lt(cdyn_ref_chain_be_energy(c) - E0, -0.5 * 0.5 * N * 0.05 * 0.05);
  ck_assert_int_le(itmax, 10);
  cdyn_ref_chain_be_free(c);
}
END_TEST

START_TEST(test_chain_be_errors)
{
  const double g[3] = {0, -9.81, 0}, bad[3] = {0, NAN, 0};
  double q[6] = {0, 0, 0, 0, -1, 0}, v[6] = {0, 0, 0, 1, 0, 0}; /* swinging */
  cdyn_ref_chain_be *c = (cdyn_ref_chain_be *)1;
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 0, 1, 1, g, q, v), CDYN_EINVAL);
  ck_assert_ptr_null(c);
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 1, 0, 1, g, q, v), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 1, 1, -1, g, q, v), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 1, 1, 1, bad, q, v), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 1, 1, 1, g, NULL, v), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_new(NULL, 1, 1, 1, g, q, v), CDYN_EINVAL);
  q[4] = INFINITY;
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 1, 1, 1, g, q, v), CDYN_EINVAL);
  q[4] = -1;
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 1, 1, 1, g, q, v), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0, 1e-10, 10, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, NAN, 1e-10, 10, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0.01, 0, 10, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0.01, 0.1, 10, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0.01, 1e-10, 0, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_step(NULL, 0.01, 1e-10, 10, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0.01, 1e-12, 20, NULL), CDYN_OK);
  cdyn_ref_chain_be_free(c);
  /* A bending 2-link chain: one iteration cannot reach 1e-14 from the
     prediction (for one link it can: the radial projection is exact), so
     NOCONV with the state kept. */
  double q2[9] = {0, 0, 0, 0, -1, 0, 0, -2, 0}, v2[9] = {0, 0, 0, 1, 0, 0, -1, 0, 0};
  ck_assert_int_eq(cdyn_ref_chain_be_new(&c, 2, 1, 1, g, q2, v2), CDYN_OK);
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0.2, 1e-14, 1, NULL), CDYN_NOCONV);
  for (int i = 0; i < 9; i++)
    ck_assert_double_eq(cdyn_ref_chain_be_q(c)[i], q2[i]);
  int its;
  ck_assert_int_eq(cdyn_ref_chain_be_step(c, 0.2, 1e-14, 30, &its), CDYN_OK);
  ck_assert_int_ge(its, 2);
  cdyn_ref_chain_be_free(c);
  cdyn_ref_chain_be_free(NULL);
}
END_TEST

static Suite *reference_suite(void)
{
  Suite *s = suite_create("reference_kkt");
  TCase *tc = tcase_create("kkt");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_system_forces);
  tcase_add_test(tc, test_kkt_pendulum_closed_form);
  tcase_add_test(tc, test_kkt_against_library);
  tcase_add_test(tc, test_kkt_redundant_rows);
  tcase_add_test(tc, test_kkt_errors);
  suite_add_tcase(s, tc);

  tc = tcase_create("chain_be");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_chain_be_against_newton);
  tcase_add_test(tc, test_chain_be_large_step);
  tcase_add_test(tc, test_chain_be_against_backward_euler);
  tcase_add_test(tc, test_chain_be_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return tu_run(reference_suite());
}
