/*
 * runargs.h: the arguments of `cdyn run` (runargs.c), parsed and checked
 * into an experiment's context before anything is written: the
 * experiment (or the scene file, read once), its parameters against their
 * table, the runs (the paper's schemes or --scheme's, --extra-schemes,
 * the companions --companions keeps, the algorithm runs), every --set on a scratch stepper
 * of each scheme it reaches, and the experiment's own check.  `cdyn run`
 * and `cdyn export` run what it accepts; `cdyn sweep` asks it about every
 * job it would write (exp_run_check), so that a sweep accepts exactly
 * what `cdyn run` accepts.
 */
#ifndef CDYN_RUNARGS_H
#define CDYN_RUNARGS_H

#include <stdio.h>

#include "runner/experiment.h"

typedef struct exp_run_args {
  char **keys, **values;
  int nsets;
  const char *scheme_list, *extra_list;
  const char *companions; /* --companions: all (NULL), none, or the comma-separated companion runs to run */
  int force, help;
  int failed_runs_ok; /* --failed-runs-ok: a scene's failed runs do not make the status */
  int no_divergence;  /* --no-divergence: the default divergence rule is off (exp_divergence_off) */
  int h_given, steps_given;
  int check_only; /* parse and check, write nothing, print nothing but errors */
} exp_run_args;

/*
 * Parse and check `cdyn run ARGV` (argv[0]: the experiment, or "scene"
 * and the file) into c (zeroed by the caller) and ra (its keys and values
 * arrays of EXP_MAX_SETS entries given): 0 when it can run, -1 when
 * --help printed the experiment's record, else the exit status (2 a usage
 * error, 1 a failure) with the message printed.  Release with
 * exp_run_release whatever it returned.
 */
int exp_run_parse(exp_ctx *c, exp_run_args *ra, int argc, char **argv, const char *command);
void exp_run_release(exp_ctx *c, exp_run_args *ra);

/*
 * Parse and check `cdyn run ARGV` into a context of its own, then, when it
 * can run, call `then` on it (NULL: stop there); release it.  Returns the
 * exit status: `then`'s, or exp_run_parse's (0 after --help).
 */
int exp_run_with(int argc, char **argv, const char *command, int check_only,
                 int (*then)(exp_ctx *c, exp_run_args *ra));

/*
 * Would `cdyn run ARGV` start?  exp_run_parse's checks alone: it writes
 * nothing and returns 0, or prints the message `cdyn run` would print and
 * returns its exit status (2 or 1).  --out and --force are not needed.
 * Frees what it allocates: callable any number of times.
 */
int exp_run_check(int argc, char **argv);

/* "; did you mean 'E'?" for the experiment E nearest `name`, or "". */
const char *exp_experiment_hint(const char *name);

/* Why experiment e cannot run registered scheme idx ("it enforces pins
   only", ...), or NULL when it can: `cdyn run` refuses such a scheme
   when named, and skips it from "all" or --extra-schemes. */
const char *exp_scheme_unfit(const cdyn_experiment *e, size_t idx);

#endif
