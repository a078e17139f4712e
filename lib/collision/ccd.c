/*
 * ccd.c: conservative continuous collision detection of a node and a
 * triangle, and of two edges, moving linearly over a step (doc/cloth.md,
 * "Continuous"; the coplanarity condition of Provot 1997 and
 * Bridson, Fedkiw, Anderson 2002; interval root finding as in Redon, Kheddar
 * and Coquillart 2002).
 *
 * With x(t) = x0 + t (x1 - x0), t in [0, 1], a contact is a t where
 *   node-triangle  f = n . (p - a) = 0, n = (b - a) x (c - a), and
 *                  s_ab = n . ((b - a) x (p - a)) >= 0 and likewise for
 *                  (b, c), (c, a)  (the node in the closed triangle);
 *   edge-edge      f = m . w = 0, m = u x v, u = q - p, v = s - r,
 *                  w = r - p, and 0 <= A <= m.m, 0 <= B <= m.m with
 *                  A = (w x v) . m, B = (w x u) . m  (the crossing point
 *                  on both closed edges).
 * Instead of solving the cubic f = 0 (floating-point cubic solvers miss
 * roots in degenerate cases: coplanar motion, a vanishing leading
 * coefficient, double roots, roots at 0 or 1), every quantity is evaluated
 * over a time interval T = [t0, t1] in interval arithmetic, each operation
 * widened outwards by |r| 2^-51 + 2^-1073 on each side (two units in the
 * last place, which encloses its round-to-nearest error with room for the
 * rounding of the widening itself; see down() below): the computed interval contains
 * every value the exact expression takes for t in T.  T is discarded only
 * when it cannot hold a contact: 0 is outside f(T), or some condition's
 * interval lies entirely below 0.  Otherwise it is halved, earlier half
 * first, down to width `tol`, and the first interval that survives is the
 * reported contact (its start, *t).
 *
 * Why it is conservative: at a true contact t*, f(t*) = 0 and every
 * condition is >= 0, so every interval containing t* contains 0 in f's
 * enclosure and a value >= 0 in each condition's; none is discarded, and
 * the search reports a contact no later than t*.  Degenerate cases need no
 * special code: coplanar motion (f = 0 throughout) leaves the decision to
 * the conditions; parallel edges (m = 0) make the conditions' intervals
 * hold 0, so they are kept (a false positive at worst).  What it costs is
 * false positives: an interval of width tol that holds no contact but
 * whose enclosures cannot exclude one (near misses within the enclosures'
 * overestimate, and parallel edges nearly touching); the census counts
 * them.  A minimum separation is not part of this test: it finds crossings
 * (distance 0); the proximity test (distance below the thickness at the
 * end of the step) keeps the separation.
 *
 * Two additions keep the cost bounded without giving up conservativeness.
 * (1) A distance filter first: with D0 and D1 the distances of the two
 * parties at t = 0 and t = 1 (lib/collision/proximity.c) and S the largest
 * displacement of a point of the first plus that of the second, the
 * distance at t is at least max(D0 - t S, D1 - (1 - t) S) (every point of
 * a party moves by at most its largest corner's displacement), whose
 * minimum over t is (D0 + D1 - S) / 2; when D0 + D1 - S exceeds 1e-8
 * times the largest coordinate the pair cannot touch and no interval is
 * evaluated.  That margin is far above the rounding of D0, D1 and S where
 * the closest points are well conditioned, so the filter is used only
 * there: triangles and edge pairs with sin(angle) >= 1e-3 at both ends
 * (|e1 x e2|^2 >= 1e-6 |e1|^2 |e2|^2); for a thin triangle or a nearly
 * parallel pair, D is instead the largest gap between the parties'
 * projections on a few axes (separating axes: a lower bound of their
 * distance whatever the axis, see gap_bound).  (2) A budget: the
 * bisection evaluates at most MAX_EVALS intervals; when it is spent, the
 * earliest interval not yet excluded is reported as a contact (its start,
 * no later than any contact, since every earlier interval was excluded).
 * Without it, a near-parallel or nearly coplanar pair whose enclosures
 * only exclude at fine resolution costs up to 2^(1/tol) evaluations;
 * with it such a pair is a false positive.
 *
 * Work is bounded: at most MAX_EVALS enclosures, MAX_DEPTH halvings along
 * a path, and a stack of MAX_DEPTH + 1 intervals.  Allocation: none.
 */
#include <math.h>
#include <stddef.h>

#include "cdyn/collision.h"
#include "core/internal.h"

typedef struct {
  double lo, hi;
} ival;

/* Widen outwards past the rounding of the operation that gave lo and hi:
   a round-to-nearest result r is within |r| 2^-52 (2^-1075 below the
   normal range) of the exact value, and r -+ (|r| 2^-51 + 2^-1073),
   rounded, lies beyond that (by at least |r| 2^-53). */
static inline double down(double x) { return x - (fabs(x) * 0x1p-51 + 0x1p-1073); }
static inline double up(double x) { return x + (fabs(x) * 0x1p-51 + 0x1p-1073); }

static inline ival iv(double lo, double hi)
{
  ival r = {down(lo), up(hi)};
  return r;
}

static inline ival iadd(ival a, ival b) { return iv(a.lo + b.lo, a.hi + b.hi); }
static inline ival isub(ival a, ival b) { return iv(a.lo - b.hi, a.hi - b.lo); }

static inline ival imul(ival a, ival b)
{
  double p0 = a.lo * b.lo, p1 = a.lo * b.hi, p2 = a.hi * b.lo, p3 = a.hi * b.hi;
  double l01 = p0 < p1 ? p0 : p1, h01 = p0 < p1 ? p1 : p0, l23 = p2 < p3 ? p2 : p3, h23 = p2 < p3 ? p3 : p2;
  return iv(l01 < l23 ? l01 : l23, h01 > h23 ? h01 : h23);
}

/* x0 + T (x1 - x0) - (y0 + T (y1 - y0)) over T, per coordinate. */
static void idiff(const double x[2][3], const double y[2][3], ival T, ival out[3])
{
  for (int k = 0; k < 3; k++) {
    ival a0 = {x[0][k], x[0][k]}, y0 = {y[0][k], y[0][k]};
    ival dx = isub((ival){x[1][k], x[1][k]}, a0), dy = isub((ival){y[1][k], y[1][k]}, y0);
    out[k] = isub(iadd(a0, imul(T, dx)), iadd(y0, imul(T, dy)));
  }
}

static void icross(const ival a[3], const ival b[3], ival out[3])
{
  for (int k = 0; k < 3; k++) {
    int i = (k + 1) % 3, j = (k + 2) % 3;
    out[k] = isub(imul(a[i], b[j]), imul(a[j], b[i]));
  }
}

static ival idot(const ival a[3], const ival b[3])
{
  return iadd(iadd(imul(a[0], b[0]), imul(a[1], b[1])), imul(a[2], b[2]));
}

/* Can [t0, t1] hold a contact?  (Enclosures of f and of the conditions.) */
static int may_vf(const double p[2][3], const double a[2][3], const double b[2][3], const double c[2][3], ival T)
{
  ival ba[3], ca[3], pa[3], cb[3], pb[3], ac[3], pc[3], n[3], e[3];
  idiff(b, a, T, ba);
  idiff(c, a, T, ca);
  idiff(p, a, T, pa);
  icross(ba, ca, n);
  ival f = idot(n, pa);
  if (f.lo > 0 || f.hi < 0)
    return 0;
  icross(ba, pa, e);
  if (idot(n, e).hi < 0)
    return 0;
  idiff(c, b, T, cb);
  idiff(p, b, T, pb);
  icross(cb, pb, e);
  if (idot(n, e).hi < 0)
    return 0;
  idiff(a, c, T, ac);
  idiff(p, c, T, pc);
  icross(ac, pc, e);
  return idot(n, e).hi >= 0;
}

static int may_ee(const double p[2][3], const double q[2][3], const double r[2][3], const double s[2][3], ival T)
{
  ival u[3], v[3], w[3], m[3], e[3];
  idiff(q, p, T, u);
  idiff(s, r, T, v);
  idiff(r, p, T, w);
  icross(u, v, m);
  ival f = idot(m, w);
  if (f.lo > 0 || f.hi < 0)
    return 0;
  ival mm = idot(m, m);
  icross(w, v, e);
  ival A = idot(e, m);
  if (A.hi < 0 || isub(mm, A).hi < 0)
    return 0;
  icross(w, u, e);
  ival B = idot(e, m);
  return !(B.hi < 0 || isub(mm, B).hi < 0);
}

#define MAX_DEPTH 60
#define MAX_EVALS 2048

typedef int (*may_fn)(const double x[2][3], const double y[2][3], const double z[2][3], const double w[2][3],
                      ival T);

static int bisect(may_fn may, const double x[2][3], const double y[2][3], const double z[2][3],
                  const double w[2][3], double tol, int *hit, double *t)
{
  ival stack[MAX_DEPTH + 2];
  int depth[MAX_DEPTH + 2], sp = 0;
  stack[0] = (ival){0, 1};
  depth[0] = 0;
  sp = 1;
  *hit = 0;
  long evals = 0;
  while (sp > 0) {
    sp--;
    ival T = stack[sp];
    int d = depth[sp];
    if (++evals > MAX_EVALS) { /* spent: T is the earliest interval not excluded */
      *hit = 1;
      if (t)
        *t = T.lo;
      return CDYN_OK;
    }
    if (!may(x, y, z, w, T))
      continue;
    if (T.hi - T.lo <= tol || d >= MAX_DEPTH) {
      *hit = 1;
      if (t)
        *t = T.lo;
      return CDYN_OK;
    }
    double mid = 0.5 * (T.lo + T.hi);
    /* The later half below the earlier, so the earlier is searched first. */
    stack[sp] = (ival){mid, T.hi};
    depth[sp++] = d + 1;
    stack[sp] = (ival){T.lo, mid};
    depth[sp++] = d + 1;
  }
  return CDYN_OK;
}

static int check_points(const char *who, const double *const *pts, int n, double tol, const int *hit)
{
  if (!hit)
    return cdyn_error(CDYN_EINVAL, "%s: hit is NULL", who);
  if (!(tol > 0) || !(tol <= 0.5))
    return cdyn_error(CDYN_EINVAL, "%s: tol = %g must be in (0, 0.5]", who, tol);
  for (int k = 0; k < n; k++) {
    if (!pts[k])
      return cdyn_error(CDYN_EINVAL, "%s: point %d is NULL", who, k / 2);
    for (int c = 0; c < 3; c++)
      if (!isfinite(pts[k][c]))
        return cdyn_error(CDYN_EINVAL, "%s: point %d is not finite at t = %d", who, k / 2, k % 2);
  }
  return CDYN_OK;
}

static double disp(const double *x0, const double *x1)
{
  double d[3] = {x1[0] - x0[0], x1[1] - x0[1], x1[2] - x0[2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* The distance filter (see the header): 1 when the parties (points 0, 1
   against points 2 .. 3 or 2 .. 4, [k] at t = 0 and [k + 1] at t = 1 in
   pts) are proved apart over the step. */
static int apart(const double *const *pts, int first, double D0, double D1)
{
  double S1 = 0, S2 = 0, M = 0;
  for (int k = 0; k < 8; k += 2) {
    double dk = disp(pts[k], pts[k + 1]);
    if (k < 2 * first)
      S1 = fmax(S1, dk);
    else
      S2 = fmax(S2, dk);
    for (int c = 0; c < 3; c++)
      M = fmax(M, fmax(fabs(pts[k][c]), fabs(pts[k + 1][c])));
  }
  return D0 + D1 - (S1 + S2) > 1e-8 * M;
}

/* sin^2 of the angle of x1 - x0 and x3 - x2 at least 1e-6? */
static int well_apart(const double *x0, const double *x1, const double *x2, const double *x3)
{
  double u[3], v[3], m[3];
  for (int c = 0; c < 3; c++)
    u[c] = x1[c] - x0[c], v[c] = x3[c] - x2[c];
  m[0] = u[1] * v[2] - u[2] * v[1];
  m[1] = u[2] * v[0] - u[0] * v[2];
  m[2] = u[0] * v[1] - u[1] * v[0];
  double mm = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
  double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2], vv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  return mm >= 1e-6 * uu * vv && mm > 0;
}

/* The gap of the projections of the two point sets on the unit axis n. */
static double axis_gap(const double *const *pts, int k0, int n1, int k1, int n2, const double *n)
{
  double l1 = INFINITY, h1 = -INFINITY, l2 = INFINITY, h2 = -INFINITY;
  for (int j = 0; j < n1; j++) {
    const double *x = pts[k0 + 2 * j];
    double y = n[0] * x[0] + n[1] * x[1] + n[2] * x[2];
    l1 = fmin(l1, y), h1 = fmax(h1, y);
  }
  for (int j = 0; j < n2; j++) {
    const double *x = pts[k1 + 2 * j];
    double y = n[0] * x[0] + n[1] * x[1] + n[2] * x[2];
    l2 = fmin(l2, y), h2 = fmax(h2, y);
  }
  return fmax(0, fmax(l2 - h1, l1 - h2));
}

/* A lower bound of the distance of the point sets pts[k0 + 2 j], j < n1,
   and pts[k1 + 2 j], j < n2: the largest gap of their projections on the
   coordinate axes, on the line of their centroids, and on that line made
   normal to the first side of each set (the separating axis of parallel
   edges).  Any axis gives a lower bound; these only make it tight. */
static double gap_bound(const double *const *pts, int k0, int n1, int k1, int n2)
{
  double best = 0, d[3] = {0, 0, 0};
  for (int c = 0; c < 3; c++) {
    double e[3] = {c == 0, c == 1, c == 2};
    best = fmax(best, axis_gap(pts, k0, n1, k1, n2, e));
    for (int j = 0; j < n2; j++)
      d[c] += pts[k1 + 2 * j][c] / n2;
    for (int j = 0; j < n1; j++)
      d[c] -= pts[k0 + 2 * j][c] / n1;
  }
  for (int a = 0; a < 3; a++) {
    double n[3] = {d[0], d[1], d[2]};
    int k = a == 1 ? k0 : k1, m = a == 1 ? n1 : n2;
    if (a > 0) {
      if (m < 2)
        continue;
      double u[3], uu = 0, nu = 0;
      for (int c = 0; c < 3; c++) {
        u[c] = pts[k + 2][c] - pts[k][c];
        uu += u[c] * u[c];
        nu += n[c] * u[c];
      }
      if (!(uu > 0))
        continue;
      for (int c = 0; c < 3; c++)
        n[c] -= nu / uu * u[c];
    }
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(nn > 0) || !isfinite(nn))
      continue;
    for (int c = 0; c < 3; c++)
      n[c] /= nn;
    best = fmax(best, axis_gap(pts, k0, n1, k1, n2, n));
  }
  return best;
}

static void pack(double out[2][3], const double *x0, const double *x1)
{
  for (int c = 0; c < 3; c++)
    out[0][c] = x0[c], out[1][c] = x1[c];
}

typedef int (*prox_fn)(const double *, const double *, const double *, const double *, double, int *,
                       cdyn_proximity *);

/* The distance filter of the header for the points of check_points' order
   (vf: node, triangle; ee: edge, edge; [2 k] at t = 0, [2 k + 1] at t = 1). */
static int proved_apart(const double *const *pts, int vf)
{
  const double *x0[4], *x1[4];
  for (int j = 0; j < 4; j++)
    x0[j] = pts[2 * j], x1[j] = pts[2 * j + 1];
  /* The conditioning of the closest points: the triangle's sides, or the edges. */
  int a = vf ? 1 : 0, b = vf ? 1 : 2;
  int well = well_apart(x0[a], x0[a + 1], x0[b], x0[3]) && well_apart(x1[a], x1[a + 1], x1[b], x1[3]);
  prox_fn prox = vf ? cdyn_proximity_vf : cdyn_proximity_ee;
  int first = vf ? 1 : 2, n0, n1;
  cdyn_proximity d0, d1;
  double D0, D1;
  if (well && !prox(x0[0], x0[1], x0[2], x0[3], 1.0, &n0, &d0) && !prox(x1[0], x1[1], x1[2], x1[3], 1.0, &n1, &d1))
    D0 = d0.dist, D1 = d1.dist;
  else
    D0 = gap_bound(pts, 0, first, 2 * first, 4 - first), D1 = gap_bound(pts, 1, first, 2 * first + 1, 4 - first);
  return apart(pts, first, D0, D1);
}

/* Either test on the points in check_points' order (vf: p, a, b, c; ee:
   p, q, r, s; [2 k] at t = 0, [2 k + 1] at t = 1). */
static int ccd(int vf, const double *const *pts, double tol, int *hit, double *t)
{
  int rc = check_points(vf ? "cdyn_ccd_vf" : "cdyn_ccd_ee", pts, 8, tol, hit);
  if (rc)
    return rc;
  if (proved_apart(pts, vf)) {
    *hit = 0;
    return CDYN_OK;
  }
  double x[4][2][3];
  for (int j = 0; j < 4; j++)
    pack(x[j], pts[2 * j], pts[2 * j + 1]);
  return bisect(vf ? may_vf : may_ee, x[0], x[1], x[2], x[3], tol, hit, t);
}

int cdyn_ccd_vf(const double p0[3], const double p1[3], const double a0[3], const double a1[3], const double b0[3],
                const double b1[3], const double c0[3], const double c1[3], double tol, int *hit, double *t)
{
  const double *pts[8] = {p0, p1, a0, a1, b0, b1, c0, c1};
  return ccd(1, pts, tol, hit, t);
}

int cdyn_ccd_ee(const double p0[3], const double p1[3], const double q0[3], const double q1[3], const double r0[3],
                const double r1[3], const double s0[3], const double s1[3], double tol, int *hit, double *t)
{
  const double *pts[8] = {p0, p1, q0, q1, r0, r1, s0, s1};
  return ccd(0, pts, tol, hit, t);
}
