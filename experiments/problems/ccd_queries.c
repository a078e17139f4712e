/*
 * ccd_queries.c: the queries of the ccd-census experiment: random ones,
 * and the constructed degenerate families of ccd_queries.h (which gives
 * the constructions and why each answer is known), built exactly on
 * integers and mapped by an exact affine map.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cdyn/cdyn.h>

#include "problems/ccd_queries.h"

const char *const ccdq_family_names[CCDQ_NFAM] = {"random", "coplanar", "parallel", "root-t0",  "root-t1",
                                                  "vertex", "edge",     "leading-zero", "near-miss", "graze"};

/* ---- constructed queries ----------------------------------------------------------------- */

/*
 * Coordinates in units of 2^-40, as int64: a point's motion [0] at t = 0,
 * [1] at t = 1.  Positions are multiples of 2^-10 (2^30 units), velocities
 * of 2^-8 (2^32 units), so t* V = j V / 64 is an integer; every value
 * stays below 2^47 units, and below 2^53 after the map: exact in doubles.
 */
typedef int64_t cpt[2][3];
#define UNIT_POS ((int64_t)1 << 30)
#define UNIT_VEL ((int64_t)1 << 32)
#define GAP_NEAR ((int64_t)1 << 10) /* 2^-30 */
#define GAP_MID ((int64_t)1 << 20)  /* 2^-20 */

static int64_t irand(gsl_rng *r, long lo, long hi)
{
  return (int64_t)lo + (int64_t)gsl_rng_uniform_int(r, (unsigned long)(hi - lo + 1));
}

static int64_t rpos(gsl_rng *r) { return irand(r, -1024, 1024) * UNIT_POS; }
static int64_t rvel(gsl_rng *r) { return irand(r, -256, 256) * UNIT_VEL; }

/* Coordinate k of x: at X at t* = j / 64, velocity V. */
static void move1(cpt x, int k, int64_t X, int64_t V, int j)
{
  x[0][k] = X - j * (V / 64);
  x[1][k] = X + (64 - j) * (V / 64);
}

/* Coordinate k of x at t = 0 and t = 1. */
static void ends1(cpt x, int k, int64_t x0, int64_t x1)
{
  x[0][k] = x0;
  x[1][k] = x1;
}

/* Random positions (multiples of 2^-10 in [-1, 1]) of n points in the
   coordinates k with mask bit k set (others 0). */
static void rpoints(gsl_rng *r, int64_t (*X)[3], int n, int mask)
{
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      X[i][k] = mask >> k & 1 ? rpos(r) : 0;
}

/* |x|^2 >= 1/8 (in 2^-10 units, exact in int64: |x_k| <= 2^12). */
static int long_enough(const int64_t x[3])
{
  int64_t s = 0;
  for (int k = 0; k < 3; k++) {
    int64_t v = x[k] / UNIT_POS;
    s += v * v;
  }
  return s >= (int64_t)1 << 17;
}

static void sub3(int64_t out[3], const int64_t a[3], const int64_t b[3])
{
  for (int k = 0; k < 3; k++)
    out[k] = a[k] - b[k];
}

/* A triangle of positions in the coordinates of mask whose normal is not
   short: |(b - a) x (c - a)|^2 >= 1/64. */
static void rtriangle(gsl_rng *r, int64_t (*X)[3], int mask)
{
  for (;;) {
    rpoints(r, X, 3, mask);
    int64_t u[3], v[3], n[3];
    sub3(u, X[1], X[0]);
    sub3(v, X[2], X[0]);
    for (int k = 0; k < 3; k++) {
      int i = (k + 1) % 3, j = (k + 2) % 3;
      n[k] = (u[i] / UNIT_POS) * (v[j] / UNIT_POS) - (u[j] / UNIT_POS) * (v[i] / UNIT_POS);
    }
    int64_t s = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (s >= (int64_t)1 << 34)
      return;
  }
}

/* A segment (two positions) of length^2 >= 1/8 in the coordinates of mask. */
static void rsegment(gsl_rng *r, int64_t (*X)[3], int mask)
{
  int64_t d[3];
  do {
    rpoints(r, X, 2, mask);
    sub3(d, X[1], X[0]);
  } while (!long_enough(d));
}

/* (i0 a + i1 b + i2 c) / 8 with i0 + i1 + i2 = 8 (multiples of 2^27). */
static void bary(int64_t out[3], const int64_t (*T)[3], const int w[3])
{
  for (int k = 0; k < 3; k++)
    out[k] = (w[0] * T[0][k] + w[1] * T[1][k] + w[2] * T[2][k]) / 8;
}

/* Weights i / 8 summing to 1, each >= lo (0: the closed triangle, 1: its interior). */
static void rweights(gsl_rng *r, int w[3], int lo)
{
  w[1] = (int)irand(r, lo, 8 - 2 * lo);
  w[2] = (int)irand(r, lo, 8 - lo - w[1]);
  w[0] = 8 - w[1] - w[2];
}

/* a + (i / 8) (b - a) */
static void lerp8(int64_t out[3], const int64_t a[3], const int64_t b[3], int64_t i)
{
  for (int k = 0; k < 3; k++)
    out[k] = a[k] + i * (b[k] - a[k]) / 8;
}

/* Points at X (t*) with random velocities in the coordinates of vmask and
   velocity vz in z when fixz (else random or 0 as vmask says). */
static void move_all(gsl_rng *r, cpt *x, const int64_t (*X)[3], int n, int j, int vmask, int fixz, int64_t vz)
{
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      int64_t V = k == 2 && fixz ? vz : (vmask >> k & 1 ? rvel(r) : 0);
      move1(x[i], k, X[i][k], V, j);
    }
}

/* A gap for the coplanar and root families: 2^-30, 2^-20 or 2^-10. */
static int64_t rgap(gsl_rng *r) { return (int64_t)1 << (10 * irand(r, 1, 3)); }

/*
 * Coordinate 0 (x) of points first .. first + n - 1 at both ends: on the
 * side x >= 0 (side > 0, x in [0, 1]) or x <= -g (side < 0: at each end
 * -g, or at random further out).
 */
static void side_x(gsl_rng *r, cpt *x, int first, int n, int side, int64_t g)
{
  for (int i = first; i < first + n; i++)
    for (int e = 0; e < 2; e++) {
      if (side > 0)
        x[i][e][0] = irand(r, 0, 1024) * UNIT_POS;
      else
        x[i][e][0] = -g - (gsl_rng_uniform_int(r, 2) ? irand(r, 0, 1024) * UNIT_POS : 0);
    }
}

/*
 * The vf or ee configuration touching (hit) or apart across the plane
 * x = 0 by g (miss) at one instant in the plane z = 0, written at end e of
 * x (coordinates x, y; z is left to the caller): the triangle (or p q) and
 * the node (or r s).
 */
static void planar_at(gsl_rng *r, cpt *x, int ee, int hit, int64_t g, int e)
{
  int64_t X[4][3];
  if (hit && !ee) {
    rtriangle(r, X + 1, 3);
    int w[3];
    rweights(r, w, 0);
    bary(X[0], (const int64_t(*)[3])(X + 1), w);
  } else if (hit) {
    int64_t C[3], D[3];
    rsegment(r, X, 3);
    lerp8(C, X[0], X[1], irand(r, 0, 8));
    do
      rpoints(r, &D, 1, 3);
    while (!long_enough(D));
    int64_t b = irand(r, 0, 8);
    for (int k = 0; k < 3; k++) {
      X[2][k] = C[k] - b * D[k] / 8;
      X[3][k] = C[k] + (8 - b) * D[k] / 8;
    }
  } else {
    /* x: the triangle (p q) at x >= 0, the node (r s) at x <= -g; the
       triangle not flat, the edges not points. */
    do
      for (int i = 0; i < 4; i++) {
        int apart = ee ? i >= 2 : i == 0;
        X[i][0] = apart ? -g - (gsl_rng_uniform_int(r, 2) ? irand(r, 0, 1024) * UNIT_POS : 0)
                        : irand(r, 0, 1024) * UNIT_POS;
        X[i][1] = rpos(r);
      }
    while (ee ? (X[0][0] == X[1][0] && X[0][1] == X[1][1]) || (X[2][0] == X[3][0] && X[2][1] == X[3][1])
              : (X[2][0] - X[1][0]) / UNIT_POS * ((X[3][1] - X[1][1]) / UNIT_POS) ==
                  (X[2][1] - X[1][1]) / UNIT_POS * ((X[3][0] - X[1][0]) / UNIT_POS));
  }
  for (int i = 0; i < 4; i++) {
    x[i][e][0] = X[i][0];
    x[i][e][1] = X[i][1];
  }
}

/*
 * A separated configuration across x = 0 with the closest approach g at
 * t* = j / 64 (g = 0: touching), for vertex, edge, near-miss and graze:
 * `feature` 0: the node beside vertex a (ee: end r beside end p); 1:
 * beside the interior point a + mu (b - a) (ee: end r beside p + mu (q -
 * p)).  The triangle (p q) at x >= 0 with a (and b for an edge; p, q)
 * on x = 0 throughout; the node (r, and s further) at x = -g throughout;
 * y and z at t* random with random velocities.
 */
static void beside(gsl_rng *r, cpt *x, int ee, int feature, int64_t g, int j)
{
  int64_t X[4][3];
  /* y, z at t*: the triangle or p q with its feature's parts apart. */
  if (!ee) {
    rtriangle(r, X + 1, 6);
    if (feature)
      lerp8(X[0], X[1], X[2], irand(r, 1, 7));
    else
      memcpy(X[0], X[1], sizeof X[0]);
  } else {
    rsegment(r, X, 6);
    rpoints(r, X + 3, 1, 6);
    if (feature)
      lerp8(X[2], X[0], X[1], irand(r, 1, 7));
    else
      for (int k = 0; k < 3; k++)
        X[2][k] = X[0][k];
  }
  for (int i = 0; i < 4; i++)
    for (int k = 1; k < 3; k++)
      move1(x[i], k, X[i][k], rvel(r), j);
  /* x at both ends. */
  if (!ee) {
    ends1(x[0], 0, -g, -g);
    ends1(x[1], 0, 0, 0);
    for (int i = 2; i < 4; i++)
      if (i == 2 && feature)
        ends1(x[2], 0, 0, 0);
      else
        ends1(x[i], 0, irand(r, 1, 1024) * UNIT_POS, irand(r, 1, 1024) * UNIT_POS);
  } else {
    ends1(x[0], 0, 0, 0);
    if (feature)
      ends1(x[1], 0, 0, 0);
    else
      ends1(x[1], 0, irand(r, 1, 1024) * UNIT_POS, irand(r, 1, 1024) * UNIT_POS);
    ends1(x[2], 0, -g, -g);
    ends1(x[3], 0, -g - irand(r, 0, 1024) * UNIT_POS, -g - irand(r, 0, 1024) * UNIT_POS);
  }
}

/*
 * The face (ee: crossing) case of near-miss and graze: at end e the node
 * at height g above an interior point of the triangle, which stays in
 * z = 0 (ee: r s at depth g under p q, crossing it in x, y at interior
 * parameters; r s deeper at the other end, p q in z = 0).
 */
static void above(gsl_rng *r, cpt *x, int ee, int64_t g, int e)
{
  int64_t X[4][3];
  if (!ee) {
    rtriangle(r, X + 1, 3);
    int w[3];
    rweights(r, w, 1);
    bary(X[0], (const int64_t(*)[3])(X + 1), w);
  } else {
    int64_t C[3], D[3];
    rsegment(r, X, 3);
    lerp8(C, X[0], X[1], irand(r, 1, 7));
    do
      rpoints(r, &D, 1, 3);
    while (!long_enough(D));
    int64_t b = irand(r, 1, 7);
    for (int k = 0; k < 3; k++) {
      X[2][k] = C[k] - b * D[k] / 8;
      X[3][k] = C[k] + (8 - b) * D[k] / 8;
    }
  }
  for (int i = 0; i < 4; i++) {
    for (int k = 0; k < 2; k++) {
      x[i][e][k] = X[i][k];
      x[i][1 - e][k] = rpos(r);
    }
    int apart = ee ? i >= 2 : i == 0, sgn = ee ? -1 : 1;
    x[i][e][2] = apart ? sgn * g : 0;
    x[i][1 - e][2] = apart ? sgn * (g + irand(r, 1, 1024) * UNIT_POS) : 0;
  }
}

/* One draw of the constructed query `i` of family fam and kind ee in
   units, and what it was built to be. */
static void construct_once(gsl_rng *r, int fam, int ee, unsigned long i, cpt *x, ccdq_info *info)
{
  int hit = fam == CCDQ_GRAZE || (fam != CCDQ_NEAR_MISS && i % 2 == 0);
  int j = (int)irand(r, 1, 63);
  int64_t X[4][3];
  info->built = hit;
  info->j = -1;
  info->feature = CCDQ_AT_NONE;
  info->gap = -1;
  memset(x, 0, 4 * sizeof *x);
  switch (fam) {
  case CCDQ_COPLANAR:
    if (hit) {
      planar_at(r, x, ee, 1, 0, 0);
      /* planar_at wrote end 0; take it as t* and move in the plane. */
      for (int p = 0; p < 4; p++)
        for (int k = 0; k < 2; k++)
          X[p][k] = x[p][0][k];
      for (int p = 0; p < 4; p++) {
        X[p][2] = 0;
        for (int k = 0; k < 3; k++)
          move1(x[p], k, X[p][k], k < 2 ? rvel(r) : 0, j);
      }
      info->j = j;
    } else {
      int64_t g = rgap(r);
      side_x(r, x, ee ? 0 : 1, ee ? 2 : 3, 1, g);
      side_x(r, x, ee ? 2 : 0, ee ? 2 : 1, -1, g);
      for (int p = 0; p < 4; p++)
        for (int e = 0; e < 2; e++)
          x[p][e][1] = rpos(r);
    }
    break;
  case CCDQ_PARALLEL:
    if (!ee) {
      rtriangle(r, X + 1, 7);
      int64_t VT[3], U[3];
      for (int k = 0; k < 3; k++)
        VT[k] = rvel(r);
      sub3(U, X[2], X[1]);
      for (int p = 1; p < 4; p++)
        for (int k = 0; k < 3; k++)
          move1(x[p], k, X[p][k], VT[k], j);
      /* The node at parameter mu(t) of a b (in eighths), linear in t. */
      if (hit) {
        /* mu(t) = mu + lam (t - t*): at a + mu (b - a) / 8 at t*, with
           the velocity VT + lam (b - a) / 8. */
        int64_t mu = irand(r, 0, 8), lam = irand(r, -8, 8);
        for (int k = 0; k < 3; k++)
          move1(x[0], k, X[1][k] + mu * U[k] / 8, VT[k] + lam * U[k] / 8, j);
        info->j = j;
      } else {
        /* Beyond b, or before a, at both ends. */
        int64_t mu0, mu1;
        if (gsl_rng_uniform_int(r, 2))
          mu0 = 8 + irand(r, 1, 8), mu1 = 8 + irand(r, 1, 8);
        else
          mu0 = -irand(r, 1, 8), mu1 = -irand(r, 1, 8);
        for (int k = 0; k < 3; k++)
          ends1(x[0], k, x[1][0][k] + mu0 * U[k] / 8, x[1][1][k] + mu1 * U[k] / 8);
      }
    } else {
      int64_t U[3], V1[3], V2[3], kap, rho;
      rsegment(r, X, 7);
      sub3(U, X[1], X[0]);
      kap = irand(r, 1, 8) * (gsl_rng_uniform_int(r, 2) ? 1 : -1); /* in quarters */
      /* Relative velocity not along U (in 2^-8 and 2^-10 units: exact). */
      for (;;) {
        for (int k = 0; k < 3; k++)
          V1[k] = rvel(r), V2[k] = rvel(r);
        int64_t c = 0;
        for (int k = 0; k < 3; k++) {
          int a = (k + 1) % 3, b = (k + 2) % 3;
          int64_t w = ((V2[a] - V1[a]) / UNIT_VEL) * (U[b] / UNIT_POS) - ((V2[b] - V1[b]) / UNIT_VEL) * (U[a] / UNIT_POS);
          c |= w;
        }
        if (c)
          break;
      }
      /* r at parameter rho (eighths) of p q at t*, s = r + kappa U. */
      if (hit)
        rho = irand(r, 0, 8);
      else if (gsl_rng_uniform_int(r, 2))
        rho = 8 + irand(r, 1, 8) - (kap < 0 ? 2 * kap : 0); /* beyond q */
      else
        rho = -irand(r, 1, 8) - (kap > 0 ? 2 * kap : 0); /* before p */
      for (int k = 0; k < 3; k++) {
        X[2][k] = X[0][k] + rho * U[k] / 8;
        X[3][k] = X[2][k] + kap * U[k] / 4;
      }
      for (int p = 0; p < 4; p++)
        for (int k = 0; k < 3; k++)
          move1(x[p], k, X[p][k], p < 2 ? V1[k] : V2[k], j);
      info->j = j; /* on one line then */
    }
    break;
  case CCDQ_ROOT_T0:
  case CCDQ_ROOT_T1:
    planar_at(r, x, ee, hit, rgap(r), 0);
    for (int p = 0; p < 4; p++) {
      int up = ee ? p >= 2 : p == 0;
      x[p][1][0] = rpos(r);
      x[p][1][1] = rpos(r);
      x[p][0][2] = 0;
      x[p][1][2] = up ? irand(r, 1, 1024) * UNIT_POS : -irand(r, 0, 1024) * UNIT_POS;
    }
    info->j = fam == CCDQ_ROOT_T1 ? 64 : 0;
    if (fam == CCDQ_ROOT_T1)
      for (int p = 0; p < 4; p++)
        for (int k = 0; k < 3; k++) {
          int64_t t = x[p][0][k];
          x[p][0][k] = x[p][1][k];
          x[p][1][k] = t;
        }
    break;
  case CCDQ_VERTEX:
  case CCDQ_EDGE:
    info->j = j;
    info->feature = fam == CCDQ_EDGE ? CCDQ_AT_EDGE : CCDQ_AT_VERTEX;
    info->gap = hit ? 0 : ldexp(1, -20);
    if (!hit) {
      beside(r, x, ee, fam == CCDQ_EDGE, GAP_MID, j);
      break;
    }
    if (!ee) {
      rtriangle(r, X + 1, 7);
      if (fam == CCDQ_EDGE)
        lerp8(X[0], X[1], X[2], irand(r, 1, 7));
      else
        memcpy(X[0], X[1], sizeof X[0]);
    } else {
      rsegment(r, X, 7);
      rpoints(r, X + 3, 1, 7);
      if (fam == CCDQ_EDGE)
        lerp8(X[2], X[0], X[1], irand(r, 1, 7));
      else
        memcpy(X[2], X[0], sizeof X[0]);
    }
    move_all(r, x, (const int64_t(*)[3])X, 4, j, 7, 0, 0);
    break;
  case CCDQ_LEADING_ZERO: {
    int64_t w = rvel(r);
    if (!hit) {
      side_x(r, x, ee ? 0 : 1, ee ? 2 : 3, 1, GAP_MID);
      side_x(r, x, ee ? 2 : 0, ee ? 2 : 1, -1, GAP_MID);
      rpoints(r, X, 4, 6);
      for (int p = 0; p < 4; p++) {
        move1(x[p], 1, X[p][1], rvel(r), j);
        move1(x[p], 2, X[p][2], w, j);
      }
      break;
    }
    if (!ee) {
      rtriangle(r, X + 1, 7);
      int wt[3];
      rweights(r, wt, 0);
      bary(X[0], (const int64_t(*)[3])(X + 1), wt);
    } else {
      int64_t C[3], D[3];
      rsegment(r, X, 7);
      lerp8(C, X[0], X[1], irand(r, 1, 7));
      do
        rpoints(r, &D, 1, 7);
      while (!long_enough(D));
      int64_t b = irand(r, 1, 7);
      for (int k = 0; k < 3; k++) {
        X[2][k] = C[k] - b * D[k] / 8;
        X[3][k] = C[k] + (8 - b) * D[k] / 8;
      }
    }
    move_all(r, x, (const int64_t(*)[3])X, 4, j, 3, 1, w);
    info->j = j;
    break;
  }
  case CCDQ_NEAR_MISS:
  case CCDQ_GRAZE: {
    int64_t g = fam == CCDQ_NEAR_MISS ? GAP_NEAR : 0;
    int sub = (int)(i % 3), e = (int)(i / 3 % 2) ? 0 : 1;
    if (sub == 0)
      above(r, x, ee, g, e);
    else
      beside(r, x, ee, sub == 1, g, j);
    info->j = sub ? j : 64 * e;
    info->feature = sub == 0 ? CCDQ_AT_FACE : sub == 1 ? CCDQ_AT_EDGE : CCDQ_AT_VERTEX;
    info->gap = ldexp((double)g, -40);
    break;
  }
  default:
    break;
  }
}

/*
 * Does the triangle tri[0 .. 2], moving in the plane z = 0, keep the
 * orientation of its (x, y) throughout the step, so that it never
 * degenerates?  Its signed area A(t) = a0 + a1 t + a2 t^2 (u = b - a and
 * v = c - a linear in t, A = u x v) has the sign of its Bernstein
 * coefficients a0, a0 + a1 / 2, a0 + a1 + a2 on [0, 1] when they share
 * one.  Exact in int64: the coordinates are multiples of 2^-14 (2^26
 * units) below 4, so products stay below 2^40 steps.
 */
static int keeps_orientation(cpt *tri)
{
  const int64_t step = (int64_t)1 << 26;
  int64_t u[2][2], v[2][2];
  for (int e = 0; e < 2; e++)
    for (int k = 0; k < 2; k++) {
      int64_t du = tri[1][e][k] - tri[0][e][k], dv = tri[2][e][k] - tri[0][e][k];
      if (du % step || dv % step)
        return 0;
      u[e][k] = du / step, v[e][k] = dv / step;
    }
  int64_t a0 = u[0][0] * v[0][1] - u[0][1] * v[0][0], at1 = u[1][0] * v[1][1] - u[1][1] * v[1][0];
  int64_t a1 = u[0][0] * (v[1][1] - v[0][1]) - u[0][1] * (v[1][0] - v[0][0]) + (u[1][0] - u[0][0]) * v[0][1] -
               (u[1][1] - u[0][1]) * v[0][0];
  int64_t b[3] = {2 * a0, 2 * a0 + a1, 2 * at1}; /* at1 = A(1) = a0 + a1 + a2 */
  return (b[0] > 0 && b[1] > 0 && b[2] > 0) || (b[0] < 0 && b[1] < 0 && b[2] < 0);
}

/* The constructed query `i` (construct_once), drawn again while a
   triangle confined to a plane would degenerate during the step. */
static int construct(gsl_rng *r, int fam, int ee, unsigned long i, cpt *x, ccdq_info *info)
{
  int planar = !ee && (fam == CCDQ_COPLANAR || ((fam == CCDQ_NEAR_MISS || fam == CCDQ_GRAZE) && i % 3 == 0));
  for (int attempt = 0; attempt < 1000; attempt++) {
    construct_once(r, fam, ee, i, x, info);
    if (!planar || keeps_orientation(x + 1))
      return CDYN_OK;
  }
  return cdyn_error(CDYN_EINVAL, "ccd queries: no triangle keeping its orientation in 1000 draws (%s, query %lu)",
                    ccdq_family_names[fam], i);
}

/* A random invertible integer matrix with entries -1, 0, 1. */
static void rmatrix(gsl_rng *r, int64_t M[3][3])
{
  for (;;) {
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        M[a][b] = irand(r, -1, 1);
    int64_t det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                  M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                  M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
    if (det)
      return;
  }
}

/* The query in doubles: maybe mapped by 2^s (M x + T); every value an
   integer below 2^52 units, so exact (CDYN_EINVAL if one is not, which
   the construction rules out). */
static int to_doubles(gsl_rng *r, cpt *x, double q[4][2][3])
{
  int64_t M[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, T[3] = {0, 0, 0};
  int s = 0;
  if (gsl_rng_uniform_int(r, 2)) {
    rmatrix(r, M);
    for (int k = 0; k < 3; k++)
      T[k] = rpos(r);
    s = (int)irand(r, -2, 2);
  }
  /* |x| < 2^50 keeps |M x + T| below 2^52. */
  const int64_t lim = (int64_t)1 << 50;
  for (int p = 0; p < 4; p++)
    for (int e = 0; e < 2; e++)
      for (int a = 0; a < 3; a++) {
        int64_t v = T[a];
        for (int b = 0; b < 3; b++) {
          if (x[p][e][b] <= -lim || x[p][e][b] >= lim)
            return cdyn_error(CDYN_EINVAL, "ccd queries: a constructed coordinate out of range");
          v += M[a][b] * x[p][e][b];
        }
        q[p][e][a] = ldexp((double)v, s - 40);
      }
  return CDYN_OK;
}

/* ---- random queries --------------------------------------------------------------------- */

int ccdq_random(gsl_rng *r, int ee, unsigned long i, double x[4][2][3])
{
  if (!r || !x || (ee != 0 && ee != 1))
    return cdyn_error(CDYN_EINVAL, "ccdq_random: no kind %d (or a NULL argument)", ee);
  for (int p = 0; p < 4; p++)
    for (int k = 0; k < 3; k++) {
      x[p][0][k] = gsl_rng_uniform(r);
      x[p][1][k] = x[p][0][k] + (gsl_rng_uniform(r) - 0.5);
    }
  if (i % 3)
    return CDYN_OK;
  /* Shifted to cross at tc: the node (edge r s) moved rigidly. */
  double tc = gsl_rng_uniform(r), X[4][3], s[3];
  for (int p = 0; p < 4; p++)
    for (int k = 0; k < 3; k++)
      X[p][k] = x[p][0][k] + tc * (x[p][1][k] - x[p][0][k]);
  if (!ee) {
    double w1 = 0.05 + 0.4 * gsl_rng_uniform(r), w2 = 0.05 + 0.4 * gsl_rng_uniform(r);
    for (int k = 0; k < 3; k++)
      s[k] = (1 - w1 - w2) * X[1][k] + w1 * X[2][k] + w2 * X[3][k] - X[0][k];
    for (int e = 0; e < 2; e++)
      for (int k = 0; k < 3; k++)
        x[0][e][k] += s[k];
  } else {
    double al = 0.05 + 0.9 * gsl_rng_uniform(r), be = 0.05 + 0.9 * gsl_rng_uniform(r);
    for (int k = 0; k < 3; k++)
      s[k] = X[0][k] + al * (X[1][k] - X[0][k]) - (X[2][k] + be * (X[3][k] - X[2][k]));
    for (int p = 2; p < 4; p++)
      for (int e = 0; e < 2; e++)
        for (int k = 0; k < 3; k++)
          x[p][e][k] += s[k];
  }
  return CDYN_OK;
}

/* ---- constructed queries, in doubles ------------------------------------------------------- */

int ccdq_constructed(gsl_rng *r, int fam, int ee, unsigned long i, double x[4][2][3], ccdq_info *info)
{
  if (!r || !x || !info || fam <= CCDQ_RANDOM || fam >= CCDQ_NFAM || (ee != 0 && ee != 1))
    return cdyn_error(CDYN_EINVAL, "ccdq_constructed: no family %d of kind %d (or a NULL argument)", fam, ee);
  cpt c[4];
  int rc = construct(r, fam, ee, i, c, info);
  return rc ? rc : to_doubles(r, c, x);
}
