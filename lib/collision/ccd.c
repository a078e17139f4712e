/*
 * ccd.c: conservative continuous collision detection of a node and a
 * triangle, and of two edges, moving linearly over a step (doc/cloth.md,
 * "Continuous"; the coplanarity condition of Provot 1997 and Bridson,
 * Fedkiw, Anderson 2002; subdivision of Bernstein forms as in Lane and
 * Riesenfeld 1981 and Farouki and Rajan 1988, "Algorithms for polynomials
 * in Bernstein form"; rounding-error bounds as in Higham, "Accuracy and
 * Stability of Numerical Algorithms", 2nd ed. 2002, sec. 2.2 and lemma
 * 3.1; closest points, for a separating axis, as in Ericson, "Real-Time
 * Collision Detection", 2005, sec. 5.1.5 and 5.1.9).
 *
 * With x(t) = x0 + t (x1 - x0), t in [0, 1], and every vector relative to
 * one point of the query, a contact is a t where
 *   node-triangle  x = b - a, y = c - a, z = p - a, n = x X y:
 *                  f = n . z = 0 (the four points coplanar), and the node
 *                  in the closed triangle:
 *                    X = n . (x X z) >= 0, Y = n . (z X y) >= 0,
 *                    n . n - X - Y >= 0
 *                  (n . n times the barycentric coordinates of c, b and a;
 *                  the third is n . ((c - b) X (p - b)) by the identity
 *                  X + Y + n . ((c - b) X (p - b)) = n . n);
 *   edge-edge      x = u = q - p, y = v = s - r, z = w = r - p, m = u X v:
 *                  f = m . w = 0 and the crossing point on both closed
 *                  edges: 0 <= X <= m . m, 0 <= Y <= m . m with
 *                  X = m . (w X v), Y = m . (w X u).
 * f is a cubic in t; X, Y and m . m (n . n) are quartics.
 *
 * Bernstein form.  On T = [t0, t1], with s = (t - t0) / (t1 - t0), a
 * polynomial of degree d is sum_k b_k C(d, k) s^k (1 - s)^(d - k); the
 * weights are >= 0 and sum to 1, so its values on T lie between its least
 * and its greatest b_k.  A linear vector has b_0 = x(t0), b_1 = x(t1), and
 * products follow from C(d, k) b_k of a product = sum_{i + j = k} C(d1,
 * i) b_i C(d2, j) b'_j.  The code keeps B_k = C(d, k) b_k (positive
 * multiples: no sign changes):
 *   x X y   N_0 = x0 X y0, N_1 = x0 X y1 + x1 X y0, N_2 = x1 X y1;
 *   n . z   F_0 = N_0 . z0, F_1 = N_1 . z0 + N_0 . z1, F_2 = N_2 . z0 +
 *           N_1 . z1, F_3 = N_2 . z1;
 *   P . Q   (P, Q quadratic vectors) sum_{i + j = k} P_i . Q_j, k = 0 .. 4.
 * T holds no contact when every F_k > 0 or every F_k < 0 (f has no root
 * on T), or when every coefficient of one condition is < 0 (it is < 0 on
 * T).  The enclosure's excess over the true range shrinks as (t1 - t0)^2,
 * where interval arithmetic's shrinks as t1 - t0.
 *
 * Rounding.  The coefficients are computed in doubles from the rounded
 * differences of the input coordinates, D = y0 - z0, and the rates R =
 * (y1 - y0) - (z1 - z0), with x(t) = D + t R, all scaled by the power of
 * two that brings the largest bound B below into [1/2, 1) (f, the
 * conditions and m . m are homogeneous in the coordinates, so a scaling
 * changes no sign).  In the standard model, fl(a op b) = (a op b)(1 + d),
 * |d| <= u = 2^-53, each computed coefficient is the exact one with every
 * monomial (in the exact first differences y0 - z0, y1 - y0, z1 - z0 and
 * in t0, t1) multiplied by at most k factors (1 + d): one for each first
 * difference, and then a sum adds one to the larger count of its
 * operands, a product one to the sum of theirs (a fused multiply-add only
 * removes factors).  R has 2, x(t) 4, a cross product 10 (N_1: 11), F_k
 * 19, a quartic coefficient 27, m . m - X - Y 29.  Hence |computed -
 * exact| <= gamma_k S with gamma_k = k u / (1 - k u) (Higham, lemma 3.1)
 * and S the expression evaluated on absolute values with differences
 * made sums.  S is bounded once per query: with B_jk = |D_jk| + |y1 -
 * y0|_k + |z1 - z0|_k, at least the sum of the absolute values of the
 * monomials of component k of x_j(t), t in [0, 1], and Bn_k = B_xi B_yj
 * + B_xj B_yi ((i, j, k) cyclic), a component of N_i is bounded by C(2,
 * i) Bn_k, and
 *   |F_k| by C(3, k) Bn . B_z <= 3 Bn . B_z,
 *   a quartic coefficient of n . (x X z) by C(4, k) Bn . Be <= 6 Bn . Be
 *   (Be from B_x and B_z likewise), of m . m by 6 Bn . Bn, and of m . m -
 *   X - Y by the sum of the three.
 * A coefficient is called positive when it exceeds e = 2^-46 times its
 * bound, and negative when it is below -e: 2^-46 > 4 gamma_29, which
 * leaves room for the rounding of the bound's own evaluation (no
 * cancellation: a relative error below 40 u) and of the first
 * differences.  A product that underflows has an absolute error below
 * 2^-1075 instead; after the scaling every quantity is below 2^8, fewer
 * than 2^8 products enter a coefficient, and the error of one reaches it
 * multiplied by less than 2^20: below 2^-1047 in all, and 2^-1000 is
 * added to every e.  After the scaling nothing overflows (coordinates
 * whose differences or bounds would are divided by 8 first: setup).
 * Comparisons of doubles are exact.  So a computed coefficient called
 * positive (negative) is positive (negative) exactly.
 *
 * A second bound, for the intervals of width <= tol that survive.  The
 * bound above is set once per query from B, which holds the motion as
 * well as the relative position; for small parties moving far it exceeds
 * the rounding at hand by orders of magnitude.  There, the computed
 * values x^(t0), x^(t1) are taken as the inputs: each is within d = 2^-50
 * B (>= gamma_4 B, plus 2^-1070 for underflow) of the exact x(t), so
 * with a = |x^| + d >= |x|, |x^| for every component, a computed
 * coefficient c^ differs from the exact one c by at most
 *   gamma_13 S(a) + D_d S(a),
 * the first from at most 13 roundings after the inputs (the counts above
 * less 4 for each factor x(t): F_k 7, a quartic coefficient 11, m . m -
 * X - Y 13), the second from the inputs' errors: for a product of
 * factors within d_i of each other, |prod x^_i - prod x_i| <= sum_i d_i
 * prod_{j != i} a_j (telescoping), which summed over the monomials is
 * D_d S(a), the derivative of S at a in the direction d, computed
 * alongside S by the product rule.  The bound used is 2^-47 S(a) (> 4
 * gamma_13) + D_d S(a) (d twice what the rounding of x needs) + 2^-1000,
 * per coefficient.  It is only computed for a polynomial whose computed
 * coefficients are all of the excluding sign, the only case in which a
 * bound can exclude.
 *
 * Separation along an axis.  Where m (n) vanishes, with the edges
 * parallel (the triangle degenerate), f and every condition vanish too,
 * so no interval holding such a time can be excluded by its coefficients,
 * however short.  There the parties are compared along a fixed axis a:
 * the projections of the points on a are linear in t, so the gap of the
 * parties' projections, min over the node (the first edge's ends) minus
 * max over the triangle's corners (the second edge's ends), is concave in
 * t, and > 0 at t0 and t1 it is > 0 on all of T, where the parties are
 * then apart.  Any a is valid; the one used is the direction between the
 * closest points at the middle of T.  The gap is computed from the same
 * x(t), relative to the same point (a translation moves all projections
 * alike), with at most 9 factors, so its error is below gamma_9 |a| .
 * (B_0 + B_1 + B_2) <= 2^-46 |a| . (B_0 + B_1 + B_2), plus 2^-1000 for
 * underflow.  It is tried on the intervals whose m . m is not certainly
 * positive.
 *
 * The search.  [0, 1] is halved, earlier half first; an interval is
 * discarded when it is proved free of contact (by the first bound, by a
 * separating axis where m . m is not certainly positive, and at width <=
 * tol by the second bound).  One of width <= tol that survives is
 * reported when its coefficients prove a contact in it (F_0 and F_3, the
 * values of f at its ends, of opposite certain signs, and
 * every condition's coefficients positive: a root of f with the node
 * strictly inside the triangle, the edges crossing at interior points);
 * otherwise it is halved on, so that a near miss within tol of a contact
 * can still be excluded, down to MAX_DEPTH halvings (2^-60: over such an
 * interval x(t) moves by less than its own rounding, so halving further
 * cannot tighten the enclosures) or until its midpoint is no double
 * strictly inside it.  A budget of MAX_EVALS evaluations bounds the work;
 * when it is spent, the earliest interval not excluded is reported.  The
 * reported time is the start of the reported interval.
 *
 * Why it is conservative: an interval is discarded only on a proof that
 * it holds no contact (above: exact signs of the coefficients under
 * either bound, or a separating axis), so an interval containing the
 * first contact t* is never discarded; every interval before the
 * reported one was discarded, so the reported start is no later than t*,
 * and within tol of it when the contact was proved (t* then lies in the
 * reported interval).  What remains is false positives: intervals
 * that reach the finest width or the budget without a proof, where the
 * parties pass within the rounding of the enclosures (about 2^-46
 * relative to the coordinates, squared and cubed) or touch exactly
 * without crossing; the census counts them.  A minimum separation is not
 * part of this test: it finds crossings (distance 0); the proximity test
 * (distance below the thickness at the end of the step) keeps the
 * separation.
 *
 * Work is bounded: at most MAX_EVALS evaluations, each with at most one
 * separating-axis test, MAX_DEPTH halvings along a path, and a stack of
 * MAX_DEPTH + 1 intervals.  Allocation: none.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "cdyn/collision.h"
#include "core/internal.h"

/*
 * A query in relative form: three vectors linear in t, x_j(t) = D_j +
 * t R_j (vf: b - a, c - a, p - a; ee: q - p, s - r, r - p), scaled by a
 * power of two; B_j their bounds, and the error bounds e of the header
 * for f, the conditions (X, Y, m . m - X or m . m - X - Y, m . m - Y)
 * and m . m.
 */
typedef struct {
  double D[3][3], R[3][3], B[3][3];
  double eF, eX, eY, eZX, eZY, eM;
  int vf;
} rel;

static inline void cross(const double *a, const double *b, double *r)
{
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* The bound of a cross product's components from its factors' bounds:
   |a_i| |b_j| + |a_j| |b_i|. */
static void bound_cross(const double *a, const double *b, double *r)
{
  r[0] = a[1] * b[2] + a[2] * b[1];
  r[1] = a[2] * b[0] + a[0] * b[2];
  r[2] = a[0] * b[1] + a[1] * b[0];
}

/* The scaled Bernstein coefficients N_0 .. N_2 of x X y on [t0, t1], x
   and y linear with the values x0, x1 and y0, y1 at its ends. */
static inline void bcross(const double *x0, const double *x1, const double *y0, const double *y1, double N[3][3])
{
  double c[3];
  cross(x0, y0, N[0]);
  cross(x0, y1, N[1]);
  cross(x1, y0, c);
  N[1][0] += c[0], N[1][1] += c[1], N[1][2] += c[2];
  cross(x1, y1, N[2]);
}

/* The scaled Bernstein coefficients of P . Q, P and Q quadratic vectors
   given by theirs. */
static inline void bdot(double P[3][3], double Q[3][3], double out[5])
{
  out[0] = dot(P[0], Q[0]);
  out[1] = dot(P[1], Q[0]) + dot(P[0], Q[1]);
  out[2] = dot(P[2], Q[0]) + dot(P[1], Q[1]) + dot(P[0], Q[2]);
  out[3] = dot(P[2], Q[1]) + dot(P[1], Q[2]);
  out[4] = dot(P[2], Q[2]);
}

/* Every coefficient certainly negative (positive)?  Written so that a NaN
   proves nothing. */
static inline int all_below(const double *P, int n, double e)
{
  for (int k = 0; k < n; k++)
    if (!(P[k] < -e))
      return 0;
  return 1;
}

static inline int all_above(const double *P, int n, double e)
{
  for (int k = 0; k < n; k++)
    if (!(P[k] > e))
      return 0;
  return 1;
}

/* The coefficients of an interval (may fills them; tight reads them). */
typedef struct {
  double x[2][3][3]; /* the vectors at t0 and t1 */
  double F[4], M[5], X[5], Y[5], Z[5], W[5];
  int conditions; /* X, Y, Z, W computed (m . m not within its rounding of 0) */
} coefs;

/*
 * Can [t0, t1] hold a contact?  0 when its coefficients prove that it
 * cannot.  Otherwise 1, with *flat 1 when m . m is not certainly positive
 * on it (the separating axis may then be needed) and, if certain is not
 * NULL, *certain 1 when the coefficients prove a contact in it.
 */
static int may(const rel *q, double t0, double t1, coefs *c, int *certain, int *flat)
{
  double(*x)[3][3] = c->x, *F = c->F, *M = c->M, *X = c->X, *Y = c->Y, *Z = c->Z, *W = c->W;
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 3; k++) {
      x[0][j][k] = q->D[j][k] + t0 * q->R[j][k];
      x[1][j][k] = q->D[j][k] + t1 * q->R[j][k];
    }
  double N[3][3];
  c->conditions = 0;
  bcross(x[0][0], x[1][0], x[0][1], x[1][1], N);
  F[0] = dot(N[0], x[0][2]);
  F[1] = dot(N[1], x[0][2]) + dot(N[0], x[1][2]);
  F[2] = dot(N[2], x[0][2]) + dot(N[1], x[1][2]);
  F[3] = dot(N[2], x[1][2]);
  if (all_above(F, 4, q->eF) || all_below(F, 4, q->eF))
    return 0;
  M[0] = dot(N[0], N[0]);
  M[1] = 2 * dot(N[1], N[0]);
  M[2] = 2 * dot(N[2], N[0]) + dot(N[1], N[1]);
  M[3] = 2 * dot(N[2], N[1]);
  M[4] = dot(N[2], N[2]);
  *flat = !all_above(M, 5, q->eM);
  /* m . m within its rounding of 0 throughout (parallel edges, a
     triangle without area): the conditions, multiples of m, are too, and
     are not worth evaluating. */
  if (*flat && M[0] <= q->eM && M[1] <= q->eM && M[2] <= q->eM && M[3] <= q->eM && M[4] <= q->eM)
    return 1;
  c->conditions = 1;
  double E[3][3];
  if (q->vf)
    bcross(x[0][0], x[1][0], x[0][2], x[1][2], E); /* (b - a) X (p - a) */
  else
    bcross(x[0][2], x[1][2], x[0][1], x[1][1], E); /* w X v */
  bdot(N, E, X);
  if (q->vf)
    bcross(x[0][2], x[1][2], x[0][1], x[1][1], E); /* (p - a) X (c - a) */
  else
    bcross(x[0][2], x[1][2], x[0][0], x[1][0], E); /* w X u */
  bdot(N, E, Y);
  for (int k = 0; k < 5; k++)
    Z[k] = q->vf ? M[k] - X[k] - Y[k] : M[k] - X[k], W[k] = M[k] - Y[k];
  if (all_below(X, 5, q->eX) || all_below(Y, 5, q->eY) || all_below(Z, 5, q->eZX) ||
      (!q->vf && all_below(W, 5, q->eZY)))
    return 0;
  if (certain)
    *certain = all_above(X, 5, q->eX) && all_above(Y, 5, q->eY) && all_above(Z, 5, q->eZX) &&
               (q->vf || all_above(W, 5, q->eZY)) &&
               ((F[0] > q->eF && F[3] < -q->eF) || (F[0] < -q->eF && F[3] > q->eF));
  return 1;
}

/* ---- the bounds of one interval ---- */

/* The absolute-value bound s of a cross product's components from the
   bounds a, b of its factors, and ds, its derivative in the direction of
   the factors' errors da, db: the telescoping bound of the header for a
   change of the factors by at most da, db. */
static inline void cross_b(const double *a, const double *da, const double *b, const double *db, double *s,
                           double *ds)
{
  for (int k = 0; k < 3; k++) {
    int i = (k + 1) % 3, j = (k + 2) % 3;
    s[k] = a[i] * b[j] + a[j] * b[i];
    ds[k] = da[i] * b[j] + a[i] * db[j] + da[j] * b[i] + a[j] * db[i];
  }
}

static inline void bcross_b(const double *a0, const double *a1, const double *da, const double *b0, const double *b1,
                            const double *db, double S[3][3], double dS[3][3])
{
  double s[3], ds[3];
  cross_b(a0, da, b0, db, S[0], dS[0]);
  cross_b(a0, da, b1, db, S[1], dS[1]);
  cross_b(a1, da, b0, db, s, ds);
  for (int k = 0; k < 3; k++)
    S[1][k] += s[k], dS[1][k] += ds[k];
  cross_b(a1, da, b1, db, S[2], dS[2]);
}

static inline double dot_b(const double *a, const double *da, const double *b, const double *db, double *d)
{
  *d = dot(da, b) + dot(a, db);
  return dot(a, b);
}

/* The bounds of P . Q's coefficients (bdot) from those of P and Q. */
static void bdot_b(double P[3][3], double dP[3][3], double Q[3][3], double dQ[3][3], double out[5], double dout[5])
{
  for (int k = 0; k < 5; k++)
    out[k] = dout[k] = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double d, v = dot_b(P[i], dP[i], Q[j], dQ[j], &d);
      out[i + j] += v, dout[i + j] += d;
    }
}

/* e_k = 2^-47 S_k + dS_k + 2^-1000: coefficient k's error (the header's
   interval bounds). */
static inline void errs(const double *S, const double *dS, int n, double *e)
{
  for (int k = 0; k < n; k++)
    e[k] = 0x1p-47 * S[k] + dS[k] + 0x1p-1000;
}

static inline int below(const double *P, const double *e, int n)
{
  for (int k = 0; k < n; k++)
    if (!(P[k] < -e[k]))
      return 0;
  return 1;
}

/*
 * The coefficients of may against error bounds of this interval (the
 * header's second level): 0 when they prove that it holds no contact.
 * Only the polynomials whose computed coefficients are all of the sign
 * that would exclude (f: one strict sign, a condition: < 0) are bounded,
 * since no bound can exclude by the others.
 */
static int tight(const rel *q, const coefs *c)
{
  const double *F = c->F;
  int hope_f = all_above(F, 4, 0) || all_below(F, 4, 0);
  int hope_x = 0, hope_y = 0, hope_z = 0, hope_w = 0;
  if (c->conditions) {
    hope_x = all_below(c->X, 5, 0), hope_y = all_below(c->Y, 5, 0);
    hope_z = all_below(c->Z, 5, 0), hope_w = !q->vf && all_below(c->W, 5, 0);
  }
  if (!(hope_f || hope_x || hope_y || hope_z || hope_w))
    return 1;
  double a[2][3][3], d[3][3];
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 3; k++) {
      d[j][k] = 0x1p-50 * q->B[j][k] + 0x1p-1070;
      a[0][j][k] = fabs(c->x[0][j][k]) + d[j][k];
      a[1][j][k] = fabs(c->x[1][j][k]) + d[j][k];
    }
  double SN[3][3], dSN[3][3], S[5], dS[5], e[5], t;
  bcross_b(a[0][0], a[1][0], d[0], a[0][1], a[1][1], d[1], SN, dSN);
  if (hope_f) {
    S[0] = dot_b(SN[0], dSN[0], a[0][2], d[2], &dS[0]);
    S[1] = dot_b(SN[1], dSN[1], a[0][2], d[2], &dS[1]) + dot_b(SN[0], dSN[0], a[1][2], d[2], &t);
    dS[1] += t;
    S[2] = dot_b(SN[2], dSN[2], a[0][2], d[2], &dS[2]) + dot_b(SN[1], dSN[1], a[1][2], d[2], &t);
    dS[2] += t;
    S[3] = dot_b(SN[2], dSN[2], a[1][2], d[2], &dS[3]);
    errs(S, dS, 4, e);
    if (below(F, e, 4) || (F[0] > e[0] && F[1] > e[1] && F[2] > e[2] && F[3] > e[3]))
      return 0;
  }
  if (!(hope_x || hope_y || hope_z || hope_w))
    return 1;
  /* X's and Y's cross products: vf (b - a) X (p - a), (p - a) X (c - a);
     ee w X v, w X u (bounds: the order of the factors does not matter). */
  double SE[3][3], dSE[3][3], SX[5], dSX[5], SY[5], dSY[5], SM[5], dSM[5];
  int j1 = q->vf ? 0 : 1, j2 = q->vf ? 1 : 0;
  bcross_b(a[0][j1], a[1][j1], d[j1], a[0][2], a[1][2], d[2], SE, dSE);
  bdot_b(SN, dSN, SE, dSE, SX, dSX);
  errs(SX, dSX, 5, e);
  if (hope_x && below(c->X, e, 5))
    return 0;
  bcross_b(a[0][j2], a[1][j2], d[j2], a[0][2], a[1][2], d[2], SE, dSE);
  bdot_b(SN, dSN, SE, dSE, SY, dSY);
  errs(SY, dSY, 5, e);
  if (hope_y && below(c->Y, e, 5))
    return 0;
  if (!(hope_z || hope_w))
    return 1;
  bdot_b(SN, dSN, SN, dSN, SM, dSM);
  for (int k = 0; k < 5; k++)
    S[k] = SM[k] + SX[k] + (q->vf ? SY[k] : 0), dS[k] = dSM[k] + dSX[k] + (q->vf ? dSY[k] : 0);
  errs(S, dS, 5, e);
  if (hope_z && below(c->Z, e, 5))
    return 0;
  for (int k = 0; k < 5; k++)
    S[k] = SM[k] + SY[k], dS[k] = dSM[k] + dSY[k];
  errs(S, dS, 5, e);
  return !(hope_w && below(c->W, e, 5));
}

/*
 * The relative form of a query (points in check_points' order) and its
 * error bounds (the header).  The coordinates are taken times ps, 1 or,
 * when a first difference or a bound overflows with 1, 1/8 (then every
 * bound, at most 6 times the largest coordinate, is finite; exact but for
 * coordinates below 2^-1019, whose absolute error 2^-1075 the scaling
 * below then makes far smaller than the header's 2^-1000).
 */
static void setup(int vf, const double *const *pts, rel *q)
{
  /* Vector j is point to[j] - point from[j]: ee q - p, s - r, r - p; vf
     b - a, c - a, p - a (points p, q, r, s or p, a, b, c). */
  static const int from[2][3] = {{0, 2, 0}, {1, 1, 1}}, to[2][3] = {{1, 3, 2}, {2, 3, 0}};
  double B[3][3], Bmax = INFINITY;
  q->vf = vf;
  for (double ps = 1; !isfinite(Bmax); ps = 0.125) {
    Bmax = 0;
    for (int j = 0; j < 3; j++) {
      const double *y0 = pts[2 * to[vf][j]], *y1 = pts[2 * to[vf][j] + 1];
      const double *z0 = pts[2 * from[vf][j]], *z1 = pts[2 * from[vf][j] + 1];
      for (int c = 0; c < 3; c++) {
        double dy = ps * y1[c] - ps * y0[c], dz = ps * z1[c] - ps * z0[c];
        q->D[j][c] = ps * y0[c] - ps * z0[c];
        q->R[j][c] = dy - dz;
        B[j][c] = fabs(q->D[j][c]) + fabs(dy) + fabs(dz);
        Bmax = fmax(Bmax, B[j][c]);
      }
    }
  }
  if (Bmax > 0) {
    /* Largest bound into [1/2, 1): exact, but for results that underflow
       (the header's 2^-1000).  A multiplication by 2^-e where it is a
       normal double, ldexp beyond. */
    int e;
    frexp(Bmax, &e);
    if (e < -1000 || e > 1000)
      for (int j = 0; j < 3; j++)
        for (int c = 0; c < 3; c++) {
          q->D[j][c] = ldexp(q->D[j][c], -e);
          q->R[j][c] = ldexp(q->R[j][c], -e);
          B[j][c] = ldexp(B[j][c], -e);
        }
    else {
      double s = ldexp(1.0, -e);
      for (int j = 0; j < 3; j++)
        for (int c = 0; c < 3; c++)
          q->D[j][c] *= s, q->R[j][c] *= s, B[j][c] *= s;
    }
  }
  memcpy(q->B, B, sizeof B);
  /* Bn for n = x0 X x1; Be and Bg for the cross products of X and Y. */
  double Bn[3], Be[3], Bg[3];
  bound_cross(B[0], B[1], Bn);
  bound_cross(B[vf ? 0 : 1], B[2], Be);
  bound_cross(B[vf ? 1 : 0], B[2], Bg);
  const double u = 0x1p-46, tiny = 0x1p-1000;
  double nn = dot(Bn, Bn), ne = dot(Bn, Be), ng = dot(Bn, Bg);
  q->eF = 3 * u * dot(Bn, B[2]) + tiny;
  q->eX = 6 * u * ne + tiny;
  q->eY = 6 * u * ng + tiny;
  q->eM = 6 * u * nn + tiny;
  if (vf)
    q->eZX = q->eZY = 6 * u * (nn + ne + ng) + tiny;
  else {
    q->eZX = 6 * u * (nn + ne) + tiny;
    q->eZY = 6 * u * (nn + ng) + tiny;
  }
}

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

/* The closest point to p of the segment from a to a + d. */
static void seg_closest(const double *p, const double *a, const double *d, double *out)
{
  double dd = dot(d, d), e[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
  double s = dd > 0 ? clamp01(dot(e, d) / dd) : 0;
  for (int c = 0; c < 3; c++)
    out[c] = a[c] + s * d[c];
}

/*
 * The direction between the closest points of the parties, from the
 * second to the first, at one instant (x: the relative vectors then; vf
 * the node x2 and the triangle 0, x0, x1; ee the edges 0 .. x0 and x2 ..
 * x2 + x1).  Any direction is a valid axis for apart_on, so this needs
 * neither validation nor accuracy: it only makes the axis a good one, and
 * a degenerate triangle or edge still gives one (its closest side).
 */
static void closest_dir(int vf, const double x[3][3], double *a)
{
  if (vf) {
    const double o[3] = {0, 0, 0}, *p = x[2];
    double n[3], c[3], e[3] = {x[1][0] - x[0][0], x[1][1] - x[0][1], x[1][2] - x[0][2]}, best = INFINITY;
    cross(x[0], x[1], n);
    double nn = dot(n, n);
    if (nn > 0) {
      /* The projection on the plane, when inside: the face. */
      double h = dot(n, p) / nn, y[3], g[3];
      for (int k = 0; k < 3; k++)
        y[k] = p[k] - h * n[k];
      cross(x[0], y, g);
      double wc = dot(n, g) / nn;
      cross(y, x[1], g);
      double wb = dot(n, g) / nn;
      if (wb >= 0 && wc >= 0 && wb + wc <= 1) {
        for (int k = 0; k < 3; k++)
          a[k] = h * n[k];
        return;
      }
    }
    const double *from[3] = {o, o, x[0]}, *dir[3] = {x[0], x[1], e};
    a[0] = a[1] = a[2] = 0;
    for (int i = 0; i < 3; i++) {
      seg_closest(p, from[i], dir[i], c);
      double v[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]}, vv = dot(v, v);
      if (vv < best)
        best = vv, memcpy(a, v, sizeof v);
    }
    return;
  }
  /* The closest points S u and w + T v of the segments (Ericson sec.
     5.1.9; parallel or degenerate ones: S = 0 first). */
  const double *u = x[0], *v = x[1], *w = x[2];
  double A = dot(u, u), E = dot(v, v), B = dot(u, v), C = -dot(u, w), F = -dot(v, w), den = A * E - B * B;
  double S = den > 1e-14 * A * E ? clamp01((B * F - C * E) / den) : 0;
  double T = E > 0 ? (B * S + F) / E : 0;
  if (T < 0)
    T = 0, S = A > 0 ? clamp01(-C / A) : 0;
  else if (T > 1)
    T = 1, S = A > 0 ? clamp01((B - C) / A) : 0;
  for (int k = 0; k < 3; k++)
    a[k] = S * u[k] - (w[k] + T * v[k]);
}

/* Are the parties apart along one axis over all of [t0, t1]?  (The
   header's separating axis: the gap at both ends against its error.) */
static int apart_on(const rel *q, double t0, double t1)
{
  double tm = 0.5 * (t0 + t1), x[3][3], a[3];
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 3; k++)
      x[j][k] = q->D[j][k] + tm * q->R[j][k];
  closest_dir(q->vf, (const double(*)[3])x, a);
  double A[3] = {fabs(a[0]), fabs(a[1]), fabs(a[2])};
  double e = 0x1p-46 * (dot(A, q->B[0]) + dot(A, q->B[1]) + dot(A, q->B[2])) + 0x1p-1000;
  for (int end = 0; end < 2; end++) {
    double t = end ? t1 : t0, g;
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++)
        x[j][k] = q->D[j][k] + t * q->R[j][k];
    double p0 = dot(a, x[0]), p1 = dot(a, x[1]), p2 = dot(a, x[2]);
    if (q->vf) /* the node (at p2) beyond the corners (0, p0, p1) */
      g = p2 - fmax(0, fmax(p0, p1));
    else /* the first edge (0, p0) beyond the second (p2, p2 + p1) */
      g = fmin(0, p0) - fmax(p2, p2 + p1);
    if (!(g > e))
      return 0;
  }
  return 1;
}

#define MAX_DEPTH 60
#define MAX_EVALS 2048

/* The header's search; *hit and *t (t may be NULL) set. */
static void search(const rel *q, double tol, int *hit, double *t)
{
  double lo[MAX_DEPTH + 2], hi[MAX_DEPTH + 2];
  int depth[MAX_DEPTH + 2], sp = 1, evals = 0;
  lo[0] = 0, hi[0] = 1, depth[0] = 0;
  *hit = 0;
  while (sp > 0) {
    sp--;
    double t0 = lo[sp], t1 = hi[sp], mid = 0.5 * (t0 + t1);
    int d = depth[sp], leaf = t1 - t0 <= tol, certain = 0, flat = 0;
    coefs c;
    /* Within the budget: discard, halve, or fall through to report;
       past it, report.  Either way [t0, t1] is the earliest interval not
       excluded. */
    if (++evals <= MAX_EVALS) {
      if (!may(q, t0, t1, &c, leaf ? &certain : NULL, &flat) || (flat && apart_on(q, t0, t1)) ||
          (leaf && !certain && !tight(q, &c)))
        continue;
      if (!certain && d < MAX_DEPTH && t0 < mid && mid < t1) {
        /* The later half below the earlier, so the earlier is searched first. */
        lo[sp] = mid, hi[sp] = t1, depth[sp++] = d + 1;
        lo[sp] = t0, hi[sp] = mid, depth[sp++] = d + 1;
        continue;
      }
    }
    *hit = 1;
    if (t)
      *t = t0;
    return;
  }
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

/* Either test on the points in check_points' order (vf: p, a, b, c; ee:
   p, q, r, s; [2 k] at t = 0, [2 k + 1] at t = 1). */
static int ccd(int vf, const double *const *pts, double tol, int *hit, double *t)
{
  int rc = check_points(vf ? "cdyn_ccd_vf" : "cdyn_ccd_ee", pts, 8, tol, hit);
  if (rc)
    return rc;
  rel q;
  setup(vf, pts, &q);
  search(&q, tol, hit, t);
  return CDYN_OK;
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
