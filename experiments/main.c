/*
 * main.c: the cdyn program: the command word dispatched to its command
 * (commands.h; each in its cmd_*.c, over the layer they share,
 * runargs.c and cmdutil.c).
 *
 *   cdyn list [NAME]               schemes (with their options),
 *                                  integrators, solvers, active-set
 *                                  algorithms, constraint types and
 *                                  experiments; or one scheme or
 *                                  experiment in full
 *   cdyn run EXPERIMENT [options]  run an experiment, write CSV + metadata
 *                                  and its claims' verdicts
 *   cdyn report DIR                merge the claim verdicts of the runs
 *                                  found under DIR into DIR/claims.csv and
 *                                  DIR/claims.md
 *   cdyn palette                   the figures' line styles (gnuplot)
 *   cdyn plot DIR, cdyn animate DIR
 *                                  figures and an animation of a run
 *                                  directory (gnuplot)
 *   cdyn view DIR                  DIR/view.html: the runs in 3-D, one
 *                                  self-contained page
 *
 * Everything `cdyn run` is given is checked before anything is written:
 * the experiment's parameters against their table, scheme options on a
 * scratch stepper of each scheme, the output directory.  A run that fails
 * removes what it wrote.
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

int main(int argc, char **argv)
{
  /* Report GSL errors as status codes rather than aborting. */
  gsl_set_error_handler_off();
  blas_one_thread();
  if (argc < 2) {
    exp_usage(stderr);
    return 2;
  }
  /* The command line, recorded in every metadata file. */
  size_t len = 1;
  for (int k = 0; k < argc; k++)
    len += strlen(argv[k]) + 1;
  char *command = malloc(len);
  if (!command)
    return 1;
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
  int rc = -1;
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    exp_usage(stdout);
    rc = 0;
  } else if (!strcmp(cmd, "--version")) {
    printf("cdyn %s (commit %s%s)\n", cdyn_version(), exp_build_commit(),
           !strcmp(exp_build_modified(), "yes") ? ", modified" : "");
    rc = 0;
  }
  for (size_t k = 0; rc < 0 && k < sizeof commands / sizeof commands[0]; k++)
    if (!strcmp(cmd, commands[k].word))
      rc = commands[k].fn(argc - 2, argv + 2, command);
  if (rc < 0) {
    fprintf(stderr, "cdyn: unknown command '%s'\n", cmd);
    exp_usage(stderr);
    rc = 2;
  }
  free(command);
  return rc;
}
