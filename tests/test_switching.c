/*
 * test_switching.c: constraint sets that change between steps.
 *
 * Conformance (every registered scheme, including one registered by this
 * program from outside the library, tests/ext_scheme.h, with both linear
 * solvers; and baumgarte over AB2, a multistep integrator).  An 8-link
 * chain, pinned at node 0 and swinging, goes through a fixed schedule of
 * changes between steps:
 *   step  0  the spring 2-5 (a constraint when the stepper was built)
 *            back to a spring, and the end pin removed
 *   step  8  link 4 switched off            step 16  switched on again
 *   step 20  a pin added at the end node    step 26  removed
 *   step 30  every constraint off (m = 0)   step 32  all on again
 *   step 36  spring 2-5 turned into a constraint, at its length
 *   step 44  back into a spring
 *   step 48  link 7 removed and added again (same id, a new constraint)
 * A second system goes through the same calls, and at each change a
 * stepper is built afresh for it (the reference).  Each step of the
 * switching stepper must give bitwise the state and multipliers of the
 * fresh one, and allocate nothing (tests/alloc_count.h), but for a sparse
 * solver's analysis of a new pattern and, at the first step, storage a
 * scheme makes for the path it takes, counted as growth (contact's dense
 * A over its rows).  Where a scheme
 * carries history across a change the arithmetic differs, and the test
 * says what it checks instead:
 *   - improved-ab2 carries F_n-1 across a change of the constraints alone
 *     (it is the applied force).  Its reference is primed: built fresh,
 *     stepped once from the previous state (which sets F_n-1), then put
 *     at the current state; the result is again bitwise equal.  Across a
 *     change of the springs it drops F_n-1, and the plain reference holds.
 *   - shake: the positions and velocities do not depend on the carried
 *     history; a row that stays keeps Lambda = lambda / 2, so on the first
 *     step after a change its multiplier is exactly half the fresh
 *     stepper's (which uses the first-step rule Lambda = lambda); new rows
 *     agree bitwise.
 *   - rattle: likewise, with Lambda = (lambda + mu_-) / 2 on rows that
 *     stay.  mu_- is not visible from outside, so on those rows, on the
 *     first step after a change, the multipliers are not compared here;
 *     test_history_carried checks them.
 *
 * History carried across a change (test_history_carried): a side
 * pendulum whose constraints have the lowest ids is switched off and on
 * every few steps, which moves every row of an 8-link chain beside it.
 * The chain's motion does not depend on the side pendulum, so under
 * shake and rattle its state and multipliers must agree, to rounding,
 * with a run of the chain alone, where nothing changes: only a history
 * carried to the rows' new places does that.  (Measured with the history
 * dropped instead: SHAKE's multipliers then differ by up to 165 N, of a
 * largest 187 N, since they double; RATTLE's by up to 2.6 N, the
 * difference of lambda and mu_-.)
 * The number of patterns built follows the changes: removing link 7 and
 * adding it again leaves A's pattern as it was, so no new pattern (and no
 * new symbolic analysis) is made at step 48.
 *
 * Growth: constraints whose pattern outgrows every earlier one make the
 * step that first meets them reallocate (stats.reallocations), and
 * repeating the same change costs nothing.  A system grown past its
 * reserve is followed too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "alloc_count.h"
#include "ext_scheme.h"
#include "testutil.h"

enum { LINKS = 8, NP = LINKS + 1, STEPS = 60, NC = 16 };
#define H 2e-3
#define NONE ((size_t)-1)

/* A system and what the schedule did to it. */
typedef struct {
  cdyn_system *sys;
  size_t spring;       /* the spring 2-5 */
  size_t spring_con;   /* its constraint, or NONE */
  size_t end_pin;      /* the end pin, or NONE */
  unsigned gen[NC];    /* bumped when an id is given to a new constraint */
  int on[NC];          /* the id is a live, enabled constraint */
} world;

static const double joints[LINKS] = {0.4, -0.3, 0.25, 0.5, -0.45, 0.3, -0.2, 0.35};

static double dist(const cdyn_system *s, size_t i, size_t j)
{
  double a[3], b[3];
  ck_assert_int_eq(cdyn_system_get_particle(s, i, NULL, a, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_get_particle(s, j, NULL, b, NULL), CDYN_OK);
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static void mark_new(world *w, size_t id)
{
  ck_assert_uint_lt(id, NC);
  w->gen[id]++;
  w->on[id] = 1;
}

/*
 * The chain (pin = id 0, link j between nodes j - 1 and j = id j), swinging
 * rigidly about the pin at 0.7 rad/s (a state every constraint holds),
 * masses of high entropy, a damped spring between nodes 2 and 5, room
 * reserved; then the spring's constraint and an end pin, so that the
 * stepper built next sizes its pattern for them.
 */
static void build(world *w)
{
  memset(w, 0, sizeof *w);
  ck_assert_int_eq(tu_chain(&w->sys, LINKS, 0.5, 1.0, joints), CDYN_OK);
  for (size_t i = 0; i < NP; i++) {
    double x[3];
    ck_assert_int_eq(cdyn_system_get_particle(w->sys, i, NULL, x, NULL), CDYN_OK);
    const double v[3] = {-0.7 * x[1], 0.7 * x[0], 0};
    ck_assert_int_eq(cdyn_system_set_velocity(w->sys, i, v), CDYN_OK);
    if (i)
      ck_assert_int_eq(cdyn_system_set_mass(w->sys, i, 0.5 + 0.37 * (double)((i * 7) % 5)), CDYN_OK);
  }
  for (size_t id = 0; id <= LINKS; id++)
    mark_new(w, id);
  ck_assert_int_eq(cdyn_system_reserve(w->sys, NC, 3 * NC, 4), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_spring(w->sys, 2, 5, 40.0, 0.3, 1.05 * dist(w->sys, 2, 5), &w->spring),
                   CDYN_OK);
  ck_assert_int_eq(cdyn_system_spring_to_constraint(w->sys, w->spring, dist(w->sys, 2, 5), &w->spring_con),
                   CDYN_OK);
  mark_new(w, w->spring_con);
  double x[3];
  ck_assert_int_eq(cdyn_system_get_particle(w->sys, LINKS, NULL, x, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_add_pin(w->sys, LINKS, x, &w->end_pin), CDYN_OK);
  mark_new(w, w->end_pin);
}

static void switch_id(world *w, size_t id, int on)
{
  ck_assert_int_eq(cdyn_system_enable_constraint(w->sys, id, on), CDYN_OK);
  w->on[id] = on;
}

static void remove_id(world *w, size_t *id)
{
  ck_assert_int_eq(cdyn_system_remove_constraint(w->sys, *id), CDYN_OK);
  w->on[*id] = 0;
  *id = NONE;
}

/* The changes before step k; *forces says the applied force changed too. */
static int schedule(world *w, int k, int *forces)
{
  *forces = 0;
  switch (k) {
  case 0:
    ck_assert_int_eq(cdyn_system_constraint_to_spring(w->sys, w->spring_con, NULL), CDYN_OK);
    w->on[w->spring_con] = 0;
    w->spring_con = NONE;
    remove_id(w, &w->end_pin);
    *forces = 1;
    return 1;
  case 8:
  case 16:
    switch_id(w, 4, k == 16);
    return 1;
  case 20: {
    double x[3];
    ck_assert_int_eq(cdyn_system_get_particle(w->sys, LINKS, NULL, x, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_pin(w->sys, LINKS, x, &w->end_pin), CDYN_OK);
    mark_new(w, w->end_pin);
    return 1;
  }
  case 26:
    remove_id(w, &w->end_pin);
    return 1;
  case 30:
  case 32:
    for (size_t id = 0; id <= LINKS; id++)
      switch_id(w, id, k == 32);
    return 1;
  case 36:
    ck_assert_int_eq(cdyn_system_spring_to_constraint(w->sys, w->spring, dist(w->sys, 2, 5), &w->spring_con),
                     CDYN_OK);
    mark_new(w, w->spring_con);
    *forces = 1;
    return 1;
  case 44:
    ck_assert_int_eq(cdyn_system_constraint_to_spring(w->sys, w->spring_con, NULL), CDYN_OK);
    w->on[w->spring_con] = 0;
    w->spring_con = NONE;
    *forces = 1;
    return 1;
  case 48: {
    size_t id = 7;
    remove_id(w, &id);
    ck_assert_int_eq(cdyn_system_add_distance(w->sys, 6, 7, 0.5, &id), CDYN_OK);
    ck_assert_uint_eq(id, 7); /* the vacant id is reused */
    mark_new(w, id);
    return 1;
  }
  default:
    return 0;
  }
}

/* A scheme with its options, as the conformance loop runs it. */
typedef struct {
  const char *scheme;
  const char *opt, *val; /* one option, or NULL */
} config;

static cdyn_stepper *stepper(cdyn_system *sys, const config *c, const char *solver)
{
  cdyn_stepper *st = NULL;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, c->scheme), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_OK);
  if (c->opt)
    ck_assert_int_eq(cdyn_stepper_set(st, c->opt, c->val), CDYN_OK);
  return st;
}

typedef struct {
  double q[3 * NP], v[3 * NP], t;
} state;

static void get(const cdyn_system *s, state *x)
{
  ck_assert_int_eq(cdyn_system_get_state(s, x->q, x->v), CDYN_OK);
  x->t = cdyn_system_time(s);
}

static void put(cdyn_system *s, const state *x)
{
  ck_assert_int_eq(cdyn_system_set_state(s, x->q, x->v), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_time(s, x->t), CDYN_OK);
}

/* Runs the schedule, asserting each step (above); returns the steps checked. */
static int run_config(const config *c, const char *solver)
{
  const char *name = c->scheme;
  int primed = !strcmp(name, "improved-ab2"), shake = !strcmp(name, "shake"), rattle = !strcmp(name, "rattle");
  world S, R;
  build(&S);
  build(&R);
  cdyn_stepper *ss = stepper(S.sys, c, solver), *rs = NULL;
  int before[NC];
  unsigned gen_before[NC];
  state prev;
  cdyn_stats st0, st1;
  int new_patterns = 0, checked = 0;
  unsigned long grown0 = 0;
  for (int k = 0; k < STEPS; k++) {
    memcpy(before, S.on, sizeof before);
    memcpy(gen_before, S.gen, sizeof gen_before);
    int forces, forces_r;
    int changed = schedule(&S, k, &forces);
    ck_assert_int_eq(schedule(&R, k, &forces_r), changed);
    if (changed) {
      cdyn_stepper_free(rs);
      rs = stepper(R.sys, c, solver);
      if (primed && !forces && k > 0) {
        state now;
        get(R.sys, &now);
        put(R.sys, &prev);
        ck_assert_int_ge(cdyn_stepper_step(rs, H), 0);
        put(R.sys, &now);
      }
    }
    get(S.sys, &prev);
    ck_assert_int_eq(cdyn_stepper_stats(ss, &st0), CDYN_OK);
    ta_arm(0);
    int rc_s = cdyn_stepper_step(ss, H);
    long allocs = ta_disarm();
    ck_assert_int_eq(cdyn_stepper_stats(ss, &st1), CDYN_OK);
    int rc_r = cdyn_stepper_step(rs, H);
    ck_assert_msg(rc_s >= 0 && rc_s == rc_r, "%s/%s step %d: status %d, fresh stepper %d (%s)", name, solver, k,
                  rc_s, rc_r, cdyn_errmsg());
    /* A sparse direct solver analyses a pattern it has not seen before,
       which allocates (its symbolic factor); and the first step may make
       storage a scheme keeps for a path it takes (contact's dense A over
       its rows), counted as growth; nothing else may. */
    ck_assert_msg(allocs == 0 || st1.analyses > st0.analyses || (k == 0 && st1.reallocations > st0.reallocations),
                  "%s/%s step %d allocated %ld times", name, solver, k,
                  allocs);
    if (st1.analyses > st0.analyses) {
      ck_assert_msg(changed || k == 0, "%s/%s step %d analysed a pattern without a change of the set", name, solver,
                    k);
      new_patterns++;
    }
    ck_assert_uint_eq(st1.set_changes - st0.set_changes, (unsigned long)changed);
    /* No growth, but contact's dense A made at the first step. */
    if (k == 0)
      grown0 = st1.reallocations;
    ck_assert_uint_eq(st1.reallocations, grown0);
    ck_assert_uint_le(grown0, (unsigned long)!strcmp(name, "contact"));
    if (k == 48)
      ck_assert_msg(st1.patterns == st0.patterns && st1.analyses == st0.analyses,
                    "%s: removing and re-adding link 7 rebuilt or re-analysed the pattern", name);
    state xs, xr;
    get(S.sys, &xs);
    get(R.sys, &xr);
    for (int i = 0; i < 3 * NP; i++)
      TU_ASSERT(xs.q[i] == xr.q[i] && xs.v[i] == xr.v[i],
                "%s/%s step %d: state %d differs from a fresh stepper's: q %.17g vs %.17g, v %.17g vs %.17g",
                name, solver, k, i, xs.q[i], xr.q[i], xs.v[i], xr.v[i]);
    ck_assert(xs.t == xr.t);
    ck_assert_uint_eq(cdyn_stepper_rows(ss), cdyn_system_row_count(S.sys));
    for (size_t id = 0; id < NC; id++) {
      if (!S.on[id])
        continue;
      double ls[CDYN_MAX_ROWS], lr[CDYN_MAX_ROWS];
      size_t ns, nr;
      TU_ASSERT_OK(cdyn_stepper_constraint_multipliers(ss, id, ls, &ns));
      TU_ASSERT_OK(cdyn_stepper_constraint_multipliers(rs, id, lr, &nr));
      TU_ASSERT(ns == nr, "%s/%s step %d, constraint %zu: %zu multipliers, fresh %zu", name, solver, k, id, ns, nr);
      int stays = changed && k > 0 && before[id] && gen_before[id] == S.gen[id];
      for (size_t r = 0; r < ns; r++) {
        if (stays && shake)
          TU_ASSERT(ls[r] == 0.5 * lr[r], "shake step %d, constraint %zu: lambda %.17g, fresh %.17g", k, id,
                    ls[r], lr[r]);
        else if (stays && rattle)
          continue; /* test_history_carried */
        else
          TU_ASSERT(ls[r] == lr[r], "%s/%s step %d, constraint %zu row %zu: lambda %.17g, fresh %.17g", name,
                    solver, k, id, r, ls[r], lr[r]);
      }
    }
    checked++;
  }
  /* At most one analysis per constraint set (and the cache keeps the sets
     that come back, such as step 48's). */
  ck_assert_int_le(new_patterns, 1 + (int)st1.set_changes);
  cdyn_stepper_free(ss);
  cdyn_stepper_free(rs);
  cdyn_system_free(S.sys);
  cdyn_system_free(R.sys);
  return checked;
}

static size_t nconfigs(void) { return tu_scheme_count() + 1; }

/* Config i: registered scheme i, then baumgarte over AB2. */
static config config_at(size_t i)
{
  if (i < tu_scheme_count())
    return (config){tu_scheme_name(i), NULL, NULL};
  return (config){"baumgarte", "integrator", "ab2"};
}

/* The assertions are run_config's: every step's status and state bitwise
   equal to a freshly built stepper's, zero allocations (but for the
   analysis of a pattern a sparse direct solver has not seen), the counted
   set changes and no reallocation; here, that every step of the schedule
   was run and checked.  Every registered solver. */
START_TEST(test_switching_conformance)
{
  size_t i = (size_t)_i / cdyn_solver_count();
  config c = config_at(i);
  const char *solver = cdyn_solver_name((size_t)_i % cdyn_solver_count());
  if (!tu_solver_fits(c.scheme, solver)) {
    /* The pair is refused when the solver is named, not at a step. */
    cdyn_system *sys;
    cdyn_stepper *st;
    ck_assert_int_eq(cdyn_system_new(&sys, 2), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_new(&st, sys, c.scheme), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_set(st, "solver", solver), CDYN_EINVAL);
    ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "indefinite"));
    cdyn_stepper_free(st);
    cdyn_system_free(sys);
    return;
  }
  ck_assert_int_eq(run_config(&c, solver), STEPS);
}
END_TEST

/*
 * The 8-link chain of the conformance test on particles off .. off + 8,
 * after (side = 1) a 3-link pendulum pinned far away on particles 0 .. 3,
 * whose constraints then have ids 0 .. 3.
 */
static cdyn_system *side_and_chain(int side)
{
  size_t off = side ? 4 : 0;
  cdyn_system *s;
  ck_assert_int_eq(cdyn_system_new(&s, off + NP), CDYN_OK);
  const double g[3] = {0, -9.81, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  if (side) {
    const double p[3] = {10, 0, 0};
    for (size_t i = 0; i < 4; i++) {
      const double x[3] = {10 + 0.4 * (double)i, -0.3 * (double)i, 0};
      ck_assert_int_eq(cdyn_system_set_position(s, i, x), CDYN_OK);
      if (i)
        ck_assert_int_eq(cdyn_system_add_distance(s, i - 1, i, 0.5, NULL), CDYN_OK);
    }
    ck_assert_int_eq(cdyn_system_add_pin(s, 0, p, NULL), CDYN_OK);
  }
  double x[3] = {0, 0, 0}, theta = 0;
  const double o[3] = {0, 0, 0};
  ck_assert_int_eq(cdyn_system_add_pin(s, off, o, NULL), CDYN_OK);
  for (size_t i = 0; i < NP; i++) {
    if (i) {
      theta += joints[i - 1];
      x[0] += 0.5 * sin(theta);
      x[1] -= 0.5 * cos(theta);
      ck_assert_int_eq(cdyn_system_add_distance(s, off + i - 1, off + i, 0.5, NULL), CDYN_OK);
    }
    const double v[3] = {-0.7 * x[1], 0.7 * x[0], 0};
    ck_assert_int_eq(cdyn_system_set_position(s, off + i, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(s, off + i, v), CDYN_OK);
    if (i)
      ck_assert_int_eq(cdyn_system_set_mass(s, off + i, 0.5 + 0.37 * (double)((i * 7) % 5)), CDYN_OK);
  }
  return s;
}

START_TEST(test_history_carried)
{
  const char *scheme = _i ? "rattle" : "shake";
  cdyn_system *a = side_and_chain(1), *b = side_and_chain(0);
  cdyn_stepper *sa, *sb;
  ck_assert_int_eq(cdyn_stepper_new(&sa, a, scheme), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&sb, b, scheme), CDYN_OK);
  double worst = 0, lmax = 0;
  for (int k = 0; k < STEPS; k++) {
    if (k % 5 == 2)
      for (size_t id = 0; id < 4; id++)
        ck_assert_int_eq(cdyn_system_enable_constraint(a, id, k % 10 == 7), CDYN_OK);
    ck_assert_int_ge(cdyn_stepper_step(sa, H), 0);
    ck_assert_int_ge(cdyn_stepper_step(sb, H), 0);
    double qa[3 * (NP + 4)], qb[3 * NP];
    ck_assert_int_eq(cdyn_system_get_state(a, qa, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(b, qb, NULL), CDYN_OK);
    for (int i = 0; i < 3 * NP; i++)
      ck_assert_msg(fabs(qa[12 + i] - qb[i]) <= 1e-12, "%s step %d: the chain moved differently (%.3g)", scheme, k,
                    fabs(qa[12 + i] - qb[i]));
    for (size_t c = 0; c <= LINKS; c++) {
      double la[CDYN_MAX_ROWS], lb[CDYN_MAX_ROWS];
      size_t na, nb;
      ck_assert_int_eq(cdyn_stepper_constraint_multipliers(sa, c + 4, la, &na), CDYN_OK);
      ck_assert_int_eq(cdyn_stepper_constraint_multipliers(sb, c, lb, &nb), CDYN_OK);
      ck_assert_uint_eq(na, nb);
      for (size_t r = 0; r < na; r++) {
        worst = fmax(worst, fabs(la[r] - lb[r]));
        lmax = fmax(lmax, fabs(lb[r]));
      }
    }
  }
  /* Rounding: the chain's rows sit elsewhere in A, so sums run in another
     order; 1e-9 of the largest multiplier is far above that and far
     below a dropped history's effect. */
  ck_assert_msg(worst <= 1e-9 * lmax, "%s: the chain's multipliers differ by %.3g (largest %.3g)", scheme, worst,
                lmax);
  cdyn_stepper_free(sa);
  cdyn_stepper_free(sb);
  cdyn_system_free(a);
  cdyn_system_free(b);
}
END_TEST

/*
 * Growth past what the stepper was sized for: a pin added on a node of
 * the chain that no constraint touched at the build (more rows than the
 * build's, and a pattern beyond every earlier one) makes that step
 * reallocate, and removing and adding it again costs nothing.  Constraints added past the reserve are
 * followed as well (the row capacity grows), with a step that agrees with
 * a fresh stepper's.
 */
START_TEST(test_growth)
{
  cdyn_system *sys;
  ck_assert_int_eq(tu_chain(&sys, 4, 0.5, 1.0, NULL), CDYN_OK);
  ck_assert_int_eq(cdyn_system_remove_constraint(sys, 4), CDYN_OK); /* the last link: node 4 is free */
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, "implicit"), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(st, H), 0);
  double x[3];
  ck_assert_int_eq(cdyn_system_get_particle(sys, 4, NULL, x, NULL), CDYN_OK);
  size_t id;
  cdyn_stats s0, s1;
  for (int round = 0; round < 3; round++) {
    ck_assert_int_eq(cdyn_system_add_pin(sys, 4, x, &id), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_stats(st, &s0), CDYN_OK);
    ta_arm(0);
    int rc = cdyn_stepper_step(st, H);
    long allocs = ta_disarm();
    ck_assert_int_ge(rc, 0);
    ck_assert_int_eq(cdyn_stepper_stats(st, &s1), CDYN_OK);
    /* The first round grows the rows and the pattern; later ones reuse them. */
    ck_assert_msg(round == 0 ? s1.reallocations > s0.reallocations : s1.reallocations == s0.reallocations,
                  "round %d: %lu reallocations", round, s1.reallocations - s0.reallocations);
    if (round > 0)
      ck_assert_msg(allocs == 0, "round %d allocated %ld times", round, allocs);
    ck_assert_int_eq(cdyn_system_remove_constraint(sys, id), CDYN_OK);
    ck_assert_int_ge(cdyn_stepper_step(st, H), 0);
  }
  /* Past the reserve: ten pins more, then a step, which must match a
     stepper built for the grown system. */
  for (int k = 0; k < 10; k++)
    ck_assert_int_eq(cdyn_system_add_pin(sys, 4, x, NULL), CDYN_OK);
  ck_assert_uint_eq(cdyn_system_row_count(sys), 3 + 3 + 30);
  double q0[15], v0[15], q1[15], v1[15], q2[15], v2[15];
  double t0 = cdyn_system_time(sys);
  ck_assert_int_eq(cdyn_system_get_state(sys, q0, v0), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(st, H), 0);
  ck_assert_int_eq(cdyn_system_get_state(sys, q1, v1), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_stats(st, &s1), CDYN_OK);
  ck_assert_uint_ge(s1.reallocations, 2);
  ck_assert_int_eq(cdyn_system_set_state(sys, q0, v0), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_time(sys, t0), CDYN_OK);
  cdyn_stepper *fresh;
  ck_assert_int_eq(cdyn_stepper_new(&fresh, sys, "implicit"), CDYN_OK);
  ck_assert_int_ge(cdyn_stepper_step(fresh, H), 0);
  ck_assert_int_eq(cdyn_system_get_state(sys, q2, v2), CDYN_OK);
  for (int i = 0; i < 15; i++)
    ck_assert(q1[i] == q2[i] && v1[i] == v2[i]);
  cdyn_stepper_free(fresh);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
}
END_TEST

/*
 * Inequality rows that come and go, under the contact scheme: three balls
 * falling onto a floor beside a wall, with a second wall far away added
 * and removed every few steps (inactive: it never touches a ball).  For
 * every active-set algorithm, Platt's included (its carried set stays
 * with the rows that remain), the trajectory is bitwise that of a run
 * without the far wall, and the step allocates nothing.  (The far walls
 * exist when the stepper is built, and are removed before the first
 * step, so that the stepper sizes its pattern for them.)
 */
static const double far_p[3] = {0, 40, 0}, down[3] = {0, -1, 0};

static cdyn_system *balls(int far)
{
  cdyn_system *s;
  const double g[3] = {-1.3, -9.81, 0}, floor_p[3] = {0, 0, 0}, up[3] = {0, 1, 0}, wall_p[3] = {0.05, 0, 0},
               right[3] = {1, 0, 0};
  ck_assert_int_eq(cdyn_system_new(&s, 3), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_gravity(s, g), CDYN_OK);
  ck_assert_int_eq(cdyn_system_reserve(s, 16, 16, 0), CDYN_OK);
  for (size_t i = 0; i < 3; i++) {
    const double x[3] = {0.3 + 0.25 * (double)i, 0.1 + 0.07 * (double)i, 0}, v[3] = {-0.4, 0.3 * (double)i, 0};
    ck_assert_int_eq(cdyn_system_set_position(s, i, x), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_velocity(s, i, v), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_wall(s, i, floor_p, up, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_wall(s, i, wall_p, right, NULL), CDYN_OK);
    if (far)
      ck_assert_int_eq(cdyn_system_add_wall(s, i, far_p, down, NULL), CDYN_OK);
  }
  return s;
}

/* Remove every far wall (the walls with a downward normal). */
static void remove_far(cdyn_system *s)
{
  for (size_t c = 0; c < cdyn_system_constraint_count(s); c++) {
    double p[6];
    if (cdyn_system_get_constraint(s, c, NULL, NULL, p) == CDYN_OK && p[4] < 0)
      ck_assert_int_eq(cdyn_system_remove_constraint(s, c), CDYN_OK);
  }
}

START_TEST(test_contact_switching)
{
  const char *alg = cdyn_activeset_name((size_t)_i);
  cdyn_system *a = balls(0), *b = balls(1);
  cdyn_stepper *sa, *sb;
  ck_assert_int_eq(cdyn_stepper_new(&sa, a, "contact"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_new(&sb, b, "contact"), CDYN_OK);
  remove_far(b);
  const char *kv[] = {"activeset", alg, "restitution", "0.5", "tau", "0.02"};
  for (int k = 0; k < 6; k += 2) {
    ck_assert_int_eq(cdyn_stepper_set(sa, kv[k], kv[k + 1]), CDYN_OK);
    ck_assert_int_eq(cdyn_stepper_set(sb, kv[k], kv[k + 1]), CDYN_OK);
  }
  size_t far = NONE;
  unsigned long impulses = 0;
  for (int k = 0; k < 400; k++) {
    if (k % 7 == 3) {
      if (far == NONE) {
        ck_assert_int_eq(cdyn_system_add_wall(b, (size_t)k % 3, far_p, down, &far), CDYN_OK);
      } else {
        ck_assert_int_eq(cdyn_system_remove_constraint(b, far), CDYN_OK);
        far = NONE;
      }
    }
    int ra = cdyn_stepper_step(sa, 1e-3);
    cdyn_stats g0, g1;
    ck_assert_int_eq(cdyn_stepper_stats(sb, &g0), CDYN_OK);
    ta_arm(0);
    int rb = cdyn_stepper_step(sb, 1e-3);
    long allocs = ta_disarm();
    ck_assert_int_eq(cdyn_stepper_stats(sb, &g1), CDYN_OK);
    /* The first step makes the dense path's A over the rows (counted as
       growth); no later one allocates. */
    if (k == 0 && g1.reallocations > g0.reallocations)
      allocs = 0;
    ck_assert_msg(ra >= 0 && ra == rb, "%s step %d: %d vs %d (%s)", alg, k, ra, rb, cdyn_errmsg());
    ck_assert_msg(allocs == 0, "%s step %d allocated %ld times", alg, k, allocs);
    cdyn_contact_report rep;
    ck_assert_int_eq(cdyn_stepper_contact_report(sa, &rep), CDYN_OK);
    impulses += rep.impulses;
    double qa[9], qb[9], va[9], vb[9];
    ck_assert_int_eq(cdyn_system_get_state(a, qa, va), CDYN_OK);
    ck_assert_int_eq(cdyn_system_get_state(b, qb, vb), CDYN_OK);
    for (int i = 0; i < 9; i++)
      ck_assert_msg(qa[i] == qb[i] && va[i] == vb[i], "%s step %d: the far wall changed the motion (%d)", alg, k, i);
  }
  ck_assert_msg(impulses > 0, "%s: no impact in the run", alg);
  cdyn_stepper_free(sa);
  cdyn_stepper_free(sb);
  cdyn_system_free(a);
  cdyn_system_free(b);
}
END_TEST

int main(void)
{
  ta_init();
  if (!ta_works)
    return tu_skip("allocations cannot be counted here (under valgrind, the program's allocator needs --soname-synonyms=somalloc=nouserintercepts)");
  if (ext_register() != CDYN_OK) {
    fprintf(stderr, "ext_register: %s\n", cdyn_errmsg());
    return EXIT_FAILURE;
  }
  Suite *s = suite_create("switching");
  TCase *tc = tcase_create("conformance");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_switching_conformance, 0, (int)(cdyn_solver_count() * nconfigs()));
  tcase_add_test(tc, test_growth);
  tcase_add_loop_test(tc, test_history_carried, 0, 2);
  suite_add_tcase(s, tc);
  tc = tcase_create("contact");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_contact_switching, 0, (int)cdyn_activeset_count());
  suite_add_tcase(s, tc);
  return tu_run(s);
}
