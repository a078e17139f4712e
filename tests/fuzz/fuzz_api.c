/*
 * tests/fuzz/fuzz_api.c: a libFuzzer harness over libcdyn's public API.
 *
 * The input bytes are read as a script of choices (fuzz.h): a system of
 * 1-8 particles with masses, positions and velocities (some invalid:
 * zero, negative, NaN, infinite, beyond the doubles' range), gravity,
 * springs, constraints of every registered type on chosen particles with
 * chosen parameters (valid ones, and ones the types must refuse),
 * inequality flags; a stepper of a chosen scheme; options set by name
 * from text; then a run of steps of chosen sizes, between which the
 * constraint set changes (switched, removed, added, springs turned into
 * constraints and back), and queries.
 *
 * After every call the harness checks what the library promises:
 *   - a non-negative status means finite results: the state, the
 *     multipliers, the measures it returned;
 *   - a negative status comes with a message, and a failed step leaves
 *     the state, the time and the multipliers as they were, bit for bit;
 *   - a step allocates nothing unless it reports a reallocation (the
 *     constraint set outgrew the stepper's storage): counted through the
 *     sanitizer's allocation hook;
 * and the sanitizers (address, undefined behaviour) check the rest.  A
 * broken promise aborts, which libFuzzer reports as a crash with its
 * input.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cdyn/cdyn.h>

#include "fuzz.h"

#define MAXN 8

/* The option values tried: numbers of every kind, names, nonsense. */
static const char *const VALUES[] = {
  "0",        "1",       "2",       "-1",          "0.5",      "1e-12",  "1e-300", "1e300", "nan", "inf",
  "-inf",     "abc",     "",        "1e400",       "3.7",      "10",     "100",    "auto",  "cholesky",
  "pcg",      "euler",   "rk4",     "ab2",         "symplectic-euler",   "platt",  "tendency",
  "iterative", "lcp",    "unit",    "mass",        "on",       "off",    "true",   "2.5e6", "7"};
#define NVALUES (sizeof VALUES / sizeof VALUES[0])

/*
 * One input's work is bounded: an iteration or sub-step count (an option
 * whose name holds "iter" or "substeps") is not set to a value the option
 * may accept above 1000.  The API allows such counts (admm's iterations up
 * to 1e7), and a step then does that many iterations: with 2.5e6, single
 * inputs of the smoke ran 12 to 70 s, past libFuzzer's 20 s limit for a
 * hang, and its 100,000 inputs took 658 s instead of about 60.  Values
 * beyond every count's range (1e300, inf, nan, negative) are still set,
 * and refused.
 */
static int too_much_work(const char *name, const char *val)
{
  if (!strstr(name, "iter") && !strstr(name, "substeps"))
    return 0;
  char *end;
  double v = strtod(val, &end);
  return end != val && *end == '\0' && v > 1000 && v < 1e10;
}

static void check_finite_state(const cdyn_system *s, const char *what)
{
  size_t n = cdyn_system_size(s);
  double q[3 * MAXN], v[3 * MAXN];
  FUZZ_REQUIRE(cdyn_system_get_state(s, q, v) == CDYN_OK, "get_state failed");
  for (size_t k = 0; k < 3 * n; k++)
    FUZZ_REQUIRE(isfinite(q[k]) && isfinite(v[k]), what);
}

/* The queries: a success must return finite numbers. */
static void query(const cdyn_system *s, fuzz_input *in)
{
  double x[3], T, V, e, pen, F[3 * MAXN];
  static double phi[CDYN_MAX_ROWS * 64];
  switch (fuzz_byte(in) % 6) {
  case 0:
    if (cdyn_system_energy(s, &T, &V) >= 0)
      FUZZ_REQUIRE(isfinite(T) && isfinite(V), "energy: success with a non-finite value");
    break;
  case 1:
    if (cdyn_system_constraint_error(s, &e) >= 0)
      FUZZ_REQUIRE(isfinite(e) && e >= 0, "constraint_error: success with a non-finite value");
    break;
  case 2:
    if (cdyn_system_momentum(s, x) >= 0)
      FUZZ_REQUIRE(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]), "momentum: non-finite");
    break;
  case 3:
    if (cdyn_system_row_count(s) <= sizeof phi / sizeof phi[0] && cdyn_system_constraint_values(s, phi) >= 0)
      for (size_t r = 0; r < cdyn_system_row_count(s); r++)
        FUZZ_REQUIRE(isfinite(phi[r]), "constraint_values: success with a non-finite value");
    break;
  case 4:
    if (cdyn_system_penetration(s, &pen) >= 0)
      FUZZ_REQUIRE(isfinite(pen) && pen >= 0, "penetration: non-finite");
    break;
  default:
    if (cdyn_system_forces(s, F) >= 0)
      for (size_t k = 0; k < 3 * cdyn_system_size(s); k++)
        FUZZ_REQUIRE(isfinite(F[k]), "forces: success with a non-finite force");
  }
}

/* A change of the constraint set between steps. */
static void change_set(cdyn_system *s, fuzz_input *in)
{
  size_t nc = cdyn_system_constraint_count(s), ns = cdyn_system_spring_count(s);
  size_t c = nc ? fuzz_byte(in) % (nc + 1) : 0, k = ns ? fuzz_byte(in) % (ns + 1) : 0;
  int rc = CDYN_OK;
  switch (fuzz_byte(in) % 6) {
  case 0:
    rc = cdyn_system_enable_constraint(s, c, fuzz_byte(in) & 1);
    break;
  case 1:
    rc = cdyn_system_remove_constraint(s, c);
    break;
  case 2:
    rc = cdyn_system_set_inequality(s, c, fuzz_byte(in) & 1);
    break;
  case 3:
    rc = cdyn_system_enable_spring(s, k, fuzz_byte(in) & 1);
    break;
  case 4: {
    size_t id;
    rc = cdyn_system_spring_to_constraint(s, k, fuzz_double(in), &id);
    break;
  }
  default: {
    size_t sp;
    rc = cdyn_system_constraint_to_spring(s, c, &sp);
  }
  }
  FUZZ_REQUIRE(rc >= 0 || cdyn_errmsg()[0], "a failed change without a message");
}

static void add_constraint(cdyn_system *s, fuzz_input *in, size_t n)
{
  size_t nt = 0;
  while (cdyn_constraint_types[nt])
    nt++;
  const cdyn_constraint_type *t = cdyn_constraint_types[fuzz_byte(in) % nt];
  size_t p[CDYN_MAX_PARTICLES];
  double par[CDYN_MAX_PARAMS];
  for (unsigned a = 0; a < t->nparticles; a++)
    p[a] = fuzz_byte(in) % (n + 1); /* n: out of range */
  for (unsigned a = 0; a < t->nparams; a++)
    par[a] = fuzz_double(in);
  size_t id;
  int rc = cdyn_system_add_constraint(s, t, p, par, &id);
  FUZZ_REQUIRE(rc >= 0 || cdyn_errmsg()[0], "a refused constraint without a message");
  if (rc == CDYN_OK && (fuzz_byte(in) & 3) == 0)
    cdyn_system_set_inequality(s, id, 1);
}

static cdyn_system *build(fuzz_input *in)
{
  size_t n = 1 + fuzz_byte(in) % MAXN;
  cdyn_system *s = NULL;
  if (cdyn_system_new(&s, n) != CDYN_OK)
    return NULL;
  for (size_t i = 0; i < n; i++) {
    double x[3] = {fuzz_double(in), fuzz_double(in), fuzz_double(in)};
    double v[3] = {fuzz_small(in), fuzz_small(in), fuzz_small(in)};
    cdyn_system_set_position(s, i, x);
    cdyn_system_set_velocity(s, i, v);
    cdyn_system_set_mass(s, i, fuzz_double(in));
  }
  double g[3] = {fuzz_small(in), fuzz_small(in), fuzz_small(in)};
  cdyn_system_set_gravity(s, g);
  if (fuzz_byte(in) & 1)
    cdyn_system_reserve(s, fuzz_byte(in), fuzz_byte(in), fuzz_byte(in));
  unsigned nsp = fuzz_byte(in) % 4, ncon = fuzz_byte(in) % 8;
  for (unsigned k = 0; k < nsp; k++)
    cdyn_system_add_spring(s, fuzz_byte(in) % n, fuzz_byte(in) % n, fuzz_double(in), fuzz_small(in),
                           fuzz_double(in), NULL);
  for (unsigned k = 0; k < ncon; k++)
    add_constraint(s, in, n);
  check_finite_state(s, "the state is not finite after building");
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_input in = {.data = data, .size = size};
  fuzz_alloc_install();
  cdyn_system *s = build(&in);
  if (!s)
    return 0;
  size_t scheme = fuzz_byte(&in) % cdyn_scheme_count();
  cdyn_stepper *st = NULL;
  int rc = cdyn_stepper_new(&st, s, cdyn_scheme_name(scheme));
  FUZZ_REQUIRE(rc >= 0 || cdyn_errmsg()[0], "a refused stepper without a message");
  if (rc == CDYN_OK) {
    unsigned nopt = fuzz_byte(&in) % 4;
    for (unsigned k = 0; k < nopt; k++) {
      size_t i = fuzz_byte(&in) % cdyn_stepper_option_count(st);
      const char *name = cdyn_stepper_option_name(st, i);
      const char *val = VALUES[fuzz_byte(&in) % NVALUES];
      if (too_much_work(name, val))
        continue;
      int orc = cdyn_stepper_set(st, name, val);
      FUZZ_REQUIRE(orc >= 0 || cdyn_errmsg()[0], "a refused option without a message");
    }
    unsigned nsteps = fuzz_byte(&in) % 64;
    static double q0[3 * MAXN], v0[3 * MAXN], q1[3 * MAXN], v1[3 * MAXN];
    static double l0[CDYN_MAX_ROWS * 256], l1[CDYN_MAX_ROWS * 256];
    int changed = 0; /* the set changed since the last step: its rows move */
    for (unsigned k = 0; k < nsteps && !in.exhausted; k++) {
      uint8_t what = fuzz_byte(&in);
      if ((what & 7) == 0) {
        change_set(s, &in);
        changed = 1;
        continue;
      }
      if ((what & 7) == 1) {
        query(s, &in);
        continue;
      }
      double h = (what & 0x40) ? fuzz_double(&in) : 1e-3 * (1 + fuzz_byte(&in));
      size_t m = cdyn_stepper_rows(st);
      if (m > sizeof l0 / sizeof l0[0])
        break;
      cdyn_system_get_state(s, q0, v0);
      cdyn_stepper_multipliers(st, l0);
      double t0 = cdyn_system_time(s);
      cdyn_stats before, after;
      cdyn_stepper_stats(st, &before);
      fuzz_alloc_arm();
      int src = cdyn_stepper_step(st, h);
      long allocs = fuzz_alloc_disarm();
      cdyn_stepper_stats(st, &after);
      FUZZ_REQUIRE(allocs == 0 || after.reallocations > before.reallocations || after.analyses > before.analyses ||
                     src < 0,
                   "a step allocated without growing its storage or analysing a new pattern");
      if (src < 0) {
        FUZZ_REQUIRE(cdyn_errmsg()[0], "a failed step without a message");
        cdyn_system_get_state(s, q1, v1);
        size_t n3 = 3 * cdyn_system_size(s);
        FUZZ_REQUIRE(!memcmp(q0, q1, n3 * sizeof(double)) && !memcmp(v0, v1, n3 * sizeof(double)),
                     "a failed step changed the state");
        FUZZ_REQUIRE(cdyn_system_time(s) == t0 || (isnan(t0) && isnan(cdyn_system_time(s))),
                     "a failed step changed the time");
        if (!changed && cdyn_stepper_rows(st) == m) {
          cdyn_stepper_multipliers(st, l1);
          FUZZ_REQUIRE(!memcmp(l0, l1, m * sizeof(double)), "a failed step changed the multipliers");
        }
      } else {
        changed = 0;
        check_finite_state(s, "a successful step left a non-finite state");
        size_t mm = cdyn_stepper_rows(st);
        FUZZ_REQUIRE(mm <= sizeof l1 / sizeof l1[0], "too many rows");
        FUZZ_REQUIRE(cdyn_stepper_multipliers(st, l1) == CDYN_OK, "multipliers after a step");
        for (size_t r = 0; r < mm; r++)
          FUZZ_REQUIRE(isfinite(l1[r]), "a successful step returned a non-finite multiplier");
      }
    }
    cdyn_stepper_free(st);
  }
  cdyn_system_free(s);
  return 0;
}
