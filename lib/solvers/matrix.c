/*
 * matrix.c: what any solver may do with the matrix it is given
 * (cdyn/solver.h): the product y = A x through A's compressed rows (and,
 * for the library's schemes and stepper, that product as the `apply` of
 * a matrix whose ctx is itself), the relative residual |A x - b| / |b|,
 * and the half-bandwidth of A's pattern.
 *
 *   y_i = sum over k in rowptr[i] .. rowptr[i+1]-1 of val[k] x[col[k]]
 *
 * Each sum runs in storage order, so that the same matrix and x give the
 * same bits whichever solver asks.
 */
#include <math.h>

#include "cdyn/solver.h"
#include "core/internal.h"
#include "solvers/lsq.h"

void cdyn_matrix_apply(const cdyn_matrix *A, const double *x, double *y)
{
  if (!A || !x || !y)
    return;
  const int *rp = A->rowptr, *col = A->col;
  const double *val = A->val;
  size_t i = 0;
  /* Two rows at a time, each summed in its own order: the two sums'
     additions overlap. */
  for (; i + 2 <= A->m; i += 2) {
    double a0 = 0, a1 = 0;
    int k0 = rp[i], e0 = rp[i + 1], k1 = rp[i + 1], e1 = rp[i + 2];
    for (; k0 < e0 && k1 < e1; k0++, k1++) {
      a0 += val[k0] * x[col[k0]];
      a1 += val[k1] * x[col[k1]];
    }
    for (; k0 < e0; k0++)
      a0 += val[k0] * x[col[k0]];
    for (; k1 < e1; k1++)
      a1 += val[k1] * x[col[k1]];
    y[i] = a0;
    y[i + 1] = a1;
  }
  for (; i < A->m; i++) {
    double acc = 0;
    for (int k = rp[i]; k < rp[i + 1]; k++)
      acc += val[k] * x[col[k]];
    y[i] = acc;
  }
}

int cdyn_matrix_apply_self(const void *A, const double *x, double *y)
{
  cdyn_matrix_apply(A, x, y);
  return CDYN_OK;
}

size_t cdyn_matrix_bandwidth(const cdyn_matrix *A)
{
  size_t kd = 0;
  if (!A)
    return 0;
  for (size_t i = 0; i < A->m; i++)
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      size_t j = (size_t)A->col[k], d = i > j ? i - j : j - i;
      if (d > kd)
        kd = d;
    }
  return kd;
}

double cdyn_matrix_residual(const cdyn_matrix *A, const double *b, const double *x, double *work)
{
  cdyn_matrix_apply(A, x, work);
  double rr = 0, bb = 0;
  for (size_t i = 0; i < A->m; i++) {
    rr += (work[i] - b[i]) * (work[i] - b[i]);
    bb += b[i] * b[i];
  }
  return bb > 0 ? sqrt(rr / bb) : sqrt(rr);
}
