/*
 * tests/test_solvers.c: assembly of A = J W J^T and the linear solvers,
 * through the library's internals (core/internal.h).
 *
 * - The sparse A that cdyn_assemble builds from its precomputed pattern
 *   must equal a dense A = J W J^T formed here from a dense J, on planar
 *   chains of 10 to 500 links in random non-equilibrium configurations.
 * - Both solver types (Cholesky and PCG), called through their function
 *   pointers and through the stepper, must solve A x = b to a small
 *   residual and agree with an independent LAPACKE_dposv solve to within
 *   what the condition number of A allows.
 * - On singular A (a link or a pin added twice) Cholesky must take its
 *   least-squares path and return the minimum-norm least-squares solution
 *   (compared with LAPACKE_dgelsd), PCG must return a finite solution of a
 *   consistent system, and every scheme must still step.
 * - A system without constraints (m = 0) must step with every scheme.
 * - The solver interface: several right-hand sides at once, one setup per
 *   assembly, the pattern counter, and the factorisation reuse of SHAKE
 *   and RATTLE against Newton's refactoring.
 * - cdyn_solve_info.factor_nnz and cdyn_stats.factor_nnz: the entries of
 *   the factor each solver makes of a tridiagonal matrix, whose Cholesky
 *   factor has no fill (2m - 1 nonzeros for the sparse ones, the band's 2m,
 *   the dense triangle's m (m + 1) / 2, none for pcg), and the stepper's
 *   record of the last one.
 * - cdyn_solve_info.skip_residual: a direct solver gives bitwise the same
 *   solution without its residual pass and reports NaN; a non-finite
 *   solution is still refused (cholmod, banded); an iterative solver
 *   reports its residual anyway.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <lapacke.h>

#include "core/internal.h"
#include "testutil.h"

/* ---- fixtures ---------------------------------------------------------------- */

/*
 * A planar chain of `links` links of length 0.7, node 0 pinned, in a
 * random configuration (joint angles in [-2.5, 2.5) rad, so neither
 * hanging nor folded back on itself in any regular way), with random
 * masses in [0.5, 3) and random velocities in [-1, 1)^3.
 */
static cdyn_system *random_chain(size_t links, uint64_t *rng)
{
  double *joint = malloc(links * sizeof *joint);
  ck_assert_ptr_nonnull(joint);
  for (size_t k = 0; k < links; k++)
    joint[k] = tu_uniform(rng, -2.5, 2.5);
  cdyn_system *sys = NULL;
  int rc = tu_chain(&sys, links, 0.7, 1.0, joint);
  free(joint);
  ck_assert_msg(rc == CDYN_OK, "tu_chain: %d (%s)", rc, cdyn_errmsg());
  for (size_t i = 0; i <= links; i++) {
    double v[3] = {tu_rand(rng), tu_rand(rng), tu_rand(rng)};
    ck_assert_int_eq(cdyn_system_set_mass(sys, i, tu_uniform(rng, 0.5, 3.0)), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(sys, i, v), CDYN_OK);
  }
  return sys;
}

static cdyn_stepper *assembled_stepper(cdyn_system *sys)
{
  cdyn_stepper *st = NULL;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "implicit"), CDYN_OK);
  ck_assert_int_eq(cdyn_eval_rows(st, sys->q, sys->v, sys->t), CDYN_OK);
  ck_assert_int_eq(cdyn_assemble(st, sys->winv), CDYN_OK);
  return st;
}

/*
 * A dense J (m x 3n, row-major) filled by evaluating each enabled
 * constraint directly, so that neither the stepper's rows nor its pattern
 * and contribution list are involved.
 */
static double *dense_J(const cdyn_system *sys)
{
  size_t m = sys->m, n3 = 3 * sys->n;
  double *J = calloc(m * n3, sizeof *J);
  ck_assert_ptr_nonnull(J);
  size_t row0 = 0;
  for (size_t c = 0; c < sys->ncons; c++) {
    const cdyn_constraint *con = &sys->cons[c];
    if (!con->live || !con->enabled)
      continue;
    cdyn_row rows[CDYN_MAX_ROWS];
    ck_assert_int_eq(cdyn_constraint_eval(con, sys->q, sys->v, sys->t, rows), CDYN_OK);
    for (unsigned r = 0; r < con->type->rows; r++)
      for (unsigned s = 0; s < con->type->nparticles; s++)
        for (int k = 0; k < 3; k++)
          J[(row0 + r) * n3 + 3 * con->p[s] + (size_t)k] += rows[r].jac[s][k];
    row0 += con->type->rows;
  }
  return J;
}

/* Dense A = J W J^T (m x m, row-major), from dense_J. */
static double *dense_A(const cdyn_system *sys)
{
  size_t m = sys->m, n3 = 3 * sys->n;
  double *J = dense_J(sys), *A = calloc(m * m, sizeof *A);
  ck_assert_ptr_nonnull(A);
  for (size_t a = 0; a < m; a++)
    for (size_t col = 0; col < n3; col++) {
      double wj = sys->winv[col / 3] * J[a * n3 + col];
      if (wj == 0)
        continue;
      for (size_t b = 0; b < m; b++)
        A[a * m + b] += wj * J[b * n3 + col];
    }
  free(J);
  return A;
}

/*
 * The stepper's CSR A as a dense row-major matrix; fails on repeated
 * entries, on a row whose diagonal is not its first entry, and on a
 * diagonal that differs from the one the solver is given.
 */
static double *sparse_to_dense(const cdyn_matrix *S, size_t m)
{
  ck_assert_uint_eq(S->m, m);
  ck_assert_uint_eq((size_t)S->rowptr[m], S->nnz);
  double *A = calloc(m * m, sizeof *A);
  unsigned char *seen = calloc(m * m, 1);
  ck_assert_ptr_nonnull(A);
  ck_assert_ptr_nonnull(seen);
  for (size_t i = 0; i < m; i++) {
    ck_assert_int_eq(S->col[S->rowptr[i]], (int)i);
    ck_assert(S->diag[i] == S->val[S->rowptr[i]]);
    for (int k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) {
      size_t j = (size_t)S->col[k];
      TU_ASSERT(j < m, "CSR entry (%zu, %zu) beyond the %zu columns", i, j, m);
      TU_ASSERT(!seen[i * m + j], "CSR entry (%zu, %zu) stored twice", i, j);
      seen[i * m + j] = 1;
      A[i * m + j] = S->val[k];
    }
  }
  free(seen);
  return A;
}

static double *copy(const double *x, size_t len)
{
  double *y = malloc(len * sizeof *y);
  ck_assert_ptr_nonnull(y);
  memcpy(y, x, len * sizeof *y);
  return y;
}

static double norm(const double *x, size_t m)
{
  double s = 0;
  for (size_t i = 0; i < m; i++)
    s += x[i] * x[i];
  return sqrt(s);
}

/* |A x - b| / |b| with the dense A. */
static double rel_residual(const double *A, const double *x, const double *b, size_t m)
{
  double rr = 0;
  for (size_t i = 0; i < m; i++) {
    double r = -b[i];
    for (size_t j = 0; j < m; j++)
      r += A[i * m + j] * x[j];
    rr += r * r;
  }
  return sqrt(rr) / norm(b, m);
}

static double rel_diff(const double *x, const double *ref, size_t m)
{
  double d = 0;
  for (size_t i = 0; i < m; i++)
    d += (x[i] - ref[i]) * (x[i] - ref[i]);
  return sqrt(d) / norm(ref, m);
}

/* Eigenvalues of the symmetric dense A, ascending (LAPACKE_dsyev). */
static double *eigenvalues(const double *A, size_t m)
{
  double *a = copy(A, m * m), *w = malloc(m * sizeof *w);
  ck_assert_ptr_nonnull(w);
  lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', (lapack_int)m, a, (lapack_int)m, w);
  ck_assert_int_eq(info, 0);
  free(a);
  return w;
}

/* The independent solution of the positive definite A x = b (dense,
   m x m) by LAPACKE_dposv, and A's condition number from its
   eigenvalues. */
static double *reference_solve(const double *Ad, size_t m, const double *b, double *cond)
{
  double *w = eigenvalues(Ad, m);
  ck_assert_msg(w[0] > 0, "A is not positive definite (min eigenvalue %g)", w[0]);
  *cond = w[m - 1] / w[0];
  free(w);
  double *a = copy(Ad, m * m), *xref = copy(b, m);
  ck_assert_int_eq(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', (lapack_int)m, 1, a, (lapack_int)m, xref, 1), 0);
  free(a);
  ck_assert_double_le(rel_residual(Ad, xref, b, m), 1e-10);
  return xref;
}

#define RANK_TOL 1e-12

/* The direct solvers, which must give the minimum-norm least-squares
   solution of a singular A. */
static const char *const direct_solvers[] = {"cholesky", "cholmod", "banded"};
#define NDIRECT ((int)(sizeof direct_solvers / sizeof direct_solvers[0]))

/* A solver type's option struct holding its defaults. */
static void *default_opts(const cdyn_solver_type *type)
{
  void *o = calloc(1, type->options_size ? type->options_size : 1);
  ck_assert_ptr_nonnull(o);
  for (size_t i = 0; i < cdyn_option_count(type->options); i++)
    ck_assert_int_eq(cdyn_option_parse(&type->options[i], o, type->options[i].def), CDYN_OK);
  return o;
}

/* Solve with a solver type through its function pointers. */
static int solve_with(const char *name, const cdyn_matrix *A, size_t m, const double *b,
                      double *x, cdyn_solve_info *info)
{
  const cdyn_solver_type *type = NULL;
  ck_assert_int_eq(cdyn_solver_type_find(name, &type), CDYN_OK);
  void *state = NULL, *opts = default_opts(type);
  ck_assert_int_eq(type->alloc(&state, m), CDYN_OK);
  memset(info, 0, sizeof *info);
  ck_assert_int_eq(type->setup(state, A, RANK_TOL, opts, info), CDYN_OK);
  cdyn_solve_info finfo = *info;
  int rc = type->solve(state, A, 1, b, x, RANK_TOL, opts, info);
  /* The setup's verdict on rank and fallback is what the solve reports. */
  ck_assert_uint_eq(info->rank, finfo.rank);
  ck_assert_int_eq(info->fallback, finfo.fallback);
  type->free(state);
  free(opts);
  return rc;
}

static void all_finite(const double *x, size_t len, const char *what)
{
  for (size_t i = 0; i < len; i++)
    ck_assert_msg(isfinite(x[i]), "%s[%zu] = %g is not finite", what, i, x[i]);
}

/* ---- assembly ------------------------------------------------------------------ */

static const size_t chain_sizes[] = {10, 50, 100, 500};
#define NSIZES (sizeof chain_sizes / sizeof chain_sizes[0])

/*
 * Each entry of A is a sum of at most two products d_p (J_a,p . J_b,p)
 * (two rows share at most two particles), each a three-term dot product
 * of unit vectors scaled by d_p, so the library and this test, summing in
 * different orders, differ by at most about 8 eps max|A| = 2e-15 max|A|.
 * 1e-13 max|A| leaves a margin of 50, while a missing or misplaced
 * contribution changes an entry by order max|A|.
 */
START_TEST(test_assembly_matches_dense)
{
  uint64_t rng = UINT64_C(0x9B05688C2B3E6C1F);
  for (size_t c = 0; c < NSIZES; c++) {
    cdyn_system *sys = random_chain(chain_sizes[c], &rng);
    cdyn_stepper *st = assembled_stepper(sys);
    size_t m = sys->m;
    ck_assert_uint_eq(m, 3 + chain_sizes[c]);
    double *Ad = dense_A(sys), *As = sparse_to_dense(&st->mat, m);
    double amax = 0, dmax = 0;
    for (size_t k = 0; k < m * m; k++) {
      amax = fmax(amax, fabs(Ad[k]));
      dmax = fmax(dmax, fabs(As[k] - Ad[k]));
    }
    ck_assert_msg(dmax <= 1e-13 * amax, "%zu links: max |A_sparse - A_dense| = %.3g, max |A| = %.3g",
                  chain_sizes[c], dmax, amax);
    free(Ad);
    free(As);
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
}
END_TEST

/* ---- non-singular solves ----------------------------------------------------------- */

/*
 * Tolerances.  Each solver is asked for a relative residual of 1e-12
 * (PCG stops there; Cholesky is backward stable, residual about m eps),
 * and 1e-10 is asserted, a margin of 100.  Two solutions with relative
 * residuals rho1, rho2 differ by at most cond_2(A) (rho1 + rho2) relative
 * to their size, so they must agree to 1e-10 cond_2(A), with cond_2 the
 * ratio of extreme eigenvalues, computed exactly here with dsyev.
 */
START_TEST(test_solvers_nonsingular)
{
  uint64_t rng = UINT64_C(0x1F83D9ABFB41BD6B);
  for (size_t c = 0; c < NSIZES; c++) {
    size_t links = chain_sizes[c];
    cdyn_system *sys = random_chain(links, &rng);
    cdyn_stepper *st = assembled_stepper(sys);
    size_t m = sys->m;
    double *Ad = dense_A(sys), *b = malloc(m * sizeof *b), *x = malloc(m * sizeof *x);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < m; i++)
      b[i] = tu_rand(&rng);

    double *w = eigenvalues(Ad, m);
    ck_assert_msg(w[0] > 0, "%zu links: A is not positive definite (min eigenvalue %g)", links, w[0]);
    const double cond = w[m - 1] / w[0], tol = 1e-10 * cond;

    /* The independent solution. */
    double *a = copy(Ad, m * m), *xref = copy(b, m);
    ck_assert_int_eq(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', (lapack_int)m, 1, a, (lapack_int)m, xref, 1),
                     0);
    ck_assert_double_le(rel_residual(Ad, xref, b, m), 1e-10);

    for (size_t s = 0; s < cdyn_solver_count(); s++) {
      const char *name = cdyn_solver_name(s);
      cdyn_solve_info info;
      int rc = solve_with(name, &st->mat, m, b, x, &info);
      ck_assert_msg(rc == CDYN_OK, "%s, %zu links: status %d (%s)", name, links, rc, cdyn_errmsg());
      all_finite(x, m, name);
      ck_assert_int_eq(info.fallback, 0);
      ck_assert_uint_eq(info.rank, m);
      double res = rel_residual(Ad, x, b, m);
      ck_assert_msg(res <= 1e-10, "%s, %zu links: relative residual %.3g", name, links, res);
      ck_assert_msg(info.residual <= 1e-10, "%s, %zu links: reported residual %.3g", name, links,
                    info.residual);
      double d = rel_diff(x, xref, m);
      ck_assert_msg(d <= tol, "%s, %zu links: |x - x_dposv| / |x_dposv| = %.3g > %.3g (cond %.3g)",
                    name, links, d, tol, cond);
    }

    /* Through the stepper, after switching solvers by name. */
    double *xs[2];
    const char *names[2] = {"pcg", "cholesky"};
    for (int k = 0; k < 2; k++) {
      ck_assert_int_eq(cdyn_stepper_set(st, "solver", names[k]), CDYN_OK);
      char buf[64];
      ck_assert_int_eq(cdyn_stepper_get(st, "solver", buf, sizeof buf), CDYN_OK);
      ck_assert_str_eq(buf, names[k]);
      xs[k] = malloc(m * sizeof(double));
      ck_assert_ptr_nonnull(xs[k]);
      ck_assert_int_eq(cdyn_factor(st), CDYN_OK);
      int rc = cdyn_solve(st, b, xs[k]);
      ck_assert_msg(rc == CDYN_OK, "stepper with %s, %zu links: %d (%s)", names[k], links, rc,
                    cdyn_errmsg());
      ck_assert_double_le(rel_residual(Ad, xs[k], b, m), 1e-10);
      ck_assert_double_le(rel_diff(xs[k], xref, m), tol);
    }
    ck_assert_double_le(rel_diff(xs[0], xs[1], m), tol);

    free(xs[0]);
    free(xs[1]);
    free(a);
    free(xref);
    free(w);
    free(Ad);
    free(b);
    free(x);
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
}
END_TEST

/*
 * The automatic choice is documented (cdyn/stepper.h): dense Cholesky up
 * to 256 rows of capacity, CHOLMOD above, whatever the structure: a chain
 * numbered along itself (A tridiagonal, where the banded solver is at its
 * best and still slower than CHOLMOD, make bench) and the same chain
 * closed into a loop by a link from node 1 to its last node (kd = m - 1).
 */
/*
 * A pinned hub (lib/core/pattern.c, "Pinned hubs"): particle 0, pinned,
 * with K = 60 particles in random places linked to it, and a ring of
 * links between them, random masses.  With K + 3 > 32 rows through it, the
 * stepper of an equality scheme eliminates it:
 *   - the matrix it stores and factors is M = [A', 0; 0, w_0 I] with
 *     A' = A without particle 0's terms, checked entry by entry against M
 *     formed here from the dense J (to 1e-14 of the row's scale: the
 *     same products summed in another order);
 *   - its pattern is linear: no entry couples two links through the hub;
 *   - through every solver, cdyn_solve answers A x = b with the dense A:
 *     the relative residual within 1e-10 and x within 1e-10 cond(A) of
 *     LAPACKE_dposv's, as test_solvers_nonsingular asks of a plain A;
 *   - the contact scheme, which reads A's entries, keeps A whole.
 */
START_TEST(test_pinned_hub)
{
  enum { K = 60 };
  uint64_t rng = UINT64_C(0x5DEECE66D1234567);
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, K + 1), CDYN_OK);
  const double o[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_set_mass(sys, 0, 2.5), CDYN_OK);
  for (size_t i = 1; i <= K; i++) {
    double x[3] = {tu_rand(&rng), tu_rand(&rng), tu_rand(&rng)};
    ck_assert_int_eq(cdyn_system_set_position(sys, i, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, i, tu_uniform(&rng, 0.5, 3.0)), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_distance(sys, 0, i, sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), NULL),
                     CDYN_OK);
  }
  for (size_t i = 1; i < K; i++)
    ck_assert_int_eq(cdyn_system_add_distance(sys, i, i + 1, 0.3, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, o, NULL), CDYN_OK);
  cdyn_stepper *st = assembled_stepper(sys);
  size_t m = sys->m, e = m - 3; /* the pin's rows, added last */
  ck_assert_uint_eq(m, 2 * K - 1 + 3);
  ck_assert_uint_eq(st->nhub, K);
  /* M from the dense J: A without particle 0's terms, the pin block w_0 I. */
  size_t n3 = 3 * sys->n;
  double *J = dense_J(sys), *Mref = calloc(m * m, sizeof *Mref);
  ck_assert_ptr_nonnull(Mref);
  for (size_t a = 0; a < m; a++)
    for (size_t b = 0; b < m; b++) {
      double sum = 0;
      for (size_t col = (a >= e && b >= e) ? 0 : 3; col < ((a >= e && b >= e) ? 3 : n3); col++)
        sum += sys->winv[col / 3] * J[a * n3 + col] * J[b * n3 + col];
      Mref[a * m + b] = sum;
    }
  double *Ms = sparse_to_dense(&st->mat, m);
  for (size_t a = 0; a < m; a++) {
    double scale = 0;
    for (size_t b = 0; b < m; b++)
      scale = fmax(scale, fabs(Mref[a * m + b]));
    for (size_t b = 0; b < m; b++)
      ck_assert_msg(fabs(Ms[a * m + b] - Mref[a * m + b]) <= 1e-14 * scale, "M[%zu][%zu] = %.17g, expected %.17g", a,
                    b, Ms[a * m + b], Mref[a * m + b]);
  }
  ck_assert_msg(st->nnz <= 8 * m, "the pattern holds %zu entries for %zu rows", st->nnz, m);
  /* cdyn_solve against the dense A. */
  double *Ad = dense_A(sys), *b = malloc(m * sizeof *b), *x = malloc(m * sizeof *x);
  ck_assert_ptr_nonnull(b);
  ck_assert_ptr_nonnull(x);
  for (size_t i = 0; i < m; i++)
    b[i] = tu_rand(&rng);
  double cond, *xref = reference_solve(Ad, m, b, &cond);
  const double tol = 1e-10 * cond;
  for (size_t k = 0; k < cdyn_solver_count(); k++) {
    const char *name = cdyn_solver_name(k);
    ck_assert_int_eq(cdyn_stepper_set(st, "solver", name), CDYN_OK);
    ck_assert_int_eq(cdyn_assemble(st, sys->winv), CDYN_OK);
    ck_assert_int_eq(cdyn_factor(st), CDYN_OK);
    int rc = cdyn_solve(st, b, x);
    ck_assert_msg(rc == CDYN_OK, "%s: %s", name, cdyn_errmsg());
    double res = rel_residual(Ad, x, b, m), d = rel_diff(x, xref, m);
    ck_assert_msg(res <= 1e-10, "%s: |A x - b| / |b| = %.3g", name, res);
    ck_assert_msg(d <= tol, "%s: |x - x_dposv| / |x_dposv| = %.3g > %.3g (cond %.3g)", name, d, tol, cond);
  }
  cdyn_stepper_free(st);
  /* A scheme that reads A keeps it whole. */
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "contact"), CDYN_OK);
  ck_assert_int_eq(cdyn_eval_rows(st, sys->q, sys->v, sys->t), CDYN_OK);
  ck_assert_int_eq(cdyn_assemble(st, sys->winv), CDYN_OK);
  ck_assert_uint_eq(st->nhub, 0);
  double *Ac = sparse_to_dense(&st->mat, m);
  for (size_t i = 0; i < m * m; i++)
    ck_assert_msg(fabs(Ac[i] - Ad[i]) <= 1e-14 * (1 + fabs(Ad[i])), "contact's A[%zu] = %.17g, dense %.17g", i, Ac[i],
                  Ad[i]);
  cdyn_stepper_free(st);
  free(J);
  free(Mref);
  free(Ms);
  free(Ad);
  free(Ac);
  free(b);
  free(x);
  free(xref);
  cdyn_system_free(sys);
}
END_TEST

START_TEST(test_auto_solver_choice)
{
  uint64_t rng = 3;
  for (size_t c = 0; c < NSIZES; c++) {
    for (int loop = 0; loop < 2; loop++) {
      cdyn_system *sys = random_chain(chain_sizes[c], &rng);
      if (loop) {
        double x1[3], xn[3];
        ck_assert_int_eq(cdyn_system_get_particle(sys, 1, NULL, x1, NULL), CDYN_OK);
        ck_assert_int_eq(cdyn_system_get_particle(sys, chain_sizes[c], NULL, xn, NULL), CDYN_OK);
        double d = sqrt((x1[0] - xn[0]) * (x1[0] - xn[0]) + (x1[1] - xn[1]) * (x1[1] - xn[1]) +
                        (x1[2] - xn[2]) * (x1[2] - xn[2]));
        ck_assert_int_eq(cdyn_system_add_distance(sys, 1, chain_sizes[c], d, NULL), CDYN_OK);
      }
      cdyn_stepper *st = NULL;
      ck_assert_int_eq(cdyn_stepper_new(&st, sys, "implicit"), CDYN_OK);
      char buf[64];
      ck_assert_int_eq(cdyn_stepper_get(st, "solver", buf, sizeof buf), CDYN_OK);
      const char *want = sys->m <= 256 ? "auto(cholesky)" : "auto(cholmod)";
      ck_assert_msg(!strcmp(buf, want), "%zu links%s, m = %zu: %s, want %s", chain_sizes[c],
                    loop ? " closed into a loop" : "", sys->m, buf, want);
      ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
      cdyn_stepper_free(st);
      cdyn_system_free(sys);
    }
  }
}
END_TEST

/* ---- singular A ---------------------------------------------------------------------- */

/*
 * A random chain with one constraint repeated: a link (one duplicated row,
 * rank m - 1) or the pin of node 0 (three duplicated rows, rank m - 3).
 * Duplicated rows of J give bitwise identical rows of A, so A is exactly
 * singular and every b of the form A y is exactly consistent.
 */
static cdyn_system *singular_chain(size_t links, int dup_pin, uint64_t *rng, size_t *defect)
{
  cdyn_system *sys = random_chain(links, rng);
  if (dup_pin) {
    const double origin[3] = {0, 0, 0};
    ck_assert_int_eq(cdyn_system_add_pin(sys, 0, origin, NULL), CDYN_OK);
    *defect = 3;
  } else {
    ck_assert_int_eq(cdyn_system_add_distance(sys, links / 2, links / 2 + 1, 0.7, NULL), CDYN_OK);
    *defect = 1;
  }
  return sys;
}

/*
 * Tolerances on a singular A.  With kappa = lambda_max / lambda_min over
 * the non-zero eigenvalues, the pseudo-inverse is as sensitive as the
 * inverse of a matrix of condition kappa, plus a leak of the part of b
 * along the null space through null vectors computed to an angle of
 * about eps kappa: together a relative error of about kappa (rho + eps
 * kappa).  For kappa <= 1e5 (asserted) that is below 1e-10 kappa, the
 * tolerance used, with the same margin as in the definite case.
 */
START_TEST(test_direct_singular_minimum_norm)
{
  const char *solver = direct_solvers[_i];
  uint64_t rng = UINT64_C(0x5BE0CD19137E2179);
  const size_t sizes[] = {10, 50};
  for (int dup_pin = 0; dup_pin < 2; dup_pin++)
    for (size_t c = 0; c < 2; c++) {
      size_t links = sizes[c], defect;
      cdyn_system *sys = singular_chain(links, dup_pin, &rng, &defect);
      cdyn_stepper *st = assembled_stepper(sys);
      size_t m = sys->m;
      double *Ad = dense_A(sys), *w = eigenvalues(Ad, m);
      const double kappa = w[m - 1] / w[defect];
      ck_assert_msg(kappa <= 1e5 && w[defect] > 1e-12 * w[m - 1],
                    "fixture: non-zero spectrum of A spans %.3g", kappa);
      const double tol = 1e-10 * kappa;
      double *b = malloc(m * sizeof *b), *y = malloc(m * sizeof *y), *x = malloc(m * sizeof *x);
      ck_assert_ptr_nonnull(b);
      ck_assert_ptr_nonnull(y);
      ck_assert_ptr_nonnull(x);

      for (int consistent = 0; consistent < 2; consistent++) {
        if (consistent) {
          for (size_t i = 0; i < m; i++)
            y[i] = tu_rand(&rng);
          for (size_t i = 0; i < m; i++) {
            b[i] = 0;
            for (size_t j = 0; j < m; j++)
              b[i] += Ad[i * m + j] * y[j];
          }
        } else {
          for (size_t i = 0; i < m; i++)
            b[i] = tu_rand(&rng);
        }
        cdyn_solve_info info;
        int rc = solve_with(solver, &st->mat, m, b, x, &info);
        ck_assert_msg(rc == CDYN_OK, "%s on singular A: %d (%s)", solver, rc, cdyn_errmsg());
        ck_assert_int_eq(info.fallback, 1);
        ck_assert_uint_eq(info.rank, m - defect);
        all_finite(x, m, "x");

        /* The minimum-norm least-squares solution, independently. */
        double *a = copy(Ad, m * m), *xls = copy(b, m), *sv = malloc(m * sizeof *sv);
        ck_assert_ptr_nonnull(sv);
        lapack_int rank = -1;
        ck_assert_int_eq(LAPACKE_dgelsd(LAPACK_ROW_MAJOR, (lapack_int)m, (lapack_int)m, 1, a,
                                        (lapack_int)m, xls, 1, sv, 1e-12, &rank),
                         0);
        ck_assert_int_eq(rank, (lapack_int)(m - defect));
        double d = rel_diff(x, xls, m);
        ck_assert_msg(d <= tol,
                      "%s: %s duplicated, %zu links, %s b: |x - x_dgelsd| / |x_dgelsd| = %.3g > %.3g", solver,
                      dup_pin ? "pin" : "link", links, consistent ? "consistent" : "random", d, tol);
        if (consistent) {
          double res = rel_residual(Ad, x, b, m);
          ck_assert_msg(res <= 1e-10, "consistent singular system: residual %.3g", res);
        }
        free(a);
        free(xls);
        free(sv);
      }

      /* PCG on the consistent system (b = A y from the last pass). */
      cdyn_solve_info info;
      int rc = solve_with("pcg", &st->mat, m, b, x, &info);
      ck_assert_msg(rc == CDYN_OK || rc == CDYN_NOCONV, "pcg on singular A: %d (%s)", rc,
                    cdyn_errmsg());
      all_finite(x, m, "x_pcg");
      double res = rel_residual(Ad, x, b, m);
      ck_assert_msg(res <= 1e-8, "pcg, %s duplicated, %zu links: residual %.3g",
                    dup_pin ? "pin" : "link", links, res);

      free(b);
      free(y);
      free(x);
      free(w);
      free(Ad);
      cdyn_stepper_free(st);
      cdyn_system_free(sys);
    }
}
END_TEST

/* Redundant constraints must not stop any scheme with any solver. */
START_TEST(test_schemes_step_redundant)
{
  uint64_t rng = UINT64_C(0xCBBB9D5DC1059ED8);
  for (int dup_pin = 0; dup_pin < 2; dup_pin++)
    for (size_t i = 0; i < tu_scheme_count(); i++)
      for (size_t s = 0; s < cdyn_solver_count(); s++) {
        size_t defect;
        cdyn_system *sys = singular_chain(10, dup_pin, &rng, &defect);
        cdyn_stepper *st = NULL;
        const char *scheme = tu_scheme_name(i), *solver = cdyn_solver_name(s);
        ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
        if (!tu_solver_fits(scheme, solver)) {
          ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_EINVAL);
          cdyn_stepper_free(st);
          cdyn_system_free(sys);
          continue;
        }
        ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_OK);
        for (int k = 0; k < 3; k++) {
          int rc = cdyn_stepper_step(st, 1e-3);
          ck_assert_msg(rc >= 0, "%s with %s, %s duplicated: step %d failed: %d (%s)", scheme,
                        solver, dup_pin ? "pin" : "link", k, rc, cdyn_errmsg());
        }
        all_finite(sys->q, 3 * sys->n, "q");
        all_finite(sys->v, 3 * sys->n, "v");
        double lambda[64];
        ck_assert_uint_le(sys->m, 64);
        ck_assert_int_eq(cdyn_stepper_multipliers(st, lambda), CDYN_OK);
        all_finite(lambda, sys->m, "lambda");
        cdyn_stepper_free(st);
        cdyn_system_free(sys);
      }
}
END_TEST

/* ---- no constraints ----------------------------------------------------------------------- */

/*
 * Three free particles under gravity, masses 1, 2 and 1/2 (so that
 * W F = m^-1 (m g) = g holds exactly in floating point).  Every scheme
 * integrates constant acceleration exactly in v; the implicit scheme's
 * v+ = v + h W F is literally h * (-9.81) here.  Other schemes may sum
 * their stages in another order, hence 4 ulps for them.
 */
START_TEST(test_no_constraints)
{
  const double g[3] = {0, -9.81, 0}, masses[3] = {1.0, 2.0, 0.5}, h = 0.01;
  for (size_t i = 0; i < tu_scheme_count(); i++) {
    const char *scheme = tu_scheme_name(i);
    cdyn_system *sys = NULL;
    cdyn_stepper *st = NULL;
    ck_assert_int_eq(cdyn_system_new(&sys, 3), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
    for (size_t p = 0; p < 3; p++) {
      const double x[3] = {(double)p, 0.5 * (double)p, -1.0};
      ck_assert_int_eq(cdyn_system_set_mass(sys, p, masses[p]), CDYN_OK);
      ck_assert_int_eq(cdyn_system_set_position(sys, p, x), CDYN_OK);
    }
    ck_assert_uint_eq(cdyn_system_row_count(sys), 0);
    ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
    int rc = cdyn_stepper_step(st, h);
    ck_assert_msg(rc == CDYN_OK, "%s with m = 0: %d (%s)", scheme, rc, cdyn_errmsg());
    ck_assert_double_eq(cdyn_system_time(sys), h);
    all_finite(sys->q, 9, "q");
    for (size_t p = 0; p < 3; p++) {
      double v[3];
      ck_assert_int_eq(cdyn_system_get_particle(sys, p, NULL, NULL, v), CDYN_OK);
      ck_assert_double_eq(v[0], 0.0);
      ck_assert_double_eq(v[2], 0.0);
      if (!strcmp(scheme, "implicit"))
        ck_assert_msg(v[1] == -9.81 * h, "implicit, particle %zu: v_y = %.17g, expected %.17g", p,
                      v[1], -9.81 * h);
      else
        ck_assert_msg(fabs(v[1] + 9.81 * h) <= 4 * 0x1p-52 * 9.81 * h,
                      "%s, particle %zu: v_y = %.17g, expected %.17g", scheme, p, v[1], -9.81 * h);
    }
    ck_assert_int_eq(cdyn_stepper_multipliers(st, NULL), CDYN_OK);
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
}
END_TEST

/* ---- the solver interface --------------------------------------------------------- */

/*
 * Every registered solver type through its interface: several right-hand
 * sides in one solve, each solved as well as alone (residual 1e-10, as
 * above); setups counted by the stepper, once per assembly, however many
 * times cdyn_factor is called; the pattern counter the solver sees changes
 * when the pattern does (a link switched off) and not otherwise (the same
 * link removed and added again, a fresh assembly).
 */
START_TEST(test_solver_interface)
{
  const char *name = cdyn_solver_name((size_t)_i);
  uint64_t rng = UINT64_C(0x5BE0CD19137E2179);
  cdyn_system *sys = random_chain(50, &rng);
  cdyn_stepper *st = assembled_stepper(sys);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", name), CDYN_OK);
  size_t m = sys->m;
  enum { NRHS = 3 };
  double *Ad = dense_A(sys), *b = malloc(NRHS * m * sizeof *b), *x = malloc(NRHS * m * sizeof *x);
  ck_assert_ptr_nonnull(b);
  ck_assert_ptr_nonnull(x);
  for (size_t i = 0; i < NRHS * m; i++)
    b[i] = tu_rand(&rng);
  cdyn_stats s0, s1;
  ck_assert_int_eq(cdyn_stepper_stats(st, &s0), CDYN_OK);
  ck_assert_int_eq(cdyn_factor(st), CDYN_OK);
  ck_assert_int_eq(cdyn_factor(st), CDYN_OK);
  ck_assert_int_eq(cdyn_solve_many(st, NRHS, b, x), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_stats(st, &s1), CDYN_OK);
  ck_assert_uint_eq(s1.factorizations - s0.factorizations, 1);
  ck_assert_uint_eq(s1.solves - s0.solves, NRHS);
  for (int j = 0; j < NRHS; j++) {
    double res = rel_residual(Ad, x + j * m, b + j * m, m);
    ck_assert_msg(res <= 1e-10, "%s: right-hand side %d of %d: relative residual %.3g", name, j, NRHS, res);
  }
  /* Assembling the same values again keeps the factorisation; other
     values (D = I instead of W) need a new one. */
  ck_assert_int_eq(cdyn_assemble(st, sys->winv), CDYN_OK);
  ck_assert_int_eq(cdyn_factor(st), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_stats(st, &s0), CDYN_OK);
  ck_assert_uint_eq(s0.factorizations - s1.factorizations, 0);
  double *ones = malloc(sys->n * sizeof *ones);
  ck_assert_ptr_nonnull(ones);
  for (size_t i = 0; i < sys->n; i++)
    ones[i] = 1.0;
  ck_assert_int_eq(cdyn_assemble(st, ones), CDYN_OK);
  ck_assert_int_eq(cdyn_factor(st), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_stats(st, &s0), CDYN_OK);
  ck_assert_uint_eq(s0.factorizations - s1.factorizations, 1);
  free(ones);
  /* The pattern counter. */
  unsigned long p0 = st->mat.pattern;
  ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
  ck_assert_uint_eq(st->mat.pattern, p0);
  ck_assert_int_eq(cdyn_system_enable_constraint(sys, 7, 0), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
  ck_assert_uint_ne(st->mat.pattern, p0);
  ck_assert_uint_eq(st->mat.m, m - 1);
  unsigned long p1 = st->mat.pattern;
  size_t id;
  ck_assert_int_eq(cdyn_system_remove_constraint(sys, 20), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 19, 20, 0.7, &id), CDYN_OK);
  ck_assert_uint_eq(id, 20);
  ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
  ck_assert_uint_eq(st->mat.pattern, p1);
  free(Ad);
  free(b);
  free(x);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * Reuse of a factorisation where it is valid: SHAKE solves its every
 * position correction with A(q) of the step's start, one setup per step
 * however many iterations; RATTLE's projection uses A(q+), which is the
 * next step's A(q), so it too needs one per step; Newton keeps the
 * factorisation of A(q) across its corrections unless one contracts the
 * residual by less than its option refactor.
 */
START_TEST(test_factorisation_reuse)
{
  static const char *const names[] = {"shake", "rattle", "newton"};
  for (int k = 0; k < 3; k++) {
    uint64_t rng = UINT64_C(0x6A09E667F3BCC908);
    cdyn_system *sys = random_chain(10, &rng);
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_stepper_new(&st, sys, names[k]), CDYN_OK);
    for (int i = 0; i < 20; i++)
      ck_assert_int_ge(cdyn_stepper_step(st, 2e-3), 0);
    cdyn_stats s;
    ck_assert_int_eq(cdyn_stepper_stats(st, &s), CDYN_OK);
    if (k == 0) {
      ck_assert_uint_eq(s.factorizations, s.steps);
      ck_assert_uint_ge(s.solves, 2 * s.steps);
    } else if (k == 1) {
      /* The projection's A(q_(n+1)) is the next step's A(q_n): one
         factorisation per step, and one for the last projection. */
      ck_assert_uint_eq(s.factorizations, s.steps + 1);
      ck_assert_uint_ge(s.solves, 3 * s.steps);
    } else {
      /* One factorisation per step, refactored when a correction
         contracts by less than 0.1 (none here, at h = 2e-3). */
      ck_assert_uint_eq(s.factorizations, s.steps);
      ck_assert_uint_ge(s.solves, 2 * s.steps);
    }
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
}
END_TEST

/* ---- conformance: every solver against LAPACKE, 10 to 20,000 rows ------------------ */

/*
 * A grid of nx x nx particles 0.1 m apart in the horizontal plane, moved
 * off it at random by up to 2 cm, with random masses in [0.5, 3), linked
 * along the grid's edges at their current lengths and pinned at two
 * opposite corners (two corners of one side would leave the row between
 * them nearly straight: A nearly singular): 2 nx (nx - 1) + 6 rows, the
 * first pin, the links row by row, the second pin, so that A's
 * half-bandwidth is about 2 nx.
 */
static cdyn_system *random_grid(size_t nx, uint64_t *rng)
{
  cdyn_system *sys = NULL;
  ck_assert_int_eq(cdyn_system_new(&sys, nx * nx), CDYN_OK);
  for (size_t i = 0; i < nx * nx; i++) {
    const double x[3] = {0.1 * (double)(i % nx), tu_uniform(rng, -0.02, 0.02), 0.1 * (double)(i / nx)};
    ck_assert_int_eq(cdyn_system_set_position(sys, i, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, i, tu_uniform(rng, 0.5, 3.0)), CDYN_OK);
  }
  double xa[3], xb[3];
  ck_assert_int_eq(cdyn_system_get_particle(sys, 0, NULL, xa, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(sys, 0, xa, NULL), CDYN_OK);
  for (size_t i = 0; i < nx * nx; i++)
    for (int dir = 0; dir < 2; dir++) {
      size_t j = dir ? i + nx : i + 1;
      if ((dir && j >= nx * nx) || (!dir && (i + 1) % nx == 0))
        continue;
      ck_assert_int_eq(cdyn_system_get_particle(sys, i, NULL, xa, NULL), CDYN_OK);
      ck_assert_int_eq(cdyn_system_get_particle(sys, j, NULL, xb, NULL), CDYN_OK);
      double d = sqrt((xa[0] - xb[0]) * (xa[0] - xb[0]) + (xa[1] - xb[1]) * (xa[1] - xb[1]) +
                      (xa[2] - xb[2]) * (xa[2] - xb[2]));
      ck_assert_int_eq(cdyn_system_add_distance(sys, i, j, d, NULL), CDYN_OK);
    }
  ck_assert_int_eq(cdyn_system_get_particle(sys, nx * nx - 1, NULL, xa, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(sys, nx * nx - 1, xa, NULL), CDYN_OK);
  return sys;
}

/* A random chain closed into a loop by a link from node 1 to its end. */
static cdyn_system *random_loop(size_t links, uint64_t *rng)
{
  cdyn_system *sys = random_chain(links, rng);
  double x1[3], xn[3];
  ck_assert_int_eq(cdyn_system_get_particle(sys, 1, NULL, x1, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_get_particle(sys, links, NULL, xn, NULL), CDYN_OK);
  double d = sqrt((x1[0] - xn[0]) * (x1[0] - xn[0]) + (x1[1] - xn[1]) * (x1[1] - xn[1]) +
                  (x1[2] - xn[2]) * (x1[2] - xn[2]));
  ck_assert_int_eq(cdyn_system_add_distance(sys, 1, links, d, NULL), CDYN_OK);
  return sys;
}

typedef struct {
  const char *kind; /* chain, grid, loop */
  size_t size;      /* links, or the grid's side */
} conf_case;

static const conf_case conf_cases[] = {
  {"chain", 10}, {"chain", 100}, {"chain", 1000}, {"chain", 5000}, {"chain", 20000},
  {"grid", 3},   {"grid", 10},   {"grid", 30},    {"grid", 100},
  {"loop", 10},  {"loop", 100},  {"loop", 1000},
};
#define NCONF ((int)(sizeof conf_cases / sizeof conf_cases[0]))
/* Largest A the dense reference (and the dense solver) is run on. */
#define DENSE_MAX 2000

/*
 * The reference solution of A x = b by LAPACKE, from A's CSR storage
 * (checked against an independent dense J W J^T in test_assembly): dposv
 * on the dense A up to DENSE_MAX rows, dpbsv on its band (kd = max |i - j|
 * in the rows' order) above; *kappa gets the 1-norm condition number
 * estimated by dpocon / dpbcon.
 */
static double *lapacke_reference(const cdyn_matrix *A, const double *b, double *kappa)
{
  size_t m = A->m;
  double *x = copy(b, m), rcond = 0;
  lapack_int n = (lapack_int)m;
  if (m <= DENSE_MAX) {
    double *a = sparse_to_dense(A, m);
    double anorm = LAPACKE_dlange(LAPACK_ROW_MAJOR, '1', n, n, a, n);
    ck_assert_int_eq(LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, a, n), 0);
    ck_assert_int_eq(LAPACKE_dpocon(LAPACK_ROW_MAJOR, 'L', n, a, n, anorm, &rcond), 0);
    ck_assert_int_eq(LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', n, 1, a, n, x, 1), 0);
    free(a);
  } else {
    size_t kd = 0;
    for (size_t i = 0; i < m; i++)
      for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        kd = fmax(kd, i > (size_t)A->col[k] ? i - (size_t)A->col[k] : (size_t)A->col[k] - i);
    /* Lower band storage, column-major: A(i, j) at ab[(i - j) + j (kd + 1)]. */
    size_t ld = kd + 1;
    double *ab = calloc(ld * m, sizeof *ab), anorm = 0;
    ck_assert_ptr_nonnull(ab);
    for (size_t i = 0; i < m; i++) {
      double rowsum = 0;
      for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        size_t j = (size_t)A->col[k];
        rowsum += fabs(A->val[k]);
        if (j <= i)
          ab[(i - j) + j * ld] = A->val[k];
      }
      anorm = fmax(anorm, rowsum);
    }
    ck_assert_int_eq(LAPACKE_dpbtrf(LAPACK_COL_MAJOR, 'L', n, (lapack_int)kd, ab, (lapack_int)ld), 0);
    ck_assert_int_eq(LAPACKE_dpbcon(LAPACK_COL_MAJOR, 'L', n, (lapack_int)kd, ab, (lapack_int)ld, anorm, &rcond), 0);
    ck_assert_int_eq(LAPACKE_dpbtrs(LAPACK_COL_MAJOR, 'L', n, (lapack_int)kd, 1, ab, (lapack_int)ld, x, n), 0);
    free(ab);
  }
  *kappa = 1.0 / rcond;
  return x;
}

static double max_rel_diff(const double *x, const double *ref, size_t m)
{
  double d = 0, r = 0;
  for (size_t i = 0; i < m; i++) {
    d = fmax(d, fabs(x[i] - ref[i]));
    r = fmax(r, fabs(ref[i]));
  }
  return d / r;
}

/*
 * Every registered solver on chains, grids and closed loops from 10 to
 * 20,000 rows: the relative residual |A x - b| / |b| <= 1e-10 (computed
 * here, and as the solver reports it), and x within what A's condition
 * allows of LAPACKE's x_ref.  Two backward-stable solves differ by about
 * eps kappa: the direct solvers must agree to 1e3 eps kappa; PCG, which
 * stops at the relative residual pcg_tol = 1e-12, to 10 kappa pcg_tol.
 * The dense solver runs up to DENSE_MAX rows (its storage is m^2).
 */
START_TEST(test_conformance)
{
  const conf_case *c = &conf_cases[_i];
  uint64_t rng = UINT64_C(0x243F6A8885A308D3) + (uint64_t)_i;
  cdyn_system *sys = !strcmp(c->kind, "chain") ? random_chain(c->size, &rng)
                     : !strcmp(c->kind, "grid") ? random_grid(c->size, &rng)
                                                : random_loop(c->size, &rng);
  cdyn_stepper *st = assembled_stepper(sys);
  size_t m = sys->m;
  double *b = malloc(m * sizeof *b), *x = malloc(m * sizeof *x), *Ax = malloc(m * sizeof *Ax), kappa;
  ck_assert_ptr_nonnull(b);
  ck_assert_ptr_nonnull(x);
  ck_assert_ptr_nonnull(Ax);
  for (size_t i = 0; i < m; i++)
    b[i] = tu_rand(&rng);
  double *xref = lapacke_reference(&st->mat, b, &kappa);
  for (size_t k = 0; k < cdyn_solver_count(); k++) {
    const char *name = cdyn_solver_name(k);
    if (!strcmp(name, "cholesky") && m > DENSE_MAX)
      continue;
    cdyn_solve_info info;
    int rc = solve_with(name, &st->mat, m, b, x, &info);
    ck_assert_msg(rc == CDYN_OK, "%s on the %s of %zu (m = %zu): status %d (%s)", name, c->kind, c->size, m, rc,
                  cdyn_errmsg());
    ck_assert_int_eq(info.fallback, 0);
    cdyn_matrix_apply(&st->mat, x, Ax);
    double rr = 0, bb = 0;
    for (size_t i = 0; i < m; i++) {
      rr += (Ax[i] - b[i]) * (Ax[i] - b[i]);
      bb += b[i] * b[i];
    }
    double res = sqrt(rr / bb), d = max_rel_diff(x, xref, m);
    double tol = strcmp(name, "pcg") ? 1e3 * DBL_EPSILON * kappa : 10 * kappa * 1e-12;
    ck_assert_msg(res <= 1e-10 && info.residual <= 1e-10,
                  "%s on the %s of %zu (m = %zu): residual %.3g (reported %.3g)", name, c->kind, c->size, m, res,
                  info.residual);
    ck_assert_msg(d <= tol, "%s on the %s of %zu (m = %zu): |x - x_lapacke| / |x_lapacke| = %.3g > %.3g (kappa %.3g)",
                  name, c->kind, c->size, m, d, tol, kappa);
  }
  free(xref);
  free(b);
  free(x);
  free(Ax);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * The analysis of a sparse direct solver follows A's pattern, not its
 * values: steps that change A's values analyse nothing, a constraint
 * switched off (a new pattern) makes one analysis, and (CHOLMOD, which
 * keeps the analyses of recent patterns) switching it back on makes none.
 */
START_TEST(test_analysis_follows_pattern)
{
  const char *name = _i ? "banded" : "cholmod";
  uint64_t rng = 11;
  cdyn_system *sys = random_grid(10, &rng);
  const double g[3] = {0, -9.81, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "implicit"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", name), CDYN_OK);
  cdyn_stats s0, s1;
  for (int k = 0; k < 5; k++)
    ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
  ck_assert_int_eq(cdyn_stepper_stats(st, &s0), CDYN_OK);
  ck_assert_uint_eq(s0.analyses, 1);
  ck_assert_uint_eq(s0.factorizations, 5);
  ck_assert_int_eq(cdyn_system_enable_constraint(sys, 7, 0), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
  ck_assert_int_eq(cdyn_stepper_stats(st, &s1), CDYN_OK);
  ck_assert_uint_eq(s1.analyses, 2);
  ck_assert_int_eq(cdyn_system_enable_constraint(sys, 7, 1), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
  ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
  ck_assert_int_eq(cdyn_stepper_stats(st, &s1), CDYN_OK);
  ck_assert_uint_eq(s1.analyses, _i ? 3 : 2);
  ck_assert_uint_eq(s1.factorizations, 8);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * cholmod's simplicial factorisation by its recorded schedule gives
 * CHOLMOD's own bits.  One stepper factors the same pattern with six sets
 * of values (random weights W in A = J W J^T): the first two
 * factorisations are CHOLMOD's, the second records the schedule, the
 * later ones follow it.  Each solution must equal, bit for bit, that of
 * a fresh stepper, whose only factorisation is CHOLMOD's.
 */
START_TEST(test_cholmod_schedule_bits)
{
  uint64_t rng = 29;
  cdyn_system *sys = random_grid(12, &rng);
  size_t m = sys->m, n = sys->n;
  cdyn_stepper *st = assembled_stepper(sys);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", "cholmod"), CDYN_OK);
  double *w = malloc(n * sizeof *w), *b = malloc(m * sizeof *b), *x = malloc(m * sizeof *x),
         *y = malloc(m * sizeof *y);
  ck_assert(w && b && x && y);
  for (size_t i = 0; i < m; i++)
    b[i] = tu_rand(&rng);
  cdyn_stats s0, s1;
  ck_assert_int_eq(cdyn_stepper_stats(st, &s0), CDYN_OK);
  for (int t = 0; t < 6; t++) {
    for (size_t i = 0; i < n; i++)
      w[i] = sys->winv[i] * tu_uniform(&rng, 0.5, 2.0);
    ck_assert_int_eq(cdyn_assemble(st, w), CDYN_OK);
    ck_assert_int_eq(cdyn_factor(st), CDYN_OK);
    ck_assert_int_eq(cdyn_solve_many(st, 1, b, x), CDYN_OK);
    cdyn_stepper *fr = assembled_stepper(sys);
    ck_assert_int_eq(cdyn_stepper_set(fr, "solver", "cholmod"), CDYN_OK);
    ck_assert_int_eq(cdyn_assemble(fr, w), CDYN_OK);
    ck_assert_int_eq(cdyn_factor(fr), CDYN_OK);
    ck_assert_int_eq(cdyn_solve_many(fr, 1, b, y), CDYN_OK);
    for (size_t i = 0; i < m; i++)
      ck_assert_msg(memcmp(&x[i], &y[i], sizeof x[i]) == 0,
                    "factorisation %d: x[%zu] = %.17g, a fresh factorisation's %.17g", t + 1, i, x[i], y[i]);
    cdyn_stepper_free(fr);
  }
  ck_assert_int_eq(cdyn_stepper_stats(st, &s1), CDYN_OK);
  ck_assert_uint_eq(s1.analyses - s0.analyses, s0.analyses ? 0 : 1);
  ck_assert_uint_eq(s1.factorizations - s0.factorizations, 6);
  free(w);
  free(b);
  free(x);
  free(y);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * Error paths of every solver type: a matrix with more rows than the
 * solver was sized for is refused by setup (CDYN_EINVAL), and the sparse
 * direct solvers refuse a solve before any setup.
 */
START_TEST(test_solver_errors)
{
  const cdyn_solver_type *type = cdyn_solver_type_at((size_t)_i);
  uint64_t rng = 5;
  cdyn_system *sys = random_chain(20, &rng);
  cdyn_stepper *st = assembled_stepper(sys);
  void *state = NULL, *opts = default_opts(type);
  double b[32] = {0}, x[32];
  cdyn_solve_info info = {0};
  ck_assert_int_eq(type->alloc(&state, 8), CDYN_OK);
  if (!strcmp(type->name, "cholmod") || !strcmp(type->name, "banded"))
    ck_assert_int_eq(type->solve(state, &st->mat, 1, b, x, RANK_TOL, opts, &info), CDYN_EINVAL);
  ck_assert_int_eq(type->setup(state, &st->mat, RANK_TOL, opts, &info), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "sized for 8"));
  type->free(state);
  type->free(NULL);
  free(opts);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * CHOLMOD reusing an earlier factor as CG's preconditioner
 * (cholmod_reuse_tol = 1e-10) against a factorisation per step, with the
 * implicit scheme on a falling 10 x 10 grid for 40 steps of 1 ms: fewer
 * factorisations than steps, every solve to a relative residual of at
 * most 1e-10, and the same motion to within what that residual allows.
 * A relative residual rho in A lambda = b changes lambda by at most
 * kappa(A) rho relative; kappa of this A is below 1e4 (its conformance
 * case), so lambda is within 1e-6 relative and a step's positions within
 * h^2 |W J^T d lambda| <= (1e-3)^2 * 10 m/s^2 * 1e-6 = 1e-11 m; over 40
 * steps, with the error carried on, the bound is 1e-9 m.
 */
START_TEST(test_cholmod_reuse)
{
  uint64_t rng = 21;
  double q[2][3 * 100];
  unsigned long factorizations[2] = {0, 0};
  for (int reuse = 0; reuse < 2; reuse++) {
    uint64_t r = rng;
    cdyn_system *sys = random_grid(10, &r);
    const double g[3] = {0, -9.81, 0};
    ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_stepper_new(&st, sys, "implicit"), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_set(st, "solver", "cholmod"), CDYN_OK);
    if (reuse)
      ck_assert_int_eq(cdyn_stepper_set(st, "cholmod_reuse_tol", "1e-10"), CDYN_OK);
    for (int k = 0; k < 40; k++) {
      ck_assert_int_eq(cdyn_stepper_step(st, 1e-3), CDYN_OK);
      cdyn_stats S;
      ck_assert_int_eq(cdyn_stepper_stats(st, &S), CDYN_OK);
      ck_assert_msg(S.last_residual <= 1e-10, "step %d: relative residual %.3g", k, S.last_residual);
    }
    cdyn_stats S;
    ck_assert_int_eq(cdyn_stepper_stats(st, &S), CDYN_OK);
    factorizations[reuse] = S.factorizations;
    ck_assert_int_eq(cdyn_system_get_state(sys, q[reuse], NULL), CDYN_OK);
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
  ck_assert_uint_eq(factorizations[0], 40);
  ck_assert_msg(factorizations[1] < 40, "reuse factored %lu times in 40 steps", factorizations[1]);
  double d = 0;
  for (int i = 0; i < 300; i++)
    d = fmax(d, fabs(q[0][i] - q[1][i]));
  ck_assert_msg(d <= 1e-9, "reuse moved the grid by %.3g m from the exact solves", d);
}
END_TEST

/*
 * PCG's preconditioners on random chains of 100 and 500 links: both reach
 * the tolerance 1e-12, and the symmetric Gauss-Seidel sweep needs fewer
 * iterations than the Jacobi scaling.
 */
START_TEST(test_pcg_preconditioners)
{
  uint64_t rng = 8;
  const size_t sizes[] = {100, 500};
  for (int c = 0; c < 2; c++) {
    cdyn_system *sys = random_chain(sizes[c], &rng);
    cdyn_stepper *st = assembled_stepper(sys);
    size_t m = sys->m;
    double *b = malloc(m * sizeof *b), *x = malloc(m * sizeof *x);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < m; i++)
      b[i] = tu_rand(&rng);
    const cdyn_solver_type *type;
    ck_assert_int_eq(cdyn_solver_type_find("pcg", &type), CDYN_OK);
    unsigned long its[2];
    for (int sgs = 0; sgs < 2; sgs++) {
      void *state, *opts = default_opts(type);
      for (size_t k = 0; type->options[k].name; k++)
        if (!strcmp(type->options[k].name, "pcg_precond"))
          ck_assert_int_eq(cdyn_option_parse(&type->options[k], opts, sgs ? "sgs" : "jacobi"), CDYN_OK);
      cdyn_solve_info info = {0};
      ck_assert_int_eq(type->alloc(&state, m), CDYN_OK);
      ck_assert_int_eq(type->setup(state, &st->mat, RANK_TOL, opts, &info), CDYN_OK);
      ck_assert_int_eq(type->solve(state, &st->mat, 1, b, x, RANK_TOL, opts, &info), CDYN_OK);
      ck_assert_msg(info.residual <= 1e-12, "%s: residual %.3g", sgs ? "sgs" : "jacobi", info.residual);
      its[sgs] = info.iterations;
      type->free(state);
      free(opts);
    }
    ck_assert_msg(its[1] < its[0], "%zu links: sgs %lu iterations, jacobi %lu", sizes[c], its[1], its[0]);
    free(b);
    free(x);
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
  }
}
END_TEST

/*
 * cdyn_iter_correct, the correction step of newton and shake: lambda +=
 * A^-1 b exactly as a solve gives it, the worst linear status kept, and
 * NULL arguments refused.
 */
START_TEST(test_iter_correct)
{
  uint64_t rng = 17;
  cdyn_system *sys = random_chain(12, &rng);
  cdyn_stepper *st = assembled_stepper(sys);
  size_t m = sys->m;
  double b[64], x[64], dl[64], lam[64];
  ck_assert_uint_le(m, 64);
  for (size_t i = 0; i < m; i++) {
    b[i] = tu_rand(&rng);
    lam[i] = tu_rand(&rng);
  }
  double lam0[64];
  memcpy(lam0, lam, sizeof lam);
  ck_assert_int_eq(cdyn_factor(st), CDYN_OK);
  ck_assert_int_eq(cdyn_solve(st, b, x), CDYN_OK);
  int linear = CDYN_OK;
  ck_assert_int_eq(cdyn_iter_correct(st, b, dl, lam, &linear), CDYN_OK);
  ck_assert_int_eq(linear, CDYN_OK);
  for (size_t i = 0; i < m; i++) {
    ck_assert(dl[i] == x[i]);
    ck_assert(lam[i] == lam0[i] + x[i]);
  }
  ck_assert_int_eq(cdyn_iter_correct(st, NULL, dl, lam, &linear), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_iter_correct(st, b, dl, lam, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_iter_correct(NULL, b, dl, lam, &linear), CDYN_EINVAL);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/* y = A x for the tridiagonal fixture of test_factor_entries (its ctx
   is the matrix itself). */
static int tri_apply(const void *ctx, const double *x, double *y)
{
  cdyn_matrix_apply(ctx, x, y);
  return CDYN_OK;
}

/*
 * The entries of a factor (cdyn_solve_info.factor_nnz), exactly, where
 * they are known without the solver: A = tridiag(-1, 2 + 1 / (i + 1), -1),
 * m = 40, strictly diagonally dominant and so positive definite, stored
 * as the solvers take it (both triangles, each row's diagonal first).  A
 * path's graph has an elimination order without fill, which a minimum
 * degree ordering (CHOLMOD's AMD) finds (the path's ends first), and its
 * natural order has none either: the sparse factors (cholmod, ldlt) hold
 * 2m - 1 entries, the band of half-width 1 (banded) 2m, the dense
 * triangle (cholesky) m (m + 1) / 2, and pcg no factor (0).  A solver
 * registered by another test is only asked for a finite count.  The
 * stepper keeps the count of its last factorisation in cdyn_stats: 0
 * before any, the solver's after cdyn_factor.
 */
START_TEST(test_factor_entries)
{
  enum { M = 40 };
  int rowptr[M + 1], col[3 * M];
  double val[3 * M], diag[M];
  int nz = 0;
  for (int i = 0; i < M; i++) {
    rowptr[i] = nz;
    diag[i] = 2 + 1.0 / (i + 1);
    col[nz] = i, val[nz++] = diag[i];
    if (i > 0)
      col[nz] = i - 1, val[nz++] = -1;
    if (i + 1 < M)
      col[nz] = i + 1, val[nz++] = -1;
  }
  rowptr[M] = nz;
  cdyn_matrix A = {.m = M, .nnz = (size_t)nz, .rowptr = rowptr, .col = col, .val = val, .diag = diag,
                   .pattern = 1, .apply = tri_apply, .ctx = NULL};
  A.ctx = &A;
  for (size_t k = 0; k < cdyn_solver_count(); k++) {
    const cdyn_solver_type *type = cdyn_solver_type_at(k);
    size_t want = SIZE_MAX;
    if (!strcmp(type->name, "cholmod") || !strcmp(type->name, "ldlt"))
      want = 2 * M - 1;
    else if (!strcmp(type->name, "banded"))
      want = 2 * M;
    else if (!strcmp(type->name, "cholesky"))
      want = M * (M + 1) / 2;
    else if (!strcmp(type->name, "pcg"))
      want = 0;
    void *state = NULL, *opts = default_opts(type);
    ck_assert_int_eq(type->alloc(&state, M), CDYN_OK);
    cdyn_solve_info info = {.factor_nnz = 12345};
    ck_assert_int_eq(type->setup(state, &A, RANK_TOL, opts, &info), CDYN_OK);
    if (want != SIZE_MAX)
      ck_assert_msg(info.factor_nnz == want, "%s: %zu factor entries, expected %zu", type->name, info.factor_nnz,
                    want);
    else
      ck_assert_msg(info.factor_nnz <= (size_t)M * M + M, "%s: %zu factor entries", type->name, info.factor_nnz);
    /* A solve that factors nothing reports none (the callers zero the
       struct: a solver must not write a count there). */
    double b[M], x[M];
    for (int i = 0; i < M; i++)
      b[i] = 1;
    cdyn_solve_info sinfo = {0};
    ck_assert_int_ge(type->solve(state, &A, 1, b, x, RANK_TOL, opts, &sinfo), 0);
    if (!sinfo.factorizations)
      ck_assert_msg(sinfo.factor_nnz == 0, "%s: a solve that factors nothing reports %zu factor entries", type->name,
                    sinfo.factor_nnz);
    type->free(state);
    free(opts);
  }
  /* The stepper's record: cholmod on a chain of 30 links. */
  uint64_t rng = UINT64_C(0x510E527FADE682D1);
  cdyn_system *sys = random_chain(30, &rng);
  cdyn_stepper *st = assembled_stepper(sys);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", "cholmod"), CDYN_OK);
  cdyn_stats s0, s1;
  ck_assert_int_eq(cdyn_stepper_stats(st, &s0), CDYN_OK);
  ck_assert_uint_eq(s0.factor_nnz, 0);
  ck_assert_int_eq(cdyn_factor(st), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_stats(st, &s1), CDYN_OK);
  /* A's rows: the pin's 3 and the 30 links; its factor holds at least
     their diagonal and at most the whole triangle. */
  size_t m = sys->m;
  ck_assert_msg(s1.factor_nnz >= m && s1.factor_nnz <= m * (m + 1) / 2, "factor entries %zu for %zu rows",
                s1.factor_nnz, m);
  ck_assert(s1.time_factor >= 0);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * skip_residual, one solver a loop index: three right-hand sides (the
 * particle systems' count, cholmod's multi-column path) on a chain of 100
 * links, solved with and without the residual pass after one setup.
 */
START_TEST(test_skip_residual)
{
  const cdyn_solver_type *type = cdyn_solver_type_at((size_t)_i);
  uint64_t rng = UINT64_C(0x6A09E667F3BCC909);
  cdyn_system *sys = random_chain(100, &rng);
  cdyn_stepper *st = assembled_stepper(sys);
  size_t m = sys->m;
  double *b = malloc(3 * m * sizeof *b), *x0 = malloc(3 * m * sizeof *x0), *x1 = malloc(3 * m * sizeof *x1);
  ck_assert(b && x0 && x1);
  for (size_t i = 0; i < 3 * m; i++)
    b[i] = tu_rand(&rng);
  void *state = NULL, *opts = default_opts(type);
  ck_assert_int_eq(type->alloc(&state, m), CDYN_OK);
  cdyn_solve_info info = {0};
  ck_assert_int_eq(type->setup(state, &st->mat, RANK_TOL, opts, &info), CDYN_OK);
  cdyn_solve_info with = {0}, without = {.skip_residual = 1};
  /* Without first: the setup's first solve may make its workspace. */
  int r1 = type->solve(state, &st->mat, 3, b, x1, RANK_TOL, opts, &without);
  int r0 = type->solve(state, &st->mat, 3, b, x0, RANK_TOL, opts, &with);
  ck_assert_msg(r0 >= 0 && r1 >= 0, "%s: %d, %d (%s)", type->name, r0, r1, cdyn_errmsg());
  ck_assert_msg(with.residual <= 1e-10, "%s: residual %g", type->name, with.residual);
  ck_assert_int_eq(without.skip_residual, 1); /* an input: the solver leaves it */
  if (type->iterative) {
    ck_assert_msg(without.residual <= 1e-6, "%s: residual %g without skip", type->name, without.residual);
  } else {
    ck_assert_msg(isnan(without.residual), "%s: residual %g when skipped", type->name, without.residual);
    ck_assert_msg(!memcmp(x0, x1, 3 * m * sizeof *x0), "%s: the solution changed without the residual", type->name);
    if (strcmp(type->name, "cholesky")) {
      /* A right-hand side that overflows: a non-finite solution, refused. */
      b[7] = INFINITY;
      cdyn_solve_info bad = {.skip_residual = 1};
      int rc = type->solve(state, &st->mat, 3, b, x1, RANK_TOL, opts, &bad);
      ck_assert_msg(rc == CDYN_ENONFINITE, "%s: status %d on an infinite right-hand side", type->name, rc);
    }
  }
  type->free(state);
  free(opts);
  free(b);
  free(x0);
  free(x1);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

static Suite *solvers_suite(void)
{
  Suite *s = suite_create("solvers");
  TCase *tc = tcase_create("assembly");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_assembly_matches_dense);
  suite_add_tcase(s, tc);

  tc = tcase_create("definite");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_solvers_nonsingular);
  tcase_add_test(tc, test_pinned_hub);
  tcase_add_test(tc, test_auto_solver_choice);
  tcase_add_loop_test(tc, test_solver_interface, 0, (int)cdyn_solver_count());
  tcase_add_loop_test(tc, test_skip_residual, 0, (int)cdyn_solver_count());
  tcase_add_test(tc, test_factor_entries);
  tcase_add_test(tc, test_factorisation_reuse);
  suite_add_tcase(s, tc);

  tc = tcase_create("singular");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_direct_singular_minimum_norm, 0, NDIRECT);
  tcase_add_test(tc, test_schemes_step_redundant);
  suite_add_tcase(s, tc);

  tc = tcase_create("conformance");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_conformance, 0, NCONF);
  tcase_add_loop_test(tc, test_analysis_follows_pattern, 0, 2);
  tcase_add_loop_test(tc, test_solver_errors, 0, (int)cdyn_solver_count());
  tcase_add_test(tc, test_cholmod_reuse);
  tcase_add_test(tc, test_cholmod_schedule_bits);
  tcase_add_test(tc, test_pcg_preconditioners);
  tcase_add_test(tc, test_iter_correct);
  suite_add_tcase(s, tc);

  tc = tcase_create("unconstrained");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_no_constraints);
  suite_add_tcase(s, tc);
  return s;
}


int main(void)
{
  return tu_run(solvers_suite());
}
