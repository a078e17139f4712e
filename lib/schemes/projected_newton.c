/*
 * projected_newton.c: backward Euler as the minimisation of the step's
 * incremental potential, by Newton's method with a line search, pins
 * eliminated, and inequality rows (strain limits, contact) one-sided
 * within the step by an augmented Lagrangian (doc/large-steps.md,
 * "Cloth at an animator's step").
 *
 * The step.  From (q, v, t) with step h, the unknowns are the
 * displacements u = x - q (3n), v+ = u / h.  The step with the pins and
 * the conditions g(x, t + h) >= 0 (inequality rows) is the stationary
 * point of
 *   E(u) = sum_i m_i |u_i - h v_i|^2 / (2 h^2) + V(q + u) + D(u) - F_cb^T u
 * under them (Gast, Schroeder, Stomakhin, Jiang and Teran 2015), V the
 * potential of gravity and of the springs' elasticity,
 *   D(u) = sum_springs c (n0 . (u_i - u_j))^2 / (2 h)
 * the dampers' dissipation potential with each spring's direction n0 at
 * the step's start, and F_cb the user's force callback at the iterate
 * (frozen there, as in backward_euler.c).  The converged step is
 *   M (u - h v) / h^2 = F(q + u, u / h, t + h) - J^T lambda,
 * backward Euler's, but for the dampers, which act along n0 rather than
 * along the end direction n: the damper's force is implicit in the
 * velocity and explicit in its direction, so that the step minimises one
 * function.  Freezing the dampers' whole force at each iterate instead
 * (which keeps backward Euler's end direction) changes the function from
 * one iteration to the next; on the hanging 64 x 64 cloth at 1/60 s, where
 * c / h is 2.7 times a node's m / h^2, Newton then cycled at t = 0.43 s.
 * Without dampers the step is backward Euler's, which tests/test_cloth.c
 * checks against backward-euler.

 * Constraints: pins and inequality rows only (cdyn_scheme_type.pins_only
 * with inequalities: the stepper refuses any other equality constraint;
 * backward-euler takes those).  Pins are eliminated: a pinned particle's
 * end position is its pin's target at t + h, x_p = x - Phi_pin(x, t + h)
 * (a pin's Phi is x - p(t)), and its rows and columns leave the system,
 * as Baraff and Witkin's filter does.  Its multiplier is the force the
 * pin must exert, lambda = -(the gradient's pinned components).
 *
 * Each inequality row r is enforced by an augmented Lagrangian (Nocedal
 * and Wright, Numerical Optimization, ch. 17) with a multiplier estimate
 * mubar_r >= 0 and a stiffness kappa_r:
 *   E += (max(0, mubar_r - kappa_r g_r)^2 - mubar_r^2) / (2 kappa_r),
 *   mu_r = max(0, mubar_r - kappa_r g_r) >= 0,   lambda_r = -mu_r
 * (the library's lambda: M a = F - J^T lambda; an inequality row pushes
 * with +J^T mu, cdyn/contact.h).  The inner iteration minimises E for
 * fixed estimates; then mubar_r <- mu_r, the first-order multiplier
 * update, and the step ends when every row has g_r >= -tol.  There the
 * gradient's stationarity is backward Euler's momentum equation with
 * those multipliers, mu_r >= 0, and mu_r > 0 only where g_r <
 * mubar_r / kappa_r: complementarity to within the tolerance.  A strain
 * limit (a tether row, cdyn/cloth.h) only pulls, and a contact only
 * pushes, inside the step: nothing switches before or after it.
 *   kappa_r = stiffness * mu_eff,r / h^2,  mu_eff,r = 1 / (J W J^T)_rr
 * (pinned coordinates left out of W), the row's effective mass over h^2,
 * the inertia it moves against in one step, times a dimensionless
 * `stiffness` (1e4 by default): the first estimate misses by about 1e-4
 * of what the row's force moves its particles in a step, and the updates
 * take that to tol.  Measured: on the hanging 32 x 32 cloth at 1/60 s,
 * 4.9 Newton iterations a step with 1e5 and 1e6, 5.9 with 1e4, 9.2 with
 * 1e3, and with 1e2 the updates missed the tolerance within max_iter at
 * t = 0.4 s; where cloth-elongation's moving ball meets the 16 x 16 cloth
 * the step stalled with 1e6 at 1/60 s and with 1e5 at 1/120 s (each
 * Newton step changed which contacts were active, and their forces,
 * stiffer as h shrinks, were too stiff for its line search), and 1e4
 * passes both; on the 24 x 24 cloth with 5 kg, 1e4 took 5.4 iterations a
 * step and 1e6 7.7.  kappa is computed at the first step with a given h
 * and constraint set, and kept while they are.  The estimates are kept
 * from step to step (and carried through a change of the set by the row
 * map, `changed`): a quiet step starts with the last step's forces.
 * The stiffness costs digits: a row's multiplier is known to about
 * kappa eps |x|, which is why this scheme takes no equality links (whose
 * multipliers backward-euler solves for exactly).
 *
 * The matrix.  Newton's matrix of E, pinned rows and columns replaced by
 * (m_i / h^2) times the identity, is
 *   H = M / h^2 + sum_springs (-K_x - K_v / h) + sum_active_rows P(kappa J^T J + lambda Hess g),
 * the springs' force Jacobians of Baraff and Witkin
 * (cdyn_spring_jacobians), the rows with mu > 0, and P the projection of
 * a constraint's block (3 np x 3 np) to positive semi-definite: used as
 * it is when an LDL^T of it meets no negative pivot, else with its
 * negative eigenvalues set to zero (LAPACKE dsyev), as projected Newton
 * does (Teran, Sifakis, Irving and Fedkiw 2005; Li et al. 2020, IPC).  A
 * compressed spring's transverse stiffness tau = k (1 - L0 / r) is
 * negative, and H may then be indefinite.  So each iteration factors H
 * with the springs' exact Hessians first; when the factorisation finds it
 * not positive definite, with each compressed spring's tau raised to
 * -gamma min(m_i, m_j) / h^2 for gamma = 1, 1/4, 1/16, 1/64, and last 0
 * (Choi and Ko's projection: the transverse term dropped, which leaves H
 * positive definite), starting one rung above the one the last iteration
 * needed.  Measured on the hanging cloths at 1/60 s: projecting at once
 * took 7.6 Newton iterations a step at 16 x 16 and stalled at 32 x 32
 * (t = 0.33 s), where the projected direction converges linearly in the
 * cloth's folds; a shift s M / h^2 in place of the rungs (s up to 10)
 * converged at a rate of 0.9 an iteration at 64 x 64; the rungs take 4.0
 * a step at 32 x 32.  A positive definite H makes -H^-1 grad E a descent direction
 * of E.  The pattern is every particle's 3 x 3 block and the blocks of
 * every spring's and every constraint's particle pairs, whether a row is
 * active or not: fixed while the system's springs and constraints are,
 * so a sparse solver analyses it once.  The stepper's `solver` option
 * names any solver type (cholesky and cholmod factor it; auto is cholmod
 * with the stepper's cholmod options).
 *
 * The line search: the largest alpha in 1, 1/2, ..., 2^-40 by Armijo's
 * rule on E (E(u + alpha du) <= E(u) + 1e-4 alpha grad E . du), or, where
 * E's change is lost in its rounding near the solution, by a decrease of
 * the residual below (as backward_euler.c's theta); a trial where a
 * constraint is not defined (particles that coincide) is shortened.
 *
 * Stopping the inner iteration: max over free coordinates of
 * |grad E_i| / m_i <= tol_accel (m/s^2: the acceleration the momentum
 * residual leaves, as backward_euler.c), or its rounding floor: 64 eps
 * times the terms it sums, among them an active row's kappa |x| / m (its
 * force kappa g is known to kappa times g's rounding, eps |x|).  When the iterations (max_iter, Newton's and
 * the updates' each) run out or no step of the line search is accepted,
 * the step returns CDYN_NOCONV and the stepper restores q, v, the
 * multipliers and the time.
 *
 * Start: u = h v (the inertial prediction; pinned coordinates on their
 * targets), with the last step's estimates.
 *
 * Cost.  Each Newton iteration factors the 3n x 3n matrix: linear in n
 * for a chain, about n^1.5 for a cloth's 2-D mesh, and the dominant cost
 * of a cloth's step (make bench, the cloth section, measures it against
 * Bullet's soft body).
 *
 * Expected order: 1 in q and v (backward Euler, the dampers' direction
 * lagged by one step: an O(h) change of the force).
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "core/internal.h"

#define ARMIJO 1e-4
#define MAX_HALVINGS 40
#define NB (3 * CDYN_MAX_PARTICLES) /* a constraint's block */

typedef struct {
  double tol, tol_accel, stiffness;
  long max_iter;
} opts;

typedef struct {
  size_t n, mcap;
  /* 3n each */
  double *u, *us, *du, *grad, *F, *fnc, *x, *vi, *work;
  unsigned char *pinned; /* 3n */
  /* mcap each */
  double *lbar, *kappa, *lam, *lamprev;
  unsigned char *pinrow; /* mcap */
  /* The pattern (3n x 3n, both triangles, each row's diagonal entry first,
     then the rest of its own block, then each neighbour's 3 columns). */
  int *rowptr, *col;
  double *val, *diag;
  size_t nnz;
  cdyn_adjacency adj;   /* per particle: its neighbours (sorted) */
  size_t *spos;         /* per spring: the slot of j in i's list and of i in j's (2) */
  double *n0;           /* per spring: its direction at the step's start (3) */
  size_t nspr, ncon;
  unsigned long version, pattern_id;
  int have_pattern;
  const cdyn_solver_type *stype;
  void *sstate;
  int rung; /* the last rung of the springs' Hessians that made H positive definite */
  double K[NB * NB];
} state;

/* ---- state ------------------------------------------------------------------------- */

static void drop_pattern(state *s)
{
  free(s->rowptr);
  free(s->col);
  free(s->val);
  free(s->diag);
  cdyn_adjacency_free(&s->adj);
  free(s->spos);
  free(s->n0);
  s->n0 = NULL;
  s->rowptr = s->col = NULL;
  s->val = s->diag = NULL;
  s->spos = NULL;
  if (s->stype && s->sstate)
    s->stype->free(s->sstate);
  s->sstate = NULL;
  s->stype = NULL;
  s->have_pattern = 0;
}

static void st_free(void *p)
{
  state *s = p;
  if (!s)
    return;
  drop_pattern(s);
  free(s->u);
  free(s->pinned);
  free(s->lbar);
  free(s->pinrow);
  free(s);
}

static int st_alloc(void **out, size_t n, size_t mcap)
{
  state *s = calloc(1, sizeof *s);
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "projected-newton: out of memory");
  s->n = n;
  s->mcap = mcap;
  size_t n3 = 3 * n;
  s->u = calloc(9 * n3 + 1, sizeof(double));
  s->pinned = calloc(n3 + 1, 1);
  s->lbar = calloc(4 * mcap + 1, sizeof(double));
  s->pinrow = calloc(mcap + 1, 1);
  if (!s->u || !s->pinned || !s->lbar || !s->pinrow) {
    st_free(s);
    return cdyn_error(CDYN_ENOMEM, "projected-newton: out of memory for %zu particles and %zu rows", n, mcap);
  }
  double **arr[] = {&s->us, &s->du, &s->grad, &s->F, &s->fnc, &s->x, &s->vi, &s->work};
  for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++)
    *arr[k] = s->u + (k + 1) * n3;
  s->kappa = s->lbar + mcap;
  s->lam = s->kappa + mcap;
  s->lamprev = s->lam + mcap;
  *out = s;
  return CDYN_OK;
}

static void reset(void *p)
{
  state *s = p;
  memset(s->lamprev, 0, s->mcap * sizeof(double));
}

/* The estimates follow their rows through a change of the set. */
static void changed(void *p, const cdyn_stepper *st, const cdyn_set_change *ch)
{
  state *s = p;
  size_t m = st->d.m;
  /* lam is scratch here: the old estimates, then the new ones in place. */
  memcpy(s->lam, s->lamprev, (ch->m_old < s->mcap ? ch->m_old : s->mcap) * sizeof(double));
  for (size_t r = 0; r < m; r++) {
    long f = ch->from[r];
    s->lamprev[r] = f >= 0 && (size_t)f < ch->m_old ? s->lam[f] : 0.0;
  }
}

/* ---- the pattern ---------------------------------------------------------------------- */

/* The particle pairs the matrix couples: the springs' and those of each
   constraint's particles (ctx: the stepper). */
static void walk_pairs(void *ctx, cdyn_adjacency *g)
{
  const cdyn_stepper *st = ctx;
  const cdyn_system *sys = st->sys;
  for (size_t k = 0; k < sys->nsprings; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    if (sp->i != sp->j)
      cdyn_adjacency_add(g, sp->i, sp->j);
  }
  const cdyn_scheme_data *d = &st->d;
  for (size_t r = 0; r < d->m;) {
    const cdyn_constraint *c = &sys->cons[d->rowcon[r]];
    size_t np = c->type->nparticles;
    for (size_t a = 0; a < np; a++)
      for (size_t b = a + 1; b < np; b++)
        if (c->p[a] != c->p[b])
          cdyn_adjacency_add(g, c->p[a], c->p[b]);
    r += c->type->rows;
  }
}

static int build_pattern(state *s, cdyn_stepper *st, const cdyn_solver_type *stype)
{
  size_t n = s->n, n3 = 3 * n;
  const cdyn_system *sys = st->sys;
  drop_pattern(s);
  if (cdyn_adjacency_build(&s->adj, n, walk_pairs, st))
    goto nomem;
  size_t w = s->adj.start[n];
  size_t nnz = 9 * n + 9 * w;
  if (nnz > (size_t)2147483647) {
    drop_pattern(s);
    return cdyn_error(CDYN_EINVAL, "projected-newton: %zu non-zeros exceed the index range", nnz);
  }
  s->rowptr = malloc((n3 + 1) * sizeof(int));
  s->col = malloc(nnz * sizeof(int));
  s->val = malloc(nnz * sizeof(double));
  s->diag = malloc((n3 + 1) * sizeof(double));
  s->spos = malloc((2 * sys->nsprings + 1) * sizeof(size_t));
  s->n0 = malloc((3 * sys->nsprings + 1) * sizeof(double));
  if (!s->rowptr || !s->col || !s->val || !s->diag || !s->spos || !s->n0)
    goto nomem;
  size_t p = 0;
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++) {
      s->rowptr[3 * i + a] = (int)p;
      s->col[p++] = (int)(3 * i + a);
      for (int b = 0; b < 3; b++)
        if (b != a)
          s->col[p++] = (int)(3 * i + b);
      for (size_t t = s->adj.start[i]; t < s->adj.start[i + 1]; t++)
        for (int b = 0; b < 3; b++)
          s->col[p++] = (int)(3 * s->adj.nbr[t] + b);
    }
  s->rowptr[n3] = (int)p;
  for (size_t k = 0; k < sys->nsprings; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    s->spos[2 * k] = s->spos[2 * k + 1] = 0;
    if (sp->i != sp->j) {
      s->spos[2 * k] = cdyn_adjacency_slot(&s->adj, sp->i, sp->j);
      s->spos[2 * k + 1] = cdyn_adjacency_slot(&s->adj, sp->j, sp->i);
    }
  }
  s->nnz = nnz;
  s->nspr = sys->nsprings;
  s->version = sys->version;
  s->pattern_id++;
  if (stype->alloc(&s->sstate, n3)) {
    s->sstate = NULL;
    drop_pattern(s);
    return cdyn_error(CDYN_ENOMEM, "projected-newton: out of memory for the solver of %zu unknowns", n3);
  }
  s->stype = stype;
  s->have_pattern = 1;
  st->stats.analyses++;
  return CDYN_OK;
nomem:
  drop_pattern(s);
  return cdyn_error(CDYN_ENOMEM, "projected-newton: out of memory for the pattern of %zu particles", n);
}

/* Entry (3i + a, 3j + b); slot: j's place in i's list (unused for j = i). */
static size_t entry(const state *s, size_t i, int a, size_t j, size_t slot, int b)
{
  size_t r0 = (size_t)s->rowptr[3 * i + a];
  if (i == j)
    return r0 + (size_t)(b == a ? 0 : b < a ? b + 1 : b);
  return r0 + 3 + 3 * slot + (size_t)b;
}

/* Add block B (3 x 3, row-major) at (i, j), skipping pinned coordinates. */
static void add_block(state *s, size_t i, size_t j, size_t slot, const double *B, double sign)
{
  for (int a = 0; a < 3; a++) {
    if (s->pinned[3 * i + a])
      continue;
    for (int b = 0; b < 3; b++)
      if (!s->pinned[3 * j + b])
        s->val[entry(s, i, a, j, slot, b)] += sign * B[3 * a + b];
  }
}

/* ---- positive semi-definite blocks --------------------------------------------------- */

/* Make the symmetric dn x dn block K positive semi-definite: as it is when
   an LDL^T of it without pivoting meets no pivot below -1e-12 of its
   largest diagonal entry, else with its negative eigenvalues set to 0. */
static int psd_project(double *K, size_t dn)
{
  double L[NB * NB], dmax = 0;
  for (size_t a = 0; a < dn; a++)
    dmax = fmax(dmax, fabs(K[a * dn + a]));
  if (dmax == 0)
    return CDYN_OK;
  memcpy(L, K, dn * dn * sizeof(double));
  int ok = 1;
  for (size_t j = 0; j < dn && ok; j++) {
    double dj = L[j * dn + j];
    if (dj < -1e-12 * dmax)
      ok = 0;
    else if (dj > 1e-12 * dmax)
      for (size_t i = j + 1; i < dn; i++) {
        double lij = L[i * dn + j] / dj;
        for (size_t k = j + 1; k <= i; k++)
          L[i * dn + k] -= lij * L[k * dn + j];
      }
    /* a zero pivot: its column must vanish for semi-definiteness */
    else
      for (size_t i = j + 1; i < dn && ok; i++)
        if (fabs(L[i * dn + j]) > 1e-9 * dmax)
          ok = 0;
  }
  if (ok)
    return CDYN_OK;
  double w[NB], work[3 * NB * NB];
  memcpy(L, K, dn * dn * sizeof(double));
  /* Column-major: K is symmetric, so its storage reads the same, and
     LAPACKE's row-major path would allocate a transposed copy.  The
     eigenvector e is then column e, L[e dn + a]. */
  lapack_int info = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'U', (lapack_int)dn, L, (lapack_int)dn, w, work,
                                       (lapack_int)(3 * NB * NB));
  if (info)
    return cdyn_error(CDYN_ESOLVE, "projected-newton: the eigenvalues of a constraint's block did not converge");
  for (size_t a = 0; a < dn; a++)
    for (size_t b = 0; b < dn; b++) {
      double acc = 0;
      for (size_t e = 0; e < dn; e++)
        if (w[e] > 0)
          acc += L[e * dn + a] * w[e] * L[e * dn + b];
      K[a * dn + b] = acc;
    }
  return CDYN_OK;
}

/* ---- energy, gradient, matrix -------------------------------------------------------- */

/* The rows' multipliers at the current rows (d->rows): lam (library sign). */
static void multipliers(const cdyn_scheme_data *d, state *s)
{
  for (size_t r = 0; r < d->m; r++) {
    if (s->pinrow[r])
      continue;
    s->lam[r] = -fmax(0.0, s->lbar[r] - s->kappa[r] * d->rows[r].phi);
  }
}

/*
 * The dampers along their direction at the step's start, n0: in F (from
 * cdyn_forces, each damper -c (n . (v_i - v_j)) n along n at x) the
 * damper's force becomes -c (n0 . (v_i - v_j)) n0, which is the gradient
 * of the potential D(u) = sum c (n0 . (u_i - u_j))^2 / (2 h).
 */
static void lag_damping(const cdyn_stepper *st, state *s)
{
  const cdyn_system *sys = st->sys;
  for (size_t k = 0; k < sys->nsprings; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    if (!sp->enabled || sp->i == sp->j || sp->c == 0)
      continue;
    const double *xi = s->x + 3 * sp->i, *xj = s->x + 3 * sp->j, *vi = s->vi + 3 * sp->i, *vj = s->vi + 3 * sp->j;
    const double *n0 = s->n0 + 3 * k;
    double d[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
    double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double n[3] = {d[0] / r, d[1] / r, d[2] / r}, dv[3] = {vi[0] - vj[0], vi[1] - vj[1], vi[2] - vj[2]};
    double rate = n[0] * dv[0] + n[1] * dv[1] + n[2] * dv[2];
    double rate0 = n0[0] * dv[0] + n0[1] * dv[1] + n0[2] * dv[2];
    for (int c = 0; c < 3; c++) {
      double f = sp->c * (rate * n[c] - rate0 * n0[c]);
      s->F[3 * sp->i + c] += f;
      s->F[3 * sp->j + c] -= f;
    }
  }
}

/*
 * At u: positions x, rows at x, forces F, multipliers, and the gradient of
 * E (3n, pinned coordinates included: their components give the pins'
 * multipliers).  *rmax gets max |grad_i| / m_i over free coordinates
 * relative to its tolerance (converged at <= 1); NAN when not finite.
 */
static int gradient(cdyn_stepper *st, state *s, const double *u, double h, double t1, double *rmax)
{
  cdyn_scheme_data *d = &st->d;
  const opts *o = d->opts;
  size_t n3 = 3 * d->n;
  for (size_t i = 0; i < n3; i++) {
    s->x[i] = d->q[i] + u[i];
    s->vi[i] = u[i] / h;
  }
  int rc;
  if ((rc = cdyn_forces(st, s->x, s->vi, t1, s->F)) || (d->m && (rc = cdyn_eval_rows(st, s->x, s->vi, t1))))
    return rc;
  lag_damping(st, s);
  multipliers(d, s);
  memset(s->work, 0, n3 * sizeof(double));
  for (size_t r = 0; r < d->m; r++) {
    if (s->pinrow[r] || s->lam[r] == 0)
      continue;
    for (unsigned a = 0; a < d->rownp[r]; a++) {
      size_t p = d->rowpart[r * CDYN_MAX_PARTICLES + a];
      for (int e = 0; e < 3; e++)
        s->work[3 * p + e] += d->rows[r].jac[a][e] * s->lam[r];
    }
  }
  double ra = 0, fa = 0;
  for (size_t i = 0; i < n3; i++) {
    double mi = d->mass[i / 3], in = mi * (u[i] - h * d->v[i]) / (h * h);
    s->grad[i] = in - s->F[i] + s->work[i];
    if (s->pinned[i])
      continue;
    if (!(fabs(s->grad[i] / mi) <= ra))
      ra = fabs(s->grad[i] / mi);
    fa = fmax(fa, (fabs(in) + fabs(s->F[i]) + fabs(s->work[i])) / mi);
  }
  /* An active row's force kappa g is known to kappa times the rounding
     of g, eps |x| of its particles' coordinates, over their mass. */
  for (size_t r = 0; r < d->m; r++) {
    if (s->pinrow[r] || s->lam[r] == 0)
      continue;
    double xm = 0, mmin = INFINITY;
    for (unsigned a = 0; a < d->rownp[r]; a++) {
      size_t p = d->rowpart[r * CDYN_MAX_PARTICLES + a];
      for (int e = 0; e < 3; e++)
        xm = fmax(xm, fabs(s->x[3 * p + e]));
      if (!s->pinned[3 * p])
        mmin = fmin(mmin, d->mass[p]);
    }
    if (isfinite(mmin))
      fa = fmax(fa, s->kappa[r] * xm / mmin);
  }
  *rmax = isnan(ra) ? NAN : ra / fmax(o->tol_accel, 64 * DBL_EPSILON * fa);
  return CDYN_OK;
}

/* E at the positions s->x and rows of the last gradient() (F_nc frozen in s->fnc). */
static double energy(const cdyn_stepper *st, const state *s, const double *u, double h, double *fc)
{
  const cdyn_scheme_data *d = &st->d;
  const cdyn_system *sys = st->sys;
  size_t n3 = 3 * d->n;
  const double *x = s->x;
  double E = 0;
  for (size_t i = 0; i < n3; i++) {
    double mi = d->mass[i / 3], w = u[i] - h * d->v[i];
    E += 0.5 * mi * w * w / (h * h) - mi * sys->gravity[i % 3] * x[i] - s->fnc[i] * u[i];
    if (fc)
      fc[i] = mi * sys->gravity[i % 3];
  }
  for (size_t k = 0; k < sys->nsprings; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    if (!sp->enabled || sp->i == sp->j)
      continue;
    const double *a = x + 3 * sp->i, *b = x + 3 * sp->j;
    double dd[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    double r = sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]), e = r - sp->rest;
    const double *n0 = s->n0 + 3 * k, *ui = u + 3 * sp->i, *uj = u + 3 * sp->j;
    double w = n0[0] * (ui[0] - uj[0]) + n0[1] * (ui[1] - uj[1]) + n0[2] * (ui[2] - uj[2]);
    E += 0.5 * sp->k * e * e + 0.5 * sp->c * w * w / h;
    if (fc && r > 0)
      for (int c = 0; c < 3; c++) {
        double f = sp->k * e * dd[c] / r + sp->c * w * n0[c] / h;
        fc[3 * sp->i + c] -= f;
        fc[3 * sp->j + c] += f;
      }
  }
  for (size_t r = 0; r < d->m; r++) {
    if (s->pinrow[r])
      continue;
    double kap = s->kappa[r], mu = fmax(0.0, s->lbar[r] - kap * d->rows[r].phi);
    if (kap > 0)
      E += (mu * mu - s->lbar[r] * s->lbar[r]) / (2 * kap);
  }
  return E;
}

/* At the iterate (after gradient()): F_nc = F - F_conservative into s->fnc. */
static double freeze(const cdyn_stepper *st, state *s, const double *u, double h)
{
  size_t n3 = 3 * st->d.n;
  memset(s->fnc, 0, n3 * sizeof(double));
  energy(st, s, u, h, s->us); /* us: scratch for F_conservative */
  for (size_t i = 0; i < n3; i++)
    s->fnc[i] = s->F[i] - s->us[i];
  return energy(st, s, u, h, NULL);
}

/* Newton's matrix at the iterate (after gradient()), reduced by the pins. */
static int assemble(cdyn_stepper *st, state *s, double h, double t1, double gamma)
{
  cdyn_scheme_data *d = &st->d;
  const cdyn_system *sys = st->sys;
  size_t n = d->n, n3 = 3 * n;
  memset(s->val, 0, s->nnz * sizeof(double));
  for (size_t i = 0; i < n3; i++)
    s->val[s->rowptr[i]] = d->mass[i / 3] / (h * h); /* pinned: any positive value (its right-hand side is
                                                        0), of the others' size for the solvers' rank tests */
  int rc;
  for (size_t k = 0; k < sys->nsprings; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    if (!sp->enabled || sp->i == sp->j)
      continue;
    double Kx[9], Kv[9], B[9];
    const double *xi = s->x + 3 * sp->i, *xj = s->x + 3 * sp->j;
    if ((rc = cdyn_spring_jacobians(sp, xi, xj, 0, Kx, Kv)))
      return rc;
    const double *n0 = s->n0 + 3 * k;
    for (int e = 0; e < 9; e++)
      B[e] = -Kx[e] + sp->c * n0[e / 3] * n0[e % 3] / h;
    (void)Kv;
    /* A compressed spring's transverse stiffness tau = k (1 - L0 / r) < 0,
       raised to -gamma min(m_i, m_j) / h^2 (gamma >= 0). */
    double dd[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
    double r2 = dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2];
    if (gamma >= 0 && r2 > 0 && r2 < sp->rest * sp->rest) {
      double r = sqrt(r2), tau = sp->k * (1 - sp->rest / r);
      double floor_ = -gamma * fmin(d->mass[sp->i], d->mass[sp->j]) / (h * h);
      if (tau < floor_)
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++)
            B[3 * a + b] += (floor_ - tau) * ((a == b) - dd[a] * dd[b] / r2);
    }
    add_block(s, sp->i, sp->i, 0, B, 1);
    add_block(s, sp->j, sp->j, 0, B, 1);
    add_block(s, sp->i, sp->j, s->spos[2 * k], B, -1);
    add_block(s, sp->j, sp->i, s->spos[2 * k + 1], B, -1);
  }
  for (size_t r = 0; r < d->m;) {
    const cdyn_constraint *c = &sys->cons[d->rowcon[r]];
    size_t np = c->type->nparticles, nr = c->type->rows, dn = 3 * np;
    int active = 0;
    for (size_t q = 0; q < nr; q++)
      active |= !s->pinrow[r + q] && s->lam[r + q] != 0;
    if (!active) {
      r += nr;
      continue;
    }
    if ((rc = cdyn_constraint_hess(c, s->x, t1, s->lam + r, s->K)))
      return rc;
    for (size_t q = 0; q < nr; q++) {
      if (s->pinrow[r + q] || s->lam[r + q] == 0)
        continue;
      const cdyn_row *row = &d->rows[r + q];
      for (size_t a = 0; a < dn; a++)
        for (size_t b = 0; b < dn; b++)
          s->K[a * dn + b] += s->kappa[r + q] * row->jac[a / 3][a % 3] * row->jac[b / 3][b % 3];
    }
    if ((rc = psd_project(s->K, dn)))
      return rc;
    for (size_t a = 0; a < np; a++)
      for (size_t b = 0; b < np; b++) {
        size_t pa = c->p[a], pb = c->p[b];
        double B[9];
        for (int e = 0; e < 3; e++)
          for (int f = 0; f < 3; f++)
            B[3 * e + f] = s->K[(3 * a + e) * dn + 3 * b + f];
        add_block(s, pa, pb, pa == pb ? 0 : cdyn_adjacency_slot(&s->adj, pa, pb), B, 1);
      }
    r += nr;
  }
  for (size_t i = 0; i < n3; i++)
    s->diag[i] = s->val[s->rowptr[i]];
  return CDYN_OK;
}

/* du = -H^-1 grad over the free coordinates (0 on the pinned ones). */
static int direction(cdyn_stepper *st, state *s, const void *sopts, double rank_tol)
{
  size_t n3 = 3 * st->d.n;
  for (size_t i = 0; i < n3; i++)
    s->work[i] = s->pinned[i] ? 0.0 : -s->grad[i];
  cdyn_matrix A = {.m = n3, .nnz = s->nnz, .rowptr = s->rowptr, .col = s->col, .val = s->val, .diag = s->diag,
                   .pattern = s->pattern_id, .apply = cdyn_matrix_apply_self};
  A.ctx = &A;
  cdyn_solve_info info = {0};
  double t0 = cdyn_clock();
  int rc = s->stype->setup(s->sstate, &A, rank_tol, sopts, &info);
  st->stats.time_factor += cdyn_clock() - t0;
  st->stats.analyses += info.analyses;
  st->stats.factorizations += info.factorizations;
  if (info.factorizations && rc >= 0)
    st->stats.factor_nnz = info.factor_nnz;
  /* Not positive definite: a factorisation that failed (cholmod's
     supernodal mode, whose shifted retry fails on an indefinite matrix),
     fell back to least squares, met a negative pivot or lost rank. */
  if (rc == CDYN_ESOLVE || info.fallback || info.negative || (info.rank && info.rank < n3))
    return 1;
  if (rc < 0)
    return rc;
  cdyn_solve_info sinfo = {0};
  t0 = cdyn_clock();
  rc = s->stype->solve(s->sstate, &A, 1, s->work, s->du, rank_tol, sopts, &sinfo);
  st->stats.time_solve += cdyn_clock() - t0;
  st->stats.solves++;
  st->stats.factorizations += sinfo.factorizations;
  if (sinfo.factorizations && rc >= 0)
    st->stats.factor_nnz = sinfo.factor_nnz;
  st->stats.last_residual = sinfo.residual;
  /* The same for a solve that factored (cholmod's reuse of an earlier
     factor refactors when conjugate gradients stall). */
  if (rc == CDYN_ESOLVE || sinfo.fallback)
    return 1;
  if (rc < 0)
    return rc;
  for (size_t i = 0; i < n3; i++)
    if (s->pinned[i])
      s->du[i] = 0;
  return CDYN_OK;
}

/* ---- the step ------------------------------------------------------------------------ */

/* The solver: the one the stepper's option names, or cholmod (auto). */
static int pick_solver(const cdyn_stepper *st, const cdyn_solver_type **stype, const void **sopts, double *rank_tol)
{
  int rc = cdyn_stepper_solver(st, stype, sopts, rank_tol);
  if (rc)
    return rc;
  if (*stype)
    return CDYN_OK;
  const cdyn_solver_type *chm;
  if (cdyn_solver_type_find("cholmod", &chm) == CDYN_OK)
    for (size_t k = 0; k < st->nsolvers; k++)
      if (cdyn_solver_type_at(k) == chm) {
        *stype = chm;
        *sopts = st->solver_opts[k];
        return CDYN_OK;
      }
  return cdyn_error(CDYN_EUNKNOWN, "projected-newton: the cholmod solver is not available");
}

static int step(cdyn_stepper *st, void *state_, double h)
{
  state *s = state_;
  cdyn_scheme_data *d = &st->d;
  const opts *o = d->opts;
  const cdyn_system *sys = st->sys;
  size_t n3 = 3 * d->n, m = d->m;
  double t1 = d->t + h;
  const cdyn_solver_type *stype;
  const void *sopts;
  double rank_tol;
  int rc = pick_solver(st, &stype, &sopts, &rank_tol);
  if (rc)
    return rc;
  if (!s->have_pattern || s->version != sys->version || s->nspr != sys->nsprings || s->stype != stype)
    if ((rc = build_pattern(s, st, stype)))
      return rc;

  /* The springs' directions at the start, for the dampers. */
  for (size_t k = 0; k < sys->nsprings; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    const double *xi = d->q + 3 * sp->i, *xj = d->q + 3 * sp->j;
    double dd[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
    double r = sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]);
    if (sp->enabled && sp->i != sp->j && !(r > 0))
      return cdyn_error(CDYN_EDEGENERATE, "projected-newton: spring %zu: its particles coincide at t = %g", k, d->t);
    for (int c = 0; c < 3; c++)
      s->n0[3 * k + c] = r > 0 ? dd[c] / r : 0.0;
  }
  /* Pins: their rows, their coordinates and targets (the start's u). */
  memset(s->pinned, 0, n3);
  memset(s->pinrow, 0, m);
  if (m && (rc = cdyn_eval_rows(st, d->q, d->v, t1)))
    return rc;
  for (size_t i = 0; i < n3; i++)
    s->u[i] = h * d->v[i];
  for (size_t r = 0; r < m;) {
    const cdyn_constraint *c = &sys->cons[d->rowcon[r]];
    size_t nr = c->type->rows;
    if (c->type == &cdyn_ctype_pin && !d->inequality[r]) {
      size_t p = c->p[0];
      for (int a = 0; a < 3; a++) {
        if (s->pinned[3 * p + a])
          return cdyn_error(CDYN_EINVAL, "projected-newton: particle %zu is pinned twice", p);
        s->pinned[3 * p + a] = 1;
        s->pinrow[r + a] = 1;
        s->u[3 * p + a] = -d->rows[r + a].phi; /* x = q - Phi(q, t + h) */
      }
    }
    r += nr;
  }
  /* The rows' stiffness from J at the start, and the last step's estimates. */
  for (size_t r = 0; r < m; r++) {
    s->lbar[r] = s->lamprev[r];
    if (s->pinrow[r]) {
      s->kappa[r] = 0;
      continue;
    }
    double jwj = 0;
    for (unsigned a = 0; a < d->rownp[r]; a++) {
      size_t p = d->rowpart[r * CDYN_MAX_PARTICLES + a];
      for (int e = 0; e < 3; e++)
        if (!s->pinned[3 * p + e])
          jwj += d->rows[r].jac[a][e] * d->rows[r].jac[a][e] * d->winv[p];
    }
    s->kappa[r] = jwj > 0 ? o->stiffness / (jwj * h * h) : 0;
    /* the estimates in the row's own sign: mubar >= 0 */
    s->lbar[r] = fmax(0.0, -s->lamprev[r]);
  }

  double rmax;
  if ((rc = gradient(st, s, s->u, h, t1, &rmax)))
    return rc;
  unsigned it = 0, updates = 0;
  int converged = 0, failed = 0;
  double viol = 0;
  for (;;) {
    if (!isfinite(rmax)) {
      failed = 1;
      break;
    }
    if (rmax <= 1) {
      /* The inner problem is solved: the multipliers' update, and the
         constraints' test. */
      viol = 0;
      for (size_t r = 0; r < m; r++) {
        if (s->pinrow[r])
          continue;
        double phi = d->rows[r].phi;
        viol = fmax(viol, -phi);
        s->lbar[r] = -s->lam[r];
      }
      if (viol <= o->tol) {
        converged = 1;
        break;
      }
      if ((long)++updates > o->max_iter)
        break;
      if ((rc = gradient(st, s, s->u, h, t1, &rmax)))
        return rc;
      continue;
    }
    if ((long)it >= o->max_iter)
      break;
    it++;
    double E0 = freeze(st, s, s->u, h);
    if (!isfinite(E0)) {
      failed = 1;
      break;
    }
    /* The springs' exact Hessians first; when H is not positive definite
       with them, each compressed spring's negative transverse stiffness
       raised to -gamma m / h^2, gamma = 1, 1/4, 1/16, 1/64, then 0
       (Choi and Ko's projection, always positive definite), starting one
       rung above the one the last iteration needed. */
    static const double rungs[] = {-1, 1, 0.25, 0.0625, 0.015625, 0};
    const int nrungs = (int)(sizeof rungs / sizeof rungs[0]);
    int k0 = s->rung > 0 ? s->rung - 1 : 0;
    rc = 1;
    for (int k = k0; k < nrungs && rc > 0; k++) {
      if ((rc = assemble(st, s, h, t1, rungs[k])) < 0 || (rc = direction(st, s, sopts, rank_tol)) < 0)
        return rc;
      s->rung = k;
    }
    if (rc > 0) {
      failed = 1;
      break;
    }
    double slope = 0;
    for (size_t i = 0; i < n3; i++)
      slope += s->grad[i] * s->du[i];
    double alpha = 1, r_s = NAN;
    int accepted = 0;
    for (int hv = 0; hv <= MAX_HALVINGS; hv++, alpha /= 2) {
      for (size_t i = 0; i < n3; i++)
        s->us[i] = s->u[i] + alpha * s->du[i];
      rc = gradient(st, s, s->us, h, t1, &r_s);
      if (rc == CDYN_EDEGENERATE || rc == CDYN_ENONFINITE)
        continue;
      if (rc)
        return rc;
      double Es = energy(st, s, s->us, h, NULL);
      /* Armijo on E; or, where E's change is lost in its rounding near
         the solution, a decrease of the residual (as backward_euler.c's theta). */
      if (Es <= E0 + ARMIJO * alpha * slope || r_s <= (1 - ARMIJO * alpha) * rmax) {
        accepted = 1;
        break;
      }
    }
    if (!accepted) {
      failed = 1;
      break;
    }
    memcpy(s->u, s->us, n3 * sizeof(double));
    rmax = r_s;
  }
  cdyn_record_nonlinear(st, it, viol, converged);
  if (!converged) {
    cdyn_error(CDYN_NOCONV,
               "projected-newton: no convergence in the step from t = %g with h = %g (%u Newton iterations; "
               "constraint violation %g m, tolerance %g%s); the state is restored",
               d->t, h, it, viol, o->tol, failed ? "; no acceptable step" : "");
    return CDYN_NOCONV;
  }
  for (size_t i = 0; i < n3; i++) {
    d->v[i] = s->u[i] / h;
    d->q[i] += s->u[i];
  }
  /* Multipliers: the rows' (lam, library sign); the pins' from the
     gradient's pinned components. */
  for (size_t r = 0; r < m; r++) {
    if (s->pinrow[r]) {
      size_t p = d->rowpart[r * CDYN_MAX_PARTICLES], first = r;
      while (first > 0 && d->rowcon[first - 1] == d->rowcon[r])
        first--;
      d->lambda[r] = -s->grad[3 * p + (r - first)];
    } else
      d->lambda[r] = s->lam[r];
    s->lamprev[r] = d->lambda[r];
  }
  return CDYN_OK;
}

static const cdyn_option options[] = {
  {"tol", CDYN_OPT_DOUBLE, offsetof(opts, tol), "1e-6", 0.0, 1e300, NULL,
   "the step ends when every inequality row has -g at most this (m)"},
  {"tol_accel", CDYN_OPT_DOUBLE, offsetof(opts, tol_accel), "1e-4", 0.0, 1e300, NULL,
   "each inner minimisation stops when max |grad E_i| / m_i, the acceleration the momentum residual leaves, is at "
   "most this (m/s^2)"},
  {"stiffness", CDYN_OPT_DOUBLE, offsetof(opts, stiffness), "1e4", 1.0, 1e12, NULL,
   "the augmented Lagrangian's stiffness of a row, in units of its effective mass / h^2"},
  {"max_iter", CDYN_OPT_INT, offsetof(opts, max_iter), "100", 1, 1e6, NULL,
   "Newton iterations per step, over all multiplier updates, before CDYN_NOCONV (the state restored)"},
  CDYN_OPTIONS_END};

/* The inequality rows' geometric stiffness enters Newton's matrix. */
static int uses_hess(const void *o)
{
  (void)o;
  return 1;
}

const cdyn_scheme_type cdyn_scheme_projected_newton = {
  .name = "projected-newton",
  .description = "backward Euler as a minimisation: Newton on the incremental potential with a line search, pins "
                 "eliminated, inequality rows (strain limits, contact) one-sided by an augmented Lagrangian",
  .source = "doc/large-steps.md (Gast et al. 2015; Nocedal and Wright ch. 17; Li et al. 2020)",
  .order = 1,
  .lambda_order = 1,
  .lambda_time = CDYN_LAMBDA_END,
  .options = options,
  .options_size = sizeof(opts),
  .inequalities = 1,
  .pins_only = 1,
  .alloc = st_alloc,
  .free = st_free,
  .step = step,
  .reset = reset,
  .changed = changed,
  .own_system = 1,
  .noconv_restores = 1,
  .implicit_springs = 1,
  .uses_hess = uses_hess,
};
