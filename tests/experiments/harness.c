/*
 * tests/experiments/harness.c: what the tests of the cdyn program share
 * (harness.h says what): the work directory, files, running the program,
 * reading its CSV files, claims and metadata, and the test cases.
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include <cdyn/cdyn.h>

#include "harness.h"

/* ---- the work directory ---------------------------------------------------- */

char wd[64];                   /* tests/out-XXXXXX, relative to the cwd */
static char program[PATH_MAX]; /* absolute, because the child runs in wd */

/* A path into buf (PATH_MAX bytes), printf-style; a path that does not
   fit fails the test rather than being silently cut short. */
static char *vpathf(char *buf, const char *fmt, va_list ap)
{
  int n = vsnprintf(buf, PATH_MAX, fmt, ap);
  ck_assert_msg(n >= 0 && n < PATH_MAX, "path too long: %s...", buf);
  return buf;
}

char *pathf(char *buf, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vpathf(buf, fmt, ap);
  va_end(ap);
  return buf;
}

/* wd/NAME, NAME given printf-style. */
char *wp(char *buf, const char *fmt, ...)
{
  char name[PATH_MAX];
  va_list ap;
  va_start(ap, fmt);
  vpathf(name, fmt, ap);
  va_end(ap);
  return pathf(buf, "%s/%s", wd, name);
}

static void setup(void)
{
  const char *p = getenv("CDYN_PROGRAM");
  ck_assert_msg(p && *p, "CDYN_PROGRAM is not set: it must name the built cdyn program "
                         "(make check sets it to the build tree's ./cdyn)");
  ck_assert_msg(realpath(p, program) != NULL, "CDYN_PROGRAM=%s: %s", p, strerror(errno));
  ck_assert_msg(access(program, X_OK) == 0, "CDYN_PROGRAM=%s is not an executable file", program);
  /* The cwd is the build directory under make check; its tests/ exists
     there, but not necessarily when the program is run by hand. */
  ck_assert_msg(mkdir("tests", 0777) == 0 || errno == EEXIST, "cannot create tests/: %s", strerror(errno));
  snprintf(wd, sizeof wd, "tests/out-XXXXXX");
  ck_assert_msg(mkdtemp(wd) != NULL, "mkdtemp %s: %s", wd, strerror(errno));
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path) ? -1 : 0;
}

/* Remove a directory tree (what a test made inside its work directory). */
void remove_tree(const char *path) { nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void teardown(void)
{
  /* FTW_DEPTH: a directory's entries go before the directory itself;
     FTW_PHYS: never follow a symbolic link out of the work directory. */
  ck_assert_msg(nftw(wd, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0, "cannot remove %s: %s", wd,
                strerror(errno));
}

/* ---- files ---------------------------------------------------------------------- */

/* The whole file, NUL-terminated (NULL if it cannot be read). */
char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (cap - n - 1 == 0) {
      cap *= 2;
      buf = realloc(buf, cap);
      ck_assert_ptr_nonnull(buf);
    }
  }
  int bad = ferror(f);
  fclose(f);
  ck_assert_msg(!bad, "error reading %s", path);
  buf[n] = '\0';
  if (len)
    *len = n;
  return buf;
}

char *must_slurp(const char *path)
{
  char *s = slurp(path, NULL);
  ck_assert_msg(s != NULL, "cannot read %s: %s", path, strerror(errno));
  return s;
}

int exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0;
}

int has_suffix(const char *s, const char *suffix)
{
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a directory other than . and .., sorted. */
dirlist list_dir(const char *path)
{
  dirlist l = {0, NULL};
  DIR *d = opendir(path);
  ck_assert_msg(d != NULL, "cannot open directory %s: %s", path, strerror(errno));
  size_t cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    if (l.n == cap) {
      cap = cap ? 2 * cap : 16;
      l.name = realloc(l.name, cap * sizeof *l.name);
      ck_assert_ptr_nonnull(l.name);
    }
    l.name[l.n] = strdup(e->d_name);
    ck_assert_ptr_nonnull(l.name[l.n]);
    l.n++;
  }
  closedir(d);
  if (l.n)
    qsort(l.name, l.n, sizeof *l.name, cmp_str);
  return l;
}

void dirlist_free(dirlist *l)
{
  for (size_t k = 0; k < l->n; k++)
    free(l->name[k]);
  free(l->name);
  l->n = 0;
  l->name = NULL;
}

size_t count_suffix(const dirlist *l, const char *suffix)
{
  size_t c = 0;
  for (size_t k = 0; k < l->n; k++)
    c += has_suffix(l->name[k], suffix);
  return c;
}

/* ---- running the program ---------------------------------------------------- */

void proc_free(proc *p)
{
  free(p->out);
  free(p->err);
  p->out = p->err = NULL;
}

/*
 * Run cdyn with `args` (NULL-terminated) in the work directory, so that
 * relative output paths (and the default ./EXPERIMENT) land there; stdout
 * and stderr go to wd/.stdout and wd/.stderr and are read back.  fork and
 * exec rather than system(), so no shell ever sees the paths.
 */
proc run_argv(const char *const *args)
{
  const char *argv[64];
  int argc = 0;
  argv[argc++] = program;
  for (const char *const *a = args; *a; a++) {
    ck_assert_int_lt(argc, 63);
    argv[argc++] = *a;
  }
  argv[argc] = NULL;
  char out_path[PATH_MAX], err_path[PATH_MAX];
  wp(out_path, ".stdout");
  wp(err_path, ".stderr");
  /* Flush so the child does not inherit and repeat buffered output. */
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
  if (pid == 0) {
    int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fo < 0 || fe < 0 || dup2(fo, STDOUT_FILENO) < 0 || dup2(fe, STDERR_FILENO) < 0 || chdir(wd))
      _exit(127);
    close(fo);
    close(fe);
    execv(argv[0], (char *const *)argv);
    /* Only async-signal-safe calls between fork and _exit. */
    static const char msg[] = "tests: cannot execute the program named by CDYN_PROGRAM\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    ck_assert_msg(errno == EINTR, "waitpid: %s", strerror(errno));
  proc p;
  p.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  p.out = must_slurp(out_path);
  p.err = must_slurp(err_path);
  return p;
}

/* ---- CSV ----------------------------------------------------------------------------- */

double tv(const table *t, size_t r, size_t c)
{
  return t->v[r * t->ncol + c];
}

void table_free(table *t)
{
  if (t->label)
    for (size_t r = 0; r < t->nrows; r++)
      free(t->label[r]);
  free(t->label);
  free(t->v);
}

/*
 * Read a CSV file whose first line must be exactly `header`; every other
 * line must have as many fields as the header and end with a newline.
 * The first `labeled` fields are text, the row's label (joined by commas
 * when there are several); every other field must be a finite number, or
 * NaN with `allow_nan`.
 */
static table read_table_ex(const char *path, const char *header, int labeled, int allow_nan)
{
  table t = {0, 1, NULL, NULL};
  for (const char *c = header; *c; c++)
    t.ncol += *c == ',';
  char *text = must_slurp(path);
  char *nl = strchr(text, '\n');
  ck_assert_msg(nl != NULL, "%s: no header line", path);
  *nl = '\0';
  ck_assert_msg(!strcmp(text, header), "%s: header\n  '%s'\nexpected\n  '%s'", path, text, header);
  size_t cap = 0;
  for (char *line = nl + 1; *line; line = nl + 1) {
    nl = strchr(line, '\n');
    ck_assert_msg(nl != NULL, "%s: row %zu does not end with a newline", path, t.nrows + 1);
    *nl = '\0';
    if (t.nrows == cap) {
      cap = cap ? 2 * cap : 64;
      t.v = realloc(t.v, cap * t.ncol * sizeof *t.v);
      ck_assert_ptr_nonnull(t.v);
      if (labeled) {
        t.label = realloc(t.label, cap * sizeof *t.label);
        ck_assert_ptr_nonnull(t.label);
      }
    }
    double *row = t.v + t.nrows * t.ncol;
    char *p = line;
    for (size_t c = 0; c < t.ncol; c++) {
      char *end = strchr(p, ',');
      ck_assert_msg((end != NULL) == (c + 1 < t.ncol), "%s: row %zu has %s than %zu fields: '%s'", path,
                    t.nrows + 1, end ? "more" : "fewer", t.ncol, line);
      if (end)
        *end = '\0';
      if (c == 0 && labeled) {
        t.label[t.nrows] = strdup(p);
        ck_assert_ptr_nonnull(t.label[t.nrows]);
        row[c] = NAN;
      } else if (c < (size_t)labeled) {
        /* A further text field joins the label after a comma. */
        char *l = t.label[t.nrows];
        size_t n = strlen(l);
        l = realloc(l, n + strlen(p) + 2);
        ck_assert_ptr_nonnull(l);
        l[n] = ',';
        strcpy(l + n + 1, p);
        t.label[t.nrows] = l;
        row[c] = NAN;
      } else {
        char *stop;
        errno = 0;
        row[c] = strtod(p, &stop);
        /* ERANGE with a subnormal result is a number, only smaller than a
           normal double; an overflow is not. */
        int range = errno == ERANGE && fabs(row[c]) >= DBL_MIN;
        ck_assert_msg(stop != p && !*stop && !range && (isfinite(row[c]) || (allow_nan && isnan(row[c]))),
                      "%s: row %zu, field %zu is '%s', not a finite number", path, t.nrows + 1, c + 1, p);
      }
      p = end ? end + 1 : p;
    }
    t.nrows++;
  }
  free(text);
  return t;
}

table read_table(const char *path, const char *header, int labeled)
{
  return read_table_ex(path, header, labeled, 0);
}

/* The same, but a number may also be NaN ("nan"), which some files write
   for "not measured" (a run that never settled, a search off the grid). */
table read_table_nan(const char *path, const char *header, int labeled)
{
  return read_table_ex(path, header, labeled, 1);
}

/*
 * Split one CSV line in place into at most `max` fields, undoing the
 * quoting ("..." with "" for a quote) the program uses for fields that
 * hold commas.  Returns the field count, -1 if malformed.
 */
int split_csv(char *line, char **f, int max)
{
  char *out = line, *p = line;
  int n = 0;
  f[n++] = out;
  while (*p) {
    if (*p == '"') {
      for (p++;; p++) {
        if (!*p)
          return -1;
        if (*p == '"') {
          if (p[1] != '"')
            break;
          p++;
        }
        *out++ = *p;
      }
      p++;
    } else if (*p == ',') {
      *out++ = '\0';
      p++;
      if (n == max)
        return -1;
      f[n++] = out;
    } else {
      *out++ = *p++;
    }
  }
  *out = '\0';
  return n;
}

/* The lines of a text, split in place; every line must end with '\n'. */
size_t split_lines(const char *what, char *text, char **lines, size_t max)
{
  size_t n = 0;
  for (char *p = text; *p;) {
    char *nl = strchr(p, '\n');
    ck_assert_msg(nl != NULL, "%s: last line has no newline", what);
    ck_assert_msg(n < max, "%s: more than %zu lines", what, max);
    *nl = '\0';
    lines[n++] = p;
    p = nl + 1;
  }
  return n;
}

int is_verdict(const char *v)
{
  return !strcmp(v, "holds") || !strcmp(v, "partly") || !strcmp(v, "does-not-hold");
}

/* The fields of claim `id` in DIR/claims.part.csv (fields[6], pointing into
   *text, which the caller frees); fails the test when it is not there
   exactly once. */
void claim_fields(const char *dir, const char *id, char **text, char **fields)
{
  char path[PATH_MAX];
  pathf(path, "%s/claims.part.csv", dir);
  *text = must_slurp(path);
  char *lines[64];
  size_t n = split_lines(path, *text, lines, 64), found = 0;
  for (size_t k = 0; k < n; k++) {
    char *f[8];
    ck_assert_msg(split_csv(lines[k], f, 8) == 6, "%s: line %zu does not have 6 fields", path, k + 1);
    ck_assert_msg(exp_claim_find(f[0]) != NULL, "%s: %s is not a claim of the table", path, f[0]);
    if (strcmp(f[0], id))
      continue;
    found++;
    memcpy(fields, f, 6 * sizeof *f);
  }
  ck_assert_msg(found == 1, "%s: claim %s found %zu times", path, id, found);
}

/*
 * Claim `id` of DIR/claims.part.csv against the table's rule applied to
 * the sub-measures v, recomputed by the caller from the runs' files: the
 * verdict must be the rule's, the measured value the rule's measured
 * sub-measure (printed with 6 significant digits: within rel), and the
 * threshold text the rule's.
 */
void check_claim(const char *dir, const char *id, const exp_value *v, size_t n, double rel)
{
  const exp_claim_def *c = exp_claim_find(id);
  ck_assert_msg(c != NULL, "no claim %s in the table", id);
  enum exp_verdict verdict;
  double measured = NAN;
  ck_assert_msg(exp_verdict(c, v, n, &verdict, &measured) == CDYN_OK, "%s: %s", id, cdyn_errmsg());
  char *text, *f[6], rule[1024];
  claim_fields(dir, id, &text, f);
  ck_assert_str_eq(f[1], c->experiment);
  ck_assert_msg(!strcmp(f[4], exp_verdict_name(verdict)), "%s: %s is '%s', but its rule on the runs gives '%s'", dir,
                id, f[4], exp_verdict_name(verdict));
  char *end;
  double m = strtod(f[2], &end);
  ck_assert_msg(end != f[2] && !*end, "%s: %s measured '%s'", dir, id, f[2]);
  ck_assert_msg((isnan(m) && isnan(measured)) || m == measured || fabs(m - measured) <= rel * fabs(measured),
                "%s: %s measured %s, the runs give %.6g", dir, id, f[2], measured);
  exp_rule_text(c, rule, sizeof rule);
  ck_assert_str_eq(f[3], rule);
  free(text);
}

/* The run names of DIR/run.meta.json, in order; *n gets their number. */
void read_runs(const char *dir, char names[][64], size_t max, size_t *n)
{
  char path[PATH_MAX];
  pathf(path, "%s/run.meta.json", dir);
  char *json = must_slurp(path);
  const char *s = strstr(json, "\"runs\": [");
  ck_assert_msg(s != NULL, "%s: no runs", path);
  const char *end = strstr(s, "\n  ]");
  ck_assert_msg(end != NULL, "%s: runs not closed", path);
  *n = 0;
  for (const char *p = strstr(s, "{\"name\": \""); p && p < end; p = strstr(p + 1, "{\"name\": \"")) {
    p += strlen("{\"name\": \"");
    size_t len = strcspn(p, "\"");
    ck_assert_msg(*n < max && len < 64, "%s: too many or too long run names", path);
    memcpy(names[*n], p, len);
    names[*n][len] = '\0';
    (*n)++;
  }
  free(json);
}

int run_listed(char names[][64], size_t n, const char *name)
{
  for (size_t k = 0; k < n; k++)
    if (!strcmp(names[k], name))
      return 1;
  return 0;
}

/*
 * DIR/claims.part.csv holds exactly the claims the table gives
 * `experiment`, in the table's order: each a verdict when every run it
 * needs is in DIR/run.meta.json, else not-run with the reason.  Returns
 * the number judged.
 */
size_t check_claims_part(const char *dir, const char *experiment)
{
  char names[64][64], path[PATH_MAX];
  size_t nr, judged = 0, want = 0;
  read_runs(dir, names, 64, &nr);
  pathf(path, "%s/claims.part.csv", dir);
  char *text = must_slurp(path);
  char *lines[64], *fields[64][8];
  size_t n = split_lines(path, text, lines, 64);
  for (size_t j = 0; j < n; j++)
    ck_assert_msg(split_csv(lines[j], fields[j], 8) == 6, "%s: line %zu does not have 6 fields", path, j + 1);
  for (size_t k = 0; k < NCLAIMS; k++) {
    const exp_claim_def *c = &exp_claim_defs[k];
    if (!c->experiment || strcmp(c->experiment, experiment))
      continue;
    want++;
    char **f = NULL;
    size_t found = 0;
    for (size_t j = 0; j < n; j++)
      if (!strcmp(fields[j][0], c->id)) {
        found++;
        f = fields[j];
      }
    ck_assert_msg(found == 1, "%s: claim %s found %zu times", path, c->id, found);
    ck_assert_str_eq(f[1], experiment);
    int ready = 1;
    for (const char *r = c->runs; *r;) {
      char run[64];
      size_t len = strcspn(r, ",");
      snprintf(run, sizeof run, "%.*s", (int)len, r);
      ready &= run_listed(names, nr, run);
      r += len + (r[len] == ',');
    }
    if (ready) {
      ck_assert_msg(is_verdict(f[4]), "%s: %s has verdict '%s' though its runs %s ran", path, c->id, f[4], c->runs);
      judged++;
    } else {
      ck_assert_msg(!strcmp(f[4], "not-run") && !*f[2] && strstr(f[5], c->runs),
                    "%s: %s needs runs %s, not all in the run, but is '%s' (%s)", path, c->id, c->runs, f[4], f[5]);
    }
  }
  ck_assert_msg(n == want, "%s: %zu lines, expected the %zu claims of %s", path, n, want, experiment);
  free(text);
  return judged;
}

/* ---- metadata ---------------------------------------------------------------- */

/* The value of the first "key": NUMBER in a JSON text. */
static double json_number(const char *path, const char *json, const char *key)
{
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *s = strstr(json, pat);
  ck_assert_msg(s != NULL, "%s: no %s", path, pat);
  s += strlen(pat);
  char *end;
  double x = strtod(s, &end);
  ck_assert_msg(end != s && (*end == ',' || *end == '\n' || *end == '}'), "%s: %s is not a number", path, key);
  return x;
}

/* Does the JSON text hold "key": "value" (a string)? */
int json_has_string(const char *json, const char *key, const char *value)
{
  char pat[512];
  snprintf(pat, sizeof pat, "\"%s\": \"%s\"", key, value);
  return strstr(json, pat) != NULL;
}

/*
 * Check DIR/NAME.meta.json: the version, the machine record, the exact command, h and steps
 * (h = 0: both null, the experiment chooses them per run), and the
 * experiment parameter `param` = `value` inside "params" (the scheme
 * options may hold a field of the same name, so the search is bounded;
 * `param` NULL for an experiment without parameters).
 */
void check_meta(const char *dir, const char *name, const char *command, double h, long steps,
                       const char *param, const char *value)
{
  char path[PATH_MAX];
  pathf(path, "%s/%s.meta.json", dir, name);
  char *json = must_slurp(path);
  ck_assert_msg(json_has_string(json, "version", cdyn_version()), "%s: no \"version\": \"%s\"", path,
                cdyn_version());
  ck_assert_msg(json_has_string(json, "command", command), "%s: no \"command\": \"%s\":\n%s", path, command,
                json);
  if (h == 0) {
    /* An experiment that chooses its step sizes per run says null. */
    ck_assert_msg(strstr(json, "\n  \"h\": null,\n  \"steps\": null,") != NULL, "%s: h and steps are not null:\n%s",
                  path, json);
  } else {
    ck_assert_msg(json_number(path, json, "h") == h, "%s: h is %.17g, expected %.17g", path,
                  json_number(path, json, "h"), h);
    ck_assert_msg(json_number(path, json, "steps") == (double)steps, "%s: steps is %g, expected %ld", path,
                  json_number(path, json, "steps"), steps);
  }
  /* The machine the run ran on: the processor's model (a string, unknown
     where the system does not say) and the processors online (at least 1). */
  ck_assert_msg(strstr(json, "\n  \"machine\": {\"cpu\": \"") != NULL, "%s: no \"machine\" record:\n%s", path, json);
  ck_assert_msg(json_number(path, json, "cpus") >= 1, "%s: \"cpus\" is %g", path, json_number(path, json, "cpus"));
  ck_assert_msg(strstr(json, ", \"system\": \"") != NULL, "%s: no \"system\" in \"machine\"", path);
  char *params = strstr(json, "\"params\": {");
  ck_assert_msg(params != NULL, "%s: no \"params\"", path);
  if (!param) {
    free(json);
    return;
  }
  char *close = strchr(params, '}');
  ck_assert_ptr_nonnull(close);
  *close = '\0';
  ck_assert_msg(json_has_string(params, param, value), "%s: params do not hold \"%s\": \"%s\":\n%s", path,
                param, value, params);
  free(json);
}

/* A metadata text without its "command" line, which names the --out dir,
   and without run.meta.json's "resources" line, which the clock sets. */
static char *strip_command(const char *json)
{
  char *copy = strdup(json);
  ck_assert_ptr_nonnull(copy);
  char *line = strstr(copy, "\n  \"command\": ");
  ck_assert_msg(line != NULL, "metadata without a command line:\n%s", json);
  char *next = strchr(line + 1, '\n');
  ck_assert_ptr_nonnull(next);
  memmove(line, next, strlen(next) + 1);
  /* run.meta.json's record of what the run took (its one line; the note
     after it is the same in every run). */
  if ((line = strstr(copy, "\n  \"resources\": {"))) {
    next = strchr(line + 1, '\n');
    ck_assert_ptr_nonnull(next);
    memmove(line, next, strlen(next) + 1);
  }
  return copy;
}

/* No half-written file (".NAME.tmp", "NAME.tmp") may survive a run. */
void check_no_temporaries(const char *dir)
{
  dirlist l = list_dir(dir);
  for (size_t k = 0; k < l.n; k++)
    ck_assert_msg(l.name[k][0] != '.' && !has_suffix(l.name[k], ".tmp"), "%s: temporary file %s left behind",
                  dir, l.name[k]);
  dirlist_free(&l);
}

/* ---- two runs, the same output ---------------------------------------------------- */

/*
 * The directories wd/a and wd/b, written by the same command but for
 * --out, must hold the same files with the same bytes (the metadata
 * differing only in the command line, which names the --out directory),
 * among them at least `min_csv` CSV files.
 */
void check_same_output(size_t min_csv)
{
  char da[PATH_MAX], db[PATH_MAX];
  wp(da, "a");
  wp(db, "b");
  dirlist la = list_dir(da), lb = list_dir(db);
  ck_assert_uint_eq(la.n, lb.n);
  ck_assert_uint_ge(count_suffix(&la, ".csv"), min_csv);
  for (size_t k = 0; k < la.n; k++) {
    ck_assert_str_eq(la.name[k], lb.name[k]);
    char pa[PATH_MAX], pb[PATH_MAX];
    pathf(pa, "%s/%s", da, la.name[k]);
    pathf(pb, "%s/%s", db, lb.name[k]);
    size_t na, nb;
    char *a = slurp(pa, &na), *b = slurp(pb, &nb);
    ck_assert_msg(a && b, "cannot read %s or %s", pa, pb);
    if (has_suffix(la.name[k], ".meta.json")) {
      ck_assert_msg(strstr(a, "--out a\"") && strstr(b, "--out b\""), "%s: the command does not name its --out",
                    la.name[k]);
      char *sa = strip_command(a), *sb = strip_command(b);
      ck_assert_msg(!strcmp(sa, sb), "%s differs between runs beyond the command:\n%s\n---\n%s", la.name[k], a, b);
      free(sa);
      free(sb);
    } else {
      /* CSV data and the claim verdicts: the same command gives the same bytes. */
      ck_assert_msg(na == nb && !memcmp(a, b, na), "%s differs between two identical runs", la.name[k]);
    }
    free(a);
    free(b);
  }
  dirlist_free(&la);
  dirlist_free(&lb);
}

/* ---- numbers ------------------------------------------------------------------------- */

/* |a - b| <= tol, NaN equal to NaN (a value "not measured" on both sides). */
int same(double a, double b, double tol)
{
  return (isnan(a) && isnan(b)) || fabs(a - b) <= tol;
}

/* ---- the suite ----------------------------------------------------------------------------- */

Suite *exp_suite(const char *name)
{
  /* Inherited by every cdyn run: one BLAS thread keeps timing and
     results independent of the machine's core count. */
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  return suite_create(name);
}

void add(Suite *s, const char *name, const TTest *test)
{
  TCase *tc = tcase_create(name);
  /* The runs are short (seconds), but a slow machine under sanitizers or
     valgrind must not turn them into spurious timeouts. */
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test);
  suite_add_tcase(s, tc);
}

int exp_run(const char *name, const exp_case *cases, size_t n)
{
  Suite *s = exp_suite(name);
  for (size_t k = 0; k < n; k++)
    add(s, cases[k].name, cases[k].test);
  return tu_run(s);
}
