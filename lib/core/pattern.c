/*
 * pattern.c: the pattern of A = J D J^T over the rows the stepper laid
 * out (stepper/layout.c), the contribution list that assembles it
 * (cdyn_assemble, blocks.c), and the matrix view the solvers get.
 *
 * Row r of J touches particles P(r) (at most CDYN_MAX_PARTICLES), so
 *   A_ab = sum over p in P(a) and P(b) of d_p J_a,p . J_b,p ,
 * and A_ab can be non-zero only where rows a and b share a particle.  The
 * pattern is kept in compressed sparse row storage owned by the stepper
 * (int row pointers and columns, the layout CHOLMOD and GSL use): each
 * row holds its diagonal first, then the rows it shares a particle with,
 * in order of first encounter going through its particles in ascending
 * order and, for each, the particle's rows in ascending order.  Alongside
 * it the contribution list (CSR index, rows, slots, particle) enumerates
 * the terms above, particle by particle; cdyn_assemble zeroes the values
 * and adds them in that order.  Nothing here calls an allocator that
 * could abort the process (GSL's error handler does by default); every
 * allocation is checked and reported as CDYN_ENOMEM.
 *
 * The pattern of a new set of rows is built when it is first needed, by
 * the first assembly (cdyn_assemble) or setup (cdyn_factor) after the
 * change (cdyn_pattern_build), beside the old one, and compared with it:
 * `pattern` is bumped, and a solver redoes its symbolic analysis, only
 * when they differ.  Its storage is sized by the stepper when it is built
 * (cdyn_pattern_count and cdyn_pattern_reserve, for the pattern of every
 * live constraint); a pattern that outgrows it grows it geometrically,
 * counted in stats.reallocations.
 *
 * Pinned hubs (derived here).  Every two rows through one particle p
 * couple in A: a ball's contacts with every node of a cloth, or links to
 * one anchor, make A dense over them, k^2 entries for k rows, and its
 * factorisation dense too.  When p is held by a pin (three equality
 * rows E, J_E,p = I) and more than HUB_ROWS rows go through it, the
 * stepper factors instead
 *   M = [ A'  0     ]     A'_rc = A_rc - d_p J_r,p . J_c,p
 *       [ 0   d_p I ]     (A over the other rows without p's terms),
 * the block elimination of E from A (A_EE = d_p I, A_rE = d_p J_r,p^T,
 * A'= A_rr - A_rE A_EE^-1 A_Er), and cdyn_solve_many solves A x = b
 * exactly as
 *   b'_r = b_r - J_r,p . b_E,   M x' = (b'_r, b_E),
 *   x_r = x'_r,   x_E = x'_E - sum over the rows r through p of J_r,p x_r
 * (x'_E = b_E / d_p), with the J_r,p of the assembly.  The pattern holds
 * p's pin rows under p and no other row, so its storage, the
 * contributions and the factor are those of the other particles alone:
 * linear in the rows, where A's own pattern is quadratic.  The entries
 * the stepper stores (st->val, cdyn_stepper_matrix) are M's, so a scheme
 * that reads A's entries itself (reads_A: contact's dense sub-solves)
 * keeps A whole; the stepper still sizes its storage at build without
 * the hubs' coupling, and that scheme's first assembly over a hub's rows
 * grows it (counted in stats.reallocations).  A pin of a particle is that of its first pin row laid
 * out; every other row through p, a second pin of it included, is
 * reduced like the rest.  The rule is decided at each layout, and at the
 * stepper's build over every live constraint, for the reservation.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

/* A growth of at least this many bytes takes fresh zeroed memory (calloc)
   and copies the old elements, rather than realloc and memset. */
#define FRESH_BYTES ((size_t)1 << 20)

/* Resize *p from `old` to `count` elements of `size` bytes, zeroing the new
   tail; *p is untouched on failure.  A large growth (a stepper's
   reservation for the contacts to come: 2^20 entries of A and their
   contributions, some 190 MB) comes from calloc, whose pages the system
   hands out zeroed when they are first touched: the reservation then
   costs the copy of the old elements, not a memset of the whole tail,
   and pages never used stay out of the resident set. */
int cdyn_resize(void *pp, size_t old, size_t count, size_t size)
{
  void **p = pp;
  size_t c = count ? count : 1;
  if (c > ((size_t)-1) / size)
    return CDYN_ENOMEM;
  if (c > old && (c - old) * size >= FRESH_BYTES) {
    void *q = calloc(c, size);
    if (!q)
      return CDYN_ENOMEM;
    if (old && *p)
      memcpy(q, *p, old * size);
    free(*p);
    *p = q;
    return CDYN_OK;
  }
  void *q = realloc(*p, c * size);
  if (!q)
    return CDYN_ENOMEM;
  if (c > old)
    memset((char *)q + old * size, 0, (c - old) * size);
  *p = q;
  return CDYN_OK;
}

/* Size the pattern storage for nnz entries and ncontrib contributions. */
int cdyn_pattern_reserve(cdyn_stepper *st, size_t nnz, size_t ncontrib)
{
  if (nnz > (size_t)INT_MAX)
    return cdyn_error(CDYN_EINVAL, "stepper: A would have %zu non-zeros, beyond the limit of %d", nnz, INT_MAX);
  int rc;
  if (nnz > st->nnz_cap) {
    if ((rc = cdyn_resize(&st->A.col, st->nnz_cap, nnz, sizeof(int))) ||
        (rc = cdyn_resize(&st->A_next.col, st->nnz_cap, nnz, sizeof(int))) ||
        (rc = cdyn_resize(&st->val, st->nnz_cap, nnz, sizeof(double))) ||
        (rc = cdyn_resize(&st->val_prev, st->nnz_cap, nnz, sizeof(double))))
      return cdyn_error(rc, "stepper: out of memory for %zu non-zeros of A", nnz);
    st->nnz_cap = nnz;
  }
  if (ncontrib > st->contrib_cap) {
    if ((rc = cdyn_resize(&st->contrib, st->contrib_cap, ncontrib, sizeof *st->contrib)))
      return cdyn_error(rc, "stepper: out of memory for %zu contributions to A", ncontrib);
    st->contrib_cap = ncontrib;
  }
  return CDYN_OK;
}

/* Rows through a particle beyond which, pinned, it is a hub. */
#define HUB_ROWS 32

/* The hubs among the m rows laid out (deg: rows per particle, counted in
   deg[p + 1]): hubpin[p] is the first row of p's pin, or -1.  A scheme
   that reads A's entries has none, except when the stepper only sizes
   its storage (sizing): that is then linear for it too, and its first
   assembly with a hub's rows grows it. */
static void find_hubs(cdyn_stepper *st, size_t m, int sizing)
{
  const cdyn_system *sys = st->sys;
  st->nhub_particles = 0;
  for (size_t p = 0; p < st->n; p++)
    st->hubpin[p] = -1;
  if (st->type->reads_A && !sizing)
    return;
  for (size_t r = 0; r < m; r++) {
    size_t c = st->rowcon[r];
    const cdyn_constraint *con = &sys->cons[c];
    if (con->type != &cdyn_ctype_pin || st->rowineq[r] || (r > 0 && st->rowcon[r - 1] == c))
      continue;
    size_t p = con->p[0];
    if (st->hubpin[p] < 0 && st->deg[p + 1] > HUB_ROWS) {
      st->hubpin[p] = (long)r;
      st->nhub_particles++;
    }
  }
}

/*
 * Rows by particle: particle p's rows are lrow[deg[p] .. deg[p + 1]) in
 * ascending order, with the particle's slot within each row in lslot.
 * Returns the number of contributions, the sum over particles of the
 * square of their row counts.
 */
static size_t incidence(cdyn_stepper *st, size_t m, int sizing)
{
  size_t n = st->n, *deg = st->deg;
  memset(deg, 0, (n + 1) * sizeof *deg);
  for (size_t r = 0; r < m; r++)
    for (unsigned s = 0; s < st->rownp[r]; s++)
      deg[st->rowpart[r * CDYN_MAX_PARTICLES + s] + 1]++;
  find_hubs(st, m, sizing);
  /* A hub keeps its pin's rows; the others through it are listed apart. */
  size_t nh = 0;
  if (st->nhub_particles) {
    memset(deg, 0, (n + 1) * sizeof *deg);
    for (size_t r = 0; r < m; r++)
      for (unsigned s = 0; s < st->rownp[r]; s++) {
        size_t p = st->rowpart[r * CDYN_MAX_PARTICLES + s];
        long e = st->hubpin[p];
        if (e >= 0 && !(r >= (size_t)e && r < (size_t)e + 3)) {
          st->hrow[nh] = r;
          st->hslot[nh] = s;
          st->hpin[nh] = (size_t)e;
          nh++;
        } else {
          deg[p + 1]++;
        }
      }
  }
  st->nhub = nh;
  size_t ncontrib = 0;
  for (size_t p = 0; p < n; p++) {
    ncontrib += deg[p + 1] * deg[p + 1];
    deg[p + 1] += deg[p];
  }
  /* Fill with deg[p] as the cursor of particle p, then shift back. */
  for (size_t r = 0; r < m; r++)
    for (unsigned s = 0; s < st->rownp[r]; s++) {
      size_t p = st->rowpart[r * CDYN_MAX_PARTICLES + s];
      long e = st->hubpin[p];
      if (e >= 0 && !(r >= (size_t)e && r < (size_t)e + 3))
        continue;
      st->lrow[deg[p]] = r;
      st->lslot[deg[p]] = s;
      deg[p]++;
    }
  for (size_t p = n; p > 0; p--)
    deg[p] = deg[p - 1];
  deg[0] = 0;
  return ncontrib;
}

unsigned cdyn_row_particles_sorted(const cdyn_stepper *st, size_t a, size_t *ps)
{
  unsigned np = st->rownp[a];
  for (unsigned s = 0; s < np; s++) {
    size_t p = st->rowpart[a * CDYN_MAX_PARTICLES + s];
    unsigned k = s;
    while (k > 0 && ps[k - 1] > p) {
      ps[k] = ps[k - 1];
      k--;
    }
    ps[k] = p;
  }
  return np;
}

/*
 * Walk the pattern of the m rows (after incidence): count its entries
 * (out == NULL) or write them into out.  The order is the one the file's
 * header describes.
 */
static size_t walk_pattern(cdyn_stepper *st, size_t m, cdyn_csr *out)
{
  size_t nnz = 0;
  for (size_t a = 0; a < m; a++) {
    size_t stamp = ++st->stamp;
    if (out) {
      out->rowptr[a] = (int)nnz;
      out->col[nnz] = (int)a;
    }
    st->mark[a] = stamp;
    nnz++;
    size_t ps[CDYN_MAX_PARTICLES];
    unsigned np = cdyn_row_particles_sorted(st, a, ps);
    for (unsigned k = 0; k < np; k++)
      for (size_t i = st->deg[ps[k]]; i < st->deg[ps[k] + 1]; i++) {
        size_t b = st->lrow[i];
        if (st->mark[b] == stamp)
          continue;
        st->mark[b] = stamp;
        if (out)
          out->col[nnz] = (int)b;
        nnz++;
      }
  }
  if (out)
    out->rowptr[m] = (int)nnz;
  return nnz;
}

/* The contribution list of the m rows, against st->A (after incidence):
   each row's columns are scattered into colpos (stamped in mark) before
   its contributions, so that each entry's position is found at once
   rather than by a scan of the row (a heavy ball's row shares a particle
   with every node's, and holds hundreds of columns). */
static void fill_contrib(cdyn_stepper *st)
{
  size_t nc = 0;
  for (size_t p = 0; p < st->n; p++)
    for (size_t a = st->deg[p]; a < st->deg[p + 1]; a++) {
      size_t ra = st->lrow[a], sp = ++st->stamp;
      for (int k = st->A.rowptr[ra]; k < st->A.rowptr[ra + 1]; k++) {
        st->colpos[st->A.col[k]] = (size_t)k;
        st->mark[st->A.col[k]] = sp;
      }
      for (size_t b = st->deg[p]; b < st->deg[p + 1]; b++) {
        cdyn_contrib *c = &st->contrib[nc++];
        c->ra = ra;
        c->rb = st->lrow[b];
        c->sa = st->lslot[a];
        c->sb = st->lslot[b];
        c->p = p;
        c->k = st->mark[c->rb] == sp ? st->colpos[c->rb] : CDYN_NONE;
      }
    }
  st->ncontrib = nc;
}

/* The matrix view the solvers get: the pattern last built. */
void cdyn_pattern_matrix(cdyn_stepper *st)
{
  st->mat = (cdyn_matrix){.m = st->m, .nnz = st->nnz, .rowptr = st->A.rowptr, .col = st->A.col,
                          .val = st->val, .diag = st->diag, .pattern = st->pattern,
                          .apply = cdyn_matrix_apply_self};
  st->mat.ctx = &st->mat;
}

/*
 * The pattern of the m rows just laid out: built into A_next, compared
 * with A, swapped in when different; then the contribution list.
 */
static int build_pattern(cdyn_stepper *st, size_t m)
{
  size_t ncontrib = incidence(st, m, 0);
  size_t nnz = walk_pattern(st, m, NULL);
  if (nnz > st->nnz_cap || ncontrib > st->contrib_cap) {
    size_t want = nnz > 2 * st->nnz_cap ? nnz : 2 * st->nnz_cap;
    size_t wantc = ncontrib > 2 * st->contrib_cap ? ncontrib : 2 * st->contrib_cap;
    int rc = cdyn_pattern_reserve(st, nnz > st->nnz_cap ? want : nnz,
                                  ncontrib > st->contrib_cap ? wantc : ncontrib);
    if (rc)
      return rc;
    st->stats.reallocations++;
  }
  walk_pattern(st, m, &st->A_next);
  int same = st->pattern && m == st->mat.m && nnz == st->nnz &&
             !memcmp(st->A.rowptr, st->A_next.rowptr, (m + 1) * sizeof(int)) &&
             !memcmp(st->A.col, st->A_next.col, nnz * sizeof(int));
  if (!same) {
    cdyn_csr t = st->A;
    st->A = st->A_next;
    st->A_next = t;
    st->pattern++;
    st->stats.patterns++;
  }
  st->nnz = nnz;
  fill_contrib(st);
  return CDYN_OK;
}

/* The size of the pattern of the first m rows laid out, without building
   it: what the stepper sizes the storage for when it is built. */
size_t cdyn_pattern_count(cdyn_stepper *st, size_t m, size_t *ncontrib)
{
  *ncontrib = incidence(st, m, 1);
  return walk_pattern(st, m, NULL);
}

int cdyn_pattern_build(cdyn_stepper *st)
{
  if (!st->pattern_stale)
    return CDYN_OK;
  int rc = build_pattern(st, st->m);
  if (rc)
    return rc;
  st->pattern_stale = 0;
  cdyn_pattern_matrix(st);
  return CDYN_OK;
}
