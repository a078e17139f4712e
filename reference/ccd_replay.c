/*
 * reference/ccd_replay.c: see ccd_replay.h for the method and the bound
 * that clears a pair without exact arithmetic.
 */
#include "ccd_replay.h"

#include <math.h>
#include <stdint.h>
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
} box;

/* A box's entry in a bucket of the grid: a copy of the box, its first
   cells and its index, so that a bucket's pair tests read one run of
   memory. */
typedef struct grid_rec {
  box b;
  long long c0[3];
  size_t id;
} grid_rec;

/* The workspace: the mesh's edges and nodes (found again only when the
   triangles change), the boxes, the grid, each piece's displacements. */
struct ref_replay_ws {
  size_t *tris, ntris, *edges, nedges, *nodes, nn, top;
  box *bx;
  size_t nbx;
  size_t *cell_of;  /* per triangle's box: its first entry (ntris + 1; see grid) */
  long long *c0;    /* per box: its first cells along each axis, then its last (6 per box) */
  size_t *count, *big;
  struct grid_rec *entry; /* the boxes by bucket, each entry a copy of its box (see grid) */
  size_t tcap, ecap, ncap, bcap, ccap;
  double *disp; /* (pieces) x (top + 1) */
  double *side; /* per box: its largest side (scratch) */
  size_t scap;
  size_t dcap;
  unsigned char *tm; /* (states) x (top + 1): the particle's coordinates below 1e75 in magnitude (tame) */
  size_t tmcap;
  box *pbx;          /* (pieces) x (top + 1), paths of several pieces: each particle's box over the piece */
  size_t pbcap;
  box *sb;           /* per box: its element's points' box at the last state, as box_gap makes it */
  size_t sbcap;
  box *ub;           /* per box: its element's box swept over all the states, not grown */
  size_t ubcap;
  box *qb;           /* per particle (top + 1): its box over all the states */
  size_t qbcap;
  double last_best;  /* the last call's min(pad, min_dist): the first pass's growth (0: none yet) */
  /* The kept pairs (see kept_pass): fat holds each triangle's box of the
     last build grown by the skin, kept the pairs of triangles whose fat
     boxes overlap (2 triangle indices each), valid while have_kept. */
  box *fat;
  size_t fatcap;
  size_t *kept, nkept, keptcap;
  int have_kept, reused; /* a list is kept; it has served a call since it was built */
  size_t backoff, wait;   /* calls to make without keeping pairs after a list that served none */
  size_t builds, reuses, plain;
  /* Each triangle's own nodes and edges (see expand): own[own_at[2 t] ..
     own_at[2 t + 1]) its nodes, then to own_at[2 t + 2] its edges, as box
     indices; a node's or an edge's triangle is the first that has it. */
  size_t *own, *own_at;
  unsigned char *nanb; /* per box of a pass: its box has a NaN coordinate (see loose_pass) */
  size_t nancap;
};

typedef struct {
  const size_t *tris, *edges, *nodes;
  size_t nn, ntris;
  const double *const *x; /* the states, nx >= 2 */
  size_t nx, top;
  double pad;
  const double *disp; /* piece j, particle i: disp[j * (top + 1) + i] */
  const unsigned char *tm; /* state j, particle i: tm[j * (top + 1) + i] */
  const box *pbx;          /* piece j, particle i: pbx[j * (top + 1) + i] */
  const box *sb;           /* element (box index) e: sb[e] */
  const box *ub;           /* element (box index) e: its swept box, not grown */
  int distances_only;      /* the second pass: the pairs within the smallest distance so far, for min_dist */
  int grown;               /* the first pass meets boxes grown past the swept ones: a pair whose swept boxes
                              do not overlap gets its distance only */
  double best;        /* min(pad, the smallest distance at the last state so far) */
  ref_replay_report *rep;
  ref_replay_ws *collect; /* non-NULL: a build of the kept pairs, each overlapping pair appended to its list */
  int oom;                /* an append found no memory */
  const box *cur;         /* the pass's boxes (every element's; see expand) */
  size_t nedges;
  const size_t *own, *own_at;
  const unsigned char *nanb;
} ctx;

static double disp_of(const ctx *c, size_t j, size_t i) { return c->disp[j * (c->top + 1) + i]; }

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
static int tame_point(const double *x0, size_t i)
{
  for (int k = 0; k < 3; k++)
    if (!(fabs(x0[3 * i + k]) < 1e75))
      return 0;
  return 1;
}

/* The four points idx at state j (tame_point of each, tabled per state). */
static int tame(const ctx *c, size_t j, const size_t *idx)
{
  const unsigned char *t = c->tm + j * (c->top + 1);
  return t[idx[0]] && t[idx[1]] && t[idx[2]] && t[idx[3]];
}

/*
 * A lower bound of a distance without the distance: the distance between
 * the boxes of the two parties' points at one state (each party lies in
 * its box).  It stands for D1 where it alone clears the piece (L - S >
 * 1e-9 implies D1 - S > 1e-9: D1 >= L, up to a rounding far below the
 * 1e-9 m of the test at the scale of a metre), and where it shows that
 * the pair cannot lower min_dist (L >= the smallest distance so far, or
 * pad).  So most pairs whose swept boxes overlap but whose elements are
 * apart need no distance at all; the report is the one the distances give.
 */
static void point_box(const double *x, const size_t *pa, int na, box *b)
{
  for (int k = 0; k < 3; k++) {
    double lo = x[3 * pa[0] + k], hi = lo;
    for (int a = 1; a < na; a++) {
      double y = x[3 * pa[a] + k];
      lo = y < lo ? y : lo, hi = y > hi ? y : hi;
    }
    b->lo[k] = lo, b->hi[k] = hi;
  }
}

static double gap_of(const box *a, const box *b)
{
  double s = 0;
  for (int k = 0; k < 3; k++) {
    double d = b->lo[k] - a->hi[k] > a->lo[k] - b->hi[k] ? b->lo[k] - a->hi[k] : a->lo[k] - b->hi[k];
    if (d > 0)
      s += d * d;
  }
  return sqrt(s);
}

static double box_gap(const double *x, const size_t *pa, int na, const size_t *pb, int nb)
{
  box a, b;
  point_box(x, pa, na, &a);
  point_box(x, pb, nb, &b);
  return gap_of(&a, &b);
}

/* Do the boxes of the points pa (na of them) and pb (nb) over one piece,
   x_j to x_{j+1}, overlap (only then can they touch there)?  (Over the only piece of a straight
   step they are the boxes the broad phase found overlapping, so the
   callers ask only for paths of several pieces.) */
static int piece_overlap(const ctx *c, size_t j, const size_t *pa, int na, const size_t *pb, int nb)
{
  const box *P = c->pbx + j * (c->top + 1);
  for (int k = 0; k < 3; k++) {
    double alo = INFINITY, ahi = -INFINITY, blo = INFINITY, bhi = -INFINITY;
    /* Comparisons in place of fmin and fmax (library calls here), in
       the same sense: a NaN coordinate is passed over as they pass it
       (each particle's box over the piece passes it over too, and the
       least of least values is the least value). */
    for (int a = 0; a < na; a++) {
      const box *q = &P[pa[a]];
      alo = q->lo[k] < alo ? q->lo[k] : alo, ahi = q->hi[k] > ahi ? q->hi[k] : ahi;
    }
    for (int b = 0; b < nb; b++) {
      const box *q = &P[pb[b]];
      blo = q->lo[k] < blo ? q->lo[k] : blo, bhi = q->hi[k] > bhi ? q->hi[k] : bhi;
    }
    if (ahi < blo || bhi < alo)
      return 0;
  }
  return 1;
}

/* Particle i's box over piece j, x_j to x_{j+1}, NaN coordinates passed over. */
static void particle_piece_box(const double *x0, const double *x1, size_t i, box *b)
{
  for (int k = 0; k < 3; k++) {
    double y0 = x0[3 * i + k], y1 = x1[3 * i + k], lo = INFINITY, hi = -INFINITY;
    lo = y0 < lo ? y0 : lo, lo = y1 < lo ? y1 : lo;
    hi = y0 > hi ? y0 : hi, hi = y1 > hi ? y1 : hi;
    b->lo[k] = lo, b->hi[k] = hi;
  }
}

/*
 * One piece j of a pair's motion, x_j to x_{j+1} (*D1: the distance at
 * x_{j+1}, or NAN when not yet computed, then L, its lower bound, stands
 * for it where it clears the piece; S: the largest displacement of a point
 * of one party plus that of the other): cleared by the distance bound,
 * else decided by the filter, else by the exact test.  Returns 1
 * (touched), 0, or REF_CCD_DEGENERATE.
 */
static int piece_vf(ctx *c, size_t j, size_t p, const size_t *v, double *D1, double L)
{
  ref_replay_report *rep = c->rep;
  const double *x0 = c->x[j], *x1 = c->x[j + 1];
  double S = disp_of(c, j, p) + fmax(disp_of(c, j, v[0]), fmax(disp_of(c, j, v[1]), disp_of(c, j, v[2])));
  const size_t pts[4] = {p, v[0], v[1], v[2]};
  int tm = tame(c, j, pts);
  if (isnan(*D1)) {
    if (L - S > 1e-9 && tm)
      return 0;
    *D1 = ref_dist_point_triangle(x1 + 3 * p, x1 + 3 * v[0], x1 + 3 * v[1], x1 + 3 * v[2]);
  }
  if (*D1 - S > 1e-9 && tm)
    return 0;
  double D0 = ref_dist_point_triangle(x0 + 3 * p, x0 + 3 * v[0], x0 + 3 * v[1], x0 + 3 * v[2]);
  if (D0 + *D1 - S > 1e-9)
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

static int piece_ee(ctx *c, size_t j, const size_t *a, const size_t *b, double *D1, double L)
{
  ref_replay_report *rep = c->rep;
  const double *x0 = c->x[j], *x1 = c->x[j + 1];
  double S = fmax(disp_of(c, j, a[0]), disp_of(c, j, a[1])) + fmax(disp_of(c, j, b[0]), disp_of(c, j, b[1]));
  const size_t pts[4] = {a[0], a[1], b[0], b[1]};
  int tm = tame(c, j, pts);
  if (isnan(*D1)) {
    if (L - S > 1e-9 && tm)
      return 0;
    *D1 = ref_dist_segments(x1 + 3 * a[0], x1 + 3 * a[1], x1 + 3 * b[0], x1 + 3 * b[1]);
  }
  if (*D1 - S > 1e-9 && tm)
    return 0;
  double D0 = ref_dist_segments(x0 + 3 * a[0], x0 + 3 * a[1], x0 + 3 * b[0], x0 + 3 * b[1]);
  if (D0 + *D1 - S > 1e-9)
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

/* May the pair lower min_dist?  Not when its lower bound L at the last
   state is past the smallest distance so far (or pad) by more than the
   rounding of a distance (1e-12 m against rounding below 1e-14 at the
   scale of a metre). */
static int may_lower(const ctx *c, double L) { return !(L > c->best + 1e-12); }

/* Keep the distance D at the last state when it is within pad. */
static void keep_distance(ctx *c, double D)
{
  if (D < c->pad) {
    c->rep->min_dist = fmin(c->rep->min_dist, D);
    c->best = fmin(c->best, D);
  }
}

/* Node n (particle p) against triangle t. */
static void pair_vf(ctx *c, size_t n, size_t p, size_t t, int donly)
{
  const size_t *v = c->tris + 3 * t;
  if (p == v[0] || p == v[1] || p == v[2])
    return;
  const double *const *x = c->x;
  size_t last = c->nx - 1;
  double L1 = gap_of(&c->sb[n], &c->sb[c->nn + t]), D1 = NAN;
  if (may_lower(c, L1)) {
    D1 = ref_dist_point_triangle(x[last] + 3 * p, x[last] + 3 * v[0], x[last] + 3 * v[1], x[last] + 3 * v[2]);
    keep_distance(c, D1);
  }
  if (donly)
    return;
  c->rep->vf_pairs++;
  int degenerate = 0;
  for (size_t j = 0; j < last; j++) {
    if (last > 1 && !piece_overlap(c, j, &p, 1, v, 3))
      continue;
    double De = NAN, L = L1;
    if (j + 1 == last)
      De = D1;
    else
      L = box_gap(x[j + 1], &p, 1, v, 3);
    int r = piece_vf(c, j, p, v, j + 1 == last ? &D1 : &De, L);
    if (r == 1) {
      tally(c->rep, 1, 0);
      return;
    }
    degenerate = degenerate || r == REF_CCD_DEGENERATE;
  }
  tally(c->rep, 0, degenerate);
}

static void pair_ee(ctx *c, size_t e, size_t f, int donly)
{
  const size_t *a = c->edges + 2 * e, *b = c->edges + 2 * f;
  if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1])
    return;
  const double *const *x = c->x;
  size_t last = c->nx - 1;
  const box *sbe = c->sb + c->nn + c->ntris;
  double L1 = gap_of(&sbe[e], &sbe[f]), D1 = NAN;
  if (may_lower(c, L1)) {
    D1 = ref_dist_segments(x[last] + 3 * a[0], x[last] + 3 * a[1], x[last] + 3 * b[0], x[last] + 3 * b[1]);
    keep_distance(c, D1);
  }
  if (donly)
    return;
  c->rep->ee_pairs++;
  int degenerate = 0;
  for (size_t j = 0; j < last; j++) {
    if (last > 1 && !piece_overlap(c, j, a, 2, b, 2))
      continue;
    double De = NAN, L = L1;
    if (j + 1 == last)
      De = D1;
    else
      L = box_gap(x[j + 1], a, 2, b, 2);
    int r = piece_ee(c, j, a, b, j + 1 == last ? &D1 : &De, L);
    if (r == 1) {
      tally(c->rep, 1, 0);
      return;
    }
    degenerate = degenerate || r == REF_CCD_DEGENERATE;
  }
  tally(c->rep, 0, degenerate);
}

/* Do boxes a and b overlap (a NaN coordinate proves no separation)?  The
   six comparisons are combined without a branch between them.  The broad
   phase's loops (grid, kept_pass) ask this of pairs that overlap or not
   in no pattern; with a branch per axis, the test of the kept pairs was
   10.8 % of a profile of cloth-self-contact, and 4.4 % without. */
static int overlap(const box *a, const box *b)
{
  int apart = (a->hi[0] < b->lo[0]) | (b->hi[0] < a->lo[0]) | (a->hi[1] < b->lo[1]) | (b->hi[1] < a->lo[1]) |
              (a->hi[2] < b->lo[2]) | (b->hi[2] < a->lo[2]);
  return !apart;
}

static int cmp_pair(const void *x, const void *y)
{
  const size_t *a = x, *b = y;
  if (a[0] != b[0])
    return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Each particle's box over the states x[0 .. nx - 1] (the particles of
   the nodes idx, into qb by particle), NaN coordinates passed over. */
static void particle_boxes(box *qb, const size_t *idx, size_t count, const double *const *x, size_t nx)
{
  for (size_t e = 0; e < count; e++) {
    size_t i = idx[e];
    box *b = &qb[i];
    for (int k = 0; k < 3; k++) {
      double lo = INFINITY, hi = -INFINITY;
      for (size_t j = 0; j < nx; j++) {
        double y = x[j][3 * i + k];
        lo = y < lo ? y : lo;
        hi = y > hi ? y : hi;
      }
      b->lo[k] = lo, b->hi[k] = hi;
    }
  }
}

/* The box of each element of `per` particles idx over their boxes qb:
   the same comparisons, in the same order of particles, as over the
   particles' coordinates state by state (the least of least values is
   the least value, the first of equal ones kept), so the same box, bit
   for bit, for any number of states. */
static void element_boxes(box *bx, const size_t *idx, size_t per, size_t count, const box *qb)
{
  for (size_t e = 0; e < count; e++) {
    box *b = &bx[e];
    for (int k = 0; k < 3; k++) {
      double lo = INFINITY, hi = -INFINITY;
      for (size_t a = 0; a < per; a++) {
        const box *q = &qb[idx[per * e + a]];
        lo = q->lo[k] < lo ? q->lo[k] : lo;
        hi = q->hi[k] > hi ? q->hi[k] : hi;
      }
      b->lo[k] = lo, b->hi[k] = hi;
    }
  }
}

ref_replay_ws *ref_replay_ws_new(void) { return calloc(1, sizeof(ref_replay_ws)); }

void ref_replay_ws_free(ref_replay_ws *w)
{
  if (!w)
    return;
  free(w->tris);
  free(w->edges);
  free(w->nodes);
  free(w->bx);
  free(w->cell_of);
  free(w->c0);
  free(w->count);
  free(w->entry);
  free(w->big);
  free(w->disp);
  free(w->side);
  free(w->tm);
  free(w->pbx);
  free(w->sb);
  free(w->ub);
  free(w->qb);
  free(w->fat);
  free(w->kept);
  free(w->own);
  free(w->own_at);
  free(w->nanb);
  free(w);
}

/* Grow *p to hold n items of size sz. */
static int grow(void *pp, size_t *cap, size_t n, size_t sz)
{
  if (n <= *cap)
    return 0;
  void *q = realloc(*(void **)pp, n * sz);
  if (!q)
    return -1;
  *(void **)pp = q;
  *cap = n;
  return 0;
}

/* The mesh's edges and nodes, when the triangles are not those of the last call. */
static int mesh(ref_replay_ws *w, const size_t *tris, size_t ntris)
{
  if (w->tris && w->ntris == ntris && !memcmp(w->tris, tris, 3 * ntris * sizeof *tris))
    return 0;
  free(w->tris);
  free(w->edges);
  free(w->nodes);
  free(w->bx);
  free(w->own);
  free(w->own_at);
  w->own = w->own_at = NULL;
  w->tris = malloc(3 * ntris * sizeof *tris);
  w->edges = malloc(6 * ntris * sizeof *w->edges);
  w->nodes = malloc(3 * ntris * sizeof *w->nodes);
  w->bx = NULL;
  w->ntris = 0;
  if (!w->tris || !w->edges || !w->nodes)
    return -1;
  memcpy(w->tris, tris, 3 * ntris * sizeof *tris);
  /* The edges: the triangles' sides, once each. */
  size_t ne = 0, *edges = w->edges;
  for (size_t t = 0; t < ntris; t++)
    for (int k = 0; k < 3; k++) {
      size_t i = tris[3 * t + k], j = tris[3 * t + (k + 1) % 3];
      edges[6 * t + 2 * k] = i < j ? i : j;
      edges[6 * t + 2 * k + 1] = i < j ? j : i;
    }
  qsort(edges, 3 * ntris, 2 * sizeof *edges, cmp_pair);
  for (size_t e = 0; e < 3 * ntris; e++)
    if (!ne || cmp_pair(edges + 2 * e, edges + 2 * (ne - 1))) {
      edges[2 * ne] = edges[2 * e];
      edges[2 * ne + 1] = edges[2 * e + 1];
      ne++;
    }
  /* The nodes: the particles of the triangles, once each, in their order of appearance. */
  size_t top = 0;
  for (size_t k = 0; k < 3 * ntris; k++)
    top = tris[k] > top ? tris[k] : top;
  unsigned char *seen = calloc(top + 1, 1);
  size_t *owner = malloc((3 * ntris + ne) * sizeof *owner);
  if (!seen || !owner) {
    free(seen);
    free(owner);
    return -1;
  }
  /* owner: each node's triangle (the first that has it), then each edge's. */
  size_t nn = 0;
  for (size_t k = 0; k < 3 * ntris; k++)
    if (!seen[tris[k]]) {
      seen[tris[k]] = 1;
      owner[nn] = k / 3;
      w->nodes[nn++] = tris[k];
    }
  free(seen);
  size_t *eowner = owner + nn;
  for (size_t e = 0; e < ne; e++)
    eowner[e] = SIZE_MAX;
  for (size_t t = 0; t < ntris; t++)
    for (int k = 0; k < 3; k++) {
      size_t i = tris[3 * t + k], j = tris[3 * t + (k + 1) % 3], key[2] = {i < j ? i : j, i < j ? j : i};
      const size_t *hit = bsearch(key, edges, ne, 2 * sizeof *edges, cmp_pair);
      size_t e = (size_t)(hit - edges) / 2;
      if (eowner[e] == SIZE_MAX)
        eowner[e] = t;
    }
  /* own_at counts, then bounds: slot 2 t + 1 counts t's nodes, 2 t + 2 its edges. */
  w->own_at = calloc(2 * ntris + 1, sizeof *w->own_at);
  w->own = malloc((nn + ne + 1) * sizeof *w->own);
  if (!w->own_at || !w->own) {
    free(owner);
    return -1;
  }
  for (size_t a = 0; a < nn; a++)
    w->own_at[2 * owner[a] + 1]++;
  for (size_t e = 0; e < ne; e++)
    w->own_at[2 * eowner[e] + 2]++;
  for (size_t q = 0; q < 2 * ntris; q++)
    w->own_at[q + 1] += w->own_at[q];
  /* Fill, each slot's start moving to its end, then shifted back. */
  for (size_t a = 0; a < nn; a++)
    w->own[w->own_at[2 * owner[a]]++] = a;
  for (size_t e = 0; e < ne; e++)
    w->own[w->own_at[2 * eowner[e] + 1]++] = nn + ntris + e;
  for (size_t q = 2 * ntris; q > 0; q--)
    w->own_at[q] = w->own_at[q - 1];
  w->own_at[0] = 0;
  free(owner);
  w->nbx = nn + ntris + ne;
  w->have_kept = 0;
  w->bx = malloc(w->nbx * sizeof *w->bx);
  if (!w->bx)
    return -1;
  w->ntris = ntris, w->nedges = ne, w->nn = nn, w->top = top;
  return 0;
}

/* A cell's bucket in a table of T (a power of two) buckets. */
static size_t bucket(const long long *ix, size_t T)
{
  unsigned long long h = (unsigned long long)ix[0] * 73856093ULL ^ (unsigned long long)ix[1] * 19349663ULL ^
                         (unsigned long long)ix[2] * 83492791ULL;
  h ^= h >> 29;
  return (size_t)(h & (T - 1));
}

/* Box b's first and last cells along each axis. */
static void cells(const box *b, const double *o, double cs, long long *c0, long long *c1)
{
  for (int k = 0; k < 3; k++) {
    c0[k] = (long long)floor((b->lo[k] - o[k]) / cs);
    c1[k] = (long long)floor((b->hi[k] - o[k]) / cs);
  }
}

/* The pair of boxes a and b, overlapping: hand it to the pair tests, an
   edge pair with the edge of the lower swept box (along x, then by index)
   first, as a sweep along x would (the distance of the pair is taken in
   that order, the same in both passes). */
static void pair_of(ctx *c, size_t a, size_t b)
{
  const box *bx = c->ub;
  size_t nn = c->nn, nt = c->ntris;
  int donly = c->distances_only || (c->grown && !overlap(&bx[a], &bx[b]));
  if (a < nn || b < nn) { /* a node and a triangle */
    size_t n = a < nn ? a : b, t = a < nn ? b : a;
    pair_vf(c, n, c->nodes[n], t - nn, donly);
    return;
  }
  if (bx[a].lo[0] > bx[b].lo[0] || (bx[a].lo[0] == bx[b].lo[0] && a > b)) {
    size_t t = a;
    a = b, b = t;
  }
  pair_ee(c, a - nn - nt, b - nn - nt, donly);
}

/*
 * The pairs of the pass's boxes (c->cur) met through triangles ta and tb
 * (ta != tb), whose boxes overlap: each node of one against the other
 * triangle, each edge of one against each edge of the other, the elements
 * being the triangles' own (a node's or an edge's own triangle is the
 * first that has it).  Every box of a pass is its element's particles'
 * box (at a state, or swept over the states, or either grown by one
 * amount), so along each axis an element's interval lies within that of
 * any triangle that has it, unless one of them is NaN there (a NaN bound
 * separates nothing).  So a node or an edge whose box has no NaN and
 * overlaps a box X has an own triangle whose box overlaps X, and a node
 * meeting a triangle, or an edge meeting an edge, is met here through the
 * pair of their own triangles, once (it is the pair's only such meeting;
 * a node's own triangle that is the triangle itself has it as a corner,
 * and two edges with one own triangle share a particle: neither is
 * replayed).  A node or an edge whose box has a NaN is passed over here
 * and met by loose_pass.
 */
static void expand(ctx *c, size_t ta, size_t tb)
{
  const box *bx = c->cur;
  const size_t *own = c->own, *at = c->own_at, *va = c->tris + 3 * ta, *vb = c->tris + 3 * tb;
  size_t nn = c->nn, nt = c->ntris, A = nn + ta, B = nn + tb;
  /* Pairs that share a particle are passed over first (pair_vf and
     pair_ee would pass them over): on a cloth, most of the pairs met. */
  for (size_t q = at[2 * ta]; q < at[2 * ta + 1]; q++) {
    size_t n = own[q], p = c->nodes[n];
    if (p != vb[0] && p != vb[1] && p != vb[2] && !c->nanb[n] && overlap(&bx[n], &bx[B]))
      pair_of(c, n, B);
  }
  for (size_t q = at[2 * tb]; q < at[2 * tb + 1]; q++) {
    size_t n = own[q], p = c->nodes[n];
    if (p != va[0] && p != va[1] && p != va[2] && !c->nanb[n] && overlap(&bx[n], &bx[A]))
      pair_of(c, n, A);
  }
  for (size_t q = at[2 * ta + 1]; q < at[2 * ta + 2]; q++) {
    size_t e = own[q];
    const size_t *pe = c->edges + 2 * (e - nn - nt);
    if (c->nanb[e])
      continue;
    for (size_t r = at[2 * tb + 1]; r < at[2 * tb + 2]; r++) {
      size_t f = own[r];
      const size_t *pf = c->edges + 2 * (f - nn - nt);
      if (pe[0] != pf[0] && pe[0] != pf[1] && pe[1] != pf[0] && pe[1] != pf[1] && !c->nanb[f] &&
          overlap(&bx[e], &bx[f]))
        pair_of(c, e, f);
    }
  }
}

/* Triangles ta and tb, whose boxes overlap: a kept pair (a build), else
   their elements' pairs. */
static void tri_pair(ctx *c, size_t ta, size_t tb)
{
  if (c->collect) {
    ref_replay_ws *w = c->collect;
    if (w->nkept + 2 > w->keptcap && grow(&w->kept, &w->keptcap, 2 * w->keptcap + 64, sizeof *w->kept)) {
      c->oom = 1;
      return;
    }
    w->kept[w->nkept++] = ta, w->kept[w->nkept++] = tb;
    return;
  }
  expand(c, ta, tb);
}

/*
 * The nodes and edges whose boxes in the pass have a NaN coordinate (a
 * state with a NaN coordinate; none in a run that stays finite): each
 * against every triangle (a node) or every edge (an edge; two such edges
 * once), where their boxes overlap.  expand passes them over.
 */
static void loose_pass(ctx *c)
{
  const box *bx = c->cur;
  size_t nn = c->nn, nt = c->ntris, ne = c->nedges;
  for (size_t n = 0; n < nn; n++)
    if (c->nanb[n])
      for (size_t t = 0; t < nt; t++)
        if (overlap(&bx[n], &bx[nn + t]))
          pair_of(c, n, nn + t);
  for (size_t e = nn + nt; e < nn + nt + ne; e++)
    if (c->nanb[e])
      for (size_t f = nn + nt; f < nn + nt + ne; f++)
        if (f != e && !(c->nanb[f] && f < e) && overlap(&bx[e], &bx[f]))
          pair_of(c, e, f);
}

/* Triangles a and b, entries met in bucket u (of T): their pair, if their
   boxes overlap and u is the bucket of the cell of their overlap's lower
   corner, the larger of their first cells along each axis (floor is
   monotone). */
static void grid_pair(ctx *c, const grid_rec *a, const grid_rec *b, size_t T, size_t u)
{
  if (!overlap(&a->b, &b->b))
    return;
  long long ix[3];
  for (int k = 0; k < 3; k++)
    ix[k] = a->c0[k] > b->c0[k] ? a->c0[k] : b->c0[k];
  if (bucket(ix, T) == u)
    tri_pair(c, a->id, b->id);
}

/* The median of v[0 .. n - 1] (n >= 1; v is reordered): quickselect. */
static double median(double *v, size_t n)
{
  size_t l = 0, r = n - 1, m = n / 2;
  while (l < r) {
    double pv = v[l + (r - l) / 2];
    size_t i = l, j = r;
    while (i <= j) {
      while (v[i] < pv)
        i++;
      while (v[j] > pv)
        j--;
      if (i <= j) {
        double t = v[i];
        v[i] = v[j], v[j] = t;
        i++;
        if (j == 0)
          break;
        j--;
      }
    }
    if (m <= j)
      r = j;
    else if (m >= i)
      l = i;
    else
      break;
  }
  return v[m];
}

#define MAX_SPAN 4 /* cells along an axis; a box that spans more is tested against all boxes */
#define CELL 2     /* the grid's cell, in median largest sides of the boxes (grid) */

static int grid(ref_replay_ws *w, ctx *c, const box *bx);
static int kept_pass(ref_replay_ws *w, ctx *c, const box *bx, int may_build);

#define SKIN 0.25   /* the kept pairs' skin, in median largest sides of the boxes (kept_pass) */
#define MAX_WAIT 32 /* the most calls made without keeping pairs after a list that served none */
/* The first pass's growth, in the last call's b (see below): b / 2 and a
   fifth more, so that a call whose b rose a little from the last needs no
   second pass.  On cloth-self-contact's first 700 steps (implicit) b / 2
   left 300 calls a second pass, 186 of them for a rise of b below 5 % and
   83 more below 20 %; with 0.6 the replay took 13 % fewer samples (0.55
   and 0.6 alike, 0.65 6 % more than 0.6, 0.75 25 % more). */
#define FIRST_GROW 0.6

int ref_replay_path_ws(ref_replay_ws *w, const size_t *tris, size_t ntris, const double *const *x, size_t nx,
                       double pad, ref_replay_report *rep)
{
  if (!w || !tris || !x || nx < 2 || !rep || !ntris || !(pad >= 0))
    return -1;
  for (size_t j = 0; j < nx; j++)
    if (!x[j])
      return -1;
  if (mesh(w, tris, ntris))
    return -1;
  memset(rep, 0, sizeof *rep);
  rep->min_dist = INFINITY;
  size_t nn = w->nn, ne = w->nedges, nb = w->nbx, top = w->top;
  /* Each piece's displacement of every particle. */
  if (grow(&w->disp, &w->dcap, (nx - 1) * (top + 1), sizeof *w->disp))
    return -1;
  for (size_t j = 0; j + 1 < nx; j++)
    for (size_t i = 0; i <= top; i++) {
      const double *a = x[j] + 3 * i, *b = x[j + 1] + 3 * i;
      double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      w->disp[j * (top + 1) + i] = sqrt(d3(d, d));
    }
  /* Each state's tame particles, each piece's particle boxes (paths of
     several pieces), and each element's points' box at the last state:
     tables of what the pair tests would otherwise compute pair by pair. */
  if (grow(&w->tm, &w->tmcap, nx * (top + 1), sizeof *w->tm) ||
      grow(&w->sb, &w->sbcap, w->nbx, sizeof *w->sb) ||
      (nx > 2 && grow(&w->pbx, &w->pbcap, (nx - 1) * (top + 1), sizeof *w->pbx)))
    return -1;
  memset(w->tm, 0, nx * (top + 1));
  for (size_t j = 0; j < nx; j++)
    for (size_t e = 0; e < nn; e++)
      w->tm[j * (top + 1) + w->nodes[e]] = (unsigned char)tame_point(x[j], w->nodes[e]);
  if (nx > 2)
    for (size_t j = 0; j + 1 < nx; j++)
      for (size_t e = 0; e < nn; e++)
        particle_piece_box(x[j], x[j + 1], w->nodes[e], &w->pbx[j * (top + 1) + w->nodes[e]]);
  for (size_t e = 0; e < nn; e++)
    point_box(x[nx - 1], &w->nodes[e], 1, &w->sb[e]);
  for (size_t t = 0; t < ntris; t++)
    point_box(x[nx - 1], tris + 3 * t, 3, &w->sb[nn + t]);
  for (size_t e = 0; e < ne; e++)
    point_box(x[nx - 1], w->edges + 2 * e, 2, &w->sb[nn + ntris + e]);
  /* Boxes swept over all the states, not grown: nodes, triangles, edges.
     Only node-triangle and edge-edge pairs are replayed, so only those
     are swept. */
  if (grow(&w->ub, &w->ubcap, nb, sizeof *w->ub) || grow(&w->qb, &w->qbcap, top + 1, sizeof *w->qb))
    return -1;
  particle_boxes(w->qb, w->nodes, nn, x, nx);
  element_boxes(w->ub, w->nodes, 1, nn, w->qb);
  element_boxes(w->ub + nn, tris, 3, ntris, w->qb);
  element_boxes(w->ub + nn + ntris, w->edges, 2, ne, w->qb);
  ctx c = {tris, w->edges, w->nodes, nn, ntris, x, nx, top, pad, w->disp, w->tm, w->pbx, w->sb, w->ub, 0, 0, pad, rep, NULL, 0,
           NULL, ne, w->own, w->own_at, NULL};
  /* The first pass: every pair whose swept boxes overlap (only those can
     touch), their distances at the last state on the way.  Its boxes are
     the swept ones grown by g, FIRST_GROW times the smallest distance
     within pad of the workspace's last call (0 at its first): a pair met
     only through the growth gets its distance alone.  g changes which
     pairs the passes meet, not the report (see the second pass). */
  double g = FIRST_GROW * w->last_best;
  box *bx = w->bx;
  const box *first = w->ub;
  if (g > 0) {
    for (size_t b = 0; b < nb; b++)
      for (int k = 0; k < 3; k++)
        bx[b].lo[k] = w->ub[b].lo[k] - g, bx[b].hi[k] = w->ub[b].hi[k] + g;
    first = bx;
    c.grown = 1;
  }
  if (kept_pass(w, &c, first, 1))
    return -1;
  w->last_best = c.best;
  /* The second: the distances at the last state of the pairs nearer than
     the smallest distance so far, b (at most pad): their boxes at that
     state lie within b of each other, so grown by b / 2 they overlap.
     Those boxes lie within the swept ones grown by b / 2: when b / 2 <= g
     the first pass met every such pair, each with its distance taken
     (its lower bound was at most b, and so at most the smallest distance
     when it was met), and there is no second pass. */
  double b2 = c.best / 2;
  if (!(b2 > 0) || b2 <= g)
    return 0;
  for (size_t b = 0; b < nb; b++)
    for (int k = 0; k < 3; k++)
      bx[b].lo[k] = w->sb[b].lo[k] - b2, bx[b].hi[k] = w->sb[b].hi[k] + b2;
  c.distances_only = 1;
  c.grown = 0;
  return kept_pass(w, &c, bx, 0);
}

/* The largest sides of the finite boxes among bx[0 .. nb - 1], into side
   (their count returned), and the least corner o of those boxes. */
static size_t finite_sides(const box *bx, size_t nb, double *side, double o[3])
{
  size_t nfin = 0;
  o[0] = o[1] = o[2] = INFINITY;
  for (size_t b = 0; b < nb; b++) {
    double m = 0;
    int fin = 1;
    for (int k = 0; k < 3; k++) {
      fin = fin && isfinite(bx[b].lo[k]) && isfinite(bx[b].hi[k]);
      m = fmax(m, bx[b].hi[k] - bx[b].lo[k]);
    }
    if (fin) {
      for (int k = 0; k < 3; k++)
        o[k] = fmin(o[k], bx[b].lo[k]);
      side[nfin++] = m;
    }
  }
  return nfin;
}

/* Does every box bx[b] lie within its fat box (a NaN coordinate: no)? */
static int within(const box *bx, const box *fat, size_t nb)
{
  for (size_t b = 0; b < nb; b++)
    for (int k = 0; k < 3; k++)
      if (!(fat[b].lo[k] <= bx[b].lo[k] && bx[b].hi[k] <= fat[b].hi[k]))
        return 0;
  return 1;
}

/*
 * Is there a translation t with every box bx[b] - t within its fat box?
 * Boxes overlap exactly when their translates by one t do, so then too two
 * boxes that overlap have fat boxes that overlap.  Along axis k, t_k must
 * lie in [max_b (hi - fat.hi), min_b (lo - fat.lo)]; the interval is
 * taken as not empty only when it is wider than 1e-12 of the largest
 * coordinate (plus 1e-12 m), far above the rounding of the differences
 * (1e-16 relative), so that its midpoint satisfies every inequality
 * exactly.  A coordinate that is not finite: no.
 */
static int within_moved(const box *bx, const box *fat, size_t nb)
{
  double lo[3] = {-INFINITY, -INFINITY, -INFINITY}, hi[3] = {INFINITY, INFINITY, INFINITY}, mag = 0;
  for (size_t b = 0; b < nb; b++)
    for (int k = 0; k < 3; k++) {
      double a = bx[b].hi[k] - fat[b].hi[k], c = bx[b].lo[k] - fat[b].lo[k];
      if (!isfinite(a) || !isfinite(c))
        return 0;
      lo[k] = a > lo[k] ? a : lo[k];
      hi[k] = c < hi[k] ? c : hi[k];
      double m = fmax(fmax(fabs(bx[b].lo[k]), fabs(bx[b].hi[k])), fmax(fabs(fat[b].lo[k]), fabs(fat[b].hi[k])));
      mag = m > mag ? m : mag;
    }
  for (int k = 0; k < 3; k++)
    if (!(hi[k] - lo[k] > 1e-12 * (mag + 1)))
      return 0;
  return 1;
}

/*
 * One pass over the pairs of the boxes bx that overlap, met through the
 * pairs of triangles whose boxes overlap (expand), those by the kept
 * pairs.  The kept pairs are the pairs of triangles whose fat boxes
 * overlap, each fat box a triangle's box of the pass that built them
 * grown by the skin s (a quarter of the median largest side of those
 * boxes).  While every triangle's box of a pass lies within its fat box,
 * or within it moved by one translation common to all (within_moved: a
 * cloth that falls or drifts as a whole), two triangles whose boxes
 * overlap have fat boxes that overlap, so the triangle pairs of the pass
 * are the kept pairs whose boxes overlap, each once: the pass tests those
 * and no grid is made.  Otherwise a pass that may build (the first)
 * makes the grid of the triangles' boxes grown by s and keeps its pairs;
 * the other (the second pass) makes the grid of its own boxes.  Where the
 * mesh moves past the skin at every call, the grid of the grown boxes
 * costs more than the plain one and its pairs serve nothing: after a list
 * that served no call, the next 1, 2, 4, ... (at most MAX_WAIT) first
 * passes make the plain grid and keep nothing, and a list that serves a
 * call ends the wait.  The nodes and edges whose boxes have a NaN are
 * met by loose_pass.
 * Within a pass the report does not depend on the order in which the
 * pairs are met (sums, and the smallest distance: a pair not given its
 * distance when met has a lower bound above the smallest one so far).
 */
static int kept_pass(ref_replay_ws *w, ctx *c, const box *bx, int may_build)
{
  size_t nn = w->nn, nt = w->ntris, nb = w->nbx;
  const box *tb = bx + nn; /* the triangles' boxes */
  if (grow(&w->nanb, &w->nancap, nb, sizeof *w->nanb))
    return -1;
  for (size_t b = 0; b < nb; b++) {
    int nan = 0;
    for (int k = 0; k < 3; k++)
      nan |= isnan(bx[b].lo[k]) | isnan(bx[b].hi[k]);
    w->nanb[b] = (unsigned char)nan;
  }
  c->cur = bx;
  c->nanb = w->nanb;
  loose_pass(c);
  int use = w->have_kept && (within(tb, w->fat, nt) || within_moved(tb, w->fat, nt));
  if (!use && !may_build)
    return grid(w, c, tb);
  if (use && may_build) {
    w->reuses++;
    w->reused = 1;
    w->backoff = 0;
  } else if (!use) {
    if (w->have_kept && !w->reused) { /* a list that served no call: wait before the next */
      w->backoff = w->backoff ? (w->backoff < MAX_WAIT ? 2 * w->backoff : MAX_WAIT) : 1;
      w->wait = w->backoff;
    }
    w->have_kept = 0;
    if (w->wait) {
      w->wait--;
      w->plain++;
      return grid(w, c, tb);
    }
    if (grow(&w->fat, &w->fatcap, nt, sizeof *w->fat) || grow(&w->side, &w->scap, nt + 1, sizeof *w->side))
      return -1;
    double o[3];
    size_t nfin = finite_sides(tb, nt, w->side, o);
    double s = nfin ? SKIN * median(w->side, nfin) : 0;
    if (!(s >= 0) || !isfinite(s))
      s = 0;
    for (size_t t = 0; t < nt; t++)
      for (int k = 0; k < 3; k++)
        w->fat[t].lo[k] = tb[t].lo[k] - s, w->fat[t].hi[k] = tb[t].hi[k] + s;
    w->nkept = 0;
    c->collect = w;
    c->oom = 0;
    int rc = grid(w, c, w->fat);
    c->collect = NULL;
    if (rc || c->oom)
      return -1;
    w->have_kept = 1;
    w->reused = 0;
    w->builds++;
  }
  const size_t *kp = w->kept;
  for (size_t q = 0; q < w->nkept; q += 2)
    if (overlap(&tb[kp[q]], &tb[kp[q + 1]]))
      expand(c, kp[q], kp[q + 1]);
  return 0;
}

void ref_replay_ws_counts(const ref_replay_ws *w, size_t *builds, size_t *reuses, size_t *plain)
{
  if (builds)
    *builds = w ? w->builds : 0;
  if (reuses)
    *reuses = w ? w->reuses : 0;
  if (plain)
    *plain = w ? w->plain : 0;
}

/* The pairs of triangles whose boxes tb (one per triangle) overlap,
   handed to tri_pair; 0, or -1 out of memory. */
static int grid(ref_replay_ws *w, ctx *c, const box *tb)
{
  size_t nb = w->ntris;
  /*
   * The broad phase: a uniform grid of cubes of side cs, CELL times the
   * boxes' median largest side, hashed into T buckets.  A box goes into
   * the bucket of each cell it meets (once per bucket); two boxes that
   * overlap meet in the cell of the lower corner of their overlap, and are
   * tested there only (in that cell's bucket, where each of them is once):
   * each overlapping pair once.  A box that spans more than MAX_SPAN cells
   * along an axis, or is not finite, is tested against every box instead.
   * The pairs met are the same for any cell size; the size sets the work.
   * Cells of one median side put a typical box into 8 cells, and often
   * 27 (a box grown by the skin); twice that, mostly into 1 to 8, with
   * more boxes to a bucket.  (Measured when the grid held every node's,
   * triangle's and edge's box, over the first 600 steps of
   * cloth-self-contact's nine replays: 22 s of CPU with one median side,
   * 15 s with two, 17 s with three and 20 s with four.)
   */
  double o[3];
  if (grow(&w->side, &w->scap, nb + 1, sizeof *w->side))
    return -1;
  size_t nfin = finite_sides(tb, nb, w->side, o);
  /* From the median side (a few huge boxes do not coarsen the grid). */
  double cs = nfin ? CELL * median(w->side, nfin) : 1;
  if (!(cs > 0) || !isfinite(cs))
    cs = 1;
  /* Each box's entries: cell_of[b] .. cell_of[b + 1] (none for a box
     tested against all, listed in big). */
  size_t nent = 0, nbig = 0;
  if (grow(&w->cell_of, &w->tcap, nb + 1, sizeof *w->cell_of) || grow(&w->big, &w->bcap, nb + 1, sizeof *w->big) ||
      grow(&w->c0, &w->ccap, 6 * nb + 6, sizeof *w->c0))
    return -1;
  for (size_t b = 0; b < nb; b++) {
    long long *c0 = w->c0 + 6 * b, *c1 = c0 + 3;
    int big = !nfin;
    for (int k = 0; k < 3 && !big; k++)
      big = !isfinite(tb[b].lo[k]) || !isfinite(tb[b].hi[k]) || (tb[b].hi[k] - o[k]) / cs > 1e15;
    if (!big) {
      cells(&tb[b], o, cs, c0, c1);
      for (int k = 0; k < 3; k++)
        big = big || c1[k] - c0[k] + 1 > MAX_SPAN;
    }
    w->cell_of[b] = nent;
    if (big)
      w->big[nbig++] = b;
    else
      nent += (size_t)((c1[0] - c0[0] + 1) * (c1[1] - c0[1] + 1) * (c1[2] - c0[2] + 1));
  }
  w->cell_of[nb] = nent;
  size_t T = 1;
  while (T < 2 * nent + 1)
    T <<= 1;
  /* count: T + 1 bucket bounds, then each entry's bucket; entry: the boxes by bucket. */
  if (grow(&w->count, &w->ecap, T + 1 + nent, sizeof *w->count) ||
      grow(&w->entry, &w->ncap, nent + 1, sizeof *w->entry))
    return -1;
  size_t *cnt = w->count, *bk = w->count + T + 1;
  grid_rec *ent = w->entry;
  memset(cnt, 0, (T + 1) * sizeof *cnt);
  for (size_t b = 0; b < nb; b++) {
    size_t first = w->cell_of[b], k = first;
    if (first == w->cell_of[b + 1])
      continue;
    const long long *c0 = w->c0 + 6 * b, *c1 = c0 + 3;
    long long ix[3];
    for (ix[0] = c0[0]; ix[0] <= c1[0]; ix[0]++)
      for (ix[1] = c0[1]; ix[1] <= c1[1]; ix[1]++)
        for (ix[2] = c0[2]; ix[2] <= c1[2]; ix[2]++) {
          size_t u = bucket(ix, T);
          int dup = 0;
          for (size_t q = first; q < k && !dup; q++)
            dup = bk[q] == u;
          bk[k++] = dup ? SIZE_MAX : u;
          if (!dup)
            cnt[u + 1]++;
        }
  }
  for (size_t u = 0; u < T; u++)
    cnt[u + 1] += cnt[u];
  /* Fill: cnt[u] moves from bucket u's start to its end. */
  for (size_t b = 0; b < nb; b++)
    for (size_t q = w->cell_of[b]; q < w->cell_of[b + 1]; q++)
      if (bk[q] != SIZE_MAX) {
        grid_rec *r = &ent[cnt[bk[q]]++];
        r->b = tb[b];
        memcpy(r->c0, w->c0 + 6 * b, sizeof r->c0);
        r->id = b;
      }
  /* cnt[u] is now the end of bucket u; its start is cnt[u - 1] (0 for
     u = 0). */
  for (size_t u = 0; u < T; u++) {
    size_t s0 = u ? cnt[u - 1] : 0, e = cnt[u];
    for (size_t i = s0; i < e; i++)
      for (size_t j = i + 1; j < e; j++)
        grid_pair(c, &ent[i], &ent[j], T, u);
  }
  /* The boxes tested against all: each pair with another such box once. */
  for (size_t i = 0; i < nbig; i++) {
    size_t a = w->big[i];
    for (size_t b = 0; b < nb; b++) {
      int bbig = w->cell_of[b] == w->cell_of[b + 1];
      if (b == a || (bbig && b < a))
        continue;
      if (overlap(&tb[a], &tb[b]))
        tri_pair(c, a, b);
    }
  }
  return 0;
}

int ref_replay_path(const size_t *tris, size_t ntris, const double *const *x, size_t nx, double pad,
                    ref_replay_report *rep)
{
  ref_replay_ws *w = ref_replay_ws_new();
  if (!w)
    return -1;
  int rc = ref_replay_path_ws(w, tris, ntris, x, nx, pad, rep);
  ref_replay_ws_free(w);
  return rc;
}

int ref_replay(const size_t *tris, size_t ntris, const double *x0, const double *x1, double pad,
               ref_replay_report *rep)
{
  const double *x[2] = {x0, x1};
  if (!x0 || !x1)
    return -1;
  return ref_replay_path(tris, ntris, x, 2, pad, rep);
}
