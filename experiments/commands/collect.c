/*
 * collect.c: `cdyn collect DIR [--file NAME.csv] [--allow-missing]`,
 * the results of a sweep's jobs (sweep.c) in one table.
 *
 * `cdyn collect` reads points.csv and, of every job, one CSV file (--file;
 * for a scene sweep the scene's NAME-summary.csv by default), and writes
 * collected-NAME.csv: the point's columns, then the file's, each row of
 * each job, every field copied as text exactly as the job wrote it (so
 * quoting is kept).  Its header is job, then the other columns of
 * points.csv prefixed with "point." (point.scheme, point.h, point.KEY...),
 * then the file's header: a column of the file keeps its name, and no
 * name is given twice (a file whose header would repeat one is refused).
 * A job that is not complete, or that did not write the file, is an
 * error naming it (--allow-missing: collect the rest and record the
 * missing in collected-NAME.meta.json).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "runner/cli.h"
#include "runner/experiment.h"
#include "runner/csv.h"

static const char *const prog = "cdyn collect";
#define fail(rc, ...) exp_complain(prog, rc, __VA_ARGS__)


typedef struct {
  long job;
  char *reason;
} sw_missing;

typedef struct {
  const char *dir, *file_arg, *command;
  int allow_missing;
  char *meta;          /* sweep.meta.json */
  int scene;           /* a scene sweep */
  char **points;       /* the rows of points.csv, as text */
  long npoints;
  char *header;        /* points.csv's */
  int point_cols;
  char file[512];      /* the CSV collected from every job */
  sw_missing *missing;
  long nmissing;
  unsigned char *done; /* by job: collected */
} collect;

static void collect_free(collect *c)
{
  free(c->meta);
  for (long k = 0; k < c->npoints; k++)
    free(c->points[k]);
  free(c->points);
  free(c->header);
  for (long k = 0; k < c->nmissing; k++)
    free(c->missing[k].reason);
  free(c->missing);
  free(c->done);
}

static void job_dir(const collect *c, long job, char *buf, size_t len)
{
  snprintf(buf, len, "%s/jobs/%06ld", c->dir, job);
}

static int job_complete(const collect *c, long job)
{
  char path[4200];
  snprintf(path, sizeof path, "%s/jobs/%06ld/run.meta.json", c->dir, job);
  return exp_is_regular(path);
}

/* The files of a job's directory whose names end with `suffix`, sorted. */
typedef struct {
  const char *suffix;
  char **names;
  int n, cap;
} file_list;

static int list_entry(void *ctx, const char *path, const char *name, const struct stat *sb)
{
  file_list *l = ctx;
  (void)path, (void)sb;
  if (name[0] == '.' || !exp_ends_with(name, l->suffix))
    return 0;
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    char **v = realloc(l->names, (size_t)cap * sizeof *v);
    if (!v)
      return fail(1, "out of memory");
    l->names = v;
    l->cap = cap;
  }
  if (!(l->names[l->n] = strdup(name)))
    return fail(1, "out of memory");
  l->n++;
  return 0;
}

static int list_files(const char *dir, const char *suffix, char ***names, int *n)
{
  file_list l = {suffix, NULL, 0, 0};
  int rc = exp_walk_dir(prog, dir, list_entry, &l);
  if (!rc && l.n)
    qsort(l.names, (size_t)l.n, sizeof *l.names, exp_str_cmp);
  *names = l.names;
  *n = l.n;
  return rc;
}

static int read_points(collect *c)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/sweep.meta.json", c->dir);
  if (!(c->meta = exp_read_file(path, NULL)))
    return fail(1, "%s is not a complete sweep's directory: cannot read %s: %s (cdyn sweep writes it last)", c->dir,
                path, strerror(errno));
  c->scene = strstr(c->meta, "\"sweep_of\": \"scene\"") != NULL;
  snprintf(path, sizeof path, "%s/points.csv", c->dir);
  FILE *f = fopen(path, "r");
  if (!f)
    return fail(1, "cannot read %s: %s", path, strerror(errno));
  exp_csv_record b = {0};
  int r, rc = 0;
  long cap = 0;
  if ((r = exp_csv_read(f, &b)) != 1 || strncmp(b.text.s, "job,scheme,h", 12) || strchr(b.text.s, '"')) {
    rc = fail(1, "%s: %s", path, r == 1 ? "its header is not job,scheme,h,... (unquoted)" : "no header");
  } else {
    /* The collected header's: job, then point.NAME for the others. */
    exp_text hb = {0};
    for (const char *p = b.text.s; *p; p++)
      if (*p == ',')
        exp_text_puts(&hb, ",point.");
      else
        exp_text_putc(&hb, *p);
    if (hb.failed)
      rc = fail(1, "out of memory");
    c->header = hb.s;
  }
  c->point_cols = b.nfields;
  while (!rc && (r = exp_csv_read(f, &b)) == 1) {
    char *end;
    long job = strtol(b.text.s, &end, 10);
    if (end == b.text.s || *end != ',' || job != c->npoints || b.nfields != c->point_cols) {
      rc = fail(1, "%s line %ld: expected job %ld with %d fields", path, b.line, c->npoints, c->point_cols);
      break;
    }
    if (c->npoints == cap) {
      cap = cap ? 2 * cap : 1024;
      char **v = realloc(c->points, (size_t)cap * sizeof *v);
      if (!v) {
        rc = fail(1, "out of memory");
        break;
      }
      c->points = v;
    }
    if (!(c->points[c->npoints] = strdup(b.text.s))) {
      rc = fail(1, "out of memory");
      break;
    }
    c->npoints++;
  }
  if (!rc && r < 0)
    rc = fail(1, "%s line %ld: %s", path, b.line, r == -2 ? "a quoted field is not closed" : "read error");
  fclose(f);
  exp_csv_record_free(&b);
  if (!rc && !c->npoints)
    rc = fail(1, "%s: no jobs", path);
  return rc;
}

/* Which file to collect: --file, or a scene's NAME-summary.csv. */
static int choose_file(collect *c)
{
  if (c->file_arg) {
    const char *f = c->file_arg;
    if (!*f || strchr(f, '/') || f[0] == '.' || exp_has_control(f) || strlen(f) > 400)
      return fail(2, "--file %s: expected the name of a CSV file of a job (NAME.csv, no directory)", f);
    snprintf(c->file, sizeof c->file, "%s%s", f, exp_ends_with(f, ".csv") ? "" : ".csv");
    return 0;
  }
  long first = -1;
  for (long job = 0; job < c->npoints && first < 0; job++)
    if (job_complete(c, job))
      first = job;
  char dir[4200];
  char **names;
  int n, rc;
  if (first < 0) {
    if (c->scene)
      return fail(1, "no job of %s is complete (none has run.meta.json): nothing to collect", c->dir);
    return fail(2, "which file? The jobs of an experiment write several CSV files: name one with --file "
                   "NAME.csv (no job is complete yet, to list them)");
  }
  job_dir(c, first, dir, sizeof dir);
  if (c->scene) {
    if ((rc = list_files(dir, "-summary.csv", &names, &n)))
      return rc;
    if (n == 1)
      snprintf(c->file, sizeof c->file, "%s", names[0]);
    else if (n == 0)
      rc = fail(1, "job %ld (%s) wrote no NAME-summary.csv; name the file with --file NAME.csv", first, dir);
    else
      rc = fail(2, "job %ld (%s) wrote %d files *-summary.csv (%s, %s, ...); name one with --file NAME.csv", first,
                dir, n, names[0], names[1]);
    exp_strv_free(names, n);
    return rc;
  }
  if ((rc = list_files(dir, ".csv", &names, &n)))
    return rc;
  fprintf(stderr, "%s: which file? The jobs of an experiment write several CSV files: name one with --file "
                  "NAME.csv.\n  Job %ld wrote: ", prog, first);
  for (int k = 0; k < n; k++)
    fprintf(stderr, "%s%s", k ? ", " : "", names[k]);
  fprintf(stderr, "%s\n", n ? "" : "no CSV file");
  exp_strv_free(names, n);
  return 2;
}

static int add_missing(collect *c, long job, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;

static int add_missing(collect *c, long job, const char *fmt, ...)
{
  char reason[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  sw_missing *m = &c->missing[c->nmissing];
  m->job = job;
  if (!(m->reason = strdup(reason)))
    return fail(1, "out of memory");
  c->nmissing++;
  return 0;
}

/* The first field of CSV record `rec` (its text) given twice, unquoted,
   into a new string *dup (NULL: none).  Returns 0, or 1 out of memory. */
static int repeated_field(const char *rec, char **dup)
{
  exp_csv_record r = {0};
  *dup = NULL;
  int rc = exp_csv_split(rec, &r) == -1;
  char **field = rc ? NULL : malloc((size_t)r.nfields * sizeof *field);
  if (!rc && !field)
    rc = 1;
  if (!rc) {
    size_t n = (size_t)r.nfields;
    memcpy(field, r.field, n * sizeof *field);
    qsort(field, n, sizeof *field, exp_str_cmp);
    for (size_t k = 1; k < n && !*dup && !rc; k++)
      if (!strcmp(field[k - 1], field[k]))
        rc = !(*dup = strdup(field[k]));
  }
  free(field);
  exp_csv_record_free(&r);
  return rc;
}

/* Copy job's file into out, each row after the job's point; the header
   must be `header` (NULL: the first job's, returned in *header). */
static int copy_job(collect *c, long job, FILE *out, char **header, long *rows)
{
  char dir[4200], path[4800];
  job_dir(c, job, dir, sizeof dir);
  snprintf(path, sizeof path, "%s/%s", dir, c->file);
  FILE *f = fopen(path, "r");
  if (!f)
    return fail(1, "job %ld: cannot read %s: %s", job, path, strerror(errno));
  exp_csv_record b = {0};
  int ncols = 0, r, rc = 0;
  r = exp_csv_read(f, &b);
  if (r != 1) {
    rc = fail(1, "job %ld: %s: %s", job, path, r == 0 ? "empty (no header)" : r == -2 ? "a quoted field is not closed"
                                                                                        : "read error");
  } else if (!*header) {
    exp_text all = {0};
    char *dup = NULL;
    exp_text_puts(&all, c->header);
    exp_text_putc(&all, ',');
    exp_text_puts(&all, b.text.s);
    if (all.failed || repeated_field(all.s, &dup) || !(*header = strdup(b.text.s)))
      rc = fail(1, "out of memory");
    else if (dup)
      rc = fail(1, "job %ld: %s: the collected header\n  %s\nwould name the column %s twice", job, path, all.s, dup);
    else
      fprintf(out, "%s\n", all.s);
    free(dup);
    exp_text_free(&all);
  } else if (strcmp(*header, b.text.s)) {
    rc = fail(1, "job %ld: the header of %s\n  %s\ndiffers from the first job's\n  %s", job, path, b.text.s,
              *header);
  }
  ncols = b.nfields;
  while (!rc && (r = exp_csv_read(f, &b)) == 1) {
    if (!b.text.len)
      continue;
    if (b.nfields != ncols) {
      rc = fail(1, "job %ld: %s line %ld has %d fields, its header %d", job, path, b.line, b.nfields, ncols);
      break;
    }
    fprintf(out, "%s,%s\n", c->points[job], b.text.s);
    (*rows)++;
  }
  if (!rc && r < 0)
    rc = fail(1, "job %ld: %s line %ld: %s", job, path, b.line, r == -2 ? "a quoted field is not closed" : "read error");
  exp_csv_record_free(&b);
  fclose(f);
  return rc;
}

static int write_collected(collect *c)
{
  char stem[512], name[600], meta_name[700];
  snprintf(stem, sizeof stem, "%.*s", (int)(strlen(c->file) - 4), c->file);
  snprintf(name, sizeof name, "collected-%s.csv", stem);
  snprintf(meta_name, sizeof meta_name, "collected-%s.meta.json", stem);
  exp_afile csv, meta;
  if (exp_afile_create(&csv, prog, c->dir, name, 0))
    return 1;
  char *header = NULL;
  long rows = 0, ncollected = 0;
  int rc = 0;
  for (long job = 0; job < c->npoints && !rc; job++)
    if (c->done[job]) {
      rc = copy_job(c, job, csv.f, &header, &rows);
      ncollected++;
    }
  if (rc) {
    exp_afile_finish(&csv, prog, 0);
    free(header);
    return rc;
  }
  if (exp_afile_create(&meta, prog, c->dir, meta_name, 0)) {
    exp_afile_finish(&csv, prog, 0);
    free(header);
    return 1;
  }
  FILE *f = meta.f;
  fprintf(f, "{\n  \"collected\": ");
  exp_json_str(f, name);
  fprintf(f, ",\n");
  exp_meta_program(f, c->command);
  fprintf(f, ",\n  \"sweep_dir\": ");
  exp_json_str(f, c->dir);
  fprintf(f, ",\n  \"file\": ");
  exp_json_str(f, c->file);
  fprintf(f, ",\n  \"point_columns\": ");
  exp_json_str(f, c->header);
  fprintf(f, ",\n  \"file_columns\": ");
  exp_json_str(f, header ? header : "");
  fprintf(f, ",\n  \"note\": \"each row: the job's point (the first %d columns, from points.csv: job, then "
             "its other columns named point.NAME), then a row of the job's %s (its columns under their own "
             "names), its fields copied as the job wrote them\"",
          c->point_cols, c->file);
  fprintf(f, ",\n  \"rows\": %ld,\n  \"jobs\": %ld,\n  \"jobs_collected\": [", rows, c->npoints);
  long k = 0;
  for (long job = 0; job < c->npoints; job++)
    if (c->done[job])
      fprintf(f, "%s%ld", k++ ? ", " : "", job);
  fprintf(f, "],\n  \"jobs_missing\": [");
  for (long m = 0; m < c->nmissing; m++) {
    fprintf(f, "%s\n    {\"job\": %ld, \"reason\": ", m ? "," : "", c->missing[m].job);
    exp_json_str(f, c->missing[m].reason);
    fprintf(f, "}");
  }
  fprintf(f, "%s],\n  \"sweep\": ", c->nmissing ? "\n  " : "");
  /* The sweep's record as it is (JSON), without its final newline. */
  size_t ml = strlen(c->meta);
  while (ml && (c->meta[ml - 1] == '\n' || c->meta[ml - 1] == '\r'))
    ml--;
  fwrite(c->meta, 1, ml, f);
  fprintf(f, "\n}\n");
  free(header);
  /* The metadata first: a collected CSV is never without its record. */
  if ((rc = exp_afile_finish(&meta, prog, 1))) {
    exp_afile_finish(&csv, prog, 0);
    return rc;
  }
  if ((rc = exp_afile_finish(&csv, prog, 1))) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", c->dir, meta_name);
    remove(path);
    return rc;
  }
  printf("%s: %ld of %ld jobs, %ld rows of %s: %s/%s\n", prog, ncollected, c->npoints, rows, c->file, c->dir, name);
  if (c->nmissing)
    printf("%s: %ld job%s missing (listed in %s/%s)\n", prog, c->nmissing, c->nmissing == 1 ? "" : "s", c->dir,
           meta_name);
  return 0;
}

static int collect_main(collect *c, int argc, char **argv, const char *command)
{
  c->command = command;
  for (int k = 0; k < argc; k++) {
    const char *a = argv[k];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      exp_sweep_usage(stdout);
      return -1;
    } else if (!strcmp(a, "--allow-missing")) {
      c->allow_missing = 1;
    } else if (!strcmp(a, "--file")) {
      if (k + 1 >= argc)
        return fail(2, "--file needs a value (NAME.csv)");
      if (c->file_arg)
        return fail(2, "--file is given twice");
      c->file_arg = argv[++k];
    } else if (!strncmp(a, "--", 2)) {
      static const char *const options[] = {"--file", "--allow-missing", "--help", NULL};
      exp_near near;
      exp_near_init(&near, a);
      exp_near_list(&near, options);
      return fail(2, "unknown option '%s'%s", a, exp_near_hint(&near));
    } else if (c->dir) {
      return fail(2, "one directory only ('%s' and '%s')", c->dir, a);
    } else {
      c->dir = a;
    }
  }
  if (!c->dir)
    return fail(2, "which sweep? cdyn collect DIR [--file NAME.csv] [--allow-missing]");
  if (strlen(c->dir) > EXP_SWEEP_MAX_DIR || exp_has_control(c->dir))
    return fail(2, "%s: too long a path, or one with a control character", c->dir);
  int rc = read_points(c);
  if (!rc)
    rc = choose_file(c);
  if (rc)
    return rc;
  c->missing = calloc((size_t)c->npoints, sizeof *c->missing);
  c->done = calloc((size_t)c->npoints, 1);
  if (!c->missing || !c->done)
    return fail(1, "out of memory");
  for (long job = 0; job < c->npoints && !rc; job++) {
    char dir[4200], path[4800];
    job_dir(c, job, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, c->file);
    if (!job_complete(c, job))
      rc = add_missing(c, job, "not complete (no run.meta.json: not run, running, or failed; see logs/%06ld.log)",
                       job);
    else if (!exp_is_regular(path))
      rc = add_missing(c, job, "complete, but it wrote no %s", c->file);
    else
      c->done[job] = 1;
  }
  if (rc)
    return rc;
  if (c->nmissing && !c->allow_missing) {
    fprintf(stderr, "%s: %ld of %ld jobs of %s have no %s to collect:\n", prog, c->nmissing, c->npoints, c->dir,
            c->file);
    for (long m = 0; m < c->nmissing && m < EXP_SWEEP_MAX_NAMED; m++)
      fprintf(stderr, "  job %ld (jobs/%06ld): %s\n", c->missing[m].job, c->missing[m].job, c->missing[m].reason);
    if (c->nmissing > EXP_SWEEP_MAX_NAMED)
      fprintf(stderr, "  ... and %ld more\n", c->nmissing - EXP_SWEEP_MAX_NAMED);
    int incomplete = 0;
    for (long m = 0; m < c->nmissing; m++)
      incomplete |= !job_complete(c, c->missing[m].job);
    if (incomplete)
      fprintf(stderr, "  (make -C %s -j 2 -k runs the jobs not complete again)\n", exp_shell_word(c->dir));
    fprintf(stderr, "  (--allow-missing collects the others, and records the missing)\n");
    return 1;
  }
  if (c->nmissing == c->npoints)
    return fail(1, "no job of %s has %s: nothing to collect", c->dir, c->file);
  return write_collected(c);
}

int exp_cmd_collect(int argc, char **argv, const char *command)
{
  static collect c;
  memset(&c, 0, sizeof c);
  int rc = collect_main(&c, argc, argv, command);
  collect_free(&c);
  return rc < 0 ? 0 : rc;
}
