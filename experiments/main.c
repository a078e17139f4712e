/*
 * main.c: the cdyn program.
 *
 *   cdyn list                      schemes, integrators, solvers, active-set
 *                                  algorithms, constraint types and
 *                                  experiments
 *   cdyn run EXPERIMENT [options]  run an experiment, write CSV + metadata
 *   cdyn report DIR                merge the claim verdicts found under DIR
 *                                  into DIR/claims.csv and DIR/claims.md
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_errno.h>

#include "experiment.h"

static void usage(FILE *f)
{
  fprintf(f,
          "usage: cdyn list\n"
          "       cdyn run EXPERIMENT [--scheme NAME[,NAME...]|all] [--h STEP] [--steps N]\n"
          "                           [--out DIR] [--set key=value ...]\n"
          "       cdyn report DIR\n"
          "       cdyn --help | --version\n"
          "\n"
          "run      runs EXPERIMENT with its default schemes, step size, step count and\n"
          "         parameters (see `cdyn list`), or those given.  It writes one CSV per\n"
          "         run into DIR (default: ./EXPERIMENT), each with FILE.meta.json holding\n"
          "         every parameter, the version and the command.  With the default\n"
          "         schemes it also judges the experiment's claims (claims.part.csv).\n"
          "report   merges the claims.part.csv files under DIR/*/ into DIR/claims.csv\n"
          "         and the readable DIR/claims.md.\n");
}

static int cmd_list(void)
{
  printf("schemes (--scheme):\n");
  for (size_t i = 0; i < cdyn_scheme_count(); i++) {
    char ord[64];
    if (cdyn_scheme_order_constant_force(i) != cdyn_scheme_order(i))
      snprintf(ord, sizeof ord, "%g (%g const F)", cdyn_scheme_order(i), cdyn_scheme_order_constant_force(i));
    else
      snprintf(ord, sizeof ord, "%g", cdyn_scheme_order(i));
    printf("  %-16s order %-14s %s  [%s]\n", cdyn_scheme_name(i), ord, cdyn_scheme_description(i),
           cdyn_scheme_source(i));
  }
  printf("\nintegrators (option integrator=):\n");
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
  printf("\nexperiments (cdyn run NAME):\n");
  for (size_t i = 0; cdyn_experiments[i]; i++) {
    const cdyn_experiment *e = cdyn_experiments[i];
    printf("  %-16s %s  [%s]\n", e->name, e->description, e->source);
    printf("  %-16s   defaults: h = %g, steps = %ld, schemes = %s\n", "", e->h, e->steps, e->schemes);
    for (const exp_param *p = e->params; p && p->name; p++)
      printf("  %-16s   --set %s=%s  %s\n", "", p->name, p->def, p->doc);
  }
  return 0;
}

static int parse_schemes(exp_ctx *ctx, char *list)
{
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    size_t idx;
    if (!strcmp(tok, "all")) {
      /* Every registered scheme, in registry order. */
      for (size_t i = 0; i < cdyn_scheme_count(); i++) {
        if (ctx->nschemes == EXP_MAX_SCHEMES) {
          fprintf(stderr, "cdyn: at most %d schemes\n", EXP_MAX_SCHEMES);
          return CDYN_EINVAL;
        }
        ctx->schemes[ctx->nschemes++] = cdyn_scheme_name(i);
      }
      continue;
    }
    if (cdyn_scheme_find(tok, &idx))
      return exp_fail(CDYN_EUNKNOWN, "--scheme");
    if (ctx->nschemes == EXP_MAX_SCHEMES) {
      fprintf(stderr, "cdyn: at most %d schemes\n", EXP_MAX_SCHEMES);
      return CDYN_EINVAL;
    }
    ctx->schemes[ctx->nschemes++] = cdyn_scheme_name(idx);
  }
  return CDYN_OK;
}

static int make_dir(const char *path)
{
  if (mkdir(path, 0777) && errno != EEXIST) {
    fprintf(stderr, "cdyn: cannot create %s: %s\n", path, strerror(errno));
    return CDYN_EIO;
  }
  return CDYN_OK;
}

static void free_sets(exp_ctx *ctx)
{
  for (int k = 0; k < ctx->nsets; k++)
    free((char *)ctx->set_key[k]);
  ctx->nsets = 0;
}

static int cmd_run_body(exp_ctx *c, int argc, char **argv, const char *command)
{
  if (argc < 1) {
    fprintf(stderr, "cdyn run: which experiment? (cdyn list shows them)\n");
    return 2;
  }
  c->exp = exp_find(argv[0]);
  if (!c->exp) {
    fprintf(stderr, "cdyn run: unknown experiment '%s' (cdyn list shows them)\n", argv[0]);
    return 2;
  }
  c->h = c->exp->h;
  c->steps = c->exp->steps;
  c->outdir = c->exp->name;
  c->command = command;
  static char schemebuf[1024];
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k];
    const char *val = k + 1 < argc ? argv[k + 1] : NULL;
    if (!strcmp(a, "--scheme") && val) {
      snprintf(schemebuf, sizeof schemebuf, "%s", val);
      if (parse_schemes(c, schemebuf))
        return 2;
      c->schemes_given = 1;
      k++;
    } else if (!strcmp(a, "--h") && val) {
      char *end;
      c->h = strtod(val, &end);
      if (*end || !isfinite(c->h) || !(c->h > 0)) {
        fprintf(stderr, "cdyn run: --h %s: the step must be a finite number > 0\n", val);
        return 2;
      }
      k++;
    } else if (!strcmp(a, "--steps") && val) {
      char *end;
      c->steps = strtol(val, &end, 10);
      if (*end || c->steps < 1) {
        fprintf(stderr, "cdyn run: --steps %s: expected an integer >= 1\n", val);
        return 2;
      }
      k++;
    } else if (!strcmp(a, "--out") && val) {
      c->outdir = val;
      k++;
    } else if (!strcmp(a, "--set") && val) {
      const char *eq = strchr(val, '=');
      if (!eq || eq == val) {
        fprintf(stderr, "cdyn run: --set %s: expected key=value\n", val);
        return 2;
      }
      if (c->nsets == EXP_MAX_SETS) {
        fprintf(stderr, "cdyn run: at most %d --set options\n", EXP_MAX_SETS);
        return 2;
      }
      char *key = strndup(val, (size_t)(eq - val));
      if (!key)
        return 1;
      int known = 0;
      for (const exp_param *p = c->exp->params; p && p->name; p++)
        known |= !strcmp(p->name, key);
      if (!known) {
        fprintf(stderr, "cdyn run: experiment %s has no parameter '%s'; its parameters are:\n",
                c->exp->name, key);
        for (const exp_param *p = c->exp->params; p && p->name; p++)
          fprintf(stderr, "  %s (default %s): %s\n", p->name, p->def, p->doc);
        free(key);
        return 2;
      }
      c->set_key[c->nsets] = key;
      c->set_val[c->nsets++] = eq + 1;
      k++;
    } else {
      fprintf(stderr, "cdyn run: unknown or incomplete option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (!c->nschemes) {
    static char defbuf[1024];
    snprintf(defbuf, sizeof defbuf, "%s", c->exp->schemes);
    if (parse_schemes(c, defbuf))
      return 2;
  }
  if (make_dir(c->outdir))
    return 1;
  char claims_path[4096];
  snprintf(claims_path, sizeof claims_path, "%s/claims.part.csv", c->outdir);
  snprintf(c->claims_tmp, sizeof c->claims_tmp, "%s/.claims.part.csv.tmp", c->outdir);
  remove(claims_path);
  char report_path[4096];
  snprintf(report_path, sizeof report_path, "%s/report.part.md", c->outdir);
  remove(report_path);
  if (!c->schemes_given) {
    c->claims = fopen(c->claims_tmp, "w");
    if (!c->claims) {
      fprintf(stderr, "cdyn: cannot write %s: %s\n", c->claims_tmp, strerror(errno));
      return 1;
    }
  }
  int rc = c->exp->run(c);
  if (c->claims) {
    int bad = ferror(c->claims) | fclose(c->claims);
    if (rc || bad || rename(c->claims_tmp, claims_path))
      remove(c->claims_tmp);
  }
  if (rc) {
    remove(report_path);
    exp_fail(rc, c->exp->name);
    return 1;
  }
  printf("%s: results in %s/\n", c->exp->name, c->outdir);
  return 0;
}

/* The --set keys are copied while parsing; free them on every path. */
static int cmd_run(int argc, char **argv, const char *command)
{
  exp_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  int rc = cmd_run_body(&ctx, argc, argv, command);
  free_sets(&ctx);
  return rc;
}

int main(int argc, char **argv)
{
  /* Report GSL errors as status codes rather than aborting. */
  gsl_set_error_handler_off();
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
    printf("cdyn %s\n", cdyn_version());
    rc = 0;
  } else if (!strcmp(cmd, "list")) {
    rc = cmd_list();
  } else if (!strcmp(cmd, "run")) {
    rc = cmd_run(argc - 2, argv + 2, command);
  } else if (!strcmp(cmd, "report")) {
    if (argc != 3) {
      fprintf(stderr, "usage: cdyn report DIR\n");
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
