/*
 * reference/ccd_filter.c: a certified floating-point filter in front of
 * the exact continuous-collision test (ccd_filter.h).  The polynomials
 * are those of reference/ccd_exact.c (Provot 1997 and Bridson, Fedkiw,
 * Anderson 2002 for the coplanarity cubic), written here again, in the
 * Bernstein basis (Farouki and Rajan 1988, "Algorithms for polynomials in
 * Bernstein form") and evaluated in interval arithmetic with outward
 * rounding (Moore, Kearfott and Cloud 2009, "Introduction to Interval
 * Analysis", ch. 3 and 5):
 *
 *   node-triangle  n = (b - a) x (c - a),  f = n . (p - a)          (cubic)
 *                  s_ab = n . ((b - a) x (p - a)), s_bc, s_ca alike (quartics)
 *   edge-edge      u = q - p, v = s - r, w = r - p, m = u x v,
 *                  f = m . w                                        (cubic)
 *                  A = (w x v) . m,  B = (w x u) . m,  mm = m . m   (quartics)
 *                  conditions A, mm - A, B, mm - B
 *
 * A contact at t is f(t) = 0 with every condition >= 0 (node-triangle:
 * the node in the plane and inside each side; edge-edge: the lines meet
 * at parameters A / mm and B / mm in [0, 1]).  Where the triangle has no
 * area (n = 0) or the edges are parallel (m = 0), f and every condition
 * are 0.
 *
 * Pieces.  On a piece [ta, tb] of [0, 1] every point moves linearly from
 * its position at ta to that at tb, so with u = (t - ta) / (tb - ta) each
 * coordinate difference is d(u) = (1 - u) d(ta) + u d(tb), and a product
 * of k of them is a form sum_j s_j (1 - u)^(k - j) u^j whose coefficients
 * are the convolutions of the factors' (ta, tb) pairs (the Bernstein
 * coefficients times the binomials C(k, j) > 0: the same signs).  If every
 * s_j > 0, the polynomial is > 0 on the closed piece (s_0 and s_k are its
 * values at the ends, and every term is >= 0 in between); likewise < 0.
 * A piece is apart when f has one strict sign there, or when some
 * condition is strictly negative throughout: a contact needs f = 0 and
 * every condition >= 0, and a degenerate instant (n = 0, m = 0, an edge
 * of no length) has f = 0 and the conditions 0, so it is excluded too.
 * A piece touches when every condition is strictly positive on it and f
 * has strictly opposite signs at its ends: f has a root t* there (it is
 * continuous), and at t* the node is inside the triangle (n != 0, as
 * s_ab > 0) or the segments cross at interior parameters (m != 0, as
 * A > 0).  [0, 1] is bisected, depth first, up to MAX_DEPTH halvings and
 * MAX_PIECES pieces in all: apart if every piece is apart, touching as
 * soon as one piece touches, otherwise unsure.  Before that, the exact
 * test's own first early out is repeated exactly (comparisons of doubles):
 * along an axis the node beyond every vertex of the triangle (an edge's
 * ends beyond the other's) at t = 0 and at t = 1 alike; there the exact
 * test answers 0, whatever else holds.
 *
 * What the exact test answers.  Apart: no t in [0, 1] has f = 0 with
 * every condition >= 0 (or the axis test separates the parties, where the
 * exact test answers 0 first), so it has no candidate and answers 0,
 * never REF_CCD_DEGENERATE (which it gives only at a candidate;
 * edge-edge: every end-on-edge event it considers is a contact of the
 * closed segments, excluded as well).  Touching: a contact exists at some
 * t* <= t_hi, the end of the touching piece, and the filter also requires
 * the elements never to degenerate, proved piece by piece over a bisection
 * (the same limits, a count of its own): node-triangle, the triangle has
 * area on [0, t_hi] (on each piece some component of n, or |n|^2, of one
 * strict sign); the exact test takes the earliest candidate, which is at
 * or before t*, so it is not degenerate and the answer is 1.  Edge-edge,
 * both edges have length on all of [0, 1] (on each piece a component of u
 * of one strict sign at both ends, u being linear, or the three
 * coefficients of |u|^2 positive; the same for v): the exact test orders
 * its crossing and its end-on-edge events by the low ends of their
 * brackets, so every event of the step must be non-degenerate; then each
 * is 1, and so is the answer.
 *
 * Rounding.  Every interval holds the exact real value of what it stands
 * for: the inputs are the doubles themselves, a position at ta in (0, 1)
 * is x0 + ta (x1 - x0) evaluated on intervals (ta is the dyadic k 2^-d,
 * exact), and each operation on intervals [a] op [b] computes the bounds
 * of the exact result's range (for a product the least and greatest of
 * the four end products) in floating point, then moves each bound one
 * double outward (next_down, next_up: the neighbouring double, by its
 * bits).  A correctly rounded result (IEEE 754 binary64, any rounding
 * direction: the result is one of the two doubles that bracket the exact
 * value, subnormals included) is at most one double away from the exact
 * value, so the moved bounds enclose it; for a product the bound moved
 * from the least rounded end product is below the least exact one,
 * rounding being monotone.  By induction every coefficient's interval
 * holds the exact coefficient of the exact polynomial of the piece, and
 * each decision above is a strict inequality on a bound, hence true of the
 * exact value.  Overflow cannot occur: with every coordinate below 2^200
 * in magnitude (else UNSURE), positions are below 3 2^200, differences
 * below 2^203, and a quartic's coefficients (sums of at most 2^12 products
 * of four differences, the binomials included) below 2^12 2^812 < 2^1024;
 * so no infinity and no NaN arise.  Underflow is covered by the same
 * one-double step (the least subnormal).  Nothing depends on the rounding
 * mode, but intermediate results must be doubles (FLT_EVAL_METHOD 0, no
 * excess precision; checked at compile time); each bound passes through
 * next_up or next_down before it is used again, so no multiply-add can be
 * fused across an operation.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "reference/ccd_exact.h"
#include "reference/ccd_filter.h"

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0 || DBL_MANT_DIG != 53 || DBL_MAX_EXP != 1024
#error "ccd_filter.c needs IEEE 754 binary64 doubles evaluated without excess precision (FLT_EVAL_METHOD 0)"
#endif

/* Bisection limits: the depth bounds the shortest piece (2^-MAX_DEPTH of
   the step), the count bounds the work of one query (each piece costs a
   few hundred interval products).  They decide only how often the filter
   is unsure, never what it answers otherwise. */
#define MAX_DEPTH 10
#define MAX_PIECES 128

/* Coordinates at or beyond this magnitude are not filtered (see the
   header's overflow bound). */
static const double COORD_LIMIT = 0x1p200;

/* ---- outward rounding ------------------------------------------------------------------- */

/* The least double above x (x finite or -infinity, not NaN). */
static double next_up(double x)
{
  if (x == 0)
    return DBL_TRUE_MIN;
  if (x == INFINITY)
    return x;
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  if (x > 0)
    u++;
  else
    u--; /* a negative number's magnitude, one double smaller */
  memcpy(&x, &u, sizeof x);
  return x;
}

static double next_down(double x) { return -next_up(-x); }

typedef struct {
  double lo, hi;
} iv;

static iv i_pt(double x) { return (iv){x, x}; }

static iv i_add(iv a, iv b) { return (iv){next_down(a.lo + b.lo), next_up(a.hi + b.hi)}; }

static iv i_sub(iv a, iv b) { return (iv){next_down(a.lo - b.hi), next_up(a.hi - b.lo)}; }

/* The smaller and the larger of two doubles that are not NaN (the bounds
   here are finite: see COORD_LIMIT), by comparisons the compiler inlines,
   where fmin and fmax are calls into libm (a tenth of cloth-contact's
   samples).  They return y when x == y, as glibc's fmin and fmax do on
   x86-64 (minsd, maxsd), so a zero's sign is the same as theirs; either
   zero is a valid bound. */
static double min2(double x, double y) { return x < y ? x : y; }
static double max2(double x, double y) { return x > y ? x : y; }

static iv i_mul(iv a, iv b)
{
  double p0 = a.lo * b.lo, p1 = a.lo * b.hi, p2 = a.hi * b.lo, p3 = a.hi * b.hi;
  double lo = min2(min2(p0, p1), min2(p2, p3)), hi = max2(max2(p0, p1), max2(p2, p3));
  return (iv){next_down(lo), next_up(hi)};
}

/* ---- forms in (1 - u, u) ------------------------------------------------------------------ */

/* sum_j c[j] (1 - u)^(deg - j) u^j, deg <= 4 (kept by the caller). */
typedef struct {
  iv c[5];
} form;

typedef struct {
  form x[3];
} vform;

/* r = a b, a of degree da, b of degree db. */
static void f_mul(form *r, const form *a, int da, const form *b, int db)
{
  form t;
  for (int k = 0; k <= da + db; k++) {
    int have = 0;
    for (int i = 0; i <= da; i++) {
      int j = k - i;
      if (j < 0 || j > db)
        continue;
      iv p = i_mul(a->c[i], b->c[j]);
      t.c[k] = have ? i_add(t.c[k], p) : p;
      have = 1;
    }
  }
  *r = t;
}

static void f_add(form *r, const form *a, const form *b, int d, int sign)
{
  for (int k = 0; k <= d; k++)
    r->c[k] = sign > 0 ? i_add(a->c[k], b->c[k]) : i_sub(a->c[k], b->c[k]);
}

/* +1 / -1 when every coefficient is strictly of that sign, else 0. */
static int f_sign(const form *a, int d)
{
  int pos = 1, neg = 1;
  for (int k = 0; k <= d; k++) {
    pos = pos && a->c[k].lo > 0;
    neg = neg && a->c[k].hi < 0;
  }
  return pos ? 1 : neg ? -1 : 0;
}

/* r = a x b, a and b of degree da, db (component by component). */
static void v_cross(vform *r, const vform *a, int da, const vform *b, int db)
{
  vform t;
  for (int k = 0; k < 3; k++) {
    int i = (k + 1) % 3, j = (k + 2) % 3;
    form p, q;
    f_mul(&p, &a->x[i], da, &b->x[j], db);
    f_mul(&q, &a->x[j], da, &b->x[i], db);
    f_add(&t.x[k], &p, &q, da + db, -1);
  }
  *r = t;
}

static void v_dot(form *r, const vform *a, int da, const vform *b, int db)
{
  form acc, p;
  f_mul(&acc, &a->x[0], da, &b->x[0], db);
  for (int k = 1; k < 3; k++) {
    f_mul(&p, &a->x[k], da, &b->x[k], db);
    f_add(&acc, &acc, &p, da + db, 1);
  }
  *r = acc;
}

/* ---- points on a piece ------------------------------------------------------------------ */

/* Positions of the four points at one time, as intervals. */
typedef struct {
  iv x[4][3];
} frame;

/* The four points at t (a dyadic in [0, 1]): the doubles themselves at 0
   and 1, else x0 + t (x1 - x0) on intervals. */
static void frame_at(frame *fr, const double (*const *pts)[3], double t)
{
  for (int j = 0; j < 4; j++)
    for (int k = 0; k < 3; k++) {
      double a = pts[j][0][k], b = pts[j][1][k];
      if (t == 0)
        fr->x[j][k] = i_pt(a);
      else if (t == 1)
        fr->x[j][k] = i_pt(b);
      else
        fr->x[j][k] = i_add(i_pt(a), i_mul(i_pt(t), i_sub(i_pt(b), i_pt(a))));
    }
}

/* The linear form of point i minus point j over the piece from f0 to f1. */
static void v_diff(vform *r, const frame *f0, const frame *f1, int i, int j)
{
  for (int k = 0; k < 3; k++) {
    r->x[k].c[0] = i_sub(f0->x[i][k], f0->x[j][k]);
    r->x[k].c[1] = i_sub(f1->x[i][k], f1->x[j][k]);
  }
}

/* ---- the pieces ----------------------------------------------------------------------------- */

typedef struct {
  const double (*const *pts)[3];
  int ee;
  int pieces;  /* evaluated so far */
  double t_hi; /* the end of the piece found touching */
} query;

enum { P_APART, P_TOUCH, P_UNSURE, P_SPLIT };

/* Node p = 0 against triangle 1, 2, 3 on the piece. */
static int piece_vf(const frame *f0, const frame *f1)
{
  vform ba, ca, pa, n, e, d1, d2;
  form f, s;
  v_diff(&ba, f0, f1, 2, 1);
  v_diff(&ca, f0, f1, 3, 1);
  v_diff(&pa, f0, f1, 0, 1);
  v_cross(&n, &ba, 1, &ca, 1);
  v_dot(&f, &n, 2, &pa, 1);
  if (f_sign(&f, 3))
    return P_APART;
  /* The sides a b, b c, c a: s = n . ((y - x) x (p - x)). */
  static const int side[3][2] = {{1, 2}, {2, 3}, {3, 1}};
  int inside = 1;
  for (int k = 0; k < 3; k++) {
    int x = side[k][0], y = side[k][1];
    v_diff(&d1, f0, f1, y, x);
    v_diff(&d2, f0, f1, 0, x);
    v_cross(&e, &d1, 1, &d2, 1);
    v_dot(&s, &n, 2, &e, 2);
    int sg = f_sign(&s, 4);
    if (sg < 0)
      return P_APART;
    inside = inside && sg > 0;
  }
  if (inside && ((f.c[0].hi < 0 && f.c[3].lo > 0) || (f.c[0].lo > 0 && f.c[3].hi < 0)))
    return P_TOUCH;
  return P_SPLIT;
}

/* Edges 0 1 and 2 3 on the piece. */
static int piece_ee(const frame *f0, const frame *f1)
{
  vform u, v, w, m, e;
  form f, mm, A, B, r;
  v_diff(&u, f0, f1, 1, 0);
  v_diff(&v, f0, f1, 3, 2);
  v_diff(&w, f0, f1, 2, 0);
  v_cross(&m, &u, 1, &v, 1);
  v_dot(&f, &m, 2, &w, 1);
  if (f_sign(&f, 3))
    return P_APART;
  v_dot(&mm, &m, 2, &m, 2);
  v_cross(&e, &w, 1, &v, 1);
  v_dot(&A, &e, 2, &m, 2);
  v_cross(&e, &w, 1, &u, 1);
  v_dot(&B, &e, 2, &m, 2);
  int inside = 1;
  for (int k = 0; k < 4; k++) {
    const form *c = k < 2 ? &A : &B;
    if (k % 2) {
      f_add(&r, &mm, c, 4, -1);
      c = &r;
    }
    int sg = f_sign(c, 4);
    if (sg < 0)
      return P_APART;
    inside = inside && sg > 0;
  }
  if (inside && ((f.c[0].hi < 0 && f.c[3].lo > 0) || (f.c[0].lo > 0 && f.c[3].hi < 0)))
    return P_TOUCH;
  return P_SPLIT;
}

/*
 * The piece [ta, tb] (points f0 at ta, f1 at tb): apart, touching or
 * unsure, bisecting as the limits allow.  After an unsure half the other
 * is still tried, for a touch (a contact there is a contact of the step);
 * every evaluated piece counts against MAX_PIECES.
 */
static int piece(query *q, double ta, double tb, const frame *f0, const frame *f1, int depth)
{
  q->pieces++;
  int r = q->ee ? piece_ee(f0, f1) : piece_vf(f0, f1);
  if (r == P_TOUCH)
    q->t_hi = tb;
  if (r != P_SPLIT)
    return r;
  if (depth == MAX_DEPTH || q->pieces >= MAX_PIECES)
    return P_UNSURE;
  double tm = 0.5 * (ta + tb); /* exact: a dyadic of at most MAX_DEPTH + 1 bits */
  frame fm;
  frame_at(&fm, q->pts, tm);
  int left = piece(q, ta, tm, f0, &fm, depth + 1);
  if (left == P_TOUCH)
    return P_TOUCH;
  if (left == P_UNSURE && q->pieces >= MAX_PIECES)
    return P_UNSURE;
  int right = piece(q, tm, tb, &fm, f1, depth + 1);
  if (right == P_TOUCH)
    return P_TOUCH;
  return left == P_APART && right == P_APART ? P_APART : P_UNSURE;
}

/* ---- non-degeneracy ------------------------------------------------------------------------- */

/* Has the triangle 1 2 3 area throughout the piece?  Some component of
   n of one strict sign, or |n|^2 > 0 by its coefficients. */
static int piece_area(const frame *f0, const frame *f1)
{
  vform ba, ca, n;
  v_diff(&ba, f0, f1, 2, 1);
  v_diff(&ca, f0, f1, 3, 1);
  v_cross(&n, &ba, 1, &ca, 1);
  for (int k = 0; k < 3; k++)
    if (f_sign(&n.x[k], 2))
      return 1;
  form nn;
  v_dot(&nn, &n, 2, &n, 2);
  return f_sign(&nn, 4) > 0;
}

/* Has the edge i j length throughout the piece?  A component of one
   strict sign at both ends (it is linear), or |u|^2 > 0 by its three
   coefficients. */
static int piece_length(const frame *f0, const frame *f1, int i, int j)
{
  vform u;
  v_diff(&u, f0, f1, j, i);
  for (int k = 0; k < 3; k++)
    if (f_sign(&u.x[k], 1))
      return 1;
  form uu;
  v_dot(&uu, &u, 1, &u, 1);
  return f_sign(&uu, 2) > 0;
}

/* Is the triangle (node-triangle) or is each edge (edge-edge) free of
   degeneracy on [ta, tb]?  Bisected like the pieces, within the same
   limits. */
static int nondegenerate(query *q, double ta, double tb, const frame *f0, const frame *f1, int depth)
{
  q->pieces++;
  int ok = q->ee ? piece_length(f0, f1, 0, 1) && piece_length(f0, f1, 2, 3) : piece_area(f0, f1);
  if (ok)
    return 1;
  if (depth == MAX_DEPTH || q->pieces >= MAX_PIECES)
    return 0;
  double tm = 0.5 * (ta + tb);
  frame fm;
  frame_at(&fm, q->pts, tm);
  return nondegenerate(q, ta, tm, f0, &fm, depth + 1) && nondegenerate(q, tm, tb, &fm, f1, depth + 1);
}

/* ---- the queries --------------------------------------------------------------------------- */

/* REF_CCD_EINVAL for a NULL or non-finite point, 1 when every coordinate
   is below COORD_LIMIT in magnitude, else 0. */
static int check_points(const double (*const *pts)[3])
{
  int tame = 1;
  for (int j = 0; j < 4; j++) {
    if (!pts[j])
      return REF_CCD_EINVAL;
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 3; k++) {
        double v = pts[j][i][k];
        if (!isfinite(v))
          return REF_CCD_EINVAL;
        tame = tame && fabs(v) < COORD_LIMIT;
      }
  }
  return tame;
}

/* Along some axis, are the first na points strictly beyond the other
   4 - na, at t = 0 and at t = 1 alike (exact comparisons of doubles)? */
static int apart_on_axis(const double (*const *pts)[3], int na)
{
  for (int k = 0; k < 3; k++) {
    int above = 1, below = 1;
    for (int i = 0; i < 2; i++)
      for (int a = 0; a < na; a++)
        for (int b = na; b < 4; b++) {
          above = above && pts[a][i][k] > pts[b][i][k];
          below = below && pts[a][i][k] < pts[b][i][k];
        }
    if (above || below)
      return 1;
  }
  return 0;
}

static int filter(const double (*const *pts)[3], int ee)
{
  int rc = check_points(pts);
  if (rc < 0)
    return rc;
  if (apart_on_axis(pts, ee ? 2 : 1))
    return REF_FILTER_APART;
  if (!rc)
    return REF_FILTER_UNSURE;
  frame f0, f1;
  frame_at(&f0, pts, 0);
  frame_at(&f1, pts, 1);
  query q = {pts, ee, 0, 1};
  int r = piece(&q, 0, 1, &f0, &f1, 0);
  if (r == P_APART)
    return REF_FILTER_APART;
  if (r == P_TOUCH) {
    /* Node-triangle: the exact test takes the earliest candidate, at or
       before the touching piece's end t_hi, so area up to t_hi is
       enough.  Edge-edge: it compares its events by the low ends of
       their brackets, so the whole step is asked for. */
    frame fe;
    double te = ee ? 1 : q.t_hi;
    frame_at(&fe, pts, te);
    q.pieces = 0; /* a budget of its own */
    if (nondegenerate(&q, 0, te, &f0, &fe, 0))
      return REF_FILTER_TOUCH;
  }
  return REF_FILTER_UNSURE;
}

int ref_filter_vf(const double p[2][3], const double a[2][3], const double b[2][3], const double c[2][3])
{
  const double (*pts[4])[3] = {p, a, b, c};
  return filter(pts, 0);
}

int ref_filter_ee(const double p[2][3], const double q[2][3], const double r[2][3], const double s[2][3])
{
  const double (*pts[4])[3] = {p, q, r, s};
  return filter(pts, 1);
}
