/*
 * commands.h: the cdyn program's commands.  Each takes the arguments
 * after its word (argv[0] is the first of them) and the whole command
 * line, for the metadata, and returns the process's exit status, the
 * same for the same error in every command (doc/cli.md lists them):
 *
 *   EXP_EXIT_OK      0  done
 *   EXP_EXIT_FAIL    1  an error: an input file missing, unreadable or
 *                       invalid, an output that cannot be written, a
 *                       replay that differs, out of memory
 *   EXP_EXIT_USAGE   2  a usage error: an unknown command, option, name
 *                       or key, a missing or malformed argument
 *   EXP_EXIT_RUNFAIL 3  `cdyn run scene` (or `cdyn run` of a scene)
 *                       wrote its results, but a run failed a step or
 *                       went non-finite (each reported on stderr)
 *
 * Experiments, whose diverging runs are results, exit 0 and report them
 * in their summary.
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

/* The exit statuses (above). */
#define EXP_EXIT_OK 0
#define EXP_EXIT_FAIL 1
#define EXP_EXIT_USAGE 2
#define EXP_EXIT_RUNFAIL 3

/* A sweep's directory (commands/sweep.c writes it, commands/collect.c
   reads it): at most this long, so that DIR/jobs/NNNNNN stays within the
   3000 bytes `cdyn run` takes; and the missing jobs a message names. */
#define EXP_SWEEP_MAX_DIR 2900
#define EXP_SWEEP_MAX_NAMED 20

/* The program's usage (usage.c): cdyn --help. */
void exp_usage(FILE *f);
/* That of cdyn sweep and cdyn collect. */
void exp_sweep_usage(FILE *f);
/* That of one command (cdyn COMMAND --help). */
void exp_command_usage(FILE *f, const char *command);

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
