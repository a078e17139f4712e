/*
 * test_contacts.c: cloth non-penetration constraints (lib/collision/contacts.c):
 * contacts made by proximity and by continuous detection, checked by the
 * exact replay (reference/ccd_replay.c, GMP); each release rule provoked
 * by a constructed motion; several contacts on one node solved by the
 * exact LCP and by the iterative algorithm (both must hold the node at
 * rest; the LCP's multipliers against static equilibrium);
 * no allocation while contacts come and go; capacity and bad input.
 *
 * The scenes: a fixed triangle or a fixed pair of triangles (pinned
 * particles), a free node or a free edge above them, gravity along -y.
 */
#include <float.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <cdyn/cdyn.h>
#include <cdyn/cloth.h>
#include <cdyn/collision.h>

#include "alloc_count.h"
#include "collision/contacts_impl.h"
#include "reference/ccd_replay.h"
#include "testutil.h"

static const double DELTA = 0.01;

/* A triangle in the plane y = 0 (particles 0, 1, 2, pinned) and free
   particles 3 .. 3 + nfree - 1 at x (velocities v, may be NULL). */
static cdyn_system *triangle_scene(size_t nfree, const double *x, const double *v, const double g[3])
{
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, 3 + nfree), CDYN_OK);
  const double T[3][3] = {{-1, 0, -1}, {1, 0, -1}, {0, 0, 1.5}};
  for (size_t i = 0; i < 3; i++) {
    ck_assert_int_eq(cdyn_system_set_position(sys, i, T[i]), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_pin(sys, i, T[i], NULL), CDYN_OK);
  }
  for (size_t i = 0; i < nfree; i++) {
    ck_assert_int_eq(cdyn_system_set_mass(sys, 3 + i, 0.1), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, 3 + i, x + 3 * i), CDYN_OK);
    if (v)
      ck_assert_int_eq(cdyn_system_set_velocity(sys, 3 + i, v + 3 * i), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  return sys;
}

/* The probe: node 3 at x with velocity v, the lowest corner of a free
   triangle 3 4 5 whose other corners are 1 m above it (so that the node
   belongs to the mesh and the probe's other elements stay far from the
   fixed triangle), all three moving at v. */
static cdyn_system *probe_scene(const double x[3], const double v[3], const double g[3])
{
  double X[9], V[9];
  const double off[3][3] = {{0, 0, 0}, {0.3, 1, 0}, {-0.3, 1, 0.2}};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      X[3 * i + k] = x[k] + off[i][k], V[3 * i + k] = v ? v[k] : 0;
  return triangle_scene(3, X, V, g);
}

/* The fixed triangle, then the probe's (or the free edge's) triangle. */
static const size_t TRI[6] = {0, 1, 2, 3, 4, 5};

static cdyn_contacts *handler(cdyn_system *sys, size_t ntri, int mode, int continuous)
{
  cdyn_contacts_opts o;
  ck_assert_int_eq(cdyn_contacts_opts_default(&o), CDYN_OK);
  o.thickness = DELTA;
  o.mode = mode;
  o.continuous = continuous;
  o.capacity = 16;
  o.margin = 0.02;
  cdyn_contacts *cc;
  ck_assert_msg(cdyn_contacts_new(&cc, sys, TRI, ntri, &o) == CDYN_OK, "%s", cdyn_errmsg());
  return cc;
}

static cdyn_stepper *stepper(cdyn_system *sys, const char *scheme, const char *activeset)
{
  cdyn_stepper *st;
  ck_assert_int_eq(cdyn_stepper_new(&st, sys, scheme), CDYN_OK);
  if (activeset)
    ck_assert_int_eq(cdyn_stepper_set(st, "activeset", activeset), CDYN_OK);
  return st;
}

/* One step with the handler: before, step, after and the repeats; the
   crossings of the step's motion from the exact replay. */
static size_t step_checked(cdyn_system *sys, cdyn_stepper *st, cdyn_contacts *cc, const size_t *tri, size_t ntri,
                           double h)
{
  size_t n = cdyn_system_size(sys);
  double *x0 = malloc(3 * n * sizeof *x0);
  ck_assert_ptr_nonnull(x0);
  memcpy(x0, cdyn_system_positions(sys), 3 * n * sizeof *x0);
  ck_assert_msg(cdyn_contacts_before(cc, h) == CDYN_OK, "%s", cdyn_errmsg());
  int redo;
  do {
    ck_assert_msg(cdyn_stepper_step(st, h) >= 0, "%s", cdyn_errmsg());
    ck_assert_msg(cdyn_contacts_after(cc, st, h, &redo) == CDYN_OK, "%s", cdyn_errmsg());
  } while (redo);
  ref_replay_report rp;
  ck_assert_int_eq(ref_replay(tri, ntri, x0, cdyn_system_positions(sys), 0.1, &rp), 0);
  free(x0);
  return rp.crossings;
}

/*
 * A node falls through the triangle in one step (from 2 cm above to 2 cm
 * below at 40 m/s, h = 1 ms, no gravity).  Proximity alone (distance 2 cm
 * > delta at the start) makes no contact and the replay sees the
 * crossing; continuous detection makes the contact before the step and
 * the scheme stops the node on the triangle's side: no crossing, the node
 * at distance >= delta (within the contact scheme's event tolerance).
 */
START_TEST(test_tunnelling)
{
  const double g[3] = {0, 0, 0}, x[3] = {0, 0.02, 0}, v[3] = {0, -40, 0};
  for (int continuous = 0; continuous <= 1; continuous++) {
    cdyn_system *sys = probe_scene(x, v, g);
    cdyn_contacts *cc = handler(sys, 2, CDYN_CONTACTS_INEQUALITY, continuous);
    cdyn_stepper *st = stepper(sys, "contact", "lcp");
    size_t crossings = step_checked(sys, st, cc, TRI, 2, 1e-3);
    const double *q = cdyn_system_positions(sys);
    if (!continuous) {
      ck_assert_uint_eq(crossings, 1);
      ck_assert(q[3 * 3 + 1] < 0);
    } else {
      ck_assert_uint_eq(crossings, 0);
      ck_assert_msg(q[3 * 3 + 1] >= DELTA - 1e-9, "node at y = %.17g", q[3 * 3 + 1]);
      ck_assert_uint_eq(cdyn_contacts_active(cc), 1);
    }
    cdyn_stepper_free(st);
    cdyn_contacts_free(cc);
    cdyn_system_free(sys);
  }
}
END_TEST

/*
 * The step repeated.  A node at rest 5 mm above delta pulled down by a
 * strong field (a = 4e4 m/s^2, so it travels 2 cm in the step): the
 * prediction x + h v = x sees nothing, the motion taken crosses the
 * triangle, so after() makes the contact, restores the state and asks for
 * the step again, which then stops on the triangle: one repeat, and no
 * crossing in the exact replay.
 */
START_TEST(test_repeat)
{
  const double g[3] = {0, -4e4, 0}, x[3] = {0, DELTA + 0.005, 0};
  cdyn_system *sys = probe_scene(x, NULL, g);
  cdyn_contacts *cc = handler(sys, 2, CDYN_CONTACTS_INEQUALITY, 1);
  cdyn_stepper *st = stepper(sys, "contact", "lcp");
  size_t crossings = step_checked(sys, st, cc, TRI, 2, 1e-3);
  cdyn_contacts_counts c;
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  ck_assert_uint_eq(c.redos, 1);
  ck_assert_uint_eq(crossings, 0);
  ck_assert(cdyn_system_positions(sys)[3 * 3 + 1] >= DELTA - 1e-9);
  /* Without continuous detection the same step crosses. */
  cdyn_stepper_free(st);
  cdyn_contacts_free(cc);
  cdyn_system_free(sys);
  sys = probe_scene(x, NULL, g);
  cc = handler(sys, 2, CDYN_CONTACTS_INEQUALITY, 0);
  st = stepper(sys, "contact", "lcp");
  ck_assert_uint_eq(step_checked(sys, st, cc, TRI, 2, 1e-3), 1);
  cdyn_stepper_free(st);
  cdyn_contacts_free(cc);
  cdyn_system_free(sys);
}
END_TEST

/*
 * Release by separation: a node resting on the triangle (falling onto it
 * from within delta) is held; then it is thrown upwards: after the next
 * step its normal velocity separates (1 m/s > sep_speed) and the contact
 * is released at that step's end, with delay 0.
 */
START_TEST(test_release_separating)
{
  const double g[3] = {0, -9.81, 0}, x[3] = {0.1, 0.99 * DELTA, 0.1}, v[3] = {0, -0.01, 0};
  cdyn_system *sys = probe_scene(x, v, g);
  cdyn_contacts *cc = handler(sys, 2, CDYN_CONTACTS_INEQUALITY, 1);
  cdyn_stepper *st = stepper(sys, "contact", "lcp");
  for (int k = 0; k < 20; k++)
    ck_assert_uint_eq(step_checked(sys, st, cc, TRI, 2, 1e-3), 0);
  ck_assert_uint_eq(cdyn_contacts_active(cc), 1);
  cdyn_contact_info in;
  ck_assert_int_eq(cdyn_contacts_get(cc, 0, &in), CDYN_OK);
  ck_assert_int_eq(in.kind, CDYN_CONTACT_VF);
  ck_assert_uint_eq(in.particles[0], 3);
  ck_assert_msg(fabs(in.u) < 1e-6, "resting contact moves at %g", in.u);
  const double up[3] = {0, 1, 0};
  ck_assert_int_eq(cdyn_system_set_velocity(sys, 3, up), CDYN_OK);
  step_checked(sys, st, cc, TRI, 2, 1e-3);
  cdyn_contacts_counts c;
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  ck_assert_uint_eq(cdyn_contacts_active(cc), 0);
  ck_assert_uint_eq(c.released_separating, 1);
  ck_assert_uint_eq(c.delay_max, 0);
  cdyn_stepper_free(st);
  cdyn_contacts_free(cc);
  cdyn_system_free(sys);
}
END_TEST

/*
 * Release by the multiplier (001's rule, mode switch with the implicit
 * scheme): the node held on the triangle as an equality while gravity
 * presses it; gravity then reverses, the equality's multiplier pulls the
 * node towards the triangle, and the contact is released at that step.
 */
START_TEST(test_release_pull)
{
  const double g[3] = {0, -9.81, 0}, x[3] = {0.1, 0.9999 * DELTA, 0.1}, v[3] = {0, 0, 0};
  cdyn_system *sys = probe_scene(x, v, g);
  cdyn_contacts *cc = handler(sys, 2, CDYN_CONTACTS_SWITCH, 1);
  cdyn_stepper *st = stepper(sys, "implicit", NULL);
  for (int k = 0; k < 20; k++)
    ck_assert_uint_eq(step_checked(sys, st, cc, TRI, 2, 1e-3), 0);
  ck_assert_uint_eq(cdyn_contacts_active(cc), 1);
  /* Held at the thickness: the equality Phi = 0. */
  ck_assert_msg(fabs(cdyn_system_positions(sys)[3 * 3 + 1] - DELTA) < 1e-6, "y = %g",
                cdyn_system_positions(sys)[3 * 3 + 1]);
  const double up[3] = {0, 9.81, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(sys, up), CDYN_OK);
  step_checked(sys, st, cc, TRI, 2, 1e-3);
  cdyn_contacts_counts c;
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  ck_assert_uint_eq(cdyn_contacts_active(cc), 0);
  ck_assert_uint_eq(c.released_pull, 1);
  cdyn_stepper_free(st);
  cdyn_contacts_free(cc);
  cdyn_system_free(sys);
}
END_TEST

/*
 * Release by region: the node slides along the triangle (no gravity
 * across it, a push along +x in the plane at 1 m/s, held within delta by
 * a small downward field) and leaves over the edge x = (1 - z) ... its
 * projection passes the edge by more than margin = 2 cm, and the contact
 * is released as having left the triangle's Voronoi region.
 */
START_TEST(test_release_region)
{
  const double g[3] = {0, -1, 0}, x[3] = {0.3, 0.9 * DELTA, 0}, v[3] = {2, -0.001, 0};
  cdyn_system *sys = probe_scene(x, v, g);
  cdyn_contacts *cc = handler(sys, 2, CDYN_CONTACTS_INEQUALITY, 1);
  cdyn_stepper *st = stepper(sys, "contact", "lcp");
  int k, had = 0;
  unsigned long before_region = 0;
  for (k = 0; k < 2000; k++) {
    cdyn_contacts_counts c0;
    ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c0), CDYN_OK);
    ck_assert_uint_eq(step_checked(sys, st, cc, TRI, 2, 1e-3), 0);
    /* Is the node's contact with the fixed triangle still there? */
    int has = 0;
    for (size_t j = 0; j < cdyn_contacts_active(cc); j++) {
      cdyn_contact_info in;
      ck_assert_int_eq(cdyn_contacts_get(cc, j, &in), CDYN_OK);
      has |= in.kind == CDYN_CONTACT_VF && in.first == 3 && in.second == 0;
    }
    if (k == 0)
      ck_assert_msg(has, "no contact made");
    if (had && !has) {
      before_region = c0.released_region;
      break;
    }
    had = has;
  }
  ck_assert_msg(k < 2000, "the contact was never released");
  cdyn_contacts_counts c;
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  ck_assert_uint_eq(c.released_region, before_region + 1);
  /* The edge (1, 0, -1)-(0, 0, 1.5) at z = 0 is at x = 0.6; released
     beyond it by the margin, within one step's travel (2 mm). */
  double px = cdyn_system_positions(sys)[3 * 3];
  double over = (px - 0.6) * 2.5 / sqrt(1 + 2.5 * 2.5);
  ck_assert_msg(over > 0.02 && over < 0.02 + 0.0021, "released %g beyond the edge", over);
  cdyn_stepper_free(st);
  cdyn_contacts_free(cc);
  cdyn_system_free(sys);
}
END_TEST

/*
 * Edge-edge: a free edge (particles 3, 4, both of the second triangle
 * 3 4 5, whose third particle 5 is far above) falls across the fixed
 * triangle's edge 0-1 ... too fast for proximity; continuous detection
 * makes the edge-edge contact and the replay sees no crossing.
 */
START_TEST(test_edge_edge)
{
  const double g[3] = {0, 0, 0};
  const double x[9] = {0, 0.03, -1.3, 0, 0.03, -0.7, 0, 1, -1}, v[9] = {0, -50, 0, 0, -50, 0, 0, -50, 0};
  for (int continuous = 0; continuous <= 1; continuous++) {
    cdyn_system *sys = triangle_scene(3, x, v, g);
    cdyn_contacts *cc = handler(sys, 2, CDYN_CONTACTS_INEQUALITY, continuous);
    cdyn_stepper *st = stepper(sys, "contact", "lcp");
    size_t crossings = step_checked(sys, st, cc, TRI, 2, 1e-3);
    cdyn_contacts_counts c;
    ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
    if (continuous) {
      ck_assert_uint_eq(crossings, 0);
      ck_assert_uint_ge(c.ee, 1);
    } else {
      ck_assert_uint_ge(crossings, 1);
    }
    cdyn_stepper_free(st);
    cdyn_contacts_free(cc);
    cdyn_system_free(sys);
  }
}
END_TEST

/*
 * Several contacts on one node: a node resting in the crease of two fixed
 * triangles tilted at +-30 degrees (a V), pressed by gravity.  With the
 * exact LCP and with the iterative algorithm it stays at rest, and the
 * contact forces -J^T lambda balance its weight: two contacts, each
 * pushing with m g / (2 cos 30) along its normal (the rows are
 * independent, so the multipliers are unique).  Each algorithm gets a
 * system of its own: a contacts handler that is freed leaves its contact
 * constraints in the system, and a second handler on the same system adds
 * its own beside them, so the iterative algorithm once saw each contact
 * twice and split it between the two copies (the minimum-norm solution,
 * m g / (4 cos 30) = 0.283 N each, the weight still balanced; see
 * lib/activeset/iterative.c and test_crease in tests/test_lcp.c).
 */
START_TEST(test_two_contacts_one_node)
{
  static const char *const algs[] = {"lcp", "iterative"};
  const double s = 0.5, c = sqrt(0.75), m = 0.1, gy = -9.81;
  for (int a = 0; a < 2; a++) {
    cdyn_system *sys;
    ck_assert_int_eq(cdyn_system_new(&sys, 7), CDYN_OK);
    /* Triangles 0 1 2 and 0 2 3 share the crease 0-2 along z; 1 up the
       left, 3 up the right. */
    const double P[4][3] = {{0, 0, -1}, {-c, s, 0}, {0, 0, 1}, {c, s, 0}};
    for (size_t i = 0; i < 4; i++) {
      ck_assert_int_eq(cdyn_system_set_position(sys, i, P[i]), CDYN_OK);
      ck_assert_int_eq(cdyn_system_add_pin(sys, i, P[i], NULL), CDYN_OK);
    }
    /* The node just above the crease, at distance delta from each plane,
       the lowest corner of a probe triangle 4 5 6 reaching 1 m up. */
    double node[3] = {0, 0.9 * DELTA / c, 0};
    const double up1[3] = {0.05, 1, 0.3}, up2[3] = {-0.05, 1, -0.3};
    ck_assert_int_eq(cdyn_system_set_position(sys, 4, node), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, 5, up1), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_position(sys, 6, up2), CDYN_OK);
    /* The probe's upper corners are held, so that only the node presses. */
    ck_assert_int_eq(cdyn_system_add_pin(sys, 5, up1, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_pin(sys, 6, up2, NULL), CDYN_OK);
    ck_assert_int_eq(cdyn_system_set_mass(sys, 4, m), CDYN_OK);
    const double g[3] = {0, gy, 0};
    ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
    const size_t tris[9] = {0, 1, 2, 0, 2, 3, 4, 5, 6};
    cdyn_contacts_opts o;
    cdyn_contacts_opts_default(&o);
    o.thickness = DELTA;
    o.capacity = 8;
    cdyn_contacts *cc;
    ck_assert_int_eq(cdyn_contacts_new(&cc, sys, tris, 3, &o), CDYN_OK);
    cdyn_stepper *st = stepper(sys, "contact", algs[a]);
    for (int k = 0; k < 10; k++)
      ck_assert_uint_eq(step_checked(sys, st, cc, tris, 3, 1e-3), 0);
    ck_assert_uint_eq(cdyn_contacts_active(cc), 2);
    /* Two inequality rows in the system: the two contacts. */
    ck_assert_uint_eq(cdyn_system_inequality_rows(sys), 2);
    const double *q = cdyn_system_positions(sys), *v = cdyn_system_velocities(sys);
    ck_assert_msg(fabs(q[3 * 4 + 1] - node[1]) < 1e-9 && fabs(v[3 * 4 + 1]) < 1e-9, "%s: node moved to y = %.12g",
                  algs[a], q[3 * 4 + 1]);
    double force[3] = {0, 0, 0};
    for (size_t k = 0; k < 2; k++) {
      cdyn_contact_info in;
      ck_assert_int_eq(cdyn_contacts_get(cc, k, &in), CDYN_OK);
      double lambda;
      size_t rows;
      ck_assert_int_eq(cdyn_stepper_constraint_multipliers(st, in.constraint, &lambda, &rows), CDYN_OK);
      /* Each pushes along its plane's normal with m g / (2 cos 30). */
      ck_assert_msg(fabs(-lambda - m * 9.81 / (2 * c)) < 1e-9 * m * 9.81, "%s: lambda = %.12g", algs[a], lambda);
      double nx = in.second == 0 ? -s : s; /* triangle 0 is the left one */
      force[0] += -lambda * nx;
      force[1] += -lambda * c;
    }
    ck_assert_msg(fabs(force[0]) < 1e-9 && fabs(force[1] + m * gy) < 1e-9, "%s: net contact force (%g, %g)", algs[a],
                  force[0], force[1]);
    /* Both keep the node at rest (every component). */
    for (int d = 0; d < 3; d++)
      ck_assert_msg(fabs(v[3 * 4 + d]) < 1e-12, "%s: node moves at %g along %d", algs[a], v[3 * 4 + d], d);
    cdyn_stepper_free(st);
    cdyn_contacts_free(cc);
    cdyn_system_free(sys);
  }
}
END_TEST

/* Mode switch, thickness DELTA, room for 8 contacts, stack and merge as given. */
static cdyn_contacts_opts merge_opts(int stack, double merge)
{
  cdyn_contacts_opts o;
  cdyn_contacts_opts_default(&o);
  o.thickness = DELTA;
  o.capacity = 8;
  o.mode = CDYN_CONTACTS_SWITCH;
  o.stack = stack;
  o.merge = merge;
  return o;
}

/*
 * The merge rule (mode switch, stack on, option merge): a node resting in
 * the crease of two fixed triangles tilted at +-t (their normals 2t apart)
 * within delta of both.  Reading (a) (stack off) makes one contact and
 * counts the other pair redundant; stacked, every pair is a contact
 * (merge 0: two); with merge m the second pair is merged into the first
 * when the two push the node within m degrees (2t <= m), else it is a
 * contact of its own.  t = 30 (60 degrees apart) and t = 10 (20 apart),
 * merge 0, 45 and 180.
 */
START_TEST(test_merge)
{
  const double tilt[2] = {30, 10}, merge[3] = {0, 45, 180};
  for (int a = 0; a < 2; a++)
    for (int k = -1; k < 3; k++) {
      double t = tilt[a] * (3.14159265358979323846 / 180), s = sin(t), c = cos(t);
      cdyn_system *sys;
      ck_assert_int_eq(cdyn_system_new(&sys, 7), CDYN_OK);
      const double P[4][3] = {{0, 0, -1}, {-c, s, 0}, {0, 0, 1}, {c, s, 0}};
      for (size_t i = 0; i < 4; i++) {
        ck_assert_int_eq(cdyn_system_set_position(sys, i, P[i]), CDYN_OK);
        ck_assert_int_eq(cdyn_system_add_pin(sys, i, P[i], NULL), CDYN_OK);
      }
      const double node[3] = {0, 0.9 * DELTA / c, 0}, up1[3] = {0.05, 1, 0.3}, up2[3] = {-0.05, 1, -0.3};
      ck_assert_int_eq(cdyn_system_set_position(sys, 4, node), CDYN_OK);
      ck_assert_int_eq(cdyn_system_set_position(sys, 5, up1), CDYN_OK);
      ck_assert_int_eq(cdyn_system_set_position(sys, 6, up2), CDYN_OK);
      const size_t tris[9] = {0, 1, 2, 0, 2, 3, 4, 5, 6};
      cdyn_contacts_opts o = merge_opts(k >= 0, k >= 0 ? merge[k] : 0);
      cdyn_contacts *cc;
      ck_assert_msg(cdyn_contacts_new(&cc, sys, tris, 3, &o) == CDYN_OK, "%s", cdyn_errmsg());
      ck_assert_int_eq(cdyn_contacts_before(cc, 1e-3), CDYN_OK);
      cdyn_contacts_counts n;
      ck_assert_int_eq(cdyn_contacts_counts_get(cc, &n), CDYN_OK);
      size_t expect = k < 0 ? 1 : k == 0 ? 2 : 2 * tilt[a] <= merge[k] ? 1 : 2;
      ck_assert_msg(n.active == expect && n.vf == expect, "tilt %g, %s merge %g: %zu contacts, expected %zu",
                    tilt[a], k < 0 ? "stack off" : "stacked", o.merge, n.active, expect);
      ck_assert_uint_eq(n.merged, k >= 0 && expect == 1 ? 1 : 0);
      ck_assert_uint_eq(n.redundant, k < 0 ? 1 : 0);
      cdyn_contacts_free(cc);
      cdyn_system_free(sys);
    }
}
END_TEST

/*
 * The merge rule on edges: a free edge 0.9 delta above the plane y = 0
 * crosses two fixed edges (x = -0.3 and x = 0.3, along z, each the edge
 * of a fixed triangle); both edge-edge pairs push it up (+y), 0 degrees
 * apart.  Stacked with merge 0 they are two contacts; with merge 45 the
 * second is merged into the first (a side taken wrongly would make the
 * two push opposite ways, and none would merge); stack off, one and a
 * redundant pair.  The free edge's ends lie over the triangles and get a
 * node-triangle contact each, whatever the rule (their nodes differ).
 */
START_TEST(test_merge_edges)
{
  const double h = 0.9 * DELTA;
  /* Fixed: 0 1 2 (its edge 0-1 at x = -0.3), 5 6 7 (5-6 at x = 0.3), the
     free triangle's apex 8 (high); free: the ends 3 and 4 of the edge 3-4
     across both.  Its edge is the second of the pair with 0-1 and the
     first of the pair with 5-6 (pairs are ordered by edge), so the two
     contacts take it from either side of the rule. */
  const double P[9][3] = {{-0.3, 0, -1}, {-0.3, 0, 1}, {-1, 0, 0}, {-0.5, h, 0}, {0.5, h, 0},
                          {0.3, 0, -1},  {0.3, 0, 1},  {1, 0, 0},  {0, 1, 0.3}};
  for (int k = -1; k < 2; k++) {
    cdyn_system *sys;
    ck_assert_int_eq(cdyn_system_new(&sys, 9), CDYN_OK);
    for (size_t i = 0; i < 9; i++) {
      ck_assert_int_eq(cdyn_system_set_position(sys, i, P[i]), CDYN_OK);
      if (i != 3 && i != 4)
        ck_assert_int_eq(cdyn_system_add_pin(sys, i, P[i], NULL), CDYN_OK);
    }
    const size_t tris[9] = {0, 1, 2, 5, 6, 7, 3, 4, 8};
    cdyn_contacts_opts o = merge_opts(k >= 0, k == 1 ? 45 : 0);
    cdyn_contacts *cc;
    ck_assert_msg(cdyn_contacts_new(&cc, sys, tris, 3, &o) == CDYN_OK, "%s", cdyn_errmsg());
    ck_assert_int_eq(cdyn_contacts_before(cc, 1e-3), CDYN_OK);
    cdyn_contacts_counts n;
    ck_assert_int_eq(cdyn_contacts_counts_get(cc, &n), CDYN_OK);
    size_t expect = k == 0 ? 2 : 1;
    ck_assert_msg(n.ee == expect && n.vf == 2, "%s merge %g: %zu edge-edge and %zu node-triangle contacts",
                  k < 0 ? "stack off" : "stacked", o.merge, n.ee, n.vf);
    ck_assert_uint_eq(n.merged, k == 1 ? 1 : 0);
    ck_assert_uint_eq(n.redundant, k < 0 ? 1 : 0);
    cdyn_contacts_free(cc);
    cdyn_system_free(sys);
  }
}
END_TEST

/*
 * A node near a vertex.  The probe's node starts 8 mm (< delta) from the
 * fixed triangle's vertex 1, outside the triangle (its closest point of
 * the triangle is the vertex), moving towards it at 0.5 m/s: the handler
 * makes a node-node contact (1, 3), a distance inequality of length delta,
 * and the scheme contact stops the approach (the distance never falls
 * below its start); moving away, the contact is released as separating.
 */
START_TEST(test_node_node)
{
  const double g[3] = {0, 0, 0};
  double dir[3] = {1, 1, -1}, x[3], v[3];
  const double d0 = 0.008, V1[3] = {1, 0, -1};
  for (int k = 0; k < 3; k++) {
    dir[k] /= sqrt(3.0);
    x[k] = V1[k] + d0 * dir[k];
    v[k] = -0.5 * dir[k];
  }
  cdyn_system *sys = probe_scene(x, v, g);
  cdyn_contacts *cc = handler(sys, 2, CDYN_CONTACTS_INEQUALITY, 1);
  cdyn_stepper *st = stepper(sys, "contact", "lcp");
  for (int step = 0; step < 20; step++) {
    ck_assert_uint_eq(step_checked(sys, st, cc, TRI, 2, 1e-3), 0);
    const double *q = cdyn_system_positions(sys);
    double dist = sqrt(pow(q[9] - V1[0], 2) + pow(q[10] - V1[1], 2) + pow(q[11] - V1[2], 2));
    ck_assert_msg(dist >= d0 - 1e-9, "step %d: the node at %.17g from the vertex (started at %g)", step, dist, d0);
  }
  cdyn_contacts_counts c;
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  ck_assert_uint_eq(c.active, 1);
  ck_assert_uint_eq(c.nn, 1);
  ck_assert_uint_eq(c.vf + c.ee, 0);
  cdyn_contact_info in;
  ck_assert_int_eq(cdyn_contacts_get(cc, 0, &in), CDYN_OK);
  ck_assert_int_eq(in.kind, CDYN_CONTACT_NN);
  ck_assert_uint_eq(in.first, 1);
  ck_assert_uint_eq(in.second, 3);
  ck_assert_uint_eq(in.particles[0], 1);
  ck_assert_uint_eq(in.particles[1], 3);
  ck_assert(in.particles[2] == SIZE_MAX && in.particles[3] == SIZE_MAX);
  ck_assert_msg(fabs(in.phi - (d0 - DELTA)) <= 1e-9, "phi %.17g", in.phi);
  /* Away from the vertex at 0.5 m/s: released as separating once beyond
     the thickness (4 ms from 8 mm; inside it, a contact moving out of its
     violation is not separating). */
  double va[9];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      va[3 * i + k] = 0.5 * dir[k];
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(cdyn_system_set_velocity(sys, 3 + (size_t)i, va + 3 * i), CDYN_OK);
  for (int step = 0; step < 3; step++) {
    ck_assert_uint_eq(step_checked(sys, st, cc, TRI, 2, 1e-3), 0);
    ck_assert_uint_eq(cdyn_contacts_active(cc), 1);
  }
  for (int step = 0; step < 2; step++)
    ck_assert_uint_eq(step_checked(sys, st, cc, TRI, 2, 1e-3), 0);
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  ck_assert_uint_eq(c.active, 0);
  ck_assert_uint_eq(c.nn, 0);
  ck_assert_uint_eq(c.released_separating, 1);
  cdyn_stepper_free(st);
  cdyn_contacts_free(cc);
  cdyn_system_free(sys);
}
END_TEST

/* cdyn_contacts_clear takes every contact's constraint out of the system
   (cdyn_contacts_free leaves them); a NULL handler is refused. */
START_TEST(test_clear)
{
  const double g[3] = {0, 0, 0}, x[3] = {0, 0.004, 0}, v[3] = {0, -0.1, 0};
  cdyn_system *sys = probe_scene(x, v, g);
  size_t live0 = cdyn_system_live_constraints(sys);
  cdyn_contacts *cc = handler(sys, 2, CDYN_CONTACTS_INEQUALITY, 1);
  ck_assert_int_eq(cdyn_contacts_before(cc, 1e-3), CDYN_OK);
  ck_assert_uint_eq(cdyn_contacts_active(cc), 1);
  ck_assert_uint_eq(cdyn_system_live_constraints(sys), live0 + 1);
  ck_assert_int_eq(cdyn_contacts_clear(cc), CDYN_OK);
  ck_assert_uint_eq(cdyn_contacts_active(cc), 0);
  ck_assert_uint_eq(cdyn_system_live_constraints(sys), live0);
  cdyn_contacts_counts c;
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  ck_assert_uint_eq(c.active + c.vf + c.ee + c.nn, 0);
  TU_EXPECT_EINVAL(cdyn_contacts_clear(NULL));
  cdyn_contacts_free(cc);
  cdyn_system_free(sys);
}
END_TEST

/*
 * A 6 x 6 patch folds onto a fixed 6 x 6 patch below it and slides off:
 * contacts are made and released, and after the first steps neither the
 * handler nor the step allocates (capacity reserved).  Twice, bitwise the
 * same.  The scheme contact runs its dense path (subsolve = dense): the
 * two patches' 108 pin rows and the contacts pass the 128 rows at which
 * its default takes the sparse path, whose analysis of each new pattern
 * of the candidates' A allocates (counted in cdyn_stats.analyses, as
 * doc/library.md says).  Then the same with capacity 2: the call that needs a third
 * contact returns CDYN_ENOMEM, naming the capacity.
 */
static void two_patches(size_t capacity, int steps, double *qout, long *allocs, int *status, unsigned long *made,
                        unsigned long *released)
{
  cdyn_cloth *top, *bottom;
  cdyn_system *sys;
  cdyn_cloth_spec cs;
  memset(&cs, 0, sizeof cs);
  cs.nx = cs.ny = 6;
  cs.origin[0] = -0.25, cs.origin[1] = 0.03, cs.origin[2] = -0.25;
  cs.u[0] = 0.5, cs.v[2] = 0.5;
  cs.mass = 0.1;
  cs.k_struct = 50, cs.k_shear = 10, cs.k_bend = 1;
  cs.extra = 36;
  ck_assert_int_eq(cdyn_cloth_new(&top, &sys, &cs), CDYN_OK);
  (void)bottom;
  /* The lower patch: the extra particles, pinned on y = 0, shifted by a
     quarter along x, triangles made by hand (same pattern). */
  size_t tris[2 * 50 * 3], nt = 0;
  const size_t *tt;
  size_t ntt;
  ck_assert_int_eq(cdyn_cloth_triangles(top, &tt, &ntt), CDYN_OK);
  memcpy(tris, tt, 3 * ntt * sizeof *tris);
  nt = ntt;
  for (size_t k = 0; k < ntt; k++, nt++)
    for (int a = 0; a < 3; a++)
      tris[3 * nt + a] = 36 + tt[3 * k + a];
  for (size_t i = 0; i < 36; i++) {
    double p[3] = {-0.1 + 0.1 * (double)(i % 6), 0, -0.25 + 0.1 * (double)(i / 6)};
    ck_assert_int_eq(cdyn_system_set_position(sys, 36 + i, p), CDYN_OK);
    ck_assert_int_eq(cdyn_system_add_pin(sys, 36 + i, p, NULL), CDYN_OK);
  }
  const double g[3] = {0, -9.81, 0}, push[3] = {-1.5, 0, 0};
  ck_assert_int_eq(cdyn_system_set_gravity(sys, g), CDYN_OK);
  for (size_t i = 0; i < 36; i++)
    ck_assert_int_eq(cdyn_system_set_velocity(sys, i, push), CDYN_OK);
  cdyn_contacts_opts o;
  cdyn_contacts_opts_default(&o);
  o.thickness = DELTA;
  o.capacity = capacity;
  cdyn_contacts *cc;
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, tris, nt, &o), CDYN_OK);
  cdyn_stepper *st = stepper(sys, "contact", "lcp");
  ck_assert_int_eq(cdyn_stepper_set(st, "subsolve", "dense"), CDYN_OK);
  ck_assert_int_eq(cdyn_stepper_reserve(st, 1 << 16), CDYN_OK);
  *allocs = 0;
  *status = CDYN_OK;
  for (int k = 0; k < steps && *status == CDYN_OK; k++) {
    if (k >= 5)
      ta_arm(0);
    int rb = cdyn_contacts_before(cc, 1e-3), rs = 0, ra = 0, redo = 0;
    if (!rb)
      do {
        rs = cdyn_stepper_step(st, 1e-3);
        ra = rs < 0 ? rs : cdyn_contacts_after(cc, st, 1e-3, &redo);
      } while (!ra && redo);
    if (k >= 5)
      *allocs += ta_disarm();
    *status = rb ? rb : rs < 0 ? rs : ra;
  }
  cdyn_contacts_counts c;
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  *made = c.vf + c.ee + c.total_released;
  *released = c.total_released;
  memcpy(qout, cdyn_system_positions(sys), 3 * 72 * sizeof *qout);
  cdyn_stepper_free(st);
  cdyn_contacts_free(cc);
  cdyn_cloth_free(top);
  cdyn_system_free(sys);
}

START_TEST(test_no_allocation)
{
  double q1[3 * 72], q2[3 * 72];
  long a1, a2;
  int s1, s2;
  unsigned long m1, r1, m2, r2;
  two_patches(1024, 400, q1, &a1, &s1, &m1, &r1);
  ck_assert_msg(s1 == CDYN_OK, "%s", cdyn_errmsg());
  ck_assert_msg(m1 > 10 && r1 > 10, "%lu contacts made, %lu released", m1, r1);
  ck_assert_msg(a1 == 0 || !ta_works, "%ld allocations in 395 steps with contacts", a1);
  two_patches(1024, 400, q2, &a2, &s2, &m2, &r2);
  ck_assert(memcmp(q1, q2, sizeof q1) == 0);
  ck_assert_uint_eq(m1, m2);
  two_patches(2, 400, q2, &a2, &s2, &m2, &r2);
  ck_assert_int_eq(s2, CDYN_ENOMEM);
  ck_assert_msg(strstr(cdyn_errmsg(), "more than 2 contacts"), "%s", cdyn_errmsg());
}
END_TEST

START_TEST(test_bad_input)
{
  const double g[3] = {0, -9.81, 0}, x[3] = {0, 0.005, 0};
  cdyn_system *sys = probe_scene(x, NULL, g);
  cdyn_contacts_opts o;
  cdyn_contacts_opts_default(&o);
  cdyn_contacts *cc = (cdyn_contacts *)&o;
  /* delta <= 0, NaN */
  const double bad_delta[3] = {0, -1e-3, NAN};
  for (int k = 0; k < 3; k++) {
    o.thickness = bad_delta[k];
    ck_assert_int_eq(cdyn_contacts_new(&cc, sys, TRI, 1, &o), CDYN_EINVAL);
    ck_assert_ptr_null(cc);
    ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "thickness"));
  }
  cdyn_contacts_opts_default(&o);
  /* A degenerate triangle (a particle repeated), out of range, none. */
  const size_t rep[3] = {0, 1, 1}, out[3] = {0, 1, 9};
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, rep, 1, &o), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, out, 1, &o), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, TRI, 0, &o), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_contacts_new(NULL, sys, TRI, 1, &o), CDYN_EINVAL);
  o.capacity = 0;
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, TRI, 1, &o), CDYN_EINVAL);
  cdyn_contacts_opts_default(&o);
  o.mode = 7;
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, TRI, 1, &o), CDYN_EINVAL);
  cdyn_contacts_opts_default(&o);
  o.ccd_tol = 0;
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, TRI, 1, &o), CDYN_EINVAL);
  cdyn_contacts_opts_default(&o);
  const double bad_skin[2] = {-1e-3, NAN};
  for (int k = 0; k < 2; k++) {
    o.skin = bad_skin[k];
    ck_assert_int_eq(cdyn_contacts_new(&cc, sys, TRI, 1, &o), CDYN_EINVAL);
    ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "skin"));
  }
  cdyn_contacts_opts_default(&o);
  /* merge: out of [0, 180] or NaN; above 0 without mode switch and stack. */
  const double bad_merge[3] = {-1, 181, NAN};
  o.mode = CDYN_CONTACTS_SWITCH;
  o.stack = 1;
  for (int k = 0; k < 3; k++) {
    o.merge = bad_merge[k];
    ck_assert_int_eq(cdyn_contacts_new(&cc, sys, TRI, 1, &o), CDYN_EINVAL);
    ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "merge"));
  }
  o.merge = 45;
  o.stack = 0;
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, TRI, 1, &o), CDYN_EINVAL);
  ck_assert_ptr_nonnull(strstr(cdyn_errmsg(), "merge"));
  o.stack = 1;
  o.mode = CDYN_CONTACTS_INEQUALITY;
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, TRI, 1, &o), CDYN_EINVAL);
  cdyn_contacts_opts_default(&o);
  /* cdyn_stepper_reserve: NULL, beyond the int limit. */
  ck_assert_int_eq(cdyn_stepper_reserve(NULL, 10), CDYN_EINVAL);
  cdyn_stepper *st0 = stepper(sys, "contact", NULL);
  ck_assert_int_eq(cdyn_stepper_reserve(st0, (size_t)1 << 40), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_stepper_reserve(st0, 1000), CDYN_OK);
  cdyn_stepper_free(st0);
  /* h <= 0, after without before, NULLs. */
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, TRI, 1, &o), CDYN_OK);
  int redo;
  ck_assert_int_eq(cdyn_contacts_before(cc, 0), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_contacts_before(cc, NAN), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_contacts_after(cc, NULL, 1e-3, &redo), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_contacts_after(cc, NULL, 1e-3, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_contacts_before(NULL, 1e-3), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, NULL), CDYN_EINVAL);
  cdyn_contact_info in;
  ck_assert_int_eq(cdyn_contacts_get(cc, 0, &in), CDYN_EINVAL);
  cdyn_contacts_free(cc);
  /* NaN positions: refused where they could enter (the system, the
     detection routines). */
  const double nan3[3] = {NAN, 0, 0}, z3[3] = {0, 0, 0}, e3[3] = {1, 0, 0}, f3[3] = {0, 0, 1};
  ck_assert_int_eq(cdyn_system_set_position(sys, 3, nan3), CDYN_EINVAL);
  int hit, near;
  cdyn_proximity pr;
  ck_assert_int_eq(cdyn_ccd_vf(nan3, z3, z3, z3, e3, e3, f3, f3, 1e-6, &hit, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_ccd_ee(z3, nan3, z3, z3, e3, e3, f3, f3, 1e-6, &hit, NULL), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_proximity_vf(nan3, z3, e3, f3, DELTA, &near, &pr), CDYN_EINVAL);
  ck_assert_int_eq(cdyn_proximity_vf(z3, z3, e3, f3, 0, &near, &pr), CDYN_EINVAL);
  cdyn_contacts_free(NULL);
  cdyn_system_free(sys);
  /* A triangle of zero area in the mesh: its pairs are skipped (counted),
     the others still made. */
  const double y[3] = {0, 0.004, -0.5};
  sys = probe_scene(y, NULL, g);
  const double line[3] = {0, 0, -1};
  ck_assert_int_eq(cdyn_system_set_position(sys, 2, line), CDYN_OK); /* 0 1 2 collinear */
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, TRI, 2, &o), CDYN_OK);
  ck_assert_int_eq(cdyn_contacts_before(cc, 1e-3), CDYN_OK);
  cdyn_contacts_counts c;
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  for (size_t j = 0; j < cdyn_contacts_active(cc); j++) {
    cdyn_contact_info in;
    ck_assert_int_eq(cdyn_contacts_get(cc, j, &in), CDYN_OK);
    ck_assert(!(in.kind == CDYN_CONTACT_VF && in.second == 0));
  }
  cdyn_contacts_free(cc);
  cdyn_system_free(sys);
}
END_TEST


/* ---- The broad phase's kept candidate list (lib/collision/candidates.c) ---- */

/* The box over x0 -> x1 of the np particles id: lo[0..2], hi[0..2]. */
static void motion_box(const size_t *id, size_t np, const double *x0, const double *x1, double box[6])
{
  for (int k = 0; k < 3; k++) {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t j = 0; j < np; j++)
      for (int e = 0; e < 2; e++) {
        double y = (e ? x1 : x0)[3 * id[j] + k];
        lo = fmin(lo, y), hi = fmax(hi, y);
      }
    box[k] = lo, box[3 + k] = hi;
  }
}

/* The pairs of a kind whose boxes over x0 -> x1, grown by g, overlap, by
   testing every pair (each element's box formed once): sharing a particle
   or not (all), and not (kept, sorted into out as (a, b) rows); returns
   the count kept. */
static size_t all_pairs(const cdyn_contacts *cc, int kind, const double *x0, const double *x1, double g, size_t *out,
                        size_t *all)
{
  size_t na = kind == VF ? cc->nnode : cc->nedge, nb = kind == VF ? cc->ntri : cc->nedge;
  size_t pa = kind == VF ? 1 : 2, pb = kind == VF ? 3 : 2, m = 0;
  const size_t *ia = kind == VF ? cc->node : cc->edge, *ib = kind == VF ? cc->tri : cc->edge;
  double *ba = malloc(6 * (na + nb) * sizeof *ba), *bb = ba + 6 * na;
  ck_assert(ba != NULL);
  for (size_t a = 0; a < na; a++)
    motion_box(ia + pa * a, pa, x0, x1, ba + 6 * a);
  for (size_t b = 0; b < nb; b++)
    motion_box(ib + pb * b, pb, x0, x1, bb + 6 * b);
  *all = 0;
  for (size_t a = 0; a < na; a++)
    for (size_t b = kind == VF ? 0 : a + 1; b < nb; b++) {
      int over = 1, share = 0;
      const double *A = ba + 6 * a, *B = bb + 6 * b;
      for (int k = 0; k < 3 && over; k++)
        over = !(A[3 + k] + g < B[k] - g || B[3 + k] + g < A[k] - g);
      if (!over)
        continue;
      (*all)++;
      for (size_t i = 0; i < pa; i++)
        for (size_t j = 0; j < pb; j++)
          share |= ia[pa * a + i] == ib[pb * b + j];
      if (!share)
        out[2 * m] = a, out[2 * m + 1] = b, m++;
    }
  free(ba);
  return m;
}

/* The triangles of an N x N grid of nodes numbered row by row, two a
   cell (split along the diagonal from its first node); their number. */
static size_t grid_tris(size_t N, size_t *tri)
{
  size_t nt = 0;
  for (size_t r = 0; r + 1 < N; r++)
    for (size_t c = 0; c + 1 < N; c++) {
      size_t a = N * r + c, b = a + 1, d = a + N, e = d + 1;
      size_t t[6] = {a, b, e, a, e, d};
      memcpy(tri + 3 * nt, t, sizeof t);
      nt += 2;
    }
  return nt;
}

/* A 10 x 10 grid of spacing 0.02 m, crumpled by a deterministic jitter,
   moved through 48 motions: to the shape translated (up to 5 m) with a
   jitter of amplitude cycling through 1e-4 .. 3e-2 m (some within the
   skin, some beyond, some folding the mesh onto itself).  Every query's
   pairs must be exactly those of testing every pair, in the same order
   (ascending (a, b), as every-pair testing meets them), whether they came
   from a list or from the hierarchies.  Returns the
   handler's counts; *most the largest count of overlapping pairs,
   sharing a particle or not, of any query (the room a direct query
   needs). */
static cdyn_contacts_counts candidates_run(double skin, size_t pairs, size_t *most)
{
  enum { N = 10, MOTIONS = 48 };
  const size_t n = N * N;
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, n), CDYN_OK);
  size_t tri[2 * (N - 1) * (N - 1) * 3], nt = grid_tris(N, tri);
  uint64_t seed = 77;
  double *x0 = malloc(3 * n * sizeof(double)), *x1 = malloc(3 * n * sizeof(double));
  double *shape = malloc(3 * n * sizeof(double)), *xt = malloc(3 * n * sizeof(double));
  size_t *got = malloc(2 * pairs * sizeof(size_t)), *want = malloc(2 * 4 * n * n * sizeof(size_t));
  ck_assert(x0 && x1 && shape && xt && got && want);
  for (size_t i = 0; i < n; i++) {
    double p[3] = {0.02 * (double)(i % N), 0.004 * tu_rand(&seed), 0.02 * (double)(i / N)};
    memcpy(x0 + 3 * i, p, sizeof p);
    memcpy(shape + 3 * i, p, sizeof p);
    ck_assert_int_eq(cdyn_system_set_position(sys, i, p), CDYN_OK);
  }
  cdyn_contacts_opts o;
  cdyn_contacts_opts_default(&o);
  o.skin = skin;
  o.pairs = pairs;
  cdyn_contacts *cc;
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, tri, nt, &o), CDYN_OK);
  const double amp[8] = {1e-4, 1e-3, 1e-4, 1e-4, 4e-3, 1e-4, 1e-2, 3e-2};
  *most = 0;
  for (int t = 0; t < MOTIONS; t++) {
    double T[3] = {t % 5 == 0 ? 5.0 : 0.01 * t, -0.003 * t, 0.002};
    for (size_t i = 0; i < 3 * n; i++)
      x1[i] = shape[i] + T[i % 3] + amp[t % 8] * tu_rand(&seed);
    ck_assert_int_eq(cdyn_contacts_motion(cc, x0, x1), CDYN_OK);
    for (int kind = VF; kind <= EE; kind++)
      for (int gi = 0; gi < 2; gi++) {
        double g = gi ? 0 : CDYN_CONTACTS_GROW(cc);
        size_t np, all;
        ck_assert_int_eq(cdyn_contacts_pairs(cc, kind, g, &np), CDYN_OK);
        memcpy(got, cc->pairs, 2 * np * sizeof(size_t));
        size_t nw = all_pairs(cc, kind, x0, x1, g, want, &all);
        *most = all > *most ? all : *most;
        ck_assert_msg(np == nw, "motion %d kind %d g %g: %zu pairs, every-pair testing finds %zu", t, kind, g, np, nw);
        size_t k = tu_first_diff(got, want, 2 * np);
        ck_assert_msg(k == 2 * np, "motion %d kind %d g %g: pair %zu differs", t, kind, g, k / 2);
      }
    /* The motion "taken": x1 moved again by up to 4e-4 m (within the
       growth delta / 2 = 2.5e-3 of the boxes just asked for: answered from
       their pairs) or, every third motion, 4e-3 m (beyond it: from the
       list or the hierarchies), asked with no growth. */
    double amp2 = t % 3 == 2 ? 4e-3 : 4e-4;
    for (size_t i = 0; i < 3 * n; i++)
      xt[i] = x1[i] + amp2 * tu_rand(&seed);
    ck_assert_int_eq(cdyn_contacts_motion(cc, x0, xt), CDYN_OK);
    for (int kind = VF; kind <= EE; kind++) {
      size_t np, all;
      ck_assert_int_eq(cdyn_contacts_pairs(cc, kind, 0, &np), CDYN_OK);
      memcpy(got, cc->pairs, 2 * np * sizeof(size_t));
      size_t nw = all_pairs(cc, kind, x0, xt, 0, want, &all);
      ck_assert_msg(np == nw, "motion %d taken, kind %d: %zu pairs, every-pair testing finds %zu", t, kind, np, nw);
      size_t k = tu_first_diff(got, want, 2 * np);
      ck_assert_msg(k == 2 * np, "motion %d taken, kind %d: pair %zu differs", t, kind, k / 2);
    }
    memcpy(x0, x1, 3 * n * sizeof(double));
  }
  cdyn_contacts_counts c;
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  cdyn_contacts_free(cc);
  cdyn_system_free(sys);
  free(x0), free(x1), free(shape), free(xt), free(got), free(want);
  return c;
}

START_TEST(test_candidates)
{
  size_t most;
  /* Kept lists: built at the first motion and again whenever the jitter
     leaves the skin; the translations alone (5 m) keep them. */
  cdyn_contacts_counts c = candidates_run(0.005, 1 << 16, &most);
  ck_assert_uint_ge(c.list_builds, 2);
  ck_assert_uint_ge(c.list_kept, 8);
  ck_assert_uint_eq(c.list_direct, 0);
  /* Each motion's queries with no growth, and the small motions taken
     (32 of 48), come from the pairs of the grown query; the list is asked
     at the 48 motions and the 16 large motions taken. */
  ck_assert_uint_eq(c.near_queries, 2 * 48 + 2 * 32);
  ck_assert_uint_eq(c.list_builds + c.list_kept, 48 + 16);
  /* Skin 0: every other query from the hierarchies. */
  c = candidates_run(0, 1 << 16, &most);
  ck_assert_uint_eq(c.list_builds + c.list_kept, 0);
  ck_assert_uint_eq(c.list_direct, 48 + 16);
  ck_assert_uint_eq(c.near_queries, 2 * 48 + 2 * 32);
  /* Room for every direct query but not always for a list, even with its
     skin halved down to an eighth (a skin of 0.02 m on a spacing of 0.02
     m): some motions are answered from lists of a smaller skin, the
     others by the hierarchies, with the same pairs. */
  c = candidates_run(0.02, most, &most);
  ck_assert_uint_gt(c.list_builds, 0);
  ck_assert_uint_gt(c.list_direct, 0);
}
END_TEST

/*
 * The contacts a detection creates, and their order, do not depend on
 * how the broad phase found the pairs.  A 14 x 14 sheet of spacing 0.02 m,
 * a wave (y = 0.012 sin(4 pi x / L) cos(3 pi z / L), L = 0.26 m) whose
 * nodes are jittered by up to 0.4 spacings and given velocities of up to
 * 2 spacings a step (many pairs within the thickness, 8 mm, or meeting in
 * the step), moves through 6 states, each node by up to 1 mm a state
 * along its own direction, with a detection at each (mode switch,
 * stacked: every pair its own contact; the contacts kept from state to
 * state).  Detected with the hierarchies alone (skin 0), from lists kept
 * over the states (skin 0.005 and 0.02), and from lists of halved skins
 * (0.02 with room only for the list of 0.01), every handler must make the
 * same contacts in the same order.  A kept list holds the pairs in the
 * order of its build's state, the hierarchies in that of the state
 * queried.
 */
START_TEST(test_contacts_independent_of_skin)
{
  enum { N = 14, STATES = 6 };
  const size_t n = N * N;
  size_t tri[2 * (N - 1) * (N - 1) * 3], nt = grid_tris(N, tri);
  double x[3 * N * N], v[3 * N * N], w[3 * N * N], xt[3 * N * N];
  uint64_t seed = 2024;
  const double sp = 0.02, h = 1e-3, L = sp * (N - 1), PI = 3.14159265358979323846;
  for (size_t i = 0; i < n; i++) {
    double px = sp * (double)(i % N), pz = sp * (double)(i / N);
    x[3 * i] = px + 0.4 * sp * tu_rand(&seed);
    x[3 * i + 1] = 0.012 * sin(4 * PI * px / L) * cos(3 * PI * pz / L) + 0.4 * sp * tu_rand(&seed);
    x[3 * i + 2] = pz + 0.4 * sp * tu_rand(&seed);
    for (int k = 0; k < 3; k++) {
      v[3 * i + k] = 2.0 * sp / h * tu_rand(&seed);
      w[3 * i + k] = 1e-3 * tu_rand(&seed);
    }
  }
  const double skins[4] = {0, 0.005, 0.02, 0.02};
  cdyn_contact_info *first = NULL;
  size_t nfirst = 0, list_pairs = 0;
  for (int run = 0; run < 4; run++) {
    cdyn_system *sys;
    ck_assert_int_eq(cdyn_system_new(&sys, n), CDYN_OK);
    cdyn_contacts_opts o;
    cdyn_contacts_opts_default(&o);
    o.mode = CDYN_CONTACTS_SWITCH;
    o.stack = 1;
    o.thickness = 0.008;
    o.capacity = 1 << 14;
    o.skin = skins[run];
    if (run == 3)
      o.pairs = list_pairs; /* the most pairs of a list of skin 0.01, found by run 2's handler */
    cdyn_contacts *cc;
    ck_assert_int_eq(cdyn_system_set_state(sys, x, v), CDYN_OK);
    ck_assert_int_eq(cdyn_contacts_new(&cc, sys, tri, nt, &o), CDYN_OK);
    for (int t = 0; t < STATES; t++) {
      for (size_t k = 0; k < 3 * n; k++)
        xt[k] = x[k] + (double)t * w[k];
      ck_assert_int_eq(cdyn_system_set_state(sys, xt, v), CDYN_OK);
      ck_assert_msg(cdyn_contacts_before(cc, h) == CDYN_OK, "%s", cdyn_errmsg());
    }
    cdyn_contacts_counts c;
    ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
    if (run == 0)
      ck_assert_uint_eq(c.list_direct, STATES);
    else
      ck_assert_msg(c.list_kept >= STATES - 2 && c.list_direct == 0, "skin %g: %lu lists built, %lu kept, %lu direct",
                    skins[run], c.list_builds, c.list_kept, c.list_direct);
    if (run == 3)
      ck_assert_double_lt(cc->list_skin, 0.02);
    size_t nc = cdyn_contacts_active(cc);
    cdyn_contact_info *got = malloc((nc + 1) * sizeof *got);
    ck_assert_ptr_nonnull(got);
    for (size_t k = 0; k < nc; k++)
      ck_assert_int_eq(cdyn_contacts_get(cc, k, &got[k]), CDYN_OK);
    if (run == 0) {
      ck_assert_msg(nc >= 200, "only %zu contacts", nc);
      first = got, nfirst = nc;
    } else {
      ck_assert_msg(nc == nfirst, "skin %g: %zu contacts, %zu with the hierarchies alone", skins[run], nc, nfirst);
      for (size_t k = 0; k < nc; k++)
        ck_assert_msg(got[k].kind == first[k].kind && got[k].first == first[k].first &&
                        got[k].second == first[k].second && got[k].constraint == first[k].constraint,
                      "skin %g (pairs %zu): contact %zu is (%d, %zu, %zu), with the hierarchies alone (%d, %zu, %zu)",
                      skins[run], o.pairs, k, got[k].kind, got[k].first, got[k].second, first[k].kind,
                      first[k].first, first[k].second);
      free(got);
    }
    if (run == 2) {
      /* room for the list of skin 0.01 over the first motion, x -> x + h v
         (the hierarchies' overlapping pairs, sharing a particle or not),
         not for 0.02's */
      double G = CDYN_CONTACTS_GROW(cc) + 0.01, x1[3 * N * N];
      for (size_t k = 0; k < 3 * n; k++)
        x1[k] = x[k] + h * v[k];
      size_t most = 0, *tmp = malloc(2 * 4 * n * n * sizeof(size_t)), all;
      ck_assert_ptr_nonnull(tmp);
      for (int kind = VF; kind <= EE; kind++) {
        all_pairs(cc, kind, x, x1, G, tmp, &all);
        most = all > most ? all : most;
      }
      free(tmp);
      list_pairs = most;
    }
    cdyn_contacts_free(cc);
    cdyn_system_free(sys);
  }
  free(first);
}
END_TEST

/* A list built with a halved skin is judged by that skin, not by the skin
   the next build may take again: two 5 x 5 sheets of spacing 0.05, 0.04
   apart along y; `pairs` holds the hierarchies' pairs for skin 0.01 but
   not for 0.02, and the list of skin 0.01 fits in a quarter of it (so the
   next build would take 0.02 again).  The upper sheet then comes down by
   0.036: a spread beyond twice the list's skin (0.02) but within twice
   0.02.  The pairs between the sheets (now 0.004 apart, within the
   thickness) must be found: the list is rebuilt. */
START_TEST(test_candidates_halved_skin)
{
  enum { N = 5 };
  const size_t ns = N * N, n = 2 * ns;
  cdyn_system *sys;
  ck_assert_int_eq(cdyn_system_new(&sys, n), CDYN_OK);
  size_t tri[2 * 2 * (N - 1) * (N - 1) * 3], nt = 0;
  for (size_t sh = 0; sh < 2; sh++)
    for (size_t r = 0; r + 1 < N; r++)
      for (size_t c = 0; c + 1 < N; c++) {
        size_t a = sh * ns + N * r + c, b = a + 1, d = a + N, e = d + 1;
        size_t t[6] = {a, b, e, a, e, d};
        memcpy(tri + 3 * nt, t, sizeof t);
        nt += 2;
      }
  double x0[3 * 2 * N * N], x1[3 * 2 * N * N];
  for (size_t i = 0; i < n; i++) {
    size_t sh = i / ns, k = i % ns;
    double p[3] = {0.05 * (double)(k % N) + 0.01 * (double)sh, 0.04 * (double)sh, 0.05 * (double)(k / N) + 0.013 * (double)sh};
    memcpy(x0 + 3 * i, p, sizeof p);
    ck_assert_int_eq(cdyn_system_set_position(sys, i, p), CDYN_OK);
  }
  cdyn_contacts_opts o;
  cdyn_contacts_opts_default(&o);
  o.skin = 0.02;
  /* The room: what the hierarchies give (pairs sharing a particle
     included) for boxes grown by delta / 2 + 0.01, the most of both kinds. */
  cdyn_contacts *cc;
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, tri, nt, &o), CDYN_OK);
  double G1 = CDYN_CONTACTS_GROW(cc) + 0.01, G0 = CDYN_CONTACTS_GROW(cc) + 0.02;
  size_t *want = malloc(2 * 4 * n * n * sizeof(size_t)), all1[2], all0[2], kept1[2];
  ck_assert_ptr_nonnull(want);
  for (int kind = VF; kind <= EE; kind++) {
    kept1[kind] = all_pairs(cc, kind, x0, x0, G1, want, &all1[kind]);
    all_pairs(cc, kind, x0, x0, G0, want, &all0[kind]);
  }
  size_t room = all1[VF] > all1[EE] ? all1[VF] : all1[EE];
  room = 4 * kept1[VF] > room ? 4 * kept1[VF] : room;
  room = 4 * kept1[EE] > room ? 4 * kept1[EE] : room;
  /* and the direct query at the end, should the lists not fit there. */
  memcpy(x1, x0, sizeof x1);
  for (size_t i = ns; i < n; i++)
    x1[3 * i + 1] -= 0.036;
  for (int kind = VF; kind <= EE; kind++) {
    size_t allf;
    all_pairs(cc, kind, x1, x1, CDYN_CONTACTS_GROW(cc), want, &allf);
    room = allf > room ? allf : room;
  }
  /* The conditions the test needs: 0.02 overflows, 0.01 fits in a quarter. */
  ck_assert(all0[VF] > room || all0[EE] > room);
  cdyn_contacts_free(cc);
  o.pairs = room;
  ck_assert_int_eq(cdyn_contacts_new(&cc, sys, tri, nt, &o), CDYN_OK);
  ck_assert_int_eq(cdyn_contacts_motion(cc, x0, x0), CDYN_OK);
  cdyn_contacts_counts c;
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  ck_assert_uint_eq(c.list_builds, 0); /* the list is built at the motion's first query */
  for (int kind = VF; kind <= EE; kind++) {
    size_t np;
    ck_assert_int_eq(cdyn_contacts_pairs(cc, kind, CDYN_CONTACTS_GROW(cc), &np), CDYN_OK);
  }
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  ck_assert_uint_eq(c.list_builds, 1);
  ck_assert_int_eq(cdyn_contacts_motion(cc, x1, x1), CDYN_OK);
  for (int kind = VF; kind <= EE; kind++) {
    size_t np, all;
    ck_assert_int_eq(cdyn_contacts_pairs(cc, kind, CDYN_CONTACTS_GROW(cc), &np), CDYN_OK);
    size_t nw = all_pairs(cc, kind, x1, x1, CDYN_CONTACTS_GROW(cc), want, &all);
    ck_assert_msg(np == nw, "kind %d: %zu pairs, every-pair testing finds %zu", kind, np, nw);
  }
  ck_assert_int_eq(cdyn_contacts_counts_get(cc, &c), CDYN_OK);
  ck_assert_uint_eq(c.list_kept, 0);
  cdyn_contacts_free(cc);
  cdyn_system_free(sys);
  free(want);
}
END_TEST

START_TEST(test_replay_distances)
{
  /* The reference's distances against constructed answers. */
  const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
  const double above[3] = {0.25, 0.25, 0.5}, beyond[3] = {2, 0, 0}, corner[3] = {-3, -4, 0};
  ck_assert(fabs(ref_dist_point_triangle(above, a, b, c) - 0.5) < 1e-15);
  ck_assert(fabs(ref_dist_point_triangle(beyond, a, b, c) - 1) < 1e-15);
  ck_assert(fabs(ref_dist_point_triangle(corner, a, b, c) - 5) < 1e-15);
  const double p[3] = {0, 0, 1}, q[3] = {0, 1, 1}, r[3] = {-1, 0.5, 0}, s[3] = {1, 0.5, 0};
  ck_assert(fabs(ref_dist_segments(p, q, r, s) - 1) < 1e-15);
  const double r2[3] = {2, 3, 1}, s2[3] = {2, 5, 1};
  ck_assert(fabs(ref_dist_segments(p, q, r2, s2) - sqrt(8)) < 1e-15);
}
END_TEST

int main(void)
{
  ta_init();
  Suite *s = suite_create("contacts");
  TCase *tc = tcase_create("detection");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_replay_distances);
  tcase_add_test(tc, test_tunnelling);
  tcase_add_test(tc, test_repeat);
  tcase_add_test(tc, test_edge_edge);
  tcase_add_test(tc, test_node_node);
  tcase_add_test(tc, test_candidates);
  tcase_add_test(tc, test_candidates_halved_skin);
  tcase_add_test(tc, test_contacts_independent_of_skin);
  suite_add_tcase(s, tc);
  tc = tcase_create("release");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_release_separating);
  tcase_add_test(tc, test_release_pull);
  tcase_add_test(tc, test_release_region);
  tcase_add_test(tc, test_two_contacts_one_node);
  suite_add_tcase(s, tc);
  tc = tcase_create("resources");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_no_allocation);
  tcase_add_test(tc, test_clear);
  tcase_add_test(tc, test_bad_input);
  tcase_add_test(tc, test_merge);
  tcase_add_test(tc, test_merge_edges);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
