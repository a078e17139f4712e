/*
 * stepper.c: the machinery every scheme shares.
 *
 * Assembly of A = J D J^T (D = W for the dynamics, D = I for 001's
 * unweighted post-stabilization).  Row r of J touches particles P(r) (at
 * most 4), so
 *   A_ab = sum over p in P(a) and P(b) of d_p J_a,p . J_b,p .
 * The sparsity pattern of A (rows sharing a particle) is fixed by the
 * constraint set, so it is built once, as a GSL CSR matrix, together with
 * the list of contributions (CSR index, rows, particle); each assembly
 * then zeroes the values and adds the contributions.  Nothing allocates
 * after cdyn_stepper_new.
 *
 * The constrained acceleration (001 eqs 7-10, Baumgarte's stabilisation):
 *   Phi-double-dot = J qdd + (Jv)_q v + 2 Phi_qt v + Phi_tt
 *   asking Phi-double-dot + 2 alpha Phi-dot + beta^2 Phi = 0 with
 *   qdd = W (F - J^T lambda) gives
 *   A lambda = J W F + (Jv)_q v + 2 Phi_qt v + Phi_tt
 *              + 2 alpha (J v + Phi_t) + beta^2 Phi.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn_internal.h"

#include "config.h"

/* Above this many rows the automatic solver choice is PCG. */
#define AUTO_DENSE_MAX_ROWS 256

const char *cdyn_version(void) { return PACKAGE_VERSION; }

/* ---- common options ------------------------------------------------------ */

static const cdyn_option common_options[] = {
  {"pcg_tol", CDYN_OPT_DOUBLE, offsetof(cdyn_solve_opts, pcg_tol), "1e-12", 1e-16, 1.0, NULL,
   "relative residual at which PCG stops"},
  {"pcg_maxiter", CDYN_OPT_INT, offsetof(cdyn_solve_opts, pcg_maxiter), "0", 0, 1e9, NULL,
   "PCG iteration limit (0: 10 m)"},
  {"rank_tol", CDYN_OPT_DOUBLE, offsetof(cdyn_solve_opts, rank_tol), "1e-12", 0.0, 1.0, NULL,
   "relative pivot below which A is solved by least squares"},
  CDYN_OPTIONS_END};

static size_t table_len(const cdyn_option *t)
{
  size_t k = 0;
  while (t && t[k].name)
    k++;
  return k;
}

/* Option i: 0 is "solver", then the common table, then the scheme's. */
static const cdyn_option *option_at(const cdyn_stepper *st, size_t i, void **base)
{
  size_t nc = table_len(common_options);
  if (i >= 1 && i < 1 + nc) {
    *base = (void *)&st->so;
    return &common_options[i - 1];
  }
  if (i >= 1 + nc && i < 1 + nc + table_len(st->type->options)) {
    *base = st->opts;
    return &st->type->options[i - 1 - nc];
  }
  return NULL;
}

size_t cdyn_stepper_option_count(const cdyn_stepper *st)
{
  return st ? 1 + table_len(common_options) + table_len(st->type->options) : 0;
}

const char *cdyn_stepper_option_name(const cdyn_stepper *st, size_t i)
{
  if (!st)
    return NULL;
  if (i == 0)
    return "solver";
  void *base;
  const cdyn_option *o = option_at(st, i, &base);
  return o ? o->name : NULL;
}

const char *cdyn_stepper_option_doc(const cdyn_stepper *st, size_t i)
{
  if (!st)
    return NULL;
  if (i == 0)
    return "linear solver: auto (cholesky up to 256 rows, pcg above) or a solver name";
  void *base;
  const cdyn_option *o = option_at(st, i, &base);
  return o ? o->doc : NULL;
}

static int use_solver(cdyn_stepper *st, const cdyn_solver_type *type, int is_auto)
{
  void *state = NULL;
  int rc = type->alloc(&state, st->m);
  if (rc)
    return rc;
  if (st->solver)
    st->solver->free(st->solver_state);
  st->solver = type;
  st->solver_state = state;
  st->solver_auto = is_auto;
  return CDYN_OK;
}

static int set_solver(cdyn_stepper *st, const char *value)
{
  const cdyn_solver_type *type;
  int is_auto = !strcmp(value, "auto");
  if (is_auto) {
    int rc = cdyn_solver_type_find(st->m <= AUTO_DENSE_MAX_ROWS ? "cholesky" : "pcg", &type);
    if (rc)
      return rc;
  } else {
    int rc = cdyn_solver_type_find(value, &type);
    if (rc)
      return rc;
  }
  return use_solver(st, type, is_auto);
}

int cdyn_stepper_set(cdyn_stepper *st, const char *key, const char *value)
{
  if (!st || !key || !value)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_set: NULL argument");
  if (!strcmp(key, "solver"))
    return set_solver(st, value);
  for (size_t i = 1; i < cdyn_stepper_option_count(st); i++) {
    void *base;
    const cdyn_option *o = option_at(st, i, &base);
    if (!strcmp(o->name, key)) {
      int rc = cdyn_option_parse(o, base, value);
      /* A scheme option (alpha, the integrator, ...) changes the equations
         that multistep history was computed for, and a new integrator
         finds in its scratch vectors whatever the old one left there: the
         next step starts afresh.  The common solver options do not touch
         the history. */
      if (rc == CDYN_OK && base == st->opts) {
        st->have_history = 0;
        if (st->type->reset)
          st->type->reset(st);
      }
      return rc;
    }
  }
  return cdyn_error(CDYN_EUNKNOWN, "scheme '%s' has no option '%s'", st->type->name, key);
}

int cdyn_stepper_get(const cdyn_stepper *st, const char *key, char *buf, size_t len)
{
  if (!st || !key || !buf || len == 0)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_get: NULL argument");
  if (!strcmp(key, "solver")) {
    int w = snprintf(buf, len, "%s%s%s", st->solver_auto ? "auto(" : "", st->solver->name,
                     st->solver_auto ? ")" : "");
    if (w < 0 || (size_t)w >= len)
      return cdyn_error(CDYN_EINVAL, "cdyn_stepper_get: buffer too small");
    return CDYN_OK;
  }
  for (size_t i = 1; i < cdyn_stepper_option_count(st); i++) {
    void *base;
    const cdyn_option *o = option_at(st, i, &base);
    if (!strcmp(o->name, key))
      return cdyn_option_format(o, base, buf, len);
  }
  return cdyn_error(CDYN_EUNKNOWN, "scheme '%s' has no option '%s'", st->type->name, key);
}

/* ---- construction ----------------------------------------------------------- */

void cdyn_stepper_free(cdyn_stepper *st)
{
  if (!st)
    return;
  if (st->solver)
    st->solver->free(st->solver_state);
  if (st->A)
    gsl_spmatrix_free(st->A);
  free(st->rows);
  free(st->rowpart);
  free(st->rownp);
  free(st->contrib);
  free(st->F);
  free(st->lambda);
  for (int k = 0; k < CDYN_NVEC; k++)
    free(st->vec[k]);
  for (int k = 0; k < CDYN_NMVEC; k++)
    free(st->mvec[k]);
  free(st->ones);
  free(st->q0);
  free(st->v0);
  if (st->scheme_state && st->type->fini)
    st->type->fini(st);
  free(st->opts);
  free(st);
}

/*
 * Position of column `col` within CSR row `row` of A.  GSL does not promise
 * sorted column indices within a row, and rows are short (the rows that
 * share a particle), so this scans.
 */
static size_t csr_index(const gsl_spmatrix *A, size_t row, size_t col)
{
  for (int k = A->p[row]; k < A->p[row + 1]; k++)
    if ((size_t)A->i[k] == col)
      return (size_t)k;
  return SIZE_MAX;
}

/* The pattern of A and the contribution list, from the rows' particles. */
static int build_pattern(cdyn_stepper *st)
{
  size_t n = st->n, m = st->m;
  int rc = CDYN_ENOMEM;
  size_t *deg = calloc(n + 1, sizeof *deg), *start = NULL;
  size_t *lrow = NULL;
  unsigned *lslot = NULL;
  gsl_spmatrix *coo = NULL;
  if (!deg)
    goto out;
  size_t total = 0;
  for (size_t r = 0; r < m; r++)
    for (unsigned s = 0; s < st->rownp[r]; s++) {
      deg[st->rowpart[r * CDYN_MAX_PARTICLES + s]]++;
      total++;
    }
  start = malloc((n + 1) * sizeof *start);
  lrow = malloc((total ? total : 1) * sizeof *lrow);
  lslot = malloc((total ? total : 1) * sizeof *lslot);
  if (!start || !lrow || !lslot)
    goto out;
  start[0] = 0;
  for (size_t p = 0; p < n; p++)
    start[p + 1] = start[p] + deg[p];
  memset(deg, 0, (n + 1) * sizeof *deg);
  size_t ncontrib = 0;
  for (size_t r = 0; r < m; r++)
    for (unsigned s = 0; s < st->rownp[r]; s++) {
      size_t p = st->rowpart[r * CDYN_MAX_PARTICLES + s];
      lrow[start[p] + deg[p]] = r;
      lslot[start[p] + deg[p]] = s;
      deg[p]++;
    }
  for (size_t p = 0; p < n; p++)
    ncontrib += deg[p] * deg[p];
  coo = gsl_spmatrix_alloc_nzmax(m, m, ncontrib ? ncontrib : 1, GSL_SPMATRIX_COO);
  if (!coo)
    goto out;
  /* Every row gets its diagonal, even one whose Jacobian is empty. */
  for (size_t r = 0; r < m; r++)
    if (gsl_spmatrix_set(coo, r, r, 1.0))
      goto out;
  for (size_t p = 0; p < n; p++)
    for (size_t a = start[p]; a < start[p + 1]; a++)
      for (size_t b = start[p]; b < start[p + 1]; b++)
        if (gsl_spmatrix_set(coo, lrow[a], lrow[b], 1.0))
          goto out;
  st->A = gsl_spmatrix_compress(coo, GSL_SPMATRIX_CSR);
  st->contrib = malloc((ncontrib ? ncontrib : 1) * sizeof *st->contrib);
  if (!st->A || !st->contrib)
    goto out;
  st->ncontrib = 0;
  for (size_t p = 0; p < n; p++)
    for (size_t a = start[p]; a < start[p + 1]; a++)
      for (size_t b = start[p]; b < start[p + 1]; b++) {
        cdyn_contrib *c = &st->contrib[st->ncontrib++];
        c->ra = lrow[a];
        c->rb = lrow[b];
        c->sa = lslot[a];
        c->sb = lslot[b];
        c->p = p;
        c->k = csr_index(st->A, c->ra, c->rb);
        if (c->k == SIZE_MAX)
          goto out; /* cannot happen: every pair was entered above */
      }
  rc = CDYN_OK;
out:
  if (coo)
    gsl_spmatrix_free(coo);
  free(deg);
  free(start);
  free(lrow);
  free(lslot);
  if (rc)
    return cdyn_error(rc, "cdyn_stepper_new: out of memory building A's pattern");
  return rc;
}

int cdyn_stepper_new(cdyn_stepper **out, cdyn_system *sys, const char *scheme)
{
  if (!out)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_new: out is NULL");
  *out = NULL;
  if (!sys)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_new: system is NULL");
  if (!scheme)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_new: scheme name is NULL");
  size_t idx;
  int rc = cdyn_scheme_find(scheme, &idx);
  if (rc)
    return rc;
  cdyn_stepper *st = calloc(1, sizeof *st);
  if (!st)
    return cdyn_error(CDYN_ENOMEM, "cdyn_stepper_new: out of memory");
  st->type = cdyn_scheme_types[idx];
  if (sys->m_ineq && !st->type->inequalities) {
    free(st);
    return cdyn_error(CDYN_EINVAL,
                      "cdyn_stepper_new: scheme '%s' enforces equalities only, and the system has %zu "
                      "inequality rows; use the scheme 'contact'",
                      scheme, sys->m_ineq);
  }
  st->sys = sys;
  st->version = sys->version;
  st->n = sys->n;
  st->m = sys->m;
  size_t n3 = 3 * st->n, m = st->m, mm = m ? m : 1;
  st->rows = calloc(mm, sizeof *st->rows);
  st->rowpart = calloc(mm * CDYN_MAX_PARTICLES, sizeof *st->rowpart);
  st->rownp = calloc(mm, sizeof *st->rownp);
  st->F = calloc(n3, sizeof(double));
  st->lambda = calloc(mm, sizeof(double));
  st->ones = malloc(st->n * sizeof(double));
  st->q0 = malloc(n3 * sizeof(double));
  st->v0 = malloc(n3 * sizeof(double));
  st->opts = calloc(1, st->type->options_size ? st->type->options_size : 1);
  int ok = st->rows && st->rowpart && st->rownp && st->F && st->lambda && st->ones && st->q0 &&
           st->v0 && st->opts;
  for (int k = 0; k < CDYN_NVEC && ok; k++)
    ok = (st->vec[k] = calloc(n3, sizeof(double))) != NULL;
  for (int k = 0; k < CDYN_NMVEC && ok; k++)
    ok = (st->mvec[k] = calloc(mm, sizeof(double))) != NULL;
  if (!ok) {
    cdyn_stepper_free(st);
    return cdyn_error(CDYN_ENOMEM, "cdyn_stepper_new: out of memory for n = %zu, m = %zu", st->n, m);
  }
  for (size_t i = 0; i < st->n; i++)
    st->ones[i] = 1.0;
  for (size_t c = 0; c < sys->ncons; c++) {
    const cdyn_constraint *con = &sys->cons[c];
    for (unsigned r = 0; r < con->type->rows; r++) {
      size_t row = con->row0 + r;
      st->rownp[row] = con->type->nparticles;
      for (unsigned s = 0; s < con->type->nparticles; s++)
        st->rowpart[row * CDYN_MAX_PARTICLES + s] = con->p[s];
    }
  }
  if (m && (rc = build_pattern(st)) != CDYN_OK) {
    cdyn_stepper_free(st);
    return rc;
  }
  /* Defaults: the common options, then the scheme's. */
  for (size_t i = 1; i < cdyn_stepper_option_count(st); i++) {
    void *base;
    const cdyn_option *o = option_at(st, i, &base);
    if ((rc = cdyn_option_parse(o, base, o->def)) != CDYN_OK) {
      cdyn_stepper_free(st);
      return rc;
    }
  }
  if ((rc = set_solver(st, "auto")) != CDYN_OK) {
    cdyn_stepper_free(st);
    return rc;
  }
  if (st->type->init && (rc = st->type->init(st)) != CDYN_OK) {
    cdyn_stepper_free(st);
    return rc;
  }
  *out = st;
  return CDYN_OK;
}

const char *cdyn_stepper_scheme(const cdyn_stepper *st) { return st ? st->type->name : NULL; }

int cdyn_stepper_stats(const cdyn_stepper *st, cdyn_stats *stats)
{
  if (!st || !stats)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_stats: NULL argument");
  *stats = st->stats;
  return CDYN_OK;
}

int cdyn_stepper_reset_stats(cdyn_stepper *st)
{
  if (!st)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_reset_stats: stepper is NULL");
  memset(&st->stats, 0, sizeof st->stats);
  return CDYN_OK;
}

int cdyn_stepper_multipliers(const cdyn_stepper *st, double *lambda)
{
  if (!st || (!lambda && st->m))
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_multipliers: NULL argument");
  if (st->m)
    memcpy(lambda, st->lambda, st->m * sizeof(double));
  return CDYN_OK;
}

int cdyn_stepper_reset(cdyn_stepper *st)
{
  if (!st)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_reset: stepper is NULL");
  st->have_history = 0;
  if (st->type->reset)
    st->type->reset(st);
  return CDYN_OK;
}

/* ---- the step ---------------------------------------------------------------- */

int cdyn_stepper_step(cdyn_stepper *st, double h)
{
  if (!st)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_step: stepper is NULL");
  if (!isfinite(h) || !(h > 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_step: step size h = %g must be finite and > 0", h);
  cdyn_system *sys = st->sys;
  if (sys->version != st->version || sys->n != st->n || sys->m != st->m)
    return cdyn_error(CDYN_ESTALE,
                      "cdyn_stepper_step: springs or constraints were added after the stepper was built; build a new one");
  size_t n3 = 3 * st->n;
  if (!cdyn_all_finite(sys->q, n3) || !cdyn_all_finite(sys->v, n3))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_stepper_step: the state is not finite at t = %g", sys->t);
  memcpy(st->q0, sys->q, n3 * sizeof(double));
  memcpy(st->v0, sys->v, n3 * sizeof(double));
  double t0 = sys->t;
  int rc = st->type->step(st, h);
  if (rc >= 0 && (!cdyn_all_finite(sys->q, n3) || !cdyn_all_finite(sys->v, n3)))
    rc = cdyn_error(CDYN_ENONFINITE,
                    "scheme %s: the state became non-finite in the step from t = %g with h = %g "
                    "(unstable at this step size?)",
                    st->type->name, t0, h);
  if (rc < 0) {
    memcpy(sys->q, st->q0, n3 * sizeof(double));
    memcpy(sys->v, st->v0, n3 * sizeof(double));
    sys->t = t0;
    /* Multistep history may have been overwritten by the failed step. */
    st->have_history = 0;
    if (st->type->reset)
      st->type->reset(st);
    return rc;
  }
  sys->t = t0 + h;
  st->stats.steps++;
  st->have_history = 1;
  st->h_last = h;
  return rc;
}

/* ---- building blocks ------------------------------------------------------------- */

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
    return cdyn_error(CDYN_EDIVERGED,
                      "%s: the iteration diverged at t = %g: residual %.3g after iteration %u, %.3g before "
                      "(step too large for the constraint curvature?)",
                      name, t, r, iterations, rprev);
  }
}

int cdyn_eval_rows(cdyn_stepper *st, const double *q, const double *v, double t)
{
  const cdyn_system *sys = st->sys;
  for (size_t c = 0; c < sys->ncons; c++) {
    const cdyn_constraint *con = &sys->cons[c];
    int rc = cdyn_constraint_eval(con, q, v, t, st->rows + con->row0);
    if (rc)
      return rc;
  }
  st->stats.constraint_evals++;
  return CDYN_OK;
}

int cdyn_forces(cdyn_stepper *st, const double *q, const double *v, double t, double *F)
{
  return cdyn_system_eval_forces(st->sys, q, v, t, F);
}

int cdyn_assemble(cdyn_stepper *st, const double *d)
{
  if (!st->m)
    return CDYN_OK;
  double *val = st->A->data;
  memset(val, 0, st->A->nz * sizeof(double));
  for (size_t k = 0; k < st->ncontrib; k++) {
    const cdyn_contrib *c = &st->contrib[k];
    const double *ja = st->rows[c->ra].jac[c->sa], *jb = st->rows[c->rb].jac[c->sb];
    val[c->k] += d[c->p] * (ja[0] * jb[0] + ja[1] * jb[1] + ja[2] * jb[2]);
  }
  st->stats.assemblies++;
  return CDYN_OK;
}

int cdyn_factor(cdyn_stepper *st)
{
  if (!st->m)
    return CDYN_OK;
  cdyn_solve_info info = {0, 0, 0, 0};
  int rc = st->solver->factor(st->solver_state, st->A, &st->so, &info);
  st->stats.last_rank = info.rank;
  return rc;
}

int cdyn_solve(cdyn_stepper *st, const double *b, double *x)
{
  if (!st->m)
    return CDYN_OK;
  cdyn_solve_info info = {0, 0, 0, 0};
  int rc = st->solver->solve(st->solver_state, st->A, b, x, &st->so, &info);
  st->stats.solves++;
  st->stats.iterations += info.iterations;
  st->stats.last_residual = info.residual;
  st->stats.last_rank = info.rank;
  if (info.fallback)
    st->stats.fallbacks++;
  if (rc == CDYN_NOCONV)
    st->stats.noconv++;
  return rc;
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

int cdyn_prepare(cdyn_stepper *st, const double *q, const double *v, double t)
{
  if (!st->m)
    return CDYN_OK;
  int rc;
  if ((rc = cdyn_eval_rows(st, q, v, t)) || (rc = cdyn_assemble(st, st->sys->winv)))
    return rc;
  return cdyn_factor(st);
}

int cdyn_constrained_accel(cdyn_stepper *st, const double *q, const double *v, double t,
                           double alpha, double beta, double *a)
{
  const double *w = st->sys->winv;
  int rc;
  if ((rc = cdyn_free_accel(st, q, v, t, a)) || !st->m)
    return rc;
  if ((rc = cdyn_prepare(st, q, v, t)))
    return rc;
  double *b = st->mvec[0], *jv = st->mvec[1], *jt = st->vec[CDYN_NVEC - 1];
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
