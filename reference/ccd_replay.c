/*
 * reference/ccd_replay.c: see ccd_replay.h for the method and the bound
 * that clears a pair without exact arithmetic.
 */
#include "ccd_replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccd_exact.h"
#include "ccd_filter.h"

static double d3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static double point_segment(const double *p, const double *a, const double *b)
{
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
  double uu = d3(u, u), s = uu > 0 ? d3(w, u) / uu : 0;
  s = s < 0 ? 0 : s > 1 ? 1 : s;
  double r[3] = {w[0] - s * u[0], w[1] - s * u[1], w[2] - s * u[2]};
  return sqrt(d3(r, r));
}

double ref_dist_point_triangle(const double p[3], const double a[3], const double b[3], const double c[3])
{
  /* Inside: solve the normal equations for p - a = s u + t w + (normal part). */
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  double d[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
  double uu = d3(u, u), uw = d3(u, w), ww = d3(w, w), du = d3(d, u), dw = d3(d, w);
  double det = uu * ww - uw * uw;
  double best = fmin(point_segment(p, a, b), fmin(point_segment(p, b, c), point_segment(p, c, a)));
  if (det > 0) {
    double s = (du * ww - dw * uw) / det, t = (dw * uu - du * uw) / det;
    if (s >= 0 && t >= 0 && s + t <= 1) {
      double r[3];
      for (int k = 0; k < 3; k++)
        r[k] = d[k] - s * u[k] - t * w[k];
      best = fmin(best, sqrt(d3(r, r)));
    }
  }
  return best;
}

double ref_dist_segments(const double p[3], const double q[3], const double r[3], const double s[3])
{
  double best = fmin(fmin(point_segment(p, r, s), point_segment(q, r, s)),
                     fmin(point_segment(r, p, q), point_segment(s, p, q)));
  double u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, v[3] = {s[0] - r[0], s[1] - r[1], s[2] - r[2]};
  double w[3] = {p[0] - r[0], p[1] - r[1], p[2] - r[2]};
  double a = d3(u, u), b = d3(u, v), c = d3(v, v), d = d3(u, w), e = d3(v, w);
  double den = a * c - b * b;
  if (den > 1e-30 * a * c) {
    double sc = (b * e - c * d) / den, tc = (a * e - b * d) / den;
    if (sc >= 0 && sc <= 1 && tc >= 0 && tc <= 1) {
      double x[3];
      for (int k = 0; k < 3; k++)
        x[k] = w[k] + sc * u[k] - tc * v[k];
      best = fmin(best, sqrt(d3(x, x)));
    }
  }
  return best;
}

typedef struct {
  double lo[3], hi[3];
  size_t id;
} box;

static int cmp_lo(const void *x, const void *y)
{
  const box *a = x, *b = y;
  if (a->lo[0] != b->lo[0])
    return a->lo[0] < b->lo[0] ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

static void make_boxes(box *bx, const size_t *idx, size_t per, size_t count, const double *const *x, size_t nx,
                       double g, size_t tag)
{
  for (size_t e = 0; e < count; e++) {
    box *b = &bx[e];
    b->id = tag + e;
    for (int k = 0; k < 3; k++) {
      b->lo[k] = INFINITY, b->hi[k] = -INFINITY;
      for (size_t a = 0; a < per; a++) {
        size_t i = idx[per * e + a];
        for (size_t j = 0; j < nx; j++) {
          b->lo[k] = fmin(b->lo[k], x[j][3 * i + k]);
          b->hi[k] = fmax(b->hi[k], x[j][3 * i + k]);
        }
      }
      b->lo[k] -= g, b->hi[k] += g;
    }
  }
}

static double disp(const double *x0, const double *x1, size_t i)
{
  double d[3] = {x1[3 * i] - x0[3 * i], x1[3 * i + 1] - x0[3 * i + 1], x1[3 * i + 2] - x0[3 * i + 2]};
  return sqrt(d3(d, d));
}

typedef struct {
  const size_t *tris, *edges, *nodes;
  size_t nn, ntris;
  const double *const *x; /* the states, nx >= 2 */
  size_t nx;
  double pad;
  ref_replay_report *rep;
} ctx;

static void pt2(double out[2][3], const double *x0, const double *x1, size_t i)
{
  memcpy(out[0], x0 + 3 * i, sizeof out[0]);
  memcpy(out[1], x1 + 3 * i, sizeof out[1]);
}

/*
 * The bound's test D0 + D1 - S > 1e-9 without D0 when D1 alone passes it:
 * D0 >= 0, so the sum rounds to at least D1 and the test to at least
 * D1 - S.  That needs D0 to be a number, not NaN, which it is when the
 * pair's points at the step's start are finite and below 1e75 in
 * magnitude: no product in the distances (of at most four coordinate
 * differences) overflows, every division has a positive denominator, and
 * a quotient that is infinite fails the inside tests that would use it.
 * For other points D0 is computed.  The answer is the test's, and most
 * pairs need one distance instead of two.
 */
static int tame(const double *x0, const size_t *idx, int n)
{
  for (int a = 0; a < n; a++)
    for (int k = 0; k < 3; k++)
      if (!(fabs(x0[3 * idx[a] + k]) < 1e75))
        return 0;
  return 1;
}

/* Do the boxes of the points pa (na of them) and pb (nb) over one piece,
   x0 to x1, grown by g, overlap?  (Over the only piece of a straight
   step they are the boxes the sweep found overlapping, so the callers
   ask only for paths of several pieces.) */
static int piece_overlap(const double *x0, const double *x1, const size_t *pa, int na, const size_t *pb, int nb,
                         double g)
{
  for (int k = 0; k < 3; k++) {
    double alo = INFINITY, ahi = -INFINITY, blo = INFINITY, bhi = -INFINITY;
    for (int a = 0; a < na; a++) {
      alo = fmin(alo, fmin(x0[3 * pa[a] + k], x1[3 * pa[a] + k]));
      ahi = fmax(ahi, fmax(x0[3 * pa[a] + k], x1[3 * pa[a] + k]));
    }
    for (int b = 0; b < nb; b++) {
      blo = fmin(blo, fmin(x0[3 * pb[b] + k], x1[3 * pb[b] + k]));
      bhi = fmax(bhi, fmax(x0[3 * pb[b] + k], x1[3 * pb[b] + k]));
    }
    if (ahi + g < blo - g || bhi + g < alo - g)
      return 0;
  }
  return 1;
}

/*
 * One piece of a pair's motion, x0 to x1 (D1: the distance at x1; S: the
 * largest displacement of a point of one party plus that of the other):
 * cleared by the distance bound, else decided by the filter, else by the
 * exact test.  Returns 1 (touched), 0, or REF_CCD_DEGENERATE.
 */
static int piece_vf(ctx *c, const double *x0, const double *x1, size_t p, const size_t *v, double D1)
{
  ref_replay_report *rep = c->rep;
  double S = disp(x0, x1, p) + fmax(disp(x0, x1, v[0]), fmax(disp(x0, x1, v[1]), disp(x0, x1, v[2])));
  const size_t pts[4] = {p, v[0], v[1], v[2]};
  if (D1 - S > 1e-9 && tame(x0, pts, 4))
    return 0;
  double D0 = ref_dist_point_triangle(x0 + 3 * p, x0 + 3 * v[0], x0 + 3 * v[1], x0 + 3 * v[2]);
  if (D0 + D1 - S > 1e-9)
    return 0;
  double P[2][3], A[2][3], B[2][3], C[2][3];
  pt2(P, x0, x1, p), pt2(A, x0, x1, v[0]), pt2(B, x0, x1, v[1]), pt2(C, x0, x1, v[2]);
  rep->near++;
  int f = ref_filter_vf(P, A, B, C);
  if (f == REF_FILTER_APART || f == REF_FILTER_TOUCH) {
    rep->filtered++;
    return f == REF_FILTER_TOUCH;
  }
  rep->exact++;
  int r = ref_ccd_vf(P, A, B, C, NULL, NULL);
  return r == 1 || r == REF_CCD_DEGENERATE ? r : 0;
}

static int piece_ee(ctx *c, const double *x0, const double *x1, const size_t *a, const size_t *b, double D1)
{
  ref_replay_report *rep = c->rep;
  double S = fmax(disp(x0, x1, a[0]), disp(x0, x1, a[1])) + fmax(disp(x0, x1, b[0]), disp(x0, x1, b[1]));
  const size_t pts[4] = {a[0], a[1], b[0], b[1]};
  if (D1 - S > 1e-9 && tame(x0, pts, 4))
    return 0;
  double D0 = ref_dist_segments(x0 + 3 * a[0], x0 + 3 * a[1], x0 + 3 * b[0], x0 + 3 * b[1]);
  if (D0 + D1 - S > 1e-9)
    return 0;
  double P[2][3], Q[2][3], R[2][3], T[2][3];
  pt2(P, x0, x1, a[0]), pt2(Q, x0, x1, a[1]), pt2(R, x0, x1, b[0]), pt2(T, x0, x1, b[1]);
  rep->near++;
  int f = ref_filter_ee(P, Q, R, T);
  if (f == REF_FILTER_APART || f == REF_FILTER_TOUCH) {
    rep->filtered++;
    return f == REF_FILTER_TOUCH;
  }
  rep->exact++;
  int r = ref_ccd_ee(P, Q, R, T, NULL, NULL);
  return r == 1 || r == REF_CCD_DEGENERATE ? r : 0;
}

/* The pair's verdict over its pieces: touched in one (the rest are not
   asked), else degenerate in one, else none. */
static void tally(ref_replay_report *rep, int touched, int degenerate)
{
  if (touched)
    rep->crossings++;
  else if (degenerate)
    rep->degenerate++;
}

/* Node p against triangle t. */
static void pair_vf(ctx *c, size_t p, size_t t)
{
  const size_t *v = c->tris + 3 * t;
  if (p == v[0] || p == v[1] || p == v[2])
    return;
  const double *const *x = c->x;
  size_t last = c->nx - 1;
  c->rep->vf_pairs++;
  double D1 = ref_dist_point_triangle(x[last] + 3 * p, x[last] + 3 * v[0], x[last] + 3 * v[1], x[last] + 3 * v[2]);
  if (D1 < c->pad)
    c->rep->min_dist = fmin(c->rep->min_dist, D1);
  int degenerate = 0;
  for (size_t j = 0; j < last; j++) {
    if (last > 1 && !piece_overlap(x[j], x[j + 1], &p, 1, v, 3, c->pad / 2))
      continue;
    double De = j + 1 == last ? D1
                              : ref_dist_point_triangle(x[j + 1] + 3 * p, x[j + 1] + 3 * v[0], x[j + 1] + 3 * v[1],
                                                        x[j + 1] + 3 * v[2]);
    int r = piece_vf(c, x[j], x[j + 1], p, v, De);
    if (r == 1) {
      tally(c->rep, 1, 0);
      return;
    }
    degenerate = degenerate || r == REF_CCD_DEGENERATE;
  }
  tally(c->rep, 0, degenerate);
}

static void pair_ee(ctx *c, size_t e, size_t f)
{
  const size_t *a = c->edges + 2 * e, *b = c->edges + 2 * f;
  if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1])
    return;
  const double *const *x = c->x;
  size_t last = c->nx - 1;
  c->rep->ee_pairs++;
  double D1 = ref_dist_segments(x[last] + 3 * a[0], x[last] + 3 * a[1], x[last] + 3 * b[0], x[last] + 3 * b[1]);
  if (D1 < c->pad)
    c->rep->min_dist = fmin(c->rep->min_dist, D1);
  int degenerate = 0;
  for (size_t j = 0; j < last; j++) {
    if (last > 1 && !piece_overlap(x[j], x[j + 1], a, 2, b, 2, c->pad / 2))
      continue;
    double De = j + 1 == last ? D1
                              : ref_dist_segments(x[j + 1] + 3 * a[0], x[j + 1] + 3 * a[1], x[j + 1] + 3 * b[0],
                                                  x[j + 1] + 3 * b[1]);
    int r = piece_ee(c, x[j], x[j + 1], a, b, De);
    if (r == 1) {
      tally(c->rep, 1, 0);
      return;
    }
    degenerate = degenerate || r == REF_CCD_DEGENERATE;
  }
  tally(c->rep, 0, degenerate);
}

static int overlap(const box *a, const box *b)
{
  for (int k = 0; k < 3; k++)
    if (a->hi[k] < b->lo[k] || b->hi[k] < a->lo[k])
      return 0;
  return 1;
}

static int cmp_pair(const void *x, const void *y)
{
  const size_t *a = x, *b = y;
  if (a[0] != b[0])
    return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

/*
 * The pairs of boxes that overlap, of two sorted lists a and b (cmp_lo's
 * order), each pair once: the box that comes first in that order (of the
 * two lists merged) scans the other list from where that list's next box
 * is while its boxes begin, along x, before the first box ends.  With b
 * NULL, the pairs within a: each box scans the boxes after it.  Each pair
 * is handed to fn first box first, as a sweep over one sorted list of all
 * the boxes does.
 */
static void sweep(const box *a, size_t na, const box *b, size_t nb, void (*fn)(ctx *, const box *, const box *),
                  ctx *c)
{
  if (!b) {
    for (size_t i = 0; i < na; i++)
      for (size_t j = i + 1; j < na && a[j].lo[0] <= a[i].hi[0]; j++)
        if (overlap(&a[i], &a[j]))
          fn(c, &a[i], &a[j]);
    return;
  }
  size_t i = 0, j = 0;
  while (i < na || j < nb) {
    if (j == nb || (i < na && cmp_lo(&a[i], &b[j]) < 0)) {
      for (size_t k = j; k < nb && b[k].lo[0] <= a[i].hi[0]; k++)
        if (overlap(&a[i], &b[k]))
          fn(c, &a[i], &b[k]);
      i++;
    } else {
      for (size_t k = i; k < na && a[k].lo[0] <= b[j].hi[0]; k++)
        if (overlap(&b[j], &a[k]))
          fn(c, &b[j], &a[k]);
      j++;
    }
  }
}

/* Tags: nodes 0 .. nn - 1, triangles nn .., edges nn + ntris .. */
static void on_vf(ctx *c, const box *x, const box *y)
{
  const box *n = x->id < c->nn ? x : y, *t = x->id < c->nn ? y : x;
  pair_vf(c, c->nodes[n->id], t->id - c->nn);
}

static void on_ee(ctx *c, const box *x, const box *y)
{
  pair_ee(c, x->id - c->nn - c->ntris, y->id - c->nn - c->ntris);
}

int ref_replay(const size_t *tris, size_t ntris, const double *x0, const double *x1, double pad,
               ref_replay_report *rep)
{
  const double *x[2] = {x0, x1};
  if (!x0 || !x1)
    return -1;
  return ref_replay_path(tris, ntris, x, 2, pad, rep);
}

int ref_replay_path(const size_t *tris, size_t ntris, const double *const *x, size_t nx, double pad,
                    ref_replay_report *rep)
{
  if (!tris || !x || nx < 2 || !rep || !ntris || !(pad >= 0))
    return -1;
  for (size_t j = 0; j < nx; j++)
    if (!x[j])
      return -1;
  /* The edges: the triangles' sides, once each. */
  size_t nedges = 0, *edges = malloc(6 * ntris * sizeof *edges);
  if (!edges)
    return -1;
  for (size_t t = 0; t < ntris; t++)
    for (int k = 0; k < 3; k++) {
      size_t i = tris[3 * t + k], j = tris[3 * t + (k + 1) % 3];
      edges[6 * t + 2 * k] = i < j ? i : j;
      edges[6 * t + 2 * k + 1] = i < j ? j : i;
    }
  qsort(edges, 3 * ntris, 2 * sizeof *edges, cmp_pair);
  for (size_t e = 0; e < 3 * ntris; e++)
    if (!nedges || cmp_pair(edges + 2 * e, edges + 2 * (nedges - 1))) {
      edges[2 * nedges] = edges[2 * e];
      edges[2 * nedges + 1] = edges[2 * e + 1];
      nedges++;
    }
  memset(rep, 0, sizeof *rep);
  rep->min_dist = INFINITY;
  /* The nodes: the particles of the triangles, once each. */
  size_t nmax = 3 * ntris, nn = 0;
  size_t *nodes = malloc(nmax * sizeof *nodes);
  box *bx = malloc((nmax + ntris + 2 * nedges) * sizeof *bx);
  if (!nodes || !bx) {
    free(nodes);
    free(bx);
    free(edges);
    return -1;
  }
  size_t top = 0;
  for (size_t k = 0; k < nmax; k++)
    top = tris[k] > top ? tris[k] : top;
  unsigned char *seen = calloc(top + 1, 1);
  if (!seen) {
    free(nodes);
    free(bx);
    free(edges);
    return -1;
  }
  for (size_t k = 0; k < nmax; k++)
    if (!seen[tris[k]]) {
      seen[tris[k]] = 1;
      nodes[nn++] = tris[k];
    }
  free(seen);
  /* Boxes swept over the step and grown by pad / 2, three sorted lists:
     nodes, triangles, edges.  Only node-triangle and edge-edge pairs are
     replayed, so only those are swept. */
  double g = pad / 2;
  box *bn = bx, *bt = bx + nn, *be = bx + nn + ntris;
  make_boxes(bn, nodes, 1, nn, x, nx, g, 0);
  make_boxes(bt, tris, 3, ntris, x, nx, g, nn);
  make_boxes(be, edges, 2, nedges, x, nx, g, nn + ntris);
  qsort(bn, nn, sizeof *bx, cmp_lo);
  qsort(bt, ntris, sizeof *bx, cmp_lo);
  qsort(be, nedges, sizeof *bx, cmp_lo);
  ctx c = {tris, edges, nodes, nn, ntris, x, nx, pad, rep};
  sweep(bn, nn, bt, ntris, on_vf, &c);
  sweep(be, nedges, NULL, 0, on_ee, &c);
  free(nodes);
  free(bx);
  free(edges);
  return 0;
}
