/*
 * bench/animation.h: cdyn-bench's second section, the animation step:
 * every variant at h = 1/60 s for 10 s of simulated time (animation.c).
 */
#ifndef CDYN_BENCH_ANIMATION_H
#define CDYN_BENCH_ANIMATION_H

#include <stdio.h>

typedef struct bench_anim bench_anim;

/* Runs the section (quick: chains of 100 and 1000 links only, one
   repetition; reps: repetitions at most; only: NULL or a comma-separated
   list of problem names), logging each run on stderr.  NULL without
   memory. */
bench_anim *bench_anim_run(int quick, int reps, const char *only);

/* animation.csv and animation.meta.json in dir; 0 or -1. */
int bench_anim_write(const bench_anim *a, const char *dir, int argc, char **argv);

/* The section of summary.md: the table, then the goals as measured ratios. */
void bench_anim_print(FILE *g, const bench_anim *a);

void bench_anim_free(bench_anim *a);

#endif
