/*
 * bench/problems.h: builders of the benchmark problems (problems.c).
 */
#ifndef CDYN_BENCH_PROBLEMS_H
#define CDYN_BENCH_PROBLEMS_H

#include <stddef.h>

#include "problem.h"

#define BENCH_LINK 0.05 /* m */
#define BENCH_MASS 1.0  /* kg */
#define BENCH_KICK 0.05 /* m/s, the chain's sideways start */
#define BENCH_G 9.81    /* m/s^2 */

/* 0, or -1 (out of memory, or N too small); free with bench_problem_free. */
int bench_chain(bench_problem *p, size_t N);
int bench_grid(bench_problem *p, size_t N);
void bench_problem_free(bench_problem *p);

#endif
