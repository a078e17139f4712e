/*
 * stepper.c: a scheme running on a system.
 *
 * A stepper joins a system, a scheme type (cdyn/scheme.h) with its option
 * struct and its state, and a linear solver type with its state.  It
 * sizes everything when it is built (cdyn_layout_build for the rows and
 * A's pattern, the scheme's alloc, the solver's alloc), so that a step
 * allocates nothing.  Each step:
 *   1. brings the row layout up to date with the system's constraint set
 *      (cdyn_layout_follow, layout.c), telling the scheme what changed;
 *   2. backs the state up and calls the scheme's step;
 *   3. restores the state, and resets the scheme's history, when the step
 *      failed (a negative status) or left a non-finite state; otherwise
 *      advances the time.
 *
 * Options are text set by name: "solver", each solver type's own options
 * (pcg_tol and pcg_maxiter of pcg), the common rank_tol (used by the
 * dense solver and the active-set sub-solves) and max_error (the
 * divergence guard), then the scheme's.  Setting
 * a scheme option resets the scheme's history: the equations that history
 * was computed for have changed.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepper/internal.h"

/*
 * solver=auto, decided when the stepper is built (and again when its row
 * capacity grows), from the capacity:
 *   capacity <= AUTO_DENSE_MAX_ROWS   cholesky (dense LAPACKE)
 *   else                              cholmod (sparse Cholesky)
 * PCG is never the automatic choice: it is not exact.  The banded solver
 * is not either: measured on chains numbered along themselves (A
 * tridiagonal, its best case), it is slower than CHOLMOD at every size
 * (make bench: 0.114 against 0.092 ms per implicit step at 1000 links,
 * 0.61 against 0.49 ms at 5000; bare factor and solve 0.041 against
 * 0.033 ms at 1000).  Up to 256 rows the dense factorisation costs no
 * more than a sparse one's bookkeeping, and keeps the results of the
 * papers' small problems as they were.
 */
#define AUTO_DENSE_MAX_ROWS 256

static const char *auto_solver(const cdyn_stepper *st)
{
  return st->mcap <= AUTO_DENSE_MAX_ROWS ? "cholesky" : "cholmod";
}

/* ---- options ----------------------------------------------------------------- */

static const cdyn_option common_options[] = {
  {"rank_tol", CDYN_OPT_DOUBLE, offsetof(cdyn_common_opts, rank_tol), "1e-12", 0.0, 1.0, NULL,
   "relative pivot below which A is solved by least squares"},
  {"max_error", CDYN_OPT_DOUBLE, offsetof(cdyn_common_opts, max_error), "0", 0.0, 1e300, NULL,
   "divergence guard: a step after which the constraint error e_n (m) exceeds it fails with CDYN_EDIVERGED, the "
   "state restored (0: off)"},
  CDYN_OPTIONS_END};

/*
 * Option i of a stepper of scheme `type` that knows the first nsolvers
 * solver types: 0 is "solver" (no table entry), then each solver type's
 * table, then the common table, then the scheme's.  *where gets the
 * struct the option lives in: -1 the common options, k >= 0 solver type
 * k's, and SCHEME_OPTS the scheme's.
 */
#define SCHEME_OPTS (-2)
static const cdyn_option *option_entry(const cdyn_scheme_type *type, size_t nsolvers, size_t i, long *where)
{
  if (i == 0)
    return NULL;
  i--;
  for (size_t k = 0; k < nsolvers; k++) {
    const cdyn_solver_type *t = cdyn_solver_type_at(k);
    size_t c = cdyn_option_count(t->options);
    if (i < c) {
      *where = (long)k;
      return &t->options[i];
    }
    i -= c;
  }
  if (i < cdyn_option_count(common_options)) {
    *where = -1;
    return &common_options[i];
  }
  i -= cdyn_option_count(common_options);
  if (i < cdyn_option_count(type->options)) {
    *where = SCHEME_OPTS;
    return &type->options[i];
  }
  return NULL;
}

static size_t option_total(const cdyn_scheme_type *type, size_t nsolvers)
{
  size_t c = 1 + cdyn_option_count(common_options) + cdyn_option_count(type->options);
  for (size_t k = 0; k < nsolvers; k++)
    c += cdyn_option_count(cdyn_solver_type_at(k)->options);
  return c;
}

static const char *const SOLVER_DOC =
  "linear solver: auto (cholesky up to 256 rows of capacity, cholmod above) or a solver name";

/* The same, with the struct it lives in within stepper st (*scheme: it is
   the scheme's own). */
static const cdyn_option *option_at(const cdyn_stepper *st, size_t i, void **base, int *scheme)
{
  long where = 0;
  const cdyn_option *o = option_entry(st->type, st->nsolvers, i, &where);
  *scheme = where == SCHEME_OPTS;
  *base = NULL;
  if (o)
    *base = where == SCHEME_OPTS ? st->opts : where < 0 ? (void *)&st->common : st->solver_opts[where];
  return o;
}

size_t cdyn_stepper_option_count(const cdyn_stepper *st) { return st ? option_total(st->type, st->nsolvers) : 0; }

int cdyn_stepper_lambda_time(const cdyn_stepper *st)
{
  if (!st)
    return -1;
  const cdyn_scheme_type *t = st->type;
  if (t->lambda_time_of)
    return (int)t->lambda_time_of(st->opts);
  /* An integrator-driven scheme: its integrator's last evaluation. */
  for (size_t k = 0; k < cdyn_option_count(t->options); k++)
    if (t->options[k].kind == CDYN_OPT_INTEGRATOR) {
      const cdyn_integrator_type *it;
      memcpy(&it, (const char *)st->opts + t->options[k].offset, sizeof it);
      return (int)it->last_eval;
    }
  return (int)t->lambda_time;
}

const char *cdyn_stepper_option_name(const cdyn_stepper *st, size_t i)
{
  if (!st)
    return NULL;
  if (i == 0)
    return "solver";
  void *base;
  int scheme;
  const cdyn_option *o = option_at(st, i, &base, &scheme);
  return o ? o->name : NULL;
}

const char *cdyn_stepper_option_doc(const cdyn_stepper *st, size_t i)
{
  if (!st)
    return NULL;
  if (i == 0)
    return SOLVER_DOC;
  void *base;
  int scheme;
  const cdyn_option *o = option_at(st, i, &base, &scheme);
  return o ? o->doc : NULL;
}

size_t cdyn_scheme_option_count(size_t i)
{
  const cdyn_scheme_type *t = cdyn_scheme_at(i);
  return t ? option_total(t, cdyn_solver_count()) : 0;
}

int cdyn_scheme_option(size_t i, size_t k, const char **name, const char **def, const char **doc)
{
  const cdyn_scheme_type *t = cdyn_scheme_at(i);
  if (!t)
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_option: no scheme %zu (there are %zu)", i, cdyn_scheme_count());
  size_t ns = cdyn_solver_count();
  if (k >= option_total(t, ns))
    return cdyn_error(CDYN_EINVAL, "cdyn_scheme_option: scheme '%s' has %zu options, not %zu", t->name,
                      option_total(t, ns), k + 1);
  long where;
  const cdyn_option *o = option_entry(t, ns, k, &where);
  if (name)
    *name = o ? o->name : "solver";
  if (def)
    *def = o ? o->def : "auto";
  if (doc)
    *doc = o ? o->doc : SOLVER_DOC;
  return CDYN_OK;
}

/* The solver type named `name` among those st knows, and its index. */
static int known_solver(const cdyn_stepper *st, const char *name, const cdyn_solver_type **type, size_t *k)
{
  int rc = cdyn_solver_type_find(name, type);
  if (rc)
    return rc;
  for (*k = 0; *k < st->nsolvers; (*k)++)
    if (cdyn_solver_type_at(*k) == *type)
      return CDYN_OK;
  return cdyn_error(CDYN_EUNKNOWN,
                    "linear solver '%s' was registered after this stepper was built; build the stepper again", name);
}

static int set_solver(cdyn_stepper *st, const char *value)
{
  const cdyn_solver_type *type;
  size_t k;
  int is_auto = !strcmp(value, "auto");
  int rc = known_solver(st, is_auto ? auto_solver(st) : value, &type, &k);
  if (rc)
    return rc;
  if (!is_auto && st->type->indefinite && !type->indefinite)
    return cdyn_error(CDYN_EINVAL,
                      "scheme '%s' solves a symmetric indefinite (KKT) system; solver '%s' factors positive "
                      "semi-definite matrices only (use auto, or ldlt)",
                      st->type->name, type->name);
  void *state = NULL;
  if ((rc = type->alloc(&state, st->mcap)))
    return rc;
  if (st->solver)
    st->solver->free(st->solver_state);
  st->solver = type;
  st->solver_k = k;
  st->solver_state = state;
  st->solver_auto = is_auto;
  st->factored = 0;
  return CDYN_OK;
}

/*
 * The warning of cdyn_stepper_warning: each constraint type of the
 * system's live constraints (enabled or not: a constraint switched off
 * may come back) that has no hess, when the scheme with its current
 * options calls hess.  Types in the order of their first constraint; a
 * text longer than the buffer is cut.  snprintf of %s, %zu and %u only:
 * no allocation, so that a step following a change may write it.
 */
static void note_fd_hess(cdyn_stepper *st)
{
  char *w = st->warning;
  const size_t cap = sizeof st->warning;
  size_t len = 0;
  w[0] = '\0';
  if (!st->type->uses_hess || !st->type->uses_hess(st->opts))
    return;
  const cdyn_system *sys = st->sys;
  for (size_t k = 0; k < sys->ncons && len < cap; k++) {
    const cdyn_constraint_type *t = sys->cons[k].type;
    if (!sys->cons[k].live || t->hess)
      continue;
    size_t j = 0, count = 0;
    while (j < k && !(sys->cons[j].live && sys->cons[j].type == t))
      j++;
    if (j < k)
      continue; /* said at its first constraint */
    for (size_t q = k; q < sys->ncons; q++)
      count += sys->cons[q].live && sys->cons[q].type == t;
    unsigned np = t->nparticles;
    int m = snprintf(w + len, cap - len,
                     "%s%s: constraint type '%s' (%zu constraint%s) gives no hess; its geometric stiffness is taken "
                     "by central differences of J^T lambda, 2 * 3 * %u + 1 = %u calls of its eval per constraint "
                     "each time the scheme needs it",
                     len ? "; " : "", st->type->name, t->name ? t->name : "(unnamed)", count, count == 1 ? "" : "s",
                     np, 6 * np + 1);
    if (m < 0)
      break;
    len += (size_t)m;
  }
  if (len >= cap)
    w[cap - 1] = '\0';
}

const char *cdyn_stepper_warning(const cdyn_stepper *st) { return st ? st->warning : NULL; }

int cdyn_stepper_set(cdyn_stepper *st, const char *key, const char *value)
{
  if (!st || !key || !value)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_set: NULL argument");
  if (!strcmp(key, "solver"))
    return set_solver(st, value);
  for (size_t i = 1; i < cdyn_stepper_option_count(st); i++) {
    void *base;
    int scheme;
    const cdyn_option *o = option_at(st, i, &base, &scheme);
    if (strcmp(o->name, key))
      continue;
    int rc = cdyn_option_parse(o, base, value);
    if (rc != CDYN_OK)
      return rc;
    if (scheme) {
      /* A scheme option (alpha, the integrator, ...) changes the equations
         that the scheme's history was computed for. */
      if (st->type->reset)
        st->type->reset(st->state);
      note_fd_hess(st);
    } else {
      /* A solver option may change the factorisation. */
      st->factored = 0;
    }
    return CDYN_OK;
  }
  return cdyn_error(CDYN_EUNKNOWN, "scheme '%s' has no option '%s'", st->type->name, key);
}

int cdyn_stepper_get(const cdyn_stepper *st, const char *key, char *buf, size_t len)
{
  if (!st || !key || !buf || len == 0)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_get: NULL argument");
  if (!strcmp(key, "solver")) {
    int w = st->solver_auto && st->type->own_system
              ? snprintf(buf, len, "auto")
              : snprintf(buf, len, "%s%s%s", st->solver_auto ? "auto(" : "", st->solver->name,
                         st->solver_auto ? ")" : "");
    if (w < 0 || (size_t)w >= len)
      return cdyn_error(CDYN_EINVAL, "cdyn_stepper_get: buffer too small");
    return CDYN_OK;
  }
  for (size_t i = 1; i < cdyn_stepper_option_count(st); i++) {
    void *base;
    int scheme;
    const cdyn_option *o = option_at(st, i, &base, &scheme);
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
  if (st->state && st->type->free)
    st->type->free(st->state);
  cdyn_layout_free(st);
  if (st->solver_opts)
    for (size_t k = 0; k < st->nsolvers; k++)
      free(st->solver_opts[k]);
  free(st->solver_opts);
  free(st->F);
  free(st->q0);
  free(st->v0);
  free(st->opts);
  free(st);
}

/* The scheme's and the solver's states again, after the row capacity
   grew. */
static int resize_states(cdyn_stepper *st)
{
  /* Both new states first, so that a failure leaves the old ones. */
  void *state = NULL, *sstate = NULL;
  const cdyn_solver_type *stype = st->solver;
  size_t sk = st->solver_k;
  int rc;
  if (st->solver_auto && (rc = known_solver(st, auto_solver(st), &stype, &sk)))
    return rc;
  if (st->type->alloc && (rc = st->type->alloc(&state, st->n, st->mcap)) != CDYN_OK) {
    if (state && st->type->free)
      st->type->free(state);
    return rc;
  }
  if ((rc = stype->alloc(&sstate, st->mcap)) != CDYN_OK) {
    if (state && st->type->free)
      st->type->free(state);
    return rc;
  }
  if (st->state && st->type->free)
    st->type->free(st->state);
  st->state = state;
  st->solver->free(st->solver_state);
  st->solver = stype;
  st->solver_k = sk;
  st->solver_state = sstate;
  st->factored = 0;
  st->states_mcap = st->mcap;
  return CDYN_OK;
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
  const cdyn_scheme_type *type = cdyn_scheme_at(idx);
  if (sys->m_ineq && !type->inequalities)
    return cdyn_error(CDYN_EINVAL,
                      "cdyn_stepper_new: scheme '%s' enforces equalities only, and the system has %zu "
                      "inequality rows; use the scheme 'contact'",
                      scheme, sys->m_ineq);
  if ((rc = cdyn_check_pins_only(sys, type, "cdyn_stepper_new")))
    return rc;
  cdyn_stepper *st = calloc(1, sizeof *st);
  if (!st)
    return cdyn_error(CDYN_ENOMEM, "cdyn_stepper_new: out of memory");
  st->type = type;
  st->sys = sys;
  st->n = sys->n;
  size_t n3 = 3 * st->n, ns = cdyn_solver_count();
  st->F = calloc(n3, sizeof(double));
  st->q0 = malloc(n3 * sizeof(double));
  st->v0 = malloc(n3 * sizeof(double));
  st->opts = calloc(1, type->options_size ? type->options_size : 1);
  st->solver_opts = calloc(ns ? ns : 1, sizeof *st->solver_opts);
  if (st->solver_opts)
    st->nsolvers = ns;
  int ok = st->F && st->q0 && st->v0 && st->opts && st->solver_opts;
  for (size_t k = 0; k < ns && ok; k++) {
    size_t sz = cdyn_solver_type_at(k)->options_size;
    ok = (st->solver_opts[k] = calloc(1, sz ? sz : 1)) != NULL;
  }
  if (!ok) {
    cdyn_stepper_free(st);
    return cdyn_error(CDYN_ENOMEM, "cdyn_stepper_new: out of memory for n = %zu", sys->n);
  }
  st->d = (cdyn_scheme_data){.n = st->n, .q = sys->q, .v = sys->v, .t = sys->t, .mass = sys->mass,
                             .winv = sys->winv, .F = st->F, .opts = st->opts};
  if ((rc = cdyn_layout_build(st)) != CDYN_OK) {
    cdyn_stepper_free(st);
    return rc;
  }
  /* Defaults: the solvers' and common options, then the scheme's. */
  for (size_t i = 1; i < cdyn_stepper_option_count(st); i++) {
    void *base;
    int sch;
    const cdyn_option *o = option_at(st, i, &base, &sch);
    if ((rc = cdyn_option_parse(o, base, o->def)) != CDYN_OK) {
      cdyn_stepper_free(st);
      return rc;
    }
  }
  if ((rc = set_solver(st, "auto")) != CDYN_OK) {
    cdyn_stepper_free(st);
    return rc;
  }
  if (type->alloc && (rc = type->alloc(&st->state, st->n, st->mcap)) != CDYN_OK) {
    cdyn_stepper_free(st);
    return rc;
  }
  st->states_mcap = st->mcap;
  note_fd_hess(st);
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

size_t cdyn_stepper_rows(const cdyn_stepper *st) { return st ? st->m : 0; }

int cdyn_stepper_multipliers(const cdyn_stepper *st, double *lambda)
{
  if (!st || (!lambda && st->m))
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_multipliers: NULL argument");
  if (st->m)
    memcpy(lambda, st->lambda, st->m * sizeof(double));
  return CDYN_OK;
}

int cdyn_stepper_constraint_multipliers(const cdyn_stepper *st, size_t c, double *lambda, size_t *rows)
{
  if (!st || !lambda)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_constraint_multipliers: NULL argument");
  if (c >= st->ccap || st->con_row0[c] == CDYN_NONE)
    return cdyn_error(CDYN_EINVAL,
                      "cdyn_stepper_constraint_multipliers: constraint %zu was not in the set of the "
                      "stepper's last step",
                      c);
  size_t r0 = st->con_row0[c], k = 0;
  for (size_t r = r0; r < st->m && st->rowcon[r] == c; r++)
    lambda[k++] = st->lambda[r];
  if (rows)
    *rows = k;
  return CDYN_OK;
}

int cdyn_stepper_reset(cdyn_stepper *st)
{
  if (!st)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_reset: stepper is NULL");
  if (st->type->reset)
    st->type->reset(st->state);
  return CDYN_OK;
}

int cdyn_stepper_contact_report(const cdyn_stepper *st, cdyn_contact_report *rep)
{
  if (!st || !rep)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_contact_report: NULL argument");
  if (!st->type->contact_report)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_contact_report: scheme '%s' does not handle contact",
                      st->type->name);
  return st->type->contact_report(st->state, rep);
}

int cdyn_stepper_handled(const cdyn_stepper *st, unsigned char *handled)
{
  if (!st || (!handled && st->m))
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_handled: NULL argument");
  if (!st->type->handled)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_handled: scheme '%s' does not handle contact",
                      st->type->name);
  return st->type->handled(st->state, st->m, handled);
}

int cdyn_stepper_reserve(cdyn_stepper *st, size_t nnz)
{
  if (!st)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_reserve: NULL stepper");
  if (nnz > (size_t)INT_MAX)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_reserve: %zu non-zeros exceed the limit of %d", nnz, INT_MAX);
  return cdyn_layout_reserve(st, nnz);
}

int cdyn_stepper_matrix(const cdyn_stepper *st, cdyn_matrix *A)
{
  if (!st || !A)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_matrix: NULL argument");
  *A = st->mat;
  return CDYN_OK;
}

/* ---- the sub-step observer ---------------------------------------------------- */

/* Set here; called at a step's start (below) and at each sub-step a
   scheme reports (cdyn_substep_reached), through cdyn_substep_observed
   (core/blocks.c). */
int cdyn_stepper_set_substep_observer(cdyn_stepper *st, cdyn_substep_fn fn, void *ctx)
{
  if (!st)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_set_substep_observer: stepper is NULL");
  st->substep_fn = fn;
  st->substep_ctx = fn ? ctx : NULL;
  return CDYN_OK;
}

/* ---- the step ---------------------------------------------------------------- */

/*
 * Bring the layout up to date with the system's constraint set, when it
 * changed since the last step: refuse a set the scheme cannot enforce,
 * grow the arrays and then the scheme's and the solver's states when the
 * system's capacity grew (a scheme given a fresh state is not told of the
 * change: it has no history), then lay the set out (layout.c).
 */
static int follow(cdyn_stepper *st)
{
  cdyn_system *sys = st->sys;
  if (sys->version == st->version)
    return CDYN_OK;
  if (sys->m_ineq && !st->type->inequalities)
    return cdyn_error(CDYN_EINVAL,
                      "cdyn_stepper_step: scheme '%s' enforces equalities only, and the system now has %zu "
                      "inequality rows; use the scheme 'contact'",
                      st->type->name, sys->m_ineq);
  int rc, fresh = 0;
  if ((rc = cdyn_check_pins_only(sys, st->type, "cdyn_stepper_step")) || (rc = cdyn_layout_grow(st)))
    return rc;
  /* The scheme's and the solver's states are sized by the row capacity
     (again here after a failed attempt). */
  if (st->states_mcap != st->mcap) {
    if ((rc = resize_states(st)))
      return rc;
    fresh = 1;
  }
  if ((rc = cdyn_layout_follow(st, fresh)) >= 0)
    note_fd_hess(st);
  return rc;
}

int cdyn_stepper_step(cdyn_stepper *st, double h)
{
  if (!st)
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_step: stepper is NULL");
  if (!isfinite(h) || !(h > 0))
    return cdyn_error(CDYN_EINVAL, "cdyn_stepper_step: step size h = %g must be finite and > 0", h);
  cdyn_system *sys = st->sys;
  size_t n3 = 3 * st->n;
  if (!cdyn_all_finite(sys->q, n3) || !cdyn_all_finite(sys->v, n3))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_stepper_step: the state is not finite at t = %g", sys->t);
  int rc = follow(st);
  if (rc < 0)
    return rc;
  memcpy(st->q0, sys->q, n3 * sizeof(double));
  memcpy(st->v0, sys->v, n3 * sizeof(double));
  memcpy(st->lambda0, st->lambda, st->m * sizeof(double));
  double t0 = sys->t;
  st->d.t = t0;
  st->substep_k = 0;
  /* The path's first state; nothing has moved yet, so a failure here has
     nothing to restore. */
  if (st->substep_fn && (rc = cdyn_substep_observed(st, 0, t0, sys->q)) < 0)
    return rc;
  unsigned long said = cdyn_error_serial();
  rc = st->type->step(st, st->state, h);
  /* Every non-zero status carries its reason: a scheme (a registered one,
     say) that returned one without a message gets the status's own
     description, with the scheme and the step, rather than an empty or an
     older, unrelated message. */
  if (rc != CDYN_OK && cdyn_error_serial() == said)
    cdyn_error(rc, "scheme %s: %s in the step from t = %g with h = %g (the scheme gave no further reason)",
               st->type->name, cdyn_strerror(rc), t0, h);
  /* A success means a usable result: a finite state and finite
     multipliers, and, with the divergence guard on, a constraint error
     within it. */
  if (rc >= 0 && (!cdyn_all_finite(sys->q, n3) || !cdyn_all_finite(sys->v, n3)))
    rc = cdyn_error(CDYN_ENONFINITE,
                    "scheme %s: the state became non-finite in the step from t = %g with h = %g "
                    "(unstable at this step size?)",
                    st->type->name, t0, h);
  if (rc >= 0 && !cdyn_all_finite(st->lambda, st->m))
    rc = cdyn_error(CDYN_ENONFINITE,
                    "scheme %s: the multipliers became non-finite in the step from t = %g with h = %g (a force "
                    "beyond the range of doubles)",
                    st->type->name, t0, h);
  if (rc >= 0 && st->common.max_error > 0) {
    double e;
    sys->t = t0 + h; /* the constraints at the end of the step */
    int erc = cdyn_system_constraint_error(sys, &e);
    sys->t = t0;
    if (erc < 0)
      rc = erc;
    else if (!(e <= st->common.max_error)) {
      st->stats.guarded++;
      st->stats.last_guarded_error = e;
      rc = cdyn_error(CDYN_EDIVERGED,
                      "scheme %s: the constraint error after the step from t = %g with h = %g is %g, above "
                      "max_error = %g (the state is restored)",
                      st->type->name, t0, h, e, st->common.max_error);
    }
  }
  if (rc == CDYN_NOCONV && st->type->noconv_restores) {
    /* The scheme did not advance: nothing to keep, no history to drop. */
    memcpy(sys->q, st->q0, n3 * sizeof(double));
    memcpy(sys->v, st->v0, n3 * sizeof(double));
    memcpy(st->lambda, st->lambda0, st->m * sizeof(double));
    sys->t = t0;
    return rc;
  }
  if (rc < 0) {
    memcpy(sys->q, st->q0, n3 * sizeof(double));
    memcpy(sys->v, st->v0, n3 * sizeof(double));
    memcpy(st->lambda, st->lambda0, st->m * sizeof(double));
    sys->t = t0;
    /* History written during the failed step is not to be trusted. */
    if (st->type->reset)
      st->type->reset(st->state);
    return rc;
  }
  sys->t = t0 + h;
  st->stats.steps++;
  return rc;
}
