/*
 * cmd_list.c: `cdyn list [NAME]`, the schemes (with their options),
 * integrators, linear solvers, active-set algorithms, constraint types
 * and experiments, or one scheme or experiment in full; and `cdyn
 * palette`, the figures' line styles.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "experiment.h"

static void print_order(size_t i, char *buf, size_t len)
{
  if (cdyn_scheme_order_constant_force(i) != cdyn_scheme_order(i))
    snprintf(buf, len, "%g (%g const F)", cdyn_scheme_order(i), cdyn_scheme_order_constant_force(i));
  else
    snprintf(buf, len, "%g", cdyn_scheme_order(i));
}

/* Does every registered scheme have an option named `name` (solver,
   pcg_tol, ...: the stepper's own)? */
static int shared_option(const char *name)
{
  for (size_t j = 0; j < cdyn_scheme_count(); j++) {
    int has = 0;
    for (size_t m = 0; m < cdyn_scheme_option_count(j) && !has; m++) {
      const char *o;
      cdyn_scheme_option(j, m, &o, NULL, NULL);
      has = !strcmp(o, name);
    }
    if (!has)
      return 0;
  }
  return 1;
}

/* Options of scheme i; `all`: also those every scheme has (solver, ...). */
static void print_scheme_options(size_t i, int all, const char *indent)
{
  size_t nown = 0;
  for (size_t k = 0; k < cdyn_scheme_option_count(i); k++) {
    const char *name, *def, *doc;
    cdyn_scheme_option(i, k, &name, &def, &doc);
    int own = !shared_option(name);
    if (!all && !own)
      continue;
    nown += own;
    printf("%s%-14s = %-18s %s\n", indent, name, def, doc);
  }
  if (!all && !nown)
    printf("%s(no options of its own)\n", indent);
}

static int list(const char *what)
{
  if (what) {
    size_t idx;
    if (!cdyn_scheme_find(what, &idx)) {
      char ord[64];
      print_order(idx, ord, sizeof ord);
      printf("%s: %s  [%s]\n  order %s%s%s\n", what, cdyn_scheme_description(idx), cdyn_scheme_source(idx), ord,
             cdyn_scheme_inequalities(idx) ? "; enforces inequality rows" : "",
             cdyn_scheme_pins_only(idx) ? "; enforces pins only (springs and pins: cloth)" : "");
      static const char *const when[] = {"the step's start", "the step's midpoint", "the step's end"};
      int lt = cdyn_scheme_lambda_time(idx);
      double vo = cdyn_scheme_velocity_order(idx), lo = cdyn_scheme_lambda_order(idx);
      if (vo == CDYN_ORDER_NONE)
        printf("  velocity: does not converge in general\n");
      else
        printf("  velocity order %g\n", vo);
      if (cdyn_scheme_lambda_note(idx))
        printf("  multipliers (at %s): not the constraint force: %s\n", when[lt], cdyn_scheme_lambda_note(idx));
      else if (lo > 0)
        printf("  multipliers: the constraint force at %s, order %g\n", when[lt], lo);
      else
        printf("  multipliers: at %s, order not declared\n", when[lt]);
      printf("  options (--set %s.KEY=VALUE):\n", what);
      print_scheme_options(idx, 1, "    ");
      printf("  its equations, source and choices: doc/schemes.md (installed in %s)\n", CDYN_DOCDIR);
      return 0;
    }
    const cdyn_experiment *e = exp_find(what);
    if (e) {
      exp_print_experiment(e);
      return 0;
    }
    fprintf(stderr, "cdyn list: '%s' is neither a scheme nor an experiment (cdyn list shows them)\n", what);
    return 2;
  }
  printf("schemes (--scheme; `cdyn list SCHEME` for all its options):\n");
  for (size_t i = 0; i < cdyn_scheme_count(); i++) {
    char ord[64];
    print_order(i, ord, sizeof ord);
    printf("  %-16s order %-14s %s  [%s]\n", cdyn_scheme_name(i), ord, cdyn_scheme_description(i),
           cdyn_scheme_source(i));
    print_scheme_options(i, 0, "      ");
  }
  printf("  every scheme also has: ");
  int first = 1;
  for (size_t k = 0; cdyn_scheme_count() && k < cdyn_scheme_option_count(0); k++) {
    const char *name;
    cdyn_scheme_option(0, k, &name, NULL, NULL);
    if (shared_option(name)) {
      printf("%s%s", first ? "" : ", ", name);
      first = 0;
    }
  }
  printf("\n\nintegrators (option integrator=):\n");
  for (size_t i = 0; i < cdyn_integrator_count(); i++)
    printf("  %-16s %s\n", cdyn_integrator_name(i), cdyn_integrator_description(i));
  printf("\nlinear solvers (option solver=):\n");
  for (size_t i = 0; i < cdyn_solver_count(); i++)
    printf("  %-16s %s\n", cdyn_solver_name(i), cdyn_solver_description(i));
  printf("\nactive-set algorithms (scheme contact, option activeset=):\n");
  for (size_t i = 0; i < cdyn_activeset_count(); i++)
    printf("  %-16s %s (%s)\n", cdyn_activeset_name(i), cdyn_activeset_description(i), cdyn_activeset_source(i));
  printf("\nconstraint types:\n");
  for (size_t i = 0; cdyn_constraint_types[i]; i++)
    printf("  %-16s %s\n", cdyn_constraint_types[i]->name, cdyn_constraint_types[i]->description);
  printf("\nexperiments (cdyn run NAME; `cdyn list NAME` or `cdyn run NAME --help` for its parameters):\n");
  for (size_t i = 0; cdyn_experiments[i]; i++) {
    const cdyn_experiment *e = cdyn_experiments[i];
    printf("  %-18s %s  [%s]\n", e->name, e->description, e->source);
  }
  printf("\nthe manual: doc/README.md (installed in %s); every scheme's equations in doc/schemes.md,\n"
         "the experiments and their choices in doc/experiments.md, the claims' rules in doc/claims.md\n",
         CDYN_DOCDIR);
  return 0;
}

/* ---- palette ------------------------------------------------------------------------------ */

/*
 * The line style of every name a figure can show: the registered schemes
 * in registry order, then the companion runs of every experiment.  Name
 * i gets colour i mod 9 of a palette of nine distinct colours and dash
 * type (i / 9) mod 3 + 1 (solid, dashed, dash-dot), and point type
 * (i mod 13) + 1: 27 names before a colour and dash repeat, each with its
 * own point type up to 13.  Grey and black are not in the palette: they
 * are the references' and the thresholds'.
 */
int exp_cmd_palette(int argc, char **argv, const char *command)
{
  (void)argv, (void)command;
  if (argc != 0) {
    fprintf(stderr, "usage: cdyn palette\n");
    return 2;
  }
  static const char *const colours[9] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                         "#8c564b", "#e377c2", "#bcbd22", "#17becf"};
  const char *names[256];
  size_t n = 0;
  for (size_t i = 0; i < cdyn_scheme_count() && n < 256; i++)
    names[n++] = cdyn_scheme_name(i);
  for (size_t e = 0; cdyn_experiments[e]; e++)
    for (const exp_companion *c = cdyn_experiments[e]->companions; c && c->name; c++) {
      int dup = 0;
      for (size_t k = 0; k < n; k++)
        dup |= !strcmp(names[k], c->name);
      if (!dup && n < 256)
        names[n++] = c->name;
    }
  printf("# The figures' line styles, written by `cdyn palette` (cdyn %s): one per\n"
         "# scheme and companion run, so that a name looks the same in every figure\n"
         "# and no two names alike.  pal_index(NAME) is its position in PAL_NAMES\n"
         "# (0: not a known name); pal_colour, pal_dash and pal_point give its style.\n",
         cdyn_version());
  printf("PAL_NAMES = \"");
  for (size_t k = 0; k < n; k++)
    printf("%s%s", k ? " " : "", names[k]);
  printf("\"\nPAL_COLOURS = \"");
  for (size_t k = 0; k < n; k++)
    printf("%s%s", k ? " " : "", colours[k % 9]);
  printf("\"\nPAL_DASHES = \"");
  for (size_t k = 0; k < n; k++)
    printf("%s%zu", k ? " " : "", (k / 9) % 3 + 1);
  printf("\"\nPAL_POINTS = \"");
  for (size_t k = 0; k < n; k++)
    printf("%s%zu", k ? " " : "", k % 13 + 1);
  printf("\"\n");
  return 0;
}

int exp_cmd_list(int argc, char **argv, const char *command)
{
  (void)command;
  if (argc > 1) {
    exp_usage(stderr);
    return 2;
  }
  return list(argc == 1 ? argv[0] : NULL);
}
