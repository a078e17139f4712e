/*
 * backward_euler.c: backward Euler and BDF2 on the whole nonlinear
 * system, implicit in the constraint geometry and in the springs, solved
 * by Newton's method with the geometric stiffness (doc/large-steps.md).
 *
 * The step.  With base point (xb, vb) and step k, the unknowns are the
 * end positions x and the multipliers lambda, v+ = (x - xb) / k:
 *   R(x, lambda) = M (x - xb - k vb) / k^2 - F(x, (x - xb) / k, t + h) + J(x)^T lambda = 0
 *   Phi(x, t + h) = 0
 * backward-euler: xb = q_n, vb = v_n, k = h (Hairer and Wanner, Solving
 *   ODEs II, ch. VII: first order in q, v and lambda on the index-3 DAE);
 * bdf2: xb = (4 q_n - q_(n-1)) / 3, vb = (4 v_n - v_(n-1)) / 3, k = 2h/3,
 *   which is BDF2's q+ - 4/3 q_n + 1/3 q_(n-1) = 2h/3 v+ and the same for
 *   v (ibid., second order).  Its first step, and any step whose h differs
 *   from the last one's or follows a reset or a change of the constraint
 *   set, is a backward-Euler step.
 * F is the whole applied force (gravity, springs, the user callback) at
 * the end of the step; lambda is the multiplier of the constraint force
 * at t + h (lambda_time END), in the library's convention (M qdd + J^T
 * lambda = F: a hanging link has lambda > 0).  001's `implicit` is this
 * step's first Newton iteration from x = q_n without the geometric
 * stiffness, linearised in Phi.
 *
 * Newton's matrix for (dx, dlambda) at an iterate is symmetric:
 *   [ H    J^T ]   H = M (1 + delta) / k^2 + K(x, lambda) - dF/dx - dF/dv / k,
 *   [ J    -C  ]   K = sum_r lambda_r Hess Phi_r  (the constraint types' `hess`),
 * with the springs' force Jacobians dF/dx, dF/dv of Baraff and Witkin
 * (cdyn_spring_jacobians).  The dampers' dependence on x through their
 * direction is left out (it is not symmetric), and so is the force
 * callback's Jacobian, which is not known: both enter the residual
 * exactly but not the matrix, so Newton converges linearly, at a rate of
 * their size relative to M / k^2.
 *
 * Solving the indefinite matrix.  C = diag(c_r) is a compliance of
 * c_r = 1e-10 k^2 (J W J^T)_rr, ten decades below the constraint's own
 * compliance in the step, J H^-1 J^T ~ k^2 J W J^T: it makes the matrix
 * quasi-definite when H is positive definite, so that the LDL^T
 * factorisation of the `ldlt` solver (CHOLMOD simplicial, AMD ordering,
 * no pivoting; lib/solvers/cholmod.c) exists for that ordering (Vanderbei
 * 1995).  It changes only the matrix, not the residual, so Newton
 * converges to the exact solution, at a rate of order 1e-10 per iteration
 * from this change.  Pivoting (Bunch-Kaufman) would not need C, but no
 * sparse pivoting LDL^T is among the project's dependencies, and
 * quasi-definiteness gives the inertia for free.
 * H is not always positive definite: a compressed spring's transverse
 * stiffness k (1 - L0 / r) and a pushing link's -|lambda| P / r are
 * negative.  The factorisation's inertia tells: the matrix has exactly m
 * negative pivots when H is positive definite on the null space of J
 * (approximately, for small C).  With more, and a compressed spring, the
 * springs' Hessians are projected (Choi and Ko's: the transverse term of
 * a compressed spring dropped), a modified Newton step.  A pushing link's
 * negative stiffness is kept: the step's solution is then a saddle of its
 * potential (a strut under load), which Newton on the residual finds and
 * a descent method would flee (measured on a falling 16 x 16 net of
 * links: shifting it away made Newton stall and the step fail at
 * t = 0.33 s; keeping it, the net runs its 10 s at 2.4 iterations a step).
 * Without pivoting, LDL^T is then not backward stable, so such a solve
 * (more negative pivots than rows) is followed by up to 4 steps of
 * iterative refinement with the same factor (to a residual of 1e-12 of
 * the right-hand side).  Only when no step of
 * the line search below is accepted is delta M / k^2 added (delta = 1e-4,
 * then tenfold, up to 1e8, which shortens the step like a trust region
 * in the mass metric).
 *
 * Globalisation.  Two measures of progress:
 *   theta = |e|^2 / 2,  e = ( k^2 W R,  Phi ),
 * the residuals as lengths (the position correction that would balance
 * momentum, and the violation), whose slope along the exact Newton
 * direction is -2 theta; and the l1 merit function
 *   E(x) + mu |Phi(x)|_1,
 * E the step's incremental potential (M |x - xb - k vb|^2 / (2 k^2) plus
 * gravity's and the springs' elastic energy, minus the work of the
 * dampers' and the callback's forces frozen at the iterate), whose slope
 * along the direction is negative when H is positive definite on J's
 * null space and mu > |lambda+|_inf (Nocedal and Wright, Numerical
 * Optimization, sec. 18.3; mu never decreases within a step).  A step
 * (dx, dlambda) is taken with the largest alpha in 1, 1/2, ..., 1/1024
 * that decreases theta by Armijo's rule (theta(alpha) <= (1 - 2e-4
 * alpha) theta), which keeps Newton's fast local convergence, or the
 * merit by Armijo's rule while theta stays within 100 times its value
 * at the start of the step, which makes progress where the residual
 * alone does not (a start far from the solution, springs in compression).
 * When none does, delta is raised as above and the direction computed
 * again.
 *
 * Stopping: max |Phi_r| <= tol (1e-10 m by default: on a chain of links
 * of 5 cm, a stretch of 2e-9) and max |(W R)_i| <= tol_accel (1e-8 m/s^2
 * by default, 1e-9 g: the multipliers' error per unit mass), both
 * residuals in units that mean something at every h: a length test on
 * k^2 W R alone would pass at once for tiny h with any multipliers.
 * Where rounding cannot reach them (huge forces on light particles, far
 * coordinates), each tolerance is raised to its rounding floor: 64 eps
 * times the size of the terms the residual sums (the acceleration's
 * floor, a maximum over particles of their sums over their masses, is
 * found exactly only where its bound, the largest sum over the smallest
 * mass, would raise the tolerance).  At least one Newton
 * iteration is made: the start may meet both tolerances at tiny h (a
 * free fall of g h^2 within tol) with multipliers that are not the
 * step's.  When the
 * iteration does not meet both within max_iter iterations, or delta passes
 * 1e8, or the residual is not finite, the step returns CDYN_NOCONV and
 * the stepper restores q, v, the multipliers and the time
 * (noconv_restores): the caller may retry with a smaller h.
 *
 * Start.  x0 = xb + k vb + k^2 W (F(q_n, v_n, t) - J(q_n)^T lambda_n) and
 * lambda_0 = lambda_n, the last step's multipliers.  A change of the
 * constraint set resets the start to lambda_0 = 0 and the method to a
 * backward-Euler step, as for a stepper built afresh (the step is then
 * bitwise that of a fresh stepper, which tests/test_switching.c checks):
 * the multipliers of rows that stay would be a better start, but the
 * converged step would then differ from a fresh stepper's within tol.
 *
 * Storage.  The matrix is (3n + m) x (3n + m) in compressed sparse rows,
 * both triangles, the diagonal entry first in each row (lib/solvers'
 * convention).  Its pattern (every particle's 3 x 3 block, the blocks of
 * each constraint's and each spring's particle pairs, J and J^T, the
 * diagonal of C) is built again at the first step after the springs, the
 * constraint set or the solver option changed, by bucketing the entries
 * per row and sorting each short row in place (no qsort, which may
 * allocate).  A pattern equal to the one in use keeps its id, so the
 * solver keeps its analysis.  Only a pattern that outgrows every earlier
 * one allocates, as a sparse solver's analysis of a new pattern does,
 * and that is counted in cdyn_stats.analyses.  Other steps do not
 * allocate.  The positions of the entries that the first assembly of a
 * pattern finds are kept for the next assemblies.  A constraint type
 * without its geometric stiffness (`hess`) has it taken by central
 * differences of its J (lib/core/fdhess.c: 6 np + 1 calls of its eval per
 * constraint and assembly, entries good to about eps^(2/3) of their
 * scale); K enters only the matrix, not the residual, so the converged
 * step is the same within the tolerances and only Newton's rate can
 * change.  The stepper says so when it is built (cdyn_stepper_warning).
 *
 * Expected orders: backward-euler 1 (q, v and lambda); bdf2 2.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#define DELTA0 1e-4
#define DELTA_MAX 1e8
#define COMPLIANCE 1e-10
#define ARMIJO 1e-4
#define MAX_HALVINGS 10
#define THETA_GROWTH 100
#define REFINE_MAX 4
#define REFINE_TOL 1e-12

typedef struct {
  double tol, tol_accel;
  long max_iter;
} opts;

/* fmax(a, b), inline: a if a >= b or b is NaN, else b (C99's fmax on
   every pair but two signed zeros, which the maxima below never meet:
   their arguments are absolute values). */
static inline double maxnum(double a, double b) { return a >= b || isnan(b) ? a : b; }

typedef struct {
  size_t n, mcap;
  int bdf2;
  /* 3n each */
  double *xb, *vb, *x, *xs, *F, *jt, *pos, *fnc; /* x, xs: the displacement u = x - xb and its trial */
  /* mcap each */
  double *lam, *lams, *lamprev, *comp;
  /* the last step's start (BDF2) */
  double *qprev, *vprev, hprev;
  int have_prev;
  double res_accel, res_phi; /* the last residual()'s max |(W R)_i| and max |Phi_r| */
  double mmin;               /* the smallest mass, for residual()'s floor */
  /* The end of the last step, whose rows d->rows still holds while
     end_valid: its positions, time and the system's version. */
  double *qend, end_t;
  unsigned long end_version;
  int end_valid;
  /* dim = 3n + mcap each */
  double *rhs, *sol, *res, *dsol;
  /* the matrix */
  int *rowptr, *col;   /* dim + 1, nnz_cap */
  double *val, *diag;  /* nnz_cap, dim */
  size_t dim, nnz, nnz_cap;
  /* building the pattern: each row's entries before de-duplication */
  int *ent, *cnt;      /* ent_cap, dim + 1 */
  size_t ent_cap;
  /* Each assembly adds its entries in the same order for one pattern: the
     positions found by the first are kept (slot_cap of them). */
  size_t *slot, slot_cap;
  int slots_valid;
  unsigned long version, pattern_id;
  size_t m_pattern;
  int have_pattern;
  const cdyn_solver_type *stype;
  void *sstate;
  double K[(3 * CDYN_MAX_PARTICLES) * (3 * CDYN_MAX_PARTICLES)];
} state;

static void drop_pattern(state *s)
{
  free(s->rowptr);
  free(s->col);
  free(s->val);
  free(s->ent);
  free(s->cnt);
  free(s->slot);
  s->slot = NULL;
  s->slot_cap = 0;
  s->slots_valid = 0;
  s->rowptr = s->col = s->ent = s->cnt = NULL;
  s->val = NULL;
  s->nnz_cap = s->ent_cap = 0;
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
  free(s->xb);
  free(s->lam);
  free(s->rhs);
  free(s->diag);
  free(s);
}

static int st_alloc_kind(void **out, size_t n, size_t mcap, int bdf2)
{
  state *s = calloc(1, sizeof *s);
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "backward-euler: out of memory");
  s->n = n;
  s->mcap = mcap;
  s->bdf2 = bdf2;
  size_t n3 = 3 * n, dim = n3 + mcap;
  s->xb = calloc(11 * n3 + 1, sizeof(double));
  s->lam = calloc(4 * mcap + 1, sizeof(double));
  s->rhs = calloc(4 * dim + 1, sizeof(double));
  s->diag = calloc(dim + 1, sizeof(double));
  if (!s->xb || !s->lam || !s->rhs || !s->diag) {
    st_free(s);
    return cdyn_error(CDYN_ENOMEM, "backward-euler: out of memory for %zu particles and %zu rows", n, mcap);
  }
  double *p = s->xb;
  s->vb = p += n3;
  s->x = p += n3;
  s->xs = p += n3;
  s->F = p += n3;
  s->jt = p += n3;
  s->pos = p += n3;
  s->fnc = p += n3;
  s->qend = p += n3;
  s->qprev = p += n3;
  s->vprev = p + n3;
  s->lams = s->lam + mcap;
  s->lamprev = s->lams + mcap;
  s->comp = s->lamprev + mcap;
  s->sol = s->rhs + dim;
  s->res = s->sol + dim;
  s->dsol = s->res + dim;
  *out = s;
  return CDYN_OK;
}

static int alloc_be(void **out, size_t n, size_t mcap) { return st_alloc_kind(out, n, mcap, 0); }
static int alloc_bdf2(void **out, size_t n, size_t mcap) { return st_alloc_kind(out, n, mcap, 1); }

static void reset(void *p)
{
  state *s = p;
  s->have_prev = 0;
  s->end_valid = 0;
  memset(s->lamprev, 0, s->mcap * sizeof(double));
}

/* ---- the pattern ------------------------------------------------------------------ */

/*
 * The entries of the matrix before de-duplication, row by row: walk()
 * calls put(i, j) for each, first to count them per row (cnt), then to
 * place them (ent, from the row starts in cnt).
 */
typedef struct {
  state *s;
  int place;
} walker;

static void put(walker *w, size_t i, size_t j)
{
  if (w->place)
    w->s->ent[w->s->cnt[i]++] = (int)j;
  else
    w->s->cnt[i + 1]++;
}

static void put_block(walker *w, const size_t *ri, size_t na, const size_t *cj, size_t nb)
{
  for (size_t a = 0; a < na; a++)
    for (size_t b = 0; b < nb; b++)
      put(w, ri[a], cj[b]);
}

static void walk(walker *w, const cdyn_stepper *st)
{
  const cdyn_scheme_data *d = &st->d;
  const cdyn_system *sys = st->sys;
  size_t n3 = 3 * d->n, m = d->m, idx[3 * CDYN_MAX_PARTICLES], one;
  for (size_t i = 0; i < d->n; i++) {
    size_t b[3] = {3 * i, 3 * i + 1, 3 * i + 2};
    put_block(w, b, 3, b, 3);
  }
  for (size_t r = 0; r < m;) {
    const cdyn_constraint *c = &sys->cons[d->rowcon[r]];
    size_t np = c->type->nparticles;
    for (size_t a = 0; a < np; a++)
      for (size_t e = 0; e < 3; e++)
        idx[3 * a + e] = 3 * c->p[a] + e;
    put_block(w, idx, 3 * np, idx, 3 * np);
    for (unsigned q = 0; q < c->type->rows; q++) {
      one = n3 + r + q;
      put_block(w, idx, 3 * np, &one, 1);
      put_block(w, &one, 1, idx, 3 * np);
      put(w, one, one);
    }
    r += c->type->rows;
  }
  for (size_t q = 0; q < sys->nsprings; q++) {
    const cdyn_spring *sp = &sys->springs[q];
    if (!sp->enabled || sp->i == sp->j)
      continue;
    size_t bi[3] = {3 * sp->i, 3 * sp->i + 1, 3 * sp->i + 2}, bj[3] = {3 * sp->j, 3 * sp->j + 1, 3 * sp->j + 2};
    put_block(w, bi, 3, bj, 3);
    put_block(w, bj, 3, bi, 3);
  }
}

/* Grow an int array to at least `need` entries (keeping nothing). */
static int grow(int **p, size_t *cap, size_t need)
{
  if (need <= *cap)
    return 0;
  free(*p);
  *p = malloc(need * sizeof **p);
  *cap = *p ? need : 0;
  return *p ? 1 : -1;
}

/*
 * The pattern of the current constraint set and springs.  Nothing is
 * allocated unless the entries outgrow every earlier pattern; a pattern
 * equal to the one in use keeps its id, so the solver's analysis of it
 * is kept too.
 */
static int build_pattern(state *s, cdyn_stepper *st, const cdyn_solver_type *stype)
{
  const cdyn_scheme_data *d = &st->d;
  size_t n3 = 3 * d->n, m = d->m, dim = n3 + m, dcap = n3 + s->mcap;
  int grew = 0;
  if (!s->cnt || !s->rowptr) {
    free(s->cnt);
    free(s->rowptr);
    s->cnt = malloc((dcap + 1) * sizeof(int));
    s->rowptr = malloc((dcap + 1) * sizeof(int));
    if (!s->cnt || !s->rowptr) {
      free(s->cnt);
      free(s->rowptr);
      s->cnt = s->rowptr = NULL;
      s->have_pattern = 0;
      return cdyn_error(CDYN_ENOMEM, "backward-euler: out of memory for the pattern of %zu rows", dcap);
    }
    s->dim = 0;
    grew = 1;
  }
  if (s->stype != stype) {
    if (s->stype && s->sstate)
      s->stype->free(s->sstate);
    s->sstate = NULL;
    s->stype = NULL;
    int rc = stype->alloc(&s->sstate, dcap);
    if (rc) {
      s->sstate = NULL;
      return rc;
    }
    s->stype = stype;
    s->dim = 0; /* a new solver: a new pattern id */
    grew = 1;
  }
  walker w = {s, 0};
  memset(s->cnt, 0, (dim + 1) * sizeof(int));
  walk(&w, st);
  for (size_t i = 0; i < dim; i++)
    s->cnt[i + 1] += s->cnt[i];
  size_t total = (size_t)s->cnt[dim];
  int g = grow(&s->ent, &s->ent_cap, total ? total : 1);
  if (g < 0)
    return cdyn_error(CDYN_ENOMEM, "backward-euler: out of memory for the pattern (%zu entries)", total);
  grew |= g;
  w.place = 1;
  walk(&w, st); /* cnt[i] now holds row i's end, cnt[i - 1] (0 for i = 0) its start */
  /* De-duplicate each row in place: the diagonal first, then the other
     columns in ascending order (insertion sort: the rows are short). */
  size_t nnz = 0, start = 0;
  int same = s->have_pattern && s->dim == dim;
  for (size_t i = 0; i < dim; i++) {
    size_t end = (size_t)s->cnt[i];
    int *e = s->ent + start;
    size_t len = end - start, u = 0;
    for (size_t a = 0; a < len; a++) {
      int c = e[a];
      size_t pos = u;
      while (pos > 0 && e[pos - 1] > c)
        pos--;
      if (pos > 0 && e[pos - 1] == c)
        continue;
      memmove(e + pos + 1, e + pos, (u - pos) * sizeof(int));
      e[pos] = c;
      u++;
    }
    /* The diagonal to the front. */
    size_t dpos = 0;
    while (dpos < u && (size_t)e[dpos] != i)
      dpos++;
    memmove(e + 1, e, dpos * sizeof(int));
    e[0] = (int)i;
    if (same && (s->rowptr[i] != (int)nnz || s->rowptr[i + 1] - s->rowptr[i] != (int)u))
      same = 0;
    /* Compact into ent's front (nnz <= start always). */
    if (same && memcmp(s->col + nnz, e, u * sizeof(int)))
      same = 0;
    memmove(s->ent + nnz, e, u * sizeof(int));
    s->cnt[i] = (int)nnz; /* now row i's start in the compacted entries */
    nnz += u;
    start = end;
  }
  /* The slot cache: one position per entry an assembly adds. */
  size_t nslot = 0;
  for (size_t r = 0; r < m;) {
    const cdyn_constraint *c = &st->sys->cons[d->rowcon[r]];
    size_t np = c->type->nparticles;
    nslot += 9 * np * np + 6 * np * c->type->rows;
    r += c->type->rows;
  }
  for (size_t q = 0; q < st->sys->nsprings; q++)
    nslot += 36;
  if (nslot > s->slot_cap) {
    free(s->slot);
    s->slot = malloc(nslot * sizeof *s->slot);
    if (!s->slot) {
      s->slot_cap = 0;
      s->have_pattern = 0;
      return cdyn_error(CDYN_ENOMEM, "backward-euler: out of memory for %zu entry positions", nslot);
    }
    s->slot_cap = nslot;
    grew = 1;
  }
  s->slots_valid = 0;
  if (same && nnz == s->nnz) {
    s->version = st->sys->version;
    if (grew)
      st->stats.analyses++;
    return CDYN_OK;
  }
  if (nnz > s->nnz_cap) {
    free(s->col);
    free(s->val);
    s->col = malloc(nnz * sizeof(int));
    s->val = malloc(nnz * sizeof(double));
    if (!s->col || !s->val) {
      drop_pattern(s);
      return cdyn_error(CDYN_ENOMEM, "backward-euler: out of memory for the pattern (%zu non-zeros)", nnz);
    }
    s->nnz_cap = nnz;
    grew = 1;
  }
  memcpy(s->col, s->ent, nnz * sizeof(int));
  for (size_t i = 0; i < dim; i++)
    s->rowptr[i] = s->cnt[i];
  s->rowptr[dim] = (int)nnz;
  s->dim = dim;
  s->nnz = nnz;
  s->m_pattern = m;
  s->version = st->sys->version;
  s->pattern_id++;
  s->have_pattern = 1;
  if (grew)
    st->stats.analyses++;
  return CDYN_OK;
}

/* Position of entry (i, j) in the pattern (present by construction). */
static size_t at(const state *s, size_t i, size_t j)
{
  int lo = s->rowptr[i], hi = s->rowptr[i + 1] - 1;
  if ((size_t)s->col[lo] == j)
    return (size_t)lo;
  lo++;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if ((size_t)s->col[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (size_t)lo;
}

/* ---- residual, matrix, solve -------------------------------------------------------- */

/*
 * The residuals at the iterate x = xb + u, lam: x into s->pos, the rows
 * at x into d->rows, F; -R and -Phi into rhs; *theta gets |e|^2 / 2,
 * e = (k^2 W R, Phi) (both lengths), and *rmax the larger of
 * max |(W R)_i| / tol_accel and max |Phi_r| / tol (converged at <= 1).  The unknown is the
 * displacement u rather than x, so that v+ = u / k keeps the digits that
 * (x - xb) / k would lose.
 */
static int residual(cdyn_stepper *st, state *s, const double *u, const double *lam, double k, double t1,
                    double *theta, double *rmax)
{
  cdyn_scheme_data *d = &st->d;
  size_t n3 = 3 * d->n, m = d->m;
  double *x = s->pos, *vi = s->jt; /* vi: scratch for u / k, then J^T lambda */
  for (size_t i = 0; i < n3; i++) {
    x[i] = s->xb[i] + u[i];
    vi[i] = u[i] / k;
  }
  int rc;
  if ((rc = cdyn_forces(st, x, vi, t1, s->F)) || (rc = cdyn_eval_rows(st, x, vi, t1)))
    return rc;
  cdyn_jtmul(st, lam, s->jt);
  const opts *o = d->opts;
  double th = 0, ra = 0, rp = 0, sa = 0, fp = 0, *sum = s->res; /* sum: scratch */
  for (size_t i = 0; i < n3; i++) {
    double mi = d->mass[i / 3], in = mi * (u[i] - k * s->vb[i]) / (k * k);
    double R = in - s->F[i] + s->jt[i];
    s->rhs[i] = -R;
    double e = k * k * R / mi;
    th += e * e;
    if (!(fabs(R / mi) <= ra)) /* NaN wins */
      ra = fabs(R / mi);
    sum[i] = fabs(in) + fabs(s->F[i]) + fabs(s->jt[i]);
    sa = maxnum(sa, sum[i]);
    fp = maxnum(fp, fabs(x[i]));
  }
  for (size_t r = 0; r < m; r++) {
    double e = d->rows[r].phi;
    s->rhs[n3 + r] = -e;
    th += e * e;
    if (!(fabs(e) <= rp))
      rp = fabs(e);
  }
  s->res_accel = ra;
  s->res_phi = rp;
  *theta = 0.5 * th;
  /* The tolerances, or the rounding floors when those are larger: R is a
     sum of terms of size fa (per unit mass), Phi a difference of
     coordinates of size fp, each rounded at eps times its size, summed
     over the few terms and rows that share a particle (as
     cdyn_iter_verdict's floor). */
  /* fa = max_i sum_i / m_i is at most sa / min_i m_i, rounded the same
     way (division and rounding are monotonic): where that bound leaves
     the tolerance above the floor, fa is not needed. */
  double floor_a = o->tol_accel;
  if (!(64 * DBL_EPSILON * (sa / s->mmin) <= o->tol_accel)) {
    double fa = 0;
    for (size_t i = 0; i < n3; i++)
      fa = maxnum(fa, sum[i] / d->mass[i / 3]);
    floor_a = fmax(o->tol_accel, 64 * DBL_EPSILON * fa);
  }
  *rmax = fmax(ra / floor_a, rp / fmax(o->tol, 64 * DBL_EPSILON * fp));
  if (isnan(ra) || isnan(rp))
    *rmax = NAN;
  return CDYN_OK;
}

/* Newton's matrix at the iterate (rows at x in d->rows), with H's mass term scaled by 1 + delta. */
static int assemble(cdyn_stepper *st, state *s, const double *x, const double *lam, double k, double t1,
                    double delta, int projected, size_t *compressed)
{
  cdyn_scheme_data *d = &st->d;
  const cdyn_system *sys = st->sys;
  size_t n3 = 3 * d->n, m = d->m;
  double *val = s->val;
  size_t c_ = 0, ncomp = 0; /* the next position of the slot cache; compressed springs */
  int known = s->slots_valid;
#define SLOT(i, j) (known ? s->slot[c_++] : (s->slot[c_++] = at(s, (i), (j))))
  memset(val, 0, s->nnz * sizeof(double));
  for (size_t i = 0; i < d->n; i++) {
    double mk = d->mass[i] * (1 + delta) / (k * k);
    val[s->rowptr[3 * i]] = val[s->rowptr[3 * i + 1]] = val[s->rowptr[3 * i + 2]] = mk;
  }
  int rc;
  for (size_t r = 0; r < m;) {
    const cdyn_constraint *c = &sys->cons[d->rowcon[r]];
    size_t np = c->type->nparticles, nr = c->type->rows, dn = 3 * np;
    if ((rc = cdyn_constraint_hess(c, x, t1, lam + r, s->K)))
      return rc;
    for (size_t a = 0; a < dn; a++)
      for (size_t b = 0; b < dn; b++) {
        size_t e = SLOT(3 * c->p[a / 3] + a % 3, 3 * c->p[b / 3] + b % 3);
        val[e] += s->K[a * dn + b];
      }
    for (size_t q = 0; q < nr; q++) {
      const cdyn_row *row = &d->rows[r + q];
      size_t rr = n3 + r + q;
      double jwj = 0;
      for (size_t a = 0; a < np; a++)
        for (size_t e = 0; e < 3; e++) {
          size_t ci = 3 * c->p[a] + e;
          double j = row->jac[a][e];
          size_t e1 = SLOT(ci, rr), e2 = SLOT(rr, ci);
          val[e1] += j;
          val[e2] += j;
          jwj += j * j * d->winv[c->p[a]];
        }
      s->comp[r + q] = COMPLIANCE * k * k * jwj;
      val[s->rowptr[rr]] = -s->comp[r + q];
    }
    r += nr;
  }
  for (size_t q = 0; q < sys->nsprings; q++) {
    const cdyn_spring *sp = &sys->springs[q];
    if (!sp->enabled || sp->i == sp->j)
      continue;
    double Kx[9], Kv[9];
    if ((rc = cdyn_spring_jacobians(sp, x + 3 * sp->i, x + 3 * sp->j, projected, Kx, Kv)))
      return rc;
    const double *xi = x + 3 * sp->i, *xj = x + 3 * sp->j;
    double dd[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
    ncomp += dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2] < sp->rest * sp->rest;
    for (size_t a = 0; a < 3; a++)
      for (size_t b = 0; b < 3; b++) {
        double v = -Kx[3 * a + b] - Kv[3 * a + b] / k;
        size_t e1 = SLOT(3 * sp->i + a, 3 * sp->i + b), e2 = SLOT(3 * sp->j + a, 3 * sp->j + b);
        size_t e3 = SLOT(3 * sp->i + a, 3 * sp->j + b), e4 = SLOT(3 * sp->j + a, 3 * sp->i + b);
        val[e1] += v;
        val[e2] += v;
        val[e3] -= v;
        val[e4] -= v;
      }
  }
#undef SLOT
  s->slots_valid = 1;
  *compressed = ncomp;
  for (size_t i = 0; i < s->dim; i++)
    s->diag[i] = val[s->rowptr[i]];
  return CDYN_OK;
}

/* Factor and solve; *negative gets the factor's negative pivots. */
static int solve(cdyn_stepper *st, state *s, double rank_tol, const void *sopts, unsigned *negative)
{
  cdyn_matrix A = {s->dim, s->nnz, s->rowptr, s->col, s->val, s->diag, s->pattern_id, cdyn_matrix_apply_self, NULL};
  A.ctx = &A;
  cdyn_solve_info info = {0};
  double t0 = cdyn_clock();
  int rc = s->stype->setup(s->sstate, &A, rank_tol, sopts, &info);
  st->stats.time_factor += cdyn_clock() - t0;
  st->stats.analyses += info.analyses;
  st->stats.factorizations += info.factorizations;
  if (info.factorizations && rc >= 0)
    st->stats.factor_nnz = info.factor_nnz;
  if (rc < 0)
    return rc;
  *negative = info.negative;
  cdyn_solve_info sinfo = {0};
  t0 = cdyn_clock();
  rc = s->stype->solve(s->sstate, &A, 1, s->rhs, s->sol, rank_tol, sopts, &sinfo);
  st->stats.time_solve += cdyn_clock() - t0;
  st->stats.solves++;
  if (rc < 0)
    return rc;
  /* Refinement where the factorisation may not be backward stable: more
     negative pivots than rows of C (the upper block indefinite). */
  double bn = 0;
  for (size_t i = 0; i < s->dim; i++)
    bn = maxnum(bn, fabs(s->rhs[i]));
  for (int pass = 0; pass < REFINE_MAX && info.negative > s->dim - 3 * st->d.n; pass++) {
    cdyn_matrix_apply(&A, s->sol, s->res);
    double rn = 0;
    for (size_t i = 0; i < s->dim; i++) {
      s->res[i] = s->rhs[i] - s->res[i];
      rn = maxnum(rn, fabs(s->res[i]));
    }
    if (!(rn > REFINE_TOL * bn))
      break;
    t0 = cdyn_clock();
    rc = s->stype->solve(s->sstate, &A, 1, s->res, s->dsol, rank_tol, sopts, &sinfo);
    st->stats.time_solve += cdyn_clock() - t0;
    if (rc < 0)
      return rc;
    st->stats.solves++;
    for (size_t i = 0; i < s->dim; i++)
      s->sol[i] += s->dsol[i];
  }
  st->stats.last_residual = sinfo.residual;
  return rc;
}

/* ---- the merit function ----------------------------------------------------------- */

/*
 * E(u) = (u - k vb)^T M (u - k vb) / (2 k^2) + V(xb + u) - F_nc^T (xb + u): the
 * step's incremental potential, whose stationary points under Phi = 0 are
 * the step (V: gravity and the springs' elastic energy; F_nc: the forces
 * without a potential, the springs' dampers and the user callback, frozen
 * at the iterate).  The conservative part of F at x is written to fc
 * when fc is not NULL.
 */
static double potential(const cdyn_stepper *st, const state *s, const double *x, const double *u, double k,
                        double *fc)
{
  const cdyn_scheme_data *d = &st->d;
  const cdyn_system *sys = st->sys;
  size_t n3 = 3 * d->n;
  double E = 0;
  for (size_t i = 0; i < n3; i++) {
    double mi = d->mass[i / 3], w = u[i] - k * s->vb[i];
    E += 0.5 * mi * w * w / (k * k) - mi * sys->gravity[i % 3] * x[i] - s->fnc[i] * x[i];
    if (fc)
      fc[i] = mi * sys->gravity[i % 3];
  }
  for (size_t q = 0; q < sys->nsprings; q++) {
    const cdyn_spring *sp = &sys->springs[q];
    if (!sp->enabled || sp->i == sp->j)
      continue;
    const double *a = x + 3 * sp->i, *b = x + 3 * sp->j;
    double dd[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    double r = sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]), e = r - sp->rest;
    E += 0.5 * sp->k * e * e;
    if (fc && r > 0)
      for (int c = 0; c < 3; c++) {
        fc[3 * sp->i + c] -= sp->k * e * dd[c] / r;
        fc[3 * sp->j + c] += sp->k * e * dd[c] / r;
      }
  }
  return E;
}

/* At the iterate (s->pos, s->x, s->F from residual()): F_nc = F - F_conservative
   into s->fnc (with s->fnc zero while the potential is taken), and E into *E. */
static int merit_freeze(cdyn_stepper *st, state *s, double k, double *E)
{
  size_t n3 = 3 * st->d.n;
  double *fc = s->xs; /* scratch: the trial is written after this */
  memset(s->fnc, 0, n3 * sizeof(double));
  potential(st, s, s->pos, s->x, k, fc);
  for (size_t i = 0; i < n3; i++)
    s->fnc[i] = s->F[i] - fc[i];
  *E = potential(st, s, s->pos, s->x, k, NULL);
  return isfinite(*E) ? CDYN_OK : cdyn_error(CDYN_ENONFINITE, "backward-euler: the merit function is not finite");
}

/* E at the trial whose positions residual() left in s->pos. */
static void merit_energy(const cdyn_stepper *st, const state *s, const double *u, double k, double *E)
{
  *E = potential(st, s, s->pos, u, k, NULL);
}

/* ---- the step --------------------------------------------------------------------- */

static int step(cdyn_stepper *st, void *state_, double h)
{
  state *s = state_;
  cdyn_scheme_data *d = &st->d;
  const opts *o = d->opts;
  const char *name = s->bdf2 ? "bdf2" : "backward-euler";
  size_t n3 = 3 * d->n, m = d->m;
  double t1 = d->t + h;
  int rc;
  const cdyn_solver_type *stype;
  const void *sopts;
  double rank_tol;
  if ((rc = cdyn_stepper_solver(st, &stype, &sopts, &rank_tol)))
    return rc;
  if (!stype) {
    if ((rc = cdyn_solver_type_find("ldlt", &stype)))
      return rc;
    sopts = NULL;
  }
  if (!s->have_pattern || s->version != st->sys->version || s->m_pattern != m || s->stype != stype ||
      s->dim != n3 + m) {
    if ((rc = build_pattern(s, st, stype)))
      return rc;
  }

  s->mmin = INFINITY;
  for (size_t i = 0; i < d->n; i++)
    s->mmin = fmin(s->mmin, d->mass[i]);
  /* The base point and step of the method. */
  int two = s->bdf2 && s->have_prev && fabs(h - s->hprev) <= 1e-12 * h;
  double k = two ? 2.0 * h / 3.0 : h;
  for (size_t i = 0; i < n3; i++) {
    s->xb[i] = two ? (4 * d->q[i] - s->qprev[i]) / 3 : d->q[i];
    s->vb[i] = two ? (4 * d->v[i] - s->vprev[i]) / 3 : d->v[i];
  }
  /* The start: the last multipliers, and an explicit step with them. */
  memcpy(s->lam, s->lamprev, m * sizeof(double));
  /* J(q_n): the rows the last step ended with when nothing has moved or
     changed since (the same positions, time and set: bitwise the rows an
     evaluation would give, since J depends on q and t alone). */
  int fresh = s->end_valid && s->end_version == st->sys->version && s->end_t == d->t &&
              !memcmp(s->qend, d->q, n3 * sizeof(double));
  s->end_valid = 0;
  if ((rc = cdyn_forces(st, d->q, d->v, d->t, s->F)) || (m && !fresh && (rc = cdyn_eval_rows(st, d->q, d->v, d->t))))
    return rc;
  cdyn_jtmul(st, s->lam, s->jt);
  for (size_t i = 0; i < n3; i++)
    s->x[i] = k * s->vb[i] + k * k * d->winv[i / 3] * (s->F[i] - s->jt[i]);

  double theta, rmax, delta = 0, mu = 0;
  if ((rc = residual(st, s, s->x, s->lam, k, t1, &theta, &rmax)))
    return rc;
  unsigned it = 0;
  int converged = 0, failed = 0;
  const double theta0 = theta;
  for (;;) {
    if (!isfinite(rmax)) {
      failed = 1;
      break;
    }
    if (rmax <= 1 && it > 0) {
      converged = 1;
      break;
    }
    if ((long)it >= o->max_iter)
      break;
    it++;
    /* The merit function of this iteration (s->pos, s->F and the rows are
       the iterate's): the non-conservative forces frozen here. */
    double phi_abs = 0, E0, dE = 0;
    if ((rc = merit_freeze(st, s, k, &E0)))
      return rc;
    for (size_t r = 0; r < m; r++)
      phi_abs += fabs(d->rows[r].phi);
    /* Newton's direction: the exact matrix; with the springs' Hessians
       projected (Choi and Ko) when the inertia says the upper block is not
       positive definite on J's null space; then with delta M / k^2 added. */
    delta = delta >= 10 * DELTA0 ? delta / 10 : 0;
    int projected = 0, accepted = 0;
    double alpha = 1, th_s = theta, r_s = rmax;
    while (!accepted) {
      unsigned neg = 0;
      size_t compressed = 0;
      for (;;) {
        if ((rc = assemble(st, s, s->pos, s->lam, k, t1, delta, projected, &compressed)))
          return rc;
        if ((rc = solve(st, s, rank_tol, sopts, &neg)) < 0)
          return rc;
        /* A compressed spring's negative stiffness is projected away; a
           pushing link's is kept: the step's solution is then a saddle of
           its potential (a strut under load), which Newton on the
           residual finds and a descent method would flee.  delta is
           raised only when no step is accepted (below). */
        if (neg <= m || projected || !compressed)
          break;
        projected = 1;
      }
      if (delta > DELTA_MAX) {
        failed = 1;
        break;
      }
      /* The l1 merit E + mu |Phi|_1 and its slope along the direction
         (Nocedal and Wright, sec. 18.3): descent when the upper block is
         positive definite on J's null space and mu > |lambda+|_inf. */
      double lmax = 0;
      for (size_t r = 0; r < m; r++)
        lmax = maxnum(lmax, fabs(s->lam[r] + s->sol[n3 + r]));
      mu = fmax(mu, 2 * lmax);
      dE = 0;
      for (size_t i = 0; i < n3; i++)
        dE += (-s->rhs[i] - s->jt[i]) * s->sol[i];
      double M0 = E0 + mu * phi_abs, dM = dE - mu * phi_abs;
      /* Backtracking: accept a decrease of the residual (theta, which
         keeps Newton's fast local steps) or of the merit (which makes
         progress far from the solution). */
      alpha = 1;
      for (int hv = 0; hv <= MAX_HALVINGS; hv++, alpha /= 2) {
        for (size_t i = 0; i < n3; i++)
          s->xs[i] = s->x[i] + alpha * s->sol[i];
        for (size_t r = 0; r < m; r++)
          s->lams[r] = s->lam[r] + alpha * s->sol[n3 + r];
        rc = residual(st, s, s->xs, s->lams, k, t1, &th_s, &r_s);
        if (rc == CDYN_EDEGENERATE || rc == CDYN_ENONFINITE)
          continue; /* a trial beyond where the constraints are defined: shorter */
        if (rc)
          return rc;
        if (th_s <= (1 - 2 * ARMIJO * alpha) * theta) {
          accepted = 1;
          break;
        }
        if (dM < 0) {
          double Es, ps = 0;
          merit_energy(st, s, s->xs, k, &Es);
          for (size_t r = 0; r < m; r++)
            ps += fabs(d->rows[r].phi);
          if (Es + mu * ps <= M0 + ARMIJO * alpha * dM && th_s <= THETA_GROWTH * theta0) {
            accepted = 1;
            break;
          }
        }
      }
      if (accepted)
        break;
      /* Back to the iterate (its rows, forces and merit) for the next direction. */
      if ((delta = delta > 0 ? 10 * delta : DELTA0) > DELTA_MAX) {
        failed = 1;
        break;
      }
      projected = 1;
      if ((rc = residual(st, s, s->x, s->lam, k, t1, &theta, &rmax)) || (rc = merit_freeze(st, s, k, &E0)))
        return rc;
    }
    if (failed)
      break;
    memcpy(s->x, s->xs, n3 * sizeof(double));
    memcpy(s->lam, s->lams, m * sizeof(double));
    theta = th_s;
    rmax = r_s;
  }
  cdyn_record_nonlinear(st, it, s->res_phi, converged);
  if (!converged) {
    cdyn_error(CDYN_NOCONV,
               "%s: Newton did not converge in the step from t = %g with h = %g (%u iterations; residuals %g m/s^2 "
               "and %g m, tolerances %g and %g%s); the state is restored",
               name, d->t, h, it, s->res_accel, s->res_phi, o->tol_accel, o->tol,
               failed ? "; no acceptable direction" : "");
    return CDYN_NOCONV;
  }
  /* The end state. */
  if (s->bdf2) {
    memcpy(s->qprev, d->q, n3 * sizeof(double));
    memcpy(s->vprev, d->v, n3 * sizeof(double));
    s->hprev = h;
    s->have_prev = 1;
  }
  for (size_t i = 0; i < n3; i++) {
    d->v[i] = s->x[i] / k;
    d->q[i] = s->xb[i] + s->x[i];
  }
  memcpy(d->lambda, s->lam, m * sizeof(double));
  memcpy(s->lamprev, s->lam, m * sizeof(double));
  /* The rows are those of the last residual(), at the accepted iterate:
     at the end state. */
  memcpy(s->qend, d->q, n3 * sizeof(double));
  s->end_t = t1;
  s->end_version = st->sys->version;
  s->end_valid = 1;
  return CDYN_OK;
}

static const cdyn_option options[] = {
  {"tol", CDYN_OPT_DOUBLE, offsetof(opts, tol), "1e-10", 0.0, 1e300, NULL,
   "stop when max |Phi_r| is at most this (m) and max |(W R)_i| at most tol_accel"},
  {"tol_accel", CDYN_OPT_DOUBLE, offsetof(opts, tol_accel), "1e-8", 0.0, 1e300, NULL,
   "stop when max |(W R)_i|, the acceleration the momentum residual R leaves, is at most this (m/s^2) and "
   "max |Phi_r| at most tol"},
  {"max_iter", CDYN_OPT_INT, offsetof(opts, max_iter), "50", 1, 1e6, NULL,
   "Newton iterations per step before CDYN_NOCONV (the state restored)"},
  CDYN_OPTIONS_END};

/* Newton's matrix holds the geometric stiffness at every iteration. */
static int uses_hess(const void *o)
{
  (void)o;
  return 1;
}

/* What the two schemes share: the state, the step, the options, and a
   KKT system of their own that a step either solves or leaves untaken. */
#define NEWTON_KKT_SCHEME                                                                                    \
  .lambda_time = CDYN_LAMBDA_END, .options = options, .options_size = sizeof(opts), .free = st_free,           \
  .step = step, .reset = reset, .own_system = 1, .noconv_restores = 1, .indefinite = 1, .implicit_springs = 1, \
  .uses_hess = uses_hess

const cdyn_scheme_type cdyn_scheme_backward_euler = {
  .name = "backward-euler",
  .description = "backward Euler on the whole nonlinear system (constraints and springs), Newton with the geometric "
                 "stiffness, line search, quasi-definite LDL^T",
  .source = "doc/large-steps.md (Hairer and Wanner II ch. VII; Vanderbei 1995)",
  .order = 1,
  .lambda_order = 1,
  .alloc = alloc_be,
  NEWTON_KKT_SCHEME,
};

const cdyn_scheme_type cdyn_scheme_bdf2 = {
  .name = "bdf2",
  .description = "BDF2 on the whole nonlinear system (constraints and springs), Newton with the geometric stiffness, "
                 "line search, quasi-definite LDL^T",
  .source = "doc/large-steps.md (Hairer and Wanner II ch. VII)",
  .order = 2,
  .lambda_order = 2,
  .alloc = alloc_bdf2,
  NEWTON_KKT_SCHEME,
};
