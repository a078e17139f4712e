/*
 * tests/test_errors.c: every error path of the public API (cdyn/cdyn.h).
 *
 * Each invalid call must return its documented status code, leave a
 * non-empty message in cdyn_errmsg(), and leave the objects involved as
 * they were.  In particular a step that fails, whether on a bad argument,
 * a stale stepper, a failing or non-finite user force, or a scheme that
 * blows up, must restore the state and time exactly.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "testutil.h"

/*
 * Assert (ck_assert_msg) that `call` returns `code` and explains itself.
 * The message is cleared first, so a message left by an earlier call
 * cannot pass for one.  Tests made only of EXPECT_ERR / EXPECT_OK lines and
 * same() (which asserts the state unchanged) assert through these.
 */
#define EXPECT_ERR(code, call)                                                     \
  do {                                                                             \
    cdyn_error_clear();                                                            \
    int rc_ = (call);                                                              \
    ck_assert_msg(rc_ == (code), "%s returned %d (%s), expected %d (%s)", #call,   \
                  rc_, cdyn_errmsg(), (int)(code), cdyn_strerror(code));           \
    ck_assert_msg(cdyn_errmsg()[0] != '\0', "%s returned %d without a message",    \
                  #call, rc_);                                                     \
  } while (0)

#define EXPECT_OK(call)                                                            \
  do {                                                                             \
    int rc_ = (call);                                                              \
    ck_assert_msg(rc_ == CDYN_OK, "%s returned %d (%s)", #call, rc_,               \
                  cdyn_errmsg());                                                  \
  } while (0)

/* A copy of a system's state, to prove that a failed call left it alone. */
typedef struct {
  size_t n;
  double q[3 * 8], v[3 * 8], t;
} snapshot;

static void take(const cdyn_system *sys, snapshot *s)
{
  s->n = cdyn_system_size(sys);
  ck_assert_uint_le(s->n, 8);
  EXPECT_OK(cdyn_system_get_state(sys, s->q, s->v));
  s->t = cdyn_system_time(sys);
}

/* Exact equality: restoring means copying back, not recomputing. */
static void same(const cdyn_system *sys, const snapshot *s, const char *context)
{
  snapshot now;
  take(sys, &now);
  ck_assert_uint_eq(now.n, s->n);
  for (size_t k = 0; k < 3 * s->n; k++) {
    ck_assert_msg(now.q[k] == s->q[k], "%s: q[%zu] is %.17g, was %.17g", context, k, now.q[k],
                  s->q[k]);
    ck_assert_msg(now.v[k] == s->v[k], "%s: v[%zu] is %.17g, was %.17g", context, k, now.v[k],
                  s->v[k]);
  }
  ck_assert_msg(now.t == s->t, "%s: t is %.17g, was %.17g", context, now.t, s->t);
}

/*
 * A pendulum: particle 0 pinned at the origin, particle 1 of mass 1.5 at
 * (1, 0, 0) on a link of length 1, moving, under gravity.
 */
static cdyn_system *pendulum(void)
{
  const double origin[3] = {0, 0, 0}, x1[3] = {1, 0, 0}, v1[3] = {0, 0.4, 0.1};
  const double g[3] = {0, -9.81, 0};
  cdyn_system *sys = NULL;
  EXPECT_OK(cdyn_system_new(&sys, 2));
  EXPECT_OK(cdyn_system_set_gravity(sys, g));
  EXPECT_OK(cdyn_system_set_position(sys, 1, x1));
  EXPECT_OK(cdyn_system_set_velocity(sys, 1, v1));
  EXPECT_OK(cdyn_system_set_mass(sys, 1, 1.5));
  EXPECT_OK(cdyn_system_add_pin(sys, 0, origin, NULL));
  EXPECT_OK(cdyn_system_add_distance(sys, 0, 1, 1.0, NULL));
  return sys;
}

/* The same pendulum with a stiff spring for its link (what a pins-only
   scheme such as baraff-witkin accepts). */
static cdyn_system *spring_pendulum(void)
{
  const double origin[3] = {0, 0, 0}, x1[3] = {1, 0, 0};
  const double g[3] = {0, -9.81, 0};
  cdyn_system *sys = NULL;
  EXPECT_OK(cdyn_system_new(&sys, 2));
  EXPECT_OK(cdyn_system_set_gravity(sys, g));
  EXPECT_OK(cdyn_system_set_position(sys, 1, x1));
  EXPECT_OK(cdyn_system_set_mass(sys, 1, 1.5));
  EXPECT_OK(cdyn_system_add_pin(sys, 0, origin, NULL));
  EXPECT_OK(cdyn_system_add_spring(sys, 0, 1, 1e4, 0.0, 1.0, NULL));
  return sys;
}

/* ---- system -------------------------------------------------------------------- */

START_TEST(test_system_new_errors)
{
  cdyn_system *sys = (cdyn_system *)&sys; /* any non-NULL value */
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_new(&sys, 0));
  ck_assert_ptr_null(sys);
  /* Sizes whose arrays overflow size_t are refused, not wrapped. */
  sys = (cdyn_system *)&sys;
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_new(&sys, SIZE_MAX));
  ck_assert_ptr_null(sys);
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_new(&sys, SIZE_MAX / 24 + 1));
  EXPECT_OK(cdyn_system_new(&sys, 2));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_reserve(sys, SIZE_MAX, 1, 1));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_reserve(sys, 1, SIZE_MAX / 2, 1));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_reserve(sys, 1, 1, (size_t)1 << 62));
  cdyn_system_free(sys);
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_new(NULL, 3));
  /* NULL is accepted by the destructors, as by free(). */
  cdyn_system_free(NULL);
  cdyn_stepper_free(NULL);
}
END_TEST

START_TEST(test_mass_errors)
{
  cdyn_system *sys = NULL;
  EXPECT_OK(cdyn_system_new(&sys, 3));
  EXPECT_OK(cdyn_system_set_mass(sys, 1, 2.5));
  const double bad[] = {0.0, -0.0, -1.0, NAN, INFINITY, -INFINITY};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_mass(sys, 1, bad[k]));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_mass(sys, 3, 1.0));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_mass(sys, (size_t)-1, 1.0));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_mass(NULL, 0, 1.0));
  double m = 0;
  EXPECT_OK(cdyn_system_get_particle(sys, 1, &m, NULL, NULL));
  ck_assert_double_eq(m, 2.5);
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_get_particle(sys, 3, &m, NULL, NULL));
  cdyn_system_free(sys);
}
END_TEST

START_TEST(test_position_velocity_errors)
{
  cdyn_system *sys = NULL;
  EXPECT_OK(cdyn_system_new(&sys, 3));
  const double good[3] = {0.1, 0.2, 0.3};
  EXPECT_OK(cdyn_system_set_position(sys, 2, good));
  EXPECT_OK(cdyn_system_set_velocity(sys, 2, good));
  snapshot before;
  take(sys, &before);
  const double bad[][3] = {{NAN, 0, 0}, {0, INFINITY, 0}, {0, 0, -INFINITY}, {0, NAN, NAN}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_position(sys, 2, bad[k]));
    EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_velocity(sys, 2, bad[k]));
  }
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_position(sys, 2, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_velocity(sys, 2, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_position(sys, 3, good));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_velocity(sys, 3, good));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_time(sys, NAN));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_time(sys, INFINITY));
  const double gbad[3] = {0, NAN, 0};
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_gravity(sys, gbad));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_gravity(sys, NULL));
  same(sys, &before, "rejected set_position/velocity/time");
  /* Spelled out for the particle every rejected call aimed at: it still
     holds the values set before them, exactly. */
  const double *x = cdyn_system_positions(sys), *u = cdyn_system_velocities(sys);
  for (int c = 0; c < 3; c++) {
    ck_assert_msg(x[6 + c] == good[c], "particle 2: x[%d] = %g after rejected calls, not %g", c, x[6 + c], good[c]);
    ck_assert_msg(u[6 + c] == good[c], "particle 2: v[%d] = %g after rejected calls, not %g", c, u[6 + c], good[c]);
  }
  ck_assert_msg(cdyn_system_time(sys) == 0, "time %g after rejected set_time", cdyn_system_time(sys));
  cdyn_system_free(sys);
}
END_TEST

START_TEST(test_set_state_nonfinite)
{
  cdyn_system *sys = NULL;
  EXPECT_OK(cdyn_system_new(&sys, 2));
  double q[6] = {1, 2, 3, 4, 5, 6}, v[6] = {-1, -2, -3, -4, -5, -6};
  EXPECT_OK(cdyn_system_set_state(sys, q, v));
  snapshot before;
  take(sys, &before);
  double qb[6], vb[6];
  memcpy(qb, q, sizeof q);
  memcpy(vb, v, sizeof v);
  qb[4] = NAN;
  EXPECT_ERR(CDYN_ENONFINITE, cdyn_system_set_state(sys, qb, v));
  EXPECT_ERR(CDYN_ENONFINITE, cdyn_system_set_state(sys, qb, NULL));
  vb[0] = INFINITY;
  EXPECT_ERR(CDYN_ENONFINITE, cdyn_system_set_state(sys, q, vb));
  EXPECT_ERR(CDYN_ENONFINITE, cdyn_system_set_state(sys, NULL, vb));
  /* A valid q with an invalid v must not be half applied. */
  double q2[6] = {7, 7, 7, 7, 7, 7};
  EXPECT_ERR(CDYN_ENONFINITE, cdyn_system_set_state(sys, q2, vb));
  same(sys, &before, "rejected set_state");
  /* Spelled out: the state is still the (q, v) set first, every entry
     finite and exact, none of q2's 7s applied. */
  const double *x = cdyn_system_positions(sys), *u = cdyn_system_velocities(sys);
  for (int k = 0; k < 6; k++)
    ck_assert_msg(x[k] == q[k] && u[k] == v[k], "entry %d: q %g, v %g after rejected set_state, not %g, %g", k, x[k],
                  u[k], q[k], v[k]);
  cdyn_system_free(sys);
}
END_TEST

START_TEST(test_constraint_errors)
{
  cdyn_system *sys = NULL;
  EXPECT_OK(cdyn_system_new(&sys, 3));
  const double p[3] = {0, 1, 0}, pbad[3] = {0, NAN, 0}, zero[3] = {0, 0, 0};
  /* Links: a particle to itself, non-positive or non-finite lengths. */
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_distance(sys, 1, 1, 1.0, NULL));
  const double badL[] = {0.0, -0.0, -1.0, NAN, INFINITY};
  for (size_t k = 0; k < sizeof badL / sizeof badL[0]; k++)
    EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_distance(sys, 0, 1, badL[k], NULL));
  /* Particle indices out of range. */
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_distance(sys, 0, 3, 1.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_distance(sys, 7, 0, 1.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_pin(sys, 3, p, NULL));
  /* Pins with missing or non-finite data. */
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_pin(sys, 0, pbad, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_pin(sys, 0, NULL, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_moving_pin(sys, 0, p, NULL, zero, 1.0, 0.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_moving_pin(sys, 0, p, zero, NULL, 1.0, 0.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_moving_pin(sys, 0, p, zero, zero, NAN, 0.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_moving_pin(sys, 0, p, zero, zero, 1.0, INFINITY, NULL));
  /* By name, and by type object with missing arguments. */
  const size_t two[2] = {0, 1}, same_twice[2] = {2, 2}, out_of_range[2] = {0, 3};
  const double L = 1.0;
  EXPECT_ERR(CDYN_EUNKNOWN, cdyn_system_add_constraint_named(sys, "no-such-type", two, &L, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_constraint_named(sys, NULL, two, &L, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_constraint_named(sys, "distance", same_twice, &L, NULL));
  EXPECT_ERR(CDYN_EINVAL,
             cdyn_system_add_constraint_named(sys, "distance", out_of_range, &L, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_constraint(sys, NULL, two, &L, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_constraint(sys, cdyn_constraint_distance, NULL, &L, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_constraint(sys, cdyn_constraint_distance, two, NULL, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_distance(NULL, 0, 1, 1.0, NULL));
  const cdyn_constraint_type *type = (const cdyn_constraint_type *)&type;
  EXPECT_ERR(CDYN_EUNKNOWN, cdyn_constraint_type_find("no-such-type", &type));
  /* None of the rejected constraints was added. */
  ck_assert_uint_eq(cdyn_system_constraint_count(sys), 0);
  ck_assert_uint_eq(cdyn_system_row_count(sys), 0);
  /* Measurements with nowhere to put the result. */
  EXPECT_OK(cdyn_system_add_distance(sys, 0, 1, 1.0, NULL));
  double x1[3] = {1, 0, 0};
  EXPECT_OK(cdyn_system_set_position(sys, 1, x1));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_constraint_error(sys, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_constraint_values(sys, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_momentum(sys, NULL));
  cdyn_system_free(sys);
}
END_TEST

START_TEST(test_spring_errors)
{
  cdyn_system *sys = NULL;
  EXPECT_OK(cdyn_system_new(&sys, 3));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_spring(sys, 1, 1, 10.0, 0.1, 1.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_spring(sys, 0, 1, -1.0, 0.1, 1.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_spring(sys, 0, 1, NAN, 0.1, 1.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_spring(sys, 0, 1, INFINITY, 0.1, 1.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_spring(sys, 0, 1, 10.0, -0.1, 1.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_spring(sys, 0, 1, 10.0, NAN, 1.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_spring(sys, 0, 1, 10.0, 0.1, 0.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_spring(sys, 0, 1, 10.0, 0.1, -1.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_spring(sys, 0, 1, 10.0, 0.1, NAN, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_add_spring(sys, 0, 3, 10.0, 0.1, 1.0, NULL));
  ck_assert_uint_eq(cdyn_system_spring_count(sys), 0);
  /* k = 0 and c = 0 are allowed: a spring may be switched off. */
  EXPECT_OK(cdyn_system_add_spring(sys, 0, 1, 0.0, 0.0, 1.0, NULL));
  ck_assert_uint_eq(cdyn_system_spring_count(sys), 1);
  cdyn_system_free(sys);
}
END_TEST

/* ---- stepper construction and options ------------------------------------------------ */

START_TEST(test_stepper_new_errors)
{
  cdyn_system *sys = pendulum();
  cdyn_stepper *st = (cdyn_stepper *)&st; /* any non-NULL value */
  EXPECT_ERR(CDYN_EUNKNOWN, cdyn_stepper_new(&st, sys, "no-such-scheme"));
  ck_assert_ptr_null(st);
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_new(&st, NULL, "implicit"));
  ck_assert_ptr_null(st);
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_new(&st, sys, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_new(NULL, sys, "implicit"));
  size_t idx;
  EXPECT_ERR(CDYN_EUNKNOWN, cdyn_scheme_find("no-such-scheme", &idx));
  cdyn_system_free(sys);
}
END_TEST

START_TEST(test_option_errors)
{
  cdyn_system *sys = pendulum();
  char buf[64];
  for (size_t i = 0; i < tu_scheme_count(); i++) {
    const char *scheme = tu_scheme_name(i);
    cdyn_stepper *st = NULL;
    EXPECT_OK(cdyn_stepper_new(&st, sys, scheme));
    EXPECT_OK(cdyn_stepper_get(st, "solver", buf, sizeof buf));
    char solver[64];
    strcpy(solver, buf);
    EXPECT_ERR(CDYN_EUNKNOWN, cdyn_stepper_set(st, "solver", "no-such-solver"));
    EXPECT_OK(cdyn_stepper_get(st, "solver", buf, sizeof buf));
    ck_assert_str_eq(buf, solver);
    EXPECT_ERR(CDYN_EUNKNOWN, cdyn_stepper_set(st, "no-such-option", "1"));
    EXPECT_ERR(CDYN_EUNKNOWN, cdyn_stepper_get(st, "no-such-option", buf, sizeof buf));
    EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(st, NULL, "1"));
    EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(st, "pcg_tol", NULL));
    EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(NULL, "pcg_tol", "1e-10"));
    /* The options every stepper has, out of range or not numbers. */
    const char *const bad_tol[] = {"0", "-1e-10", "2", "abc", "", "1e-10x", "nan", "inf", "1e400"};
    for (size_t k = 0; k < sizeof bad_tol / sizeof bad_tol[0]; k++)
      EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(st, "pcg_tol", bad_tol[k]));
    EXPECT_OK(cdyn_stepper_get(st, "pcg_tol", buf, sizeof buf));
    ck_assert_double_eq(strtod(buf, NULL), 1e-12);
    EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(st, "rank_tol", "-1"));
    EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(st, "rank_tol", "1.5"));
    EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(st, "pcg_maxiter", "1.5"));
    EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(st, "pcg_maxiter", "-1"));
    EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(st, "pcg_maxiter", "ten"));
    cdyn_stepper_free(st);
  }

  /* A scheme's own options. */
  cdyn_stepper *st = NULL;
  EXPECT_OK(cdyn_stepper_new(&st, sys, "baumgarte"));
  EXPECT_OK(cdyn_stepper_set(st, "alpha", "3.5"));
  const char *const bad_alpha[] = {"abc", "-1", "nan", "-inf", "1e400", "", "2 3"};
  for (size_t k = 0; k < sizeof bad_alpha / sizeof bad_alpha[0]; k++)
    EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(st, "alpha", bad_alpha[k]));
  EXPECT_OK(cdyn_stepper_get(st, "alpha", buf, sizeof buf));
  ck_assert_double_eq(strtod(buf, NULL), 3.5);
  EXPECT_ERR(CDYN_EUNKNOWN, cdyn_stepper_set(st, "integrator", "no-such-integrator"));
  EXPECT_OK(cdyn_stepper_get(st, "integrator", buf, sizeof buf));
  ck_assert_str_eq(buf, "symplectic-euler");
  cdyn_stepper_free(st);
  EXPECT_OK(cdyn_stepper_new(&st, sys, "poststab"));
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(st, "project_velocity", "maybe"));
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(st, "iterations", "0"));
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(st, "iterations", "2.5"));
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * The options of a scheme type (cdyn_scheme_option) are those of a
 * stepper of it, in the same order, with the docs the stepper gives and
 * the defaults a fresh stepper holds (formatted as the stepper formats
 * them once parsed).
 */
START_TEST(test_scheme_options_by_type)
{
  cdyn_system *sys = pendulum(), *springy = spring_pendulum();
  for (size_t i = 0; i < cdyn_scheme_count(); i++) {
    /* A pins-only scheme gets the pendulum with a spring for a link, and
       must refuse the one with the link. */
    int po = cdyn_scheme_pins_only(i);
    cdyn_system *own = po ? springy : sys;
    cdyn_stepper *st = NULL, *probe = NULL;
    EXPECT_OK(cdyn_stepper_new(&st, own, cdyn_scheme_name(i)));
    ck_assert_uint_eq(cdyn_scheme_option_count(i), cdyn_stepper_option_count(st));
    for (size_t k = 0; k < cdyn_scheme_option_count(i); k++) {
      const char *name, *def, *doc;
      EXPECT_OK(cdyn_scheme_option(i, k, &name, &def, &doc));
      ck_assert_str_eq(name, cdyn_stepper_option_name(st, k));
      ck_assert_str_eq(doc, cdyn_stepper_option_doc(st, k));
      /* Setting the default on a second stepper gives the first's value. */
      char a[128], b[128];
      EXPECT_OK(cdyn_stepper_new(&probe, own, cdyn_scheme_name(i)));
      EXPECT_OK(cdyn_stepper_set(probe, name, def));
      EXPECT_OK(cdyn_stepper_get(probe, name, a, sizeof a));
      EXPECT_OK(cdyn_stepper_get(st, name, b, sizeof b));
      ck_assert_str_eq(a, b);
      cdyn_stepper_free(probe);
      EXPECT_OK(cdyn_scheme_option(i, k, NULL, NULL, NULL));
    }
    EXPECT_ERR(CDYN_EINVAL, cdyn_scheme_option(i, cdyn_scheme_option_count(i), NULL, NULL, NULL));
    cdyn_stepper_free(st);
    if (po) {
      cdyn_stepper *bad = NULL;
      EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_new(&bad, sys, cdyn_scheme_name(i)));
      ck_assert_ptr_null(bad);
    }
    /* The flag says whether a stepper accepts a system with a wall (a
       pins-only scheme: with the spring for a link). */
    cdyn_system *walled = po ? spring_pendulum() : pendulum();
    const double p[3] = {0, -5, 0}, nrm[3] = {0, 1, 0};
    EXPECT_OK(cdyn_system_add_wall(walled, 1, p, nrm, NULL));
    int rc = cdyn_stepper_new(&st, walled, cdyn_scheme_name(i));
    ck_assert_int_eq(cdyn_scheme_inequalities(i), rc == CDYN_OK);
    if (rc == CDYN_OK)
      cdyn_stepper_free(st);
    else
      ck_assert_int_eq(rc, CDYN_EINVAL);
    cdyn_system_free(walled);
  }
  EXPECT_ERR(CDYN_EINVAL, cdyn_scheme_option(cdyn_scheme_count(), 0, NULL, NULL, NULL));
  ck_assert_uint_eq(cdyn_scheme_option_count(cdyn_scheme_count()), 0);
  ck_assert_int_eq(cdyn_scheme_inequalities(cdyn_scheme_count()), 0);
  cdyn_system_free(sys);
  cdyn_system_free(springy);
}
END_TEST

/* ---- step ------------------------------------------------------------------------------ */

/* Every scheme rejects a step size that is not finite and > 0, untouched. */
START_TEST(test_step_size_errors)
{
  const double bad[] = {0.0, -0.0, -0.1, -1e-300, NAN, INFINITY, -INFINITY};
  for (size_t i = 0; i < tu_scheme_count(); i++) {
    cdyn_system *sys = pendulum();
    cdyn_stepper *st = NULL;
    EXPECT_OK(cdyn_stepper_new(&st, sys, tu_scheme_name(i)));
    snapshot before;
    take(sys, &before);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
      EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_step(st, bad[k]));
    same(sys, &before, cdyn_scheme_name(i));
    cdyn_stats stats;
    EXPECT_OK(cdyn_stepper_stats(st, &stats));
    ck_assert_uint_eq(stats.steps, 0);
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_step(NULL, 0.01));
}
END_TEST

/*
 * A stepper follows constraints and springs added after it was built: its
 * next step is bitwise the step of a stepper built afresh on the changed
 * system from the same state.  A set the scheme cannot enforce (an
 * inequality under an equality-only scheme) fails that step with
 * CDYN_EINVAL and leaves the state alone.
 */
static void step_both(cdyn_system *sys, cdyn_stepper *st, const char *scheme, const char *what)
{
  snapshot before, after;
  take(sys, &before);
  EXPECT_OK(cdyn_stepper_step(st, 0.01));
  take(sys, &after);
  EXPECT_OK(cdyn_system_set_state(sys, before.q, before.v));
  EXPECT_OK(cdyn_system_set_time(sys, before.t));
  cdyn_stepper *fresh = NULL;
  EXPECT_OK(cdyn_stepper_new(&fresh, sys, scheme));
  EXPECT_OK(cdyn_stepper_step(fresh, 0.01));
  same(sys, &after, what);
  cdyn_stepper_free(fresh);
}

START_TEST(test_stepper_follows)
{
  cdyn_system *sys = pendulum();
  cdyn_stepper *st = NULL;
  EXPECT_OK(cdyn_stepper_new(&st, sys, "implicit"));
  EXPECT_OK(cdyn_stepper_step(st, 0.01));
  const double x[3] = {0.2, 0.1, 0}, n[3] = {0, 1, 0};
  EXPECT_OK(cdyn_system_add_pin(sys, 1, x, NULL));
  step_both(sys, st, "implicit", "a pin added after the build");
  cdyn_stepper_free(st);

  EXPECT_OK(cdyn_stepper_new(&st, sys, "baumgarte"));
  EXPECT_OK(cdyn_system_add_spring(sys, 0, 1, 5.0, 0.0, 1.0, NULL));
  step_both(sys, st, "baumgarte", "a spring added after the build");

  /* An inequality row: baumgarte cannot enforce it. */
  size_t w;
  EXPECT_OK(cdyn_system_add_wall(sys, 1, x, n, &w));
  snapshot before;
  take(sys, &before);
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_step(st, 0.01));
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "contact"));
  same(sys, &before, "an equality-only scheme meeting an inequality row");
  /* Removing it makes the set enforceable again. */
  EXPECT_OK(cdyn_system_remove_constraint(sys, w));
  ck_assert_int_ge(cdyn_stepper_step(st, 0.01), 0);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/* The calls that change a constraint set reject bad ids and arguments. */
START_TEST(test_set_change_errors)
{
  cdyn_system *sys = pendulum(); /* constraints 0 (pin) and 1 (link) */
  size_t nc = cdyn_system_constraint_count(sys), id, row;
  int on;
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_enable_constraint(NULL, 0, 1));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_enable_constraint(sys, nc, 1));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_constraint_enabled(sys, 0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_constraint_enabled(sys, nc, &on));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_remove_constraint(sys, nc));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_constraint_row(sys, nc, &row));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_constraint_row(sys, 0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_reserve(NULL, 1, 1, 1));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_reserve(sys, (size_t)1 << 41, 0, 0));
  /* A removed id: every call naming it fails, until an add reuses it. */
  EXPECT_OK(cdyn_system_remove_constraint(sys, 1));
  ck_assert_uint_eq(cdyn_system_live_constraints(sys), 1);
  ck_assert_uint_eq(cdyn_system_row_count(sys), 3);
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_remove_constraint(sys, 1));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_enable_constraint(sys, 1, 1));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_get_constraint(sys, 1, NULL, NULL, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_inequality(sys, 1, 1));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_is_inequality(sys, 1, &on));
  EXPECT_OK(cdyn_system_add_distance(sys, 0, 1, 1.0, &id));
  ck_assert_uint_eq(id, 1);
  /* A switched-off constraint has no row. */
  EXPECT_OK(cdyn_system_enable_constraint(sys, 0, 0));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_constraint_row(sys, 0, &row));
  EXPECT_OK(cdyn_system_constraint_row(sys, 1, &row));
  ck_assert_uint_eq(row, 0);
  /* Springs: out of range, not a spring's constraint, twice a constraint. */
  size_t k;
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_enable_spring(sys, 0, 1));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_spring_enabled(sys, 0, &on));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_spring_to_constraint(sys, 0, 1.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_constraint_to_spring(sys, 1, NULL));
  EXPECT_OK(cdyn_system_add_spring(sys, 0, 1, 5.0, 0.0, 1.0, &k));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_spring_to_constraint(sys, k, 0.0, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_spring_to_constraint(sys, k, NAN, NULL));
  EXPECT_OK(cdyn_system_spring_to_constraint(sys, k, 1.0, &id));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_spring_to_constraint(sys, k, 1.0, NULL));
  EXPECT_OK(cdyn_system_spring_enabled(sys, k, &on));
  ck_assert_int_eq(on, 0);
  EXPECT_OK(cdyn_system_constraint_to_spring(sys, id, &k));
  EXPECT_OK(cdyn_system_spring_enabled(sys, k, &on));
  ck_assert_int_eq(on, 1);
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_constraint_to_spring(sys, id, NULL));
  /* The stepper's per-constraint multipliers. */
  cdyn_stepper *st = NULL;
  double lam[CDYN_MAX_ROWS];
  EXPECT_OK(cdyn_stepper_new(&st, sys, "implicit"));
  ck_assert_int_ge(cdyn_stepper_step(st, 0.01), 0);
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_constraint_multipliers(st, 0, lam, NULL)); /* switched off */
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_constraint_multipliers(st, 99, lam, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_constraint_multipliers(st, 1, NULL, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_constraint_multipliers(NULL, 1, lam, NULL));
  size_t rows = 0;
  EXPECT_OK(cdyn_stepper_constraint_multipliers(st, 1, lam, &rows));
  ck_assert_uint_eq(rows, 1);
  ck_assert_uint_eq(cdyn_stepper_rows(st), 1);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * A user force that succeeds on its first `ok_calls` calls, then either
 * reports failure or writes NaN.  Failing on a later call of a step (a
 * later RK4 stage) proves that a half-done step is undone too.
 */
typedef struct {
  unsigned long calls, ok_calls;
  int nan; /* fail by producing NaN rather than by returning non-zero */
} force_ctx;

static int flaky_force(void *ctx, size_t n, double t, const double *q, const double *v,
                       double *f)
{
  (void)t;
  (void)q;
  (void)v;
  force_ctx *c = ctx;
  if (c->calls++ < c->ok_calls) {
    f[3 * (n - 1)] += 0.3; /* a small horizontal push on the last particle */
    return 0;
  }
  if (c->nan) {
    f[3 * (n - 1) + 1] = NAN;
    return 0;
  }
  return 42;
}

static void check_force_failure(int nan, int expected)
{
  for (size_t i = 0; i < tu_scheme_count(); i++)
    for (unsigned long ok_calls = 0; ok_calls < 4; ok_calls++) {
      const char *scheme = tu_scheme_name(i);
      cdyn_system *sys = pendulum();
      force_ctx ctx = {0, ok_calls, nan};
      EXPECT_OK(cdyn_system_set_force_callback(sys, flaky_force, &ctx));
      cdyn_stepper *st = NULL;
      EXPECT_OK(cdyn_stepper_new(&st, sys, scheme));
      int failed = 0;
      for (int step = 0; step < 10 && !failed; step++) {
        snapshot before;
        take(sys, &before);
        cdyn_error_clear();
        int rc = cdyn_stepper_step(st, 0.01);
        if (rc < 0) {
          ck_assert_msg(rc == expected, "%s, failing after %lu calls: %d (%s), expected %d", scheme,
                        ok_calls, rc, cdyn_errmsg(), expected);
          ck_assert_str_ne(cdyn_errmsg(), "");
          same(sys, &before, scheme);
          failed = 1;
        }
      }
      ck_assert_msg(failed, "%s: the force failed but no step reported it", scheme);
      cdyn_stepper_free(st);
      cdyn_system_free(sys);
    }
}

START_TEST(test_callback_failure_restores)
{
  check_force_failure(0, CDYN_ECALLBACK);
}
END_TEST

START_TEST(test_nonfinite_force_restores)
{
  check_force_failure(1, CDYN_ENONFINITE);
}
END_TEST

/*
 * Baumgarte feedback far too stiff for the step (alpha = beta = 1e6,
 * h = 0.1: the constraint error is multiplied by about h^2 beta^2 = 1e10
 * per step) must end in a non-finite state, which the step reports as
 * CDYN_ENONFINITE, leaving the last finite state in place.  At that
 * growth rate the state overflows within a few dozen steps; 200 is ample.
 */
START_TEST(test_blowup_restores_last_finite)
{
  cdyn_system *sys = pendulum();
  cdyn_stepper *st = NULL;
  EXPECT_OK(cdyn_stepper_new(&st, sys, "baumgarte"));
  EXPECT_OK(cdyn_stepper_set(st, "alpha", "1e6"));
  EXPECT_OK(cdyn_stepper_set(st, "beta", "1e6"));
  int rc = CDYN_OK, steps = 0;
  snapshot before;
  while (steps < 200) {
    take(sys, &before);
    cdyn_error_clear();
    rc = cdyn_stepper_step(st, 0.1);
    if (rc < 0)
      break;
    steps++;
  }
  ck_assert_msg(rc < 0, "200 steps with alpha = beta = 1e6, h = 0.1 stayed finite");
  ck_assert_msg(rc == CDYN_ENONFINITE, "blow-up after %d steps reported as %d (%s), expected %d",
                steps, rc, cdyn_errmsg(), CDYN_ENONFINITE);
  ck_assert_str_ne(cdyn_errmsg(), "");
  same(sys, &before, "blow-up");
  for (size_t k = 0; k < 6; k++)
    ck_assert(isfinite(before.q[k]) && isfinite(before.v[k]));
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * The failures above are all detected before a scheme writes the state.
 * Here the force is finite (1.5e308) but W F = 3e308 overflows for the
 * particle of mass 0.5, so the scheme itself writes infinite or NaN
 * velocities and positions, and only the stepper's check of the result
 * catches it: the state must then be copied back, not merely left alone.
 */
static int huge_force(void *ctx, size_t n, double t, const double *q, const double *v,
                      double *f)
{
  (void)ctx;
  (void)t;
  (void)q;
  (void)v;
  f[3 * (n - 1)] += 1.5e308;
  return 0;
}

START_TEST(test_overflow_in_update_restores)
{
  for (size_t i = 0; i < tu_scheme_count(); i++) {
    const char *scheme = tu_scheme_name(i);
    cdyn_system *sys = pendulum();
    EXPECT_OK(cdyn_system_set_mass(sys, 1, 0.5));
    EXPECT_OK(cdyn_system_set_force_callback(sys, huge_force, NULL));
    cdyn_stepper *st = NULL;
    EXPECT_OK(cdyn_stepper_new(&st, sys, scheme));
    snapshot before;
    take(sys, &before);
    cdyn_error_clear();
    int rc = cdyn_stepper_step(st, 0.01);
    ck_assert_msg(rc == CDYN_ENONFINITE, "%s: overflowing update returned %d (%s), expected %d",
                  scheme, rc, cdyn_errmsg(), CDYN_ENONFINITE);
    ck_assert_str_ne(cdyn_errmsg(), "");
    same(sys, &before, scheme);
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
}
END_TEST

/* Queries with nowhere to write. */
START_TEST(test_query_errors)
{
  cdyn_system *sys = pendulum();
  cdyn_stepper *st = NULL;
  EXPECT_OK(cdyn_stepper_new(&st, sys, "implicit"));
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_multipliers(st, NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_stats(st, NULL));
  char buf[4];
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_get(st, "solver", buf, 0));
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_get(st, "solver", buf, sizeof buf));
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_reset(NULL));
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_reset_stats(NULL));
  /* The failed queries changed nothing: the stepper still answers and
     steps, its counters are untouched, and a large enough buffer gets the
     whole value ("auto(cholesky)" for a 4-row pendulum). */
  char big[64];
  EXPECT_OK(cdyn_stepper_get(st, "solver", big, sizeof big));
  ck_assert_str_eq(big, "auto(cholesky)");
  cdyn_stats stats;
  EXPECT_OK(cdyn_stepper_stats(st, &stats));
  ck_assert_uint_eq(stats.steps, 0);
  EXPECT_OK(cdyn_stepper_step(st, 0.01));
  double lambda[4];
  EXPECT_OK(cdyn_stepper_multipliers(st, lambda));
  /* Exact at this state (001 eq 16, A lambda = Phi/h^2 + J (v/h + W F)):
     Phi = 0, the bob moves across the link and gravity is across it too,
     so the link row's right-hand side is 0; the pin rows (0-2, on particle
     0 of mass 1 at rest) have right-hand side g = (0, -9.81, 0), and the
     pin's y row is uncoupled from the link (along x).  Solving the 4 x 4
     system gives lambda = (0, -9.81, 0, 0): the pin holds particle 0's
     weight, M qdd + J^T lambda = F with qdd = 0. */
  const double expect[4] = {0, -9.81, 0, 0};
  for (int r = 0; r < 4; r++)
    ck_assert_msg(fabs(lambda[r] - expect[r]) <= 1e-12, "lambda[%d] = %.17g, expected %g", r, lambda[r],
                  expect[r]);
  EXPECT_OK(cdyn_stepper_stats(st, &stats));
  ck_assert_uint_eq(stats.steps, 1);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/* Every status has its own non-empty description, and so has any other number. */
START_TEST(test_strerror)
{
  const int codes[] = {CDYN_OK,        CDYN_NOCONV,    CDYN_EINVAL,      CDYN_ENOMEM,
                       CDYN_ENONFINITE, CDYN_EUNKNOWN, CDYN_EDEGENERATE, CDYN_ESTALE,
                       CDYN_ECALLBACK, CDYN_EIO,       CDYN_ESOLVE,      CDYN_EDIVERGED,
                       CDYN_EINFEASIBLE, CDYN_EUNVERIFIED};
  const size_t ncodes = sizeof codes / sizeof codes[0];
  for (size_t a = 0; a < ncodes; a++) {
    const char *s = cdyn_strerror(codes[a]);
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(s[0] != '\0', "cdyn_strerror(%d) is empty", codes[a]);
    for (size_t b = 0; b < a; b++)
      ck_assert_msg(strcmp(s, cdyn_strerror(codes[b])) != 0,
                    "cdyn_strerror(%d) and cdyn_strerror(%d) are both \"%s\"", codes[a], codes[b], s);
  }
  ck_assert_str_ne(cdyn_strerror(12345), "");
  ck_assert_str_ne(cdyn_strerror(-12345), "");
  /* The message channel itself. */
  ck_assert_int_eq(cdyn_error(CDYN_EIO, "test message %d", 7), CDYN_EIO);
  ck_assert_str_eq(cdyn_errmsg(), "test message 7");
  cdyn_error_clear();
  ck_assert_str_eq(cdyn_errmsg(), "");
}
END_TEST

/* ---- a success status means a usable result ------------------------------------------ */

/*
 * XPBD reports lambda = -sum(dlambda) / h^2: a pin that moves by 1e300 m
 * and a tiny step overflow it while the positions stay finite.  The step
 * must fail, with the state and the previous multipliers restored.
 */
START_TEST(test_nonfinite_multiplier_fails)
{
  cdyn_system *sys = NULL;
  const double p0[3] = {0, 0, 0}, u[3] = {0, 0, 0}, a[3] = {1e300, 0, 0};
  EXPECT_OK(cdyn_system_new(&sys, 1));
  EXPECT_OK(cdyn_system_add_moving_pin(sys, 0, p0, u, a, 1.0, 0.0, NULL));
  cdyn_stepper *st = NULL;
  EXPECT_OK(cdyn_stepper_new(&st, sys, "xpbd"));
  double q0[3], v0[3], q1[3], v1[3], l0[3] = {1, 2, 3}, l1[3];
  EXPECT_OK(cdyn_system_get_state(sys, q0, v0));
  EXPECT_OK(cdyn_stepper_multipliers(st, l0));
  int rc = cdyn_stepper_step(st, 1e-10);
  ck_assert_msg(rc == CDYN_ENONFINITE, "xpbd with an overflowing multiplier returned %d (%s)", rc, cdyn_errmsg());
  ck_assert_msg(strstr(cdyn_errmsg(), "multipliers") != NULL, "message: %s", cdyn_errmsg());
  EXPECT_OK(cdyn_system_get_state(sys, q1, v1));
  EXPECT_OK(cdyn_stepper_multipliers(st, l1));
  ck_assert(!memcmp(q0, q1, sizeof q0) && !memcmp(v0, v1, sizeof v0) && !memcmp(l0, l1, sizeof l0));
  ck_assert_double_eq(cdyn_system_time(sys), 0.0);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * The relative tolerance's range, [2^-52, 1e-3]: a subnormal one (the
 * call fuzzing found: UBSan saw ilogb(0) = INT_MIN overflow a signed sum
 * in the scale test), zero, one below the unit roundoff and one above
 * 1e-3 are refused by every algorithm, naming rel_tol; both ends are
 * accepted.
 */
START_TEST(test_activeset_tolerance_range)
{
  const double A[1] = {2.375}, b[1] = {-2.1642079695524798e-243};
  static const double refused[] = {1.4005173080440274e-312, 4.9e-324, 0.0, 1e-17, 2e-3};
  double mu[1], w[1];
  for (size_t k = 0; k < cdyn_activeset_count(); k++) {
    for (size_t t = 0; t < sizeof refused / sizeof refused[0]; t++) {
      int rc = cdyn_activeset_solve(cdyn_activeset_name(k), 1, A, b, NULL, NULL, refused[t], mu, w, NULL, NULL);
      ck_assert_msg(rc == CDYN_EINVAL && strstr(cdyn_errmsg(), "rel_tol"), "%s at rel_tol = %g: %d (%s)",
                    cdyn_activeset_name(k), refused[t], rc, cdyn_errmsg());
    }
    const double B[1] = {2.375}, c[1] = {-1.0};
    EXPECT_OK(cdyn_activeset_solve(cdyn_activeset_name(k), 1, B, c, NULL, NULL, DBL_EPSILON, mu, w, NULL, NULL));
    ck_assert_msg(fabs(mu[0] - 1.0 / 2.375) <= 4 * DBL_EPSILON, "%s: mu %.17g", cdyn_activeset_name(k), mu[0]);
    EXPECT_OK(cdyn_activeset_solve(cdyn_activeset_name(k), 1, B, c, NULL, NULL, 1e-3, mu, w, NULL, NULL));
  }
}
END_TEST

/* A finite but indefinite A with entries near 1e300: refused, not solved
   into w = -inf with a success status, by every algorithm. */
START_TEST(test_activeset_indefinite)
{
  const double A[4] = {1e300, -1.7e300, -1.7e300, 1e300}, b[2] = {-1, -1};
  double mu[2], w[2];
  for (size_t k = 0; k < cdyn_activeset_count(); k++) {
    int rc = cdyn_activeset_solve(cdyn_activeset_name(k), 2, A, b, NULL, NULL, 1e-9, mu, w, NULL, NULL);
    ck_assert_msg(rc == CDYN_EINVAL && strstr(cdyn_errmsg(), "positive semi-definite"), "%s: %d (%s)",
                  cdyn_activeset_name(k), rc, cdyn_errmsg());
  }
  /* Positive semi-definite but so large that the multipliers overflow:
     a status that says so, never success. */
  const double B[1] = {1e-300}, c[1] = {-1e300};
  for (size_t k = 0; k < cdyn_activeset_count(); k++) {
    int rc = cdyn_activeset_solve(cdyn_activeset_name(k), 1, B, c, NULL, NULL, 1e-9, mu, w, NULL, NULL);
    ck_assert_msg(rc < 0 || (isfinite(mu[0]) && isfinite(w[0])), "%s: %d with mu = %g, w = %g",
                  cdyn_activeset_name(k), rc, mu[0], w[0]);
  }
}
END_TEST

/*
 * Problems at the ends of the double range are solved equilibrated by
 * powers of two (cdyn_activeset_solve): the same answers as the problem at
 * unit scale, to rounding.  A diagonal spanning 1e308 to 1e-13 once left
 * the small row subnormal and its multiplier 0.996 instead of 1, with a
 * success status.
 */
START_TEST(test_activeset_extreme_scale)
{
  const double A[4] = {DBL_MAX, 0, 0, 1e-13}, b[2] = {0, -1e-13};
  double mu[3], w[3], ref_mu[3], ref_w[3];
  unsigned char hd[3], ref_hd[3];
  for (size_t k = 0; k < cdyn_activeset_count(); k++) {
    const char *name = cdyn_activeset_name(k);
    EXPECT_OK(cdyn_activeset_solve(name, 2, A, b, NULL, NULL, 1e-9, mu, w, NULL, NULL));
    /* mu_2 = -b_2 / A_22 = 1: each of its two roundings is half an ulp. */
    ck_assert_msg(fabs(mu[1] - 1) <= 4 * DBL_EPSILON && fabs(mu[0]) <= DBL_MIN, "%s: mu = (%.17g, %.17g)", name,
                  mu[0], mu[1]);
  }
  /* The sign tests stay those of the problem as given (tol_w = 1e-9
     max |b_k| = 1.8e299): a row at w = -1e300 is violated and handled,
     though equilibrated it is 1e-10 of the largest |b'_k|. */
  const double A2[4] = {4, 0, 0, 4096}, b2[2] = {DBL_MAX, -1e300};
  for (size_t k = 0; k < cdyn_activeset_count(); k++) {
    const char *name = cdyn_activeset_name(k);
    EXPECT_OK(cdyn_activeset_solve(name, 2, A2, b2, NULL, NULL, 1e-9, mu, w, NULL, NULL));
    /* Platt, without a carried set, handles every row at a first contact
       and so pulls on row 1 (mu_1 = -b_1 / 4); the others leave it. */
    double mu1 = strcmp(name, "platt") ? 0 : -DBL_MAX / 4;
    ck_assert_msg(fabs(mu[0] - mu1) <= 4 * DBL_EPSILON * fabs(mu1) && fabs(mu[1] / (1e300 / 4096) - 1) <= 4 * DBL_EPSILON &&
                      w[1] >= -1e-9 * DBL_MAX,
                  "%s: mu = (%.17g, %.17g), w_2 = %g", name, mu[0], mu[1], w[1]);
  }
  /* Rows beyond what doubles can decide together, even equilibrated: a
     diagonal from the smallest subnormal to DBL_MAX.  Refused with the
     reason, by every algorithm (once, w_3 came back 4.8e-7 for b_3 =
     3.2e-7 and mu = 0). */
  const double d = 4.9406564584124654e-324;
  const double A4[9] = {d, 0, 0, 0, d, 0, 0, 0, DBL_MAX}, b4[3] = {12.12841796875, 0, 3.1960449218749997e-07};
  for (size_t k = 0; k < cdyn_activeset_count(); k++) {
    int rc = cdyn_activeset_solve(cdyn_activeset_name(k), 3, A4, b4, NULL, NULL, 1e-9, mu, w, NULL, NULL);
    ck_assert_msg(rc == CDYN_EINVAL && strstr(cdyn_errmsg(), "rescale the problem"), "%s: %d (%s)",
                  cdyn_activeset_name(k), rc, cdyn_errmsg());
  }
  /* Three contacts of a point in the plane, A = J J^T with rows (1, 0),
     (0, 1), (1, 1)/sqrt 2, and b pulling the point into all three: at
     unit scale and scaled by 2^600 and 2^-600 (A and b alike, so mu is
     the same and w scales with b), every algorithm gives the same
     handled rows and multipliers to rounding. */
  const double r2 = 1 / sqrt(2.0);
  const double A3[9] = {1, 0, r2, 0, 1, r2, r2, r2, 1}, b3[3] = {-1, -0.25, -0.5};
  for (size_t k = 0; k < cdyn_activeset_count(); k++) {
    const char *name = cdyn_activeset_name(k);
    int rc0 = cdyn_activeset_solve(name, 3, A3, b3, NULL, NULL, 1e-9, ref_mu, ref_w, ref_hd, NULL);
    ck_assert_msg(rc0 >= 0, "%s: %d (%s)", name, rc0, cdyn_errmsg());
    for (int e = -600; e <= 600; e += 1200) {
      double As[9], bs[3];
      for (int i = 0; i < 9; i++)
        As[i] = ldexp(A3[i], e);
      for (int i = 0; i < 3; i++)
        bs[i] = ldexp(b3[i], e);
      int rc = cdyn_activeset_solve(name, 3, As, bs, NULL, NULL, 1e-9, mu, w, hd, NULL);
      ck_assert_msg(rc == rc0, "%s at 2^%d: status %d against %d at unit scale (%s)", name, e, rc, rc0,
                    cdyn_errmsg());
      for (int i = 0; i < 3; i++) {
        ck_assert_msg(hd[i] == ref_hd[i], "%s at 2^%d: row %d handled %d against %d", name, e, i, hd[i], ref_hd[i]);
        /* The multipliers are O(1) and A's condition number is below 10. */
        ck_assert_msg(fabs(mu[i] - ref_mu[i]) <= 64 * DBL_EPSILON, "%s at 2^%d: mu_%d = %.17g against %.17g", name,
                      e, i, mu[i], ref_mu[i]);
        ck_assert_msg(fabs(ldexp(w[i], -e) - ref_w[i]) <= 64 * DBL_EPSILON, "%s at 2^%d: w_%d / 2^%d = %.17g against %.17g",
                      name, e, i, e, ldexp(w[i], -e), ref_w[i]);
      }
    }
  }
}
END_TEST

/* Masses whose inverse is not finite; measures that overflow. */
START_TEST(test_overflowing_measures)
{
  cdyn_system *sys = pendulum();
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_mass(sys, 1, 1e-310));
  EXPECT_ERR(CDYN_EINVAL, cdyn_system_set_mass(sys, 1, 4.9e-324));
  const double far[3] = {1e150, 0, 0}, fast[3] = {1e200, 0, 0};
  EXPECT_OK(cdyn_system_set_position(sys, 1, far));
  EXPECT_OK(cdyn_system_set_velocity(sys, 1, fast));
  double T = -1, V = -1, e = -1, p[3] = {-1, -1, -1}, phi[4];
  EXPECT_ERR(CDYN_ENONFINITE, cdyn_system_energy(sys, &T, &V));
  ck_assert(T == -1 && V == -1); /* nothing written */
  EXPECT_OK(cdyn_system_constraint_error(sys, &e)); /* |x| - L = 1e150 is finite */
  EXPECT_OK(cdyn_system_constraint_values(sys, phi));
  const double huge_v[3] = {1.5e308, 1.5e308, 0};
  EXPECT_OK(cdyn_system_set_velocity(sys, 1, huge_v));
  EXPECT_OK(cdyn_system_set_mass(sys, 1, 2.0));
  EXPECT_ERR(CDYN_ENONFINITE, cdyn_system_momentum(sys, p));
  ck_assert(p[0] == -1 && p[1] == -1 && p[2] == -1);
  cdyn_system_free(sys);
}
END_TEST

/*
 * The divergence guard: penalty-euler on a pendulum at h = 0.01 is
 * unstable (explicit Euler on a stiff spring) and, unguarded, returns 0
 * at every step while its error grows without bound.  With max_error set,
 * the first step whose error exceeds it fails with CDYN_EDIVERGED and the
 * state of the step before.
 */
START_TEST(test_divergence_guard)
{
  cdyn_system *a = pendulum(), *b = pendulum();
  cdyn_stepper *sa = NULL, *sb = NULL;
  EXPECT_OK(cdyn_stepper_new(&sa, a, "penalty-euler"));
  EXPECT_OK(cdyn_stepper_new(&sb, b, "penalty-euler"));
  EXPECT_OK(cdyn_stepper_set(sb, "max_error", "0.5"));
  char buf[64];
  EXPECT_OK(cdyn_stepper_get(sb, "max_error", buf, sizeof buf));
  ck_assert_double_eq(strtod(buf, NULL), 0.5);
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(sb, "max_error", "-1"));
  EXPECT_ERR(CDYN_EINVAL, cdyn_stepper_set(sb, "max_error", "nan"));
  int k, rb = 0;
  double ea = 0, qb[6], vb[6], qa[6], va[6];
  for (k = 1; k <= 1000; k++) {
    ck_assert_int_eq(cdyn_stepper_step(sa, 0.01), CDYN_OK);
    ck_assert_int_eq(cdyn_system_constraint_error(a, &ea), CDYN_OK);
    EXPECT_OK(cdyn_system_get_state(b, qb, vb));
    rb = cdyn_stepper_step(sb, 0.01);
    if (rb)
      break;
    /* Guarded or not, the same arithmetic until the guard trips. */
    EXPECT_OK(cdyn_system_get_state(a, qa, va));
    EXPECT_OK(cdyn_system_get_state(b, qb, vb));
    ck_assert(!memcmp(qa, qb, sizeof qa) && !memcmp(va, vb, sizeof va));
  }
  ck_assert_msg(rb == CDYN_EDIVERGED && ea > 0.5, "guard: step %d returned %d (unguarded e_n = %g)", k, rb, ea);
  ck_assert_msg(strstr(cdyn_errmsg(), "max_error") != NULL, "message: %s", cdyn_errmsg());
  /* Counted as guarded (the unguarded stepper counts none), not as a step. */
  cdyn_stats sta, stb;
  EXPECT_OK(cdyn_stepper_stats(sa, &sta));
  EXPECT_OK(cdyn_stepper_stats(sb, &stb));
  ck_assert_msg(stb.guarded == 1 && sta.guarded == 0 && stb.steps == (unsigned long)(k - 1),
                "guarded %lu and %lu, steps %lu after %d", stb.guarded, sta.guarded, stb.steps, k);
  /* The refused step's error is the unguarded run's, bit for bit. */
  ck_assert_msg(stb.last_guarded_error == ea, "last_guarded_error %.17g, the unguarded step's %.17g",
                stb.last_guarded_error, ea);
  double q1[6], v1[6];
  EXPECT_OK(cdyn_system_get_state(b, q1, v1));
  ck_assert(!memcmp(q1, qb, sizeof q1) && !memcmp(v1, vb, sizeof v1));
  ck_assert_double_eq_tol(cdyn_system_time(b), 0.01 * (k - 1), 1e-12);
  /* Unguarded, it runs on: 100 orders of magnitude later it still says 0. */
  for (; k <= 2000 && ea < 1e100; k++) {
    ck_assert_int_eq(cdyn_stepper_step(sa, 0.01), CDYN_OK);
    ck_assert_int_eq(cdyn_system_constraint_error(a, &ea), CDYN_OK);
  }
  ck_assert_msg(ea >= 1e100, "penalty-euler's error reached only %g", ea);
  cdyn_stepper_free(sa);
  cdyn_stepper_free(sb);
  cdyn_system_free(a);
  cdyn_system_free(b);
}
END_TEST

/*
 * A particle pinned at two points: no position satisfies both.  The
 * schemes that iterate on Phi(q+) = 0 cannot reduce the residual at any
 * step size, and must say the constraints are inconsistent, not that the
 * step is too large.
 */
START_TEST(test_inconsistent_constraints_named)
{
  static const char *const iterating[] = {"newton", "shake", "rattle"};
  static const double hs[] = {1e-2, 1e-6};
  for (size_t s = 0; s < 3; s++)
    for (size_t k = 0; k < 2; k++) {
      cdyn_system *sys = NULL;
      const double p1[3] = {0, 0, 0}, p2[3] = {0.3, 0, 0};
      EXPECT_OK(cdyn_system_new(&sys, 1));
      EXPECT_OK(cdyn_system_add_pin(sys, 0, p1, NULL));
      EXPECT_OK(cdyn_system_add_pin(sys, 0, p2, NULL));
      cdyn_stepper *st = NULL;
      EXPECT_OK(cdyn_stepper_new(&st, sys, iterating[s]));
      int rc = cdyn_stepper_step(st, hs[k]);
      ck_assert_msg(rc == CDYN_EINFEASIBLE && strstr(cdyn_errmsg(), "inconsistent") &&
                      !strstr(cdyn_errmsg(), "too large"),
                    "%s at h = %g: %d (%s)", iterating[s], hs[k], rc, cdyn_errmsg());
      cdyn_stepper_free(st);
      cdyn_system_free(sys);
    }
  /* A consistent set with a redundant row (the same pin twice) still steps. */
  for (size_t s = 0; s < 3; s++) {
    cdyn_system *sys = NULL;
    const double p1[3] = {0, 0, 0};
    EXPECT_OK(cdyn_system_new(&sys, 1));
    EXPECT_OK(cdyn_system_add_pin(sys, 0, p1, NULL));
    EXPECT_OK(cdyn_system_add_pin(sys, 0, p1, NULL));
    cdyn_stepper *st = NULL;
    EXPECT_OK(cdyn_stepper_new(&st, sys, iterating[s]));
    ck_assert_msg(cdyn_stepper_step(st, 1e-2) >= 0, "%s with a redundant pin: %s", iterating[s], cdyn_errmsg());
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
}
END_TEST

/* ---- the schemes implicit in the constraint geometry ----------------------------- */

static int plane_y_eval(const double *params, const double *const *x, const double *const *v, double t,
                        cdyn_row *rows)
{
  (void)params, (void)v, (void)t;
  memset(rows, 0, sizeof *rows);
  rows->phi = x[0][1];
  rows->jac[0][1] = 1;
  return CDYN_OK;
}

/*
 * A constraint type without its geometric stiffness (hess NULL) is served
 * by finite differences (cdyn_constraint_fd_hess) in the schemes that
 * need it, which step, and whose stepper warns, naming the type and the
 * cost (2 * 3 * 1 + 1 = 7 calls of eval on one particle), from its
 * creation for backward-euler and bdf2 and once the option is set for
 * implicit; implicit without it, which never calls hess, says nothing.
 */
START_TEST(test_type_without_hess_warned)
{
  static const cdyn_constraint_type own = {
    .name = "own-floor", .description = "y = 0", .nparticles = 1, .nparams = 0, .rows = 1, .eval = plane_y_eval};
  static const char *const need[][3] = {{"backward-euler", NULL, NULL},
                                        {"bdf2", NULL, NULL},
                                        {"implicit", "geometric_stiffness", "diagonal"}};
  for (size_t k = 0; k < 4; k++) {
    cdyn_system *sys = NULL;
    const double x[3] = {0.2, 0, 0.1}, v[3] = {0.5, 0, 0};
    EXPECT_OK(cdyn_system_new(&sys, 1));
    EXPECT_OK(cdyn_system_set_position(sys, 0, x));
    EXPECT_OK(cdyn_system_set_velocity(sys, 0, v));
    size_t p = 0;
    EXPECT_OK(cdyn_system_add_constraint(sys, &own, &p, NULL, NULL));
    cdyn_stepper *st = NULL;
    EXPECT_OK(cdyn_stepper_new(&st, sys, k < 3 ? need[k][0] : "implicit"));
    const char *w = cdyn_stepper_warning(st);
    ck_assert_ptr_nonnull(w);
    if (k < 3 && need[k][1]) {
      ck_assert_msg(!w[0], "%s before its option: '%s'", need[k][0], w);
      EXPECT_OK(cdyn_stepper_set(st, need[k][1], need[k][2]));
      w = cdyn_stepper_warning(st);
    }
    if (k < 3)
      ck_assert_msg(strstr(w, need[k][0]) && strstr(w, "'own-floor'") && strstr(w, "(1 constraint)") &&
                        strstr(w, "2 * 3 * 1 + 1 = 7 calls of its eval"),
                    "%s: '%s'", need[k][0], w);
    else
      ck_assert_msg(!w[0], "implicit without the option: '%s'", w);
    int rc = cdyn_stepper_step(st, 0.01);
    ck_assert_msg(rc == CDYN_OK, "%s: %d (%s)", k < 3 ? need[k][0] : "implicit", rc, cdyn_errmsg());
    double q[3];
    EXPECT_OK(cdyn_system_get_particle(sys, 0, NULL, q, NULL));
    ck_assert_msg(fabs(q[1]) <= 1e-10, "%s: y = %g after the step", k < 3 ? need[k][0] : "implicit", q[1]);
    if (k == 0) {
      /* A second constraint of the type, added later: the step that
         follows the change counts it. */
      EXPECT_OK(cdyn_system_add_constraint(sys, &own, &p, NULL, NULL));
      EXPECT_OK(cdyn_stepper_step(st, 0.01));
      ck_assert_msg(strstr(cdyn_stepper_warning(st), "(2 constraints)"), "'%s'", cdyn_stepper_warning(st));
    }
    if (k == 2) {
      EXPECT_OK(cdyn_stepper_set(st, "geometric_stiffness", "none"));
      ck_assert_msg(!cdyn_stepper_warning(st)[0], "'%s'", cdyn_stepper_warning(st));
    }
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
  ck_assert_ptr_null(cdyn_stepper_warning(NULL));
}
END_TEST

/* The floor y = 0 for x < 1 only: x = 1 is an edge where it stops, which
   eval reports as CDYN_EDEGENERATE. */
static int ledge_eval(const double *params, const double *const *x, const double *const *v, double t,
                      cdyn_row *rows)
{
  (void)params, (void)v, (void)t;
  if (!(x[0][0] < 1.0))
    return cdyn_error(CDYN_EDEGENERATE, "ledge: x = %g is past the edge at 1", x[0][0]);
  memset(rows, 0, sizeof *rows);
  rows->phi = x[0][1];
  rows->jac[0][1] = 1;
  return CDYN_OK;
}

/*
 * The error paths of the finite-difference stiffness: bad arguments
 * (CDYN_EINVAL), eval's own failure at x (its status and message, as a
 * type's hess must), and a failure at a point of the differences only
 * (a particle within the step of an edge where eval fails): that status,
 * CDYN_EDEGENERATE, with a message naming the type and the coordinate.
 * Through a stepper (backward-euler), the step fails with it and leaves
 * the state as it was.
 */
START_TEST(test_fd_hess_errors)
{
  static const cdyn_constraint_type ledge = {
    .name = "own-ledge", .description = "y = 0 for x < 1", .nparticles = 1, .rows = 1, .eval = ledge_eval};
  static const cdyn_constraint_type noeval = {.name = "no-eval", .nparticles = 1, .rows = 1};
  static const cdyn_constraint_type wide = {.name = "wide", .nparticles = 5, .rows = 1, .eval = ledge_eval};
  double x0[3] = {0.5, 0.25, -0.75}, lambda[1] = {2.0}, K[9];
  const double *x[1] = {x0}, *xnull[1] = {NULL};
  EXPECT_ERR(CDYN_EINVAL, cdyn_constraint_fd_hess(NULL, NULL, x, 0, lambda, K));
  EXPECT_ERR(CDYN_EINVAL, cdyn_constraint_fd_hess(&noeval, NULL, x, 0, lambda, K));
  EXPECT_ERR(CDYN_EINVAL, cdyn_constraint_fd_hess(&wide, NULL, x, 0, lambda, K));
  EXPECT_ERR(CDYN_EINVAL, cdyn_constraint_fd_hess(&ledge, NULL, NULL, 0, lambda, K));
  EXPECT_ERR(CDYN_EINVAL, cdyn_constraint_fd_hess(&ledge, NULL, xnull, 0, lambda, K));
  EXPECT_ERR(CDYN_EINVAL, cdyn_constraint_fd_hess(&ledge, NULL, x, 0, NULL, K));
  EXPECT_ERR(CDYN_EINVAL, cdyn_constraint_fd_hess(&ledge, NULL, x, 0, lambda, NULL));
  /* No parameters for a type that has them (before its second particle,
     which x does not have, is looked at). */
  EXPECT_ERR(CDYN_EINVAL, cdyn_constraint_fd_hess(cdyn_constraint_distance, NULL, x, 0, lambda, K));
  ck_assert(isnan(cdyn_constraint_fd_step(NULL, x)) && isnan(cdyn_constraint_fd_step(&ledge, NULL)) &&
            isnan(cdyn_constraint_fd_step(&ledge, xnull)));
  /* Well inside: K = 0 (Phi is linear). */
  EXPECT_OK(cdyn_constraint_fd_hess(&ledge, NULL, x, 0, lambda, K));
  for (int k = 0; k < 9; k++)
    ck_assert(K[k] == 0);
  /* Past the edge: eval's own status and message. */
  x0[0] = 1.5;
  EXPECT_ERR(CDYN_EDEGENERATE, cdyn_constraint_fd_hess(&ledge, NULL, x, 0, lambda, K));
  ck_assert_msg(strstr(cdyn_errmsg(), "past the edge") && !strstr(cdyn_errmsg(), "central"), "%s", cdyn_errmsg());
  /* Within the step of the edge: fine at x, degenerate at x + delta e_0. */
  double delta = cdyn_constraint_fd_step(&ledge, x);
  x0[0] = 1.0 - 0.5 * delta;
  delta = cdyn_constraint_fd_step(&ledge, x);
  ck_assert(x0[0] + delta >= 1.0);
  EXPECT_ERR(CDYN_EDEGENERATE, cdyn_constraint_fd_hess(&ledge, NULL, x, 0, lambda, K));
  ck_assert_msg(strstr(cdyn_errmsg(), "'own-ledge'") && strstr(cdyn_errmsg(), "x_0[0] +") &&
                    strstr(cdyn_errmsg(), "central differences") && strstr(cdyn_errmsg(), "past the edge"),
                "%s", cdyn_errmsg());
  /* The same through backward-euler: its first assembly fails, the
     state is restored. */
  cdyn_system *sys = NULL;
  const double v[3] = {0, 0, 0.5};
  EXPECT_OK(cdyn_system_new(&sys, 1));
  EXPECT_OK(cdyn_system_set_position(sys, 0, x0));
  EXPECT_OK(cdyn_system_set_velocity(sys, 0, v));
  size_t p = 0;
  EXPECT_OK(cdyn_system_add_constraint(sys, &ledge, &p, NULL, NULL));
  cdyn_stepper *st = NULL;
  EXPECT_OK(cdyn_stepper_new(&st, sys, "backward-euler"));
  EXPECT_ERR(CDYN_EDEGENERATE, cdyn_stepper_step(st, 1e-3));
  ck_assert_msg(strstr(cdyn_errmsg(), "'own-ledge'"), "%s", cdyn_errmsg());
  double q[3], w[3];
  EXPECT_OK(cdyn_system_get_particle(sys, 0, NULL, q, w));
  ck_assert(!memcmp(q, x0, sizeof q) && !memcmp(w, v, sizeof w) && cdyn_system_time(sys) == 0);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * backward-euler and bdf2 return CDYN_NOCONV when Newton does not
 * converge, with q, v, the multipliers and the time as before the step
 * (noconv_restores): a 10-link chain at h = 0.1 (h omega_N = 4.4) with
 * one Newton iteration allowed; with the default 50 the same step is
 * taken.  Inconsistent constraints (one particle pinned at two points)
 * never converge: CDYN_NOCONV, the state restored.
 */
START_TEST(test_noconv_restores)
{
  static const char *const schemes[] = {"backward-euler", "bdf2"};
  for (size_t k = 0; k < 2; k++) {
    cdyn_system *sys = NULL;
    EXPECT_OK(tu_chain(&sys, 10, 0.05, 1.0, NULL));
    double v1[3] = {0.3, 0, 0};
    EXPECT_OK(cdyn_system_set_velocity(sys, 10, v1));
    cdyn_stepper *st = NULL;
    EXPECT_OK(cdyn_stepper_new(&st, sys, schemes[k]));
    EXPECT_OK(cdyn_stepper_step(st, 0.1));
    double q0[33], v0[33], q[33], v[33], l0[13], l[13], t0 = cdyn_system_time(sys);
    EXPECT_OK(cdyn_system_get_state(sys, q0, v0));
    EXPECT_OK(cdyn_stepper_multipliers(st, l0));
    EXPECT_OK(cdyn_stepper_set(st, "max_iter", "1"));
    int rc = cdyn_stepper_step(st, 0.1);
    ck_assert_msg(rc == CDYN_NOCONV && strstr(cdyn_errmsg(), "restored"), "%s: %d (%s)", schemes[k], rc,
                  cdyn_errmsg());
    EXPECT_OK(cdyn_system_get_state(sys, q, v));
    EXPECT_OK(cdyn_stepper_multipliers(st, l));
    ck_assert(!memcmp(q, q0, sizeof q) && !memcmp(v, v0, sizeof v) && !memcmp(l, l0, sizeof l));
    ck_assert(cdyn_system_time(sys) == t0);
    EXPECT_OK(cdyn_stepper_set(st, "max_iter", "50"));
    EXPECT_OK(cdyn_stepper_step(st, 0.1));
    ck_assert(cdyn_system_time(sys) > t0);
    cdyn_stepper_free(st);
    cdyn_system_free(sys);

    const double p1[3] = {0, 0, 0}, p2[3] = {0.3, 0, 0};
    EXPECT_OK(cdyn_system_new(&sys, 1));
    EXPECT_OK(cdyn_system_add_pin(sys, 0, p1, NULL));
    EXPECT_OK(cdyn_system_add_pin(sys, 0, p2, NULL));
    EXPECT_OK(cdyn_stepper_new(&st, sys, schemes[k]));
    rc = cdyn_stepper_step(st, 0.01);
    ck_assert_msg(rc == CDYN_NOCONV, "%s, inconsistent pins: %d (%s)", schemes[k], rc, cdyn_errmsg());
    double x[3];
    EXPECT_OK(cdyn_system_get_particle(sys, 0, NULL, x, NULL));
    ck_assert(x[0] == 0 && x[1] == 0 && x[2] == 0 && cdyn_system_time(sys) == 0);
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
}
END_TEST

/* A message longer than the buffer keeps its end, where the reason is. */
START_TEST(test_long_message_keeps_reason)
{
  static char path[9000];
  memset(path, 'd', sizeof path - 1);
  path[sizeof path - 1] = '\0';
  ck_assert_int_eq(cdyn_error(CDYN_EIO, "cannot write %s: %s", path, "File name too long"), CDYN_EIO);
  const char *msg = cdyn_errmsg();
  size_t n = strlen(msg);
  ck_assert_msg(n > 4000 && n < 8192, "message of %zu bytes", n);
  ck_assert_msg(!strncmp(msg, "cannot write ddd", 16), "head: %.40s", msg);
  ck_assert_msg(!strcmp(msg + n - 20, ": File name too long"), "the reason was cut: ...%s", msg + n - 40);
  ck_assert_msg(strstr(msg, " ... ") != NULL, "no mark where the middle was cut");
}
END_TEST

/* A message may wrap the one before it: cdyn_errmsg() as an argument of
   cdyn_error, short and past the buffer's length. */
START_TEST(test_message_wraps_previous)
{
  cdyn_error(CDYN_EIO, "cannot read %s: %s", "f.json", "No such file or directory");
  ck_assert_int_eq(cdyn_error(CDYN_EINVAL, "scene 'a': %s", cdyn_errmsg()), CDYN_EINVAL);
  ck_assert_str_eq(cdyn_errmsg(), "scene 'a': cannot read f.json: No such file or directory");

  static char path[9000];
  memset(path, 'd', sizeof path - 1);
  path[sizeof path - 1] = '\0';
  cdyn_error(CDYN_EIO, "cannot write %s: %s", path, "File name too long");
  ck_assert_int_eq(cdyn_error(CDYN_EIO, "export: %s", cdyn_errmsg()), CDYN_EIO);
  const char *msg = cdyn_errmsg();
  size_t n = strlen(msg);
  ck_assert_msg(!strncmp(msg, "export: cannot write ddd", 24), "head: %.40s", msg);
  ck_assert_msg(!strcmp(msg + n - 20, ": File name too long"), "the reason was cut: ...%s", msg + n - 40);
}
END_TEST


/*
 * Every non-zero status carries its reason.  Each scheme runs a stiff
 * pinned cloth (with a few links, for the schemes that take them) with
 * each of its options that caps an iteration (a name holding "iter") at 1,
 * and again with the solver pcg capped at one iteration; every non-zero
 * status a step returns must come with a message of its own, not the
 * stepper's fallback for a silent scheme.  The fuzzed case that found the
 * gap, baraff-witkin with cg_maxiter = 2, must return CDYN_NOCONV and say
 * why.
 */
#define FALLBACK "gave no further reason"

static void stiff_cloth(cdyn_system **sys, cdyn_cloth **cloth, int links)
{
  size_t pins[2] = {0, 5};
  cdyn_cloth_spec spec = {.nx = 6, .ny = 6, .origin = {0, 0, 0}, .u = {1, 0, 0}, .v = {0, 0, 1},
                          .mass = 0.1, .k_struct = 1e4, .k_shear = 1e3, .k_bend = 1e2, .damping = 0.01,
                          .pins = pins, .npins = 2};
  EXPECT_OK(cdyn_cloth_new(cloth, sys, &spec));
  double g[3] = {0, -9.81, 0};
  EXPECT_OK(cdyn_system_set_gravity(*sys, g));
  if (links) /* two diagonals as rigid links, at their starting lengths */
    for (size_t k = 0; k < 2; k++) {
      const double *q = cdyn_system_positions(*sys), *a = q + 3 * (7 + k), *b = q + 3 * (28 - k);
      EXPECT_OK(cdyn_system_add_distance(*sys, 7 + k, 28 - k, hypot(a[0] - b[0], a[2] - b[2]), NULL));
    }
}

/* Step st 30 times; every non-zero status must say why.  Returns the
   number of non-zero statuses. */
static int steps_say_why(cdyn_stepper *st, const char *what)
{
  int said = 0;
  for (int k = 0; k < 30; k++) {
    cdyn_error_clear();
    int rc = cdyn_stepper_step(st, 0.01);
    if (rc == CDYN_OK)
      continue;
    said++;
    const char *msg = cdyn_errmsg();
    ck_assert_msg(msg[0] != '\0', "%s: step %d returned %d with no message", what, k, rc);
    ck_assert_msg(!strstr(msg, FALLBACK), "%s: step %d returned %d with only the fallback: %s", what, k, rc, msg);
    if (rc < 0)
      break;
  }
  return said;
}

START_TEST(test_every_early_stop_says_why)
{
  int statuses = 0, runs = 0;
  for (size_t i = 0; i < cdyn_scheme_count(); i++) {
    const char *scheme = cdyn_scheme_name(i);
    int pins_only = cdyn_scheme_pins_only(i);
    /* Each option that caps an iteration, then the solver pcg's cap. */
    for (size_t k = 0; k <= cdyn_scheme_option_count(i); k++) {
      const char *name = NULL, *def, *doc;
      if (k < cdyn_scheme_option_count(i)) {
        EXPECT_OK(cdyn_scheme_option(i, k, &name, &def, &doc));
        if (!strstr(name, "iter") || !strcmp(name, "pcg_maxiter"))
          continue;
      }
      cdyn_system *sys;
      cdyn_cloth *cloth;
      cdyn_stepper *st;
      stiff_cloth(&sys, &cloth, !pins_only);
      EXPECT_OK(cdyn_stepper_new(&st, sys, scheme));
      char what[200];
      if (name) {
        snprintf(what, sizeof what, "%s with %s = 1", scheme, name);
        if (cdyn_stepper_set(st, name, "1"))
          ck_assert_int_eq(cdyn_stepper_set(st, name, "2"), CDYN_OK);
      } else {
        size_t pcg = cdyn_solver_count();
        snprintf(what, sizeof what, "%s with solver pcg, pcg_maxiter = 1", scheme);
        for (size_t j = 0; j < cdyn_solver_count(); j++)
          if (!strcmp(cdyn_solver_name(j), "pcg"))
            pcg = j;
        ck_assert_uint_lt(pcg, cdyn_solver_count());
        if (!cdyn_scheme_solver_fits(i, pcg) || cdyn_stepper_set(st, "solver", "pcg")) {
          cdyn_stepper_free(st);
          cdyn_cloth_free(cloth);
          cdyn_system_free(sys);
          continue;
        }
        EXPECT_OK(cdyn_stepper_set(st, "pcg_maxiter", "1"));
        EXPECT_OK(cdyn_stepper_set(st, "pcg_tol", "1e-14"));
      }
      statuses += steps_say_why(st, what);
      runs++;
      cdyn_stepper_free(st);
      cdyn_cloth_free(cloth);
      cdyn_system_free(sys);
    }
  }
  /* The walk met early stops (else it proved nothing). */
  ck_assert_int_gt(runs, 10);
  ck_assert_int_gt(statuses, 10);

  /* The case a fuzzed call sequence found. */
  cdyn_system *sys;
  cdyn_cloth *cloth;
  cdyn_stepper *st;
  stiff_cloth(&sys, &cloth, 0);
  EXPECT_OK(cdyn_stepper_new(&st, sys, "baraff-witkin"));
  EXPECT_OK(cdyn_stepper_set(st, "cg_maxiter", "2"));
  int rc = CDYN_OK;
  for (int k = 0; k < 30 && rc == CDYN_OK; k++) {
    cdyn_error_clear();
    rc = cdyn_stepper_step(st, 0.01);
  }
  ck_assert_int_eq(rc, CDYN_NOCONV);
  ck_assert_msg(strstr(cdyn_errmsg(), "cg_maxiter = 2"), "message: %s", cdyn_errmsg());
  cdyn_stepper_free(st);
  cdyn_cloth_free(cloth);
  cdyn_system_free(sys);
}
END_TEST

/* A scheme that returns a status without a message (one registered by a
   user, say) gets the stepper's: the status, the scheme and the step. */
static int silent_step(cdyn_stepper *st, void *state, double h)
{
  (void)st, (void)state, (void)h;
  return CDYN_NOCONV;
}

START_TEST(test_silent_scheme_gets_a_message)
{
  static const cdyn_scheme_type silent = {.name = "silent", .description = "returns CDYN_NOCONV, silently",
                                          .source = "tests/test_errors.c", .order = 1, .step = silent_step};
  EXPECT_OK(cdyn_scheme_register(&silent));
  cdyn_system *sys;
  EXPECT_OK(cdyn_system_new(&sys, 1));
  cdyn_stepper *st;
  EXPECT_OK(cdyn_stepper_new(&st, sys, "silent"));
  cdyn_error(CDYN_EINVAL, "an older, unrelated message");
  ck_assert_int_eq(cdyn_stepper_step(st, 0.5), CDYN_NOCONV);
  ck_assert_msg(strstr(cdyn_errmsg(), "scheme silent: iteration stopped before reaching its tolerance") &&
                  strstr(cdyn_errmsg(), FALLBACK) && strstr(cdyn_errmsg(), "h = 0.5"),
                "message: %s", cdyn_errmsg());
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST


/* The suggestions' distance (base/words.c), on cases worked by hand. */
START_TEST(test_word_distance)
{
  ck_assert_uint_eq(cdyn_word_distance("rattle", "rattle"), 0);
  ck_assert_uint_eq(cdyn_word_distance("rattel", "rattle"), 1); /* one adjacent swap */
  ck_assert_uint_eq(cdyn_word_distance("sceme", "scheme"), 1);  /* one insertion */
  ck_assert_uint_eq(cdyn_word_distance("ca", "abc"), 3);        /* OSA, not Damerau's 2 */
  ck_assert_uint_eq(cdyn_word_distance("", "abc"), 3);
  ck_assert_uint_eq(cdyn_word_distance("kitten", "sitting"), 3);
  ck_assert_uint_eq(cdyn_word_distance(NULL, "a"), (size_t)-1);
  ck_assert_int_eq(cdyn_word_near("rattel", 1), 1);
  ck_assert_int_eq(cdyn_word_near("scheme", 2), 1);
  ck_assert_int_eq(cdyn_word_near("scheme", 3), 0); /* more than 2 edits */
  ck_assert_int_eq(cdyn_word_near("ab", 1), 0);     /* half the word */
  ck_assert_int_eq(cdyn_word_near("abc", 0), 0);    /* the same word */
  ck_assert_int_eq(cdyn_word_near(NULL, 1), 0);
}
END_TEST

static Suite *errors_suite(void)
{
  Suite *s = suite_create("errors");
  TCase *tc = tcase_create("system");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_system_new_errors);
  tcase_add_test(tc, test_mass_errors);
  tcase_add_test(tc, test_position_velocity_errors);
  tcase_add_test(tc, test_set_state_nonfinite);
  tcase_add_test(tc, test_constraint_errors);
  tcase_add_test(tc, test_spring_errors);
  tcase_add_test(tc, test_set_change_errors);
  suite_add_tcase(s, tc);

  tc = tcase_create("stepper");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_stepper_new_errors);
  tcase_add_test(tc, test_option_errors);
  tcase_add_test(tc, test_scheme_options_by_type);
  tcase_add_test(tc, test_query_errors);
  suite_add_tcase(s, tc);

  tc = tcase_create("step");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_step_size_errors);
  tcase_add_test(tc, test_stepper_follows);
  tcase_add_test(tc, test_callback_failure_restores);
  tcase_add_test(tc, test_nonfinite_force_restores);
  tcase_add_test(tc, test_blowup_restores_last_finite);
  tcase_add_test(tc, test_overflow_in_update_restores);
  tcase_add_test(tc, test_nonfinite_multiplier_fails);
  tcase_add_test(tc, test_activeset_indefinite);
  tcase_add_test(tc, test_activeset_tolerance_range);
  tcase_add_test(tc, test_activeset_extreme_scale);
  tcase_add_test(tc, test_overflowing_measures);
  tcase_add_test(tc, test_divergence_guard);
  tcase_add_test(tc, test_inconsistent_constraints_named);
  tcase_add_test(tc, test_type_without_hess_warned);
  tcase_add_test(tc, test_fd_hess_errors);
  tcase_add_test(tc, test_noconv_restores);
  tcase_add_test(tc, test_every_early_stop_says_why);
  tcase_add_test(tc, test_silent_scheme_gets_a_message);
  suite_add_tcase(s, tc);

  tc = tcase_create("messages");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_strerror);
  tcase_add_test(tc, test_word_distance);
  tcase_add_test(tc, test_long_message_keeps_reason);
  tcase_add_test(tc, test_message_wraps_previous);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return tu_run(errors_suite());
}
