/*
 * activeset.c: the active-set algorithms of 003 (one file each, one line
 * each in activesets.def), their lookup by name, and the public one-shot
 * solve cdyn_activeset_solve (cdyn/contact.h): the argument checks, the
 * equilibration of problems of extreme scale, and the checks of the
 * result that every algorithm gets.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "activeset/activeset.h"
#include "core/internal.h"

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
  /* In long: ilogb(0) is INT_MIN (tol_w cannot be 0 with rel_tol >= 2^-52
     and the DBL_MIN floor of cdyn_as_tolerances, but the sum must not
     overflow whatever it is). */
  for (size_t i = 0; i < n; i++)
    if (!(p->tol_w > 0) || (long)ilogb(p->tol_w) + (long)e->c[i] - (long)e->kb < -1000) {
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
     pivoting (a fuzzed problem at rel_tol = 0.5 left w = -2 tol_w); below
     the unit roundoff no sign test can meet it, and a subnormal one makes
     tol_w underflow to 0 (a fuzzed call at rel_tol = 1.4e-312 reached
     ilogb(0) = INT_MIN in the scale test below). */
  if (!(rel_tol >= DBL_EPSILON && rel_tol <= 1e-3))
    return cdyn_error(CDYN_EINVAL, "cdyn_activeset_solve: rel_tol = %g must lie in [%g, 1e-3] (the unit roundoff 2^-52 "
                      "up)", rel_tol, DBL_EPSILON);
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
      /* Each term scaled before the sum: their sum overflowed for entries
         near DBL_MAX, and an infinite allowance passed A_01 = 1.3e-6
         beside A_10 = 1.8e308 (fuzz corpus input fbb9c410). */
      double s = 1e-12 * fabs(A[i * n + j]) + 1e-12 * fabs(A[j * n + i]) + 1e-12 * g;
      if (d > s)
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
  /* Every algorithm's equality rows are checked here, so an inconsistent
     set is an error whichever algorithm was asked (the report is still
     filled); an exact algorithm's answer is then verified against the
     problem as given (cdyn_as_conclude). */
  rc = cdyn_as_conclude(type, &ws, &p, rc, mu, w, h, &r);
  if (rep)
    *rep = r;
  cdyn_as_ws_free(&ws);
  if (!handled)
    free(h);
  return rc;
}
