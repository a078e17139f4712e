/*
 * experiment.h: experiments as type objects, and what they share.
 *
 * An experiment declares its parameters (a table: name, default, range,
 * integer or real, one line of documentation), the paper's schemes, its
 * companion runs (a scheme with fixed options, such as Baumgarte without
 * feedback), its default step size and step count (0: it chooses its
 * own, and --h or --steps is refused), and a run function.  `cdyn run`
 * validates everything against those tables before anything is written,
 * fills a context, and calls the run function, which
 *   - runs each of the context's runs (exp_ctx.runs: the paper's schemes
 *     or those given, any extra schemes, then the companions) through the
 *     one runner, exp_simulate, with an observer for its own measures;
 *   - writes its CSV files through exp_csv_* (each written under a
 *     temporary name and renamed when complete, with FILE.meta.json beside
 *     it: every parameter, scheme option, column meaning and unit, the
 *     version, the build and the command);
 *   - judges its claims (claims.h: the rules are data) with exp_judge.
 *
 * Adding an experiment is one file in studies/ defining a `const
 * cdyn_experiment`, with its parameters and the units and meanings of its
 * columns, and one line in studies/experiments.def (and its figure
 * script, if it has one).
 */
#ifndef CDYN_EXPERIMENT_H
#define CDYN_EXPERIMENT_H

#include <stdint.h>
#include <stdio.h>

#include <cdyn/cdyn.h>

#include "runner/claims.h"
#include "runner/text.h"
#include "runner/files.h"
#include "runner/lists.h"

#define EXP_MAX_RUNS 64
#define EXP_ALG_OPTIONS 2 /* the most options an experiment gives its algorithm runs (algorithm_options) */
#define EXP_MAX_SETS 64
#define EXP_MAX_PARAMS 32

/* ---- parameters ---------------------------------------------------------------------- */

enum exp_param_kind {
  EXP_REAL, /* a finite number within the range */
  EXP_INT,  /* an integer within the range */
  EXP_TEXT  /* text, checked where it is used (a solver name, a list) */
};

/* Bits of exp_param.open: the range excludes its lower or upper bound;
   EXP_OWN: the experiment's own, never passed on to a scheme option of
   the same name (exp_stepper_options). */
#define EXP_OPEN_MIN 1
#define EXP_OPEN_MAX 2
#define EXP_OWN 4

typedef struct exp_param {
  const char *name;
  const char *def;
  enum exp_param_kind kind;
  double min, max; /* the range, for EXP_REAL and EXP_INT */
  int open;        /* EXP_OPEN_MIN | EXP_OPEN_MAX | EXP_OWN */
  const char *doc;
} exp_param;

#define EXP_PARAMS_END {NULL, NULL, EXP_REAL, 0, 0, 0, NULL}

/* ---- runs ------------------------------------------------------------------------------ */

/*
 * A companion run: `scheme` with fixed options, under its own name, part
 * of the experiment whatever schemes are asked for (Baumgarte without
 * feedback beside Baumgarte, say).
 */
typedef struct exp_companion {
  const char *name, *scheme;
  const char *const *overrides; /* NULL-terminated option name, value pairs; may be NULL */
  const char *doc;
} exp_companion;

enum exp_role {
  EXP_PAPER,    /* one of the experiment's own schemes (or one --scheme named) */
  EXP_EXTRA,    /* added by --extra-schemes */
  EXP_COMPANION /* a companion run */
};

typedef struct exp_runspec {
  const char *name;              /* the run's name: its scheme's, or the companion's */
  const char *scheme;
  const char *const *overrides;  /* NULL-terminated option name, value pairs; may be NULL */
  enum exp_role role;
} exp_runspec;

typedef struct exp_ctx exp_ctx;

/* ---- columns ------------------------------------------------------------------------------ */

/*
 * The unit and meaning of a column an experiment writes, for the metadata
 * record beside each CSV (runner/columns.c: how they are looked up).
 * `file`: the file without .csv (NULL: any of the experiment's files; a
 * trailing '*' matches a prefix); `column`: its name, in which '#'
 * stands for a number (x# is x0, x1, ...).
 */
typedef struct exp_column {
  const char *file, *column, *unit, *meaning;
} exp_column;

#define EXP_COLUMNS_END {NULL, NULL, NULL, NULL}

typedef struct cdyn_experiment {
  const char *name;
  const char *description;
  const char *source;            /* paper and figure */
  const exp_param *params;       /* ends with EXP_PARAMS_END */
  /* The unit and meaning of every column it writes that runner/columns.c
     (the columns every experiment shares) does not give; ends with
     EXP_COLUMNS_END; may be NULL. */
  const exp_column *columns;
  /* Its files are another experiment's under its own name (cloth-self-contact
     writes cloth-contact's): a file named with its name as prefix is looked
     up in `columns` with this name in its place; NULL: none. */
  const char *files_as;
  /* Checks across parameters (and --h, --steps) that their table cannot
     state, before anything is written; may be NULL. */
  int (*check)(exp_ctx *ctx);
  /* The paper's schemes, comma separated, or "all" (every registered
     scheme); NULL: the experiment runs no schemes (it studies the
     active-set algorithms or collision detection directly). */
  const char *schemes;
  const exp_companion *companions; /* ends with a NULL name; may be NULL */
  /* Runs only schemes that enforce inequality rows; others given to it
     are skipped, with the reason in the log and the report. */
  int inequalities;
  /* Its systems have no constraints but pins, so that schemes that
     enforce pins only (baraff-witkin) can run it; otherwise they are
     skipped (from "all" or --extra-schemes) or refused (named). */
  int pins_only_ok;
  /* Its systems have no constraints but pins and inequality rows, so that
     the schemes that enforce pins and inequality rows only
     (projected-newton) can run it. */
  int pins_ineq_ok;
  /* The name of a text parameter listing active-set algorithms (NULL:
     none): each becomes a companion run of the scheme "contact" under the
     algorithm's name, with activeset = the algorithm. */
  const char *algorithm_param;
  /* Options the algorithm runs take besides activeset (key, value, ...,
     NULL; at most EXP_ALG_OPTIONS pairs; NULL: none). */
  const char *const *algorithm_options;
  double h;                      /* default step size; 0: --h is refused */
  long steps;                    /* default step count; 0: --steps is refused */
  int (*run)(exp_ctx *ctx);
} cdyn_experiment;

/* A --set of a scheme option: `scheme` NULL for every run whose scheme has it. */
typedef struct exp_set {
  const char *scheme, *key, *value;
} exp_set;

/*
 * A scene file as an experiment (runner/scene.c): read once, its bytes kept
 * (each run builds its scene from them), with what the file says: its
 * name (made safe in file names), its scheme and run, and the experiment
 * record that `cdyn run scene` runs, whose defaults are the file's.
 */
typedef struct exp_scene_src {
  char path[4096];
  char *text;
  size_t len;
  uint64_t digest;        /* FNV-1a of the file's bytes */
  char name[256], scheme[128];
  cdyn_scene_run run;
  cdyn_experiment exp;
} exp_scene_src;

/* Read and check the scene file at path (CDYN_EINVAL or CDYN_EIO with a
   message); free with exp_scene_free (which takes NULL). */
int exp_scene_read(exp_scene_src **out, const char *path);
void exp_scene_free(exp_scene_src *s);
/* A scene built from it (as cdyn_scene_load builds one). */
int exp_scene_build(const exp_scene_src *s, cdyn_scene **out);
/* The steps at step size h when the scene's run gives t_end (else *steps
   is left as it is). */
int exp_scene_steps(const exp_scene_src *s, double h, long *steps);

struct exp_ctx {
  const cdyn_experiment *exp;
  const char *outdir;
  double h;
  long steps;
  exp_runspec runs[EXP_MAX_RUNS];
  int nruns;
  /* The experiment's parameters, parsed and checked: text and value. */
  const char *param_text[EXP_MAX_PARAMS];
  double param_value[EXP_MAX_PARAMS];
  /* Scheme options from --set, in the order given. */
  exp_set sets[EXP_MAX_SETS];
  int nsets;
  char skipped[1024];   /* schemes given but not run, with the reason */
  char alg_names[EXP_MAX_RUNS][32];            /* the algorithm runs' names */
  const char *alg_overrides[EXP_MAX_RUNS][2 * EXP_ALG_OPTIONS + 3]; /* and their activeset = NAME, then the
                                                                       experiment's algorithm_options */
  const char *command;  /* the command line, for metadata */
  exp_scene_src *scene; /* `cdyn run scene`: the scene file (exp is &scene->exp); NULL otherwise */
  FILE *claims;         /* claims.part.csv, open while running */
  unsigned char judged[256]; /* by index into exp_claim_defs */
  int failed_io;        /* a report fragment could not be written */
  char io_error[1024];  /* and why (its message) */
  double progress_last; /* time of the last progress line */
  int runs_failed;      /* `cdyn run scene`: runs that ended early (watch.c) */
};

/* Print an experiment's record (cdyn list NAME, cdyn run NAME --help). */
void exp_print_experiment(const cdyn_experiment *e);

/* A parameter's value, checked against its table entry when the run
   started (so these never fail for a name in the table). */
int exp_param_double(const exp_ctx *ctx, const char *name, double *out);
long exp_param_long(const exp_ctx *ctx, const char *name);
const char *exp_param_string(const exp_ctx *ctx, const char *name);
/* Parse and check `text` as a value of p: CDYN_EINVAL with a message. */
int exp_param_check(const exp_param *p, const char *text, double *value);
/* The range of p as text: "[1, 100]", "(0, inf)", ... */
void exp_param_range(const exp_param *p, char *buf, size_t len);

/* The index of run `name` in ctx->runs, or -1. */
int exp_run_index(const exp_ctx *ctx, const char *name);

/* ---- the runner ----------------------------------------------------------------------- */

/* Limits that end a run; INFINITY for none. */
typedef struct exp_limits {
  double e_max;    /* e_n above this (or NaN) ends the run */
  double gain_max; /* E - E(0) above this (or NaN) ends the run */
  int no_divergence; /* 1: the default divergence rule is off for this run (see below) */
} exp_limits;

/*
 * The default divergence rule, which every run of the runner gets (its
 * reasons: doc/choices.md).  With the scene's size
 *   L = max(the diagonal of the box around the initial positions and the
 *           origin, the longest spring's rest length), 1 m if that is 0,
 * and its reach at time t after the start,
 *   R(t) = L + max_i |v_i(0)| t + max_i |F_i(0)| / m_i t^2 / 2
 * (F the applied forces at the start: gravity, springs, the user's),
 * a run ends as EXP_END_DIVERGED after the first step at which
 *   e_n > EXP_DIVERGE_FACTOR L, or
 *   |x_i - x_i(0)| > EXP_DIVERGE_FACTOR R(t) for some particle i.
 * A run that states limits of its own (exp_limits_stated: an error limit
 * the stepper's guard takes, or an energy-gain limit, as a scene's
 * run.stop would hold them) is judged by those instead.
 * It reads only the start and the state after each step, so a run cut
 * short (--steps, cdyn replay) ends where the whole run would.
 * The state that crossed it is measured and kept (the run's last row).
 * lim->no_divergence or exp_divergence_off turns it off.
 */
#define EXP_DIVERGE_FACTOR 1000.0
/* 1: the rule is off for every run of the process (cdyn run --no-divergence). */
extern int exp_divergence_off;
/* 1 when lim states limits of its own (they replace the rule). */
int exp_limits_stated(const exp_limits *lim);

extern const exp_limits exp_no_limits;

/* Why a run ended. */
enum exp_end {
  EXP_END_COMPLETED,   /* every step was taken */
  EXP_END_FAILED_STEP, /* a step returned a negative status (status) */
  EXP_END_NONFINITE,   /* e_n or E could not be measured, or is not finite */
  EXP_END_ERROR_LIMIT, /* e_n exceeded e_max */
  EXP_END_ENERGY_GAIN, /* E - E(0) exceeded gain_max */
  EXP_END_OBSERVER,    /* the observer stopped the run */
  EXP_END_DIVERGED     /* the default divergence rule ended it (exp_limits) */
};

/* What the observer sees after step k (k = 0: the start). */
typedef struct exp_state {
  long k;
  double t;        /* k h */
  double e;        /* constraint error e_n (cdyn_system_constraint_error) */
  double T, V, E;  /* kinetic, potential and total energy */
  cdyn_system *sys;
  cdyn_stepper *st;
  int status;      /* the step's status (CDYN_OK or CDYN_NOCONV; 0 at k = 0) */
  double step_time; /* s of wall clock (cdyn_clock) in step k's call (a scene's hooks included; 0 at k = 0) */
  double elapsed;   /* s in every step's call so far */
  int diverging;    /* the divergence rule ends the run after this step (its state is past the rule's
                       limits): the observer still sees the step, and may spare work on a state that is
                       no longer the experiment's (0 when the rule is off) */
} exp_state;

/* Called after every measured step, including the one that breaks a
   limit: 0 goes on, > 0 ends the run (EXP_END_OBSERVER), < 0 is an error
   that ends it and is returned. */
typedef int (*exp_observer)(void *octx, const exp_state *s);

typedef struct exp_outcome {
  enum exp_end end;
  int status;            /* the failed step's status, or the measurement's */
  long steps;            /* steps completed and measured */
  long end_step;         /* the step at which the run ended (steps + 1 for a failed or refused step) */
  unsigned long noconv;  /* steps that returned CDYN_NOCONV */
  double e0, emax, eend; /* e_n: at the start, largest, at the end */
  double E0, Eend;       /* total energy at the start and at the end */
  double dEmax;          /* largest |E - E(0)| */
  double gain_max;       /* largest E - E(0) (0 if it never rose) */
  double e_fail;         /* EXP_END_ERROR_LIMIT: e_n after the step that crossed it (the
                            divergence guard refused that step, so no row shows it); NaN otherwise */
  uint64_t digest;       /* of the trajectory: exp_digest_state after every measured step */
  double elapsed;        /* s of wall clock in the steps' calls, the failed step's included */
  char reason[512];      /* a failed or unmeasurable step: cdyn_errmsg() then ("" otherwise) */
  double div_value, div_limit; /* EXP_END_DIVERGED: the measure that crossed and its limit (m) */
  long div_particle;     /* EXP_END_DIVERGED: the particle that went too far, or -1 (the constraint error) */
  long noconv_first;     /* the first step that returned CDYN_NOCONV (0: none) */
  char noconv_reason[512]; /* and its message */
} exp_outcome;

/*
 * A run for the runner (exp_simulate_with): what it steps, how far, by
 * which limits and for which observer.  `scene` (may be NULL) steps with
 * the scene's hooks (cdyn_scene_step) and is the scene's system; else
 * `sys` steps with cdyn_stepper_step.  `continued`: the run goes on from
 * where an earlier one of the same stepper left off (step-cost's timed
 * batches after its measured steps): `cdyn export` does not write it as a
 * run of its own.
 */
typedef struct exp_sim {
  cdyn_scene *scene;
  cdyn_system *sys;
  cdyn_stepper *st;
  double h;
  long steps;
  const exp_limits *lim; /* NULL: none */
  exp_observer obs;      /* NULL: none */
  void *octx;
  int continued;
} exp_sim;

/* The runner: exp_simulate's rules for any run of exp_sim. */
int exp_simulate_with(const exp_sim *sim, exp_outcome *out);

/*
 * Step `st` (a stepper of `sys`) `steps` times by h, measuring e_n and E
 * after each step and ending the run by the rules every experiment
 * shares: a failed step, a state whose error or energy cannot be measured
 * or is not finite, e_n above lim->e_max, E - E(0) above lim->gain_max
 * after a step (lim may be NULL: no limits; the start is not judged by
 * them).  The error limit is the stepper's divergence guard (max_error),
 * so the step beyond it is refused, its state never measured.  `obs` (may
 * be NULL) sees k = 0 and every measured step.  Returns non-zero only for an observer's error: how the
 * run ended is a measurement, in *out.
 */
int exp_simulate(cdyn_system *sys, cdyn_stepper *st, double h, long steps, const exp_limits *lim, exp_observer obs,
                 void *octx, exp_outcome *out);

/* The same, stepping with a scene's hooks (cdyn_scene_step; sc's system,
   sys ignored), or as exp_simulate when sc is NULL. */
int exp_simulate_scene(cdyn_scene *sc, cdyn_system *sys, cdyn_stepper *st, double h, long steps,
                       const exp_limits *lim, exp_observer obs, void *octx, exp_outcome *out);

/* ---- runs that say when they went wrong (watch.c) ------------------------------------------- */

/* The tally of the runner's runs since exp_watch_reset (exp_simulate_with
   records each), and the summary line of an experiment's early ends. */
void exp_watch_reset(void);
void exp_watch_record(const cdyn_stepper *st, const exp_outcome *out);
unsigned long exp_watch_early(void);
void exp_watch_summary(FILE *f, const char *who);
/* The tally as bytes (exp_watch_size of them), for a process that runs
   some of an experiment's runs (it resets its tally first) to hand to the
   one that reports, which adds it to its own (exp_watch_merge).  Its
   scheme names point into the scheme table, the same in both processes
   of a fork. */
size_t exp_watch_size(void);
void exp_watch_export(void *buf);
void exp_watch_merge(const void *buf);
/* Springs integrated explicitly by st's scheme: 1 with h omega of the
   stiffest spring and the step Gershgorin's bound guarantees (2 /
   omega_bound); 0 when the scheme is implicit in the springs or there are
   none. */
int exp_watch_spring_limit(const cdyn_stepper *st, const cdyn_system *sys, double h, double *homega, double *h_safe);
/* Before a run: a warning when h omega >= 2 for the stiffest explicit spring,
   and the stepper's own (cdyn_stepper_warning) when it has one. */
void exp_watch_before(FILE *f, const char *who, const cdyn_stepper *st, const cdyn_system *sys, double h);
/* After a run: its warnings (failed step, non-finite, a stated limit
   crossed, CDYN_NOCONV steps) and the spring hint; 1 when the run ended
   early (the command's status is then EXP_EXIT_RUNFAIL), else 0. */
int exp_watch_run(FILE *f, const char *who, const cdyn_stepper *st, const cdyn_system *sys, double h, long steps,
                  const exp_outcome *out, const exp_limits *lim);
/* Progress on a terminal: the label of the runs to come, and the runner's
   calls at the start, after each step and at the end of a run. */
void exp_progress_label(const char *label);
void exp_progress_begin(long steps);
void exp_progress_step(long k);
void exp_progress_end(void);

/* ---- trajectories and export (capture.c) --------------------------------------------------- */

/* The digest of a trajectory: FNV-1a over the bits of t, q and v after
   every step, from EXP_DIGEST_INIT. */
#define EXP_DIGEST_INIT UINT64_C(0xcbf29ce484222325)
void exp_digest_state(uint64_t *h, const cdyn_system *sys);

/* `cdyn export`: while on, every run begun (exp_simulate_scene, or an
   experiment's own loop calling exp_capture_begin/_step/_end) is written
   to DIR as a scene, with its trajectory's digest in DIR/index.csv.  The
   calls do nothing when no capture is on. */
int exp_capture_start(const char *dir, const char *experiment);
int exp_capture_begin(cdyn_scene *sc, cdyn_system *sys, const cdyn_stepper *st, double h, long steps,
                      const exp_limits *lim);
void exp_capture_step(const cdyn_system *sys);
void exp_capture_end(void);
int exp_capture_count(void);
/* Is a capture on (cdyn export)?  It lives in this process: an experiment
   that would hand runs to another process runs them itself instead. */
int exp_capture_on(void);
/* Close DIR/index.csv: renamed into place when ok, removed otherwise. */
int exp_capture_finish(int ok);

/* A function that builds a run's system. */
typedef int (*exp_builder)(const void *bctx, cdyn_system **out);

/*
 * Build the system, a stepper for run `run` (exp_stepper_run), simulate,
 * copy the final state into q and v (3n each, may be NULL), free both.
 * `extra` (may be NULL) are option name/value pairs applied last (a
 * sweep's alpha and beta, a study's k).
 */
int exp_run(exp_ctx *ctx, const exp_runspec *run, const char *const *extra, exp_builder build, const void *bctx,
            double h, long steps, const exp_limits *lim, exp_observer obs, void *octx, exp_outcome *out, double *q,
            double *v);

/*
 * A stepper for `run` on sys, its options set in this order: the
 * experiment's parameters that are options of the scheme (alpha, ks,
 * ...), the run's --set values (unqualified, then SCHEME.KEY), the
 * companion's fixed options, then `extra` (may be NULL).  On failure
 * nothing is left allocated.
 */
int exp_stepper_run(exp_ctx *ctx, cdyn_system *sys, const exp_runspec *run, const char *const *extra,
                    cdyn_stepper **out);
/* The same options, set on an existing stepper of run->scheme. */
int exp_stepper_options(exp_ctx *ctx, cdyn_stepper *st, const exp_runspec *run, const char *const *extra);

/* Does `scheme` (registered) have option `key`? */
int exp_scheme_has_option(const char *scheme, const char *key);

/*
 * The contact report and the handled set (m flags) of st's last step;
 * zeros (and NaN multipliers) for a scheme that keeps no such report.
 */
int exp_contact_info(const cdyn_stepper *st, size_t m, cdyn_contact_report *rep, unsigned char *handled);

/* A run of `scheme` under its own name, for experiment-internal runs. */
exp_runspec exp_plain_run(const char *scheme);
/* The run named `name` of ctx (with its --set options) if there is one,
   else exp_plain_run(name): for a study of one scheme's options. */
exp_runspec exp_run_or_plain(const exp_ctx *ctx, const char *name);

/* ---- output --------------------------------------------------------------------------- */

/* A CSV file being written: rows go to a temporary file until close. */
typedef struct exp_csv {
  exp_afile file;
  int ncol;
  int failed;
  /* What the metadata record needs; it is written when the CSV is
     complete, so that a failed run leaves neither file behind. */
  exp_ctx *ctx;
  char *name, *columns, *extra;
  const cdyn_stepper *stepper;
} exp_csv;

/*
 * Open outdir/NAME.csv with the header `columns` (comma separated; every
 * column needs an entry, its unit and meaning, in the experiment's columns
 * or in columns.c, or the CSV is
 * refused).  `scheme`, when not NULL, is the stepper whose options go
 * into the metadata; `extra` (may be NULL) is a JSON fragment of further
 * fields ("\"key\": value, ...").  The stepper must outlive exp_csv_close.
 */
int exp_csv_open(exp_ctx *ctx, exp_csv *csv, const char *name, const char *columns, const cdyn_stepper *scheme,
                 const char *extra);
int exp_csv_row(exp_csv *csv, const double *values, int n);
/* A row whose first field is text (a label), then numbers. */
int exp_csv_row_labeled(exp_csv *csv, const char *label, const double *values, int n);
/* A row of `nl` text fields (quoted where needed), then `n` numbers. */
int exp_csv_row_labels(exp_csv *csv, const char *const *labels, int nl, const double *values, int n);
/* Finish: rename into place on success; remove the temporary file if !ok. */
int exp_csv_close(exp_csv *csv, int ok);

/* The metadata fields every record shares, after "{\n": program,
   version, build and the command line (NULL: ""). */
void exp_meta_program(FILE *f, const char *command);

/*
 * The unit and meaning of column `column` of file `file` (without .csv)
 * of experiment `e` (its columns, then columns.c's); NULL when it has
 * none.
 */
const char *exp_column_unit(const cdyn_experiment *e, const char *file, const char *column, const char **meaning);

/* Append a Markdown fragment to the report (outdir/report.part.md). */
int exp_report(exp_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* x printed with the printf conversion `fmt` (one double, e.g. "%.3g")
   into buf, or `if_nan` in its place when x is NaN (a measure that could
   not be taken: say why, "no run failed", rather than "nan"); returns buf.
   For the notes and report fragments a reader sees. */
const char *exp_num(char *buf, size_t len, const char *fmt, double x, const char *if_nan);

/* Progress of a long run on stderr, when stderr is a terminal and
   CDYN_NO_PROGRESS is not set (at most a few lines a second; the
   runner's progress line, watch.c); done == total ends the line. */
void exp_progress(exp_ctx *ctx, const char *what, long done, long total);

/* ---- claims --------------------------------------------------------------------------- */

/* Are the runs claim `id` needs all in this run?  (If not, the claim is
   reported as not-run with that reason.) */
int exp_claim_ready(const exp_ctx *ctx, const char *id);

/*
 * Judge claim `id` (claims.h) on the sub-measures v[0 .. n-1] and record
 * its verdict, the measured value, the rule's text and a note (printf
 * style) in claims.part.csv.  Nothing when the run does not judge claims.
 */
int exp_judge(exp_ctx *ctx, const char *id, const exp_value *v, size_t n, const char *note_fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 5, 6)))
#endif
  ;

/* Record claim `id` as not-run, with the reason (a run too short, ...). */
int exp_claim_not_run(exp_ctx *ctx, const char *id, const char *reason);

/* ---- helpers ---------------------------------------------------------------------------- */

/* The largest distance between corresponding particles of two 3n-vectors. */
double exp_max_dist(const double *a, const double *b, size_t n);

/* Least-squares slope of log y against log x over the points with ok[k]
   (ok may be NULL: all); *used gets their number; NaN below two points. */
double exp_fit_slope(const double *x, const double *y, const int *ok, int n, int *used);

/* The cloth's material (lib/cloth/cloth.c), the same defaults in every cloth
   experiment: entries of an exp_param table. */
#define CLOTH_MATERIAL_PARAMS                                                                                  \
  {"size", "1", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "side of the square patch (m)"},          \
    {"mass", "0.5", EXP_REAL, 0, INFINITY, EXP_OPEN_MIN | EXP_OPEN_MAX, "total mass of the cloth (kg)"},      \
    {"k_struct", "100", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "stiffness of the structural springs (N/m)"},     \
    {"k_shear", "20", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "stiffness of the shear springs (N/m)"},            \
    {"k_bend", "2", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "stiffness of the bend springs (N/m)"},               \
    {"damping", "0.02", EXP_REAL, 0, INFINITY, EXP_OPEN_MAX, "damping c of every spring (N s/m)"}

/* The cloth experiments' material (CLOTH_MATERIAL_PARAMS). */
typedef struct exp_cloth_material {
  double size, mass, k_struct, k_shear, k_bend, damping;
} exp_cloth_material;

/*
 * Scenes built from the scene format's text (doc/scene-format.md), as a
 * researcher writes one: the cloth experiments describe their scenes so,
 * with the "cloth" generator, and read them with the library's reader.
 * exp_cloth_generator appends that generator for a square patch of
 * grid x grid nodes of material m, horizontal at y = 0 (x and z in
 * [-size/2, size/2]), pinned at the npins nodes `pins`, with `hooks`
 * (text inside the generator's object, after a comma: its strain_limit,
 * provot or contacts; may be NULL).  Numbers are written with 17 digits,
 * so that they read back to the same bits.  exp_scene_read_text builds
 * the scene from the text (`name` in messages).
 */
void exp_cloth_generator(exp_text *b, const exp_cloth_material *m, long grid, const size_t *pins, size_t npins,
                         const char *hooks);
/* The same for a rectangular patch of nx x ny nodes, side m->size along x
   and `depth` along z (x in [-size/2, size/2], z in [-depth/2, depth/2]),
   total mass m->mass; exp_cloth_generator is it with nx = ny = grid and
   depth = size. */
void exp_cloth_generator_rect(exp_text *b, const exp_cloth_material *m, long nx, long ny, double depth,
                              const size_t *pins, size_t npins, const char *hooks);
int exp_scene_read_text(const exp_text *b, const char *name, cdyn_scene **out);


/* Print a message for a failed cdyn call and return its status. */
int exp_fail(int status, const char *what);

/* Write outdir/runs.csv: run,scheme,role of every run. */
int exp_write_runs(exp_ctx *ctx);

/* What a run took (commands/run.c): its wall-clock time, the CPU time of
   its process and threads and of the processes it waited for, and the
   largest resident set of one of them. */
typedef struct {
  double wall_s, user_s, sys_s, max_rss_mib;
} exp_resources;

/* Write outdir/run.meta.json, the record of a complete run, with what
   the run took (res; NULL: not recorded). */
int exp_write_run_meta(exp_ctx *ctx, const exp_resources *res);

/* The build: git commit (or "unknown"), whether the tree was modified,
   the compiler and its flags (build-info.h, written by make). */
const char *exp_build_commit(void);
const char *exp_build_modified(void);
const char *exp_build_compiler(void);
const char *exp_build_cflags(void);

#endif
