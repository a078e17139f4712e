/*
 * ccd.c: conservative continuous collision detection of a node and a
 * triangle, and of two edges, moving linearly over a step (cloth.md,
 * "Collision detection"; the coplanarity condition of Provot 1997 and
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
 * widened outwards by one unit in the last place on each side, which
 * encloses its round-to-nearest error: the computed interval contains
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
 * Work is bounded: at most MAX_DEPTH halvings along a path, and a stack of
 * MAX_DEPTH + 1 intervals.  Allocation: none.
 */
#include <math.h>
#include <stddef.h>

#include "cdyn/collision.h"
#include "cdyn_internal.h"

typedef struct {
  double lo, hi;
} ival;

static ival iv(double lo, double hi)
{
  ival r = {nextafter(lo, -INFINITY), nextafter(hi, INFINITY)};
  return r;
}

static ival iadd(ival a, ival b) { return iv(a.lo + b.lo, a.hi + b.hi); }
static ival isub(ival a, ival b) { return iv(a.lo - b.hi, a.hi - b.lo); }

static ival imul(ival a, ival b)
{
  double p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  double lo = p[0], hi = p[0];
  for (int k = 1; k < 4; k++) {
    lo = fmin(lo, p[k]);
    hi = fmax(hi, p[k]);
  }
  return iv(lo, hi);
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
  while (sp > 0) {
    sp--;
    ival T = stack[sp];
    int d = depth[sp];
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

static void pack(double out[2][3], const double *x0, const double *x1)
{
  for (int c = 0; c < 3; c++)
    out[0][c] = x0[c], out[1][c] = x1[c];
}

int cdyn_ccd_vf(const double p0[3], const double p1[3], const double a0[3], const double a1[3], const double b0[3],
                const double b1[3], const double c0[3], const double c1[3], double tol, int *hit, double *t)
{
  const double *pts[8] = {p0, p1, a0, a1, b0, b1, c0, c1};
  int rc = check_points("cdyn_ccd_vf", pts, 8, tol, hit);
  if (rc)
    return rc;
  double p[2][3], a[2][3], b[2][3], c[2][3];
  pack(p, p0, p1), pack(a, a0, a1), pack(b, b0, b1), pack(c, c0, c1);
  return bisect(may_vf, p, a, b, c, tol, hit, t);
}

int cdyn_ccd_ee(const double p0[3], const double p1[3], const double q0[3], const double q1[3], const double r0[3],
                const double r1[3], const double s0[3], const double s1[3], double tol, int *hit, double *t)
{
  const double *pts[8] = {p0, p1, q0, q1, r0, r1, s0, s1};
  int rc = check_points("cdyn_ccd_ee", pts, 8, tol, hit);
  if (rc)
    return rc;
  double p[2][3], q[2][3], r[2][3], s[2][3];
  pack(p, p0, p1), pack(q, q0, q1), pack(r, r0, r1), pack(s, s0, s1);
  return bisect(may_ee, p, q, r, s, tol, hit, t);
}
