/*
 * candidates.c: the cloth contact handler's broad phase, its candidate
 * pairs kept from step to step while the cloth moves little (a Verlet
 * list, Verlet 1967, with its skin; doc/cloth.md, "Broad phase").
 *
 * A query asks for the node-triangle (or edge-edge) pairs that share no
 * particle and whose boxes over a motion x0 -> x1, grown by g, overlap
 * (closed boxes).  Every particle i of the cloth has its box P_i over
 * {x0_i, x1_i}; an element's box is the union of its particles' boxes.
 *
 * The list.  At a build, the reference boxes R_i = P_i are taken, every
 * element's box over them is grown by G = g_max + s (g_max = delta / 2,
 * the largest growth asked, s the skin), and the hierarchies (bvh.c),
 * refitted to those boxes, give the pairs that overlap; those that share
 * no particle are the list.  A later motion fits the list when, along
 * every axis k,
 *   max_i (hi P_ik - hi R_ik) - min_i (lo P_ik - lo R_ik) <= 2 s,
 * the particles over the cloth.  Then a shift c_k exists (any c_k between
 * the max less s and the min plus s) with every P_i inside R_i shifted
 * by c_k and grown by s; an element's box grown by g <= g_max lies inside
 * its list box shifted by c_k; boxes shifted alike overlap exactly when
 * the unshifted ones do; so every pair the query asks for is in the list,
 * and the query tests the list's pairs against their boxes over the
 * motion.  A translation of the whole cloth, however far, keeps the list.
 * A motion that does not fit rebuilds it at that motion.
 *
 * Rounding: the boxes are minima and maxima of the coordinates, exact;
 * the growths and the differences above round, by at most a few units of
 * 2^-53 of the largest coordinate L and growth involved, so the fit asks
 * for 2 s less 1e-12 (L + G) (a margin many times that rounding).
 *
 * The last query's pairs.  The pairs a query of growth g > 0 returns are
 * kept with its particles' boxes N_i.  A later query of the same kind,
 * growth g', over boxes P_i with, along every axis k,
 *   max_i (hi P_ik - hi N_ik) - min_i (lo P_ik - lo N_ik) <= 2 s_k,
 * s_k + g' <= g (rounding as below), asks only for pairs among them, by
 * the list's argument with the kept query's boxes as the list's boxes
 * and g - g' as the skin; it filters them rather than the list, a few
 * times shorter.  The check of a step's motion taken (g' = 0) against
 * the pairs of its prediction (g = delta / 2) is such a query whenever
 * the step moved each particle within delta / 2 of its prediction, up
 * to a common shift.  The list is judged (or built) at a motion's first
 * query that needs it.
 *
 * A list that would not fit in `pairs` is built again with half the
 * skin (each halving shortens the list and the motions it serves), down
 * to an eighth of the option's; one that fits in a quarter of `pairs`
 * lets the next build double it back.  When even the least skin does not
 * fit, the queries refit the hierarchies to their own boxes and ask them
 * directly, as with skin 0, and the next LIST_RETRY motions do not try to
 * build a list (each try costs a traversal).  A direct query with more pairs than
 * `pairs` is CDYN_ENOMEM with the count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/contacts_impl.h"

/* Motions answered directly after a list that did not fit, before the next
   try; the least skin tried, as a fraction of the option's. */
#define LIST_RETRY 16
#define LIST_SHRINK 8

int cdyn_contacts_alloc_list(cdyn_contacts *cc)
{
  size_t n3 = 3 * cc->sys->n, ne = cc->nnode + cc->ntri + cc->nedge;
  cc->rlo = calloc(n3, sizeof(double));
  cc->rhi = calloc(n3, sizeof(double));
  cc->plo = calloc(n3, sizeof(double));
  cc->phi = calloc(n3, sizeof(double));
  cc->elo = malloc(3 * ne * sizeof(double));
  cc->ehi = malloc(3 * ne * sizeof(double));
  if (!cc->rlo || !cc->rhi || !cc->plo || !cc->phi || !cc->elo || !cc->ehi)
    return cdyn_error(CDYN_ENOMEM, "cdyn_contacts_new: out of memory for the candidate boxes");
  size_t nb = cc->nnode > cc->ntri ? cc->nnode : cc->ntri;
  nb = nb > cc->nedge ? nb : cc->nedge;
  for (int k = 0; k < 2; k++) {
    cc->near[k] = malloc(2 * cc->o.pairs * sizeof(uint32_t));
    cc->nlo[k] = calloc(n3, sizeof(double));
    cc->nhi[k] = calloc(n3, sizeof(double));
    if (!cc->near[k] || !cc->nlo[k] || !cc->nhi[k])
      return cdyn_error(CDYN_ENOMEM, "cdyn_contacts_new: out of memory for %zu candidate pairs", cc->o.pairs);
  }
  cc->sorted = malloc(2 * cc->o.pairs * sizeof(uint32_t));
  cc->bucket = malloc((nb + 1) * sizeof(size_t));
  if (!cc->sorted || !cc->bucket)
    return cdyn_error(CDYN_ENOMEM, "cdyn_contacts_new: out of memory for sorting %zu candidate pairs", cc->o.pairs);
  cc->lskin = cc->o.skin;
  if (cc->o.skin > 0)
    for (int k = 0; k < 2; k++)
      if (!(cc->list[k] = malloc(2 * cc->o.pairs * sizeof(uint32_t))))
        return cdyn_error(CDYN_ENOMEM, "cdyn_contacts_new: out of memory for %zu candidate pairs", cc->o.pairs);
  return CDYN_OK;
}

/* The box of each element of `per` particles over the particles' boxes
   lo, hi (3n), grown by g. */
static void element_boxes(const size_t *idx, size_t per, size_t count, const double *plo, const double *phi,
                          double g, double *lo, double *hi)
{
  for (size_t e = 0; e < count; e++)
    for (int k = 0; k < 3; k++) {
      double l = INFINITY, u = -INFINITY;
      for (size_t a = 0; a < per; a++) {
        size_t i = idx[per * e + a];
        l = plo[3 * i + k] < l ? plo[3 * i + k] : l;
        u = phi[3 * i + k] > u ? phi[3 * i + k] : u;
      }
      lo[3 * e + k] = l - g;
      hi[3 * e + k] = u + g;
    }
}

int cdyn_contacts_build_trees(cdyn_contacts *cc)
{
  const double *q = cc->sys->q;
  int rc;
  memcpy(cc->plo, q, 3 * cc->sys->n * sizeof(double));
  memcpy(cc->phi, q, 3 * cc->sys->n * sizeof(double));
  element_boxes(cc->node, 1, cc->nnode, cc->plo, cc->phi, cc->o.thickness, cc->lo, cc->hi);
  if ((rc = cdyn_bvh_build(cc->bn, cc->lo, cc->hi, cc->nnode)))
    return rc;
  element_boxes(cc->tri, 3, cc->ntri, cc->plo, cc->phi, cc->o.thickness, cc->lo, cc->hi);
  if ((rc = cdyn_bvh_build(cc->bt, cc->lo, cc->hi, cc->ntri)))
    return rc;
  element_boxes(cc->edge, 2, cc->nedge, cc->plo, cc->phi, cc->o.thickness, cc->lo, cc->hi);
  return cdyn_bvh_build(cc->be, cc->lo, cc->hi, cc->nedge);
}

/* The elements of a kind: the first (nodes or edges) and the second
   (triangles or edges), their particles and their boxes in elo / ehi. */
typedef struct {
  const size_t *ia, *ib;
  size_t pa, pb;
  size_t oa, ob; /* offsets of their boxes (in boxes) */
} kind_elems;

static kind_elems elems(const cdyn_contacts *cc, int kind)
{
  kind_elems k;
  if (kind == VF) {
    k.ia = cc->node, k.pa = 1, k.oa = 0;
    k.ib = cc->tri, k.pb = 3, k.ob = cc->nnode;
  } else {
    k.ia = cc->edge, k.pa = 2, k.oa = cc->nnode + cc->ntri;
    k.ib = cc->edge, k.pb = 2, k.ob = k.oa;
  }
  return k;
}

/* Whether elements a and b share a particle, without branches (which
   pairs do is near random along the hierarchies' output). */
static int shares(const kind_elems *k, size_t a, size_t b)
{
  int s = 0;
  for (size_t i = 0; i < k->pa; i++) {
    size_t x = k->ia[k->pa * a + i];
    for (size_t j = 0; j < k->pb; j++)
      s |= x == k->ib[k->pb * b + j];
  }
  return s;
}

/* One pass of a stable counting sort of the np pairs `in` by their
   element `which` (0: a, 1: b; below nb), into `out`: the elements'
   indices fit in 32 bits (at most 2^24 triangles, cdyn_contacts_new). */
#define SORT_PASS(in, out, which)                                                                                      \
  do {                                                                                                                 \
    memset(cnt, 0, (nb + 1) * sizeof(size_t));                                                                         \
    for (size_t p = 0; p < np; p++)                                                                                    \
      cnt[(in)[2 * p + (which)] + 1]++;                                                                                \
    for (size_t e = 0; e < nb; e++)                                                                                    \
      cnt[e + 1] += cnt[e];                                                                                            \
    for (size_t p = 0; p < np; p++) {                                                                                  \
      size_t at = cnt[(in)[2 * p + (which)]]++;                                                                        \
      (out)[2 * at] = (in)[2 * p], (out)[2 * at + 1] = (in)[2 * p + 1];                                                \
    }                                                                                                                  \
  } while (0)

/* cc->pairs[0 .. 2 np) in ascending order of (a, b): a counting sort by b,
   then a stable one by a (a least-significant-digit radix sort, linear in
   the pairs and the elements). */
static void sort_pairs(cdyn_contacts *cc, int kind, size_t np)
{
  size_t *cnt = cc->bucket, nb = kind == VF ? cc->ntri : cc->nedge;
  uint32_t *tmp = cc->sorted;
  size_t *pairs = cc->pairs;
  SORT_PASS(pairs, tmp, 1);
  nb = kind == VF ? cc->nnode : cc->nedge;
  SORT_PASS(tmp, pairs, 0);
}
#undef SORT_PASS

/* The hierarchies' pairs of a kind over boxes grown by g (refitted to
   them), sharing no particle, into cc->pairs in ascending order. */
static int traverse(cdyn_contacts *cc, int kind, double g, size_t *np)
{
  kind_elems k = elems(cc, kind);
  int rc;
  const double *plo = cc->plo, *phi = cc->phi;
  if (kind == VF) {
    element_boxes(cc->node, 1, cc->nnode, plo, phi, g, cc->lo, cc->hi);
    if ((rc = cdyn_bvh_refit(cc->bn, cc->lo, cc->hi)))
      return rc;
    element_boxes(cc->tri, 3, cc->ntri, plo, phi, g, cc->lo, cc->hi);
    if ((rc = cdyn_bvh_refit(cc->bt, cc->lo, cc->hi)))
      return rc;
    rc = cdyn_bvh_pairs(cc->bn, cc->bt, cc->pairs, cc->o.pairs, np);
  } else {
    element_boxes(cc->edge, 2, cc->nedge, plo, phi, g, cc->lo, cc->hi);
    if ((rc = cdyn_bvh_refit(cc->be, cc->lo, cc->hi)))
      return rc;
    rc = cdyn_bvh_pairs(cc->be, NULL, cc->pairs, cc->o.pairs, np);
  }
  if (rc)
    return rc;
  size_t m = 0;
  for (size_t p = 0; p < *np; p++) {
    size_t a = cc->pairs[2 * p], b = cc->pairs[2 * p + 1];
    cc->pairs[2 * m] = a, cc->pairs[2 * m + 1] = b; /* m <= p: kept when they share none */
    m += (size_t)!shares(&k, a, b);
  }
  *np = m;
  sort_pairs(cc, kind, m);
  return CDYN_OK;
}

/* Build the list at the current particle boxes with the skin cc->lskin,
   halved while it does not fit in `pairs` (down to LIST_SHRINK times
   less than the option's); cc->listed says whether one fitted.  A list
   that fits in a quarter of `pairs` lets the next build take twice the
   skin again, up to the option's. */
static int build(cdyn_contacts *cc)
{
  size_t n3 = 3 * cc->sys->n;
  cc->listed = 0;
  memcpy(cc->rlo, cc->plo, n3 * sizeof(double));
  memcpy(cc->rhi, cc->phi, n3 * sizeof(double));
  for (;;) {
    double G = CDYN_CONTACTS_GROW(cc) + cc->lskin;
    int rc = CDYN_OK;
    for (int kind = VF; kind <= EE && !rc; kind++) {
      size_t np;
      if ((rc = traverse(cc, kind, G, &np)))
        break;
      for (size_t p = 0; p < 2 * np; p++)
        cc->list[kind][p] = (uint32_t)cc->pairs[p];
      cc->nlist[kind] = np;
    }
    if (!rc)
      break;
    if (rc != CDYN_ENOMEM)
      return rc;
    cdyn_error_clear();
    if (cc->lskin * LIST_SHRINK <= cc->o.skin) {
      cc->retry = LIST_RETRY; /* not kept: the queries go to the hierarchies */
      return CDYN_OK;
    }
    cc->lskin *= 0.5;
  }
  cc->listed = 1;
  cc->list_skin = cc->lskin;
  cc->counts.list_builds++;
  size_t most = cc->nlist[VF] > cc->nlist[EE] ? cc->nlist[VF] : cc->nlist[EE];
  if (4 * most <= cc->o.pairs && cc->lskin < cc->o.skin)
    cc->lskin = fmin(2 * cc->lskin, cc->o.skin); /* for the next build; this list keeps its own */
  return CDYN_OK;
}

/* The largest of four magnitudes, a NaN among them the result: the
   comparisons inline, where fmax is a call into libm (which would also
   pass over a NaN). */
static inline double max4abs(double a, double b, double c, double d)
{
  a = fabs(a), b = fabs(b), c = fabs(c), d = fabs(d);
  double ab = a < b || isnan(b) ? b : a, cd = c < d || isnan(d) ? d : c;
  return ab < cd || isnan(cd) ? cd : ab;
}

int cdyn_contacts_motion(cdyn_contacts *cc, const double *x0, const double *x1)
{
  double up[3] = {-INFINITY, -INFINITY, -INFINITY}, dn[3] = {INFINITY, INFINITY, INFINITY}, L = 0;
  double nup[2][3], ndn[2][3], nL[2] = {0, 0};
  for (int kind = 0; kind < 2; kind++)
    for (int k = 0; k < 3; k++)
      nup[kind][k] = -INFINITY, ndn[kind][k] = INFINITY;
  for (size_t e = 0; e < cc->nnode; e++) {
    size_t i = cc->node[e];
    for (int k = 0; k < 3; k++) {
      double a = x0[3 * i + k], b = x1[3 * i + k];
      double l = a < b ? a : b, u = a < b ? b : a;
      cc->plo[3 * i + k] = l, cc->phi[3 * i + k] = u;
      if (cc->listed) {
        double du = u - cc->rhi[3 * i + k], dl = l - cc->rlo[3 * i + k];
        up[k] = du > up[k] ? du : up[k];
        dn[k] = dl < dn[k] ? dl : dn[k];
        double a = max4abs(l, u, cc->rlo[3 * i + k], cc->rhi[3 * i + k]);
        L = L < a || isnan(a) ? a : L;
      }
      for (int kind = 0; kind < 2; kind++)
        if (cc->near_have[kind]) {
          double nl = cc->nlo[kind][3 * i + k], nu = cc->nhi[kind][3 * i + k];
          double du = u - nu, dl = l - nl;
          nup[kind][k] = du > nup[kind][k] ? du : nup[kind][k];
          ndn[kind][k] = dl < ndn[kind][k] ? dl : ndn[kind][k];
          double a = max4abs(l, u, nl, nu);
          nL[kind] = nL[kind] < a || isnan(a) ? a : nL[kind];
        }
    }
  }
  element_boxes(cc->node, 1, cc->nnode, cc->plo, cc->phi, 0, cc->elo, cc->ehi);
  element_boxes(cc->tri, 3, cc->ntri, cc->plo, cc->phi, 0, cc->elo + 3 * cc->nnode, cc->ehi + 3 * cc->nnode);
  element_boxes(cc->edge, 2, cc->nedge, cc->plo, cc->phi, 0, cc->elo + 3 * (cc->nnode + cc->ntri),
                cc->ehi + 3 * (cc->nnode + cc->ntri));
  for (int kind = 0; kind < 2; kind++) {
    double sl = 0;
    for (int k = 0; k < 3; k++)
      sl = fmax(sl, 0.5 * (nup[kind][k] - ndn[kind][k]));
    cc->near_slack[kind] = cc->near_have[kind] ? sl + 1e-12 * (nL[kind] + cc->near_g[kind]) : INFINITY;
  }
  cc->fits = 0;
  cc->list_fit = 0;
  if (cc->listed && cc->o.skin > 0) {
    double s = cc->list_skin, G = CDYN_CONTACTS_GROW(cc) + s, slack = 1e-12 * (L + G);
    cc->list_fit = 1;
    for (int k = 0; k < 3; k++)
      cc->list_fit = cc->list_fit && up[k] - dn[k] + slack <= 2 * s;
  }
  cc->list_due = 1;
  return CDYN_OK;
}

/* The motion's list: kept when the motion lies in its skin, else built
   again (or, after a list that did not fit, left to the hierarchies). */
static int list_check(cdyn_contacts *cc)
{
  cc->list_due = 0;
  cc->fits = 0;
  if (!(cc->o.skin > 0)) {
    cc->counts.list_direct++;
    return CDYN_OK;
  }
  if (cc->listed && cc->list_fit) {
    cc->fits = 1;
    cc->counts.list_kept++;
    return CDYN_OK;
  }
  int rc = cc->retry ? (cc->retry--, CDYN_OK) : build(cc);
  if (rc)
    return rc;
  cc->fits = cc->listed;
  if (!cc->fits)
    cc->counts.list_direct++;
  return CDYN_OK;
}

/* The pairs of list l (n of them) whose boxes over the motion, grown by
   g, overlap, into cc->pairs: l's order kept.  The test has no branches
   (the boxes are finite): each pair is written and kept when it
   overlaps, which is near random along the list. */
static size_t filter(cdyn_contacts *cc, const kind_elems *k, const uint32_t *l, size_t n, double g)
{
  size_t m = 0;
  for (size_t p = 0; p < n; p++) {
    size_t a = l[2 * p], b = l[2 * p + 1];
    const double *alo = cc->elo + 3 * (k->oa + a), *ahi = cc->ehi + 3 * (k->oa + a);
    const double *blo = cc->elo + 3 * (k->ob + b), *bhi = cc->ehi + 3 * (k->ob + b);
    int hit = (ahi[0] + g >= blo[0] - g) & (bhi[0] + g >= alo[0] - g) & (ahi[1] + g >= blo[1] - g) &
              (bhi[1] + g >= alo[1] - g) & (ahi[2] + g >= blo[2] - g) & (bhi[2] + g >= alo[2] - g);
    cc->pairs[2 * m] = a, cc->pairs[2 * m + 1] = b;
    m += (size_t)hit;
  }
  return m;
}

int cdyn_contacts_pairs(cdyn_contacts *cc, int kind, double g, size_t *np)
{
  kind_elems k = elems(cc, kind);
  if (cc->near_have[kind] && cc->near_slack[kind] + g <= cc->near_g[kind]) {
    *np = filter(cc, &k, cc->near[kind], cc->nnear[kind], g);
    cc->counts.near_queries++;
  } else {
    int rc;
    if (cc->list_due && (rc = list_check(cc)))
      return rc;
    if (!cc->fits) {
      if ((rc = traverse(cc, kind, g, np)))
        return rc;
    } else {
      *np = filter(cc, &k, cc->list[kind], cc->nlist[kind], g);
    }
  }
  if (g > 0) {
    /* kept for the queries within these boxes */
    size_t n3 = 3 * cc->sys->n;
    for (size_t p = 0; p < 2 * *np; p++)
      cc->near[kind][p] = (uint32_t)cc->pairs[p];
    cc->nnear[kind] = *np;
    cc->near_g[kind] = g;
    memcpy(cc->nlo[kind], cc->plo, n3 * sizeof(double));
    memcpy(cc->nhi[kind], cc->phi, n3 * sizeof(double));
    cc->near_have[kind] = 1;
    cc->near_slack[kind] = 0;
  }
  return CDYN_OK;
}
