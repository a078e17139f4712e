/*
 * reference/ccd_exact.c: exact continuous collision detection on rational
 * inputs (cloth.md, "An exact reference is possible"; Provot 1997 and
 * Bridson, Fedkiw, Anderson 2002 for the coplanarity cubic).
 *
 * With linear motion every point is x(t) = x0 + t d, d = x1 - x0, and all
 * quantities below are polynomials in t with rational coefficients,
 * computed exactly (GMP mpq_t):
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
 * Roots are isolated exactly: the square-free part g = f / gcd(f, f') has
 * simple roots, counted in (lo, hi] by Sturm's sequence of g, and [0, 1]
 * is bisected at rationals until each interval holds one root.  A root
 * that is rational lands on an endpoint and is evaluated exactly.  The sign
 * of a condition s at an irrational root t* of g: s(t*) = 0 exactly when
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
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include <gmp.h>

#include "reference/ccd_exact.h"

/* The highest degree that occurs: the inside conditions and |n|^2, |m|^2
   are quartics (products of two quadratics). */
#define MAXD 4

typedef struct {
  int deg; /* -1: the zero polynomial */
  mpq_t c[MAXD + 1];
} poly;

static void p_init(poly *p)
{
  for (int k = 0; k <= MAXD; k++)
    mpq_init(p->c[k]);
  p->deg = -1;
}

static void p_clear(poly *p)
{
  for (int k = 0; k <= MAXD; k++)
    mpq_clear(p->c[k]);
}

static void p_trim(poly *p)
{
  while (p->deg >= 0 && mpq_sgn(p->c[p->deg]) == 0)
    p->deg--;
}

static void p_zero(poly *p)
{
  for (int k = 0; k <= MAXD; k++)
    mpq_set_ui(p->c[k], 0, 1);
  p->deg = -1;
}

static void p_copy(poly *dst, const poly *src)
{
  p_zero(dst);
  for (int k = 0; k <= src->deg; k++)
    mpq_set(dst->c[k], src->c[k]);
  dst->deg = src->deg;
}

/* Scratch polynomials of p_addsub and p_mul, made once: their results go
   through them, so the output may alias an input, without two
   polynomials' worth of GMP allocations per call.  (Neither calls the
   other; the reference is single-threaded.) */
static poly scratch_add, scratch_mul;
static int scratch_ready;

static void scratch_init(void)
{
  if (!scratch_ready) {
    p_init(&scratch_add);
    p_init(&scratch_mul);
    scratch_ready = 1;
  }
}

/* r = a + sign b */
static void p_addsub(poly *r, const poly *a, const poly *b, int sign)
{
  scratch_init();
  poly *t = &scratch_add;
  p_zero(t);
  int d = a->deg > b->deg ? a->deg : b->deg;
  for (int k = 0; k <= d; k++) {
    if (k <= a->deg)
      mpq_set(t->c[k], a->c[k]);
    if (k <= b->deg) {
      if (sign > 0)
        mpq_add(t->c[k], t->c[k], b->c[k]);
      else
        mpq_sub(t->c[k], t->c[k], b->c[k]);
    }
  }
  t->deg = d;
  p_trim(t);
  p_copy(r, t);
}

static void p_mul(poly *r, const poly *a, const poly *b)
{
  scratch_init();
  poly *t = &scratch_mul;
  p_zero(t);
  mpq_t x;
  mpq_init(x);
  if (a->deg + b->deg > MAXD)
    abort(); /* a product of degree above MAXD: not one this file forms */
  if (a->deg >= 0 && b->deg >= 0) {
    for (int i = 0; i <= a->deg; i++)
      for (int j = 0; j <= b->deg; j++) {
        mpq_mul(x, a->c[i], b->c[j]);
        mpq_add(t->c[i + j], t->c[i + j], x);
      }
    t->deg = a->deg + b->deg;
    p_trim(t);
  }
  p_copy(r, t);
  mpq_clear(x);
}

static void p_deriv(poly *r, const poly *a)
{
  poly t;
  p_init(&t);
  for (int k = 1; k <= a->deg; k++)
    mpq_set_ui(t.c[k - 1], (unsigned long)k, 1), mpq_mul(t.c[k - 1], t.c[k - 1], a->c[k]);
  t.deg = a->deg - 1;
  p_trim(&t);
  p_copy(r, &t);
  p_clear(&t);
}

/* a = q b + r (b not zero); q may be NULL. */
static void p_divmod(const poly *a, const poly *b, poly *q, poly *r)
{
  poly rem, quo;
  p_init(&rem);
  p_init(&quo);
  p_copy(&rem, a);
  mpq_t f, x;
  mpq_init(f);
  mpq_init(x);
  while (rem.deg >= b->deg) {
    int s = rem.deg - b->deg;
    mpq_div(f, rem.c[rem.deg], b->c[b->deg]);
    mpq_set(quo.c[s], f);
    if (quo.deg < s)
      quo.deg = s;
    for (int k = 0; k <= b->deg; k++) {
      mpq_mul(x, f, b->c[k]);
      mpq_sub(rem.c[k + s], rem.c[k + s], x);
    }
    mpq_set_ui(rem.c[rem.deg], 0, 1); /* exactly cancelled */
    rem.deg--;
    p_trim(&rem);
  }
  if (q)
    p_copy(q, &quo);
  if (r)
    p_copy(r, &rem);
  mpq_clear(f);
  mpq_clear(x);
  p_clear(&rem);
  p_clear(&quo);
}

/* The monic greatest common divisor. */
static void p_gcd(poly *g, const poly *a, const poly *b)
{
  poly x, y, r;
  p_init(&x);
  p_init(&y);
  p_init(&r);
  p_copy(&x, a);
  p_copy(&y, b);
  while (y.deg >= 0) {
    p_divmod(&x, &y, NULL, &r);
    p_copy(&x, &y);
    p_copy(&y, &r);
  }
  if (x.deg >= 0) {
    mpq_t lead;
    mpq_init(lead);
    mpq_set(lead, x.c[x.deg]);
    for (int k = 0; k <= x.deg; k++)
      mpq_div(x.c[k], x.c[k], lead);
    mpq_clear(lead);
  }
  p_copy(g, &x);
  p_clear(&x);
  p_clear(&y);
  p_clear(&r);
}

/* The square-free part a / gcd(a, a'). */
static void p_sqfree(poly *r, const poly *a)
{
  poly d, g;
  p_init(&d);
  p_init(&g);
  p_deriv(&d, a);
  p_gcd(&g, a, &d);
  if (g.deg >= 1)
    p_divmod(a, &g, r, NULL);
  else
    p_copy(r, a);
  p_clear(&d);
  p_clear(&g);
}

static int p_sign_at(const poly *p, const mpq_t x)
{
  if (p->deg < 0)
    return 0;
  mpq_t acc;
  mpq_init(acc);
  mpq_set(acc, p->c[p->deg]);
  for (int k = p->deg - 1; k >= 0; k--) {
    mpq_mul(acc, acc, x);
    mpq_add(acc, acc, p->c[k]);
  }
  int s = mpq_sgn(acc);
  mpq_clear(acc);
  return s;
}

/* Sturm's sequence of a square-free polynomial. */
typedef struct {
  int n;
  poly s[MAXD + 2];
} sturm;

static void sturm_build(sturm *st, const poly *g)
{
  for (int k = 0; k < MAXD + 2; k++)
    p_init(&st->s[k]);
  p_copy(&st->s[0], g);
  st->n = 1;
  if (g->deg < 1)
    return;
  p_deriv(&st->s[1], g);
  st->n = 2;
  while (st->n < MAXD + 2) {
    poly r;
    p_init(&r);
    p_divmod(&st->s[st->n - 2], &st->s[st->n - 1], NULL, &r);
    if (r.deg < 0) {
      p_clear(&r);
      break;
    }
    p_addsub(&st->s[st->n], &st->s[st->n], &r, -1); /* -r */
    st->n++;
    p_clear(&r);
  }
}

static void sturm_clear(sturm *st)
{
  for (int k = 0; k < MAXD + 2; k++)
    p_clear(&st->s[k]);
}

static int sturm_changes(const sturm *st, const mpq_t x)
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
static int sturm_count(const sturm *st, const mpq_t lo, const mpq_t hi)
{
  return sturm_changes(st, lo) - sturm_changes(st, hi);
}

/* A root of a square-free g: exact (rational, `exact` set, at hi) or the
   only root of g in the open interval (lo, hi). */
typedef struct {
  mpq_t lo, hi;
  int exact;
} root;

#define MAXR 32

/* Isolate the roots of square-free g (deg >= 1) in [0, 1], in increasing
   order; returns their number. */
static int isolate(const poly *g, const sturm *st, root *out, int max)
{
  int n = 0;
  mpq_t zero, one;
  mpq_init(zero);
  mpq_init(one);
  mpq_set_ui(one, 1, 1);
  if (p_sign_at(g, zero) == 0) {
    mpq_init(out[n].lo), mpq_init(out[n].hi);
    out[n].exact = 1;
    n++;
  }
  /* A stack of intervals, processed left first. */
  mpq_t slo[512], shi[512];
  int sp = 0;
  mpq_init(slo[0]), mpq_init(shi[0]);
  mpq_set(shi[0], one);
  sp = 1;
  while (sp > 0 && n < max) {
    sp--;
    mpq_t lo, hi;
    mpq_init(lo), mpq_init(hi);
    mpq_set(lo, slo[sp]), mpq_set(hi, shi[sp]);
    mpq_clear(slo[sp]), mpq_clear(shi[sp]);
    int c = sturm_count(st, lo, hi);
    if (c == 1 || (c > 1 && sp + 2 > 512)) {
      mpq_init(out[n].lo), mpq_init(out[n].hi);
      mpq_set(out[n].lo, lo), mpq_set(out[n].hi, hi);
      out[n].exact = p_sign_at(g, hi) == 0;
      n++;
    } else if (c > 1) {
      mpq_t mid;
      mpq_init(mid);
      mpq_add(mid, lo, hi);
      mpq_div_2exp(mid, mid, 1);
      /* Right half first on the stack, so the left is processed first. */
      mpq_init(slo[sp]), mpq_init(shi[sp]);
      mpq_set(slo[sp], mid), mpq_set(shi[sp], hi);
      sp++;
      mpq_init(slo[sp]), mpq_init(shi[sp]);
      mpq_set(slo[sp], lo), mpq_set(shi[sp], mid);
      sp++;
      mpq_clear(mid);
    }
    mpq_clear(lo), mpq_clear(hi);
  }
  while (sp > 0) {
    sp--;
    mpq_clear(slo[sp]), mpq_clear(shi[sp]);
  }
  mpq_clear(zero);
  mpq_clear(one);
  return n;
}

/* Narrow a non-exact root of g (Sturm st) to (lo, mid] or (mid, hi];
   returns 1 if mid is the root (then it becomes exact at hi). */
static int narrow(const poly *g, const sturm *st, root *r)
{
  mpq_t mid;
  mpq_init(mid);
  mpq_add(mid, r->lo, r->hi);
  mpq_div_2exp(mid, mid, 1);
  int hit = 0;
  if (p_sign_at(g, mid) == 0) {
    mpq_set(r->hi, mid);
    r->exact = 1;
    hit = 1;
  } else if (sturm_count(st, r->lo, mid) == 1)
    mpq_set(r->hi, mid);
  else
    mpq_set(r->lo, mid);
  mpq_clear(mid);
  return hit;
}

/* The sign of s at root r of square-free g (Sturm st); r may be narrowed. */
static int sign_at_root(const poly *g, const sturm *st, root *r, const poly *s)
{
  if (s->deg < 0)
    return 0;
  if (r->exact)
    return p_sign_at(s, r->hi);
  poly h;
  p_init(&h);
  p_gcd(&h, g, s);
  int zero = 0;
  if (h.deg >= 1) {
    sturm sh;
    sturm_build(&sh, &h);
    zero = sturm_count(&sh, r->lo, r->hi) >= 1;
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
    if (r->exact) {
      sign = p_sign_at(s, r->hi);
      break;
    }
    if (sf.deg < 1 || sturm_count(&ss, r->lo, r->hi) == 0) {
      sign = p_sign_at(s, r->hi);
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

/* The linear motion a0 + t (a1 - a0) minus b0 + t (b1 - b0). */
static void v_diff(pvec *r, const double a[2][3], const double b[2][3])
{
  mpq_t x, y;
  mpq_init(x);
  mpq_init(y);
  for (int k = 0; k < 3; k++) {
    p_zero(&r->x[k]);
    /* constant: a0 - b0 */
    mpq_set_d(x, a[0][k]);
    mpq_set_d(y, b[0][k]);
    mpq_sub(r->x[k].c[0], x, y);
    /* slope: (a1 - a0) - (b1 - b0) */
    mpq_set_d(x, a[1][k]);
    mpq_set_d(y, a[0][k]);
    mpq_sub(r->x[k].c[1], x, y);
    mpq_set_d(x, b[1][k]);
    mpq_set_d(y, b[0][k]);
    mpq_sub(x, x, y);
    mpq_sub(r->x[k].c[1], r->x[k].c[1], x);
    r->x[k].deg = 1;
    p_trim(&r->x[k]);
  }
  mpq_clear(x);
  mpq_clear(y);
}

static void v_cross(pvec *r, const pvec *a, const pvec *b)
{
  pvec t;
  v_init(&t);
  poly u, w;
  p_init(&u);
  p_init(&w);
  for (int k = 0; k < 3; k++) {
    int i = (k + 1) % 3, j = (k + 2) % 3;
    p_mul(&u, &a->x[i], &b->x[j]);
    p_mul(&w, &a->x[j], &b->x[i]);
    p_addsub(&t.x[k], &u, &w, -1);
  }
  for (int k = 0; k < 3; k++)
    p_copy(&r->x[k], &t.x[k]);
  p_clear(&u);
  p_clear(&w);
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
 * answer is REF_CCD_DEGENERATE.
 */
static int search(const poly *f, poly *cond, int ncond, const poly *degen, int skip_degen, double *t_lo,
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
  mpq_t best_lo, best_hi;
  mpq_init(best_lo);
  mpq_init(best_hi);
  if (coplanar) {
    /* t = 0. */
    mpq_t z;
    mpq_init(z);
    int ok = 1;
    for (int k = 0; k < ncond && ok; k++)
      ok = p_sign_at(&cond[k], z) >= 0;
    if (ok && skip_degen && p_sign_at(degen, z) == 0)
      ok = 0;
    if (ok) {
      found = 1;
      degenerate = p_sign_at(degen, z) == 0;
    }
    mpq_clear(z);
  }
  for (int i = 0; i < nsrc && !(found && mpq_sgn(best_hi) == 0); i++) {
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
      if (found && mpq_cmp(r[j].exact ? r[j].hi : r[j].lo, best_hi) >= 0)
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
      mpq_t w;
      mpq_init(w);
      for (;;) {
        if (r[j].exact)
          break;
        mpq_sub(w, r[j].hi, r[j].lo);
        if (mpz_sizeinbase(mpq_denref(w), 2) > 41 + mpz_sizeinbase(mpq_numref(w), 2))
          break;
        narrow(&g, &st, &r[j]);
      }
      mpq_clear(w);
      const mpq_t *lo = r[j].exact ? &r[j].hi : &r[j].lo;
      if (!found || mpq_cmp(*lo, best_lo) < 0) {
        mpq_set(best_lo, *lo);
        mpq_set(best_hi, r[j].hi);
        degenerate = dg;
      }
      found = 1;
    }
    for (int j = 0; j < nr; j++)
      mpq_clear(r[j].lo), mpq_clear(r[j].hi);
    sturm_clear(&st);
    p_clear(&g);
  }
  if (found) {
    /* mpq_get_d truncates: for t >= 0 that rounds down; round hi up. */
    double lo = mpq_get_d(best_lo), hi = mpq_get_d(best_hi);
    mpq_t back;
    mpq_init(back);
    mpq_set_d(back, hi);
    if (mpq_cmp(back, best_hi) < 0)
      hi = nextafter(hi, INFINITY);
    mpq_clear(back);
    if (t_lo)
      *t_lo = lo;
    if (t_hi)
      *t_hi = hi;
  }
  mpq_clear(best_lo);
  mpq_clear(best_hi);
  if (!found)
    return 0;
  return degenerate ? REF_CCD_DEGENERATE : 1;
}

int ref_ccd_vf(const double p[2][3], const double a[2][3], const double b[2][3], const double c[2][3], double *t_lo,
               double *t_hi)
{
  pvec ba, ca, pa, cb, pb, ac, pc, n, e;
  pvec *all[] = {&ba, &ca, &pa, &cb, &pb, &ac, &pc, &n, &e};
  for (int k = 0; k < 9; k++)
    v_init(all[k]);
  poly f, cond[3], nn;
  p_init(&f);
  p_init(&nn);
  for (int k = 0; k < 3; k++)
    p_init(&cond[k]);
  v_diff(&ba, b, a);
  v_diff(&ca, c, a);
  v_diff(&pa, p, a);
  v_diff(&cb, c, b);
  v_diff(&pb, p, b);
  v_diff(&ac, a, c);
  v_diff(&pc, p, c);
  v_cross(&n, &ba, &ca);
  v_dot(&f, &n, &pa);
  v_dot(&nn, &n, &n);
  v_cross(&e, &ba, &pa);
  v_dot(&cond[0], &n, &e);
  v_cross(&e, &cb, &pb);
  v_dot(&cond[1], &n, &e);
  v_cross(&e, &ac, &pc);
  v_dot(&cond[2], &n, &e);
  int rc = search(&f, cond, 3, &nn, 0, t_lo, t_hi);
  for (int k = 0; k < 9; k++)
    v_clear(all[k]);
  p_clear(&f);
  p_clear(&nn);
  for (int k = 0; k < 3; k++)
    p_clear(&cond[k]);
  return rc;
}

/* Node x on the segment [y, z] at some t: (x - y) x (z - y) = 0 and
   0 <= (x - y).(z - y) <= |z - y|^2; a zero-length segment at that t is
   degenerate. */
static int on_segment(const double x[2][3], const double y[2][3], const double z[2][3], double *t_lo, double *t_hi)
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
  v_diff(&xy, x, y);
  v_diff(&zy, z, y);
  v_cross(&cr, &xy, &zy);
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
  int rc;
  if (g.deg == 0)
    rc = 0; /* a non-zero constant: never on the line */
  else
    rc = search(&g, cond, 2, &L, 0, t_lo, t_hi);
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
  pvec u, v, w, m, e;
  pvec *all[] = {&u, &v, &w, &m, &e};
  for (int k = 0; k < 5; k++)
    v_init(all[k]);
  poly f, cond[4], mm;
  p_init(&f);
  p_init(&mm);
  for (int k = 0; k < 4; k++)
    p_init(&cond[k]);
  v_diff(&u, q, p);
  v_diff(&v, s, r);
  v_diff(&w, r, p);
  v_cross(&m, &u, &v);
  v_dot(&f, &m, &w);
  v_dot(&mm, &m, &m);
  v_cross(&e, &w, &v);
  v_dot(&cond[0], &e, &m);                 /* A >= 0 */
  p_addsub(&cond[1], &mm, &cond[0], -1);   /* m.m - A >= 0 */
  v_cross(&e, &w, &u);
  v_dot(&cond[2], &e, &m);                 /* B >= 0 */
  p_addsub(&cond[3], &mm, &cond[2], -1);   /* m.m - B >= 0 */
  double lo[5], hi[5];
  int res[5];
  res[0] = search(&f, cond, 4, &mm, 1, &lo[0], &hi[0]);
  res[1] = on_segment(r, p, q, &lo[1], &hi[1]);
  res[2] = on_segment(s, p, q, &lo[2], &hi[2]);
  res[3] = on_segment(p, r, s, &lo[3], &hi[3]);
  res[4] = on_segment(q, r, s, &lo[4], &hi[4]);
  int rc = 0, best = -1;
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
  for (int k = 0; k < 5; k++)
    v_clear(all[k]);
  p_clear(&f);
  p_clear(&mm);
  for (int k = 0; k < 4; k++)
    p_clear(&cond[k]);
  return rc;
}
