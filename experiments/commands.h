/*
 * commands.h: the cdyn program's commands.  Each takes the arguments
 * after its word (argv[0] is the first of them) and the whole command
 * line, for the metadata, and returns the process's exit status, the
 * same for the same error in every command (EXP_EXIT_*, runner/cli.h;
 * doc/cli.md lists them).
 *
 * One file per command word, in commands/:
 *
 *   list       commands/list.c
 *   palette    commands/palette.c
 *   run        commands/run.c (over runargs.c; a scene file through
 *              runner/scene.c)
 *   export     commands/export.c (over run.c and runner/capture.c)
 *   check      commands/check.c
 *   replay     commands/replay.c (over runner/scene.c)
 *   sweep      commands/sweep.c (over runargs.c: every job checked)
 *   collect    commands/collect.c
 *   report     commands/report.c
 *   plot       commands/plot.c (over gnuplot.c and rundir.c)
 *   animate    commands/animate.c (over gnuplot.c and rundir.c)
 *   view       commands/view.c (over rundir.c)
 */
#ifndef CDYN_COMMANDS_H
#define CDYN_COMMANDS_H

#include <stdio.h>

#include "runner/cli.h"
#include "usage.h"

/* A sweep's directory (commands/sweep.c writes it, commands/collect.c
   reads it): at most this long, so that DIR/jobs/NNNNNN stays within the
   3000 bytes `cdyn run` takes; and the missing jobs a message names. */
#define EXP_SWEEP_MAX_DIR 2900
#define EXP_SWEEP_MAX_NAMED 20

int exp_cmd_list(int argc, char **argv, const char *command);
int exp_cmd_palette(int argc, char **argv, const char *command);
int exp_cmd_run(int argc, char **argv, const char *command);
int exp_cmd_export(int argc, char **argv, const char *command);
int exp_cmd_check(int argc, char **argv, const char *command);
int exp_cmd_replay(int argc, char **argv, const char *command);
int exp_cmd_sweep(int argc, char **argv, const char *command);
int exp_cmd_collect(int argc, char **argv, const char *command);
int exp_cmd_report(int argc, char **argv, const char *command);
int exp_cmd_plot(int argc, char **argv, const char *command);
int exp_cmd_animate(int argc, char **argv, const char *command);
int exp_cmd_view(int argc, char **argv, const char *command);

/* Claims report (commands/report.c, what `cdyn report DIR` runs): merge
   the claims.part.csv of every run found under DIR (by its
   run.meta.json) into DIR/claims.csv and DIR/claims.md. */
int exp_write_report(const char *dir);

#endif
