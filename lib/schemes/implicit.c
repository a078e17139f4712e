/*
 * implicit.c: first-order implicit constraint enforcement (001 eqs 11-16).
 *
 *   v+ = v + h W (F - J^T lambda)                               (eq 11)
 *   q+ = q + h v+                                               (eq 12)
 *   Phi(q+, t + h) = 0, linearised at (q, t):
 *   Phi + J (q+ - q) + h Phi_t = 0                              (eq 14)
 * which gives, with everything at (q, t),
 *   A lambda = Phi / h^2 + Phi_t / h + J (v / h + W F)          (eq 16)
 * A = J W J^T, the matrix of Baumgarte's method: one assembly and one
 * solve per step.  This is one linearised Newton step on Phi(q+) = 0, so
 * the scheme damps energy, the more the larger h.  lambda is the force
 * multiplier of the whole step (the constraint force acts from t to t + h
 * as a backward-Euler impulse), so it is the force averaged over the step
 * and belongs to its midpoint, t + h/2 (lambda_time; first order, which
 * the convergence table and tests/test_schemes.c measure).  No history: a change of the constraint
 * set needs nothing.
 *
 * Expected order: 1.
 *
 * Inconsistent constraints (Phi(q) = 0 without a solution: a particle
 * pinned at two points) are not detected: the step takes the
 * least-squares solution of its linear system and returns success.
 * newton, shake and rattle report them (CDYN_EINFEASIBLE).
 *
 * Option geometric_stiffness = diagonal: the lumped geometric stiffness
 * of Andrews, Teichmann and Kry (2017, "Geometric stiffness for
 * real-time constrained multibody dynamics", CGF 36(2)).  The step above
 * treats the change of the constraint directions, the geometric
 * stiffness K = sum_r lambda_r Hess Phi_r, explicitly, which bounds it to
 * h omega < 1 (doc/large-steps.md).  This option adds a diagonal,
 * positive approximation K~ of K to the mass in the step,
 *   M~ = M + h^2 K~,   W~ = M~^-1,
 *   A~ lambda = Phi / h^2 + Phi_t / h + J (v / h + W~ F),  A~ = J W~ J^T,
 *   v+ = v + h W~ (F - J^T lambda),
 * so A~ keeps A's pattern and every solver applies; it is not Newton on
 * the nonlinear step (backward-euler is), and it damps.  K~ is built from
 * the last step's multipliers (zero at the first step): for each
 * constraint, the 2-norm of each column of its block of K (the types'
 * `hess`), summed per coordinate over the constraints, and per particle
 * the largest of its three coordinates, since A is assembled with one
 * weight per particle.  Each column norm bounds that coordinate's
 * coupling, so K~ errs on the stiff side.  A constraint type without
 * `hess` has K taken by central differences of its J
 * (lib/core/fdhess.c: 6 np + 1 calls of its eval per constraint and
 * step), which the stepper reports (cdyn_stepper_warning).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#include <math.h>

enum { GS_NONE, GS_DIAGONAL };

typedef struct {
  int geometric_stiffness;
} opts;

/* Work only: the scheme keeps no history of its own (the diagonal
   geometric stiffness reads the stepper's last multipliers). */
typedef struct {
  double *a, *u, *jt, *kd; /* 3n */
  double *wt;              /* n: W~ */
  double *b;               /* m */
  double K[(3 * CDYN_MAX_PARTICLES) * (3 * CDYN_MAX_PARTICLES)];
} state;

static int alloc(void **out, size_t n, size_t m)
{
  const size_t off[] = {offsetof(state, a), offsetof(state, u), offsetof(state, jt), offsetof(state, kd),
                        offsetof(state, wt), offsetof(state, b)};
  const size_t len[] = {3 * n, 3 * n, 3 * n, 3 * n, n, m};
  return cdyn_state_alloc(out, sizeof(state), off, len, 6);
}

/* W~ = (M + h^2 K~)^-1 per particle into ws->wt, K~ from lambda (see above). */
static int diagonal_weights(cdyn_stepper *st, state *ws, double h)
{
  const cdyn_scheme_data *d = cdyn_stepper_data(st);
  const cdyn_system *sys = st->sys;
  size_t n = d->n;
  memset(ws->kd, 0, 3 * n * sizeof(double));
  for (size_t r = 0; r < d->m;) {
    const cdyn_constraint *c = &sys->cons[d->rowcon[r]];
    size_t np = c->type->nparticles, dn = 3 * np;
    int rc = cdyn_constraint_hess(c, d->q, d->t, d->lambda + r, ws->K);
    if (rc)
      return rc;
    for (size_t b = 0; b < dn; b++) {
      double s2 = 0;
      for (size_t a = 0; a < dn; a++)
        s2 += ws->K[a * dn + b] * ws->K[a * dn + b];
      ws->kd[3 * c->p[b / 3] + b % 3] += sqrt(s2);
    }
    r += c->type->rows;
  }
  for (size_t i = 0; i < n; i++) {
    double k = fmax(ws->kd[3 * i], fmax(ws->kd[3 * i + 1], ws->kd[3 * i + 2]));
    ws->wt[i] = 1.0 / (d->mass[i] + h * h * k);
  }
  return CDYN_OK;
}

static int step(cdyn_stepper *st, void *state_, double h)
{
  state *ws = state_;
  const cdyn_scheme_data *d = cdyn_stepper_data(st);
  const opts *o = d->opts;
  double *q = d->q, *v = d->v, t = d->t;
  const double *w = d->winv;
  double *a = ws->a, *u = ws->u, *jt = ws->jt, *b = ws->b;
  size_t n = d->n;
  int rc;
  if ((rc = cdyn_free_accel(st, q, v, t, a)))
    return rc;
  int src = CDYN_OK;
  if (d->m && o->geometric_stiffness == GS_DIAGONAL) {
    /* a = W F becomes W~ F. */
    if ((rc = diagonal_weights(st, ws, h)))
      return rc;
    for (size_t k = 0; k < 3 * n; k++)
      a[k] = ws->wt[k / 3] * d->F[k];
    w = ws->wt;
    if ((rc = cdyn_eval_rows(st, q, v, t)) || (rc = cdyn_assemble(st, w)) || (rc = cdyn_factor(st)))
      return rc;
  } else if (d->m && (rc = cdyn_prepare(st, q, v, t))) {
    return rc;
  }
  if (d->m) {
    for (size_t k = 0; k < 3 * n; k++)
      u[k] = v[k] / h + a[k];
    cdyn_jmul(st, u, b);
    for (size_t r = 0; r < d->m; r++)
      b[r] += d->rows[r].phi / (h * h) + d->rows[r].phi_t / h;
    src = cdyn_solve(st, b, d->lambda);
    if (src < 0)
      return src;
    cdyn_jtmul(st, d->lambda, jt);
    for (size_t i = 0; i < n; i++)
      for (int c = 0; c < 3; c++)
        a[3 * i + c] -= w[i] * jt[3 * i + c];
  }
  for (size_t k = 0; k < 3 * n; k++) {
    v[k] += h * a[k];
    q[k] += h * v[k];
  }
  return src;
}

static const char *const gs_names[] = {"none", "diagonal", NULL};

static const cdyn_option options[] = {
  {"geometric_stiffness", CDYN_OPT_CHOICE, offsetof(opts, geometric_stiffness), "none", 0, 0, gs_names,
   "none: 001's step; diagonal: Andrews-Teichmann-Kry's lumped geometric stiffness added to the mass "
   "(M + h^2 K~, from the last multipliers)"},
  CDYN_OPTIONS_END};

/* Only the diagonal geometric stiffness reads the types' hess. */
static int uses_hess(const void *o) { return ((const opts *)o)->geometric_stiffness == GS_DIAGONAL; }

const cdyn_scheme_type cdyn_scheme_implicit = {
  .name = "implicit",
  .description = "first-order implicit constraint enforcement",
  .source = "001 eqs 11-16",
  .order = 1,
  .lambda_order = 1,
  .lambda_time = CDYN_LAMBDA_MID,
  .options = options,
  .options_size = sizeof(opts),
  .alloc = alloc,
  .free = free,
  .step = step,
  .uses_hess = uses_hess,
};
