/*
 * common.c: what every experiment shares: parameters, atomic CSV output
 * with a metadata record, claim verdicts and report fragments.
 *
 * Numbers are printed with %.17g, which round-trips doubles, so the same
 * command on the same build gives bitwise-identical files.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment.h"

const cdyn_experiment *exp_find(const char *name)
{
  for (size_t k = 0; cdyn_experiments[k]; k++)
    if (!strcmp(cdyn_experiments[k]->name, name))
      return cdyn_experiments[k];
  return NULL;
}

int exp_fail(int status, const char *what)
{
  fprintf(stderr, "cdyn: %s: %s (%s)\n", what, cdyn_errmsg(), cdyn_strerror(status));
  return status;
}

static const exp_param *find_param(const cdyn_experiment *e, const char *name)
{
  for (const exp_param *p = e->params; p && p->name; p++)
    if (!strcmp(p->name, name))
      return p;
  return NULL;
}

const char *exp_param_string(const exp_ctx *ctx, const char *name)
{
  for (int k = ctx->nsets - 1; k >= 0; k--)
    if (!strcmp(ctx->set_key[k], name))
      return ctx->set_val[k];
  const exp_param *p = find_param(ctx->exp, name);
  return p ? p->def : NULL;
}

int exp_param_double(const exp_ctx *ctx, const char *name, double *out)
{
  const char *s = exp_param_string(ctx, name);
  if (!s)
    return cdyn_error(CDYN_EUNKNOWN, "experiment %s has no parameter '%s'", ctx->exp->name, name);
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || *end || errno == ERANGE || !isfinite(x))
    return cdyn_error(CDYN_EINVAL, "parameter %s = '%s' is not a finite number", name, s);
  *out = x;
  return CDYN_OK;
}

int exp_stepper_with(exp_ctx *ctx, cdyn_system *sys, const char *scheme, const char *const *overrides,
                     cdyn_stepper **out)
{
  cdyn_stepper *st;
  int rc = exp_stepper(ctx, sys, scheme, &st);
  if (rc)
    return rc;
  for (const char *const *o = overrides; o && *o; o += 2)
    if ((rc = cdyn_stepper_set(st, o[0], o[1]))) {
      cdyn_stepper_free(st);
      return rc;
    }
  *out = st;
  return CDYN_OK;
}

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

int exp_scheme_index(const exp_ctx *ctx, const char *scheme)
{
  for (int k = 0; k < ctx->nschemes; k++)
    if (!strcmp(ctx->schemes[k], scheme))
      return k;
  return -1;
}

int exp_stepper(exp_ctx *ctx, cdyn_system *sys, const char *scheme, cdyn_stepper **out)
{
  cdyn_stepper *st;
  int rc = cdyn_stepper_new(&st, sys, scheme);
  if (rc)
    return rc;
  /* Experiment parameters that are also options of this scheme (alpha,
     beta, solver, ...) are passed on to it. */
  for (size_t i = 0; i < cdyn_stepper_option_count(st); i++) {
    const char *name = cdyn_stepper_option_name(st, i);
    const char *val = exp_param_string(ctx, name);
    if (val && (rc = cdyn_stepper_set(st, name, val)) != CDYN_OK) {
      cdyn_stepper_free(st);
      return rc;
    }
  }
  *out = st;
  return CDYN_OK;
}

/* Write s as a JSON string. */
static void json_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static int write_meta(exp_ctx *ctx, const char *csvname, const char *columns,
                      const cdyn_stepper *st, const char *extra)
{
  char path[4096], tmp[4200];
  snprintf(path, sizeof path, "%s/%s.meta.json", ctx->outdir, csvname);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f)
    return cdyn_error(CDYN_EIO, "cannot write %s: %s", tmp, strerror(errno));
  fprintf(f, "{\n  \"file\": ");
  json_str(f, csvname);
  fprintf(f, ",\n  \"program\": \"cdyn\",\n  \"version\": ");
  json_str(f, cdyn_version());
  fprintf(f, ",\n  \"command\": ");
  json_str(f, ctx->command);
  fprintf(f, ",\n  \"experiment\": ");
  json_str(f, ctx->exp->name);
  fprintf(f, ",\n  \"source\": ");
  json_str(f, ctx->exp->source);
  fprintf(f, ",\n  \"h\": %.17g,\n  \"steps\": %ld,\n  \"columns\": ", ctx->h, ctx->steps);
  json_str(f, columns);
  fprintf(f, ",\n  \"params\": {");
  int first = 1;
  for (const exp_param *p = ctx->exp->params; p && p->name; p++) {
    fprintf(f, "%s\n    ", first ? "" : ",");
    json_str(f, p->name);
    fprintf(f, ": ");
    json_str(f, exp_param_string(ctx, p->name));
    first = 0;
  }
  fprintf(f, "\n  }");
  if (st) {
    fprintf(f, ",\n  \"scheme\": ");
    json_str(f, cdyn_stepper_scheme(st));
    fprintf(f, ",\n  \"scheme_options\": {");
    for (size_t i = 0; i < cdyn_stepper_option_count(st); i++) {
      char buf[256];
      const char *name = cdyn_stepper_option_name(st, i);
      if (cdyn_stepper_get(st, name, buf, sizeof buf))
        snprintf(buf, sizeof buf, "?");
      fprintf(f, "%s\n    ", i ? "," : "");
      json_str(f, name);
      fprintf(f, ": ");
      json_str(f, buf);
    }
    fprintf(f, "\n  }");
  }
  if (extra && *extra)
    fprintf(f, ",\n  %s", extra);
  fprintf(f, "\n}\n");
  if (ferror(f) | fclose(f)) {
    remove(tmp);
    return cdyn_error(CDYN_EIO, "error writing %s", tmp);
  }
  if (rename(tmp, path)) {
    remove(tmp);
    return cdyn_error(CDYN_EIO, "cannot rename %s: %s", tmp, strerror(errno));
  }
  return CDYN_OK;
}

int exp_csv_open(exp_ctx *ctx, exp_csv *csv, const char *name, const char *columns,
                 const cdyn_stepper *st, const char *extra)
{
  memset(csv, 0, sizeof *csv);
  csv->ctx = ctx;
  csv->stepper = st;
  csv->name = strdup(name);
  csv->columns = strdup(columns);
  csv->extra = strdup(extra ? extra : "");
  if (!csv->name || !csv->columns || !csv->extra) {
    exp_csv_close(csv, 0);
    return cdyn_error(CDYN_ENOMEM, "out of memory");
  }
  snprintf(csv->path, sizeof csv->path, "%s/%s.csv", ctx->outdir, name);
  snprintf(csv->tmp, sizeof csv->tmp, "%s/.%s.csv.tmp", ctx->outdir, name);
  csv->f = fopen(csv->tmp, "w");
  if (!csv->f) {
    int rc = cdyn_error(CDYN_EIO, "cannot write %s: %s", csv->tmp, strerror(errno));
    exp_csv_close(csv, 0);
    return rc;
  }
  fprintf(csv->f, "%s\n", columns);
  csv->ncol = 1;
  for (const char *c = columns; *c; c++)
    csv->ncol += *c == ',';
  return CDYN_OK;
}

static void put_number(FILE *f, double x)
{
  /* %.17g prints "nan"/"inf" for non-finite values, which CSV readers
     (gnuplot among them) take as missing. */
  fprintf(f, "%.17g", x);
}

int exp_csv_row(exp_csv *csv, const double *v, int n)
{
  if (n != csv->ncol) {
    csv->failed = 1;
    return cdyn_error(CDYN_EINVAL, "%s: row of %d values for %d columns", csv->path, n, csv->ncol);
  }
  for (int k = 0; k < n; k++) {
    if (k)
      fputc(',', csv->f);
    put_number(csv->f, v[k]);
  }
  fputc('\n', csv->f);
  return CDYN_OK;
}

int exp_csv_row_labels(exp_csv *csv, const char *const *labels, int nl, const double *v, int n)
{
  if (nl + n != csv->ncol) {
    csv->failed = 1;
    return cdyn_error(CDYN_EINVAL, "%s: row of %d fields for %d columns", csv->path, nl + n, csv->ncol);
  }
  for (int k = 0; k < nl; k++) {
    if (k)
      fputc(',', csv->f);
    exp_csv_field(csv->f, labels[k]);
  }
  for (int k = 0; k < n; k++) {
    if (k || nl)
      fputc(',', csv->f);
    put_number(csv->f, v[k]);
  }
  fputc('\n', csv->f);
  return CDYN_OK;
}

int exp_csv_row_labeled(exp_csv *csv, const char *label, const double *v, int n)
{
  return exp_csv_row_labels(csv, &label, 1, v, n);
}

static void csv_release(exp_csv *csv)
{
  free(csv->name);
  free(csv->columns);
  free(csv->extra);
  csv->name = csv->columns = csv->extra = NULL;
}

int exp_csv_close(exp_csv *csv, int ok)
{
  if (!csv->f) {
    csv_release(csv);
    return CDYN_OK;
  }
  int bad = ferror(csv->f);
  bad |= fclose(csv->f);
  csv->f = NULL;
  int rc = CDYN_OK;
  if (!ok || bad || csv->failed) {
    rc = ok ? cdyn_error(CDYN_EIO, "error writing %s", csv->path) : CDYN_OK;
  } else if ((rc = write_meta(csv->ctx, csv->name, csv->columns, csv->stepper, csv->extra)) == CDYN_OK) {
    if (rename(csv->tmp, csv->path) == 0) {
      csv_release(csv);
      return CDYN_OK;
    }
    rc = cdyn_error(CDYN_EIO, "cannot rename to %s: %s", csv->path, strerror(errno));
    char meta[4200];
    snprintf(meta, sizeof meta, "%s/%s.meta.json", csv->ctx->outdir, csv->name);
    remove(meta);
  }
  remove(csv->tmp);
  csv_release(csv);
  return rc;
}

void exp_csv_field(FILE *f, const char *s)
{
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

int exp_claim(exp_ctx *ctx, const char *id, double measured, const char *threshold,
              const char *verdict, const char *fmt, ...)
{
  if (!ctx->claims)
    return CDYN_OK;
  char note[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(note, sizeof note, fmt, ap);
  va_end(ap);
  char num[64];
  snprintf(num, sizeof num, "%.6g", measured);
  exp_csv_field(ctx->claims, id);
  fputc(',', ctx->claims);
  exp_csv_field(ctx->claims, ctx->exp->name);
  fputc(',', ctx->claims);
  exp_csv_field(ctx->claims, num);
  fputc(',', ctx->claims);
  exp_csv_field(ctx->claims, threshold);
  fputc(',', ctx->claims);
  exp_csv_field(ctx->claims, verdict);
  fputc(',', ctx->claims);
  exp_csv_field(ctx->claims, note);
  fputc('\n', ctx->claims);
  printf("claim %-34s %-14s measured %s (%s)\n", id, verdict, num, threshold);
  return CDYN_OK;
}

int exp_report(exp_ctx *ctx, const char *fmt, ...)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/report.part.md", ctx->outdir);
  FILE *f = fopen(path, "a");
  if (!f)
    return cdyn_error(CDYN_EIO, "cannot write %s: %s", path, strerror(errno));
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  if (ferror(f) | fclose(f))
    return cdyn_error(CDYN_EIO, "error writing %s", path);
  return CDYN_OK;
}

/* Least-squares slope of log y against log x over the points with ok[k]
   (ok may be NULL: all); *used gets their number, NaN below two. */
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
