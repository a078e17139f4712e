/*
 * bench/problem.h: the benchmark problems, as plain data every engine
 * builds its own model from: point masses joined by distance constraints
 * (links), some of them pinned to fixed points of the world.
 *
 *   |x_a - x_b| = len_k        (a link between particles a and b)
 *   |x_a - p_k| = len_k        (b < 0: a link from particle a to the fixed point p_k)
 * under uniform gravity g, from positions x0 and velocities v0.
 */
#ifndef CDYN_BENCH_PROBLEM_H
#define CDYN_BENCH_PROBLEM_H

#include <stddef.h>

typedef struct bench_problem {
  char name[64];      /* e.g. "chain-1000", "grid-100x100" */
  size_t n;           /* particles */
  double *x0, *v0;    /* 3n each */
  double *mass;       /* n, kg */
  size_t links;       /* constraints (rows of A) */
  int *a, *b;         /* links: particle indices; b[k] < 0: pinned to pin[3k..3k+2] */
  double *pin;        /* 3 * links (used where b[k] < 0) */
  double *len;        /* links, m */
  double g[3];        /* m/s^2 */
} bench_problem;

/* The result of running one engine variant on a problem. */
typedef struct bench_run {
  long steps;          /* steps taken */
  double seconds;      /* wall time of those steps (monotonic clock) */
  double stretch_max;  /* max over the steps and links of |d - len| / len */
  double stretch_end;  /* the same after the last step */
  int ok;              /* 0 if the engine failed or the state became non-finite */
  char note[160];      /* why not ok, or what the run skipped */
} bench_run;

/* max_k |d_k - len_k| / len_k for positions x (3n). */
double bench_stretch(const bench_problem *p, const double *x);

#endif
