/*
 * tests/pendutil.h: the pendulum runs that test_schemes.c and test_ab2.c
 * share: a planar pendulum of equal links pinned at the origin, built
 * through the public API and released at rest, stepped with a scheme and
 * its options, against reference/nlink.h's solution at the end.
 *
 * Everything is static inline, as in testutil.h.
 */
#ifndef CDYN_TESTS_PENDUTIL_H
#define CDYN_TESTS_PENDUTIL_H

#include <math.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "nlink.h"
#include "testutil.h"

static const double G = 9.81;

typedef struct {
  size_t links;
  double L, m, theta0;
} pend;

/* A planar pendulum of `links` links from angle theta0, at rest. */
static inline cdyn_system *make_pendulum(const pend *p)
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
static inline void reference_at(const pend *p, double T, double *xy_last)
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

/* Set options from a NULL-terminated list of key, value pairs (may be NULL). */
static inline void set_options(cdyn_stepper *st, const char *const *kv)
{
  for (size_t i = 0; kv && kv[i]; i += 2)
    ck_assert_msg(cdyn_stepper_set(st, kv[i], kv[i + 1]) == CDYN_OK, "%s = %s: %s", kv[i], kv[i + 1],
                  cdyn_errmsg());
}

/* `scheme`, with the options kv set on its stepper first, for N steps of h
   from the pendulum p at rest: the measures of run_out (the energy's
   means over the first and last `window` seconds, none when 0). */
static inline void run_opts(const char *scheme, const char *const *kv, const pend *p, double h, long N, double window,
                     run_out *o)
{
  cdyn_system *s = make_pendulum(p);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  set_options(st, kv);
  double T, V;
  ck_assert_int_eq(cdyn_system_energy(s, &T, &V), CDYN_OK);
  memset(o, 0, sizeof *o);
  o->E0 = T + V;
  long P = window > 0 ? lround(window / h) : 0;
  for (long k = 1; k <= N; k++) {
    int rc = cdyn_stepper_step(st, h);
    TU_ASSERT(rc == CDYN_OK, "%s h = %g step %ld: %s", scheme, h, k, cdyn_errmsg());
    double e;
    TU_ASSERT_OK(cdyn_system_constraint_error(s, &e));
    TU_ASSERT_OK(cdyn_system_energy(s, &T, &V));
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

/* The single pendulum of the order tests. */
static const pend single = {1, 1.3, 0.7, 1.1};

/* Step sizes per convergence fit. */
#define NH 5

#endif
