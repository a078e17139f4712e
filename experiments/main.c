/*
 * main.c: the cdyn program: the command word dispatched to its command
 * (commands.h; each in its own file in commands/, over the layer they
 * share: runargs.c, and runner/cli.c, text.c and files.c).
 *
 *   cdyn list [NAME]               schemes (with their options),     commands/list.c
 *                                  integrators, solvers, active-set
 *                                  algorithms, constraint types and
 *                                  experiments; or one scheme or
 *                                  experiment in full
 *   cdyn palette                   the figures' line styles          commands/palette.c
 *                                  (gnuplot)
 *   cdyn run EXPERIMENT [options]  run an experiment, write CSV +    commands/run.c
 *                                  metadata and its claims' verdicts
 *   cdyn run scene FILE [options]  run a scene file as an            commands/run.c,
 *                                  experiment                        runner/scene.c
 *   cdyn export EXPERIMENT         every run of an experiment as a   commands/export.c
 *                                  scene, with index.csv
 *   cdyn check FILE...             validate scene files              commands/check.c
 *   cdyn replay DIR                rerun an export's scenes, each    commands/replay.c
 *                                  digest against the experiment's
 *   cdyn sweep EXPERIMENT|scene    the jobs of a grid of runs        commands/sweep.c
 *   cdyn collect DIR               a sweep's results in one table    commands/collect.c
 *   cdyn report DIR                merge the claim verdicts of the   commands/report.c
 *                                  runs found under DIR into
 *                                  DIR/claims.csv and DIR/claims.md
 *   cdyn plot DIR                  figures of a run directory        commands/plot.c,
 *                                  (gnuplot)                         gnuplot.c
 *   cdyn animate DIR               an animation of one run of a run  commands/animate.c,
 *                                  directory (gnuplot)               gnuplot.c
 *   cdyn view DIR                  DIR/view.html: the runs in 3-D,   commands/view.c
 *                                  one self-contained page
 *
 * Everything `cdyn run` is given is checked before anything is written:
 * the experiment's parameters against their table, scheme options on a
 * scratch stepper of each scheme, the output directory.  A run that fails
 * removes what it wrote.
 *
 * The command line (doc/cli.md): every --NAME=VALUE is split into --NAME
 * VALUE before a command sees it; `cdyn COMMAND --help` prints the usage;
 * after a usage error (status 2) the command's one line is followed by
 * "try 'cdyn COMMAND --help'"; an unknown command word gets the nearest
 * known one.
 *
 * BLAS threads.  libcdyn's matrices are small (a few hundred rows at
 * most per dense solve), where OpenBLAS's threads cost far more than they
 * save, and where a threaded reduction can change the last bits of a
 * result.  The program therefore asks OpenBLAS for one thread
 * (openblas_set_num_threads, looked up at run time so that any BLAS
 * works), whatever OPENBLAS_NUM_THREADS says.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "runner/cli.h"
#include "commands.h"
#include "runargs.h"

/* Ask OpenBLAS (if that is the BLAS) for one thread; see the header. */
static void blas_one_thread(void)
{
  void (*set)(int);
  *(void **)&set = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (set)
    set(1);
}

/* The options that take a value, in every command (--NAME=VALUE is
   split into --NAME VALUE), and those that take none. */
static const char *const value_options[] = {"--scheme", "--extra-schemes", "--companions", "--h",   "--steps",
                                            "--set",    "--out",           "--grid",       "--run", "--jobs",
                                            "--file",   "--format",        "--fps",        "--max-frames", NULL};
static const char *const flag_options[] = {"--force", "--allow-missing", "--help", "--version", "--names",
                                           "--failed-runs-ok", "--no-divergence", NULL};

static int is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

int main(int argc, char **argv)
{
  /* Report GSL errors as status codes rather than aborting. */
  gsl_set_error_handler_off();
  blas_one_thread();
  if (argc < 2) {
    fprintf(stderr, "usage: cdyn COMMAND [ARGUMENTS]\ntry 'cdyn --help'\n");
    return EXP_EXIT_USAGE;
  }
  /* The command line, recorded in every metadata file. */
  size_t len = 1;
  for (int k = 0; k < argc; k++)
    len += strlen(argv[k]) + 1;
  char *command = malloc(len);
  if (!command)
    return EXP_EXIT_FAIL;
  command[0] = '\0';
  for (int k = 0; k < argc; k++) {
    if (k)
      strcat(command, " ");
    strcat(command, k ? argv[k] : "cdyn");
  }
  static const struct {
    const char *word;
    int (*fn)(int argc, char **argv, const char *command);
  } commands[] = {{"list", exp_cmd_list},     {"run", exp_cmd_run},         {"sweep", exp_cmd_sweep},
                  {"collect", exp_cmd_collect}, {"check", exp_cmd_check},   {"export", exp_cmd_export},
                  {"palette", exp_cmd_palette}, {"report", exp_cmd_report},  {"replay", exp_cmd_replay},
                  {"plot", exp_cmd_plot},       {"animate", exp_cmd_animate},
                  {"view", exp_cmd_view}};
  enum { NCMD = sizeof commands / sizeof commands[0] };
  int rc = -1;
  const char *cmd = argv[1];
  char **args = argv;
  if (is_help(cmd) || !strcmp(cmd, "help")) {
    exp_usage(stdout);
    rc = EXP_EXIT_OK;
  } else if (!strcmp(cmd, "--version")) {
    printf("cdyn %s (commit %s%s)\n", cdyn_version(), exp_build_commit(),
           !strcmp(exp_build_modified(), "yes") ? ", modified" : "");
    rc = EXP_EXIT_OK;
  }
  size_t which = NCMD;
  for (size_t k = 0; rc < 0 && k < NCMD; k++)
    if (!strcmp(cmd, commands[k].word))
      which = k;
  if (rc < 0 && which == NCMD) {
    exp_near near;
    exp_near_init(&near, cmd);
    for (size_t k = 0; k < NCMD; k++)
      exp_near_try(&near, commands[k].word);
    fprintf(stderr, "cdyn: unknown command '%s'%s\ntry 'cdyn --help'\n", cmd, exp_near_hint(&near));
    rc = EXP_EXIT_USAGE;
  }
  if (rc >= 0) {
    /* done: --help, --version, or an unknown command */
  } else if ((rc = exp_split_long_options(&argc, &args, 2, value_options, flag_options)) > 0) {
    fprintf(stderr, "try 'cdyn %s --help'\n", cmd);
  } else {
    rc = -1;
    /* cdyn COMMAND --help: the command's usage (but cdyn run EXPERIMENT
       --help is the experiment's record, which run prints). */
    for (int k = 2; k < argc && rc < 0; k++)
      if (is_help(args[k]) && (strcmp(cmd, "run") || k == 2)) {
        exp_command_usage(stdout, cmd);
        rc = EXP_EXIT_OK;
      }
    if (rc < 0) {
      rc = commands[which].fn(argc - 2, args + 2, command);
      if (rc == EXP_EXIT_USAGE)
        fprintf(stderr, "try 'cdyn %s --help'\n", cmd);
    }
  }
  if (args != argv)
    free(args);
  free(command);
  return rc;
}
