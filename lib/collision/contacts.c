/*
 * contacts.c: cloth non-penetration constraints, created by collision
 * detection and released by 001's rules (001 sec. V-A; doc/cloth.md,
 * "Non-penetration" and "Collision detection"; cdyn/collision.h).
 *
 * Constraints (the library's types, flagged as inequalities or switched on
 * as equalities, see mode below):
 *   node-triangle (node p, triangle a b c)  node_triangle on (p, a, b, c):
 *     Phi = nh.(x_p - x_a) - delta,  nh = unit((x_b - x_a) x (x_c - x_a)),
 *     the triangle's vertices ordered so that nh points to the side the
 *     node is on at the step's start (the side it came from);
 *   edge-edge (p q, r s)                    edge_edge on (p, q, r, s):
 *     Phi = nh.(x_r - x_p) - delta,  nh = unit((x_q - x_p) x (x_s - x_r)),
 *     r and s swapped when needed so that Phi > -delta at the start.
 *   node-node (p, q)                        distance on (p, q), length delta:
 *     Phi = |x_p - x_q| - delta.
 * delta is the thickness.  Edges nearly parallel at detection
 * (|ea x eb| <= 1e-6 |ea| |eb|) have no usable common normal and get no
 * edge-edge constraint (counted); the node-triangle pairs at their ends
 * hold them.
 *
 * Detection, before a step of h (cdyn_contacts_before).  Every element's
 * box bounds it at the state x and at the predicted x + h v, grown by
 * delta / 2 (two elements nearer than delta are within delta along every
 * axis); the broad phase (lib/collision/candidates.c: a candidate list
 * kept while the cloth moves less than the skin, found by three
 * hierarchies of nodes, triangles and edges, lib/collision/bvh.c) gives
 * the node-triangle and edge-edge pairs that share no particle and whose
 * boxes overlap.  A pair becomes a contact when
 *   (proximity)  its distance at x is below delta, its closest points
 *                are inside the face (node-triangle) or inside both edges
 *                (edge-edge), and the parties do not separate: u =
 *                n.(v_1 - v_2) <= 0 along the closest points' direction
 *                (lib/collision/proximity.c); or
 *   (continuous, option)  the motion x -> x + h v makes them touch
 *                (lib/collision/ccd.c, conservative; not asked when the
 *                distance at x, less the elements' largest displacements,
 *                proves the pair apart: apart() below, with the distance
 *                or a lower bound of it at either end); an edge pair only
 *                when its closest points at the reported time are inside both
 *                edges (an edge meeting another at its end is a node
 *                meeting the triangles of that edge, which the
 *                node-triangle test finds).
 * A node within delta of a vertex q of a triangle (its closest point of
 * the triangle is the vertex) gets a node-node contact with q instead,
 * unless p and q are joined by an edge of the mesh (their spring holds
 * them): the same test as the other pairs, at the same thickness.
 * A node closest to an edge of a triangle, or an edge closest
 * at its end, gets no constraint of that pair: the plane of that pair
 * would stand across the way the parties can go (a node sliding over a
 * triangle's edge would be stopped by the edge-edge plane of the edges
 * that meet at it), and it would duplicate the neighbouring elements'
 * constraints (nearly dependent rows).
 * The step then enforces Phi >= 0 at its end (001 enforces at the end of
 * the step; with the scheme "contact", the step itself is cut at the
 * located crossing of Phi = 0, its event location).
 * Mode switch (001's rule, doc/cloth.md): a node or edge already held
 * takes no second contact (reading (a), counted redundant), or with
 * `stack` every pair its own (reading (b)); with `stack` and merge = m
 * degrees, a pair whose node or edge a held contact already pushes within
 * m of the pair's own direction makes none (merges() below, counted
 * merged).
 *
 * Verification, after the step (cdyn_contacts_after, continuous on).  The
 * predicted motion is not the motion taken (the step adds h^2 a), so the
 * taken motion x_start -> x_end of every pair whose swept boxes overlap
 * (not grown: elements that touch have overlapping boxes) and that has no
 * contact is tested with lib/collision/ccd.c; a pair that may have
 * touched gets its contact (oriented at x_start), the state is restored to
 * the step's start and *redo asks the caller to take the step again.  A
 * step is repeated at most max_redo times; a touch found after that is
 * counted (unresolved) and left.
 *
 * Release, after the step (001 sec. V-A), for each contact, from its row
 * at the new state (Phi, u = J v) and its multiplier:
 *   separation  u > sep_speed with Phi > 0 (the parties move apart from
 *               beyond the thickness; a contact being pushed out of a
 *               violation, or held at Phi = 0 as an equality, is not
 *               separating: 1e-6 m/s * h is the rounding floor of Phi),
 *               or Phi > delta (more than 2 delta apart along the normal);
 *   pull        the multiplier pulls the parties together: lambda >
 *               release (library convention: lambda > 0 is tension; with
 *               the scheme "contact", the active set never keeps a
 *               pulling row, so this rule does not fire there);
 *   region      node-triangle: the node's projection on the plane lies
 *               farther than margin from the triangle (it left the
 *               triangle's Voronoi region); edge-edge: the lines' closest
 *               points lie farther than margin outside either edge (plus
 *               1e-9 times the elements' longest side, for rounding);
 *   degenerate  the triangle or the edges no longer define a normal.
 * The delay of a release is the number of step ends between the first at
 * which the contact was seen separating (u > 1e-6 m/s, above the rounding
 * of J v; reset when it rests or approaches again) and its release (0
 * when released at that end, or before it separates).
 *
 * Capacity: `capacity` contacts at once and `pairs` broad-phase pairs per
 * query are reserved by cdyn_contacts_new (with the system's constraint
 * and row room), so creation and release allocate nothing.  More contacts
 * than capacity, or more overlapping pairs than `pairs`, end the call with
 * CDYN_ENOMEM and a message giving the count; no contact is dropped
 * silently.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/collision.h"
#include "cdyn/stepper.h"
#include "collision/contacts_impl.h"
#include "core/internal.h"

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const double *a, const double *b, double *r)
{
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

static void sub3(const double *a, const double *b, double *r)
{
  for (int k = 0; k < 3; k++)
    r[k] = a[k] - b[k];
}

void cdyn_contacts_free(cdyn_contacts *cc)
{
  if (!cc)
    return;
  free(cc->tri);
  free(cc->edge);
  free(cc->node);
  cdyn_bvh_free(cc->bn);
  cdyn_bvh_free(cc->bt);
  cdyn_bvh_free(cc->be);
  free(cc->lo);
  free(cc->hi);
  free(cc->pairs);
  free(cc->c);
  free(cc->q0);
  free(cc->v0);
  free(cc->x1);
  free(cc->rlo);
  free(cc->rhi);
  free(cc->plo);
  free(cc->phi);
  free(cc->elo);
  free(cc->ehi);
  free(cc->list[0]);
  free(cc->list[1]);
  free(cc->sorted);
  free(cc->bucket);
  for (int k = 0; k < 2; k++) {
    free(cc->near[k]);
    free(cc->nlo[k]);
    free(cc->nhi[k]);
  }
  cdyn_failsafe_free(cc);
  free(cc);
}

static int cmp_size(const void *x, const void *y)
{
  size_t a = *(const size_t *)x, b = *(const size_t *)y;
  return a < b ? -1 : a > b;
}

static int cmp_edge(const void *x, const void *y)
{
  const size_t *a = x, *b = y;
  if (a[0] != b[0])
    return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

int cdyn_contacts_opts_default(cdyn_contacts_opts *o)
{
  if (!o)
    return cdyn_error(CDYN_EINVAL, "cdyn_contacts_opts_default: NULL options");
  memset(o, 0, sizeof *o);
  o->thickness = 0.005;
  o->mode = CDYN_CONTACTS_INEQUALITY;
  o->continuous = 1;
  o->capacity = 4096;
  o->pairs = 1 << 18;
  o->margin = 0.005;
  o->sep_speed = 1e-3;
  o->release = 0.0;
  o->ccd_tol = 1e-6;
  o->max_redo = 4;
  o->failsafe = 0;
  o->failsafe_iter = 100;
  o->skin = 0.005;
  return CDYN_OK;
}

static int check_opts(const cdyn_contacts_opts *o)
{
  const char *w = "cdyn_contacts_new";
  if (!(o->thickness > 0) || !isfinite(o->thickness))
    return cdyn_error(CDYN_EINVAL, "%s: thickness delta = %g must be finite and > 0", w, o->thickness);
  if (o->mode != CDYN_CONTACTS_INEQUALITY && o->mode != CDYN_CONTACTS_SWITCH)
    return cdyn_error(CDYN_EINVAL, "%s: unknown mode %d", w, o->mode);
  if (o->capacity < 1 || o->capacity > ((size_t)1 << 24))
    return cdyn_error(CDYN_EINVAL, "%s: capacity %zu out of range (1 .. 2^24)", w, o->capacity);
  if (o->pairs < 1 || o->pairs > ((size_t)1 << 28))
    return cdyn_error(CDYN_EINVAL, "%s: pairs %zu out of range (1 .. 2^28)", w, o->pairs);
  if (!(o->margin >= 0) || !isfinite(o->margin))
    return cdyn_error(CDYN_EINVAL, "%s: margin = %g must be finite and >= 0", w, o->margin);
  if (!(o->sep_speed >= 0) || !isfinite(o->sep_speed))
    return cdyn_error(CDYN_EINVAL, "%s: sep_speed = %g must be finite and >= 0", w, o->sep_speed);
  if (!(o->release >= 0) || !isfinite(o->release))
    return cdyn_error(CDYN_EINVAL, "%s: release = %g must be finite and >= 0", w, o->release);
  if (!(o->ccd_tol > 0 && o->ccd_tol <= 0.5))
    return cdyn_error(CDYN_EINVAL, "%s: ccd_tol = %g must be in (0, 0.5]", w, o->ccd_tol);
  if (o->max_redo > 64)
    return cdyn_error(CDYN_EINVAL, "%s: max_redo = %u must be <= 64", w, o->max_redo);
  if (o->stack != 0 && o->stack != 1)
    return cdyn_error(CDYN_EINVAL, "%s: stack = %d must be 0 or 1", w, o->stack);
  if (o->failsafe != 0 && o->failsafe != 1)
    return cdyn_error(CDYN_EINVAL, "%s: failsafe = %d must be 0 or 1", w, o->failsafe);
  if (!(o->skin >= 0) || !isfinite(o->skin))
    return cdyn_error(CDYN_EINVAL, "%s: skin = %g must be finite and >= 0", w, o->skin);
  if (!(o->merge >= 0 && o->merge <= 180))
    return cdyn_error(CDYN_EINVAL, "%s: merge = %g must be an angle in [0, 180] degrees", w, o->merge);
  if (o->merge > 0 && !(o->mode == CDYN_CONTACTS_SWITCH && o->stack))
    return cdyn_error(CDYN_EINVAL, "%s: merge = %g is for mode switch with stack on (it merges stacked contacts)", w,
                      o->merge);
  if (o->failsafe && (o->failsafe_iter < 1 || o->failsafe_iter > 10000))
    return cdyn_error(CDYN_EINVAL, "%s: failsafe_iter = %u must be in 1 .. 10000", w, o->failsafe_iter);
  return CDYN_OK;
}

int cdyn_contacts_new(cdyn_contacts **out, cdyn_system *sys, const size_t *tris, size_t ntris,
                      const cdyn_contacts_opts *o)
{
  if (!out || !sys || !tris || !o)
    return cdyn_error(CDYN_EINVAL, "cdyn_contacts_new: NULL argument");
  *out = NULL;
  int rc = check_opts(o);
  if (rc)
    return rc;
  if (ntris < 1 || ntris > ((size_t)1 << 24))
    return cdyn_error(CDYN_EINVAL, "cdyn_contacts_new: %zu triangles (1 .. 2^24)", ntris);
  for (size_t t = 0; t < ntris; t++) {
    const size_t *v = tris + 3 * t;
    for (int k = 0; k < 3; k++)
      if (v[k] >= sys->n)
        return cdyn_error(CDYN_EINVAL, "cdyn_contacts_new: triangle %zu has particle %zu, out of range (%zu)", t,
                          v[k], sys->n);
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2])
      return cdyn_error(CDYN_EINVAL, "cdyn_contacts_new: triangle %zu repeats a particle", t);
  }
  for (size_t i = 0; i < 3 * sys->n; i++)
    if (!isfinite(sys->q[i]) || !isfinite(sys->v[i]))
      return cdyn_error(CDYN_ENONFINITE, "cdyn_contacts_new: particle %zu's position or velocity is not finite",
                        i / 3);
  cdyn_contacts *cc = calloc(1, sizeof *cc);
  if (!cc)
    return cdyn_error(CDYN_ENOMEM, "cdyn_contacts_new: out of memory");
  cc->sys = sys;
  cc->o = *o;
  cc->ntri = ntris;
  size_t n3 = 3 * ntris;
  cc->tri = malloc(n3 * sizeof(size_t));
  cc->edge = malloc(2 * n3 * sizeof(size_t));
  cc->node = malloc(n3 * sizeof(size_t));
  if (!cc->tri || !cc->edge || !cc->node)
    goto nomem;
  memcpy(cc->tri, tris, n3 * sizeof(size_t));
  /* The edges: each triangle side once, smaller particle first. */
  for (size_t t = 0; t < ntris; t++)
    for (int k = 0; k < 3; k++) {
      size_t i = tris[3 * t + k], j = tris[3 * t + (k + 1) % 3];
      size_t *e = cc->edge + 2 * (3 * t + k);
      e[0] = i < j ? i : j;
      e[1] = i < j ? j : i;
    }
  qsort(cc->edge, n3, 2 * sizeof(size_t), cmp_edge);
  for (size_t e = 0; e < n3; e++)
    if (!cc->nedge || cmp_edge(cc->edge + 2 * e, cc->edge + 2 * (cc->nedge - 1))) {
      cc->edge[2 * cc->nedge] = cc->edge[2 * e];
      cc->edge[2 * cc->nedge + 1] = cc->edge[2 * e + 1];
      cc->nedge++;
    }
  memcpy(cc->node, tris, n3 * sizeof(size_t));
  qsort(cc->node, n3, sizeof(size_t), cmp_size);
  for (size_t e = 0; e < n3; e++)
    if (!cc->nnode || cc->node[e] != cc->node[cc->nnode - 1])
      cc->node[cc->nnode++] = cc->node[e];
  size_t most = n3;
  cc->lo = malloc(3 * most * sizeof(double));
  cc->hi = malloc(3 * most * sizeof(double));
  cc->pairs = malloc(2 * o->pairs * sizeof(size_t));
  cc->c = malloc(o->capacity * sizeof(contact));
  cc->q0 = malloc(3 * sys->n * sizeof(double));
  cc->v0 = malloc(3 * sys->n * sizeof(double));
  cc->x1 = malloc(3 * sys->n * sizeof(double));
  if (!cc->lo || !cc->hi || !cc->pairs || !cc->c || !cc->q0 || !cc->v0 || !cc->x1)
    goto nomem;
  if (o->failsafe && (rc = cdyn_failsafe_alloc(cc)))
    goto fail;
  if ((rc = cdyn_bvh_new(&cc->bn, cc->nnode)) || (rc = cdyn_bvh_new(&cc->bt, cc->ntri)) ||
      (rc = cdyn_bvh_new(&cc->be, cc->nedge)))
    goto fail;
  if ((rc = cdyn_contacts_alloc_list(cc)) || (rc = cdyn_contacts_build_trees(cc)))
    goto fail;
  /* Room for every contact at once, so that creating one allocates nothing. */
  size_t live = cdyn_system_live_constraints(sys);
  if ((rc = cdyn_system_reserve(sys, live + o->capacity, sys->rows_live + o->capacity, sys->nsprings)))
    goto fail;
  *out = cc;
  return CDYN_OK;
nomem:
  rc = cdyn_error(CDYN_ENOMEM, "cdyn_contacts_new: out of memory");
fail:
  cdyn_contacts_free(cc);
  return rc;
}

static const double *X(const double *q, size_t i) { return q + 3 * i; }

static contact *find(cdyn_contacts *cc, int kind, size_t a, size_t b)
{
  for (size_t k = 0; k < cc->nc; k++)
    if (cc->c[k].kind == kind && cc->c[k].a == a && cc->c[k].b == b)
      return &cc->c[k];
  return NULL;
}

/* Mode switch: is the node (vf: by a node-triangle or node-node contact),
   either edge (ee, by an edge-edge contact) or either node (nn, by a
   node-triangle or node-node contact) already held?  Equalities admit no redundancy: two planes held
   at the thickness through one node (its two neighbouring triangles, or a
   triangle and an edge pair at it) are in general inconsistent, and the
   step then takes a least-squares answer. */
static int held(const cdyn_contacts *cc, int kind, size_t a, size_t b)
{
  for (size_t k = 0; k < cc->nc; k++) {
    const contact *c = &cc->c[k];
    if (kind == NN) { /* a node of the pair held by a node-triangle or node-node contact */
      if ((c->kind == VF && (c->a == a || c->a == b)) ||
          (c->kind == NN && (c->a == a || c->b == a || c->a == b || c->b == b)))
        return 1;
      continue;
    }
    if (kind == VF && c->kind == NN && (c->a == a || c->b == a))
      return 1;
    if (c->kind != kind)
      continue;
    if (kind == VF ? c->a == a : (c->a == a || c->b == a || c->a == b || c->b == b))
      return 1;
  }
  return 0;
}

/*
 * The merge rule (option merge, mode switch with stack on).  A contact
 * pushes each of its parties along its plane's normal: a node-triangle
 * contact (node, t0, t1, t2), oriented so that n = (t1 - t0) x (t2 - t0)
 * points to the node's side, pushes its node along n; an edge-edge contact
 * (e0, e1, f0, f1), n = (e1 - e0) x (f1 - f0) pointing from e to f,
 * pushes e along -n and f along n; a node-node contact (a, b) pushes a
 * along a - b.  A pair whose node (or edge) a held contact already pushes
 * within `merge` degrees of the pair's own direction adds nothing that
 * contact does not hold, to first order, and is merged into it; a pair
 * from another direction (a node pinched between two layers, a fold's
 * crease) becomes its own contact.  merge = 180 keeps one contact per node
 * or edge and kind, as reading (a) does; merge = 0, every pair, reading (b).
 */
static int push_dir(int kind, const size_t *p, int side, const double *q, double *out)
{
  double d1[3], d2[3];
  if (kind == NN) {
    sub3(X(q, p[side]), X(q, p[1 - side]), out);
  } else if (kind == VF) {
    sub3(X(q, p[2]), X(q, p[1]), d1);
    sub3(X(q, p[3]), X(q, p[1]), d2);
    cross3(d1, d2, out);
  } else {
    sub3(X(q, p[1]), X(q, p[0]), d1);
    sub3(X(q, p[3]), X(q, p[2]), d2);
    cross3(d1, d2, out);
    if (side == 0)
      out[0] = -out[0], out[1] = -out[1], out[2] = -out[2];
  }
  double m = sqrt(dot3(out, out));
  if (!(m > 0))
    return 0;
  out[0] /= m, out[1] /= m, out[2] /= m;
  return 1;
}

/* Does a held contact push node (or edge) `who` of the new pair (kind, a,
   b, its oriented particles p) within the merge angle of the pair's own
   direction?  The relations are held()'s. */
static int merges(const cdyn_contacts *cc, int kind, size_t a, size_t b, const size_t *p, const double *q)
{
  double cmin = cos(cc->o.merge * (3.14159265358979323846 / 180));
  const cdyn_system *s = cc->sys;
  for (size_t k = 0; k < cc->nc; k++) {
    const contact *c = &cc->c[k];
    const size_t *cp = s->cons[c->con].p;
    /* Each shared party: the new pair's side and the held contact's side. */
    int pairs[2][2], n = 0;
    if (kind == VF || kind == NN) {
      size_t nodes[2] = {kind == VF ? a : p[0], kind == NN ? p[1] : SIZE_MAX};
      for (int i = 0; i < 2 && n < 2; i++) {
        if (nodes[i] == SIZE_MAX)
          continue;
        if (c->kind == VF && cp[0] == nodes[i])
          pairs[n][0] = i, pairs[n][1] = 0, n++;
        else if (c->kind == NN && (cp[0] == nodes[i] || cp[1] == nodes[i]))
          pairs[n][0] = i, pairs[n][1] = cp[0] == nodes[i] ? 0 : 1, n++;
      }
    } else if (c->kind == EE) {
      size_t ed[2] = {a, b}, ced[2] = {c->a, c->b};
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 && n < 2; j++)
          if (ed[i] == ced[j]) /* the side of an edge: its place in the oriented particles */
            pairs[n][0] = cc->edge[2 * ed[i]] == p[0] || cc->edge[2 * ed[i]] == p[1] ? 0 : 1,
            pairs[n][1] = cc->edge[2 * ced[j]] == cp[0] || cc->edge[2 * ced[j]] == cp[1] ? 0 : 1, n++;
    }
    for (int i = 0; i < n; i++) {
      double dn[3], dc[3];
      if (push_dir(kind, p, pairs[i][0], q, dn) && push_dir(c->kind, cp, pairs[i][1], q, dc) &&
          dot3(dn, dc) >= cmin)
        return 1;
    }
  }
  return 0;
}

/* The count of the contacts of a kind now held. */
static size_t *kind_count(cdyn_contacts *cc, int kind)
{
  return kind == VF ? &cc->counts.vf : kind == EE ? &cc->counts.ee : &cc->counts.nn;
}

/* Make the contact of the pair, oriented at the positions q. */
static int create(cdyn_contacts *cc, int kind, size_t a, size_t b, const double *q, const double *v)
{
  size_t p[4];
  double d1[3], d2[3], n[3], d[3];
  if (kind == NN) {
    p[0] = a, p[1] = b, p[2] = p[3] = SIZE_MAX;
  } else if (kind == VF) {
    const size_t *t = cc->tri + 3 * b;
    p[0] = a, p[1] = t[0], p[2] = t[1], p[3] = t[2];
    sub3(X(q, p[2]), X(q, p[1]), d1);
    sub3(X(q, p[3]), X(q, p[1]), d2);
    cross3(d1, d2, n);
    double N = sqrt(dot3(n, n));
    if (!(N > 1e-12 * dot3(d1, d1) + 1e-300)) {
      cc->counts.skipped++;
      return CDYN_OK;
    }
    sub3(X(q, p[0]), X(q, p[1]), d);
    double s = dot3(n, d);
    if (s == 0) { /* on the plane: the side it approaches from is the other */
      double vr[3];
      sub3(X(v, p[0]), X(v, p[1]), vr);
      s = -dot3(n, vr);
    }
    if (s < 0) {
      size_t tmp = p[2];
      p[2] = p[3], p[3] = tmp;
    }
  } else {
    const size_t *e = cc->edge + 2 * a, *f = cc->edge + 2 * b;
    p[0] = e[0], p[1] = e[1], p[2] = f[0], p[3] = f[1];
    sub3(X(q, p[1]), X(q, p[0]), d1);
    sub3(X(q, p[3]), X(q, p[2]), d2);
    cross3(d1, d2, n);
    if (!(sqrt(dot3(n, n)) > PARALLEL_SIN * sqrt(dot3(d1, d1) * dot3(d2, d2)))) {
      cc->counts.parallel++;
      return CDYN_OK;
    }
    sub3(X(q, p[2]), X(q, p[0]), d);
    double s = dot3(n, d);
    if (s == 0) {
      double vr[3];
      sub3(X(v, p[2]), X(v, p[0]), vr);
      s = -dot3(n, vr);
    }
    if (s < 0) {
      size_t tmp = p[2];
      p[2] = p[3], p[3] = tmp;
    }
  }
  if (cc->o.merge > 0 && cc->o.mode == CDYN_CONTACTS_SWITCH && cc->o.stack && merges(cc, kind, a, b, p, q)) {
    cc->counts.merged++;
    return CDYN_OK;
  }
  if (cc->nc == cc->o.capacity)
    return cdyn_error(CDYN_ENOMEM,
                      "cdyn_contacts: more than %zu contacts at once (the capacity); the pair (%s %zu, %zu) "
                      "has none",
                      cc->o.capacity, kind == VF ? "node-triangle" : kind == EE ? "edge-edge" : "node-node", a, b);
  double delta = cc->o.thickness;
  size_t id;
  int rc = cdyn_system_add_constraint(cc->sys,
                                      kind == VF   ? cdyn_constraint_node_triangle
                                      : kind == EE ? cdyn_constraint_edge_edge
                                                   : cdyn_constraint_distance,
                                      p, &delta, &id);
  if (!rc && cc->o.mode == CDYN_CONTACTS_INEQUALITY)
    if ((rc = cdyn_system_set_inequality(cc->sys, id, 1)))
      cdyn_system_remove_constraint(cc->sys, id);
  if (rc)
    return rc;
  contact *c = &cc->c[cc->nc++];
  c->kind = kind, c->a = a, c->b = b, c->con = id, c->sep_start = -1, c->fresh = 0;
  cc->counts.created++;
  *kind_count(cc, kind) += 1;
  return CDYN_OK;
}

/* Are the closest points inside the face (vf) or inside both edges (ee)?
   Only then is the pair's plane the right constraint: a node closest to
   an edge or a vertex of the triangle, or an edge closest at its end, is
   the contact of a neighbouring element (and would put the plane across
   the way it can go). */
static int interior(int kind, const cdyn_proximity *pr)
{
  if (kind == VF)
    return pr->w[1] < 0 && pr->w[2] < 0 && pr->w[3] < 0;
  double al = pr->w[1], be = -pr->w[3];
  return al > 0 && al < 1 && be > 0 && be < 1;
}

/* Are nodes i and j the ends of an edge of the mesh (cc->edge is sorted)? */
static int joined(const cdyn_contacts *cc, size_t i, size_t j)
{
  size_t key[2] = {i < j ? i : j, i < j ? j : i};
  return bsearch(key, cc->edge, cc->nedge, 2 * sizeof(size_t), cmp_edge) != NULL;
}

/*
 * Can the pair not touch over the motion x0 -> x1?  A point of an element
 * moves by at most its vertices' largest displacement (it is their convex
 * combination at every instant), so with S the two elements' largest
 * displacements added and D0, D1 lower bounds of the pair's distance at
 * x0 and at x1, the distance at t in [0, 1] is at least
 *   max(D0 - t S, D1 - (1 - t) S),
 * whose least value over the step is (D0 + D1 - S) / 2 when |D0 - D1| <=
 * S, else max(D0, D1) - S.  That bound above the rounding of the two (1e-12
 * of the coordinates' magnitude, against a few 1e-16) proves the pair
 * apart, and the continuous test, which could only answer no, is not
 * asked.  The lower bounds: the distance at x0 where the proximity test
 * took it, and the gap along the line of the parties' centroids
 * (gap_along) at either state.  Most pairs whose boxes overlap on a cloth
 * are neighbours well apart: they need no test.
 */
typedef struct {
  double S, L; /* the largest displacements added; the coordinates' magnitude */
} motion_scale;

static motion_scale scale_of(const double *x0, const double *x1, const size_t *pp, int kind)
{
  double S[2] = {0, 0}, L = 0;
  for (int j = 0; j < 4; j++) {
    const double *a = X(x0, pp[j]), *b = X(x1, pp[j]);
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, m = sqrt(dot3(d, d));
    int side = kind == VF ? j > 0 : j > 1;
    S[side] = m > S[side] ? m : S[side];
    for (int k = 0; k < 3; k++) {
      L = fabs(a[k]) > L ? fabs(a[k]) : L;
      L = fabs(b[k]) > L ? fabs(b[k]) : L;
    }
  }
  return (motion_scale){S[0] + S[1], L};
}

static int apart(const motion_scale *ms, double D0, double D1)
{
  double S = ms->S, hi = D0 > D1 ? D0 : D1, L = ms->L > hi ? ms->L : hi;
  double B = fabs(D0 - D1) <= S ? (D0 + D1 - S) / 2 : hi - S;
  return B > 1e-12 * L;
}

/*
 * A lower bound of the pair's distance at the state x: the gap between
 * the parties' points projected on the line through their centroids (u
 * from the first party's centroid c to the second's): the least
 * u . (y - c) over the second party's points y less the largest over the
 * first's, divided by |u|.  Each closed element is the hull of its points, so
 * its every point projects within its points' range, and no two points
 * are nearer than their projections.  Differences are taken from c, so
 * their rounding is relative to the elements' size.  0 (no bound) when
 * the centroids coincide or a coordinate is not finite.
 */
static double gap_along(const double *x, const size_t *pp, int kind)
{
  const double *y[4] = {X(x, pp[0]), X(x, pp[1]), X(x, pp[2]), X(x, pp[3])};
  double c[3], u[3];
  if (kind == VF)
    for (int k = 0; k < 3; k++)
      c[k] = y[0][k], u[k] = (y[1][k] + y[2][k] + y[3][k]) / 3 - c[k];
  else
    for (int k = 0; k < 3; k++)
      c[k] = (y[0][k] + y[1][k]) / 2, u[k] = (y[2][k] + y[3][k]) / 2 - c[k];
  double n = sqrt(dot3(u, u));
  if (!(n > 0) || !(n < INFINITY))
    return 0;
  double t[4];
  for (int j = 0; j < 4; j++)
    t[j] = u[0] * (y[j][0] - c[0]) + u[1] * (y[j][1] - c[1]) + u[2] * (y[j][2] - c[2]);
  double amax = t[0], bmin = t[3] < t[2] ? t[3] : t[2];
  if (kind == VF)
    bmin = t[1] < bmin ? t[1] : bmin;
  else
    amax = t[1] > amax ? t[1] : amax;
  double g = (bmin - amax) / n;
  return g > 0 ? g : 0;
}

/* Test the pairs of the hierarchies against the motion x0 -> x1 (x1 = x0 + h v
   when predicting) and create contacts.  before: proximity at x0 too. */
static int detect(cdyn_contacts *cc, const double *x0, const double *x1, const double *v, int before,
                  size_t *found)
{
  size_t np;
  int rc;
  double delta = cc->o.thickness, tol = cc->o.ccd_tol;
  *found = 0;
  for (int kind = VF; kind <= EE; kind++) {
    rc = cdyn_contacts_pairs(cc, kind, before ? CDYN_CONTACTS_GROW(cc) : 0, &np);
    if (rc == CDYN_ENOMEM)
      return cdyn_error(CDYN_ENOMEM, "cdyn_contacts: %zu overlapping %s boxes, more than the %zu reserved (option pairs)",
                        np, kind == VF ? "node-triangle" : "edge-edge", cc->o.pairs);
    if (rc)
      return rc;
    if (before)
      cc->counts.candidates += np;
    for (size_t k = 0; k < np; k++) {
      size_t a = cc->pairs[2 * k], b = cc->pairs[2 * k + 1];
      size_t pp[4];
      if (kind == VF) {
        a = cc->node[a];
        pp[0] = a;
        memcpy(pp + 1, cc->tri + 3 * b, 3 * sizeof(size_t));
      } else {
        memcpy(pp, cc->edge + 2 * a, 2 * sizeof(size_t));
        memcpy(pp + 2, cc->edge + 2 * b, 2 * sizeof(size_t));
      }
      int make = 0, hit = 0, near = 0, have_d0 = 0;
      double th = 0, d0 = 0;
      cc->counts.tests++;
      /* The gaps at both states.  A pair farther than delta at x0 by its
         gap is not near there (the proximity test would say so); one
         they prove apart needs no continuous test; a pair that needs
         neither test makes no contact. */
      motion_scale ms = scale_of(x0, x1, pp, kind);
      double g0 = gap_along(x0, pp, kind), g1 = gap_along(x1, pp, kind);
      int far0 = g0 - delta > 1e-12 * (ms.L > g0 ? ms.L : g0);
      if (cc->o.continuous && (far0 || !before) && apart(&ms, g0, g1)) {
        cc->counts.cleared++;
        continue;
      }
      if (!cc->o.continuous && (far0 || !before))
        continue;
      if (before) {
        cdyn_proximity pr;
        rc = kind == VF ? cdyn_proximity_vf(X(x0, pp[0]), X(x0, pp[1]), X(x0, pp[2]), X(x0, pp[3]), delta, &near, &pr)
                        : cdyn_proximity_ee(X(x0, pp[0]), X(x0, pp[1]), X(x0, pp[2]), X(x0, pp[3]), delta, &near, &pr);
        if (rc == CDYN_EDEGENERATE) {
          near = 0;
          rc = CDYN_OK;
        } else if (!rc) /* the distance of the closed elements at x0 */
          have_d0 = 1, d0 = pr.dist;
        if (rc)
          return rc;
        if (near && interior(kind, &pr)) {
          double u = 0;
          for (int j = 0; j < 4; j++)
            u += pr.w[j] * dot3(pr.normal, X(v, pp[j]));
          make = u <= 0;
        } else if (near && kind == VF) {
          /* Closest to a vertex q of the triangle: a node-node pair (p, q). */
          int j = pr.w[1] == -1 ? 1 : pr.w[2] == -1 ? 2 : pr.w[3] == -1 ? 3 : 0;
          if (j && !joined(cc, pp[0], pp[j])) {
            size_t lo = pp[0] < pp[j] ? pp[0] : pp[j], hi = pp[0] < pp[j] ? pp[j] : pp[0];
            double vr[3];
            sub3(X(v, pp[0]), X(v, pp[j]), vr);
            if (dot3(pr.normal, vr) <= 0 && !find(cc, NN, lo, hi)) {
              if (cc->o.mode == CDYN_CONTACTS_SWITCH && !cc->o.stack && held(cc, NN, lo, hi)) {
                cc->counts.redundant++;
              } else {
                size_t before_nc = cc->nc;
                if ((rc = create(cc, NN, lo, hi, x0, v)))
                  return rc;
                *found += cc->nc - before_nc;
              }
            }
          }
        }
      }
      if (!make && cc->o.continuous && apart(&ms, have_d0 ? fmax(d0, g0) : g0, g1)) {
        cc->counts.cleared++;
      } else if (!make && cc->o.continuous) {
        rc = kind == VF ? cdyn_ccd_vf(X(x0, pp[0]), X(x1, pp[0]), X(x0, pp[1]), X(x1, pp[1]), X(x0, pp[2]),
                                      X(x1, pp[2]), X(x0, pp[3]), X(x1, pp[3]), tol, &hit, NULL)
                        : cdyn_ccd_ee(X(x0, pp[0]), X(x1, pp[0]), X(x0, pp[1]), X(x1, pp[1]), X(x0, pp[2]),
                                      X(x1, pp[2]), X(x0, pp[3]), X(x1, pp[3]), tol, &hit, &th);
        if (rc)
          return rc;
        make = hit;
        if (hit && !before)
          cc->touching++;
        if (hit && kind == EE) { /* the closest points when they meet: inside both edges? */
          double y[4][3];
          for (int j = 0; j < 4; j++)
            for (int k3 = 0; k3 < 3; k3++)
              y[j][k3] = X(x0, pp[j])[k3] + th * (X(x1, pp[j])[k3] - X(x0, pp[j])[k3]);
          cdyn_proximity pr;
          int nr;
          if (!cdyn_proximity_ee(y[0], y[1], y[2], y[3], delta, &nr, &pr) && !interior(EE, &pr)) {
            make = 0;
            cc->counts.endpoint++;
          }
        }
      }
      if (!make || find(cc, kind, kind == VF ? a : cc->pairs[2 * k], b))
        continue;
      if (cc->o.mode == CDYN_CONTACTS_SWITCH && !cc->o.stack && held(cc, kind, kind == VF ? a : cc->pairs[2 * k], b)) {
        cc->counts.redundant++;
        continue;
      }
      size_t before_nc = cc->nc;
      if ((rc = create(cc, kind, kind == VF ? a : cc->pairs[2 * k], b, x0, v)))
        return rc;
      *found += cc->nc - before_nc;
    }
  }
  return CDYN_OK;
}

static int check_state(const cdyn_system *s, const char *who)
{
  for (size_t i = 0; i < 3 * s->n; i++)
    if (!isfinite(s->q[i]) || !isfinite(s->v[i]))
      return cdyn_error(CDYN_ENONFINITE, "%s: particle %zu's position or velocity is not finite", who, i / 3);
  return CDYN_OK;
}

int cdyn_contacts_before(cdyn_contacts *cc, double h)
{
  if (!cc || !(h > 0) || !isfinite(h))
    return cdyn_error(CDYN_EINVAL, "cdyn_contacts_before: NULL handler or h = %g not finite and > 0",
                      cc ? h : 0.0);
  cdyn_system *s = cc->sys;
  int rc = check_state(s, "cdyn_contacts_before");
  if (rc)
    return rc;
  size_t n3 = 3 * s->n;
  memcpy(cc->q0, s->q, n3 * sizeof(double));
  memcpy(cc->v0, s->v, n3 * sizeof(double));
  for (size_t i = 0; i < n3; i++)
    cc->x1[i] = s->q[i] + h * s->v[i];
  cc->t0 = s->t;
  cc->saved = 1;
  cc->redos = 0;
  cc->counts.created = cc->counts.candidates = cc->counts.found_after = 0;
  if ((rc = cdyn_contacts_motion(cc, cc->q0, cc->x1)))
    return rc;
  size_t found;
  rc = detect(cc, cc->q0, cc->x1, cc->v0, 1, &found);
  cc->counts.active = cc->nc;
  return rc;
}

/* Phi and u = J v of contact k at the system's state; CDYN_EDEGENERATE when
   its normal is undefined. */
static int row_of(const cdyn_contacts *cc, const contact *c, double *phi, double *u)
{
  const cdyn_system *s = cc->sys;
  const cdyn_constraint *con = &s->cons[c->con];
  unsigned np = con->type->nparticles;
  cdyn_row row;
  int rc = cdyn_constraint_eval(con, s->q, s->v, s->t, &row);
  if (rc)
    return rc;
  *phi = row.phi;
  *u = 0;
  for (unsigned j = 0; j < np; j++)
    *u += dot3(row.jac[j], s->v + 3 * con->p[j]);
  return CDYN_OK;
}

/* How far the contact's closest points lie outside its elements (0: inside). */
static double outside(const cdyn_contacts *cc, const contact *c)
{
  const cdyn_system *s = cc->sys;
  const size_t *p = s->cons[c->con].p;
  const double *q = s->q;
  if (c->kind == NN) /* a node-node contact has no region to leave */
    return 0;
  if (c->kind == VF) {
    double e1[3], e2[3], n[3], d[3], y[3];
    sub3(X(q, p[2]), X(q, p[1]), e1);
    sub3(X(q, p[3]), X(q, p[1]), e2);
    cross3(e1, e2, n);
    double N2 = dot3(n, n);
    sub3(X(q, p[0]), X(q, p[1]), d);
    double f = dot3(n, d) / N2;
    for (int k = 0; k < 3; k++)
      y[k] = q[3 * p[0] + k] - f * n[k];
    cdyn_proximity pr;
    int near;
    if (cdyn_proximity_vf(y, X(q, p[1]), X(q, p[2]), X(q, p[3]), cc->o.thickness, &near, &pr))
      return INFINITY;
    return pr.dist;
  }
  double ea[3], eb[3], d[3];
  sub3(X(q, p[1]), X(q, p[0]), ea);
  sub3(X(q, p[3]), X(q, p[2]), eb);
  sub3(X(q, p[2]), X(q, p[0]), d);
  double a = dot3(ea, ea), b = dot3(ea, eb), e = dot3(eb, eb), f = dot3(ea, d), g = dot3(eb, d);
  double den = a * e - b * b;
  if (!(den > 0))
    return INFINITY;
  /* x_p + al ea and x_r + be eb closest: al a - be b = f, al b - be e = g. */
  double al = (f * e - b * g) / den, be = (b * f - a * g) / den;
  double la = sqrt(a), lb = sqrt(e);
  double oa = al < 0 ? -al * la : al > 1 ? (al - 1) * la : 0;
  double ob = be < 0 ? -be * lb : be > 1 ? (be - 1) * lb : 0;
  return fmax(oa, ob);
}

/* The longest side of the contact's elements (the scale of the rounding
   in outside()). */
static double size_of(const cdyn_contacts *cc, const contact *c)
{
  const size_t *p = cc->sys->cons[c->con].p;
  const double *q = cc->sys->q;
  double m = 0, d[3];
  static const int pairs[4][2] = {{0, 1}, {1, 2}, {2, 3}, {1, 3}};
  for (int k = 0; k < (c->kind == NN ? 1 : 4); k++) {
    sub3(X(q, p[pairs[k][0]]), X(q, p[pairs[k][1]]), d);
    m = fmax(m, sqrt(dot3(d, d)));
  }
  return m;
}

static int release(cdyn_contacts *cc, size_t k, long delay, unsigned long *why)
{
  contact *c = &cc->c[k];
  int rc = cdyn_system_remove_constraint(cc->sys, c->con);
  if (rc)
    return rc;
  (*why)++;
  cc->counts.released++;
  cc->counts.total_released++;
  cc->counts.delay_sum += (unsigned long)delay;
  if ((unsigned long)delay > cc->counts.delay_max)
    cc->counts.delay_max = (unsigned long)delay;
  *kind_count(cc, c->kind) -= 1;
  cc->c[k] = cc->c[--cc->nc];
  return CDYN_OK;
}

int cdyn_contacts_after(cdyn_contacts *cc, const cdyn_stepper *st, double h, int *redo)
{
  if (!cc || !redo || !(h > 0) || !isfinite(h))
    return cdyn_error(CDYN_EINVAL, "cdyn_contacts_after: NULL argument or h = %g not finite and > 0",
                      cc ? h : 0.0);
  *redo = 0;
  if (!cc->saved)
    return cdyn_error(CDYN_EINVAL, "cdyn_contacts_after: no cdyn_contacts_before for this step");
  if (cc->o.mode == CDYN_CONTACTS_SWITCH && !st)
    return cdyn_error(CDYN_EINVAL, "cdyn_contacts_after: NULL stepper (mode switch reads its multipliers)");
  cdyn_system *s = cc->sys;
  int rc = check_state(s, "cdyn_contacts_after");
  if (rc)
    return rc;
  if (cc->o.continuous) {
    /* The motion taken, x_start -> x_end, of the pairs without a contact. */
    if ((rc = cdyn_contacts_motion(cc, cc->q0, s->q)))
      return rc;
    size_t found;
    cc->touching = 0;
    if ((rc = detect(cc, cc->q0, s->q, cc->v0, 0, &found)))
      return rc;
    cc->counts.found_after += found;
    cc->counts.active = cc->nc;
    if (found) {
      if (cc->redos < cc->o.max_redo) {
        cc->redos++;
        cc->counts.redos++;
        if ((rc = cdyn_system_set_state(s, cc->q0, cc->v0)) || (rc = cdyn_system_set_time(s, cc->t0)))
          return rc;
        *redo = 1;
        return CDYN_OK;
      }
      cc->counts.unresolved += found;
      for (size_t k = cc->nc - found; k < cc->nc; k++)
        cc->c[k].fresh = 1;
    }
  }
  /* The step stands: whether its check found a pair touching, the
     fail-safe on or not (a run without it can then tell whether it would
     have had work). */
  if (cc->o.continuous) {
    if (cc->touching)
      cc->counts.touched_after++;
    else
      cc->counts.quiet_after++;
  }
  /* The fail-safe, after the scheme's contact handling: the step's motion
     as the scheme left it, made free of crossings. */
  if (cc->o.failsafe) {
    /* The check just made of the motion taken is the fail-safe's first
       pass over it (every pair, the same continuous test): when it found
       no pair touching and asked for no repeat, there is nothing to do. */
    if (cc->o.continuous && cc->touching == 0)
      cc->counts.fs_reused++;
    else if ((rc = cdyn_failsafe_run(cc, h)))
      return rc;
  }
  cc->saved = 0;
  cc->step++;
  cc->counts.released = 0;
  for (size_t k = cc->nc; k-- > 0;) {
    contact *c = &cc->c[k];
    double phi, u, lambda = 0;
    if (c->fresh) { /* not in the step just taken: nothing to release on */
      c->fresh = 0;
      continue;
    }
    rc = row_of(cc, c, &phi, &u);
    if (rc == CDYN_EDEGENERATE) {
      if ((rc = release(cc, k, 0, &cc->counts.released_degenerate)))
        return rc;
      continue;
    }
    if (rc)
      return rc;
    if (u > SEP_NOISE && c->sep_start < 0)
      c->sep_start = cc->step;
    long delay = c->sep_start < 0 ? 0 : cc->step - c->sep_start;
    if (cc->o.mode == CDYN_CONTACTS_SWITCH) {
      size_t rows;
      if ((rc = cdyn_stepper_constraint_multipliers(st, c->con, &lambda, &rows)))
        return rc;
    }
    unsigned long *why = NULL;
    if ((u > cc->o.sep_speed && phi > SEP_NOISE * h) || phi > cc->o.thickness)
      why = &cc->counts.released_separating;
    else if (lambda > cc->o.release)
      why = &cc->counts.released_pull;
    else if (outside(cc, c) > cc->o.margin + 1e-9 * size_of(cc, c))
      why = &cc->counts.released_region;
    else if (u <= SEP_NOISE)
      c->sep_start = -1; /* approaching or resting again: the separation did not last */
    if (why && (rc = release(cc, k, delay, why)))
      return rc;
  }
  cc->counts.active = cc->nc;
  return CDYN_OK;
}

int cdyn_contacts_clear(cdyn_contacts *cc)
{
  if (!cc)
    return cdyn_error(CDYN_EINVAL, "cdyn_contacts_clear: NULL handler");
  while (cc->nc) {
    contact *c = &cc->c[cc->nc - 1];
    int rc = cdyn_system_remove_constraint(cc->sys, c->con);
    if (rc)
      return rc;
    *kind_count(cc, c->kind) -= 1;
    cc->nc--;
  }
  cc->counts.active = 0;
  return CDYN_OK;
}

int cdyn_contacts_counts_get(const cdyn_contacts *cc, cdyn_contacts_counts *counts)
{
  if (!cc || !counts)
    return cdyn_error(CDYN_EINVAL, "cdyn_contacts_counts_get: NULL argument");
  *counts = cc->counts;
  return CDYN_OK;
}

size_t cdyn_contacts_active(const cdyn_contacts *cc) { return cc ? cc->nc : 0; }

int cdyn_contacts_get(const cdyn_contacts *cc, size_t k, cdyn_contact_info *info)
{
  if (!cc || !info)
    return cdyn_error(CDYN_EINVAL, "cdyn_contacts_get: NULL argument");
  if (k >= cc->nc)
    return cdyn_error(CDYN_EINVAL, "cdyn_contacts_get: contact %zu out of range (%zu active)", k, cc->nc);
  const contact *c = &cc->c[k];
  const cdyn_constraint *con = &cc->sys->cons[c->con];
  info->kind = c->kind == VF ? CDYN_CONTACT_VF : c->kind == EE ? CDYN_CONTACT_EE : CDYN_CONTACT_NN;
  info->first = c->a;
  info->second = c->b;
  info->constraint = c->con;
  for (unsigned j = 0; j < 4; j++)
    info->particles[j] = j < con->type->nparticles ? con->p[j] : SIZE_MAX;
  return row_of(cc, c, &info->phi, &info->u);
}

size_t cdyn_contacts_edges(const cdyn_contacts *cc, const size_t **edges)
{
  if (!cc)
    return 0;
  if (edges)
    *edges = cc->edge;
  return cc->nedge;
}

size_t cdyn_contacts_triangles(const cdyn_contacts *cc, const size_t **tris)
{
  if (!cc)
    return 0;
  if (tris)
    *tris = cc->tri;
  return cc->ntri;
}
