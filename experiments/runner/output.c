/*
 * output.c: what an experiment writes, each file atomically: its CSV files
 * (exp_csv_*), each with its metadata record (FILE.meta.json: every
 * parameter, scheme option and column, the version, the build, the
 * machine and the command), runs.csv, run.meta.json and its report
 * fragment (report.part.md); and the build's provenance those records
 * hold.
 *
 * Numbers are printed with %.17g, which round-trips doubles, so the same
 * command on the same build gives bitwise-identical files.
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

#include "build-info.h"
#include "runner/experiment.h"

const char *exp_build_commit(void) { return CDYN_BUILD_COMMIT; }
const char *exp_build_modified(void) { return CDYN_BUILD_MODIFIED; }
const char *exp_build_compiler(void)
{
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown";
#endif
}
const char *exp_build_cflags(void) { return CDYN_BUILD_CFLAGS; }

/* ---- metadata ------------------------------------------------------------------------ */

static const char *role_name(enum exp_role r)
{
  return r == EXP_PAPER ? "paper" : r == EXP_EXTRA ? "extra" : "companion";
}

/* The machine a run ran on, for the records of timed experiments' readers:
   the processor's model (the first "model name" of /proc/cpuinfo, or
   "unknown" where there is none), the number of processors online, and
   the system (uname: name, release, hardware). */
static void meta_machine(FILE *f)
{
  char cpu[256] = "unknown", line[512];
  FILE *in = fopen("/proc/cpuinfo", "r");
  if (in) {
    while (fgets(line, sizeof line, in)) {
      if (strncmp(line, "model name", 10))
        continue;
      const char *v = strchr(line, ':');
      if (!v)
        continue;
      for (v++; *v == ' ' || *v == '\t'; v++)
        ;
      snprintf(cpu, sizeof cpu, "%s", v);
      cpu[strcspn(cpu, "\n")] = 0;
      break;
    }
    fclose(in);
  }
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  struct utsname u;
  char sys[400] = "unknown";
  if (uname(&u) == 0)
    snprintf(sys, sizeof sys, "%s %s %s", u.sysname, u.release, u.machine);
  fprintf(f, ",\n  \"machine\": {\"cpu\": ");
  exp_json_str(f, cpu);
  fprintf(f, ", \"cpus\": %ld, \"system\": ", ncpu > 0 ? ncpu : 0);
  exp_json_str(f, sys);
  fprintf(f, "}");
}

void exp_meta_program(FILE *f, const char *command)
{
  fprintf(f, "  \"program\": \"cdyn\",\n  \"version\": ");
  exp_json_str(f, cdyn_version());
  fprintf(f, ",\n  \"build\": {\"commit\": ");
  exp_json_str(f, exp_build_commit());
  fprintf(f, ", \"modified\": ");
  exp_json_str(f, exp_build_modified());
  fprintf(f, ", \"compiler\": ");
  exp_json_str(f, exp_build_compiler());
  fprintf(f, ", \"cflags\": ");
  exp_json_str(f, exp_build_cflags());
  fprintf(f, "}");
  meta_machine(f);
  fprintf(f, ",\n  \"command\": ");
  exp_json_str(f, command ? command : "");
}

/* The fields every metadata record shares (program, build, command, the
   experiment's parameters and the run's schemes), after "{\n". */
static void meta_common(FILE *f, const exp_ctx *ctx)
{
  exp_meta_program(f, ctx->command);
  fprintf(f, ",\n  \"experiment\": ");
  exp_json_str(f, ctx->exp->name);
  fprintf(f, ",\n  \"source\": ");
  exp_json_str(f, ctx->exp->source);
  /* An experiment that chooses its own step sizes (h = 0 in its record)
     says so with null; its files name their h in their columns or note. */
  if (ctx->h > 0)
    fprintf(f, ",\n  \"h\": %.17g,\n  \"steps\": %ld", ctx->h, ctx->steps);
  else
    fprintf(f, ",\n  \"h\": null,\n  \"steps\": null");
  fprintf(f, ",\n  \"params\": {");
  int first = 1;
  for (const exp_param *p = ctx->exp->params; p && p->name; p++) {
    fprintf(f, "%s\n    ", first ? "" : ",");
    exp_json_str(f, p->name);
    fprintf(f, ": ");
    exp_json_str(f, exp_param_string(ctx, p->name));
    first = 0;
  }
  fprintf(f, "\n  },\n  \"runs\": [");
  for (int k = 0; k < ctx->nruns; k++) {
    const exp_runspec *r = &ctx->runs[k];
    fprintf(f, "%s\n    {\"name\": ", k ? "," : "");
    exp_json_str(f, r->name);
    fprintf(f, ", \"scheme\": ");
    exp_json_str(f, r->scheme);
    fprintf(f, ", \"role\": \"%s\", \"options\": {", role_name(r->role));
    for (const char *const *o = r->overrides; o && *o; o += 2) {
      fprintf(f, "%s", o == r->overrides ? "" : ", ");
      exp_json_str(f, o[0]);
      fprintf(f, ": ");
      exp_json_str(f, o[1]);
    }
    fprintf(f, "}}");
  }
  fprintf(f, "\n  ],\n  \"set\": {");
  for (int k = 0; k < ctx->nsets; k++) {
    char key[512];
    snprintf(key, sizeof key, "%s%s%s", ctx->sets[k].scheme ? ctx->sets[k].scheme : "",
             ctx->sets[k].scheme ? "." : "", ctx->sets[k].key);
    fprintf(f, "%s", k ? ", " : "");
    exp_json_str(f, key);
    fprintf(f, ": ");
    exp_json_str(f, ctx->sets[k].value);
  }
  fprintf(f, "}");
}

/* Close f (report.part.md, appended to); a write error (ferror, or fclose
   flushing to a full disk) is an error naming the file and the reason. */
static int close_checked(FILE *f, const char *path)
{
  errno = 0;
  int bad = ferror(f);
  bad |= fclose(f);
  if (bad)
    return cdyn_error(CDYN_EIO, "error writing %s: %s", path, errno ? strerror(errno) : "write error");
  return CDYN_OK;
}

static int write_meta(exp_ctx *ctx, const char *csvname, const char *columns, const cdyn_stepper *st,
                      const char *extra)
{
  char name[300];
  snprintf(name, sizeof name, "%s.meta.json", csvname);
  exp_afile a;
  int rc = exp_afile_open(&a, ctx->outdir, name, 0);
  if (rc)
    return rc;
  FILE *f = a.f;
  fprintf(f, "{\n  \"file\": ");
  exp_json_str(f, csvname);
  fprintf(f, ",\n");
  meta_common(f, ctx);
  fprintf(f, ",\n  \"columns\": ");
  exp_json_str(f, columns);
  fprintf(f, ",\n  \"column_info\": [");
  const char *c = columns;
  for (int k = 0; *c; k++) {
    size_t len = strcspn(c, ",");
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), c);
    const char *meaning = NULL, *unit = exp_column_unit(ctx->exp, csvname, name, &meaning);
    fprintf(f, "%s\n    {\"name\": ", k ? "," : "");
    exp_json_str(f, name);
    fprintf(f, ", \"unit\": ");
    exp_json_str(f, unit ? unit : "");
    /* A pattern's '#' stands for the column's own number (x# of x3). */
    char text[512];
    const char *hash = meaning ? strchr(meaning, '#') : NULL;
    if (hash) {
      size_t d = strcspn(name, "0123456789"), nd = strspn(name + d, "0123456789");
      snprintf(text, sizeof text, "%.*s%.*s%s", (int)(hash - meaning), meaning, (int)nd, name + d, hash + 1);
      meaning = text;
    }
    fprintf(f, ", \"meaning\": ");
    exp_json_str(f, meaning ? meaning : "");
    fprintf(f, "}");
    c += len;
    if (*c == ',')
      c++;
  }
  fprintf(f, "\n  ]");
  if (st) {
    fprintf(f, ",\n  \"scheme\": ");
    exp_json_str(f, cdyn_stepper_scheme(st));
    fprintf(f, ",\n  \"scheme_options\": {");
    for (size_t i = 0; i < cdyn_stepper_option_count(st); i++) {
      char buf[256];
      const char *name = cdyn_stepper_option_name(st, i);
      if (cdyn_stepper_get(st, name, buf, sizeof buf))
        snprintf(buf, sizeof buf, "?");
      fprintf(f, "%s\n    ", i ? "," : "");
      exp_json_str(f, name);
      fprintf(f, ": ");
      exp_json_str(f, buf);
    }
    fprintf(f, "\n  }");
  }
  if (extra && *extra)
    fprintf(f, ",\n  %s", extra);
  fprintf(f, "\n}\n");
  return exp_afile_close(&a, 1);
}

/* The record of the whole run, run.meta.json, by which `cdyn report`
   finds the run (commands/run.c writes it when the run is complete), and
   what the run took: "resources" on one line, which cdyn report reads. */
int exp_write_run_meta(exp_ctx *ctx, const exp_resources *res)
{
  exp_afile a;
  int rc = exp_afile_open(&a, ctx->outdir, "run.meta.json", 0);
  if (rc)
    return rc;
  FILE *f = a.f;
  fprintf(f, "{\n  \"run_of\": ");
  exp_json_str(f, ctx->exp->name);
  fprintf(f, ",\n");
  meta_common(f, ctx);
  fprintf(f, ",\n  \"skipped\": ");
  exp_json_str(f, ctx->skipped);
  /* A scene's run judges no claims and writes no claims file. */
  if (res)
    fprintf(f,
            ",\n  \"resources\": {\"wall_s\": %.3f, \"cpu_user_s\": %.3f, \"cpu_sys_s\": %.3f, \"max_rss_mib\": %.1f},"
            "\n  \"resources_note\": \"wall-clock time of the run, CPU time of its process and threads and of the "
            "processes it waited for, the largest resident set of one of them; they depend on the machine and its "
            "load\"",
            res->wall_s, res->user_s, res->sys_s, res->max_rss_mib);
  fprintf(f, ",\n  \"claims\": %s,\n  \"complete\": true\n}\n", ctx->scene ? "null" : "\"claims.part.csv\"");
  return exp_afile_close(&a, 1);
}

/* runs.csv: the run names, their schemes and roles, for the figures
   (which draw every run) and for the reader. */
int exp_write_runs(exp_ctx *ctx)
{
  exp_csv csv;
  int rc = exp_csv_open(ctx, &csv, "runs", "run,scheme,role", NULL,
                        "\"note\": \"one row per run, in the order run: the paper's (or --scheme's) schemes, "
                        "--extra-schemes, then the companion runs\"");
  for (int k = 0; k < ctx->nruns && !rc; k++) {
    const char *labels[3] = {ctx->runs[k].name, ctx->runs[k].scheme, role_name(ctx->runs[k].role)};
    rc = exp_csv_row_labels(&csv, labels, 3, NULL, 0);
  }
  int crc = exp_csv_close(&csv, rc == CDYN_OK);
  return rc ? rc : crc;
}

/* ---- CSV ------------------------------------------------------------------------------- */

int exp_csv_open(exp_ctx *ctx, exp_csv *csv, const char *name, const char *columns, const cdyn_stepper *st,
                 const char *extra)
{
  memset(csv, 0, sizeof *csv);
  csv->ctx = ctx;
  csv->stepper = st;
  /* Every column is documented (columns.c) before anything is written. */
  const char *c = columns;
  while (*c) {
    size_t len = strcspn(c, ",");
    char col[128];
    snprintf(col, sizeof col, "%.*s", (int)(len < sizeof col ? len : sizeof col - 1), c);
    if (!exp_column_unit(ctx->exp, name, col, NULL))
      return cdyn_error(CDYN_EINVAL,
                        "%s.csv of %s: column '%s' has no unit and meaning in the experiment's columns (or "
                        "experiments/runner/columns.c)",
                        name, ctx->exp->name, col);
    c += len;
    if (*c == ',')
      c++;
  }
  csv->name = strdup(name);
  csv->columns = strdup(columns);
  csv->extra = strdup(extra ? extra : "");
  if (!csv->name || !csv->columns || !csv->extra) {
    exp_csv_close(csv, 0);
    return cdyn_error(CDYN_ENOMEM, "out of memory");
  }
  char file[300];
  snprintf(file, sizeof file, "%s.csv", name);
  int rc = exp_afile_open(&csv->file, ctx->outdir, file, 0);
  if (rc) {
    exp_csv_close(csv, 0);
    return rc;
  }
  fprintf(csv->file.f, "%s\n", columns);
  csv->ncol = 1;
  for (const char *p = columns; *p; p++)
    csv->ncol += *p == ',';
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
  return exp_csv_row_labels(csv, NULL, 0, v, n);
}

int exp_csv_row_labels(exp_csv *csv, const char *const *labels, int nl, const double *v, int n)
{
  if (nl + n != csv->ncol) {
    csv->failed = 1;
    return cdyn_error(CDYN_EINVAL, "%s: row of %d fields for %d columns", csv->file.path, nl + n, csv->ncol);
  }
  FILE *f = csv->file.f;
  for (int k = 0; k < nl; k++) {
    if (k)
      fputc(',', f);
    exp_csv_field(f, labels[k]);
  }
  for (int k = 0; k < n; k++) {
    if (k || nl)
      fputc(',', f);
    put_number(f, v[k]);
  }
  fputc('\n', f);
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
  if (!csv->file.f) {
    csv_release(csv);
    return CDYN_OK;
  }
  /* The CSV complete (every write checked), then its metadata record,
     then the CSV renamed into place: a failed run leaves neither. */
  int rc = ok ? exp_afile_flush(&csv->file) : CDYN_OK;
  if (ok && !rc && csv->failed)
    rc = cdyn_error(CDYN_EIO, "error writing %s", csv->file.path);
  if (ok && !rc && !(rc = write_meta(csv->ctx, csv->name, csv->columns, csv->stepper, csv->extra)) &&
      (rc = exp_afile_close(&csv->file, 1))) {
    char meta[4200];
    snprintf(meta, sizeof meta, "%s/%s.meta.json", csv->ctx->outdir, csv->name);
    remove(meta);
  }
  exp_afile_close(&csv->file, 0); /* removes the temporary file, if it is still there */
  csv_release(csv);
  return ok ? rc : CDYN_OK;
}

/* ---- report fragments ------------------------------------------------------------------- */

const char *exp_num(char *buf, size_t len, const char *fmt, double x, const char *if_nan)
{
  if (!len)
    return buf;
  if (isnan(x))
    snprintf(buf, len, "%s", if_nan);
  else {
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
    snprintf(buf, len, fmt, x);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
  }
  return buf;
}

int exp_report(exp_ctx *ctx, const char *fmt, ...)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/report.part.md", ctx->outdir);
  if (ctx->failed_io)
    return CDYN_EIO; /* the first failure is the one reported */
  FILE *f = fopen(path, "a");
  if (!f) {
    ctx->failed_io = 1;
    int rc = cdyn_error(CDYN_EIO, "cannot write %s: %s", path, strerror(errno));
    snprintf(ctx->io_error, sizeof ctx->io_error, "%s", cdyn_errmsg());
    return rc;
  }
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  int rc = close_checked(f, path);
  if (rc) {
    ctx->failed_io = 1;
    snprintf(ctx->io_error, sizeof ctx->io_error, "%s", cdyn_errmsg());
  }
  return rc;
}
