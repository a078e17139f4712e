/*
 * admm.c: backward Euler's incremental potential minimised by the
 * alternating direction method of multipliers over one prefactored scalar
 * matrix (Overby, Brown, Li and Narain 2017, "ADMM ⊇ Projective
 * Dynamics"; Bouaziz, Martin, Liu, Kavan and Pauly 2014; doc/large-steps.md,
 * "One matrix for every step").
 *
 * The step.  From (q, v, t) with step h, the end positions x minimise
 *   E(x) = sum_i m_i |x_i - xhat_i|^2 / (2 h^2) + sum_terms g_t(D_t x),
 *   xhat_i = q_i + h v_i + h^2 f_i / m_i,
 * f the applied force other than the springs (gravity, and the user's
 * force callback at (q, v, t + h): explicit), under the pins and the
 * inequality rows.  Each term sees its particles through a linear map D_t:
 *   - a spring (k, L0): D x = x_i - x_j, g(z) = k (|z| - L0)^2 / 2;
 *   - its damper (c): D x = x_i - x_j, g(z) = c (n0 . (z - d0))^2 / (2 h),
 *     with n0 and d0 = q_i - q_j the spring's direction and vector at the
 *     step's start: the dissipation potential of projected_newton.c, whose
 *     step is the same minimum;
 *   - an inequality row of one particle p (a ball, a plane): D x = x_p,
 *     g(z) = 0 where the row's g(z) >= 0, else infinity;
 *   - an inequality row of two particles whose g depends on x_i - x_j only
 *     (its Jacobian's blocks sum to zero at the first step: a tether, a
 *     strain limit): D x = x_i - x_j, and the same indicator;
 *   - any other inequality row of one constraint row: D x = its particles'
 *     positions, stacked.
 * With z_t = D_t x split off and scaled duals y_t, each iteration is
 *   x   <- argmin  sum m |x - xhat|^2 / (2 h^2) + sum w_t^2 |D_t x - z_t + y_t|^2 / 2
 *          (one solve with A = M / h^2 + sum w_t^2 D_t^T D_t, for x, y, z at once)
 *   z_t <- argmin  g_t(z) + w_t^2 |D_t x + y_t - z|^2 / 2   (a projection)
 *   y_t <- y_t + D_t x - z_t.
 * Every D_t acts alike on x, y and z, so A is a scalar n x n matrix (the
 * pins eliminated), the same at every step while the system, h and the
 * set of rows are: it is factored once, and an iteration is one solve with
 * three right-hand sides and a loop over the terms.  The weights:
 *   spring w^2 = k, damper w^2 = c / h (Projective Dynamics' choice, with
 *   which its iteration is the local-global one), and a row's
 *   w^2 = stiffness * mu_eff / h^2, mu_eff = 1 / (J W J^T) at the first
 *   step (as projected_newton.c's kappa; `stiffness` 100 by default).
 * The projections: a spring's is radial, |z| = (k L0 + w^2 |a|) / (k + w^2)
 * along a = D x + y; a damper's moves a along n0 only; a row's is the
 * nearest point of g >= 0, by up to 8 steps z <- z - g J / |J|^2 with the
 * row's own derivative (exact in one for a tether, a ball or a plane), the
 * pinned particles' coordinates held.
 *
 * Stopping (Boyd, Parikh, Chu, Peleato and Eckstein 2011, sec. 3.3): the
 * primal residual max |D_t x - z_t| <= tol (m) and the dual one, the
 * change of the terms' pull on each free coordinate over its mass,
 * max |sum w^2 D^T (z - z_prev)| / m_i <= tol_accel (m/s^2).  At both,
 * x is backward Euler's step to within them, and the multipliers are the
 * duals: a row's force is -w^2 D^T y, so lambda_r = w^2 (y . grad g) /
 * |grad g|^2 (library sign; <= 0 for a row that pushes or pulls).  The
 * iteration converges linearly: tol and tol_accel trade the step's
 * accuracy against its cost, and the cloth section of make bench
 * measures both (its error against projected-newton's converged step).
 * When max_iter iterations pass, the step returns CDYN_NOCONV and the
 * stepper restores the state.
 *
 * Start: x = xhat (pinned particles on their targets), and the last
 * step's z and y: the warm start that makes a quiet step cheap.  They are
 * kept through a change of the set by the row map (`changed`).
 *
 * Constraints: pins (eliminated, as in projected_newton.c) and
 * inequality rows; equality links are refused by the stepper (pins_only).
 *
 * Expected order: 1 in q and v (backward Euler; the dampers' direction
 * and the user's force lagged by one step).
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "core/internal.h"

#define PROJ_STEPS 8
#define ZW (3 * CDYN_MAX_PARTICLES) /* a row's z and y */

typedef struct {
  double tol, tol_accel, stiffness;
  long max_iter;
} opts;

enum { FORM_NONE = 0, FORM_DIFF = 1, FORM_SEL = 2 };

typedef struct {
  size_t n, mcap;
  /* 3n each */
  double *x, *xhat, *q1, *pull;
  /* 3 nf each: right-hand sides and solutions, one coordinate after another */
  double *rhs, *sol;
  long *fidx; /* n: the free index of a particle, or -1 when pinned */
  size_t nf;
  /* per spring: z, y, damper z, damper y, n0, d0 (3 each) */
  double *sz, *sy, *dz, *dy, *n0, *d0;
  /* per row */
  double *rz, *ry, *w2;
  unsigned char *form, *pinrow;
  /* the matrix over free particles: both triangles, diagonal first */
  int *rowptr, *col;
  double *val, *diag;
  size_t nnz, nspr, mrows;
  size_t *nstart, *nbr;
  unsigned long version, pattern_id;
  double h;            /* the h of the factored matrix */
  double *msig, *ksig; /* the masses and springs (k, c) it was built with */
  int have_pattern, factored, fresh;
  const cdyn_solver_type *stype;
  void *sstate;
  /* Anderson acceleration of the (z, y) iteration */
  double *aa;
  size_t aan;
} state;

#define AA_M 5

/* ---- state ------------------------------------------------------------------------- */

static void drop_pattern(state *s)
{
  free(s->rowptr);
  free(s->col);
  free(s->val);
  free(s->diag);
  free(s->nstart);
  free(s->nbr);
  free(s->aa);
  s->aa = NULL;
  s->rowptr = s->col = NULL;
  s->val = s->diag = NULL;
  s->nstart = s->nbr = NULL;
  if (s->stype && s->sstate)
    s->stype->free(s->sstate);
  s->sstate = NULL;
  s->stype = NULL;
  s->have_pattern = s->factored = 0;
}

static void st_free(void *p)
{
  state *s = p;
  if (!s)
    return;
  drop_pattern(s);
  free(s->sz);
  free(s->ksig);
  free(s->x);
  free(s->fidx);
  free(s->rz);
  free(s->form);
  free(s);
}

static int st_alloc(void **out, size_t n, size_t mcap)
{
  state *s = calloc(1, sizeof *s);
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "admm: out of memory");
  s->n = n;
  s->mcap = mcap;
  size_t n3 = 3 * n;
  s->x = calloc(7 * n3 + n + 1, sizeof(double));
  s->fidx = calloc(n + 1, sizeof(long));
  s->rz = calloc((2 * ZW + 1) * mcap + 1, sizeof(double));
  s->form = calloc(2 * mcap + 1, 1);
  if (!s->x || !s->fidx || !s->rz || !s->form) {
    st_free(s);
    return cdyn_error(CDYN_ENOMEM, "admm: out of memory for %zu particles and %zu rows", n, mcap);
  }
  s->xhat = s->x + n3;
  s->q1 = s->xhat + n3;
  s->pull = s->q1 + n3;
  s->rhs = s->pull + n3;
  s->sol = s->rhs + n3;
  s->msig = s->sol + n3;
  s->ry = s->rz + ZW * mcap;
  s->w2 = s->ry + ZW * mcap;
  s->pinrow = s->form + mcap;
  s->fresh = 1;
  *out = s;
  return CDYN_OK;
}

static void reset(void *p)
{
  state *s = p;
  s->fresh = 1;
}

/* The rows' z and y follow their rows through a change of the set; the
   matrix is rebuilt (a row's weight and form enter it). */
static void changed(void *p, const cdyn_stepper *st, const cdyn_set_change *ch)
{
  state *s = p;
  size_t m = st->d.m, mo = ch->m_old < s->mcap ? ch->m_old : s->mcap;
  /* Move in place: rows only keep or lose places in order, but a row may
     move either way, so go through q1's space when it fits, else drop. */
  if (2 * ZW * mo <= 4 * 3 * s->n) {
    double *tz = s->q1; /* q1, pull, rhs, sol: 12 n scratch values */
    memcpy(tz, s->rz, ZW * mo * sizeof(double));
    memcpy(tz + ZW * mo, s->ry, ZW * mo * sizeof(double));
    for (size_t r = 0; r < m; r++) {
      long f = ch->from[r];
      int ok = f >= 0 && (size_t)f < mo;
      for (int e = 0; e < ZW; e++) {
        s->rz[ZW * r + e] = ok ? tz[ZW * f + e] : NAN;
        s->ry[ZW * r + e] = ok ? tz[ZW * mo + ZW * f + e] : 0.0;
      }
    }
  } else
    for (size_t r = 0; r < m; r++)
      for (int e = 0; e < ZW; e++) {
        s->rz[ZW * r + e] = NAN;
        s->ry[ZW * r + e] = 0.0;
      }
  s->factored = 0;
  s->have_pattern = 0; /* the rows' pairs may differ */
}

/* ---- the pattern ---------------------------------------------------------------------- */

/* Free-free pairs of the springs and of the difference rows; place = 0
   counts, 1 writes. */
static void walk_pairs(state *s, const cdyn_stepper *st, size_t *deg, int place)
{
  const cdyn_system *sys = st->sys;
  const cdyn_scheme_data *d = &st->d;
  size_t np = sys->nsprings + d->m;
  for (size_t k = 0; k < np; k++) {
    size_t i, j;
    if (k < sys->nsprings) {
      const cdyn_spring *sp = &sys->springs[k];
      if (!sp->enabled || sp->i == sp->j)
        continue;
      i = sp->i;
      j = sp->j;
    } else {
      size_t r = k - sys->nsprings;
      if (s->form[r] != FORM_DIFF)
        continue;
      i = d->rowpart[r * CDYN_MAX_PARTICLES];
      j = d->rowpart[r * CDYN_MAX_PARTICLES + 1];
    }
    long a = s->fidx[i], b = s->fidx[j];
    if (a < 0 || b < 0 || a == b)
      continue;
    if (place) {
      s->nbr[s->nstart[a] + deg[a]] = (size_t)b;
      s->nbr[s->nstart[b] + deg[b]] = (size_t)a;
    }
    deg[a]++;
    deg[b]++;
  }
}

static size_t slot_of(const state *s, size_t a, size_t b)
{
  size_t lo = s->nstart[a], hi = s->nstart[a + 1];
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (s->nbr[mid] < b)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int build_pattern(state *s, cdyn_stepper *st, const cdyn_solver_type *stype)
{
  const cdyn_system *sys = st->sys;
  size_t nf = s->nf, ns = sys->nsprings;
  drop_pattern(s);
  size_t *deg = calloc(nf + 1, sizeof(size_t));
  s->nstart = calloc(nf + 1, sizeof(size_t));
  if (!deg || !s->nstart)
    goto nomem;
  if (!s->sz || s->nspr != ns) {
    /* the springs' split variables, duals and start vectors */
    free(s->sz);
    free(s->ksig);
    s->sz = calloc(18 * ns + 1, sizeof(double));
    s->ksig = calloc(2 * ns + 1, sizeof(double));
    if (!s->sz || !s->ksig)
      goto nomem;
    s->sy = s->sz + 3 * ns;
    s->dz = s->sy + 3 * ns;
    s->dy = s->dz + 3 * ns;
    s->n0 = s->dy + 3 * ns;
    s->d0 = s->n0 + 3 * ns;
    for (size_t k = 0; k < 3 * ns; k++)
      s->sz[k] = NAN; /* set from the positions at the first step */
  }
  walk_pairs(s, st, deg, 0);
  size_t total = 0;
  for (size_t a = 0; a < nf; a++) {
    s->nstart[a] = total;
    total += deg[a];
  }
  s->nstart[nf] = total;
  s->nbr = malloc((total + 1) * sizeof(size_t));
  if (!s->nbr)
    goto nomem;
  memset(deg, 0, (nf + 1) * sizeof(size_t));
  walk_pairs(s, st, deg, 1);
  size_t w = 0;
  for (size_t a = 0; a < nf; a++) {
    size_t a0 = s->nstart[a], len = deg[a], u = 0;
    size_t *e = s->nbr + a0;
    for (size_t t = 0; t < len; t++) {
      size_t c = e[t], pos = u;
      while (pos > 0 && e[pos - 1] > c)
        pos--;
      if (pos > 0 && e[pos - 1] == c)
        continue;
      memmove(e + pos + 1, e + pos, (u - pos) * sizeof(size_t));
      e[pos] = c;
      u++;
    }
    memmove(s->nbr + w, e, u * sizeof(size_t));
    s->nstart[a] = w;
    w += u;
  }
  s->nstart[nf] = w;
  free(deg);
  deg = NULL;
  size_t nnz = nf + w;
  if (nnz > (size_t)2147483647) {
    drop_pattern(s);
    return cdyn_error(CDYN_EINVAL, "admm: %zu non-zeros exceed the index range", nnz);
  }
  s->aan = 12 * ns + 2 * ZW * st->d.m;
  s->aa = malloc(((4 + 2 * AA_M) * s->aan + 1) * sizeof(double));
  if (!s->aa)
    goto nomem;
  s->rowptr = malloc((nf + 1) * sizeof(int));
  s->col = malloc((nnz + 1) * sizeof(int));
  s->val = malloc((nnz + 1) * sizeof(double));
  s->diag = malloc((nf + 1) * sizeof(double));
  if (!s->rowptr || !s->col || !s->val || !s->diag)
    goto nomem;
  size_t p = 0;
  for (size_t a = 0; a < nf; a++) {
    s->rowptr[a] = (int)p;
    s->col[p++] = (int)a;
    for (size_t t = s->nstart[a]; t < s->nstart[a + 1]; t++)
      s->col[p++] = (int)s->nbr[t];
  }
  s->rowptr[nf] = (int)p;
  s->nnz = nnz;
  s->nspr = ns;
  s->mrows = st->d.m;
  s->version = sys->version;
  s->pattern_id++;
  if (stype->alloc(&s->sstate, nf)) {
    s->sstate = NULL;
    drop_pattern(s);
    return cdyn_error(CDYN_ENOMEM, "admm: out of memory for the solver of %zu unknowns", nf);
  }
  s->stype = stype;
  s->have_pattern = 1;
  st->stats.analyses++;
  return CDYN_OK;
nomem:
  free(deg);
  drop_pattern(s);
  return cdyn_error(CDYN_ENOMEM, "admm: out of memory for the pattern of %zu particles", s->nf);
}

/* Add w to the pair (a, b) of free indices: a's and b's diagonals, -w off. */
static void add_pair(state *s, long a, long b, double w)
{
  if (a >= 0)
    s->val[s->rowptr[a]] += w;
  if (b >= 0)
    s->val[s->rowptr[b]] += w;
  if (a >= 0 && b >= 0 && a != b) {
    s->val[s->rowptr[a] + 1 + (slot_of(s, (size_t)a, (size_t)b) - s->nstart[a])] -= w;
    s->val[s->rowptr[b] + 1 + (slot_of(s, (size_t)b, (size_t)a) - s->nstart[b])] -= w;
  }
}

static int apply(const void *ctx, const double *x, double *y)
{
  const state *s = ctx;
  for (size_t a = 0; a < s->nf; a++) {
    double acc = 0;
    for (int k = s->rowptr[a]; k < s->rowptr[a + 1]; k++)
      acc += s->val[k] * x[s->col[k]];
    y[a] = acc;
  }
  return CDYN_OK;
}

/* The matrix's values and its factorisation (A does not change while the
   system, h and the set do). */
static int factor(cdyn_stepper *st, state *s, double h, const void *sopts, double rank_tol)
{
  const cdyn_system *sys = st->sys;
  const cdyn_scheme_data *d = &st->d;
  memset(s->val, 0, s->nnz * sizeof(double));
  for (size_t i = 0; i < d->n; i++) {
    s->msig[i] = d->mass[i];
    if (s->fidx[i] >= 0)
      s->val[s->rowptr[s->fidx[i]]] += d->mass[i] / (h * h);
  }
  for (size_t k = 0; k < sys->nsprings; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    s->ksig[2 * k] = sp->enabled ? sp->k : -1.0;
    s->ksig[2 * k + 1] = sp->c;
    if (sp->enabled && sp->i != sp->j)
      add_pair(s, s->fidx[sp->i], s->fidx[sp->j], sp->k + sp->c / h);
  }
  for (size_t r = 0; r < d->m; r++) {
    const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
    if (s->form[r] == FORM_DIFF)
      add_pair(s, s->fidx[pp[0]], s->fidx[pp[1]], s->w2[r]);
    else if (s->form[r] == FORM_SEL)
      for (unsigned a = 0; a < d->rownp[r]; a++)
        if (s->fidx[pp[a]] >= 0)
          s->val[s->rowptr[s->fidx[pp[a]]]] += s->w2[r];
  }
  for (size_t a = 0; a < s->nf; a++)
    s->diag[a] = s->val[s->rowptr[a]];
  cdyn_matrix A = {.m = s->nf, .nnz = s->nnz, .rowptr = s->rowptr, .col = s->col, .val = s->val, .diag = s->diag,
                   .pattern = s->pattern_id, .apply = apply, .ctx = s};
  cdyn_solve_info info = {0};
  int rc = s->stype->setup(s->sstate, &A, rank_tol, sopts, &info);
  st->stats.analyses += info.analyses;
  st->stats.factorizations += info.factorizations;
  if (rc < 0)
    return rc;
  if (info.fallback || info.negative)
    return cdyn_error(CDYN_ESOLVE, "admm: its matrix M / h^2 + sum w^2 D^T D is not positive definite");
  s->h = h;
  s->factored = 1;
  return CDYN_OK;
}

/* Did the masses or springs change since the matrix was built? */
static int stale(const cdyn_stepper *st, const state *s, double h)
{
  const cdyn_system *sys = st->sys;
  if (!s->factored || s->h != h)
    return 1;
  for (size_t i = 0; i < st->d.n; i++)
    if (s->msig[i] != st->d.mass[i])
      return 1;
  for (size_t k = 0; k < sys->nsprings; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    if (s->ksig[2 * k] != (sp->enabled ? sp->k : -1.0))
      return 1;
    if (s->ksig[2 * k + 1] != sp->c)
      return 1;
  }
  return 0;
}

/* ---- the rows ---------------------------------------------------------------------- */

/* Evaluate row r's constraint with its particles at the stacked z (FORM_SEL)
   or at (z, 0) (FORM_DIFF). */
static int eval_row(const cdyn_stepper *st, size_t r, const double *z, double t1, cdyn_row *out)
{
  const cdyn_system *sys = st->sys;
  const cdyn_constraint *c = &sys->cons[st->d.rowcon[r]];
  static const double zero[3] = {0, 0, 0};
  const double *xp[CDYN_MAX_PARTICLES], *vp[CDYN_MAX_PARTICLES];
  unsigned np = st->d.rownp[r];
  for (unsigned a = 0; a < np; a++) {
    xp[a] = z + 3 * a;
    vp[a] = zero;
  }
  return c->type->eval(c->params, xp, vp, t1, out);
}

/* The nearest point of g >= 0 to a (stacked, np particles; pinned ones held). */
static int project_row(const cdyn_stepper *st, const state *s, size_t r, double *z, double t1)
{
  const cdyn_scheme_data *d = &st->d;
  unsigned np = d->rownp[r];
  double buf[ZW];
  const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
  for (int it = 0; it < PROJ_STEPS; it++) {
    cdyn_row row;
    int rc;
    if (s->form[r] == FORM_DIFF) {
      memcpy(buf, z, 3 * sizeof(double));
      memset(buf + 3, 0, 3 * sizeof(double));
      rc = eval_row(st, r, buf, t1, &row);
    } else
      rc = eval_row(st, r, z, t1, &row);
    if (rc)
      return rc;
    if (row.phi >= 0)
      return CDYN_OK;
    double jj = 0;
    unsigned nb = s->form[r] == FORM_DIFF ? 1 : np;
    for (unsigned a = 0; a < nb; a++)
      if (s->form[r] == FORM_DIFF || s->fidx[pp[a]] >= 0)
        for (int e = 0; e < 3; e++)
          jj += row.jac[a][e] * row.jac[a][e];
    if (!(jj > 0))
      return cdyn_error(CDYN_EDEGENERATE, "admm: row %zu: its gradient vanishes where it is violated", r);
    double step = -row.phi / jj;
    for (unsigned a = 0; a < nb; a++)
      if (s->form[r] == FORM_DIFF || s->fidx[pp[a]] >= 0)
        for (int e = 0; e < 3; e++)
          z[3 * a + e] += step * row.jac[a][e];
  }
  return CDYN_OK;
}

/* D_r x into out (3 or 3 np values). */
static void row_dx(const cdyn_stepper *st, const state *s, size_t r, const double *x, double *out)
{
  const size_t *pp = st->d.rowpart + r * CDYN_MAX_PARTICLES;
  if (s->form[r] == FORM_DIFF)
    for (int e = 0; e < 3; e++)
      out[e] = x[3 * pp[0] + e] - x[3 * pp[1] + e];
  else
    for (unsigned a = 0; a < st->d.rownp[r]; a++)
      for (int e = 0; e < 3; e++)
        out[3 * a + e] = x[3 * pp[a] + e];
}

/* ---- Anderson acceleration ---------------------------------------------------------- */

static void aa_gather(const state *s, size_t m, double *w)
{
  memcpy(w, s->sz, 12 * s->nspr * sizeof(double));
  memcpy(w + 12 * s->nspr, s->rz, ZW * m * sizeof(double));
  memcpy(w + 12 * s->nspr + ZW * m, s->ry, ZW * m * sizeof(double));
}

static void aa_scatter(state *s, size_t m, const double *w)
{
  memcpy(s->sz, w, 12 * s->nspr * sizeof(double));
  memcpy(s->rz, w + 12 * s->nspr, ZW * m * sizeof(double));
  memcpy(s->ry, w + 12 * s->nspr + ZW * m, ZW * m * sizeof(double));
}

/* ---- the step ------------------------------------------------------------------------ */

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
  return cdyn_error(CDYN_EUNKNOWN, "admm: the cholmod solver is not available");
}

/* Pins, forms and weights of the rows, at the step's start (rows at q). */
static int classify(cdyn_stepper *st, state *s, double h, int weigh, int *newpins)
{
  cdyn_scheme_data *d = &st->d;
  const cdyn_system *sys = st->sys;
  const opts *o = d->opts;
  size_t m = d->m;
  *newpins = 0;
  long nfree = 0;
  /* which particles are pinned */
  for (size_t i = 0; i < d->n; i++)
    s->q1[i] = 0; /* scratch: pin count */
  for (size_t r = 0; r < m;) {
    const cdyn_constraint *c = &sys->cons[d->rowcon[r]];
    size_t nr = c->type->rows;
    if (c->type == &cdyn_ctype_pin && !d->inequality[r]) {
      size_t p = c->p[0];
      if (s->q1[p] != 0)
        return cdyn_error(CDYN_EINVAL, "admm: particle %zu is pinned twice", p);
      s->q1[p] = 1;
    } else if (d->inequality[r] && nr != 1)
      return cdyn_error(CDYN_EINVAL,
                        "admm: constraint %zu ('%s') is an inequality of %zu rows; admm projects inequalities of one row",
                        d->rowcon[r], c->type->name, nr);
    r += nr;
  }
  for (size_t i = 0; i < d->n; i++) {
    long f = s->q1[i] != 0 ? -1 : nfree++;
    if (f != s->fidx[i])
      *newpins = 1;
    s->fidx[i] = f;
  }
  s->nf = (size_t)nfree;
  if (!weigh && !*newpins)
    return CDYN_OK;
  for (size_t r = 0; r < m;) {
    const cdyn_constraint *c = &sys->cons[d->rowcon[r]];
    size_t nr = c->type->rows;
    for (size_t k = 0; k < nr; k++) {
      s->pinrow[r + k] = c->type == &cdyn_ctype_pin && !d->inequality[r];
      if (s->pinrow[r + k]) {
        s->form[r + k] = FORM_NONE;
        continue;
      }
      const cdyn_row *row = &d->rows[r + k];
      unsigned np = d->rownp[r + k];
      int diff = np == 2;
      double jn = 0, js = 0, jwj = 0;
      for (int e = 0; e < 3 && diff; e++) {
        double sum = row->jac[0][e] + row->jac[1][e];
        js = fmax(js, fabs(sum));
        jn = fmax(jn, fabs(row->jac[0][e]));
      }
      diff = diff && js <= 64 * DBL_EPSILON * jn;
      const size_t *pp = d->rowpart + (r + k) * CDYN_MAX_PARTICLES;
      for (unsigned a = 0; a < np; a++)
        if (s->fidx[pp[a]] >= 0)
          for (int e = 0; e < 3; e++)
            jwj += row->jac[a][e] * row->jac[a][e] * d->winv[pp[a]];
      s->form[r + k] = diff ? FORM_DIFF : FORM_SEL;
      /* the weight per unit of z: mu_eff / h^2 * stiffness, mu_eff over
         |grad_z g|^2 = 1 per unit of the row's own gradient */
      double gz = 0;
      for (unsigned a = 0; a < (diff ? 1u : np); a++)
        for (int e = 0; e < 3; e++)
          gz += row->jac[a][e] * row->jac[a][e];
      s->w2[r + k] = jwj > 0 ? o->stiffness * gz / (jwj * h * h) : 0;
      if (s->w2[r + k] == 0)
        s->form[r + k] = FORM_NONE; /* every particle pinned */
    }
    r += nr;
  }
  return CDYN_OK;
}

static int step(cdyn_stepper *st, void *state_, double h)
{
  state *s = state_;
  cdyn_scheme_data *d = &st->d;
  const opts *o = d->opts;
  const cdyn_system *sys = st->sys;
  size_t n = d->n, n3 = 3 * n, m = d->m, ns = sys->nsprings;
  double t1 = d->t + h;
  const cdyn_solver_type *stype;
  const void *sopts;
  double rank_tol;
  int rc = pick_solver(st, &stype, &sopts, &rank_tol);
  if (rc)
    return rc;
  if (m && (rc = cdyn_eval_rows(st, d->q, d->v, t1)))
    return rc;
  /* The rows' forms and weights are set when the system, the set or h
     change, and kept while they do not (they enter the matrix). */
  int newpins = 0;
  int rebuild = !s->have_pattern || s->version != sys->version || s->nspr != ns || s->stype != stype || s->mrows != m;
  if ((rc = classify(st, s, h, rebuild || s->h != h, &newpins)))
    return rc;
  if ((rebuild || newpins) && (rc = build_pattern(s, st, stype)))
    return rc;
  if (stale(st, s, h) && (rc = factor(st, s, h, sopts, rank_tol)))
    return rc;

  /* xhat, pins' targets, the springs' start vectors */
  double *f = s->pull;
  for (size_t i = 0; i < n; i++)
    for (int e = 0; e < 3; e++)
      f[3 * i + e] = d->mass[i] * sys->gravity[e];
  if (sys->force_fn) {
    int cb = sys->force_fn(sys->force_ctx, n, t1, d->q, d->v, f);
    if (cb)
      return cdyn_error(CDYN_ECALLBACK, "the user force callback returned %d at t = %g", cb, t1);
    if (!cdyn_all_finite(f, n3))
      return cdyn_error(CDYN_ENONFINITE, "the applied force is not finite at t = %g", t1);
  }
  for (size_t i = 0; i < n3; i++)
    s->xhat[i] = d->q[i] + h * d->v[i] + h * h * f[i] * d->winv[i / 3];
  for (size_t r = 0; r < m; r++)
    if (s->pinrow[r]) {
      size_t p = d->rowpart[r * CDYN_MAX_PARTICLES], first_r = r;
      while (first_r > 0 && d->rowcon[first_r - 1] == d->rowcon[r])
        first_r--;
      s->xhat[3 * p + (r - first_r)] = d->q[3 * p + (r - first_r)] - d->rows[r].phi;
    }
  memcpy(s->x, s->xhat, n3 * sizeof(double));
  for (size_t k = 0; k < ns; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    double *d0 = s->d0 + 3 * k, *n0 = s->n0 + 3 * k;
    for (int e = 0; e < 3; e++)
      d0[e] = d->q[3 * sp->i + e] - d->q[3 * sp->j + e];
    double r = sqrt(d0[0] * d0[0] + d0[1] * d0[1] + d0[2] * d0[2]);
    if (sp->enabled && sp->i != sp->j && !(r > 0))
      return cdyn_error(CDYN_EDEGENERATE, "admm: spring %zu: its particles coincide at t = %g", k, d->t);
    for (int e = 0; e < 3; e++) {
      n0[e] = r > 0 ? d0[e] / r : 0.0;
      s->dz[3 * k + e] = d0[e];
      s->dy[3 * k + e] = 0;
      if (s->fresh || isnan(s->sz[3 * k + e])) {
        s->sz[3 * k + e] = d0[e];
        s->sy[3 * k + e] = 0;
      }
    }
  }
  for (size_t r = 0; r < m; r++) {
    if (s->form[r] == FORM_NONE)
      continue;
    if (s->fresh || isnan(s->rz[ZW * r])) {
      row_dx(st, s, r, d->q, s->rz + ZW * r);
      memset(s->ry + ZW * r, 0, ZW * sizeof(double));
    }
  }
  s->fresh = 0;

  cdyn_matrix A = {.m = s->nf, .nnz = s->nnz, .rowptr = s->rowptr, .col = s->col, .val = s->val, .diag = s->diag,
                   .pattern = s->pattern_id, .apply = apply, .ctx = s};
  size_t nf = s->nf;
  size_t N = s->aan;
  double *aw = s->aa, *ag = aw + N, *af = ag + N, *afk = af + N, *dF = afk + N, *dG = dF + AA_M * N;
  int aa_have = 0, aa_count = 0, aa_pos = 0;
  double aa_fprev = INFINITY;
  int use_aa = !getenv("ADMM_NOAA");
  aa_gather(s, m, aw);
  unsigned it = 0;
  int converged = 0;
  double rp = INFINITY, rd = INFINITY;
  for (;;) {
    /* the global solve: A x = M xhat / h^2 + sum w^2 D^T (z - y) */
    memset(s->pull, 0, n3 * sizeof(double));
    for (size_t k = 0; k < ns; k++) {
      const cdyn_spring *sp = &sys->springs[k];
      if (!sp->enabled || sp->i == sp->j)
        continue;
      double cw = sp->c / h;
      for (int e = 0; e < 3; e++) {
        double g = sp->k * (s->sz[3 * k + e] - s->sy[3 * k + e]) + cw * (s->dz[3 * k + e] - s->dy[3 * k + e]);
        s->pull[3 * sp->i + e] += g;
        s->pull[3 * sp->j + e] -= g;
      }
    }
    for (size_t r = 0; r < m; r++) {
      const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
      const double *z = s->rz + ZW * r, *y = s->ry + ZW * r;
      if (s->form[r] == FORM_DIFF)
        for (int e = 0; e < 3; e++) {
          double g = s->w2[r] * (z[e] - y[e]);
          s->pull[3 * pp[0] + e] += g;
          s->pull[3 * pp[1] + e] -= g;
        }
      else if (s->form[r] == FORM_SEL)
        for (unsigned a = 0; a < d->rownp[r]; a++)
          for (int e = 0; e < 3; e++)
            s->pull[3 * pp[a] + e] += s->w2[r] * (z[3 * a + e] - y[3 * a + e]);
    }
    /* pinned neighbours move to the right-hand side */
    for (size_t i = 0; i < n; i++) {
      long a = s->fidx[i];
      if (a < 0)
        continue;
      for (int e = 0; e < 3; e++)
        s->rhs[(size_t)e * nf + (size_t)a] = d->mass[i] * s->xhat[3 * i + e] / (h * h) + s->pull[3 * i + e];
    }
    for (size_t k = 0; k < ns; k++) {
      const cdyn_spring *sp = &sys->springs[k];
      if (!sp->enabled || sp->i == sp->j)
        continue;
      long a = s->fidx[sp->i], b = s->fidx[sp->j];
      double w = sp->k + sp->c / h;
      if (a >= 0 && b < 0)
        for (int e = 0; e < 3; e++)
          s->rhs[(size_t)e * nf + (size_t)a] += w * s->xhat[3 * sp->j + e];
      else if (b >= 0 && a < 0)
        for (int e = 0; e < 3; e++)
          s->rhs[(size_t)e * nf + (size_t)b] += w * s->xhat[3 * sp->i + e];
    }
    for (size_t r = 0; r < m; r++) {
      if (s->form[r] != FORM_DIFF)
        continue;
      const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
      long a = s->fidx[pp[0]], b = s->fidx[pp[1]];
      if (a >= 0 && b < 0)
        for (int e = 0; e < 3; e++)
          s->rhs[(size_t)e * nf + (size_t)a] += s->w2[r] * s->xhat[3 * pp[1] + e];
      else if (b >= 0 && a < 0)
        for (int e = 0; e < 3; e++)
          s->rhs[(size_t)e * nf + (size_t)b] += s->w2[r] * s->xhat[3 * pp[0] + e];
    }
    if (nf) {
      cdyn_solve_info sinfo = {0};
      rc = s->stype->solve(s->sstate, &A, 3, s->rhs, s->sol, rank_tol, sopts, &sinfo);
      st->stats.solves++;
      st->stats.factorizations += sinfo.factorizations;
      st->stats.last_residual = sinfo.residual;
      if (rc < 0)
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
      long a = s->fidx[i];
      if (a >= 0)
        for (int e = 0; e < 3; e++)
          s->x[3 * i + e] = s->sol[(size_t)e * nf + (size_t)a];
    }
    if (!cdyn_all_finite(s->x, n3)) {
      cdyn_record_nonlinear(st, it, rp, 0);
      return cdyn_error(CDYN_ENONFINITE, "admm: the positions are not finite in the step from t = %g", d->t);
    }
    it++;

    /* the projections and the duals; the residuals */
    rp = 0;
    memset(s->pull, 0, n3 * sizeof(double)); /* the pull's change, for the dual residual */
    for (size_t k = 0; k < ns; k++) {
      const cdyn_spring *sp = &sys->springs[k];
      if (!sp->enabled || sp->i == sp->j)
        continue;
      double dx[3], a[3], ad[3];
      double *z = s->sz + 3 * k, *y = s->sy + 3 * k, *zd = s->dz + 3 * k, *yd = s->dy + 3 * k;
      const double *n0 = s->n0 + 3 * k, *d0 = s->d0 + 3 * k;
      for (int e = 0; e < 3; e++) {
        dx[e] = s->x[3 * sp->i + e] - s->x[3 * sp->j + e];
        a[e] = dx[e] + y[e];
        ad[e] = dx[e] + yd[e];
      }
      double cw = sp->c / h;
      if (sp->k > 0) {
        double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        double rad = (sp->k * sp->rest + sp->k * la) / (sp->k + sp->k);
        for (int e = 0; e < 3; e++) {
          double zn = la > 0 ? a[e] * rad / la : a[e];
          double g = sp->k * (zn - z[e]);
          s->pull[3 * sp->i + e] += g;
          s->pull[3 * sp->j + e] -= g;
          z[e] = zn;
          double res = dx[e] - zn;
          y[e] += res;
          rp = fmax(rp, fabs(res));
        }
      }
      if (cw > 0) {
        double sn = n0[0] * (ad[0] - d0[0]) + n0[1] * (ad[1] - d0[1]) + n0[2] * (ad[2] - d0[2]);
        for (int e = 0; e < 3; e++) {
          double zn = ad[e] - n0[e] * sn * 0.5;
          double g = cw * (zn - zd[e]);
          s->pull[3 * sp->i + e] += g;
          s->pull[3 * sp->j + e] -= g;
          zd[e] = zn;
          double res = dx[e] - zn;
          yd[e] += res;
          rp = fmax(rp, fabs(res));
        }
      }
    }
    for (size_t r = 0; r < m; r++) {
      if (s->form[r] == FORM_NONE)
        continue;
      double dx[ZW], zn[ZW];
      double *z = s->rz + ZW * r, *y = s->ry + ZW * r;
      unsigned nz = s->form[r] == FORM_DIFF ? 3 : 3 * d->rownp[r];
      row_dx(st, s, r, s->x, dx);
      for (unsigned e = 0; e < nz; e++)
        zn[e] = dx[e] + y[e];
      if ((rc = project_row(st, s, r, zn, t1)))
        return rc;
      const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
      for (unsigned e = 0; e < nz; e++) {
        double g = s->w2[r] * (zn[e] - z[e]);
        if (s->form[r] == FORM_DIFF) {
          s->pull[3 * pp[0] + e] += g;
          s->pull[3 * pp[1] + e] -= g;
        } else
          s->pull[3 * pp[e / 3] + e % 3] += g;
        z[e] = zn[e];
        double res = dx[e] - zn[e];
        y[e] += res;
        rp = fmax(rp, fabs(res));
      }
    }
    rd = 0;
    for (size_t i = 0; i < n; i++)
      if (s->fidx[i] >= 0)
        for (int e = 0; e < 3; e++)
          rd = fmax(rd, fabs(s->pull[3 * i + e]) * d->winv[i]);
    if (getenv("ADMM_TRACE"))
      fprintf(stderr, "it %u rp %.3e rd %.3e\n", it, rp, rd);
    if (!(rp == rp) || !(rd == rd))
      break;
    if (rp <= o->tol && rd <= o->tol_accel) {
      converged = 1;
      break;
    }
    if ((long)it >= o->max_iter)
      break;
    if (use_aa) {
      /* g = F(w), f = g - w; w+ = g - dG gamma, gamma = argmin |f - dF gamma| */
      double *g = afk + 0; /* reuse below */
      (void)g;
      aa_gather(s, m, s->aa + 3 * N); /* afk <- g_k */
      double fn = 0;
      for (size_t k = 0; k < N; k++) {
        double gk = afk[k];
        double fk = gk - aw[k];
        if (aa_have) {
          dF[aa_pos * N + k] = fk - af[k];
          dG[aa_pos * N + k] = gk - ag[k];
        }
        af[k] = fk;
        ag[k] = gk;
        fn += fk * fk;
      }
      if (aa_have) {
        aa_pos = (aa_pos + 1) % AA_M;
        if (aa_count < AA_M)
          aa_count++;
      }
      aa_have = 1;
      if (fn > aa_fprev) {
        aa_count = 0;
        aa_pos = 0;
      }
      aa_fprev = fn;
      double gam[AA_M] = {0};
      if (aa_count > 0) {
        double Mt[AA_M][AA_M + 1];
        int c = aa_count;
        for (int a = 0; a < c; a++) {
          for (int b = 0; b <= a; b++) {
            double acc = 0;
            for (size_t k = 0; k < N; k++)
              acc += dF[a * N + k] * dF[b * N + k];
            Mt[a][b] = Mt[b][a] = acc;
          }
          double acc = 0;
          for (size_t k = 0; k < N; k++)
            acc += dF[a * N + k] * af[k];
          Mt[a][c] = acc;
        }
        double tr = 0;
        for (int a = 0; a < c; a++)
          tr += Mt[a][a];
        for (int a = 0; a < c; a++)
          Mt[a][a] += 1e-10 * tr + DBL_MIN;
        int ok = 1;
        for (int a = 0; a < c && ok; a++) {
          if (!(Mt[a][a] > 0)) {
            ok = 0;
            break;
          }
          for (int b = a + 1; b < c; b++) {
            double fct = Mt[b][a] / Mt[a][a];
            for (int e = a; e <= c; e++)
              Mt[b][e] -= fct * Mt[a][e];
          }
        }
        for (int a = c - 1; a >= 0 && ok; a--) {
          double acc = Mt[a][c];
          for (int b = a + 1; b < c; b++)
            acc -= Mt[a][b] * gam[b];
          gam[a] = acc / Mt[a][a];
        }
        if (!ok)
          aa_count = 0;
      }
      for (size_t k = 0; k < N; k++) {
        double wn = ag[k];
        for (int a = 0; a < aa_count; a++)
          wn -= gam[a] * dG[a * N + k];
        aw[k] = wn;
      }
      aa_scatter(s, m, aw);
    }
  }
  cdyn_record_nonlinear(st, it, rp, converged);
  if (!converged) {
    cdyn_error(CDYN_NOCONV,
               "admm: no convergence in the step from t = %g with h = %g (%u iterations; primal residual %g m, "
               "tolerance %g; dual residual %g m/s^2, tolerance %g); the state is restored",
               d->t, h, it, rp, o->tol, rd, o->tol_accel);
    s->fresh = 1;
    return CDYN_NOCONV;
  }
  for (size_t i = 0; i < n3; i++) {
    d->v[i] = (s->x[i] - d->q[i]) / h;
    d->q[i] = s->x[i];
  }
  /* Multipliers: a row's from its dual; a pin's from the momentum balance
     of its particle (the force it must exert). */
  for (size_t r = 0; r < m; r++) {
    d->lambda[r] = 0;
    if (s->form[r] == FORM_NONE || s->pinrow[r])
      continue;
    double zb[ZW];
    unsigned nz = s->form[r] == FORM_DIFF ? 3 : 3 * d->rownp[r];
    cdyn_row row;
    memcpy(zb, s->rz + ZW * r, nz * sizeof(double));
    if (s->form[r] == FORM_DIFF)
      memset(zb + 3, 0, 3 * sizeof(double));
    if ((rc = eval_row(st, r, zb, t1, &row)))
      return rc;
    double yg = 0, gg = 0;
    for (unsigned e = 0; e < nz; e++) {
      yg += s->ry[ZW * r + e] * row.jac[e / 3][e % 3];
      gg += row.jac[e / 3][e % 3] * row.jac[e / 3][e % 3];
    }
    d->lambda[r] = gg > 0 ? s->w2[r] * yg / gg : 0;
  }
  if (m) {
    /* the pins: lambda = -(m (x - xhat) / h^2 + the terms' pull), per coordinate */
    memset(s->pull, 0, n3 * sizeof(double));
    for (size_t k = 0; k < ns; k++) {
      const cdyn_spring *sp = &sys->springs[k];
      if (!sp->enabled || sp->i == sp->j)
        continue;
      for (int e = 0; e < 3; e++) {
        double g = sp->k * s->sy[3 * k + e] + sp->c / h * s->dy[3 * k + e];
        s->pull[3 * sp->i + e] += g;
        s->pull[3 * sp->j + e] -= g;
      }
    }
    for (size_t r = 0; r < m; r++) {
      const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
      if (s->form[r] == FORM_DIFF)
        for (int e = 0; e < 3; e++) {
          s->pull[3 * pp[0] + e] += s->w2[r] * s->ry[ZW * r + e];
          s->pull[3 * pp[1] + e] -= s->w2[r] * s->ry[ZW * r + e];
        }
      else if (s->form[r] == FORM_SEL)
        for (unsigned a = 0; a < d->rownp[r]; a++)
          for (int e = 0; e < 3; e++)
            s->pull[3 * pp[a] + e] += s->w2[r] * s->ry[ZW * r + 3 * a + e];
    }
    for (size_t r = 0; r < m; r++)
      if (s->pinrow[r]) {
        size_t p = d->rowpart[r * CDYN_MAX_PARTICLES], first_r = r;
        while (first_r > 0 && d->rowcon[first_r - 1] == d->rowcon[r])
          first_r--;
        size_t c = 3 * p + (r - first_r);
        d->lambda[r] = -(d->mass[p] * (s->x[c] - s->xhat[c]) / (h * h) + s->pull[c]);
      }
  }
  return CDYN_OK;
}

static const cdyn_option options[] = {
  {"tol", CDYN_OPT_DOUBLE, offsetof(opts, tol), "1e-5", 0.0, 1e300, NULL,
   "the step ends when every term's split variable is within this of its value at the positions (m), and the "
   "dual residual within tol_accel"},
  {"tol_accel", CDYN_OPT_DOUBLE, offsetof(opts, tol_accel), "1e-1", 0.0, 1e300, NULL,
   "the dual residual's bound: the change of the terms' pull on a coordinate over its mass in an iteration "
   "(m/s^2)"},
  {"stiffness", CDYN_OPT_DOUBLE, offsetof(opts, stiffness), "100", 1e-6, 1e12, NULL,
   "the weight of an inequality row, in units of its effective mass / h^2"},
  {"max_iter", CDYN_OPT_INT, offsetof(opts, max_iter), "1000", 1, 1e7, NULL,
   "iterations per step before CDYN_NOCONV (the state restored)"},
  CDYN_OPTIONS_END};

const cdyn_scheme_type cdyn_scheme_admm = {
  .name = "admm",
  .description = "backward Euler's incremental potential by ADMM over one prefactored scalar matrix (projective "
                 "dynamics with duals): springs, dampers, pins eliminated, inequality rows projected",
  .source = "doc/large-steps.md (Overby et al. 2017; Bouaziz et al. 2014; Boyd et al. 2011)",
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
};
