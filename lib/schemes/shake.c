/*
 * shake.c: SHAKE (Ryckaert, Ciccotti and Berendsen, J. Comput. Phys. 23,
 * 327 (1977)) in the velocity-Verlet form of Andersen (J. Comput. Phys. 52,
 * 24 (1983)).
 *
 *   v1/2 = v + (h/2) W (F(q, v, t) - J(q)^T lambda)
 *   q+   = q + h v1/2,  with lambda such that Phi(q+, t + h) = 0
 *   v+   = v1/2 + (h/2) W F(q+, v*, t + h)
 * The constraint gradients stay at q.  There is no velocity constraint, so
 * J(q+) v+ + Phi_t differs from zero by O(h) (SHAKE's velocities are not
 * tangent; RATTLE, rattle.c, adds the projection that makes them so).  The
 * positions of this one-step form are those of the Stoermer-Verlet SHAKE
 *   q+ - 2 q + q- = h^2 W (F(q) - J(q)^T Lambda),  Phi(q+) = 0,
 *   q1 = q0 + h v0 + (h^2/2) W (F(q0) - J(q0)^T Lambda_0)   (first step).
 *
 * Multipliers.  lambda above is not the constraint force: the second half
 * kick carries none, so v+ keeps a normal component (h/2) W J^T Lambda,
 * which the next first half kick must cancel as well.  Subtracting two
 * consecutive half-step velocities gives, exactly,
 *   v1/2 - v-1/2 = h W F(q) - (h/2) W J(q)^T lambda,  so  Lambda = lambda / 2,
 * on every step that follows a SHAKE step; on the first step (and after
 * cdyn_stepper_reset or a failed step) the comparison with the starting
 * step above gives Lambda = lambda.  Lambda is the force multiplier of
 * the library's convention M qdd + J^T Lambda = F (it approximates the
 * exact multiplier to O(h^2)), and st->lambda holds it.  RATTLE reports
 * the same Lambda (rattle.c).
 *
 * Velocity-dependent forces.  The sources assume conservative forces.
 * This file evaluates the second half kick at v* = 2 v1/2 - v, which
 * differs from v+ by O(h^2), so a damper costs no order; for forces that
 * depend on q and t only, v* does not enter.
 *
 * The nonlinear equation R(lambda) = Phi(q+(lambda), t + h) = 0 has the
 * Jacobian -(h^2/2) J(q+) W J(q)^T, which is not symmetric, while the
 * library's solvers take the symmetric positive semi-definite A = J W J^T.
 * This file uses A(q) = J(q) W J(q)^T throughout, the usual matrix-SHAKE
 * simplification: it is assembled and factored once per step, and each
 * correction is one more solve with it:
 *   (h^2 / 2) A(q) dlambda = Phi(q+_k, t + h),  lambda += dlambda.
 * The iteration converges linearly, at a rate of order |J(q+) - J(q)|,
 * about h |v| / L for a link.
 *
 * Start: the first multiplier solves the constraint linearised at (q, t),
 *   Phi + J (q+ - q) + h Phi_t = 0, i.e.
 *   A lambda_1 = 2 Phi / h^2 + 2 (J v + Phi_t) / h + J W F   (at q, t),
 * the system of 000's midpoint scheme (improved.c), so that with
 * max_iter = 1 the positions are that scheme's; and because it divides no
 * rounding error by h^2, lambda_1 is accurate even for tiny h, where
 * Phi(q+) itself is rounding noise.  The iteration stops when
 * max_r |Phi_r(q+)| <= tol (a length; default 1e-10 m, see newton.c for
 * the argument); non-convergence is handled as in newton.c
 * (cdyn_iter_verdict): CDYN_NOCONV with the last iterate at max_iter or at
 * a rounding stall, CDYN_EDIVERGED if the residual grows.
 *
 * The iterates' Phi is evaluated constraint by constraint into a local
 * block, so that st->rows keep J(q) for the whole iteration.
 *
 * Scratch: vec[6] q_n, vec[7] v_n, vec[8] v + (h/2) W F then W F(q+),
 * vec[9] J(q)^T lambda then v*; mvec[0] the first right-hand side, mvec[1]
 * Phi(q+_k), mvec[2] dlambda.  (cdyn_prepare and cdyn_solve use none.)
 *
 * Measured: 2 to 3 corrections per step (mean 2.9) on a single pendulum
 * at h = 0.01, 2 to 5 (mean 3.8) on a 10-link chain at h = 0.002; fitted
 * order in position 2.00; energy error bounded and falling by 4.0 per
 * halving of h.
 *
 * Expected order: 2.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "cdyn_internal.h"

typedef cdyn_shake_opts opts;

enum { V_Q0 = 6, V_V0 = 7, V_U = 8, V_JT = 9 };

/* phi = Phi(q, t) without touching st->rows; returns max |phi_r| in *r. */
static int eval_phi(cdyn_stepper *st, const double *q, const double *v, double t, double *phi,
                    double *r)
{
  const cdyn_system *sys = st->sys;
  cdyn_row rows[CDYN_MAX_ROWS];
  *r = 0;
  for (size_t c = 0; c < sys->ncons; c++) {
    const cdyn_constraint *con = &sys->cons[c];
    int rc = cdyn_constraint_eval(con, q, v, t, rows);
    if (rc)
      return rc;
    for (unsigned k = 0; k < con->type->rows; k++) {
      phi[con->row0 + k] = rows[k].phi;
      *r = fmax(*r, fabs(rows[k].phi));
    }
  }
  st->stats.constraint_evals++;
  return CDYN_OK;
}

int cdyn_shake_step(cdyn_stepper *st, double h, double tol, long max_iter, const char *name)
{
  cdyn_system *s = st->sys;
  double *q = s->q, *v = s->v, t = s->t, t1 = t + h;
  const double *w = s->winv;
  double *q0 = st->vec[V_Q0], *v0 = st->vec[V_V0], *u = st->vec[V_U], *jt = st->vec[V_JT];
  double *b = st->mvec[0], *phi = st->mvec[1], *dl = st->mvec[2], *lam = st->lambda;
  size_t n3 = 3 * st->n, m = st->m;
  int rc;
  if ((rc = cdyn_free_accel(st, q, v, t, u)))
    return rc;
  memcpy(q0, q, n3 * sizeof(double));
  memcpy(v0, v, n3 * sizeof(double));
  int status = CDYN_OK;
  if (!m) {
    for (size_t k = 0; k < n3; k++) {
      v[k] = v0[k] + 0.5 * h * u[k];
      q[k] = q0[k] + h * v[k];
    }
    cdyn_record_nonlinear(st, 0, 0.0, 1);
  } else {
    if ((rc = cdyn_prepare(st, q, v, t)))
      return rc;
    cdyn_jmul(st, u, b);
    cdyn_jmul(st, v, dl);
    for (size_t i = 0; i < m; i++)
      b[i] += 2.0 * st->rows[i].phi / (h * h) + 2.0 * (dl[i] + st->rows[i].phi_t) / h;
    /* From here on u = v + (h/2) W F, so that v1/2 = u - (h/2) W J^T lambda. */
    for (size_t k = 0; k < n3; k++)
      u[k] = v0[k] + 0.5 * h * u[k];
    int linear = cdyn_solve(st, b, lam);
    if (linear < 0)
      return linear;
    unsigned it = 1;
    double r = INFINITY, rprev = INFINITY;
    enum cdyn_iter_verdict verdict;
    for (;;) {
      cdyn_jtmul(st, lam, jt);
      for (size_t k = 0; k < n3; k++) {
        v[k] = u[k] - 0.5 * h * w[k / 3] * jt[k];
        q[k] = q0[k] + h * v[k];
      }
      if ((rc = eval_phi(st, q, v, t1, phi, &r)))
        return rc;
      verdict = cdyn_iter_verdict(st, q, r, rprev, tol, it, max_iter);
      if (verdict != CDYN_ITER_CONTINUE)
        break;
      rprev = r;
      for (size_t i = 0; i < m; i++)
        phi[i] *= 2.0 / (h * h);
      int src = cdyn_solve(st, phi, dl);
      if (src < 0)
        return src;
      if (src > linear)
        linear = src;
      for (size_t i = 0; i < m; i++)
        lam[i] += dl[i];
      it++;
    }
    if ((status = cdyn_iter_finish(st, name, verdict, it, r, rprev, tol, linear)) < 0)
      return status;
  }
  /* Second half kick with the force at q+ (v* = 2 v1/2 - v_n). */
  for (size_t k = 0; k < n3; k++)
    jt[k] = 2.0 * v[k] - v0[k];
  if ((rc = cdyn_free_accel(st, q, jt, t1, u)))
    return rc;
  for (size_t k = 0; k < n3; k++)
    v[k] += 0.5 * h * u[k];
  return status;
}

static int step(cdyn_stepper *st, double h)
{
  const opts *o = st->opts;
  int rc = cdyn_shake_step(st, h, o->tol, o->max_iter, "shake");
  /* The Stoermer-Verlet multiplier (see the top of this file). */
  if (rc >= 0 && st->have_history)
    for (size_t i = 0; i < st->m; i++)
      st->lambda[i] *= 0.5;
  return rc;
}

const cdyn_option cdyn_shake_options[] = {
  {"tol", CDYN_OPT_DOUBLE, offsetof(opts, tol), "1e-10", 0.0, 1e300, NULL,
   "tolerance on max |Phi_r(q+)| (a length)"},
  {"max_iter", CDYN_OPT_INT, offsetof(opts, max_iter), "50", 1, 1e6, NULL,
   "position iterations (linear solves) per step"},
  CDYN_OPTIONS_END};

const cdyn_scheme_type cdyn_scheme_shake = {
  .name = "shake",
  .description = "SHAKE in velocity-Verlet form: positions on Phi = 0, velocities not projected",
  .source = "Ryckaert, Ciccotti, Berendsen 1977; Andersen 1983",
  .order = 2,
  .options = cdyn_shake_options,
  .options_size = sizeof(opts),
  .step = step,
};
