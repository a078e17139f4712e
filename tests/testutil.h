/*
 * tests/testutil.h: helpers shared by the test programs.
 *
 * - tu_next / tu_rand / tu_uniform: a deterministic pseudo-random generator
 *   (splitmix64).  Tests draw their "random" states from it so that every
 *   run sees the same numbers and a failure can be reproduced, while the
 *   numbers still have no structure (no zeros, no symmetric layouts) that
 *   could hide a wrong sign or a swapped index.
 * - tu_chain: a planar chain of rigid links hanging from a pin, the system
 *   most tests are built on.
 * - tu_dist3, tu_max_abs, tu_fit_order: the distance of two points, the
 *   largest magnitude in an array, and the least-squares slope of log y
 *   against log x (a convergence order).
 *
 * - tu_run: run a suite and turn its failures into the exit status.
 * - tu_skip: say that a whole program cannot run here, as a skip.
 * - TU_EXPECT_STATUS / TU_EXPECT_EINVAL: a call returns a given status
 *   and leaves a message.
 *
 * Everything is static inline, so that each test program is one file.
 */
#ifndef CDYN_TESTUTIL_H
#define CDYN_TESTUTIL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

/* One step of splitmix64 (Steele, Lea and Flood 2014): full 64-bit period
   and good mixing even from a small seed. */
static inline uint64_t tu_next(uint64_t *state)
{
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* A double in [-1, 1): the top 53 bits give a uniform value in [0, 1),
   which is then mapped affinely (exactly, by a power-of-two scale). */
static inline double tu_rand(uint64_t *state)
{
  double u = (double)(tu_next(state) >> 11) * 0x1.0p-53;
  return 2.0 * u - 1.0;
}

/* A double in [lo, hi). */
static inline double tu_uniform(uint64_t *state, double lo, double hi)
{
  return lo + (hi - lo) * 0.5 * (tu_rand(state) + 1.0);
}

/*
 * A planar chain of `links` rigid links of length L in the x-y plane:
 * particles 0 .. links, each of mass `mass`, particle 0 pinned at the
 * origin by cdyn_system_add_pin (so its three rows come first), then link
 * k as cdyn_system_add_distance(k, k + 1, L), and gravity (0, -9.81, 0).
 *
 * `joint` (may be NULL: hanging straight down) holds `links` joint angles;
 * link k points at the absolute angle theta_k = joint[0] + ... + joint[k]
 * from the downward vertical, node k+1 = node k + L (sin theta_k,
 * -cos theta_k, 0).  So every constraint is satisfied to rounding.
 *
 * Returns the status of the first failing call, with *out NULL; the
 * caller frees the system on success.
 */
static inline int tu_chain(cdyn_system **out, size_t links, double L,
                           double mass, const double *joint)
{
  cdyn_system *sys = NULL;
  int rc = cdyn_system_new(&sys, links + 1);
  if (rc) {
    *out = NULL;
    return rc;
  }
  static const double origin[3] = {0, 0, 0};
  static const double g[3] = {0, -9.81, 0};
  double x[3] = {0, 0, 0}, theta = 0;
  rc = cdyn_system_set_gravity(sys, g);
  if (!rc)
    rc = cdyn_system_set_position(sys, 0, x);
  if (!rc)
    rc = cdyn_system_set_mass(sys, 0, mass);
  if (!rc)
    rc = cdyn_system_add_pin(sys, 0, origin, NULL);
  for (size_t k = 0; k < links && !rc; k++) {
    theta += joint ? joint[k] : 0.0;
    x[0] += L * sin(theta);
    x[1] -= L * cos(theta);
    rc = cdyn_system_set_position(sys, k + 1, x);
    if (!rc)
      rc = cdyn_system_set_mass(sys, k + 1, mass);
    if (!rc)
      rc = cdyn_system_add_distance(sys, k, k + 1, L, NULL);
  }
  if (rc) {
    cdyn_system_free(sys);
    sys = NULL;
  }
  *out = sys;
  return rc;
}

/* |a - b| for points a and b in 3-D. */
static inline double tu_dist3(const double *a, const double *b)
{
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* max_k |x[k]| (0 when len is 0). */
static inline double tu_max_abs(const double *x, size_t len)
{
  double m = 0;
  for (size_t k = 0; k < len; k++)
    m = fmax(m, fabs(x[k]));
  return m;
}

/*
 * Assertions for long loops.  Every ck_assert that passes records its
 * place as the test's last checkpoint, a write to the runner's message
 * file and a flush (about 10 us on these machines): over a loop of 10^5
 * steps or entries it costs more than the test's own work, and the suite
 * made several million of them.  TU_ASSERT(expr, fmt, ...) fails as
 * ck_assert_msg does (its file, line and message) but records nothing
 * when it passes; TU_ASSERT_OK(call) fails, with the call, its status and
 * the library's message, unless call returns CDYN_OK.  (A test that
 * crashes inside such a loop reports the checkpoint before the loop; the
 * sanitizers' builds print the stack.)  tu_first_diff lets a comparison of
 * two arrays assert once.
 */
#define TU_ASSERT(expr, ...)                                                                                        \
  do {                                                                                                            \
    if (!(expr))                                                                                                  \
      ck_abort_msg(__VA_ARGS__);                                                                                  \
  } while (0)
#define TU_ASSERT_OK(call)                                                                                          \
  do {                                                                                                            \
    int tu_rc_ = (call);                                                                                          \
    if (tu_rc_ != CDYN_OK)                                                                                        \
      ck_abort_msg("%s returned %d, not CDYN_OK: %s", #call, tu_rc_, cdyn_errmsg());                              \
  } while (0)

/* The first k < n with a[k] != b[k], or n when the arrays agree. */
static inline size_t tu_first_diff(const size_t *a, const size_t *b, size_t n)
{
  size_t k = 0;
  while (k < n && a[k] == b[k])
    k++;
  return k;
}

/* Least-squares slope of log y against log x (n points). */
static inline double tu_fit_order(const double *x, const double *y, int n)
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

/* Run every test of `s`; EXIT_SUCCESS when none failed. */
static inline int tu_run(Suite *s)
{
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * The schemes that enforce general equality constraints: every registered
 * scheme but those that handle pins only (cdyn_scheme_pins_only, such as
 * baraff-witkin, tested on its own in test_cloth.c).  The conformance
 * loops run over these.
 */
static inline size_t tu_scheme_count(void)
{
  size_t k = 0;
  for (size_t i = 0; i < cdyn_scheme_count(); i++)
    k += !cdyn_scheme_pins_only(i);
  return k;
}

/* The k-th of them (NULL past the end). */
static inline const char *tu_scheme_name(size_t k)
{
  for (size_t i = 0; i < cdyn_scheme_count(); i++)
    if (!cdyn_scheme_pins_only(i) && k-- == 0)
      return cdyn_scheme_name(i);
  return NULL;
}

/* Does the solver named `solver` fit the scheme named `scheme`
   (cdyn_scheme_solver_fits)?  A scheme with a symmetric indefinite system
   refuses the others, which the tests that walk every pair check. */
static inline int tu_solver_fits(const char *scheme, const char *solver)
{
  size_t i, j;
  if (cdyn_scheme_find(scheme, &i) != CDYN_OK)
    return 0;
  for (j = 0; j < cdyn_solver_count(); j++)
    if (!strcmp(cdyn_solver_name(j), solver))
      return cdyn_scheme_solver_fits(i, j);
  return 0;
}

/* The registry index of tu_scheme_name(k), for cdyn_scheme_order(i) and
   the other accessors by index (cdyn_scheme_count() when there is none). */
static inline size_t tu_scheme_index(size_t k)
{
  for (size_t i = 0; i < cdyn_scheme_count(); i++)
    if (!cdyn_scheme_pins_only(i) && k-- == 0)
      return i;
  return cdyn_scheme_count();
}

/*
 * The program cannot run its tests here (`why` says why): report a skip,
 * never a pass.  Under automake's TAP driver (CK_TAP_LOG_FILE_NAME=-) that
 * is the plan "1..0 # SKIP why" with a zero exit status; otherwise exit
 * status 77, automake's code for a skipped test.  main returns the value.
 */
static inline int tu_skip(const char *why)
{
  const char *tap = getenv("CK_TAP_LOG_FILE_NAME");
  if (tap && !strcmp(tap, "-")) {
    printf("1..0 # SKIP %s\n", why);
    return EXIT_SUCCESS;
  }
  fprintf(stderr, "SKIP: %s\n", why);
  return 77;
}

/* `call` returns `status` and explains itself through cdyn_errmsg(). */
#define TU_EXPECT_STATUS(call, status)                                                                            \
  do {                                                                                                            \
    cdyn_error_clear();                                                                                           \
    ck_assert_int_eq((call), (status));                                                                           \
    ck_assert_str_ne(cdyn_errmsg(), "");                                                                          \
  } while (0)
#define TU_EXPECT_EINVAL(call) TU_EXPECT_STATUS(call, CDYN_EINVAL)
#endif
