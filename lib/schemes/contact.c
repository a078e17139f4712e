/*
 * contact.c: inequality constraints with an active-set algorithm (003),
 * event location and an impulse step at contact.
 *
 * Each step of size h is cut into sub-steps.  A sub-step at (q, v, t):
 *
 * 1. Impulse (velocity level; option impulses).  If an active inequality row approaches,
 *    gdot_k = J_k v + Phi_t,k < -impact_tol, the velocity jumps,
 *      v+ = v + W J^T p,   gdot+ = gdot + A p,   A = J W J^T,
 *    with p from the contact problem of cdyn/contact.h over the equality
 *    rows and the active inequality rows,
 *      w = A p + b,  b_k = gdot_k + e min(gdot_k, 0)    (e: restitution),
 *    so that an impacting row leaves at least at -e times its approach
 *    speed (Newton's restitution law), a resting one does not approach,
 *    and the equality rows keep gdot = 0.  The same active-set algorithm
 *    as at the acceleration level picks the handled set (003 says nothing
 *    of impacts; a row that is only touching, |gdot| <= impact_tol, takes
 *    e = 0).
 * 2. Acceleration (003 eq 6).  With a_free = W F and, for each candidate
 *    row, Baumgarte's right-hand side (003 eq 5)
 *      d_k = -(Jdot v)_k - phi_tt,k - (2/tau) gdot_k - gt_k / tau^2,
 *    where gt_k = g_k for an equality row and min(g_k, 0) for an
 *    inequality row (only a violation is pulled back; tau = 0 turns the
 *    stabilisation off), the contact problem
 *      w = J qdd - d = A mu + b,   b = J a_free - d,
 *      qdd = a_free + W J^T mu
 *    is solved over the candidate rows: the equality rows, the active
 *    inequality rows (g_k <= active_tol, violated ones included) and, for
 *    an algorithm that carries its handled set (Platt), the rows in that
 *    set.
 * 3. Symplectic Euler over the remaining time s:
 *      v+ = v + s qdd,   q+ = q + s v+,
 *    i.e. along the path q(sigma) = q + sigma v + sigma^2 qdd.
 * 4. Event location (003 §3 assumes the engine "may rewind time until the
 *    first constraint activation").  For each inequality row inactive at
 *    the sub-step's start (g > active_tol) and violated at its end, the
 *    crossing of g(q(sigma)) = 0 is bracketed by bisection on the path of
 *    step 3 until g(q(sigma_lo)) lies in [0, event_tol] (or the bracket is
 *    below 1e-15 s); the sub-step is cut at the earliest sigma_lo over
 *    those rows, so the state is never left penetrating by an event, and
 *    the next sub-step starts with the row active.  A row that dips below
 *    zero and re-emerges within one sub-step is not seen: the test is at
 *    the ends.
 * 5. Platt's set (003 Algorithm 1), for an algorithm that carries one: a
 *    handled row stays while its multiplier pushes (mu_k > 0); an ignored
 *    row joins once violated (g_k(q+) < 0).  At the first step, or after a
 *    reset, the set holds every active row.
 *
 * Each sub-step's end that is not the step's end is reported to the
 * stepper's sub-step observer (cdyn_substep_reached), so that a check of
 * the motion can follow the step's path q(0), the cuts, q(h).
 *
 * A step makes at most max_substeps sub-steps; past that the rest of the
 * step is taken without event location and the step returns CDYN_NOCONV
 * (a chattering contact: a ball bouncing to rest with e < 1 makes
 * infinitely many events in finite time).  The multipliers of the last
 * acceleration solve are kept in the library's convention, lambda = -mu:
 * they belong to the start of the last sub-step, the start of the step
 * when it was not cut (lambda_time).  An impulse at contact is not in
 * them.
 *
 * History: Platt's carried set, per row.  When the constraint set
 * changes, a row that stays keeps its flag (cdyn_set_change.from) and a
 * new row takes the first-contact rule (handled when active) at its first
 * solve.  The per-step contact report is an operation of the scheme
 * (cdyn_stepper_contact_report).
 *
 * The contact problems' linear algebra (option subsolve).  dense: A is
 * assembled over every row of the system (cdyn_assemble),
 * the candidates' rows gathered into a dense n x n matrix, and the
 * algorithm's sub-systems A_SS mu_S = -b_S solved by LAPACK (Cholesky, or
 * minimum-norm least squares; lib/activeset/dense.c).  sparse: A over the
 * candidate rows alone is assembled in compressed rows from the rows'
 * Jacobian blocks,
 *   A_ab = sum over the particles p shared by rows a and b of w_p J_a,p . J_b,p,
 * in the order cdyn_assemble sums (so its entries are bitwise the dense
 * path's), the system's other rows never enter it (a heavy ball's
 * inactive ball-node rows, which share the ball's particle and make the
 * full A dense over them, among them), and the sub-systems are factored
 * by the stepper's linear solver (option solver; CHOLMOD when it is auto)
 * through lib/activeset/sparse.c: one symbolic analysis per pattern of
 * the candidates' A, a factorisation of A_S0S0 for a set S0 and Schur
 * complements for the rows the algorithm adds to it, rank-deficient sets
 * to the dense path.  The results agree with the dense ones to rounding;
 * a run with subsolve=sparse is deterministic but not bitwise a dense
 * run.  auto (the default): the dense path while the system has at
 * most AUTO_DENSE_ROWS = 128 rows, the sparse one above, chosen at the
 * start of each step.  The dense path holds A over all m rows of the
 * system (m^2 memory) and pays a cube of the handled rows per
 * factorisation, so it cannot serve a cloth or a long chain (a chain of
 * 1000 links spends most of its step in LAPACK).  Up to 128 rows that
 * is at most about 0.7 Mflop and 128 KiB.  Where the rows couple few
 * others (a chain) the sparse path is faster from a few dozen rows;
 * where they couple many (003's billiard: 77 rows, each ball in a dozen
 * of them) the two cost about the same, and 003's examples keep the
 * dense path they were measured with, bitwise as before. The stepper's statistics count the sparse path's sub-solves
 * (solves), factorisations and analyses, and both paths' time (assembly:
 * A for the contact problems; solve: the active-set solves, factor: the
 * sparse setups among them).
 *
 * Pinned particles, eliminated (subsolve = sparse; derived here).  Every
 * row through a particle p couples, in A, with every other row through
 * it: a pinned ball under a cloth makes A dense over its ball-node rows
 * (at 64 x 64, 343 candidate rows and 343^2 entries), and each
 * factorisation then costs as a dense one.  When p is held by a pin
 * among the candidates (its three equality rows E, J_E = I on p,
 * A_EE = w_p I, A_rE = w_p J_r,p^T), the rows E are eliminated exactly
 * (block Gaussian elimination, the Schur complement of A_EE):
 *   A'_rc = A_rc - A_rE A_EE^-1 A_Ec = A_rc - w_p J_r,p . J_c,p,
 *   b'_r  = b_r - A_rE A_EE^-1 b_E   = b_r - J_r,p . b_E,
 * that is, A over the other rows without p's contributions (p is
 * assembled as if immovable) and b corrected by the pin's own
 * acceleration target.  The reduced problem has the same inequality
 * rows, equality rows and complementarity conditions, so any of its
 * solutions is one of the whole problem with
 *   mu_E = -A_EE^-1 (b_E + A_Er mu_r) = -b_E / w_p - sum_r J_r,p^T mu_r
 * (and w_E = 0: the pin holds).  The algorithm, its warm start and the
 * verification of an exact answer see the reduced problem (its sign
 * tolerances from its own b); the report counts the pin rows among the
 * candidates and the handled rows.  The first pin of a particle is
 * eliminated; a second one stays, reduced (its row then has A' = 0 and
 * b' the difference of the two pins' targets, so an inconsistent pair is
 * still reported as one).  The dense path keeps the problem whole.
 *
 * Inconsistent constraints are detected only at the acceleration level:
 * equality rows whose accelerations cannot all hold with the rows handled
 * with them fail the step with CDYN_EINFEASIBLE.  Positions that cannot
 * all satisfy Phi(q) = 0 (a particle pinned at two points) with
 * consistent acceleration rows are not: the step returns success.
 * newton, shake and rattle report those (CDYN_EINFEASIBLE).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "activeset/activeset.h"
#include "core/internal.h"

static const char *const algorithms[] = {
#define CDYN_ACTIVESET(id, file) #id,
#include "activeset/activesets.def"
#undef CDYN_ACTIVESET
  NULL};

typedef struct {
  int algorithm;       /* index into cdyn_activeset_types */
  double tau;          /* Baumgarte time constant; 0: off */
  double restitution;  /* e in [0, 1] */
  int impulses;        /* take the impulse step of an impact */
  int events;          /* locate activations */
  double active_tol;   /* g <= active_tol: active */
  double event_tol;    /* located g in [0, event_tol] */
  double impact_tol;   /* gdot < -impact_tol: an impact */
  double sign_tol;     /* relative sign tolerance of the solves */
  long max_substeps;
  int subsolve;        /* SUB_DENSE, SUB_SPARSE or SUB_AUTO */
  int warm;            /* start an algorithm that takes a guess from the last clamped set */
} opts;

enum { SUB_DENSE, SUB_SPARSE, SUB_AUTO };
static const char *const subsolves[] = {"dense", "sparse", "auto", NULL};

/* subsolve = auto: the dense path for a system of at most AUTO_DENSE_ROWS
   rows, the sparse one above (see the header). */
#define AUTO_DENSE_ROWS 128

static const cdyn_option options[] = {
  {"activeset", CDYN_OPT_CHOICE, offsetof(opts, algorithm), "iterative", 0, 0, algorithms,
   "active-set algorithm (platt, tendency, iterative, lcp)"},
  {"tau", CDYN_OPT_DOUBLE, offsetof(opts, tau), "0", 0, 1e300, NULL,
   "Baumgarte time constant of 003 eq 5 in seconds (0: no stabilisation)"},
  {"restitution", CDYN_OPT_DOUBLE, offsetof(opts, restitution), "0", 0, 1, NULL,
   "coefficient of restitution e of the impulse step, in [0, 1]"},
  {"impulses", CDYN_OPT_BOOL, offsetof(opts, impulses), "on", 0, 0, NULL,
   "take the impulse step when an active row approaches (off: acceleration level only, as 003)"},
  {"events", CDYN_OPT_BOOL, offsetof(opts, events), "on", 0, 0, NULL,
   "cut the step at the first activation of an inequality row"},
  {"active_tol", CDYN_OPT_DOUBLE, offsetof(opts, active_tol), "1e-8", 0, 1e300, NULL,
   "an inequality row with g <= active_tol is active (units of g)"},
  {"event_tol", CDYN_OPT_DOUBLE, offsetof(opts, event_tol), "1e-10", 0, 1e300, NULL,
   "a located activation leaves 0 <= g <= event_tol; must be below active_tol"},
  {"impact_tol", CDYN_OPT_DOUBLE, offsetof(opts, impact_tol), "1e-8", 0, 1e300, NULL,
   "an active row approaching faster than this (units of g per second) is an impact"},
  {"sign_tol", CDYN_OPT_DOUBLE, offsetof(opts, sign_tol), "1e-9", 1e-16, 1e-3, NULL,
   "relative tolerance of the sign tests on w and mu (cdyn_activeset_solve's rel_tol)"},
  {"max_substeps", CDYN_OPT_INT, offsetof(opts, max_substeps), "64", 1, 1e6, NULL,
   "sub-steps per step before event location is abandoned for the rest of it"},
  {"subsolve", CDYN_OPT_CHOICE, offsetof(opts, subsolve), "auto", 0, 0, subsolves,
   "the contact problems' sub-systems: dense (LAPACK on the candidates' dense A), sparse (the stepper's "
   "linear solver, CHOLMOD for auto, on their sparse A), or auto (dense up to 128 rows in the system, sparse above)"},
  {"warm", CDYN_OPT_BOOL, offsetof(opts, warm), "on", 0, 0, NULL,
   "start each acceleration solve from the inequality rows the last one clamped, carried across changes of the "
   "constraint set (algorithms that take a guess: lcp; the answer is the same to rounding)"},
  CDYN_OPTIONS_END};

/* subsolve = sparse: A over the candidate rows in compressed rows (both
   triangles, the diagonal first in each row), built from the rows'
   Jacobian blocks; the pattern is built into the second buffer and kept
   when it differs from the one in use. */
typedef struct {
  int *rowptr, *col;     /* the pattern in use (mcap + 1, nnz_cap) */
  int *rowptr2, *col2;   /* the one being built */
  double *val, *prev;    /* nnz_cap: the values, and the last ones (to compare) */
  size_t nnz, nnz_cap;
  size_t *deg;           /* n + 1: candidate rows per particle, then their start */
  size_t *lrow;          /* mcap * CDYN_MAX_PARTICLES: candidates by particle */
  unsigned *lslot;       /* the same: the particle's slot within the row */
  size_t *mark, *colpos; /* mcap: stamps and positions of a row's columns */
  size_t stamp;
  cdyn_as_sparse view;   /* what the active-set layer reads */
  cdyn_as_sparse_counts seen; /* the sparse solver's counts already added to the stepper's */
  const cdyn_solver_type *type; /* the solver attached to the workspace */
} cand_sparse;

typedef struct {
  cdyn_as_ws ws;
  size_t *cand;          /* m: candidate rows of the current problem */
  long *pos;             /* m: position of a row among the candidates, or -1 */
  double *Ad;            /* m*m: dense A over the candidates */
  double *b, *mu, *w;    /* m: over the candidates */
  unsigned char *eq, *prev, *hand; /* m: over the candidates */
  double *mufull;        /* m: mu by row */
  unsigned char *handled;/* m: the handled set of the last acceleration solve, by row */
  unsigned char *platt;  /* m: the set an algorithm carries, by row */
  unsigned char *known;  /* m: platt[r] holds a carried value */
  unsigned char *guess;  /* m: the inequality rows the last acceleration solve clamped, by row (warm) */
  double *g0;            /* m: g at the sub-step's start */
  double *ja, *jv, *p;   /* m: J qdd, J v, an impulse by row */
  double *qdd, *jt, *qt; /* 3n: acceleration, J^T x, a point on the path */
  cdyn_contact_report report;
  int sparse;            /* the path of the step being taken: the sparse one (option subsolve) */
  cand_sparse sp;
  /* subsolve = sparse: the pinned particles eliminated (see the header) */
  long *pinat;           /* n: candidate index of the particle's eliminated pin's first row, or -1 */
  size_t *pinned, npinned; /* n: those particles */
  long *rmap;            /* m: a candidate's place in the reduced problem, or -1 (a pin row) */
  size_t *cand2, nc2;    /* m: the reduced problem's candidate rows; nc2 = 0: not reduced */
  double *b2, *mu2, *w2; /* m each */
  unsigned char *eq2, *prev2, *hand2; /* m each */
} state;

static void sfree(void *p)
{
  state *s = p;
  if (!s)
    return;
  cdyn_as_ws_free(&s->ws);
  free(s->cand);
  free(s->pos);
  free(s->Ad);
  free(s->b);
  free(s->eq);
  free(s->prev);
  free(s->hand);
  free(s->handled);
  free(s->platt);
  free(s->known);
  free(s->guess);
  free(s->pinat);
  free(s->pinned);
  free(s->rmap);
  free(s->cand2);
  free(s->b2);
  free(s->eq2);
  free(s->sp.rowptr);
  free(s->sp.col);
  free(s->sp.rowptr2);
  free(s->sp.col2);
  free(s->sp.val);
  free(s->sp.prev);
  free(s->sp.deg);
  free(s->sp.lrow);
  free(s->sp.lslot);
  free(s->sp.mark);
  free(s->sp.colpos);
  free(s);
}

/* The dense capacity of the sub-solves' workspace on the sparse path
   (its dense fallback takes sets of up to 1024 rows: sparse.c). */
#define DENSE_ROWS 1024

/* Initial room for the candidates' entries, per row (more is allocated
   when a pattern needs it, and counted as the stepper's pattern growth). */
#define NNZ_PER_ROW 32

static int alloc(void **out, size_t n, size_t m)
{
  state *s = calloc(1, sizeof *s);
  *out = s;
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "contact: out of memory");
  size_t mm = m ? m : 1;
  if (mm > 65536)
    return cdyn_error(CDYN_EINVAL, "contact: %zu constraint rows is beyond the dense contact solve's limit", m);
  s->cand = calloc(mm, sizeof *s->cand);
  s->pos = calloc(mm, sizeof *s->pos);
  /* Ad (m x m) and the workspace's dense capacity beyond DENSE_ROWS are
     the dense path's, made at its first step (ensure_dense). */
  /* b, mu, w, mufull, g0, ja, jv, p (m each) and qdd, jt, qt (3n each) */
  s->b = calloc(8 * mm + 9 * n, sizeof(double));
  s->eq = calloc(mm, 1);
  s->prev = calloc(mm, 1);
  s->hand = calloc(mm, 1);
  s->handled = calloc(mm, 1);
  s->platt = calloc(mm, 1);
  s->known = calloc(mm, 1);
  s->guess = calloc(mm, 1);
  s->pinat = malloc(n * sizeof *s->pinat);
  s->pinned = malloc(n * sizeof *s->pinned);
  s->rmap = malloc(mm * sizeof *s->rmap);
  s->cand2 = malloc(mm * sizeof *s->cand2);
  s->b2 = calloc(3 * mm, sizeof(double));
  s->eq2 = calloc(3 * mm, 1);
  cand_sparse *sp = &s->sp;
  sp->nnz_cap = NNZ_PER_ROW * mm;
  sp->rowptr = malloc((mm + 1) * sizeof(int));
  sp->rowptr2 = malloc((mm + 1) * sizeof(int));
  sp->col = malloc(sp->nnz_cap * sizeof(int));
  sp->col2 = malloc(sp->nnz_cap * sizeof(int));
  sp->val = malloc(sp->nnz_cap * sizeof(double));
  sp->prev = malloc(sp->nnz_cap * sizeof(double));
  sp->deg = calloc(n + 1, sizeof(size_t));
  sp->lrow = malloc(mm * CDYN_MAX_PARTICLES * sizeof(size_t));
  sp->lslot = malloc(mm * CDYN_MAX_PARTICLES * sizeof(unsigned));
  sp->mark = calloc(mm, sizeof(size_t));
  sp->colpos = malloc(mm * sizeof(size_t));
  if (!s->cand || !s->pos || !s->b || !s->eq || !s->prev || !s->hand || !s->handled || !s->platt ||
      !s->known || !s->guess || !s->pinat || !s->pinned || !s->rmap || !s->cand2 || !s->b2 || !s->eq2 || !sp->rowptr || !sp->rowptr2 || !sp->col || !sp->col2 || !sp->val || !sp->prev || !sp->deg ||
      !sp->lrow || !sp->lslot || !sp->mark || !sp->colpos)
    return cdyn_error(CDYN_ENOMEM, "contact: out of memory for %zu rows", m);
  s->mu = s->b + mm;
  s->w = s->mu + mm;
  s->mufull = s->w + mm;
  s->g0 = s->mufull + mm;
  s->ja = s->g0 + mm;
  s->jv = s->ja + mm;
  s->p = s->jv + mm;
  s->qdd = s->p + mm;
  s->jt = s->qdd + 3 * n;
  s->qt = s->jt + 3 * n;
  for (size_t r = 0; r < m; r++)
    s->pos[r] = -1;
  s->mu2 = s->b2 + mm;
  s->w2 = s->mu2 + mm;
  s->prev2 = s->eq2 + mm;
  s->hand2 = s->prev2 + mm;
  for (size_t i = 0; i < n; i++)
    s->pinat[i] = -1;
  return cdyn_as_ws_alloc_rows(&s->ws, m, m < DENSE_ROWS ? m : DENSE_ROWS);
}

/* The dense path's storage, quadratic in the rows: A over the candidates
   and the workspace's dense sub-solves for every row.  Made at the first
   step that takes the dense path (an allocation, counted as the
   stepper's growth), so that a stepper on the sparse path holds memory
   linear in its rows. */
static int ensure_dense(cdyn_stepper *st, state *s)
{
  if (s->Ad)
    return CDYN_OK;
  size_t m = s->ws.cap, mm = m ? m : 1;
  s->Ad = calloc(mm * mm, sizeof(double));
  if (!s->Ad)
    return cdyn_error(CDYN_ENOMEM, "contact: out of memory for the dense A over %zu rows", m);
  if (s->ws.dcap < m) {
    cdyn_as_ws_free(&s->ws);
    int rc = cdyn_as_ws_alloc(&s->ws, m);
    if (rc)
      return rc;
    s->sp.type = NULL; /* the sparse solver is attached again when asked for */
  }
  st->stats.reallocations++;
  return CDYN_OK;
}

static void reset(void *p)
{
  state *s = p;
  memset(s->known, 0, s->ws.cap ? s->ws.cap : 1);
  memset(s->guess, 0, s->ws.cap ? s->ws.cap : 1);
}

static void changed(void *p, const cdyn_stepper *st, const cdyn_set_change *c)
{
  state *s = p;
  size_t m = cdyn_stepper_data(st)->m;
  /* Move the carried flags to the rows' new places, through the candidate
     flags (free between solves) as scratch. */
  for (size_t r = 0; r < m; r++) {
    s->eq[r] = c->from[r] >= 0 ? s->platt[c->from[r]] : 0;
    s->prev[r] = c->from[r] >= 0 ? s->known[c->from[r]] : 0;
    s->hand[r] = c->from[r] >= 0 ? s->guess[c->from[r]] : 0;
  }
  memcpy(s->platt, s->eq, m);
  memcpy(s->known, s->prev, m);
  memcpy(s->guess, s->hand, m);
  memset(s->handled, 0, m);
}

static int contact_report(const void *p, cdyn_contact_report *rep)
{
  *rep = ((const state *)p)->report;
  return CDYN_OK;
}

static int handled(const void *p, size_t m, unsigned char *out)
{
  if (m)
    memcpy(out, ((const state *)p)->handled, m);
  return CDYN_OK;
}

/* Dense A over the candidates, from the assembled sparse A = J W J^T. */
static void gather_dense(cdyn_stepper *st, state *s, size_t nc)
{
  const int *rp = st->A.rowptr, *col = st->A.col;
  memset(s->Ad, 0, nc * nc * sizeof(double));
  for (size_t a = 0; a < nc; a++) {
    size_t r = s->cand[a];
    for (int k = rp[r]; k < rp[r + 1]; k++) {
      long c = s->pos[col[k]];
      if (c >= 0)
        s->Ad[a * nc + (size_t)c] = st->val[k];
    }
  }
}

/* ---- subsolve = sparse: A over the candidates ------------------------------------- */

/* Room for nnz entries of the candidates' A, here and in the active-set
   workspace's copy (allocates: counted as the stepper's pattern growth). */
static int grow_sparse(cdyn_stepper *st, state *s, size_t nnz)
{
  cand_sparse *sp = &s->sp;
  if (nnz > sp->nnz_cap) {
    size_t want = nnz > 2 * sp->nnz_cap ? nnz : 2 * sp->nnz_cap;
    int *c1 = realloc(sp->col, want * sizeof(int));
    if (c1)
      sp->col = c1;
    int *c2 = c1 ? realloc(sp->col2, want * sizeof(int)) : NULL;
    if (c2)
      sp->col2 = c2;
    double *v1 = c2 ? realloc(sp->val, want * sizeof(double)) : NULL;
    if (v1)
      sp->val = v1;
    double *v2 = v1 ? realloc(sp->prev, want * sizeof(double)) : NULL;
    if (!v2)
      return cdyn_error(CDYN_ENOMEM, "contact: out of memory for %zu entries of A", want);
    sp->prev = v2;
    sp->nnz_cap = want;
    /* The pattern in use moved: it is one the solvers have not seen. */
    sp->nnz = 0;
    st->stats.reallocations++;
  }
  return cdyn_as_ws_sparse_reserve(&s->ws, sp->nnz_cap);
}

/* The candidates' pattern: counted (col NULL) or written; each row its
   diagonal first, then the candidates sharing a particle with it, in the
   order of the stepper's pattern (lib/core/pattern.c). */
static size_t walk_candidates(const cdyn_stepper *st, state *s, const size_t *cand, size_t nc, int *rowptr,
                              int *col)
{
  cand_sparse *sp = &s->sp;
  size_t nnz = 0;
  for (size_t a = 0; a < nc; a++) {
    size_t stamp = ++sp->stamp;
    if (col) {
      rowptr[a] = (int)nnz;
      col[nnz] = (int)a;
    }
    sp->mark[a] = stamp;
    nnz++;
    size_t ps[CDYN_MAX_PARTICLES];
    unsigned np = cdyn_row_particles_sorted(st, cand[a], ps);
    for (unsigned k = 0; k < np; k++)
      for (size_t i = sp->deg[ps[k]]; i < sp->deg[ps[k] + 1]; i++) {
        size_t b = sp->lrow[i];
        if (sp->mark[b] == stamp)
          continue;
        sp->mark[b] = stamp;
        if (col)
          col[nnz] = (int)b;
        nnz++;
      }
  }
  if (col)
    rowptr[nc] = (int)nnz;
  return nnz;
}

/*
 * A = J W J^T over the nc candidates into s->sp: the candidates by
 * particle, the pattern (kept, with its stamp, when it is the last one),
 * then the values, summed particle by particle in the order of
 * cdyn_assemble's contributions, so that every entry is bitwise the one
 * the stepper's A holds.  The values' stamp moves only when a value
 * changed (the impulse's problem and the acceleration's of one sub-step
 * share A, and the sparse factor with it).
 */
static int assemble_candidates(cdyn_stepper *st, state *s, const size_t *cand, size_t nc)
{
  cand_sparse *sp = &s->sp;
  double t0 = cdyn_clock();
  size_t n = st->n, *deg = sp->deg;
  const double *w = st->sys->winv;
  memset(deg, 0, (n + 1) * sizeof *deg);
  /* A pinned particle eliminated (pinat >= 0) is in no row's list: it
     couples no two rows, and adds nothing to a diagonal. */
  for (size_t a = 0; a < nc; a++) {
    size_t r = cand[a];
    for (unsigned k = 0; k < st->rownp[r]; k++) {
      size_t p = st->rowpart[r * CDYN_MAX_PARTICLES + k];
      if (s->pinat[p] < 0)
        deg[p + 1]++;
    }
  }
  for (size_t p = 0; p < n; p++)
    deg[p + 1] += deg[p];
  for (size_t a = 0; a < nc; a++) {
    size_t r = cand[a];
    for (unsigned k = 0; k < st->rownp[r]; k++) {
      size_t p = st->rowpart[r * CDYN_MAX_PARTICLES + k];
      if (s->pinat[p] >= 0)
        continue;
      sp->lrow[deg[p]] = a;
      sp->lslot[deg[p]] = k;
      deg[p]++;
    }
  }
  for (size_t p = n; p > 0; p--)
    deg[p] = deg[p - 1];
  deg[0] = 0;
  size_t nnz = walk_candidates(st, s, cand, nc, NULL, NULL);
  int rc;
  if (nnz > sp->nnz_cap && (rc = grow_sparse(st, s, nnz)))
    return rc;
  walk_candidates(st, s, cand, nc, sp->rowptr2, sp->col2);
  int same = sp->view.pattern && sp->nnz && nc == sp->view.n && nnz == sp->nnz &&
             !memcmp(sp->rowptr, sp->rowptr2, (nc + 1) * sizeof(int)) &&
             !memcmp(sp->col, sp->col2, nnz * sizeof(int));
  if (!same) {
    int *t = sp->rowptr;
    sp->rowptr = sp->rowptr2;
    sp->rowptr2 = t;
    t = sp->col;
    sp->col = sp->col2;
    sp->col2 = t;
    sp->view.pattern++;
  }
  sp->nnz = nnz;
  if (same)
    memcpy(sp->prev, sp->val, nnz * sizeof(double));
  memset(sp->val, 0, nnz * sizeof(double));
  for (size_t p = 0; p < n; p++)
    for (size_t i = deg[p]; i < deg[p + 1]; i++) {
      size_t a = sp->lrow[i];
      for (int q = sp->rowptr[a]; q < sp->rowptr[a + 1]; q++)
        sp->colpos[sp->col[q]] = (size_t)q;
      const double *ja = st->rows[cand[a]].jac[sp->lslot[i]];
      for (size_t j = deg[p]; j < deg[p + 1]; j++) {
        const double *jb = st->rows[cand[sp->lrow[j]]].jac[sp->lslot[j]];
        sp->val[sp->colpos[sp->lrow[j]]] += w[p] * (ja[0] * jb[0] + ja[1] * jb[1] + ja[2] * jb[2]);
      }
    }
  if (!same || memcmp(sp->val, sp->prev, nnz * sizeof(double)))
    sp->view.values++;
  sp->view.n = nc;
  sp->view.nnz = nnz;
  sp->view.rowptr = sp->rowptr;
  sp->view.col = sp->col;
  sp->view.val = sp->val;
  st->stats.assemblies++;
  st->stats.time_assembly += cdyn_clock() - t0;
  return CDYN_OK;
}

/* The stepper's linear solver (CHOLMOD when it is auto) for the sparse
   sub-solves; allocates when it is new (counted as an analysis, as
   Baraff-Witkin counts its own solver's pattern). */
static int attach_sparse(cdyn_stepper *st, state *s)
{
  const cdyn_solver_type *type;
  const void *sopts;
  int rc = cdyn_stepper_solver(st, &type, &sopts, NULL);
  if (rc)
    return rc;
  if (!type) {
    if ((rc = cdyn_solver_type_find("cholmod", &type)))
      return rc;
    sopts = NULL; /* its defaults: simplicial, a factorisation per setup */
  }
  if ((rc = cdyn_as_ws_sparse(&s->ws, type, sopts, s->sp.nnz_cap)))
    return cdyn_error(rc, "contact: subsolve=sparse: %s", cdyn_errmsg());
  if (type != s->sp.type) {
    /* A new solver, with counts of its own. */
    s->sp.type = type;
    memset(&s->sp.seen, 0, sizeof s->sp.seen);
    st->stats.analyses++;
  }
  return CDYN_OK;
}

/* The contact problem's time and, for the sparse path, its sub-solves
   and the sparse solver's counts into the stepper's statistics (the
   dense path's solves are not counted there, as they were not before). */
static void account(cdyn_stepper *st, state *s, const cdyn_activeset_report *r, double seconds)
{
  if (!s->sparse) {
    st->stats.time_solve += seconds;
    return;
  }
  cdyn_as_sparse_counts c;
  cdyn_as_ws_sparse_counts(&s->ws, &c);
  double tf = c.time_factor - s->sp.seen.time_factor;
  st->stats.factorizations += c.factorizations - s->sp.seen.factorizations;
  st->stats.analyses += c.analyses - s->sp.seen.analyses;
  st->stats.time_factor += tf;
  st->stats.time_solve += seconds - tf;
  st->stats.solves += r->solves;
  s->sp.seen = c;
}

static void merge_report(cdyn_contact_report *rep, const cdyn_activeset_report *r)
{
  if (r->solves > rep->max_solves)
    rep->max_solves = r->solves;
  if (r->solves > r->inequalities && r->solves - r->inequalities > rep->max_excess)
    rep->max_excess = r->solves - r->inequalities;
  rep->pulls |= r->pulls;
  rep->violates |= r->violates;
}

/*
 * The pinned particles' elimination (subsolve = sparse; see the header):
 * marks each particle held by a pin among the nc candidates (its three
 * equality rows, the first pin met), and builds the reduced problem's
 * candidates, b, eq and prev flags without those rows,
 *   b'_r = b_r - sum over the row's pinned particles p of J_r,p . b_E(p).
 * Returns the number of particles eliminated (0: the problem is solved
 * as it is).
 */
static size_t eliminate_pins(cdyn_stepper *st, state *s, size_t nc)
{
  const cdyn_system *sys = st->sys;
  const unsigned char *ineq = st->d.inequality;
  for (size_t k = 0; k < s->npinned; k++)
    s->pinat[s->pinned[k]] = -1;
  s->nc2 = 0;
  s->npinned = 0;
  for (size_t a = 0; a + 2 < nc; a++) {
    size_t r = s->cand[a], c = st->rowcon[r];
    const cdyn_constraint *con = &sys->cons[c];
    if (ineq[r] || con->type != &cdyn_ctype_pin || st->con_row0[c] != r || s->cand[a + 1] != r + 1 ||
        s->cand[a + 2] != r + 2)
      continue;
    size_t p = con->p[0];
    if (s->pinat[p] >= 0)
      continue; /* pinned twice: the second pin's rows stay, reduced */
    s->pinat[p] = (long)a;
    s->pinned[s->npinned++] = p;
  }
  if (!s->npinned)
    return 0;
  for (size_t a = 0; a < nc; a++)
    s->rmap[a] = 0;
  for (size_t k = 0; k < s->npinned; k++) {
    size_t a = (size_t)s->pinat[s->pinned[k]];
    s->rmap[a] = s->rmap[a + 1] = s->rmap[a + 2] = -1;
  }
  size_t a2 = 0;
  for (size_t a = 0; a < nc; a++) {
    if (s->rmap[a] < 0)
      continue;
    size_t r = s->cand[a];
    double b = s->b[a];
    for (unsigned k = 0; k < st->rownp[r]; k++) {
      long e = s->pinat[st->rowpart[r * CDYN_MAX_PARTICLES + k]];
      if (e >= 0) {
        const double *j = st->rows[r].jac[k], *be = s->b + e;
        b -= j[0] * be[0] + j[1] * be[1] + j[2] * be[2];
      }
    }
    s->rmap[a] = (long)a2;
    s->cand2[a2] = r;
    s->b2[a2] = b;
    s->eq2[a2] = s->eq[a];
    s->prev2[a2] = s->prev[a];
    a2++;
  }
  s->nc2 = a2;
  return s->npinned;
}

/* The full problem's mu, w and handled from the reduced one's: a pin row
   of particle p gets, per axis, mu_E = -b_E / w_p - sum over the reduced
   rows r through p of (J_r,p^T mu_r), w_E = 0, handled. */
static void restore_pins(cdyn_stepper *st, state *s, size_t nc)
{
  const double *wp = st->sys->winv;
  for (size_t a = 0; a < nc; a++) {
    long a2 = s->rmap[a];
    if (a2 < 0) {
      s->mu[a] = 0;
      continue;
    }
    s->mu[a] = s->mu2[a2];
    s->w[a] = s->w2[a2];
    s->hand[a] = s->hand2[a2];
  }
  for (size_t a = 0; a < nc; a++) {
    if (s->rmap[a] < 0)
      continue;
    size_t r = s->cand[a];
    for (unsigned k = 0; k < st->rownp[r]; k++) {
      long e = s->pinat[st->rowpart[r * CDYN_MAX_PARTICLES + k]];
      if (e >= 0)
        for (int d = 0; d < 3; d++)
          s->mu[e + d] -= st->rows[r].jac[k][d] * s->mu[a];
    }
  }
  for (size_t k = 0; k < s->npinned; k++) {
    size_t p = s->pinned[k], e = (size_t)s->pinat[p];
    for (int d = 0; d < 3; d++) {
      s->mu[e + d] -= s->b[e + d] / wp[p];
      s->w[e + d] = 0;
      s->hand[e + d] = 1;
    }
  }
}

/* A over the nc candidates: gathered dense from the stepper's A, or
   assembled sparse. */
static int form_problem(cdyn_stepper *st, state *s, size_t nc)
{
  if (s->sparse) {
    if (eliminate_pins(st, s, nc))
      return assemble_candidates(st, s, s->cand2, s->nc2);
    return assemble_candidates(st, s, s->cand, nc);
  }
  double t0 = cdyn_clock();
  gather_dense(st, s, nc);
  st->stats.time_assembly += cdyn_clock() - t0;
  return CDYN_OK;
}

/* Solve the contact problem over the nc candidates (A, b, eq, prev set);
   guess: prev is also a guess for an algorithm that takes one (warm). */
static int solve_problem(cdyn_stepper *st, state *s, const opts *o, size_t nc, int guess,
                         cdyn_activeset_report *r)
{
  const cdyn_activeset_type *type = cdyn_activeset_types[o->algorithm];
  int sparse = s->sparse;
  int prev = type->carries_set || (guess && type->warm_starts);
  int red = sparse && s->npinned;
  cdyn_as_problem p = {.n = red ? s->nc2 : nc, .A = sparse ? NULL : s->Ad, .sp = sparse ? &s->sp.view : NULL,
                       .b = red ? s->b2 : s->b, .equality = red ? s->eq2 : s->eq,
                       .prev = prev ? (red ? s->prev2 : s->prev) : NULL, .rank_tol = st->common.rank_tol};
  double *mu = red ? s->mu2 : s->mu, *w = red ? s->w2 : s->w;
  unsigned char *hand = red ? s->hand2 : s->hand;
  cdyn_as_tolerances(&p, o->sign_tol);
  memset(r, 0, sizeof *r);
  int rc;
  if (sparse && (rc = cdyn_as_ws_bind(&s->ws, &p)))
    return rc;
  double t0 = cdyn_clock();
  rc = type->solve(&s->ws, &p, mu, w, hand, r);
  account(st, s, r, cdyn_clock() - t0);
  if (rc < 0)
    return rc;
  /* An inconsistent set of equality rows (one that cannot hold with the
     rows handled with it) is an error of the model, not a contact; an
     exact algorithm's answer that fails its verification
     (CDYN_EUNVERIFIED) fails the step, which then restores the state.  A
     recoverable status of the solve (lcp's CDYN_NOCONV: a row at zero to
     the rounding of nearly dependent rows) has passed that verification,
     and the step goes on with it. */
  unsigned solves = r->solves;
  t0 = cdyn_clock();
  rc = cdyn_as_conclude(type, &s->ws, &p, rc, mu, w, hand, r);
  if (r->solves > solves) {
    /* A second solve after a refusal (cdyn_as_conclude): its work and
       time (with the verifications') are the stepper's too. */
    cdyn_activeset_report extra = {0};
    extra.solves = r->solves - solves;
    account(st, s, &extra, cdyn_clock() - t0);
  }
  if (rc >= 0 && red) {
    /* The report counts the rows of the problem as posed. */
    restore_pins(st, s, nc);
    r->candidates += (unsigned)(3 * s->npinned);
    r->handled += (unsigned)(3 * s->npinned);
  }
  return rc > 0 ? CDYN_OK : rc;
}

static void clear_candidates(state *s, size_t nc)
{
  for (size_t a = 0; a < nc; a++)
    s->pos[s->cand[a]] = -1;
}

static void add_candidate(state *s, size_t r, size_t *nc)
{
  s->pos[r] = (long)*nc;
  s->cand[(*nc)++] = r;
}

/* The impulse of step 1; *did says whether there was one. */
static int impulse(cdyn_stepper *st, state *s, const opts *o, double *v, int *did)
{
  const unsigned char *ineq = st->d.inequality;
  size_t m = st->m, nc = 0;
  const double *w = st->sys->winv;
  const cdyn_activeset_type *type = cdyn_activeset_types[o->algorithm];
  *did = 0;
  double *jv = s->jv;
  cdyn_jmul(st, v, jv);
  int impact = 0;
  for (size_t r = 0; r < m && !impact; r++)
    impact = ineq[r] && st->rows[r].phi <= o->active_tol &&
             jv[r] + st->rows[r].phi_t < -o->impact_tol;
  if (!impact)
    return CDYN_OK;
  for (size_t r = 0; r < m; r++)
    if (!ineq[r] || st->rows[r].phi <= o->active_tol) {
      size_t a = nc;
      add_candidate(s, r, &nc);
      double gd = jv[r] + st->rows[r].phi_t; /* gdot = J v + Phi_t */
      s->eq[a] = !ineq[r];
      /* An impact is a first contact: Platt handles every row.  An
         algorithm that takes a guess starts from the last acceleration
         solve's clamped rows. */
      s->prev[a] = type->carries_set ? 1 : o->warm && s->guess[r];
      s->b[a] = gd + (ineq[r] && gd < -o->impact_tol ? o->restitution * gd : 0.0);
    }
  int rc = form_problem(st, s, nc);
  cdyn_activeset_report r;
  if (!rc)
    rc = solve_problem(st, s, o, nc, o->warm, &r);
  clear_candidates(s, nc);
  if (rc)
    return rc;
  double *p = s->p, *jt = s->jt;
  memset(p, 0, m * sizeof(double));
  for (size_t a = 0; a < nc; a++)
    p[s->cand[a]] = s->mu[a];
  cdyn_jtmul(st, p, jt);
  for (size_t i = 0; i < st->n; i++)
    for (int d = 0; d < 3; d++)
      v[3 * i + d] += w[i] * jt[3 * i + d];
  s->report.impulses++;
  s->report.impulse = r;
  merge_report(&s->report, &r);
  *did = 1;
  return CDYN_OK;
}

/* The constrained acceleration of step 2 into qdd. */
static int accel(cdyn_stepper *st, state *s, const opts *o, const double *q, const double *v,
                 double t, double *qdd)
{
  const unsigned char *ineq = st->d.inequality;
  size_t m = st->m, nc = 0;
  const double *w = st->sys->winv;
  int rc;
  if ((rc = cdyn_free_accel(st, q, v, t, qdd)))
    return rc;
  const cdyn_activeset_type *type = cdyn_activeset_types[o->algorithm];
  /* Rows without a carried value take Platt's rule at a first contact. */
  if (type->carries_set)
    for (size_t r = 0; r < m; r++)
      if (!s->known[r]) {
        s->platt[r] = ineq[r] && st->rows[r].phi <= o->active_tol;
        s->known[r] = 1;
      }
  for (size_t r = 0; r < m; r++)
    if (!ineq[r] || st->rows[r].phi <= o->active_tol || (type->carries_set && s->platt[r]))
      add_candidate(s, r, &nc);
  memset(s->mufull, 0, m * sizeof(double));
  memset(s->handled, 0, m);
  if (nc) {
    double *ja = s->ja, *jv = s->jv;
    cdyn_jmul(st, qdd, ja);
    cdyn_jmul(st, v, jv);
    double c1 = o->tau > 0 ? 2.0 / o->tau : 0.0, c0 = o->tau > 0 ? 1.0 / (o->tau * o->tau) : 0.0;
    for (size_t a = 0; a < nc; a++) {
      size_t r = s->cand[a];
      const cdyn_row *row = &st->rows[r];
      double g = ineq[r] ? fmin(row->phi, 0.0) : row->phi;
      double gd = jv[r] + row->phi_t;
      s->b[a] = ja[r] + row->jdotv + row->phi_tt + c1 * gd + c0 * g;
      s->eq[a] = !ineq[r];
      s->prev[a] = type->carries_set ? s->platt[r] : o->warm && s->guess[r];
    }
    cdyn_activeset_report r;
    if (!(rc = form_problem(st, s, nc)))
      rc = solve_problem(st, s, o, nc, o->warm, &r);
    if (rc) {
      clear_candidates(s, nc);
      return rc;
    }
    memset(s->guess, 0, m);
    for (size_t a = 0; a < nc; a++) {
      size_t r = s->cand[a];
      s->mufull[r] = s->mu[a];
      s->handled[r] = s->hand[a];
      s->guess[r] = ineq[r] && s->hand[a];
    }
    clear_candidates(s, nc);
    double *jt = s->jt;
    cdyn_jtmul(st, s->mufull, jt);
    for (size_t i = 0; i < st->n; i++)
      for (int d = 0; d < 3; d++)
        qdd[3 * i + d] += w[i] * jt[3 * i + d];
    s->report.accel_solves++;
    s->report.accel = r;
    merge_report(&s->report, &r);
  }
  for (size_t r = 0; r < m; r++)
    st->lambda[r] = -s->mufull[r];
  return CDYN_OK;
}

/* g of row r at q (one constraint's evaluation). */
static int row_value(cdyn_stepper *st, size_t r, const double *q, double t, double *g)
{
  cdyn_row rows[CDYN_MAX_ROWS];
  size_t first;
  int rc = cdyn_eval_constraint(st, r, q, NULL, t, rows, &first, NULL);
  if (rc)
    return rc;
  *g = rows[r - first].phi;
  return CDYN_OK;
}

/* The point at sg on the sub-step's path, of the particles of row r (all
   that its constraint's evaluation reads: cdyn_constraint_eval); the
   other entries of out are left as they are. */
static void path(const cdyn_stepper *st, size_t r, const double *q, const double *v, const double *a, double sg,
                 double *out)
{
  for (unsigned k = 0; k < st->rownp[r]; k++) {
    size_t i = 3 * st->rowpart[r * CDYN_MAX_PARTICLES + k];
    for (size_t c = i; c < i + 3; c++)
      out[c] = q[c] + sg * (v[c] + sg * a[c]);
  }
}

/* Earliest located activation in (0, s]; *sev = s when there is none. */
static int locate(cdyn_stepper *st, state *s, const opts *o, const double *q, const double *v,
                  const double *qdd, double t, double sub, double *sev)
{
  double *qt = s->qt;
  *sev = sub;
  int rc;
  for (size_t r = 0; r < st->m; r++) {
    if (!st->d.inequality[r] || !(s->g0[r] > o->active_tol))
      continue;
    double gend;
    path(st, r, q, v, qdd, sub, qt);
    if ((rc = row_value(st, r, qt, t + sub, &gend)))
      return rc;
    if (!(gend < 0))
      continue;
    double lo = 0, hi = sub;
    for (int it = 0; it < 200 && hi - lo > 1e-15 * sub; it++) {
      double mid = 0.5 * (lo + hi), gm;
      path(st, r, q, v, qdd, mid, qt);
      if ((rc = row_value(st, r, qt, t + mid, &gm)))
        return rc;
      if (gm < 0) {
        hi = mid;
      } else {
        lo = mid;
        if (gm <= o->event_tol)
          break;
      }
    }
    double at = lo > 0 ? lo : hi;
    if (at < *sev)
      *sev = at;
  }
  return CDYN_OK;
}

/* The set an algorithm carries (type->carries_set) at the end of a
   sub-step: an inequality row handled with mu > 0 at its acceleration
   solve, or with g < 0 at its end, g from st->rows (q NULL: the rows
   evaluated there) or from each row's value at (q, t). */
static int carry_set(cdyn_stepper *st, state *s, const double *q, double t)
{
  for (size_t r = 0; r < st->m; r++) {
    if (!st->d.inequality[r])
      continue;
    double g = st->rows[r].phi;
    int rc;
    if (q && (rc = row_value(st, r, q, t, &g)))
      return rc;
    s->platt[r] = (s->handled[r] && s->mufull[r] > 0) || g < 0;
  }
  return CDYN_OK;
}

static int step(cdyn_stepper *st, void *state_, double h)
{
  state *s = state_;
  const opts *o = st->opts;
  cdyn_system *sys = st->sys;
  size_t n3 = 3 * st->n, m = st->m;
  double *q = sys->q, *v = sys->v, t = sys->t;
  double *qdd = s->qdd;
  const cdyn_activeset_type *type = cdyn_activeset_types[o->algorithm];
  int rc;
  if (!(o->event_tol < o->active_tol) && o->events)
    return cdyn_error(CDYN_EINVAL, "contact: event_tol = %g must be below active_tol = %g", o->event_tol,
                      o->active_tol);
  memset(&s->report, 0, sizeof s->report);
  s->sparse = o->subsolve == SUB_SPARSE || (o->subsolve == SUB_AUTO && m > AUTO_DENSE_ROWS);
  if (s->sparse && m && (rc = attach_sparse(st, s)))
    return rc;
  if (!s->sparse && m && (rc = ensure_dense(st, s)))
    return rc;
  double left = h;
  int status = CDYN_OK, carry_due = 0;
  while (left > 0) {
    int locating = o->events && s->report.substeps < (unsigned long)o->max_substeps;
    if (o->events && !locating && status == CDYN_OK)
      status = cdyn_error(CDYN_NOCONV, "contact: %ld sub-steps in the step from t = %g; the rest of it "
                                       "was taken without event location",
                          o->max_substeps, sys->t);
    if (m) {
      if ((rc = cdyn_eval_rows(st, q, v, t)))
        return rc;
      if (carry_due)
        carry_set(st, s, NULL, t);
      carry_due = 0;
      /* The full A only for the dense path (its gather reads it). */
      if (!s->sparse && (rc = cdyn_assemble(st, sys->winv)))
        return rc;
      int did = 0;
      if (o->impulses && (rc = impulse(st, s, o, v, &did)))
        return rc;
      if (did && (rc = cdyn_eval_rows(st, q, v, t))) /* (Jdot v) changes with v */
        return rc;
      for (size_t r = 0; r < m; r++)
        s->g0[r] = st->rows[r].phi;
    }
    if ((rc = accel(st, s, o, q, v, t, qdd)))
      return rc;
    double sub = left;
    if (locating && m) {
      double sev;
      if ((rc = locate(st, s, o, q, v, qdd, t, left, &sev)))
        return rc;
      if (sev < left) {
        sub = sev;
        s->report.events++;
      }
    }
    for (size_t k = 0; k < n3; k++) {
      v[k] += sub * qdd[k];
      q[k] += sub * v[k];
    }
    t += sub;
    left = sub < left ? left - sub : 0;
    if (left <= 1e-14 * h)
      left = 0;
    s->report.substeps++;
    /* A cut inside the step: a corner of the step's path (the observer's;
       the step's end is the stepper's result). */
    if (left > 0 && (rc = cdyn_substep_reached(st, t, q)) < 0)
      return rc;
    /* The set carried to the next sub-step, from g at the sub-step's end:
       the next sub-step's rows (the same q and t) give it; after the
       last, each row's value. */
    if (type->carries_set && m) {
      if (left > 0)
        carry_due = 1;
      else if ((rc = carry_set(st, s, q, t)))
        return rc;
    }
  }
  return status;
}

const cdyn_scheme_type cdyn_scheme_contact = {
  .name = "contact",
  .description = "inequality and equality constraints by an active-set algorithm, with event location and impulses",
  .source = "003 eqs 5-7, Algorithms 1-3; Newton restitution",
  .order = 1,
  .lambda_order = 1,
  .lambda_time = CDYN_LAMBDA_START,
  .options = options,
  .options_size = sizeof(opts),
  .inequalities = 1,
  .alloc = alloc,
  .free = sfree,
  .step = step,
  .reset = reset,
  .changed = changed,
  .contact_report = contact_report,
  .handled = handled,
  .reads_A = 1,
};
