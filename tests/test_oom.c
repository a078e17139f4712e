/*
 * test_oom.c: allocation failures give a status, never an abort or a
 * crash, and leave nothing half-built.
 *
 * The allocator of tests/alloc_count.h fails its k-th call on request.
 * For k = 1, 2, ... each test repeats the same sequence of library calls
 * with the k-th allocation failing, until a run makes fewer than k
 * allocations (then every allocation has been failed once).  Each run
 * must end with CDYN_ENOMEM and a message from the call that met the
 * failure (or CDYN_OK for the last run), free what it built, and, where
 * the failure met a step, leave the state as it was.  Walked:
 *   - building a chain, a stepper for every scheme and linear solver,
 *     and three steps;
 *   - a step that must grow the stepper (the system grew past the row
 *     capacity, and its pattern past every earlier one): the failed step
 *     leaves the state alone, and the next step, with memory again,
 *     equals a fresh stepper's;
 *   - cdyn_activeset_solve with every algorithm;
 *   - cdyn_scheme_register, cdyn_system_reserve and the changes of a
 *     constraint set that can allocate.
 * (A failure inside the libraries below, OpenBLAS's lazy buffers say, is
 * not what is tested: each walk first runs once unarmed.)
 * Under AddressSanitizer the sanitizer owns malloc and the allocator
 * cannot fail, so the program reports a skip (tu_skip).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "alloc_count.h"
#include "ext_scheme.h"
#include "testutil.h"

/* The statuses a call may return when an allocation fails under it. */
static void ok_or_enomem(int rc, const char *what, long k)
{
  ck_assert_msg(rc == CDYN_OK || rc == CDYN_ENOMEM, "%s with allocation %ld failing: status %d (%s)", what, k,
                rc, cdyn_errmsg());
  if (rc == CDYN_ENOMEM)
    ck_assert_msg(cdyn_errmsg()[0] != '\0', "%s: CDYN_ENOMEM without a message", what);
}

/*
 * Run `body` with the k-th allocation failing for k = 1, 2, ... until a
 * run completes without meeting a failure; `body` returns the first
 * non-OK status.  Returns the number of allocations of the full run.
 */
static long walk(int (*body)(void *ctx, long k), void *ctx, const char *what)
{
  body(ctx, 0); /* unarmed: lazy initialisations of the libraries below */
  for (long k = 1;; k++) {
    cdyn_error_clear();
    ta_arm(k);
    int rc = body(ctx, k);
    long made = ta_disarm();
    ok_or_enomem(rc, what, k);
    if (made < k) {
      ck_assert_msg(rc == CDYN_OK, "%s: %ld allocations and no failure, status %d (%s)", what, made, rc,
                    cdyn_errmsg());
      return made;
    }
    ck_assert_msg(rc == CDYN_ENOMEM, "%s: allocation %ld of %ld failed, yet status %d", what, k, made, rc);
  }
}

typedef struct {
  const char *scheme, *solver;
} pair;

/* A chain, a stepper for the scheme and solver, three steps. */
static int build_and_step(void *ctx, long k)
{
  (void)k;
  const pair *p = ctx;
  cdyn_system *sys = NULL;
  cdyn_stepper *st = NULL;
  int rc = tu_chain(&sys, 6, 0.5, 1.3, NULL);
  if (!rc)
    rc = cdyn_stepper_new(&st, sys, p->scheme);
  if (!rc)
    rc = cdyn_stepper_set(st, "solver", p->solver);
  for (int s = 0; s < 3 && !rc; s++) {
    rc = cdyn_stepper_step(st, 1e-3);
    if (rc > 0)
      rc = CDYN_OK;
  }
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  return rc;
}

START_TEST(test_build_and_step)
{
  pair p = {tu_scheme_name((size_t)_i / cdyn_solver_count()), cdyn_solver_name((size_t)_i % cdyn_solver_count())};
  if (!tu_solver_fits(p.scheme, p.solver))
    return; /* refused when named (tests/test_switching.c checks the refusal) */
  long made = walk(build_and_step, &p, p.scheme);
  ck_assert_int_gt(made, 5);
}
END_TEST

/*
 * A stepper that must grow in its next step: a chain whose last link was
 * removed before the build, then a pin on the freed node and four more
 * (more rows than the build's capacity, a pattern beyond the build's).
 * With an allocation of that step failing, the step returns CDYN_ENOMEM
 * and leaves the state alone; the next step, with memory, gives bitwise
 * what a fresh stepper gives.
 */
typedef struct {
  const char *scheme;
} grow_ctx;

static int grow_step(void *ctx, long k)
{
  const grow_ctx *g = ctx;
  cdyn_system *sys = NULL;
  cdyn_stepper *st = NULL, *fresh = NULL;
  int armed = ta_armed;
  ta_armed = 0; /* the set-up allocates freely */
  ck_assert_int_eq(tu_chain(&sys, 5, 0.5, 1.3, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_remove_constraint(sys, 5), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, g->scheme), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
  double x[3], q0[18], v0[18], q[18], v[18], q1[18], v1[18];
  ck_assert_int_eq(cdyn_system_get_particle(sys, 5, NULL, x, NULL), CDYN_OK);
  for (int p = 0; p < 5; p++)
    ck_assert_int_eq(cdyn_system_add_pin(sys, 5, x, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_get_state(sys, q0, v0), CDYN_OK);
  double t0 = cdyn_system_time(sys);
  ta_armed = armed;
  int rc = cdyn_stepper_step(st, 1e-3);
  ta_armed = 0;
  if (rc > 0)
    rc = CDYN_OK;
  if (rc == CDYN_ENOMEM) {
    ck_assert_int_eq(cdyn_system_get_state(sys, q, v), CDYN_OK);
    ck_assert_msg(!memcmp(q, q0, sizeof q) && !memcmp(v, v0, sizeof v) && cdyn_system_time(sys) == t0,
                  "%s: a step that ran out of memory (allocation %ld) changed the state", g->scheme, k);
    ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
  }
  ck_assert_int_eq(cdyn_system_get_state(sys, q, v), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_state(sys, q0, v0), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_time(sys, t0), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&fresh, sys, g->scheme), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(fresh, 1e-3), 0);
  ck_assert_int_eq(cdyn_system_get_state(sys, q1, v1), CDYN_OK);
  for (int i = 0; i < 18; i++)
    ck_assert_msg(q[i] == q1[i] && v[i] == v1[i], "%s: after allocation %ld failed, the grown step differs from a fresh stepper's",
                  g->scheme, k);
  cdyn_stepper_free(fresh);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  ta_armed = armed;
  return rc;
}

START_TEST(test_growth_in_step)
{
  grow_ctx g = {tu_scheme_name((size_t)_i)};
  long made = walk(grow_step, &g, g.scheme);
  ck_assert_int_gt(made, 0); /* the step did have to grow */
}
END_TEST

static int activeset(void *ctx, long k)
{
  (void)k;
  const char *name = ctx;
  static const double A[9] = {4, 2, 0, 2, 2, 1, 0, 1, 1}, b[3] = {-1, -2, -3};
  double mu[3], w[3];
  return cdyn_activeset_solve(name, 3, A, b, NULL, NULL, 1e-9, mu, w, NULL, NULL);
}

START_TEST(test_activeset)
{
  const char *name = cdyn_activeset_name((size_t)_i);
  ck_assert_int_gt(walk(activeset, (void *)name, name), 0);
}
END_TEST

/* Registration: each run registers a copy under a name of its own (the
   table keeps the types for the life of the process). */
static int registration(void *ctx, long k)
{
  (void)ctx;
  static char names[8][32];
  static cdyn_scheme_type copies[8];
  if (k == 0 || k > 8)
    return CDYN_OK;
  snprintf(names[k - 1], sizeof names[k - 1], "ext-oom-%ld", k);
  copies[k - 1] = ext_implicit;
  copies[k - 1].name = names[k - 1];
  return cdyn_scheme_register(&copies[k - 1]);
}

START_TEST(test_registration)
{
  ck_assert_int_gt(walk(registration, NULL, "cdyn_scheme_register"), 0);
}
END_TEST

/* Reserve, and the set changes that allocate (adding past the reserve,
   turning a spring into a constraint). */
static int set_changes(void *ctx, long k)
{
  (void)ctx;
  (void)k;
  cdyn_system *sys = NULL;
  int rc;
  if ((rc = cdyn_system_new(&sys, 4)))
    return rc;
  size_t s, c;
  if (!(rc = cdyn_system_reserve(sys, 2, 2, 1)) && !(rc = cdyn_system_add_spring(sys, 0, 1, 3.0, 0.1, 1.0, &s)) &&
      !(rc = cdyn_system_add_distance(sys, 1, 2, 1.0, NULL)) && !(rc = cdyn_system_add_distance(sys, 2, 3, 1.0, NULL)))
    rc = cdyn_system_spring_to_constraint(sys, s, 1.0, &c);
  /* (No Check assertion while the allocator is armed: Check allocates.) */
  if (!rc && cdyn_system_row_count(sys) != 3)
    rc = cdyn_error(CDYN_EINVAL, "3 rows expected, %zu found", cdyn_system_row_count(sys));
  cdyn_system_free(sys);
  return rc;
}

START_TEST(test_set_changes)
{
  ck_assert_int_gt(walk(set_changes, NULL, "set changes"), 0);
}
END_TEST

int main(void)
{
  if (!ta_can_fail)
    return tu_skip("AddressSanitizer owns malloc: allocations cannot be made to fail");
  ta_init();
  if (!ta_works)
    return tu_skip("allocations cannot be counted here (under valgrind, the program's allocator needs --soname-synonyms=somalloc=nouserintercepts)");
  if (ext_register() != CDYN_OK)
    return EXIT_FAILURE;
  Suite *s = suite_create("oom");
  TCase *tc = tcase_create("oom");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_build_and_step, 0, (int)(tu_scheme_count() * cdyn_solver_count()));
  tcase_add_loop_test(tc, test_growth_in_step, 0, (int)tu_scheme_count());
  tcase_add_loop_test(tc, test_activeset, 0, (int)cdyn_activeset_count());
  tcase_add_test(tc, test_registration);
  tcase_add_test(tc, test_set_changes);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
