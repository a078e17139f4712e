/*
 * reference/ccd_exact.c: exact continuous collision detection on the
 * doubles given, in integer arithmetic (doc/cloth.md, "An exact reference
 * is possible"; Provot 1997 and Bridson, Fedkiw, Anderson 2002 for the
 * coplanarity cubic; Sturm sequences, pseudo-remainders and Bernstein
 * coefficients as in Basu, Pollack and Roy, "Algorithms in Real Algebraic
 * Geometry", ch. 2, 8 and 10).
 *
 * With linear motion every point is x(t) = x0 + t d, d = x1 - x0, and all
 * quantities below are polynomials in t, computed exactly:
 *   node-triangle  f(t) = n . (p - a),  n = (b - a) x (c - a)     (cubic)
 *                  inside: s_ab = n . ((b - a) x (p - a)) >= 0, and the
 *                  same for (b, c) and (c, a)                    (quartics)
 *   edge-edge      u = q - p, v = s - r, w = r - p, m = u x v
 *                  f(t) = m . w                                  (cubic)
 *                  meet: A = (w x v) . m in [0, m.m], B = (w x u) . m in
 *                  [0, m.m]  (the closest points' parameters A / m.m and
 *                  B / m.m on the two edges)                     (quartics)
 * A contact is a t in [0, 1] where f(t) = 0 and every inside condition
 * holds.  If f is not identically zero, the candidates are its roots in
 * [0, 1]; if it is (coplanar motion), the set where the conditions hold is
 * closed, so if it is not empty its least element is t = 0 or a root of one
 * of the conditions, and those are the candidates.
 *
 * Integers.  Every double is m 2^e with m an odd integer (or zero), so
 * with E the least such e over the 24 inputs every coordinate times 2^-E
 * is an integer (GMP's mpz_t, exact whatever the exponents).  f and the
 * conditions are homogeneous in the coordinates (of degree 3 and 4), so
 * the scaling changes neither a sign nor a root, and every polynomial has
 * integer coefficients.  Remainders are pseudo-remainders: a - q b is
 * replaced by a positive multiple, |lc(b)|^k a - q' b, and a polynomial by
 * its primitive part (divided by the positive gcd of its coefficients);
 * positive factors change no sign and no root, which is all that the
 * Sturm sequences, gcds and square-free parts below are used for.  Every
 * point at which a polynomial is evaluated comes from halving [0, 1], so
 * it is a dyadic a / 2^k, and the sign of p(a / 2^k), p of degree n, is
 * that of the integer 2^(kn) p(a / 2^k) (Horner's rule on integers).
 *
 * Exact early outs, before any root is isolated:
 * - Separation along an axis: if along x, y or z the node lies strictly
 *   beyond every vertex of the triangle at t = 0 and at t = 1 (comparisons
 *   of doubles are exact), it does so for every t, the differences being
 *   linear in t, and there is no contact; likewise for edge-edge, every end
 *   of one edge against every end of the other.
 * - Bernstein coefficients: on [0, 1] a polynomial a_0 + ... + a_n t^n is
 *   a convex combination of b_i = sum_{j <= i} C(i, j) / C(n, j) a_j
 *   (12 b_i are integers for n <= 4).  If they are all of one strict sign,
 *   f has no root in [0, 1]: no contact, since a contact makes the four
 *   points coplanar (f = 0), for both kinds.  If those of a condition are
 *   all negative, it is negative throughout: no contact either (at a
 *   contact every condition is >= 0, and where the triangle or the edges
 *   are degenerate, n = 0 or m = 0, the conditions are 0).
 * - Node on segment (parallel edges, below): a component of the cross
 *   product with Bernstein coefficients of one strict sign has no root in
 *   [0, 1]: the node is never on the segment's line.
 * The early outs find that there is no contact even where the triangle or
 * an edge degenerates somewhere in the step: only a candidate contact time
 * can be reported as degenerate.  The same test on a root's isolating
 * interval (the polynomial mapped onto [0, 1]) gives the sign of a
 * condition at the root when it is conclusive, before any gcd or Sturm
 * sequence of the condition (sign_at_root).
 *
 * Roots are isolated exactly: the square-free part g of the polynomial
 * has simple roots, counted in (lo, hi] by Sturm's sequence of g, and
 * [0, 1] is bisected until each interval holds one root.  A root that
 * lands on a bisection point is evaluated exactly.  The sign of a
 * condition s at a root t* of g inside (lo, hi): s(t*) = 0 exactly when
 * gcd(g, s) has a root in the interval; otherwise the interval is refined
 * (following g's root by Sturm counts) until s has no root in it, and
 * s(t*) has the sign of s at its right end.  Nothing is rounded.
 *
 * Parallel edges (m = 0), where the crossing conditions all vanish, are
 * decided by the ends: two closed segments that meet while parallel have
 * an end of one on the other, and a contact that begins where the edges
 * turn parallel is such a meeting (the contact set is closed), so the
 * edge-edge answer is the earliest of the crossing of non-parallel edges
 * and the four end-on-edge events (a node x on [y, z]: the common roots of
 * the components of (x - y) x (z - y), with 0 <= (x - y).(z - y) <=
 * |z - y|^2).  A triangle of zero area (n = 0) at a contact candidate, or
 * an edge of zero length, is reported as REF_CCD_DEGENERATE.
 *
 * Not thread-safe: scratch integers are made once and reused.
 */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <gmp.h>

#include "reference/ccd_exact.h"

/* The highest degree that occurs: the inside conditions and |n|^2, |m|^2
   are quartics (products of two quadratics). */
#define MAXD 4

typedef struct {
  int deg; /* -1: the zero polynomial; coefficients above deg are unused */
  mpz_t c[MAXD + 1];
} poly;

static void p_init(poly *p)
{
  for (int k = 0; k <= MAXD; k++)
    mpz_init(p->c[k]);
  p->deg = -1;
}

static void p_clear(poly *p)
{
  for (int k = 0; k <= MAXD; k++)
    mpz_clear(p->c[k]);
}

static void p_trim(poly *p)
{
  while (p->deg >= 0 && mpz_sgn(p->c[p->deg]) == 0)
    p->deg--;
}

static void p_copy(poly *dst, const poly *src)
{
  if (dst == src)
    return;
  for (int k = 0; k <= src->deg; k++)
    mpz_set(dst->c[k], src->c[k]);
  dst->deg = src->deg;
}

/* Scratch, made once (the reference is single-threaded): the integers of
   evaluation and pseudo-division, and the product of p_mul, so that the
   frequent operations allocate nothing once their numbers have grown. */
static mpz_t z_acc, z_tmp, z_lb, z_lr, z_d1, z_d2;
static poly scratch_mul;
static int scratch_ready;

static void scratch_init(void)
{
  if (!scratch_ready) {
    mpz_init(z_acc);
    mpz_init(z_tmp);
    mpz_init(z_lb);
    mpz_init(z_lr);
    mpz_init(z_d1);
    mpz_init(z_d2);
    p_init(&scratch_mul);
    scratch_ready = 1;
  }
}

/* r = a + sign b (r may be a or b) */
static void p_addsub(poly *r, const poly *a, const poly *b, int sign)
{
  int d = a->deg > b->deg ? a->deg : b->deg;
  for (int k = 0; k <= d; k++) {
    if (k <= a->deg && k <= b->deg) {
      if (sign > 0)
        mpz_add(r->c[k], a->c[k], b->c[k]);
      else
        mpz_sub(r->c[k], a->c[k], b->c[k]);
    } else if (k <= a->deg) {
      mpz_set(r->c[k], a->c[k]);
    } else if (sign > 0) {
      mpz_set(r->c[k], b->c[k]);
    } else {
      mpz_neg(r->c[k], b->c[k]);
    }
  }
  r->deg = d;
  p_trim(r);
}

/* r = a b (r may be a or b) */
static void p_mul(poly *r, const poly *a, const poly *b)
{
  scratch_init();
  if (a->deg < 0 || b->deg < 0) {
    r->deg = -1;
    return;
  }
  int d = a->deg + b->deg;
  if (d > MAXD)
    abort(); /* a product of degree above MAXD: not one this file forms */
  poly *t = &scratch_mul;
  for (int k = 0; k <= d; k++)
    mpz_set_ui(t->c[k], 0);
  for (int i = 0; i <= a->deg; i++)
    for (int j = 0; j <= b->deg; j++)
      mpz_addmul(t->c[i + j], a->c[i], b->c[j]);
  for (int k = 0; k <= d; k++)
    mpz_swap(r->c[k], t->c[k]);
  r->deg = d;
  p_trim(r);
}

/* r = a' (r may be a) */
static void p_deriv(poly *r, const poly *a)
{
  for (int k = 1; k <= a->deg; k++)
    mpz_mul_ui(r->c[k - 1], a->c[k], (unsigned long)k);
  r->deg = a->deg >= 1 ? a->deg - 1 : -1;
  p_trim(r);
}

static void p_neg(poly *p)
{
  for (int k = 0; k <= p->deg; k++)
    mpz_neg(p->c[k], p->c[k]);
}

/* p divided by the (positive) gcd of its coefficients: the signs stay. */
static void p_primitive(poly *p)
{
  if (p->deg < 0)
    return;
  scratch_init();
  mpz_abs(z_tmp, p->c[p->deg]);
  for (int k = p->deg - 1; k >= 0 && mpz_cmp_ui(z_tmp, 1) != 0; k--)
    mpz_gcd(z_tmp, z_tmp, p->c[k]);
  if (mpz_cmp_ui(z_tmp, 1) != 0)
    for (int k = 0; k <= p->deg; k++)
      mpz_divexact(p->c[k], p->c[k], z_tmp);
}

/* The primitive part with a positive leading coefficient (for gcds and
   square-free parts, of which only the roots are used). */
static void p_normal(poly *p)
{
  p_primitive(p);
  if (p->deg >= 0 && mpz_sgn(p->c[p->deg]) < 0)
    p_neg(p);
}

/*
 * Pseudo-division by b (not zero): r and q (q may be NULL) with
 * M a = q b + r, deg r < deg b, M > 0 a power of |lc(b)|.  Each step takes
 * r <- |lc(b)| r - sgn(lc(b)) lc(r) t^s b, which cancels r's leading term
 * and multiplies what was there by the positive |lc(b)|.  r may be a;
 * neither r nor q may be b, q may not be a.
 */
static void p_prem(poly *r, poly *q, const poly *a, const poly *b)
{
  scratch_init();
  p_copy(r, a);
  int sb = mpz_sgn(b->c[b->deg]);
  mpz_abs(z_lb, b->c[b->deg]);
  if (q)
    q->deg = -1;
  while (r->deg >= b->deg) {
    int s = r->deg - b->deg;
    mpz_set(z_lr, r->c[r->deg]);
    if (sb < 0)
      mpz_neg(z_lr, z_lr); /* z_lr = sgn(lc(b)) lc(r) */
    for (int k = 0; k < r->deg; k++)
      mpz_mul(r->c[k], r->c[k], z_lb);
    for (int k = 0; k < b->deg; k++)
      mpz_submul(r->c[k + s], z_lr, b->c[k]);
    /* The leading term: |lc(b)| lc(r) - sgn(lc(b)) lc(r) lc(b) = 0. */
    r->deg--;
    p_trim(r);
    if (q) {
      if (q->deg < 0) {
        for (int k = 0; k <= s; k++)
          mpz_set_ui(q->c[k], 0);
        q->deg = s;
      } else {
        for (int k = 0; k <= q->deg; k++)
          mpz_mul(q->c[k], q->c[k], z_lb);
      }
      mpz_add(q->c[s], q->c[s], z_lr);
    }
  }
}

/* A greatest common divisor (primitive, positive leading coefficient; the
   zero polynomial if both are zero), by the primitive remainder sequence. */
static void p_gcd(poly *g, const poly *a, const poly *b)
{
  poly buf[3];
  for (int k = 0; k < 3; k++)
    p_init(&buf[k]);
  poly *x = &buf[0], *y = &buf[1], *r = &buf[2];
  p_copy(x, a);
  p_primitive(x);
  p_copy(y, b);
  p_primitive(y);
  while (y->deg >= 0) {
    p_prem(r, NULL, x, y);
    p_primitive(r);
    poly *t = x;
    x = y;
    y = r;
    r = t;
  }
  p_normal(x);
  p_copy(g, x);
  for (int k = 0; k < 3; k++)
    p_clear(&buf[k]);
}

/* A multiple of the square-free part a / gcd(a, a') (r not a). */
static void p_sqfree(poly *r, const poly *a)
{
  poly d, g, rem;
  p_init(&d);
  p_init(&g);
  p_init(&rem);
  p_deriv(&d, a);
  p_gcd(&g, a, &d);
  if (g.deg >= 1)
    p_prem(&rem, r, a, &g); /* rem = 0: g divides a */
  else
    p_copy(r, a);
  p_normal(r);
  p_clear(&d);
  p_clear(&g);
  p_clear(&rem);
}

/* ---- dyadic rationals ------------------------------------------------------------------ */

typedef struct {
  mpz_t n;
  unsigned long k; /* the value n / 2^k */
} dyad;

static void d_init(dyad *x)
{
  mpz_init(x->n);
  x->k = 0;
}

static void d_clear(dyad *x) { mpz_clear(x->n); }

static void d_set(dyad *x, const dyad *y)
{
  mpz_set(x->n, y->n);
  x->k = y->k;
}

static void d_set_ui(dyad *x, unsigned long v)
{
  mpz_set_ui(x->n, v);
  x->k = 0;
}

/* Lowest terms: n odd or k = 0. */
static void d_reduce(dyad *x)
{
  if (mpz_sgn(x->n) == 0) {
    x->k = 0;
    return;
  }
  unsigned long tz = mpz_scan1(x->n, 0);
  if (tz > x->k)
    tz = x->k;
  if (tz) {
    mpz_fdiv_q_2exp(x->n, x->n, tz);
    x->k -= tz;
  }
}

/* m = (a + b) / 2 (m may be a or b) */
static void d_mid(dyad *m, const dyad *a, const dyad *b)
{
  scratch_init();
  unsigned long K = a->k > b->k ? a->k : b->k;
  mpz_mul_2exp(z_d1, a->n, K - a->k);
  mpz_mul_2exp(z_d2, b->n, K - b->k);
  mpz_add(m->n, z_d1, z_d2);
  m->k = K + 1;
  d_reduce(m);
}

/* m = b - a, in lowest terms */
static void d_sub(dyad *m, const dyad *b, const dyad *a)
{
  scratch_init();
  unsigned long K = a->k > b->k ? a->k : b->k;
  mpz_mul_2exp(z_d1, a->n, K - a->k);
  mpz_mul_2exp(z_d2, b->n, K - b->k);
  mpz_sub(m->n, z_d2, z_d1);
  m->k = K;
  d_reduce(m);
}

static int d_cmp(const dyad *a, const dyad *b)
{
  scratch_init();
  unsigned long K = a->k > b->k ? a->k : b->k;
  mpz_mul_2exp(z_d1, a->n, K - a->k);
  mpz_mul_2exp(z_d2, b->n, K - b->k);
  return mpz_cmp(z_d1, z_d2);
}

/* x (>= 0) as a double, rounded down or up. */
static double d_get_d(const dyad *x, int up)
{
  if (mpz_sgn(x->n) == 0)
    return 0;
  long e;
  double m = mpz_get_d_2exp(&e, x->n); /* truncated: m 2^e <= n */
  size_t bits = mpz_sizeinbase(x->n, 2);
  if (up && bits > 53 && mpz_scan1(x->n, 0) < bits - 53)
    m = nextafter(m, INFINITY);
  return ldexp(m, (int)(e - (long)x->k));
}

/* The sign of p at x: of the integer 2^(k deg) p(n / 2^k). */
static int p_sign_at(const poly *p, const dyad *x)
{
  if (p->deg < 0)
    return 0;
  scratch_init();
  mpz_set(z_acc, p->c[p->deg]);
  for (int j = p->deg - 1; j >= 0; j--) {
    mpz_mul(z_acc, z_acc, x->n);
    mpz_mul_2exp(z_tmp, p->c[j], x->k * (unsigned long)(p->deg - j));
    mpz_add(z_acc, z_acc, z_tmp);
  }
  return mpz_sgn(z_acc);
}

/*
 * +1 or -1 when the Bernstein coefficients of p on [0, 1] all have that
 * strict sign (p has no root in [0, 1] and that sign there), else 0.
 * 12 b_i = sum_{j <= i} C(i, j) (12 / C(n, j)) a_j, integers for n <= 4.
 */
static int p_bernstein_sign(const poly *p)
{
  static const unsigned long binom[MAXD + 1][MAXD + 1] = {
    {1, 0, 0, 0, 0}, {1, 1, 0, 0, 0}, {1, 2, 1, 0, 0}, {1, 3, 3, 1, 0}, {1, 4, 6, 4, 1}};
  if (p->deg < 0)
    return 0;
  scratch_init();
  int n = p->deg, sign = 0;
  for (int i = 0; i <= n; i++) {
    mpz_set_ui(z_acc, 0);
    for (int j = 0; j <= i; j++)
      mpz_addmul_ui(z_acc, p->c[j], binom[i][j] * (12 / binom[n][j]));
    int s = mpz_sgn(z_acc);
    if (s == 0 || (sign && s != sign))
      return 0;
    sign = s;
  }
  return sign;
}

/*
 * The same on [lo, hi] (lo < hi): +1 or -1 when p has that strict sign on
 * the whole closed interval by its Bernstein coefficients there, else 0.
 * With lo = A / 2^K, hi = B / 2^K and W = B - A, the integer polynomial
 * q(u) = 2^(K n) p((A + W u) / 2^K) = sum_j a_j 2^(K (n - j)) (A + W u)^j
 * (Horner's rule in A + W u) is p on [lo, hi] mapped onto u in [0, 1],
 * times a positive constant.
 */
static poly scratch_bq;
static mpz_t z_ba, z_bw;
static int scratch_bq_ready;

static int p_bernstein_sign_on(const poly *p, const dyad *lo, const dyad *hi)
{
  if (p->deg < 0)
    return 0;
  scratch_init();
  if (!scratch_bq_ready) {
    p_init(&scratch_bq);
    mpz_init(z_ba);
    mpz_init(z_bw);
    scratch_bq_ready = 1;
  }
  unsigned long K = lo->k > hi->k ? lo->k : hi->k;
  mpz_mul_2exp(z_ba, lo->n, K - lo->k);
  mpz_mul_2exp(z_bw, hi->n, K - hi->k);
  mpz_sub(z_bw, z_bw, z_ba);
  poly *q = &scratch_bq;
  int n = p->deg;
  mpz_set(q->c[0], p->c[n]);
  q->deg = 0;
  for (int j = n - 1; j >= 0; j--) {
    /* q <- q (A + W u) + a_j 2^(K (n - j)) */
    mpz_mul(q->c[q->deg + 1], q->c[q->deg], z_bw);
    for (int i = q->deg; i >= 1; i--) {
      mpz_mul(q->c[i], q->c[i], z_ba);
      mpz_addmul(q->c[i], q->c[i - 1], z_bw);
    }
    mpz_mul(q->c[0], q->c[0], z_ba);
    mpz_mul_2exp(z_tmp, p->c[j], K * (unsigned long)(n - j));
    mpz_add(q->c[0], q->c[0], z_tmp);
    q->deg++;
  }
  /* The leading coefficient a_n W^n is not zero: q has degree n. */
  return p_bernstein_sign(q);
}

/* ---- Sturm sequences and roots ----------------------------------------------------------- */

/* Sturm's sequence of a square-free polynomial, each term a positive
   multiple of the classical one (which leaves every count unchanged). */
typedef struct {
  int n;
  poly s[MAXD + 2];
} sturm;

static void sturm_build(sturm *st, const poly *g)
{
  for (int k = 0; k < MAXD + 2; k++)
    p_init(&st->s[k]);
  p_copy(&st->s[0], g);
  p_primitive(&st->s[0]);
  st->n = 1;
  if (g->deg < 1)
    return;
  p_deriv(&st->s[1], &st->s[0]);
  p_primitive(&st->s[1]);
  st->n = 2;
  while (st->n < MAXD + 2) {
    poly *r = &st->s[st->n];
    p_prem(r, NULL, &st->s[st->n - 2], &st->s[st->n - 1]);
    if (r->deg < 0)
      break;
    p_primitive(r);
    p_neg(r); /* the next term is minus the remainder */
    st->n++;
  }
}

static void sturm_clear(sturm *st)
{
  for (int k = 0; k < MAXD + 2; k++)
    p_clear(&st->s[k]);
}

static int sturm_changes(const sturm *st, const dyad *x)
{
  int last = 0, v = 0;
  for (int k = 0; k < st->n; k++) {
    int s = p_sign_at(&st->s[k], x);
    if (s == 0)
      continue;
    if (last && s != last)
      v++;
    last = s;
  }
  return v;
}

/* Roots in (lo, hi]. */
static int sturm_count(const sturm *st, const dyad *lo, const dyad *hi)
{
  return sturm_changes(st, lo) - sturm_changes(st, hi);
}

/* A root of a square-free g: exact (at hi, `exact` set) or the only root
   of g in the open interval (lo, hi). */
typedef struct {
  dyad lo, hi;
  int exact;
} root;

#define MAXR (MAXD + 1)

/* The roots of g in (lo, hi], whose sign changes are vlo and vhi, in
   increasing order, appended to out[*n .. max - 1]. */
static void isolate_in(const poly *g, const sturm *st, const dyad *lo, const dyad *hi, int vlo, int vhi, root *out,
                       int *n, int max)
{
  int c = vlo - vhi;
  if (c <= 0 || *n >= max)
    return;
  if (c == 1) {
    root *r = &out[(*n)++];
    d_init(&r->lo);
    d_init(&r->hi);
    d_set(&r->lo, lo);
    d_set(&r->hi, hi);
    r->exact = p_sign_at(g, hi) == 0;
    return;
  }
  dyad mid;
  d_init(&mid);
  d_mid(&mid, lo, hi);
  int vm = sturm_changes(st, &mid);
  isolate_in(g, st, lo, &mid, vlo, vm, out, n, max);
  isolate_in(g, st, &mid, hi, vm, vhi, out, n, max);
  d_clear(&mid);
}

/* Isolate the roots of square-free g (deg >= 1) in [0, 1], in increasing
   order; returns their number. */
static int isolate(const poly *g, const sturm *st, root *out, int max)
{
  int n = 0;
  dyad zero, one;
  d_init(&zero);
  d_init(&one);
  d_set_ui(&one, 1);
  if (p_sign_at(g, &zero) == 0 && n < max) {
    d_init(&out[n].lo), d_init(&out[n].hi);
    out[n].exact = 1;
    n++;
  }
  isolate_in(g, st, &zero, &one, sturm_changes(st, &zero), sturm_changes(st, &one), out, &n, max);
  d_clear(&zero);
  d_clear(&one);
  return n;
}

/* Narrow a non-exact root of g (Sturm st) to (lo, mid] or (mid, hi];
   returns 1 if mid is the root (then it becomes exact at hi). */
static int narrow(const poly *g, const sturm *st, root *r)
{
  dyad mid;
  d_init(&mid);
  d_mid(&mid, &r->lo, &r->hi);
  int hit = 0;
  if (p_sign_at(g, &mid) == 0) {
    d_set(&r->hi, &mid);
    r->exact = 1;
    hit = 1;
  } else if (sturm_count(st, &r->lo, &mid) == 1)
    d_set(&r->hi, &mid);
  else
    d_set(&r->lo, &mid);
  d_clear(&mid);
  return hit;
}

/* Is the bracket of root r narrow enough to report (below 2^-40)?  Its
   width n / 2^k (lowest terms) is below 2^-40 once k - bits(n) >= 41. */
static int bracket_fine(const root *r)
{
  static dyad w;
  static int ready;
  if (!ready) {
    d_init(&w);
    ready = 1;
  }
  d_sub(&w, &r->hi, &r->lo);
  return w.k > 41 + mpz_sizeinbase(w.n, 2) - 1;
}

/* How many times sign_at_root narrows a root for its shortcut. */
#define SHORTCUT_NARROW 6

/*
 * The sign of s at root r of square-free g (Sturm st); r may be narrowed.
 *
 * The shortcut first: when s has one strict sign on the closed [lo, hi]
 * by its Bernstein coefficients there, neither s nor gcd(g, s) has a root
 * in (lo, hi], and that sign is s's at the root.  If not, r is halved
 * (narrow: the half that holds the root) a few times, as long as it is
 * wider than a reported bracket, and tried again.  Without an answer the
 * exact steps follow (a common root of g and s, else narrowing until s has
 * no root in (lo, hi]), from the narrowed r.  The answer is the sign of s
 * at the root, whichever way it is found.  And r ends as without the
 * shortcut, once search has narrowed it to a bracket: every narrowing,
 * here or there, takes the next interval of the one chain of halvings from
 * the isolating interval, and the shortcut takes none that search would
 * not take to reach the bracket (a midpoint that is the root makes r
 * exact, and search would have met it too).
 */
static int sign_at_root(const poly *g, const sturm *st, root *r, const poly *s)
{
  if (s->deg < 0)
    return 0;
  if (r->exact)
    return p_sign_at(s, &r->hi);
  for (int tries = 0;; tries++) {
    int bsign = p_bernstein_sign_on(s, &r->lo, &r->hi);
    if (bsign)
      return bsign;
    if (tries == SHORTCUT_NARROW || bracket_fine(r))
      break;
    narrow(g, st, r);
    if (r->exact)
      return p_sign_at(s, &r->hi);
  }
  poly h;
  p_init(&h);
  p_gcd(&h, g, s);
  int zero = 0;
  if (h.deg >= 1) {
    sturm sh;
    sturm_build(&sh, &h);
    zero = sturm_count(&sh, &r->lo, &r->hi) >= 1;
    sturm_clear(&sh);
  }
  p_clear(&h);
  if (zero)
    return 0;
  poly sf;
  p_init(&sf);
  p_sqfree(&sf, s);
  sturm ss;
  sturm_build(&ss, &sf);
  int sign;
  for (;;) {
    if (r->exact || sf.deg < 1 || sturm_count(&ss, &r->lo, &r->hi) == 0) {
      sign = p_sign_at(s, &r->hi);
      break;
    }
    narrow(g, st, r);
  }
  sturm_clear(&ss);
  p_clear(&sf);
  return sign;
}

/* ---- vectors of polynomials ---------------------------------------------------------- */

typedef struct {
  poly x[3];
} pvec;

static void v_init(pvec *v)
{
  for (int k = 0; k < 3; k++)
    p_init(&v->x[k]);
}

static void v_clear(pvec *v)
{
  for (int k = 0; k < 3; k++)
    p_clear(&v->x[k]);
}

/* A moving point as integers: [0] at t = 0, [1] at t = 1. */
typedef struct {
  mpz_t x[2][3];
} ipoint;

/*
 * The points' coordinates (n points, [2][3] doubles each) as integers
 * x 2^-E, E the least exponent of the lowest set bit of any of them.
 */
static void to_integers(const double (*const *pts)[3], int n, ipoint *out)
{
  long emin = LONG_MAX;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 3; k++) {
        double v = pts[j][i][k];
        if (v == 0)
          continue;
        int ex;
        int64_t m = (int64_t)ldexp(frexp(v, &ex), 53); /* exact: |m| < 2^53 */
        long e = (long)ex - 53;
        while (m % 2 == 0)
          m /= 2, e++;
        if (e < emin)
          emin = e;
      }
  for (int j = 0; j < n; j++)
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 3; k++) {
        double v = pts[j][i][k];
        mpz_init(out[j].x[i][k]);
        if (v == 0)
          continue;
        int ex;
        int64_t m = (int64_t)ldexp(frexp(v, &ex), 53);
        long e = (long)ex - 53;
        while (m % 2 == 0)
          m /= 2, e++;
        mpz_set_d(out[j].x[i][k], (double)m); /* exact: |m| < 2^53 */
        mpz_mul_2exp(out[j].x[i][k], out[j].x[i][k], (unsigned long)(e - emin));
      }
}

static void ipoints_clear(ipoint *p, int n)
{
  for (int j = 0; j < n; j++)
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 3; k++)
        mpz_clear(p[j].x[i][k]);
}

/* The linear motion a0 + t (a1 - a0) minus b0 + t (b1 - b0). */
static void v_diff(pvec *r, const ipoint *a, const ipoint *b)
{
  for (int k = 0; k < 3; k++) {
    poly *p = &r->x[k];
    mpz_sub(p->c[0], a->x[0][k], b->x[0][k]);
    mpz_sub(p->c[1], a->x[1][k], a->x[0][k]);
    mpz_sub(p->c[1], p->c[1], b->x[1][k]);
    mpz_add(p->c[1], p->c[1], b->x[0][k]);
    p->deg = 1;
    p_trim(p);
  }
}

static void v_cross(pvec *r, const pvec *a, const pvec *b)
{
  pvec t;
  v_init(&t);
  poly u;
  p_init(&u);
  for (int k = 0; k < 3; k++) {
    int i = (k + 1) % 3, j = (k + 2) % 3;
    p_mul(&t.x[k], &a->x[i], &b->x[j]);
    p_mul(&u, &a->x[j], &b->x[i]);
    p_addsub(&t.x[k], &t.x[k], &u, -1);
  }
  for (int k = 0; k < 3; k++)
    p_copy(&r->x[k], &t.x[k]);
  p_clear(&u);
  v_clear(&t);
}

static void v_dot(poly *r, const pvec *a, const pvec *b)
{
  poly u, acc;
  p_init(&u);
  p_init(&acc);
  for (int k = 0; k < 3; k++) {
    p_mul(&u, &a->x[k], &b->x[k]);
    p_addsub(&acc, &acc, &u, 1);
  }
  p_copy(r, &acc);
  p_clear(&u);
  p_clear(&acc);
}

/* ---- the search ---------------------------------------------------------------------- */

/*
 * The least t in [0, 1] with f(t) = 0 (f not identically zero) or, when f
 * is, t = 0 or a root of a condition, at which every condition cond[k] is
 * >= 0.  `degen` (>= 0 everywhere) must be positive there, else the
 * answer is REF_CCD_DEGENERATE (or, with skip_degen, the candidate is
 * passed over).  The bracket is narrowed to 2^-40 (or exact).
 */
static int search(const poly *f, const poly *cond, int ncond, const poly *degen, int skip_degen, double *t_lo,
                  double *t_hi)
{
  /* The polynomials whose roots are the candidates, and t = 0 when coplanar. */
  const poly *src[4];
  int nsrc = 0, coplanar = f->deg < 0;
  if (!coplanar)
    src[nsrc++] = f;
  else
    for (int k = 0; k < ncond; k++)
      if (cond[k].deg >= 1)
        src[nsrc++] = &cond[k];
  int found = 0, degenerate = 0;
  dyad best_lo, best_hi;
  d_init(&best_lo);
  d_init(&best_hi);
  if (coplanar) {
    /* t = 0. */
    dyad z;
    d_init(&z);
    int ok = 1;
    for (int k = 0; k < ncond && ok; k++)
      ok = p_sign_at(&cond[k], &z) >= 0;
    if (ok && skip_degen && p_sign_at(degen, &z) == 0)
      ok = 0;
    if (ok) {
      found = 1;
      degenerate = p_sign_at(degen, &z) == 0;
    }
    d_clear(&z);
  }
  for (int i = 0; i < nsrc && !(found && mpz_sgn(best_hi.n) == 0); i++) {
    poly g;
    p_init(&g);
    p_sqfree(&g, src[i]);
    if (g.deg < 1) {
      p_clear(&g);
      continue;
    }
    sturm st;
    sturm_build(&st, &g);
    root r[MAXR];
    int nr = isolate(&g, &st, r, MAXR);
    for (int j = 0; j < nr; j++) {
      /* Past the best so far: nothing earlier here. */
      if (found && d_cmp(r[j].exact ? &r[j].hi : &r[j].lo, &best_hi) >= 0)
        continue;
      int ok = 1;
      for (int k = 0; k < ncond && ok; k++)
        ok = sign_at_root(&g, &st, &r[j], &cond[k]) >= 0;
      if (!ok)
        continue;
      int dg = sign_at_root(&g, &st, &r[j], degen) == 0;
      if (dg && skip_degen)
        continue;
      /* Narrow to 2^-40 for the bracket. */
      while (!r[j].exact) {
        if (bracket_fine(&r[j]))
          break;
        narrow(&g, &st, &r[j]);
      }
      const dyad *lo = r[j].exact ? &r[j].hi : &r[j].lo;
      if (!found || d_cmp(lo, &best_lo) < 0) {
        d_set(&best_lo, lo);
        d_set(&best_hi, &r[j].hi);
        degenerate = dg;
      }
      found = 1;
    }
    for (int j = 0; j < nr; j++)
      d_clear(&r[j].lo), d_clear(&r[j].hi);
    sturm_clear(&st);
    p_clear(&g);
  }
  if (found) {
    if (t_lo)
      *t_lo = d_get_d(&best_lo, 0);
    if (t_hi)
      *t_hi = d_get_d(&best_hi, 1);
  }
  d_clear(&best_lo);
  d_clear(&best_hi);
  if (!found)
    return 0;
  return degenerate ? REF_CCD_DEGENERATE : 1;
}

/* ---- the queries ----------------------------------------------------------------------- */

static int finite_points(const double (*const *pts)[3], int n)
{
  for (int j = 0; j < n; j++) {
    if (!pts[j])
      return 0;
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 3; k++)
        if (!isfinite(pts[j][i][k]))
          return 0;
  }
  return 1;
}

/*
 * Is the first group of points (na of them) strictly beyond the second
 * (nb) along some axis, at t = 0 and at t = 1 alike?  Then so at every t.
 */
static int separated(const double (*const *x)[3], int na, int nb)
{
  for (int k = 0; k < 3; k++) {
    int above = 1, below = 1;
    for (int i = 0; i < 2; i++)
      for (int a = 0; a < na; a++)
        for (int b = na; b < na + nb; b++) {
          above = above && x[a][i][k] > x[b][i][k];
          below = below && x[a][i][k] < x[b][i][k];
        }
    if (above || below)
      return 1;
  }
  return 0;
}

int ref_ccd_vf(const double p[2][3], const double a[2][3], const double b[2][3], const double c[2][3], double *t_lo,
               double *t_hi)
{
  const double (*pts[4])[3] = {p, a, b, c};
  if (!finite_points(pts, 4))
    return REF_CCD_EINVAL;
  if (separated(pts, 1, 3))
    return 0;
  ipoint X[4];
  to_integers(pts, 4, X);
  pvec ba, ca, pa, cb, pb, ac, pc, n, e;
  pvec *all[] = {&ba, &ca, &pa, &cb, &pb, &ac, &pc, &n, &e};
  for (int k = 0; k < 9; k++)
    v_init(all[k]);
  poly f, cond[3], nn;
  p_init(&f);
  p_init(&nn);
  for (int k = 0; k < 3; k++)
    p_init(&cond[k]);
  int rc = 0;
  v_diff(&ba, &X[2], &X[1]);
  v_diff(&ca, &X[3], &X[1]);
  v_diff(&pa, &X[0], &X[1]);
  v_cross(&n, &ba, &ca);
  v_dot(&f, &n, &pa);
  if (p_bernstein_sign(&f) != 0)
    goto out; /* f has no root in [0, 1] */
  v_diff(&cb, &X[3], &X[2]);
  v_diff(&pb, &X[0], &X[2]);
  v_diff(&ac, &X[1], &X[3]);
  v_diff(&pc, &X[0], &X[3]);
  v_cross(&e, &ba, &pa);
  v_dot(&cond[0], &n, &e);
  v_cross(&e, &cb, &pb);
  v_dot(&cond[1], &n, &e);
  v_cross(&e, &ac, &pc);
  v_dot(&cond[2], &n, &e);
  for (int k = 0; k < 3; k++)
    if (p_bernstein_sign(&cond[k]) < 0)
      goto out; /* never inside that edge */
  v_dot(&nn, &n, &n);
  rc = search(&f, cond, 3, &nn, 0, t_lo, t_hi);
out:
  for (int k = 0; k < 9; k++)
    v_clear(all[k]);
  p_clear(&f);
  p_clear(&nn);
  for (int k = 0; k < 3; k++)
    p_clear(&cond[k]);
  ipoints_clear(X, 4);
  return rc;
}

/* Node x on the segment [y, z] at some t: (x - y) x (z - y) = 0 and
   0 <= (x - y).(z - y) <= |z - y|^2; a zero-length segment at that t is
   degenerate. */
static int on_segment(const ipoint *x, const ipoint *y, const ipoint *z, double *t_lo, double *t_hi)
{
  pvec xy, zy, cr;
  v_init(&xy);
  v_init(&zy);
  v_init(&cr);
  poly g, cond[2], L;
  p_init(&g);
  p_init(&L);
  p_init(&cond[0]);
  p_init(&cond[1]);
  int rc = 0;
  v_diff(&xy, x, y);
  v_diff(&zy, z, y);
  v_cross(&cr, &xy, &zy);
  /* A component of one strict sign on [0, 1] (a non-zero constant
     included) has no root there, nor has the gcd below: never on the
     line, the answer the search below would give. */
  for (int k = 0; k < 3; k++)
    if (p_bernstein_sign(&cr.x[k]) != 0)
      goto out;
  v_dot(&cond[0], &xy, &zy);
  v_dot(&L, &zy, &zy);
  p_addsub(&cond[1], &L, &cond[0], -1);
  /* The common roots of the cross product's components: their gcd (the
     zero polynomial when the node stays on the line). */
  for (int k = 0; k < 3; k++)
    if (cr.x[k].deg >= 0) {
      if (g.deg < 0)
        p_copy(&g, &cr.x[k]);
      else
        p_gcd(&g, &g, &cr.x[k]);
    }
  if (g.deg == 0)
    rc = 0; /* a non-zero constant: never on the line */
  else
    rc = search(&g, cond, 2, &L, 0, t_lo, t_hi);
out:
  v_clear(&xy);
  v_clear(&zy);
  v_clear(&cr);
  p_clear(&g);
  p_clear(&L);
  p_clear(&cond[0]);
  p_clear(&cond[1]);
  return rc;
}

/*
 * Edge-edge: the crossing of non-parallel edges (the conditions above,
 * candidates where m = 0 left out), or, which covers every contact of
 * parallel edges, an end of one edge on the other.  The earliest wins.
 */
int ref_ccd_ee(const double p[2][3], const double q[2][3], const double r[2][3], const double s[2][3], double *t_lo,
               double *t_hi)
{
  const double (*pts[4])[3] = {p, q, r, s};
  if (!finite_points(pts, 4))
    return REF_CCD_EINVAL;
  if (separated(pts, 2, 2))
    return 0;
  ipoint X[4];
  to_integers(pts, 4, X);
  pvec u, v, w, m, e;
  pvec *all[] = {&u, &v, &w, &m, &e};
  for (int k = 0; k < 5; k++)
    v_init(all[k]);
  poly f, cond[4], mm;
  p_init(&f);
  p_init(&mm);
  for (int k = 0; k < 4; k++)
    p_init(&cond[k]);
  int rc = 0;
  v_diff(&u, &X[1], &X[0]);
  v_diff(&v, &X[3], &X[2]);
  v_diff(&w, &X[2], &X[0]);
  v_cross(&m, &u, &v);
  v_dot(&f, &m, &w);
  if (p_bernstein_sign(&f) != 0)
    goto out; /* never coplanar */
  v_dot(&mm, &m, &m);
  v_cross(&e, &w, &v);
  v_dot(&cond[0], &e, &m);               /* A >= 0 */
  p_addsub(&cond[1], &mm, &cond[0], -1); /* m.m - A >= 0 */
  v_cross(&e, &w, &u);
  v_dot(&cond[2], &e, &m);               /* B >= 0 */
  p_addsub(&cond[3], &mm, &cond[2], -1); /* m.m - B >= 0 */
  for (int k = 0; k < 4; k++)
    if (p_bernstein_sign(&cond[k]) < 0)
      goto out; /* never crossing within that end */
  double lo[5], hi[5];
  int res[5];
  res[0] = search(&f, cond, 4, &mm, 1, &lo[0], &hi[0]);
  res[1] = on_segment(&X[2], &X[0], &X[1], &lo[1], &hi[1]);
  res[2] = on_segment(&X[3], &X[0], &X[1], &lo[2], &hi[2]);
  res[3] = on_segment(&X[0], &X[2], &X[3], &lo[3], &hi[3]);
  res[4] = on_segment(&X[1], &X[2], &X[3], &lo[4], &hi[4]);
  int best = -1;
  for (int k = 0; k < 5; k++)
    if (res[k] && (best < 0 || lo[k] < lo[best]))
      best = k;
  if (best >= 0) {
    rc = res[best];
    if (t_lo)
      *t_lo = lo[best];
    if (t_hi)
      *t_hi = hi[best];
  }
out:
  for (int k = 0; k < 5; k++)
    v_clear(all[k]);
  p_clear(&f);
  p_clear(&mm);
  for (int k = 0; k < 4; k++)
    p_clear(&cond[k]);
  ipoints_clear(X, 4);
  return rc;
}
