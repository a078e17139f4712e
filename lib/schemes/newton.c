/*
 * newton.c: fully implicit constraint forces solved by Newton's method
 * (004, the last slides before position-based dynamics).
 *
 * The applied force is explicit and the constraint force implicit:
 *   q+ = q_pred - h^2 W J(q+)^T lambda,   Phi(q+, t + h) = 0,
 *   q_pred = q + h v + h^2 W F(q, v, t),
 *   v+ = (q+ - q) / h.
 * 004 writes +sum lambda_j grad c_j; with the library's convention
 * M qdd + J^T lambda = F the sign flips, and lambda is then a force
 * multiplier: the step is v+ = v + h W (F - J(q+)^T lambda), q+ = q + h v+,
 * a backward-Euler step of the constraint force: an impulse over the
 * step, whose multiplier belongs to the step's midpoint t + h/2
 * (lambda_time), at first order.  This file computes v+
 * that way and q+ = q + h v+, which is 004's q+ and v+ in exact
 * arithmetic but does not lose digits to (q+ - q) / h.  st->lambda holds
 * lambda, in the convention of cdyn_stepper_multipliers.
 *
 * The iteration.  Newton's matrix for the unknowns (q+, lambda) is
 *   [ I + h^2 W H   h^2 W J^T ]      H = sum_j lambda_j Hess c_j,
 *   [ J             0         ]
 * This file drops H (which the constraint types give: `hess`), the usual
 * simplification, which bounds the step to h omega of order 1 on long
 * chains (backward-euler keeps H): eliminating dq then leaves one system with the
 * dynamics' matrix A = J W J^T at the current iterate, assembled, factored
 * and solved by the library's linear solvers.  With iterate q_k, J_k =
 * J(q_k), and q_k = q_pred - h^2 W J_(k-1)^T lambda_k, the step of the
 * simplified Newton iteration reduces to
 *   A_k lambda_(k+1) = Phi(q_k, t + h) / h^2 + J_k W J_(k-1)^T lambda_k
 *   v_(k+1) = v + h W (F - J_k^T lambda_(k+1)),  q_(k+1) = q + h v_(k+1).
 * Its fixed point is the exact solution of the equations above; dropping
 * H makes it converge linearly, at the rate O(h^2 |lambda| |Hess c| / m)
 * (about h^2 (g / L + v^2 / L^2) for a pendulum: 1e-3 at h = 0.01),
 * instead of quadratically.
 *
 * Start.  The iteration starts from q_0 = q.  Its first step is taken with
 * Phi(q_0, t + h) replaced by its linearisation Phi(q, t) + h Phi_t(q, t),
 * and is then exactly the first-order implicit scheme (001 eq 16, see
 * implicit.c): with max_iter = 1 this scheme is that scheme.  The
 * linearised form divides no rounding error by h^2 (Phi(q, t + h) is the
 * difference of nearly equal lengths when the pins move), so the first
 * multiplier is as accurate as 001's.
 *
 * One factorisation per step.  The corrections after the first are
 * written as corrections of lambda,
 *   A_f dlambda = Phi(q_k, t + h) / h^2 - J_k W (J_k - J_(k-1))^T lambda_k,
 *   lambda_(k+1) = lambda_k + dlambda,
 * which with A_f = A_k is the iteration above, and whose fixed point is
 * the same for any A_f; so A_f can be an earlier factorisation, A(q) of
 * the step's start.  The contraction rate then becomes that of SHAKE's
 * iteration (shake.c), about h |v| / L instead of h^2 |lambda| |Hess c| /
 * m: a few more solves, which cost much less than factorisations.  A is
 * assembled and factored again at the current iterate when a correction
 * contracts the residual by less than the option `refactor` (default 0.1;
 * 0 refactors before every correction, the plain simplified Newton
 * iteration), and when the residual grows after a correction with an
 * older factorisation (before that would count as divergence).
 * cdyn_stats counts factorizations and solves separately.
 *
 * Convergence is measured after each correction by
 *   r = max( max_r |Phi_r(q_k, t + h)|,  max |G_k| ),
 *   G_k = q_k - q_pred + h^2 W J_k^T lambda_k = h^2 W (J_k - J_(k-1))^T lambda_k,
 * both lengths, against `tol`.  The default 1e-10 m sits four to six
 * decades above the rounding level of coordinates of 1 to 100 m (about
 * 1e-16 |q|), so the iteration can reach it, and far below the scheme's
 * own local error, O(h^2 |a|) (1e-3 m at h = 0.01, 1e-7 m at h = 1e-4), so
 * the iteration error does not show in the trajectory.  For much larger
 * coordinates or much smaller steps it should be scaled.
 *
 * Non-convergence.  Reaching max_iter while the residual still decreases
 * returns CDYN_NOCONV, keeping the last iterate, which is then the best
 * one; so does a residual stalled at rounding level.  A residual that
 * grows (or becomes non-finite) above rounding level means h is outside
 * the iteration's region of convergence: no iterate then solves the
 * step's equations to any useful accuracy, so the step returns
 * CDYN_EDIVERGED and the stepper restores the state, which lets the
 * caller retry with a smaller h instead of continuing silently from a
 * wrong state (see cdyn_iter_verdict in cdyn/scheme.h).
 *
 * State: work only (q_n, v_n, W F, J_(k-1)^T lambda_k, J_k^T lambda_k and
 * the right-hand side); no history, so a change of the constraint set
 * needs nothing.
 *
 * Measured with refactor = 0: 2 to 3 corrections per step (mean 3.0) on
 * a single pendulum at h = 0.01, 2 to 4 (mean 3.1) on a 10-link chain at
 * h = 0.002; the residual falls by about 1e-3 per correction, as
 * estimated above.  The
 * converged scheme is strongly dissipative, like backward Euler: a
 * pendulum (L = 1.3 m, from 1.1 rad) at h = 0.01 loses a quarter of its
 * swing energy in the first period, where the first-order implicit
 * scheme, which stops at the first, linearised correction, loses 0.6 %
 * in 10 s.  Fitted order in position 0.96.
 *
 * Expected order: 1.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

typedef struct {
  double tol;
  long max_iter;
  double refactor;
} opts;

typedef struct {
  double *q0, *v0, *a, *jtp, *jt; /* 3n */
  double *b, *dl;                 /* m */
} state;

static int alloc(void **out, size_t n, size_t m)
{
  const size_t off[] = {offsetof(state, q0), offsetof(state, v0), offsetof(state, a), offsetof(state, jtp),
                        offsetof(state, jt),  offsetof(state, b),  offsetof(state, dl)};
  const size_t len[] = {3 * n, 3 * n, 3 * n, 3 * n, 3 * n, m, m};
  return cdyn_state_alloc(out, sizeof(state), off, len, 7);
}

static int step(cdyn_stepper *st, void *state_, double h)
{
  const state *ws = state_;
  const cdyn_scheme_data *d = cdyn_stepper_data(st);
  const opts *o = d->opts;
  double *q = d->q, *v = d->v, t = d->t, t1 = t + h;
  const double *w = d->winv;
  double *q0 = ws->q0, *v0 = ws->v0, *a = ws->a, *jtp = ws->jtp, *jt = ws->jt;
  double *b = ws->b, *dl = ws->dl, *lam = d->lambda;
  size_t n3 = 3 * d->n, m = d->m;
  int rc;
  if ((rc = cdyn_free_accel(st, q, v, t, a)))
    return rc;
  if (!m) {
    for (size_t k = 0; k < n3; k++) {
      v[k] += h * a[k];
      q[k] += h * v[k];
    }
    cdyn_record_nonlinear(st, 0, 0.0, 1);
    return CDYN_OK;
  }
  memcpy(q0, q, n3 * sizeof(double));
  memcpy(v0, v, n3 * sizeof(double));
  /* First correction: 001 eq 16 at (q, t). */
  if ((rc = cdyn_prepare(st, q, v, t)))
    return rc;
  for (size_t k = 0; k < n3; k++)
    jt[k] = v[k] / h + a[k];
  cdyn_jmul(st, jt, b);
  for (size_t r = 0; r < m; r++)
    b[r] += d->rows[r].phi / (h * h) + d->rows[r].phi_t / h;
  int linear = cdyn_solve(st, b, lam);
  if (linear < 0)
    return linear;
  unsigned it = 1;
  /* Whether the last correction was made with A factored at the iterate
     it started from (the first one was). */
  int fresh = 1;
  double r = INFINITY, rprev = INFINITY;
  enum cdyn_iter_verdict verdict;
  for (;;) {
    /* The new iterate, with the Jacobian of the system just solved. */
    cdyn_jtmul(st, lam, jtp);
    for (size_t k = 0; k < n3; k++) {
      v[k] = v0[k] + h * (a[k] - w[k / 3] * jtp[k]);
      q[k] = q0[k] + h * v[k];
    }
    if ((rc = cdyn_eval_rows(st, q, v, t1)))
      return rc;
    /* Residuals of both blocks at the new iterate. */
    r = 0;
    for (size_t i = 0; i < m; i++)
      r = fmax(r, fabs(d->rows[i].phi));
    cdyn_jtmul(st, lam, jt);
    for (size_t k = 0; k < n3; k++)
      r = fmax(r, fabs(h * h * w[k / 3] * (jt[k] - jtp[k])));
    verdict = cdyn_iter_verdict(st, q, r, rprev, o->tol, it, o->max_iter);
    /* A residual that grew after a correction with an older
       factorisation is retried with A at the current iterate before it
       counts as divergence; otherwise A is refactored when the last
       correction contracted the residual by less than `refactor`. */
    int retry = verdict == CDYN_ITER_DIVERGED && !fresh && isfinite(r) && (long)it < o->max_iter;
    if (verdict != CDYN_ITER_CONTINUE && !retry)
      break;
    fresh = retry || o->refactor == 0 || r > o->refactor * rprev;
    if (fresh && ((rc = cdyn_assemble(st, w)) || (rc = cdyn_factor(st))))
      return rc;
    rprev = r;
    /* The correction: A_f dlambda = Phi_k / h^2 - J_k W (J_k - J_(k-1))^T lambda_k. */
    for (size_t k = 0; k < n3; k++)
      jt[k] = w[k / 3] * (jt[k] - jtp[k]);
    cdyn_jmul(st, jt, b);
    for (size_t i = 0; i < m; i++)
      b[i] = d->rows[i].phi / (h * h) - b[i];
    if ((rc = cdyn_iter_correct(st, b, dl, lam, &linear)))
      return rc;
    it++;
  }
  return cdyn_iter_finish(st, "newton", verdict, it, r, rprev, o->tol, linear);
}

static const cdyn_option options[] = {
  {"tol", CDYN_OPT_DOUBLE, offsetof(opts, tol), "1e-10", 0.0, 1e300, NULL,
   "tolerance on max |Phi_r(q+)| and on the first-block residual (a length)"},
  {"max_iter", CDYN_OPT_INT, offsetof(opts, max_iter), "20", 1, 1e6, NULL,
   "Newton iterations (linear solves) per step"},
  {"refactor", CDYN_OPT_DOUBLE, offsetof(opts, refactor), "0.1", 0.0, 1.0, NULL,
   "refactor A at the current iterate when a correction reduces the residual by less than this factor "
   "(0: before every correction)"},
  CDYN_OPTIONS_END};

const cdyn_scheme_type cdyn_scheme_newton = {
  .name = "newton",
  .description = "fully implicit constraint forces, simplified Newton on (q+, lambda)",
  .source = "004, last slides (implicit constraint forces by Newton)",
  .order = 1,
  .lambda_order = 1,
  .lambda_time = CDYN_LAMBDA_MID,
  .options = options,
  .options_size = sizeof(opts),
  .alloc = alloc,
  .free = free,
  .step = step,
};
