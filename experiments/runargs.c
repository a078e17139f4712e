/*
 * runargs.c: the arguments of `cdyn run`, parsed and checked (runargs.h).
 *
 * Everything `cdyn run` is given is checked before anything is written:
 * the experiment's parameters against their table, scheme options on a
 * scratch stepper of each scheme, the experiment's own cross checks.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cli.h"
#include "runner/text.h"
#include "runner/lists.h"
#include "runargs.h"
#include "studies/table.h"

const char *exp_scheme_unfit(const cdyn_experiment *e, size_t idx)
{
  if (e->inequalities && !cdyn_scheme_inequalities(idx))
    return "it does not enforce inequality rows";
  if (cdyn_scheme_pins_only(idx) && !e->pins_only_ok && !(cdyn_scheme_inequalities(idx) && e->pins_ineq_ok))
    return cdyn_scheme_inequalities(idx) ? "it enforces pins and inequality rows only" : "it enforces pins only";
  return NULL;
}

/* "; did you mean 'S'?" for the registered scheme S nearest `name`, or "". */
static const char *scheme_hint(const char *name)
{
  exp_near near;
  exp_near_init(&near, name);
  for (size_t i = 0; i < cdyn_scheme_count(); i++)
    exp_near_try(&near, cdyn_scheme_name(i));
  exp_near_try(&near, "all");
  return exp_near_hint(&near);
}

static int add_run(exp_ctx *c, const char *name, const char *scheme, const char *const *overrides, enum exp_role role)
{
  if (exp_run_index(c, name) >= 0)
    return 0;
  size_t idx;
  if (cdyn_scheme_find(scheme, &idx)) {
    fprintf(stderr, "cdyn run: unknown scheme '%s'%s (cdyn list schemes shows them)\n", scheme, scheme_hint(scheme));
    return 2;
  }
  const char *unfit = exp_scheme_unfit(c->exp, idx);
  if (unfit && role == EXP_PAPER) {
    if (c->exp->inequalities && !cdyn_scheme_inequalities(idx))
      fprintf(stderr, "cdyn run: %s runs only schemes that enforce inequality rows; %s does not enforce inequality "
                      "rows\n", c->exp->name, scheme);
    else
      fprintf(stderr, "cdyn run: %s enforces pins%s only, and %s's systems have other constraints\n", scheme,
              cdyn_scheme_inequalities(idx) ? " and inequality rows" : "", c->exp->name);
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
  char **names;
  int n, rc = exp_list_split(list, what, EXP_LIST_SPACES | EXP_LIST_EMPTY_OK, EXP_LIST_MAX_CHARS, &names, &n);
  if (rc) {
    fprintf(stderr, "cdyn run: %s\n", cdyn_errmsg());
    return rc == CDYN_ENOMEM ? 1 : 2;
  }
  for (int k = 0; k < n && !rc; k++) {
    const char *tok = names[k];
    if (!strcmp(tok, "all")) {
      for (size_t i = 0; i < cdyn_scheme_count() && !rc; i++)
        rc = add_run(c, cdyn_scheme_name(i), cdyn_scheme_name(i), NULL,
                     exp_scheme_unfit(c->exp, i) && cdyn_scheme_pins_only(i) ? EXP_EXTRA : role);
      continue;
    }
    size_t idx;
    if (cdyn_scheme_find(tok, &idx)) {
      fprintf(stderr, "cdyn run: %s: unknown scheme '%s'%s (cdyn list schemes shows them)\n", what, tok,
              scheme_hint(tok));
      rc = 2;
      break;
    }
    rc = add_run(c, cdyn_scheme_name(idx), cdyn_scheme_name(idx), NULL, role);
  }
  if (!rc && !n && role != EXP_EXTRA) {
    fprintf(stderr, "cdyn run: %s: no scheme named\n", what);
    rc = 2;
  }
  exp_strv_free(names, n);
  return rc;
}

/* One run of the scheme "contact" per active-set algorithm of `list`
   (comma separated), named by the algorithm, with the experiment's
   algorithm_options. */
static int add_algorithm_runs(exp_ctx *c, const char *list)
{
  char names[EXP_MAX_RUNS][EXP_LIST_NAME];
  int n;
  if (exp_list_names(list, c->exp->algorithm_param, 0, names, EXP_MAX_RUNS, &n)) {
    fprintf(stderr, "cdyn run: %s\n", cdyn_errmsg());
    return 2;
  }
  for (int k = 0; k < n; k++) {
    const char *name = names[k];
    size_t idx;
    if (cdyn_activeset_find(name, &idx)) {
      exp_near near;
      exp_near_init(&near, name);
      for (size_t i = 0; i < cdyn_activeset_count(); i++)
        exp_near_try(&near, cdyn_activeset_name(i));
      fprintf(stderr, "cdyn run: %s: unknown active-set algorithm '%s'%s (cdyn list activesets shows them)\n",
              c->exp->algorithm_param, name, exp_near_hint(&near));
      return 2;
    }
    snprintf(c->alg_names[k], sizeof c->alg_names[k], "%s", cdyn_activeset_name(idx));
    const char **ov = c->alg_overrides[k];
    int j = 0;
    ov[j++] = "activeset";
    ov[j++] = c->alg_names[k];
    for (const char *const *o = c->exp->algorithm_options; o && o[0] && j + 2 < 2 * EXP_ALG_OPTIONS + 3; o += 2) {
      ov[j++] = o[0];
      ov[j++] = o[1];
    }
    ov[j] = NULL;
    int rc = add_run(c, c->alg_names[k], "contact", c->alg_overrides[k], EXP_COMPANION);
    if (rc)
      return rc;
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

/* Try every option of `scheme` as the word nearest near's. */
static void near_option(exp_near *near, const char *scheme)
{
  size_t idx;
  if (cdyn_scheme_find(scheme, &idx))
    return;
  for (size_t m = 0; m < cdyn_scheme_option_count(idx); m++) {
    const char *o;
    cdyn_scheme_option(idx, m, &o, NULL, NULL);
    exp_near_try(near, o);
  }
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
        exp_near near;
        exp_near_init(&near, key);
        for (const exp_param *p2 = c->exp->params; p2 && p2->name; p2++)
          exp_near_try(&near, p2->name);
        for (int r = 0; r < c->nruns; r++)
          near_option(&near, c->runs[r].scheme);
        fprintf(stderr,
                "cdyn run: --set %s: experiment %s has no parameter '%s', and no scheme of the run has such an "
                "option%s (cdyn run %s --help lists its parameters, cdyn list SCHEME a scheme's options)\n",
                key, c->exp->name, key, exp_near_hint(&near), c->exp->name);
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
          exp_near near;
          exp_near_init(&near, opt);
          near_option(&near, scheme);
          fprintf(stderr, "cdyn run: --set %s: scheme %s has no option '%s'%s (cdyn list %s lists them)\n", key,
                  scheme, opt, exp_near_hint(&near), scheme);
          return 2;
        }
        if (check_scheme_set(scheme, opt, val))
          return 2;
      }
    if (!scheme) {
      size_t idx;
      fprintf(stderr, "cdyn run: --set %s: %s %s not in this run of %s (its runs:", key, prefix,
              cdyn_scheme_find(prefix, &idx) ? "is not a scheme or run, and is" : "is a scheme, but", c->exp->name);
      exp_near near;
      exp_near_init(&near, prefix);
      for (int r = 0; r < c->nruns; r++) {
        fprintf(stderr, " %s", c->runs[r].name);
        exp_near_try(&near, c->runs[r].name);
      }
      fprintf(stderr, ")%s\n", exp_near_hint(&near));
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

/* The options of cdyn run. */
static const char *const run_options[] = {"--scheme", "--extra-schemes", "--companions",     "--h",
                                          "--steps",  "--set",           "--out",            "--force",
                                          "--help",   "--failed-runs-ok", "--no-divergence", NULL};

static int run_option(const char *a)
{
  for (const char *const *o = run_options; *o; o++)
    if (!strcmp(*o, a))
      return 1;
  return 0;
}

static const char *run_option_hint(const char *a)
{
  exp_near near;
  exp_near_init(&near, a);
  exp_near_list(&near, run_options);
  return exp_near_hint(&near);
}

const char *exp_experiment_hint(const char *name)
{
  exp_near near;
  exp_near_init(&near, name);
  for (size_t i = 0; cdyn_experiments[i]; i++)
    exp_near_try(&near, cdyn_experiments[i]->name);
  exp_near_try(&near, "scene");
  return exp_near_hint(&near);
}

/* Is the companion run `name` among those --companions keeps (list: NULL
   or "all", every one; "none", none; else the comma-separated names)? */
static int companion_kept(const char *list, const char *name)
{
  if (!list || !strcmp(list, "all"))
    return 1;
  size_t n = strlen(name);
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !memcmp(p, name, n))
      return 1;
    p += len + (e != NULL);
  }
  return 0;
}

/* --companions: all, none, or a comma-separated list of the experiment's
   companion runs, each named once; 0, or 2 with the message printed. */
static int check_companions(const exp_ctx *c, const char *list)
{
  if (!list || !strcmp(list, "all") || !strcmp(list, "none"))
    return 0;
  for (const char *p = list;;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    const exp_companion *cp = c->exp->companions;
    while (cp && cp->name && !(strlen(cp->name) == len && !memcmp(cp->name, p, len)))
      cp++;
    int twice = 0;
    for (const char *q = list; q < p && !twice;) {
      const char *f = strchr(q, ',');
      size_t l = (size_t)(f - q);
      twice = l == len && !memcmp(q, p, len);
      q = f + 1;
    }
    if (!len || !cp || !cp->name || twice) {
      char names[512] = "";
      for (const exp_companion *k = c->exp->companions; k && k->name; k++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", k->name);
      }
      if (!len)
        fprintf(stderr, "cdyn run: --companions %s: an empty name\n", list);
      else if (twice)
        fprintf(stderr, "cdyn run: --companions %s: '%.*s' is named twice\n", list, (int)len, p);
      else if (*names)
        fprintf(stderr, "cdyn run: --companions %s: %s has no companion run '%.*s' (all, none, or some of: %s)\n",
                list, c->exp->name, (int)len, p, names);
      else
        fprintf(stderr, "cdyn run: --companions %s: %s has no companion runs (all or none)\n", list, c->exp->name);
      return 2;
    }
    if (!e)
      return 0;
    p = e + 1;
  }
}

int exp_run_parse(exp_ctx *c, exp_run_args *ra, int argc, char **argv, const char *command)
{
  if (argc < 1) {
    fprintf(stderr, "cdyn run: which experiment? (cdyn list shows them)\n");
    return 2;
  }
  int is_scene = !strcmp(argv[0], "scene");
  if (is_scene) {
    /* cdyn run scene FILE [options]: the file's scheme, h and steps are
       the defaults (runner/scene.c); the file is read here, once. */
    if (argc < 2 || argv[1][0] == '-') {
      fprintf(stderr, "cdyn run scene: which scene file? (cdyn run scene FILE.json [options])\n");
      return 2;
    }
    /* A scene file missing, unreadable or invalid is an input error. */
    if (exp_scene_read(&c->scene, argv[1])) {
      fprintf(stderr, "cdyn run scene: %s\n", cdyn_errmsg());
      return EXP_EXIT_FAIL;
    }
    c->exp = &c->scene->exp;
    argv++;
    argc--;
  } else {
    c->exp = exp_find(argv[0]);
  }
  if (!c->exp) {
    fprintf(stderr, "cdyn run: unknown experiment '%s'%s (cdyn list experiments shows them; a scene file runs as "
            "cdyn run scene FILE)\n", argv[0], exp_experiment_hint(argv[0]));
    return 2;
  }
  c->h = c->exp->h;
  c->steps = c->exp->steps;
  c->outdir = is_scene ? c->scene->name : c->exp->name;
  c->command = command;
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k];
    const char *val = k + 1 < argc ? argv[k + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      ra->help = 1;
    } else if (!strcmp(a, "--force")) {
      ra->force = 1;
    } else if (!strcmp(a, "--failed-runs-ok")) {
      ra->failed_runs_ok = 1;
    } else if (!strcmp(a, "--no-divergence")) {
      ra->no_divergence = 1;
      exp_divergence_off = 1;
    } else if (!val && run_option(a)) {
      fprintf(stderr, "cdyn run: option '%s' needs a value\n", a);
      return 2;
    } else if (!val) {
      fprintf(stderr, "cdyn run: unknown option '%s'%s\n", a, run_option_hint(a));
      return 2;
    } else if (!strcmp(a, "--scheme")) {
      ra->scheme_list = val;
      k++;
    } else if (!strcmp(a, "--extra-schemes")) {
      ra->extra_list = val;
      k++;
    } else if (!strcmp(a, "--companions")) {
      ra->companions = val;
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
      fprintf(stderr, "cdyn run: unknown option '%s'%s\n", a, run_option_hint(a));
      return 2;
    }
  }
  if (ra->help) {
    if (ra->check_only) {
      fprintf(stderr, "cdyn run: --help prints the experiment's record; it runs nothing\n");
      return 2;
    }
    exp_print_experiment(c->exp);
    return -1;
  }
  /* A scene that gives its duration as t_end keeps it at another --h. */
  if (is_scene && ra->h_given && !ra->steps_given && exp_scene_steps(c->scene, c->h, &c->steps)) {
    fprintf(stderr, "cdyn run scene: --h %g: %s\n", c->h, cdyn_errmsg());
    return 2;
  }
  /* The parameters' defaults, checked against their own table (which
     must fit the context's room for their values). */
  int np = 0;
  while (c->exp->params && c->exp->params[np].name)
    np++;
  if (np > EXP_MAX_PARAMS) {
    fprintf(stderr, "cdyn run: %s has %d parameters, more than the %d an experiment may have (EXP_MAX_PARAMS)\n",
            c->exp->name, np, EXP_MAX_PARAMS);
    return 1;
  }
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
  if ((rc = check_companions(c, ra->companions)))
    return rc;
  for (const exp_companion *cp = c->exp->companions; cp && cp->name; cp++)
    if (companion_kept(ra->companions, cp->name)) {
      if ((rc = add_run(c, cp->name, cp->scheme, cp->overrides, EXP_COMPANION)))
        return rc;
    } else {
      size_t used = strlen(c->skipped);
      snprintf(c->skipped + used, sizeof c->skipped - used, "%s%s (companion run, left out by --companions)",
               used ? "; " : "", cp->name);
    }
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
  return 0;
}

void exp_run_release(exp_ctx *c, exp_run_args *ra)
{
  for (int k = 0; k < ra->nsets; k++)
    free(ra->keys[k]);
  ra->nsets = 0;
  for (int k = 0; k < c->nsets; k++)
    free((char *)c->sets[k].scheme);
  c->nsets = 0;
  exp_scene_free(c->scene);
  c->scene = NULL;
}

int exp_run_with(int argc, char **argv, const char *command, int check_only,
                 int (*then)(exp_ctx *c, exp_run_args *ra))
{
  /* Static: the context is large, and one run is made at a time. */
  static exp_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  char *keys[EXP_MAX_SETS * 2], *values[EXP_MAX_SETS * 2];
  exp_run_args ra;
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
  } else if (!(rc = exp_run_parse(&ctx, &ra, argc, argv, command)) && then) {
    rc = then(&ctx, &ra);
  }
  exp_run_release(&ctx, &ra);
  return rc < 0 ? 0 : rc;
}

int exp_run_check(int argc, char **argv) { return exp_run_with(argc, argv, "", 1, NULL); }
