/*
 * usage.h: the cdyn program's usage texts (usage.c), which main.c and the
 * commands print.
 */
#ifndef CDYN_EXP_USAGE_H
#define CDYN_EXP_USAGE_H

#include <stdio.h>

/* The program's usage: cdyn --help. */
void exp_usage(FILE *f);
/* That of cdyn sweep and cdyn collect. */
void exp_sweep_usage(FILE *f);
/* That of one command (cdyn COMMAND --help). */
void exp_command_usage(FILE *f, const char *command);

#endif
