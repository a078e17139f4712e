/*
 * baraff_witkin.c: linearised backward Euler on all springs (Baraff and
 * Witkin 1998, "Large steps in cloth simulation", eqs 15-17 and sec. 5.3),
 * the global implicit integrator 001 sec. V-B compares its adaptive
 * constraints against.
 *
 * One step from (x0, v0):
 *   (M - h D - h^2 K) dv = h (f0 + h K v0),   v+ = v0 + dv,   x+ = x0 + h v+,
 * with f0 = F(x0, v0, t) the whole applied force (springs, gravity, the
 * force callback) and K = df/dx, D = df/dv the Jacobians of the springs
 * alone.  For a spring between i and j, n = x_ij / r (doc/cloth.md, "Baraff–Witkin"):
 *   df_i/dx_i = -k [n n^T + (1 - L0/r)(I - n n^T)] = -df_i/dx_j,
 *   df_i/dv_i = -c n n^T                           = -df_i/dv_j
 * (cdyn_spring_jacobians).  The force callback is treated explicitly: its
 * Jacobian is not known.  Under compression (r < L0) the second term of
 * df/dx is indefinite; option `compression` either drops it there (choi-ko,
 * Choi and Ko 2002, the default: the matrix stays symmetric positive
 * definite) or keeps it (exact, and the matrix may be indefinite).
 *
 * Constraints: pins only, which sec. 5.3 handles by filtering.  A pinned
 * particle's velocity change is prescribed, z = (p(t + h) - x0) / h - v0,
 * so that it lands on its pin exactly (for a fixed pin, z = -v0); the free
 * degrees of freedom solve the rest, by the stepper's `solver` option:
 *   auto     (the default) the paper's modified conjugate gradients: start
 *            from dv = z, filter the residual and every search direction
 *            (pinned components to zero), Jacobi preconditioner
 *            P = diag(A), stop at r^T P^-1 r <= cg_tol^2 (b~^T P^-1 b~)
 *            (their eq. and stopping rule, b~ the filtered right-hand
 *            side), or after cg_maxiter iterations (CDYN_NOCONV);
 *   a solver type (cholmod, cholesky, banded, pcg, or one registered:
 *            cdyn/solver.h), with its own options: the reduced system, in
 *            which the pinned rows and columns are replaced by the
 *            identity and their coupling moved to the right-hand side,
 *            A_ff dv_f = b_f - A_fp z_p, which keeps one pattern whatever
 *            is pinned.  cholmod is the sparse direct choice; cholesky
 *            stores 3n x 3n and suits small systems only.
 * Any other enabled constraint is refused (the stepper does so when it is
 * made or when the set changes: cdyn_scheme_type.pins_only).
 *
 * Multipliers.  A pin's multiplier is the force its rows exert in the
 * linearised step, in the library's convention (M dv / h = f - J^T lambda,
 * J = I): lambda = (b - A dv)_pinned / h, the residual of the full,
 * unfiltered system on the pinned components: a backward-Euler impulse,
 * which belongs to the step's midpoint t + h/2 (lambda_time).
 *
 * Order 1 (backward Euler); the energy of an undamped spring decays at a
 * rate proportional to h (the method's numerical damping), which
 * tests/test_cloth.c measures on a spring pendulum.
 *
 * Storage.  A is 3n x 3n in compressed sparse rows of 3 x 3 blocks: the
 * particle's own block and one per spring neighbour, the diagonal entry
 * first in each row (the convention of lib/solvers).  The pattern is
 * built at the first step after the springs or the solver option changed
 * (it allocates then,
 * as a sparse solver's analysis of a new pattern does, and is counted in
 * cdyn_stats.analyses); other steps do not allocate.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

enum { COMP_CHOI_KO, COMP_KEEP };

typedef struct {
  double cg_tol;
  long cg_maxiter;
  int compression;
} opts;

typedef struct {
  size_t n;
  /* 3n each */
  double *b, *dv, *z, *r, *c, *qv, *s, *pinv, *rhs, *work;
  unsigned char *pinned; /* 3n */
  double *phi;           /* mcap: pins' Phi at t + h */
  size_t mcap;
  /* The pattern: 3n + 1 row pointers, nnz columns and values (val the
     true A, red the reduced one), for the springs at version `version`. */
  int *rowptr, *col;
  double *val, *red, *diag;
  /* The same pattern by blocks, for the products: particle i's
     neighbours (its off-diagonal blocks' columns, in their order in the
     rows) are bcol[bptr[i] .. bptr[i + 1] - 1]. */
  size_t *bptr, *bcol;
  size_t nnz;
  size_t *blk;      /* per spring: the offsets of its blocks ij and ji (2 each) */
  size_t nspr;      /* springs the pattern was built for */
  unsigned long version;
  int have_pattern;
  unsigned long pattern_id;
  /* The solver type the stepper's `solver` option names (NULL: auto, the
     filtered PCG), and its instance, made with the pattern. */
  const cdyn_solver_type *stype;
  void *sstate;
  unsigned long cg_iterations; /* of the last step */
} state;

static void drop_pattern(state *s)
{
  free(s->rowptr);
  free(s->col);
  free(s->val);
  free(s->red);
  free(s->diag);
  free(s->blk);
  free(s->bptr);
  free(s->bcol);
  s->bptr = s->bcol = NULL;
  s->rowptr = s->col = NULL;
  s->val = s->red = s->diag = NULL;
  s->blk = NULL;
  if (s->stype && s->sstate)
    s->stype->free(s->sstate);
  s->sstate = NULL;
  s->stype = NULL;
  s->have_pattern = 0;
}

static void st_free(void *p)
{
  state *s = p;
  if (!s)
    return;
  drop_pattern(s);
  free(s->b);
  free(s->pinned);
  free(s->phi);
  free(s);
}

static int st_alloc(void **out, size_t n, size_t mcap)
{
  state *s = calloc(1, sizeof *s);
  if (!s)
    return cdyn_error(CDYN_ENOMEM, "baraff-witkin: out of memory");
  s->n = n;
  s->mcap = mcap;
  size_t n3 = 3 * n;
  s->b = calloc(10 * n3 + 1, sizeof(double));
  s->pinned = calloc(n3 + 1, 1);
  s->phi = calloc(mcap + 1, sizeof(double));
  if (!s->b || !s->pinned || !s->phi) {
    st_free(s);
    return cdyn_error(CDYN_ENOMEM, "baraff-witkin: out of memory");
  }
  double **arr[] = {&s->dv, &s->z, &s->r, &s->c, &s->qv, &s->s, &s->pinv, &s->rhs, &s->work};
  for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++)
    *arr[k] = s->b + (k + 1) * n3;
  *out = s;
  return CDYN_OK;
}

/* Position of column `col` in block row of particle i: the row of
   component a starts at rowptr[3i + a]; blocks follow in the order of
   nbr (the particle itself first). */
static int build_pattern(state *s, const cdyn_system *sys, const cdyn_solver_type *stype)
{
  size_t n = s->n, n3 = 3 * n, ns = sys->nsprings;
  drop_pattern(s);
  size_t *deg = calloc(n + 1, sizeof(size_t));
  size_t *nbr = NULL, *start = calloc(n + 1, sizeof(size_t));
  int rc = CDYN_ENOMEM;
  if (!deg || !start)
    goto out;
  for (size_t k = 0; k < ns; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    if (sp->enabled && sp->i != sp->j) {
      deg[sp->i]++;
      deg[sp->j]++;
    }
  }
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    start[i] = total;
    total += deg[i];
  }
  start[n] = total;
  nbr = malloc((total + 1) * sizeof(size_t));
  if (!nbr)
    goto out;
  /* Neighbour lists, duplicates (two springs on one pair) merged. */
  memset(deg, 0, (n + 1) * sizeof(size_t));
  for (size_t k = 0; k < ns; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    if (!sp->enabled || sp->i == sp->j)
      continue;
    size_t ends[2][2] = {{sp->i, sp->j}, {sp->j, sp->i}};
    for (int e = 0; e < 2; e++) {
      size_t a = ends[e][0], o = ends[e][1], dup = 0;
      for (size_t t = 0; t < deg[a] && !dup; t++)
        dup = nbr[start[a] + t] == o;
      if (!dup)
        nbr[start[a] + deg[a]++] = o;
    }
  }
  size_t nnz = 0;
  for (size_t i = 0; i < n; i++)
    nnz += 9 * (1 + deg[i]);
  s->rowptr = malloc((n3 + 1) * sizeof(int));
  s->col = malloc((nnz + 1) * sizeof(int));
  s->val = malloc((nnz + 1) * sizeof(double));
  s->red = malloc((nnz + 1) * sizeof(double));
  s->diag = malloc((n3 + 1) * sizeof(double));
  s->blk = malloc((2 * ns + 1) * sizeof(size_t));
  s->bptr = malloc((n + 1) * sizeof(size_t));
  s->bcol = malloc((total + 1) * sizeof(size_t));
  if (!s->rowptr || !s->col || !s->val || !s->red || !s->diag || !s->blk || !s->bptr || !s->bcol)
    goto out;
  if (nnz > (size_t)2147483647) {
    rc = cdyn_error(CDYN_EINVAL, "baraff-witkin: %zu non-zeros exceed the index range", nnz);
    goto fail;
  }
  size_t p = 0, nb = 0;
  for (size_t i = 0; i < n; i++) {
    s->bptr[i] = nb;
    for (size_t t = 0; t < deg[i]; t++)
      s->bcol[nb++] = nbr[start[i] + t];
  }
  s->bptr[n] = nb;
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++) {
      s->rowptr[3 * i + a] = (int)p;
      /* The own block, the diagonal entry first. */
      s->col[p++] = (int)(3 * i + a);
      for (int b = 0; b < 3; b++)
        if (b != a)
          s->col[p++] = (int)(3 * i + b);
      for (size_t t = 0; t < deg[i]; t++)
        for (int b = 0; b < 3; b++)
          s->col[p++] = (int)(3 * nbr[start[i] + t] + b);
    }
  s->rowptr[n3] = (int)p;
  /* Each spring's off-diagonal blocks: the offset of the block's first
     entry in row 3i (entry (a, b) is at rowptr[3i + a] - rowptr[3i] + that). */
  for (size_t k = 0; k < ns; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    s->blk[2 * k] = s->blk[2 * k + 1] = 0;
    if (!sp->enabled || sp->i == sp->j)
      continue;
    size_t ends[2][2] = {{sp->i, sp->j}, {sp->j, sp->i}};
    for (int e = 0; e < 2; e++) {
      size_t a = ends[e][0], o = ends[e][1], t = 0;
      while (nbr[start[a] + t] != o)
        t++;
      s->blk[2 * k + e] = (size_t)s->rowptr[3 * a] + 3 + 3 * t;
    }
  }
  s->nnz = nnz;
  s->nspr = ns;
  s->version = sys->version;
  s->have_pattern = 1;
  s->pattern_id++;
  if (stype) {
    if ((rc = stype->alloc(&s->sstate, n3))) {
      s->sstate = NULL;
      goto fail;
    }
    s->stype = stype;
  }
  rc = CDYN_OK;
  goto done;
out:
  rc = cdyn_error(CDYN_ENOMEM, "baraff-witkin: out of memory for the pattern of %zu particles", n);
fail:
  drop_pattern(s);
done:
  free(deg);
  free(start);
  free(nbr);
  return rc;
}

/* y = A x through the CSR storage with values val: each row's sum in the
   order of its entries, from 0 (the same bits as the plain CSR loop over
   rowptr and col), the three rows of a particle side by side and their
   columns taken from its blocks (bptr, bcol), not read entry by entry. */
static void csr_mul(const state *s, const double *val, const double *x, double *y)
{
  size_t n = s->n;
  for (size_t i = 0; i < n; i++) {
    const double *v0 = val + s->rowptr[3 * i], *v1 = val + s->rowptr[3 * i + 1], *v2 = val + s->rowptr[3 * i + 2];
    const double *xi = x + 3 * i;
    /* The own block: the diagonal entry first, then the other two in order. */
    double a0 = 0, a1 = 0, a2 = 0;
    a0 += v0[0] * xi[0], a1 += v1[0] * xi[1], a2 += v2[0] * xi[2];
    a0 += v0[1] * xi[1], a1 += v1[1] * xi[0], a2 += v2[1] * xi[0];
    a0 += v0[2] * xi[2], a1 += v1[2] * xi[2], a2 += v2[2] * xi[1];
    v0 += 3, v1 += 3, v2 += 3;
    for (size_t k = s->bptr[i]; k < s->bptr[i + 1]; k++, v0 += 3, v1 += 3, v2 += 3) {
      const double *xj = x + 3 * s->bcol[k];
      a0 += v0[0] * xj[0], a1 += v1[0] * xj[0], a2 += v2[0] * xj[0];
      a0 += v0[1] * xj[1], a1 += v1[1] * xj[1], a2 += v2[1] * xj[1];
      a0 += v0[2] * xj[2], a1 += v1[2] * xj[2], a2 += v2[2] * xj[2];
    }
    y[3 * i] = a0, y[3 * i + 1] = a1, y[3 * i + 2] = a2;
  }
}

static void filter(const state *s, double *x)
{
  for (size_t i = 0; i < 3 * s->n; i++)
    if (s->pinned[i])
      x[i] = 0;
}

static double dot(const double *a, const double *b, size_t len)
{
  double acc = 0;
  for (size_t i = 0; i < len; i++)
    acc += a[i] * b[i];
  return acc;
}

/* The modified PCG of sec. 5.3: dv starts at z; residual and directions
   filtered. */
static int filtered_pcg(state *s, const opts *o)
{
  size_t n3 = 3 * s->n;
  double *x = s->dv, *r = s->r, *c = s->c, *q = s->qv, *sv = s->s;
  memcpy(x, s->z, n3 * sizeof(double));
  for (size_t i = 0; i < n3; i++)
    s->pinv[i] = s->val[s->rowptr[i]] > 0 ? 1.0 / s->val[s->rowptr[i]] : 1.0;
  memcpy(sv, s->b, n3 * sizeof(double));
  filter(s, sv);
  double delta0 = 0;
  for (size_t i = 0; i < n3; i++)
    delta0 += sv[i] * sv[i] * s->pinv[i];
  csr_mul(s, s->val, x, q);
  for (size_t i = 0; i < n3; i++)
    r[i] = s->b[i] - q[i];
  filter(s, r);
  for (size_t i = 0; i < n3; i++)
    c[i] = s->pinv[i] * r[i];
  filter(s, c);
  double dnew = dot(r, c, n3), tol2 = o->cg_tol * o->cg_tol * delta0;
  unsigned long it = 0;
  while (dnew > tol2 && it < (unsigned long)o->cg_maxiter) {
    /* q = A c filtered, and c^T q (summed in the order of dot). */
    csr_mul(s, s->val, c, q);
    double cq = 0;
    for (size_t i = 0; i < n3; i++) {
      if (s->pinned[i])
        q[i] = 0;
      cq += c[i] * q[i];
    }
    if (!(cq > 0) || !isfinite(cq)) {
      s->cg_iterations = it;
      return cdyn_error(CDYN_ESOLVE,
                        "baraff-witkin: conjugate gradients met a direction of non-positive curvature (c^T A c = "
                        "%g) at iteration %lu: the system matrix is not positive definite (compression=keep?)",
                        cq, it);
    }
    double alpha = dnew / cq, dold = dnew;
    dnew = 0;
    for (size_t i = 0; i < n3; i++) {
      x[i] += alpha * c[i];
      r[i] -= alpha * q[i];
      sv[i] = s->pinv[i] * r[i];
      dnew += r[i] * sv[i];
    }
    double beta = dnew / dold;
    for (size_t i = 0; i < n3; i++)
      c[i] = s->pinned[i] ? 0 : sv[i] + beta * c[i];
    it++;
  }
  s->cg_iterations = it;
  if (!isfinite(dnew))
    return cdyn_error(CDYN_ENONFINITE, "baraff-witkin: conjugate gradients produced a non-finite residual");
  if (dnew > tol2)
    return cdyn_error(CDYN_NOCONV,
                      "baraff-witkin: conjugate gradients stopped at cg_maxiter = %lu iterations with the "
                      "relative residual %.3g above cg_tol = %.3g (raise cg_maxiter or cg_tol)",
                      it, sqrt(dnew / delta0), o->cg_tol);
  return CDYN_OK;
}

/* y = A_red x, the reduced matrix's operator (cdyn_matrix.apply). */
static int red_apply(const void *ctx, const double *x, double *y)
{
  const state *s = ctx;
  csr_mul(s, s->red, x, y);
  return CDYN_OK;
}

/* The reduced system: pinned rows and columns replaced by the identity,
   their coupling moved to the right-hand side, solved by the stepper's
   solver type with its options. */
static int reduced_solve(state *s, const void *sopts, double rank_tol, unsigned long *analyses)
{
  size_t n3 = 3 * s->n;
  /* rhs = b - A z over the free rows; z on the pinned ones. */
  csr_mul(s, s->val, s->z, s->work);
  for (size_t i = 0; i < n3; i++)
    s->rhs[i] = s->pinned[i] ? s->z[i] : s->b[i] - s->work[i]; /* z_f = 0: A z = A_fp z_p */
  for (size_t i = 0; i < n3; i++) {
    for (int k = s->rowptr[i]; k < s->rowptr[i + 1]; k++) {
      size_t j = (size_t)s->col[k];
      s->red[k] = (s->pinned[i] || s->pinned[j]) ? (i == j ? 1.0 : 0.0) : s->val[k];
    }
    s->diag[i] = s->red[s->rowptr[i]];
  }
  cdyn_matrix A = {.m = n3,
                   .nnz = s->nnz,
                   .rowptr = s->rowptr,
                   .col = s->col,
                   .val = s->red,
                   .diag = s->diag,
                   .pattern = s->pattern_id,
                   .apply = red_apply,
                   .ctx = s};
  cdyn_solve_info info = {0};
  int rc = s->stype->setup(s->sstate, &A, rank_tol, sopts, &info);
  *analyses += info.analyses;
  if (rc < 0)
    return rc;
  int rs = s->stype->solve(s->sstate, &A, 1, s->rhs, s->dv, rank_tol, sopts, &info);
  if (rs < 0)
    return rs;
  if (info.fallback)
    return cdyn_error(CDYN_ESOLVE,
                      "baraff-witkin: the reduced system is singular or indefinite (rank %u of %zu; "
                      "compression=keep?)",
                      info.rank, n3);
  return rc > 0 ? rc : rs;
}

static int step(cdyn_stepper *st, void *ctx, double h)
{
  state *s = ctx;
  cdyn_scheme_data *d = &st->d;
  const opts *o = d->opts;
  const cdyn_system *sys = st->sys;
  size_t n = d->n, n3 = 3 * n;
  const cdyn_solver_type *stype;
  const void *sopts;
  double rank_tol;
  int rc = cdyn_stepper_solver(st, &stype, &sopts, &rank_tol);
  if (rc)
    return rc;
  if (!s->have_pattern || s->version != sys->version || s->nspr != sys->nsprings || s->stype != stype) {
    if ((rc = build_pattern(s, sys, stype)))
      return rc;
    /* A new pattern: its allocation is counted as a sparse solver's
       analysis is (cdyn_stats.analyses). */
    st->stats.analyses++;
  }
  /* Pins: every row must be one. */
  memset(s->pinned, 0, n3);
  for (size_t r = 0; r < d->m; r++) {
    const cdyn_constraint *c = &sys->cons[d->rowcon[r]];
    if (c->type != &cdyn_ctype_pin)
      return cdyn_error(CDYN_EINVAL, "baraff-witkin: constraint %zu is '%s'; only pins are handled", d->rowcon[r],
                        c->type->name);
  }
  if (d->m && (rc = cdyn_eval_phi(st, d->q, d->t + h, s->phi, NULL)))
    return rc;
  memset(s->z, 0, n3 * sizeof(double));
  for (size_t r = 0; r < d->m; r += 3) {
    size_t p = d->rowpart[r * CDYN_MAX_PARTICLES];
    for (int a = 0; a < 3; a++) {
      size_t k = 3 * p + (size_t)a;
      if (s->pinned[k])
        return cdyn_error(CDYN_EINVAL, "baraff-witkin: particle %zu is pinned twice", p);
      s->pinned[k] = 1;
      /* p(t + h) = x0 - Phi(x0, t + h). */
      s->z[k] = -s->phi[r + (size_t)a] / h - d->v[k];
    }
  }
  /* f0, and A = M - h D - h^2 K, b = h (f0 + h K v0). */
  if ((rc = cdyn_forces(st, d->q, d->v, d->t, d->F)))
    return rc;
  memset(s->val, 0, s->nnz * sizeof(double));
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++) {
      s->val[s->rowptr[3 * i + a]] = d->mass[i];
      s->b[3 * i + a] = h * d->F[3 * i + a];
    }
  int comp = o->compression == COMP_CHOI_KO;
  for (size_t k = 0; k < sys->nsprings; k++) {
    const cdyn_spring *sp = &sys->springs[k];
    if (!sp->enabled || sp->i == sp->j)
      continue;
    double Kx[9], Kv[9], B[9];
    if ((rc = cdyn_spring_jacobians(sp, d->q + 3 * sp->i, d->q + 3 * sp->j, comp, Kx, Kv)))
      return rc;
    for (int e = 0; e < 9; e++)
      B[e] = -h * Kv[e] - h * h * Kx[e];
    const double *vi = d->v + 3 * sp->i, *vj = d->v + 3 * sp->j;
    size_t ends[2] = {sp->i, sp->j};
    for (int e = 0; e < 2; e++) {
      size_t a = ends[e];
      int r0 = s->rowptr[3 * a];
      double sgn = e ? -1.0 : 1.0;
      for (int x = 0; x < 3; x++) {
        int rs = s->rowptr[3 * a + x] - r0;
        /* Own block: entry (x, y) sits at the row start for y = x, then
           the other two in order. */
        int pos = s->rowptr[3 * a + x];
        s->val[pos] += B[3 * x + x];
        for (int y = 0, q = 1; y < 3; y++)
          if (y != x)
            s->val[pos + q++] += B[3 * x + y];
        for (int y = 0; y < 3; y++)
          s->val[s->blk[2 * k + e] + (size_t)rs + (size_t)y] -= B[3 * x + y];
        double kv = 0;
        for (int y = 0; y < 3; y++)
          kv += Kx[3 * x + y] * (vi[y] - vj[y]);
        s->b[3 * a + x] += sgn * h * h * kv;
      }
    }
  }
  int status;
  if (!stype)
    status = filtered_pcg(s, o);
  else
    status = reduced_solve(s, sopts, rank_tol, &st->stats.analyses);
  if (status < 0)
    return status;
  /* Multipliers: the unfiltered residual on the pinned components. */
  csr_mul(s, s->val, s->dv, s->work);
  for (size_t r = 0; r < d->m; r += 3) {
    size_t p = d->rowpart[r * CDYN_MAX_PARTICLES];
    for (int a = 0; a < 3; a++)
      d->lambda[r + (size_t)a] = (s->b[3 * p + (size_t)a] - s->work[3 * p + (size_t)a]) / h;
  }
  for (size_t i = 0; i < n3; i++) {
    d->v[i] += s->dv[i];
    d->q[i] += h * d->v[i];
  }
  return status;
}

static const char *const compression_names[] = {"choi-ko", "keep", NULL};

static const cdyn_option options[] = {
  {"cg_tol", CDYN_OPT_DOUBLE, offsetof(opts, cg_tol), "1e-8", 1e-16, 1.0, NULL,
   "solver=auto (the paper's filtered PCG): stop at r^T P^-1 r <= cg_tol^2 b^T P^-1 b (filtered)"},
  {"cg_maxiter", CDYN_OPT_INT, offsetof(opts, cg_maxiter), "10000", 1, 1e9, NULL,
   "solver=auto: iterations before the step returns CDYN_NOCONV"},
  {"compression", CDYN_OPT_CHOICE, offsetof(opts, compression), "choi-ko", 0, 0, compression_names,
   "choi-ko: drop the transverse stiffness of compressed springs (A stays positive definite); keep: exact Jacobian"},
  CDYN_OPTIONS_END};

const cdyn_scheme_type cdyn_scheme_baraff_witkin = {
  .name = "baraff-witkin",
  .description = "linearised backward Euler on all springs, pins by filtering (global implicit cloth integrator)",
  .source = "Baraff and Witkin 1998, eqs 15-17, sec 5.3",
  .order = 1,
  .lambda_order = 1,
  .lambda_time = CDYN_LAMBDA_MID,
  .options = options,
  .options_size = sizeof(opts),
  .alloc = st_alloc,
  .free = st_free,
  .step = step,
  .pins_only = 1,
  .own_system = 1,
  .implicit_springs = 1,
};
