/*
 * table.c: the experiments of the cdyn program, from experiments.def (one
 * line per experiment: adding one is one file plus one line there), and
 * their lookup by name.  Above every experiment: the commands find them
 * here.
 */
#include <string.h>

#include "runner/experiment.h"
#include "studies/table.h"

#define CDYN_EXPERIMENT(id, file) extern const cdyn_experiment cdyn_experiment_##id;
#include "studies/experiments.def"
#undef CDYN_EXPERIMENT

const cdyn_experiment *const cdyn_experiments[] = {
#define CDYN_EXPERIMENT(id, file) &cdyn_experiment_##id,
#include "studies/experiments.def"
#undef CDYN_EXPERIMENT
  NULL};

const cdyn_experiment *exp_find(const char *name)
{
  for (size_t k = 0; cdyn_experiments[k]; k++)
    if (!strcmp(cdyn_experiments[k]->name, name))
      return cdyn_experiments[k];
  return NULL;
}

