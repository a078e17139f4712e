/*
 * bench/cloth.h: cdyn-bench's third section, cloth at h = 1/60 s against
 * Bullet 3.24's soft body (cloth.c).
 */
#ifndef CDYN_BENCH_CLOTH_H
#define CDYN_BENCH_CLOTH_H

#include <stdio.h>

typedef struct bench_cloth bench_cloth;

/* Runs the section (quick: hanging-32 and hanging-64 only, for 120
   frames, one repetition; reps: repetitions at most; only: NULL or a
   comma-separated list of problem names), each run in a child process,
   logging each run on stderr.  NULL without memory. */
bench_cloth *bench_cloth_run(int quick, int reps, const char *only);

/* soft-body.csv and soft-body.meta.json in dir; 0 or -1. */
int bench_cloth_write(const bench_cloth *c, const char *dir, int argc, char **argv);

/* The section of summary.md (and soft-body.md): a table per problem. */
void bench_cloth_print(FILE *g, const bench_cloth *c);

void bench_cloth_free(bench_cloth *c);

#endif
