/*
 * bench/problems.c: the benchmark problems of problem.h.
 *
 * chain-N: a hanging chain of N links of l = 5 cm and N nodes of 1 kg,
 *   hanging straight down from a fixed point at the origin (node k at
 *   (0, -(k + 1) l, 0)), every node kicked sideways at 5 cm/s along +x
 *   (perpendicular to every link, so the start satisfies the constraints
 *   and their velocity form), gravity 9.81 m/s^2 along -y; the first link
 *   joins node 0 to the fixed point (the problem of chain-scale-stability,
 *   experiments/studies/chain_scale_stability.c, with its pinned node 0 as the fixed point).
 *   m = N rows.
 * grid-N: N x N nodes of 1 kg, 5 cm apart in the horizontal plane y = 0,
 *   at rest, linked along the grid's edges (2 N (N - 1) links), falling
 *   under gravity with two opposite corners held: each held corner is
 *   linked to three fixed points 5 cm from it along +x, +y and +z, a
 *   tripod of three rows that fixes the corner.  m = 2 N (N - 1) + 6.
 *   (Two corners of one side would make the flat start singular: the
 *   straight row of links between them can carry a tension that nothing
 *   else sees, a self-stress, so A = J W J^T has a null vector; cdyn's
 *   least-squares path and ODE's dense step both stop on it.)
 *
 * Stretch: max over the links of |d - len| / len (bench_stretch).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "problems.h"

double bench_stretch(const bench_problem *p, const double *x)
{
  double s = 0;
  for (size_t k = 0; k < p->links; k++) {
    const double *a = x + 3 * (size_t)p->a[k], *b = p->b[k] >= 0 ? x + 3 * (size_t)p->b[k] : p->pin + 3 * k;
    double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    double e = fabs(d - p->len[k]) / p->len[k];
    if (!(e <= s))
      s = e; /* also takes a NaN */
  }
  return s;
}

void bench_problem_free(bench_problem *p)
{
  if (!p)
    return;
  free(p->x0);
  free(p->v0);
  free(p->mass);
  free(p->a);
  free(p->b);
  free(p->pin);
  free(p->len);
  memset(p, 0, sizeof *p);
}

static int problem_alloc(bench_problem *p, size_t n, size_t links)
{
  memset(p, 0, sizeof *p);
  p->n = n;
  p->links = links;
  p->x0 = calloc(3 * n, sizeof(double));
  p->v0 = calloc(3 * n, sizeof(double));
  p->mass = calloc(n, sizeof(double));
  p->a = calloc(links, sizeof(int));
  p->b = calloc(links, sizeof(int));
  p->pin = calloc(3 * links, sizeof(double));
  p->len = calloc(links, sizeof(double));
  if (!p->x0 || !p->v0 || !p->mass || !p->a || !p->b || !p->pin || !p->len) {
    bench_problem_free(p);
    return -1;
  }
  p->g[1] = -BENCH_G;
  return 0;
}

int bench_chain(bench_problem *p, size_t N)
{
  if (N < 1 || problem_alloc(p, N, N))
    return -1;
  snprintf(p->name, sizeof p->name, "chain-%zu", N);
  for (size_t k = 0; k < N; k++) {
    p->x0[3 * k + 1] = -(double)(k + 1) * BENCH_LINK;
    p->v0[3 * k] = BENCH_KICK;
    p->mass[k] = BENCH_MASS;
    p->a[k] = (int)k;
    p->b[k] = k ? (int)k - 1 : -1;
    p->len[k] = BENCH_LINK;
  }
  return 0;
}

int bench_grid(bench_problem *p, size_t N)
{
  if (N < 2 || problem_alloc(p, N * N, 2 * N * (N - 1) + 6))
    return -1;
  snprintf(p->name, sizeof p->name, "grid-%zux%zu", N, N);
  /* Rows in the order: the first corner's tripod, the links row by row,
     the last corner's tripod (so that A's half-bandwidth is about 2 N). */
  size_t k = 0;
  for (size_t i = 0; i < N * N; i++) {
    p->x0[3 * i] = (double)(i % N) * BENCH_LINK;
    p->x0[3 * i + 2] = (double)(i / N) * BENCH_LINK;
    p->mass[i] = BENCH_MASS;
  }
  for (size_t i = 0; i <= N * N; i++) {
    if (i == 0 || i == N * N) {
      size_t c = i ? N * N - 1 : 0;
      for (int axis = 0; axis < 3; axis++, k++) {
        p->a[k] = (int)c;
        p->b[k] = -1;
        memcpy(p->pin + 3 * k, p->x0 + 3 * c, 3 * sizeof(double));
        p->pin[3 * k + (size_t)axis] += BENCH_LINK;
        p->len[k] = BENCH_LINK;
      }
    }
    if (i == N * N)
      break;
    if ((i + 1) % N) {
      p->a[k] = (int)i;
      p->b[k] = (int)i + 1;
      p->len[k++] = BENCH_LINK;
    }
    if (i + N < N * N) {
      p->a[k] = (int)i;
      p->b[k] = (int)(i + N);
      p->len[k++] = BENCH_LINK;
    }
  }
  return k == p->links ? 0 : -1;
}
