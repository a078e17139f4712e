/*
 * test_soft.c: the schemes whose constraints are soft by design or by
 * truncation (penalty, penalty-euler, pbd, xpbd), against exact facts.
 *
 * Penalty (a spring of stiffness k on every constraint row, 004):
 * - At static equilibrium a hanging mass stretches its link by m g / k and
 *   the reported multiplier is the tension m g, for either integrator.
 * - Explicit Euler multiplies the oscillator energy by exactly
 *   1 + h^2 w^2 per step, w^2 = k (1/m1 + 1/m2) for two free particles.
 * - Symplectic Euler keeps it bounded for h w < 2 and blows up above:
 *   the threshold is found by bisection and compared with 2 / w.
 * PBD (Gauss-Seidel sweeps over the rows, 004 and Mueller et al. 2006):
 * - One sweep on a hanging 10-link chain leaves a steady stretch of
 *   n (n - 1) / 2 h^2 g, which falls as the sweeps grow ("constraints look
 *   soft", 004), while the multipliers at the steady state are the exact
 *   tensions for any number of sweeps.
 * - After one step from rest the link multiplier is m g (1 - r^K).
 * - With a (nearly) immovable anchor a step is the closest-point
 *   projection of the prediction onto the circle.
 * - A row with a zero gradient is skipped.
 * - The `tol` option stops the sweeps early and reports non-convergence.
 * XPBD (compliance alpha, Macklin et al. 2016):
 * - A hanging mass stretches its link by alpha m g for any h and K.
 * - On a chain one sweep adds PBD's stretch to the compliant one; enough
 *   sweeps leave the compliant stretch alone.
 * - With alpha = 0 it computes what pbd computes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "testutil.h"

static const double G = 9.81;

static void set_opt(cdyn_stepper *st, const char *key, const char *value)
{
  ck_assert_msg(cdyn_stepper_set(st, key, value) == CDYN_OK, "%s = %s: %s", key, value, cdyn_errmsg());
}

static void set_num(cdyn_stepper *st, const char *key, double value)
{
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", value);
  set_opt(st, key, buf);
}

static void steps(cdyn_stepper *st, double h, long N, const char *what)
{
  for (long k = 0; k < N; k++) {
    int rc = cdyn_stepper_step(st, h);
    TU_ASSERT(rc == CDYN_OK, "%s: step %ld failed: %s", what, k, cdyn_errmsg());
  }
}

/* Pendulum hanging straight down: particle 0 (mass m0) pinned at the
   origin (rows 0-2), particle 1 (mass m1) at (0, -L, 0), link row 3. */
static cdyn_system *hanging(double m0, double m1, double L)
{
  cdyn_system *s;
  ck_assert_int_eq(tu_chain(&s, 1, L, m0, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(s, 1, m1), CDYN_OK);
  return s;
}

/* ---- penalty -------------------------------------------------------------------- */

/*
 * Static stretch.  At rest the acceleration of particle 1 vanishes only
 * if the link's force balances its weight: k Phi + c J v = m1 g with
 * v = 0, so Phi = m1 g / k and lambda = m1 g; the pin carries both
 * weights, |x0| = (m0 + m1) g / k.  That state is a fixed point of either
 * integrator (a = 0, v = 0), and the default critical damping settles the
 * springs on it: the slowest spring mode (w^2 = 0.17 k here) decays like
 * exp(-w t) or faster, below 1e-12 of the stretch within 10 s even at
 * k = 1e3.  Rounding: Phi = r - L with r ~ 1.3 is exact to a few 1e-16
 * against a stretch of at least 2.6e-4 m: 1e-9 relative leaves ample room.
 * h = 1e-3 is inside every stability limit: at k = 1e5 the stiffest mode
 * has w = 470 rad/s, h w = 0.47 < 0.83 (symplectic Euler, critical
 * damping).
 */
START_TEST(test_penalty_static_stretch)
{
  const double m0 = 1.0, m1 = 2.7, L = 1.3, h = 1e-3;
  const char *const schemes[2] = {"penalty", "penalty-euler"};
  const double ks[3] = {1e3, 1e4, 1e5};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) {
      cdyn_system *s = hanging(m0, m1, L);
      cdyn_stepper *st;
      ck_assert_int_eq(cdyn_stepper_new(&st, s, schemes[i]), CDYN_OK);
      set_num(st, "k", ks[j]);
      steps(st, h, 10000, schemes[i]);
      /* One more step so that the reported multipliers belong to the
         final state's neighbourhood. */
      steps(st, h, 1, schemes[i]);
      double phi[4], lam[4], x0[3];
      ck_assert_int_eq(cdyn_system_constraint_values(s, phi), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
      ck_assert_int_eq(cdyn_system_get_particle(s, 0, NULL, x0, NULL), CDYN_OK);
      double want = m1 * G / ks[j], pin = (m0 + m1) * G / ks[j];
      ck_assert_msg(fabs(phi[3] - want) <= 1e-9 * want, "%s, k = %g: stretch %.12e, m g / k = %.12e", schemes[i],
                    ks[j], phi[3], want);
      ck_assert_msg(fabs(-x0[1] - pin) <= 1e-9 * pin, "%s, k = %g: pin displaced by %.12e, (m0 + m1) g / k = %.12e",
                    schemes[i], ks[j], -x0[1], pin);
      ck_assert_msg(fabs(lam[3] - m1 * G) <= 1e-9 * m1 * G, "%s, k = %g: link multiplier %.12e, tension m g = %.12e",
                    schemes[i], ks[j], lam[3], m1 * G);
      cdyn_stepper_free(st);
      cdyn_system_free(s);
    }
}
END_TEST

/*
 * The reported multipliers are lambda_r = k Phi_r + c_r (J_r v + Phi_t,r)
 * with c_r = 2 zeta sqrt(k m_r), m_r = 1 / (J_r W J_r^T), evaluated at the
 * state the step starts from (both integrators evaluate the acceleration
 * once, there).  A link between particles 0 and 1 (m_r the reduced mass,
 * J v = n^.(v1 - v0) with n^ the unit vector from 0 to 1) and a pin
 * moving at constant velocity u on particle 2 (m_r = m2, Phi_t = -u), in a
 * state off the constraints and moving.  Rounding: terms of order 1e2
 * from inputs exact to 1e-16: 1e-12 relative.
 */
START_TEST(test_penalty_multipliers)
{
  const double m[3] = {0.8, 1.7, 2.3}, L = 1.1, x0 = 0.013, k = 3.7e3, zeta = 0.37;
  const double nh[3] = {0.6, 0.48, 0.64}; /* unit */
  const double a[3] = {0.3, -0.2, 0.1}, va[3] = {0.1, -0.3, 0.2}, vb[3] = {-0.4, 0.25, 0.05};
  const double p0[3] = {0.1, 0.2, -0.3}, u[3] = {0.05, 0.02, -0.01}, zero[3] = {0, 0, 0};
  const double dp[3] = {0.01, -0.02, 0.015}, vp[3] = {0.3, -0.1, 0.2};
  const char *const schemes[2] = {"penalty", "penalty-euler"};
  for (int i = 0; i < 2; i++) {
    cdyn_system *s;
    ck_assert_int_eq(cdyn_system_new(&s, 3), CDYN_OK);
    double b[3], xp[3];
    for (int c = 0; c < 3; c++) {
      b[c] = a[c] + (L + x0) * nh[c];
      xp[c] = p0[c] + dp[c];
    }
    for (size_t j = 0; j < 3; j++)
      ck_assert_int_eq(cdyn_system_set_mass(s, j, m[j]), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(s, 0, a), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(s, 1, b), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(s, 2, xp), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(s, 0, va), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(s, 1, vb), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(s, 2, vp), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_distance(s, 0, 1, L, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_moving_pin(s, 2, p0, u, zero, 0.0, 0.0, NULL), CDYN_OK);
    double phi[4];
    ck_assert_int_eq(cdyn_system_constraint_values(s, phi), CDYN_OK);
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_stepper_new(&st, s, schemes[i]), CDYN_OK);
    set_num(st, "k", k);
    set_num(st, "damping", zeta);
    steps(st, 1e-3, 1, schemes[i]);
    double lam[4], want[4];
    ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
    double mu = m[0] * m[1] / (m[0] + m[1]), jv = 0;
    for (int c = 0; c < 3; c++)
      jv += nh[c] * (vb[c] - va[c]);
    want[0] = k * phi[0] + 2 * zeta * sqrt(k * mu) * jv;
    for (int c = 0; c < 3; c++)
      want[1 + c] = k * phi[1 + c] + 2 * zeta * sqrt(k * m[2]) * (vp[c] - u[c]);
    for (int r = 0; r < 4; r++)
      ck_assert_msg(fabs(lam[r] - want[r]) <= 1e-12 * fabs(want[r]), "%s row %d: lambda %.15g, expected %.15g",
                    schemes[i], r, lam[r], want[r]);
    cdyn_stepper_free(st);
    cdyn_system_free(s);
  }
}
END_TEST

/*
 * Two free particles (masses m1, m2) on the x axis joined by one link of
 * length L, stretched by x0 and at rest, no gravity, no damping.  The
 * motion stays on the axis, where the penalty force -k (r - L) is exactly
 * linear in the stretch x = r - L: a harmonic oscillator in x with
 * w^2 = k (1/m1 + 1/m2), reduced mass mu, and energy
 *   E = mu u^2 / 2 + k x^2 / 2 = (mu / 2)(u^2 + w^2 x^2),  u = x'.
 */
typedef struct {
  double m1, m2, L, x0, k;
} osc;

static const osc OSC = {0.7, 1.9, 1.3, 1e-3, 1e4};

static double osc_omega(const osc *o) { return sqrt(o->k * (1 / o->m1 + 1 / o->m2)); }

static cdyn_system *osc_system(const osc *o)
{
  cdyn_system *s;
  const double a[3] = {0.2, 0, 0}, b[3] = {0.2 + o->L + o->x0, 0, 0}, g[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_new(&s, 2), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(s, 0, o->m1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(s, 1, o->m2), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(s, 0, a), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(s, 1, b), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_distance(s, 0, 1, o->L, NULL), CDYN_OK);
  return s;
}

static cdyn_stepper *osc_stepper(cdyn_system *s, const char *scheme, const osc *o)
{
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  set_num(st, "k", o->k);
  set_opt(st, "damping", "0");
  return st;
}

/* Kinetic energy plus the penalty potential k Phi^2 / 2. */
static double osc_energy(const cdyn_system *s, const osc *o)
{
  double T, phi;
  TU_ASSERT_OK(cdyn_system_energy(s, &T, NULL));
  TU_ASSERT_OK(cdyn_system_constraint_values(s, &phi));
  return T + 0.5 * o->k * phi * phi;
}

/*
 * Explicit Euler, x+ = x + h u, u+ = u - h w^2 x, gives
 *   u+^2 + w^2 x+^2 = (1 + h^2 w^2)(u^2 + w^2 x^2)
 * exactly: the energy grows by 1 + h^2 w^2 per step (the amplitude by its
 * square root) at every step size.  Rounding: each step's energy carries a
 * relative error of about 1e-16 L / x0 = 1.3e-13 (x = r - L loses the
 * digits of L), so after 60 steps 1e-11 relative is ample; a growth factor
 * off by one part in 1e4 per step would miss by 6e-3.
 */
START_TEST(test_penalty_euler_energy_growth)
{
  const double h = 0.002, w = osc_omega(&OSC), factor = 1 + h * h * w * w;
  cdyn_system *s = osc_system(&OSC);
  cdyn_stepper *st = osc_stepper(s, "penalty-euler", &OSC);
  const double E0 = osc_energy(s, &OSC);
  ck_assert_double_eq_tol(E0, 0.5 * OSC.k * OSC.x0 * OSC.x0, 1e-12 * E0);
  for (int n = 1; n <= 60; n++) {
    steps(st, h, 1, "penalty-euler");
    double ratio = osc_energy(s, &OSC) / E0, want = pow(factor, n);
    ck_assert_msg(fabs(ratio - want) <= 1e-11 * want, "step %d: E / E0 = %.15g, (1 + h^2 w^2)^n = %.15g", n, ratio,
                  want);
  }
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * Symplectic Euler, u+ = u - h w^2 x, x+ = x + h u+, conserves
 *   I = u^2 + w^2 x^2 - h w^2 x u
 * (expand I(x+, u+)), a positive definite form for h w < 2 whose
 * eigenvalues relative to u^2 + w^2 x^2 are 1 -+ h w / 2.  From rest
 * I = E0 (up to the factor mu / 2), so E <= E0 / (1 - h w / 2) for all
 * time when h w < 2.  For h w > 2 an eigenvalue of the step has modulus
 * (|tr| + sqrt(tr^2 - 4)) / 2 > 1 with tr = 2 - h^2 w^2.
 *
 * So "unstable within N = 5000 steps" (E > 1e6 E0, or a failed step) is
 * decided correctly except within 1e-6 of h w = 2: below, the bound is
 * 1 / (1 - h w / 2) < 1e6; above, with h w = 2 (1 + e) the growth per
 * step is about 1 + sqrt(8 e), which passes 1e6 within 5000 steps once
 * e > 1e-6.  E <= 1e6 E0 keeps |x| <= 1e3 x0 = 1 m < L, so the particles
 * never meet and the force stays exactly linear up to the decision.
 * Bisection to a bracket of 1e-5 then places the threshold within 2e-5 of
 * 2 / w, asserted within 1e-4.
 */
static int osc_unstable(double h)
{
  cdyn_system *s = osc_system(&OSC);
  cdyn_stepper *st = osc_stepper(s, "penalty", &OSC);
  const double E0 = osc_energy(s, &OSC);
  int unstable = 0;
  for (long k = 0; k < 5000 && !unstable; k++)
    unstable = cdyn_stepper_step(st, h) != CDYN_OK || !(osc_energy(s, &OSC) <= 1e6 * E0);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
  return unstable;
}

START_TEST(test_penalty_symplectic_threshold)
{
  const double w = osc_omega(&OSC), hstar = 2 / w;
  /* Bounded below the limit, by the invariant's bound. */
  const double fr[3] = {0.3, 0.9, 0.99};
  for (int i = 0; i < 3; i++) {
    double h = fr[i] * hstar, bound = 1 / (1 - h * w / 2);
    cdyn_system *s = osc_system(&OSC);
    cdyn_stepper *st = osc_stepper(s, "penalty", &OSC);
    const double E0 = osc_energy(s, &OSC);
    double Emax = 0;
    for (long k = 0; k < 20000; k++) {
      steps(st, h, 1, "penalty");
      Emax = fmax(Emax, osc_energy(s, &OSC));
    }
    ck_assert_msg(Emax <= bound * E0 * (1 + 1e-9), "h w = %.3f: max E / E0 = %.6g above the bound %.6g", h * w,
                  Emax / E0, bound);
    cdyn_stepper_free(st);
    cdyn_system_free(s);
  }
  /* The threshold by bisection. */
  double lo = 0.5 * hstar, hi = 1.5 * hstar;
  ck_assert(!osc_unstable(lo));
  ck_assert(osc_unstable(hi));
  while (hi - lo > 1e-5 * hstar) {
    double mid = 0.5 * (lo + hi);
    if (osc_unstable(mid))
      hi = mid;
    else
      lo = mid;
  }
  double found = 0.5 * (lo + hi);
  ck_assert_msg(fabs(found / hstar - 1) <= 1e-4, "stability limit found at h = %.8g, 2 sqrt(mu / k) = %.8g (ratio %.6f)",
                found, hstar, found / hstar);
  /* Above the limit the state overflows; the stepper reports it and keeps
     the last finite state (the amplitude grows 6.85-fold per step at
     h w = 3, so it overflows within a few hundred steps). */
  cdyn_system *s = osc_system(&OSC);
  cdyn_stepper *st = osc_stepper(s, "penalty", &OSC);
  int rc = CDYN_OK;
  long k;
  double q[6], v[6];
  for (k = 0; k < 1000 && rc == CDYN_OK; k++) {
    ck_assert_int_eq(cdyn_system_get_state(s, q, v), CDYN_OK);
    rc = cdyn_stepper_step(st, 1.5 * hstar);
  }
  ck_assert_msg(rc == CDYN_ENONFINITE, "h w = 3: step %ld returned %d (%s)", k, rc, cdyn_errmsg());
  double q1[6], v1[6];
  ck_assert_int_eq(cdyn_system_get_state(s, q1, v1), CDYN_OK);
  ck_assert(memcmp(q, q1, sizeof q) == 0 && memcmp(v, v1, sizeof v) == 0);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/* ---- PBD ------------------------------------------------------------------------ */

/* Sum of the link stretches of a chain (rows 3 .. 3 + links - 1). */
static double chain_stretch(const cdyn_system *s, size_t links)
{
  double phi[3 + 16];
  ck_assert_uint_le(links, 16);
  ck_assert_int_eq(cdyn_system_constraint_values(s, phi), CDYN_OK);
  double sum = 0;
  for (size_t k = 0; k < links; k++)
    sum += phi[3 + k];
  return sum;
}

/*
 * A 10-link chain of equal masses m hanging straight down from a pin, run
 * by pbd to its steady state, and the stretch that remains.
 *
 * At a steady state (v = 0, positions unchanged by a step) the corrections
 * of a step must cancel the prediction, h^2 g downwards for every
 * particle.  Particle j is moved only by links j - 1 and j (and the pin
 * for j = 0), along the vertical, so the accumulated multipliers are fixed
 * by that balance alone: link i carries (n - i) m g whatever K is.
 *
 * With K = 1 the sweep order (pin, then links top to bottom) also fixes
 * the stretch.  With equal masses link i's correction D_i moves its two
 * particles by D_i / 2 each; the balance gives D_i = 2 e (n - i),
 * e = h^2 g, and link i is left stretched by link i+1's later correction
 * of its lower particle, D_i+1 / 2 = e (n - i - 1).  The total is
 *   S_1 = e n (n - 1) / 2,
 * 45 h^2 g for n = 10: a stretch set by h and K, not by any material
 * property.  More sweeps must leave less (strictly, as Gauss-Seidel on this
 * positive definite problem contracts every sweep).
 *
 * Tolerances: the fixed point is approached geometrically (PBD damps);
 * after 40 s the velocities are checked below 1e-9 m/s, and the stretch,
 * a sum of ten r - L with r ~ 0.5 (rounding 1e-16 each), is compared to
 * 1e-9 relative.
 */
static double pbd_chain(const char *scheme, double alpha, long K, double h, double T, double *lam)
{
  const size_t n = 10;
  cdyn_system *s;
  ck_assert_int_eq(tu_chain(&s, n, 0.5, 1.0, NULL), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  set_num(st, "iterations", (double)K);
  if (alpha > 0)
    set_num(st, "compliance", alpha);
  steps(st, h, lround(T / h), scheme);
  double vmax = tu_max_abs(cdyn_system_velocities(s), 3 * (n + 1));
  ck_assert_msg(vmax <= 1e-9, "%s, K = %ld, h = %g: not steady after %g s (max |v| = %.3e)", scheme, K, h, T, vmax);
  double S = chain_stretch(s, n);
  if (lam)
    ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
  return S;
}

START_TEST(test_pbd_chain_soft)
{
  const size_t n = 10;
  const double h = 0.01, e = h * h * G;
  const long Ks[5] = {1, 2, 5, 20, 100};
  double S[5];
  for (int i = 0; i < 5; i++) {
    double lam[3 + 10];
    S[i] = pbd_chain("pbd", 0, Ks[i], h, 40, lam);
    for (size_t l = 0; l < n; l++) {
      double T = (double)(n - l) * G;
      ck_assert_msg(fabs(lam[3 + l] - T) <= 1e-9 * T, "K = %ld: link %zu multiplier %.12g, tension %.12g", Ks[i], l,
                    lam[3 + l], T);
    }
    if (i)
      ck_assert_msg(S[i] < S[i - 1], "stretch did not fall from K = %ld (%.6e) to K = %ld (%.6e)", Ks[i - 1],
                    S[i - 1], Ks[i], S[i]);
  }
  const double S1 = e * (double)(n * (n - 1)) / 2;
  ck_assert_msg(fabs(S[0] - S1) <= 1e-9 * S1, "K = 1: steady stretch %.12e, n (n - 1) / 2 h^2 g = %.12e", S[0], S1);
  /* The same at a smaller step: the stretch scales with h^2. */
  const double h2 = 0.004, S1b = h2 * h2 * G * (double)(n * (n - 1)) / 2;
  double Sb = pbd_chain("pbd", 0, 1, h2, 40, NULL);
  ck_assert_msg(fabs(Sb - S1b) <= 1e-9 * S1b, "K = 1, h = %g: steady stretch %.12e, expected %.12e", h2, Sb, S1b);
}
END_TEST

/*
 * The multiplier after one step from rest, on the hanging pendulum with a
 * pinned particle of mass m0 under gravity too.  The prediction moves both
 * particles down by e = h^2 g.  Each sweep the pin row puts particle 0
 * back, which stretches the link by what particle 0 had moved, and the
 * link row removes that stretch, moving particle 0 down by a fraction
 * r = w0 / (w0 + w1) of it.  The link's violations over K sweeps are
 * e, r e, ..., r^(K-1) e, its multipliers -e r^j / (w0 + w1), and in the
 * library's convention
 *   lambda = e (1 - r^K) / ((1 - r)(w0 + w1) h^2) = m1 g (1 - r^K).
 * Rounding: e = 9.8e-4 is recovered from positions of size 1.3
 * (2e-13 relative per operation), a few such operations: 1e-10 relative.
 */
START_TEST(test_pbd_multiplier_first_step)
{
  const double m0 = 1.0, m1 = 2.7, h = 0.01, r = (1 / m0) / (1 / m0 + 1 / m1);
  const long Ks[3] = {1, 3, 10};
  for (int i = 0; i < 3; i++) {
    cdyn_system *s = hanging(m0, m1, 1.3);
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_stepper_new(&st, s, "pbd"), CDYN_OK);
    set_num(st, "iterations", (double)Ks[i]);
    steps(st, h, 1, "pbd");
    double lam[4];
    ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
    double want = m1 * G * (1 - pow(r, (double)Ks[i]));
    ck_assert_msg(fabs(lam[3] - want) <= 1e-10 * want, "K = %ld: link multiplier %.15g, m g (1 - r^K) = %.15g",
                  Ks[i], lam[3], want);
    cdyn_stepper_free(st);
    cdyn_system_free(s);
  }
}
END_TEST

/*
 * For a single link PBD's row update is the exact closest-point projection
 * (004: "find dlambda which makes updated positions satisfy
 * |x~_ij + dx_ij| = l0"): the correction is along the link, which it does
 * not turn.  With the anchor particle 1e12 times heavier than the bob, the
 * pin row holds it at the origin and the link row moves only the bob, by
 * a fraction 1 - 1e-12 of the full correction, so a pbd step is
 *   x~ = x + h (v + h g),  x+ = L x~ / |x~|,  v+ = (x+ - x) / h
 * to about 1e-12 relative (the next sweep removes the remainder).  That
 * one-line model is integrated here independently; over 40 steps of size
 * 1/40 the positions agree to 1e-11 (the 1e-12 terms and rounding
 * amplified by at most a few over the run).
 */
START_TEST(test_pbd_distance_projection)
{
  const double L = 1.3, th = 1.1, h = 1.0 / 40;
  cdyn_system *s = hanging(1e12, 0.7, L);
  const double x1[3] = {L * sin(th), -L * cos(th), 0};
  ck_assert_int_eq(cdyn_system_set_position(s, 1, x1), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "pbd"), CDYN_OK);
  double x = x1[0], y = x1[1], vx = 0, vy = 0;
  for (int k = 1; k <= 40; k++) {
    steps(st, h, 1, "pbd");
    double xt = x + h * vx, yt = y + h * (vy - h * G), r = hypot(xt, yt);
    double xn = L * xt / r, yn = L * yt / r;
    vx = (xn - x) / h;
    vy = (yn - y) / h;
    x = xn;
    y = yn;
    double q[3];
    ck_assert_int_eq(cdyn_system_get_particle(s, 1, NULL, q, NULL), CDYN_OK);
    ck_assert_msg(fabs(q[0] - x) <= 1e-11 && fabs(q[1] - y) <= 1e-11 && q[2] == 0,
                  "step %d: (%.15g, %.15g), projection model (%.15g, %.15g)", k, q[0], q[1], x, y);
  }
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * A row whose gradient vanishes (grad Phi W grad Phi^T = 0) cannot be
 * corrected along its gradient and would exert no force; pbd and xpbd skip
 * it.  A user constraint type with Phi = 0.3 and a zero Jacobian, added to
 * the swinging pendulum, must leave every step bit for bit as it is
 * without it, with its multiplier 0, whatever the compliance.
 */
static int flat_eval(const double *params, const double *const *x, const double *const *v, double t, cdyn_row *rows)
{
  (void)params;
  (void)x;
  (void)v;
  (void)t;
  rows[0].phi = 0.3; /* the Jacobian stays as the caller zeroed it */
  return CDYN_OK;
}

static const cdyn_constraint_type flat_type = {
  .name = "flat",
  .description = "Phi = 0.3 with a zero gradient",
  .nparticles = 1,
  .nparams = 0,
  .rows = 1,
  .param_names = NULL,
  .check = NULL,
  .eval = flat_eval,
};

START_TEST(test_pbd_zero_gradient_row)
{
  const double joint[1] = {1.1};
  const char *const compliance[2] = {"0", "1e-4"};
  for (int c = 0; c < 2; c++) {
    double q[2][6], v[2][6], lam[2][5];
    for (int flat = 0; flat < 2; flat++) {
      cdyn_system *s;
      ck_assert_int_eq(tu_chain(&s, 1, 1.3, 1.0, joint), CDYN_OK);
      ck_assert_int_eq(cdyn_system_set_mass(s, 1, 0.7), CDYN_OK);
      const size_t p = 1;
      if (flat)
        ck_assert_int_eq(cdyn_system_add_constraint(s, &flat_type, &p, NULL, NULL), CDYN_OK);
      cdyn_stepper *st;
      ck_assert_int_eq(cdyn_stepper_new(&st, s, "xpbd"), CDYN_OK);
      set_opt(st, "compliance", compliance[c]);
      steps(st, 0.01, 100, "xpbd");
      ck_assert_int_eq(cdyn_system_get_state(s, q[flat], v[flat]), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_multipliers(st, lam[flat]), CDYN_OK);
      cdyn_stepper_free(st);
      cdyn_system_free(s);
    }
    ck_assert(memcmp(q[0], q[1], sizeof q[0]) == 0);
    ck_assert(memcmp(v[0], v[1], sizeof v[0]) == 0);
    ck_assert(memcmp(lam[0], lam[1], 4 * sizeof lam[0][0]) == 0);
    ck_assert_double_eq(lam[1][4], 0.0);
  }
}
END_TEST

/* `tol`: early exit, the recorded residual, and non-convergence. */
START_TEST(test_pbd_tol)
{
  /* A swinging single pendulum: Gauss-Seidel contracts by r = 0.41 per
     sweep, so 1e-12 is reached in a few dozen sweeps, far below 1000. */
  const double joint[1] = {1.1};
  cdyn_system *s;
  ck_assert_int_eq(tu_chain(&s, 1, 1.3, 1.0, joint), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(s, 1, 0.7), CDYN_OK);
  cdyn_stepper *st;
  cdyn_stats stats;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "pbd"), CDYN_OK);
  set_opt(st, "iterations", "1000");
  set_opt(st, "tol", "1e-12");
  for (int k = 0; k < 50; k++) {
    steps(st, 0.01, 1, "pbd tol");
    ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
    ck_assert_uint_lt(stats.last_nonlinear_iterations, 1000);
    ck_assert_uint_ge(stats.last_nonlinear_iterations, 1);
    ck_assert(stats.last_nonlinear_residual <= 1e-12);
  }
  ck_assert_uint_eq(stats.nonlinear_noconv, 0);
  /* Without a tolerance: exactly K sweeps, every step counted converged,
     and the residual is the largest |Phi_r| of the new state. */
  set_opt(st, "tol", "0");
  set_opt(st, "iterations", "3");
  steps(st, 0.01, 1, "pbd");
  ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
  ck_assert_uint_eq(stats.last_nonlinear_iterations, 3);
  ck_assert_uint_eq(stats.nonlinear_noconv, 0);
  double phi[4];
  ck_assert_int_eq(cdyn_system_constraint_values(s, phi), CDYN_OK);
  ck_assert_double_eq(stats.last_nonlinear_residual, tu_max_abs(phi, 4));
  /* A tolerance that 2 sweeps cannot reach is reported as not converged. */
  set_opt(st, "iterations", "2");
  set_opt(st, "tol", "1e-300");
  steps(st, 0.01, 1, "pbd");
  ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
  ck_assert_uint_eq(stats.last_nonlinear_iterations, 2);
  ck_assert_uint_eq(stats.nonlinear_noconv, 1);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/* ---- XPBD ----------------------------------------------------------------------- */

/*
 * Compliance as inverse stiffness.  After a row's update XPBD's residual
 * vanishes: Phi_r + (alpha / h^2) lambda_r = 0, i.e. Phi_r = alpha
 * lambda_lib with lambda_lib = -lambda_r / h^2 the library's multiplier.
 * On the hanging pendulum the link is the last row of each sweep and the
 * only one to move particle 1, and nothing moves particle 0 after it in
 * the sweep, so at the end of every step Phi_link = alpha lambda_link
 * exactly.  At a steady state the link's multiplier balances particle
 * 1's weight, lambda = m1 g (the argument of test_pbd_chain_soft), so
 *   Phi_link = alpha m1 g
 * for any h and any K: the stiffness 1 / alpha is a material property.
 * (The pin is compliant too; its own stretch does not enter the link's.)
 * Tolerances: steady to |v| < 1e-12 m/s after 20 s (XPBD damps the
 * spring mode like implicit Euler, by (1 + h^2 w^2)^(-1/2) per step with
 * w ~ 150 rad/s), then rounding of r - L: 1e-10 relative.  With alpha = 0
 * (pbd) the same argument gives Phi_link = 0.
 */
START_TEST(test_xpbd_compliance_stretch)
{
  const double m0 = 1.0, m1 = 0.7, alpha = 1e-4, want = alpha * m1 * G;
  const double hs[2] = {0.01, 0.004};
  const long Ks[2] = {2, 20};
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++)
      for (int hard = 0; hard < 2; hard++) {
        cdyn_system *s = hanging(m0, m1, 1.3);
        cdyn_stepper *st;
        ck_assert_int_eq(cdyn_stepper_new(&st, s, "xpbd"), CDYN_OK);
        set_num(st, "iterations", (double)Ks[b]);
        set_num(st, "compliance", hard ? 0.0 : alpha);
        steps(st, hs[a], lround(20 / hs[a]), "xpbd");
        ck_assert(tu_max_abs(cdyn_system_velocities(s), 6) < 1e-12);
        double phi[4], lam[4];
        ck_assert_int_eq(cdyn_system_constraint_values(s, phi), CDYN_OK);
        ck_assert_int_eq(cdyn_stepper_multipliers(st, lam), CDYN_OK);
        if (hard)
          ck_assert_msg(fabs(phi[3]) <= 1e-14, "h = %g, K = %ld, alpha = 0: stretch %.3e", hs[a], Ks[b], phi[3]);
        else
          ck_assert_msg(fabs(phi[3] - want) <= 1e-10 * want,
                        "h = %g, K = %ld: stretch %.15e, alpha m g = %.15e (relative %.2e)", hs[a], Ks[b], phi[3],
                        want, phi[3] / want - 1);
        ck_assert_msg(fabs(lam[3] - m1 * G) <= 1e-10 * m1 * G, "h = %g, K = %ld: multiplier %.15g, m g = %.15g",
                      hs[a], Ks[b], lam[3], m1 * G);
        cdyn_stepper_free(st);
        cdyn_system_free(s);
      }
}
END_TEST

/*
 * On the chain of test_pbd_chain_soft the compliant stretch of link i is
 * alpha (n - i) m g, in total alpha m g n (n + 1) / 2.  With one sweep,
 * link i is again disturbed after its update by link i+1's correction of
 * their shared particle, by PBD's e (n - i - 1), so the steady total is
 *   S_1 = alpha m g n (n + 1) / 2 + h^2 g n (n - 1) / 2,
 * the compliant stretch plus PBD's iteration stretch.  With 100 sweeps the
 * Gauss-Seidel iteration has converged (compliance makes it contract by
 * about 0.4 per sweep here) and only the compliant stretch is left.  The
 * slowest chain mode settles more slowly than the pendulum's: 80 s.
 */
START_TEST(test_xpbd_chain)
{
  const double alpha = 1e-4, h = 0.01, n = 10;
  const double Sc = alpha * G * n * (n + 1) / 2, Sp = h * h * G * n * (n - 1) / 2;
  double S1 = pbd_chain("xpbd", alpha, 1, h, 80, NULL);
  ck_assert_msg(fabs(S1 - (Sc + Sp)) <= 1e-8 * (Sc + Sp), "K = 1: stretch %.12e, compliant + PBD %.12e", S1, Sc + Sp);
  double S100 = pbd_chain("xpbd", alpha, 100, h, 80, NULL);
  ck_assert_msg(fabs(S100 - Sc) <= 1e-8 * Sc, "K = 100: stretch %.12e, compliant %.12e", S100, Sc);
}
END_TEST

/*
 * XPBD with compliance 0 takes the same steps as PBD: the update
 * (-Phi - 0 lambda) / (d + 0) is -Phi / d in floating point too, so the
 * two agree to the last bit on a swinging chain with uneven masses.
 */
START_TEST(test_xpbd_zero_is_pbd)
{
  double q[2][33], v[2][33], lam[2][13];
  const double joint[10] = {1.2, -0.3, 0.25, 0.1, -0.4, 0.2, 0.05, -0.15, 0.3, 0.1};
  for (int k = 0; k < 2; k++) {
    cdyn_system *s;
    ck_assert_int_eq(tu_chain(&s, 10, 0.5, 1.0, joint), CDYN_OK);
    for (size_t i = 1; i <= 10; i++)
      ck_assert_int_eq(cdyn_system_set_mass(s, i, 0.5 + 0.37 * (double)((i * 7) % 5)), CDYN_OK);
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_stepper_new(&st, s, k ? "xpbd" : "pbd"), CDYN_OK);
    set_opt(st, "iterations", "7");
    if (k)
      set_opt(st, "compliance", "0");
    steps(st, 0.005, 300, k ? "xpbd" : "pbd");
    ck_assert_int_eq(cdyn_system_get_state(s, q[k], v[k]), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_multipliers(st, lam[k]), CDYN_OK);
    cdyn_stepper_free(st);
    cdyn_system_free(s);
  }
  ck_assert(memcmp(q[0], q[1], sizeof q[0]) == 0);
  ck_assert(memcmp(v[0], v[1], sizeof v[0]) == 0);
  ck_assert(memcmp(lam[0], lam[1], sizeof lam[0]) == 0);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("soft");
  TCase *tc = tcase_create("penalty");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_penalty_static_stretch);
  tcase_add_test(tc, test_penalty_multipliers);
  tcase_add_test(tc, test_penalty_euler_energy_growth);
  tcase_add_test(tc, test_penalty_symplectic_threshold);
  suite_add_tcase(s, tc);
  tc = tcase_create("pbd");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_pbd_chain_soft);
  tcase_add_test(tc, test_pbd_multiplier_first_step);
  tcase_add_test(tc, test_pbd_distance_projection);
  tcase_add_test(tc, test_pbd_zero_gradient_row);
  tcase_add_test(tc, test_pbd_tol);
  suite_add_tcase(s, tc);
  tc = tcase_create("xpbd");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_xpbd_compliance_stretch);
  tcase_add_test(tc, test_xpbd_chain);
  tcase_add_test(tc, test_xpbd_zero_is_pbd);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return tu_run(suite());
}
