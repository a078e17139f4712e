/*
 * failsafe.c: rigid impact zones, a fail-safe that lets no part of the
 * cloth pass through another over a step (Provot, "Collision and
 * self-collision handling in cloth model dedicated to design garments",
 * 1997, sec. 4; Bridson, Fedkiw and Anderson, "Robust treatment of
 * collisions, contact and friction for cloth animation", SIGGRAPH 2002,
 * sec. 7.4; doc/cloth.md, "The fail-safe").
 *
 * It runs after a step and after the scheme's own contact handling
 * (cdyn_contacts_after, when no repeat of the step is asked for).  The
 * motion it judges is the one the experiments' exact replay judges: every
 * mesh node moves on the straight line from x0 (the step's start) to x1
 * (its end).  A pass tests every node-triangle and edge-edge pair of the
 * mesh that shares no particle with the conservative continuous test
 * (ccd.c: a touch is never missed).  Each pair that may touch joins its
 * four nodes into one impact zone (union-find), and each zone made or
 * grown in the pass is given a motion in which its nodes cannot touch one
 * another:
 *
 *   rigid      from the zone's own motion u_i = (x1_i - x0_i) / h, its
 *              mass M = sum m_i, centre c = sum m_i x0_i / M, velocity
 *              v_c = sum m_i u_i / M, angular momentum about c
 *              L = sum m_i r_i x (u_i - v_c), r_i = x0_i - c, inertia
 *              I = sum m_i (|r_i|^2 E - r_i r_i^T) and omega = I^-1 L:
 *                x1_i = c + h v_c + R(h omega) r_i,
 *                v_i  = v_c + omega x R(h omega) r_i
 *              (R(theta) the rotation by |theta| about theta, Rodrigues'
 *              formula).  Linear and angular momentum of the zone's
 *              motion are kept (Bridson et al.'s choice).
 *   translated x1_i = x0_i + h v_c, v_i = v_c: linear momentum kept.
 *   frozen     x1_i = x0_i, v_i = 0.
 *
 * A zone starts rigid.  The straight line from x0 to a rotated x1 is not a
 * rigid motion (the points cut the chord of their arcs), so a rigid zone
 * can still touch itself on it; a pair found inside one zone that was
 * already moved at the previous pass lowers that zone to translated, and
 * a translated zone to frozen.  A translated or frozen zone keeps every
 * vector x_i - x_j between its nodes constant over the step (up to the
 * rounding of x0_i + h v_c), so in exact arithmetic none of its pairs
 * touches unless it touched at x0.  A zone that holds a node fixed to the
 * world (a node of a one-particle equality constraint such as a pin, or
 * of zero inverse mass) is frozen: no rigid motion of its other nodes
 * would keep that one.  Merging zones gives the merged zone the strongest
 * of their motions (frozen over translated over rigid).
 *
 * Termination and the guarantee.  Every pass with a touch either merges
 * zones (at most nodes - 1 times) or lowers one (at most twice a zone),
 * so the passes end; `failsafe_iter` bounds them, and when the bound is
 * reached the whole mesh is frozen for the step.  A pass that finds no
 * touch ends the fail-safe: the conservative test then guarantees no pair
 * touches on the straight-line motion.  The one case it cannot mend is a
 * pair already touching at x0 (a frozen zone still touching): it is
 * counted (fs_unresolved) and left.
 *
 * With continuous detection on, the handler has just tested every pair of
 * the mesh over the same motion with the same test (its check of the
 * motion taken); when that found no pair touching, it stands for the
 * fail-safe's first pass, which then has nothing to do (counted as
 * fs_reused), and the fail-safe costs nothing on a quiet step.
 *
 * The fail-safe works on positions and velocities only.  Its changes are
 * counted: the steps it changed, its passes, the zones by the motion they
 * got, and the velocity it changed as sum m |dv| (impulse), as
 * |sum m dv| (linear momentum, zero but for frozen zones and rounding)
 * and as the kinetic energy it removed.  Nothing is allocated per step:
 * the work arrays come with the handler (cdyn_contacts_new).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/stepper.h"
#include "collision/contacts_impl.h"

enum { FS_NONE = 0, FS_RIGID = 1, FS_TRANSLATE = 2, FS_FREEZE = 3 };

#define NO_NODE SIZE_MAX

void cdyn_failsafe_free(cdyn_contacts *cc)
{
  cdyn_failsafe_ws *f = &cc->fs;
  free(f->q);
  free(f->v);
  free(f->x1);
  free(f->parent);
  free(f->next);
  free(f->head);
  free(f->mode);
  free(f->dirty);
  free(f->held);
  memset(f, 0, sizeof *f);
}

int cdyn_failsafe_alloc(cdyn_contacts *cc)
{
  size_t n = cc->sys->n;
  cdyn_failsafe_ws *f = &cc->fs;
  f->q = malloc(3 * n * sizeof(double));
  f->v = malloc(3 * n * sizeof(double));
  f->x1 = malloc(3 * n * sizeof(double));
  f->parent = malloc(n * sizeof(size_t));
  f->next = malloc(n * sizeof(size_t));
  f->head = malloc(n * sizeof(size_t));
  f->mode = calloc(n, 1);
  f->dirty = calloc(n, 1);
  f->held = calloc(n, 1);
  if (!f->q || !f->v || !f->x1 || !f->parent || !f->next || !f->head || !f->mode || !f->dirty || !f->held) {
    cdyn_failsafe_free(cc);
    return cdyn_error(CDYN_ENOMEM, "cdyn_contacts_new: out of memory (fail-safe)");
  }
  for (size_t i = 0; i < n; i++)
    f->parent[i] = i;
  return CDYN_OK;
}

static size_t zone_of(size_t *parent, size_t i)
{
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}


/* A touch of the four nodes p: one zone of them all, or, when they are
   in one zone already moved at an earlier pass, that zone's motion
   lowered.  *stuck is set when a frozen zone touches itself. */
static void join(cdyn_failsafe_ws *f, const size_t *p, int *stuck)
{
  size_t r[4];
  for (int k = 0; k < 4; k++)
    r[k] = zone_of(f->parent, p[k]);
  if (r[0] == r[1] && r[0] == r[2] && r[0] == r[3] && f->mode[r[0]] != FS_NONE) {
    size_t z = r[0];
    if (f->dirty[z]) /* made or grown in this pass: its motion is not made yet */
      return;
    if (f->mode[z] == FS_FREEZE) {
      *stuck = 1;
      return;
    }
    f->mode[z]++;
    f->dirty[z] = 1;
    return;
  }
  size_t z = r[0];
  unsigned char m = FS_RIGID;
  for (int k = 0; k < 4; k++) {
    if (f->mode[r[k]] > m)
      m = f->mode[r[k]];
    if (r[k] < z)
      z = r[k];
  }
  for (int k = 0; k < 4; k++) {
    f->parent[r[k]] = z;
    if (r[k] != z)
      f->dirty[r[k]] = 0; /* no longer a root: the merged zone is moved as one */
  }
  f->mode[z] = m;
  f->dirty[z] = 1;
}

/* One detection pass over the straight-line motion x0 -> f->q: every pair
   that may touch joins its zone.  *hits counts them. */
static int pass(cdyn_contacts *cc, size_t *hits, int *stuck)
{
  cdyn_failsafe_ws *f = &cc->fs;
  const double *x0 = cc->q0, *x1 = f->q;
  int rc;
  *hits = 0;
  cc->counts.fs_passes++;
  if ((rc = cdyn_contacts_motion(cc, x0, x1)))
    return rc;
  for (int kind = VF; kind <= EE; kind++) {
    size_t np;
    rc = cdyn_contacts_pairs(cc, kind, 0, &np);
    if (rc == CDYN_ENOMEM)
      return cdyn_error(CDYN_ENOMEM,
                        "cdyn_contacts: fail-safe: %zu overlapping %s boxes, more than the %zu reserved (option pairs)",
                        np, kind == VF ? "node-triangle" : "edge-edge", cc->o.pairs);
    if (rc)
      return rc;
    for (size_t k = 0; k < np; k++) {
      size_t a = cc->pairs[2 * k], b = cc->pairs[2 * k + 1], p[4];
      if (kind == VF) {
        p[0] = cc->node[a];
        memcpy(p + 1, cc->tri + 3 * b, 3 * sizeof(size_t));
      } else {
        memcpy(p, cc->edge + 2 * a, 2 * sizeof(size_t));
        memcpy(p + 2, cc->edge + 2 * b, 2 * sizeof(size_t));
      }
      int hit;
      const double *P[4][2];
      for (int j = 0; j < 4; j++)
        P[j][0] = x0 + 3 * p[j], P[j][1] = x1 + 3 * p[j];
      rc = kind == VF ? cdyn_ccd_vf(P[0][0], P[0][1], P[1][0], P[1][1], P[2][0], P[2][1], P[3][0], P[3][1],
                                    cc->o.ccd_tol, &hit, NULL)
                      : cdyn_ccd_ee(P[0][0], P[0][1], P[1][0], P[1][1], P[2][0], P[2][1], P[3][0], P[3][1],
                                    cc->o.ccd_tol, &hit, NULL);
      if (rc)
        return rc;
      if (hit) {
        (*hits)++;
        join(f, p, stuck);
      }
    }
  }
  cc->counts.fs_hits += *hits;
  return CDYN_OK;
}

static void cross(const double *a, const double *b, double *r)
{
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

/* omega = I^-1 L for the symmetric 3 x 3 inertia I (row-major); 0 when I
   is singular to rounding (the zone's nodes on a line: no rotation about
   it is defined by the masses, and the zone is translated). */
static int solve_inertia(const double *I, const double *L, double *w)
{
  double c[9];
  c[0] = I[4] * I[8] - I[5] * I[7];
  c[1] = I[2] * I[7] - I[1] * I[8];
  c[2] = I[1] * I[5] - I[2] * I[4];
  c[3] = I[5] * I[6] - I[3] * I[8];
  c[4] = I[0] * I[8] - I[2] * I[6];
  c[5] = I[2] * I[3] - I[0] * I[5];
  c[6] = I[3] * I[7] - I[4] * I[6];
  c[7] = I[1] * I[6] - I[0] * I[7];
  c[8] = I[0] * I[4] - I[1] * I[3];
  double det = I[0] * c[0] + I[1] * c[3] + I[2] * c[6];
  double tr = I[0] + I[4] + I[8];
  if (!(det > 1e-9 * tr * tr * tr))
    return 0;
  for (int k = 0; k < 3; k++)
    w[k] = (c[3 * k] * L[0] + c[3 * k + 1] * L[1] + c[3 * k + 2] * L[2]) / det;
  return 1;
}

/* Give zone z (members from head[z] through next) its motion. */
static void move_zone(cdyn_contacts *cc, size_t z, double h)
{
  cdyn_failsafe_ws *f = &cc->fs;
  const cdyn_system *s = cc->sys;
  const double *x0 = cc->q0, *x1 = f->x1;
  double M = 0, c[3] = {0, 0, 0}, vc[3] = {0, 0, 0};
  for (size_t i = f->head[z]; i != NO_NODE; i = f->next[i]) {
    if (f->held[i])
      f->mode[z] = FS_FREEZE;
    double m = s->mass[i];
    M += m;
    for (int k = 0; k < 3; k++) {
      c[k] += m * x0[3 * i + k];
      vc[k] += m * (x1[3 * i + k] - x0[3 * i + k]) / h;
    }
  }
  for (int k = 0; k < 3; k++)
    c[k] /= M, vc[k] /= M;
  double w[3] = {0, 0, 0};
  if (f->mode[z] == FS_RIGID) {
    double L[3] = {0, 0, 0}, I[9] = {0};
    for (size_t i = f->head[z]; i != NO_NODE; i = f->next[i]) {
      double m = s->mass[i], r[3], u[3], l[3];
      for (int k = 0; k < 3; k++) {
        r[k] = x0[3 * i + k] - c[k];
        u[k] = (x1[3 * i + k] - x0[3 * i + k]) / h - vc[k];
      }
      cross(r, u, l);
      double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
      for (int a = 0; a < 3; a++) {
        L[a] += m * l[a];
        for (int b = 0; b < 3; b++)
          I[3 * a + b] += m * ((a == b ? rr : 0) - r[a] * r[b]);
      }
    }
    if (!solve_inertia(I, L, w))
      f->mode[z] = FS_TRANSLATE;
  }
  /* Rodrigues: R r = r cos th + (k x r) sin th + k (k . r)(1 - cos th). */
  double th = h * sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), ax[3] = {0, 0, 0}, ct = 1, st = 0;
  if (f->mode[z] == FS_RIGID && th > 0) {
    for (int k = 0; k < 3; k++)
      ax[k] = h * w[k] / th;
    ct = cos(th), st = sin(th);
  }
  for (size_t i = f->head[z]; i != NO_NODE; i = f->next[i]) {
    double *q = f->q + 3 * i, *v = f->v + 3 * i;
    const double *p0 = x0 + 3 * i;
    if (f->mode[z] == FS_FREEZE) {
      for (int k = 0; k < 3; k++)
        q[k] = p0[k], v[k] = 0;
    } else if (f->mode[z] == FS_TRANSLATE) {
      for (int k = 0; k < 3; k++)
        q[k] = p0[k] + h * vc[k], v[k] = vc[k];
    } else {
      double r[3], kr[3], Rr[3], wr[3];
      for (int k = 0; k < 3; k++)
        r[k] = p0[k] - c[k];
      cross(ax, r, kr);
      double kd = ax[0] * r[0] + ax[1] * r[1] + ax[2] * r[2];
      for (int k = 0; k < 3; k++)
        Rr[k] = r[k] * ct + kr[k] * st + ax[k] * kd * (1 - ct);
      cross(w, Rr, wr);
      for (int k = 0; k < 3; k++)
        q[k] = c[k] + h * vc[k] + Rr[k], v[k] = vc[k] + wr[k];
    }
  }
}

/* Move every zone made, grown or lowered in the last pass. */
static void move_zones(cdyn_contacts *cc, double h)
{
  cdyn_failsafe_ws *f = &cc->fs;
  for (size_t k = 0; k < cc->nnode; k++) {
    size_t i = cc->node[k], z = zone_of(f->parent, i);
    if (f->dirty[z] == 1) {
      f->head[z] = NO_NODE;
      f->dirty[z] = 2;
    }
    if (f->dirty[z]) {
      f->next[i] = f->head[z];
      f->head[z] = i;
    }
  }
  for (size_t k = 0; k < cc->nnode; k++) {
    size_t z = cc->node[k];
    if (f->parent[z] == z && f->dirty[z]) {
      move_zone(cc, z, h);
      f->dirty[z] = 0;
    }
  }
}

/* The nodes held to the world: of zero inverse mass, or the particle of a
   one-particle equality constraint (a pin). */
static void mark_held(cdyn_contacts *cc)
{
  cdyn_failsafe_ws *f = &cc->fs;
  const cdyn_system *s = cc->sys;
  for (size_t k = 0; k < cc->nnode; k++) {
    size_t i = cc->node[k];
    f->held[i] = !(s->winv[i] > 0);
  }
  for (size_t c = 0; c < s->ncons; c++) {
    const cdyn_constraint *con = &s->cons[c];
    if (con->live && con->enabled && con->type->nparticles == 1 && !con->inequality)
      f->held[con->p[0]] = 1;
  }
}

int cdyn_failsafe_run(cdyn_contacts *cc, double h)
{
  cdyn_failsafe_ws *f = &cc->fs;
  cdyn_system *s = cc->sys;
  double t0 = cdyn_clock();
  size_t n3 = 3 * s->n;
  memcpy(f->q, s->q, n3 * sizeof(double));
  memcpy(f->v, s->v, n3 * sizeof(double));
  memcpy(f->x1, s->q, n3 * sizeof(double));
  for (size_t k = 0; k < cc->nnode; k++) {
    size_t i = cc->node[k];
    f->parent[i] = i, f->mode[i] = FS_NONE, f->dirty[i] = 0;
  }
  size_t hits;
  int stuck = 0, rc, changed = 0;
  unsigned passes = 0;
  for (;;) {
    if ((rc = pass(cc, &hits, &stuck)))
      return rc;
    passes++;
    if (!hits)
      break;
    if (!changed)
      mark_held(cc);
    changed = 1;
    int any = 0;
    for (size_t k = 0; k < cc->nnode && !any; k++) {
      size_t i = cc->node[k];
      any = f->parent[i] == i && f->dirty[i] != 0;
    }
    if (!any) { /* every touch is inside a frozen zone: touching at x0 */
      cc->counts.fs_unresolved++;
      break;
    }
    if (passes >= cc->o.failsafe_iter) {
      /* The bound: the whole mesh frozen for the step, and one last pass. */
      size_t z = cc->node[0];
      for (size_t k = 0; k < cc->nnode; k++)
        f->parent[cc->node[k]] = z;
      f->mode[z] = FS_FREEZE;
      f->dirty[z] = 1;
      move_zones(cc, h);
      if ((rc = pass(cc, &hits, &stuck)))
        return rc;
      if (hits)
        cc->counts.fs_unresolved++;
      break;
    }
    move_zones(cc, h);
  }
  if (changed) {
    double dp[3] = {0, 0, 0}, de = 0;
    for (size_t k = 0; k < cc->nnode; k++) {
      size_t i = cc->node[k], z = zone_of(f->parent, i);
      if (f->mode[z] == FS_NONE)
        continue;
      cc->counts.fs_nodes++;
      if (z == i) {
        cc->counts.fs_zones++;
        cc->counts.fs_rigid += f->mode[z] == FS_RIGID;
        cc->counts.fs_translated += f->mode[z] == FS_TRANSLATE;
        cc->counts.fs_frozen += f->mode[z] == FS_FREEZE;
      }
      double m = s->mass[i], d2 = 0;
      for (int c = 0; c < 3; c++) {
        double d = f->v[3 * i + c] - s->v[3 * i + c];
        dp[c] += m * d;
        d2 += d * d;
        de += 0.5 * m * (s->v[3 * i + c] * s->v[3 * i + c] - f->v[3 * i + c] * f->v[3 * i + c]);
      }
      cc->counts.fs_impulse += m * sqrt(d2);
    }
    cc->counts.fs_momentum += sqrt(dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2]);
    cc->counts.fs_energy += de;
    cc->counts.fs_steps++;
    if ((rc = cdyn_system_set_state(s, f->q, f->v)))
      return rc;
  }
  cc->counts.fs_seconds += cdyn_clock() - t0;
  return CDYN_OK;
}
