/*
 * test_solver_register.c: linear solver types written outside the library
 * (cdyn/solver.h).
 *
 * A solver registered with cdyn_solver_register is chosen by name like a
 * built-in one.  The registered type here wraps the built-in dense
 * Cholesky (it forwards every operation to it and counts the calls), so
 * that everything it solves has a known answer: bitwise the trajectory of
 * solver=cholesky, for a scheme that solves with A (implicit) and for one
 * that solves a system of its own (baraff-witkin).  Its one option is
 * listed, set and read back like any stepper option.  The registry
 * refuses each kind of malformed type with a message naming the fault,
 * and a stepper built before a registration refuses the newcomer.  The
 * matrix view (cdyn_stepper_matrix), its product and bandwidth are checked
 * on small systems whose A is known by hand.
 *
 * Registration is process-wide and permanent, so the tests register
 * through once_registered(), which tolerates an earlier registration when
 * the tests run in one process (CK_FORK=no, under valgrind).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>
#include <cdyn/solver.h>

#include "testutil.h"

/* ---- a solver of one's own: the dense Cholesky, forwarded and counted ---------------------- */

typedef struct {
  double scale; /* an option of its own, checked by its setup: it must be 1 */
} wrap_opts;

static unsigned long wrap_setups, wrap_solves;

static const cdyn_solver_type *inner(void)
{
  const cdyn_solver_type *t = NULL;
  ck_assert_int_eq(cdyn_solver_type_find("cholesky", &t), CDYN_OK);
  return t;
}

static int wrap_alloc(void **state, size_t mcap) { return inner()->alloc(state, mcap); }
static void wrap_free(void *state) { inner()->free(state); }

static int wrap_setup(void *state, const cdyn_matrix *A, double rank_tol, const void *opts, cdyn_solve_info *info)
{
  const wrap_opts *o = opts;
  if (o->scale != 1.0)
    return cdyn_error(CDYN_EINVAL, "mycholesky: scale %g is not 1", o->scale);
  wrap_setups++;
  return inner()->setup(state, A, rank_tol, NULL, info);
}

static int wrap_solve(void *state, const cdyn_matrix *A, size_t nrhs, const double *b, double *x, double rank_tol,
                      const void *opts, cdyn_solve_info *info)
{
  (void)opts;
  wrap_solves++;
  return inner()->solve(state, A, nrhs, b, x, rank_tol, NULL, info);
}

static const cdyn_option wrap_options[] = {
  {"mychol_scale", CDYN_OPT_DOUBLE, offsetof(wrap_opts, scale), "1", 0.5, 2.0, NULL, "must be 1 (a test option)"},
  CDYN_OPTIONS_END};

static const cdyn_solver_type wrap_type = {
  .name = "mycholesky",
  .description = "the dense Cholesky, forwarded (a test's own solver)",
  .options = wrap_options,
  .options_size = sizeof(wrap_opts),
  .alloc = wrap_alloc,
  .free = wrap_free,
  .setup = wrap_setup,
  .solve = wrap_solve,
};

static void once_registered(void)
{
  const cdyn_solver_type *t;
  if (cdyn_solver_type_find("mycholesky", &t) == CDYN_OK) {
    ck_assert_ptr_eq(t, &wrap_type);
    return;
  }
  size_t before = cdyn_solver_count();
  ck_assert_msg(cdyn_solver_register(&wrap_type) == CDYN_OK, "%s", cdyn_errmsg());
  ck_assert_uint_eq(cdyn_solver_count(), before + 1);
}

/* ---- registration and use ----------------------------------------------------------------- */

START_TEST(test_registered_is_listed)
{
  once_registered();
  size_t n = cdyn_solver_count();
  ck_assert_ptr_eq(cdyn_solver_type_at(n - 1), &wrap_type);
  ck_assert_str_eq(cdyn_solver_name(n - 1), "mycholesky");
  ck_assert_str_eq(cdyn_solver_description(n - 1), wrap_type.description);
  ck_assert_ptr_null(cdyn_solver_type_at(n));
  ck_assert_ptr_null(cdyn_solver_name(n));
  /* Its option is every scheme's stepper option now, with its default. */
  size_t idx;
  ck_assert_int_eq(cdyn_scheme_find("implicit", &idx), CDYN_OK);
  int found = 0;
  for (size_t k = 0; k < cdyn_scheme_option_count(idx); k++) {
    const char *name, *def;
    ck_assert_int_eq(cdyn_scheme_option(idx, k, &name, &def, NULL), CDYN_OK);
    if (!strcmp(name, "mychol_scale")) {
      ck_assert_str_eq(def, "1");
      found++;
    }
  }
  ck_assert_int_eq(found, 1);
}
END_TEST

/* Steps of `scheme` on a swinging 4-link chain with `solver`: the final
   positions into q (15 values). */
static void chain_run(const char *scheme, const char *solver, double *q, unsigned long *setups)
{
  const double joint[4] = {0.9, -0.4, 0.7, 0.3};
  cdyn_system *sys;
  ck_assert_int_eq(tu_chain(&sys, 4, 0.8, 0.7, joint), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_OK);
  unsigned long s0 = wrap_setups;
  for (int k = 0; k < 60; k++)
    ck_assert_msg(cdyn_stepper_step(st, 2e-3) >= 0, "%s/%s step %d: %s", scheme, solver, k, cdyn_errmsg());
  *setups = wrap_setups - s0;
  ck_assert_int_eq(cdyn_system_get_state(sys, q, NULL), CDYN_OK);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}

/* The registered solver solves what the schemes solve: bitwise the
   trajectory of the solver it forwards to, and its setups were called. */
START_TEST(test_registered_solves)
{
  once_registered();
  static const char *const schemes[] = {"implicit", "rattle", "newton"};
  for (int s = 0; s < 3; s++) {
    double q1[15], q2[15];
    unsigned long n1, n2;
    chain_run(schemes[s], "cholesky", q1, &n1);
    chain_run(schemes[s], "mycholesky", q2, &n2);
    ck_assert_msg(memcmp(q1, q2, sizeof q1) == 0, "%s: mycholesky differs from cholesky", schemes[s]);
    ck_assert_uint_eq(n1, 0);
    ck_assert_msg(n2 >= 60, "%s: %lu setups in 60 steps", schemes[s], n2);
  }
}
END_TEST

/* A hanging 6 x 6 cloth under baraff-witkin: its own 3n x 3n system goes
   to the solver the stepper's option names. */
static void bw_run(const char *solver, double *q, unsigned long *solves)
{
  cdyn_cloth *cl;
  cdyn_system *sys;
  const size_t pins[2] = {0, 5};
  cdyn_cloth_spec cs;
  memset(&cs, 0, sizeof cs);
  cs.nx = cs.ny = 6;
  cs.u[0] = 1, cs.v[2] = 1;
  cs.mass = 0.3;
  cs.k_struct = 80, cs.k_shear = 15, cs.k_bend = 1.5, cs.damping = 0.03;
  cs.pins = pins, cs.npins = 2;
  ck_assert_int_eq(cdyn_cloth_new(&cl, &sys, &cs), CDYN_OK);
  const double g[3] = {0, -9.81, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "baraff-witkin"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_OK);
  unsigned long s0 = wrap_solves;
  for (int k = 0; k < 30; k++)
    ck_assert_msg(cdyn_stepper_step(st, 5e-3) >= 0, "%s step %d: %s", solver, k, cdyn_errmsg());
  *solves = wrap_solves - s0;
  ck_assert_int_eq(cdyn_system_get_state(sys, q, NULL), CDYN_OK);
  cdyn_stepper_free(st);
  cdyn_cloth_free(cl);
  cdyn_system_free(sys);
}

START_TEST(test_registered_own_system)
{
  once_registered();
  double q1[108], q2[108];
  unsigned long n1, n2;
  bw_run("cholesky", q1, &n1);
  bw_run("mycholesky", q2, &n2);
  ck_assert(memcmp(q1, q2, sizeof q1) == 0);
  ck_assert_uint_eq(n1, 0);
  ck_assert_uint_eq(n2, 30);
  /* It fell: the free corner below its start. */
  ck_assert(q1[3 * 35 + 1] < -0.01);
}
END_TEST

/* The solver's option through the stepper: listed, set, read back, its
   range enforced, and seen by the solver (a value its setup refuses makes
   the step fail, with the state kept). */
START_TEST(test_registered_option)
{
  once_registered();
  cdyn_system *sys;
  ck_assert_int_eq(tu_chain(&sys, 3, 1.0, 1.0, NULL), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "implicit"), CDYN_OK);
  int listed = 0;
  for (size_t k = 0; k < cdyn_stepper_option_count(st); k++)
    listed += !strcmp(cdyn_stepper_option_name(st, k), "mychol_scale");
  ck_assert_int_eq(listed, 1);
  char buf[64];
  ck_assert_int_eq(cdyn_stepper_get(st, "mychol_scale", buf, sizeof buf), CDYN_OK);
  ck_assert_str_eq(buf, "1");
  TU_EXPECT_EINVAL(cdyn_stepper_set(st, "mychol_scale", "3"));
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", "mycholesky"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_get(st, "solver", buf, sizeof buf), CDYN_OK);
  ck_assert_str_eq(buf, "mycholesky");
  ck_assert_int_eq(cdyn_stepper_set(st, "mychol_scale", "1.5"), CDYN_OK);
  double q0[12], q1[12];
  ck_assert_int_eq(cdyn_system_get_state(sys, q0, NULL), CDYN_OK);
  TU_EXPECT_EINVAL(cdyn_stepper_step(st, 1e-3));
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "scale 1.5"));
  ck_assert_int_eq(cdyn_system_get_state(sys, q1, NULL), CDYN_OK);
  ck_assert(memcmp(q0, q1, sizeof q0) == 0);
  ck_assert_int_eq(cdyn_stepper_set(st, "mychol_scale", "1"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(st, 1e-3), CDYN_OK);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/* cdyn_stepper_solver: what a scheme with a system of its own is given. */
START_TEST(test_stepper_solver)
{
  cdyn_system *sys;
  ck_assert_int_eq(tu_chain(&sys, 2, 1.0, 1.0, NULL), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "implicit"), CDYN_OK);
  const cdyn_solver_type *type = (const cdyn_solver_type *)&type;
  const void *opts = NULL;
  double rank_tol = 0;
  ck_assert_int_eq(cdyn_stepper_solver(st, &type, &opts, &rank_tol), CDYN_OK);
  ck_assert_ptr_null(type); /* auto */
  ck_assert_ptr_nonnull(opts);
  ck_assert(rank_tol == 1e-12);
  const cdyn_solver_type *pcg;
  ck_assert_int_eq(cdyn_solver_type_find("pcg", &pcg), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", "pcg"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "rank_tol", "1e-9"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_solver(st, &type, NULL, &rank_tol), CDYN_OK);
  ck_assert_ptr_eq(type, pcg);
  ck_assert(rank_tol == 1e-9);
  TU_EXPECT_EINVAL(cdyn_stepper_solver(NULL, &type, NULL, NULL));
  TU_EXPECT_EINVAL(cdyn_stepper_solver(st, NULL, NULL, NULL));
  /* auto is reported as the choice for A, or as the scheme's own. */
  char buf[64];
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", "auto"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_get(st, "solver", buf, sizeof buf), CDYN_OK);
  ck_assert_str_eq(buf, "auto(cholesky)");
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  cdyn_cloth *cl;
  const size_t pins[1] = {0};
  cdyn_cloth_spec cs;
  memset(&cs, 0, sizeof cs);
  cs.nx = cs.ny = 3;
  cs.u[0] = 1, cs.v[2] = 1;
  cs.mass = 0.1, cs.k_struct = 10;
  cs.pins = pins, cs.npins = 1;
  ck_assert_int_eq(cdyn_cloth_new(&cl, &sys, &cs), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "baraff-witkin"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_get(st, "solver", buf, sizeof buf), CDYN_OK);
  ck_assert_str_eq(buf, "auto");
  cdyn_stepper_free(st);
  cdyn_cloth_free(cl);
  cdyn_system_free(sys);
}
END_TEST

/* A stepper knows the solvers registered before it was built. */
static int late_setup(void *state, const cdyn_matrix *A, double rank_tol, const void *opts, cdyn_solve_info *info)
{
  (void)opts;
  return inner()->setup(state, A, rank_tol, NULL, info);
}

static const cdyn_solver_type late_type = {
  .name = "latecomer",
  .description = "the dense Cholesky under another name, registered late",
  .alloc = wrap_alloc,
  .free = wrap_free,
  .setup = late_setup,
  .solve = wrap_solve,
};

START_TEST(test_registered_after_stepper)
{
  cdyn_system *sys;
  ck_assert_int_eq(tu_chain(&sys, 2, 1.0, 1.0, NULL), CDYN_OK);
  cdyn_stepper *early, *late;
  ck_assert_int_eq(cdyn_stepper_new(&early, sys, "implicit"), CDYN_OK);
  size_t nopt = cdyn_stepper_option_count(early);
  const cdyn_solver_type *t;
  if (cdyn_solver_type_find("latecomer", &t) != CDYN_OK)
    ck_assert_msg(cdyn_solver_register(&late_type) == CDYN_OK, "%s", cdyn_errmsg());
  ck_assert_int_eq(cdyn_stepper_set(early, "solver", "latecomer"), CDYN_EUNKNOWN);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "registered after this stepper was built"));
  ck_assert_uint_eq(cdyn_stepper_option_count(early), nopt);
  ck_assert_int_eq(cdyn_stepper_new(&late, sys, "implicit"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(late, "solver", "latecomer"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_step(late, 1e-3), CDYN_OK);
  cdyn_stepper_free(early);
  cdyn_stepper_free(late);
  cdyn_system_free(sys);
}
END_TEST

/* ---- what registration refuses ---------------------------------------------------------------- */

typedef struct {
  double a;
  long b;
} two_opts;

static int refused(const cdyn_solver_type *t, const char *fragment)
{
  int rc = cdyn_solver_register(t);
  ck_assert_msg(rc == CDYN_EINVAL, "'%s' (%s): status %d, not CDYN_EINVAL", t ? t->name : "(null)", fragment, rc);
  ck_assert_msg(strstr(cdyn_errmsg(), fragment) != NULL, "message '%s' does not say '%s'", cdyn_errmsg(), fragment);
  return 1;
}

static int dummy_step(cdyn_stepper *st, void *state, double h)
{
  (void)st, (void)state, (void)h;
  return CDYN_OK;
}

START_TEST(test_register_errors)
{
  size_t n0 = cdyn_solver_count();
  cdyn_solver_type t = wrap_type;
  refused(NULL, "type is NULL");
  t.name = NULL;
  refused(&t, "has no name");
  t.name = "";
  refused(&t, "has no name");
  t.name = "my solver";
  refused(&t, "letters, digits");
  t.name = "auto";
  refused(&t, "is taken");
  t.name = "cholmod";
  refused(&t, "is taken");
  t = wrap_type;
  t.name = "bad-ops";
  t.setup = NULL;
  refused(&t, "needs alloc, free, setup and solve");
  t = wrap_type;
  t.name = "bad-ops";
  t.free = NULL;
  refused(&t, "needs alloc, free, setup and solve");
  t = wrap_type;
  t.name = "bad-desc";
  t.description = NULL;
  refused(&t, "needs a description");
  /* Options: each fault of a table. */
  static const cdyn_option clash_solver[] = {{"solver", CDYN_OPT_DOUBLE, 0, "1", 0, 2, NULL, "x"}, CDYN_OPTIONS_END};
  static const cdyn_option clash_common[] = {{"rank_tol", CDYN_OPT_DOUBLE, 0, "1", 0, 2, NULL, "x"}, CDYN_OPTIONS_END};
  static const cdyn_option clash_pcg[] = {{"pcg_tol", CDYN_OPT_DOUBLE, 0, "1", 0, 2, NULL, "x"}, CDYN_OPTIONS_END};
  static const cdyn_option clash_scheme[] = {{"alpha", CDYN_OPT_DOUBLE, 0, "1", 0, 2, NULL, "x"}, CDYN_OPTIONS_END};
  static const cdyn_option bad_default[] = {{"x_a", CDYN_OPT_DOUBLE, 0, "3", 0, 2, NULL, "x"}, CDYN_OPTIONS_END};
  static const cdyn_option no_default[] = {{"x_a", CDYN_OPT_DOUBLE, 0, NULL, 0, 2, NULL, "x"}, CDYN_OPTIONS_END};
  static const cdyn_option outside[] = {{"x_b", CDYN_OPT_INT, sizeof(two_opts), "1", 0, 2, NULL, "x"},
                                        CDYN_OPTIONS_END};
  static const cdyn_option twice[] = {{"x_a", CDYN_OPT_DOUBLE, 0, "1", 0, 2, NULL, "x"},
                                      {"x_a", CDYN_OPT_DOUBLE, 0, "1", 0, 2, NULL, "x"},
                                      CDYN_OPTIONS_END};
  static const cdyn_option no_choices[] = {{"x_c", CDYN_OPT_CHOICE, 0, "one", 0, 0, NULL, "x"}, CDYN_OPTIONS_END};
  struct {
    const cdyn_option *opts;
    size_t size;
    const char *says;
  } cases[] = {
    {clash_solver, sizeof(two_opts), "clashes with a stepper option"},
    {clash_common, sizeof(two_opts), "clashes with a stepper option"},
    {clash_pcg, sizeof(two_opts), "clashes with a stepper option"},
    {clash_scheme, sizeof(two_opts), "clashes with a stepper option"},
    {bad_default, sizeof(two_opts), "does not parse"},
    {no_default, sizeof(two_opts), "has no default"},
    {outside, sizeof(two_opts), "lies outside options_size"},
    {twice, sizeof(two_opts), "appears twice"},
    {no_choices, sizeof(two_opts), "has no choices"},
    {clash_solver, 0, "options_size = 0"},
    {clash_solver, 1u << 20, "implausibly large"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    t = wrap_type;
    t.name = "bad-options";
    t.options = cases[k].opts;
    t.options_size = cases[k].size;
    refused(&t, cases[k].says);
  }
  ck_assert_uint_eq(cdyn_solver_count(), n0);
  /* A scheme may not take a registered solver's option name either. */
  once_registered();
  cdyn_scheme_type s;
  memset(&s, 0, sizeof s);
  static const cdyn_option scheme_clash[] = {{"mychol_scale", CDYN_OPT_DOUBLE, 0, "1", 0, 2, NULL, "x"},
                                             CDYN_OPTIONS_END};
  s.name = "clashing-scheme";
  s.description = "x";
  s.source = "x";
  s.options = scheme_clash;
  s.options_size = sizeof(double);
  s.step = dummy_step;
  TU_EXPECT_EINVAL(cdyn_scheme_register(&s));
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "mychol_scale clashes with a stepper option"));
}
END_TEST

/* The table of registered solvers is finite: CDYN_ENOMEM when full. */
static int noop_alloc(void **state, size_t mcap)
{
  (void)mcap;
  *state = NULL;
  return CDYN_OK;
}
static void noop_free(void *state) { (void)state; }
static int noop_setup(void *state, const cdyn_matrix *A, double rank_tol, const void *opts, cdyn_solve_info *info)
{
  (void)state, (void)A, (void)rank_tol, (void)opts, (void)info;
  return CDYN_OK;
}
static int noop_solve(void *state, const cdyn_matrix *A, size_t nrhs, const double *b, double *x, double rank_tol,
                      const void *opts, cdyn_solve_info *info)
{
  (void)state, (void)rank_tol, (void)opts, (void)info;
  memcpy(x, b, nrhs * A->m * sizeof *x);
  return CDYN_OK;
}

START_TEST(test_register_full)
{
  static cdyn_solver_type many[20];
  static char names[20][24];
  int ok = 0, rc = CDYN_OK;
  for (int k = 0; k < 20 && rc == CDYN_OK; k++) {
    snprintf(names[k], sizeof names[k], "filler-%d", k);
    many[k] = (cdyn_solver_type){.name = names[k], .description = "a filler", .alloc = noop_alloc,
                                 .free = noop_free, .setup = noop_setup, .solve = noop_solve};
    const cdyn_solver_type *t;
    if (cdyn_solver_type_find(names[k], &t) == CDYN_OK)
      continue;
    if ((rc = cdyn_solver_register(&many[k])) == CDYN_OK)
      ok++;
  }
  ck_assert_int_eq(rc, CDYN_ENOMEM);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "is full"));
  ck_assert_int_le(ok, 16);
}
END_TEST

/* ---- the matrix view ----------------------------------------------------------------------------- */

/*
 * Four unit masses on the x axis at 0, 1, 2, 3 with distance constraints
 * (0,1), (2,3), (1,2), in that order: J's rows are unit vectors along x,
 * so A = J J^T has 2 on the diagonal, -1 where two rows share a particle
 * (rows 0 and 2 share particle 1, rows 1 and 2 particle 2), 0 elsewhere:
 *   A = [2 0 -1; 0 2 -1; -1 -1 2],  bandwidth 2.
 */
START_TEST(test_stepper_matrix)
{
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 4), CDYN_OK);
  for (size_t i = 0; i < 4; i++) {
    double x[3] = {(double)i, 0, 0};
    ck_assert_int_eq(cdyn_system_set_position(sys, i, x), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_add_distance(sys, 0, 1, 1.0, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 2, 3, 1.0, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_distance(sys, 1, 2, 1.0, NULL), CDYN_OK);
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "implicit"), CDYN_OK);
  cdyn_matrix A;
  TU_EXPECT_EINVAL(cdyn_stepper_matrix(NULL, &A));
  TU_EXPECT_EINVAL(cdyn_stepper_matrix(st, NULL));
  ck_assert_int_eq(cdyn_stepper_step(st, 1e-3), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_matrix(st, &A), CDYN_OK);
  ck_assert_uint_eq(A.m, 3);
  static const double want[3][3] = {{2, 0, -1}, {0, 2, -1}, {-1, -1, 2}};
  double dense[3][3] = {{0}};
  for (size_t i = 0; i < 3; i++) {
    ck_assert_int_eq(A.col[A.rowptr[i]], (int)i); /* the diagonal first */
    ck_assert(A.diag[i] == A.val[A.rowptr[i]]);
    for (int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
      dense[i][A.col[k]] += A.val[k];
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      ck_assert_msg(fabs(dense[i][j] - want[i][j]) <= 1e-12, "A[%d][%d] = %g", i, j, dense[i][j]);
  ck_assert_uint_eq(cdyn_matrix_bandwidth(&A), 2);
  const double x[3] = {0.3, -1.7, 2.9};
  double y[3], z[3];
  cdyn_matrix_apply(&A, x, y);
  ck_assert_int_eq(A.apply(A.ctx, x, z), CDYN_OK);
  for (int i = 0; i < 3; i++) {
    double r = want[i][0] * x[0] + want[i][1] * x[1] + want[i][2] * x[2];
    ck_assert(fabs(y[i] - r) <= 1e-12);
    ck_assert(y[i] == z[i]);
  }
  ck_assert_uint_eq(cdyn_matrix_bandwidth(NULL), 0);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/* The option helpers of cdyn/option.h, as a program using a solver type
   directly sets its defaults. */
START_TEST(test_option_helpers)
{
  const cdyn_solver_type *t;
  ck_assert_int_eq(cdyn_solver_type_find("pcg", &t), CDYN_OK);
  size_t n = cdyn_option_count(t->options);
  ck_assert_uint_eq(n, 3);
  ck_assert_uint_eq(cdyn_option_count(NULL), 0);
  void *opts = calloc(1, t->options_size);
  ck_assert_ptr_nonnull(opts);
  for (size_t k = 0; k < n; k++) {
    char buf[64];
    ck_assert_int_eq(cdyn_option_parse(&t->options[k], opts, t->options[k].def), CDYN_OK);
    ck_assert_int_eq(cdyn_option_format(&t->options[k], opts, buf, sizeof buf), CDYN_OK);
    ck_assert_int_eq(cdyn_option_parse(&t->options[k], opts, buf), CDYN_OK);
  }
  TU_EXPECT_EINVAL(cdyn_option_parse(&t->options[0], opts, "-1"));
  TU_EXPECT_EINVAL(cdyn_option_parse(NULL, opts, "1"));
  char tiny[2];
  TU_EXPECT_EINVAL(cdyn_option_format(&t->options[0], opts, tiny, sizeof tiny));
  free(opts);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("solver_register");
  TCase *tc = tcase_create("registered");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_registered_is_listed);
  tcase_add_test(tc, test_registered_solves);
  tcase_add_test(tc, test_registered_own_system);
  tcase_add_test(tc, test_registered_option);
  tcase_add_test(tc, test_stepper_solver);
  tcase_add_test(tc, test_registered_after_stepper);
  suite_add_tcase(s, tc);
  tc = tcase_create("refused");
  tcase_add_test(tc, test_register_errors);
  tcase_add_test(tc, test_register_full);
  suite_add_tcase(s, tc);
  tc = tcase_create("matrix");
  tcase_add_test(tc, test_stepper_matrix);
  tcase_add_test(tc, test_option_helpers);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(suite()); }
