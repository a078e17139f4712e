/*
 * layout.c: the stepper's view of the system's constraint set, and how it
 * follows changes to it between steps.
 *
 * Rows.  The enabled constraints, in id order, give the rows of Phi:
 * constraint c's rows are con_row0[c] .. con_row0[c] + rows - 1, so that
 * a freshly built stepper and one that followed a change lay the same set
 * out identically.
 *
 * The pattern of A = J D J^T over these rows, its contribution list and
 * the matrix view the solvers get are core/pattern.c's; the layout sizes
 * their storage and marks the pattern stale when the rows change.  Every
 * allocation here is checked and reported as CDYN_ENOMEM.
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
 * (cdyn_pattern_build, core/pattern.c), not by the change itself: a
 * scheme that never assembles the stepper's A (the contact scheme with
 * subsolve=sparse assembles A over its candidate rows itself) does not
 * pay for it, which matters when some rows share a particle with many
 * others (a heavy ball's rows against every node: the pattern is dense
 * over them).  For a scheme that assembles at every step the same pattern
 * is built from the same rows, in the same order, only later: its results
 * do not change.
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
  free(st->hubpin);
  free(st->hrow);
  free(st->hpin);
  free(st->hslot);
  free(st->hj);
  free(st->hrhs);
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
  if ((rc = cdyn_resize(&st->rows, om, mcap, sizeof *st->rows)) ||
      (rc = cdyn_resize(&st->rowpart, om * P, mcap * P, sizeof(size_t))) ||
      (rc = cdyn_resize(&st->rownp, om, mcap, sizeof(unsigned))) ||
      (rc = cdyn_resize(&st->rowcon, om, mcap, sizeof(size_t))) ||
      (rc = cdyn_resize(&st->rowineq, om, mcap, 1)) || (rc = cdyn_resize(&st->from, om, mcap, sizeof(long))) ||
      (rc = cdyn_resize(&st->spare, om, mcap, sizeof(double))) ||
      (rc = cdyn_resize(&st->lambda, om, mcap, sizeof(double))) ||
      (rc = cdyn_resize(&st->lambda0, om, mcap, sizeof(double))) ||
      (rc = cdyn_resize(&st->diag, om, mcap, sizeof(double))) ||
      (rc = cdyn_resize(&st->mark, om, mcap, sizeof(size_t))) ||
      (rc = cdyn_resize(&st->colpos, om, mcap, sizeof(size_t))) ||
      (rc = cdyn_resize(&st->lrow, om * P, mcap * P, sizeof(size_t))) ||
      (rc = cdyn_resize(&st->lslot, om * P, mcap * P, sizeof(unsigned))) ||
      (rc = cdyn_resize(&st->hrow, om * P, mcap * P, sizeof(size_t))) ||
      (rc = cdyn_resize(&st->hpin, om * P, mcap * P, sizeof(size_t))) ||
      (rc = cdyn_resize(&st->hslot, om * P, mcap * P, sizeof(unsigned))) ||
      (rc = cdyn_resize(&st->hj, 3 * om * P, 3 * mcap * P, sizeof(double))) ||
      (rc = cdyn_resize(&st->hrhs, om, mcap, sizeof(double))) ||
      (rc = cdyn_resize(&st->A.rowptr, om + 1, mcap + 1, sizeof(int))) ||
      (rc = cdyn_resize(&st->A_next.rowptr, om + 1, mcap + 1, sizeof(int))) ||
      (rc = cdyn_resize(&st->con_gen, oc, ccap, sizeof(unsigned long))) ||
      (rc = cdyn_resize(&st->con_row0, oc, ccap, sizeof(size_t))))
    return cdyn_error(rc, "stepper: out of memory for %zu constraint rows", mcap);
  for (size_t c = oc; c < ccap; c++)
    st->con_row0[c] = CDYN_NONE;
  st->mcap = mcap;
  st->ccap = ccap;
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

/* What the scheme sees of the rows (and the matrix view, when the
   pattern is that of the current rows). */
static void update_view(cdyn_stepper *st)
{
  if (!st->pattern_stale)
    cdyn_pattern_matrix(st);
  st->d.m = st->m;
  st->d.rows = st->rows;
  st->d.rowcon = st->rowcon;
  st->d.rowpart = st->rowpart;
  st->d.rownp = st->rownp;
  st->d.inequality = st->rowineq;
  st->d.lambda = st->lambda;
}

int cdyn_layout_build(cdyn_stepper *st)
{
  cdyn_system *sys = st->sys;
  int rc;
  size_t n = st->n;
  st->deg = calloc(n + 1, sizeof *st->deg);
  st->hubpin = calloc(n + 1, sizeof *st->hubpin);
  if (!st->deg || !st->hubpin)
    return cdyn_error(CDYN_ENOMEM, "stepper: out of memory for %zu particles", n);
  if ((rc = reserve_rows(st, sys->cap_rows, sys->cap_cons)))
    return rc;
  /* Size the pattern for every live constraint, enabled or not, for a
     scheme that assembles A. */
  size_t mall = lay_out(st, 1);
  size_t ncontrib = 0, nnz = 0;
  if (!st->type->own_system && !st->type->matrix_free)
    nnz = cdyn_pattern_count(st, mall, &ncontrib);
  if ((rc = cdyn_pattern_reserve(st, nnz ? nnz : 1, ncontrib ? ncontrib : 1)))
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
    if (sys->cons[c].live && sys->cons[c].enabled && sys->cons[c].type != cdyn_constraint_pin &&
        !(type->inequalities && sys->cons[c].inequality))
      return cdyn_error(CDYN_EINVAL,
                        "%s: scheme '%s' enforces pins%s only, and constraint %zu is '%s'%s", who, type->name,
                        type->inequalities ? " and inequality rows" : "", c, sys->cons[c].type->name,
                        type->inequalities ? ", an equality" : "");
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
  int rc = cdyn_pattern_reserve(st, nnz, nnz * CDYN_MAX_PARTICLES);
  if (!rc)
    update_view(st); /* the matrix view the solvers read points into the storage just moved */
  return rc;
}
