/*
 * bvh.c: a bounding-volume hierarchy of axis-aligned boxes, the broad phase
 * of collision detection (doc/cloth.md, "Broad phase": never all
 * pairs).
 *
 * Build: top down, each node's boxes split at the median of their centres
 * along the longest axis of the centres' bounds (quickselect with a
 * deterministic pivot), down to leaves of at most LEAF boxes: a balanced
 * binary tree of depth about log2(count / LEAF).  Refit: the same
 * topology, bounds recomputed bottom up from new boxes (a mesh's boxes
 * move every step but its neighbourhoods change slowly; rebuild when they
 * drift); it also copies the boxes in leaf order, so that a leaf's boxes
 * are read from one run of memory.
 * Pairs: a simultaneous descent of two trees (or of one tree against
 * itself: a node against itself becomes its children against each other
 * and themselves, a leaf against itself its boxes' pairs, so each
 * unordered pair of distinct boxes is met once, reported with the smaller
 * index first), visiting child pairs only where boxes overlap (closed
 * boxes: touching counts), and at two leaves testing each box of one
 * against each of the other.  The pairs come in the descent's order,
 * which depends on the boxes; a caller that needs an order sorts them.
 * Its cost
 * is O(n log n + k) for n boxes and k overlapping pairs on a mesh whose
 * boxes are of bounded overlap.  Everything is sized by cdyn_bvh_new, so
 * build, refit and pairs do not allocate.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/collision.h"
#include "core/internal.h"

/* The most boxes a leaf holds (a build splits larger ranges): testing a
   few boxes of a leaf against another's costs less than descending to
   single boxes. */
#define LEAF 4

typedef struct {
  double lo[3], hi[3];
  double vol;         /* (hi - lo) multiplied over the axes, set by the refit */
  size_t left, right; /* children; leaf: left = its first position in order, right = CDYN_NONE */
  size_t nbox;        /* leaf: its boxes, order[left .. left + nbox) */
} node;

struct cdyn_bvh {
  size_t cap, count, root;
  node *nodes;   /* 2 cap */
  size_t *order; /* cap: box indices, partitioned by the build */
  double *olo, *ohi; /* 3 cap each: the boxes in the order of `order`, set by the refit */
  double *centre; /* 3 cap */
  size_t *stack; /* 4 (depth + 2) pairs of nodes for the descent, and the build's ranges */
  size_t stack_cap;
  size_t nnodes;
};

void cdyn_bvh_free(cdyn_bvh *b)
{
  if (!b)
    return;
  free(b->nodes);
  free(b->order);
  free(b->olo);
  free(b->ohi);
  free(b->centre);
  free(b->stack);
  free(b);
}

int cdyn_bvh_new(cdyn_bvh **out, size_t capacity)
{
  if (!out)
    return cdyn_error(CDYN_EINVAL, "cdyn_bvh_new: out is NULL");
  *out = NULL;
  if (capacity < 1 || capacity > ((size_t)1 << 40))
    return cdyn_error(CDYN_EINVAL, "cdyn_bvh_new: capacity %zu outside [1, 2^40]", capacity);
  cdyn_bvh *b = calloc(1, sizeof *b);
  if (!b)
    return cdyn_error(CDYN_ENOMEM, "cdyn_bvh_new: out of memory");
  size_t depth = 1;
  while (((size_t)1 << depth) < capacity)
    depth++;
  b->cap = capacity;
  /* The descent pushes at most three pairs a level on each of two trees. */
  b->stack_cap = 16 * (depth + 2);
  b->nodes = malloc(2 * capacity * sizeof(node));
  b->order = malloc(capacity * sizeof(size_t));
  b->olo = malloc(3 * capacity * sizeof(double));
  b->ohi = malloc(3 * capacity * sizeof(double));
  b->centre = malloc(3 * capacity * sizeof(double));
  b->stack = malloc(b->stack_cap * sizeof(size_t));
  if (!b->nodes || !b->order || !b->olo || !b->ohi || !b->centre || !b->stack) {
    cdyn_bvh_free(b);
    return cdyn_error(CDYN_ENOMEM, "cdyn_bvh_new: out of memory for %zu boxes", capacity);
  }
  *out = b;
  return CDYN_OK;
}

static int check_boxes(const char *who, const cdyn_bvh *b, const double *lo, const double *hi, size_t count)
{
  if (!b || !lo || !hi)
    return cdyn_error(CDYN_EINVAL, "%s: NULL argument", who);
  if (count < 1 || count > b->cap)
    return cdyn_error(CDYN_EINVAL, "%s: %zu boxes, the tree holds 1 .. %zu", who, count, b->cap);
  for (size_t i = 0; i < count; i++)
    for (int k = 0; k < 3; k++)
      if (!isfinite(lo[3 * i + k]) || !isfinite(hi[3 * i + k]) || lo[3 * i + k] > hi[3 * i + k])
        return cdyn_error(CDYN_EINVAL, "%s: box %zu is not finite or has lo > hi along axis %d", who, i, k);
  return CDYN_OK;
}

/* Partition order[l .. r) so that the box at position m has the median
   centre along axis a (quickselect, middle pivot). */
static void select_median(cdyn_bvh *b, size_t l, size_t r, size_t m, int a)
{
  while (r - l > 1) {
    double pv = b->centre[3 * b->order[l + (r - l) / 2] + a];
    size_t i = l, j = r - 1;
    while (i <= j) {
      while (b->centre[3 * b->order[i] + a] < pv)
        i++;
      while (b->centre[3 * b->order[j] + a] > pv)
        j--;
      if (i <= j) {
        size_t t = b->order[i];
        b->order[i] = b->order[j];
        b->order[j] = t;
        i++;
        if (j == 0)
          break;
        j--;
      }
    }
    if (m <= j)
      r = j + 1;
    else if (m >= i)
      l = i;
    else
      return;
  }
}

/* Build the subtree of order[l .. r); returns its node. */
static size_t build(cdyn_bvh *b, size_t l, size_t r)
{
  size_t id = b->nnodes++;
  node *nd = &b->nodes[id];
  if (r - l <= LEAF) {
    nd->left = l;
    nd->right = CDYN_NONE;
    nd->nbox = r - l;
    return id;
  }
  nd->nbox = 0;
  double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = l; i < r; i++)
    for (int k = 0; k < 3; k++) {
      double c = b->centre[3 * b->order[i] + k];
      clo[k] = fmin(clo[k], c);
      chi[k] = fmax(chi[k], c);
    }
  int a = 0;
  for (int k = 1; k < 3; k++)
    if (chi[k] - clo[k] > chi[a] - clo[a])
      a = k;
  size_t m = l + (r - l) / 2;
  select_median(b, l, r, m, a);
  size_t left = build(b, l, m), right = build(b, m, r);
  b->nodes[id].left = left;
  b->nodes[id].right = right;
  return id;
}

/* Bounds bottom up: children are built after their parent, so a reverse
   sweep sees them first. */
static void refit(cdyn_bvh *b, const double *lo, const double *hi)
{
  for (size_t id = b->nnodes; id-- > 0;) {
    node *nd = &b->nodes[id];
    if (nd->right == CDYN_NONE) {
      for (int k = 0; k < 3; k++)
        nd->lo[k] = INFINITY, nd->hi[k] = -INFINITY;
      for (size_t p = nd->left; p < nd->left + nd->nbox; p++) {
        const double *bl = lo + 3 * b->order[p], *bh = hi + 3 * b->order[p];
        for (int k = 0; k < 3; k++) {
          b->olo[3 * p + k] = bl[k], b->ohi[3 * p + k] = bh[k];
          nd->lo[k] = bl[k] < nd->lo[k] ? bl[k] : nd->lo[k];
          nd->hi[k] = bh[k] > nd->hi[k] ? bh[k] : nd->hi[k];
        }
      }
    } else {
      const node *x = &b->nodes[nd->left], *y = &b->nodes[nd->right];
      for (int k = 0; k < 3; k++) {
        nd->lo[k] = x->lo[k] < y->lo[k] ? x->lo[k] : y->lo[k];
        nd->hi[k] = x->hi[k] > y->hi[k] ? x->hi[k] : y->hi[k];
      }
    }
    nd->vol = 1;
    for (int k = 0; k < 3; k++)
      nd->vol *= nd->hi[k] - nd->lo[k];
  }
}

int cdyn_bvh_build(cdyn_bvh *b, const double *lo, const double *hi, size_t count)
{
  int rc = check_boxes("cdyn_bvh_build", b, lo, hi, count);
  if (rc)
    return rc;
  b->count = count;
  for (size_t i = 0; i < count; i++) {
    b->order[i] = i;
    for (int k = 0; k < 3; k++)
      b->centre[3 * i + k] = 0.5 * (lo[3 * i + k] + hi[3 * i + k]);
  }
  b->nnodes = 0;
  b->root = build(b, 0, count);
  refit(b, lo, hi);
  return CDYN_OK;
}

int cdyn_bvh_refit(cdyn_bvh *b, const double *lo, const double *hi)
{
  if (!b || !b->count)
    return cdyn_error(CDYN_EINVAL, "cdyn_bvh_refit: NULL tree, or one not built");
  int rc = check_boxes("cdyn_bvh_refit", b, lo, hi, b->count);
  if (rc)
    return rc;
  refit(b, lo, hi);
  return CDYN_OK;
}

static int overlap(const node *x, const node *y)
{
  for (int k = 0; k < 3; k++)
    if (x->hi[k] < y->lo[k] || y->hi[k] < x->lo[k])
      return 0;
  return 1;
}

int cdyn_bvh_pairs(const cdyn_bvh *a, const cdyn_bvh *b, size_t *pairs, size_t cap, size_t *count)
{
  if (!a || !count || (cap && !pairs))
    return cdyn_error(CDYN_EINVAL, "cdyn_bvh_pairs: NULL argument");
  if (!a->count || (b && !b->count))
    return cdyn_error(CDYN_EINVAL, "cdyn_bvh_pairs: a tree that was not built");
  int self = !b || b == a;
  if (self)
    b = a;
  /* The stack is a's: a descent of two trees needs at most the sum of
     their depths plus one pending pair per level; use the larger tree's. */
  const cdyn_bvh *st_owner = a->stack_cap >= b->stack_cap ? a : b;
  size_t *stack = st_owner->stack, scap = st_owner->stack_cap, sp = 0, n = 0;
  /* Only pairs whose boxes overlap are pushed (tested as they are made):
     the pairs popped, and so the pairs reported and their order, are
     those of a descent that pushed every pair and dropped the others as
     they came off the stack. */
  if (overlap(&a->nodes[a->root], &b->nodes[b->root])) {
    stack[sp++] = a->root;
    stack[sp++] = b->root;
  }
  while (sp > 0) {
    size_t j = stack[--sp], i = stack[--sp];
    const node *x = &a->nodes[i], *y = &b->nodes[j];
    int lx = x->right == CDYN_NONE, ly = y->right == CDYN_NONE;
    if (lx && ly) {
      /* two leaves: each box of one against each of the other (a leaf
         against itself: its boxes' pairs) */
      for (size_t p = x->left; p < x->left + x->nbox; p++) {
        const double *plo = a->olo + 3 * p, *phi = a->ohi + 3 * p;
        for (size_t q = self && i == j ? p + 1 : y->left; q < y->left + y->nbox; q++) {
          const double *qlo = b->olo + 3 * q, *qhi = b->ohi + 3 * q;
          /* the test without branches (the boxes are finite): whether
             they overlap is near random along a leaf's row */
          int hit = (phi[0] >= qlo[0]) & (qhi[0] >= plo[0]) & (phi[1] >= qlo[1]) & (qhi[1] >= plo[1]) &
                    (phi[2] >= qlo[2]) & (qhi[2] >= plo[2]);
          if (n < cap) { /* written always, kept when it overlaps */
            /* Self pairs as (smaller, larger) index: each is met once. */
            size_t u = a->order[p], w = b->order[q];
            int swap = self && u > w;
            pairs[2 * n] = swap ? w : u;
            pairs[2 * n + 1] = swap ? u : w;
          }
          n += (size_t)hit;
        }
      }
      continue;
    }
    if (sp + 8 > scap) /* cannot happen for balanced trees; never drop silently */
      return cdyn_error(CDYN_ENOMEM, "cdyn_bvh_pairs: descent stack of %zu exhausted", scap);
    if (self && i == j) {
      /* A node against itself: its children against each other and themselves. */
      size_t c[2] = {x->left, x->right};
      stack[sp++] = c[0], stack[sp++] = c[0];
      if (overlap(&a->nodes[c[0]], &a->nodes[c[1]]))
        stack[sp++] = c[0], stack[sp++] = c[1];
      stack[sp++] = c[1], stack[sp++] = c[1];
      continue;
    }
    /* Descend the larger side (by volume), or the one that is not a leaf. */
    int split_x;
    if (!lx && !ly)
      split_x = x->vol >= y->vol;
    else
      split_x = !lx;
    if (split_x) {
      if (overlap(&a->nodes[x->left], y))
        stack[sp++] = x->left, stack[sp++] = j;
      if (overlap(&a->nodes[x->right], y))
        stack[sp++] = x->right, stack[sp++] = j;
    } else {
      if (overlap(x, &b->nodes[y->left]))
        stack[sp++] = i, stack[sp++] = y->left;
      if (overlap(x, &b->nodes[y->right]))
        stack[sp++] = i, stack[sp++] = y->right;
    }
  }
  *count = n;
  if (n > cap)
    return cdyn_error(CDYN_ENOMEM, "cdyn_bvh_pairs: %zu overlapping pairs, room for %zu (none dropped silently: "
                                   "grow the array and ask again)",
                      n, cap);
  return CDYN_OK;
}
