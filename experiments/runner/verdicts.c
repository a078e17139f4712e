/*
 * verdicts.c: an experiment's claims judged (exp_claim_ready, exp_judge,
 * exp_claim_not_run: the rule of the claims table, runner/claims.c,
 * applied to what it measured, one row of claims.part.csv each), and the
 * measures the experiments share (the largest distance between two
 * states, an order fitted as a slope in log-log).
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

/* ---- measures ----------------------------------------------------------------------- */

double exp_max_dist(const double *a, const double *b, size_t n)
{
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    double d = hypot(hypot(a[3 * i] - b[3 * i], a[3 * i + 1] - b[3 * i + 1]), a[3 * i + 2] - b[3 * i + 2]);
    if (d > m)
      m = d;
  }
  return m;
}

double exp_fit_slope(const double *x, const double *y, const int *ok, int n, int *used)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int m = 0;
  for (int k = 0; k < n; k++) {
    if (ok && !ok[k])
      continue;
    double lx = log(x[k]), ly = log(y[k]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
    m++;
  }
  *used = m;
  if (m < 2)
    return NAN;
  return (m * sxy - sx * sy) / (m * sxx - sx * sx);
}

/* ---- claims ---------------------------------------------------------------------------- */

static const exp_claim_def *own_claim(const exp_ctx *ctx, const char *id, size_t *index)
{
  const exp_claim_def *c = exp_claim_find(id);
  if (!c || !c->experiment || strcmp(c->experiment, ctx->exp->name))
    return NULL;
  *index = (size_t)(c - exp_claim_defs);
  return c;
}

int exp_claim_ready(const exp_ctx *ctx, const char *id)
{
  size_t idx;
  const exp_claim_def *c = own_claim(ctx, id, &idx);
  if (!c || !ctx->claims)
    return 0;
  for (const char *r = c->runs; r && *r;) {
    size_t len = strcspn(r, ",");
    int found = 0;
    for (int k = 0; k < ctx->nruns; k++)
      if (strlen(ctx->runs[k].name) == len && !strncmp(ctx->runs[k].name, r, len))
        found = 1;
    if (!found)
      return 0;
    r += len;
    if (*r == ',')
      r++;
  }
  return 1;
}

static int claim_row(exp_ctx *ctx, size_t idx, const char *measured, const char *threshold, const char *verdict,
                     const char *note)
{
  const exp_claim_def *c = &exp_claim_defs[idx];
  exp_csv_field(ctx->claims, c->id);
  fputc(',', ctx->claims);
  exp_csv_field(ctx->claims, ctx->exp->name);
  fputc(',', ctx->claims);
  exp_csv_field(ctx->claims, measured);
  fputc(',', ctx->claims);
  exp_csv_field(ctx->claims, threshold);
  fputc(',', ctx->claims);
  exp_csv_field(ctx->claims, verdict);
  fputc(',', ctx->claims);
  exp_csv_field(ctx->claims, note);
  fputc('\n', ctx->claims);
  ctx->judged[idx] = 1;
  printf("claim %-34s %-14s measured %s (%s)\n", c->id, verdict, measured, threshold);
  return CDYN_OK;
}

/* The run's --set values that reach the runs claim c needs, as text
   ("" when none do): a verdict on modified runs says so. */
static void sets_note(const exp_ctx *ctx, const exp_claim_def *c, char *buf, size_t len)
{
  buf[0] = '\0';
  for (int k = 0; k < ctx->nsets; k++) {
    const exp_set *s = &ctx->sets[k];
    int reaches = !s->scheme;
    for (int r = 0; r < ctx->nruns && !reaches; r++) {
      const char *rn = ctx->runs[r].name;
      size_t rl = strlen(rn);
      const char *p = c->runs;
      while (p && *p) {
        size_t l = strcspn(p, ",");
        if (l == rl && !strncmp(p, rn, l) &&
            (!strcmp(s->scheme, rn) || !strcmp(s->scheme, ctx->runs[r].scheme)))
          reaches = 1;
        p += l;
        if (*p == ',')
          p++;
      }
    }
    if (reaches) {
      size_t used = strlen(buf);
      snprintf(buf + used, len - used, "%s%s%s%s=%s", used ? ", " : "; with --set ", s->scheme ? s->scheme : "",
               s->scheme ? "." : "", s->key, s->value);
    }
  }
}

int exp_judge(exp_ctx *ctx, const char *id, const exp_value *v, size_t n, const char *fmt, ...)
{
  size_t idx;
  const exp_claim_def *c = own_claim(ctx, id, &idx);
  if (!c)
    return cdyn_error(CDYN_EINVAL, "claim %s is not a claim of experiment %s", id, ctx->exp->name);
  /* A claim whose runs are not all in this run (--scheme, --companions)
     gets no verdict from values that lack them: cdyn run writes it
     not-run, with the runs it needs.  (An experiment that runs no schemes
     names in a claim's runs what it studies, not runs.) */
  if (!ctx->claims || (ctx->exp->schemes && !exp_claim_ready(ctx, id)))
    return CDYN_OK;
  enum exp_verdict verdict;
  double measured = NAN;
  int rc = exp_verdict(c, v, n, &verdict, &measured);
  if (rc)
    return rc;
  char note[2048], num[64], rule[1024], sets[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(note, sizeof note, fmt, ap);
  va_end(ap);
  sets_note(ctx, c, sets, sizeof sets);
  if (*sets && strlen(note) + strlen(sets) < sizeof note)
    strcat(note, sets);
  snprintf(num, sizeof num, "%.6g", measured);
  exp_rule_text(c, rule, sizeof rule);
  return claim_row(ctx, idx, num, rule, exp_verdict_name(verdict), note);
}

int exp_claim_not_run(exp_ctx *ctx, const char *id, const char *reason)
{
  size_t idx;
  const exp_claim_def *c = own_claim(ctx, id, &idx);
  if (!c)
    return cdyn_error(CDYN_EINVAL, "claim %s is not a claim of experiment %s", id, ctx->exp->name);
  if (!ctx->claims || ctx->judged[idx])
    return CDYN_OK;
  char rule[1024];
  exp_rule_text(c, rule, sizeof rule);
  return claim_row(ctx, idx, "", rule, "not-run", reason);
}
