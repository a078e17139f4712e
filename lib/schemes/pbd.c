/*
 * pbd.c: position-based dynamics (004, "Position-based dynamics";
 * Mueller, Heidelberger, Hennix and Ratcliff 2006) and its compliant
 * extension XPBD (Macklin, Mueller and Chentanez 2016).
 *
 * Prediction by symplectic Euler with the applied force only:
 *   v~ = v + h W F(q, v, t),   q~ = q + h v~  (= q + h v + h^2 W F)
 * then K Gauss-Seidel sweeps over the constraint rows in order.  Row r,
 * evaluated at the current q~ and at time t + h, moves the particles by
 *   dq = W grad Phi_r^T dlambda
 *   dlambda = (-Phi_r(q~) - alpha~ lambda_r) / (grad Phi_r W grad Phi_r^T + alpha~)
 *   lambda_r += dlambda
 * with alpha~ = alpha / h^2 and lambda_r = 0 at the start of each step
 * (XPBD's update; alpha = 0 is PBD's dlambda = -Phi_r / (grad W grad^T),
 * the linearisation of Phi_r(q~ + dq) = 0 along W grad Phi_r^T, 004
 * steps 1-3).  After the sweeps
 *   v+ = (q~ - q) / h,   q+ = q~.
 *
 * Multipliers: the sweeps' accumulated lambda_r, in the library's
 * convention -lambda_r / h^2 (below), is the force the position
 * correction implies over the step: an impulse, so it belongs to the
 * step's midpoint t + h/2 (lambda_time).  With K sweeps that have not
 * converged it is the force of the step actually taken, not that of the
 * exact implicit step.
 *
 * Compliance: XPBD's row with compliance alpha is the constraint
 * Phi_r + alpha~ lambda_r = 0 of one implicit-Euler step of the potential
 * Phi_r^2 / (2 alpha); in the library's convention (force -J^T lambda,
 * lambda_lib = -lambda / h^2, below) that reads Phi_r = alpha lambda_lib:
 * a link under tension T stretches by alpha T.  alpha is therefore an
 * inverse stiffness (m/N for a link), and a hanging mass m stretches its
 * link by alpha m g whatever h and K, once the sweeps have converged.
 *
 * Choices where the sources are silent or leave it to the implementer:
 * - Multi-row constraints (a pin's three rows) are processed row by row,
 *   and the constraint is re-evaluated before each of its rows, so that
 *   every row sees the positions its predecessors left: Gauss-Seidel over
 *   rows exactly.  (For a pin the rows are independent and this costs
 *   three evaluations where one would do; a constraint type whose rows
 *   couple needs it.)
 * - A row whose gradient is zero (grad Phi_r W grad Phi_r^T = 0) cannot be
 *   corrected along its gradient and would exert no force: it is skipped,
 *   and its multiplier stays as it is.
 * - `iterations` K, default 10: the number of sweeps is PBD's stiffness
 *   knob, and the default is a usual order of magnitude for real-time use,
 *   not a converged solve.  On a single pendulum (pinned 1 kg end, 0.7 kg
 *   bob) one sweep removes all but 0.41 of the coupled violation, so 10
 *   sweeps leave 1e-4 of it; on a 10-link chain Gauss-Seidel converges far
 *   more slowly and 10 sweeps leave the chain visibly soft (004: "if not
 *   enough iterations, constraints appear soft"), which tests/test_soft.c
 *   measures.
 * - `tol`, default 0: when positive, the sweeps stop early once the largest
 *   row residual |Phi_r + alpha~ lambda_r| at q~ is at most tol (checked
 *   after each sweep, at the cost of one more evaluation of every
 *   constraint); the step then counts as converged only if it got there
 *   within K sweeps.  With tol = 0 the method is the fixed-sweep PBD of the
 *   papers, which has no target, and every step counts as converged.
 *   Either way the final largest residual is recorded as the step's
 *   nonlinear residual (cdyn_stepper_stats).
 * - Velocity: v+ = (q~ - q) / h is computed as v~ + (sum of the dq) / h,
 *   equal in exact arithmetic, so that the rounding of q~ - q (which loses
 *   the digits of h^2 W F below those of q) does not enter v+; without
 *   constraints the step is then symplectic Euler to the last bit.
 * - Multipliers: cdyn_stepper_multipliers reports lambda_lib = -lambda / h^2
 *   with lambda the accumulated dlambda of the step, the force multiplier
 *   of the library's convention (M qdd + J^T lambda = F); a hanging link
 *   reports its tension, positive.  With finitely many sweeps it is only
 *   as accurate as the sweeps are converged.
 * - One compliance for all rows (pins included): it is a scheme option,
 *   not a constraint parameter.
 *
 * Expected order: 1 (the prediction is symplectic Euler, and the
 * projection a first-order implicit treatment of the constraint force).
 *
 * Two registered names share this file: "pbd" (no compliance) and "xpbd"
 * (option `compliance`, default 0, in which case it computes exactly what
 * "pbd" computes).
 *
 * Inconsistent constraints (Phi(q) = 0 without a solution: a particle
 * pinned at two points) are not detected: each sweep ends on the last
 * constraint it projects and the step returns success.  newton, shake and
 * rattle report them (CDYN_EINFEASIBLE).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "core/internal.h"

typedef struct {
  long iterations;
  double tol;
  double compliance;
} opts;

/* Work only (no history: each step starts its multipliers at 0). */
typedef struct {
  double *a, *corr; /* 3n: free acceleration, sum of the corrections */
  double *lam, *phi;/* m: XPBD's accumulated dlambda, Phi at the iterate */
} state;

static int alloc(void **out, size_t n, size_t m)
{
  const size_t off[] = {offsetof(state, a), offsetof(state, corr), offsetof(state, lam), offsetof(state, phi)};
  const size_t len[] = {3 * n, 3 * n, m, m};
  return cdyn_state_alloc(out, sizeof(state), off, len, 4);
}

/* grad Phi_r W grad Phi_r^T for row r (its particles from the layout). */
static double row_weight(const cdyn_scheme_data *d, size_t r, const cdyn_row *row)
{
  double w = 0;
  for (unsigned s = 0; s < d->rownp[r]; s++) {
    const double *j = row->jac[s];
    w += d->winv[d->rowpart[r * CDYN_MAX_PARTICLES + s]] * (j[0] * j[0] + j[1] * j[1] + j[2] * j[2]);
  }
  return w;
}

/* Largest |Phi_r + at lambda_r| over all rows at q, time t. */
static int residual(cdyn_stepper *st, const state *ws, const double *q, double t, double at, double *res)
{
  const cdyn_scheme_data *d = cdyn_stepper_data(st);
  int rc = cdyn_eval_phi(st, q, t, ws->phi, NULL);
  if (rc)
    return rc;
  double mx = 0;
  for (size_t r = 0; r < d->m; r++) {
    double e = fabs(ws->phi[r] + at * ws->lam[r]);
    if (!isfinite(e))
      return cdyn_error(CDYN_ENONFINITE, "%s: constraint %zu is not finite at t = %g", st->type->name,
                        d->rowcon[r], t);
    if (e > mx)
      mx = e;
  }
  *res = mx;
  return CDYN_OK;
}

/* One Gauss-Seidel sweep over all rows, moving q (and corr) in place. */
static int sweep(cdyn_stepper *st, const state *ws, double *q, double t, double at)
{
  const cdyn_scheme_data *d = cdyn_stepper_data(st);
  cdyn_row rows[CDYN_MAX_ROWS];
  for (size_t i = 0; i < d->m; i++) {
    size_t first;
    int rc = cdyn_eval_constraint(st, i, q, NULL, t, rows, &first, NULL);
    if (rc)
      return rc;
    const cdyn_row *row = &rows[i - first];
    double w = row_weight(d, i, row);
    if (!isfinite(row->phi) || !isfinite(w))
      return cdyn_error(CDYN_ENONFINITE, "%s: constraint %zu row %zu is not finite at t = %g",
                        st->type->name, d->rowcon[i], i - first, t);
    if (!(w > 0))
      continue;
    double dl = (-row->phi - at * ws->lam[i]) / (w + at);
    ws->lam[i] += dl;
    for (unsigned s = 0; s < d->rownp[i]; s++) {
      size_t p = d->rowpart[i * CDYN_MAX_PARTICLES + s];
      double wp = d->winv[p] * dl;
      for (int x = 0; x < 3; x++) {
        double dq = wp * row->jac[s][x];
        q[3 * p + x] += dq;
        ws->corr[3 * p + x] += dq;
      }
    }
  }
  st->stats.constraint_evals++;
  return CDYN_OK;
}

static int step(cdyn_stepper *st, void *state_, double h)
{
  const state *ws = state_;
  const cdyn_scheme_data *d = cdyn_stepper_data(st);
  const opts *o = d->opts;
  double *q = d->q, *v = d->v, t = d->t;
  double *a = ws->a, *corr = ws->corr, *lam = ws->lam;
  size_t n3 = 3 * d->n, m = d->m;
  int rc;
  if ((rc = cdyn_free_accel(st, q, v, t, a)))
    return rc;
  /* Prediction: q becomes q~ in place (the stepper keeps the old state). */
  for (size_t k = 0; k < n3; k++) {
    v[k] += h * a[k];
    q[k] += h * v[k];
    corr[k] = 0.0;
  }
  if (!m)
    return CDYN_OK;
  for (size_t r = 0; r < m; r++)
    lam[r] = 0.0;
  double t1 = t + h, at = o->compliance / (h * h), res = 0;
  unsigned done = 0;
  int converged = 1;
  for (long it = 0; it < o->iterations; it++) {
    if ((rc = sweep(st, ws, q, t1, at)))
      return rc;
    done++;
    if (o->tol > 0) {
      if ((rc = residual(st, ws, q, t1, at, &res)))
        return rc;
      if (res <= o->tol)
        break;
    }
  }
  if (o->tol > 0)
    converged = res <= o->tol;
  else if ((rc = residual(st, ws, q, t1, at, &res)))
    return rc;
  cdyn_record_nonlinear(st, done, res, converged);
  for (size_t k = 0; k < n3; k++)
    v[k] += corr[k] / h;
  for (size_t r = 0; r < m; r++)
    d->lambda[r] = -lam[r] / (h * h);
  return CDYN_OK;
}

static const cdyn_option options_pbd[] = {
  {"iterations", CDYN_OPT_INT, offsetof(opts, iterations), "10", 1, 1e6, NULL,
   "Gauss-Seidel sweeps over the constraint rows per step"},
  {"tol", CDYN_OPT_DOUBLE, offsetof(opts, tol), "0", 0.0, 1e6, NULL,
   "stop the sweeps once max |Phi_r| <= tol (0: always do all of them)"},
  CDYN_OPTIONS_END};

static const cdyn_option options_xpbd[] = {
  {"iterations", CDYN_OPT_INT, offsetof(opts, iterations), "10", 1, 1e6, NULL,
   "Gauss-Seidel sweeps over the constraint rows per step"},
  {"tol", CDYN_OPT_DOUBLE, offsetof(opts, tol), "0", 0.0, 1e6, NULL,
   "stop the sweeps once max |Phi_r + alpha lambda_r / h^2| <= tol (0: always do all of them)"},
  {"compliance", CDYN_OPT_DOUBLE, offsetof(opts, compliance), "0", 0.0, 1e12, NULL,
   "compliance alpha (inverse stiffness, m/N for a link) of every row; 0 = hard, as pbd"},
  CDYN_OPTIONS_END};

const cdyn_scheme_type cdyn_scheme_pbd = {
  .name = "pbd",
  .description = "position-based dynamics: Gauss-Seidel projection of the predicted positions",
  .source = "004 (position-based dynamics); Mueller et al. 2006",
  .order = 1,
  .lambda_order = 1,
  .lambda_time = CDYN_LAMBDA_MID,
  .options = options_pbd,
  .options_size = sizeof(opts),
  .alloc = alloc,
  .free = free,
  .step = step,
  .matrix_free = 1,
};

const cdyn_scheme_type cdyn_scheme_xpbd = {
  .name = "xpbd",
  .description = "extended position-based dynamics with compliance",
  .source = "Macklin, Mueller and Chentanez 2016 (XPBD)",
  .order = 1,
  .lambda_order = 1,
  .lambda_time = CDYN_LAMBDA_MID,
  .options = options_xpbd,
  .options_size = sizeof(opts),
  .alloc = alloc,
  .free = free,
  .step = step,
  .matrix_free = 1,
};
