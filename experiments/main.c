/*
 * main.c: the cdyn program.
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
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "experiment.h"
#include "scene_run.h"
#include "sweep.h"

static void usage(FILE *f)
{
  fprintf(f,
          "usage: cdyn list [SCHEME|EXPERIMENT]\n"
          "       cdyn run EXPERIMENT [--scheme LIST] [--extra-schemes LIST] [--h STEP] [--steps N]\n"
          "                           [--set KEY=VALUE ...] [--out DIR] [--force]\n"
          "       cdyn run EXPERIMENT --help\n"
          "       cdyn run scene FILE.json [the options of run]\n"
          "       cdyn check FILE.json ...\n"
          "       cdyn export EXPERIMENT [--out DIR] [--force] [the options of run]\n"
          "       cdyn sweep (EXPERIMENT | scene FILE.json) --out DIR [--scheme LIST] [--h LIST]\n"
          "                  [--steps N] [--grid KEY=V1,V2,...]... [--set KEY=VALUE]... [--force]\n"
          "                  [--run make|parallel] [--jobs N]\n"
          "       cdyn collect DIR [--file NAME.csv] [--allow-missing]\n"
          "       cdyn report DIR\n"
          "       cdyn palette\n"
          "       cdyn --help | --version\n"
          "\n"
          "run      runs EXPERIMENT's own schemes (the paper's), or those --scheme names\n"
          "         (LIST: comma-separated names, or all), plus --extra-schemes, plus its\n"
          "         companion runs; writes one CSV per run into DIR (default ./EXPERIMENT;\n"
          "         it must be empty or absent, unless --force, which clears a directory\n"
          "         holding only cdyn output), each with FILE.meta.json, and judges the\n"
          "         claims whose runs it has (claims.part.csv).\n"
          "         --set KEY=VALUE sets an experiment parameter, or a scheme option of\n"
          "         every run whose scheme has it; --set SCHEME.KEY=VALUE one scheme's\n"
          "         (or one run's) option.  `cdyn run EXPERIMENT --help` lists them.\n"
          "run scene  runs a scene file (doc/scene-format.md) as an experiment: its scheme\n"
          "         (or --scheme LIST), its h and steps (or --h, --steps; with t_end in the file\n"
          "         --h keeps t_end); writes NAME-RUN.csv per run (step, t, e, energy, momentum),\n"
          "         NAME-RUN-state.csv when the scene records positions, NAME-RUN.scene.json (the\n"
          "         scene as run) and NAME-summary.csv into DIR (default ./NAME).\n"
          "check    validates scene files without running them: an error names the file and\n"
          "         the line and column, or the JSON path, and what is wrong.\n"
          "export   writes every run EXPERIMENT starts (with the options given, as for run) as a\n"
          "         scene into DIR (default ./EXPERIMENT-scenes), with index.csv: each scene's\n"
          "         steps and the digest of the trajectory the experiment took, which\n"
          "         cdyn run scene reproduces.\n"
          "sweep    writes one `cdyn run` job per point of a grid into DIR: the product of\n"
          "         the schemes of --scheme (each alone), the steps of --h and the values of\n"
          "         each --grid KEY (what --set KEY=VALUE takes; \\, a comma in a value), and\n"
          "         points.csv, jobs.txt, Makefile and slurm.sh for an engine to run them:\n"
          "         make -C DIR -j N -k, parallel < DIR/jobs.txt (--sshlogin: several\n"
          "         machines), sbatch DIR/slurm.sh; --run make|parallel runs them (--jobs N).\n"
          "collect  merges one CSV of every job of a sweep (--file NAME.csv; a scene's\n"
          "         NAME-summary.csv by default) into DIR/collected-NAME.csv, each row after\n"
          "         its job's point; a job not complete is an error (--allow-missing).\n"
          "report   merges the claims.part.csv of every run under DIR/*/ (found by its\n"
          "         run.meta.json) into DIR/claims.csv and the readable DIR/claims.md.\n"
          "palette  prints the gnuplot definitions of the line style of every scheme and\n"
          "         companion run, one distinct style each (paper_figs/ loads them).\n");
}

/* ---- list ------------------------------------------------------------------------------- */

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

static void print_experiment(const cdyn_experiment *e)
{
  printf("%s: %s  [%s]\n", e->name, e->description, e->source);
  if (e->schemes)
    printf("  schemes: %s\n", e->schemes);
  else
    printf("  schemes: none (it studies part of the library directly)\n");
  if (e->inequalities)
    printf("  runs only schemes that enforce inequality rows\n");
  for (const exp_companion *c = e->companions; c && c->name; c++) {
    printf("  companion run %s: %s", c->name, c->scheme);
    for (const char *const *o = c->overrides; o && *o; o += 2)
      printf(" %s=%s", o[0], o[1]);
    printf("  (%s)\n", c->doc);
  }
  if (e->h > 0)
    printf("  --h %g (default)\n", e->h);
  else
    printf("  --h: not used (the experiment chooses its step sizes)\n");
  if (e->steps > 0)
    printf("  --steps %ld (default)\n", e->steps);
  else
    printf("  --steps: not used\n");
  printf("  parameters (--set NAME=VALUE):\n");
  for (const exp_param *p = e->params; p && p->name; p++) {
    char range[96];
    exp_param_range(p, range, sizeof range);
    printf("    %-14s = %-8s %-24s %s\n", p->name, p->def, range, p->doc);
  }
  if (!e->params || !e->params[0].name)
    printf("    (none)\n");
  printf("  claims:");
  int any = 0;
  for (size_t k = 0; k < exp_nclaims; k++)
    if (exp_claim_defs[k].experiment && !strcmp(exp_claim_defs[k].experiment, e->name)) {
      printf("%s %s", any ? "," : "", exp_claim_defs[k].id);
      any = 1;
    }
  printf("%s\n", any ? "" : " none");
  printf("  scheme options: --set KEY=VALUE (every scheme with KEY) or --set SCHEME.KEY=VALUE;\n"
         "  `cdyn list SCHEME` lists a scheme's options.\n");
}

static int cmd_list(const char *what)
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
      return 0;
    }
    const cdyn_experiment *e = exp_find(what);
    if (e) {
      print_experiment(e);
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
static int cmd_palette(void)
{
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

/* ---- run ---------------------------------------------------------------------------------- */

/* Ask OpenBLAS (if that is the BLAS) for one thread; see the header. */
static void blas_one_thread(void)
{
  void (*set)(int);
  *(void **)&set = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (set)
    set(1);
}

const char *exp_scheme_unfit(const cdyn_experiment *e, size_t idx)
{
  if (e->inequalities && !cdyn_scheme_inequalities(idx))
    return "it does not enforce inequality rows";
  if (cdyn_scheme_pins_only(idx) && !e->pins_only_ok)
    return "it enforces pins only";
  return NULL;
}

static int add_run(exp_ctx *c, const char *name, const char *scheme, const char *const *overrides, enum exp_role role)
{
  if (exp_run_index(c, name) >= 0)
    return 0;
  size_t idx;
  if (cdyn_scheme_find(scheme, &idx)) {
    fprintf(stderr, "cdyn run: unknown scheme '%s' (cdyn list shows them)\n", scheme);
    return 2;
  }
  const char *unfit = exp_scheme_unfit(c->exp, idx);
  if (unfit && role == EXP_PAPER) {
    if (c->exp->inequalities && !cdyn_scheme_inequalities(idx))
      fprintf(stderr, "cdyn run: %s runs only schemes that enforce inequality rows; %s does not enforce inequality "
                      "rows\n", c->exp->name, scheme);
    else
      fprintf(stderr, "cdyn run: %s enforces pins only, and %s's systems have other constraints\n", scheme,
              c->exp->name);
    return 2;
  }
  if (unfit) {
    size_t used = strlen(c->skipped);
    snprintf(c->skipped + used, sizeof c->skipped - used, "%s%s (%s)", used ? "; " : "", scheme, unfit);
    return 0;
  }
  if (c->nruns == EXP_MAX_RUNS) {
    fprintf(stderr, "cdyn run: at most %d runs\n", EXP_MAX_RUNS);
    return 2;
  }
  exp_runspec *r = &c->runs[c->nruns++];
  r->name = cdyn_scheme_name(idx) && !strcmp(name, scheme) ? cdyn_scheme_name(idx) : name;
  r->scheme = cdyn_scheme_name(idx);
  r->overrides = overrides;
  r->role = role;
  return 0;
}

/* Add the schemes of a list ("a,b c", or "all") with `role`. */
static int add_scheme_list(exp_ctx *c, const char *list, enum exp_role role, const char *what)
{
  size_t len = strlen(list);
  if (len > 4096) {
    fprintf(stderr, "cdyn run: %s: the list is longer than 4096 characters\n", what);
    return 2;
  }
  char buf[4097];
  memcpy(buf, list, len + 1);
  int any = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
    int rc;
    any = 1;
    if (!strcmp(tok, "all")) {
      for (size_t i = 0; i < cdyn_scheme_count(); i++)
        if ((rc = add_run(c, cdyn_scheme_name(i), cdyn_scheme_name(i), NULL,
                          cdyn_scheme_pins_only(i) && !c->exp->pins_only_ok ? EXP_EXTRA : role)))
          return rc;
      continue;
    }
    size_t idx;
    if (cdyn_scheme_find(tok, &idx)) {
      fprintf(stderr, "cdyn run: %s: unknown scheme '%s' (cdyn list shows them)\n", what, tok);
      return 2;
    }
    if ((rc = add_run(c, cdyn_scheme_name(idx), cdyn_scheme_name(idx), NULL, role)))
      return rc;
  }
  if (!any && role != EXP_EXTRA) {
    fprintf(stderr, "cdyn run: %s: no scheme named\n", what);
    return 2;
  }
  return 0;
}

/* One run of the scheme "contact" per active-set algorithm of `list`
   (comma separated), named by the algorithm. */
static int add_algorithm_runs(exp_ctx *c, const char *list)
{
  const char *p = list;
  int n = 0;
  while (*p) {
    size_t len = strcspn(p, ",");
    char name[32];
    size_t idx;
    if (len == 0 || len >= sizeof name) {
      fprintf(stderr, "cdyn run: %s = '%s': empty or over-long item\n", c->exp->algorithm_param, list);
      return 2;
    }
    memcpy(name, p, len);
    name[len] = '\0';
    if (cdyn_activeset_find(name, &idx)) {
      fprintf(stderr, "cdyn run: %s: unknown active-set algorithm '%s' (cdyn list shows them)\n",
              c->exp->algorithm_param, name);
      return 2;
    }
    if (n == EXP_MAX_RUNS) {
      fprintf(stderr, "cdyn run: at most %d algorithms\n", EXP_MAX_RUNS);
      return 2;
    }
    snprintf(c->alg_names[n], sizeof c->alg_names[n], "%s", cdyn_activeset_name(idx));
    c->alg_overrides[n][0] = "activeset";
    c->alg_overrides[n][1] = c->alg_names[n];
    c->alg_overrides[n][2] = NULL;
    int rc = add_run(c, c->alg_names[n], "contact", c->alg_overrides[n], EXP_COMPANION);
    if (rc)
      return rc;
    n++;
    p += len;
    if (*p == ',' && !*++p) {
      fprintf(stderr, "cdyn run: %s = '%s': empty item\n", c->exp->algorithm_param, list);
      return 2;
    }
  }
  if (!n) {
    fprintf(stderr, "cdyn run: %s is empty\n", c->exp->algorithm_param);
    return 2;
  }
  return 0;
}

/* A scratch system every scheme can build a stepper for (two particles,
   one link; a spring for a scheme that enforces pins only), to check
   scheme options before the run. */
static int scratch_stepper(const char *scheme, cdyn_system **sys, cdyn_stepper **st)
{
  double x1[3] = {1, 0, 0};
  size_t idx;
  int pins_only = !cdyn_scheme_find(scheme, &idx) && cdyn_scheme_pins_only(idx);
  int rc = cdyn_system_new(sys, 2);
  if (!rc)
    rc = cdyn_system_set_position(*sys, 1, x1);
  if (!rc)
    rc = pins_only ? cdyn_system_add_spring(*sys, 0, 1, 1.0, 0.0, 1.0, NULL)
                   : cdyn_system_add_distance(*sys, 0, 1, 1.0, NULL);
  if (!rc)
    rc = cdyn_stepper_new(st, *sys, scheme);
  if (rc) {
    cdyn_system_free(*sys);
    *sys = NULL;
  }
  return rc;
}

/* Check a --set of a scheme option on a scratch stepper of the scheme. */
static int check_scheme_set(const char *scheme, const char *key, const char *value)
{
  cdyn_system *sys;
  cdyn_stepper *st;
  if (scratch_stepper(scheme, &sys, &st))
    return exp_fail(CDYN_EINVAL, scheme);
  int rc = cdyn_stepper_set(st, key, value);
  cdyn_stepper_free(st);
  cdyn_system_free(sys);
  if (rc) {
    fprintf(stderr, "cdyn run: --set %s.%s=%s: %s\n", scheme, key, value, cdyn_errmsg());
    return 2;
  }
  return 0;
}

static int param_of(const exp_ctx *c, const char *key)
{
  for (int j = 0; c->exp->params && c->exp->params[j].name; j++)
    if (!strcmp(c->exp->params[j].name, key))
      return j;
  return -1;
}

/* The --set arguments that are experiment parameters (keys[k] = values[k]). */
static int resolve_params(exp_ctx *c, char **keys, char **values, int n)
{
  for (int k = 0; k < n; k++) {
    int p = param_of(c, keys[k]);
    if (p < 0)
      continue;
    if (exp_param_check(&c->exp->params[p], values[k], &c->param_value[p])) {
      fprintf(stderr, "cdyn run: --set %s=%s: %s\n", keys[k], values[k], cdyn_errmsg());
      return 2;
    }
    c->param_text[p] = values[k];
  }
  return 0;
}

/* The other --set arguments: scheme options, checked on scratch steppers. */
static int resolve_sets(exp_ctx *c, char **keys, char **values, int n)
{
  for (int k = 0; k < n; k++) {
    const char *key = keys[k], *val = values[k];
    const char *dot = strchr(key, '.');
    if (!dot) {
      if (param_of(c, key) >= 0)
        continue;
      int any = 0;
      for (int r = 0; r < c->nruns; r++)
        if (exp_scheme_has_option(c->runs[r].scheme, key)) {
          any = 1;
          if (check_scheme_set(c->runs[r].scheme, key, val))
            return 2;
        }
      if (!any) {
        fprintf(stderr,
                "cdyn run: --set %s: experiment %s has no parameter '%s', and no scheme of the run has such an "
                "option.\n  Its parameters: ",
                key, c->exp->name, key);
        for (const exp_param *p2 = c->exp->params; p2 && p2->name; p2++)
          fprintf(stderr, "%s%s", p2 == c->exp->params ? "" : ", ", p2->name);
        fprintf(stderr, "%s\n  (cdyn run %s --help lists them, cdyn list SCHEME a scheme's options)\n",
                c->exp->params && c->exp->params[0].name ? "" : "none", c->exp->name);
        return 2;
      }
      if (c->nsets == EXP_MAX_SETS) {
        fprintf(stderr, "cdyn run: at most %d scheme options\n", EXP_MAX_SETS);
        return 2;
      }
      c->sets[c->nsets++] = (exp_set){NULL, key, val};
      continue;
    }
    /* SCHEME.KEY or RUN.KEY */
    char prefix[256];
    size_t pl = (size_t)(dot - key);
    if (pl == 0 || pl >= sizeof prefix || !dot[1]) {
      fprintf(stderr, "cdyn run: --set %s: expected SCHEME.KEY=VALUE\n", key);
      return 2;
    }
    memcpy(prefix, key, pl);
    prefix[pl] = '\0';
    const char *scheme = NULL, *opt = dot + 1;
    for (int r = 0; r < c->nruns; r++)
      if (!strcmp(c->runs[r].name, prefix) || !strcmp(c->runs[r].scheme, prefix)) {
        scheme = c->runs[r].scheme;
        if (!exp_scheme_has_option(scheme, opt)) {
          fprintf(stderr, "cdyn run: --set %s: scheme %s has no option '%s' (cdyn list %s lists them)\n", key,
                  scheme, opt, scheme);
          return 2;
        }
        if (check_scheme_set(scheme, opt, val))
          return 2;
      }
    if (!scheme) {
      size_t idx;
      fprintf(stderr, "cdyn run: --set %s: %s %s not in this run of %s (its runs:", key, prefix,
              cdyn_scheme_find(prefix, &idx) ? "is not a scheme or run, and is" : "is a scheme, but", c->exp->name);
      for (int r = 0; r < c->nruns; r++)
        fprintf(stderr, " %s", c->runs[r].name);
      fprintf(stderr, ")\n");
      return 2;
    }
    if (c->nsets == EXP_MAX_SETS) {
      fprintf(stderr, "cdyn run: at most %d scheme options\n", EXP_MAX_SETS);
      return 2;
    }
    /* The prefix is kept as given (a scheme or a run name). */
    c->sets[c->nsets++] = (exp_set){strndup(key, pl), opt, val};
    if (!c->sets[c->nsets - 1].scheme)
      return 1;
  }
  return 0;
}

int exp_output_name(const char *name)
{
  static const char *const suffixes[] = {".csv", ".json", ".md", ".tmp", ".log"};
  if (!strcmp(name, "done"))
    return 1;
  size_t n = strlen(name);
  for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
    size_t s = strlen(suffixes[k]);
    if (n > s && !strcmp(name + n - s, suffixes[k]))
      return 1;
  }
  return 0;
}

int exp_clear_dir(const char *who, const char *dir, int check_only, const char *why)
{
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "%s: cannot read %s: %s\n", who, dir, strerror(errno));
    return 1;
  }
  struct dirent *ent;
  int rc = 0;
  while ((ent = readdir(d))) {
    if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
      continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    struct stat sb;
    if (lstat(path, &sb) || !S_ISREG(sb.st_mode) || !exp_output_name(ent->d_name)) {
      if (why)
        fprintf(stderr, "%s: %s holds %s, which no cdyn run writes: %s\n", who, dir, ent->d_name, why);
      rc = 1;
      break;
    }
    if (!check_only && remove(path)) {
      fprintf(stderr, "%s: cannot remove %s: %s\n", who, path, strerror(errno));
      rc = 1;
      break;
    }
  }
  closedir(d);
  return rc;
}

int exp_prepare_outdir(const char *who, const char *dir, int force, int *created, exp_clear_fn clear)
{
  *created = 0;
  struct stat sb;
  if (stat(dir, &sb)) {
    if (errno != ENOENT || mkdir(dir, 0777)) {
      fprintf(stderr, "%s: cannot create %s: %s\n", who, dir, strerror(errno));
      return 1;
    }
    *created = 1;
    return 0;
  }
  if (!S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "%s: %s exists and is not a directory\n", who, dir);
    return 1;
  }
  if (exp_dir_empty(dir))
    return 0;
  if (!force) {
    fprintf(stderr, "%s: %s is not empty; choose another --out, or add --force to clear it\n", who, dir);
    return 1;
  }
  if (clear(who, dir, 1, "--force clears only a directory of cdyn output; remove it yourself"))
    return 1;
  return clear(who, dir, 0, NULL);
}

typedef struct {
  char **keys, **values;
  int nsets;
  const char *scheme_list, *extra_list;
  int force, help;
  int h_given, steps_given;
  int check_only; /* parse and check, write nothing, print nothing but errors */
} run_args;

static int parse_number_args(exp_ctx *c, const char *a, const char *val)
{
  char *end;
  errno = 0;
  if (!strcmp(a, "--h")) {
    c->h = strtod(val, &end);
    if (end == val || *end || errno == ERANGE || !isfinite(c->h) || !(c->h > 0)) {
      fprintf(stderr, "cdyn run: --h %s: the step must be a finite number > 0\n", val);
      return 2;
    }
    return 0;
  }
  long s = strtol(val, &end, 10);
  if (end == val || *end || errno == ERANGE || s < 1 || s > 100000000L) {
    fprintf(stderr, "cdyn run: --steps %s: expected an integer in [1, 1e8]\n", val);
    return 2;
  }
  c->steps = s;
  return 0;
}

static int cmd_run_body(exp_ctx *c, run_args *ra, int argc, char **argv, const char *command)
{
  if (argc < 1) {
    fprintf(stderr, "cdyn run: which experiment? (cdyn list shows them)\n");
    return 2;
  }
  int is_scene = !strcmp(argv[0], "scene");
  if (is_scene) {
    /* cdyn run scene FILE [options]: the file's scheme, h and steps are
       the defaults (scene_run.c). */
    static char scheme[128];
    if (argc < 2 || argv[1][0] == '-') {
      fprintf(stderr, "cdyn run scene: which scene file? (cdyn run scene FILE.json [options])\n");
      return 2;
    }
    if (exp_scene_prepare(argv[1], scheme, sizeof scheme)) {
      fprintf(stderr, "cdyn run scene: %s\n", cdyn_errmsg());
      return 2;
    }
    exp_scene_experiment.schemes = scheme;
    c->exp = &exp_scene_experiment;
    argv++;
    argc--;
  } else {
    c->exp = exp_find(argv[0]);
  }
  if (!c->exp) {
    fprintf(stderr, "cdyn run: unknown experiment '%s' (cdyn list shows them; a scene file runs as cdyn run scene FILE)\n",
            argv[0]);
    return 2;
  }
  c->h = c->exp->h;
  c->steps = c->exp->steps;
  c->outdir = is_scene ? exp_scene_name() : c->exp->name;
  c->command = command;
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k];
    const char *val = k + 1 < argc ? argv[k + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      ra->help = 1;
    } else if (!strcmp(a, "--force")) {
      ra->force = 1;
    } else if (!val) {
      fprintf(stderr, "cdyn run: unknown or incomplete option '%s'\n", a);
      usage(stderr);
      return 2;
    } else if (!strcmp(a, "--scheme")) {
      ra->scheme_list = val;
      k++;
    } else if (!strcmp(a, "--extra-schemes")) {
      ra->extra_list = val;
      k++;
    } else if (!strcmp(a, "--h") || !strcmp(a, "--steps")) {
      if (!strcmp(a, "--h") ? c->exp->h <= 0 : c->exp->steps <= 0) {
        fprintf(stderr, "cdyn run: %s does not use %s (it chooses its own; see cdyn run %s --help)\n", c->exp->name,
                a, c->exp->name);
        return 2;
      }
      if (parse_number_args(c, a, val))
        return 2;
      if (!strcmp(a, "--h"))
        ra->h_given = 1;
      else
        ra->steps_given = 1;
      k++;
    } else if (!strcmp(a, "--out")) {
      if (!*val) {
        fprintf(stderr, "cdyn run: --out: empty directory name\n");
        return 2;
      }
      /* Every file's path is DIR/NAME, NAME under 200 bytes: within
         PATH_MAX (4096) and the program's buffers. */
      if (strlen(val) > 3000) {
        fprintf(stderr, "cdyn run: --out: a directory path of %zu bytes is too long (at most 3000)\n", strlen(val));
        return 2;
      }
      c->outdir = val;
      k++;
    } else if (!strcmp(a, "--set")) {
      const char *eq = strchr(val, '=');
      if (!eq || eq == val) {
        fprintf(stderr, "cdyn run: --set %s: expected KEY=VALUE\n", val);
        return 2;
      }
      char *key = strndup(val, (size_t)(eq - val));
      if (!key)
        return 1;
      ra->keys[ra->nsets] = key;
      ra->values[ra->nsets++] = (char *)(eq + 1);
      k++;
    } else {
      fprintf(stderr, "cdyn run: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (ra->help) {
    if (ra->check_only) {
      fprintf(stderr, "cdyn run: --help prints the experiment's record; it runs nothing\n");
      return 2;
    }
    print_experiment(c->exp);
    return -1;
  }
  /* A scene that gives its duration as t_end keeps it at another --h. */
  if (is_scene && ra->h_given && !ra->steps_given && exp_scene_steps(c->h, &c->steps)) {
    fprintf(stderr, "cdyn run scene: --h %g: %s\n", c->h, cdyn_errmsg());
    return 2;
  }
  /* The parameters' defaults, checked against their own table. */
  for (int p = 0; c->exp->params && c->exp->params[p].name; p++)
    if (exp_param_check(&c->exp->params[p], c->exp->params[p].def, &c->param_value[p])) {
      fprintf(stderr, "cdyn run: %s: default of %s: %s\n", c->exp->name, c->exp->params[p].name, cdyn_errmsg());
      return 1;
    }
  int rc;
  if ((rc = resolve_params(c, ra->keys, ra->values, ra->nsets)))
    return rc;
  /* The runs. */
  if (!c->exp->schemes) {
    if (ra->scheme_list) {
      fprintf(stderr, "cdyn run: %s runs no schemes (it studies part of the library directly)\n",
              c->exp->name);
      return 2;
    }
    if (ra->extra_list && *ra->extra_list)
      snprintf(c->skipped, sizeof c->skipped, "%s (this experiment runs no schemes)", ra->extra_list);
  } else {
    /* An experiment whose own runs are all companions has an empty list. */
    if ((ra->scheme_list || *c->exp->schemes) &&
        (rc = add_scheme_list(c, ra->scheme_list ? ra->scheme_list : c->exp->schemes, EXP_PAPER, "--scheme")))
      return rc;
    if (ra->extra_list && (rc = add_scheme_list(c, ra->extra_list, EXP_EXTRA, "--extra-schemes")))
      return rc;
  }
  for (const exp_companion *cp = c->exp->companions; cp && cp->name; cp++)
    if ((rc = add_run(c, cp->name, cp->scheme, cp->overrides, EXP_COMPANION)))
      return rc;
  if (c->exp->algorithm_param && (rc = add_algorithm_runs(c, exp_param_string(c, c->exp->algorithm_param))))
    return rc;
  if (*c->skipped && !ra->check_only)
    printf("%s: skipped %s\n", c->exp->name, c->skipped);
  if ((rc = resolve_sets(c, ra->keys, ra->values, ra->nsets)))
    return rc;
  if (c->exp->check && c->exp->check(c)) {
    fprintf(stderr, "cdyn run: %s: %s\n", c->exp->name, cdyn_errmsg());
    return 2;
  }
  if (ra->check_only)
    return 0;
  /* Everything is checked: now the directory. */
  int created;
  if (exp_prepare_outdir("cdyn run", c->outdir, ra->force, &created, exp_clear_dir))
    return 1;
  char claims_path[8192];
  snprintf(claims_path, sizeof claims_path, "%s/claims.part.csv", c->outdir);
  snprintf(c->claims_tmp, sizeof c->claims_tmp, "%s/.claims.part.csv.tmp", c->outdir);
  c->claims = fopen(c->claims_tmp, "w");
  if (!c->claims) {
    fprintf(stderr, "cdyn: cannot write %s: %s\n", c->claims_tmp, strerror(errno));
    if (created)
      rmdir(c->outdir);
    return 1;
  }
  rc = exp_write_runs(c);
  if (!rc)
    rc = c->exp->run(c);
  /* The experiment's claims it did not judge: not-run, with the reason. */
  for (size_t k = 0; !rc && k < exp_nclaims; k++) {
    const exp_claim_def *d = &exp_claim_defs[k];
    if (!d->experiment || strcmp(d->experiment, c->exp->name) || c->judged[k])
      continue;
    char reason[512];
    if (!exp_claim_ready(c, d->id))
      snprintf(reason, sizeof reason, "needs the runs %s, which this run did not all include", d->runs);
    else
      snprintf(reason, sizeof reason, "the run did not judge it");
    rc = exp_claim_not_run(c, d->id, reason);
  }
  errno = 0;
  int bad = ferror(c->claims);
  bad |= fclose(c->claims);
  c->claims = NULL;
  if (!rc && bad)
    rc = cdyn_error(CDYN_EIO, "error writing %s: %s", c->claims_tmp, errno ? strerror(errno) : "write error");
  if (!rc && rename(c->claims_tmp, claims_path))
    rc = cdyn_error(CDYN_EIO, "cannot rename %s: %s", c->claims_tmp, strerror(errno));
  if (!rc && c->failed_io)
    rc = cdyn_error(CDYN_EIO, "%s", c->io_error);
  if (!rc)
    rc = exp_write_run_meta(c);
  if (rc) {
    exp_fail(rc, c->exp->name);
    /* Leave nothing that looks finished: what this run wrote goes. */
    exp_clear_dir("cdyn run", c->outdir, 0, NULL);
    if (created)
      rmdir(c->outdir);
    return 1;
  }
  printf("%s: results in %s/\n", c->exp->name, c->outdir);
  return 0;
}

/* cdyn run ARGV, or with `check_only` its checks alone; the context
   is static (it is large), the --set texts and keys freed here. */
static int run_or_check(int argc, char **argv, const char *command, int check_only)
{
  static exp_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  char *keys[EXP_MAX_SETS * 2], *values[EXP_MAX_SETS * 2];
  run_args ra;
  memset(&ra, 0, sizeof ra);
  ra.keys = keys;
  ra.values = values;
  ra.check_only = check_only;
  int nset_args = 0;
  for (int k = 1; k < argc; k++)
    nset_args += !strcmp(argv[k], "--set");
  int rc;
  if (nset_args > EXP_MAX_SETS) {
    fprintf(stderr, "cdyn run: at most %d --set options\n", EXP_MAX_SETS);
    rc = 2;
  } else {
    rc = cmd_run_body(&ctx, &ra, argc, argv, command);
  }
  for (int k = 0; k < ra.nsets; k++)
    free(ra.keys[k]);
  for (int k = 0; k < ctx.nsets; k++)
    free((char *)ctx.sets[k].scheme);
  return rc < 0 ? 0 : rc;
}

static int cmd_run(int argc, char **argv, const char *command) { return run_or_check(argc, argv, command, 0); }

int exp_run_check(int argc, char **argv) { return run_or_check(argc, argv, "", 1); }

/*
 * cdyn export EXPERIMENT [--out DIR] [--force] [run options]: run the
 * experiment (its output into a scratch directory, removed afterwards)
 * with the capture on (capture.c), so that DIR gets every run it starts
 * as a scene, and DIR/index.csv each scene's trajectory digest.
 */
static int cmd_export(int argc, char **argv, const char *command)
{
  if (argc < 1 || argv[0][0] == '-') {
    fprintf(stderr, "usage: cdyn export EXPERIMENT [--out DIR] [--force] [the options of cdyn run]\n");
    return 2;
  }
  const cdyn_experiment *e = exp_find(argv[0]);
  if (!e) {
    fprintf(stderr, "cdyn export: unknown experiment '%s' (cdyn list shows them)\n", argv[0]);
    return 2;
  }
  if (!e->schemes) {
    fprintf(stderr, "cdyn export: %s runs no schemes (it studies part of the library directly): it has no system "
            "to export\n", e->name);
    return 2;
  }
  char defdir[256];
  snprintf(defdir, sizeof defdir, "%s-scenes", e->name);
  const char *dir = defdir;
  int force = 0;
  char **rargv = calloc((size_t)argc + 4, sizeof *rargv);
  if (!rargv)
    return 1;
  int rargc = 0;
  rargv[rargc++] = argv[0];
  for (int k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "--out") && k + 1 < argc && *argv[k + 1]) {
      dir = argv[++k];
    } else if (!strcmp(argv[k], "--out")) {
      fprintf(stderr, "cdyn export: --out needs a directory\n");
      free(rargv);
      return 2;
    } else if (!strcmp(argv[k], "--force")) {
      force = 1;
    } else {
      rargv[rargc++] = argv[k];
    }
  }
  if (strlen(dir) > 3000) {
    fprintf(stderr, "cdyn export: --out: a directory path of %zu bytes is too long (at most 3000)\n", strlen(dir));
    free(rargv);
    return 2;
  }
  char tmp[4096];
  const char *tdir = getenv("TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/cdyn-export-XXXXXX", tdir && *tdir ? tdir : "/tmp");
  int created = 0;
  if (exp_prepare_outdir("cdyn export", dir, force, &created, exp_clear_dir)) {
    free(rargv);
    return 1;
  }
  if (!mkdtemp(tmp)) {
    fprintf(stderr, "cdyn export: cannot make a scratch directory %s: %s\n", tmp, strerror(errno));
    free(rargv);
    if (created)
      rmdir(dir);
    return 1;
  }
  rargv[rargc++] = "--out";
  rargv[rargc++] = tmp;
  int rc = exp_capture_start(dir, e->name);
  if (rc) {
    fprintf(stderr, "cdyn export: %s\n", cdyn_errmsg());
    rc = 1;
  } else {
    rc = cmd_run(rargc, rargv, command);
    int crc = exp_capture_finish(rc == 0);
    if (!rc && crc) {
      fprintf(stderr, "cdyn export: %s\n", cdyn_errmsg());
      rc = 1;
    }
    if (!rc && exp_capture_count() == 0) {
      fprintf(stderr, "cdyn export: %s started no run with these options: nothing to export\n", e->name);
      rc = 1;
    }
  }
  exp_clear_dir("cdyn export", tmp, 0, NULL);
  rmdir(tmp);
  free(rargv);
  if (rc) {
    exp_clear_dir("cdyn export", dir, 0, NULL);
    if (created)
      rmdir(dir);
    return rc;
  }
  printf("%s: %d scenes in %s/ (index.csv: each scene's run and the digest of its trajectory;\n"
         "  cdyn run scene %s/SCENE --steps STEPS_DONE reproduces it)\n",
         e->name, exp_capture_count(), dir, dir);
  return 0;
}

int main(int argc, char **argv)
{
  /* Report GSL errors as status codes rather than aborting. */
  gsl_set_error_handler_off();
  blas_one_thread();
  if (argc < 2) {
    usage(stderr);
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
  int rc;
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    rc = 0;
  } else if (!strcmp(cmd, "--version")) {
    printf("cdyn %s (commit %s%s)\n", cdyn_version(), exp_build_commit(),
           !strcmp(exp_build_modified(), "yes") ? ", modified" : "");
    rc = 0;
  } else if (!strcmp(cmd, "list")) {
    rc = argc > 3 ? (usage(stderr), 2) : cmd_list(argc == 3 ? argv[2] : NULL);
  } else if (!strcmp(cmd, "run")) {
    rc = cmd_run(argc - 2, argv + 2, command);
  } else if (!strcmp(cmd, "sweep")) {
    rc = exp_cmd_sweep(argc - 2, argv + 2, command);
  } else if (!strcmp(cmd, "collect")) {
    rc = exp_cmd_collect(argc - 2, argv + 2, command);
  } else if (!strcmp(cmd, "check")) {
    rc = exp_cmd_check(argc - 2, argv + 2);
  } else if (!strcmp(cmd, "export")) {
    rc = cmd_export(argc - 2, argv + 2, command);
  } else if (!strcmp(cmd, "palette")) {
    rc = cmd_palette();
  } else if (!strcmp(cmd, "report")) {
    if (argc != 3) {
      fprintf(stderr, "usage: cdyn report DIR\n");
      rc = 2;
    } else if (strlen(argv[2]) > 3000) {
      fprintf(stderr, "cdyn report: a directory path of %zu bytes is too long (at most 3000)\n", strlen(argv[2]));
      rc = 2;
    } else {
      rc = exp_write_report(argv[2]) ? 1 : 0;
    }
  } else {
    fprintf(stderr, "cdyn: unknown command '%s'\n", cmd);
    usage(stderr);
    rc = 2;
  }
  free(command);
  return rc;
}
