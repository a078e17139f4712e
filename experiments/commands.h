/*
 * commands.h: the cdyn program's commands.  Each takes the arguments
 * after its word (argv[0] is the first of them) and the whole command
 * line, for the metadata, and returns the process's exit status: 0 done,
 * 1 failure, 2 usage error.
 *
 *   list, palette     cmd_list.c
 *   run, export       cmd_run.c (over runargs.c)
 *   check, replay     scene_run.c
 *   sweep             cmd_sweep.c (over runargs.c: every job checked)
 *   collect           cmd_collect.c
 *   report            report.c
 */
#ifndef CDYN_COMMANDS_H
#define CDYN_COMMANDS_H

#include <stdio.h>

/* A sweep's directory (cmd_sweep.c writes it, cmd_collect.c reads it):
   at most this long, so that DIR/jobs/NNNNNN stays within the 3000
   bytes `cdyn run` takes; and the missing jobs a message names. */
#define EXP_SWEEP_MAX_DIR 2900
#define EXP_SWEEP_MAX_NAMED 20

/* The program's usage (usage.c), printed after a usage error. */
void exp_usage(FILE *f);
/* That of cdyn sweep and cdyn collect. */
void exp_sweep_usage(FILE *f);

int exp_cmd_list(int argc, char **argv, const char *command);
int exp_cmd_palette(int argc, char **argv, const char *command);
int exp_cmd_run(int argc, char **argv, const char *command);
int exp_cmd_export(int argc, char **argv, const char *command);
int exp_cmd_check(int argc, char **argv, const char *command);
int exp_cmd_replay(int argc, char **argv, const char *command);
int exp_cmd_sweep(int argc, char **argv, const char *command);
int exp_cmd_collect(int argc, char **argv, const char *command);
int exp_cmd_report(int argc, char **argv, const char *command);

#endif
