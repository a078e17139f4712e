/*
 * test_failsafe.c: the contact handler's fail-safe, rigid impact zones
 * (lib/collision/failsafe.c), checked by the exact replay
 * (reference/ccd_replay.c, GMP): after it, no pair of a crumpled cloth
 * thrown about at random touches on the straight-line motion of the step,
 * where without it many do; zones keep the linear momentum of their
 * nodes; a zone with a pinned node stays where it was; the bound on the
 * passes freezes the mesh and still leaves no crossing; bad options.
 *
 * The mesh: a grid x grid cloth of side 1 m folded into a wave,
 * y = A sin(3 pi x) cos(2 pi z) with A = 0.15 m, every node jittered by up
 * to 2 % of the spacing, its nodes given random velocities that move them
 * up to `motion` spacings per step in each component (a fixed splitmix64
 * stream): at several spacings a step the folds pass through one another.
 * The handler runs in mode inequality with continuous detection off, so
 * that nothing but the fail-safe stands in the way: the "step" is the
 * free motion x1 = x0 + h v.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>
#include <cdyn/collision.h>

#include "reference/ccd_replay.h"
#include "testutil.h"

static const double PI = 3.14159265358979323846;

static unsigned long long rng_state;
static double rnd(void)
{
  unsigned long long z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0 * 2 - 1;
}

typedef struct {
  size_t N, n, ntri;
  cdyn_system *sys;
  size_t *tri;
  double *x0, *v0, *x1;
} mesh;

static void mesh_make(mesh *m, size_t N, double motion, unsigned long long seed, int pin_corner)
{
  m->N = N, m->n = N * N, m->ntri = 2 * (N - 1) * (N - 1);
  ck_assert_int_eq(cdyn_system_new(&m->sys, m->n), CDYN_OK);
  m->tri = malloc(3 * m->ntri * sizeof *m->tri);
  m->x0 = malloc(3 * m->n * sizeof(double));
  m->v0 = malloc(3 * m->n * sizeof(double));
  m->x1 = malloc(3 * m->n * sizeof(double));
  ck_assert(m->tri && m->x0 && m->v0 && m->x1);
  size_t t = 0;
  for (size_t j = 0; j + 1 < N; j++)
    for (size_t i = 0; i + 1 < N; i++) {
      size_t a = j * N + i, b = a + 1, c = a + N, d = c + 1;
      size_t T[6] = {a, b, d, a, d, c};
      if ((i + j) % 2) { /* alternate diagonals */
        T[0] = a, T[1] = b, T[2] = c, T[3] = b, T[4] = d, T[5] = c;
      }
      memcpy(m->tri + 3 * t, T, sizeof T);
      t += 2;
    }
  rng_state = seed;
  double sp = 1.0 / (double)(N - 1), h = 1e-3;
  for (size_t j = 0; j < N; j++)
    for (size_t i = 0; i < N; i++) {
      size_t k = j * N + i;
      double x = -0.5 + (double)i * sp, z = -0.5 + (double)j * sp;
      double *p = m->x0 + 3 * k;
      p[0] = x + 0.02 * sp * rnd();
      p[1] = 0.15 * sin(3 * PI * x) * cos(2 * PI * z) + 0.02 * sp * rnd();
      p[2] = z + 0.02 * sp * rnd();
      for (int c = 0; c < 3; c++)
        m->v0[3 * k + c] = motion * sp / h * rnd();
      ck_assert_int_eq(cdyn_system_set_mass(m->sys, k, 0.5 / (double)m->n * (1 + 0.5 * rnd())), CDYN_OK);
    }
  ck_assert_int_eq(cdyn_system_set_state(m->sys, m->x0, m->v0), CDYN_OK);
  if (pin_corner)
    ck_assert_int_eq(cdyn_system_add_pin(m->sys, 0, m->x0, NULL), CDYN_OK);
  for (size_t k = 0; k < 3 * m->n; k++)
    m->x1[k] = m->x0[k] + h * m->v0[k];
}

static void mesh_free(mesh *m)
{
  cdyn_system_free(m->sys);
  free(m->tri);
  free(m->x0);
  free(m->v0);
  free(m->x1);
}

/* One step of the free motion through the handler: before at x0, the state
   moved to x1 (velocity v0), after.  Returns the handler's counts.
   checked: with the handler's continuous check of the motion taken, no
   repeat allowed, and at rest at x0 before (so that the prediction from
   the start makes no contact). */
static void step_through(mesh *m, int failsafe, unsigned iters, int checked, cdyn_contacts_counts *cn)
{
  cdyn_contacts_opts o;
  ck_assert_int_eq(cdyn_contacts_opts_default(&o), CDYN_OK);
  o.thickness = 1e-3;
  o.continuous = checked;
  o.max_redo = 0;
  o.failsafe = failsafe;
  o.failsafe_iter = iters;
  o.capacity = 1 << 16;
  o.pairs = 1 << 22;
  double *rest = calloc(3 * m->n, sizeof *rest);
  ck_assert(rest);
  if (checked) /* at rest at the start: the prediction makes no contact */
    ck_assert_int_eq(cdyn_system_set_state(m->sys, m->x0, rest), CDYN_OK);
  free(rest);
  cdyn_contacts *cc;
  ck_assert_int_eq(cdyn_contacts_new(&cc, m->sys, m->tri, m->ntri, &o), CDYN_OK);
  ck_assert_int_eq(cdyn_contacts_before(cc, 1e-3), CDYN_OK);
  ck_assert_int_eq(cdyn_system_set_state(m->sys, m->x1, m->v0), CDYN_OK);
  int redo = -1;
  ck_assert_int_eq(cdyn_contacts_after(cc, NULL, 1e-3, &redo), CDYN_OK);
  ck_assert_int_eq(redo, 0);
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, cn), CDYN_OK);
  cdyn_contacts_free(cc);
}

static ref_replay_report replay(const mesh *m)
{
  ref_replay_report rp;
  ck_assert_int_eq(ref_replay(m->tri, m->ntri, m->x0, cdyn_system_positions(m->sys), 0, &rp), 0);
  ck_assert_int_eq(rp.degenerate, 0);
  return rp;
}

/* Without the fail-safe the folds pass through each other; with it the
   exact replay finds no touching pair, and the linear momentum of the
   mesh is kept to rounding when no zone was frozen. */
START_TEST(test_no_crossing)
{
  static const size_t grids[] = {8, 12, 16};
  static const double motions[] = {1, 3, 6};
  for (size_t g = 0; g < 3; g++)
    for (size_t k = 0; k < 3; k++) {
      mesh m;
      unsigned long long seed = 1000 * g + k + 1;
      mesh_make(&m, grids[g], motions[k], seed, 0);
      cdyn_contacts_counts cn;
      step_through(&m, 0, 100, 0, &cn);
      ref_replay_report without = replay(&m);
      ck_assert_msg(without.crossings > 0, "grid %zu, motion %g: no crossing to prevent", grids[g], motions[k]);
      mesh_free(&m);

      mesh_make(&m, grids[g], motions[k], seed, 0);
      step_through(&m, 1, 100, 0, &cn);
      ref_replay_report with = replay(&m);
      ck_assert_msg(with.crossings == 0, "grid %zu, motion %g: %zu crossings with the fail-safe (%zu without)", grids[g],
                    motions[k], with.crossings, without.crossings);
      ck_assert_uint_eq(cn.fs_steps, 1);
      ck_assert_uint_ge(cn.fs_zones, 1);
      ck_assert_uint_eq(cn.fs_unresolved, 0);
      /* Linear momentum: rigid and translated zones keep their nodes'
         sum m u, u = (x1 - x0) / h = v0 here; the sum's rounding is of
         the order of eps times sum m |v|. */
      const double *v = cdyn_system_velocities(m.sys);
      double p0[3] = {0, 0, 0}, p1[3] = {0, 0, 0}, scale = 0;
      for (size_t i = 0; i < m.n; i++) {
        double mass;
        ck_assert_int_eq(cdyn_system_get_particle(m.sys, i, &mass, NULL, NULL), CDYN_OK);
        for (int c = 0; c < 3; c++) {
          p0[c] += mass * m.v0[3 * i + c];
          p1[c] += mass * v[3 * i + c];
          scale += mass * fabs(m.v0[3 * i + c]);
        }
      }
      if (cn.fs_frozen == 0)
        for (int c = 0; c < 3; c++)
          ck_assert_msg(fabs(p1[c] - p0[c]) <= 1e-12 * scale, "momentum %g -> %g (scale %g)", p0[c], p1[c], scale);
      ck_assert(cn.fs_impulse > 0);
      mesh_free(&m);
    }
}
END_TEST

/* A zone that holds a pinned node is frozen: every node of it ends where
   it started, at rest. */
START_TEST(test_pinned_zone_frozen)
{
  mesh m;
  /* Node 0 (the pin) moves several spacings, so its elements are in a zone. */
  mesh_make(&m, 8, 4, 77, 1);
  cdyn_contacts_counts cn;
  step_through(&m, 1, 100, 0, &cn);
  ref_replay_report rp = replay(&m);
  ck_assert_uint_eq(rp.crossings, 0);
  const double *q = cdyn_system_positions(m.sys), *v = cdyn_system_velocities(m.sys);
  int moved0 = q[0] != m.x1[0] || q[1] != m.x1[1] || q[2] != m.x1[2];
  if (moved0) { /* node 0 in a zone: frozen at x0 */
    ck_assert_uint_ge(cn.fs_frozen, 1);
    for (int c = 0; c < 3; c++) {
      ck_assert(q[c] == m.x0[c]);
      ck_assert(v[c] == 0);
    }
  }
  mesh_free(&m);
}
END_TEST

/* With one pass allowed, a step that still has touching pairs after it
   freezes the whole mesh: no crossing, every node at x0. */
START_TEST(test_pass_bound)
{
  mesh m;
  mesh_make(&m, 12, 6, 5, 0);
  cdyn_contacts_counts cn;
  step_through(&m, 1, 1, 0, &cn);
  ref_replay_report rp = replay(&m);
  ck_assert_uint_eq(rp.crossings, 0);
  ck_assert_uint_eq(cn.fs_frozen, 1);
  ck_assert_uint_eq(cn.fs_zones, 1);
  ck_assert_uint_eq(cn.fs_nodes, m.n);
  const double *q = cdyn_system_positions(m.sys);
  for (size_t k = 0; k < 3 * m.n; k++)
    ck_assert(q[k] == m.x0[k]);
  mesh_free(&m);
}
END_TEST

/* A quiet step: nothing touches, the fail-safe passes once and changes nothing. */
START_TEST(test_quiet_step)
{
  mesh m;
  mesh_make(&m, 8, 0.01, 9, 0);
  cdyn_contacts_counts cn;
  step_through(&m, 1, 100, 0, &cn);
  ck_assert_uint_eq(cn.fs_steps, 0);
  ck_assert_uint_eq(cn.fs_passes, 1);
  const double *q = cdyn_system_positions(m.sys);
  for (size_t k = 0; k < 3 * m.n; k++)
    ck_assert(q[k] == m.x1[k]);
  mesh_free(&m);
}
END_TEST

/* A kept step is counted quiet when the handler's own check of the
   motion taken (continuous detection) found no pair touching and touched
   otherwise, the fail-safe on or not; with it on, a quiet step is one it
   reuses the check for (fs_reused) and a touched one one it works on (its
   own passes). */
START_TEST(test_after_counts)
{
  for (int fs = 0; fs < 2; fs++) {
    mesh m;
    cdyn_contacts_counts cn;
    /* the folds of test_no_crossing: pairs touch in the motion taken */
    mesh_make(&m, 12, 6, 5, 0);
    step_through(&m, fs, 100, 1, &cn);
    ck_assert_uint_eq(cn.touched_after, 1);
    ck_assert_uint_eq(cn.quiet_after, 0);
    ck_assert_uint_eq(cn.fs_reused, 0);
    ck_assert(fs ? cn.fs_passes >= 1 && cn.fs_steps == 1 : cn.fs_passes == 0);
    if (fs)
      ck_assert_uint_eq(replay(&m).crossings, 0);
    mesh_free(&m);
    /* test_quiet_step's small motion: none touches */
    mesh_make(&m, 8, 0.01, 9, 0);
    step_through(&m, fs, 100, 1, &cn);
    ck_assert_uint_eq(cn.touched_after, 0);
    ck_assert_uint_eq(cn.quiet_after, 1);
    ck_assert_uint_eq(cn.fs_reused, (unsigned long)fs);
    ck_assert_uint_eq(cn.fs_passes, 0);
    ck_assert_uint_eq(cn.fs_steps, 0);
    mesh_free(&m);
  }
}
END_TEST

START_TEST(test_bad_options)
{
  mesh m;
  mesh_make(&m, 4, 0.1, 3, 0);
  cdyn_contacts_opts o;
  cdyn_contacts *cc = NULL;
  cdyn_contacts_opts_default(&o);
  ck_assert_int_eq(o.failsafe, 0);
  ck_assert_uint_eq(o.failsafe_iter, 100);
  ck_assert_int_eq(o.stack, 0);
  o.failsafe = 2;
  ck_assert_int_eq(cdyn_contacts_new(&cc, m.sys, m.tri, m.ntri, &o), CDYN_EINVAL);
  ck_assert_ptr_null(cc);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "failsafe"));
  o.failsafe = 1;
  o.failsafe_iter = 0;
  ck_assert_int_eq(cdyn_contacts_new(&cc, m.sys, m.tri, m.ntri, &o), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "failsafe_iter"));
  o.failsafe_iter = 10001;
  ck_assert_int_eq(cdyn_contacts_new(&cc, m.sys, m.tri, m.ntri, &o), CDYN_EINVAL);
  o.failsafe_iter = 10000;
  o.stack = -1;
  ck_assert_int_eq(cdyn_contacts_new(&cc, m.sys, m.tri, m.ntri, &o), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "stack"));
  o.stack = 1;
  ck_assert_int_eq(cdyn_contacts_new(&cc, m.sys, m.tri, m.ntri, &o), CDYN_OK);
  cdyn_contacts_free(cc);
  mesh_free(&m);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("failsafe");
  TCase *tc = tcase_create("failsafe");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_no_crossing);
  tcase_add_test(tc, test_pinned_zone_frozen);
  tcase_add_test(tc, test_pass_bound);
  tcase_add_test(tc, test_quiet_step);
  tcase_add_test(tc, test_after_counts);
  tcase_add_test(tc, test_bad_options);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
