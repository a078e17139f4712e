/*
 * admm.c: backward Euler's incremental potential by the alternating
 * direction method of multipliers over one prefactored scalar matrix
 * (Overby, Brown, Li and Narain 2017, "ADMM ⊇ Projective Dynamics";
 * Bouaziz, Martin, Liu, Kavan and Pauly 2014; doc/large-steps.md, "One
 * matrix for every step").
 *
 * The step.  From (q, v, t) with step h, the end positions x minimise
 *   E(x) = sum_i m_i |x_i - xhat_i|^2 / (2 h^2) + sum_springs g_s(x_i - x_j),
 *   xhat_i = q_i + h v_i + h^2 f_i / m_i,
 * f the applied force other than the springs (gravity, and the user's
 * force callback at (q, v, t + h): explicit), under the pins and the
 * inequality rows.  A spring's term (k, L0, damper c) is
 *   g_s(z) = k (|z| - L0)^2 / 2 + c (n0 . (z - d0))^2 / (2 h),
 * n0 and d0 = q_i - q_j its direction and vector at the step's start: the
 * dampers' dissipation potential of projected_newton.c, whose step is the
 * same minimum.  A tether row (a strain limit, cdyn/cloth.h) on a
 * spring's pair adds the indicator of |z| <= L to that spring's term (the
 * two are merged).
 *
 * The iteration.  Each spring's elastic part gets a split variable z =
 * x_i - x_j, weight W = k (+ the tether's w^2) and a scaled dual y; with
 * d = x_i - x_j, each iteration is
 *   x <- argmin sum m |x - xhat|^2 / (2 h^2) + sum W |d - z + y|^2 / 2
 *               + sum (c / h) |d|^2 / 2 - d . D(x_prev)
 *        (one solve with A = M / h^2 + sum (W + c / h) L_s, L_s the pair's
 *        graph Laplacian, the same for x, y and z),
 *   z <- the prox of the term at d + y,   y <- y + d - z.
 * A damper's term (c / 2h) (n0 . d - s0)^2 is quadratic, with Hessian
 * (c / h) n0 n0^T: A holds its isotropic part c / h and the rest, the
 * positive semi-definite (c / h) (I - n0 n0^T) below it, is lagged,
 *   D(x_prev) = (c / h) (d_prev - n0 (n0 . d_prev - s0)),
 * so that a fixed point is the minimum (a splitting A - N with 0 <= N <=
 * A; the dampers need no split variable).  A is a scalar n x n matrix (the
 * pins eliminated), the same at every step while the springs, the pins,
 * the tethers' weights and h are: it is factored once, and an iteration
 * is one solve with three right-hand sides and a loop over the springs.
 * With W = k the iteration is Projective Dynamics' local-global one, plus
 * the duals.  The spring's prox is radial, |z| = (k L0 + W |a|) / (k + W)
 * along a, clamped to a merged tether's L (both radial, so the clamp is
 * the exact prox of their sum).
 * A merged tether's weight w^2 = stiffness * mu_eff / h^2, mu_eff = 1 /
 * (J W J^T), the row's effective mass, at the step where the set or h
 * last changed (as projected_newton.c's kappa; `stiffness` 1000 by
 * default).  Measured on the hanging 64 x 64 cloth at 1/60 s for 10 s
 * with 10 iterations, the largest strain over the run: 0.1128 with 30,
 * 0.1110 with 100, 0.1102 with 300 and 0.1082 with 1000 (and with 8
 * iterations 0.1151, 0.1131, 0.1095, 0.1124).  A larger weight holds the
 * limit closer within the same 10 iterations (0.1087 with 4000, 0.1075
 * with 16000, 0.1008 with 64000, 0.1002 with 256000; on the 128 x 128
 * cloth 0.1155 with 1000, 0.1113 with 4000 and with 16000, 0.1098 with
 * 64000), but leaves the springs' part of the step further from
 * converged: the 64 x 64 cloth comes to rest with its potential energy at
 * -2.332 J with 64000, against -2.638 J with 1000, and -2.636 J with
 * 64000 at 200 iterations a step.  With the larger weight, 10 iterations
 * hang the cloth 0.3 J too high, a stiffer shape than backward Euler's;
 * the default stays 1000.
 *
 * Other inequality rows (contacts with a ball, a plane, the cloth itself;
 * a tether with no spring) are split only while they are awake: violated
 * at the step's start or at xhat, or split in the last step with a force.
 * An awake row's copy z holds its particles' positions, stacked (D x =
 * x_P), with weight w^2 = stiffness |J|^2 mu_eff / h^2 on each of its free
 * particles' diagonal, and its prox is the nearest point of g >= 0 (up to
 * 8 steps z <- z - g J / |J|^2 over the free particles' blocks; exact in
 * one for a ball or a plane); its multiplier is w^2 (y . grad g) /
 * |grad g|^2.  A row that wakes or sleeps changes the matrix's diagonal
 * and costs one factorisation.  The rows asleep are projected on after
 * each solve: each violated one moves its free particles onto g = 0 along
 * W J^T (mass-weighted, as pbd.c's sweep, row after row), and its
 * multiplier is its last push over h^2 (what pbd.c reports).  Splitting
 * every row instead put an anchor of weight w^2 on every particle a row
 * names, active or not: on cloth-elongation's ball, with every node a
 * row, it held the cloth in place and let a tether stretch by 5 cm at
 * t = 0.48 s.  Projecting every row instead (none split) let the dual of
 * a tether and the projection of a contact fight: on the same scene at
 * 1/60 s the largest violation grew with the iterations, 1.3 cm with 10,
 * 7.7 cm with 20 and 25 cm with 40; split while awake, 0.5, 1.6 and
 * 0.04 mm.
 *
 * Stopping.  `iterations` K (10 by default) a step: with tol = 0 every
 * step takes K, like pbd's sweeps; the step is then K iterations of the
 * method from the warm start, not the converged backward Euler step, and
 * make bench's cloth section reports the iterations each hanging cloth
 * needs to stay within 11 % strain.  With tol > 0 the step stops once the
 * primal residual max |x_i - x_j - z| <= tol (m) and the dual one, the
 * change of the terms' pull on each free coordinate over its mass (the
 * dampers' lagged part included), <= tol_accel (m/s^2) (Boyd, Parikh, Chu, Peleato and Eckstein 2011,
 * sec. 3.3), and returns CDYN_NOCONV with the state restored when K
 * iterations pass first.  The iteration converges linearly, slowly for
 * stiff springs against light particles (k much larger than m / h^2):
 * measured on the hanging 32 x 32 cloth's first step at 1/60 s (its
 * strain limit's tethers merged), 2,700 iterations to a dual residual of
 * 1 m/s^2 and 7,500 to 0.1 m/s^2, where projected-newton converges in 4
 * Newton iterations.
 *
 * The loop over the springs.  An iteration is one solve and a pass over
 * the springs, which on a cloth costs about as much as the solve (the
 * square root and the division of each prox).  With tol = 0 and `pairs`
 * on, the pass takes two springs at a time in SSE2's two lanes, each
 * lane's operations those of the one-at-a-time loop in its order (IEEE
 * arithmetic is correctly rounded, so the bits are the same, which
 * tests/test_cloth.c checks); the springs' constants are stored two to a
 * block for it.
 *
 * Cost with the cloth's size.  The solve reads its whole factor L, whose
 * entries grow faster than the nodes on a 2-D mesh (nested dissection's
 * n log n at best); the stepper's statistics keep L's entries
 * (cdyn_stats.factor_nnz) and the solves' and factorisations' time, and
 * make bench's cloth section reports both for each hanging cloth.  The
 * solve is bound by that reading, not by its arithmetic: a version with
 * the three right-hand sides in the lanes of one AVX register, bit for
 * bit CHOLMOD's, took the same 60 % of a 128 x 128 frame as CHOLMOD's
 * solve, one column after the other.  An iterative solve reads far less
 * (A has 13 entries a row) but needs many products with A, and an
 * iteration of this method is only as good as its solve: with the solver
 * pcg (each solve from zero, stopped after pcg_maxiter iterations), the
 * hanging 64 x 64 cloth at 1/60 s with 10 iterations a step reaches a
 * largest strain of 1.34 with 20 CG iterations a solve, 0.80 with 40 and
 * 0.137 with 80 (pcg_precond jacobi), 0.275 with 20 and 0.147 with 40
 * (sgs), against 0.1064 with the factor; sgs's 40 took 35 times the
 * factor's solve time.  Started from the last iterate instead (not an
 * option), Jacobi CG with 40 iterations a solve keeps 0.11 (0.1074 at 64
 * x 64; 0.1096 at 128 x 128 with 12 iterations a step), with 20 it does
 * not (0.1124, 0.147), and the 128 x 128 frame with 40 took 4 times the
 * factor's.  The factor stays.
 *
 * Multipliers: a merged tether's from its spring's dual, the term's force
 * W y less the spring's elastic force k (|z| - L0) z / |z|, along the
 * row's gradient; a pin's from its particle's momentum balance.
 *
 * Start: x = xhat, the pinned particles on their targets, and each
 * spring's z and y from the last step (the positions for a new spring):
 * the warm start that makes a quiet step cheap, kept through changes of
 * the constraint set.  y, the term's force over W, is extrapolated along
 * its last change, y + a (y - y_prev) with y_prev its value at the end of
 * the step before (`extrapolate` a, 0.5 by default), except at a step
 * whose weights changed (h or the merged tethers': y's scale changes)
 * and at the step after one that started it afresh.  A converged step is
 * the same minimum from any start (tests/test_cloth.c); with a fixed
 * count the start is what the iterations leave undone: while the cloth
 * falls and its tethers take up its weight, the forces grow from step to
 * step and the last step's y lags them.  Measured on the hanging cloths
 * at 1/60 s for 10 s, the largest strain with 10 iterations a step, a = 0,
 * 0.25, 0.5, 0.75, 1: 64 x 64 0.1082, 0.1075, 0.1064, 0.1060, 0.1191;
 * 128 x 128 (a = 0, 0.5, 0.75) 0.1155, 0.1120, 0.1159, and with 12
 * iterations 0.1130 at a = 0 and 0.1095 at 0.5 (16 iterations at a = 0:
 * 0.1104).  a = 1, the linear prediction, overshoots on the iterations'
 * uneven duals; 0.5 was taken from these runs as the value best at both
 * sizes.  On smaller cloths it helps less and not always: over
 * cloth-robustness's 16 x 16 variants the largest strain moves either
 * way, by at most 0.0031 (its heavy cloth with a 5 % limit at 1/30 s: from
 * 0.0566 to 0.0596, within its bound of 0.06).  At rest the start does not
 * matter: the 64 x 64 cloth's potential energy after 10 s is -2.63842 J
 * with a = 0 and with 0.5.
 *
 * Constraints: pins and inequality rows of one row per constraint
 * (pins_only with inequalities; equality links are refused by the
 * stepper).
 *
 * Expected order: 1 in q and v once converged (backward Euler; the
 * dampers' direction and the user's force lagged by one step).
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define PROJ_STEPS 8
#define ZW (3 * CDYN_MAX_PARTICLES) /* a split row's z and y */

typedef struct {
  double tol, tol_accel, stiffness, extrapolate;
  long iterations;
  int pairs;
} opts;

/* A row is a pin's (eliminated), a tether merged into its spring's term,
   a contact split with its own z and y (awake), or projected on after
   each solve (asleep). */
enum { FORM_NONE = 0, FORM_MERGED = 1, FORM_PROJ = 2, FORM_SPLIT = 3 };

/* A spring's term: its particles, their free indices, its constants, its
   weight W = k (+ a merged tether's w^2), the tether's length, and that
   row (or -1). */
typedef struct {
  size_t i, j;
  long a, b;
  double k, L, c, W, Lmax;
  long row;
} sterm;

/* What the iteration reads of the springs, packed two to a block, lane
   by lane (spring k is lane k & 1 of block k >> 1: the loop takes two
   springs at a time where SSE2 is there): the particles, W, the prox's
   radius al |a| + be (al = W / (k + W), be = k L0 / (k + W)), the damper's
   c / h, the tether's length, and the damper's start direction n0 with
   s0 = n0 . d0. */
typedef struct {
  uint32_t i[2], j[2];
  double W[2], al[2], be[2], c[2], Lmax[2], s0[2], n0[3][2];
} shot;
#define HOT(s, k) (&(s)->hot[(k) >> 1])
#define LN(k) ((k) & 1)

typedef struct {
  size_t n, mcap;
  /* 3n each */
  double *x, *xhat, *base, *pull, *dpull, *rhs, *sol, *fext, *xold;
  double *msig; /* n: the masses the matrix was built with */
  long *fidx;   /* n: a particle's free index, or -1 when pinned */
  size_t nf;
  /* per spring */
  sterm *sp;
  shot *hot;
  uint32_t *pij; /* 2 each: the particles again, for the scatter pass */
  size_t *sorder;                      /* the springs by particle pair */
  double *sz, *sy;                     /* 3 each */
  double *syp;                         /* 3 each: y at the last step's start (NaN: none to extrapolate from) */
  double *gbuf;                        /* 3 each: a spring's pull, before it is scattered */
  double *wsig;                        /* the W + c / h of the factored matrix */
  /* per row */
  double *w2, *rmu, *rlam, *rz, *ry;
  unsigned char *form, *pinrow;
  double *cdiag, *csig; /* n: the split rows' weight on each particle, now and as factored */
  long *rspring; /* the spring a row is merged into, or -1 */
  /* the matrix over free particles: both triangles, diagonal first */
  int *rowptr, *col;
  double *val, *diag;
  size_t nnz, nspr;
  cdyn_adjacency adj; /* the free particles' neighbours */
  unsigned long fversion, pattern_id;
  double h;       /* the h of the weights */
  int have_pattern, factored, fresh, reweigh;
  const cdyn_solver_type *stype;
  void *sstate;
} state;

/* ---- state ------------------------------------------------------------------------- */

static void drop_pattern(state *s)
{
  free(s->rowptr);
  free(s->col);
  free(s->val);
  free(s->diag);
  cdyn_adjacency_free(&s->adj);
  s->rowptr = s->col = NULL;
  s->val = s->diag = NULL;
  if (s->stype && s->sstate)
    s->stype->free(s->sstate);
  s->sstate = NULL;
  s->stype = NULL;
  s->have_pattern = s->factored = 0;
}

static void drop_springs(state *s)
{
  free(s->sp);
  free(s->hot);
  free(s->pij);
  free(s->sorder);
  free(s->sz);
  s->sp = NULL;
  s->hot = NULL;
  s->pij = NULL;
  s->sorder = NULL;
  s->sz = NULL;
}

static void st_free(void *p)
{
  state *s = p;
  if (!s)
    return;
  drop_pattern(s);
  drop_springs(s);
  free(s->x);
  free(s->fidx);
  free(s->w2);
  free(s->form);
  free(s->rspring);
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
  s->x = calloc(9 * n3 + 3 * n + 1, sizeof(double));
  s->fidx = calloc(n + 1, sizeof(long));
  s->w2 = calloc((3 + 2 * ZW) * mcap + 1, sizeof(double));
  s->form = calloc(2 * mcap + 1, 1);
  s->rspring = calloc(mcap + 1, sizeof(long));
  if (!s->x || !s->fidx || !s->w2 || !s->form || !s->rspring) {
    st_free(s);
    return cdyn_error(CDYN_ENOMEM, "admm: out of memory for %zu particles and %zu rows", n, mcap);
  }
  double **arr[] = {&s->xhat, &s->base, &s->pull, &s->dpull, &s->rhs, &s->sol, &s->fext, &s->xold};
  for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++)
    *arr[k] = s->x + (k + 1) * n3;
  s->msig = s->x + 9 * n3;
  s->cdiag = s->msig + n;
  s->csig = s->cdiag + n;
  s->rmu = s->w2 + mcap;
  s->rlam = s->rmu + mcap;
  s->rz = s->rlam + mcap;
  s->ry = s->rz + ZW * mcap;
  s->pinrow = s->form + mcap;
  s->fresh = 1;
  s->reweigh = 1;
  *out = s;
  return CDYN_OK;
}

static void reset(void *p)
{
  state *s = p;
  s->fresh = 1;
}

/* The springs' split variables and duals stay; the rows' forms, merges and
   weights are found again at the next step (the matrix changes only when a
   merged tether's weight does). */
static void changed(void *p, const cdyn_stepper *st, const cdyn_set_change *ch)
{
  state *s = p;
  size_t m = st->d.m, mo = ch->m_old < s->mcap ? ch->m_old : s->mcap;
  /* A split row keeps its z, y, weight and multiplier where it goes. */
  double *tz = s->base; /* base, pull, dpull, rhs, sol: 15 n scratch values */
  size_t per = 2 * ZW + 2;
  int keep = per * mo <= 15 * s->n;
  if (keep)
    for (size_t r = 0; r < mo; r++) {
      double *o = tz + per * r;
      memcpy(o, s->rz + ZW * r, ZW * sizeof(double));
      memcpy(o + ZW, s->ry + ZW * r, ZW * sizeof(double));
      o[2 * ZW] = s->form[r] == FORM_SPLIT ? s->w2[r] : -1.0;
      o[2 * ZW + 1] = s->rlam[r];
    }
  for (size_t r = 0; r < m; r++) {
    long f = ch->from[r];
    const double *o = keep && f >= 0 && (size_t)f < mo ? tz + per * (size_t)f : NULL;
    if (o && o[2 * ZW] >= 0) {
      memcpy(s->rz + ZW * r, o, ZW * sizeof(double));
      memcpy(s->ry + ZW * r, o + ZW, ZW * sizeof(double));
      s->w2[r] = o[2 * ZW];
      s->rlam[r] = o[2 * ZW + 1];
      s->form[r] = FORM_SPLIT;
    } else {
      s->form[r] = FORM_NONE;
      s->rlam[r] = 0;
    }
  }
  s->reweigh = 1;
}

/* ---- the pattern ---------------------------------------------------------------------- */

/* The springs' free-free pairs, in free indices (ctx: the state and the
   system). */
typedef struct {
  const state *s;
  const cdyn_system *sys;
} walk_ctx;

static void walk_pairs(void *ctx, cdyn_adjacency *g)
{
  const walk_ctx *w = ctx;
  for (size_t k = 0; k < w->sys->nsprings; k++) {
    const cdyn_spring *sp = &w->sys->springs[k];
    if (!sp->enabled || sp->i == sp->j)
      continue;
    long a = w->s->fidx[sp->i], b = w->s->fidx[sp->j];
    if (a >= 0 && b >= 0)
      cdyn_adjacency_add(g, (size_t)a, (size_t)b);
  }
}

static size_t pair_lo(const cdyn_spring *sp) { return sp->i < sp->j ? sp->i : sp->j; }
static size_t pair_hi(const cdyn_spring *sp) { return sp->i < sp->j ? sp->j : sp->i; }

/* The springs in order of their pairs (a heap sort: in place, and the
   order does not depend on the C library's qsort). */
static int pair_less(const cdyn_system *sys, size_t x, size_t y)
{
  const cdyn_spring *a = &sys->springs[x], *b = &sys->springs[y];
  if (pair_lo(a) != pair_lo(b))
    return pair_lo(a) < pair_lo(b);
  if (pair_hi(a) != pair_hi(b))
    return pair_hi(a) < pair_hi(b);
  return x < y;
}

static void sift(const cdyn_system *sys, size_t *v, size_t root, size_t end)
{
  for (;;) {
    size_t c = 2 * root + 1;
    if (c >= end)
      return;
    if (c + 1 < end && pair_less(sys, v[c], v[c + 1]))
      c++;
    if (!pair_less(sys, v[root], v[c]))
      return;
    size_t t = v[root];
    v[root] = v[c];
    v[c] = t;
    root = c;
  }
}

static void sort_pairs(const cdyn_system *sys, size_t *v, size_t n)
{
  for (size_t k = n / 2; k-- > 0;)
    sift(sys, v, k, n);
  for (size_t end = n; end > 1; end--) {
    size_t t = v[0];
    v[0] = v[end - 1];
    v[end - 1] = t;
    sift(sys, v, 0, end - 1);
  }
}

static int build_pattern(state *s, cdyn_stepper *st, const cdyn_solver_type *stype)
{
  const cdyn_system *sys = st->sys;
  size_t nf = s->nf, ns = sys->nsprings;
  drop_pattern(s);
  if (!s->sz || s->nspr != ns || s->fversion != sys->force_version) {
    /* the springs' terms, split variables, duals and start vectors */
    drop_springs(s);
    s->sp = calloc(ns + 1, sizeof(sterm));
    s->hot = calloc(ns / 2 + 1, sizeof(shot));
    s->pij = calloc(2 * ns + 1, sizeof(uint32_t));
    s->sorder = calloc(ns + 1, sizeof(size_t));
    s->sz = calloc(13 * ns + 1, sizeof(double));
    if (!s->sp || !s->hot || !s->pij || !s->sorder || !s->sz) {
      drop_springs(s);
      return cdyn_error(CDYN_ENOMEM, "admm: out of memory for %zu springs", ns);
    }
    s->sy = s->sz + 3 * ns;
    s->wsig = s->sy + 3 * ns;
    s->gbuf = s->wsig + ns;
    s->syp = s->gbuf + 3 * ns;
    for (size_t k = 0; k < 3 * ns; k++)
      s->sz[k] = s->syp[k] = NAN; /* set from the positions at the first step */
    for (size_t k = 0; k < ns; k++)
      s->sorder[k] = k;
    sort_pairs(sys, s->sorder, ns);
  }
  walk_ctx wc = {s, sys};
  if (cdyn_adjacency_build(&s->adj, nf, walk_pairs, &wc))
    goto nomem;
  size_t w = s->adj.start[nf];
  size_t nnz = nf + w;
  if (nnz > (size_t)2147483647) {
    drop_pattern(s);
    return cdyn_error(CDYN_EINVAL, "admm: %zu non-zeros exceed the index range", nnz);
  }
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
    for (size_t t = s->adj.start[a]; t < s->adj.start[a + 1]; t++)
      s->col[p++] = (int)s->adj.nbr[t];
  }
  s->rowptr[nf] = (int)p;
  s->nnz = nnz;
  s->nspr = ns;
  s->fversion = sys->force_version;
  s->pattern_id++;
  if (stype->alloc(&s->sstate, nf)) {
    s->sstate = NULL;
    drop_pattern(s);
    return cdyn_error(CDYN_ENOMEM, "admm: out of memory for the solver of %zu unknowns", nf);
  }
  s->stype = stype;
  s->have_pattern = 1;
  s->reweigh = 1;
  st->stats.analyses++;
  return CDYN_OK;
nomem:
  drop_pattern(s);
  return cdyn_error(CDYN_ENOMEM, "admm: out of memory for the pattern of %zu particles", s->nf);
}

/* The enabled spring with k > 0 on the pair (i, j), or -1. */
static long spring_on(const state *s, const cdyn_system *sys, size_t i, size_t j)
{
  size_t lo = i < j ? i : j, hi = i < j ? j : i, a = 0, b = s->nspr;
  while (a < b) {
    size_t mid = (a + b) / 2;
    const cdyn_spring *sp = &sys->springs[s->sorder[mid]];
    if (pair_lo(sp) < lo || (pair_lo(sp) == lo && pair_hi(sp) < hi))
      a = mid + 1;
    else
      b = mid;
  }
  for (; a < s->nspr; a++) {
    const cdyn_spring *sp = &sys->springs[s->sorder[a]];
    if (pair_lo(sp) != lo || pair_hi(sp) != hi)
      break;
    if (sp->enabled && sp->k > 0)
      return (long)s->sorder[a];
  }
  return -1;
}

/* ---- the rows and the terms ------------------------------------------------------------ */

/* The pins at the step's start (rows evaluated there): the free indices.
   *moved: a particle's pinning changed. */
static int pins(cdyn_stepper *st, state *s, int *moved)
{
  cdyn_scheme_data *d = &st->d;
  const cdyn_system *sys = st->sys;
  double *cnt = s->sol; /* scratch: pins per particle */
  memset(cnt, 0, d->n * sizeof(double));
  *moved = 0;
  for (size_t r = 0; r < d->m;) {
    const cdyn_constraint *c = &sys->cons[d->rowcon[r]];
    size_t nr = c->type->rows;
    if (c->type == &cdyn_ctype_pin && !d->inequality[r]) {
      size_t p = c->p[0];
      if (cnt[p] != 0)
        return cdyn_error(CDYN_EINVAL, "admm: particle %zu is pinned twice", p);
      cnt[p] = 1;
    } else if (d->inequality[r] && nr != 1)
      return cdyn_error(CDYN_EINVAL,
                        "admm: constraint %zu ('%s') is an inequality of %zu rows; admm takes one-row inequalities",
                        d->rowcon[r], c->type->name, nr);
    r += nr;
  }
  long nfree = 0;
  for (size_t i = 0; i < d->n; i++) {
    long f = cnt[i] != 0 ? -1 : nfree++;
    if (f != s->fidx[i])
      *moved = 1;
    s->fidx[i] = f;
  }
  s->nf = (size_t)nfree;
  return CDYN_OK;
}

/* The rows' forms, the merges and the weights; the springs' terms. */
static void weigh(cdyn_stepper *st, state *s, double h)
{
  const cdyn_system *sys = st->sys;
  const cdyn_scheme_data *d = &st->d;
  const opts *o = d->opts;
  for (size_t k = 0; k < sys->nsprings; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    sterm *t = &s->sp[k];
    int on = sp->enabled && sp->i != sp->j;
    t->i = sp->i;
    t->j = sp->j;
    t->a = s->fidx[sp->i];
    t->b = s->fidx[sp->j];
    t->k = on ? sp->k : 0;
    t->c = on ? sp->c / h : 0;
    t->L = sp->rest;
    t->W = t->k;
    t->Lmax = INFINITY;
    t->row = -1;
  }
  for (size_t r = 0; r < d->m; r++) {
    const cdyn_constraint *c = &sys->cons[d->rowcon[r]];
    const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
    s->pinrow[r] = c->type == &cdyn_ctype_pin && !d->inequality[r];
    s->rspring[r] = -1;
    s->rmu[r] = 0;
    if (s->pinrow[r]) {
      s->form[r] = FORM_NONE;
      continue;
    }
    if (s->form[r] != FORM_SPLIT) {
      s->form[r] = FORM_PROJ;
      s->w2[r] = 0;
    }
    if (c->type != cdyn_constraint_tether)
      continue;
    long k = spring_on(s, sys, pp[0], pp[1]);
    if (k < 0 || s->sp[k].row >= 0)
      continue;
    double jwj = 0;
    for (unsigned a = 0; a < 2; a++)
      if (s->fidx[pp[a]] >= 0)
        for (int e = 0; e < 3; e++)
          jwj += d->rows[r].jac[a][e] * d->rows[r].jac[a][e] * d->winv[pp[a]];
    if (!(jwj > 0))
      continue;
    s->w2[r] = o->stiffness / (jwj * h * h);
    s->form[r] = FORM_MERGED;
    s->rlam[r] = 0;
    s->rspring[r] = k;
    s->sp[k].row = (long)r;
    s->sp[k].W += s->w2[r];
    s->sp[k].Lmax = c->params[0];
  }
  for (size_t k = 0; k < sys->nsprings; k++) {
    const sterm *t = &s->sp[k];
    shot *u = HOT(s, k);
    size_t l = LN(k);
    u->i[l] = s->pij[2 * k] = (uint32_t)t->i;
    u->j[l] = s->pij[2 * k + 1] = (uint32_t)t->j;
    u->W[l] = t->W;
    u->al[l] = t->W > 0 ? t->W / (t->k + t->W) : 0;
    u->be[l] = t->W > 0 ? t->k * t->L / (t->k + t->W) : 0;
    u->c[l] = t->c;
    u->Lmax[l] = t->Lmax;
  }
  s->h = h;
  s->reweigh = 0;
}

/* Add w to the pair (a, b) of free indices: a's and b's diagonals, -w off. */
static void add_pair(state *s, long a, long b, double w)
{
  if (a >= 0)
    s->val[s->rowptr[a]] += w;
  if (b >= 0)
    s->val[s->rowptr[b]] += w;
  if (a >= 0 && b >= 0 && a != b) {
    s->val[s->rowptr[a] + 1 + cdyn_adjacency_slot(&s->adj, (size_t)a, (size_t)b)] -= w;
    s->val[s->rowptr[b] + 1 + cdyn_adjacency_slot(&s->adj, (size_t)b, (size_t)a)] -= w;
  }
}

/* Does the matrix differ from the factored one (masses, weights)? */
static int stale(const cdyn_stepper *st, const state *s)
{
  if (!s->factored)
    return 1;
  for (size_t i = 0; i < st->d.n; i++)
    if (s->msig[i] != st->d.mass[i])
      return 1;
  for (size_t k = 0; k < s->nspr; k++)
    if (s->wsig[k] != s->sp[k].W + s->sp[k].c)
      return 1;
  for (size_t i = 0; i < st->d.n; i++)
    if (s->csig[i] != s->cdiag[i])
      return 1;
  return 0;
}

static int factor(cdyn_stepper *st, state *s, const void *sopts, double rank_tol)
{
  const cdyn_scheme_data *d = &st->d;
  double h = s->h;
  memset(s->val, 0, s->nnz * sizeof(double));
  for (size_t i = 0; i < d->n; i++) {
    s->msig[i] = d->mass[i];
    s->csig[i] = s->cdiag[i];
    if (s->fidx[i] >= 0)
      s->val[s->rowptr[s->fidx[i]]] += d->mass[i] / (h * h) + s->cdiag[i];
  }
  for (size_t k = 0; k < s->nspr; k++) {
    const sterm *t = &s->sp[k];
    s->wsig[k] = t->W + t->c;
    if (t->i != t->j && s->wsig[k] != 0)
      add_pair(s, t->a, t->b, s->wsig[k]);
  }
  for (size_t a = 0; a < s->nf; a++)
    s->diag[a] = s->val[s->rowptr[a]];
  cdyn_matrix A = {.m = s->nf, .nnz = s->nnz, .rowptr = s->rowptr, .col = s->col, .val = s->val, .diag = s->diag,
                   .pattern = s->pattern_id, .apply = cdyn_matrix_apply_self};
  A.ctx = &A;
  cdyn_solve_info info = {0};
  double t0 = cdyn_clock();
  int rc = s->nf ? s->stype->setup(s->sstate, &A, rank_tol, sopts, &info) : CDYN_OK;
  st->stats.time_factor += cdyn_clock() - t0;
  st->stats.analyses += info.analyses;
  st->stats.factorizations += info.factorizations;
  if (info.factorizations && rc >= 0)
    st->stats.factor_nnz = info.factor_nnz;
  if (rc < 0)
    return rc;
  if (info.fallback || info.negative)
    return cdyn_error(CDYN_ESOLVE, "admm: its matrix M / h^2 + sum w L_s is not positive definite");
  s->factored = 1;
  return CDYN_OK;
}

/* Row r (a one-row constraint's) at rest at t1, its particles at 3 p of
   the particles' positions q, or stacked at 3 a (a row's z). */
static int row_at(const cdyn_stepper *st, size_t r, const double *q, int stacked, double t1, cdyn_row *row)
{
  const cdyn_scheme_data *d = &st->d;
  const cdyn_constraint *c = &st->sys->cons[d->rowcon[r]];
  const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
  static const double zero[3] = {0, 0, 0};
  const double *xp[CDYN_MAX_PARTICLES], *vp[CDYN_MAX_PARTICLES];
  for (unsigned a = 0; a < d->rownp[r]; a++) {
    xp[a] = q + 3 * (stacked ? a : pp[a]);
    vp[a] = zero;
  }
  memset(row, 0, sizeof *row); /* as cdyn_constraint_eval hands a type its rows */
  return c->type->eval(c->params, xp, vp, t1, row);
}

/* Project x onto the rows of FORM_PROJ, one after another: each violated
   row moves its free particles along W J^T onto g = 0 (up to PROJ_STEPS
   linearisations); its push is kept in rmu (m kg, before / h^2). */
static int project_rows(cdyn_stepper *st, state *s, double t1)
{
  const cdyn_scheme_data *d = &st->d;
  for (size_t r = 0; r < d->m; r++) {
    if (s->form[r] != FORM_PROJ)
      continue;
    const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
    unsigned np = d->rownp[r];
    s->rmu[r] = 0;
    for (int it = 0; it < PROJ_STEPS; it++) {
      cdyn_row row;
      int rc = row_at(st, r, s->x, 0, t1, &row);
      if (rc)
        return rc;
      if (row.phi >= 0)
        break;
      double jwj = 0;
      for (unsigned a = 0; a < np; a++)
        if (s->fidx[pp[a]] >= 0)
          for (int e = 0; e < 3; e++)
            jwj += row.jac[a][e] * row.jac[a][e] * d->winv[pp[a]];
      if (!(jwj > 0))
        break; /* every particle pinned: nothing to move */
      double mu = -row.phi / jwj;
      for (unsigned a = 0; a < np; a++)
        if (s->fidx[pp[a]] >= 0)
          for (int e = 0; e < 3; e++)
            s->x[3 * pp[a] + e] += mu * d->winv[pp[a]] * row.jac[a][e];
      s->rmu[r] += mu;
    }
  }
  return CDYN_OK;
}

/* The nearest point of g >= 0 to the stacked positions z, the pinned
   particles held (up to PROJ_STEPS linearisations), in place. */
static int project_split(const cdyn_stepper *st, const state *s, size_t r, double *z, double t1)
{
  const cdyn_scheme_data *d = &st->d;
  const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
  unsigned np = d->rownp[r];
  for (int it = 0; it < PROJ_STEPS; it++) {
    cdyn_row row;
    int rc = row_at(st, r, z, 1, t1, &row);
    if (rc)
      return rc;
    if (row.phi >= 0)
      return CDYN_OK;
    double jj = 0;
    for (unsigned a = 0; a < np; a++)
      if (s->fidx[pp[a]] >= 0)
        for (int e = 0; e < 3; e++)
          jj += row.jac[a][e] * row.jac[a][e];
    if (!(jj > 0))
      return CDYN_OK;
    double mu = -row.phi / jj;
    for (unsigned a = 0; a < np; a++)
      if (s->fidx[pp[a]] >= 0)
        for (int e = 0; e < 3; e++)
          z[3 * a + e] += mu * row.jac[a][e];
  }
  return CDYN_OK;
}

/*
 * The contacts split this step (FORM_SPLIT): a row violated at q or at
 * xhat, or split in the last step with a force; the others are projected
 * (FORM_PROJ).  A row that wakes gets its weight w^2 = stiffness * |J|^2
 * mu_eff / h^2 (from J at q, the free particles' blocks) and starts from
 * xhat's positions projected, with y = 0; with `rew` (h or the set
 * changed) every split row's weight is recomputed.  Each split row adds
 * w^2 to its free particles' diagonal (cdiag).
 */
static int wake(cdyn_stepper *st, state *s, double h, double t1, int rew)
{
  const cdyn_scheme_data *d = &st->d;
  const opts *o = d->opts;
  memset(s->cdiag, 0, d->n * sizeof(double));
  for (size_t r = 0; r < d->m; r++) {
    if (s->form[r] != FORM_PROJ && s->form[r] != FORM_SPLIT)
      continue;
    const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
    unsigned np = d->rownp[r];
    cdyn_row row;
    int rc = row_at(st, r, s->xhat, 0, t1, &row);
    if (rc)
      return rc;
    int was = s->form[r] == FORM_SPLIT && s->rlam[r] != 0;
    int awake = was || d->rows[r].phi < 0 || row.phi < 0;
    if (!awake) {
      s->form[r] = FORM_PROJ;
      s->w2[r] = 0;
      s->rlam[r] = 0;
      continue;
    }
    if (s->form[r] != FORM_SPLIT || rew) {
      double jwj = 0, gz = 0;
      for (unsigned a = 0; a < np; a++)
        if (s->fidx[pp[a]] >= 0)
          for (int e = 0; e < 3; e++) {
            double j = d->rows[r].jac[a][e];
            jwj += j * j * d->winv[pp[a]];
            gz += j * j;
          }
      if (!(jwj > 0)) {
        s->form[r] = FORM_PROJ;
        s->w2[r] = 0;
        continue;
      }
      s->w2[r] = o->stiffness * gz / (jwj * h * h);
    }
    if (s->form[r] != FORM_SPLIT) {
      double *z = s->rz + ZW * r;
      for (unsigned a = 0; a < np; a++)
        for (int e = 0; e < 3; e++)
          z[3 * a + e] = s->xhat[3 * pp[a] + e];
      if ((rc = project_split(st, s, r, z, t1)))
        return rc;
      memset(s->ry + ZW * r, 0, ZW * sizeof(double));
      s->form[r] = FORM_SPLIT;
    }
    for (unsigned a = 0; a < np; a++)
      if (s->fidx[pp[a]] >= 0)
        s->cdiag[pp[a]] += s->w2[r];
  }
  return CDYN_OK;
}

/* One spring's split variable: the radial prox of k (|z| - L0)^2 / 2 with
   weight W at a, clamped to a merged tether's length. */
static void spring_prox(const shot *t, size_t l, const double *a, double *z)
{
  double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  double rad = t->al[l] * la + t->be[l];
  if (rad > t->Lmax[l])
    rad = t->Lmax[l];
  double f = la > 0 ? rad / la : 1.0;
  z[0] = a[0] * f;
  z[1] = a[1] * f;
  z[2] = a[2] * f;
}

/* A spring's pull g on its particles i (+ g) and j (- g). */
static inline void add_pull(double *pull, size_t i, size_t j, const double *g)
{
  double *pi = pull + 3 * i, *pj = pull + 3 * j;
  pi[0] += g[0];
  pi[1] += g[1];
  pi[2] += g[2];
  pj[0] -= g[0];
  pj[1] -= g[1];
  pj[2] -= g[2];
}

/* Spring k's share of an iteration: its prox and dual, its pull (into
   gbuf), its primal residual (into *rp) and, with `dual`, the change of
   its pull, scattered into dpull. */
static void spring_iter(state *s, size_t k, int dual, int keepz, double *rp)
{
  const shot *t = HOT(s, k);
  size_t l = LN(k);
  double W = t->W[l], c = t->c[l];
  if (W == 0 && c == 0) {
    s->gbuf[3 * k] = s->gbuf[3 * k + 1] = s->gbuf[3 * k + 2] = 0;
    return;
  }
  const double *xi = s->x + 3 * (size_t)t->i[l], *xj = s->x + 3 * (size_t)t->j[l];
  double dx[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
  double g[3] = {0, 0, 0}, dg[3] = {0, 0, 0};
  if (W > 0) {
    double *z = s->sz + 3 * k, *y = s->sy + 3 * k;
    double a[3] = {dx[0] + y[0], dx[1] + y[1], dx[2] + y[2]}, zn[3];
    spring_prox(t, l, a, zn);
    for (int e = 0; e < 3; e++) {
      double res = dx[e] - zn[e];
      y[e] += res;
      if (dual)
        dg[e] += W * (zn[e] - z[e]);
      if (keepz)
        z[e] = zn[e];
      g[e] += W * (zn[e] - y[e]);
      res = fabs(res);
      if (res > *rp)
        *rp = res;
    }
  }
  if (c > 0) {
    /* the damper's lagged part, c (dx - n0 (n0 . dx - s0)), and its
       change since the last iterate (the dual residual's share) */
    double n0[3] = {t->n0[0][l], t->n0[1][l], t->n0[2][l]};
    double sn = n0[0] * dx[0] + n0[1] * dx[1] + n0[2] * dx[2] - t->s0[l];
    for (int e = 0; e < 3; e++)
      g[e] += c * (dx[e] - n0[e] * sn);
    if (dual) {
      const double *oi = s->xold + 3 * (size_t)t->i[l], *oj = s->xold + 3 * (size_t)t->j[l];
      double ox[3] = {oi[0] - oj[0], oi[1] - oj[1], oi[2] - oj[2]};
      double so = n0[0] * ox[0] + n0[1] * ox[1] + n0[2] * ox[2] - t->s0[l];
      for (int e = 0; e < 3; e++)
        dg[e] += c * (dx[e] - n0[e] * sn - ox[e] + n0[e] * so);
    }
  }
  /* scattered in a second pass: the springs' proxes are independent of
     one another, the particles' sums are not */
  for (int e = 0; e < 3; e++)
    s->gbuf[3 * k + e] = g[e];
  if (dual)
    for (int e = 0; e < 3; e++) {
      s->dpull[3 * (size_t)t->i[l] + e] += dg[e];
      s->dpull[3 * (size_t)t->j[l] + e] -= dg[e];
    }
}

#if defined(__SSE2__)
/* Three coordinates of two springs, stored one spring after the other
   (p[0..2], p[3..5]), as their x, y and z lanes, and back. */
static inline void load3x2(const double *p, __m128d *x, __m128d *y, __m128d *z)
{
  __m128d v0 = _mm_loadu_pd(p), v1 = _mm_loadu_pd(p + 2), v2 = _mm_loadu_pd(p + 4);
  *x = _mm_shuffle_pd(v0, v1, 2);
  *y = _mm_shuffle_pd(v0, v2, 1);
  *z = _mm_shuffle_pd(v1, v2, 2);
}

static inline void store3x2(double *p, __m128d x, __m128d y, __m128d z)
{
  _mm_storeu_pd(p, _mm_shuffle_pd(x, y, 0));
  _mm_storeu_pd(p + 2, _mm_shuffle_pd(z, x, 2));
  _mm_storeu_pd(p + 4, _mm_shuffle_pd(y, z, 3));
}

/* Coordinate e of the particles a and b, as two lanes. */
static inline __m128d gather2(const double *x, uint32_t a, uint32_t b, int e)
{
  return _mm_loadh_pd(_mm_load_sd(x + 3 * (size_t)a + e), x + 3 * (size_t)b + e);
}

static inline __m128d pick(__m128d mask, __m128d a, __m128d b)
{
  return _mm_or_pd(_mm_and_pd(mask, a), _mm_andnot_pd(mask, b));
}

/*
 * spring_iter without the dual residual, two springs at a time: each
 * lane's operations are spring_iter's, in its order, so the bits are the
 * same (a spring with W = 0 keeps its y and z, and adds nothing to the
 * residual; one with c = 0 adds c (...) = 0), and each pair's pulls are
 * scattered into s->pull as it is done, spring by spring (the order of the
 * caller's pass over gbuf, so the sums are the same).  Returns the springs
 * done, an even number; the caller does the last one and scatters it.
 */
static size_t springs_sse2(state *s, size_t ns, int keepz, double *rp)
{
  const __m128d zero = _mm_setzero_pd(), one = _mm_set1_pd(1.0), sign = _mm_set1_pd(-0.0);
  __m128d rpv = _mm_set1_pd(*rp);
  size_t k = 0;
  for (; k + 2 <= ns; k += 2) {
    const shot *t = &s->hot[k >> 1];
    __m128d W = _mm_loadu_pd(t->W), c = _mm_loadu_pd(t->c);
    __m128d dxx = _mm_sub_pd(gather2(s->x, t->i[0], t->i[1], 0), gather2(s->x, t->j[0], t->j[1], 0));
    __m128d dxy = _mm_sub_pd(gather2(s->x, t->i[0], t->i[1], 1), gather2(s->x, t->j[0], t->j[1], 1));
    __m128d dxz = _mm_sub_pd(gather2(s->x, t->i[0], t->i[1], 2), gather2(s->x, t->j[0], t->j[1], 2));
    __m128d on = _mm_cmpgt_pd(W, zero);
    double *yp = s->sy + 3 * k;
    __m128d yx, yy, yz;
    load3x2(yp, &yx, &yy, &yz);
    __m128d ax = _mm_add_pd(dxx, yx), ay = _mm_add_pd(dxy, yy), az = _mm_add_pd(dxz, yz);
    __m128d la = _mm_sqrt_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(ax, ax), _mm_mul_pd(ay, ay)), _mm_mul_pd(az, az)));
    __m128d rad = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(t->al), la), _mm_loadu_pd(t->be));
    __m128d lmax = _mm_loadu_pd(t->Lmax);
    rad = pick(_mm_cmpgt_pd(rad, lmax), lmax, rad);
    __m128d f = pick(_mm_cmpgt_pd(la, zero), _mm_div_pd(rad, la), one);
    __m128d zx = _mm_mul_pd(ax, f), zy = _mm_mul_pd(ay, f), zz = _mm_mul_pd(az, f);
    __m128d rx = _mm_sub_pd(dxx, zx), ry = _mm_sub_pd(dxy, zy), rz = _mm_sub_pd(dxz, zz);
    __m128d nyx = pick(on, _mm_add_pd(yx, rx), yx), nyy = pick(on, _mm_add_pd(yy, ry), yy),
            nyz = pick(on, _mm_add_pd(yz, rz), yz);
    store3x2(yp, nyx, nyy, nyz);
    if (keepz) {
      double *zp = s->sz + 3 * k;
      __m128d ox, oy, oz;
      load3x2(zp, &ox, &oy, &oz);
      store3x2(zp, pick(on, zx, ox), pick(on, zy, oy), pick(on, zz, oz));
    }
    __m128d gx = _mm_and_pd(on, _mm_add_pd(zero, _mm_mul_pd(W, _mm_sub_pd(zx, nyx))));
    __m128d gy = _mm_and_pd(on, _mm_add_pd(zero, _mm_mul_pd(W, _mm_sub_pd(zy, nyy))));
    __m128d gz = _mm_and_pd(on, _mm_add_pd(zero, _mm_mul_pd(W, _mm_sub_pd(zz, nyz))));
    rpv = _mm_max_pd(rpv, _mm_and_pd(on, _mm_andnot_pd(sign, rx)));
    rpv = _mm_max_pd(rpv, _mm_and_pd(on, _mm_andnot_pd(sign, ry)));
    rpv = _mm_max_pd(rpv, _mm_and_pd(on, _mm_andnot_pd(sign, rz)));
    /* the damper's lagged part */
    __m128d nx = _mm_loadu_pd(t->n0[0]), ny = _mm_loadu_pd(t->n0[1]), nz = _mm_loadu_pd(t->n0[2]);
    __m128d sn = _mm_sub_pd(
      _mm_add_pd(_mm_add_pd(_mm_mul_pd(nx, dxx), _mm_mul_pd(ny, dxy)), _mm_mul_pd(nz, dxz)), _mm_loadu_pd(t->s0));
    gx = _mm_add_pd(gx, _mm_mul_pd(c, _mm_sub_pd(dxx, _mm_mul_pd(nx, sn))));
    gy = _mm_add_pd(gy, _mm_mul_pd(c, _mm_sub_pd(dxy, _mm_mul_pd(ny, sn))));
    gz = _mm_add_pd(gz, _mm_mul_pd(c, _mm_sub_pd(dxz, _mm_mul_pd(nz, sn))));
    /* the two springs' pulls scattered in their order, as the
       caller's pass over gbuf would */
    double g[6];
    store3x2(g, gx, gy, gz);
    add_pull(s->pull, t->i[0], t->j[0], g);
    add_pull(s->pull, t->i[1], t->j[1], g + 3);
  }
  double lanes[2];
  _mm_storeu_pd(lanes, rpv);
  *rp = lanes[0] > lanes[1] ? lanes[0] : lanes[1];
  return k;
}
#endif

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

/* The rows at the step's start (q, v, t1) that the step reads: all but
   the tethers merged into their springs (a spring's term stands for its
   tether, whose row is read only when the weights are found again, after
   a full evaluation).  A constraint of several rows (a pin) is evaluated
   whole. */
static int eval_start(cdyn_stepper *st, const state *s, double t1)
{
  cdyn_scheme_data *d = &st->d;
  const cdyn_system *sys = st->sys;
  for (size_t r = 0; r < d->m;) {
    const cdyn_constraint *c = &sys->cons[d->rowcon[r]];
    unsigned nr = c->type->rows;
    if (nr != 1 || s->form[r] != FORM_MERGED) {
      int rc = cdyn_constraint_eval(c, d->q, d->v, t1, st->rows + r);
      if (rc)
        return rc;
    }
    r += nr;
  }
  st->stats.constraint_evals++;
  return CDYN_OK;
}

/* The pinned coordinate of row r (a pin's rows are its particle's x, y, z). */
static size_t pin_coord(const cdyn_scheme_data *d, size_t r)
{
  size_t r0 = r;
  while (r0 > 0 && d->rowcon[r0 - 1] == d->rowcon[r])
    r0--;
  return 3 * d->rowpart[r * CDYN_MAX_PARTICLES] + (r - r0);
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
  if (m && (rc = eval_start(st, s, t1)))
    return rc;
  int moved;
  if ((rc = pins(st, s, &moved)))
    return rc;
  if ((moved || !s->have_pattern || s->nspr != ns || s->fversion != sys->force_version || s->stype != stype) &&
      (rc = build_pattern(s, st, stype)))
    return rc;
  int rew = s->reweigh || s->h != h;
  if (rew) {
    if (m && (rc = cdyn_eval_rows(st, d->q, d->v, t1))) /* the merged tethers' too */
      return rc;
    weigh(st, s, h);
  }

  /* xhat, with the pins' targets */
  double *f = s->fext;
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
      size_t c = pin_coord(d, r);
      s->xhat[c] = d->q[c] - d->rows[r].phi;
    }
  /* The contacts to split this step, and the matrix. */
  if ((rc = wake(st, s, h, t1, rew)))
    return rc;
  if (stale(st, s) && (rc = factor(st, s, sopts, rank_tol)))
    return rc;

  /* The right-hand side's constant part: M xhat / h^2 and the pinned
     ends of the terms. */
  for (size_t i = 0; i < n3; i++)
    s->base[i] = d->mass[i / 3] * s->xhat[i] / (h * h);
  for (size_t k = 0; k < ns; k++) {
    const sterm *t = &s->sp[k];
    double w = t->W + t->c;
    if (t->i == t->j || w == 0)
      continue;
    for (int e = 0; e < 3; e++) {
      if (t->a >= 0 && t->b < 0)
        s->base[3 * t->i + e] += w * s->xhat[3 * t->j + e];
      else if (t->b >= 0 && t->a < 0)
        s->base[3 * t->j + e] += w * s->xhat[3 * t->i + e];
    }
  }
  double xa = o->extrapolate;
  /* The springs' start vectors, the split variables' warm start (the last
     step's, or the positions for a new spring), the first pull. */
  memset(s->pull, 0, n3 * sizeof(double));
  for (size_t k = 0; k < ns; k++) {
    const sterm *t = &s->sp[k];
    shot *u = HOT(s, k);
    size_t l = LN(k);
    double d0[3];
    for (int e = 0; e < 3; e++)
      d0[e] = d->q[3 * t->i + e] - d->q[3 * t->j + e];
    double r = sqrt(d0[0] * d0[0] + d0[1] * d0[1] + d0[2] * d0[2]);
    if ((t->W > 0 || t->c > 0) && !(r > 0))
      return cdyn_error(CDYN_EDEGENERATE, "admm: spring %zu: its particles coincide at t = %g", k, d->t);
    u->s0[l] = 0;
    for (int e = 0; e < 3; e++) {
      u->n0[e][l] = r > 0 ? d0[e] / r : 0.0;
      u->s0[l] += u->n0[e][l] * d0[e];
    }
    for (int e = 0; e < 3; e++) {
      size_t c = 3 * k + e;
      if (s->fresh || isnan(s->sz[c])) {
        s->sz[c] = d0[e];
        s->sy[c] = 0;
        s->syp[c] = NAN; /* no history to extrapolate from at the next step */
      } else {
        double yk = s->sy[c], yp = s->syp[c];
        /* y's start extrapolated along its last change, over steps of one
           h and one weight (rew: the weights change, so y's scale does) */
        if (xa > 0 && !rew && !isnan(yp))
          s->sy[c] = yk + xa * (yk - yp);
        s->syp[c] = rew ? NAN : yk;
      }
      double g = t->W * (s->sz[3 * k + e] - s->sy[3 * k + e]) + t->c * d0[e];
      s->pull[3 * t->i + e] += g;
      s->pull[3 * t->j + e] -= g;
    }
  }
  for (size_t r = 0; r < m; r++) {
    if (s->form[r] != FORM_SPLIT)
      continue;
    const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
    for (unsigned a = 0; a < d->rownp[r]; a++)
      for (int e = 0; e < 3; e++)
        s->pull[3 * pp[a] + e] += s->w2[r] * (s->rz[ZW * r + 3 * a + e] - s->ry[ZW * r + 3 * a + e]);
  }
  s->fresh = 0;

  cdyn_matrix A = {.m = s->nf, .nnz = s->nnz, .rowptr = s->rowptr, .col = s->col, .val = s->val, .diag = s->diag,
                   .pattern = s->pattern_id, .apply = cdyn_matrix_apply_self};
  A.ctx = &A;
  size_t nf = s->nf;
  unsigned it = 0;
  int converged = 0, dual = o->tol > 0;
  double rp = INFINITY, rd = INFINITY;
  memcpy(s->x, s->xhat, n3 * sizeof(double));
  int pinned_finite = cdyn_all_finite(s->xhat, n3);
  if (dual)
    memcpy(s->xold, d->q, n3 * sizeof(double)); /* where the first pull's dampers are */
  for (;;) {
    /* the global solve, A x = base + pull, and the other rows' projection */
    for (size_t i = 0; i < n; i++) {
      long a = s->fidx[i];
      if (a >= 0)
        for (int e = 0; e < 3; e++)
          s->rhs[(size_t)e * nf + (size_t)a] = s->base[3 * i + e] + s->pull[3 * i + e];
    }
    if (nf) {
      /* The solver's residual is reported for the last iteration only
         (the stepper's last_residual): with a fixed count, the others
         skip its pass over A.  With a tolerance any iteration may be the
         last. */
      cdyn_solve_info sinfo = {.skip_residual = !dual && (long)it + 1 < o->iterations};
      double t0 = cdyn_clock();
      rc = s->stype->solve(s->sstate, &A, 3, s->rhs, s->sol, rank_tol, sopts, &sinfo);
      st->stats.time_solve += cdyn_clock() - t0;
      st->stats.solves++;
      st->stats.factorizations += sinfo.factorizations;
      if (sinfo.factorizations && rc >= 0)
        st->stats.factor_nnz = sinfo.factor_nnz;
      st->stats.last_residual = sinfo.residual;
      if (rc < 0)
        return rc;
    }
    /* x's pinned coordinates are xhat's all through the step (finite:
       checked once, below xhat); its free ones are checked as they are
       gathered (x * 0 is 0 for a finite x, NaN otherwise), in the same
       pass rather than a second one over x. */
    double nanfree = pinned_finite ? 0.0 : NAN;
    for (size_t i = 0; i < n; i++) {
      long a = s->fidx[i];
      if (a >= 0)
        for (int e = 0; e < 3; e++) {
          double v = s->sol[(size_t)e * nf + (size_t)a];
          s->x[3 * i + e] = v;
          nanfree += v * 0.0;
        }
    }
    it++;
    if (nanfree != 0)
      break;
    if ((rc = project_rows(st, s, t1)))
      return rc;

    /* the proxes and the duals, the next pull, the residuals */
    rp = 0;
    /* z is read again only by the dual residual, the multipliers and the
       next step's warm start */
    int keepz = dual || (long)it >= o->iterations;
    memset(s->pull, 0, n3 * sizeof(double));
    if (dual)
      memset(s->dpull, 0, n3 * sizeof(double));
    size_t k0 = 0;
#if defined(__SSE2__)
    if (!dual && o->pairs)
      k0 = springs_sse2(s, ns, keepz, &rp);
#endif
    for (size_t k = k0; k < ns; k++)
      spring_iter(s, k, dual, keepz, &rp);
    for (size_t k = k0; k < ns; k++)
      add_pull(s->pull, s->pij[2 * k], s->pij[2 * k + 1], s->gbuf + 3 * k);
    for (size_t r = 0; r < m; r++) {
      if (s->form[r] != FORM_SPLIT)
        continue;
      const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
      double *z = s->rz + ZW * r, *y = s->ry + ZW * r, zn[ZW];
      unsigned nz = 3 * d->rownp[r];
      for (unsigned e = 0; e < nz; e++)
        zn[e] = s->x[3 * pp[e / 3] + e % 3] + y[e];
      if ((rc = project_split(st, s, r, zn, t1)))
        return rc;
      for (unsigned e = 0; e < nz; e++) {
        size_t c = 3 * pp[e / 3] + e % 3;
        if (s->fidx[pp[e / 3]] < 0) {
          z[e] = zn[e];
          y[e] = 0;
          continue;
        }
        double res = s->x[c] - zn[e];
        y[e] += res;
        if (dual)
          s->dpull[c] += s->w2[r] * (zn[e] - z[e]);
        z[e] = zn[e];
        s->pull[c] += s->w2[r] * (zn[e] - y[e]);
        res = fabs(res);
        if (res > rp)
          rp = res;
      }
    }
    if (dual)
      memcpy(s->xold, s->x, n3 * sizeof(double));
    rd = 0;
    for (size_t i = 0; i < n && dual; i++)
      if (s->fidx[i] >= 0)
        for (int e = 0; e < 3; e++) {
          double v = fabs(s->dpull[3 * i + e]) * d->winv[i];
          if (!(v <= rd))
            rd = v;
        }
    if (!isfinite(rp) || !isfinite(rd))
      break;
    if (dual && rp <= o->tol && rd <= o->tol_accel) {
      converged = 1;
      break;
    }
    if ((long)it >= o->iterations) {
      converged = !dual;
      break;
    }
  }
  cdyn_record_nonlinear(st, it, rp, converged);
  if (!converged) {
    s->fresh = 1;
    if (!cdyn_all_finite(s->x, n3) || !isfinite(rp) || (dual && !isfinite(rd)))
      return cdyn_error(CDYN_ENONFINITE,
                        "admm: the iteration is not finite in the step from t = %g with h = %g (iteration %u); the "
                        "state is restored",
                        d->t, h, it);
    return cdyn_error(CDYN_NOCONV,
                      "admm: no convergence in the step from t = %g with h = %g (%u iterations; primal residual %g "
                      "m, tolerance %g; dual residual %g m/s^2, tolerance %g); the state is restored",
                      d->t, h, it, rp, o->tol, rd, o->tol_accel);
  }

  /* The multipliers.  A projected row's: its push over h^2.  A merged
     tether's: the term's force W y less the spring's elastic force
     k (|z| - L0) z / |z|, along the row's gradient g = L - |z|.  A pin's:
     the force its particle needs, -(m (x - q - h v) / h^2 - f + the terms'
     pull on it, and the contacts' J^T lambda), the pull of a spring W y and
     of its damper (c / h) n0 (n0 . d - s0) at the end. */
  memset(s->pull, 0, n3 * sizeof(double));
  for (size_t k = 0; k < ns; k++) {
    const sterm *t = &s->sp[k];
    const shot *u = HOT(s, k);
    size_t l = LN(k);
    double dx[3], sn = -u->s0[l];
    for (int e = 0; e < 3; e++) {
      dx[e] = s->x[3 * t->i + e] - s->x[3 * t->j + e];
      sn += u->n0[e][l] * dx[e];
    }
    for (int e = 0; e < 3; e++) {
      double g = t->W * s->sy[3 * k + e] + t->c * u->n0[e][l] * sn;
      s->pull[3 * t->i + e] += g;
      s->pull[3 * t->j + e] -= g;
    }
  }
  for (size_t r = 0; r < m; r++) {
    d->lambda[r] = 0;
    if (s->form[r] == FORM_PROJ)
      d->lambda[r] = -s->rmu[r] / (h * h);
    else if (s->form[r] == FORM_SPLIT) {
      /* the term's force on the free particles, -w^2 y, is -J^T lambda */
      const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
      cdyn_row row;
      if ((rc = row_at(st, r, s->rz + ZW * r, 1, t1, &row)))
        return rc;
      double yg = 0, gg = 0;
      for (unsigned a = 0; a < d->rownp[r]; a++)
        if (s->fidx[pp[a]] >= 0)
          for (int e = 0; e < 3; e++) {
            yg += s->ry[ZW * r + 3 * a + e] * row.jac[a][e];
            gg += row.jac[a][e] * row.jac[a][e];
          }
      d->lambda[r] = gg > 0 ? s->w2[r] * yg / gg : 0;
    } else if (s->form[r] == FORM_MERGED) {
      const sterm *t = &s->sp[s->rspring[r]];
      const double *z = s->sz + 3 * s->rspring[r], *y = s->sy + 3 * s->rspring[r];
      double lz = sqrt(z[0] * z[0] + z[1] * z[1] + z[2] * z[2]), fn = 0;
      /* a tether short of its length (the prox not clamped) exerts nothing */
      if (lz > 0 && lz >= t->Lmax) {
        for (int e = 0; e < 3; e++)
          fn += t->W * y[e] * z[e] / lz;
        fn -= t->k * (lz - t->L);
      }
      /* the row's gradient on x_i is -z / |z| whichever its particles'
         order, and its force there -J_i^T lambda = (z / |z|) lambda */
      d->lambda[r] = -fn;
    }
    s->rlam[r] = d->lambda[r];
  }
  /* A contact's force on a pinned particle (a ball moved by a pin), -J^T
     lambda at the end positions, is the pin's to bear as well: it enters
     the pull (the negative force) there. */
  for (size_t r = 0; r < m; r++) {
    if ((s->form[r] != FORM_SPLIT && s->form[r] != FORM_PROJ) || d->lambda[r] == 0)
      continue;
    const size_t *pp = d->rowpart + r * CDYN_MAX_PARTICLES;
    unsigned a, np = d->rownp[r];
    for (a = 0; a < np && s->fidx[pp[a]] >= 0; a++)
      ;
    if (a == np)
      continue; /* no pinned particle */
    cdyn_row row;
    if ((rc = row_at(st, r, s->x, 0, t1, &row)))
      return rc;
    for (a = 0; a < np; a++)
      if (s->fidx[pp[a]] < 0)
        for (int e = 0; e < 3; e++)
          s->pull[3 * pp[a] + e] += row.jac[a][e] * d->lambda[r];
  }
  for (size_t r = 0; r < m; r++)
    if (s->pinrow[r]) {
      size_t c = pin_coord(d, r), p = c / 3;
      d->lambda[r] = -(d->mass[p] * (s->x[c] - d->q[c] - h * d->v[c]) / (h * h) - s->fext[c] + s->pull[c]);
    }
  for (size_t i = 0; i < n3; i++) {
    d->v[i] = (s->x[i] - d->q[i]) / h;
    d->q[i] = s->x[i];
  }
  return CDYN_OK;
}

static const cdyn_option options[] = {
  {"iterations", CDYN_OPT_INT, offsetof(opts, iterations), "10", 1, 1e7, NULL,
   "ADMM iterations per step (with tol = 0, every step takes all of them)"},
  {"tol", CDYN_OPT_DOUBLE, offsetof(opts, tol), "0", 0.0, 1e300, NULL,
   "0: a fixed number of iterations; > 0: stop once every spring's split variable is within this of its value at "
   "the positions (m) and the dual residual within tol_accel, and return CDYN_NOCONV (the state restored) when "
   "the iterations run out first"},
  {"tol_accel", CDYN_OPT_DOUBLE, offsetof(opts, tol_accel), "1e-2", 0.0, 1e300, NULL,
   "with tol > 0: the dual residual's bound, the change of the terms' pull on a free coordinate over its mass "
   "in an iteration (m/s^2)"},
  {"stiffness", CDYN_OPT_DOUBLE, offsetof(opts, stiffness), "1000", 1e-6, 1e12, NULL,
   "the weight of a tether merged into its spring, or of an awake contact, in units of its effective mass / h^2"},
  {"extrapolate", CDYN_OPT_DOUBLE, offsetof(opts, extrapolate), "0.5", 0.0, 1.0, NULL,
   "a in [0, 1]: each spring's scaled dual starts a step at y + a (y - y_prev), y and y_prev its values at the "
   "ends of the last two steps (0: at y, the last step's)"},
  {"pairs", CDYN_OPT_BOOL, offsetof(opts, pairs), "on", 0, 0, NULL,
   "on: the springs two at a time in SSE2 lanes where the build has SSE2 (with tol = 0); off: one at a time; the "
   "results are the same to the bit"},
  CDYN_OPTIONS_END};

const cdyn_scheme_type cdyn_scheme_admm = {
  .name = "admm",
  .description = "backward Euler's incremental potential by ADMM over one prefactored scalar matrix (projective "
                 "dynamics with duals), a fixed number of iterations a step or to a tolerance: springs, dampers and "
                 "strain-limit tethers split, pins eliminated, contacts split while awake and projected while asleep",
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
