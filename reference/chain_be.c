/*
 * reference/chain_be.c: the fully implicit step of a hanging chain by full
 * Newton on its banded KKT system; the equations are in chain_be.h.
 *
 * Residuals at an iterate (x, lambda), node i = 1..N, link j = 1..N,
 * d_j = x_j - x_(j-1), r_j = |d_j|, n_j = d_j / r_j, K_j = (I - n_j n_j^T) / r_j:
 *   R_i = m/h^2 (x_i - x_i^0 - h v_i^0) - m g + lambda_i n_i - lambda_(i+1) n_(i+1)
 *   c_j = r_j - l
 * (the lambda_(N+1) term absent).  Their derivatives, the Newton matrix:
 *   dR_i/dx_i       = m/h^2 I + lambda_i K_i + lambda_(i+1) K_(i+1)
 *   dR_i/dx_(i-1)   = -lambda_i K_i,   dR_i/dx_(i+1) = -lambda_(i+1) K_(i+1)
 *   dR_i/dlambda_i  = n_i,             dR_i/dlambda_(i+1) = -n_(i+1)
 *   dc_j/dx_j       = n_j^T,           dc_j/dx_(j-1) = -n_j^T  (j >= 2).
 * Unknown k of node i: x_i at 4(i-1) + a (a = 0, 1, 2), lambda_i at
 * 4(i-1) + 3; the widest coupling (x_i with lambda_(i+1)) is 7 apart.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "cdyn/error.h"
#include "reference/chain_be.h"

#define KL 7
#define KU 7
#define LDAB (2 * KL + KU + 1)

struct cdyn_ref_chain_be {
  size_t N;
  double l, m, g[3];
  double *q, *v, *lambda; /* 3(N+1), 3(N+1), N */
  double *x, *lam;        /* the iterate: 3(N+1) (node 0 fixed), N */
  double *nrm, *r;        /* 3N unit vectors of the links, N lengths */
  double *ab, *rhs;       /* LDAB * 4N band, 4N */
  lapack_int *ipiv;       /* 4N */
};

void cdyn_ref_chain_be_free(cdyn_ref_chain_be *c)
{
  if (!c)
    return;
  free(c->q);
  free(c->v);
  free(c->lambda);
  free(c->x);
  free(c->lam);
  free(c->nrm);
  free(c->r);
  free(c->ab);
  free(c->rhs);
  free(c->ipiv);
  free(c);
}

int cdyn_ref_chain_be_new(cdyn_ref_chain_be **out, size_t links, double length, double mass, const double g[3],
                          const double *q, const double *v)
{
  if (!out || !g || !q || !v)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_chain_be_new: NULL argument");
  *out = NULL;
  if (links < 1 || links > 1000000)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_chain_be_new: %zu links, expected 1 .. 1e6", links);
  if (!(length > 0) || !isfinite(length) || !(mass > 0) || !isfinite(mass) || !isfinite(g[0]) || !isfinite(g[1]) ||
      !isfinite(g[2]))
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_chain_be_new: length and mass must be positive and finite, g finite");
  size_t n3 = 3 * (links + 1), dim = 4 * links;
  for (size_t k = 0; k < n3; k++)
    if (!isfinite(q[k]) || !isfinite(v[k]))
      return cdyn_error(CDYN_EINVAL, "cdyn_ref_chain_be_new: non-finite state");
  cdyn_ref_chain_be *c = calloc(1, sizeof *c);
  if (!c)
    return cdyn_error(CDYN_ENOMEM, "cdyn_ref_chain_be_new: out of memory");
  c->N = links;
  c->l = length;
  c->m = mass;
  memcpy(c->g, g, sizeof c->g);
  c->q = malloc(n3 * sizeof *c->q);
  c->v = calloc(n3, sizeof *c->v);
  c->lambda = calloc(links, sizeof *c->lambda);
  c->x = malloc(n3 * sizeof *c->x);
  c->lam = malloc(links * sizeof *c->lam);
  c->nrm = malloc(3 * links * sizeof *c->nrm);
  c->r = malloc(links * sizeof *c->r);
  c->ab = malloc((size_t)LDAB * dim * sizeof *c->ab);
  c->rhs = malloc(dim * sizeof *c->rhs);
  c->ipiv = malloc(dim * sizeof *c->ipiv);
  if (!c->q || !c->v || !c->lambda || !c->x || !c->lam || !c->nrm || !c->r || !c->ab || !c->rhs || !c->ipiv) {
    cdyn_ref_chain_be_free(c);
    return cdyn_error(CDYN_ENOMEM, "cdyn_ref_chain_be_new: out of memory for %zu links", links);
  }
  memcpy(c->q, q, n3 * sizeof *q);
  memcpy(c->v + 3, v + 3, 3 * links * sizeof *v); /* node 0 is fixed */
  *out = c;
  return CDYN_OK;
}

/* A(row, col) += a in the band (column-major, dgbsv's layout). */
static void band_add(double *ab, size_t row, size_t col, double a)
{
  ab[(size_t)(KL + KU) + row - col + col * LDAB] += a;
}

/* Links' geometry, the residuals into rhs (negated, ready for the solve), and the convergence measure. */
static double residual(cdyn_ref_chain_be *c, double h)
{
  size_t N = c->N;
  double worst = 0, s = h * h / c->m;
  for (size_t j = 1; j <= N; j++) {
    const double *a = c->x + 3 * (j - 1), *b = c->x + 3 * j;
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    c->r[j - 1] = r;
    for (int k = 0; k < 3; k++)
      c->nrm[3 * (j - 1) + k] = d[k] / r;
    double cj = r - c->l;
    c->rhs[4 * (j - 1) + 3] = -cj;
    if (!(fabs(cj) <= worst))
      worst = fabs(cj);
  }
  for (size_t i = 1; i <= N; i++)
    for (int k = 0; k < 3; k++) {
      double R = c->m / (h * h) * (c->x[3 * i + k] - c->q[3 * i + k] - h * c->v[3 * i + k]) - c->m * c->g[k] +
                 c->lam[i - 1] * c->nrm[3 * (i - 1) + k];
      if (i < N)
        R -= c->lam[i] * c->nrm[3 * i + k];
      c->rhs[4 * (i - 1) + (size_t)k] = -R;
      if (!(fabs(R) * s <= worst))
        worst = fabs(R) * s;
    }
  return worst;
}

/* The Newton matrix at the iterate (residual() has set the geometry). */
static void newton_matrix(cdyn_ref_chain_be *c, double h)
{
  size_t N = c->N;
  memset(c->ab, 0, (size_t)LDAB * 4 * N * sizeof *c->ab);
  for (size_t i = 1; i <= N; i++)
    for (int a = 0; a < 3; a++)
      band_add(c->ab, 4 * (i - 1) + (size_t)a, 4 * (i - 1) + (size_t)a, c->m / (h * h));
  for (size_t j = 1; j <= N; j++) {
    const double *n = c->nrm + 3 * (j - 1);
    double lk = c->lam[j - 1] / c->r[j - 1];
    size_t xj = 4 * (j - 1), lj = xj + 3;
    for (int a = 0; a < 3; a++) {
      /* J and J^T entries of node j. */
      band_add(c->ab, xj + (size_t)a, lj, n[a]);
      band_add(c->ab, lj, xj + (size_t)a, n[a]);
      for (int b = 0; b < 3; b++) {
        double K = lk * ((a == b) - n[a] * n[b]);
        band_add(c->ab, xj + (size_t)a, xj + (size_t)b, K);
        if (j >= 2) {
          size_t xp = 4 * (j - 2);
          band_add(c->ab, xp + (size_t)a, xp + (size_t)b, K);
          band_add(c->ab, xj + (size_t)a, xp + (size_t)b, -K);
          band_add(c->ab, xp + (size_t)a, xj + (size_t)b, -K);
        }
      }
      if (j >= 2) {
        size_t xp = 4 * (j - 2);
        band_add(c->ab, xp + (size_t)a, lj, -n[a]);
        band_add(c->ab, lj, xp + (size_t)a, -n[a]);
      }
    }
  }
}

int cdyn_ref_chain_be_step(cdyn_ref_chain_be *c, double h, double tol, int max_iter, int *iters)
{
  if (!c)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_chain_be_step: NULL chain");
  if (!(h > 0) || !isfinite(h) || !(tol > 0) || !(tol <= 1e-3) || max_iter < 1)
    return cdyn_error(CDYN_EINVAL, "cdyn_ref_chain_be_step: h = %g, tol = %g, max_iter = %d", h, tol, max_iter);
  size_t N = c->N, dim = 4 * N;
  memcpy(c->x, c->q, 3 * sizeof *c->x);
  for (size_t i = 1; i <= N; i++)
    for (int k = 0; k < 3; k++)
      c->x[3 * i + k] = c->q[3 * i + k] + h * c->v[3 * i + k] + h * h * c->g[k];
  memcpy(c->lam, c->lambda, N * sizeof *c->lam);
  for (int it = 0;; it++) {
    double worst = residual(c, h);
    if (!isfinite(worst))
      return cdyn_error(CDYN_ENONFINITE, "chain_be: non-finite iterate at Newton iteration %d", it);
    if (worst <= tol * c->l) {
      for (size_t i = 1; i <= N; i++)
        for (int k = 0; k < 3; k++) {
          c->v[3 * i + k] = (c->x[3 * i + k] - c->q[3 * i + k]) / h;
          c->q[3 * i + k] = c->x[3 * i + k];
        }
      memcpy(c->lambda, c->lam, N * sizeof *c->lam);
      if (iters)
        *iters = it;
      return CDYN_OK;
    }
    if (it == max_iter)
      return cdyn_error(CDYN_NOCONV, "chain_be: Newton has not converged in %d iterations (%g)", max_iter, worst);
    newton_matrix(c, h);
    lapack_int info = LAPACKE_dgbsv_work(LAPACK_COL_MAJOR, (lapack_int)dim, KL, KU, 1, c->ab, LDAB, c->ipiv, c->rhs,
                                         (lapack_int)dim);
    if (info != 0)
      return cdyn_error(CDYN_ESOLVE, "chain_be: singular Newton matrix (dgbsv info %d)", (int)info);
    for (size_t i = 1; i <= N; i++) {
      for (int k = 0; k < 3; k++)
        c->x[3 * i + k] += c->rhs[4 * (i - 1) + (size_t)k];
      c->lam[i - 1] += c->rhs[4 * (i - 1) + 3];
    }
  }
}

const double *cdyn_ref_chain_be_q(const cdyn_ref_chain_be *c) { return c ? c->q : NULL; }
const double *cdyn_ref_chain_be_v(const cdyn_ref_chain_be *c) { return c ? c->v : NULL; }
const double *cdyn_ref_chain_be_lambda(const cdyn_ref_chain_be *c) { return c ? c->lambda : NULL; }

double cdyn_ref_chain_be_energy(const cdyn_ref_chain_be *c)
{
  if (!c)
    return NAN;
  double E = 0;
  for (size_t i = 1; i <= c->N; i++) {
    const double *x = c->q + 3 * i, *v = c->v + 3 * i;
    E += c->m * (0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - (c->g[0] * x[0] + c->g[1] * x[1] + c->g[2] * x[2]));
  }
  return E;
}
