/*
 * table.h: the experiments of the cdyn program (table.c, from
 * experiments.def), for the rooms above the experiments: the commands and
 * what they share.
 */
#ifndef CDYN_EXP_TABLE_H
#define CDYN_EXP_TABLE_H

#include "runner/experiment.h"

/* Every experiment, in the table's order, NULL-terminated. */
extern const cdyn_experiment *const cdyn_experiments[];
/* The experiment of that name, or NULL. */
const cdyn_experiment *exp_find(const char *name);

#endif
