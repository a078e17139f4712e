/*
 * test_alloc.c: no scheme allocates inside a step, and no active-set
 * algorithm inside a solve on its workspace.
 *
 * The program defines malloc, calloc and realloc itself; ELF symbol
 * interposition makes libcdyn (and GSL, LAPACKE, OpenBLAS) call these,
 * which count the calls and forward to glibc's __libc_* allocator.  Every
 * scheme, with each linear solver, then takes 500 steps on a 10-link chain
 * with the counter armed: it must stay at zero.  Each active-set algorithm
 * (lib/activeset/, through its internal interface) then solves contact
 * problems on a workspace allocated beforehand, with the counter armed.
 * A chain of links of a type without hess (finite-difference geometric
 * stiffness) does the same under the schemes that need it.
 * Then implicit and rattle run on a 20 x 20 grid (766 rows) with every
 * solver configuration, CHOLMOD's reuse path among them.
 * The scheme "contact" also runs, with each active-set algorithm, on
 * balls bouncing in a corner (walls and pairwise separations, flagged as
 * inequalities), so that its impulse step, event location and active-set
 * solves are all exercised with the counter armed.  With subsolve=sparse
 * the algorithms' sub-solves factor A over the candidate rows with
 * CHOLMOD, whose symbolic analysis of a candidate pattern it has not seen
 * allocates, as cdyn/solver.h allows: there a step may allocate only when
 * the stepper's statistics count an analysis (or a growth of storage),
 * and the active-set algorithms, on a workspace with CHOLMOD attached,
 * not at all once their pattern has been analysed.
 *
 * The counting is tests/alloc_count.h's: the program's own allocator in
 * plain builds, the sanitizer's allocation hook under AddressSanitizer,
 * so the test runs in both.  A scheme registered from outside the
 * library (tests/ext_scheme.h) is walked like the built-in ones.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "activeset/activeset.h"
#include "alloc_count.h"
#include "ext_scheme.h"
#include "testutil.h"

/* Eleven particles 0.5 m apart along x under gravity, the first pinned
   at the origin: the start of the chains below. */
static cdyn_system *pinned_row(void)
{
  cdyn_system *s;
  double g[3] = {0, -9.81, 0}, o[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_new(&s, 11), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  for (size_t i = 0; i <= 10; i++) {
    double x[3] = {0.5 * (double)i, 0, 0};
    ck_assert_int_eq(cdyn_system_set_position(s, i, x), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_pin(s, 0, o, NULL), CDYN_OK);
  return s;
}

START_TEST(test_no_allocation_in_step)
{
  const char *scheme = tu_scheme_name((size_t)_i / cdyn_solver_count());
  const char *solver = cdyn_solver_name((size_t)_i % cdyn_solver_count());
  cdyn_system *s = pinned_row();
  cdyn_stepper *st;
  for (size_t i = 0; i < 10; i++)
    ck_assert_int_eq(cdyn_system_add_distance(s, i, i + 1, 0.5, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  if (!tu_solver_fits(scheme, solver)) {
    ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_EINVAL);
    cdyn_stepper_free(st);
    cdyn_system_free(s);
    return;
  }
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_OK);
  /* One step first, so that anything a library initialises lazily on its
     first call (OpenBLAS buffers) is not counted as a per-step cost. */
  ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
  ta_arm(0);
  int rc = 0;
  for (int k = 0; k < 500 && rc >= 0; k++)
    rc = cdyn_stepper_step(st, 1e-3);
  long count = ta_disarm();
  ck_assert_msg(rc >= 0, "%s/%s: %s", scheme, solver, cdyn_errmsg());
  ck_assert_msg(count == 0, "%s with %s allocated %ld times in 500 steps", scheme, solver, count);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * A constraint type without hess (the built-in distance copied as a
 * user's, hess NULL) has its geometric stiffness taken by finite
 * differences on the stack (lib/core/fdhess.c): backward-euler, bdf2 and
 * implicit with geometric_stiffness=diagonal take 500 steps of the
 * 10-link chain without allocating, including the steps that follow a
 * link switched off and on again (which rewrite the stepper's warning),
 * but for a step whose statistics count a symbolic analysis of a pattern
 * the solver has not seen (ldlt's CHOLMOD; cdyn/solver.h allows it).
 */
static const char *const fd_configs[][3] = {
  {"backward-euler", NULL, NULL},
  {"bdf2", NULL, NULL},
  {"implicit", "geometric_stiffness", "diagonal"},
};

START_TEST(test_no_allocation_without_hess)
{
  static cdyn_constraint_type own;
  own = *cdyn_constraint_distance;
  own.name = "own-distance";
  own.hess = NULL;
  cdyn_system *s = pinned_row();
  cdyn_stepper *st;
  size_t last = 0;
  for (size_t i = 0; i < 10; i++) {
    size_t p[2] = {i, i + 1};
    double len = 0.5;
    ck_assert_int_eq(cdyn_system_add_constraint(s, &own, p, &len, &last), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_stepper_new(&st, s, fd_configs[_i][0]), CDYN_OK);
  if (fd_configs[_i][1])
    ck_assert_int_eq(cdyn_stepper_set(st, fd_configs[_i][1], fd_configs[_i][2]), CDYN_OK);
  ck_assert_msg(strstr(cdyn_stepper_warning(st), "'own-distance'"), "%s", cdyn_stepper_warning(st));
  ck_assert_int_ge(cdyn_stepper_step(st, 1e-3), 0);
  int rc = 0;
  long count = 0;
  for (int k = 0; k < 500 && rc >= 0; k++) {
    if (k == 250 || k == 260)
      ck_assert_int_eq(cdyn_system_enable_constraint(s, last, k == 260), CDYN_OK);
    cdyn_stats before, after;
    ck_assert_int_eq(cdyn_stepper_stats(st, &before), CDYN_OK);
    ta_arm(0);
    rc = cdyn_stepper_step(st, 1e-3);
    long c = ta_disarm();
    ck_assert_int_eq(cdyn_stepper_stats(st, &after), CDYN_OK);
    /* The first step on a pattern the solver has not seen analyses it,
       which may allocate (cdyn/solver.h); no other step may. */
    if (after.analyses == before.analyses && after.reallocations == before.reallocations)
      count += c;
  }
  ck_assert_msg(rc >= 0, "%s: %s", fd_configs[_i][0], cdyn_errmsg());
  ck_assert_msg(count == 0, "%s without hess allocated %ld times in 500 steps", fd_configs[_i][0], count);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * At scale, on a 20 x 20 grid held at two opposite corners (766 rows),
 * which takes CHOLMOD's factorisations and the banded solver's wide band:
 * implicit and rattle with every solver configuration of the
 * zero-allocation promise, including CHOLMOD reusing an earlier factor
 * and PCG with the symmetric Gauss-Seidel preconditioner.  After one step
 * (the symbolic analyses, which allocate), 20 steps allocate nothing.
 * CHOLMOD's supernodal mode (cholmod_mode=supernodal, not the default) is
 * left out: cholmod_super_numeric allocates its update workspace on every
 * call, and its BLAS-3 calls may allocate inside OpenBLAS (678 times a
 * step where ASan's hook also counts aligned allocations), as cholmod.c
 * and doc/reliability.md say.
 */
static const char *const grid_configs[][3] = {
  {"cholesky", NULL, NULL},
  {"cholmod", NULL, NULL},
  {"cholmod", "cholmod_reuse_tol", "1e-10"},
  {"banded", NULL, NULL},
  {"pcg", NULL, NULL},
  {"pcg", "pcg_precond", "sgs"},
};
#define NGRID ((int)(sizeof grid_configs / sizeof grid_configs[0]))

START_TEST(test_no_allocation_at_scale)
{
  const char *const *c = grid_configs[_i / 2];
  const char *scheme = _i % 2 ? "rattle" : "implicit";
  enum { N = 20 };
  cdyn_system *s;
  cdyn_stepper *st;
  double g[3] = {0, -9.81, 0};
  ck_assert_int_eq(cdyn_system_new(&s, N * N), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  for (size_t i = 0; i < N * N; i++) {
    double x[3] = {0.05 * (double)(i % N), 0, 0.05 * (double)(i / N)};
    ck_assert_int_eq(cdyn_system_set_position(s, i, x), CDYN_OK);
  }
  double x0[3] = {0, 0, 0}, x1[3] = {0.05 * (N - 1), 0, 0.05 * (N - 1)};
  ck_assert_int_eq(cdyn_system_add_pin(s, 0, x0, NULL), CDYN_OK);
  for (size_t i = 0; i < N * N; i++) {
    if ((i + 1) % N)
      ck_assert_int_eq(cdyn_system_add_distance(s, i, i + 1, 0.05, NULL), CDYN_OK);
    if (i + N < N * N)
      ck_assert_int_eq(cdyn_system_add_distance(s, i, i + N, 0.05, NULL), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_pin(s, N * N - 1, x1, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, s, scheme), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", c[0]), CDYN_OK);
  if (c[1])
    ck_assert_int_eq(cdyn_stepper_set(st, c[1], c[2]), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(st, 5e-4), 0);
  cdyn_stats S;
  ta_arm(0);
  int rc = 0;
  for (int k = 0; k < 20 && rc >= 0; k++)
    rc = cdyn_stepper_step(st, 5e-4);
  long count = ta_disarm();
  ck_assert_int_eq(cdyn_stepper_stats(st, &S), CDYN_OK);
  ck_assert_msg(rc >= 0, "%s/%s %s=%s: %s", scheme, c[0], c[1] ? c[1] : "", c[2] ? c[2] : "", cdyn_errmsg());
  ck_assert_msg(count == 0, "%s/%s %s=%s allocated %ld times in 20 steps", scheme, c[0], c[1] ? c[1] : "",
                c[2] ? c[2] : "", count);
  ck_assert_uint_eq(S.analyses, !strcmp(c[0], "cholmod") || !strcmp(c[0], "banded") ? 1 : 0);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * What a stepper reserves when it is built, for rows that all share one
 * particle, pinned (a ball's contacts with M nodes, or links to a hub for
 * the schemes of equalities: A = J W J^T is dense, M^2 entries).  A
 * scheme that never assembles A (matrix_free: pbd, xpbd, the penalty
 * schemes; own_system: admm, projected-newton, ...) reserves memory
 * linear in the size: asserted below 4 KB a particle and row, where A's
 * pattern alone would take 16 bytes an entry, 16 M^2 = 64 MB for
 * M = 2000.  So does a scheme that assembles A and only solves with it
 * (implicit, baumgarte): the pinned hub is eliminated from the matrix it
 * factors (lib/core/pattern.c, "Pinned hubs").  And so does a scheme that
 * reads A's entries (contact): it keeps A whole, but the stepper sizes its
 * storage without the hub's coupling, and only an assembly of the whole A
 * (contact's subsolve=dense) grows it, at its first step, counted in
 * stats.reallocations; contact with subsolve=sparse never assembles A and
 * stays linear through its steps.
 */
static const char *const reserve_schemes[] = {"pbd", "xpbd", "admm", "projected-newton", "implicit", "baumgarte",
                                              "contact"};

START_TEST(test_reserve_linear)
{
  enum { M = 2000 };
  const char *scheme = reserve_schemes[_i];
  int contact = !strcmp(scheme, "contact");
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, M + 1), CDYN_OK);
  const double c[3] = {0, -1, 0};
  ck_assert_int_eq(cdyn_system_set_position(s, M, c), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(s, M, c, NULL), CDYN_OK);
  for (size_t i = 0; i < M; i++) {
    double x[3] = {0.01 * (double)(i % 50), 0, 0.01 * (double)(i / 50)};
    ck_assert_int_eq(cdyn_system_set_position(s, i, x), CDYN_OK);
    /* one-sided for the schemes that take inequalities, links for pbd's */
    double L = sqrt(x[0] * x[0] + 1 + x[2] * x[2]);
    if (!strcmp(scheme, "pbd") || !strcmp(scheme, "xpbd") || !strcmp(scheme, "implicit") || !strcmp(scheme, "baumgarte"))
      ck_assert_int_eq(cdyn_system_add_distance(s, i, M, L, NULL), CDYN_OK);
    else
      ck_assert_int_eq(cdyn_system_add_separation(s, i, M, 0.5, NULL), CDYN_OK);
  }
  cdyn_stepper *st = NULL;
  ta_arm(0);
  int rc = cdyn_stepper_new(&st, s, scheme);
  size_t bytes = ta_bytes;
  ta_disarm();
  ck_assert_msg(rc == CDYN_OK, "%s: %s", scheme, cdyn_errmsg());
  if (ta_works)
    ck_assert_msg(bytes < (size_t)4096 * (2 * M + 1), "%s reserved %zu bytes for %d rows", scheme, bytes, M);
  /* and it steps: contact sparse without growing, dense growing A once */
  cdyn_stats S0, S1;
  for (int dense = 0; dense <= contact; dense++) {
    if (contact)
      ck_assert_int_eq(cdyn_stepper_set(st, "subsolve", dense ? "dense" : "sparse"), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_stats(st, &S0), CDYN_OK);
    ta_arm(0);
    rc = cdyn_stepper_step(st, 0.01);
    bytes = ta_bytes;
    ta_disarm();
    ck_assert_msg(rc >= 0, "%s: %s", scheme, cdyn_errmsg());
    ck_assert_int_eq(cdyn_stepper_stats(st, &S1), CDYN_OK);
    if (contact && !dense && ta_works)
      ck_assert_msg(bytes < (size_t)4096 * (2 * M + 1) && S1.reallocations == S0.reallocations,
                    "contact, subsolve=sparse: a step allocated %zu bytes", bytes);
    if (contact && dense)
      ck_assert_msg(S1.reallocations > S0.reallocations && (!ta_works || bytes > (size_t)16 * M * M),
                    "contact, subsolve=dense: the whole A was not assembled (%zu bytes)", bytes);
  }
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * Contact problems for the active-set algorithms: a singular one (three
 * walls in the plane, every kind of pivot of "lcp", see test_lcp.c) and
 * 8 rows, two of them equality rows, of A = J J^T for an 8 x 3 J
 * (singular, rows 1 and 4 equal) and b = J c (solvable, see test_lcp.c),
 * whose solves add and remove rows.
 */
START_TEST(test_no_allocation_in_activeset)
{
  const cdyn_activeset_type *type = cdyn_activeset_types[_i];
  enum { N = 8, D = 3 };
  static const double J[N * D] = {1, 0.3, -0.2, 0.5, -1, 0.7, -0.4, 0.2, 1.1, 0.9, 0.8, -0.6,
                                  0.5, -1, 0.7, -1.2, 0.1, 0.4, 0.3, 0.6, 0.9, -0.8, -0.7, 0.2};
  double A8[N * N], b8[N], mu[N], w[N];
  unsigned char eq[N] = {0, 0, 1, 0, 0, 0, 1, 0}, h[N], prev[N] = {1, 0, 1, 1, 0, 1, 1, 0};
  for (size_t a = 0; a < N; a++) {
    for (size_t c = 0; c < N; c++) {
      double s = 0;
      for (size_t j = 0; j < D; j++)
        s += J[a * D + j] * J[c * D + j];
      A8[a * N + c] = s;
    }
    b8[a] = 0.3 * J[a * D] - 1.2 * J[a * D + 1] - 0.5 * J[a * D + 2];
  }
  static const double A3[9] = {4, 2, 0, 2, 2, 1, 0, 1, 1}, b3[3] = {-1, -2, -3};
  struct {
    size_t n;
    const double *A, *b;
    const unsigned char *eq;
  } probs[2] = {{3, A3, b3, NULL}, {N, A8, b8, eq}};
  cdyn_as_ws ws;
  ck_assert_int_eq(cdyn_as_ws_alloc(&ws, N), CDYN_OK);
  for (int k = 0; k < 2; k++) {
    cdyn_as_problem p = {.n = probs[k].n, .A = probs[k].A, .b = probs[k].b, .equality = probs[k].eq,
                         .prev = prev, .rank_tol = 1e-12};
    cdyn_as_tolerances(&p, 1e-9);
    cdyn_activeset_report rep;
    /* A first solve, so that LAPACK's lazy initialisation is not counted. */
    memset(&rep, 0, sizeof rep);
    int rc = type->solve(&ws, &p, mu, w, h, &rep);
    memset(&rep, 0, sizeof rep);
    ta_arm(0);
    rc = type->solve(&ws, &p, mu, w, h, &rep);
    if (rc >= 0)
      rc = cdyn_as_finish(&p, mu, w, h, &rep);
    long count = ta_disarm();
    ck_assert_msg(rc >= 0, "%s on problem %d: %s", type->name, k, cdyn_errmsg());
    ck_assert_msg(count == 0, "%s allocated %ld times in a solve of %zu rows", type->name, count, p.n);
    ck_assert_uint_ge(rep.iterations, 1);
  }
  cdyn_as_ws_free(&ws);
  /* The same problems sparse (every entry stored, the diagonal first),
     through CHOLMOD: a first solve analyses the pattern; the armed one,
     with the values marked as new, factors again without allocating. */
  const cdyn_solver_type *chol;
  ck_assert_int_eq(cdyn_solver_type_find("cholmod", &chol), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_alloc(&ws, N), CDYN_OK);
  ck_assert_int_eq(cdyn_as_ws_sparse(&ws, chol, NULL, N * N), CDYN_OK);
  for (int k = 0; k < 2; k++) {
    size_t n = probs[k].n;
    int rowptr[N + 1], col[N * N];
    double val[N * N];
    int nnz = 0;
    for (size_t a = 0; a < n; a++) {
      rowptr[a] = nnz;
      col[nnz] = (int)a;
      val[nnz++] = probs[k].A[a * n + a];
      for (size_t c = 0; c < n; c++)
        if (c != a) {
          col[nnz] = (int)c;
          val[nnz++] = probs[k].A[a * n + c];
        }
    }
    rowptr[n] = nnz;
    cdyn_as_sparse sp = {.n = n, .nnz = (size_t)nnz, .rowptr = rowptr, .col = col, .val = val,
                         .pattern = 10 + (unsigned long)k, .values = 1};
    cdyn_as_problem p = {.n = n, .sp = &sp, .b = probs[k].b, .equality = probs[k].eq, .prev = prev,
                         .rank_tol = 1e-12};
    cdyn_as_tolerances(&p, 1e-9);
    ck_assert_int_eq(cdyn_as_ws_bind(&ws, &p), CDYN_OK);
    cdyn_activeset_report rep;
    memset(&rep, 0, sizeof rep);
    int rc = type->solve(&ws, &p, mu, w, h, &rep);
    sp.values++;
    memset(&rep, 0, sizeof rep);
    cdyn_as_sparse_counts c0, c1;
    cdyn_as_ws_sparse_counts(&ws, &c0);
    ta_arm(0);
    rc = type->solve(&ws, &p, mu, w, h, &rep);
    if (rc >= 0)
      rc = cdyn_as_finish(&p, mu, w, h, &rep);
    long count = ta_disarm();
    cdyn_as_ws_sparse_counts(&ws, &c1);
    ck_assert_msg(rc >= 0, "%s on sparse problem %d: %s", type->name, k, cdyn_errmsg());
    ck_assert_msg(count == 0, "%s allocated %ld times in a sparse solve of %zu rows", type->name, count, n);
    ck_assert_uint_eq(c1.analyses, c0.analyses);
    ck_assert_uint_gt(c1.factorizations + c1.dense, c0.factorizations + c0.dense);
  }
  cdyn_as_ws_free(&ws);
}
END_TEST

/* The five balls of the contact tests below, their walls and their
   separations. */
static cdyn_system *corner_balls(void)
{
  const size_t n = 5;
  cdyn_system *s;
  const double g[3] = {-2.3, -9.81, 0}, px[3] = {0.1, 0, 0}, nx[3] = {1, 0, 0}, py[3] = {0, 0.1, 0},
               ny[3] = {0, 1, 0};
  ck_assert_int_eq(cdyn_system_new(&s, n), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  for (size_t i = 0; i < n; i++) {
    double x[3] = {0.35 + 0.23 * (double)i, 0.4 + 0.31 * (double)(i % 3), 0};
    double v[3] = {0.7 - 0.4 * (double)i, 0.3 * (double)(i % 2), 0};
    ck_assert_int_eq(cdyn_system_set_position(s, i, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(s, i, v), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_wall(s, i, px, nx, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_wall(s, i, py, ny, NULL), CDYN_OK);
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      ck_assert_int_eq(cdyn_system_add_separation(s, i, j, 0.2, NULL), CDYN_OK);
  return s;
}

/*
 * Five balls of radius 0.1 dropped into the corner of the walls x >= 0.1
 * and y >= 0.1 under a tilted gravity, with restitution 0.8: in 500 steps
 * of 2e-3 s they hit the walls and each other many times.  The test
 * requires impulses and located events inside the armed window, so that
 * it cannot pass by never reaching that code.
 */
START_TEST(test_contact_no_allocation)
{
  const char *alg = cdyn_activeset_name((size_t)_i);
  cdyn_system *s = corner_balls();
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "contact"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "activeset", alg), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "restitution", "0.8"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "tau", "0.02"), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(st, 2e-3), 0);
  unsigned long impulses = 0, events = 0;
  cdyn_contact_report rep;
  ta_arm(0);
  int rc = 0;
  for (int k = 0; k < 500 && rc >= 0; k++) {
    rc = cdyn_stepper_step(st, 2e-3);
    cdyn_stepper_contact_report(st, &rep);
    impulses += rep.impulses;
    events += rep.events;
  }
  long count = ta_disarm();
  ck_assert_msg(rc >= 0, "contact/%s: %s", alg, cdyn_errmsg());
  ck_assert_msg(count == 0, "contact with %s allocated %ld times in 500 steps", alg, count);
  ck_assert_msg(impulses > 0 && events > 0, "contact/%s: %lu impulses and %lu events: the walk missed them", alg,
                impulses, events);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

/*
 * The same balls with subsolve=sparse, a step at a time: a step that
 * allocates must have analysed a candidate pattern new to CHOLMOD (or
 * grown the storage of A over the candidates), and most steps do neither.
 */
START_TEST(test_contact_sparse_no_allocation)
{
  const char *alg = cdyn_activeset_name((size_t)_i);
  cdyn_system *s = corner_balls();
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, s, "contact"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "activeset", alg), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "subsolve", "sparse"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "restitution", "0.8"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "tau", "0.02"), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(st, 2e-3), 0);
  int rc = 0, quiet = 0;
  for (int k = 0; k < 500 && rc >= 0; k++) {
    cdyn_stats s0, s1;
    cdyn_stepper_stats(st, &s0);
    ta_arm(0);
    rc = cdyn_stepper_step(st, 2e-3);
    long count = ta_disarm();
    cdyn_stepper_stats(st, &s1);
    int grew = s1.analyses > s0.analyses || s1.reallocations > s0.reallocations;
    ck_assert_msg(count == 0 || grew, "contact/%s, subsolve=sparse, step %d allocated %ld times without an analysis",
                  alg, k, count);
    quiet += !grew;
  }
  ck_assert_msg(rc >= 0, "contact/%s: %s", alg, cdyn_errmsg());
  ck_assert_msg(quiet >= 400, "contact/%s, subsolve=sparse: only %d of 500 steps without an analysis", alg, quiet);
  cdyn_stepper_free(st);
  cdyn_system_free(s);
}
END_TEST

int main(void)
{
  ta_init();
  if (!ta_works)
    return tu_skip("allocations cannot be counted here (under valgrind, the program's allocator needs --soname-synonyms=somalloc=nouserintercepts)");
  if (ext_register() != CDYN_OK)
    return EXIT_FAILURE;
  Suite *s = suite_create("alloc");
  TCase *tc = tcase_create("step");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_no_allocation_in_step, 0, (int)(tu_scheme_count() * cdyn_solver_count()));
  tcase_add_loop_test(tc, test_no_allocation_without_hess, 0, (int)(sizeof fd_configs / sizeof fd_configs[0]));
  tcase_add_loop_test(tc, test_no_allocation_at_scale, 0, 2 * NGRID);
  tcase_add_loop_test(tc, test_reserve_linear, 0, (int)(sizeof reserve_schemes / sizeof reserve_schemes[0]));
  suite_add_tcase(s, tc);
  TCase *ta = tcase_create("activeset");
  size_t ntypes = 0;
  while (cdyn_activeset_types[ntypes])
    ntypes++;
  tcase_add_loop_test(ta, test_no_allocation_in_activeset, 0, (int)ntypes);
  suite_add_tcase(s, ta);
  tc = tcase_create("contact");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_contact_no_allocation, 0, (int)cdyn_activeset_count());
  tcase_add_loop_test(tc, test_contact_sparse_no_allocation, 0, (int)cdyn_activeset_count());
  suite_add_tcase(s, tc);
  return tu_run(s);
}
