/*
 * tests/experiments/harness.h: what the tests of the cdyn program share.
 *
 * Each program in tests/experiments/ tests the built cdyn program end to
 * end, one experiment or one family of experiments at a time: the program
 * (its path in CDYN_PROGRAM, which `make check` sets) is run as a child
 * process and what it writes is read back and checked.  This harness
 * (tests/experiments/harness.c) holds what they all use:
 *
 * - the work directory: each test works in a fresh directory
 *   tests/out-XXXXXX under the current directory (the build tree under
 *   `make check`) and removes it when the test passes.  A failing test
 *   may leave its directory behind, which is what one wants to inspect;
 *   `make clean` removes tests/out-*;
 * - paths into it, whole files and directory listings;
 * - running cdyn there with its standard output and error captured;
 * - the CSV files the experiments write (numeric tables with an optional
 *   text label, and the quoted fields of the claim files);
 * - the claims: each claim line of a run against the table's rule
 *   (experiments/runner/claims.c) applied to what the test recomputes from
 *   the runs' files, and the claims a run judges or leaves not run;
 * - the metadata beside every file, and two runs' outputs compared byte
 *   for byte;
 * - the test cases (each in its work directory, with a timeout long
 *   enough for sanitizers and valgrind) and the suite.
 *
 * The programs define _POSIX_C_SOURCE and _XOPEN_SOURCE before they
 * include any header, this one among them.
 */
#ifndef CDYN_TESTS_EXPERIMENTS_HARNESS_H
#define CDYN_TESTS_EXPERIMENTS_HARNESS_H

#include <limits.h>
#include <stddef.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "runner/claims.h"
#include "../testutil.h"

/* The claims are those of the table (experiments/runner/claims.c), which the
   report must list in its order; their verdicts are recomputed here from
   the runs' files with the table's own rules (exp_verdict). */
#define NCLAIMS exp_nclaims
#define claim_id(k) (exp_claim_defs[k].id)

/* The problems of experiments/problems/problems.h: gravity 9.81 m/s^2 along -y,
   1 m links, 1 kg particles. */
static const double G = 9.81;
static const double PI = 3.14159265358979323846;

/* ---- the work directory ---------------------------------------------------- */

extern char wd[64]; /* tests/out-XXXXXX, relative to the cwd */

/* A path into buf (PATH_MAX bytes), printf-style; one that does not fit
   fails the test. */
char *pathf(char *buf, const char *fmt, ...);
/* wd/NAME, NAME given printf-style. */
char *wp(char *buf, const char *fmt, ...);
/* Remove a directory tree. */
void remove_tree(const char *path);

/* ---- files ---------------------------------------------------------------------- */

/* The whole file, NUL-terminated (NULL if it cannot be read). */
char *slurp(const char *path, size_t *len);
/* The same, failing the test when the file cannot be read. */
char *must_slurp(const char *path);
int exists(const char *path);
int has_suffix(const char *s, const char *suffix);

typedef struct {
  size_t n;
  char **name;
} dirlist;

/* The entries of a directory other than . and .., sorted. */
dirlist list_dir(const char *path);
void dirlist_free(dirlist *l);
size_t count_suffix(const dirlist *l, const char *suffix);

/* ---- running the program ---------------------------------------------------- */

typedef struct {
  int status; /* exit status, or 128 + the signal that ended it */
  char *out, *err;
} proc;

void proc_free(proc *p);
/* Run cdyn with `args` (NULL-terminated) in the work directory. */
proc run_argv(const char *const *args);

#define run_cdyn(...) run_argv((const char *const[]){__VA_ARGS__, NULL})

/* Run and require success; the output is not needed. */
#define run_ok(...)                                                                            \
  do {                                                                                         \
    proc p_ = run_cdyn(__VA_ARGS__);                                                           \
    ck_assert_msg(p_.status == 0, "cdyn exited with %d; stderr:\n%s", p_.status, p_.err);      \
    proc_free(&p_);                                                                            \
  } while (0)

/* ---- CSV ----------------------------------------------------------------------------- */

/* A numeric CSV file, optionally with a text label in the first column. */
typedef struct {
  size_t nrows, ncol;
  double *v;    /* nrows x ncol, row-major; NaN in the label column */
  char **label; /* the text fields of each row when labeled, joined by commas */
} table;

double tv(const table *t, size_t r, size_t c);
void table_free(table *t);
/* A CSV file whose first line must be exactly `header`, its first
   `labeled` fields text and the others finite numbers (or NaN too, with
   read_table_nan). */
table read_table(const char *path, const char *header, int labeled);
table read_table_nan(const char *path, const char *header, int labeled);
/* One CSV line split in place into at most `max` fields, unquoted;
   the field count, -1 if malformed. */
int split_csv(char *line, char **f, int max);
/* The lines of a text, split in place; every line must end with '\n'. */
size_t split_lines(const char *what, char *text, char **lines, size_t max);

/* ---- claims ---------------------------------------------------------------------- */

int is_verdict(const char *v);
/* The 6 fields of claim `id` in DIR/claims.part.csv, pointing into *text. */
void claim_fields(const char *dir, const char *id, char **text, char **fields);
/* Claim `id` of DIR/claims.part.csv against the table's rule applied to
   the sub-measures v. */
void check_claim(const char *dir, const char *id, const exp_value *v, size_t n, double rel);
/* The run names of DIR/run.meta.json, in order. */
void read_runs(const char *dir, char names[][64], size_t max, size_t *n);
int run_listed(char names[][64], size_t n, const char *name);
/* DIR/claims.part.csv holds exactly the claims of `experiment`; the
   number judged. */
size_t check_claims_part(const char *dir, const char *experiment);

/* ---- metadata and output ---------------------------------------------------------- */

/* Does the JSON text hold "key": "value" (a string)? */
int json_has_string(const char *json, const char *key, const char *value);
/* DIR/NAME.meta.json: the version, the command, h and steps, and one
   experiment parameter. */
void check_meta(const char *dir, const char *name, const char *command, double h, long steps, const char *param,
                const char *value);
/* No half-written file may survive a run. */
void check_no_temporaries(const char *dir);
/* wd/a and wd/b, written by the same command but for --out, hold the
   same bytes, among them at least `min_csv` CSV files. */
void check_same_output(size_t min_csv);

/* |a - b| <= tol, NaN equal to NaN (a value "not measured" on both sides). */
int same(double a, double b, double tol);

/* ---- the suite ----------------------------------------------------------------------------- */

/* The suite `name`, for a program's tests; sets OPENBLAS_NUM_THREADS=1,
   which every cdyn run inherits. */
Suite *exp_suite(const char *name);
/* `test` as the test case `name` of s, in its own work directory. */
void add(Suite *s, const char *name, const TTest *test);

/* A test and the name of its test case. */
typedef struct {
  const char *name;
  const TTest *test;
} exp_case;

/* Run the n cases as the suite `name`; main's exit status. */
int exp_run(const char *name, const exp_case *cases, size_t n);

#endif
