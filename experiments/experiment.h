/*
 * experiment.h: experiments as type objects, and what they share.
 *
 * An experiment declares its parameters (name, default, meaning), its
 * default step size, step count and schemes, and a run function.  The
 * `cdyn run` command fills a context from the command line; the run
 * function writes its CSV files through exp_csv_* (each file is written
 * under a temporary name and renamed when complete, and gets a
 * FILE.meta.json beside it with every parameter, the version and the
 * command), and records claim verdicts with exp_claim.
 *
 * Adding an experiment is one file defining a `const cdyn_experiment` and
 * one line in experiments.def.
 */
#ifndef CDYN_EXPERIMENT_H
#define CDYN_EXPERIMENT_H

#include <stdio.h>

#include <cdyn/cdyn.h>

#define EXP_MAX_SCHEMES 32
#define EXP_MAX_SETS 32

typedef struct exp_param {
  const char *name;
  const char *def;
  const char *doc;
} exp_param;

typedef struct exp_ctx exp_ctx;

typedef struct cdyn_experiment {
  const char *name;
  const char *description;
  const char *source;       /* paper and figure */
  const exp_param *params;  /* terminated by a NULL name */
  const char *schemes;      /* default schemes, comma separated */
  double h;                 /* default step size */
  long steps;               /* default number of steps */
  int (*run)(exp_ctx *ctx);
} cdyn_experiment;

struct exp_ctx {
  const cdyn_experiment *exp;
  const char *outdir;
  double h;
  long steps;
  int nschemes;
  const char *schemes[EXP_MAX_SCHEMES];
  int schemes_given; /* --scheme restricted the run: claims are not judged */
  int nsets;
  const char *set_key[EXP_MAX_SETS], *set_val[EXP_MAX_SETS];
  const char *command; /* the command line, for metadata */
  FILE *claims;        /* claims.part.csv, open while running */
  char claims_tmp[4096];
};

extern const cdyn_experiment *const cdyn_experiments[];
const cdyn_experiment *exp_find(const char *name);

/* A parameter's value (--set, else its default); CDYN_EINVAL if unparsable. */
int exp_param_double(const exp_ctx *ctx, const char *name, double *out);
const char *exp_param_string(const exp_ctx *ctx, const char *name);

/* A CSV file being written: rows go to a temporary file until close. */
typedef struct exp_csv {
  FILE *f;
  char path[4096], tmp[4096];
  int ncol;
  int failed;
  /* What the metadata record needs; it is written when the CSV is
     complete, so that a failed run leaves neither file behind. */
  exp_ctx *ctx;
  char *name, *columns, *extra;
  const cdyn_stepper *stepper;
} exp_csv;

/*
 * Open outdir/NAME.csv with the header `columns` (comma separated).
 * `scheme`, when not NULL, is the stepper whose options go into the
 * metadata; `extra` (may be NULL) is a JSON fragment of further fields
 * ("\"key\": value, ...").  The stepper must outlive exp_csv_close.
 */
int exp_csv_open(exp_ctx *ctx, exp_csv *csv, const char *name, const char *columns,
                 const cdyn_stepper *scheme, const char *extra);
int exp_csv_row(exp_csv *csv, const double *values, int n);
/* A row whose first field is text (a label), then numbers. */
int exp_csv_row_labeled(exp_csv *csv, const char *label, const double *values, int n);
/* A row of `nl` text fields (quoted where needed), then `n` numbers. */
int exp_csv_row_labels(exp_csv *csv, const char *const *labels, int nl, const double *values, int n);
/* Finish: rename into place on success; remove the temporary file if !ok. */
int exp_csv_close(exp_csv *csv, int ok);

/* Record a claim verdict: verdict is one of holds, partly, does-not-hold. */
int exp_claim(exp_ctx *ctx, const char *id, double measured, const char *threshold,
              const char *verdict, const char *note_fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 6, 7)))
#endif
  ;

/* Append a Markdown fragment to the report (outdir/report.part.md). */
int exp_report(exp_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* Build a stepper for `scheme`, applying the --set values that name its options. */
int exp_stepper(exp_ctx *ctx, cdyn_system *sys, const char *scheme, cdyn_stepper **out);

/* exp_stepper, then the NULL-terminated option name/value pairs `overrides`
   (may be NULL); on failure nothing is left allocated. */
int exp_stepper_with(exp_ctx *ctx, cdyn_system *sys, const char *scheme, const char *const *overrides,
                     cdyn_stepper **out);

/* The largest distance between corresponding particles of two 3n-vectors. */
double exp_max_dist(const double *a, const double *b, size_t n);

/* Position of `scheme` in the run's list (default or --scheme), or -1. */
int exp_scheme_index(const exp_ctx *ctx, const char *scheme);

/* Write one CSV field, quoted when it holds a comma, quote or newline. */
void exp_csv_field(FILE *f, const char *s);

/* Least-squares slope of log y against log x over the points with ok[k]
   (ok may be NULL: all); *used gets their number; NaN below two points. */
double exp_fit_slope(const double *x, const double *y, const int *ok, int n, int *used);

/* Print a message for a failed cdyn call and return its status. */
int exp_fail(int status, const char *what);

/* Claims report: merge DIR/<experiment>/claims.part.csv into DIR/claims.csv and claims.md. */
int exp_write_report(const char *dir);

#endif
