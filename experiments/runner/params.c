/*
 * params.c: an experiment's parameters (--set NAME=VALUE, checked against
 * its table before anything is written, read by the experiment through
 * exp_param_*), its description (cdyn run EXPERIMENT --help), and the
 * report of a failed library call.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "runner/experiment.h"

void exp_print_experiment(const cdyn_experiment *e)
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
  printf("  what the paper gives and what this suite chose: doc/experiments.md; the claims' rules:\n"
         "  doc/claims.md\n");
}

int exp_fail(int status, const char *what)
{
  fprintf(stderr, "cdyn: %s: %s (%s)\n", what, cdyn_errmsg(), cdyn_strerror(status));
  return status;
}

/* ---- parameters ------------------------------------------------------------------- */

static int param_index(const cdyn_experiment *e, const char *name)
{
  for (int k = 0; e->params && e->params[k].name; k++)
    if (!strcmp(e->params[k].name, name))
      return k;
  return -1;
}

void exp_param_range(const exp_param *p, char *buf, size_t len)
{
  if (p->kind == EXP_TEXT) {
    snprintf(buf, len, "text");
    return;
  }
  snprintf(buf, len, "%s%s%g, %g%s", p->kind == EXP_INT ? "integer " : "", p->open & EXP_OPEN_MIN ? "(" : "[",
           p->min, p->max, p->open & EXP_OPEN_MAX ? ")" : "]");
}

int exp_param_check(const exp_param *p, const char *text, double *value)
{
  *value = NAN;
  if (p->kind == EXP_TEXT)
    return CDYN_OK;
  char *end;
  errno = 0;
  double x = strtod(text, &end);
  if (end == text || *end || errno == ERANGE || !isfinite(x))
    return cdyn_error(CDYN_EINVAL, "parameter %s = '%s' is not a finite number", p->name, text);
  char range[96];
  exp_param_range(p, range, sizeof range);
  if (p->kind == EXP_INT && x != floor(x))
    return cdyn_error(CDYN_EINVAL, "parameter %s = '%s': expected an integer in %s", p->name, text, range + 8);
  int lo = p->open & EXP_OPEN_MIN ? x > p->min : x >= p->min;
  int hi = p->open & EXP_OPEN_MAX ? x < p->max : x <= p->max;
  if (!lo || !hi)
    return cdyn_error(CDYN_EINVAL, "parameter %s = '%s' is outside its range %s", p->name, text, range);
  *value = x;
  return CDYN_OK;
}

const char *exp_param_string(const exp_ctx *ctx, const char *name)
{
  int k = param_index(ctx->exp, name);
  return k < 0 ? NULL : ctx->param_text[k] ? ctx->param_text[k] : ctx->exp->params[k].def;
}

int exp_param_double(const exp_ctx *ctx, const char *name, double *out)
{
  int k = param_index(ctx->exp, name);
  if (k < 0)
    return cdyn_error(CDYN_EUNKNOWN, "experiment %s has no parameter '%s'", ctx->exp->name, name);
  if (ctx->exp->params[k].kind == EXP_TEXT)
    return cdyn_error(CDYN_EINVAL, "parameter %s of %s is text, not a number", name, ctx->exp->name);
  *out = ctx->param_value[k];
  return CDYN_OK;
}

long exp_param_long(const exp_ctx *ctx, const char *name)
{
  double x = 0;
  exp_param_double(ctx, name, &x);
  return (long)x;
}

int exp_run_index(const exp_ctx *ctx, const char *name)
{
  for (int k = 0; k < ctx->nruns; k++)
    if (!strcmp(ctx->runs[k].name, name))
      return k;
  return -1;
}
