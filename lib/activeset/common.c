/*
 * common.c: the pieces every active-set algorithm shares (003 eq 6 with a
 * handled set S), the registry of algorithms and the public one-shot
 * solve.
 *
 * For a handled set S the contact problem w = A mu + b reduces to
 *   A_SS mu_S = -b_S,  mu_k = 0 (k not in S),  w = A mu + b,
 * the KKT system of 003 eq 6 with the accelerations eliminated
 * (qdd = a_free + W J^T mu, A = J W J^T).  A_SS is solved by Cholesky
 * (dpotrf/dpotrs) when it is definite, otherwise by the minimum-norm
 * least-squares solution through its eigen-decomposition (dsyev), the
 * rule of the dense cholesky solver (lib/solvers/cholesky.c): redundant
 * contacts, such as a racked ball touching three others in the plane,
 * make A_SS singular.  A_SS is symmetric, so its row-major copy is also
 * column-major and the *_work entry points need no transposed copies.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "activeset/activeset.h"
#include "cdyn_internal.h"

#define CDYN_ACTIVESET(id, file) extern const cdyn_activeset_type cdyn_activeset_##id;
#include "activeset/activesets.def"
#undef CDYN_ACTIVESET

const cdyn_activeset_type *const cdyn_activeset_types[] = {
#define CDYN_ACTIVESET(id, file) &cdyn_activeset_##id,
#include "activeset/activesets.def"
#undef CDYN_ACTIVESET
  NULL};

static size_t type_count(void)
{
  size_t k = 0;
  while (cdyn_activeset_types[k])
    k++;
  return k;
}

size_t cdyn_activeset_count(void) { return type_count(); }

const char *cdyn_activeset_name(size_t i)
{
  return i < type_count() ? cdyn_activeset_types[i]->name : NULL;
}

const char *cdyn_activeset_description(size_t i)
{
  return i < type_count() ? cdyn_activeset_types[i]->description : NULL;
}

const char *cdyn_activeset_source(size_t i)
{
  return i < type_count() ? cdyn_activeset_types[i]->source : NULL;
}

int cdyn_activeset_find(const char *name, size_t *index)
{
  if (!name || !index)
    return cdyn_error(CDYN_EINVAL, "cdyn_activeset_find: NULL argument");
  for (size_t k = 0; cdyn_activeset_types[k]; k++)
    if (!strcmp(cdyn_activeset_types[k]->name, name)) {
      *index = k;
      return CDYN_OK;
    }
  char list[256] = "";
  for (size_t k = 0; cdyn_activeset_types[k]; k++) {
    strncat(list, k ? ", " : "", sizeof list - strlen(list) - 1);
    strncat(list, cdyn_activeset_types[k]->name, sizeof list - strlen(list) - 1);
  }
  return cdyn_error(CDYN_EUNKNOWN, "unknown active-set algorithm '%s' (one of: %s)", name, list);
}

int cdyn_activeset_type_find(const char *name, const cdyn_activeset_type **type)
{
  size_t k;
  int rc = cdyn_activeset_find(name, &k);
  if (rc)
    return rc;
  *type = cdyn_activeset_types[k];
  return CDYN_OK;
}

/* ---- workspace ------------------------------------------------------------ */

void cdyn_as_ws_free(cdyn_as_ws *ws)
{
  if (!ws)
    return;
  free(ws->sub);
  free(ws->eig);
  free(ws->r);
  free(ws->x);
  free(ws->work);
  free(ws->idx);
  free(ws->set);
  for (int k = 0; k < 4; k++)
    free(ws->tmp[k]);
  memset(ws, 0, sizeof *ws);
}

int cdyn_as_ws_alloc(cdyn_as_ws *ws, size_t cap)
{
  if (!ws)
    return cdyn_error(CDYN_EINVAL, "active set: workspace is NULL");
  memset(ws, 0, sizeof *ws);
  size_t c = cap ? cap : 1;
  if (c > 65536)
    return cdyn_error(CDYN_EINVAL, "active set: %zu rows is beyond the dense workspace's limit", cap);
  ws->cap = cap;
  ws->sub = malloc(c * c * sizeof(double));
  ws->eig = malloc(c * sizeof(double));
  ws->r = malloc(c * sizeof(double));
  ws->x = malloc(c * sizeof(double));
  ws->idx = malloc(c * sizeof(size_t));
  ws->set = malloc(c);
  int ok = ws->sub && ws->eig && ws->r && ws->x && ws->idx && ws->set;
  for (int k = 0; k < 4 && ok; k++)
    ok = (ws->tmp[k] = malloc(c * sizeof(double))) != NULL;
  if (ok) {
    double q = 0;
    lapack_int info = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'L', (lapack_int)c, ws->sub,
                                         (lapack_int)c, ws->eig, &q, -1);
    if (info != 0) {
      cdyn_as_ws_free(ws);
      return cdyn_error(CDYN_ESOLVE, "active set: dsyev workspace query failed (info %d)", (int)info);
    }
    ws->lwork = (lapack_int)q;
    ok = (ws->work = malloc((size_t)(ws->lwork > 0 ? ws->lwork : 1) * sizeof(double))) != NULL;
  }
  if (!ok) {
    cdyn_as_ws_free(ws);
    return cdyn_error(CDYN_ENOMEM, "active set: out of memory for %zu rows", cap);
  }
  return CDYN_OK;
}

/* ---- sub-solves ------------------------------------------------------------- */

static void gather(cdyn_as_ws *ws, size_t n, const double *A, size_t s)
{
  for (size_t a = 0; a < s; a++)
    for (size_t c = 0; c < s; c++)
      ws->sub[a * s + c] = A[ws->idx[a] * n + ws->idx[c]];
}

int cdyn_as_subsolve(cdyn_as_ws *ws, size_t n, const double *A, const unsigned char *S,
                     const double *r, double rank_tol, double *x, size_t *size)
{
  if (n > ws->cap)
    return cdyn_error(CDYN_EINVAL, "active set: problem of %zu rows exceeds the workspace's %zu", n,
                      ws->cap);
  size_t s = 0;
  for (size_t k = 0; k < n; k++) {
    x[k] = 0;
    if (S[k])
      ws->idx[s++] = k;
  }
  if (size)
    *size = s;
  if (!s)
    return CDYN_OK;
  gather(ws, n, A, s);
  double dmax = 0;
  for (size_t a = 0; a < s; a++) {
    ws->r[a] = r[ws->idx[a]];
    if (ws->sub[a * s + a] > dmax)
      dmax = ws->sub[a * s + a];
  }
  int eig = 1;
  if (dmax > 0 && LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', (lapack_int)s, ws->sub,
                                      (lapack_int)s) == 0) {
    eig = 0;
    for (size_t a = 0; a < s && !eig; a++) {
      double piv = ws->sub[a * s + a];
      if (!(piv * piv > rank_tol * dmax))
        eig = 1;
    }
  }
  if (!eig) {
    memcpy(ws->x, ws->r, s * sizeof(double));
    lapack_int rc = LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', (lapack_int)s, 1, ws->sub,
                                        (lapack_int)s, ws->x, (lapack_int)s);
    if (rc != 0)
      return cdyn_error(CDYN_ESOLVE, "active set: dpotrs failed (info %d)", (int)rc);
  } else {
    gather(ws, n, A, s);
    lapack_int rc = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'L', (lapack_int)s, ws->sub,
                                       (lapack_int)s, ws->eig, ws->work, ws->lwork);
    if (rc != 0)
      return cdyn_error(CDYN_ESOLVE, "active set: eigen-decomposition failed (dsyev info %d)",
                        (int)rc);
    double wmax = 0;
    for (size_t j = 0; j < s; j++)
      if (fabs(ws->eig[j]) > wmax)
        wmax = fabs(ws->eig[j]);
    double cut = rank_tol * wmax;
    memset(ws->x, 0, s * sizeof(double));
    for (size_t j = 0; j < s; j++) {
      if (!(ws->eig[j] > cut) || wmax == 0)
        continue;
      const double *vj = ws->sub + j * s; /* column j of V */
      double d = 0;
      for (size_t i = 0; i < s; i++)
        d += vj[i] * ws->r[i];
      d /= ws->eig[j];
      for (size_t i = 0; i < s; i++)
        ws->x[i] += vj[i] * d;
    }
  }
  for (size_t a = 0; a < s; a++)
    x[ws->idx[a]] = ws->x[a];
  if (!cdyn_all_finite(x, n))
    return cdyn_error(CDYN_ENONFINITE, "active set: a sub-solve of %zu rows gave a non-finite result",
                      s);
  return CDYN_OK;
}

int cdyn_as_add_violated(const cdyn_as_problem *p, const double *w, unsigned char *handled)
{
  int added = 0;
  for (size_t k = 0; k < p->n; k++)
    if (!handled[k] && w[k] < -cdyn_as_tol_w(p, k))
      handled[k] = 1, added = 1;
  return added;
}

void cdyn_as_residual(const cdyn_as_problem *p, const double *mu, double *w)
{
  size_t n = p->n;
  for (size_t i = 0; i < n; i++) {
    double acc = p->b[i];
    const double *row = p->A + i * n;
    for (size_t j = 0; j < n; j++)
      acc += row[j] * mu[j];
    w[i] = acc;
  }
}

int cdyn_as_solve_set(cdyn_as_ws *ws, const cdyn_as_problem *p, const unsigned char *S,
                      double *mu, double *w, cdyn_activeset_report *rep)
{
  size_t n = p->n, s;
  double *negb = ws->tmp[3];
  for (size_t k = 0; k < n; k++)
    negb[k] = -p->b[k];
  int rc = cdyn_as_subsolve(ws, n, p->A, S, negb, p->rank_tol, mu, &s);
  if (rc)
    return rc;
  cdyn_as_residual(p, mu, w);
  rep->iterations++;
  if (s)
    rep->solves++;
  return CDYN_OK;
}

void cdyn_as_tolerances(cdyn_as_problem *p, double rel_tol)
{
  double bmax = 0, dmax = 0;
  for (size_t k = 0; k < p->n; k++) {
    if (fabs(p->b[k]) > bmax)
      bmax = fabs(p->b[k]);
    if (p->A[k * p->n + k] > dmax)
      dmax = p->A[k * p->n + k];
  }
  p->tol_w = rel_tol * (bmax > DBL_MIN ? bmax : DBL_MIN);
  p->tol_mu = dmax > 0 ? p->tol_w / dmax : p->tol_w;
}

int cdyn_as_check_equalities(const cdyn_as_problem *p, const double *mu, const double *w)
{
  if (!p->equality)
    return CDYN_OK;
  size_t n = p->n;
  for (size_t k = 0; k < n; k++) {
    if (!p->equality[k])
      continue;
    double scale = fabs(p->b[k]);
    for (size_t j = 0; j < n; j++)
      scale += fabs(p->A[k * n + j] * mu[j]);
    double floor_k = (p->rank_tol + 4.0 * (double)n * DBL_EPSILON) * scale;
    /* Written so that a NaN residual also fails. */
    if (!(fabs(w[k]) <= cdyn_as_tol_w(p, k)) && !(fabs(w[k]) <= floor_k))
      return cdyn_error(CDYN_EINFEASIBLE,
                        "inconsistent constraint set: equality row %zu keeps w = %.6g after the solve "
                        "(tol_w = %.3g): its equation has no solution together with the other handled rows",
                        k, w[k], cdyn_as_tol_w(p, k));
  }
  return CDYN_OK;
}

int cdyn_as_finish(const cdyn_as_problem *p, const double *mu, const double *w,
                   const unsigned char *handled, cdyn_activeset_report *rep)
{
  rep->candidates = (unsigned)p->n;
  rep->inequalities = 0;
  rep->handled = 0;
  rep->pulls = rep->violates = 0;
  rep->min_mu = rep->min_w = 0;
  int first = 1;
  for (size_t k = 0; k < p->n; k++) {
    if (handled[k])
      rep->handled++;
    if (cdyn_as_is_eq(p, k))
      continue;
    rep->inequalities++;
    if (first || mu[k] < rep->min_mu)
      rep->min_mu = mu[k];
    if (first || w[k] < rep->min_w)
      rep->min_w = w[k];
    first = 0;
    if (handled[k] && mu[k] < -cdyn_as_tol_mu(p, k))
      rep->pulls = 1;
    if (w[k] < -cdyn_as_tol_w(p, k))
      rep->violates = 1;
  }
  return cdyn_as_check_equalities(p, mu, w);
}

/* ---- the public one-shot solve ------------------------------------------------ */

/* The equilibrated copy of a problem of extreme scale (see
   cdyn_activeset_solve): A' = D A D, b' = s D b with D = diag(2^c_k),
   s = 2^-kb, and each row's sign tolerances. */
typedef struct {
  double *A, *b, *tw, *tm;
  int *c, kb;
} equilibrated;

static void equilibrated_free(equilibrated *e)
{
  free(e->A);
  free(e->b);
  free(e->tw);
  free(e->tm);
  free(e->c);
  memset(e, 0, sizeof *e);
}

/* Build the equilibrated copy of *p (whose tolerances are set) and point
   *p at it; CDYN_EINVAL, nothing kept, when its rows span more than
   doubles can decide together. */
static int equilibrate(equilibrated *e, cdyn_as_problem *p)
{
  size_t n = p->n;
  const double *A = p->A, *b = p->b;
  e->A = malloc(n * n * sizeof(double));
  e->b = malloc(n * sizeof(double));
  e->tw = malloc(n * sizeof(double));
  e->tm = malloc(n * sizeof(double));
  e->c = malloc(n * sizeof(int));
  if (!e->A || !e->b || !e->tw || !e->tm || !e->c) {
    equilibrated_free(e);
    return cdyn_error(CDYN_ENOMEM, "cdyn_activeset_solve: out of memory");
  }
  double dbmax = 0, dmin = INFINITY, dmax = 0, bmax = 0;
  for (size_t i = 0; i < n; i++) {
    int ex = 0;
    e->c[i] = 0;
    if (A[i * n + i] > 0) {
      frexp(A[i * n + i], &ex);
      e->c[i] = -(int)floor(ex / 2.0);
      dmin = fmin(dmin, A[i * n + i]);
      dmax = fmax(dmax, A[i * n + i]);
    }
    dbmax = fmax(dbmax, ldexp(fabs(b[i]), e->c[i]));
    bmax = fmax(bmax, fabs(b[i]));
  }
  e->kb = 0;
  if (dbmax > 0)
    frexp(dbmax, &e->kb);
  /* A row whose scaled tolerance would fall below 2^-1000 has its sign
     tests near or below the subnormal range: its rows span more than
     doubles can decide together, equilibrated or not (a diagonal from
     4.9e-324 to 1.8e308 left a row's w wrong in the first digit). */
  for (size_t i = 0; i < n; i++)
    if (ilogb(p->tol_w) + e->c[i] - e->kb < -1000) {
      equilibrated_free(e);
      return cdyn_error(CDYN_EINVAL,
                        "cdyn_activeset_solve: the rows span more than double precision can solve together (A's "
                        "diagonal from %g to %g, |b| up to %g; row %zu's sign test would fall below 2^-1000): "
                        "rescale the problem",
                        dmin, dmax, bmax, i);
    }
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++)
      e->A[i * n + j] = ldexp(A[i * n + j], e->c[i] + e->c[j]);
    e->b[i] = ldexp(b[i], e->c[i] - e->kb);
    e->tw[i] = ldexp(p->tol_w, e->c[i] - e->kb);
    e->tm[i] = ldexp(p->tol_mu, -e->c[i] - e->kb);
  }
  p->A = e->A;
  p->b = e->b;
  p->tw = e->tw;
  p->tm = e->tm;
  return CDYN_OK;
}

/* mu of the problem as given (*p, pointed back at it) from the solve's
   mu', and w = A mu + b recomputed in long double, whose range holds every
   product (a row whose b' fell below the normal range would otherwise
   bring back only the digits it kept); frees the copy. */
static void unscale(equilibrated *e, const cdyn_as_problem *p, double *mu, double *w)
{
  size_t n = p->n;
  for (size_t k = 0; k < n; k++)
    mu[k] = ldexp(mu[k], e->c[k] + e->kb);
  for (size_t i = 0; i < n; i++) {
    long double acc = p->b[i];
    for (size_t j = 0; j < n; j++)
      acc += (long double)p->A[i * n + j] * (long double)mu[j];
    w[i] = (double)acc;
  }
  equilibrated_free(e);
}

int cdyn_activeset_solve(const char *name, size_t n, const double *A, const double *b,
                         const unsigned char *equality, const unsigned char *prev,
                         double rel_tol, double *mu, double *w, unsigned char *handled,
                         cdyn_activeset_report *rep)
{
  const cdyn_activeset_type *type;
  if (!name)
    return cdyn_error(CDYN_EINVAL, "cdyn_activeset_solve: algorithm name is NULL");
  int rc = cdyn_activeset_type_find(name, &type);
  if (rc)
    return rc;
  if (n < 1 || n > 4096)
    return cdyn_error(CDYN_EINVAL, "cdyn_activeset_solve: n = %zu rows (1 .. 4096)", n);
  if (!A || !b || !mu || !w)
    return cdyn_error(CDYN_EINVAL, "cdyn_activeset_solve: A, b, mu and w must not be NULL");
  /* A sign tolerance is a rounding allowance: above 1e-3 of the problem's
     scale it would call non-zero values zero and break the exact solver's
     pivoting (a fuzzed problem at rel_tol = 0.5 left w = -2 tol_w). */
  if (!(rel_tol > 0 && rel_tol <= 1e-3))
    return cdyn_error(CDYN_EINVAL, "cdyn_activeset_solve: rel_tol = %g must lie in (0, 1e-3]", rel_tol);
  if (!cdyn_all_finite(A, n * n) || !cdyn_all_finite(b, n))
    return cdyn_error(CDYN_ENONFINITE, "cdyn_activeset_solve: A or b is not finite");
  for (size_t i = 0; i < n; i++) {
    if (!(A[i * n + i] >= 0))
      return cdyn_error(CDYN_EINVAL,
                        "cdyn_activeset_solve: A[%zu][%zu] = %g < 0: A is not positive semi-definite",
                        i, i, A[i * n + i]);
    for (size_t j = 0; j < i; j++) {
      /* Relative to the diagonal as well: an off-diagonal entry of
         J W J^T formed with cancellation can differ from its mirror by
         more than 1e-12 of itself, but not of sqrt(A_ii A_jj), which
         bounds it for a positive semi-definite A. */
      double d = fabs(A[i * n + j] - A[j * n + i]);
      double g = sqrt(A[i * n + i]) * sqrt(A[j * n + j]); /* no overflow for entries up to 1e308 */
      double s = fabs(A[i * n + j]) + fabs(A[j * n + i]) + g;
      if (d > 1e-12 * s)
        return cdyn_error(CDYN_EINVAL, "cdyn_activeset_solve: A is not symmetric (A[%zu][%zu] = %g, A[%zu][%zu] = %g)",
                          i, j, A[i * n + j], j, i, A[j * n + i]);
      /* Every 2 x 2 principal minor of a positive semi-definite A is >= 0:
         |A_ij| <= sqrt(A_ii A_jj), up to the rounding of forming it. */
      if (fabs(A[i * n + j]) > g * (1 + 1e-12) + 1e-300)
        return cdyn_error(CDYN_EINVAL,
                          "cdyn_activeset_solve: A is not positive semi-definite (|A[%zu][%zu]| = %g > "
                          "sqrt(A[%zu][%zu] A[%zu][%zu]) = %g)",
                          i, j, fabs(A[i * n + j]), i, i, j, j, g);
    }
  }
  cdyn_as_ws ws;
  unsigned char *h = handled ? handled : malloc(n);
  if (!h)
    return cdyn_error(CDYN_ENOMEM, "cdyn_activeset_solve: out of memory");
  if ((rc = cdyn_as_ws_alloc(&ws, n))) {
    if (!handled)
      free(h);
    return rc;
  }
  /*
   * A problem of extreme scale (a diagonal entry of A or the largest |b_k|
   * beyond 2^+-400, where the algorithms' products and noise estimates
   * would overflow or underflow) is solved equilibrated by powers of two,
   * which are exact: with D = diag(2^c_k), c_k = -floor(e_k / 2) for
   * A_kk = m 2^e_k (0 for a zero row), and s = 2^-kb normalising max |D b|,
   *   A' = D A D,  b' = s D b   give   mu = D mu' / s,  w = D^-1 w' / s.
   * Every A'_kk lies in [1/2, 2) and, A being semi-definite, every
   * |A'_jk| below 2; the signs of mu and w are those of mu' and w'.  The
   * sign tolerances stay those of the given problem, carried row by row:
   * w_k < -tol_w is w'_k < -tol_w 2^(c_k - kb), and mu_k < -tol_mu is
   * mu'_k < -tol_mu 2^(-c_k - kb).  (One common factor for A is not
   * enough: a diagonal spanning more than the double range, 1e308 beside
   * 1e-13, left the small rows subnormal and their multipliers wrong in
   * the third digit.  Nor are the equilibrated rows' own tolerances: they
   * let a row with w = -1e300 pass against tol_w = 1.8e299.)  Problems
   * within that range are solved as they are, bit for bit as before.
   */
  int extreme = 0;
  double bmax = 0;
  for (size_t i = 0; i < n; i++) {
    double d = A[i * n + i];
    if (d > 0 && (d > 0x1p400 || d < 0x1p-400))
      extreme = 1;
    bmax = fmax(bmax, fabs(b[i]));
  }
  if (bmax > 0 && (bmax > 0x1p400 || bmax < 0x1p-400))
    extreme = 1;
  cdyn_as_problem p = {.n = n, .A = A, .b = b, .equality = equality, .prev = prev, .rank_tol = 1e-12};
  cdyn_as_tolerances(&p, rel_tol);
  equilibrated eq = {0};
  if (extreme && (rc = equilibrate(&eq, &p))) {
    cdyn_as_ws_free(&ws);
    if (!handled)
      free(h);
    return rc;
  }
  cdyn_activeset_report r;
  memset(&r, 0, sizeof r);
  rc = type->solve(&ws, &p, mu, w, h, &r);
  if (extreme) {
    /* The report's extremes and the equality check, of the problem as given. */
    p.A = A;
    p.b = b;
    p.tw = p.tm = NULL;
    unscale(&eq, &p, mu, w);
  }
  /* A success means usable numbers: a solve that overflowed (A badly
     scaled, or indefinite beyond what the 2 x 2 test sees) says so. */
  if (rc >= 0 && (!cdyn_all_finite(mu, n) || !cdyn_all_finite(w, n)))
    rc = cdyn_error(CDYN_ENONFINITE,
                    "cdyn_activeset_solve (%s): the multipliers or w are not finite: A is badly scaled or not "
                    "positive semi-definite",
                    name);
  if (rc >= 0) {
    /* Every algorithm's equality rows are checked here, so an inconsistent
       set is an error whichever algorithm was asked (the report is still
       filled). */
    int fin = cdyn_as_finish(&p, mu, w, h, &r);
    if (fin)
      rc = fin;
  }
  if (rep)
    *rep = r;
  cdyn_as_ws_free(&ws);
  if (!handled)
    free(h);
  return rc;
}
