/*
 * proximity.c: the discrete narrow phase (doc/cloth.md, "Discrete
 * (proximity)"): the closest points of a node and a triangle, and of two
 * edges, at one instant; a pair is near when their distance is below the
 * thickness delta.
 *
 * Node-triangle: the closest point of the closed triangle to p by regions
 * (Ericson, Real-Time Collision Detection, 2005, sec. 5.1.5): the vertex,
 * edge or face region p projects into, from the signs of dot products of
 * p - vertex with the edges, and the barycentric coordinates of the face
 * region.  Edge-edge: the closest points of two closed segments (ibid.
 * sec. 5.1.9): the parameters of the lines' closest points, clamped to
 * [0, 1] each in turn; parallel segments (|u x v|^2 below 1e-14 |u|^2 |v|^2)
 * take the end of the first against the second.
 * Weights: vf (1, -w_a, -w_b, -w_c) with w the closest point's barycentric
 * coordinates; ee (1 - alpha, alpha, -(1 - beta), -beta), so that
 * sum_k w_k x_k is the vector between the closest points, pointing from
 * the second party to the first.  The normal is that vector normalised,
 * or, at distance 0, the face normal (vf) or u x v normalised (ee; for
 * parallel edges in contact, any unit vector normal to them).
 */
#include <math.h>

#include "cdyn/collision.h"
#include "core/internal.h"

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void sub3(const double *a, const double *b, double *r)
{
  for (int k = 0; k < 3; k++)
    r[k] = a[k] - b[k];
}

static void cross3(const double *a, const double *b, double *r)
{
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

static int check(const char *who, const double *const *x, double delta, const int *near, const cdyn_proximity *out)
{
  if (!near || !out)
    return cdyn_error(CDYN_EINVAL, "%s: NULL output", who);
  if (!(delta > 0) || !isfinite(delta))
    return cdyn_error(CDYN_EINVAL, "%s: thickness delta = %g must be finite and > 0", who, delta);
  for (int i = 0; i < 4; i++) {
    if (!x[i])
      return cdyn_error(CDYN_EINVAL, "%s: point %d is NULL", who, i);
    for (int k = 0; k < 3; k++)
      if (!isfinite(x[i][k]))
        return cdyn_error(CDYN_EINVAL, "%s: point %d is not finite", who, i);
  }
  return CDYN_OK;
}

/* A unit vector normal to v (v not zero). */
static void any_normal(const double *v, double *n)
{
  double e[3] = {0, 0, 0};
  int k = fabs(v[0]) <= fabs(v[1]) && fabs(v[0]) <= fabs(v[2]) ? 0 : fabs(v[1]) <= fabs(v[2]) ? 1 : 2;
  e[k] = 1;
  cross3(v, e, n);
  double L = sqrt(dot3(n, n));
  for (int i = 0; i < 3; i++)
    n[i] /= L;
}

static void finish(const double *d, const double *fallback, double delta, int *near, cdyn_proximity *out)
{
  double L = sqrt(dot3(d, d));
  out->dist = L;
  for (int k = 0; k < 3; k++)
    out->normal[k] = L > 0 ? d[k] / L : fallback[k];
  *near = L < delta;
}

int cdyn_proximity_vf(const double p[3], const double a[3], const double b[3], const double c[3], double delta,
                      int *near, cdyn_proximity *out)
{
  const double *x[4] = {p, a, b, c};
  int rc = check("cdyn_proximity_vf", x, delta, near, out);
  if (rc)
    return rc;
  double ab[3], ac[3], ap[3], n[3];
  sub3(b, a, ab), sub3(c, a, ac), sub3(p, a, ap);
  cross3(ab, ac, n);
  double nn = dot3(n, n), scale = dot3(ab, ab) * dot3(ac, ac);
  if (!(nn > 1e-28 * scale) || !(scale > 0))
    return cdyn_error(CDYN_EDEGENERATE, "cdyn_proximity_vf: the triangle has (nearly) zero area");
  double wa, wb, wc;
  double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
  double bp[3], cp[3];
  sub3(p, b, bp), sub3(p, c, cp);
  double d3 = dot3(ab, bp), d4 = dot3(ac, bp), d5 = dot3(ab, cp), d6 = dot3(ac, cp);
  double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
  if (d1 <= 0 && d2 <= 0)
    wa = 1, wb = 0, wc = 0;
  else if (d3 >= 0 && d4 <= d3)
    wa = 0, wb = 1, wc = 0;
  else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    double v = d1 / (d1 - d3);
    wa = 1 - v, wb = v, wc = 0;
  } else if (d6 >= 0 && d5 <= d6)
    wa = 0, wb = 0, wc = 1;
  else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    double w = d2 / (d2 - d6);
    wa = 1 - w, wb = 0, wc = w;
  } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    wa = 0, wb = 1 - w, wc = w;
  } else {
    double den = 1 / (va + vb + vc);
    wb = vb * den, wc = vc * den, wa = 1 - wb - wc;
  }
  out->w[0] = 1, out->w[1] = -wa, out->w[2] = -wb, out->w[3] = -wc;
  double d[3], fn[3];
  for (int k = 0; k < 3; k++) {
    d[k] = p[k] - (wa * a[k] + wb * b[k] + wc * c[k]);
    fn[k] = n[k] / sqrt(nn);
  }
  finish(d, fn, delta, near, out);
  return CDYN_OK;
}

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

int cdyn_proximity_ee(const double p[3], const double q[3], const double r[3], const double s[3], double delta,
                      int *near, cdyn_proximity *out)
{
  const double *x[4] = {p, q, r, s};
  int rc = check("cdyn_proximity_ee", x, delta, near, out);
  if (rc)
    return rc;
  double u[3], v[3], w[3];
  sub3(q, p, u), sub3(s, r, v), sub3(p, r, w);
  double a = dot3(u, u), e = dot3(v, v), f = dot3(v, w);
  if (!(a > 0) || !(e > 0))
    return cdyn_error(CDYN_EDEGENERATE, "cdyn_proximity_ee: an edge has zero length");
  double c = dot3(u, w), b = dot3(u, v), den = a * e - b * b, al, be;
  int parallel = !(den > 1e-14 * a * e);
  al = parallel ? 0 : clamp01((b * f - c * e) / den);
  be = (b * al + f) / e;
  if (be < 0) {
    be = 0;
    al = clamp01(-c / a);
  } else if (be > 1) {
    be = 1;
    al = clamp01((b - c) / a);
  }
  out->w[0] = 1 - al, out->w[1] = al, out->w[2] = -(1 - be), out->w[3] = -be;
  double d[3], fn[3];
  for (int k = 0; k < 3; k++)
    d[k] = (p[k] + al * u[k]) - (r[k] + be * v[k]);
  double m[3];
  cross3(u, v, m);
  double mm = dot3(m, m);
  if (mm > 0)
    for (int k = 0; k < 3; k++)
      fn[k] = m[k] / sqrt(mm);
  else
    any_normal(u, fn);
  finish(d, fn, delta, near, out);
  return CDYN_OK;
}
