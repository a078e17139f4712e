/*
 * blocks.c: the building blocks schemes are written with (cdyn/scheme.h).
 *
 * Assembly of A = J D J^T (D = W for the dynamics, D = I for 001's
 * unweighted post-stabilisation) adds the contribution list of pattern.c
 * into the preallocated values, in a fixed order, so an assembly is
 * bitwise reproducible.  The linear solver sees A through cdyn_matrix
 * (cdyn/solver.h); cdyn_factor calls its setup once per assembly that
 * changed A: an assembly that reproduces the factored values bit for bit
 * keeps the factorisation.
 *
 * The constrained acceleration (001 eqs 7-10, Baumgarte's stabilisation):
 *   Phi-double-dot = J qdd + (Jv)_q v + 2 Phi_qt v + Phi_tt
 *   asking Phi-double-dot + 2 alpha Phi-dot + beta^2 Phi = 0 with
 *   qdd = W (F - J^T lambda) gives
 *   A lambda = J W F + (Jv)_q v + 2 Phi_qt v + Phi_tt
 *              + 2 alpha (J v + Phi_t) + beta^2 Phi.
 *
 * A scheme that cuts its step into sub-steps reports each to the
 * stepper's sub-step observer through cdyn_substep_reached; the stepper
 * reports the step's start through the same call of the observer
 * (cdyn_substep_observed).
 */
#include <float.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

/* ---- what a scheme sees ------------------------------------------------------- */

const cdyn_scheme_data *cdyn_stepper_data(const cdyn_stepper *st) { return st ? &st->d : NULL; }

int cdyn_stepper_solver(const cdyn_stepper *st, const cdyn_solver_type **type, const void **opts, double *rank_tol)
{
  if (!st || !type)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_solver: NULL argument");
  *type = st->solver_auto ? NULL : st->solver;
  if (opts)
    *opts = st->solver_opts[st->solver_k];
  if (rank_tol)
    *rank_tol = st->common.rank_tol;
  return CDYN_OK;
}


int cdyn_state_alloc(void **state, size_t size, const size_t *offsets, const size_t *lens, size_t count)
{
  if (!state || (count && (!offsets || !lens)))
    return cdyn_error(CDYN_EINVAL, "cdyn_state_alloc: NULL argument");
  *state = NULL;
  /* The arrays start at the first multiple of the strictest alignment. */
  size_t a = _Alignof(max_align_t), head = (size + a - 1) / a * a, total = 0;
  for (size_t k = 0; k < count; k++) {
    if (offsets[k] > size || sizeof(double *) > size - offsets[k])
      return cdyn_error(CDYN_EINVAL, "cdyn_state_alloc: field %zu at offset %zu lies outside the state", k,
                        offsets[k]);
    if (lens[k] > (((size_t)-1) - head) / sizeof(double) - total)
      return cdyn_error(CDYN_ENOMEM, "cdyn_state_alloc: arrays too large");
    total += lens[k];
  }
  char *s = calloc(1, head + total * sizeof(double));
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "out of memory for a scheme state of %zu values", total);
  double *p = (double *)(s + head);
  for (size_t k = 0; k < count; k++) {
    memcpy(s + offsets[k], &p, sizeof p);
    p += lens[k];
  }
  *state = s;
  return CDYN_OK;
}

/* Arrays of doubles in one zeroed block (the integrator work). */
static int vectors_alloc(double **block, double **ptr, size_t count, size_t len)
{
  if (len > ((size_t)-1) / sizeof(double) / (count ? count : 1))
    return cdyn_error(CDYN_ENOMEM, "out of memory for %zu vectors of %zu", count, len);
  double *b = calloc(count * len > 0 ? count * len : 1, sizeof(double));
  if (!b)
    return cdyn_error(CDYN_ENOMEM, "out of memory for %zu vectors of %zu", count, len);
  *block = b;
  for (size_t k = 0; k < count; k++)
    ptr[k] = b + k * len;
  return CDYN_OK;
}

/* ---- rows, forces, A ---------------------------------------------------------- */

int cdyn_eval_rows(cdyn_stepper *st, const double *q, const double *v, double t)
{
  const cdyn_system *sys = st->sys;
  for (size_t r = 0; r < st->m;) {
    const cdyn_constraint *con = &sys->cons[st->rowcon[r]];
    int rc = cdyn_constraint_eval(con, q, v, t, st->rows + r);
    if (rc)
      return rc;
    r += con->type->rows;
  }
  st->stats.constraint_evals++;
  return CDYN_OK;
}

int cdyn_eval_phi(cdyn_stepper *st, const double *q, double t, double *phi, double *maxabs)
{
  const cdyn_system *sys = st->sys;
  cdyn_row rows[CDYN_MAX_ROWS];
  double mx = 0;
  for (size_t r = 0; r < st->m;) {
    const cdyn_constraint *con = &sys->cons[st->rowcon[r]];
    int rc = cdyn_constraint_eval(con, q, NULL, t, rows);
    if (rc)
      return rc;
    for (unsigned k = 0; k < con->type->rows; k++, r++) {
      phi[r] = rows[k].phi;
      mx = fmax(mx, fabs(rows[k].phi));
    }
  }
  st->stats.constraint_evals++;
  if (maxabs)
    *maxabs = mx;
  return CDYN_OK;
}

int cdyn_eval_constraint(cdyn_stepper *st, size_t r, const double *q, const double *v, double t,
                         cdyn_row *out, size_t *first, unsigned *count)
{
  if (r >= st->m)
    return cdyn_error(CDYN_EINVAL, "cdyn_eval_constraint: row %zu of %zu", r, st->m);
  size_t c = st->rowcon[r];
  const cdyn_constraint *con = &st->sys->cons[c];
  if (first)
    *first = st->con_row0[c];
  if (count)
    *count = con->type->rows;
  return cdyn_constraint_eval(con, q, v, t, out);
}

int cdyn_forces(cdyn_stepper *st, const double *q, const double *v, double t, double *F)
{
  return cdyn_system_eval_forces(st->sys, q, v, t, F);
}

int cdyn_free_accel(cdyn_stepper *st, const double *q, const double *v, double t, double *a)
{
  const double *w = st->sys->winv;
  int rc = cdyn_forces(st, q, v, t, st->F);
  if (rc)
    return rc;
  for (size_t i = 0; i < st->n; i++)
    for (int d = 0; d < 3; d++)
      a[3 * i + d] = w[i] * st->F[3 * i + d];
  return CDYN_OK;
}

int cdyn_assemble(cdyn_stepper *st, const double *d)
{
  if (!st->m)
    return CDYN_OK;
  /* The pattern of rows that changed is built here, untimed, as it was
     when the change was followed. */
  int rc = cdyn_pattern_build(st);
  if (rc)
    return rc;
  double t0 = cdyn_clock();
  double *val = st->val;
  /* With a factorisation of the current values, keep them to compare. */
  int factored = st->factored && st->factored == st->values;
  if (factored)
    memcpy(st->val_prev, val, st->nnz * sizeof(double));
  memset(val, 0, st->nnz * sizeof(double));
  for (size_t k = 0; k < st->ncontrib; k++) {
    const cdyn_contrib *c = &st->contrib[k];
    const double *ja = st->rows[c->ra].jac[c->sa], *jb = st->rows[c->rb].jac[c->sb];
    val[c->k] += d[c->p] * (ja[0] * jb[0] + ja[1] * jb[1] + ja[2] * jb[2]);
  }
  for (size_t r = 0; r < st->m; r++)
    st->diag[r] = val[st->A.rowptr[r]];
  /* The pinned hubs' rows (pattern.c): their J blocks on the hub, which
     cdyn_solve_many uses with this factorisation. */
  for (size_t k = 0; k < st->nhub; k++) {
    const double *j = st->rows[st->hrow[k]].jac[st->hslot[k]];
    size_t p = st->rowpart[st->hpin[k] * CDYN_MAX_PARTICLES];
    if (!(d[p] > 0))
      return cdyn_error(CDYN_EINVAL, "stepper: particle %zu, a pinned hub of A, has weight %g; its pin block "
                        "d I cannot be eliminated (it must be > 0)", p, d[p]);
    st->hj[3 * k] = j[0], st->hj[3 * k + 1] = j[1], st->hj[3 * k + 2] = j[2];
  }
  /* The same values, bit for bit, as the ones factored: the factorisation
     stays valid (RATTLE's projection at q_(n+1) and the next step's
     A(q_(n+1)) are one matrix). */
  if (!factored || memcmp(val, st->val_prev, st->nnz * sizeof(double)))
    st->values++;
  st->stats.assemblies++;
  st->stats.time_assembly += cdyn_clock() - t0;
  return CDYN_OK;
}

static const void *solver_opts(const cdyn_stepper *st) { return st->solver_opts[st->solver_k]; }

int cdyn_factor(cdyn_stepper *st)
{
  if (!st->m)
    return CDYN_OK;
  int prc = cdyn_pattern_build(st);
  if (prc)
    return prc;
  if (st->factored == st->values && st->factored)
    return st->factor_status;
  cdyn_solve_info info = {0};
  double t0 = cdyn_clock();
  int rc = st->solver->setup(st->solver_state, &st->mat, st->common.rank_tol, solver_opts(st), &info);
  st->stats.time_factor += cdyn_clock() - t0;
  st->stats.factorizations += info.factorizations;
  st->stats.analyses += info.analyses;
  st->stats.last_rank = info.rank;
  if (info.factorizations && rc >= 0)
    st->stats.factor_nnz = info.factor_nnz;
  st->factored = rc < 0 ? 0 : st->values;
  st->factor_status = rc;
  return rc;
}

/* A x = b with the pinned hubs eliminated (pattern.c, "Pinned hubs"):
   b reduced, M x' = b', the hubs' pin rows recovered; a right-hand side
   at a time. */
static int solve_hubs(cdyn_stepper *st, size_t nrhs, const double *b, double *x, cdyn_solve_info *info)
{
  size_t m = st->m;
  double *y = st->hrhs;
  int rc = CDYN_OK;
  for (size_t q = 0; q < nrhs && rc >= 0; q++) {
    const double *bq = b + q * m;
    double *xq = x + q * m;
    memcpy(y, bq, m * sizeof(double));
    for (size_t k = 0; k < st->nhub; k++) {
      const double *j = st->hj + 3 * k, *be = bq + st->hpin[k];
      y[st->hrow[k]] -= j[0] * be[0] + j[1] * be[1] + j[2] * be[2];
    }
    cdyn_solve_info one = {0};
    int r1 = st->solver->solve(st->solver_state, &st->mat, 1, y, xq, st->common.rank_tol, solver_opts(st), &one);
    info->factorizations += one.factorizations;
    if (one.factorizations)
      info->factor_nnz = one.factor_nnz;
    info->iterations += one.iterations;
    info->residual = fmax(info->residual, one.residual);
    info->rank = one.rank;
    info->fallback |= one.fallback;
    if (r1 < 0 || rc == CDYN_OK)
      rc = r1;
    if (r1 < 0)
      break;
    for (size_t k = 0; k < st->nhub; k++) {
      const double *j = st->hj + 3 * k;
      double xr = xq[st->hrow[k]];
      double *xe = xq + st->hpin[k];
      xe[0] -= j[0] * xr, xe[1] -= j[1] * xr, xe[2] -= j[2] * xr;
    }
  }
  return rc;
}

int cdyn_solve_many(cdyn_stepper *st, size_t nrhs, const double *b, double *x)
{
  if (!st->m || !nrhs)
    return CDYN_OK;
  cdyn_solve_info info = {0};
  double t0 = cdyn_clock();
  int rc = st->nhub ? solve_hubs(st, nrhs, b, x, &info)
                    : st->solver->solve(st->solver_state, &st->mat, nrhs, b, x, st->common.rank_tol,
                                        solver_opts(st), &info);
  st->stats.time_solve += cdyn_clock() - t0;
  st->stats.solves += nrhs;
  st->stats.factorizations += info.factorizations;
  if (info.factorizations && rc >= 0)
    st->stats.factor_nnz = info.factor_nnz;
  st->stats.iterations += info.iterations;
  st->stats.last_residual = info.residual;
  st->stats.last_rank = info.rank;
  if (info.fallback)
    st->stats.fallbacks++;
  if (rc == CDYN_NOCONV)
    st->stats.noconv++;
  return rc;
}

int cdyn_solve(cdyn_stepper *st, const double *b, double *x) { return cdyn_solve_many(st, 1, b, x); }

int cdyn_prepare(cdyn_stepper *st, const double *q, const double *v, double t)
{
  if (!st->m)
    return CDYN_OK;
  int rc;
  if ((rc = cdyn_eval_rows(st, q, v, t)) || (rc = cdyn_assemble(st, st->sys->winv)))
    return rc;
  return cdyn_factor(st);
}

void cdyn_jmul(const cdyn_stepper *st, const double *x, double *y)
{
  for (size_t r = 0; r < st->m; r++) {
    double s = 0;
    for (unsigned k = 0; k < st->rownp[r]; k++) {
      const double *j = st->rows[r].jac[k];
      const double *xp = x + 3 * st->rowpart[r * CDYN_MAX_PARTICLES + k];
      s += j[0] * xp[0] + j[1] * xp[1] + j[2] * xp[2];
    }
    y[r] = s;
  }
}

void cdyn_jtmul(const cdyn_stepper *st, const double *y, double *x)
{
  memset(x, 0, 3 * st->n * sizeof(double));
  for (size_t r = 0; r < st->m; r++)
    for (unsigned k = 0; k < st->rownp[r]; k++) {
      const double *j = st->rows[r].jac[k];
      double *xp = x + 3 * st->rowpart[r * CDYN_MAX_PARTICLES + k];
      xp[0] += j[0] * y[r];
      xp[1] += j[1] * y[r];
      xp[2] += j[2] * y[r];
    }
}

int cdyn_constrained_accel(cdyn_stepper *st, const double *q, const double *v, double t,
                           double alpha, double beta, double *a, const cdyn_accel_work *work)
{
  const double *w = st->sys->winv;
  int rc;
  if ((rc = cdyn_free_accel(st, q, v, t, a)) || !st->m)
    return rc;
  if ((rc = cdyn_prepare(st, q, v, t)))
    return rc;
  double *b = work->b, *jv = work->jv, *jt = work->jt;
  cdyn_jmul(st, a, b);
  cdyn_jmul(st, v, jv);
  for (size_t r = 0; r < st->m; r++) {
    const cdyn_row *row = &st->rows[r];
    b[r] += row->jdotv + row->phi_tt + 2 * alpha * (jv[r] + row->phi_t) + beta * beta * row->phi;
  }
  int src = cdyn_solve(st, b, st->lambda);
  if (src < 0)
    return src;
  cdyn_jtmul(st, st->lambda, jt);
  for (size_t i = 0; i < st->n; i++)
    for (int d = 0; d < 3; d++)
      a[3 * i + d] -= w[i] * jt[3 * i + d];
  return src;
}

/* ---- integrators -------------------------------------------------------------- */

int cdyn_integrator_work_alloc(cdyn_integrator_work *w, size_t n)
{
  if (!w)
    return cdyn_error(CDYN_EINVAL, "cdyn_integrator_work_alloc: work is NULL");
  memset(w, 0, sizeof *w);
  return vectors_alloc(&w->block, w->vec, CDYN_INTEGRATOR_NVEC, 3 * n);
}

void cdyn_integrator_work_free(cdyn_integrator_work *w)
{
  if (!w)
    return;
  free(w->block);
  memset(w, 0, sizeof *w);
}

void cdyn_integrator_work_reset(cdyn_integrator_work *w)
{
  if (w)
    w->history = 0;
}

int cdyn_integrate(cdyn_stepper *st, const cdyn_integrator_type *it, cdyn_integrator_work *w,
                   cdyn_accel_fn accel, void *ctx, double h)
{
  cdyn_system *s = st->sys;
  int rc = it->step(st, w, accel, ctx, s->q, s->v, s->t, h);
  if (rc >= 0) {
    w->history = 1;
    w->h_last = h;
  }
  return rc;
}

int cdyn_integrated_alloc(void **state, size_t size, size_t n, const size_t *offsets, const size_t *lens,
                          size_t count)
{
  if (!state || size < sizeof(cdyn_integrated))
    return cdyn_error(CDYN_EINVAL, "cdyn_integrated_alloc: NULL state or size below its head");
  int rc = cdyn_state_alloc(state, size, offsets, lens, count);
  if (rc)
    return rc;
  return cdyn_integrator_work_alloc(&((cdyn_integrated *)*state)->iw, n);
}

void cdyn_integrated_free(void *state)
{
  cdyn_integrated *h = state;
  if (h)
    cdyn_integrator_work_free(&h->iw);
  free(h);
}

void cdyn_integrated_reset(void *state)
{
  if (state)
    cdyn_integrator_work_reset(&((cdyn_integrated *)state)->iw);
}

/* ---- nonlinear iterations --------------------------------------------------------- */

void cdyn_record_nonlinear(cdyn_stepper *st, unsigned iterations, double residual, int converged)
{
  st->stats.nonlinear_iterations += iterations;
  st->stats.last_nonlinear_iterations = iterations;
  st->stats.last_nonlinear_residual = residual;
  if (!converged)
    st->stats.nonlinear_noconv++;
}

enum cdyn_iter_verdict cdyn_iter_verdict(const cdyn_stepper *st, const double *q, double r,
                                         double rprev, double tol, unsigned iterations,
                                         long max_iter)
{
  if (!isfinite(r))
    return CDYN_ITER_DIVERGED;
  if (r <= tol)
    return CDYN_ITER_CONVERGED;
  if (r >= rprev) {
    double qmax = 0;
    for (size_t k = 0; k < 3 * st->n; k++)
      qmax = fmax(qmax, fabs(q[k]));
    return rprev <= 64 * DBL_EPSILON * qmax ? CDYN_ITER_STALLED : CDYN_ITER_DIVERGED;
  }
  if ((long)iterations >= max_iter)
    return CDYN_ITER_LIMIT;
  return CDYN_ITER_CONTINUE;
}

int cdyn_iter_correct(cdyn_stepper *st, const double *b, double *dl, double *lambda, int *linear)
{
  if (!st || !b || !dl || !lambda || !linear)
    return cdyn_error(CDYN_EINVAL, "cdyn_iter_correct: NULL argument");
  int src = cdyn_solve(st, b, dl);
  if (src < 0)
    return src;
  if (src > *linear)
    *linear = src;
  for (size_t i = 0; i < st->m; i++)
    lambda[i] += dl[i];
  return CDYN_OK;
}

/* A linear solve leaving more than this relative residual did not solve its
   system: a consistent one, singular or not, is solved to rounding. */
#define INCONSISTENT_RESIDUAL 1e-6

int cdyn_iter_finish(cdyn_stepper *st, const char *name, enum cdyn_iter_verdict verdict,
                     unsigned iterations, double r, double rprev, double tol, int linear)
{
  cdyn_record_nonlinear(st, iterations, r, verdict == CDYN_ITER_CONVERGED);
  double t = st->sys->t;
  switch (verdict) {
  case CDYN_ITER_CONVERGED:
    return linear;
  case CDYN_ITER_LIMIT:
    return cdyn_error(CDYN_NOCONV, "%s: residual %.3g after %u iterations at t = %g (tol %.3g)", name, r,
                      iterations, t, tol);
  case CDYN_ITER_STALLED:
    return cdyn_error(CDYN_NOCONV, "%s: residual stalled at %.3g, the rounding level, at t = %g (tol %.3g)",
                      name, r, t, tol);
  default:
    /* A residual that does not fall although the last linear solve left
       part of its right-hand side unsolved (a least-squares solve of a
       singular A, relative residual well above rounding) is not a step too
       large: the linearised constraints have no solution, as when a
       particle is pinned at two points, and no step size helps. */
    if (st->stats.last_residual > INCONSISTENT_RESIDUAL)
      return cdyn_error(CDYN_EINFEASIBLE,
                        "%s: the constraints are inconsistent at t = %g: the linearised system has no solution (its "
                        "least-squares solve leaves %.3g of the right-hand side), so the residual %.3g cannot be "
                        "reduced at any step size",
                        name, t, st->stats.last_residual, r);
    return cdyn_error(CDYN_EDIVERGED,
                      "%s: the iteration diverged at t = %g: residual %.3g after iteration %u, %.3g before "
                      "(step too large for the constraint curvature?)",
                      name, t, r, iterations, rprev);
  }
}

/* ---- the sub-step observer ---------------------------------------------------- */

/* The observer's answer as a status: CDYN_OK goes on, a negative status
   is the step's, anything else is refused. */
int cdyn_substep_observed(const cdyn_stepper *st, unsigned long k, double t, const double *q)
{
  int rc = st->substep_fn(st->substep_ctx, k, t, q);
  if (rc == CDYN_OK || rc < 0)
    return rc;
  return cdyn_error(CDYN_EINVAL, "the sub-step observer returned %d at sub-step %lu of the step from t = %g (not a "
                    "status: CDYN_OK or a negative one)", rc, k, st->d.t);
}

int cdyn_substep_reached(cdyn_stepper *st, double t, const double *q)
{
  if (!st || !q)
    return cdyn_error(CDYN_EINVAL, "cdyn_substep_reached: NULL argument");
  if (!st->substep_fn)
    return CDYN_OK;
  return cdyn_substep_observed(st, ++st->substep_k, t, q);
}
