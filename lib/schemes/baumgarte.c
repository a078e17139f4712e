/*
 * baumgarte.c: explicit Baumgarte stabilisation (001 eqs 4-10; Witkin's
 * feedback form in 002 is the same with kd = 2 alpha, ks = beta^2).
 *
 * The constraints are asked to obey Phi-dd + 2 alpha Phi-d + beta^2 Phi = 0:
 *   A lambda = J W F - gamma,
 *   gamma    = -(Jv)_q v - 2 Phi_qt v - Phi_tt - 2 alpha (J v + Phi_t)
 *              - beta^2 Phi                                     (001 eq 8)
 *   qdd      = W (F - J^T lambda)                                (001 eq 9)
 * and an explicit integrator advances (q, v) with that acceleration.
 * alpha = beta = 0 is the plain index-1 formulation, which drifts.
 *
 * Multiplier order: 1 over symplectic Euler; over RK4, 3: the last
 * stage's state y_n + h k3 is y(t + h) + O(h^3) (explicit Runge-Kutta
 * stages are only first-order accurate), and its lambda inherits that.
 *
 * Expected order: that of the integrator (1 for symplectic Euler, 4 for
 * RK4); the feedback terms vanish on the exact solution.
 *
 * Two registered names share this file: "baumgarte" over symplectic Euler
 * and "baumgarte-rk4" over RK4; the integrator is an option of both.
 *
 * History: only a multistep integrator's (AB2), which a change of the
 * constraint set drops (ab2.c says why).  lambda is that of the last
 * acceleration evaluation: at the start of the step for the one-stage
 * integrators, at t + h for RK4's last stage.
 *
 * Inconsistent constraints (Phi(q) = 0 without a solution: a particle
 * pinned at two points) are not detected: the step takes the
 * least-squares solution of its linear system and returns success.
 * newton, shake and rattle report them (CDYN_EINFEASIBLE).
 */
#include <stddef.h>

#include "core/internal.h"

typedef struct {
  double alpha, beta;
  const cdyn_integrator_type *integrator;
} opts;

typedef struct {
  cdyn_integrated head;
  cdyn_accel_work aw;
} state;

static int alloc(void **out, size_t n, size_t m)
{
  const size_t off[] = {offsetof(state, aw.b), offsetof(state, aw.jv), offsetof(state, aw.jt)};
  const size_t len[] = {m, m, 3 * n};
  return cdyn_integrated_alloc(out, sizeof(state), n, off, len, 3);
}

static int accel(cdyn_stepper *st, void *ctx, const double *q, const double *v, double t, double *a)
{
  const opts *o = cdyn_stepper_data(st)->opts;
  return cdyn_constrained_accel(st, q, v, t, o->alpha, o->beta, a, &((const state *)ctx)->aw);
}

static int step(cdyn_stepper *st, void *ctx, double h)
{
  const opts *o = cdyn_stepper_data(st)->opts;
  return cdyn_integrate(st, o->integrator, &((state *)ctx)->head.iw, accel, ctx, h);
}

#define OPTIONS(default_integrator)                                                          \
  {                                                                                          \
    {"alpha", CDYN_OPT_DOUBLE, offsetof(opts, alpha), "2", 0.0, 1e12, NULL,                  \
     "damping of the constraint feedback (Phi-dd + 2 alpha Phi-d + beta^2 Phi = 0)"},        \
    {"beta", CDYN_OPT_DOUBLE, offsetof(opts, beta), "2", 0.0, 1e12, NULL,                    \
     "stiffness of the constraint feedback"},                                                \
    CDYN_INTEGRATOR_OPTION(opts, integrator, default_integrator, "explicit integrator for (q, v)"), \
    CDYN_OPTIONS_END                                                     \
  }

static const cdyn_option options_se[] = OPTIONS("symplectic-euler");
static const cdyn_option options_rk4[] = OPTIONS("rk4");

const cdyn_scheme_type cdyn_scheme_baumgarte = {
  .name = "baumgarte",
  .description = "explicit Baumgarte stabilisation over symplectic Euler",
  .source = "001 eqs 4-10; 002 (ks = beta^2, kd = 2 alpha)",
  .order = 1,
  .lambda_order = 1,
  .lambda_time = CDYN_LAMBDA_START,
  .options = options_se,
  .options_size = sizeof(opts),
  .alloc = alloc,
  .free = cdyn_integrated_free,
  .step = step,
  .reset = cdyn_integrated_reset,
};

const cdyn_scheme_type cdyn_scheme_baumgarte_rk4 = {
  .name = "baumgarte-rk4",
  .description = "explicit Baumgarte stabilisation over classical RK4",
  .source = "001 eqs 4-10",
  .order = 4,
  .lambda_order = 3,
  .lambda_time = CDYN_LAMBDA_END,
  .options = options_rk4,
  .options_size = sizeof(opts),
  .alloc = alloc,
  .free = cdyn_integrated_free,
  .step = step,
  .reset = cdyn_integrated_reset,
};
