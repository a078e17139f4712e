/*
 * list.c: `cdyn list [GROUP|NAME]`, the schemes (with their
 * options), integrators, linear solvers, active-set algorithms,
 * constraint types and experiments, each group under its heading with
 * its columns as wide as their widest entry (or one group; `--names
 * GROUP`: its names alone, one a line, for shell completion), or one
 * scheme or experiment in full; paged through $PAGER when stdout is a
 * terminal the list does not fit.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "runner/cli.h"
#include "commands.h"
#include "runner/experiment.h"
#include "studies/table.h"

static void print_order(size_t i, char *buf, size_t len)
{
  if (cdyn_scheme_order_constant_force(i) != cdyn_scheme_order(i))
    snprintf(buf, len, "order %g (%g const F)", cdyn_scheme_order(i), cdyn_scheme_order_constant_force(i));
  else
    snprintf(buf, len, "order %g", cdyn_scheme_order(i));
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

static int max_int(int a, size_t b) { return (size_t)a > b ? a : (int)b; }

/* The widths of the option columns (name, default) of the schemes
   [first, last): at least 14 and 18, else the widest; `all`: also the
   options every scheme has. */
static void option_widths(size_t first, size_t last, int all, int *wname, int *wdef)
{
  *wname = 14;
  *wdef = 18;
  for (size_t i = first; i < last; i++)
    for (size_t k = 0; k < cdyn_scheme_option_count(i); k++) {
      const char *name, *def;
      cdyn_scheme_option(i, k, &name, &def, NULL);
      if (all || !shared_option(name)) {
        *wname = max_int(*wname, strlen(name));
        *wdef = max_int(*wdef, strlen(def));
      }
    }
}

/* Options of scheme i; `all`: also those every scheme has (solver, ...). */
static void print_scheme_options(FILE *f, size_t i, int all, const char *indent, int wname, int wdef)
{
  size_t nown = 0;
  for (size_t k = 0; k < cdyn_scheme_option_count(i); k++) {
    const char *name, *def, *doc;
    cdyn_scheme_option(i, k, &name, &def, &doc);
    int own = !shared_option(name);
    if (!all && !own)
      continue;
    nown += own;
    fprintf(f, "%s%-*s = %-*s %s\n", indent, wname, name, wdef, def, doc);
  }
  if (!all && !nown)
    fprintf(f, "%s(no options of its own)\n", indent);
}

static void print_scheme(FILE *f, size_t idx)
{
  const char *what = cdyn_scheme_name(idx);
  char ord[64];
  print_order(idx, ord, sizeof ord);
  fprintf(f, "%s: %s  [%s]\n  %s%s%s\n", what, cdyn_scheme_description(idx), cdyn_scheme_source(idx), ord,
          cdyn_scheme_inequalities(idx) ? "; enforces inequality rows" : "",
          cdyn_scheme_pins_only(idx) ? "; enforces pins only (springs and pins: cloth)" : "");
  static const char *const when[] = {"the step's start", "the step's midpoint", "the step's end"};
  int lt = cdyn_scheme_lambda_time(idx);
  double vo = cdyn_scheme_velocity_order(idx), lo = cdyn_scheme_lambda_order(idx);
  if (vo == CDYN_ORDER_NONE)
    fprintf(f, "  velocity: does not converge in general\n");
  else
    fprintf(f, "  velocity order %g\n", vo);
  if (cdyn_scheme_lambda_note(idx))
    fprintf(f, "  multipliers (at %s): not the constraint force: %s\n", when[lt], cdyn_scheme_lambda_note(idx));
  else if (lo > 0)
    fprintf(f, "  multipliers: the constraint force at %s, order %g\n", when[lt], lo);
  else
    fprintf(f, "  multipliers: at %s, order not declared\n", when[lt]);
  fprintf(f, "  options (--set %s.KEY=VALUE):\n", what);
  int wname, wdef;
  option_widths(idx, idx + 1, 1, &wname, &wdef);
  print_scheme_options(f, idx, 1, "    ", wname, wdef);
  fprintf(f, "  its equations, source and choices: doc/schemes.md (installed in %s)\n", CDYN_DOCDIR);
}

/* ---- the groups ---------------------------------------------------------------------------- */

/* The groups `cdyn list` shows, in its order; `cdyn list GROUP` one of
   them, `cdyn list --names GROUP` its names alone. */
enum { G_SCHEMES, G_INTEGRATORS, G_SOLVERS, G_ACTIVESETS, G_CONSTRAINTS, G_EXPERIMENTS, NGROUPS };
static const char *const group_words[NGROUPS + 1] = {"schemes",    "integrators", "solvers", "activesets",
                                                     "constraints", "experiments", NULL};

static size_t group_count(int g)
{
  size_t n = 0;
  switch (g) {
  case G_SCHEMES: return cdyn_scheme_count();
  case G_INTEGRATORS: return cdyn_integrator_count();
  case G_SOLVERS: return cdyn_solver_count();
  case G_ACTIVESETS: return cdyn_activeset_count();
  case G_CONSTRAINTS:
    while (cdyn_constraint_types[n])
      n++;
    return n;
  default:
    while (cdyn_experiments[n])
      n++;
    return n;
  }
}

/* Entry i of group g: its name, the second column (may be NULL) and the
   text after the columns (into buf). */
static const char *group_entry(int g, size_t i, char *col, size_t clen, char *text, size_t tlen)
{
  *col = '\0';
  switch (g) {
  case G_SCHEMES:
    print_order(i, col, clen);
    snprintf(text, tlen, "%s  [%s]", cdyn_scheme_description(i), cdyn_scheme_source(i));
    return cdyn_scheme_name(i);
  case G_INTEGRATORS:
    snprintf(text, tlen, "%s", cdyn_integrator_description(i));
    return cdyn_integrator_name(i);
  case G_SOLVERS:
    snprintf(text, tlen, "%s", cdyn_solver_description(i));
    return cdyn_solver_name(i);
  case G_ACTIVESETS:
    snprintf(text, tlen, "%s  [%s]", cdyn_activeset_description(i), cdyn_activeset_source(i));
    return cdyn_activeset_name(i);
  case G_CONSTRAINTS:
    snprintf(text, tlen, "%s", cdyn_constraint_types[i]->description);
    return cdyn_constraint_types[i]->name;
  default:
    snprintf(text, tlen, "%s  [%s]", cdyn_experiments[i]->description, cdyn_experiments[i]->source);
    return cdyn_experiments[i]->name;
  }
}

static const char *const group_headings[NGROUPS] = {
  "schemes (--scheme; `cdyn list SCHEME` for all its options):",
  "integrators (option integrator=):",
  "linear solvers (option solver=):",
  "active-set algorithms (scheme contact, option activeset=):",
  "constraint types (scene files):",
  "experiments (cdyn run NAME; `cdyn list NAME` or `cdyn run NAME --help` for its parameters):"};

/* One group: its heading, then a row per entry, the columns as wide as
   their widest entry (a scheme's own options below it, aligned among all
   the schemes'). */
static void print_group(FILE *f, int g)
{
  size_t n = group_count(g);
  int wname = 0, wcol = 0;
  char col[96], text[1024];
  for (size_t i = 0; i < n; i++) {
    wname = max_int(wname, strlen(group_entry(g, i, col, sizeof col, text, sizeof text)));
    wcol = max_int(wcol, strlen(col));
  }
  int oname = 0, odef = 0;
  if (g == G_SCHEMES)
    option_widths(0, n, 0, &oname, &odef);
  fprintf(f, "%s\n", group_headings[g]);
  for (size_t i = 0; i < n; i++) {
    const char *name = group_entry(g, i, col, sizeof col, text, sizeof text);
    if (wcol)
      fprintf(f, "  %-*s  %-*s  %s\n", wname, name, wcol, col, text);
    else
      fprintf(f, "  %-*s  %s\n", wname, name, text);
    if (g == G_SCHEMES)
      print_scheme_options(f, i, 0, "      ", oname, odef);
  }
  if (g == G_SCHEMES) {
    fprintf(f, "  (every scheme also has the options ");
    int first = 1;
    for (size_t k = 0; cdyn_scheme_count() && k < cdyn_scheme_option_count(0); k++) {
      const char *name;
      cdyn_scheme_option(0, k, &name, NULL, NULL);
      if (shared_option(name)) {
        fprintf(f, "%s%s", first ? "" : ", ", name);
        first = 0;
      }
    }
    fprintf(f, ")\n");
  }
}

/* ---- paging -------------------------------------------------------------------------------- */

/* Write text to stdout: through $PAGER (default less -FRX) when stdout
   is a terminal and the text is longer than it; never otherwise. */
static int page(const char *text, size_t len)
{
  FILE *p = NULL;
  if (isatty(STDOUT_FILENO)) {
    struct winsize ws;
    long rows = !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row ? ws.ws_row : 24, lines = 0;
    for (size_t k = 0; k < len; k++)
      lines += text[k] == '\n';
    const char *pager = getenv("PAGER");
    if (!pager || !*pager)
      pager = "less -FRX";
    if (lines >= rows && strcmp(pager, "cat")) {
      fflush(stdout);
      p = popen(pager, "w");
    }
  }
  if (!p)
    return fwrite(text, 1, len, stdout) == len ? 0 : 1;
  /* A pager quit early is not an error. */
  void (*old)(int) = signal(SIGPIPE, SIG_IGN);
  fwrite(text, 1, len, p);
  pclose(p);
  signal(SIGPIPE, old);
  return 0;
}

static int list(const char *what, int names)
{
  int g = NGROUPS;
  for (int k = 0; what && k < NGROUPS; k++)
    if (!strcmp(what, group_words[k]))
      g = k;
  if (names) {
    if (g == NGROUPS) {
      exp_near near;
      exp_near_init(&near, what);
      exp_near_list(&near, group_words);
      fprintf(stderr, "cdyn list: --names %s: not a group%s (schemes, integrators, solvers, activesets, "
              "constraints or experiments)\n", what, exp_near_hint(&near));
      return EXP_EXIT_USAGE;
    }
    char col[96], text[1024];
    for (size_t i = 0; i < group_count(g); i++)
      printf("%s\n", group_entry(g, i, col, sizeof col, text, sizeof text));
    return EXP_EXIT_OK;
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) {
    fprintf(stderr, "cdyn list: out of memory\n");
    return EXP_EXIT_FAIL;
  }
  int rc = EXP_EXIT_OK;
  size_t idx;
  const cdyn_experiment *e;
  if (g < NGROUPS) {
    print_group(f, g);
  } else if (what && !cdyn_scheme_find(what, &idx)) {
    print_scheme(f, idx);
  } else if (what && (e = exp_find(what))) {
    /* exp_print_experiment prints on stdout. */
    fclose(f);
    free(buf);
    exp_print_experiment(e);
    return EXP_EXIT_OK;
  } else if (what) {
    cdyn_error_clear();
    exp_near near;
    exp_near_init(&near, what);
    exp_near_list(&near, group_words);
    for (size_t i = 0; i < cdyn_scheme_count(); i++)
      exp_near_try(&near, cdyn_scheme_name(i));
    for (size_t i = 0; cdyn_experiments[i]; i++)
      exp_near_try(&near, cdyn_experiments[i]->name);
    fprintf(stderr, "cdyn list: '%s' is neither a group, a scheme nor an experiment%s (cdyn list shows them)\n",
            what, exp_near_hint(&near));
    rc = EXP_EXIT_USAGE;
  } else {
    for (int k = 0; k < NGROUPS; k++) {
      print_group(f, k);
      fputc('\n', f);
    }
    fprintf(f, "the manual: doc/README.md (installed in %s); every scheme's equations in doc/schemes.md,\n"
               "the experiments and their choices in doc/experiments.md, the claims' rules in doc/claims.md\n",
            CDYN_DOCDIR);
  }
  if (fclose(f)) {
    free(buf);
    fprintf(stderr, "cdyn list: out of memory\n");
    return EXP_EXIT_FAIL;
  }
  if (!rc && page(buf, len)) {
    fprintf(stderr, "cdyn list: cannot write the list: %s\n", strerror(errno));
    rc = EXP_EXIT_FAIL;
  }
  free(buf);
  return rc;
}

int exp_cmd_list(int argc, char **argv, const char *command)
{
  (void)command;
  static const char *const options[] = {"--names", "--help", NULL};
  int names = 0;
  const char *what = NULL;
  for (int k = 0; k < argc; k++) {
    if (!strcmp(argv[k], "--names")) {
      names = 1;
    } else if (!strncmp(argv[k], "--", 2)) {
      return exp_unknown_option("cdyn list", argv[k], options);
    } else if (what) {
      fprintf(stderr, "cdyn list: one name at a time ('%s' and '%s')\n", what, argv[k]);
      return EXP_EXIT_USAGE;
    } else {
      what = argv[k];
    }
  }
  if (names && !what) {
    fprintf(stderr, "cdyn list: --names needs a group (cdyn list --names experiments)\n");
    return EXP_EXIT_USAGE;
  }
  return list(what, names);
}
