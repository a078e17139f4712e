/*
 * bench/common.h: what the sections of cdyn-bench share (common.c): the
 * cdyn system of a problem, medians, output files written whole or not at
 * all, and the head of the metadata records (the machine, compiler and
 * libraries).
 */
#ifndef CDYN_BENCH_COMMON_H
#define CDYN_BENCH_COMMON_H

#include <stdio.h>

#include "cdyn/cdyn.h"
#include "problem.h"
#include "runner/text.h" /* exp_json_str, exp_csv_field */

/* The problem as a cdyn system: links by "distance", links to fixed
   points by `pinned` (NULL: "sphere"), which takes the parameters
   (p_x, p_y, p_z, len).  0, or a cdyn status. */
int bench_build_system(const bench_problem *p, const cdyn_constraint_type *pinned, cdyn_system **out);

/* The median of x[0 .. n-1] (sorts x). */
double bench_median(double *x, int n);

/* Whether `name` is an item of the comma-separated `list`. */
int bench_in_list(const char *list, const char *name);

/* A status's name (CDYN_OK, CDYN_NOCONV, CDYN_EINVAL, ...). */
const char *bench_status_name(int rc);

/* DIR/NAME written through a temporary name, so that it is whole or
   absent: open_tmp gives the stream (NULL on failure), close_tmp renames
   it into place (0) or removes it and says so (-1). */
FILE *bench_open_tmp(const char *dir, const char *name, char *tmp, char *final, size_t len);
int bench_close_tmp(FILE *f, const char *tmp, const char *final);

/* The head of a metadata record: "{", the program, cdyn's version, the
   command, the date, the machine, the compiler, BLAS, LAPACK, CHOLMOD
   and ODE, up to and without the comma after ODE's version. */
void bench_meta_begin(FILE *f, int argc, char **argv);

#endif
