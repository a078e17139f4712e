/*
 * witkin.c: Witkin's constrained dynamics with spring-and-damper feedback,
 * as 002 (slides 15-16) presents it, in its own sign convention.
 *
 *   constraint force  P = J^T lambda,   qdd = W (F + J^T lambda)
 *   C-double-dot = Jdot qdot + J qdd = -ks C - kd C-dot   gives
 *   J W J^T lambda = -Jdot qdot - J W F - ks C - kd C-dot        (002)
 * 002's slide prints the first term as "-J qdot"; the derivation on the
 * same slide (C-dd = Jdot qdot + J qdd) needs Jdot qdot, implemented here
 * as (J v)_q v, plus 2 Phi_qt v + Phi_tt for constraints that move with
 * time, and C-dot = J v + Phi_t.
 *
 * This is Baumgarte's stabilisation (001 eqs 4-10) with kd = 2 alpha,
 * ks = beta^2 and lambda of the opposite sign (cdyn_stepper_multipliers
 * reports it in the library's convention, like every scheme); the file is written from
 * 002's equation rather than by calling the Baumgarte code, so that
 * tests/test_schemes.c can show the equivalence between two
 * implementations.  An explicit integrator advances (q, v).
 *
 * Expected order: that of the integrator (1 for symplectic Euler).
 */
#include <stddef.h>

#include "cdyn_internal.h"

typedef struct {
  double ks, kd;
  const cdyn_integrator_type *integrator;
} opts;

static int accel(cdyn_stepper *st, const double *q, const double *v, double t, double *a)
{
  const opts *o = st->opts;
  const double *w = st->sys->winv;
  size_t n = st->n;
  int rc;
  if ((rc = cdyn_free_accel(st, q, v, t, a)) || !st->m)
    return rc;
  if ((rc = cdyn_prepare(st, q, v, t)))
    return rc;
  double *jwf = st->mvec[0], *jv = st->mvec[1], *rhs = st->mvec[2], *p = st->vec[10];
  cdyn_jmul(st, a, jwf);
  cdyn_jmul(st, v, jv);
  for (size_t r = 0; r < st->m; r++) {
    const cdyn_row *row = &st->rows[r];
    double cdot = jv[r] + row->phi_t;
    rhs[r] = -(row->jdotv + row->phi_tt) - jwf[r] - o->ks * row->phi - o->kd * cdot;
  }
  double *lw = st->mvec[3];
  int src = cdyn_solve(st, rhs, lw);
  if (src < 0)
    return src;
  /* Report the multipliers in the library's convention (M qdd + J^T lambda
     = F), the opposite sign of 002's. */
  for (size_t r = 0; r < st->m; r++)
    st->lambda[r] = -lw[r];
  cdyn_jtmul(st, lw, p);
  for (size_t i = 0; i < n; i++)
    for (int d = 0; d < 3; d++)
      a[3 * i + d] += w[i] * p[3 * i + d];
  return src;
}

static int step(cdyn_stepper *st, double h)
{
  return cdyn_integrate(st, ((const opts *)st->opts)->integrator, accel, h);
}

static const cdyn_option options[] = {
  {"ks", CDYN_OPT_DOUBLE, offsetof(opts, ks), "4", 0.0, 1e24, NULL, "feedback spring constant (= beta^2)"},
  {"kd", CDYN_OPT_DOUBLE, offsetof(opts, kd), "4", 0.0, 1e12, NULL, "feedback damping constant (= 2 alpha)"},
  CDYN_INTEGRATOR_OPTION(opts, integrator, "symplectic-euler", "explicit integrator for (q, v)"),
  CDYN_OPTIONS_END};

const cdyn_scheme_type cdyn_scheme_witkin = {
  .name = "witkin",
  .description = "Witkin's feedback form (ks, kd)",
  .source = "002 slides 15-16",
  .order = 1,
  .options = options,
  .options_size = sizeof(opts),
  .step = step,
};
