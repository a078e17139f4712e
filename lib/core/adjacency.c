/*
 * adjacency.c: the particles' neighbour lists from which the large-step
 * schemes (projected_newton.c, admm.c) lay out their matrices' patterns:
 * for n particles and a set of pairs (i, j), i != j, each particle's list
 * holds the particles it is paired with, in ascending order and once each
 * whatever the number of pairs (springs, constraints) joining them.
 *
 * Compressed storage: the lists stand one after another in nbr, particle
 * i's from start[i] to start[i + 1].  The caller's walk names every pair
 * twice, once to count (cdyn_adjacency_add with placing = 0) and once to
 * place; each list is then sorted by insertion (the lists are short: a
 * cloth node has 12 neighbours) and its repeats dropped, in place.  A
 * slot is found by bisection.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

void cdyn_adjacency_free(cdyn_adjacency *g)
{
  free(g->start);
  free(g->nbr);
  free(g->deg);
  g->start = g->nbr = g->deg = NULL;
  g->n = 0;
}

void cdyn_adjacency_add(cdyn_adjacency *g, size_t i, size_t j)
{
  if (g->placing) {
    g->nbr[g->start[i] + g->deg[i]] = j;
    g->nbr[g->start[j] + g->deg[j]] = i;
  }
  g->deg[i]++;
  g->deg[j]++;
}

int cdyn_adjacency_build(cdyn_adjacency *g, size_t n, cdyn_adjacency_walk walk, void *ctx)
{
  cdyn_adjacency_free(g);
  g->n = n;
  g->placing = 0;
  g->deg = calloc(n + 1, sizeof(size_t));
  g->start = calloc(n + 1, sizeof(size_t));
  if (!g->deg || !g->start)
    goto nomem;
  walk(ctx, g);
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    g->start[i] = total;
    total += g->deg[i];
  }
  g->start[n] = total;
  g->nbr = malloc((total + 1) * sizeof(size_t));
  if (!g->nbr)
    goto nomem;
  memset(g->deg, 0, (n + 1) * sizeof(size_t));
  g->placing = 1;
  walk(ctx, g);
  size_t w = 0;
  for (size_t i = 0; i < n; i++) {
    size_t len = g->deg[i], u = 0;
    size_t *e = g->nbr + g->start[i];
    for (size_t t = 0; t < len; t++) {
      size_t c = e[t], pos = u;
      while (pos > 0 && e[pos - 1] > c)
        pos--;
      if (pos > 0 && e[pos - 1] == c)
        continue;
      memmove(e + pos + 1, e + pos, (u - pos) * sizeof(size_t));
      e[pos] = c;
      u++;
    }
    memmove(g->nbr + w, e, u * sizeof(size_t));
    g->start[i] = w;
    w += u;
  }
  g->start[n] = w;
  free(g->deg);
  g->deg = NULL;
  return CDYN_OK;
nomem:
  cdyn_adjacency_free(g);
  return CDYN_ENOMEM;
}

size_t cdyn_adjacency_slot(const cdyn_adjacency *g, size_t i, size_t j)
{
  size_t lo = g->start[i], hi = g->start[i + 1];
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (g->nbr[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - g->start[i];
}
