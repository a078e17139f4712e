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
 * History: only a multistep integrator's (AB2), dropped when the
 * constraint set changes (ab2.c says why).
 *
 * lambda is that of the last acceleration evaluation: at the start of
 * the step for the one-stage integrators (lambda_time).
 *
 * Expected order: that of the integrator (1 for symplectic Euler).
 *
 * Inconsistent constraints (Phi(q) = 0 without a solution: a particle
 * pinned at two points) are not detected: the step takes the
 * least-squares solution of its linear system and returns success.
 * newton, shake and rattle report them (CDYN_EINFEASIBLE).
 */
#include <stddef.h>

#include "core/internal.h"

typedef struct {
  double ks, kd;
  const cdyn_integrator_type *integrator;
} opts;

typedef struct {
  cdyn_integrated head;
  double *jwf, *jv, *rhs, *lw; /* m each */
  double *p;                   /* 3n: J^T lambda in 002's sign */
} state;

static int alloc(void **out, size_t n, size_t m)
{
  const size_t off[] = {offsetof(state, jwf), offsetof(state, jv), offsetof(state, rhs), offsetof(state, lw),
                        offsetof(state, p)};
  const size_t len[] = {m, m, m, m, 3 * n};
  return cdyn_integrated_alloc(out, sizeof(state), n, off, len, 5);
}

static int accel(cdyn_stepper *st, void *ctx, const double *q, const double *v, double t, double *a)
{
  const state *s = ctx;
  const cdyn_scheme_data *d = cdyn_stepper_data(st);
  const opts *o = d->opts;
  const double *w = d->winv;
  int rc;
  if ((rc = cdyn_free_accel(st, q, v, t, a)) || !d->m)
    return rc;
  if ((rc = cdyn_prepare(st, q, v, t)))
    return rc;
  cdyn_jmul(st, a, s->jwf);
  cdyn_jmul(st, v, s->jv);
  for (size_t r = 0; r < d->m; r++) {
    const cdyn_row *row = &d->rows[r];
    double cdot = s->jv[r] + row->phi_t;
    s->rhs[r] = -(row->jdotv + row->phi_tt) - s->jwf[r] - o->ks * row->phi - o->kd * cdot;
  }
  int src = cdyn_solve(st, s->rhs, s->lw);
  if (src < 0)
    return src;
  /* Report the multipliers in the library's convention (M qdd + J^T lambda
     = F), the opposite sign of 002's. */
  for (size_t r = 0; r < d->m; r++)
    d->lambda[r] = -s->lw[r];
  cdyn_jtmul(st, s->lw, s->p);
  for (size_t i = 0; i < d->n; i++)
    for (int c = 0; c < 3; c++)
      a[3 * i + c] += w[i] * s->p[3 * i + c];
  return src;
}

static int step(cdyn_stepper *st, void *ctx, double h)
{
  const opts *o = cdyn_stepper_data(st)->opts;
  return cdyn_integrate(st, o->integrator, &((state *)ctx)->head.iw, accel, ctx, h);
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
  .lambda_order = 1,
  .lambda_time = CDYN_LAMBDA_START,
  .options = options,
  .options_size = sizeof(opts),
  .alloc = alloc,
  .free = cdyn_integrated_free,
  .step = step,
  .reset = cdyn_integrated_reset,
};
