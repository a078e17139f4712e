/*
 * test_alloc.c: no scheme allocates inside a step.
 *
 * The program defines malloc, calloc and realloc itself; ELF symbol
 * interposition makes libcdyn (and GSL, LAPACKE, OpenBLAS) call these,
 * which count the calls and forward to glibc's __libc_* allocator.  Every
 * scheme, with each linear solver, then takes 500 steps on a 10-link chain
 * with the counter armed: it must stay at zero.
 *
 * Under AddressSanitizer the sanitizer owns malloc, so the test is skipped
 * there (the plain and valgrind runs cover it).
 */
#include <stdlib.h>

#include <check.h>

#include <cdyn/cdyn.h>

#if defined(__SANITIZE_ADDRESS__)
#define CDYN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CDYN_ASAN 1
#endif
#endif

#ifndef CDYN_ASAN
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static volatile int armed;
static volatile long count;

void *malloc(size_t n)
{
  if (armed)
    count++;
  return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
  if (armed)
    count++;
  return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
  if (armed)
    count++;
  return __libc_realloc(p, n);
}
#endif

START_TEST(test_no_allocation_in_step)
{
#ifdef CDYN_ASAN
  return;
#else
  const char *scheme = cdyn_scheme_name((size_t)_i / cdyn_solver_count());
  const char *solver = cdyn_solver_name((size_t)_i % cdyn_solver_count());
  cdyn_system *s;
  cdyn_stepper *st;
  double g[3] = {0, -9.81, 0}, o[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_new(&s, 11), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  for (size_t i = 0; i <= 10; i++) {
    double x[3] = {0.5 * (double)i, 0, 0};
    ck_assert_int_eq(cdyn_system_set_position(s, i, x), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_pin(s, 0, o, NULL), CDYN_OK);
  for (size_t i = 0; i < 10; i++)
    ck_assert_int_eq(cdyn_system_add_distance(s, i, i + 1, 0.5, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_OK);
  /* One step first, so that anything a library initialises lazily on its
     first call (OpenBLAS buffers) is not counted as a per-step cost. */
  ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
  count = 0;
  armed = 1;
  int rc = 0;
  for (int k = 0; k < 500 && rc >= 0; k++)
    rc = cdyn_stepper_step(st, 1e-3);
  armed = 0;
  ck_assert_msg(rc >= 0, "%s/%s: %s", scheme, solver, cdyn_errmsg());
  ck_assert_msg(count == 0, "%s with %s allocated %ld times in 500 steps", scheme, solver, count);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
#endif
}
END_TEST

int main(void)
{
  Suite *s = suite_create("alloc");
  TCase *tc = tcase_create("step");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_no_allocation_in_step, 0, (int)(cdyn_scheme_count() * cdyn_solver_count()));
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
