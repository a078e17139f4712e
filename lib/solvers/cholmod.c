/*
 * cholmod.c: sparse Cholesky solve of A x = b, A = J D J^T symmetric
 * positive semi-definite, with CHOLMOD (SuiteSparse; Chen, Davis, Hager,
 * Rajamanickam, ACM TOMS 35(3), 2008).
 *
 *   P A P^T = L L^T  (supernodal)  or  L D L^T  (simplicial),
 *   x = P^T L^-T L^-1 P b,
 * with P a fill-reducing ordering (AMD, postordered) of A's pattern.
 * The factorisation is simplicial by default (option cholmod_mode): on
 * the benchmark's grids, whose factors have too few dense columns for
 * BLAS-3 blocks to pay, CHOLMOD's own choice (auto: supernodal for the
 * 100 x 100 grid, 4.3e5 non-zeros in L, 2.5e7 flops) factors 3.6 times
 * slower than the simplicial one (44 ms against 12 ms; make bench,
 * floor-cholmod and floor-cholmod-simplicial).
 *
 * One analysis per pattern, none per step.  The symbolic analysis is done
 * when A->pattern changes and the new pattern has not been analysed
 * before (the solver keeps the last CACHE analyses, so a constraint set
 * that switches back and forth does not analyse again).  CHOLMOD's
 * numeric factorisation copies a permuted A on every call (and so
 * allocates) unless the factor's ordering is the natural one; so the
 * analysis is done twice: once on A to get P, then on the permuted
 * pattern P A P^T with the natural ordering.  Each step then scatters A's
 * values into P A P^T's storage through a precomputed map and factors it
 * in place: neither setup nor solve allocates once a pattern has been
 * seen (an analysis allocates the factor and CHOLMOD's solve workspace).
 * The exception is the supernodal mode: cholmod_super_numeric allocates
 * and frees its update workspace on every call (two allocations per
 * factorisation), and its BLAS-3 calls may allocate inside the BLAS
 * (OpenBLAS: hundreds a step, seen where aligned allocations are counted
 * too); the default simplicial mode allocates nothing (tests/test_alloc.c).
 *
 * The simplicial factorisation repeated by a schedule.  CHOLMOD's
 * simplicial LDL^T (cholmod_rowfac) is up-looking: row k of L solves
 *   L(0:k-1, 0:k-1) D y = A(0:k-1, k),  L(k, i) = y_i / d_i,
 *   d_k = A_kk - sum_i L(k, i) y_i,
 * visiting the entries i of row k in the order in which its search of
 * the elimination tree finds them (the paths from the entries of column
 * k of A, each in front of the earlier ones), and it searches again at
 * every factorisation.  The schedule records that order (rowfac_schedule)
 * and, after a factorisation by CHOLMOD, where each entry lands in L; the
 * later factorisations then do the same operations
 * in the same order on the same storage, reading A's values in place
 * (without the scatter into P A P^T), so that L and D are bit for bit
 * CHOLMOD's, in about half its time on a chain's KKT matrix.  A zero
 * pivot hands the factorisation back to CHOLMOD, which reports it as
 * before.  Supernodal factors do not use the schedule.  Recording the
 * order costs about as much as a factorisation, and a pattern factored
 * once (a contact set that changes every step) never uses it: the
 * analysis only sizes its arrays (the rows of L are counted by the
 * symbolic factor's column counts), the order is recorded at the
 * pattern's second factorisation, which CHOLMOD still does, and the
 * third and later follow the schedule.  The results are the same bits
 * whichever factorises.
 *
 * Reuse (option cholmod_reuse_tol > 0; off by default).  A changes
 * little from one step to the next, so an earlier factor L L^T of A_f is
 * a good preconditioner for conjugate gradients on the current A:
 *   r_0 = b, x_0 = 0, z = (L L^T)^-1 r, p = z; CG iterations as pcg.c,
 * stopped at |A x - b| <= cholmod_reuse_tol |b|.  setup then factors only
 * when the pattern changed, when the last reused solve needed more than
 * half of cholmod_reuse_maxit iterations, or when A is singular; a solve that
 * does not reach the tolerance within cholmod_reuse_maxit iterations
 * factors the current A and solves with it, so every solve meets the
 * tolerance (or is exact).  The result then depends on when the factor
 * was made, which a fresh stepper would not share: the default keeps one
 * factorisation per setup.
 *
 * Singular A (redundant constraints).  A is taken as singular when the
 * factorisation meets a non-positive pivot (CHOLMOD_NOT_POSDEF) or a
 * pivot d_j (L_jj^2, or D_jj) below rank_tol * max_j A_jj: the test of
 * the dense solver (cholesky.c).  Then the factor is of A + delta I,
 * delta = sqrt(rank_tol) max_j A_jj, and x = A^+ b, the minimum-norm
 * least-squares solution, by the iteration of lsq.c (at most MAXREF
 * corrections, each two solves and a product with A).  The rank reported
 * is the number of pivots of A + delta I above 10 delta.
 *
 * ldlt: the same machinery for symmetric quasi-definite matrices,
 *   [ H   B^T ]
 *   [ B   -C  ],   H and C symmetric positive definite,
 * the Newton matrices of backward-euler and bdf2 (doc/large-steps.md).
 * Every symmetric permutation of a quasi-definite matrix has an LDL^T
 * factorisation with D of fixed signs, stable when H and C are not too
 * ill-conditioned (Vanderbei 1995, "Symmetric quasidefinite matrices",
 * SIAM J. Optim. 5(1)); CHOLMOD's simplicial LDL^T does not pivot and
 * takes negative pivots as they come, so it factors P A P^T for the AMD
 * ordering P of the pattern, as for cholmod.  The solver counts the
 * negative pivots (info->negative): by Sylvester's law of inertia, the
 * number of negative eigenvalues of A, which is the rows of C exactly
 * when H is positive definite on the null space of B (the test a Newton
 * method uses to detect a direction of negative curvature).  A pivot that
 * is zero or not finite is a singular matrix (CDYN_ESOLVE); a matrix with
 * no negative pivot and a pivot below rank_tol max_j A_jj is a singular
 * positive semi-definite one, and takes cholmod's least-squares path, so
 * that ldlt can stand in for cholmod on A = J D J^T.  ldlt is always
 * simplicial (the supernodal factorisation is LL^T only) and keeps one
 * factorisation per setup (no reuse).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#ifdef HAVE_SUITESPARSE_CHOLMOD_H
#include <suitesparse/cholmod.h>
#else
#include <cholmod.h>
#endif

#include "cdyn/error.h"
#include "cdyn/solver.h"
#include "solvers/lsq.h"

/* Patterns whose analyses are kept. */
#define CACHE 8
/* Corrections of the least-squares iteration. */
#define MAXREF 60

/* The analysis of one pattern. */
typedef struct {
  size_t m, nnz;
  int *rowptr, *col;     /* the pattern of A, as given (m + 1, nnz) */
  int *perm;             /* m: row i of P A P^T is row perm[i] of A */
  int *pp, *pi;          /* P A P^T, both triangles, sorted columns */
  double *px;
  int *map;              /* nnz: A's entry k is P A P^T's entry map[k] */
  /* The simplicial LDL^T's schedule (rowfac_schedule): */
  int *uptr, *usrc;      /* m + 1, nup: column k's entries A(i, k), i <= k, of P A P^T, as positions in A's val */
  int *urow;             /* nup: their rows i (ascending) */
  int *sptr, *srow;      /* m + 1, nsch: row k of L's off-diagonal entries, in rowfac's order */
  int *spos;             /* nsch: each one's position in L->x (from L->p, once L is numeric) */
  int *lnz;              /* m: the columns' final counts (L->nz after a factorisation) */
  int sched;             /* spos and lnz are L's: the factorisation may follow the schedule */
  int filled;            /* rowfac_schedule has run on this analysis */
  int fits;              /* and its rows of L fitted the sizes: urow, usrc, sptr and srow hold the schedule */
  size_t nup, nsch;      /* the sizes of urow / usrc and of srow / spos */
  unsigned long factors; /* factorisations of this analysis, up to 2 */
  cholmod_factor *L;
  cholmod_dense *X, *Y, *E; /* CHOLMOD's solve workspace for one column */
  cholmod_dense *Xn, *Yn, *En; /* and for 2 to 4 columns at once (allocated by the first such solve) */
  int mode;              /* the cholmod_mode it was analysed with */
  unsigned long used;    /* for evicting the least recently used */
} analysis;

typedef struct {
  double reuse_tol;
  long reuse_maxit;
  int mode; /* index in mode_names */
} chm_opts;

static const char *const mode_names[] = {"simplicial", "supernodal", "auto", NULL};
static const int mode_values[] = {CHOLMOD_SIMPLICIAL, CHOLMOD_SUPERNODAL, CHOLMOD_AUTO};

typedef struct {
  cholmod_common c;
  int started;
  size_t mcap;
  analysis cache[CACHE];
  analysis *cur;
  unsigned long pattern; /* A->pattern at the last setup */
  int have_pattern;
  unsigned long clock;
  double *t, *u, *r, *dx; /* mcap each */
  double *z, *p, *ap;    /* mcap each: the preconditioned CG of reuse */
  double *w;             /* mcap, zero between rows: the scheduled factorisation's row */
  int *iw;               /* 5 mcap: rowfac_schedule's scratch */
  double *tn;            /* 4 mcap: up to 4 permuted right-hand sides */
  double delta;          /* 0, or the shift of the least-squares path */
  unsigned rank;
  int stale;             /* the factor is of an earlier A (reuse) */
  int indefinite;        /* ldlt: negative pivots are accepted and counted */
  unsigned negative;     /* ldlt: negative pivots of the last factorisation */
  int refactor;          /* the last reused solve was slow: factor at the next setup */
} chm_state;

static void analysis_free(chm_state *s, analysis *a)
{
  free(a->rowptr);
  free(a->col);
  free(a->perm);
  free(a->pp);
  free(a->pi);
  free(a->px);
  free(a->map);
  free(a->uptr);
  free(a->usrc);
  free(a->urow);
  free(a->sptr);
  free(a->srow);
  free(a->spos);
  free(a->lnz);
  if (a->L)
    cholmod_free_factor(&a->L, &s->c);
  if (a->X)
    cholmod_free_dense(&a->X, &s->c);
  if (a->Y)
    cholmod_free_dense(&a->Y, &s->c);
  if (a->E)
    cholmod_free_dense(&a->E, &s->c);
  if (a->Xn)
    cholmod_free_dense(&a->Xn, &s->c);
  if (a->Yn)
    cholmod_free_dense(&a->Yn, &s->c);
  if (a->En)
    cholmod_free_dense(&a->En, &s->c);
  memset(a, 0, sizeof *a);
}

static void chm_free(void *p)
{
  chm_state *s = p;
  if (!s)
    return;
  if (s->started) {
    for (int k = 0; k < CACHE; k++)
      analysis_free(s, &s->cache[k]);
    cholmod_finish(&s->c);
  }
  free(s->t);
  free(s->u);
  free(s->r);
  free(s->dx);
  free(s->z);
  free(s->p);
  free(s->ap);
  free(s->w);
  free(s->iw);
  free(s->tn);
  free(s);
}

static int chm_alloc(void **out, size_t m)
{
  chm_state *s = calloc(1, sizeof *s);
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "cholmod: out of memory");
  if (m > (size_t)0x3fffffff) {
    free(s);
    return cdyn_error(CDYN_EINVAL, "cholmod: %zu rows is beyond CHOLMOD's int interface", m);
  }
  size_t mm = m ? m : 1;
  s->mcap = m;
  s->t = malloc(mm * sizeof(double));
  s->u = malloc(mm * sizeof(double));
  s->r = malloc(mm * sizeof(double));
  s->dx = malloc(mm * sizeof(double));
  s->z = malloc(mm * sizeof(double));
  s->p = malloc(mm * sizeof(double));
  s->ap = malloc(mm * sizeof(double));
  s->w = calloc(mm, sizeof(double));
  s->iw = malloc(5 * mm * sizeof(int));
  s->tn = malloc(4 * mm * sizeof(double));
  if (!s->iw || !s->tn || !s->t || !s->u || !s->r || !s->dx || !s->z || !s->p || !s->ap || !s->w ||
      !cholmod_start(&s->c)) {
    chm_free(s);
    return cdyn_error(CDYN_ENOMEM, "cholmod: out of memory for m = %zu", m);
  }
  s->started = 1;
  s->c.print = 0;         /* statuses are reported through cdyn_error */
  s->c.error_handler = NULL;
  s->c.final_asis = 1;    /* keep the factor as computed: no conversion, no allocation */
  *out = s;
  return CDYN_OK;
}

static int ldlt_alloc(void **out, size_t m)
{
  int rc = chm_alloc(out, m);
  if (!rc)
    ((chm_state *)*out)->indefinite = 1;
  return rc;
}

static int same_pattern(const analysis *a, const cdyn_matrix *A, int mode)
{
  return a->rowptr && a->mode == mode && a->m == A->m && a->nnz == A->nnz &&
         !memcmp(a->rowptr, A->rowptr, (A->m + 1) * sizeof(int)) &&
         !memcmp(a->col, A->col, A->nnz * sizeof(int));
}

/* A cholmod_sparse header over the pattern (and values) of a CSR matrix
   holding both triangles; for a symmetric matrix, CSR is also CSC. */
static cholmod_sparse wrap(size_t m, size_t nnz, int *p, int *i, double *x, int stype, int sorted)
{
  cholmod_sparse S;
  memset(&S, 0, sizeof S);
  S.nrow = S.ncol = m;
  S.nzmax = nnz;
  S.p = p;
  S.i = i;
  S.x = x;
  S.stype = stype;
  S.itype = CHOLMOD_INT;
  S.xtype = x ? CHOLMOD_REAL : CHOLMOD_PATTERN;
  S.dtype = CHOLMOD_DOUBLE;
  S.sorted = sorted;
  S.packed = 1;
  return S;
}

static int chm_status(chm_state *s, const char *what)
{
  int st = s->c.status;
  if (st == CHOLMOD_OUT_OF_MEMORY)
    return cdyn_error(CDYN_ENOMEM, "cholmod: out of memory in %s", what);
  return cdyn_error(CDYN_ESOLVE, "cholmod: %s failed (CHOLMOD status %d)", what, st);
}

/*
 * The schedule of CHOLMOD's simplicial up-looking LDL^T (cholmod_rowfac)
 * on P A P^T's pattern, so that a factorisation can repeat its arithmetic
 * without its per-row search.  Row k of L is found as rowfac finds it:
 * for each entry A(i, k), i < k, of column k (ascending i), the path
 * i, parent(i), ... of the elimination tree up to the first node already
 * met (or k), each path placed in front of the earlier ones; the entries
 * are then eliminated in that order.  The elimination tree is the one of
 * P A P^T (rowfac reads it from L's first off-diagonal entries, which
 * give the same parents on every path it walks).
 *
 * schedule_alloc sizes the arrays at the analysis: the upper entries of
 * P A P^T, counted, and the off-diagonal entries of L's rows, which are
 * those of its columns, sum (ColCount_j - 1) by the symbolic factor
 * (exact without numerical cancellation, which a symbolic count ignores);
 * 0, or -1 out of memory.  rowfac_schedule fills them, with s->iw as
 * scratch (no allocation); a count that disagrees with the sizes leaves
 * the schedule unused (a->fits stays 0), CHOLMOD factorising.
 */
static int schedule_alloc(analysis *a)
{
  size_t m = a->m, nup = 0, nsch = 0;
  const int *cc = a->L->ColCount;
  for (size_t k = 0; k < m; k++) {
    for (int p = a->pp[k]; p < a->pp[k + 1] && a->pi[p] <= (int)k; p++)
      nup++;
    nsch += cc[k] > 0 ? (size_t)cc[k] - 1 : 0;
  }
  a->nup = nup;
  a->nsch = nsch;
  a->uptr = malloc((m + 1) * sizeof(int));
  a->sptr = malloc((m + 1) * sizeof(int));
  a->lnz = malloc((m ? m : 1) * sizeof(int));
  a->urow = malloc((nup ? nup : 1) * sizeof(int));
  a->usrc = malloc((nup ? nup : 1) * sizeof(int));
  a->srow = malloc((nsch ? nsch : 1) * sizeof(int));
  a->spos = malloc((nsch ? nsch : 1) * sizeof(int));
  return a->uptr && a->sptr && a->lnz && a->urow && a->usrc && a->srow && a->spos ? 0 : -1;
}

static void rowfac_schedule(chm_state *s, analysis *a)
{
  size_t m = a->m, mm = s->mcap ? s->mcap : 1;
  int *inv = s->iw, *parent = s->iw + mm, *anc = s->iw + 2 * mm, *flag = s->iw + 3 * mm, *path = s->iw + 4 * mm;
  a->filled = 1;
  size_t nup = 0;
  for (size_t k = 0; k < m; k++) {
    a->uptr[k] = (int)nup;
    for (int p = a->pp[k]; p < a->pp[k + 1] && a->pi[p] <= (int)k; p++)
      nup++;
  }
  a->uptr[m] = (int)nup;
  /* The sources of the upper entries in A's val: A's entry e is P A P^T's map[e]. */
  for (size_t j = 0; j < m; j++)
    inv[a->perm[j]] = (int)j;
  for (size_t i = 0; i < m; i++)
    for (int e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) {
      int q = a->map[e], k = inv[i]; /* A's row i is column inv[i] of P A P^T (symmetric) */
      if (q >= a->pp[k] && q < a->pp[k + 1] && a->pi[q] <= k)
        a->usrc[a->uptr[k] + (q - a->pp[k])] = e;
    }
  for (size_t k = 0; k < m; k++)
    for (int p = a->pp[k]; p < a->pp[k] + (a->uptr[k + 1] - a->uptr[k]); p++)
      a->urow[a->uptr[k] + (p - a->pp[k])] = a->pi[p];
  /* The elimination tree (Liu's algorithm, with path compression). */
  for (size_t k = 0; k < m; k++) {
    parent[k] = anc[k] = -1;
    for (int t = a->uptr[k]; t < a->uptr[k + 1]; t++) {
      int i = a->urow[t];
      while (i != -1 && i < (int)k) {
        int next = anc[i];
        anc[i] = (int)k;
        if (next == -1)
          parent[i] = (int)k;
        i = next;
      }
    }
  }
  /* The rows of L, counted (against the sizes), then placed: each row is
     built in anc from its end, the latest path in front, as rowfac builds
     its Stack. */
  for (int pass = 0; pass < 2; pass++) {
    size_t nsch = 0;
    for (size_t k = 0; k < m; k++)
      flag[k] = -1;
    for (size_t k = 0; k < m; k++) {
      a->sptr[k] = (int)nsch;
      flag[k] = (int)k;
      size_t top = m;
      for (int t = a->uptr[k]; t < a->uptr[k + 1]; t++) {
        size_t plen = 0;
        for (int i = a->urow[t]; i < (int)k && i != -1 && flag[i] != (int)k; i = parent[i]) {
          path[plen++] = i;
          flag[i] = (int)k;
        }
        while (plen > 0)
          anc[--top] = path[--plen];
      }
      if (pass)
        memcpy(a->srow + nsch, anc + top, (m - top) * sizeof(int));
      nsch += m - top;
    }
    a->sptr[m] = (int)nsch;
    if (!pass && nsch != a->nsch)
      return; /* not the symbolic factor's count: never scheduled */
  }
  a->fits = 1;
}

/* Analyse A's pattern into `a` (freed first). */
static int analyse(chm_state *s, analysis *a, const cdyn_matrix *A, int mode)
{
  analysis_free(s, a);
  size_t m = A->m, nnz = A->nnz;
  a->mode = mode;
  s->c.supernodal = mode_values[mode];
  a->m = m;
  a->nnz = nnz;
  a->rowptr = malloc((m + 1) * sizeof(int));
  a->col = malloc((nnz ? nnz : 1) * sizeof(int));
  a->perm = malloc(m * sizeof(int));
  a->pp = malloc((m + 1) * sizeof(int));
  a->pi = malloc((nnz ? nnz : 1) * sizeof(int));
  a->px = calloc(nnz ? nnz : 1, sizeof(double));
  a->map = malloc((nnz ? nnz : 1) * sizeof(int));
  int *inv = malloc(m * sizeof(int));
  if (!a->rowptr || !a->col || !a->perm || !a->pp || !a->pi || !a->px || !a->map || !inv) {
    free(inv);
    analysis_free(s, a);
    return cdyn_error(CDYN_ENOMEM, "cholmod: out of memory for the analysis of %zu rows", m);
  }
  memcpy(a->rowptr, A->rowptr, (m + 1) * sizeof(int));
  memcpy(a->col, A->col, nnz * sizeof(int));

  /* The fill-reducing ordering: AMD, postordered (a simplicial analysis
     whatever the mode: the ordering does not depend on it). */
  cholmod_sparse S = wrap(m, nnz, a->rowptr, a->col, NULL, 1, 0);
  s->c.nmethods = 1;
  s->c.method[0].ordering = CHOLMOD_AMD;
  s->c.postorder = 1;
  s->c.supernodal = CHOLMOD_SIMPLICIAL;
  cholmod_factor *L0 = cholmod_analyze(&S, &s->c);
  s->c.supernodal = mode_values[mode];
  if (!L0) {
    free(inv);
    int rc = chm_status(s, "the ordering (cholmod_analyze)");
    analysis_free(s, a);
    return rc;
  }
  memcpy(a->perm, L0->Perm, m * sizeof(int));
  /* A simplicial symbolic factor is its ordering and its column counts.
     Relabelled by that ordering, it is the analysis of P A P^T in its own
     order: the same column counts (a postordering of the elimination tree
     changes no column's count), the identity for P.  So in the simplicial
     mode it is kept as that analysis, which the second call of
     cholmod_analyze below would find again (its elimination tree and
     column counts, half the analysis's time), and the factorisations
     from it are the same bits. */
  if (mode_values[mode] == CHOLMOD_SIMPLICIAL && !L0->is_super && L0->xtype == CHOLMOD_PATTERN) {
    int *P = L0->Perm;
    for (size_t i = 0; i < m; i++)
      P[i] = (int)i;
    L0->ordering = CHOLMOD_NATURAL;
  } else
    cholmod_free_factor(&L0, &s->c);
  for (size_t i = 0; i < m; i++)
    inv[a->perm[i]] = (int)i;

  /* P A P^T: column j is A's column perm[j] (its row: A holds both
     triangles) with rows renamed by inv, each column in ascending rows.
     Two stable counting passes over the entries, linear in nnz: by new
     row, then, in that order, into their columns; map[k] is where A's
     entry k lands. */
  int *byrow = malloc((nnz ? nnz : 1) * sizeof(int)), *rowof = malloc((nnz ? nnz : 1) * sizeof(int));
  int *next = calloc(m + 1, sizeof(int));
  if (!byrow || !rowof || !next) {
    free(byrow), free(rowof), free(next), free(inv);
    if (L0)
      cholmod_free_factor(&L0, &s->c);
    analysis_free(s, a);
    return cdyn_error(CDYN_ENOMEM, "cholmod: out of memory for the analysis of %zu rows", m);
  }
  for (size_t o = 0; o < m; o++)
    for (int k = A->rowptr[o]; k < A->rowptr[o + 1]; k++) {
      rowof[k] = (int)o;
      next[inv[A->col[k]] + 1]++;
    }
  for (size_t r = 0; r < m; r++)
    next[r + 1] += next[r];
  for (size_t k = 0; k < nnz; k++)
    byrow[next[inv[A->col[k]]]++] = (int)k;
  a->pp[0] = 0;
  for (size_t j = 0; j < m; j++) {
    int o = a->perm[j];
    a->pp[j + 1] = a->pp[j] + (A->rowptr[o + 1] - A->rowptr[o]);
    next[j] = a->pp[j];
  }
  for (size_t q = 0; q < nnz; q++) {
    int k = byrow[q], pos = next[inv[rowof[k]]]++;
    a->pi[pos] = inv[A->col[k]];
    a->map[k] = pos;
  }
  free(byrow);
  free(rowof);
  free(next);
  free(inv);

  /* The analysis proper, of P A P^T in its own (natural) order. */
  S = wrap(m, nnz, a->pp, a->pi, NULL, 1, 1);
  s->c.method[0].ordering = CHOLMOD_NATURAL;
  s->c.postorder = 0;
  a->L = L0 ? L0 : cholmod_analyze(&S, &s->c);
  if (!a->L) {
    int rc = chm_status(s, "the analysis (cholmod_analyze)");
    analysis_free(s, a);
    return rc;
  }
  if (a->L->ordering != CHOLMOD_NATURAL) {
    analysis_free(s, a);
    return cdyn_error(CDYN_ESOLVE, "cholmod: the analysis did not keep the natural ordering");
  }
  if (!a->L->is_super && schedule_alloc(a)) {
    analysis_free(s, a);
    return cdyn_error(CDYN_ENOMEM, "cholmod: out of memory for the factorisation's schedule of %zu rows", m);
  }
  return CDYN_OK;
}

/* After a factorisation by CHOLMOD: the positions in L->x of the
   schedule's entries, as rowfac placed them (column i's entries in the
   order of their rows), checked against L's rows; the schedule is used
   from then on only if they all agree. */
static void schedule_positions(analysis *a)
{
  const cholmod_factor *L = a->L;
  a->sched = 0;
  if (!a->fits || L->is_super || L->is_ll || L->xtype != CHOLMOD_REAL || L->itype != CHOLMOD_INT)
    return;
  const int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
  size_t m = a->m;
  for (size_t i = 0; i < m; i++)
    a->lnz[i] = 1;
  for (size_t k = 0; k < m; k++)
    for (int t = a->sptr[k]; t < a->sptr[k + 1]; t++) {
      int i = a->srow[t], p = Lp[i] + a->lnz[i]++;
      if (Li[p] != (int)k)
        return;
      a->spos[t] = p;
    }
  for (size_t i = 0; i < m; i++)
    if (a->lnz[i] != Lnz[i] || Li[Lp[i]] != (int)i)
      return;
  a->sched = 1;
}

/*
 * The numeric LDL^T of P A P^T by the schedule: rowfac's arithmetic, in
 * its order, on its storage (for row k: w = A(0:k, k); d_k = w_k + 0
 * (rowfac's beta); for each entry i of the row in the schedule's order,
 * y = w_i, w_j -= L_ji y for column i's entries so far, L_ki = y / d_i,
 * d_k -= L_ki y), reading A's values through usrc.  0, or 1 at a zero
 * pivot (w cleared), where CHOLMOD's own factorisation takes over.
 */
static int rowfac_scheduled(chm_state *s, analysis *a, const double *val)
{
  cholmod_factor *L = a->L;
  const int *Lp = L->p, *Li = L->i, *uptr = a->uptr, *urow = a->urow, *usrc = a->usrc;
  const int *sptr = a->sptr, *srow = a->srow, *spos = a->spos;
  double *Lx = L->x, *w = s->w;
  size_t m = a->m;
  for (size_t k = 0; k < m; k++) {
    for (int t = uptr[k]; t < uptr[k + 1]; t++)
      w[urow[t]] = val[usrc[t]];
    double dk = w[k] + 0.0;
    w[k] = 0;
    for (int t = sptr[k]; t < sptr[k + 1]; t++) {
      int i = srow[t], p = Lp[i], pend = spos[t];
      double y = w[i], di = Lx[p];
      w[i] = 0;
      for (p++; p < pend; p++)
        w[Li[p]] -= Lx[p] * y;
      double lx = y / di;
      dk -= lx * y;
      Lx[pend] = lx;
    }
    if (dk == 0) {
      memset(w, 0, m * sizeof(double));
      return 1;
    }
    Lx[Lp[k]] = dk;
  }
  memcpy(L->nz, a->lnz, m * sizeof(int));
  L->minor = m;
  return 0;
}

/* The pivots of the factor: L_jj^2 (LL^T) or D_jj (LDL^T); their minimum
   and the count above `above`. */
static double min_pivot(const cholmod_factor *L, double above, unsigned *count)
{
  double mn = INFINITY;
  unsigned c = 0;
  const double *x = L->x;
  if (L->is_super) {
    const int *super = L->super, *pi = L->pi, *px = L->px;
    for (size_t sn = 0; sn < L->nsuper; sn++) {
      int k1 = super[sn], k2 = super[sn + 1], nr = pi[sn + 1] - pi[sn];
      for (int j = 0; j < k2 - k1; j++) {
        double d = x[px[sn] + (size_t)j * nr + j];
        d *= d;
        mn = fmin(mn, d);
        c += d > above;
      }
    }
  } else {
    const int *p = L->p;
    for (size_t j = 0; j < L->n; j++) {
      double d = x[p[j]];
      if (L->is_ll)
        d *= d;
      mn = fmin(mn, d);
      c += d > above;
    }
  }
  *count = c;
  return mn;
}

static int factor(chm_state *s, const cdyn_matrix *A, double rank_tol, cdyn_solve_info *info);

static int chm_setup(void *p, const cdyn_matrix *A, double rank_tol, const void *opts, cdyn_solve_info *info)
{
  const chm_opts *o = opts;
  chm_state *s = p;
  info->iterations = 0;
  int mode = o && !s->indefinite ? o->mode : 0;
  if (s->indefinite)
    o = NULL; /* ldlt: simplicial, no reuse */
  int same = s->have_pattern && A->pattern == s->pattern && s->cur && s->cur->mode == mode;
  if (A->m > s->mcap)
    return cdyn_error(CDYN_EINVAL, "cholmod: %zu rows, sized for %zu", A->m, s->mcap);
  if (!same) {
    analysis *hit = NULL, *old = &s->cache[0];
    for (int k = 0; k < CACHE && !hit; k++)
      if (same_pattern(&s->cache[k], A, mode))
        hit = &s->cache[k];
    if (!hit) {
      for (int k = 0; k < CACHE; k++)
        if (!s->cache[k].rowptr || s->cache[k].used < old->used)
          old = &s->cache[k];
      s->cur = NULL;
      s->have_pattern = 0;
      int rc = analyse(s, old, A, mode);
      if (rc)
        return rc;
      hit = old;
      info->analyses = 1;
    }
    s->cur = hit;
    s->pattern = A->pattern;
    s->have_pattern = 1;
  }
  analysis *a = s->cur;
  a->used = ++s->clock;
  /* An analysis whose first factorisation failed has no solve workspace
     yet (solve_workspace allocates it after a factorisation): this setup
     completes that analysis, and reports it as one, whether the pattern
     came back from the cache or is the last setup's. */
  if (!a->X)
    info->analyses = 1;
  if (o && o->reuse_tol > 0 && same && a->X && s->delta == 0 && !s->refactor) {
    /* Keep the factor of an earlier A as the preconditioner. */
    s->stale = 1;
    info->rank = s->rank;
    info->fallback = 0;
    return CDYN_OK;
  }
  return factor(s, A, rank_tol, info);
}

/* CHOLMOD's solve workspace for a's factor, allocated with the analysis
   (by a first solve), so that no solve allocates; then the setup's report. */
static int solve_workspace(chm_state *s, analysis *a, cdyn_solve_info *info)
{
  size_t m = a->m;
  if (!a->X) {
    memset(s->t, 0, m * sizeof(double));
    cholmod_dense B = {m, 1, m, m, s->t, NULL, CHOLMOD_REAL, CHOLMOD_DOUBLE};
    if (!cholmod_solve2(CHOLMOD_A, a->L, &B, NULL, &a->X, NULL, &a->Y, &a->E, &s->c))
      return chm_status(s, "the first solve (cholmod_solve2)");
    /* and for 4 columns, the most factor_solve_n takes (a simplicial
       factor's), which then gives the workspace the shape of the columns
       it solves before each call, so that CHOLMOD keeps it */
    if (!a->L->is_super) {
      memset(s->tn, 0, 4 * m * sizeof(double));
      cholmod_dense B4 = {m, 4, 4 * m, m, s->tn, NULL, CHOLMOD_REAL, CHOLMOD_DOUBLE};
      if (!cholmod_solve2(CHOLMOD_A, a->L, &B4, NULL, &a->Xn, NULL, &a->Yn, &a->En, &s->c))
        return chm_status(s, "the first solve (cholmod_solve2)");
    }
  }
  info->rank = s->rank;
  info->fallback = s->delta > 0;
  return CDYN_OK;
}

/* The entries a numeric factor stores: a simplicial one's column counts
   summed (its diagonal included; L->nzmax may hold slack), a supernodal
   one's dense blocks (their explicit zeros included). */
static size_t factor_entries(const cholmod_factor *L)
{
  if (L->is_super)
    return L->xsize;
  const int *nz = L->nz;
  size_t e = 0;
  for (size_t j = 0; j < L->n; j++)
    e += (size_t)nz[j];
  return e;
}

/* Factor the current A (the analysis is s->cur's). */
static int factor(chm_state *s, const cdyn_matrix *A, double rank_tol, cdyn_solve_info *info)
{
  analysis *a = s->cur;
  s->stale = 0;
  s->refactor = 0;
  info->factorizations++;
  size_t m = a->m;
  double dmax = 0;
  for (size_t j = 0; j < m; j++)
    dmax = fmax(dmax, A->diag[j]);
  cholmod_sparse S = wrap(m, a->nnz, a->pp, a->pi, a->px, a->L->is_super ? -1 : 1, 1);
  s->delta = 0;
  s->negative = 0;
  int ok, scattered = 0;
  /* The pattern's second factorisation records the schedule (see the
     header), for the third and later. */
  if (a->factors < 2)
    a->factors++;
  if (a->factors == 2 && !a->filled && a->srow)
    rowfac_schedule(s, a);
  if (a->sched && !rowfac_scheduled(s, a, A->val)) {
    ok = 1;
    s->c.status = CHOLMOD_OK;
  } else {
    for (size_t k = 0; k < a->nnz; k++)
      a->px[a->map[k]] = A->val[k];
    scattered = 1;
    ok = cholmod_factorize(&S, a->L, &s->c);
    if (ok && s->c.status >= CHOLMOD_OK)
      schedule_positions(a);
  }
  unsigned count = 0;
  if (s->indefinite && ok && s->c.status == CHOLMOD_OK) {
    /* Quasi-definite: count the negative pivots; a zero or non-finite one
       is a singular matrix.  Without negative pivots, the positive
       semi-definite test below applies. */
    const double *x = a->L->x;
    const int *lp = a->L->p;
    for (size_t j = 0; j < m; j++) {
      double d = x[lp[j]];
      if (!isfinite(d) || d == 0)
        return cdyn_error(CDYN_ESOLVE, "ldlt: pivot %zu of %zu is %g: the matrix is singular", j, m, d);
      s->negative += d < 0;
    }
    info->negative = s->negative;
  }
  if (s->negative) {
    s->rank = (unsigned)m;
    info->factor_nnz = factor_entries(a->L);
    return solve_workspace(s, a, info);
  }
  double dmin = ok && s->c.status == CHOLMOD_OK ? min_pivot(a->L, 0, &count) : 0;
  if (!ok && s->c.status < CHOLMOD_OK)
    return chm_status(s, "the factorisation (cholmod_factorize)");
  if (!(dmax > 0) || s->c.status == CHOLMOD_NOT_POSDEF || !(dmin > rank_tol * dmax)) {
    /* Singular: factor A + delta I for the least-squares iteration. */
    s->delta = sqrt(rank_tol) * (dmax > 0 ? dmax : 1.0);
    double beta[2] = {s->delta, 0};
    for (size_t k = 0; !scattered && k < a->nnz; k++)
      a->px[a->map[k]] = A->val[k];
    if (!cholmod_factorize_p(&S, beta, NULL, 0, a->L, &s->c) || s->c.status != CHOLMOD_OK)
      return chm_status(s, "the shifted factorisation (cholmod_factorize_p)");
    min_pivot(a->L, 10 * s->delta, &count);
    s->rank = count;
  } else {
    s->rank = (unsigned)m;
  }
  info->factor_nnz = factor_entries(a->L);
  return solve_workspace(s, a, info);
}

/* y = (P A P^T + delta I)^-1 applied to b in A's order: y may be b. */
static int factor_solve(chm_state *s, const double *b, double *y)
{
  analysis *a = s->cur;
  size_t m = a->m;
  for (size_t i = 0; i < m; i++)
    s->t[i] = b[a->perm[i]];
  cholmod_dense B = {m, 1, m, m, s->t, NULL, CHOLMOD_REAL, CHOLMOD_DOUBLE};
  /* The simplicial solve asks for a 4-by-m workspace Y and leaves it
     reshaped to 1-by-m, which the next call would take for too small and
     reallocate: give it back the shape it asks for (its storage is that
     size).  tests/test_alloc checks that no solve allocates. */
  if (!a->L->is_super && a->Y && a->Y->nzmax >= 4 * m) {
    a->Y->nrow = a->Y->d = 4;
    a->Y->ncol = m;
  }
  if (!cholmod_solve2(CHOLMOD_A, a->L, &B, NULL, &a->X, NULL, &a->Y, &a->E, &s->c))
    return chm_status(s, "the solve (cholmod_solve2)");
  const double *x = a->X->x;
  for (size_t i = 0; i < m; i++)
    y[a->perm[i]] = x[i];
  return CDYN_OK;
}

/* The same for 2 to 4 right-hand sides in one pass over a simplicial
   factor (CHOLMOD's simplicial solve takes up to 4 columns at once): each
   column's arithmetic is the one-column solve's.  The workspace,
   allocated for 4 columns by solve_workspace, is given the shape of this
   call (X m-by-nrhs, Y 4-by-m), which CHOLMOD then keeps: a shape it did
   not ask for it would reallocate. */
static int factor_solve_n(chm_state *s, size_t nrhs, const double *b, double *y)
{
  analysis *a = s->cur;
  size_t m = a->m;
  for (size_t j = 0; j < nrhs; j++)
    for (size_t i = 0; i < m; i++)
      s->tn[j * m + i] = b[j * m + (size_t)a->perm[i]];
  cholmod_dense B = {m, nrhs, m * nrhs, m, s->tn, NULL, CHOLMOD_REAL, CHOLMOD_DOUBLE};
  if (a->Xn && a->Xn->nzmax >= nrhs * m) {
    a->Xn->nrow = a->Xn->d = m;
    a->Xn->ncol = nrhs;
  }
  if (a->Yn && a->Yn->nzmax >= 4 * m) {
    a->Yn->nrow = a->Yn->d = 4;
    a->Yn->ncol = m;
  }
  if (!cholmod_solve2(CHOLMOD_A, a->L, &B, NULL, &a->Xn, NULL, &a->Yn, &a->En, &s->c))
    return chm_status(s, "the solve (cholmod_solve2)");
  const double *x = a->Xn->x;
  size_t d = a->Xn->d;
  for (size_t j = 0; j < nrhs; j++)
    for (size_t i = 0; i < m; i++)
      y[j * m + (size_t)a->perm[i]] = x[j * d + i];
  return CDYN_OK;
}

static int shifted(void *ctx, const double *b, double *y) { return factor_solve(ctx, b, y); }

static double dot(const double *a, const double *b, size_t m)
{
  double acc = 0;
  for (size_t i = 0; i < m; i++)
    acc += a[i] * b[i];
  return acc;
}

/* Conjugate gradients on A x = b preconditioned by the stale factor, from
   x = 0, to |A x - b| <= reuse_tol |b|: 0, or 1 when reuse_maxit
   iterations did not reach it. */
static int reuse_pcg(chm_state *s, const cdyn_matrix *A, const chm_opts *o, const double *b, double *x,
                     unsigned long *its)
{
  size_t m = A->m;
  double bn = sqrt(dot(b, b, m)), rn = bn;
  int rc;
  memset(x, 0, m * sizeof(double));
  if (bn == 0)
    return 0;
  memcpy(s->r, b, m * sizeof(double));
  if ((rc = factor_solve(s, s->r, s->z)))
    return rc;
  memcpy(s->p, s->z, m * sizeof(double));
  double rz = dot(s->r, s->z, m);
  for (long k = 0; k < o->reuse_maxit; k++) {
    cdyn_matrix_apply(A, s->p, s->ap);
    double pap = dot(s->p, s->ap, m);
    if (!(pap > 0))
      return 1;
    double alpha = rz / pap;
    for (size_t i = 0; i < m; i++) {
      x[i] += alpha * s->p[i];
      s->r[i] -= alpha * s->ap[i];
    }
    ++*its;
    rn = sqrt(dot(s->r, s->r, m));
    if (rn <= o->reuse_tol * bn)
      return 0;
    if ((rc = factor_solve(s, s->r, s->z)))
      return rc;
    double rz1 = dot(s->r, s->z, m);
    for (size_t i = 0; i < m; i++)
      s->p[i] = s->z[i] + rz1 / rz * s->p[i];
    rz = rz1;
  }
  return 1;
}

static int chm_solve(void *p, const cdyn_matrix *A, size_t nrhs, const double *b, double *x, double rank_tol,
                     const void *opts, cdyn_solve_info *info)
{
  const chm_opts *o = opts;
  chm_state *s = p;
  if (!s->cur || s->cur->m != A->m)
    return cdyn_error(CDYN_EINVAL, "cholmod: solve before setup");
  size_t m = A->m;
  unsigned long its = 0, refactored = 0;
  size_t fnnz = 0;
  if (!s->stale && !(s->delta > 0) && nrhs >= 2 && nrhs <= 4 && !s->cur->L->is_super && s->cur->Xn) {
    int rc = factor_solve_n(s, nrhs, b, x);
    if (rc)
      return rc;

    rc = cdyn_direct_report(A, nrhs, b, x, s->r, "cholmod", info);
    info->iterations = 0;
    info->factorizations = 0;
    info->factor_nnz = 0;
    info->rank = s->rank;
    info->fallback = 0;
    info->negative = s->negative;
    return rc;
  }
  for (size_t j = 0; j < nrhs; j++) {
    const double *bj = b + j * m;
    double *xj = x + j * m;
    int rc;
    if (s->stale) {
      unsigned long k = 0;
      if ((rc = reuse_pcg(s, A, o, bj, xj, &k)) < 0)
        return rc;
      its += k;
      if (rc > 0) {
        /* Not within reuse_maxit: factor the current A after all. */
        cdyn_solve_info finfo = {0};
        rc = factor(s, A, rank_tol, &finfo);
        refactored += finfo.factorizations;
        fnnz = finfo.factor_nnz;
        if (rc)
          return rc;
        j--;
        continue;
      }
      if ((long)k > o->reuse_maxit / 2)
        s->refactor = 1;
    } else {
      rc = s->delta > 0 ? cdyn_shifted_lsq(A, shifted, s, s->delta, bj, xj, s->z, s->r, s->u, s->dx, MAXREF, &its)
                        : factor_solve(s, bj, xj);
      if (rc)
        return rc;
    }
  }
  int rc = cdyn_direct_report(A, nrhs, b, x, s->r, "cholmod", info);
  info->iterations = its;
  info->factorizations = refactored;
  info->factor_nnz = fnnz;
  info->rank = s->rank;
  info->fallback = s->delta > 0;
  info->negative = s->negative;
  return rc;
}

static const cdyn_option options[] = {
  {"cholmod_reuse_tol", CDYN_OPT_DOUBLE, offsetof(chm_opts, reuse_tol), "0", 0.0, 1e-2, NULL,
   "0: factor at every setup; > 0: keep an earlier factor and solve by CG preconditioned with it to this "
   "relative residual"},
  {"cholmod_reuse_maxit", CDYN_OPT_INT, offsetof(chm_opts, reuse_maxit), "10", 1, 1000, NULL,
   "CG iterations of a reused factor before the current A is factored"},
  {"cholmod_mode", CDYN_OPT_CHOICE, offsetof(chm_opts, mode), "simplicial", 0, 0, mode_names,
   "CHOLMOD's factorisation: simplicial (LDL^T), supernodal (LL^T in BLAS blocks) or auto (CHOLMOD's choice)"},
  CDYN_OPTIONS_END};

const cdyn_solver_type cdyn_solver_cholmod = {
  .name = "cholmod",
  .options = options,
  .options_size = sizeof(chm_opts),
  .description = "sparse Cholesky (CHOLMOD, AMD ordering, supernodal where it pays); least squares when A is singular",
  .iterative = 0,
  .alloc = chm_alloc,
  .free = chm_free,
  .setup = chm_setup,
  .solve = chm_solve,
};

const cdyn_solver_type cdyn_solver_ldlt = {
  .name = "ldlt",
  .options = NULL,
  .options_size = 0,
  .description = "sparse LDL^T without pivoting for symmetric quasi-definite matrices (CHOLMOD simplicial, AMD "
                 "ordering), counting the negative pivots; least squares when A is singular positive semi-definite",
  .iterative = 0,
  .indefinite = 1,
  .alloc = ldlt_alloc,
  .free = chm_free,
  .setup = chm_setup,
  .solve = chm_solve,
};
