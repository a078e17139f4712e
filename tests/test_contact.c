/*
 * test_contact.c: the scheme "contact" (lib/schemes/contact.c) through the
 * public API of cdyn/contact.h, against exact facts.
 *
 * - Two equal balls meeting head-on (a separation constraint |x1 - x2| >=
 *   d): with restitution e = 1 they exchange velocities and keep momentum
 *   and kinetic energy; with e = 0 they leave together at the mean
 *   velocity.  For two equal masses both are exact, so the tolerances are
 *   a few units of rounding of the initial values; every registered
 *   active-set algorithm must give the same (one contact leaves nothing
 *   to choose).
 * - A glancing collision of equal balls with e = 1: the normal components
 *   of the velocities (normal at the located contact) are exchanged, the
 *   tangential ones kept.
 * - Event location: a ball falling onto a wall under gravity.  One
 *   symplectic-Euler sub-step of length s from (q, v) ends at
 *   q + s v + s^2 a (v+ = v + s a, q+ = q + s v+), so the contact time is
 *   the root of that quadratic; from rest in a single step it is
 *   sqrt((H - r) / g) (not the continuous fall time sqrt(2 (H - r) / g):
 *   the discrete path has s^2 a, not s^2 a / 2).  The located time must
 *   agree to event_tol / |dg/ds| plus rounding, and the state there must
 *   have 0 <= g <= event_tol.  The scheme evaluates the applied force at
 *   the start of every sub-step, so a force callback that adds nothing
 *   records the sub-steps' times and states.
 * - A ball resting on a tilted wall (non-unit normal) under gravity with
 *   tau > 0 stays within active_tol, its multiplier is the exact
 *   lambda = m (g . n) / |n|^2 (library convention), and it slides along
 *   the wall exactly as symplectic Euler moves it under the tangential
 *   part of gravity.
 * - lcp's warm start (option warm) on a stack at rest: one solve per
 *   acceleration solve where the cold start drives every row, and the
 *   same motion to the rounding bound of the solves.
 * - The sub-step observer (cdyn_stepper_set_substep_observer): the start
 *   of every step and every cut inside it, at the times and positions at
 *   which the scheme starts its next sub-step, the trajectory unchanged;
 *   its failure fails the step with the state restored; a scheme that
 *   takes its step whole reports only the start.
 * Each runs with both forms of the contact problems' linear algebra
 * (option subsolve: dense, and sparse through CHOLMOD), which must meet
 * the same facts to the same tolerances.
 * - subsolve = auto, the default: a hanging chain of 128 rows takes the
 *   dense path and one of 129 rows the sparse path, each bitwise the run
 *   with that path named, and a chain that grows past 128 rows within a
 *   run, and back, changes path at those steps; the sparse path alone
 *   counts factorisations.
 * - Bad input: restitution outside [0, 1], a non-finite state or force,
 *   event_tol >= active_tol, an equality-only scheme on a system with a
 *   wall, cdyn_system_set_inequality on a constraint that does not exist,
 *   cdyn_system_add_separation with d <= 0, and the contact report of a
 *   stepper whose scheme does not handle contact.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>
#include "testutil.h"

#define EPS DBL_EPSILON

/* ---- a recorder of sub-step starts ---------------------------------------------- */

#define REC_MAX 4096

typedef struct {
  size_t calls, n;
  double t[REC_MAX];
  double q[REC_MAX][6], v[REC_MAX][6]; /* up to two particles */
} recorder;

/* Adds no force: gravity comes from cdyn_system_set_gravity.  Records
   the time and state of every force evaluation (the start of every
   sub-step of the scheme "contact"). */
static int record(void *ctx, size_t n, double t, const double *q, const double *v, double *f)
{
  (void)f;
  recorder *r = ctx;
  if (r->calls < REC_MAX) {
    r->t[r->calls] = t;
    for (size_t k = 0; k < 3 * n && k < 6; k++) {
      r->q[r->calls][k] = q[k];
      r->v[r->calls][k] = v[k];
    }
  }
  r->calls++;
  r->n = n;
  return 0;
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* ---- two balls ------------------------------------------------------------------------ */

static const double M = 1.37, RAD = 0.31; /* mass (kg) and radius (m): d = 2 RAD */

/*
 * Two balls on the line through c along the unit vector u, a distance
 * gap apart (surface to surface), with velocities a u and b u plus, for
 * ball 0, the transverse velocity w (may be NULL).
 */
static cdyn_system *two_balls(const double u[3], double gap, double a, double b, const double *w)
{
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, 2), CDYN_OK);
  const double c[3] = {0.413, -0.271, 0.117};
  double x0[3], x1[3], v0[3], v1[3];
  double half = RAD + 0.5 * gap;
  for (int k = 0; k < 3; k++) {
    x0[k] = c[k] - half * u[k];
    x1[k] = c[k] + half * u[k];
    v0[k] = a * u[k] + (w ? w[k] : 0.0);
    v1[k] = b * u[k];
  }
  for (size_t i = 0; i < 2; i++)
    ck_assert_int_eq(cdyn_system_set_mass(s, i, M), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(s, 0, x0), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(s, 1, x1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(s, 0, v0), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(s, 1, v1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_separation(s, 0, 1, 2 * RAD, NULL), CDYN_OK);
  return s;
}

/* The scheme's subsolve in the test running (each test sets it from its
   loop index). */
static const char *subsolve = "dense";

static void set_subsolve(int sparse) { subsolve = sparse ? "sparse" : "dense"; }

static cdyn_stepper *contact_stepper(cdyn_system *s, const char *algorithm, const char *e)
{
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "contact"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "subsolve", subsolve), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "activeset", algorithm), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "restitution", e), CDYN_OK);
  return st;
}

/* Step until `steps` steps are taken; returns the impulses over the run
   and checks that no step fails and no state penetrates. */
static unsigned run_steps(cdyn_stepper *st, cdyn_system *s, double h, int steps)
{
  unsigned impulses = 0;
  for (int k = 0; k < steps; k++) {
    int rc = cdyn_stepper_step(st, h);
    ck_assert_msg(rc == CDYN_OK, "step %d: %d (%s)", k, rc, cdyn_errmsg());
    cdyn_contact_report rep;
    ck_assert_int_eq(cdyn_stepper_contact_report(st, &rep), CDYN_OK);
    impulses += rep.impulses;
    double pen;
    ck_assert_int_eq(cdyn_system_penetration(s, &pen), CDYN_OK);
    ck_assert_msg(pen == 0, "step %d: penetration %g", k, pen);
  }
  return impulses;
}

static void momentum_energy(const cdyn_system *s, double p[3], double *T)
{
  ck_assert_int_eq(cdyn_system_momentum(s, p), CDYN_OK);
  ck_assert_int_eq(cdyn_system_energy(s, T, NULL), CDYN_OK);
}

/* The approach direction: a unit vector with no special components. */
static void axis(double u[3])
{
  u[0] = 0.6;
  u[1] = -0.48;
  u[2] = 0.64;
  double n = sqrt(dot3(u, u));
  for (int k = 0; k < 3; k++)
    u[k] /= n;
}

/*
 * e = 1, head-on, equal masses: the velocities are exchanged,
 * a u, b u -> b u, a u, and momentum and kinetic energy are kept.
 * Rounding: the normal n is computed from the rounded positions (relative
 * error a few eps), the impulse p = -(1 + e) gdot / (w1 + w2) and the
 * updates v += w n p each add a few roundings of size eps |v|; 32 eps
 * (|a| + |b|) per component bounds them with room.  The ball pair is
 * 0.05 m apart, closing at 2.3 m/s, so the contact falls inside the
 * third step of 0.01 s (event location cuts it there).
 */
START_TEST(test_elastic_head_on)
{
  const char *alg = cdyn_activeset_name((size_t)_i % cdyn_activeset_count());
  set_subsolve(_i >= (int)cdyn_activeset_count());
  double u[3];
  axis(u);
  const double a = 1.83, b = -0.47;
  cdyn_system *s = two_balls(u, 0.05, a, b, NULL);
  cdyn_stepper *st = contact_stepper(s, alg, "1");
  double p0[3], T0;
  momentum_energy(s, p0, &T0);
  unsigned imp = run_steps(st, s, 0.01, 10);
  ck_assert_msg(imp == 1, "%s: %u impulses, expected one impact", alg, imp);
  double v[6];
  ck_assert_int_eq(cdyn_system_get_state(s, NULL, v), CDYN_OK);
  const double tol = 32 * EPS * (fabs(a) + fabs(b));
  for (int k = 0; k < 3; k++) {
    ck_assert_msg(fabs(v[k] - b * u[k]) <= tol, "%s: v0[%d] = %.17g, expected %.17g", alg, k, v[k], b * u[k]);
    ck_assert_msg(fabs(v[3 + k] - a * u[k]) <= tol, "%s: v1[%d] = %.17g, expected %.17g", alg, k, v[3 + k],
                  a * u[k]);
  }
  double p[3], T;
  momentum_energy(s, p, &T);
  for (int k = 0; k < 3; k++)
    ck_assert_msg(fabs(p[k] - p0[k]) <= M * tol, "%s: momentum[%d] %.17g, was %.17g", alg, k, p[k], p0[k]);
  /* T = m (a^2 + b^2) / 2; each velocity off by <= tol changes it by
     <= m (|a| + |b|) tol. */
  ck_assert_msg(fabs(T - T0) <= M * (fabs(a) + fabs(b)) * tol, "%s: kinetic energy %.17g, was %.17g", alg, T, T0);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/* e = 0: both leave at the mean velocity (a + b) u / 2, momentum kept,
   and they stay in contact (0 <= g <= active_tol) afterwards. */
START_TEST(test_inelastic_head_on)
{
  const char *alg = cdyn_activeset_name((size_t)_i % cdyn_activeset_count());
  set_subsolve(_i >= (int)cdyn_activeset_count());
  double u[3];
  axis(u);
  const double a = 1.83, b = -0.47, c = 0.5 * (a + b);
  cdyn_system *s = two_balls(u, 0.05, a, b, NULL);
  cdyn_stepper *st = contact_stepper(s, alg, "0");
  double p0[3], T0;
  momentum_energy(s, p0, &T0);
  unsigned imp = run_steps(st, s, 0.01, 10);
  ck_assert_msg(imp == 1, "%s: %u impulses, expected one impact", alg, imp);
  double v[6], phi;
  ck_assert_int_eq(cdyn_system_get_state(s, NULL, v), CDYN_OK);
  const double tol = 32 * EPS * (fabs(a) + fabs(b));
  for (int k = 0; k < 3; k++) {
    ck_assert_msg(fabs(v[k] - c * u[k]) <= tol, "%s: v0[%d] = %.17g, expected %.17g", alg, k, v[k], c * u[k]);
    ck_assert_msg(fabs(v[3 + k] - c * u[k]) <= tol, "%s: v1[%d] = %.17g, expected %.17g", alg, k, v[3 + k],
                  c * u[k]);
  }
  double p[3], T;
  momentum_energy(s, p, &T);
  for (int k = 0; k < 3; k++)
    ck_assert_msg(fabs(p[k] - p0[k]) <= M * tol, "%s: momentum[%d] %.17g, was %.17g", alg, k, p[k], p0[k]);
  /* The kinetic energy lost is that of the relative motion, m (a - b)^2 / 4. */
  double lost = M * (a - b) * (a - b) / 4;
  ck_assert_msg(fabs((T0 - T) - lost) <= M * (fabs(a) + fabs(b)) * tol, "%s: lost %.17g J, expected %.17g", alg,
                T0 - T, lost);
  ck_assert_int_eq(cdyn_system_constraint_values(s, &phi), CDYN_OK);
  ck_assert_msg(phi >= 0 && phi <= 1e-8, "%s: gap %g after a plastic impact (active_tol 1e-8)", alg, phi);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * A glancing elastic collision of equal balls: ball 0 also moves across
 * the line of centres, so they meet off-centre.  The contact normal n is
 * that of the located contact state, which the recorder sees as the
 * start of the sub-step after the event (with the velocities after the
 * impulse).  With equal masses and e = 1 the normal components are
 * exchanged and the tangential ones kept:
 *   v0' = v0 - (n.(v0 - v1)) n,   v1' = v1 + (n.(v0 - v1)) n.
 * No force acts, so the velocities before the impulse are the initial
 * ones.  Tolerance as in the head-on case.
 */
START_TEST(test_glancing_elastic)
{
  set_subsolve(_i);
  double u[3];
  axis(u);
  /* Across the line of centres: w = w' - (u . w') u. */
  double w[3] = {0.29, 0.53, 0.1575};
  double uw = dot3(u, w);
  for (int k = 0; k < 3; k++)
    w[k] -= uw * u[k];
  ck_assert_msg(fabs(dot3(u, w)) < 1e-15, "w is not transverse: u.w = %g", dot3(u, w));
  const double a = 1.83, b = -0.47;
  cdyn_system *s = two_balls(u, 0.05, a, b, w);
  recorder *rec = calloc(1, sizeof *rec);
  ck_assert_ptr_nonnull(rec);
  ck_assert_int_eq(cdyn_system_set_force_callback(s, record, rec), CDYN_OK);
  cdyn_stepper *st = contact_stepper(s, "iterative", "1");
  double v0[6];
  ck_assert_int_eq(cdyn_system_get_state(s, NULL, v0), CDYN_OK);
  unsigned imp = run_steps(st, s, 0.01, 10);
  ck_assert_uint_eq(imp, 1);
  /* The event: the one sub-step that starts strictly inside a step. */
  size_t ev = 0;
  for (size_t c = 0; c < rec->calls && c < REC_MAX; c++) {
    double k = rec->t[c] / 0.01;
    if (fabs(k - nearbyint(k)) > 1e-9)
      ev = c;
  }
  ck_assert_msg(ev > 0, "no sub-step started at an event");
  const double *q = rec->q[ev], *v = rec->v[ev];
  double n[3] = {q[0] - q[3], q[1] - q[4], q[2] - q[5]};
  double len = sqrt(dot3(n, n));
  ck_assert_msg(fabs(len - 2 * RAD) <= 1e-10, "contact located at |x0 - x1| = %.17g, not 2r = %g", len, 2 * RAD);
  for (int k = 0; k < 3; k++)
    n[k] /= len;
  double rel[3] = {v0[0] - v0[3], v0[1] - v0[4], v0[2] - v0[5]};
  double vn = dot3(n, rel);
  ck_assert_msg(vn < 0, "the balls do not approach along the located normal (n.(v0 - v1) = %g)", vn);
  const double tol = 32 * EPS * (fabs(a) + fabs(b) + sqrt(dot3(w, w)));
  for (int k = 0; k < 3; k++) {
    double e0 = v0[k] - vn * n[k], e1 = v0[3 + k] + vn * n[k];
    ck_assert_msg(fabs(v[k] - e0) <= tol, "v0'[%d] = %.17g, expected %.17g", k, v[k], e0);
    ck_assert_msg(fabs(v[3 + k] - e1) <= tol, "v1'[%d] = %.17g, expected %.17g", k, v[3 + k], e1);
  }
  cdyn_stepper_free(st);
  cdyn_system_free(s);
  free(rec);
}
END_TEST

/* ---- event location ---------------------------------------------------------------------- */

static const double G = 9.81, MB = 0.83, RB = 0.21, EVENT_TOL = 1e-10;

/* One ball above the wall y >= RB (unit normal: g is the height of the
   ball's surface above the wall), gravity -G along y, the recorder on. */
static cdyn_system *falling_ball(double H, double vy, recorder *rec)
{
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, 1), CDYN_OK);
  const double g[3] = {0, -G, 0}, x[3] = {0.417, H, -0.093}, v[3] = {0.29, vy, 0};
  const double p[3] = {0, RB, 0}, n[3] = {0, 1, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(s, 0, MB), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(s, 0, x), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_velocity(s, 0, v), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_wall(s, 0, p, n, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_force_callback(s, record, rec), CDYN_OK);
  return s;
}

/*
 * From rest at height H, one step of h = 1 s, longer than the fall: the
 * sub-step's path is y(s) = H - G s^2, which meets y = RB at
 * s* = sqrt((H - RB) / G).  Bisection stops at the first s_lo with
 * 0 <= g(s_lo) <= event_tol, so s* - s_lo <= event_tol / |dg/ds| where
 * dg/ds = -2 G s (at s*: 2 G s* ~ 7.7 m/s); the times carry rounding
 * of a few eps s*.  At the event the velocity is -G s* (symplectic Euler's
 * v + s a) and the impulse with e = 0.5 turns it into +0.5 G s*.
 */
START_TEST(test_event_one_step)
{
  set_subsolve(_i);
  const double H = 1.7342, e = 0.5;
  recorder *rec = calloc(1, sizeof *rec);
  ck_assert_ptr_nonnull(rec);
  cdyn_system *s = falling_ball(H, 0, rec);
  cdyn_stepper *st = contact_stepper(s, "iterative", "0.5");
  ck_assert_int_eq(cdyn_stepper_set(st, "event_tol", "1e-10"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 1.0), CDYN_OK);
  cdyn_contact_report rep;
  ck_assert_int_eq(cdyn_stepper_contact_report(st, &rep), CDYN_OK);
  ck_assert_uint_eq(rep.events, 1);
  ck_assert_uint_eq(rep.impulses, 1);
  ck_assert_uint_eq(rep.substeps, 2);
  ck_assert_uint_eq(rec->calls, 2);
  const double ts = sqrt((H - RB) / G);
  const double tol = EVENT_TOL / (2 * G * ts) + 8 * EPS * ts;
  ck_assert_msg(rec->t[0] == 0, "first sub-step at t = %g", rec->t[0]);
  ck_assert_msg(rec->t[1] <= ts + 8 * EPS * ts && ts - rec->t[1] <= tol,
                "event at t = %.17g, expected %.17g (tolerance %.3g below)", rec->t[1], ts, tol);
  double gap = rec->q[1][1] - RB;
  ck_assert_msg(gap >= 0 && gap <= EVENT_TOL, "g at the event = %.17g, not in [0, %g]", gap, EVENT_TOL);
  /* The continuous fall time sqrt(2 (H - RB) / G) is sqrt(2) later: the
     scheme's path is the discrete one. */
  ck_assert_msg(fabs(rec->t[1] - sqrt(2 * (H - RB) / G)) > 0.1, "event at the continuous fall time");
  double vy = rec->v[1][1], want = e * G * ts;
  ck_assert_msg(fabs(vy - want) <= G * tol + 16 * EPS * want, "velocity after the impulse %.17g, expected %.17g", vy,
                want);
  ck_assert_msg(rec->v[1][0] == 0.29, "the tangential velocity changed to %.17g", rec->v[1][0]);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
  free(rec);
}
END_TEST

/*
 * Thrown up at 0.53 m/s from H, steps of h = 0.01 s.  The reference is
 * the symplectic-Euler recurrence itself (v += h a, y += h v, a = -G),
 * stepped here until the step k whose end would be below RB; inside it
 * the path y_k + s v_k - G s^2 meets RB at
 *   s* = 2 (y_k - RB) / (-v_k + sqrt(v_k^2 + 4 G (y_k - RB)))
 * (the stable form of the positive root), t* = t_k + s*.  The library's
 * a = (1/m)(m a) may differ from -G by an ulp, which moves y by about
 * k eps |y|: far below event_tol.
 */
START_TEST(test_event_many_steps)
{
  set_subsolve(_i);
  const double H = 1.7342, vy0 = 0.53, h = 0.01;
  recorder *rec = calloc(1, sizeof *rec);
  ck_assert_ptr_nonnull(rec);
  cdyn_system *s = falling_ball(H, vy0, rec);
  cdyn_stepper *st = contact_stepper(s, "iterative", "0");
  /* Reference. */
  double y = H, v = vy0, t = 0;
  long k = 0;
  for (;; k++) {
    double v1 = v + h * -G, y1 = y + h * v1;
    if (y1 < RB)
      break;
    y = y1;
    v = v1;
    t += h;
    ck_assert_int_lt(k, 10000);
  }
  double sstar = 2 * (y - RB) / (-v + sqrt(v * v + 4 * G * (y - RB)));
  double ts = t + sstar, speed = fabs(v - 2 * G * sstar);
  /* The library, until its first impulse. */
  long steps = 0;
  unsigned events = 0;
  for (; steps <= k; steps++) {
    ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
    cdyn_contact_report rep;
    ck_assert_int_eq(cdyn_stepper_contact_report(st, &rep), CDYN_OK);
    events += rep.events;
    ck_assert_msg(rep.events == 0 || steps == k, "an event in step %ld, the reference meets the wall in step %ld",
                  steps, k);
  }
  ck_assert_uint_eq(events, 1);
  size_t ev = rec->calls - 1; /* the last sub-step began at the event */
  ck_assert_uint_eq(rec->calls, (size_t)k + 2);
  const double tol = EVENT_TOL / speed + 8 * EPS * ts;
  ck_assert_msg(rec->t[ev] <= ts + 8 * EPS * ts && ts - rec->t[ev] <= tol,
                "event at t = %.17g, expected %.17g (tolerance %.3g)", rec->t[ev], ts, tol);
  double gap = rec->q[ev][1] - RB;
  ck_assert_msg(gap >= 0 && gap <= EVENT_TOL, "g at the event = %.17g, not in [0, %g]", gap, EVENT_TOL);
  /* e = 0: the ball stays on the wall and slides along it. */
  ck_assert_msg(fabs(rec->v[ev][1]) <= 16 * EPS * speed, "normal velocity after a plastic impact %g", rec->v[ev][1]);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
  free(rec);
}
END_TEST

/* ---- resting contact -------------------------------------------------------------------------- */

/*
 * A ball on the tilted wall n.(x - p) >= 0, n = (0.37, 1.13, 0) (not
 * unit), under gravity (0, -9.81, 0), with tau = 0.02 s, h = 1e-3, 500
 * steps.  The wall pushes with lambda = m (g . n) / |n|^2 (library sign:
 * M qdd + J^T lambda = F, so lambda < 0 pushes), the ball slides with
 * a_t = g - (g . n) n / |n|^2, and symplectic Euler from rest puts it at
 * x_N = x_0 + h^2 a_t N (N + 1) / 2.  g stays at rounding level, well
 * within active_tol.  Tolerances: the multiplier is one small solve
 * (1e-12 relative); the position sums N velocity increments of relative
 * rounding eps each (N eps relative, about 1e-13).
 */
START_TEST(test_resting_on_tilted_wall)
{
  set_subsolve(_i);
  const double n[3] = {0.37, 1.13, 0}, p[3] = {0.2, -0.1, 0.05}, g[3] = {0, -9.81, 0}, m = 0.83;
  const double tdir[3] = {1.13, -0.37, 0};
  double x0[3];
  for (int k = 0; k < 3; k++)
    x0[k] = p[k] + 0.6 * tdir[k];
  x0[2] = 0.31;
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, 1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_mass(s, 0, m), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_position(s, 0, x0), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_wall(s, 0, p, n, NULL), CDYN_OK);
  cdyn_stepper *st = contact_stepper(s, "iterative", "0");
  ck_assert_int_eq(cdyn_stepper_set(st, "tau", "0.02"), CDYN_OK);
  const double nn = dot3(n, n), gn = dot3(g, n), lam = m * gn / nn;
  double at[3];
  for (int k = 0; k < 3; k++)
    at[k] = g[k] - gn * n[k] / nn;
  const int N = 500;
  const double h = 1e-3;
  for (int k = 1; k <= N; k++) {
    ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
    double phi, l;
    ck_assert_int_eq(cdyn_system_constraint_values(s, &phi), CDYN_OK);
    ck_assert_msg(fabs(phi) <= 1e-8, "step %d: g = %g beyond active_tol", k, phi);
    ck_assert_int_eq(cdyn_stepper_multipliers(st, &l), CDYN_OK);
    ck_assert_msg(fabs(l - lam) <= 1e-12 * fabs(lam), "step %d: lambda %.17g, expected m g.n/|n|^2 = %.17g", k, l, lam);
    cdyn_contact_report rep;
    ck_assert_int_eq(cdyn_stepper_contact_report(st, &rep), CDYN_OK);
    ck_assert_msg(rep.accel.handled == 1 && !rep.pulls && !rep.violates && rep.impulses == 0,
                  "step %d: handled %u, pulls %d, violates %d, impulses %u", k, rep.accel.handled, rep.pulls,
                  rep.violates, rep.impulses);
  }
  double x[3];
  ck_assert_int_eq(cdyn_system_get_particle(s, 0, NULL, x, NULL), CDYN_OK);
  const double f = h * h * N * (N + 1) / 2.0;
  for (int k = 0; k < 3; k++) {
    double want = x0[k] + f * at[k];
    ck_assert_msg(fabs(x[k] - want) <= 1e-12 * (fabs(x0[k]) + fabs(f * at[k])) + 1e-15,
                  "x[%d] = %.17g after %d steps, expected %.17g", k, x[k], N, want);
  }
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * lcp's warm start in the scheme (option warm): four balls of mass 1 in
 * a row on a floor, pressed against a wall by gravity (-3, -9.81, 0),
 * each touching the next (separations of 0.1 m): 8 active rows, all
 * pushing (floor 9.81 each; wall 12, separations 3, 6, 9).  The stack is
 * at rest, so its clamped set never changes.
 *   - warm on: after the first step every acceleration solve is the
 *     guessed set's one solve (rep.accel.solves == 1); warm off: a cold
 *     start drives each of the 8 rows (at least 8 solves).
 *   - The two runs agree.  Per solve the accelerations differ by at most
 *     8 k eps (1 + cond) s_a (test_lcp's bound), k = 8 rows, s_a =
 *     max |W J^T mu| sums, about 22 m/s^2; the handled block is the
 *     floors' identity beside the wall and separations' path matrix
 *     [[1, -1, 0, 0], [-1, 2, -1, 0], [0, -1, 2, -1], [0, 0, -1, 2]], of
 *     eigenvalues 2 - 2 cos((2j - 1) pi / 9), so cond = 29.3, and
 *     |da| <= 9.5e-12 m/s^2.  Symplectic Euler sums them into the
 *     positions as h^2 N (N + 1) / 2 |da| = 4.3e-13 m over N = 300 steps of
 *     1 ms (Baumgarte's feedback, tau = 0.02 s, damps rather than grows a
 *     difference).  The test allows 1e-12 m.
 */
START_TEST(test_warm_start_resting)
{
  set_subsolve(_i);
  const double g[3] = {-3, -9.81, 0}, floor_p[3] = {0, 0, 0}, up[3] = {0, 1, 0}, wall_p[3] = {0, 0, 0},
               right[3] = {1, 0, 0};
  cdyn_system *s[2];
  cdyn_stepper *st[2];
  for (int r = 0; r < 2; r++) {
    ck_assert_int_eq(cdyn_system_new(&s[r], 4), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_gravity(s[r], g), CDYN_OK);
    for (size_t i = 0; i < 4; i++) {
      const double x[3] = {0.1 * (double)i, 0, 0.2};
      ck_assert_int_eq(cdyn_system_set_position(s[r], i, x), CDYN_OK);
      ck_assert_int_eq(cdyn_system_add_wall(s[r], i, floor_p, up, NULL), CDYN_OK);
      if (i == 0)
        ck_assert_int_eq(cdyn_system_add_wall(s[r], i, wall_p, right, NULL), CDYN_OK);
      else
        ck_assert_int_eq(cdyn_system_add_separation(s[r], i - 1, i, 0.1, NULL), CDYN_OK);
    }
    st[r] = contact_stepper(s[r], "lcp", "0");
    ck_assert_int_eq(cdyn_stepper_set(st[r], "tau", "0.02"), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_set(st[r], "warm", r == 0 ? "on" : "off"), CDYN_OK);
  }
  const int N = 300;
  const double h = 1e-3;
  for (int k = 1; k <= N; k++) {
    cdyn_contact_report rep[2];
    for (int r = 0; r < 2; r++) {
      ck_assert_int_eq(cdyn_stepper_step(st[r], h), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_contact_report(st[r], &rep[r]), CDYN_OK);
      ck_assert_msg(rep[r].accel.handled == 8 && !rep[r].pulls && !rep[r].violates && rep[r].impulses == 0,
                    "warm %s, step %d: handled %u, pulls %d, violates %d, impulses %u", r ? "off" : "on", k,
                    rep[r].accel.handled, rep[r].pulls, rep[r].violates, rep[r].impulses);
    }
    if (k > 1)
      ck_assert_msg(rep[0].accel.solves == 1, "step %d: the warm start took %u solves", k, rep[0].accel.solves);
    ck_assert_msg(rep[1].accel.solves >= 8, "step %d: the cold start took %u solves", k, rep[1].accel.solves);
    const double *q0 = cdyn_system_positions(s[0]), *q1 = cdyn_system_positions(s[1]);
    for (int i = 0; i < 12; i++)
      ck_assert_msg(fabs(q0[i] - q1[i]) <= 1e-12, "step %d, q[%d]: warm %.17g, cold %.17g", k, i, q0[i], q1[i]);
  }
  for (int r = 0; r < 2; r++) {
    cdyn_stepper_free(st[r]);
    cdyn_system_free(s[r]);
  }
}
END_TEST

/* ---- bad input ---------------------------------------------------------------------------------- */

static int nan_force(void *ctx, size_t n, double t, const double *q, const double *v, double *f)
{
  (void)ctx;
  (void)n;
  (void)t;
  (void)q;
  (void)v;
  f[1] = NAN;
  return 0;
}

/*
 * An inconsistent constraint set in a step: one ball pinned (equality) to
 * two points 1 m apart, and resting on a wall.  With tau > 0 the two pins'
 * rows share J but ask for different accelerations (Baumgarte's g / tau^2
 * differs by 1 m / tau^2), so A_EE mu_E = -b_E has no solution: the step
 * fails with CDYN_EINFEASIBLE "inconsistent constraint set" (not
 * CDYN_EINVAL: the arguments are valid, the model is not) and leaves the
 * state as it was.
 * With tau = 0 the rows ask for the same acceleration and the step is
 * fine (the least-squares solve of a redundant pair).
 */
START_TEST(test_inconsistent_set)
{
  set_subsolve(_i);
  cdyn_system *s;
  cdyn_stepper *st;
  const double p1[3] = {0, 0, 0}, p2[3] = {1, 0, 0}, o[3] = {0, 0, 0}, n[3] = {0, 1, 0}, g[3] = {0, -9.81, 0};
  ck_assert_int_eq(cdyn_system_new(&s, 1), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(s, 0, p1, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(s, 0, p2, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_wall(s, 0, o, n, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "contact"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "subsolve", subsolve), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "tau", "0"), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(st, 0.01), 0);
  ck_assert_int_eq(cdyn_system_set_time(s, 0), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "tau", "0.1"), CDYN_OK);
  double q0[3], v0[3], q[3], v[3];
  ck_assert_int_eq(cdyn_system_get_state(s, q0, v0), CDYN_OK);
  int rc = cdyn_stepper_step(st, 0.01);
  ck_assert_msg(rc == CDYN_EINFEASIBLE && strstr(cdyn_errmsg(), "inconsistent constraint set"), "step: %d %s", rc,
                cdyn_errmsg());
  ck_assert_int_eq(cdyn_system_get_state(s, q, v), CDYN_OK);
  ck_assert_msg(!memcmp(q, q0, sizeof q) && !memcmp(v, v0, sizeof v) && cdyn_system_time(s) == 0,
                "a failed step changed the state");
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

START_TEST(test_bad_input)
{
  set_subsolve(_i);
  double u[3];
  axis(u);
  cdyn_system *s = two_balls(u, 0.05, 1.83, -0.47, NULL);
  cdyn_stepper *st = contact_stepper(s, "iterative", "1");
  /* Restitution outside [0, 1] is refused and the value kept. */
  ck_assert_int_eq(cdyn_stepper_set(st, "restitution", "1.5"), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_set(st, "restitution", "-0.1"), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_set(st, "restitution", "nan"), CDYN_EINVAL);
  char buf[64];
  ck_assert_int_eq(cdyn_stepper_get(st, "restitution", buf, sizeof buf), CDYN_OK);
  ck_assert_double_eq(strtod(buf, NULL), 1.0);
  ck_assert_int_lt(cdyn_stepper_set(st, "activeset", "nope"), 0);
  ck_assert_int_eq(cdyn_stepper_get(st, "activeset", buf, sizeof buf), CDYN_OK);
  ck_assert_str_eq(buf, "iterative");
  /* A non-finite state cannot be set, and a non-finite force fails the
     step with the state restored. */
  double q[6], v[6], q0[6], v0[6];
  ck_assert_int_eq(cdyn_system_get_state(s, q0, v0), CDYN_OK);
  memcpy(q, q0, sizeof q);
  q[4] = NAN;
  ck_assert_int_eq(cdyn_system_set_state(s, q, v0), CDYN_ENONFINITE);
  ck_assert_int_eq(cdyn_system_set_force_callback(s, nan_force, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 0.01), CDYN_ENONFINITE);
  ck_assert_int_eq(cdyn_system_get_state(s, q, v), CDYN_OK);
  ck_assert_msg(!memcmp(q, q0, sizeof q) && !memcmp(v, v0, sizeof v), "a failed step changed the state");
  ck_assert_double_eq(cdyn_system_time(s), 0.0);
  ck_assert_int_eq(cdyn_system_set_force_callback(s, NULL, NULL), CDYN_OK);
  /* event_tol >= active_tol: the step refuses, naming both. */
  ck_assert_int_eq(cdyn_stepper_set(st, "event_tol", "1e-8"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 0.01), CDYN_EINVAL);
  ck_assert_msg(strstr(cdyn_errmsg(), "event_tol") && strstr(cdyn_errmsg(), "active_tol"), "message: %s",
                cdyn_errmsg());
  ck_assert_int_eq(cdyn_system_get_state(s, q, v), CDYN_OK);
  ck_assert_msg(!memcmp(q, q0, sizeof q) && !memcmp(v, v0, sizeof v), "a refused step changed the state");
  /* Without event location the two tolerances are not compared. */
  ck_assert_int_eq(cdyn_stepper_set(st, "events", "off"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 0.01), CDYN_OK);
  cdyn_stepper_free(st);
  /* Equality-only schemes refuse a system with inequality rows. */
  cdyn_stepper *bad = (cdyn_stepper *)1;
  ck_assert_int_eq(cdyn_stepper_new(&bad, s, "implicit"), CDYN_EINVAL);
  ck_assert_ptr_null(bad);
  ck_assert_msg(strstr(cdyn_errmsg(), "contact") != NULL, "message does not name the contact scheme: %s",
                cdyn_errmsg());
  /* The flag on a constraint that does not exist. */
  ck_assert_int_eq(cdyn_system_set_inequality(s, 1, 1), CDYN_EINVAL);
  int on = -1;
  ck_assert_int_eq(cdyn_system_is_inequality(s, 1, &on), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_system_is_inequality(s, 0, &on), CDYN_OK);
  ck_assert_int_eq(on, 1);
  ck_assert_uint_eq(cdyn_system_inequality_rows(s), 1);
  /* Separations need d > 0 and finite; nothing is added otherwise. */
  ck_assert_int_eq(cdyn_system_add_separation(s, 0, 1, 0.0, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_system_add_separation(s, 0, 1, -0.62, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_system_add_separation(s, 0, 1, NAN, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_system_add_separation(s, 0, 1, INFINITY, NULL), CDYN_EINVAL);
  ck_assert_uint_eq(cdyn_system_constraint_count(s), 1);
  ck_assert_uint_eq(cdyn_system_inequality_rows(s), 1);
  /* Turned into an equality, the equality-only schemes accept it. */
  ck_assert_int_eq(cdyn_system_set_inequality(s, 0, 0), CDYN_OK);
  ck_assert_uint_eq(cdyn_system_inequality_rows(s), 0);
  ck_assert_int_eq(cdyn_stepper_new(&bad, s, "implicit"), CDYN_OK);
  /* A stepper whose scheme does not handle contact has no contact report. */
  cdyn_contact_report rep;
  unsigned char handled[1];
  ck_assert_int_eq(cdyn_stepper_contact_report(bad, &rep), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_handled(bad, handled), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_contact_report(NULL, &rep), CDYN_EINVAL);
  cdyn_stepper_free(bad);
  cdyn_system_free(s);
}
END_TEST

/* ---- the sub-step observer ------------------------------------------------------------------ */

#define OBS_MAX 4096

/* What the sub-step observer saw: k, t and the ball's position of every
   call; `fail_at` >= 0 makes the call with that k return `status`. */
typedef struct {
  size_t calls;
  unsigned long k[OBS_MAX];
  double t[OBS_MAX], q[OBS_MAX][3];
  long fail_at;
  int status;
} observer;

static int observe(void *ctx, unsigned long k, double t, const double *q)
{
  observer *o = ctx;
  if (o->calls < OBS_MAX) {
    o->k[o->calls] = k;
    o->t[o->calls] = t;
    memcpy(o->q[o->calls], q, sizeof o->q[0]);
  }
  o->calls++;
  return o->fail_at >= 0 && (long)k == o->fail_at ? o->status : CDYN_OK;
}

/*
 * The falling ball of test_event_one_step (one step of 1 s, cut at the
 * event): the observer sees k = 0 with the start, then k = 1 at the cut,
 * whose time and position are those at which the scheme starts its
 * second sub-step (the force recorder's second call), and nothing at the
 * step's end.  Over 2 s of bounces at h = 0.01 (restitution 0.8): at every
 * step one call with k = 0 and the step's start state, then one per
 * sub-step but the last (the contact report's substeps - 1), numbered 1,
 * 2, ... at increasing times inside the step, each at the force
 * recorder's sub-step start; the ball's trajectory bitwise that of a run
 * without the observer.
 */
START_TEST(test_substep_observer)
{
  const double H = 1.7342;
  recorder *rec = calloc(1, sizeof *rec), *rec2 = calloc(1, sizeof *rec2);
  observer *o = calloc(1, sizeof *o);
  ck_assert(rec && rec2 && o);
  o->fail_at = -1;
  cdyn_system *s = falling_ball(H, 0, rec);
  cdyn_stepper *st = contact_stepper(s, "iterative", "0.5");
  ck_assert_int_eq(cdyn_stepper_set_substep_observer(st, observe, o), CDYN_OK);
  double x0[3];
  memcpy(x0, cdyn_system_positions(s), sizeof x0);
  ck_assert_int_eq(cdyn_stepper_step(st, 1.0), CDYN_OK);
  ck_assert_uint_eq(rec->calls, 2);
  ck_assert_uint_eq(o->calls, 2);
  ck_assert(o->k[0] == 0 && o->t[0] == 0 && !memcmp(o->q[0], x0, sizeof x0));
  ck_assert(o->k[1] == 1 && o->t[1] == rec->t[1] && !memcmp(o->q[1], rec->q[1], sizeof x0));
  ck_assert(o->t[1] > 0 && o->t[1] < 1);
  cdyn_stepper_free(st);
  cdyn_system_free(s);

  /* Bounces, with and without the observer. */
  memset(rec, 0, sizeof *rec);
  memset(o, 0, sizeof *o);
  o->fail_at = -1;
  s = falling_ball(0.6, 0, rec);
  cdyn_system *s2 = falling_ball(0.6, 0, rec2);
  st = contact_stepper(s, "iterative", "0.8");
  cdyn_stepper *st2 = contact_stepper(s2, "iterative", "0.8");
  ck_assert_int_eq(cdyn_stepper_set_substep_observer(st, observe, o), CDYN_OK);
  const double h = 0.01;
  unsigned long cuts = 0;
  for (int step = 0; step < 200; step++) {
    size_t c0 = o->calls, r0 = rec->calls;
    double t0 = cdyn_system_time(s), q0[3];
    memcpy(q0, cdyn_system_positions(s), sizeof q0);
    ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_step(st2, h), CDYN_OK);
    cdyn_contact_report rep;
    ck_assert_int_eq(cdyn_stepper_contact_report(st, &rep), CDYN_OK);
    ck_assert_uint_eq(o->calls - c0, rep.substeps);
    ck_assert_uint_eq(rec->calls - r0, rep.substeps);
    ck_assert(o->k[c0] == 0 && o->t[c0] == t0 && !memcmp(o->q[c0], q0, sizeof q0));
    for (size_t c = c0 + 1; c < o->calls; c++) {
      ck_assert_uint_eq(o->k[c], c - c0);
      ck_assert(o->t[c] > o->t[c - 1] && o->t[c] < t0 + h);
      /* The next sub-step starts where this one ended. */
      ck_assert(o->t[c] == rec->t[r0 + (c - c0)] && !memcmp(o->q[c], rec->q[r0 + (c - c0)], sizeof q0));
    }
    cuts += rep.substeps - 1;
  }
  ck_assert_msg(cuts >= 3, "%lu cuts in 2 s of bounces", cuts);
  ck_assert(o->calls < OBS_MAX);
  ck_assert(!memcmp(cdyn_system_positions(s), cdyn_system_positions(s2), 3 * sizeof(double)));
  ck_assert(!memcmp(cdyn_system_velocities(s), cdyn_system_velocities(s2), 3 * sizeof(double)));
  /* Removed: no more calls. */
  ck_assert_int_eq(cdyn_stepper_set_substep_observer(st, NULL, o), CDYN_OK);
  size_t before = o->calls;
  ck_assert_int_eq(cdyn_stepper_step(st, h), CDYN_OK);
  ck_assert_uint_eq(o->calls, before);
  cdyn_stepper_free(st);
  cdyn_stepper_free(st2);
  cdyn_system_free(s);
  cdyn_system_free(s2);
  free(rec);
  free(rec2);
  free(o);
}
END_TEST

/*
 * The observer's failure fails the step with the state, time and
 * multipliers restored: a negative status at the cut (k = 1) or at the
 * start (k = 0) is the step's; a positive value is refused as
 * CDYN_EINVAL.  A scheme that takes its step whole (implicit on a
 * pendulum, contact with events off) reports k = 0 only.  Bad arguments.
 */
START_TEST(test_substep_observer_failure)
{
  recorder *rec = calloc(1, sizeof *rec);
  observer *o = calloc(1, sizeof *o);
  ck_assert(rec && o);
  cdyn_system *s = falling_ball(1.7342, 0, rec);
  cdyn_stepper *st = contact_stepper(s, "iterative", "0.5");
  ck_assert_int_eq(cdyn_stepper_set_substep_observer(st, observe, o), CDYN_OK);
  const long at[3] = {1, 0, 1};
  const int status[3] = {CDYN_EDIVERGED, CDYN_ENOMEM, 7}, want[3] = {CDYN_EDIVERGED, CDYN_ENOMEM, CDYN_EINVAL};
  double q0[3], v0[3];
  memcpy(q0, cdyn_system_positions(s), sizeof q0);
  memcpy(v0, cdyn_system_velocities(s), sizeof v0);
  for (int k = 0; k < 3; k++) {
    o->calls = 0;
    o->fail_at = at[k];
    o->status = status[k];
    ck_assert_int_eq(cdyn_stepper_step(st, 1.0), want[k]);
    ck_assert_uint_eq(o->calls, (size_t)at[k] + 1);
    ck_assert(!memcmp(cdyn_system_positions(s), q0, sizeof q0) && !memcmp(cdyn_system_velocities(s), v0, sizeof v0));
    ck_assert(cdyn_system_time(s) == 0);
  }
  /* Events off: one sub-step, k = 0 only. */
  o->calls = 0;
  o->fail_at = -1;
  ck_assert_int_eq(cdyn_stepper_set(st, "events", "off"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 1.0), CDYN_OK);
  ck_assert_uint_eq(o->calls, 1);
  ck_assert_uint_eq(o->k[0], 0);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
  /* implicit on a pendulum: k = 0 at every step. */
  cdyn_system *p;
  const double joint[1] = {0.3};
  ck_assert_int_eq(tu_chain(&p, 1, 1.0, 1.0, joint), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, p, "implicit"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set_substep_observer(st, observe, o), CDYN_OK);
  o->calls = 0;
  for (int k = 0; k < 10; k++)
    ck_assert_int_eq(cdyn_stepper_step(st, 0.01), CDYN_OK);
  ck_assert_uint_eq(o->calls, 10);
  for (int k = 0; k < 10; k++)
    ck_assert_uint_eq(o->k[k], 0);
  TU_EXPECT_EINVAL(cdyn_stepper_set_substep_observer(NULL, observe, o));
  TU_EXPECT_EINVAL(cdyn_substep_reached(NULL, 0, cdyn_system_positions(p)));
  TU_EXPECT_EINVAL(cdyn_substep_reached(st, 0, NULL));
  cdyn_stepper_free(st);
  cdyn_system_free(p);
  free(rec);
  free(o);
}
END_TEST

/* A chain of `links` links hanging from a pin at the origin (3 + links
   rows), kicked sideways: equality rows only. */
static cdyn_system *hanging_chain(size_t links)
{
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, links + 1), CDYN_OK);
  const double g[3] = {0, -9.81, 0}, o[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  for (size_t i = 0; i <= links; i++) {
    double x[3] = {0, -0.05 * (double)i, 0}, v[3] = {i ? 0.05 : 0, 0, 0.01 * (double)(i % 3)};
    ck_assert_int_eq(cdyn_system_set_position(s, i, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(s, i, v), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(s, i, 1), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_pin(s, 0, o, NULL), CDYN_OK);
  for (size_t i = 0; i < links; i++)
    ck_assert_int_eq(cdyn_system_add_distance(s, i, i + 1, 0.05, NULL), CDYN_OK);
  return s;
}

/* Run the chain `steps` steps of 5 ms with subsolve = `path` (NULL: the
   default); its positions into q (3 (links + 1)) and its
   factorisations. */
static unsigned long chain_run(size_t links, const char *path, int steps, double *q)
{
  cdyn_system *s = hanging_chain(links);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "contact"), CDYN_OK);
  if (path)
    ck_assert_int_eq(cdyn_stepper_set(st, "subsolve", path), CDYN_OK);
  for (int k = 0; k < steps; k++)
    ck_assert_msg(cdyn_stepper_step(st, 0.005) == CDYN_OK, "%zu links, %s, step %d: %s", links,
                  path ? path : "default", k, cdyn_errmsg());
  cdyn_stats stats;
  ck_assert_int_eq(cdyn_stepper_stats(st, &stats), CDYN_OK);
  ck_assert_int_eq(cdyn_system_get_state(s, q, NULL), CDYN_OK);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
  return stats.factorizations;
}

/*
 * subsolve = auto (the default) takes the dense path up to 128 rows in
 * the system and the sparse one above, chosen at each step: 125 links
 * (128 rows) run bitwise as subsolve = dense, with no factorisation
 * counted (the dense path does not count its own); 126 links (129 rows)
 * run bitwise as subsolve = sparse, which counts them.  The two paths differ in their rounding,
 * so the bitwise equalities tell which path ran.
 */
START_TEST(test_subsolve_auto)
{
  cdyn_system *s = hanging_chain(2);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "contact"), CDYN_OK);
  char buf[16];
  ck_assert_int_eq(cdyn_stepper_get(st, "subsolve", buf, sizeof buf), CDYN_OK);
  ck_assert_str_eq(buf, "auto");
  TU_EXPECT_STATUS(cdyn_stepper_set(st, "subsolve", "both"), CDYN_EUNKNOWN);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
  enum { STEPS = 40 };
  static double q[3 * 127], qd[3 * 127], qs[3 * 127];
  for (size_t links = 125; links <= 126; links++) {
    size_t n3 = 3 * (links + 1);
    unsigned long fa = chain_run(links, NULL, STEPS, q);
    unsigned long fd = chain_run(links, "dense", STEPS, qd);
    unsigned long fs = chain_run(links, "sparse", STEPS, qs);
    ck_assert_msg(fd == 0 && fs > 0, "%zu links: dense path %lu, sparse path %lu factorisations", links, fd, fs);
    const double *want = links + 3 <= 128 ? qd : qs, *other = links + 3 <= 128 ? qs : qd;
    ck_assert_msg(fa == (links + 3 <= 128 ? fd : fs), "%zu links: auto counted %lu factorisations", links, fa);
    ck_assert_msg(memcmp(q, want, n3 * sizeof *q) == 0, "%zu links: auto is not bitwise its path", links);
    /* The paths differ, or the bitwise test above could not tell them apart. */
    ck_assert_msg(memcmp(want, other, n3 * sizeof *q) != 0, "%zu links: the two paths ran bitwise the same", links);
  }
  /* Growing past 128 rows within a run, and back: 125 links and a free
     particle below them (128 rows), then the 126th link (129 rows), then
     without it again.  The path changes at the step after each change
     of the set: the run is bitwise one whose subsolve is set to dense,
     sparse and dense again at those changes (setting an option forgets
     the carried sets, which equality rows alone do not have), and only
     its middle phase counts factorisations. */
  cdyn_system *sa = hanging_chain(126), *sb = hanging_chain(126);
  cdyn_stepper *sta, *stb;
  ck_assert_int_eq(cdyn_system_remove_constraint(sa, 126), CDYN_OK); /* the pin is 0, link k is k + 1 */
  ck_assert_int_eq(cdyn_system_remove_constraint(sb, 126), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&sta, sa, "contact"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&stb, sb, "contact"), CDYN_OK);
  static const char *const named[3] = {"dense", "sparse", "dense"};
  unsigned long f[3];
  for (int phase = 0; phase < 3; phase++) {
    cdyn_system *both[2] = {sa, sb};
    for (int k = 0; k < 2; k++) {
      size_t id;
      if (phase == 1) {
        const double *x = cdyn_system_positions(both[k]);
        const double *a = x + 3 * 125, *b = x + 3 * 126;
        double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
        ck_assert_int_eq(cdyn_system_add_distance(both[k], 125, 126, sqrt(dot3(d, d)), &id), CDYN_OK);
        ck_assert_uint_eq(id, 126);
      } else if (phase == 2)
        ck_assert_int_eq(cdyn_system_remove_constraint(both[k], 126), CDYN_OK);
    }
    ck_assert_int_eq(cdyn_stepper_set(stb, "subsolve", named[phase]), CDYN_OK);
    for (int k = 0; k < 20; k++) {
      ck_assert_msg(cdyn_stepper_step(sta, 0.005) == CDYN_OK, "phase %d, step %d: %s", phase, k, cdyn_errmsg());
      ck_assert_msg(cdyn_stepper_step(stb, 0.005) == CDYN_OK, "phase %d, step %d: %s", phase, k, cdyn_errmsg());
    }
    ck_assert_msg(memcmp(cdyn_system_positions(sa), cdyn_system_positions(sb), 3 * 127 * sizeof(double)) == 0,
                  "phase %d: auto is not bitwise the run on the %s path", phase, named[phase]);
    cdyn_stats stats;
    ck_assert_int_eq(cdyn_stepper_stats(sta, &stats), CDYN_OK);
    f[phase] = stats.factorizations;
  }
  ck_assert_msg(f[0] == 0 && f[1] > f[0] && f[2] == f[1], "factorisations by phase: %lu, %lu, %lu", f[0], f[1], f[2]);
  cdyn_stepper_free(sta);
  cdyn_stepper_free(stb);
  cdyn_system_free(sa);
  cdyn_system_free(sb);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("contact");
  TCase *tc = tcase_create("impacts");
  tcase_set_timeout(tc, 60);
  int nalg = (int)cdyn_activeset_count();
  tcase_add_loop_test(tc, test_elastic_head_on, 0, 2 * nalg);
  tcase_add_loop_test(tc, test_inelastic_head_on, 0, 2 * nalg);
  tcase_add_loop_test(tc, test_glancing_elastic, 0, 2);
  suite_add_tcase(s, tc);
  tc = tcase_create("events");
  tcase_add_loop_test(tc, test_event_one_step, 0, 2);
  tcase_add_loop_test(tc, test_event_many_steps, 0, 2);
  tcase_add_test(tc, test_substep_observer);
  tcase_add_test(tc, test_substep_observer_failure);
  suite_add_tcase(s, tc);
  tc = tcase_create("resting");
  tcase_add_loop_test(tc, test_resting_on_tilted_wall, 0, 2);
  tcase_add_loop_test(tc, test_warm_start_resting, 0, 2);
  suite_add_tcase(s, tc);
  tc = tcase_create("errors");
  tcase_add_loop_test(tc, test_bad_input, 0, 2);
  tcase_add_loop_test(tc, test_inconsistent_set, 0, 2);
  suite_add_tcase(s, tc);
  tc = tcase_create("paths");
  tcase_add_test(tc, test_subsolve_auto);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
