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
 * The product Ap is GSL's sparse gsl_spblas_dgemv on the CSR matrix.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_spblas.h>
#include <gsl/gsl_vector.h>

#include "cdyn_internal.h"

typedef struct {
  size_t m;
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

static int pcg_factor(void *q, const gsl_spmatrix *A, const cdyn_solve_opts *o,
                      cdyn_solve_info *info)
{
  (void)o;
  pcg_state *s = q;
  for (size_t i = 0; i < s->m; i++) {
    double d = 0;
    for (int k = A->p[i]; k < A->p[i + 1]; k++)
      if ((size_t)A->i[k] == i)
        d = A->data[k];
    /* A zero diagonal means an empty row: leave it unscaled. */
    s->dinv[i] = d > 0 ? 1.0 / d : 1.0;
  }
  info->fallback = 0;
  info->rank = (unsigned)s->m;
  return CDYN_OK;
}

static double dot(const double *a, const double *b, size_t m)
{
  double s = 0;
  for (size_t i = 0; i < m; i++)
    s += a[i] * b[i];
  return s;
}

static void matvec(const gsl_spmatrix *A, const double *x, double *y, size_t m)
{
  gsl_vector_const_view xv = gsl_vector_const_view_array(x, m);
  gsl_vector_view yv = gsl_vector_view_array(y, m);
  gsl_spblas_dgemv(CblasNoTrans, 1.0, A, &xv.vector, 0.0, &yv.vector);
}

static int pcg_solve(void *q, const gsl_spmatrix *A, const double *b, double *x,
                     const cdyn_solve_opts *o, cdyn_solve_info *info)
{
  pcg_state *s = q;
  size_t m = s->m;
  unsigned long maxit = o->pcg_maxiter > 0 ? (unsigned long)o->pcg_maxiter : 10 * (unsigned long)m;
  memset(x, 0, m * sizeof(double));
  memcpy(s->r, b, m * sizeof(double));
  double bnorm = sqrt(dot(b, b, m));
  info->iterations = 0;
  if (bnorm == 0) {
    info->residual = 0;
    return CDYN_OK;
  }
  for (size_t i = 0; i < m; i++)
    s->p[i] = s->z[i] = s->dinv[i] * s->r[i];
  double rz = dot(s->r, s->z, m);
  double rnorm = bnorm;
  unsigned long it = 0;
  while (rnorm > o->pcg_tol * bnorm && it < maxit) {
    matvec(A, s->p, s->ap, m);
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
    for (size_t i = 0; i < m; i++)
      s->z[i] = s->dinv[i] * s->r[i];
    double rz_new = dot(s->r, s->z, m);
    double beta = rz_new / rz;
    rz = rz_new;
    for (size_t i = 0; i < m; i++)
      s->p[i] = s->z[i] + beta * s->p[i];
  }
  /* Report the true residual rather than the recursively updated one. */
  matvec(A, x, s->ap, m);
  double rr = 0;
  for (size_t i = 0; i < m; i++)
    rr += (s->ap[i] - b[i]) * (s->ap[i] - b[i]);
  info->iterations = it;
  info->residual = sqrt(rr) / bnorm;
  if (!cdyn_all_finite(x, m))
    return cdyn_error(CDYN_ENONFINITE, "pcg: non-finite iterate after %lu iterations", it);
  if (info->residual > o->pcg_tol) {
    cdyn_error(CDYN_NOCONV, "pcg: relative residual %.3g after %lu iterations (tolerance %.3g)",
               info->residual, it, o->pcg_tol);
    return CDYN_NOCONV;
  }
  return CDYN_OK;
}

const cdyn_solver_type cdyn_solver_pcg = {
  .name = "pcg",
  .description = "conjugate gradients with a Jacobi preconditioner on the sparse A (GSL spblas)",
  .alloc = pcg_alloc,
  .free = pcg_free,
  .factor = pcg_factor,
  .solve = pcg_solve,
};
