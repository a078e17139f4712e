/*
 * columns.c: the unit and meaning of the columns every experiment shares,
 * and of those of a scene run (`cdyn run scene`), for the metadata record
 * beside each CSV (FILE.meta.json, "column_info"); the lookup of a column
 * among them and the experiment's own (cdyn_experiment.columns, in its
 * file in studies/).  exp_csv_open refuses a column that has no entry, so
 * a new column is documented before it can be written: an experiment's
 * own columns are documented in its own file.
 *
 * An entry here applies to an experiment (NULL: any; only the scene run
 * is named), a file (NULL: any; a trailing '*' matches a prefix, so
 * "series-*" is every series-RUN.csv) and a column name, in which '#'
 * stands for a number (x# is x0, x1, ...); an experiment's own entries
 * apply to it alone.  The most specific matching entry wins: one of the
 * experiment's with a file, then one of the experiment's, then one naming
 * a file, then neither.
 * Units: SI; "1" is a pure number (a ratio, a count of things without a
 * unit, a flag 0/1), "" is text (a label).
 */
#include <ctype.h>
#include <string.h>

#include "runner/experiment.h"

typedef struct {
  const char *experiment, *file, *column, *unit, *meaning;
} column_def;

static const column_def defs[] = {
  /* Shared by every experiment. */
  {NULL, NULL, "step", "1", "step number k (0: the start, before any step)"},
  {NULL, NULL, "t", "s", "time k h"},
  {NULL, NULL, "e", "m", "constraint error e_n: the sum over constraints of ||Phi_c||_2"},
  {NULL, NULL, "e_sum", "m", "running sum of e_n over steps 1 .. k"},
  {NULL, NULL, "E", "J", "total energy: kinetic plus gravity's and the springs' potential"},
  {NULL, NULL, "x#", "m", "x of node #"},
  {NULL, NULL, "y#", "m", "y of node #"},
  {NULL, NULL, "z#", "m", "z of node #"},
  {NULL, NULL, "scheme", "", "run name: a scheme, or a companion run (a scheme with fixed options)"},
  {NULL, NULL, "h", "s", "step size"},
  {NULL, NULL, "steps", "1", "number of steps of the run"},
  {NULL, NULL, "status", "1", "cdyn status of the step that failed (0: none failed)"},
  {NULL, NULL, "problem", "", "test problem (experiments/problems/problems.h)"},
  {NULL, NULL, "noconv", "1", "steps that returned CDYN_NOCONV (an iteration stopped before its tolerance)"},
  {NULL, NULL, "e_max", "m", "largest e_n of the run"},
  {NULL, NULL, "e_end", "m", "e_n at the end of the run"},
  {NULL, NULL, "E0", "J", "total energy at the start"},
  {NULL, NULL, "E_end", "J", "total energy at the last measured step"},
  {NULL, NULL, "h_max", "s", "largest stable step size before the first unstable grid point (nan: none stable)"},
  {NULL, NULL, "h_fail", "s", "the first unstable grid point above h_max (nan: stable on the whole grid)"},
  {NULL, NULL, "stable", "1", "1 if the run kept the stability rules (experiments/studies/stability.c), else 0"},
  {NULL, NULL, "energy_gain", "J", "E - E(0) at the end of the probe"},

  /* runs.csv, every experiment's */
  {NULL, "runs", "run", "", "run name: a scheme, or a companion run (a scheme with fixed options)"},
  {NULL, "runs", "scheme", "", "the scheme it runs"},
  {NULL, "runs", "role", "", "paper (the experiment's own or --scheme's), extra (--extra-schemes) or companion"},

  /* scene: cdyn run scene FILE (experiments/runner/scene.c) */
  {"scene", NULL, "T", "J", "kinetic energy"},
  {"scene", NULL, "V", "J", "potential energy of gravity and the springs"},
  {"scene", NULL, "px", "kg m/s", "linear momentum, x"},
  {"scene", NULL, "py", "kg m/s", "linear momentum, y"},
  {"scene", NULL, "pz", "kg m/s", "linear momentum, z"},
  {"scene", NULL, "status", "1", "NAME-RUN.csv: the step's cdyn status (0: ok, 1: CDYN_NOCONV); NAME-summary.csv: the status of "
   "the step that failed (0: none)"},
  {"scene", NULL, "particle", "1", "particle index"},
  {"scene", NULL, "x", "m", "x of the particle"},
  {"scene", NULL, "y", "m", "y of the particle"},
  {"scene", NULL, "z", "m", "z of the particle"},
  {"scene", NULL, "vx", "m/s", "x velocity of the particle"},
  {"scene", NULL, "vy", "m/s", "y velocity of the particle"},
  {"scene", NULL, "vz", "m/s", "z velocity of the particle"},
  {"scene", NULL, "run", "", "run name: the scheme"},
  {"scene", NULL, "end", "", "how the run ended: completed, failed-step, nonfinite, error-limit (run.stop.max_error), "
   "energy-gain (run.stop.max_energy_gain), diverged (the default divergence rule: doc/cli.md)"},
  {"scene", NULL, "digest", "",
   "FNV-1a digest of the bits of t, q and v after every step (experiments/runner/capture.c): equal digests, equal trajectories"},
    {"scene", NULL, "steps", "1", "steps completed and measured"},
  {"scene", NULL, "t_end", "s", "time reached: steps h (from the scene's start time)"},
  {"scene", NULL, "e0", "m", "e_n at the start"},
  {"scene", NULL, "dE_max", "J", "largest |E - E(0)|"},
  {"scene", NULL, "stepper_steps", "1", "steps of the stepper, a contact handler's repeats included"},
};

/* Does `name` match `pattern`, in which '#' stands for one or more digits? */
static int column_match(const char *pattern, const char *name)
{
  while (*pattern) {
    if (*pattern == '#') {
      if (!isdigit((unsigned char)*name))
        return 0;
      while (isdigit((unsigned char)*name))
        name++;
    } else if (*pattern != *name++) {
      return 0;
    }
    pattern++;
  }
  return *name == '\0';
}

static int file_match(const char *pattern, const char *file)
{
  size_t n = strlen(pattern);
  if (n && pattern[n - 1] == '*')
    return !strncmp(pattern, file, n - 1);
  return !strcmp(pattern, file);
}

/* Is d (of the experiment's own table when own) a better match than the
   best so far?  Equal scores keep the first. */
static void column_try(const char *file, const char *column, const char *dfile, const char *dcolumn, int own,
                       int *best_score, const char **unit, const char **meaning, const char *dunit,
                       const char *dmeaning)
{
  if (dfile && (!file || !file_match(dfile, file)))
    return;
  if (!column_match(dcolumn, column))
    return;
  int score = 2 * own + (dfile != NULL);
  if (score > *best_score) {
    *best_score = score;
    *unit = dunit;
    *meaning = dmeaning;
  }
}

const char *exp_column_unit(const cdyn_experiment *e, const char *file, const char *column, const char **meaning)
{
  /* An experiment that writes another's files under its own name
     (cloth-self-contact) looks them up under the other's. */
  char alias[128];
  size_t n = e && e->files_as ? strlen(e->name) : 0;
  if (n && file && !strncmp(file, e->name, n)) {
    snprintf(alias, sizeof alias, "%s%s", e->files_as, file + n);
    file = alias;
  }
  const char *unit = NULL, *mean = NULL;
  int best_score = -1;
  for (size_t k = 0; k < sizeof defs / sizeof defs[0]; k++) {
    const column_def *d = &defs[k];
    if (d->experiment && (!e || strcmp(d->experiment, e->name)))
      continue;
    column_try(file, column, d->file, d->column, d->experiment != NULL, &best_score, &unit, &mean, d->unit,
               d->meaning);
  }
  for (const exp_column *c = e ? e->columns : NULL; c && c->column; c++)
    column_try(file, column, c->file, c->column, 1, &best_score, &unit, &mean, c->unit, c->meaning);
  if (meaning)
    *meaning = mean;
  return unit;
}
