/*
 * pcg.c: conjugate gradients with a Jacobi (diagonal) preconditioner on
 * the sparse A = J D J^T (001 sec. III solves eq. 16 this way).
 *
 *   r0 = b, x0 = 0, z = P^-1 r, p = z
 *   repeat: a = r.z / p.Ap;  x += a p;  r -= a Ap;
 *           stop when |r| <= tol |b|;
 *           z = P^-1 r;  beta = r.z_new / r.z_old;  p = z + beta p
 * with P = diag(A).  The start is x0 = 0 so that a step's result does not
 * depend on the history of earlier steps.  On a singular but consistent
 * system CG still converges (to a least-squares solution); when it cannot
 * reach the tolerance it stops after maxiter (default 10 m) iterations and
 * returns CDYN_NOCONV with its best iterate, a recoverable status.
 * With the Jacobi preconditioner the solver sees A only through the
 * operator A->apply (y = A x) and its diagonal A->diag, so it would work
 * unchanged on a matrix that is never assembled; sgs reads A's entries.  With several right-hand sides it solves them one after the
 * other.
 *
 * The preconditioner P (option pcg_precond):
 *   jacobi  P = D = diag(A) (the default);
 *   sgs     P = (D + L) D^-1 (D + U), one symmetric Gauss-Seidel sweep
 *           (A = L + D + U, L strictly lower): z = P^-1 r by a forward
 *           sweep (D + L) y = r and a backward sweep (D + U) z = D y, each
 *           about the cost of a product with A.  P is symmetric positive
 *           definite when A is (Saad, Iterative Methods for Sparse Linear
 *           Systems, 2nd ed., sec. 10.2), so CG stays CG.
 * An empty row (A_ii = 0) is left unscaled by both.
 *
 * Options: pcg_tol (relative residual at which it stops, default 1e-12),
 * pcg_maxiter (iteration limit, 0: 10 m) and pcg_precond.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/error.h"
#include "cdyn/solver.h"
#include "solvers/lsq.h"

typedef struct {
  double tol;
  long maxiter;
  int precond; /* index in precond_names */
} pcg_opts;

static const char *const precond_names[] = {"jacobi", "sgs", NULL};

typedef struct {
  size_t mcap, m;
  double *dinv, *r, *z, *p, *ap;
} pcg_state;

static void pcg_free(void *q)
{
  pcg_state *s = q;
  if (!s)
    return;
  free(s->dinv);
  free(s->r);
  free(s->z);
  free(s->p);
  free(s->ap);
  free(s);
}

static int pcg_alloc(void **out, size_t m)
{
  pcg_state *s = calloc(1, sizeof *s);
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "pcg: out of memory");
  size_t mm = m ? m : 1;
  s->mcap = m;
  s->m = m;
  s->dinv = malloc(mm * sizeof(double));
  s->r = malloc(mm * sizeof(double));
  s->z = malloc(mm * sizeof(double));
  s->p = malloc(mm * sizeof(double));
  s->ap = malloc(mm * sizeof(double));
  if (!s->dinv || !s->r || !s->z || !s->p || !s->ap) {
    pcg_free(s);
    return cdyn_error(CDYN_ENOMEM, "pcg: out of memory for m = %zu", m);
  }
  *out = s;
  return CDYN_OK;
}

static int pcg_setup(void *q, const cdyn_matrix *A, double rank_tol, const void *opts,
                     cdyn_solve_info *info)
{
  (void)rank_tol;
  (void)opts;
  pcg_state *s = q;
  if (A->m > s->mcap)
    return cdyn_error(CDYN_EINVAL, "pcg: %zu rows, sized for %zu", A->m, s->mcap);
  s->m = A->m;
  for (size_t i = 0; i < s->m; i++) {
    double d = A->diag[i];
    /* A zero diagonal means an empty row: leave it unscaled. */
    s->dinv[i] = d > 0 ? 1.0 / d : 1.0;
  }
  info->fallback = 0;
  info->rank = (unsigned)s->m;
  info->factorizations = 1;
  info->factor_nnz = 0; /* no factor: a diagonal */
  return CDYN_OK;
}

static double dot(const double *a, const double *b, size_t m)
{
  double s = 0;
  for (size_t i = 0; i < m; i++)
    s += a[i] * b[i];
  return s;
}

/* z = P^-1 r. */
static void precondition(const pcg_state *s, const cdyn_matrix *A, const pcg_opts *o, const double *r, double *z)
{
  size_t m = s->m;
  if (o->precond == 0) {
    for (size_t i = 0; i < m; i++)
      z[i] = s->dinv[i] * r[i];
    return;
  }
  /* Forward: (D + L) y = r, y in z; then D y; backward: (D + U) z = D y. */
  for (size_t i = 0; i < m; i++) {
    double acc = r[i];
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if ((size_t)A->col[k] < i)
        acc -= A->val[k] * z[A->col[k]];
    z[i] = acc * s->dinv[i];
  }
  for (size_t i = m; i-- > 0;) {
    double acc = z[i] / s->dinv[i];
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if ((size_t)A->col[k] > i)
        acc -= A->val[k] * z[A->col[k]];
    z[i] = acc * s->dinv[i];
  }
}

/* One right-hand side. */
static int pcg_one(pcg_state *s, const cdyn_matrix *A, const double *b, double *x, const pcg_opts *o,
                   cdyn_solve_info *info)
{
  size_t m = s->m;
  unsigned long maxit = o->maxiter > 0 ? (unsigned long)o->maxiter : 10 * (unsigned long)m;
  int rc;
  memset(x, 0, m * sizeof(double));
  memcpy(s->r, b, m * sizeof(double));
  double bnorm = sqrt(dot(b, b, m));
  info->iterations = 0;
  if (bnorm == 0) {
    info->residual = 0;
    return CDYN_OK;
  }
  precondition(s, A, o, s->r, s->z);
  memcpy(s->p, s->z, m * sizeof(double));
  double rz = dot(s->r, s->z, m);
  double rnorm = bnorm;
  unsigned long it = 0;
  while (rnorm > o->tol * bnorm && it < maxit) {
    if ((rc = A->apply(A->ctx, s->p, s->ap)))
      return rc;
    double pap = dot(s->p, s->ap, m);
    if (!(pap > 0))
      break; /* A is singular along p: no further progress is possible. */
    double a = rz / pap;
    for (size_t i = 0; i < m; i++) {
      x[i] += a * s->p[i];
      s->r[i] -= a * s->ap[i];
    }
    rnorm = sqrt(dot(s->r, s->r, m));
    it++;
    precondition(s, A, o, s->r, s->z);
    double rz_new = dot(s->r, s->z, m);
    double beta = rz_new / rz;
    rz = rz_new;
    for (size_t i = 0; i < m; i++)
      s->p[i] = s->z[i] + beta * s->p[i];
  }
  /* Report the true residual rather than the recursively updated one. */
  if ((rc = A->apply(A->ctx, x, s->ap)))
    return rc;
  double rr = 0;
  for (size_t i = 0; i < m; i++)
    rr += (s->ap[i] - b[i]) * (s->ap[i] - b[i]);
  info->iterations = it;
  info->residual = sqrt(rr) / bnorm;
  if (!cdyn_all_finite(x, m))
    return cdyn_error(CDYN_ENONFINITE, "pcg: non-finite iterate after %lu iterations", it);
  if (info->residual > o->tol) {
    cdyn_error(CDYN_NOCONV, "pcg: relative residual %.3g after %lu iterations (tolerance %.3g)",
               info->residual, it, o->tol);
    return CDYN_NOCONV;
  }
  return CDYN_OK;
}

static int pcg_solve(void *q, const cdyn_matrix *A, size_t nrhs, const double *b, double *x,
                     double rank_tol, const void *opts, cdyn_solve_info *info)
{
  (void)rank_tol;
  pcg_state *s = q;
  int worst = CDYN_OK;
  cdyn_solve_info all = {.rank = (unsigned)s->m, .skip_residual = info->skip_residual};
  for (size_t j = 0; j < nrhs; j++) {
    cdyn_solve_info one = {0};
    int rc = pcg_one(s, A, b + j * s->m, x + j * s->m, opts, &one);
    all.iterations += one.iterations;
    if (one.residual > all.residual)
      all.residual = one.residual;
    if (rc < 0) {
      *info = all;
      return rc;
    }
    if (rc > worst)
      worst = rc;
  }
  *info = all;
  return worst;
}

static const cdyn_option options[] = {
  {"pcg_tol", CDYN_OPT_DOUBLE, offsetof(pcg_opts, tol), "1e-12", 1e-16, 1.0, NULL,
   "relative residual at which PCG stops"},
  {"pcg_maxiter", CDYN_OPT_INT, offsetof(pcg_opts, maxiter), "0", 0, 1e9, NULL,
   "PCG iteration limit (0: 10 m)"},
  {"pcg_precond", CDYN_OPT_CHOICE, offsetof(pcg_opts, precond), "jacobi", 0, 0, precond_names,
   "preconditioner: jacobi (diag A) or sgs (one symmetric Gauss-Seidel sweep)"},
  CDYN_OPTIONS_END};

const cdyn_solver_type cdyn_solver_pcg = {
  .name = "pcg",
  .description = "conjugate gradients, preconditioned by diag A (jacobi) or a symmetric Gauss-Seidel sweep (sgs)",
  .iterative = 1,
  .options = options,
  .options_size = sizeof(pcg_opts),
  .alloc = pcg_alloc,
  .free = pcg_free,
  .setup = pcg_setup,
  .solve = pcg_solve,
};
