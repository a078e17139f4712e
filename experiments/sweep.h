/*
 * sweep.h: `cdyn sweep` and `cdyn collect` (sweep.c), and what they use
 * of `cdyn run` (main.c).
 *
 * `cdyn sweep` writes the jobs of a grid of parameters and schemes (one
 * `cdyn run` each) into a directory, for an existing engine to run: make
 * -j, GNU parallel (one machine, or several with --sshlogin), or a Slurm
 * job array.  `cdyn collect` merges one CSV file of every job into one
 * table, each row prefixed by its point's coordinates.
 *
 * Both take the arguments after their subcommand word (argv[0] is the
 * first of them) and the whole command line for the metadata, and return
 * the process's exit status: 0 done, 1 failure, 2 usage error.
 */
#ifndef CDYN_SWEEP_H
#define CDYN_SWEEP_H

#include <stddef.h>

#include "experiment.h"

int exp_cmd_sweep(int argc, char **argv, const char *command);
int exp_cmd_collect(int argc, char **argv, const char *command);

/* ---- from `cdyn run` (main.c) ----------------------------------------------------------- */

/*
 * Would `cdyn run ARGV` start (argv[0]: the experiment, or "scene" and
 * the file)?  Parses and checks everything `cdyn run` checks before it
 * writes anything, writes nothing, and returns 0, or prints the message
 * `cdyn run` would print and returns its exit status (2 or 1).  --out
 * and --force are not needed.  Frees what it allocates: callable any
 * number of times.
 */
int exp_run_check(int argc, char **argv);

/* Why experiment e cannot run registered scheme idx ("it enforces pins
   only", ...), or NULL when it can: `cdyn run` refuses such a scheme
   when named, and skips it from "all" or --extra-schemes. */
const char *exp_scheme_unfit(const cdyn_experiment *e, size_t idx);

/* Is `name` a file a cdyn run (or make figures) writes? */
int exp_output_name(const char *name);

/* Clears a directory of output, or (check_only) only checks that it
   holds nothing else; returns 0, or 1 with a message naming the first
   entry it refuses (the message ends with `why`; none when why is NULL).
   Messages begin with `who` ("cdyn run"). */
typedef int (*exp_clear_fn)(const char *who, const char *dir, int check_only, const char *why);

/* That of a run's directory: every entry a regular file exp_output_name
   accepts. */
int exp_clear_dir(const char *who, const char *dir, int check_only, const char *why);

/*
 * Make output directory `dir` ready: absent (then created: *created),
 * empty, or, with `force`, cleared by `clear`, which first checks that it
 * holds only what it may remove, then removes it.  Returns 0, or 1 with a
 * message beginning with `who`.
 */
int exp_prepare_outdir(const char *who, const char *dir, int force, int *created, exp_clear_fn clear);

#endif
