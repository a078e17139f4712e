/*
 * layout.c: the stepper's view of the system's constraint set, and how it
 * follows changes to it between steps.
 *
 * Rows.  The enabled constraints, in id order, give the rows of Phi:
 * constraint c's rows are con_row0[c] .. con_row0[c] + rows - 1, so that
 * a freshly built stepper and one that followed a change lay the same set
 * out identically.
 *
 * The pattern of A = J D J^T.  Row r of J touches particles P(r) (at most
 * CDYN_MAX_PARTICLES), so
 *   A_ab = sum over p in P(a) and P(b) of d_p J_a,p . J_b,p ,
 * and A_ab can be non-zero only where rows a and b share a particle.  The
 * pattern is kept in compressed sparse row storage owned here (int row
 * pointers and columns, the layout CHOLMOD and GSL use): each row holds
 * its diagonal first, then the rows it shares a particle with, in order
 * of first encounter going through its particles in ascending order and,
 * for each, the particle's rows in ascending order.  Alongside it the
 * contribution list (CSR index, rows, slots, particle) enumerates the
 * terms above, particle by particle; cdyn_assemble zeroes the values and
 * adds them in that order.  Nothing here calls an allocator that could
 * abort the process (GSL's error handler does by default); every
 * allocation is checked and reported as CDYN_ENOMEM.
 *
 * Following a change.  The system counts its changes (version).  At the
 * start of a step whose system has changed, the stepper grows the arrays
 * if the system's capacity grew (cdyn_layout_grow), sizes its scheme's and
 * solver's states for them, and then cdyn_layout_follow lays the new set
 * out, maps each new row to its old one (a row is the same if its
 * constraint was laid out before with the same generation, so a slot that
 * was emptied and filled again counts as new) and moves the last
 * multipliers to their new rows.  The scheme is then told (its `changed`
 * operation, or `reset`).  The pattern and the contribution list of the
 * new set are built when they are first needed, by the first assembly
 * (cdyn_assemble) or setup (cdyn_factor) after the change
 * (cdyn_layout_pattern), not by the change itself: a scheme that never
 * assembles the stepper's A (the contact scheme with subsolve=sparse
 * assembles A over its candidate rows itself) does not pay for it, which
 * matters when some rows share a particle with many others (a heavy
 * ball's rows against every node: the pattern is dense over them).  For a
 * scheme that assembles at every step the same pattern is built from the
 * same rows, in the same order, only later: its results do not change.
 * The new pattern is built beside the old one and compared with it:
 * `pattern` is bumped, and a solver redoes its symbolic analysis, only
 * when they differ.
 *
 * Capacity.  The arrays are sized when the stepper is built for the
 * system's row and slot capacity, and the pattern storage for the pattern
 * of every live constraint (enabled or not), which bounds that of any
 * subset: switching constraints on and off never allocates.  A step
 * allocates only when the caller has grown the system beyond that
 * (cdyn_system_reserve, or adding past the reserve), or added constraints
 * whose pattern outgrows every earlier one; each such growth is counted
 * in stats.reallocations, and storage then grows geometrically.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "stepper/internal.h"

/* Resize *p from `old` to `count` elements of `size` bytes, zeroing the new
   tail; *p is untouched on failure. */
static int resize(void *pp, size_t old, size_t count, size_t size)
{
  void **p = pp;
  size_t c = count ? count : 1;
  if (c > ((size_t)-1) / size)
    return CDYN_ENOMEM;
  void *q = realloc(*p, c * size);
  if (!q)
    return CDYN_ENOMEM;
  if (c > old)
    memset((char *)q + old * size, 0, (c - old) * size);
  *p = q;
  return CDYN_OK;
}

void cdyn_layout_free(cdyn_stepper *st)
{
  free(st->rows);
  free(st->rowpart);
  free(st->rownp);
  free(st->rowcon);
  free(st->rowineq);
  free(st->con_row0);
  free(st->con_gen);
  free(st->from);
  free(st->spare);
  free(st->lambda);
  free(st->lambda0);
  free(st->diag);
  free(st->mark);
  free(st->colpos);
  free(st->lrow);
  free(st->lslot);
  free(st->A.rowptr);
  free(st->A.col);
  free(st->A_next.rowptr);
  free(st->A_next.col);
  free(st->val);
  free(st->val_prev);
  free(st->contrib);
  free(st->deg);
}

/*
 * Size the row and slot arrays for mcap rows and ccap slots (never
 * shrinking).  Arrays that grew before a failure keep their new size, which
 * is harmless; st->mcap and st->ccap change only when all have grown.
 */
static int reserve_rows(cdyn_stepper *st, size_t mcap, size_t ccap)
{
  size_t om = st->mcap, oc = st->ccap, P = CDYN_MAX_PARTICLES;
  if (mcap < om)
    mcap = om;
  if (ccap < oc)
    ccap = oc;
  if (mcap > (size_t)INT_MAX - 1)
    return cdyn_error(CDYN_EINVAL, "stepper: %zu constraint rows exceed the limit of %d", mcap, INT_MAX - 1);
  int rc = CDYN_OK;
  if ((rc = resize(&st->rows, om, mcap, sizeof *st->rows)) || (rc = resize(&st->rowpart, om * P, mcap * P, sizeof(size_t))) ||
      (rc = resize(&st->rownp, om, mcap, sizeof(unsigned))) || (rc = resize(&st->rowcon, om, mcap, sizeof(size_t))) ||
      (rc = resize(&st->rowineq, om, mcap, 1)) || (rc = resize(&st->from, om, mcap, sizeof(long))) ||
      (rc = resize(&st->spare, om, mcap, sizeof(double))) || (rc = resize(&st->lambda, om, mcap, sizeof(double))) ||
      (rc = resize(&st->lambda0, om, mcap, sizeof(double))) ||
      (rc = resize(&st->diag, om, mcap, sizeof(double))) || (rc = resize(&st->mark, om, mcap, sizeof(size_t))) ||
      (rc = resize(&st->colpos, om, mcap, sizeof(size_t))) ||
      (rc = resize(&st->lrow, om * P, mcap * P, sizeof(size_t))) ||
      (rc = resize(&st->lslot, om * P, mcap * P, sizeof(unsigned))) ||
      (rc = resize(&st->A.rowptr, om + 1, mcap + 1, sizeof(int))) ||
      (rc = resize(&st->A_next.rowptr, om + 1, mcap + 1, sizeof(int))) ||
      (rc = resize(&st->con_gen, oc, ccap, sizeof(unsigned long))) ||
      (rc = resize(&st->con_row0, oc, ccap, sizeof(size_t))))
    return cdyn_error(rc, "stepper: out of memory for %zu constraint rows", mcap);
  for (size_t c = oc; c < ccap; c++)
    st->con_row0[c] = CDYN_NONE;
  st->mcap = mcap;
  st->ccap = ccap;
  return CDYN_OK;
}

/* Size the pattern storage for nnz entries and ncontrib contributions. */
static int reserve_pattern(cdyn_stepper *st, size_t nnz, size_t ncontrib)
{
  if (nnz > (size_t)INT_MAX)
    return cdyn_error(CDYN_EINVAL, "stepper: A would have %zu non-zeros, beyond the limit of %d", nnz, INT_MAX);
  int rc;
  if (nnz > st->nnz_cap) {
    if ((rc = resize(&st->A.col, st->nnz_cap, nnz, sizeof(int))) ||
        (rc = resize(&st->A_next.col, st->nnz_cap, nnz, sizeof(int))) ||
        (rc = resize(&st->val, st->nnz_cap, nnz, sizeof(double))) ||
        (rc = resize(&st->val_prev, st->nnz_cap, nnz, sizeof(double))))
      return cdyn_error(rc, "stepper: out of memory for %zu non-zeros of A", nnz);
    st->nnz_cap = nnz;
  }
  if (ncontrib > st->contrib_cap) {
    if ((rc = resize(&st->contrib, st->contrib_cap, ncontrib, sizeof *st->contrib)))
      return cdyn_error(rc, "stepper: out of memory for %zu contributions to A", ncontrib);
    st->contrib_cap = ncontrib;
  }
  return CDYN_OK;
}

/*
 * Lay out the rows of the enabled constraints (all = 0), recording where
 * each new row was before (from) and where each constraint now starts; or
 * of every live constraint (all = 1), only to size the pattern storage,
 * leaving the constraints' positions alone.  Returns the number of rows.
 */
static size_t lay_out(cdyn_stepper *st, int all)
{
  const cdyn_system *sys = st->sys;
  size_t m = 0;
  for (size_t c = 0; c < sys->ncons; c++) {
    const cdyn_constraint *con = &sys->cons[c];
    int in = con->live && (all || con->enabled);
    size_t old = all ? CDYN_NONE : st->con_row0[c];
    int same = old != CDYN_NONE && in && st->con_gen[c] == con->gen;
    if (!all)
      st->con_row0[c] = in ? m : CDYN_NONE;
    if (!in)
      continue;
    if (!all)
      st->con_gen[c] = con->gen;
    for (unsigned r = 0; r < con->type->rows; r++, m++) {
      st->rownp[m] = con->type->nparticles;
      for (unsigned s = 0; s < con->type->nparticles; s++)
        st->rowpart[m * CDYN_MAX_PARTICLES + s] = con->p[s];
      st->rowcon[m] = c;
      st->rowineq[m] = (unsigned char)con->inequality;
      if (!all)
        st->from[m] = same ? (long)(old + r) : -1;
    }
  }
  return m;
}

/*
 * Rows by particle: particle p's rows are lrow[deg[p] .. deg[p + 1]) in
 * ascending order, with the particle's slot within each row in lslot.
 * Returns the number of contributions, the sum over particles of the
 * square of their row counts.
 */
static size_t incidence(cdyn_stepper *st, size_t m)
{
  size_t n = st->n, *deg = st->deg;
  memset(deg, 0, (n + 1) * sizeof *deg);
  for (size_t r = 0; r < m; r++)
    for (unsigned s = 0; s < st->rownp[r]; s++)
      deg[st->rowpart[r * CDYN_MAX_PARTICLES + s] + 1]++;
  size_t ncontrib = 0;
  for (size_t p = 0; p < n; p++) {
    ncontrib += deg[p + 1] * deg[p + 1];
    deg[p + 1] += deg[p];
  }
  /* Fill with deg[p] as the cursor of particle p, then shift back. */
  for (size_t r = 0; r < m; r++)
    for (unsigned s = 0; s < st->rownp[r]; s++) {
      size_t p = st->rowpart[r * CDYN_MAX_PARTICLES + s];
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

static int csr_apply(const void *ctx, const double *x, double *y)
{
  const cdyn_stepper *st = ctx;
  const int *rp = st->A.rowptr, *col = st->A.col;
  for (size_t i = 0; i < st->mat.m; i++) {
    double s = 0;
    for (int k = rp[i]; k < rp[i + 1]; k++)
      s += st->val[k] * x[col[k]];
    y[i] = s;
  }
  return CDYN_OK;
}

/* The matrix view the solvers get: the pattern last built. */
static void update_matrix(cdyn_stepper *st)
{
  st->mat = (cdyn_matrix){.m = st->m, .nnz = st->nnz, .rowptr = st->A.rowptr, .col = st->A.col,
                          .val = st->val, .diag = st->diag, .pattern = st->pattern,
                          .apply = csr_apply, .ctx = st};
}

/* What the scheme sees of the rows (and the matrix view, when the
   pattern is that of the current rows). */
static void update_view(cdyn_stepper *st)
{
  if (!st->pattern_stale)
    update_matrix(st);
  st->d.m = st->m;
  st->d.rows = st->rows;
  st->d.rowcon = st->rowcon;
  st->d.rowpart = st->rowpart;
  st->d.rownp = st->rownp;
  st->d.inequality = st->rowineq;
  st->d.lambda = st->lambda;
}

/*
 * The pattern of the m rows just laid out: built into A_next, compared
 * with A, swapped in when different; then the contribution list.
 */
static int build_pattern(cdyn_stepper *st, size_t m)
{
  size_t ncontrib = incidence(st, m);
  size_t nnz = walk_pattern(st, m, NULL);
  if (nnz > st->nnz_cap || ncontrib > st->contrib_cap) {
    size_t want = nnz > 2 * st->nnz_cap ? nnz : 2 * st->nnz_cap;
    size_t wantc = ncontrib > 2 * st->contrib_cap ? ncontrib : 2 * st->contrib_cap;
    int rc = reserve_pattern(st, nnz > st->nnz_cap ? want : nnz, ncontrib > st->contrib_cap ? wantc : ncontrib);
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

int cdyn_layout_build(cdyn_stepper *st)
{
  cdyn_system *sys = st->sys;
  int rc;
  size_t n = st->n;
  st->deg = calloc(n + 1, sizeof *st->deg);
  if (!st->deg)
    return cdyn_error(CDYN_ENOMEM, "stepper: out of memory for %zu particles", n);
  if ((rc = reserve_rows(st, sys->cap_rows, sys->cap_cons)))
    return rc;
  /* Size the pattern for every live constraint, enabled or not. */
  size_t mall = lay_out(st, 1);
  size_t ncontrib = incidence(st, mall), nnz = walk_pattern(st, mall, NULL);
  if ((rc = reserve_pattern(st, nnz ? nnz : 1, ncontrib ? ncontrib : 1)))
    return rc;
  st->m = lay_out(st, 0);
  st->pattern_stale = 1;
  st->version = sys->version;
  st->force_version = sys->force_version;
  update_view(st);
  return CDYN_OK;
}

int cdyn_check_pins_only(const cdyn_system *sys, const cdyn_scheme_type *type, const char *who)
{
  if (!type->pins_only)
    return CDYN_OK;
  for (size_t c = 0; c < sys->ncons; c++)
    if (sys->cons[c].live && sys->cons[c].enabled && sys->cons[c].type != cdyn_constraint_pin)
      return cdyn_error(CDYN_EINVAL,
                        "%s: scheme '%s' enforces pins only, and constraint %zu is '%s'", who, type->name, c,
                        sys->cons[c].type->name);
  return CDYN_OK;
}

int cdyn_layout_grow(cdyn_stepper *st)
{
  cdyn_system *sys = st->sys;
  if (sys->cap_rows <= st->mcap && sys->cap_cons <= st->ccap)
    return CDYN_OK;
  /* Grow geometrically, so that constraints added one at a time past the
     reserve cost a logarithmic number of reallocations. */
  size_t mcap = sys->cap_rows > st->mcap ? (sys->cap_rows > 2 * st->mcap ? sys->cap_rows : 2 * st->mcap) : st->mcap;
  int rc = reserve_rows(st, mcap, sys->cap_cons);
  if (rc)
    return rc;
  st->stats.reallocations++;
  return CDYN_OK;
}

int cdyn_layout_pattern(cdyn_stepper *st)
{
  if (!st->pattern_stale)
    return CDYN_OK;
  int rc = build_pattern(st, st->m);
  if (rc)
    return rc;
  st->pattern_stale = 0;
  update_matrix(st);
  return CDYN_OK;
}

int cdyn_layout_follow(cdyn_stepper *st, int fresh)
{
  cdyn_system *sys = st->sys;
  size_t m_old = st->m;
  size_t m = lay_out(st, 0);
  /* The pattern of the new rows: at its first use. */
  st->pattern_stale = 1;
  /* The last multipliers, moved to their rows (0 on new rows). */
  for (size_t r = 0; r < m; r++)
    st->spare[r] = st->from[r] >= 0 ? st->lambda[st->from[r]] : 0.0;
  memcpy(st->lambda, st->spare, m * sizeof(double));
  st->m = m;
  st->factored = 0;
  update_view(st);
  cdyn_set_change change = {.m_old = m_old, .from = st->from,
                            .forces = sys->force_version != st->force_version};
  st->version = sys->version;
  st->force_version = sys->force_version;
  st->stats.set_changes++;
  if (!fresh) {
    if (st->type->changed)
      st->type->changed(st->state, st, &change);
    else if (st->type->reset)
      st->type->reset(st->state);
  }
  return CDYN_OK;
}

int cdyn_layout_reserve(cdyn_stepper *st, size_t nnz)
{
  /* A contribution is a particle two rows share: at most CDYN_MAX_PARTICLES per entry. */
  int rc = reserve_pattern(st, nnz, nnz * CDYN_MAX_PARTICLES);
  if (!rc)
    update_view(st); /* the matrix view the solvers read points into the storage just moved */
  return rc;
}
