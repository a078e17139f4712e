/*
 * penalty.c: constraints replaced by stiff damped springs (004, "replace
 * with penalty force: lambda_i = -k c_i(q) => soft constraints"; the
 * stiff-spring pendulum of the same notes).
 *
 * Each constraint row r becomes the force of the potential (k/2) Phi_r^2
 * plus a damper along its gradient:
 *   lambda_r = k Phi_r + c_r (J_r v + Phi_t,r)
 *   F_pen    = -J^T lambda          (the library's convention: the
 *                                    constraint force is -J^T lambda)
 *   qdd      = W (F + F_pen)
 * and an explicit integrator advances (q, v).  For a link, Phi = r - L
 * and J = [n^T, -n^T], so this is 004's spring -k (|x_ij| - L) x^_ij
 * plus a damper on the rate of stretch; a pin's three rows are a
 * zero-length spring to the (possibly moving) point.  Nothing is solved:
 * no matrix is assembled, and cdyn_stepper_multipliers reports the lambda
 * of the last acceleration evaluation (for the one-stage integrators, at
 * the state the step started from).
 *
 * Choices where 004 is silent:
 * - `k` is an absolute stiffness, the same for every row (N/m for a link
 *   or pin), not scaled by the masses, so that the stability limit and the
 *   static stretch m g / k can be read off directly.  Default 1e4 N/m.
 * - `damping` is a dimensionless ratio zeta: row r gets
 *     c_r = 2 zeta sqrt(k m_r),   m_r = 1 / (J_r W J_r^T),
 *   the critical damping of that row's spring acting alone (m_r is the
 *   reduced mass m_i m_j / (m_i + m_j) for a link, the particle's mass
 *   for a pin row).  A ratio keeps "critical" meaningful for every mass
 *   and every k.  Default 1, critical: explicit Euler is unstable for an
 *   undamped oscillator at every step size (see below), so an undamped
 *   default would make "penalty-euler" useless, and critical damping
 *   removes the spring's oscillation, which is an artefact of the method,
 *   not part of the constrained motion.  damping = 0 gives 004's pure
 *   spring, whose energy symplectic Euler keeps bounded.
 *
 * Stability of one spring (omega^2 = k / m_r) with damping ratio zeta:
 *   symplectic Euler, zeta = 0:  h omega < 2, i.e. h < 2 sqrt(m/k) (004)
 *   symplectic Euler, zeta > 0:  h omega < 2 (sqrt(1 + zeta^2) - zeta)
 *                                (0.83 at zeta = 1)
 *   explicit Euler, zeta = 0:    never; the amplitude grows by
 *                                sqrt(1 + h^2 omega^2) every step
 *   explicit Euler, 0 < zeta <= 1:  h omega < 2 zeta
 * For a system, omega is the largest modal frequency of the springs; the
 * undamped limit is then exact, while with per-row damping the modes are
 * not all damped at the ratio zeta (some are overdamped, with a fast real
 * eigenvalue), so the damped limits are estimates.  The conformance chain
 * of tests/test_schemes.c (10 links, masses 0.5 .. 1.98 kg and a 1 kg
 * pinned end) has omega_max^2 = 4.88 k: at the default k = 1e4 its
 * stiffest mode has omega = 221 rad/s, h omega = 0.44 at the test's
 * h = 0.002.  Measured by bisection on that chain (3 s runs), the
 * largest stable steps are 0.0033 s for "penalty" and 0.0041 s for
 * "penalty-euler" at zeta = 1 (the one-spring formulas say 0.0037 and
 * 0.009), and 0.0091 s = 2 / omega_max for undamped symplectic Euler; the
 * test's step is 1.7 and 2 times below the damped limits.  Its top link,
 * carrying 12.4 kg, stretches by about 1.2 cm (2.4 % of its 0.5 m) at
 * rest.
 *
 * Order: the penalty solution does not converge to the constrained one as
 * h -> 0 at fixed k.  Its distance from it has a floor, the static stretch
 * O(m g / k) and its effect on the motion, so the declared order is 0.
 * What converges is k -> infinity (with h small enough for stability):
 * the error falls like 1 / k, which tests/test_schemes.c asserts in place
 * of an order in h.
 *
 * Two registered names share this file, differing only in the default
 * integrator: "penalty" over symplectic Euler and "penalty-euler" over
 * explicit Euler.
 *
 * History: only a multistep integrator's (AB2), dropped when the
 * constraint set changes: its last acceleration holds the penalty forces
 * of the old set (ab2.c).
 *
 * Inconsistent constraints (Phi(q) = 0 without a solution: a particle
 * pinned at two points) are not detected: their springs pull against
 * each other and the step returns success.  newton, shake and rattle
 * report them (CDYN_EINFEASIBLE).
 */
#include <math.h>
#include <stddef.h>

#include "core/internal.h"

typedef struct {
  double k, damping;
  const cdyn_integrator_type *integrator;
} opts;

typedef struct {
  cdyn_integrated head;
  double *jv; /* m */
  double *jt; /* 3n */
} state;

static int alloc(void **out, size_t n, size_t m)
{
  const size_t off[] = {offsetof(state, jv), offsetof(state, jt)};
  const size_t len[] = {m, 3 * n};
  return cdyn_integrated_alloc(out, sizeof(state), n, off, len, 2);
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
  if ((rc = cdyn_eval_rows(st, q, v, t)))
    return rc;
  cdyn_jmul(st, v, s->jv);
  for (size_t r = 0; r < d->m; r++) {
    const cdyn_row *row = &d->rows[r];
    /* 1 / m_r = J_r W J_r^T through the row's particles. */
    double dr = 0;
    for (unsigned k = 0; k < d->rownp[r]; k++) {
      const double *j = row->jac[k];
      dr += w[d->rowpart[r * CDYN_MAX_PARTICLES + k]] * (j[0] * j[0] + j[1] * j[1] + j[2] * j[2]);
    }
    /* A row with no gradient exerts no force whatever its damper. */
    double c = dr > 0 ? 2.0 * o->damping * sqrt(o->k / dr) : 0.0;
    d->lambda[r] = o->k * row->phi + c * (s->jv[r] + row->phi_t);
  }
  cdyn_jtmul(st, d->lambda, s->jt);
  for (size_t i = 0; i < d->n; i++)
    for (int c = 0; c < 3; c++)
      a[3 * i + c] -= w[i] * s->jt[3 * i + c];
  return CDYN_OK;
}

static int step(cdyn_stepper *st, void *ctx, double h)
{
  const opts *o = cdyn_stepper_data(st)->opts;
  return cdyn_integrate(st, o->integrator, &((state *)ctx)->head.iw, accel, ctx, h);
}

#define OPTIONS(default_integrator)                                                          \
  {                                                                                          \
    {"k", CDYN_OPT_DOUBLE, offsetof(opts, k), "1e4", 0.0, 1e15, NULL,                        \
     "penalty stiffness, the same absolute value (N/m) for every constraint row"},          \
    {"damping", CDYN_OPT_DOUBLE, offsetof(opts, damping), "1", 0.0, 1e6, NULL,               \
     "damping ratio: row r gets c_r = 2 damping sqrt(k / (J_r W J_r^T)); 1 = critical"},    \
    CDYN_INTEGRATOR_OPTION(opts, integrator, default_integrator, "explicit integrator for (q, v)"), \
    CDYN_OPTIONS_END                                                     \
  }

static const cdyn_option options_se[] = OPTIONS("symplectic-euler");
static const cdyn_option options_euler[] = OPTIONS("euler");

const cdyn_scheme_type cdyn_scheme_penalty = {
  .name = "penalty",
  .description = "constraints as stiff damped springs (penalty), symplectic Euler",
  .source = "004 (penalty force, stiff spring)",
  .order = 0,
  .lambda_time = CDYN_LAMBDA_START,
  .lambda_note = "the force k Phi + c Phi-dot of a penalty spring of finite stiffness: it tends to the constraint "
                 "force as k grows, not as h shrinks",
  .options = options_se,
  .options_size = sizeof(opts),
  .alloc = alloc,
  .free = cdyn_integrated_free,
  .step = step,
  .reset = cdyn_integrated_reset,
  .matrix_free = 1,
};

const cdyn_scheme_type cdyn_scheme_penalty_euler = {
  .name = "penalty-euler",
  .description = "constraints as stiff damped springs (penalty), explicit Euler",
  .source = "004 (penalty force, stiff spring)",
  .order = 0,
  .lambda_time = CDYN_LAMBDA_START,
  .lambda_note = "the force k Phi + c Phi-dot of a penalty spring of finite stiffness: it tends to the constraint "
                 "force as k grows, not as h shrinks",
  .options = options_euler,
  .options_size = sizeof(opts),
  .alloc = alloc,
  .free = cdyn_integrated_free,
  .step = step,
  .reset = cdyn_integrated_reset,
  .matrix_free = 1,
};
